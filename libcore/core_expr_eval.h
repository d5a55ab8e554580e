/*
 * core_expr_eval.h - evaluating a bound expression over a column batch.
 *
 * A batch at a time: each node of the bound tree runs once per batch
 * over the rows of a selection vector (ascending row indices), in a
 * tight loop for its type, into scratch vectors the tree keeps from
 * batch to batch.  No per-row calls through pointers and no allocation
 * per value; column values of 64-bit types are read in place.
 *
 * Filters use SQL's three-valued logic and keep only rows that are TRUE
 * (NULL does not pass).  AND narrows the selection, so its right side
 * runs only on the rows its left side passed; OR runs its right side only
 * on the rows its left side did not pass.  CASE runs each THEN only on the
 * rows its WHEN chose, so a branch not taken cannot fail.
 *
 * Run-time errors are CORE_EDATA naming the row, "row N: ..." with N the
 * batch row index plus bound->row_base: integer and decimal overflow, a
 * cast that does not fit or does not parse.  The bound tree is not
 * reentrant (its scratch is shared): one thread per tree.
 */
#ifndef CORE_EXPR_EVAL_H
#define CORE_EXPR_EVAL_H

#include <stdint.h>

#include "core_col.h"
#include "core_err.h"
#include "core_expr_bind.h"

/*
 * The rows of sel_in (n_in ascending row indices of batch; NULL means
 * rows 0 .. n_in-1) for which the bool expression is TRUE, into sel_out
 * (room for n_in; may be sel_in itself), their number in *n_out.
 * 0, CORE_EUSAGE when the expression is not bool, or CORE_EDATA.
 */
int core_expr_eval_filter(struct core_expr_bound *b,
    const struct core_batch *batch, const uint32_t *sel_in, uint32_t n_in,
    uint32_t *sel_out, uint32_t *n_out, struct core_err *err);

/*
 * The expression's value for each of the n rows of sel (NULL: rows
 * 0 .. n-1) into out: n rows, row i for batch row sel[i], of the bound
 * type, validity NULL when no row is NULL.  out is a column the caller
 * owns, zeroed before the first call and reused after: its owned
 * buffers grow as needed; free them with core_expr_column_release.
 * 0 or CORE_EDATA.
 */
int core_expr_eval_project(struct core_expr_bound *b,
    const struct core_batch *batch, const uint32_t *sel, uint32_t n,
    struct core_column *out, struct core_err *err);

/* Frees the owned buffers of a column filled by eval_project and zeroes
 * it; NULL is fine. */
void core_expr_column_release(struct core_column *c);

#endif
