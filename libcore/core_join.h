/*
 * core_join.h - joins of two column streams on equality keys.
 *
 * This part is the plan: what a join of a left and a right schema on the
 * given keys produces, decided before any row is read, so that every
 * mistake in the command line (an unknown column, keys that cannot be
 * compared, a name on both sides) is a usage error that costs nothing.
 *
 * Join types have SQL's meaning: inner, left, right and full (outer)
 * joins; semi (left rows with a match) and anti (left rows without one,
 * NOT EXISTS).  A NULL key never matches.  The output holds the left
 * columns, then the right ones (none for semi and anti), the right key
 * columns left out on request.
 *
 * Keys of different but compatible types compare as SQL compares them,
 * in a common type: int32 with int64 as int64; decimals of different
 * scales (and integers with decimals) as one decimal of the larger scale
 * with room for both sides' integer digits, when that fits in 38 digits
 * (past 18, a decimal128, whose keys the join compares as 128-bit
 * integers at the common scale);
 * a float64 with any number as float64; a date with a timestamp as a
 * timestamp.  Strings join only strings, booleans only booleans.
 */
#ifndef CORE_JOIN_H
#define CORE_JOIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core_col.h"
#include "core_err.h"
#include "core_mem.h"

enum core_join_type {
	CORE_JOIN_INNER,
	CORE_JOIN_LEFT,
	CORE_JOIN_RIGHT,
	CORE_JOIN_FULL,
	CORE_JOIN_SEMI,
	CORE_JOIN_ANTI,
};

/* "inner", "left", "right", "full", "semi", "anti" (case-insensitive;
 * also "left outer", "right outer", "full outer").  0 or CORE_EUSAGE. */
int core_join_type_parse(const char *s, enum core_join_type *out,
    struct core_err *err);
const char *core_join_type_name(enum core_join_type t);

/* What the caller asks for; strings borrowed for the call. */
struct core_join_spec {
	enum core_join_type type;
	/* "L=R[,L2=R2...]": a left column equal to a right one; "K" alone
	 * is "K=K". */
	const char *on;
	/* Appended to a right column's name that a left column (or an
	 * earlier output column) already has; NULL: such a clash is an
	 * error. */
	const char *suffix;
	bool drop_right_keys;	/* leave the right key columns out */
};

/* One key pair and the type both sides compare in. */
struct core_join_key {
	uint32_t lcol, rcol;		/* column indices on each side */
	struct core_coltype common;
};

/* Where an output column comes from. */
struct core_join_src {
	uint8_t side;			/* 0 left, 1 right */
	uint32_t col;			/* column index on that side */
};

struct core_join_plan {
	enum core_join_type type;
	struct core_join_key *keys;	/* owned, nkeys >= 1 */
	size_t nkeys;
	struct core_schema *out;	/* owned: the output's schema */
	struct core_join_src *src;	/* owned: out->ncols entries */
};

/*
 * Plans the join of left and right (borrowed for the call) as spec asks.
 * On success *out is the caller's (core_join_plan_free).  CORE_EUSAGE
 * with a message naming the column, its side and, for keys, both types,
 * for: an empty or malformed key list, a column a side does not have
 * (the message lists the side's columns), keys whose types cannot be
 * compared, a column name that both sides give the output.
 */
int core_join_plan_new(const struct core_join_spec *spec,
    const struct core_schema *left, const struct core_schema *right,
    struct core_join_plan **out, struct core_err *err);
void core_join_plan_free(struct core_join_plan *p);	/* accepts NULL */

/* The inputs of a narrowed plan (core_join_plan_select). */
struct core_join_proj {
	/* Owned: each side's narrowed schema, its columns in their input
	 * order; narrowed column j of side s is input column col[s][j]. */
	struct core_schema *schema[2];
	uint32_t *col[2];		/* owned */
	bool *want[2];			/* owned: per input column, read it */
};

/*
 * Narrows p (planned over left and right) to the output columns list
 * names, in its order: "a,b,c", names of p->out (after --suffix and the
 * dropped right keys); "" for none (a count).  The sides are narrowed to
 * the columns the output or a key uses, in their input order: p's keys
 * and sources then index those, and the join is run over inputs whose
 * schemas are proj->schema[0] and [1], each batch a view of proj->col's
 * columns of an input batch.  On success *proj is the caller's
 * (core_join_proj_release); p is unchanged on failure.  CORE_EUSAGE for
 * an empty item, a name the output does not have (naming the closest and
 * the names there are) or a name twice.
 */
int core_join_plan_select(struct core_join_plan *p,
    const struct core_schema *left, const struct core_schema *right,
    const char *list, struct core_join_proj *proj, struct core_err *err);
void core_join_proj_release(struct core_join_proj *proj);

/*
 * Narrows p as core_join_plan_select does, to every column of its
 * output in order, when some input column is neither output nor key
 * (the right side of a semi or anti join): the join then never reads,
 * stores or spills it.  True when so (*proj is then the caller's); false
 * with p unchanged and *proj empty when every input column is used.
 */
bool core_join_plan_narrow_unused(struct core_join_plan *p,
    const struct core_schema *left, const struct core_schema *right,
    struct core_join_proj *proj);

/* Makes b a view of the columns proj->col[side] of the input batch in
 * (of the side's whole schema; b was core_batch_init'ed on
 * proj->schema[side]). */
void core_join_proj_batch(const struct core_join_proj *proj, int side,
    const struct core_batch *in, struct core_batch *b);

/* The type keys of types a and b compare in: 0, or CORE_EUSAGE when
 * they cannot be compared (err says why, without column names). */
int core_join_common_type(struct core_coltype a, struct core_coltype b,
    struct core_coltype *out, struct core_err *err);

/* ---- running a join ---- */

/*
 * A stream of batches a join reads: next fills b (core_batch_init'ed by
 * the join on schema) with the next batch, whose buffers may be views
 * valid until the next call (an MLSPILL3 reader's): 0, CORE_EOF at the
 * end, or a negative code, passed back.  An empty batch is allowed.
 */
typedef int (*core_join_next_fn)(void *arg, struct core_batch *b,
    struct core_err *err);

struct core_join_input {
	const struct core_schema *schema;	/* borrowed */
	core_join_next_fn next;
	void *arg;
	/* Bytes of input when known (a regular file), else 0: only the
	 * choice of the fan-out and of --build auto use it. */
	uint64_t size_hint;
};

/* Called with each output batch (schema plan->out).  The struct is valid
 * during the call only; its buffers stay unchanged until the next call
 * returns, as core_sort_emit_fn's.  Calls never overlap, but with two
 * threads a partitioned join makes them on a helper thread while the
 * inputs' next functions run on the caller's (only while joining
 * partitions, the inputs read by then), so what emit shares with them
 * needs a lock.  A join ends with one call with an
 * empty batch, after which it frees the buffers: a writer still writing
 * the batch before waits for it there.  It is made also when the join
 * fails (its return then ignored), unless emit itself failed: a non-zero
 * return stops the join, is passed back, and no call follows it. */
typedef int (*core_join_emit_fn)(void *arg, const struct core_batch *b,
    struct core_err *err);

struct core_join_options {
	const struct core_join_plan *plan;	/* borrowed */
	/* Anti join with NOT IN's semantics: no left row survives when the
	 * right side has a NULL key, and a left row whose key is NULL
	 * survives only when the right side is empty.  One key pair only
	 * (NOT IN over row values with partial NULLs is not offered). */
	bool null_aware;
	bool build_left;		/* hash the left side (default: right) */
	/* Hash the smaller side: by the size hints when both are known;
	 * else both inputs are read ahead in turn, the one with fewer
	 * bytes read next, their batches copied aside (at most an eighth
	 * of the budget, and CORE_JOIN_AHEAD, in all), until one ends: that
	 * one is hashed.  When neither ends within that, build_left
	 * decides.  Any join type. */
	bool build_auto;
	const char *const *tmpdirs;	/* borrowed; used in turn */
	size_t ntmpdirs;		/* 0 = core_tmpdir_default() */
	uint64_t max_spill;		/* bytes; 0 = no cap */
	bool compress_spill;		/* zstd level 1 on spill frames */
	uint32_t batch_rows;		/* most rows per output batch; 0 =
					   8192 */
	unsigned threads;		/* 1 or 2; 0 = 2 on two cores */
	/* Told of each phase, for progress: "building", "partitioning",
	 * "joining" partition i of n (i, n 0 when in memory), "merging".
	 * NULL: not told. */
	void (*phase)(void *arg, const char *phase, unsigned i, unsigned n);
	void *phase_arg;
};

/* Most bytes --build auto reads ahead of streams (build_auto). */
#define CORE_JOIN_AHEAD ((uint64_t)64 << 20)

struct core_join_stats {
	uint64_t rows_left, rows_right;	/* rows read from each input */
	uint64_t rows_out;
	uint64_t partitions;		/* partitions written, all levels */
	uint64_t levels;		/* 0 in memory, 1 partitioned, 2+
					   re-partitioned */
	uint64_t chunked;		/* partitions joined in chunks (one
					   key too big for the budget) */
	uint64_t kept;			/* partitions of a hybrid join kept
					   in memory, never written */
	uint64_t spill_bytes;		/* bytes written to spill files */
	uint64_t peak_mem;		/* most bytes charged at once */
	bool build_left;		/* the left side was hashed */
	uint64_t need_mem;		/* CORE_ELIMIT for a row too wide
					   for the budget: the budget named
					   (0 otherwise) */
};

/*
 * The hash join: reads the build side (the right input, or the left with
 * build_left) into a hash table within mem, probes it with the other
 * side a batch at a time and emits the output batches (plan->out) in no
 * particular order.  A build side too big for mem is partitioned to
 * spill files with the probe side (Grace), partitions still too big are
 * re-partitioned, and a partition one key fills is joined in chunks of
 * the budget.  left and right are read to their end (CORE_EOF) unless
 * the join fails.  0, or a negative code: the inputs' and emit's codes,
 * CORE_EUSAGE (options the plan does not allow), CORE_ELIMIT (max_spill,
 * or a row wider than a quarter of mem's limit: st->need_mem), CORE_EIO
 * (a spill file).  st (may be NULL) is filled either way.
 */
int core_join_hash(const struct core_join_options *o, struct core_mem *mem,
    const struct core_join_input *left, const struct core_join_input *right,
    core_join_emit_fn emit, void *arg, struct core_join_stats *st,
    struct core_err *err);

/*
 * The merge join (--sorted): both inputs sorted on the plan's keys, in
 * order, ascending, NULLs last (colsort -k K1 -k K2 ...: each key as
 * colsort orders its type; keys of different types compare in the
 * common type).  Streams both sides, holding the rows of one key of the
 * right side at a time (charged to mem); output in key order.  A row out
 * of order is CORE_EDATA naming the side, the row (1-based) and the key.
 * Codes and st as core_join_hash (build_left is ignored).
 */
int core_join_merge(const struct core_join_options *o, struct core_mem *mem,
    const struct core_join_input *left, const struct core_join_input *right,
    core_join_emit_fn emit, void *arg, struct core_join_stats *st,
    struct core_err *err);

#endif
