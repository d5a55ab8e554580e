/*
 * test_gather.c - core_gather against a per-value reference copy.
 *
 * Random source batches of every type, some with NULLs, some with a
 * bitmap that marks none, some with none, and empty, long and
 * NUL-containing strings; random references into them.  The reference
 * builds the expected output one value at a time into an owned batch
 * (nothing shared with the gather's code), and the check compares every
 * buffer byte for byte: values (a NULL's slot included), offsets, text,
 * and whether a validity bitmap is present (only when a row is NULL).
 * Row counts 0, 1, 2, 3, 17, 4095, 4096, 4097 on one and on two
 * threads, with the text size known and unknown, with and without a
 * column mask, outputs reused call after call, and the budget back at
 * zero once every output is released.  Some sources come as a sort's
 * buffer has them: their fixed-width values in one record a row, read
 * with a stride (core_col.h), the reference reading their dense twins.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core_alloc.h"
#include "core_col.h"
#include "core_gather.h"
#include "core_mem.h"
#include "core_pool.h"
#include "unit.h"

static const enum core_type types[] = {
	CORE_TYPE_BOOL, CORE_TYPE_INT32, CORE_TYPE_INT64, CORE_TYPE_FLOAT64,
	CORE_TYPE_DECIMAL, CORE_TYPE_DATE, CORE_TYPE_TIMESTAMP,
	CORE_TYPE_STRING, CORE_TYPE_STRING, CORE_TYPE_INT32,
};
#define NCOLS (sizeof(types) / sizeof(types[0]))

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint64_t
rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static struct core_schema *
make_schema(void)
{
	struct core_schema *s = core_schema_new(NCOLS);
	struct core_coltype t;
	char name[16];
	uint32_t i;

	for (i = 0; i < NCOLS; i++) {
		memset(&t, 0, sizeof(t));
		t.id = types[i];
		if (t.id == CORE_TYPE_DECIMAL) {
			t.precision = 15;
			t.scale = 2;
		}
		snprintf(name, sizeof(name), "c%u", i);
		core_schema_set(s, i, name, t);
	}
	return s;
}

/* nulls: 0 none (no bitmap), 1 a bitmap marking none, 2 some NULLs. */
static void
fill_batch(struct core_batch *b, uint32_t n, int nulls)
{
	uint32_t i, r;

	core_batch_reserve(b, n, 64);
	for (i = 0; i < b->ncols; i++) {
		struct core_column *c = &b->cols[i];
		size_t used = 0;

		for (r = 0; r < n; r++) {
			bool null = nulls == 2 && rnd() % 4 == 0;
			uint64_t v = null ? 0 : rnd();

			if (null || (nulls == 1 && r == 0))
				core_col_set_null(c, r, n);
			if (nulls == 1 && r == 0)
				c->validity[0] |= 1;
			switch (c->type.id) {
			case CORE_TYPE_BOOL:
				((uint8_t *)c->values)[r] = (uint8_t)(v & 1);
				break;
			case CORE_TYPE_INT32:
			case CORE_TYPE_DATE:
				((uint32_t *)c->values)[r] = (uint32_t)v;
				break;
			case CORE_TYPE_STRING: {
				size_t len = null ? 0 : rnd() % 8 == 0 ?
				    rnd() % 300 : rnd() % 12, k;

				core_col_reserve_bytes(c, used, len);
				for (k = 0; k < len; k++)
					((char *)c->values)[used + k] =
					    (char)(rnd() % 5 == 0 ? 0 :
					    'a' + rnd() % 26);
				used += len;
				c->offsets[r + 1] = (int32_t)used;
				break;
			}
			default:
				((uint64_t *)c->values)[r] = v;
				break;
			}
		}
	}
	b->nrows = n;
}

/* The expected gather, one value at a time. */
static void
reference(struct core_batch *out, const struct core_batch *const *srcs,
    const uint64_t *refs, uint32_t n, const bool *want)
{
	uint32_t i, j;

	core_batch_reserve(out, n, 64);
	for (i = 0; i < out->ncols; i++) {
		struct core_column *d = &out->cols[i];
		size_t w = core_type_width(d->type.id), used = 0;

		if (want != NULL && !want[i])
			continue;
		for (j = 0; j < n; j++) {
			const struct core_column *c =
			    &srcs[refs[j] >> 32]->cols[i];
			uint32_t r = (uint32_t)refs[j];

			if (!core_col_is_valid(c, r))
				core_col_set_null(d, j, n);
			if (d->type.id == CORE_TYPE_STRING) {
				size_t len = (size_t)(c->offsets[r + 1] -
				    c->offsets[r]);

				core_col_reserve_bytes(d, used, len);
				memcpy((char *)d->values + used,
				    (const char *)c->values + c->offsets[r],
				    len);
				used += len;
				d->offsets[j + 1] = (int32_t)used;
			} else {
				memcpy((char *)d->values + j * w,
				    (const char *)c->values + r * w, w);
			}
		}
	}
	out->nrows = n;
}

static bool
same_batch(const struct core_batch *got, const struct core_batch *want,
    const bool *mask)
{
	uint32_t i, j, n = want->nrows;
	bool ok = got->nrows == n;

	for (i = 0; ok && i < want->ncols; i++) {
		const struct core_column *g = &got->cols[i];
		const struct core_column *w = &want->cols[i];
		size_t width = core_type_width(w->type.id);

		if (mask != NULL && !mask[i]) {
			ok = g->values == NULL && g->validity == NULL;
			continue;
		}
		if ((g->validity == NULL) != (w->validity == NULL)) {
			printf("# column %u: validity %s\n", i,
			    g->validity ? "present" : "missing");
			return false;
		}
		for (j = 0; w->validity != NULL && j < n; j++)
			if (core_col_is_valid(g, j) != core_col_is_valid(w, j))
				ok = false;
		if (w->type.id == CORE_TYPE_STRING) {
			ok = ok && memcmp(g->offsets, w->offsets,
			    ((size_t)n + 1) * 4) == 0 &&
			    memcmp(g->values, w->values,
			    (size_t)w->offsets[n]) == 0;
		} else if (n > 0) {
			ok = ok && memcmp(g->values, w->values, n * width) == 0;
		}
		if (!ok)
			printf("# column %u differs\n", i);
	}
	return ok;
}

#define NSRCS_MAX 40

/*
 * A view of b with its fixed-width columns' values packed into records
 * (*recs, owned by the caller) and read with a stride; the text, offsets
 * and bitmaps are b's.  Records are the widths' sum plus a pad of 0 to
 * 8 bytes, so strides and places are not always aligned.
 */
static void
strided_view(struct core_batch *v, const struct core_batch *b,
    unsigned char **recs)
{
	uint32_t i, r, at = 0, P;
	size_t w;

	core_batch_init(v, b->schema);
	for (i = 0; i < b->ncols; i++)
		at += (uint32_t)core_type_width(b->cols[i].type.id);
	P = at + (uint32_t)(rnd() % 9);
	*recs = core_xmalloc((size_t)P * b->nrows + 1);
	at = 0;
	for (i = 0; i < b->ncols; i++) {
		const struct core_column *c = &b->cols[i];
		struct core_column *d = &v->cols[i];

		d->validity = c->validity;
		d->offsets = c->offsets;
		d->values = c->values;
		if ((w = core_type_width(c->type.id)) == 0)
			continue;
		for (r = 0; r < b->nrows; r++)
			memcpy(*recs + (size_t)r * P + at,
			    (const char *)c->values + r * w, w);
		d->values = *recs + at;
		d->stride = P;
		at += (uint32_t)w;
	}
	v->nrows = b->nrows;
}

/*
 * refs of a gather: random rows of random sources; or (runs) stretches
 * of consecutive rows of random sources, of random lengths, now and then
 * a single random row between them (the block path of core_gather_rows,
 * its runs crossing sources).
 */
static void
make_refs(uint64_t *refs, uint32_t n, const struct core_batch *const *srcs,
    size_t nsrcs, const uint32_t *rows, bool runs)
{
	uint32_t j = 0;
	size_t k;

	while (j < n) {
		uint32_t r, len = 1, t;

		do
			k = rnd() % nsrcs;
		while (srcs[k] == NULL);
		r = (uint32_t)(rnd() % rows[k]);
		if (runs && rnd() % 5 != 0)
			len = 1 + (uint32_t)(rnd() % 64);
		if (len > rows[k] - r)
			len = rows[k] - r;
		for (t = 0; t < len && j < n; t++)
			refs[j++] = (uint64_t)k << 32 | (r + t);
	}
}

static void
run_case(struct core_pool *pool, uint32_t n, size_t nsrcs, bool known,
    bool masked, bool runs)
{
	struct core_schema *schema = make_schema();
	struct core_batch src[NSRCS_MAX], view[NSRCS_MAX], want;
	const struct core_batch *srcs[NSRCS_MAX], *dense[NSRCS_MAX];
	unsigned char *recs[NSRCS_MAX];
	struct core_gather_out out;
	struct core_gather *g;
	struct core_mem mem;
	struct core_mem_part part;
	uint64_t *refs = core_xmalloc(((size_t)n + 1) * 8), text = 0;
	bool mask[NCOLS];
	uint32_t rows[NSRCS_MAX];
	size_t k;
	uint32_t j, i, round;

	core_mem_init(&mem, CORE_MEM_UNLIMITED);
	core_mem_part_init(&part, &mem, "out", CORE_MEM_UNLIMITED);
	g = core_gather_new(schema, pool, &part);
	core_gather_out_init(&out, schema);
	for (i = 0; i < NCOLS; i++)
		mask[i] = !masked || rnd() % 2 == 0;
	for (round = 0; round < 2; round++) {
		for (k = 0; k < nsrcs; k++) {
			core_batch_init(&src[k], schema);
			rows[k] = 1 + (uint32_t)(rnd() % 300);
			fill_batch(&src[k], rows[k], (int)(rnd() % 3));
			/* Sources no ref points at may be NULL. */
			srcs[k] = dense[k] = k % 7 == 6 ? NULL : &src[k];
			recs[k] = NULL;
			if (k % 3 == 1 && srcs[k] != NULL) {
				strided_view(&view[k], &src[k], &recs[k]);
				srcs[k] = &view[k];
			}
		}
		text = 0;
		make_refs(refs, n, srcs, nsrcs, rows, runs);
		for (j = 0; j < n; j++) {
			k = refs[j] >> 32;
			for (i = 0; i < NCOLS; i++) {
				const int32_t *o = src[k].cols[i].offsets;
				uint32_t r = (uint32_t)refs[j];

				if (types[i] == CORE_TYPE_STRING && mask[i])
					text += (uint64_t)(o[r + 1] - o[r]);
			}
		}
		core_batch_init(&want, schema);
		reference(&want, dense, refs, n, masked ? mask : NULL);
		core_gather_rows(g, srcs, nsrcs, refs, n,
		    known ? text : CORE_GATHER_TEXT_UNKNOWN,
		    masked ? mask : NULL, &out);
		CHECK(same_batch(&out.batch, &want, masked ? mask : NULL));
		core_batch_release(&want);
		for (k = 0; k < nsrcs; k++) {
			if (recs[k] != NULL)
				core_batch_release(&view[k]);
			free(recs[k]);
			core_batch_release(&src[k]);
		}
	}
	core_gather_out_release(g, &out);
	CHECK_EQ_INT(mem.used, 0);
	core_gather_free(g);
	core_schema_free(schema);
	free(refs);
}

static const uint32_t sizes[] = { 0, 1, 2, 3, 17, 4095, 4096, 4097 };
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

static void
sweep(struct core_pool *pool)
{
	size_t i;

	for (i = 0; i < NSIZES; i++) {
		bool runs;

		for (runs = false; ; runs = true) {
			run_case(pool, sizes[i], 1, false, false, runs);
			run_case(pool, sizes[i], 2, true, false, runs);
			run_case(pool, sizes[i], 3, false, true, runs);
			run_case(pool, sizes[i], NSRCS_MAX, true, false, runs);
			run_case(pool, sizes[i], 17, true, true, runs);
			if (runs)
				break;
		}
	}
}

static void
test_one_thread(void)
{
	sweep(NULL);
}

static void
test_two_threads(void)
{
	struct core_pool *pool = core_pool_new(2);

	sweep(pool);
	core_pool_free(pool);
}

/*
 * The selection-vector case, against the reference: random rows (the
 * per-row path), and ascending selections keeping each row with
 * probability 1/2 to all of them (runs of consecutive rows, the block
 * path, with NULLs and without, with and without a column mask), on one
 * and two threads.
 */
static void
select_sweep(struct core_pool *pool)
{
	static const unsigned keep[] = { 0, 50, 90, 99, 100 };
	struct core_schema *schema = make_schema();
	struct core_batch src, want;
	const struct core_batch *srcs[1] = { &src };
	struct core_gather_out out;
	struct core_gather *g = core_gather_new(schema, pool, NULL);
	uint32_t *rows = core_xmalloc(5000 * 4);
	uint64_t *refs = core_xmalloc(5000 * 8);
	bool mask[NCOLS];
	size_t i, kp;
	uint32_t j, n;
	int nulls;

	core_gather_out_init(&out, schema);
	for (i = 0; i < NCOLS; i++)
		mask[i] = i % 3 != 1;
	for (nulls = 0; nulls <= 2; nulls += 2) {
		uint32_t srows = nulls ? 5000 : 4097;

		core_batch_init(&src, schema);
		fill_batch(&src, srows, nulls);
		for (i = 0; i < NSIZES; i++) {
			for (j = 0; j < sizes[i]; j++) {
				rows[j] = (uint32_t)(rnd() % srows);
				refs[j] = rows[j];
			}
			core_batch_init(&want, schema);
			reference(&want, srcs, refs, sizes[i], NULL);
			core_gather_select(g, &src, rows, sizes[i], NULL,
			    &out);
			CHECK(same_batch(&out.batch, &want, NULL));
			core_batch_release(&want);
		}
		for (kp = 0; kp < sizeof(keep) / sizeof(keep[0]); kp++) {
			/* Ascending: row r kept with probability keep %
			 * (keep 0: every row but one in 100, as runs). */
			for (n = 0, j = 0; j < srows; j++)
				if (keep[kp] == 0 ? j % 100 != 7 :
				    rnd() % 100 < keep[kp]) {
					rows[n] = j;
					refs[n++] = j;
				}
			for (i = 0; i < 2; i++) {
				const bool *w = i ? mask : NULL;

				core_batch_init(&want, schema);
				reference(&want, srcs, refs, n, w);
				core_gather_select(g, &src, rows, n, w, &out);
				CHECK(same_batch(&out.batch, &want, w));
				core_batch_release(&want);
			}
		}
		core_batch_release(&src);
	}
	core_gather_out_release(g, &out);
	core_gather_free(g);
	core_schema_free(schema);
	free(rows);
	free(refs);
}

static void
test_select(void)
{
	struct core_pool *pool = core_pool_new(2);

	select_sweep(NULL);
	select_sweep(pool);
	core_pool_free(pool);
}

/* Charges ahead cover later gathers, and all is given back. */
static void
test_budget(void)
{
	struct core_schema *schema = make_schema();
	struct core_pool *pool = core_pool_new(2);
	struct core_gather *g;
	struct core_gather_out out;
	struct core_batch src;
	const struct core_batch *srcs[1] = { &src };
	struct core_mem mem;
	struct core_mem_part part;
	uint64_t refs[1000];
	uint32_t j;

	core_mem_init(&mem, (uint64_t)1 << 30);
	core_mem_part_init(&part, &mem, "out", CORE_MEM_UNLIMITED);
	g = core_gather_new(schema, pool, &part);
	core_gather_out_init(&out, schema);
	core_batch_init(&src, schema);
	fill_batch(&src, 1000, 2);
	core_gather_out_reserve(g, &out, 1 << 20, true);
	CHECK_EQ_INT(mem.used, 2 << 20);
	for (j = 0; j < 1000; j++)
		refs[j] = j;
	core_gather_rows(g, srcs, 1, refs, 1000, CORE_GATHER_TEXT_UNKNOWN,
	    NULL, &out);
	CHECK_EQ_INT(mem.used, 2 << 20);
	core_gather_out_release(g, &out);
	CHECK_EQ_INT(mem.used, 0);
	core_batch_release(&src);
	core_gather_free(g);
	core_gather_free(NULL);
	core_pool_free(pool);
	core_schema_free(schema);
}

int
main(void)
{
	RUN(test_one_thread);
	RUN(test_two_threads);
	RUN(test_select);
	RUN(test_budget);
	return unit_done();
}
