/*
 * core_join_merge.c - the merge join of two inputs sorted on the keys
 * (core_join.h, core_join_merge).
 *
 * Both inputs stream past once.  The right side is cut into key groups
 * (its rows with one key); the left side is walked row by row against
 * the current group: a left key below the group's is unmatched, equal
 * matches every row of the group, above it finishes the group (an outer
 * join pads its rows if nothing matched) and moves on to the next one.
 * Output comes in key order.
 *
 * Keys are compared in the plan's common type after a pass over each
 * batch that brings every integer-like key to one exact __int128 (dates
 * as microseconds when the other side has timestamps, decimals and
 * integers at the common scale, so no width or scale is ever lost) and
 * every float64 key to an integer of the same order (-0 as +0, every NaN
 * one value above +inf, as colsort orders them).  A comparison of two
 * rows is then a loop over the keys with a two-way switch (integer or
 * string), no per-row function pointer.
 *
 * Invariants:
 *   - every row of both inputs is checked against the row before it (the
 *     previous batch's last key is kept for the first row), so an input
 *     out of order is CORE_EDATA before any wrong answer: a left row is
 *     matched only against groups whose order has been checked, and both
 *     sides are read to their end;
 *   - the inputs' batches are views valid until their next call, so
 *     pending output pairs are emitted before either side is read again
 *     and before held rows are freed;
 *   - the current group is the rows held in gstore (copies of earlier
 *     right batches' tails) followed by rows [g_start, g_end) of the
 *     current right batch: a group that ends within the batch it started
 *     in is never copied.
 *
 * Memory: the copies of a group are charged to the "key group" part of
 * mem.  A group bigger than the budget is spilled to a run of a spill
 * set (core_spill.h) and read back once for every run of equal left keys
 * in a left batch, so a key of any size joins within the budget plus one
 * frame.  The rows an anti join with NOT IN semantics cannot decide yet
 * (whether the right side has a NULL key is known only at its end, NULLs
 * being last) are held the same way in the "deferred rows" part.  The
 * per-batch key arrays (16 bytes per key per row of one batch per side)
 * are a fixed overhead and not charged.
 *
 * Workload: foreign-key joins of presorted files, most groups small and
 * within one batch; a few giant keys (a default value) must still work.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core_alloc.h"
#include "core_debug.h"
#include "core_gather.h"
#include "core_join.h"
#include "core_join_private.h"
#include "core_mem.h"
#include "core_pool.h"
#include "core_spill.h"

#define MJ_MAX_KEYS 32
#define MJ_DEFAULT_BATCH 8192

enum mj_kind {
	MJ_INT,		/* exact integer (also float64 mapped to order) */
	MJ_STRING,
};

typedef __int128 mj_i128;

/* The keys of one batch (or of one held key) as compare reads them. */
struct mj_kv {
	const mj_i128 *iv[MJ_MAX_KEYS];
	const int32_t *off[MJ_MAX_KEYS];
	const char *bytes[MJ_MAX_KEYS];
	const uint8_t *validity[MJ_MAX_KEYS];	/* NULL: all valid */
};

/* One key held across batches: its own storage and a one-row kv. */
struct mj_key {
	mj_i128 iv[MJ_MAX_KEYS];
	int32_t off[MJ_MAX_KEYS][2];
	uint8_t valid[MJ_MAX_KEYS];
	char *bytes[MJ_MAX_KEYS];	/* owned */
	size_t cap[MJ_MAX_KEYS];
	struct mj_kv kv;
};

/*
 * Rows held across batches: a right key group, or the left rows a
 * null-aware anti join defers.  In memory as gathered copies (one per
 * append) until the budget is exceeded, then as one spill run.  A store
 * whose rows are never output keeps only their count.
 */
struct mj_store {
	const struct core_schema *schema;	/* borrowed */
	const struct core_join_options *o;	/* borrowed */
	struct core_mem_part part;
	struct core_gather *g;
	bool count_only;
	uint64_t rows;
	struct core_gather_out *seg;	/* in memory: nseg copies */
	size_t nseg, seg_cap;
	struct core_gather_out tmp;	/* spilled: the copy being written */
	struct core_spill *sp;		/* made on first spill */
	bool spilled, writing;
	struct core_spill_run run;
	struct core_spill_cursor cur;
	struct core_spill_frame frame;
	uint32_t *sel;			/* row indices of an append */
	size_t sel_cap;
};

struct mj_side {
	const struct core_join_input *in;
	const char *name;		/* "left", "right" */
	struct core_batch b;		/* the current batch, a view */
	uint32_t pos;			/* next row of b to look at */
	bool eof;
	uint64_t rows;			/* rows read, b's included */
	uint32_t col[MJ_MAX_KEYS];	/* key columns */
	mj_i128 *iv[MJ_MAX_KEYS];	/* normalised keys of b */
	size_t iv_cap[MJ_MAX_KEYS];
	uint8_t *null;			/* b's rows with a NULL key */
	size_t null_cap;
	uint32_t nnull;			/* how many */
	struct mj_kv kv;
	struct mj_key last;		/* the previous batch's last key */
	bool have_last;
};

struct mj {
	const struct core_join_options *o;
	const struct core_join_plan *plan;
	struct core_mem *mem;
	struct core_err *err;
	core_join_emit_fn emit;
	void *emit_arg;
	uint32_t nkeys;
	uint8_t kind[MJ_MAX_KEYS];
	struct mj_side side[2];
	bool right_rows;		/* the output has right columns */
	/* The current right group. */
	bool g_have, g_null, g_matched;
	uint32_t g_start, g_end;
	struct mj_key gkey;
	struct mj_store gstore;
	/* Null-aware anti: the right side's NULLs (-1 not known yet). */
	int r_nulls;
	bool r_empty;
	struct mj_store defer;
	/* Output pairs waiting for a full batch. */
	struct core_pool *pool;
	struct core_join_out *out;
	struct core_mem_part out_part;
	uint64_t *lref, *rref;
	uint32_t npend, batch_rows;
	const struct core_batch **lsrcs, **rsrcs;
	size_t lsrcs_cap, rsrcs_cap;
	uint64_t rows_out;
};

#define REF(src, row) ((uint64_t)(src) << 32 | (uint32_t)(row))
#define SRC_CUR 0	/* the side's current batch */
#define SRC_NULL 1	/* the assembler's NULL row */
#define SRC_HELD 2	/* first held batch */

/* ---- keys ---- */

static const int64_t pow10_tab[19] = {
	1LL, 10LL, 100LL, 1000LL, 10000LL, 100000LL, 1000000LL, 10000000LL,
	100000000LL, 1000000000LL, 10000000000LL, 100000000000LL,
	1000000000000LL, 10000000000000LL, 100000000000000LL,
	1000000000000000LL, 10000000000000000LL, 100000000000000000LL,
	1000000000000000000LL,
};

/* A double as an integer of the same order: -0 as +0, every NaN one
 * value above +inf. */
static mj_i128
float_order(double d)
{
	uint64_t u;

	if (d == 0)
		d = 0;
	if (isnan(d))
		return (mj_i128)0x7ff8000000000000ull ^ (1ull << 63);
	memcpy(&u, &d, sizeof(u));
	u = (u >> 63) ? ~u : u ^ (1ull << 63);
	return (mj_i128)u;
}

/*
 * Brings key column c (type own) of n rows to the common type's
 * integers in out.  Column by column, one switch per batch.
 */
static void
normalise(const struct core_column *c, struct core_coltype own,
    struct core_coltype common, uint32_t n, mj_i128 *out)
{
	const void *v = c->values;
	int64_t mul = 1;
	uint32_t i;

	if (common.id == CORE_TYPE_FLOAT64) {
		double div = 1;

		/* 10^scale exact to 10^22, then within an ulp. */
		if (core_type_is_decimal(own.id))
			for (i = 0; i < own.scale; i++)
				div *= 10;
		switch (own.id) {
		case CORE_TYPE_FLOAT64:
			for (i = 0; i < n; i++)
				out[i] = float_order(((const double *)v)[i]);
			break;
		case CORE_TYPE_DECIMAL128:
			for (i = 0; i < n; i++)
				out[i] = float_order((double)core_i128_load(
				    (const char *)v + 16 * (size_t)i) / div);
			break;
		case CORE_TYPE_INT32:
			for (i = 0; i < n; i++)
				out[i] = float_order(
				    (double)((const int32_t *)v)[i]);
			break;
		default:	/* int64, decimal */
			for (i = 0; i < n; i++)
				out[i] = float_order(
				    (double)((const int64_t *)v)[i] / div);
			break;
		}
		return;
	}
	if (common.id == CORE_TYPE_TIMESTAMP && own.id == CORE_TYPE_DATE)
		mul = 86400000000LL;
	else if (common.id == CORE_TYPE_DECIMAL)
		mul = pow10_tab[common.scale - (own.id == CORE_TYPE_DECIMAL ?
		    own.scale : 0)];
	if (common.id == CORE_TYPE_DECIMAL128) {
		/* The plan's type has room for both sides' digits: exact. */
		mj_i128 m = 1;
		unsigned up = common.scale - (core_type_is_decimal(own.id) ?
		    own.scale : 0);

		for (i = 0; i < up; i++)
			m *= 10;
		for (i = 0; i < n; i++) {
			mj_i128 x = own.id == CORE_TYPE_DECIMAL128 ?
			    core_i128_load((const char *)v + 16 * (size_t)i) :
			    own.id == CORE_TYPE_INT32 ?
			    ((const int32_t *)v)[i] : ((const int64_t *)v)[i];

			/* Wrapping: a NULL's value may be anything. */
			out[i] = (mj_i128)(__extension__ (unsigned __int128)x *
			    (__extension__ (unsigned __int128)m));
		}
		return;
	}
	switch (own.id) {
	case CORE_TYPE_BOOL:
		for (i = 0; i < n; i++)
			out[i] = ((const uint8_t *)v)[i] != 0;
		break;
	case CORE_TYPE_INT32:
	case CORE_TYPE_DATE:
		for (i = 0; i < n; i++)
			out[i] = (mj_i128)((const int32_t *)v)[i] * mul;
		break;
	default:	/* int64, decimal, timestamp */
		for (i = 0; i < n; i++)
			out[i] = (mj_i128)((const int64_t *)v)[i] * mul;
		break;
	}
}

static inline bool
kv_valid(const struct mj_kv *a, uint32_t k, uint32_t r)
{
	const uint8_t *v = a->validity[k];

	return v == NULL || (v[r >> 3] >> (r & 7)) & 1;
}

/*
 * Orders row ra of a against row rb of b: <0, 0, >0, NULLs last in
 * each key and equal to each other (the order's view, not the join's).
 * *at is the key that decided (when not 0).
 */
static int
kv_cmp(const struct mj *m, const struct mj_kv *a, uint32_t ra,
    const struct mj_kv *b, uint32_t rb, uint32_t *at)
{
	uint32_t k;

	for (k = 0; k < m->nkeys; k++) {
		bool va = kv_valid(a, k, ra), vb = kv_valid(b, k, rb);
		int c;

		if (!va || !vb) {
			c = (int)!va - (int)!vb;
		} else if (m->kind[k] == MJ_INT) {
			mj_i128 x = a->iv[k][ra], y = b->iv[k][rb];

			c = (x > y) - (x < y);
		} else {
			int32_t la = a->off[k][ra + 1] - a->off[k][ra];
			int32_t lb = b->off[k][rb + 1] - b->off[k][rb];
			int32_t ln = la < lb ? la : lb;
			/* No bytes may mean no buffer at all. */
			int mc = ln == 0 ? 0 : memcmp(a->bytes[k] +
			    a->off[k][ra], b->bytes[k] + b->off[k][rb],
			    (size_t)ln);

			c = mc ? (mc > 0) - (mc < 0) : (la > lb) - (la < lb);
		}
		if (c != 0) {
			*at = k;
			return c;
		}
	}
	return 0;
}

static int
kv_cmp0(const struct mj *m, const struct mj_kv *a, uint32_t ra,
    const struct mj_kv *b, uint32_t rb)
{
	uint32_t at;

	return kv_cmp(m, a, ra, b, rb, &at);
}

static void
key_init(struct mj_key *key)
{
	uint32_t k;

	memset(key, 0, sizeof(*key));
	for (k = 0; k < MJ_MAX_KEYS; k++) {
		key->kv.iv[k] = &key->iv[k];
		key->kv.off[k] = key->off[k];
		key->kv.validity[k] = &key->valid[k];
	}
}

static void
key_release(struct mj_key *key)
{
	uint32_t k;

	for (k = 0; k < MJ_MAX_KEYS; k++)
		free(key->bytes[k]);
}

/* Copies the key of row r of a into key. */
static void
key_set(const struct mj *m, struct mj_key *key, const struct mj_kv *a,
    uint32_t r)
{
	uint32_t k;

	for (k = 0; k < m->nkeys; k++) {
		key->valid[k] = kv_valid(a, k, r);
		if (m->kind[k] == MJ_INT) {
			key->iv[k] = a->iv[k][r];
		} else {
			int32_t len = a->off[k][r + 1] - a->off[k][r];

			key->bytes[k] = core_grow(key->bytes[k], &key->cap[k],
			    (size_t)len + 1, 1, 64);
			if (len > 0)
				memcpy(key->bytes[k], a->bytes[k] +
				    a->off[k][r], (size_t)len);
			key->off[k][0] = 0;
			key->off[k][1] = len;
			key->kv.bytes[k] = key->bytes[k];
		}
	}
}

/* ---- output ---- */

static const struct core_batch **
held_srcs(const struct core_batch **srcs, size_t *cap,
    const struct mj_side *s, const struct core_join_out *out, int sidei,
    const struct mj_store *st, size_t *n)
{
	size_t k, need = SRC_HELD + (st->spilled ? 1 : st->nseg);

	srcs = core_grow(srcs, cap, need, sizeof(*srcs), 8);
	srcs[SRC_CUR] = &s->b;
	srcs[SRC_NULL] = core_join_out_null(out, sidei);
	if (st->spilled)
		srcs[SRC_HELD] = &st->frame.batch;
	else
		for (k = 0; k < st->nseg; k++)
			srcs[SRC_HELD + k] = &st->seg[k].batch;
	*n = need;
	return srcs;
}

/* Emits the pending pairs as one batch. */
static int
flush(struct mj *m)
{
	size_t nl, nr;
	int rc;

	if (m->npend == 0)
		return 0;
	m->lsrcs = held_srcs(m->lsrcs, &m->lsrcs_cap, &m->side[0], m->out, 0,
	    &m->defer, &nl);
	m->rsrcs = held_srcs(m->rsrcs, &m->rsrcs_cap, &m->side[1], m->out, 1,
	    &m->gstore, &nr);
	rc = core_join_out_emit(m->out, m->lsrcs, nl, m->lref, m->rsrcs, nr,
	    m->rref, m->npend, m->emit, m->emit_arg, m->err);
	m->rows_out += m->npend;
	m->npend = 0;
	return rc;
}

static inline int
add_pair(struct mj *m, uint64_t l, uint64_t r)
{
	m->lref[m->npend] = l;
	m->rref[m->npend] = r;
	if (++m->npend == m->batch_rows)
		return flush(m);
	return 0;
}

/* ---- held rows ---- */

static void
store_init(struct mj_store *st, const struct core_schema *schema,
    const struct core_join_options *o, struct core_mem *mem,
    const char *name, bool count_only)
{
	memset(st, 0, sizeof(*st));
	st->schema = schema;
	st->o = o;
	st->count_only = count_only;
	core_mem_part_init(&st->part, mem, name, CORE_MEM_UNLIMITED);
	st->g = core_gather_new(schema, NULL, &st->part);
	core_gather_out_init(&st->tmp, schema);
	core_batch_init(&st->frame.batch, schema);
}

/* Forgets the rows held; keeps the spill set for the next ones. */
static void
store_reset(struct mj_store *st)
{
	size_t k;

	for (k = 0; k < st->nseg; k++)
		core_gather_out_release(st->g, &st->seg[k]);
	st->nseg = 0;
	if (st->spilled) {
		struct core_err ignored;

		/* A run still being written is ended to be discarded; its
		 * error (if any) has no rows to lose. */
		if (st->writing)
			(void)core_spill_run_end(st->sp, &st->run, &ignored);
		core_spill_run_discard(st->sp, &st->run);
		core_spill_frame_release(&st->frame, &st->part);
		core_gather_out_release(st->g, &st->tmp);
		core_gather_out_init(&st->tmp, st->schema);
	}
	st->spilled = st->writing = false;
	st->rows = 0;
}

static void
store_free(struct mj_store *st)
{
	store_reset(st);
	free(st->seg);
	free(st->sel);
	core_batch_release(&st->frame.batch);
	core_gather_out_release(st->g, &st->tmp);
	core_gather_free(st->g);
	core_spill_free(st->sp);
	core_mem_part_fini(&st->part);
}

/* Moves the copies in memory to a spill run, which later appends go
 * to. */
static int
store_spill(struct mj_store *st, struct core_err *err)
{
	size_t k;
	int rc;

	if (st->sp == NULL)
		st->sp = core_spill_new(st->o->tmpdirs, st->o->ntmpdirs,
		    st->o->max_spill, st->o->compress_spill ? 1 : 0,
		    st->schema);
	if ((rc = core_spill_run_begin(st->sp, err)) != 0)
		return rc;
	st->spilled = st->writing = true;
	for (k = 0; k < st->nseg; k++) {
		rc = core_spill_run_write(st->sp, &st->seg[k].batch, err);
		core_gather_out_release(st->g, &st->seg[k]);
		if (rc != 0) {
			st->nseg = 0;
			return rc;
		}
	}
	st->nseg = 0;
	return 0;
}

/*
 * Holds copies of rows [start, start + n) of b, or of rows sel[0..n)
 * when sel is not NULL.  Past the budget the group goes to disk: a
 * group is the one thing a merge join cannot split, so it is charged
 * (never refused) and then spilled.
 */
static int
store_append(struct mj_store *st, const struct core_batch *b, uint32_t start,
    const uint32_t *sel, uint32_t n, struct core_err *err)
{
	struct core_gather_out *o;
	uint32_t i;

	if (n == 0)
		return 0;
	st->rows += n;
	if (st->count_only)
		return 0;
	if (sel == NULL) {
		st->sel = core_grow(st->sel, &st->sel_cap, n, sizeof(*sel),
		    256);
		for (i = 0; i < n; i++)
			st->sel[i] = start + i;
		sel = st->sel;
	}
	if (st->spilled) {
		core_gather_select(st->g, b, sel, n, NULL, &st->tmp);
		return core_spill_run_write(st->sp, &st->tmp.batch, err);
	}
	st->seg = core_grow(st->seg, &st->seg_cap, st->nseg + 1,
	    sizeof(*st->seg), 4);
	o = &st->seg[st->nseg++];
	core_gather_out_init(o, st->schema);
	core_gather_select(st->g, b, sel, n, NULL, o);
	if (st->part.mem->used > st->part.mem->limit)
		return store_spill(st, err);
	return 0;
}

/*
 * Walks the held batches: *b and its source index for the i-th (i from
 * 0, in turn).  1 while there is one, 0 after the last, or a negative
 * code.  A spilled store reads its run back frame by frame into one
 * frame, so the caller flushes the pairs naming the previous one first.
 */
static int
store_get(struct mj_store *st, size_t i, const struct core_batch **b,
    uint32_t *src, struct core_err *err)
{
	int rc;

	if (!st->spilled) {
		if (i >= st->nseg)
			return 0;
		*b = &st->seg[i].batch;
		*src = SRC_HELD + (uint32_t)i;
		return 1;
	}
	if (st->writing) {
		if ((rc = core_spill_run_end(st->sp, &st->run, err)) != 0)
			return rc;
		st->writing = false;
	}
	if (i == 0 && (rc = core_spill_cursor_open(st->sp, &st->cur,
	    &st->run, err)) != 0)
		return rc;
	do {
		rc = core_spill_read_frame(st->sp, &st->cur, &st->frame,
		    &st->part, err);
		if (rc == CORE_EOF)
			return 0;
		if (rc != 0)
			return rc;
	} while (st->frame.batch.nrows == 0);
	*b = &st->frame.batch;
	*src = SRC_HELD;
	return 1;
}

/* ---- reading ---- */

/* "colsort -k a -k b" of a side's key columns, into buf. */
static void
sort_command(const struct mj *m, const struct mj_side *s, char *buf,
    size_t cap)
{
	size_t n = 0;
	uint32_t k;

	n += (size_t)snprintf(buf, cap, "colsort");
	for (k = 0; k < m->nkeys && n < cap; k++)
		n += (size_t)snprintf(buf + n, cap - n, " -k %s",
		    s->in->schema->fields[s->col[k]].name);
}

static int
out_of_order(struct mj *m, const struct mj_side *s, uint64_t row,
    uint32_t key)
{
	char cmd[256];

	sort_command(m, s, cmd, sizeof(cmd));
	return core_err_set(m->err, CORE_EDATA, "%s input: row %llu is out "
	    "of order on key %s (sorted input needed: %s)", s->name,
	    (unsigned long long)row,
	    s->in->schema->fields[s->col[key]].name, cmd);
}

/* Normalises the keys of the batch just read and checks its order. */
static int
side_prepare(struct mj *m, struct mj_side *s, int sidei)
{
	const struct core_batch *b = &s->b;
	uint32_t n = b->nrows, k, r, at;

	s->null = core_grow(s->null, &s->null_cap, n ? n : 1, 1, 256);
	memset(s->null, 0, n);
	for (k = 0; k < m->nkeys; k++) {
		const struct core_column *c = &b->cols[s->col[k]];
		struct core_coltype own = s->in->schema->fields[s->col[k]].type;
		struct core_coltype common = m->plan->keys[k].common;

		s->kv.validity[k] = c->validity;
		if (c->validity != NULL)
			for (r = 0; r < n; r++)
				s->null[r] |= !core_col_is_valid(c, r);
		if (m->kind[k] == MJ_STRING) {
			s->kv.off[k] = c->offsets;
			s->kv.bytes[k] = c->values;
			continue;
		}
		s->iv[k] = core_grow(s->iv[k], &s->iv_cap[k], n ? n : 1,
		    sizeof(mj_i128), 256);
		normalise(c, own, common, n, s->iv[k]);
		s->kv.iv[k] = s->iv[k];
	}
	s->nnull = 0;
	for (r = 0; r < n; r++)
		s->nnull += s->null[r];
	if (n == 0)
		return 0;
	if (s->have_last && kv_cmp(m, &s->last.kv, 0, &s->kv, 0, &at) > 0)
		return out_of_order(m, s, s->rows - n + 1, at);
	for (r = 1; r < n; r++)
		if (kv_cmp(m, &s->kv, r - 1, &s->kv, r, &at) > 0)
			return out_of_order(m, s, s->rows - n + r + 1, at);
	key_set(m, &s->last, &s->kv, n - 1);
	s->have_last = true;
	(void)sidei;
	return 0;
}

/*
 * Reads the side's next non-empty batch (flushing first: pending pairs
 * may name rows of the current one).  0 (s->eof at the end) or a
 * negative code.
 */
static int
side_read(struct mj *m, int sidei)
{
	struct mj_side *s = &m->side[sidei];
	int rc;

	if ((rc = flush(m)) != 0)
		return rc;
	while (!s->eof) {
		rc = s->in->next(s->in->arg, &s->b, m->err);
		if (rc == CORE_EOF) {
			s->eof = true;
			s->b.nrows = 0;
			break;
		}
		if (rc != 0)
			return rc;
		s->pos = 0;
		s->rows += s->b.nrows;
		if ((rc = side_prepare(m, s, sidei)) != 0)
			return rc;
		if (sidei == 1 && s->nnull > 0)
			m->r_nulls = 1;
		if (s->b.nrows > 0)
			break;
	}
	if (s->eof) {
		s->pos = 0;
		if (sidei == 1 && m->r_nulls < 0)
			m->r_nulls = 0;
	}
	return 0;
}

/* ---- groups ---- */

static void
group_release(struct mj *m, int *rc)
{
	if (m->gstore.nseg > 0 || m->gstore.spilled)
		*rc = flush(m);
	store_reset(&m->gstore);
	m->g_have = false;
}

/* Cuts the next key group from the right side. */
static int
group_next(struct mj *m)
{
	struct mj_side *s = &m->side[1];
	uint32_t start, r, k;
	int rc = 0;

	group_release(m, &rc);
	if (rc != 0)
		return rc;
	if (s->pos >= s->b.nrows && (rc = side_read(m, 1)) != 0)
		return rc;
	if (s->eof)
		return 0;
	key_set(m, &m->gkey, &s->kv, s->pos);
	m->g_have = true;
	m->g_matched = false;
	m->g_null = false;
	for (k = 0; k < m->nkeys; k++)
		m->g_null |= !m->gkey.valid[k];
	start = s->pos;
	r = start + 1;
	for (;;) {
		while (r < s->b.nrows &&
		    kv_cmp0(m, &s->kv, r, &m->gkey.kv, 0) == 0)
			r++;
		if (r < s->b.nrows)
			break;
		/* The group may go on in the next batch, which replaces
		 * this one: hold what it has here. */
		if ((rc = store_append(&m->gstore, &s->b, start, NULL,
		    r - start, m->err)) != 0)
			return rc;
		if ((rc = side_read(m, 1)) != 0)
			return rc;
		start = r = 0;
		if (s->eof || kv_cmp0(m, &s->kv, 0, &m->gkey.kv, 0) != 0)
			break;
	}
	m->g_start = start;
	m->g_end = r;
	s->pos = r;
	return 0;
}

/*
 * Pairs every row of the group with left refs lref (n of them, or one
 * NULL-row ref when n is 0 and the group is unmatched).
 */
static int
group_pairs(struct mj *m, uint32_t lstart, uint32_t n, bool padded)
{
	const struct core_batch *b;
	uint32_t src, r, l, cnt = padded ? 1 : n;
	size_t i;
	int rc, more;

	if (!m->right_rows) {
		uint64_t total = m->gstore.rows + (m->g_end - m->g_start), t;

		for (l = 0; l < cnt; l++)
			for (t = 0; t < total; t++)
				if ((rc = add_pair(m, padded ?
				    REF(SRC_NULL, 0) : REF(SRC_CUR, lstart + l),
				    REF(SRC_NULL, 0))) != 0)
					return rc;
		return 0;
	}
	for (i = 0; (more = store_get(&m->gstore, i, &b, &src, m->err)) > 0;
	    i++) {
		for (l = 0; l < cnt; l++)
			for (r = 0; r < b->nrows; r++)
				if ((rc = add_pair(m, padded ?
				    REF(SRC_NULL, 0) : REF(SRC_CUR, lstart + l),
				    REF(src, r))) != 0)
					return rc;
		/* The next frame of a spilled group replaces this one. */
		if (m->gstore.spilled && (rc = flush(m)) != 0)
			return rc;
	}
	if (more < 0)
		return more;
	for (l = 0; l < cnt; l++)
		for (r = m->g_start; r < m->g_end; r++)
			if ((rc = add_pair(m, padded ? REF(SRC_NULL, 0) :
			    REF(SRC_CUR, lstart + l), REF(SRC_CUR, r))) != 0)
				return rc;
	return 0;
}

/* Done with the group: an outer join pads it when nothing matched. */
static int
group_finish(struct mj *m)
{
	if (!m->g_have || m->g_matched)
		return 0;
	if (m->plan->type == CORE_JOIN_RIGHT ||
	    m->plan->type == CORE_JOIN_FULL)
		return group_pairs(m, 0, 0, true);
	return 0;
}

/* ---- the left side ---- */

/*
 * Left row r has no match.  A null-aware anti join that does not know
 * yet whether the right side has a NULL key adds it to *ndefer rows to
 * hold.
 */
static int
unmatched(struct mj *m, uint32_t r, uint32_t *defer, uint32_t *ndefer)
{
	switch (m->plan->type) {
	case CORE_JOIN_LEFT:
	case CORE_JOIN_FULL:
		return add_pair(m, REF(SRC_CUR, r), REF(SRC_NULL, 0));
	case CORE_JOIN_ANTI:
		if (!m->o->null_aware)
			return add_pair(m, REF(SRC_CUR, r), REF(SRC_NULL, 0));
		if (m->side[0].null[r])
			return m->r_empty ? add_pair(m, REF(SRC_CUR, r),
			    REF(SRC_NULL, 0)) : 0;
		if (m->r_nulls == 0)
			return add_pair(m, REF(SRC_CUR, r), REF(SRC_NULL, 0));
		if (m->r_nulls < 0)
			defer[(*ndefer)++] = r;
		return 0;
	default:
		return 0;
	}
}

/* Left rows [i, j) equal the group's key. */
static int
matched(struct mj *m, uint32_t i, uint32_t j)
{
	uint32_t l;
	int rc;

	m->g_matched = true;
	switch (m->plan->type) {
	case CORE_JOIN_SEMI:
		for (l = i; l < j; l++)
			if ((rc = add_pair(m, REF(SRC_CUR, l),
			    REF(SRC_NULL, 0))) != 0)
				return rc;
		return 0;
	case CORE_JOIN_ANTI:
		return 0;
	default:
		return group_pairs(m, i, j - i, false);
	}
}

static int
left_batch(struct mj *m, uint32_t **defer, size_t *defer_cap)
{
	struct mj_side *s = &m->side[0];
	uint32_t n = s->b.nrows, i = s->pos, j, ndefer = 0;
	int rc, c;

	*defer = core_grow(*defer, defer_cap, n, sizeof(**defer), 256);
	while (i < n) {
		if (s->null[i]) {
			if ((rc = unmatched(m, i++, *defer, &ndefer)) != 0)
				return rc;
			continue;
		}
		c = m->g_have ? kv_cmp0(m, &s->kv, i, &m->gkey.kv, 0) : -1;
		while (c > 0) {
			if ((rc = group_finish(m)) != 0 ||
			    (rc = group_next(m)) != 0)
				return rc;
			c = m->g_have ? kv_cmp0(m, &s->kv, i, &m->gkey.kv, 0) :
			    -1;
		}
		if (c == 0 && !m->g_null) {
			for (j = i + 1; j < n && !s->null[j] &&
			    kv_cmp0(m, &s->kv, j, &m->gkey.kv, 0) == 0; j++)
				;
			if ((rc = matched(m, i, j)) != 0)
				return rc;
			i = j;
		} else if ((rc = unmatched(m, i++, *defer, &ndefer)) != 0) {
			return rc;
		}
	}
	s->pos = n;
	/* The right side may have ended (without a NULL key) since some of
	 * the rows were put aside: they survive now. */
	if (m->r_nulls == 0)
		for (j = 0; j < ndefer; j++)
			if ((rc = add_pair(m, REF(SRC_CUR, (*defer)[j]),
			    REF(SRC_NULL, 0))) != 0)
				return rc;
	if (m->r_nulls < 0)
		return store_append(&m->defer, &s->b, 0, *defer, ndefer,
		    m->err);
	return 0;
}

/* After the left side's end: the rest of the right side, all unmatched. */
static int
right_rest(struct mj *m)
{
	struct mj_side *s = &m->side[1];
	bool pad = m->plan->type == CORE_JOIN_RIGHT ||
	    m->plan->type == CORE_JOIN_FULL;
	uint32_t r;
	int rc = 0;

	if ((rc = group_finish(m)) != 0)
		return rc;
	group_release(m, &rc);
	if (rc != 0)
		return rc;
	for (;;) {
		for (r = s->pos; pad && r < s->b.nrows; r++)
			if ((rc = add_pair(m, REF(SRC_NULL, 0),
			    REF(SRC_CUR, r))) != 0)
				return rc;
		s->pos = s->b.nrows;
		if (s->eof)
			return 0;
		if ((rc = side_read(m, 1)) != 0)
			return rc;
	}
}

/* The null-aware anti join's held rows, once the right side is known to
 * have no NULL key. */
static int
emit_deferred(struct mj *m)
{
	const struct core_batch *b;
	uint32_t src, r;
	size_t i;
	int rc, more;

	if (m->r_nulls != 0)
		return 0;
	for (i = 0; (more = store_get(&m->defer, i, &b, &src, m->err)) > 0;
	    i++) {
		for (r = 0; r < b->nrows; r++)
			if ((rc = add_pair(m, REF(src, r),
			    REF(SRC_NULL, 0))) != 0)
				return rc;
		if (m->defer.spilled && (rc = flush(m)) != 0)
			return rc;
	}
	return more;
}

static int
merge(struct mj *m)
{
	uint32_t *defer = NULL;
	size_t defer_cap = 0;
	int rc;

	if ((rc = group_next(m)) != 0)
		goto out;
	m->r_empty = !m->g_have;
	for (;;) {
		if ((rc = side_read(m, 0)) != 0)
			goto out;
		if (m->side[0].eof)
			break;
		if ((rc = left_batch(m, &defer, &defer_cap)) != 0)
			goto out;
		/* Known now: what was held is emitted at the end or
		 * dropped now. */
		if (m->r_nulls > 0)
			store_reset(&m->defer);
	}
	if ((rc = right_rest(m)) != 0)
		goto out;
	if ((rc = emit_deferred(m)) != 0)
		goto out;
	rc = flush(m);
out:
	free(defer);
	return rc;
}

static int
check_options(const struct core_join_options *o,
    const struct core_join_input *left, const struct core_join_input *right,
    struct core_err *err)
{
	const struct core_join_plan *p = o->plan;
	size_t k;

	if (p->nkeys == 0 || p->nkeys > MJ_MAX_KEYS)
		return core_err_set(err, CORE_EUSAGE, "a merge join takes 1 "
		    "to %d keys, not %zu", MJ_MAX_KEYS, p->nkeys);
	if (o->null_aware && (p->type != CORE_JOIN_ANTI || p->nkeys != 1))
		return core_err_set(err, CORE_EUSAGE, "null-aware (NOT IN) "
		    "semantics need an anti join on one key");
	for (k = 0; k < p->nkeys; k++)
		if (p->keys[k].lcol >= left->schema->ncols ||
		    p->keys[k].rcol >= right->schema->ncols)
			return core_err_set(err, CORE_EUSAGE, "join key %zu "
			    "is not a column of its input", k + 1);
	return 0;
}

int
core_join_merge(const struct core_join_options *o, struct core_mem *mem,
    const struct core_join_input *left, const struct core_join_input *right,
    core_join_emit_fn emit, void *arg, struct core_join_stats *st,
    struct core_err *err)
{
	const struct core_join_plan *p = o->plan;
	struct mj *m;
	uint32_t k, i;
	int rc, sd;

	if (st != NULL)
		memset(st, 0, sizeof(*st));
	if ((rc = check_options(o, left, right, err)) != 0)
		return rc;
	m = core_xcalloc(1, sizeof(*m));
	m->o = o;
	m->plan = p;
	m->mem = mem;
	m->err = err;
	m->emit = emit;
	m->emit_arg = arg;
	m->nkeys = (uint32_t)p->nkeys;
	m->r_nulls = -1;
	m->batch_rows = core_batch_rows_for(p->out, NULL, 0,
	    o->batch_rows ? o->batch_rows : MJ_DEFAULT_BATCH);
	for (k = 0; k < m->nkeys; k++)
		m->kind[k] = p->keys[k].common.id == CORE_TYPE_STRING ?
		    MJ_STRING : MJ_INT;
	for (i = 0; i < p->out->ncols; i++)
		m->right_rows |= p->src[i].side == 1;
	for (sd = 0; sd < 2; sd++) {
		struct mj_side *s = &m->side[sd];

		s->in = sd ? right : left;
		s->name = sd ? "right" : "left";
		core_batch_init(&s->b, s->in->schema);
		for (k = 0; k < m->nkeys; k++)
			s->col[k] = sd ? p->keys[k].rcol : p->keys[k].lcol;
		key_init(&s->last);
	}
	key_init(&m->gkey);
	store_init(&m->gstore, right->schema, o, mem, "key group",
	    !m->right_rows);
	store_init(&m->defer, left->schema, o, mem, "deferred rows", false);
	core_mem_part_init(&m->out_part, mem, "output", CORE_MEM_UNLIMITED);
	m->pool = core_pool_new(core_pool_default(o->threads, 2));
	m->out = core_join_out_new(p, left->schema, right->schema, m->pool,
	    &m->out_part);
	m->lref = core_xmalloc(core_mul_size(m->batch_rows, sizeof(uint64_t)));
	m->rref = core_xmalloc(core_mul_size(m->batch_rows, sizeof(uint64_t)));
	if (o->phase != NULL)
		o->phase(o->phase_arg, "merging", 0, 0);

	rc = core_join_out_finish(m->out, merge(m), emit, arg, err);

	if (st != NULL) {
		st->rows_left = m->side[0].rows;
		st->rows_right = m->side[1].rows;
		st->rows_out = m->rows_out;
		st->spill_bytes = (m->gstore.sp ?
		    core_spill_bytes(m->gstore.sp) : 0) + (m->defer.sp ?
		    core_spill_bytes(m->defer.sp) : 0);
		st->peak_mem = mem->peak;
	}
	free(m->lref);
	free(m->rref);
	free(m->lsrcs);
	free(m->rsrcs);
	core_join_out_free(m->out);
	core_pool_free(m->pool);
	core_mem_part_fini(&m->out_part);
	store_free(&m->defer);
	store_free(&m->gstore);
	key_release(&m->gkey);
	for (sd = 0; sd < 2; sd++) {
		struct mj_side *s = &m->side[sd];

		core_batch_release(&s->b);
		for (k = 0; k < MJ_MAX_KEYS; k++)
			free(s->iv[k]);
		free(s->null);
		key_release(&s->last);
	}
	free(m);
	return rc;
}
