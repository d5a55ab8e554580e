/*
 * test_htab.c - core_htab against a plain array scanned linearly.
 *
 * The reference keeps every inserted (hash, ref) in insertion order; a
 * probe's expected answer is every entry of that hash, newest first,
 * found by scanning the whole array.  The table's answer is what
 * probe and next return until every candidate runs out.  Hashes from
 * small domains (many duplicates, raw small numbers that share low and
 * high bits), all equal, and full random; tables of zero and one
 * entries; growth across many batches of the lengths 0, 1, 2, 3, 17,
 * 4095, 4096, 4097; a budget that refuses growth, after which the table
 * is unchanged and still answers and takes what fits; the charge back
 * at zero after release.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core_alloc.h"
#include "core_htab.h"
#include "core_mem.h"
#include "unit.h"

static const uint32_t lens[] = { 0, 1, 2, 3, 17, 4095, 4096, 4097 };
#define NLENS (sizeof(lens) / sizeof(lens[0]))

struct ref_tab {
	uint64_t *hash, *ref;
	size_t n, cap;
};

static void
ref_insert(struct ref_tab *r, const uint64_t *h, const uint32_t *sel,
    uint32_t n, uint32_t src)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		size_t c = r->cap;

		r->hash = core_grow(r->hash, &c, r->n + 1, 8, 64);
		r->ref = core_grow(r->ref, &r->cap, r->n + 1, 8, 64);
		r->hash[r->n] = h[i];
		r->ref[r->n] = (uint64_t)src << 32 | (sel ? sel[i] : i);
		r->n++;
	}
}

static uint64_t rng = 0xda942042e4dd58b5ull;

static uint64_t
rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Probes hashes[0..n) and compares every answer with the reference's;
 * returns the number of wrong answers, adds the matches to *nmatch. */
static uint32_t
check_probes(const struct core_htab *t, const struct ref_tab *r,
    const uint64_t *hashes, uint32_t n, uint64_t *nmatch)
{
	uint32_t *cand = core_xmalloc(((size_t)n + 1) * sizeof(*cand));
	size_t *pos = core_xmalloc(((size_t)n + 1) * sizeof(*pos));
	uint32_t i, bad = 0, live = n;

	core_htab_probe(t, hashes, n, cand);
	for (i = 0; i < n; i++)
		pos[i] = r->n;	/* the reference scans downwards from here */
	while (live > 0) {
		live = 0;
		for (i = 0; i < n; i++) {
			size_t p = pos[i];

			while (p > 0 && r->hash[p - 1] != hashes[i])
				p--;
			if (p == 0) {
				bad += cand[i] != CORE_HTAB_NONE;
				cand[i] = CORE_HTAB_NONE;
				pos[i] = 0;
				continue;
			}
			if (cand[i] == CORE_HTAB_NONE ||
			    core_htab_ref(t, cand[i]) != r->ref[p - 1] ||
			    cand[i] != p) {
				bad++;
				cand[i] = CORE_HTAB_NONE;
				pos[i] = 0;
				continue;
			}
			(*nmatch)++;
			pos[i] = p - 1;
			live++;
		}
		core_htab_next(t, cand, n);
	}
	for (i = 0; i < n; i++)
		bad += cand[i] != CORE_HTAB_NONE;
	free(cand);
	free(pos);
	return bad;
}

/* Hashes of a kind: 0 small domain, 1 all equal, 2 random, 3 small
 * numbers shifted into the high bits, 4 a domain larger than the
 * buckets (distinct hashes share buckets). */
static void
gen(uint64_t *h, uint32_t n, int kind)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		switch (kind) {
		case 0:
			h[i] = rnd() % 300;
			break;
		case 1:
			h[i] = 0x5555;
			break;
		case 2:
			h[i] = rnd();
			break;
		case 3:
			h[i] = (rnd() % 300) << 48;
			break;
		default:
			h[i] = rnd() % 20000;
			break;
		}
	}
}

static void
test_growth_and_duplicates(void)
{
	uint64_t *h = core_xmalloc(4097 * 8), *q = core_xmalloc(4097 * 8);
	uint32_t *sel = core_xmalloc(4097 * 4);
	uint64_t nmatch = 0;
	uint32_t bad = 0, i;
	int kind, round;

	for (kind = 0; kind < 5; kind++) {
		struct core_htab t;
		struct ref_tab r = { 0 };

		core_htab_init(&t, NULL);
		for (round = 0; round < 24; round++) {
			uint32_t n = lens[(size_t)round % NLENS];
			bool usesel = round % 3 == 1;

			if (kind == 1 && round > 12)
				break;	/* long chains: quadratic check */
			gen(h, n, kind);
			for (i = 0; i < n; i++)
				sel[i] = (uint32_t)(rnd() % 100000);
			CHECK_EQ_INT(core_htab_insert(&t, h, usesel ? sel :
			    NULL, n, (uint32_t)round, NULL), 0);
			ref_insert(&r, h, usesel ? sel : NULL, n,
			    (uint32_t)round);
			CHECK_EQ_INT(t.count, r.n);
			n = lens[(size_t)(round * 5 + 3) % NLENS];
			if (kind == 1 && n > 17)
				n = 17;
			/* Probes: hashes present (some of them drawn from
			 * the kind's domain, some of an entry), and some
			 * absent. */
			gen(q, n, kind);
			for (i = 0; i < n; i++) {
				if (rnd() % 4 == 0)
					q[i] = rnd() | 1ull << 63;
				else if (rnd() % 2 && r.n > 0)
					q[i] = r.hash[rnd() % r.n];
			}
			bad += check_probes(&t, &r, q, n, &nmatch);
		}
		core_htab_release(&t);
		free(r.hash);
		free(r.ref);
	}
	CHECK_EQ_INT(bad, 0);
	CHECK(nmatch > 100000);
	free(h);
	free(q);
	free(sel);
}

static void
test_zero_and_one(void)
{
	struct core_htab t;
	struct ref_tab r = { 0 };
	uint64_t h = 77, q[3] = { 77, 78, 0 }, nmatch = 0;
	uint32_t cand[3] = { 9, 9, 9 }, sel = 5;

	core_htab_init(&t, NULL);
	core_htab_probe(&t, q, 3, cand);
	CHECK(cand[0] == CORE_HTAB_NONE && cand[1] == CORE_HTAB_NONE &&
	    cand[2] == CORE_HTAB_NONE);
	core_htab_probe(&t, q, 0, cand);
	CHECK_EQ_INT(core_htab_insert(&t, &h, NULL, 0, 0, NULL), 0);
	CHECK_EQ_INT(t.count, 0);
	CHECK_EQ_INT(core_htab_insert(&t, &h, &sel, 1, 3, NULL), 0);
	ref_insert(&r, &h, &sel, 1, 3);
	CHECK_EQ_INT(check_probes(&t, &r, q, 3, &nmatch), 0);
	CHECK_EQ_INT(nmatch, 1);
	core_htab_probe(&t, q, 3, cand);
	CHECK(core_htab_ref(&t, cand[0]) == (3ull << 32 | 5));
	{
		uint64_t ref;

		core_htab_refs(&t, cand, 1, &ref);
		CHECK(ref == (3ull << 32 | 5));
	}
	/* Reset empties and keeps the memory. */
	core_htab_reset(&t);
	CHECK_EQ_INT(t.count, 0);
	CHECK(t.cap > 0);
	core_htab_probe(&t, q, 3, cand);
	CHECK(cand[0] == CORE_HTAB_NONE);
	core_htab_release(&t);
	core_htab_release(NULL);
	free(r.hash);
	free(r.ref);
}

static void
test_budget(void)
{
	struct core_mem mem;
	struct core_mem_part part;
	struct core_htab t;
	struct ref_tab r = { 0 };
	struct core_err err;
	uint64_t *h = core_xmalloc(4097 * 8), nmatch = 0, charged, used;
	uint32_t count, cap, n, refused = 0, round, bad = 0;
	int rc;

	core_mem_init(&mem, 1 << 20);
	core_mem_part_init(&part, &mem, "hash table", CORE_MEM_UNLIMITED);
	core_htab_init(&t, &part);
	for (round = 0; round < 40; round++) {
		n = lens[round % NLENS];
		gen(h, n, round % 2 ? 0 : 2);
		count = t.count;
		cap = (uint32_t)t.cap;
		charged = t.charged;
		used = part.used;
		core_err_clear(&err);
		rc = core_htab_insert(&t, h, NULL, n, round, &err);
		if (rc == 0) {
			ref_insert(&r, h, NULL, n, round);
			CHECK(part.used == t.charged);
		} else {
			/* Refused: unchanged, with a message. */
			CHECK_EQ_INT(rc, CORE_ELIMIT);
			CHECK(strstr(err.msg, "hash table full") != NULL);
			CHECK_EQ_INT(t.count, count);
			CHECK_EQ_INT(t.cap, cap);
			CHECK(t.charged == charged);
			CHECK(part.used == used);
			CHECK((uint64_t)count + n > cap);
			refused++;
		}
		CHECK(mem.used <= mem.limit);
		gen(h, 300, round % 2 ? 0 : 2);
		bad += check_probes(&t, &r, h, 300, &nmatch);
	}
	CHECK(refused > 0);
	CHECK_EQ_INT(bad, 0);
	/* What fits in the capacity already charged still goes in. */
	n = (uint32_t)(t.cap - t.count);
	if (n > 4097)
		n = 4097;
	gen(h, n, 0);
	CHECK_EQ_INT(core_htab_insert(&t, h, NULL, n, 99, NULL), 0);
	ref_insert(&r, h, NULL, n, 99);
	gen(h, 1000, 0);
	CHECK_EQ_INT(check_probes(&t, &r, h, 1000, &nmatch), 0);
	CHECK(part.used > 0);
	core_htab_release(&t);
	CHECK(part.used == 0);
	CHECK(mem.used == 0);
	CHECK(part.peak > 0 && part.peak <= 1 << 20);
	core_mem_part_fini(&part);
	free(r.hash);
	free(r.ref);
	free(h);
}

int
main(void)
{
	RUN(test_growth_and_duplicates);
	RUN(test_zero_and_one);
	RUN(test_budget);
	return unit_done();
}
