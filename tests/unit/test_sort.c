/*
 * test_sort.c - core_sort against an obviously correct reference.
 *
 * The reference keeps every row as a plain struct and sorts row numbers
 * with qsort, comparing with its own key comparison written from the
 * documented order (not core_sort's code) and breaking ties on the input
 * position, which is what a stable sort must produce.  Every case checks
 * three things separately:
 *   - contents: each input row comes out exactly once, every column equal;
 *   - order: each output row is >= the one before it by the reference;
 *   - identity: the output sequence equals the reference's (stability).
 * Inputs span many batches of random sizes with every type, duplicates,
 * NULLs, NaN and -0, empty, long and NUL-containing strings, and are run
 * under a sweep of memory budgets so that in-memory sorting, one merge and
 * multi-pass merges all meet the same answer.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core_alloc.h"
#include "core_col.h"
#include "core_mem.h"
#include "core_sort.h"
#include "core_sort_private.h"
#include "unit.h"

enum { C_ID, C_B, C_I32, C_I64, C_F, C_DEC, C_D, C_TS, C_S, C_W, NCOLS };

struct trow {
	int64_t id;
	bool null[NCOLS];
	uint8_t b;
	int32_t i32, d;
	int64_t i64, dec, ts;
	double f;
	char *s;
	int32_t slen;
	int64_t whi;		/* decimal(38,6): high word, signed */
	uint64_t wlo;		/* and low word */
};

struct dataset {
	struct trow *rows;
	size_t n;
	struct core_schema *schema;
};

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t
rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Whether datasets carry the decimal128 column C_W (the last one).
 * test_input_size measures spill bytes against a margin tuned on rows
 * without it, so it leaves it out. */
static bool data_wide = true;

static struct core_schema *
make_schema(void)
{
	static const char *names[NCOLS] = { "id", "b", "i32", "i64", "f",
	    "dec", "d", "ts", "s", "w" };
	static const enum core_type types[NCOLS] = { CORE_TYPE_INT64,
	    CORE_TYPE_BOOL, CORE_TYPE_INT32, CORE_TYPE_INT64,
	    CORE_TYPE_FLOAT64, CORE_TYPE_DECIMAL, CORE_TYPE_DATE,
	    CORE_TYPE_TIMESTAMP, CORE_TYPE_STRING, CORE_TYPE_DECIMAL128 };
	int i, ncols = data_wide ? NCOLS : C_W;
	struct core_schema *s = core_schema_new((uint32_t)ncols);

	for (i = 0; i < ncols; i++) {
		struct core_coltype t = { types[i], 0, 0 };

		if (types[i] == CORE_TYPE_DECIMAL) {
			t.precision = 12;
			t.scale = 2;
		}
		if (types[i] == CORE_TYPE_DECIMAL128)
			t = core_type_decimal(38, 6);
		core_schema_set(s, (uint32_t)i, names[i], t);
	}
	return s;
}

/* The wide column's own generator, so that adding it left the other
 * columns' values (and the sort tests tuned on them) as they were. */
static uint64_t wrng = 0x243f6a8885a308d3ull;

static uint64_t
wrnd(void)
{
	wrng ^= wrng << 13;
	wrng ^= wrng >> 7;
	wrng ^= wrng << 17;
	return wrng;
}

/* A decimal128 of the test rows: of a domain of dom values that straddle
 * the int64 range, else from the whole range, with the edges of int64
 * and of 38 digits (the ends of the sort word's exact range) often. */
static void
gen_wide(struct trow *r, unsigned dom)
{
	core_i128 max = 0, v;
	int i;

	for (i = 0; i < 38; i++)
		max = max * 10 + 9;
	if (dom) {
		static const int64_t hi[] = { -3, -1, 0, 0, 1, 5 };

		v = (core_i128)((core_u128)(uint64_t)hi[wrnd() % 6] << 64 |
		    (wrnd() % dom));
		if (wrnd() % 3 == 0)
			v = (core_i128)INT64_MAX + (int64_t)(wrnd() % 3) - 1;
		if (wrnd() % 5 == 0)
			v = (core_i128)INT64_MIN + (int64_t)(wrnd() % 3) - 1;
	} else {
		v = (core_i128)((core_u128)wrnd() << 64 | wrnd()) % max;
		if (wrnd() % 4 == 0)
			v = (int64_t)wrnd();
		if (wrnd() % 20 == 0)
			v = wrnd() & 1 ? max : -max;
	}
	r->whi = (int64_t)(v >> 64);
	r->wlo = (uint64_t)v;
}

static core_i128
wide_of(const struct trow *r)
{
	return (core_i128)((core_u128)(uint64_t)r->whi << 64 | r->wlo);
}

/* dom: values are drawn from a domain of this size (duplicates), or
 * from the whole range when 0.  constant: every key column equal. */
static void
gen_row(struct trow *r, int64_t id, unsigned dom, bool constant)
{
	static const double specials[] = { 0.0, -0.0, 1.5, -1.5, INFINITY,
	    -INFINITY, NAN, 1e300, -1e-300, 2.0 };
	unsigned k = dom ? (unsigned)(rnd() % dom) : 0;
	int c, i;

	memset(r, 0, sizeof(*r));
	r->id = id;
	for (c = C_B; c < C_W; c++)
		r->null[c] = !constant && rnd() % 9 == 0;
	r->null[C_W] = !constant && wrnd() % 9 == 0;
	if (constant) {
		r->b = 1;
		r->i32 = r->d = 7;
		r->i64 = r->dec = r->ts = -3;
		r->f = 2.5;
		r->s = core_xstrdup("same");
		r->slen = 4;
		r->whi = -2;
		r->wlo = 9;
		return;
	}
	gen_wide(r, dom);
	r->b = (uint8_t)(rnd() & 1);
	if (dom) {
		r->i32 = (int32_t)(rnd() % dom) - (int32_t)dom / 2;
		r->i64 = (int64_t)(rnd() % dom) * 1000000007 - 5;
		r->dec = (int64_t)(rnd() % dom) * 25 - 100;
		r->d = (int32_t)(rnd() % dom) - 3;
		r->ts = (int64_t)(rnd() % dom) * 86400000000ll;
		r->f = specials[rnd() % 10] * (double)(rnd() % 3);
		if (rnd() % 4 == 0)
			r->f = specials[rnd() % 10];
	} else {
		r->i32 = (int32_t)rnd();
		r->i64 = (int64_t)rnd();
		if (rnd() % 50 == 0)
			r->i64 = rnd() & 1 ? INT64_MAX : INT64_MIN;
		r->dec = (int64_t)(rnd() % 2000000000000ull) - 1000000000000;
		r->d = (int32_t)(rnd() % 100000) - 50000;
		r->ts = (int64_t)rnd() >> 8;
		memcpy(&r->f, &(uint64_t){ rnd() }, 8);
		if (rnd() % 10 == 0)
			r->f = specials[rnd() % 10];
	}
	/* Strings: empty, short, long with shared prefixes, NUL bytes. */
	switch (rnd() % 6) {
	case 0:
		r->slen = 0;
		break;
	case 1:
		r->slen = (int32_t)(rnd() % 8);
		break;
	case 2:
		r->slen = 7 + (int32_t)(rnd() % 4);
		break;
	default:
		r->slen = (int32_t)(rnd() % (rnd() % 20 == 0 ? 400 : 30));
		break;
	}
	r->s = core_xmalloc((size_t)r->slen + 1);
	for (i = 0; i < r->slen; i++) {
		unsigned v = dom ? k + (unsigned)(i > 9 ? rnd() % 3 : 0) :
		    (unsigned)rnd();

		r->s[i] = (char)("abc\0\xff~zA"[v % 8]);
	}
	if (dom && rnd() % 3 == 0)
		for (i = 0; i < r->slen; i++)
			r->s[i] = 'q';	/* many equal long strings */
	r->s[r->slen] = '\0';
}

static struct dataset
make_data(size_t n, unsigned dom, bool constant)
{
	struct dataset ds;
	size_t i;

	ds.rows = core_xcalloc(n ? n : 1, sizeof(*ds.rows));
	ds.n = n;
	ds.schema = make_schema();
	for (i = 0; i < n; i++)
		gen_row(&ds.rows[i], (int64_t)i, dom, constant);
	return ds;
}

static void
free_data(struct dataset *ds)
{
	size_t i;

	for (i = 0; i < ds->n; i++)
		free(ds->rows[i].s);
	free(ds->rows);
	core_schema_free(ds->schema);
}

/* ---- the reference order ---- */

static const struct core_sort_key *ref_keys;
static size_t ref_nkeys;
static const struct trow *ref_rows;

static int
ref_cmp_val(const struct trow *a, const struct trow *b, uint32_t col)
{
	switch (col) {
	case C_ID:
		return (a->id > b->id) - (a->id < b->id);
	case C_B:
		return (a->b > b->b) - (a->b < b->b);
	case C_I32:
		return (a->i32 > b->i32) - (a->i32 < b->i32);
	case C_I64:
		return (a->i64 > b->i64) - (a->i64 < b->i64);
	case C_DEC:
		return (a->dec > b->dec) - (a->dec < b->dec);
	case C_D:
		return (a->d > b->d) - (a->d < b->d);
	case C_TS:
		return (a->ts > b->ts) - (a->ts < b->ts);
	case C_W:
		/* Two's complement order: the signed high word, then the
		 * unsigned low word. */
		if (a->whi != b->whi)
			return a->whi < b->whi ? -1 : 1;
		return (a->wlo > b->wlo) - (a->wlo < b->wlo);
	case C_F:
		if (isnan(a->f) || isnan(b->f))
			return isnan(a->f) - isnan(b->f);
		return (a->f > b->f) - (a->f < b->f);
	case C_S: {
		int32_t i;

		for (i = 0; i < a->slen && i < b->slen; i++)
			if (a->s[i] != b->s[i])
				return (unsigned char)a->s[i] <
				    (unsigned char)b->s[i] ? -1 : 1;
		return (a->slen > b->slen) - (a->slen < b->slen);
	}
	}
	return 0;
}

static int
ref_cmp_keys(const struct trow *a, const struct trow *b)
{
	size_t k;
	int c;

	for (k = 0; k < ref_nkeys; k++) {
		const struct core_sort_key *key = &ref_keys[k];
		bool na = a->null[key->col], nb = b->null[key->col];

		if (na || nb) {
			if (na && nb)
				continue;
			return na == key->nulls_first ? -1 : 1;
		}
		c = ref_cmp_val(a, b, key->col);
		if (c != 0)
			return key->desc ? -c : c;
	}
	return 0;
}

static int
ref_qsort_cmp(const void *pa, const void *pb)
{
	size_t ia = *(const size_t *)pa, ib = *(const size_t *)pb;
	int c = ref_cmp_keys(&ref_rows[ia], &ref_rows[ib]);

	return c != 0 ? c : (ia > ib) - (ia < ib);
}

/* The expected output: row indexes in stable key order, deduplicated
 * and cut as --unique and --limit ask. */
static size_t *
reference(const struct dataset *ds, const struct core_sort_key *keys,
    size_t nkeys, bool unique, bool has_limit, uint64_t limit, size_t *nout)
{
	size_t *idx = core_xcalloc(ds->n ? ds->n : 1, sizeof(*idx));
	size_t i, n = 0;

	for (i = 0; i < ds->n; i++)
		idx[i] = i;
	ref_keys = keys;
	ref_nkeys = nkeys;
	ref_rows = ds->rows;
	qsort(idx, ds->n, sizeof(*idx), ref_qsort_cmp);
	for (i = 0; i < ds->n; i++) {
		if (has_limit && n == limit)
			break;
		if (unique && n > 0 &&
		    ref_cmp_keys(&ds->rows[idx[n - 1]], &ds->rows[idx[i]]) == 0)
			continue;
		idx[n++] = idx[i];
	}
	*nout = n;
	return idx;
}

/* ---- batches ---- */

static void
fill_batch(struct core_batch *b, const struct trow *rows, uint32_t n)
{
	size_t sb = 0;
	uint32_t i;
	int c;
	int32_t at = 0;

	for (i = 0; i < n; i++)
		sb += (size_t)rows[i].slen;
	core_batch_reserve(b, n, sb + 1);
	for (i = 0; i < n; i++) {
		const struct trow *r = &rows[i];

		((int64_t *)b->cols[C_ID].values)[i] = r->id;
		((uint8_t *)b->cols[C_B].values)[i] = r->null[C_B] ? 0 : r->b;
		((int32_t *)b->cols[C_I32].values)[i] = r->null[C_I32] ? 0 :
		    r->i32;
		((int64_t *)b->cols[C_I64].values)[i] = r->null[C_I64] ? 0 :
		    r->i64;
		((double *)b->cols[C_F].values)[i] = r->null[C_F] ? 0 : r->f;
		((int64_t *)b->cols[C_DEC].values)[i] = r->null[C_DEC] ? 0 :
		    r->dec;
		((int32_t *)b->cols[C_D].values)[i] = r->null[C_D] ? 0 : r->d;
		((int64_t *)b->cols[C_TS].values)[i] = r->null[C_TS] ? 0 :
		    r->ts;
		if (!r->null[C_S]) {
			memcpy((char *)b->cols[C_S].values + at, r->s,
			    (size_t)r->slen);
			at += r->slen;
		}
		b->cols[C_S].offsets[i + 1] = at;
		if (b->ncols > C_W)
			core_i128_store((char *)b->cols[C_W].values +
			    16 * (size_t)i, r->null[C_W] ? 0 : wide_of(r));
		for (c = C_B; c < (int)b->ncols; c++)
			if (r->null[c])
				core_col_set_null(&b->cols[c], i, n);
	}
	b->nrows = n;
}

/* Does output row r of b hold exactly trow t? */
static bool
row_equal(const struct core_batch *b, uint32_t r, const struct trow *t)
{
	const struct core_column *c = b->cols;
	int k;

	if (((const int64_t *)c[C_ID].values)[r] != t->id)
		return false;
	for (k = C_B; k < (int)b->ncols; k++)
		if (core_col_is_valid(&c[k], r) == t->null[k])
			return false;
	if (!t->null[C_B] && ((const uint8_t *)c[C_B].values)[r] != t->b)
		return false;
	if (!t->null[C_I32] && ((const int32_t *)c[C_I32].values)[r] != t->i32)
		return false;
	if (!t->null[C_I64] && ((const int64_t *)c[C_I64].values)[r] != t->i64)
		return false;
	if (!t->null[C_F] && memcmp(&((const double *)c[C_F].values)[r],
	    &t->f, 8) != 0)
		return false;
	if (!t->null[C_DEC] && ((const int64_t *)c[C_DEC].values)[r] != t->dec)
		return false;
	if (!t->null[C_D] && ((const int32_t *)c[C_D].values)[r] != t->d)
		return false;
	if (!t->null[C_TS] && ((const int64_t *)c[C_TS].values)[r] != t->ts)
		return false;
	if (b->ncols > C_W && !t->null[C_W] &&
	    core_i128_load((const char *)c[C_W].values + 16 * (size_t)r) !=
	    wide_of(t))
		return false;
	if (!t->null[C_S]) {
		int32_t len = c[C_S].offsets[r + 1] - c[C_S].offsets[r];

		if (len != t->slen || memcmp((const char *)c[C_S].values +
		    c[C_S].offsets[r], t->s, (size_t)len) != 0)
			return false;
	}
	return true;
}

struct collect {
	const struct dataset *ds;
	int64_t *ids;
	size_t n, cap;
	bool contents_ok;
	uint32_t max_rows;
};

static int
collect_emit(void *arg, const struct core_batch *b, struct core_err *err)
{
	struct collect *c = arg;
	uint32_t r;

	(void)err;
	if (b->nrows == 0 || b->nrows > c->max_rows)
		c->contents_ok = false;
	for (r = 0; r < b->nrows; r++) {
		int64_t id = ((const int64_t *)b->cols[C_ID].values)[r];

		if (id < 0 || (size_t)id >= c->ds->n ||
		    !row_equal(b, r, &c->ds->rows[id]))
			c->contents_ok = false;
		if (c->n == c->cap) {
			c->cap = c->cap ? c->cap * 2 : 1024;
			c->ids = core_xreallocarray(c->ids, c->cap, 8);
		}
		c->ids[c->n++] = id;
	}
	return 0;
}

struct run_opts {
	uint64_t memory;	/* 0 = unlimited */
	bool unique, has_limit, compress;
	uint64_t limit;
	uint32_t batch_rows;
	const char *const *tmpdirs;
	size_t ntmpdirs;
	uint64_t max_spill;
	/* core_sort_input: the input's size as size_pct percent of the
	 * true one (0 = not given), counting row_size bytes per row. */
	unsigned size_pct;
	uint64_t row_size;
	unsigned threads;	/* core_sort_options.threads */
};

/* Feeds ds in batches of random sizes; returns the sort's status and
 * the collected output. */
static int
run_sort(const struct dataset *ds, const struct core_sort_key *keys,
    size_t nkeys, const struct run_opts *ro, struct collect *out,
    struct core_sort_stats *st, struct core_err *err)
{
	struct core_sort_options o;
	struct core_batch b;
	struct core_mem mem;
	struct core_sort *s;
	size_t at = 0;
	int rc = 0;

	memset(&o, 0, sizeof(o));
	o.keys = keys;
	o.nkeys = nkeys;
	o.unique = ro->unique;
	o.has_limit = ro->has_limit;
	o.limit = ro->limit;
	o.compress_spill = ro->compress;
	o.batch_rows = ro->batch_rows;
	o.tmpdirs = ro->tmpdirs;
	o.ntmpdirs = ro->ntmpdirs;
	o.max_spill = ro->max_spill;
	o.threads = ro->threads;
	core_mem_init(&mem, ro->memory ? ro->memory : CORE_MEM_UNLIMITED);
	memset(out, 0, sizeof(*out));
	out->ds = ds;
	out->contents_ok = true;
	out->max_rows = ro->batch_rows ? ro->batch_rows : 8192;
	s = core_sort_new(&o, ds->schema, &mem);
	core_batch_init(&b, ds->schema);
	while (at < ds->n && rc == 0) {
		uint32_t n = (uint32_t)(1 + rnd() % (rnd() % 4 ? 3000 : 17));

		if (n > ds->n - at)
			n = (uint32_t)(ds->n - at);
		fill_batch(&b, ds->rows + at, n);
		if (ro->size_pct != 0)
			core_sort_input(s, (at + n) * ro->row_size,
			    ds->n * ro->row_size * ro->size_pct / 100);
		rc = core_sort_add(s, &b, err);
		at += n;
	}
	if (rc == 0)
		rc = core_sort_finish(s, collect_emit, out, err);
	core_sort_get_stats(s, st);
	core_batch_release(&b);
	core_sort_free(s);
	if (rc == 0 && mem.used != 0) {
		printf("# %llu bytes still charged after free\n",
		    (unsigned long long)mem.used);
		rc = CORE_EINTERNAL;
	}
	return rc;
}

/* Runs one case and checks contents, order and identity separately. */
static bool
check_case(const struct dataset *ds, const struct core_sort_key *keys,
    size_t nkeys, const struct run_opts *ro, const char *what)
{
	struct core_err err = { 0, "" };
	struct core_sort_stats st;
	struct collect out;
	size_t nref, i;
	size_t *ref = reference(ds, keys, nkeys, ro->unique, ro->has_limit,
	    ro->limit, &nref);
	bool ok = true, *seen;
	int rc = run_sort(ds, keys, nkeys, ro, &out, &st, &err);

	if (rc != 0) {
		printf("# %s: sort failed: %s\n", what, err.msg);
		free(ref);
		free(out.ids);
		return false;
	}
	/* Contents: rows intact, none twice, the right count. */
	seen = core_xcalloc(ds->n + 1, 1);
	for (i = 0; i < out.n; i++) {
		if (seen[out.ids[i]])
			out.contents_ok = false;
		seen[out.ids[i]] = true;
	}
	free(seen);
	if (!out.contents_ok || out.n != nref) {
		printf("# %s: contents: %zu rows out, want %zu%s\n", what,
		    out.n, nref, out.contents_ok ? "" : ", rows damaged");
		ok = false;
	}
	/* Order, judged by the reference comparison alone. */
	ref_keys = keys;
	ref_nkeys = nkeys;
	for (i = 1; i < out.n && ok; i++)
		if (ref_cmp_keys(&ds->rows[out.ids[i - 1]],
		    &ds->rows[out.ids[i]]) > 0) {
			printf("# %s: order: output row %zu > row %zu\n", what,
			    i - 1, i);
			ok = false;
		}
	/* Identity with the stable reference. */
	for (i = 0; i < out.n && i < nref && ok; i++)
		if ((size_t)out.ids[i] != ref[i]) {
			printf("# %s: output row %zu is input row %lld, the "
			    "stable order has %zu\n", what, i,
			    (long long)out.ids[i], ref[i]);
			ok = false;
		}
	if (!ok)
		printf("# %s: runs %llu, passes %llu\n", what,
		    (unsigned long long)st.runs,
		    (unsigned long long)st.merge_passes);
	free(ref);
	free(out.ids);
	return ok;
}

static struct core_sort_key
K(uint32_t col, bool desc, bool nulls_first)
{
	struct core_sort_key k = { col, desc, nulls_first };

	return k;
}

/* ---- tests ---- */

/* The key words agree with core_sort_compare on random pairs. */
static void
test_words_agree(void)
{
	struct dataset ds = make_data(3000, 6, false);
	struct core_batch b;
	struct core_sort_plan plan;
	uint64_t *w;
	uint32_t col;
	int dir, i;

	core_batch_init(&b, ds.schema);
	fill_batch(&b, ds.rows, 3000);
	w = core_xmalloc(3000 * 8);
	for (col = C_B; col < NCOLS; col++)
		for (dir = 0; dir < 4; dir++) {
			struct core_sort_key k = K(col, dir & 1, dir >> 1);
			int bad = 0;

			core_sort_plan_init(&plan, &k, 1, ds.schema);
			core_sort_encode(&plan, &b, w, 1);
			for (i = 0; i < 20000; i++) {
				uint32_t x = (uint32_t)(rnd() % 3000);
				uint32_t y = (uint32_t)(rnd() % 3000);
				int c1 = core_sort_compare(&k, 1, &b, x, &b, y);
				int c2 = core_sort_cmp(&plan, w + x, w + y, &b,
				    x, &b, y);
				int c3;

				ref_keys = &k;
				ref_nkeys = 1;
				c3 = ref_cmp_keys(&ds.rows[x], &ds.rows[y]);
				if ((c1 > 0) != (c2 > 0) ||
				    (c1 < 0) != (c2 < 0) ||
				    (c1 > 0) != (c3 > 0) ||
				    (c1 < 0) != (c3 < 0))
					bad++;
				/* A word may tie on unequal keys, never
				 * order them wrongly. */
				if ((w[x] < w[y] && c1 > 0) ||
				    (w[x] > w[y] && c1 < 0))
					bad++;
			}
			if (bad)
				printf("# column %u dir %d: %d disagreements\n",
				    col, dir, bad);
			CHECK(bad == 0);
		}
	free(w);
	core_batch_release(&b);
	free_data(&ds);
}

static void
test_key_parse(void)
{
	struct core_schema *s = make_schema();
	struct core_err err = { 0, "" };
	struct core_sort_key k;

	core_schema_set(s, C_TS, "odd:name", s->fields[C_TS].type);
	CHECK_EQ_INT(core_sort_key_parse("i32", s, &k, &err), 0);
	CHECK(k.col == C_I32 && !k.desc && !k.nulls_first);
	CHECK_EQ_INT(core_sort_key_parse("s:desc", s, &k, &err), 0);
	CHECK(k.col == C_S && k.desc && !k.nulls_first);
	CHECK_EQ_INT(core_sort_key_parse("f:nulls-first:desc", s, &k, &err),
	    0);
	CHECK(k.col == C_F && k.desc && k.nulls_first);
	CHECK_EQ_INT(core_sort_key_parse("d:asc:nulls-last", s, &k, &err),
	    0);
	CHECK(k.col == C_D && !k.desc && !k.nulls_first);
	CHECK_EQ_INT(core_sort_key_parse("odd:name:desc", s, &k, &err), 0);
	CHECK(k.col == C_TS && k.desc);
	CHECK_EQ_INT(core_sort_key_parse("nope", s, &k, &err), CORE_EUSAGE);
	CHECK(strstr(err.msg, "nope") != NULL);
	CHECK_EQ_INT(core_sort_key_parse("s:up", s, &k, &err), CORE_EUSAGE);
	CHECK(strstr(err.msg, "up") != NULL);
	CHECK_EQ_INT(core_sort_key_parse("s:desc:desc", s, &k, &err),
	    CORE_EUSAGE);
	CHECK_EQ_INT(core_sort_key_parse("f:NULLS-FIRST:Desc", s, &k, &err),
	    0);
	CHECK(k.col == C_F && k.desc && k.nulls_first);
	CHECK_EQ_INT(core_sort_key_parse("I32", s, &k, &err), CORE_EUSAGE);
	CHECK(strstr(err.msg, "did you mean 'i32'?") != NULL);
	CHECK_EQ_INT(core_sort_key_parse("2,2nr", s, &k, &err), CORE_EUSAGE);
	CHECK(strstr(err.msg, ":desc") != NULL);
	core_schema_free(s);
}

/* Every type alone, both directions, both NULL placements. */
static void
test_single_keys(void)
{
	struct dataset dup = make_data(7000, 5, false);
	struct dataset wide = make_data(7000, 0, false);
	struct run_opts ro = { 0 };
	uint32_t col;
	int dir;
	char what[64];

	for (col = C_B; col < NCOLS; col++)
		for (dir = 0; dir < 4; dir++) {
			struct core_sort_key k = K(col, dir & 1, dir >> 1);

			snprintf(what, sizeof(what), "col %u dir %d", col, dir);
			ro.memory = dir == 3 ? 300 << 10 : 0;
			CHECK(check_case(&dup, &k, 1, &ro, what));
			CHECK(check_case(&wide, &k, 1, &ro, what));
		}
	free_data(&dup);
	free_data(&wide);
}

static const struct core_sort_key multi1[] = {
	{ C_B, true, false }, { C_S, false, true }, { C_I64, true, false },
};
static const struct core_sort_key multi2[] = {
	{ C_D, false, false }, { C_W, true, false }, { C_S, false, false },
	{ C_DEC, false, true }, { C_F, true, false },
};
/* More keys than prefix words: the rest compare in full. */
static const struct core_sort_key multi3[] = {
	{ C_B, false, false }, { C_I32, false, true }, { C_D, true, false },
	{ C_S, true, true }, { C_I64, true, false }, { C_TS, false, false },
};

/* A long string first, then a key of few digits (so the radix sort
 * runs): rows whose prefix words tie must still be ordered by the whole
 * string before the key after it. */
static const struct core_sort_key multi4[] = {
	{ C_S, false, false }, { C_B, true, false },
};

static void
test_multi_keys(void)
{
	struct dataset ds = make_data(20000, 4, false);
	struct run_opts ro = { 0 };

	CHECK(check_case(&ds, multi1, 3, &ro, "multi1"));
	CHECK(check_case(&ds, multi2, 5, &ro, "multi2"));
	CHECK(check_case(&ds, multi3, 6, &ro, "multi3"));
	CHECK(check_case(&ds, multi4, 2, &ro, "multi4"));
	ro.memory = 1 << 20;
	CHECK(check_case(&ds, multi4, 2, &ro, "multi4 1M"));
	CHECK(check_case(&ds, multi1, 3, &ro, "multi1 1M"));
	CHECK(check_case(&ds, multi2, 5, &ro, "multi2 1M"));
	CHECK(check_case(&ds, multi3, 6, &ro, "multi3 1M"));
	free_data(&ds);
}

/* Already sorted, reverse sorted and all-equal inputs. */
static void
test_presorted(void)
{
	struct dataset ds = make_data(30000, 50, false);
	struct dataset same = make_data(30000, 0, true);
	struct run_opts ro = { 0 };
	struct trow *tmp;
	size_t n, i, *idx;
	uint64_t mem[] = { 0, 512 << 10 };
	int m;

	idx = reference(&ds, multi2, 4, false, false, 0, &n);
	tmp = core_xmalloc(n * sizeof(*tmp));
	for (i = 0; i < n; i++)
		tmp[i] = ds.rows[idx[i]];
	for (i = 0; i < n; i++) {
		ds.rows[i] = tmp[i];
		ds.rows[i].id = (int64_t)i;
	}
	for (m = 0; m < 2; m++) {
		ro.memory = mem[m];
		CHECK(check_case(&ds, multi2, 4, &ro, "sorted"));
		CHECK(check_case(&same, multi2, 4, &ro, "all equal"));
		CHECK(check_case(&same, multi3, 6, &ro, "all equal, 6 keys"));
	}
	for (i = 0; i < n; i++) {
		ds.rows[i] = tmp[n - 1 - i];
		ds.rows[i].id = (int64_t)i;
	}
	for (m = 0; m < 2; m++) {
		ro.memory = mem[m];
		CHECK(check_case(&ds, multi2, 4, &ro, "reverse sorted"));
	}
	free(tmp);
	free(idx);
	free_data(&ds);
	free_data(&same);
}

/* Buffers of more entries than RADIX_PAIR_MIN (65536) are radix sorted
 * by both threads, each scattering half of them: the same stable order
 * as the reference, for keys of few and of many live digits, with NULLs,
 * ties on the prefix words and both directions, in memory and in runs. */
static void
test_radix_threads(void)
{
	struct dataset wide = make_data(140001, 0, false);
	struct dataset dup = make_data(100003, 300, false);
	static const struct core_sort_key one[][1] = {
		{ { C_I64, false, false } }, { { C_D, true, true } },
		{ { C_DEC, false, true } }, { { C_TS, true, false } },
	};
	struct run_opts ro = { 0 };
	unsigned m, i;
	char what[64];

	ro.threads = 2;
	for (m = 0; m < 2; m++) {
		ro.memory = m ? 24 << 20 : 0;
		for (i = 0; i < sizeof(one) / sizeof(one[0]); i++) {
			snprintf(what, sizeof(what), "radix key %u, %s", i,
			    m ? "24M" : "in memory");
			CHECK(check_case(&wide, one[i], 1, &ro, what));
			CHECK(check_case(&dup, one[i], 1, &ro, what));
		}
		snprintf(what, sizeof(what), "radix multi, %s",
		    m ? "24M" : "in memory");
		CHECK(check_case(&dup, multi2, 4, &ro, what));
		CHECK(check_case(&wide, multi1, 3, &ro, what));
	}
	free_data(&wide);
	free_data(&dup);
}

/* The peak charge stays within the budget (an eighth over for the
 * smallest, where one row or frame must be held whatever it costs). */
static void
check_peak(uint64_t budget, const struct core_sort_stats *st,
    const char *what)
{
	if (budget != 0 && st->peak_mem > budget + budget / 8)
		printf("# budget %llu%s: peak charge %llu\n",
		    (unsigned long long)budget, what,
		    (unsigned long long)st->peak_mem);
	if (budget >= (1 << 20))
		CHECK(st->peak_mem <= budget + budget / 8);
}

/* The same answer at every budget, with spills and multi-pass merges
 * at the small end.  Two threads whatever the machine has, so that the
 * last merge reads frames ahead on the second (where the budget has
 * room for one). */
static void
test_budget_sweep(void)
{
	static const uint64_t budgets[] = { 256 << 10, 512 << 10, 800 << 10,
	    1 << 20, 2 << 20, 3 << 20, 5 << 20, 8 << 20, 16 << 20, 0 };
	struct dataset ds = make_data(120000, 1000, false);
	struct run_opts ro = { 0 };
	bool spilled = false, multipass = false;
	char what[64];
	size_t i;

	ro.threads = 2;
	for (i = 0; i < sizeof(budgets) / sizeof(budgets[0]); i++) {
		struct core_err err = { 0, "" };
		struct core_sort_stats st;
		struct collect out;

		ro.memory = budgets[i];
		snprintf(what, sizeof(what), "budget %llu",
		    (unsigned long long)budgets[i]);
		CHECK(check_case(&ds, multi1, 3, &ro, what));
		ro.compress = i % 2 == 1;
		CHECK(check_case(&ds, multi2, 4, &ro, what));
		ro.compress = false;
		CHECK_EQ_INT(run_sort(&ds, multi2, 4, &ro, &out, &st, &err),
		    0);
		free(out.ids);
		if (st.runs > 1)
			spilled = true;
		if (st.merge_passes > 1)
			multipass = true;
		check_peak(budgets[i], &st, "");
		if (budgets[i] == 0)
			CHECK(st.runs == 0);
		/* Compressed runs: each merge frame holds a compressed
		 * body and what it expands to; still within budget. */
		ro.compress = true;
		CHECK_EQ_INT(run_sort(&ds, multi2, 4, &ro, &out, &st, &err),
		    0);
		free(out.ids);
		ro.compress = false;
		check_peak(budgets[i], &st, " compressed");
	}
	CHECK(spilled);
	CHECK(multipass);
	free_data(&ds);
}

/* With the input's size known, only what must be spilled is: the same
 * rows in the same order, fewer bytes written; a wrong size changes
 * neither the answer nor the budget. */
static void
test_input_size(void)
{
	static const unsigned pcts[] = { 100, 30, 90, 110, 300 };
	static const uint64_t budgets[] = { 1 << 20, 3 << 20, 5 << 20 };
	struct dataset ds;
	struct core_err err = { 0, "" };
	struct core_sort_stats st, st0;
	struct run_opts ro = { 0 };
	struct collect out;
	char what[64];
	size_t i, j;

	data_wide = false;
	ds = make_data(60000, 1000, false);
	data_wide = true;
	ro.row_size = 40;
	for (i = 0; i < sizeof(budgets) / sizeof(budgets[0]); i++) {
		ro.memory = budgets[i];
		ro.size_pct = 0;
		CHECK_EQ_INT(run_sort(&ds, multi1, 3, &ro, &out, &st0, &err),
		    0);
		free(out.ids);
		for (j = 0; j < sizeof(pcts) / sizeof(pcts[0]); j++) {
			ro.size_pct = pcts[j];
			snprintf(what, sizeof(what), "budget %llu, size %u%%",
			    (unsigned long long)budgets[i], pcts[j]);
			CHECK(check_case(&ds, multi1, 3, &ro, what));
			CHECK_EQ_INT(run_sort(&ds, multi1, 3, &ro, &out, &st,
			    &err), 0);
			free(out.ids);
			check_peak(budgets[i], &st, " with a size");
			/* Batch sizes are random per call, so only the
			 * two-run case has a sure margin. */
			if (pcts[j] == 100 && st0.runs == 2) {
				if (st.spill_bytes >= st0.spill_bytes)
					printf("# %s: spilled %llu, %llu "
					    "without a size\n", what,
					    (unsigned long long)st.spill_bytes,
					    (unsigned long long)
					    st0.spill_bytes);
				CHECK(st.spill_bytes < st0.spill_bytes);
			}
		}
	}
	free_data(&ds);
}

static void
test_unique_limit(void)
{
	struct dataset ds = make_data(40000, 30, false);
	struct run_opts ro = { 0 };
	uint64_t limits[] = { 0, 1, 7, 5000, 39999, 40000, 100000 };
	size_t i;
	char what[64];

	ro.unique = true;
	CHECK(check_case(&ds, multi1, 3, &ro, "unique"));
	ro.memory = 300 << 10;
	CHECK(check_case(&ds, multi1, 3, &ro, "unique 300K"));
	CHECK(check_case(&ds, multi3, 6, &ro, "unique 300K 6 keys"));
	ro.unique = false;
	/* Top-N holds O(N) rows, not the input. */
	{
		struct core_err err = { 0, "" };
		struct core_sort_stats st1, st2;
		struct collect out;

		ro.memory = 0;
		CHECK_EQ_INT(run_sort(&ds, multi2, 4, &ro, &out, &st1, &err),
		    0);
		free(out.ids);
		ro.has_limit = true;
		ro.limit = 7;
		CHECK_EQ_INT(run_sort(&ds, multi2, 4, &ro, &out, &st2, &err),
		    0);
		free(out.ids);
		CHECK_EQ_INT(out.n, 7);
		CHECK(st2.peak_mem < st1.peak_mem / 2);
	}
	for (i = 0; i < sizeof(limits) / sizeof(limits[0]); i++) {
		ro.has_limit = true;
		ro.limit = limits[i];
		ro.memory = i % 2 ? 0 : 400 << 10;
		snprintf(what, sizeof(what), "limit %llu",
		    (unsigned long long)limits[i]);
		CHECK(check_case(&ds, multi2, 4, &ro, what));
		ro.unique = true;
		CHECK(check_case(&ds, multi1, 3, &ro, what));
		ro.unique = false;
	}
	free_data(&ds);
}

/* Small output frames, several tmpdirs, compression, the spill cap. */
static void
test_spill_options(void)
{
	struct dataset ds = make_data(50000, 100, false);
	const char *dirs[] = { "/tmp", "/tmp", "." };
	struct core_err err = { 0, "" };
	struct core_sort_stats st;
	struct run_opts ro = { 0 };
	struct collect out;

	ro.memory = 600 << 10;
	ro.batch_rows = 100;
	ro.tmpdirs = dirs;
	ro.ntmpdirs = 3;
	ro.compress = true;
	CHECK(check_case(&ds, multi1, 3, &ro, "tmpdirs + compress"));
	ro.batch_rows = 1;
	ro.memory = 2 << 20;
	CHECK(check_case(&ds, multi2, 4, &ro, "one-row frames"));
	ro.batch_rows = 0;
	ro.compress = false;
	ro.max_spill = 100000;
	CHECK_EQ_INT(run_sort(&ds, multi1, 3, &ro, &out, &st, &err),
	    CORE_ELIMIT);
	CHECK(strstr(err.msg, "spill limit of 100000 bytes") != NULL);
	free(out.ids);
	ro.max_spill = 1ull << 40;
	CHECK(check_case(&ds, multi1, 3, &ro, "max-spill not reached"));
	free_data(&ds);
}

static void
test_check(void)
{
	struct dataset ds = make_data(10000, 20, false);
	struct core_sort_check *c;
	struct core_batch b;
	struct trow t;
	uint64_t bad = 0;
	size_t n, i, *idx;
	struct trow *sorted;
	uint32_t at;
	int rc = 0;

	idx = reference(&ds, multi1, 3, false, false, 0, &n);
	sorted = core_xmalloc(n * sizeof(*sorted));
	for (i = 0; i < n; i++)
		sorted[i] = ds.rows[idx[i]];
	core_batch_init(&b, ds.schema);
	/* Sorted, fed in uneven batches: no disorder. */
	c = core_sort_check_new(multi1, 3, ds.schema, false);
	for (at = 0; at < n && rc == 0; at += 777) {
		fill_batch(&b, sorted + at, n - at < 777 ? (uint32_t)(n - at) :
		    777);
		rc = core_sort_check_batch(c, &b, &bad);
	}
	CHECK_EQ_INT(rc, 0);
	core_sort_check_free(c);
	/* Strict (--unique): equal neighbours are a disorder. */
	c = core_sort_check_new(multi1, 3, ds.schema, true);
	fill_batch(&b, sorted, (uint32_t)n);
	CHECK_EQ_INT(core_sort_check_batch(c, &b, &bad), 1);
	core_sort_check_free(c);
	/* Swap two neighbours across a batch boundary (777 / 778). */
	for (i = 777; i < n; i++)
		if (ref_cmp_keys(&sorted[i - 1], &sorted[i]) < 0)
			break;
	t = sorted[i];
	sorted[i] = sorted[i - 1];
	sorted[i - 1] = t;
	c = core_sort_check_new(multi1, 3, ds.schema, false);
	rc = 0;
	for (at = 0; at < n && rc == 0; at += 777) {
		fill_batch(&b, sorted + at, n - at < 777 ? (uint32_t)(n - at) :
		    777);
		rc = core_sort_check_batch(c, &b, &bad);
	}
	CHECK_EQ_INT(rc, 1);
	CHECK_EQ_INT(bad, i);
	core_sort_check_free(c);
	core_batch_release(&b);
	free(sorted);
	free(idx);
	free_data(&ds);
}

int
main(void)
{
	RUN(test_key_parse);
	RUN(test_words_agree);
	RUN(test_single_keys);
	RUN(test_multi_keys);
	RUN(test_presorted);
	RUN(test_radix_threads);
	RUN(test_budget_sweep);
	RUN(test_input_size);
	RUN(test_unique_limit);
	RUN(test_spill_options);
	RUN(test_check);
	return unit_done();
}
