/*
 * test_csv_block.c - the block conversion of the CSV parser against its
 * row by row path (core_csv_parse.c).
 *
 * csv_parse tokenizes blocks of rows and converts them column by column,
 * with fast paths for the usual shapes of numbers and dates, and sends a
 * block with anything wrong in it through the row path again.  None of
 * that may show: for the same calls, the block parser must give exactly
 * what the row path (csv_conf.by_row) gives -- return codes and stop
 * positions, batches as the MLSPILL3 writer stores them (values, string
 * offsets and bytes, validity bitmaps including the unused bits of their
 * last byte), bad-row records (line, column, message, raw row), line and
 * row counts.  Driven whole, in chunks with limits, and as a stream fed a
 * few bytes at a time; buffers are allocated to their exact size so that
 * a read past the data is caught under ASan.
 *
 * A block with a bad value is redone by the row path, which would hide a
 * fast path's mistake in it; so the exhaustive value tests use one-row
 * blocks, where every good value goes through the fast paths.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core_alloc.h"
#include "core_col.h"
#include "core_csv_private.h"
#include "core_value.h"
#include "unit.h"

/* ---- helpers ---- */

static unsigned
rnd(unsigned n)
{
	return (unsigned)(unit_rand() % n);
}

/* What the parse of one input is done with. */
struct setup {
	struct core_schema *schema;
	bool *pinned;
	const char *nulls[3];
	size_t nnulls;
	uint32_t batch_rows, block_rows;
	size_t batch_bytes;
	bool rejecting;
	uint64_t max_errors;
	uint64_t line0;		/* lines before the first row */
	uint32_t *sel;		/* --columns: nsel fields, or NULL */
	uint32_t nsel;
	uint32_t *colno;	/* with sel: per field, 1 + its column */
	struct core_schema *out;	/* the selected columns, or NULL */
};

/* The plain-row tokenizer's vectors the block path uses (enum csv_isa). */
static int g_isa = CSV_ISA_AUTO;

static void
conf_fill(struct csv_conf *cf, const struct setup *su, bool by_row)
{
	memset(cf, 0, sizeof(*cf));
	cf->delim = ',';
	cf->quote = '"';
	cf->schema = su->schema;
	cf->ncols = su->schema->ncols;
	cf->pinned = su->pinned;
	cf->nulls = su->nulls;
	cf->nnulls = su->nnulls;
	cf->batch_rows = su->batch_rows;
	cf->rejecting = su->rejecting;
	cf->max_errors = su->max_errors;
	cf->skip_blank = cf->ncols > 1;
	cf->by_row = by_row;
	cf->block_rows = su->block_rows;
	cf->batch_bytes = su->batch_bytes;
	cf->sel = su->sel;
	cf->nsel = su->nsel;
	cf->colno = su->colno;
	cf->isa = g_isa;
}

/* True when column c of batches a and b would be stored alike. */
static bool
column_same(const struct core_column *a, const struct core_column *b,
    uint32_t n)
{
	bool na = a->validity != NULL && core_col_null_count(a, n) > 0;
	bool nb = b->validity != NULL && core_col_null_count(b, n) > 0;
	size_t w;

	if (na != nb || !core_type_equal(a->type, b->type))
		return false;
	if (na && memcmp(a->validity, b->validity, core_bitmap_bytes(n)))
		return false;
	if (a->type.id == CORE_TYPE_STRING)
		return memcmp(a->offsets, b->offsets,
		    ((size_t)n + 1) * sizeof(int32_t)) == 0 &&
		    memcmp(a->values, b->values, (size_t)a->offsets[n]) == 0;
	w = core_type_width(a->type.id);
	return memcmp(a->values, b->values, (size_t)n * w) == 0;
}

/* Compares two results; says what differs first. */
static bool
result_same(const struct csv_result *a, const struct csv_result *b,
    const char *tag)
{
	size_t i;
	uint32_t j;

	if (a->nbatches != b->nbatches || a->nrecs != b->nrecs ||
	    a->nlines != b->nlines || a->nrows != b->nrows ||
	    a->stopped != b->stopped) {
		printf("# %s: batches %zu/%zu recs %zu/%zu lines %llu/%llu "
		    "rows %llu/%llu stopped %d/%d\n", tag, a->nbatches,
		    b->nbatches, a->nrecs, b->nrecs,
		    (unsigned long long)a->nlines,
		    (unsigned long long)b->nlines,
		    (unsigned long long)a->nrows,
		    (unsigned long long)b->nrows, a->stopped, b->stopped);
		return false;
	}
	for (i = 0; i < a->nbatches; i++) {
		const struct core_batch *x = &a->batches[i];
		const struct core_batch *y = &b->batches[i];

		if (x->nrows != y->nrows) {
			printf("# %s: batch %zu has %u/%u rows\n", tag, i,
			    x->nrows, y->nrows);
			return false;
		}
		for (j = 0; j < x->ncols; j++)
			if (!column_same(&x->cols[j], &y->cols[j],
			    x->nrows)) {
				printf("# %s: batch %zu column %u differs\n",
				    tag, i, j);
				return false;
			}
	}
	for (i = 0; i < a->nrecs; i++) {
		const struct csv_rec *x = &a->recs[i], *y = &b->recs[i];

		if (x->line != y->line || x->col != y->col ||
		    x->msg_len != y->msg_len || x->raw_len != y->raw_len ||
		    memcmp(a->arena + x->msg_off, b->arena + y->msg_off,
		    x->msg_len) != 0 ||
		    memcmp(a->arena + x->raw_off, b->arena + y->raw_off,
		    x->raw_len) != 0) {
			printf("# %s: record %zu: %llu:%u %.*s / %llu:%u "
			    "%.*s\n", tag, i, (unsigned long long)x->line,
			    x->col, (int)x->msg_len, a->arena + x->msg_off,
			    (unsigned long long)y->line, y->col,
			    (int)y->msg_len, b->arena + y->msg_off);
			return false;
		}
	}
	return true;
}

/* Two parsers of one setup, the row path and the block path, fed the
 * same calls. */
struct pair {
	struct csv_conf cf[2];
	struct csv_pool *pool;
	struct csv_parser ps[2];
	struct csv_result res[2];
	size_t pos[2];
	bool done;		/* stopped, or diverged */
	bool ok;
};

static void
pair_init(struct pair *p, const struct setup *su, size_t start)
{
	int k;

	memset(p, 0, sizeof(*p));
	p->pool = csv_pool_new(su->out != NULL ? su->out : su->schema);
	for (k = 0; k < 2; k++) {
		conf_fill(&p->cf[k], su, k == 0);
		csv_parser_init(&p->ps[k], &p->cf[k], p->pool);
		csv_result_init(&p->res[k]);
		p->ps[k].line = su->line0;
		p->pos[k] = start;
	}
	p->ok = true;
}

static void
pair_release(struct pair *p)
{
	int k;

	for (k = 0; k < 2; k++) {
		csv_result_release(&p->res[k]);
		csv_parser_release(&p->ps[k]);
	}
	csv_pool_free(p->pool);
}

/* One csv_parse call on both, over a copy of text[0..end) of exactly that
 * size. */
static int
pair_parse(struct pair *p, const char *text, size_t limit, size_t end,
    bool at_eof, const char *tag)
{
	char *copy = core_xmalloc(end > 0 ? end : 1);
	int rc[2], k;

	memcpy(copy, text, end);
	for (k = 0; k < 2; k++)
		rc[k] = csv_parse(&p->ps[k], copy, &p->pos[k], limit, end,
		    at_eof, &p->res[k]);
	free(copy);
	if (rc[0] != rc[1] || p->pos[0] != p->pos[1] ||
	    p->ps[0].line != p->ps[1].line) {
		printf("# %s: rc %d/%d pos %zu/%zu line %llu/%llu "
		    "(limit %zu end %zu eof %d)\n", tag, rc[0], rc[1],
		    p->pos[0], p->pos[1],
		    (unsigned long long)p->ps[0].line,
		    (unsigned long long)p->ps[1].line, limit, end, at_eof);
		p->ok = false;
		p->done = true;
	}
	if (rc[0] == CSV_PARSE_STOP)
		p->done = true;
	return rc[0];
}

static void
pair_flush(struct pair *p)
{
	csv_parser_flush(&p->ps[0], &p->res[0]);
	csv_parser_flush(&p->ps[1], &p->res[1]);
}

enum {
	DRIVE_WHOLE, DRIVE_CHUNKS, DRIVE_STREAM,
	DRIVE_EOLS,		/* a stream cut just after every CR and LF */
	DRIVE_N
};

/* Parses text both ways as the reader would with drive; true when the
 * two agree.  *nrecs, *nrows: what the row path found (for the caller's
 * sanity checks). */
static bool
compare(const struct setup *su, const struct unit_buf *text, int drive,
    const char *tag, size_t *nrecs, uint64_t *nrows)
{
	struct pair p;
	size_t limit, avail;
	bool ok;
	int rc;

	pair_init(&p, su, 0);
	switch (drive) {
	case DRIVE_WHOLE:
		(void)pair_parse(&p, text->p, text->len, text->len, true,
		    tag);
		break;
	case DRIVE_CHUNKS:
		/* Limits anywhere; sometimes the batch is closed at one,
		 * as at the end of a chunk. */
		limit = 0;
		while (!p.done && p.pos[0] < text->len) {
			limit += 1 + rnd(text->len / 4 + 2);
			if (limit > text->len)
				limit = text->len;
			(void)pair_parse(&p, text->p, limit, text->len, true,
			    tag);
			if (rnd(2))
				pair_flush(&p);
		}
		break;
	default:
		avail = 0;
		while (!p.done) {
			if (drive == DRIVE_EOLS) {
				while (avail < text->len &&
				    text->p[avail] != '\r' &&
				    text->p[avail] != '\n')
					avail++;
				avail++;
			} else {
				avail += rnd(4) ? 1 + rnd(8) :
				    1 + rnd(4096);
			}
			if (avail > text->len)
				avail = text->len;
			rc = pair_parse(&p, text->p, avail, avail,
			    avail == text->len, tag);
			if (rc != CSV_PARSE_MORE && avail == text->len &&
			    p.pos[0] >= text->len)
				break;
		}
		break;
	}
	pair_flush(&p);
	ok = p.ok && result_same(&p.res[0], &p.res[1], tag);
	*nrecs = p.res[0].nrecs;
	*nrows = p.res[0].nrows;
	pair_release(&p);
	return ok;
}

/* ---- random values ---- */

static void
add_digits(struct unit_buf *o, unsigned n)
{
	while (n-- > 0)
		unit_buf_ch(o, (char)('0' + rnd(10)));
}

static void
add_sign(struct unit_buf *o)
{
	unsigned k = rnd(8);

	if (k == 0)
		unit_buf_ch(o, '-');
	else if (k == 1)
		unit_buf_ch(o, '+');
}

/* Text that should not fit a number or date column. */
static void
bad_value(struct unit_buf *o)
{
	static const char *const bad[] = {
		"x", "1x", "1.2.3", "--1", "+", "-", ".", "1e", "0x10",
		"12 ", " 12", "1,5", "nan?", "99999999999999999999999",
		"2024-02-30", "2023-13-01", "0000-01-01", "1.5e3x", "tru",
	};

	unit_buf_str(o, bad[rnd(sizeof(bad) / sizeof(bad[0]))]);
}

/* A value of type t (mostly good, sometimes of doubtful shape). */
static void
gen_value(struct unit_buf *o, struct core_coltype t)
{
	char tmp[64];
	unsigned k;

	switch (t.id) {
	case CORE_TYPE_BOOL: {
		static const char *const v[] = {
			"true", "false", "TRUE", "False", "fAlSe", "tRUE"
		};

		unit_buf_str(o, v[rnd(6)]);
		break;
	}
	case CORE_TYPE_INT32:
	case CORE_TYPE_INT64:
		k = rnd(20);
		if (k == 0) {
			unit_buf_str(o, t.id == CORE_TYPE_INT32 ?
			    (rnd(2) ? "2147483647" : "-2147483648") :
			    (rnd(2) ? "9223372036854775807" :
			    "-9223372036854775808"));
			break;
		}
		if (k == 1) {
			unit_buf_str(o, t.id == CORE_TYPE_INT32 ?
			    (rnd(2) ? "2147483648" : "-2147483649") :
			    (rnd(2) ? "9223372036854775808" :
			    "-9223372036854775809"));
			break;
		}
		add_sign(o);
		if (k == 2)
			unit_buf_str(o, "0000000");
		add_digits(o, 1 + rnd(t.id == CORE_TYPE_INT32 ? 10 :
		    k < 6 ? 20 : 8));
		break;
	case CORE_TYPE_FLOAT64:
		add_sign(o);
		k = rnd(6);
		if (k == 0) {
			unit_buf_str(o, rnd(2) ? "inf" : "NaN");
			break;
		}
		add_digits(o, rnd(6));
		unit_buf_ch(o, '.');
		add_digits(o, 1 + rnd(6));
		if (k == 1) {
			snprintf(tmp, sizeof(tmp), "e%d", (int)rnd(40) - 20);
			unit_buf_str(o, tmp);
		}
		break;
	case CORE_TYPE_DECIMAL:
	case CORE_TYPE_DECIMAL128: {
		unsigned ni = t.precision - t.scale, nf = t.scale;

		add_sign(o);
		k = rnd(10);
		if (k == 0)
			unit_buf_str(o, "000");
		/* One digit too many now and then. */
		add_digits(o, rnd(ni + (k == 1) + 1));
		if (nf > 0 || k == 2) {
			unit_buf_ch(o, '.');
			add_digits(o, rnd(nf + (k == 3) + 1));
		}
		break;
	}
	case CORE_TYPE_DATE:
	case CORE_TYPE_TIMESTAMP:
		k = rnd(30);
		snprintf(tmp, sizeof(tmp), "%04u-%02u-%02u",
		    k == 0 ? rnd(10000) : 1900 + rnd(200),
		    k == 1 ? rnd(14) : 1 + rnd(12),
		    k == 2 ? rnd(33) : 1 + rnd(28));
		unit_buf_str(o, tmp);
		if (t.id == CORE_TYPE_TIMESTAMP && rnd(4)) {
			snprintf(tmp, sizeof(tmp), "%c%02u:%02u:%02u",
			    rnd(2) ? ' ' : 'T', rnd(24), rnd(60), rnd(60));
			unit_buf_str(o, tmp);
			if (rnd(2)) {
				unit_buf_ch(o, '.');
				add_digits(o, 1 + rnd(6));
			}
			if (rnd(4) == 0)
				unit_buf_str(o, rnd(2) ? "Z" : "+05:30");
		}
		break;
	case CORE_TYPE_STRING: {
		static const char *const pieces[] = {
			"a", "bc", "DELIVER IN PERSON", ",", "\"", "\n",
			"\r\n", " ", "\xc3\xa9", "\xe2\x82\xac",
			"\xf0\x9f\x98\x80", "x", "0123456789abcdef",
			"NA", "\t",
		};

		k = rnd(4) == 0 ? rnd(12) : rnd(4);
		while (k-- > 0)
			unit_buf_str(o, pieces[rnd(sizeof(pieces) /
			    sizeof(pieces[0]))]);
		break;
	}
	}
}

/* Writes field text v into o, quoted when it has to be or at random. */
static void
put_field(struct unit_buf *o, const char *v, size_t n, bool quote)
{
	size_t i;

	for (i = 0; i < n && !quote; i++)
		if (v[i] == ',' || v[i] == '"' || v[i] == '\n' ||
		    v[i] == '\r')
			quote = true;
	if (!quote) {
		unit_buf_add(o, v, n);
		return;
	}
	unit_buf_ch(o, '"');
	for (i = 0; i < n; i++) {
		if (v[i] == '"')
			unit_buf_ch(o, '"');
		unit_buf_ch(o, v[i]);
	}
	unit_buf_ch(o, '"');
}

/* How wrong the generated data may be: one in `bad` values is bad, one in
 * `broken` rows has a syntax error or the wrong field count (0: none). */
struct mess {
	unsigned bad, broken, nulls, blanks, quoted;
	unsigned midquote;	/* one in midquote string values has a
				   quote byte inside, unquoted (0: none) */
};

static void
gen_csv(struct unit_buf *o, const struct setup *su, unsigned nrows,
    const struct mess *m)
{
	static const char *const eols[] = { "\n", "\r\n", "\r" };
	const uint32_t ncols = su->schema->ncols;
	const char *eol = eols[rnd(8) == 0 ? rnd(3) : 0];
	struct unit_buf v = { 0 };
	unsigned r, k;
	uint32_t j, nf;

	for (r = 0; r < nrows; r++) {
		if (m->blanks && rnd(m->blanks) == 0)
			unit_buf_str(o, eol);
		nf = ncols;
		k = m->broken ? rnd(m->broken) : 1;
		if (k == 0)
			nf = rnd(2) && ncols > 1 ? ncols - 1 : ncols + 1;
		for (j = 0; j < nf; j++) {
			struct core_coltype t = j < ncols ?
			    su->schema->fields[j].type :
			    su->schema->fields[0].type;

			if (j > 0)
				unit_buf_ch(o, ',');
			if (m->nulls && rnd(m->nulls) == 0) {
				k = rnd(4);
				if (k == 1)
					unit_buf_str(o, "\"\"");
				else if (k == 2 && su->nnulls > 0)
					unit_buf_str(o, su->nulls[rnd(
					    (unsigned)su->nnulls)]);
				else if (k == 3 && su->nnulls > 0)
					put_field(o, su->nulls[0],
					    strlen(su->nulls[0]), true);
				continue;
			}
			v.len = 0;
			if (m->bad && rnd(m->bad) == 0) {
				if (t.id == CORE_TYPE_STRING)
					unit_buf_str(&v, rnd(2) ? "\xff" :
					    "a\xc3(b");
				else
					bad_value(&v);
			} else {
				gen_value(&v, t);
			}
			if (v.len == 0) {
				/* An empty value would read as NULL. */
				continue;
			}
			if (m->midquote && t.id == CORE_TYPE_STRING &&
			    rnd(m->midquote) == 0) {
				/* Plain data: the quote byte does not open
				 * a field. */
				unit_buf_str(o, rnd(2) ? "5'10\"" : "a\"b\"\"");
				continue;
			}
			if (m->broken && rnd(m->broken * ncols) == 0) {
				/* Text after a closing quote. */
				put_field(o, v.p, v.len, true);
				unit_buf_ch(o, 'z');
				continue;
			}
			put_field(o, v.p, v.len, m->quoted &&
			    rnd(m->quoted) == 0);
		}
		if (r + 1 < nrows || rnd(2))
			unit_buf_str(o, eol);
	}
	if (m->broken && rnd(4) == 0)
		unit_buf_str(o, "\"unterminated,\n");
	free(v.p);
}

static struct core_coltype
rnd_type(void)
{
	struct core_coltype t = { CORE_TYPE_STRING, 0, 0 };

	t.id = (enum core_type)(1 + rnd(9));
	if (t.id == CORE_TYPE_DECIMAL) {
		t.precision = (uint8_t)(1 + rnd(18));
		t.scale = (uint8_t)rnd(t.precision + 1u);
	} else if (t.id == CORE_TYPE_DECIMAL128) {
		t.precision = (uint8_t)(19 + rnd(20));
		t.scale = (uint8_t)rnd(t.precision + 1u);
	}
	return t;
}

static void
setup_free(struct setup *su)
{
	core_schema_free(su->schema);
	core_schema_free(su->out);
	free(su->pinned);
	free(su->sel);
	free(su->colno);
}

/* Selects nsel random fields of su in a random order (--columns). */
static void
setup_select(struct setup *su, uint32_t nsel)
{
	const uint32_t ncols = su->schema->ncols;
	uint32_t j, k, t;

	su->sel = core_xcalloc(ncols, sizeof(*su->sel));
	for (j = 0; j < ncols; j++)
		su->sel[j] = j;
	for (j = ncols - 1; j > 0; j--) {
		k = rnd(j + 1);
		t = su->sel[j];
		su->sel[j] = su->sel[k];
		su->sel[k] = t;
	}
	su->nsel = nsel;
	su->colno = core_xcalloc(ncols, sizeof(*su->colno));
	for (k = 0; k < nsel; k++)
		su->colno[su->sel[k]] = k + 1;
	su->out = core_schema_new(nsel);
	for (k = 0; k < nsel; k++)
		core_schema_set(su->out, k, su->schema->fields[su->sel[k]].name,
		    su->schema->fields[su->sel[k]].type);
}

static void
setup_random(struct setup *su, uint32_t ncols)
{
	static const char *const nulls[] = { "NA", "\\N", "-", "null" };
	static const uint32_t brs[] = { 1, 2, 7, 64, 100, 1000, 8192 };
	static const uint32_t bls[] = { 0, 0, 0, 1, 2, 3, 5, 64, 255, 256,
	    300 };
	uint32_t j;

	memset(su, 0, sizeof(*su));
	su->schema = core_schema_new(ncols);
	su->pinned = core_xcalloc(ncols, sizeof(bool));
	for (j = 0; j < ncols; j++) {
		char name[16];

		snprintf(name, sizeof(name), "c%u", j + 1);
		core_schema_set(su->schema, j, name, rnd_type());
		su->pinned[j] = rnd(2);
	}
	su->nnulls = rnd(3);
	for (j = 0; j < su->nnulls; j++)
		su->nulls[j] = nulls[rnd(4)];
	su->batch_rows = brs[rnd(sizeof(brs) / sizeof(brs[0]))];
	su->block_rows = bls[rnd(sizeof(bls) / sizeof(bls[0]))];
	su->batch_bytes = rnd(3) == 0 ? 1 + rnd(3000) : 0;
	su->rejecting = rnd(4) != 0;
	su->max_errors = rnd(3) == 0 ? rnd(6) : UINT64_MAX;
	su->line0 = rnd(2) ? 0 : rnd(1000);
}

/* ---- tests ---- */

/* Random data of every type, NULLs, --null strings, quoted fields with
 * line breaks, bad values, broken rows, blank lines; every knob. */
static void
test_random_vs_rows(void)
{
	unsigned iter, bad_seen = 0, rows_seen = 0;

	for (iter = 0; iter < 400; iter++) {
		static const unsigned bads[] = { 0, 0, 5, 50, 2000 };
		struct setup su;
		struct mess m;
		struct unit_buf text = { 0 };
		char tag[96];
		size_t nrecs;
		uint64_t nrows;
		int drive;

		setup_random(&su, 1 + rnd(iter % 4 == 0 ? 40 : 12));
		if (rnd(3) == 0)
			setup_select(&su, 1 + rnd(su.schema->ncols));
		m.bad = bads[rnd(5)];
		m.broken = rnd(3) == 0 ? 50 + rnd(500) : 0;
		m.nulls = rnd(3) ? 2 + rnd(20) : 0;
		m.blanks = rnd(3) == 0 ? 1 + rnd(30) : 0;
		m.quoted = rnd(2) ? 1 + rnd(10) : 0;
		m.midquote = rnd(3) == 0 ? 1 + rnd(20) : 0;
		gen_csv(&text, &su, 1 + rnd(iter % 8 == 0 ? 3000 : 400), &m);
		drive = (int)(iter % DRIVE_N);
		snprintf(tag, sizeof(tag), "iter %u (drive %d, %u cols, "
		    "%u selected, block %u, batch %u)", iter, drive,
		    su.schema->ncols, su.sel != NULL ? su.nsel :
		    su.schema->ncols, su.block_rows, su.batch_rows);
		if (!compare(&su, &text, drive, tag, &nrecs, &nrows)) {
			unit_cur_failed++;
			setup_free(&su);
			free(text.p);
			break;
		}
		bad_seen += nrecs > 0;
		rows_seen += nrows > 0;
		setup_free(&su);
		free(text.p);
	}
	/* The data did what it is for: bad rows and good ones. */
	CHECK(bad_seen > 50);
	CHECK(rows_seen > 200);
}

/* Parses text whole with su (block path) into res. */
static void
parse_whole(const struct setup *su, const struct unit_buf *text,
    struct csv_result *res, struct csv_pool *pool)
{
	struct csv_conf cf;
	struct csv_parser ps;
	size_t pos = 0;

	conf_fill(&cf, su, false);
	csv_parser_init(&ps, &cf, pool);
	csv_result_init(res);
	(void)csv_parse(&ps, text->p, &pos, text->len, text->len, true, res);
	csv_parser_flush(&ps, res);
	csv_parser_release(&ps);
}

/* --columns: the selected columns of a parse are those of a parse of
 * every column where the others are strings, and it finds the same bad
 * rows: the other fields are delimited but never converted.  (No invalid
 * UTF-8 in the data: that is what a string column would still check.) */
static void
test_select_projects(void)
{
	unsigned iter, j;

	for (iter = 0; iter < 200; iter++) {
		struct setup su, ref;
		struct mess m = { 0, 0, 0, 0, 0, 0 };
		struct unit_buf text = { 0 };
		struct csv_pool *pr, *ps;
		struct csv_result want, got;
		struct core_coltype st = { CORE_TYPE_STRING, 0, 0 };
		bool *chosen, ok = true;
		size_t i;

		setup_random(&su, 1 + rnd(iter % 4 == 0 ? 40 : 12));
		setup_select(&su, 1 + rnd(su.schema->ncols));
		m.broken = rnd(3) == 0 ? 50 + rnd(500) : 0;
		m.nulls = rnd(3) ? 2 + rnd(20) : 0;
		m.blanks = rnd(3) == 0 ? 1 + rnd(30) : 0;
		m.quoted = rnd(2) ? 1 + rnd(10) : 0;
		m.midquote = rnd(3) == 0 ? 1 + rnd(20) : 0;
		gen_csv(&text, &su, 1 + rnd(iter % 8 == 0 ? 3000 : 400), &m);
		ref = su;
		ref.sel = NULL;
		ref.nsel = 0;
		ref.out = NULL;
		ref.colno = NULL;
		ref.schema = core_schema_new(su.schema->ncols);
		chosen = core_xcalloc(su.schema->ncols, sizeof(bool));
		for (j = 0; j < su.nsel; j++)
			chosen[su.sel[j]] = true;
		for (j = 0; j < su.schema->ncols; j++)
			core_schema_set(ref.schema, j,
			    su.schema->fields[j].name, chosen[j] ?
			    su.schema->fields[j].type : st);
		pr = csv_pool_new(ref.schema);
		parse_whole(&ref, &text, &want, pr);
		ps = csv_pool_new(su.out);
		parse_whole(&su, &text, &got, ps);
		if (want.nrecs != got.nrecs || want.nbatches != got.nbatches ||
		    want.nrows != got.nrows || want.nlines != got.nlines ||
		    want.stopped != got.stopped) {
			printf("# iter %u: recs %zu/%zu batches %zu/%zu rows "
			    "%llu/%llu\n", iter, want.nrecs, got.nrecs,
			    want.nbatches, got.nbatches,
			    (unsigned long long)want.nrows,
			    (unsigned long long)got.nrows);
			ok = false;
		}
		for (i = 0; ok && i < want.nrecs; i++) {
			const struct csv_rec *x = &want.recs[i];
			const struct csv_rec *y = &got.recs[i];

			if (x->line != y->line || x->col != y->col ||
			    x->msg_len != y->msg_len ||
			    memcmp(want.arena + x->msg_off,
			    got.arena + y->msg_off, x->msg_len) != 0) {
				printf("# iter %u: record %zu: %llu:%u %.*s / %llu:%u %.*s\n",
				    iter, i, (unsigned long long)x->line, x->col, (int)x->msg_len,
				    want.arena + x->msg_off,
				    (unsigned long long)y->line, y->col, (int)y->msg_len, got.arena + y->msg_off);
				ok = false;
			}
		}
		for (i = 0; ok && i < want.nbatches; i++) {
			const struct core_batch *x = &want.batches[i];
			const struct core_batch *y = &got.batches[i];

			if (x->nrows != y->nrows || y->ncols != su.nsel) {
				printf("# iter %u: batch %zu: %u/%u rows, "
				    "%u columns\n", iter, i, x->nrows,
				    y->nrows, y->ncols);
				ok = false;
			}
			for (j = 0; ok && j < su.nsel; j++)
				if (!column_same(&x->cols[su.sel[j]],
				    &y->cols[j], x->nrows)) {
					printf("# iter %u: batch %zu: column "
					    "%u (field %u) differs\n", iter,
					    i, j, su.sel[j]);
					ok = false;
				}
		}
		csv_result_release(&want);
		csv_result_release(&got);
		csv_pool_free(pr);
		csv_pool_free(ps);
		core_schema_free(ref.schema);
		free(chosen);
		setup_free(&su);
		free(text.p);
		if (!ok) {
			unit_cur_failed++;
			break;
		}
	}
}

/* One column of type t, one value per row, every value in text vals
 * (NUL-separated, nv of them), one-row blocks: each good value goes
 * through the block conversion's fast paths, each bad one is reported
 * by the row path; all must equal the row path's. */
static void
check_values(struct core_coltype t, const struct unit_buf *vals, size_t nv,
    bool quoted, const char *what)
{
	struct setup su;
	struct unit_buf text = { 0 };
	const char *v = vals->p;
	char tag[96], tname[CORE_TYPE_NAME_MAX];
	size_t i, nrecs;
	uint64_t nrows;
	int drive;

	memset(&su, 0, sizeof(su));
	su.schema = core_schema_new(1);
	core_schema_set(su.schema, 0, "v", t);
	su.pinned = core_xcalloc(1, sizeof(bool));
	su.batch_rows = 8192;
	su.block_rows = 1;
	su.rejecting = true;
	su.max_errors = UINT64_MAX;
	for (i = 0; i < nv; i++) {
		put_field(&text, v, strlen(v), quoted);
		unit_buf_ch(&text, '\n');
		v += strlen(v) + 1;
	}
	for (drive = 0; drive < DRIVE_N; drive += 2) {
		snprintf(tag, sizeof(tag), "%s as %s%s (drive %d)", what,
		    core_type_name(t, tname), quoted ? " quoted" : "", drive);
		if (!compare(&su, &text, drive, tag, &nrecs, &nrows))
			unit_cur_failed++;
		CHECK(nrows > 0);
	}
	setup_free(&su);
	free(text.p);
}

static void
add_val(struct unit_buf *vals, size_t *nv, const char *s)
{
	unit_buf_add(vals, s, strlen(s) + 1);
	(*nv)++;
}

/* A number of len significant digits after sign (0 none, 1 '-', 2 '+')
 * and lead zeros, with a '.' before digit pos (none when pos > len); then
 * the same with every digit a 9, the largest of its shape. */
static void
add_long(struct unit_buf *vals, size_t *nv, unsigned len, unsigned sign,
    unsigned lead, unsigned pos)
{
	char s[64], *p = s;
	unsigned i;

	if (sign)
		*p++ = sign == 1 ? '-' : '+';
	for (i = 0; i < lead; i++)
		*p++ = '0';
	for (i = 0; i < len; i++) {
		if (i == pos)
			*p++ = '.';
		*p++ = (char)(i == 0 ? '1' + rnd(9) : '0' + rnd(10));
	}
	if (pos == len)
		*p++ = '.';
	*p = '\0';
	add_val(vals, nv, s);
	for (p = s + (sign > 0) + lead; *p != '\0'; p++)
		if (*p != '.')
			*p = '9';
	add_val(vals, nv, s);
}

/* Every string of up to 5 bytes over digits, '.', signs and 'e', and
 * long digit strings with a sign, leading zeros and a '.' anywhere, as
 * every integer and decimal type. */
static void
test_numbers_exhaustive(void)
{
	static const char alpha[] = "059.-+e";
	static const struct core_coltype types[] = {
		{ CORE_TYPE_INT32, 0, 0 }, { CORE_TYPE_INT64, 0, 0 },
		{ CORE_TYPE_DECIMAL, 5, 2 }, { CORE_TYPE_DECIMAL, 18, 0 },
		{ CORE_TYPE_DECIMAL, 3, 3 }, { CORE_TYPE_DECIMAL, 18, 18 },
		{ CORE_TYPE_DECIMAL, 1, 0 }, { CORE_TYPE_DECIMAL, 18, 8 },
		{ CORE_TYPE_DECIMAL, 12, 2 }, { CORE_TYPE_DECIMAL, 9, 1 },
		{ CORE_TYPE_DECIMAL128, 38, 0 }, { CORE_TYPE_DECIMAL128, 38, 38 },
		{ CORE_TYPE_DECIMAL128, 19, 2 }, { CORE_TYPE_DECIMAL128, 38, 10 },
	};
	struct unit_buf vals = { 0 };
	char s[40];
	size_t nv = 0, t;
	unsigned len, i, code, ncodes, pos, sign, lead;

	for (len = 1; len <= 5; len++) {
		ncodes = 1;
		for (i = 0; i < len; i++)
			ncodes *= 7;
		for (code = 0; code < ncodes; code++) {
			unsigned c = code;

			for (i = 0; i < len; i++, c /= 7)
				s[i] = alpha[c % 7];
			s[len] = '\0';
			add_val(&vals, &nv, s);
		}
	}
	for (len = 1; len <= 40; len++)
		for (sign = 0; sign < 3; sign++)
			for (lead = 0; lead < 3; lead++)
				for (pos = 0; pos <= len + 1; pos++)
					add_long(&vals, &nv, len, sign, lead,
					    pos);
	for (t = 0; t < sizeof(types) / sizeof(types[0]); t++)
		check_values(types[t], &vals, nv, t % 4 == 3, "numbers");
	free(vals.p);
}

/* Every day of years where the calendar has its corners, and random
 * near-dates, as date and timestamp. */
static void
test_dates_exhaustive(void)
{
	static const unsigned years[] = {
		1, 2, 3, 4, 99, 100, 101, 399, 400, 401, 1582, 1600, 1700,
		1900, 1969, 1970, 1971, 2000, 2024, 2100, 2400, 9998, 9999,
	};
	static const struct core_coltype types[] = {
		{ CORE_TYPE_DATE, 0, 0 }, { CORE_TYPE_TIMESTAMP, 0, 0 },
	};
	struct unit_buf vals = { 0 };
	char s[40];
	size_t nv = 0, y, t;
	unsigned m, d, i;

	for (y = 0; y < sizeof(years) / sizeof(years[0]); y++)
		for (m = 0; m <= 13; m++)
			for (d = 0; d <= 32; d++) {
				snprintf(s, sizeof(s), "%04u-%02u-%02u",
				    years[y], m, d);
				add_val(&vals, &nv, s);
			}
	for (i = 0; i < 20000; i++) {
		snprintf(s, sizeof(s), "%04u-%02u-%02u", rnd(10000),
		    rnd(14), rnd(33));
		/* Now and then one byte off. */
		if (rnd(10) == 0)
			s[rnd(10)] = "0-9/ a:"[rnd(7)];
		add_val(&vals, &nv, s);
	}
	add_val(&vals, &nv, "2024-1-01");
	add_val(&vals, &nv, "2024-01-1");
	add_val(&vals, &nv, "+2024-01-01");
	add_val(&vals, &nv, "2024-01-011");
	for (t = 0; t < 2; t++)
		check_values(types[t], &vals, nv, false, "dates");
	free(vals.p);
}

/* Strings of every length up to 80 around the 16-byte vector copies,
 * ASCII and not, valid UTF-8 and not, quoted and not, at the very end of
 * the data too. */
static void
test_strings(void)
{
	struct core_coltype st = { CORE_TYPE_STRING, 0, 0 };
	struct unit_buf vals = { 0 };
	char s[128];
	size_t nv = 0;
	unsigned len, i, k;

	for (len = 0; len <= 80; len++)
		for (k = 0; k < 4; k++) {
			for (i = 0; i < len; i++)
				s[i] = (char)('a' + rnd(26));
			if (k == 1 && len >= 2)
				memcpy(s + rnd(len - 1), "\xc3\xa9", 2);
			if (k == 2 && len >= 1)
				s[rnd(len)] = (char)0xff;
			if (k == 3 && len >= 1)
				s[len - 1] = (char)0xc3;
			s[len] = '\0';
			if (len == 0)
				strcpy(s, "\"");
			add_val(&vals, &nv, s);
		}
	check_values(st, &vals, nv, false, "strings");
	check_values(st, &vals, nv, true, "strings");
	free(vals.p);
}

/* Rows of every length around the 64-byte windows of the plain row
 * tokenizer, ending in CR LF, streamed with a cut between each CR and its
 * LF: the CR must not end a row before the LF is seen. */
static void
test_cr_at_cut(void)
{
	unsigned ncols, len, r, i;

	for (ncols = 1; ncols <= 2; ncols++) {
		struct setup su;
		struct unit_buf text = { 0 };
		char tag[64];
		size_t nrecs;
		uint64_t nrows;
		int drive;

		setup_random(&su, ncols);
		for (i = 0; i < ncols; i++)
			su.schema->fields[i].type.id = CORE_TYPE_STRING;
		su.batch_rows = 8192;
		su.block_rows = 0;
		su.batch_bytes = 0;
		su.rejecting = true;
		su.max_errors = UINT64_MAX;
		for (len = 1; len <= 200; len++)
			for (r = 0; r < 3; r++) {
				if (ncols == 2)
					unit_buf_str(&text, "a,");
				for (i = 0; i < len; i++)
					unit_buf_ch(&text,
					    (char)('a' + rnd(26)));
				unit_buf_str(&text, "\r\n");
			}
		for (drive = 0; drive < DRIVE_N; drive++) {
			snprintf(tag, sizeof(tag), "%u cols, drive %d",
			    ncols, drive);
			if (!compare(&su, &text, drive, tag, &nrecs, &nrows))
				unit_cur_failed++;
			CHECK_EQ_INT(nrows, 600);
			CHECK_EQ_INT(nrecs, 0);
		}
		setup_free(&su);
		free(text.p);
	}
}

/* The early close of a batch by its raw bytes (int32 string offsets) with
 * blocks: batches end where the row path ends them. */
static void
test_batch_bytes(void)
{
	unsigned iter;

	for (iter = 0; iter < 60; iter++) {
		struct setup su;
		struct mess m = { 0, 0, 5, 0, 4, 0 };
		struct unit_buf text = { 0 };
		char tag[64];
		size_t nrecs;
		uint64_t nrows;

		setup_random(&su, 1 + rnd(6));
		su.batch_bytes = 1 + rnd(iter < 30 ? 200 : 5000);
		su.batch_rows = 8192;
		gen_csv(&text, &su, 200 + rnd(800), &m);
		snprintf(tag, sizeof(tag), "batch bytes %zu, iter %u",
		    su.batch_bytes, iter);
		if (!compare(&su, &text, (int)(iter % DRIVE_N), tag, &nrecs,
		    &nrows))
			unit_cur_failed++;
		setup_free(&su);
		free(text.p);
	}
}

/* Blocks of string columns whose values run from empty to several 64-byte
 * windows, quoted or not (with doubled quotes, delimiters and line
 * breaks inside), where now and then one value of a block has UTF-8, bad
 * UTF-8 or a byte >= 0x80 in an unquoted field of another column: the
 * block's one test for ASCII must decide for all of its values exactly
 * as a test per value would. */
static void
test_string_blocks(void)
{
	struct core_coltype st = { CORE_TYPE_STRING, 0, 0 };
	static const char *const odd[] = { "\xc3\xa9", "\xff", "\xe2\x82",
	    "\xe2\x82\xac" };
	unsigned iter, r, j, len, i, nrows;
	char v[300];

	for (iter = 0; iter < 60; iter++) {
		struct setup su;
		struct unit_buf text = { 0 };
		char tag[64];
		size_t nrecs;
		uint64_t got;
		const uint32_t ncols = 1 + rnd(4);

		memset(&su, 0, sizeof(su));
		su.schema = core_schema_new(ncols);
		su.pinned = core_xcalloc(ncols, sizeof(bool));
		for (j = 0; j < ncols; j++) {
			char name[16];

			snprintf(name, sizeof(name), "s%u", j + 1);
			core_schema_set(su.schema, j, name, st);
		}
		su.batch_rows = iter % 3 == 0 ? 8192 : 100 + rnd(500);
		su.block_rows = iter % 4 == 0 ? 1 + rnd(300) : 0;
		su.rejecting = rnd(2);
		su.max_errors = UINT64_MAX;
		nrows = 1 + rnd(2000);
		for (r = 0; r < nrows; r++) {
			for (j = 0; j < ncols; j++) {
				len = rnd(8) == 0 ? 64 + rnd(200) : rnd(70);
				for (i = 0; i < len; i++)
					v[i] = (char)(' ' + rnd(95));
				if (len > 4 && rnd(50) == 0) {
					const char *o = odd[rnd(4)];

					memcpy(v + rnd(len - 4), o, strlen(o));
				}
				if (len > 2 && rnd(30) == 0)
					v[rnd(len)] = rnd(2) ? '\n' : ',';
				if (j > 0)
					unit_buf_ch(&text, ',');
				if (len == 0)
					unit_buf_str(&text, "\"\"");
				else
					put_field(&text, v, len, rnd(10) == 0);
			}
			unit_buf_ch(&text, '\n');
		}
		snprintf(tag, sizeof(tag), "string blocks %u", iter);
		if (!compare(&su, &text, (int)(iter % DRIVE_N), tag, &nrecs,
		    &got))
			unit_cur_failed++;
		setup_free(&su);
		free(text.p);
	}
}

/* The random comparison again with each narrower width of the plain-row
 * tokenizer's vectors (the runs above use the widest this CPU has): the
 * fields, and so everything after, must not depend on it. */
static void
test_isa_widths(void)
{
	static const struct {
		int isa;
		const char *name;
	} w[] = {
		{ CSV_ISA_SSE2, "SSE2" },
		{ CSV_ISA_AVX2, "AVX2" },
		{ CSV_ISA_AVX512, "AVX-512BW" },
	};
	size_t k;
	int before;

	for (k = 0; k < sizeof(w) / sizeof(w[0]); k++) {
		if (!csv_isa_supported(w[k].isa)) {
			printf("# %s: not on this CPU, not tested\n",
			    w[k].name);
			continue;
		}
		if (k + 1 == sizeof(w) / sizeof(w[0]) ||
		    !csv_isa_supported(w[k + 1].isa)) {
			printf("# %s: the widest here, tested above\n",
			    w[k].name);
			continue;
		}
		before = unit_cur_failed;
		g_isa = w[k].isa;
		test_random_vs_rows();
		test_cr_at_cut();
		g_isa = CSV_ISA_AUTO;
		if (unit_cur_failed != before)
			printf("# with %s\n", w[k].name);
	}
}

int
main(void)
{
	RUN(test_random_vs_rows);
	RUN(test_select_projects);
	RUN(test_numbers_exhaustive);
	RUN(test_dates_exhaustive);
	RUN(test_strings);
	RUN(test_string_blocks);
	RUN(test_cr_at_cut);
	RUN(test_batch_bytes);
	RUN(test_isa_widths);
	return unit_done();
}
