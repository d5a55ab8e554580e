/*
 * core_csv_infer.c - dialect sniffing, header detection, type inference
 * and --schema pins for the CSV reader.
 *
 * Everything here works on the first input only, on a bounded sample, and
 * before any row is parsed for real; none of it is on the hot path.
 *
 * Sniffing: every candidate delimiter (, ; TAB |, unless the user fixed
 * it) tokenizes the first rows.  For each delimiter the quote is chosen
 * first: " when any field opens with it (even if that quoting is broken:
 * a broken quote is an error to report, not a reason to read the file
 * another way), else ' when fields open with it and close cleanly, else
 * " (nothing is quoted, so " and none read the same).  Between delimiters
 * the best has more than one column, then no syntax error, the largest
 * share of rows with the most common field count, the most columns.  Ties
 * go to the earlier candidate, so plain data reads as comma-separated
 * with " quoting.
 *
 * Header: the first row is a header when none of its fields reads as a
 * typed value (bool, number, date, timestamp), at least one is not empty,
 * and none holds a NUL byte or invalid UTF-8; when every column is text,
 * also none of its values may come again further down its column.  So a
 * file of text columns only is taken to have a header unless its first
 * row looks like its data (--no-header overrides).  Copies of the whole
 * first row (files concatenated with their headers) are left out of the
 * sample first: as data they change no type, and as a header they are not
 * data -- parsing then reports them where they do not fit.
 *
 * Types: per column, the first of bool (true/false in any case), int64,
 * decimal(18,s), float64, date, timestamp that every non-NULL sample value
 * parses as; otherwise (or with no value at all) string.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core_alloc.h"
#include "core_csv_private.h"
#include "core_value.h"

/* How much of the input sniffing looks at. */
#define SNIFF_BYTES (256 * 1024)
#define SNIFF_ROWS 200

void
csv_sample_release(struct csv_sample *s)
{
	free(s->off);
	free(s->len);
	free(s->flags);
	free(s->rowpos);
	free(s->text);
	memset(s, 0, sizeof(*s));
}

/* ---- sniffing ---- */

/* What one candidate dialect makes of the first rows. */
struct sniff_score {
	int delim, quote;
	bool clean;		/* no syntax error */
	bool multi;		/* more than one column */
	size_t match, nrows;	/* rows with the modal count, rows seen */
	size_t ncols;		/* modal field count */
	size_t quoted;		/* fields opened with the quote, including
				   ones left open or closed badly */
	/* The table: the widest field count c > 1 that every row from
	 * the first one with c fields on has, over the most rows. */
	bool table;
	size_t tcols, tstart, trows;	/* width, first row, rows in it */
	uint64_t tline;		/* lines before its first row */
	int lead;		/* the byte every row before it starts with,
				   -1 when they differ */
	uint32_t typed;		/* typed columns of the table; only
				   computed to break ties */
};

/* Rows a preamble may have: beyond this, lines before a block of
 * consistent rows are data that does not fit, not a title. */
#define SNIFF_PRE_ROWS 50

static void
sniff_one(const char *buf, size_t len, bool at_eof, int delim, int quote,
    int comment, struct sniff_score *sc)
{
	size_t counts[SNIFF_ROWS], pos = 0, row, i, j, n, best, bestn;
	uint64_t lines[SNIFF_ROWS], line = 0;
	unsigned char first[SNIFF_ROWS];
	struct csv_tok t;
	int r;

	memset(sc, 0, sizeof(*sc));
	sc->delim = delim;
	sc->quote = quote;
	sc->clean = true;
	sc->lead = -1;
	csv_tok_init(&t, delim, quote);
	n = 0;
	while (pos < len && n < SNIFF_ROWS) {
		r = csv_skip_eol(buf, &pos, len, at_eof);
		if (r == 1) {
			line++;
			continue;
		}
		if (r != 0)
			break;
		if (comment > 0 && buf[pos] == (char)comment) {
			if (csv_skip_line(buf, &pos, len, at_eof) != 1)
				break;
			line++;
			continue;
		}
		row = pos;
		if (csv_tok_row(&t, buf, &pos, len, at_eof) != CSV_ROW_OK) {
			pos = row;
			break;
		}
		if (t.syn != CSV_SYN_OK) {
			sc->clean = false;
			sc->quoted++;
		}
		for (i = 0; i < t.nf; i++)
			sc->quoted += (t.f[i].flags & CSV_F_QUOTED) != 0;
		first[n] = (unsigned char)buf[row];
		lines[n] = line;
		line += 1 + t.nbreaks;
		counts[n++] = t.nf;
	}
	csv_tok_release(&t);
	best = 0;
	bestn = 0;
	for (i = 0; i < n; i++) {
		size_t c = 0;

		for (j = 0; j < n; j++)
			c += counts[j] == counts[i];
		if (c > bestn || (c == bestn && counts[i] > best)) {
			bestn = c;
			best = counts[i];
		}
	}
	sc->nrows = n;
	sc->match = bestn;
	sc->ncols = best;
	sc->multi = best > 1;
	/* The table: for each width, the rows from its first row on must
	 * all have it.  A row with another count after that is a ragged
	 * row, reported when parsed, and leaves no table here. */
	for (i = 0; i < n && i <= SNIFF_PRE_ROWS; i++) {
		if (counts[i] < 2 || (i > 0 && counts[i] == counts[i - 1]))
			continue;
		for (j = 0; j < i; j++)
			if (counts[j] == counts[i])
				break;
		if (j < i)
			continue;
		for (j = i + 1; j < n && counts[j] == counts[i]; j++)
			;
		if (j < n)
			continue;
		/* A table after a preamble needs two rows to be seen. */
		if (i > 0 && n - i < 2)
			continue;
		if (!sc->table || n - i > sc->trows) {
			sc->table = true;
			sc->tcols = counts[i];
			sc->tstart = i;
			sc->trows = n - i;
			sc->tline = lines[i];
		}
	}
	if (sc->table && sc->tstart > 0) {
		sc->lead = first[0];
		for (i = 1; i < sc->tstart; i++)
			if (first[i] != first[0])
				sc->lead = -1;
	}
}

static bool
sniff_better(const struct sniff_score *a, const struct sniff_score *b)
{
	/* A reading with a table of several columns beats any without:
	 * lines that do not fit above a consistent body are a preamble or
	 * comments, not a reason to read the body as one column. */
	if (a->table != b->table)
		return a->table;
	if (a->table) {
		if (a->clean != b->clean)
			return a->clean;
		if (a->trows != b->trows)
			return a->trows > b->trows;
		return a->tcols > b->tcols;
	}
	/* A broken quote somewhere must not turn a comma file into a
	 * one-column file: columns first, then cleanliness. */
	if (a->multi != b->multi)
		return a->multi;
	if (a->clean != b->clean)
		return a->clean;
	/* Share of consistent rows: a.match/a.nrows vs b.match/b.nrows. */
	if (a->match * b->nrows != b->match * a->nrows)
		return a->match * b->nrows > b->match * a->nrows;
	return a->ncols > b->ncols;
}

/* Typed columns of the table a reading gives, its first row left out
 * (it may be the header). */
static uint32_t
sniff_typed(const char *buf, size_t len, bool at_eof, int comment,
    const struct sniff_score *sc)
{
	struct csv_sample s;
	struct csv_tok t;
	uint32_t j, n = 0;

	memset(&s, 0, sizeof(s));
	csv_tok_init(&t, sc->delim, sc->quote);
	(void)csv_sample_rows(&s, &t, buf, 0, len, at_eof, SNIFF_ROWS,
	    false, comment);
	for (j = 0; j < s.ncols; j++)
		n += csv_infer_column(&s, j, s.nrows > 1 ? 1 : 0, NULL,
		    0).id != CORE_TYPE_STRING;
	csv_tok_release(&t);
	csv_sample_release(&s);
	return n;
}

void
csv_sniff(const char *buf, size_t len, bool at_eof, struct csv_sniffed *sn)
{
	static const int cand[] = { ',', ';', '\t', '|' };
	struct sniff_score sc[5], dbest, sa;
	size_t i, nd = 0, ib = 0;
	int delims[5], quote = sn->quote;

	if (len > SNIFF_BYTES) {
		len = SNIFF_BYTES;
		at_eof = false;
	}
	if (sn->delim >= 0)
		delims[nd++] = sn->delim;
	else
		for (i = 0; i < sizeof(cand) / sizeof(cand[0]); i++)
			delims[nd++] = cand[i];
	for (i = 0; i < nd; i++) {
		/* The quote for this delimiter: " whenever a field opens
		 * with it, even if the quoting is broken -- a broken quote
		 * is an error to report, not a reason to read the file
		 * another way; ' only when fields open with it, cleanly,
		 * and none open with ".  Without either, nothing is quoted
		 * and " (the RFC 4180 quote) is as good as none. */
		if (quote == -2 || quote == '"') {
			sniff_one(buf, len, at_eof, delims[i], '"',
			    sn->comment, &dbest);
			if (quote == -2 && dbest.quoted == 0) {
				sniff_one(buf, len, at_eof, delims[i], '\'',
				    sn->comment, &sa);
				if (sa.quoted > 0 && sa.clean)
					dbest = sa;
			}
		} else {
			sniff_one(buf, len, at_eof, delims[i], quote,
			    sn->comment, &dbest);
		}
		sc[i] = dbest;
		if (i == 0 || sniff_better(&sc[i], &sc[ib]))
			ib = i;
	}
	sn->delim = sc[ib].delim;
	sn->quote = sc[ib].quote;
	sn->table = sc[ib].table;
	sn->ncols = sc[ib].table ? sc[ib].tcols : sc[ib].ncols;
	sn->pre_rows = sc[ib].table ? sc[ib].tstart : 0;
	sn->pre_lines = sc[ib].table ? sc[ib].tline : 0;
	sn->lead = sc[ib].lead;
	sn->alt_delim = -1;
	/* One row is too little to weigh readings by: the widest stands,
	 * as for any input without a table. */
	if (!sc[ib].table || !sc[ib].clean || sc[ib].trows < 2)
		return;
	/* Another delimiter whose table is as clean and as long: the types
	 * decide (numbers split by the wrong delimiter are text), else
	 * both readings stay plausible and the caller says so. */
	for (i = 0; i < nd; i++) {
		if (i == ib || !sc[i].table || !sc[i].clean ||
		    sc[i].trows != sc[ib].trows)
			continue;
		if (sn->alt_delim < 0)
			sc[ib].typed = sniff_typed(buf, len, at_eof,
			    sn->comment, &sc[ib]);
		sc[i].typed = sniff_typed(buf, len, at_eof, sn->comment,
		    &sc[i]);
		if (sc[i].typed > sc[ib].typed) {
			ib = i;
			sn->delim = sc[ib].delim;
			sn->quote = sc[ib].quote;
			sn->ncols = sc[ib].tcols;
			sn->pre_rows = sc[ib].tstart;
			sn->pre_lines = sc[ib].tline;
			sn->lead = sc[ib].lead;
			sn->alt_delim = -1;
			i = (size_t)-1;	/* look at every other again */
			continue;
		}
		if (sc[i].typed == sc[ib].typed && sn->alt_delim < 0) {
			sn->alt_delim = sc[i].delim;
			sn->alt_ncols = (uint32_t)sc[i].tcols;
		}
	}
}

/* ---- the sample ---- */

static void
sample_push(struct csv_sample *s, const struct csv_tok *t)
{
	size_t base = s->nrows * s->ncols, need, j;

	if ((s->nrows & (s->nrows - 1)) == 0) {
		/* Grow at powers of two. */
		size_t cap = s->nrows ? 2 * s->nrows : 1;

		need = core_mul_size(cap, s->ncols ? s->ncols : 1);
		s->off = core_xreallocarray(s->off, need, sizeof(*s->off));
		s->len = core_xreallocarray(s->len, need, sizeof(*s->len));
		s->flags = core_xreallocarray(s->flags, need, 1);
		s->rowpos = core_xreallocarray(s->rowpos, cap,
		    sizeof(*s->rowpos));
	}
	for (j = 0; j < s->ncols; j++) {
		const struct csv_field *f = &t->f[j];

		/* text is never NULL once a row is in, even if every
		 * field so far was empty: readers add offsets to it. */
		if (s->tcap - s->tlen < f->len || s->text == NULL)
			s->text = core_grow(s->text, &s->tcap,
			    s->tlen + f->len + (s->text == NULL), 1, 1);
		if (f->len > 0)
			memcpy(s->text + s->tlen, f->p, f->len);
		s->off[base + j] = (uint32_t)s->tlen;
		s->len[base + j] = f->len;
		s->flags[base + j] = (uint8_t)(f->flags & CSV_F_QUOTED);
		s->tlen += f->len;
	}
	s->nrows++;
}

size_t
csv_sample_rows(struct csv_sample *s, struct csv_tok *t, const char *buf,
    size_t pos, size_t end, bool at_eof, size_t max_rows, bool strict,
    int comment)
{
	size_t taken = 0, row;
	int r;

	while (pos < end && taken < max_rows) {
		r = csv_skip_eol(buf, &pos, end, at_eof);
		if (r == 1)
			continue;
		if (r != 0)
			break;
		if (comment > 0 && buf[pos] == (char)comment) {
			if (csv_skip_line(buf, &pos, end, at_eof) != 1)
				break;
			continue;
		}
		row = pos;
		if (csv_tok_row(t, buf, &pos, end, at_eof) != CSV_ROW_OK)
			break;
		/* The sample keeps at most 4 GiB of text (uint32 offsets);
		 * far more than any sensible sample. */
		if (s->tlen + (pos - row) > UINT32_MAX)
			break;
		/* A row with broken quoting does not fix the width: it
		 * is reported where it is when parsed. */
		if (s->nrows == 0 && s->ncols == 0 && t->syn == CSV_SYN_OK)
			s->ncols = (uint32_t)t->nf;
		/* A trailing delimiter on data rows only (core_csv.h). */
		if (t->nf == (size_t)s->ncols + 1 && s->nrows > 0 &&
		    t->f[t->nf - 1].len == 0 &&
		    !(t->f[t->nf - 1].flags & CSV_F_QUOTED))
			t->nf--;
		if (t->syn != CSV_SYN_OK || t->nf != s->ncols) {
			if (strict)
				break;
			continue;
		}
		sample_push(s, t);
		s->rowpos[s->nrows - 1] = row;
		taken++;
	}
	return taken;
}

/* ---- types of values ---- */

enum {
	K_BOOL = 1,
	K_INT = 2,
	K_DEC = 4,
	K_FLT = 8,
	K_DATE = 16,
	K_TS = 32,
	K_ALL = 63,
};

struct dec_shape {
	unsigned intd, fracd;	/* largest integer and fraction digits */
	bool dot;		/* some value had a '.' */
};

/* Plain decimal text: [+-]digits[.digits], at least one digit, no
 * exponent.  Counts significant integer digits and fraction digits. */
static bool
decimal_shape(const char *p, size_t len, struct dec_shape *d)
{
	size_t i = 0;
	unsigned intd = 0, fracd = 0, digits = 0;
	bool lead = true, dot = false;

	if (i < len && (p[i] == '-' || p[i] == '+'))
		i++;
	for (; i < len && p[i] >= '0' && p[i] <= '9'; i++, digits++) {
		if (lead && p[i] == '0')
			continue;
		lead = false;
		intd++;
	}
	if (i < len && p[i] == '.') {
		dot = true;
		for (i++; i < len && p[i] >= '0' && p[i] <= '9'; i++)
			fracd++, digits++;
	}
	if (i != len || digits == 0)
		return false;
	if (intd > d->intd)
		d->intd = intd;
	if (fracd > d->fracd)
		d->fracd = fracd;
	d->dot |= dot;
	return true;
}

/* The kinds among cand that p[0..len) reads as. */
static unsigned
value_kinds(const char *p, size_t len, unsigned cand, struct dec_shape *d)
{
	unsigned k = 0;
	int64_t i64;
	int32_t i32;
	double f;

	if ((cand & K_BOOL) && ((len == 4 && strncasecmp(p, "true", 4) == 0) ||
	    (len == 5 && strncasecmp(p, "false", 5) == 0)))
		k |= K_BOOL;
	if ((cand & K_INT) && core_parse_int64(p, len, &i64) == 0)
		k |= K_INT;
	if ((cand & K_DEC) && decimal_shape(p, len, d))
		k |= K_DEC;
	if ((cand & K_FLT) && core_parse_float64(p, len, &f) == 0)
		k |= K_FLT;
	if ((cand & K_DATE) && core_parse_date(p, len, &i32) == 0)
		k |= K_DATE;
	if ((cand & K_TS) && core_parse_timestamp(p, len, &i64) == 0)
		k |= K_TS;
	return k;
}

/* NULL for inference: empty, or a --null spelling when unquoted.  A
 * quoted empty field is NULL in every typed column, so it does not
 * constrain the type either. */
static bool
sample_is_null(const struct csv_sample *s, size_t idx,
    const char *const *nulls, size_t nnulls)
{
	if (s->len[idx] == 0)
		return true;
	return !(s->flags[idx] & CSV_F_QUOTED) &&
	    csv_is_null_string(s->text + s->off[idx], s->len[idx], nulls,
	    nnulls);
}

/* A number whose text would not print back: an explicit '+', or a
 * leading zero before another digit ("007", "-01.5"; not "0" or "0.5").
 * Such columns are kept as text (zip codes, phone numbers, codes). */
static bool
textual_number(const char *p, size_t len)
{
	size_t i = 0;

	if (len > 0 && p[0] == '+')
		return true;
	if (len > 0 && p[0] == '-')
		i = 1;
	return len - i >= 2 && p[i] == '0' && p[i + 1] >= '0' &&
	    p[i + 1] <= '9';
}

struct core_coltype
csv_infer_column(const struct csv_sample *s, uint32_t col, size_t from,
    const char *const *nulls, size_t nnulls)
{
	return csv_infer_column_why(s, col, from, nulls, nnulls, NULL, NULL);
}

/* Value idx of the sample as the number parsers see it: rewritten into
 * buf with nf (NULL: as it is).  false when nf refuses it. */
static bool
sample_num(const struct csv_sample *s, size_t idx,
    const struct csv_numfmt *nf, char *buf, size_t cap, const char **p,
    size_t *len)
{
	long n;

	*p = s->text + s->off[idx];
	*len = s->len[idx];
	if (nf == NULL)
		return true;
	if ((n = csv_num_rewrite(nf, *p, *len, buf, cap)) < 0)
		return false;
	*p = buf;
	*len = (size_t)n;
	return true;
}

/* Every sampled value of col parses as decimal(precision, scale). */
static bool
sample_fits_decimal(const struct csv_sample *s, uint32_t col, size_t from,
    const char *const *nulls, size_t nnulls, const struct csv_numfmt *nf,
    unsigned precision, unsigned scale)
{
	size_t r, idx, len;
	const char *p;
	char buf[96];
	core_i128 w;
	int64_t v;
	int rc;

	/* The shape check is ours; the parser that will read the data must
	 * agree on every sampled value. */
	for (r = from; r < s->nrows; r++) {
		idx = r * s->ncols + col;
		if (sample_is_null(s, idx, nulls, nnulls))
			continue;
		if (!sample_num(s, idx, nf, buf, sizeof(buf), &p, &len))
			return false;
		if (precision <= CORE_DECIMAL_MAX_PRECISION)
			rc = core_parse_decimal(p, len, (uint8_t)precision,
			    (uint8_t)scale, &v);
		else
			rc = core_parse_decimal128(p, len, (uint8_t)precision,
			    (uint8_t)scale, &w);
		if (rc != 0)
			return false;
	}
	return true;
}

/* For a column that came out as text: when most of its values are dates
 * (or timestamps) and only some are not, the first that is not, so the
 * fallback can be reported with its line. */
static void
why_not_temporal(const struct csv_sample *s, uint32_t col, size_t from,
    const char *const *nulls, size_t nnulls, struct csv_infer_why *why)
{
	size_t r, idx, n = 0, nd = 0, nt = 0, bd = SIZE_MAX, bt = SIZE_MAX;
	int64_t ts;
	int32_t d;

	for (r = from; r < s->nrows; r++) {
		const char *p;

		idx = r * s->ncols + col;
		if (sample_is_null(s, idx, nulls, nnulls))
			continue;
		p = s->text + s->off[idx];
		n++;
		if (core_parse_date(p, s->len[idx], &d) == 0)
			nd++;
		else if (bd == SIZE_MAX)
			bd = r;
		if (core_parse_timestamp(p, s->len[idx], &ts) == 0)
			nt++;
		else if (bt == SIZE_MAX)
			bt = r;
	}
	/* At least half, so a text column with the odd date in
	 * it is not called a broken date column. */
	if (nd * 2 >= n && nd < n) {
		why->why = CSV_WHY_NOTDATE;
		why->row = bd;
	} else if (nt * 2 >= n && nt < n) {
		why->why = CSV_WHY_NOTTS;
		why->row = bt;
	}
}

struct core_coltype
csv_infer_column_why(const struct csv_sample *s, uint32_t col, size_t from,
    const char *const *nulls, size_t nnulls, const struct csv_numfmt *nf,
    struct csv_infer_why *why)
{
	struct core_coltype t = { CORE_TYPE_STRING, 0, 0 };
	struct dec_shape d = { 0, 0, false };
	struct csv_infer_why w = { CSV_WHY_NONE, 0 };
	struct dec_shape d2 = { 0, 0, false };
	unsigned cand = K_ALL, raw = K_ALL, digits;
	size_t r, idx, nvalues = 0, textnum = SIZE_MAX;

	/* raw: the kinds without the leading zero rule, to tell a column
	 * of numbers kept as text from a column of text. */
	for (r = from; r < s->nrows && (cand != 0 || raw != 0); r++) {
		const unsigned num = K_INT | K_DEC | K_FLT;
		const char *p = NULL;
		char nb[96];
		size_t len = 0;
		bool isnum;

		idx = r * s->ncols + col;
		if (sample_is_null(s, idx, nulls, nnulls))
			continue;
		nvalues++;
		/* Numbers in nf's notation, the rest as written. */
		isnum = sample_num(s, idx, nf, nb, sizeof(nb), &p, &len);
		cand &= value_kinds(s->text + s->off[idx], s->len[idx],
		    cand & ~num, &d) | (isnum ? value_kinds(p, len,
		    cand & num, &d) : 0);
		raw &= value_kinds(s->text + s->off[idx], s->len[idx],
		    raw & ~num, &d2) | (isnum ? value_kinds(p, len,
		    raw & num, &d2) : 0);
		if ((cand & num) && textual_number(p, len)) {
			cand &= ~(unsigned)(K_INT | K_DEC | K_FLT);
			if (textnum == SIZE_MAX)
				textnum = r;
		}
	}
	if (nvalues == 0 || cand == 0) {
		if (nvalues > 0 && (raw & (K_INT | K_DEC | K_FLT)) &&
		    textnum != SIZE_MAX) {
			w.why = CSV_WHY_TEXTNUM;
			w.row = textnum;
		} else if (nvalues > 0) {
			why_not_temporal(s, col, from, nulls, nnulls, &w);
		}
		if (why != NULL)
			*why = w;
		return t;
	}
	if (why != NULL)
		*why = w;
	if (cand & K_BOOL) {
		t.id = CORE_TYPE_BOOL;
		return t;
	}
	if (cand & K_INT) {
		t.id = CORE_TYPE_INT64;
		return t;
	}
	/* Plain decimals, and integers too wide for int64, are exact
	 * decimals as far as 38 digits go (float64 would change them). */
	digits = d.intd + d.fracd;
	if ((cand & K_DEC) && d.dot && digits <= CORE_DECIMAL_MAX_PRECISION &&
	    sample_fits_decimal(s, col, from, nulls, nnulls, nf,
	    CORE_DECIMAL_MAX_PRECISION, d.fracd)) {
		t.id = CORE_TYPE_DECIMAL;
		t.precision = CORE_DECIMAL_MAX_PRECISION;
		t.scale = (uint8_t)d.fracd;
		return t;
	}
	if ((cand & K_DEC) && digits > CORE_DECIMAL_MAX_PRECISION &&
	    digits <= CORE_DECIMAL128_MAX_PRECISION &&
	    sample_fits_decimal(s, col, from, nulls, nnulls, nf,
	    CORE_DECIMAL128_MAX_PRECISION, d.fracd)) {
		t.id = CORE_TYPE_DECIMAL128;
		t.precision = CORE_DECIMAL128_MAX_PRECISION;
		t.scale = (uint8_t)d.fracd;
		return t;
	}
	if (cand & K_FLT)
		t.id = CORE_TYPE_FLOAT64;
	else if (cand & K_DATE)
		t.id = CORE_TYPE_DATE;
	else if (cand & K_TS)
		t.id = CORE_TYPE_TIMESTAMP;
	return t;
}

/* Plain digits, no sign, no leading zero: a number that could be a
 * label (a year, a column number); *v its value. */
static bool
plain_uint(const char *p, size_t len, long *v)
{
	size_t i;

	if (len == 0 || len > 9 || (p[0] == '0' && len > 1))
		return false;
	*v = 0;
	for (i = 0; i < len; i++) {
		if (p[i] < '0' || p[i] > '9')
			return false;
		*v = *v * 10 + (p[i] - '0');
	}
	return true;
}

/* The first row's numbers as column labels: all distinct years
 * (1000-2999, four digits), or a run with one step (1,2,3; 5,10,15; two
 * numbers only one apart). */
static bool
label_pattern(const long *v, const bool *year, size_t n, bool *years)
{
	size_t i, j;
	bool all_years = true, step = n >= 2;

	for (i = 0; i < n; i++) {
		all_years &= year[i];
		for (j = 0; j < i; j++)
			if (v[j] == v[i])
				return false;
		if (i >= 2 && v[i] - v[i - 1] != v[1] - v[0])
			step = false;
	}
	/* Two numbers are a run only one apart: 7,3 is no label. */
	if (n == 2 && v[1] - v[0] != 1 && v[0] - v[1] != 1)
		step = false;
	*years = all_years;
	return all_years || step;
}

int
csv_detect_header(const struct csv_sample *s, const char *const *nulls,
    size_t nnulls, bool *header)
{
	struct dec_shape d = { 0, 0, false };
	size_t nonempty = 0, ntext = 0, nnum = 0, r;
	long *num = NULL;
	bool *year = NULL, years, ints_below = false;
	uint32_t j, *numcol = NULL;
	int why;

	*header = false;
	if (s->nrows == 0)
		return CSV_HDR_EMPTY_ROW;
	num = core_xcalloc(s->ncols + 1, sizeof(*num));
	year = core_xcalloc(s->ncols + 1, sizeof(*year));
	numcol = core_xcalloc(s->ncols + 1, sizeof(*numcol));
	for (j = 0; j < s->ncols; j++) {
		const char *p = s->text + s->off[j];

		/* Names are C strings of UTF-8: such a row is data. */
		if (s->len[j] > 0 && (memchr(p, '\0', s->len[j]) != NULL ||
		    core_utf8_valid_prefix(p, s->len[j]) != s->len[j])) {
			why = CSV_HDR_BYTES;
			goto out;
		}
		if (sample_is_null(s, j, nulls, nnulls))
			continue;
		nonempty++;
		if (value_kinds(p, s->len[j], K_ALL, &d) == 0) {
			ntext++;
			continue;
		}
		if (!plain_uint(p, s->len[j], &num[nnum])) {
			why = CSV_HDR_TYPED_FIRST;
			goto out;
		}
		year[nnum] = s->len[j] == 4 && p[0] >= '1' && p[0] <= '2';
		numcol[nnum++] = j;
	}
	if (nonempty == 0) {
		why = CSV_HDR_EMPTY_ROW;
		goto out;
	}
	if (nnum > 0) {
		/* Numbers on top are labels only in a pattern labels have,
		 * and only over columns they are not values of: a plain
		 * integer over values that all have a fraction (or are
		 * not numbers) stands out as a name.  Over integers a
		 * row of years is as much data as names: say so. */
		if (s->nrows < 2 || !label_pattern(num, year, nnum, &years)) {
			why = CSV_HDR_TYPED_FIRST;
			goto out;
		}
		for (size_t k = 0; k < nnum; k++)
			for (r = 1; r < s->nrows; r++) {
				size_t idx = r * s->ncols + numcol[k];
				long v;

				if (!sample_is_null(s, idx, nulls, nnulls) &&
				    plain_uint(s->text + s->off[idx],
				    s->len[idx], &v))
					ints_below = true;
			}
		if (!ints_below) {
			*header = true;
			why = CSV_HDR_LABELS;
		} else if (years && ntext > 0) {
			why = CSV_HDR_AMBIGUOUS;
		} else {
			why = CSV_HDR_TYPED_FIRST;
		}
		goto out;
	}
	/* Text over typed data: names. */
	for (j = 0; j < s->ncols; j++)
		if (csv_infer_column(s, j, 1, nulls, nnulls).id !=
		    CORE_TYPE_STRING) {
			*header = true;
			why = CSV_HDR_OVER_TYPED;
			goto out;
		}
	/* All text: a first row that repeats a value found further down its
	 * column is data ("1/1/2020" over more dates as text). */
	for (r = 1; r < s->nrows; r++)
		for (j = 0; j < s->ncols; j++) {
			size_t idx = r * s->ncols + j;

			if (s->len[j] > 0 && s->len[idx] == s->len[j] &&
			    memcmp(s->text + s->off[idx], s->text + s->off[j],
			    s->len[j]) == 0) {
				why = CSV_HDR_REPEATS;
				goto out;
			}
		}
	*header = true;
	why = CSV_HDR_ALL_TEXT;
out:
	free(num);
	free(year);
	free(numcol);
	return why;
}

const char *
csv_header_why_text(int why)
{
	switch (why) {
	case CSV_HDR_GIVEN:
		return "as given (--header or --no-header)";
	case CSV_HDR_TYPED_FIRST:
		return "the first row has values that read as numbers, "
		    "dates or bools";
	case CSV_HDR_BYTES:
		return "the first row holds NUL or invalid UTF-8";
	case CSV_HDR_EMPTY_ROW:
		return "the first row has no text";
	case CSV_HDR_OVER_TYPED:
		return "the first row is text over typed columns";
	case CSV_HDR_ALL_TEXT:
		return "all columns are text and no first-row value comes "
		    "again below it";
	case CSV_HDR_REPEATS:
		return "all columns are text and a first-row value comes "
		    "again below it";
	case CSV_HDR_LABELS:
		return "the first row's numbers are labels (years or a "
		    "numbered run) over columns that are not integers";
	default:
		return "the first row's years may be names or values";
	}
}

void
csv_sample_drop_copies(struct csv_sample *s)
{
	size_t r, o = 1, n = s->ncols;
	uint32_t j;

	if (n < 2)
		return;
	for (r = 1; r < s->nrows; r++) {
		for (j = 0; j < n; j++)
			if (s->len[r * n + j] != s->len[j] || (s->len[j] > 0 &&
			    memcmp(s->text + s->off[r * n + j],
			    s->text + s->off[j], s->len[j]) != 0))
				break;
		if (j == n)
			continue;
		if (o != r) {
			memmove(s->off + o * n, s->off + r * n,
			    n * sizeof(*s->off));
			memmove(s->len + o * n, s->len + r * n,
			    n * sizeof(*s->len));
			memmove(s->flags + o * n, s->flags + r * n, n);
			s->rowpos[o] = s->rowpos[r];
		}
		o++;
	}
	s->nrows = o;
}

/* ---- --schema pins ---- */

static void
trim(const char **p, size_t *len)
{
	while (*len > 0 && (**p == ' ' || **p == '\t'))
		(*p)++, (*len)--;
	while (*len > 0 && ((*p)[*len - 1] == ' ' || (*p)[*len - 1] == '\t'))
		(*len)--;
}

int
csv_apply_pins(struct core_schema *schema, bool *pinned, const char *spec,
    struct core_err *err)
{
	const char *p = spec, *item, *colon, *name, *type;
	size_t ilen, nlen, tlen;
	struct core_coltype t;
	int depth, idx, rc;
	char *cname;

	while (*p != '\0') {
		/* An item ends at a comma outside parentheses. */
		item = p;
		for (depth = 0; *p != '\0' && (*p != ',' || depth > 0); p++) {
			if (*p == '(')
				depth++;
			else if (*p == ')' && depth > 0)
				depth--;
		}
		ilen = (size_t)(p - item);
		if (*p == ',')
			p++;
		trim(&item, &ilen);
		if (ilen == 0)
			continue;
		colon = NULL;
		for (size_t i = 0; i < ilen; i++)
			if (item[i] == ':')
				colon = item + i;
		if (colon == NULL)
			return core_err_set(err, CORE_EUSAGE,
			    "schema: '%.*s' is not name:type", (int)ilen,
			    item);
		name = item;
		nlen = (size_t)(colon - item);
		type = colon + 1;
		tlen = ilen - nlen - 1;
		trim(&name, &nlen);
		if ((rc = core_type_parse(type, tlen, &t, err)) != 0) {
			core_err_prefix(err, "schema");
			return rc;
		}
		cname = core_xstrndup(name, nlen);
		idx = core_schema_find(schema, cname);
		if (idx < 0) {
			rc = core_err_set(err, CORE_EUSAGE,
			    "schema: no column named '%s'", cname);
			free(cname);
			return rc;
		}
		if (pinned[idx]) {
			rc = core_err_set(err, CORE_EUSAGE,
			    "schema: column '%s' given twice", cname);
			free(cname);
			return rc;
		}
		pinned[idx] = true;
		core_schema_set(schema, (uint32_t)idx, cname, t);
		free(cname);
	}
	return 0;
}
