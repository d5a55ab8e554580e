/*
 * core_expr_bind.h - typing a parsed expression against a schema: the
 * bound tree that core_expr_eval runs over column batches.
 *
 * Binding resolves column names (exactly, then case-insensitively when
 * that is unambiguous), types every node with DuckDB's result types,
 * inserts the implicit casts, compiles LIKE patterns and IN lists, and
 * folds subtrees made only of literals into constants.  Every error is
 * CORE_EUSAGE (the expression is an argument the user typed) with the
 * caret lines of core_expr_err under the offending operand.
 *
 * Result types (DuckDB's, within what core_col can hold):
 *   - integer literals are int32 up to 2147483647 (negated too), else
 *     int64 when they fit (-2147483648 is one, but an int32 beside an
 *     int32 that is no literal, as DuckDB's literals take such a
 *     type when it holds them), else decimal(38,0),
 *     colpipe's form of DuckDB's HUGEINT, when they have at most 38
 *     digits; one of 39 digits that DuckDB holds in a HUGEINT or
 *     UHUGEINT is a bind error, and past those (beyond 2^128 - 1, or
 *     below -2^127) a float64 as in DuckDB (inf past DBL_MAX).  Minus
 *     signs straight above the literal are part of it.  Next to a
 *     decimal an int32 (a literal too) counts as decimal(10,0), an int64
 *     as decimal(19,0); a decimal literal has every digit written (0.5
 *     is decimal(2,1), .5 decimal(1,1)), and one of more than 38 digits
 *     is a float64;
 *   - int32 op int32 is int32, int64 with either int64 (+ - * %); an
 *     overflow at run time is CORE_EDATA "row N: ... overflow", never a
 *     wrap;
 *   - decimal(p1,s1) + or - decimal(p2,s2) is decimal(max(p1-s1,p2-s2) +
 *     max(s1,s2) + 1, max(s1,s2)); * is decimal(p1+p2, s1+s2); either
 *     at most 38 digits, and at most 18 when p1, p2 <= 18 (for * only
 *     when s1+s2 < 18), as DuckDB keeps such results in 64 bits; a
 *     product of scale s1+s2 > 38 is a bind error.  Results of 19..38
 *     digits are decimal128 (CORE_PHYS_I128).  A value beyond
 *     +-(10^p - 1) of its type is a run-time overflow;
 *   - / is always float64 division (DuckDB's "/" on integers and
 *     decimals), IEEE: x / 0 is inf, -inf or nan; % on integers is the
 *     C remainder (sign of the dividend), x % 0 is NULL; % on floats is
 *     fmod; decimal % decimal (or integer) is decimal(max(p1-s1,p2-s2) +
 *     max(s1,s2), max(s1,s2)) (so d % 2 on a decimal(9,2) is
 *     decimal(12,2)), and float64 when that passes 38 digits;
 *   - any operation with a float64 is float64;
 *   - CASE, coalesce, greatest and least share decimal(max(p1-s1,
 *     p2-s2) + max(s1,s2), max(s1,s2)), fraction digits dropped past 38
 *     (DuckDB's common type, taken from a CASE's ELSE value on);
 *   - comparisons take any two numbers (compared exactly: decimals at
 *     the larger scale, floats as doubles), strings (bytewise), bools,
 *     dates and timestamps (a date is midnight), and a string literal
 *     next to a date or timestamp reads as one;
 *   - DATE +/- INTERVAL n DAY|MONTH|YEAR and TIMESTAMP +/- INTERVAL are
 *     timestamps (DuckDB's types; a month step keeps the day of month,
 *     clamped to the month's length), and so is date_add(x, INTERVAL
 *     ...); DATE +/- integer is a date; DATE - DATE is int64 days;
 *   - NULL alone takes the type its context needs; an expression that is
 *     NULL and nothing else is bool;
 *   - a || b is a string (other types cast to their text); greatest and
 *     least skip NULLs (NULL only when all are);
 *   - round(x[, n]) (n a constant, half away from zero), floor and ceil:
 *     float64 on float64; on decimal(p,s) exact, decimal(p,0), or
 *     decimal(p,n) for round(x, n) with 0 <= n < s, the type unchanged
 *     for n >= s; round on an integer keeps its type (n < 0 rounds to
 *     tens); floor and ceil of an integer are float64 (DuckDB's double);
 *     a result beyond its type (round(999::decimal(3,0), -1)) is a
 *     run-time overflow, where DuckDB lets it through;
 *   - substring(s, start[, len]), also substr and substring(s FROM a
 *     FOR b): 1-based over UTF-8 characters; start 0 is just before the
 *     first character, a negative start counts from the end, a
 *     negative len takes the characters before start; start or len
 *     outside [-2^32, 2^32) is a run-time error (DuckDB's limits);
 *     left(s, n) and right(s, n) (n < 0: all but |n|) are strings;
 *     strpos/instr/position(s, x) is the int64 character position of
 *     the first match (0 none, 1 for ''); replace(s, a, b) replaces
 *     every a (an empty a nothing); ends_with/suffix are bool;
 *   - date_part('part', x) and extract(part FROM x), and the functions
 *     year, quarter, month, week/weekofyear (ISO), day/dayofmonth, hour,
 *     minute, second, millisecond, microsecond, dayofweek (Sunday 0),
 *     isodow (Monday 1), dayofyear, isoyear: int64, DuckDB's fields
 *     (millisecond and microsecond count the seconds too); epoch is
 *     float64 seconds.  The part is a constant string, DuckDB's names and
 *     abbreviations ('y', 'mon', 'h', 'ms', ...);
 *   - date_trunc('part', x) on a date or a timestamp is a timestamp
 *     (DuckDB's type for either), for year, quarter, month, week (ISO,
 *     from Monday), day, hour, minute, second, millisecond, microsecond
 *     and isoyear;
 *   - date_diff/datediff('part', a, b) is int64: the part boundaries
 *     crossed from a to b (year, quarter, month on the calendar; day on
 *     dates; hour and below on the timestamps' floors); a week is whole
 *     7-day spans of the day difference, toward zero, as in DuckDB;
 *   - sign is int32 (DuckDB's tinyint, which core_col lacks); sqrt, ln,
 *     log10, exp, power/pow are float64, and the square root of a
 *     negative number or the logarithm of one <= 0 a run-time error.
 *
 * Supported: columns, every literal, + - * / %, ||, comparisons, AND OR
 * NOT, IS [NOT] NULL, [NOT] BETWEEN, [NOT] IN, [NOT] LIKE / ILIKE
 * (no ESCAPE; ILIKE folds ASCII only), CASE, CAST and ::, and abs,
 * lower/lcase, upper/ucase (ASCII), length/len (UTF-8 characters),
 * coalesce, nullif, greatest, least, concat, starts_with/prefix,
 * contains, ends_with/suffix, trim, ltrim, rtrim, substring/substr, left,
 * right, strpos/instr/position, replace, floor, ceil/ceiling, round,
 * sign, sqrt, ln, log10, exp, power/pow, the date functions above,
 * date_trunc/datetrunc, date_diff/datediff and date_add.  Not yet:
 * date_sub (DuckDB's whole-unit difference), position(x IN s), decade
 * and century parts, trim of other characters, aggregates.
 *
 * Invariants of a bound tree: every node's type is a core_col type; the
 * children of an arithmetic or comparison node have the physical class
 * the node expects (casts inserted); LIKE patterns and IN lists are
 * constants.  The tree borrows nothing from the AST or the schema once
 * bound, except that eval reads batches laid out like the schema.
 *
 * Expressions are short; binding allocates freely.  The node struct is
 * public so that core_expr_eval can walk it; nothing else should touch
 * its fields.
 */
#ifndef CORE_EXPR_BIND_H
#define CORE_EXPR_BIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core_col.h"
#include "core_err.h"
#include "core_expr.h"

/* How a node's values are held while evaluating: one class per C type. */
enum core_phys {
	CORE_PHYS_BOOL = 1,	/* uint8_t 0/1 */
	CORE_PHYS_I64,		/* int64_t: int32, int64, decimal
				 * (scaled), date (days), timestamp
				 * (micros) */
	CORE_PHYS_F64,		/* double */
	CORE_PHYS_STR,		/* struct core_bstr */
	CORE_PHYS_I128,		/* core_i128: decimal128 (scaled); node
				 * scratch is 16-byte aligned */
};

/* A string value during evaluation: a view into a column or an arena. */
struct core_bstr {
	const char *p;
	uint32_t n;
};

/*
 * A vector of node results, indexed by batch row (not by position in
 * the selection); only rows of the selection it was computed for mean
 * anything.  m is ~0u, or 0 for a constant, whose value is slot 0 for
 * every row: readers index v[r & m] and nul[r & m].
 */
struct core_bvec {
	const void *v;
	const uint8_t *nul;	/* 1 = NULL; NULL pointer: no row is NULL */
	uint32_t m;
};

enum core_bnode_kind {
	CORE_BN_COLUMN = 1,	/* col */
	CORE_BN_CONST,		/* k */
	CORE_BN_NEG,		/* kids[0] */
	CORE_BN_ARITH,		/* op ADD SUB MUL DIV MOD; kids 0, 1 */
	CORE_BN_CMP,		/* op EQ..GE; kids 0, 1 */
	CORE_BN_AND,		/* kids 0, 1 */
	CORE_BN_OR,		/* kids 0, 1 */
	CORE_BN_NOT,		/* kids[0] */
	CORE_BN_IS_NULL,	/* kids[0]; negated */
	CORE_BN_IN,		/* kids[0]; set; negated */
	CORE_BN_LIKE,		/* kids[0]; like; negated */
	CORE_BN_CASE,		/* (when, then)..., else (always there) */
	CORE_BN_CAST,		/* kids[0] to type */
	CORE_BN_DATE_ADD,	/* kids[0] (date or timestamp) + months,
				 * days (signed) */
	CORE_BN_FUNC,		/* fn; kids: arguments */
	CORE_BN_REF,		/* ref's values, already evaluated
				 * (core_expr_share) */
};

enum core_bfunc {
	CORE_BF_ABS = 1, CORE_BF_LOWER, CORE_BF_UPPER, CORE_BF_LENGTH,
	CORE_BF_COALESCE,
	CORE_BF_CONCAT,		/* ||: kids strings */
	CORE_BF_NULLIF,		/* kids a, (a = b) */
	CORE_BF_GREATEST, CORE_BF_LEAST,
	CORE_BF_STARTS_WITH, CORE_BF_CONTAINS, CORE_BF_ENDS_WITH,
	CORE_BF_TRIM, CORE_BF_LTRIM, CORE_BF_RTRIM,	/* spaces */
	CORE_BF_FLOOR, CORE_BF_CEIL, CORE_BF_ROUND,	/* float64; ROUND:
							 * digits in days */
	CORE_BF_DEC_ROUND,	/* I64: floor, ceil or round (part) by fa,
				 * then times fb, within lo..hi; I128: the
				 * same with wfa, wfb, wlo, whi */
	CORE_BF_SUBSTR,		/* kids s, start, [len] (int64) */
	CORE_BF_LEFT, CORE_BF_RIGHT,	/* kids s, n (int64) */
	CORE_BF_STRPOS,		/* kids s, needle */
	CORE_BF_REPLACE,	/* kids s, from, to */
	CORE_BF_DATE_PART,	/* part; kids[0] date or timestamp */
	CORE_BF_DATE_TRUNC,	/* part; kids[0] date or timestamp */
	CORE_BF_DATE_DIFF,	/* part; kids a, b both date or both
				 * timestamp */
	CORE_BF_SIGN,
	CORE_BF_SQRT, CORE_BF_LN, CORE_BF_LOG10, CORE_BF_EXP,
	CORE_BF_POWER,		/* float64 */
};

/* The fields of date_part, extract, date_trunc and date_diff. */
enum core_dpart {
	CORE_DP_YEAR = 1, CORE_DP_QUARTER, CORE_DP_MONTH, CORE_DP_WEEK,
	CORE_DP_DAY, CORE_DP_HOUR, CORE_DP_MINUTE, CORE_DP_SECOND,
	CORE_DP_MILLISECOND, CORE_DP_MICROSECOND,
	/* date_part and extract only: */
	CORE_DP_DOW, CORE_DP_ISODOW, CORE_DP_DOY, CORE_DP_ISOYEAR,
	CORE_DP_EPOCH,
};

/* The rounding of CORE_BF_DEC_ROUND. */
enum core_rmode { CORE_RM_FLOOR = 1, CORE_RM_CEIL, CORE_RM_HALF_AWAY };

/* A compiled LIKE pattern; see core_expr_bind.c. */
enum core_like_kind {
	CORE_LIKE_ALL = 1,	/* "%": every non-NULL string */
	CORE_LIKE_EXACT,	/* no wildcard: equality */
	CORE_LIKE_PREFIX,	/* "abc%" */
	CORE_LIKE_SUFFIX,	/* "%abc" */
	CORE_LIKE_CONTAINS,	/* "%abc%" */
	CORE_LIKE_GENERAL,	/* anything else, and every ILIKE */
};

struct core_like {
	enum core_like_kind kind;
	bool fold;		/* ILIKE: ASCII case folded */
	char *pat;		/* owned; the needle, or the whole pattern
				 * (lowercased when fold) */
	uint32_t len;
};

/* An IN list: sorted distinct values of the probe's class. */
struct core_inset {
	uint32_t n;
	bool has_null;		/* a NULL item: no match means NULL */
	int64_t *i;		/* owned, I64 (and BOOL) probes */
	core_i128 *w;		/* owned, I128 probes */
	double *f;		/* owned, F64 probes */
	struct core_bstr *s;	/* owned views into sbytes */
	char *sbytes;		/* owned */
};

struct core_bnode {
	enum core_bnode_kind kind;
	enum core_expr_op op;
	bool negated;
	struct core_coltype type;
	enum core_phys phys;
	uint32_t nkids;
	struct core_bnode **kids;	/* owned */
	uint32_t off, len;		/* source span, for run-time errors */

	int col;			/* COLUMN: index in the schema */
	const struct core_bnode *ref;	/* REF: borrowed, another tree's
					   root */
	struct {			/* CONST; also a folded node's value */
		bool null;
		bool ilit;		/* an integer literal as written, not
					 * a folded value (int_pair) */
		uint8_t b;
		int64_t i;
		core_i128 w;		/* I128 */
		double f;
		char *s;		/* owned */
		uint32_t slen;
	} k;
	/* ARITH over I64: operands scaled by fa, fb (decimal + and -);
	 * results outside [lo, hi] overflow.  CMP over I64: operands times
	 * fa, fb in 128 bits.  CAST: the scale factor. */
	int64_t fa, fb, lo, hi;
	/* The same for I128 nodes (CMP: when its operands are I128);
	 * wlo, whi are set with the type. */
	core_i128 wfa, wfb, wlo, whi;
	int32_t months, days;		/* DATE_ADD */
	enum core_bfunc fn;
	int part;			/* DATE_*: core_dpart; DEC_ROUND:
					 * core_rmode */
	struct core_like like;
	struct core_inset set;

	/* The evaluator's scratch, sized for the largest batch so far and
	 * kept from batch to batch; freed with the tree. */
	struct core_bvec out;
	void *buf;
	size_t buf_cap;
	uint8_t *nulbuf;
	size_t nul_cap;
	uint32_t *sel[3];
	size_t sel_cap[3];
	char *arena;
	size_t arena_cap;
	struct core_bstr kbstr;		/* CONST strings' view */
};

/* A bound expression: heap object from core_expr_bind. */
struct core_expr_bound {
	struct core_bnode *root;	/* owned */
	char *src;			/* owned copy of the source text */
	size_t src_len;
	/* Added to batch row indices in run-time error messages, so a
	 * caller can name rows of its whole input; 0 by default. */
	uint64_t row_base;
	uint32_t *ident;		/* eval's scratch: rows 0, 1, ... */
	size_t ident_cap;
};

/*
 * Binds e (parsed from src, len bytes, whose spans it holds) against
 * schema into *out (caller owns; core_expr_bound_free).  Fills e->type
 * of every AST node reached with its type.  0, or CORE_EUSAGE with *out
 * NULL and "column N: message" plus caret lines on err.  An unknown
 * column names the columns there are and the closest spelling.
 */
int core_expr_bind(struct core_expr *e, const char *src, size_t len,
    const struct core_schema *schema, struct core_expr_bound **out,
    struct core_err *err);

/* The result type of a bound expression. */
struct core_coltype core_expr_bound_type(const struct core_expr_bound *b);

/* Whether the whole expression folded to a constant. */
bool core_expr_bound_is_const(const struct core_expr_bound *b);

void core_expr_bound_free(struct core_expr_bound *b);	/* NULL is fine */

/*
 * Common subexpressions of a select list: where a part of x[j] is
 * computed just as the whole of an earlier x[i] is (columns, constants,
 * negation, arithmetic, casts), x[j] reads x[i]'s values instead of
 * computing them again.  The caller then evaluates x[0..n) in order,
 * over the same rows each time (core_scan does), and evaluates x[j] only
 * while x[i] lives.  NULL entries are skipped.  Returns the parts
 * shared.
 */
uint32_t core_expr_share(struct core_expr_bound *const *x, uint32_t n);

#endif
