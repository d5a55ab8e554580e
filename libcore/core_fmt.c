/*
 * core_fmt.c - text output formats for column batches (col2csv).
 *
 * Rows are written straight into the struct core_output buffer: a value
 * of a fixed-width type is formatted in place after reserving
 * CORE_VALUE_TEXT_MAX bytes, and a string is copied (or escaped) from the
 * batch's byte buffer.  Nothing is allocated per value, row or batch; the
 * only allocations are made once by core_fmt_new.
 *
 * Invariants:
 *   - the header (CSV, TSV, table) is written exactly once, before the
 *     first row, or by core_fmt_finish when no row came;
 *   - a string of any length is handled, whatever the output's buffer
 *     size: escaping that can grow text (JSON, table) works on pieces cut
 *     at UTF-8 character starts, each reserved in the output at its worst
 *     expansion, and copies of long runs bypass the buffer;
 *   - the output is not flushed here; its owner flushes and closes it.
 *
 * The workload is col2csv on wide batches of a few thousand rows; the
 * CSV path is the one that has to be fast (one table lookup per string
 * byte, one reservation per value).
 */
#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core_alloc.h"
#include "core_fmt.h"
#include "core_value.h"

/* Smallest output buffer we work with: room for any fixed-width value
 * with its delimiter and quotes, and for escaped pieces of strings. */
#define FMT_MIN_CAP 256

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

	/* JSON: the escaped key of each column with what precedes it,
	 * {"a": then ,"b": ..., back to back; key_off has ncols + 1
	 * entries. */
	char *keys;			/* owned */
	size_t *key_off;		/* owned */

	/* table: display width (code points) and alignment per column. */
	size_t *width;			/* owned */
	bool *right;			/* owned */
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
	    t == CORE_TYPE_FLOAT64 || t == CORE_TYPE_DECIMAL;
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

/* ---- CSV and TSV rows ---- */

/*
 * One row loop for both delimited formats; they differ only in the
 * delimiter, how NULL is written (CSV: nothing, TSV: \N), how a string
 * is quoted or escaped, and CSV's quoting of a number or date whose text
 * holds an unusual delimiter.
 */
static int
delimited_batch(struct core_fmt *f, const struct core_batch *b,
    struct core_err *err)
{
	bool tsv = f->kind == CORE_FMT_TSV;
	char delim = tsv ? '\t' : f->delim;
	bool quote_fixed = !tsv && f->quote_fixed;
	uint32_t ncols = b->ncols;
	int rc;

	for (uint32_t r = 0; r < b->nrows; r++) {
		for (uint32_t i = 0; i < ncols; i++) {
			const struct core_column *c = &b->cols[i];
			size_t n = 0, k;
			char *p;

			p = core_output_reserve(f->out, CORE_VALUE_TEXT_MAX + 4,
			    err, &rc);
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
		if ((rc = put(f, "\n", 1, err)) != 0)
			return rc;
	}
	return 0;
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

static size_t
table_width(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + n;
	const unsigned char *valid = p + core_utf8_valid_prefix(s, n);
	size_t w = 0;

	while (p < end) {
		unsigned c = *p++;

		if (c >= 0x20 && c < 0x7F) {
			w++;
		} else if (c >= 0x80 && p <= valid) {
			w += !is_cont((unsigned char)c);
		} else {
			w += (c == '\n' || c == '\t' || c == '\r') ? 2 : 4;
			if (c >= 0x80)
				valid = p + core_utf8_valid_prefix(
				    (const char *)p, (size_t)(end - p));
		}
	}
	return w;
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
	size_t pad = f->width[i] > w ? f->width[i] - w : 0;
	int rc;

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

static int
table_start(struct core_fmt *f, struct core_err *err)
{
	uint32_t ncols = f->schema->ncols;
	int rc;

	f->started = true;
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
	uint32_t ncols = b->ncols;
	int rc;

	if (b->nrows == 0)
		return 0;
	/* Widths only grow: a later batch with wider values widens its
	 * columns from that batch on. */
	for (uint32_t i = 0; i < ncols; i++) {
		for (uint32_t r = 0; r < b->nrows; r++) {
			size_t w = table_cell_width(&b->cols[i], r);

			if (w > f->width[i])
				f->width[i] = w;
		}
	}
	if (!f->started && (rc = table_start(f, err)) != 0)
		return rc;
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
	free(f);
}

int
core_fmt_write_batch(struct core_fmt *f, const struct core_batch *b,
    struct core_err *err)
{
	int rc;

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

int
core_fmt_finish(struct core_fmt *f, struct core_err *err)
{
	char buf[48];
	int rc, n;

	if (f->kind == CORE_FMT_TABLE) {
		if (!f->started && (rc = table_start(f, err)) != 0)
			return rc;
		if (!f->header)
			return 0;
		n = snprintf(buf, sizeof(buf), "(%llu row%s)\n",
		    (unsigned long long)f->nrows, f->nrows == 1 ? "" : "s");
		return put(f, buf, (size_t)n, err);
	}
	if (!f->started) {
		f->started = true;
		if (f->header && f->kind != CORE_FMT_JSONL)
			return text_header(f, err);
	}
	return 0;
}
