/*
 * core_agg.c - hash aggregation under a memory budget (core_agg.h).
 *
 * Every batch is first made a batch of partial aggregates of one row each
 * (to_state: keys and count(*) as views or constants, other states a
 * pass per column), and from then on the table only merges states: hash
 * the keys (core_hash), look the rows' groups up in core_htab (entry e is
 * group e - 1: one entry per group, inserted in order), create the groups
 * not found, then merge each aggregate's state columns into its arrays
 * indexed by group, one tight loop per state kind.  Spilled partitions
 * hold the same state batches, so merging them back is the same code.
 *
 * Groups' keys live in chunks: owned batches of the key columns of
 * `chunk` groups each (group g is row g % chunk of chunk g / chunk), the
 * sources of the table's references; the states live in arrays of
 * group capacity.  Strings that min, max and any_value hold are in one
 * arena (replaced values stay as garbage until the table is reset).
 *
 * Budget: the table's part is charged for the chunks, the arrays, the
 * arena and the hash table before they grow.  When a charge is refused
 * the batch's groups found so far stay (a group created but not merged
 * holds the empty state, which merges as nothing), the table's states
 * are written to partitions by a hash of the key under the level's seed,
 * the table is freed, and the batch and every later one are routed to
 * the partitions.  Each partition is then aggregated alone; one that
 * fills the table again is re-partitioned from its start with the next
 * level's seed, as many levels as it takes (a tiny budget, whose
 * partition buffers allow a fan-out of 2, takes more of them).  A table
 * that fills holding one group, with nothing but that group's rows
 * refused, cannot be split: the partition is read once more to measure
 * the group, and the aggregation stops (CORE_ELIMIT) saying the budget
 * that holds it (too_big).  The table never grows past the budget but
 * without keys, where there is one group and its fixed-size states.
 *
 * median and the quantiles (ST_Q) hold every value of their group: a
 * state is a string of packed int64s (doubles as order-preserving int64
 * keys), merged by appending its values to the aggregate's value log, a
 * list per group threaded through it (entry e + 1 of a group points at
 * the group's previous entry).  The log is charged as it grows, so such
 * groups spill like any other: their lists go to the partitions as
 * strings and are appended again when a partition is read back, and at
 * the output each group's values are gathered and the one or two needed
 * are selected (quickselect, in place, in a charged scratch).
 *
 * string_agg (ST_SA) and the quantiles of strings and of decimal(p >
 * 18) (ST_QS) keep the same kind of log of strings: an entry is an
 * offset and a length in the aggregate's byte buffer.  string_agg's state
 * is the group's strings so far joined, so a partial one merges as one
 * entry and the separator goes in only when the entries are joined (for
 * a spill or the output, in the entries' order, which is the input's);
 * ST_QS's state is its values as length-prefixed items, a decimal as 16
 * bytes whose memcmp order is the numbers', so one selection by memcmp
 * serves both.
 *
 * DISTINCT (core_agg_plan.c's plan_distinct) is two of these: the first
 * groups by (keys, argument) and, instead of results, emits its groups'
 * states, which are pushed (push) into the second as its input rows.
 * The second reads the other aggregates' states as they are and the
 * argument as a plain value, so each distinct value counts once.
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <string.h>

#include "core_agg.h"
#include "core_agg_private.h"
#include "core_alloc.h"
#include "core_gather.h"
#include "core_hash.h"
#include "core_htab.h"
#include "core_part.h"
#include "core_pool.h"
#include "core_sort.h"
#include "core_spill.h"

/* Levels of re-partitioning before a partition whose table still fills
 * with several groups is taken for a bug: each level splits the groups
 * by an independent hash, so even a fan-out of 2 never gets near it. */
#define MAX_LEVEL 48
/* In a sum's count: the group's 128-bit sum overflowed (a count never
 * comes near it; the flag travels with the state through spills). */
#define SUM_OVERFLOW ((int64_t)1 << 62)
#define PARTS_MAX 256u
#define PART_BUF_MIN ((uint64_t)16 << 10)
#define CHUNK_MAX 4096u
#define CHUNK_MIN 8u
/* A hash table's first size: 1024 entries of 24 bytes (core_htab.c). */
#define HTAB_FIRST ((uint64_t)24 << 10)
/* Groups from which a row with the key of the row before is not looked
 * up (lead_rows): in a smaller table a lookup hits the caches, and
 * finding the rows costs more than it saves. */
#define LEAD_GROUPS 4096u

/* One aggregate's arrays, of the table's group capacity. */
struct acc {
	__int128 *w;			/* ST_SUMI */
	int64_t *n;			/* counts; ST_VS: lengths */
	int64_t *i;			/* ST_VI; ST_VS: arena offsets */
	double *d;			/* ST_SUMF, ST_VF; ST_VAR mean */
	double *m2;			/* ST_VAR */
	uint8_t *has;			/* ST_V*, ST_BOOL: a value held */
	uint8_t *b;			/* ST_BOOL */
	/* ST_Q: i is the group's last log entry + 1 (0: none), n its
	 * number of values; the log's values and links. */
	int64_t *lv;
	uint64_t *lnext;
	size_t llen, lcap;
	/* ST_SA, ST_QS: the same log, lv an entry's offset in lb and lsz
	 * its length; lb the entries' bytes. */
	uint32_t *lsz;
	char *lb;
	size_t lblen, lbcap;
};

/* Owned scratch buffers behind one column of a batch made here. */
struct sbuf {
	void *v;
	size_t vcap;
	int32_t *off;
	size_t ocap;
	uint8_t *valid;
	size_t valcap;
};

struct agg {
	const struct core_agg_options *o;
	const struct core_agg_plan_priv *P;
	const struct core_agg_plan *plan;
	struct core_mem *mem;
	struct core_err *err;
	core_agg_emit_fn emit;
	void *emit_arg;
	struct core_agg_stats *st;
	uint32_t nk, na;

	/* The table. */
	struct core_mem_part p_tab, p_part, p_frame, p_out;
	bool forced;			/* charges cannot be refused */
	/* Charges are refused only past the table's own cap, not past
	 * what the other parts leave of the budget (merge_part's second
	 * try of a group that did not fit). */
	bool lenient;
	uint64_t ht_hand;		/* lenient: ht's bytes charged */
	struct core_hash_keys hk_state, hk_key;
	struct core_htab ht;
	uint32_t chunk, chunk_shift;
	struct core_batch *chunks;	/* owned, nchunks */
	const struct core_batch **cptr;	/* owned: &chunks[i] */
	size_t nchunks, chunks_cap, cptr_cap;
	uint32_t ngroups;
	size_t gcap;
	struct acc *acc;		/* owned, na */
	/* Bit g: group g's hash is exact (core_hash_batch_exact), so a row
	 * with an exact hash has its key when the hashes are equal; the
	 * table's entry e (group e - 1) holds the group's hash as its
	 * reference (core_htab_insert_hashed). */
	uint64_t *gx;			/* owned, gcap bits */
	char *arena;			/* owned */
	size_t arena_len, arena_cap;
	uint64_t tab_charged;		/* charged to p_tab by hand */
	/* The table was emptied by the last partition merged, its memory
	 * kept for the next (merge_part). */
	bool kept;
	/* Group 0's hash (seed 0): the group a table that fills holding
	 * it alone cannot be split from. */
	uint64_t g0_hash;
	/* Without keys: the values of the one group were refused. */
	bool stuck;
	/* The caller's budget (mem->limit of the stage), for messages. */
	uint64_t budget;

	/* Per-batch scratch, of batch capacity. */
	uint32_t scap;
	uint64_t *hash;
	uint32_t *cand, *gid, *act, *miss, *part_of;
	uint64_t *refs;
	uint8_t *eq;
	uint8_t *same;			/* assign: a miss as the one before */
	uint8_t *fol;			/* assign: a row as the one before */
	uint8_t *xa;			/* assign: the row's hash is exact */
	uint32_t *fidx, *frow;		/* assign: candidates compared */
	uint8_t *feq;			/* assign: their keys equal */
	uint32_t *lead;			/* assign: the rows not so */
	uint64_t *lhash;		/* assign: their hashes */
	uint64_t *made;			/* assign: hashes of the groups made
					   in the batch, open addressing */
	size_t made_mask;		/* made's slots - 1 */

	/* to_state's batch and its buffers; output's. */
	struct core_batch sb;
	struct sbuf *sbufs;		/* owned, state->ncols */
	/* A direct batch (to_state's direct): aggregate i's input column,
	 * or NULL for count(*), where direct_ok; owned array, na. */
	const struct core_column **dcol;
	struct core_batch ob;
	struct sbuf *obufs;		/* owned, out->ncols */
	uint64_t out_charged;
	int64_t *qs;			/* owned: one ST_Q group's values */
	size_t qscap;			/* charged to p_out */

	struct core_part *top;		/* the first level's set */
	/* After the first spill: whether a table still takes the input
	 * between spills (hybrid), and the rows it took since the last. */
	bool hybrid;
	uint64_t since;
	/* The first phase of a DISTINCT plan emits its groups' states,
	 * not their results (into the second phase's push). */
	bool states_out;
	uint64_t size_hint;		/* the input's bytes, for fan-outs */
	struct core_agg_stats own;	/* st's storage when not the caller's */

	/* The sorted path: groups found by comparing neighbours, not
	 * indexed; the last group's key carried from batch to batch. */
	bool indexed;
	struct core_batch carry;	/* owned: one key row */
	uint64_t sorted_rows;		/* rows of the sorted path so far */

	/* Hashes made where the input is read (core_agg_prehash): ph to
	 * say when they pay, pre_h those of the batch being consumed
	 * (NULL: none, or not for this table). */
	struct core_agg_prehash *ph;	/* borrowed */
	const struct core_agg_hashes *pre_h;	/* borrowed */

	/* The top level's partitions are aggregated by this many tables
	 * at once (its fan-out is sized for their share of the table). */
	unsigned nthreads;
	/* One of those tables: its spill set and its emit are shared. */
	struct par *par;		/* borrowed */
};

/*
 * Spilled partitions aggregated on several threads (par_merge): each
 * thread has a table of its own (a struct agg under a budget of its own,
 * an equal share of what the stage has left), takes the next partition
 * of the top set, and aggregates it, re-partitioning it as alone.  The
 * spill set (one decompressor, shared files) is used under io, the
 * caller's emit and phase under out.
 */
struct par {
	struct agg *A;			/* borrowed: the top set's owner */
	struct agg **w;			/* owned, n */
	struct core_mem *mem;		/* owned, n: their budgets */
	struct core_err *err;		/* owned, n */
	struct core_agg_stats *st;	/* owned, n */
	unsigned n;
	pthread_mutex_t io, out;
	uint32_t next, np;		/* under io */
	int rc;				/* under io: the first failure */
	struct core_err first;
};

static void
io_lock(const struct agg *A)
{
	if (A->par != NULL)
		pthread_mutex_lock(&A->par->io);
}

static void
io_unlock(const struct agg *A)
{
	if (A->par != NULL)
		pthread_mutex_unlock(&A->par->io);
}

/* The caller's emit, one call at a time. */
static int
emit_out(struct agg *A, const struct core_batch *b)
{
	int rc;

	if (A->par == NULL)
		return A->emit(A->emit_arg, b, A->err);
	pthread_mutex_lock(&A->par->out);
	rc = A->emit(A->emit_arg, b, A->err);
	pthread_mutex_unlock(&A->par->out);
	return rc;
}

static const double pow10d[19] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12,
	1e13, 1e14, 1e15, 1e16, 1e17, 1e18,
};

/* ---- charging ---- */

/* Bytes the table may still be charged: within the budget, or when
 * lenient within its own cap alone. */
static uint64_t
tab_room(const struct agg *A)
{
	if (!A->lenient)
		return core_mem_part_available(&A->p_tab);
	return A->p_tab.used < A->p_tab.cap ? A->p_tab.cap - A->p_tab.used :
	    0;
}

static int
charge(struct agg *A, uint64_t n)
{
	if (A->forced || (A->lenient && n <= tab_room(A))) {
		core_mem_part_charge(&A->p_tab, n);
	} else if (core_mem_part_try_charge(&A->p_tab, n) != 0) {
		return core_err_set(A->err, CORE_ELIMIT, "aggregation table "
		    "over the budget");
	}
	A->tab_charged += n;
	return 0;
}

/* Grows an aligned byte buffer to need bytes, charged to the table. */
static int
grow_charged(struct agg *A, void **buf, size_t *cap, size_t need)
{
	size_t old = *cap;

	if (need <= *cap)
		return 0;
	/* core_grow_aligned doubles: the new capacity is below twice
	 * need (or 64). */
	if (!A->forced && tab_room(A) < (uint64_t)need * 2 + 64 - old)
		return core_err_set(A->err, CORE_ELIMIT, "aggregation table "
		    "over the budget");
	core_grow_aligned(buf, cap, need);
	core_mem_part_charge(&A->p_tab, *cap - old);
	A->tab_charged += *cap - old;
	return 0;
}

/* ---- scratch ---- */

static void
scratch(struct agg *A, uint32_t n)
{
	if (n <= A->scap)
		return;
	A->scap = n;
	A->hash = core_xreallocarray(A->hash, n, sizeof(*A->hash));
	A->cand = core_xreallocarray(A->cand, n, sizeof(*A->cand));
	A->gid = core_xreallocarray(A->gid, n, sizeof(*A->gid));
	A->act = core_xreallocarray(A->act, n, sizeof(*A->act));
	A->miss = core_xreallocarray(A->miss, n, sizeof(*A->miss));
	A->part_of = core_xreallocarray(A->part_of, n, sizeof(*A->part_of));
	A->refs = core_xreallocarray(A->refs, n, sizeof(*A->refs));
	A->eq = core_xreallocarray(A->eq, n, sizeof(*A->eq));
	A->same = core_xreallocarray(A->same, n, sizeof(*A->same));
	A->fol = core_xreallocarray(A->fol, n, sizeof(*A->fol));
	A->xa = core_xreallocarray(A->xa, n, sizeof(*A->xa));
	A->fidx = core_xreallocarray(A->fidx, n, sizeof(*A->fidx));
	A->frow = core_xreallocarray(A->frow, n, sizeof(*A->frow));
	A->feq = core_xreallocarray(A->feq, n, sizeof(*A->feq));
	A->lead = core_xreallocarray(A->lead, n, sizeof(*A->lead));
	A->lhash = core_xreallocarray(A->lhash, n, sizeof(*A->lhash));
	/* At most half full, whatever the batch's misses. */
	A->made_mask = 1;
	while (A->made_mask < 2 * (size_t)n)
		A->made_mask *= 2;
	A->made = core_xreallocarray(A->made, A->made_mask, sizeof(*A->made));
	A->made_mask--;
}

static void *
sbuf_vals(struct sbuf *s, size_t bytes)
{
	core_grow_aligned(&s->v, &s->vcap, bytes ? bytes : 8);
	return s->v;
}

static uint8_t *
sbuf_valid(struct sbuf *s, uint32_t n)
{
	core_grow_aligned((void **)&s->valid, &s->valcap,
	    core_bitmap_bytes(n) + 8);
	memset(s->valid, 0xff, core_bitmap_bytes(n));
	return s->valid;
}

static void
sbufs_free(struct sbuf *s, size_t n)
{
	size_t i;

	if (s == NULL)
		return;
	for (i = 0; i < n; i++) {
		core_free_aligned(s[i].v);
		core_free_aligned(s[i].off);
		core_free_aligned(s[i].valid);
	}
	free(s);
}

/* A view of column c (caps 0: nothing owned). */
static void
view(struct core_column *dst, const struct core_column *c)
{
	struct core_coltype t = dst->type;

	memset(dst, 0, sizeof(*dst));
	dst->type = t;
	dst->validity = c->validity;
	dst->values = c->values;
	dst->offsets = c->offsets;
}

static inline bool
valid_at(const uint8_t *v, uint32_t r)
{
	return v == NULL || (v[r >> 3] >> (r & 7)) & 1;
}

static inline void
clear_bit(uint8_t *v, uint32_t r)
{
	v[r >> 3] &= (uint8_t)~(1u << (r & 7));
}

/* Input value r of an integer-like column widened to int64 (NULL slots
 * read as stored: callers mask them). */
static inline int64_t
int_at(const struct core_column *c, uint32_t r)
{
	switch (c->type.id) {
	case CORE_TYPE_BOOL:
		return ((const uint8_t *)c->values)[r] != 0;
	case CORE_TYPE_INT32:
	case CORE_TYPE_DATE:
		return ((const int32_t *)c->values)[r];
	default:
		return ((const int64_t *)c->values)[r];
	}
}

/* Column c widened to int64 into s, NULLs zero. */
static int64_t *
widen(struct sbuf *s, const struct core_column *c, uint32_t n)
{
	int64_t *v = sbuf_vals(s, (size_t)n * 8);
	uint32_t r;

	switch (c->type.id) {
	case CORE_TYPE_BOOL:
		for (r = 0; r < n; r++)
			v[r] = ((const uint8_t *)c->values)[r] != 0;
		break;
	case CORE_TYPE_INT32:
	case CORE_TYPE_DATE:
		for (r = 0; r < n; r++)
			v[r] = ((const int32_t *)c->values)[r];
		break;
	default:
		memcpy(v, c->values, (size_t)n * 8);
		break;
	}
	if (c->validity != NULL)
		for (r = 0; r < n; r++)
			if (!valid_at(c->validity, r))
				v[r] = 0;
	return v;
}

/* 1 for each valid row of c (all 1 when c is NULL: count(*)). */
static int64_t *
ones(struct sbuf *s, const struct core_column *c, uint32_t n)
{
	int64_t *v = sbuf_vals(s, (size_t)n * 8);
	uint32_t r;

	if (c == NULL || c->validity == NULL)
		for (r = 0; r < n; r++)
			v[r] = 1;
	else
		for (r = 0; r < n; r++)
			v[r] = valid_at(c->validity, r);
	return v;
}

/*
 * Double x as an int64 that orders as colsort orders doubles: -0.0 as
 * 0.0, every NaN one value above +inf.  Its own inverse on non-NaNs.
 */
static inline int64_t
f_key(double x)
{
	int64_t b;

	if (x != x)
		return INT64_C(0x7ff8000000000000);
	if (x == 0)
		x = 0;
	memcpy(&b, &x, 8);
	return b < 0 ? b ^ INT64_MAX : b;
}

static inline double
f_unkey(int64_t k)
{
	double x;

	k = k < 0 ? k ^ INT64_MAX : k;
	memcpy(&x, &k, 8);
	return x;
}

/*
 * Makes A->sb the state batch of raw input batch b: the partial
 * aggregate of each row as a group of its own.  Views of b where the
 * state is the value itself.
 */
/* A decimal128 as 16 bytes whose memcmp order is the numbers'. */
static inline void
w_key(char *p, __int128 v)
{
	unsigned __int128 u = (unsigned __int128)v ^
	    ((unsigned __int128)1 << 127);
	int i;

	for (i = 15; i >= 0; i--, u >>= 8)
		p[i] = (char)(uint8_t)u;
}

static inline __int128
w_unkey(const char *p)
{
	unsigned __int128 u = 0;
	int i;

	for (i = 0; i < 16; i++)
		u = u << 8 | (uint8_t)p[i];
	return (__int128)(u ^ ((unsigned __int128)1 << 127));
}

/* s = the ST_QS states of c's n rows: per valid row one item, a 4-byte
 * length and the bytes (a decimal128 as its w_key). */
static void
qs_items(struct core_column *s, struct sbuf *bu, const struct core_column *c,
    uint32_t n)
{
	bool wide = c->type.id == CORE_TYPE_DECIMAL128;
	size_t tot = (size_t)n * 4 + (wide ? (size_t)n * 16 :
	    (size_t)(c->offsets[n] - c->offsets[0]));
	char *p = sbuf_vals(bu, tot);
	int32_t *off;
	uint32_t r, len, pos = 0;

	core_grow_aligned((void **)&bu->off, &bu->ocap, ((size_t)n + 1) * 4);
	off = bu->off;
	off[0] = 0;
	for (r = 0; r < n; r++) {
		if (valid_at(c->validity, r)) {
			len = wide ? 16 : (uint32_t)(c->offsets[r + 1] -
			    c->offsets[r]);
			memcpy(p + pos, &len, 4);
			if (wide)
				w_key(p + pos + 4, core_i128_load((const char *)
				    c->values + 16 * (size_t)r));
			else if (len > 0)
				memcpy(p + pos + 4, (const char *)c->values +
				    c->offsets[r], len);
			pos += 4 + len;
		}
		off[r + 1] = (int32_t)pos;
	}
	view(s, s);
	s->values = p;
	s->offsets = off;
}

/*
 * Direct merging.  A raw batch that goes into the table (not to the
 * partitions) need not be made states first where a state is only the
 * value and a count: count, and sum and avg of integers and decimals
 * (ST_SUMI) or of doubles (ST_SUMF).  merge then adds each row's value
 * (0 where NULL) and its validity straight into the group's accumulators,
 * instead of writing a state row (24 bytes for a sum) and reading it
 * back.  The arithmetic is the same as merging the states would be, to
 * the overflow flag: a decimal128 sum checks every addition; a narrower
 * sum adds values below 2^63 in magnitude into a 128-bit sum that only
 * such values reach (a table fed raw rows never merges spilled states),
 * which more than 2^64 rows would be needed to overflow.  A DISTINCT
 * plan's second phase reads its other aggregates' states as they are
 * (pre), never directly.
 */
static inline bool
direct_ok(const struct core_agg_a *a)
{
	return !a->pre && (a->st == ST_CNT || a->st == ST_SUMI ||
	    a->st == ST_SUMF || a->st == ST_VI);
}

/* direct: the batch goes to the table (merge's direct), not to the
 * partitions: where direct_ok, A->dcol[i] is set and no state is made. */
static void
to_state(struct agg *A, const struct core_batch *b, bool direct)
{
	const struct core_agg_plan_priv *P = A->P;
	struct core_batch *sb = &A->sb;
	uint32_t n = b->nrows, i, r;

	sb->nrows = n;
	for (i = 0; i < A->nk; i++)
		view(&sb->cols[i], &b->cols[P->keys[i]]);
	for (i = 0; i < A->na; i++) {
		const struct core_agg_a *a = &P->aggs[i];
		const struct core_column *c = a->arg >= 0 ?
		    &b->cols[a->arg] : NULL;
		struct core_column *s = &sb->cols[a->scol];
		struct sbuf *bu = &A->sbufs[a->scol];

		if (direct && direct_ok(a)) {
			A->dcol[i] = c;
			continue;
		}
		if (a->pre) {
			uint32_t j, ns = (i + 1 < A->na ? P->aggs[i + 1].scol :
			    P->state->ncols) - a->scol;

			for (j = 0; j < ns; j++)
				view(s + j, &b->cols[a->pcol + j]);
			continue;
		}
		switch (a->st) {
		case ST_CNT:
			view(s, s);
			s->values = ones(bu, c, n);
			break;
		case ST_SUMI: {
			int64_t *lo, *hi;

			hi = sbuf_vals(bu + 1, (size_t)n * 8);
			if (c->type.id == CORE_TYPE_DECIMAL128) {
				/* The value's two words, NULLs zero. */
				lo = sbuf_vals(bu, (size_t)n * 8);
				for (r = 0; r < n; r++) {
					core_u128 w = valid_at(c->validity, r) ?
					    (core_u128)core_i128_load(
					    (const char *)c->values + 16 *
					    (size_t)r) : 0;

					lo[r] = (int64_t)(uint64_t)w;
					hi[r] = (int64_t)(uint64_t)(w >> 64);
				}
			} else {
				lo = widen(bu, c, n);
				for (r = 0; r < n; r++)
					hi[r] = lo[r] < 0 ? -1 : 0;
			}
			view(s, s);
			s->values = lo;
			view(s + 1, s + 1);
			s[1].values = hi;
			view(s + 2, s + 2);
			s[2].values = ones(bu + 2, c, n);
			break;
		}
		case ST_SUMF: {
			double *d = sbuf_vals(bu, (size_t)n * 8);
			const double *x = c->values;

			for (r = 0; r < n; r++)
				d[r] = valid_at(c->validity, r) ? x[r] : 0;
			view(s, s);
			s->values = d;
			view(s + 1, s + 1);
			s[1].values = ones(bu + 1, c, n);
			break;
		}
		case ST_VI:
			view(s, c);
			if (c->type.id != CORE_TYPE_INT64 &&
			    c->type.id != CORE_TYPE_DECIMAL &&
			    c->type.id != CORE_TYPE_TIMESTAMP)
				s->values = widen(bu, c, n);
			break;
		case ST_VF:
		case ST_VS:
		case ST_BOOL:
		case ST_VW:
			view(s, c);
			break;
		case ST_SA:
			view(s, c);
			break;
		case ST_QS:
			qs_items(s, bu, c, n);
			break;
		case ST_Q: {
			int64_t *x = sbuf_vals(bu, (size_t)n * 8);
			int32_t *off;
			uint32_t k = 0;

			core_grow_aligned((void **)&bu->off, &bu->ocap,
			    ((size_t)n + 1) * 4);
			off = bu->off;
			off[0] = 0;
			for (r = 0; r < n; r++) {
				if (valid_at(c->validity, r))
					x[k++] = c->type.id == CORE_TYPE_FLOAT64 ?
					    f_key(((const double *)
					    c->values)[r]) : int_at(c, r);
				off[r + 1] = (int32_t)(k * 8);
			}
			view(s, s);
			s->values = x;
			s->offsets = off;
			break;
		}
		case ST_VAR: {
			double *m = sbuf_vals(bu + 1, (size_t)n * 8);
			double *q = sbuf_vals(bu + 2, (size_t)n * 8);
			double sc = c->type.id == CORE_TYPE_DECIMAL ?
			    pow10d[c->type.scale] :
			    c->type.id == CORE_TYPE_DECIMAL128 ?
			    pow(10, c->type.scale) : 1;

			for (r = 0; r < n; r++) {
				bool ok = valid_at(c->validity, r);

				if (c->type.id == CORE_TYPE_FLOAT64)
					m[r] = ok ? ((const double *)
					    c->values)[r] : 0;
				else if (c->type.id == CORE_TYPE_DECIMAL128)
					m[r] = ok ? (double)((long double)
					    core_i128_load((const char *)
					    c->values + 16 * (size_t)r) /
					    sc) : 0;
				else
					m[r] = ok ? (double)int_at(c, r) / sc :
					    0;
				q[r] = 0;
			}
			view(s, s);
			s->values = ones(bu, c, n);
			view(s + 1, s + 1);
			s[1].values = m;
			view(s + 2, s + 2);
			s[2].values = q;
			break;
		}
		}
	}
}

/* ---- the table ---- */

static size_t
key_row_bytes(const struct agg *A)
{
	size_t b = 0;
	uint32_t i;

	for (i = 0; i < A->nk; i++) {
		size_t w = core_type_width(A->P->keyschema->fields[i].type.id);

		b += (w ? w : 4) * 8 + 1;	/* bits: validity */
	}
	return (b + 7) / 8;
}

static void
acc_grow(struct agg *A, size_t ncap)
{
	uint32_t i;

	/* Not zeroed here: group_new zeroes each group's entries as it
	 * makes the group (acc_zero), so the pages of a large table are
	 * touched once, as groups come, and those of the capacity no
	 * group reaches not at all. */
#define GROW(p) do {							\
	(p) = core_xreallocarray((p), ncap, sizeof(*(p)));		\
} while (0)
	for (i = 0; i < A->na; i++) {
		struct acc *c = &A->acc[i];

		switch (A->P->aggs[i].st) {
		case ST_CNT:
			GROW(c->n);
			break;
		case ST_SUMI:
			GROW(c->w);
			GROW(c->n);
			break;
		case ST_SUMF:
			GROW(c->d);
			GROW(c->n);
			break;
		case ST_VI:
			GROW(c->i);
			GROW(c->has);
			break;
		case ST_VF:
			GROW(c->d);
			GROW(c->has);
			break;
		case ST_VS:
			GROW(c->i);
			GROW(c->n);
			GROW(c->has);
			break;
		case ST_VAR:
			GROW(c->n);
			GROW(c->d);
			GROW(c->m2);
			break;
		case ST_BOOL:
			GROW(c->b);
			GROW(c->has);
			break;
		case ST_VW:
			GROW(c->w);
			GROW(c->has);
			break;
		case ST_Q:
		case ST_SA:
		case ST_QS:
			GROW(c->i);
			GROW(c->n);
			break;
		}
	}
#undef GROW
	A->gcap = ncap;
}

/* Group g's accumulator entries, zero: its state before any value. */
static inline void
acc_zero(struct agg *A, uint32_t g)
{
	uint32_t i;

	for (i = 0; i < A->na; i++) {
		struct acc *c = &A->acc[i];

		if (c->w != NULL)
			c->w[g] = 0;
		if (c->n != NULL)
			c->n[g] = 0;
		if (c->i != NULL)
			c->i[g] = 0;
		if (c->d != NULL)
			c->d[g] = 0;
		if (c->m2 != NULL)
			c->m2[g] = 0;
		if (c->has != NULL)
			c->has[g] = 0;
		if (c->b != NULL)
			c->b[g] = 0;
	}
}

static void
table_free(struct agg *A)
{
	uint32_t i;

	core_htab_release(&A->ht);
	for (i = 0; i < A->nchunks; i++)
		core_batch_release(&A->chunks[i]);
	A->nchunks = 0;
	for (i = 0; i < A->na; i++) {
		struct acc *c = &A->acc[i];

		free(c->w);
		free(c->n);
		free(c->i);
		free(c->d);
		free(c->m2);
		free(c->has);
		free(c->b);
		free(c->lv);
		free(c->lnext);
		free(c->lsz);
		core_free_aligned(c->lb);
		memset(c, 0, sizeof(*c));
	}
	free(A->gx);
	A->gx = NULL;
	A->gcap = 0;
	A->ngroups = 0;
	core_free_aligned(A->arena);
	A->arena = NULL;
	A->arena_len = A->arena_cap = 0;
	core_mem_part_release(&A->p_tab, A->tab_charged);
	A->tab_charged = 0;
	A->kept = false;
}

/* An empty table; forced: charges cannot fail. */
static int
table_init(struct agg *A, bool forced)
{
	A->forced = forced;
	A->indexed = true;
	/* A lenient table charges its hash table by hand (group_new),
	 * within the table's cap. */
	core_htab_init(&A->ht, forced || A->lenient ? NULL : &A->p_tab);
	A->ht_hand = 0;
	if (A->nk == 0) {
		/* The one group exists from the start: no input still
		 * makes one row. */
		acc_grow(A, 1);
		acc_zero(A, 0);
		A->ngroups = 1;
	}
	return 0;
}

/*
 * Empties the table for the next groups, keeping its memory and what is
 * charged for it: a table kept between spills (push) fills the same
 * memory again, without the allocation, the copies of its growth and
 * the kernel's zeroed pages a new table costs each time.  Key chunks
 * stay made (group_new takes them in turn), the accumulators' capacity
 * stays gcap (group_new zeroes each group's entries as it makes it).
 */
static void
table_clear(struct agg *A)
{
	uint32_t i;

	core_htab_reset(&A->ht);
	for (i = 0; i < A->nchunks; i++)
		core_batch_reset(&A->chunks[i]);
	for (i = 0; i < A->na; i++) {
		A->acc[i].llen = 0;
		A->acc[i].lblen = 0;
	}
	A->arena_len = 0;
	A->ngroups = 0;
	A->forced = false;
	A->indexed = true;
	if (A->nk == 0) {
		acc_zero(A, 0);
		A->ngroups = 1;
	}
}

/* Appends row r of state batch sb's keys as group g's, in chunk row cr. */
static int
key_append(struct agg *A, struct core_batch *kb, const struct core_batch *sb,
    uint32_t r, uint32_t cr)
{
	uint32_t i;
	int rc;

	for (i = 0; i < A->nk; i++) {
		const struct core_column *s = &sb->cols[i];
		struct core_column *d = &kb->cols[i];
		bool ok = valid_at(s->validity, r);

		if (d->type.id == CORE_TYPE_STRING) {
			int32_t a = s->offsets[r], len = ok ?
			    s->offsets[r + 1] - a : 0;
			int32_t at = d->offsets[cr];

			if ((rc = grow_charged(A, &d->values, &d->values_cap,
			    (size_t)at + (size_t)len)) != 0)
				return rc;
			if (len > 0)
				memcpy((char *)d->values + at,
				    (const char *)s->values + a, (size_t)len);
			d->offsets[cr + 1] = at + len;
		} else {
			size_t w = core_type_width(d->type.id);

			if (ok)
				memcpy((char *)d->values + cr * w,
				    (const char *)s->values + r * w, w);
			else
				memset((char *)d->values + cr * w, 0, w);
		}
		if (!ok)
			core_col_set_null(d, cr, A->chunk);
		else if (d->validity != NULL)
			/* A group refused half made (a later key's bytes)
			 * may have left this row NULL. */
			d->validity[cr >> 3] |= (uint8_t)(1u << (cr & 7));
	}
	return 0;
}

static int ht_charged(struct agg *A);

/* Creates the group of row r of sb (hash h): 0 or CORE_ELIMIT, and
 * then nothing changed that a spill would mind.  defer: not indexed
 * here; the caller indexes it (index_made) before the next lookup. */
static int
group_new(struct agg *A, const struct core_batch *sb, uint32_t r, uint64_t h,
    bool defer)
{
	uint32_t g = A->ngroups, c = g >> A->chunk_shift;
	uint32_t cr = g & (A->chunk - 1);
	struct core_batch *kb;
	int rc;

	if (g == 0)
		A->g0_hash = h;
	if (c == A->nchunks) {
		uint32_t i;

		if ((rc = charge(A, (uint64_t)A->chunk * key_row_bytes(A)))
		    != 0)
			return rc;
		A->chunks = core_grow(A->chunks, &A->chunks_cap, c + 1,
		    sizeof(*A->chunks), 16);
		kb = &A->chunks[c];
		core_batch_init(kb, A->P->keyschema);
		core_batch_reserve(kb, A->chunk, 0);
		for (i = 0; i < A->nk; i++)
			if (kb->cols[i].type.id == CORE_TYPE_STRING) {
				/* Charged by key_append as it grows. */
				core_free_aligned(kb->cols[i].values);
				kb->cols[i].values = NULL;
				kb->cols[i].values_cap = 0;
				kb->cols[i].offsets[0] = 0;
			}
		A->nchunks++;
		A->cptr = core_grow(A->cptr, &A->cptr_cap, A->nchunks,
		    sizeof(*A->cptr), 16);
		for (i = 0; i < A->nchunks; i++)
			A->cptr[i] = &A->chunks[i];
	}
	kb = &A->chunks[c];
	if (g == A->gcap) {
		size_t ncap = A->gcap ? A->gcap * 2 : A->chunk;

		if ((rc = charge(A, (uint64_t)(ncap - A->gcap) *
		    A->P->group_bytes + (ncap - A->gcap) / 8)) != 0)
			return rc;
		acc_grow(A, ncap);
		A->gx = core_xreallocarray(A->gx, ncap / 64 + 1,
		    sizeof(*A->gx));
	}
	if ((rc = key_append(A, kb, sb, r, cr)) != 0)
		return rc;
	acc_zero(A, g);
	kb->nrows = cr + 1;
	A->ngroups++;
	if (!A->indexed)
		return 0;
	if (A->xa[r])
		A->gx[g / 64] |= (uint64_t)1 << (g % 64);
	else
		A->gx[g / 64] &= ~((uint64_t)1 << (g % 64));
	if (defer)
		return 0;
	if ((rc = core_htab_insert_hashed(&A->ht, &h, 1, A->err)) != 0)
		return rc;
	return ht_charged(A);
}

/* A lenient table's hash table charged for what it has grown by. */
static int
ht_charged(struct agg *A)
{
	int rc;

	if (A->lenient && A->ht.charged > A->ht_hand) {
		/* Refused, the entries stay but the table is dropped. */
		if ((rc = charge(A, A->ht.charged - A->ht_hand)) != 0)
			return rc;
		A->ht_hand = A->ht.charged;
	}
	return 0;
}

/* Indexes the last n groups, made by group_new deferred, their hashes
 * A->refs[0..n): together, so that the table's heads are fetched ahead
 * as it links them (one at a time, each is a miss). */
static int
index_made(struct agg *A, uint32_t n)
{
	int rc;

	if ((rc = core_htab_insert_hashed(&A->ht, A->refs, n, A->err)) != 0)
		return rc;
	return ht_charged(A);
}

/*
 * same[i] = 1 where row rows[i] (rows NULL: row i) of b, i > 0, has the
 * key of row rows[i - 1] (keys k, hashes hash, exact flags xa), else 0:
 * a group's rows together (sorted or clustered input) come together,
 * and all but the first take its group.  Rows whose hashes differ
 * differ; two exact ones with equal hashes are equal; the others are
 * compared, all in one call.  act, refs, cand and eq: scratch of n.
 */
static void
same_rows(const struct core_hash_keys *k, const struct core_batch *b,
    const uint64_t *hash, const uint8_t *xa, const uint32_t *rows,
    uint32_t n, uint8_t *same, uint32_t *act, uint64_t *refs,
    uint32_t *cand, uint8_t *eq)
{
	const struct core_batch *src = b;
	uint32_t i, m = 0;

	same[0] = 0;
	for (i = 1; i < n; i++) {
		uint32_t r = rows != NULL ? rows[i] : i;
		uint32_t q = rows != NULL ? rows[i - 1] : i - 1;

		same[i] = 0;
		if (hash[r] != hash[q])
			continue;
		if (xa[r] & xa[q]) {
			same[i] = 1;
			continue;
		}
		act[m] = r;
		refs[m] = q;
		cand[m++] = i;
	}
	if (m == 0)
		return;
	core_hash_equal(k, b, act, k, &src, refs, m, true, eq);
	for (i = 0; i < m; i++)
		same[cand[i]] = eq[i];
}

static void
same_as_prev(struct agg *A, const struct core_batch *sb, const uint32_t *rows,
    uint32_t n, uint8_t *same)
{
	same_rows(&A->hk_state, sb, A->hash, A->xa, rows, n, same, A->act,
	    A->refs, A->cand, A->eq);
}

/* ---- hashes made where the input is read ---- */

struct core_agg_prehash {
	struct core_hash_keys hk;	/* the input's key columns */
	atomic_bool want;
	uint32_t cap;			/* of the scratch below */
	uint32_t *act, *cand;
	uint64_t *refs;
	uint8_t *eq;
};

struct core_agg_prehash *
core_agg_prehash_new(const struct core_agg_plan *plan,
    const struct core_schema *in)
{
	const struct core_agg_plan_priv *P = plan->priv;
	struct core_agg_prehash *ph;
	struct core_err err;

	/* With DISTINCT the first phase's table takes the input. */
	if (P->pre != NULL)
		P = P->pre;
	if (P->nkeys == 0)
		return NULL;
	ph = core_xcalloc(1, sizeof(*ph));
	if (core_hash_keys_init(&ph->hk, in, P->keys, NULL, P->nkeys,
	    &err) != 0) {
		free(ph);
		return NULL;
	}
	atomic_init(&ph->want, false);
	return ph;
}

void
core_agg_prehash_free(struct core_agg_prehash *ph)
{
	if (ph == NULL)
		return;
	free(ph->act);
	free(ph->cand);
	free(ph->refs);
	free(ph->eq);
	free(ph);
}

bool
core_agg_prehash_wanted(const struct core_agg_prehash *ph)
{
	return ph != NULL &&
	    atomic_load_explicit(&ph->want, memory_order_relaxed);
}

void
core_agg_prehash_make(struct core_agg_prehash *ph, const struct core_batch *b,
    struct core_agg_hashes *h)
{
	uint32_t n = b->nrows;

	if (n > h->cap) {
		h->hash = core_xreallocarray(h->hash, n, sizeof(*h->hash));
		h->exact = core_xreallocarray(h->exact, n, 1);
		h->fol = core_xreallocarray(h->fol, n, 1);
		h->cap = n;
	}
	if (n > ph->cap) {
		ph->act = core_xreallocarray(ph->act, n, sizeof(*ph->act));
		ph->cand = core_xreallocarray(ph->cand, n, sizeof(*ph->cand));
		ph->refs = core_xreallocarray(ph->refs, n, sizeof(*ph->refs));
		ph->eq = core_xreallocarray(ph->eq, n, 1);
		ph->cap = n;
	}
	h->n = n;
	h->made = true;
	if (n == 0)
		return;
	core_hash_batch_exact(&ph->hk, b, NULL, n, 0, h->hash, NULL,
	    h->exact);
	same_rows(&ph->hk, b, h->hash, h->exact, NULL, n, h->fol, ph->act,
	    ph->refs, ph->cand, ph->eq);
}

void
core_agg_hashes_free(struct core_agg_hashes *h)
{
	free(h->hash);
	free(h->exact);
	free(h->fol);
	memset(h, 0, sizeof(*h));
}

/* Whether a group made in this batch has hash h; if not, h is added
 * (the caller makes that group). */
static bool
made_has(struct agg *A, uint64_t h)
{
	size_t m = A->made_mask, j = (size_t)(h ^ h >> 29) & m;

	/* 0 marks a free slot: a hash of 0 is taken as present. */
	if (h == 0)
		return true;
	while (A->made[j] != 0) {
		if (A->made[j] == h)
			return true;
		j = (j + 1) & m;
	}
	A->made[j] = h;
	return false;
}

/* Where group g's key is kept: chunk << 32 | row (core_hash_equal's
 * reference into A->cptr). */
static inline uint64_t
gref(const struct agg *A, uint32_t g)
{
	return (uint64_t)(g >> A->chunk_shift) << 32 | (g & (A->chunk - 1));
}

/* Whether row r of the batch (hash A->hash[r]) has the key of table
 * entry e's group, for a row with an exact hash: no key is read. */
static inline bool
exact_eq(const struct agg *A, uint32_t r, uint32_t e)
{
	uint32_t g = e - 1;

	return core_htab_ref(&A->ht, e) == A->hash[r] &&
	    (A->gx[g / 64] >> (g % 64) & 1);
}

/*
 * assign for the nl rows lead[0..nl) (lead NULL: every row, nl the
 * batch's): A->gid[r] = the group of row r, creating groups; on entry
 * A->gid[j] is the table's first candidate for lead[j].  0, or
 * CORE_ELIMIT when the table is full (gid then incomplete).
 */
static int
assign_leads(struct agg *A, const struct core_batch *sb, const uint32_t *lead,
    uint32_t nl)
{
	uint32_t nact = 0, nmiss = 0, nmade = 0, i, j;
	int rc = 0, rc2;

	for (j = 0; j < nl; j++) {
		uint32_t r = lead != NULL ? lead[j] : j;

		A->cand[r] = A->gid[j];
		if (A->gid[j] != CORE_HTAB_NONE)
			A->act[nact++] = r;
		else
			A->miss[nmiss++] = r;
	}
	/* Candidates checked a round at a time; rows whose chain ends
	 * unmatched join the misses. */
	while (nact > 0) {
		uint32_t k = 0;

		uint32_t nfull = 0;

		/* Exact rows by their hashes; the others by their keys. */
		for (j = 0; j < nact; j++) {
			uint32_t r = A->act[j], e = A->cand[r];

			if (A->xa[r]) {
				A->eq[j] = exact_eq(A, r, e);
				continue;
			}
			A->fidx[nfull] = j;
			A->frow[nfull] = r;
			A->refs[nfull++] = gref(A, e - 1);
		}
		if (nfull > 0) {
			core_hash_equal(&A->hk_state, sb, A->frow, &A->hk_key,
			    A->cptr, A->refs, nfull, true, A->feq);
			for (j = 0; j < nfull; j++)
				A->eq[A->fidx[j]] = A->feq[j];
		}
		for (j = 0; j < nact; j++) {
			uint32_t r = A->act[j];

			if (A->eq[j]) {
				A->gid[r] = A->cand[r] - 1;
				continue;
			}
			core_htab_next(&A->ht, &A->cand[r], 1);
			if (A->cand[r] == CORE_HTAB_NONE)
				A->miss[nmiss++] = r;
			else
				A->act[k++] = r;
		}
		nact = k;
	}
	if (nmiss == 0)
		return 0;
	same_as_prev(A, sb, A->miss, nmiss, A->same);
	memset(A->made, 0, (A->made_mask + 1) * sizeof(*A->made));
	/* Misses in order: one equal to the miss before it takes its
	 * group; one whose hash no group made in this batch has makes a
	 * group at once (no group had its key when the batch began),
	 * indexed later with the others so made (their hashes in refs:
	 * same_as_prev is done with it); the rest are looked up again, as an
	 * earlier miss may have made their group. */
	for (i = 0; i < nmiss; i++) {
		uint32_t r = A->miss[i], c;
		uint64_t ref, h = A->hash[r];
		uint8_t eq;

		if (A->same[i]) {
			A->gid[r] = A->gid[A->miss[i - 1]];
			continue;
		}
		if (!made_has(A, h)) {
			/* Its entry's room first, charged as an insert
			 * would be: a group made is indexed whatever
			 * comes after (a batch refused is tried again in
			 * halves on the same table). */
			if ((rc = core_htab_reserve(&A->ht,
			    (size_t)A->ht.count + nmade + 1, A->err)) != 0 ||
			    (rc = group_new(A, sb, r, h, true)) != 0)
				break;
			A->refs[nmade++] = h;
			A->gid[r] = A->ngroups - 1;
			continue;
		}
		if (nmade > 0 && (rc = index_made(A, nmade)) != 0)
			return rc;
		nmade = 0;
		core_htab_probe(&A->ht, &A->hash[r], 1, &c);
		while (c != CORE_HTAB_NONE) {
			if (A->xa[r]) {
				eq = exact_eq(A, r, c);
			} else {
				ref = gref(A, c - 1);
				core_hash_equal(&A->hk_state, sb, &r,
				    &A->hk_key, A->cptr, &ref, 1, true, &eq);
			}
			if (eq)
				break;
			core_htab_next(&A->ht, &c, 1);
		}
		if (c != CORE_HTAB_NONE) {
			A->gid[r] = c - 1;
			continue;
		}
		if ((rc = group_new(A, sb, r, A->hash[r], false)) != 0)
			return rc;
		A->gid[r] = A->ngroups - 1;
	}
	if (nmade > 0 && (rc2 = index_made(A, nmade)) != 0)
		return rc2;
	return rc;
}

/*
 * Rows (i > 0) with the key of the row before: A->fol[i] = 1, else 0;
 * the others' indices in A->lead and their hashes in A->lhash: a
 * group's rows together are then looked up once, by their first row.
 * Returns the number of leading rows.
 */
static uint32_t
lead_rows(struct agg *A, const struct core_batch *sb, uint32_t n)
{
	uint32_t i, nl = 0;

	if (A->pre_h != NULL)
		memcpy(A->fol, A->pre_h->fol, n);
	else
		same_as_prev(A, sb, NULL, n, A->fol);
	for (i = 0; i < n; i++) {
		A->lead[nl] = i;
		A->lhash[nl] = A->hash[i];
		nl += !A->fol[i];
	}
	return nl;
}

/*
 * A->gid[r] = the group of row r of state batch sb, creating groups.
 * 0, or CORE_ELIMIT when the table is full (gid then incomplete).
 */
static int
assign(struct agg *A, const struct core_batch *sb)
{
	uint32_t n = sb->nrows, nl, i, g;
	int rc;

	if (A->nk == 0) {
		memset(A->gid, 0, (size_t)n * sizeof(*A->gid));
		return 0;
	}
	if (A->pre_h != NULL) {
		memcpy(A->hash, A->pre_h->hash, (size_t)n * sizeof(*A->hash));
		memcpy(A->xa, A->pre_h->exact, n);
	} else {
		core_hash_batch_exact(&A->hk_state, sb, NULL, n, 0, A->hash,
		    NULL, A->xa);
	}
	if (A->ph != NULL && A->ht.count >= LEAD_GROUPS &&
	    !atomic_load_explicit(&A->ph->want, memory_order_relaxed))
		atomic_store_explicit(&A->ph->want, true,
		    memory_order_relaxed);
	if (A->ht.count < LEAD_GROUPS) {
		core_htab_probe(&A->ht, A->hash, n, A->gid);
		return assign_leads(A, sb, NULL, n);
	}
	nl = lead_rows(A, sb, n);
	/* The leading rows' candidates, in gid until assign_leads moves
	 * them to cand by row. */
	core_htab_probe(&A->ht, A->lhash, nl, A->gid);
	if ((rc = assign_leads(A, sb, A->lead, nl)) != 0 || nl == n)
		return rc;
	/* The group carried in a register: gid[i - 1] read back from
	 * memory made each row wait for the store before it. */
	g = A->gid[0];
	for (i = 1; i < n; i++) {
		g = A->fol[i] ? g : A->gid[i];
		A->gid[i] = g;
	}
	return 0;
}

static inline bool
f_less(double a, double b)
{
	/* NaN above everything, as colsort orders */
	return a < b || (isnan(b) && !isnan(a));
}

static inline int
s_cmp(const char *a, size_t la, const char *b, size_t lb)
{
	size_t n = la < lb ? la : lb;
	/* An empty string may have no bytes at all (a NULL pointer). */
	int c = n > 0 ? memcmp(a, b, n) : 0;

	return c ? c : (la > lb) - (la < lb);
}

/* Appends string x[0..len) to group g's log (room made beforehand). */
static inline void
sl_add(struct acc *c, uint32_t g, const char *x, uint32_t len)
{
	if (len > 0)
		memcpy(c->lb + c->lblen, x, len);
	c->lv[c->llen] = (int64_t)c->lblen;
	c->lsz[c->llen] = len;
	c->lblen += len;
	c->lnext[c->llen] = (uint64_t)c->i[g];
	c->i[g] = (int64_t)++c->llen;
	c->n[g]++;
}

/*
 * min, max or any_value (op) of rows [0, n) into their groups gid: the
 * values x[r] of type T read as int64 (bool as 0 or 1, as widen reads
 * it), NULL rows (val) skipped.  No branch on the values: a group's
 * value is its value so far or the row's, whichever op keeps.
 */
#define VI_LOOP(T, GET) do {						\
	const T *x = v;							\
									\
	for (r = 0; r < n; r++) {					\
		uint32_t g = gid[r];					\
		int64_t y = GET, cur;					\
									\
		if (val != NULL && !valid_at(val, r))			\
			continue;					\
		cur = c->has[g] ? c->i[g] : y;				\
		c->i[g] = op == OP_MAX ? (y > cur ? y : cur) :		\
		    op == OP_MIN ? (y < cur ? y : cur) : cur;		\
		c->has[g] = 1;						\
	}								\
} while (0)

static inline void
vi_merge_op(struct acc *c, const uint32_t *gid, const uint8_t *val,
    uint32_t n, int op, const void *v, enum core_type t)
{
	uint32_t r;

	switch (t) {
	case CORE_TYPE_BOOL:
		VI_LOOP(uint8_t, (int64_t)(x[r] != 0));
		break;
	case CORE_TYPE_INT32:
	case CORE_TYPE_DATE:
		VI_LOOP(int32_t, (int64_t)x[r]);
		break;
	default:
		VI_LOOP(int64_t, x[r]);
		break;
	}
}
#undef VI_LOOP

/* vi_merge_op with op a constant in each call, so that each loop is
 * compiled for its op. */
static void
vi_merge(struct acc *c, const uint32_t *gid, const uint8_t *val, uint32_t n,
    int op, const void *v, enum core_type t)
{
	if (op == OP_MAX)
		vi_merge_op(c, gid, val, n, OP_MAX, v, t);
	else if (op == OP_MIN)
		vi_merge_op(c, gid, val, n, OP_MIN, v, t);
	else
		vi_merge_op(c, gid, val, n, OP_ANY, v, t);
}

/* Merges the raw rows of direct aggregate i (A->dcol[i], to_state's
 * direct) into the groups A->gid. */
static void
merge_direct(struct agg *A, uint32_t i, uint32_t n)
{
	const struct core_agg_a *a = &A->P->aggs[i];
	const struct core_column *x = A->dcol[i];
	const uint32_t *gid = A->gid;
	const uint8_t *val = x != NULL ? x->validity : NULL;
	struct acc *c = &A->acc[i];
	uint32_t r;

	if (a->st == ST_CNT) {
		if (val == NULL)
			for (r = 0; r < n; r++)
				c->n[gid[r]]++;
		else
			for (r = 0; r < n; r++)
				c->n[gid[r]] += valid_at(val, r);
		return;
	}
	if (a->st == ST_VI) {
		vi_merge(c, gid, val, n, a->op, x->values, x->type.id);
		return;
	}
	if (a->st == ST_SUMF) {
		const double *d = x->values;

		for (r = 0; r < n; r++) {
			uint32_t g = gid[r];
			bool ok = valid_at(val, r);

			c->d[g] += ok ? d[r] : 0;
			c->n[g] += ok;
		}
		return;
	}
	/* ST_SUMI: one loop per width, the validity a mask. */
#define SUM_LOOP(T) do {						\
	const T *v = x->values;						\
									\
	if (val == NULL)						\
		for (r = 0; r < n; r++) {				\
			c->w[gid[r]] += v[r];				\
			c->n[gid[r]]++;					\
		}							\
	else								\
		for (r = 0; r < n; r++) {				\
			bool ok = valid_at(val, r);			\
									\
			c->w[gid[r]] += ok ? v[r] : 0;			\
			c->n[gid[r]] += ok;				\
		}							\
} while (0)
	switch (x->type.id) {
	case CORE_TYPE_BOOL:
		/* Any byte but 0 is true, as widen reads it. */
		for (r = 0; r < n; r++) {
			bool ok = valid_at(val, r);

			c->w[gid[r]] += ok && ((const uint8_t *)x->values)[r];
			c->n[gid[r]] += ok;
		}
		break;
	case CORE_TYPE_INT32:
	case CORE_TYPE_DATE:
		SUM_LOOP(int32_t);
		break;
	case CORE_TYPE_DECIMAL128: {
		const char *v = x->values;

		for (r = 0; r < n; r++) {
			uint32_t g = gid[r];
			bool ok = valid_at(val, r);
			__int128 y = ok ? core_i128_load(v + 16 * (size_t)r) :
			    0;

			if (__builtin_add_overflow(c->w[g], y, &c->w[g]))
				c->n[g] |= SUM_OVERFLOW;
			c->n[g] += ok;
		}
		break;
	}
	default:
		SUM_LOOP(int64_t);
		break;
	}
#undef SUM_LOOP
}

/* Merges state batch sb into the groups A->gid: cannot fail (the arena
 * was made room for beforehand).  direct: sb was made by to_state's
 * direct, whose direct aggregates merge their raw rows. */
static void
merge(struct agg *A, const struct core_batch *sb, bool direct)
{
	const uint32_t *gid = A->gid;
	uint32_t n = sb->nrows, i, r;

	for (i = 0; i < A->na; i++) {
		const struct core_agg_a *a = &A->P->aggs[i];
		const struct core_column *s = &sb->cols[a->scol];
		struct acc *c = &A->acc[i];
		const uint8_t *val = s->validity;

		if (direct && direct_ok(a)) {
			merge_direct(A, i, n);
			continue;
		}
		switch (a->st) {
		case ST_CNT: {
			const int64_t *x = s->values;

			for (r = 0; r < n; r++)
				c->n[gid[r]] += x[r];
			break;
		}
		case ST_SUMI: {
			const uint64_t *lo = s[0].values;
			const int64_t *hi = s[1].values, *k = s[2].values;

			unsigned o = 0;

			/* Sums of 38-digit values can pass 128 bits: such a
			 * group's sum is marked, never wrapped. */
			for (r = 0; r < n; r++) {
				__int128 *w = &c->w[gid[r]];

				int64_t *cn = &c->n[gid[r]];

				o = __builtin_add_overflow(*w, (__int128)
				    (((unsigned __int128)(uint64_t)hi[r] << 64) |
				    lo[r]), w);
				*cn = ((*cn | k[r]) & SUM_OVERFLOW) |
				    ((*cn & ~SUM_OVERFLOW) +
				    (k[r] & ~SUM_OVERFLOW));
				if (o)
					*cn |= SUM_OVERFLOW;
			}
			break;
		}
		case ST_SUMF: {
			const double *x = s[0].values;
			const int64_t *k = s[1].values;

			for (r = 0; r < n; r++) {
				c->d[gid[r]] += x[r];
				c->n[gid[r]] += k[r];
			}
			break;
		}
		case ST_VI:
			vi_merge(c, gid, val, n, a->op, s->values,
			    CORE_TYPE_INT64);
			break;
		case ST_VF: {
			const double *x = s->values;

			for (r = 0; r < n; r++) {
				uint32_t g = gid[r];

				if (!valid_at(val, r))
					continue;
				if (!c->has[g] || (a->op == OP_MIN &&
				    f_less(x[r], c->d[g])) ||
				    (a->op == OP_MAX && f_less(c->d[g], x[r]))) {
					c->d[g] = x[r];
					c->has[g] = 1;
				}
			}
			break;
		}
		case ST_VS: {
			const char *x = s->values;
			const int32_t *off = s->offsets;

			for (r = 0; r < n; r++) {
				uint32_t g = gid[r];
				size_t len = (size_t)(off[r + 1] - off[r]);
				int cmp;

				if (!valid_at(val, r))
					continue;
				if (c->has[g] && a->op == OP_ANY)
					continue;
				if (c->has[g]) {
					cmp = s_cmp(x + off[r], len,
					    A->arena + c->i[g],
					    (size_t)c->n[g]);
					if (a->op == OP_MIN ? cmp >= 0 :
					    cmp <= 0)
						continue;
				}
				if (len > 0)
					memcpy(A->arena + A->arena_len,
					    x + off[r], len);
				c->i[g] = (int64_t)A->arena_len;
				c->n[g] = (int64_t)len;
				c->has[g] = 1;
				A->arena_len += len;
			}
			break;
		}
		case ST_VAR: {
			const int64_t *k = s[0].values;
			const double *m = s[1].values, *q = s[2].values;

			for (r = 0; r < n; r++) {
				uint32_t g = gid[r];
				double na, nb, nt, delta;

				if (k[r] == 0)
					continue;
				na = (double)c->n[g];
				nb = (double)k[r];
				nt = na + nb;
				delta = m[r] - c->d[g];
				c->d[g] += delta * nb / nt;
				c->m2[g] += q[r] + delta * delta * na * nb / nt;
				c->n[g] += k[r];
			}
			break;
		}
		case ST_VW: {
			const char *x = s->values;

			for (r = 0; r < n; r++) {
				uint32_t g = gid[r];
				__int128 v;

				if (!valid_at(val, r))
					continue;
				v = core_i128_load(x + 16 * (size_t)r);
				if (!c->has[g] || (a->op == OP_MIN &&
				    v < c->w[g]) || (a->op == OP_MAX &&
				    v > c->w[g])) {
					c->w[g] = v;
					c->has[g] = 1;
				}
			}
			break;
		}
		case ST_Q: {
			const char *x = s->values;
			const int32_t *off = s->offsets;

			for (r = 0; r < n; r++) {
				uint32_t g = gid[r];
				int32_t j;

				for (j = off[r]; j < off[r + 1]; j += 8) {
					memcpy(&c->lv[c->llen], x + j, 8);
					c->lnext[c->llen] = (uint64_t)c->i[g];
					c->i[g] = (int64_t)++c->llen;
					c->n[g]++;
				}
			}
			break;
		}
		case ST_SA:
		case ST_QS: {
			const char *x = s->values;
			const int32_t *off = s->offsets;

			for (r = 0; r < n; r++) {
				uint32_t g = gid[r], len;
				int32_t j;

				if (a->st == ST_SA) {
					if (valid_at(val, r))
						sl_add(c, g, x + off[r],
						    (uint32_t)(off[r + 1] -
						    off[r]));
					continue;
				}
				for (j = off[r]; j < off[r + 1];
				    j += 4 + (int32_t)len) {
					memcpy(&len, x + j, 4);
					sl_add(c, g, x + j + 4, len);
				}
			}
			break;
		}
		case ST_BOOL: {
			const uint8_t *x = s->values;

			for (r = 0; r < n; r++) {
				uint32_t g = gid[r];

				if (!valid_at(val, r))
					continue;
				if (!c->has[g])
					c->b[g] = x[r] != 0;
				else if (a->op == OP_AND)
					c->b[g] &= x[r] != 0;
				else
					c->b[g] |= x[r] != 0;
				c->has[g] = 1;
			}
			break;
		}
		}
	}
}

/*
 * Room in aggregate i's value log for need more values, charged.  With
 * no keys the table grows whatever the budget says (there is nothing to
 * partition by), but the values, which grow with the input, are still
 * refused: CORE_ELIMIT, which a forced table does not take for "spill".
 * Elsewhere a forced table (the sorted path's) holds its values as it
 * holds its other states.
 */
static int
log_charge(struct agg *A, uint32_t i, uint64_t want, uint64_t least,
    size_t have, uint64_t *got)
{
	int rc;

	if (A->forced && A->nk == 0) {
		if (core_mem_part_try_charge(&A->p_tab, want) != 0) {
			want = least;
			if (core_mem_part_try_charge(&A->p_tab, want) != 0) {
				/* run measures the group and says the
				 * budget (too_big); the message stands
				 * when it cannot (DISTINCT). */
				A->stuck = true;
				return core_err_set(A->err, CORE_ELIMIT,
				    "%s: the values of %u group (%zu and "
				    "more) do not fit in the memory budget of "
				    "%llu bytes, and without --by they cannot "
				    "be split: give colagg a bigger -m",
				    A->plan->out->fields[A->nk + i].name,
				    A->ngroups, have,
				    (unsigned long long)A->budget);
			}
		}
		A->tab_charged += want;
	} else if ((rc = charge(A, want)) != 0) {
		return rc;
	}
	*got = want;
	return 0;
}

static int
log_room(struct agg *A, uint32_t i, size_t need, size_t bytes)
{
	struct acc *c = &A->acc[i];
	bool sl = A->P->aggs[i].st != ST_Q;
	uint64_t per = sl ? 20 : 16, got;
	size_t ncap;
	int rc;

	if (sl && c->lblen + bytes > c->lbcap) {
		size_t nb = c->lbcap * 2 > c->lblen + bytes ? c->lbcap * 2 :
		    c->lblen + bytes;

		if (nb < 64)
			nb = 64;
		if ((rc = log_charge(A, i, nb - c->lbcap, c->lblen + bytes -
		    c->lbcap, c->llen + need, &got)) != 0)
			return rc;
		nb = c->lbcap + got;
		core_grow_aligned((void **)&c->lb, &c->lbcap, nb);
		/* core_grow_aligned may round up: charge what it made. */
		if (c->lbcap > nb) {
			core_mem_part_charge(&A->p_tab, c->lbcap - nb);
			A->tab_charged += c->lbcap - nb;
		}
	}
	if (c->llen + need <= c->lcap)
		return 0;
	ncap = c->lcap * 2 > c->llen + need ? c->lcap * 2 : c->llen + need;
	if (ncap < 16)
		ncap = 16;
	if ((rc = log_charge(A, i, (uint64_t)(ncap - c->lcap) * per,
	    (uint64_t)(c->llen + need - c->lcap) * per, c->llen + need,
	    &got)) != 0)
		return rc;
	ncap = c->lcap + (size_t)(got / per);
	c->lv = core_xreallocarray(c->lv, ncap, sizeof(*c->lv));
	c->lnext = core_xreallocarray(c->lnext, ncap, sizeof(*c->lnext));
	if (sl)
		c->lsz = core_xreallocarray(c->lsz, ncap, sizeof(*c->lsz));
	c->lcap = ncap;
	return 0;
}

/* The strings n ST_SA or ST_QS states s hold. */
static size_t
sl_count(const struct core_agg_a *a, const struct core_column *s, uint32_t n)
{
	const char *x = s->values;
	size_t k = 0;
	uint32_t r, len;
	int32_t j;

	if (a->st == ST_SA) {
		for (r = 0; r < n; r++)
			k += valid_at(s->validity, r);
		return k;
	}
	for (j = s->offsets[0]; j < s->offsets[n]; j += 4 + (int32_t)len, k++)
		memcpy(&len, x + j, 4);
	return k;
}

/* A live string of the arena, for arena_compact. */
struct live {
	int64_t off, len;
	int64_t *at;			/* its offset's place: an acc's i[g] */
};

static int
live_cmp(const void *a, const void *b)
{
	const struct live *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

/*
 * Moves the strings min, max and any_value hold to the arena's start, in
 * place, dropping those they replaced, when that frees half of it at
 * least: a group's max over a stream of rising values then takes the
 * room of one value, not of the stream.  The strings are moved in the
 * order of their offsets (each was appended on its own, so none
 * overlaps another); the list of them is a transient of 24 bytes a
 * string, less than the states charged for it.
 */
static void
arena_compact(struct agg *A)
{
	size_t live = 0, nl = 0, pos = 0, k;
	struct live *L;
	uint32_t i, g;

	for (i = 0; i < A->na; i++)
		if (A->P->aggs[i].st == ST_VS)
			for (g = 0; g < A->ngroups; g++)
				if (A->acc[i].has[g]) {
					live += (size_t)A->acc[i].n[g];
					nl++;
				}
	if (live > A->arena_len / 2)
		return;
	L = core_xmalloc(core_mul_size(nl + 1, sizeof(*L)));
	nl = 0;
	for (i = 0; i < A->na; i++) {
		struct acc *c = &A->acc[i];

		if (A->P->aggs[i].st != ST_VS)
			continue;
		for (g = 0; g < A->ngroups; g++)
			if (c->has[g]) {
				L[nl].off = c->i[g];
				L[nl].len = c->n[g];
				L[nl++].at = &c->i[g];
			}
	}
	qsort(L, nl, sizeof(*L), live_cmp);
	for (k = 0; k < nl; k++) {
		if (L[k].len > 0 && (size_t)L[k].off != pos)
			memmove(A->arena + pos, A->arena + L[k].off,
			    (size_t)L[k].len);
		*L[k].at = (int64_t)pos;
		pos += (size_t)L[k].len;
	}
	A->arena_len = pos;
	free(L);
}

/* Room in the arena for every string sb's min/max/any_value could
 * keep, and in the value logs for sb's values. */
static int
arena_room(struct agg *A, const struct core_batch *sb)
{
	size_t need = 0;
	uint32_t i;
	int rc;

	for (i = 0; i < A->na; i++) {
		const struct core_agg_a *a = &A->P->aggs[i];
		const struct core_column *s = &sb->cols[a->scol];

		if (a->st == ST_VS && sb->nrows > 0)
			need += (size_t)(s->offsets[sb->nrows] - s->offsets[0]);
		if (a->st == ST_Q && sb->nrows > 0 && (rc = log_room(A,
		    i, (size_t)(s->offsets[sb->nrows] -
		    s->offsets[0]) / 8, 0)) != 0)
			return rc;
		if ((a->st == ST_SA || a->st == ST_QS) && sb->nrows > 0 &&
		    (rc = log_room(A, i, sl_count(a, s, sb->nrows),
		    (size_t)(s->offsets[sb->nrows] - s->offsets[0]))) != 0)
			return rc;
	}
	if (need == 0)
		return 0;
	if (A->arena_len + need > A->arena_cap && A->arena_len > 0)
		arena_compact(A);
	return grow_charged(A, (void **)&A->arena, &A->arena_cap,
	    A->arena_len + need);
}

/* Aggregates state batch sb into the table: 0, or CORE_ELIMIT when it is
 * full (sb then not merged: all of it goes on to the partitions). */
static int
consume(struct agg *A, const struct core_batch *sb, bool direct)
{
	int rc;

	if (sb->nrows == 0)
		return 0;
	scratch(A, sb->nrows);
	if ((rc = arena_room(A, sb)) != 0 || (rc = assign(A, sb)) != 0)
		return rc;
	merge(A, sb, direct);
	return 0;
}

/* View v (cols owned by the caller, sb->ncols) of rows [r0, r0 + n) of
 * state batch sb; r0 a multiple of 8, so validity stays byte-aligned. */
static void
slice(struct core_batch *v, const struct core_batch *sb, uint32_t r0,
    uint32_t n)
{
	uint32_t i;

	v->schema = sb->schema;
	v->ncols = sb->ncols;
	v->nrows = n;
	for (i = 0; i < sb->ncols; i++) {
		const struct core_column *s = &sb->cols[i];
		struct core_column *d = &v->cols[i];
		size_t w = core_type_width(s->type.id);

		view(d, s);
		d->type = s->type;
		if (s->validity != NULL)
			d->validity = s->validity + r0 / 8;
		if (w == 0)
			d->offsets = s->offsets + r0;
		else if (s->values != NULL)
			d->values = (char *)s->values + (size_t)r0 * w;
	}
}

/*
 * consume, for a partition read back: a batch the table refuses is
 * tried again in halves, down to 16 rows, since its strings and values
 * are made room for all at once -- a frame of one group's rising
 * maxima may need more room than the group's value ever takes.  Rows
 * merged before a refusal stay merged: the caller starts the partition
 * again.
 */
static int
consume_part(struct agg *A, const struct core_batch *sb)
{
	struct core_batch lo, hi;
	uint32_t n = sb->nrows, h = (n / 2) & ~7u;
	int rc;

	if ((rc = consume(A, sb, false)) != CORE_ELIMIT || n < 16)
		return rc;
	lo.cols = core_xcalloc(sb->ncols, sizeof(*lo.cols));
	hi.cols = core_xcalloc(sb->ncols, sizeof(*hi.cols));
	slice(&lo, sb, 0, h);
	slice(&hi, sb, h, n - h);
	if ((rc = consume_part(A, &lo)) == 0)
		rc = consume_part(A, &hi);
	free(lo.cols);
	free(hi.cols);
	return rc;
}

/* ---- the table's groups as batches ---- */

/* Group g's log entries of aggregate c (ST_SA, ST_QS) gathered into
 * A->qs in the order they came: their number. */
static size_t
sl_gather(struct agg *A, const struct acc *c, uint32_t g)
{
	size_t k = (size_t)c->n[g], j = k;
	uint64_t e;

	if (k > A->qscap) {
		size_t old = A->qscap;

		A->qs = core_xreallocarray(A->qs, k, sizeof(*A->qs));
		A->qscap = k;
		core_mem_part_charge(&A->p_out, (uint64_t)(k - old) * 8);
	}
	for (e = (uint64_t)c->i[g]; e != 0; e = c->lnext[e - 1])
		A->qs[--j] = (int64_t)(e - 1);
	return k;
}

/*
 * s = a string column of groups [g0, g0 + n) of ST_SA or ST_QS
 * aggregate i, in bu's buffers: ST_SA's joined strings (NULL where a
 * group has none), ST_QS's items.  0, or CORE_ELIMIT past the 2 GiB a
 * string column holds.
 */
static int
sl_strings(struct agg *A, uint32_t i, uint32_t g0, uint32_t n,
    struct sbuf *bu, struct core_column *s)
{
	const struct core_agg_a *a = &A->P->aggs[i];
	const struct acc *c = &A->acc[i];
	uint64_t tot = 0;
	uint8_t *v = NULL;
	int32_t *off;
	char *p;
	uint32_t r;

	for (r = 0; r < n; r++) {
		uint64_t e, k = (uint64_t)c->n[g0 + r];

		for (e = (uint64_t)c->i[g0 + r]; e != 0; e = c->lnext[e - 1])
			tot += c->lsz[e - 1];
		tot += a->st == ST_QS ? 4 * k : k > 0 ? (k - 1) * a->seplen :
		    0;
	}
	if (tot > INT32_MAX)
		return core_err_set(A->err, CORE_ELIMIT, "%s: %llu bytes of "
		    "strings in %u groups, more than a string column holds "
		    "(2 GiB)%s", A->plan->out->fields[A->nk + i].name,
		    (unsigned long long)tot, n, n > 1 ? "; give -m a smaller "
		    "budget so that the groups spill sooner" : "");
	core_grow_aligned((void **)&bu->off, &bu->ocap, ((size_t)n + 1) * 4);
	off = bu->off;
	p = sbuf_vals(bu, (size_t)tot);
	off[0] = 0;
	for (r = 0; r < n; r++) {
		size_t k = sl_gather(A, c, g0 + r), j, pos = (size_t)off[r];

		for (j = 0; j < k; j++) {
			uint32_t len = c->lsz[A->qs[j]];

			if (a->st == ST_QS) {
				memcpy(p + pos, &len, 4);
				pos += 4;
			} else if (j > 0 && a->seplen > 0) {
				memcpy(p + pos, a->sep, a->seplen);
				pos += a->seplen;
			}
			if (len > 0)
				memcpy(p + pos, c->lb + c->lv[A->qs[j]], len);
			pos += len;
		}
		off[r + 1] = (int32_t)pos;
		if (a->st == ST_SA && k == 0) {
			if (v == NULL)
				v = sbuf_valid(bu, n);
			clear_bit(v, r);
		}
	}
	view(s, s);
	s->values = p;
	s->offsets = off;
	s->validity = v;
	return 0;
}

/* A->sb's state columns of groups [g0, g0 + n) of the table; for
 * spilling.  0, or CORE_ELIMIT when a median's or quantile's values of
 * these groups pass what one string column holds (2 GiB). */
static int
states_of(struct agg *A, uint32_t g0, uint32_t n)
{
	struct core_batch *sb = &A->sb;
	uint32_t i, r;

	sb->nrows = n;
	for (i = 0; i < A->na; i++) {
		const struct core_agg_a *a = &A->P->aggs[i];
		struct core_column *s = &sb->cols[a->scol];
		struct sbuf *bu = &A->sbufs[a->scol];
		struct acc *c = &A->acc[i];
		uint32_t j;

		for (j = 0; j < 3 && a->scol + j < sb->ncols; j++)
			view(s + j, s + j);
		switch (a->st) {
		case ST_CNT:
			s->values = c->n + g0;
			break;
		case ST_SUMI: {
			int64_t *lo = sbuf_vals(bu, (size_t)n * 8);
			int64_t *hi = sbuf_vals(bu + 1, (size_t)n * 8);

			for (r = 0; r < n; r++) {
				unsigned __int128 w = (unsigned __int128)
				    c->w[g0 + r];

				lo[r] = (int64_t)(uint64_t)w;
				hi[r] = (int64_t)(uint64_t)(w >> 64);
			}
			s[0].values = lo;
			s[1].values = hi;
			s[2].values = c->n + g0;
			break;
		}
		case ST_SUMF:
			s[0].values = c->d + g0;
			s[1].values = c->n + g0;
			break;
		case ST_VAR:
			s[0].values = c->n + g0;
			s[1].values = c->d + g0;
			s[2].values = c->m2 + g0;
			break;
		case ST_VW:
		case ST_VI:
		case ST_VF:
		case ST_BOOL: {
			uint8_t *v = NULL;

			if (a->st == ST_VW) {
				char *p = sbuf_vals(bu, (size_t)n * 16);

				for (r = 0; r < n; r++)
					core_i128_store(p + 16 * (size_t)r,
					    c->has[g0 + r] ? c->w[g0 + r] : 0);
				s->values = p;
			} else if (a->st == ST_VI) {
				s->values = c->i + g0;
			} else if (a->st == ST_VF) {
				s->values = c->d + g0;
			} else {
				s->values = c->b + g0;
			}
			for (r = 0; r < n; r++)
				if (!c->has[g0 + r]) {
					if (v == NULL)
						v = sbuf_valid(bu, n);
					clear_bit(v, r);
				}
			s->validity = v;
			break;
		}
		case ST_VS: {
			uint8_t *v = NULL;
			int32_t *off;
			size_t tot = 0;
			char *p;

			for (r = 0; r < n; r++)
				if (c->has[g0 + r])
					tot += (size_t)c->n[g0 + r];
			core_grow_aligned((void **)&bu->off, &bu->ocap,
			    ((size_t)n + 1) * 4);
			off = bu->off;
			p = sbuf_vals(bu, tot);
			off[0] = 0;
			for (r = 0; r < n; r++) {
				size_t len = c->has[g0 + r] ?
				    (size_t)c->n[g0 + r] : 0;

				if (len > 0)
					memcpy(p + off[r], A->arena +
					    c->i[g0 + r], len);
				off[r + 1] = off[r] + (int32_t)len;
				if (!c->has[g0 + r]) {
					if (v == NULL)
						v = sbuf_valid(bu, n);
					clear_bit(v, r);
				}
			}
			s->values = p;
			s->offsets = off;
			s->validity = v;
			break;
		}
		case ST_Q: {
			uint64_t tot = 0;
			int32_t *off;
			int64_t *p;
			size_t k = 0;

			for (r = 0; r < n; r++)
				tot += (uint64_t)c->n[g0 + r];
			if (tot * 8 > INT32_MAX)
				return core_err_set(A->err, CORE_ELIMIT, "%s: "
				    "%llu values in %u groups, more than a "
				    "partial aggregate holds (2 GiB); give "
				    "-m a smaller budget so that the groups "
				    "spill sooner",
				    A->plan->out->fields[A->nk + i].name,
				    (unsigned long long)tot, n);
			core_grow_aligned((void **)&bu->off, &bu->ocap,
			    ((size_t)n + 1) * 4);
			off = bu->off;
			p = sbuf_vals(bu, (size_t)tot * 8);
			off[0] = 0;
			for (r = 0; r < n; r++) {
				uint64_t e;

				for (e = (uint64_t)c->i[g0 + r]; e != 0;
				    e = c->lnext[e - 1])
					p[k++] = c->lv[e - 1];
				off[r + 1] = (int32_t)(k * 8);
			}
			s->values = p;
			s->offsets = off;
			s->validity = NULL;
			break;
		}
		case ST_SA:
		case ST_QS: {
			int rc = sl_strings(A, i, g0, n, bu, s);

			if (rc != 0)
				return rc;
			break;
		}
		}
	}
	return 0;
}

/* Key columns of chunk c as views into batch b. */
static void
keys_of(struct agg *A, struct core_batch *b, uint32_t c)
{
	uint32_t i;

	for (i = 0; i < A->nk; i++)
		view(&b->cols[i], &A->chunks[c].cols[i]);
}

static int
sum_fits(struct agg *A, const struct core_agg_a *a, __int128 w, int64_t n)
{
	/* 10^38 - 1, the largest decimal(38,s) holds. */
	const __int128 lim = (__int128)9999999999999999999ull *
	    (__int128)10000000000000000000ull + 9999999999999999999ull;
	char tn[CORE_TYPE_NAME_MAX];

	if ((n & SUM_OVERFLOW) || (a->rt.id == CORE_TYPE_DECIMAL128 ?
	    (w > lim || w < -lim) : (w > INT64_MAX || w < INT64_MIN)))
		return core_err_set(A->err, CORE_EDATA, "%s: sum overflows "
		    "%s", A->plan->out->fields[A->nk + (a - A->P->aggs)].name,
		    core_type_name(a->rt, tn));
	return 0;
}

/*
 * Defines name(c, a, n, k): reorders a[0..n) so that a[k] is its k-th
 * smallest (0-based) under LT(c, x, y), none before it above it and none
 * after it below it (Hoare's selection).  One body for two orders: the
 * values' own, where LT is a plain < and c goes unused, and ST_QS log
 * entries' bytes.
 */
#define NTH_DEFINE(name, LT)						\
static void								\
name(const struct acc *c, int64_t *a, size_t n, size_t k)		\
{									\
	ptrdiff_t lo = 0, hi = (ptrdiff_t)n - 1, kk = (ptrdiff_t)k;	\
									\
	(void)c;							\
	while (lo < hi) {						\
		int64_t x = a[lo], y = a[lo + (hi - lo) / 2], z = a[hi];\
		int64_t p, t;						\
		ptrdiff_t i = lo, j = hi;				\
									\
		/* The median of three: never the extreme of the	\
		 * range, so both scans stop inside it. */		\
		p = LT(c, x, y) ? (LT(c, y, z) ? y : LT(c, x, z) ? z : x) :\
		    (LT(c, x, z) ? x : LT(c, y, z) ? z : y);		\
		while (i <= j) {					\
			while (LT(c, a[i], p))				\
				i++;					\
			while (LT(c, p, a[j]))				\
				j--;					\
			if (i <= j) {					\
				t = a[i];				\
				a[i++] = a[j];				\
				a[j--] = t;				\
			}						\
		}							\
		if (kk <= j)						\
			hi = j;						\
		else if (kk >= i)					\
			lo = i;						\
		else							\
			return;						\
	}								\
}

#define NTH_LT_VALUE(c, x, y) ((x) < (y))
NTH_DEFINE(nth, NTH_LT_VALUE)

/* Group g's values of ST_Q aggregate c gathered into A->qs: their
 * number. */
static size_t
q_gather(struct agg *A, const struct acc *c, uint32_t g)
{
	size_t k = (size_t)c->n[g], j = 0;
	uint64_t e;

	if (k > A->qscap) {
		size_t old = A->qscap;

		A->qs = core_xreallocarray(A->qs, k, sizeof(*A->qs));
		A->qscap = k;
		/* The output must be made: charged, never refused. */
		core_mem_part_charge(&A->p_out, (uint64_t)(k - old) * 8);
	}
	for (e = (uint64_t)c->i[g]; e != 0; e = c->lnext[e - 1])
		A->qs[j++] = c->lv[e - 1];
	return k;
}

/*
 * Output value r (of vals, the result type's array) of ST_Q aggregate a
 * over v[0..k), k > 0, as DuckDB computes it: quantile_disc takes the
 * value at ceil(k * q) - 1 (at least 0) in ascending order;
 * quantile_cont (and median, q = 0.5) the values lo, hi at floor and
 * ceil of (k - 1) * q and interpolates by its fraction f: in doubles
 * for integers and doubles (lo + (hi - lo) * f), in the decimal's
 * integers for decimals (lo + trunc((hi - lo) * f)), in microseconds
 * rounded half away from zero for dates and timestamps.
 */
static void
q_result(const struct core_agg_a *a, int64_t *v, size_t k, void *vals,
    uint32_t r)
{
	enum core_type t = a->at.id;
	size_t i, fi, ci;
	double rn, f;
	int64_t lo, hi;

	if (a->fn == CORE_AGG_QUANTILE_DISC) {
		fi = (size_t)ceil((double)k * a->q);
		fi = fi > 0 ? fi - 1 : 0;
		if (fi > k - 1)
			fi = k - 1;
		nth(NULL, v, k, fi);
		if (core_type_width(a->rt.id) == 4)
			((int32_t *)vals)[r] = (int32_t)v[fi];
		else if (t == CORE_TYPE_FLOAT64)
			((double *)vals)[r] = f_unkey(v[fi]);
		else
			((int64_t *)vals)[r] = v[fi];
		return;
	}
	rn = (double)(k - 1) * a->q;
	fi = (size_t)floor(rn);
	ci = (size_t)ceil(rn);
	f = rn - (double)fi;
	nth(NULL, v, k, fi);
	lo = hi = v[fi];
	if (ci != fi)
		for (hi = v[fi + 1], i = fi + 2; i < k; i++)
			if (v[i] < hi)
				hi = v[i];
	switch (t) {
	case CORE_TYPE_INT32:
	case CORE_TYPE_INT64:
		((double *)vals)[r] = ci == fi ? (double)lo : (double)lo +
		    ((double)hi - (double)lo) * f;
		break;
	case CORE_TYPE_FLOAT64: {
		double dl = f_unkey(lo), dh = f_unkey(hi);

		((double *)vals)[r] = ci == fi ? dl : dl + (dh - dl) * f;
		break;
	}
	case CORE_TYPE_DECIMAL:
		/* Both below 10^18 in magnitude: the difference fits. */
		((int64_t *)vals)[r] = ci == fi ? lo : lo +
		    (int64_t)((double)(hi - lo) * f);
		break;
	default:		/* date, timestamp: a timestamp */
		if (t == CORE_TYPE_DATE) {
			lo *= INT64_C(86400000000);
			hi *= INT64_C(86400000000);
		}
		((int64_t *)vals)[r] = ci == fi ? lo : (int64_t)llround(
		    (double)lo + ((double)hi - (double)lo) * f);
		break;
	}
}

static inline int
e_cmp(const struct acc *c, int64_t x, int64_t y)
{
	return s_cmp(c->lb + c->lv[x], c->lsz[x], c->lb + c->lv[y],
	    c->lsz[y]);
}

/* nth's selection over log entries of c, by their bytes. */
#define NTH_LT_ENTRY(c, x, y) (e_cmp((c), (x), (y)) < 0)
NTH_DEFINE(nth_e, NTH_LT_ENTRY)

/*
 * o = ST_QS aggregate i's results of groups [g0, g0 + n), in bu:
 * quantile_disc (and median of strings) the value at ceil(k q) - 1 as
 * q_result; quantile_cont of decimal(p > 18) interpolated in doubles
 * and truncated, as DuckDB does at that width: lo (1 - f) + hi f (hi -
 * lo may pass 128 bits).
 */
static void
qs_results(struct agg *A, uint32_t i, uint32_t g0, uint32_t n,
    struct sbuf *bu, struct core_column *o)
{
	const struct core_agg_a *a = &A->P->aggs[i];
	const struct acc *c = &A->acc[i];
	bool str = a->rt.id == CORE_TYPE_STRING;
	uint8_t *v = NULL;
	int32_t *off = NULL;
	char *p = sbuf_vals(bu, str ? 8 : (size_t)n * 16);
	uint32_t r;

	if (str) {
		core_grow_aligned((void **)&bu->off, &bu->ocap,
		    ((size_t)n + 1) * 4);
		off = bu->off;
		off[0] = 0;
	}
	for (r = 0; r < n; r++) {
		size_t k = sl_gather(A, c, g0 + r), fi, ci, j;
		int64_t lo, hi;
		double rn, f;

		if (k == 0) {
			if (v == NULL)
				v = sbuf_valid(bu, n);
			clear_bit(v, r);
			if (str)
				off[r + 1] = off[r];
			else
				core_i128_store(p + 16 * (size_t)r, 0);
			continue;
		}
		if (a->fn != CORE_AGG_QUANTILE_CONT && (str ||
		    a->fn == CORE_AGG_QUANTILE_DISC)) {
			fi = (size_t)ceil((double)k * a->q);
			fi = fi > 0 ? fi - 1 : 0;
			if (fi > k - 1)
				fi = k - 1;
			nth_e(c, A->qs, k, fi);
			lo = A->qs[fi];
			if (!str) {
				core_i128_store(p + 16 * (size_t)r,
				    w_unkey(c->lb + c->lv[lo]));
				continue;
			}
			/* Grown a value at a time: p moves. */
			p = sbuf_vals(bu, (size_t)off[r] + c->lsz[lo]);
			if (c->lsz[lo] > 0)
				memcpy(p + off[r], c->lb + c->lv[lo],
				    c->lsz[lo]);
			off[r + 1] = off[r] + (int32_t)c->lsz[lo];
			continue;
		}
		rn = (double)(k - 1) * a->q;
		fi = (size_t)floor(rn);
		ci = (size_t)ceil(rn);
		f = rn - (double)fi;
		nth_e(c, A->qs, k, fi);
		lo = hi = A->qs[fi];
		if (ci != fi)
			for (hi = A->qs[fi + 1], j = fi + 2; j < k; j++)
				if (e_cmp(c, A->qs[j], hi) < 0)
					hi = A->qs[j];
		{
			__int128 wl = w_unkey(c->lb + c->lv[lo]);
			__int128 wh = w_unkey(c->lb + c->lv[hi]);

			core_i128_store(p + 16 * (size_t)r, ci == fi ? wl :
			    (__int128)((double)wl * (1 - f) +
			    (double)wh * f));
		}
	}
	view(o, o);
	o->values = p;
	o->offsets = off;
	o->validity = v;
}

/* A->ob = the output rows of groups [g0, g0 + n). */
static int
results_of(struct agg *A, uint32_t g0, uint32_t n)
{
	struct core_batch *ob = &A->ob;
	uint32_t i, r;
	int rc;

	ob->nrows = n;
	for (i = 0; i < A->na; i++) {
		const struct core_agg_a *a = &A->P->aggs[i];
		struct core_column *o = &ob->cols[A->nk + i];
		struct sbuf *bu = &A->obufs[A->nk + i];
		struct acc *c = &A->acc[i];
		uint8_t *v = NULL;
		size_t w = core_type_width(a->rt.id);
		void *vals = a->st == ST_VS || a->st == ST_SA ||
		    (a->st == ST_QS && w == 0) ? NULL : sbuf_vals(bu,
		    (size_t)n * w);

		view(o, o);
#define NUL(r) do {							\
	if (v == NULL)							\
		v = sbuf_valid(bu, n);					\
	clear_bit(v, (r));						\
} while (0)
		switch (a->st) {
		case ST_CNT:
			memcpy(vals, c->n + g0, (size_t)n * 8);
			break;
		case ST_SUMI:
			for (r = 0; r < n; r++) {
				uint32_t g = g0 + r;

				if (c->n[g] == 0) {
					NUL(r);
					if (a->fn == CORE_AGG_AVG)
						((double *)vals)[r] = 0;
					else if (a->rt.id == CORE_TYPE_DECIMAL128)
						core_i128_store((char *)vals +
						    16 * (size_t)r, 0);
					else
						((int64_t *)vals)[r] = 0;
				} else if (a->fn == CORE_AGG_AVG) {
					long double sc = core_type_is_decimal(
					    a->at.id) ? powl(10, a->at.scale) : 1;

					if (c->n[g] & SUM_OVERFLOW)
						return sum_fits(A, a, 0,
						    c->n[g]);
					((double *)vals)[r] = (double)
					    ((long double)c->w[g] /
					    c->n[g] / sc);
				} else {
					if ((rc = sum_fits(A, a, c->w[g],
					    c->n[g])) != 0)
						return rc;
					if (a->rt.id == CORE_TYPE_DECIMAL128)
						core_i128_store((char *)vals +
						    16 * (size_t)r, c->w[g]);
					else
						((int64_t *)vals)[r] =
						    (int64_t)c->w[g];
				}
			}
			break;
		case ST_SUMF:
			for (r = 0; r < n; r++) {
				uint32_t g = g0 + r;

				((double *)vals)[r] = c->n[g] == 0 ? 0 :
				    a->fn == CORE_AGG_AVG ?
				    c->d[g] / (double)c->n[g] : c->d[g];
				if (c->n[g] == 0)
					NUL(r);
			}
			break;
		case ST_VAR:
			for (r = 0; r < n; r++) {
				uint32_t g = g0 + r;
				bool samp = a->fn == CORE_AGG_VAR_SAMP ||
				    a->fn == CORE_AGG_STDDEV_SAMP;
				int64_t k = c->n[g];
				double x;

				if (k == 0 || (samp && k < 2)) {
					NUL(r);
					((double *)vals)[r] = 0;
					continue;
				}
				x = c->m2[g] / (double)(samp ? k - 1 : k);
				if (x < 0)
					x = 0;
				if (a->fn == CORE_AGG_STDDEV_SAMP ||
				    a->fn == CORE_AGG_STDDEV_POP)
					x = sqrt(x);
				((double *)vals)[r] = x;
			}
			break;
		case ST_VI:
			for (r = 0; r < n; r++) {
				uint32_t g = g0 + r;
				int64_t x = c->has[g] ? c->i[g] : 0;

				if (!c->has[g])
					NUL(r);
				if (w == 1)
					((uint8_t *)vals)[r] = (uint8_t)x;
				else if (w == 4)
					((int32_t *)vals)[r] = (int32_t)x;
				else
					((int64_t *)vals)[r] = x;
			}
			break;
		case ST_VF:
			for (r = 0; r < n; r++) {
				uint32_t g = g0 + r;

				((double *)vals)[r] = c->has[g] ? c->d[g] : 0;
				if (!c->has[g])
					NUL(r);
			}
			break;
		case ST_VW:
			for (r = 0; r < n; r++) {
				uint32_t g = g0 + r;

				core_i128_store((char *)vals + 16 * (size_t)r,
				    c->has[g] ? c->w[g] : 0);
				if (!c->has[g])
					NUL(r);
			}
			break;
		case ST_BOOL:
			for (r = 0; r < n; r++) {
				uint32_t g = g0 + r;

				((uint8_t *)vals)[r] = c->has[g] ? c->b[g] : 0;
				if (!c->has[g])
					NUL(r);
			}
			break;
		case ST_Q:
			for (r = 0; r < n; r++) {
				uint32_t g = g0 + r;

				if (c->n[g] == 0) {
					NUL(r);
					memset((char *)vals + w * r, 0, w);
					continue;
				}
				q_result(a, A->qs, q_gather(A, c, g), vals, r);
			}
			break;
		case ST_SA:
			if ((rc = sl_strings(A, i, g0, n, bu, o)) != 0)
				return rc;
			vals = (void *)o->values;
			v = o->validity;
			break;
		case ST_QS:
			qs_results(A, i, g0, n, bu, o);
			vals = (void *)o->values;
			v = o->validity;
			break;
		case ST_VS: {
			size_t tot = 0;
			int32_t *off;
			char *p;

			for (r = 0; r < n; r++)
				if (c->has[g0 + r])
					tot += (size_t)c->n[g0 + r];
			core_grow_aligned((void **)&bu->off, &bu->ocap,
			    ((size_t)n + 1) * 4);
			off = bu->off;
			p = sbuf_vals(bu, tot);
			off[0] = 0;
			for (r = 0; r < n; r++) {
				size_t len = c->has[g0 + r] ?
				    (size_t)c->n[g0 + r] : 0;

				if (len > 0)
					memcpy(p + off[r], A->arena +
					    c->i[g0 + r], len);
				off[r + 1] = off[r] + (int32_t)len;
				if (!c->has[g0 + r])
					NUL(r);
			}
			vals = p;
			o->offsets = off;
			break;
		}
		}
#undef NUL
		o->values = vals;
		o->validity = v;
	}
	return 0;
}

/* Bytes of the output scratch, charged to the output part as it grows
 * (it cannot be refused: the output must be made). */
static void
out_charge(struct agg *A)
{
	uint64_t tot = 0;
	uint32_t i;

	for (i = 0; i < A->ob.ncols; i++)
		tot += A->obufs[i].vcap + A->obufs[i].ocap +
		    A->obufs[i].valcap;
	if (tot > A->out_charged) {
		core_mem_part_charge(&A->p_out, tot - A->out_charged);
		A->out_charged = tot;
	}
}

/* Emits groups [0, end) of the table. */
static int
table_emit_to(struct agg *A, uint32_t end)
{
	uint32_t g0, c = 0;
	int rc;

	for (g0 = 0; g0 < end; g0 += A->chunk, c++) {
		uint32_t n = end - g0 < A->chunk ? end - g0 : A->chunk;

		if (A->states_out) {
			keys_of(A, &A->sb, c);
			if ((rc = states_of(A, g0, n)) != 0)
				return rc;
			A->st->groups += n;
			if ((rc = emit_out(A, &A->sb)) != 0)
				return rc;
			continue;
		}
		if (A->nk > 0)
			keys_of(A, &A->ob, c);
		if ((rc = results_of(A, g0, n)) != 0)
			return rc;
		out_charge(A);
		A->st->groups += n;
		if ((rc = emit_out(A, &A->ob)) != 0)
			return rc;
	}
	return 0;
}

static int
table_emit(struct agg *A)
{
	return table_emit_to(A, A->ngroups);
}

/* ---- partitions ---- */

static uint64_t
level_seed(unsigned level)
{
	return 0x9e3779b97f4a7c15ull * level + 0x632be59bd9b4e019ull;
}

/* Routes state batch sb into set p under the level's seed. */
static int
route(struct agg *A, struct core_part *p, const struct core_batch *sb,
    unsigned level)
{
	uint32_t n = sb->nrows, np = core_part_count(p), i;

	if (n == 0)
		return 0;
	scratch(A, n);
	core_hash_batch(&A->hk_state, sb, NULL, n, level_seed(level),
	    A->hash, NULL);
	for (i = 0; i < n; i++)
		A->part_of[i] = (uint32_t)(((A->hash[i] >> 32) *
		    (uint64_t)np) >> 32);
	return core_part_add(p, sb, A->part_of, A->err);
}

/* Writes the table's states to p and frees the table (keep: empties
 * it, its memory kept for the next groups). */
static int
table_spill(struct agg *A, struct core_part *p, unsigned level, bool keep)
{
	uint32_t g0, c = 0;
	int rc = 0;

	for (g0 = 0; g0 < A->ngroups; g0 += A->chunk, c++) {
		uint32_t n = A->ngroups - g0 < A->chunk ? A->ngroups - g0 :
		    A->chunk;

		keys_of(A, &A->sb, c);
		if ((rc = states_of(A, g0, n)) != 0 ||
		    (rc = route(A, p, &A->sb, level)) != 0)
			break;
	}
	if (keep && rc == 0)
		table_clear(A);
	else
		table_free(A);
	return rc;
}

static uint32_t
fanout(const struct agg *A, uint64_t bytes)
{
	uint64_t most = A->p_part.cap / PART_BUF_MIN, want;
	uint64_t room = A->p_tab.cap / (A->nthreads > 1 ? A->nthreads : 1);

	if (most > PARTS_MAX)
		most = PARTS_MAX;
	if (most < 2)
		most = 2;
	if (bytes == 0)
		return (uint32_t)(most < 16 * A->nthreads ? most :
		    16 * A->nthreads);
	want = bytes / (room / 2 + 1) + 1;
	if (want < 2)
		want = 2;
	return (uint32_t)(want < most ? want : most);
}

static void
phase(struct agg *A, const char *what, unsigned i, unsigned n)
{
	if (A->o->phase == NULL)
		return;
	if (A->par != NULL)
		pthread_mutex_lock(&A->par->out);
	A->o->phase(A->o->phase_arg, what, i, n);
	if (A->par != NULL)
		pthread_mutex_unlock(&A->par->out);
}

static int merge_part(struct agg *A, struct core_part *p, uint32_t k,
    unsigned level);

/* ---- a group too big for the budget ---- */

/*
 * What one group's rows hold, measured from its state rows (too_big):
 * the raw bytes of its key, and of each aggregate's values.
 */
struct gneed {
	uint64_t key;		/* the key's strings' bytes */
	uint64_t vs_batch;	/* most ST_VS bytes of one batch */
	uint64_t *bytes;	/* per aggregate: ST_Q/SA/QS values' bytes,
				 * ST_VS the widest value */
	uint64_t *items;	/* per aggregate: ST_SA/QS log entries */
};

/* Adds the rows of state batch sb that are the group of hash h (every
 * row without keys) to N. */
static void
need_add(struct agg *A, struct gneed *N, const struct core_batch *sb,
    uint64_t h)
{
	uint32_t n = sb->nrows, r, i;
	uint64_t vs = 0;

	if (n == 0)
		return;
	if (A->nk > 0) {
		scratch(A, n);
		core_hash_batch(&A->hk_state, sb, NULL, n, 0, A->hash, NULL);
	}
	for (r = 0; r < n; r++) {
		uint64_t key = 0;

		if (A->nk > 0 && A->hash[r] != h)
			continue;
		for (i = 0; i < A->nk; i++)
			if (core_type_width(sb->cols[i].type.id) == 0)
				key += (uint64_t)(sb->cols[i].offsets[r + 1] -
				    sb->cols[i].offsets[r]);
		if (key > N->key)
			N->key = key;
		for (i = 0; i < A->na; i++) {
			const struct core_agg_a *a = &A->P->aggs[i];
			const struct core_column *c = &sb->cols[a->scol];
			const char *x = c->values;
			uint64_t len;
			int32_t j;

			if (a->st != ST_VS && a->st != ST_Q &&
			    a->st != ST_SA && a->st != ST_QS)
				continue;
			if (!valid_at(c->validity, r))
				continue;
			len = (uint64_t)(c->offsets[r + 1] - c->offsets[r]);
			if (a->st == ST_VS) {
				vs += len;
				if (len > N->bytes[i])
					N->bytes[i] = len;
				continue;
			}
			N->bytes[i] += len;
			if (a->st == ST_SA)
				N->items[i]++;
			if (a->st != ST_QS)
				continue;
			for (j = c->offsets[r]; j < c->offsets[r + 1];
			    N->items[i]++) {
				uint32_t il;

				memcpy(&il, x + j, 4);
				j += 4 + (int32_t)il;
			}
		}
	}
	if (vs > N->vs_batch)
		N->vs_batch = vs;
}

/*
 * Sets the message for a group N describes that does not fit A's table:
 * what of it is biggest, and the budget whose table holds it, from the
 * table's own growth: a key's and a value's strings grow by doubling
 * (twice the bytes), an arena has room for a batch's values beside the
 * kept one, a median's value takes 16 bytes in its log (8 and a link),
 * a string_agg's or a string quantile's entry 20 beside its bytes, each
 * log doubling; a chunk of CHUNK_MIN groups' fixed states at least (at
 * most a sixteenth of the table), the hash table's first size.  The table is half of the budget, a quarter
 * with DISTINCT (two phases) or with two threads sharing the
 * partitions.  CORE_ELIMIT.
 */
static int
need_say(struct agg *A, const struct gneed *N)
{
	uint64_t mib = (uint64_t)1 << 20, tab, most = N->key, l;
	unsigned thr = A->nk > 0 ? core_pool_threads(A->o->pool) : 1, i;
	unsigned phases = A->states_out || A->P->pre != NULL ? 2 : 1;
	const char *name = NULL;
	uint8_t what = 0;

	tab = (uint64_t)A->nk * 64 + 2 * N->key + 2 * N->vs_batch + 64 +
	    CHUNK_MIN * ((uint64_t)key_row_bytes(A) + A->P->group_bytes) +
	    HTAB_FIRST;
	for (i = 0; i < A->na; i++) {
		uint8_t st = A->P->aggs[i].st;
		uint64_t b = N->bytes[i], e = N->items[i];

		if (st == ST_VS)
			tab += 2 * b;
		else if (st == ST_Q)
			tab += 4 * b + 256;
		else if (st == ST_SA || st == ST_QS)
			tab += 2 * b + 64 + 40 * e + 320;
		else
			continue;
		if (b > most) {
			most = b;
			what = st;
			name = A->plan->out->fields[A->nk + i].name;
		}
	}
	l = (tab + tab / 15) * 2 * (thr > phases ? thr : phases);
	l = (l + mib - 1) / mib + 1;
	A->st->need_mem = l * mib;
	if (what == 0)
		return core_err_set(A->err, CORE_ELIMIT, "one group's key%s "
		    "is %llu bytes, more than the memory budget (%llu bytes) "
		    "lets a group take: give -m %lluM or more",
		    A->states_out ? ", with its DISTINCT value," : "",
		    (unsigned long long)most, (unsigned long long)A->budget,
		    (unsigned long long)l);
	/* The first phase's aggregates are not the output's. */
	if (A->states_out)
		name = "an aggregate beside DISTINCT";
	return core_err_set(A->err, CORE_ELIMIT, "%s: one group's %s %llu "
	    "bytes, more than the memory budget (%llu bytes) lets a group "
	    "take: give -m %lluM or more", name, what == ST_VS ?
	    "value is" : "values take", (unsigned long long)most,
	    (unsigned long long)A->budget, (unsigned long long)l);
}

/*
 * Partition run's rows of the group a full table held alone (g0_hash),
 * measured: CORE_ELIMIT with the budget that holds the group, or the
 * error that stopped the reading.  The table is freed first.
 */
static int read_open(struct agg *A, struct core_spill *sp,
    struct core_spill_cursor *c, const struct core_spill_run *run);
static int read_frame(struct agg *A, struct core_spill *sp,
    struct core_spill_cursor *c, struct core_spill_frame *f);

static int
too_big(struct agg *A, struct core_spill *sp, const struct core_spill_run *run,
    struct core_spill_frame *f)
{
	struct core_spill_cursor cur;
	struct gneed N;
	uint64_t h = A->g0_hash;
	int rc;

	table_free(A);
	memset(&N, 0, sizeof(N));
	N.bytes = core_xcalloc(A->na + 1, sizeof(*N.bytes));
	N.items = core_xcalloc(A->na + 1, sizeof(*N.items));
	if ((rc = read_open(A, sp, &cur, run)) == 0) {
		while ((rc = read_frame(A, sp, &cur, f)) == 0)
			need_add(A, &N, &f->batch, h);
		if (rc == CORE_EOF)
			rc = need_say(A, &N);
	}
	free(N.bytes);
	free(N.items);
	return rc;
}

/*
 * Whether the table, just full, cannot be split: it holds one group (or
 * none) and every row of sb, the batch it refused, is that group's.
 * Then g0_hash is the group's.
 */
static bool
cannot_split(struct agg *A, const struct core_batch *sb)
{
	uint32_t n = sb->nrows, r;
	uint64_t h;

	if (A->nk == 0 || A->ngroups > 1 || n == 0)
		return false;
	scratch(A, n);
	core_hash_batch(&A->hk_state, sb, NULL, n, 0, A->hash, NULL);
	h = A->ngroups == 1 ? A->g0_hash : A->hash[0];
	for (r = 0; r < n; r++)
		if (A->hash[r] != h)
			return false;
	A->g0_hash = h;
	return true;
}

/* The spill set's cursor and frame reads, under io. */
static int
read_open(struct agg *A, struct core_spill *sp, struct core_spill_cursor *c,
    const struct core_spill_run *run)
{
	int rc;

	io_lock(A);
	rc = core_spill_cursor_open(sp, c, run, A->err);
	io_unlock(A);
	return rc;
}

static int
read_frame(struct agg *A, struct core_spill *sp, struct core_spill_cursor *c,
    struct core_spill_frame *f)
{
	int rc;

	io_lock(A);
	rc = core_spill_read_frame(sp, c, f, &A->p_frame, A->err);
	io_unlock(A);
	return rc;
}

/* Aggregates the partitions of set p (of the given level) one by one. */
static int
merge_set(struct agg *A, struct core_part *p, unsigned level)
{
	uint32_t k, np = core_part_count(p);
	int rc;

	A->st->partitions += np;
	if (level > A->st->levels)
		A->st->levels = level;
	for (k = 0; k < np; k++) {
		if (level == 1)
			phase(A, "merging", k + 1, np);
		rc = merge_part(A, p, k, level);
		io_lock(A);
		core_part_retire(p, k);
		io_unlock(A);
		if (rc != 0)
			return rc;
	}
	return 0;
}

/* Aggregates partition k of p; re-partitions it when it fills the
 * table. */
static int
merge_part(struct agg *A, struct core_part *p, uint32_t k, unsigned level)
{
	struct core_spill *sp = core_part_spill(p);
	struct core_spill_cursor cur;
	struct core_spill_frame f;
	struct core_part *q = NULL;
	int rc;

	if (core_part_rows(p, k) == 0)
		return 0;
	memset(&f, 0, sizeof(f));
	core_batch_init(&f.batch, A->P->state);
	if (A->kept)
		A->kept = false;	/* emptied, as table_init makes it */
	else
		table_init(A, false);
again:
	if ((rc = read_open(A, sp, &cur, core_part_run(p, k))) != 0)
		goto out;
	while ((rc = read_frame(A, sp, &cur, &f)) == 0)
		if ((rc = consume_part(A, &f.batch)) != 0)
			break;
	if (rc == CORE_EOF) {
		rc = table_emit(A);
		goto out;
	}
	if (rc != CORE_ELIMIT)
		goto out;
	if (cannot_split(A, &f.batch)) {
		if (!A->lenient) {
			/* Under a small budget the spill frame and the
			 * partition buffers may leave the table less than
			 * its half: once more, with only the half to keep
			 * to, before the group is taken for too big. */
			table_free(A);
			A->lenient = true;
			table_init(A, false);
			goto again;
		}
		rc = too_big(A, sp, core_part_run(p, k), &f);
		goto out;
	}
	A->lenient = false;
	if (level >= MAX_LEVEL) {
		rc = core_err_set(A->err, CORE_EINTERNAL, "a partition of "
		    "many groups did not split in %u levels", level);
		goto out;
	}
	/* Too big: start this partition again, split under the next
	 * level's seed.  The space of the partitions done is given back
	 * first (until something more is written it lowers no peak: a
	 * partition done is only retired), and this one's once split. */
	table_free(A);
	io_lock(A);
	core_part_discard_retired(p);
	q = core_part_new_in(sp, fanout(A, core_part_run(p, k)->len),
	    &A->p_part);
	io_unlock(A);
	if ((rc = read_open(A, sp, &cur, core_part_run(p, k))) != 0)
		goto out;
	while ((rc = read_frame(A, sp, &cur, &f)) == 0) {
		io_lock(A);
		rc = route(A, q, &f.batch, level + 1);
		io_unlock(A);
		if (rc != 0)
			goto out;
	}
	if (rc != CORE_EOF)
		goto out;
	core_spill_frame_release(&f, &A->p_frame);
	io_lock(A);
	if ((rc = core_part_finish(q, A->err)) == 0)
		core_part_discard(p, k);
	io_unlock(A);
	if (rc != 0)
		goto out;
	rc = merge_set(A, q, level + 1);
out:
	/* The next partition fills the same memory again: no growth from
	 * nothing, no fresh pages, for each of many partitions.  Not a
	 * lenient table, nor one a lenient table of a partition split from
	 * this one left (their hash tables are charged by hand), nor in a
	 * DISTINCT plan's first phase, whose emits feed the second's table
	 * under the same budget. */
	if (rc == 0 && !A->lenient && !A->states_out && A->nk > 0 &&
	    A->ht.mem == &A->p_tab) {
		table_clear(A);
		A->kept = true;
	} else {
		table_free(A);
	}
	A->lenient = false;
	core_spill_frame_release(&f, &A->p_frame);
	core_batch_release(&f.batch);
	io_lock(A);
	/* Its space back in one go: it shares the spill set, which lives
	 * on. */
	if (q != NULL)
		core_part_discard_retired(q);
	core_part_free(q);
	io_unlock(A);
	return rc;
}

/* A table between spills needs this many rows a group to pay. */
#define HYBRID_GAIN 2

/* Aggregates raw batch ib (of the plan's input schema); spills when the
 * table is full, and from then on either fills a fresh table between
 * spills (keys that cluster: hybrid) or routes every batch to the
 * partitions. */
static int
push(struct agg *A, const struct core_batch *ib)
{
	int rc;

	if (ib->nrows == 0)
		return 0;
	if (A->top == NULL || A->hybrid) {
		to_state(A, ib, true);
		if ((rc = consume(A, &A->sb, true)) != CORE_ELIMIT ||
		    A->forced) {
			A->since += rc == 0 ? ib->nrows : 0;
			return rc;
		}
		if (A->top == NULL) {
			phase(A, "partitioning", 0, 0);
			A->top = core_part_new(A->P->state,
			    fanout(A, A->size_hint), A->o->tmpdirs,
			    A->o->ntmpdirs, A->o->max_spill,
			    A->o->compress_spill ? 1 : 0, &A->p_part);
		}
		/* Rows that came HYBRID_GAIN or more to a group while the
		 * table filled (keys clustered, as lineitem's by order,
		 * or a few hot ones) make a table between spills pay: a
		 * spill writes each group once, not each row.  Otherwise
		 * every row goes to the partitions from now on. */
		A->hybrid = A->since >= HYBRID_GAIN * (uint64_t)A->ngroups;
		A->since = 0;
		A->st->tables++;
		if ((rc = table_spill(A, A->top, 1, A->hybrid)) != 0)
			return rc;
		if (A->hybrid) {
			to_state(A, ib, true);
			if ((rc = consume(A, &A->sb, true)) != CORE_ELIMIT) {
				A->since += rc == 0 ? ib->nrows : 0;
				return rc;
			}
			/* An empty table refused it: no table from now
			 * on.  The groups it made have no values yet (the
			 * whole batch goes to the partitions below). */
			table_free(A);
			A->hybrid = false;
		}
		/* table_spill reused sb: make it this batch's states
		 * (all of them: it goes to the partitions). */
	}
	to_state(A, ib, false);
	return route(A, A->top, &A->sb, 1);
}

static struct agg *agg_new(const struct core_agg_options *o,
    const struct core_agg_plan_priv *P, struct core_mem *mem, uint64_t limit,
    core_agg_emit_fn emit, void *arg, struct core_agg_stats *st,
    struct core_err *err, int *rc);
static void agg_free(struct agg *A);

/* A thread of par_merge: the top set's partitions, one at a time, until
 * none is left or one has failed. */
static void
par_work(void *arg, unsigned who)
{
	struct par *R = arg;
	struct agg *W = R->w[who];
	struct core_part *top = R->A->top;
	uint32_t k;
	int rc;

	for (;;) {
		pthread_mutex_lock(&R->io);
		if (R->rc != 0 || R->next == R->np) {
			pthread_mutex_unlock(&R->io);
			return;
		}
		k = R->next++;
		pthread_mutex_unlock(&R->io);
		phase(W, "merging", k + 1, R->np);
		rc = merge_part(W, top, k, 1);
		pthread_mutex_lock(&R->io);
		core_part_retire(top, k);
		if (rc != 0 && R->rc == 0) {
			R->rc = rc;
			R->first = *W->err;
		}
		pthread_mutex_unlock(&R->io);
		if (rc != 0)
			return;
	}
}

/* merge_set of A's top set on A->nthreads tables at once, each within
 * an equal share of what A's budget has left. */
static int
par_merge(struct agg *A)
{
	struct par R;
	unsigned n = A->nthreads, i;
	uint64_t share = A->mem->limit == CORE_MEM_UNLIMITED ?
	    CORE_MEM_UNLIMITED : core_mem_available(A->mem) / n, peak = 0;
	int rc = 0;

	memset(&R, 0, sizeof(R));
	R.A = A;
	R.n = n;
	R.np = core_part_count(A->top);
	A->st->partitions += R.np;
	if (A->st->levels < 1)
		A->st->levels = 1;
	R.w = core_xcalloc(n, sizeof(*R.w));
	R.mem = core_xcalloc(n, sizeof(*R.mem));
	R.err = core_xcalloc(n, sizeof(*R.err));
	R.st = core_xcalloc(n, sizeof(*R.st));
	pthread_mutex_init(&R.io, NULL);
	pthread_mutex_init(&R.out, NULL);
	for (i = 0; i < n && rc == 0; i++) {
		core_mem_init(&R.mem[i], share);
		R.w[i] = agg_new(A->o, A->P, &R.mem[i], share, A->emit,
		    A->emit_arg, &R.st[i], &R.err[i], &rc);
		if (R.w[i] != NULL) {
			R.w[i]->par = &R;
			R.w[i]->budget = A->budget;
		}
		else
			*A->err = R.err[i];
	}
	if (rc == 0) {
		core_pool_run(A->o->pool, n, par_work, &R);
		if ((rc = R.rc) != 0)
			*A->err = R.first;
	}
	for (i = 0; i < n; i++) {
		if (R.w[i] == NULL)
			continue;
		agg_free(R.w[i]);
		A->st->groups += R.st[i].groups;
		A->st->partitions += R.st[i].partitions;
		if (R.st[i].need_mem > A->st->need_mem)
			A->st->need_mem = R.st[i].need_mem;
		if (R.st[i].levels > A->st->levels)
			A->st->levels = R.st[i].levels;
		peak += R.mem[i].peak;
	}
	/* The shares' peaks may not have come at once: an upper bound. */
	if (A->mem->used + peak > A->mem->peak)
		A->mem->peak = A->mem->used + peak;
	pthread_mutex_destroy(&R.io);
	pthread_mutex_destroy(&R.out);
	free(R.w);
	free(R.mem);
	free(R.err);
	free(R.st);
	return rc;
}

/* After the last push: emits every group. */
static int
finish(struct agg *A)
{
	int rc;

	if (A->top == NULL)
		return table_emit(A);
	/* What a hybrid table holds goes where the rest went. */
	if (A->hybrid) {
		A->st->tables += A->ngroups > 0;
		if ((rc = table_spill(A, A->top, 1, false)) != 0)
			return rc;
	}
	if ((rc = core_part_finish(A->top, A->err)) != 0)
		return rc;
	if (A->nthreads > 1 && core_part_count(A->top) > 1)
		return par_merge(A);
	return merge_set(A, A->top, 1);
}

/* The first phase's emit: its groups' states are the second's rows. */
static int
push_next(void *arg, const struct core_batch *b, struct core_err *err)
{
	(void)err;
	return push(arg, b);
}

/*
 * Without keys, the one group's values did not fit (A->sb holds the
 * batch refused): the table's values, that batch's and the rest of the
 * input's measured, CORE_ELIMIT with the budget that holds them (or the
 * error that stopped the reading).
 */
static int
too_big_input(struct agg *A, const struct core_agg_input *in,
    struct core_batch *ib)
{
	struct gneed N;
	uint32_t i;
	int rc;

	memset(&N, 0, sizeof(N));
	N.bytes = core_xcalloc(A->na + 1, sizeof(*N.bytes));
	N.items = core_xcalloc(A->na + 1, sizeof(*N.items));
	for (i = 0; i < A->na; i++) {
		const struct acc *c = &A->acc[i];

		switch (A->P->aggs[i].st) {
		case ST_VS:
			N.bytes[i] = c->has[0] ? (uint64_t)c->n[0] : 0;
			break;
		case ST_Q:
			N.bytes[i] = (uint64_t)c->llen * 8;
			break;
		case ST_SA:
		case ST_QS:
			N.bytes[i] = c->lblen + (A->P->aggs[i].st == ST_QS ?
			    (uint64_t)c->llen * 4 : 0);
			N.items[i] = c->llen;
			break;
		}
	}
	table_free(A);
	need_add(A, &N, &A->sb, 0);
	while ((rc = in->next(in->arg, ib, A->err)) == 0) {
		A->st->rows_in += ib->nrows;
		if (ib->nrows == 0)
			continue;
		to_state(A, ib, false);
		need_add(A, &N, &A->sb, 0);
	}
	if (rc == CORE_EOF)
		rc = need_say(A, &N);
	free(N.bytes);
	free(N.items);
	return rc;
}

/* Reads the whole input, aggregating it (through the first phase when
 * there is one). */
static int
run(struct agg *A, struct agg *A1, const struct core_agg_input *in)
{
	struct agg *first = A1 != NULL ? A1 : A;
	struct core_batch ib;
	int rc;

	core_batch_init(&ib, in->schema);
	table_init(A, A->nk == 0);
	if (A1 != NULL)
		table_init(A1, false);
	phase(A, "aggregating", 0, 0);
	first->ph = in->prehash;
	while ((rc = in->next(in->arg, &ib, A->err)) == 0) {
		const struct core_agg_hashes *h = in->hashes != NULL ?
		    in->hashes(in->arg) : NULL;

		first->st->rows_in += ib.nrows;
		/* Only a table takes them: the one in memory, or one kept
		 * between spills (the same hashes, seed 0). */
		first->pre_h = h != NULL && h->made && h->n == ib.nrows &&
		    (first->top == NULL || first->hybrid) ? h : NULL;
		rc = push(first, &ib);
		first->pre_h = NULL;
		if (first->top != NULL && !first->hybrid &&
		    first->ph != NULL) {
			atomic_store(&first->ph->want, false);
			first->ph = NULL;
		}
		if (rc != 0)
			break;
	}
	first->ph = NULL;
	if (rc == CORE_ELIMIT && A->stuck && A1 == NULL)
		rc = too_big_input(A, in, &ib);
	core_batch_release(&ib);
	if (rc != CORE_EOF)
		return rc;
	if (A1 != NULL && (rc = finish(A1)) != 0)
		return rc;
	return finish(A);
}

/* ---- the sorted path ---- */

/* Keeps only the table's last group, as group 0: the others are
 * complete and emitted. */
static int
carry_last(struct agg *A)
{
	uint32_t last = A->ngroups - 1, i, c;
	size_t tot = 0, pos = 0;
	char *tmp;
	int rc;

	if (last == 0)
		return 0;
	core_batch_reset(&A->carry);
	if ((rc = key_append(A, &A->carry, &A->chunks[last >> A->chunk_shift],
	    last & (A->chunk - 1), 0)) != 0)
		return rc;
	for (c = 0; c < A->nchunks; c++)
		core_batch_reset(&A->chunks[c]);
	if ((rc = key_append(A, &A->chunks[0], &A->carry, 0, 0)) != 0)
		return rc;
	A->chunks[0].nrows = 1;
#define MOVE(p) do {							\
	if ((p) != NULL) {						\
		(p)[0] = (p)[last];					\
		memset((p) + 1, 0, (size_t)last * sizeof(*(p)));	\
	}								\
} while (0)
	/* The last group's strings to the arena's start, through a copy:
	 * they may overlap where they go. */
	for (i = 0; i < A->na; i++)
		if (A->P->aggs[i].st == ST_VS && A->acc[i].has[last])
			tot += (size_t)A->acc[i].n[last];
	tmp = core_xmalloc(tot + 1);
	for (i = 0; i < A->na; i++) {
		struct acc *a = &A->acc[i];

		if (A->P->aggs[i].st != ST_VS || !a->has[last])
			continue;
		if (a->n[last] > 0)
			memcpy(tmp + pos, A->arena + a->i[last],
			    (size_t)a->n[last]);
		a->i[last] = (int64_t)pos;
		pos += (size_t)a->n[last];
	}
	if (tot > 0)
		memcpy(A->arena, tmp, tot);
	A->arena_len = tot;
	free(tmp);
	/* The last group's values to the logs' starts, so that a log holds
	 * one group's values, not the input's. */
	for (i = 0; i < A->na; i++) {
		struct acc *a = &A->acc[i];
		size_t k, j;

		if (A->P->aggs[i].st != ST_Q)
			continue;
		k = q_gather(A, a, last);
		for (j = 0; j < k; j++) {
			a->lv[j] = A->qs[j];
			a->lnext[j] = j;
		}
		a->llen = k;
		a->i[last] = (int64_t)k;
	}
	/* And the last group's strings of string logs, in their order. */
	for (i = 0; i < A->na; i++) {
		struct acc *a = &A->acc[i];
		size_t k, j;

		if (A->P->aggs[i].st != ST_SA && A->P->aggs[i].st != ST_QS)
			continue;
		k = sl_gather(A, a, last);
		for (tot = 0, j = 0; j < k; j++)
			tot += a->lsz[A->qs[j]];
		tmp = core_xmalloc(tot + 1);
		for (pos = 0, j = 0; j < k; j++) {
			uint32_t len = a->lsz[A->qs[j]];

			if (len > 0)
				memcpy(tmp + pos, a->lb + a->lv[A->qs[j]],
				    len);
			a->lv[j] = (int64_t)pos;
			pos += len;
		}
		/* Lengths after offsets: qs[j] >= j, so the loop above read
		 * lsz[qs[j]] before any write below it. */
		for (j = 0; j < k; j++)
			A->qs[j] = a->lsz[A->qs[j]];
		for (j = 0; j < k; j++) {
			a->lsz[j] = (uint32_t)A->qs[j];
			a->lnext[j] = j;
		}
		if (tot > 0)
			memcpy(a->lb, tmp, tot);
		free(tmp);
		a->lblen = tot;
		a->llen = k;
		a->i[last] = (int64_t)k;
	}
	for (i = 0; i < A->na; i++) {
		struct acc *a = &A->acc[i];

		MOVE(a->w);
		MOVE(a->n);
		MOVE(a->i);
		MOVE(a->d);
		MOVE(a->m2);
		MOVE(a->has);
		MOVE(a->b);
	}
#undef MOVE
	A->ngroups = 1;
	return 0;
}

/* CORE_EDATA: row (1-based) of the sorted path's input is out of order. */
static int
out_of_order(struct agg *A, uint64_t row)
{
	return core_err_set(A->err, CORE_EDATA, "row %llu: key below the "
	    "previous row's: the input is not sorted by the group keys",
	    (unsigned long long)row);
}

/*
 * Aggregates input grouped by the keys in colsort's order (ascending,
 * NULLs last): a row starts a group when its key is above the previous
 * row's, and one below is CORE_EDATA.  The table holds the groups of one
 * batch and keeps the last, which the next batch may continue.
 * sorted_begin, then sorted_push for every batch, then sorted_end.
 */
static void
sorted_begin(struct agg *A)
{
	core_batch_init(&A->carry, A->P->keyschema);
	core_batch_reserve(&A->carry, 1, 0);
	table_init(A, true);
	A->indexed = false;
	A->sorted_rows = 0;
	phase(A, "aggregating", 0, 0);
}

static int
sorted_push(struct agg *A, const struct core_batch *ib)
{
	struct core_sort_key sk[CORE_HASH_MAX_KEYS];
	uint32_t n = ib->nrows, i, r;
	int rc = 0, cmp;

	A->st->rows_in += n;
	if (n == 0)
		return 0;
	memset(sk, 0, sizeof(sk));
	for (i = 0; i < A->nk; i++)
		sk[i].col = i;
	to_state(A, ib, true);
	scratch(A, n);
	if ((rc = arena_room(A, &A->sb)) != 0)
		return rc;
	for (r = 0; r < n && rc == 0; r++) {
		if (r > 0)
			cmp = core_sort_compare(sk, A->nk, &A->sb, r - 1,
			    &A->sb, r);
		else if (A->ngroups > 0)
			cmp = core_sort_compare(sk, A->nk, &A->chunks[0], 0,
			    &A->sb, 0);
		else
			cmp = -1;
		if (cmp > 0) {
			rc = out_of_order(A, A->sorted_rows + r + 1);
		} else if (cmp < 0) {
			rc = group_new(A, &A->sb, r, 0, false);
			A->gid[r] = A->ngroups - 1;
		} else {
			A->gid[r] = r > 0 ? A->gid[r - 1] : 0;
		}
	}
	if (rc != 0)
		return rc;
	A->sorted_rows += n;
	merge(A, &A->sb, true);
	if ((rc = table_emit_to(A, A->ngroups - 1)) != 0)
		return rc;
	return carry_last(A);
}

/* After the last batch (rc CORE_EOF) or a failure (rc): the last group
 * emitted after the last batch. */
static int
sorted_end(struct agg *A, int rc)
{
	core_batch_release(&A->carry);
	if (rc != CORE_EOF)
		return rc;
	return table_emit(A);
}

static int
run_sorted(struct agg *A, const struct core_agg_input *in)
{
	struct core_batch ib;
	int rc;

	core_batch_init(&ib, in->schema);
	sorted_begin(A);
	while ((rc = in->next(in->arg, &ib, A->err)) == 0)
		if ((rc = sorted_push(A, &ib)) != 0)
			break;
	core_batch_release(&ib);
	return sorted_end(A, rc);
}

/* The first phase's emit on the sorted path: its groups come out in key
 * order, and the second phase takes them as sorted input. */
static int
push_sorted_next(void *arg, const struct core_batch *b, struct core_err *err)
{
	(void)err;
	return sorted_push(arg, b);
}

/* Emits every group of the first phase's table and empties it. */
static int
flush_first(struct agg *A1)
{
	int rc = table_emit(A1);

	table_free(A1);
	table_init(A1, true);
	return rc;
}

/*
 * The sorted path with DISTINCT aggregates.  The first phase (groups of
 * the keys and the DISTINCT argument, plan_distinct) is a hash table
 * that never spills, emptied whenever every group it holds is complete:
 * each batch is cut where its last key begins, the rows before the cut
 * go to the table, the table is emitted, and the rows from the cut on
 * start the next table.  A table's groups are made in the order their
 * rows come, so it emits them in key order, and the second phase
 * aggregates them as sorted input.  It holds one batch's groups and the
 * distinct values of the group being read, whatever the budget.
 */
static int
run_sorted_distinct(struct agg *A, struct agg *A1,
    const struct core_agg_input *in)
{
	struct core_sort_key sk[CORE_HASH_MAX_KEYS];
	uint32_t nc = in->schema->ncols, n, r, s, i, *rows = NULL;
	struct core_gather_out part, last;
	struct core_batch ib;
	struct core_gather *g;
	bool *kwant, had = false, new0;
	uint64_t base = 0;
	int rc, cmp;

	memset(sk, 0, sizeof(sk));
	kwant = core_xcalloc(nc + 1, sizeof(*kwant));
	for (i = 0; i < A->nk; i++) {
		sk[i].col = A1->P->keys[i];
		kwant[sk[i].col] = true;
	}
	g = core_gather_new(in->schema, NULL, &A1->p_out);
	core_gather_out_init(&part, in->schema);
	core_gather_out_init(&last, in->schema);
	core_batch_init(&ib, in->schema);
	sorted_begin(A);
	table_init(A1, true);
	while ((rc = in->next(in->arg, &ib, A->err)) == 0) {
		n = ib.nrows;
		A1->st->rows_in += n;
		if (n == 0)
			continue;
		/* s: where the batch's last key begins; new0: its first
		 * row's key is not the last batch's last. */
		new0 = true;
		if (had) {
			cmp = core_sort_compare(sk, A->nk, &last.batch, 0,
			    &ib, 0);
			if (cmp > 0) {
				rc = out_of_order(A, base + 1);
				break;
			}
			new0 = cmp < 0;
		}
		for (s = 0, r = 1; r < n; r++) {
			cmp = core_sort_compare(sk, A->nk, &ib, r - 1, &ib,
			    r);
			if (cmp > 0)
				break;
			if (cmp < 0)
				s = r;
		}
		if (r < n) {
			rc = out_of_order(A, base + r + 1);
			break;
		}
		rows = core_xreallocarray(rows, n, sizeof(*rows));
		for (r = 0; r < n; r++)
			rows[r] = r;
		if (s > 0) {
			core_gather_select(g, &ib, rows, s, NULL, &part);
			if ((rc = push(A1, &part.batch)) != 0)
				break;
		}
		if ((s > 0 || new0) && (rc = flush_first(A1)) != 0)
			break;
		if (s > 0) {
			core_gather_select(g, &ib, rows + s, n - s, NULL,
			    &part);
			rc = push(A1, &part.batch);
		} else {
			rc = push(A1, &ib);
		}
		if (rc != 0)
			break;
		core_gather_select(g, &ib, rows + n - 1, 1, kwant, &last);
		had = true;
		base += n;
	}
	if (rc == CORE_EOF && (rc = flush_first(A1)) == 0)
		rc = CORE_EOF;
	core_gather_out_release(g, &part);
	core_gather_out_release(g, &last);
	core_gather_free(g);
	core_batch_release(&ib);
	free(rows);
	free(kwant);
	return sorted_end(A, rc);
}

static int agg_main(const struct core_agg_options *o, struct core_mem *mem,
    const struct core_agg_input *in, core_agg_emit_fn emit, void *arg,
    struct core_agg_stats *st, struct core_err *err, bool sorted);

int
core_agg_hash(const struct core_agg_options *o, struct core_mem *mem,
    const struct core_agg_input *in, core_agg_emit_fn emit, void *arg,
    struct core_agg_stats *st, struct core_err *err)
{
	return agg_main(o, mem, in, emit, arg, st, err, false);
}

int
core_agg_sorted(const struct core_agg_options *o, struct core_mem *mem,
    const struct core_agg_input *in, core_agg_emit_fn emit, void *arg,
    struct core_agg_stats *st, struct core_err *err)
{
	return agg_main(o, mem, in, emit, arg, st, err, true);
}

/* A new aggregation of plan P within limit bytes of mem (CORE_MEM_UNLIMITED:
 * the whole budget), or NULL with *rc set. */
static struct agg *
agg_new(const struct core_agg_options *o, const struct core_agg_plan_priv *P,
    struct core_mem *mem, uint64_t limit, core_agg_emit_fn emit, void *arg,
    struct core_agg_stats *st, struct core_err *err, int *rc)
{
	struct agg *A;
	uint64_t tcap, pcap;
	uint32_t i, kcols[CORE_HASH_MAX_KEYS];

	A = core_xcalloc(1, sizeof(*A));
	A->o = o;
	A->plan = o->plan;
	A->P = P;
	A->mem = mem;
	A->budget = mem->limit;
	A->err = err;
	A->emit = emit;
	A->emit_arg = arg;
	A->st = st != NULL ? st : &A->own;
	A->nk = P->nkeys;
	A->na = P->naggs;
	A->nthreads = 1;
	for (i = 0; i < A->nk; i++)
		kcols[i] = i;
	if (A->nk > 0 && ((*rc = core_hash_keys_init(&A->hk_state,
	    P->state, kcols, NULL, A->nk, err)) != 0 ||
	    (*rc = core_hash_keys_init(&A->hk_key, P->keyschema, kcols,
	    NULL, A->nk, err)) != 0)) {
		free(A);
		return NULL;
	}
	/* Half the budget for the table, a quarter for partition buffers;
	 * the rest is for a spill frame read back and the output. */
	tcap = limit == CORE_MEM_UNLIMITED ? CORE_MEM_UNLIMITED : limit / 2;
	pcap = limit == CORE_MEM_UNLIMITED ? CORE_MEM_UNLIMITED : limit / 4;
	core_mem_part_init(&A->p_tab, mem, "hash table", tcap);
	core_mem_part_init(&A->p_part, mem, "partitions", pcap);
	core_mem_part_init(&A->p_frame, mem, "spill frames",
	    CORE_MEM_UNLIMITED);
	core_mem_part_init(&A->p_out, mem, "output", CORE_MEM_UNLIMITED);
	/* Chunks of groups a sixteenth of the table's room at most. */
	A->chunk = CHUNK_MAX;
	if (tcap != CORE_MEM_UNLIMITED)
		while (A->chunk > CHUNK_MIN && (uint64_t)A->chunk *
		    (key_row_bytes(A) + P->group_bytes + 24) > tcap / 16)
			A->chunk /= 2;
	for (A->chunk_shift = 0; (1u << A->chunk_shift) < A->chunk;
	    A->chunk_shift++)
		;
	A->acc = core_xcalloc(A->na + 1, sizeof(*A->acc));
	core_batch_init(&A->sb, P->state);
	A->sbufs = core_xcalloc(P->state->ncols + 1, sizeof(*A->sbufs));
	A->dcol = core_xcalloc(A->na + 1, sizeof(*A->dcol));
	core_batch_init(&A->ob, o->plan->out);
	A->obufs = core_xcalloc(o->plan->out->ncols + 1, sizeof(*A->obufs));
	scratch(A, 1);
	*rc = 0;
	return A;
}

/* Frees A, adding its spill statistics to its st. */
static void
agg_free(struct agg *A)
{
	if (A == NULL)
		return;
	table_free(A);
	if (A->top != NULL)
		A->st->spill_bytes += core_spill_bytes(core_part_spill(A->top));
	core_part_free(A->top);
	/* The batches made here own no buffer of their own: their columns
	 * are views of sbufs and obufs. */
	free(A->sb.cols);
	free(A->ob.cols);
	sbufs_free(A->sbufs, A->P->state->ncols);
	sbufs_free(A->obufs, A->ob.ncols);
	core_mem_part_release(&A->p_out, A->out_charged);
	core_mem_part_release(&A->p_out, (uint64_t)A->qscap * 8);
	free(A->qs);
	free(A->chunks);
	free(A->cptr);
	free(A->acc);
	free(A->dcol);
	free(A->hash);
	free(A->cand);
	free(A->gid);
	free(A->act);
	free(A->miss);
	free(A->part_of);
	free(A->refs);
	free(A->eq);
	free(A->same);
	free(A->fol);
	free(A->xa);
	free(A->fidx);
	free(A->frow);
	free(A->feq);
	free(A->lead);
	free(A->lhash);
	free(A->made);
	core_mem_part_fini(&A->p_out);
	core_mem_part_fini(&A->p_frame);
	core_mem_part_fini(&A->p_part);
	core_mem_part_fini(&A->p_tab);
	free(A);
}

static int
agg_main(const struct core_agg_options *o, struct core_mem *mem,
    const struct core_agg_input *in, core_agg_emit_fn emit, void *arg,
    struct core_agg_stats *st, struct core_err *err, bool sorted)
{
	const struct core_agg_plan_priv *P = o->plan->priv;
	struct core_agg_stats dummy, st1;
	struct agg *A, *A1 = NULL;
	uint64_t limit = mem->limit;
	struct core_batch empty;
	int rc;

	if (st == NULL)
		st = &dummy;
	memset(st, 0, sizeof(*st));
	memset(&st1, 0, sizeof(st1));
	/* Two phases share the budget half and half: the first holds its
	 * table while it feeds the second. */
	if (P->pre != NULL && limit != CORE_MEM_UNLIMITED)
		limit /= 2;
	if ((A = agg_new(o, P, mem, limit, emit, arg, st, err, &rc)) == NULL)
		return rc;
	A->size_hint = in->size_hint;
	/* The first phase of DISTINCT feeds this one: only this one's
	 * partitions are aggregated on several threads. */
	A->nthreads = core_pool_threads(o->pool);
	if (P->pre != NULL) {
		if ((A1 = agg_new(o, P->pre, mem, limit, sorted && A->nk > 0 ?
		    push_sorted_next : push_next, A, &st1, err, &rc)) ==
		    NULL) {
			agg_free(A);
			return rc;
		}
		A1->states_out = true;
		A1->size_hint = in->size_hint;
	}
	if (sorted && A->nk > 0)
		rc = A1 != NULL ? run_sorted_distinct(A, A1, in) :
		    run_sorted(A, in);
	else
		rc = run(A, A1, in);
	if (rc == 0) {
		core_batch_init(&empty, o->plan->out);
		rc = emit(arg, &empty, err);
		core_batch_release(&empty);
	}
	agg_free(A1);
	agg_free(A);
	if (A1 != NULL) {
		st->rows_in = st1.rows_in;
		st->partitions += st1.partitions;
		st->spill_bytes += st1.spill_bytes;
		if (st1.need_mem > st->need_mem)
			st->need_mem = st1.need_mem;
		if (st1.levels > st->levels)
			st->levels = st1.levels;
	}
	st->peak_mem = mem->peak;
	return rc;
}
