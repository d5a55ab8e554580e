/*
 * test_agg.c - core_agg against a sort-then-scan reference.
 *
 * Random tables with a key column of every type (small domains, NULLs,
 * -0.0 and NaN among the floats, empty strings), a unique id, and a
 * value column of every type (NULLs, and NaN rarely).  The reference
 * sorts the rows by the key (stably, so a group's rows keep their input
 * order), then computes every aggregate of a group from its rows one at
 * a time: exact sums in __int128, min and max by a comparison written
 * here, variance in two passes.  Both results are sorted by key and
 * compared cell by cell: exactly, except the float sums and averages of
 * a run that spilled (partial sums merge in another order) and the
 * variances (one pass against two), which get a tolerance; any_value
 * must be one of its group's values.
 *
 * Batch lengths 0, 1, 3, 17, 4095, 4096, 4097 (empty batches mixed
 * in), budgets from 256 KiB to unlimited on inputs of many batches, the
 * peak charge within the budget plus an eighth, one group, every row a
 * group, empty inputs with and without keys, overflow, usage errors and
 * the result types.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core_agg.h"
#include "core_alloc.h"
#include "core_col.h"
#include "core_mem.h"
#include "core_pool.h"
#include "unit.h"

static const struct core_coltype types[] = {
	{ CORE_TYPE_INT32, 0, 0 }, { CORE_TYPE_INT64, 0, 0 },
	{ CORE_TYPE_FLOAT64, 0, 0 }, { CORE_TYPE_DECIMAL, 12, 2 },
	{ CORE_TYPE_DATE, 0, 0 }, { CORE_TYPE_TIMESTAMP, 0, 0 },
	{ CORE_TYPE_STRING, 0, 0 }, { CORE_TYPE_BOOL, 0, 0 },
};
#define NT 8
/* Columns: keys k0..k7 (types[]), id (int64, unique), values v0..v7. */
#define COL_ID NT
#define COL_V(i) (NT + 1 + (i))
#define NCOLS (2 * NT + 1)

struct cell {
	bool null;
	int64_t i;
	__int128 w;		/* decimal(38,s) sums, read back exactly */
	double f;
	char *s;		/* owned */
	uint32_t slen;
};

struct table {
	struct core_schema *schema;
	size_t n;
	struct cell *cells;	/* n * NCOLS */
};

static struct cell *
at(const struct table *t, size_t r, uint32_t c)
{
	return &t->cells[r * NCOLS + c];
}

static struct core_coltype
col_type(uint32_t c)
{
	if (c == COL_ID)
		return (struct core_coltype){ CORE_TYPE_INT64, 0, 0 };
	return types[c < NT ? c : c - NT - 1];
}

static double
rnd_double(void)
{
	uint64_t x = unit_rand();

	if (x % 500 == 0)
		return NAN;
	if (x % 97 == 0)
		return -0.0;
	return (double)(int64_t)(unit_rand() % 2000001 - 1000000) / 1000.0;
}

/* A value of type t: from a domain of card values (card 0: any). */
static void
gen(struct cell *c, struct core_coltype t, uint64_t card, bool key)
{
	uint64_t x = card ? unit_rand() % card : unit_rand();
	char buf[64];

	switch (t.id) {
	case CORE_TYPE_INT32:
		c->i = card ? (int64_t)x - (int64_t)card / 2 :
		    (int32_t)(uint32_t)x;
		break;
	case CORE_TYPE_INT64:
		c->i = card ? (int64_t)x * 1000000007ll :
		    (int64_t)(x >> 24) - ((int64_t)1 << 39);
		break;
	case CORE_TYPE_FLOAT64:
		if (key) {
			c->f = x % 11 == 0 ? NAN : (double)x / 4.0;
			if (c->f == 0 && unit_rand() % 2)
				c->f = -0.0;
		} else {
			c->f = rnd_double();
		}
		break;
	case CORE_TYPE_DECIMAL:
		c->i = card ? (int64_t)x * 37 - 500 :
		    (int64_t)(x % 200000000000ull) - 100000000000ll;
		break;
	case CORE_TYPE_DATE:
		c->i = 18000 + (int64_t)(x % 40000);
		break;
	case CORE_TYPE_TIMESTAMP:
		c->i = (int64_t)(x % 4000000000000ull) * 1000003;
		break;
	case CORE_TYPE_STRING: {
		int len = card ? snprintf(buf, sizeof(buf), "%.*s%llu",
		    (int)(x % 5), "kkkkkkk", (unsigned long long)x) :
		    snprintf(buf, sizeof(buf), "%.*s", (int)(x % 12),
		    "abcdefghijklmnopq" + x % 5);

		if (x % 13 == 0)
			len = 0;
		c->s = core_xstrndup(buf, (size_t)len);
		c->slen = (uint32_t)len;
		break;
	}
	case CORE_TYPE_BOOL:
		c->i = (int64_t)(x & 1);
		break;
	case CORE_TYPE_DECIMAL128:
		/* Not among the tables' types (yet): no value to make. */
		c->i = 0;
		break;
	}
}

/* Values from domains of this many (0: any), so that DISTINCT has
 * repeats to drop. */
static uint64_t vcard;

/* n rows; keys from domains of card (0: unique ids as the key). */
static struct table *
table_new(size_t n, uint64_t card, unsigned null_pct)
{
	struct table *t = core_xcalloc(1, sizeof(*t));
	size_t r;
	uint32_t c;
	char name[8];

	t->schema = core_schema_new(NCOLS);
	for (c = 0; c < NCOLS; c++) {
		if (c == COL_ID)
			snprintf(name, sizeof(name), "id");
		else
			snprintf(name, sizeof(name), "%c%u", c < NT ? 'k' : 'v',
			    c < NT ? c : c - NT - 1);
		core_schema_set(t->schema, c, name, col_type(c));
	}
	t->n = n;
	t->cells = core_xcalloc(n * NCOLS + 1, sizeof(*t->cells));
	for (r = 0; r < n; r++)
		for (c = 0; c < NCOLS; c++) {
			struct cell *x = at(t, r, c);

			if (c == COL_ID) {
				x->i = (int64_t)r * 7 - 3;
				continue;
			}
			if (unit_rand() % 100 < null_pct) {
				x->null = true;
				if (col_type(c).id == CORE_TYPE_STRING)
					x->s = core_xstrdup("");
				continue;
			}
			gen(x, col_type(c), c < NT ? card : vcard,
			    c < NT || vcard > 0);
		}
	return t;
}

static void
table_free(struct table *t)
{
	size_t i;

	if (t == NULL)
		return;
	for (i = 0; i < t->n * NCOLS; i++)
		free(t->cells[i].s);
	free(t->cells);
	core_schema_free(t->schema);
	free(t);
}

/* ---- the input: rows [off, off + len) as a batch ---- */

struct src {
	const struct table *t;
	size_t pos;
	uint32_t blen;
	unsigned calls;
	struct core_batch own;
	/* With ph: each batch's keys hashed here, as colagg's reading
	 * thread does (but for every third batch, and whether the
	 * aggregation wants them or not). */
	struct core_agg_prehash *ph;
	struct core_agg_hashes hs;
};

static void
fill(const struct table *t, size_t off, uint32_t n, struct core_batch *b)
{
	uint32_t c, r;
	size_t bytes = 0;

	core_batch_release(b);
	core_batch_init(b, t->schema);
	for (r = 0; r < n; r++)
		for (c = 0; c < NCOLS; c++)
			bytes += at(t, off + r, c)->slen;
	core_batch_reserve(b, n, bytes);
	for (c = 0; c < NCOLS; c++) {
		struct core_column *col = &b->cols[c];
		int32_t o = 0;

		for (r = 0; r < n; r++) {
			const struct cell *x = at(t, off + r, c);

			switch (col->type.id) {
			case CORE_TYPE_BOOL:
				((uint8_t *)col->values)[r] = (uint8_t)x->i;
				break;
			case CORE_TYPE_INT32:
			case CORE_TYPE_DATE:
				((int32_t *)col->values)[r] = (int32_t)x->i;
				break;
			case CORE_TYPE_FLOAT64:
				((double *)col->values)[r] = x->f;
				break;
			case CORE_TYPE_STRING:
				col->offsets[r] = o;
				if (x->slen > 0)
					memcpy((char *)col->values + o, x->s,
					    x->slen);
				o += (int32_t)x->slen;
				col->offsets[r + 1] = o;
				break;
			default:
				((int64_t *)col->values)[r] = x->i;
				break;
			}
			if (x->null)
				core_col_set_null(col, r, n);
		}
	}
	b->nrows = n;
}

static int
src_next(void *arg, struct core_batch *b, struct core_err *err)
{
	struct src *s = arg;
	uint32_t n;

	(void)err;
	s->calls++;
	/* Empty batches now and then, and only those at length 0. */
	if (s->blen == 0)
		return s->calls <= 3 ? (b->nrows = 0, 0) : CORE_EOF;
	if (s->calls % 5 == 2) {
		b->nrows = 0;
		return 0;
	}
	if (s->pos >= s->t->n)
		return CORE_EOF;
	n = s->t->n - s->pos < s->blen ? (uint32_t)(s->t->n - s->pos) :
	    s->blen;
	fill(s->t, s->pos, n, &s->own);
	s->pos += n;
	/* Hand out views, as an MLSPILL3 reader does. */
	{
		uint32_t c;

		for (c = 0; c < NCOLS; c++) {
			b->cols[c].validity = s->own.cols[c].validity;
			b->cols[c].values = s->own.cols[c].values;
			b->cols[c].offsets = s->own.cols[c].offsets;
		}
		b->nrows = n;
	}
	if (s->ph != NULL) {
		if (s->calls % 3 == 0)
			s->hs.made = false;
		else
			core_agg_prehash_make(s->ph, b, &s->hs);
	}
	return 0;
}

static const struct core_agg_hashes *
src_hashes(void *arg)
{
	const struct src *s = arg;

	return &s->hs;
}

/* ---- rows of results ---- */

struct rows {
	uint32_t ncols;
	size_t n, cap;
	struct cell *c;		/* n * ncols */
	const struct core_schema *schema;
	unsigned empty_calls, calls_after_empty;
};

static void
rows_free(struct rows *r)
{
	size_t i;

	for (i = 0; i < r->n * r->ncols; i++)
		free(r->c[i].s);
	free(r->c);
	memset(r, 0, sizeof(*r));
}

static struct cell *
rows_add(struct rows *R)
{
	if (R->n == R->cap) {
		R->cap = R->cap ? R->cap * 2 : 64;
		R->c = core_xreallocarray(R->c, R->cap * R->ncols,
		    sizeof(*R->c));
	}
	memset(&R->c[R->n * R->ncols], 0, R->ncols * sizeof(*R->c));
	return &R->c[R->n++ * R->ncols];
}

static int
emit_rows(void *arg, const struct core_batch *b, struct core_err *err)
{
	struct rows *R = arg;
	uint32_t r, c;

	(void)err;
	if (R->empty_calls)
		R->calls_after_empty++;
	if (b->nrows == 0) {
		R->empty_calls++;
		return 0;
	}
	for (r = 0; r < b->nrows; r++) {
		struct cell *row = rows_add(R);

		for (c = 0; c < R->ncols; c++) {
			const struct core_column *col = &b->cols[c];
			struct cell *x = &row[c];

			x->null = !core_col_is_valid(col, r);
			switch (col->type.id) {
			case CORE_TYPE_BOOL:
				x->i = ((const uint8_t *)col->values)[r];
				break;
			case CORE_TYPE_INT32:
			case CORE_TYPE_DATE:
				x->i = ((const int32_t *)col->values)[r];
				break;
			case CORE_TYPE_FLOAT64:
				x->f = ((const double *)col->values)[r];
				break;
			case CORE_TYPE_STRING:
				x->slen = (uint32_t)(col->offsets[r + 1] -
				    col->offsets[r]);
				x->s = core_xstrndup((const char *)col->values +
				    col->offsets[r], x->slen);
				break;
			case CORE_TYPE_DECIMAL128:
				x->w = core_i128_load((const char *)
				    col->values + 16 * (size_t)r);
				x->i = (int64_t)x->w;
				break;
			default:
				x->i = ((const int64_t *)col->values)[r];
				break;
			}
		}
	}
	return 0;
}

/* ---- the reference ---- */

static int
fcmp(double a, double b)
{
	/* NaN last, every NaN equal, -0.0 == 0.0 */
	if (isnan(a) || isnan(b))
		return isnan(a) - isnan(b);
	return (a > b) - (a < b);
}

static int
cell_cmp(const struct cell *a, const struct cell *b, enum core_type t)
{
	int c;

	if (a->null || b->null)
		return b->null - a->null ? (a->null ? 1 : -1) : 0;
	switch (t) {
	case CORE_TYPE_FLOAT64:
		return fcmp(a->f, b->f);
	case CORE_TYPE_STRING:
		c = memcmp(a->s, b->s, a->slen < b->slen ? a->slen : b->slen);
		return c ? c : (a->slen > b->slen) - (a->slen < b->slen);
	case CORE_TYPE_DECIMAL128:
		/* All 128 bits: a sum wrapped at 64 differs. */
		return (a->w > b->w) - (a->w < b->w);
	default:
		return (a->i > b->i) - (a->i < b->i);
	}
}

static const struct table *sort_t;
static const uint32_t *sort_keys;
static uint32_t sort_nkeys;

static int
row_cmp(const void *pa, const void *pb)
{
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
	uint32_t k;
	int c;

	for (k = 0; k < sort_nkeys; k++) {
		uint32_t col = sort_keys[k];

		if ((c = cell_cmp(at(sort_t, a, col), at(sort_t, b, col),
		    col_type(col).id)) != 0)
			return c;
	}
	return (a > b) - (a < b);	/* stable: input order in a group */
}

/*
 * Expected median / quantile a over rows idx[0..n) of t: the group's
 * non-NULL values sorted, then DuckDB's definitions read off them:
 * quantile_disc the value at ceil(k q) - 1, quantile_cont the values at
 * floor and ceil of (k - 1) q interpolated by its fraction (integers
 * and doubles in doubles, decimals truncated in their integers, dates
 * and timestamps in microseconds rounded half away from zero).
 */
static void
ref_quantile(const struct table *t, const size_t *idx, size_t n,
    const struct core_agg_call *a, struct cell *out)
{
	uint32_t col = (uint32_t)a->arg;
	enum core_type ty = col_type(col).id;
	double q = a->fn == CORE_AGG_MEDIAN ? 0.5 : a->q, rn, f;
	size_t *d = core_xcalloc(n + 1, sizeof(*d)), k = 0, i, fi, ci;
	const struct cell *lo, *hi;

	for (i = 0; i < n; i++)
		if (!at(t, idx[i], col)->null)
			d[k++] = idx[i];
	sort_t = t;
	sort_keys = &col;
	sort_nkeys = 1;
	if (k > 0)
		qsort(d, k, sizeof(*d), row_cmp);
	if (k == 0) {
		out->null = true;
	} else if (a->fn == CORE_AGG_QUANTILE_DISC || ty == CORE_TYPE_STRING) {
		/* DuckDB's median of strings is quantile_disc(x, 0.5). */
		fi = (size_t)ceil((double)k * q);
		fi = fi == 0 ? 0 : fi - 1;
		*out = *at(t, d[fi < k ? fi : k - 1], col);
		out->s = out->s ? core_xstrndup(out->s, out->slen) : NULL;
	} else {
		rn = (double)(k - 1) * q;
		fi = (size_t)floor(rn);
		ci = (size_t)ceil(rn);
		f = rn - (double)fi;
		lo = at(t, d[fi], col);
		hi = at(t, d[ci], col);
		if (ty == CORE_TYPE_FLOAT64) {
			out->f = lo->f + (hi->f - lo->f) * f;
			if (ci == fi)
				out->f = lo->f;
		} else if (ty == CORE_TYPE_INT32 || ty == CORE_TYPE_INT64) {
			out->f = (double)lo->i + ((double)hi->i -
			    (double)lo->i) * f;
		} else if (ty == CORE_TYPE_DECIMAL) {
			out->i = lo->i + (int64_t)((double)(hi->i - lo->i) *
			    f);
		} else {
			int64_t m = ty == CORE_TYPE_DATE ? 86400000000 : 1;

			out->i = ci == fi ? lo->i * m : (int64_t)llround(
			    (double)(lo->i * m) + ((double)(hi->i * m) -
			    (double)(lo->i * m)) * f);
		}
	}
	free(d);
}

/* Expected aggregate a over rows idx[0..n) of t; *tol the tolerance a
 * float result gets (0: exact), *anyv for any_value. */
static void
ref_agg(const struct table *t, const size_t *idx, size_t n,
    const struct core_agg_call *a, bool spilled, struct cell *out,
    double *tol)
{
	struct core_coltype ty = a->arg >= 0 ? col_type((uint32_t)a->arg) :
	    (struct core_coltype){ CORE_TYPE_INT64, 0, 0 };
	double sc = ty.id == CORE_TYPE_DECIMAL ? pow(10, ty.scale) : 1;
	size_t i, k = 0;
	__int128 s = 0;
	double fs = 0, fabs_s = 0;
	const struct cell *best = NULL;

	if (a->distinct) {
		/* The group's distinct non-NULL values, each once: sorted
		 * by value, the first of each run of equals. */
		struct core_agg_call plain = *a;
		size_t *d = core_xcalloc(n + 1, sizeof(*d)), nd = 0, j;

		for (i = 0; i < n; i++)
			if (!at(t, idx[i], (uint32_t)a->arg)->null)
				d[nd++] = idx[i];
		sort_t = t;
		sort_keys = (const uint32_t *)&a->arg;
		sort_nkeys = 1;
		if (nd > 0)
			qsort(d, nd, sizeof(*d), row_cmp);
		for (i = j = 0; i < nd; i++)
			if (j == 0 || cell_cmp(at(t, d[j - 1],
			    (uint32_t)a->arg), at(t, d[i], (uint32_t)a->arg),
			    ty.id) != 0)
				d[j++] = d[i];
		plain.distinct = false;
		/* Float sums add the values in another order. */
		ref_agg(t, d, j, &plain, true, out, tol);
		free(d);
		return;
	}
	memset(out, 0, sizeof(*out));
	*tol = 0;
	if (a->fn == CORE_AGG_MEDIAN || a->fn == CORE_AGG_QUANTILE_CONT ||
	    a->fn == CORE_AGG_QUANTILE_DISC) {
		ref_quantile(t, idx, n, a, out);
		return;
	}
	if (a->fn == CORE_AGG_STRING_AGG) {
		/* The group's strings in input order (idx is), joined. */
		const char *sep = a->sep != NULL ? a->sep : ",";
		size_t len = 0, sl = strlen(sep);

		out->null = true;
		out->s = core_xmalloc(1);
		for (i = 0; i < n; i++) {
			const struct cell *x = at(t, idx[i], (uint32_t)a->arg);

			if (x->null)
				continue;
			out->s = core_xrealloc(out->s, len + sl + x->slen + 1);
			if (!out->null) {
				memcpy(out->s + len, sep, sl);
				len += sl;
			}
			memcpy(out->s + len, x->s, x->slen);
			len += x->slen;
			out->null = false;
		}
		out->slen = (uint32_t)len;
		return;
	}
	for (i = 0; i < n; i++) {
		const struct cell *x = a->arg >= 0 ?
		    at(t, idx[i], (uint32_t)a->arg) : NULL;

		if (x != NULL && x->null)
			continue;
		k++;
		if (x == NULL)
			continue;
		s += x->i;
		fs += x->f;
		fabs_s += fabs(x->f);
		if (best == NULL ||
		    (a->fn == CORE_AGG_MIN && cell_cmp(x, best, ty.id) < 0) ||
		    (a->fn == CORE_AGG_MAX && cell_cmp(x, best, ty.id) > 0))
			best = x;
		if (a->fn == CORE_AGG_BOOL_AND && best != x && best->i && !x->i)
			best = x;
		if (a->fn == CORE_AGG_BOOL_OR && best != x && !best->i && x->i)
			best = x;
	}
	switch (a->fn) {
	case CORE_AGG_COUNT_STAR:
	case CORE_AGG_COUNT:
		out->i = (int64_t)k;
		return;
	case CORE_AGG_SUM:
	case CORE_AGG_AVG:
		if (k == 0) {
			out->null = true;
			return;
		}
		if (ty.id == CORE_TYPE_FLOAT64) {
			out->f = a->fn == CORE_AGG_SUM ? fs : fs / (double)k;
			if (spilled)
				*tol = 1e-12 * (fabs_s + 1);
		} else if (a->fn == CORE_AGG_SUM) {
			out->w = s;
			out->i = (int64_t)s;
		} else {
			out->f = (double)((long double)s / (long double)k / sc);
		}
		return;
	case CORE_AGG_VAR_SAMP:
	case CORE_AGG_VAR_POP:
	case CORE_AGG_STDDEV_SAMP:
	case CORE_AGG_STDDEV_POP: {
		bool samp = a->fn == CORE_AGG_VAR_SAMP ||
		    a->fn == CORE_AGG_STDDEV_SAMP;
		double mean = 0, m2 = 0, v;

		if (k == 0 || (samp && k < 2)) {
			out->null = true;
			return;
		}
		for (i = 0; i < n; i++) {
			const struct cell *x = at(t, idx[i], (uint32_t)a->arg);

			if (!x->null)
				mean += ty.id == CORE_TYPE_FLOAT64 ? x->f :
				    (double)x->i / sc;
		}
		mean /= (double)k;
		for (i = 0; i < n; i++) {
			const struct cell *x = at(t, idx[i], (uint32_t)a->arg);
			double d;

			if (x->null)
				continue;
			d = (ty.id == CORE_TYPE_FLOAT64 ? x->f :
			    (double)x->i / sc) - mean;
			m2 += d * d;
		}
		v = m2 / (double)(samp ? k - 1 : k);
		if (a->fn == CORE_AGG_STDDEV_SAMP ||
		    a->fn == CORE_AGG_STDDEV_POP)
			v = sqrt(v);
		out->f = v;
		*tol = 1e-7 * (fabs(v) + 1e-3);
		return;
	}
	default:
		if (best == NULL) {
			out->null = true;
			return;
		}
		*out = *best;
		out->s = best->s ? core_xstrndup(best->s, best->slen) : NULL;
		return;
	}
}

struct tcase {
	uint32_t keys[4];
	uint32_t nkeys;
	struct core_agg_call *aggs;
	uint32_t naggs;
};

/* Holds its group's values (median, the quantiles, string_agg). */
static bool
is_quantile(enum core_agg_fn fn)
{
	return fn == CORE_AGG_MEDIAN || fn == CORE_AGG_QUANTILE_CONT ||
	    fn == CORE_AGG_QUANTILE_DISC || fn == CORE_AGG_STRING_AGG;
}

/* Every function over every value column that takes it; median and the
 * quantiles only when quantiles (with no keys they must hold the whole
 * input's values, which tight budgets refuse). */
static void
aggs_of(struct tcase *tc, bool quantiles)
{
	static const enum core_agg_fn fns[] = {
		CORE_AGG_COUNT, CORE_AGG_SUM, CORE_AGG_AVG, CORE_AGG_MIN,
		CORE_AGG_MAX, CORE_AGG_ANY_VALUE, CORE_AGG_VAR_SAMP,
		CORE_AGG_VAR_POP, CORE_AGG_STDDEV_SAMP, CORE_AGG_STDDEV_POP,
		CORE_AGG_BOOL_AND, CORE_AGG_BOOL_OR,
	};
	/* The quantiles at both ends, between two values and on one. */
	static const struct {
		enum core_agg_fn fn;
		double q;
	} qs[] = {
		{ CORE_AGG_MEDIAN, 0 }, { CORE_AGG_QUANTILE_CONT, 0.3 },
		{ CORE_AGG_QUANTILE_CONT, 1 }, { CORE_AGG_QUANTILE_DISC, 0.3 },
		{ CORE_AGG_QUANTILE_DISC, 0 }, { CORE_AGG_QUANTILE_DISC, 1 },
	};
	struct core_coltype rt;
	uint32_t v, f;

	tc->aggs = core_xcalloc(1 + NT * 21, sizeof(*tc->aggs));
	tc->aggs[0].fn = CORE_AGG_COUNT_STAR;
	tc->aggs[0].arg = -1;
	tc->naggs = 1;
	for (v = 0; v < NT; v++)
		for (f = 0; f < sizeof(fns) / sizeof(fns[0]); f++) {
			if (core_agg_result_type(fns[f], types[v], &rt, NULL)
			    != 0)
				continue;
			tc->aggs[tc->naggs].fn = fns[f];
			tc->aggs[tc->naggs].arg = (int32_t)COL_V(v);
			tc->naggs++;
		}
	/* string_agg holds its values too: twice, with the default ","
	 * and with "; ". */
	for (v = 0; v < NT && quantiles; v++)
		for (f = 0; f < 2 && types[v].id == CORE_TYPE_STRING; f++) {
			tc->aggs[tc->naggs].fn = CORE_AGG_STRING_AGG;
			tc->aggs[tc->naggs].arg = (int32_t)COL_V(v);
			tc->aggs[tc->naggs].sep = f ? "; " : NULL;
			tc->naggs++;
		}
	for (v = 0; v < NT && quantiles; v++)
		for (f = 0; f < sizeof(qs) / sizeof(qs[0]); f++) {
			if (core_agg_result_type(qs[f].fn, types[v], &rt, NULL)
			    != 0)
				continue;
			tc->aggs[tc->naggs].fn = qs[f].fn;
			tc->aggs[tc->naggs].q = qs[f].q;
			tc->aggs[tc->naggs].arg = (int32_t)COL_V(v);
			tc->naggs++;
		}
}

static void
all_aggs(struct tcase *tc)
{
	aggs_of(tc, true);
}

static bool
keys_eq(const struct table *t, const struct tcase *tc, size_t a, size_t b)
{
	uint32_t k;

	for (k = 0; k < tc->nkeys; k++)
		if (cell_cmp(at(t, a, tc->keys[k]), at(t, b, tc->keys[k]),
		    col_type(tc->keys[k]).id) != 0)
			return false;
	return true;
}

static const struct tcase *cmp_tc;

static int
out_cmp(const void *pa, const void *pb)
{
	const struct cell *a = pa, *b = pb;
	uint32_t k;
	int c;

	for (k = 0; k < cmp_tc->nkeys; k++)
		if ((c = cell_cmp(&a[k], &b[k],
		    col_type(cmp_tc->keys[k]).id)) != 0)
			return c;
	return 0;
}

static bool
any_member(const struct table *t, const size_t *idx, size_t n, uint32_t col,
    const struct cell *got)
{
	size_t i;
	bool none = true;

	for (i = 0; i < n; i++) {
		const struct cell *x = at(t, idx[i], col);

		if (x->null)
			continue;
		none = false;
		if (!got->null && cell_cmp(x, got, col_type(col).id) == 0)
			return true;
	}
	return none && got->null;
}

static bool use_sorted;		/* core_agg_sorted, not core_agg_hash */
static bool use_prehash;	/* keys hashed by the input (struct src) */
static struct core_pool *use_pool;	/* o.pool */
static unsigned nspilled, ncompared, maxlevel, nrefused;
/* Spilled runs whose first level got more than one table (a table kept
 * between spills: hybrid) and just one. */
static unsigned nhybrid, nsingle;
static bool retrying;		/* check_case at a budget a refusal named */
static double maxpeak;

/* Runs tc over t at batch length blen under budget limit, checks it
 * against the reference.  Returns false on a mismatch (reported once). */
static bool
check_case(const struct table *t, const struct tcase *tc, uint32_t blen,
    uint64_t limit, const char *what)
{
	struct core_agg_spec spec = { tc->keys, tc->nkeys, tc->aggs,
	    tc->naggs };
	struct core_agg_plan *plan = NULL;
	struct core_agg_options o;
	struct core_agg_input in = { 0 };
	struct core_agg_stats st;
	struct core_err err = { 0 };
	struct core_mem mem;
	struct src s;
	struct rows got, want;
	size_t *idx = NULL, *gs = NULL, i, g, n, ng = 0;
	double *tols = NULL;
	const char *give;
	uint32_t ncols = tc->nkeys + tc->naggs, c;
	bool ok = true, spilled;
	int rc;

	if (core_agg_plan_new(&spec, t->schema, &plan, &err) != 0) {
		printf("# %s: plan: %s\n", what, err.msg);
		return false;
	}
	memset(&o, 0, sizeof(o));
	o.plan = plan;
	o.pool = use_pool;
	/* One budget writes compressed spill frames. */
	o.compress_spill = limit == (1u << 20);
	memset(&s, 0, sizeof(s));
	s.t = t;
	s.blen = blen;
	core_batch_init(&s.own, t->schema);
	in.schema = t->schema;
	in.next = src_next;
	in.arg = &s;
	in.size_hint = 0;
	if (use_prehash) {
		s.ph = core_agg_prehash_new(plan, t->schema);
		in.prehash = s.ph;
		in.hashes = src_hashes;
	}
	memset(&got, 0, sizeof(got));
	got.ncols = ncols;
	core_mem_init(&mem, limit);
	rc = (use_sorted ? core_agg_sorted : core_agg_hash)(&o, &mem, &in,
	    emit_rows, &got, &st, &err);
	core_batch_release(&s.own);
	core_agg_prehash_free(s.ph);
	core_agg_hashes_free(&s.hs);
	if (rc == CORE_ELIMIT && limit != CORE_MEM_UNLIMITED &&
	    !use_sorted && (give = strstr(err.msg, "give -m ")) != NULL) {
		/* A group more than the budget lets one take: the budget
		 * named must be above this one, and give the answer. */
		unsigned long long m = strtoull(give + 8, NULL, 10);
		char again[160];

		rows_free(&got);
		core_agg_plan_free(plan);
		if (m << 20 <= limit || mem.used != 0) {
			printf("# %s: %s (%llu left charged)\n", what, err.msg,
			    (unsigned long long)mem.used);
			return false;
		}
		if (retrying) {
			printf("# %s: refused again: %s\n", what, err.msg);
			return false;
		}
		nrefused++;
		snprintf(again, sizeof(again), "%s, at the -m %lluM named",
		    what, m);
		retrying = true;
		ok = check_case(t, tc, blen, m << 20, again);
		retrying = false;
		return ok;
	}
	if (rc != 0) {
		printf("# %s: core_agg_hash: %d %s\n", what, rc, err.msg);
		ok = false;
		goto out;
	}
	spilled = st.levels > 0;
	if (st.levels > maxlevel)
		maxlevel = (unsigned)st.levels;
	if (limit != CORE_MEM_UNLIMITED && (double)st.peak_mem / limit > maxpeak)
		maxpeak = (double)st.peak_mem / (double)limit;
	nspilled += spilled;
	nhybrid += spilled && st.tables > 1;
	nsingle += spilled && st.tables == 1;
	ncompared++;
	if (mem.used != 0 || got.empty_calls != 1 ||
	    got.calls_after_empty != 0) {
		printf("# %s: used %llu after, %u empty batches, %u after\n",
		    what, (unsigned long long)mem.used, got.empty_calls,
		    got.calls_after_empty);
		ok = false;
	}
	/* (The sorted path holds a batch's groups whatever the budget.) */
	if (!use_sorted && limit != CORE_MEM_UNLIMITED &&
	    st.peak_mem > limit + limit / 8) {
		printf("# %s: peak %llu over budget %llu (%llu levels)\n",
		    what, (unsigned long long)st.peak_mem,
		    (unsigned long long)limit, (unsigned long long)st.levels);
		ok = false;
	}
	/* The reference: rows sorted by key, groups scanned. */
	n = blen == 0 ? 0 : t->n;
	idx = core_xcalloc(n + 1, sizeof(*idx));
	gs = core_xcalloc(n + 2, sizeof(*gs));
	for (i = 0; i < n; i++)
		idx[i] = i;
	sort_t = t;
	sort_keys = tc->keys;
	sort_nkeys = tc->nkeys;
	if (n > 0)
		qsort(idx, n, sizeof(*idx), row_cmp);
	if (tc->nkeys == 0) {
		gs[ng++] = 0;
	} else {
		for (i = 0; i < n; i++)
			if (i == 0 || !keys_eq(t, tc, idx[i - 1], idx[i]))
				gs[ng++] = i;
	}
	gs[ng] = n;
	memset(&want, 0, sizeof(want));
	want.ncols = ncols;
	tols = core_xcalloc(ng * ncols + 1, sizeof(*tols));
	for (g = 0; g < ng; g++) {
		struct cell *row = rows_add(&want);

		for (c = 0; c < tc->nkeys; c++) {
			const struct cell *k = at(t, idx[gs[g]], tc->keys[c]);

			row[c] = *k;
			row[c].s = k->s ? core_xstrndup(k->s, k->slen) : NULL;
		}
		for (c = 0; c < tc->naggs; c++)
			ref_agg(t, idx + gs[g], gs[g + 1] - gs[g],
			    &tc->aggs[c], spilled, &row[tc->nkeys + c],
			    &tols[g * ncols + tc->nkeys + c]);
	}
	if (got.n != want.n) {
		printf("# %s: %zu groups, want %zu\n", what, got.n, want.n);
		ok = false;
		goto done;
	}
	cmp_tc = tc;
	if (got.n > 0)
		qsort(got.c, got.n, ncols * sizeof(struct cell), out_cmp);
	/* want is in key order already: the groups came sorted. */
	for (g = 0; g < ng && ok; g++) {
		const struct cell *w = &want.c[g * ncols];
		const struct cell *gc = &got.c[g * ncols];

		for (c = 0; c < ncols && ok; c++) {
			struct core_coltype ty = plan->out->fields[c].type;
			double tol = tols[g * ncols + c];
			bool eq;

			if (c >= tc->nkeys && tc->aggs[c - tc->nkeys].fn ==
			    CORE_AGG_ANY_VALUE) {
				eq = any_member(t, idx + gs[g],
				    gs[g + 1] - gs[g],
				    (uint32_t)tc->aggs[c - tc->nkeys].arg,
				    &gc[c]);
			} else if (w[c].null || gc[c].null) {
				eq = w[c].null == gc[c].null;
			} else if (ty.id == CORE_TYPE_FLOAT64) {
				eq = fcmp(w[c].f, gc[c].f) == 0 || (tol > 0 &&
				    fabs(w[c].f - gc[c].f) <= tol);
			} else {
				eq = cell_cmp(&w[c], &gc[c], ty.id) == 0;
			}
			if (!eq) {
				printf("# %s: group %zu column %s: got %s%lld "
				    "%.17g '%.*s', want %s%lld %.17g '%.*s'\n",
				    what, g, plan->out->fields[c].name,
				    gc[c].null ? "NULL " : "",
				    (long long)gc[c].i, gc[c].f,
				    (int)gc[c].slen, gc[c].s ? gc[c].s : "",
				    w[c].null ? "NULL " : "", (long long)w[c].i,
				    w[c].f, (int)w[c].slen,
				    w[c].s ? w[c].s : "");
				ok = false;
			}
		}
	}
	if (st.groups != want.n) {
		printf("# %s: stats say %llu groups\n", what,
		    (unsigned long long)st.groups);
		ok = false;
	}
done:
	free(tols);
	free(idx);
	free(gs);
	rows_free(&want);
out:
	rows_free(&got);
	core_agg_plan_free(plan);
	return ok;
}

/* 2 adds nothing to 1 and 3 but time. */
static const uint32_t blens[] = { 0, 1, 3, 17, 4095, 4096, 4097 };
#define NBLENS (sizeof(blens) / sizeof(blens[0]))

/* Rows of the short-batch runs: a batch of 1 or 3 costs as much as one
 * of 4096, and ASan and UBSan make each several times slower. */
#ifdef __SANITIZE_ADDRESS__
#define SHORT_ROWS 800
#else
#define SHORT_ROWS 1500
#endif

/* tc over t at every batch length (rows capped for the short ones). */
static bool
sweep_lengths(struct table *t, struct tcase *tc, uint64_t limit,
    const char *what)
{
	char buf[128];
	size_t full = t->n;
	unsigned i;
	bool ok = true;

	for (i = 0; i < NBLENS && ok; i++) {
		/* Short batches over a prefix: the same code, fewer calls. */
		t->n = blens[i] > 0 && blens[i] < 17 && full > SHORT_ROWS ?
		    SHORT_ROWS : full;
		snprintf(buf, sizeof(buf), "%s, batches of %u", what,
		    blens[i]);
		ok = check_case(t, tc, blens[i], limit, buf);
		t->n = full;
	}
	return ok;
}

static void
test_result_types(void)
{
	static const struct {
		enum core_agg_fn fn;
		struct core_coltype arg, want;
	} cases[] = {
		{ CORE_AGG_COUNT, { CORE_TYPE_STRING, 0, 0 },
		    { CORE_TYPE_INT64, 0, 0 } },
		{ CORE_AGG_SUM, { CORE_TYPE_INT32, 0, 0 },
		    { CORE_TYPE_DECIMAL128, 38, 0 } },
		{ CORE_AGG_SUM, { CORE_TYPE_INT64, 0, 0 },
		    { CORE_TYPE_DECIMAL128, 38, 0 } },
		{ CORE_AGG_SUM, { CORE_TYPE_BOOL, 0, 0 },
		    { CORE_TYPE_DECIMAL128, 38, 0 } },
		{ CORE_AGG_SUM, { CORE_TYPE_DECIMAL, 10, 2 },
		    { CORE_TYPE_DECIMAL128, 38, 2 } },
		{ CORE_AGG_SUM, { CORE_TYPE_FLOAT64, 0, 0 },
		    { CORE_TYPE_FLOAT64, 0, 0 } },
		{ CORE_AGG_AVG, { CORE_TYPE_DECIMAL, 10, 2 },
		    { CORE_TYPE_FLOAT64, 0, 0 } },
		{ CORE_AGG_AVG, { CORE_TYPE_INT64, 0, 0 },
		    { CORE_TYPE_FLOAT64, 0, 0 } },
		{ CORE_AGG_MIN, { CORE_TYPE_DECIMAL, 10, 2 },
		    { CORE_TYPE_DECIMAL, 10, 2 } },
		{ CORE_AGG_MAX, { CORE_TYPE_DATE, 0, 0 },
		    { CORE_TYPE_DATE, 0, 0 } },
		{ CORE_AGG_ANY_VALUE, { CORE_TYPE_STRING, 0, 0 },
		    { CORE_TYPE_STRING, 0, 0 } },
		{ CORE_AGG_VAR_SAMP, { CORE_TYPE_DECIMAL, 10, 2 },
		    { CORE_TYPE_FLOAT64, 0, 0 } },
		{ CORE_AGG_BOOL_OR, { CORE_TYPE_BOOL, 0, 0 },
		    { CORE_TYPE_BOOL, 0, 0 } },
	};
	static const struct {
		enum core_agg_fn fn;
		enum core_type arg;
	} bad[] = {
		{ CORE_AGG_SUM, CORE_TYPE_STRING },
		{ CORE_AGG_SUM, CORE_TYPE_DATE },
		{ CORE_AGG_AVG, CORE_TYPE_TIMESTAMP },
		{ CORE_AGG_AVG, CORE_TYPE_BOOL },
		{ CORE_AGG_STDDEV_POP, CORE_TYPE_STRING },
		{ CORE_AGG_BOOL_AND, CORE_TYPE_INT32 },
	};
	struct core_coltype got;
	struct core_err err = { 0 };
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		CHECK_EQ_INT(core_agg_result_type(cases[i].fn, cases[i].arg,
		    &got, &err), 0);
		CHECK(core_type_equal(got, cases[i].want));
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK_EQ_INT(core_agg_result_type(bad[i].fn,
		    (struct core_coltype){ bad[i].arg, 0, 0 }, &got, &err),
		    CORE_EUSAGE);
	CHECK(strstr(err.msg, "bool_and does not take int32") != NULL);
}

static void
test_plan_errors(void)
{
	struct table *t = table_new(0, 10, 0);
	struct core_agg_call c = { CORE_AGG_SUM, (int32_t)COL_V(6), false,
	    NULL, 0, NULL };
	uint32_t key = 0, badkey = NCOLS;
	struct core_agg_spec spec = { &key, 1, &c, 1 };
	struct core_agg_plan *p = NULL;
	struct core_err err = { 0 };

	CHECK_EQ_INT(core_agg_plan_new(&spec, t->schema, &p, &err),
	    CORE_EUSAGE);
	CHECK(strstr(err.msg, "v6: sum does not take string") != NULL);
	CHECK(p == NULL);
	c.arg = (int32_t)COL_V(0);
	c.distinct = true;
	CHECK_EQ_INT(core_agg_plan_new(&spec, t->schema, &p, &err), 0);
	CHECK_EQ_STR(p->out->fields[1].name, "sum(DISTINCT v0)");
	core_agg_plan_free(p);
	{
		struct core_agg_call two[2] = { c, c };

		two[1].arg = (int32_t)COL_V(1);
		spec.aggs = two;
		spec.naggs = 2;
		CHECK_EQ_INT(core_agg_plan_new(&spec, t->schema, &p, &err),
		    CORE_EUSAGE);
		CHECK(strstr(err.msg, "two different arguments (v0 and v1)")
		    != NULL);
		two[1].arg = two[0].arg;
		two[1].fn = CORE_AGG_COUNT;
		CHECK_EQ_INT(core_agg_plan_new(&spec, t->schema, &p, &err),
		    0);
		core_agg_plan_free(p);
		spec.aggs = &c;
		spec.naggs = 1;
	}
	c.distinct = false;
	spec.keys = &badkey;
	CHECK_EQ_INT(core_agg_plan_new(&spec, t->schema, &p, &err),
	    CORE_EUSAGE);
	spec.keys = &key;
	c.name = "k0";
	CHECK_EQ_INT(core_agg_plan_new(&spec, t->schema, &p, &err),
	    CORE_EUSAGE);
	CHECK(strstr(err.msg, "two output columns named k0") != NULL);
	c.name = NULL;
	CHECK_EQ_INT(core_agg_plan_new(&spec, t->schema, &p, &err), 0);
	CHECK_EQ_STR(p->out->fields[1].name, "sum(v0)");
	CHECK_EQ_INT(p->out->fields[1].type.id, CORE_TYPE_DECIMAL128);
	core_agg_plan_free(p);
	core_agg_plan_free(NULL);
	table_free(t);
}

static void
test_each_key_type(void)
{
	struct tcase tc;
	uint32_t k;
	char what[64];
	bool ok = true;

	memset(&tc, 0, sizeof(tc));
	all_aggs(&tc);
	tc.nkeys = 1;
	for (k = 0; k < NT && ok; k++) {
		struct table *t = table_new(6000, 60, 10);

		tc.keys[0] = k;
		snprintf(what, sizeof(what), "key %s",
		    t->schema->fields[k].name);
		ok = sweep_lengths(t, &tc, CORE_MEM_UNLIMITED, what);
		CHECK(ok);
		table_free(t);
	}
	free(tc.aggs);
}

static void
test_several_keys(void)
{
	static const uint32_t sets[][3] = {
		{ 0, 4, 0 },	/* two 32-bit ints: the packed path */
		{ 6, 1, 0 },	/* string and int64 */
		{ 2, 3, 7 },	/* float, decimal, bool */
		{ 5, 6, 2 },
	};
	static const uint32_t nk[] = { 2, 2, 3, 3 };
	struct tcase tc;
	size_t i;
	bool ok = true;

	memset(&tc, 0, sizeof(tc));
	all_aggs(&tc);
	for (i = 0; i < sizeof(nk) / sizeof(nk[0]) && ok; i++) {
		struct table *t = table_new(8000, 12, 15);

		tc.nkeys = nk[i];
		memcpy(tc.keys, sets[i], sizeof(sets[i]));
		ok = sweep_lengths(t, &tc, CORE_MEM_UNLIMITED, "several keys");
		CHECK(ok);
		table_free(t);
	}
	free(tc.aggs);
}

static void
test_one_group_and_every_row(void)
{
	struct tcase tc;
	struct table *t = table_new(9000, 1, 0);

	memset(&tc, 0, sizeof(tc));
	all_aggs(&tc);
	tc.nkeys = 1;
	tc.keys[0] = 1;
	CHECK(sweep_lengths(t, &tc, CORE_MEM_UNLIMITED, "one group"));
	tc.keys[0] = COL_ID;
	CHECK(sweep_lengths(t, &tc, CORE_MEM_UNLIMITED, "every row a group"));
	CHECK(sweep_lengths(t, &tc, 1u << 20, "every row a group, 1 MiB"));
	table_free(t);
	free(tc.aggs);
}

/* Without keys, median and the quantiles over more values than limit
 * holds: CORE_ELIMIT naming the aggregate, the group and the budget, and
 * nothing left charged. */
static bool
quantiles_refused(const struct table *t, const struct tcase *tc,
    uint64_t limit)
{
	struct core_agg_spec spec = { tc->keys, 0, tc->aggs, tc->naggs };
	struct core_agg_plan *plan = NULL;
	struct core_agg_options o;
	struct core_agg_input in = { 0 };
	struct core_err err = { 0 };
	struct core_mem mem;
	struct src s;
	struct rows got;
	char want[96];
	const char *give;
	unsigned long long m;
	bool ok;
	int rc;

	if (core_agg_plan_new(&spec, t->schema, &plan, &err) != 0)
		return false;
	memset(&o, 0, sizeof(o));
	o.plan = plan;
	memset(&s, 0, sizeof(s));
	s.t = t;
	s.blen = 4096;
	core_batch_init(&s.own, t->schema);
	in.schema = t->schema;
	in.next = src_next;
	in.arg = &s;
	in.size_hint = 0;
	memset(&got, 0, sizeof(got));
	got.ncols = tc->naggs;
	core_mem_init(&mem, limit);
	rc = core_agg_hash(&o, &mem, &in, emit_rows, &got, NULL, &err);
	core_batch_release(&s.own);
	snprintf(want, sizeof(want), "more than the memory budget (%llu "
	    "bytes) lets a group take: give -m ", (unsigned long long)limit);
	give = strstr(err.msg, want);
	ok = rc == CORE_ELIMIT && give != NULL &&
	    strstr(err.msg, "): one group's values take ") != NULL &&
	    got.n == 0 && mem.used == 0;
	if (!ok)
		printf("# quantiles without keys under %llu: %d %s, %zu rows, "
		    "%llu bytes left\n", (unsigned long long)limit, rc,
		    err.msg, got.n, (unsigned long long)mem.used);
	rows_free(&got);
	core_agg_plan_free(plan);
	/* The budget named holds them: the reference's answer. */
	if (ok) {
		m = strtoull(give + strlen(want), NULL, 10);
		ok = (m << 20) > limit && check_case(t, tc, 4096, m << 20,
		    "quantiles without keys, at the -m named");
	}
	return ok;
}

static void
test_no_keys_and_empty(void)
{
	struct tcase tc;
	struct table *t = table_new(7000, 5, 20);
	struct table *e = table_new(0, 5, 20);

	memset(&tc, 0, sizeof(tc));
	all_aggs(&tc);
	CHECK(sweep_lengths(t, &tc, CORE_MEM_UNLIMITED, "no keys"));
	CHECK(sweep_lengths(t, &tc, 16u << 20, "no keys, 16 MiB"));
	CHECK(quantiles_refused(t, &tc, 256u << 10));
	free(tc.aggs);
	memset(&tc, 0, sizeof(tc));
	aggs_of(&tc, false);
	CHECK(sweep_lengths(t, &tc, 256u << 10, "no keys, 256 KiB"));
	free(tc.aggs);
	memset(&tc, 0, sizeof(tc));
	all_aggs(&tc);
	CHECK(check_case(e, &tc, 4096, CORE_MEM_UNLIMITED, "empty, no keys"));
	tc.nkeys = 1;
	CHECK(check_case(e, &tc, 4096, CORE_MEM_UNLIMITED, "empty, keys"));
	CHECK(check_case(e, &tc, 4096, 256u << 10, "empty, keys, 256K"));
	table_free(t);
	table_free(e);
	free(tc.aggs);
}

static void
test_budget_sweep(void)
{
	/* 4 MiB spilled as 1 MiB does. */
	static const uint64_t limits[] = {
		256u << 10, 1u << 20, CORE_MEM_UNLIMITED,
	};
	static const struct { uint32_t key; uint64_t card; } cases[] = {
		{ 1, 12000 }, { COL_ID, 0 }, { 6, 3000 }, { 2, 5000 },
	};
	/* 4095 and 4097 straddle a whole batch; 4096 adds nothing but
	 * time.  Under the sanitizers two keys of the four keep the sweep
	 * within make check's time. */
	static const uint32_t lens[] = { 17, 4095, 4097 };
#ifdef CORE_DEBUG
	const size_t ncases = 2;
#else
	const size_t ncases = sizeof(cases) / sizeof(cases[0]);
#endif
	struct tcase tc;
	char what[128];
	size_t c, l, b;
	bool ok = true;

	memset(&tc, 0, sizeof(tc));
	/* So many states make a 256 KiB table of a few groups: the
	 * quantiles' own sweep is test_quantile_spill. */
	aggs_of(&tc, false);
	tc.nkeys = 1;
	nspilled = 0;
	for (c = 0; c < ncases && ok; c++) {
		struct table *t = table_new(10000, cases[c].card, 10);

		tc.keys[0] = cases[c].key;
		for (l = 0; l < sizeof(lens) / sizeof(lens[0]) && ok; l++)
			for (b = 0; b < sizeof(limits) / sizeof(limits[0]) &&
			    ok; b++) {
				/* Short batches, and batches short of a whole
				 * one, at 256 KiB only: unlimited, the other
				 * tests sweep them. */
				if (lens[l] != 4097 && b > 0)
					continue;
				snprintf(what, sizeof(what), "key %s, batches "
				    "of %u, budget %llu",
				    t->schema->fields[cases[c].key].name,
				    lens[l], (unsigned long long)limits[b]);
				ok = check_case(t, &tc, lens[l], limits[b],
				    what);
			}
		CHECK(ok);
		table_free(t);
	}
	/* The small budgets did spill. */
	printf("# %u of %u runs spilled, %u levels at most, peak %.3f of "
	    "the budget at most; %u with tables between spills, %u "
	    "without\n", nspilled, ncompared, maxlevel, maxpeak, nhybrid,
	    nsingle);
	CHECK(nspilled > 0);
	/* Random keys: rows to the partitions once the table fills. */
	CHECK(nsingle > 0);
	free(tc.aggs);
}

/*
 * One group whose values no re-partitioning can split (a key of one
 * value): under a budget too small for them CORE_ELIMIT naming the
 * aggregate, nothing left charged, and the budget named gives the
 * reference's answer (check_case) -- on one thread and on two.  The
 * same keys of many values, each group small, aggregate within the
 * small budget.
 */
static void
test_group_too_big(void)
{
	struct table *one = table_new(20000, 1, 0);
	struct table *many = table_new(20000, 4000, 0);
	struct tcase all, tc;
	unsigned r0 = nrefused, s0 = nspilled;
	uint32_t i;

	memset(&all, 0, sizeof(all));
	all_aggs(&all);
	memset(&tc, 0, sizeof(tc));
	tc.aggs = core_xcalloc(all.naggs + 1, sizeof(*tc.aggs));
	tc.nkeys = 1;
	tc.keys[0] = 1;
	for (i = 0; i < all.naggs && tc.naggs < 3; i++)
		if (is_quantile(all.aggs[i].fn))
			tc.aggs[tc.naggs++] = all.aggs[i];
	free(all.aggs);
	CHECK(tc.naggs == 3);
	CHECK(check_case(one, &tc, 4096, 256u << 10, "one group, 256 KiB"));
	CHECK(nrefused == r0 + 1);
	use_pool = core_pool_new(2);
	CHECK(check_case(one, &tc, 4096, 256u << 10,
	    "one group, 2 threads, 256 KiB"));
	CHECK(nrefused == r0 + 2);
	CHECK(check_case(many, &tc, 4096, 256u << 10,
	    "4000 groups, 2 threads, 256 KiB"));
	core_pool_free(use_pool);
	use_pool = NULL;
	CHECK(nrefused == r0 + 2);
	CHECK(nspilled > s0);
	table_free(one);
	table_free(many);
	free(tc.aggs);
}

/*
 * The partitions of a spilled run aggregated on two threads, each in a
 * table of half the budget left: the reference's groups at every
 * budget (test_budget_sweep has the same at one thread) and the peak
 * charge within the budget.  Groups of a few rows, so that both tables
 * fill and re-partition their partitions at the smallest budget.
 */
static void
test_threads(void)
{
	static const uint64_t limits[] = { 256u << 10, 1u << 20 };
#ifdef CORE_DEBUG
	const size_t nlimits = 1;
#else
	const size_t nlimits = sizeof(limits) / sizeof(limits[0]);
#endif
	struct table *t = table_new(6000, 1500, 10);
	struct tcase tc;
	char what[96];
	unsigned sp0 = nspilled, l0 = maxlevel;
	size_t b;
	bool ok = true;

	use_pool = core_pool_new(2);
	memset(&tc, 0, sizeof(tc));
	aggs_of(&tc, false);
	tc.nkeys = 1;
	tc.keys[0] = 1;
	maxlevel = 0;
	for (b = 0; b < nlimits && ok; b++) {
		snprintf(what, sizeof(what), "2 threads, budget %llu",
		    (unsigned long long)limits[b]);
		ok = check_case(t, &tc, 4097, limits[b], what);
	}
	CHECK(ok);
	CHECK(nspilled - sp0 == b);
	printf("# 2 threads: %u levels at most\n", maxlevel);
	CHECK(maxlevel >= 2);
	maxlevel = maxlevel > l0 ? maxlevel : l0;
	core_pool_free(use_pool);
	use_pool = NULL;
	free(tc.aggs);
	table_free(t);
}

/*
 * median and the quantiles alone, every type, under budgets that spill
 * their values: many small groups, a few big ones (a group's values in
 * several partial aggregates merged), and the sorted path.  Then the
 * string ones (string_agg, which must keep the input order through the
 * spills, and the quantiles of strings) on their own at smaller budgets:
 * beside all the others the NULL key's one group holds more than 1 MiB.
 */
static void
test_quantile_spill(void)
{
	static const uint64_t limits[2][3] = {
		{ 1u << 20, 4u << 20, CORE_MEM_UNLIMITED },
		{ 512u << 10, 1u << 20, CORE_MEM_UNLIMITED },
	};
	static const struct { uint32_t key; uint64_t card; } cases[] = {
		{ 1, 8000 }, { 0, 20 },
	};
	struct tcase tc[2], all;
	unsigned sp0 = nspilled, sp1;
	char what[128];
	size_t c, b, i, w;
	bool ok = true;

	memset(&all, 0, sizeof(all));
	all_aggs(&all);
	memset(tc, 0, sizeof(tc));
	for (w = 0; w < 2; w++) {
		tc[w].aggs = core_xcalloc(all.naggs + 1, sizeof(*tc->aggs));
		tc[w].nkeys = 1;
	}
	for (i = 0; i < all.naggs; i++)
		if (is_quantile(all.aggs[i].fn) && all.aggs[i].q != 1 &&
		    (all.aggs[i].fn != CORE_AGG_QUANTILE_DISC ||
		    all.aggs[i].q != 0)) {
			w = col_type((uint32_t)all.aggs[i].arg).id ==
			    CORE_TYPE_STRING;
			tc[w].aggs[tc[w].naggs++] = all.aggs[i];
		}
	free(all.aggs);
	CHECK(tc[1].naggs == 4);
	for (c = 0; c < sizeof(cases) / sizeof(cases[0]) && ok; c++) {
		struct table *t = table_new(20000, cases[c].card, 10);

		for (w = 0; w < 2 && ok; w++) {
			tc[w].keys[0] = cases[c].key;
			for (b = 0; b < 3 && ok; b++) {
				snprintf(what, sizeof(what), "%s by %s, "
				    "budget %llu", w ? "string_agg and "
				    "quantiles of strings" : "quantiles",
				    t->schema->fields[cases[c].key].name,
				    (unsigned long long)limits[w][b]);
				sp1 = nspilled;
				ok = check_case(t, &tc[w], 4095, limits[w][b],
				    what);
				/* 512 KiB spills both. */
				if (w == 1 && b == 0)
					CHECK(nspilled > sp1);
			}
		}
		CHECK(ok);
		table_free(t);
	}
	printf("# quantiles: %u runs spilled\n", nspilled - sp0);
	CHECK(nspilled - sp0 >= 4);
	for (w = 0; w < 2; w++)
		free(tc[w].aggs);
}

static void
test_overflow(void)
{
	struct table *t = table_new(3000, 3, 0);
	struct core_agg_call c[2] = {
		{ CORE_AGG_SUM, (int32_t)COL_V(1), false, NULL, 0, NULL },
		{ CORE_AGG_SUM, (int32_t)COL_V(3), false, NULL, 0, NULL },
	};
	uint32_t key = 0;
	struct core_agg_spec spec = { &key, 1, c, 1 };
	struct core_agg_plan *p = NULL;
	struct core_agg_options o;
	struct core_agg_input in = { 0 };
	struct core_err err = { 0 };
	struct core_mem mem;
	struct rows got;
	struct src s;
	int which, rc;
	size_t r;

	for (which = 0; which < 2; which++) {
		uint64_t limit = which ? 256u << 10 : CORE_MEM_UNLIMITED;
		int v;

		for (v = 0; v < 2; v++) {
			for (r = 0; r < t->n; r++) {
				at(t, r, COL_V(1))->i = INT64_MAX / 16;
				at(t, r, COL_V(3))->i = 999999999999999ll;
			}
			spec.aggs = &c[v];
			CHECK_EQ_INT(core_agg_plan_new(&spec, t->schema, &p,
			    &err), 0);
			memset(&o, 0, sizeof(o));
			o.plan = p;
			memset(&s, 0, sizeof(s));
			s.t = t;
			s.blen = 1000;
			core_batch_init(&s.own, t->schema);
			in.schema = t->schema;
			in.next = src_next;
			in.arg = &s;
			in.size_hint = 0;
			memset(&got, 0, sizeof(got));
			got.ncols = 2;
			core_mem_init(&mem, limit);
			rc = core_agg_hash(&o, &mem, &in, emit_rows, &got, NULL,
			    &err);
			/* Integers and decimals are summed to 38 digits,
			 * exactly: the integers' sums pass int64. */
			{
				__int128 tot = 0, big = 0;
				size_t g;

				CHECK_EQ_INT(rc, 0);
				for (g = 0; g < got.n; g++) {
					tot += got.c[g * 2 + 1].w;
					if (got.c[g * 2 + 1].w > INT64_MAX)
						big++;
				}
				CHECK(tot == (__int128)(v == 0 ? INT64_MAX /
				    16 : 999999999999999ll) *
				    (__int128)t->n);
				CHECK(v == 1 || big > 0);
			}
			CHECK(mem.used == 0);
			core_batch_release(&s.own);
			rows_free(&got);
			core_agg_plan_free(p);
		}
	}
	table_free(t);
}

/* ---- decimal(p > 18): min, max, any_value, sum, var_pop ---- */

#define WN 40000u
#define WK 3000u

struct wsrc {
	const int32_t *k;
	const __int128 *x;
	const uint8_t *null;
	uint32_t pos;
	struct core_batch own;
};

static int
wsrc_next(void *arg, struct core_batch *b, struct core_err *err)
{
	struct wsrc *s = arg;
	uint32_t n = WN - s->pos < 4096 ? WN - s->pos : 4096, r;

	(void)err;
	if (n == 0)
		return CORE_EOF;
	core_batch_reset(&s->own);
	core_batch_reserve(&s->own, n, 0);
	for (r = 0; r < n; r++) {
		((int32_t *)s->own.cols[0].values)[r] = s->k[s->pos + r];
		core_i128_store((char *)s->own.cols[1].values + 16 * r,
		    s->x[s->pos + r]);
		if (s->null[s->pos + r])
			core_col_set_null(&s->own.cols[1], r, n);
	}
	s->own.nrows = n;
	s->pos += n;
	b->nrows = n;
	for (r = 0; r < 2; r++) {
		b->cols[r].validity = s->own.cols[r].validity;
		b->cols[r].values = s->own.cols[r].values;
	}
	return 0;
}

static int
w_cmp(const void *a, const void *b)
{
	__int128 x = *(const __int128 *)a, y = *(const __int128 *)b;

	return (x > y) - (x < y);
}

/*
 * min, max, any_value, sum, median and the quantiles of a decimal(30,2)
 * column whose values use all 30 digits (and some past 18 only in their
 * sums), by an int32 key of WK groups, at budgets from 256 KiB
 * (spilling) to unlimited, against per-group sums, comparisons and
 * sorted values in __int128.
 */
static void
test_wide_decimal(void)
{
	static const uint64_t limits[] = { 256u << 10, 1u << 20,
	    CORE_MEM_UNLIMITED };
	struct core_coltype wt = core_type_decimal(30, 2);
	struct core_schema *sc = core_schema_new(2);
	struct core_agg_call c[9] = {
		{ CORE_AGG_MIN, 1, false, NULL, 0, NULL },
		{ CORE_AGG_MAX, 1, false, NULL, 0, NULL },
		{ CORE_AGG_ANY_VALUE, 1, false, NULL, 0, NULL },
		{ CORE_AGG_SUM, 1, false, NULL, 0, NULL },
		{ CORE_AGG_COUNT, 1, false, NULL, 0, NULL },
		{ CORE_AGG_MEDIAN, 1, false, NULL, 0, NULL },
		{ CORE_AGG_QUANTILE_CONT, 1, false, NULL, 0.3, NULL },
		{ CORE_AGG_QUANTILE_DISC, 1, false, NULL, 0.7, NULL },
		{ CORE_AGG_MAX, 1, true, NULL, 0, NULL },
	};
	uint32_t key = 0, i, l;
	struct core_agg_spec spec = { &key, 1, c, 8 };
	/* The quantiles' reference: each group's values sorted. */
	__int128 *sv = core_xcalloc(WN, sizeof(*sv));
	size_t *gs = core_xcalloc(WK + 1, sizeof(*gs));
	__int128 qv[WK][3];
	int32_t *k = core_xcalloc(WN, sizeof(*k));
	__int128 *x = core_xcalloc(WN, sizeof(*x));
	uint8_t *nul = core_xcalloc(WN, 1);
	__int128 mn[WK], mx[WK], sm[WK];
	int64_t cnt[WK];
	bool ok = true;

	core_schema_set(sc, 0, "k", (struct core_coltype){ CORE_TYPE_INT32,
	    0, 0 });
	core_schema_set(sc, 1, "x", wt);
	memset(cnt, 0, sizeof(cnt));
	memset(sm, 0, sizeof(sm));
	for (i = 0; i < WN; i++) {
		/* Up to 29 digits, either sign. */
		__int128 v = (__int128)(unit_rand() % 10000000000000ull) *
		    10000000000000000ll + (__int128)(unit_rand() %
		    10000000000000000ull);

		if (unit_rand() % 2)
			v = -v;
		if (unit_rand() % 7 == 0)
			v = (__int128)(unit_rand() % 100) - 50;
		k[i] = (int32_t)(unit_rand() % WK);
		x[i] = v;
		nul[i] = unit_rand() % 10 == 0;
		if (nul[i])
			continue;
		if (cnt[k[i]] == 0 || v < mn[k[i]])
			mn[k[i]] = v;
		if (cnt[k[i]] == 0 || v > mx[k[i]])
			mx[k[i]] = v;
		sm[k[i]] += v;
		cnt[k[i]]++;
	}
	for (i = 0; i < WK; i++)
		gs[i + 1] = gs[i] + (size_t)cnt[i];
	{
		size_t *fill = core_xcalloc(WK, sizeof(*fill));

		for (i = 0; i < WN; i++)
			if (!nul[i])
				sv[gs[k[i]] + fill[k[i]]++] = x[i];
		free(fill);
	}
	for (i = 0; i < WK; i++) {
		__int128 *g = sv + gs[i];
		size_t n = (size_t)cnt[i], fi, ci;
		double rn, f;

		if (n == 0)
			continue;
		qsort(g, n, sizeof(*g), w_cmp);
		/* median, quantile_cont(0.3): DuckDB's lo (1 - f) + hi f in
		 * doubles at this width; quantile_disc(0.7). */
		for (l = 0; l < 2; l++) {
			rn = (double)(n - 1) * (l ? 0.3 : 0.5);
			fi = (size_t)floor(rn);
			ci = (size_t)ceil(rn);
			f = rn - (double)fi;
			qv[i][l] = ci == fi ? g[fi] : (__int128)((double)g[fi] *
			    (1 - f) + (double)g[ci] * f);
		}
		fi = (size_t)ceil((double)n * 0.7);
		qv[i][2] = g[fi > 0 ? fi - 1 : 0];
	}
	for (l = 0; l < sizeof(limits) / sizeof(limits[0]) && ok; l++) {
		struct core_agg_plan *p = NULL;
		struct core_agg_options o;
		struct core_agg_input in = { 0 };
		struct core_agg_stats st;
		struct core_err err = { 0 };
		struct core_mem mem;
		struct rows got;
		struct wsrc s;
		size_t g;

		CHECK_EQ_INT(core_agg_plan_new(&spec, sc, &p, &err), 0);
		CHECK(core_type_equal(p->out->fields[1].type, wt));
		CHECK(core_type_equal(p->out->fields[4].type,
		    core_type_decimal(38, 2)));
		memset(&o, 0, sizeof(o));
		o.plan = p;
		memset(&s, 0, sizeof(s));
		s.k = k;
		s.x = x;
		s.null = nul;
		core_batch_init(&s.own, sc);
		in.schema = sc;
		in.next = wsrc_next;
		in.arg = &s;
		in.size_hint = 0;
		memset(&got, 0, sizeof(got));
		got.ncols = 9;
		core_mem_init(&mem, limits[l]);
		CHECK_EQ_INT(core_agg_hash(&o, &mem, &in, emit_rows, &got, &st,
		    &err), 0);
		if (limits[l] == 256u << 10)
			CHECK(st.levels > 0);
		CHECK_EQ_INT((int)got.n, (int)WK);
		for (g = 0; g < got.n && ok; g++) {
			const struct cell *r = &got.c[g * 9];
			int32_t kk = (int32_t)r[0].i;
			bool any = false;

			for (i = 0; i < WN && !any; i++)
				any = k[i] == kk && !nul[i] && x[i] == r[3].w;
			ok = kk >= 0 && kk < (int32_t)WK && cnt[kk] > 0 &&
			    r[1].w == mn[kk] && r[2].w == mx[kk] && any &&
			    r[4].w == sm[kk] && r[5].i == cnt[kk] &&
			    r[6].w == qv[kk][0] && r[7].w == qv[kk][1] &&
			    r[8].w == qv[kk][2];
			if (!ok)
				printf("# budget %llu: group %d wrong\n",
				    (unsigned long long)limits[l], kk);
		}
		CHECK(ok);
		CHECK(mem.used == 0);
		core_batch_release(&s.own);
		rows_free(&got);
		core_agg_plan_free(p);
	}
	/* 128-bit keys and DISTINCT arguments: count(*) by x against runs
	 * of the sorted values (the NULLs a group of their own), and
	 * max(DISTINCT x) by k, at a budget that spills and unlimited. */
	for (l = 0; l < sizeof(limits) / sizeof(limits[0]) && ok; l += 2) {
		struct core_agg_plan *p = NULL;
		struct core_agg_options o;
		struct core_agg_input in = { 0 };
		struct core_err err = { 0 };
		struct core_mem mem;
		struct rows got;
		struct wsrc s;
		uint32_t wkey = 1, d, nd = 0, nnul = 0, ndist = 0;
		struct core_agg_call cs = { CORE_AGG_COUNT_STAR, -1, false,
		    NULL, 0, NULL };
		struct core_agg_spec s2 = { &wkey, 1, &cs, 1 };
		__int128 *all = core_xcalloc(WN, sizeof(*all));
		size_t g, na = 0;

		for (i = 0; i < WN; i++)
			if (!nul[i])
				all[na++] = x[i];
			else
				nnul++;
		qsort(all, na, sizeof(*all), w_cmp);
		for (g = 0; g < na; g++)
			ndist += g == 0 || all[g] != all[g - 1];
		for (d = 0; d < 2 && ok; d++) {
			CHECK_EQ_INT(core_agg_plan_new(d ? &spec : &s2, sc, &p,
			    &err), 0);
			if (d)
				spec.aggs = c, spec.naggs = 8;
			memset(&o, 0, sizeof(o));
			o.plan = p;
			memset(&s, 0, sizeof(s));
			s.k = k;
			s.x = x;
			s.null = nul;
			core_batch_init(&s.own, sc);
			in.schema = sc;
			in.next = wsrc_next;
			in.arg = &s;
			in.size_hint = 0;
			memset(&got, 0, sizeof(got));
			got.ncols = 2;
			core_mem_init(&mem, limits[l]);
			CHECK_EQ_INT(core_agg_hash(&o, &mem, &in, emit_rows,
			    &got, NULL, &err), 0);
			for (g = 0; g < got.n && ok; g++) {
				const struct cell *r = &got.c[g * 2];
				size_t lo = 0, hi = na;

				if (d) {
					ok = cnt[r[0].i] > 0 &&
					    r[1].w == mx[r[0].i];
					continue;
				}
				if (r[0].null) {
					ok = r[1].i == nnul;
					continue;
				}
				/* The run of r[0]'s value in all. */
				while (lo < hi) {
					size_t mid = (lo + hi) / 2;

					if (all[mid] < r[0].w)
						lo = mid + 1;
					else
						hi = mid;
				}
				for (hi = lo; hi < na && all[hi] == r[0].w;
				    hi++)
					;
				ok = hi > lo && r[1].i == (int64_t)(hi - lo);
				nd += ok;
			}
			if (!ok)
				printf("# wide %s, budget %llu: group %zu "
				    "wrong\n", d ? "DISTINCT" : "key",
				    (unsigned long long)limits[l], g - 1);
			CHECK(ok);
			/* Each distinct value once, and the NULLs; each k. */
			CHECK_EQ_INT((int)got.n, d ? (int)WK : (int)(ndist +
			    (nnul > 0)));
			if (d == 0)
				CHECK_EQ_INT((int)nd, (int)ndist);
			CHECK(mem.used == 0);
			core_batch_release(&s.own);
			rows_free(&got);
			core_agg_plan_free(p);
			p = NULL;
			if (d == 0) {
				spec.aggs = &c[8];
				spec.naggs = 1;
			}
		}
		free(all);
	}
	free(k);
	free(x);
	free(nul);
	free(sv);
	free(gs);
	core_schema_free(sc);
}

/* An argument runs only the tests whose names contain it. */
#define RUN_IF(fn) do {							\
	if (argc < 2 || strstr(#fn, argv[1]) != NULL)			\
		RUN(fn);						\
} while (0)

/* t's rows in the order of keys (stably), as colsort would give them. */
static struct table *
table_sorted(const struct table *t, const uint32_t *keys, uint32_t nkeys)
{
	struct table *u = core_xcalloc(1, sizeof(*u));
	size_t *idx = core_xcalloc(t->n + 1, sizeof(*idx)), r;
	uint32_t c;

	u->schema = core_schema_clone(t->schema);
	u->n = t->n;
	u->cells = core_xcalloc(t->n * NCOLS + 1, sizeof(*u->cells));
	for (r = 0; r < t->n; r++)
		idx[r] = r;
	sort_t = t;
	sort_keys = keys;
	sort_nkeys = nkeys;
	qsort(idx, t->n, sizeof(*idx), row_cmp);
	for (r = 0; r < t->n; r++)
		for (c = 0; c < NCOLS; c++) {
			const struct cell *x = at(t, idx[r], c);
			struct cell *y = at(u, r, c);

			*y = *x;
			y->s = x->s ? core_xstrndup(x->s, x->slen) : NULL;
		}
	free(idx);
	return u;
}

/* The streaming path on sorted input equals the reference; on input
 * out of order it names the first row below its predecessor. */
static void
test_sorted(void)
{
	static const uint32_t sets[][2] = {
		{ 0, 0 }, { 2, 0 }, { 6, 0 }, { 7, 3 }, { 6, 1 }, { COL_ID, 0 },
	};
	static const uint32_t nk[] = { 1, 1, 1, 2, 2, 1 };
	struct tcase tc;
	char what[64];
	size_t i;
	bool ok = true;

	memset(&tc, 0, sizeof(tc));
	all_aggs(&tc);
	use_sorted = true;
	for (i = 0; i < sizeof(nk) / sizeof(nk[0]) && ok; i++) {
		struct table *t = table_new(7000, i == 0 ? 1 : 40, 10);
		struct table *u;

		tc.nkeys = nk[i];
		memcpy(tc.keys, sets[i], sizeof(sets[i]));
		u = table_sorted(t, tc.keys, tc.nkeys);
		snprintf(what, sizeof(what), "sorted on %s",
		    t->schema->fields[tc.keys[0]].name);
		ok = sweep_lengths(u, &tc, 256u << 10, what);
		CHECK(ok);
		table_free(t);
		table_free(u);
	}
	use_sorted = false;
	free(tc.aggs);

	/* Rows 1..99 sorted, row 100 below row 99. */
	{
		struct table *t = table_new(300, 1000, 0);
		struct table *u;
		struct core_agg_call c = { CORE_AGG_COUNT_STAR, -1, false,
		    NULL, 0, NULL };
		uint32_t key = 1, blen;
		struct core_agg_spec spec = { &key, 1, &c, 1 };
		struct core_agg_plan *p = NULL;
		struct core_agg_options o;
		struct core_agg_input in = { 0 };
		struct core_err err = { 0 };
		struct core_mem mem;
		struct rows got;
		struct src s;

		u = table_sorted(t, &key, 1);
		at(u, 99, 1)->null = false;
		at(u, 99, 1)->i = at(u, 0, 1)->i - 1;
		CHECK_EQ_INT(core_agg_plan_new(&spec, u->schema, &p, &err), 0);
		for (blen = 1; blen <= 128; blen *= 2) {
			memset(&o, 0, sizeof(o));
			o.plan = p;
			memset(&s, 0, sizeof(s));
			s.t = u;
			s.blen = blen;
			core_batch_init(&s.own, u->schema);
			in.schema = u->schema;
			in.next = src_next;
			in.arg = &s;
			in.size_hint = 0;
			memset(&got, 0, sizeof(got));
			got.ncols = 2;
			core_mem_init(&mem, CORE_MEM_UNLIMITED);
			CHECK_EQ_INT(core_agg_sorted(&o, &mem, &in, emit_rows,
			    &got, NULL, &err), CORE_EDATA);
			CHECK(strncmp(err.msg, "row 100: ", 9) == 0);
			/* Nothing of row 99's group or after came out. */
			CHECK(got.n < 99);
			CHECK(mem.used == 0);
			core_batch_release(&s.own);
			rows_free(&got);
		}
		core_agg_plan_free(p);
		table_free(t);
		table_free(u);
	}
}

/*
 * The hash path over input whose groups come in runs: sorted (a group's
 * rows all together, as lineitem by l_orderkey) and in blocks of a sorted
 * order taken from both ends in turn (a group's rows in two runs, often
 * in one batch).  A run's rows after the first take its group without a
 * lookup, the first rows of runs make groups indexed together: equal to
 * the reference at every budget, spilled or not.
 */
static void
test_clustered(void)
{
	static const uint32_t sets[][2] = {
		{ 1, 0 }, { 6, 0 }, { 7, 3 }, { 2, 0 }, { COL_ID, 0 },
	};
	static const uint32_t nk[] = { 1, 1, 2, 1, 1 };
	static const uint64_t limits[] = {
		256u << 10, 1u << 20, CORE_MEM_UNLIMITED,
	};
	static const uint32_t lens[] = { 17, 4097 };
	/* Under the sanitizers two key sets of the five keep it within
	 * make check's time. */
#ifdef CORE_DEBUG
	const size_t nsets = 2;
#else
	const size_t nsets = sizeof(nk) / sizeof(nk[0]);
#endif
	struct tcase tc;
	char what[128];
	size_t i, l, b, r, k;
	uint32_t c;
	bool ok = true;

	memset(&tc, 0, sizeof(tc));
	aggs_of(&tc, false);
	nspilled = 0;
	for (i = 0; i < nsets && ok; i++) {
		struct table *t = table_new(16000, 5000, 10);
		struct table *u, *w;

		tc.nkeys = nk[i];
		memcpy(tc.keys, sets[i], sizeof(sets[i]));
		u = table_sorted(t, tc.keys, tc.nkeys);
		/* w: u's blocks of 64 rows, first, last, second, ... */
		w = table_sorted(t, tc.keys, tc.nkeys);
		for (r = 0, k = 0; r < u->n; r += 64, k++) {
			size_t nb = (u->n + 63) / 64;
			size_t from = (k % 2 == 0 ? k / 2 : nb - 1 - k / 2) * 64;
			size_t j;

			for (j = 0; j < 64 && r + j < u->n && from + j < u->n;
			    j++)
				for (c = 0; c < NCOLS; c++) {
					struct cell *y = at(w, r + j, c);
					const struct cell *x = at(u, from + j,
					    c);

					free(y->s);
					*y = *x;
					y->s = x->s ? core_xstrndup(x->s,
					    x->slen) : NULL;
				}
		}
		for (l = 0; l < 2 && ok; l++)
			for (b = 0; b < 3 && ok; b++) {
				snprintf(what, sizeof(what), "sorted on %s, "
				    "batches of %u, budget %llu",
				    t->schema->fields[tc.keys[0]].name,
				    lens[l], (unsigned long long)limits[b]);
				ok = check_case(u, &tc, lens[l], limits[b],
				    what);
				if (ok && limits[b] != (1u << 20)) {
					/* The keys hashed by the input, in
					 * memory and spilled. */
					use_prehash = true;
					strcat(what, ", hashed ahead");
					ok = check_case(u, &tc, lens[l],
					    limits[b], what);
					use_prehash = false;
				}
				if (ok) {
					snprintf(what, sizeof(what), "in two "
					    "runs on %s, batches of %u, budget "
					    "%llu", t->schema->fields[
					    tc.keys[0]].name, lens[l],
					    (unsigned long long)limits[b]);
					ok = check_case(w, &tc, lens[l],
					    limits[b], what);
				}
			}
		CHECK(ok);
		table_free(t);
		table_free(u);
		table_free(w);
	}
	CHECK(nspilled > 0);
	/* Sorted keys keep a table between spills. */
	CHECK(nhybrid > 0);
	free(tc.aggs);

	/* A table kept between spills is emptied for the next groups with
	 * its memory kept: its value logs (quantiles, string_agg) and
	 * strings (min and max of strings) too. */
	memset(&tc, 0, sizeof(tc));
	aggs_of(&tc, true);
	tc.nkeys = 1;
	for (i = 0; i < 2 && ok; i++) {
		struct table *t = table_new(12000, 3000, 10);
		struct table *u;
		unsigned h0 = nhybrid;

		tc.keys[0] = i == 0 ? 1 : 6;
		u = table_sorted(t, tc.keys, tc.nkeys);
		for (b = 0; b < 2 && ok; b++) {
			snprintf(what, sizeof(what), "sorted on %s, every "
			    "function, budget %uM",
			    t->schema->fields[tc.keys[0]].name,
			    2u << b);
			ok = check_case(u, &tc, 97, (2u << 20) << b, what);
		}
		CHECK(ok);
		CHECK(nhybrid > h0);
		table_free(t);
		table_free(u);
	}
	free(tc.aggs);
}

/* A cap on spilled bytes is CORE_ELIMIT, with everything given back. */
static void
test_spill_cap(void)
{
	struct table *t = table_new(20000, 0, 5);
	struct core_agg_call c = { CORE_AGG_COUNT_STAR, -1, false, NULL, 0,
	    NULL };
	uint32_t key = COL_ID;
	struct core_agg_spec spec = { &key, 1, &c, 1 };
	struct core_agg_plan *p = NULL;
	struct core_agg_options o;
	struct core_agg_input in = { 0 };
	struct core_agg_stats st;
	struct core_err err = { 0 };
	struct core_mem mem;
	struct rows got;
	struct src s;

	CHECK_EQ_INT(core_agg_plan_new(&spec, t->schema, &p, &err), 0);
	memset(&o, 0, sizeof(o));
	o.plan = p;
	o.max_spill = 4096;
	memset(&s, 0, sizeof(s));
	s.t = t;
	s.blen = 4096;
	core_batch_init(&s.own, t->schema);
	in.schema = t->schema;
	in.next = src_next;
	in.arg = &s;
	in.size_hint = 0;
	memset(&got, 0, sizeof(got));
	got.ncols = 2;
	core_mem_init(&mem, 64u << 10);
	CHECK_EQ_INT(core_agg_hash(&o, &mem, &in, emit_rows, &got, &st, &err),
	    CORE_ELIMIT);
	CHECK(mem.used == 0);
	CHECK(got.empty_calls == 0);
	core_batch_release(&s.own);
	rows_free(&got);
	core_agg_plan_free(p);
	table_free(t);
}

/*
 * DISTINCT: every function over the distinct values of each value
 * column (domains small enough to repeat), beside the same functions
 * without DISTINCT, with keys of few and of many groups and without
 * keys, at budgets from 256 KiB (both phases spill) to unlimited.
 */
/* Moves a[0..n)'s non-DISTINCT quantiles to its end, in order: the
 * number of the others. */
static uint32_t
drop_plain_quantiles(struct core_agg_call *a, uint32_t n)
{
	struct core_agg_call *tmp = core_xcalloc(n + 1, sizeof(*tmp));
	uint32_t i, k = 0, m;

	for (i = 0; i < n; i++)
		if (a[i].distinct || !is_quantile(a[i].fn))
			tmp[k++] = a[i];
	m = k;
	for (i = 0; i < n; i++)
		if (!a[i].distinct && is_quantile(a[i].fn))
			tmp[k++] = a[i];
	memcpy(a, tmp, n * sizeof(*a));
	free(tmp);
	return m;
}

/* tc's calls over value column v, DISTINCT and not, pairwise, then a sum
 * over another column, as test_distinct makes them. */
static void
aggs_of_v(struct tcase *tc, uint32_t v)
{
	struct tcase all;
	uint32_t i;

	memset(&all, 0, sizeof(all));
	all_aggs(&all);
	tc->naggs = 0;
	tc->aggs[tc->naggs++] = all.aggs[0];
	for (i = 1; i < all.naggs; i++) {
		if (all.aggs[i].arg != (int32_t)COL_V(v) ||
		    all.aggs[i].fn == CORE_AGG_STRING_AGG)
			continue;
		tc->aggs[tc->naggs] = all.aggs[i];
		tc->aggs[tc->naggs++].distinct = true;
		tc->aggs[tc->naggs++] = all.aggs[i];
	}
	tc->aggs[tc->naggs].fn = CORE_AGG_SUM;
	tc->aggs[tc->naggs].distinct = false;
	tc->aggs[tc->naggs++].arg = (int32_t)COL_V(v == 1 ? 0 : 1);
	free(all.aggs);
}

/* Three batches of 4096, and fewer under the sanitizers: the groups'
 * distinct values still spill at 256 KiB. */
#ifdef __SANITIZE_ADDRESS__
#define DISTINCT_ROWS 6000
#else
#define DISTINCT_ROWS 8200
#endif

static void
test_distinct(void)
{
	static const uint64_t limits[] = { 256u << 10, 1u << 20,
	    CORE_MEM_UNLIMITED };
	static const struct { uint32_t nkeys, key; uint64_t card; } ks[] = {
		{ 1, 0, 30 }, { 1, 6, 2000 }, { 0, 0, 1 },
	};
	struct tcase tc;
	uint32_t v, i, l, k;
	char what[96];
	bool ok = true;
	unsigned sp0 = nspilled, n0 = ncompared;

	vcard = 40;
	for (v = 0; v < NT && ok; v++) {
		struct tcase all;

		memset(&all, 0, sizeof(all));
		all_aggs(&all);
		memset(&tc, 0, sizeof(tc));
		tc.aggs = core_xcalloc(2 * all.naggs + 1, sizeof(*tc.aggs));
		/* count(*) and everything over v, DISTINCT and not, and a
		 * plain sum over another column. */
		tc.aggs[tc.naggs++] = all.aggs[0];
		for (i = 1; i < all.naggs; i++) {
			/* string_agg's order next to DISTINCT is not the
			 * input's (core_agg_hash). */
			if (all.aggs[i].arg != (int32_t)COL_V(v) ||
			    all.aggs[i].fn == CORE_AGG_STRING_AGG)
				continue;
			tc.aggs[tc.naggs] = all.aggs[i];
			tc.aggs[tc.naggs++].distinct = true;
			tc.aggs[tc.naggs++] = all.aggs[i];
		}
		tc.aggs[tc.naggs].fn = CORE_AGG_SUM;
		tc.aggs[tc.naggs++].arg = (int32_t)COL_V(v == 1 ? 0 : 1);
		free(all.aggs);
		for (k = 0; k < sizeof(ks) / sizeof(ks[0]) && ok; k++) {
			struct table *t = table_new(DISTINCT_ROWS,
			    ks[k].card, 10);

			uint32_t na = tc.naggs;

			tc.nkeys = ks[k].nkeys;
			tc.keys[0] = ks[k].key;
			/* Without keys the plain quantiles hold every value,
			 * more than 256 KiB (quantiles_refused); the
			 * DISTINCT ones hold 40. */
			if (tc.nkeys == 0)
				tc.naggs = drop_plain_quantiles(tc.aggs,
				    tc.naggs);
			for (l = 0; l < sizeof(limits) / sizeof(limits[0]) &&
			    ok; l++) {
				snprintf(what, sizeof(what), "DISTINCT v%u, "
				    "%u keys (%llu), budget %llu", v,
				    tc.nkeys, (unsigned long long)ks[k].card,
				    (unsigned long long)limits[l]);
				ok = check_case(t, &tc, 4096, limits[l], what);
			}
			if (ok && tc.nkeys > 0) {
				snprintf(what, sizeof(what), "DISTINCT v%u, "
				    "%u keys (%llu), hashed ahead", v,
				    tc.nkeys, (unsigned long long)ks[k].card);
				use_prehash = true;
				ok = check_case(t, &tc, 1000, CORE_MEM_UNLIMITED,
				    what);
				use_prehash = false;
			}
			if (ok) {
				snprintf(what, sizeof(what), "DISTINCT v%u, "
				    "%u keys, short batches", v, tc.nkeys);
				t->n = SHORT_ROWS;
				ok = check_case(t, &tc, 3, 256u << 10, what);
				t->n = DISTINCT_ROWS;	/* table_free frees n */
			}
			if (ok && tc.nkeys > 0) {
				/* The sorted path, every batch length: the
				 * first phase emptied where keys end. */
				struct table *u = table_sorted(t, tc.keys,
				    tc.nkeys);

				snprintf(what, sizeof(what), "DISTINCT v%u, "
				    "%u keys (%llu), sorted", v, tc.nkeys,
				    (unsigned long long)ks[k].card);
				use_sorted = true;
				ok = sweep_lengths(u, &tc, 256u << 10, what);
				use_sorted = false;
				table_free(u);
			}
			tc.naggs = na;
			if (tc.nkeys == 0)
				aggs_of_v(&tc, v);
			CHECK(ok);
			table_free(t);
		}
			free(tc.aggs);
	}
	vcard = 0;
	printf("# distinct: %u of %u runs spilled\n", nspilled - sp0,
	    ncompared - n0);
	CHECK(nspilled - sp0 > 0);
}

int
main(int argc, char **argv)
{
	RUN_IF(test_result_types);
	RUN_IF(test_plan_errors);
	RUN_IF(test_each_key_type);
	RUN_IF(test_several_keys);
	RUN_IF(test_one_group_and_every_row);
	RUN_IF(test_no_keys_and_empty);
	RUN_IF(test_budget_sweep);
	RUN_IF(test_threads);
	RUN_IF(test_group_too_big);
	RUN_IF(test_quantile_spill);
	RUN_IF(test_overflow);
	RUN_IF(test_spill_cap);
	RUN_IF(test_sorted);
	RUN_IF(test_clustered);
	RUN_IF(test_distinct);
	RUN_IF(test_wide_decimal);
	return unit_done();
}
