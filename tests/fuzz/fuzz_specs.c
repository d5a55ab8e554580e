/*
 * fuzz_specs.c - the small parsers of option values on arbitrary text:
 * sizes (fe_parse_size, every tool's -m and --max-spill), sort keys
 * (core_sort_key_parse, colsort -k), join keys (core_join_plan_new's
 * "L=R,..." for coljoin --on) and output lists (core_join_plan_select,
 * coljoin --select) and aggregation operands
 * (core_agg_query_new, colagg's --by and aggregate calls), the names
 * resolved against a fixed schema (schema.h).
 *
 * The first byte picks the parser; the rest is the text, NUL-terminated
 * as a command line hands it over (for colagg: the first line is --by,
 * each further line one operand).  Each must succeed with a result that
 * makes sense (a key column the schema has) or fail with CORE_EUSAGE and
 * a message; never crash, overflow or leak.
 */
#include <stdlib.h>
#include <string.h>

#include "core_agg_query.h"
#include "core_alloc.h"
#include "core_join.h"
#include "core_sort.h"
#include "fe.h"
#include "replay.h"
#include "schema.h"

#define MAX_AGGS 8

static void
check_failure(int rc, const struct core_err *err)
{
	if (rc != CORE_EUSAGE || err->msg[0] == '\0')
		__builtin_trap();
}

/* core_join_plan_select (coljoin --select) on p: on success every
 * index it leaves must be inside the narrowed sides. */
static void
fuzz_select(struct core_join_plan *p, const char *list,
    const struct core_schema *schema)
{
	struct core_join_proj proj;
	struct core_err err;
	uint32_t i;
	size_t k;
	int rc, side;

	if ((rc = core_join_plan_select(p, schema, schema, list, &proj,
	    &err)) != 0) {
		check_failure(rc, &err);
		return;
	}
	for (i = 0; i < p->out->ncols; i++)
		if (p->src[i].col >= proj.schema[p->src[i].side]->ncols)
			__builtin_trap();
	for (k = 0; k < p->nkeys; k++)
		if (p->keys[k].lcol >= proj.schema[0]->ncols ||
		    p->keys[k].rcol >= proj.schema[1]->ncols)
			__builtin_trap();
	for (side = 0; side < 2; side++)
		for (i = 0; i < proj.schema[side]->ncols; i++)
			if (proj.col[side][i] >= schema->ncols ||
			    (i > 0 && proj.col[side][i] <=
			    proj.col[side][i - 1]))
				__builtin_trap();
	core_join_proj_release(&proj);
}

static void
fuzz_join(char *s, uint8_t how, const struct core_schema *schema)
{
	struct core_join_spec spec;
	struct core_join_plan *p;
	struct core_err err;
	size_t i;
	int rc;

	memset(&spec, 0, sizeof(spec));
	spec.type = (enum core_join_type)(how % 6);
	spec.on = s;
	spec.suffix = how & 0x10 ? "_r" : NULL;
	spec.drop_right_keys = how & 0x20;
	/* With 0x8 the text is a --select list of a join on the first
	 * column with the suffix. */
	if (how & 0x8) {
		spec.on = schema->fields[0].name;
		spec.suffix = "_r";
	}
	if ((rc = core_join_plan_new(&spec, schema, schema, &p, &err)) != 0) {
		check_failure(rc, &err);
		return;
	}
	for (i = 0; i < p->nkeys; i++)
		if (p->keys[i].lcol >= schema->ncols ||
		    p->keys[i].rcol >= schema->ncols)
			__builtin_trap();
	if (how & 0x8)
		fuzz_select(p, s, schema);
	core_join_plan_free(p);
}

static void
fuzz_agg(char *s, const struct core_schema *schema)
{
	const char *aggs[MAX_AGGS];
	struct core_agg_query *q;
	struct core_err err;
	char *by = s, *nl;
	const char *having = NULL;
	size_t n = 0;
	int which, rc;

	while (n < MAX_AGGS && (nl = strchr(s, '\n')) != NULL) {
		*nl = '\0';
		s = nl + 1;
		aggs[n++] = s;
	}
	if (n == 0)
		return;
	/* A last line starting with '?' is the --having condition. */
	if (n > 1 && aggs[n - 1][0] == '?')
		having = aggs[--n] + 1;
	if ((rc = core_agg_query_new(by, aggs, n, having, schema, &q,
	    &which, &err)) != 0) {
		check_failure(rc, &err);
		/* -1: the mistake is in by, -2: in having. */
		if (which < -2 || which >= (int)n)
			__builtin_trap();
		return;
	}
	if (core_agg_query_select(q) == NULL ||
	    core_agg_query_spec(q) == NULL)
		__builtin_trap();
	core_agg_query_free(q);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct core_schema *schema;
	struct core_sort_key key;
	struct core_err err;
	uint64_t bytes;
	char *s;
	int rc;

	if (size == 0)
		return 0;
	if (schema == NULL)
		schema = fuzz_schema();
	s = core_xmalloc(size);
	memcpy(s, data + 1, size - 1);
	s[size - 1] = '\0';
	switch (data[0] & 3) {
	case 0:
		if ((rc = fe_parse_size(s, &bytes, &err)) != 0)
			check_failure(rc, &err);
		break;
	case 1:
		if ((rc = core_sort_key_parse(s, schema, &key, &err)) != 0)
			check_failure(rc, &err);
		else if (key.col >= schema->ncols)
			__builtin_trap();
		break;
	case 2:
		fuzz_join(s, data[0] >> 2, schema);
		break;
	default:
		fuzz_agg(s, schema);
		break;
	}
	free(s);
	return 0;
}
