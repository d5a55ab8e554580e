/*
 * core_parquet_write.c - the streaming Parquet writer (see
 * core_parquet_write.h for what the files contain and what bounds memory).
 *
 * File layout written front to back:
 *   "PAR1"
 *   per row group, per column: [dictionary page] data page...
 *     OffsetIndex [ColumnIndex]
 *   FileMetaData (Thrift compact), its length (u32 LE), "PAR1"
 * A page is a PageHeader (Thrift compact) followed by its body, the body
 * compressed as a whole.  A data page V1 body is: definition levels (u32 LE
 * length, then the RLE/bit-packed hybrid at bit width 1), then the values:
 * PLAIN, or one byte of bit width followed by the dictionary indices in the
 * hybrid encoding.
 *
 * Per column chunk the encoding goes through at most these states:
 *   TRIAL  (dictionary auto) the first page keeps both the PLAIN values and
 *          dictionary indices; when it ends, the smaller wins (as
 *          compressed too, when pages are: trial_dict_wins): DICT, or
 *          PLAIN with the dictionary dropped;
 *   DICT   indices only; when the dictionary would outgrow dict_bytes the
 *          open page is written and the rest of the chunk is PLAIN (the
 *          dictionary page then covers the earlier pages only);
 *   PLAIN  to the end of the chunk.
 * Every row group starts each column afresh.  A page whose values are all
 * NULL is written PLAIN (it has no values) and does not end a TRIAL.
 *
 * Invariants: a column's open page holds page_nvals levels, of which
 * page_nvals - page_nnulls have a value in plain (PLAIN, TRIAL) and/or idx
 * (TRIAL, DICT); every entry of the dictionary is distinct; pos is the
 * number of file bytes handed to the output.  All integers are written
 * little-endian, as Parquet stores them (checked at compile time below).
 */
#include <limits.h>
#include <unistd.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define XXH_INLINE_ALL
#include <xxhash.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "core_alloc.h"
#include "core_codec.h"
#include "core_pool.h"
#include "core_parquet_write.h"
#include "core_thrift.h"
#include "core_value.h"
#include "core_version.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "core_parquet_write.c writes host integers as Parquet's little-endian"
#endif

/* parquet.thrift enums. */
enum {
	PT_BOOLEAN = 0, PT_INT32 = 1, PT_INT64 = 2, PT_DOUBLE = 5,
	PT_BYTE_ARRAY = 6, PT_FIXED_LEN_BYTE_ARRAY = 7,
};
enum { ENC_PLAIN = 0, ENC_RLE = 3, ENC_RLE_DICTIONARY = 8 };
enum { PAGE_DATA = 0, PAGE_DICTIONARY = 2 };
enum { REP_OPTIONAL = 1 };
enum {
	CT_UTF8 = 0, CT_DECIMAL = 5, CT_DATE = 6, CT_TIMESTAMP_MICROS = 10,
};

/* How a column's values are read from a batch. */
/* K_W16: a decimal128 as FIXED_LEN_BYTE_ARRAY(16), big-endian two's
 * complement as parquet.thrift has decimals; the row path and PLAIN
 * only. */
enum kind { K_BOOL, K_I32, K_I64, K_DEC32, K_DBL, K_STR, K_W16 };

enum mode { M_PLAIN, M_TRIAL, M_DICT };

/*
 * Under --dictionary auto a chunk's first page is encoded both ways (the
 * trial, M_TRIAL) and the smaller wins.  A column of nearly unique values
 * (prices, comments, keys of a large table) would fill the dictionary
 * for a whole page only to lose: when nine in ten of the values between
 * these two counts are new to the dictionary, the trial ends early.
 */
#define TRIAL_WINDOW_START 4096
#define TRIAL_WINDOW_END 16384

/*
 * A column's buffers and tables start small (COL_FIRST bytes or
 * entries, DICT_SLOTS_FIRST slots) and grow by doubling: a table of a
 * million columns costs memory for what each column holds, not a fixed
 * few kilobytes each.  The doublings cost nothing measurable on a narrow
 * table, where page_prealloc sizes the page buffers once.
 */
#define COL_FIRST 256
#define DICT_SLOTS_FIRST 64

/* The room a column's PLAIN values keep before them: a page without
 * NULLs has 4 + at most 4 bytes of definition levels. */
#define PLAIN_HEAD 32

struct buf {
	uint8_t *p;		/* owned, with head bytes before it */
	size_t len, cap;
	size_t head;		/* room kept before p (a column's PLAIN
				   values: their page's levels go there) */
};

/* A data page of the open chunk, as its OffsetIndex and ColumnIndex
 * describe it: where it starts in the chunk buffer, its bytes (header
 * included), its first row, and for integer columns its min and max. */
struct pgrec {
	uint64_t off, first_row;
	uint32_t size;
	bool all_null;
	int64_t imin, imax;
	uint64_t nulls;
};

struct col {
	const char *name;	/* borrowed from the schema */
	struct core_coltype type;
	enum kind kind;
	int ptype;		/* Parquet physical type */
	size_t width;		/* PLAIN bytes a value (0: bool, string) */
	enum mode mode0;	/* state a chunk starts in */
	enum mode mode;

	/* The open page. */
	uint32_t page_nvals;	/* levels, NULLs included */
	uint32_t page_nnulls;
	uint64_t page_plain;	/* PLAIN bytes of its values */
	struct core_parquet_rle def;
	struct buf plain;	/* PLAIN values (M_PLAIN, M_TRIAL) */
	uint64_t nbits;		/* bool: values bit-packed in plain */
	uint32_t *idx;		/* dictionary indices (M_TRIAL, M_DICT) */
	size_t nidx, idx_cap;

	/* The chunk's dictionary: PLAIN-encoded entries in dict; for
	 * strings doff[i] is where entry i (its length prefix) starts.
	 * slots: open addressing, entry index + 1, 0 = empty. */
	struct buf dict;
	uint32_t *doff;
	uint32_t *dtag;		/* strings: high half of each entry's hash */
	size_t doff_cap;
	uint32_t ndict;
	uint32_t last;		/* entry of the previous value looked up */
	uint32_t trial_mark;	/* ndict at TRIAL_WINDOW_START values */
	uint32_t *slots;
	uint32_t nslots;	/* power of two, or 0 */
	uint32_t nhash;		/* entries in slots */
	/* Integer columns: entry index + 1 of each value v with
	 * v - dbase < DMAP_N (as uint64, wrapping), 0 = none; those values
	 * are not in slots.  dbase is set from the first value of each
	 * dictionary.  Owned, or NULL: every value is in slots. */
	uint32_t *dmap;
	uint64_t dbase;
	/* Strings: the entries of strings of up to SHORT_MAX bytes by
	 * their bytes and length packed into one word (short_key), open
	 * addressing, skeys[i] 0 = empty; nshort of nsmap slots. */
	uint64_t *skeys;	/* owned, or NULL */
	uint32_t *sents;	/* owned */
	uint32_t nsmap, nshort;

	/* The chunk's finished data pages, headers included. */
	struct buf chunk;
	uint64_t chunk_raw;	/* same, with bodies uncompressed */
	uint64_t nvalues;
	uint32_t npages_dict, npages_plain;

	/* The chunk's data pages, for its page index. */
	struct pgrec *pg;	/* owned, npg of pg_cap */
	size_t npg, pg_cap;

	/* Statistics of the chunk.  Integers (and bools) are counted into
	 * the open page's bounds (pg_has, pg_imin, pg_imax), which go into
	 * the chunk's as the page is written: a page's ColumnIndex bounds
	 * then cost no second pass over its values. */
	uint64_t nulls, nans;
	bool has_minmax;
	int64_t imin, imax;
	bool pg_has;
	int64_t pg_imin, pg_imax;
	core_i128 wmin, wmax, wlimit;	/* K_W16; wlimit = 10^precision */
	double dmin, dmax;
	struct buf smin, smax;
	uint64_t smin_key, smax_key;	/* str_key of smin and smax */

	/* Nanoseconds its last slice took to encode, for the order the
	 * threads take the columns of the next one. */
	uint64_t cost;
};

/* Scratch for building and compressing pages, one per encoding thread:
 * a column is encoded by one thread at a time, so everything per column
 * lives in struct col and everything shared per thread here. */
struct enc {
	struct core_thrift hdr;		/* a page header */
	struct buf body;		/* a page body */
	struct buf comp;		/* a compressed body */
	struct core_parquet_rle ienc;	/* dictionary indices */
	struct core_codec_ctx *codec;	/* owned */
	uint64_t pages;			/* pages this scratch built */
	int rc;				/* the slice's first failure */
	struct core_err err;
};

struct core_parquet_writer {
	struct core_output *out;	/* borrowed */
	const struct core_schema *schema;	/* borrowed */
	struct core_parquet_options o;
	uint32_t ncols;
	struct col *cols;		/* owned, ncols */
	uint64_t pos;			/* file bytes written */
	uint64_t rows;			/* rows in finished row groups */
	uint64_t rg_rows;		/* rows in the open row group */
	uint64_t nrg;
	struct core_thrift rg;		/* encoded RowGroup structs */
	struct enc enc[2];		/* [1] used by the worker only */
	unsigned nenc;			/* 1, or 2 with a worker thread */
	struct core_parquet_stats st;

	/* The second thread encodes columns of a slice alongside the
	 * caller: both take the next column of order[] from next_col
	 * until none is left.  order[] puts the columns that took longest
	 * in the last slice first (taken in schema order, a wide string
	 * column at the end was encoded by one thread while the other
	 * had nothing left to take).  Columns are independent, so the
	 * file is the same bytes whatever thread encoded what, in
	 * whatever order. */
	struct core_pool *pool;		/* owned; NULL: one thread */
	const struct core_batch *job;	/* the slice: rows off..off+n */
	uint32_t job_off, job_n;
	uint32_t *order;		/* owned, ncols */
	uint32_t next_col;		/* atomic: next of order[] to take */
	bool job_flush;			/* the job ends the row group's open
					   pages instead (flush_row_group) */
	bool finished;
};

/* ---- small buffers ---- */

static void
buf_reserve(struct buf *b, size_t n)
{
	size_t cap;

	if (b->cap - b->len >= n)
		return;
	cap = b->cap ? b->cap : COL_FIRST;
	/* Doubling while small, then by halves: a row group's page
	 * buffers are most of the memory, and their slack counts. */
	while (cap - b->len < n)
		cap = cap < ((size_t)4 << 20) ? core_mul_size(cap, 2) :
		    cap + cap / 2;
	b->p = (uint8_t *)core_xrealloc(b->p ? b->p - b->head : NULL,
	    cap + b->head) + b->head;
	b->cap = cap;
}

static inline void
buf_put(struct buf *b, const void *p, size_t n)
{
	buf_reserve(b, n);
	if (n > 0)
		memcpy(b->p + b->len, p, n);
	b->len += n;
}

static inline void
buf_put32(struct buf *b, uint32_t v)
{
	buf_put(b, &v, 4);
}

static void
buf_free(struct buf *b)
{
	size_t head = b->head;

	free(b->p ? b->p - head : NULL);
	memset(b, 0, sizeof(*b));
	b->head = head;
}

/* ---- RLE / bit-packing hybrid ---- */

int
core_parquet_bit_width(uint32_t maxv)
{
	int w = 1;

	while (w < 32 && (maxv >> w) != 0)
		w++;
	return w;
}

void
core_parquet_rle_init(struct core_parquet_rle *r, int width)
{
	r->buf = NULL;
	r->len = r->cap = 0;
	r->lit = NULL;
	r->lit_cap = 0;
	core_parquet_rle_reset(r, width);
}

void
core_parquet_rle_reset(struct core_parquet_rle *r, int width)
{
	r->len = 0;
	r->width = width;
	r->cur = 0;
	r->rep = 0;
	r->nlit = 0;
}

void
core_parquet_rle_release(struct core_parquet_rle *r)
{
	free(r->buf);
	free(r->lit);
	r->buf = NULL;
	r->lit = NULL;
	r->lit_cap = 0;
	r->len = r->cap = 0;
}

static void
rle_reserve(struct core_parquet_rle *r, size_t n)
{
	if (r->cap - r->len < n)
		r->buf = core_grow(r->buf, &r->cap, r->len + n, 1, 256);
}

static void
rle_varint(struct core_parquet_rle *r, uint64_t v)
{
	rle_reserve(r, 10);
	while (v >= 0x80) {
		r->buf[r->len++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	r->buf[r->len++] = (uint8_t)v;
}

/* Writes the waiting literals as one bit-packed run; nlit must be a
 * multiple of 8 except at the very end, where the group is zero-padded
 * (a reader stops at the page's value count). */
static void
rle_emit_literals(struct core_parquet_rle *r)
{
	unsigned i, g, ngroups, wd = (unsigned)r->width;
	uint64_t acc = 0;
	int bits = 0;

	if (r->nlit == 0)
		return;
	while (r->nlit % 8 != 0)
		r->lit[r->nlit++] = 0;
	ngroups = r->nlit / 8;
	rle_varint(r, (uint64_t)ngroups << 1 | 1);
	/* 16 bytes of slack: a group of 8 is stored as a whole 128-bit
	 * word, of which only its width bytes stay. */
	rle_reserve(r, (size_t)ngroups * wd + 16);
	if (wd <= 8) {
		/* A group of 8 values of width w is exactly w bytes, LSB
		 * first; at w <= 8 it fits one 64-bit word, whose shifts
		 * are cheaper than a 128-bit one's. */
		for (g = 0; g < ngroups; g++) {
			const uint32_t *v = r->lit + (size_t)g * 8;
			uint64_t q = 0;

			for (i = 0; i < 8; i++)
				q |= (uint64_t)v[i] << (i * wd);
			memcpy(r->buf + r->len, &q, 8);
			r->len += wd;
		}
		r->nlit = 0;
		return;
	}
	if (wd <= 16) {
		/* At w <= 16 a group fits one 128-bit word. */
		for (g = 0; g < ngroups; g++) {
			const uint32_t *v = r->lit + (size_t)g * 8;
			unsigned __int128 q = 0;

			for (i = 0; i < 8; i++)
				q |= (unsigned __int128)v[i] << (i * wd);
			memcpy(r->buf + r->len, &q, 16);
			r->len += wd;
		}
		r->nlit = 0;
		return;
	}
	for (i = 0; i < r->nlit; i++) {
		/* LSB first: value i takes the next width bits. */
		acc |= (uint64_t)r->lit[i] << bits;
		bits += r->width;
		while (bits >= 8) {
			r->buf[r->len++] = (uint8_t)acc;
			acc >>= 8;
			bits -= 8;
		}
	}
	r->nlit = 0;
}

/* 504 = 63 groups: the bit-packed header still fits one varint byte. */
#define RLE_LIT_FLUSH 504
#define RLE_LIT_CAP 512		/* lit's room: a flush pads to 8 */

/* Makes lit hold at least n values (n <= RLE_LIT_FLUSH), rounded up to
 * a group of 8 for rle_emit_literals' padding. */
static void
rle_lit_room(struct core_parquet_rle *r, unsigned n)
{
	unsigned cap = r->lit_cap ? r->lit_cap : 8;

	if (n <= r->lit_cap)
		return;
	while (cap < n)
		cap *= 2;
	if (cap > RLE_LIT_CAP)
		cap = RLE_LIT_CAP;
	r->lit = core_xreallocarray(r->lit, cap, sizeof(*r->lit));
	r->lit_cap = cap;
}

/* Adds m copies of v to the waiting literals, emitting them each time
 * there are RLE_LIT_FLUSH. */
static void
rle_lit_fill(struct core_parquet_rle *r, uint32_t v, uint64_t m)
{
	unsigned k, i;

	while (m > 0) {
		k = RLE_LIT_FLUSH - r->nlit;
		if (k > m)
			k = (unsigned)m;
		rle_lit_room(r, r->nlit + (unsigned)k);
		for (i = 0; i < k; i++)
			r->lit[r->nlit + i] = v;
		r->nlit += k;
		m -= k;
		if (r->nlit == RLE_LIT_FLUSH)
			rle_emit_literals(r);
	}
}

/* Closes the open run: long runs become RLE runs, short ones literals. */
static void
rle_close_run(struct core_parquet_rle *r)
{
	int i, nbytes;
	uint32_t v = r->cur;
	uint64_t fill;

	if (r->rep >= 8 && r->nlit % 8 != 0) {
		/* Literals go out in whole groups of 8 only, so complete the
		 * last group from the run first. */
		fill = 8 - r->nlit % 8;
		if (fill > r->rep)
			fill = r->rep;
		rle_lit_fill(r, v, fill);
		r->rep -= fill;
	}
	if (r->rep >= 8) {
		rle_emit_literals(r);
		rle_varint(r, r->rep << 1);
		nbytes = (r->width + 7) / 8;
		rle_reserve(r, (size_t)nbytes);
		for (i = 0; i < nbytes; i++)
			r->buf[r->len++] = (uint8_t)(v >> (8 * i));
	} else {
		rle_lit_fill(r, v, r->rep);
	}
	r->rep = 0;
}

void
core_parquet_rle_put_run(struct core_parquet_rle *r, uint32_t v, uint64_t n)
{
	if (n == 0)
		return;
	if (r->rep > 0 && v == r->cur) {
		r->rep += n;
		return;
	}
	if (r->rep > 0)
		rle_close_run(r);
	r->cur = v;
	r->rep = n;
}

/* Adds the m values of v to the waiting literals, emitting them each
 * time there are RLE_LIT_FLUSH. */
static void
rle_lit_copy(struct core_parquet_rle *r, const uint32_t *v, size_t m)
{
	size_t k;

	while (m > 0) {
		k = RLE_LIT_FLUSH - r->nlit;
		if (k > m)
			k = m;
		rle_lit_room(r, r->nlit + (unsigned)k);
		memcpy(r->lit + r->nlit, v, k * sizeof(*v));
		r->nlit += (unsigned)k;
		v += k;
		m -= k;
		if (r->nlit == RLE_LIT_FLUSH)
			rle_emit_literals(r);
	}
}

/* The first i' >= i with v[i'] == v[i' + 1], or n - 1 (n > i): eight
 * neighbour compares a step, without a branch between them, where
 * dictionary indices of unsorted data rarely repeat. */
static size_t
rle_skip_singles(const uint32_t *v, size_t i, size_t n)
{
	unsigned m, k;

	while (i + 9 <= n) {
#ifdef __SSE2__
		__m128i a0 = _mm_loadu_si128((const __m128i *)(v + i));
		__m128i b0 = _mm_loadu_si128((const __m128i *)(v + i + 1));
		__m128i a1 = _mm_loadu_si128((const __m128i *)(v + i + 4));
		__m128i b1 = _mm_loadu_si128((const __m128i *)(v + i + 5));

		m = (unsigned)_mm_movemask_ps(_mm_castsi128_ps(
		    _mm_cmpeq_epi32(a0, b0))) |
		    (unsigned)_mm_movemask_ps(_mm_castsi128_ps(
		    _mm_cmpeq_epi32(a1, b1))) << 4;
		(void)k;
#else
		m = 0;
		for (k = 0; k < 8; k++)
			m |= (unsigned)(v[i + k] == v[i + k + 1]) << k;
#endif
		if (m != 0)
			return i + (unsigned)__builtin_ctz(m);
		i += 8;
	}
	while (i + 1 < n && v[i] != v[i + 1])
		i++;
	return i;
}

void
core_parquet_rle_put_array(struct core_parquet_rle *r, const uint32_t *v,
    size_t n)
{
	size_t i = 0, j, s;

	if (n == 0)
		return;
	if (r->rep > 0) {
		while (i < n && v[i] == r->cur)
			i++;
		r->rep += i;
		if (i == n)
			return;
		rle_close_run(r);
	}
	/*
	 * The bytes of feeding the values one at a time: a run shorter
	 * than 8 that another value follows goes to the literals, so a
	 * stretch [s, i) of such runs is copied there at once; a longer
	 * run is closed as put_run would close it, and the last run stays
	 * open for what comes next.
	 */
	s = i;
	while (i < n) {
		/* A value unlike the next is a run of one, which stays in
		 * the stretch: go straight to the next one like its next
		 * (or to the last value). */
		i = rle_skip_singles(v, i, n);
		for (j = i + 1; j < n && v[j] == v[i]; j++)
			;
		if (j < n && j - i < 8) {
			i = j;
			continue;
		}
		rle_lit_copy(r, v + s, i - s);
		r->cur = v[i];
		r->rep = j - i;
		if (j == n)
			return;
		rle_close_run(r);
		i = s = j;
	}
}

void
core_parquet_rle_finish(struct core_parquet_rle *r)
{
	if (r->rep > 0)
		rle_close_run(r);
	rle_emit_literals(r);
}

/* ---- options ---- */

void
core_parquet_options_init(struct core_parquet_options *o)
{
	memset(o, 0, sizeof(*o));
	o->codec = CORE_PARQUET_SNAPPY;
	o->row_group_rows = CORE_PARQUET_DEFAULT_ROW_GROUP_ROWS;
	o->row_group_bytes = CORE_PARQUET_DEFAULT_ROW_GROUP_BYTES;
	o->page_bytes = CORE_PARQUET_DEFAULT_PAGE_BYTES;
	o->dict_bytes = CORE_PARQUET_DEFAULT_DICT_BYTES;
	o->dict = CORE_PARQUET_DICT_AUTO;
	o->statistics = true;
}

static int
parse_level(const char *s, int lo, int hi, int *out)
{
	char *end;
	long v;

	if (*s < '0' || *s > '9')
		return -1;
	v = strtol(s, &end, 10);
	if (*end != '\0' || v < lo || v > hi)
		return -1;
	*out = (int)v;
	return 0;
}

int
core_parquet_codec_parse(const char *s, struct core_parquet_options *o,
    struct core_err *err)
{
	const char *colon = strchr(s, ':');
	size_t n = colon ? (size_t)(colon - s) : strlen(s);

	if (n == 4 && strncmp(s, "zstd", 4) == 0) {
		o->codec = CORE_PARQUET_ZSTD;
		o->level = CORE_PARQUET_DEFAULT_ZSTD_LEVEL;
		if (colon && parse_level(colon + 1, 1,
		    core_codec_level_max(CORE_CODEC_ZSTD), &o->level) != 0)
			return core_err_set(err, CORE_EUSAGE,
			    "invalid zstd level in '%s' (1 to %d)", s,
			    core_codec_level_max(CORE_CODEC_ZSTD));
		return 0;
	}
	if (n == 4 && strncmp(s, "gzip", 4) == 0) {
		o->codec = CORE_PARQUET_GZIP;
		o->level = CORE_PARQUET_DEFAULT_GZIP_LEVEL;
		if (colon && parse_level(colon + 1, 1,
		    core_codec_level_max(CORE_CODEC_GZIP), &o->level) != 0)
			return core_err_set(err, CORE_EUSAGE,
			    "invalid gzip level in '%s' (1 to %d)", s,
			    core_codec_level_max(CORE_CODEC_GZIP));
		return 0;
	}
	if (colon == NULL && strcmp(s, "snappy") == 0) {
		o->codec = CORE_PARQUET_SNAPPY;
		o->level = 0;
		return 0;
	}
	if (colon == NULL && (strcmp(s, "none") == 0 ||
	    strcmp(s, "uncompressed") == 0)) {
		o->codec = CORE_PARQUET_UNCOMPRESSED;
		o->level = 0;
		return 0;
	}
	return core_err_set(err, CORE_EUSAGE, "unknown compression '%s' "
	    "(none, snappy, zstd[:LEVEL], gzip[:LEVEL])", s);
}

/* ---- output ---- */

static int
emit(struct core_parquet_writer *w, const void *p, size_t n,
    struct core_err *err)
{
	int rc;

	if ((rc = core_output_write(w->out, p, n, err)) != 0)
		return rc;
	w->pos += n;
	return 0;
}

static enum core_codec
page_codec(enum core_parquet_codec c)
{
	switch (c) {
	case CORE_PARQUET_SNAPPY:
		return CORE_CODEC_SNAPPY;
	case CORE_PARQUET_GZIP:
		return CORE_CODEC_GZIP;
	case CORE_PARQUET_ZSTD:
		return CORE_CODEC_ZSTD;
	case CORE_PARQUET_UNCOMPRESSED:
		break;
	}
	return CORE_CODEC_NONE;
}

/* Compresses src into e->comp; returns its length in *outlen. */
static int
compress_page(struct core_parquet_writer *w, struct enc *e,
    const uint8_t *src, size_t n, size_t *outlen, struct core_err *err)
{
	enum core_codec codec = page_codec(w->o.codec);
	size_t bound = core_codec_bound(codec, n);
	int rc;

	e->comp.len = 0;
	buf_reserve(&e->comp, bound);
	/* The bound as capacity: what a page compresses to depends on
	 * nothing but its bytes and the level. */
	if ((rc = core_codec_compress(e->codec, codec, w->o.level, src, n,
	    e->comp.p, bound, outlen, err)) != 0)
		return rc;
	e->comp.len = *outlen;
	return 0;
}

/* ---- dictionary ---- */

static inline uint64_t
dict_hash(const struct col *c, const uint8_t *p, size_t n)
{
	uint64_t v = 0;

	if (c->kind == K_STR)
		return XXH3_64bits(p, n);
	memcpy(&v, p, n);
	/* A multiplicative mix: the table index takes the high bits. */
	v ^= v >> 29;
	v *= 0xbf58476d1ce4e5b9ull;
	v ^= v >> 32;
	return v;
}

static inline bool
dict_same(const struct col *c, uint32_t e, const uint8_t *p, size_t n,
    uint32_t tag)
{
	uint64_t a8, b8;
	uint32_t a4, b4, len;

	/* Fixed-size loads, not a memcmp call: this is the hot loop of a
	 * dictionary-encoded column. */
	if (c->width == 4) {
		memcpy(&a4, c->dict.p + (size_t)e * 4, 4);
		memcpy(&b4, p, 4);
		return a4 == b4;
	}
	if (c->width == 8) {
		memcpy(&a8, c->dict.p + (size_t)e * 8, 8);
		memcpy(&b8, p, 8);
		return a8 == b8;
	}
	if (c->dtag[e] != tag)
		return false;
	memcpy(&len, c->dict.p + c->doff[e], 4);
	/* An empty string may come with a NULL byte pointer. */
	return len == n &&
	    (n == 0 || memcmp(c->dict.p + c->doff[e] + 4, p, n) == 0);
}

static void
dict_entry(const struct col *c, uint32_t e, const uint8_t **p, size_t *n)
{
	uint32_t len;

	if (c->kind != K_STR) {
		*p = c->dict.p + (size_t)e * c->width;
		*n = c->width;
		return;
	}
	memcpy(&len, c->dict.p + c->doff[e], 4);
	*p = c->dict.p + c->doff[e] + 4;
	*n = len;
}

/* Entries of the direct map a column has (4 B each): columns of small
 * integers (quantities, flags, dates, keys of small tables) are looked up
 * with one load, no hash and no compare; DMAP_BUDGET bounds the maps of
 * a wide table (calloc'd: a map costs memory only where it is used). */
#define DMAP_N ((uint64_t)1 << 15)
#define DMAP_BUDGET ((size_t)4 << 20)

/* An integer value of a 4- or 8-byte column, for the direct map. */
static inline uint64_t
fixed_key(const struct col *c, const uint8_t *p)
{
	int32_t v32;
	uint64_t v64;

	if (c->width == 4) {
		memcpy(&v32, p, 4);
		return (uint64_t)(int64_t)v32;
	}
	memcpy(&v64, p, 8);
	return v64;
}

static void
dict_rehash(struct col *c, uint32_t nslots)
{
	const uint8_t *p;
	uint32_t e, i, mask = nslots - 1;
	size_t n;

	free(c->slots);
	c->slots = core_xcalloc(nslots, sizeof(*c->slots));
	c->nslots = nslots;
	for (e = 0; e < c->ndict; e++) {
		if (c->kind == K_STR) {
			i = c->dtag[e] & mask;
		} else {
			dict_entry(c, e, &p, &n);
			if (c->dmap != NULL && fixed_key(c, p) - c->dbase <
			    DMAP_N)
				continue;
			i = (uint32_t)(dict_hash(c, p, n) >> 32) & mask;
		}
		while (c->slots[i] != 0)
			i = (i + 1) & mask;
		c->slots[i] = e + 1;
	}
}

static void
dict_clear(struct col *c)
{
	uint64_t x;
	uint32_t e;

	for (e = 0; c->dmap != NULL && e < c->ndict; e++)
		if ((x = fixed_key(c, c->dict.p + (size_t)e * c->width) -
		    c->dbase) < DMAP_N)
			c->dmap[x] = 0;
	if (c->nshort > 0)
		memset(c->skeys, 0, (size_t)c->nsmap * sizeof(*c->skeys));
	c->nshort = 0;
	c->dict.len = 0;
	c->ndict = 0;
	c->nhash = 0;
	if (c->slots != NULL)
		memset(c->slots, 0, (size_t)c->nslots * sizeof(*c->slots));
}

/* Finds or adds the value whose hash has tag as its high half; false
 * when adding it would pass dict_bytes (nothing is added then). */
static bool
dict_probe(struct col *c, uint64_t limit, const uint8_t *p, size_t n,
    uint32_t tag, uint32_t *out)
{
	uint32_t i, e, mask;
	size_t add = c->kind == K_STR ? 4 + n : n;

	if (c->nslots == 0)
		dict_rehash(c, DICT_SLOTS_FIRST);
	mask = c->nslots - 1;
	for (i = tag & mask; (e = c->slots[i]) != 0; i = (i + 1) & mask) {
		if (dict_same(c, e - 1, p, n, tag)) {
			*out = c->last = e - 1;
			return true;
		}
	}
	if (c->dict.len + add > limit || c->ndict >= INT32_MAX - 1)
		return false;
	if (c->kind == K_STR) {
		if (c->ndict == c->doff_cap) {
			/* Side by side: the same rule gives both one cap. */
			size_t tag_cap = c->doff_cap;

			c->doff = core_grow(c->doff, &c->doff_cap,
			    c->ndict + 1, sizeof(*c->doff), COL_FIRST);
			c->dtag = core_grow(c->dtag, &tag_cap, c->ndict + 1,
			    sizeof(*c->dtag), COL_FIRST);
		}
		c->doff[c->ndict] = (uint32_t)c->dict.len;
		c->dtag[c->ndict] = tag;
		buf_put32(&c->dict, (uint32_t)n);
	}
	buf_put(&c->dict, p, n);
	c->slots[i] = ++c->ndict;
	c->nhash++;
	*out = c->last = c->ndict - 1;
	/* Keep the load under a half so probes stay short. */
	if ((uint64_t)c->nhash * 2 > c->nslots)
		dict_rehash(c, c->nslots * 2);
	return true;
}

/* dict_probe for a column with a direct map: the map for values near
 * the dictionary's first, the hash table for the rest.  The entries and
 * their order are the same either way: the first occurrences. */
static inline bool
dict_fixed(struct col *c, uint64_t limit, const uint8_t *p, uint32_t *out)
{
	uint64_t v = fixed_key(c, p), x;
	uint32_t s;

	if (c->ndict == 0)
		c->dbase = v - DMAP_N / 2;
	if ((x = v - c->dbase) >= DMAP_N)
		return dict_probe(c, limit, p, c->width,
		    (uint32_t)(dict_hash(c, p, c->width) >> 32), out);
	if ((s = c->dmap[x]) != 0) {
		*out = s - 1;
		return true;
	}
	if (c->dict.len + c->width > limit || c->ndict >= INT32_MAX - 1)
		return false;
	buf_put(&c->dict, p, c->width);
	c->dmap[x] = ++c->ndict;
	*out = c->last = c->ndict - 1;
	return true;
}

/*
 * Short strings (codes, flags, modes: the low-cardinality columns a
 * dictionary suits) are found by one word, their bytes and length, in a
 * table of their own: no hash of the bytes and no compare of them.  The
 * table doubles from SMAP_FIRST to SMAP_MAX slots and then takes no
 * more strings (the rest are found through the hash table as before),
 * so a column holds at most SMAP_MAX * 12 bytes of it.  The entries are
 * the dictionary's, so the encoding is the same either way.
 */
#define SHORT_MAX 7
#define SMAP_FIRST 64
#define SMAP_MAX 4096

static inline uint64_t
short_key(const uint8_t *p, size_t n)
{
	uint64_t k = (uint64_t)(n + 1) << 56;
	uint32_t a, b;

	/* Overlapping loads, as copy_text's: no call, no loop. */
	if (n >= 4) {
		memcpy(&a, p, 4);
		memcpy(&b, p + n - 4, 4);
		k |= (uint64_t)a | (uint64_t)b << (8 * (n - 4));
	} else if (n > 0) {
		k |= (uint64_t)p[0] | (uint64_t)p[n / 2] << (8 * (n / 2)) |
		    (uint64_t)p[n - 1] << (8 * (n - 1));
	}
	return k;
}

static inline uint32_t
short_slot(uint64_t k, uint32_t nslots)
{
	k *= 0x9e3779b97f4a7c15ull;
	return (uint32_t)(k >> 32) & (nslots - 1);
}

/* Puts key k with entry e in the first free slot from its own. */
static void
smap_insert(struct col *c, uint64_t k, uint32_t e)
{
	uint32_t i = short_slot(k, c->nsmap);

	while (c->skeys[i] != 0)
		i = (i + 1) & (c->nsmap - 1);
	c->skeys[i] = k;
	c->sents[i] = e;
}

static void
smap_put(struct col *c, uint64_t k, uint32_t e)
{
	if ((c->nshort + 1) * 2 > c->nsmap) {
		uint64_t *ok = c->skeys;
		uint32_t *oe = c->sents, on = c->nsmap, j;

		if (on >= SMAP_MAX)
			return;
		c->nsmap = on ? on * 2 : SMAP_FIRST;
		c->skeys = core_xcalloc(c->nsmap, sizeof(*c->skeys));
		c->sents = core_xreallocarray(NULL, c->nsmap,
		    sizeof(*c->sents));
		for (j = 0; j < on; j++)
			if (ok[j] != 0)
				smap_insert(c, ok[j], oe[j]);
		free(ok);
		free(oe);
	}
	smap_insert(c, k, e);
	c->nshort++;
}

/* dict_probe for one value. */
static bool
dict_lookup(struct col *c, uint64_t limit, const uint8_t *p, size_t n,
    uint32_t *out)
{
	if (c->kind == K_STR && n <= SHORT_MAX) {
		uint64_t k = short_key(p, n);
		uint32_t i;

		if (c->nshort > 0)
			for (i = short_slot(k, c->nsmap); c->skeys[i] != 0;
			    i = (i + 1) & (c->nsmap - 1))
				if (c->skeys[i] == k) {
					*out = c->last = c->sents[i];
					return true;
				}
		if (!dict_probe(c, limit, p, n, (uint32_t)(dict_hash(c, p,
		    n) >> 32), out))
			return false;
		smap_put(c, k, *out);
		return true;
	}
	/* Sorted and clustered columns repeat the previous value; its
	 * entry is in cache, the hash table's slot likely is not. */
	if (c->dmap != NULL)
		return dict_fixed(c, limit, p, out);
	if (c->width != 0 && c->last < c->ndict &&
	    dict_same(c, c->last, p, n, 0)) {
		*out = c->last;
		return true;
	}
	return dict_probe(c, limit, p, n, (uint32_t)(dict_hash(c, p, n) >>
	    32), out);
}

/* ---- pages ---- */

static void page_trim(struct col *c);
static void stat_dict(struct col *c);
static void page_prealloc(struct core_parquet_writer *w, struct col *c);

static void
page_reset(struct col *c)
{
	c->page_nvals = 0;
	c->page_nnulls = 0;
	c->page_plain = 0;
	core_parquet_rle_reset(&c->def, 1);
	c->plain.len = 0;
	c->nbits = 0;
	c->nidx = 0;
}

/* Appends a PageHeader and the compressed body to the column's chunk
 * buffer (data pages) or straight to the output (dictionary page, which
 * is written only when the row group is). */
static int
put_page(struct core_parquet_writer *w, struct enc *e, struct col *c,
    int page_type, uint32_t nvals, int encoding, const uint8_t *body,
    size_t n, bool to_output, struct core_err *err)
{
	struct core_thrift *t = &e->hdr;
	size_t clen = 0;
	int rc;

	if (n > INT32_MAX)
		return core_err_set(err, CORE_ELIMIT, "column %s: a page of "
		    "%zu bytes is over Parquet's 2 GiB limit", c->name, n);
	if ((rc = compress_page(w, e, body, n, &clen, err)) != 0)
		return rc;
	if (clen > INT32_MAX)
		return core_err_set(err, CORE_ELIMIT, "column %s: a "
		    "compressed page is over Parquet's 2 GiB limit", c->name);
	core_thrift_reset(t);
	core_thrift_field_i32(t, 1, page_type);
	core_thrift_field_i32(t, 2, (int32_t)n);
	core_thrift_field_i32(t, 3, (int32_t)clen);
	if (page_type == PAGE_DATA) {
		core_thrift_field_struct(t, 5);
		core_thrift_field_i32(t, 1, (int32_t)nvals);
		core_thrift_field_i32(t, 2, encoding);
		core_thrift_field_i32(t, 3, ENC_RLE);	/* definition */
		core_thrift_field_i32(t, 4, ENC_RLE);	/* repetition */
		core_thrift_struct_end(t);
	} else {
		core_thrift_field_struct(t, 7);
		core_thrift_field_i32(t, 1, (int32_t)nvals);
		core_thrift_field_i32(t, 2, ENC_PLAIN);
		core_thrift_struct_end(t);
	}
	core_thrift_struct_end(t);
	c->chunk_raw += t->len + n;
	e->pages++;
	if (to_output) {
		if ((rc = emit(w, t->buf, t->len, err)) != 0)
			return rc;
		return emit(w, e->comp.p, clen, err);
	}
	buf_put(&c->chunk, t->buf, t->len);
	buf_put(&c->chunk, e->comp.p, clen);
	return 0;
}

/* Whether a column's pages get a ColumnIndex: integer-domain columns,
 * whose page min and max the writer takes from the page's values. */
static bool
page_minmax_kind(const struct col *c)
{
	return c->kind == K_I32 || c->kind == K_I64 || c->kind == K_DEC32;
}

/*
 * The min and max of n >= 1 integers of width w (4, else 8) at base.  In
 * locals, a loop per width: no bound kept in memory, no branch per
 * value.
 */
static void
int_range(const uint8_t *base, size_t w, uint32_t n, int64_t *min,
    int64_t *max)
{
	uint32_t k;

#define INT_RANGE(T) do {						\
	T lo, hi, x;							\
									\
	memcpy(&lo, base, sizeof(T));					\
	hi = lo;							\
	for (k = 1; k < n; k++) {					\
		memcpy(&x, base + (size_t)k * sizeof(T), sizeof(T));	\
		lo = x < lo ? x : lo;					\
		hi = x > hi ? x : hi;					\
	}								\
	*min = lo;							\
	*max = hi;							\
} while (0)
	if (w == 4)
		INT_RANGE(int32_t);
	else
		INT_RANGE(int64_t);
#undef INT_RANGE
}

/* Appends the record of the open page, about to be put at the end of the
 * chunk buffer, with its integer bounds (counted as its values were put,
 * by stat_int, and a block's at once by write_fixed_block), and takes
 * those into the chunk's. */
static struct pgrec *
page_record(struct col *c)
{
	struct pgrec *pg;
	uint32_t nvalid = c->page_nvals - c->page_nnulls;

	if (c->npg == c->pg_cap)
		c->pg = core_grow(c->pg, &c->pg_cap, c->npg + 1,
		    sizeof(*c->pg), 2);
	pg = &c->pg[c->npg++];
	memset(pg, 0, sizeof(*pg));
	pg->off = c->chunk.len;
	pg->first_row = c->nvalues;
	pg->nulls = c->page_nnulls;
	pg->all_null = nvalid == 0;
	if (!c->pg_has)
		return pg;
	c->pg_has = false;
	if (page_minmax_kind(c)) {
		pg->imin = c->pg_imin;
		pg->imax = c->pg_imax;
	}
	if (!c->has_minmax) {
		c->imin = c->pg_imin;
		c->imax = c->pg_imax;
		c->has_minmax = true;
		return pg;
	}
	c->imin = c->pg_imin < c->imin ? c->pg_imin : c->imin;
	c->imax = c->pg_imax > c->imax ? c->pg_imax : c->imax;
	return pg;
}

/*
 * Bytes of the trial page's PLAIN values that stand for the page when
 * its two encodings are compared compressed: enough for the codec to
 * find what it would in the page, a few percent of the work of
 * compressing the page once more.
 */
#define TRIAL_SAMPLE ((size_t)32 << 10)

/*
 * Whether the trial page's dictionary encoding (the dictionary, and the
 * indices at bw bits) is smaller than its PLAIN values.  Uncompressed
 * first: dict_cost against the PLAIN bytes.  When pages are compressed,
 * the dictionary must also win compressed: a sorted or clustered column
 * (a table's key in key order) compresses PLAIN to a fraction of what
 * its indices do, whose dictionary is then nearly as long as the values.
 * The PLAIN values and the indices of a sample of TRIAL_SAMPLE bytes of
 * values (the page's first) are compressed for the page, scaled to its
 * values, and the dictionary as a whole.  Compressed sizes depend on
 * nothing but bytes and level, so the choice is the same on any thread.
 */
static int
trial_dict_wins(struct core_parquet_writer *w, struct enc *e, struct col *c,
    int bw, uint64_t dict_cost, bool *wins, struct core_err *err)
{
	struct core_parquet_rle *ir = &e->ienc;
	size_t pc = 0, ic = 0, dc = 0, sb = 0;
	uint32_t sn = 0, n32;
	double plain_est, dict_est;
	int rc;

	*wins = dict_cost < c->plain.len;
	if (!*wins || w->o.codec == CORE_PARQUET_UNCOMPRESSED ||
	    c->nidx == 0)
		return 0;
	if (c->kind == K_STR) {
		while (sn < c->nidx && sb < TRIAL_SAMPLE) {
			memcpy(&n32, c->plain.p + sb, 4);
			sb += 4 + (size_t)n32;
			sn++;
		}
	} else {
		sn = c->nidx < TRIAL_SAMPLE / c->width ? c->nidx :
		    (uint32_t)(TRIAL_SAMPLE / c->width);
		sb = (size_t)sn * c->width;
	}
	/* Compressed in e->comp, scratch here. */
	if ((rc = compress_page(w, e, c->plain.p, sb, &pc, err)) != 0)
		return rc;
	core_parquet_rle_reset(ir, bw);
	core_parquet_rle_put_array(ir, c->idx, sn);
	core_parquet_rle_finish(ir);
	if ((rc = compress_page(w, e, ir->buf, ir->len, &ic, err)) != 0 ||
	    (rc = compress_page(w, e, c->dict.p, c->dict.len, &dc,
	    err)) != 0)
		return rc;
	plain_est = (double)pc * (double)c->plain.len / (double)sb;
	dict_est = (double)dc + (double)ic * (double)c->nidx / (double)sn;
	*wins = dict_est < plain_est;
	return 0;
}

/* Writes the open page (if it has any level) into the chunk buffer. */
static int
flush_page(struct core_parquet_writer *w, struct enc *e, struct col *c,
    struct core_err *err)
{
	struct buf *b = &e->body;
	struct core_parquet_rle *ir = &e->ienc;
	uint32_t nvalid;
	bool as_dict;
	uint64_t dict_cost;
	struct pgrec *pg;
	uint8_t *body;
	size_t levels, blen;
	int bw, rc;

	if (c->page_nvals == 0)
		return 0;
	nvalid = c->page_nvals - c->page_nnulls;
	as_dict = c->mode == M_DICT && nvalid > 0;
	if (c->mode == M_TRIAL && nvalid > 0) {
		/* The first page with values decides the chunk: a
		 * dictionary only where it is smaller than PLAIN. */
		bool wins;

		bw = core_parquet_bit_width(c->ndict > 0 ? c->ndict - 1 : 0);
		dict_cost = c->dict.len + 1 + ((uint64_t)c->nidx * bw + 7) / 8;
		if ((rc = trial_dict_wins(w, e, c, bw, dict_cost, &wins,
		    err)) != 0)
			return rc;
		if (wins) {
			c->mode = M_DICT;
			as_dict = true;
		} else {
			c->mode = M_PLAIN;
			stat_dict(c);
			dict_clear(c);
		}
	}
	if (c->mode != M_TRIAL && nvalid > 0)
		page_trim(c);

	core_parquet_rle_finish(&c->def);
	levels = 4 + c->def.len;
	if (!as_dict && c->plain.p != NULL && levels <= c->plain.head) {
		/* The levels go in the room before the values: the body
		 * is compressed where it lies. */
		body = c->plain.p - levels;
		memcpy(body, &(uint32_t){ (uint32_t)c->def.len }, 4);
		memcpy(body + 4, c->def.buf, c->def.len);
		blen = levels + c->plain.len;
	} else {
		b->len = 0;
		buf_put32(b, (uint32_t)c->def.len);
		buf_put(b, c->def.buf, c->def.len);
		if (as_dict) {
			bw = core_parquet_bit_width(c->ndict - 1);
			buf_put(b, &(uint8_t){ (uint8_t)bw }, 1);
			core_parquet_rle_reset(ir, bw);
			core_parquet_rle_put_array(ir, c->idx, c->nidx);
			core_parquet_rle_finish(ir);
			buf_put(b, ir->buf, ir->len);
		} else {
			buf_put(b, c->plain.p, c->plain.len);
		}
		body = b->p;
		blen = b->len;
	}
	pg = page_record(c);
	rc = put_page(w, e, c, PAGE_DATA, c->page_nvals,
	    as_dict ? ENC_RLE_DICTIONARY : ENC_PLAIN, body, blen, false,
	    err);
	if (rc != 0)
		return rc;
	pg->size = (uint32_t)(c->chunk.len - pg->off);
	if (as_dict)
		c->npages_dict++;
	else
		c->npages_plain++;
	c->nvalues += c->page_nvals;
	page_reset(c);
	return 0;
}

/* ---- values ---- */

/* The open page's buffers are sized once for a full page (a value takes
 * at least 4 PLAIN bytes unless it is a bool), so they never regrow by
 * doubling to twice a page; malloc leaves the part a page does not use
 * untouched, so it costs address space, not memory.  All columns
 * together take at most PAGE_PREALLOC_ALL of address space that way; on
 * a table so wide that a column's share is under PAGE_PREALLOC_MIN the
 * buffers grow as the page does instead. */
#define PAGE_PREALLOC_MAX ((size_t)8 << 20)
#define PAGE_PREALLOC_ALL ((size_t)256 << 20)
#define PAGE_PREALLOC_MIN ((size_t)64 << 10)

static void
page_prealloc(struct core_parquet_writer *w, struct col *c)
{
	size_t n = w->o.page_bytes < PAGE_PREALLOC_MAX ?
	    (size_t)w->o.page_bytes : PAGE_PREALLOC_MAX;

	if (n > PAGE_PREALLOC_ALL / w->ncols)
		n = PAGE_PREALLOC_ALL / w->ncols;
	if (n < PAGE_PREALLOC_MIN)
		return;

	if (c->plain.cap == 0 && c->mode != M_DICT) {
		c->plain.cap = n + 4096;
		c->plain.p = (uint8_t *)core_xmalloc(c->plain.cap +
		    c->plain.head) + c->plain.head;
	}
	if (c->idx_cap == 0 && c->mode != M_PLAIN) {
		c->idx_cap = n / 4 + 2;
		c->idx = core_xreallocarray(NULL, c->idx_cap,
		    sizeof(*c->idx));
	}
}

/* Gives back the page buffer the chunk's encoding no longer uses. */
static void
page_trim(struct col *c)
{
	if (c->mode == M_DICT)
		buf_free(&c->plain);
	if (c->mode == M_PLAIN) {
		free(c->idx);
		c->idx = NULL;
		c->idx_cap = c->nidx = 0;
	}
}

static inline void
idx_push(struct col *c, uint32_t e)
{
	if (c->nidx == c->idx_cap)
		c->idx = core_grow(c->idx, &c->idx_cap, c->nidx + 1,
		    sizeof(*c->idx), COL_FIRST / 4);
	c->idx[c->nidx++] = e;
}

static inline void
plain_put(struct col *c, const uint8_t *p, size_t n)
{
	uint32_t n32 = (uint32_t)n;

	if (c->kind != K_STR) {
		buf_put(&c->plain, p, n);
		return;
	}
	/* One reserve for the length prefix and the bytes. */
	buf_reserve(&c->plain, 4 + n);
	memcpy(c->plain.p + c->plain.len, &n32, 4);
	if (n > 0)
		memcpy(c->plain.p + c->plain.len + 4, p, n);
	c->plain.len += 4 + n;
}

/* The trial is lost: PLAIN for the rest of the chunk, whose values so
 * far the open page already holds PLAIN too. */
static void
trial_lose(struct col *c)
{
	c->mode = M_PLAIN;
	page_trim(c);
	stat_dict(c);
	dict_clear(c);
}

/* Called before each trial value (or block of values, which never
 * straddles a window count): takes the window's first count, and at its
 * end says whether nine values in ten were still new ones.  Then the
 * dictionary would hold about every value and be larger than PLAIN, so
 * the trial stops paying for it. */
static bool
trial_hopeless(struct col *c)
{
	if (c->nidx == TRIAL_WINDOW_START)
		c->trial_mark = c->ndict;
	return c->nidx == TRIAL_WINDOW_END && c->ndict - c->trial_mark >
	    (TRIAL_WINDOW_END - TRIAL_WINDOW_START) / 10 * 9;
}

/* Adds one non-NULL value (its PLAIN bytes, without a string's length
 * prefix) to the open page.  Bools never come here. */
static int
put_value(struct core_parquet_writer *w, struct enc *e, struct col *c,
    const uint8_t *p, size_t n, struct core_err *err)
{
	uint32_t ent;
	int rc;

	switch (c->mode) {
	case M_DICT:
		if (dict_lookup(c, w->o.dict_bytes, p, n, &ent)) {
			idx_push(c, ent);
			break;
		}
		/* The dictionary is full: what is encoded so far keeps it,
		 * the rest of the chunk is PLAIN. */
		if ((rc = flush_page(w, e, c, err)) != 0)
			return rc;
		c->mode = M_PLAIN;
		page_trim(c);
		page_prealloc(w, c);
		plain_put(c, p, n);
		break;
	case M_TRIAL:
		if (!trial_hopeless(c) && dict_lookup(c, w->o.dict_bytes, p,
		    n, &ent))
			idx_push(c, ent);
		else
			trial_lose(c);
		plain_put(c, p, n);
		break;
	case M_PLAIN:
		plain_put(c, p, n);
		break;
	}
	c->page_plain += c->kind == K_STR ? 4 + n : n;
	return 0;
}

/* One integer into the open page's bounds (page_record takes them into
 * the chunk's). */
static inline void
stat_int(struct col *c, int64_t v)
{
	if (!c->pg_has) {
		c->pg_imin = c->pg_imax = v;
		c->pg_has = true;
	} else if (v < c->pg_imin) {
		c->pg_imin = v;
	} else if (v > c->pg_imax) {
		c->pg_imax = v;
	}
}

static inline void
stat_dbl(struct col *c, double v)
{
	if (isnan(v)) {
		c->nans++;
		return;
	}
	if (!c->has_minmax) {
		c->dmin = c->dmax = v;
		c->has_minmax = true;
	} else if (v < c->dmin) {
		c->dmin = v;
	} else if (v > c->dmax) {
		c->dmax = v;
	}
}

/* Unsigned byte order, a prefix first. */
static inline int
bytes_cmp(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
	size_t n = an < bn ? an : bn;
	int r;

	/* The first byte mostly decides (and a call is dear per value). */
	if (n > 0 && a[0] != b[0])
		return a[0] < b[0] ? -1 : 1;
	r = n > 1 ? memcmp(a + 1, b + 1, n - 1) : 0;

	if (r != 0)
		return r;
	return an < bn ? -1 : an > bn;
}

/* A string's first 8 bytes (zeros past its end) as a big-endian word:
 * two strings whose keys differ compare as their keys do; equal keys
 * leave it to their bytes. */
static inline uint64_t
str_key(const uint8_t *p, size_t n)
{
	uint64_t k;
	size_t i;

	if (n >= 8) {
		memcpy(&k, p, 8);
		return __builtin_bswap64(k);
	}
	for (k = 0, i = 0; i < 8; i++)
		k = k << 8 | (i < n ? p[i] : 0);
	return k;
}

/* One value into the min and max: a compare of keys a bound, the bytes
 * only when the keys tie. */
static inline void
stat_str(struct col *c, const uint8_t *p, size_t n)
{
	uint64_t k = str_key(p, n);

	if (!c->has_minmax) {
		c->smin.len = c->smax.len = 0;
		buf_put(&c->smin, p, n);
		buf_put(&c->smax, p, n);
		c->smin_key = c->smax_key = k;
		c->has_minmax = true;
		return;
	}
	if (k < c->smin_key || (k == c->smin_key &&
	    bytes_cmp(p, n, c->smin.p, c->smin.len) < 0)) {
		c->smin.len = 0;
		buf_put(&c->smin, p, n);
		c->smin_key = k;
	} else if (k > c->smax_key || (k == c->smax_key &&
	    bytes_cmp(p, n, c->smax.p, c->smax.len) > 0)) {
		c->smax.len = 0;
		buf_put(&c->smax, p, n);
		c->smax_key = k;
	}
}

/*
 * A string chunk's statistics take the values its dictionary took from
 * its entries, at the end of the chunk, or when a lost trial drops the
 * dictionary: every entry is one of the chunk's values, and every value
 * put while the chunk was TRIAL or DICT is an entry, so the min and max
 * are those of every value at one compare an entry instead of two a
 * value.  Values put PLAIN are counted as they come.
 */
static void
stat_dict(struct col *c)
{
	const uint8_t *p;
	size_t n;
	uint32_t e;

	if (c->kind != K_STR)
		return;
	for (e = 0; e < c->ndict; e++) {
		dict_entry(c, e, &p, &n);
		stat_str(c, p, n);
	}
}

/* A decimal(p <= 9) value as the INT32 Parquet stores, or CORE_EDATA
 * when it does not fit. */
static int
dec32(const struct col *c, int64_t v, int32_t *out, struct core_err *err)
{
	if (v < INT32_MIN || v > INT32_MAX)
		return core_err_set(err, CORE_EDATA, "column %s: decimal value "
		    "%lld does not fit precision %u", c->name, (long long)v,
		    c->type.precision);
	*out = (int32_t)v;
	return 0;
}

/* A decimal128 value as Parquet's 16 big-endian bytes, checked against
 * the column's precision. */
static int
w16(const struct col *c, core_i128 v, uint8_t out[16], struct core_err *err)
{
	unsigned __int128 u = (unsigned __int128)v;
	int i;

	if (v >= c->wlimit || v <= -c->wlimit) {
		char txt[64];

		txt[core_format_decimal128(v, 0, txt)] = '\0';
		return core_err_set(err, CORE_EDATA, "column %s: decimal value "
		    "%s (unscaled) does not fit precision %u", c->name, txt,
		    c->type.precision);
	}
	for (i = 15; i >= 0; i--, u >>= 8)
		out[i] = (uint8_t)u;
	return 0;
}

static inline void
stat_w16(struct col *c, core_i128 v)
{
	if (!c->has_minmax) {
		c->wmin = c->wmax = v;
		c->has_minmax = true;
	} else if (v < c->wmin) {
		c->wmin = v;
	} else if (v > c->wmax) {
		c->wmax = v;
	}
}

/* Values a block of the fixed-width fast path takes at most. */
#define FAST_BLOCK 256
/* How far ahead the fast path asks for a hash table slot. */
#define FAST_AHEAD 16

/* At most k values, and in a trial no more than reach its next window
 * count (trial_hopeless takes them between blocks). */
static uint32_t
trial_room(const struct col *c, uint64_t k)
{
	if (c->mode == M_TRIAL && c->nidx < TRIAL_WINDOW_START &&
	    k > TRIAL_WINDOW_START - c->nidx)
		k = TRIAL_WINDOW_START - c->nidx;
	else if (c->mode == M_TRIAL && c->nidx < TRIAL_WINDOW_END &&
	    k > TRIAL_WINDOW_END - c->nidx)
		k = TRIAL_WINDOW_END - c->nidx;
	return (uint32_t)k;
}

/*
 * Values of rows [r, end) that the fixed-width fast path may take as one
 * block: 0 unless the column is numeric, past its dictionary trial and
 * without NULLs in this batch; never past the end of the open page, so
 * pages end where the row-at-a-time path would end them.
 */
static uint32_t
fast_room(const struct core_parquet_writer *w, const struct col *c,
    const struct core_column *col, uint32_t r, uint32_t end)
{
	uint64_t room, k = end - r;

	if (c->width == 0 || c->kind == K_W16 || col->validity != NULL)
		return 0;
	room = (w->o.page_bytes - c->page_plain + c->width - 1) / c->width;
	if (k > room)
		k = room;
	k = trial_room(c, k);
	if (k > CORE_PARQUET_PAGE_MAX_VALUES - c->page_nvals)
		k = CORE_PARQUET_PAGE_MAX_VALUES - c->page_nvals;
	return k > FAST_BLOCK ? FAST_BLOCK : (uint32_t)k;
}

/*
 * Adds the k non-NULL values of rows [r, r + k) of a numeric column as
 * a block: the row-at-a-time path's result, with the per-value dispatch
 * gone and the dictionary's hash table slots asked for ahead of their
 * probes.  *done is the values taken; fewer than k only when the
 * dictionary filled up, and the caller's row-at-a-time path then takes
 * the value that did not fit.
 */
static int
write_fixed_block(struct core_parquet_writer *w, struct col *c,
    const struct core_column *col, uint32_t r, uint32_t k, uint32_t *done,
    struct core_err *err)
{
	uint8_t v[FAST_BLOCK * 8];
	uint32_t tag[FAST_BLOCK], j, ent;
	size_t wd = c->width;
	const int64_t *i64 = (const int64_t *)col->values + r;

	switch (c->kind) {
	case K_I32:
		memcpy(v, (const int32_t *)col->values + r, (size_t)k * 4);
		break;
	case K_DEC32:
		for (j = 0; j < k; j++) {
			int32_t v32 = 0;

			if (dec32(c, i64[j], &v32, err) != 0)
				return CORE_EDATA;
			memcpy(v + (size_t)j * 4, &v32, 4);
		}
		break;
	default:	/* K_I64, K_DBL */
		memcpy(v, i64, (size_t)k * 8);
		break;
	}
	if (c->mode == M_TRIAL && trial_hopeless(c))
		trial_lose(c);
	if (c->mode != M_DICT)
		buf_put(&c->plain, v, (size_t)k * wd);
	if (c->mode == M_PLAIN) {
		*done = k;
	} else if (c->dmap != NULL) {
		c->idx = core_grow(c->idx, &c->idx_cap, c->nidx + k,
		    sizeof(*c->idx), COL_FIRST / 4);
		for (j = 0; j < k; j++) {
			if (!dict_fixed(c, w->o.dict_bytes, v + j * wd, &ent))
				break;
			c->idx[c->nidx++] = ent;
		}
		*done = j;
		if (j < k && c->mode == M_TRIAL) {
			trial_lose(c);
			*done = k;
		}
	} else {
		if (c->nslots == 0)
			dict_rehash(c, DICT_SLOTS_FIRST);
		for (j = 0; j < k; j++)
			tag[j] = (uint32_t)(dict_hash(c, v + j * wd, wd) >> 32);
		for (j = 0; j < k && j < FAST_AHEAD; j++)
			__builtin_prefetch(c->slots + (tag[j] &
			    (c->nslots - 1)));
		c->idx = core_grow(c->idx, &c->idx_cap, c->nidx + k,
		    sizeof(*c->idx), COL_FIRST / 4);
		for (j = 0; j < k; j++) {
			if (j + FAST_AHEAD < k)
				__builtin_prefetch(c->slots + (tag[j +
				    FAST_AHEAD] & (c->nslots - 1)));
			if (c->last < c->ndict &&
			    dict_same(c, c->last, v + j * wd, wd, 0))
				ent = c->last;
			else if (!dict_probe(c, w->o.dict_bytes, v + j * wd,
			    wd, tag[j], &ent))
				break;
			c->idx[c->nidx++] = ent;
		}
		*done = j;
		if (j < k && c->mode == M_TRIAL) {
			/* The dictionary is full during the trial: PLAIN
			 * wins, and the block is in the PLAIN page. */
			trial_lose(c);
			*done = k;
		}
	}
	/* Statistics of the values taken: one the dictionary had no room
	 * for goes to the row path, which counts it.  Integers: the block's
	 * min and max in locals, then into the chunk's, the same two
	 * numbers as a value at a time gives. */
	switch (c->kind) {
	case K_I32:
	case K_DEC32:
	case K_I64:
		if (*done > 0) {
			int64_t lo, hi;

			int_range(v, wd, *done, &lo, &hi);
			stat_int(c, lo);
			stat_int(c, hi);
		}
		break;
	default:	/* K_DBL */
		for (j = 0; j < *done; j++)
			stat_dbl(c, ((const double *)col->values)[r + j]);
		break;
	}
	core_parquet_rle_put_run(&c->def, 1, *done);
	c->page_nvals += *done;
	c->page_plain += (uint64_t)*done * wd;
	return 0;
}

/* Adds row r of column col (the row-at-a-time path). */
static int
write_row(struct core_parquet_writer *w, struct enc *e, struct col *c,
    const struct core_column *col, uint32_t r, struct core_err *err)
{
	const int32_t *so = col->offsets;
	const uint8_t *sb = col->values;
	int32_t v32;
	int64_t v64;
	double d;
	uint8_t bit;
	int rc = 0;

	if (!core_col_is_valid(col, r)) {
		core_parquet_rle_put(&c->def, 0);
		c->page_nvals++;
		c->page_nnulls++;
		c->nulls++;
		return 0;
	}
	switch (c->kind) {
	case K_BOOL:
		bit = ((const uint8_t *)col->values)[r] != 0;
		buf_reserve(&c->plain, 1);
		if (c->nbits % 8 == 0)
			c->plain.p[c->plain.len++] = 0;
		c->plain.p[c->plain.len - 1] |= (uint8_t)(bit <<
		    (c->nbits % 8));
		c->nbits++;
		/* Bits are counted in whole bytes per 8 values. */
		c->page_plain = c->plain.len;
		stat_int(c, bit);
		break;
	case K_I32:
		v32 = ((const int32_t *)col->values)[r];
		rc = put_value(w, e, c, (const uint8_t *)&v32, 4, err);
		stat_int(c, v32);
		break;
	case K_DEC32:
		if (dec32(c, ((const int64_t *)col->values)[r], &v32,
		    err) != 0)
			return CORE_EDATA;
		rc = put_value(w, e, c, (const uint8_t *)&v32, 4, err);
		stat_int(c, v32);
		break;
	case K_I64:
		v64 = ((const int64_t *)col->values)[r];
		rc = put_value(w, e, c, (const uint8_t *)&v64, 8, err);
		stat_int(c, v64);
		break;
	case K_DBL:
		d = ((const double *)col->values)[r];
		rc = put_value(w, e, c, (const uint8_t *)&d, 8, err);
		stat_dbl(c, d);
		break;
	case K_W16: {
		uint8_t be[16];
		core_i128 wv = core_i128_load((const uint8_t *)col->values +
		    (size_t)r * 16);

		if (w16(c, wv, be, err) != 0)
			return CORE_EDATA;
		rc = put_value(w, e, c, be, 16, err);
		stat_w16(c, wv);
		break;
	}
	case K_STR:
		rc = put_value(w, e, c, sb + so[r], (size_t)(so[r + 1] -
		    so[r]), err);
		/* Still DICT or TRIAL after put_value (which never enters
		 * DICT), the dictionary took the value: it counts as one
		 * of the entries (stat_dict), once the chunk ends or the
		 * trial is lost. */
		if (w->o.statistics && c->mode == M_PLAIN)
			stat_str(c, sb + so[r], (size_t)(so[r + 1] - so[r]));
		break;
	}
	if (rc != 0)
		return rc;
	core_parquet_rle_put(&c->def, 1);
	c->page_nvals++;
	return 0;
}

/* Whether the open page is to be written before another value. */
static inline bool
page_full(const struct core_parquet_writer *w, const struct col *c)
{
	return c->page_plain >= w->o.page_bytes ||
	    c->page_nvals >= CORE_PARQUET_PAGE_MAX_VALUES;
}

/* The keys of a string chunk's bounds; none yet: keys every value
 * passes. */
static inline void
str_bound_keys(const struct col *c, uint64_t *kmin, uint64_t *kmax)
{
	*kmin = c->has_minmax ? c->smin_key : UINT64_MAX;
	*kmax = c->has_minmax ? c->smax_key : 0;
}

/*
 * Adds up to k values of rows [r, r + k) of a string column without
 * NULLs in this batch, in any mode (a trial's block never straddles a
 * window count: trial_room): write_row's result, without its per-value
 * dispatch.  Stops after a value that fills the page, so that the
 * caller ends the page where the row path would, and (DICT) before a
 * value the dictionary has no room for, which the row path then takes.
 * Returns the values taken.
 */
static uint32_t
write_str_block(struct core_parquet_writer *w, struct col *c,
    const struct core_column *col, uint32_t r, uint32_t k)
{
	const int32_t *so = col->offsets + r;
	const uint8_t *sb = col->values;
	uint32_t j, ent;
	/* The bounds' keys in locals: a value whose key is strictly
	 * between them changes neither bound (nearly every value, once a
	 * few have come), and is not handed to stat_str at all. */
	bool stats = w->o.statistics;
	uint64_t kmin, kmax;

	str_bound_keys(c, &kmin, &kmax);
	if (c->mode == M_TRIAL && trial_hopeless(c))
		trial_lose(c);
	for (j = 0; j < k; j++) {
		const uint8_t *p = sb + so[j];
		size_t n = (size_t)(so[j + 1] - so[j]);

		if (c->mode == M_DICT) {
			if (!dict_lookup(c, w->o.dict_bytes, p, n, &ent))
				break;
			idx_push(c, ent);
		} else if (c->mode == M_TRIAL &&
		    dict_lookup(c, w->o.dict_bytes, p, n, &ent)) {
			/* An entry: counted by stat_dict. */
			idx_push(c, ent);
			plain_put(c, p, n);
		} else {
			if (c->mode == M_TRIAL) {
				/* The dictionary is full: PLAIN from here,
				 * the bounds now the entries'. */
				trial_lose(c);
				str_bound_keys(c, &kmin, &kmax);
			}
			plain_put(c, p, n);
			if (stats) {
				uint64_t key = str_key(p, n);

				if (key <= kmin || key >= kmax) {
					stat_str(c, p, n);
					kmin = c->smin_key;
					kmax = c->smax_key;
				}
			}
		}
		c->page_plain += 4 + n;
		c->page_nvals++;
		if (page_full(w, c)) {
			j++;
			break;
		}
	}
	core_parquet_rle_put_run(&c->def, 1, j);
	return j;
}

/* Adds rows [off, off + n) of column col of a batch: numeric columns
 * without NULLs a block at a time, strings without NULLs as a run of
 * values, the rest a row at a time. */
static int
write_slice(struct core_parquet_writer *w, struct enc *e, struct col *c,
    const struct core_column *col, uint32_t off, uint32_t n,
    struct core_err *err)
{
	uint32_t r = off, end = off + n, k, done;
	int rc;

	page_prealloc(w, c);
	while (r < end) {
		done = 0;
		if ((k = fast_room(w, c, col, r, end)) > 0) {
			if ((rc = write_fixed_block(w, c, col, r, k, &done,
			    err)) != 0)
				return rc;
			r += done;
		} else if (c->kind == K_STR && col->validity == NULL) {
			k = trial_room(c, end - r);
			r += (done = write_str_block(w, c, col, r, k));
			/* All taken, or the page is full: no row here. */
			if (done == k || page_full(w, c))
				k = done;
		}
		if (done < k || k == 0) {
			if ((rc = write_row(w, e, c, col, r, err)) != 0)
				return rc;
			r++;
		}
		if (page_full(w, c)) {
			if ((rc = flush_page(w, e, c, err)) != 0)
				return rc;
		}
	}
	return 0;
}

/* ---- row groups ---- */

/* Bytes held for the open row group (see the header's memory note). */
static uint64_t
buffered(const struct core_parquet_writer *w)
{
	uint64_t n = 0;
	uint32_t i;

	for (i = 0; i < w->ncols; i++) {
		const struct col *c = &w->cols[i];

		/* The pages' capacity (what the process holds for them)
		 * and the dictionary page to come.  The open page and the
		 * hash table are per-column scratch, bounded by page_bytes
		 * and dict_bytes, and reused from row group to row group. */
		n += c->chunk.cap + c->dict.len;
	}
	return n;
}

/* The PLAIN bytes of a min or max statistic. */
static void
stat_bytes(const struct col *c, bool max, uint8_t tmp[16], const uint8_t **p,
    size_t *n)
{
	int64_t iv = max ? c->imax : c->imin;
	int32_t v32;
	double d;

	switch (c->kind) {
	case K_BOOL:
		tmp[0] = (uint8_t)iv;
		*n = 1;
		break;
	case K_I32:
	case K_DEC32:
		v32 = (int32_t)iv;
		memcpy(tmp, &v32, 4);
		*n = 4;
		break;
	case K_I64:
		memcpy(tmp, &iv, 8);
		*n = 8;
		break;
	case K_DBL:
		d = max ? c->dmax : c->dmin;
		/* parquet.thrift: a zero minimum is written as -0.0, a
		 * zero maximum as +0.0, whatever zeros were seen. */
		if (d == 0.0)
			d = max ? 0.0 : -0.0;
		memcpy(tmp, &d, 8);
		*n = 8;
		break;
	case K_W16:
		/* Within precision, so w16 cannot fail. */
		(void)w16(c, max ? c->wmax : c->wmin, tmp, NULL);
		*n = 16;
		break;
	case K_STR:
		*p = max ? c->smax.p : c->smin.p;
		*n = max ? c->smax.len : c->smin.len;
		return;
	}
	*p = tmp;
}

/* ---- bounds for long string statistics (see core_parquet_write.h) ---- */

static inline bool
utf8_cont(uint8_t b)
{
	return (b & 0xc0) == 0x80;
}

/* The length of the well-formed UTF-8 sequence starting p (n bytes
 * there), 0 if none: a lead byte, its continuation bytes, the shortest
 * form, no surrogate, nothing past U+10FFFF.  Its code point in *cp. */
static size_t
utf8_seq(const uint8_t *p, size_t n, uint32_t *cp)
{
	static const uint32_t least[5] = { 0, 0, 0x80, 0x800, 0x10000 };
	uint32_t c;
	size_t len, i;

	if (n == 0)
		return 0;
	if (p[0] < 0x80) {
		*cp = p[0];
		return 1;
	}
	if (p[0] >= 0xc0 && p[0] < 0xe0)
		len = 2, c = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] < 0xf0)
		len = 3, c = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] < 0xf8)
		len = 4, c = p[0] & 0x07;
	else
		return 0;
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if (!utf8_cont(p[i]))
			return 0;
		c = c << 6 | (p[i] & 0x3f);
	}
	if (c < least[len] || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

static size_t
utf8_put(uint32_t c, uint8_t *out)
{
	if (c < 0x80) {
		out[0] = (uint8_t)c;
		return 1;
	}
	if (c < 0x800) {
		out[0] = (uint8_t)(0xc0 | c >> 6);
		out[1] = (uint8_t)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		out[0] = (uint8_t)(0xe0 | c >> 12);
		out[1] = (uint8_t)(0x80 | (c >> 6 & 0x3f));
		out[2] = (uint8_t)(0x80 | (c & 0x3f));
		return 3;
	}
	out[0] = (uint8_t)(0xf0 | c >> 18);
	out[1] = (uint8_t)(0x80 | (c >> 12 & 0x3f));
	out[2] = (uint8_t)(0x80 | (c >> 6 & 0x3f));
	out[3] = (uint8_t)(0x80 | (c & 0x3f));
	return 4;
}

size_t
core_parquet_stats_lower(const uint8_t *p, size_t n, size_t limit)
{
	uint32_t c;
	size_t k;

	if (n <= limit)
		return n;
	/* The last lead byte among the 3 before the cut: only a sequence
	 * starting there can reach past it. */
	for (k = limit; k > 0 && limit - k < 3; k--) {
		if (utf8_cont(p[k - 1]))
			continue;
		if (k - 1 + utf8_seq(p + k - 1, n - (k - 1), &c) > limit)
			return k - 1;
		break;
	}
	return limit;
}

/* The byte rule of core_parquet_stats_upper. */
static bool
upper_bytes(const uint8_t *p, size_t limit, uint8_t *out, size_t *outn)
{
	size_t end;

	for (end = limit; end > 0 && p[end - 1] == 0xff; end--)
		;
	if (end == 0)
		return false;
	memcpy(out, p, end);
	out[end - 1]++;
	*outn = end;
	return true;
}

bool
core_parquet_stats_upper(const uint8_t *p, size_t n, size_t limit,
    uint8_t *out, size_t *outn)
{
	uint8_t enc[4];
	uint32_t c;
	size_t end, k, len;

	if (n <= limit) {
		if (n > 0)
			memcpy(out, p, n);
		*outn = n;
		return true;
	}
	/* Each code point ends where the next starts, so the one ending
	 * at end starts at the lead byte at most 4 bytes back. */
	end = core_parquet_stats_lower(p, n, limit);
	while (end > 0) {
		for (k = end - 1; k > 0 && end - k < 4 && utf8_cont(p[k]); k--)
			;
		if (utf8_seq(p + k, end - k, &c) != end - k)
			return upper_bytes(p, limit, out, outn);
		if (c < 0x10ffff) {
			len = utf8_put(c == 0xd7ff ? 0xe000 : c + 1, enc);
			if (k + len <= limit) {
				memcpy(out, p, k);
				memcpy(out + k, enc, len);
				*outn = k + len;
				return true;
			}
		}
		end = k;
	}
	return false;
}

static void
encode_statistics(const struct col *c, struct core_thrift *t)
{
	uint8_t tmin[16], tmax[16], bound[CORE_PARQUET_STATS_MAX];
	const uint8_t *pmin = NULL, *pmax = NULL;
	size_t nmin = 0, nmax = 0;
	bool has_min = c->has_minmax, has_max = c->has_minmax;
	bool min_exact = true, max_exact = true;

	if (c->has_minmax) {
		stat_bytes(c, false, tmin, &pmin, &nmin);
		stat_bytes(c, true, tmax, &pmax, &nmax);
	}
	/* Only strings can be this long. */
	if (has_min && nmin > CORE_PARQUET_STATS_MAX) {
		nmin = core_parquet_stats_lower(pmin, nmin,
		    CORE_PARQUET_STATS_MAX);
		min_exact = false;
	}
	if (has_max && nmax > CORE_PARQUET_STATS_MAX) {
		has_max = core_parquet_stats_upper(pmax, nmax,
		    CORE_PARQUET_STATS_MAX, bound, &nmax);
		pmax = bound;
		max_exact = false;
	}
	core_thrift_field_struct(t, 12);
	core_thrift_field_i64(t, 3, (int64_t)c->nulls);
	if (has_max)
		core_thrift_field_binary(t, 5, pmax, nmax);
	if (has_min)
		core_thrift_field_binary(t, 6, pmin, nmin);
	if (has_max)
		core_thrift_field_bool(t, 7, max_exact);
	if (has_min)
		core_thrift_field_bool(t, 8, min_exact);
	if (c->kind == K_DBL)
		core_thrift_field_i64(t, 9, (int64_t)c->nans);
	core_thrift_struct_end(t);
}

/* Resets a column for the next row group's chunk. */
static void
chunk_reset(struct col *c)
{
	page_reset(c);
	dict_clear(c);
	c->mode = c->mode0;
	/* Given back, so that what buffered() counts is this row group's
	 * pages and not the largest row group's slack. */
	buf_free(&c->chunk);
	c->npg = 0;
	c->chunk_raw = 0;
	c->nvalues = 0;
	c->npages_dict = c->npages_plain = 0;
	c->nulls = c->nans = 0;
	c->has_minmax = false;
	c->pg_has = false;
}

/*
 * Writes the chunk's OffsetIndex (every column) and, with statistics on,
 * its ColumnIndex (integer columns), data_off being where the chunk's
 * data pages start; *oi and *ci get each one's place and length (ci
 * length 0: none).  They follow the chunk at once rather than gathering
 * before the footer: a reader finds them by their offsets either way,
 * and nothing of a row group is then held past it.
 */
static int
put_page_index(struct core_parquet_writer *w, struct col *c,
    uint64_t data_off, uint64_t oi[2], uint64_t ci[2], struct core_err *err)
{
	struct core_thrift *t = &w->enc[0].hdr;
	size_t k;
	int rc;

	core_thrift_reset(t);
	core_thrift_field_list(t, 1, CORE_THRIFT_STRUCT, (uint32_t)c->npg);
	for (k = 0; k < c->npg; k++) {
		core_thrift_elem_struct(t);		/* PageLocation */
		core_thrift_field_i64(t, 1, (int64_t)(data_off + c->pg[k].off));
		core_thrift_field_i32(t, 2, (int32_t)c->pg[k].size);
		core_thrift_field_i64(t, 3, (int64_t)c->pg[k].first_row);
		core_thrift_struct_end(t);
	}
	core_thrift_struct_end(t);
	oi[0] = w->pos;
	oi[1] = t->len;
	if ((rc = emit(w, t->buf, t->len, err)) != 0)
		return rc;
	ci[0] = ci[1] = 0;
	if (!w->o.statistics || !page_minmax_kind(c))
		return 0;
	core_thrift_reset(t);
	core_thrift_field_list(t, 1, CORE_THRIFT_TRUE, (uint32_t)c->npg);
	for (k = 0; k < c->npg; k++)
		core_thrift_raw(t, &(uint8_t){ c->pg[k].all_null ? 1 : 2 }, 1);
	for (int which = 0; which < 2; which++) {
		core_thrift_field_list(t, (int16_t)(2 + which),
		    CORE_THRIFT_BINARY, (uint32_t)c->npg);
		for (k = 0; k < c->npg; k++) {
			int64_t v = which ? c->pg[k].imax : c->pg[k].imin;
			int32_t v32 = (int32_t)v;

			if (c->pg[k].all_null)
				core_thrift_elem_binary(t, "", 0);
			else if (c->width == 4)
				core_thrift_elem_binary(t, &v32, 4);
			else
				core_thrift_elem_binary(t, &v, 8);
		}
	}
	core_thrift_field_i32(t, 4, 0);			/* UNORDERED */
	core_thrift_field_list(t, 5, CORE_THRIFT_I64, (uint32_t)c->npg);
	for (k = 0; k < c->npg; k++)
		core_thrift_put_varint(t, core_thrift_zigzag(
		    (int64_t)c->pg[k].nulls));
	core_thrift_struct_end(t);
	ci[0] = w->pos;
	ci[1] = t->len;
	return emit(w, t->buf, t->len, err);
}

static int run_job(struct core_parquet_writer *w, struct core_err *err);

/* Writes the open row group and appends its RowGroup struct to w->rg. */
static int
flush_row_group(struct core_parquet_writer *w, struct core_err *err)
{
	struct core_thrift *t = &w->rg;
	uint64_t total_raw = 0, total_comp = 0, rg_start = w->pos, held;
	uint32_t i, nenc, nes;
	int rc;

	if (w->rg_rows == 0)
		return 0;
	held = buffered(w);
	if (held > w->st.peak_buffered)
		w->st.peak_buffered = held;
	/* Every column's open page ends here, on both threads (one
	 * ended them all while the other waited: a page of each column,
	 * for a dictionary column most of its row group). */
	w->job_flush = true;
	rc = run_job(w, err);
	w->job_flush = false;
	if (rc != 0)
		return rc;

	core_thrift_elem_struct(t);
	core_thrift_field_list(t, 1, CORE_THRIFT_STRUCT, w->ncols);
	for (i = 0; i < w->ncols; i++) {
		struct col *c = &w->cols[i];
		uint64_t start = w->pos, dict_off = 0, data_off, chunk_end;
		uint64_t oi[2], ci[2];
		bool has_dict = c->npages_dict > 0;

		if (has_dict) {
			dict_off = w->pos;
			rc = put_page(w, &w->enc[0], c, PAGE_DICTIONARY, c->ndict,
			    ENC_PLAIN, c->dict.p, c->dict.len, true, err);
			if (rc != 0)
				return rc;
			w->st.dict_chunks++;
		}
		data_off = w->pos;
		if ((rc = emit(w, c->chunk.p, c->chunk.len, err)) != 0)
			return rc;
		total_raw += c->chunk_raw;
		total_comp += w->pos - start;
		chunk_end = w->pos;
		if ((rc = put_page_index(w, c, data_off, oi, ci, err)) != 0)
			return rc;

		core_thrift_elem_struct(t);		/* ColumnChunk */
		core_thrift_field_i64(t, 2, 0);		/* file_offset */
		core_thrift_field_struct(t, 3);		/* ColumnMetaData */
		core_thrift_field_i32(t, 1, c->ptype);
		nenc = 1 + (c->npages_plain > 0 || has_dict) + has_dict;
		core_thrift_field_list(t, 2, CORE_THRIFT_I32, nenc);
		if (c->npages_plain > 0 || has_dict)
			core_thrift_elem_i32(t, ENC_PLAIN);
		core_thrift_elem_i32(t, ENC_RLE);
		if (has_dict)
			core_thrift_elem_i32(t, ENC_RLE_DICTIONARY);
		core_thrift_field_list(t, 3, CORE_THRIFT_BINARY, 1);
		core_thrift_elem_binary(t, c->name, strlen(c->name));
		core_thrift_field_i32(t, 4, w->o.codec);
		core_thrift_field_i64(t, 5, (int64_t)c->nvalues);
		core_thrift_field_i64(t, 6, (int64_t)c->chunk_raw);
		core_thrift_field_i64(t, 7, (int64_t)(chunk_end - start));
		core_thrift_field_i64(t, 9, (int64_t)data_off);
		if (has_dict)
			core_thrift_field_i64(t, 11, (int64_t)dict_off);
		if (w->o.statistics) {
			stat_dict(c);
			encode_statistics(c, t);
		}
		nes = has_dict + (c->npages_dict > 0) +
		    (c->npages_plain > 0);
		core_thrift_field_list(t, 13, CORE_THRIFT_STRUCT, nes);
		if (has_dict) {
			core_thrift_elem_struct(t);
			core_thrift_field_i32(t, 1, PAGE_DICTIONARY);
			core_thrift_field_i32(t, 2, ENC_PLAIN);
			core_thrift_field_i32(t, 3, 1);
			core_thrift_struct_end(t);
		}
		if (c->npages_dict > 0) {
			core_thrift_elem_struct(t);
			core_thrift_field_i32(t, 1, PAGE_DATA);
			core_thrift_field_i32(t, 2, ENC_RLE_DICTIONARY);
			core_thrift_field_i32(t, 3, (int32_t)c->npages_dict);
			core_thrift_struct_end(t);
		}
		if (c->npages_plain > 0) {
			core_thrift_elem_struct(t);
			core_thrift_field_i32(t, 1, PAGE_DATA);
			core_thrift_field_i32(t, 2, ENC_PLAIN);
			core_thrift_field_i32(t, 3, (int32_t)c->npages_plain);
			core_thrift_struct_end(t);
		}
		core_thrift_struct_end(t);		/* ColumnMetaData */
		core_thrift_field_i64(t, 4, (int64_t)oi[0]);
		core_thrift_field_i32(t, 5, (int32_t)oi[1]);
		if (ci[1] > 0) {
			core_thrift_field_i64(t, 6, (int64_t)ci[0]);
			core_thrift_field_i32(t, 7, (int32_t)ci[1]);
		}
		core_thrift_struct_end(t);		/* ColumnChunk */
		chunk_reset(c);
	}
	core_thrift_field_i64(t, 2, (int64_t)total_raw);
	core_thrift_field_i64(t, 3, (int64_t)w->rg_rows);
	core_thrift_field_i64(t, 5, (int64_t)rg_start);
	core_thrift_field_i64(t, 6, (int64_t)total_comp);
	if (w->nrg <= INT16_MAX)
		core_thrift_field_i16(t, 7, (int16_t)w->nrg);
	core_thrift_struct_end(t);			/* RowGroup */
	w->nrg++;
	w->rows += w->rg_rows;
	w->rg_rows = 0;
	return 0;
}

/* ---- the writer ---- */

static void
col_setup(struct col *c, const struct core_field *f,
    enum core_parquet_dict dict)
{
	memset(c, 0, sizeof(*c));
	c->plain.head = PLAIN_HEAD;
	c->name = f->name;
	c->type = f->type;
	switch (f->type.id) {
	case CORE_TYPE_BOOL:
		c->kind = K_BOOL, c->ptype = PT_BOOLEAN, c->width = 0;
		break;
	case CORE_TYPE_INT32:
	case CORE_TYPE_DATE:
		c->kind = K_I32, c->ptype = PT_INT32, c->width = 4;
		break;
	case CORE_TYPE_INT64:
	case CORE_TYPE_TIMESTAMP:
		c->kind = K_I64, c->ptype = PT_INT64, c->width = 8;
		break;
	case CORE_TYPE_DECIMAL:
		if (f->type.precision <= 9)
			c->kind = K_DEC32, c->ptype = PT_INT32, c->width = 4;
		else
			c->kind = K_I64, c->ptype = PT_INT64, c->width = 8;
		break;
	case CORE_TYPE_FLOAT64:
		c->kind = K_DBL, c->ptype = PT_DOUBLE, c->width = 8;
		break;
	case CORE_TYPE_DECIMAL128:
		c->kind = K_W16, c->ptype = PT_FIXED_LEN_BYTE_ARRAY;
		c->width = 16;
		c->wlimit = 1;
		for (unsigned k = 0; k < f->type.precision; k++)
			c->wlimit *= 10;
		break;
	case CORE_TYPE_STRING:
		c->kind = K_STR, c->ptype = PT_BYTE_ARRAY, c->width = 0;
		break;
	}
	/* A bool takes at most one bit PLAIN: no dictionary can beat it.
	 * Wide decimals (sums, mostly distinct) are PLAIN too: the
	 * dictionary's fixed-width paths are for 4 and 8 bytes. */
	if (c->kind == K_BOOL || c->kind == K_W16 ||
	    dict == CORE_PARQUET_DICT_OFF)
		c->mode0 = M_PLAIN;
	else if (dict == CORE_PARQUET_DICT_ON)
		c->mode0 = M_DICT;
	else
		c->mode0 = M_TRIAL;
	c->mode = c->mode0;
	core_parquet_rle_init(&c->def, 1);
}

static void
enc_init(struct enc *e)
{
	memset(e, 0, sizeof(*e));
	core_thrift_init(&e->hdr);
	core_parquet_rle_init(&e->ienc, 1);
	e->codec = core_codec_ctx_new();
}

static void
enc_release(struct enc *e)
{
	core_thrift_release(&e->hdr);
	buf_free(&e->body);
	buf_free(&e->comp);
	core_parquet_rle_release(&e->ienc);
	core_codec_ctx_free(e->codec);
	e->codec = NULL;
}

/* Encodes columns of the current slice, taking them one at a time until
 * none is left; stops at its first failure (kept in e). */
static void
encode_columns(struct core_parquet_writer *w, struct enc *e)
{
	const struct core_batch *b = w->job;
	uint32_t i;
	struct timespec t0, t1;

	e->rc = 0;
	for (;;) {
		i = __atomic_fetch_add(&w->next_col, 1, __ATOMIC_RELAXED);
		if (i >= w->ncols)
			return;
		i = w->order[i];
		if (w->job_flush) {
			e->rc = flush_page(w, e, &w->cols[i], &e->err);
			if (e->rc != 0)
				break;
			continue;
		}
		clock_gettime(CLOCK_MONOTONIC, &t0);
		e->rc = write_slice(w, e, &w->cols[i], &b->cols[i],
		    w->job_off, w->job_n, &e->err);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		w->cols[i].cost = (uint64_t)(t1.tv_sec - t0.tv_sec) *
		    1000000000u + (uint64_t)t1.tv_nsec - (uint64_t)t0.tv_nsec;
		if (e->rc != 0)
			break;
	}
	/* The other thread stops taking columns too. */
	__atomic_store_n(&w->next_col, w->ncols, __ATOMIC_RELAXED);
}

static void
encode_on(void *arg, unsigned who)
{
	struct core_parquet_writer *w = arg;

	encode_columns(w, &w->enc[who]);
}

/* Runs the job set up in w (a slice, or the open pages' flush) on
 * both threads if there are two; its first failure. */
static int
run_job(struct core_parquet_writer *w, struct core_err *err)
{
	unsigned k;

	w->next_col = 0;
	w->enc[1].rc = 0;
	core_pool_run(w->pool, w->nenc, encode_on, w);
	for (k = 0; k < w->nenc; k++)
		if (w->enc[k].rc != 0) {
			if (err != NULL)
				*err = w->enc[k].err;
			return w->enc[k].rc;
		}
	return 0;
}

/* Encodes rows off..off+n of every column, on both threads if there
 * are two. */
static int
encode_slice(struct core_parquet_writer *w, const struct core_batch *b,
    uint32_t off, uint32_t n, struct core_err *err)
{
	uint32_t i, j, x;

	/* Costliest first (insertion sort: few columns, nearly sorted
	 * from the slice before). */
	for (i = 1; i < w->ncols; i++) {
		x = w->order[i];
		for (j = i; j > 0 && w->cols[w->order[j - 1]].cost <
		    w->cols[x].cost; j--)
			w->order[j] = w->order[j - 1];
		w->order[j] = x;
	}
	w->job = b;
	w->job_off = off;
	w->job_n = n;
	return run_job(w, err);
}

int
core_parquet_writer_new(struct core_output *out,
    const struct core_schema *schema, const struct core_parquet_options *o,
    struct core_parquet_writer **wp, struct core_err *err)
{
	struct core_parquet_writer *w;
	uint32_t i;
	size_t dmaps;
	int rc;

	*wp = NULL;
	if (o->row_group_rows == 0 || o->row_group_bytes == 0 ||
	    o->page_bytes == 0)
		return core_err_set(err, CORE_EUSAGE,
		    "row group and page sizes must be at least 1");
	w = core_xcalloc(1, sizeof(*w));
	w->out = out;
	w->schema = schema;
	w->o = *o;
	w->ncols = schema->ncols;
	w->cols = core_xcalloc(w->ncols ? w->ncols : 1, sizeof(*w->cols));
	w->order = core_xcalloc(w->ncols ? w->ncols : 1, sizeof(*w->order));
	for (i = 0; i < w->ncols; i++)
		w->order[i] = i;
	for (i = 0; i < w->ncols; i++)
		col_setup(&w->cols[i], &schema->fields[i],
		    o->col_dict != NULL ? o->col_dict[i] : o->dict);
	w->o.col_dict = NULL;		/* borrowed for this call only */
	for (i = 0, dmaps = 0; i < w->ncols; i++) {
		struct col *c = &w->cols[i];

		if ((c->kind == K_I32 || c->kind == K_DEC32 ||
		    c->kind == K_I64) && c->mode0 != M_PLAIN &&
		    dmaps + DMAP_N * 4 <= DMAP_BUDGET) {
			c->dmap = core_xcalloc(DMAP_N, sizeof(*c->dmap));
			dmaps += DMAP_N * 4;
		}
	}
	core_thrift_init(&w->rg);
	w->nenc = 2;
	for (i = 0; i < w->nenc; i++)
		enc_init(&w->enc[i]);
	/* Without a second thread (one core, -j1, or none to be had) the
	 * caller encodes alone: slower, not wrong. */
	if ((w->pool = core_pool_new(core_pool_default(o->threads,
	    2))) == NULL) {
		enc_release(&w->enc[1]);
		w->nenc = 1;
	}
	if ((rc = emit(w, "PAR1", 4, err)) != 0) {
		core_parquet_writer_free(w);
		return rc;
	}
	*wp = w;
	return 0;
}

/*
 * CORE_EDATA naming the first valid value of a decimal(p <= 18) column
 * of b with p digits or more, which no reader could take back at the
 * declared precision.  One OR-reduce pass a column; validity is looked
 * at only when some slot is out of range (NULL slots may hold anything).
 */
static int
check_decimals(const struct core_parquet_writer *w,
    const struct core_batch *b, struct core_err *err)
{
	uint32_t i, r;

	for (i = 0; i < b->ncols; i++) {
		const struct core_column *col = &b->cols[i];
		const int64_t *v = col->values;
		int64_t lim;
		bool bad = false;

		if (col->type.id != CORE_TYPE_DECIMAL)
			continue;
		lim = (int64_t)core_pow10_u64[col->type.precision] - 1;
		for (r = 0; r < b->nrows; r++)
			bad |= (v[r] > lim) | (v[r] < -lim);
		if (!bad)
			continue;
		for (r = 0; r < b->nrows; r++)
			if ((v[r] > lim || v[r] < -lim) &&
			    core_col_is_valid(col, r)) {
				char t[CORE_TYPE_NAME_MAX];

				return core_err_set(err, CORE_EDATA,
				    "column %s, row %llu: unscaled value %lld "
				    "has more digits than %s holds; declare "
				    "a larger precision upstream",
				    w->cols[i].name, (unsigned long long)
				    (w->rows + w->rg_rows + r + 1),
				    (long long)v[r],
				    core_type_name(col->type, t));
			}
	}
	return 0;
}

int
core_parquet_write_batch(struct core_parquet_writer *w,
    const struct core_batch *b, struct core_err *err)
{
	uint32_t off = 0, n;
	uint64_t room;
	int rc;

	if ((rc = check_decimals(w, b, err)) != 0)
		return rc;
	while (off < b->nrows) {
		room = w->o.row_group_rows - w->rg_rows;
		n = b->nrows - off;
		if (n > room)
			n = (uint32_t)room;
		if ((rc = encode_slice(w, b, off, n, err)) != 0)
			return rc;
		w->rg_rows += n;
		off += n;
		if (w->rg_rows >= w->o.row_group_rows ||
		    buffered(w) >= w->o.row_group_bytes)
			if ((rc = flush_row_group(w, err)) != 0)
				return rc;
	}
	return 0;
}

static void
encode_schema(const struct core_parquet_writer *w, struct core_thrift *t)
{
	uint32_t i;

	core_thrift_field_list(t, 2, CORE_THRIFT_STRUCT, w->ncols + 1);
	core_thrift_elem_struct(t);
	core_thrift_field_string(t, 4, "schema");
	core_thrift_field_i32(t, 5, (int32_t)w->ncols);
	core_thrift_struct_end(t);
	for (i = 0; i < w->ncols; i++) {
		const struct col *c = &w->cols[i];

		core_thrift_elem_struct(t);
		core_thrift_field_i32(t, 1, c->ptype);
		if (c->kind == K_W16)
			core_thrift_field_i32(t, 2, 16);	/* type_length */
		core_thrift_field_i32(t, 3, REP_OPTIONAL);
		core_thrift_field_string(t, 4, c->name);
		switch (c->type.id) {
		case CORE_TYPE_DECIMAL:
		case CORE_TYPE_DECIMAL128:
			core_thrift_field_i32(t, 6, CT_DECIMAL);
			core_thrift_field_i32(t, 7, c->type.scale);
			core_thrift_field_i32(t, 8, c->type.precision);
			core_thrift_field_struct(t, 10);
			core_thrift_field_struct(t, 5);
			core_thrift_field_i32(t, 1, c->type.scale);
			core_thrift_field_i32(t, 2, c->type.precision);
			core_thrift_struct_end(t);
			core_thrift_struct_end(t);
			break;
		case CORE_TYPE_DATE:
			core_thrift_field_i32(t, 6, CT_DATE);
			core_thrift_field_struct(t, 10);
			core_thrift_field_struct(t, 6);
			core_thrift_struct_end(t);
			core_thrift_struct_end(t);
			break;
		case CORE_TYPE_TIMESTAMP:
			/* The converted type means UTC-adjusted; a local
			 * timestamp has none (as the format's spec says). */
			if (w->o.timestamps_utc)
				core_thrift_field_i32(t, 6,
				    CT_TIMESTAMP_MICROS);
			core_thrift_field_struct(t, 10);
			core_thrift_field_struct(t, 8);
			core_thrift_field_bool(t, 1, w->o.timestamps_utc);
			core_thrift_field_struct(t, 2);
			core_thrift_field_struct(t, 2);		/* MICROS */
			core_thrift_struct_end(t);
			core_thrift_struct_end(t);
			core_thrift_struct_end(t);
			core_thrift_struct_end(t);
			break;
		case CORE_TYPE_STRING:
			core_thrift_field_i32(t, 6, CT_UTF8);
			core_thrift_field_struct(t, 10);
			core_thrift_field_struct(t, 1);
			core_thrift_struct_end(t);
			core_thrift_struct_end(t);
			break;
		default:
			break;
		}
		core_thrift_struct_end(t);
	}
}

int
core_parquet_writer_finish(struct core_parquet_writer *w,
    struct core_err *err)
{
	struct core_thrift t;
	uint32_t i, len;
	char created_by[128];
	int rc;

	if ((rc = flush_row_group(w, err)) != 0)
		return rc;
	core_thrift_init(&t);
	core_thrift_field_i32(&t, 1, 1);		/* version */
	encode_schema(w, &t);
	core_thrift_field_i64(&t, 3, (int64_t)w->rows);
	core_thrift_field_list(&t, 4, CORE_THRIFT_STRUCT,
	    (uint32_t)w->nrg);
	core_thrift_raw(&t, w->rg.buf, w->rg.len);
	snprintf(created_by, sizeof(created_by),
	    "colpipe version %s (build %s)", core_version(),
	    core_build_id());
	core_thrift_field_string(&t, 6, created_by);
	core_thrift_field_list(&t, 7, CORE_THRIFT_STRUCT, w->ncols);
	for (i = 0; i < w->ncols; i++) {
		core_thrift_elem_struct(&t);
		core_thrift_field_struct(&t, 1);	/* TYPE_ORDER */
		core_thrift_struct_end(&t);
		core_thrift_struct_end(&t);
	}
	core_thrift_struct_end(&t);
	len = (uint32_t)t.len;
	rc = emit(w, t.buf, t.len, err);
	if (rc == 0)
		rc = emit(w, &len, 4, err);
	if (rc == 0)
		rc = emit(w, "PAR1", 4, err);
	core_thrift_release(&t);
	if (rc == 0)
		rc = core_output_flush(w->out, err);
	if (rc == 0)
		w->finished = true;
	return rc;
}

struct core_pool *
core_parquet_writer_pool(const struct core_parquet_writer *w)
{
	return w->pool;
}

void
core_parquet_writer_stats(const struct core_parquet_writer *w,
    struct core_parquet_stats *st)
{
	*st = w->st;
	st->pages = w->enc[0].pages + w->enc[1].pages;
	st->rows = w->rows + w->rg_rows;
	st->row_groups = w->nrg;
	st->bytes = w->pos;
}

void
core_parquet_writer_free(struct core_parquet_writer *w)
{
	uint32_t i;

	if (w == NULL)
		return;
	for (i = 0; i < w->ncols; i++) {
		struct col *c = &w->cols[i];

		core_parquet_rle_release(&c->def);
		buf_free(&c->plain);
		free(c->idx);
		buf_free(&c->dict);
		free(c->doff);
		free(c->dtag);
		free(c->slots);
		free(c->dmap);
		free(c->skeys);
		free(c->sents);
		buf_free(&c->chunk);
		free(c->pg);
		buf_free(&c->smin);
		buf_free(&c->smax);
	}
	free(w->cols);
	free(w->order);
	core_thrift_release(&w->rg);
	core_pool_free(w->pool);
	enc_release(&w->enc[0]);
	enc_release(&w->enc[1]);
	free(w);
}
