/*
 * core_hash.c - key hashing and key equality a batch at a time.
 *
 * The hash is a function of the key's values (after the canonical forms
 * below), of which keys are NULL and of the seed; the kinds of the keys
 * choose the function, so an int32 and an int64 key with equal values
 * hash equal however they are stored.  The functions (s is the seed
 * mixed once, K_NULL marks a NULL key, whose value reads as 0 or empty):
 *   one integer key v:     mix(v ^ s ^ null*K_NULL)
 *   one float key:         the same on its canonical bits
 *   two integer keys a, b: both within int32: mix(a:b packed ^ s ^ ...),
 *                          an exact word, so distinct pairs never collide;
 *                          else a mix of the two 64-bit words
 *   one string key of at most 7 bytes, or two of at most 3 each, no
 *   NULL:                  mix(w ^ s ^ K_STR), w the strings' lengths
 *                          and bytes packed into one exact word (see
 *                          load_str_word); longer ones and NULLs as
 *                          anything else
 *   anything else:         h = s, then per key h = XXH3(bytes, len,
 *                          h ^ null*K_NULL): each key hashed on its own
 *                          with its length, so "a","bc" and "ab","c"
 *                          differ; a decimal(p > 18) hashes its 16
 *                          bytes (0 where NULL), so it is a key of its
 *                          own kind, at its own scale: equal numbers are
 *                          equal integers there, and equal bytes
 * Canonical forms: an integer-like value is its number times 10^scale at
 * the common scale, truncated (a division by a constant only when the
 * scales differ); a float64 folds -0 into +0 and every NaN into one NaN.
 * The byte encodings are native-endian: hashes are for this process (and
 * its spill files), not for files read elsewhere.
 *
 * Work goes a chunk of rows at a time through stack arrays (values
 * loaded with the type switch outside the loop, then mixed), so nothing
 * is allocated and the loops carry no per-row dispatch.  The workload is
 * a join or aggregation hashing every input batch: a few key columns,
 * batches of a few thousand rows.
 */
#include <math.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "core_debug.h"
#include "core_hash.h"

enum {
	PATH_INT1 = 1,
	PATH_INT2 = 2,
	PATH_FLOAT1 = 3,
	PATH_CHAIN = 4,
	PATH_STR1 = 5,
	PATH_STR2 = 6,
};

/* Strings short enough to be their own hash word: one key of at most
 * STR1_MAX bytes, two of at most STR2_MAX each. */
#define STR1_MAX 7
#define STR2_MAX 3

#define CHUNK 256
#define K_NULL 0x9e3779b97f4a7c15ull
#define K_WIDE 0xc2b2ae3d27d4eb4full
#define K_SEED 0x165667b19e3779f9ull
#define K_STR 0x27d4eb2f165667c5ull

static inline uint64_t
mix64(uint64_t x)
{
	/* A bijection (each step is invertible), so distinct single keys
	 * never collide; the finaliser of SplitMix64's published
	 * constants. */
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

static inline uint64_t
rotl64(uint64_t x, int r)
{
	return x << r | x >> (64 - r);
}

static inline uint64_t
f64_canon(double d)
{
	uint64_t u;

	d += 0.0;	/* -0 + +0 is +0 in the default rounding mode */
	memcpy(&u, &d, sizeof(u));
	return d != d ? 0x7ff8000000000000ull : u;
}

static const int64_t pow10_tab[19] = {
	1ll, 10ll, 100ll, 1000ll, 10000ll, 100000ll, 1000000ll, 10000000ll,
	100000000ll, 1000000000ll, 10000000000ll, 100000000000ll,
	1000000000000ll, 10000000000000ll, 100000000000000ll,
	1000000000000000ll, 10000000000000000ll, 100000000000000000ll,
	1000000000000000000ll,
};

static bool
is_int_type(enum core_type t)
{
	return t == CORE_TYPE_BOOL || t == CORE_TYPE_INT32 ||
	    t == CORE_TYPE_INT64 || t == CORE_TYPE_DECIMAL ||
	    t == CORE_TYPE_DATE || t == CORE_TYPE_TIMESTAMP;
}

int
core_hash_keys_init(struct core_hash_keys *k,
    const struct core_schema *schema, const uint32_t *cols,
    const uint8_t *scales, uint32_t nkeys, struct core_err *err)
{
	uint32_t i, nint = 0, nfloat = 0;

	memset(k, 0, sizeof(*k));
	if (nkeys == 0 || nkeys > CORE_HASH_MAX_KEYS)
		return core_err_set(err, CORE_EUSAGE, "%u key columns (1 to "
		    "%d)", nkeys, CORE_HASH_MAX_KEYS);
	for (i = 0; i < nkeys; i++) {
		struct core_coltype t;

		if (cols[i] >= schema->ncols)
			return core_err_set(err, CORE_EUSAGE, "key column %u "
			    "of %u", cols[i], schema->ncols);
		t = schema->fields[cols[i]].type;
		k->col[i] = cols[i];
		k->type[i] = (uint8_t)t.id;
		k->own_scale[i] = t.id == CORE_TYPE_DECIMAL ||
		    t.id == CORE_TYPE_DECIMAL128 ? t.scale : 0;
		k->scale[i] = scales != NULL ? scales[i] : k->own_scale[i];
		if (t.id == CORE_TYPE_DECIMAL128 &&
		    k->scale[i] != k->own_scale[i])
			return core_err_set(err, CORE_EUSAGE, "key column '%s':"
			    " a decimal of more than 18 digits is hashed at "
			    "its own scale %u, not %u",
			    schema->fields[cols[i]].name, k->own_scale[i],
			    k->scale[i]);
		if (k->scale[i] > k->own_scale[i])
			return core_err_set(err, CORE_EUSAGE, "key column '%s':"
			    " common scale %u above its own %u",
			    schema->fields[cols[i]].name, k->scale[i],
			    k->own_scale[i]);
		k->div[i] = pow10_tab[k->own_scale[i] - k->scale[i]];
		if (is_int_type(t.id)) {
			k->kind[i] = CORE_HASH_KIND_INT;
			nint++;
		} else if (t.id == CORE_TYPE_FLOAT64) {
			k->kind[i] = CORE_HASH_KIND_FLOAT;
			nfloat++;
		} else if (t.id == CORE_TYPE_DECIMAL128) {
			k->kind[i] = CORE_HASH_KIND_WIDE;
		} else {
			k->kind[i] = CORE_HASH_KIND_STRING;
		}
	}
	k->nkeys = nkeys;
	if (nkeys == 1 && nint == 1)
		k->path = PATH_INT1;
	else if (nkeys == 2 && nint == 2)
		k->path = PATH_INT2;
	else if (nkeys == 1 && nfloat == 1)
		k->path = PATH_FLOAT1;
	else if (nkeys == 1 && k->kind[0] == CORE_HASH_KIND_STRING)
		k->path = PATH_STR1;
	else if (nkeys == 2 && k->kind[0] == CORE_HASH_KIND_STRING &&
	    k->kind[1] == CORE_HASH_KIND_STRING)
		k->path = PATH_STR2;
	else
		k->path = PATH_CHAIN;
	return 0;
}

bool
core_hash_keys_comparable(const struct core_hash_keys *a,
    const struct core_hash_keys *b)
{
	uint32_t i;

	if (a->nkeys != b->nkeys)
		return false;
	for (i = 0; i < a->nkeys; i++)
		if (a->kind[i] != b->kind[i] || a->scale[i] != b->scale[i])
			return false;
	CORE_DCHECK(a->path == b->path);
	return true;
}

/*
 * The loaders read m rows of a column: rows[0..m), or base..base+m when
 * rows is NULL (a batch hashed whole, where the loops then vectorise
 * instead of gathering).
 */
#define FOR_ROWS(body) do {						\
	if (rows != NULL) {						\
		for (i = 0; i < m; i++) {				\
			uint32_t r_ = rows[i];				\
			body;						\
		}							\
	} else {							\
		for (i = 0; i < m; i++) {				\
			uint32_t r_ = base + i;				\
			body;						\
		}							\
	}								\
} while (0)

/* ok[i] = the row is valid. */
static void
load_valid(const struct core_column *c, uint32_t base, const uint32_t *rows,
    uint32_t m, uint8_t *ok)
{
	const uint8_t *vb = c->validity;
	uint32_t i;

	if (vb == NULL) {
		memset(ok, 1, m);
		return;
	}
	FOR_ROWS(ok[i] = (uint8_t)(vb[r_ >> 3] >> (r_ & 7) & 1));
}

/* v[i] = the raw integer of the row (NULL slots as stored). */
static void
load_int(const struct core_column *c, enum core_type t, uint32_t base,
    const uint32_t *rows, uint32_t m, int64_t *v)
{
	uint32_t i;

	switch (t) {
	case CORE_TYPE_BOOL: {
		const uint8_t *p = c->values;

		FOR_ROWS(v[i] = p[r_]);
		break;
	}
	case CORE_TYPE_INT32:
	case CORE_TYPE_DATE: {
		const int32_t *p = c->values;

		FOR_ROWS(v[i] = p[r_]);
		break;
	}
	default: {
		const int64_t *p = c->values;

		FOR_ROWS(v[i] = p[r_]);
		break;
	}
	}
}

/* The canonical integers of key j: at the common scale, 0 where NULL. */
static void
load_int_canon(const struct core_hash_keys *k, uint32_t j,
    const struct core_column *c, uint32_t base, const uint32_t *rows,
    uint32_t m, const uint8_t *ok, int64_t *v)
{
	int64_t d = k->div[j];
	uint32_t i;

	load_int(c, (enum core_type)k->type[j], base, rows, m, v);
	if (d != 1)
		for (i = 0; i < m; i++)
			v[i] /= d;
	if (c->validity != NULL)
		for (i = 0; i < m; i++)
			v[i] &= -(int64_t)ok[i];
}

static void
load_f64_canon(const struct core_column *c, uint32_t base,
    const uint32_t *rows, uint32_t m, const uint8_t *ok, uint64_t *u)
{
	const double *p = c->values;
	uint32_t i;

	FOR_ROWS(u[i] = f64_canon(p[r_]) & -(uint64_t)ok[i]);
}

/*
 * w[i] = the string of the row as a word when it is at most max bytes
 * and valid: its length in the low `shift` bits, its bytes above (max
 * and shift such that they fit 64 bits), and short[i] = 1; else
 * short[i] = 0 (w[i] then 0).  Distinct short strings give distinct
 * words.
 */
static void
load_str_word(const struct core_column *c, uint32_t base,
    const uint32_t *rows, uint32_t m, const uint8_t *ok, uint32_t max,
    unsigned shift, uint64_t *w, uint8_t *shrt)
{
	const unsigned char *bytes = c->values;
	const int32_t *off = c->offsets;
	uint32_t i;

	FOR_ROWS({
		uint32_t len = (uint32_t)(off[r_ + 1] - off[r_]);
		const unsigned char *q = bytes + off[r_];
		uint64_t v = 0;
		bool fit = ok[i] && len <= max;

		for (uint32_t t = 0; fit && t < len; t++)
			v |= (uint64_t)q[t] << (8 * t);
		w[i] = fit ? (uint64_t)len | v << shift : 0;
		shrt[i] = (uint8_t)fit;
	});
}

/* One chunk of the key-after-key path: h[0..m) from s. */
static void
hash_chain(const struct core_hash_keys *k, const struct core_batch *b,
    uint32_t base, const uint32_t *rows, uint32_t m, uint64_t s, uint64_t *h,
    uint8_t *anynull)
{
	int64_t v[CHUNK];
	uint8_t ok[CHUNK];
	uint32_t i, j;

	for (i = 0; i < m; i++)
		h[i] = s;
	for (j = 0; j < k->nkeys; j++) {
		const struct core_column *c = &b->cols[k->col[j]];

		load_valid(c, base, rows, m, ok);
		for (i = 0; i < m; i++)
			anynull[i] |= (uint8_t)!ok[i];
		switch (k->kind[j]) {
		case CORE_HASH_KIND_INT:
			load_int_canon(k, j, c, base, rows, m, ok, v);
			break;
		case CORE_HASH_KIND_FLOAT:
			load_f64_canon(c, base, rows, m, ok, (uint64_t *)v);
			break;
		case CORE_HASH_KIND_WIDE: {
			const char *w = c->values;
			char z[16];

			memset(z, 0, sizeof(z));
			for (i = 0; i < m; i++) {
				uint32_t r = rows != NULL ? rows[i] : base + i;

				h[i] = XXH3_64bits_withSeed(ok[i] ? w + 16 *
				    (size_t)r : z, 16, h[i] ^ (ok[i] ? 0 :
				    K_NULL));
			}
			continue;
		}
		default: {
			const char *bytes = c->values;
			const int32_t *off = c->offsets;

			for (i = 0; i < m; i++) {
				uint32_t r = rows != NULL ? rows[i] : base + i;
				size_t len = ok[i] ? (size_t)(off[r + 1] -
				    off[r]) : 0;

				h[i] = XXH3_64bits_withSeed(bytes + off[r],
				    len, h[i] ^ (ok[i] ? 0 : K_NULL));
			}
			continue;
		}
		}
		for (i = 0; i < m; i++)
			h[i] = XXH3_64bits_withSeed(&v[i], sizeof(v[i]),
			    h[i] ^ (ok[i] ? 0 : K_NULL));
	}
}

/*
 * One chunk of PATH_STR1 / PATH_STR2: short strings are their own word
 * (load_str_word), mixed as one integer key is, and exact (ex[i] = 1);
 * the other rows go the key-after-key way.  Which way a row goes depends
 * on its key alone, so equal keys hash equal.
 */
static void
hash_str(const struct core_hash_keys *k, const struct core_batch *b,
    uint32_t base, const uint32_t *rows, uint32_t m, uint64_t s, uint64_t *h,
    uint8_t *anynull, uint8_t *ex)
{
	const struct core_column *c0 = &b->cols[k->col[0]];
	uint64_t w0[CHUNK], w1[CHUNK], hl[CHUNK];
	uint8_t ok0[CHUNK], ok1[CHUNK], sh1[CHUNK], nl[CHUNK];
	uint32_t lrow[CHUNK], lidx[CHUNK], i, nlong = 0;

	load_valid(c0, base, rows, m, ok0);
	if (k->path == PATH_STR1) {
		load_str_word(c0, base, rows, m, ok0, STR1_MAX, 8, w0, ex);
		for (i = 0; i < m; i++)
			anynull[i] = (uint8_t)(ok0[i] ^ 1);
	} else {
		const struct core_column *c1 = &b->cols[k->col[1]];

		load_valid(c1, base, rows, m, ok1);
		load_str_word(c0, base, rows, m, ok0, STR2_MAX, 2, w0, ex);
		load_str_word(c1, base, rows, m, ok1, STR2_MAX, 2, w1, sh1);
		for (i = 0; i < m; i++) {
			w0[i] |= w1[i] << 32;
			ex[i] &= sh1[i];
			anynull[i] = (uint8_t)((ok0[i] ^ 1) | (ok1[i] ^ 1));
		}
	}
	for (i = 0; i < m; i++)
		h[i] = mix64(w0[i] ^ s ^ K_STR);
	for (i = 0; i < m; i++) {
		lrow[nlong] = rows != NULL ? rows[i] : base + i;
		lidx[nlong] = i;
		nlong += ex[i] ^ 1u;
	}
	if (nlong == 0)
		return;
	memset(nl, 0, nlong);
	hash_chain(k, b, 0, lrow, nlong, s, hl, nl);
	for (i = 0; i < nlong; i++)
		h[lidx[i]] = hl[i];
}

uint32_t
core_hash_batch(const struct core_hash_keys *k, const struct core_batch *b,
    const uint32_t *sel, uint32_t n, uint64_t seed, uint64_t *hash,
    uint8_t *null)
{
	return core_hash_batch_exact(k, b, sel, n, seed, hash, null, NULL);
}

uint32_t
core_hash_batch_exact(const struct core_hash_keys *k,
    const struct core_batch *b, const uint32_t *sel, uint32_t n,
    uint64_t seed, uint64_t *hash, uint8_t *null, uint8_t *exact)
{
	uint64_t s = mix64(seed ^ K_SEED);
	uint32_t off, i, nnull = 0;
	int64_t v0[CHUNK], v1[CHUNK];
	uint8_t ok0[CHUNK], ok1[CHUNK], anynull[CHUNK], ex[CHUNK];
	uint32_t j;

	CORE_DCHECK(k->nkeys > 0);
	/* A value truncated to a smaller common scale is not exact. */
	for (j = 0; j < k->nkeys && exact != NULL; j++)
		if (k->scale[j] < k->own_scale[j]) {
			memset(exact, 0, n);
			exact = NULL;
		}
	for (off = 0; off < n; off += CHUNK) {
		uint32_t m = n - off < CHUNK ? n - off : CHUNK;
		uint64_t *restrict h = hash + off;
		const uint32_t *rows = sel != NULL ? sel + off : NULL;
		memset(anynull, 0, m);
		switch (k->path) {
		case PATH_INT1: {
			const struct core_column *c = &b->cols[k->col[0]];

			load_valid(c, off, rows, m, ok0);
			load_int_canon(k, 0, c, off, rows, m, ok0, v0);
			for (i = 0; i < m; i++)
				h[i] = mix64((uint64_t)v0[i] ^ s ^
				    (K_NULL & ((uint64_t)ok0[i] - 1)));
			for (i = 0; i < m; i++)
				anynull[i] = (uint8_t)(ok0[i] ^ 1);
			if (exact != NULL)
				memcpy(exact + off, ok0, m);
			break;
		}
		case PATH_INT2: {
			const struct core_column *c0 = &b->cols[k->col[0]];
			const struct core_column *c1 = &b->cols[k->col[1]];

			load_valid(c0, off, rows, m, ok0);
			load_valid(c1, off, rows, m, ok1);
			load_int_canon(k, 0, c0, off, rows, m, ok0, v0);
			load_int_canon(k, 1, c1, off, rows, m, ok1, v1);
			for (i = 0; i < m; i++) {
				uint64_t a = (uint64_t)v0[i];
				uint64_t bb = (uint64_t)v1[i];
				uint64_t nb = (uint64_t)((ok0[i] ^ 1) |
				    (ok1[i] ^ 1) << 1);
				/* Within int32 when adding 2^31 leaves the
				 * high half clear. */
				bool fits = ((a + 0x80000000ull) |
				    (bb + 0x80000000ull)) >> 32 == 0;
				uint64_t packed = (a & 0xffffffffull) |
				    bb << 32;
				uint64_t wide = rotl64(mix64(a ^ s), 29) ^ bb ^
				    K_WIDE;

				anynull[i] = (uint8_t)(nb != 0);
				h[i] = mix64((fits ? packed ^ s : wide) ^
				    nb * K_NULL);
				ex[i] = (uint8_t)(fits & (nb == 0));
			}
			if (exact != NULL)
				memcpy(exact + off, ex, m);
			break;
		}
		case PATH_FLOAT1: {
			const struct core_column *c = &b->cols[k->col[0]];
			uint64_t *u = (uint64_t *)v0;

			load_valid(c, off, rows, m, ok0);
			load_f64_canon(c, off, rows, m, ok0, u);
			for (i = 0; i < m; i++)
				h[i] = mix64(u[i] ^ s ^
				    (K_NULL & ((uint64_t)ok0[i] - 1)));
			for (i = 0; i < m; i++)
				anynull[i] = (uint8_t)(ok0[i] ^ 1);
			if (exact != NULL)
				memcpy(exact + off, ok0, m);
			break;
		}
		case PATH_STR1:
		case PATH_STR2:
			hash_str(k, b, off, rows, m, s, h, anynull, ex);
			if (exact != NULL)
				memcpy(exact + off, ex, m);
			break;
		default:
			hash_chain(k, b, off, rows, m, s, h, anynull);
			if (exact != NULL)
				memset(exact + off, 0, m);
			break;
		}
		for (i = 0; i < m; i++)
			nnull += anynull[i];
		if (null != NULL)
			memcpy(null + off, anynull, m);
	}
	return nnull;
}

/* Side b's rows of one chunk: the column of key j in each row's source. */
static void
side_b(const struct core_batch *const *srcs, const uint64_t *refs,
    uint32_t m, uint32_t col, const struct core_column **c, uint32_t *rows)
{
	uint32_t i;

	for (i = 0; i < m; i++) {
		c[i] = &srcs[refs[i] >> 32]->cols[col];
		rows[i] = (uint32_t)refs[i];
	}
}

static inline int64_t
int_at(const struct core_column *c, enum core_type t, uint32_t r)
{
	switch (t) {
	case CORE_TYPE_BOOL:
		return ((const uint8_t *)c->values)[r];
	case CORE_TYPE_INT32:
	case CORE_TYPE_DATE:
		return ((const int32_t *)c->values)[r];
	default:
		return ((const int64_t *)c->values)[r];
	}
}

/* eq[i] &= whether key j matches in pair i of the chunk. */
static void
equal_key(const struct core_hash_keys *ka, const struct core_batch *a,
    const uint32_t *ra, const struct core_hash_keys *kb,
    const struct core_batch *const *srcs_b, const uint64_t *refs_b,
    uint32_t m, uint32_t j, bool nulls_equal, uint8_t *eq)
{
	const struct core_column *ca = &a->cols[ka->col[j]];
	const struct core_column *cb[CHUNK];
	uint32_t rb[CHUNK], i;
	uint8_t oka[CHUNK], okb[CHUNK], same[CHUNK];
	enum core_type tb = (enum core_type)kb->type[j];

	side_b(srcs_b, refs_b, m, kb->col[j], cb, rb);
	load_valid(ca, 0, ra, m, oka);
	for (i = 0; i < m; i++)
		okb[i] = (uint8_t)core_col_is_valid(cb[i], rb[i]);
	switch (ka->kind[j]) {
	case CORE_HASH_KIND_INT: {
		int64_t va[CHUNK];
		unsigned sa = ka->own_scale[j], sb = kb->own_scale[j];

		load_int(ca, (enum core_type)ka->type[j], 0, ra, m, va);
		if (sa == sb) {
			for (i = 0; i < m; i++)
				same[i] = va[i] == int_at(cb[i], tb, rb[i]);
		} else {
			/* Both at the larger scale: |v| < 10^18 times at
			 * most 10^18 fits in 128 bits. */
			__int128 fa = pow10_tab[sa < sb ? sb - sa : 0];
			__int128 fb = pow10_tab[sb < sa ? sa - sb : 0];

			for (i = 0; i < m; i++)
				same[i] = va[i] * fa ==
				    int_at(cb[i], tb, rb[i]) * fb;
		}
		break;
	}
	case CORE_HASH_KIND_FLOAT: {
		const double *pa = ca->values;

		for (i = 0; i < m; i++) {
			double x = pa[ra[i]];
			double y = ((const double *)cb[i]->values)[rb[i]];

			same[i] = x == y || (x != x && y != y);
		}
		break;
	}
	case CORE_HASH_KIND_WIDE: {
		const char *pa = ca->values;

		/* Comparable sides share the scale: equal numbers, equal
		 * bytes. */
		for (i = 0; i < m; i++)
			same[i] = memcmp(pa + 16 * (size_t)ra[i],
			    (const char *)cb[i]->values + 16 * (size_t)rb[i],
			    16) == 0;
		break;
	}
	default: {
		const char *ba = ca->values;
		const int32_t *oa = ca->offsets;

		for (i = 0; i < m; i++) {
			const int32_t *ob = cb[i]->offsets;
			int32_t la = oa[ra[i] + 1] - oa[ra[i]];
			int32_t lb = ob[rb[i] + 1] - ob[rb[i]];

			same[i] = la == lb && (la == 0 || memcmp(ba +
			    oa[ra[i]], (const char *)cb[i]->values + ob[rb[i]],
			    (size_t)la) == 0);
		}
		break;
	}
	}
	if (nulls_equal)
		for (i = 0; i < m; i++)
			eq[i] &= (uint8_t)((oka[i] & okb[i] & same[i]) |
			    ((oka[i] | okb[i]) ^ 1));
	else
		for (i = 0; i < m; i++)
			eq[i] &= (uint8_t)(oka[i] & okb[i] & same[i]);
}

void
core_hash_equal(const struct core_hash_keys *ka, const struct core_batch *a,
    const uint32_t *rows_a, const struct core_hash_keys *kb,
    const struct core_batch *const *srcs_b, const uint64_t *refs_b,
    uint32_t n, bool nulls_equal, uint8_t *eq)
{
	uint32_t ra[CHUNK], off, i, j;

	CORE_DCHECK(core_hash_keys_comparable(ka, kb));
	for (off = 0; off < n; off += CHUNK) {
		uint32_t m = n - off < CHUNK ? n - off : CHUNK;

		for (i = 0; i < m; i++)
			ra[i] = rows_a != NULL ? rows_a[off + i] : off + i;
		memset(eq + off, 1, m);
		for (j = 0; j < ka->nkeys; j++)
			equal_key(ka, a, ra, kb, srcs_b, refs_b + off, m, j,
			    nulls_equal, eq + off);
	}
}
