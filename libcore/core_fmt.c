/*
 * core_fmt.c - text output formats for column batches (col2csv).
 *
 * CSV and TSV (the formats that have to be fast) are written a block of
 * rows at a time, column by column.  A block is at most block_rows rows
 * (about 8192 cells, so its text stays in the L2 cache) holding at most
 * BLOCK_STR_MAX string bytes.  For each column one tight loop of its type
 * produces the block's cell texts as (base, offsets): numbers, dates,
 * timestamps and bools are formatted into a scratch arena (integers eight
 * digits per step, dates through a small day -> text cache).  The bytes
 * of a string column's block are scanned at once, 16 at a time, for
 * those that force quoting or escaping; when no string of the block needs
 * it (the usual case) the strings are not copied at all: base and
 * offsets are the batch's own bytes and offsets.  Otherwise runs of
 * strings written as stored are copied to the arena in one piece and
 * only the others quoted or escaped one by one.  Then the rows are
 * assembled into the output with one reservation per block: each cell is
 * a short copy of 16-byte moves plus its delimiter.
 *
 * JSON Lines and the table are written row by row: a value of a
 * fixed-width type is formatted in place after reserving
 * CORE_VALUE_TEXT_MAX bytes, and a string is copied (or escaped) from the
 * batch's byte buffer.
 *
 * Nothing is allocated per value, row or batch; the only allocations (the
 * scratch arena, sized for the worst block, the block's offsets and the
 * date cache) are made once by core_fmt_new.
 *
 * Invariants:
 *   - the header (CSV, TSV, table) is written exactly once, before the
 *     first row, or by core_fmt_finish when no row came;
 *   - the columnar path writes the same bytes as the row-by-row rules in
 *     core_fmt.h (test_fmt compares it with a naive writer);
 *   - the 16-byte copies never read outside a buffer: every cell source
 *     has SLACK readable bytes after the column's last cell (scratch text
 *     is followed by SLACK spare bytes; batch bytes are used in place
 *     only when SLACK more batch bytes follow the block), and every
 *     destination has SLACK bytes of room reserved past the text;
 *   - a string of any length is handled, whatever the output's buffer
 *     size: a row with more than BLOCK_STR_MAX string bytes is written
 *     value by value, escaping that can grow text works on pieces cut at
 *     UTF-8 character starts, each reserved in the output at its worst
 *     expansion, and copies of long runs bypass the buffer;
 *   - the output is not flushed here; its owner flushes and closes it.
 *
 * The workload is col2csv on wide batches of a few thousand rows.
 */
#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "core_alloc.h"
#include "core_debug.h"
#include "core_fmt.h"
#include "core_value.h"

/* Smallest output buffer we work with: room for any fixed-width value
 * with its delimiter and quotes, and for escaped pieces of strings. */
#define FMT_MIN_CAP 256

/*
 * CSV and TSV blocks.  Text of one column of a block: cell r is
 * base[off[r] .. off[r + 1]).
 */
struct cells {
	const char *base;
	const uint32_t *off;		/* nb + 1 entries */
};

/* A slot of the date cache: the text of day number `day`.  text comes
 * first so that one 16-byte copy moves it (and 6 spare bytes). */
struct date_text {
	char text[12];			/* "YYYY-MM-DD", 2 spare bytes */
	int32_t day;
};

struct core_fmt {
	enum core_fmt_kind kind;
	bool header;			/* header (table: rule, footer) */
	char delim;			/* CSV only */
	const struct core_schema *schema;	/* borrowed */
	struct core_output *out;	/* borrowed */
	bool started;			/* header done (or not wanted) */
	uint64_t nrows;			/* rows written so far */
	size_t piece;			/* bytes escaped per reservation */

	/* CSV: bytes that force quoting a string; quote_fixed when the
	 * delimiter can occur in the text of a number, date or bool. */
	uint8_t csv_special[256];
	bool quote_fixed;

	/* CSV and TSV blocks: the bytes that force quoting (CSV) or
	 * escaping (TSV) a string, as a table and as a list of four. */
	uint8_t special[256];
	char special4[4];
	uint32_t block_rows;		/* rows per block, at most */
	struct cells *cells;		/* owned; ncols */
	uint8_t *ex;			/* owned; block_rows */
	uint32_t *offbuf;		/* owned; ncols * (block_rows + 1) */
	char *scratch;			/* owned; the worst block's text */
	size_t scratch_cap;
	struct date_text *dates;	/* owned; DATE_SLOTS, direct-mapped */

	/* JSON: the escaped key of each column with what precedes it,
	 * {"a": then ,"b": ..., back to back; key_off has ncols + 1
	 * entries. */
	char *keys;			/* owned */
	size_t *key_off;		/* owned */

	/* table: display width and alignment per column. */
	size_t *width;			/* owned */
	bool *right;			/* owned */
	size_t max_width;		/* 0 = not fitted */
	const char *hidden_hint;	/* borrowed */
	uint32_t nshown;		/* columns shown: the first nshown */
	char *cut;			/* owned: a shortened cell's text */
	size_t cut_cap;
};

typedef size_t (*escape_fn)(const unsigned char *s, size_t n, char *dst);

static const char hexdig[] = "0123456789abcdef";

/* ---- output helpers ---- */

static inline int
put(struct core_fmt *f, const void *p, size_t n, struct core_err *err)
{
	return core_output_write(f->out, p, n, err);
}

static int
put_spaces(struct core_fmt *f, size_t n, struct core_err *err)
{
	static const char spaces[64] =
	    "                                                                ";
	int rc;

	while (n > 0) {
		size_t k = n < sizeof(spaces) ? n : sizeof(spaces);

		if ((rc = put(f, spaces, k, err)) != 0)
			return rc;
		n -= k;
	}
	return 0;
}

static inline bool
is_cont(unsigned char c)
{
	return (c & 0xC0) == 0x80;
}

/*
 * Writes esc(s) for a string of any length, esc growing its input at most
 * grow times.  Pieces end at a byte that starts a character (or, failing
 * that within 3 bytes, at a byte that belongs to no valid sequence), so
 * escaping piece by piece equals escaping the whole.
 */
static int
put_escaped(struct core_fmt *f, const char *s, size_t n, escape_fn esc,
    size_t grow, struct core_err *err)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + n;
	int rc;

	while (p < end) {
		size_t k = (size_t)(end - p);
		char *dst;

		if (k > f->piece) {
			const unsigned char *cut = p + f->piece, *b = cut;

			for (int i = 0; i < 3 && b > p && is_cont(*b); i++)
				b--;
			if (b > p && !is_cont(*b))
				cut = b;
			k = (size_t)(cut - p);
		}
		dst = core_output_reserve(f->out, k * grow, err, &rc);
		if (rc != 0)
			return rc;
		core_output_commit(f->out, esc(p, k, dst));
		p += k;
	}
	return 0;
}

/* Column i's string at row r, as (pointer, length). */
static inline const char *
str_at(const struct core_column *c, uint32_t r, size_t *len)
{
	int32_t a = c->offsets[r], b = c->offsets[r + 1];

	*len = (size_t)(b - a);
	return *len ? (const char *)c->values + a : "";
}

/* Text of a non-string value; buf has CORE_VALUE_TEXT_MAX bytes. */
static size_t
format_fixed(const struct core_column *c, uint32_t r, char *buf)
{
	switch (c->type.id) {
	case CORE_TYPE_BOOL:
		return core_format_bool(((const uint8_t *)c->values)[r], buf);
	case CORE_TYPE_INT32:
		return core_format_int64(((const int32_t *)c->values)[r], buf);
	case CORE_TYPE_INT64:
		return core_format_int64(((const int64_t *)c->values)[r], buf);
	case CORE_TYPE_FLOAT64:
		return core_format_float64(((const double *)c->values)[r],
		    buf);
	case CORE_TYPE_DECIMAL:
		return core_format_decimal(((const int64_t *)c->values)[r],
		    c->type.scale, buf);
	case CORE_TYPE_DECIMAL128:
		return core_format_decimal128(core_i128_load(
		    (const char *)c->values + 16 * (size_t)r),
		    c->type.scale, buf);
	case CORE_TYPE_DATE:
		return core_format_date(((const int32_t *)c->values)[r], buf);
	case CORE_TYPE_TIMESTAMP:
		return core_format_timestamp(((const int64_t *)c->values)[r],
		    buf);
	case CORE_TYPE_STRING:
		break;
	}
	assert(!"format_fixed on a string column");
	return 0;
}

static bool
is_numeric(enum core_type t)
{
	return t == CORE_TYPE_INT32 || t == CORE_TYPE_INT64 ||
	    t == CORE_TYPE_FLOAT64 || core_type_is_decimal(t);
}

/* ---- JSON ---- */

/*
 * RFC 8259 string body: '"', '\\' and control characters escaped (the
 * short forms where JSON has them, else \u00XX), valid UTF-8 kept as is,
 * each byte of an invalid sequence replaced by \ufffd so the output is
 * always valid JSON.  dst needs 6 * n bytes.
 */
static size_t
json_escape(const unsigned char *s, size_t n, char *dst)
{
	const unsigned char *p = s, *end = s + n;
	const unsigned char *valid = p + core_utf8_valid_prefix((const char *)p,
	    n);
	char *d = dst;

	while (p < end) {
		unsigned c = *p;

		if (c >= 0x20 && c != '"' && c != '\\' &&
		    (c < 0x80 || p < valid)) {
			*d++ = (char)c;
			p++;
			continue;
		}
		p++;
		if (c >= 0x80) {
			memcpy(d, "\\ufffd", 6);
			d += 6;
			valid = p + core_utf8_valid_prefix((const char *)p,
			    (size_t)(end - p));
			continue;
		}
		*d++ = '\\';
		switch (c) {
		case '"':  *d++ = '"'; break;
		case '\\': *d++ = '\\'; break;
		case '\n': *d++ = 'n'; break;
		case '\r': *d++ = 'r'; break;
		case '\t': *d++ = 't'; break;
		case '\b': *d++ = 'b'; break;
		case '\f': *d++ = 'f'; break;
		default:
			memcpy(d, "u00", 3);
			d[3] = hexdig[c >> 4];
			d[4] = hexdig[c & 15];
			d += 5;
			break;
		}
	}
	return (size_t)(d - dst);
}

static int
json_string(struct core_fmt *f, const char *s, size_t n, struct core_err *err)
{
	int rc;

	if ((rc = put(f, "\"", 1, err)) != 0 ||
	    (rc = put_escaped(f, s, n, json_escape, 6, err)) != 0)
		return rc;
	return put(f, "\"", 1, err);
}

static int
jsonl_batch(struct core_fmt *f, const struct core_batch *b,
    struct core_err *err)
{
	uint32_t ncols = b->ncols;
	int rc;

	for (uint32_t r = 0; r < b->nrows; r++) {
		for (uint32_t i = 0; i < ncols; i++) {
			const struct core_column *c = &b->cols[i];
			size_t klen = f->key_off[i + 1] - f->key_off[i], n;
			char *p;

			if ((rc = put(f, f->keys + f->key_off[i], klen,
			    err)) != 0)
				return rc;
			if (!core_col_is_valid(c, r)) {
				if ((rc = put(f, "null", 4, err)) != 0)
					return rc;
				continue;
			}
			if (c->type.id == CORE_TYPE_STRING) {
				const char *s = str_at(c, r, &n);

				if ((rc = json_string(f, s, n, err)) != 0)
					return rc;
				continue;
			}
			p = core_output_reserve(f->out, CORE_VALUE_TEXT_MAX + 2,
			    err, &rc);
			if (rc != 0)
				return rc;
			if (c->type.id == CORE_TYPE_FLOAT64 &&
			    !isfinite(((const double *)c->values)[r])) {
				/* JSON has no NaN or infinity. */
				memcpy(p, "null", 4);
				n = 4;
			} else if (c->type.id == CORE_TYPE_DATE ||
			    c->type.id == CORE_TYPE_TIMESTAMP) {
				p[0] = '"';
				n = format_fixed(c, r, p + 1);
				p[n + 1] = '"';
				n += 2;
			} else {
				n = format_fixed(c, r, p);
			}
			core_output_commit(f->out, n);
		}
		if ((rc = put(f, ncols ? "}\n" : "{}\n", ncols ? 2 : 3,
		    err)) != 0)
			return rc;
	}
	return 0;
}

/* ---- CSV ---- */

static int
csv_string(struct core_fmt *f, const char *s, size_t n, struct core_err *err)
{
	const unsigned char *p = (const unsigned char *)s;
	bool quote = n == 0;
	const char *q, *end = s + n;
	int rc;

	for (size_t i = 0; i < n; i++)
		quote |= f->csv_special[p[i]];
	if (!quote)
		return put(f, s, n, err);
	if ((rc = put(f, "\"", 1, err)) != 0)
		return rc;
	/* Each quote inside is written twice: the run up to and including
	 * it, then the quote again. */
	while ((q = memchr(s, '"', (size_t)(end - s))) != NULL) {
		if ((rc = put(f, s, (size_t)(q + 1 - s), err)) != 0 ||
		    (rc = put(f, "\"", 1, err)) != 0)
			return rc;
		s = q + 1;
	}
	if ((rc = put(f, s, (size_t)(end - s), err)) != 0)
		return rc;
	return put(f, "\"", 1, err);
}

/* ---- TSV ---- */

static bool
tsv_special(unsigned char c)
{
	return c == '\t' || c == '\n' || c == '\r' || c == '\\';
}

/* Backslash escapes for TAB, LF, CR and backslash; dst needs 2 * n. */
static size_t
tsv_escape(const unsigned char *s, size_t n, char *dst)
{
	char *d = dst;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = s[i];

		if (!tsv_special(c)) {
			*d++ = (char)c;
			continue;
		}
		*d++ = '\\';
		*d++ = c == '\t' ? 't' : c == '\n' ? 'n' : c == '\r' ? 'r' :
		    '\\';
	}
	return (size_t)(d - dst);
}

static int
tsv_string(struct core_fmt *f, const char *s, size_t n, struct core_err *err)
{
	const unsigned char *p = (const unsigned char *)s;
	bool plain = true;

	for (size_t i = 0; i < n; i++)
		plain &= !tsv_special(p[i]);
	if (plain)
		return put(f, s, n, err);
	return put_escaped(f, s, n, tsv_escape, 2, err);
}

/* ---- CSV and TSV: one row value by value ---- */

/*
 * Row r written value by value, straight into the output: the path for
 * a row whose strings are too long for a block (see delimited_batch).
 * The two delimited formats differ only in the delimiter, how NULL is
 * written (CSV: nothing, TSV: \N), how a string is quoted or escaped,
 * and CSV's quoting of a number or date whose text holds an unusual
 * delimiter.
 */
static int
delimited_row(struct core_fmt *f, const struct core_batch *b, uint32_t r,
    struct core_err *err)
{
	bool tsv = f->kind == CORE_FMT_TSV;
	char delim = tsv ? '\t' : f->delim;
	bool quote_fixed = !tsv && f->quote_fixed;
	int rc;

	for (uint32_t i = 0; i < b->ncols; i++) {
		const struct core_column *c = &b->cols[i];
		size_t n = 0, k;
		char *p;

		p = core_output_reserve(f->out, CORE_VALUE_TEXT_MAX + 4, err,
		    &rc);
		if (rc != 0)
			return rc;
		if (i > 0)
			p[n++] = delim;
		if (!core_col_is_valid(c, r)) {
			if (tsv) {
				memcpy(p + n, "\\N", 2);
				n += 2;
			}
			core_output_commit(f->out, n);
			continue;
		}
		if (c->type.id == CORE_TYPE_STRING) {
			const char *s;

			core_output_commit(f->out, n);
			s = str_at(c, r, &k);
			rc = tsv ? tsv_string(f, s, k, err) :
			    csv_string(f, s, k, err);
			if (rc != 0)
				return rc;
			continue;
		}
		k = format_fixed(c, r, p + n);
		if (quote_fixed && memchr(p + n, delim, k)) {
			memmove(p + n + 1, p + n, k);
			p[n] = '"';
			p[n + k + 1] = '"';
			k += 2;
		}
		core_output_commit(f->out, n + k);
	}
	return put(f, "\n", 1, err);
}

/* ---- CSV and TSV: blocks of rows, column by column ---- */

/* Most string bytes in one block; a row with more goes value by value. */
#define BLOCK_STR_MAX	(64 * 1024)
/* Cells per block (rows = this / ncols, within 16..512). */
#define BLOCK_CELLS	8192
/* Longest cell of a fixed-width type: a value's text, quoted. */
#define CELL_MAX	(CORE_VALUE_TEXT_MAX + 2)
/* Room past every text: cells are copied in 16-byte moves (32 bytes at
 * least), and some formatters store a few bytes past their text. */
#define SLACK		32
/* Slots of the date cache (a power of two).  TPC-H's seven years of
 * dates fit without a collision. */
#define DATE_SLOTS	4096

#define USEC_PER_SEC	INT64_C(1000000)
#define USEC_PER_DAY	(INT64_C(86400) * USEC_PER_SEC)

/*
 * The formatters below give the same text as core_value's (test_fmt
 * checks them against it on random and edge values) but write straight
 * to their final place, and may store a few bytes past their text (at
 * most CELL_MAX in all).
 *
 * Integers go eight digits at a time without a branch or a table: the
 * digits of v < 10^8 are split into 32-bit, then 16-bit, then 8-bit
 * lanes of one 64-bit word by multiplying with reciprocals (exact for
 * these ranges: (y * 5243) >> 19 == y / 100 for y < 10^4, and
 * (z * 103) >> 10 == z / 10 for z < 100), the first digit in the lowest
 * byte; the leading zeros are then shifted out.
 */

static inline void
put2(char *p, unsigned v)
{
	memcpy(p, core_digit_pairs + 2 * v, 2);
}

/* The 8 digits of v < 10^8 as byte values 0..9, most significant in the
 * lowest byte. */
static inline uint64_t
digits8(uint32_t v)
{
	uint64_t x = v / 10000 | (uint64_t)(v % 10000) << 32;
	uint64_t q = ((x * 5243) >> 19) & UINT64_C(0x0000007F0000007F);

	x = q | (x - q * 100) << 16;
	q = ((x * 103) >> 10) & UINT64_C(0x000F000F000F000F);
	return q | (x - q * 10) << 8;
}

/* The 8 bytes of x at d, lowest first. */
static inline void
store8(char *d, uint64_t x)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	x = __builtin_bswap64(x);
#endif
	memcpy(d, &x, 8);
}

#define ASCII_ZEROS	UINT64_C(0x3030303030303030)

/* Text of v < 10^8; stores 8 bytes. */
static inline size_t
u32_text8(uint32_t v, char *d)
{
	uint64_t x = digits8(v);
	/* Leading zero digits: at most 7, so that 0 is "0". */
	unsigned lz = (unsigned)__builtin_ctzll(x | UINT64_C(1) << 56) / 8;

	store8(d, (x + ASCII_ZEROS) >> (8 * lz));
	return 8 - lz;
}

/* Text of v >= 10^8; stores up to 24 bytes.  Out of line: rare. */
static size_t
u64_text_long(uint64_t v, char *d)
{
	uint64_t lo = v % 100000000;
	size_t n;

	v /= 100000000;
	if (v < 100000000) {
		n = u32_text8((uint32_t)v, d);
	} else {
		n = u32_text8((uint32_t)(v / 100000000), d);
		store8(d + n, digits8((uint32_t)(v % 100000000)) +
		    ASCII_ZEROS);
		n += 8;
	}
	store8(d + n, digits8((uint32_t)lo) + ASCII_ZEROS);
	return n + 8;
}

/* Text of v; stores up to 24 bytes. */
static inline size_t
u64_text(uint64_t v, char *d)
{
	if (v < 100000000)
		return u32_text8((uint32_t)v, d);
	return u64_text_long(v, d);
}

/* Like core_format_int64. */
static inline size_t
i64_text(int64_t v, char *d)
{
	size_t neg = v < 0;
	/* Unsigned negation is defined for INT64_MIN too. */
	uint64_t m = neg ? 0 - (uint64_t)v : (uint64_t)v;

	d[0] = '-';
	return neg + u64_text(m, d + neg);
}

static inline size_t
i32_text(int32_t v, char *d)
{
	size_t neg = v < 0;
	uint32_t m = neg ? 0 - (uint32_t)v : (uint32_t)v;

	d[0] = '-';
	return neg + u64_text(m, d + neg);
}

/* Like core_format_decimal: the scale's digits after the point, always.
 * Inlined with a constant scale, the divisions become multiplications. */
static inline size_t
decimal_text(int64_t v, unsigned scale, char *d)
{
	size_t neg = v < 0;
	uint64_t m = neg ? 0 - (uint64_t)v : (uint64_t)v, fp;
	char *p = d + neg, *end;
	unsigned k;

	d[0] = '-';
	if (scale == 0)
		return neg + u64_text(m, p);
	if (scale < 8 && m < 100000000) {
		/* One word of digits: at least scale + 1 of them (0.05),
		 * the point stored over the first fraction digit, which
		 * then moves one byte on. */
		uint64_t x = digits8((uint32_t)m) + ASCII_ZEROS;
		unsigned lz = (unsigned)__builtin_ctzll((x - ASCII_ZEROS) |
		    UINT64_C(1) << (8 * (7 - scale))) / 8;
		size_t nint = 8 - lz - scale;

		store8(p, x >> (8 * lz));
		p[nint] = '.';
		store8(p + nint + 1, x >> (8 * (8 - scale)));
		return neg + nint + 1 + scale;
	}
	fp = m % core_pow10_u64[scale];
	p += u64_text(m / core_pow10_u64[scale], p);
	*p = '.';
	end = p + 1 + scale;
	if (scale <= 8) {
		/* The last `scale` of fp's eight digits. */
		store8(p + 1, (digits8((uint32_t)fp) + ASCII_ZEROS) >>
		    (8 * (8 - scale)));
		return (size_t)(end - d);
	}
	for (p = end, k = scale; k >= 2; k -= 2) {
		p -= 2;
		put2(p, (unsigned)(fp % 100));
		fp /= 100;
	}
	if (k != 0)
		p[-1] = (char)('0' + fp);
	return (size_t)(end - d);
}

/* Fills slot e with day's text, unless that is not 10 bytes (a year
 * outside 0001-9999), which is not cached. */
static int
date_fill(struct date_text *e, int32_t day)
{
	char tmp[CORE_VALUE_TEXT_MAX];

	if (core_format_date(day, tmp) != 10)
		return -1;
	memcpy(e->text, tmp, 10);
	e->day = day;
	return 0;
}

/* Like core_format_date; stores up to 16 bytes at d. */
static inline size_t
date_text(struct date_text *cache, int32_t day, char *d)
{
	struct date_text *e = &cache[(uint32_t)day & (DATE_SLOTS - 1)];

	if (e->day != day && date_fill(e, day) != 0)
		return core_format_date(day, d);
	memcpy(d, e, 16);
	return 10;
}

/* Like core_format_timestamp, the date through the cache. */
static inline size_t
timestamp_text(struct date_text *cache, int64_t us, char *d)
{
	int64_t days = us / USEC_PER_DAY, rem = us % USEC_PER_DAY;
	size_t n;

	if (rem < 0) {
		rem += USEC_PER_DAY;
		days--;
	}
	/* |days| < 2^27 for any int64 microseconds. */
	n = date_text(cache, (int32_t)days, d);
	return n + core_format_clock((uint64_t)rem, d + n);
}

/* Stores 8 bytes at d. */
static inline size_t
bool_text(uint8_t v, char *d)
{
	static const char text[2][8] = { "false", "true" };

	memcpy(d, text[v != 0], 8);
	return 5 - (v != 0);
}

/*
 * The bytes that can occur in a value's text, per type: CSV quotes the
 * values of a type only when the delimiter is one of them (and then
 * only those values whose text holds it).
 */
static const char *
type_alphabet(enum core_type t)
{
	switch (t) {
	case CORE_TYPE_BOOL:
		return "truefals";
	case CORE_TYPE_INT32:
	case CORE_TYPE_INT64:
		return "-0123456789";
	case CORE_TYPE_DECIMAL:
	case CORE_TYPE_DECIMAL128:
		return "-.0123456789";
	case CORE_TYPE_FLOAT64:
		return "-+.0123456789eainf";
	case CORE_TYPE_DATE:
		return "-+0123456789";
	case CORE_TYPE_TIMESTAMP:
		return "-+0123456789 :.";
	case CORE_TYPE_STRING:
		break;
	}
	return "";
}

/*
 * The cells of rows [r0, r0 + nb) of fixed-width column c: text at
 * base, offsets in off; returns the end of the text.  FORMAT(x) stores
 * the text of value x at d and advances d, in at most CELL_MAX bytes.
 * A macro rather than a function pointer so that every type gets its
 * own loop with its formatter inlined.
 */
#define FIXED_CELLS(ctype, FORMAT)					\
	do {								\
		const ctype *v_ = (const ctype *)c->values + r0;	\
									\
		for (uint32_t r = 0; r < nb; r++) {			\
			off[r] = (uint32_t)(d - base);			\
			if (nulls && !core_col_is_valid(c, r0 + r)) {	\
				/* \N, or nothing (CSV: null_len 0) */	\
				memcpy(d, "\\N", 2);			\
				d += null_len;				\
				continue;				\
			}						\
			FORMAT(v_[r]);					\
		}							\
	} while (0)

#define FMT_BOOL(x)	(d += bool_text((x), d))
#define FMT_INT32(x)	(d += i32_text((x), d))
#define FMT_INT64(x)	(d += i64_text((x), d))
#define FMT_FLOAT64(x)	(d += core_format_float64((x), d))
#define FMT_DEC0(x)	(d += decimal_text((x), 0, d))
#define FMT_DEC1(x)	(d += decimal_text((x), 1, d))
#define FMT_DEC2(x)	(d += decimal_text((x), 2, d))
#define FMT_DEC3(x)	(d += decimal_text((x), 3, d))
#define FMT_DEC4(x)	(d += decimal_text((x), 4, d))
#define FMT_DECN(x)	(d += decimal_text((x), scale, d))
#define FMT_DATE(x)	(d += date_text(dates, (x), d))
#define FMT_TS(x)	(d += timestamp_text(dates, (x), d))

static char *
fixed_cells(struct core_fmt *f, const struct core_column *c, uint32_t r0,
    uint32_t nb, char *base, uint32_t *off)
{
	struct date_text *dates = f->dates;
	size_t null_len = f->kind == CORE_FMT_TSV ? 2 : 0;
	bool nulls = c->validity != NULL;
	unsigned scale = c->type.scale > 18 ? 18 : c->type.scale;
	char *d = base;

	switch (c->type.id) {
	case CORE_TYPE_BOOL:
		FIXED_CELLS(uint8_t, FMT_BOOL);
		break;
	case CORE_TYPE_INT32:
		FIXED_CELLS(int32_t, FMT_INT32);
		break;
	case CORE_TYPE_INT64:
		FIXED_CELLS(int64_t, FMT_INT64);
		break;
	case CORE_TYPE_FLOAT64:
		FIXED_CELLS(double, FMT_FLOAT64);
		break;
	case CORE_TYPE_DECIMAL:
		switch (scale) {
		case 0: FIXED_CELLS(int64_t, FMT_DEC0); break;
		case 1: FIXED_CELLS(int64_t, FMT_DEC1); break;
		case 2: FIXED_CELLS(int64_t, FMT_DEC2); break;
		case 3: FIXED_CELLS(int64_t, FMT_DEC3); break;
		case 4: FIXED_CELLS(int64_t, FMT_DEC4); break;
		default: FIXED_CELLS(int64_t, FMT_DECN); break;
		}
		break;
	case CORE_TYPE_DATE:
		FIXED_CELLS(int32_t, FMT_DATE);
		break;
	case CORE_TYPE_TIMESTAMP:
		FIXED_CELLS(int64_t, FMT_TS);
		break;
	case CORE_TYPE_DECIMAL128:
		/* Wide decimals are rare enough in a pipeline's output that
		 * core_value's formatter serves; slots are loaded unaligned
		 * (see core_i128_load). */
		for (uint32_t r = 0; r < nb; r++) {
			off[r] = (uint32_t)(d - base);
			if (nulls && !core_col_is_valid(c, r0 + r)) {
				memcpy(d, "\\N", 2);
				d += null_len;
				continue;
			}
			d += core_format_decimal128(core_i128_load(
			    (const char *)c->values + 16 * (size_t)(r0 + r)),
			    c->type.scale, d);
		}
		break;
	case CORE_TYPE_STRING:
		assert(!"fixed_cells on a string column");
		break;
	}
	off[nb] = (uint32_t)(d - base);
	return d;
}

/* CSV with an unusual delimiter that can occur in the column's text:
 * each value checked, and quoted when it holds the delimiter. */
static char *
fixed_cells_quoted(const struct core_fmt *f, const struct core_column *c,
    uint32_t r0, uint32_t nb, char *base, uint32_t *off)
{
	char *d = base;

	for (uint32_t r = 0; r < nb; r++) {
		size_t k;

		off[r] = (uint32_t)(d - base);
		if (!core_col_is_valid(c, r0 + r))
			continue;
		k = format_fixed(c, r0 + r, d + 1);
		if (memchr(d + 1, f->delim, k) != NULL) {
			d[0] = '"';
			d[k + 1] = '"';
			d += k + 2;
		} else {
			memmove(d, d + 1, k);
			d += k;
		}
	}
	off[nb] = (uint32_t)(d - base);
	return d;
}

/* The first i' >= i with s[i'] a byte that forces quoting (CSV) or
 * escaping (TSV), or end. */
static inline size_t
next_special(const struct core_fmt *f, const unsigned char *s, size_t i,
    size_t end)
{
#ifdef __SSE2__
	const __m128i v0 = _mm_set1_epi8(f->special4[0]);
	const __m128i v1 = _mm_set1_epi8(f->special4[1]);
	const __m128i v2 = _mm_set1_epi8(f->special4[2]);
	const __m128i v3 = _mm_set1_epi8(f->special4[3]);

	for (; i + 16 <= end; i += 16) {
		__m128i x = _mm_loadu_si128((const __m128i *)(s + i));
		__m128i m = _mm_or_si128(
		    _mm_or_si128(_mm_cmpeq_epi8(x, v0), _mm_cmpeq_epi8(x, v1)),
		    _mm_or_si128(_mm_cmpeq_epi8(x, v2), _mm_cmpeq_epi8(x, v3)));
		unsigned mask = (unsigned)_mm_movemask_epi8(m);

		if (mask != 0)
			return i + (size_t)__builtin_ctz(mask);
	}
#endif
	while (i < end && !f->special[s[i]])
		i++;
	return i;
}

/*
 * Marks in ex[] the rows of [r0, r0 + nb) of string column c that are
 * not written exactly as stored, and returns how many there are: a byte
 * needs quoting or escaping; for CSV, an empty string (written "") or a
 * NULL with bytes (written as nothing); for TSV, a NULL (\N).  The bytes
 * of the whole block are scanned at once, 16 at a time.
 */
static uint32_t
string_exceptions(const struct core_fmt *f, const struct core_column *c,
    uint32_t r0, uint32_t nb, uint8_t *ex)
{
	const unsigned char *v = c->values;
	const int32_t *o = c->offsets + r0;
	size_t p = (size_t)o[0], end = (size_t)o[nb];
	uint32_t r = 0, n = 0;

	if (f->kind == CORE_FMT_TSV) {
		for (uint32_t k = 0; k < nb; k++)
			ex[k] = !core_col_is_valid(c, r0 + k);
	} else if (c->validity == NULL) {
		for (uint32_t k = 0; k < nb; k++)
			ex[k] = o[k + 1] == o[k];
	} else {
		for (uint32_t k = 0; k < nb; k++)
			ex[k] = (o[k + 1] == o[k]) !=
			    !core_col_is_valid(c, r0 + k);
	}
	while ((p = next_special(f, v, p, end)) < end) {
		/* The row holding byte p; the scan goes on after it. */
		while ((size_t)o[r + 1] <= p)
			r++;
		ex[r] = 1;
		p = (size_t)o[r + 1];
	}
	for (uint32_t k = 0; k < nb; k++)
		n += ex[k];
	return n;
}

/* RFC 4180 quoting: the text in quotes, quotes inside doubled. */
static char *
csv_quote(char *d, const char *s, size_t n)
{
	*d++ = '"';
	for (size_t i = 0; i < n; i++) {
		*d++ = s[i];
		if (s[i] == '"')
			*d++ = '"';
	}
	*d++ = '"';
	return d;
}

/*
 * The cells of rows [r0, r0 + nb) of string column c at base (at most
 * 2 * bytes + 2 * nb); ex[] marks the rows that are not written as
 * stored (string_exceptions).  Runs of the others are copied at once,
 * their offsets shifted.  Returns the end of the text.
 */
static char *
string_cells(const struct core_fmt *f, const struct core_column *c,
    uint32_t r0, uint32_t nb, const uint8_t *ex, char *base, uint32_t *off)
{
	const int32_t *o = c->offsets + r0;
	const char *v = c->values;
	char *d = base;
	uint32_t r = 0;

	for (;;) {
		uint32_t e = r;
		uint32_t shift = (uint32_t)(d - base) - (uint32_t)o[r];
		const char *s;
		size_t n;

		while (e < nb && !ex[e])
			e++;
		/* Rows [r, e) as stored; uint32 arithmetic wraps. */
		for (uint32_t k = r; k < e; k++)
			off[k] = (uint32_t)o[k] + shift;
		n = (size_t)(o[e] - o[r]);
		memcpy(d, v + o[r], n);
		d += n;
		if (e == nb)
			break;
		/* Row e: NULL, or text to quote (CSV) or escape (TSV). */
		off[e] = (uint32_t)(d - base);
		s = v + o[e];
		n = (size_t)(o[e + 1] - o[e]);
		if (!core_col_is_valid(c, r0 + e)) {
			if (f->kind == CORE_FMT_TSV) {
				memcpy(d, "\\N", 2);
				d += 2;
			}
		} else if (f->kind == CORE_FMT_TSV) {
			d += tsv_escape((const unsigned char *)s, n, d);
		} else {
			d = csv_quote(d, s, n);
		}
		r = e + 1;
	}
	off[nb] = (uint32_t)(d - base);
	return d;
}

/* String bytes in rows [r0, r0 + nb) over all columns. */
static size_t
block_str_bytes(const struct core_batch *b, uint32_t r0, uint32_t nb)
{
	size_t n = 0;

	for (uint32_t i = 0; i < b->ncols; i++) {
		const struct core_column *c = &b->cols[i];

		if (c->type.id == CORE_TYPE_STRING)
			n += (size_t)(c->offsets[r0 + nb] - c->offsets[r0]);
	}
	return n;
}

/* Scratch bytes the worst block can need: per column nb cells of at
 * most CELL_MAX bytes (a string's quotes or \N included) and SLACK, and
 * string text at most doubled by quoting or escaping. */
static size_t
scratch_need(uint32_t ncols, uint32_t nb, size_t str_bytes)
{
	return (size_t)ncols * ((size_t)nb * CELL_MAX + SLACK) +
	    2 * str_bytes;
}

/* Fills f->cells for rows [r0, r0 + nb) of b. */
static void
block_cells(struct core_fmt *f, const struct core_batch *b, uint32_t r0,
    uint32_t nb)
{
	bool csv = f->kind == CORE_FMT_CSV;
	char *d = f->scratch;

	for (uint32_t i = 0; i < b->ncols; i++) {
		const struct core_column *c = &b->cols[i];
		uint32_t *off = f->offbuf + (size_t)i * (f->block_rows + 1);
		struct cells *cl = &f->cells[i];
		char *end;

		if (c->type.id == CORE_TYPE_STRING) {
			const int32_t *o = c->offsets + r0;

			/* Strings all written as stored are used in place,
			 * if the 16-byte copies of the last cells stay
			 * inside the batch's bytes. */
			if (string_exceptions(f, c, r0, nb, f->ex) == 0 &&
			    (size_t)o[nb] + SLACK <=
			    (size_t)c->offsets[b->nrows]) {
				cl->base = c->values;
				/* int32 read as uint32: the offsets are
				 * never negative. */
				cl->off = (const uint32_t *)o;
				continue;
			}
			end = string_cells(f, c, r0, nb, f->ex, d, off);
		} else if (csv && f->quote_fixed &&
		    strchr(type_alphabet(c->type.id), f->delim) != NULL) {
			end = fixed_cells_quoted(f, c, r0, nb, d, off);
		} else {
			end = fixed_cells(f, c, r0, nb, d, off);
		}
		cl->base = d;
		cl->off = off;
		d = end + SLACK;
	}
	assert((size_t)(d - f->scratch) <= f->scratch_cap);
}

/* Cell text to d in 16-byte moves, 32 bytes whatever its length so that
 * the short cells (nearly all) take no branch: reads and writes up to 31
 * bytes past the cell (see SLACK). */
static inline char *
copy_cell(char *d, const char *s, size_t n)
{
	memcpy(d, s, 16);
	memcpy(d + 16, s + 16, 16);
	if (n > 32) {
		if (n <= 64) {
			memcpy(d + 32, s + 32, 16);
			if (n > 48)
				memcpy(d + 48, s + 48, 16);
		} else {
			memcpy(d, s, n);
		}
	}
	return d + n;
}

/* Rows [from, to) of the block's cells to d; returns the end. */
static inline char *
rows_copy(const struct cells *cells, uint32_t ncols, uint32_t from,
    uint32_t to, char delim, char *d)
{
	for (uint32_t r = from; r < to; r++) {
		for (uint32_t i = 0; i < ncols; i++) {
			const struct cells *c = &cells[i];
			uint32_t a = c->off[r], e = c->off[r + 1];

			d = copy_cell(d, c->base + a, e - a);
			*d++ = delim;
		}
		d[-1] = '\n';
	}
	return d;
}

/*
 * Writes the nb rows of the block (ncols >= 1): with one reservation
 * when the block fits the output buffer, else one per row, and a row
 * longer than the buffer cell by cell.
 */
static int
put_rows(struct core_fmt *f, uint32_t ncols, uint32_t nb,
    struct core_err *err)
{
	const struct cells *cells = f->cells;
	char delim = f->kind == CORE_FMT_TSV ? '\t' : f->delim;
	size_t total = (size_t)nb * ncols, cap = f->out->cap;
	char *d;
	int rc;

	for (uint32_t i = 0; i < ncols; i++)
		total += cells[i].off[nb] - cells[i].off[0];
	if (total + SLACK <= cap) {
		d = core_output_reserve(f->out, total + SLACK, err, &rc);
		if (rc != 0)
			return rc;
		rows_copy(cells, ncols, 0, nb, delim, d);
		core_output_commit(f->out, total);
		return 0;
	}
	for (uint32_t r = 0; r < nb; r++) {
		size_t len = ncols;

		for (uint32_t i = 0; i < ncols; i++)
			len += cells[i].off[r + 1] - cells[i].off[r];
		if (len + SLACK <= cap) {
			d = core_output_reserve(f->out, len + SLACK, err, &rc);
			if (rc != 0)
				return rc;
			rows_copy(cells, ncols, r, r + 1, delim, d);
			core_output_commit(f->out, len);
			continue;
		}
		for (uint32_t i = 0; i < ncols; i++) {
			const struct cells *c = &cells[i];

			if ((rc = put(f, c->base + c->off[r],
			    c->off[r + 1] - c->off[r], err)) != 0 ||
			    (rc = put(f, i + 1 < ncols ? &delim : "\n", 1,
			    err)) != 0)
				return rc;
		}
	}
	return 0;
}

/*
 * Rows [r0, end) in blocks of up to block_rows rows and BLOCK_STR_MAX
 * string bytes (fewer rows when the strings are long); a row that alone
 * has more string bytes is written value by value, so the scratch arena
 * stays bounded whatever the strings.
 */
static int
delimited_rows(struct core_fmt *f, const struct core_batch *b, uint32_t r0,
    uint32_t end, struct core_err *err)
{
	uint32_t ncols = b->ncols;
	int rc;

	if (ncols == 0) {
		for (uint32_t r = r0; r < end; r++)
			if ((rc = put(f, "\n", 1, err)) != 0)
				return rc;
		return 0;
	}
	while (r0 < end) {
		uint32_t nb = end - r0 < f->block_rows ? end - r0 :
		    f->block_rows;
		size_t sbytes;

		while ((sbytes = block_str_bytes(b, r0, nb)) > BLOCK_STR_MAX &&
		    nb > 1)
			nb /= 2;
		if (sbytes > BLOCK_STR_MAX) {
			if ((rc = delimited_row(f, b, r0, err)) != 0)
				return rc;
			r0++;
			continue;
		}
		block_cells(f, b, r0, nb);
		if ((rc = put_rows(f, ncols, nb, err)) != 0)
			return rc;
		r0 += nb;
	}
	return 0;
}

static int
delimited_batch(struct core_fmt *f, const struct core_batch *b,
    struct core_err *err)
{
	return delimited_rows(f, b, 0, b->nrows, err);
}

size_t
core_fmt_rows_bound(const struct core_batch *b, uint32_t r0, uint32_t n)
{
	size_t row = 1 + (size_t)b->ncols * (CELL_MAX + 4);

	/* Cells and delimiters (delimited_row reserves CELL_MAX + 4 a
	 * value), strings at most doubled, and the slack of the last
	 * reservation: a block's SLACK or an escaped piece's (at most
	 * 64 KiB, doubled). */
	return (size_t)n * row + 2 * block_str_bytes(b, r0, n) +
	    2 * 65536 + 4 * SLACK;
}

int
core_fmt_write_rows(struct core_fmt *f, const struct core_batch *b,
    uint32_t r0, uint32_t n, struct core_err *err)
{
	if (f->kind != CORE_FMT_CSV && f->kind != CORE_FMT_TSV)
		return core_err_set(err, CORE_EINTERNAL,
		    "rows written alone in a format other than csv or tsv");
	f->started = true;
	return delimited_rows(f, b, r0, r0 + n, err);
}

/* ---- table ---- */

/*
 * How a string is shown in the table: control characters as \n, \t, \r
 * or \xNN, bytes of invalid UTF-8 as \xNN, everything else as is.  The
 * width is the number of code points shown.  dst needs 4 * n bytes.
 */
static size_t
table_escape(const unsigned char *s, size_t n, char *dst)
{
	const unsigned char *p = s, *end = s + n;
	const unsigned char *valid = p + core_utf8_valid_prefix((const char *)p,
	    n);
	char *d = dst;

	while (p < end) {
		unsigned c = *p++;

		if ((c >= 0x20 && c < 0x7F) || (c >= 0x80 && p <= valid)) {
			*d++ = (char)c;
			continue;
		}
		*d++ = '\\';
		if (c == '\n' || c == '\t' || c == '\r') {
			*d++ = c == '\n' ? 'n' : c == '\t' ? 't' : 'r';
		} else {
			*d++ = 'x';
			*d++ = hexdig[c >> 4];
			*d++ = hexdig[c & 15];
		}
		if (c >= 0x80)
			valid = p + core_utf8_valid_prefix((const char *)p,
			    (size_t)(end - p));
	}
	return (size_t)(d - dst);
}

/*
 * Display columns of a code point on a terminal: two for East Asian wide
 * and fullwidth characters (CJK, Hangul, fullwidth forms, most emoji),
 * none for combining marks and zero-width characters, one otherwise.
 * The ranges are the common blocks of Unicode's EastAsianWidth W and F,
 * not the whole table: what a terminal shows for the rest varies anyway.
 */
static unsigned
cp_width(uint32_t cp)
{
	static const uint32_t zero[][2] = {
		{ 0x0300, 0x036F }, { 0x0483, 0x0489 }, { 0x0591, 0x05BD },
		{ 0x1AB0, 0x1AFF }, { 0x1DC0, 0x1DFF }, { 0x200B, 0x200F },
		{ 0x20D0, 0x20FF }, { 0xFE00, 0xFE0F }, { 0xFE20, 0xFE2F },
	};
	static const uint32_t wide[][2] = {
		{ 0x1100, 0x115F }, { 0x2E80, 0x303E }, { 0x3041, 0x33FF },
		{ 0x3400, 0x4DBF }, { 0x4E00, 0x9FFF }, { 0xA000, 0xA4CF },
		{ 0xAC00, 0xD7A3 }, { 0xF900, 0xFAFF }, { 0xFE30, 0xFE4F },
		{ 0xFF00, 0xFF60 }, { 0xFFE0, 0xFFE6 }, { 0x1F300, 0x1F64F },
		{ 0x1F900, 0x1F9FF }, { 0x20000, 0x2FFFD },
		{ 0x30000, 0x3FFFD },
	};
	size_t i;

	if (cp < 0x300)
		return 1;
	for (i = 0; i < sizeof(zero) / sizeof(zero[0]); i++)
		if (cp >= zero[i][0] && cp <= zero[i][1])
			return 0;
	for (i = 0; i < sizeof(wide) / sizeof(wide[0]); i++)
		if (cp >= wide[i][0] && cp <= wide[i][1])
			return 2;
	return 1;
}

/*
 * The next unit of s as the table shows it: its bytes in s (*len), and
 * its display width.  *valid is the end of the valid UTF-8 from p on,
 * moved past an invalid byte.
 */
static unsigned
table_unit(const unsigned char *p, const unsigned char *end,
    const unsigned char **valid, size_t *len)
{
	unsigned c = *p;
	uint32_t cp;
	size_t k, i;

	*len = 1;
	if (c >= 0x20 && c < 0x7F)
		return 1;
	if (c >= 0x80 && p < *valid) {
		k = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
		cp = c & (0x7F >> k);
		for (i = 1; i < k; i++)
			cp = cp << 6 | (p[i] & 0x3F);
		*len = k;
		return cp_width(cp);
	}
	if (c >= 0x80)
		*valid = p + 1 + core_utf8_valid_prefix((const char *)p + 1,
		    (size_t)(end - p - 1));
	return (c == '\n' || c == '\t' || c == '\r') ? 2 : 4;
}

static size_t
table_width(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + n;
	const unsigned char *valid = p + core_utf8_valid_prefix(s, n);
	size_t w = 0, len;

	while (p < end) {
		w += table_unit(p, end, &valid, &len);
		p += len;
	}
	return w;
}

/*
 * A string cut to at most maxw display columns, the last of them an
 * ellipsis, escaped as table_escape does: into f->cut, its length in
 * *n and its width in *w.
 */
static void
table_cut(struct core_fmt *f, const char *s, size_t len, size_t maxw,
    size_t *n, size_t *w)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;
	const unsigned char *valid = p + core_utf8_valid_prefix(s, len);
	size_t k, uw, d = 0;

	*w = 0;
	if (f->cut_cap < 4 * maxw + 8) {
		f->cut_cap = 4 * maxw + 8;
		f->cut = core_xrealloc(f->cut, f->cut_cap);
	}
	while (p < end) {
		uw = table_unit(p, end, &valid, &k);
		if (*w + uw + 1 > maxw)
			break;
		d += table_escape(p, k, f->cut + d);
		*w += uw;
		p += k;
	}
	memcpy(f->cut + d, "\xe2\x80\xa6", 3);	/* U+2026 */
	*n = d + 3;
	*w += 1;
}

/* Width of row r of column c as shown. */
static size_t
table_cell_width(const struct core_column *c, uint32_t r)
{
	char buf[CORE_VALUE_TEXT_MAX];
	const char *s;
	size_t n;

	if (!core_col_is_valid(c, r))
		return 4;	/* NULL */
	if (c->type.id != CORE_TYPE_STRING)
		return format_fixed(c, r, buf);
	s = str_at(c, r, &n);
	return table_width(s, n);
}

/* One cell: text of width w padded to the column's width; the last
 * column, when left-aligned, is not padded (no trailing blanks). */
static int
table_put_cell(struct core_fmt *f, uint32_t i, bool last, const char *s,
    size_t n, size_t w, bool escape, struct core_err *err)
{
	size_t pad;
	int rc;

	/* Fitted: a string wider than its column is shortened. */
	if (f->max_width > 0 && escape && w > f->width[i]) {
		table_cut(f, s, n, f->width[i], &n, &w);
		s = f->cut;
		escape = false;
	}
	pad = f->width[i] > w ? f->width[i] - w : 0;
	if (i > 0 && (rc = put(f, "  ", 2, err)) != 0)
		return rc;
	if (f->right[i] && (rc = put_spaces(f, pad, err)) != 0)
		return rc;
	rc = escape ? put_escaped(f, s, n, table_escape, 4, err) :
	    put(f, s, n, err);
	if (rc != 0)
		return rc;
	if (!f->right[i] && !last)
		return put_spaces(f, pad, err);
	return 0;
}

/* Fitting to max_width: when the table is wider, string columns are
 * capped, then as many columns, left to right, as fit (at least one). */
static void
table_fit(struct core_fmt *f)
{
	uint32_t ncols = f->schema->ncols, i;
	size_t total = 0, need;

	f->nshown = ncols;
	if (f->max_width == 0)
		return;
	for (i = 0; i < ncols; i++)
		total += f->width[i] + (i > 0 ? 2 : 0);
	if (total <= f->max_width)
		return;		/* it fits as it is: nothing is cut */
	total = 0;
	for (i = 0; i < ncols; i++)
		if (f->schema->fields[i].type.id == CORE_TYPE_STRING &&
		    f->width[i] > CORE_FMT_STRING_MAX)
			f->width[i] = CORE_FMT_STRING_MAX;
	for (i = 0; i < ncols; i++) {
		need = f->width[i] + (i > 0 ? 2 : 0);
		if (i > 0 && total + need > f->max_width)
			break;
		total += need;
	}
	f->nshown = i;
	if (f->width[0] > f->max_width &&
	    f->schema->fields[0].type.id == CORE_TYPE_STRING)
		f->width[0] = f->max_width > 1 ? f->max_width : 1;
}

static int
table_start(struct core_fmt *f, struct core_err *err)
{
	uint32_t ncols;
	int rc;

	f->started = true;
	table_fit(f);
	ncols = f->nshown;
	if (!f->header)
		return 0;
	for (uint32_t i = 0; i < ncols; i++) {
		const char *name = f->schema->fields[i].name;
		size_t n = strlen(name);

		if ((rc = table_put_cell(f, i, i + 1 == ncols, name, n,
		    table_width(name, n), true, err)) != 0)
			return rc;
	}
	if ((rc = put(f, "\n", 1, err)) != 0)
		return rc;
	for (uint32_t i = 0; i < ncols; i++) {
		if (i > 0 && (rc = put(f, "  ", 2, err)) != 0)
			return rc;
		for (size_t w = f->width[i]; w > 0; ) {
			static const char dashes[64] =
			    "--------------------------------"
			    "--------------------------------";
			size_t k = w < sizeof(dashes) ? w : sizeof(dashes);

			if ((rc = put(f, dashes, k, err)) != 0)
				return rc;
			w -= k;
		}
	}
	return put(f, "\n", 1, err);
}

static int
table_batch(struct core_fmt *f, const struct core_batch *b,
    struct core_err *err)
{
	char buf[CORE_VALUE_TEXT_MAX];
	uint32_t ncols;
	int rc;

	if (b->nrows == 0)
		return 0;
	/* Widths only grow: a later batch with wider values widens its
	 * columns from that batch on; but a fitted string column stays
	 * as it was fitted, its longer values cut. */
	for (uint32_t i = 0; i < b->ncols; i++) {
		if (f->started && f->max_width > 0 &&
		    b->cols[i].type.id == CORE_TYPE_STRING)
			continue;
		for (uint32_t r = 0; r < b->nrows; r++) {
			size_t w = table_cell_width(&b->cols[i], r);

			if (w > f->width[i])
				f->width[i] = w;
		}
	}
	if (!f->started && (rc = table_start(f, err)) != 0)
		return rc;
	ncols = f->nshown;
	for (uint32_t r = 0; r < b->nrows; r++) {
		for (uint32_t i = 0; i < ncols; i++) {
			const struct core_column *c = &b->cols[i];
			bool last = i + 1 == ncols;
			size_t n;

			if (!core_col_is_valid(c, r)) {
				rc = table_put_cell(f, i, last, "NULL", 4, 4,
				    false, err);
			} else if (c->type.id == CORE_TYPE_STRING) {
				const char *s = str_at(c, r, &n);

				rc = table_put_cell(f, i, last, s, n,
				    table_width(s, n), true, err);
			} else {
				n = format_fixed(c, r, buf);
				rc = table_put_cell(f, i, last, buf, n, n,
				    false, err);
			}
			if (rc != 0)
				return rc;
		}
		if ((rc = put(f, "\n", 1, err)) != 0)
			return rc;
	}
	return 0;
}

/* ---- common ---- */

/* CSV and TSV header row. */
static int
text_header(struct core_fmt *f, struct core_err *err)
{
	uint32_t ncols = f->schema->ncols;
	int rc;

	for (uint32_t i = 0; i < ncols; i++) {
		const char *name = f->schema->fields[i].name;
		size_t n = strlen(name);
		char d = f->kind == CORE_FMT_CSV ? f->delim : '\t';

		if (i > 0 && (rc = put(f, &d, 1, err)) != 0)
			return rc;
		rc = f->kind == CORE_FMT_CSV ? csv_string(f, name, n, err) :
		    tsv_string(f, name, n, err);
		if (rc != 0)
			return rc;
	}
	return put(f, "\n", 1, err);
}

struct core_fmt *
core_fmt_new(const struct core_fmt_options *opt,
    const struct core_schema *schema, struct core_output *out)
{
	struct core_fmt *f = core_xcalloc(1, sizeof(*f));
	uint32_t ncols = schema->ncols;

	assert(out->cap >= FMT_MIN_CAP);
	f->kind = opt->kind;
	f->header = opt->header;
	f->delim = (char)(opt->delimiter > 0 ? opt->delimiter : ',');
	f->schema = schema;
	f->out = out;
	/* Worst growth is 6x (JSON \u00XX); keep a piece well inside the
	 * buffer so a reservation never has to exceed it. */
	f->piece = (out->cap - 16) / 6;
	if (f->piece > 65536)
		f->piece = 65536;

	f->csv_special[(unsigned char)f->delim] = 1;
	f->csv_special['"'] = 1;
	f->csv_special['\r'] = 1;
	f->csv_special['\n'] = 1;
	f->quote_fixed = strchr(",;\t|", f->delim) == NULL;

	if (f->kind == CORE_FMT_CSV || f->kind == CORE_FMT_TSV) {
		static const char tsv4[4] = { '\t', '\n', '\r', '\\' };
		const char csv4[4] = { f->delim, '"', '\r', '\n' };
		uint32_t rows = BLOCK_CELLS / (ncols ? ncols : 1);

		memcpy(f->special4, f->kind == CORE_FMT_TSV ? tsv4 : csv4, 4);
		for (int k = 0; k < 4; k++)
			f->special[(unsigned char)f->special4[k]] = 1;
		rows = rows < 16 ? 16 : rows > 512 ? 512 : rows & ~7u;
		f->block_rows = rows;
		f->cells = core_xcalloc((size_t)ncols + 1, sizeof(*f->cells));
		f->ex = core_xmalloc(rows);
		f->offbuf = core_xcalloc(((size_t)ncols + 1) * (rows + 1),
		    sizeof(*f->offbuf));
		f->scratch_cap = scratch_need(ncols, rows, BLOCK_STR_MAX);
		f->scratch = core_xmalloc(f->scratch_cap);
		f->dates = core_xcalloc(DATE_SLOTS, sizeof(*f->dates));
		/* A key that maps to another slot never matches. */
		for (uint32_t k = 0; k < DATE_SLOTS; k++)
			f->dates[k].day = (int32_t)(k ^ 1);
	}

	if (f->kind == CORE_FMT_JSONL) {
		size_t cap = 0, len = 0;

		for (uint32_t i = 0; i < ncols; i++)
			cap += 6 * strlen(schema->fields[i].name) + 4;
		f->keys = core_xmalloc(cap + 1);
		f->key_off = core_xcalloc((size_t)ncols + 1,
		    sizeof(*f->key_off));
		for (uint32_t i = 0; i < ncols; i++) {
			const char *name = schema->fields[i].name;

			f->key_off[i] = len;
			f->keys[len++] = i == 0 ? '{' : ',';
			f->keys[len++] = '"';
			len += json_escape((const unsigned char *)name,
			    strlen(name), f->keys + len);
			f->keys[len++] = '"';
			f->keys[len++] = ':';
		}
		f->key_off[ncols] = len;
	}
	if (f->kind == CORE_FMT_TABLE) {
		/* The footer is where the hidden columns are named. */
		f->max_width = f->header && ncols > 0 ? opt->max_width : 0;
		f->hidden_hint = opt->hidden_hint;
		f->width = core_xcalloc((size_t)ncols + 1, sizeof(*f->width));
		f->right = core_xcalloc((size_t)ncols + 1, sizeof(*f->right));
		for (uint32_t i = 0; i < ncols; i++) {
			const char *name = schema->fields[i].name;

			f->right[i] = is_numeric(schema->fields[i].type.id);
			if (f->header)
				f->width[i] = table_width(name, strlen(name));
		}
	}
	return f;
}

void
core_fmt_free(struct core_fmt *f)
{
	if (f == NULL)
		return;
	free(f->keys);
	free(f->key_off);
	free(f->width);
	free(f->right);
	free(f->cut);
	free(f->cells);
	free(f->ex);
	free(f->offbuf);
	free(f->scratch);
	free(f->dates);
	free(f);
}

int
core_fmt_write_batch(struct core_fmt *f, const struct core_batch *b,
    struct core_err *err)
{
	int rc;

	CORE_DCHECK_BATCH(b);
	if (b->ncols != f->schema->ncols)
		return core_err_set(err, CORE_EINTERNAL,
		    "batch has %u columns, the schema %u", b->ncols,
		    f->schema->ncols);
	for (uint32_t i = 0; i < b->ncols; i++) {
		if (b->cols[i].type.id != f->schema->fields[i].type.id)
			return core_err_set(err, CORE_EINTERNAL,
			    "batch column %u has another type than the "
			    "schema", i + 1);
	}
	if (!f->started && f->kind != CORE_FMT_TABLE) {
		f->started = true;
		if (f->header && f->kind != CORE_FMT_JSONL &&
		    (rc = text_header(f, err)) != 0)
			return rc;
	}
	switch (f->kind) {
	case CORE_FMT_CSV:
	case CORE_FMT_TSV:
		rc = delimited_batch(f, b, err);
		break;
	case CORE_FMT_JSONL:
		rc = jsonl_batch(f, b, err);
		break;
	case CORE_FMT_TABLE:
		rc = table_batch(f, b, err);
		break;
	default:
		return core_err_set(err, CORE_EINTERNAL, "unknown format %d",
		    (int)f->kind);
	}
	if (rc == 0)
		f->nrows += b->nrows;
	return rc;
}

void
core_fmt_measure(struct core_fmt *f, const struct core_batch *b)
{
	if (f->kind != CORE_FMT_TABLE || f->started)
		return;
	for (uint32_t i = 0; i < b->ncols; i++)
		for (uint32_t r = 0; r < b->nrows; r++) {
			size_t w = table_cell_width(&b->cols[i], r);

			if (w > f->width[i])
				f->width[i] = w;
		}
}

/* The table's footer: "(N rows)", and the columns that did not fit. */
static int
table_footer(struct core_fmt *f, struct core_err *err)
{
	uint32_t ncols = f->schema->ncols, i;
	char buf[96];
	int rc, n;

	n = snprintf(buf, sizeof(buf), "(%llu row%s",
	    (unsigned long long)f->nrows, f->nrows == 1 ? "" : "s");
	if ((rc = put(f, buf, (size_t)n, err)) != 0)
		return rc;
	if (f->nshown < ncols) {
		n = snprintf(buf, sizeof(buf), "; %u of %u columns not shown:",
		    ncols - f->nshown, ncols);
		if ((rc = put(f, buf, (size_t)n, err)) != 0)
			return rc;
		for (i = f->nshown; i < ncols; i++) {
			const char *name = f->schema->fields[i].name;

			if ((rc = put(f, i > f->nshown ? ", " : " ", i >
			    f->nshown ? 2 : 1, err)) != 0 ||
			    (rc = put_escaped(f, name, strlen(name),
			    table_escape, 4, err)) != 0)
				return rc;
		}
		if (f->hidden_hint != NULL && (rc = put(f, f->hidden_hint,
		    strlen(f->hidden_hint), err)) != 0)
			return rc;
	}
	return put(f, ")\n", 2, err);
}

int
core_fmt_finish(struct core_fmt *f, struct core_err *err)
{
	int rc;

	if (f->kind == CORE_FMT_TABLE) {
		if (!f->started && (rc = table_start(f, err)) != 0)
			return rc;
		if (!f->header)
			return 0;
		return table_footer(f, err);
	}
	if (!f->started) {
		f->started = true;
		if (f->header && f->kind != CORE_FMT_JSONL)
			return text_header(f, err);
	}
	return 0;
}
