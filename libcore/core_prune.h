/*
 * core_prune.h - what a filter can rule out from a column's statistics:
 * skipping Parquet row groups (and any other unit with min/max and NULL
 * counts) that no row of can pass.
 *
 * A pruner is made from a bound filter.  It keeps the filter's top-level
 * conjuncts (the terms of its outermost ANDs) that compare one column,
 * as it is, with a constant: col = < <= > >= <> k (either side), col IS
 * [NOT] NULL, col IN (k, ...); BETWEEN comes as two comparisons.  The
 * rest of the filter is ignored, which is safe: a unit is skipped only
 * when one kept conjunct is false or NULL for every row the statistics
 * allow, so the filter is then false or NULL for each of them too.
 *
 * Statistics are in the column's evaluation domain: int32, int64, date
 * (days), timestamp (microseconds) and decimal (scaled by the column's
 * scale) values as int64, decimal128 ones as core_i128; strings as
 * bytes, compared bytewise.  Floats
 * and bools are not pruned on (a NaN has no place in min/max, and DuckDB
 * orders it above every number).
 *
 * Workload: a few terms, checked once per unit, thousands of units.
 */
#ifndef CORE_PRUNE_H
#define CORE_PRUNE_H

#include <stdbool.h>
#include <stdint.h>

#include "core_col.h"
#include "core_expr_bind.h"

/* One column's statistics over one unit (a row group). */
struct core_colstats {
	uint64_t rows;		/* rows of the unit */
	bool has_null_count;
	uint64_t null_count;
	bool has_minmax;	/* over the non-NULL values */
	int64_t imin, imax;	/* integer-domain columns */
	core_i128 wmin, wmax;	/* decimal128 columns */
	const char *smin, *smax;	/* strings; borrowed */
	uint32_t sminlen, smaxlen;
};

struct core_prune;

/*
 * A pruner for filter where (borrowed; NULL: none) over schema in; NULL
 * when no conjunct can rule anything out.  Free with core_prune_free.
 */
struct core_prune *core_prune_new(const struct core_expr_bound *where,
    const struct core_schema *in);
void core_prune_free(struct core_prune *p);	/* NULL is fine */

/* in->ncols flags: the columns whose statistics may_match reads. */
const bool *core_prune_columns(const struct core_prune *p);

/*
 * Whether a row of a unit with the statistics st (in->ncols entries;
 * only the flagged ones are read) may pass the filter.  False proves
 * that none can.
 */
bool core_prune_may_match(const struct core_prune *p,
    const struct core_colstats *st);

/*
 * Whether the filter holds, on column col, an = or IN term (neither is
 * true of a NULL).  A unit whose every non-NULL value of col, each taken
 * as a unit of its own, fails core_prune_may_match then has no row that
 * passes: what ruling a row group out on its dictionary rests on.
 */
bool core_prune_has_eq(const struct core_prune *p, uint32_t col);

#endif
