/*
 * core_expr.c - expression trees: building, freeing, the canonical
 * printer, and the caret lines of expression errors.
 *
 * The printer puts every operation in parentheses, so its output never
 * depends on precedence: that is what lets tests compare trees by their
 * spelling and re-parse it (print(parse(print(e))) == print(e)).  Names
 * are quoted exactly when the parser would not read them back bare.
 *
 * Trees are at most CORE_EXPR_DEPTH_MAX deep (core_expr.h), so the walks
 * here recurse.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core_alloc.h"
#include "core_expr.h"

struct core_expr *
core_expr_new(enum core_expr_kind kind)
{
	struct core_expr *e = core_xcalloc(1, sizeof(*e));

	e->kind = kind;
	e->height = 1;
	return e;
}

void
core_expr_add_kid(struct core_expr *e, struct core_expr *kid)
{
	/* Exact-size growth: nodes have a handful of children, except IN
	 * lists and CASE, which are still short; no capacity field needed. */
	e->kids = core_xreallocarray(e->kids, (size_t)e->nkids + 1,
	    sizeof(*e->kids));
	e->kids[e->nkids++] = kid;
	if (kid->height + 1 > e->height)
		e->height = kid->height + 1;
}

void
core_expr_set_text(struct core_expr *e, const char *s, size_t len)
{
	free(e->text);
	e->text = core_xstrndup(s, len);
	e->text_len = len;
}

void
core_expr_free(struct core_expr *e)
{
	uint32_t i;

	if (e == NULL)
		return;
	for (i = 0; i < e->nkids; i++)
		core_expr_free(e->kids[i]);
	free(e->kids);
	free(e->text);
	free(e);
}

/* Reserved words: a bare one is never a column name. */
static const char *const keywords[] = {
	"and", "as", "between", "case", "cast", "date", "distinct", "else",
	"end", "false", "from", "ilike", "in", "interval", "is", "like",
	"not", "null", "or", "then", "timestamp", "true", "when",
};

bool
core_expr_is_keyword(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++)
		if (strlen(keywords[i]) == len &&
		    strncasecmp(keywords[i], s, len) == 0)
			return true;
	return false;
}

/* The printer's growing string. */
struct out {
	char *p;
	size_t len, cap;
};

static void
put(struct out *o, const char *s, size_t n)
{
	o->p = core_grow(o->p, &o->cap, o->len + n + 1, 1, 64);
	memcpy(o->p + o->len, s, n);
	o->len += n;
	o->p[o->len] = '\0';
}

static void
puts_(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

static bool
plain_name(const char *s, size_t len)
{
	size_t i;

	if (len == 0 || core_expr_is_keyword(s, len))
		return false;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    c == '_';
		if (!alpha && !(i > 0 && c >= '0' && c <= '9'))
			return false;
	}
	return true;
}

/* Appends s quoted with q, the quote doubled inside. */
static void
put_quoted(struct out *o, char q, const char *s, size_t len)
{
	size_t i, from = 0;

	put(o, &q, 1);
	for (i = 0; i < len; i++) {
		if (s[i] == q) {
			put(o, s + from, i + 1 - from);
			from = i;
		}
	}
	put(o, s + from, len - from);
	put(o, &q, 1);
}

void
core_expr_print_name(char **buf, size_t *len, size_t *cap, const char *name,
    size_t name_len)
{
	struct out o = { *buf, *len, *cap };

	if (plain_name(name, name_len))
		put(&o, name, name_len);
	else
		put_quoted(&o, '"', name, name_len);
	*buf = o.p;
	*len = o.len;
	*cap = o.cap;
}

static void
put_name(struct out *o, const char *s, size_t len)
{
	core_expr_print_name(&o->p, &o->len, &o->cap, s, len);
}

static const char *
op_text(enum core_expr_op op)
{
	switch (op) {
	case CORE_OP_NEG: return "-";
	case CORE_OP_POS: return "+";
	case CORE_OP_NOT: return "NOT ";
	case CORE_OP_MUL: return " * ";
	case CORE_OP_DIV: return " / ";
	case CORE_OP_MOD: return " % ";
	case CORE_OP_ADD: return " + ";
	case CORE_OP_SUB: return " - ";
	case CORE_OP_CONCAT: return " || ";
	case CORE_OP_EQ: return " = ";
	case CORE_OP_NE: return " <> ";
	case CORE_OP_LT: return " < ";
	case CORE_OP_LE: return " <= ";
	case CORE_OP_GT: return " > ";
	case CORE_OP_GE: return " >= ";
	case CORE_OP_AND: return " AND ";
	case CORE_OP_OR: return " OR ";
	case CORE_OP_LIKE: return " LIKE ";
	case CORE_OP_ILIKE: return " ILIKE ";
	case CORE_OP_NONE: break;
	}
	return " ? ";
}

static const char *
unit_text(enum core_expr_unit u)
{
	switch (u) {
	case CORE_UNIT_DAY: return "DAY";
	case CORE_UNIT_MONTH: return "MONTH";
	case CORE_UNIT_YEAR: return "YEAR";
	case CORE_UNIT_NONE: break;
	}
	return "?";
}

static void print_node(struct out *o, const struct core_expr *e);

static void
print_literal(struct out *o, const struct core_expr *e)
{
	switch (e->lit) {
	case CORE_LIT_NULL:
		puts_(o, "NULL");
		return;
	case CORE_LIT_BOOL:
		puts_(o, e->value.b ? "TRUE" : "FALSE");
		return;
	case CORE_LIT_INT:
	case CORE_LIT_DECIMAL:
	case CORE_LIT_FLOAT:
		put(o, e->text, e->text_len);
		return;
	case CORE_LIT_STRING:
		break;
	case CORE_LIT_DATE:
		puts_(o, "DATE ");
		break;
	case CORE_LIT_TIMESTAMP:
		puts_(o, "TIMESTAMP ");
		break;
	case CORE_LIT_INTERVAL:
		puts_(o, "INTERVAL ");
		break;
	}
	put_quoted(o, '\'', e->text, e->text_len);
	if (e->lit == CORE_LIT_INTERVAL) {
		puts_(o, " ");
		puts_(o, unit_text(e->unit));
	}
}

static void
print_list(struct out *o, struct core_expr *const *kids, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		if (i > 0)
			puts_(o, ", ");
		print_node(o, kids[i]);
	}
}

static void
print_case(struct out *o, const struct core_expr *e)
{
	uint32_t i = 0, end = e->nkids - (e->has_else ? 1 : 0);

	puts_(o, "CASE");
	if (e->has_operand) {
		puts_(o, " ");
		print_node(o, e->kids[i++]);
	}
	for (; i + 1 < end; i += 2) {
		puts_(o, " WHEN ");
		print_node(o, e->kids[i]);
		puts_(o, " THEN ");
		print_node(o, e->kids[i + 1]);
	}
	if (e->has_else) {
		puts_(o, " ELSE ");
		print_node(o, e->kids[e->nkids - 1]);
	}
	puts_(o, " END");
}

static void
print_node(struct out *o, const struct core_expr *e)
{
	char tbuf[CORE_TYPE_NAME_MAX];

	switch (e->kind) {
	case CORE_EXPR_COLUMN:
		put_name(o, e->text, e->text_len);
		return;
	case CORE_EXPR_LITERAL:
		print_literal(o, e);
		return;
	case CORE_EXPR_UNARY:
		puts_(o, "(");
		puts_(o, op_text(e->op));
		print_node(o, e->kids[0]);
		puts_(o, ")");
		return;
	case CORE_EXPR_BINARY:
	case CORE_EXPR_LIKE:
		puts_(o, "(");
		print_node(o, e->kids[0]);
		if (e->negated)
			puts_(o, " NOT");
		puts_(o, op_text(e->op));
		print_node(o, e->kids[1]);
		puts_(o, ")");
		return;
	case CORE_EXPR_IS_NULL:
		puts_(o, "(");
		print_node(o, e->kids[0]);
		puts_(o, e->negated ? " IS NOT NULL)" : " IS NULL)");
		return;
	case CORE_EXPR_BETWEEN:
		puts_(o, "(");
		print_node(o, e->kids[0]);
		puts_(o, e->negated ? " NOT BETWEEN " : " BETWEEN ");
		print_node(o, e->kids[1]);
		puts_(o, " AND ");
		print_node(o, e->kids[2]);
		puts_(o, ")");
		return;
	case CORE_EXPR_IN:
		puts_(o, "(");
		print_node(o, e->kids[0]);
		puts_(o, e->negated ? " NOT IN (" : " IN (");
		print_list(o, e->kids + 1, e->nkids - 1);
		puts_(o, "))");
		return;
	case CORE_EXPR_CASE:
		print_case(o, e);
		return;
	case CORE_EXPR_CAST:
		puts_(o, "CAST(");
		print_node(o, e->kids[0]);
		puts_(o, " AS ");
		puts_(o, core_type_name(e->cast_type, tbuf));
		puts_(o, ")");
		return;
	case CORE_EXPR_FUNC:
		/* The parser reads only SQL's spelling of position. */
		if (e->text_len == 8 && strncasecmp(e->text, "position",
		    8) == 0 && e->nkids == 2 && !e->star && !e->distinct) {
			puts_(o, "position(");
			print_node(o, e->kids[1]);
			puts_(o, " IN ");
			print_node(o, e->kids[0]);
			puts_(o, ")");
			return;
		}
		put_name(o, e->text, e->text_len);
		puts_(o, "(");
		if (e->star)
			puts_(o, "*");
		if (e->distinct)
			puts_(o, "DISTINCT ");
		print_list(o, e->kids, e->nkids);
		puts_(o, ")");
		return;
	case CORE_EXPR_EXTRACT:
		puts_(o, "extract(");
		put_name(o, e->text, e->text_len);
		puts_(o, " FROM ");
		print_node(o, e->kids[0]);
		puts_(o, ")");
		return;
	}
	puts_(o, "?");
}

char *
core_expr_print(const struct core_expr *e)
{
	struct out o = { NULL, 0, 0 };

	put(&o, "", 0);
	print_node(&o, e);
	return o.p;
}

/* Caret lines: an appender that counts what it could not write, so the
 * caller learns the length it needed, as snprintf does. */
struct cbuf {
	char *p;
	size_t cap, len;
};

static void
cput(struct cbuf *b, char c)
{
	if (b->len + 1 < b->cap)
		b->p[b->len] = c;
	b->len++;
}

static void
cputs(struct cbuf *b, const char *s)
{
	while (*s)
		cput(b, *s++);
}

static bool
utf8_cont(char c)
{
	return ((unsigned char)c & 0xC0) == 0x80;
}

uint32_t
core_expr_column(const char *src, size_t len, uint32_t off)
{
	uint32_t col = 1;
	size_t i;

	for (i = 0; i < len && i < off; i++)
		if (!utf8_cont(src[i]))
			col++;
	return col;
}

/* Columns of the caret window: the span starts within its first third. */
#define CARET_WIDTH 72
#define CARET_LEAD 24

size_t
core_expr_caret(const char *src, size_t len, uint32_t off, uint32_t span,
    char *buf, size_t cap)
{
	struct cbuf b = { buf, cap, 0 };
	size_t lo = 0, hi, i, n;
	size_t end;

	if (off > len)
		off = (uint32_t)len;
	if (span > len - off)
		span = (uint32_t)(len - off);
	end = off + span;
	if (core_expr_column(src, len, (uint32_t)len) - 1 > CARET_WIDTH) {
		/* Back up CARET_LEAD characters from the span. */
		lo = off;
		for (n = 0; lo > 0 && n < CARET_LEAD; n++) {
			lo--;
			while (lo > 0 && utf8_cont(src[lo]))
				lo--;
		}
	}
	hi = lo;
	for (n = 0; hi < len && n < CARET_WIDTH; n++) {
		hi++;
		while (hi < len && utf8_cont(src[hi]))
			hi++;
	}
	cputs(&b, "  ");
	if (lo > 0)
		cputs(&b, "...");
	for (i = lo; i < hi; i++) {
		unsigned char c = (unsigned char)src[i];
		/* One column per character, and no NUL or escape sequence
		 * in a message that goes to a terminal. */
		if (c == '\t' || c == '\n' || c == '\r')
			c = ' ';
		else if (c < 0x20 || c == 0x7f)
			c = '?';
		cput(&b, (char)c);
	}
	if (hi < len)
		cputs(&b, "...");
	cputs(&b, "\n  ");
	if (lo > 0)
		cputs(&b, "   ");
	for (i = lo; i < off; i++)
		if (!utf8_cont(src[i]))
			cput(&b, ' ');
	n = 0;
	for (i = off; i < end && i < hi; i++)
		if (!utf8_cont(src[i]))
			cput(&b, '^'), n++;
	if (n == 0)
		cput(&b, '^');
	if (cap > 0)
		buf[b.len < cap ? b.len : cap - 1] = '\0';
	return b.len;
}

int
core_expr_err(struct core_err *err, int code, const char *src, size_t len,
    uint32_t off, uint32_t span, const char *fmt, ...)
{
	char msg[CORE_ERR_MSG_MAX / 2];
	char caret[CORE_ERR_MSG_MAX / 2];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	core_expr_caret(src, len, off, span, caret, sizeof(caret));
	return core_err_set(err, code, "column %u: %s\n%s",
	    (unsigned)core_expr_column(src, len, off), msg, caret);
}
