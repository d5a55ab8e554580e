/*
 * test_ahead.c - core_ahead against the producer's own batches.
 *
 * The producer makes batch k from k alone (so the check can make it
 * again), into one batch it overwrites on every call, as core_source
 * does: a copy that was not made, or made too late, shows as another
 * batch's values.  Its string column is a view whose offsets do not
 * start at 0, and its columns have NULLs in some batches and none in
 * others; row counts include 0, 1 and several thousand.  Then: the end
 * after the last batch, repeated; an error after some batches, with its
 * message; a free while the producer is ahead, and while it is inside
 * a slow call.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core_ahead.h"
#include "core_alloc.h"
#include "core_col.h"
#include "unit.h"

static const uint32_t rows_of[] = { 3, 0, 1, 4097, 17, 2, 6000, 5, 1000 };
#define NROWS_OF (sizeof(rows_of) / sizeof(rows_of[0]))

struct prod {
	struct core_schema *schema;
	struct core_batch b;		/* overwritten by every call */
	struct core_batch view;		/* b's string column shifted */
	uint32_t k, nbatches;
	int fail_at;			/* -1: none */
	unsigned sleep_ms;		/* in every call */
	uint32_t calls;			/* atomic */
	/* Batch k's number at k % CORE_AHEAD_SLOTS (atomic), as a
	 * producer keeps data of its own beside each batch. */
	uint32_t ring[CORE_AHEAD_SLOTS];
};

static uint64_t
mix(uint64_t x)
{
	x ^= x >> 31;
	x *= 0x9e3779b97f4a7c15ull;
	return x ^ (x >> 29);
}

/* Batch k into b (reserved for it), its text behind a 5-byte prefix. */
static void
make(struct core_batch *b, uint32_t k)
{
	uint32_t n = rows_of[k % NROWS_OF], r;
	struct core_column *c = &b->cols[0], *s = &b->cols[1];
	bool nulls = k % 2 == 1;
	size_t used = 5;

	core_batch_reset(b);
	core_batch_reserve(b, n, 0);
	core_col_reserve_bytes(s, 0, 5);
	memset(s->values, 'x', 5);
	s->offsets[0] = 5;
	for (r = 0; r < n; r++) {
		uint64_t v = mix((uint64_t)k << 32 | r);
		size_t len = v % 13, j;

		((int64_t *)c->values)[r] = (int64_t)v;
		core_col_reserve_bytes(s, used, len);
		for (j = 0; j < len; j++)
			((char *)s->values)[used + j] = (char)('a' + (v >> j) %
			    26);
		used += len;
		s->offsets[r + 1] = (int32_t)used;
		if (nulls && v % 5 == 0)
			core_col_set_null(c, r, n);
		if (nulls && v % 7 == 0)
			core_col_set_null(s, r, n);
	}
	b->nrows = n;
}

static int
produce(void *arg, const struct core_batch **out, uint64_t tag[2],
    struct core_err *err)
{
	struct prod *p = arg;

	__atomic_add_fetch(&p->calls, 1, __ATOMIC_SEQ_CST);
	if (p->sleep_ms > 0) {
		struct timespec ts = { 0, (long)p->sleep_ms * 1000000L };

		nanosleep(&ts, NULL);
	}
	if ((int)p->k == p->fail_at)
		return core_err_set(err, CORE_EDATA, "bad batch %u", p->k);
	if (p->k == p->nbatches)
		return CORE_EOF;
	make(&p->b, p->k);
	tag[0] = p->k;
	tag[1] = p->b.nrows;
	__atomic_store_n(&p->ring[p->k % CORE_AHEAD_SLOTS], p->k,
	    __ATOMIC_SEQ_CST);
	p->k++;
	*out = &p->b;
	return 0;
}

static void
prod_init(struct prod *p, uint32_t nbatches, int fail_at, unsigned sleep_ms)
{
	struct core_coltype t;

	memset(p, 0, sizeof(*p));
	p->schema = core_schema_new(2);
	memset(&t, 0, sizeof(t));
	t.id = CORE_TYPE_INT64;
	core_schema_set(p->schema, 0, "i", t);
	t.id = CORE_TYPE_STRING;
	core_schema_set(p->schema, 1, "s", t);
	core_batch_init(&p->b, p->schema);
	p->nbatches = nbatches;
	p->fail_at = fail_at;
	p->sleep_ms = sleep_ms;
}

static void
prod_release(struct prod *p)
{
	core_batch_release(&p->b);
	core_schema_free(p->schema);
}

/* Whether got holds batch k's rows, value for value. */
static bool
same_as(const struct core_batch *got, uint32_t k, const struct core_schema *s)
{
	struct core_batch want;
	uint32_t r, i;
	bool ok = true;

	core_batch_init(&want, s);
	make(&want, k);
	if (got->nrows != want.nrows)
		ok = false;
	for (r = 0; ok && r < want.nrows; r++)
		for (i = 0; i < 2; i++)
			if (core_col_is_valid(&got->cols[i], r) !=
			    core_col_is_valid(&want.cols[i], r) ||
			    (core_col_is_valid(&want.cols[i], r) &&
			    !core_col_value_equal(&got->cols[i], r,
			    &want.cols[i], r)))
				ok = false;
	/* A string column comes out rebased, its bytes exactly the rows'. */
	if (ok && got->nrows > 0)
		ok = got->cols[1].offsets[0] == 0;
	core_batch_release(&want);
	return ok;
}

static void
test_all_batches(void)
{
	struct prod p;
	struct core_ahead *a;
	struct core_err err = { 0, "" };
	const struct core_batch *b;
	uint64_t tag[2];
	uint32_t k;
	int rc;

	prod_init(&p, 40, -1, 0);
	CHECK_EQ_INT(core_ahead_new(p.schema, produce, &p, &a, &err), 0);
	for (k = 0; k < 40; k++) {
		rc = core_ahead_next(a, &b, tag, &err);
		CHECK_EQ_INT(rc, 0);
		if (rc != 0)
			break;
		CHECK_EQ_INT(tag[0], k);
		CHECK_EQ_INT(tag[1], rows_of[k % NROWS_OF]);
		CHECK(same_as(b, k, p.schema));
	}
	CHECK_EQ_INT(core_ahead_next(a, &b, tag, &err), CORE_EOF);
	CHECK_EQ_INT(core_ahead_next(a, &b, tag, &err), CORE_EOF);
	core_ahead_free(a);
	CHECK_EQ_INT(p.calls, 41);
	prod_release(&p);
	core_ahead_free(NULL);
}

static void
test_error(void)
{
	struct prod p;
	struct core_ahead *a;
	struct core_err err = { 0, "" };
	const struct core_batch *b;
	uint64_t tag[2];
	uint32_t k;

	prod_init(&p, 40, 7, 0);
	CHECK_EQ_INT(core_ahead_new(p.schema, produce, &p, &a, &err), 0);
	for (k = 0; k < 7; k++) {
		CHECK_EQ_INT(core_ahead_next(a, &b, tag, &err), 0);
		CHECK(same_as(b, k, p.schema));
	}
	CHECK_EQ_INT(core_ahead_next(a, &b, tag, &err), CORE_EDATA);
	CHECK_EQ_STR(err.msg, "bad batch 7");
	memset(&err, 0, sizeof(err));
	CHECK_EQ_INT(core_ahead_next(a, &b, tag, &err), CORE_EDATA);
	CHECK_EQ_STR(err.msg, "bad batch 7");
	core_ahead_free(a);
	prod_release(&p);
}

/* Freed early: the producer stops, at most CORE_AHEAD_SLOTS batches
 * ahead of the caller. */
static void
test_free_early(void)
{
	struct prod p;
	struct core_ahead *a;
	struct core_err err = { 0, "" };
	const struct core_batch *b;
	uint64_t tag[2];
	struct timespec ts = { 0, 20000000L };
	unsigned slow;

	for (slow = 0; slow < 2; slow++) {
		prod_init(&p, 1000, -1, slow ? 30 : 0);
		CHECK_EQ_INT(core_ahead_new(p.schema, produce, &p, &a, &err),
		    0);
		CHECK_EQ_INT(core_ahead_next(a, &b, tag, &err), 0);
		CHECK(same_as(b, 0, p.schema));
		CHECK_EQ_INT(core_ahead_next(a, &b, tag, &err), 0);
		CHECK(same_as(b, 1, p.schema));
		nanosleep(&ts, NULL);
		core_ahead_free(a);
		CHECK(p.calls <= 2 + CORE_AHEAD_SLOTS);
		prod_release(&p);
	}
	/* Freed before the first batch is asked for. */
	prod_init(&p, 1000, -1, 0);
	CHECK_EQ_INT(core_ahead_new(p.schema, produce, &p, &a, &err), 0);
	core_ahead_free(a);
	CHECK(p.calls <= CORE_AHEAD_SLOTS + 1);
	prod_release(&p);
}

/* The producer's call for batch k comes only once the caller has let
 * go of batch k - CORE_AHEAD_SLOTS: its data of that batch's place in a
 * ring of CORE_AHEAD_SLOTS stays the caller's batch's while it is held,
 * however long, and however far ahead the producer may run. */
static void
test_ring(void)
{
	struct prod p;
	struct core_ahead *a;
	struct core_err err = { 0, "" };
	const struct core_batch *b;
	struct timespec ts = { 0, 3000000L };
	uint64_t tag[2];
	uint32_t k;

	prod_init(&p, 30, -1, 0);
	CHECK_EQ_INT(core_ahead_new(p.schema, produce, &p, &a, &err), 0);
	for (k = 0; k < 30; k++) {
		CHECK_EQ_INT(core_ahead_next(a, &b, tag, &err), 0);
		nanosleep(&ts, NULL);
		CHECK_EQ_INT(__atomic_load_n(&p.ring[k % CORE_AHEAD_SLOTS],
		    __ATOMIC_SEQ_CST), k);
		CHECK(same_as(b, k, p.schema));
	}
	CHECK_EQ_INT(core_ahead_next(a, &b, tag, &err), CORE_EOF);
	core_ahead_free(a);
	prod_release(&p);
}

int
main(void)
{
	RUN(test_all_batches);
	RUN(test_error);
	RUN(test_free_early);
	RUN(test_ring);
	return unit_done();
}
