/*
 * fuzz_parquet_roundtrip.c - the Parquet writer, read back by the Parquet
 * reader.
 *
 * The input is a recipe, read front to back (past its end the bytes come
 * from a generator seeded by it): a schema of 1 to 6 nullable columns of
 * every colpipe type (decimals of 1 to 38 digits); the writer's options
 * (codec none, snappy, zstd or gzip; dictionary auto, on or off, for all
 * columns or each its own; pages, row groups and dictionaries from a
 * byte to the defaults; statistics on or off; one or two threads); and up
 * to 18000 rows in 1 to 4 batches, each column's values in one of a few
 * shapes: raw, a few distinct, sorted, runs, around the edges of the
 * writer's direct map of small integers, extremes (INT64_MIN, NaNs, -0.0,
 * empty strings), strings sharing their first 8 bytes, strings longer
 * than CORE_PARQUET_STATS_MAX; NULLs none, some or all, per batch.  NULL
 * slots may hold garbage, a column without NULLs may come with a bitmap.
 *
 * What must hold, else the target traps (after a line on stderr saying
 * which check failed):
 *   - the writer takes every batch and finishes;
 *   - the file is the same bytes on one thread as on two;
 *   - the reader opens it and finds the schema (names, types) and the
 *     rows; its batches pass core_batch_check, stay within a row group,
 *     and give back every NULL and value exactly: floats bitwise, strings
 *     byte for byte, the slots of NULLs zero;
 *   - row groups hold row_group_rows rows but the last (when no byte
 *     limit is near);
 *   - the footer tells the truth per column chunk (man/col2parquet.1):
 *     type, codec, value count; no dictionary where it is off, nor for
 *     bools and decimals of more than 18 digits; with statistics, the
 *     NULL count, the min and max (strings as unsigned bytes, a zero
 *     minimum -0.0 and maximum +0.0, NaN left out and counted) flagged
 *     exact, or for strings longer than CORE_PARQUET_STATS_MAX the bounds
 *     of core_parquet_stats_lower/upper flagged inexact (and bounds they
 *     are), as read raw and as core_parquet_file_colstats gives them;
 *     without statistics none;
 *   - the page index: an OffsetIndex whose pages tile the chunk and the
 *     row group, and with statistics, for integer columns only, a
 *     ColumnIndex with each page's NULL count, all-NULL flag, min and max.
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core_alloc.h"
#include "core_col.h"
#include "core_io.h"
#include "core_parquet_read.h"
#include "core_parquet_write.h"
#include "core_pool.h"
#include "core_prune.h"
#include "core_thrift.h"
#include "replay.h"

#define MAX_COLS 6
#define MAX_BATCHES 4
#define MAX_ROWS 18000		/* all batches together */
#define MAX_ROWS_TINY 400	/* with pages or row groups of a few values */
#define STR_BUDGET ((size_t)1 << 20)	/* string bytes of one input */
#define NPOOL 16
#define SHORT_POOL 24		/* bytes of a pooled string, at most */

static void fail(int line, const char *what) __attribute__((noreturn));

static void
fail(int line, const char *what)
{
	fprintf(stderr, "fuzz_parquet_roundtrip.c:%d: check failed: %s\n",
	    line, what);
	__builtin_trap();
}

#define CHECK(x) do {							\
	if (!(x))							\
		fail(__LINE__, #x);					\
} while (0)

/* ---- the bytes of the recipe ---- */

struct gen {
	const uint8_t *p;
	size_t n, pos;
	uint64_t x;		/* xorshift state, once p is used up */
};

static uint8_t
g8(struct gen *g)
{
	if (g->pos < g->n)
		return g->p[g->pos++];
	g->x ^= g->x << 13;
	g->x ^= g->x >> 7;
	g->x ^= g->x << 17;
	return (uint8_t)(g->x >> 24);
}

/* k <= 16 bytes, little-endian. */
static core_u128
gn(struct gen *g, unsigned k)
{
	core_u128 v = 0;
	unsigned i;

	for (i = 0; i < k; i++)
		v |= (core_u128)g8(g) << (8 * i);
	return v;
}

/* ---- columns and their values ---- */

enum shape {
	SH_RAW,		/* anything the type holds */
	SH_FEW,		/* one of a pool of up to 16 */
	SH_SORTED,	/* non-decreasing (until it wraps) */
	SH_RUNS,	/* runs of one value */
	SH_NEAR,	/* integers: a base and offsets around 2^14, 2^15;
			   strings: an 8-byte prefix and a short tail */
	SH_EXTREME,	/* the ends of the range, NaNs, infinities, zeros */
	SH_SMALL,	/* a base and a few neighbours; 0-2 byte strings */
	SH_LONG,	/* strings: a third of them long */
	NSHAPES
};

/* The string pieces values are made of: ASCII, NUL, bytes that are no
 * UTF-8, sequences next to where a bound's successor jumps (U+D7FF,
 * U+10FFFF), sequences that only look like UTF-8 (overlong, a surrogate,
 * past U+10FFFF), and a block of 8 that ties strings' first words. */
static const struct {
	const char *s;
	uint8_t n;
} tokens[] = {
	{ "a", 1 }, { "b", 1 }, { "z", 1 }, { "\0", 1 }, { "\x7f", 1 },
	{ "\xff", 1 }, { "\x80", 1 }, { "\xc3", 1 }, { "\xc3\xa9", 2 },
	{ "\xe2\x82\xac", 3 }, { "\xed\x9f\xbf", 3 }, { "\xee\x80\x80", 3 },
	{ "\xf0\x9f\x98\x80", 4 }, { "\xf4\x8f\xbf\xbf", 4 }, { "\xc0\xaf", 2 },
	{ "\xed\xa0\x80", 3 }, { "\xf4\x90\x80\x80", 4 }, { "ab", 2 },
	{ "abcdefgh", 8 },
};
#define NTOKENS (sizeof(tokens) / sizeof(tokens[0]))

static const uint64_t special_doubles[] = {
	0x7ff8000000000000ull,	/* NaN */
	0xfff8000000000000ull,	/* -NaN */
	0x7ff0000000000001ull,	/* signalling NaN */
	0x7fffffffffffffffull,	/* NaN, every payload bit */
	0x0000000000000000ull,	/* +0 */
	0x8000000000000000ull,	/* -0 */
	0x7ff0000000000000ull,	/* inf */
	0xfff0000000000000ull,	/* -inf */
	0x0010000000000000ull,	/* DBL_MIN */
	0x0000000000000001ull,	/* least subnormal */
	0x8000000000000001ull,
	0x7fefffffffffffffull,	/* DBL_MAX */
	0xffefffffffffffffull,
	0x3ff0000000000000ull,	/* 1 */
	0xbff0000000000000ull,	/* -1 */
};
#define NSPECIALS (sizeof(special_doubles) / sizeof(special_doubles[0]))

struct pstr {
	uint8_t b[SHORT_POOL];
	uint8_t n;
};

/* A column: its values for every row (the truth the file is checked
 * against) and the state its shape draws them with. */
struct col {
	struct core_coltype type;
	size_t width;		/* bytes of a value in val; 0: strings */
	enum shape shape;
	uint8_t nullmode;	/* 0 none, 1 all, 2 some */
	uint8_t density;	/* of NULLs, /256, for some */
	enum core_parquet_dict dict;

	uint8_t *valid;		/* a byte a row */
	uint8_t *val;		/* width bytes a row; NULLs zero */
	size_t *soff;		/* strings: nrows + 1 */
	uint8_t *sb;		/* strings' bytes */
	size_t sblen, sbcap;

	core_i128 lo, hi;	/* integer domain (bools 0..1) */
	unsigned npool;
	core_i128 pool[NPOOL];	/* integers, doubles' bits */
	struct pstr spool[NPOOL];
	core_i128 cur, base;
	unsigned run;
	uint8_t prefix;		/* SH_NEAR strings: which prefix */
};

struct recipe {
	uint32_t ncols;
	struct col cols[MAX_COLS];
	struct core_parquet_options o;
	enum core_parquet_dict col_dict[MAX_COLS];
	bool per_col_dict;
	bool bitmaps;		/* a bitmap on columns without NULLs */
	bool dirty;		/* garbage in the slots of NULLs */
	bool read_pool;		/* the reader decodes on two threads */
	bool twice;		/* the other thread count gives the same file */
	size_t outcap;
	uint32_t nbatches;
	uint32_t batch_rows[MAX_BATCHES];
	uint64_t nrows;
	size_t str_bytes;	/* of every string column so far */
};

/* Bytes of a PLAIN value in the file (a bool's 1: its statistics). */
static size_t
phys_width(struct core_coltype t)
{
	switch (t.id) {
	case CORE_TYPE_BOOL:
		return 1;
	case CORE_TYPE_INT32:
	case CORE_TYPE_DATE:
		return 4;
	case CORE_TYPE_DECIMAL:
		return t.precision <= 9 ? 4 : 8;
	case CORE_TYPE_DECIMAL128:
		return 16;
	case CORE_TYPE_STRING:
		return 0;
	default:
		return 8;
	}
}

static int
phys_type(struct core_coltype t)
{
	switch (t.id) {
	case CORE_TYPE_BOOL:
		return 0;
	case CORE_TYPE_FLOAT64:
		return 5;
	case CORE_TYPE_STRING:
		return 6;
	case CORE_TYPE_DECIMAL128:
		return 7;
	default:
		return phys_width(t) == 4 ? 1 : 2;
	}
}

/* Integer columns: the ones with a page index ColumnIndex. */
static bool
has_column_index(struct core_coltype t)
{
	return t.id == CORE_TYPE_INT32 || t.id == CORE_TYPE_INT64 ||
	    t.id == CORE_TYPE_DATE || t.id == CORE_TYPE_TIMESTAMP ||
	    t.id == CORE_TYPE_DECIMAL;
}

static core_i128
pow10_i128(unsigned p)
{
	core_i128 v = 1;

	while (p-- > 0)
		v *= 10;
	return v;
}

/* v if in lo..hi, else folded into it. */
static core_i128
fold(const struct col *c, core_i128 v)
{
	core_u128 span;

	if (v >= c->lo && v <= c->hi)
		return v;
	span = (core_u128)c->hi - (core_u128)c->lo + 1;
	return (core_i128)((core_u128)c->lo +
	    ((core_u128)v - (core_u128)c->lo) % span);
}

/* Anything in the domain, small magnitudes more often. */
static core_i128
raw_int(struct gen *g, const struct col *c)
{
	unsigned k = 1 + g8(g) % 16;
	core_u128 u = gn(g, k);
	core_i128 v;

	/* Sign-extend from k bytes. */
	if (k < 16 && (u >> (8 * k - 1)) & 1)
		u |= ~(core_u128)0 << (8 * k);
	v = (core_i128)u;
	return fold(c, v);
}

static core_i128
extreme_int(struct gen *g, const struct col *c)
{
	switch (g8(g) % 7) {
	case 0:
		return c->lo;
	case 1:
		return c->hi;
	case 2:
		return c->lo + 1;
	case 3:
		return c->hi - 1;
	case 4:
		return 0;
	case 5:
		return fold(c, -1);
	default:
		return 1;
	}
}

/* Offsets that put values on both sides of the direct map's ends (its
 * base is the dictionary's first value less 2^14, its size 2^15). */
static core_i128
near_offset(struct gen *g)
{
	static const int32_t edge[] = {
		0, 1, 16383, 16384, 16385, 32767, 32768, 32769,
	};
	uint8_t b = g8(g);
	int32_t v;

	if (b < 64)
		v = (int32_t)(int16_t)gn(g, 2) * 2 + (g8(g) & 1);
	else
		v = edge[b % 8] + (int32_t)(g8(g) % 5) - 2;
	return (b & 0x80) ? -(core_i128)v : (core_i128)v;
}

static core_i128
gen_int(struct gen *g, struct col *c)
{
	uint8_t b;

	switch (c->shape) {
	case SH_FEW:
		return c->pool[g8(g) % c->npool];
	case SH_SORTED:
		b = g8(g);
		c->cur += b < 128 ? 0 : b < 224 ? 1 : (core_i128)gn(g, 2);
		c->cur = fold(c, c->cur);
		return c->cur;
	case SH_RUNS:
		if (c->run == 0) {
			c->cur = g8(g) & 1 ? c->pool[g8(g) % c->npool] :
			    raw_int(g, c);
			b = g8(g);
			c->run = 1 + (b < 200 ? b % 16 : (unsigned)b * 8);
		}
		c->run--;
		return c->cur;
	case SH_NEAR:
		return fold(c, c->base + near_offset(g));
	case SH_EXTREME:
		return extreme_int(g, c);
	case SH_SMALL:
		return fold(c, c->base + (int)(g8(g) % 16) - 8);
	default:
		return raw_int(g, c);
	}
}

static uint64_t
gen_double(struct gen *g, struct col *c)
{
	double d;
	uint64_t u;
	uint8_t b;

	switch (c->shape) {
	case SH_FEW:
		return (uint64_t)c->pool[g8(g) % c->npool];
	case SH_SORTED:
		b = g8(g);
		c->cur += b < 128 ? 0 : b % 4 + 1;
		d = (double)(int64_t)c->cur / 4;
		break;
	case SH_RUNS:
		if (c->run == 0) {
			c->base = c->pool[g8(g) % c->npool];
			c->run = 1 + g8(g) % 32;
		}
		c->run--;
		return (uint64_t)c->base;
	case SH_NEAR:
	case SH_EXTREME:
		return special_doubles[g8(g) % NSPECIALS];
	case SH_SMALL:
		b = g8(g);
		d = (double)((int)(b % 16) - 8) / 2;
		if (d == 0 && (b & 0x80))
			d = -0.0;
		break;
	default:
		return (uint64_t)gn(g, 8);
	}
	memcpy(&u, &d, 8);
	return u;
}

/* Appends the piece of byte b (and maybe the next) to s. */
static size_t
put_piece(struct gen *g, uint8_t b, uint8_t *s, size_t at, size_t cap)
{
	const uint8_t *p;
	uint8_t raw;
	size_t n;

	if (b < 0xe0) {
		p = (const uint8_t *)tokens[b % NTOKENS].s;
		n = tokens[b % NTOKENS].n;
	} else {
		raw = g8(g);
		p = &raw;
		n = 1;
	}
	if (n > cap - at)
		n = cap - at;
	memcpy(s + at, p, n);
	return at + n;
}

/* A string of 0..12 bytes into s (room for SHORT_POOL). */
static size_t
short_str(struct gen *g, uint8_t *s)
{
	size_t want = g8(g) % 13, n = 0;

	while (n < want)
		n = put_piece(g, g8(g), s, n, want);
	return n;
}

static void
str_reserve(struct col *c, size_t n)
{
	if (c->sbcap - c->sblen < n)
		c->sb = core_grow(c->sb, &c->sbcap, c->sblen + n, 1, 4096);
}

static void
str_append(struct col *c, const void *p, size_t n)
{
	str_reserve(c, n);
	if (n > 0)
		memcpy(c->sb + c->sblen, p, n);
	c->sblen += n;
}

/* A string around CORE_PARQUET_STATS_MAX bytes or up to twice it: one
 * piece repeated (so a multi-byte one straddles the cut or not), then a
 * few more. */
static void
long_str(struct gen *g, struct recipe *rc, struct col *c)
{
	uint8_t b = g8(g), raw, tail[64];
	const void *fill;
	size_t want, n = 0, k, start = c->sblen, t;

	want = g8(g) & 1 ?
	    (size_t)CORE_PARQUET_STATS_MAX - 12 + g8(g) % 24 :
	    (size_t)CORE_PARQUET_STATS_MAX + (size_t)gn(g, 2) % 4096;
	if (b < 0xe0) {
		fill = tokens[b % NTOKENS].s;
		k = tokens[b % NTOKENS].n;
	} else {
		raw = g8(g);
		fill = &raw;
		k = 1;
	}
	str_reserve(c, want + k);
	for (; n < want; n += k) {
		memcpy(c->sb + c->sblen, fill, k);
		c->sblen += k;
	}
	t = 0;
	for (k = g8(g) % 8; k > 0; k--)
		t = put_piece(g, g8(g), tail, t, sizeof(tail));
	str_append(c, tail, t);
	rc->str_bytes += c->sblen - start;
}

static void
gen_string(struct gen *g, struct recipe *rc, struct col *c)
{
	static const struct pstr ext[] = {
		{ "", 0 }, { "\0", 1 }, { "\xff", 1 },
		{ "\xff\xff\xff\xff\xff\xff\xff\xff", 8 },
		{ "\xff\xff\xff\xff\xff\xff\xff\xff\xff", 9 },
		{ "\xf4\x8f\xbf\xbf", 4 }, { "\x7f", 1 },
		{ "\0\0\0\0\0\0\0\0\0", 9 }, { "a", 1 },
	};
	uint8_t s[SHORT_POOL + 16];
	size_t n = 0, start = c->sblen;
	const struct pstr *ps;
	uint8_t b;

	switch (c->shape) {
	case SH_FEW:
		ps = &c->spool[g8(g) % c->npool];
		str_append(c, ps->b, ps->n);
		break;
	case SH_SORTED:
		/* Mostly distinct, so a long trial page is seen to be
		 * hopeless for a dictionary. */
		b = g8(g);
		c->cur += b < 16 ? 0 : b % 3 + 1;
		ps = &c->spool[0];
		str_append(c, ps->b, ps->n);
		n = (size_t)snprintf((char *)s, sizeof(s), "%06llu",
		    (unsigned long long)(c->cur % 1000000));
		str_append(c, s, n);
		break;
	case SH_RUNS:
		if (c->run == 0) {
			c->base = g8(g) % c->npool;
			c->run = 1 + g8(g) % 32;
		}
		c->run--;
		ps = &c->spool[(size_t)c->base];
		str_append(c, ps->b, ps->n);
		break;
	case SH_NEAR:
		/* Ties on the first 8 bytes: the bounds' keys are equal,
		 * the bytes after decide. */
		memcpy(s, c->prefix ? "\xff\xff\xff\xff\xff\xff\xff\xff" :
		    "abcdefgh", 8);
		n = 8 - g8(g) % 2;
		for (b = g8(g) % 3; b > 0; b--)
			n = put_piece(g, g8(g), s, n, sizeof(s));
		str_append(c, s, n);
		break;
	case SH_EXTREME:
		ps = &ext[g8(g) % (sizeof(ext) / sizeof(ext[0]))];
		str_append(c, ps->b, ps->n);
		break;
	case SH_SMALL:
		for (b = g8(g) % 3; b > 0; b--)
			s[n++] = "ab\0"[g8(g) % 3];
		str_append(c, s, n);
		break;
	case SH_LONG:
		if (g8(g) % 3 == 0 && rc->str_bytes < STR_BUDGET) {
			long_str(g, rc, c);
			return;
		}
		n = short_str(g, s);
		str_append(c, s, n);
		break;
	default:
		n = short_str(g, s);
		str_append(c, s, n);
		break;
	}
	rc->str_bytes += c->sblen - start;
}

static void
col_setup(struct gen *g, struct col *c)
{
	static const uint8_t prec64[] = { 1, 2, 4, 9, 10, 15, 18 };
	static const uint8_t prec128[] = { 19, 20, 25, 38 };
	uint8_t t = g8(g), b, p;
	unsigned i;

	memset(c, 0, sizeof(*c));
	switch (t % 10) {
	case 0:
		c->type.id = CORE_TYPE_BOOL;
		break;
	case 1:
		c->type.id = CORE_TYPE_INT32;
		break;
	case 2:
		c->type.id = CORE_TYPE_INT64;
		break;
	case 3:
		c->type.id = CORE_TYPE_FLOAT64;
		break;
	case 4:
		p = prec64[g8(g) % sizeof(prec64)];
		c->type = core_type_decimal(p, g8(g) % (p + 1u));
		break;
	case 5:
		p = prec128[g8(g) % sizeof(prec128)];
		c->type = core_type_decimal(p, g8(g) % (p + 1u));
		break;
	case 6:
		c->type.id = CORE_TYPE_DATE;
		break;
	case 7:
		c->type.id = CORE_TYPE_TIMESTAMP;
		break;
	default:
		c->type.id = CORE_TYPE_STRING;
		break;
	}
	c->width = core_type_width(c->type.id);
	c->shape = (enum shape)(g8(g) % NSHAPES);
	b = g8(g);
	c->nullmode = b % 8 < 4 ? 0 : b % 8 == 4 ? 1 : 2;
	c->density = (uint8_t)(b & 0xf8) | 1;
	switch (c->type.id) {
	case CORE_TYPE_BOOL:
		c->lo = 0, c->hi = 1;
		break;
	case CORE_TYPE_INT32:
	case CORE_TYPE_DATE:
		c->lo = INT32_MIN, c->hi = INT32_MAX;
		break;
	case CORE_TYPE_DECIMAL:
	case CORE_TYPE_DECIMAL128:
		c->hi = pow10_i128(c->type.precision) - 1;
		c->lo = -c->hi;
		break;
	default:
		c->lo = INT64_MIN, c->hi = INT64_MAX;
		break;
	}
	c->npool = 1 + g8(g) % NPOOL;
	for (i = 0; i < c->npool; i++) {
		b = g8(g);
		if (c->type.id == CORE_TYPE_FLOAT64)
			c->pool[i] = (core_i128)(b & 1 ?
			    special_doubles[b / 2 % NSPECIALS] :
			    (uint64_t)gn(g, 8));
		else if (c->type.id == CORE_TYPE_STRING)
			c->spool[i].n = (uint8_t)short_str(g, c->spool[i].b);
		else
			c->pool[i] = b & 1 ? extreme_int(g, c) :
			    raw_int(g, c);
	}
	c->base = c->type.id == CORE_TYPE_STRING ? 0 : c->pool[0];
	c->cur = c->type.id == CORE_TYPE_FLOAT64 ||
	    c->type.id == CORE_TYPE_STRING ? 0 : c->pool[0];
	c->prefix = g8(g) & 1;
}

/* Draws rows [r0, r0 + n) of c; nulls: 0 none, 1 all, 2 some. */
static void
gen_rows(struct gen *g, struct recipe *rc, struct col *c, uint64_t r0,
    uint32_t n, int nulls)
{
	uint64_t r;
	uint8_t *v;
	core_i128 x;
	uint64_t d;

	for (r = r0; r < r0 + n; r++) {
		c->valid[r] = nulls == 0 || (nulls == 2 && g8(g) >= c->density);
		if (c->type.id == CORE_TYPE_STRING) {
			if (c->valid[r])
				gen_string(g, rc, c);
			c->soff[r + 1] = c->sblen;
			continue;
		}
		v = c->val + r * c->width;
		memset(v, 0, c->width);
		if (!c->valid[r])
			continue;
		if (c->type.id == CORE_TYPE_FLOAT64) {
			d = gen_double(g, c);
			memcpy(v, &d, 8);
			continue;
		}
		x = gen_int(g, c);
		switch (c->width) {
		case 1:
			v[0] = (uint8_t)x;
			break;
		case 4:
			memcpy(v, &(int32_t){ (int32_t)x }, 4);
			break;
		case 8:
			memcpy(v, &(int64_t){ (int64_t)x }, 8);
			break;
		default:
			core_i128_store(v, x);
			break;
		}
	}
}

static core_i128
int_at(const struct col *c, uint64_t r)
{
	const uint8_t *v = c->val + r * c->width;
	int32_t v32;
	int64_t v64;

	switch (c->width) {
	case 1:
		return v[0];
	case 4:
		memcpy(&v32, v, 4);
		return v32;
	case 8:
		memcpy(&v64, v, 8);
		return v64;
	default:
		return core_i128_load(v);
	}
}

static double
double_at(const struct col *c, uint64_t r)
{
	double d;

	memcpy(&d, c->val + r * 8, 8);
	return d;
}

/* Unsigned byte order, a prefix first. */
static int
bytes_cmp(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
	int r = memcmp(a, b, an < bn ? an : bn);

	if (r != 0 || an == bn)
		return r;
	return an < bn ? -1 : 1;
}

/* ---- the recipe ---- */

/* Rows of a batch: mostly a few hundred at most (the executions stay
 * fast); with big, batches around and past CORE_PARQUET_READ_BATCH_ROWS
 * and the dictionary trial's windows (4096 and 16384 values) too. */
static uint32_t
draw_batch_rows(struct gen *g, bool big)
{
	uint8_t c = g8(g);

	switch (c % 8) {
	case 0:
		return c >> 7;
	case 1:
	case 2:
		return 1 + g8(g) % 32;
	case 3:
	case 4:
		return 1 + (uint32_t)gn(g, 2) % 256;
	case 5:
		return 1 + (uint32_t)gn(g, 2) % (big ? 4200 : 600);
	case 6:
		return big ? 4090 + (uint32_t)g8(g) % 12 :
		    1 + (uint32_t)gn(g, 2) % 600;
	default:
		return big ? 4096 + (uint32_t)gn(g, 2) % 8192 :
		    1 + (uint32_t)g8(g) % 64;
	}
}

static void
draw_options(struct gen *g, struct recipe *rc)
{
	struct core_parquet_options *o = &rc->o;
	uint8_t b, flags;
	uint32_t i;
	uint64_t cap;

	core_parquet_options_init(o);
	b = g8(g);
	switch (b % 8) {
	case 0:
	case 1:
		o->codec = CORE_PARQUET_UNCOMPRESSED;
		break;
	case 2:
	case 3:
	case 4:
		o->codec = CORE_PARQUET_SNAPPY;
		break;
	case 5:
	case 6:
		o->codec = CORE_PARQUET_ZSTD;
		o->level = 1 + b / 8 % 3;
		break;
	default:
		o->codec = CORE_PARQUET_GZIP;
		o->level = 1;
		break;
	}
	b = g8(g);
	o->dict = (enum core_parquet_dict)(b % 3);
	rc->per_col_dict = b % 4 == 3;
	for (i = 0; i < rc->ncols; i++) {
		rc->col_dict[i] = rc->per_col_dict ?
		    (enum core_parquet_dict)(g8(g) % 3) : o->dict;
		rc->cols[i].dict = rc->col_dict[i];
	}
	if (rc->per_col_dict)
		o->col_dict = rc->col_dict;
	b = g8(g);
	switch (b % 6) {
	case 0:
		o->page_bytes = 1 + g8(g) % 8;
		break;
	case 1:
		o->page_bytes = 8 + g8(g);
		break;
	case 2:
		o->page_bytes = 64 + (uint64_t)gn(g, 2) % 4096;
		break;
	case 3:
		o->page_bytes = 4096 + (uint64_t)gn(g, 2);
		break;
	default:
		break;
	}
	b = g8(g);
	switch (b % 6) {
	case 0:
		o->row_group_rows = 1 + g8(g) % 4;
		break;
	case 1:
		o->row_group_rows = 1 + g8(g) % 100;
		break;
	case 2:
		o->row_group_rows = 1 + (uint64_t)gn(g, 2) % 5000;
		break;
	default:
		break;
	}
	b = g8(g);
	if (b % 4 == 0)
		o->row_group_bytes = 1 + (uint64_t)gn(g, 2);
	b = g8(g);
	if (b % 4 == 0)
		o->dict_bytes = 1 + g8(g);
	else if (b % 4 == 1)
		o->dict_bytes = 256 + (uint64_t)gn(g, 2) % 8192;
	flags = g8(g);
	o->statistics = flags % 8 != 0;
	o->threads = flags & 0x08 ? 2 : 1;
	o->timestamps_utc = flags & 0x10;
	rc->bitmaps = flags & 0x20;
	rc->dirty = flags & 0x40;
	rc->read_pool = flags & 0x80;
	b = g8(g);
	rc->twice = b % 4 == 0;
	rc->outcap = (size_t)4096 << (b / 4 % 4);
	cap = o->page_bytes < 16 || o->row_group_rows < 8 ||
	    o->row_group_bytes < 256 ? MAX_ROWS_TINY : MAX_ROWS;
	rc->nbatches = 1 + g8(g) % MAX_BATCHES;
	for (i = 0; i < rc->nbatches; i++) {
		uint32_t n = draw_batch_rows(g, (b & 0xc0) == 0xc0);

		if (n > cap - rc->nrows)
			n = (uint32_t)(cap - rc->nrows);
		rc->batch_rows[i] = n;
		rc->nrows += n;
	}
}

/* Rows [r0, r0 + n) of every column as a batch: a column without NULLs
 * there may still have a bitmap (all ones), NULLs' slots may hold
 * anything. */
static void
make_batch(struct gen *g, const struct recipe *rc, struct core_batch *b,
    uint64_t r0, uint32_t n)
{
	uint32_t i, r, k;

	core_batch_reserve(b, n, 0);
	for (i = 0; i < rc->ncols; i++) {
		const struct col *c = &rc->cols[i];
		struct core_column *bc = &b->cols[i];
		size_t used = 0, len;

		if (c->type.id == CORE_TYPE_STRING) {
			bc->offsets[0] = 0;
			for (r = 0; r < n; r++) {
				len = c->soff[r0 + r + 1] - c->soff[r0 + r];
				core_col_reserve_bytes(bc, used, len);
				if (len > 0)
					memcpy((uint8_t *)bc->values + used,
					    c->sb + c->soff[r0 + r], len);
				used += len;
				bc->offsets[r + 1] = (int32_t)used;
			}
		} else if (n > 0) {
			memcpy(bc->values, c->val + r0 * c->width,
			    (size_t)n * c->width);
		}
		for (r = 0; r < n; r++) {
			if (c->valid[r0 + r])
				continue;
			core_col_set_null(bc, r, n);
			if (!rc->dirty || c->width == 0)
				continue;
			for (k = 0; k < c->width; k++)
				((uint8_t *)bc->values)[(size_t)r * c->width +
				    k] = c->width == 1 ? g8(g) & 1 : g8(g);
		}
		if (rc->bitmaps && bc->validity == NULL && n > 0) {
			core_col_set_null(bc, 0, n);
			bc->validity[0] |= 1;
		}
	}
	b->nrows = n;
}

/* ---- writing ---- */

static void
write_file(int fd, const struct core_schema *schema, const struct recipe *rc,
    const struct core_parquet_options *o, struct core_batch *b)
{
	struct core_output out;
	struct core_parquet_writer *w = NULL;
	struct core_err err = { 0, "" };
	uint32_t k;
	int rc_;

	core_output_init(&out, fd, "fuzz", rc->outcap);
	rc_ = core_parquet_writer_new(&out, schema, o, &w, &err);
	for (k = 0; rc_ == 0 && k < rc->nbatches; k++)
		rc_ = core_parquet_write_batch(w, &b[k], &err);
	if (rc_ == 0)
		rc_ = core_parquet_writer_finish(w, &err);
	if (rc_ != 0) {
		fprintf(stderr, "fuzz_parquet_roundtrip: write: %s\n",
		    err.msg);
		fail(__LINE__, "the writer takes valid batches");
	}
	core_parquet_writer_free(w);
	core_output_release(&out);
}

static uint8_t *
file_bytes(int fd, size_t *len)
{
	off_t end = lseek(fd, 0, SEEK_END);
	uint8_t *p;

	CHECK(end >= 12);
	*len = (size_t)end;
	p = core_xmalloc(*len);
	CHECK(core_pread_full(fd, p, *len, 0) == (ssize_t)*len);
	return p;
}

/* ---- the truth of a span of rows ---- */

struct truth {
	uint64_t nulls, nvalid, nans;
	bool has;		/* a min and max: a value (not NaN) */
	core_i128 imin, imax;
	double dmin, dmax;
	const uint8_t *smin, *smax;
	size_t sminlen, smaxlen;
};

static void
truth_of(const struct col *c, uint64_t r0, uint64_t r1, struct truth *t)
{
	uint64_t r;

	memset(t, 0, sizeof(*t));
	for (r = r0; r < r1; r++) {
		if (!c->valid[r]) {
			t->nulls++;
			continue;
		}
		t->nvalid++;
		if (c->type.id == CORE_TYPE_STRING) {
			const uint8_t *p = c->sb + c->soff[r];
			size_t n = c->soff[r + 1] - c->soff[r];

			if (!t->has || bytes_cmp(p, n, t->smin,
			    t->sminlen) < 0)
				t->smin = p, t->sminlen = n;
			if (!t->has || bytes_cmp(p, n, t->smax,
			    t->smaxlen) > 0)
				t->smax = p, t->smaxlen = n;
			t->has = true;
		} else if (c->type.id == CORE_TYPE_FLOAT64) {
			double d = double_at(c, r);

			if (d != d) {
				t->nans++;
				continue;
			}
			if (!t->has || d < t->dmin)
				t->dmin = d;
			if (!t->has || d > t->dmax)
				t->dmax = d;
			t->has = true;
		} else {
			core_i128 v = int_at(c, r);

			if (!t->has || v < t->imin)
				t->imin = v;
			if (!t->has || v > t->imax)
				t->imax = v;
			t->has = true;
		}
	}
}

/* The PLAIN bytes of an integer-domain statistic (decimal128: big-endian
 * two's complement). */
static size_t
int_bytes(struct core_coltype ty, core_i128 v, uint8_t out[16])
{
	size_t w = phys_width(ty), i;
	core_u128 u = (core_u128)v;

	if (w == 16) {
		for (i = 16; i-- > 0; u >>= 8)
			out[i] = (uint8_t)u;
		return 16;
	}
	for (i = 0; i < w; i++, u >>= 8)
		out[i] = (uint8_t)u;
	return w;
}

/* ---- the footer, read raw ---- */

/* What the footer says of one column chunk. */
struct chunk_meta {
	int64_t ptype, codec, nvalues, total_comp, data_off, dict_off;
	bool dict_enc;		/* RLE_DICTIONARY among its encodings */
	bool stats;		/* a Statistics struct */
	bool has_nc, has_nans;
	int64_t nc, nans;
	const uint8_t *min, *max;	/* min_value, max_value; NULL: none */
	size_t minlen, maxlen;
	int min_exact, max_exact;	/* -1: absent */
	int64_t oi_off, oi_len, ci_off, ci_len;	/* -1: absent */
};

struct file_meta {
	int64_t nrows;
	uint32_t nrg;
	int64_t *rg_rows;		/* owned, nrg */
	struct chunk_meta *cm;		/* owned, nrg * ncols */
};

static bool
t_field(struct core_thrift_reader *r, int16_t *id, uint8_t *t)
{
	int rc = core_thrift_read_field(r, id, t);

	CHECK(rc >= 0);
	return rc > 0;
}

static int64_t
t_int(struct core_thrift_reader *r, uint8_t t)
{
	int64_t v;

	CHECK(core_thrift_read_int(r, t, &v) == 0);
	return v;
}

static void
t_skip(struct core_thrift_reader *r, uint8_t t)
{
	CHECK(core_thrift_skip(r, t) == 0);
}

static uint32_t
t_list(struct core_thrift_reader *r, uint8_t t, uint8_t *et)
{
	uint32_t n;

	CHECK(t == CORE_THRIFT_LIST);
	CHECK(core_thrift_read_list(r, et, &n) == 0);
	return n;
}

static void
t_struct(struct core_thrift_reader *r)
{
	CHECK(core_thrift_read_struct(r) == 0);
}

static void
t_binary(struct core_thrift_reader *r, uint8_t t, const uint8_t **p,
    size_t *n)
{
	CHECK(t == CORE_THRIFT_BINARY);
	CHECK(core_thrift_read_binary(r, p, n) == 0);
}

static int
t_bool(uint8_t t)
{
	CHECK(t == CORE_THRIFT_TRUE || t == CORE_THRIFT_FALSE);
	return t == CORE_THRIFT_TRUE;
}

static void
parse_stats(struct core_thrift_reader *r, struct chunk_meta *m)
{
	int16_t id;
	uint8_t t;

	t_struct(r);
	m->stats = true;
	while (t_field(r, &id, &t)) {
		switch (id) {
		case 3:
			m->has_nc = true;
			m->nc = t_int(r, t);
			break;
		case 5:
			t_binary(r, t, &m->max, &m->maxlen);
			break;
		case 6:
			t_binary(r, t, &m->min, &m->minlen);
			break;
		case 7:
			m->max_exact = t_bool(t);
			break;
		case 8:
			m->min_exact = t_bool(t);
			break;
		case 9:
			m->has_nans = true;
			m->nans = t_int(r, t);
			break;
		default:
			t_skip(r, t);
			break;
		}
	}
}

static void
parse_col_meta(struct core_thrift_reader *r, struct chunk_meta *m)
{
	uint32_t n, k;
	int16_t id;
	uint8_t t, et;

	t_struct(r);
	while (t_field(r, &id, &t)) {
		switch (id) {
		case 1:
			m->ptype = t_int(r, t);
			break;
		case 2:
			n = t_list(r, t, &et);
			for (k = 0; k < n; k++)
				if (t_int(r, et) == 8)
					m->dict_enc = true;
			break;
		case 4:
			m->codec = t_int(r, t);
			break;
		case 5:
			m->nvalues = t_int(r, t);
			break;
		case 7:
			m->total_comp = t_int(r, t);
			break;
		case 9:
			m->data_off = t_int(r, t);
			break;
		case 11:
			m->dict_off = t_int(r, t);
			break;
		case 12:
			parse_stats(r, m);
			break;
		default:
			t_skip(r, t);
			break;
		}
	}
}

static void
parse_chunk(struct core_thrift_reader *r, struct chunk_meta *m)
{
	int16_t id;
	uint8_t t;

	memset(m, 0, sizeof(*m));
	m->ptype = m->codec = m->nvalues = m->total_comp = -1;
	m->data_off = m->dict_off = -1;
	m->min_exact = m->max_exact = -1;
	m->oi_off = m->oi_len = m->ci_off = m->ci_len = -1;
	t_struct(r);
	while (t_field(r, &id, &t)) {
		switch (id) {
		case 3:
			parse_col_meta(r, m);
			break;
		case 4:
			m->oi_off = t_int(r, t);
			break;
		case 5:
			m->oi_len = t_int(r, t);
			break;
		case 6:
			m->ci_off = t_int(r, t);
			break;
		case 7:
			m->ci_len = t_int(r, t);
			break;
		default:
			t_skip(r, t);
			break;
		}
	}
}

static void
parse_footer(const uint8_t *file, size_t len, uint32_t ncols,
    struct file_meta *fm)
{
	struct core_thrift_reader r;
	uint32_t flen, n, g, k;
	int16_t id, id2;
	uint8_t t, t2, et;

	memset(fm, 0, sizeof(*fm));
	fm->nrows = -1;
	CHECK(memcmp(file, "PAR1", 4) == 0);
	CHECK(memcmp(file + len - 4, "PAR1", 4) == 0);
	memcpy(&flen, file + len - 8, 4);
	CHECK(flen <= len - 12);
	core_thrift_reader_init(&r, file + len - 8 - flen, flen);
	while (t_field(&r, &id, &t)) {
		if (id == 3) {
			fm->nrows = t_int(&r, t);
			continue;
		}
		if (id != 4) {
			t_skip(&r, t);
			continue;
		}
		n = t_list(&r, t, &et);
		CHECK(et == CORE_THRIFT_STRUCT);
		fm->nrg = n;
		fm->rg_rows = core_xcalloc(n ? n : 1, sizeof(*fm->rg_rows));
		fm->cm = core_xcalloc(core_mul_size(n ? n : 1, ncols),
		    sizeof(*fm->cm));
		for (g = 0; g < n; g++) {
			fm->rg_rows[g] = -1;
			t_struct(&r);
			while (t_field(&r, &id2, &t2)) {
				if (id2 == 3) {
					fm->rg_rows[g] = t_int(&r, t2);
				} else if (id2 == 1) {
					CHECK(t_list(&r, t2, &et) == ncols);
					for (k = 0; k < ncols; k++)
						parse_chunk(&r, &fm->cm[
						    (size_t)g * ncols + k]);
				} else {
					t_skip(&r, t2);
				}
			}
		}
	}
	CHECK(core_thrift_reader_used(&r, file + len - 8 - flen) == flen);
}

/* A chunk's OffsetIndex: where its data pages are and their first rows. */
struct pages {
	uint32_t n;
	int64_t *off, *first;	/* owned */
	int32_t *size;		/* owned */
};

static void
parse_offset_index(const uint8_t *file, size_t len,
    const struct chunk_meta *m, struct pages *pg)
{
	struct core_thrift_reader r;
	uint32_t k;
	int16_t id, id2;
	uint8_t t, t2, et;

	memset(pg, 0, sizeof(*pg));
	CHECK(m->oi_off >= 4 && m->oi_len > 0 &&
	    (uint64_t)m->oi_off + (uint64_t)m->oi_len <= len - 8);
	core_thrift_reader_init(&r, file + m->oi_off, (size_t)m->oi_len);
	while (t_field(&r, &id, &t)) {
		if (id != 1) {
			t_skip(&r, t);
			continue;
		}
		CHECK(pg->off == NULL);
		pg->n = t_list(&r, t, &et);
		CHECK(et == CORE_THRIFT_STRUCT);
		pg->off = core_xcalloc(pg->n + 1, sizeof(*pg->off));
		pg->first = core_xcalloc(pg->n + 1, sizeof(*pg->first));
		pg->size = core_xcalloc(pg->n + 1, sizeof(*pg->size));
		for (k = 0; k < pg->n; k++) {
			pg->off[k] = pg->first[k] = pg->size[k] = -1;
			t_struct(&r);
			while (t_field(&r, &id2, &t2)) {
				if (id2 == 1)
					pg->off[k] = t_int(&r, t2);
				else if (id2 == 2)
					pg->size[k] = (int32_t)t_int(&r, t2);
				else if (id2 == 3)
					pg->first[k] = t_int(&r, t2);
				else
					t_skip(&r, t2);
			}
		}
	}
	CHECK(core_thrift_reader_used(&r, file + m->oi_off) ==
	    (size_t)m->oi_len);
	CHECK(pg->off != NULL);
}

static void
pages_free(struct pages *pg)
{
	free(pg->off);
	free(pg->first);
	free(pg->size);
}

/* ---- the checks ---- */

/* The chunk's pages tile it and its rows [0, rows). */
static void
check_pages(const struct chunk_meta *m, const struct pages *pg,
    uint64_t rows)
{
	int64_t start = m->dict_off >= 0 ? m->dict_off : m->data_off;
	uint32_t k;

	CHECK(pg->n >= 1);
	CHECK(pg->off[0] == m->data_off);
	CHECK(pg->first[0] == 0);
	for (k = 0; k < pg->n; k++) {
		CHECK(pg->size[k] > 0);
		if (k + 1 < pg->n) {
			CHECK(pg->off[k] + pg->size[k] == pg->off[k + 1]);
			CHECK(pg->first[k] < pg->first[k + 1]);
		}
	}
	CHECK(pg->first[pg->n - 1] < (int64_t)rows);
	CHECK(pg->off[pg->n - 1] + pg->size[pg->n - 1] ==
	    start + m->total_comp);
}

/* A ColumnIndex: each page's NULLs, all-NULL flag, min and max; the
 * rows of page k are r0 + [first[k], first[k + 1]). */
static void
check_column_index(const uint8_t *file, const struct col *c,
    const struct chunk_meta *m, const struct pages *pg, uint64_t r0,
    uint64_t r1)
{
	struct core_thrift_reader r;
	struct truth tr;
	uint8_t want[16], seen = 0, t, et;
	const uint8_t *p;
	size_t n, wn;
	uint32_t k, cnt;
	uint64_t a, b;
	int16_t id;
	int64_t v;

	CHECK(m->ci_off >= 4 && m->ci_len > 0);
	core_thrift_reader_init(&r, file + m->ci_off, (size_t)m->ci_len);
	while (t_field(&r, &id, &t)) {
		if (id == 4) {
			CHECK(t_int(&r, t) == 0);	/* UNORDERED */
			seen |= 1u << 4;
			continue;
		}
		if (id < 1 || id > 5) {
			t_skip(&r, t);
			continue;
		}
		seen |= (uint8_t)(1u << id);
		cnt = t_list(&r, t, &et);
		CHECK(cnt == pg->n);
		for (k = 0; k < cnt; k++) {
			a = r0 + (uint64_t)pg->first[k];
			b = k + 1 < cnt ? r0 + (uint64_t)pg->first[k + 1] :
			    r1;
			truth_of(c, a, b, &tr);
			switch (id) {
			case 1:
				CHECK(core_thrift_read_int(&r,
				    CORE_THRIFT_BYTE, &v) == 0);
				CHECK((v == 1) == (tr.nvalid == 0));
				break;
			case 5:
				CHECK(t_int(&r, et) == (int64_t)tr.nulls);
				break;
			default:
				t_binary(&r, et, &p, &n);
				if (tr.nvalid == 0) {
					CHECK(n == 0);
					break;
				}
				wn = int_bytes(c->type, id == 2 ? tr.imin :
				    tr.imax, want);
				CHECK(n == wn && memcmp(p, want, n) == 0);
				break;
			}
		}
	}
	CHECK(seen == 0x3e);
	CHECK(core_thrift_reader_used(&r, file + m->ci_off) ==
	    (size_t)m->ci_len);
}

/* A chunk's Statistics against the truth of its rows. */
static void
check_statistics(const struct col *c, const struct chunk_meta *m,
    const struct truth *tr)
{
	uint8_t wmin[16], wmax[16], bound[CORE_PARQUET_STATS_MAX];
	const uint8_t *emin = wmin, *emax = wmax;
	size_t nmin = 0, nmax = 0;
	bool has_min = tr->has, has_max = tr->has;
	bool min_exact = true, max_exact = true;
	double d;

	CHECK(m->has_nc && m->nc == (int64_t)tr->nulls);
	CHECK(m->has_nans == (c->type.id == CORE_TYPE_FLOAT64));
	if (m->has_nans)
		CHECK(m->nans == (int64_t)tr->nans);
	if (tr->has) {
		switch (c->type.id) {
		case CORE_TYPE_FLOAT64:
			/* parquet.thrift: a zero minimum is -0.0, a zero
			 * maximum +0.0. */
			d = tr->dmin == 0 ? -0.0 : tr->dmin;
			memcpy(wmin, &d, 8);
			d = tr->dmax == 0 ? 0.0 : tr->dmax;
			memcpy(wmax, &d, 8);
			nmin = nmax = 8;
			break;
		case CORE_TYPE_STRING:
			emin = tr->smin;
			nmin = core_parquet_stats_lower(tr->smin,
			    tr->sminlen, CORE_PARQUET_STATS_MAX);
			min_exact = tr->sminlen <= CORE_PARQUET_STATS_MAX;
			emax = tr->smax;
			nmax = tr->smaxlen;
			if (tr->smaxlen > CORE_PARQUET_STATS_MAX) {
				has_max = core_parquet_stats_upper(tr->smax,
				    tr->smaxlen, CORE_PARQUET_STATS_MAX,
				    bound, &nmax);
				emax = bound;
				max_exact = false;
			}
			break;
		default:
			nmin = int_bytes(c->type, tr->imin, wmin);
			nmax = int_bytes(c->type, tr->imax, wmax);
			break;
		}
	}
	CHECK((m->min != NULL) == has_min);
	CHECK((m->max != NULL) == has_max);
	CHECK(m->min_exact == (has_min ? (int)min_exact : -1));
	CHECK(m->max_exact == (has_max ? (int)max_exact : -1));
	if (has_min)
		CHECK(m->minlen == nmin && (nmin == 0 ||
		    memcmp(m->min, emin, nmin) == 0));
	if (has_max)
		CHECK(m->maxlen == nmax && (nmax == 0 ||
		    memcmp(m->max, emax, nmax) == 0));
	/* And bounds they are, whatever the rules of the cut. */
	if (c->type.id == CORE_TYPE_STRING && has_min) {
		CHECK(m->minlen <= CORE_PARQUET_STATS_MAX);
		CHECK(bytes_cmp(m->min, m->minlen, tr->smin,
		    tr->sminlen) <= 0);
	}
	if (c->type.id == CORE_TYPE_STRING && has_max) {
		CHECK(m->maxlen <= CORE_PARQUET_STATS_MAX);
		CHECK(bytes_cmp(m->max, m->maxlen, tr->smax,
		    tr->smaxlen) >= 0);
	}
}

/* What core_parquet_file_colstats gives against the truth. */
static void
check_colstats(const struct core_parquet_file *f, uint32_t g, uint32_t i,
    const struct col *c, const struct truth *tr, uint64_t rows,
    bool statistics)
{
	struct core_colstats st;
	bool any = core_parquet_file_colstats(f, g, i, &st);
	uint8_t bound[CORE_PARQUET_STATS_MAX];
	size_t nb;
	bool ub;

	CHECK(st.rows == rows);
	if (!statistics) {
		CHECK(!any && !st.has_null_count && !st.has_minmax);
		return;
	}
	CHECK(any && st.has_null_count && st.null_count == tr->nulls);
	switch (c->type.id) {
	case CORE_TYPE_INT32:
	case CORE_TYPE_INT64:
	case CORE_TYPE_DATE:
	case CORE_TYPE_TIMESTAMP:
	case CORE_TYPE_DECIMAL:
		CHECK(st.has_minmax == tr->has);
		if (tr->has)
			CHECK(st.imin == (int64_t)tr->imin &&
			    st.imax == (int64_t)tr->imax);
		break;
	case CORE_TYPE_DECIMAL128:
		CHECK(st.has_minmax == tr->has);
		if (tr->has)
			CHECK(st.wmin == tr->imin && st.wmax == tr->imax);
		break;
	case CORE_TYPE_STRING:
		ub = tr->has && core_parquet_stats_upper(tr->smax,
		    tr->smaxlen, CORE_PARQUET_STATS_MAX, bound, &nb);
		CHECK(st.has_minmax == ub);
		if (!st.has_minmax)
			break;
		CHECK(bytes_cmp((const uint8_t *)st.smin, st.sminlen,
		    tr->smin, tr->sminlen) <= 0);
		CHECK(bytes_cmp((const uint8_t *)st.smax, st.smaxlen,
		    tr->smax, tr->smaxlen) >= 0);
		if (tr->sminlen <= CORE_PARQUET_STATS_MAX)
			CHECK(st.sminlen == tr->sminlen && memcmp(st.smin,
			    tr->smin, tr->sminlen) == 0);
		if (tr->smaxlen <= CORE_PARQUET_STATS_MAX)
			CHECK(st.smaxlen == tr->smaxlen && memcmp(st.smax,
			    tr->smax, tr->smaxlen) == 0);
		break;
	default:
		/* Bools and doubles: the reader keeps no min and max. */
		break;
	}
}

/* Every row group and column chunk of the footer against the truth. */
static void
check_footer(const uint8_t *file, size_t len, const struct recipe *rc,
    const struct core_parquet_file *f)
{
	const struct core_parquet_options *o = &rc->o;
	struct file_meta fm;
	struct truth tr;
	struct pages pg;
	uint64_t r0 = 0, r1;
	uint32_t g, i;

	parse_footer(file, len, rc->ncols, &fm);
	CHECK(fm.nrows == (int64_t)rc->nrows);
	CHECK(fm.nrg == core_parquet_file_nrow_groups(f));
	for (g = 0; g < fm.nrg; g++) {
		r1 = r0 + core_parquet_file_row_group_rows(f, g);
		CHECK(fm.rg_rows[g] == (int64_t)(r1 - r0));
		for (i = 0; i < rc->ncols; i++) {
			const struct col *c = &rc->cols[i];
			const struct chunk_meta *m =
			    &fm.cm[(size_t)g * rc->ncols + i];

			CHECK(m->ptype == phys_type(c->type));
			CHECK(m->codec == (int64_t)o->codec);
			CHECK(m->nvalues == (int64_t)(r1 - r0));
			CHECK(m->data_off >= 4 && m->total_comp > 0);
			CHECK((m->dict_off >= 0) == m->dict_enc);
			if (m->dict_off >= 0)
				CHECK(m->dict_off < m->data_off);
			if (c->dict == CORE_PARQUET_DICT_OFF ||
			    c->type.id == CORE_TYPE_BOOL ||
			    c->type.id == CORE_TYPE_DECIMAL128)
				CHECK(!m->dict_enc);
			truth_of(c, r0, r1, &tr);
			CHECK(m->stats == o->statistics);
			if (m->stats)
				check_statistics(c, m, &tr);
			check_colstats(f, g, i, c, &tr, r1 - r0,
			    o->statistics);
			parse_offset_index(file, len, m, &pg);
			check_pages(m, &pg, r1 - r0);
			if (o->statistics && has_column_index(c->type))
				check_column_index(file, c, m, &pg, r0, r1);
			else
				CHECK(m->ci_off < 0 && m->ci_len < 0);
			pages_free(&pg);
		}
		r0 = r1;
	}
	CHECK(r0 == rc->nrows);
	free(fm.rg_rows);
	free(fm.cm);
}

/* Row r of batch column bc against row g of the truth. */
static void
check_cell(const struct core_column *bc, uint32_t r, const struct col *c,
    uint64_t g)
{
	static const uint8_t zero[16];
	bool valid = core_col_is_valid(bc, r);
	size_t n;

	CHECK(valid == (c->valid[g] != 0));
	if (c->type.id == CORE_TYPE_STRING) {
		n = (size_t)(bc->offsets[r + 1] - bc->offsets[r]);
		CHECK(n == c->soff[g + 1] - c->soff[g]);
		CHECK(n == 0 || memcmp((const uint8_t *)bc->values +
		    bc->offsets[r], c->sb + c->soff[g], n) == 0);
		return;
	}
	/* Equal bytes, NaNs bitwise; a NULL's slot zero, as the truth's. */
	CHECK(memcmp((const uint8_t *)bc->values + (size_t)r * c->width,
	    valid ? c->val + g * c->width : zero, c->width) == 0);
}

/* Opens the file, checks its schema and row groups, and scans every
 * column; the footer's facts are check_footer's. */
static void
check_read(int fd, const uint8_t *file, size_t len, const struct recipe *rc)
{
	const struct core_parquet_options *o = &rc->o;
	struct core_parquet_file *f = NULL;
	struct core_parquet_scan *s = NULL;
	struct core_pool *pool = NULL;
	struct core_batch b;
	struct core_err err = { 0, "" };
	uint32_t cols[MAX_COLS], i, g, r, nrg;
	uint64_t row = 0, rg_end, rows;
	char name[16];
	int rc_;

	rc_ = core_parquet_file_open_fd(fd, "fuzz", &f, &err);
	if (rc_ != 0) {
		fprintf(stderr, "fuzz_parquet_roundtrip: open: %s\n",
		    err.msg);
		fail(__LINE__, "the reader opens the file");
	}
	CHECK(core_parquet_file_ncols(f) == rc->ncols);
	CHECK(core_parquet_file_nrows(f) == rc->nrows);
	CHECK(strncmp(core_parquet_file_created_by(f), "colpipe version ",
	    16) == 0);
	for (i = 0; i < rc->ncols; i++) {
		const struct core_parquet_column *pc =
		    core_parquet_file_column(f, i);

		snprintf(name, sizeof(name), "c%u", i);
		CHECK(strcmp(pc->name, name) == 0);
		CHECK(pc->supported);
		CHECK(core_type_equal(pc->type, rc->cols[i].type));
		cols[i] = i;
	}
	nrg = core_parquet_file_nrow_groups(f);
	for (g = 0; g < nrg; g++) {
		rows = core_parquet_file_row_group_rows(f, g);
		CHECK(rows >= 1 && rows <= o->row_group_rows);
		/* Only the row limit ends a row group when no byte limit
		 * is near. */
		if (g + 1 < nrg && o->row_group_bytes ==
		    CORE_PARQUET_DEFAULT_ROW_GROUP_BYTES)
			CHECK(rows == o->row_group_rows);
	}
	CHECK(nrg == 0 || rc->nrows > 0);

	CHECK(core_parquet_scan_new(f, cols, rc->ncols, &s, &err) == 0);
	if (rc->read_pool) {
		pool = core_pool_new(2);
		core_parquet_scan_pool(s, pool);
	}
	for (i = 0; i < rc->ncols; i++) {
		const struct core_field *fl =
		    &core_parquet_scan_schema(s)->fields[i];

		snprintf(name, sizeof(name), "c%u", i);
		CHECK(strcmp(fl->name, name) == 0 &&
		    core_type_equal(fl->type, rc->cols[i].type));
	}
	core_batch_init(&b, core_parquet_scan_schema(s));
	g = 0;
	rg_end = nrg > 0 ? core_parquet_file_row_group_rows(f, 0) : 0;
	while ((rc_ = core_parquet_scan_next(s, &b, &err)) == 0) {
		CHECK(b.nrows >= 1 && b.nrows <= CORE_PARQUET_READ_BATCH_ROWS);
		CHECK(core_batch_check(&b) == NULL);
		while (row >= rg_end && g + 1 < nrg)
			rg_end += core_parquet_file_row_group_rows(f, ++g);
		/* A batch never spans two row groups. */
		CHECK(row + b.nrows <= rg_end);
		for (i = 0; i < rc->ncols; i++) {
			CHECK(core_type_equal(b.cols[i].type,
			    rc->cols[i].type));
			CHECK(b.cols[i].stride == 0);
			for (r = 0; r < b.nrows; r++)
				check_cell(&b.cols[i], r, &rc->cols[i],
				    row + r);
		}
		row += b.nrows;
	}
	if (rc_ != CORE_EOF) {
		fprintf(stderr, "fuzz_parquet_roundtrip: scan: %s\n",
		    err.msg);
		fail(__LINE__, "the scan reads every row");
	}
	CHECK(row == rc->nrows);
	core_batch_release(&b);
	core_parquet_scan_free(s);
	core_pool_free(pool);

	check_footer(file, len, rc, f);
	core_parquet_file_free(f);
}

static void
recipe_free(struct recipe *rc)
{
	uint32_t i;

	for (i = 0; i < rc->ncols; i++) {
		free(rc->cols[i].valid);
		free(rc->cols[i].val);
		free(rc->cols[i].soff);
		free(rc->cols[i].sb);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct recipe *rc = core_xcalloc(1, sizeof(*rc));
	struct core_schema *schema;
	struct core_batch b[MAX_BATCHES];
	struct core_parquet_options o2;
	struct gen g = { data, size, 0, 0x9e3779b97f4a7c15ull };
	uint8_t *file, *file2;
	size_t len, len2, k;
	uint64_t r0;
	uint32_t i, j;
	char name[16];
	int fd, fd2;

	/* The generator's seed: every byte of the input. */
	for (k = 0; k < size; k++)
		g.x = (g.x ^ data[k]) * 0x100000001b3ull;
	g.x |= 1;
	rc->ncols = 1 + g8(&g) % MAX_COLS;
	schema = core_schema_new(rc->ncols);
	for (i = 0; i < rc->ncols; i++) {
		col_setup(&g, &rc->cols[i]);
		snprintf(name, sizeof(name), "c%u", i);
		core_schema_set(schema, i, name, rc->cols[i].type);
	}
	draw_options(&g, rc);
	for (i = 0; i < rc->ncols; i++) {
		struct col *c = &rc->cols[i];

		c->valid = core_xmalloc(rc->nrows + 1);
		c->val = core_xmalloc(core_mul_size(rc->nrows + 1,
		    c->width ? c->width : 1));
		c->soff = core_xcalloc(rc->nrows + 1, sizeof(*c->soff));
		c->sbcap = 64;
		c->sb = core_xmalloc(c->sbcap);
	}
	/* The values, batch after batch; a column's NULLs may change from
	 * one batch to the next. */
	for (j = 0, r0 = 0; j < rc->nbatches; j++) {
		for (i = 0; i < rc->ncols; i++) {
			struct col *c = &rc->cols[i];
			uint8_t over = g8(&g);

			gen_rows(&g, rc, c, r0, rc->batch_rows[j],
			    over % 8 == 0 ? 1 : over % 8 == 1 ? 0 :
			    c->nullmode);
		}
		core_batch_init(&b[j], schema);
		make_batch(&g, rc, &b[j], r0, rc->batch_rows[j]);
		r0 += rc->batch_rows[j];
	}

	fd = memfd_create("fuzz", 0);
	CHECK(fd >= 0);
	write_file(fd, schema, rc, &rc->o, b);
	file = file_bytes(fd, &len);
	if (rc->twice) {
		/* The same file on the other thread count. */
		o2 = rc->o;
		o2.threads = o2.threads == 1 ? 2 : 1;
		fd2 = memfd_create("fuzz", 0);
		CHECK(fd2 >= 0);
		write_file(fd2, schema, rc, &o2, b);
		file2 = file_bytes(fd2, &len2);
		CHECK(len2 == len && memcmp(file, file2, len) == 0);
		free(file2);
		close(fd2);
	}
	check_read(fd, file, len, rc);

	free(file);
	close(fd);
	for (j = 0; j < rc->nbatches; j++)
		core_batch_release(&b[j]);
	core_schema_free(schema);
	recipe_free(rc);
	free(rc);
	return 0;
}
