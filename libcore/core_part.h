/*
 * core_part.h - many partitions written at once, each a spill run.
 *
 * A Grace hash join or a spilling aggregation routes every row of its
 * input to one of N partitions (the caller picks each row's partition,
 * from a hash of its key) and writes the partitions to disk, to read
 * them back one at a time.  A partition set buffers each partition's
 * rows column by column and writes a partition's buffer as one frame of
 * its chained run (core_spill.h) when the buffer is full, or earlier
 * when the budget has no room for another's growth; at the end each
 * partition is a run the spill cursor reads, its rows in arrival order.
 *
 * A partition still too big to process is re-partitioned: its run is
 * read back and routed (with another hash seed) into a new set made on
 * the same spill set (core_part_new_in), so the cap on spilled bytes
 * and the temporary directories hold across every level.
 */
#ifndef CORE_PART_H
#define CORE_PART_H

#include <stddef.h>
#include <stdint.h>

#include "core_col.h"
#include "core_err.h"
#include "core_mem.h"
#include "core_pool.h"
#include "core_spill.h"

/* A frame grows at most to this many bytes before it is written; less
 * when the budget shared by the partitions is small. */
#define CORE_PART_FRAME_MAX ((uint64_t)1 << 20)

struct core_part;

struct core_part_stats {
	uint64_t bytes;		/* written to the spill files by this set */
	uint64_t frames;	/* frames written */
	uint64_t room_flushes;	/* buffers written early to make room */
	uint64_t rows;		/* rows routed */
};

/*
 * A set of nparts (>= 1) partitions of rows of schema (borrowed, must
 * outlive the set), with a spill set of its own over dirs (borrowed;
 * ndirs 0: the default temporary directory), max_spill bytes at most
 * (0: no cap) and zstd_level (0: raw).  Its buffers are charged to mem
 * (borrowed; NULL: nothing is charged).
 */
struct core_part *core_part_new(const struct core_schema *schema,
    uint32_t nparts, const char *const *dirs, size_t ndirs,
    uint64_t max_spill, int zstd_level, struct core_mem_part *mem);

/* The same, writing into sp (borrowed, must outlive the set), whose
 * schema, files, cap and compression it shares: to re-partition a run
 * of another set, read from sp while this set writes. */
struct core_part *core_part_new_in(struct core_spill *sp, uint32_t nparts,
    struct core_mem_part *mem);

/*
 * From now on writes full buffers on a helper of pool (borrowed, must
 * outlive the set) while the caller routes the next rows: they go into a
 * ring that the helper writes in order, taking the next frame as soon
 * as one is written; the caller waits only when 512 KiB in two frames
 * or more (or the whole ring) are pending.  Their memory stays charged
 * until written (their buffers then serve the next partitions to write
 * one), and is the first given back when the budget refuses growth.  A
 * write's failure is returned by a later add or by finish.  NULL, or a
 * pool of one thread, keeps writes on the caller.  Call before the
 * first add; no other set on the same spill set may be written
 * meanwhile.
 */
void core_part_async(struct core_part *p, struct core_pool *pool);

/* Frees the buffers (their charge goes back), the partitions' runs and
 * an own spill set, whose files go with it.  Accepts NULL. */
void core_part_free(struct core_part *p);

/* A row's partition meaning "none": the row is not routed (a hybrid
 * hash join keeps some partitions in memory). */
#define CORE_PART_SKIP UINT32_MAX

/*
 * Routes row r of b (schema as the set's) to partition part_of_row[r]
 * (each < nparts, or CORE_PART_SKIP), for r < b->nrows.  b is not kept.  0, or a negative
 * code: CORE_EIO (a spill file could not be written), CORE_ELIMIT (the
 * cap on spilled bytes), CORE_EINTERNAL (a partition out of range, or
 * the set finished).  After a failure the set is only good for freeing.
 */
int core_part_add(struct core_part *p, const struct core_batch *b,
    const uint32_t *part_of_row, struct core_err *err);

/* Writes every buffer out and gives all of their memory back; the runs
 * are then complete.  Codes as core_part_add. */
int core_part_finish(struct core_part *p, struct core_err *err);

uint32_t core_part_count(const struct core_part *p);

/* Partition k's run (borrowed, valid for the set's life), complete once
 * the set is finished: read it with core_spill_cursor_open on
 * core_part_spill(p). */
const struct core_spill_run *core_part_run(const struct core_part *p,
    uint32_t k);

/* Rows routed to partition k so far. */
uint64_t core_part_rows(const struct core_part *p, uint32_t k);

/* The bytes at which a buffer is written out as a frame (chosen at
 * creation from the budget's room and the partition count). */
uint64_t core_part_frame_bytes(const struct core_part *p);

/* Keeps p's frames to at most bytes (16 KiB at least), for a reader
 * that holds a few of them at once in a small share of its budget.
 * Call before the first add. */
void core_part_frame_cap(struct core_part *p, uint64_t bytes);

/* The spill set the runs are in (borrowed). */
struct core_spill *core_part_spill(struct core_part *p);

/* Gives partition k's disk space back (it will not be read again). */
void core_part_discard(struct core_part *p, uint32_t k);
/* Partition k will not be read again: its space is given back by the
 * next core_part_discard_retired, with that of every other partition
 * retired by then (far fewer calls than a core_part_discard each, as
 * neighbouring frames go back together).  Retiring a partition already
 * given back does nothing. */
void core_part_retire(struct core_part *p, uint32_t k);
void core_part_discard_retired(struct core_part *p);

void core_part_stats(const struct core_part *p, struct core_part_stats *st);

#endif
