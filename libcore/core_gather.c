/*
 * core_gather.c - rows picked by reference, copied into columns
 * (core_gather.h).
 *
 * Every load of a gather is a likely cache miss (the refs come in an
 * order unrelated to the sources' layout, e.g. sorted), so each column
 * is one loop that prefetches the values GATHER_AHEAD rows ahead and
 * copies with no call per value.  The threads take the next column
 * until none is left, the costliest first (strings, whose offsets and
 * bytes are two dependent misses, then by width), so the last column
 * taken, which the other thread may wait for, is a cheap one.  Each
 * thread writes into its own chunk, sized to hold every wanted column
 * since either thread may take any of them; columns are independent, so
 * which thread did which changes where a buffer lives, never its bytes.
 *
 * A selection over one batch (core_gather_select) is different: its rows
 * ascend, and a filter that keeps most of them leaves long runs of
 * consecutive rows.  When the runs average RUN_MIN rows or more, each
 * run is copied as a block (values, and text with its offsets shifted
 * by one constant); otherwise the rows go through the gather above.
 * Both give the same bytes.
 *
 * Invariant: o->cap[t] is what is charged for o's chunk t, allocated or
 * not; a chunk, when allocated, holds cap[t] bytes.
 */
#include <stdlib.h>
#include <string.h>

#include "core_alloc.h"
#include "core_gather.h"
#include "core_pool.h"

#define A8(n) (((n) + 7) & ~(uint64_t)7)

/* Fewer rows than this are gathered by the caller alone: handing work
 * to the other thread costs more than it saves. */
#define GATHER_PAIR_MIN 4096

struct core_gather {
	const struct core_schema *schema;	/* borrowed */
	struct core_pool *pool;		/* borrowed; NULL: one thread */
	struct core_mem_part *mem;	/* borrowed; NULL: no charging */
	uint32_t *order;		/* owned: columns, costliest first */
	const void **vals[CORE_GATHER_MAX_THREADS];	/* owned: per-source */
	const int32_t **offs[CORE_GATHER_MAX_THREADS];	/* tables, per thread */
	size_t *strs[CORE_GATHER_MAX_THREADS];	/* fixed width: strides */
	size_t tcap;			/* sources the tables hold */
	uint64_t *sel;			/* owned: core_gather_select's refs */
	size_t sel_cap;
	uint32_t *run_from, *run_len;	/* owned: the runs (select_runs, */
	uint32_t *run_src;		/* ref_runs): rows, lengths, and */
	size_t run_cap;			/* sources (ref_runs only) */
	/* The record columns of a gather (group_plan), each with its
	 * per-source tables at [c * nsrcs], its output and its bitmap. */
	uint32_t *grp;			/* owned: ncols; the columns */
	uint32_t ngrp;
	bool *ingrp;			/* owned: ncols; column i is one */
	bool *gmaybe;			/* owned: ncols; a source has NULLs */
	uint8_t *gseen;			/* owned: ncols; a NULL was found */
	unsigned char **gout, **gbits;	/* owned: ncols */
	const void **gvals;		/* owned: ngrp * nsrcs */
	size_t *gstrs;
	size_t gcap;			/* entries gvals and gstrs hold */
};

/*
 * Rows a block of the record columns' gather.  Fixed-width columns read
 * with a stride are the fields of one record per row (colsort packs its
 * buffered rows' non-key fields so): gathered a column at a time, every
 * column would miss the cache on every row's record again; gathered a
 * block of rows at a time, all record columns in turn, the first column
 * loads a block's records (64 KiB of 64-byte records) and the others
 * find them cached.  A multiple of 8, so that blocks own whole bytes of
 * the bitmaps.
 */
#define GROUP_BLOCK 1024

/*
 * How many rows ahead gather() asks for the values it will load: far
 * enough that many cache misses are in flight at once.  Strings take two
 * steps: their offsets AHEAD2 rows ahead, their bytes (whose address
 * needs the offset) AHEAD rows ahead, by which time the offset is cached.
 * colsort's run formation at SF1 (a gather from 64 MB in sorted order)
 * took 0.94 of the time with 96 as with 32; 64 and 160 were no better.
 */
#define GATHER_AHEAD 96
#define GATHER_AHEAD2 192

/* memcpy for the short strings most columns hold, inline: exact, with
 * overlapping word moves instead of a call and a size dispatch. */
static inline void
copy_text(char *d, const char *src, size_t n)
{
	uint64_t a8, b8;
	uint32_t a4, b4;

	if (n > 16) {
		memcpy(d, src, n);
	} else if (n >= 8) {
		memcpy(&a8, src, 8);
		memcpy(&b8, src + n - 8, 8);
		memcpy(d, &a8, 8);
		memcpy(d + n - 8, &b8, 8);
	} else if (n >= 4) {
		memcpy(&a4, src, 4);
		memcpy(&b4, src + n - 4, 4);
		memcpy(d, &a4, 4);
		memcpy(d + n - 4, &b4, 4);
	} else if (n > 0) {
		d[0] = src[0];
		d[n / 2] = src[n / 2];
		d[n - 1] = src[n - 1];
	}
}

/* Copies the text of refs[0..n) (per-source tables vals, offs) to v,
 * offsets to off; returns the bytes copied. */
static int32_t
gather_text(const char *const *vals, const int32_t *const *offs,
    const uint64_t *refs, uint32_t n, int32_t *off, char *v)
{
	int32_t at = 0;
	uint32_t j;

	off[0] = 0;
	for (j = 0; j < n && j < GATHER_AHEAD2; j++)
		__builtin_prefetch(offs[refs[j] >> 32] + (uint32_t)refs[j]);
	for (j = 0; j < n; j++) {
		uint64_t src = refs[j] >> 32;
		const int32_t *o = offs[src];
		uint32_t r = (uint32_t)refs[j];
		int32_t len;

		if (j + GATHER_AHEAD2 < n) {
			uint64_t f = refs[j + GATHER_AHEAD2];

			__builtin_prefetch(offs[f >> 32] + (uint32_t)f);
		}
		if (j + GATHER_AHEAD < n) {
			uint64_t f = refs[j + GATHER_AHEAD];

			__builtin_prefetch(vals[f >> 32] +
			    offs[f >> 32][(uint32_t)f]);
		}
		len = o[r + 1] - o[r];
		copy_text(v + at, vals[src] + o[r], (size_t)len);
		at += len;
		off[j + 1] = at;
	}
	return at;
}

/* One decimal128 slot as two words: 8-byte aligned as every buffer. */
struct gather_w16 {
	uint64_t w[2];
};

/* Copies the w-byte values of refs[0..n) (per-source tables vals and
 * strs, the bytes from one row's value to the next's) to p. */
static void
gather_fixed(const unsigned char *const *vals, const size_t *strs,
    const uint64_t *refs, uint32_t n, size_t w, unsigned char *p)
{
	uint32_t j;

#define AT(f) (vals[(f) >> 32] + (size_t)(uint32_t)(f) * strs[(f) >> 32])
#define GATHER_LOOP(T) do {						\
	for (j = 0; j < n && j < GATHER_AHEAD; j++)			\
		__builtin_prefetch(AT(refs[j]));			\
	for (j = 0; j < n; j++) {					\
		if (j + GATHER_AHEAD < n)				\
			__builtin_prefetch(AT(refs[j + GATHER_AHEAD]));	\
		memcpy((T *)p + j, AT(refs[j]), sizeof(T));		\
	}								\
} while (0)
	switch (w) {
	case 1:
		GATHER_LOOP(uint8_t);
		break;
	case 4:
		GATHER_LOOP(uint32_t);
		break;
	case 16:
		GATHER_LOOP(struct gather_w16);
		break;
	default:
		GATHER_LOOP(uint64_t);
		break;
	}
#undef GATHER_LOOP
#undef AT
}


/* One gather, shared by the threads that carry it out. */
struct gjob {
	struct core_gather *g;
	const struct core_batch *const *srcs;
	size_t nsrcs;
	const uint64_t *refs;
	uint32_t n;
	struct core_batch *out;
	const bool *want;
	/* Runs mode (nruns > 0): the rows are the runs run_from[k] ..
	 * + run_len[k] - 1 of srcs[run_src[k]] (run_src NULL: srcs[0]),
	 * in order; refs is unused. */
	const uint32_t *run_from, *run_len, *run_src;
	uint32_t nruns;
	unsigned char *chunk[CORE_GATHER_MAX_THREADS];
	uint32_t nblk;			/* row blocks of g's record columns */
	uint32_t next_col;		/* atomic: next item to take: the
					 * columns in g->order (the record
					 * columns skipped), then the blocks */
};

/* Source of run k of runs of sources run_src (NULL: all srcs[0]). */
static inline uint32_t
run_source(const uint32_t *run_src, uint32_t k)
{
	return run_src != NULL ? run_src[k] : 0;
}

/* Column i of run k's source. */
static inline const struct core_column *
run_col(const struct gjob *job, uint32_t k, uint32_t i)
{
	return &job->srcs[run_source(job->run_src, k)]->cols[i];
}

/*
 * Runs mode: column i of the runs' sources into d, one memcpy a run.  A
 * dense selection (a filter that keeps most rows), or a probe side
 * whose rows each match once, comes as long runs of consecutive rows,
 * which move as blocks where the per-row gather would load and store
 * every value on its own.  Returns the bytes of p used.
 */

static size_t
copy_runs(const struct gjob *job, uint32_t i, enum core_type t,
    unsigned char *p, struct core_column *d)
{
	const uint32_t *from = job->run_from, *len = job->run_len;
	uint32_t n = job->n, k, at = 0, j;
	unsigned char *bits = p;
	size_t used = A8(core_bitmap_bytes(n));
	bool maybe_null = false;

	for (k = 0; k < job->nruns && !maybe_null; k++)
		maybe_null = run_col(job, k, i)->validity != NULL;
	if (maybe_null) {
		bool nulls = false;

		memset(bits, 0xff, core_bitmap_bytes(n));
		for (k = 0; k < job->nruns; k++) {
			const uint8_t *sv = run_col(job, k, i)->validity;

			if (sv == NULL) {
				at += len[k];
				continue;
			}
			for (j = 0; j < len[k]; j++, at++) {
				uint32_t r = from[k] + j;

				if (!(sv[r >> 3] >> (r & 7) & 1)) {
					bits[at >> 3] &= (uint8_t)~(1u <<
					    (at & 7));
					nulls = true;
				}
			}
		}
		if (nulls)
			d->validity = bits;
		at = 0;
	}
	p += used;
	if (t == CORE_TYPE_STRING) {
		int32_t *off = (int32_t *)p;
		char *dv = (char *)p + A8(((uint64_t)n + 1) * 4);
		int32_t pos = 0;

		off[0] = 0;
		for (k = 0; k < job->nruns; k++) {
			const struct core_column *c = run_col(job, k, i);
			const int32_t *o = c->offsets;
			const char *v = c->values;
			int32_t base = o[from[k]], shift = pos - base;
			const int32_t *src = o + from[k] + 1;
			int32_t *dst = off + at + 1;
			int32_t nb = o[from[k] + len[k]] - base;

			for (j = 0; j < len[k]; j++)
				dst[j] = src[j] + shift;
			if (nb > 0)
				memcpy(dv + pos, v + base, (size_t)nb);
			pos += nb;
			at += len[k];
		}
		d->offsets = off;
		d->values = dv;
		return used + A8(((uint64_t)n + 1) * 4) + A8((uint64_t)pos);
	}
	{
		size_t w = core_type_width(t);

		for (k = 0; k < job->nruns; k++) {
			const struct core_column *c = run_col(job, k, i);
			const unsigned char *v = c->values;
			size_t st = c->stride != 0 ? c->stride : w;

			if (st == w)
				memcpy(p + (size_t)at * w, v +
				    (size_t)from[k] * w, (size_t)len[k] * w);
			else
				for (j = 0; j < len[k]; j++)
					memcpy(p + (size_t)(at + j) * w, v +
					    (size_t)(from[k] + j) * st, w);
			at += len[k];
		}
		d->values = p;
		return used + A8((uint64_t)n * w);
	}
}

/* Marks in bits rows [j0, j1) of column i gathered by refs, j0 a
 * multiple of 8 (so the bytes are this call's alone): set, cleared where
 * the source row is NULL.  True when one was. */
static bool
mark_nulls(const struct core_batch *const *srcs, const uint64_t *refs,
    uint32_t i, uint32_t j0, uint32_t j1, uint8_t *bits)
{
	bool nulls = false;
	uint32_t j;

	memset(bits + j0 / 8, 0xff, core_bitmap_bytes(j1) - j0 / 8);
	for (j = j0; j < j1; j++) {
		const struct core_column *c = &srcs[refs[j] >> 32]->cols[i];

		if (!core_col_is_valid(c, (uint32_t)refs[j])) {
			bits[j >> 3] &= (uint8_t)~(1u << (j & 7));
			nulls = true;
		}
	}
	return nulls;
}

/* Block b of rows of the record columns (GROUP_BLOCK). */
static void
gather_block(const struct gjob *job, uint32_t b)
{
	const struct core_gather *g = job->g;
	const uint64_t *refs = job->refs;
	uint32_t j0 = b * GROUP_BLOCK, j1, c;

	j1 = job->n - j0 < GROUP_BLOCK ? job->n : j0 + GROUP_BLOCK;
	for (c = 0; c < g->ngrp; c++) {
		uint32_t i = g->grp[c];
		size_t w = core_type_width(g->schema->fields[i].type.id);

		if (g->gmaybe[c] &&
		    mark_nulls(job->srcs, refs, i, j0, j1, g->gbits[c]))
			__atomic_store_n(&g->gseen[c], 1, __ATOMIC_RELAXED);
		gather_fixed((const unsigned char *const *)g->gvals +
		    (size_t)c * job->nsrcs, g->gstrs + (size_t)c * job->nsrcs,
		    refs + j0, j1 - j0, w, g->gout[c] + (size_t)j0 * w);
	}
}

/* Gathers columns, taking the next one until none is left, into this
 * thread's chunk, then blocks of the record columns' rows. */
static void
gather_columns(void *arg, unsigned who)
{
	struct gjob *job = arg;
	struct core_gather *g = job->g;
	const struct core_batch *const *srcs = job->srcs;
	const uint64_t *refs = job->refs;
	const void **vals = g->vals[who];
	const int32_t **offs = g->offs[who];
	size_t *strs = g->strs[who];
	uint32_t ncols = g->schema->ncols, n = job->n, i;
	unsigned char *p = job->chunk[who];
	size_t k;

	for (;;) {
		struct core_column *d;
		enum core_type t;
		size_t w;
		bool maybe_null = false;
		uint8_t *bits;

		i = __atomic_fetch_add(&job->next_col, 1, __ATOMIC_RELAXED);
		if (i >= ncols) {
			if (i - ncols >= job->nblk)
				return;
			gather_block(job, i - ncols);
			continue;
		}
		i = g->order[i];
		if (job->nblk > 0 && g->ingrp[i])
			continue;	/* a record column: by blocks */
		d = &job->out->cols[i];
		t = g->schema->fields[i].type.id;
		w = core_type_width(t);
		d->validity = NULL;
		d->values = NULL;
		d->offsets = NULL;
		if (job->want != NULL && !job->want[i])
			continue;
		if (job->nruns > 0) {
			p += copy_runs(job, i, t, p, d);
			continue;
		}
		for (k = 0; k < job->nsrcs; k++)
			if (srcs[k] != NULL && srcs[k]->cols[i].validity)
				maybe_null = true;
		bits = p;
		p += A8(core_bitmap_bytes(n));
		/* No rows, maybe no chunk at all: nothing to mark. */
		if (maybe_null && n > 0 && mark_nulls(srcs, refs, i, 0, n,
		    bits))
			d->validity = bits;
		for (k = 0; k < job->nsrcs; k++) {
			vals[k] = srcs[k] ? srcs[k]->cols[i].values : NULL;
			offs[k] = srcs[k] ? srcs[k]->cols[i].offsets : NULL;
			strs[k] = srcs[k] && srcs[k]->cols[i].stride != 0 ?
			    srcs[k]->cols[i].stride : w;
		}
		if (t == CORE_TYPE_STRING) {
			int32_t *off = (int32_t *)p;
			char *v = (char *)p + A8(((uint64_t)n + 1) * 4);
			int32_t at = gather_text((const char *const *)vals,
			    offs, refs, n, off, v);

			d->offsets = off;
			d->values = v;
			p = (unsigned char *)v + A8((uint64_t)at);
			continue;
		}
		gather_fixed((const unsigned char *const *)vals, strs, refs,
		    n, w, p);
		d->values = p;
		p += A8((uint64_t)n * w);
	}
}

/* Makes o's chunk t hold at least total bytes, charging growth. */
static void
chunk_reserve(struct core_gather *g, struct core_gather_out *o, unsigned t,
    uint64_t total)
{
	if (total > o->cap[t]) {
		if (g->mem != NULL)
			core_mem_part_charge(g->mem, total - o->cap[t]);
		core_free_aligned(o->chunk[t]);
		o->chunk[t] = NULL;
		o->cap[t] = total;
	}
	if (o->chunk[t] == NULL && o->cap[t] > 0)
		o->chunk[t] = core_xmalloc_aligned((size_t)o->cap[t]);
}

/* Makes room for the per-source pointer tables, one set per thread. */
static void
gather_tables(struct core_gather *g, size_t nsrcs)
{
	size_t cap = 0;
	unsigned t;

	if (nsrcs <= g->tcap)
		return;
	/* Every table grows alike from the same capacity. */
	for (t = 0; t < CORE_GATHER_MAX_THREADS; t++) {
		cap = g->tcap;
		g->vals[t] = core_grow(g->vals[t], &cap, nsrcs,
		    sizeof(*g->vals[t]), 16);
		cap = g->tcap;
		g->offs[t] = core_grow(g->offs[t], &cap, nsrcs,
		    sizeof(*g->offs[t]), 16);
		cap = g->tcap;
		g->strs[t] = core_grow(g->strs[t], &cap, nsrcs,
		    sizeof(*g->strs[t]), 16);
	}
	g->tcap = cap;
}

/* Text bytes of column i over refs[0..n), offsets read at random. */
static uint64_t
gather_text_bytes(struct core_gather *g, const struct core_batch *const *srcs,
    size_t nsrcs, uint32_t i, const uint64_t *refs, uint32_t n)
{
	const int32_t **offs = g->offs[0];
	uint64_t sb = 0;
	uint32_t j;
	size_t k;

	for (k = 0; k < nsrcs; k++)
		offs[k] = srcs[k] ? srcs[k]->cols[i].offsets : NULL;
	for (j = 0; j < n; j++) {
		const int32_t *o = offs[refs[j] >> 32];
		uint32_t r = (uint32_t)refs[j];

		if (j + GATHER_AHEAD < n)
			__builtin_prefetch(offs[refs[j + GATHER_AHEAD] >> 32] +
			    (uint32_t)refs[j + GATHER_AHEAD]);
		sb += (uint64_t)(o[r + 1] - o[r]);
	}
	return sb;
}

/*
 * Picks the record columns of a gather of n rows by refs (g->grp): the
 * wanted fixed-width columns some source holds with a stride wider than
 * the values, when there are two or more and enough rows; fills their
 * per-source tables.  Returns their number (0: none taken).
 */
static uint32_t
group_plan(struct core_gather *g, const struct core_batch *const *srcs,
    size_t nsrcs, uint32_t n, const bool *want)
{
	uint32_t ncols = g->schema->ncols, i, c;
	size_t k;

	g->ngrp = 0;
	if (n < 2 * GROUP_BLOCK || nsrcs == 0)
		return 0;
	for (i = 0; i < ncols; i++) {
		size_t w = core_type_width(g->schema->fields[i].type.id);
		bool strided = false;

		g->ingrp[i] = false;
		if (w == 0 || (want != NULL && !want[i]))
			continue;
		for (k = 0; k < nsrcs && !strided; k++)
			strided = srcs[k] != NULL && srcs[k]->cols[i].stride
			    != 0 && srcs[k]->cols[i].stride != w;
		if (strided)
			g->grp[g->ngrp++] = i;
	}
	if (g->ngrp < 2) {
		g->ngrp = 0;
		return 0;
	}
	if ((size_t)g->ngrp * nsrcs > g->gcap) {
		g->gcap = (size_t)g->ngrp * nsrcs;
		free(g->gvals);
		free(g->gstrs);
		g->gvals = core_xmalloc(core_mul_size(g->gcap,
		    sizeof(*g->gvals)));
		g->gstrs = core_xmalloc(core_mul_size(g->gcap,
		    sizeof(*g->gstrs)));
	}
	for (c = 0; c < g->ngrp; c++) {
		size_t w;

		i = g->grp[c];
		w = core_type_width(g->schema->fields[i].type.id);
		g->ingrp[i] = true;
		g->gmaybe[c] = false;
		g->gseen[c] = 0;
		for (k = 0; k < nsrcs; k++) {
			const struct core_column *sc = srcs[k] != NULL ?
			    &srcs[k]->cols[i] : NULL;

			g->gvals[c * nsrcs + k] = sc ? sc->values : NULL;
			g->gstrs[c * nsrcs + k] = sc && sc->stride != 0 ?
			    sc->stride : w;
			if (sc != NULL && sc->validity != NULL)
				g->gmaybe[c] = true;
		}
	}
	return g->ngrp;
}

/*
 * Both entry points: refs as core_gather_rows takes them, or (nruns >
 * 0) the runs of srcs[0] (text is then ignored: the runs give each
 * string column's bytes at once).
 */
static void
gather(struct core_gather *g, const struct core_batch *const *srcs,
    size_t nsrcs, const uint64_t *refs, uint32_t n, uint64_t text,
    const bool *want, struct core_gather_out *o, const uint32_t *run_from,
    const uint32_t *run_len, const uint32_t *run_src, uint32_t nruns)
{
	uint32_t ncols = g->schema->ncols, i, k, c, ngrp = 0;
	uint64_t total = 0;
	bool pair = core_pool_threads(g->pool) > 1 && n >= GATHER_PAIR_MIN;
	unsigned char *p0;
	struct gjob job;

	if (nruns == 0) {
		gather_tables(g, nsrcs);
		ngrp = group_plan(g, srcs, nsrcs, n, want);
	}
	for (i = 0; i < ncols; i++) {
		enum core_type t = g->schema->fields[i].type.id;

		if (want != NULL && !want[i])
			continue;
		total += A8(core_bitmap_bytes(n));
		if (t == CORE_TYPE_STRING) {
			total += A8(((uint64_t)n + 1) * 4);
			if (nruns > 0) {
				uint64_t nb = 0;

				for (k = 0; k < nruns; k++) {
					const int32_t *off = srcs[run_source(
					    run_src, k)]->cols[i].offsets;

					nb += (uint64_t)(off[run_from[k] +
					    run_len[k]] - off[run_from[k]]);
				}
				total += A8(nb);
			} else if (text == CORE_GATHER_TEXT_UNKNOWN) {
				total += A8(gather_text_bytes(g, srcs, nsrcs,
				    i, refs, n));
			} else {
				total += 7;	/* its share of rounding */
			}
		} else {
			total += A8((uint64_t)n * core_type_width(t));
		}
	}
	if (nruns == 0 && text != CORE_GATHER_TEXT_UNKNOWN)
		total += text;
	chunk_reserve(g, o, 0, total);
	/* The second thread's chunk keeps the first one's size. */
	if (pair)
		chunk_reserve(g, o, 1, o->cap[0]);
	job.g = g;
	job.srcs = srcs;
	job.nsrcs = nsrcs;
	job.refs = refs;
	job.n = n;
	job.out = &o->batch;
	job.want = want;
	job.run_from = run_from;
	job.run_len = run_len;
	job.run_src = run_src;
	job.nruns = nruns;
	/* The record columns go first in the first chunk: both threads
	 * fill them, a block of rows each at a time. */
	p0 = o->chunk[0];
	for (c = 0; c < ngrp; c++) {
		struct core_column *d = &o->batch.cols[g->grp[c]];

		g->gbits[c] = p0;
		p0 += A8(core_bitmap_bytes(n));
		g->gout[c] = p0;
		p0 += A8((uint64_t)n * core_type_width(
		    g->schema->fields[g->grp[c]].type.id));
		d->validity = NULL;
		d->values = g->gout[c];
		d->offsets = NULL;
	}
	job.chunk[0] = p0;
	job.chunk[1] = pair ? o->chunk[1] : NULL;
	job.nblk = ngrp > 0 ? (n + GROUP_BLOCK - 1) / GROUP_BLOCK : 0;
	job.next_col = 0;
	core_pool_run(g->pool, pair ? 2 : 1, gather_columns, &job);
	for (c = 0; c < ngrp; c++)
		if (g->gseen[c])
			o->batch.cols[g->grp[c]].validity = g->gbits[c];
	o->batch.nrows = n;
}

/* Runs shorter than this on average: the per-row gather does better
 * than a memcpy call per run. */
#define RUN_MIN 8

/* Makes room in g for most runs. */
static void
runs_room(struct core_gather *g, uint32_t most)
{
	if (most <= g->run_cap)
		return;
	free(g->run_from);
	free(g->run_len);
	free(g->run_src);
	g->run_from = core_xmalloc(core_mul_size(most, 4));
	g->run_len = core_xmalloc(core_mul_size(most, 4));
	g->run_src = core_xmalloc(core_mul_size(most, 4));
	g->run_cap = most;
}

/*
 * g's runs of refs[0..n): the maximal stretches of consecutive rows of
 * one source (each reference the one before plus one, within a source).
 * Their number, or 0 as soon as it is clear they would average under
 * RUN_MIN rows: a probe side whose rows each match once comes as a few
 * long runs, which move as blocks.
 */
static uint32_t
ref_runs(struct core_gather *g, const uint64_t *refs, uint32_t n)
{
	uint32_t j, k = 0, most = n / RUN_MIN;

	if (n == 0 || most == 0)
		return 0;
	/* A cheap look first: most gathers (a build side's) are not. */
	if (refs[n - 1] - refs[0] != n - 1 && refs[1] != refs[0] + 1)
		return 0;
	runs_room(g, most);
	g->run_src[0] = (uint32_t)(refs[0] >> 32);
	g->run_from[0] = (uint32_t)refs[0];
	g->run_len[0] = 1;
	for (j = 1; j < n; j++) {
		if (refs[j] == refs[j - 1] + 1 &&
		    (uint32_t)refs[j - 1] != UINT32_MAX) {
			g->run_len[k]++;
			continue;
		}
		if (++k == most)
			return 0;
		g->run_src[k] = (uint32_t)(refs[j] >> 32);
		g->run_from[k] = (uint32_t)refs[j];
		g->run_len[k] = 1;
	}
	return k + 1;
}

void
core_gather_rows(struct core_gather *g, const struct core_batch *const *srcs,
    size_t nsrcs, const uint64_t *refs, uint32_t n, uint64_t text,
    const bool *want, struct core_gather_out *o)
{
	uint32_t nruns = ref_runs(g, refs, n);

	if (nruns > 0) {
		gather(g, srcs, nsrcs, NULL, n, 0, want, o, g->run_from,
		    g->run_len, g->run_src, nruns);
		return;
	}
	gather(g, srcs, nsrcs, refs, n, text, want, o, NULL, NULL, NULL, 0);
}

/*
 * g's runs of rows[0..n): the maximal stretches of consecutive rows
 * (each the one before plus one).  Their number, or 0 as soon as it is
 * clear they would average under RUN_MIN rows.
 */
static uint32_t
select_runs(struct core_gather *g, const uint32_t *rows, uint32_t n)
{
	uint32_t j, k = 0, most = n / RUN_MIN;

	if (n == 0 || most == 0)
		return 0;
	runs_room(g, most);
	g->run_from[0] = rows[0];
	g->run_len[0] = 1;
	for (j = 1; j < n; j++) {
		if (rows[j] == rows[j - 1] + 1) {
			g->run_len[k]++;
			continue;
		}
		if (++k == most)
			return 0;
		g->run_from[k] = rows[j];
		g->run_len[k] = 1;
	}
	return k + 1;
}

void
core_gather_select(struct core_gather *g, const struct core_batch *src,
    const uint32_t *rows, uint32_t n, const bool *want,
    struct core_gather_out *o)
{
	uint32_t j, nruns = select_runs(g, rows, n);

	if (nruns > 0) {
		gather(g, &src, 1, NULL, n, 0, want, o, g->run_from,
		    g->run_len, NULL, nruns);
		return;
	}
	if (n > g->sel_cap) {
		g->sel_cap = n;
		free(g->sel);
		g->sel = core_xmalloc(core_mul_size(n, sizeof(*g->sel)));
	}
	for (j = 0; j < n; j++)
		g->sel[j] = rows[j];
	core_gather_rows(g, &src, 1, g->sel, n, CORE_GATHER_TEXT_UNKNOWN,
	    want, o);
}

/* ------------------------------------------------------------------ */
/* life cycle */

struct core_gather *
core_gather_new(const struct core_schema *schema, struct core_pool *pool,
    struct core_mem_part *mem)
{
	struct core_gather *g = core_xcalloc(1, sizeof(*g));
	uint32_t ncols = schema->ncols, i, nstr = 0, k, j;

	g->schema = schema;
	g->pool = pool;
	g->mem = mem;
	g->grp = core_xcalloc(ncols ? ncols : 1, sizeof(*g->grp));
	g->ingrp = core_xcalloc(ncols ? ncols : 1, sizeof(*g->ingrp));
	g->gmaybe = core_xcalloc(ncols ? ncols : 1, sizeof(*g->gmaybe));
	g->gseen = core_xcalloc(ncols ? ncols : 1, sizeof(*g->gseen));
	g->gout = core_xcalloc(ncols ? ncols : 1, sizeof(*g->gout));
	g->gbits = core_xcalloc(ncols ? ncols : 1, sizeof(*g->gbits));
	/* Strings (offsets and bytes) first, then by width, widest first;
	 * the sort keeps schema order among equals. */
	g->order = core_xcalloc(ncols ? ncols : 1, sizeof(*g->order));
	for (i = 0; i < ncols; i++)
		if (schema->fields[i].type.id == CORE_TYPE_STRING)
			g->order[nstr++] = i;
	k = nstr;
	for (i = 0; i < ncols; i++) {
		size_t w = core_type_width(schema->fields[i].type.id);

		if (schema->fields[i].type.id == CORE_TYPE_STRING)
			continue;
		for (j = k++; j > nstr && core_type_width(
		    schema->fields[g->order[j - 1]].type.id) < w; j--)
			g->order[j] = g->order[j - 1];
		g->order[j] = i;
	}
	return g;
}

void
core_gather_free(struct core_gather *g)
{
	unsigned t;

	if (g == NULL)
		return;
	for (t = 0; t < CORE_GATHER_MAX_THREADS; t++) {
		free(g->vals[t]);
		free(g->offs[t]);
		free(g->strs[t]);
	}
	free(g->order);
	free(g->grp);
	free(g->ingrp);
	free(g->gmaybe);
	free(g->gseen);
	free(g->gout);
	free(g->gbits);
	free(g->gvals);
	free(g->gstrs);
	free(g->sel);
	free(g->run_from);
	free(g->run_len);
	free(g->run_src);
	free(g);
}

void
core_gather_out_init(struct core_gather_out *o,
    const struct core_schema *schema)
{
	memset(o, 0, sizeof(*o));
	core_batch_init(&o->batch, schema);
}

void
core_gather_out_reserve(struct core_gather *g, struct core_gather_out *o,
    uint64_t bytes, bool every_thread)
{
	unsigned t;

	chunk_reserve(g, o, 0, bytes);
	if (!every_thread)
		return;
	for (t = 1; t < CORE_GATHER_MAX_THREADS; t++)
		if (bytes > o->cap[t]) {
			if (g->mem != NULL)
				core_mem_part_charge(g->mem, bytes - o->cap[t]);
			core_free_aligned(o->chunk[t]);
			o->chunk[t] = NULL;
			o->cap[t] = bytes;
		}
}

void
core_gather_out_release(struct core_gather *g, struct core_gather_out *o)
{
	unsigned t;

	for (t = 0; t < CORE_GATHER_MAX_THREADS; t++) {
		if (g != NULL && g->mem != NULL)
			core_mem_part_release(g->mem, o->cap[t]);
		core_free_aligned(o->chunk[t]);
		o->chunk[t] = NULL;
		o->cap[t] = 0;
	}
	core_batch_release(&o->batch);
}
