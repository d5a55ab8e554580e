/*
 * core_gather.h - rows picked by reference, copied into columns.
 *
 * A sort's output, a join's matches, an aggregation's groups and a
 * selection over one batch all end the same way: a list of rows, each
 * named by a reference (source << 32 | row) into one of several source
 * batches, becomes one output batch.  The gather does it column by
 * column (one column's values are then read from few places and written
 * in one pass), prefetching the rows ahead, the costliest columns
 * first, split between the caller and a second thread when there is one
 * and enough rows to pay for it.
 *
 * The output's memory is a struct core_gather_out: a batch whose columns
 * are views into one chunk per thread, kept from call to call and grown
 * when the rows need more.  Growth is charged to the budget the gather
 * was made with, and given back when the out is released.  The bytes
 * gathered never depend on the thread count; only which chunk a column
 * lives in does.
 */
#ifndef CORE_GATHER_H
#define CORE_GATHER_H

#include <stdbool.h>
#include <stdint.h>

#include "core_col.h"
#include "core_mem.h"

struct core_pool;

#define CORE_GATHER_MAX_THREADS 2

/* Passed as text when the caller does not know the rows' text bytes. */
#define CORE_GATHER_TEXT_UNKNOWN UINT64_MAX

struct core_gather;

/* An output batch and the memory it views.  Embedded; init, then
 * release with the gather that filled it. */
struct core_gather_out {
	struct core_batch batch;	/* the rows of the last gather:
					   views into chunk[] (caps 0) */
	unsigned char *chunk[CORE_GATHER_MAX_THREADS];	/* owned */
	uint64_t cap[CORE_GATHER_MAX_THREADS];	/* bytes charged for each;
						   a chunk may be NULL while
						   charged ahead */
};

/*
 * A gather for batches of schema (borrowed, and must outlive it).  pool
 * (borrowed; NULL: the caller alone) lends the second thread.  mem
 * (borrowed; NULL: nothing is charged), a part of the stage's budget,
 * is charged for every out's chunks.
 */
struct core_gather *core_gather_new(const struct core_schema *schema,
    struct core_pool *pool, struct core_mem_part *mem);
void core_gather_free(struct core_gather *g);	/* accepts NULL */

void core_gather_out_init(struct core_gather_out *o,
    const struct core_schema *schema);

/*
 * Charges ahead for chunks of bytes, so that later gathers of up to that
 * size charge nothing: the first thread's chunk is made now; with
 * every_thread, each other thread's chunk is charged too, made when
 * first used, even when the gather has no such thread (the budget left
 * for the caller's other buffers is then the same whatever the thread
 * count).
 */
void core_gather_out_reserve(struct core_gather *g, struct core_gather_out *o,
    uint64_t bytes, bool every_thread);

/* Frees o's chunks and batch, giving back their charge. */
void core_gather_out_release(struct core_gather *g,
    struct core_gather_out *o);

/*
 * Gathers rows refs[0..n) (index into srcs << 32 | row) into o->batch,
 * o->batch.nrows = n.  srcs[k] may be NULL where no ref points.  Columns
 * with want[i] false (want NULL: every column) are left empty.  text is
 * the rows' text bytes summed over every wanted string column, or
 * CORE_GATHER_TEXT_UNKNOWN (each string column's offsets are then read
 * once more to size the chunks).  A column comes out with a validity
 * bitmap only when one of its rows is NULL.  o->batch stays valid until
 * the next gather into o or its release; it does not borrow from srcs.
 */
void core_gather_rows(struct core_gather *g,
    const struct core_batch *const *srcs, size_t nsrcs, const uint64_t *refs,
    uint32_t n, uint64_t text, const bool *want, struct core_gather_out *o);

/* The one-source case: rows[0..n) of src, a selection vector. */
void core_gather_select(struct core_gather *g, const struct core_batch *src,
    const uint32_t *rows, uint32_t n, const bool *want,
    struct core_gather_out *o);

#endif
