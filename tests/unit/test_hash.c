/*
 * test_hash.c - core_hash against a per-row reference.
 *
 * The reference hashes one row at a time from the definition in
 * core_hash.c's header: each key's canonical value (an integer at the
 * common scale, a float64 with -0 and NaN folded, a string's bytes, 0 or
 * empty when NULL) put into a buffer and mixed or XXH3-hashed by itself.
 * The reference equality compares one value at a time by cross-
 * multiplying decimals, so it shares nothing with the batch code.
 * Random batches of every type, some NULLs (whose slots hold garbage, as
 * a stream from elsewhere may), -0/+0 and NaNs of several payloads,
 * small value domains so that equal keys are common, at row counts 0, 1,
 * 2, 3, 17, 4095, 4096, 4097, with and without a selection.  Beyond the
 * reference: equal keys (under NULLs equal) hash equal across int32 and
 * int64, across decimal scales and across the fast paths; distinct keys
 * rarely collide.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "core_alloc.h"
#include "core_col.h"
#include "core_hash.h"
#include "unit.h"

static const uint32_t lens[] = { 0, 1, 2, 3, 17, 4095, 4096, 4097 };
#define NLENS (sizeof(lens) / sizeof(lens[0]))

/* ---- the reference ---- */

static uint64_t
ref_mix(uint64_t x)
{
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static int64_t
ref_pow10(unsigned e)
{
	int64_t p = 1;

	while (e-- > 0)
		p *= 10;
	return p;
}

static bool
ref_valid(const struct core_column *c, uint32_t r)
{
	return c->validity == NULL || (c->validity[r / 8] & (1u << r % 8));
}

static int64_t
ref_raw_int(const struct core_column *c, uint32_t r)
{
	switch (c->type.id) {
	case CORE_TYPE_BOOL:
		return ((const uint8_t *)c->values)[r];
	case CORE_TYPE_INT32:
	case CORE_TYPE_DATE:
		return ((const int32_t *)c->values)[r];
	default:
		return ((const int64_t *)c->values)[r];
	}
}

/* Key j of row r as canonical bytes; returns the length. */
static size_t
ref_canon(const struct core_hash_keys *k, uint32_t j,
    const struct core_batch *b, uint32_t r, const unsigned char **p,
    unsigned char tmp[8])
{
	const struct core_column *c = &b->cols[k->col[j]];

	*p = tmp;
	if (c->type.id == CORE_TYPE_STRING) {
		*p = (const unsigned char *)c->values + c->offsets[r];
		return ref_valid(c, r) ? (size_t)(c->offsets[r + 1] -
		    c->offsets[r]) : 0;
	}
	if (c->type.id == CORE_TYPE_FLOAT64) {
		double d = ((const double *)c->values)[r];
		uint64_t u;

		if (!ref_valid(c, r))
			u = 0;
		else if (isnan(d))
			u = 0x7ff8000000000000ull;
		else if (d == 0)
			u = 0;
		else
			memcpy(&u, &d, 8);
		memcpy(tmp, &u, 8);
		return 8;
	}
	{
		int64_t v = ref_valid(c, r) ? ref_raw_int(c, r) /
		    ref_pow10((unsigned)(c->type.id == CORE_TYPE_DECIMAL ?
		    c->type.scale : 0) - k->scale[j]) : 0;

		memcpy(tmp, &v, 8);
		return 8;
	}
}

/* One string key of at most 7 bytes, or two of at most 3, as the word
 * core_hash.c mixes: each key its length, then its bytes (little-endian)
 * above it, in 8 bits of length for one key, 2 bits each for two, the
 * second key's word from bit 32. */
static bool
ref_short_str(const struct core_hash_keys *k, const struct core_batch *b,
    uint32_t r, uint64_t *w)
{
	uint32_t j, max = k->nkeys == 1 ? 7 : 3, shift = k->nkeys == 1 ? 8 : 2;

	*w = 0;
	for (j = 0; j < k->nkeys; j++) {
		const struct core_column *c = &b->cols[k->col[j]];
		int32_t len = c->offsets[r + 1] - c->offsets[r];
		uint64_t v = 0;

		if ((uint32_t)len > max)
			return false;
		for (int32_t t = 0; t < len; t++)
			v = v * 256 + ((unsigned char *)c->values)[c->offsets[r] +
			    len - 1 - t];
		*w |= ((uint64_t)len | v << shift) << (32 * j);
	}
	return true;
}

static uint64_t
ref_hash(const struct core_hash_keys *k, const struct core_batch *b,
    uint32_t r, uint64_t seed, bool *anynull)
{
	uint64_t s = ref_mix(seed ^ 0x165667b19e3779f9ull);
	const uint64_t knull = 0x9e3779b97f4a7c15ull;
	unsigned char tmp[8];
	const unsigned char *p;
	uint32_t j, nint = 0, nflt = 0;
	uint64_t h, nb = 0, v[2] = { 0, 0 };

	for (j = 0; j < k->nkeys; j++) {
		enum core_type t = b->cols[k->col[j]].type.id;
		size_t len = ref_canon(k, j, b, r, &p, tmp);

		nint += t != CORE_TYPE_STRING && t != CORE_TYPE_FLOAT64;
		nflt += t == CORE_TYPE_FLOAT64;
		if (!ref_valid(&b->cols[k->col[j]], r))
			nb |= 1u << j;
		if (j < 2 && len == 8 && t != CORE_TYPE_STRING)
			memcpy(&v[j], p, 8);
	}
	*anynull = nb != 0;
	if (nb == 0 && nint == 0 && nflt == 0 && k->nkeys <= 2 &&
	    ref_short_str(k, b, r, &h))
		return ref_mix(h ^ s ^ 0x27d4eb2f165667c5ull);
	if (k->nkeys == 1 && (nint == 1 || nflt == 1))
		return ref_mix(v[0] ^ s ^ (nb ? knull : 0));
	if (k->nkeys == 2 && nint == 2) {
		int64_t a = (int64_t)v[0], c = (int64_t)v[1];

		if (a >= INT32_MIN && a <= INT32_MAX && c >= INT32_MIN &&
		    c <= INT32_MAX)
			h = ((v[0] & 0xffffffffull) | v[1] << 32) ^ s;
		else
			h = ((ref_mix(v[0] ^ s) << 29 |
			    ref_mix(v[0] ^ s) >> 35) ^ v[1] ^
			    0xc2b2ae3d27d4eb4full);
		return ref_mix(h ^ nb * knull);
	}
	h = s;
	for (j = 0; j < k->nkeys; j++) {
		size_t len = ref_canon(k, j, b, r, &p, tmp);

		h = XXH3_64bits_withSeed(p, len, h ^ (nb >> j & 1 ? knull : 0));
	}
	return h;
}

/* a / 10^sa == b / 10^sb, as a * 10^sb == b * 10^sa. */
static bool
ref_eq(const struct core_hash_keys *ka, const struct core_batch *a,
    uint32_t ra, const struct core_hash_keys *kb, const struct core_batch *b,
    uint32_t rb, bool nulls_equal)
{
	uint32_t j;

	for (j = 0; j < ka->nkeys; j++) {
		const struct core_column *x = &a->cols[ka->col[j]];
		const struct core_column *y = &b->cols[kb->col[j]];
		bool vx = ref_valid(x, ra), vy = ref_valid(y, rb);

		if (!vx || !vy) {
			if (nulls_equal && !vx && !vy)
				continue;
			return false;
		}
		if (x->type.id == CORE_TYPE_STRING) {
			int32_t lx = x->offsets[ra + 1] - x->offsets[ra];
			int32_t ly = y->offsets[rb + 1] - y->offsets[rb];

			if (lx != ly || memcmp((char *)x->values +
			    x->offsets[ra], (char *)y->values + y->offsets[rb],
			    (size_t)lx) != 0)
				return false;
		} else if (x->type.id == CORE_TYPE_FLOAT64) {
			double dx = ((double *)x->values)[ra];
			double dy = ((double *)y->values)[rb];

			if (!(isnan(dx) && isnan(dy)) && dx != dy)
				return false;
		} else {
			unsigned sx = x->type.id == CORE_TYPE_DECIMAL ?
			    x->type.scale : 0;
			unsigned sy = y->type.id == CORE_TYPE_DECIMAL ?
			    y->type.scale : 0;

			if ((__int128)ref_raw_int(x, ra) * ref_pow10(sy) !=
			    (__int128)ref_raw_int(y, rb) * ref_pow10(sx))
				return false;
		}
	}
	return true;
}

/* ---- random batches ---- */

static uint64_t rng = 0x853c49e6748fea9bull;

static uint64_t
rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static struct core_coltype
ty(enum core_type id, uint8_t p, uint8_t s)
{
	struct core_coltype t = { id, p, s };

	return t;
}

static struct core_schema *
schema_of(const struct core_coltype *t, uint32_t n)
{
	struct core_schema *s = core_schema_new(n);
	char name[16];
	uint32_t i;

	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "c%u", i);
		core_schema_set(s, i, name, t[i]);
	}
	return s;
}

static double
rnd_double(void)
{
	static const double pick[] = { 0.0, -0.0, 1.0, -1.0, 0.5, 2.5 };
	uint64_t u;
	double d;

	switch (rnd() % 6) {
	case 0:	/* NaNs of several payloads and signs */
		u = 0x7ff0000000000001ull | (rnd() & 0x800fffffffffffffull);
		memcpy(&d, &u, 8);
		return d;
	case 1:
		return (double)((int64_t)(rnd() % 2001) - 1000) / 8;
	default:
		return pick[rnd() % 6];
	}
}

/* Values from a small domain (equal keys common), sometimes wide; NULLs
 * (1 in nullfreq, 0: none) whose slots hold garbage. */
static void
fill(struct core_batch *b, uint32_t n, unsigned nullfreq, int64_t dom)
{
	uint32_t i, r;

	core_batch_reserve(b, n, 16);
	for (i = 0; i < b->ncols; i++) {
		struct core_column *c = &b->cols[i];
		size_t used = 0;

		for (r = 0; r < n; r++) {
			bool null = nullfreq > 0 && rnd() % nullfreq == 0;
			int64_t v = (int64_t)(rnd() % (uint64_t)(2 * dom + 1)) -
			    dom;

			if (rnd() % 8 == 0)
				v = (int64_t)rnd();
			if (null)
				core_col_set_null(c, r, n);
			switch (c->type.id) {
			case CORE_TYPE_BOOL:
				((uint8_t *)c->values)[r] = (uint8_t)(v & 1);
				break;
			case CORE_TYPE_INT32:
			case CORE_TYPE_DATE:
				((int32_t *)c->values)[r] = (int32_t)v;
				break;
			case CORE_TYPE_DECIMAL:
				/* Multiples of 10 often, so scales 2 and 1
				 * share values; within precision 15. */
				if (rnd() % 2)
					v = (int64_t)((uint64_t)v * 10);
				((int64_t *)c->values)[r] = v %
				    1000000000000000ll;
				break;
			case CORE_TYPE_FLOAT64:
				((double *)c->values)[r] = rnd_double();
				break;
			case CORE_TYPE_STRING: {
				size_t len = rnd() % 4, k;

				if (rnd() % 16 == 0)
					len = rnd() % 40;
				core_col_reserve_bytes(c, used, len);
				for (k = 0; k < len; k++)
					((char *)c->values)[used + k] =
					    (char)('a' + rnd() % 3);
				used += len;
				c->offsets[r + 1] = (int32_t)used;
				break;
			}
			default:
				((int64_t *)c->values)[r] = v;
				break;
			}
		}
	}
	b->nrows = n;
}

static const struct core_coltype *
all_types(void)
{
	static struct core_coltype t[8];

	t[0] = ty(CORE_TYPE_BOOL, 0, 0);
	t[1] = ty(CORE_TYPE_INT32, 0, 0);
	t[2] = ty(CORE_TYPE_INT64, 0, 0);
	t[3] = ty(CORE_TYPE_FLOAT64, 0, 0);
	t[4] = ty(CORE_TYPE_DECIMAL, 15, 2);
	t[5] = ty(CORE_TYPE_DATE, 0, 0);
	t[6] = ty(CORE_TYPE_TIMESTAMP, 0, 0);
	t[7] = ty(CORE_TYPE_STRING, 0, 0);
	return t;
}

/* Key sets over all_types(): every single type, each fast path, mixed. */
static const uint32_t keysets[][9] = {
	{ 1, 0 }, { 1, 1 }, { 1, 2 }, { 1, 3 }, { 1, 4 }, { 1, 5 }, { 1, 6 },
	{ 1, 7 }, { 2, 1, 5 }, { 2, 2, 6 }, { 2, 0, 4 }, { 2, 2, 2 },
	{ 2, 1, 7 }, { 2, 7, 7 }, { 2, 3, 2 }, { 2, 3, 3 }, { 3, 1, 2, 5 },
	{ 3, 7, 3, 4 }, { 8, 0, 1, 2, 3, 4, 5, 6, 7 },
};
#define NKEYSETS (sizeof(keysets) / sizeof(keysets[0]))

/* ---- tests ---- */

static void
test_hash_matches_reference(void)
{
	struct core_schema *s = schema_of(all_types(), 8);
	struct core_batch b;
	struct core_hash_keys k;
	uint64_t *h = core_xmalloc(4097 * sizeof(*h));
	uint8_t *nl = core_xmalloc(4097);
	uint32_t *sel = core_xmalloc(4097 * sizeof(*sel));
	size_t li, ki;
	uint32_t i, nbad = 0;
	int usesel, nullfreq;

	core_batch_init(&b, s);
	for (ki = 0; ki < NKEYSETS; ki++) {
		CHECK_EQ_INT(core_hash_keys_init(&k, s, &keysets[ki][1], NULL,
		    keysets[ki][0], NULL), 0);
		for (li = 0; li < NLENS; li++)
		for (usesel = 0; usesel < 2; usesel++)
		for (nullfreq = 0; nullfreq <= 3; nullfreq += 3) {
			uint32_t n = lens[li], nrows = n, got;
			uint32_t wantnull = 0;
			uint64_t seed = rnd();

			if (usesel) {
				nrows = n + 5;
				for (i = 0; i < n; i++)
					sel[i] = (uint32_t)(rnd() % nrows);
			}
			core_batch_reset(&b);
			fill(&b, nrows, (unsigned)nullfreq, 20);
			got = core_hash_batch(&k, &b, usesel ? sel : NULL, n,
			    seed, h, nl);
			for (i = 0; i < n; i++) {
				uint32_t r = usesel ? sel[i] : i;
				bool an;
				uint64_t want = ref_hash(&k, &b, r, seed, &an);

				wantnull += an;
				if (h[i] != want || nl[i] != an)
					nbad++;
			}
			CHECK_EQ_INT(got, wantnull);
			/* The null flags are optional. */
			if (n > 0) {
				uint64_t h0 = h[n - 1];

				core_hash_batch(&k, &b, usesel ? sel : NULL, n,
				    seed, h, NULL);
				CHECK(h[n - 1] == h0);
			}
		}
	}
	CHECK_EQ_INT(nbad, 0);
	core_batch_release(&b);
	core_schema_free(s);
	free(h);
	free(nl);
	free(sel);
}

/* Side a and side b (two source batches) of comparable types with
 * different widths and scales; equality against ref_eq, and equal keys
 * hashing equal. */
static void
test_equal_and_cross_type(void)
{
	struct core_coltype ta[5], tb[5];
	struct core_schema *sa, *sb;
	struct core_batch a, b[2];
	const struct core_batch *srcs[2] = { &b[0], &b[1] };
	static const uint32_t sets[][6] = {
		{ 1, 0 }, { 1, 1 }, { 1, 2 }, { 1, 3 }, { 1, 4 },
		{ 2, 0, 1 }, { 2, 0, 4 }, { 2, 1, 2 }, { 2, 0, 2 },
		{ 5, 0, 1, 2, 3, 4 },
	};
	static const uint8_t common[5] = { 0, 1, 0, 0, 0 };
	uint64_t *ha = core_xmalloc(4100 * 8), *hb[2], *refs;
	uint8_t *eq = core_xmalloc(4097);
	uint32_t *ra = core_xmalloc(4100 * 4);
	size_t si, li;
	uint32_t i, j, nbad = 0, nhash = 0, nequal = 0, nequal_null = 0;
	int ne;

	hb[0] = core_xmalloc(4100 * 8);
	hb[1] = core_xmalloc(4100 * 8);
	refs = core_xmalloc(4100 * 8);
	ta[0] = ty(CORE_TYPE_INT32, 0, 0);
	tb[0] = ty(CORE_TYPE_INT64, 0, 0);
	ta[1] = ty(CORE_TYPE_DECIMAL, 15, 2);
	tb[1] = ty(CORE_TYPE_DECIMAL, 12, 1);
	ta[2] = ty(CORE_TYPE_STRING, 0, 0);
	tb[2] = ty(CORE_TYPE_STRING, 0, 0);
	ta[3] = ty(CORE_TYPE_FLOAT64, 0, 0);
	tb[3] = ty(CORE_TYPE_FLOAT64, 0, 0);
	ta[4] = ty(CORE_TYPE_DATE, 0, 0);
	tb[4] = ty(CORE_TYPE_DECIMAL, 18, 3);
	sa = schema_of(ta, 5);
	sb = schema_of(tb, 5);
	core_batch_init(&a, sa);
	core_batch_init(&b[0], sb);
	core_batch_init(&b[1], sb);
	for (si = 0; si < sizeof(sets) / sizeof(sets[0]); si++) {
		struct core_hash_keys ka, kb;
		uint8_t sc[5];

		for (j = 0; j < sets[si][0]; j++)
			sc[j] = common[sets[si][1 + j]];
		CHECK_EQ_INT(core_hash_keys_init(&ka, sa, &sets[si][1], sc,
		    sets[si][0], NULL), 0);
		CHECK_EQ_INT(core_hash_keys_init(&kb, sb, &sets[si][1], sc,
		    sets[si][0], NULL), 0);
		CHECK(core_hash_keys_comparable(&ka, &kb));
		for (li = 0; li < NLENS; li++)
		for (ne = 0; ne < 2; ne++) {
			uint32_t n = lens[li], nb0 = n / 2 + 1, nb1 = n + 1;
			uint64_t seed = rnd();

			core_batch_reset(&a);
			core_batch_reset(&b[0]);
			core_batch_reset(&b[1]);
			fill(&a, n + 3, 5, 6);
			fill(&b[0], nb0, 5, 6);
			fill(&b[1], nb1, 5, 6);
			/* Where b's date-decimal(18,3) column is to meet
			 * a's date, it holds whole numbers often. */
			for (i = 0; i < nb1; i++)
				if (rnd() % 2 && i < nb0)
					((int64_t *)b[0].cols[4].values)[i] *=
					    1000;
			for (i = 0; i < n; i++) {
				uint32_t s = (uint32_t)(rnd() % 2);

				ra[i] = (uint32_t)(rnd() % (n + 3));
				refs[i] = (uint64_t)s << 32 |
				    (rnd() % (s ? nb1 : nb0));
			}
			core_hash_equal(&ka, &a, ra, &kb, srcs, refs, n, ne,
			    eq);
			core_hash_batch(&ka, &a, NULL, n + 3, seed, ha, NULL);
			core_hash_batch(&kb, &b[0], NULL, nb0, seed, hb[0],
			    NULL);
			core_hash_batch(&kb, &b[1], NULL, nb1, seed, hb[1],
			    NULL);
			for (i = 0; i < n; i++) {
				uint32_t s = (uint32_t)(refs[i] >> 32);
				uint32_t r = (uint32_t)refs[i];
				bool want = ref_eq(&ka, &a, ra[i], &kb, &b[s],
				    r, ne);

				if (eq[i] != want)
					nbad++;
				if (want && ha[ra[i]] != hb[s][r])
					nhash++;
				nequal += want && !ne;
				nequal_null += want && ne;
			}
		}
	}
	CHECK_EQ_INT(nbad, 0);
	CHECK_EQ_INT(nhash, 0);
	/* The domains were small enough for the test to mean something. */
	CHECK(nequal > 1000);
	CHECK(nequal_null > nequal);
	core_batch_release(&a);
	core_batch_release(&b[0]);
	core_batch_release(&b[1]);
	core_schema_free(sa);
	core_schema_free(sb);
	free(ha);
	free(hb[0]);
	free(hb[1]);
	free(refs);
	free(eq);
	free(ra);
}

/* One value per row in every integer-like column (and its pairs): the
 * hash is the same whichever columns, hence loaders, computed it. */
static void
test_fast_paths_agree(void)
{
	struct core_coltype t[7];
	struct core_schema *s;
	struct core_batch b;
	static const uint32_t singles[] = { 0, 1, 2, 3, 4, 5 };
	static const uint32_t pairs[][2] = {
		{ 0, 0 }, { 1, 1 }, { 0, 1 }, { 2, 3 }, { 4, 0 }, { 5, 2 },
	};
	static const uint8_t sc0[2] = { 0, 0 };
	uint64_t *h0 = core_xmalloc(4100 * 8), *h1 = core_xmalloc(4100 * 8);
	uint32_t *sel = core_xmalloc(4100 * 4);
	uint32_t i, n = 4097, nbad = 0;
	size_t x;
	int wide;

	t[0] = ty(CORE_TYPE_INT32, 0, 0);
	t[1] = ty(CORE_TYPE_INT64, 0, 0);
	t[2] = ty(CORE_TYPE_DATE, 0, 0);
	t[3] = ty(CORE_TYPE_TIMESTAMP, 0, 0);
	t[4] = ty(CORE_TYPE_DECIMAL, 15, 2);
	t[5] = ty(CORE_TYPE_DECIMAL, 9, 0);
	t[6] = ty(CORE_TYPE_BOOL, 0, 0);
	s = schema_of(t, 7);
	core_batch_init(&b, s);
	for (wide = 0; wide < 2; wide++) {
		core_batch_reset(&b);
		fill(&b, n, 7, 1000);
		for (i = 0; i < n; i++) {
			int32_t v = (int32_t)((int64_t)(rnd() % 2001) - 1000);
			bool null = b.cols[0].validity != NULL &&
			    !core_col_is_valid(&b.cols[0], i);
			uint32_t c;

			if (rnd() % 5 == 0)
				v = (int32_t)rnd();
			((int32_t *)b.cols[0].values)[i] = v;
			((int64_t *)b.cols[1].values)[i] = v;
			((int32_t *)b.cols[2].values)[i] = v;
			((int64_t *)b.cols[3].values)[i] = v;
			((int64_t *)b.cols[4].values)[i] = (int64_t)v * 100 +
			    (int64_t)(rnd() % 100) * (v >= 0 ? 1 : -1);
			((int64_t *)b.cols[5].values)[i] = v;
			((uint8_t *)b.cols[6].values)[i] = (uint8_t)(v & 1);
			/* The same NULLs in every column. */
			for (c = 1; c < 7; c++) {
				if (null)
					core_col_set_null(&b.cols[c], i, n);
				else if (b.cols[c].validity != NULL)
					b.cols[c].validity[i / 8] |=
					    (uint8_t)(1u << i % 8);
			}
		}
		for (i = 0; i < n; i++)
			sel[i] = n - 1 - i;
		for (x = 0; x < 6; x++) {
			struct core_hash_keys k;

			core_hash_keys_init(&k, s, &singles[x], sc0, 1, NULL);
			core_hash_batch(&k, &b, NULL, n, 7, x ? h1 : h0, NULL);
			for (i = 0; x > 0 && i < n; i++)
				nbad += h0[i] != h1[i];
			/* A selection changes which rows, not their
			 * hashes. */
			core_hash_batch(&k, &b, sel, n, 7, h1, NULL);
			for (i = 0; i < n; i++)
				nbad += h0[n - 1 - i] != h1[i];
		}
		for (x = 0; x < 6; x++) {
			struct core_hash_keys k;

			core_hash_keys_init(&k, s, pairs[x], sc0, 2, NULL);
			core_hash_batch(&k, &b, NULL, n, 7, x ? h1 : h0, NULL);
			for (i = 0; x > 0 && i < n; i++)
				nbad += h0[i] != h1[i];
		}
	}
	CHECK_EQ_INT(nbad, 0);
	/* Bool 1 is int 1. */
	{
		struct core_hash_keys kb, ki;
		uint32_t cb = 6, ci = 1;
		uint64_t hb1, hi1;

		core_batch_reset(&b);
		fill(&b, 1, 0, 0);
		((uint8_t *)b.cols[6].values)[0] = 1;
		((int64_t *)b.cols[1].values)[0] = 1;
		core_hash_keys_init(&kb, s, &cb, NULL, 1, NULL);
		core_hash_keys_init(&ki, s, &ci, NULL, 1, NULL);
		core_hash_batch(&kb, &b, NULL, 1, 0, &hb1, NULL);
		core_hash_batch(&ki, &b, NULL, 1, 0, &hi1, NULL);
		CHECK(hb1 == hi1);
	}
	core_batch_release(&b);
	core_schema_free(s);
	free(h0);
	free(h1);
	free(sel);
}

/* Rows of one float column and of two string columns, spelled out. */
static void
test_special_values(void)
{
	struct core_coltype t[3] = {
		ty(CORE_TYPE_FLOAT64, 0, 0), ty(CORE_TYPE_STRING, 0, 0),
		ty(CORE_TYPE_STRING, 0, 0),
	};
	struct core_schema *s = schema_of(t, 3);
	struct core_batch b;
	struct core_hash_keys kf, ks;
	const struct core_batch *srcs[1] = { &b };
	static const uint32_t cf = 0, cs[2] = { 1, 2 };
	static const char *s1[] = { "a", "ab", "", "", "x", "" };
	static const char *s2[] = { "bc", "c", "", "", "", "x" };
	uint64_t nan1 = 0x7ff8000000000000ull, nan2 = 0xfff0000000000123ull;
	double d[6] = { 0.0, -0.0, 0, 0, 1.0, 1.0 };
	uint64_t h[6], hs[6], refs[6];
	uint32_t rows[6], i;
	uint8_t nl[6], eq[6];
	size_t used[2] = { 0, 0 };

	memcpy(&d[2], &nan1, 8);
	memcpy(&d[3], &nan2, 8);
	core_batch_init(&b, s);
	core_batch_reserve(&b, 6, 16);
	for (i = 0; i < 6; i++) {
		uint32_t c;

		((double *)b.cols[0].values)[i] = d[i];
		for (c = 0; c < 2; c++) {
			const char *v = c ? s2[i] : s1[i];
			size_t len = strlen(v);

			core_col_reserve_bytes(&b.cols[1 + c], used[c], len);
			memcpy((char *)b.cols[1 + c].values + used[c], v, len);
			used[c] += len;
			b.cols[1 + c].offsets[i + 1] = (int32_t)used[c];
		}
	}
	b.nrows = 6;
	/* Row 5 of the float column NULL (its slot holds 1.0). */
	core_col_set_null(&b.cols[0], 5, 6);
	/* Row 3 of the strings: NULL, "" where row 2 is "", "". */
	core_col_set_null(&b.cols[1], 3, 6);
	core_hash_keys_init(&kf, s, &cf, NULL, 1, NULL);
	core_hash_keys_init(&ks, s, cs, NULL, 2, NULL);
	core_hash_batch(&kf, &b, NULL, 6, 42, h, nl);
	CHECK(h[0] == h[1]);		/* -0 and +0 */
	CHECK(h[2] == h[3]);		/* two NaNs */
	CHECK(h[0] != h[2]);
	CHECK(h[4] != h[5]);		/* 1.0 and NULL */
	CHECK_EQ_INT(nl[5], 1);
	CHECK_EQ_INT(nl[4], 0);
	for (i = 0; i < 6; i++)
		rows[i] = i;
	refs[0] = 1;
	refs[1] = 0;
	refs[2] = 3;
	refs[3] = 2;
	refs[4] = 5;
	refs[5] = 4;
	core_hash_equal(&kf, &b, rows, &kf, srcs, refs, 6, true, eq);
	CHECK(eq[0] && eq[1] && eq[2] && eq[3] && !eq[4] && !eq[5]);
	core_hash_batch(&ks, &b, NULL, 6, 42, hs, nl);
	CHECK(hs[0] != hs[1]);		/* "a","bc" and "ab","c" */
	CHECK(hs[2] != hs[3]);		/* "","" and NULL,"" */
	CHECK(hs[4] != hs[5]);		/* "x","" and "","x" */
	CHECK_EQ_INT(nl[3], 1);
	refs[0] = 1;
	refs[2] = 3;
	refs[4] = 5;
	core_hash_equal(&ks, &b, rows, &ks, srcs, refs, 6, true, eq);
	CHECK(!eq[0] && !eq[2] && !eq[4]);
	refs[0] = 0;
	refs[2] = 2;
	refs[3] = 3;
	core_hash_equal(&ks, &b, rows, &ks, srcs, refs, 4, true, eq);
	CHECK(eq[0] && eq[2] && eq[3]);	/* NULLs equal when grouping */
	core_hash_equal(&ks, &b, rows, &ks, srcs, refs, 4, false, eq);
	CHECK(eq[0] && eq[2] && !eq[3]);	/* NULL matches nothing */
	/* Another seed, other hashes. */
	core_hash_batch(&ks, &b, NULL, 1, 43, h, NULL);
	CHECK(h[0] != hs[0]);
	core_batch_release(&b);
	core_schema_free(s);
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Collisions among n hashes, and the fullest of 4096 buckets taken from
 * the low bits. */
static void
count_collisions(uint64_t *h, uint32_t n, uint32_t *coll, uint32_t *maxb)
{
	static uint32_t bucket[4096];
	uint32_t i;

	memset(bucket, 0, sizeof(bucket));
	*maxb = 0;
	for (i = 0; i < n; i++)
		if (++bucket[h[i] & 4095] > *maxb)
			*maxb = bucket[h[i] & 4095];
	qsort(h, n, sizeof(*h), cmp_u64);
	*coll = 0;
	for (i = 1; i < n; i++)
		*coll += h[i] == h[i - 1];
}

static void
test_collisions(void)
{
	enum { N = 1 << 17 };
	struct core_coltype t[3] = {
		ty(CORE_TYPE_INT64, 0, 0), ty(CORE_TYPE_INT32, 0, 0),
		ty(CORE_TYPE_STRING, 0, 0),
	};
	struct core_schema *s = schema_of(t, 3);
	struct core_batch b;
	struct core_hash_keys k;
	static const uint32_t c0 = 0, c01[2] = { 0, 1 }, c2 = 2, c12[2] = {
		1, 2 };
	uint64_t *h = core_xmalloc(N * sizeof(*h));
	uint32_t i, coll, maxb;
	size_t used = 0;

	core_batch_init(&b, s);
	core_batch_reserve(&b, N, (size_t)N * 8);
	/* Distinct keys with structure: sequential integers, pairs in a
	 * grid, strings that are decimal numbers. */
	for (i = 0; i < N; i++) {
		char tmp[16];
		int len = snprintf(tmp, sizeof(tmp), "%u", i * 7);

		((int64_t *)b.cols[0].values)[i] = i;
		((int32_t *)b.cols[1].values)[i] = (int32_t)(i % 512);
		memcpy((char *)b.cols[2].values + used, tmp, (size_t)len);
		used += (size_t)len;
		b.cols[2].offsets[i + 1] = (int32_t)used;
	}
	b.nrows = N;
	/* Mean bucket 32: the fullest stays within a few times that. */
	core_hash_keys_init(&k, s, &c0, NULL, 1, NULL);
	core_hash_batch(&k, &b, NULL, N, 1, h, NULL);
	count_collisions(h, N, &coll, &maxb);
	CHECK_EQ_INT(coll, 0);
	CHECK(maxb < 80);
	for (i = 0; i < N; i++)
		((int64_t *)b.cols[0].values)[i] = i / 512;
	core_hash_keys_init(&k, s, c01, NULL, 2, NULL);
	core_hash_batch(&k, &b, NULL, N, 1, h, NULL);
	count_collisions(h, N, &coll, &maxb);
	CHECK_EQ_INT(coll, 0);
	CHECK(maxb < 80);
	for (i = 0; i < N; i++)	/* the wide pair path */
		((int64_t *)b.cols[0].values)[i] = (int64_t)(i / 512) << 40;
	core_hash_batch(&k, &b, NULL, N, 1, h, NULL);
	count_collisions(h, N, &coll, &maxb);
	CHECK(coll <= 1);
	CHECK(maxb < 80);
	core_hash_keys_init(&k, s, &c2, NULL, 1, NULL);
	core_hash_batch(&k, &b, NULL, N, 1, h, NULL);
	count_collisions(h, N, &coll, &maxb);
	CHECK(coll <= 1);
	CHECK(maxb < 80);
	core_hash_keys_init(&k, s, c12, NULL, 2, NULL);
	core_hash_batch(&k, &b, NULL, N, 1, h, NULL);
	count_collisions(h, N, &coll, &maxb);
	CHECK(coll <= 1);
	CHECK(maxb < 80);
	core_batch_release(&b);
	core_schema_free(s);
	free(h);
}

/*
 * core_hash_batch_exact: the exact flag as core_hash.h defines it (no
 * NULL; one integer-like or float64 key, or two integer-like keys within
 * int32; no truncated scale), and its promise checked pair by pair
 * against ref_eq under NULLs equal: two exact rows hash equal exactly
 * when their keys are equal, and an exact row's key equals no key of a
 * row that is not.  Values near the edges: int32's bounds on both sides
 * and an int64 whose bits are the NULL marker's.
 */
static void
test_exact(void)
{
	enum { N = 700 };
	struct core_schema *s = schema_of(all_types(), 8);
	struct core_batch b;
	struct core_hash_keys k;
	uint64_t *h = core_xmalloc(N * sizeof(*h));
	uint8_t *ex = core_xmalloc(N), *nl = core_xmalloc(N);
	static const int64_t edge[] = {
		INT32_MAX, (int64_t)INT32_MAX + 1, INT32_MIN,
		(int64_t)INT32_MIN - 1, (int64_t)0x9e3779b97f4a7c15ull, 0,
	};
	static const uint8_t scale1[2] = { 1, 1 };
	size_t ki, e;
	uint32_t i, j, nbad = 0, nflag = 0, nexact = 0, npair = 0;

	core_batch_init(&b, s);
	for (ki = 0; ki < NKEYSETS; ki++) {
		const uint32_t *cols = &keysets[ki][1];
		uint32_t nk = keysets[ki][0], c, kind;
		bool can;

		CHECK_EQ_INT(core_hash_keys_init(&k, s, cols, NULL, nk, NULL),
		    0);
		core_batch_reset(&b);
		fill(&b, N, 5, 3);
		/* Edge values in the integer columns, now and then. */
		for (c = 1; c < 8; c++)
			if (c == 2 || c == 6)
				for (i = 0; i < N; i += 7) {
					e = (i / 7) % (sizeof(edge) /
					    sizeof(edge[0]));
					((int64_t *)b.cols[c].values)[i] =
					    edge[e];
				}
		core_hash_batch_exact(&k, &b, NULL, N, 7, h, nl, ex);
		kind = 0;
		for (c = 0; c < nk; c++)
			kind |= 1u << (cols[c] == 3 ? 1 : cols[c] == 7 ? 2 : 0);
		can = (nk == 1 && kind != 4) || (nk == 2 && kind == 1);
		for (i = 0; i < N; i++) {
			bool want = can && !nl[i];
			uint64_t w;

			/* Short strings, one or two. */
			if (kind == 4 && nk <= 2 && !nl[i])
				want = ref_short_str(&k, &b, i, &w);
			if (want && nk == 2 && kind == 1)
				for (c = 0; c < 2; c++) {
					const unsigned char *p;
					unsigned char tmp[8];
					int64_t v;

					(void)ref_canon(&k, c, &b, i, &p, tmp);
					memcpy(&v, p, 8);
					want = want && v >= INT32_MIN &&
					    v <= INT32_MAX;
				}
			nflag += ex[i] != want;
			nexact += ex[i];
		}
		for (i = 0; i < N; i++)
			for (j = i + 1; j < N; j++) {
				bool eq;

				if (!ex[i] && !ex[j])
					continue;
				eq = ref_eq(&k, &b, i, &k, &b, j, true);
				npair++;
				if (ex[i] && ex[j])
					nbad += (h[i] == h[j]) != eq;
				else
					nbad += eq;
			}
	}
	CHECK_EQ_INT(nflag, 0);
	CHECK_EQ_INT(nbad, 0);
	CHECK(nexact > N);
	CHECK(npair > 0);
	/* A decimal hashed at a smaller scale than its own: none exact. */
	{
		static const uint32_t c44[2] = { 4, 4 };

		CHECK_EQ_INT(core_hash_keys_init(&k, s, c44, scale1, 1, NULL),
		    0);
		core_hash_batch_exact(&k, &b, NULL, N, 7, h, NULL, ex);
		for (i = 0, j = 0; i < N; i++)
			j += ex[i];
		CHECK_EQ_INT(j, 0);
	}
	core_batch_release(&b);
	core_schema_free(s);
	free(h);
	free(ex);
	free(nl);
}

static void
test_keys_init_errors(void)
{
	struct core_schema *s = schema_of(all_types(), 8);
	struct core_hash_keys k, k2;
	struct core_err err;
	static const uint32_t c4 = 4, c9 = 9, c1 = 1, c3 = 3;
	static const uint8_t sc3 = 3, sc1 = 1;

	core_err_clear(&err);
	CHECK_EQ_INT(core_hash_keys_init(&k, s, &c4, NULL, 0, &err),
	    CORE_EUSAGE);
	CHECK_EQ_INT(core_hash_keys_init(&k, s, &c9, NULL, 1, &err),
	    CORE_EUSAGE);
	CHECK_EQ_INT(core_hash_keys_init(&k, s, &c4, &sc3, 1, &err),
	    CORE_EUSAGE);
	CHECK(strstr(err.msg, "scale") != NULL);
	CHECK_EQ_INT(core_hash_keys_init(&k, s, &c4, &sc1, 1, &err), 0);
	CHECK_EQ_INT(core_hash_keys_init(&k2, s, &c1, NULL, 1, &err), 0);
	CHECK(!core_hash_keys_comparable(&k, &k2));	/* scale 1 and 0 */
	CHECK_EQ_INT(core_hash_keys_init(&k2, s, &c3, NULL, 1, &err), 0);
	CHECK(!core_hash_keys_comparable(&k, &k2));	/* int and float */
	core_schema_free(s);
}

/*
 * decimal(p > 18) keys, alone and beside an int32: rows of a small
 * domain of 128-bit values (some past 64 bits, either sign) with NULLs
 * whose slots hold garbage, hashed whole and through a selection.
 * Against a reference equality (the numbers, NULLs equal or not):
 * core_hash_equal agrees on every pair of a sample, equal keys hash
 * equal, and distinct ones rarely collide.  Two schemas of one scale and
 * other precisions are comparable; a common scale other than the key's
 * own is refused.
 */
#define WROWS 4097u
static void
test_wide_keys(void)
{
	struct core_schema *s = core_schema_new(2), *s2 = core_schema_new(1);
	struct core_batch b;
	struct core_hash_keys k1, k2, kw;
	struct core_err err;
	uint64_t *h = core_xcalloc(WROWS, sizeof(*h));
	uint64_t *hs = core_xcalloc(WROWS, sizeof(*hs));
	uint32_t *sel = core_xcalloc(WROWS, sizeof(*sel));
	uint64_t *refs = core_xcalloc(WROWS, sizeof(*refs));
	uint32_t *ra = core_xcalloc(WROWS, sizeof(*ra));
	uint8_t *eq = core_xcalloc(WROWS, 1), *nul = core_xcalloc(WROWS, 1);
	__int128 *v = core_xcalloc(WROWS, sizeof(*v));
	int32_t *iv;
	const struct core_batch *src[1];
	static const uint32_t c0 = 0, c01[2] = { 0, 1 };
	static const uint8_t sc1 = 1;
	uint32_t r, i, nk, collide = 0, bad = 0, badh = 0, distinct = 0;

	core_schema_set(s, 0, "w", core_type_decimal(30, 2));
	core_schema_set(s, 1, "i", (struct core_coltype){ CORE_TYPE_INT32,
	    0, 0 });
	core_schema_set(s2, 0, "w", core_type_decimal(38, 2));
	core_batch_init(&b, s);
	core_batch_reserve(&b, WROWS, 0);
	iv = b.cols[1].values;
	for (r = 0; r < WROWS; r++) {
		__int128 x = (__int128)(unit_rand() % 40) - 20;

		if (unit_rand() % 2)
			x = x * ((__int128)1 << 70) + 3;
		v[r] = x;
		if (unit_rand() % 9 == 0) {
			/* Garbage in a NULL slot. */
			x = (__int128)((unsigned __int128)unit_rand() << 64 |
			    unit_rand());
			core_col_set_null(&b.cols[0], r, WROWS);
			nul[r] = 1;
		}
		core_i128_store((char *)b.cols[0].values + 16 * (size_t)r, x);
		iv[r] = (int32_t)(unit_rand() % 2);
		sel[r] = WROWS - 1 - r;
	}
	b.nrows = WROWS;
	src[0] = &b;
	core_err_clear(&err);
	CHECK_EQ_INT(core_hash_keys_init(&kw, s2, &c0, NULL, 1, &err), 0);
	CHECK_EQ_INT(core_hash_keys_init(&k2, s, c01, NULL, 2, &err), 0);
	CHECK_EQ_INT(core_hash_keys_init(&k1, s, &c0, &sc1, 1, &err),
	    CORE_EUSAGE);
	CHECK(strstr(err.msg, "own scale 2") != NULL);
	CHECK_EQ_INT(core_hash_keys_init(&k1, s, &c0, NULL, 1, &err), 0);
	CHECK(core_hash_keys_comparable(&k1, &kw));
	for (nk = 1; nk <= 2; nk++) {
		const struct core_hash_keys *k = nk == 1 ? &k1 : &k2;
		uint8_t *nn = core_xcalloc(WROWS, 1);

		uint32_t nnul = 0;

		for (r = 0; r < WROWS; r++)
			nnul += nul[r];
		CHECK_EQ_INT((int)core_hash_batch(k, &b, NULL, WROWS, 7, h,
		    nn), (int)nnul);
		core_hash_batch(k, &b, sel, WROWS, 7, hs, NULL);
		for (r = 0; r < WROWS; r++) {
			badh += hs[r] != h[sel[r]];
			bad += nn[r] != nul[r];
		}
		free(nn);
		/* Pairs (r, r * 7 + 1 mod n), and each row with itself. */
		for (i = 0; i < 2; i++) {
			for (r = 0; r < WROWS; r++) {
				ra[r] = r;
				refs[r] = i ? r : (r * 7 + 1) % WROWS;
			}
			core_hash_equal(k, &b, ra, k, src, refs, WROWS, i == 0,
			    eq);
			for (r = 0; r < WROWS; r++) {
				uint32_t q = (uint32_t)refs[r];
				bool same = nul[r] || nul[q] ? (i == 0 &&
				    nul[r] && nul[q]) : v[r] == v[q];

				if (nk == 2)
					same = same && iv[r] == iv[q];
				bad += eq[r] != same;
				if (i == 0 && same)
					badh += h[r] != h[q];
				if (i == 0 && !same) {
					distinct++;
					collide += h[r] == h[q];
				}
			}
		}
	}
	CHECK_EQ_INT((int)bad, 0);
	CHECK_EQ_INT((int)badh, 0);
	CHECK(distinct > WROWS);
	CHECK(collide <= 1);
	core_batch_release(&b);
	core_schema_free(s);
	core_schema_free(s2);
	free(h);
	free(hs);
	free(sel);
	free(refs);
	free(ra);
	free(eq);
	free(nul);
	free(v);
}

int
main(void)
{
	RUN(test_hash_matches_reference);
	RUN(test_equal_and_cross_type);
	RUN(test_fast_paths_agree);
	RUN(test_special_values);
	RUN(test_collisions);
	RUN(test_exact);
	RUN(test_keys_init_errors);
	RUN(test_wide_keys);
	return unit_done();
}
