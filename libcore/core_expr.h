/*
 * core_expr.h - the syntax tree of colpipe's SQL expressions, its
 * canonical printer, and the error caret every stage of the expression
 * engine reports with.
 *
 * One tree serves the parser (core_expr_parse.h), the binder (which fills
 * the type slot of each node) and the evaluator.  A node is a kind, an
 * operator, an ordered list of children and, for leaves, the text and
 * value of what was written.  Every node remembers the byte span of the
 * source it came from, so a later stage can put a caret under the very
 * operand that does not type-check.
 *
 * Invariants:
 *   - a tree is at most CORE_EXPR_DEPTH_MAX nodes deep (the parser refuses
 *     deeper input), so every walker may recurse;
 *   - a node owns its children and its text; core_expr_free frees all;
 *   - text is NUL-terminated and also has its length (a string literal
 *     may hold any byte but NUL, since it came from a C string).
 *
 * Expressions are short (a --where or a --select argument), so nodes are
 * allocated one by one; nothing here is on a per-row path.
 */
#ifndef CORE_EXPR_H
#define CORE_EXPR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core_col.h"
#include "core_err.h"

/* Deepest tree (and deepest nesting of the input) accepted. */
#define CORE_EXPR_DEPTH_MAX 1000
/* Longest expression text accepted, in bytes (16 MiB): far past any a
 * person writes (one argument of a command is at most 128 KiB), short of
 * one whose tree costs real memory. */
#define CORE_EXPR_LEN_MAX ((size_t)1 << 24)

enum core_expr_kind {
	CORE_EXPR_COLUMN = 1,	/* text: the name, case preserved */
	CORE_EXPR_LITERAL,	/* lit, text, value */
	CORE_EXPR_UNARY,	/* op NEG, POS or NOT; kids[0] */
	CORE_EXPR_BINARY,	/* op arithmetic, ||, comparison, AND, OR */
	CORE_EXPR_IS_NULL,	/* kids[0]; negated: IS NOT NULL */
	CORE_EXPR_BETWEEN,	/* kids x, low, high; negated: NOT BETWEEN */
	CORE_EXPR_IN,		/* kids x, then the list (>= 1); negated */
	CORE_EXPR_LIKE,		/* kids x, pattern; op LIKE or ILIKE; negated */
	CORE_EXPR_CASE,		/* see has_operand, has_else below */
	CORE_EXPR_CAST,		/* kids[0]; cast_type */
	CORE_EXPR_FUNC,		/* text: name as written; kids: arguments;
				 * star: f(*); distinct: f(DISTINCT ...) */
	CORE_EXPR_EXTRACT,	/* text: the field, lowercased ("year");
				 * kids[0] */
};

enum core_expr_op {
	CORE_OP_NONE = 0,
	CORE_OP_NEG, CORE_OP_POS, CORE_OP_NOT,
	CORE_OP_MUL, CORE_OP_DIV, CORE_OP_MOD,
	CORE_OP_ADD, CORE_OP_SUB,
	CORE_OP_CONCAT,
	CORE_OP_EQ, CORE_OP_NE, CORE_OP_LT, CORE_OP_LE, CORE_OP_GT,
	CORE_OP_GE,
	CORE_OP_AND, CORE_OP_OR,
	CORE_OP_LIKE, CORE_OP_ILIKE,
};

enum core_expr_lit {
	CORE_LIT_NULL = 1,
	CORE_LIT_BOOL,		/* value.b */
	CORE_LIT_INT,		/* text: the digits as written, any number
				 * of them (a minus sign is a unary NEG
				 * above the literal); the binder types it
				 * by its value */
	CORE_LIT_DECIMAL,	/* text only ("1.50"), scale = digits after
				 * the point; the binder sizes it */
	CORE_LIT_FLOAT,		/* value.f; text as written ("1e3") */
	CORE_LIT_STRING,	/* text: the value, '' unescaped */
	CORE_LIT_DATE,		/* value.i: days since 1970-01-01; text */
	CORE_LIT_TIMESTAMP,	/* value.i: microseconds since the epoch */
	CORE_LIT_INTERVAL,	/* text: the quantity as written ("90");
				 * unit */
};

enum core_expr_unit {
	CORE_UNIT_NONE = 0,
	CORE_UNIT_DAY, CORE_UNIT_MONTH, CORE_UNIT_YEAR,
};

/*
 * CASE children: [operand if has_operand] (when, then)... [else if
 * has_else]; so nkids = has_operand + 2 * nwhen + has_else, nwhen >= 1.
 */
struct core_expr {
	enum core_expr_kind kind;
	enum core_expr_op op;
	bool negated;		/* NOT BETWEEN, NOT IN, NOT LIKE, IS NOT */
	bool star;		/* FUNC: count(*) */
	bool distinct;		/* FUNC: count(DISTINCT x) */
	bool has_operand;	/* CASE x WHEN ... */
	bool has_else;		/* CASE ... ELSE v END */
	uint32_t nkids;
	struct core_expr **kids;	/* owned, nkids entries */

	char *text;			/* owned, NUL-terminated, or NULL */
	size_t text_len;
	enum core_expr_lit lit;		/* LITERAL only */
	enum core_expr_unit unit;	/* INTERVAL literal only */
	union {
		bool b;
		int64_t i;
		double f;
	} value;
	struct core_coltype cast_type;	/* CAST only */

	/* Source spans, byte offsets into the parsed text: the whole
	 * construct (parentheses around it included), and its operator or
	 * keyword (the "+", the "BETWEEN", the "::") for carets that point
	 * at the operation rather than at the operands. */
	uint32_t off, len;
	uint32_t op_off, op_len;

	/* Height of the subtree, 1 for a leaf; core_expr_add_kid keeps
	 * it, so depth limits cost nothing to check. */
	uint32_t height;

	/* Filled by the binder; id 0 while unbound. */
	struct core_coltype type;
};

/* A new node of the given kind, zeroed otherwise; caller owns it. */
struct core_expr *core_expr_new(enum core_expr_kind kind);

/* Appends kid (ownership passes to e) and updates e->height. */
void core_expr_add_kid(struct core_expr *e, struct core_expr *kid);

/* Sets e->text to a copy of (s, len). */
void core_expr_set_text(struct core_expr *e, const char *s, size_t len);

/* Frees e, its children and texts; NULL is fine. */
void core_expr_free(struct core_expr *e);

/*
 * The canonical, fully parenthesized spelling of e: every operation in
 * parentheses, "==" as "=", "!=" as "<>", keywords upper case, type names
 * as core_type_name spells them, names quoted only where they must be.
 * Parsing it gives back a tree that prints the same.  Returns a
 * core_xmalloc'd NUL-terminated string the caller frees.
 */
char *core_expr_print(const struct core_expr *e);

/* Appends name to the string (*buf, *len, capacity *cap; core_grow'n),
 * in double quotes when it is not a plain identifier or is a keyword. */
void core_expr_print_name(char **buf, size_t *len, size_t *cap,
    const char *name, size_t name_len);

/* Whether (s, len) is a reserved word of the language (AND, CASE, ...),
 * case insensitive; such a name must be quoted to be a column.  DATE,
 * TIMESTAMP and INTERVAL count too: bare, they may start a literal. */
bool core_expr_is_keyword(const char *s, size_t len);

/*
 * The two lines that show where an error is:
 *	  (a + b * c
 *	             ^
 * src (len bytes) echoed after two spaces, carets under the span [off,
 * off + span) (one caret when span is 0, e.g. at the end of the input).
 * Columns count UTF-8 characters; tabs and newlines echo as spaces, other
 * control bytes as '?'; a long source is cut to a window around the span,
 * marked "...".  Writes at most
 * cap bytes including the NUL into buf; returns the length it needed.
 */
size_t core_expr_caret(const char *src, size_t len, uint32_t off,
    uint32_t span, char *buf, size_t cap);

/* The column (1-based, in UTF-8 characters) of byte offset off. */
uint32_t core_expr_column(const char *src, size_t len, uint32_t off);

/*
 * Sets err to "column N: <message>\n<caret lines>" for the span [off,
 * off + span) of src and returns code.  For every stage's errors:
 *	return core_expr_err(err, CORE_EUSAGE, src, len, e->off, e->len,
 *	    "cannot add %s and %s", ...);
 */
int core_expr_err(struct core_err *err, int code, const char *src,
    size_t len, uint32_t off, uint32_t span, const char *fmt, ...)
	__attribute__((format(printf, 7, 8)));

#endif
