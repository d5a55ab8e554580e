/*
 * core_csv_parse.c - the CSV tokenizer and the rows -> columns converter.
 *
 * This is the hot loop of csv2col.  A row is tokenized into (pointer,
 * length) fields that point into the input wherever possible: only a
 * quoted field with doubled quotes is copied, into a scratch buffer reused
 * row after row.  The fields are then converted straight into the column
 * buffers of the batch being filled with the core_value.h parsers (and,
 * for blocks of rows, faster equivalents of them for the usual shapes of
 * values).  No allocation happens per field or per row once the buffers
 * have grown to the data.
 *
 * Rows are tokenized a block at a time and converted column by column
 * (see "Blocks" below); anything unusual goes through the row by row
 * path, which is the reference: the blocks give exactly its batches,
 * errors and line numbers.
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
 * offsets of the failed row's slot are rewritten by the next row).  A
 * block is all or nothing the same way, and touches no validity bit until
 * it is taken.
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

/* Room for at least need fields. */
static void
tok_grow_fields(struct csv_tok *t, size_t need)
{
	t->f = core_grow(t->f, &t->fcap, need, sizeof(*t->f), 64);
}

/* Copies the quoted content s[0..len) with doubled quotes made single
 * into the scratch buffer; returns the new length. */
static uint32_t
tok_unescape(struct csv_tok *t, const char *s, size_t len, size_t *off)
{
	size_t i, o;
	char q = (char)t->quote;

	t->scratch = core_grow(t->scratch, &t->scap, t->slen + len, 1, 1);
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

/* Points the fields f[0..n) that hold scratch offsets at the scratch
 * buffer (it may have moved while they were collected). */
static void
tok_resolve(struct csv_tok *t, struct csv_field *f, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (f[i].flags & CSV_F_SCRATCH) {
			f[i].p = t->scratch + (uintptr_t)f[i].p;
			f[i].flags &= ~CSV_F_SCRATCH;
		}
}

/*
 * csv_tok_row's work, with the row's fields stored from t->f[base] on
 * (t->nf counts them) and unescaped values appended to the scratch buffer
 * without resetting it or resolving their offsets: the block parser
 * (csv_parse) collects many rows side by side this way.  bs may come from
 * the row before in the same buffer: its mask of the bytes this row
 * starts with is still good.
 */
static int
tok_row(struct csv_tok *t, struct blkscan *bs, size_t base, const char *buf,
    size_t *pos, size_t end, bool at_eof)
{
	const int delim = t->delim, quote = t->quote;
	size_t i = *pos, row = i, s, q, n, off;
	struct csv_field *f;
	bool esc;
	char c;

	t->nf = 0;
	t->nbreaks = 0;
	t->syn = CSV_SYN_OK;
	for (;;) {
		if (base + t->nf == t->fcap)
			tok_grow_fields(t, base + t->nf + 1);
		f = &t->f[base + t->nf++];
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
					f->flags |= CSV_F_SCRATCH |
					    CSV_F_COPIED;
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
			i = blk_next(bs, t, buf, i, end);
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
	*pos = i;
	return CSV_ROW_OK;
}

int
csv_tok_row(struct csv_tok *t, const char *buf, size_t *pos, size_t end,
    bool at_eof)
{
	struct blkscan bs;
	int rc;

	blk_init(&bs, t->delim);
	t->slen = 0;
	rc = tok_row(t, &bs, 0, buf, pos, end, at_eof);
	if (rc == CSV_ROW_OK && t->slen > 0)
		tok_resolve(t, t->f, t->nf);
	return rc;
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

int
csv_skip_line(const char *buf, size_t *pos, size_t end, bool at_eof)
{
	size_t i = *pos;
	int k;

	while (i < end && buf[i] != '\n' && buf[i] != '\r')
		i++;
	if (i == end) {
		if (!at_eof)
			return 2;
		*pos = end;
		return 1;
	}
	if ((k = csv_skip_eol(buf, &i, end, at_eof)) != 1)
		return k;
	*pos = i;
	return 1;
}

void
csv_trim_fields(struct csv_tok *t)
{
	struct csv_field *f;
	size_t j;

	for (j = 0; j < t->nf; j++) {
		f = &t->f[j];
		if (f->flags & CSV_F_QUOTED)
			continue;
		while (f->len > 0 && (f->p[0] == ' ' || f->p[0] == '\t')) {
			f->p++;
			f->len--;
		}
		while (f->len > 0 && (f->p[f->len - 1] == ' ' ||
		    f->p[f->len - 1] == '\t'))
			f->len--;
	}
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
	p->items = core_grow(p->items, &p->cap, p->n + 1, sizeof(*p->items),
	    16);
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
	res->nlines = res->nrows = res->ncomments = 0;
	res->nlines = res->nrows = 0;
	res->npadded = res->ntrailing = 0;
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

	res->arena = core_grow(res->arena, &res->acap, res->alen + len, 1, 1);
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

	res->recs = core_grow(res->recs, &res->rec_cap, res->nrecs + 1,
	    sizeof(*res->recs), 16);
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
	res->batches = core_grow(res->batches, &res->batch_cap,
	    res->nbatches + 1, sizeof(*res->batches), 8);
	res->batches[res->nbatches++] = *b;
	memset(b, 0, sizeof(*b));
}

/* ---- rows into batches ---- */

static int isa_pick(int isa);

void
csv_parser_init(struct csv_parser *ps, const struct csv_conf *conf,
    struct csv_pool *pool)
{
	memset(ps, 0, sizeof(*ps));
	ps->conf = conf;
	ps->pool = pool;
	ps->isa = isa_pick(conf->isa);
	csv_tok_init(&ps->tok, conf->delim, conf->quote);
}

void
csv_parser_release(struct csv_parser *ps)
{
	csv_tok_release(&ps->tok);
	free(ps->bnull);
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
	core_batch_reserve(&ps->cur, ps->conf->batch_rows,
	    ps->conf->str_reserve ? ps->conf->str_reserve : CSV_STR_RESERVE);
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

/* The batch's columns, and the field batch column k is made from. */
static inline uint32_t
conf_nout(const struct csv_conf *cf)
{
	return cf->sel != NULL ? cf->nsel : cf->ncols;
}

static inline uint32_t
conf_field(const struct csv_conf *cf, uint32_t k)
{
	return cf->sel != NULL ? cf->sel[k] : k;
}

/* Raw row bytes past which a batch is closed early. */
static inline size_t
batch_bytes(const struct csv_conf *cf)
{
	return cf->batch_bytes > 0 && cf->batch_bytes < INT32_MAX ?
	    cf->batch_bytes : INT32_MAX;
}

/*
 * Fast paths for the usual shapes of values, for the block loops.  Each
 * takes only text it is sure about and gives exactly what the core_value.h
 * parser gives for it; anything else (long, odd or bad values) goes to
 * that parser, which has the last word.  test_csv.c checks the two agree.
 * The word-at-a-time ones read whole 8-byte words past the value's end,
 * so they only run on values with FAST_READ readable input bytes after
 * their start (not on unescaped copies in the scratch buffer).
 */
#define FAST_READ 32
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define FAST_WORDS 1
#endif

static inline bool
fast_ok(const struct csv_field *f, const char *bufend)
{
	return !(f->flags & CSV_F_COPIED) &&
	    (size_t)(bufend - f->p) >= FAST_READ;
}

#ifdef FAST_WORDS
#define ONES(b) (UINT64_C(0x0101010101010101) * (b))

/* The value of the n (1..8) decimal digits in the low bytes of w (the
 * first digit lowest); false when one is not a digit.  The bytes above
 * them are ignored. */
static inline bool
fast_digits_word(uint64_t w, size_t n, uint64_t *out)
{
	unsigned sh = 8 * (8 - (unsigned)n);

	/* Move the digits to the top and fill the bytes below with '0's:
	 * leading zeros, so eight digits. */
	if (sh > 0)
		w = w << sh | ONES('0') >> (64 - sh);
	/* Every byte 0x30..0x39: high nibble 3, and still 3 after +6. */
	if (((w & ONES(0xf0)) | ((w + ONES(6)) & ONES(0xf0)) >> 4) !=
	    ONES(0x33))
		return false;
	w -= ONES('0');
	/* Neighbours combine, the more significant one in the lower lane:
	 * pairs (< 100), fours (< 10^4), then all eight (< 10^8). */
	w = (w * 10 + (w >> 8)) & UINT64_C(0x00ff00ff00ff00ff);
	w = (w * 100 + (w >> 16)) & UINT64_C(0x0000ffff0000ffff);
	w = (w * 10000 + (w >> 32)) & UINT64_C(0xffffffff);
	*out = w;
	return true;
}

/* The value of the n (1..8) decimal digits at s; false when one is not a
 * digit.  Reads s[0..8). */
static inline bool
fast_digits8(const char *s, size_t n, uint64_t *out)
{
	uint64_t w;

	memcpy(&w, s, 8);
	return fast_digits_word(w, n, out);
}

/* [+-]?[0-9]{1,16}: the sign and the magnitude. */
static inline bool
fast_int(const char *p, size_t len, bool *neg, uint64_t *mag)
{
	uint64_t hi, lo;

	*neg = false;
	if (len > 0 && (*p == '-' || *p == '+')) {
		*neg = *p == '-';
		p++;
		len--;
	}
	if (len == 0 || len > 16)
		return false;
	if (len <= 8)
		return fast_digits8(p, len, mag);
	if (!fast_digits8(p, len - 8, &hi) ||
	    !fast_digits8(p + len - 8, 8, &lo))
		return false;
	*mag = hi * 100000000 + lo;
	return true;
}

/* [+-]?[0-9]{0,8}(\.[0-9]{0,8})? that fits decimal(precision,scale). */
static inline bool
fast_decimal(const char *p, size_t len, unsigned precision, unsigned scale,
    int64_t *out)
{
	uint64_t w, z, ip = 0, fp = 0, v;
	size_t d, nfrac;
	bool neg = false;

	if (len > 0 && (*p == '-' || *p == '+')) {
		neg = *p == '-';
		p++;
		len--;
	}
	if (len == 0 || len > 17 || precision > 18 || scale > precision)
		return false;
	/* The first '.' among the first 8 bytes: a zero byte of w ^ dots
	 * (the lowest flagged byte is exact). */
	memcpy(&w, p, 8);
	w ^= ONES('.');
	z = (w - ONES(1)) & ~w & ONES(0x80);
	if (len < 8)
		z &= (UINT64_C(1) << (8 * len)) - 1;
	if (z != 0)
		d = (size_t)__builtin_ctzll(z) / 8;
	else if (len <= 8)
		d = len;
	else if (p[8] == '.')
		d = 8;
	else
		return false;
	nfrac = d < len ? len - d - 1 : 0;
	if (nfrac > scale || nfrac > 8 || d + nfrac == 0)
		return false;
	if (len <= 8) {
		/* The usual shape (1234.56, 0.07): the word holds it all.
		 * Close the gap of the '.' and convert the digits at once,
		 * ip * 10^nfrac + fp; ip < 10^(p-s) exactly when that is
		 * below 10^(p-s+nfrac), as fp < 10^nfrac. */
		w ^= ONES('.');
		if (d < len) {
			uint64_t low = (UINT64_C(1) << (8 * d)) - 1; /* d < 8 */

			w = (w & low) | ((w >> 8) & ~low);
			len--;
		}
		if (!fast_digits_word(w, len, &v) ||
		    v >= core_pow10_u64[precision - scale + nfrac])
			return false;
		v *= core_pow10_u64[scale - nfrac];
		*out = neg ? -(int64_t)v : (int64_t)v;
		return true;
	}
	if ((d > 0 && !fast_digits8(p, d, &ip)) ||
	    (nfrac > 0 && !fast_digits8(p + d + 1, nfrac, &fp)))
		return false;
	if (ip >= core_pow10_u64[precision - scale])
		return false;
	/* < 10^precision <= 10^18: no overflow. */
	v = (ip * core_pow10_u64[nfrac] + fp) *
	    core_pow10_u64[scale - nfrac];
	*out = neg ? -(int64_t)v : (int64_t)v;
	return true;
}
#endif

/* YYYY-MM-DD, a real day of years 0001..9999: days since 1970-01-01. */
static inline bool
fast_date(const char *s, size_t len, int32_t *out)
{
	unsigned y, m, d, yy, doy;
	bool leap;

	if (len != 10)
		return false;
#ifdef FAST_WORDS
	{
		/* Bytes 4 and 7 of "YYYY-MM-". */
		const uint64_t dash = UINT64_C(0xff0000ff00000000);
		uint64_t w, x;
		uint16_t h;

		memcpy(&w, s, 8);
		memcpy(&h, s + 8, 2);
		if ((w & dash) != (ONES('-') & dash))
			return false;
		/* YYYYMMDD in one word, then as fast_digits_word: every
		 * byte a digit, pairs combined (YY, YY, MM, DD). */
		x = (w & UINT64_C(0xffffffff)) |
		    (w >> 8 & UINT64_C(0xffff00000000)) | (uint64_t)h << 48;
		if (((x & ONES(0xf0)) | ((x + ONES(6)) & ONES(0xf0)) >> 4) !=
		    ONES(0x33))
			return false;
		x -= ONES('0');
		x = (x * 10 + (x >> 8)) & UINT64_C(0x00ff00ff00ff00ff);
		y = (unsigned)(x & 0xff) * 100 + (unsigned)(x >> 16 & 0xff);
		m = (unsigned)(x >> 32 & 0xff);
		d = (unsigned)(x >> 48);
	}
#else
	{
		unsigned d0, d1, d2, d3, d5, d6, d8, d9;

		d0 = (unsigned)(unsigned char)s[0] - '0';
		d1 = (unsigned)(unsigned char)s[1] - '0';
		d2 = (unsigned)(unsigned char)s[2] - '0';
		d3 = (unsigned)(unsigned char)s[3] - '0';
		d5 = (unsigned)(unsigned char)s[5] - '0';
		d6 = (unsigned)(unsigned char)s[6] - '0';
		d8 = (unsigned)(unsigned char)s[8] - '0';
		d9 = (unsigned)(unsigned char)s[9] - '0';
		if ((d0 > 9) | (d1 > 9) | (d2 > 9) | (d3 > 9) | (d5 > 9) |
		    (d6 > 9) | (d8 > 9) | (d9 > 9) | (s[4] != '-') |
		    (s[7] != '-'))
			return false;
		y = d0 * 1000 + d1 * 100 + d2 * 10 + d3;
		m = d5 * 10 + d6;
		d = d8 * 10 + d9;
	}
#endif
	if (y == 0 || m - 1 > 11 || d == 0)
		return false;
	/* Days in month m, two bits a month above 28, with no table
	 * load: 3 0 3 2 3 2 3 3 2 3 2 3. */
	leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
	if (d > 28 + (0x3bbeeccu >> (2 * m) & 3) + (unsigned)(m == 2 && leap))
		return false;
	/* Days from civil with the year starting in March; years from 0
	 * on, so the 400-year eras fold into plain divisions. */
	yy = y - (m <= 2);
	doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	*out = (int32_t)(yy * 365 + yy / 4 - yy / 100 + yy / 400 + doy) -
	    719468;
	return true;
}

/* Why a row failed: kinds of put_row's answer. */
enum {
	PUT_OK = 0,
	PUT_TYPE,	/* value does not fit its column */
	PUT_UTF8,	/* invalid UTF-8 in a string column */
};

/* Converts the selected fields of the tokenized row into slot `row` of
 * b.  Returns PUT_OK, or a failure kind with *bad set to the field
 * index. */
static int
put_row(const struct csv_conf *cf, const struct csv_tok *t,
    struct core_batch *b, uint32_t row, uint32_t *bad)
{
	const uint32_t cap = cf->batch_rows;
	const struct csv_field *f = t->f;
	struct core_column *c;
	uint32_t j, k, len;
	const char *p;
	int32_t off;
	int rc;
	char nb[96];
	long nl;

	for (j = 0; j < cf->ncols; j++) {
		if (cf->sel == NULL)
			k = j;
		else if (cf->colno[j] == 0)
			continue;
		else
			k = cf->colno[j] - 1;
		c = &b->cols[k];
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
		/* Only on with --decimal-comma or --thousands, which parse
		 * row by row (csv_parse): the block path never sees them. */
		if (cf->numfmt_on && (c->type.id == CORE_TYPE_INT32 ||
		    c->type.id == CORE_TYPE_INT64 ||
		    c->type.id == CORE_TYPE_FLOAT64 ||
		    core_type_is_decimal(c->type.id))) {
			nl = csv_num_rewrite(&cf->numfmt, p, len, nb,
			    sizeof(nb));
			if (nl < 0) {
				*bad = j;
				return PUT_TYPE;
			}
			p = nb;
			len = (uint32_t)nl;
		}
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
		case CORE_TYPE_DECIMAL128: {
			core_i128 v = 0;

			rc = core_parse_decimal128(p, len, c->type.precision,
			    c->type.scale, &v);
			core_i128_store((char *)c->values + 16 * (size_t)row,
			    v);
			break;
		}
		case CORE_TYPE_DATE:
			if (cf->datefmts != NULL && cf->datefmts[j] != NULL) {
				int64_t dv = 0;

				rc = csv_datefmt_parse(cf->datefmts[j], p, len,
				    false, &dv);
				((int32_t *)c->values)[row] = (int32_t)dv;
				break;
			}
			rc = core_parse_date(p, len,
			    (int32_t *)c->values + row);
			break;
		case CORE_TYPE_TIMESTAMP:
			if (cf->tsfmt != NULL)
				rc = csv_datefmt_parse(cf->tsfmt, p, len,
				    true, (int64_t *)c->values + row);
			else
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
		case CORE_TYPE_DECIMAL128:
			core_i128_store((char *)c->values + 16 * (size_t)row,
			    0);
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

/* The ragged rows the reader accepts (core_csv.h): one extra empty
 * unquoted last field is dropped; with null_padding, missing fields are
 * added as empty unquoted ones (NULL).  Returns 1 for dropped, 2 for
 * padded, 0 when the row stays bad.  Only rows whose count is wrong come
 * here, so this costs nothing on a well-formed file. */
static int
fix_count(const struct csv_conf *cf, struct csv_tok *t)
{
	size_t j;

	if (t->nf == (size_t)cf->ncols + 1 && t->f[t->nf - 1].len == 0 &&
	    !(t->f[t->nf - 1].flags & CSV_F_QUOTED)) {
		t->nf--;
		return 1;
	}
	if (!cf->null_padding || t->nf > cf->ncols)
		return 0;
	tok_grow_fields(t, cf->ncols);
	for (j = t->nf; j < cf->ncols; j++) {
		t->f[j].p = "";
		t->f[j].len = 0;
		t->f[j].flags = 0;
		t->f[j].raw = t->f[t->nf - 1].raw;
	}
	t->nf = cf->ncols;
	return 2;
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
	int fixed = 0;

	if (t->syn != CSV_SYN_OK) {
		f = &t->f[t->syn_field];
		record_bad(ps, buf, row, (uint32_t)t->syn_field,
		    t->syn == CSV_SYN_UNTERMINATED ? "unterminated quote" :
		    "unexpected text after closing quote", buf + row + f->raw,
		    t->row_end - row - f->raw, "", res);
		return false;
	}
	if (t->nf != cf->ncols &&
	    (fixed = fix_count(cf, &ps->tok)) == 0) {
		snprintf(what, sizeof(what), "row has %zu field%s, expected %u",
		    t->nf, t->nf == 1 ? "" : "s", cf->ncols);
		record_bad(ps, buf, row,
		    t->nf < cf->ncols ? (uint32_t)t->nf - 1 : cf->ncols, what,
		    buf + row, rawlen, "", res);
		return false;
	}
	if (cf->trim)
		csv_trim_fields(&ps->tok);
	if (rawlen > INT32_MAX) {
		record_bad(ps, buf, row, 0, "row longer than 2 GiB",
		    buf + row, rawlen, "", res);
		return false;
	}
	if (ps->cur.cols == NULL)
		parser_start_batch(ps);
	else if (ps->cur.nrows > 0 && ps->cur_raw + rawlen > batch_bytes(cf)) {
		/* int32 string offsets: close the batch early. */
		csv_parser_flush(ps, res);
		parser_start_batch(ps);
	}
	switch (put_row(cf, t, &ps->cur, ps->cur.nrows, &bad)) {
	case PUT_OK:
		ps->cur.nrows++;
		ps->cur_raw += rawlen;
		res->nrows++;
		res->ntrailing += fixed == 1;
		res->npadded += fixed == 2;
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
	    cf->pin_hint : "", res);
	return false;
}

/* The row by row parse: each row is tokenized, checked and converted
 * before the next.  csv_parse's reference and its way through anything
 * unusual.  With left, stops after that many rows (counting it down). */
static int
parse_rows(struct csv_parser *ps, const char *buf, size_t *posp,
    size_t limit, size_t end, bool at_eof, uint32_t *left,
    struct csv_result *res)
{
	const struct csv_conf *cf = ps->conf;
	size_t pos = *posp, row;
	uint64_t nl;

	while (pos < limit && (left == NULL || *left > 0)) {
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
		if (cf->comment > 0 && buf[pos] == (char)cf->comment) {
			if (csv_skip_line(buf, &pos, end, at_eof) != 1) {
				*posp = row;
				return CSV_PARSE_MORE;
			}
			ps->line++;
			res->nlines++;
			res->ncomments++;
			continue;
		}
		if (csv_tok_row(&ps->tok, buf, &pos, end, at_eof) ==
		    CSV_ROW_MORE) {
			*posp = row;
			return CSV_PARSE_MORE;
		}
		nl = 1 + ps->tok.nbreaks;
		if (left != NULL)
			(*left)--;
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

/*
 * Blocks.  Converting row by row pays, for every field, a branch on its
 * column's type and the reload of that column's state; on narrow rows of
 * short values that costs as much as the parsing.  So csv_parse first
 * tokenizes a block of rows, their fields side by side in the tokenizer's
 * field array (row r's field j at f[r * ncols + j]), then converts the
 * block column by column, one loop per type.
 *
 * A block holds only rows the row path would take without a word: no
 * syntax error, the right field count, and raw bytes that leave the batch
 * open.  It never goes past the batch's last row or the parse limit.  Any
 * other row ends the block and goes through the row path on its own.
 *
 * A value that does not convert makes the whole block go through the row
 * path again, which finds the first bad row and says why, exactly as it
 * would have without blocks.  For that, a conversion that fails must leave
 * nothing the row path could see: values and string offsets are written
 * only to slots at or past cur.nrows (rewritten by the rows that are
 * taken, never emitted otherwise), and the NULLs of the block are
 * collected in bnull and put into the validity bitmaps only once every
 * column converted.
 */
#define CSV_BLOCK_ROWS 128		/* rows per block */
#define CSV_BLOCK_MAX 256		/* most rows per block (knob) */
#define CSV_BLOCK_FIELDS 8192		/* fields per block, so wide rows
					   make shorter blocks */
#define BLOCK_WORDS (CSV_BLOCK_MAX / 64)
#define CSV_BY_ROW_AFTER_BAD 8		/* blocks' worth of rows parsed
					   row by row after a bad block */

static uint32_t
block_rows(const struct csv_conf *cf)
{
	uint32_t b;

	if (cf->block_rows > 0)
		return cf->block_rows < CSV_BLOCK_MAX ? cf->block_rows :
		    CSV_BLOCK_MAX;
	b = CSV_BLOCK_FIELDS / cf->ncols;
	if (b > CSV_BLOCK_ROWS)
		b = CSV_BLOCK_ROWS;
	return b > 0 ? b : 1;
}

/* What block_tok collected. */
struct block {
	uint32_t nrows;		/* rows tokenized into the block */
	uint64_t nlines;	/* physical lines they and the blank lines
				   among them span */
	size_t raw;		/* their raw bytes */
	uint64_t ncomments;	/* comment lines among them */
	size_t from, to;	/* the input they span, buf[from..to) */
};

/* Why block_tok stopped. */
enum {
	BLOCK_END,		/* the block is full, or limit reached */
	BLOCK_MORE,		/* the row at *pos needs more data */
	BLOCK_ROW,		/* the row at *pos is for the row path */
};

#ifdef __SSE2__
/*
 * Plain rows.  Most rows have no quoted field, and block_tok first tries
 * this tokenizer on them, which sees a row as bits: for each 64-byte
 * window of the input it makes masks of the stop bytes (delimiter, CR,
 * LF), of the line ends and of the quote bytes; then every field end is a
 * count of trailing zeros, and whether it ends the row or a quoted field
 * starts are bit tests, not loads of bytes just scanned.  A row it is not
 * sure of (one with a quote byte, another field count, a CR that may be
 * followed by an LF not yet there, bytes too near the end of the data for
 * whole windows) is left to tok_row, which gives the same fields for the
 * others.
 *
 * The masks come from 16-byte vectors (SSE2, every x86-64), or where the
 * CPU has them from 32-byte (AVX2) or 64-byte ones (AVX-512BW): block_tok
 * is compiled once for each (block_tok_sse2 and its siblings), chosen per
 * parser (csv_conf.isa), and the three give the same masks.
 */
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define CSV_WIDE 1
#define TARGET_AVX2 __attribute__((target("avx2,bmi,bmi2,popcnt")))
#define TARGET_AVX512 \
	__attribute__((target("avx2,avx512f,avx512bw,bmi,bmi2,popcnt")))
#endif

struct plainscan {
	size_t base;		/* the window: buf[base..base+64) */
	uint64_t stop, eol, quote;	/* its masks */
	bool quoting;
	char delim, qbyte;	/* qbyte: the quote byte, or delim */
	__m128i vd, vn, vr, vq;
};

static void
plain_init(struct plainscan *s, int delim, int quote)
{
	s->base = SIZE_MAX - 64;	/* no window yet */
	s->stop = s->eol = s->quote = 0;
	s->quoting = quote >= 0;
	s->delim = (char)delim;
	s->qbyte = (char)(quote >= 0 ? quote : delim);
	s->vd = _mm_set1_epi8(s->delim);
	s->vn = _mm_set1_epi8('\n');
	s->vr = _mm_set1_epi8('\r');
	s->vq = _mm_set1_epi8(s->qbyte);
}

static inline void
plain_masks_sse2(struct plainscan *s, const char *p)
{
	uint64_t stop = 0, eol = 0, quote = 0;
	int k;

	for (k = 0; k < 4; k++) {
		__m128i v = _mm_loadu_si128((const __m128i *)(p + 16 * k));
		__m128i n = _mm_or_si128(_mm_cmpeq_epi8(v, s->vn),
		    _mm_cmpeq_epi8(v, s->vr));
		__m128i d = _mm_cmpeq_epi8(v, s->vd);

		eol |= (uint64_t)(unsigned)_mm_movemask_epi8(n) << (16 * k);
		stop |= (uint64_t)(unsigned)_mm_movemask_epi8(
		    _mm_or_si128(n, d)) << (16 * k);
		quote |= (uint64_t)(unsigned)_mm_movemask_epi8(
		    _mm_cmpeq_epi8(v, s->vq)) << (16 * k);
	}
	s->stop = stop;
	s->eol = eol;
	s->quote = quote;
}

#ifdef CSV_WIDE
TARGET_AVX2 static inline void
plain_masks_avx2(struct plainscan *s, const char *p)
{
	const __m256i vn = _mm256_set1_epi8('\n'), vr = _mm256_set1_epi8('\r');
	const __m256i vd = _mm256_set1_epi8(s->delim);
	const __m256i vq = _mm256_set1_epi8(s->qbyte);
	uint64_t stop = 0, eol = 0, quote = 0;
	int k;

	for (k = 0; k < 2; k++) {
		__m256i v = _mm256_loadu_si256((const __m256i *)(p + 32 * k));
		__m256i n = _mm256_or_si256(_mm256_cmpeq_epi8(v, vn),
		    _mm256_cmpeq_epi8(v, vr));
		__m256i d = _mm256_cmpeq_epi8(v, vd);

		eol |= (uint64_t)(uint32_t)_mm256_movemask_epi8(n) <<
		    (32 * k);
		stop |= (uint64_t)(uint32_t)_mm256_movemask_epi8(
		    _mm256_or_si256(n, d)) << (32 * k);
		quote |= (uint64_t)(uint32_t)_mm256_movemask_epi8(
		    _mm256_cmpeq_epi8(v, vq)) << (32 * k);
	}
	s->stop = stop;
	s->eol = eol;
	s->quote = quote;
}

TARGET_AVX512 static inline void
plain_masks_avx512(struct plainscan *s, const char *p)
{
	__m512i v = _mm512_loadu_si512((const void *)p);
	uint64_t eol = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('\n')) |
	    _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('\r'));

	s->eol = eol;
	s->stop = eol | _mm512_cmpeq_epi8_mask(v,
	    _mm512_set1_epi8(s->delim));
	s->quote = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(s->qbyte));
}
#endif

/* Masks of buf[at..at+64), which must be there, with isa's vectors. */
static inline __attribute__((always_inline)) void
plain_window(struct plainscan *s, const char *buf, size_t at, int isa)
{
#ifdef CSV_WIDE
	if (isa == CSV_ISA_AVX512)
		plain_masks_avx512(s, buf + at);
	else if (isa == CSV_ISA_AVX2)
		plain_masks_avx2(s, buf + at);
	else
#endif
		plain_masks_sse2(s, buf + at);
	(void)isa;
	s->base = at;
	if (!s->quoting)
		s->quote = 0;
}

/* Tokenizes the plain row at buf[*pos] into t->f[base..base+ncols), as
 * tok_row would; false when the row is not one for it (then only fields
 * at t->f[base] and on may have been written).  A window at a time: the
 * stop bits from the row's first byte up to its line end are its field
 * ends, all emitted in one loop; a quote byte anywhere among them, or
 * more fields than ncols, sends the row to tok_row. */
static inline __attribute__((always_inline)) bool
plain_row(struct csv_tok *t, struct plainscan *s, size_t base,
    size_t ncols, const char *buf, size_t *pos, size_t end, int isa)
{
	size_t i = *pos, row = i, start = i, nf = 0, e;
	struct csv_field *f;
	uint64_t m, el;

	tok_grow_fields(t, base + ncols);
	f = t->f + base;
	if (i - s->base >= 64) {
		if (end - i < 64)
			return false;
		plain_window(s, buf, i, isa);
	}
	m = ~(uint64_t)0 << (i - s->base);
	for (;;) {
		el = s->eol & m;
		/* Up to and including the first line end. */
		if (el != 0)
			m &= (el & (0 - el)) * 2 - 1;
		if ((s->quote & m) != 0)
			return false;
		m &= s->stop;
		while (m != 0) {
			if (nf == ncols)
				return false;
			e = s->base + (size_t)__builtin_ctzll(m);
			m &= m - 1;
			f[nf].p = buf + start;
			f[nf].len = (uint32_t)(e - start);
			f[nf].flags = 0;
			f[nf].raw = start - row;
			nf++;
			start = e + 1;
		}
		if (el != 0)
			break;
		if (end - s->base < 128)
			return false;
		plain_window(s, buf, s->base + 64, isa);
		m = ~(uint64_t)0;
	}
	/* The window is whole, so e + 1 <= end. */
	if (nf != ncols)
		return false;
	e = start - 1;
	if (buf[e] == '\r') {
		if (e + 1 == end)
			return false;
		i = e + (buf[e + 1] == '\n' ? 2 : 1);
	} else {
		i = e + 1;
	}
	t->nf = nf;
	t->nbreaks = 0;
	t->syn = CSV_SYN_OK;
	t->row_end = e;
	*pos = i;
	return true;
}
#else
struct plainscan {
	int none;
};

static void
plain_init(struct plainscan *s, int delim, int quote)
{
	(void)s;
	(void)delim;
	(void)quote;
}

static inline bool
plain_row(struct csv_tok *t, struct plainscan *s, size_t base,
    size_t ncols, const char *buf, size_t *pos, size_t end, int isa)
{
	(void)isa;
	(void)t;
	(void)s;
	(void)base;
	(void)ncols;
	(void)buf;
	(void)pos;
	(void)end;
	return false;
}
#endif

/* Tokenizes up to room rows from buf[*pos] into a block; leaves *pos at
 * the first byte it did not take.  Compiled once per isa, below. */
static inline __attribute__((always_inline)) int
block_tok(struct csv_parser *ps, const char *buf, size_t *posp,
    size_t limit, size_t end, bool at_eof, uint32_t room, struct block *b,
    int isa)
{
	const struct csv_conf *cf = ps->conf;
	const size_t ncols = cf->ncols, maxraw = batch_bytes(cf);
	struct csv_tok *t = &ps->tok;
	size_t pos = *posp, row, rawlen;
	struct blkscan bs;
	struct plainscan plain;
	int rc = BLOCK_END;

	blk_init(&bs, t->delim);
	plain_init(&plain, t->delim, t->quote);
	b->nrows = 0;
	b->nlines = 0;
	b->ncomments = 0;
	b->raw = 0;
	b->from = pos;
	t->slen = 0;
	while (pos < limit && b->nrows < room) {
		row = pos;
		if (cf->skip_blank && (buf[pos] == '\n' || buf[pos] == '\r')) {
			if (csv_skip_eol(buf, &pos, end, at_eof) != 1) {
				pos = row;
				rc = BLOCK_MORE;
				break;
			}
			b->nlines++;
			continue;
		}
		if (cf->comment > 0 && buf[pos] == (char)cf->comment) {
			if (csv_skip_line(buf, &pos, end, at_eof) != 1) {
				pos = row;
				rc = BLOCK_MORE;
				break;
			}
			b->nlines++;
			b->ncomments++;
			continue;
		}
		if (!plain_row(t, &plain, b->nrows * ncols, ncols, buf, &pos,
		    end, isa) && tok_row(t, &bs, b->nrows * ncols, buf, &pos, end,
		    at_eof) == CSV_ROW_MORE) {
			pos = row;
			rc = BLOCK_MORE;
			break;
		}
		rawlen = t->row_end - row;
		if (t->syn != CSV_SYN_OK || t->nf != ncols ||
		    rawlen > INT32_MAX ||
		    ps->cur_raw + b->raw + rawlen > maxraw) {
			pos = row;
			rc = BLOCK_ROW;
			break;
		}
		b->nrows++;
		b->nlines += 1 + t->nbreaks;
		b->raw += rawlen;
	}
	if (t->slen > 0)
		tok_resolve(t, t->f, b->nrows * ncols);
	b->to = pos;
	*posp = pos;
	return rc;
}

static int
block_tok_sse2(struct csv_parser *ps, const char *buf, size_t *posp,
    size_t limit, size_t end, bool at_eof, uint32_t room, struct block *b)
{
	return block_tok(ps, buf, posp, limit, end, at_eof, room, b,
	    CSV_ISA_SSE2);
}

#ifdef CSV_WIDE
TARGET_AVX2 static int
block_tok_avx2(struct csv_parser *ps, const char *buf, size_t *posp,
    size_t limit, size_t end, bool at_eof, uint32_t room, struct block *b)
{
	return block_tok(ps, buf, posp, limit, end, at_eof, room, b,
	    CSV_ISA_AVX2);
}

TARGET_AVX512 static int
block_tok_avx512(struct csv_parser *ps, const char *buf, size_t *posp,
    size_t limit, size_t end, bool at_eof, uint32_t room, struct block *b)
{
	return block_tok(ps, buf, posp, limit, end, at_eof, room, b,
	    CSV_ISA_AVX512);
}
#endif

bool
csv_isa_supported(int isa)
{
	switch (isa) {
	case CSV_ISA_AUTO:
	case CSV_ISA_SSE2:
		return true;
#ifdef CSV_WIDE
	case CSV_ISA_AVX2:
		return __builtin_cpu_supports("avx2") &&
		    __builtin_cpu_supports("bmi") &&
		    __builtin_cpu_supports("bmi2") &&
		    __builtin_cpu_supports("popcnt");
	case CSV_ISA_AVX512:
		return csv_isa_supported(CSV_ISA_AVX2) &&
		    __builtin_cpu_supports("avx512f") &&
		    __builtin_cpu_supports("avx512bw");
#endif
	default:
		return false;
	}
}

/* The widest of isa's vectors this CPU has, isa AUTO being the widest of
 * all. */
static int
isa_pick(int isa)
{
	int k = isa == CSV_ISA_AUTO || isa > CSV_ISA_AVX512 ?
	    CSV_ISA_AVX512 : isa;

	while (k > CSV_ISA_SSE2 && !csv_isa_supported(k))
		k--;
	return k;
}

static inline bool
field_is_null(const struct csv_conf *cf, const struct csv_field *f,
    bool string)
{
	if (f->len == 0)
		return !string || !(f->flags & CSV_F_QUOTED);
	return cf->nnulls > 0 && !(f->flags & CSV_F_QUOTED) &&
	    csv_is_null_string(f->p, f->len, cf->nulls, cf->nnulls);
}

/* Converts field j of the n rows at f (stride ncols) into rows row0.. of
 * a fixed-width column of type id; marks NULLs in nm.  false when a value
 * does not fit.  Inlined once per type, so the switches fold away. */
static inline __attribute__((always_inline)) bool
block_fixed(const struct csv_conf *cf, const struct csv_field *f,
    uint32_t n, const char *bufend, struct core_column *c, uint32_t row0,
    uint64_t *nm, enum core_type id)
{
	const uint32_t stride = cf->ncols;
	uint64_t mag = 0;
	uint32_t r;
	bool neg = false;	/* read by the (void) below: set, or UB */
	int rc;

	(void)bufend;
	(void)mag;
	(void)neg;

	for (r = 0; r < n; r++, f += stride) {
		const uint32_t at = row0 + r;

		if (field_is_null(cf, f, false)) {
			nm[r >> 6] |= UINT64_C(1) << (r & 63);
			switch (id) {
			case CORE_TYPE_BOOL:
				((uint8_t *)c->values)[at] = 0;
				break;
			case CORE_TYPE_INT32:
			case CORE_TYPE_DATE:
				((int32_t *)c->values)[at] = 0;
				break;
			case CORE_TYPE_DECIMAL128:
				core_i128_store((char *)c->values +
				    16 * (size_t)at, 0);
				break;
			default:
				((int64_t *)c->values)[at] = 0;
				break;
			}
			continue;
		}
		switch (id) {
		case CORE_TYPE_BOOL:
			rc = core_parse_bool(f->p, f->len,
			    (uint8_t *)c->values + at);
			break;
		case CORE_TYPE_INT32:
#ifdef FAST_WORDS
			if (fast_ok(f, bufend) &&
			    fast_int(f->p, f->len, &neg, &mag) &&
			    mag <= (uint64_t)INT32_MAX + neg) {
				((int32_t *)c->values)[at] = neg ?
				    (int32_t)(0 - (int64_t)mag) :
				    (int32_t)mag;
				continue;
			}
#endif
			rc = core_parse_int32(f->p, f->len,
			    (int32_t *)c->values + at);
			break;
		case CORE_TYPE_INT64:
#ifdef FAST_WORDS
			if (fast_ok(f, bufend) &&
			    fast_int(f->p, f->len, &neg, &mag)) {
				((int64_t *)c->values)[at] = neg ?
				    (int64_t)(0 - mag) : (int64_t)mag;
				continue;
			}
#endif
			rc = core_parse_int64(f->p, f->len,
			    (int64_t *)c->values + at);
			break;
		case CORE_TYPE_FLOAT64:
			rc = core_parse_float64(f->p, f->len,
			    (double *)c->values + at);
			break;
		case CORE_TYPE_DECIMAL:
#ifdef FAST_WORDS
			if (fast_ok(f, bufend) &&
			    fast_decimal(f->p, f->len, c->type.precision,
			    c->type.scale, (int64_t *)c->values + at))
				continue;
#endif
			rc = core_parse_decimal(f->p, f->len,
			    c->type.precision, c->type.scale,
			    (int64_t *)c->values + at);
			break;
		case CORE_TYPE_DATE:
			if (fast_date(f->p, f->len,
			    (int32_t *)c->values + at))
				continue;
			rc = core_parse_date(f->p, f->len,
			    (int32_t *)c->values + at);
			break;
		case CORE_TYPE_TIMESTAMP:
			rc = core_parse_timestamp(f->p, f->len,
			    (int64_t *)c->values + at);
			break;
		case CORE_TYPE_DECIMAL128: {
			core_i128 v = 0;

			rc = core_parse_decimal128(f->p, f->len,
			    c->type.precision, c->type.scale, &v);
			core_i128_store((char *)c->values + 16 * (size_t)at,
			    v);
			break;
		}
		default:
			rc = -1;
			break;
		}
		if (rc != 0)
			return false;
	}
	return true;
}

/* block_fixed for a string column: false on invalid UTF-8.  ascii says
 * every byte of the block's input is ASCII (block_ascii), so its values
 * need no test of their own. */
static bool
block_strings(const struct csv_conf *cf, const struct csv_field *f,
    uint32_t n, const char *bufend, struct core_column *c, uint32_t row0,
    uint64_t *nm, bool ascii)
{
	const uint32_t stride = cf->ncols;
	int32_t *offs = c->offsets + row0;
	size_t off = (size_t)offs[0], len;
	char *dst = c->values;
	uint32_t r;

	/* Room is made value by value, 16 bytes more than each needs for
	 * the whole-vector copies below; the block's raw bytes leave the
	 * batch within INT32_MAX (block_tok), so every offset fits.  The
	 * test is one well-predicted branch, cheaper than a first pass
	 * summing the lengths down a column of fields. */
	for (r = 0; r < n; r++, f += stride) {
		if (field_is_null(cf, f, true)) {
			nm[r >> 6] |= UINT64_C(1) << (r & 63);
			offs[r + 1] = (int32_t)off;
			continue;
		}
		len = f->len;
		if (off + len + 16 > c->values_cap) {
			core_col_reserve_bytes(c, off, len + 16);
			dst = c->values;
		}
#ifdef __SSE2__
		/* Copy in 16-byte vectors; the bytes past the value are
		 * read from the input and written past the column's end,
		 * where the next value goes. */
		if (!(f->flags & CSV_F_COPIED) &&
		    (size_t)(bufend - f->p) >= len + 16) {
			unsigned hi = 0, m;
			size_t i;

			if (ascii) {
				_mm_storeu_si128((__m128i *)(dst + off),
				    _mm_loadu_si128((const __m128i *)f->p));
				for (i = 16; i < len; i += 16)
					_mm_storeu_si128((__m128i *)(dst +
					    off + i), _mm_loadu_si128(
					    (const __m128i *)(f->p + i)));
				off += len;
				offs[r + 1] = (int32_t)off;
				continue;
			}
			for (i = 0; i < len; i += 16) {
				__m128i v = _mm_loadu_si128(
				    (const __m128i *)(f->p + i));

				m = (unsigned)_mm_movemask_epi8(v);
				if (len - i < 16)
					m &= (1u << (len - i)) - 1;
				hi |= m;
				_mm_storeu_si128((__m128i *)(dst + off + i),
				    v);
			}
			if (hi != 0 &&
			    core_utf8_valid_prefix(f->p, len) != len)
				return false;
			off += len;
			offs[r + 1] = (int32_t)off;
			continue;
		}
#else
		(void)bufend;
		(void)ascii;
#endif
		if (!is_ascii(f->p, len) &&
		    core_utf8_valid_prefix(f->p, len) != len)
			return false;
		memcpy(dst + off, f->p, len);
		off += len;
		offs[r + 1] = (int32_t)off;
	}
	return true;
}

/* Whether buf[from..to) is all ASCII: one pass over the block's bytes,
 * which are in cache after tokenizing, instead of a test per value. */
static bool
block_ascii(const char *buf, size_t from, size_t to)
{
#ifdef __SSE2__
	__m128i acc = _mm_setzero_si128();
	size_t i = from;

	for (; i + 64 <= to; i += 64)
		acc = _mm_or_si128(acc, _mm_or_si128(
		    _mm_or_si128(_mm_loadu_si128((const __m128i *)(buf + i)),
		    _mm_loadu_si128((const __m128i *)(buf + i + 16))),
		    _mm_or_si128(_mm_loadu_si128((const __m128i *)(buf + i +
		    32)), _mm_loadu_si128((const __m128i *)(buf + i + 48)))));
	if (_mm_movemask_epi8(acc) != 0)
		return false;
	return is_ascii(buf + i, to - i);
#else
	return is_ascii(buf + from, to - from);
#endif
}

/* Puts the NULLs nm of rows row0 .. row0 + n into c's validity, as the
 * row path would have one row after the other. */
static void
block_validity(struct core_column *c, uint32_t row0, uint32_t n,
    const uint64_t *nm, uint32_t cap)
{
	uint64_t any = 0;
	uint32_t r, at;
	int w;

	for (w = 0; w < BLOCK_WORDS; w++)
		any |= nm[w];
	if (any == 0 && c->validity == NULL)
		return;
	if (c->validity == NULL) {
		/* The first NULL creates the bitmap, all valid before. */
		for (r = 0; !(nm[r >> 6] >> (r & 63) & 1); r++)
			;
		core_col_set_null(c, row0 + r, cap);
	}
	for (r = 0; r < n; r++) {
		at = row0 + r;
		if (nm[r >> 6] >> (r & 63) & 1)
			c->validity[at >> 3] &= (uint8_t)~(1u << (at & 7));
		else
			c->validity[at >> 3] |= (uint8_t)(1u << (at & 7));
	}
}

/* Converts the n rows of the block into the batch and takes them; false,
 * with nothing taken, when a value does not convert. */
static bool
block_put(struct csv_parser *ps, const struct block *b, const char *buf,
    const char *bufend, struct csv_result *res)
{
	const struct csv_conf *cf = ps->conf;
	const uint32_t ncols = conf_nout(cf), n = b->nrows;
	const struct csv_field *f0 = ps->tok.f, *f;
	struct core_column *c;
	uint32_t j, row0;
	uint64_t *nm;
	bool ok;
	int ascii = -1;		/* block_ascii's answer once asked */

	if (ps->cur.cols == NULL)
		parser_start_batch(ps);
	if (ps->bnull == NULL)
		ps->bnull = core_xreallocarray(NULL, ncols ? ncols : 1,
		    BLOCK_WORDS * sizeof(uint64_t));
	row0 = ps->cur.nrows;
	/* Column j of the batch is field sel[j] of each row; the fields
	 * not selected are never looked at. */
	for (j = 0; j < ncols; j++) {
		c = &ps->cur.cols[j];
		f = f0 + conf_field(cf, j);
		nm = ps->bnull + (size_t)j * BLOCK_WORDS;
		memset(nm, 0, BLOCK_WORDS * sizeof(uint64_t));
		switch (c->type.id) {
		case CORE_TYPE_BOOL:
			ok = block_fixed(cf, f, n, bufend, c, row0,
			    nm, CORE_TYPE_BOOL);
			break;
		case CORE_TYPE_INT32:
			ok = block_fixed(cf, f, n, bufend, c, row0,
			    nm, CORE_TYPE_INT32);
			break;
		case CORE_TYPE_INT64:
			ok = block_fixed(cf, f, n, bufend, c, row0,
			    nm, CORE_TYPE_INT64);
			break;
		case CORE_TYPE_FLOAT64:
			ok = block_fixed(cf, f, n, bufend, c, row0,
			    nm, CORE_TYPE_FLOAT64);
			break;
		case CORE_TYPE_DECIMAL:
			ok = block_fixed(cf, f, n, bufend, c, row0,
			    nm, CORE_TYPE_DECIMAL);
			break;
		case CORE_TYPE_DATE:
			ok = block_fixed(cf, f, n, bufend, c, row0,
			    nm, CORE_TYPE_DATE);
			break;
		case CORE_TYPE_TIMESTAMP:
			ok = block_fixed(cf, f, n, bufend, c, row0,
			    nm, CORE_TYPE_TIMESTAMP);
			break;
		case CORE_TYPE_DECIMAL128:
			ok = block_fixed(cf, f, n, bufend, c, row0,
			    nm, CORE_TYPE_DECIMAL128);
			break;
		default:
			if (ascii < 0)
				ascii = block_ascii(buf, b->from, b->to);
			ok = block_strings(cf, f, n, bufend, c, row0,
			    nm, ascii > 0);
			break;
		}
		if (!ok)
			return false;
	}
	for (j = 0; j < ncols; j++)
		block_validity(&ps->cur.cols[j], row0, n,
		    ps->bnull + (size_t)j * BLOCK_WORDS, cf->batch_rows);
	ps->cur.nrows += n;
	ps->cur_raw += b->raw;
	res->nrows += n;
	if (ps->cur.nrows == cf->batch_rows)
		csv_parser_flush(ps, res);
	return true;
}

int
csv_parse(struct csv_parser *ps, const char *buf, size_t *posp,
    size_t limit, size_t end, bool at_eof, struct csv_result *res)
{
	const struct csv_conf *cf = ps->conf;
	const uint32_t brows = block_rows(cf);
	size_t pos = *posp, start, p;
	struct block b;
	uint32_t room;
	int why, rc;

	if (cf->by_row || cf->numfmt_on || cf->trim || cf->datefmts != NULL ||
	    cf->tsfmt != NULL)
		return parse_rows(ps, buf, posp, limit, end, at_eof, NULL,
		    res);
	while (pos < limit) {
		if (ps->by_row_left > 0) {
			rc = parse_rows(ps, buf, &pos, limit, end, at_eof,
			    &ps->by_row_left, res);
			if (rc != CSV_PARSE_DONE) {
				*posp = pos;
				return rc;
			}
			continue;
		}
		room = cf->batch_rows - (ps->cur.cols != NULL ?
		    ps->cur.nrows : 0);
		if (room > brows)
			room = brows;
		start = pos;
#ifdef CSV_WIDE
		if (ps->isa == CSV_ISA_AVX512)
			why = block_tok_avx512(ps, buf, &pos, limit, end,
			    at_eof, room, &b);
		else if (ps->isa == CSV_ISA_AVX2)
			why = block_tok_avx2(ps, buf, &pos, limit, end,
			    at_eof, room, &b);
		else
#endif
			why = block_tok_sse2(ps, buf, &pos, limit, end,
			    at_eof, room, &b);
		if (b.nrows > 0 && !block_put(ps, &b, buf, buf + end, res)) {
			/* Let the row path find the bad row and say why;
			 * it parses exactly the block's bytes again.  Bad
			 * rows tend to come in runs: rather than pay twice
			 * for each block of a run, go on row by row for a
			 * while. */
			p = start;
			rc = parse_rows(ps, buf, &p, pos, end, at_eof, NULL,
			    res);
			if (cf->block_rows == 0)
				ps->by_row_left = CSV_BY_ROW_AFTER_BAD *
				    brows;
			if (rc != CSV_PARSE_DONE) {
				*posp = p;
				return rc;
			}
		} else {
			ps->line += b.nlines;
			res->nlines += b.nlines;
			res->ncomments += b.ncomments;
		}
		if (why == BLOCK_MORE) {
			*posp = pos;
			return CSV_PARSE_MORE;
		}
		if (why == BLOCK_ROW) {
			/* One row: limit pos + 1 ends the parse after it. */
			rc = parse_rows(ps, buf, &pos, pos + 1, end, at_eof,
			    NULL, res);
			if (rc != CSV_PARSE_DONE) {
				*posp = pos;
				return rc;
			}
		}
	}
	*posp = pos;
	return CSV_PARSE_DONE;
}
