/*
 * core_join_plan.c - the plan of a join: keys, their common types and the
 * output schema (core_join.h).
 *
 * Everything here runs once, on schemas, before any row is read; the
 * work is in messages that say exactly what is wrong.  The output schema
 * is built in its final order (left, then right), and a right column's
 * name is checked against every name already given out, so a suffix that
 * makes a new clash is caught too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core_alloc.h"
#include "core_join.h"
#include "core_names.h"
#include "core_suggest.h"

static const struct {
	const char *name;
	enum core_join_type type;
} join_names[] = {
	{ "inner", CORE_JOIN_INNER },
	{ "left", CORE_JOIN_LEFT },
	{ "left outer", CORE_JOIN_LEFT },
	{ "right", CORE_JOIN_RIGHT },
	{ "right outer", CORE_JOIN_RIGHT },
	{ "full", CORE_JOIN_FULL },
	{ "full outer", CORE_JOIN_FULL },
	{ "semi", CORE_JOIN_SEMI },
	{ "anti", CORE_JOIN_ANTI },
};

int
core_join_type_parse(const char *s, enum core_join_type *out,
    struct core_err *err)
{
	size_t i;

	for (i = 0; i < sizeof(join_names) / sizeof(join_names[0]); i++)
		if (strcasecmp(s, join_names[i].name) == 0) {
			*out = join_names[i].type;
			return 0;
		}
	return core_err_set(err, CORE_EUSAGE, "unknown join type '%s' "
	    "(inner, left, right, full, semi, anti)", s);
}

const char *
core_join_type_name(enum core_join_type t)
{
	switch (t) {
	case CORE_JOIN_INNER:
		return "inner";
	case CORE_JOIN_LEFT:
		return "left";
	case CORE_JOIN_RIGHT:
		return "right";
	case CORE_JOIN_FULL:
		return "full";
	case CORE_JOIN_SEMI:
		return "semi";
	case CORE_JOIN_ANTI:
		return "anti";
	}
	return "?";
}

/* The digits of a type that holds exact numbers: integer digits and
 * scale.  False for every other type. */
static bool
exact_digits(struct core_coltype t, unsigned *idig, unsigned *scale)
{
	switch (t.id) {
	case CORE_TYPE_INT32:
		*idig = 10;
		*scale = 0;
		return true;
	case CORE_TYPE_INT64:
		*idig = 19;
		*scale = 0;
		return true;
	case CORE_TYPE_DECIMAL:
	case CORE_TYPE_DECIMAL128:
		*idig = (unsigned)(t.precision - t.scale);
		*scale = t.scale;
		return true;
	default:
		return false;
	}
}

static bool
is_number(enum core_type id)
{
	return id == CORE_TYPE_INT32 || id == CORE_TYPE_INT64 ||
	    core_type_is_decimal(id) || id == CORE_TYPE_FLOAT64;
}

int
core_join_common_type(struct core_coltype a, struct core_coltype b,
    struct core_coltype *out, struct core_err *err)
{
	unsigned ia = 0, sa = 0, ib = 0, sb = 0, idig, scale;
	char na[CORE_TYPE_NAME_MAX], nb[CORE_TYPE_NAME_MAX];

	memset(out, 0, sizeof(*out));
	if (a.id == b.id && !core_type_is_decimal(a.id)) {
		out->id = a.id;
		return 0;
	}
	if (is_number(a.id) && is_number(b.id)) {
		if (a.id == CORE_TYPE_FLOAT64 || b.id == CORE_TYPE_FLOAT64) {
			out->id = CORE_TYPE_FLOAT64;
			return 0;
		}
		if ((a.id == CORE_TYPE_INT32 || a.id == CORE_TYPE_INT64) &&
		    (b.id == CORE_TYPE_INT32 || b.id == CORE_TYPE_INT64)) {
			out->id = CORE_TYPE_INT64;
			return 0;
		}
		exact_digits(a, &ia, &sa);
		exact_digits(b, &ib, &sb);
		idig = ia > ib ? ia : ib;
		scale = sa > sb ? sa : sb;
		/* Past 18 digits the keys compare as 128-bit integers at
		 * the common scale (the join converts them). */
		if (idig + scale <= CORE_DECIMAL128_MAX_PRECISION) {
			out->id = idig + scale <= CORE_DECIMAL_MAX_PRECISION ?
			    CORE_TYPE_DECIMAL : CORE_TYPE_DECIMAL128;
			out->precision = (uint8_t)(idig + scale);
			out->scale = (uint8_t)scale;
			return 0;
		}
		return core_err_set(err, CORE_EUSAGE, "%s and %s need %u "
		    "digits to compare exactly, more than %d",
		    core_type_name(a, na), core_type_name(b, nb),
		    idig + scale, CORE_DECIMAL128_MAX_PRECISION);
	}
	if ((a.id == CORE_TYPE_DATE && b.id == CORE_TYPE_TIMESTAMP) ||
	    (a.id == CORE_TYPE_TIMESTAMP && b.id == CORE_TYPE_DATE)) {
		out->id = CORE_TYPE_TIMESTAMP;
		return 0;
	}
	return core_err_set(err, CORE_EUSAGE, "%s and %s cannot be compared",
	    core_type_name(a, na), core_type_name(b, nb));
}

/* "a, b, c" of a schema's names, for messages, in buf. */
static void
list_columns(const struct core_schema *s, char *buf, size_t cap)
{
	size_t n = 0;
	uint32_t i;

	buf[0] = '\0';
	for (i = 0; i < s->ncols && n + 1 < cap; i++)
		n += (size_t)snprintf(buf + n, cap - n, "%s%s", i ? ", " : "",
		    s->fields[i].name);
	if (n >= cap && cap > 4)
		memcpy(buf + cap - 4, "...", 4);
}

static int
find_column(const struct core_schema *s, const char *name, size_t len,
    const char *side, uint32_t *col, struct core_err *err)
{
	char cols[512];
	uint32_t i;

	for (i = 0; i < s->ncols; i++)
		if (strlen(s->fields[i].name) == len &&
		    memcmp(s->fields[i].name, name, len) == 0) {
			*col = i;
			return 0;
		}
	list_columns(s, cols, sizeof(cols));
	return core_err_set(err, CORE_EUSAGE, "the %s input has no column "
	    "'%.*s' (it has: %s)", side, (int)len, name, cols);
}

/* Parses spec->on into p->keys. */
static int
parse_keys(const char *on, const struct core_schema *left,
    const struct core_schema *right, struct core_join_plan *p,
    struct core_err *err)
{
	const char *item = on, *end, *eq;
	struct core_err why;
	size_t cap = 0;
	int rc;

	if (on == NULL || *on == '\0')
		return core_err_set(err, CORE_EUSAGE, "no join key: give "
		    "LEFT=RIGHT column pairs");
	for (;;) {
		struct core_join_key k;
		const char *rname;
		size_t llen, rlen;

		end = strchr(item, ',');
		if (end == NULL)
			end = item + strlen(item);
		eq = memchr(item, '=', (size_t)(end - item));
		llen = (size_t)((eq ? eq : end) - item);
		rname = eq ? eq + 1 : item;
		rlen = (size_t)(end - rname);
		if (llen == 0 || rlen == 0)
			return core_err_set(err, CORE_EUSAGE, "bad join key "
			    "'%.*s': expected LEFT=RIGHT or a name both "
			    "inputs have", (int)(end - item), item);
		memset(&k, 0, sizeof(k));
		if ((rc = find_column(left, item, llen, "left", &k.lcol,
		    err)) != 0 ||
		    (rc = find_column(right, rname, rlen, "right", &k.rcol,
		    err)) != 0)
			return rc;
		if (core_join_common_type(left->fields[k.lcol].type,
		    right->fields[k.rcol].type, &k.common, &why) != 0)
			return core_err_set(err, CORE_EUSAGE, "cannot join "
			    "left %s with right %s: %s",
			    left->fields[k.lcol].name,
			    right->fields[k.rcol].name, why.msg);
		p->keys = core_grow(p->keys, &cap, p->nkeys + 1,
		    sizeof(*p->keys), 4);
		p->keys[p->nkeys++] = k;
		if (*end == '\0')
			return 0;
		item = end + 1;
	}
}

static bool
is_right_key(const struct core_join_plan *p, uint32_t rcol)
{
	size_t k;

	for (k = 0; k < p->nkeys; k++)
		if (p->keys[k].rcol == rcol)
			return true;
	return false;
}

int
core_join_plan_new(const struct core_join_spec *spec,
    const struct core_schema *left, const struct core_schema *right,
    struct core_join_plan **out, struct core_err *err)
{
	struct core_join_plan *p = core_xcalloc(1, sizeof(*p));
	bool with_right = spec->type != CORE_JOIN_SEMI &&
	    spec->type != CORE_JOIN_ANTI;
	struct core_names names;	/* the output's names so far */
	uint32_t n = 0, i;
	bool taken;
	char *name;
	int rc;

	*out = NULL;
	core_names_init(&names);
	p->type = spec->type;
	if ((rc = parse_keys(spec->on, left, right, p, err)) != 0)
		goto fail;
	p->out = core_schema_new(left->ncols + (with_right ? right->ncols :
	    0));
	p->src = core_xcalloc(p->out->ncols ? p->out->ncols : 1,
	    sizeof(*p->src));
	for (i = 0; i < left->ncols; i++) {
		core_names_add(&names, left->fields[i].name, n);
		core_schema_set(p->out, n, left->fields[i].name,
		    left->fields[i].type);
		p->src[n].side = 0;
		p->src[n++].col = i;
	}
	for (i = 0; with_right && i < right->ncols; i++) {
		const char *base = right->fields[i].name;
		size_t len;

		if (spec->drop_right_keys && is_right_key(p, i))
			continue;
		len = strlen(base) + (spec->suffix ? strlen(spec->suffix) :
		    0) + 1;
		name = core_xmalloc(len);
		snprintf(name, len, "%s", base);
		taken = core_names_find(&names, name) >= 0;
		if (taken && spec->suffix != NULL) {
			snprintf(name, len, "%s%s", base, spec->suffix);
			taken = core_names_find(&names, name) >= 0;
		}
		if (taken) {
			rc = core_err_set(err, CORE_EUSAGE, "column '%s' would "
			    "be in the output twice (the right input's %s)",
			    name, base);
			free(name);
			goto fail;
		}
		core_names_add(&names, name, n);
		core_schema_set(p->out, n, name, right->fields[i].type);
		free(name);
		p->src[n].side = 1;
		p->src[n++].col = i;
	}
	p->out->ncols = n;	/* dropped right keys leave the tail unused */
	core_names_release(&names);
	*out = p;
	return 0;
fail:
	core_names_release(&names);
	core_join_plan_free(p);
	return rc;
}

void
core_join_plan_free(struct core_join_plan *p)
{
	if (p == NULL)
		return;
	core_schema_free(p->out);
	free(p->src);
	free(p->keys);
	free(p);
}

/* Index of the output column called name (len bytes), or -1. */
static int
out_column(const struct core_schema *out, const char *name, size_t len)
{
	uint32_t i;

	for (i = 0; i < out->ncols; i++)
		if (strlen(out->fields[i].name) == len &&
		    memcmp(out->fields[i].name, name, len) == 0)
			return (int)i;
	return -1;
}

/* Parses list into sel (output column indices, *n of them). */
static int
parse_select(const struct core_schema *out, const char *list, uint32_t *sel,
    uint32_t *n, struct core_err *err)
{
	const char *item = list, *end;
	char hint[512], *name;
	uint32_t k;
	int c;

	*n = 0;
	if (*list == '\0')
		return 0;
	for (;;) {
		end = strchr(item, ',');
		if (end == NULL)
			end = item + strlen(item);
		if (end == item)
			return core_err_set(err, CORE_EUSAGE, "empty column "
			    "name in the output list '%s'", list);
		c = out_column(out, item, (size_t)(end - item));
		if (c < 0) {
			name = core_xmalloc((size_t)(end - item) + 1);
			memcpy(name, item, (size_t)(end - item));
			name[end - item] = '\0';
			hint[0] = '\0';
			core_suggest_column(out, name, hint, sizeof(hint));
			core_err_set(err, CORE_EUSAGE, "the join's output has "
			    "no column '%s'%s", name, hint);
			free(name);
			return CORE_EUSAGE;
		}
		for (k = 0; k < *n; k++)
			if (sel[k] == (uint32_t)c)
				return core_err_set(err, CORE_EUSAGE, "column "
				    "'%s' is in the output list twice",
				    out->fields[c].name);
		sel[(*n)++] = (uint32_t)c;
		if (*end == '\0')
			return 0;
		item = end + 1;
	}
}

/* Narrows p to its output columns sel[0..nsel) (core_join_plan_select);
 * frees sel. */
static void
narrow(struct core_join_plan *p, const struct core_schema *left,
    const struct core_schema *right, uint32_t *sel, uint32_t nsel,
    struct core_join_proj *proj)
{
	const struct core_schema *side[2] = { left, right };
	uint32_t *map[2], i, j;
	struct core_schema *out;
	struct core_join_src *src;
	size_t k;
	int s;

	/* What each side must read: the selected columns and the keys. */
	for (s = 0; s < 2; s++)
		proj->want[s] = core_xcalloc(side[s]->ncols ? side[s]->ncols :
		    1, sizeof(bool));
	for (i = 0; i < nsel; i++)
		proj->want[p->src[sel[i]].side][p->src[sel[i]].col] = true;
	for (k = 0; k < p->nkeys; k++) {
		proj->want[0][p->keys[k].lcol] = true;
		proj->want[1][p->keys[k].rcol] = true;
	}
	for (s = 0; s < 2; s++) {
		uint32_t n = 0;

		map[s] = core_xmalloc((side[s]->ncols ? side[s]->ncols : 1) *
		    sizeof(*map[s]));
		proj->col[s] = core_xmalloc((side[s]->ncols ? side[s]->ncols :
		    1) * sizeof(*proj->col[s]));
		for (j = 0; j < side[s]->ncols; j++)
			if (proj->want[s][j]) {
				map[s][j] = n;
				proj->col[s][n++] = j;
			}
		proj->schema[s] = core_schema_new(n);
		for (j = 0; j < n; j++)
			core_schema_set(proj->schema[s], j,
			    side[s]->fields[proj->col[s][j]].name,
			    side[s]->fields[proj->col[s][j]].type);
	}
	/* The plan over the narrowed sides. */
	out = core_schema_new(nsel);
	src = core_xcalloc(nsel ? nsel : 1, sizeof(*src));
	for (i = 0; i < nsel; i++) {
		const struct core_join_src *f = &p->src[sel[i]];

		core_schema_set(out, i, p->out->fields[sel[i]].name,
		    p->out->fields[sel[i]].type);
		src[i].side = f->side;
		src[i].col = map[f->side][f->col];
	}
	for (k = 0; k < p->nkeys; k++) {
		p->keys[k].lcol = map[0][p->keys[k].lcol];
		p->keys[k].rcol = map[1][p->keys[k].rcol];
	}
	core_schema_free(p->out);
	free(p->src);
	p->out = out;
	p->src = src;
	free(map[0]);
	free(map[1]);
	free(sel);
}

int
core_join_plan_select(struct core_join_plan *p,
    const struct core_schema *left, const struct core_schema *right,
    const char *list, struct core_join_proj *proj, struct core_err *err)
{
	uint32_t *sel, nsel;
	int rc;

	memset(proj, 0, sizeof(*proj));
	sel = core_xmalloc((p->out->ncols ? p->out->ncols : 1) *
	    sizeof(*sel));
	if ((rc = parse_select(p->out, list, sel, &nsel, err)) != 0) {
		free(sel);
		return rc;
	}
	narrow(p, left, right, sel, nsel, proj);
	return 0;
}

bool
core_join_plan_narrow_unused(struct core_join_plan *p,
    const struct core_schema *left, const struct core_schema *right,
    struct core_join_proj *proj)
{
	uint32_t n = p->out->ncols, used = 0, i, *sel;
	bool *seen[2];
	size_t k;
	int s;

	memset(proj, 0, sizeof(*proj));
	seen[0] = core_xcalloc(left->ncols ? left->ncols : 1, sizeof(bool));
	seen[1] = core_xcalloc(right->ncols ? right->ncols : 1,
	    sizeof(bool));
	for (i = 0; i < n; i++)
		seen[p->src[i].side][p->src[i].col] = true;
	for (k = 0; k < p->nkeys; k++) {
		seen[0][p->keys[k].lcol] = true;
		seen[1][p->keys[k].rcol] = true;
	}
	for (s = 0; s < 2; s++)
		for (i = 0; i < (s ? right : left)->ncols; i++)
			used += seen[s][i];
	free(seen[0]);
	free(seen[1]);
	if (used == left->ncols + right->ncols)
		return false;
	sel = core_xmalloc((n ? n : 1) * sizeof(*sel));
	for (i = 0; i < n; i++)
		sel[i] = i;
	narrow(p, left, right, sel, n, proj);
	return true;
}

void
core_join_proj_release(struct core_join_proj *proj)
{
	int s;

	for (s = 0; s < 2; s++) {
		core_schema_free(proj->schema[s]);
		free(proj->col[s]);
		free(proj->want[s]);
	}
	memset(proj, 0, sizeof(*proj));
}

void
core_join_proj_batch(const struct core_join_proj *proj, int side,
    const struct core_batch *in, struct core_batch *b)
{
	uint32_t j;

	for (j = 0; j < b->ncols; j++)
		core_col_view(&b->cols[j], &in->cols[proj->col[side][j]]);
	b->nrows = in->nrows;
}
