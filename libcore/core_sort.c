/*
 * core_sort.c - the external merge sort (core_sort.h).
 *
 * Run formation: core_sort_add copies each input batch (or, when the
 * budget is nearly spent, a slice of it) into one charged chunk (its
 * non-key fixed-width values packed a record per row, see pack_plan) and
 * appends an entry per row: the row's normalized key words
 * (core_sort_private.h) and a reference (buffer, row, output bytes; see
 * ENT_MAKE).  Per row it charges the entry twice, the second for the
 * merge sort's scratch.  When the next slice does not fit, the whole
 * buffer is sorted at once (a stable bottom-up merge sort over the
 * entries; never batch by batch) and written as one run, then its charge
 * is released.  The memory itself is kept for the next buffer (an arena
 * on huge pages, a pool of chunks, the entry arrays), because fresh pages
 * cost a fault each and the gather is TLB-bound on small ones.
 *
 * Accounting: every buffer above is charged while it holds rows; spare
 * merge frames and pooled chunks stay charged while kept.  The input
 * reader's frame, the output writer and the small per-column tables are
 * the uncharged constant colsort(1) states.
 *
 * Output: rows are chosen as references, then gathered column by column
 * into one reused output chunk sized by out_budget, so a batch is never
 * assembled row by row and its size stays inside the budget whatever the
 * row width.
 *
 * Run sizes: when the caller says how much input there is
 * (core_sort_input), the runs before the last are cut just large enough
 * for the last one to stay in memory through the merge (buffer_cap).
 *
 * Merge: one loser tree over the runs' current frames and, when the last
 * buffer stayed in memory, its sorted entries, whose rows are gathered
 * into the output straight from the buffer.  A frame that is
 * used up is "retired", not freed, while output references still point
 * into it; the output batch is flushed early when the budget has no room
 * for the next frame, which frees the retired ones.  Ties go to the
 * lower run, and runs are kept in input order (multi-pass merges combine
 * neighbouring runs), which keeps the whole sort stable.  With more runs
 * than frames fit in the budget, neighbouring groups are merged into
 * longer runs first, only as many as needed to make the last merge fit.
 *
 * --unique keeps the first row of each equal-key run by comparing every
 * candidate with the last row kept (copied aside before the memory it
 * lives in is released); --limit stops each run and the output after N
 * rows and, when N rows are few, compacts the buffer to its best N rows
 * whenever it holds 2N, so memory stays O(N).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "core_alloc.h"
#include "core_debug.h"
#include "core_gather.h"
#include "core_pool.h"
#include "core_sort.h"
#include "core_sort_private.h"
#include "core_spill.h"
#include "core_value.h"

#define A8(n) (((n) + 7) & ~(uint64_t)7)
#define DEFAULT_BATCH_ROWS 8192
#define MIN_OUT_BUDGET ((uint64_t)16 << 10)
#define MAX_OUT_BUDGET ((uint64_t)2 << 20)
#define ISORT_RUN 16

/*
 * The last word of a sort entry: the buffer (24 bits), the row's output
 * bytes (16 bits, saturated: ENT_SIZE_MAX means "look it up") and the row
 * (24 bits).  Keeping the size here lets the output side cut batches
 * without touching the rows' string offsets again, which in sorted order
 * are random accesses.
 */
#define ENT_BUF_MAX (((uint64_t)1 << 24) - 1)
#define ENT_ROW_MAX ((1u << 24) - 1)
#define ENT_SIZE_MAX 0xffffu
#define ENT_MAKE(buf, size, row) ((uint64_t)(buf) << 40 | \
	(uint64_t)(size) << 24 | (uint64_t)(row))
#define ENT_BUF(x) ((x) >> 40)
#define ENT_ROW(x) ((uint32_t)(x) & ENT_ROW_MAX)
#define ENT_SIZE(x) (((x) >> 24) & ENT_SIZE_MAX)
/* As a gather reference: source << 32 | row. */
#define ENT_REF(x) (ENT_BUF(x) << 32 | ENT_ROW(x))

/* A spill frame being merged, with its rows' key words. */
struct mframe {
	struct core_spill_frame f;
	uint64_t *words;		/* owned: stride words per row, the
				 * key's nw and the row's output bytes */
	uint32_t wrows;			/* rows words has room for */
	uint64_t wcharge;
	uint32_t slot;			/* index in slots[] */
};

/*
 * One run in a merge.  Its current row is kept resolved (words, batch,
 * row, gather reference, output bytes) so the loser tree compares runs
 * read from files and the sorted buffer alike.
 */
struct msrc {
	struct core_spill_cursor cur;
	struct mframe *fr;		/* file: current frame */
	uint32_t row;			/* file: current row of fr */
	bool mem;			/* the sorted buffer, not a file */
	bool live;			/* has a current row */
	size_t next_ent;		/* mem: current entry */
	const uint64_t *cw;		/* the current row's key words */
	const struct core_batch *cb;	/* its batch */
	uint32_t cr;			/* its row in cb */
	uint64_t cref;			/* its gather reference */
	uint64_t csize;			/* its output bytes, or ENT_SIZE_MAX */
};

/*
 * The last merge reads one frame ahead on the second thread, the one a
 * run will need first (forecasting): of the runs' current frames, the
 * one whose last row sorts first is used up first, so its run's next
 * frame is read and its key words made while the caller merges.  Only
 * when the budget has room for it beside a frame read in turn, and not
 * with compressed spill frames (whose decoder is the spill set's one).
 * The caller touches that run's cursor only after waiting for it.
 */
struct fahead {
	struct core_pool_task task;
	struct core_sort *s;
	struct msrc *src;		/* whose next frame; NULL: none */
	struct mframe *m;		/* it, no slot yet */
	int rc;				/* 0, CORE_EOF or a failure */
	struct core_err err;
};

struct core_sort {
	struct core_sort_options o;
	struct core_sort_plan plan;
	const struct core_schema *schema;	/* borrowed */
	struct core_mem *mem;			/* borrowed */
	/* The budget's parts, for --stats: buffered rows (their chunks,
	 * entries and sort scratch), merge frames (spill frames and their
	 * key words), output (gathered batches and fixed buffers). */
	struct core_mem_part p_rows, p_merge, p_out;
	unsigned last_pass;		/* the output merge's pass number */
	struct core_sort_check *dcheck;	/* owned; debug builds: the order
					   of the run or output written */
	struct core_spill *spill;		/* owned, on first spill */
	size_t stride;			/* uint64_t per entry: nw + 1 */
	uint32_t batch_rows;
	uint64_t out_budget;		/* bytes of one output batch */
	uint64_t fixed_row;		/* output bytes of a row sans text */
	uint64_t fixed_charge;		/* refs (+ zstd) charged */

	/* The buffer of run formation. */
	struct core_batch **bufs;	/* owned; views into chunks */
	void **chunks;			/* owned */
	uint64_t *charges;		/* bytes charged per chunk */
	size_t nbufs, bufs_cap;
	unsigned char *arena;		/* owned: mapping for chunks */
	bool arena_tried;		/* arena_init ran (first add) */
	uint64_t arena_cap, arena_used;
	void **pool;			/* owned: chunks kept for reuse, */
	uint64_t *pool_caps;		/* still charged (pool_bytes) */
	size_t npool, pool_cap;
	uint64_t pool_bytes;
	uint64_t *ent;			/* owned: stride words per row */
	size_t nent, ent_cap;
	uint64_t *tmp;			/* owned: merge sort scratch */
	size_t tmp_cap;
	uint64_t ent_charge;
	uint64_t buf_bytes;		/* charged for the buffer's rows */

	/* The input's size when known (core_sort_input), to plan runs. */
	uint64_t in_done, in_total;
	uint64_t charge_in;		/* charged for every row added */

	/* Output assembly. */
	const struct core_batch *const *srcs;	/* what refs index */
	uint64_t *refs;			/* owned: batch_rows entries */
	uint32_t *bslot;		/* owned: the slot of each buffer */
	uint32_t nrefs;
	uint64_t refs_bytes;
	/* Two outputs, used in turn: the sink may still be writing the
	 * last batch while the next one is gathered. */
	struct core_gather_out out[2];
	unsigned oset;			/* the one the next batch takes */
	struct core_pool *workers;	/* owned: the second thread */
	/* The last merge's read-ahead: on when ahead_on, over the merge's
	 * sources mv[0..mk). */
	bool ahead_on;
	struct msrc *mv;
	uint32_t mk;
	struct fahead fa;
	struct core_gather *gather;	/* owned: output batches */
	struct core_gather *gather1;	/* owned: one thread, for the
					   rows copied aside */
	uint32_t *pk_off;		/* owned: ncols; a packed column's
					   place in its row's record, else
					   UINT32_MAX */
	uint32_t pk_bytes;		/* a record's bytes; 0: none packed */
	uint32_t *strcols;		/* owned: indexes of string columns */
	uint32_t nstrcols;
	size_t nsrcs;			/* entries of srcs */
	bool to_spill;			/* sink: a run, else emit */
	core_sort_emit_fn emit;
	void *arg;
	uint64_t sink_rows;		/* rows sent to this sink */

	/* --unique: the last row kept. */
	const struct core_batch *prev_b;
	uint32_t prev_r;
	const uint64_t *prev_w;
	struct core_gather_out prevcopy;
	uint64_t prev_words[CORE_SORT_MAX_WORDS];
	bool *keymask;			/* owned: ncols, key columns */

	/* Merge frames. */
	const struct core_batch **slots;	/* owned array */
	uint32_t *free_slots;
	size_t nslots, nfree, slots_cap;
	struct mframe **retired;
	size_t nretired, retired_cap;
	struct mframe **spares;		/* idle, buffers kept, charged */
	size_t nspares, spares_cap;
	uint64_t frame_est;		/* largest frame charge seen */

	struct core_spill_run *runs;	/* owned, in input order */
	size_t nruns, runs_cap;
	struct core_sort_stats st;
};

/* ------------------------------------------------------------------ */
/* chunks: a batch's buffers in one allocation */

/*
 * The fixed-width columns that are not keys, when there are two or more,
 * are packed into one record a row (widest first, so each value is
 * aligned), the rest of the chunk being columns: the gather after the
 * sort reads rows in sorted order, at random, and a row's packed values
 * then share one or two cache lines where as columns each was a line of
 * its own.  A packed column is a view with a stride (core_col.h) that
 * only the gather reads; the keys stay columns for the comparisons.
 * Only the buffer is packed: runs, merge frames and the output are
 * plain batches.
 */
static void
pack_plan(struct core_sort *s)
{
	uint32_t n = s->schema->ncols, i, k = 0, at = 0;
	size_t w;

	s->pk_off = core_xcalloc(n ? n : 1, sizeof(*s->pk_off));
	for (i = 0; i < n; i++) {
		s->pk_off[i] = UINT32_MAX;
		if (!s->keymask[i] &&
		    core_type_width(s->schema->fields[i].type.id) != 0)
			k++;
	}
	if (k < 2)
		return;
	for (w = 16; w >= 1; w /= 2)
		for (i = 0; i < n; i++)
			if (!s->keymask[i] && core_type_width(
			    s->schema->fields[i].type.id) == w) {
				s->pk_off[i] = at;
				at += (uint32_t)w;
			}
	s->pk_bytes = (uint32_t)A8(at);
}

/* Bytes of rows [r0, r0 + n) of b laid out in a chunk. */
static uint64_t
slice_bytes(const struct core_sort *s, const struct core_batch *b,
    uint32_t r0, uint32_t n)
{
	uint64_t t = A8((uint64_t)n * s->pk_bytes);
	uint32_t i;

	for (i = 0; i < b->ncols; i++) {
		const struct core_column *c = &b->cols[i];

		if (c->validity != NULL)
			t += A8(core_bitmap_bytes(n));
		if (s->pk_off[i] != UINT32_MAX)
			continue;	/* in the records */
		if (c->type.id == CORE_TYPE_STRING)
			t += A8(((uint64_t)n + 1) * 4) +
			    A8((uint64_t)(c->offsets[r0 + n] - c->offsets[r0]));
		else
			t += A8((uint64_t)n * core_type_width(c->type.id));
	}
	return t;
}

/* Copies bits [from, from + n) of src to dst starting at bit 0. */
static void
copy_bits(uint8_t *dst, const uint8_t *src, uint32_t from, uint32_t n)
{
	uint32_t i;

	if ((from & 7) == 0) {
		memcpy(dst, src + from / 8, core_bitmap_bytes(n));
		return;
	}
	memset(dst, 0, core_bitmap_bytes(n));
	for (i = 0; i < n; i++)
		if ((src[(from + i) >> 3] >> ((from + i) & 7)) & 1)
			dst[i >> 3] |= (uint8_t)(1u << (i & 7));
}

/* Stores the n values of width w at src every P bytes from q. */
static void
pack_column(unsigned char *q, uint32_t P, const unsigned char *src, size_t w,
    uint32_t n)
{
	uint32_t j;

	/* Fixed sizes: one move a value, no call. */
	switch (w) {
	case 1:
		for (j = 0; j < n; j++)
			q[(size_t)j * P] = src[j];
		break;
	case 4:
		for (j = 0; j < n; j++)
			memcpy(q + (size_t)j * P, src + (size_t)j * 4, 4);
		break;
	case 8:
		for (j = 0; j < n; j++)
			memcpy(q + (size_t)j * P, src + (size_t)j * 8, 8);
		break;
	default:
		for (j = 0; j < n; j++)
			memcpy(q + (size_t)j * P, src + (size_t)j * w, w);
		break;
	}
}

/* Copies rows [r0, r0 + n) of b into chunk into (at least size bytes),
 * or a new one when into is NULL; *out is a heap batch of views. */
static void *
copy_slice(const struct core_sort *s, const struct core_batch *b, uint32_t r0,
    uint32_t n, void *into, uint64_t size, struct core_batch **out)
{
	unsigned char *chunk = into ? into : core_xmalloc_aligned((size_t)size);
	unsigned char *p = chunk;
	struct core_batch *nb = core_xmalloc(sizeof(*nb));
	unsigned char *rec = p;		/* the records, first */
	uint32_t i, j;

	core_batch_init(nb, s->schema);
	p += A8((uint64_t)n * s->pk_bytes);
	for (i = 0; i < b->ncols; i++) {
		const struct core_column *c = &b->cols[i];
		struct core_column *d = &nb->cols[i];
		size_t w = core_type_width(c->type.id);

		if (c->validity != NULL) {
			copy_bits(p, c->validity, r0, n);
			d->validity = p;
			p += A8(core_bitmap_bytes(n));
		}
		if (s->pk_off[i] != UINT32_MAX) {
			d->values = rec + s->pk_off[i];
			d->stride = s->pk_bytes;
			pack_column(d->values, s->pk_bytes,
			    (const unsigned char *)c->values + (size_t)r0 * w,
			    w, n);
		} else if (c->type.id == CORE_TYPE_STRING) {
			int32_t base = c->offsets[r0];
			int32_t *off = (int32_t *)p;

			for (j = 0; j <= n; j++)
				off[j] = c->offsets[r0 + j] - base;
			d->offsets = off;
			p += A8(((uint64_t)n + 1) * 4);
			memcpy(p, (const char *)c->values + base,
			    (size_t)off[n]);
			d->values = p;
			p += A8((uint64_t)off[n]);
		} else {
			memcpy(p, (const char *)c->values + (size_t)r0 * w,
			    (size_t)n * w);
			d->values = p;
			p += A8((uint64_t)n * w);
		}
	}
	nb->nrows = n;
	*out = nb;
	return chunk;
}

/* ------------------------------------------------------------------ */
/* the in-memory sort of entries */

static inline int
ent_cmp(const struct core_sort *s, const uint64_t *a, const uint64_t *b)
{
	size_t nw = s->plan.nw;

	if (a[0] != b[0])
		return a[0] < b[0] ? -1 : 1;
	return core_sort_cmp(&s->plan, a, b, s->bufs[ENT_BUF(a[nw])],
	    ENT_ROW(a[nw]), s->bufs[ENT_BUF(b[nw])], ENT_ROW(b[nw]));
}

static inline void
ent_copy(uint64_t *d, const uint64_t *src, size_t stride)
{
	size_t i;

	for (i = 0; i < stride; i++)
		d[i] = src[i];
}

/* Stable insertion sort of a short range. */
static void
isort(const struct core_sort *s, uint64_t *a, size_t n)
{
	size_t st = s->stride, i, j;
	uint64_t t[CORE_SORT_MAX_WORDS + 1];

	for (i = 1; i < n; i++) {
		if (ent_cmp(s, a + (i - 1) * st, a + i * st) <= 0)
			continue;
		ent_copy(t, a + i * st, st);
		j = i;
		do {
			ent_copy(a + j * st, a + (j - 1) * st, st);
			j--;
		} while (j > 0 && ent_cmp(s, a + (j - 1) * st, t) > 0);
		ent_copy(a + j * st, t, st);
	}
}

/* Merges l[0..nl) and r[0..nr) into out; ties take l (stability). */
static void
merge2(const struct core_sort *s, const uint64_t *l, size_t nl,
    const uint64_t *r, size_t nr, uint64_t *out)
{
	size_t st = s->stride;
	const uint64_t *le = l + nl * st, *re = r + nr * st;

	if (nl > 0 && nr > 0 && ent_cmp(s, le - st, r) <= 0) {
		/* Already in order: common for sorted input. */
		memcpy(out, l, nl * st * 8);
		memcpy(out + nl * st, r, nr * st * 8);
		return;
	}
	while (l < le && r < re) {
		if (ent_cmp(s, r, l) < 0) {
			ent_copy(out, r, st);
			r += st;
		} else {
			ent_copy(out, l, st);
			l += st;
		}
		out += st;
	}
	if (l < le)
		memcpy(out, l, (size_t)(le - l) * 8);
	if (r < re)
		memcpy(out, r, (size_t)(re - r) * 8);
}

/*
 * Stable merge sort of the n entries at a, with scratch tmp (n entries):
 * insertion-sorted runs of ISORT_RUN, then bottom-up merge passes.
 */
static void
merge_sort(const struct core_sort *s, uint64_t *a, uint64_t *tmp, size_t n)
{
	size_t st = s->stride, w, i;
	uint64_t *src = a, *dst = tmp;

	for (i = 0; i < n; i += ISORT_RUN)
		isort(s, a + i * st, n - i < ISORT_RUN ? n - i : ISORT_RUN);
	if (n <= ISORT_RUN)
		return;
	for (w = ISORT_RUN; w < n; w *= 2) {
		uint64_t *x;

		for (i = 0; i < n; i += 2 * w) {
			size_t nl = n - i < w ? n - i : w;
			size_t nr = n - i - nl < w ? n - i - nl : w;

			merge2(s, src + i * st, nl, src + (i + nl) * st, nr,
			    dst + i * st);
		}
		x = src;
		src = dst;
		dst = x;
	}
	if (src != a)
		memcpy(a, src, n * st * 8);
}

/*
 * The radix sort of the entries on their first nw words: least
 * significant digit first, a byte of a word per pass, from the last
 * word's low byte to the first word's high byte.  Each pass is a stable
 * counting scatter, so the whole is stable and orders the entries by
 * their words exactly as comparing the words would.  A digit with one
 * value throughout is skipped (dates, small integers and common prefixes
 * make most digits constant): a first pass ANDs and ORs the words, whose
 * bytes that differ are the live digits, and one counting pass then
 * takes the histograms of those alone (counting all eight bytes of every
 * word cost as much as two scatters).  Returns false, having done
 * nothing, when the digits left would cost more than the merge sort's
 * passes.
 *
 * With the helper thread, each thread counts and scatters half of the
 * entries: in each pass the first half's entries of a digit go before
 * the second half's, so the scatter stays stable.  The halves hold other
 * entries after every pass, so each thread also counts, as it writes an
 * entry, the next pass's digit of it under the half it lands in.
 */

/* Fewer entries than this are sorted by the caller alone. */
#define RADIX_PAIR_MIN 65536

struct radix_job {
	const uint64_t *src;
	uint64_t *dst;
	size_t n, st, nw;
	size_t half;		/* thread 0 takes [0, half), 1 the rest */
	bool mask;		/* AND and OR every word (before counting) */
	uint64_t and_w[2][CORE_SORT_MAX_WORDS], or_w[2][CORE_SORT_MAX_WORDS];
	bool scatter;		/* false: count the live digits */
	unsigned nlive;		/* the live digits: word dk[], byte db[] */
	unsigned char dk[CORE_SORT_MAX_WORDS * 8], db[CORE_SORT_MAX_WORDS * 8];
	unsigned k, b;		/* the digit of this pass */
	bool count_next;
	unsigned nk, nb;	/* the next pass's digit */
	uint32_t (*h)[8][256];	/* [thread * nw + word]: counts of a half */
	size_t pos[2][256];	/* per thread, where a digit goes next */
	uint32_t next[2][2][256];	/* [thread][half landed in][digit] */
};

static void
radix_work(void *arg, unsigned who)
{
	struct radix_job *j = arg;
	const uint64_t *src = j->src;
	uint64_t *dst = j->dst;
	size_t lo = who ? j->half : 0, hi = who ? j->n : j->half;
	size_t st = j->st, half = j->half, i, k, b;
	unsigned sk = j->k, sh = 8 * j->b, nk = j->nk, nsh = 8 * j->nb;
	size_t *pos = j->pos[who];
	uint32_t (*nx)[256] = j->next[who];

	if (j->mask) {
		uint64_t wand[CORE_SORT_MAX_WORDS], wor[CORE_SORT_MAX_WORDS];

		for (k = 0; k < j->nw; k++) {
			wand[k] = ~(uint64_t)0;
			wor[k] = 0;
		}
		for (i = lo; i < hi; i++)
			for (k = 0; k < j->nw; k++) {
				wand[k] &= src[i * st + k];
				wor[k] |= src[i * st + k];
			}
		for (k = 0; k < j->nw; k++) {
			j->and_w[who][k] = wand[k];
			j->or_w[who][k] = wor[k];
		}
		return;
	}
	if (!j->scatter) {
		uint32_t (*h)[8][256] = j->h + who * j->nw;
		unsigned d, nl = j->nlive;

		for (i = lo; i < hi; i++)
			for (d = 0; d < nl; d++) {
				k = j->dk[d];
				b = j->db[d];
				h[k][b][(src[i * st + k] >> (8 * b)) & 0xff]++;
			}
		return;
	}
#define RADIX_SCATTER(ST, NEXT) do {					\
	for (i = lo; i < hi; i++) {					\
		const uint64_t *e = src + i * (ST);			\
		size_t p = pos[(e[sk] >> sh) & 0xff]++;			\
		uint64_t *o = dst + p * (ST);				\
		size_t m;						\
									\
		for (m = 0; m < (ST); m++)				\
			o[m] = e[m];					\
		if (NEXT)						\
			nx[p >= half][(e[nk] >> nsh) & 0xff]++;		\
	}								\
} while (0)
#define RADIX_SCATTER_ST(NEXT) do {					\
	switch (st) {							\
	case 2:								\
		RADIX_SCATTER(2, NEXT);					\
		break;							\
	case 3:								\
		RADIX_SCATTER(3, NEXT);					\
		break;							\
	case 4:								\
		RADIX_SCATTER(4, NEXT);					\
		break;							\
	default:							\
		RADIX_SCATTER(st, NEXT);				\
		break;							\
	}								\
} while (0)
	if (j->count_next)
		RADIX_SCATTER_ST(true);
	else
		RADIX_SCATTER_ST(false);
#undef RADIX_SCATTER_ST
#undef RADIX_SCATTER
}

static bool
radix_sort(const struct core_sort *s, uint64_t *a, uint64_t *tmp, size_t n,
    size_t nw)
{
	struct core_pool *pool = n >= RADIX_PAIR_MIN ? s->workers : NULL;
	bool pair = pool != NULL;
	size_t st = s->stride, k, b, d, passes = 0, lg = 0;
	unsigned char live[CORE_SORT_MAX_WORDS][8];
	uint32_t cnt[2][256];
	struct radix_job *j;

	/* The counts are 32-bit, to keep the histograms in cache. */
	if (n > UINT32_MAX)
		return false;
	while (((size_t)1 << lg) < n)
		lg++;
	j = core_xcalloc(1, sizeof(*j));
	j->h = core_xcalloc(2 * nw, sizeof(*j->h));
	j->src = a;
	j->dst = tmp;
	j->n = n;
	j->st = st;
	j->nw = nw;
	j->half = pair ? n / 2 : n;
	j->mask = true;
	core_pool_run(pool, pair ? 2 : 1, radix_work, j);
	j->mask = false;
	for (k = 0; k < nw; k++) {
		uint64_t wand = j->and_w[0][k], wor = j->or_w[0][k];

		if (pair) {
			wand &= j->and_w[1][k];
			wor |= j->or_w[1][k];
		}
		/* A byte is constant where every word has the same bits. */
		for (b = 0; b < 8; b++) {
			live[k][b] = ((wand ^ wor) >> (8 * b) & 0xff) != 0;
			passes += live[k][b];
		}
	}
	/* A radix pass reads and writes each entry once, with no
	 * comparison; a merge pass does the same plus a compare that
	 * mispredicts often, and there are about log2(n / 16) of them. */
	if (passes > lg) {
		free(j->h);
		free(j);
		return false;
	}
	/* The live digits in the order of the passes.  With two threads
	 * each pass counts the next one's digit as it scatters: only the
	 * first pass's is counted here. */
	for (k = nw; k-- > 0;)
		for (b = 0; b < 8; b++)
			if (live[k][b] && (!pair || j->nlive == 0)) {
				j->dk[j->nlive] = (unsigned char)k;
				j->db[j->nlive++] = (unsigned char)b;
			}
	if (j->nlive > 0)
		core_pool_run(pool, pair ? 2 : 1, radix_work, j);
	j->scatter = true;
	for (k = nw; k-- > 0;)
		for (b = 0; b < 8; b++) {
			size_t sum = 0, nk = k, nb = b;
			uint64_t *x;

			if (!live[k][b])
				continue;
			/* Each half's counts of this digit: from the
			 * counting pass, unless the pass before counted
			 * them as it wrote. */
			for (d = 0; d < 256; d++) {
				if (j->count_next) {
					cnt[0][d] = j->next[0][0][d] +
					    j->next[1][0][d];
					cnt[1][d] = j->next[0][1][d] +
					    j->next[1][1][d];
				} else {
					cnt[0][d] = j->h[k][b][d];
					cnt[1][d] = j->h[nw + k][b][d];
				}
			}
			for (d = 0; d < 256; d++) {
				j->pos[0][d] = sum;
				sum += cnt[0][d];
				j->pos[1][d] = sum;
				sum += cnt[1][d];
			}
			/* The next live digit, for the counts of the next
			 * pass; none after the last. */
			do {
				if (++nb == 8) {
					nb = 0;
					if (nk-- == 0)
						break;
				}
			} while (!live[nk][nb]);
			j->count_next = pair && nk < nw;
			j->k = (unsigned)k;
			j->b = (unsigned)b;
			j->nk = j->count_next ? (unsigned)nk : 0;
			j->nb = j->count_next ? (unsigned)nb : 0;
			memset(j->next, 0, sizeof(j->next));
			core_pool_run(pool, pair ? 2 : 1, radix_work, j);
			x = (uint64_t *)j->src;
			j->src = j->dst;
			j->dst = x;
		}
	if (j->src != a)
		memcpy(a, j->src, n * st * 8);
	free(j->h);
	free(j);
	return true;
}

/*
 * Sorts the buffer's entries, stably.  Radix on the key words when that
 * is cheaper.  Words after the first inexact one (a long string's
 * prefix, or an extreme word a NULL shares) cannot order rows that tie
 * on it, so the radix stops there, and each run of entries equal on the
 * radix words is put in order by comparison when such a tie, or a key
 * beyond the words, can hide a difference.
 */
static void
sort_entries(struct core_sort *s)
{
	size_t n = s->nent, st = s->stride, nw = s->plan.nw, i, j, l;
	bool ties = s->plan.nkeys > nw;
	uint64_t *a = s->ent;

	/* Charged by core_sort_add with the entries; kept from run to run
	 * like the entries themselves. */
	if (n > ISORT_RUN && s->tmp_cap < n) {
		free(s->tmp);
		s->tmp = core_xmalloc(core_mul_size(s->ent_cap, st * 8));
		s->tmp_cap = s->ent_cap;
	}
	for (l = 0; l < nw; l++)
		if (s->plan.enc[l].kind != SORTK_EXACT) {
			ties = true;
			l++;
			break;
		}
	if (n < 256 || l == 0 || !radix_sort(s, a, s->tmp, n, l)) {
		merge_sort(s, a, s->tmp, n);
		return;
	}
	if (!ties)
		return;
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && memcmp(a + i * st, a + j * st,
		    l * 8) == 0; j++)
			;
		if (j - i > 1)
			merge_sort(s, a + i * st, s->tmp, j - i);
	}
}

/* ------------------------------------------------------------------ */
/* output: choose rows, gather, send to the sink */

static uint64_t
row_bytes(const struct core_sort *s, const struct core_batch *b, uint32_t r)
{
	uint64_t n = s->fixed_row;
	uint32_t i;

	for (i = 0; i < s->nstrcols; i++) {
		const int32_t *o = b->cols[s->strcols[i]].offsets;

		n += (uint64_t)(o[r + 1] - o[r]);
	}
	return n;
}

/* Output bytes of rows [r0, r0 + n) of b into dst[0], dst[stride], ...:
 * row_bytes column by column, each string column's offsets read in one
 * sequential pass (a row at a time, the loads of many columns' offsets
 * of many frames interleave and miss the cache). */
static void
rows_bytes(const struct core_sort *s, const struct core_batch *b, uint32_t r0,
    uint32_t n, uint64_t *dst, size_t stride)
{
	uint32_t i, j;

	for (j = 0; j < n; j++)
		dst[(size_t)j * stride] = s->fixed_row;
	for (i = 0; i < s->nstrcols; i++) {
		const int32_t *o = b->cols[s->strcols[i]].offsets + r0;

		for (j = 0; j < n; j++)
			dst[(size_t)j * stride] += (uint64_t)(o[j + 1] - o[j]);
	}
}

/* Copies the last kept row aside, before its memory goes away. */
static void
save_prev(struct core_sort *s)
{
	uint64_t ref;
	const struct core_batch *src;

	if (!s->o.unique || s->prev_b == NULL ||
	    s->prev_b == &s->prevcopy.batch)
		return;
	src = s->prev_b;
	ref = s->prev_r;
	memcpy(s->prev_words, s->prev_w, s->plan.nw * 8);
	core_gather_rows(s->gather1, &src, 1, &ref, 1,
	    CORE_GATHER_TEXT_UNKNOWN, s->keymask, &s->prevcopy);
	s->prev_b = &s->prevcopy.batch;
	s->prev_r = 0;
	s->prev_w = s->prev_words;
}

static void release_retired(struct core_sort *s);

/*
 * Debug builds check what the sort writes: every batch of a run, and of
 * the output, is in key order after the one before it (core_sort_check,
 * reset where a run or the output starts), and is a well-formed batch.
 * Release builds compile this out.
 */
static void
dcheck_reset(struct core_sort *s)
{
	if (!CORE_DEBUG_ON)
		return;
	core_sort_check_free(s->dcheck);
	s->dcheck = core_sort_check_new(s->o.keys, s->o.nkeys, s->schema,
	    false);
}

static void
dcheck_batch(struct core_sort *s, const struct core_batch *b)
{
	uint64_t bad = 0;

	if (!CORE_DEBUG_ON)
		return;
	CORE_DCHECK_BATCH(b);
	if (s->dcheck == NULL)
		dcheck_reset(s);
	CORE_DCHECK(core_sort_check_batch(s->dcheck, b, &bad) == 0);
	(void)bad;
}

static int
flush_out(struct core_sort *s, struct core_err *err)
{
	struct core_batch *out = &s->out[s->oset].batch;
	int rc;

	if (s->nrefs == 0)
		return 0;
	core_gather_rows(s->gather, s->srcs, s->nsrcs, s->refs, s->nrefs,
	    s->refs_bytes - (uint64_t)s->nrefs * s->fixed_row, NULL,
	    &s->out[s->oset]);
	s->oset ^= 1;
	s->nrefs = 0;
	s->refs_bytes = 0;
	dcheck_batch(s, out);
	if (s->to_spill) {
		rc = core_spill_run_write(s->spill, out, err);
	} else {
		s->st.rows_out += out->nrows;
		rc = s->emit(s->arg, out, err);
	}
	save_prev(s);
	release_retired(s);
	return rc;
}

/* Offers one row in sorted order to the sink; size is its output bytes
 * when known (below ENT_SIZE_MAX).  *stop is set once the sink has all
 * the rows it may take (--limit). */
static int
put_row(struct core_sort *s, const struct core_batch *b, uint32_t r,
    const uint64_t *w, uint64_t ref, uint64_t size, bool *stop,
    struct core_err *err)
{
	uint64_t rb;
	int rc;

	if (s->o.has_limit && s->sink_rows >= s->o.limit) {
		*stop = true;
		return 0;
	}
	if (s->o.unique && s->prev_b != NULL &&
	    core_sort_cmp(&s->plan, s->prev_w, w, s->prev_b, s->prev_r, b,
	    r) == 0)
		return 0;
	rb = size < ENT_SIZE_MAX ? size : row_bytes(s, b, r);
	if (s->nrefs > 0 && (s->nrefs == s->batch_rows ||
	    s->refs_bytes + rb > s->out_budget) &&
	    (rc = flush_out(s, err)) != 0)
		return rc;
	s->refs[s->nrefs++] = ref;
	s->refs_bytes += rb;
	s->sink_rows++;
	s->prev_b = b;
	s->prev_r = r;
	s->prev_w = w;
	return 0;
}

static void
sink_begin(struct core_sort *s, bool to_spill,
    const struct core_batch *const *srcs)
{
	s->to_spill = to_spill;
	s->srcs = srcs;
	s->sink_rows = 0;
	s->prev_b = NULL;
	s->nrefs = 0;
	s->refs_bytes = 0;
}

/* ------------------------------------------------------------------ */
/* run formation */

/*
 * Under a budget, buffer chunks are carved from one mapping the size of
 * the rows' share of what the budget has left once the output's fixed
 * buffers are charged (so the address space follows the charge), asked to be backed by huge pages: the gather after the sort
 * reads every column at random rows, and with 4 KiB pages nearly every
 * such read is also a TLB miss.  The mapping is reused from run to run
 * (no page faults after the first) and dropped before merging.
 */
static void
arena_init(struct core_sort *s, uint64_t per, uint64_t ent)
{
	uint64_t cap = core_mem_available(s->mem);
	void *p;

	s->arena_tried = true;
	/* The entries are charged beside the rows but live outside the
	 * arena: reserve the rows' share of the budget, as the first batch
	 * shows it, and a sixteenth more for wider rows to come (rows the
	 * arena has no room for take malloc'd chunks, charged alike). */
	if (per > ent && cap != CORE_MEM_UNLIMITED)
		cap = (uint64_t)((double)cap * (double)(per - ent) /
		    (double)per) + cap / 16;
	if (cap == CORE_MEM_UNLIMITED || cap < ((uint64_t)4 << 20) ||
	    cap > ((uint64_t)1 << 40))
		return;
	cap = (cap + ((2 << 20) - 1)) & ~(uint64_t)((2 << 20) - 1);
	p = mmap(NULL, (size_t)cap, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return;	/* chunks then come from malloc, only slower */
	(void)madvise(p, (size_t)cap, MADV_HUGEPAGE);
	s->arena = p;
	s->arena_cap = cap;
	s->arena_used = 0;
}

static void
arena_free(struct core_sort *s)
{
	if (s->arena != NULL)
		munmap(s->arena, (size_t)s->arena_cap);
	s->arena = NULL;
	s->arena_cap = s->arena_used = 0;
}

/* Gives back the arena past what the buffer now uses, pages and address
 * space both: earlier, fuller buffers left the pages resident, and the
 * merge's frames are charged as if that memory were free, so under
 * ulimit -v the mapping itself must not outlive the charge. */
static void
arena_trim(struct core_sort *s)
{
	uint64_t keep = (s->arena_used + ((2 << 20) - 1)) &
	    ~(uint64_t)((2 << 20) - 1);

	if (s->arena == NULL || keep >= s->arena_cap)
		return;
	if (keep == 0) {
		arena_free(s);
		return;
	}
	(void)munmap(s->arena + keep, (size_t)(s->arena_cap - keep));
	s->arena_cap = keep;
}

static bool
in_arena(const struct core_sort *s, const void *p)
{
	return s->arena != NULL && (const unsigned char *)p >= s->arena &&
	    (const unsigned char *)p < s->arena + s->arena_cap;
}

/* size bytes from the arena (not yet charged), or NULL. */
static void *
arena_take(struct core_sort *s, uint64_t size, uint64_t *cap)
{
	uint64_t need = (size + 63) & ~(uint64_t)63;
	void *p;

	if (s->arena == NULL || need > s->arena_cap - s->arena_used)
		return NULL;
	p = s->arena + s->arena_used;
	s->arena_used += need;
	*cap = size;
	return p;
}

/* Buffer chunks outlive a spill, still charged, for the next buffer:
 * new memory would cost a page fault per 4 KiB all over again. */
static void
pool_put(struct core_sort *s, void *chunk, uint64_t cap)
{
	if (s->npool == s->pool_cap) {
		size_t pcap = s->pool_cap;	/* the arrays grow together */

		s->pool = core_grow(s->pool, &s->pool_cap, s->npool + 1,
		    sizeof(*s->pool), 64);
		s->pool_caps = core_grow(s->pool_caps, &pcap, s->npool + 1,
		    sizeof(*s->pool_caps), 64);
	}
	s->pool[s->npool] = chunk;
	s->pool_caps[s->npool++] = cap;
	s->pool_bytes += cap;
}

/* The smallest pooled chunk of at least size bytes, or NULL. */
static void *
pool_take(struct core_sort *s, uint64_t size, uint64_t *cap)
{
	size_t i, best = SIZE_MAX;
	void *p;

	for (i = 0; i < s->npool; i++)
		if (s->pool_caps[i] >= size && (best == SIZE_MAX ||
		    s->pool_caps[i] < s->pool_caps[best]))
			best = i;
	if (best == SIZE_MAX)
		return NULL;
	p = s->pool[best];
	*cap = s->pool_caps[best];
	s->pool_bytes -= *cap;
	s->pool[best] = s->pool[--s->npool];
	s->pool_caps[best] = s->pool_caps[s->npool];
	return p;
}

/* Frees one pooled chunk (the last), giving its charge back. */
static void
pool_drop(struct core_sort *s)
{
	s->npool--;
	core_free_aligned(s->pool[s->npool]);
	core_mem_part_release(&s->p_rows, s->pool_caps[s->npool]);
	s->pool_bytes -= s->pool_caps[s->npool];
}

static void
release_buffer(struct core_sort *s)
{
	size_t i;

	for (i = 0; i < s->nbufs; i++) {
		core_batch_release(s->bufs[i]);
		free(s->bufs[i]);
		if (in_arena(s, s->chunks[i]))
			core_mem_part_release(&s->p_rows, s->charges[i]);
		else
			pool_put(s, s->chunks[i], s->charges[i]);
	}
	s->arena_used = 0;
	s->nbufs = 0;
	s->nent = 0;
	core_mem_part_release(&s->p_rows, s->ent_charge);
	s->ent_charge = 0;
	s->buf_bytes = 0;
}

/* Sorts the buffer and sends it, deduplicated and cut to --limit, to
 * the sink chosen by the caller. */
static int
drain_buffer(struct core_sort *s, struct core_err *err)
{
	size_t i, nw = s->plan.nw;
	bool stop = false;
	int rc;

	sort_entries(s);
	sink_begin(s, s->to_spill, (const struct core_batch *const *)s->bufs);
	s->nsrcs = s->nbufs;
	for (i = 0; i < s->nent && !stop; i++) {
		const uint64_t *e = s->ent + i * s->stride;

		if ((rc = put_row(s, s->bufs[ENT_BUF(e[nw])], ENT_ROW(e[nw]),
		    e, ENT_REF(e[nw]), ENT_SIZE(e[nw]), &stop, err)) != 0)
			return rc;
	}
	return flush_out(s, err);
}

static void
add_run(struct core_sort *s, const struct core_spill_run *run)
{
	s->runs = core_grow(s->runs, &s->runs_cap, s->nruns + 1,
	    sizeof(*s->runs), 16);
	s->runs[s->nruns++] = *run;
}

static int
spill_begin(struct core_sort *s, struct core_err *err)
{
	if (s->spill == NULL) {
		s->spill = core_spill_new(s->o.tmpdirs, s->o.ntmpdirs,
		    s->o.max_spill, s->o.compress_spill ? 1 : 0, s->schema);
		/* The output chunks alternate, so a run's batch is still
		 * whole while the next one is gathered. */
		if (s->o.threads != 1)
			core_spill_async(s->spill);
	}
	dcheck_reset(s);
	return core_spill_run_begin(s->spill, err);
}

static int
spill_buffer(struct core_sort *s, struct core_err *err)
{
	struct core_spill_run run;
	int rc;

	if ((rc = spill_begin(s, err)) != 0)
		return rc;
	s->to_spill = true;
	if ((rc = drain_buffer(s, err)) != 0)
		return rc;
	if ((rc = core_spill_run_end(s->spill, &run, err)) != 0)
		return rc;
	add_run(s, &run);
	s->st.runs++;
	s->st.spill_bytes = core_spill_bytes(s->spill);
	release_buffer(s);
	return 0;
}

/* Appends rows [r0, r0 + n) of b (size bytes) into chunk (NULL: a new
 * one), which is charged charge bytes; ent bytes were charged for the
 * entries.  Returns the output bytes of the widest row appended, the
 * first such row's index in the slice in *wrow. */
static uint64_t
append_slice(struct core_sort *s, const struct core_batch *b, uint32_t r0,
    uint32_t n, void *chunk, uint64_t charge, uint64_t size, uint64_t ent,
    uint32_t *wrow)
{
	struct core_batch *nb;
	size_t i, need = s->nent + n;
	uint64_t *e, widest = 0;

	if (s->nbufs == s->bufs_cap) {
		size_t c1 = s->bufs_cap, c2 = s->bufs_cap;

		s->bufs = core_grow(s->bufs, &s->bufs_cap, s->nbufs + 1,
		    sizeof(*s->bufs), 64);
		s->chunks = core_grow(s->chunks, &c1, s->nbufs + 1,
		    sizeof(*s->chunks), 64);
		s->charges = core_grow(s->charges, &c2, s->nbufs + 1,
		    sizeof(*s->charges), 64);
	}
	s->chunks[s->nbufs] = copy_slice(s, b, r0, n, chunk, size, &nb);
	s->bufs[s->nbufs] = nb;
	s->charges[s->nbufs] = charge;
	if (need > s->ent_cap) {
		size_t cap = s->ent_cap + s->ent_cap / 2;
		/* No more room than the budget could still charge entries
		 * for: the slack is address space nobody paid for. */
		uint64_t most = need + core_mem_available(s->mem) /
		    (s->stride * 16);

		if (cap > most)
			cap = (size_t)most;
		s->ent_cap = cap > need ? cap : need < 1024 ? 1024 : need;
		s->ent = core_xreallocarray(s->ent, s->ent_cap,
		    s->stride * 8);
	}
	e = s->ent + s->nent * s->stride;
	core_sort_encode(&s->plan, nb, e, s->stride);
	rows_bytes(s, nb, 0, n, e + s->plan.nw, s->stride);
	for (i = 0; i < n; i++) {
		uint64_t sz = e[i * s->stride + s->plan.nw];

		e[i * s->stride + s->plan.nw] = ENT_MAKE(s->nbufs,
		    sz < ENT_SIZE_MAX ? sz : ENT_SIZE_MAX, i);
		if (sz > widest) {
			widest = sz;
			*wrow = (uint32_t)i;
		}
	}
	s->ent_charge += ent;
	s->buf_bytes += charge + ent;
	s->charge_in += charge + ent;
	s->nbufs++;
	s->nent += n;
	return widest;
}

/*
 * A row is held in the buffer, then (spilled) in a merge frame beside
 * another run's, then in the output batch: with a row wider than a
 * quarter of the budget the sort could not keep to it, so it stops
 * (exit 4) and says the budget that would do: four times the row, plus
 * what the output's fixed buffers take under that budget (they grow
 * with it, as core_sort_new sizes them).  row is 0-based over the input.
 */
static int
row_too_wide(struct core_sort *s, uint64_t widest, uint64_t row,
    struct core_err *err)
{
	uint64_t mib = (uint64_t)1 << 20, need = 4 * widest, out;

	out = need / 64 < MIN_OUT_BUDGET ? MIN_OUT_BUDGET : need / 64 >
	    MAX_OUT_BUDGET ? MAX_OUT_BUDGET : need / 64;
	need += 2 * (out + (uint64_t)s->schema->ncols * 32) +
	    (uint64_t)s->batch_rows * 16 +
	    (s->o.compress_spill ? out + out / 8 : 0);
	need = (need + mib - 1) / mib;
	s->st.need_mem = need * mib;
	return core_err_set(err, CORE_ELIMIT, "row %llu is %llu bytes, more "
	    "than a quarter of the memory budget (%llu bytes) can sort: give "
	    "-m %lluM or more", (unsigned long long)row + 1,
	    (unsigned long long)widest, (unsigned long long)s->mem->limit,
	    (unsigned long long)need);
}

/* Keeps only the best --limit rows of the buffer, in one new chunk. */
static void
compact(struct core_sort *s)
{
	uint64_t *refs, size, cost;
	struct core_gather_out tmp;
	const struct core_batch *pb = NULL;
	const uint64_t *pw = NULL;
	uint32_t pr = 0, n = 0;
	size_t i, nw = s->plan.nw;

	sort_entries(s);
	refs = core_xmalloc(core_mul_size(s->o.limit, 8));
	for (i = 0; i < s->nent && n < s->o.limit; i++) {
		const uint64_t *e = s->ent + i * s->stride;
		const struct core_batch *b = s->bufs[ENT_BUF(e[nw])];

		if (s->o.unique && pb != NULL && core_sort_cmp(&s->plan, pw,
		    e, pb, pr, b, ENT_ROW(e[nw])) == 0)
			continue;
		refs[n++] = ENT_REF(e[nw]);
		pb = b;
		pr = ENT_ROW(e[nw]);
		pw = e;
	}
	core_gather_out_init(&tmp, s->schema);
	core_gather_rows(s->gather1, (const struct core_batch *const *)s->bufs,
	    s->nbufs, refs, n, CORE_GATHER_TEXT_UNKNOWN, NULL, &tmp);
	free(refs);
	size = slice_bytes(s, &tmp.batch, 0, n);
	cost = size + (uint64_t)n * s->stride * 16;
	release_buffer(s);
	while (s->npool > 0)
		pool_drop(s);
	core_mem_part_charge(&s->p_rows, cost);
	(void)append_slice(s, &tmp.batch, 0, n, NULL, size, size, cost - size,
	    &pr);
	/* The gathered chunk was charged while it was built; the copy
	 * above is what stays. */
	core_gather_out_release(s->gather1, &tmp);
}

void
core_sort_input(struct core_sort *s, uint64_t done, uint64_t total)
{
	s->in_done = done;
	s->in_total = total;
}

/*
 * The most the buffer may hold before it is spilled, when the input's
 * size says how much is still to come (incoming: the charge of the
 * batch being added).  Every run but the last is then made just large
 * enough for the last to stay in memory (core_sort_finish's with_mem,
 * which needs a merge frame per run beside it), and the runs before it
 * share the rest equally: less is written and read back than when
 * every run but the last fills the budget.  Without a size, or when
 * the estimate says nothing needs spilling, it is the whole budget.  A
 * wrong estimate costs a run more, never a wrong answer.
 */
static uint64_t
buffer_cap(const struct core_sort *s, uint64_t incoming)
{
	uint64_t room, need, last, frame, slack, k;
	double left;

	if (s->in_total == 0 || s->in_done == 0 || s->o.has_limit ||
	    s->mem->limit == CORE_MEM_UNLIMITED)
		return UINT64_MAX;
	room = s->buf_bytes + core_mem_available(s->mem) + s->pool_bytes;
	left = s->in_total > s->in_done ? (double)(s->in_total -
	    s->in_done) * ((double)(s->charge_in + incoming) /
	    (double)s->in_done) : 0;
	if (left > (double)room * 1e6)
		return UINT64_MAX;
	need = s->buf_bytes + incoming + (uint64_t)left;
	if (need <= room)
		return UINT64_MAX;
	frame = s->frame_est + s->frame_est / 4;
	/* Held back for the estimate's error: arena chunks are charged
	 * exactly, pooled ones may be larger than asked. */
	slack = s->arena != NULL ? room / 32 : room / 8;
	for (k = 2; k < 10000; k++) {
		/* Room for the last run: a frame for each of the nruns
		 * + k - 1 runs it is merged with and one to spare. */
		if (slack + (s->nruns + k) * frame >= room)
			return UINT64_MAX;
		last = room - slack - (s->nruns + k) * frame;
		if (need - last <= (k - 1) * room)
			return (need - last + k - 2) / (k - 1);
	}
	return UINT64_MAX;
}

int
core_sort_add(struct core_sort *s, const struct core_batch *b,
    struct core_err *err)
{
	uint32_t n = b->nrows, r0 = 0, take;
	uint64_t per, avail, size, cost, ent = s->stride * 16, widest;
	uint32_t wrow = 0;
	int rc;

	s->st.rows_in += n;
	if (n == 0 || (s->o.has_limit && s->o.limit == 0))
		return 0;
	per = slice_bytes(s, b, 0, n) / n + ent + 1;
	if (!s->arena_tried)
		arena_init(s, per, ent);
	while (r0 < n) {
		void *chunk;
		uint64_t cap = 0, most = buffer_cap(s, (uint64_t)(n - r0) *
		    per);

		avail = core_mem_available(s->mem) + s->pool_bytes;
		if (most != UINT64_MAX && avail > most - (most <
		    s->buf_bytes ? most : s->buf_bytes))
			avail = most - (most < s->buf_bytes ? most :
			    s->buf_bytes);
		take = avail / per > n - r0 ? n - r0 : (uint32_t)(avail / per);
		if (take > ENT_ROW_MAX)
			take = ENT_ROW_MAX;
		/* Entries address at most ENT_BUF_MAX buffers. */
		if (s->nbufs == ENT_BUF_MAX) {
			if ((rc = spill_buffer(s, err)) != 0)
				return rc;
			continue;
		}
		/* No slivers: a nearly full buffer is better spilled. */
		if (take < n - r0 && take < 64 && s->nent > 0) {
			if ((rc = spill_buffer(s, err)) != 0)
				return rc;
			continue;
		}
		if (take == 0)
			take = 1;
		size = slice_bytes(s, b, r0, take);
		chunk = arena_take(s, size, &cap);
		if (chunk == NULL)
			chunk = pool_take(s, size, &cap);
		/* A pooled chunk is still charged; arena space is not. */
		cost = (chunk != NULL && !in_arena(s, chunk) ? 0 : size) +
		    (uint64_t)take * ent;
		while ((rc = core_mem_part_try_charge(&s->p_rows,
		    cost)) != 0 && s->npool > 0)
			pool_drop(s);
		if (rc != 0) {
			if (s->nent > 0) {
				if (chunk != NULL && in_arena(s, chunk))
					s->arena_used -= (cap + 63) &
					    ~(uint64_t)63;
				else if (chunk != NULL)
					pool_put(s, chunk, cap);
				if ((rc = spill_buffer(s, err)) != 0)
					return rc;
				continue;
			}
			/* An empty buffer must take something to make
			 * progress; a row too wide to fit fails just
			 * after (row_too_wide). */
			core_mem_part_charge(&s->p_rows, cost);
		}
		widest = append_slice(s, b, r0, take, chunk, chunk ? cap :
		    size, size, (uint64_t)take * ent, &wrow);
		if (s->mem->limit != CORE_MEM_UNLIMITED &&
		    widest > s->mem->limit / 4)
			return row_too_wide(s, widest, s->st.rows_in - n + r0 +
			    wrow, err);
		r0 += take;
	}
	if (s->o.has_limit && s->nent >= 2 * s->o.limit &&
	    s->o.limit <= ENT_ROW_MAX / 2)
		compact(s);
	s->st.peak_mem = s->mem->peak;
	return 0;
}

/* ------------------------------------------------------------------ */
/* merging */

static uint32_t
slot_get(struct core_sort *s)
{
	if (s->nfree > 0)
		return s->free_slots[--s->nfree];
	if (s->nslots == s->slots_cap) {
		size_t cap = s->slots_cap;

		s->slots = core_grow(s->slots, &s->slots_cap, s->nslots + 1,
		    sizeof(*s->slots), 64);
		s->free_slots = core_grow(s->free_slots, &cap, s->nslots + 1,
		    sizeof(*s->free_slots), 64);
	}
	return (uint32_t)s->nslots++;
}

/* Frames are recycled within a merge with their buffers (and their
 * charge): a fresh buffer per frame would cost a page fault per 4 KiB. */
static struct mframe *
mframe_new(struct core_sort *s)
{
	struct mframe *m;

	if (s->nspares > 0) {
		m = s->spares[--s->nspares];
	} else {
		m = core_xcalloc(1, sizeof(*m));
		core_batch_init(&m->f.batch, s->schema);
	}
	return m;
}

static void
mframe_slot(struct core_sort *s, struct mframe *m)
{
	m->slot = slot_get(s);
	s->slots[m->slot] = &m->f.batch;
}

/* Keeps m, without a slot, for the next frame. */
static void
mframe_spare(struct core_sort *s, struct mframe *m)
{
	s->spares = core_grow(s->spares, &s->spares_cap, s->nspares + 1,
	    sizeof(*s->spares), 16);
	s->spares[s->nspares++] = m;
}

static void
mframe_put(struct core_sort *s, struct mframe *m)
{
	if (m == NULL)
		return;
	s->slots[m->slot] = NULL;
	s->free_slots[s->nfree++] = m->slot;
	mframe_spare(s, m);
}

static void
free_spares(struct core_sort *s)
{
	struct mframe *m;

	while (s->nspares > 0) {
		m = s->spares[--s->nspares];
		core_spill_frame_release(&m->f, &s->p_merge);
		core_batch_release(&m->f.batch);
		free(m->words);
		core_mem_part_release(&s->p_merge, m->wcharge);
		free(m);
	}
}

static void
release_retired(struct core_sort *s)
{
	size_t i;

	for (i = 0; i < s->nretired; i++)
		mframe_put(s, s->retired[i]);
	s->nretired = 0;
}

/* Reads the next frame of cursor c into m and makes its key words: 0,
 * CORE_EOF or a failure.  Touches nothing of s but the budget's merge
 * part (charged atomically), so the read-ahead runs it on the second
 * thread. */
static int
frame_load(struct core_sort *s, struct core_spill_cursor *c,
    struct mframe *m, struct core_err *err)
{
	int rc;

	rc = core_spill_read_frame(s->spill, c, &m->f, &s->p_merge, err);
	if (rc != 0)
		return rc;
	if (m->f.batch.nrows > m->wrows) {
		/* Frames of a run differ by a few rows. */
		uint32_t rows = (uint32_t)core_reuse_size(m->f.batch.nrows);
		uint64_t more = (uint64_t)(rows - m->wrows) * s->stride * 8;

		core_mem_part_charge(&s->p_merge, more);
		m->wcharge += more;
		m->wrows = rows;
		free(m->words);
		m->words = core_xmalloc(core_mul_size(m->wrows,
		    s->stride * 8));
	}
	core_sort_encode(&s->plan, &m->f.batch, m->words, s->stride);
	rows_bytes(s, &m->f.batch, 0, m->f.batch.nrows, m->words + s->plan.nw,
	    s->stride);
	return 0;
}

static void
ahead_job(void *arg, unsigned who)
{
	struct fahead *a = arg;

	(void)who;
	a->rc = frame_load(a->s, &a->src->cur, a->m, &a->err);
}

/* Starts reading ahead the next frame of the run whose current frame
 * ends first, unless one is read already or the budget has no room. */
static void
ahead_start(struct core_sort *s)
{
	struct fahead *a = &s->fa;
	struct msrc *best = NULL;
	const uint64_t *bw = NULL;
	uint32_t i, br = 0;

	if (!s->ahead_on || a->src != NULL ||
	    core_mem_available(s->mem) < 2 * s->frame_est)
		return;
	for (i = 0; i < s->mk; i++) {
		struct msrc *x = &s->mv[i];
		uint32_t r;
		const uint64_t *w;

		if (x->mem || x->fr == NULL || x->cur.done)
			continue;
		r = x->fr->f.batch.nrows - 1;
		w = x->fr->words + (size_t)r * s->stride;
		if (best == NULL || core_sort_cmp(&s->plan, w, bw,
		    &x->fr->f.batch, r, &best->fr->f.batch, br) < 0) {
			best = x;
			bw = w;
			br = r;
		}
	}
	if (best == NULL)
		return;
	a->s = s;
	a->src = best;
	a->m = mframe_new(s);
	a->rc = 0;
	memset(&a->err, 0, sizeof(a->err));
	core_pool_start(s->workers, &a->task, ahead_job, a);
}

/* Waits for the read-ahead; its frame (NULL at the run's end) in *m,
 * and 0 or its failure. */
static int
ahead_take(struct core_sort *s, struct mframe **m, struct core_err *err)
{
	struct fahead *a = &s->fa;
	int rc;

	core_pool_wait(s->workers, &a->task);
	rc = a->rc;
	*m = a->m;
	a->src = NULL;
	a->m = NULL;
	if (rc != 0) {
		mframe_spare(s, *m);
		*m = NULL;
		if (rc != CORE_EOF && err != NULL)
			*err = a->err;
	}
	return rc;
}

/* Stops the read-ahead, its frame kept as a spare. */
static void
ahead_stop(struct core_sort *s)
{
	struct mframe *m;

	if (s->fa.src != NULL) {
		(void)ahead_take(s, &m, NULL);
		if (m != NULL)
			mframe_spare(s, m);
	}
	s->ahead_on = false;
}

/* Moves src to its run's next frame, keeping the used one alive while
 * output references point into it. */
static int
next_frame(struct core_sort *s, struct msrc *src, struct core_err *err)
{
	struct mframe *m;
	int rc;

	if (src->fr != NULL) {
		s->retired = core_grow(s->retired, &s->retired_cap,
		    s->nretired + 1, sizeof(*s->retired), 16);
		s->retired[s->nretired++] = src->fr;
		src->fr = NULL;
		if (s->nrefs == 0) {
			save_prev(s);
			release_retired(s);
		}
	}
	if (s->nrefs > 0 && s->nspares == 0 &&
	    core_mem_available(s->mem) < s->frame_est &&
	    (rc = flush_out(s, err)) != 0)
		return rc;
	if (s->fa.src == src) {
		rc = ahead_take(s, &m, err);
	} else {
		m = mframe_new(s);
		rc = frame_load(s, &src->cur, m, err);
		if (rc != 0) {
			mframe_spare(s, m);
			m = NULL;
		}
	}
	if (rc != 0)
		return rc == CORE_EOF ? 0 : rc;
	mframe_slot(s, m);
	if (m->f.charged + m->wcharge > s->frame_est)
		s->frame_est = m->f.charged + m->wcharge;
	src->fr = m;
	src->row = 0;
	if (s->mem->peak > s->st.peak_mem)
		s->st.peak_mem = s->mem->peak;
	ahead_start(s);
	return 0;
}

/* Resolves src's current row: the frame's row for a file, the next
 * sorted entry for the buffer, whose rows are gathered straight from
 * the buffer (their slots are bslot[]) with no frame in between. */
static inline void
src_resolve(const struct core_sort *s, struct msrc *src)
{
	size_t nw = s->plan.nw;

	if (src->mem) {
		const uint64_t *e;
		uint64_t x;

		src->live = src->next_ent < s->nent;
		if (!src->live)
			return;
		e = s->ent + src->next_ent * s->stride;
		x = e[nw];
		src->cw = e;
		src->cb = s->bufs[ENT_BUF(x)];
		src->cr = ENT_ROW(x);
		src->cref = (uint64_t)s->bslot[ENT_BUF(x)] << 32 | src->cr;
		src->csize = ENT_SIZE(x);
		return;
	}
	src->live = src->fr != NULL;
	if (!src->live)
		return;
	src->cw = src->fr->words + (size_t)src->row * s->stride;
	src->cb = &src->fr->f.batch;
	src->cr = src->row;
	src->cref = (uint64_t)src->fr->slot << 32 | src->row;
	src->csize = src->cw[nw];
}

/* Moves src past its current row. */
static int
src_advance(struct core_sort *s, struct msrc *src, struct core_err *err)
{
	int rc;

	if (src->mem)
		src->next_ent++;
	else if (++src->row == src->fr->f.batch.nrows &&
	    (rc = next_frame(s, src, err)) != 0)
		return rc;
	src_resolve(s, src);
	return 0;
}

/* Does run a's current row go before run b's?  Ties: the earlier run. */
static inline bool
src_less(const struct core_sort *s, const struct msrc *v, uint32_t a,
    uint32_t b)
{
	const struct msrc *x = &v[a], *y = &v[b];
	int c;

	if (!x->live)
		return false;
	if (!y->live)
		return true;
	c = core_sort_cmp(&s->plan, x->cw, y->cw, x->cb, x->cr, y->cb,
	    y->cr);
	return c < 0 || (c == 0 && a < b);
}

/* Merges runs [lo, hi), and after them the sorted buffer when with_mem,
 * into the sink set up by the caller. */
static int
merge_runs(struct core_sort *s, size_t lo, size_t hi, bool with_mem,
    struct core_err *err)
{
	uint32_t k = (uint32_t)(hi - lo) + with_mem, i, p, x, t;
	struct msrc *v = core_xcalloc(k, sizeof(*v));
	uint32_t *tree = core_xcalloc(k, sizeof(*tree));
	uint32_t *w = core_xcalloc(2 * (size_t)k, sizeof(*w));
	size_t b;
	bool stop = false;
	int rc = 0;

	if (with_mem) {
		s->bslot = core_xreallocarray(s->bslot, s->nbufs + 1,
		    sizeof(*s->bslot));
		for (b = 0; b < s->nbufs; b++) {
			s->bslot[b] = slot_get(s);
			s->slots[s->bslot[b]] = s->bufs[b];
		}
	}
	sink_begin(s, s->to_spill, s->slots);
	s->mv = v;
	s->mk = k;
	s->ahead_on = !s->to_spill && s->workers != NULL &&
	    !s->o.compress_spill;
	for (i = 0; i < k && rc == 0; i++) {
		/* The buffer holds the input's last rows: the last run,
		 * so ties still go to the earlier input. */
		if (with_mem && i == k - 1)
			v[i].mem = true;
		else if ((rc = core_spill_cursor_open(s->spill, &v[i].cur,
		    &s->runs[lo + i], err)) == 0)
			rc = next_frame(s, &v[i], err);
		src_resolve(s, &v[i]);
	}
	if (rc != 0)
		goto out;
	/* Play the initial tournament; losers stay in the inner nodes. */
	for (i = 0; i < k; i++)
		w[k + i] = i;
	for (p = k - 1; p >= 1; p--) {
		if (src_less(s, v, w[2 * p], w[2 * p + 1])) {
			w[p] = w[2 * p];
			tree[p] = w[2 * p + 1];
		} else {
			w[p] = w[2 * p + 1];
			tree[p] = w[2 * p];
		}
	}
	tree[0] = k > 1 ? w[1] : 0;
	for (;;) {
		struct msrc *m;

		x = tree[0];
		m = &v[x];
		if (!m->live)
			break;
		/* slots[] may move when next_frame adds one: put_row
		 * reads srcs only at flush time, through s->slots. */
		s->srcs = s->slots;
		s->nsrcs = s->nslots;
		rc = put_row(s, m->cb, m->cr, m->cw, m->cref, m->csize, &stop,
		    err);
		if (rc != 0 || stop || (rc = src_advance(s, m, err)) != 0)
			break;
		for (p = (x + k) >> 1; p >= 1; p >>= 1)
			if (src_less(s, v, tree[p], x)) {
				t = tree[p];
				tree[p] = x;
				x = t;
			}
		tree[0] = x;
	}
	s->srcs = s->slots;
	s->nsrcs = s->nslots;
	if (rc == 0)
		rc = flush_out(s, err);
out:
	ahead_stop(s);
	save_prev(s);
	for (i = 0; i < k; i++)
		mframe_put(s, v[i].fr);
	release_retired(s);
	free_spares(s);
	for (i = lo; i < hi; i++)
		core_spill_run_discard(s->spill, &s->runs[i]);
	if (with_mem)
		for (b = 0; b < s->nbufs; b++) {
			s->slots[s->bslot[b]] = NULL;
			s->free_slots[s->nfree++] = s->bslot[b];
		}
	free(v);
	free(tree);
	free(w);
	return rc;
}

/* Runs one merge fits in the budget. */
static size_t
fan_in(const struct core_sort *s)
{
	uint64_t avail, per;

	if (s->mem->limit == CORE_MEM_UNLIMITED)
		return SIZE_MAX;
	avail = core_mem_available(s->mem);
	/* A frame per run, and a quarter more for frames retired before
	 * the output batch is flushed. */
	per = s->frame_est + s->frame_est / 4;
	if (per == 0 || avail / per < 2)
		return 2;
	return avail / per > 100000 ? 100000 : (size_t)(avail / per);
}

static void
tell_phase(struct core_sort *s, const char *phase, unsigned i, unsigned n)
{
	if (s->o.phase != NULL)
		s->o.phase(s->o.phase_arg, phase, i, n);
}

/* The passes merge_passes makes for nruns runs at fan-in k, the last
 * merge included: its grouping, on counts alone. */
static unsigned
passes_for(size_t nruns, size_t k)
{
	size_t i, j, g, excess;
	unsigned n = 1;

	while (nruns > k && k >= 2) {
		excess = nruns - k;
		for (i = j = 0; i < nruns; j++) {
			g = excess + 1 < k ? excess + 1 : k;
			if (g > nruns - i)
				g = nruns - i;
			if (excess == 0 || g < 2) {
				i++;
				continue;
			}
			i += g;
			excess -= g - 1;
		}
		nruns = j;
		n++;
	}
	return n;
}

/* Merges neighbouring groups until the rest fits one merge. */
static int
merge_passes(struct core_sort *s, struct core_err *err)
{
	size_t k, i, j, g, excess;
	struct core_spill_run run;
	unsigned pass = 0, npasses;
	int rc;

	while (s->nruns > (k = fan_in(s))) {
		npasses = pass + passes_for(s->nruns, k);
		tell_phase(s, "merging", ++pass, npasses);
		excess = s->nruns - k;
		i = j = 0;
		while (i < s->nruns) {
			g = excess + 1 < k ? excess + 1 : k;
			if (g > s->nruns - i)
				g = s->nruns - i;
			if (excess == 0 || g < 2) {
				s->runs[j++] = s->runs[i++];
				continue;
			}
			if ((rc = spill_begin(s, err)) != 0)
				return rc;
			s->to_spill = true;
			if ((rc = merge_runs(s, i, i + g, false, err)) != 0 ||
			    (rc = core_spill_run_end(s->spill, &run,
			    err)) != 0)
				return rc;
			s->runs[j++] = run;
			i += g;
			excess -= g - 1;
		}
		s->nruns = j;
		s->st.merge_passes++;
		s->st.spill_bytes = core_spill_bytes(s->spill);
	}
	s->last_pass = pass + 1;
	return 0;
}

/*
 * Before the last merge: the in-memory sort's scratch is not needed
 * again, and the entries keep only the rows the buffer holds.  Both were
 * sized by the largest buffer, and their pages would stay resident,
 * uncharged, beside the merge frames that the budget now pays for.
 */
static void
entries_trim(struct core_sort *s)
{
	uint64_t scratch = (uint64_t)s->nent * s->stride * 8;

	free(s->tmp);
	s->tmp = NULL;
	s->tmp_cap = 0;
	/* Half of each entry's charge was for the scratch. */
	core_mem_part_release(&s->p_rows, scratch);
	s->ent_charge -= scratch;
	s->buf_bytes -= scratch;
	if (s->nent == 0) {
		free(s->ent);
		s->ent = NULL;
		s->ent_cap = 0;
	} else if (s->ent_cap > s->nent) {
		s->ent = core_xreallocarray(s->ent, s->nent, s->stride * 8);
		s->ent_cap = s->nent;
	}
}

int
core_sort_finish(struct core_sort *s, core_sort_emit_fn emit, void *arg,
    struct core_err *err)
{
	bool with_mem;
	int rc;

	s->emit = emit;
	s->arg = arg;
	s->last_pass = 1;
	if (s->nruns == 0) {
		s->to_spill = false;
		dcheck_reset(s);
		tell_phase(s, "sorting", 0, 0);
		rc = drain_buffer(s, err);
		release_buffer(s);
		s->st.peak_mem = s->mem->peak;
		return rc;
	}
	while (s->npool > 0)
		pool_drop(s);
	/* The last buffer stays in memory as the last run when a frame
	 * for every run fits beside it, so one merge does; else it is
	 * spilled like the others. */
	with_mem = s->nent > 0 && s->nruns + 1 <= fan_in(s);
	if (with_mem) {
		tell_phase(s, "sorting", 0, 0);
		sort_entries(s);
		s->st.runs++;
		arena_trim(s);
		entries_trim(s);
	} else {
		if (s->nent > 0 && (rc = spill_buffer(s, err)) != 0)
			return rc;
		arena_free(s);
		entries_trim(s);
		if ((rc = merge_passes(s, err)) != 0)
			return rc;
	}
	s->to_spill = false;
	dcheck_reset(s);
	tell_phase(s, "merging", s->last_pass, s->last_pass);
	rc = merge_runs(s, 0, s->nruns, with_mem, err);
	if (with_mem) {
		release_buffer(s);
		arena_free(s);
	}
	s->st.merge_passes++;
	s->st.spill_bytes = core_spill_bytes(s->spill);
	if (s->mem->peak > s->st.peak_mem)
		s->st.peak_mem = s->mem->peak;
	return rc;
}

/* ------------------------------------------------------------------ */
/* life cycle */

struct core_sort *
core_sort_new(const struct core_sort_options *o,
    const struct core_schema *schema, struct core_mem *mem)
{
	struct core_sort *s = core_xcalloc(1, sizeof(*s));
	uint32_t i;
	size_t k;

	s->o = *o;
	s->schema = schema;
	s->mem = mem;
	core_mem_part_init(&s->p_rows, mem, "buffered rows",
	    CORE_MEM_UNLIMITED);
	core_mem_part_init(&s->p_merge, mem, "merge frames",
	    CORE_MEM_UNLIMITED);
	core_mem_part_init(&s->p_out, mem, "output", CORE_MEM_UNLIMITED);
	core_sort_plan_init(&s->plan, o->keys, o->nkeys, schema);
	s->stride = s->plan.nw + 1;
	s->batch_rows = core_batch_rows_for(schema, NULL, 0,
	    o->batch_rows ? o->batch_rows : DEFAULT_BATCH_ROWS);
	if (mem->limit == CORE_MEM_UNLIMITED)
		s->out_budget = MAX_OUT_BUDGET * 2;
	else
		s->out_budget = mem->limit / 64 < MIN_OUT_BUDGET ?
		    MIN_OUT_BUDGET : mem->limit / 64 > MAX_OUT_BUDGET ?
		    MAX_OUT_BUDGET : mem->limit / 64;
	for (i = 0; i < schema->ncols; i++) {
		enum core_type t = schema->fields[i].type.id;

		s->fixed_row += 1 + (t == CORE_TYPE_STRING ? 4 :
		    core_type_width(t));
	}
	/* The output chunks, the reference lists and (when spills are
	 * compressed) the writer's staging buffer live for the whole
	 * sort: charge them once.  Under a budget the second thread's
	 * chunks are charged from the start (charged later, when the
	 * buffer has filled the budget, they would pass it), and charged
	 * with one thread too: the budget left for rows, and so every run
	 * and frame, is then the same whatever the thread count, and so
	 * are the output's bytes. */
	s->workers = core_pool_new(core_pool_default(o->threads, 2));
	s->gather = core_gather_new(schema, s->workers, &s->p_out);
	s->gather1 = core_gather_new(schema, NULL, &s->p_rows);
	for (i = 0; i < 2; i++) {
		core_gather_out_init(&s->out[i], schema);
		core_gather_out_reserve(s->gather, &s->out[i], s->out_budget +
		    (uint64_t)schema->ncols * 32,
		    mem->limit != CORE_MEM_UNLIMITED);
	}
	core_gather_out_init(&s->prevcopy, schema);
	s->refs = core_xmalloc(core_mul_size(s->batch_rows, 8));
	s->fixed_charge = (uint64_t)s->batch_rows * 16 +
	    (o->compress_spill ? s->out_budget + s->out_budget / 8 : 0);
	core_mem_part_charge(&s->p_out, s->fixed_charge);
	/* A merge frame until one is seen: a batch's buffers, twice over
	 * when spills are compressed (the compressed body and the buffers
	 * it expands to, each kept at its largest as frames are reused),
	 * and the rows' key words. */
	s->frame_est = (s->out_budget + s->out_budget / 4) *
	    (o->compress_spill ? 2 : 1) + (uint64_t)s->batch_rows *
	    (s->plan.nw + 1) * 8;
	s->keymask = core_xcalloc(schema->ncols ? schema->ncols : 1,
	    sizeof(*s->keymask));
	for (k = 0; k < o->nkeys; k++)
		s->keymask[o->keys[k].col] = true;
	pack_plan(s);
	s->strcols = core_xcalloc(schema->ncols ? schema->ncols : 1,
	    sizeof(*s->strcols));
	for (i = 0; i < schema->ncols; i++)
		if (schema->fields[i].type.id == CORE_TYPE_STRING)
			s->strcols[s->nstrcols++] = i;
	return s;
}

void
core_sort_free(struct core_sort *s)
{
	unsigned i;

	if (s == NULL)
		return;
	release_buffer(s);
	while (s->npool > 0)
		pool_drop(s);
	arena_free(s);
	release_retired(s);
	free_spares(s);
	core_mem_part_release(&s->p_out, s->fixed_charge);
	core_spill_free(s->spill);
	free(s->bufs);
	free(s->chunks);
	free(s->charges);
	free(s->pool);
	free(s->pool_caps);
	free(s->ent);
	free(s->tmp);
	free(s->refs);
	free(s->bslot);
	core_pool_free(s->workers);
	for (i = 0; i < 2; i++)
		core_gather_out_release(s->gather, &s->out[i]);
	core_gather_out_release(s->gather1, &s->prevcopy);
	core_gather_free(s->gather);
	core_gather_free(s->gather1);
	free(s->keymask);
	free(s->strcols);
	free(s->pk_off);
	free(s->slots);
	free(s->free_slots);
	free(s->retired);
	free(s->spares);
	free(s->runs);
	/* Everything charged was given back: the budget's accounting
	 * balances. */
	CORE_DCHECK(s->p_rows.used == 0 && s->p_merge.used == 0 &&
	    s->p_out.used == 0);
	core_sort_check_free(s->dcheck);
	core_mem_part_fini(&s->p_rows);
	core_mem_part_fini(&s->p_merge);
	core_mem_part_fini(&s->p_out);
	free(s);
}

void
core_sort_get_stats(const struct core_sort *s, struct core_sort_stats *st)
{
	*st = s->st;
	if (s->mem->peak > st->peak_mem)
		st->peak_mem = s->mem->peak;
	if (s->spill != NULL)
		st->spill_bytes = core_spill_bytes(s->spill);
}

/* ------------------------------------------------------------------ */
/* order checking */

struct core_sort_check {
	const struct core_sort_key *keys;	/* borrowed */
	size_t nkeys;
	struct core_gather *gather;	/* owned: one thread, no budget */
	struct core_gather_out last;	/* the last row seen, its keys */
	bool *keymask;			/* owned: ncols, key columns */
	bool strict;
	bool has_last;
	uint64_t rows;			/* rows fed before this batch */
};

struct core_sort_check *
core_sort_check_new(const struct core_sort_key *keys, size_t nkeys,
    const struct core_schema *schema, bool strict)
{
	struct core_sort_check *c = core_xcalloc(1, sizeof(*c));
	size_t k;

	c->keys = keys;
	c->nkeys = nkeys;
	c->gather = core_gather_new(schema, NULL, NULL);
	core_gather_out_init(&c->last, schema);
	c->keymask = core_xcalloc(schema->ncols ? schema->ncols : 1,
	    sizeof(*c->keymask));
	for (k = 0; k < nkeys; k++)
		c->keymask[keys[k].col] = true;
	c->strict = strict;
	return c;
}

void
core_sort_check_free(struct core_sort_check *c)
{
	if (c == NULL)
		return;
	core_gather_out_release(c->gather, &c->last);
	core_gather_free(c->gather);
	free(c->keymask);
	free(c);
}

int
core_sort_check_batch(struct core_sort_check *c, const struct core_batch *b,
    uint64_t *bad)
{
	uint32_t r;
	int cmp;

	if (b->nrows == 0)
		return 0;
	for (r = 0; r < b->nrows; r++) {
		if (r == 0 && !c->has_last)
			continue;
		if (r == 0)
			cmp = core_sort_compare(c->keys, c->nkeys,
			    &c->last.batch, 0, b, 0);
		else
			cmp = core_sort_compare(c->keys, c->nkeys, b, r - 1,
			    b, r);
		if (cmp > 0 || (cmp == 0 && c->strict)) {
			*bad = c->rows + r;
			return 1;
		}
	}
	/* The last row's keys are the next batch's predecessor: the batch
	 * itself is gone by then. */
	r = b->nrows - 1;
	core_gather_select(c->gather, b, &r, 1, c->keymask, &c->last);
	c->has_last = true;
	c->rows += b->nrows;
	return 0;
}

/* One key value as a message shows it. */
static void
key_text(const struct core_column *c, uint32_t r, char *buf, size_t size)
{
	char v[CORE_VALUE_TEXT_MAX + 1];
	size_t n = 0;

	if (!core_col_is_valid(c, r)) {
		snprintf(buf, size, "NULL");
		return;
	}
	switch (c->type.id) {
	case CORE_TYPE_BOOL:
		n = core_format_bool(((const uint8_t *)c->values)[r], v);
		break;
	case CORE_TYPE_INT32:
		n = core_format_int64(((const int32_t *)c->values)[r], v);
		break;
	case CORE_TYPE_DATE:
		n = core_format_date(((const int32_t *)c->values)[r], v);
		break;
	case CORE_TYPE_INT64:
		n = core_format_int64(((const int64_t *)c->values)[r], v);
		break;
	case CORE_TYPE_DECIMAL:
		n = core_format_decimal(((const int64_t *)c->values)[r],
		    c->type.scale, v);
		break;
	case CORE_TYPE_TIMESTAMP:
		n = core_format_timestamp(((const int64_t *)c->values)[r], v);
		break;
	case CORE_TYPE_FLOAT64:
		n = core_format_float64(((const double *)c->values)[r], v);
		break;
	case CORE_TYPE_DECIMAL128:
		n = core_format_decimal128(core_i128_load(
		    (const char *)c->values + 16 * (size_t)r), c->type.scale,
		    v);
		break;
	case CORE_TYPE_STRING: {
		int32_t len = c->offsets[r + 1] - c->offsets[r];

		snprintf(buf, size, "'%.*s%s'", len > 40 ? 40 : (int)len,
		    (const char *)c->values + c->offsets[r],
		    len > 40 ? "..." : "");
		return;
	}
	}
	v[n] = '\0';
	snprintf(buf, size, "%s", v);
}

static void
row_keys(const struct core_sort_check *c, const struct core_batch *b,
    uint32_t r, char *buf, size_t size)
{
	size_t i, n;

	snprintf(buf, size, "(");
	for (i = 0; i < c->nkeys; i++) {
		n = strlen(buf);
		if (i > 0 && n + 2 < size) {
			memcpy(buf + n, ", ", 3);
			n += 2;
		}
		if (n + 1 < size)
			key_text(&b->cols[c->keys[i].col], r, buf + n,
			    size - n);
	}
	n = strlen(buf);
	if (n + 1 < size)
		snprintf(buf + n, size - n, ")");
}

void
core_sort_check_describe(const struct core_sort_check *c,
    const struct core_batch *b, uint64_t bad, char *buf, size_t size)
{
	uint32_t r = (uint32_t)(bad - c->rows);
	char prev[256];
	size_t n;

	row_keys(c, b, r, buf, size);
	if (r > 0)
		row_keys(c, b, r - 1, prev, sizeof(prev));
	else if (c->has_last)
		row_keys(c, &c->last.batch, 0, prev, sizeof(prev));
	else
		return;
	n = strlen(buf);
	if (n + 1 < size)
		snprintf(buf + n, size - n, " after %s", prev);
}
