/*
 * test_prune.c - core_prune: a unit is ruled out only when no row of it
 * passes the filter.
 *
 * The property is checked against the evaluator itself, the obviously
 * correct judge of which rows pass: random small units (a batch), their
 * exact statistics (or some of them withheld, as files withhold them),
 * random filters mixing terms the pruner keeps with terms it must
 * ignore.  Whenever may_match says no, the filter must pass no row.  The
 * pruner must also prune: a good share of the units that no row passes
 * are ruled out, and fixed cases check each kind of term.
 */
#include <math.h>
#include <stdint.h>

#include "core_alloc.h"
#include "core_col.h"
#include "core_expr_bind.h"
#include "core_expr_eval.h"
#include "core_expr_parse.h"
#include "core_prune.h"
#include "unit.h"

enum { C_I, C_L, C_D, C_DT, C_TS, C_S, C_F, C_W, NCOLS };

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t
rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int64_t
rnd_in(int64_t lo, int64_t hi)
{
	return lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1));
}

static struct core_schema *
make_schema(void)
{
	struct core_schema *s = core_schema_new(NCOLS);

	core_schema_set(s, C_I, "i", (struct core_coltype){ CORE_TYPE_INT32,
	    0, 0 });
	core_schema_set(s, C_L, "l", (struct core_coltype){ CORE_TYPE_INT64,
	    0, 0 });
	core_schema_set(s, C_D, "d", (struct core_coltype){
	    CORE_TYPE_DECIMAL, 9, 2 });
	core_schema_set(s, C_DT, "dt", (struct core_coltype){ CORE_TYPE_DATE,
	    0, 0 });
	core_schema_set(s, C_TS, "ts", (struct core_coltype){
	    CORE_TYPE_TIMESTAMP, 0, 0 });
	core_schema_set(s, C_S, "s", (struct core_coltype){ CORE_TYPE_STRING,
	    0, 0 });
	core_schema_set(s, C_F, "f", (struct core_coltype){
	    CORE_TYPE_FLOAT64, 0, 0 });
	core_schema_set(s, C_W, "w", (struct core_coltype){
	    CORE_TYPE_DECIMAL128, 30, 2 });
	return s;
}

/* Decimal128 values of the column w: v * 10^20 + v (scaled), so that
 * they pass 64 bits and keep v's order. */
static core_i128
W(int64_t v)
{
	return (core_i128)v * (core_i128)10000000000 * 10000000000 + v;
}

static const char *const words[] = { "", "a", "ab", "abc", "b", "ba",
    "c", "z" };
#define NWORDS (sizeof(words) / sizeof(words[0]))

/* n random rows with values in [lo, lo + span], NULLs at rate 1/nul
 * (0: none; 1: every row). */
static void
fill(struct core_batch *b, uint32_t n, int64_t lo, int64_t span, int nul)
{
	uint32_t r, c;

	core_batch_reset(b);
	core_batch_reserve(b, n, (size_t)n * 4 + 8);
	for (c = 0; c < NCOLS; c++) {
		struct core_column *col = &b->cols[c];
		size_t used = 0;

		for (r = 0; r < n; r++) {
			bool isnull = nul == 1 ||
			    (nul > 1 && rnd() % (uint64_t)nul == 0);
			int64_t v = isnull ? 0 : rnd_in(lo, lo + span);

			switch (col->type.id) {
			case CORE_TYPE_INT32:
			case CORE_TYPE_DATE:
				((int32_t *)col->values)[r] = (int32_t)v;
				break;
			case CORE_TYPE_FLOAT64:
				((double *)col->values)[r] = (double)v / 2;
				break;
			case CORE_TYPE_STRING: {
				const char *w = isnull ? "" :
				    words[(uint64_t)(v - lo) % NWORDS];

				memcpy((char *)col->values + used, w,
				    strlen(w));
				used += strlen(w);
				col->offsets[r + 1] = (int32_t)used;
				break;
			}
			case CORE_TYPE_TIMESTAMP:
				((int64_t *)col->values)[r] = v * 86400000000ll;
				break;
			case CORE_TYPE_DECIMAL128:
				((core_i128 *)col->values)[r] = W(v);
				break;
			default:
				((int64_t *)col->values)[r] = v;
			}
			if (isnull)
				core_col_set_null(col, r, n);
		}
	}
	b->nrows = n;
}

/* The exact statistics of rows from..to-1 of b's columns, some withheld
 * at random. */
static void
stats_range(const struct core_batch *b, uint32_t from, uint32_t to,
    struct core_colstats *st, bool withhold)
{
	uint32_t c, r;

	for (c = 0; c < NCOLS; c++) {
		const struct core_column *col = &b->cols[c];
		struct core_colstats *x = &st[c];
		bool first = true;

		memset(x, 0, sizeof(*x));
		x->rows = to - from;
		for (r = from; r < to; r++) {
			int64_t v;

			if (!core_col_is_valid(col, r)) {
				x->null_count++;
				continue;
			}
			if (col->type.id == CORE_TYPE_STRING) {
				const char *p = (const char *)col->values +
				    col->offsets[r];
				uint32_t len = (uint32_t)(col->offsets[r + 1] -
				    col->offsets[r]);
				int lo, hi;

				lo = first ? -1 : memcmp(p, x->smin,
				    len < x->sminlen ? len : x->sminlen);
				if (!first && lo == 0)
					lo = len < x->sminlen ? -1 : 0;
				hi = first ? 1 : memcmp(p, x->smax,
				    len < x->smaxlen ? len : x->smaxlen);
				if (!first && hi == 0)
					hi = len > x->smaxlen ? 1 : 0;
				if (lo < 0) {
					x->smin = p;
					x->sminlen = len;
				}
				if (hi > 0) {
					x->smax = p;
					x->smaxlen = len;
				}
				first = false;
				continue;
			}
			if (col->type.id == CORE_TYPE_DECIMAL128) {
				core_i128 w = ((const core_i128 *)
				    col->values)[r];

				if (first || w < x->wmin)
					x->wmin = w;
				if (first || w > x->wmax)
					x->wmax = w;
				first = false;
				continue;
			}
			switch (col->type.id) {
			case CORE_TYPE_INT32:
			case CORE_TYPE_DATE:
				v = ((const int32_t *)col->values)[r];
				break;
			case CORE_TYPE_FLOAT64:
				v = 0;
				break;
			default:
				v = ((const int64_t *)col->values)[r];
			}
			if (first || v < x->imin)
				x->imin = v;
			if (first || v > x->imax)
				x->imax = v;
			first = false;
		}
		x->has_null_count = !(withhold && rnd() % 4 == 0);
		x->has_minmax = !first && col->type.id != CORE_TYPE_FLOAT64 &&
		    !(withhold && rnd() % 4 == 0);
	}
}

static void
stats_of(const struct core_batch *b, struct core_colstats *st,
    bool withhold)
{
	stats_range(b, 0, b->nrows, st, withhold);
}

/* A random filter: two to four terms joined by AND, some the pruner
 * can use, some not. */
static void
make_filter(char *buf, size_t cap, int64_t lo, int64_t span)
{
	static const char *const ops[] = { "=", "<>", "<", "<=", ">", ">=" };
	int nterms = 1 + (int)(rnd() % 3), t;
	size_t len = 0;

	buf[0] = '\0';
	for (t = 0; t < nterms; t++) {
		int64_t k = rnd_in(lo - 2, lo + span + 2);
		const char *op = ops[rnd() % 6];
		char term[160];

		switch (rnd() % 15) {
		case 0:
			snprintf(term, sizeof(term), "i %s %lld", op,
			    (long long)k);
			break;
		case 1:
			snprintf(term, sizeof(term), "%lld %s l", (long long)k,
			    op);
			break;
		case 2:
			snprintf(term, sizeof(term), "d %s %lld.%02d", op,
			    (long long)(k / 100), (int)llabs(k % 100));
			if (k < 0 && k > -100)
				snprintf(term, sizeof(term), "d %s -0.%02d", op,
				    (int)-k);
			break;
		case 3:
			snprintf(term, sizeof(term), "i BETWEEN %lld AND %lld",
			    (long long)k, (long long)(k + (int64_t)(rnd() %
			    4)));
			break;
		case 4:
			snprintf(term, sizeof(term),
			    "dt %s DATE '1970-01-01' + %lld", op,
			    (long long)k);
			break;
		case 5:
			snprintf(term, sizeof(term), "s %s '%s'", op,
			    words[rnd() % NWORDS]);
			break;
		case 6:
			snprintf(term, sizeof(term), "l IN (%lld, %lld, NULL)",
			    (long long)k, (long long)(k + 3));
			break;
		case 7:
			snprintf(term, sizeof(term), "s IN ('%s', '%s')",
			    words[rnd() % NWORDS], words[rnd() % NWORDS]);
			break;
		case 8:
			snprintf(term, sizeof(term), "%s IS %sNULL",
			    rnd() % 2 ? "i" : "s", rnd() % 2 ? "NOT " : "");
			break;
		case 9:
			/* Not a plain column: ignored. */
			snprintf(term, sizeof(term), "i + 1 %s %lld", op,
			    (long long)k);
			break;
		case 10:
			snprintf(term, sizeof(term), "(i < %lld OR l > %lld)",
			    (long long)k, (long long)k);
			break;
		case 12:
			/* The value W(k) or one next to it, written out
			 * with its two fraction digits: k * 10^18 + k/100. */
			snprintf(term, sizeof(term), "w %s %s%lld%018lld.%02d",
			    op, k < 0 ? "-" : "", (long long)llabs(k),
			    (long long)(llabs(k) / 100 + rnd() % 2),
			    (int)(llabs(k) % 100));
			if (k == 0)
				snprintf(term, sizeof(term), "w %s 0.0%d", op,
				    (int)(rnd() % 2));
			break;
		case 13:
			snprintf(term, sizeof(term), "w IN (%lld%018lld.%02d, "
			    "%lld.5)", (long long)(k > 0 ? k : 1),
			    (long long)((k > 0 ? k : 1) / 100),
			    (int)((k > 0 ? k : 1) % 100), (long long)k);
			break;
		case 14:
			snprintf(term, sizeof(term), "w %s %lld", op,
			    (long long)k);
			break;
		default:
			snprintf(term, sizeof(term), "f %s %lld", op,
			    (long long)k);
			break;
		}
		len += (size_t)snprintf(buf + len, cap - len, "%s%s",
		    t ? " AND " : "", term);
	}
}

static struct core_expr_bound *
bind(const char *src, const struct core_schema *s)
{
	struct core_expr *e = NULL;
	struct core_expr_bound *b = NULL;
	struct core_err err = { 0, "" };

	if (core_expr_parse(src, strlen(src), &e, &err) != 0 ||
	    core_expr_bind(e, src, strlen(src), s, &b, &err) != 0) {
		printf("# %s: %s\n", src, err.msg);
		b = NULL;
	}
	core_expr_free(e);
	return b;
}

/* The rows of b the filter passes. */
static uint32_t
passing(struct core_expr_bound *w, const struct core_batch *b)
{
	struct core_err err = { 0, "" };
	uint32_t sel[64], n = 0;

	if (core_expr_eval_filter(w, b, NULL, b->nrows, sel, &n, &err) != 0)
		printf("# eval: %s\n", err.msg);
	return n;
}

static void
test_sound(void)
{
	struct core_schema *s = make_schema();
	struct core_colstats st[NCOLS];
	struct core_batch b;
	unsigned iter, pruned = 0, empty = 0, wrong = 0;
	char src[800];

	core_batch_init(&b, s);
	for (iter = 0; iter < 20000; iter++) {
		int64_t lo = rnd_in(-20, 20), span = rnd_in(0, 8);
		static const int nuls[] = { 0, 0, 3, 1 };
		struct core_expr_bound *w;
		struct core_prune *p;
		uint32_t n = 1 + (uint32_t)(rnd() % 40);
		bool may;

		fill(&b, n, lo, span, nuls[rnd() % 4]);
		make_filter(src, sizeof(src), rnd_in(-20, 20),
		    rnd_in(0, 8));
		if ((w = bind(src, s)) == NULL) {
			wrong++;
			continue;
		}
		stats_of(&b, st, iter % 2 == 1);
		p = core_prune_new(w, s);
		may = p == NULL || core_prune_may_match(p, st);
		if (passing(w, &b) == 0) {
			empty++;
			pruned += !may;
		} else if (!may) {
			if (wrong++ < 5)
				printf("# ruled out, yet rows pass: %s\n", src);
		}
		core_prune_free(p);
		core_expr_bound_free(w);
	}
	CHECK_EQ_INT(wrong, 0);
	/* Many empty units are caught: the pruner is not a no-op. */
	printf("# %u of %u units with no passing row ruled out\n", pruned,
	    empty);
	CHECK(pruned * 4 > empty);
	core_batch_release(&b);
	core_schema_free(s);
}

/* Statistics of rows lo..hi-1 of column c of b, all others unknown:
 * what a page of a page index tells. */
static void
page_stats_of(const struct core_batch *b, uint32_t c, uint32_t lo,
    uint32_t hi, struct core_colstats *st)
{
	struct core_colstats all[NCOLS];
	uint32_t i;

	stats_range(b, lo, hi, all, false);
	for (i = 0; i < NCOLS; i++) {
		memset(&st[i], 0, sizeof(st[i]));
		st[i].rows = hi - lo;
	}
	st[c] = all[c];
}

/*
 * Pages: each column of a unit cut into pages at its own random
 * boundaries, as a page index has them.  A row is ruled out when a page
 * holding it, judged with its own column's statistics alone, is; no
 * such row may pass the filter.  This is the rule the Parquet reader
 * applies (core_parquet_scan_prune).
 */
static void
test_pages(void)
{
	struct core_schema *s = make_schema();
	struct core_colstats st[NCOLS];
	struct core_batch b;
	unsigned iter, out = 0, wrong = 0;
	char src[800];

	core_batch_init(&b, s);
	for (iter = 0; iter < 3000; iter++) {
		int64_t lo = rnd_in(-20, 20), span = rnd_in(0, 30);
		static const int nuls[] = { 0, 0, 3, 1, 7 };
		struct core_expr_bound *w;
		struct core_prune *p;
		uint32_t n = 1 + (uint32_t)(rnd() % 64), c, r, sel[64], np = 0;
		bool ex[64] = { false };
		struct core_err err = { 0, "" };

		fill(&b, n, lo, span, nuls[rnd() % 5]);
		make_filter(src, sizeof(src), rnd_in(-20, 20),
		    rnd_in(0, 30));
		if ((w = bind(src, s)) == NULL) {
			wrong++;
			continue;
		}
		p = core_prune_new(w, s);
		for (c = 0; p != NULL && c < NCOLS; c++) {
			uint32_t at = 0;

			if (!core_prune_columns(p)[c])
				continue;
			while (at < n) {
				uint32_t e = at + 1 + (uint32_t)(rnd() % 12);

				if (e > n)
					e = n;
				page_stats_of(&b, c, at, e, st);
				if (!core_prune_may_match(p, st))
					for (r = at; r < e; r++)
						ex[r] = true;
				at = e;
			}
		}
		if (core_expr_eval_filter(w, &b, NULL, n, sel, &np, &err))
			printf("# eval: %s\n", err.msg);
		for (r = 0; r < np; r++)
			if (ex[sel[r]] && wrong++ < 5)
				printf("# row %u ruled out, yet passes: %s\n",
				    sel[r], src);
		for (r = 0; r < n; r++)
			out += ex[r];
		core_prune_free(p);
		core_expr_bound_free(w);
	}
	CHECK_EQ_INT(wrong, 0);
	printf("# %u rows ruled out by their pages\n", out);
	CHECK(out > 1000);
	core_batch_release(&b);
	core_schema_free(s);
}

/* Fixed cases: each kind of term, on one unit of stats. */
static void
test_cases(void)
{
	static const struct {
		const char *where;
		bool may;
	} cases[] = {
		{ "i < 10", false }, { "i <= 10", true }, { "10 > i", false },
		{ "i > 20", false }, { "i >= 20", true }, { "i = 15", true },
		{ "i = 9", false }, { "i <> 15", true },
		{ "i BETWEEN 21 AND 30", false }, { "i BETWEEN 0 AND 10", true },
		{ "i IN (1, 2, 30)", false }, { "i IN (1, 12)", true },
		{ "d < 0.10", false }, { "d >= 0.11", true },
		{ "d > 0.2", false }, { "d = 0.15", true },
		{ "s < 'b'", false }, { "s >= 'bz'", true }, { "s > 'c'", false },
		{ "s IN ('a', 'z')", false }, { "s IN ('bb')", true },
		{ "l IS NULL", false }, { "l IS NOT NULL", true },
		{ "i + 0 < 10", true }, { "i < 10 OR l = 1", true },
		{ "l = 5 AND i < 10", false }, { "f < -100", true },
		{ "dt < DATE '1970-01-11'", false },
		{ "dt <= DATE '1970-01-11'", true },
		{ "ts < TIMESTAMP '1970-01-11 00:00:00'", false },
		{ "ts < TIMESTAMP '1970-01-11 00:00:01'", true },
	};
	struct core_schema *s = make_schema();
	struct core_colstats st[NCOLS];
	size_t i;

	memset(st, 0, sizeof(st));
	for (i = 0; i < NCOLS; i++) {
		st[i].rows = 100;
		st[i].has_null_count = true;
		st[i].has_minmax = true;
	}
	/* i, dt in [10, 20]; ts the days 10 .. 20; d in [0.11, 0.19];
	 * s in ["ba", "bz"]; l: no NULLs. */
	st[C_I].imin = st[C_DT].imin = 10;
	st[C_I].imax = st[C_DT].imax = 20;
	st[C_TS].imin = 10 * 86400000000ll;
	st[C_TS].imax = 20 * 86400000000ll;
	st[C_D].imin = 11;
	st[C_D].imax = 19;
	st[C_S].smin = "ba";
	st[C_S].sminlen = 2;
	st[C_S].smax = "bz";
	st[C_S].smaxlen = 2;
	st[C_L].imin = 0;
	st[C_L].imax = 9;
	st[C_L].null_count = 0;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct core_expr_bound *w = bind(cases[i].where, s);
		struct core_prune *p = w ? core_prune_new(w, s) : NULL;
		bool may = p == NULL || core_prune_may_match(p, st);

		if (w == NULL || may != cases[i].may) {
			printf("# %s: may_match %d, want %d\n", cases[i].where,
			    may, cases[i].may);
			unit_cur_failed++;
		}
		core_prune_free(p);
		core_expr_bound_free(w);
	}
	/* A column that is all NULL matches no comparison. */
	{
		struct core_expr_bound *w = bind("i = 15", s);
		struct core_prune *p = core_prune_new(w, s);

		st[C_I].null_count = 100;
		CHECK(!core_prune_may_match(p, st));
		st[C_I].has_minmax = false;
		CHECK(!core_prune_may_match(p, st));
		st[C_I].has_null_count = false;
		CHECK(core_prune_may_match(p, st));
		core_prune_free(p);
		core_expr_bound_free(w);
	}
	core_schema_free(s);
}

/*
 * core_prune_has_eq: the columns with an = or IN term, the terms the
 * reader's dictionary pruning rests on (a NULL passes neither).  Not a
 * <>, a range, an OR, NOT IN or IS NULL, nor a term on another column.
 */
static void
test_has_eq(void)
{
	static const struct {
		const char *where;
		int col;
		bool eq;
	} cases[] = {
		{ "i = 15", C_I, true }, { "15 = i", C_I, true },
		{ "s IN ('a', 'b')", C_S, true },
		{ "l = 1 AND i < 3", C_L, true },
		{ "l = 1 AND i < 3", C_I, false }, { "i <> 15", C_I, false },
		{ "i < 15", C_I, false }, { "i = 1 OR i = 2", C_I, false },
		{ "i NOT IN (1, 2)", C_I, false }, { "i IS NULL", C_I, false },
		{ "i + 0 = 1", C_I, false }, { "s = 'a'", C_I, false },
	};
	struct core_schema *s = make_schema();
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct core_expr_bound *w = bind(cases[i].where, s);
		struct core_prune *p = w ? core_prune_new(w, s) : NULL;
		bool eq = core_prune_has_eq(p, (uint32_t)cases[i].col);

		if (w == NULL || eq != cases[i].eq) {
			printf("# %s on column %d: has_eq %d, want %d\n",
			    cases[i].where, cases[i].col, eq, cases[i].eq);
			unit_cur_failed++;
		}
		core_prune_free(p);
		core_expr_bound_free(w);
	}
	core_schema_free(s);
}

int
main(void)
{
	RUN(test_cases);
	RUN(test_sound);
	RUN(test_pages);
	RUN(test_has_eq);
	return unit_done();
}
