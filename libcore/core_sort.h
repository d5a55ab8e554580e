/*
 * core_sort.h - sort keys and the external merge sort behind colsort.
 *
 * A key is a column, a direction and a NULL placement.  Values compare by
 * type: numbers numerically (decimals exactly, as scaled integers of the
 * column's one scale), dates and timestamps in time order, strings
 * bytewise (memcmp, then the shorter first), booleans false < true,
 * float64 with -0 == +0 and NaN after every other number.  NULLs go last
 * unless the key asks for nulls-first; the direction does not move them.
 *
 * The sorter (struct core_sort) takes batches in input order, buffers
 * copies of them under a struct core_mem budget, sorts the whole buffer
 * when the budget is reached and spills it as one sorted run (an MLSPILL3
 * stream in an anonymous temporary file, core_spill.h), then merges the
 * runs with a loser tree, in several passes when there are more runs than
 * merge buffers fit in the budget.  The sort is stable: rows with equal
 * keys come out in input order.  Output batches are gathered column by
 * column from row references, never copied row by row.
 */
#ifndef CORE_SORT_H
#define CORE_SORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core_col.h"
#include "core_err.h"
#include "core_mem.h"

struct core_sort_key {
	uint32_t col;		/* column index in the schema */
	bool desc;		/* descending values */
	bool nulls_first;	/* NULLs before values (default after) */
};

/* Parses "COL[:asc|:desc][:nulls-first|:nulls-last]" against schema.
 * A column whose own name contains ':' is found by its whole name first;
 * the modifiers are case insensitive.  0, or CORE_EUSAGE with a message
 * naming the spec: an unknown column lists the columns and the closest
 * spelling, a sort(1) key ("9,9", "2nr") says how to write it here. */
int core_sort_key_parse(const char *spec, const struct core_schema *schema,
    struct core_sort_key *out, struct core_err *err);

/* Compares row ra of batch a with row rb of batch b (same schema) by the
 * keys in order: <0, 0 or >0.  The one definition of the order; the fast
 * paths inside the sorter agree with it. */
int core_sort_compare(const struct core_sort_key *keys, size_t nkeys,
    const struct core_batch *a, uint32_t ra, const struct core_batch *b,
    uint32_t rb);

struct core_sort_options {
	const struct core_sort_key *keys;	/* borrowed, nkeys >= 1 */
	size_t nkeys;
	uint64_t limit;			/* emit at most limit rows ... */
	bool has_limit;			/* ... when set (--limit) */
	bool unique;			/* first row of equal-key runs */
	const char *const *tmpdirs;	/* borrowed; used in turn */
	size_t ntmpdirs;		/* 0 = core_tmpdir_default() */
	uint64_t max_spill;		/* bytes; 0 = no cap */
	bool compress_spill;		/* zstd level 1 on spill frames */
	uint32_t batch_rows;		/* most rows per output batch; 0 =
					   8192 */
	unsigned threads;		/* 1, or 2 to gather output batches
					   on two threads; 0 = 2 when the
					   machine has two cores */
	/* Told of each phase after the input, for progress: "sorting"
	 * (a buffer in memory), "merging" pass i of about n (n counts the
	 * last merge, which writes the output; it is an estimate until
	 * i == n).  NULL: not told. */
	void (*phase)(void *arg, const char *phase, unsigned i, unsigned n);
	void *phase_arg;
};

struct core_sort_stats {
	uint64_t rows_in;
	uint64_t rows_out;
	uint64_t runs;			/* runs formed from the input */
	uint64_t spill_bytes;		/* bytes written to spill files */
	uint64_t merge_passes;		/* 0 when everything fit */
	uint64_t peak_mem;		/* most bytes charged at once */
	uint64_t need_mem;		/* set when core_sort_add failed
					   with CORE_ELIMIT for a row too
					   wide for the budget: the budget
					   that would sort it */
};

struct core_sort;

/* Called with each output batch in order.  The struct b is valid during
 * the call only; its buffers stay unchanged until the next call returns
 * (or core_sort_free), so the callee may still be writing them when it
 * returns (core_mlspill3_writer_async).  A non-zero return stops the sort
 * and is passed back. */
typedef int (*core_sort_emit_fn)(void *arg, const struct core_batch *b,
    struct core_err *err);

/* schema, mem and o's arrays are borrowed for the sorter's life. */
struct core_sort *core_sort_new(const struct core_sort_options *o,
    const struct core_schema *schema, struct core_mem *mem);
void core_sort_free(struct core_sort *s);	/* accepts NULL */

/*
 * Says how much input there is, when its size is known (regular files):
 * done bytes of it have been read, including the batch about to be
 * added, of total.  Only the sizes of the runs depend on it: knowing
 * what is still to come, the sort spills just enough to keep the last
 * run in memory.  Not calling it, or total 0, means unknown.
 */
void core_sort_input(struct core_sort *s, uint64_t done, uint64_t total);

/* Takes a copy of b's rows (b may be a reader's view).  CORE_ELIMIT
 * when a row is wider than a quarter of the budget (need_mem in the
 * stats says the budget it needs). */
int core_sort_add(struct core_sort *s, const struct core_batch *b,
    struct core_err *err);

/* Sorts and merges what was added and emits it; call once. */
int core_sort_finish(struct core_sort *s, core_sort_emit_fn emit, void *arg,
    struct core_err *err);

void core_sort_get_stats(const struct core_sort *s,
    struct core_sort_stats *st);

/*
 * Order checking (colsort --check): feed batches in order; the first row
 * out of order (or, with strict, equal to the row before it) is reported.
 */
struct core_sort_check;

struct core_sort_check *core_sort_check_new(const struct core_sort_key *keys,
    size_t nkeys, const struct core_schema *schema, bool strict);
void core_sort_check_free(struct core_sort_check *c);	/* accepts NULL */

/* 0 when b continues the order, 1 when row *bad (0-based, counted over
 * every batch fed so far) breaks it. */
int core_sort_check_batch(struct core_sort_check *c,
    const struct core_batch *b, uint64_t *bad);

/* After core_sort_check_batch returned 1 for b: writes into buf (size
 * bytes) the keys of the row out of order and of the row before it, as
 * "(k1, k2) after (k1, k2)": strings quoted and cut at 40 bytes, NULL
 * unquoted. */
void core_sort_check_describe(const struct core_sort_check *c,
    const struct core_batch *b, uint64_t bad, char *buf, size_t size);

#endif
