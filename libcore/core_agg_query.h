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
 * Plans the keys by (a select list; NULL or "": no keys), the aggregates
 * aggs[0..naggs) (each a list of one or more calls) and the condition
 * having (NULL: none) over schema in (borrowed for the call) into *out
 * (caller's; core_agg_query_free).  An aggregate call in having that is
 * not among the aggregates ("sum(x) > 10" without sum(x)) is computed
 * as a hidden aggregate after the user's, which the filter's select
 * list (core_agg_query_visible) drops again.  0, or CORE_EUSAGE with
 * the message; *which is -1 when the mistake is in by, -2 in having,
 * else the index of the aggregate text.  having is borrowed until
 * core_agg_query_free.
 */
int core_agg_query_new(const char *by, const char *const *aggs,
    size_t naggs, const char *having, const struct core_schema *in,
    struct core_agg_query **out, int *which, struct core_err *err);
void core_agg_query_free(struct core_agg_query *q);	/* NULL is fine */

/* The select list that evaluates the keys, then the arguments, over the
 * input (for core_scan; it binds without error). */
const char *core_agg_query_select(const struct core_agg_query *q);

/* The having condition over the aggregation's output (its aggregate
 * calls made column names), or NULL without one. */
const char *core_agg_query_having(const struct core_agg_query *q);

/* The select list of the columns the user asked for, when having added
 * hidden aggregates; else NULL (the output is every column). */
const char *core_agg_query_visible(const struct core_agg_query *q);

/* Binds the having condition against the aggregation's output schema
 * out, with its errors' carets in the user's text: 0, or CORE_EUSAGE (an
 * unknown column, a type error, a condition that is not boolean). */
int core_agg_query_having_check(const struct core_agg_query *q,
    const struct core_schema *out, struct core_err *err);

/* The aggregation over that select list's output. */
const struct core_agg_spec *core_agg_query_spec(
    const struct core_agg_query *q);

#endif
