/*
 * core_expr_parse.c - lexer and recursive-descent parser of SQL
 * expressions and select lists (the grammar is in core_expr_parse.h).
 *
 * The lexer turns the whole text into tokens first, so the parser can
 * look two tokens ahead (NOT BETWEEN, extract(year FROM ...), DATE '...')
 * without a pushback protocol.  Keywords are not token kinds: a bare
 * identifier is compared with the keyword where the grammar allows one,
 * which keeps DATE, TIMESTAMP, INTERVAL and EXCLUDE usable as names.
 *
 * Invariants:
 *   - every error is reported once, where it is found, through
 *     core_expr_err, and every function that fails frees what it built
 *     and returns NULL;
 *   - the recursion of the parser (parentheses, unary operators, nested
 *     CASE ...) and the height of the tree it builds both stay within
 *     CORE_EXPR_DEPTH_MAX, so "((((..." is an error, not a stack
 *     overflow, and later walkers of the tree may recurse.
 *
 * The workload is one short expression per command line; clarity of the
 * messages matters more than speed.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core_alloc.h"
#include "core_expr_parse.h"
#include "core_value.h"

enum tok_kind {
	T_EOF = 0,
	T_IDENT,	/* bare name or keyword */
	T_QIDENT,	/* "quoted name"; text unescaped */
	T_INT, T_DEC, T_FLOAT,
	T_STRING,	/* 'text'; text unescaped */
	T_LPAREN, T_RPAREN, T_COMMA,
	T_STAR, T_SLASH, T_PERCENT, T_PLUS, T_MINUS,
	T_CONCAT,	/* || */
	T_EQ, T_NE, T_LT, T_LE, T_GT, T_GE,
	T_COLONS,	/* :: */
};

struct tok {
	enum tok_kind kind;
	uint32_t off, len;	/* span in the source */
	char *text;		/* owned unescaped text (T_QIDENT, T_STRING) */
	size_t text_len;
};

struct parser {
	const char *src;
	size_t len;
	struct tok *toks;	/* owned, ntoks entries, the last T_EOF */
	size_t ntoks, cap, pos;
	unsigned depth;		/* current recursion depth */
	struct core_err *err;
};

/* Reports an error at [off, off + len) of the source; returns NULL. */
static void *
fail(struct parser *p, uint32_t off, uint32_t len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void *
fail(struct parser *p, uint32_t off, uint32_t len, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	core_expr_err(p->err, CORE_EUSAGE, p->src, p->len, off, len, "%s",
	    msg);
	return NULL;
}

/* ---- lexer ---- */

static bool
ident_start(unsigned char c)
{
	return isalpha(c) || c == '_' || c >= 0x80;
}

static bool
ident_char(unsigned char c)
{
	return ident_start(c) || isdigit(c) || c == '$';
}

static struct tok *
push(struct parser *p, enum tok_kind kind, size_t off, size_t len)
{
	struct tok *t;

	p->toks = core_grow(p->toks, &p->cap, p->ntoks + 1, sizeof(*p->toks),
	    16);
	t = &p->toks[p->ntoks++];
	memset(t, 0, sizeof(*t));
	t->kind = kind;
	t->off = (uint32_t)off;
	t->len = (uint32_t)len;
	return t;
}

/* Lexes a quoted run starting at src[i] == q; q doubled is q itself. */
static int
lex_quoted(struct parser *p, size_t i, char q, enum tok_kind kind)
{
	const char *s = p->src;
	size_t j = i + 1, n = 0;
	struct tok *t;
	char *text;

	text = core_xmalloc(p->len - i);
	for (;;) {
		if (j >= p->len) {
			free(text);
			fail(p, (uint32_t)i, (uint32_t)(p->len - i),
			    kind == T_STRING ? "unterminated string" :
			    "unterminated quoted name");
			return -1;
		}
		if (s[j] == q) {
			if (j + 1 < p->len && s[j + 1] == q) {
				text[n++] = q;
				j += 2;
				continue;
			}
			break;
		}
		text[n++] = s[j++];
	}
	if (kind == T_QIDENT && n == 0) {
		free(text);
		fail(p, (uint32_t)i, 2, "empty quoted name");
		return -1;
	}
	text[n] = '\0';
	t = push(p, kind, i, j + 1 - i);
	t->text = text;
	t->text_len = n;
	return (int)(j + 1 - i);
}

/* Lexes a number at src[i]: digits [. digits] [e [+-] digits], with
 * digits on at least one side of the point. */
static int
lex_number(struct parser *p, size_t i)
{
	const char *s = p->src;
	size_t j = i, nd = 0;
	enum tok_kind kind = T_INT;
	bool bad = false;

	while (j < p->len && isdigit((unsigned char)s[j]))
		j++, nd++;
	if (j < p->len && s[j] == '.') {
		kind = T_DEC;
		j++;
		while (j < p->len && isdigit((unsigned char)s[j]))
			j++, nd++;
	}
	if (j < p->len && (s[j] == 'e' || s[j] == 'E')) {
		kind = T_FLOAT;
		j++;
		if (j < p->len && (s[j] == '+' || s[j] == '-'))
			j++;
		if (j >= p->len || !isdigit((unsigned char)s[j]))
			bad = true;
		while (j < p->len && isdigit((unsigned char)s[j]))
			j++;
	}
	/* "12abc", "1.2.3": the number runs into a name or another point. */
	while (j < p->len && (ident_char((unsigned char)s[j]) || s[j] == '.'))
		j++, bad = true;
	if (bad || nd == 0) {
		fail(p, (uint32_t)i, (uint32_t)(j - i), "bad number '%.*s'",
		    (int)(j - i), s + i);
		return -1;
	}
	push(p, kind, i, j - i);
	return (int)(j - i);
}

static int
lex(struct parser *p)
{
	const char *s = p->src;
	size_t i = 0;
	int n;

	while (i < p->len) {
		unsigned char c = (unsigned char)s[i];
		unsigned char d = i + 1 < p->len ? (unsigned char)s[i + 1] : 0;
		enum tok_kind k = T_EOF;
		size_t w = 1;

		if (isspace(c)) {
			i++;
			continue;
		}
		if (isdigit(c) || (c == '.' && isdigit(d))) {
			if ((n = lex_number(p, i)) < 0)
				return -1;
			i += (size_t)n;
			continue;
		}
		if (ident_start(c)) {
			w = 1;
			while (i + w < p->len &&
			    ident_char((unsigned char)s[i + w]))
				w++;
			push(p, T_IDENT, i, w);
			i += w;
			continue;
		}
		if (c == '\'' || c == '"') {
			n = lex_quoted(p, i, (char)c,
			    c == '\'' ? T_STRING : T_QIDENT);
			if (n < 0)
				return -1;
			i += (size_t)n;
			continue;
		}
		switch (c) {
		case '(': k = T_LPAREN; break;
		case ')': k = T_RPAREN; break;
		case ',': k = T_COMMA; break;
		case '*': k = T_STAR; break;
		case '/': k = T_SLASH; break;
		case '%': k = T_PERCENT; break;
		case '+': k = T_PLUS; break;
		case '-': k = T_MINUS; break;
		case '=':
			k = T_EQ;
			w = d == '=' ? 2 : 1;
			break;
		case '<':
			k = d == '=' ? T_LE : d == '>' ? T_NE : T_LT;
			w = k == T_LT ? 1 : 2;
			break;
		case '>':
			k = d == '=' ? T_GE : T_GT;
			w = k == T_GE ? 2 : 1;
			break;
		case '!':
			if (d == '=')
				k = T_NE, w = 2;
			break;
		case '|':
			if (d == '|')
				k = T_CONCAT, w = 2;
			break;
		case ':':
			if (d == ':')
				k = T_COLONS, w = 2;
			break;
		}
		if (k == T_EOF) {
			if (isprint(c))
				fail(p, (uint32_t)i, 1,
				    "unexpected character '%c'", c);
			else
				fail(p, (uint32_t)i, 1,
				    "unexpected byte 0x%02x", c);
			return -1;
		}
		push(p, k, i, w);
		i += w;
	}
	push(p, T_EOF, p->len, 0);
	return 0;
}

/* ---- parser helpers ---- */

static struct tok *
cur(struct parser *p)
{
	return &p->toks[p->pos];
}

static struct tok *
peek(struct parser *p, size_t ahead)
{
	size_t i = p->pos + ahead;

	return &p->toks[i < p->ntoks ? i : p->ntoks - 1];
}

/* Whether t is the keyword kw (lower case); identifiers keep no copy of
 * their text, so this reads the source. */
static bool
is_kw(struct parser *p, const struct tok *t, const char *kw)
{
	size_t n = strlen(kw);

	return t->kind == T_IDENT && t->len == n &&
	    strncasecmp(p->src + t->off, kw, n) == 0;
}

static bool
accept_kw(struct parser *p, const char *kw)
{
	if (!is_kw(p, cur(p), kw))
		return false;
	p->pos++;
	return true;
}

static bool
accept(struct parser *p, enum tok_kind k)
{
	if (cur(p)->kind != k)
		return false;
	p->pos++;
	return true;
}

static uint32_t
tok_end(const struct tok *t)
{
	return t->off + t->len;
}

/* End of the token before the current one: where a construct ends. */
static uint32_t
prev_end(struct parser *p)
{
	return p->pos > 0 ? tok_end(&p->toks[p->pos - 1]) : 0;
}

static void *
fail_here(struct parser *p, const char *what)
{
	struct tok *t = cur(p);

	return fail(p, t->off, t->len, "%s", what);
}

static bool
enter(struct parser *p)
{
	if (++p->depth > CORE_EXPR_DEPTH_MAX) {
		fail(p, cur(p)->off, cur(p)->len,
		    "expression nested too deeply (limit %d)",
		    CORE_EXPR_DEPTH_MAX);
		return false;
	}
	return true;
}

/* Sets e's span to [off, end of the previous token); checks its height. */
static struct core_expr *
finish(struct parser *p, struct core_expr *e, uint32_t off)
{
	e->off = off;
	e->len = prev_end(p) - off;
	if (e->height > CORE_EXPR_DEPTH_MAX) {
		fail(p, e->off, e->len,
		    "expression nested too deeply (limit %d)",
		    CORE_EXPR_DEPTH_MAX);
		core_expr_free(e);
		return NULL;
	}
	return e;
}

static struct core_expr *
node2(enum core_expr_kind kind, enum core_expr_op op, struct core_expr *a,
    struct core_expr *b, const struct tok *optok)
{
	struct core_expr *e = core_expr_new(kind);

	e->op = op;
	e->op_off = optok->off;
	e->op_len = optok->len;
	core_expr_add_kid(e, a);
	if (b != NULL)
		core_expr_add_kid(e, b);
	return e;
}

static struct core_expr *parse_expr(struct parser *p);
static struct core_expr *parse_not(struct parser *p);
static struct core_expr *parse_concat(struct parser *p);
static struct core_expr *parse_unary(struct parser *p);

/* ---- literals ---- */

static struct core_expr *
literal(enum core_expr_lit lit, const struct tok *t)
{
	struct core_expr *e = core_expr_new(CORE_EXPR_LITERAL);

	e->lit = lit;
	e->off = e->op_off = t->off;
	e->len = e->op_len = t->len;
	return e;
}

static struct core_expr *
parse_number(struct parser *p)
{
	struct tok *t = cur(p);
	const char *s = p->src + t->off;
	struct core_expr *e;

	/* An integer of any length: its type depends on its value and on
	 * the minus signs above it, which the binder sees (bind_int). */
	e = literal(t->kind == T_INT ? CORE_LIT_INT : t->kind == T_DEC ?
	    CORE_LIT_DECIMAL : CORE_LIT_FLOAT, t);
	core_expr_set_text(e, s, t->len);
	if (t->kind == T_FLOAT &&
	    core_parse_float64(s, t->len, &e->value.f) != 0) {
		core_expr_free(e);
		return fail(p, t->off, t->len, "bad number '%.*s'",
		    (int)t->len, s);
	}
	p->pos++;
	return e;
}

/* DATE 'text' or TIMESTAMP 'text'; the current token is the keyword. */
static struct core_expr *
parse_datetime(struct parser *p, bool is_date)
{
	struct tok *kw = cur(p), *t = peek(p, 1);
	struct core_expr *e;
	int32_t days;
	int rc;

	e = literal(is_date ? CORE_LIT_DATE : CORE_LIT_TIMESTAMP, kw);
	core_expr_set_text(e, t->text, t->text_len);
	if (is_date) {
		rc = core_parse_date_sql(t->text, t->text_len, &days);
		e->value.i = days;
	} else {
		rc = core_parse_timestamp(t->text, t->text_len, &e->value.i);
	}
	if (rc != 0) {
		core_expr_free(e);
		return fail(p, t->off, t->len, "bad %s '%s'",
		    is_date ? "date" : "timestamp", t->text);
	}
	p->pos += 2;
	return finish(p, e, kw->off);
}

/* INTERVAL 'n' unit or INTERVAL n unit. */
static struct core_expr *
parse_interval(struct parser *p)
{
	struct tok *kw = cur(p), *t = peek(p, 1), *u;
	bool neg = t->kind == T_MINUS;
	const char *s;
	size_t n;
	struct core_expr *e;

	/* INTERVAL -1 MONTH: the sign is part of the quantity, as in
	 * INTERVAL '-1' MONTH. */
	if (neg)
		t = peek(p, 2);
	u = peek(p, neg ? 3 : 2);
	s = t->kind == T_STRING ? t->text : p->src + t->off;
	n = t->kind == T_STRING ? t->text_len : t->len;
	e = literal(CORE_LIT_INTERVAL, kw);
	core_expr_set_text(e, s, n);
	if (core_parse_int64(s, n, &e->value.i) != 0) {
		core_expr_free(e);
		return fail(p, t->off, t->len, "bad interval quantity '%.*s'",
		    (int)n, s);
	}
	if (neg) {
		if (e->value.i == INT64_MIN) {
			core_expr_free(e);
			return fail(p, t->off, t->len,
			    "bad interval quantity '-%.*s'", (int)n, s);
		}
		e->value.i = -e->value.i;
		{
			char buf[24];
			int k = snprintf(buf, sizeof(buf), "%" PRId64,
			    e->value.i);

			core_expr_set_text(e, buf, (size_t)k);
		}
	}
	if (is_kw(p, u, "day") || is_kw(p, u, "days"))
		e->unit = CORE_UNIT_DAY;
	else if (is_kw(p, u, "month") || is_kw(p, u, "months"))
		e->unit = CORE_UNIT_MONTH;
	else if (is_kw(p, u, "year") || is_kw(p, u, "years"))
		e->unit = CORE_UNIT_YEAR;
	else {
		core_expr_free(e);
		return fail(p, u->off, u->len, "expected DAY, MONTH or YEAR");
	}
	p->pos += neg ? 4 : 3;
	return finish(p, e, kw->off);
}

/* ---- compound forms ---- */

/* A type name: word [ '(' int [',' int] ')' ], through core_type_parse. */
static int
parse_type(struct parser *p, struct core_coltype *out)
{
	struct tok *name = cur(p);
	struct core_err terr;
	char buf[128];
	size_t n;
	uint32_t off = name->off;

	if (name->kind != T_IDENT) {
		fail_here(p, "expected a type name");
		return -1;
	}
	p->pos++;
	n = (size_t)snprintf(buf, sizeof(buf), "%.*s", (int)name->len,
	    p->src + name->off);
	/* Rebuilt from the tokens, so "decimal (15, 2)" reads too. */
	if (accept(p, T_LPAREN)) {
		if (n < sizeof(buf))
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "(");
		while (cur(p)->kind == T_INT || cur(p)->kind == T_COMMA) {
			struct tok *t = cur(p);
			if (n < sizeof(buf))
				n += (size_t)snprintf(buf + n, sizeof(buf) - n,
				    "%.*s", (int)t->len, p->src + t->off);
			p->pos++;
		}
		if (!accept(p, T_RPAREN)) {
			fail_here(p, "expected ')'");
			return -1;
		}
		if (n < sizeof(buf))
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, ")");
	}
	if (n >= sizeof(buf) ||
	    core_type_parse(buf, strlen(buf), out, &terr) != 0) {
		if (n >= sizeof(buf))
			snprintf(terr.msg, sizeof(terr.msg), "unknown type");
		fail(p, off, prev_end(p) - off, "%s", terr.msg);
		return -1;
	}
	return 0;
}

static struct core_expr *
parse_cast(struct parser *p)
{
	struct tok *kw = cur(p);
	struct core_expr *e, *x;

	p->pos++;
	if (!accept(p, T_LPAREN))
		return fail_here(p, "expected '(' after CAST");
	if ((x = parse_expr(p)) == NULL)
		return NULL;
	e = core_expr_new(CORE_EXPR_CAST);
	e->op_off = kw->off;
	e->op_len = kw->len;
	core_expr_add_kid(e, x);
	if (!accept_kw(p, "as")) {
		core_expr_free(e);
		return fail_here(p, "expected AS");
	}
	if (parse_type(p, &e->cast_type) != 0) {
		core_expr_free(e);
		return NULL;
	}
	if (!accept(p, T_RPAREN)) {
		core_expr_free(e);
		return fail_here(p, "expected ')'");
	}
	return finish(p, e, kw->off);
}

/* Appends parse_expr()s separated by commas up to ')' to e. */
static struct core_expr *
parse_list(struct parser *p, struct core_expr *e)
{
	struct core_expr *x;

	do {
		if ((x = parse_expr(p)) == NULL) {
			core_expr_free(e);
			return NULL;
		}
		core_expr_add_kid(e, x);
	} while (accept(p, T_COMMA));
	if (!accept(p, T_RPAREN)) {
		core_expr_free(e);
		return fail_here(p, "expected ',' or ')'");
	}
	return e;
}

static struct core_expr *
parse_extract(struct parser *p, const struct tok *name)
{
	struct tok *f = cur(p);
	struct core_expr *e, *x;
	size_t i;

	e = core_expr_new(CORE_EXPR_EXTRACT);
	e->op_off = name->off;
	e->op_len = name->len;
	if (f->kind == T_IDENT)
		core_expr_set_text(e, p->src + f->off, f->len);
	else
		core_expr_set_text(e, f->text, f->text_len);
	for (i = 0; i < e->text_len; i++)
		e->text[i] = (char)tolower((unsigned char)e->text[i]);
	p->pos += 2;	/* field FROM */
	if ((x = parse_expr(p)) == NULL) {
		core_expr_free(e);
		return NULL;
	}
	core_expr_add_kid(e, x);
	if (!accept(p, T_RPAREN)) {
		core_expr_free(e);
		return fail_here(p, "expected ')'");
	}
	return finish(p, e, name->off);
}

/* The arguments of substring: SQL's (s FROM start [FOR len]), the same
 * call as substring(s, start[, len]), or a plain list. */
static struct core_expr *
parse_substring(struct parser *p, struct core_expr *e,
    const struct tok *name)
{
	struct core_expr *x;

	if ((x = parse_expr(p)) == NULL) {
		core_expr_free(e);
		return NULL;
	}
	core_expr_add_kid(e, x);
	if (!accept_kw(p, "from")) {
		if (accept(p, T_COMMA))
			e = parse_list(p, e);
		else if (!accept(p, T_RPAREN)) {
			core_expr_free(e);
			return fail_here(p, "expected ',', FROM or ')'");
		}
		return e == NULL ? NULL : finish(p, e, name->off);
	}
	if ((x = parse_expr(p)) == NULL) {
		core_expr_free(e);
		return NULL;
	}
	core_expr_add_kid(e, x);
	if (accept_kw(p, "for")) {
		if ((x = parse_expr(p)) == NULL) {
			core_expr_free(e);
			return NULL;
		}
		core_expr_add_kid(e, x);
	}
	if (!accept(p, T_RPAREN)) {
		core_expr_free(e);
		return fail_here(p, "expected FOR or ')'");
	}
	return finish(p, e, name->off);
}

/* position(part IN s), SQL's spelling and DuckDB's only one: the same
 * call as strpos(s, part), so the kids go in strpos's order.  The comma
 * form is refused, its order being anybody's guess. */
static struct core_expr *
parse_position(struct parser *p, struct core_expr *e)
{
	struct core_expr *part, *s;

	if ((part = parse_concat(p)) == NULL) {
		core_expr_free(e);
		return NULL;
	}
	if (!accept_kw(p, "in")) {
		core_expr_free(part);
		core_expr_free(e);
		return fail_here(p, "expected IN: write position(part IN "
		    "string), or strpos(string, part)");
	}
	if ((s = parse_concat(p)) == NULL) {
		core_expr_free(part);
		core_expr_free(e);
		return NULL;
	}
	core_expr_add_kid(e, s);
	core_expr_add_kid(e, part);
	if (!accept(p, T_RPAREN)) {
		core_expr_free(e);
		return fail_here(p, "expected ')'");
	}
	return e;
}

/* A token that can only begin an operand (a name that is no keyword, a
 * quoted name, a literal): one right after another operand is a missing
 * operator or keyword. */
static bool
is_operand_start(const struct parser *p, const struct tok *t)
{
	switch (t->kind) {
	case T_IDENT:
		return !core_expr_is_keyword(p->src + t->off, t->len);
	case T_QIDENT: case T_STRING: case T_INT: case T_DEC: case T_FLOAT:
		return true;
	default:
		return false;
	}
}

/* name '(' ... ')'; the current token is the name. */
static struct core_expr *
parse_call(struct parser *p, const struct tok *name)
{
	struct core_expr *e;
	struct tok *f;

	p->pos += 2;
	f = cur(p);
	if (name->kind == T_IDENT && name->len == 7 &&
	    strncasecmp(p->src + name->off, "extract", 7) == 0 &&
	    (f->kind == T_IDENT || f->kind == T_QIDENT ||
	    f->kind == T_STRING) && is_kw(p, peek(p, 1), "from"))
		return parse_extract(p, name);
	/* extract(year x): two operands side by side, FROM left out. */
	if (name->kind == T_IDENT && name->len == 7 &&
	    strncasecmp(p->src + name->off, "extract", 7) == 0 &&
	    f->kind == T_IDENT && !core_expr_is_keyword(p->src + f->off,
	    f->len) && is_operand_start(p, peek(p, 1))) {
		struct tok *g = peek(p, 1);

		return fail(p, g->off, g->len, "expected FROM: write "
		    "extract(%.*s FROM value)", (int)f->len,
		    p->src + f->off);
	}
	e = core_expr_new(CORE_EXPR_FUNC);
	e->op_off = name->off;
	e->op_len = name->len;
	if (name->kind == T_IDENT)
		core_expr_set_text(e, p->src + name->off, name->len);
	else
		core_expr_set_text(e, name->text, name->text_len);
	if (accept(p, T_RPAREN))
		return finish(p, e, name->off);
	if (cur(p)->kind == T_STAR && peek(p, 1)->kind == T_RPAREN) {
		e->star = true;
		p->pos += 2;
		return finish(p, e, name->off);
	}
	if (accept_kw(p, "distinct"))
		e->distinct = true;
	if (name->kind == T_IDENT && ((name->len == 9 &&
	    strncasecmp(p->src + name->off, "substring", 9) == 0) ||
	    (name->len == 6 &&
	    strncasecmp(p->src + name->off, "substr", 6) == 0)))
		return parse_substring(p, e, name);
	if (name->kind == T_IDENT && name->len == 8 && !e->distinct &&
	    strncasecmp(p->src + name->off, "position", 8) == 0) {
		if ((e = parse_position(p, e)) == NULL)
			return NULL;
		return finish(p, e, name->off);
	}
	if ((e = parse_list(p, e)) == NULL)
		return NULL;
	return finish(p, e, name->off);
}

static struct core_expr *
parse_case(struct parser *p)
{
	struct tok *kw = cur(p);
	struct core_expr *e, *x;

	p->pos++;
	e = core_expr_new(CORE_EXPR_CASE);
	e->op_off = kw->off;
	e->op_len = kw->len;
	if (!is_kw(p, cur(p), "when")) {
		if ((x = parse_expr(p)) == NULL)
			goto fail;
		core_expr_add_kid(e, x);
		e->has_operand = true;
		if (!is_kw(p, cur(p), "when")) {
			fail_here(p, "expected WHEN");
			goto fail;
		}
	}
	while (accept_kw(p, "when")) {
		if ((x = parse_expr(p)) == NULL)
			goto fail;
		core_expr_add_kid(e, x);
		if (!accept_kw(p, "then")) {
			fail_here(p, "expected THEN");
			goto fail;
		}
		if ((x = parse_expr(p)) == NULL)
			goto fail;
		core_expr_add_kid(e, x);
	}
	if (accept_kw(p, "else")) {
		if ((x = parse_expr(p)) == NULL)
			goto fail;
		core_expr_add_kid(e, x);
		e->has_else = true;
	}
	if (!accept_kw(p, "end")) {
		fail_here(p, e->has_else ? "expected END" :
		    "expected WHEN, ELSE or END");
		goto fail;
	}
	return finish(p, e, kw->off);
fail:
	core_expr_free(e);
	return NULL;
}

/* ---- precedence levels, tightest last ---- */

static struct core_expr *
parse_primary(struct parser *p)
{
	struct tok *t = cur(p), *next = peek(p, 1);
	struct core_expr *e;

	switch (t->kind) {
	case T_INT:
	case T_DEC:
	case T_FLOAT:
		return parse_number(p);
	case T_STRING:
		e = literal(CORE_LIT_STRING, t);
		core_expr_set_text(e, t->text, t->text_len);
		p->pos++;
		return e;
	case T_LPAREN:
		p->pos++;
		if ((e = parse_expr(p)) == NULL)
			return NULL;
		if (!accept(p, T_RPAREN)) {
			core_expr_free(e);
			return fail_here(p, "expected ')'");
		}
		e->off = t->off;
		e->len = prev_end(p) - t->off;
		return e;
	case T_QIDENT:
		if (next->kind == T_LPAREN)
			return parse_call(p, t);
		e = core_expr_new(CORE_EXPR_COLUMN);
		core_expr_set_text(e, t->text, t->text_len);
		e->off = e->op_off = t->off;
		e->len = e->op_len = t->len;
		p->pos++;
		return e;
	case T_IDENT:
		break;
	default:
		return fail_here(p, "expected an expression");
	}
	if (is_kw(p, t, "null"))
		return p->pos++, literal(CORE_LIT_NULL, t);
	if (is_kw(p, t, "true") || is_kw(p, t, "false")) {
		e = literal(CORE_LIT_BOOL, t);
		e->value.b = is_kw(p, t, "true");
		p->pos++;
		return e;
	}
	if (is_kw(p, t, "case"))
		return parse_case(p);
	if (is_kw(p, t, "cast"))
		return parse_cast(p);
	/* NOT as an operand ("a = NOT b") reads as far as NOT would at the
	 * start of an expression. */
	if (is_kw(p, t, "not"))
		return parse_not(p);
	if (next->kind == T_STRING && is_kw(p, t, "date"))
		return parse_datetime(p, true);
	if (next->kind == T_STRING && is_kw(p, t, "timestamp"))
		return parse_datetime(p, false);
	if ((next->kind == T_STRING || next->kind == T_INT ||
	    (next->kind == T_MINUS && peek(p, 2)->kind == T_INT)) &&
	    is_kw(p, t, "interval"))
		return parse_interval(p);
	/* A reserved word is no name, of a column or of a function. */
	if (core_expr_is_keyword(p->src + t->off, t->len) &&
	    !is_kw(p, t, "date") && !is_kw(p, t, "timestamp") &&
	    !is_kw(p, t, "interval"))
		return fail_here(p, "expected an expression");
	if (next->kind == T_LPAREN)
		return parse_call(p, t);
	e = core_expr_new(CORE_EXPR_COLUMN);
	core_expr_set_text(e, p->src + t->off, t->len);
	e->off = e->op_off = t->off;
	e->len = e->op_len = t->len;
	p->pos++;
	return e;
}

static struct core_expr *
parse_postfix(struct parser *p)
{
	struct core_expr *e, *c;
	struct tok *op;

	if ((e = parse_primary(p)) == NULL)
		return NULL;
	while ((op = cur(p))->kind == T_COLONS) {
		p->pos++;
		c = node2(CORE_EXPR_CAST, CORE_OP_NONE, e, NULL, op);
		if (parse_type(p, &c->cast_type) != 0) {
			core_expr_free(c);
			return NULL;
		}
		if ((e = finish(p, c, e->off)) == NULL)
			return NULL;
	}
	return e;
}

static struct core_expr *
parse_unary(struct parser *p)
{
	struct tok *op = cur(p);
	struct core_expr *e;

	if (op->kind != T_MINUS && op->kind != T_PLUS)
		return parse_postfix(p);
	if (!enter(p))
		return NULL;
	p->pos++;
	e = parse_unary(p);
	p->depth--;
	if (e == NULL)
		return NULL;
	e = node2(CORE_EXPR_UNARY, op->kind == T_MINUS ? CORE_OP_NEG :
	    CORE_OP_POS, e, NULL, op);
	return finish(p, e, op->off);
}

/* One left-associative level: next (op next)*, ops from map. */
struct binop {
	enum tok_kind tok;
	enum core_expr_op op;
};

static struct core_expr *
parse_binary(struct parser *p, struct core_expr *(*next)(struct parser *),
    const struct binop *map, size_t nmap)
{
	struct core_expr *l, *r;
	struct tok *t;
	size_t i;

	if ((l = next(p)) == NULL)
		return NULL;
	for (;;) {
		t = cur(p);
		for (i = 0; i < nmap && map[i].tok != t->kind; i++)
			;
		if (i == nmap)
			return l;
		p->pos++;
		if ((r = next(p)) == NULL) {
			core_expr_free(l);
			return NULL;
		}
		l = node2(CORE_EXPR_BINARY, map[i].op, l, r, t);
		if ((l = finish(p, l, l->kids[0]->off)) == NULL)
			return NULL;
	}
}

static const struct binop mul_ops[] = {
	{ T_STAR, CORE_OP_MUL }, { T_SLASH, CORE_OP_DIV },
	{ T_PERCENT, CORE_OP_MOD },
};
static const struct binop add_ops[] = {
	{ T_PLUS, CORE_OP_ADD }, { T_MINUS, CORE_OP_SUB },
};
static const struct binop concat_ops[] = { { T_CONCAT, CORE_OP_CONCAT } };
static const struct binop cmp_ops[] = {
	{ T_EQ, CORE_OP_EQ }, { T_NE, CORE_OP_NE }, { T_LT, CORE_OP_LT },
	{ T_LE, CORE_OP_LE }, { T_GT, CORE_OP_GT }, { T_GE, CORE_OP_GE },
};

static struct core_expr *
parse_mul(struct parser *p)
{
	return parse_binary(p, parse_unary, mul_ops, 3);
}

static struct core_expr *
parse_add(struct parser *p)
{
	return parse_binary(p, parse_mul, add_ops, 2);
}

static struct core_expr *
parse_concat(struct parser *p)
{
	return parse_binary(p, parse_add, concat_ops, 1);
}

/* x [NOT] BETWEEN a AND b, x [NOT] IN (...), x [NOT] [I]LIKE y. */
static struct core_expr *
parse_pred(struct parser *p)
{
	struct core_expr *l, *e, *x;
	struct tok *t, *op;
	bool neg;

	if ((l = parse_concat(p)) == NULL)
		return NULL;
	for (;;) {
		t = op = cur(p);
		neg = is_kw(p, t, "not");
		if (neg)
			op = peek(p, 1);
		if (is_kw(p, op, "between")) {
			p->pos += neg ? 2 : 1;
			if ((x = parse_concat(p)) == NULL)
				goto fail;
			e = node2(CORE_EXPR_BETWEEN, CORE_OP_NONE, l, x, op);
			l = e;
			if (!accept_kw(p, "and")) {
				fail_here(p, "expected AND");
				goto fail;
			}
			if ((x = parse_concat(p)) == NULL)
				goto fail;
			core_expr_add_kid(e, x);
		} else if (is_kw(p, op, "in")) {
			p->pos += neg ? 2 : 1;
			if (!accept(p, T_LPAREN)) {
				fail_here(p, "expected '('");
				goto fail;
			}
			e = node2(CORE_EXPR_IN, CORE_OP_NONE, l, NULL, op);
			if ((l = parse_list(p, e)) == NULL)
				return NULL;
		} else if (is_kw(p, op, "like") || is_kw(p, op, "ilike")) {
			p->pos += neg ? 2 : 1;
			if ((x = parse_concat(p)) == NULL)
				goto fail;
			l = node2(CORE_EXPR_LIKE, is_kw(p, op, "like") ?
			    CORE_OP_LIKE : CORE_OP_ILIKE, l, x, op);
		} else if (neg) {
			fail(p, t->off, t->len,
			    "expected BETWEEN, IN, LIKE or ILIKE after NOT");
			goto fail;
		} else {
			return l;
		}
		l->negated = neg;
		if (neg) {
			l->op_off = t->off;
			l->op_len = tok_end(op) - t->off;
		}
		if ((l = finish(p, l, l->kids[0]->off)) == NULL)
			return NULL;
	}
fail:
	core_expr_free(l);
	return NULL;
}

static struct core_expr *
parse_cmp(struct parser *p)
{
	return parse_binary(p, parse_pred, cmp_ops, 6);
}

static struct core_expr *
parse_is(struct parser *p)
{
	struct core_expr *l;
	struct tok *op;
	bool neg;

	if ((l = parse_cmp(p)) == NULL)
		return NULL;
	while (is_kw(p, (op = cur(p)), "is")) {
		p->pos++;
		neg = accept_kw(p, "not");
		if (!accept_kw(p, "null")) {
			core_expr_free(l);
			return fail_here(p, neg ? "expected NULL" :
			    "expected NULL or NOT NULL");
		}
		l = node2(CORE_EXPR_IS_NULL, CORE_OP_NONE, l, NULL, op);
		l->negated = neg;
		l->op_len = prev_end(p) - op->off;
		if ((l = finish(p, l, l->kids[0]->off)) == NULL)
			return NULL;
	}
	return l;
}

static struct core_expr *
parse_not(struct parser *p)
{
	struct tok *op = cur(p);
	struct core_expr *e;

	if (!is_kw(p, op, "not"))
		return parse_is(p);
	if (!enter(p))
		return NULL;
	p->pos++;
	e = parse_not(p);
	p->depth--;
	if (e == NULL)
		return NULL;
	e = node2(CORE_EXPR_UNARY, CORE_OP_NOT, e, NULL, op);
	return finish(p, e, op->off);
}

/* AND and OR by keyword, left-associative. */
static struct core_expr *
parse_kwbinary(struct parser *p, struct core_expr *(*next)(struct parser *),
    const char *kw, enum core_expr_op op)
{
	struct core_expr *l, *r;
	struct tok *t;

	if ((l = next(p)) == NULL)
		return NULL;
	while (is_kw(p, (t = cur(p)), kw)) {
		p->pos++;
		if ((r = next(p)) == NULL) {
			core_expr_free(l);
			return NULL;
		}
		l = node2(CORE_EXPR_BINARY, op, l, r, t);
		if ((l = finish(p, l, l->kids[0]->off)) == NULL)
			return NULL;
	}
	return l;
}

static struct core_expr *
parse_and(struct parser *p)
{
	return parse_kwbinary(p, parse_not, "and", CORE_OP_AND);
}

static struct core_expr *
parse_or(struct parser *p)
{
	return parse_kwbinary(p, parse_and, "or", CORE_OP_OR);
}

static struct core_expr *
parse_expr(struct parser *p)
{
	struct core_expr *e;

	if (!enter(p))
		return NULL;
	e = parse_or(p);
	p->depth--;
	return e;
}

/* ---- entry points ---- */

static int
parser_init(struct parser *p, const char *src, size_t len,
    struct core_err *err)
{
	const char *nul;

	memset(p, 0, sizeof(*p));
	p->src = src;
	p->len = len;
	p->err = err;
	if (len > CORE_EXPR_LEN_MAX)
		return core_err_set(err, CORE_EUSAGE, "expression of %zu bytes "
		    "is too long (limit %zu); filter on a joined table rather "
		    "than a list in the expression", len, CORE_EXPR_LEN_MAX);
	/* Names and strings are kept as C strings: a NUL inside quotes
	 * would cut them short. */
	nul = memchr(src, '\0', len);
	if (nul != NULL)
		return core_expr_err(err, CORE_EUSAGE, src, len,
		    (uint32_t)(nul - src), 1, "unexpected byte 0x00");
	if (lex(p) != 0)
		return CORE_EUSAGE;
	if (p->ntoks == 1)
		return core_expr_err(err, CORE_EUSAGE, src, len, 0, 0,
		    "empty expression");
	return 0;
}

static void
parser_release(struct parser *p)
{
	size_t i;

	for (i = 0; i < p->ntoks; i++)
		free(p->toks[i].text);
	free(p->toks);
}

/* Describes the token at the cursor for "unexpected ..." messages. */
static void *
fail_trailing(struct parser *p, const char *after)
{
	struct tok *t = cur(p);
	unsigned n = t->len > 32 ? 32 : t->len;

	return fail(p, t->off, t->len, "unexpected '%.*s%s' after %s", (int)n,
	    p->src + t->off, n < t->len ? "..." : "", after);
}

int
core_expr_parse(const char *src, size_t len, struct core_expr **out,
    struct core_err *err)
{
	struct parser p;
	struct core_expr *e = NULL;
	int rc;

	*out = NULL;
	if ((rc = parser_init(&p, src, len, err)) != 0) {
		parser_release(&p);
		return rc;
	}
	e = parse_expr(&p);
	if (e != NULL && cur(&p)->kind != T_EOF) {
		fail_trailing(&p, "the expression");
		core_expr_free(e);
		e = NULL;
	}
	parser_release(&p);
	if (e == NULL)
		return CORE_EUSAGE;
	*out = e;
	return 0;
}

/* A column name in a select list: bare (not a keyword) or quoted. */
static char *
parse_name(struct parser *p, const char *what)
{
	struct tok *t = cur(p);

	if (t->kind == T_QIDENT) {
		p->pos++;
		return core_xstrndup(t->text, t->text_len);
	}
	if (t->kind == T_IDENT && !core_expr_is_keyword(p->src + t->off,
	    t->len)) {
		p->pos++;
		return core_xstrndup(p->src + t->off, t->len);
	}
	fail_here(p, what);
	return NULL;
}

static int
parse_item(struct parser *p, struct core_select_item *it)
{
	uint32_t off = cur(p)->off;
	char *name;

	memset(it, 0, sizeof(*it));
	if (accept(p, T_STAR)) {
		it->star = true;
		if (accept_kw(p, "exclude")) {
			if (!accept(p, T_LPAREN)) {
				fail_here(p, "expected '('");
				return -1;
			}
			do {
				struct tok *nt = cur(p);

				name = parse_name(p, "expected a column name");
				if (name == NULL)
					return -1;
				it->exclude = core_xreallocarray(it->exclude,
				    (size_t)it->nexclude + 1,
				    sizeof(*it->exclude));
				it->exclude_span = core_xreallocarray(
				    it->exclude_span,
				    (size_t)it->nexclude + 1,
				    sizeof(*it->exclude_span));
				it->exclude_span[it->nexclude].off = nt->off;
				it->exclude_span[it->nexclude].len = nt->len;
				it->exclude[it->nexclude++] = name;
			} while (accept(p, T_COMMA));
			if (!accept(p, T_RPAREN)) {
				fail_here(p, "expected ',' or ')'");
				return -1;
			}
		}
	} else {
		if ((it->expr = parse_expr(p)) == NULL)
			return -1;
		if (accept_kw(p, "as") &&
		    (it->alias = parse_name(p, "expected a name after AS")) ==
		    NULL)
			return -1;
	}
	it->off = off;
	it->len = prev_end(p) - off;
	return 0;
}

static void
item_release(struct core_select_item *it)
{
	uint32_t i;

	for (i = 0; i < it->nexclude; i++)
		free(it->exclude[i]);
	free(it->exclude);
	free(it->exclude_span);
	core_expr_free(it->expr);
	free(it->alias);
}

int
core_select_parse(const char *src, size_t len, struct core_select **out,
    struct core_err *err)
{
	struct parser p;
	struct core_select *s;
	size_t cap = 0;
	int rc;

	*out = NULL;
	if ((rc = parser_init(&p, src, len, err)) != 0) {
		parser_release(&p);
		return rc;
	}
	s = core_xcalloc(1, sizeof(*s));
	do {
		s->items = core_grow(s->items, &cap, (size_t)s->nitems + 1,
		    sizeof(*s->items), 4);
		rc = parse_item(&p, &s->items[s->nitems]);
		s->nitems++;
		if (rc != 0)
			break;
	} while (accept(&p, T_COMMA));
	if (rc == 0 && cur(&p)->kind != T_EOF) {
		fail_trailing(&p, "the select list");
		rc = -1;
	}
	parser_release(&p);
	if (rc != 0) {
		core_select_free(s);
		return CORE_EUSAGE;
	}
	*out = s;
	return 0;
}

void
core_select_free(struct core_select *s)
{
	uint32_t i;

	if (s == NULL)
		return;
	for (i = 0; i < s->nitems; i++)
		item_release(&s->items[i]);
	free(s->items);
	free(s);
}

char *
core_select_print(const struct core_select *s)
{
	char *buf = NULL, *x;
	size_t len = 0, cap = 0, n;
	uint32_t i, j;

	buf = core_grow(buf, &cap, 1, 1, 64);
	buf[0] = '\0';
#define PUT(str, slen)							\
	do {								\
		buf = core_grow(buf, &cap, len + (slen) + 1, 1, 64);	\
		memcpy(buf + len, (str), (slen));			\
		len += (slen);						\
		buf[len] = '\0';					\
	} while (0)
	for (i = 0; i < s->nitems; i++) {
		const struct core_select_item *it = &s->items[i];
		if (i > 0)
			PUT(", ", 2);
		if (it->star) {
			PUT("*", 1);
			for (j = 0; j < it->nexclude; j++) {
				PUT(j == 0 ? " EXCLUDE (" : ", ",
				    j == 0 ? 10u : 2u);
				core_expr_print_name(&buf, &len, &cap,
				    it->exclude[j], strlen(it->exclude[j]));
			}
			if (it->nexclude > 0)
				PUT(")", 1);
			continue;
		}
		x = core_expr_print(it->expr);
		n = strlen(x);
		PUT(x, n);
		free(x);
		if (it->alias != NULL) {
			PUT(" AS ", 4);
			core_expr_print_name(&buf, &len, &cap, it->alias,
			    strlen(it->alias));
		}
	}
#undef PUT
	buf[len] = '\0';
	return buf;
}
