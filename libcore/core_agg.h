/*
 * core_agg.h - group-by aggregation of a column stream (colagg's engine).
 *
 * The input is a stream of batches whose columns are already what is
 * grouped and aggregated (a tool evaluates its --by expressions and the
 * aggregates' arguments first).  A spec names the key columns and, per
 * aggregate, its function and argument column.  The output holds one row
 * per group: the key columns first, then the aggregates in the order
 * given; without keys exactly one row, also for an empty input.  Groups
 * come out in no particular order.
 *
 * Semantics are SQL's (as DuckDB has them): aggregates ignore NULLs,
 * count(*) counts rows, a NULL key is a group of its own (NULLs group
 * together), sum/min/max/avg/any_value of no values is NULL, count of
 * none is 0.  Keys compare as core_hash compares them (-0.0 equals 0.0,
 * every NaN equals every NaN).  Result types follow DuckDB's, through
 * core_agg_result_type alone.
 */
#ifndef CORE_AGG_H
#define CORE_AGG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core_col.h"
#include "core_err.h"
#include "core_mem.h"

struct core_pool;

enum core_agg_fn {
	CORE_AGG_COUNT_STAR = 1,	/* count(*): arg is -1 */
	CORE_AGG_COUNT,
	CORE_AGG_SUM,
	CORE_AGG_AVG,
	CORE_AGG_MIN,
	CORE_AGG_MAX,
	CORE_AGG_ANY_VALUE,		/* the first non-NULL value read */
	CORE_AGG_VAR_SAMP,
	CORE_AGG_VAR_POP,
	CORE_AGG_STDDEV_SAMP,
	CORE_AGG_STDDEV_POP,
	CORE_AGG_BOOL_AND,
	CORE_AGG_BOOL_OR,
	CORE_AGG_MEDIAN,		/* quantile_cont(x, 0.5) */
	CORE_AGG_QUANTILE_CONT,		/* q interpolated between neighbours */
	CORE_AGG_QUANTILE_DISC,		/* q's value itself */
	CORE_AGG_STRING_AGG,		/* the group's strings joined by
					   sep, in input order (see
					   core_agg_hash) */
};

/* "count", "sum", ..., "stddev" (= stddev_samp), case-insensitive; 0 or
 * CORE_EUSAGE.  count(*) is the caller's: "count" with no argument. */
int core_agg_fn_parse(const char *s, enum core_agg_fn *out,
    struct core_err *err);
const char *core_agg_fn_name(enum core_agg_fn fn);

/*
 * The result type of fn over an argument of type arg (ignored for
 * count(*)): 0, or CORE_EUSAGE naming the function and the type when fn
 * does not take it (sum of a string, avg of a date, bool_and of an
 * int).  The one place result types are decided.
 */
int core_agg_result_type(enum core_agg_fn fn, struct core_coltype arg,
    struct core_coltype *out, struct core_err *err);

/* One aggregate of a spec; strings borrowed for core_agg_plan_new. */
struct core_agg_call {
	enum core_agg_fn fn;
	int32_t arg;			/* input column, -1 for count(*) */
	bool distinct;			/* over arg's distinct values; every
					   DISTINCT call of a spec takes one
					   arg column */
	const char *name;		/* output name; NULL: "fn(column)" */
	double q;			/* quantile_cont/_disc: the fraction,
					   in [0, 1]; median ignores it */
	const char *sep;		/* string_agg: the separator (copied
					   by the plan); NULL: "," */
};

struct core_agg_spec {
	const uint32_t *keys;		/* borrowed: key column indices */
	uint32_t nkeys;			/* 0: one group, the whole input */
	const struct core_agg_call *aggs;	/* borrowed */
	uint32_t naggs;
};

/* What an aggregation of a schema produces, decided before any row is
 * read.  Opaque but for the output schema. */
struct core_agg_plan {
	struct core_schema *out;	/* owned: keys, then aggregates */
	struct core_agg_plan_priv *priv;	/* owned */
};

/*
 * Plans spec over input schema in (borrowed for the call).  On success
 * *out is the caller's (core_agg_plan_free).  CORE_EUSAGE with a message
 * naming the column or the aggregate for: a column out of range, more
 * keys than core_hash takes, a function that does not take its
 * argument's type, DISTINCT over two argument columns (or with as many
 * keys as core_hash takes: DISTINCT groups by the keys and its
 * argument), two output columns of one name.
 */
int core_agg_plan_new(const struct core_agg_spec *spec,
    const struct core_schema *in, struct core_agg_plan **out,
    struct core_err *err);
void core_agg_plan_free(struct core_agg_plan *p);	/* accepts NULL */

/* ---- running an aggregation ---- */

/* As core_join_next_fn: fills b (core_batch_init'ed by the aggregation
 * on the input's schema) with views valid until the next call; 0,
 * CORE_EOF at the end, or a negative code, passed back. */
typedef int (*core_agg_next_fn)(void *arg, struct core_batch *b,
    struct core_err *err);

/*
 * Keys hashed where the input is made.  An aggregation whose table has
 * grown past the caches spends much of its time hashing the keys and
 * finding the rows whose key is the row before's; when its input is read
 * ahead on another thread (core_ahead), that thread can do both, one
 * batch ahead.  The aggregation says when they pay (wanted); the reader
 * then makes them for each batch (core_agg_prehash_make, on its own
 * thread, one call at a time) and hands them over beside the batch
 * (core_agg_input's hashes).  The results are the same with or without.
 */
struct core_agg_prehash;

/* A batch's hashes: n rows' hashes, exact flags (core_hash_batch_exact)
 * and whether each row's key is the row before's. */
struct core_agg_hashes {
	bool made;		/* false: none (the aggregation hashes) */
	uint32_t n, cap;
	uint64_t *hash;		/* owned */
	uint8_t *exact, *fol;	/* owned */
};

/* For input of schema in (as planned), or NULL when the plan has no
 * keys.  Free with core_agg_prehash_free (accepts NULL). */
struct core_agg_prehash *core_agg_prehash_new(
    const struct core_agg_plan *plan, const struct core_schema *in);
void core_agg_prehash_free(struct core_agg_prehash *ph);
/* Whether the aggregation wants them now (any thread; accepts NULL). */
bool core_agg_prehash_wanted(const struct core_agg_prehash *ph);
/* h = the hashes of batch b (h grown as needed). */
void core_agg_prehash_make(struct core_agg_prehash *ph,
    const struct core_batch *b, struct core_agg_hashes *h);
void core_agg_hashes_free(struct core_agg_hashes *h);

struct core_agg_input {
	const struct core_schema *schema;	/* borrowed; as planned */
	core_agg_next_fn next;
	void *arg;
	uint64_t size_hint;	/* bytes of input when known, else 0: only
				   the fan-out of a spill uses it */
	/* Optional (NULL): the prehash the aggregation tells when it wants
	 * hashes, and the hashes of the batch next last gave (NULL or not
	 * made: none; their n must be the batch's rows). */
	struct core_agg_prehash *prehash;
	const struct core_agg_hashes *(*hashes)(void *arg);
};

/* As core_join_emit_fn: each output batch (schema plan->out), valid
 * during the call, buffers unchanged until the next call returns; a
 * successful aggregation ends with one empty batch.  A non-zero return
 * stops it and is passed back. */
typedef int (*core_agg_emit_fn)(void *arg, const struct core_batch *b,
    struct core_err *err);

struct core_agg_options {
	const struct core_agg_plan *plan;	/* borrowed */
	const char *const *tmpdirs;	/* borrowed; used in turn */
	size_t ntmpdirs;		/* 0 = core_tmpdir_default() */
	uint64_t max_spill;		/* bytes; 0 = no cap */
	bool compress_spill;		/* zstd level 1 on spill frames */
	/* Borrowed; NULL: one thread.  A spilled aggregation's partitions
	 * are aggregated on all its threads at once, each thread's table
	 * within an equal share of the budget left (not used while the
	 * input is read: nothing else may use it then). */
	struct core_pool *pool;
	/* Told of each phase, for progress: "aggregating", "partitioning",
	 * "merging" partition i of n (0, 0 in memory).  NULL: not told. */
	void (*phase)(void *arg, const char *phase, unsigned i, unsigned n);
	void *phase_arg;
};

struct core_agg_stats {
	uint64_t rows_in;		/* rows read */
	uint64_t groups;		/* rows written */
	uint64_t partitions;		/* partitions written, all levels */
	uint64_t levels;		/* 0 in memory, 1 partitioned, 2+
					   re-partitioned */
	uint64_t spill_bytes;		/* bytes written to spill files */
	uint64_t tables;		/* tables written to the first
					   level's partitions: 1 when the
					   table filled, more when keys that
					   come clustered kept a table
					   between spills */
	uint64_t peak_mem;		/* most bytes charged at once */
	uint64_t need_mem;		/* CORE_ELIMIT for a group too big
					   for the budget: the budget named
					   (0 otherwise) */
};

/*
 * The hash aggregation: reads in to its end, groups its rows in a hash
 * table within mem and emits one row per group.  When the table fills
 * the budget, the partial aggregates so far and every later row (as a
 * partial aggregate of one row) are partitioned by a hash of the key
 * into spill files; partitions are then aggregated one at a time, their
 * partial aggregates merged, and a partition still too big is
 * partitioned again with another seed, as often as it still splits; a
 * partition whose table fills with one group, which no seed splits, is
 * measured and the aggregation stops (CORE_ELIMIT) naming the budget
 * that holds the group.  The answer never depends on the budget, but for
 * the order of float additions.
 *
 * Charged to mem: the hash table, the groups' keys and aggregates, the
 * partition buffers, spill frames read back and the output.  Not
 * charged (a constant per input batch): the scratch a batch is hashed
 * and converted in.
 *
 * With DISTINCT aggregates it runs twice over, each pass with half of
 * mem's limit: the input grouped by (keys, DISTINCT argument), the other
 * aggregates' partial states made alongside, then those groups' states
 * grouped by the keys alone; both passes spill as above.
 *
 * string_agg joins a group's strings in the order they were read, also
 * when the group spills: the table's partial strings go to the
 * partitions before any later row, and a partition is read back (and
 * re-partitioned) in the order it was written.  Next to a DISTINCT
 * aggregate the first pass's groups come in no particular order, and so
 * do their strings.
 *
 * 0, or a negative code: the input's and emit's codes, CORE_EDATA (a
 * sum past what its result type holds), CORE_ELIMIT (max_spill, or one
 * group more than the budget holds: st->need_mem is the budget named),
 * CORE_EIO (a spill file).  st (may be NULL) is filled either way.
 */
int core_agg_hash(const struct core_agg_options *o, struct core_mem *mem,
    const struct core_agg_input *in, core_agg_emit_fn emit, void *arg,
    struct core_agg_stats *st, struct core_err *err);

/*
 * The same over input grouped by the keys in colsort's order
 * (colsort -k K1 -k K2 ...: ascending, NULLs last), streaming: it holds
 * the groups of one input batch, emits each group once the next one
 * starts, and never spills.  A row whose key is below the previous
 * row's is CORE_EDATA naming the row (1-based), before any output of a
 * group it would have split.  With DISTINCT it also holds the distinct
 * values of the group being read.  Without keys it is core_agg_hash.
 * Codes and st as core_agg_hash.
 */
int core_agg_sorted(const struct core_agg_options *o, struct core_mem *mem,
    const struct core_agg_input *in, core_agg_emit_fn emit, void *arg,
    struct core_agg_stats *st, struct core_err *err);

#endif
