/*
 * core_spill.h - sorted runs in anonymous temporary files.
 *
 * A spill set owns one anonymous file per temporary directory
 * (core_tmpfile_open: unlinked from birth, so no kind of exit leaves
 * anything behind) and appends runs to them in turn.  A run is one
 * complete MLSPILL3 stream written with core_mlspill3's writer; it is read
 * back frame by frame with pread(2) into buffers the caller's budget is
 * charged for, so a merge of many runs holds one frame per run and
 * nothing more (the general reader's 1 MiB read-ahead per stream would
 * not fit small budgets).  Each frame's checksum is verified on reading.
 *
 * One run is written at a time; any number may be read at once.
 *
 * Chained runs are for writing many runs at once (the partitions of a
 * hash join or aggregation, core_part.h): each of their frames is a
 * record appended to whichever spill file is next, so one run's frames
 * lie scattered among other runs' and the run is the list of where they
 * are.  Every file has one MLSPILL3 stream of such frames, shared by all
 * chained runs of the set and never ended (nothing reads it as a
 * stream); contiguous runs may be appended between its frames.  The
 * same cursor reads both kinds.
 */
#ifndef CORE_SPILL_H
#define CORE_SPILL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core_col.h"
#include "core_err.h"
#include "core_mem.h"

/* Where a chained run's frame lives: one record of one spill file. */
struct core_spill_extent {
	uint64_t off;		/* the record's first byte */
	uint64_t len;		/* record bytes */
	uint32_t file;
};

/* Where a run lives: a byte range of one spill file, or for a chained
 * run the list of its frames. */
struct core_spill_run {
	uint32_t file;		/* index of the spill file */
	uint64_t off;		/* first byte of the stream */
	uint64_t len;		/* stream bytes (chained: of its frames) */
	uint64_t rows;
	bool chained;		/* core_spill_chain_init'ed */
	struct core_spill_extent *frames;	/* chained: owned, in order */
	size_t nframes, frames_cap;
};

/* A run being read: where the next record starts. */
struct core_spill_cursor {
	const struct core_spill_run *run;	/* borrowed */
	uint64_t pos;		/* absolute file offset of next record */
	uint32_t file;		/* the file it is in */
	uint64_t rows;		/* rows read so far */
	uint64_t frames;	/* frames read so far */
	bool done;		/* the end record was read */
};

/* One frame read back: batch columns are views of body (or of raw for
 * compressed buffers), valid until the next read into the same frame or
 * its release.  Zero-initialise before the first read. */
struct core_spill_frame {
	struct core_batch batch;	/* core_batch_init'ed on the schema */
	unsigned char *body;		/* owned, aligned, body_cap bytes */
	unsigned char *raw;		/* owned: decompressed buffers */
	uint64_t body_cap, raw_cap;
	uint64_t charged;		/* bytes charged: body_cap + raw_cap */
};

struct core_spill;

/* dirs (borrowed; ndirs == 0 means core_tmpdir_default()) are used in
 * turn; max_bytes 0 = no cap on bytes written; zstd_level 0 = raw.
 * schema is borrowed for the spill set's life. */
struct core_spill *core_spill_new(const char *const *dirs, size_t ndirs,
    uint64_t max_bytes, int zstd_level, const struct core_schema *schema);
void core_spill_free(struct core_spill *sp);	/* accepts NULL */

/* Writes runs on a thread of their own from now on (not on a one-core
 * machine), behind the caller: a batch given to core_spill_run_write
 * must keep its buffers until the next call returns. */
void core_spill_async(struct core_spill *sp);

/* Writing one run: begin, write batches, end (which fills *run). */
int core_spill_run_begin(struct core_spill *sp, struct core_err *err);
int core_spill_run_write(struct core_spill *sp, const struct core_batch *b,
    struct core_err *err);
int core_spill_run_end(struct core_spill *sp, struct core_spill_run *run,
    struct core_err *err);

/* Chained runs, any number written at once (never while a contiguous run
 * is being written: both append to the same files).  init makes run an
 * empty chained run; chain_write appends b to it as one frame (nothing
 * for an empty batch), in the next spill file in turn, and checks the
 * cap on bytes written; chain_release frees the run's frame list (the
 * run cannot be read afterwards; a run not chained is left alone, so
 * every run may be passed).  After a failed write the run is unusable,
 * the spill set still consistent. */
void core_spill_chain_init(struct core_spill_run *run);
int core_spill_chain_write(struct core_spill *sp, struct core_spill_run *run,
    const struct core_batch *b, struct core_err *err);
void core_spill_chain_release(struct core_spill_run *run);

/* The spill set's schema (borrowed). */
const struct core_schema *core_spill_schema(const struct core_spill *sp);

/* Gives a run's disk space back (it will not be read again). */
void core_spill_run_discard(struct core_spill *sp,
    const struct core_spill_run *run);
/* The same for n runs at once, the space of neighbouring records given
 * back as one range: a chained run's frames lie between other runs', so
 * runs given back one by one cost a call per frame. */
void core_spill_runs_discard(struct core_spill *sp,
    const struct core_spill_run *const *runs, size_t n);

/* Bytes written to spill files so far. */
uint64_t core_spill_bytes(const struct core_spill *sp);

/* Positions c at the first frame of run (checks the stream header). */
int core_spill_cursor_open(struct core_spill *sp, struct core_spill_cursor *c,
    const struct core_spill_run *run, struct core_err *err);

/* Reads the next frame of c into f (f->batch initialised by the caller
 * with core_batch_init), reusing f's buffers and charging any growth to
 * mem, a part of the budget (core_mem_part_charge: the caller decides
 * beforehand whether to make room).  0, CORE_EOF at the run's end, or a
 * negative code. */
int core_spill_read_frame(struct core_spill *sp, struct core_spill_cursor *c,
    struct core_spill_frame *f, struct core_mem_part *mem,
    struct core_err *err);

/* Frees f's buffers and gives their charge back; f stays reusable. */
void core_spill_frame_release(struct core_spill_frame *f,
    struct core_mem_part *mem);

#endif
