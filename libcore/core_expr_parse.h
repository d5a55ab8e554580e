/*
 * core_expr_parse.h - SQL expressions and select lists, text to tree.
 *
 * The language is the expression part of SQL as DuckDB spells it:
 * column names (bare, case preserved, or "double quoted" with "" for a
 * quote), literals (42, 1.50, 1e3, 'text' with '' for a quote,
 * DATE '1995-03-15', TIMESTAMP '1995-03-15 10:00:00', INTERVAL '90' DAY,
 * INTERVAL 3 MONTH, TRUE, FALSE, NULL), the operators below, CASE, CAST
 * and x::type, function calls (count(*), count(DISTINCT x)) and
 * extract(field FROM x).  Keywords are case insensitive.
 *
 * Precedence, loosest first (as in PostgreSQL and DuckDB):
 *	OR
 *	AND
 *	NOT
 *	IS [NOT] NULL
 *	= == <> != < <= > >=
 *	[NOT] BETWEEN .. AND ..,  [NOT] IN (..),  [NOT] LIKE,  [NOT] ILIKE
 *	||
 *	+ -
 *	* / %
 *	unary - +
 *	::type
 * Binary operators associate to the left.
 *
 * Errors are CORE_EUSAGE (the text is an argument the user typed) with
 * "column N: what is wrong" and the caret lines of core_expr_caret.
 */
#ifndef CORE_EXPR_PARSE_H
#define CORE_EXPR_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core_err.h"
#include "core_expr.h"

/*
 * Parses the whole of (src, len) as one expression into *out (caller owns;
 * free with core_expr_free).  Spans in the tree are offsets into src.
 * 0, or CORE_EUSAGE with *out NULL and the message on err.
 */
int core_expr_parse(const char *src, size_t len, struct core_expr **out,
    struct core_err *err);

/* One entry of a select list: "*" [EXCLUDE (names)], or EXPR [AS name]. */
struct core_select_item {
	bool star;
	char **exclude;		/* star only: owned names, nexclude of them */
	struct { uint32_t off, len; } *exclude_span;	/* owned, where each
							 * name is written */
	uint32_t nexclude;
	struct core_expr *expr;	/* not star: owned */
	char *alias;		/* owned name after AS, or NULL */
	uint32_t off, len;	/* span of the whole item */
};

/* A parsed select list; heap object from core_select_parse. */
struct core_select {
	uint32_t nitems;
	struct core_select_item *items;	/* owned, nitems >= 1 */
};

/*
 * Parses "*", "* EXCLUDE (a, b)", "EXPR [AS name]", separated by commas,
 * into *out (caller owns; core_select_free).  0 or CORE_EUSAGE.
 */
int core_select_parse(const char *src, size_t len, struct core_select **out,
    struct core_err *err);

void core_select_free(struct core_select *s);	/* NULL is fine */

/* The canonical spelling, items as core_expr_print spells them, ", "
 * between; core_xmalloc'd, caller frees. */
char *core_select_print(const struct core_select *s);

#endif
