/*
 * core_agg_query.h - an aggregation as a user writes it: a --by list of
 * columns and expressions, and aggregate calls such as
 * "sum(l_extendedprice * (1 - l_discount)) AS revenue", planned into
 * what runs it: a projection (a select list for core_scan) that
 * evaluates the keys and the aggregates' arguments, and a core_agg spec
 * over the projection's output.
 *
 * Every mistake is found here, before a row is read, and reported at
 * its place in the text the user wrote (core_expr_err's caret): an
 * unknown column, a type error, a call that is not an aggregate, an
 * aggregate that does not take its argument's type, two output columns
 * of one name.
 *
 * Output names: a --by item is named by its AS, else by the column it
 * is, else by the expression's canonical spelling; an aggregate by its
 * AS, else by the call's canonical spelling ("sum(l_quantity)", as
 * DuckDB names it).
 */
#ifndef CORE_AGG_QUERY_H
#define CORE_AGG_QUERY_H

#include <stddef.h>
#include <stdint.h>

#include "core_agg.h"
#include "core_col.h"
#include "core_err.h"

struct core_agg_query;

/*
 * Plans the keys by (a select list; NULL or "": no keys) and the
 * aggregates aggs[0..naggs) (each a list of one or more calls) over
 * schema in (borrowed for the call) into *out (caller's;
 * core_agg_query_free).  0, or CORE_EUSAGE with the message; *which is
 * -1 when the mistake is in by, else the index of the aggregate text.
 */
int core_agg_query_new(const char *by, const char *const *aggs,
    size_t naggs, const struct core_schema *in, struct core_agg_query **out,
    int *which, struct core_err *err);
void core_agg_query_free(struct core_agg_query *q);	/* NULL is fine */

/* The select list that evaluates the keys, then the arguments, over the
 * input (for core_scan; it binds without error). */
const char *core_agg_query_select(const struct core_agg_query *q);

/* The aggregation over that select list's output. */
const struct core_agg_spec *core_agg_query_spec(
    const struct core_agg_query *q);

#endif
