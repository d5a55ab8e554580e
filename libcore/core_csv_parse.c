/*
 * core_csv_parse.c - the CSV tokenizer and the row -> column converter.
 *
 * This is the hot loop of csv2col.  A row is tokenized into (pointer,
 * length) fields that point into the input wherever possible: only a
 * quoted field with doubled quotes is copied, into a scratch buffer reused
 * row after row.  The fields are then converted straight into the column
 * buffers of the batch being filled with the core_value.h parsers.  No
 * allocation happens per field or per row once the buffers have grown to
 * the data.
 *
 * Tokenizer rules (RFC 4180 plus what real files need):
 *   - a row ends at LF, CR LF or a lone CR outside quotes, or at the end of
 *     the member (a last line without terminator is a row);
 *   - a field that starts with the quote byte is quoted: it ends at the
 *     next single quote byte, a doubled quote byte stands for one, and
 *     delimiters, CR and LF inside are data;
 *   - a quote byte inside an unquoted field is plain data;
 *   - anything but a delimiter or line end after a closing quote is a
 *     syntax error, and so is the end of the member inside quotes; the row
 *     is still delimited (the rest of the field is skipped like an
 *     unquoted one), so with a rejects sink parsing goes on.
 *
 * A row is all or nothing: a value that fails to convert leaves the batch
 * as it was (nrows is only advanced at the end, validity bits and string
 * offsets of the failed row's slot are rewritten by the next row).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "core_alloc.h"
#include "core_csv_private.h"
#include "core_value.h"

/* ---- tokenizer ---- */

void
csv_tok_init(struct csv_tok *t, int delim, int quote)
{
	memset(t, 0, sizeof(*t));
	t->delim = delim;
	t->quote = quote;
	t->stop_unq[(uint8_t)delim] = 1;
	t->stop_unq['\n'] = 1;
	t->stop_unq['\r'] = 1;
	if (quote >= 0)
		t->stop_q[(uint8_t)quote] = 1;
	t->stop_q['\n'] = 1;
	t->stop_q['\r'] = 1;
	t->fcap = 64;
	t->f = core_xreallocarray(NULL, t->fcap, sizeof(*t->f));
}

void
csv_tok_release(struct csv_tok *t)
{
	free(t->f);
	free(t->scratch);
	memset(t, 0, sizeof(*t));
}

/* First i >= from with stop[buf[i]], or end.  The vector loop reads only
 * whole 16-byte blocks before end, so a mapping's last page is safe. */
static inline size_t
scan3(const char *buf, size_t i, size_t end, const uint8_t *stop, int a,
    int b, int c)
{
#ifdef __SSE2__
	const __m128i va = _mm_set1_epi8((char)a);
	const __m128i vb = _mm_set1_epi8((char)b);
	const __m128i vc = _mm_set1_epi8((char)c);

	while (i + 16 <= end) {
		__m128i v = _mm_loadu_si128((const __m128i *)(buf + i));
		__m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, va),
		    _mm_cmpeq_epi8(v, vb)), _mm_cmpeq_epi8(v, vc));
		unsigned mask = (unsigned)_mm_movemask_epi8(m);

		if (mask != 0)
			return i + (size_t)__builtin_ctz(mask);
		i += 16;
	}
#else
	(void)a;
	(void)b;
	(void)c;
#endif
	while (i < end && !stop[(uint8_t)buf[i]])
		i++;
	return i;
}

/*
 * The unquoted-field scanner.  A row is scanned in 64-byte blocks: one
 * bitmask per block marks every delimiter, CR and LF, and each field end
 * is then one count-trailing-zeros away, so short fields (the common case:
 * numbers, dates, flags) cost a few instructions each.  The mask stays
 * valid for the whole row because the buffer does not change under it;
 * bits below the current position are ignored.
 */
struct blkscan {
	size_t base;		/* first byte of the block in mask */
	uint64_t mask;		/* stop bytes in buf[base..base+64) */
#ifdef __SSE2__
	__m128i vd, vn, vr;
#endif
};

static inline void
blk_init(struct blkscan *b, int delim)
{
	b->base = SIZE_MAX - 64;	/* no block yet */
	b->mask = 0;
#ifdef __SSE2__
	b->vd = _mm_set1_epi8((char)delim);
	b->vn = _mm_set1_epi8('\n');
	b->vr = _mm_set1_epi8('\r');
#else
	(void)delim;
#endif
}

/* First i >= from with t->stop_unq[buf[i]], or end. */
static inline size_t
blk_next(struct blkscan *b, const struct csv_tok *t, const char *buf,
    size_t i, size_t end)
{
#ifdef __SSE2__
	uint64_t m;
	int k;

	for (;;) {
		if (i - b->base >= 64) {
			if (end - i < 64)
				break;
			b->base = i;
			b->mask = 0;
			for (k = 0; k < 4; k++) {
				__m128i v = _mm_loadu_si128(
				    (const __m128i *)(buf + i + 16 * k));
				__m128i c = _mm_or_si128(_mm_or_si128(
				    _mm_cmpeq_epi8(v, b->vd),
				    _mm_cmpeq_epi8(v, b->vn)),
				    _mm_cmpeq_epi8(v, b->vr));

				b->mask |= (uint64_t)(unsigned)
				    _mm_movemask_epi8(c) << (16 * k);
			}
		}
		m = b->mask & (~(uint64_t)0 << (i - b->base));
		if (m != 0)
			return b->base + (size_t)__builtin_ctzll(m);
		i = b->base + 64;
	}
#else
	(void)b;
#endif
	while (i < end && !t->stop_unq[(uint8_t)buf[i]])
		i++;
	return i;
}

static void
tok_grow_fields(struct csv_tok *t)
{
	t->fcap *= 2;
	t->f = core_xreallocarray(t->f, t->fcap, sizeof(*t->f));
}

/* Copies the quoted content s[0..len) with doubled quotes made single
 * into the scratch buffer; returns the new length. */
static uint32_t
tok_unescape(struct csv_tok *t, const char *s, size_t len, size_t *off)
{
	size_t i, o;
	char q = (char)t->quote;

	if (t->scap - t->slen < len) {
		t->scap = t->slen + len > 2 * t->scap ? t->slen + len :
		    2 * t->scap;
		t->scratch = core_xrealloc(t->scratch, t->scap);
	}
	*off = t->slen;
	o = t->slen;
	for (i = 0; i < len; i++) {
		t->scratch[o++] = s[i];
		if (s[i] == q)
			i++;	/* the second of a pair */
	}
	len = o - t->slen;
	t->slen = o;
	return (uint32_t)len;
}

int
csv_tok_row(struct csv_tok *t, const char *buf, size_t *pos, size_t end,
    bool at_eof)
{
	const int delim = t->delim, quote = t->quote;
	size_t i = *pos, row = i, s, q, n, off;
	struct csv_field *f;
	struct blkscan bs;
	bool esc;
	char c;

	blk_init(&bs, delim);
	t->nf = 0;
	t->slen = 0;
	t->nbreaks = 0;
	t->syn = CSV_SYN_OK;
	for (;;) {
		if (t->nf == t->fcap)
			tok_grow_fields(t);
		f = &t->f[t->nf++];
		f->raw = i - row;
		if (i < end && (unsigned char)buf[i] == (unsigned)quote &&
		    quote >= 0) {
			s = q = i + 1;
			esc = false;
			for (;;) {
				q = scan3(buf, q, end, t->stop_q, quote, '\n',
				    '\r');
				if (q >= end) {
					if (!at_eof)
						return CSV_ROW_MORE;
					break;
				}
				c = buf[q];
				if ((unsigned char)c == (unsigned)quote) {
					if (q + 1 < end &&
					    (unsigned char)buf[q + 1] ==
					    (unsigned)quote) {
						esc = true;
						q += 2;
						continue;
					}
					if (q + 1 >= end && !at_eof)
						return CSV_ROW_MORE;
					break;
				}
				/* CR or LF inside quotes: data, but the
				 * physical line count goes on. */
				if (c == '\r' && q + 1 >= end && !at_eof)
					return CSV_ROW_MORE;
				if (c == '\r' && q + 1 < end &&
				    buf[q + 1] == '\n')
					q++;
				t->nbreaks++;
				q++;
			}
			if (q >= end) {
				/* End of the member inside quotes. */
				if (t->syn == CSV_SYN_OK) {
					t->syn = CSV_SYN_UNTERMINATED;
					t->syn_field = t->nf - 1;
				}
				f->p = buf + s;
				f->len = (uint32_t)(end - s);
				f->flags = CSV_F_QUOTED;
				i = end;
			} else {
				n = q - s;
				f->flags = CSV_F_QUOTED;
				if (esc) {
					f->len = tok_unescape(t, buf + s, n,
					    &off);
					f->p = (const char *)(uintptr_t)off;
					f->flags |= CSV_F_SCRATCH;
				} else {
					f->p = buf + s;
					f->len = (uint32_t)n;
				}
				i = q + 1;
				if (i < end && buf[i] != delim &&
				    buf[i] != '\n' && buf[i] != '\r') {
					if (t->syn == CSV_SYN_OK) {
						t->syn = CSV_SYN_AFTER_QUOTE;
						t->syn_field = t->nf - 1;
					}
					i = scan3(buf, i, end, t->stop_unq,
					    delim, '\n', '\r');
				}
			}
		} else {
			s = i;
			i = blk_next(&bs, t, buf, i, end);
			f->p = buf + s;
			f->len = (uint32_t)(i - s);
			f->flags = 0;
		}
		if (i >= end) {
			if (!at_eof)
				return CSV_ROW_MORE;
			t->row_end = end;
			break;
		}
		c = buf[i];
		if (c == delim) {
			i++;
			continue;
		}
		t->row_end = i;
		if (c == '\r') {
			if (i + 1 < end)
				i += buf[i + 1] == '\n' ? 2 : 1;
			else if (at_eof)
				i++;
			else
				return CSV_ROW_MORE;
		} else {
			i++;
		}
		break;
	}
	if (t->slen > 0) {
		for (n = 0; n < t->nf; n++)
			if (t->f[n].flags & CSV_F_SCRATCH) {
				t->f[n].p = t->scratch +
				    (uintptr_t)t->f[n].p;
				t->f[n].flags &= ~CSV_F_SCRATCH;
			}
	}
	*pos = i;
	return CSV_ROW_OK;
}

int
csv_skip_eol(const char *buf, size_t *pos, size_t end, bool at_eof)
{
	size_t i = *pos;

	if (i >= end)
		return 0;
	if (buf[i] == '\n') {
		*pos = i + 1;
		return 1;
	}
	if (buf[i] != '\r')
		return 0;
	if (i + 1 < end)
		*pos = i + (buf[i + 1] == '\n' ? 2 : 1);
	else if (at_eof)
		*pos = i + 1;
	else
		return 2;
	return 1;
}

uint64_t
csv_count_breaks(const char *p, size_t len)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < len; i++) {
		if (p[i] == '\n')
			n++;
		else if (p[i] == '\r' && (i + 1 == len || p[i + 1] != '\n'))
			n++;
	}
	return n;
}

/* Bytes of the UTF-8 sequence led by c, 0 when c cannot lead one. */
static size_t
utf8_seqlen(unsigned char c)
{
	if (c >= 0xc2 && c <= 0xdf)
		return 2;
	if (c >= 0xe0 && c <= 0xef)
		return 3;
	if (c >= 0xf0 && c <= 0xf4)
		return 4;
	return 0;
}

void
csv_excerpt(char *out, size_t cap, const char *p, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	const size_t lim = 60;
	size_t i = 0, o = 0, n;
	unsigned char c;

	while (i < len) {
		/* Room for the longest escape, "..." and the NUL. */
		if (i >= lim || o + 8 >= cap) {
			if (o + 4 <= cap) {
				memcpy(out + o, "...", 3);
				o += 3;
			}
			break;
		}
		c = (unsigned char)p[i];
		if (c >= 0x20 && c < 0x7f) {
			out[o++] = (char)c;
			i++;
		} else if (c == '\n' || c == '\r' || c == '\t') {
			out[o++] = '\\';
			out[o++] = c == '\n' ? 'n' : c == '\r' ? 'r' : 't';
			i++;
		} else if (c >= 0x80 && (n = utf8_seqlen(c)) != 0 &&
		    i + n <= len && core_utf8_valid_prefix(p + i, n) == n) {
			memcpy(out + o, p + i, n);
			o += n;
			i += n;
		} else {
			out[o++] = '\\';
			out[o++] = 'x';
			out[o++] = hex[c >> 4];
			out[o++] = hex[c & 15];
			i++;
		}
	}
	out[o] = '\0';
}

/* ---- batch pool ---- */

struct csv_pool {
	pthread_mutex_t mu;
	const struct core_schema *schema;
	struct core_batch *items;
	size_t n, cap;
};

struct csv_pool *
csv_pool_new(const struct core_schema *schema)
{
	struct csv_pool *p = core_xcalloc(1, sizeof(*p));

	pthread_mutex_init(&p->mu, NULL);
	p->schema = schema;
	return p;
}

void
csv_pool_free(struct csv_pool *p)
{
	size_t i;

	if (p == NULL)
		return;
	for (i = 0; i < p->n; i++)
		core_batch_release(&p->items[i]);
	free(p->items);
	pthread_mutex_destroy(&p->mu);
	free(p);
}

void
csv_pool_get(struct csv_pool *p, struct core_batch *out)
{
	pthread_mutex_lock(&p->mu);
	if (p->n > 0) {
		*out = p->items[--p->n];
		pthread_mutex_unlock(&p->mu);
		return;
	}
	pthread_mutex_unlock(&p->mu);
	core_batch_init(out, p->schema);
}

void
csv_pool_put(struct csv_pool *p, struct core_batch *b)
{
	if (b->cols == NULL)
		return;
	pthread_mutex_lock(&p->mu);
	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 16;
		p->items = core_xreallocarray(p->items, p->cap,
		    sizeof(*p->items));
	}
	b->nrows = 0;
	p->items[p->n++] = *b;
	pthread_mutex_unlock(&p->mu);
	memset(b, 0, sizeof(*b));
}

/* ---- results ---- */

void
csv_result_init(struct csv_result *res)
{
	memset(res, 0, sizeof(*res));
}

void
csv_result_clear(struct csv_result *res, struct csv_pool *pool)
{
	size_t i;

	for (i = res->emitted; i < res->nbatches; i++)
		csv_pool_put(pool, &res->batches[i]);
	res->nbatches = res->emitted = 0;
	res->nrecs = 0;
	res->alen = 0;
	res->stopped = false;
	res->nlines = res->nrows = 0;
	res->start = res->end = 0;
}

void
csv_result_release(struct csv_result *res)
{
	size_t i;

	for (i = res->emitted; i < res->nbatches; i++)
		core_batch_release(&res->batches[i]);
	free(res->batches);
	free(res->recs);
	free(res->arena);
	memset(res, 0, sizeof(*res));
}

static size_t
arena_add(struct csv_result *res, const char *p, size_t len)
{
	size_t off = res->alen;

	if (res->acap - res->alen < len) {
		res->acap = res->alen + len > 2 * res->acap ?
		    res->alen + len : 2 * res->acap;
		res->arena = core_xrealloc(res->arena, res->acap);
	}
	if (len > 0)
		memcpy(res->arena + off, p, len);
	res->alen += len;
	return off;
}

void
csv_result_add(struct csv_result *res, uint64_t line, uint32_t col,
    const char *what, const char *raw, size_t raw_len)
{
	struct csv_rec *rec;

	if (res->nrecs == res->rec_cap) {
		res->rec_cap = res->rec_cap ? 2 * res->rec_cap : 16;
		res->recs = core_xreallocarray(res->recs, res->rec_cap,
		    sizeof(*res->recs));
	}
	rec = &res->recs[res->nrecs++];
	rec->line = line;
	rec->col = col;
	rec->msg_len = strlen(what);
	rec->msg_off = arena_add(res, what, rec->msg_len);
	rec->raw_len = raw_len;
	rec->raw_off = arena_add(res, raw, raw_len);
}

static void
result_push(struct csv_result *res, struct core_batch *b)
{
	if (res->nbatches == res->batch_cap) {
		res->batch_cap = res->batch_cap ? 2 * res->batch_cap : 8;
		res->batches = core_xreallocarray(res->batches,
		    res->batch_cap, sizeof(*res->batches));
	}
	res->batches[res->nbatches++] = *b;
	memset(b, 0, sizeof(*b));
}

/* ---- rows into batches ---- */

void
csv_parser_init(struct csv_parser *ps, const struct csv_conf *conf,
    struct csv_pool *pool)
{
	memset(ps, 0, sizeof(*ps));
	ps->conf = conf;
	ps->pool = pool;
	csv_tok_init(&ps->tok, conf->delim, conf->quote);
}

void
csv_parser_release(struct csv_parser *ps)
{
	csv_tok_release(&ps->tok);
	if (ps->cur.cols != NULL)
		csv_pool_put(ps->pool, &ps->cur);
	memset(ps, 0, sizeof(*ps));
}

void
csv_parser_flush(struct csv_parser *ps, struct csv_result *res)
{
	if (ps->cur.cols != NULL && ps->cur.nrows > 0) {
		result_push(res, &ps->cur);
		ps->cur_raw = 0;
	}
}

static void
parser_start_batch(struct csv_parser *ps)
{
	csv_pool_get(ps->pool, &ps->cur);
	core_batch_reserve(&ps->cur, ps->conf->batch_rows, 64 * 1024);
	core_batch_reset(&ps->cur);
	ps->cur_raw = 0;
}

bool
csv_is_null_string(const char *p, size_t len, const char *const *nulls,
    size_t nnulls)
{
	size_t i;

	for (i = 0; i < nnulls; i++)
		if (strlen(nulls[i]) == len && memcmp(nulls[i], p, len) == 0)
			return true;
	return false;
}

static inline bool
is_ascii(const char *p, size_t len)
{
	uint64_t acc = 0, w;

	while (len >= 8) {
		memcpy(&w, p, 8);
		acc |= w;
		p += 8;
		len -= 8;
	}
	while (len > 0) {
		acc |= (uint8_t)*p++;
		len--;
	}
	return (acc & 0x8080808080808080ull) == 0;
}

/* Why a row failed: kinds of csv_put_row's answer. */
enum {
	PUT_OK = 0,
	PUT_TYPE,	/* value does not fit its column */
	PUT_UTF8,	/* invalid UTF-8 in a string column */
};

/* Converts the tokenized row into slot `row` of b.  Returns PUT_OK, or
 * a failure kind with *bad set to the field index. */
static int
put_row(const struct csv_conf *cf, const struct csv_tok *t,
    struct core_batch *b, uint32_t row, uint32_t *bad)
{
	const uint32_t ncols = cf->ncols;
	const uint32_t cap = cf->batch_rows;
	const struct csv_field *f = t->f;
	struct core_column *c;
	uint32_t j, len;
	const char *p;
	int32_t off;
	int rc;

	for (j = 0; j < ncols; j++) {
		c = &b->cols[j];
		p = f[j].p;
		len = f[j].len;
		if (len == 0) {
			if ((f[j].flags & CSV_F_QUOTED) &&
			    c->type.id == CORE_TYPE_STRING)
				goto value;
			goto null;
		}
		if (cf->nnulls > 0 && !(f[j].flags & CSV_F_QUOTED) &&
		    csv_is_null_string(p, len, cf->nulls, cf->nnulls))
			goto null;
value:
		rc = 0;
		switch (c->type.id) {
		case CORE_TYPE_BOOL:
			rc = core_parse_bool(p, len,
			    (uint8_t *)c->values + row);
			break;
		case CORE_TYPE_INT32:
			rc = core_parse_int32(p, len,
			    (int32_t *)c->values + row);
			break;
		case CORE_TYPE_INT64:
			rc = core_parse_int64(p, len,
			    (int64_t *)c->values + row);
			break;
		case CORE_TYPE_FLOAT64:
			rc = core_parse_float64(p, len,
			    (double *)c->values + row);
			break;
		case CORE_TYPE_DECIMAL:
			rc = core_parse_decimal(p, len, c->type.precision,
			    c->type.scale, (int64_t *)c->values + row);
			break;
		case CORE_TYPE_DATE:
			rc = core_parse_date(p, len,
			    (int32_t *)c->values + row);
			break;
		case CORE_TYPE_TIMESTAMP:
			rc = core_parse_timestamp(p, len,
			    (int64_t *)c->values + row);
			break;
		case CORE_TYPE_STRING:
			if (!is_ascii(p, len) &&
			    core_utf8_valid_prefix(p, len) != len) {
				*bad = j;
				return PUT_UTF8;
			}
			off = c->offsets[row];
			/* The batch is closed before its raw bytes could
			 * pass INT32_MAX, so off + len fits. */
			if ((size_t)off + len > c->values_cap)
				core_col_reserve_bytes(c, (size_t)off, len);
			memcpy((char *)c->values + off, p, len);
			c->offsets[row + 1] = off + (int32_t)len;
			break;
		}
		if (rc != 0) {
			*bad = j;
			return PUT_TYPE;
		}
		if (c->validity != NULL)
			c->validity[row >> 3] |= (uint8_t)(1u << (row & 7));
		continue;
null:
		if (c->validity == NULL)
			core_col_set_null(c, row, cap);
		else
			c->validity[row >> 3] &= (uint8_t)~(1u << (row & 7));
		switch (c->type.id) {
		case CORE_TYPE_BOOL:
			((uint8_t *)c->values)[row] = 0;
			break;
		case CORE_TYPE_INT32:
		case CORE_TYPE_DATE:
			((int32_t *)c->values)[row] = 0;
			break;
		case CORE_TYPE_STRING:
			c->offsets[row + 1] = c->offsets[row];
			break;
		default:
			((int64_t *)c->values)[row] = 0;
			break;
		}
	}
	return PUT_OK;
}

/* Records why the row at buf[row] (tokenized in ps->tok) is bad. */
static void
record_bad(struct csv_parser *ps, const char *buf, size_t row,
    uint32_t fieldno, const char *what, const char *text, size_t tlen,
    const char *suffix, struct csv_result *res)
{
	const struct csv_tok *t = &ps->tok;
	char ex[256], msg[640];
	size_t raw = fieldno < t->nf ? t->f[fieldno].raw :
	    t->row_end - row;

	csv_excerpt(ex, sizeof(ex), text, tlen);
	snprintf(msg, sizeof(msg), "%s (%s)%s", what, ex, suffix);
	csv_result_add(res, ps->line + csv_count_breaks(buf + row, raw),
	    fieldno + 1, msg, ps->conf->rejecting ? buf + row : "",
	    ps->conf->rejecting ? t->row_end - row : 0);
}

/* Checks the tokenized row at buf[row] and puts it into the batch.
 * Returns true when it was good. */
static bool
take_row(struct csv_parser *ps, const char *buf, size_t row,
    struct csv_result *res)
{
	const struct csv_conf *cf = ps->conf;
	const struct csv_tok *t = &ps->tok;
	char what[512], ex[256], tname[CORE_TYPE_NAME_MAX];
	const struct core_field *fd = NULL;
	const struct csv_field *f;
	uint32_t bad = 0;
	size_t rawlen = t->row_end - row;

	if (t->syn != CSV_SYN_OK) {
		f = &t->f[t->syn_field];
		record_bad(ps, buf, row, (uint32_t)t->syn_field,
		    t->syn == CSV_SYN_UNTERMINATED ? "unterminated quote" :
		    "unexpected text after closing quote", buf + row + f->raw,
		    t->row_end - row - f->raw, "", res);
		return false;
	}
	if (t->nf != cf->ncols) {
		snprintf(what, sizeof(what), "row has %zu field%s, expected %u",
		    t->nf, t->nf == 1 ? "" : "s", cf->ncols);
		record_bad(ps, buf, row,
		    t->nf < cf->ncols ? (uint32_t)t->nf - 1 : cf->ncols, what,
		    buf + row, rawlen, "", res);
		return false;
	}
	if (rawlen > INT32_MAX) {
		record_bad(ps, buf, row, 0, "row longer than 2 GiB",
		    buf + row, rawlen, "", res);
		return false;
	}
	if (ps->cur.cols == NULL)
		parser_start_batch(ps);
	else if (ps->cur_raw + rawlen > INT32_MAX) {
		/* int32 string offsets: close the batch early. */
		csv_parser_flush(ps, res);
		parser_start_batch(ps);
	}
	switch (put_row(cf, t, &ps->cur, ps->cur.nrows, &bad)) {
	case PUT_OK:
		ps->cur.nrows++;
		ps->cur_raw += rawlen;
		res->nrows++;
		if (ps->cur.nrows == cf->batch_rows)
			csv_parser_flush(ps, res);
		return true;
	case PUT_UTF8:
		fd = &cf->schema->fields[bad];
		csv_excerpt(ex, sizeof(ex), fd->name, strlen(fd->name));
		snprintf(what, sizeof(what), "invalid UTF-8 in column %s", ex);
		break;
	default:
		fd = &cf->schema->fields[bad];
		csv_excerpt(ex, sizeof(ex), fd->name, strlen(fd->name));
		snprintf(what, sizeof(what),
		    "value does not fit column %s of type %s", ex,
		    core_type_name(fd->type, tname));
		break;
	}
	f = &t->f[bad];
	/* An inferred type may just have met a value the sample did not
	 * show; say how to fix that. */
	record_bad(ps, buf, row, bad, what, f->p, f->len,
	    !cf->pinned[bad] && fd->type.id != CORE_TYPE_STRING ?
	    "; pin the type with --schema" : "", res);
	return false;
}

int
csv_parse(struct csv_parser *ps, const char *buf, size_t *posp,
    size_t limit, size_t end, bool at_eof, struct csv_result *res)
{
	const struct csv_conf *cf = ps->conf;
	size_t pos = *posp, row;
	uint64_t nl;

	while (pos < limit) {
		row = pos;
		if (cf->skip_blank && (buf[pos] == '\n' || buf[pos] == '\r')) {
			if (csv_skip_eol(buf, &pos, end, at_eof) != 1) {
				*posp = row;
				return CSV_PARSE_MORE;
			}
			ps->line++;
			res->nlines++;
			continue;
		}
		if (csv_tok_row(&ps->tok, buf, &pos, end, at_eof) ==
		    CSV_ROW_MORE) {
			*posp = row;
			return CSV_PARSE_MORE;
		}
		nl = 1 + ps->tok.nbreaks;
		if (!take_row(ps, buf, row, res)) {
			ps->nrejected++;
			if (!cf->rejecting || ps->nrejected > cf->max_errors) {
				ps->line += nl;
				res->nlines += nl;
				res->stopped = true;
				*posp = pos;
				return CSV_PARSE_STOP;
			}
		}
		ps->line += nl;
		res->nlines += nl;
	}
	*posp = pos;
	return CSV_PARSE_DONE;
}
