/*
 * test_part.c - partition sets against a per-partition list of rows.
 *
 * Random batches of every type (NULLs or not, a bitmap marking none,
 * empty, long and NUL-containing strings) at lengths 0, 1, 2, 3, 17,
 * 4095, 4096 and 4097, routed to 1, 2, 7, 64 and 256 partitions at
 * random or all to one, under budgets from a few bytes (every piece
 * flushed at once) to none, raw and zstd, over one and two temporary
 * directories.  The reference keeps, per partition, the (batch, row) of
 * every row routed there in order; each partition's run, read back with
 * the spill cursor, must give exactly those values in that order.  Also:
 * a partition re-partitioned into a second set on the same spill set
 * (with a contiguous run written between), every run still readable;
 * the cap on spilled bytes; an unwritable directory; a partition out of
 * range; a chained run described wrongly (a frame moved or cut, a
 * frame or a row too few) failing, never read short; the budget's
 * charge back at zero.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core_alloc.h"
#include "core_col.h"
#include "core_mem.h"
#include "core_part.h"
#include "core_spill.h"
#include "unit.h"

static const enum core_type types[] = {
	CORE_TYPE_BOOL, CORE_TYPE_INT32, CORE_TYPE_INT64, CORE_TYPE_FLOAT64,
	CORE_TYPE_DECIMAL, CORE_TYPE_DATE, CORE_TYPE_TIMESTAMP,
	CORE_TYPE_STRING, CORE_TYPE_STRING,
};
#define NCOLS (sizeof(types) / sizeof(types[0]))

static const uint32_t lens[] = { 0, 1, 2, 3, 17, 4095, 4096, 4097 };
#define NLENS (sizeof(lens) / sizeof(lens[0]))

static uint64_t rng = 0x9e3779b97f4a7c15ull;

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
			t.precision = 12;
			t.scale = 3;
		}
		snprintf(name, sizeof(name), "p%u", i);
		core_schema_set(s, i, name, t);
	}
	return s;
}

/* A random batch of n rows; per column no bitmap, a bitmap marking no
 * NULL, or some NULLs. */
static void
random_batch(struct core_batch *b, const struct core_schema *s, uint32_t n)
{
	uint32_t i, r;

	core_batch_init(b, s);
	core_batch_reserve(b, n, 32);
	for (i = 0; i < b->ncols; i++) {
		struct core_column *c = &b->cols[i];
		int nulls = (int)(rnd() % 3);
		size_t used = 0;

		for (r = 0; r < n; r++) {
			bool null = nulls == 2 && rnd() % 3 == 0;
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
				size_t len = null ? 0 : rnd() % 10 == 0 ?
				    rnd() % 500 : rnd() % 9, k;

				core_col_reserve_bytes(c, used, len);
				for (k = 0; k < len; k++)
					((char *)c->values)[used + k] =
					    (char)(rnd() % 7 == 0 ? 0 :
					    'A' + rnd() % 50);
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

/* The rows routed to one partition: batch << 32 | row, in order. */
struct list {
	uint64_t *ref;
	size_t n, cap;
};

static void
list_add(struct list *l, uint64_t ref)
{
	l->ref = core_grow(l->ref, &l->cap, l->n + 1, sizeof(*l->ref), 64);
	l->ref[l->n++] = ref;
}

/* One value compared with the reference's, NULL-ness included. */
static bool
same(const struct core_column *got, uint32_t gr, const struct core_column *want,
    uint32_t wr)
{
	if (core_col_is_valid(got, gr) != core_col_is_valid(want, wr))
		return false;
	if (!core_col_is_valid(want, wr))
		return true;
	return core_col_value_equal(got, gr, want, wr);
}

/* Reads run to its end and checks it holds exactly l's rows of srcs;
 * appends, for each row read, its reference to *seen when not NULL. */
static int
check_run(struct core_spill *sp, const struct core_spill_run *run,
    const struct list *l, struct core_batch *srcs, struct core_mem_part *mem)
{
	struct core_spill_cursor c;
	struct core_spill_frame f;
	struct core_err err;
	size_t at = 0;
	uint32_t r, i;
	int rc, wrong = 0;

	memset(&f, 0, sizeof(f));
	core_batch_init(&f.batch, core_spill_schema(sp));
	if (core_spill_cursor_open(sp, &c, run, &err) != 0) {
		printf("# open: %s\n", err.msg);
		return 1;
	}
	while ((rc = core_spill_read_frame(sp, &c, &f, mem, &err)) == 0) {
		for (r = 0; r < f.batch.nrows; r++, at++) {
			const struct core_batch *w;
			uint32_t wr;

			if (at >= l->n) {
				wrong++;
				continue;
			}
			w = &srcs[l->ref[at] >> 32];
			wr = (uint32_t)l->ref[at];
			for (i = 0; i < NCOLS; i++)
				if (!same(&f.batch.cols[i], r, &w->cols[i],
				    wr))
					wrong++;
		}
	}
	if (rc != CORE_EOF) {
		printf("# read: %s\n", err.msg);
		wrong++;
	}
	if (at != l->n || run->rows != l->n)
		wrong++;
	core_spill_frame_release(&f, mem);
	core_batch_release(&f.batch);
	return wrong;
}

/* Sizes of the budget tried: a few bytes, small, medium, none. */
static const uint64_t budgets[] = { 1, 48 << 10, 4 << 20,
    CORE_MEM_UNLIMITED };
#define NBUDGETS (sizeof(budgets) / sizeof(budgets[0]))

/* More than the bytes a batch's rows take in a buffer. */
static uint64_t
bytes_of(const struct core_batch *b)
{
	uint64_t n = (uint64_t)b->nrows * 64 + 64;

	n += (uint64_t)b->cols[7].offsets[b->nrows];
	n += (uint64_t)b->cols[8].offsets[b->nrows];
	return n;
}

/* Routes every batch of srcs; with a budget too small for any buffer
 * (mem != NULL), each checked to hold nothing once its batch is in.
 * With skip, about a fifth of the rows are CORE_PART_SKIP, in no
 * partition. */
static void
route_all(struct core_part *p, uint32_t nparts, struct core_batch *srcs,
    uint32_t nsrcs, int mode, bool skip, struct list *ref,
    const struct core_mem_part *mem)
{
	uint32_t *part = NULL, i, r;
	size_t cap = 0;
	struct core_err err;
	int rc;

	for (i = 0; i < nsrcs; i++) {
		uint32_t one = (uint32_t)(rnd() % nparts);

		part = core_grow(part, &cap, srcs[i].nrows + 1, sizeof(*part),
		    16);
		for (r = 0; r < srcs[i].nrows; r++) {
			/* 0: uniform; 1: one partition per batch; 2: most
			 * rows to one, the rest anywhere. */
			part[r] = mode == 1 ? one : mode == 2 &&
			    rnd() % 8 != 0 ? one : (uint32_t)(rnd() % nparts);
			if (skip && rnd() % 5 == 0)
				part[r] = CORE_PART_SKIP;
			else
				list_add(&ref[part[r]], (uint64_t)i << 32 | r);
		}
		rc = core_part_add(p, &srcs[i], part, &err);
		CHECK_EQ_INT(rc, 0);
		if (rc != 0)
			printf("# %s\n", err.msg);
		if (mem != NULL)
			CHECK_EQ_INT(mem->used, 0);
	}
	free(part);
}

static void
test_round_trip(void)
{
	static const uint32_t counts[] = { 1, 2, 7, 64, 256 };
	const char *dirs[2] = { "/tmp", "/tmp" };
	struct core_schema *s = make_schema();
	struct core_batch srcs[2 * NLENS];
	uint32_t nsrcs = 2 * NLENS, i, ci, bi, k;
	uint64_t batch_bytes = 0;
	struct core_pool *pool = core_pool_new(2);
	int round = 0;
	unsigned as;

	/* Every length twice, in a shuffled order. */
	for (i = 0; i < nsrcs; i++)
		random_batch(&srcs[i], s, lens[i % NLENS]);
	for (i = nsrcs - 1; i > 0; i--) {
		uint32_t j = (uint32_t)(rnd() % (i + 1));
		struct core_batch t = srcs[i];

		srcs[i] = srcs[j];
		srcs[j] = t;
	}
	for (i = 0; i < nsrcs; i++)
		if (bytes_of(&srcs[i]) > batch_bytes)
			batch_bytes = bytes_of(&srcs[i]);
	/* Every case written here, then behind, on a helper. */
	for (as = 0; as < 2; as++)
	for (ci = 0; ci < sizeof(counts) / sizeof(counts[0]); ci++) {
		for (bi = 0; bi < NBUDGETS; bi++, round++) {
			uint32_t n = counts[ci];
			struct list *ref = core_xcalloc(n, sizeof(*ref));
			struct core_mem mem, rmem;
			struct core_mem_part part, rpart;
			struct core_part_stats st;
			struct core_part *p;
			struct core_err err;
			uint64_t frames = 0, rows = 0;
			int wrong = 0;

			core_mem_init(&mem, budgets[bi]);
			core_mem_part_init(&part, &mem, "partition buffers",
			    CORE_MEM_UNLIMITED);
			core_mem_init(&rmem, CORE_MEM_UNLIMITED);
			core_mem_part_init(&rpart, &rmem, "frames",
			    CORE_MEM_UNLIMITED);
			p = core_part_new(s, n, dirs, (size_t)(round % 3),
			    0, round % 2, &part);
			core_part_async(p, as ? pool : NULL);
			route_all(p, n, srcs, nsrcs, round % 3, round % 4 == 1,
			    ref,
			    budgets[bi] == 1 ? &part : NULL);
			CHECK(part.peak <= (budgets[bi] ==
			    CORE_MEM_UNLIMITED ? UINT64_MAX :
			    budgets[bi] + batch_bytes + 16384));
			CHECK_EQ_INT(core_part_finish(p, &err), 0);
			CHECK_EQ_INT(part.used, 0);
			for (k = 0; k < n; k++) {
				const struct core_spill_run *run =
				    core_part_run(p, k);

				wrong += check_run(core_part_spill(p), run,
				    &ref[k], srcs, &rpart);
				CHECK_EQ_INT(core_part_rows(p, k), ref[k].n);
				frames += run->nframes;
				rows += ref[k].n;
			}
			if (wrong != 0)
				printf("# %u partitions, budget %llu%s: %d "
				    "wrong\n", n,
				    (unsigned long long)budgets[bi],
				    as ? ", written behind" : "", wrong);
			CHECK_EQ_INT(wrong, 0);
			core_part_stats(p, &st);
			CHECK_EQ_INT(st.frames, frames);
			CHECK_EQ_INT(st.rows, rows);
			CHECK(st.bytes >= frames * 32);
			CHECK(core_spill_bytes(core_part_spill(p)) == st.bytes);
			/* Under a small budget, pieces go out at once. */
			if (budgets[bi] == 1)
				CHECK(frames >= (rows > 0 ? 1 : 0));
			core_part_free(p);
			CHECK_EQ_INT(part.used, 0);
			CHECK_EQ_INT(rmem.used, 0);
			core_mem_part_fini(&part);
			core_mem_part_fini(&rpart);
			for (k = 0; k < n; k++)
				free(ref[k].ref);
			free(ref);
		}
	}
	core_pool_free(pool);
	for (i = 0; i < nsrcs; i++)
		core_batch_release(&srcs[i]);
	core_schema_free(s);
}

/* core_part_frame_cap: frames no bigger than the cap (but for one add's
 * rows of a partition) and well below those of no cap, never below
 * 16 KiB, never raised; the rows all read back. */
static void
test_frame_cap(void)
{
	static const uint64_t caps[] = { UINT64_MAX, 20000, 1000 };
	static const uint64_t want[] = { CORE_PART_FRAME_MAX, 20000, 16384 };
	struct core_schema *s = make_schema();
	struct core_batch srcs[NLENS];
	uint64_t batch_bytes = 0, uncapped = 0;
	uint32_t i, k, n = 3;
	unsigned c;

	for (i = 0; i < NLENS; i++) {
		random_batch(&srcs[i], s, lens[i]);
		if (bytes_of(&srcs[i]) > batch_bytes)
			batch_bytes = bytes_of(&srcs[i]);
	}
	for (c = 0; c < sizeof(caps) / sizeof(caps[0]); c++) {
		struct list *ref = core_xcalloc(n, sizeof(*ref));
		struct core_mem rmem;
		struct core_mem_part rpart;
		struct core_part *p = core_part_new(s, n, NULL, 0, 0, 0, NULL);
		struct core_err err;
		uint64_t biggest = 0;

		core_mem_init(&rmem, CORE_MEM_UNLIMITED);
		core_mem_part_init(&rpart, &rmem, "frames", CORE_MEM_UNLIMITED);
		core_part_frame_cap(p, caps[c]);
		CHECK_EQ_INT(core_part_frame_bytes(p), want[c]);
		route_all(p, n, srcs, NLENS, 0, false, ref, NULL);
		CHECK_EQ_INT(core_part_finish(p, &err), 0);
		for (k = 0; k < n; k++) {
			const struct core_spill_run *run = core_part_run(p, k);

			for (i = 0; i < run->nframes; i++)
				if (run->frames[i].len > biggest)
					biggest = run->frames[i].len;
			CHECK_EQ_INT(check_run(core_part_spill(p), run,
			    &ref[k], srcs, &rpart), 0);
			free(ref[k].ref);
		}
		if (c == 0) {
			uncapped = biggest;
		} else if (biggest > want[c] + batch_bytes ||
		    2 * biggest >= uncapped) {
			printf("# cap %llu: a frame of %llu bytes (%llu with "
			    "none)\n", (unsigned long long)want[c],
			    (unsigned long long)biggest,
			    (unsigned long long)uncapped);
			CHECK(false);
		}
		core_part_free(p);
		core_mem_part_fini(&rpart);
		free(ref);
	}
	for (i = 0; i < NLENS; i++)
		core_batch_release(&srcs[i]);
	core_schema_free(s);
}

/* A partition read back and routed again, into a set on the same spill
 * set, with a contiguous run written in between; every run of both
 * sets (and the contiguous one) reads back right afterwards. */
static void
test_repartition(void)
{
	struct core_schema *s = make_schema();
	struct core_batch srcs[NLENS + 1];
	struct list ref[7], ref2[5], cref;
	uint32_t nsrcs = NLENS + 1, i, k, big = 0, r, *part = NULL;
	size_t cap = 0, at = 0;
	uint64_t most = 0;
	struct core_mem mem;
	struct core_mem_part part1, part2, rpart;
	struct core_spill_run crun;
	struct core_spill_cursor c;
	struct core_spill_frame f;
	struct core_part *p, *q;
	struct core_pool *pool = core_pool_new(2);
	struct core_err err;
	int rc, wrong = 0;

	memset(ref, 0, sizeof(ref));
	memset(ref2, 0, sizeof(ref2));
	memset(&cref, 0, sizeof(cref));
	for (i = 0; i < nsrcs; i++) {
		random_batch(&srcs[i], s, i < NLENS ? lens[i] : 3000);
		if (bytes_of(&srcs[i]) > most)
			most = bytes_of(&srcs[i]);
	}
	core_mem_init(&mem, 256 << 10);
	core_mem_part_init(&part1, &mem, "partition buffers", 96 << 10);
	core_mem_part_init(&part2, &mem, "re-partition buffers", 96 << 10);
	core_mem_part_init(&rpart, &mem, "frames", CORE_MEM_UNLIMITED);
	p = core_part_new(s, 7, NULL, 0, 0, 1, &part1);
	core_part_async(p, pool);
	route_all(p, 7, srcs, NLENS, 2, false, ref, NULL);
	CHECK_EQ_INT(core_part_finish(p, &err), 0);
	for (k = 1; k < 7; k++)
		if (ref[k].n > ref[big].n)
			big = k;

	/* A contiguous run between the two sets' frames. */
	CHECK_EQ_INT(core_spill_run_begin(core_part_spill(p), &err), 0);
	CHECK_EQ_INT(core_spill_run_write(core_part_spill(p), &srcs[NLENS],
	    &err), 0);
	CHECK_EQ_INT(core_spill_run_end(core_part_spill(p), &crun, &err), 0);
	for (r = 0; r < srcs[NLENS].nrows; r++)
		list_add(&cref, (uint64_t)NLENS << 32 | r);

	/* Written behind while p's run is read on the caller. */
	q = core_part_new_in(core_part_spill(p), 5, &part2);
	core_part_async(q, pool);
	memset(&f, 0, sizeof(f));
	core_batch_init(&f.batch, s);
	CHECK_EQ_INT(core_spill_cursor_open(core_part_spill(p), &c,
	    core_part_run(p, big), &err), 0);
	while ((rc = core_spill_read_frame(core_part_spill(p), &c, &f, &rpart,
	    &err)) == 0) {
		part = core_grow(part, &cap, f.batch.nrows, sizeof(*part), 16);
		for (r = 0; r < f.batch.nrows; r++, at++) {
			part[r] = (uint32_t)(rnd() % 5);
			list_add(&ref2[part[r]], ref[big].ref[at]);
		}
		CHECK_EQ_INT(core_part_add(q, &f.batch, part, &err), 0);
	}
	CHECK_EQ_INT(rc, CORE_EOF);
	CHECK_EQ_INT(at, ref[big].n);
	CHECK_EQ_INT(core_part_finish(q, &err), 0);
	CHECK_EQ_INT(part2.used, 0);
	for (k = 0; k < 5; k++)
		wrong += check_run(core_part_spill(q), core_part_run(q, k),
		    &ref2[k], srcs, &rpart);
	for (k = 0; k < 7; k++)
		wrong += check_run(core_part_spill(p), core_part_run(p, k),
		    &ref[k], srcs, &rpart);
	wrong += check_run(core_part_spill(p), &crun, &cref, srcs, &rpart);
	CHECK_EQ_INT(wrong, 0);
	/* Partitions given back together (their frames lie between the
	 * others', neighbours coalesced): the others read back intact. */
	for (k = 0; k < 7; k += 2)
		if (k != big)
			core_part_retire(p, k);
	core_part_discard_retired(p);
	if (big != 1) {
		core_part_retire(p, 1);
		core_part_discard(p, 1);
		core_part_discard_retired(p);
	}
	for (k = 3; k < 7; k += 2)
		wrong += check_run(core_part_spill(p), core_part_run(p, k),
		    &ref[k], srcs, &rpart);
	wrong += check_run(core_part_spill(p), core_part_run(p, big),
	    &ref[big], srcs, &rpart);
	for (k = 0; k < 5; k++)
		wrong += check_run(core_part_spill(q), core_part_run(q, k),
		    &ref2[k], srcs, &rpart);
	wrong += check_run(core_part_spill(p), &crun, &cref, srcs, &rpart);
	CHECK_EQ_INT(wrong, 0);
	core_part_discard(p, big);
	core_spill_frame_release(&f, &rpart);
	core_batch_release(&f.batch);
	core_part_free(q);
	core_part_free(p);
	core_pool_free(pool);
	CHECK_EQ_INT(mem.used, 0);
	/* Over the cap by one piece at most, which goes straight out. */
	CHECK(part1.peak > 0 && part1.peak <= (96 << 10) + most + 16384);
	CHECK(part2.peak > 0 && part2.peak <= (96 << 10) + most + 16384);
	core_mem_part_fini(&part1);
	core_mem_part_fini(&part2);
	core_mem_part_fini(&rpart);
	for (k = 0; k < 7; k++)
		free(ref[k].ref);
	for (k = 0; k < 5; k++)
		free(ref2[k].ref);
	free(cref.ref);
	free(part);
	for (i = 0; i < nsrcs; i++)
		core_batch_release(&srcs[i]);
	core_schema_free(s);
}

/* Routes b to 16 partitions, round robin, until an error or finish. */
static int
fill_until(struct core_part *p, struct core_batch *b, int times,
    struct core_err *err)
{
	uint32_t part[4096], r;
	int i, rc;

	for (r = 0; r < b->nrows; r++)
		part[r] = r % 16;
	for (i = 0; i < times; i++)
		if ((rc = core_part_add(p, b, part, err)) != 0)
			return rc;
	return core_part_finish(p, err);
}

static void
test_errors(void)
{
	const char *bad[1] = { "/nonexistent/part-dir" };
	struct core_schema *s = make_schema();
	struct core_mem mem;
	struct core_mem_part mp;
	struct core_part *p;
	struct core_batch b;
	struct core_err err;
	uint32_t part[3] = { 0, 1, 2 };
	struct core_pool *pool = core_pool_new(2);
	unsigned as;

	random_batch(&b, s, 4096);
	core_mem_init(&mem, 64 << 10);
	core_mem_part_init(&mp, &mem, "partition buffers", CORE_MEM_UNLIMITED);

	/* Written here, then behind: a helper's failure comes back the
	 * same. */
	for (as = 0; as < 2; as++) {
		/* The cap: refused, naming the limit. */
		p = core_part_new(s, 16, NULL, 0, 100000, 0, &mp);
		core_part_async(p, as ? pool : NULL);
		memset(&err, 0, sizeof(err));
		CHECK_EQ_INT(fill_until(p, &b, 20, &err), CORE_ELIMIT);
		CHECK(strstr(err.msg, "spill limit of 100000 bytes") != NULL);
		CHECK(strstr(err.msg, "--") == NULL);
		/* Once failed, failed: finish says so again. */
		CHECK_EQ_INT(core_part_finish(p, &err), CORE_ELIMIT);
		core_part_free(p);
		CHECK_EQ_INT(mp.used, 0);

		/* An unwritable directory, named. */
		p = core_part_new(s, 16, bad, 1, 0, 0, &mp);
		core_part_async(p, as ? pool : NULL);
		memset(&err, 0, sizeof(err));
		CHECK_EQ_INT(fill_until(p, &b, 3, &err), CORE_EIO);
		CHECK(strstr(err.msg, "/nonexistent/part-dir") != NULL);
		core_part_free(p);
		CHECK_EQ_INT(mp.used, 0);
	}
	core_pool_free(pool);

	/* A partition out of range, and rows after the finish. */
	p = core_part_new(s, 2, NULL, 0, 0, 0, &mp);
	b.nrows = 3;
	CHECK_EQ_INT(core_part_add(p, &b, part, &err), CORE_EINTERNAL);
	part[2] = 1;
	CHECK_EQ_INT(core_part_add(p, &b, part, &err), 0);
	CHECK_EQ_INT(core_part_finish(p, &err), 0);
	CHECK_EQ_INT(core_part_add(p, &b, part, &err), CORE_EINTERNAL);
	CHECK_EQ_INT(core_part_rows(p, 0), 1);
	CHECK_EQ_INT(core_part_rows(p, 1), 2);
	core_part_free(p);
	core_part_free(NULL);
	CHECK_EQ_INT(mp.used, 0);
	CHECK_EQ_INT(mem.used, 0);
	core_mem_part_fini(&mp);
	b.nrows = 4096;
	core_batch_release(&b);
	core_schema_free(s);
}

/* Reads run to its end: the final code (CORE_EOF when it reads well). */
static int
read_all(struct core_spill *sp, const struct core_spill_run *run,
    struct core_mem_part *mem, uint64_t *rows)
{
	struct core_spill_cursor c;
	struct core_spill_frame f;
	struct core_err err;
	int rc;

	*rows = 0;
	memset(&f, 0, sizeof(f));
	core_batch_init(&f.batch, core_spill_schema(sp));
	if ((rc = core_spill_cursor_open(sp, &c, run, &err)) == 0)
		while ((rc = core_spill_read_frame(sp, &c, &f, mem, &err)) == 0)
			*rows += f.batch.nrows;
	core_spill_frame_release(&f, mem);
	core_batch_release(&f.batch);
	return rc;
}

/* A chained run described wrongly is an error, never a short or
 * shifted success. */
static void
test_wrong_chains(void)
{
	struct core_schema *s = make_schema();
	struct core_batch b;
	struct core_mem mem;
	struct core_mem_part mp;
	struct core_spill_run bad;
	const struct core_spill_run *run;
	struct core_part *p;
	struct core_err err;
	uint32_t part[4097] = { 0 };
	uint64_t rows;
	size_t bytes;
	int i;

	core_mem_init(&mem, 1);
	core_mem_part_init(&mp, &mem, "partition buffers", CORE_MEM_UNLIMITED);
	p = core_part_new(s, 2, NULL, 0, 0, 0, &mp);
	random_batch(&b, s, 4097);
	for (i = 0; i < 3; i++)
		CHECK_EQ_INT(core_part_add(p, &b, part, &err), 0);
	CHECK_EQ_INT(core_part_finish(p, &err), 0);
	run = core_part_run(p, 0);
	/* At least a frame per add (more: a budget of one byte gives
	 * frames of the smallest size). */
	CHECK(run->nframes >= 3);
	CHECK_EQ_INT(read_all(core_part_spill(p), run, &mp, &rows), CORE_EOF);
	CHECK_EQ_INT(rows, 3 * 4097);
	/* The empty partition: a run of no frame. */
	CHECK_EQ_INT(read_all(core_part_spill(p), core_part_run(p, 1), &mp,
	    &rows), CORE_EOF);
	CHECK_EQ_INT(rows, 0);

	bytes = run->nframes * sizeof(*run->frames);
	bad = *run;
	bad.frames = core_xmalloc(bytes);
	for (i = 0; i < 7; i++) {
		memcpy(bad.frames, run->frames, bytes);
		bad.nframes = run->nframes;
		bad.rows = run->rows;
		switch (i) {
		case 0:
			bad.frames[1].off += 8;
			break;
		case 1:
			bad.frames[1].off -= 8;
			break;
		case 2:
			bad.frames[2].len -= 8;
			break;
		case 3:
			bad.nframes--;
			break;
		case 4:
			bad.rows++;
			break;
		case 5:
			bad.frames[0].off = 0;
			break;
		case 6:
			/* An extent longer than its record: read whole,
			 * the record must fill it. */
			bad.frames[1].len += 8;
			break;
		}
		CHECK_EQ_INT(read_all(core_part_spill(p), &bad, &mp, &rows),
		    CORE_ECORRUPT);
	}
	free(bad.frames);
	core_part_free(p);
	CHECK_EQ_INT(mem.used, 0);
	core_mem_part_fini(&mp);
	core_batch_release(&b);
	core_schema_free(s);
}

int
main(void)
{
	RUN(test_round_trip);
	RUN(test_frame_cap);
	RUN(test_repartition);
	RUN(test_errors);
	RUN(test_wrong_chains);
	return unit_done();
}
