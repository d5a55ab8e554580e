/*
 * core_join_private.h - what the hash join (core_join.c) and the merge
 * join (core_join_merge.c) share inside libcore: assembling output
 * batches from pairs of row references.
 *
 * Both joins end the same way: a list of (left row, right row) pairs,
 * each row named by a reference (source << 32 | row, core_gather.h) into
 * that side's source batches, becomes one output batch: the left side's
 * columns gathered from the left sources, the right side's from the
 * right ones, column by column.  An outer join's unmatched row pairs
 * with the NULL row of the other side: a one-row batch of NULLs the
 * assembler owns (core_join_out_null), which the caller puts among its
 * sources like any other batch, so NULL-filling is a gather like any
 * other.
 *
 * Output batches alternate between two sets of buffers, so that a batch
 * handed to emit stays unchanged until the next emit returns (the
 * contract of core_join_emit_fn, which lets the writer still be writing
 * it).
 */
#ifndef CORE_JOIN_PRIVATE_H
#define CORE_JOIN_PRIVATE_H

#include <stddef.h>
#include <stdint.h>

#include "core_col.h"
#include "core_err.h"
#include "core_join.h"
#include "core_mem.h"

struct core_pool;
struct core_join_out;

/*
 * An assembler for plan's output (plan, left and right borrowed for its
 * life: the schemas the sources' first columns follow; sources may have
 * more columns, which are never read).  pool (borrowed, NULL: one
 * thread) lends the gathers a second thread; mem (borrowed, NULL:
 * nothing charged) is charged for the output buffers.
 */
struct core_join_out *core_join_out_new(const struct core_join_plan *plan,
    const struct core_schema *left, const struct core_schema *right,
    struct core_pool *pool, struct core_mem_part *mem);
void core_join_out_free(struct core_join_out *o);	/* accepts NULL */

/* The one-row batch of NULLs of side 0 (left) or 1 (right), borrowed for
 * the assembler's life: a source for the rows an outer join pads. */
const struct core_batch *core_join_out_null(const struct core_join_out *o,
    int side);

/*
 * Gathers n pairs into one output batch and passes it to emit (the join's
 * caller's).  Pair i is left row lref[i] of lsrcs and right row rref[i]
 * of rsrcs (reference convention of core_gather.h).  When the output has
 * no right columns (semi, anti, or every right column dropped) rsrcs and
 * rref are not read and may be NULL.  n 0 emits nothing.  Returns 0 or
 * emit's code.
 */
int core_join_out_emit(struct core_join_out *o,
    const struct core_batch *const *lsrcs, size_t nl, const uint64_t *lref,
    const struct core_batch *const *rsrcs, size_t nr, const uint64_t *rref,
    uint32_t n, core_join_emit_fn emit, void *arg, struct core_err *err);

/*
 * Ends the output of a join that ends with rc: emits one empty batch, so
 * that a caller still writing the last batch (an asynchronous writer)
 * waits for it while the buffers are alive.  A join calls it before
 * freeing o, also when it fails (emit's code then ignored), except after
 * emit itself failed: emit is not called again.  Returns rc, or emit's
 * code when rc is 0.
 */
int core_join_out_finish(struct core_join_out *o, int rc,
    core_join_emit_fn emit, void *arg, struct core_err *err);

#endif
