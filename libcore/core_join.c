/*
 * core_join.c - the hash join under a memory budget (core_join.h).
 *
 * The build side's rows are copied into memory (the store), hashed into
 * a table of row references (core_htab) once the side is read, and the
 * probe side streams past it a batch at a time: hash the batch's keys,
 * look up each row's candidates, check their keys a batch of candidates
 * at a time (core_hash_equal), and gather the matching pairs into output
 * batches column by column (core_join_out).  No row is copied on its
 * own and nothing per row goes through a function pointer.
 * Probing a spilled partition, whose frames are small under a small
 * budget, the pairs of several frames wait together (the ring of probe
 * batches, frames kept until their pairs are out), so that an output
 * batch is as full as it is in memory.
 *
 * When the build side does not fit, both sides are partitioned by a hash
 * of the key (with a seed of the level, independent of the table's) into
 * spill files (core_part), and the partitions are joined pair by pair.
 * A partition pair whose build side is still too big is partitioned
 * again with the next level's seed; one that does not split (one key, or
 * a few keys too big together) is joined in chunks: as many build rows
 * as fit, the whole probe partition past them, and so on, a flag per
 * probe row remembering which found a match, so that unmatched rows
 * (outer joins, anti) and semi-join rows come out exactly once.  So the
 * budget holds whatever the keys, and the answer never depends on it.
 *
 * Keys of different types are made comparable before hashing: where the
 * common type is float64 or a timestamp and a side's key is not, the
 * side's batches get one more column holding the key converted, and the
 * hash keys read that column (integer-like keys of different widths and
 * decimal scales need no conversion: core_hash compares them by value).
 *
 * Rows with a NULL key are carried like any other (into the store and
 * the partitions) and never inserted into the table, so they match
 * nothing and come out as unmatched where the join type wants them.
 *
 * Invariants: a batch of the store holds the build side's columns, then
 * its converted keys (the "augmented" schema of the side), as do the
 * spilled partitions; references are store batch << 32 | row, the store's
 * last source being the side's NULL row (core_join_out_null).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core_alloc.h"
#include "core_debug.h"
#include "core_gather.h"
#include "core_hash.h"
#include "core_htab.h"
#include "core_join.h"
#include "core_join_private.h"
#include "core_part.h"
#include "core_pool.h"
#include "core_spill.h"

#define OUT_ROWS_DEFAULT 8192
/* Deepest re-partitioning before a partition is joined in chunks. */
#define MAX_LEVEL 4
/* Per table entry: the entry and its bucket heads (core_htab.h). */
#define HT_ENTRY CORE_HTAB_ENTRY_BYTES
#define HT_MIN 1024u
/* Most partitions of one level, and the least buffer each should get
 * (smaller frames make the spill files mostly headers). */
#define PARTS_MAX 256u
#define PART_BUF_MIN ((uint64_t)32 << 10)
/* Most probe batches one output batch's pairs may name: a spilled
 * partition's frames are small under a small budget, and an output
 * batch per frame would make small output frames and gathers too small
 * to share between threads. */
#define RING_MAX 16u

/* A key conversion: the augmented column made from a side's key. */
enum conv {
	CONV_NONE = 0,
	CONV_TO_FLOAT,		/* integer-like or decimal -> float64 */
	CONV_DATE_TS,		/* date -> timestamp (microseconds) */
	CONV_WIDE,		/* exact number -> its 16 bytes at the
				   common scale, as a string */
};

/* One side's key preparation. */
struct side {
	const struct core_schema *schema;	/* borrowed: the input's */
	struct core_schema *aug;	/* owned: + converted keys; or NULL
					   when none (then schema) */
	uint32_t nconv;
	uint32_t conv_col[CORE_HASH_MAX_KEYS];	/* source column */
	uint8_t conv_kind[CORE_HASH_MAX_KEYS];	/* enum conv */
	uint8_t conv_scale[CORE_HASH_MAX_KEYS];	/* decimal's scale */
	uint8_t conv_up[CORE_HASH_MAX_KEYS];	/* CONV_WIDE: common scale
						   minus own */
	struct core_hash_keys hk;
	struct core_batch inb;		/* the batch the input fills */
	struct core_batch ab;		/* augmented view of an input batch */
	void *conv_buf[CORE_HASH_MAX_KEYS];	/* owned: converted values */
	size_t conv_cap[CORE_HASH_MAX_KEYS];
	uint8_t *conv_valid[CORE_HASH_MAX_KEYS];	/* owned bitmaps */
	size_t conv_vcap[CORE_HASH_MAX_KEYS];
	/* Owned: CONV_WIDE's offsets, 16 apart. */
	int32_t *conv_off[CORE_HASH_MAX_KEYS];
	size_t conv_ocap[CORE_HASH_MAX_KEYS];
};

/* A batch of the store: a copy of an input batch, or a spill frame. */
struct sbatch {
	struct core_batch b;		/* copy: views into chunk */
	unsigned char *chunk;		/* owned, or NULL for a frame */
	struct core_spill_frame *f;	/* owned, or NULL for a copy */
	struct core_gather_out *go;	/* owned, or NULL: rows gathered */
	uint32_t part;			/* go: the resident partition */
	size_t blk;			/* copy: the store's blocks when it
					   was made (it is in the last) */
	uint64_t bytes;			/* charged for chunk */
	uint8_t *flag;			/* owned: per row 0 unmatched, 1
					   matched, 2 NULL key; or NULL */
};

struct store {
	struct sbatch *b;		/* owned */
	size_t n, cap;
	const struct core_batch **ptrs;	/* owned: n + 1 sources, the last
					   the NULL row */
	size_t ptrs_cap;
	uint64_t rows;
	uint64_t bytes;			/* charged for copies and flags */
	struct core_htab ht;
	uint64_t ht_charged;
	/* The copies' memory (store_copy): blocks of ARENA_MAX bytes or a
	 * sixteenth of the budget, whichever is less, handed out in turn
	 * and freed together by store_clear.  A copy a block of its own
	 * made every page of a large build side fault in on its own (the
	 * blocks are large enough for core_alloc's huge-page advice), and
	 * mapped and unmapped it again for every partition. */
	unsigned char **blk;		/* owned, nblk, each owned */
	size_t nblk, blk_cap;
	unsigned char *at;		/* the current block's free part */
	size_t left;
};

/* The batches of one input read ahead (--build auto on streams), copies
 * given back as they are read again. */
struct held {
	struct sbatch *b;		/* owned, n */
	size_t n, cap;
	size_t pos;			/* the next to hand out */
	uint64_t bytes;			/* charged, of those not freed */
	/* The batch that did not fit the read-ahead, not copied: the
	 * input's own, valid until the side is read again; after b. */
	const struct core_batch *view;
	bool eof;			/* the input has ended */
};

/*
 * An output batch assembled behind the caller: while a partition's
 * probe pass reads and probes the next spill frames, a helper gathers
 * the pairs waiting and emits them.  The job owns copies of the source
 * lists and the pairs; the sources themselves (the frames the ring
 * names, the store's batches) stay untouched until it is done, as every
 * change to them waits for it first (out_wait): psrc_next reads into no
 * frame the job names, psrc_close, store_clear and a store's growth
 * wait.  One job in flight at a time; emit is never called by two
 * threads at once.
 */
struct outjob {
	struct core_pool_task task;
	bool busy;
	uint64_t *pr, *br;		/* owned, out_rows each */
	const struct core_batch **ps, **bs;	/* owned: the sources */
	size_t nps, nbs, ps_cap, bs_cap;
	uint32_t n;
	uint64_t widest;		/* J->widest's sum when started */
	int rc;
	struct core_err err;
};

struct join {
	const struct core_join_options *o;
	const struct core_join_plan *plan;
	struct core_mem *mem;
	struct core_err *err;
	core_join_emit_fn emit;
	void *emit_arg;
	struct core_join_stats *st;
	const struct core_join_input *in[2];	/* left, right */
	int bside, pside;		/* build and probe: 0 left, 1 right */
	struct side side[2];		/* indexed by 0 left, 1 right */
	struct core_pool *pool;
	struct core_join_out *out;

	/* What the type wants, from the probe side's point of view. */
	bool pairs;			/* matched pairs are output */
	bool probe_unmatched;		/* unmatched probe rows, padded */
	bool build_unmatched;		/* unmatched build rows, padded */
	bool semi_probe;		/* probe rows with a match, once */
	bool semi_build;		/* build rows with a match */
	bool build_flags;		/* the store keeps flags */
	bool null_aware;
	uint64_t nulls[2];		/* rows with a NULL key, per side */

	struct core_mem_part p_build, p_part, p_probe, p_out, p_held;
	struct held held[2];		/* read ahead, per side */
	uint64_t build_cap;		/* bytes the store and table may use */
	uint32_t out_rows;		/* pairs per output batch */
	/* The widest row read from each input (row_check), and the bytes
	 * an output batch should keep to (0: no budget). */
	uint64_t widest[2], out_bytes;
	uint64_t *rowb;			/* owned: row_check's row sizes */
	size_t rowb_cap;

	struct store st_b;

	/* Scratch for a probe batch, grown to its rows. */
	uint64_t *hash;
	uint8_t *isnull;
	uint32_t *cand, *act;
	uint64_t *refs;
	uint8_t *eq, *hit;
	uint32_t *part_of;
	size_t scap;

	/* Pairs waiting for an output batch. */
	uint64_t *pr, *br;		/* probe and build references */
	uint32_t npairs;
	/* The probe sources the waiting pairs name: ring[0] the probe
	 * side's NULL row, ring[1..nring] probe batches their source still
	 * holds, ring[cur] the one being probed (cur 0: none). */
	const struct core_batch *ring[RING_MAX + 1];
	uint32_t nring, cur;
	uint64_t ring_rows;		/* rows of ring[1..nring] */
	/* Their bytes (copy_bytes, each and in all), and the most the
	 * ring may hold before its pairs go (a probe frame is as big as
	 * the partition buffers made it). */
	uint64_t ring_b[RING_MAX + 1], ring_bytes, ring_cap;
	uint64_t frame_cap;		/* a partition frame's most bytes */
	/* Output assembled behind (struct outjob): allowed while the probe
	 * sources are spill frames the pass holds (async_out), with a
	 * helper to do it. */
	bool async_out;
	struct outjob oj;
	int out_rc;			/* a job's failure, once seen */

	/* Chunked joins: a flag per probe row of the partition. */
	uint8_t *pflag;
	uint64_t pflag_cap;
	bool multi;			/* the store holds one of several
					   chunks */
	uint64_t spill_base;		/* spill bytes of finished sets */

	/* Hybrid: partitions [0, resident) of the first level stay in
	 * memory, in the store; their rows are gathered out of each
	 * batch (g_build charging p_build, g_probe charging p_probe). */
	uint32_t resident;
	struct core_gather *g_build, *g_probe;
	struct core_gather_out probe_go;
	uint32_t *rsel;			/* rows of a batch kept resident */
	uint32_t *rpart;		/* their partitions */
	uint32_t *rsort;		/* rsel by partition */
	size_t rsel_cap, rpart_cap, rsort_cap;
};

/* ---- sides and key conversion ---- */

static int
side_init(struct join *J, int s, struct core_err *err)
{
	const struct core_join_plan *p = J->plan;
	struct side *sd = &J->side[s];
	uint32_t cols[CORE_HASH_MAX_KEYS];
	uint8_t scales[CORE_HASH_MAX_KEYS];
	uint32_t k, i;

	sd->schema = J->in[s]->schema;
	if (p->nkeys > CORE_HASH_MAX_KEYS)
		return core_err_set(err, CORE_EUSAGE, "at most %d key pairs",
		    CORE_HASH_MAX_KEYS);
	for (k = 0; k < p->nkeys; k++) {
		const struct core_join_key *key = &p->keys[k];
		uint32_t c = s == 0 ? key->lcol : key->rcol;
		struct core_coltype t = sd->schema->fields[c].type;
		struct core_coltype o = J->side[0].schema->fields[key->lcol]
		    .type;
		struct core_coltype r = J->in[1]->schema->fields[key->rcol]
		    .type;
		unsigned so = core_type_is_decimal(o.id) ? o.scale : 0;
		unsigned sr = core_type_is_decimal(r.id) ? r.scale : 0;
		enum conv cv = CONV_NONE;

		if (key->common.id == CORE_TYPE_FLOAT64 &&
		    t.id != CORE_TYPE_FLOAT64)
			cv = CONV_TO_FLOAT;
		else if (key->common.id == CORE_TYPE_TIMESTAMP &&
		    t.id == CORE_TYPE_DATE)
			cv = CONV_DATE_TS;
		else if (key->common.id == CORE_TYPE_DECIMAL128)
			cv = CONV_WIDE;
		cols[k] = c;
		scales[k] = 0;
		if (cv != CONV_NONE) {
			sd->conv_col[sd->nconv] = c;
			sd->conv_kind[sd->nconv] = (uint8_t)cv;
			sd->conv_scale[sd->nconv] =
			    core_type_is_decimal(t.id) ? t.scale : 0;
			sd->conv_up[sd->nconv] = (uint8_t)(key->common.scale -
			    sd->conv_scale[sd->nconv]);
			cols[k] = sd->schema->ncols + sd->nconv;
			sd->nconv++;
		} else if (key->common.id != CORE_TYPE_FLOAT64 &&
		    key->common.id != CORE_TYPE_STRING &&
		    key->common.id != CORE_TYPE_TIMESTAMP) {
			scales[k] = (uint8_t)(so < sr ? so : sr);
		}
	}
	if (sd->nconv > 0) {
		sd->aug = core_schema_new(sd->schema->ncols + sd->nconv);
		for (i = 0; i < sd->schema->ncols; i++)
			core_schema_set(sd->aug, i, sd->schema->fields[i].name,
			    sd->schema->fields[i].type);
		for (i = 0; i < sd->nconv; i++) {
			struct core_coltype t = { 0 };
			char name[32];

			t.id = sd->conv_kind[i] == CONV_TO_FLOAT ?
			    CORE_TYPE_FLOAT64 : sd->conv_kind[i] == CONV_WIDE ?
			    CORE_TYPE_STRING : CORE_TYPE_TIMESTAMP;
			snprintf(name, sizeof(name), " join key %u", i + 1);
			core_schema_set(sd->aug, sd->schema->ncols + i, name, t);
		}
	}
	core_batch_init(&sd->inb, sd->schema);
	core_batch_init(&sd->ab, sd->aug != NULL ? sd->aug : sd->schema);
	return core_hash_keys_init(&sd->hk, sd->aug != NULL ? sd->aug :
	    sd->schema, cols, scales, p->nkeys, err);
}

static const struct core_schema *
side_schema(const struct side *sd)
{
	return sd->aug != NULL ? sd->aug : sd->schema;
}

static void
side_release(struct side *sd)
{
	uint32_t i;

	for (i = 0; i < sd->nconv; i++) {
		core_free_aligned(sd->conv_buf[i]);
		core_free_aligned(sd->conv_valid[i]);
		free(sd->conv_off[i]);
	}
	/* The augmented batch's columns are views. */
	free(sd->ab.cols);
	core_batch_release(&sd->inb);
	core_schema_free(sd->aug);
}

/* To the scale of a decimal128 (38): a literal each, correctly rounded. */
static const double pow10d[39] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12,
	1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22, 1e23,
	1e24, 1e25, 1e26, 1e27, 1e28, 1e29, 1e30, 1e31, 1e32, 1e33, 1e34,
	1e35, 1e36, 1e37, 1e38,
};

/* v * m, wrapping: a NULL's value may be anything. */
static inline core_i128
wide_mul(core_i128 v, core_i128 m)
{
	__extension__ typedef unsigned __int128 u128;

	return (core_i128)((u128)v * (u128)m);
}

/*
 * Key conversion i of sd (CONV_WIDE) of column c's n rows into d: the
 * number each value stands for times 10^common scale, as a 128-bit
 * integer, its 16 bytes a string.  The plan's common type has room for
 * both sides' digits, so the product is exact and equal numbers give
 * equal bytes whatever their type and scale; a NULL's bytes are zero.
 */
static void
wide_key(struct side *sd, uint32_t i, const struct core_column *c,
    struct core_column *d, uint32_t n)
{
	core_i128 mul = 1;
	char *o;
	uint32_t r;

	for (r = 0; r < sd->conv_up[i]; r++)
		mul *= 10;
	core_grow_aligned(&sd->conv_buf[i], &sd->conv_cap[i],
	    (size_t)(n ? n : 1) * 16);
	o = sd->conv_buf[i];
	d->values = o;
	if ((size_t)n + 1 > sd->conv_ocap[i]) {
		size_t cap = (size_t)n + 1, j;

		free(sd->conv_off[i]);
		sd->conv_off[i] = core_xmalloc(cap * sizeof(int32_t));
		for (j = 0; j < cap; j++)
			sd->conv_off[i][j] = (int32_t)(16 * j);
		sd->conv_ocap[i] = cap;
	}
	d->offsets = sd->conv_off[i];
	switch (c->type.id) {
	case CORE_TYPE_INT32: {
		const int32_t *v = c->values;

		for (r = 0; r < n; r++)
			core_i128_store(o + 16 * (size_t)r,
			    wide_mul(v[r], mul));
		break;
	}
	case CORE_TYPE_DECIMAL128: {
		const char *v = c->values;

		for (r = 0; r < n; r++)
			core_i128_store(o + 16 * (size_t)r,
			    wide_mul(core_i128_load(v + 16 * (size_t)r), mul));
		break;
	}
	default: {	/* int64, decimal */
		const int64_t *v = c->values;

		for (r = 0; r < n; r++)
			core_i128_store(o + 16 * (size_t)r,
			    wide_mul(v[r], mul));
		break;
	}
	}
	if (d->validity != NULL)
		for (r = 0; r < n; r++)
			if (!core_col_is_valid(d, r))
				memset(o + 16 * (size_t)r, 0, 16);
}

/* The augmented view of input batch b: its columns, then its keys
 * converted.  Valid until the next call for the side. */
static const struct core_batch *
side_augment(struct side *sd, const struct core_batch *b)
{
	uint32_t n = b->nrows, i, r;

	if (sd->nconv == 0)
		return b;
	for (i = 0; i < b->ncols; i++) {
		sd->ab.cols[i] = b->cols[i];
		sd->ab.cols[i].validity_buf = NULL;
		sd->ab.cols[i].validity_cap = 0;
		sd->ab.cols[i].values_cap = 0;
		sd->ab.cols[i].offsets_cap = 0;
	}
	for (i = 0; i < sd->nconv; i++) {
		const struct core_column *c = &b->cols[sd->conv_col[i]];
		struct core_column *d = &sd->ab.cols[b->ncols + i];
		size_t need = (size_t)(n ? n : 1) * 8;

		core_grow_aligned(&sd->conv_buf[i], &sd->conv_cap[i], need);
		memset(d, 0, sizeof(*d));
		d->type = sd->ab.schema->fields[b->ncols + i].type;
		d->values = sd->conv_buf[i];
		if (c->validity != NULL) {
			size_t vb = core_bitmap_bytes(n) + 1;

			core_grow_aligned((void **)&sd->conv_valid[i],
			    &sd->conv_vcap[i], vb);
			memcpy(sd->conv_valid[i], c->validity,
			    core_bitmap_bytes(n));
			d->validity = sd->conv_valid[i];
		}
		if (sd->conv_kind[i] == CONV_WIDE) {
			wide_key(sd, i, c, d, n);
			continue;
		}
		if (sd->conv_kind[i] == CONV_DATE_TS) {
			const int32_t *v = c->values;
			int64_t *o = sd->conv_buf[i];

			for (r = 0; r < n; r++)
				o[r] = (int64_t)v[r] * 86400000000LL;
			continue;
		}
		{
			double *o = sd->conv_buf[i];
			double div = pow10d[sd->conv_scale[i]];

			switch (c->type.id) {
			case CORE_TYPE_BOOL: {
				const uint8_t *v = c->values;

				for (r = 0; r < n; r++)
					o[r] = v[r];
				break;
			}
			case CORE_TYPE_INT32:
			case CORE_TYPE_DATE: {
				const int32_t *v = c->values;

				for (r = 0; r < n; r++)
					o[r] = v[r];
				break;
			}
			case CORE_TYPE_DECIMAL: {
				const int64_t *v = c->values;

				for (r = 0; r < n; r++)
					o[r] = (double)v[r] / div;
				break;
			}
			case CORE_TYPE_DECIMAL128: {
				const char *v = c->values;

				for (r = 0; r < n; r++)
					o[r] = (double)core_i128_load(v +
					    16 * (size_t)r) / div;
				break;
			}
			default: {
				const int64_t *v = c->values;

				for (r = 0; r < n; r++)
					o[r] = (double)v[r];
				break;
			}
			}
		}
	}
	sd->ab.nrows = n;
	return &sd->ab;
}

/* ---- scratch ---- */

static void
scratch(struct join *J, uint32_t n)
{
	size_t c;

	if (n <= J->scap)
		return;
	c = n;
	free(J->hash);
	free(J->isnull);
	free(J->cand);
	free(J->act);
	free(J->refs);
	free(J->eq);
	free(J->hit);
	free(J->part_of);
	J->hash = core_xmalloc(c * sizeof(*J->hash));
	J->isnull = core_xmalloc(c);
	J->cand = core_xmalloc(c * sizeof(*J->cand));
	J->act = core_xmalloc(c * sizeof(*J->act));
	J->refs = core_xmalloc(c * sizeof(*J->refs));
	J->eq = core_xmalloc(c);
	J->hit = core_xmalloc(c);
	J->part_of = core_xmalloc(c * sizeof(*J->part_of));
	J->scap = c;
}

/* ---- output ---- */

/* Bytes of row ref (batch << 32 | row) of srcs, as row_check counts
 * them. */
static uint64_t
ref_bytes(const struct core_batch *const *srcs, uint64_t ref)
{
	const struct core_batch *b = srcs[ref >> 32];
	uint32_t r = (uint32_t)ref, i;
	uint64_t w = 0;

	for (i = 0; i < b->ncols; i++) {
		const struct core_column *c = &b->cols[i];
		size_t cw = core_type_width(c->type.id);

		w += cw != 0 ? cw : 4 + (uint64_t)(c->offsets[r + 1] -
		    c->offsets[r]);
	}
	return w;
}

/*
 * How many of the n pairs from i on make an output batch within
 * J->out_bytes (one at least): all of them unless rows this wide were
 * read that out_rows pairs of them could pass it.
 */
static uint32_t
out_piece(const struct join *J, uint64_t widest,
    const struct core_batch *const *ps, const struct core_batch *const *bs,
    const uint64_t *pr, const uint64_t *br, uint32_t i, uint32_t n)
{
	uint64_t tot = 0;
	uint32_t k;

	if (J->out_bytes == 0 || widest * J->out_rows <= J->out_bytes)
		return n - i;
	for (k = i; k < n; k++) {
		tot += ref_bytes(ps, pr[k]) + ref_bytes(bs, br[k]);
		if (tot > J->out_bytes && k > i)
			break;
	}
	return k - i;
}

/* Emits pairs pr[i], br[i] (i < n) of probe sources ps[0..np) and
 * build sources bs[0..nb), in batches of out_bytes when rows are wide
 * (widest: the widest rows' bytes, both sides'). */
static int
emit_pairs(struct join *J, uint64_t widest, const struct core_batch *const *ps,
    size_t np, const struct core_batch *const *bs, size_t nb,
    const uint64_t *pr, const uint64_t *br, uint32_t n, struct core_err *err)
{
	uint32_t i, m;
	int rc = 0;

	for (i = 0; i < n && rc == 0; i += m) {
		m = out_piece(J, widest, ps, bs, pr, br, i, n);
		if (J->pside == 0)
			rc = core_join_out_emit(J->out, ps, np, pr + i, bs, nb,
			    br + i, m, J->emit, J->emit_arg, err);
		else
			rc = core_join_out_emit(J->out, bs, nb, br + i, ps, np,
			    pr + i, m, J->emit, J->emit_arg, err);
	}
	return rc;
}

static void
out_job(void *arg, unsigned who)
{
	struct join *J = arg;
	struct outjob *oj = &J->oj;

	(void)who;
	oj->rc = emit_pairs(J, oj->widest, oj->ps, oj->nps, oj->bs, oj->nbs,
	    oj->pr, oj->br, oj->n, &oj->err);
}

/* Waits for the output job in flight, if any.  0, or the failure of
 * this or an earlier job (J->err then says why, unless it already held
 * an error of the caller's). */
static int
out_wait(struct join *J)
{
	struct outjob *oj = &J->oj;

	if (oj->busy) {
		core_pool_wait(J->pool, &oj->task);
		oj->busy = false;
		if (oj->rc != 0 && J->out_rc == 0) {
			J->out_rc = oj->rc;
			if (J->err->code == 0)
				*J->err = oj->err;
		}
	}
	return J->out_rc;
}

/* Hands the n pairs waiting, of sources ps[0..np) and bs[0..nb), to a
 * helper (the previous job waited for first). */
static int
out_start(struct join *J, const struct core_batch *const *ps, size_t np,
    const struct core_batch *const *bs, size_t nb, uint32_t n)
{
	struct outjob *oj = &J->oj;
	uint64_t *t;
	int rc;

	if ((rc = out_wait(J)) != 0)
		return rc;
	oj->ps = core_grow(oj->ps, &oj->ps_cap, np, sizeof(*oj->ps), 32);
	oj->bs = core_grow(oj->bs, &oj->bs_cap, nb, sizeof(*oj->bs), 32);
	memcpy(oj->ps, ps, np * sizeof(*ps));
	memcpy(oj->bs, bs, nb * sizeof(*bs));
	oj->nps = np;
	oj->nbs = nb;
	t = oj->pr;
	oj->pr = J->pr;
	J->pr = t;
	t = oj->br;
	oj->br = J->br;
	J->br = t;
	oj->n = n;
	oj->widest = J->widest[0] + J->widest[1];
	oj->rc = 0;
	memset(&oj->err, 0, sizeof(oj->err));
	oj->busy = true;
	core_pool_start(J->pool, &oj->task, out_job, J);
	return 0;
}

/* Whether the output job in flight names batch b among its sources. */
static bool
out_names(const struct join *J, const struct core_batch *b)
{
	size_t i;

	for (i = 0; J->oj.busy && i < J->oj.nps; i++)
		if (J->oj.ps[i] == b)
			return true;
	return false;
}

/* Emits the pairs waiting (probe sources the ring, build sources the
 * store's), here or, while async_out, behind the caller; the ring keeps
 * only the batch being probed, now ring[1]. */
static int
flush(struct join *J)
{
	struct store *S = &J->st_b;
	uint32_t n = J->npairs, np = J->nring + 1;
	int rc = 0;

	if (n > 0) {
		J->ring[0] = core_join_out_null(J->out, J->pside);
		S->ptrs = core_grow(S->ptrs, &S->ptrs_cap, S->n + 1,
		    sizeof(*S->ptrs), 16);
		S->ptrs[S->n] = core_join_out_null(J->out, J->bside);
		J->npairs = 0;
		if (J->async_out)
			rc = out_start(J, J->ring, np, S->ptrs, S->n + 1, n);
		else if ((rc = out_wait(J)) == 0)
			rc = emit_pairs(J, J->widest[0] + J->widest[1],
			    J->ring, np, S->ptrs, S->n + 1, J->pr, J->br, n,
			    J->err);
		J->st->rows_out += n;
	}
	if (J->cur != 0) {
		J->ring[1] = J->ring[J->cur];
		J->ring_bytes = J->ring_b[1] = J->ring_b[J->cur];
		J->cur = J->nring = 1;
		J->ring_rows = J->ring[1]->nrows;
	} else {
		J->nring = 0;
		J->ring_rows = 0;
		J->ring_bytes = 0;
	}
	return rc;
}

static inline int
add_pair(struct join *J, uint64_t pref, uint64_t bref)
{
	J->pr[J->npairs] = pref;
	J->br[J->npairs] = bref;
	if (++J->npairs == J->out_rows)
		return flush(J);
	return 0;
}

static uint64_t copy_bytes(const struct core_batch *b);

/* Probe batch pb joins the ring as the one being probed. */
static void
ring_push(struct join *J, const struct core_batch *pb)
{
	CORE_DCHECK(J->nring < RING_MAX && J->cur == 0);
	J->ring[++J->nring] = pb;
	J->cur = J->nring;
	J->ring_rows += pb->nrows;
	J->ring_bytes += J->ring_b[J->cur] = copy_bytes(pb);
}

/* Row i of the batch being probed, as a pair's probe reference. */
static inline uint64_t
cur_ref(const struct join *J, uint32_t i)
{
	return (uint64_t)J->cur << 32 | i;
}

/* The batch being probed is done.  keep: its source holds it until told
 * (psrc_next), so its pairs may wait for those of the next batches,
 * until an output batch's worth or a full ring; else they go now. */
static int
ring_done(struct join *J, bool keep)
{
	J->cur = 0;
	if (keep && J->nring < RING_MAX && J->ring_rows < J->out_rows &&
	    J->ring_bytes < J->ring_cap)
		return 0;
	return flush(J);
}

/* The reference of the probe side's NULL row: ring[0]'s only row. */
static uint64_t
null_pref(void)
{
	return 0;
}

static uint64_t
null_bref(const struct join *J)
{
	return (uint64_t)J->st_b.n << 32;
}

/* A new partition set's frames are kept to frame_cap, and written
 * behind the caller (core_part_async), small ones handed over by the
 * group. */
static void
part_setup(struct join *J, struct core_part *p)
{
	core_part_frame_cap(p, J->frame_cap);
	core_part_async(p, J->pool);
}

/* ---- the store ---- */

static uint64_t
ht_bytes(uint64_t rows)
{
	uint64_t c = HT_MIN;

	while (c < rows)
		c *= 2;
	return c * HT_ENTRY;
}

/* Bytes a copy of b's rows takes (64-byte aligned buffers). */
static uint64_t
copy_bytes(const struct core_batch *b)
{
	uint64_t n = b->nrows, t = 0;
	uint32_t i;

	for (i = 0; i < b->ncols; i++) {
		const struct core_column *c = &b->cols[i];
		size_t w = core_type_width(c->type.id);

		if (c->validity != NULL)
			t += (core_bitmap_bytes(b->nrows) + 63) & ~63ull;
		if (w == 0) {
			t += ((n + 1) * 4 + 63) & ~63ull;
			t += ((uint64_t)c->offsets[n] - (uint64_t)c->offsets[0]
			    + 63) & ~63ull;
		} else {
			t += (n * w + 63) & ~63ull;
		}
	}
	return t;
}

static const struct core_batch *
sb_batch(const struct sbatch *sb)
{
	if (sb->go != NULL)
		return &sb->go->batch;
	return sb->f != NULL ? &sb->f->batch : &sb->b;
}

/* Makes room for one more batch; the sources follow the array when it
 * moves, once no output job reads them (its failure is out_rc's). */
static void
store_slot(struct join *J)
{
	struct store *S = &J->st_b;
	struct sbatch *old;
	size_t i;

	(void)out_wait(J);
	old = S->b;
	S->b = core_grow(S->b, &S->cap, S->n + 1, sizeof(*S->b), 16);
	S->ptrs = core_grow(S->ptrs, &S->ptrs_cap, S->n + 2,
	    sizeof(*S->ptrs), 16);
	if (S->b != old)
		for (i = 0; i < S->n; i++)
			S->ptrs[i] = sb_batch(&S->b[i]);
	memset(&S->b[S->n], 0, sizeof(S->b[S->n]));
}

/* Makes sb (zeroed) a copy of b in one chunk of bytes (copy_bytes(b)),
 * not charged: at mem (64-byte aligned, not owned), or with mem NULL in
 * a chunk of its own. */
static void
sb_copy(struct sbatch *sb, const struct core_batch *b, uint64_t bytes,
    unsigned char *mem)
{
	unsigned char *p;
	uint32_t n = b->nrows, i;

	core_batch_init(&sb->b, b->schema);
	if (mem != NULL)
		p = mem;
	else
		p = sb->chunk = bytes ? core_xmalloc_aligned(bytes) : NULL;
	sb->bytes = bytes;
	for (i = 0; i < b->ncols; i++) {
		const struct core_column *c = &b->cols[i];
		struct core_column *d = &sb->b.cols[i];
		size_t w = core_type_width(c->type.id);

		if (c->validity != NULL) {
			d->validity = p;
			memcpy(p, c->validity, core_bitmap_bytes(n));
			p += (core_bitmap_bytes(n) + 63) & ~63ull;
		}
		if (w == 0) {
			int32_t base = c->offsets[0], r;
			size_t tb = (size_t)(c->offsets[n] - base);

			d->offsets = (int32_t *)(void *)p;
			for (r = 0; r <= (int32_t)n; r++)
				d->offsets[r] = c->offsets[r] - base;
			p += ((size_t)(n + 1) * 4 + 63) & ~(size_t)63;
			d->values = p;
			if (tb > 0)
				memcpy(p, (const char *)c->values + base, tb);
			p += (tb + 63) & ~(size_t)63;
		} else {
			d->values = p;
			if (n > 0)
				memcpy(p, c->values, (size_t)n * w);
			p += ((size_t)n * w + 63) & ~(size_t)63;
		}
	}
	sb->b.nrows = n;
}

#define ARENA_MIN ((size_t)1 << 20)
#define ARENA_MAX ((size_t)32 << 20)

/* bytes (a multiple of 64) of the store's blocks, 64-byte aligned. */
static unsigned char *
store_alloc(struct join *J, uint64_t bytes)
{
	struct store *S = &J->st_b;
	unsigned char *p;
	size_t want;

	if (bytes > S->left) {
		want = J->mem->limit / 16;
		want = want < ARENA_MIN ? ARENA_MIN : want > ARENA_MAX ?
		    ARENA_MAX : want;
		if (want < bytes)
			want = (size_t)bytes;
		S->blk = core_grow(S->blk, &S->blk_cap, S->nblk + 1,
		    sizeof(*S->blk), 16);
		S->at = S->blk[S->nblk++] = core_xmalloc_aligned(want);
		S->left = want;
	}
	p = S->at;
	S->at += bytes;
	S->left -= (size_t)bytes;
	return p;
}

/* Appends a copy of b (charged, whatever the budget says: the caller
 * decided it fits) to the store. */
static void
store_copy(struct join *J, const struct core_batch *b, uint64_t bytes)
{
	struct store *S = &J->st_b;
	struct sbatch *sb;

	store_slot(J);
	sb = &S->b[S->n];
	sb_copy(sb, b, bytes, bytes ? store_alloc(J, bytes) : NULL);
	sb->blk = S->nblk;
	core_mem_part_charge(&J->p_build, bytes);
	S->bytes += bytes;
	S->ptrs[S->n] = &sb->b;
	S->rows += b->nrows;
	S->n++;
}

/* Appends the next frame of cursor c (its record is len bytes) to the
 * store. */
static int
store_frame(struct join *J, struct core_spill *sp, struct core_spill_cursor *c)
{
	struct store *S = &J->st_b;
	struct sbatch *sb;
	int rc;

	store_slot(J);
	sb = &S->b[S->n];
	sb->f = core_xcalloc(1, sizeof(*sb->f));
	core_batch_init(&sb->f->batch, core_spill_schema(sp));
	rc = core_spill_read_frame(sp, c, sb->f, &J->p_build, J->err);
	if (rc != 0) {
		core_spill_frame_release(sb->f, &J->p_build);
		core_batch_release(&sb->f->batch);
		free(sb->f);
		sb->f = NULL;
		return rc;
	}
	S->ptrs[S->n] = &sb->f->batch;
	S->rows += sb->f->batch.nrows;
	S->n++;
	return 0;
}

/* Frees every batch of the store and its table; the memory goes back. */
static void
store_clear(struct join *J)
{
	struct store *S = &J->st_b;
	size_t i;

	/* No output job reads them any more (its failure is out_rc's). */
	(void)out_wait(J);
	for (i = 0; i < S->n; i++) {
		struct sbatch *sb = &S->b[i];

		if (sb->go != NULL) {
			core_gather_out_release(J->g_build, sb->go);
			free(sb->go);
		} else if (sb->f != NULL) {
			core_spill_frame_release(sb->f, &J->p_build);
			core_batch_release(&sb->f->batch);
			free(sb->f);
		} else {
			core_free_aligned(sb->chunk);
			free(sb->b.cols);
		}
		free(sb->flag);
	}
	for (i = 0; i < S->nblk; i++)
		core_free_aligned(S->blk[i]);
	S->nblk = 0;
	S->at = NULL;
	S->left = 0;
	core_mem_part_release(&J->p_build, S->bytes + S->ht_charged);
	core_htab_release(&S->ht);
	S->n = 0;
	S->rows = 0;
	S->bytes = 0;
	S->ht_charged = 0;
}

/* Builds the table (and the flags) of the store's rows. */
static void
store_index(struct join *J)
{
	struct store *S = &J->st_b;
	struct side *sd = &J->side[J->bside];
	uint64_t need = ht_bytes(S->rows);
	struct core_err e0;
	size_t i;
	uint32_t r, m;

	core_htab_reset(&S->ht);
	if (need > S->ht_charged) {
		core_mem_part_charge(&J->p_build, need - S->ht_charged);
		S->ht_charged = need;
	}
	/* Sized once for every row: no growth re-links the chains.  The
	 * table charges nothing itself (its size is charged above). */
	(void)core_htab_reserve(&S->ht, (size_t)S->rows, &e0);
	for (i = 0; i < S->n; i++) {
		const struct core_batch *b = S->ptrs[i];
		uint32_t n = b->nrows;
		struct core_err e2;

		scratch(J, n);
		core_hash_batch(&sd->hk, b, NULL, n, 0, J->hash, J->isnull);
		m = 0;
		for (r = 0; r < n; r++) {
			J->act[m] = r;
			m += !J->isnull[r];
		}
		if (J->build_flags) {
			uint8_t *f = S->b[i].flag = core_xmalloc(n ? n : 1);

			core_mem_part_charge(&J->p_build, n);
			S->bytes += n;
			for (r = 0; r < n; r++)
				f[r] = (uint8_t)(J->isnull[r] << 1);
		}
		/* Compact the hashes of the rows inserted. */
		for (r = 0; r < m; r++)
			J->hash[r] = J->hash[J->act[r]];
		/* The table is not given a budget part: its size was
		 * charged above, ahead, from the row count. */
		(void)core_htab_insert(&S->ht, J->hash, J->act, m,
		    (uint32_t)i, &e2);
	}
}

/* ---- probing ---- */

/* Whether an unmatched left row with a NULL key is output (anti joins:
 * always, but NOT IN only when the right side is empty). */
static bool
null_left_survives(const struct join *J)
{
	return !J->null_aware || J->st->rows_right == 0;
}

/*
 * Probes the store's table with batch pb (its first row is row base of
 * the probe pass, for the chunk flags) and emits what the type wants;
 * keep as ring_done's.
 */
static int
probe_batch(struct join *J, const struct core_batch *pb, uint64_t base,
    bool keep)
{
	struct store *S = &J->st_b;
	struct side *ps = &J->side[J->pside], *bs = &J->side[J->bside];
	uint32_t n = pb->nrows, m, j, k, i;
	bool stop_at_hit = !J->pairs && !J->build_flags;
	int rc;

	if (n == 0)
		return 0;
	ring_push(J, pb);
	scratch(J, n);
	core_hash_batch(&ps->hk, pb, NULL, n, 0, J->hash, J->isnull);
	core_htab_probe(&S->ht, J->hash, n, J->cand);
	memset(J->hit, 0, n);
	m = 0;
	for (i = 0; i < n; i++) {
		J->act[m] = i;
		J->cand[m] = J->cand[i];
		m += J->cand[i] != CORE_HTAB_NONE && !J->isnull[i];
	}
	while (m > 0) {
		core_htab_refs(&S->ht, J->cand, m, J->refs);
		core_hash_equal(&ps->hk, pb, J->act, &bs->hk, S->ptrs, J->refs,
		    m, false, J->eq);
		for (j = 0; j < m; j++) {
			uint64_t ref = J->refs[j];

			if (!J->eq[j])
				continue;
			J->hit[J->act[j]] = 1;
			if (J->build_flags)
				S->b[ref >> 32].flag[(uint32_t)ref] = 1;
			if (J->pairs && (rc = add_pair(J,
			    cur_ref(J, J->act[j]), ref)) != 0)
				return rc;
		}
		core_htab_next(&S->ht, J->cand, m);
		k = 0;
		for (j = 0; j < m; j++) {
			J->act[k] = J->act[j];
			J->cand[k] = J->cand[j];
			k += J->cand[j] != CORE_HTAB_NONE &&
			    !(stop_at_hit && J->hit[J->act[j]]);
		}
		m = k;
	}
	if (J->semi_probe) {
		for (i = 0; i < n; i++) {
			if (!J->hit[i])
				continue;
			if (J->multi) {
				if (J->pflag[base + i])
					continue;
				J->pflag[base + i] = 1;
			}
			if ((rc = add_pair(J, cur_ref(J, i), 0)) != 0)
				return rc;
		}
	} else if (J->probe_unmatched) {
		if (J->multi) {
			for (i = 0; i < n; i++)
				J->pflag[base + i] |= J->hit[i];
		} else {
			bool nl = J->pside == 0 && !null_left_survives(J);

			for (i = 0; i < n; i++) {
				if (J->hit[i] || (nl && J->isnull[i]))
					continue;
				if ((rc = add_pair(J, cur_ref(J, i),
				    null_bref(J))) != 0)
					return rc;
			}
		}
	}
	return ring_done(J, keep);
}

/* After a chunk's probe pass: the build rows the type wants on their own
 * (unmatched, padded; or semi: matched). */
static int
emit_build_rows(struct join *J)
{
	struct store *S = &J->st_b;
	bool nl = J->bside == 0 && !null_left_survives(J);
	size_t i;
	uint32_t r;
	int rc;

	if (!J->build_unmatched && !J->semi_build)
		return 0;
	if (J->null_aware && J->nulls[1] > 0)
		return 0;	/* NOT IN with a NULL on the right: no row */
	for (i = 0; i < S->n; i++) {
		const uint8_t *f = S->b[i].flag;
		uint32_t n = S->ptrs[i]->nrows;

		for (r = 0; r < n; r++) {
			bool want = J->semi_build ? f[r] == 1 :
			    f[r] == 0 || (f[r] == 2 && !nl);

			if (want && (rc = add_pair(J, null_pref(),
			    (uint64_t)i << 32 | r)) != 0)
				return rc;
		}
	}
	return flush(J);
}

/* Frees held batch i and gives its charge back. */
static void
held_drop(struct join *J, struct held *H, size_t i)
{
	struct sbatch *sb = &H->b[i];

	if (sb->chunk == NULL && sb->b.cols == NULL)
		return;
	core_free_aligned(sb->chunk);
	free(sb->b.cols);
	core_mem_part_release(&J->p_held, sb->bytes);
	H->bytes -= sb->bytes;
	sb->chunk = NULL;
	sb->b.cols = NULL;
}

static void
held_free(struct join *J, struct held *H)
{
	size_t i;

	for (i = 0; i < H->n; i++)
		held_drop(J, H, i);
	free(H->b);
	H->b = NULL;
	H->n = H->cap = H->pos = 0;
}

/*
 * A row is held in the store or a probe frame, in a partition's buffer,
 * in a frame read back and in an output batch beside a row of the other
 * side: one wider than a quarter of the budget cannot be joined within
 * it, so the join stops (CORE_ELIMIT) naming the row (counted from 1
 * over input s, before whose count b comes) and the budget that joins
 * it, four times the row and a MiB for the rest, in whole MiB.  A row's
 * bytes are its values, its strings and their offsets.
 */
static int
row_check(struct join *J, int s, const struct core_batch *b, uint64_t base)
{
	uint64_t limit = J->mem->limit, mib = (uint64_t)1 << 20;
	uint64_t widest = 0, need, fixed = 0, *w;
	uint32_t r, i, wr = 0;

	if (limit == CORE_MEM_UNLIMITED || b->nrows == 0)
		return 0;
	/* Column by column into J->rowb (ref_bytes's sums, without a
	 * pass over every column for each row). */
	J->rowb = core_grow(J->rowb, &J->rowb_cap, b->nrows,
	    sizeof(*J->rowb), 1024);
	w = J->rowb;
	for (i = 0; i < b->ncols; i++)
		fixed += core_type_width(b->cols[i].type.id);
	for (r = 0; r < b->nrows; r++)
		w[r] = fixed;
	for (i = 0; i < b->ncols; i++) {
		const int32_t *o = b->cols[i].offsets;

		if (core_type_width(b->cols[i].type.id) != 0)
			continue;
		for (r = 0; r < b->nrows; r++)
			w[r] += 4 + (uint64_t)(o[r + 1] - o[r]);
	}
	for (r = 0; r < b->nrows; r++) {
		if (w[r] > widest) {
			widest = w[r];
			wr = r;
		}
	}
	if (widest > J->widest[s])
		J->widest[s] = widest;
	if (widest <= limit / 4)
		return 0;
	need = (4 * widest + mib - 1) / mib + 1;
	J->st->need_mem = need * mib;
	return core_err_set(J->err, CORE_ELIMIT, "row %llu of the %s input is "
	    "%llu bytes, more than a quarter of the memory budget (%llu "
	    "bytes) can join: give -m %lluM or more",
	    (unsigned long long)(base + wr + 1), s == 0 ? "left" : "right",
	    (unsigned long long)widest, (unsigned long long)limit,
	    (unsigned long long)need);
}

/*
 * The next batch of input s (0 left, 1 right) itself, augmented: 0,
 * CORE_EOF, or a failure.  Counts the side's rows (and, for NOT IN, its
 * NULL keys).
 */
static int
read_fresh(struct join *J, int s, const struct core_batch **out)
{
	struct side *sd = &J->side[s];
	const struct core_batch *b;
	int rc;

	rc = J->in[s]->next(J->in[s]->arg, &sd->inb, J->err);
	if (rc == CORE_EOF)
		J->held[s].eof = true;
	if (rc != 0) {
		if (rc < 0 && J->err->code == 0)
			core_err_set(J->err, rc, "%s input failed",
			    s == 0 ? "left" : "right");
		return rc;
	}
	b = side_augment(sd, &sd->inb);
	if ((rc = row_check(J, s, b, s == 0 ? J->st->rows_left :
	    J->st->rows_right)) != 0)
		return rc;
	if (s == 0)
		J->st->rows_left += b->nrows;
	else
		J->st->rows_right += b->nrows;
	if (J->null_aware && b->nrows > 0) {
		scratch(J, b->nrows);
		J->nulls[s] += core_hash_batch(&sd->hk, b, NULL, b->nrows, 0,
		    J->hash, NULL);
	}
	*out = b;
	return 0;
}

/* The next batch of input s, as read_fresh; the batches held (read
 * ahead) first, counted when they were read. */
static int
read_input(struct join *J, int s, const struct core_batch **out)
{
	struct held *H = &J->held[s];

	if (H->n > 0) {
		/* The batch handed out last is done with. */
		if (H->pos > 0)
			held_drop(J, H, H->pos - 1);
		if (H->pos < H->n) {
			*out = &H->b[H->pos++].b;
			return 0;
		}
		held_free(J, H);
	}
	if (H->view != NULL) {
		*out = H->view;
		H->view = NULL;
		return 0;
	}
	if (H->eof)
		return CORE_EOF;
	return read_fresh(J, s, out);
}

#define PSRC_FRAMES (2 * RING_MAX + 2)

/* Where probe batches come from in a pass.  A run's frames are read
 * into as many frames as the ring names at once: a frame the ring
 * names is never read into. */
struct psrc {
	bool input;			/* the probe input itself */
	struct core_spill *sp;		/* else this partition's run */
	struct core_spill_cursor cur;
	/* Room for the ring's and an output job's. */
	struct core_spill_frame f[PSRC_FRAMES];
};

static int
psrc_open(struct join *J, struct psrc *s, struct core_spill *sp,
    const struct core_spill_run *run)
{
	uint32_t k;

	memset(s, 0, sizeof(*s));
	if (sp == NULL) {
		s->input = true;
		return 0;
	}
	s->sp = sp;
	for (k = 0; k < PSRC_FRAMES; k++)
		core_batch_init(&s->f[k].batch, core_spill_schema(sp));
	/* The frames stay put until psrc_close: the output may be
	 * assembled behind. */
	J->async_out = core_pool_threads(J->pool) > 1;
	return core_spill_cursor_open(sp, &s->cur, run, J->err);
}

static int
psrc_next(struct join *J, struct psrc *s, const struct core_batch **out)
{
	uint32_t k, i;
	int rc;

	if (s->input)
		return read_input(J, J->pside, out);
	/* The first frame neither the ring nor the output job names
	 * (ring_done keeps one free); the ring holds the latest, so few
	 * are ever used. */
	for (k = 0; k < PSRC_FRAMES; k++) {
		for (i = 1; i <= J->nring && J->ring[i] != &s->f[k].batch;
		    i++)
			;
		if (i > J->nring && !out_names(J, &s->f[k].batch))
			break;
	}
	if (k == PSRC_FRAMES)
		return core_err_set(J->err, CORE_EINTERNAL,
		    "no probe frame free");
	rc = core_spill_read_frame(s->sp, &s->cur, &s->f[k], &J->p_probe,
	    J->err);
	if (rc != 0)
		return rc;
	*out = &s->f[k].batch;
	return 0;
}

/* Whether a batch of s stays valid while the next are read. */
static bool
psrc_keeps(const struct psrc *s)
{
	return !s->input;
}

static void
psrc_close(struct join *J, struct psrc *s)
{
	uint32_t k;

	if (s->input)
		return;
	/* Pairs naming these frames are emitted or dropped by now, once
	 * the output job is done (its failure is out_rc's). */
	(void)out_wait(J);
	J->async_out = false;
	J->nring = J->cur = 0;
	J->ring_rows = 0;
	J->ring_bytes = 0;
	for (k = 0; k < PSRC_FRAMES; k++) {
		core_spill_frame_release(&s->f[k], &J->p_probe);
		core_batch_release(&s->f[k].batch);
	}
}

/*
 * One probe pass of the store's chunk over src; then the chunk's build
 * rows.  With J->multi the probe rows' matches go to J->pflag instead of
 * being settled now.
 */
static int
probe_pass(struct join *J, struct core_spill *sp,
    const struct core_spill_run *run)
{
	struct psrc src;
	const struct core_batch *pb;
	uint64_t base = 0;
	int rc;

	if ((rc = psrc_open(J, &src, sp, run)) != 0)
		goto out;
	while ((rc = psrc_next(J, &src, &pb)) == 0) {
		if ((rc = probe_batch(J, pb, base, psrc_keeps(&src))) != 0)
			goto out;
		base += pb->nrows;
	}
	if (rc == CORE_EOF && (rc = flush(J)) == 0)
		rc = emit_build_rows(J);
out:
	psrc_close(J, &src);
	return rc;
}

/* After the last chunk: the probe rows the flags say are wanted. */
static int
probe_flags_pass(struct join *J, struct core_spill *sp,
    const struct core_spill_run *run)
{
	struct psrc src;
	const struct core_batch *pb;
	uint64_t base = 0;
	bool nl = J->pside == 0 && !null_left_survives(J);
	uint32_t i;
	int rc;

	if (!J->probe_unmatched)
		return 0;
	if ((rc = psrc_open(J, &src, sp, run)) != 0)
		goto out;
	while ((rc = psrc_next(J, &src, &pb)) == 0) {
		uint32_t n = pb->nrows;

		if (nl && n > 0) {
			scratch(J, n);
			core_hash_batch(&J->side[J->pside].hk, pb, NULL, n, 0,
			    J->hash, J->isnull);
		}
		if (n == 0)
			continue;
		ring_push(J, pb);
		for (i = 0; i < n; i++) {
			if (J->pflag[base + i] || (nl && J->isnull[i]))
				continue;
			if ((rc = add_pair(J, cur_ref(J, i), null_bref(J))) !=
			    0)
				goto out;
		}
		if ((rc = ring_done(J, psrc_keeps(&src))) != 0)
			goto out;
		base += n;
	}
	if (rc == CORE_EOF)
		rc = flush(J);
out:
	psrc_close(J, &src);
	return rc;
}

/* ---- partitions ---- */

/* Whether the store has room for rows more rows of bytes more bytes,
 * with its table and flags. */
static bool
store_fits(const struct join *J, uint64_t rows, uint64_t bytes)
{
	const struct store *S = &J->st_b;
	uint64_t r = S->rows + rows;
	/* Everything build rows holds is the store's: its copies, the
	 * frames it read, the rows it gathered, its table and flags. */
	uint64_t held = J->p_build.used;
	uint64_t need = held - S->ht_charged + bytes + ht_bytes(r) +
	    (J->build_flags ? r : 0);

	/* Within the store's cap, and what is not charged yet within
	 * what the whole budget has left. */
	return need <= J->build_cap && (need <= held ||
	    need - held <= core_mem_available(J->mem));
}

/* Partition of each row of b under the level's seed, into J->part_of. */
static void
route(struct join *J, int s, const struct core_batch *b, uint32_t nparts,
    unsigned level)
{
	uint32_t n = b->nrows, i;

	scratch(J, n);
	core_hash_batch(&J->side[s].hk, b, NULL, n, 0x5bd1e995u * level,
	    J->hash, NULL);
	for (i = 0; i < n; i++)
		J->part_of[i] = (uint32_t)(((J->hash[i] >> 32) *
		    (uint64_t)nparts) >> 32);
}

static int
part_add(struct join *J, struct core_part *p, int s,
    const struct core_batch *b, uint32_t nparts, unsigned level)
{
	if (b->nrows == 0)
		return 0;
	route(J, s, b, nparts, level);
	return core_part_add(p, b, J->part_of, J->err);
}

/* Partitions a run of a set into a new set of nparts on the same spill
 * set, under the level's seed. */
static int
repartition(struct join *J, int s, struct core_part *from, uint32_t k,
    uint32_t nparts, unsigned level, struct core_part **out)
{
	struct core_spill *sp = core_part_spill(from);
	struct core_part *p = core_part_new_in(sp, nparts, &J->p_part);
	struct psrc src;
	const struct core_batch *b;
	int rc;

	*out = p;
	part_setup(J, p);
	if ((rc = psrc_open(J, &src, sp, core_part_run(from, k))) != 0)
		goto out;
	while ((rc = psrc_next(J, &src, &b)) == 0)
		if ((rc = part_add(J, p, s, b, nparts, level)) != 0)
			goto out;
	if (rc == CORE_EOF)
		rc = core_part_finish(p, J->err);
out:
	psrc_close(J, &src);
	return rc;
}

static uint32_t
fanout(const struct join *J, uint64_t bytes)
{
	uint64_t most = J->build_cap / PART_BUF_MIN, want;

	if (most > PARTS_MAX)
		most = PARTS_MAX;
	if (most < 2)
		most = 2;
	/* Not knowing the size, a moderate fan-out: a partition still
	 * too big is partitioned again. */
	if (bytes == 0)
		return (uint32_t)(most < 32 ? most : 32);
	/* Partitions of about half the room, for the table and skew. */
	want = bytes / (J->build_cap / 2 + 1) + 1;
	if (want < 2)
		want = 2;
	return (uint32_t)(want < most ? want : most);
}

static int join_partition(struct join *J, struct core_part *bp,
    struct core_part *pp, uint32_t k, unsigned level);

/*
 * Room for a flag per probe row of a partition joined in chunks, when
 * the join needs them (an outer side or semi on the probe side): taken
 * before the first chunk, so that the chunks get what is left.  The
 * flags cannot be split or spilled: more of them than the budget has
 * room for is CORE_ELIMIT naming the budget that holds them beside the
 * rest, four times their bytes and a MiB, in whole MiB.
 */
static int
flags_room(struct join *J, uint64_t prows)
{
	uint64_t mib = (uint64_t)1 << 20, need;

	if (!J->semi_probe && !J->probe_unmatched)
		return 0;
	core_mem_part_release(&J->p_probe, J->pflag_cap);
	free(J->pflag);
	J->pflag = NULL;
	J->pflag_cap = 0;
	if (core_mem_part_try_charge(&J->p_probe, prows) != 0) {
		need = (4 * prows + mib - 1) / mib + 1;
		J->st->need_mem = need * mib;
		return core_err_set(J->err, CORE_ELIMIT, "a partition joined in "
		    "chunks needs a flag for each of its %llu %s rows, more than the memory budget (%llu bytes) "
		    "has room for: give -m %lluM or more",
		    (unsigned long long)prows, J->pside == 0 ? "left" :
		    "right", (unsigned long long)J->mem->limit,
		    (unsigned long long)need);
	}
	J->pflag = core_xmalloc(prows);
	J->pflag_cap = prows;
	return 0;
}

/*
 * Joins partition k of the build set bp with the same partition of the
 * probe set pp in chunks of the budget: each chunk's table probed by the
 * whole probe partition.
 */
static int
join_chunked(struct join *J, struct core_part *bp, struct core_part *pp,
    uint32_t k)
{
	struct core_spill *bsp = core_part_spill(bp);
	struct core_spill *psp = core_part_spill(pp);
	const struct core_spill_run *brun = core_part_run(bp, k);
	const struct core_spill_run *prun = core_part_run(pp, k);
	struct core_spill_cursor c;
	uint64_t prows = core_part_rows(pp, k);
	bool first = true, more = true;
	int rc;

	if ((J->semi_probe || J->probe_unmatched) && prows > J->pflag_cap &&
	    !store_fits(J, core_part_rows(bp, k), brun->len) &&
	    (rc = flags_room(J, prows)) != 0)
		return rc;
	if ((rc = core_spill_cursor_open(bsp, &c, brun, J->err)) != 0)
		return rc;
	J->multi = false;
	while (more) {
		/* Load frames while they fit, at least one. */
		while (c.frames < brun->nframes) {
			const struct core_spill_extent *e =
			    &brun->frames[c.frames];
			/* The frame's rows, in proportion to its bytes, for
			 * the table; a compressed frame is read into its
			 * record and then its buffers. */
			uint64_t rows = brun->len ? core_part_rows(bp, k) *
			    e->len / brun->len + 1 : 1;
			uint64_t bytes = J->o->compress_spill ? 3 * e->len :
			    e->len;

			if (J->st_b.n > 0 && !store_fits(J, rows, bytes))
				break;
			if ((rc = store_frame(J, bsp, &c)) != 0)
				goto out;
		}
		more = c.frames < brun->nframes;
		if (first && more) {
			/* Several chunks: the probe rows' matches are
			 * remembered across them. */
			J->multi = true;
			J->st->chunked++;
			if (prows > J->pflag_cap &&
			    (rc = flags_room(J, prows)) != 0)
				goto out;
			if (prows > 0 && J->pflag_cap > 0)
				memset(J->pflag, 0, prows);
		}
		first = false;
		store_index(J);
		if ((rc = probe_pass(J, psp, prun)) != 0)
			goto out;
		store_clear(J);
	}
	if (J->multi)
		rc = probe_flags_pass(J, psp, prun);
out:
	store_clear(J);
	J->multi = false;
	return rc;
}

/* Joins partition k of bp with partition k of pp: at once when the build
 * rows fit, else re-partitioned or in chunks. */
static int
join_partition(struct join *J, struct core_part *bp, struct core_part *pp,
    uint32_t k, unsigned level)
{
	const struct core_spill_run *brun = core_part_run(bp, k);
	uint64_t brows = core_part_rows(bp, k), prows = core_part_rows(pp, k);
	struct core_part *cb = NULL, *cp = NULL;
	uint32_t n, i;
	int rc = 0;

	if (prows == 0 && !J->build_unmatched)
		goto done;
	if (brows == 0 && !J->probe_unmatched)
		goto done;
	if (store_fits(J, brows, brun->len) || level >= MAX_LEVEL) {
		rc = join_chunked(J, bp, pp, k);
		goto done;
	}
	n = fanout(J, brun->len);
	J->st->levels = J->st->levels > level + 1 ? J->st->levels : level + 1;
	if ((rc = repartition(J, J->bside, bp, k, n, level + 1, &cb)) != 0 ||
	    (rc = repartition(J, J->pside, pp, k, n, level + 1, &cp)) != 0)
		goto done;
	/* A partition joined is not discarded: every partition was written
	 * before the first was joined, so giving its space back (a hole
	 * punched per frame) would cost time and lower no peak; one
	 * partitioned again is, since its children are written after it. */
	core_part_discard(bp, k);
	core_part_discard(pp, k);
	J->st->partitions += n;
	for (i = 0; i < n && rc == 0; i++) {
		/* A partition that did not split is one key, or keys too
		 * few to split: chunks, not another level. */
		if (core_part_rows(cb, i) == brows)
			rc = join_chunked(J, cb, cp, i);
		else
			rc = join_partition(J, cb, cp, i, level + 1);
	}
done:
	if (cb != NULL) {
		struct core_part_stats ps;

		core_part_stats(cb, &ps);
		J->spill_base += ps.bytes;
		core_part_stats(cp, &ps);
		J->spill_base += ps.bytes;
	}
	core_part_free(cb);
	core_part_free(cp);
	return rc;
}

/* ---- the whole join ---- */

static void
phase(struct join *J, const char *what, unsigned i, unsigned n)
{
	if (J->o->phase != NULL)
		J->o->phase(J->o->phase_arg, what, i, n);
}

/* The cap on spilled bytes holds for both sides' sets together (each
 * set checks only its own). */
static int
spill_cap(struct join *J, struct core_part *bp, struct core_part *pp)
{
	struct core_part_stats a, b;

	if (J->o->max_spill == 0)
		return 0;
	core_part_stats(bp, &a);
	core_part_stats(pp, &b);
	if (a.bytes + b.bytes > J->o->max_spill)
		return core_err_set(J->err, CORE_ELIMIT, "temporary files "
		    "would exceed the spill limit of %llu bytes",
		    (unsigned long long)J->o->max_spill);
	return 0;
}

/* Counts the first level's spilled bytes and frees both sets (pp may be
 * NULL). */
static void
sets_free(struct join *J, struct core_part *bp, struct core_part *pp)
{
	struct core_part_stats ps;

	core_part_stats(bp, &ps);
	J->spill_base += ps.bytes;
	if (pp != NULL) {
		core_part_stats(pp, &ps);
		J->spill_base += ps.bytes;
	}
	core_part_free(bp);
	core_part_free(pp);
}

/*
 * Splits the routed rows of b (J->part_of, nparts) between the resident
 * partitions (their rows in J->rsel, returned count; J->part_of says
 * CORE_PART_SKIP for them) and the spilled ones.
 */
static uint32_t
split_resident(struct join *J, uint32_t n)
{
	uint32_t i, m = 0, r = J->resident;

	for (i = 0; i < n; i++) {
		uint32_t p = J->part_of[i];
		bool res = p < r;

		J->rsel[m] = i;
		J->rpart[m] = p;
		m += res;
		J->part_of[i] = res ? CORE_PART_SKIP : p;
	}
	return m;
}

/* Routes batch b of side s to nparts partitions at the first level and
 * splits off the rows of the resident ones (split_resident). */
static uint32_t
route_split(struct join *J, int s, const struct core_batch *b,
    uint32_t nparts)
{
	route(J, s, b, nparts, 1);
	J->rsel = core_grow(J->rsel, &J->rsel_cap, b->nrows, sizeof(*J->rsel),
	    4096);
	J->rpart = core_grow(J->rpart, &J->rpart_cap, b->nrows,
	    sizeof(*J->rpart), 4096);
	return J->resident ? split_resident(J, b->nrows) : 0;
}

/*
 * The resident partitions do not fit after all: the last of them is
 * written to its partition of bp and no longer resident.  Its batches
 * leave the store, which keeps the others in their order.  J->part_of is
 * scratch (the caller routes its batch again).
 */
static int
evict_last(struct join *J, struct core_part *bp)
{
	struct store *S = &J->st_b;
	uint32_t last = --J->resident, r;
	size_t i, k = 0;
	int rc = 0;

	for (i = 0; i < S->n; i++) {
		struct sbatch *sb = &S->b[i];
		uint32_t n = sb->go->batch.nrows;

		if (sb->part != last) {
			S->b[k] = *sb;
			S->ptrs[k] = &S->b[k].go->batch;
			k++;
			continue;
		}
		if (rc == 0) {
			scratch(J, n);
			for (r = 0; r < n; r++)
				J->part_of[r] = last;
			rc = core_part_add(bp, &sb->go->batch, J->part_of,
			    J->err);
		}
		S->rows -= n;
		core_gather_out_release(J->g_build, sb->go);
		free(sb->go);
	}
	S->n = k;
	return rc;
}

/* Keeps rows rsel[0..m) of build batch b (of partitions rpart[0..m)) in
 * the store, gathered, a batch per partition (so that one can be
 * evicted on its own). */
static void
keep_resident(struct join *J, const struct core_batch *b, uint32_t m)
{
	struct store *S = &J->st_b;
	uint32_t end[PARTS_MAX], i, p, start;

	J->rsort = core_grow(J->rsort, &J->rsort_cap, m, sizeof(*J->rsort),
	    4096);
	memset(end, 0, J->resident * sizeof(end[0]));
	for (i = 0; i < m; i++)
		end[J->rpart[i]]++;
	for (p = 0, start = 0; p < J->resident; p++) {
		uint32_t c = end[p];

		end[p] = start;
		start += c;
	}
	/* end[p]: where partition p's next row goes, then where it ends. */
	for (i = 0; i < m; i++)
		J->rsort[end[J->rpart[i]]++] = J->rsel[i];
	for (p = 0, start = 0; p < J->resident; start = end[p], p++) {
		struct sbatch *sb;

		if (end[p] == start)
			continue;
		store_slot(J);
		sb = &S->b[S->n];
		sb->part = p;
		sb->go = core_xcalloc(1, sizeof(*sb->go));
		core_gather_out_init(sb->go, b->schema);
		core_gather_select(J->g_build, b, J->rsort + start,
		    end[p] - start, NULL, sb->go);
		S->ptrs[S->n] = &sb->go->batch;
		S->rows += end[p] - start;
		S->n++;
	}
}

/*
 * Partitions build batch b among n: the rows of the resident partitions
 * stay in the store, the others go to bp.  Resident partitions that
 * outgrow the store are written out, the last first, as few as make
 * room (b is routed again after each: its rows of it are no longer
 * kept).
 */
static int
hybrid_add(struct join *J, struct core_part *bp, const struct core_batch *b,
    uint32_t n)
{
	uint32_t m;
	int rc;

	if (b->nrows == 0)
		return 0;
	m = route_split(J, J->bside, b, n);
	while (m > 0 && !store_fits(J, m, copy_bytes(b) / b->nrows * m +
	    PART_BUF_MIN)) {
		if ((rc = evict_last(J, bp)) != 0)
			return rc;
		m = route_split(J, J->bside, b, n);
	}
	if (m > 0)
		keep_resident(J, b, m);
	if (m < b->nrows)
		return core_part_add(bp, b, J->part_of, J->err);
	return 0;
}

/*
 * The store's copies (run's, of a build side that outgrew it) go
 * through hybrid_add one at a time, each given back first (its resident
 * rows take no more than it does) and freed after, and each of their
 * blocks freed once its last copy is: the store is rebuilt in place, no
 * more than a block over what it held.
 */
static int
hybrid_restore(struct join *J, struct core_part *bp, uint32_t n)
{
	struct store *S = &J->st_b, old = *S;
	size_t i, bi = 0;
	int rc = 0;

	/* A new store in its place, with the table (not built yet). */
	memset(S, 0, sizeof(*S));
	S->ht = old.ht;
	for (i = 0; i < old.n; i++) {
		struct sbatch *sb = &old.b[i];

		core_mem_part_release(&J->p_build, sb->bytes);
		if (rc == 0)
			rc = hybrid_add(J, bp, &sb->b, n);
		free(sb->b.cols);
		/* Blocks before the next copy's are done with. */
		while (bi < old.nblk && (i + 1 == old.n ||
		    bi + 1 < old.b[i + 1].blk))
			core_free_aligned(old.blk[bi++]);
	}
	free(old.b);
	free(old.ptrs);
	free(old.blk);
	return rc;
}

/* What a build side of a file of hint bytes is reckoned to take in
 * memory, its table included. */
static uint64_t
build_estimate(uint64_t hint)
{
	return hint + hint / 4;
}

/*
 * The hybrid hash join, for a build side that does not fit, reckoned at
 * est bytes in memory: both sides are partitioned, but the first
 * partitions, as many as the budget is expected to hold with the other
 * partitions' buffers, are kept in memory and joined as the probe side
 * streams past, so only the rest is written and read back.  Kept
 * partitions that turn out too big are written out too, the last
 * first (hybrid_add); with none kept it is a Grace hash join.  The
 * store's copies, if any, and then pending (NULL: none), are the build
 * side's first rows.
 */
static int
hybrid(struct join *J, uint64_t est, const struct core_batch *pending)
{
	const struct core_join_options *o = J->o;
	int zl = o->compress_spill ? 1 : 0;
	uint64_t per, room;
	uint32_t n = fanout(J, est), most = fanout(J, UINT64_MAX / 2), k, m;
	struct core_part *bp, *pp = NULL;
	const struct core_batch *b;
	int rc = 0;

	/* Smaller partitions keep more of the budget's worth in memory;
	 * and fewer would make frames (a share of the buffers' room) too
	 * big for the probe passes' share of a small budget. */
	if (n < 16)
		n = most < 16 ? most : 16;
	per = est / n + 1;
	room = J->build_cap > 2 * n * PART_BUF_MIN ?
	    J->build_cap - 2 * n * PART_BUF_MIN : 0;
	J->resident = (uint32_t)(room / per);
	if (J->resident >= n)
		J->resident = n - 1;
	phase(J, "partitioning", 0, 0);
	J->st->levels = 1;
	J->g_build = core_gather_new(side_schema(&J->side[J->bside]), NULL,
	    &J->p_build);
	J->g_probe = core_gather_new(side_schema(&J->side[J->pside]), NULL,
	    &J->p_probe);
	core_gather_out_init(&J->probe_go, side_schema(&J->side[J->pside]));
	bp = core_part_new(side_schema(&J->side[J->bside]), n, o->tmpdirs,
	    o->ntmpdirs, o->max_spill, zl, &J->p_part);
	part_setup(J, bp);
	if (J->st_b.n > 0)
		rc = hybrid_restore(J, bp, n);
	if (rc == 0 && pending != NULL)
		rc = hybrid_add(J, bp, pending, n);
	while (rc == 0 && (rc = read_input(J, J->bside, &b)) == 0)
		rc = hybrid_add(J, bp, b, n);
	if (rc != CORE_EOF || (rc = core_part_finish(bp, J->err)) != 0)
		goto out;
	J->st->partitions += 2 * (n - J->resident);
	J->st->kept += J->resident;
	store_index(J);
	pp = core_part_new(side_schema(&J->side[J->pside]), n, o->tmpdirs,
	    o->ntmpdirs, o->max_spill, zl, &J->p_part);
	part_setup(J, pp);
	if (J->null_aware && J->bside == 1 && J->nulls[1] > 0) {
		/* NOT IN with a NULL on the right: no row. */
		while ((rc = read_input(J, 0, &b)) == 0)
			;
		rc = rc == CORE_EOF ? 0 : rc;
		goto out;
	}
	while ((rc = read_input(J, J->pside, &b)) == 0) {
		if (b->nrows == 0)
			continue;
		m = route_split(J, J->pside, b, n);
		if (m < b->nrows &&
		    (rc = core_part_add(pp, b, J->part_of, J->err)) != 0)
			goto out;
		if (m > 0) {
			core_gather_select(J->g_probe, b, J->rsel, m, NULL,
			    &J->probe_go);
			if ((rc = probe_batch(J, &J->probe_go.batch, 0,
			    false)) != 0)
				goto out;
		}
	}
	if (rc != CORE_EOF || (rc = emit_build_rows(J)) != 0 ||
	    (rc = core_part_finish(pp, J->err)) != 0)
		goto out;
	store_clear(J);
	core_gather_out_release(J->g_probe, &J->probe_go);
	if ((rc = spill_cap(J, bp, pp)) != 0)
		goto out;
	for (k = 0; k < n && rc == 0; k++) {
		if (core_part_rows(bp, k) == 0 && core_part_rows(pp, k) == 0)
			continue;
		phase(J, "joining", k + 1, n);
		rc = join_partition(J, bp, pp, k, 1);
	}
out:
	store_clear(J);
	core_gather_out_release(J->g_probe, &J->probe_go);
	sets_free(J, bp, pp);
	return rc;
}

/*
 * --build auto on inputs of unknown size: reads both inputs ahead, each
 * time from the one with fewer bytes held, copying the batches aside
 * (read_input hands them out again first), until one ends or neither
 * can add a batch within cap (such a batch is kept as it is, and its
 * side is read no more).  The side that ended first, the smaller, is
 * the build side; when neither ended the options' side is.  Sets
 * *build_left.
 */
static int
read_ahead(struct join *J, uint64_t cap, bool *build_left)
{
	struct held *H = J->held;
	const struct core_batch *b;
	int rc = 0, s;

	while (!H[0].eof && !H[1].eof) {
		uint64_t bytes;

		if (H[0].view != NULL && H[1].view != NULL)
			break;
		s = H[1].view != NULL ? 0 : H[0].view != NULL ? 1 :
		    H[0].bytes < H[1].bytes ? 0 : 1;
		if ((rc = read_fresh(J, s, &b)) == CORE_EOF)
			break;
		if (rc != 0)
			return rc;
		if (b->nrows == 0)
			continue;
		bytes = copy_bytes(b);
		if (H[0].bytes + H[1].bytes + bytes > cap) {
			/* Handed out as it is after the copies; the
			 * other side may still end within the cap. */
			H[s].view = b;
			continue;
		}
		H[s].b = core_grow(H[s].b, &H[s].cap, H[s].n + 1,
		    sizeof(*H[s].b), 16);
		memset(&H[s].b[H[s].n], 0, sizeof(H[s].b[0]));
		sb_copy(&H[s].b[H[s].n++], b, bytes, NULL);
		core_mem_part_charge(&J->p_held, bytes);
		H[s].bytes += bytes;
	}
	if (H[0].eof && H[1].eof)
		*build_left = H[0].bytes < H[1].bytes;
	else if (H[0].eof || H[1].eof)
		*build_left = H[0].eof;
	return 0;
}

/* What a build side that outgrew the store (its file hint bytes, or 0:
 * not known) is reckoned to take in memory: an eighth more than it took
 * so far, or what its size says if more; from a pipe, twice what it took
 * so far (partitions kept that do not fit are written out in turn). */
static uint64_t
outgrown(const struct join *J, uint64_t hint)
{
	const struct store *S = &J->st_b;
	uint64_t now = J->p_build.used + ht_bytes(S->rows);

	if (hint == 0)
		return 2 * now;
	now += now / 8;
	return build_estimate(hint) > now ? build_estimate(hint) : now;
}

/* Reads the build input into the store; then, if it all fit, probes it
 * with the probe input; else hybrid. */
static int
run(struct join *J)
{
	const struct core_batch *b;
	int rc;

	uint64_t hint = J->in[J->bside]->size_hint;

	/* The store takes more than the file (its table, its copies'
	 * alignment: hybrid() reckons a quarter more).  Reading it in
	 * first and finding late that it does not fit would write the
	 * whole of both sides out; hybrid keeps what it can. */
	if (J->build_cap != CORE_MEM_UNLIMITED &&
	    build_estimate(hint) > J->build_cap)
		return hybrid(J, build_estimate(hint), NULL);
	phase(J, "building", 0, 0);
	while ((rc = read_input(J, J->bside, &b)) == 0) {
		uint64_t bytes = copy_bytes(b);

		if (b->nrows == 0)
			continue;
		if (!store_fits(J, b->nrows, bytes))
			return hybrid(J, outgrown(J, hint), b);
		store_copy(J, b, bytes);
	}
	if (rc != CORE_EOF)
		return rc;
	store_index(J);
	phase(J, "joining", 0, 0);
	if (J->null_aware && J->bside == 1 && J->nulls[1] > 0) {
		/* NOT IN with a NULL on the right: no row; the left input
		 * is still read to its end. */
		while ((rc = read_input(J, 0, &b)) == 0)
			;
		return rc == CORE_EOF ? 0 : rc;
	}
	rc = probe_pass(J, NULL, NULL);
	return rc;
}

int
core_join_hash(const struct core_join_options *o, struct core_mem *mem,
    const struct core_join_input *left, const struct core_join_input *right,
    core_join_emit_fn emit, void *arg, struct core_join_stats *st,
    struct core_err *err)
{
	struct core_join_stats dummy;
	struct join *J;
	enum core_join_type t = o->plan->type;
	uint64_t limit = mem->limit, reserve, rowb = 0;
	uint32_t i;
	bool build_left;
	int rc, erc;

	if (st == NULL)
		st = &dummy;
	memset(st, 0, sizeof(*st));
	if (o->null_aware && (t != CORE_JOIN_ANTI || o->plan->nkeys != 1))
		return core_err_set(err, CORE_EUSAGE, "NOT IN semantics "
		    "(null-aware) are for an anti join on one key pair");
	J = core_xcalloc(1, sizeof(*J));
	J->o = o;
	J->plan = o->plan;
	J->mem = mem;
	J->err = err;
	J->emit = emit;
	J->emit_arg = arg;
	J->st = st;
	J->in[0] = left;
	J->in[1] = right;
	J->null_aware = o->null_aware;
	if ((rc = side_init(J, 0, err)) != 0 ||
	    (rc = side_init(J, 1, err)) != 0)
		goto out;
	/* A quarter of the budget (at least 64 KiB of it) is kept for a
	 * probe frame, the output batches and the partition buffers; the
	 * store and its table get the rest. */
	reserve = limit == CORE_MEM_UNLIMITED ? 0 : limit / 4;
	if (limit != CORE_MEM_UNLIMITED && reserve < (64u << 10))
		reserve = limit < (128u << 10) ? limit / 2 : 64u << 10;
	J->build_cap = limit == CORE_MEM_UNLIMITED ? CORE_MEM_UNLIMITED :
	    limit - reserve;
	J->ring_cap = limit == CORE_MEM_UNLIMITED ? UINT64_MAX : reserve / 4;
	/* A probe pass holds a few frames (one probed, one the output
	 * job's, one read into; each with its decompressed copy) in the
	 * reserve beside the output. */
	J->frame_cap = limit == CORE_MEM_UNLIMITED ? UINT64_MAX : reserve / 8;
	core_mem_part_init(&J->p_build, mem, "build rows", J->build_cap);
	core_mem_part_init(&J->p_part, mem, "partitions", J->build_cap);
	core_mem_part_init(&J->p_probe, mem, "probe frames",
	    CORE_MEM_UNLIMITED);
	core_mem_part_init(&J->p_out, mem, "output", CORE_MEM_UNLIMITED);
	core_mem_part_init(&J->p_held, mem, "read ahead", CORE_MEM_UNLIMITED);
	build_left = o->build_left;
	if (o->build_auto && left->size_hint != 0 && right->size_hint != 0) {
		build_left = left->size_hint < right->size_hint;
	} else if (o->build_auto) {
		/* What is read ahead of one side is held while the other
		 * is built: an eighth of the budget, or CORE_JOIN_AHEAD. */
		uint64_t cap = limit == CORE_MEM_UNLIMITED ? CORE_JOIN_AHEAD :
		    limit / 8;

		if (cap > CORE_JOIN_AHEAD)
			cap = CORE_JOIN_AHEAD;
		if ((rc = read_ahead(J, cap, &build_left)) != 0)
			goto out;
	}
	st->build_left = build_left;
	J->bside = build_left ? 0 : 1;
	J->pside = 1 - J->bside;
	{
		bool pl = J->pside == 0;
		bool lo = t == CORE_JOIN_LEFT || t == CORE_JOIN_FULL ||
		    t == CORE_JOIN_ANTI;
		bool ro = t == CORE_JOIN_RIGHT || t == CORE_JOIN_FULL;

		J->pairs = t == CORE_JOIN_INNER || t == CORE_JOIN_LEFT ||
		    t == CORE_JOIN_RIGHT || t == CORE_JOIN_FULL;
		J->probe_unmatched = pl ? lo : ro;
		J->build_unmatched = pl ? ro : lo;
		J->semi_probe = t == CORE_JOIN_SEMI && pl;
		J->semi_build = t == CORE_JOIN_SEMI && !pl;
		J->build_flags = J->build_unmatched || J->semi_build;
	}
	for (i = 0; i < o->plan->out->ncols; i++) {
		struct core_coltype ty = o->plan->out->fields[i].type;
		size_t w = core_type_width(ty.id);

		rowb += w ? w : 24;
	}
	J->out_rows = core_batch_rows_for(o->plan->out, NULL, 0,
	    o->batch_rows ? o->batch_rows : OUT_ROWS_DEFAULT);
	if (limit != CORE_MEM_UNLIMITED) {
		/* Two output batches in a sixteenth of the budget. */
		uint64_t fit = limit / 32 / (rowb ? rowb : 1);

		if (fit < 64)
			fit = 64;
		if (fit < J->out_rows)
			J->out_rows = (uint32_t)fit;
		J->out_bytes = limit / 32;
	}
	J->pr = core_xmalloc((size_t)J->out_rows * sizeof(*J->pr));
	J->br = core_xmalloc((size_t)J->out_rows * sizeof(*J->br));
	J->oj.pr = core_xmalloc((size_t)J->out_rows * sizeof(*J->oj.pr));
	J->oj.br = core_xmalloc((size_t)J->out_rows * sizeof(*J->oj.br));
	J->pool = core_pool_new(core_pool_default(o->threads, 2));
	J->out = core_join_out_new(o->plan, left->schema, right->schema,
	    J->pool, &J->p_out);
	core_htab_init(&J->st_b.ht, NULL);
	rc = run(J);
	/* The last output job, and a failure of one no caller saw. */
	if ((erc = out_wait(J)) != 0 && rc == 0)
		rc = erc;
	rc = core_join_out_finish(J->out, rc, emit, arg, err);
out:
	store_clear(J);
	held_free(J, &J->held[0]);
	held_free(J, &J->held[1]);
	st->spill_bytes = J->spill_base;
	st->peak_mem = mem->peak;
	core_join_out_free(J->out);
	core_gather_free(J->g_build);
	core_gather_free(J->g_probe);
	free(J->rsel);
	free(J->rpart);
	free(J->rsort);
	core_pool_free(J->pool);
	core_mem_part_release(&J->p_probe, J->pflag_cap);
	free(J->pflag);
	free(J->pr);
	free(J->br);
	free(J->oj.pr);
	free(J->oj.br);
	free(J->oj.ps);
	free(J->oj.bs);
	free(J->hash);
	free(J->isnull);
	free(J->cand);
	free(J->act);
	free(J->refs);
	free(J->eq);
	free(J->hit);
	free(J->part_of);
	free(J->st_b.b);
	free(J->st_b.ptrs);
	free(J->st_b.blk);
	free(J->rowb);
	side_release(&J->side[0]);
	side_release(&J->side[1]);
	core_mem_part_fini(&J->p_held);
	core_mem_part_fini(&J->p_out);
	core_mem_part_fini(&J->p_probe);
	core_mem_part_fini(&J->p_part);
	core_mem_part_fini(&J->p_build);
	free(J);
	return rc;
}
