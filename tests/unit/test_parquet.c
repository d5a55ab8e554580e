/*
 * test_parquet.c - the Thrift compact encoder, the RLE/bit-packing hybrid
 * and the Parquet writer.
 *
 * The encoder is checked against bytes worked out by hand from the
 * compact protocol specification.  The hybrid encoder is checked against
 * a plain reference decoder on random runs at every bit width.  Written
 * files are read back by a minimal Parquet reader below (a generic Thrift
 * compact decoder, the page walk, PLAIN and dictionary decoding, every
 * codec) and must give back every value, NULL and statistic of the
 * batches that went in (the ColumnIndex's null pages, min and max of
 * each integer column's pages included), for every codec, dictionary mode (global and per
 * column), page size and row group size tried.  The bounds that stand in
 * for long string statistics are checked against a reference built on
 * Unicode's table of well-formed UTF-8 sequences, on edge cases and on
 * random strings of code points and stray bytes.
 */
#include <math.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <snappy-c.h>
#include <zlib.h>
#include <zstd.h>

#include "core_alloc.h"
#include "core_col.h"
#include "core_value.h"
#include "core_io.h"
#include "core_parquet_write.h"
#include "core_thrift.h"
#include "unit.h"

/* ---- Thrift encoder ---- */

static void
test_thrift_bytes(void)
{
	static const uint8_t want[] = {
		0x15, 0x0a,			/* 1: i32 5 */
		0x26, 0x01,			/* 3: i64 -1 */
		0x08, 0x28, 0x02, 'a', 'b',	/* 20: binary "ab" (long) */
		0x11,				/* 21: bool true */
		0x19, 0x25, 0x02, 0x01,		/* 22: list<i32> [1, -1] */
		0x1c,				/* 23: struct { */
		0x15, 0xd8, 0x04,		/*   1: i32 300 */
		0x12,				/*   2: bool false */
		0x00,				/* } */
		0x15, 0x00,			/* 24: i32 0 */
		0x16, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xff, 0x01,			/* 25: i64 INT64_MIN */
		0x19, 0xf5, 0x14,		/* 26: list<i32>, 20 elements */
	};
	struct core_thrift t;
	int i;

	core_thrift_init(&t);
	core_thrift_field_i32(&t, 1, 5);
	core_thrift_field_i64(&t, 3, -1);
	core_thrift_field_binary(&t, 20, "ab", 2);
	core_thrift_field_bool(&t, 21, true);
	core_thrift_field_list(&t, 22, CORE_THRIFT_I32, 2);
	core_thrift_elem_i32(&t, 1);
	core_thrift_elem_i32(&t, -1);
	core_thrift_field_struct(&t, 23);
	core_thrift_field_i32(&t, 1, 300);
	core_thrift_field_bool(&t, 2, false);
	core_thrift_struct_end(&t);
	core_thrift_field_i32(&t, 24, 0);
	core_thrift_field_i64(&t, 25, INT64_MIN);
	core_thrift_field_list(&t, 26, CORE_THRIFT_I32, 20);
	CHECK_EQ_INT(t.len, sizeof(want));
	for (i = 0; i < (int)sizeof(want) && i < (int)t.len; i++)
		if (t.buf[i] != want[i]) {
			printf("# byte %d: %02x, want %02x\n", i, t.buf[i],
			    want[i]);
			CHECK(t.buf[i] == want[i]);
		}
	for (i = 0; i < 20; i++)
		core_thrift_elem_i32(&t, i);
	/* Delta 15 is the last short form, 16 the first long one. */
	core_thrift_field_i32(&t, 41, 1);
	core_thrift_field_i32(&t, 57, 1);
	core_thrift_struct_end(&t);
	CHECK_EQ_INT(t.len, sizeof(want) + 20 + 2 + 3 + 1);
	CHECK_EQ_INT(t.buf[t.len - 6], 0xf5);
	CHECK_EQ_INT(t.buf[t.len - 5], 0x02);
	CHECK_EQ_INT(t.buf[t.len - 4], 0x05);
	CHECK_EQ_INT(t.buf[t.len - 3], 0x72);
	CHECK_EQ_INT(t.buf[t.len - 2], 0x02);
	CHECK_EQ_INT(t.buf[t.len - 1], 0);
	CHECK_EQ_INT(t.depth, 0);
	core_thrift_release(&t);
}

/* ---- a reference hybrid decoder ---- */

static uint64_t
varint(const uint8_t **p, const uint8_t *end, int *bad)
{
	uint64_t v = 0;
	int shift = 0;

	while (*p < end && shift < 64) {
		uint8_t b = *(*p)++;

		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
		shift += 7;
	}
	*bad = 1;
	return 0;
}

/* Decodes n values of width w; -1 when the bytes run out first. */
static int
rle_decode(const uint8_t *p, size_t len, int w, uint32_t *out, size_t n)
{
	const uint8_t *end = p + len;
	size_t got = 0, i, k;
	int bad = 0, b;

	while (got < n) {
		uint64_t h = varint(&p, end, &bad);

		if (bad)
			return -1;
		if (h & 1) {
			size_t cnt = (size_t)(h >> 1) * 8;
			uint64_t bitpos = 0;

			if ((size_t)(end - p) < (h >> 1) * (size_t)w)
				return -1;
			for (i = 0; i < cnt; i++) {
				uint32_t v = 0;

				for (b = 0; b < w; b++, bitpos++)
					v |= (uint32_t)((p[bitpos / 8] >>
					    (bitpos % 8)) & 1) << b;
				if (got < n)
					out[got++] = v;
			}
			p += (h >> 1) * (size_t)w;
		} else {
			uint32_t v = 0;
			int nb = (w + 7) / 8;

			if (end - p < nb)
				return -1;
			for (b = 0; b < nb; b++)
				v |= (uint32_t)p[b] << (8 * b);
			p += nb;
			for (k = 0; k < (h >> 1) && got < n; k++)
				out[got++] = v;
		}
	}
	return 0;
}

static void
test_rle_known(void)
{
	struct core_parquet_rle r;
	uint32_t i;

	core_parquet_rle_init(&r, 1);
	core_parquet_rle_put_run(&r, 0, 8);
	core_parquet_rle_finish(&r);
	CHECK_EQ_INT(r.len, 2);
	CHECK_EQ_INT(r.buf[0], 0x10);
	CHECK_EQ_INT(r.buf[1], 0x00);

	core_parquet_rle_reset(&r, 1);
	for (i = 0; i < 8; i++)
		core_parquet_rle_put(&r, (i + 1) & 1);
	core_parquet_rle_finish(&r);
	CHECK_EQ_INT(r.len, 2);
	CHECK_EQ_INT(r.buf[0], 0x03);
	CHECK_EQ_INT(r.buf[1], 0x55);

	/* Width 3, values 0..7: the example of Encodings.md. */
	core_parquet_rle_reset(&r, 3);
	for (i = 0; i < 8; i++)
		core_parquet_rle_put(&r, i);
	core_parquet_rle_finish(&r);
	CHECK_EQ_INT(r.len, 4);
	CHECK_EQ_INT(r.buf[0], 0x03);
	CHECK_EQ_INT(r.buf[1], 0x88);
	CHECK_EQ_INT(r.buf[2], 0xc6);
	CHECK_EQ_INT(r.buf[3], 0xfa);

	/* A 300-long run of 1000 at width 10: RLE, 2-byte value. */
	core_parquet_rle_reset(&r, 10);
	core_parquet_rle_put_run(&r, 1000, 300);
	core_parquet_rle_finish(&r);
	CHECK_EQ_INT(r.len, 4);
	CHECK_EQ_INT(r.buf[0], 0xd8);	/* 600 = 0x258 */
	CHECK_EQ_INT(r.buf[1], 0x04);
	CHECK_EQ_INT(r.buf[2], 0xe8);
	CHECK_EQ_INT(r.buf[3], 0x03);
	core_parquet_rle_release(&r);

	CHECK_EQ_INT(core_parquet_bit_width(0), 1);
	CHECK_EQ_INT(core_parquet_bit_width(1), 1);
	CHECK_EQ_INT(core_parquet_bit_width(2), 2);
	CHECK_EQ_INT(core_parquet_bit_width(255), 8);
	CHECK_EQ_INT(core_parquet_bit_width(256), 9);
	CHECK_EQ_INT(core_parquet_bit_width(UINT32_MAX), 32);
}

/* Random runs and literals at every width, fed value by value and as
 * runs, must decode to what went in. */
static void
test_rle_random(void)
{
	enum { N = 20000 };
	uint32_t *in = core_xmalloc(N * sizeof(*in));
	uint32_t *got = core_xmalloc(N * sizeof(*got));
	struct core_parquet_rle r;
	int w, trial, bad = 0;
	size_t n, i;

	core_parquet_rle_init(&r, 1);
	for (w = 1; w <= 32; w++) {
		for (trial = 0; trial < 12; trial++) {
			uint32_t mask = w == 32 ? UINT32_MAX :
			    ((uint32_t)1 << w) - 1;
			size_t limit = (size_t)(unit_rand() % N) + 1;

			if (trial == 0)
				limit = (size_t)trial + 1;
			n = 0;
			core_parquet_rle_reset(&r, w);
			while (n < limit) {
				uint32_t v = (uint32_t)unit_rand() & mask;
				size_t run = unit_rand() % 4 == 0 ?
				    unit_rand() % 40 + 1 : 1;

				if (run > limit - n)
					run = limit - n;
				if (unit_rand() % 3 == 0 && n > 0)
					v = in[n - 1];
				for (i = 0; i < run; i++)
					in[n + i] = v;
				if (unit_rand() % 2)
					core_parquet_rle_put_run(&r, v, run);
				else
					for (i = 0; i < run; i++)
						core_parquet_rle_put(&r, v);
				n += run;
			}
			core_parquet_rle_finish(&r);
			if (rle_decode(r.buf, r.len, w, got, n) != 0 ||
			    memcmp(in, got, n * sizeof(*in)) != 0) {
				if (bad++ < 5)
					printf("# width %d, %zu values: "
					    "mismatch\n", w, n);
			}
		}
	}
	CHECK_EQ_INT(bad, 0);
	core_parquet_rle_release(&r);
	free(in);
	free(got);
}

/* The hybrid encoding's rule spelled out value by value, bit by bit:
 * the reference the encoder's bytes must equal. */
struct ref_rle {
	uint8_t *out;
	size_t len;
	int w;
	uint32_t lit[504];
	unsigned nlit;
};

static void
ref_varint(struct ref_rle *r, uint64_t v)
{
	do {
		r->out[r->len++] = (uint8_t)((v & 0x7f) | (v >= 0x80 ?
		    0x80 : 0));
		v >>= 7;
	} while (v != 0);
}

static void
ref_flush(struct ref_rle *r)
{
	size_t bit = 0, nbytes;
	unsigned i;
	int b;

	if (r->nlit == 0)
		return;
	while (r->nlit % 8 != 0)
		r->lit[r->nlit++] = 0;
	ref_varint(r, (uint64_t)(r->nlit / 8) << 1 | 1);
	nbytes = (size_t)r->nlit / 8 * (size_t)r->w;
	memset(r->out + r->len, 0, nbytes);
	for (i = 0; i < r->nlit; i++)
		for (b = 0; b < r->w; b++, bit++)
			if (r->lit[i] >> b & 1)
				r->out[r->len + bit / 8] |= (uint8_t)(1 <<
				    bit % 8);
	r->len += nbytes;
	r->nlit = 0;
}

static void
ref_push(struct ref_rle *r, uint32_t v)
{
	r->lit[r->nlit++] = v;
	if (r->nlit == 504)
		ref_flush(r);
}

/* Encodes v[0..n) into out (room enough): each maximal run of 8 or more
 * after topping up the pending literals to a whole group is an RLE run,
 * all else bit-packed in flushes of at most 504. */
static size_t
rle_ref_encode(const uint32_t *v, size_t n, int w, uint8_t *out)
{
	struct ref_rle r = { .out = out, .w = w };
	size_t i = 0, j, len;
	int b;

	while (i < n) {
		for (j = i; j < n && v[j] == v[i]; j++)
			;
		len = j - i;
		if (len >= 8)
			while (r.nlit % 8 != 0 && len > 0) {
				ref_push(&r, v[i]);
				len--;
			}
		if (len >= 8) {
			ref_flush(&r);
			ref_varint(&r, (uint64_t)len << 1);
			for (b = 0; b < (w + 7) / 8; b++)
				r.out[r.len++] = (uint8_t)(v[i] >> 8 * b);
		} else {
			while (len-- > 0)
				ref_push(&r, v[i]);
		}
		i = j;
	}
	ref_flush(&r);
	return r.len;
}

/* put_array, put_run and put in random mixes must give the reference's
 * bytes at every width, on runs of every length around 8. */
static void
test_rle_array(void)
{
	enum { N = 6000 };
	uint32_t *in = core_xmalloc(N * sizeof(*in));
	uint8_t *want = core_xmalloc(N * 8 + 64);
	struct core_parquet_rle r;
	int w, trial, bad = 0;
	size_t n, i, k, wlen;

	core_parquet_rle_init(&r, 1);
	for (w = 1; w <= 32; w++) {
		for (trial = 0; trial < 20; trial++) {
			uint32_t mask = w == 32 ? UINT32_MAX :
			    ((uint32_t)1 << w) - 1;
			unsigned maxrun = trial % 2 ? 12 : 600;

			n = trial == 0 ? 0 : (size_t)(unit_rand() % N) + 1;
			for (i = 0; i < n;) {
				uint32_t v = (uint32_t)unit_rand() & mask;
				size_t run = unit_rand() % 3 == 0 ?
				    unit_rand() % maxrun + 1 : 1;

				if (unit_rand() % 4 == 0 && i > 0)
					v = in[i - 1];
				for (k = 0; k < run && i < n; k++)
					in[i++] = v;
			}
			wlen = rle_ref_encode(in, n, w, want);
			core_parquet_rle_reset(&r, w);
			for (i = 0; i < n; i += k) {
				k = (size_t)(unit_rand() % 700) + 1;
				if (k > n - i)
					k = n - i;
				if (unit_rand() % 4 == 0) {
					core_parquet_rle_put(&r, in[i]);
					k = 1;
				} else {
					core_parquet_rle_put_array(&r,
					    in + i, k);
				}
			}
			core_parquet_rle_finish(&r);
			if (r.len != wlen || (wlen > 0 &&
			    memcmp(r.buf, want, wlen) != 0)) {
				if (bad++ < 5)
					printf("# width %d, %zu values: %zu "
					    "bytes, want %zu\n", w, n, r.len,
					    wlen);
			}
		}
	}
	CHECK_EQ_INT(bad, 0);
	core_parquet_rle_release(&r);
	free(in);
	free(want);
}

/* ---- a minimal Thrift compact decoder ---- */

struct tnode {
	int16_t id;
	uint8_t type;
	int64_t i;		/* integers, bools (1/0) */
	const uint8_t *bin;	/* binary */
	size_t len;
	struct tnode *kids;	/* struct fields or list elements */
	size_t nkids;
};

struct tcur {
	const uint8_t *p, *end;
	int bad;
};

static int64_t
unzig(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static void tparse(struct tcur *c, uint8_t type, struct tnode *n, int depth);

static void
tadd(struct tnode *n, struct tnode *k)
{
	n->kids = core_xreallocarray(n->kids, n->nkids + 1, sizeof(*k));
	n->kids[n->nkids++] = *k;
}

static void
tparse(struct tcur *c, uint8_t type, struct tnode *n, int depth)
{
	uint64_t size;
	uint8_t b, et;
	int16_t last = 0;
	size_t k;

	n->type = type;
	if (depth > 32 || c->bad) {
		c->bad = 1;
		return;
	}
	switch (type) {
	case CORE_THRIFT_TRUE:
	case CORE_THRIFT_FALSE:
		n->i = type == CORE_THRIFT_TRUE;
		break;
	case CORE_THRIFT_BYTE:
		if (c->p >= c->end) {
			c->bad = 1;
			return;
		}
		n->i = (int8_t)*c->p++;
		break;
	case CORE_THRIFT_I16:
	case CORE_THRIFT_I32:
	case CORE_THRIFT_I64:
		n->i = unzig(varint(&c->p, c->end, &c->bad));
		break;
	case CORE_THRIFT_DOUBLE:
		if (c->end - c->p < 8) {
			c->bad = 1;
			return;
		}
		c->p += 8;
		break;
	case CORE_THRIFT_BINARY:
		size = varint(&c->p, c->end, &c->bad);
		if (c->bad || size > (uint64_t)(c->end - c->p)) {
			c->bad = 1;
			return;
		}
		n->bin = c->p;
		n->len = (size_t)size;
		c->p += size;
		break;
	case CORE_THRIFT_LIST:
	case CORE_THRIFT_SET:
		if (c->p >= c->end) {
			c->bad = 1;
			return;
		}
		b = *c->p++;
		et = b & 15;
		size = b >> 4;
		if (size == 15)
			size = varint(&c->p, c->end, &c->bad);
		for (k = 0; k < size && !c->bad; k++) {
			struct tnode e = { .id = (int16_t)k };

			/* A bool element is a byte of its own: 1 true,
			 * 2 false (a field's is in its type nibble). */
			if (et == CORE_THRIFT_TRUE || et == CORE_THRIFT_FALSE) {
				if (c->p >= c->end || (*c->p != 1 &&
				    *c->p != 2)) {
					c->bad = 1;
					return;
				}
				e.type = et;
				e.i = *c->p++ == 1;
			} else {
				tparse(c, et, &e, depth + 1);
			}
			tadd(n, &e);
		}
		break;
	case CORE_THRIFT_STRUCT:
		for (;;) {
			struct tnode f = { 0 };

			if (c->p >= c->end) {
				c->bad = 1;
				return;
			}
			b = *c->p++;
			if (b == 0)
				break;
			if (b >> 4)
				f.id = (int16_t)(last + (b >> 4));
			else
				f.id = (int16_t)unzig(varint(&c->p, c->end,
				    &c->bad));
			last = f.id;
			tparse(c, b & 15, &f, depth + 1);
			tadd(n, &f);
			if (c->bad)
				return;
		}
		break;
	default:
		c->bad = 1;
	}
}

static void
tfree(struct tnode *n)
{
	size_t k;

	for (k = 0; k < n->nkids; k++)
		tfree(&n->kids[k]);
	free(n->kids);
	n->kids = NULL;
	n->nkids = 0;
}

static const struct tnode *
tget(const struct tnode *n, int16_t id)
{
	size_t k;

	if (n == NULL)
		return NULL;
	for (k = 0; k < n->nkids; k++)
		if (n->kids[k].id == id)
			return &n->kids[k];
	return NULL;
}

static int64_t
tint(const struct tnode *n, int16_t id, int64_t dflt)
{
	const struct tnode *f = tget(n, id);

	return f ? f->i : dflt;
}

/* ---- the data written, and reading it back ---- */

enum { NCOLS = 12 };

static const char *const col_spec[NCOLS] = {
	"bool", "int32", "int64", "float64", "decimal(9,2)",
	"decimal(15,3)", "date", "timestamp", "string", "string",
	"int64", "string",
};

/* A decoded cell. */
struct cell {
	bool null;
	int64_t i;
	double d;
	const uint8_t *s;
	size_t len;
};

/* Null patterns by column: 0 none, 1 some, 2 all. */
static int
null_mode(uint32_t col)
{
	return col == 10 ? 2 : col % 3 == 1 ? 1 : col == 11 ? 1 : 0;
}

static struct core_schema *
make_schema(void)
{
	struct core_schema *s = core_schema_new(NCOLS);
	struct core_coltype t;
	char name[16];
	uint32_t i;

	for (i = 0; i < NCOLS; i++) {
		core_type_parse(col_spec[i], strlen(col_spec[i]), &t, NULL);
		snprintf(name, sizeof(name), "c%u", i);
		core_schema_set(s, i, name, t);
	}
	return s;
}

/* c8's values: the writer finds strings of up to 7 bytes by their bytes
 * and length packed into one word, which these would confuse were a
 * byte, a NUL or the length left out of it. */
struct short_str {
	const char *s;
	size_t n;
};
static const struct short_str shorts[] = {
	{ "", 0 }, { "\0", 1 }, { "a", 1 }, { "a\0", 2 }, { "\0a", 2 },
	{ "ab", 2 }, { "ba", 2 }, { "aab", 3 }, { "aba", 3 }, { "abb", 3 },
	{ "baa", 3 }, { "abcd", 4 }, { "abce", 4 }, { "xbcd", 4 },
	{ "abcd\0", 5 }, { "abcde", 5 }, { "abxde", 5 }, { "abcdx", 5 },
	{ "abcdef", 6 }, { "abcxef", 6 }, { "abcdefg", 7 },
	{ "abcdxfg", 7 }, { "xbcdefg", 7 }, { "abcdefgh", 8 },
	{ "abcdefgx", 8 }, { "v1", 2 },
};
#define NSHORTS (sizeof(shorts) / sizeof(shorts[0]))

/* Fills b with n rows; row numbers continue from first (so values are
 * reproducible from the row number in want_cell). */
static void
fill_batch(struct core_batch *b, uint32_t n, uint64_t first)
{
	uint32_t i, r;
	size_t used;

	core_batch_reset(b);
	core_batch_reserve(b, n, 64);
	for (i = 0; i < NCOLS; i++) {
		struct core_column *c = &b->cols[i];

		used = 0;
		c->offsets = c->type.id == CORE_TYPE_STRING ? c->offsets :
		    NULL;
		for (r = 0; r < n; r++) {
			uint64_t row = first + r;
			uint64_t x = row * 0x9E3779B97F4A7C15ull;
			bool null = null_mode(i) == 2 ||
			    (null_mode(i) == 1 && x % 5 == 0);

			x ^= x >> 31;
			if (null)
				core_col_set_null(c, r, n);
			switch (c->type.id) {
			case CORE_TYPE_BOOL:
				((uint8_t *)c->values)[r] = null ? 0 :
				    (uint8_t)(x & 1);
				break;
			case CORE_TYPE_INT32:
				((int32_t *)c->values)[r] = null ? 0 :
				    (int32_t)(x % 100) - 50;
				break;
			case CORE_TYPE_DATE:
				((int32_t *)c->values)[r] = null ? 0 :
				    (int32_t)(x % 20000) - 3000;
				break;
			case CORE_TYPE_DECIMAL:
				((int64_t *)c->values)[r] = null ? 0 :
				    c->type.precision <= 9 ?
				    (int64_t)(x % 1999999999) - 999999999 :
				    (int64_t)(x % 100000) * 1000003;
				break;
			case CORE_TYPE_INT64:
			case CORE_TYPE_TIMESTAMP:
				((int64_t *)c->values)[r] = null ? 0 :
				    (int64_t)x;
				break;
			case CORE_TYPE_DECIMAL128:
				/* 19 digits and more: |v| < 10^19 * 2^-1 *
				 * 10^(p - 19). */
				core_i128_store((char *)c->values + 16 * r,
				    null ? 0 : (core_i128)((int64_t)x / 2) *
				    (core_i128)core_pow10_u64[
				    c->type.precision - 19]);
				break;
			case CORE_TYPE_FLOAT64: {
				double d = (double)(int64_t)x / 1e9;

				if (x % 97 == 0)
					d = NAN;
				if (x % 89 == 0)
					d = -0.0;
				if (null)
					d = 0;
				memcpy((char *)c->values + 8 * r, &d, 8);
				break;
			}
			case CORE_TYPE_STRING: {
				/* c8: few distinct (short ones that differ
				 * in one byte, in a NUL or in length only),
				 * c9: mostly distinct and sometimes long or
				 * empty, c11: a few. */
				char tmp[64];
				size_t len = 0, k;

				if (!null && i == 8) {
					const struct short_str *ss =
					    &shorts[x % NSHORTS];

					len = ss->n;
					memcpy(tmp, ss->s, len);
				} else if (!null && i == 11)
					len = (size_t)snprintf(tmp, sizeof(tmp),
					    "\xc3\xa9%u", (unsigned)(x % 3));
				else if (!null)
					len = x % 11 == 0 ? 0 : x % 13 == 0 ?
					    300 : (size_t)snprintf(tmp,
					    sizeof(tmp), "s%llu",
					    (unsigned long long)x);
				core_col_reserve_bytes(c, used, len);
				for (k = 0; k < len; k++)
					((char *)c->values)[used + k] =
					    len > 64 ? (char)('a' + k % 26) :
					    tmp[k];
				used += len;
				c->offsets[r + 1] = (int32_t)used;
				break;
			}
			}
		}
	}
	b->nrows = n;
}

/* Reads n bytes of the file at off. */
struct file {
	uint8_t *p;
	size_t len;
};

static int
decompress(int codec, const uint8_t *src, size_t n, uint8_t *dst,
    size_t want)
{
	size_t got = want;
	uLongf glen;
	z_stream zs;
	int rc;

	switch (codec) {
	case 0:
		if (n != want)
			return -1;
		memcpy(dst, src, n);
		return 0;
	case 1:
		if (snappy_uncompress((const char *)src, n, (char *)dst,
		    &got) != SNAPPY_OK)
			return -1;
		return got == want ? 0 : -1;
	case 6:
		got = ZSTD_decompress(dst, want, src, n);
		return !ZSTD_isError(got) && got == want ? 0 : -1;
	case 2:
		memset(&zs, 0, sizeof(zs));
		if (inflateInit2(&zs, 15 + 16) != Z_OK)
			return -1;
		zs.next_in = (Bytef *)(uintptr_t)src;
		zs.avail_in = (uInt)n;
		zs.next_out = dst;
		zs.avail_out = (uInt)want;
		rc = inflate(&zs, Z_FINISH);
		glen = zs.total_out;
		inflateEnd(&zs);
		return rc == Z_STREAM_END && glen == want ? 0 : -1;
	}
	return -1;
}

/* Decodes one PLAIN value of physical type pt at *p. */
static int
plain_value(int pt, const uint8_t **p, const uint8_t *end, unsigned *bit,
    struct cell *out)
{
	int32_t v32;
	uint32_t len;

	memset(out, 0, sizeof(*out));
	switch (pt) {
	case 0:
		if (*p >= end)
			return -1;
		out->i = (**p >> *bit) & 1;
		if (++*bit == 8) {
			*bit = 0;
			(*p)++;
		}
		return 0;
	case 1:
		if (end - *p < 4)
			return -1;
		memcpy(&v32, *p, 4);
		out->i = v32;
		*p += 4;
		return 0;
	case 2:
		if (end - *p < 8)
			return -1;
		memcpy(&out->i, *p, 8);
		*p += 8;
		return 0;
	case 5:
		if (end - *p < 8)
			return -1;
		memcpy(&out->d, *p, 8);
		*p += 8;
		return 0;
	case 6:
		if (end - *p < 4)
			return -1;
		memcpy(&len, *p, 4);
		*p += 4;
		if ((size_t)(end - *p) < len)
			return -1;
		out->s = *p;
		out->len = len;
		*p += len;
		return 0;
	}
	return -1;
}

/* What row `row` of column col holds (mirrors fill_batch via a batch of
 * one row). */
static void
want_cell(struct core_batch *one, uint32_t col, uint64_t row, struct cell *c)
{
	const struct core_column *k;

	fill_batch(one, 1, row);
	k = &one->cols[col];
	memset(c, 0, sizeof(*c));
	c->null = !core_col_is_valid(k, 0);
	if (c->null)
		return;
	switch (k->type.id) {
	case CORE_TYPE_BOOL:
		c->i = ((uint8_t *)k->values)[0];
		break;
	case CORE_TYPE_INT32:
	case CORE_TYPE_DATE:
		c->i = ((int32_t *)k->values)[0];
		break;
	case CORE_TYPE_FLOAT64:
		memcpy(&c->d, k->values, 8);
		break;
	case CORE_TYPE_STRING:
		c->s = k->values;
		c->len = (size_t)k->offsets[1];
		break;
	default:
		c->i = ((int64_t *)k->values)[0];
		break;
	}
}

static bool
cell_equal(int pt, const struct cell *a, const struct cell *b)
{
	if (a->null || b->null)
		return a->null == b->null;
	if (pt == 5)
		return memcmp(&a->d, &b->d, 8) == 0 ||
		    (isnan(a->d) && isnan(b->d));
	if (pt == 6)
		return a->len == b->len &&
		    (a->len == 0 || memcmp(a->s, b->s, a->len) == 0);
	return a->i == b->i;
}

/* Statistics the reader computes itself, to check the footer's. */
struct colstat {
	uint64_t nulls, nans;
	bool any;
	struct cell min, max;
	uint8_t smin[512], smax[512];
};

static int
cell_cmp(int pt, const struct cell *a, const struct cell *b)
{
	int r;

	if (pt == 5)
		return a->d < b->d ? -1 : a->d > b->d;
	if (pt == 6) {
		r = memcmp(a->s, b->s, a->len < b->len ? a->len : b->len);
		if (r != 0)
			return r;
		return a->len < b->len ? -1 : a->len > b->len;
	}
	return a->i < b->i ? -1 : a->i > b->i;
}

static void
stat_add(struct colstat *st, int pt, const struct cell *c)
{
	if (c->null) {
		st->nulls++;
		return;
	}
	if (pt == 5 && isnan(c->d)) {
		st->nans++;
		return;
	}
	if (!st->any || cell_cmp(pt, c, &st->min) < 0) {
		st->min = *c;
		if (pt == 6) {
			memcpy(st->smin, c->s, c->len);
			st->min.s = st->smin;
		}
	}
	if (!st->any || cell_cmp(pt, c, &st->max) > 0) {
		st->max = *c;
		if (pt == 6) {
			memcpy(st->smax, c->s, c->len);
			st->max.s = st->smax;
		}
	}
	st->any = true;
}

/* The PLAIN statistic bytes for a cell. */
static bool
stat_match(int pt, const struct cell *c, const struct tnode *bin)
{
	struct cell d;
	const uint8_t *p;
	unsigned bit = 0;
	uint8_t tmp[4 + 512];

	if (bin == NULL)
		return false;
	if (pt == 6)
		return bin->len == c->len &&
		    memcmp(bin->bin, c->s, c->len) == 0;
	if (pt == 0) {
		if (bin->len != 1)
			return false;
		return bin->bin[0] == c->i;
	}
	if (bin->len > sizeof(tmp))
		return false;
	memcpy(tmp, bin->bin, bin->len);
	p = tmp;
	if (plain_value(pt, &p, tmp + bin->len, &bit, &d) != 0 ||
	    p != tmp + bin->len)
		return false;
	if (pt == 5)
		return d.d == c->d;	/* -0.0 == 0.0: the zero rule */
	return d.i == c->i;
}

/* Walks every page of the file and compares every value with fill_batch's;
 * returns the number of problems (each printed). */
/* A data page's min and max, of its non-NULL integer values. */
struct pmm {
	bool any;
	int64_t min, max;
};

static void
pmm_add(struct pmm *m, const struct cell *c)
{
	if (c->null)
		return;
	if (!m->any || c->i < m->min)
		m->min = c->i;
	if (!m->any || c->i > m->max)
		m->max = c->i;
	m->any = true;
}

/* A PLAIN INT32 (pt 1) or INT64 bound, as the ColumnIndex holds it. */
static bool
bound_is(const struct tnode *b, int pt, int64_t v)
{
	int32_t v32;
	int64_t v64;

	if (b == NULL || b->len != (pt == 1 ? 4u : 8u))
		return false;
	if (pt == 1) {
		memcpy(&v32, b->bin, 4);
		return v32 == v;
	}
	memcpy(&v64, b->bin, 8);
	return v64 == v;
}

/* The chunk's ColumnIndex against its data pages' values, pm[0..npm):
 * a page with values is not a null page and has their min and max. */
static int
check_column_index(const struct file *f, const struct tnode *cc, int pt,
    const struct pmm *pm, size_t npm)
{
	int64_t off = tint(cc, 6, -1), len = tint(cc, 7, -1);
	struct tnode ci = { 0 };
	struct tcur cur;
	const struct tnode *np, *mins, *maxs;
	int bad = 0;
	size_t k;

	if (off < 4 || len <= 0 || off + len > (int64_t)f->len - 8)
		return 1;
	cur.p = f->p + off;
	cur.end = cur.p + len;
	cur.bad = 0;
	tparse(&cur, CORE_THRIFT_STRUCT, &ci, 0);
	np = tget(&ci, 1);
	mins = tget(&ci, 2);
	maxs = tget(&ci, 3);
	if (cur.bad || np == NULL || mins == NULL || maxs == NULL ||
	    np->nkids != npm || mins->nkids != npm || maxs->nkids != npm) {
		tfree(&ci);
		return 1;
	}
	for (k = 0; k < npm; k++) {
		if ((np->kids[k].i != 0) != !pm[k].any)
			bad = 1;
		else if (pm[k].any &&
		    (!bound_is(&mins->kids[k], pt, pm[k].min) ||
		    !bound_is(&maxs->kids[k], pt, pm[k].max)))
			bad = 1;
	}
	tfree(&ci);
	return bad;
}

static int
check_file(const struct file *f, uint64_t nrows, int codec, bool stats,
    uint64_t rg_rows, int *ndict_chunks, int *col_dict_chunks)
{
	struct core_schema *schema = make_schema();
	struct core_batch one;
	struct tnode fm = { 0 };
	struct tcur cur;
	uint32_t flen, i;
	uint64_t row0 = 0, total = 0;
	int bad = 0;
	size_t g;
	const struct tnode *rgs, *sch;

#define FAIL(...) do { if (bad++ < 8) { printf("# " __VA_ARGS__); \
    printf("\n"); } } while (0)

	core_batch_init(&one, schema);
	if (f->len < 12 || memcmp(f->p, "PAR1", 4) != 0 ||
	    memcmp(f->p + f->len - 4, "PAR1", 4) != 0) {
		FAIL("no PAR1 magic at both ends");
		goto out;
	}
	memcpy(&flen, f->p + f->len - 8, 4);
	if (flen > f->len - 12) {
		FAIL("footer length %u too large", flen);
		goto out;
	}
	cur.p = f->p + f->len - 8 - flen;
	cur.end = f->p + f->len - 8;
	cur.bad = 0;
	tparse(&cur, CORE_THRIFT_STRUCT, &fm, 0);
	if (cur.bad || cur.p != cur.end) {
		FAIL("footer does not parse");
		goto out;
	}
	if (tint(&fm, 1, -1) != 1)
		FAIL("version %lld", (long long)tint(&fm, 1, -1));
	if ((uint64_t)tint(&fm, 3, -1) != nrows)
		FAIL("num_rows %lld, want %llu", (long long)tint(&fm, 3, -1),
		    (unsigned long long)nrows);
	sch = tget(&fm, 2);
	if (sch == NULL || sch->nkids != NCOLS + 1) {
		FAIL("schema has %zu elements", sch ? sch->nkids : 0);
		goto out;
	}
	if (tint(&sch->kids[0], 5, -1) != NCOLS)
		FAIL("root num_children");
	if (tget(&fm, 6) == NULL || tget(&fm, 6)->len < 16 ||
	    memcmp(tget(&fm, 6)->bin, "colpipe version ", 16) != 0)
		FAIL("created_by");
	if (tget(&fm, 7) == NULL || tget(&fm, 7)->nkids != NCOLS ||
	    tget(&tget(&fm, 7)->kids[0], 1) == NULL)
		FAIL("column_orders");
	rgs = tget(&fm, 4);
	if (rgs == NULL) {
		FAIL("no row_groups");
		goto out;
	}
	if (rgs->nkids != (nrows + rg_rows - 1) / rg_rows)
		FAIL("%zu row groups for %llu rows of %llu", rgs->nkids,
		    (unsigned long long)nrows, (unsigned long long)rg_rows);
	for (g = 0; g < rgs->nkids; g++) {
		const struct tnode *rg = &rgs->kids[g];
		const struct tnode *cols = tget(rg, 1);
		uint64_t rgn = (uint64_t)tint(rg, 3, -1);
		int64_t rg_comp = 0;

		total += rgn;
		if (cols == NULL || cols->nkids != NCOLS) {
			FAIL("row group %zu: columns", g);
			continue;
		}
		for (i = 0; i < NCOLS; i++) {
			const struct tnode *md = tget(&cols->kids[i], 3);
			const struct tnode *se = &sch->kids[i + 1];
			int pt = (int)tint(md, 1, -1);
			int64_t doff = tint(md, 11, -1);
			int64_t dataoff = tint(md, 9, -1);
			int64_t csize = tint(md, 7, -1);
			int64_t pos = doff >= 0 ? doff : dataoff;
			int64_t end = pos + csize;
			struct cell *dict = NULL, got, want;
			struct colstat st = { 0 };
			size_t ndict = 0;
			uint64_t r = 0;
			int npage = 0;
			/* Integer columns: each data page's min and max,
			 * for the ColumnIndex. */
			struct pmm *pm = NULL;
			size_t npm = 0;

			rg_comp += csize;
			if (pt != tint(se, 1, -2))
				FAIL("col %u: type %d vs schema", i, pt);
			if (tint(se, 3, -1) != 1)
				FAIL("col %u: not OPTIONAL", i);
			if (tint(md, 4, -1) != codec)
				FAIL("col %u: codec", i);
			if ((uint64_t)tint(md, 5, -1) != rgn)
				FAIL("col %u: num_values", i);
			if (doff >= 0) {
				++*ndict_chunks;
				if (col_dict_chunks != NULL)
					col_dict_chunks[i]++;
				if (doff >= dataoff)
					FAIL("col %u: dictionary after data", i);
			}
			if (pos < 4 || end > (int64_t)f->len - 8) {
				FAIL("col %u: chunk out of the file", i);
				continue;
			}
			while (pos < end) {
				struct tnode ph = { 0 };
				const struct tnode *dph;
				int64_t usize, psize;
				uint8_t *body;
				const uint8_t *p, *pe;
				uint32_t dlen, *lv = NULL, *ix = NULL, nv, k;
				uint32_t nix = 0;
				unsigned bit = 0;
				int enc, bw;

				cur.p = f->p + pos;
				cur.end = f->p + end;
				cur.bad = 0;
				tparse(&cur, CORE_THRIFT_STRUCT, &ph, 0);
				usize = tint(&ph, 2, -1);
				psize = tint(&ph, 3, -1);
				if (cur.bad || usize < 0 || psize < 0 ||
				    psize > f->p + end - cur.p) {
					FAIL("col %u: bad page header", i);
					tfree(&ph);
					break;
				}
				/* The dictionary page first, at its offset;
				 * the first data page at data_page_offset. */
				if (npage == 0 && doff >= 0 &&
				    (tint(&ph, 1, -1) != 2 || pos != doff))
					FAIL("col %u: dictionary_page_offset",
					    i);
				if (npage == (doff >= 0) &&
				    (tint(&ph, 1, -1) != 0 || pos != dataoff))
					FAIL("col %u: data_page_offset", i);
				if (npage > 0 && tint(&ph, 1, -1) != 0)
					FAIL("col %u: page type", i);
				body = core_xmalloc((size_t)usize + 1);
				if (decompress(codec, cur.p, (size_t)psize, body,
				    (size_t)usize) != 0) {
					FAIL("col %u: page does not "
					    "decompress", i);
					free(body);
					tfree(&ph);
					break;
				}
				p = body;
				pe = body + usize;
				if (tint(&ph, 1, -1) == 2) {
					dph = tget(&ph, 7);
					ndict = (size_t)tint(dph, 1, 0);
					if (ndict == 0)
						FAIL("col %u: empty dictionary",
						    i);
					dict = core_xcalloc(ndict + 1,
					    sizeof(*dict));
					for (k = 0; k < ndict; k++)
						if (plain_value(pt, &p, pe, &bit,
						    &dict[k]) != 0)
							FAIL("col %u: dict", i);
					/* Strings point into body: keep it. */
					goto next_page;
				}
				dph = tget(&ph, 5);
				nv = (uint32_t)tint(dph, 1, 0);
				enc = (int)tint(dph, 2, -1);
				if (pe - p < 4) {
					FAIL("col %u: short page", i);
					goto next_page;
				}
				memcpy(&dlen, p, 4);
				p += 4;
				lv = core_xcalloc(nv + 1, sizeof(*lv));
				if (dlen > (size_t)(pe - p) ||
				    rle_decode(p, dlen, 1, lv, nv) != 0)
					FAIL("col %u: def levels", i);
				p += dlen;
				if (enc == 8) {
					uint32_t nval = 0;

					for (k = 0; k < nv; k++)
						nval += lv[k];
					bw = p < pe ? *p++ : -1;
					ix = core_xcalloc(nval + 1, sizeof(*ix));
					if (bw < 1 || bw > 32 ||
					    rle_decode(p, (size_t)(pe - p), bw,
					    ix, nval) != 0)
						FAIL("col %u: indices", i);
				} else if (enc != 0) {
					FAIL("col %u: encoding %d", i, enc);
				}
				pm = core_xreallocarray(pm, npm + 1,
				    sizeof(*pm));
				memset(&pm[npm++], 0, sizeof(*pm));
				for (k = 0, bit = 0; k < nv; k++, r++) {
					memset(&got, 0, sizeof(got));
					got.null = lv[k] == 0;
					if (!got.null && enc == 8) {
						uint32_t e = ix[nix++];

						if (e >= ndict)
							FAIL("col %u: index", i);
						else
							got = dict[e];
					} else if (!got.null &&
					    plain_value(pt, &p, pe, &bit,
					    &got) != 0) {
						FAIL("col %u: short values", i);
						break;
					}
					want_cell(&one, i, row0 + r, &want);
					if (!cell_equal(pt, &got, &want))
						FAIL("col %u row %llu: value "
						    "differs", i,
						    (unsigned long long)(row0 +
						    r));
					stat_add(&st, pt, &got);
					pmm_add(&pm[npm - 1], &got);
				}
				free(ix);
				free(lv);
				free(body);
				body = NULL;
next_page:
				if (body != NULL && dict == NULL)
					free(body);
				else if (body != NULL)
					dict[ndict].s = body;	/* owner */
				pos = cur.p + psize - f->p;
				npage++;
				tfree(&ph);
			}
			if (r != rgn)
				FAIL("col %u: %llu values, want %llu", i,
				    (unsigned long long)r,
				    (unsigned long long)rgn);
			if (pos != end)
				FAIL("col %u: pages overrun the chunk", i);
			{
				const struct tnode *s = tget(md, 12);

				if (stats != (s != NULL))
					FAIL("col %u: statistics present: %d",
					    i, s != NULL);
				if (s == NULL)
					s = &(struct tnode){ 0 };
				if (stats && (uint64_t)tint(s, 3, -1) !=
				    st.nulls)
					FAIL("col %u: null_count", i);
				if (stats && pt == 5 &&
				    (uint64_t)tint(s, 9, -1) != st.nans)
					FAIL("col %u: nan_count", i);
				if (stats && st.any &&
				    (!stat_match(pt, &st.min, tget(s, 6)) ||
				    !stat_match(pt, &st.max, tget(s, 5))))
					FAIL("col %u: min/max", i);
				if (stats && !st.any && tget(s, 5) != NULL)
					FAIL("col %u: min/max without values",
					    i);
				/* Short values: the statistics are exact. */
				if (stats && st.any && (tint(s, 7, -1) != 1 ||
				    tint(s, 8, -1) != 1))
					FAIL("col %u: is_max/min_value_exact",
					    i);
			}
			if (stats && (pt == 1 || pt == 2) &&
			    check_column_index(f, &cols->kids[i], pt, pm,
			    npm) != 0)
				FAIL("col %u: ColumnIndex", i);
			free(pm);
			if (dict != NULL)
				free((void *)(uintptr_t)dict[ndict].s);
			free(dict);
		}
		if (tint(rg, 6, -1) != rg_comp)
			FAIL("row group %zu: total_compressed_size", g);
		row0 += rgn;
	}
	if (total != nrows)
		FAIL("row groups hold %llu rows", (unsigned long long)total);
out:
	tfree(&fm);
	core_batch_release(&one);
	core_schema_free(schema);
	return bad;
#undef FAIL
}

/* Writes nrows rows in batches of batch_rows with options o into a memfd
 * and returns its bytes. */
/* Set: every column gets a validity bitmap, all ones where it had
 * none, which sends numeric columns down the row-at-a-time path. */
static bool force_bitmaps;

static void
add_bitmaps(struct core_batch *b)
{
	static uint8_t ones[1 << 14];
	uint32_t i;

	if (ones[0] == 0)
		memset(ones, 0xff, sizeof(ones));
	if (core_bitmap_bytes(b->nrows) > sizeof(ones))
		return;
	for (i = 0; i < b->ncols; i++)
		if (b->cols[i].validity == NULL)
			b->cols[i].validity = ones;
}

static int
write_file(const struct core_parquet_options *o, uint64_t nrows,
    uint32_t batch_rows, struct file *f)
{
	struct core_schema *schema = make_schema();
	struct core_parquet_writer *w = NULL;
	struct core_output out;
	struct core_batch b;
	struct core_err err = { 0, "" };
	uint64_t done = 0;
	off_t len;
	int fd, rc;

	fd = memfd_create("pq", 0);
	if (fd < 0)
		return -1;
	core_output_init(&out, fd, "memfd", 0);
	core_batch_init(&b, schema);
	rc = core_parquet_writer_new(&out, schema, o, &w, &err);
	while (rc == 0 && done < nrows) {
		uint32_t n = nrows - done < batch_rows ?
		    (uint32_t)(nrows - done) : batch_rows;

		fill_batch(&b, n, done);
		if (force_bitmaps)
			add_bitmaps(&b);
		rc = core_parquet_write_batch(w, &b, &err);
		done += n;
	}
	if (rc == 0)
		rc = core_parquet_writer_finish(w, &err);
	if (rc != 0)
		printf("# write failed: %s\n", err.msg);
	core_parquet_writer_free(w);
	core_output_release(&out);
	core_batch_release(&b);
	core_schema_free(schema);
	len = lseek(fd, 0, SEEK_END);
	f->len = (size_t)len;
	f->p = core_xmalloc(f->len + 1);
	if (pread(fd, f->p, f->len, 0) != (ssize_t)f->len)
		rc = -1;
	close(fd);
	return rc;
}

static void
roundtrip(int codec, enum core_parquet_dict dict, uint64_t page_bytes,
    uint64_t rg_rows, uint64_t nrows, uint32_t batch_rows, bool stats,
    int *ndict_chunks)
{
	struct core_parquet_options o;
	struct file f = { 0 };
	int bad;

	core_parquet_options_init(&o);
	o.codec = (enum core_parquet_codec)codec;
	o.level = codec == CORE_PARQUET_ZSTD ? 3 : codec ==
	    CORE_PARQUET_GZIP ? 6 : 0;
	o.dict = dict;
	o.page_bytes = page_bytes;
	o.row_group_rows = rg_rows;
	o.statistics = stats;
	o.dict_bytes = 4096;	/* small: exercise the fallback too */
	CHECK_EQ_INT(write_file(&o, nrows, batch_rows, &f), 0);
	bad = check_file(&f, nrows, codec, stats, rg_rows, ndict_chunks,
	    NULL);
	if (bad)
		printf("# codec %d dict %d page %llu rg %llu rows %llu: %d "
		    "problems\n", codec, dict, (unsigned long long)page_bytes,
		    (unsigned long long)rg_rows, (unsigned long long)nrows,
		    bad);
	CHECK_EQ_INT(bad, 0);
	free(f.p);
}

static void
test_roundtrip_codecs(void)
{
	static const int codecs[] = { 0, 1, 2, 6 };
	int k, nd = 0;

	for (k = 0; k < 4; k++)
		roundtrip(codecs[k], CORE_PARQUET_DICT_AUTO, 1 << 20, 1 << 20,
		    5000, 1024, true, &nd);
	CHECK(nd > 0);
}

static void
test_roundtrip_dictionary(void)
{
	int nd_on = 0, nd_off = 0, nd_auto = 0;

	roundtrip(1, CORE_PARQUET_DICT_ON, 2000, 3000, 10000, 777, true,
	    &nd_on);
	roundtrip(1, CORE_PARQUET_DICT_OFF, 2000, 3000, 10000, 777, true,
	    &nd_off);
	roundtrip(0, CORE_PARQUET_DICT_AUTO, 700, 2500, 10000, 4096, true,
	    &nd_auto);
	CHECK_EQ_INT(nd_off, 0);
	CHECK(nd_on > nd_auto);
	CHECK(nd_auto > 0);
}

static void
test_roundtrip_shapes(void)
{
	int nd = 0;

	/* Zero rows, one row, a row group per row, tiny pages, no
	 * statistics. */
	roundtrip(1, CORE_PARQUET_DICT_AUTO, 1 << 20, 100, 0, 10, true, &nd);
	roundtrip(1, CORE_PARQUET_DICT_AUTO, 1 << 20, 100, 1, 10, true, &nd);
	roundtrip(6, CORE_PARQUET_DICT_AUTO, 1 << 20, 1, 37, 5, true, &nd);
	roundtrip(6, CORE_PARQUET_DICT_ON, 1, 1000, 3000, 1000, true, &nd);
	roundtrip(0, CORE_PARQUET_DICT_AUTO, 64, 4097, 9000, 4096, false,
	    &nd);
}

/* Writes one float64 column of the given values and returns the
 * footer's min_value and max_value of its only chunk as doubles, and
 * whether they are there. */
static bool
float_stats(const double *v, uint32_t n, double *min, double *max,
    int64_t *nans)
{
	struct core_schema *s = core_schema_new(1);
	struct core_parquet_writer *w = NULL;
	struct core_parquet_options o;
	struct core_output out;
	struct core_batch b;
	struct core_err err;
	struct tnode fm = { 0 };
	struct tcur cur;
	const struct tnode *st, *mn, *mx;
	struct file f;
	uint32_t flen;
	bool ok = false;
	int fd;

	core_schema_set(s, 0, "f", (struct core_coltype){
	    CORE_TYPE_FLOAT64, 0, 0 });
	core_batch_init(&b, s);
	core_batch_reserve(&b, n, 0);
	memcpy(b.cols[0].values, v, n * sizeof(*v));
	b.nrows = n;
	core_parquet_options_init(&o);
	fd = memfd_create("pq", 0);
	core_output_init(&out, fd, "memfd", 0);
	if (core_parquet_writer_new(&out, s, &o, &w, &err) != 0 ||
	    core_parquet_write_batch(w, &b, &err) != 0 ||
	    core_parquet_writer_finish(w, &err) != 0)
		goto done;
	f.len = (size_t)lseek(fd, 0, SEEK_END);
	f.p = core_xmalloc(f.len);
	if (pread(fd, f.p, f.len, 0) == (ssize_t)f.len) {
		memcpy(&flen, f.p + f.len - 8, 4);
		cur.p = f.p + f.len - 8 - flen;
		cur.end = f.p + f.len - 8;
		cur.bad = 0;
		tparse(&cur, CORE_THRIFT_STRUCT, &fm, 0);
		st = tget(&fm, 4);	/* row_groups */
		st = st && st->nkids ? tget(&st->kids[0], 1) : NULL;
		st = st && st->nkids ? tget(&st->kids[0], 3) : NULL;
		st = tget(st, 12);	/* statistics */
		mn = tget(st, 6);
		mx = tget(st, 5);
		*nans = tint(st, 9, -1);
		if (mn != NULL && mx != NULL && mn->len == 8 && mx->len == 8) {
			memcpy(min, mn->bin, 8);
			memcpy(max, mx->bin, 8);
			ok = true;
		}
		tfree(&fm);
	}
	free(f.p);
done:
	core_parquet_writer_free(w);
	core_output_release(&out);
	close(fd);
	core_batch_release(&b);
	core_schema_free(s);
	return ok;
}

/* parquet.thrift: NaN never in min/max (and counted), a zero minimum is
 * -0.0, a zero maximum +0.0; all-NaN means no min/max. */
static void
test_float_statistics(void)
{
	double a[] = { 0.0, 1.5, NAN, 0.0 }, b[] = { -2.0, -0.0, NAN };
	double c[] = { NAN, NAN }, min, max;
	int64_t nans;

	CHECK(float_stats(a, 4, &min, &max, &nans));
	CHECK(min == 0.0 && signbit(min));
	CHECK(max == 1.5);
	CHECK_EQ_INT(nans, 1);
	CHECK(float_stats(b, 3, &min, &max, &nans));
	CHECK(min == -2.0);
	CHECK(max == 0.0 && !signbit(max));
	CHECK_EQ_INT(nans, 1);
	CHECK(!float_stats(c, 2, &min, &max, &nans));
	CHECK_EQ_INT(nans, 2);
}

/* Per-column modes: each column follows its own, over the global one;
 * bools and all-NULL chunks never get a dictionary; every value still
 * reads back.  A per-column array of one mode writes the very bytes of
 * that global mode. */
/*
 * Numeric columns without NULLs are written a block at a time; the
 * same rows with an all-ones bitmap go a row at a time.  Both must make
 * the same file, byte for byte: same pages, same dictionary trial (its
 * early end included: 60000 rows put the unique int64 column past the
 * trial window), same fallback when the dictionary fills.
 */
static void
test_fast_path_same_bytes(void)
{
	static const struct {
		enum core_parquet_dict dict;
		uint64_t page, dict_bytes, rg;
		uint32_t batch;
	} cases[] = {
		{ CORE_PARQUET_DICT_AUTO, 1 << 20, 1 << 20, 1 << 20, 8192 },
		{ CORE_PARQUET_DICT_AUTO, 1 << 20, 1 << 20, 50000, 1000 },
		{ CORE_PARQUET_DICT_AUTO, 5000, 4096, 1 << 20, 777 },
		{ CORE_PARQUET_DICT_ON, 1 << 20, 65536, 1 << 20, 4096 },
		{ CORE_PARQUET_DICT_ON, 3000, 1 << 20, 20000, 333 },
		{ CORE_PARQUET_DICT_OFF, 1 << 16, 1 << 20, 1 << 20, 8192 },
	};
	size_t k;

	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct core_parquet_options o;
		struct file a = { 0 }, b = { 0 };
		int nd = 0;

		core_parquet_options_init(&o);
		o.dict = cases[k].dict;
		o.page_bytes = cases[k].page;
		o.dict_bytes = cases[k].dict_bytes;
		o.row_group_rows = cases[k].rg;
		force_bitmaps = false;
		CHECK_EQ_INT(write_file(&o, 60000, cases[k].batch, &a), 0);
		force_bitmaps = true;
		CHECK_EQ_INT(write_file(&o, 60000, cases[k].batch, &b), 0);
		force_bitmaps = false;
		if (a.len != b.len || memcmp(a.p, b.p, a.len) != 0)
			printf("# case %zu: block and row paths differ "
			    "(%zu vs %zu bytes)\n", k, a.len, b.len);
		CHECK(a.len == b.len && memcmp(a.p, b.p, a.len) == 0);
		CHECK_EQ_INT(check_file(&a, 60000, 1, true, cases[k].rg, &nd,
		    NULL), 0);
		free(a.p);
		free(b.p);
	}
}

static void
test_roundtrip_col_dict(void)
{
	static const enum core_parquet_dict modes[NCOLS] = {
		CORE_PARQUET_DICT_ON,	/* bool: ignored */
		CORE_PARQUET_DICT_ON, CORE_PARQUET_DICT_OFF,
		CORE_PARQUET_DICT_AUTO, CORE_PARQUET_DICT_ON,
		CORE_PARQUET_DICT_OFF, CORE_PARQUET_DICT_ON,
		CORE_PARQUET_DICT_OFF, CORE_PARQUET_DICT_ON,
		CORE_PARQUET_DICT_OFF,
		CORE_PARQUET_DICT_ON,	/* all NULL: no values to encode */
		CORE_PARQUET_DICT_ON,
	};
	enum core_parquet_dict same[NCOLS];
	struct core_parquet_options o;
	struct file f = { 0 }, g = { 0 };
	int per_col[NCOLS] = { 0 }, nd = 0, m, i;
	const uint64_t nrows = 9000, rg = 3000;

	core_parquet_options_init(&o);
	o.dict = CORE_PARQUET_DICT_OFF;
	o.col_dict = modes;
	o.page_bytes = 4000;
	o.row_group_rows = rg;
	CHECK_EQ_INT(write_file(&o, nrows, 1000, &f), 0);
	CHECK_EQ_INT(check_file(&f, nrows, CORE_PARQUET_SNAPPY, true, rg,
	    &nd, per_col), 0);
	for (i = 0; i < NCOLS; i++) {
		int want = modes[i] == CORE_PARQUET_DICT_ON && i != 0 &&
		    i != 10 ? (int)(nrows / rg) : 0;

		if (modes[i] == CORE_PARQUET_DICT_AUTO)
			continue;
		if (per_col[i] != want)
			printf("# col %d: %d dictionary chunks, want %d\n", i,
			    per_col[i], want);
		CHECK_EQ_INT(per_col[i], want);
	}
	free(f.p);

	for (m = 0; m < 3; m++) {
		for (i = 0; i < NCOLS; i++)
			same[i] = (enum core_parquet_dict)m;
		core_parquet_options_init(&o);
		o.dict = (enum core_parquet_dict)m;
		o.row_group_rows = rg;
		CHECK_EQ_INT(write_file(&o, 5000, 1000, &f), 0);
		/* The global mode is ignored once col_dict is given. */
		o.dict = (enum core_parquet_dict)((m + 1) % 3);
		o.col_dict = same;
		CHECK_EQ_INT(write_file(&o, 5000, 1000, &g), 0);
		CHECK(f.len == g.len && memcmp(f.p, g.p, f.len) == 0);
		free(f.p);
		free(g.p);
	}
}

/* ---- bounds for long string statistics ---- */

/* The length of the well-formed UTF-8 sequence at p (n bytes there) by
 * Unicode's Table 3-7, 0 for none. */
static size_t
ref_wellformed(const uint8_t *p, size_t n, uint32_t *cp)
{
	static const struct {
		uint8_t lo0, hi0, lo1, hi1;
		int len;
	} t[] = {
		{ 0x00, 0x7f, 0, 0, 1 },
		{ 0xc2, 0xdf, 0x80, 0xbf, 2 },
		{ 0xe0, 0xe0, 0xa0, 0xbf, 3 },
		{ 0xe1, 0xec, 0x80, 0xbf, 3 },
		{ 0xed, 0xed, 0x80, 0x9f, 3 },
		{ 0xee, 0xef, 0x80, 0xbf, 3 },
		{ 0xf0, 0xf0, 0x90, 0xbf, 4 },
		{ 0xf1, 0xf3, 0x80, 0xbf, 4 },
		{ 0xf4, 0xf4, 0x80, 0x8f, 4 },
	};
	static const uint8_t lead_bits[5] = { 0, 0x7f, 0x1f, 0x0f, 0x07 };
	size_t k, i;

	if (n == 0)
		return 0;
	for (k = 0; k < sizeof(t) / sizeof(t[0]); k++) {
		if (p[0] < t[k].lo0 || p[0] > t[k].hi0)
			continue;
		if (n < (size_t)t[k].len)
			return 0;
		if (t[k].len > 1 && (p[1] < t[k].lo1 || p[1] > t[k].hi1))
			return 0;
		for (i = 2; i < (size_t)t[k].len; i++)
			if (p[i] < 0x80 || p[i] > 0xbf)
				return 0;
		*cp = p[0] & lead_bits[t[k].len];
		for (i = 1; i < (size_t)t[k].len; i++)
			*cp = *cp * 64 + (p[i] - 0x80);
		return (size_t)t[k].len;
	}
	return 0;
}

/* p cut into tokens front to back: well-formed sequences, and single
 * bytes that start none (cp UINT32_MAX). */
struct ref_tok {
	size_t start, len;
	uint32_t cp;
};

static size_t
ref_tokens(const uint8_t *p, size_t n, struct ref_tok *t)
{
	size_t i = 0, nt = 0, len;
	uint32_t cp;

	while (i < n) {
		len = ref_wellformed(p + i, n - i, &cp);
		if (len == 0) {
			len = 1;
			cp = UINT32_MAX;
		}
		t[nt].start = i;
		t[nt].len = len;
		t[nt++].cp = cp;
		i += len;
	}
	return nt;
}

static size_t
ref_lower(const uint8_t *p, size_t n, size_t limit, struct ref_tok *t)
{
	size_t nt = ref_tokens(p, n, t), k;

	if (n <= limit)
		return n;
	for (k = 0; k < nt; k++)
		if (t[k].start < limit && t[k].start + t[k].len > limit)
			return t[k].start;
	return limit;
}

static size_t
ref_encode(uint32_t c, uint8_t *out)
{
	if (c <= 0x7f) {
		out[0] = (uint8_t)c;
		return 1;
	}
	if (c <= 0x7ff) {
		out[0] = (uint8_t)(0xc0 + c / 64);
		out[1] = (uint8_t)(0x80 + c % 64);
		return 2;
	}
	if (c <= 0xffff) {
		out[0] = (uint8_t)(0xe0 + c / 4096);
		out[1] = (uint8_t)(0x80 + c / 64 % 64);
		out[2] = (uint8_t)(0x80 + c % 64);
		return 3;
	}
	out[0] = (uint8_t)(0xf0 + c / 262144);
	out[1] = (uint8_t)(0x80 + c / 4096 % 64);
	out[2] = (uint8_t)(0x80 + c / 64 % 64);
	out[3] = (uint8_t)(0x80 + c % 64);
	return 4;
}

static bool
ref_upper(const uint8_t *p, size_t n, size_t limit, struct ref_tok *t,
    uint8_t *out, size_t *outn)
{
	size_t m, nt, k, len, end;
	uint8_t enc[4];
	uint32_t c;

	if (n <= limit) {
		memcpy(out, p, n);
		*outn = n;
		return true;
	}
	m = ref_lower(p, n, limit, t);
	nt = ref_tokens(p, m, t);
	for (k = nt; k-- > 0;) {
		if (t[k].cp == UINT32_MAX) {
			/* Not UTF-8: the last byte under 0xff goes up. */
			for (end = limit; end > 0; end--)
				if (p[end - 1] != 0xff)
					break;
			if (end == 0)
				return false;
			memcpy(out, p, end);
			out[end - 1]++;
			*outn = end;
			return true;
		}
		if (t[k].cp == 0x10ffff)
			continue;
		c = t[k].cp + 1;
		if (c == 0xd800)
			c = 0xe000;
		len = ref_encode(c, enc);
		if (t[k].start + len > limit)
			continue;
		memcpy(out, p, t[k].start);
		memcpy(out + t[k].start, enc, len);
		*outn = t[k].start + len;
		return true;
	}
	return false;
}

static int
bytes_cmp(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
	int r = memcmp(a, b, an < bn ? an : bn);

	if (r != 0)
		return r;
	return an < bn ? -1 : an > bn;
}

static bool
is_utf8(const uint8_t *p, size_t n)
{
	size_t i = 0, len;
	uint32_t c;

	while (i < n) {
		if ((len = ref_wellformed(p + i, n - i, &c)) == 0)
			return false;
		i += len;
	}
	return true;
}

/* One string against the reference and against what a bound must be;
 * returns the number of problems (the first few printed). */
static int
bounds_check(const uint8_t *p, size_t n, size_t limit)
{
	static int shown;
	struct ref_tok *t = core_xcalloc(n + 1, sizeof(*t));
	uint8_t *out = core_xmalloc(limit + 1), *want = core_xmalloc(n + 1);
	size_t lo, rlo, on = 0, wn = 0;
	bool ok, rok;
	int bad = 0;

	lo = core_parquet_stats_lower(p, n, limit);
	rlo = ref_lower(p, n, limit, t);
	ok = core_parquet_stats_upper(p, n, limit, out, &on);
	rok = ref_upper(p, n, limit, t, want, &wn);
	if (lo != rlo)
		bad++;
	if (ok != rok || (ok && (on != wn || memcmp(out, want, on) != 0)))
		bad++;
	/* Whatever the reference says: bounds within limit bytes. */
	if (lo > limit || lo > n || (n <= limit && lo != n))
		bad++;
	if (ok && (on > limit || bytes_cmp(out, on, p, n) < (n > limit)))
		bad++;
	if (is_utf8(p, n) && (!is_utf8(p, lo) || (ok && !is_utf8(out, on))))
		bad++;
	if (bad && shown++ < 5) {
		size_t k;

		printf("# limit %zu, %zu bytes:", limit, n);
		for (k = 0; k < n && k < 24; k++)
			printf(" %02x", p[k]);
		printf("%s: lower %zu (want %zu), upper %d/%zu (want "
		    "%d/%zu)\n", n > 24 ? " ..." : "", lo, rlo, ok, on, rok,
		    wn);
	}
	free(t);
	free(out);
	free(want);
	return bad;
}

/* Appends c's UTF-8 (or, c > 0x10ffff, the byte c - 0x110000). */
static size_t
put_piece(uint8_t *p, uint32_t c)
{
	if (c > 0x10ffff) {
		p[0] = (uint8_t)(c - 0x110000);
		return 1;
	}
	return ref_encode(c, p);
}

static void
test_stats_bounds_edges(void)
{
	enum { L = CORE_PARQUET_STATS_MAX, N = L + 64 };
	uint8_t *p = core_xmalloc(N), out[L];
	size_t n, on, i;

	/* At the limit: exact; one over: the last byte goes up. */
	memset(p, 'a', N);
	CHECK_EQ_INT(core_parquet_stats_lower(p, L, L), L);
	CHECK(core_parquet_stats_upper(p, L, L, out, &on) && on == L &&
	    memcmp(out, p, L) == 0);
	CHECK_EQ_INT(core_parquet_stats_lower(p, L + 1, L), L);
	CHECK(core_parquet_stats_upper(p, L + 1, L, out, &on) && on == L &&
	    memcmp(out, p, L - 1) == 0 && out[L - 1] == 'b');
	CHECK_EQ_INT(bounds_check(p, L + 1, L), 0);

	/* All 0xff: a lower bound, no upper one. */
	memset(p, 0xff, N);
	CHECK_EQ_INT(core_parquet_stats_lower(p, N, L), L);
	CHECK(!core_parquet_stats_upper(p, N, L, out, &on));
	CHECK(core_parquet_stats_upper(p, L, L, out, &on) && on == L);
	/* 0xff then a byte under it at L - 2: that one goes up. */
	p[L - 2] = 0x41;
	CHECK(core_parquet_stats_upper(p, N, L, out, &on) && on == L - 1 &&
	    out[L - 2] == 0x42);
	CHECK_EQ_INT(bounds_check(p, N, L), 0);

	/* "ab" and 3-byte code points: one straddles byte L. */
	n = 2;
	memcpy(p, "ab", 2);
	while (n + 3 <= N)
		n += put_piece(p + n, 0x4e2d);
	CHECK_EQ_INT(core_parquet_stats_lower(p, n, L), L - 2);
	CHECK(core_parquet_stats_upper(p, n, L, out, &on) && on == L - 2 &&
	    memcmp(out, p, L - 5) == 0 && memcmp(out + L - 5,
	    "\xe4\xb8\xae", 3) == 0);
	CHECK_EQ_INT(bounds_check(p, n, L), 0);

	/* 4-byte code points after one byte: cut 3 bytes back. */
	n = 1;
	p[0] = 'a';
	while (n + 4 <= N)
		n += put_piece(p + n, 0x1f642);
	CHECK_EQ_INT(core_parquet_stats_lower(p, n, L), L - 3);
	CHECK(core_parquet_stats_upper(p, n, L, out, &on) && on == L - 3 &&
	    memcmp(out + L - 7, "\xf0\x9f\x99\x83", 4) == 0);
	CHECK_EQ_INT(bounds_check(p, n, L), 0);

	/* U+007F last: U+0080 is longer and does not fit; the byte
	 * before goes up instead. */
	memset(p, 'a', N);
	p[L - 1] = 0x7f;
	CHECK(core_parquet_stats_upper(p, N, L, out, &on) && on == L - 1 &&
	    out[L - 2] == 'b');
	CHECK_EQ_INT(bounds_check(p, N, L), 0);

	/* U+D7FF's successor is U+E000, not a surrogate. */
	memset(p, 'a', N);
	put_piece(p + L - 3, 0xd7ff);
	CHECK(core_parquet_stats_upper(p, N, L, out, &on) && on == L &&
	    memcmp(out + L - 3, "\xee\x80\x80", 3) == 0);
	CHECK_EQ_INT(bounds_check(p, N, L), 0);

	/* All U+10FFFF: no UTF-8 upper bound; after an 'a', 'b'. */
	for (n = 0; n + 4 <= N;)
		n += put_piece(p + n, 0x10ffff);
	CHECK(!core_parquet_stats_upper(p, n, L, out, &on));
	CHECK_EQ_INT(core_parquet_stats_lower(p, n, L), L);
	p[0] = 'a';
	p[1] = 'z';
	p[2] = 'z';
	p[3] = 'z';
	CHECK(core_parquet_stats_upper(p, n, L, out, &on) && on == 4 &&
	    memcmp(out, "azz{", 4) == 0);
	CHECK_EQ_INT(bounds_check(p, n, L), 0);

	/* Not UTF-8: stray continuation bytes, a bad byte at the end. */
	memset(p, 0x80, N);
	CHECK_EQ_INT(core_parquet_stats_lower(p, N, L), L);
	CHECK(core_parquet_stats_upper(p, N, L, out, &on) && on == L &&
	    out[L - 1] == 0x81);
	memset(p, 'a', N);
	p[L - 1] = 0xff;
	CHECK(core_parquet_stats_upper(p, N, L, out, &on) && on == L - 1 &&
	    out[L - 2] == 'b');
	CHECK_EQ_INT(bounds_check(p, N, L), 0);

	/* Empty, and short strings under any limit: themselves. */
	CHECK_EQ_INT(core_parquet_stats_lower(p, 0, L), 0);
	CHECK(core_parquet_stats_upper(p, 0, L, out, &on) && on == 0);
	for (i = 0; i < 8; i++)
		CHECK_EQ_INT(bounds_check(p, i, 8), 0);
	free(p);
}

/* Random strings of code points (the edges of each encoded length, the
 * surrogates' neighbours, U+10FFFF) and stray bytes, at small limits
 * that put the cut everywhere, and at the writer's limit. */
static void
test_stats_bounds_random(void)
{
	static const uint32_t pieces[] = {
		'a', 'z', 0x00, 0x7f, 0x80, 0x7ff, 0x800, 0x4e2d, 0xd7ff,
		0xe000, 0xfffd, 0xffff, 0x10000, 0x1f642, 0x10fffe,
		0x10ffff, 0x110000 + 0xff, 0x110000 + 0x80,
		0x110000 + 0xbf, 0x110000 + 0xc3, 0x110000 + 0xe4,
		0x110000 + 0xf0, 0x110000 + 0xc0, 0x110000 + 0xf5,
		0x110000 + 0xed,
	};
	enum { NP = sizeof(pieces) / sizeof(pieces[0]) };
	uint8_t *p = core_xmalloc(CORE_PARQUET_STATS_MAX + 256);
	int trial, bad = 0;
	size_t n, limit, want;

	for (trial = 0; trial < 30000; trial++) {
		bool big = trial % 100 == 0;
		bool utf8 = trial % 2 == 0;

		limit = big ? CORE_PARQUET_STATS_MAX :
		    (size_t)(unit_rand() % 16) + 1;
		want = limit + unit_rand() % 12;
		if (unit_rand() % 4 == 0)
			want = unit_rand() % (limit + 1);
		for (n = 0; n < want;) {
			uint32_t c = pieces[unit_rand() % NP];

			/* Mostly one kind, so that a string of one
			 * piece repeated meets every boundary. */
			if (n > 0 && unit_rand() % 3 != 0)
				c = pieces[trial % NP];
			if (utf8 && c > 0x10ffff)
				c = 'a' + (uint32_t)(unit_rand() % 3);
			n += put_piece(p + n, c);
		}
		bad += bounds_check(p, n, limit);
	}
	CHECK_EQ_INT(bad, 0);
	free(p);
}

/* Writes one string column of the given values as one row group and
 * returns the footer's statistics of its chunk: *min and *max point into
 * *keep (the file, caller frees) or are NULL when absent; the exact flags
 * are -1 when absent. */
static void
string_stats(const char *const *v, const size_t *len, uint32_t n,
    struct file *keep, struct tnode *fm, const struct tnode **min,
    const struct tnode **max, int *min_exact, int *max_exact)
{
	struct core_schema *s = core_schema_new(1);
	struct core_parquet_writer *w = NULL;
	struct core_parquet_options o;
	struct core_output out;
	struct core_batch b;
	struct core_err err;
	const struct tnode *st;
	struct tcur cur;
	size_t used = 0;
	uint32_t r, flen;
	int fd;

	*min = *max = NULL;
	*min_exact = *max_exact = -1;
	core_schema_set(s, 0, "s", (struct core_coltype){
	    CORE_TYPE_STRING, 0, 0 });
	core_batch_init(&b, s);
	core_batch_reserve(&b, n, 0);
	for (r = 0; r < n; r++) {
		core_col_reserve_bytes(&b.cols[0], used, len[r]);
		memcpy((char *)b.cols[0].values + used, v[r], len[r]);
		used += len[r];
		b.cols[0].offsets[r + 1] = (int32_t)used;
	}
	b.nrows = n;
	core_parquet_options_init(&o);
	fd = memfd_create("pq", 0);
	core_output_init(&out, fd, "memfd", 0);
	keep->p = NULL;
	if (core_parquet_writer_new(&out, s, &o, &w, &err) != 0 ||
	    core_parquet_write_batch(w, &b, &err) != 0 ||
	    core_parquet_writer_finish(w, &err) != 0)
		goto done;
	keep->len = (size_t)lseek(fd, 0, SEEK_END);
	keep->p = core_xmalloc(keep->len);
	if (pread(fd, keep->p, keep->len, 0) != (ssize_t)keep->len)
		goto done;
	memcpy(&flen, keep->p + keep->len - 8, 4);
	cur.p = keep->p + keep->len - 8 - flen;
	cur.end = keep->p + keep->len - 8;
	cur.bad = 0;
	tparse(&cur, CORE_THRIFT_STRUCT, fm, 0);
	st = tget(fm, 4);	/* row_groups */
	st = st && st->nkids ? tget(&st->kids[0], 1) : NULL;
	st = st && st->nkids ? tget(&st->kids[0], 3) : NULL;
	st = tget(st, 12);	/* statistics */
	*max = tget(st, 5);
	*min = tget(st, 6);
	*max_exact = (int)tint(st, 7, -1);
	*min_exact = (int)tint(st, 8, -1);
done:
	core_parquet_writer_free(w);
	core_output_release(&out);
	close(fd);
	core_batch_release(&b);
	core_schema_free(s);
}

/* The writer's footer: exact statistics flagged exact, long ones cut to
 * the bounds above and flagged inexact, no max where none fits. */
static void
test_stats_long_strings(void)
{
	enum { L = CORE_PARQUET_STATS_MAX };
	char *lo = core_xmalloc(L + 100), *hi = core_xmalloc(L + 100);
	char *ff = core_xmalloc(L + 10);
	const struct tnode *mn, *mx;
	struct tnode fm = { 0 };
	struct file f;
	int mne, mxe;

	memset(lo, 'b', L + 100);
	memset(hi, 'y', L + 100);
	memset(ff, 0xff, L + 10);
	{
		/* Exactly L bytes each way: exact. */
		const char *v[] = { "c", lo, hi };
		size_t len[] = { 1, L, L };

		string_stats(v, len, 3, &f, &fm, &mn, &mx, &mne, &mxe);
		CHECK(mn && mn->len == L && memcmp(mn->bin, lo, L) == 0);
		CHECK(mx && mx->len == L && memcmp(mx->bin, hi, L) == 0);
		CHECK(mne == 1 && mxe == 1);
		tfree(&fm);
		free(f.p);
	}
	{
		/* L + 1 and more: bounds, inexact; the short value in
		 * between changes nothing. */
		const char *v[] = { lo, "c", hi };
		size_t len[] = { L + 1, 1, L + 99 };

		string_stats(v, len, 3, &f, &fm, &mn, &mx, &mne, &mxe);
		CHECK(mn && mn->len == L && memcmp(mn->bin, lo, L) == 0);
		CHECK(mx && mx->len == L &&
		    memcmp(mx->bin, hi, L - 1) == 0 && mx->bin[L - 1] == 'z');
		CHECK(mne == 0 && mxe == 0);
		tfree(&fm);
		free(f.p);
	}
	{
		/* The minimum long, the maximum short: only the minimum
		 * is inexact. */
		const char *v[] = { "zz", lo };
		size_t len[] = { 2, L + 5 };

		string_stats(v, len, 2, &f, &fm, &mn, &mx, &mne, &mxe);
		CHECK(mn && mn->len == L);
		CHECK(mx && mx->len == 2 && memcmp(mx->bin, "zz", 2) == 0);
		CHECK(mne == 0 && mxe == 1);
		tfree(&fm);
		free(f.p);
	}
	{
		/* A maximum of 0xff bytes has no bound: min only. */
		const char *v[] = { "a", ff };
		size_t len[] = { 1, L + 10 };

		string_stats(v, len, 2, &f, &fm, &mn, &mx, &mne, &mxe);
		CHECK(mn && mn->len == 1 && mn->bin[0] == 'a' && mne == 1);
		CHECK(mx == NULL && mxe == -1);
		tfree(&fm);
		free(f.p);
	}
	free(lo);
	free(hi);
	free(ff);
}

static void
test_codec_parse(void)
{
	struct core_parquet_options o;
	struct core_err err;

	core_parquet_options_init(&o);
	CHECK_EQ_INT(o.codec, CORE_PARQUET_SNAPPY);
	CHECK_EQ_INT(core_parquet_codec_parse("zstd", &o, &err), 0);
	CHECK_EQ_INT(o.codec, CORE_PARQUET_ZSTD);
	CHECK_EQ_INT(o.level, 1);
	CHECK_EQ_INT(core_parquet_codec_parse("zstd:19", &o, &err), 0);
	CHECK_EQ_INT(o.level, 19);
	CHECK_EQ_INT(core_parquet_codec_parse("gzip", &o, &err), 0);
	CHECK_EQ_INT(o.codec, CORE_PARQUET_GZIP);
	CHECK_EQ_INT(core_parquet_codec_parse("none", &o, &err), 0);
	CHECK_EQ_INT(o.codec, CORE_PARQUET_UNCOMPRESSED);
	CHECK_EQ_INT(core_parquet_codec_parse("zstd:0", &o, &err),
	    CORE_EUSAGE);
	CHECK_EQ_INT(core_parquet_codec_parse("zstd:x", &o, &err),
	    CORE_EUSAGE);
	CHECK_EQ_INT(core_parquet_codec_parse("gzip:10", &o, &err),
	    CORE_EUSAGE);
	CHECK_EQ_INT(core_parquet_codec_parse("lz4", &o, &err), CORE_EUSAGE);
	CHECK_EQ_INT(core_parquet_codec_parse("snappy:1", &o, &err),
	    CORE_EUSAGE);
}

/*
 * A decimal value with more digits than its column's precision (a stream
 * from elsewhere can hold one) is CORE_EDATA naming column and row, not
 * a file no reader can take back: random values around 10^p for each
 * precision, against the obvious |v| < 10^p, NULL slots ignored.
 */
static void
test_decimal_precision(void)
{
	struct core_schema *s = core_schema_new(1);
	struct core_parquet_options o;
	unsigned p, k;

	core_parquet_options_init(&o);
	for (p = 1; p <= 18; p++) {
		int64_t lim = 1;

		for (k = 0; k < p; k++)
			lim *= 10;
		core_schema_set(s, 0, "d", core_type_decimal(p, p / 2));
		for (k = 0; k < 20; k++) {
			struct core_parquet_writer *w = NULL;
			struct core_output out;
			struct core_batch b;
			struct core_err err = { 0, "" };
			int64_t *v;
			uint32_t r, n = 1 + unit_rand() % 40, at;
			bool want_bad = k % 2, null_bad = k % 5 == 0;
			int fd = memfd_create("pq", 0), rc;

			core_output_init(&out, fd, "memfd", 0);
			core_batch_init(&b, s);
			core_batch_reserve(&b, n, 0);
			v = b.cols[0].values;
			for (r = 0; r < n; r++) {
				v[r] = (int64_t)(unit_rand() % (uint64_t)lim);
				if (unit_rand() & 1)
					v[r] = -v[r];
			}
			at = (uint32_t)(unit_rand() % n);
			if (want_bad || null_bad)
				v[at] = unit_rand() & 1 ? lim : -lim;
			if (null_bad && !want_bad)
				core_col_set_null(&b.cols[0], at, n);
			b.nrows = n;
			CHECK_EQ_INT(core_parquet_writer_new(&out, s, &o, &w,
			    &err), 0);
			rc = core_parquet_write_batch(w, &b, &err);
			if (rc == 0)
				rc = core_parquet_writer_finish(w, &err);
			CHECK_EQ_INT(rc, want_bad ? CORE_EDATA : 0);
			if (want_bad)
				CHECK(strstr(err.msg, "column d, row") != NULL);
			core_parquet_writer_free(w);
			core_output_release(&out);
			core_batch_release(&b);
			close(fd);
		}
	}
	core_schema_free(s);
}

/*
 * Dictionary auto decides by compressed sizes too: a key in key order
 * (runs of a few equal values, each key one more than the last) is
 * smaller as a dictionary uncompressed, but far smaller PLAIN once
 * compressed; a low-cardinality column in random order stays a
 * dictionary either way.  Counted by the writer's dictionary chunks.
 */
static uint64_t
trial_dict_chunks(enum core_parquet_codec codec, bool sorted)
{
	struct core_schema *s = core_schema_new(1);
	struct core_parquet_options o;
	struct core_parquet_writer *w = NULL;
	struct core_parquet_stats st;
	struct core_output out;
	struct core_batch b;
	struct core_err err = { 0, "" };
	const uint32_t n = 60000;
	int fd = memfd_create("pq", 0);
	int64_t *v;
	uint32_t r;

	core_schema_set(s, 0, "k", (struct core_coltype){ .id = CORE_TYPE_INT64 });
	core_parquet_options_init(&o);
	o.codec = codec;
	o.level = codec == CORE_PARQUET_ZSTD ? 3 : 0;
	o.row_group_rows = 20000;
	core_output_init(&out, fd, "memfd", 0);
	core_batch_init(&b, s);
	core_batch_reserve(&b, n, 0);
	v = b.cols[0].values;
	for (r = 0; r < n; r++)
		v[r] = sorted ? 1000000 + (int64_t)r / 4 :
		    (int64_t)(unit_rand() % 50) * 7919;
	b.nrows = n;
	CHECK_EQ_INT(core_parquet_writer_new(&out, s, &o, &w, &err), 0);
	CHECK_EQ_INT(core_parquet_write_batch(w, &b, &err), 0);
	CHECK_EQ_INT(core_parquet_writer_finish(w, &err), 0);
	core_parquet_writer_stats(w, &st);
	CHECK_EQ_INT(st.row_groups, 3);
	core_parquet_writer_free(w);
	core_output_release(&out);
	core_batch_release(&b);
	core_schema_free(s);
	close(fd);
	return st.dict_chunks;
}

/*
 * A string column the trial gives to PLAIN only once compressed (keys
 * in key order, each four times): its values went into the dictionary,
 * not the statistics, while the trial lasted, so its min and max must
 * come from the dictionary the decision drops.
 */
static void
trial_string_stats(void)
{
	enum { N = 20000 };
	char (*txt)[16] = core_xmalloc(N * sizeof(*txt));
	const char **v = core_xmalloc(N * sizeof(*v));
	size_t *len = core_xmalloc(N * sizeof(*len));
	const struct tnode *mn, *mx, *meta;
	struct tnode fm = { 0 };
	struct file f;
	int mne, mxe;
	uint32_t i;

	for (i = 0; i < N; i++) {
		len[i] = (size_t)snprintf(txt[i], sizeof(txt[i]), "key%07u",
		    100000 + i / 4);
		v[i] = txt[i];
	}
	string_stats(v, len, N, &f, &fm, &mn, &mx, &mne, &mxe);
	meta = tget(&fm, 4);	/* row_groups */
	meta = meta && meta->nkids ? tget(&meta->kids[0], 1) : NULL;
	meta = meta && meta->nkids ? tget(&meta->kids[0], 3) : NULL;
	CHECK(meta != NULL && tget(meta, 11) == NULL);	/* no dictionary */
	CHECK(mn && mn->len == len[0] && memcmp(mn->bin, v[0], len[0]) == 0);
	CHECK(mx && mx->len == len[N - 1] &&
	    memcmp(mx->bin, v[N - 1], len[N - 1]) == 0);
	tfree(&fm);
	free(f.p);
	free(txt);
	free(v);
	free(len);
}

static void
test_trial_compressed(void)
{
	CHECK_EQ_INT(trial_dict_chunks(CORE_PARQUET_UNCOMPRESSED, true), 3);
	CHECK_EQ_INT(trial_dict_chunks(CORE_PARQUET_SNAPPY, true), 0);
	CHECK_EQ_INT(trial_dict_chunks(CORE_PARQUET_ZSTD, true), 0);
	CHECK_EQ_INT(trial_dict_chunks(CORE_PARQUET_UNCOMPRESSED, false), 3);
	CHECK_EQ_INT(trial_dict_chunks(CORE_PARQUET_SNAPPY, false), 3);
	CHECK_EQ_INT(trial_dict_chunks(CORE_PARQUET_ZSTD, false), 3);
	trial_string_stats();
}

int
main(void)
{
	RUN(test_thrift_bytes);
	RUN(test_rle_known);
	RUN(test_rle_random);
	RUN(test_rle_array);
	RUN(test_codec_parse);
	RUN(test_float_statistics);
	RUN(test_roundtrip_codecs);
	RUN(test_roundtrip_dictionary);
	RUN(test_roundtrip_shapes);
	RUN(test_roundtrip_col_dict);
	RUN(test_fast_path_same_bytes);
	RUN(test_stats_bounds_edges);
	RUN(test_stats_bounds_random);
	RUN(test_stats_long_strings);
	RUN(test_decimal_precision);
	RUN(test_trial_compressed);
	return unit_done();
}
