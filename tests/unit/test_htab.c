/*
 * test_htab.c - core_htab against a plain array scanned linearly.
 *
 * The reference keeps every inserted (hash, ref) in insertion order; a
 * probe's expected answer is every entry of that hash's tag, newest first,
 * found by scanning the whole array.  The table's answer is what
 * probe and next return until every candidate runs out.  Hashes from
 * small domains (many duplicates, raw small numbers that share low and
 * high bits), all equal, and full random; tables of zero and one
 * entries; growth across many batches of the lengths 0, 1, 2, 3, 17,
 * 4095, 4096, 4097; a budget that refuses growth, after which the table
 * is unchanged and still answers and takes what fits; the charge back
 * at zero after release.  Then the two uses together with core_hash: a
 * hash join against a nested loop (every pair, as a sorted multiset) and
 * a grouping against a count of distinct keys.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core_alloc.h"
#include "core_col.h"
#include "core_hash.h"
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

			while (p > 0 && core_htab_tag(r->hash[p - 1]) !=
			    core_htab_tag(hashes[i]))
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
 * buckets (distinct hashes share buckets), 5 distinct hashes of a few
 * tags (halves equal but for a few low bits: the table keeps only the
 * tag, so each probe finds every entry of its tag, as the reference
 * does, and the caller's key check would tell them apart). */
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
		case 4:
			h[i] = rnd() % 20000;
			break;
		default: {
			uint64_t x = rnd() & 0xffffffff00000000ull;

			h[i] = x | (x >> 32 ^ rnd() % 4);
			break;
		}
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

	for (kind = 0; kind < 6; kind++) {
		struct core_htab t;
		struct ref_tab r = { 0 };

		core_htab_init(&t, NULL);
		for (round = 0; round < 24; round++) {
			uint32_t n = lens[(size_t)round % NLENS];
			bool usesel = round % 3 == 1;

			if ((kind == 1 || kind == 5) && round > 12)
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
			if ((kind == 1 || kind == 5) && n > 17)
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

/* Key (int, string) of row r: the int is an int32 on the build side and
 * an int64 on the probe side. */
static void
fill_keys(struct core_batch *b, uint32_t n, bool wide)
{
	uint32_t r;
	size_t used = 0;

	core_batch_reset(b);
	core_batch_reserve(b, n, 4);
	for (r = 0; r < n; r++) {
		int64_t v = (int64_t)(rnd() % 40);
		size_t len = rnd() % 3, k;

		if (wide)
			((int64_t *)b->cols[0].values)[r] = v;
		else
			((int32_t *)b->cols[0].values)[r] = (int32_t)v;
		core_col_reserve_bytes(&b->cols[1], used, len);
		for (k = 0; k < len; k++)
			((char *)b->cols[1].values)[used + k] = 'a' + rnd() % 2;
		used += len;
		b->cols[1].offsets[r + 1] = (int32_t)used;
		if (rnd() % 10 == 0)
			core_col_set_null(&b->cols[rnd() % 2], r, n);
	}
	b->nrows = n;
}

static int64_t
key_int(const struct core_batch *b, uint32_t r)
{
	return b->cols[0].type.id == CORE_TYPE_INT64 ?
	    ((int64_t *)b->cols[0].values)[r] :
	    ((int32_t *)b->cols[0].values)[r];
}

/* The keys of two rows equal, NULL equal to NULL when nulls_equal. */
static bool
key_eq(const struct core_batch *a, uint32_t ra, const struct core_batch *b,
    uint32_t rb, bool nulls_equal)
{
	uint32_t c;

	for (c = 0; c < 2; c++) {
		bool va = core_col_is_valid(&a->cols[c], ra);
		bool vb = core_col_is_valid(&b->cols[c], rb);

		if (!va || !vb) {
			if (!(nulls_equal && !va && !vb))
				return false;
		} else if (c == 0) {
			if (key_int(a, ra) != key_int(b, rb))
				return false;
		} else {
			const int32_t *oa = a->cols[1].offsets;
			const int32_t *ob = b->cols[1].offsets;

			if (oa[ra + 1] - oa[ra] != ob[rb + 1] - ob[rb] ||
			    memcmp((char *)a->cols[1].values + oa[ra],
			    (char *)b->cols[1].values + ob[rb],
			    (size_t)(oa[ra + 1] - oa[ra])) != 0)
				return false;
		}
	}
	return true;
}

static struct core_schema *
key_schema(enum core_type int_type)
{
	struct core_schema *s = core_schema_new(2);
	struct core_coltype ti = { int_type, 0, 0 };
	struct core_coltype ts = { CORE_TYPE_STRING, 0, 0 };

	core_schema_set(s, 0, "k", ti);
	core_schema_set(s, 1, "s", ts);
	return s;
}

/* (probe row << 32 | build batch << 16 | build row), sortable. */
static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

#define NBUILD 3

static void
test_hash_join(void)
{
	struct core_schema *sb = key_schema(CORE_TYPE_INT32);
	struct core_schema *sp = key_schema(CORE_TYPE_INT64);
	struct core_batch build[NBUILD], probe;
	const struct core_batch *srcs[NBUILD];
	static const uint32_t cols[2] = { 0, 1 };
	struct core_hash_keys kb, kp;
	uint64_t *h = core_xmalloc(4097 * 8), *refs = core_xmalloc(4097 * 8);
	uint64_t *got = NULL, *want = NULL;
	uint32_t *sel = core_xmalloc(4097 * 4), *cand = core_xmalloc(4097 * 4);
	uint32_t *live = core_xmalloc(4097 * 4), *rows = core_xmalloc(4097 * 4);
	uint8_t *nl = core_xmalloc(4097), *eq = core_xmalloc(4097);
	size_t li, ngot, nwant, capg = 0, capw = 0;
	uint32_t i, j, r, bad = 0, nbig = 0;
	uint64_t mask;
	int weak;

	for (j = 0; j < NBUILD; j++) {
		core_batch_init(&build[j], sb);
		srcs[j] = &build[j];
	}
	core_batch_init(&probe, sp);
	core_hash_keys_init(&kb, sb, cols, NULL, 2, NULL);
	core_hash_keys_init(&kp, sp, cols, NULL, 2, NULL);
	CHECK(core_hash_keys_comparable(&kb, &kp));
	/* Then with the hashes cut to 4 bits, so that most candidates
	 * are false and the equality decides. */
	for (weak = 0; weak < 2; weak++)
	for (li = 0; li < NLENS; li++) {
		struct core_htab t;
		uint32_t n = lens[li];

		mask = weak ? 15 : UINT64_MAX;
		core_htab_init(&t, NULL);
		/* Build: NULL keys left out, as they match nothing. */
		for (j = 0; j < NBUILD; j++) {
			uint32_t m, ns = 0;

			fill_keys(&build[j], j == 1 ? n : 17, false);
			m = build[j].nrows;
			core_hash_batch(&kb, &build[j], NULL, m, 5, h, nl);
			for (i = 0; i < m; i++)
				if (!nl[i]) {
					sel[ns] = i;
					h[ns++] = h[i] & mask;
				}
			CHECK_EQ_INT(core_htab_insert(&t, h, sel, ns, j, NULL),
			    0);
		}
		/* Probe a batch at a time, compacting the rows still
		 * holding a candidate. */
		fill_keys(&probe, n, true);
		core_hash_batch(&kp, &probe, NULL, n, 5, h, nl);
		for (i = 0; i < n; i++)
			h[i] &= mask;
		core_htab_probe(&t, h, n, cand);
		ngot = 0;
		for (;;) {
			uint32_t nlive = 0;

			for (i = 0; i < n; i++)
				if (cand[i] != CORE_HTAB_NONE && !nl[i])
					live[nlive++] = i;
			if (nlive == 0)
				break;
			for (i = 0; i < nlive; i++) {
				rows[i] = live[i];
				refs[i] = core_htab_ref(&t, cand[live[i]]);
			}
			core_hash_equal(&kp, &probe, rows, &kb, srcs, refs,
			    nlive, false, eq);
			for (i = 0; i < nlive; i++) {
				if (!eq[i])
					continue;
				got = core_grow(got, &capg, ngot + 1, 8, 64);
				got[ngot++] = (uint64_t)rows[i] << 32 |
				    refs[i] >> 32 << 16 | (uint32_t)refs[i];
			}
			core_htab_next(&t, cand, n);
		}
		nwant = 0;
		for (r = 0; r < n; r++)
			for (j = 0; j < NBUILD; j++)
				for (i = 0; i < build[j].nrows; i++) {
					if (!key_eq(&probe, r, &build[j], i,
					    false))
						continue;
					want = core_grow(want, &capw, nwant + 1,
					    8, 64);
					want[nwant++] = (uint64_t)r << 32 |
					    j << 16 | i;
				}
		if (ngot > 0)
			qsort(got, ngot, 8, cmp_u64);
		if (nwant > 0)
			qsort(want, nwant, 8, cmp_u64);
		if (ngot != nwant || (nwant > 0 &&
		    memcmp(got, want, nwant * 8) != 0))
			bad++;
		nbig += nwant > 10000;
		core_htab_release(&t);
	}
	CHECK_EQ_INT(bad, 0);
	CHECK(nbig > 0);
	for (j = 0; j < NBUILD; j++)
		core_batch_release(&build[j]);
	core_batch_release(&probe);
	core_schema_free(sb);
	core_schema_free(sp);
	free(h);
	free(refs);
	free(got);
	free(want);
	free(sel);
	free(cand);
	free(live);
	free(rows);
	free(nl);
	free(eq);
}

/* Groups with NULLs equal: a row joins the first group whose key equals
 * its own, else starts one; as many groups as distinct keys. */
static void
test_grouping(void)
{
	struct core_schema *s = key_schema(CORE_TYPE_INT32);
	struct core_batch in;
	const struct core_batch *srcs[1] = { &in };
	static const uint32_t cols[2] = { 0, 1 };
	struct core_hash_keys k;
	uint64_t *h = core_xmalloc(4097 * 8), ref;
	uint32_t *group = core_xmalloc(4097 * 4);
	size_t li;
	uint32_t i, j, e, bad = 0;
	uint8_t eq;
	int weak;

	core_batch_init(&in, s);
	core_hash_keys_init(&k, s, cols, NULL, 2, NULL);
	/* Then with 4-bit hashes: the equality decides. */
	for (weak = 0; weak < 2; weak++)
	for (li = 0; li < NLENS; li++) {
		struct core_htab t;
		uint32_t n = lens[li], ndistinct = 0;

		core_htab_init(&t, NULL);
		fill_keys(&in, n, false);
		core_hash_batch(&k, &in, NULL, n, 9, h, NULL);
		for (i = 0; weak && i < n; i++)
			h[i] &= 15;
		/* One row at a time here: a row's group may be one the same
		 * batch started. */
		for (i = 0; i < n; i++) {
			core_htab_probe(&t, &h[i], 1, &e);
			for (; e != CORE_HTAB_NONE; core_htab_next(&t, &e, 1)) {
				ref = core_htab_ref(&t, e);
				core_hash_equal(&k, &in, &i, &k, srcs, &ref, 1,
				    true, &eq);
				if (eq)
					break;
			}
			if (e == CORE_HTAB_NONE) {
				CHECK_EQ_INT(core_htab_insert(&t, &h[i], &i, 1,
				    0, NULL), 0);
				group[i] = i;
			} else {
				group[i] = (uint32_t)core_htab_ref(&t, e);
			}
		}
		for (i = 0; i < n; i++) {
			/* The group is the first row with an equal key. */
			for (j = 0; !key_eq(&in, i, &in, j, true); j++)
				;
			bad += group[i] != j;
			ndistinct += j == i;
		}
		CHECK_EQ_INT(t.count, ndistinct);
		core_htab_release(&t);
	}
	CHECK_EQ_INT(bad, 0);
	core_batch_release(&in);
	core_schema_free(s);
	free(h);
	free(group);
}

int
main(void)
{
	RUN(test_growth_and_duplicates);
	RUN(test_zero_and_one);
	RUN(test_budget);
	RUN(test_hash_join);
	RUN(test_grouping);
	return unit_done();
}
