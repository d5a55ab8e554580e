/*
 * test_join_plan.c - the join plan: key parsing, common key types, the
 * output schema (order, suffixes, dropped keys) and every usage error.
 */
#include <string.h>

#include "core_col.h"
#include "core_join.h"
#include "unit.h"

/* A schema from "name:type,..." (types as core_type_parse reads them). */
static struct core_schema *
schema_of(const char *desc)
{
	char buf[512], *save = NULL, *item;
	struct core_schema *s;
	uint32_t n = 1, i = 0;
	const char *p;

	for (p = desc; *p; p++)
		n += *p == ';';
	s = core_schema_new(n);
	snprintf(buf, sizeof(buf), "%s", desc);
	for (item = strtok_r(buf, ";", &save); item != NULL;
	    item = strtok_r(NULL, ";", &save)) {
		char *colon = strchr(item, ':');
		struct core_coltype t;
		struct core_err err;

		*colon = '\0';
		if (core_type_parse(colon + 1, strlen(colon + 1), &t,
		    &err) != 0)
			return NULL;
		core_schema_set(s, i++, item, t);
	}
	return s;
}

static struct core_join_plan *
plan(const char *ldesc, const char *rdesc, enum core_join_type type,
    const char *on, const char *suffix, bool drop, int want_rc,
    const char *want_msg)
{
	struct core_schema *l = schema_of(ldesc), *r = schema_of(rdesc);
	struct core_join_spec spec = { type, on, suffix, drop };
	struct core_join_plan *p = NULL;
	struct core_err err = { 0, "" };
	int rc = core_join_plan_new(&spec, l, r, &p, &err);

	CHECK_EQ_INT(rc, want_rc);
	if (want_msg != NULL && strstr(err.msg, want_msg) == NULL) {
		printf("# message '%s' lacks '%s'\n", err.msg, want_msg);
		unit_cur_failed++;
	}
	if (rc != 0)
		CHECK(p == NULL);
	core_schema_free(l);
	core_schema_free(r);
	return p;
}

static void
test_output_schema(void)
{
	struct core_join_plan *p;
	char *d;

	p = plan("k:int64;a:string", "k2:int32;b:date", CORE_JOIN_INNER,
	    "k=k2", NULL, false, 0, NULL);
	d = core_schema_describe(p->out);
	CHECK_EQ_STR(d, "k:int64,a:string,k2:int32,b:date");
	free(d);
	CHECK_EQ_INT(p->nkeys, 1);
	CHECK_EQ_INT(p->keys[0].lcol, 0);
	CHECK_EQ_INT(p->keys[0].rcol, 0);
	CHECK_EQ_INT(p->keys[0].common.id, CORE_TYPE_INT64);
	CHECK_EQ_INT(p->src[2].side, 1);
	CHECK_EQ_INT(p->src[2].col, 0);
	core_join_plan_free(p);

	/* Semi and anti keep the left columns only. */
	p = plan("k:int64;a:string", "k:int64;a:string", CORE_JOIN_ANTI, "k",
	    NULL, false, 0, NULL);
	d = core_schema_describe(p->out);
	CHECK_EQ_STR(d, "k:int64,a:string");
	free(d);
	core_join_plan_free(p);

	/* A clash is refused, renamed with a suffix, or gone with the
	 * right keys. */
	plan("k:int64;a:string", "k:int64;b:string", CORE_JOIN_INNER, "k",
	    NULL, false, CORE_EUSAGE, "column 'k' would be in the output "
	    "twice");
	p = plan("k:int64;a:string", "k:int64;a:string", CORE_JOIN_LEFT,
	    "k", "_r", false, 0, NULL);
	d = core_schema_describe(p->out);
	CHECK_EQ_STR(d, "k:int64,a:string,k_r:int64,a_r:string");
	free(d);
	core_join_plan_free(p);
	p = plan("k:int64;a:string", "k:int64;b:string", CORE_JOIN_FULL,
	    "k", NULL, true, 0, NULL);
	d = core_schema_describe(p->out);
	CHECK_EQ_STR(d, "k:int64,a:string,b:string");
	CHECK_EQ_INT(p->out->ncols, 3);
	CHECK_EQ_INT(p->src[2].col, 1);
	free(d);
	core_join_plan_free(p);
	/* A suffix that makes a new clash is caught too. */
	plan("a:int64;a_r:string", "a:int64", CORE_JOIN_INNER, "a", "_r",
	    false, CORE_EUSAGE, "'a_r' would be in the output twice");
}

/*
 * core_join_plan_narrow_unused: a semi or anti join's right side is
 * narrowed to its keys (the plan's keys and sources follow); a plan
 * whose output or keys use every input column (inner, and full with
 * the right keys dropped: they are still keys) is left as it is.
 */
static void
test_narrow_unused(void)
{
	const char *l = "k:int64;a:string;k2:int32";
	const char *r = "x:string;rk:int64;y:date;rk2:int64";
	struct core_schema *ls = schema_of(l), *rs = schema_of(r);
	struct core_join_proj proj;
	struct core_join_plan *p;
	enum core_join_type t;
	char *d;

	for (t = CORE_JOIN_SEMI; ; t = CORE_JOIN_ANTI) {
		p = plan(l, r, t, "k=rk,k2=rk2", NULL, false, 0, NULL);
		CHECK(core_join_plan_narrow_unused(p, ls, rs, &proj));
		d = core_schema_describe(proj.schema[1]);
		CHECK_EQ_STR(d, "rk:int64,rk2:int64");
		free(d);
		d = core_schema_describe(proj.schema[0]);
		CHECK_EQ_STR(d, "k:int64,a:string,k2:int32");
		free(d);
		CHECK(!proj.want[1][0] && proj.want[1][1] && !proj.want[1][2] &&
		    proj.want[1][3]);
		CHECK_EQ_INT(proj.col[1][0], 1);
		CHECK_EQ_INT(proj.col[1][1], 3);
		/* The keys index the narrowed right side. */
		CHECK_EQ_INT(p->keys[0].rcol, 0);
		CHECK_EQ_INT(p->keys[1].rcol, 1);
		CHECK_EQ_INT(p->keys[1].lcol, 2);
		d = core_schema_describe(p->out);
		CHECK_EQ_STR(d, "k:int64,a:string,k2:int32");
		free(d);
		CHECK_EQ_INT(p->src[2].side, 0);
		CHECK_EQ_INT(p->src[2].col, 2);
		core_join_proj_release(&proj);
		core_join_plan_free(p);
		if (t == CORE_JOIN_ANTI)
			break;
	}
	p = plan(l, r, CORE_JOIN_INNER, "k=rk,k2=rk2", NULL, false, 0, NULL);
	CHECK(!core_join_plan_narrow_unused(p, ls, rs, &proj));
	CHECK(proj.schema[0] == NULL && proj.schema[1] == NULL);
	core_join_plan_free(p);
	p = plan(l, r, CORE_JOIN_FULL, "k=rk,k2=rk2", NULL, true, 0, NULL);
	CHECK(!core_join_plan_narrow_unused(p, ls, rs, &proj));
	core_join_plan_free(p);
	core_schema_free(ls);
	core_schema_free(rs);
}

static void
test_keys(void)
{
	struct core_join_plan *p;

	p = plan("a:int32;b:string;c:decimal(15,2)",
	    "x:int32;y:string;z:decimal(12,1)", CORE_JOIN_INNER,
	    "a=x,b=y,c=z", NULL, false, 0, NULL);
	CHECK_EQ_INT(p->nkeys, 3);
	CHECK_EQ_INT(p->keys[1].lcol, 1);
	CHECK_EQ_INT(p->keys[1].rcol, 1);
	CHECK_EQ_INT(p->keys[1].common.id, CORE_TYPE_STRING);
	/* decimal(15,2) with decimal(12,1): 13 integer digits, scale 2. */
	CHECK_EQ_INT(p->keys[2].common.id, CORE_TYPE_DECIMAL);
	CHECK_EQ_INT(p->keys[2].common.precision, 15);
	CHECK_EQ_INT(p->keys[2].common.scale, 2);
	core_join_plan_free(p);
	plan("a:int64", "a:int64", CORE_JOIN_INNER, "", NULL, false,
	    CORE_EUSAGE, "no join key");
	plan("a:int64", "a:int64", CORE_JOIN_INNER, "a=", NULL, false,
	    CORE_EUSAGE, "bad join key 'a='");
	plan("a:int64", "a:int64", CORE_JOIN_INNER, "a,,a", NULL, false,
	    CORE_EUSAGE, "bad join key");
	plan("a:int64;b:date", "a:int64", CORE_JOIN_INNER, "nope=a", NULL,
	    false, CORE_EUSAGE, "the left input has no column 'nope' "
	    "(it has: a, b)");
	plan("a:int64", "a:int64", CORE_JOIN_INNER, "a=zz", NULL, false,
	    CORE_EUSAGE, "the right input has no column 'zz'");
	plan("a:int64", "s:string", CORE_JOIN_INNER, "a=s", NULL, false,
	    CORE_EUSAGE, "cannot join left a with right s: int64 and string "
	    "cannot be compared");
}

static void
test_common_types(void)
{
	static const struct {
		const char *a, *b, *want;	/* want NULL: refused */
	} cases[] = {
		{ "int32", "int32", "int32" },
		{ "int32", "int64", "int64" },
		{ "int64", "int32", "int64" },
		{ "int32", "decimal(15,2)", "decimal(15,2)" },
		{ "int32", "decimal(4,2)", "decimal(12,2)" },
		{ "decimal(15,2)", "decimal(18,4)", "decimal(18,4)" },
		{ "decimal(18,0)", "decimal(18,18)", "decimal(36,18)" },
		{ "int64", "decimal(10,2)", "decimal(21,2)" },
		{ "decimal(20,2)", "decimal(5,3)", "decimal(21,3)" },
		{ "decimal(38,0)", "int32", "decimal(38,0)" },
		{ "decimal(38,0)", "decimal(10,2)", NULL },
		{ "decimal(38,38)", "int32", NULL },
		{ "int64", "float64", "float64" },
		{ "decimal(9,3)", "float64", "float64" },
		{ "date", "timestamp", "timestamp" },
		{ "date", "date", "date" },
		{ "string", "string", "string" },
		{ "bool", "bool", "bool" },
		{ "bool", "int32", NULL },
		{ "string", "date", NULL },
		{ "date", "int32", NULL },
	};
	char name[CORE_TYPE_NAME_MAX];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct core_coltype a, b, c;
		struct core_err err;
		int rc;

		CHECK_EQ_INT(core_type_parse(cases[i].a, strlen(cases[i].a),
		    &a, &err), 0);
		CHECK_EQ_INT(core_type_parse(cases[i].b, strlen(cases[i].b),
		    &b, &err), 0);
		rc = core_join_common_type(a, b, &c, &err);
		if (cases[i].want == NULL) {
			CHECK_EQ_INT(rc, CORE_EUSAGE);
			continue;
		}
		CHECK_EQ_INT(rc, 0);
		CHECK_EQ_STR(core_type_name(c, name), cases[i].want);
	}
}

static void
test_type_names(void)
{
	enum core_join_type t;
	struct core_err err;

	CHECK_EQ_INT(core_join_type_parse("LEFT", &t, &err), 0);
	CHECK_EQ_INT(t, CORE_JOIN_LEFT);
	CHECK_EQ_INT(core_join_type_parse("full outer", &t, &err), 0);
	CHECK_EQ_INT(t, CORE_JOIN_FULL);
	CHECK_EQ_STR(core_join_type_name(CORE_JOIN_ANTI), "anti");
	CHECK_EQ_INT(core_join_type_parse("cross", &t, &err), CORE_EUSAGE);
	CHECK(strstr(err.msg, "unknown join type 'cross'") != NULL);
}

int
main(void)
{
	RUN(test_output_schema);
	RUN(test_narrow_unused);
	RUN(test_keys);
	RUN(test_common_types);
	RUN(test_type_names);
	return unit_done();
}
