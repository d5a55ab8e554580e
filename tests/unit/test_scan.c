/*
 * test_scan.c - core_scan against a row-at-a-time reference.
 *
 * Random WHERE conditions (comparisons of every column type with
 * constants, IS NULL, BETWEEN, IN with and without NULL, LIKE, under
 * AND, OR and NOT) are generated as a small tree, printed as text for
 * core_scan and evaluated one row at a time in three-valued logic by
 * the tree walk below, which shares nothing with the evaluator.  Random
 * select lists mix "*", "* EXCLUDE (...)", plain and renamed columns in
 * any order and computed columns; a computed column's reference value
 * for a row is the expression bound on its own and evaluated over a
 * one-row selection.  Each plan runs over batches of 0, 1, 2, 3, 17,
 * 4095, 4096 and 4097 rows in turn (the scan's buffers are reused from
 * batch to batch), with the columns the plan says it does not need
 * emptied as the MLSPILL3 reader leaves them, and its output is
 * compared value for value, NULLs included; core_scan_count against the
 * reference's count.  Duplicate output names must be CORE_EUSAGE
 * exactly when the reference's names repeat.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core_alloc.h"
#include "core_col.h"
#include "core_expr.h"
#include "core_expr_bind.h"
#include "core_expr_eval.h"
#include "core_expr_parse.h"
#include "core_scan.h"
#include "unit.h"

enum { C_I, C_L, C_D, C_F, C_S, C_DT, C_TS, C_B, C_ODD, NCOLS };

static const char *const col_names[NCOLS] = {
	"i", "l", "d", "f", "s", "dt", "ts", "b", "odd name",
};

/* How each column is written in an expression. */
static const char *const col_refs[NCOLS] = {
	"i", "l", "d", "f", "s", "dt", "ts", "b", "\"odd name\"",
};

static struct core_schema *
make_schema(void)
{
	static const enum core_type ids[NCOLS] = {
		CORE_TYPE_INT32, CORE_TYPE_INT64, CORE_TYPE_DECIMAL,
		CORE_TYPE_FLOAT64, CORE_TYPE_STRING, CORE_TYPE_DATE,
		CORE_TYPE_TIMESTAMP, CORE_TYPE_BOOL, CORE_TYPE_STRING,
	};
	struct core_schema *s = core_schema_new(NCOLS);
	struct core_coltype t;
	int i;

	for (i = 0; i < NCOLS; i++) {
		memset(&t, 0, sizeof(t));
		t.id = ids[i];
		if (t.id == CORE_TYPE_DECIMAL) {
			t.precision = 9;
			t.scale = 2;
		}
		core_schema_set(s, (uint32_t)i, col_names[i], t);
	}
	return s;
}

static int64_t
rnd(int64_t lo, int64_t hi)
{
	return lo + (int64_t)(unit_rand() % (uint64_t)(hi - lo + 1));
}

/* Days since 1970-01-01 of a civil date (proleptic Gregorian). */
static int64_t
days_of(int64_t y, int64_t m, int64_t d)
{
	int64_t a = m <= 2 ? 1 : 0, yy = y - a, era, yoe, doy, doe;

	era = (yy >= 0 ? yy : yy - 399) / 400;
	yoe = yy - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

#define DAY_LO 8401	/* 1993-01-01 */
#define DAY_HI 8401 + 2556
#define HOUR 3600000000ll

/* Small values so that nothing a computed column does overflows. */
static void
fill_batch(struct core_batch *b, uint32_t n)
{
	static const char *alpha[] = { "a", "b", "ab", "A", "%", "_", "x",
	    "\xc3\xa9" };
	uint32_t r, c, k, len;
	size_t used;

	core_batch_reset(b);
	core_batch_reserve(b, n, (size_t)n * 12 + 16);
	for (c = 0; c < NCOLS; c++) {
		struct core_column *col = &b->cols[c];
		unsigned nullish = (unsigned)(unit_rand() % 4);

		used = 0;
		for (r = 0; r < n; r++) {
			/* Some columns without NULLs, some with many. */
			bool isnull = nullish != 0 &&
			    unit_rand() % (nullish * 3) == 0;

			switch (col->type.id) {
			case CORE_TYPE_INT32:
				((int32_t *)col->values)[r] = isnull ? 0 :
				    (int32_t)rnd(-20, 20);
				break;
			case CORE_TYPE_INT64:
				((int64_t *)col->values)[r] = isnull ? 0 :
				    rnd(-1000, 1000);
				break;
			case CORE_TYPE_DECIMAL:
				((int64_t *)col->values)[r] = isnull ? 0 :
				    rnd(-3000, 3000);
				break;
			case CORE_TYPE_FLOAT64:
				((double *)col->values)[r] = isnull ? 0 :
				    (double)rnd(-40, 40) / 4;
				break;
			case CORE_TYPE_DATE:
				((int32_t *)col->values)[r] = isnull ? 0 :
				    (int32_t)rnd(DAY_LO, DAY_HI);
				break;
			case CORE_TYPE_TIMESTAMP:
				((int64_t *)col->values)[r] = isnull ? 0 :
				    rnd(DAY_LO, DAY_HI) * 24 * HOUR +
				    rnd(0, 23) * HOUR;
				break;
			case CORE_TYPE_BOOL:
				((uint8_t *)col->values)[r] = isnull ? 0 :
				    (uint8_t)(unit_rand() & 1);
				break;
			default:
				len = isnull ? 0 : (uint32_t)(unit_rand() % 4);
				for (k = 0; k < len; k++) {
					const char *a = alpha[unit_rand() %
					    (sizeof(alpha) / sizeof(alpha[0]))];

					core_col_reserve_bytes(col, used,
					    strlen(a));
					memcpy((char *)col->values + used, a,
					    strlen(a));
					used += strlen(a);
				}
				col->offsets[r + 1] = (int32_t)used;
				break;
			}
			if (isnull)
				core_col_set_null(col, r, n);
		}
	}
	b->nrows = n;
}

/* ---- conditions: a tree, its text, its value for one row ---- */

enum cnd_kind { K_CMP, K_ISNULL, K_BETWEEN, K_IN, K_LIKE, K_AND, K_OR,
	K_NOT, K_BOOLCOL, K_CONST };

enum { OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE };

static const char *const op_text[] = { "=", "<>", "<", "<=", ">", ">=" };

#define MAXK 40

struct cnd {
	enum cnd_kind kind;
	int col, op;
	bool neg;
	/* Constants: numbers as thousandths, whatever the column's type
	 * (an integer column meets decimal and wide constants, a decimal
	 * one constants of another scale), dates and timestamps as
	 * micros (each meets literals of the other), strings for s. */
	int nk;
	bool knull[MAXK];
	int64_t ki[MAXK];
	int kscale[MAXK];	/* digits after the point written, or
				 * for dates 1 when written as a DATE */
	char ks[MAXK][8];
	int tv;			/* K_CONST: -1 NULL, 0, 1 */
	struct cnd *a, *b;
};

static const char *const pats[] = { "a%", "%b", "%a%", "_", "a_", "ab",
    "", "%%", "a%b%", "%_", "%", "_%_", "%\xc3\xa9", "A%" };

static const char *
rnd_str(void)
{
	static const char *strs[] = { "", "a", "b", "ab", "ba", "abc", "A",
	    "x", "%" };

	return strs[unit_rand() % (sizeof(strs) / sizeof(strs[0]))];
}

/* A random constant for column c into slot j. */
static void
rnd_const(struct cnd *n, int j)
{
	unsigned form = (unsigned)(unit_rand() % 8);

	n->knull[j] = false;
	n->kscale[j] = 0;
	switch (n->col) {
	case C_I:
	case C_L:
	case C_D:
	case C_F:
		/* Mostly in the column's range and spelling; else a
		 * decimal of one, two or three digits, or an integer past
		 * int32. */
		if (form == 0) {
			n->ki[j] = (unit_rand() & 1 ? 1 : -1) * 5000000000ll *
			    1000;
		} else if (form <= 3) {
			n->kscale[j] = (int)form;
			n->ki[j] = rnd(-30000, 30000);
			if (form == 1)
				n->ki[j] = n->ki[j] / 100 * 100;
			else if (form == 2)
				n->ki[j] = n->ki[j] / 10 * 10;
		} else if (n->col == C_I) {
			n->ki[j] = rnd(-22, 22) * 1000;
		} else if (n->col == C_L) {
			n->ki[j] = rnd(-1100, 1100) * 1000;
		} else if (n->col == C_D) {
			n->kscale[j] = 2;
			n->ki[j] = rnd(-3100, 3100) * 10;
		} else {
			n->kscale[j] = 2;
			n->ki[j] = rnd(-44, 44) * 250;
		}
		break;
	case C_DT:
	case C_TS:
		n->ki[j] = days_of(rnd(1992, 2000), rnd(1, 12), rnd(1, 28)) *
		    24 * HOUR;
		if (form < 4)
			n->kscale[j] = 1;
		else
			n->ki[j] += rnd(0, 23) * HOUR;
		break;
	default:
		snprintf(n->ks[j], sizeof(n->ks[j]), "%s", rnd_str());
		break;
	}
}

static void
civil(int64_t days, int *y, int *m, int *d)
{
	int64_t yy;

	/* Slow and obvious: find the year, then the month. */
	for (yy = 1970; days_of(yy + 1, 1, 1) <= days; yy++)
		;
	*y = (int)yy;
	for (*m = 1; *m < 12 && days_of(yy, *m + 1, 1) <= days; (*m)++)
		;
	*d = (int)(days - days_of(yy, *m, 1)) + 1;
}

static void
print_const(struct unit_buf *o, const struct cnd *n, int j)
{
	char t[64];
	int y, m, d;

	if (n->knull[j]) {
		unit_buf_str(o, "NULL");
		return;
	}
	switch (n->col) {
	case C_I:
	case C_L:
	case C_D:
	case C_F: {
		long long a = llabs(n->ki[j]);
		const char *sg = n->ki[j] < 0 ? "-" : "";

		if (n->kscale[j] == 0)
			snprintf(t, sizeof(t), "%s%lld", sg, a / 1000);
		else if (n->kscale[j] == 1)
			snprintf(t, sizeof(t), "%s%lld.%01lld", sg, a / 1000,
			    a % 1000 / 100);
		else if (n->kscale[j] == 2)
			snprintf(t, sizeof(t), "%s%lld.%02lld", sg, a / 1000,
			    a % 1000 / 10);
		else
			snprintf(t, sizeof(t), "%s%lld.%03lld", sg, a / 1000,
			    a % 1000);
		break;
	}
	case C_DT:
	case C_TS:
		civil(n->ki[j] / (24 * HOUR), &y, &m, &d);
		if (n->kscale[j] == 1) {
			snprintf(t, sizeof(t), "DATE '%04d-%02d-%02d'", y, m,
			    d);
			break;
		}
		snprintf(t, sizeof(t), "TIMESTAMP '%04d-%02d-%02d %02d:00:00'",
		    y, m, d, (int)(n->ki[j] % (24 * HOUR) / HOUR));
		break;
	default:
		snprintf(t, sizeof(t), "'%s'", n->ks[j]);
		break;
	}
	unit_buf_str(o, t);
}

/* A column a comparison can take: not the bool. */
static int
rnd_col(void)
{
	static const int cols[] = { C_I, C_L, C_D, C_F, C_S, C_DT, C_TS,
	    C_ODD };

	return cols[unit_rand() % (sizeof(cols) / sizeof(cols[0]))];
}

static struct cnd *
gen(int depth)
{
	struct cnd *n = calloc(1, sizeof(*n));
	unsigned pick = (unsigned)(unit_rand() % (depth > 0 ? 10 : 7));
	int j;

	if (n == NULL)
		abort();
	switch (pick) {
	case 0:
	case 1:
		n->kind = K_CMP;
		n->col = rnd_col();
		n->op = (int)(unit_rand() % 6);
		n->nk = 1;
		rnd_const(n, 0);
		break;
	case 2:
		n->kind = K_ISNULL;
		n->col = (int)(unit_rand() % NCOLS);
		n->neg = unit_rand() & 1;
		break;
	case 3:
		n->kind = K_BETWEEN;
		n->col = rnd_col();
		n->neg = unit_rand() % 3 == 0;
		n->nk = 2;
		rnd_const(n, 0);
		rnd_const(n, 1);
		break;
	case 4:
		n->kind = K_IN;
		n->col = rnd_col();
		n->neg = unit_rand() % 3 == 0;
		n->nk = 1 + (int)(unit_rand() % (unit_rand() % 4 ? 6 : MAXK));
		for (j = 0; j < n->nk; j++) {
			rnd_const(n, j);
			n->knull[j] = unit_rand() % 8 == 0;
		}
		break;
	case 5:
		n->kind = K_LIKE;
		n->col = unit_rand() & 1 ? C_S : C_ODD;
		n->neg = unit_rand() % 3 == 0;
		n->op = (int)(unit_rand() % (sizeof(pats) / sizeof(pats[0])));
		break;
	case 6:
		if (unit_rand() % 4 == 0) {
			n->kind = K_CONST;
			n->tv = (int)rnd(-1, 1);
		} else {
			n->kind = K_BOOLCOL;
			n->col = C_B;
		}
		break;
	case 7:
	case 8:
		n->kind = unit_rand() & 1 ? K_AND : K_OR;
		n->a = gen(depth - 1);
		n->b = gen(depth - 1);
		break;
	default:
		n->kind = K_NOT;
		n->a = gen(depth - 1);
		break;
	}
	return n;
}

static void
cnd_free(struct cnd *n)
{
	if (n == NULL)
		return;
	cnd_free(n->a);
	cnd_free(n->b);
	free(n);
}

static void
print_cnd(struct unit_buf *o, const struct cnd *n)
{
	int j;

	switch (n->kind) {
	case K_CMP:
		unit_buf_str(o, col_refs[n->col]);
		unit_buf_ch(o, ' ');
		unit_buf_str(o, op_text[n->op]);
		unit_buf_ch(o, ' ');
		print_const(o, n, 0);
		break;
	case K_ISNULL:
		unit_buf_str(o, col_refs[n->col]);
		unit_buf_str(o, n->neg ? " IS NOT NULL" : " IS NULL");
		break;
	case K_BETWEEN:
		unit_buf_str(o, col_refs[n->col]);
		unit_buf_str(o, n->neg ? " NOT BETWEEN " : " BETWEEN ");
		print_const(o, n, 0);
		unit_buf_str(o, " AND ");
		print_const(o, n, 1);
		break;
	case K_IN:
		unit_buf_str(o, col_refs[n->col]);
		unit_buf_str(o, n->neg ? " NOT IN (" : " IN (");
		for (j = 0; j < n->nk; j++) {
			if (j > 0)
				unit_buf_str(o, ", ");
			print_const(o, n, j);
		}
		unit_buf_ch(o, ')');
		break;
	case K_LIKE:
		unit_buf_str(o, col_refs[n->col]);
		unit_buf_str(o, n->neg ? " NOT LIKE '" : " LIKE '");
		unit_buf_str(o, pats[n->op]);
		unit_buf_ch(o, '\'');
		break;
	case K_BOOLCOL:
		unit_buf_str(o, "b");
		break;
	case K_CONST:
		unit_buf_str(o, n->tv < 0 ? "NULL" : n->tv ? "TRUE" : "FALSE");
		break;
	case K_AND:
	case K_OR:
		unit_buf_ch(o, '(');
		print_cnd(o, n->a);
		unit_buf_str(o, n->kind == K_AND ? ") AND (" : ") OR (");
		print_cnd(o, n->b);
		unit_buf_ch(o, ')');
		break;
	case K_NOT:
		unit_buf_str(o, "NOT (");
		print_cnd(o, n->a);
		unit_buf_ch(o, ')');
		break;
	}
}

static bool
like(const char *s, size_t n, const char *p)
{
	size_t k;

	if (*p == '\0')
		return n == 0;
	if (*p == '%') {
		for (k = 0; k <= n; k++)
			if (like(s + k, n - k, p + 1))
				return true;
		return false;
	}
	if (n == 0)
		return false;
	if (*p == '_') {
		/* One character: a UTF-8 lead byte and its continuations. */
		k = 1;
		while (k < n && ((unsigned char)s[k] & 0xc0) == 0x80)
			k++;
		return like(s + k, n - k, p + 1);
	}
	return *s == *p && like(s + 1, n - 1, p + 1);
}

static const struct core_batch *rb;

static bool
row_null(int c, uint32_t r)
{
	return !core_col_is_valid(&rb->cols[c], r);
}

/* -1, 0, 1: the row's value against constant j. */
static int
cmp_row(const struct cnd *n, int j, uint32_t r)
{
	const struct core_column *c = &rb->cols[n->col];
	int64_t v;

	switch (n->col) {
	case C_I:
		v = ((const int32_t *)c->values)[r] * 1000ll;
		break;
	case C_L:
		v = ((const int64_t *)c->values)[r] * 1000;
		break;
	case C_D:
		v = ((const int64_t *)c->values)[r] * 10;
		break;
	case C_F:
		/* Quarters: exact in thousandths. */
		v = (int64_t)(((const double *)c->values)[r] * 1000);
		break;
	case C_DT:
		v = ((const int32_t *)c->values)[r] * 24 * HOUR;
		break;
	case C_S:
	case C_ODD: {
		const char *p = (const char *)c->values + c->offsets[r];
		size_t len = (size_t)(c->offsets[r + 1] - c->offsets[r]);
		size_t kl = strlen(n->ks[j]);
		int x = memcmp(p, n->ks[j], len < kl ? len : kl);

		if (x != 0)
			return x < 0 ? -1 : 1;
		return len < kl ? -1 : len > kl;
	}
	default:
		v = ((const int64_t *)c->values)[r];
		break;
	}
	return v < n->ki[j] ? -1 : v > n->ki[j];
}

static bool
op_holds(int op, int c)
{
	switch (op) {
	case OP_EQ: return c == 0;
	case OP_NE: return c != 0;
	case OP_LT: return c < 0;
	case OP_LE: return c <= 0;
	case OP_GT: return c > 0;
	default: return c >= 0;
	}
}

static int
not3(int t)
{
	return t < 0 ? -1 : !t;
}

static int
eval_cnd(const struct cnd *n, uint32_t r)
{
	int x, y, j;

	switch (n->kind) {
	case K_CMP:
		return row_null(n->col, r) ? -1 :
		    op_holds(n->op, cmp_row(n, 0, r));
	case K_ISNULL:
		return row_null(n->col, r) != n->neg;
	case K_BETWEEN:
		if (row_null(n->col, r))
			return -1;
		x = cmp_row(n, 0, r) >= 0 && cmp_row(n, 1, r) <= 0;
		return n->neg ? !x : x;
	case K_IN:
		if (row_null(n->col, r))
			return -1;
		x = 0;
		for (j = 0; j < n->nk; j++) {
			if (n->knull[j])
				x = x == 1 ? 1 : -1;
			else if (cmp_row(n, j, r) == 0)
				x = 1;
		}
		return n->neg ? not3(x) : x;
	case K_LIKE: {
		const struct core_column *c = &rb->cols[n->col];

		if (row_null(n->col, r))
			return -1;
		x = like((const char *)c->values + c->offsets[r],
		    (size_t)(c->offsets[r + 1] - c->offsets[r]),
		    pats[n->op]);
		return n->neg ? !x : x;
	}
	case K_BOOLCOL:
		return row_null(C_B, r) ? -1 :
		    ((const uint8_t *)rb->cols[C_B].values)[r];
	case K_CONST:
		return n->tv;
	case K_AND:
		x = eval_cnd(n->a, r);
		y = eval_cnd(n->b, r);
		return x == 0 || y == 0 ? 0 : x < 0 || y < 0 ? -1 : 1;
	case K_OR:
		x = eval_cnd(n->a, r);
		y = eval_cnd(n->b, r);
		return x == 1 || y == 1 ? 1 : x < 0 || y < 0 ? -1 : 0;
	default:
		return not3(eval_cnd(n->a, r));
	}
}

/* ---- select lists ---- */

/* Computed columns: none can fail on fill_batch's values. */
static const char *const exprs[] = {
	"i * 2", "l - i", "d * 2", "d + i", "f / 2", "upper(s)",
	"s || '!'", "coalesce(i, -1)", "dt + INTERVAL 1 MONTH",
	"CASE WHEN b THEN i ELSE NULL END", "abs(f)", "year(dt)",
	"CAST(i AS string)", "length(\"odd name\")", "i IS NULL",
	"-l", "ts", "nullif(i, 0)", "i + 0.5", "s LIKE 'a%'",
	"greatest(i, l)", "dt - DATE '1995-01-01'", "concat(s, i)",
};

/* What one output column must be. */
struct want {
	int col;			/* >= 0: input column */
	struct core_expr_bound *b;	/* else: bound on its own */
	char name[64];
};

struct sel_spec {
	struct unit_buf text;
	struct want w[64];
	int n;
	bool dup;			/* two outputs share a name */
};

static void
want_col(struct sel_spec *sp, int c, const char *name)
{
	struct want *w = &sp->w[sp->n++];

	w->col = c;
	w->b = NULL;
	snprintf(w->name, sizeof(w->name), "%s", name);
}

static void
want_expr(struct sel_spec *sp, const struct core_schema *s, const char *src,
    const char *name)
{
	struct want *w = &sp->w[sp->n++];
	struct core_expr *e = NULL;
	struct core_err err = { 0, "" };

	w->col = -1;
	snprintf(w->name, sizeof(w->name), "%s", name);
	if (core_expr_parse(src, strlen(src), &e, &err) != 0 ||
	    core_expr_bind(e, src, strlen(src), s, &w->b, &err) != 0) {
		printf("# %s: %s\n", src, err.msg);
		fflush(stdout);
		abort();
	}
	core_expr_free(e);
}

static void
gen_select(struct sel_spec *sp, const struct core_schema *s)
{
	int items = 1 + (int)(unit_rand() % 6), it, c, j;
	char name[64];
	bool star = false;

	memset(sp, 0, sizeof(*sp));
	for (it = 0; it < items && sp->n < 40; it++) {
		unsigned pick = (unsigned)(unit_rand() % 8);

		if (it > 0)
			unit_buf_str(&sp->text, ", ");
		if (pick == 0 && !star) {
			bool drop[NCOLS] = { false };
			int nd = 0;

			star = true;
			unit_buf_str(&sp->text, "*");
			for (c = 0; c < NCOLS; c++)
				if (unit_rand() % 3 == 0)
					drop[c] = true;
			for (c = 0; c < NCOLS; c++) {
				if (!drop[c])
					continue;
				unit_buf_str(&sp->text, nd++ ? ", " :
				    " EXCLUDE (");
				unit_buf_str(&sp->text, col_refs[c]);
			}
			if (nd)
				unit_buf_ch(&sp->text, ')');
			for (c = 0; c < NCOLS; c++)
				if (!drop[c])
					want_col(sp, c, col_names[c]);
		} else if (pick <= 3) {
			c = (int)(unit_rand() % NCOLS);
			unit_buf_str(&sp->text, col_refs[c]);
			if (unit_rand() % 2) {
				snprintf(name, sizeof(name), "r%d",
				    (int)(unit_rand() % 12));
				unit_buf_str(&sp->text, " AS ");
				unit_buf_str(&sp->text, name);
				want_col(sp, c, name);
			} else {
				want_col(sp, c, col_names[c]);
			}
		} else {
			const char *x = exprs[unit_rand() %
			    (sizeof(exprs) / sizeof(exprs[0]))];

			snprintf(name, sizeof(name), "c%d",
			    (int)(unit_rand() % 16));
			unit_buf_str(&sp->text, x);
			unit_buf_str(&sp->text, " AS ");
			unit_buf_str(&sp->text, name);
			want_expr(sp, s, x, name);
		}
	}
	for (it = 0; it < sp->n; it++)
		for (j = 0; j < it; j++)
			if (strcmp(sp->w[it].name, sp->w[j].name) == 0)
				sp->dup = true;
}

static void
sel_release(struct sel_spec *sp)
{
	int i;

	for (i = 0; i < sp->n; i++)
		core_expr_bound_free(sp->w[i].b);
	free(sp->text.p);
}

/* ---- comparing ---- */

/* Whether row a of column x holds what row b of column y does. */
static bool
same(const struct core_column *x, uint32_t a, const struct core_column *y,
    uint32_t b)
{
	bool vx = core_col_is_valid(x, a), vy = core_col_is_valid(y, b);
	size_t w;

	if (x->type.id != y->type.id || vx != vy)
		return false;
	if (!vx)
		return true;
	if (x->type.id == CORE_TYPE_STRING) {
		int32_t lx = x->offsets[a + 1] - x->offsets[a];
		int32_t ly = y->offsets[b + 1] - y->offsets[b];

		return lx == ly && memcmp((const char *)x->values +
		    x->offsets[a], (const char *)y->values + y->offsets[b],
		    (size_t)lx) == 0;
	}
	w = core_type_width(x->type.id);
	return memcmp((const char *)x->values + a * w,
	    (const char *)y->values + b * w, w) == 0;
}

/* in with the columns the scan does not need emptied, as the MLSPILL3
 * reader leaves them: a scan that read one would crash. */
static void
strip(struct core_batch *dst, const struct core_batch *in,
    const bool *needed)
{
	uint32_t c;

	dst->schema = in->schema;
	dst->nrows = in->nrows;
	dst->ncols = in->ncols;
	for (c = 0; c < in->ncols; c++) {
		dst->cols[c] = in->cols[c];
		dst->cols[c].validity_buf = NULL;
		dst->cols[c].validity_cap = 0;
		dst->cols[c].values_cap = 0;
		dst->cols[c].offsets_cap = 0;
		if (!needed[c]) {
			dst->cols[c].validity = NULL;
			dst->cols[c].values = NULL;
			dst->cols[c].offsets = NULL;
		}
	}
}

static const uint32_t lengths[] = { 0, 1, 2, 3, 17, 4095, 4096, 4097 };
#define NLEN (sizeof(lengths) / sizeof(lengths[0]))

static int failures;
/* Plans whose filter kept none, some or all of a 4097-row batch. */
static int kept_none, kept_some, kept_all;

/* Runs one plan over every length and compares. */
static void
check_plan(const struct core_schema *s, struct cnd *where,
    struct sel_spec *sp)
{
	struct unit_buf wt = { 0 };
	struct core_scan_spec spec;
	struct core_scan *scan = NULL;
	struct core_err err = { 0, "" };
	struct core_batch in, view;
	struct core_column ref;
	const struct core_schema *os;
	const bool *needed;
	char which = 0;
	uint32_t li, r, k, n, cnt, j;
	int rc;

	if (where != NULL)
		print_cnd(&wt, where);
	spec.where = where != NULL ? wt.p : NULL;
	spec.select = sp->text.p;
	rc = core_scan_new(&spec, s, &scan, &which, &err);
	if (sp->dup) {
		CHECK_EQ_INT(rc, CORE_EUSAGE);
		CHECK(which == 's');
		CHECK(scan == NULL);
		core_scan_free(scan);
		free(wt.p);
		return;
	}
	if (rc != 0) {
		printf("# where %s select %s: %s\n", wt.p ? wt.p : "-",
		    sp->text.p, err.msg);
		CHECK_EQ_INT(rc, 0);
		free(wt.p);
		return;
	}
	os = core_scan_schema(scan);
	CHECK_EQ_INT(os->ncols, sp->n);
	for (j = 0; j < os->ncols && j < (uint32_t)sp->n; j++) {
		CHECK_EQ_STR(os->fields[j].name, sp->w[j].name);
		if (sp->w[j].col >= 0)
			CHECK(os->fields[j].type.id ==
			    s->fields[sp->w[j].col].type.id);
		else
			CHECK(os->fields[j].type.id ==
			    core_expr_bound_type(sp->w[j].b).id);
	}
	CHECK(core_scan_has_filter(scan) == (where != NULL));
	needed = core_scan_needed(scan);
	for (j = 0; j < (uint32_t)sp->n; j++)
		if (sp->w[j].col >= 0)
			CHECK(needed[sp->w[j].col]);
	core_batch_init(&in, s);
	core_batch_init(&view, s);
	memset(&ref, 0, sizeof(ref));
	for (li = 0; li < NLEN && unit_cur_failed == 0; li++) {
		const struct core_batch *out;
		uint32_t *pass;

		fill_batch(&in, lengths[li]);
		strip(&view, &in, needed);
		rb = &in;
		pass = core_xmalloc((in.nrows + 1) * sizeof(*pass));
		n = 0;
		for (r = 0; r < in.nrows; r++)
			if (where == NULL || eval_cnd(where, r) == 1)
				pass[n++] = r;
		if (in.nrows == 4097) {
			kept_none += n == 0;
			kept_some += n > 0 && n < in.nrows;
			kept_all += n == in.nrows;
		}
		core_scan_set_row_base(scan, 1);
		rc = core_scan_count(scan, &view, &cnt, &err);
		CHECK_EQ_INT(rc, 0);
		CHECK_EQ_INT(cnt, n);
		rc = core_scan_batch(scan, &view, &out, &err);
		CHECK_EQ_INT(rc, 0);
		if (rc != 0)
			printf("# %s\n", err.msg);
		CHECK_EQ_INT(out->nrows, n);
		CHECK(out->schema == os || out->schema == NULL ||
		    out->schema->ncols == os->ncols);
		for (j = 0; rc == 0 && j < os->ncols && out->nrows == n &&
		    unit_cur_failed == 0; j++) {
			const struct want *w = &sp->w[j];

			for (k = 0; k < n; k++) {
				bool ok;

				if (w->col >= 0) {
					ok = same(&out->cols[j], k,
					    &in.cols[w->col], pass[k]);
				} else {
					CHECK_EQ_INT(core_expr_eval_project(
					    w->b, &in, &pass[k], 1, &ref,
					    &err), 0);
					ok = same(&out->cols[j], k, &ref, 0);
				}
				if (!ok) {
					printf("# %u rows, output column "
					    "%u '%s', output row %u (input "
					    "row %u) differs\n", in.nrows, j,
					    w->name, k, pass[k]);
					CHECK(ok);
					break;
				}
			}
		}
		free(pass);
	}
	if (unit_cur_failed) {
		printf("# where: %s\n# select: %s\n", wt.p ? wt.p : "-",
		    sp->text.p);
		failures++;
	}
	core_expr_column_release(&ref);
	memset(view.cols, 0, view.ncols * sizeof(*view.cols));
	core_batch_release(&view);
	core_batch_release(&in);
	core_scan_free(scan);
	free(wt.p);
}

static void
test_random_plans(void)
{
	struct core_schema *s = make_schema();
	int iter, dups = 0, none = 0;

	for (iter = 0; iter < 400 && failures == 0; iter++) {
		struct cnd *where = iter % 5 == 0 ? NULL :
		    gen((int)(unit_rand() % 4));
		struct sel_spec sp;

		gen_select(&sp, s);
		dups += sp.dup;
		none += where == NULL;
		check_plan(s, where, &sp);
		sel_release(&sp);
		cnd_free(where);
	}
	/* The generator must make both kinds of plan. */
	CHECK(dups > 10);
	CHECK(iter - dups > 200);
	CHECK(none > 20);
	CHECK(kept_none > 20);
	CHECK(kept_some > 100);
	CHECK(kept_all > 50);
	printf("# %d plans, %d with two outputs of one name; at 4097 rows "
	    "the filter kept none %d, some %d, all %d\n", iter, dups,
	    kept_none, kept_some, kept_all);
	core_schema_free(s);
}

/* With every row passing, plain columns are the input's buffers. */
static void
test_all_pass_views(void)
{
	static const char *wheres[] = { NULL, "i IS NULL OR i IS NOT NULL",
	    "TRUE" };
	struct core_schema *s = make_schema();
	struct core_batch in;
	struct core_err err = { 0, "" };
	size_t w;
	uint32_t c;

	core_batch_init(&in, s);
	fill_batch(&in, 4097);
	for (w = 0; w < sizeof(wheres) / sizeof(wheres[0]); w++) {
		struct core_scan_spec spec = { .where = wheres[w],
		    .select = "\"odd name\", * EXCLUDE (\"odd name\"), "
		    "i + 1 AS x" };
		struct core_scan *scan = NULL;
		const struct core_batch *out;
		char which;

		CHECK_EQ_INT(core_scan_new(&spec, s, &scan, &which, &err), 0);
		if (scan == NULL)
			continue;
		CHECK(!core_scan_is_identity(scan));
		CHECK_EQ_INT(core_scan_batch(scan, &in, &out, &err), 0);
		CHECK_EQ_INT(out->nrows, 4097);
		CHECK(out->cols[0].values == in.cols[C_ODD].values);
		CHECK(out->cols[0].offsets == in.cols[C_ODD].offsets);
		for (c = 0; c < C_ODD; c++) {
			CHECK(out->cols[c + 1].values == in.cols[c].values);
			CHECK(out->cols[c + 1].validity ==
			    in.cols[c].validity);
		}
		core_scan_free(scan);
	}
	/* No filter and "*": the identity. */
	{
		struct core_scan_spec spec = { .where = NULL };
		struct core_scan *scan = NULL;
		const struct core_batch *out;
		char which;

		CHECK_EQ_INT(core_scan_new(&spec, s, &scan, &which, &err), 0);
		CHECK(core_scan_is_identity(scan));
		CHECK(!core_scan_has_filter(scan));
		CHECK_EQ_INT(core_scan_batch(scan, &in, &out, &err), 0);
		for (c = 0; c < NCOLS; c++)
			CHECK(out->cols[c].values == in.cols[c].values);
		core_scan_free(scan);
		spec.select = "i AS j, l, d, f, s, dt, ts, b, \"odd name\"";
		CHECK_EQ_INT(core_scan_new(&spec, s, &scan, &which, &err), 0);
		CHECK(!core_scan_is_identity(scan));
		core_scan_free(scan);
	}
	core_batch_release(&in);
	core_schema_free(s);
}

/* needed is exactly the columns the filter, the expressions and the
 * plain outputs read. */
static void
test_needed(void)
{
	static const struct {
		const char *where, *select, *cols;
	} cases[] = {
		{ NULL, "i", "i" },
		{ "s LIKE 'a%'", "i, l + 1 AS x", "i l s" },
		{ "b", "1 AS one", "b" },
		{ NULL, "1 AS one", "" },
		{ "dt IS NULL OR f > 1", "* EXCLUDE (i, l, d, f, s, dt, ts)",
		    "f dt b odd" },
		{ NULL, "CASE WHEN b THEN ts END AS x, nullif(d, 0) AS y",
		    "d ts b" },
		{ "coalesce(i, l) IN (1, 2)", "\"odd name\" AS o", "i l odd" },
		/* A constant side of AND/OR folds away what it decides. */
		{ "i = 1 OR TRUE", "upper(s) AS u", "s" },
		{ "FALSE AND l > 0", "upper(s) AS u", "s" },
		{ "(f > 1 AND TRUE) OR FALSE", "1 AS one", "f" },
		{ "i > 0 OR NULL", "upper(s) AS u", "i s" },
		/* ... also a side whose constant part is an error. */
		{ "1 = 2 AND sqrt(-1.0) > l", "upper(s) AS u", "s" },
		{ "i > 0 OR (TRUE OR 1 / 0 > CAST('x' AS int32))", "f",
		    "f" },
	};
	static const char *const short_names[NCOLS] = { "i", "l", "d", "f",
	    "s", "dt", "ts", "b", "odd" };
	struct core_schema *s = make_schema();
	size_t i;
	int c;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct core_scan_spec spec = { .where = cases[i].where,
		    .select = cases[i].select };
		struct core_scan *scan = NULL;
		struct core_err err = { 0, "" };
		char which, got[128] = "";
		const bool *needed;

		CHECK_EQ_INT(core_scan_new(&spec, s, &scan, &which, &err), 0);
		if (scan == NULL) {
			printf("# %s\n", err.msg);
			continue;
		}
		needed = core_scan_needed(scan);
		for (c = 0; c < NCOLS; c++) {
			if (!needed[c])
				continue;
			if (got[0] != '\0')
				strcat(got, " ");
			strcat(got, short_names[c]);
		}
		CHECK_EQ_STR(got, cases[i].cols);
		core_scan_free(scan);
	}
	core_schema_free(s);
}

/* Every mistake is CORE_EUSAGE at planning, told apart by which. */
static void
test_plan_errors(void)
{
	static const struct {
		const char *where, *select;
		char which;
		const char *msg;
	} cases[] = {
		{ "i", NULL, 'w', "a filter must be a condition" },
		{ "i +", NULL, 'w', "expected an expression" },
		{ "nosuch = 1", NULL, 'w', "unknown column 'nosuch'" },
		{ "", NULL, 'w', "empty expression" },
		{ NULL, "i, i", 's', "two columns named 'i'" },
		{ NULL, "*, s", 's', "two columns named 's'" },
		{ NULL, "* EXCLUDE (x)", 's', "unknown column 'x'" },
		{ NULL, "i + s", 's', "cannot apply '+'" },
		{ NULL, "", 's', "empty expression" },
		{ "b", "i AS", 's', "expected a name after AS" },
		{ "b", "nosuch", 's', "unknown column 'nosuch'" },
		{ "nosuch", "nosuch", 'w', "unknown column 'nosuch'" },
	};
	struct core_schema *s = make_schema();
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct core_scan_spec spec = { .where = cases[i].where,
		    .select = cases[i].select };
		struct core_scan *scan = (struct core_scan *)&spec;
		struct core_err err = { 0, "" };
		char which = 0;
		int rc;

		rc = core_scan_new(&spec, s, &scan, &which, &err);
		CHECK_EQ_INT(rc, CORE_EUSAGE);
		CHECK(scan == NULL);
		CHECK(which == cases[i].which);
		if (strstr(err.msg, cases[i].msg) == NULL) {
			printf("# %s / %s: %s\n", cases[i].where ?
			    cases[i].where : "-", cases[i].select ?
			    cases[i].select : "-", err.msg);
			CHECK(false);
		}
	}
	core_scan_free(NULL);
	core_schema_free(s);
}

/* Row errors name base + index, in the filter and in a column, and only
 * for rows that pass. */
static void
test_row_errors(void)
{
	struct core_schema *s = make_schema();
	struct core_batch in;
	struct core_err err = { 0, "" };
	struct core_scan_spec spec = { .where = "b",
	    .select = "i * 200000000 AS x" };
	struct core_scan *scan = NULL;
	const struct core_batch *out;
	uint32_t r, n;
	char which;

	core_batch_init(&in, s);
	fill_batch(&in, 17);
	for (r = 0; r < 17; r++) {
		((int32_t *)in.cols[C_I].values)[r] = r == 9 ? 20 : 0;
		((uint8_t *)in.cols[C_B].values)[r] = r != 4;
	}
	in.cols[C_I].validity = NULL;
	in.cols[C_B].validity = NULL;
	CHECK_EQ_INT(core_scan_new(&spec, s, &scan, &which, &err), 0);
	core_scan_set_row_base(scan, 101);
	CHECK_EQ_INT(core_scan_batch(scan, &in, &out, &err), CORE_EDATA);
	CHECK(strstr(err.msg, "row 110: int32 overflow") != NULL);
	/* Row 9 filtered out: no error. */
	((uint8_t *)in.cols[C_B].values)[9] = 0;
	CHECK_EQ_INT(core_scan_batch(scan, &in, &out, &err), 0);
	CHECK_EQ_INT(out->nrows, 15);
	core_scan_free(scan);
	/* In the filter, and in count. */
	spec.where = "i * 200000000 > 0";
	spec.select = NULL;
	CHECK_EQ_INT(core_scan_new(&spec, s, &scan, &which, &err), 0);
	core_scan_set_row_base(scan, 1);
	CHECK_EQ_INT(core_scan_count(scan, &in, &n, &err), CORE_EDATA);
	CHECK(strstr(err.msg, "row 10: int32 overflow") != NULL);
	core_scan_free(scan);
	core_batch_release(&in);
	core_schema_free(s);
}

int
main(void)
{
	RUN(test_random_plans);
	RUN(test_all_pass_views);
	RUN(test_needed);
	RUN(test_plan_errors);
	RUN(test_row_errors);
	return unit_done();
}
