/*
 * test_expr_parse.c - the expression lexer, parser and printer.
 *
 * A table of expressions with their fully parenthesized canonical print
 * pins every construct and the precedence rules.  Several thousand random
 * trees, built directly (not by the parser) from every kind of node with
 * awkward names and strings, must print, parse and print the same; in
 * every re-parsed tree each node's source span, cut out and parsed alone,
 * must print as the node does, and its operator span must spell the
 * operator.  Every error has its exact message and caret lines, and deep
 * nesting is refused without exhausting the stack.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core_alloc.h"
#include "core_expr.h"
#include "core_expr_parse.h"
#include "unit.h"

/* Parses s and returns its canonical print (caller frees), or NULL with
 * the message in *err. */
static char *
reprint(const char *s, size_t len, struct core_err *err)
{
	struct core_expr *e;
	char *out;

	if (core_expr_parse(s, len, &e, err) != 0)
		return NULL;
	out = core_expr_print(e);
	core_expr_free(e);
	return out;
}

static const struct {
	const char *in, *want;
} prints[] = {
	/* precedence */
	{ "a OR b AND c", "(a OR (b AND c))" },
	{ "a AND b OR c", "((a AND b) OR c)" },
	{ "NOT a = b", "(NOT (a = b))" },
	{ "NOT a AND b", "((NOT a) AND b)" },
	{ "NOT NOT a", "(NOT (NOT a))" },
	{ "-a * b", "((-a) * b)" },
	{ "a - b - c", "((a - b) - c)" },
	{ "a + b * c % d / e", "(a + (((b * c) % d) / e))" },
	{ "a BETWEEN 1 AND 2 AND c", "((a BETWEEN 1 AND 2) AND c)" },
	{ "a NOT BETWEEN b + 1 AND c * 2",
	    "(a NOT BETWEEN (b + 1) AND (c * 2))" },
	{ "x::int + 1", "(CAST(x AS int32) + 1)" },
	{ "-x::int", "(-CAST(x AS int32))" },
	{ "x::int::text", "CAST(CAST(x AS int32) AS string)" },
	{ "a || b + c", "(a || (b + c))" },
	{ "a || b LIKE c", "((a || b) LIKE c)" },
	{ "a = b LIKE c", "(a = (b LIKE c))" },
	{ "a < b = c", "((a < b) = c)" },
	{ "a = b IS NULL", "((a = b) IS NULL)" },
	{ "NOT a IS NULL", "(NOT (a IS NULL))" },
	{ "a IS NOT NULL IS NULL", "((a IS NOT NULL) IS NULL)" },
	{ "a = NOT b AND c", "((a = (NOT b)) AND c)" },
	{ "a IN (1) = b", "((a IN (1)) = b)" },
	{ "(a OR b) AND c", "((a OR b) AND c)" },
	{ "((((a))))", "a" },
	{ "- - 1", "(-(-1))" },
	{ "+a", "(+a)" },
	/* comparisons, both spellings */
	{ "a = b", "(a = b)" },
	{ "a == b", "(a = b)" },
	{ "a <> b", "(a <> b)" },
	{ "a != b", "(a <> b)" },
	{ "a<b", "(a < b)" },
	{ "a<=b", "(a <= b)" },
	{ "a>b", "(a > b)" },
	{ "a>=b", "(a >= b)" },
	/* names */
	{ "Col_9", "Col_9" },
	{ "\"odd name\"", "\"odd name\"" },
	{ "\"say \"\"hi\"\"\"", "\"say \"\"hi\"\"\"" },
	{ "\"plain\"", "plain" },
	{ "\"and\"", "\"and\"" },
	{ "date", "\"date\"" },
	{ "\"timestamp\" + interval", "(\"timestamp\" + \"interval\")" },
	{ "exclude", "exclude" },
	{ "caf\xc3\xa9", "\"caf\xc3\xa9\"" },
	/* literals */
	{ "42", "42" },
	{ "007", "007" },
	{ "9223372036854775808", "9223372036854775808" },
	{ "-9223372036854775808", "(-9223372036854775808)" },
	{ "00340282366920938463463374607431768211456",
	    "00340282366920938463463374607431768211456" },
	{ "- -170141183460469231731687303715884105728",
	    "(-(-170141183460469231731687303715884105728))" },
	{ "1.50", "1.50" },
	{ ".5", ".5" },
	{ "3.", "3." },
	{ "1e3", "1e3" },
	{ "2.5E-7", "2.5E-7" },
	{ "'it''s'", "'it''s'" },
	{ "''", "''" },
	{ "DATE '1995-03-15'", "DATE '1995-03-15'" },
	{ "date '1995-03-15'", "DATE '1995-03-15'" },
	{ "TIMESTAMP '1995-03-15 10:00:00'",
	    "TIMESTAMP '1995-03-15 10:00:00'" },
	{ "INTERVAL '90' DAY", "INTERVAL '90' DAY" },
	{ "interval 3 months", "INTERVAL '3' MONTH" },
	{ "INTERVAL '-1' year", "INTERVAL '-1' YEAR" },
	{ "INTERVAL -1 MONTH", "INTERVAL '-1' MONTH" },
	{ "d - INTERVAL - 2 days", "(d - INTERVAL '-2' DAY)" },
	{ "TRUE AND false", "(TRUE AND FALSE)" },
	{ "null", "NULL" },
	/* predicates */
	{ "x IS NULL", "(x IS NULL)" },
	{ "x is not null", "(x IS NOT NULL)" },
	{ "a IN (1, 2, 3)", "(a IN (1, 2, 3))" },
	{ "a not in ('x')", "(a NOT IN ('x'))" },
	{ "s LIKE 'a%'", "(s LIKE 'a%')" },
	{ "s NOT LIKE 'a%'", "(s NOT LIKE 'a%')" },
	{ "s ILIKE 'a%'", "(s ILIKE 'a%')" },
	{ "s not ilike 'a%'", "(s NOT ILIKE 'a%')" },
	/* CASE, CAST, calls */
	{ "CASE WHEN a THEN 1 END", "CASE WHEN a THEN 1 END" },
	{ "case when a then 1 when b then 2 else 3 end",
	    "CASE WHEN a THEN 1 WHEN b THEN 2 ELSE 3 END" },
	{ "CASE x WHEN 1 THEN 'one' ELSE 'many' END",
	    "CASE x WHEN 1 THEN 'one' ELSE 'many' END" },
	{ "CASE WHEN a THEN CASE WHEN b THEN 1 END END + 1",
	    "(CASE WHEN a THEN CASE WHEN b THEN 1 END END + 1)" },
	{ "CAST(a AS decimal(15,2))", "CAST(a AS decimal(15,2))" },
	{ "cast(a as DECIMAL ( 15 , 2 ))", "CAST(a AS decimal(15,2))" },
	{ "CAST(a + 1 AS bigint)", "CAST((a + 1) AS int64)" },
	{ "a::date", "CAST(a AS date)" },
	{ "count(*)", "count(*)" },
	{ "COUNT(DISTINCT x)", "COUNT(DISTINCT x)" },
	{ "sum(a * b) / count(*)", "(sum((a * b)) / count(*))" },
	{ "coalesce(a, b, 0)", "coalesce(a, b, 0)" },
	{ "now()", "now()" },
	{ "\"my fn\"(1)", "\"my fn\"(1)" },
	{ "extract(year FROM d)", "extract(year FROM d)" },
	{ "EXTRACT(Month from d) = 3", "(extract(month FROM d) = 3)" },
	{ "extract('day' FROM d)", "extract(day FROM d)" },
	{ "extract(a)", "extract(a)" },
	{ "substring(s FROM 2 FOR 3)", "substring(s, 2, 3)" },
	{ "position('b' IN s)", "position('b' IN s)" },
	{ "position('b' || t IN s || 'x') > 0",
	    "(position(('b' || t) IN (s || 'x')) > 0)" },
	{ "SUBSTR(s from i + 1)", "SUBSTR(s, (i + 1))" },
	{ "substring(s, 2)", "substring(s, 2)" },
	{ "substring(a || b FROM -1 FOR n * 2)",
	    "substring((a || b), (-1), (n * 2))" },
	{ "date(x)", "\"date\"(x)" },
	{ "\"and\"(x)", "\"and\"(x)" },
	/* whitespace */
	{ " \t\na\n+\tb ", "(a + b)" },
	{ "l_shipdate <= DATE '1998-12-01' - INTERVAL '90' DAY",
	    "(l_shipdate <= (DATE '1998-12-01' - INTERVAL '90' DAY))" },
};

static void
test_print_table(void)
{
	struct core_err err;
	size_t i;
	char *got, *again;

	for (i = 0; i < sizeof(prints) / sizeof(prints[0]); i++) {
		got = reprint(prints[i].in, strlen(prints[i].in), &err);
		if (got == NULL) {
			printf("# %s: %s\n", prints[i].in, err.msg);
			unit_cur_failed++;
			continue;
		}
		CHECK_EQ_STR(got, prints[i].want);
		again = reprint(got, strlen(got), &err);
		CHECK(again != NULL && strcmp(again, got) == 0);
		free(again);
		free(got);
	}
}

/* ---- random trees ---- */

static uint64_t
rnd(unsigned n)
{
	return unit_rand() % n;
}

static const char *const names[] = {
	"a", "B_2", "l_shipdate", "odd name", "with\"quote", "\"", "date",
	"END", "Not", "exclude", "caf\xc3\xa9", "x1", "_", "9lives", "tab\t",
};
static const char *const funcs[] = {
	"f", "count", "Sum", "coalesce", "my fn", "date", "extract", "CASE",
};
static const char *const fields[] = { "year", "month", "day", "epoch" };
static const char *const types[] = {
	"int32", "int64", "float64", "bool", "date", "timestamp", "string",
	"decimal(15,2)", "decimal(18,0)", "decimal(1,1)",
};

static struct core_expr *
leaf_text(enum core_expr_kind kind, const char *s)
{
	struct core_expr *e = core_expr_new(kind);

	core_expr_set_text(e, s, strlen(s));
	return e;
}

static struct core_expr *
gen_literal(void)
{
	static const char *const decs[] = { "1.50", ".5", "3.", "0.000",
	    "123456789012345678.9" };
	static const char *const flts[] = { "1e3", "2.5E-7", ".5e1", "7E+0" };
	static const char *const strs[] = { "", "x", "it's", "''", "a b",
	    "\"q\"", "caf\xc3\xa9", "%_", "END", "tab\there" };
	static const char *const dates[] = { "1995-03-15", "0001-01-01",
	    "9999-12-31" };
	static const char *const stamps[] = { "1995-03-15 10:00:00",
	    "2000-02-29T23:59:59.123456" };
	static const char *const ivs[] = { "90", "-3", "0" };
	static const char *const longs[] = { "18446744073709551616",
	    "99999999999999999999999999999999999999",
	    "170141183460469231731687303715884105728",
	    "0000000000000000000000000000000000000000000000000001" };
	struct core_expr *e;
	char buf[32];

	e = core_expr_new(CORE_EXPR_LITERAL);
	switch (rnd(9)) {
	case 0:
		e->lit = CORE_LIT_NULL;
		break;
	case 1:
		e->lit = CORE_LIT_BOOL;
		e->value.b = rnd(2);
		break;
	case 2:
		e->lit = CORE_LIT_INT;
		if (rnd(8) == 0) {
			/* Past int64, past 38 digits, past 128 bits: the
			 * parser takes any length. */
			const char *s = longs[rnd(4)];

			core_expr_set_text(e, s, strlen(s));
			break;
		}
		snprintf(buf, sizeof(buf), "%llu", rnd(4) ?
		    (unsigned long long)rnd(1000) :
		    (unsigned long long)(unit_rand() >> 1));
		core_expr_set_text(e, buf, strlen(buf));
		break;
	case 3:
		e->lit = CORE_LIT_DECIMAL;
		break;
	case 4:
		e->lit = CORE_LIT_FLOAT;
		break;
	case 5:
		e->lit = CORE_LIT_STRING;
		break;
	case 6:
		e->lit = CORE_LIT_DATE;
		break;
	case 7:
		e->lit = CORE_LIT_TIMESTAMP;
		break;
	default:
		e->lit = CORE_LIT_INTERVAL;
		e->unit = 1 + (enum core_expr_unit)rnd(3);
		break;
	}
	switch (e->lit) {
	case CORE_LIT_DECIMAL: {
		const char *s = decs[rnd(5)];
		core_expr_set_text(e, s, strlen(s));
		break;
	}
	case CORE_LIT_FLOAT: {
		const char *s = flts[rnd(4)];
		core_expr_set_text(e, s, strlen(s));
		break;
	}
	case CORE_LIT_STRING: {
		const char *s = strs[rnd(10)];
		core_expr_set_text(e, s, strlen(s));
		break;
	}
	case CORE_LIT_DATE: {
		const char *s = dates[rnd(3)];
		core_expr_set_text(e, s, strlen(s));
		break;
	}
	case CORE_LIT_TIMESTAMP: {
		const char *s = stamps[rnd(2)];
		core_expr_set_text(e, s, strlen(s));
		break;
	}
	case CORE_LIT_INTERVAL: {
		const char *s = ivs[rnd(3)];
		core_expr_set_text(e, s, strlen(s));
		break;
	}
	default:
		break;
	}
	return e;
}

static struct core_expr *gen(unsigned depth);

static struct core_expr *
gen_node(enum core_expr_kind kind, enum core_expr_op op, unsigned nkids,
    unsigned depth)
{
	struct core_expr *e = core_expr_new(kind);
	unsigned i;

	e->op = op;
	for (i = 0; i < nkids; i++)
		core_expr_add_kid(e, gen(depth - 1));
	return e;
}

static struct core_expr *
gen(unsigned depth)
{
	static const enum core_expr_op binops[] = {
		CORE_OP_MUL, CORE_OP_DIV, CORE_OP_MOD, CORE_OP_ADD,
		CORE_OP_SUB, CORE_OP_CONCAT, CORE_OP_EQ, CORE_OP_NE,
		CORE_OP_LT, CORE_OP_LE, CORE_OP_GT, CORE_OP_GE, CORE_OP_AND,
		CORE_OP_OR,
	};
	static const enum core_expr_op unops[] = {
		CORE_OP_NEG, CORE_OP_POS, CORE_OP_NOT,
	};
	struct core_expr *e;
	struct core_err err;
	const char *t;
	unsigned n, i;

	if (depth == 0 || rnd(4) == 0)
		return rnd(2) ? leaf_text(CORE_EXPR_COLUMN,
		    names[rnd(sizeof(names) / sizeof(names[0]))]) :
		    gen_literal();
	switch (rnd(10)) {
	case 0:
		return gen_node(CORE_EXPR_UNARY, unops[rnd(3)], 1, depth);
	case 1:
	case 2:
		return gen_node(CORE_EXPR_BINARY, binops[rnd(14)], 2, depth);
	case 3:
		e = gen_node(CORE_EXPR_IS_NULL, CORE_OP_NONE, 1, depth);
		e->negated = rnd(2);
		return e;
	case 4:
		e = gen_node(CORE_EXPR_BETWEEN, CORE_OP_NONE, 3, depth);
		e->negated = rnd(2);
		return e;
	case 5:
		e = gen_node(CORE_EXPR_IN, CORE_OP_NONE, 2 + (unsigned)rnd(4),
		    depth);
		e->negated = rnd(2);
		return e;
	case 6:
		e = gen_node(CORE_EXPR_LIKE, rnd(2) ? CORE_OP_LIKE :
		    CORE_OP_ILIKE, 2, depth);
		e->negated = rnd(2);
		return e;
	case 7:
		e = gen_node(CORE_EXPR_CASE, CORE_OP_NONE, 0, depth);
		e->has_operand = rnd(2);
		e->has_else = rnd(2);
		n = e->has_operand + 2 * (1 + (unsigned)rnd(3)) + e->has_else;
		for (i = 0; i < n; i++)
			core_expr_add_kid(e, gen(depth - 1));
		return e;
	case 8:
		e = gen_node(CORE_EXPR_CAST, CORE_OP_NONE, 1, depth);
		t = types[rnd(sizeof(types) / sizeof(types[0]))];
		if (core_type_parse(t, strlen(t), &e->cast_type, &err) != 0)
			abort();
		return e;
	default:
		if (rnd(4) == 0) {
			e = gen_node(CORE_EXPR_EXTRACT, CORE_OP_NONE, 1,
			    depth);
			t = fields[rnd(4)];
		} else {
			n = (unsigned)rnd(4);
			e = gen_node(CORE_EXPR_FUNC, CORE_OP_NONE, n, depth);
			t = funcs[rnd(sizeof(funcs) / sizeof(funcs[0]))];
			if (n == 0)
				e->star = rnd(2);
			else
				e->distinct = rnd(3) == 0;
		}
		core_expr_set_text(e, t, strlen(t));
		return e;
	}
}

/* The canonical spelling of each operator, as the source shows it. */
static const char *
op_word(const struct core_expr *e)
{
	static const char *const words[] = {
		[CORE_OP_NEG] = "-", [CORE_OP_POS] = "+",
		[CORE_OP_NOT] = "NOT", [CORE_OP_MUL] = "*",
		[CORE_OP_DIV] = "/", [CORE_OP_MOD] = "%",
		[CORE_OP_ADD] = "+", [CORE_OP_SUB] = "-",
		[CORE_OP_CONCAT] = "||", [CORE_OP_EQ] = "=",
		[CORE_OP_NE] = "<>", [CORE_OP_LT] = "<", [CORE_OP_LE] = "<=",
		[CORE_OP_GT] = ">", [CORE_OP_GE] = ">=", [CORE_OP_AND] = "AND",
		[CORE_OP_OR] = "OR", [CORE_OP_LIKE] = "LIKE",
		[CORE_OP_ILIKE] = "ILIKE",
	};

	switch (e->kind) {
	case CORE_EXPR_UNARY:
	case CORE_EXPR_BINARY:
		return words[e->op];
	case CORE_EXPR_LIKE:
		if (e->negated)
			return e->op == CORE_OP_LIKE ? "NOT LIKE" :
			    "NOT ILIKE";
		return words[e->op];
	case CORE_EXPR_IS_NULL:
		return e->negated ? "IS NOT NULL" : "IS NULL";
	case CORE_EXPR_BETWEEN:
		return e->negated ? "NOT BETWEEN" : "BETWEEN";
	case CORE_EXPR_IN:
		return e->negated ? "NOT IN" : "IN";
	case CORE_EXPR_CASE:
		return "CASE";
	case CORE_EXPR_CAST:
		return NULL;	/* CAST or :: */
	default:
		return NULL;
	}
}

static unsigned span_failures;

/* Each node's span, parsed alone, prints as the node; its operator span
 * spells its operator; kids lie inside their parent. */
static void
check_spans(const char *src, const struct core_expr *e)
{
	struct core_err err;
	char *want, *got;
	const char *w;
	uint32_t i;

	want = core_expr_print(e);
	got = reprint(src + e->off, e->len, &err);
	if (got == NULL || strcmp(got, want) != 0) {
		if (span_failures++ < 5)
			printf("# span [%u,%u) of %s: %s, want %s\n", e->off,
			    e->off + e->len, src, got ? got : err.msg, want);
		unit_cur_failed++;
	}
	free(got);
	free(want);
	w = op_word(e);
	if (w != NULL && (e->op_len != strlen(w) ||
	    strncasecmp(src + e->op_off, w, e->op_len) != 0 ||
	    e->op_off < e->off || e->op_off + e->op_len > e->off + e->len)) {
		if (span_failures++ < 5)
			printf("# op span [%u,%u) of %s, want %s\n",
			    e->op_off, e->op_off + e->op_len, src, w);
		unit_cur_failed++;
	}
	for (i = 0; i < e->nkids; i++) {
		CHECK(e->kids[i]->off >= e->off &&
		    e->kids[i]->off + e->kids[i]->len <= e->off + e->len);
		check_spans(src, e->kids[i]);
	}
}

static void
test_random_round_trip(void)
{
	struct core_expr *e, *back;
	struct core_err err;
	char *s1, *s2;
	unsigned i, bad = 0;

	for (i = 0; i < 5000; i++) {
		e = gen(1 + i % 6);
		s1 = core_expr_print(e);
		if (core_expr_parse(s1, strlen(s1), &back, &err) != 0) {
			if (bad++ < 5)
				printf("# %s: %s\n", s1, err.msg);
			unit_cur_failed++;
			free(s1);
			core_expr_free(e);
			continue;
		}
		s2 = core_expr_print(back);
		if (strcmp(s1, s2) != 0) {
			if (bad++ < 5)
				printf("# printed %s\n# reparsed %s\n", s1, s2);
			unit_cur_failed++;
		}
		CHECK(back->off == 0 && back->len == strlen(s1));
		check_spans(s1, back);
		free(s1);
		free(s2);
		core_expr_free(back);
		core_expr_free(e);
	}
}

/*
 * Random token soup: whatever parses must round-trip with sound spans;
 * whatever does not must fail with a placed message ending in a caret.
 */
static void
test_token_soup(void)
{
	static const char *const toks[] = {
		"a", "\"x y\"", "1", "1.5", "1e3", "'s'", "(", ")", ",", "*",
		"+", "-", "/", "%", "||", "=", "<>", "<", ">=", "::", "int",
		"decimal(15,2)", "AND", "OR", "NOT", "IS", "NULL", "BETWEEN",
		"IN", "LIKE", "ilike", "CASE", "WHEN", "THEN", "ELSE", "END",
		"CAST", "AS", "DATE", "'1995-03-15'", "INTERVAL", "DAY",
		"count", "DISTINCT", "extract", "year", "FROM", "TRUE", "'",
		"\"", "#", "1e", "f(", "b",
	};
	/* Mostly operand, operator, operand, ... so that many parse. */
	static const char *const operands[] = {
		"a", "1", "'s'", "NULL", "DATE '1995-03-15'", "(b)", "f(a)",
		"count(*)", "x::int",
	};
	static const char *const operators[] = {
		"+", "*", "||", "=", "AND", "OR", "<", "LIKE", "IS NULL AND",
		"NOT IN (1) OR", "BETWEEN 1 AND",
	};
	struct unit_buf b = { 0 };
	struct core_expr *e;
	struct core_err err;
	unsigned i, j, n, nok = 0;
	const char *t;
	char *s1, *s2;
	size_t ml;

	for (i = 0; i < 20000; i++) {
		b.len = 0;
		unit_buf_str(&b, "");
		n = 1 + (unsigned)rnd(12);
		for (j = 0; j < n; j++) {
			if (j > 0 && rnd(4) != 0)
				unit_buf_ch(&b, ' ');
			if (rnd(5) == 0)
				t = toks[rnd(sizeof(toks) / sizeof(toks[0]))];
			else if (j % 2 == 0)
				t = operands[rnd(sizeof(operands) /
				    sizeof(operands[0]))];
			else
				t = operators[rnd(sizeof(operators) /
				    sizeof(operators[0]))];
			unit_buf_str(&b, t);
		}
		if (core_expr_parse(b.p, b.len, &e, &err) == 0) {
			nok++;
			s1 = core_expr_print(e);
			s2 = reprint(s1, strlen(s1), &err);
			CHECK(s2 != NULL && strcmp(s1, s2) == 0);
			check_spans(b.p, e);
			free(s1);
			free(s2);
			core_expr_free(e);
			continue;
		}
		ml = strlen(err.msg);
		if (strncmp(err.msg, "column ", 7) != 0 ||
		    strstr(err.msg, "\n  ") == NULL || ml == 0 ||
		    err.msg[ml - 1] != '^') {
			printf("# %s: %s\n", b.p, err.msg);
			unit_cur_failed++;
		}
	}
	/* The soup must also reach the parser's success paths. */
	printf("# %u of 20000 parsed\n", nok);
	CHECK(nok > 1000);
	free(b.p);
}

/* ---- spans of hand-written input ---- */

static void
test_spans(void)
{
	static const char src[] = "  (a + b) * -c  ";
	struct core_expr *e;
	struct core_err err;

	CHECK_EQ_INT(core_expr_parse(src, strlen(src), &e, &err), 0);
	CHECK_EQ_INT(e->kind, CORE_EXPR_BINARY);
	CHECK_EQ_INT(e->op, CORE_OP_MUL);
	CHECK_EQ_INT(e->off, 2);
	CHECK_EQ_INT(e->len, 12);
	CHECK_EQ_INT(e->op_off, 10);
	CHECK_EQ_INT(e->op_len, 1);
	CHECK_EQ_INT(e->kids[0]->off, 2);	/* parentheses included */
	CHECK_EQ_INT(e->kids[0]->len, 7);
	CHECK_EQ_INT(e->kids[0]->kids[0]->off, 3);
	CHECK_EQ_INT(e->kids[0]->kids[0]->len, 1);
	CHECK_EQ_INT(e->kids[1]->off, 12);
	CHECK_EQ_INT(e->kids[1]->len, 2);
	CHECK_EQ_INT(e->kids[1]->kids[0]->off, 13);
	CHECK_EQ_INT(e->height, 3);
	core_expr_free(e);

	{
		static const char s2[] = "x NOT  IN (1,2) AND d::date IS NULL";
		CHECK_EQ_INT(core_expr_parse(s2, strlen(s2), &e, &err), 0);
		CHECK_EQ_INT(e->kids[0]->off, 0);
		CHECK_EQ_INT(e->kids[0]->len, 15);
		CHECK_EQ_INT(e->kids[0]->op_off, 2);
		CHECK_EQ_INT(e->kids[0]->op_len, 7);	/* "NOT  IN" */
		CHECK_EQ_INT(e->kids[1]->off, 20);
		CHECK_EQ_INT(e->kids[1]->len, 15);
		CHECK_EQ_INT(e->kids[1]->kids[0]->op_off, 21);	/* :: */
		CHECK_EQ_INT(e->kids[1]->kids[0]->len, 7);
		core_expr_free(e);
	}
}

/* ---- literal values ---- */

static void
test_values(void)
{
	struct core_expr *e;
	struct core_err err;

#define PARSE(s) core_expr_parse((s), strlen(s), &e, &err)
	/* Integers of any length, typed by the binder; their text is what
	 * was written. */
	CHECK_EQ_INT(PARSE("9223372036854775808"), 0);
	CHECK(e->lit == CORE_LIT_INT);
	CHECK_EQ_STR(e->text, "9223372036854775808");
	core_expr_free(e);
	CHECK_EQ_INT(PARSE("-0001234567890123456789012345678901234567890123"),
	    0);
	CHECK(e->kind == CORE_EXPR_UNARY && e->op == CORE_OP_NEG);
	CHECK(e->kids[0]->lit == CORE_LIT_INT);
	CHECK_EQ_STR(e->kids[0]->text,
	    "0001234567890123456789012345678901234567890123");
	core_expr_free(e);
	CHECK_EQ_INT(PARSE("1e3"), 0);
	CHECK(e->lit == CORE_LIT_FLOAT && e->value.f == 1000.0);
	core_expr_free(e);
	CHECK_EQ_INT(PARSE("DATE '1970-01-02'"), 0);
	CHECK(e->lit == CORE_LIT_DATE && e->value.i == 1);
	CHECK_EQ_STR(e->text, "1970-01-02");
	core_expr_free(e);
	CHECK_EQ_INT(PARSE("TIMESTAMP '1970-01-01 00:00:01'"), 0);
	CHECK(e->lit == CORE_LIT_TIMESTAMP && e->value.i == 1000000);
	core_expr_free(e);
	CHECK_EQ_INT(PARSE("INTERVAL '-90' DAY"), 0);
	CHECK(e->unit == CORE_UNIT_DAY && e->value.i == -90);
	core_expr_free(e);
	CHECK_EQ_INT(PARSE("'a''b'"), 0);
	CHECK(e->lit == CORE_LIT_STRING && e->text_len == 3);
	CHECK_EQ_STR(e->text, "a'b");
	core_expr_free(e);
	CHECK_EQ_INT(PARSE("1.50"), 0);
	CHECK(e->lit == CORE_LIT_DECIMAL);
	CHECK_EQ_STR(e->text, "1.50");
	core_expr_free(e);
	CHECK_EQ_INT(PARSE("\"a\"\"b\""), 0);
	CHECK(e->kind == CORE_EXPR_COLUMN);
	CHECK_EQ_STR(e->text, "a\"b");
	core_expr_free(e);
	CHECK_EQ_INT(PARSE("a::Decimal(15,2)"), 0);
	CHECK(e->kind == CORE_EXPR_CAST &&
	    e->cast_type.id == CORE_TYPE_DECIMAL &&
	    e->cast_type.precision == 15 && e->cast_type.scale == 2);
	core_expr_free(e);
#undef PARSE
}

/* ---- errors ---- */

static const struct {
	const char *in, *msg;
} errors[] = {
	{ "", "column 1: empty expression\n  \n  ^" },
	{ " \t ", "column 1: empty expression\n     \n  ^" },
	{ "(a + b * c", "column 11: expected ')'\n  (a + b * c\n"
	    "            ^" },
	{ "'abc", "column 1: unterminated string\n  'abc\n  ^^^^" },
	{ "a = 'it''s", "column 5: unterminated string\n  a = 'it''s\n"
	    "      ^^^^^^" },
	{ "\"abc", "column 1: unterminated quoted name\n  \"abc\n  ^^^^" },
	{ "\"\" + 1", "column 1: empty quoted name\n  \"\" + 1\n  ^^" },
	{ "1e", "column 1: bad number '1e'\n  1e\n  ^^" },
	{ "1e+ 2", "column 1: bad number '1e+'\n  1e+ 2\n  ^^^" },
	{ "a + 12abc", "column 5: bad number '12abc'\n  a + 12abc\n"
	    "      ^^^^^" },
	{ "1.2.3", "column 1: bad number '1.2.3'\n  1.2.3\n  ^^^^^" },
	{ "a # b", "column 3: unexpected character '#'\n  a # b\n    ^" },
	{ "a | b", "column 3: unexpected character '|'\n  a | b\n    ^" },
	{ "a : b", "column 3: unexpected character ':'\n  a : b\n    ^" },
	{ "a \x01", "column 3: unexpected byte 0x01\n  a ?\n    ^" },
	{ "a \x1b[31m", "column 3: unexpected byte 0x1b\n  a ?[31m\n    ^" },
	{ "a b", "column 3: unexpected 'b' after the expression\n  a b\n"
	    "    ^" },
	{ "(a) )", "column 5: unexpected ')' after the expression\n"
	    "  (a) )\n      ^" },
	{ "a +", "column 4: expected an expression\n  a +\n     ^" },
	{ "a + AND", "column 5: expected an expression\n  a + AND\n"
	    "      ^^^" },
	{ "* 2", "column 1: expected an expression\n  * 2\n  ^" },
	{ "x = and(1)", "column 5: expected an expression\n  x = and(1)\n"
	    "      ^^^" },
	{ "a IN (1) END", "column 10: unexpected 'END' after the expression\n"
	    "  a IN (1) END\n           ^^^" },
	{ "f(a, b", "column 7: expected ',' or ')'\n  f(a, b\n        ^" },
	{ "f(a b)", "column 5: expected ',' or ')'\n  f(a b)\n      ^" },
	{ "count(DISTINCT)", "column 15: expected an expression\n"
	    "  count(DISTINCT)\n                ^" },
	{ "a IN 1", "column 6: expected '('\n  a IN 1\n       ^" },
	{ "a IN ()", "column 7: expected an expression\n  a IN ()\n"
	    "        ^" },
	{ "a BETWEEN 1 OR 2", "column 13: expected AND\n"
	    "  a BETWEEN 1 OR 2\n              ^^" },
	{ "a NOT b", "column 3: expected BETWEEN, IN, LIKE or ILIKE after NOT"
	    "\n  a NOT b\n    ^^^" },
	{ "a IS 3", "column 6: expected NULL or NOT NULL\n  a IS 3\n"
	    "       ^" },
	{ "a IS NOT 3", "column 10: expected NULL\n  a IS NOT 3\n"
	    "           ^" },
	{ "CASE END", "column 6: expected an expression\n  CASE END\n"
	    "       ^^^" },
	{ "CASE a END", "column 8: expected WHEN\n  CASE a END\n"
	    "         ^^^" },
	{ "CASE WHEN a 1 END", "column 13: expected THEN\n"
	    "  CASE WHEN a 1 END\n              ^" },
	{ "CASE WHEN a THEN 1", "column 19: expected WHEN, ELSE or END\n"
	    "  CASE WHEN a THEN 1\n                    ^" },
	{ "CASE WHEN a THEN 1 ELSE 2", "column 26: expected END\n"
	    "  CASE WHEN a THEN 1 ELSE 2\n                           ^" },
	{ "CAST a", "column 6: expected '(' after CAST\n  CAST a\n"
	    "       ^" },
	{ "CAST(a, int)", "column 7: expected AS\n  CAST(a, int)\n"
	    "        ^" },
	{ "substring(s FROM 2 3)", "column 20: expected FOR or ')'\n"
	    "  substring(s FROM 2 3)\n                     ^" },
	{ "substring(s 2)", "column 13: expected ',', FROM or ')'\n"
	    "  substring(s 2)\n              ^" },
	{ "CAST(a AS int", "column 14: expected ')'\n  CAST(a AS int\n"
	    "               ^" },
	{ "CAST(a AS 3)", "column 11: expected a type name\n"
	    "  CAST(a AS 3)\n            ^" },
	{ "x::foo + 1", "column 4: unknown type 'foo'; the types are bool, "
	    "int32, int64, float64, decimal(p,s), date, timestamp and string "
	    "(or their SQL and Arrow names)\n  x::foo + 1\n"
	    "     ^^^" },
	{ "x::decimal(40,2)",
	    "column 4: decimal precision must be 1 to 38: decimal(40,2)\n"
	    "  x::decimal(40,2)\n     ^^^^^^^^^^^^^" },
	{ "x::decimal(15,2", "column 16: expected ')'\n"
	    "  x::decimal(15,2\n                 ^" },
	{ "DATE '1995-13-01'", "column 6: bad date '1995-13-01'\n"
	    "  DATE '1995-13-01'\n       ^^^^^^^^^^^^" },
	{ "TIMESTAMP 'noon'", "column 11: bad timestamp 'noon'\n"
	    "  TIMESTAMP 'noon'\n            ^^^^^^" },
	{ "INTERVAL '90' WEEK", "column 15: expected DAY, MONTH or YEAR\n"
	    "  INTERVAL '90' WEEK\n                ^^^^" },
	{ "position(s, 'b')", "column 11: expected IN: write position(part "
	    "IN string), or strpos(string, part)\n  position(s, 'b')\n"
	    "            ^" },
	{ "extract(year d)", "column 14: expected FROM: write "
	    "extract(year FROM value)\n  extract(year d)\n               ^" },
	{ "INTERVAL 'x' DAY", "column 10: bad interval quantity 'x'\n"
	    "  INTERVAL 'x' DAY\n           ^^^" },
	{ "caf\xc3\xa9 = '", "column 8: unterminated string\n"
	    "  caf\xc3\xa9 = '\n         ^" },
	{ "a\t+\t#", "column 5: unexpected character '#'\n  a + #\n"
	    "      ^" },
};

static void
test_errors(void)
{
	struct core_expr *e;
	struct core_err err;
	size_t i;

	/* NUL bytes, even quoted: texts are C strings. */
	CHECK_EQ_INT(core_expr_parse("'a\0b'", 5, &e, &err), CORE_EUSAGE);
	CHECK_EQ_STR(err.msg, "column 3: unexpected byte 0x00\n  'a?b'\n"
	    "    ^");

	for (i = 0; i < sizeof(errors) / sizeof(errors[0]); i++) {
		memset(&err, 0, sizeof(err));
		e = (struct core_expr *)&err;
		CHECK_EQ_INT(core_expr_parse(errors[i].in,
		    strlen(errors[i].in), &e, &err), CORE_EUSAGE);
		CHECK(e == NULL);
		CHECK_EQ_INT(err.code, CORE_EUSAGE);
		CHECK_EQ_STR(err.msg, errors[i].msg);
	}
}

/* ---- nesting ---- */

static char *
repeat(const char *pre, size_t n, const char *mid, const char *post)
{
	size_t lp = strlen(pre), lm = strlen(mid), lq = strlen(post), i;
	char *s = core_xmalloc(n * (lp + lq) + lm + 1), *q = s;

	for (i = 0; i < n; i++, q += lp)
		memcpy(q, pre, lp);
	memcpy(q, mid, lm);
	q += lm;
	for (i = 0; i < n; i++, q += lq)
		memcpy(q, post, lq);
	*q = '\0';
	return s;
}

/* 0 when s parses, else the code; the message must name the limit. */
static int
try_parse(const char *s)
{
	struct core_expr *e;
	struct core_err err;
	int rc;

	rc = core_expr_parse(s, strlen(s), &e, &err);
	if (rc == 0) {
		CHECK(e->height <= CORE_EXPR_DEPTH_MAX);
		core_expr_free(e);
	} else {
		CHECK(strstr(err.msg, "nested too deeply (limit 1000)") !=
		    NULL);
	}
	return rc;
}

static void
test_nesting(void)
{
	char *s;

	/* The outermost expression is one level, each parenthesis one. */
	s = repeat("(", 999, "a", ")");
	CHECK_EQ_INT(try_parse(s), 0);
	free(s);
	s = repeat("(", 1000, "a", ")");
	CHECK_EQ_INT(try_parse(s), CORE_EUSAGE);
	free(s);
	/* Far beyond any stack: refused at the limit, not recursed into. */
	s = repeat("(", 1000000, "a", "");
	CHECK_EQ_INT(try_parse(s), CORE_EUSAGE);
	free(s);
	s = repeat("-", 1000000, "a", "");
	CHECK_EQ_INT(try_parse(s), CORE_EUSAGE);
	free(s);
	s = repeat("NOT ", 1000000, "a", "");
	CHECK_EQ_INT(try_parse(s), CORE_EUSAGE);
	free(s);
	s = repeat("CASE WHEN a THEN ", 100000, "1", " END");
	CHECK_EQ_INT(try_parse(s), CORE_EUSAGE);
	free(s);
	s = repeat("f(", 100000, "1", ")");
	CHECK_EQ_INT(try_parse(s), CORE_EUSAGE);
	free(s);
	/* A flat chain builds a deep tree: a+a has height 2. */
	s = repeat("a + ", 999, "a", "");
	CHECK_EQ_INT(try_parse(s), 0);
	free(s);
	s = repeat("a + ", 1000, "a", "");
	CHECK_EQ_INT(try_parse(s), CORE_EUSAGE);
	free(s);
	s = repeat("x OR ", 100000, "x", "");
	CHECK_EQ_INT(try_parse(s), CORE_EUSAGE);
	free(s);
	s = repeat("", 1000, "a", "::int");
	CHECK_EQ_INT(try_parse(s), CORE_EUSAGE);
	free(s);
}

/* IN lists of the batch lengths: flat, any length. */
static void
test_in_lengths(void)
{
	static const size_t lens[] = { 1, 2, 3, 17, 4095, 4096, 4097 };
	struct core_expr *e;
	struct core_err err;
	size_t i, j;
	char *want, *got;
	struct unit_buf b = { 0 };

	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		b.len = 0;
		unit_buf_str(&b, "(x IN (");
		for (j = 0; j < lens[i]; j++) {
			char num[24];
			snprintf(num, sizeof(num), "%s%zu", j ? ", " : "", j);
			unit_buf_str(&b, num);
		}
		unit_buf_str(&b, "))");
		want = b.p;
		CHECK_EQ_INT(core_expr_parse(want, b.len, &e, &err), 0);
		CHECK_EQ_INT(e->nkids, lens[i] + 1);
		CHECK_EQ_INT(e->height, 2);
		got = core_expr_print(e);
		CHECK_EQ_STR(got, want);
		free(got);
		core_expr_free(e);
	}
	free(b.p);
}

/* ---- caret lines ---- */

static void
test_caret(void)
{
	char buf[512], small[8];
	char *long_src;
	size_t n;
	struct core_err err;

	n = core_expr_caret("a + b", 5, 2, 1, buf, sizeof(buf));
	CHECK_EQ_STR(buf, "  a + b\n    ^");
	CHECK_EQ_INT(n, strlen(buf));
	core_expr_caret("a + b", 5, 5, 0, buf, sizeof(buf));
	CHECK_EQ_STR(buf, "  a + b\n       ^");
	/* Spans past the end are clipped. */
	core_expr_caret("a + b", 5, 4, 99, buf, sizeof(buf));
	CHECK_EQ_STR(buf, "  a + b\n      ^");
	core_expr_caret("a + b", 5, 99, 3, buf, sizeof(buf));
	CHECK_EQ_STR(buf, "  a + b\n       ^");
	/* Characters, not bytes. */
	core_expr_caret("\xc3\xa9\xc3\xa9 x", 6, 5, 1, buf, sizeof(buf));
	CHECK_EQ_STR(buf, "  \xc3\xa9\xc3\xa9 x\n     ^");
	core_expr_caret("\xc3\xa9\xc3\xa9 x", 6, 0, 4, buf, sizeof(buf));
	CHECK_EQ_STR(buf, "  \xc3\xa9\xc3\xa9 x\n  ^^");
	CHECK_EQ_INT(core_expr_column("\xc3\xa9\xc3\xa9 x", 6, 5), 4);
	/* Tabs and newlines echo as spaces so the caret lines up. */
	core_expr_caret("a\n\t+ b", 6, 5, 1, buf, sizeof(buf));
	CHECK_EQ_STR(buf, "  a  + b\n       ^");
	/* A short buffer is cut, NUL-terminated; the length is still told. */
	n = core_expr_caret("a + b", 5, 2, 1, small, sizeof(small));
	CHECK_EQ_INT(n, 13);
	CHECK_EQ_STR(small, "  a + b");
	/* A long source shows a window around the span. */
	long_src = repeat("x", 200, "", "");
	long_src[100] = '#';
	core_expr_caret(long_src, 200, 100, 1, buf, sizeof(buf));
	{
		char want[512];
		snprintf(want, sizeof(want), "  ...%.24s#%.47s...\n"
		    "%*s^", long_src, long_src, 2 + 3 + 24, "");
		CHECK_EQ_STR(buf, want);
	}
	core_expr_caret(long_src, 200, 199, 1, buf, sizeof(buf));
	CHECK(strstr(buf, "...\n") == NULL);	/* the end is shown */
	free(long_src);
	/* The binder's entry point. */
	CHECK_EQ_INT(core_expr_err(&err, CORE_EUSAGE, "a + 'x'", 7, 4, 3,
	    "cannot add %s and %s", "int32", "string"), CORE_EUSAGE);
	CHECK_EQ_STR(err.msg,
	    "column 5: cannot add int32 and string\n  a + 'x'\n      ^^^");
}

/* ---- select lists ---- */

static const struct {
	const char *in, *want;
} selects[] = {
	{ "*", "*" },
	{ "* EXCLUDE (a, \"b c\")", "* EXCLUDE (a, \"b c\")" },
	{ "* exclude(a)", "* EXCLUDE (a)" },
	{ "a", "a" },
	{ "a + 1 AS b, c", "(a + 1) AS b, c" },
	{ "sum(x) as \"total sum\", count(*) AS n",
	    "sum(x) AS \"total sum\", count(*) AS n" },
	{ "*, a * 2 AS a2", "*, (a * 2) AS a2" },
	{ "CASE WHEN a THEN 1 END AS flag", "CASE WHEN a THEN 1 END AS flag" },
};

static const struct {
	const char *in, *msg;
} select_errors[] = {
	{ "", "column 1: empty expression\n  \n  ^" },
	{ "a,", "column 3: expected an expression\n  a,\n    ^" },
	{ "a,,b", "column 3: expected an expression\n  a,,b\n    ^" },
	{ "a AS", "column 5: expected a name after AS\n  a AS\n      ^" },
	{ "a AS end", "column 6: expected a name after AS\n  a AS end\n"
	    "       ^^^" },
	{ "a b", "column 3: unexpected 'b' after the select list\n  a b\n"
	    "    ^" },
	{ "* EXCLUDE a", "column 11: expected '('\n  * EXCLUDE a\n"
	    "            ^" },
	{ "* EXCLUDE (a b)", "column 14: expected ',' or ')'\n"
	    "  * EXCLUDE (a b)\n               ^" },
	{ "* EXCLUDE (1)", "column 12: expected a column name\n"
	    "  * EXCLUDE (1)\n             ^" },
	{ "* + 1", "column 3: unexpected '+' after the select list\n"
	    "  * + 1\n    ^" },
};

static void
test_select(void)
{
	struct core_select *s;
	struct core_err err;
	size_t i;
	char *got;

	for (i = 0; i < sizeof(selects) / sizeof(selects[0]); i++) {
		if (core_select_parse(selects[i].in, strlen(selects[i].in),
		    &s, &err) != 0) {
			printf("# %s: %s\n", selects[i].in, err.msg);
			unit_cur_failed++;
			continue;
		}
		got = core_select_print(s);
		CHECK_EQ_STR(got, selects[i].want);
		free(got);
		core_select_free(s);
	}
	for (i = 0; i < sizeof(select_errors) / sizeof(select_errors[0]);
	    i++) {
		CHECK_EQ_INT(core_select_parse(select_errors[i].in,
		    strlen(select_errors[i].in), &s, &err), CORE_EUSAGE);
		CHECK(s == NULL);
		CHECK_EQ_STR(err.msg, select_errors[i].msg);
	}
	CHECK_EQ_INT(core_select_parse("* EXCLUDE (a, b), x + 1 AS y", 28,
	    &s, &err), 0);
	CHECK_EQ_INT(s->nitems, 2);
	CHECK(s->items[0].star && s->items[0].nexclude == 2);
	CHECK_EQ_STR(s->items[0].exclude[1], "b");
	CHECK_EQ_INT(s->items[0].off, 0);
	CHECK_EQ_INT(s->items[0].len, 16);
	CHECK(!s->items[1].star && s->items[1].expr != NULL);
	CHECK_EQ_STR(s->items[1].alias, "y");
	CHECK_EQ_INT(s->items[1].off, 18);
	CHECK_EQ_INT(s->items[1].len, 10);
	core_select_free(s);
	core_select_free(NULL);
	core_expr_free(NULL);
}

/* The length cap: 16 MiB parses, a byte more is refused by name. */
static void
test_length_cap(void)
{
	size_t n = CORE_EXPR_LEN_MAX + 1, i;
	char *src = malloc(n + 1);
	struct core_expr *e = NULL;
	struct core_err err;

	/* "1+1+1...": a flat chain of CORE_EXPR_LEN_MAX / 2 additions
	 * would pass the depth cap, so a long string literal instead. */
	src[0] = '\'';
	for (i = 1; i < n - 1; i++)
		src[i] = 'x';
	src[n - 1] = '\'';
	src[n] = '\0';
	CHECK_EQ_INT(core_expr_parse(src, n, &e, &err), CORE_EUSAGE);
	CHECK(strstr(err.msg, "is too long (limit 16777216)") != NULL);
	src[n - 2] = '\'';
	CHECK_EQ_INT(core_expr_parse(src, n - 1, &e, &err), 0);
	core_expr_free(e);
	free(src);
}

int
main(void)
{
	RUN(test_print_table);
	RUN(test_random_round_trip);
	RUN(test_token_soup);
	RUN(test_spans);
	RUN(test_values);
	RUN(test_errors);
	RUN(test_nesting);
	RUN(test_in_lengths);
	RUN(test_caret);
	RUN(test_select);
	RUN(test_length_cap);
	return unit_done();
}
