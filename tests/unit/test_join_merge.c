/*
 * test_join_merge.c - core_join_merge against a nested-loop reference.
 *
 * Each side is a list of model rows (key values, an id, a string
 * payload) sorted here by the side's own key types, NULLs last, then cut
 * into batches of random lengths (0, 1, 2, 3, 17, 4095, 4096, 4097) that
 * the input frees on its next call, so a row held past its batch's life
 * is a use after free under ASan.  The reference joins the model rows
 * with two nested loops and an equality written out per type pair (exact
 * values scaled to 10^-18, dates as microseconds); both answers become
 * one string per row, sorted, and must be equal as multisets.
 *
 * Key types: int64, two keys (int64, int32), strings (with empty ones
 * and prefixes), decimal(10,2) with decimal(8,1), int32 with int64, date
 * with timestamp, float64 with -0, +0 and NaN; every join type, NULL
 * keys, empty sides, one row, duplicates, one giant key under a tiny
 * budget (spilled).  Then inputs out of order on either side, and the
 * null-aware anti join's cases.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core_alloc.h"
#include "core_col.h"
#include "core_join.h"
#include "core_mem.h"
#include "unit.h"

enum kind {
	K_INT,
	K_TWO,
	K_STR,
	K_DEC,
	K_I32_I64,
	K_DATE_TS,
	K_FLOAT,
	K_NKINDS,
};

static const char *kind_names[] = {
	"int64", "int64+int32", "string", "decimal(10,2)=decimal(8,1)",
	"int32=int64", "date=timestamp", "float64",
};

#define MAXK 2

struct mrow {
	int64_t k[MAXK];
	double f[MAXK];
	bool null[MAXK];
	char s[MAXK][4];
	uint8_t slen[MAXK];
	int64_t id;
	char pay[12];
	uint8_t paylen;
};

struct side {
	struct core_schema *schema;
	struct core_coltype kt[MAXK];
	uint32_t nkeys;
	struct mrow *rows;
	size_t n;
};

static const uint32_t batch_lens[] = { 0, 1, 2, 3, 17, 4095, 4096, 4097 };
#define NLENS (sizeof(batch_lens) / sizeof(batch_lens[0]))

static struct core_coltype
ty(enum core_type id, int p, int s)
{
	struct core_coltype t;

	memset(&t, 0, sizeof(t));
	t.id = id;
	t.precision = (uint8_t)p;
	t.scale = (uint8_t)s;
	return t;
}

/* The key types of each side for a kind. */
static void
kind_types(enum kind k, int sd, struct core_coltype *kt, uint32_t *nkeys)
{
	*nkeys = 1;
	switch (k) {
	case K_INT:
		kt[0] = ty(CORE_TYPE_INT64, 0, 0);
		break;
	case K_TWO:
		*nkeys = 2;
		kt[0] = ty(CORE_TYPE_INT64, 0, 0);
		kt[1] = ty(CORE_TYPE_INT32, 0, 0);
		break;
	case K_STR:
		kt[0] = ty(CORE_TYPE_STRING, 0, 0);
		break;
	case K_DEC:
		kt[0] = sd ? ty(CORE_TYPE_DECIMAL, 8, 1) :
		    ty(CORE_TYPE_DECIMAL, 10, 2);
		break;
	case K_I32_I64:
		kt[0] = sd ? ty(CORE_TYPE_INT64, 0, 0) :
		    ty(CORE_TYPE_INT32, 0, 0);
		break;
	case K_DATE_TS:
		kt[0] = sd ? ty(CORE_TYPE_TIMESTAMP, 0, 0) :
		    ty(CORE_TYPE_DATE, 0, 0);
		break;
	default:
		kt[0] = ty(CORE_TYPE_FLOAT64, 0, 0);
		break;
	}
}

static void
side_init(struct side *s, enum kind k, int sd)
{
	static const char *names[2][4] = {
		{ "a", "b", "lid", "lp" }, { "x", "y", "rid", "rp" },
	};
	uint32_t i;

	memset(s, 0, sizeof(*s));
	kind_types(k, sd, s->kt, &s->nkeys);
	s->schema = core_schema_new(s->nkeys + 2);
	for (i = 0; i < s->nkeys; i++)
		core_schema_set(s->schema, i, names[sd][i], s->kt[i]);
	core_schema_set(s->schema, i, names[sd][2], ty(CORE_TYPE_INT64, 0, 0));
	core_schema_set(s->schema, i + 1, names[sd][3],
	    ty(CORE_TYPE_STRING, 0, 0));
}

static void
side_free(struct side *s)
{
	core_schema_free(s->schema);
	free(s->rows);
}

static struct mrow *
side_add(struct side *s)
{
	struct mrow *r;

	s->rows = realloc(s->rows, (s->n + 1) * sizeof(*s->rows));
	if (s->rows == NULL)
		abort();
	r = &s->rows[s->n];
	memset(r, 0, sizeof(*r));
	r->id = (int64_t)s->n;
	r->paylen = (uint8_t)(unit_rand() % 11);
	for (int i = 0; i < r->paylen; i++)
		r->pay[i] = (char)('a' + unit_rand() % 26);
	s->n++;
	return r;
}

static const double special[] = { -0.0, 0.0, NAN, -1.5, 2.0, INFINITY,
    -INFINITY, 3.25 };

/* A random key value of key i for kind k on side sd over about d
 * distinct values. */
static void
gen_key(struct mrow *r, enum kind k, int sd, uint32_t i, int64_t d,
    int nullpct)
{
	int64_t u = (int64_t)(unit_rand() % (uint64_t)d) - d / 2;

	if ((int)(unit_rand() % 100) < nullpct) {
		r->null[i] = true;
		return;
	}
	switch (k) {
	case K_STR:
		r->slen[i] = (uint8_t)(unit_rand() % 4);
		for (int j = 0; j < r->slen[i]; j++)
			r->s[i][j] = (char)('a' + unit_rand() % 2);
		break;
	case K_DEC:
		/* left has hundredths: some match a right tenth, some
		 * cannot */
		r->k[i] = sd ? u : u * 10 + (unit_rand() % 3 == 0 ?
		    (int64_t)(unit_rand() % 10) : 0);
		break;
	case K_I32_I64:
		r->k[i] = sd && unit_rand() % 5 == 0 ? u + (1LL << 33) : u;
		break;
	case K_DATE_TS:
		r->k[i] = sd ? u * 86400000000LL + (unit_rand() % 3 == 0 ?
		    (int64_t)(unit_rand() % 1000) : 0) : u;
		break;
	case K_FLOAT:
		r->f[i] = unit_rand() % 2 ? special[unit_rand() % 8] :
		    (double)u / 2;
		break;
	default:
		r->k[i] = u;
		break;
	}
}

/* ---- the model's order and equality ---- */

static const struct side *sort_side;

static int
cmp_float(double a, double b)
{
	if (isnan(a) || isnan(b))
		return (int)isnan(a) - (int)isnan(b);
	return (a > b) - (a < b);
}

static int
cmp_val(const struct side *s, const struct mrow *a, const struct mrow *b,
    uint32_t i)
{
	size_t n;
	int c;

	if (a->null[i] || b->null[i])
		return (int)a->null[i] - (int)b->null[i];
	switch (s->kt[i].id) {
	case CORE_TYPE_STRING:
		n = a->slen[i] < b->slen[i] ? a->slen[i] : b->slen[i];
		c = memcmp(a->s[i], b->s[i], n);
		return c ? c : (int)a->slen[i] - (int)b->slen[i];
	case CORE_TYPE_FLOAT64:
		return cmp_float(a->f[i], b->f[i]);
	default:
		return (a->k[i] > b->k[i]) - (a->k[i] < b->k[i]);
	}
}

static int
cmp_rows(const void *pa, const void *pb)
{
	const struct mrow *a = pa, *b = pb;
	uint32_t i;
	int c;

	for (i = 0; i < sort_side->nkeys; i++)
		if ((c = cmp_val(sort_side, a, b, i)) != 0)
			return c;
	return (a->id > b->id) - (a->id < b->id);
}

static void
side_sort(struct side *s)
{
	sort_side = s;
	if (s->n > 0)
		qsort(s->rows, s->n, sizeof(*s->rows), cmp_rows);
}

/* An exact number in units of 10^-18 (or microseconds for times). */
static __int128
exact(struct core_coltype t, int64_t v)
{
	static const int64_t p10[] = { 1, 10, 100, 1000, 10000, 100000,
	    1000000, 10000000, 100000000, 1000000000, 10000000000,
	    100000000000, 1000000000000, 10000000000000, 100000000000000,
	    1000000000000000, 10000000000000000, 100000000000000000,
	    1000000000000000000 };

	switch (t.id) {
	case CORE_TYPE_DATE:
		return (__int128)v * 86400000000LL;
	case CORE_TYPE_TIMESTAMP:
		return v;
	case CORE_TYPE_DECIMAL:
		return (__int128)v * p10[18 - t.scale];
	default:
		return (__int128)v * p10[18];
	}
}

static bool
key_null(const struct side *s, const struct mrow *r)
{
	for (uint32_t i = 0; i < s->nkeys; i++)
		if (r->null[i])
			return true;
	return false;
}

static bool
keys_equal(const struct side *l, const struct mrow *a, const struct side *r,
    const struct mrow *b)
{
	for (uint32_t i = 0; i < l->nkeys; i++) {
		if (a->null[i] || b->null[i])
			return false;
		switch (l->kt[i].id) {
		case CORE_TYPE_STRING:
			if (a->slen[i] != b->slen[i] ||
			    memcmp(a->s[i], b->s[i], a->slen[i]) != 0)
				return false;
			break;
		case CORE_TYPE_FLOAT64:
			if (cmp_float(a->f[i], b->f[i]) != 0)
				return false;
			break;
		default:
			if (exact(l->kt[i], a->k[i]) !=
			    exact(r->kt[i], b->k[i]))
				return false;
		}
	}
	return true;
}

/* ---- canonical rows ---- */

struct rows {
	char **v;
	size_t n, cap;
};

static void
rows_add(struct rows *rs, const char *s)
{
	if (rs->n == rs->cap) {
		rs->cap = rs->cap ? rs->cap * 2 : 256;
		rs->v = realloc(rs->v, rs->cap * sizeof(*rs->v));
		if (rs->v == NULL)
			abort();
	}
	rs->v[rs->n++] = core_xstrdup(s);
}

static void
rows_free(struct rows *rs)
{
	for (size_t i = 0; i < rs->n; i++)
		free(rs->v[i]);
	free(rs->v);
	memset(rs, 0, sizeof(*rs));
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
fmt_num(struct unit_buf *b, long long v)
{
	char t[32];

	snprintf(t, sizeof(t), "%lld", v);
	unit_buf_str(b, t);
}

static void
fmt_float(struct unit_buf *b, double d)
{
	char t[64];

	/* -0 and +0 are one key but two values: the output keeps them
	 * apart. */
	snprintf(t, sizeof(t), "%a", d);
	unit_buf_str(b, isnan(d) ? "nan" : t);
}

/* The model's value of column col of a side's row (NULL row: r NULL). */
static void
fmt_model(struct unit_buf *b, const struct side *s, const struct mrow *r,
    uint32_t col)
{
	if (r == NULL || (col < s->nkeys && r->null[col])) {
		unit_buf_str(b, "\\N");
	} else if (col < s->nkeys) {
		if (s->kt[col].id == CORE_TYPE_STRING)
			unit_buf_add(b, r->s[col], r->slen[col]);
		else if (s->kt[col].id == CORE_TYPE_FLOAT64)
			fmt_float(b, r->f[col]);
		else
			fmt_num(b, r->k[col]);
	} else if (col == s->nkeys) {
		fmt_num(b, r->id);
	} else {
		unit_buf_add(b, r->pay, r->paylen);
	}
	unit_buf_ch(b, '|');
}

static void
fmt_batch(struct unit_buf *b, const struct core_batch *bt, uint32_t col,
    uint32_t row)
{
	const struct core_column *c = &bt->cols[col];

	if (!core_col_is_valid(c, row)) {
		unit_buf_str(b, "\\N");
	} else {
		switch (c->type.id) {
		case CORE_TYPE_STRING:
			unit_buf_add(b, (const char *)c->values +
			    c->offsets[row], (size_t)(c->offsets[row + 1] -
			    c->offsets[row]));
			break;
		case CORE_TYPE_FLOAT64:
			fmt_float(b, ((const double *)c->values)[row]);
			break;
		case CORE_TYPE_BOOL:
			fmt_num(b, ((const uint8_t *)c->values)[row]);
			break;
		case CORE_TYPE_INT32:
		case CORE_TYPE_DATE:
			fmt_num(b, ((const int32_t *)c->values)[row]);
			break;
		default:
			fmt_num(b, ((const int64_t *)c->values)[row]);
			break;
		}
	}
	unit_buf_ch(b, '|');
}

/* ---- inputs ---- */

struct input {
	const struct side *s;
	size_t pos;
	struct core_batch cur;		/* owned; freed on the next call */
	bool fixed;			/* every batch fixed_len rows */
	uint32_t fixed_len;
	uint64_t rng;
};

static uint32_t
input_len(struct input *in)
{
	if (in->fixed)
		return in->fixed_len;
	in->rng ^= in->rng << 13;
	in->rng ^= in->rng >> 7;
	in->rng ^= in->rng << 17;
	return batch_lens[in->rng % NLENS];
}

static void
fill_batch(struct core_batch *b, const struct side *s, size_t from,
    uint32_t n)
{
	uint32_t i, c;
	size_t bytes = 0;

	core_batch_init(b, s->schema);
	for (i = 0; i < n; i++)
		bytes += 11 + 4;
	core_batch_reserve(b, n, bytes);
	for (c = 0; c < s->schema->ncols; c++) {
		struct core_column *col = &b->cols[c];
		int32_t off = 0;

		for (i = 0; i < n; i++) {
			const struct mrow *r = &s->rows[from + i];
			bool null = c < s->nkeys && r->null[c];
			const char *str = NULL;
			int32_t len = 0;

			if (null)
				core_col_set_null(col, i, n);
			switch (col->type.id) {
			case CORE_TYPE_STRING:
				if (c < s->nkeys && !null) {
					str = r->s[c];
					len = r->slen[c];
				} else if (c == s->nkeys + 1) {
					str = r->pay;
					len = r->paylen;
				}
				if (len > 0)
					memcpy((char *)col->values + off, str,
					    (size_t)len);
				off += len;
				col->offsets[i + 1] = off;
				break;
			case CORE_TYPE_FLOAT64:
				((double *)col->values)[i] = null ? 0 :
				    r->f[c];
				break;
			case CORE_TYPE_INT32:
			case CORE_TYPE_DATE:
				((int32_t *)col->values)[i] = null ? 0 :
				    (int32_t)r->k[c];
				break;
			default:
				((int64_t *)col->values)[i] = null ? 0 :
				    c == s->nkeys ? r->id : r->k[c];
				break;
			}
		}
		if (col->type.id == CORE_TYPE_STRING)
			col->offsets[0] = 0;
	}
	b->nrows = n;
}

static int
input_next(void *arg, struct core_batch *b, struct core_err *err)
{
	struct input *in = arg;
	uint32_t n, c;

	(void)err;
	core_batch_release(&in->cur);
	memset(&in->cur, 0, sizeof(in->cur));
	if (in->pos >= in->s->n)
		return CORE_EOF;
	n = input_len(in);
	if (n > in->s->n - in->pos)
		n = (uint32_t)(in->s->n - in->pos);
	fill_batch(&in->cur, in->s, in->pos, n);
	in->pos += n;
	b->nrows = n;
	for (c = 0; c < b->ncols; c++) {
		b->cols[c] = in->cur.cols[c];
		b->cols[c].validity_buf = NULL;
		b->cols[c].validity_cap = 0;
		b->cols[c].values_cap = 0;
		b->cols[c].offsets_cap = 0;
	}
	return 0;
}

/* ---- running ---- */

struct collect {
	const struct core_schema *schema;
	struct rows rows;
	uint32_t most;
	bool bad_batch;
	bool ended;		/* the empty batch that ends the output */
};

static int
collect_emit(void *arg, const struct core_batch *b, struct core_err *err)
{
	struct collect *co = arg;
	struct unit_buf line = { 0 };
	uint32_t r, c;

	(void)err;
	/* Only the last batch is empty, and nothing follows it. */
	if (co->ended || b->nrows > co->most ||
	    b->ncols != co->schema->ncols || core_batch_check(b) != NULL)
		co->bad_batch = true;
	co->ended = b->nrows == 0;
	for (r = 0; r < b->nrows; r++) {
		line.len = 0;
		for (c = 0; c < b->ncols; c++)
			fmt_batch(&line, b, c, r);
		rows_add(&co->rows, line.p ? line.p : "");
	}
	free(line.p);
	return 0;
}

static void
ref_row(struct rows *out, const struct core_join_plan *p,
    const struct side *l, const struct mrow *a, const struct side *r,
    const struct mrow *b)
{
	struct unit_buf line = { 0 };
	uint32_t i;

	for (i = 0; i < p->out->ncols; i++)
		if (p->src[i].side == 0)
			fmt_model(&line, l, a, p->src[i].col);
		else
			fmt_model(&line, r, b, p->src[i].col);
	rows_add(out, line.p ? line.p : "");
	free(line.p);
}

/* The join by two nested loops over the model rows. */
static void
reference(const struct core_join_plan *p, bool null_aware,
    const struct side *l, const struct side *r, struct rows *out)
{
	bool *rmatched = calloc(r->n + 1, 1);
	bool rnull = false;
	size_t i, j;

	for (j = 0; j < r->n; j++)
		rnull |= key_null(r, &r->rows[j]);
	for (i = 0; i < l->n; i++) {
		const struct mrow *a = &l->rows[i];
		size_t nm = 0;

		for (j = 0; j < r->n; j++) {
			if (!keys_equal(l, a, r, &r->rows[j]))
				continue;
			nm++;
			rmatched[j] = true;
			if (p->type != CORE_JOIN_SEMI &&
			    p->type != CORE_JOIN_ANTI)
				ref_row(out, p, l, a, r, &r->rows[j]);
		}
		if (p->type == CORE_JOIN_SEMI && nm > 0)
			ref_row(out, p, l, a, r, NULL);
		if (p->type == CORE_JOIN_ANTI && nm == 0) {
			if (!null_aware)
				ref_row(out, p, l, a, r, NULL);
			else if (key_null(l, a) ? r->n == 0 : !rnull)
				ref_row(out, p, l, a, r, NULL);
		}
		if ((p->type == CORE_JOIN_LEFT || p->type == CORE_JOIN_FULL) &&
		    nm == 0)
			ref_row(out, p, l, a, r, NULL);
	}
	if (p->type == CORE_JOIN_RIGHT || p->type == CORE_JOIN_FULL)
		for (j = 0; j < r->n; j++)
			if (!rmatched[j])
				ref_row(out, p, l, NULL, r, &r->rows[j]);
	free(rmatched);
}

struct run_opts {
	enum core_join_type type;
	bool null_aware, drop_keys;
	uint32_t batch_rows;
	uint64_t memory;		/* 0 = unlimited */
	bool fixed;
	uint32_t fixed_len;
};

/* Runs the merge join of l and r; fills got (may be NULL) and st. */
static int
run_join(const struct side *l, const struct side *r,
    const struct run_opts *ro, struct core_join_plan **planp,
    struct rows *got, struct core_join_stats *st, struct core_err *err,
    bool *bad_batch)
{
	struct core_join_spec spec;
	struct core_join_options o;
	struct core_join_input li, ri;
	struct input lin, rin;
	struct collect co;
	struct core_mem mem;
	int rc;

	memset(&spec, 0, sizeof(spec));
	spec.type = ro->type;
	spec.on = l->nkeys == 2 ? "a=x,b=y" : "a=x";
	spec.drop_right_keys = ro->drop_keys;
	rc = core_join_plan_new(&spec, l->schema, r->schema, planp, err);
	if (rc != 0)
		return rc;
	memset(&o, 0, sizeof(o));
	o.plan = *planp;
	o.null_aware = ro->null_aware;
	o.batch_rows = ro->batch_rows;
	o.threads = unit_rand() % 8 == 0 ? 2 : 1;
	memset(&lin, 0, sizeof(lin));
	memset(&rin, 0, sizeof(rin));
	lin.s = l;
	rin.s = r;
	lin.fixed = rin.fixed = ro->fixed;
	lin.fixed_len = rin.fixed_len = ro->fixed_len;
	lin.rng = unit_rand() | 1;
	rin.rng = unit_rand() | 1;
	li = (struct core_join_input){ l->schema, input_next, &lin, 0 };
	ri = (struct core_join_input){ r->schema, input_next, &rin, 0 };
	memset(&co, 0, sizeof(co));
	co.schema = (*planp)->out;
	co.most = ro->batch_rows ? ro->batch_rows : 8192;
	core_mem_init(&mem, ro->memory ? ro->memory : CORE_MEM_UNLIMITED);
	rc = core_join_merge(&o, &mem, &li, &ri, collect_emit, &co, st, err);
	core_batch_release(&lin.cur);
	core_batch_release(&rin.cur);
	if (rc == 0 && !co.ended) {
		printf("# the output did not end with an empty batch\n");
		co.bad_batch = true;
	}
	if (mem.used != 0 || mem.nparts != 0) {
		printf("# memory left charged: %llu bytes, %u parts\n",
		    (unsigned long long)mem.used, mem.nparts);
		co.bad_batch = true;
	}
	if (bad_batch != NULL)
		*bad_batch = co.bad_batch;
	if (got != NULL)
		*got = co.rows;
	else
		rows_free(&co.rows);
	return rc;
}

/* Runs the join and the reference and compares them; true when equal. */
static bool
check_join(const struct side *l, const struct side *r,
    const struct run_opts *ro, const char *what, struct core_join_stats *stp)
{
	struct core_join_plan *p = NULL;
	struct core_join_stats st;
	struct rows got, want = { 0 };
	struct core_err err;
	bool bad = false, ok = true;
	size_t i;
	int rc;

	memset(&got, 0, sizeof(got));
	rc = run_join(l, r, ro, &p, &got, &st, &err, &bad);
	if (rc != 0) {
		printf("# %s: %s join failed: %d %s\n", what,
		    core_join_type_name(ro->type), rc, err.msg);
		core_join_plan_free(p);
		rows_free(&got);
		return false;
	}
	reference(p, ro->null_aware, l, r, &want);
	if (got.n > 0)
		qsort(got.v, got.n, sizeof(*got.v), cmp_str);
	if (want.n > 0)
		qsort(want.v, want.n, sizeof(*want.v), cmp_str);
	if (bad) {
		printf("# %s: a bad output batch\n", what);
		ok = false;
	}
	if (got.n != want.n) {
		printf("# %s: %s join: %zu rows, want %zu\n", what,
		    core_join_type_name(ro->type), got.n, want.n);
		ok = false;
	}
	for (i = 0; ok && i < got.n; i++)
		if (strcmp(got.v[i], want.v[i]) != 0) {
			printf("# %s: %s join: row %zu is %s, want %s\n", what,
			    core_join_type_name(ro->type), i, got.v[i],
			    want.v[i]);
			ok = false;
		}
	if (st.rows_left != l->n || st.rows_right != r->n ||
	    st.rows_out != want.n) {
		printf("# %s: stats %llu %llu %llu\n", what,
		    (unsigned long long)st.rows_left,
		    (unsigned long long)st.rows_right,
		    (unsigned long long)st.rows_out);
		ok = false;
	}
	if (stp != NULL)
		*stp = st;
	rows_free(&got);
	rows_free(&want);
	core_join_plan_free(p);
	return ok;
}

static void
gen_side(struct side *s, enum kind k, int sd, size_t n, int64_t d,
    int nullpct)
{
	for (size_t i = 0; i < n; i++) {
		struct mrow *r = side_add(s);

		for (uint32_t j = 0; j < s->nkeys; j++)
			gen_key(r, k, sd, j, j == 1 ? 3 : d, nullpct);
	}
	side_sort(s);
}

static const enum core_join_type all_types[] = {
	CORE_JOIN_INNER, CORE_JOIN_LEFT, CORE_JOIN_RIGHT, CORE_JOIN_FULL,
	CORE_JOIN_SEMI, CORE_JOIN_ANTI,
};
static const uint32_t out_rows[] = { 0, 1, 2, 3, 17, 4095, 4096, 4097 };

/* Random inputs of every key kind and size class, every join type. */
static void
test_random(void)
{
	static const size_t sizes[][2] = {
		{ 0, 0 }, { 0, 5 }, { 5, 0 }, { 1, 1 }, { 1, 7 }, { 7, 1 },
		{ 2, 3 }, { 17, 40 }, { 150, 120 }, { 300, 20 }, { 20, 300 },
		{ 4097, 40 }, { 100, 4097 },
	};
	size_t nsizes = sizeof(sizes) / sizeof(sizes[0]);
	int k, failures = 0;

	for (k = 0; k < K_NKINDS; k++)
		for (size_t z = 0; z < nsizes; z++) {
			struct side l, r;
			int64_t d = sizes[z][0] > 1000 ? 3000 :
			    1 + (int64_t)(unit_rand() % 30);
			int nullpct = (int)(unit_rand() % 3) * 8;
			char what[128];

			side_init(&l, (enum kind)k, 0);
			side_init(&r, (enum kind)k, 1);
			gen_side(&l, (enum kind)k, 0, sizes[z][0], d, nullpct);
			gen_side(&r, (enum kind)k, 1, sizes[z][1], d, nullpct);
			snprintf(what, sizeof(what), "%s %zux%zu",
			    kind_names[k], sizes[z][0], sizes[z][1]);
			for (size_t t = 0; t < 6; t++) {
				struct run_opts ro;

				memset(&ro, 0, sizeof(ro));
				ro.type = all_types[t];
				ro.batch_rows = out_rows[unit_rand() % 8];
				ro.drop_keys = unit_rand() % 4 == 0;
				if (!check_join(&l, &r, &ro, what, NULL))
					failures++;
				if (ro.type == CORE_JOIN_ANTI &&
				    l.nkeys == 1) {
					ro.null_aware = true;
					if (!check_join(&l, &r, &ro, what,
					    NULL))
						failures++;
				}
			}
			side_free(&l);
			side_free(&r);
		}
	CHECK_EQ_INT(failures, 0);
}

/* Every fixed batch length on both sides. */
static void
test_batch_lengths(void)
{
	int failures = 0;

	for (size_t b = 1; b < NLENS; b++) {
		struct side l, r;
		struct run_opts ro;

		side_init(&l, K_TWO, 0);
		side_init(&r, K_TWO, 1);
		gen_side(&l, K_TWO, 0, 1200, 400, 5);
		gen_side(&r, K_TWO, 1, 1000, 400, 5);
		memset(&ro, 0, sizeof(ro));
		ro.fixed = true;
		ro.fixed_len = batch_lens[b];
		ro.batch_rows = batch_lens[(b + 3) % NLENS];
		ro.type = CORE_JOIN_FULL;
		if (!check_join(&l, &r, &ro, "fixed lengths", NULL))
			failures++;
		ro.type = CORE_JOIN_SEMI;
		if (!check_join(&l, &r, &ro, "fixed lengths", NULL))
			failures++;
		side_free(&l);
		side_free(&r);
	}
	CHECK_EQ_INT(failures, 0);
}

/* One key with most of the right side, under 128 KiB: spilled, and read
 * back for each run of left rows. */
static void
test_giant_group(void)
{
	int failures = 0;
	int nspilled = 0;

	for (int kd = 0; kd < 2; kd++) {
		enum kind k = kd ? K_STR : K_INT;
		struct side l, r;
		size_t i;

		side_init(&l, k, 0);
		side_init(&r, k, 1);
		for (i = 0; i < 12000; i++) {
			struct mrow *m = side_add(&r);

			if (i % 50 == 0)
				gen_key(m, k, 1, 0, 9, 0);
			else if (k == K_STR)
				m->slen[0] = 1, m->s[0][0] = 'a';
			else
				m->k[0] = 1;
		}
		for (i = 0; i < 15; i++) {
			struct mrow *m = side_add(&l);

			if (i % 5 != 0)
				gen_key(m, k, 0, 0, 9, 10);
			else if (k == K_STR)
				m->slen[0] = 1, m->s[0][0] = 'a';
			else
				m->k[0] = 1;
		}
		side_sort(&l);
		side_sort(&r);
		for (size_t t = 0; t < 6; t++) {
			struct run_opts ro;
			struct core_join_stats st;

			memset(&ro, 0, sizeof(ro));
			ro.type = all_types[t];
			ro.memory = 128 * 1024;
			ro.batch_rows = t == 1 ? 4097 : 0;
			if (!check_join(&l, &r, &ro, "giant group", &st))
				failures++;
			if (st.spill_bytes > 0)
				nspilled++;
			/* the output batches (two sets of 8192 rows) are
			 * charged too */
			if (st.peak_mem > 3 * 1024 * 1024) {
				printf("# giant group: peak %llu\n",
				    (unsigned long long)st.peak_mem);
				failures++;
			}
		}
		/* A right join whose giant key matches nothing. */
		for (i = 0; i < l.n; i++)
			if (!l.rows[i].null[0] && l.rows[i].k[0] == 1)
				l.rows[i].k[0] = 2;
		for (i = 0; i < l.n; i++)
			if (!l.rows[i].null[0] && l.rows[i].slen[0] == 1 &&
			    l.rows[i].s[0][0] == 'a')
				l.rows[i].s[0][0] = 'c';
		side_sort(&l);
		{
			struct run_opts ro;

			memset(&ro, 0, sizeof(ro));
			ro.type = CORE_JOIN_FULL;
			ro.memory = 256 * 1024;
			if (!check_join(&l, &r, &ro, "giant unmatched", NULL))
				failures++;
		}
		side_free(&l);
		side_free(&r);
	}
	CHECK_EQ_INT(failures, 0);
	/* inner, left, right and full hold the rows (semi and anti only
	 * their count) */
	CHECK_EQ_INT(nspilled, 8);
}

/* Runs a join expected to fail; returns its code, the message in err. */
static int
run_fail(const struct side *l, const struct side *r, enum core_join_type t,
    bool null_aware, uint32_t fixed_len, struct core_err *err)
{
	struct core_join_plan *p = NULL;
	struct core_join_stats st;
	struct run_opts ro;
	int rc;

	memset(&ro, 0, sizeof(ro));
	ro.type = t;
	ro.null_aware = null_aware;
	ro.fixed = fixed_len > 0;
	ro.fixed_len = fixed_len;
	memset(err, 0, sizeof(*err));
	rc = run_join(l, r, &ro, &p, NULL, &st, err, NULL);
	core_join_plan_free(p);
	return rc;
}

/* A row out of order anywhere on either side, within a batch or at a
 * batch's first row, is CORE_EDATA naming its side, row and key. */
/* Rows per side of the out-of-order cases; fewer under ASan, where the
 * one-row batches of 128 cases cost minutes. */
#ifdef __SANITIZE_ADDRESS__
#define OOO_ROWS 800
#else
#define OOO_ROWS 5000
#endif

static void
test_out_of_order(void)
{
	static const uint32_t lens[] = { 1, 3, 17, 4096 };
	int failures = 0;

	for (int sd = 0; sd < 2; sd++)
		for (int k2 = 0; k2 < 2; k2++)
			for (size_t li = 0; li < 4; li++)
				for (int trial = 0; trial < 8; trial++) {
					enum kind k = k2 ? K_TWO : K_INT;
					struct side s[2];
					struct core_err err;
					char want[160];
					size_t n = OOO_ROWS, at;
					int rc;

					side_init(&s[0], k, 0);
					side_init(&s[1], k, 1);
					gen_side(&s[0], k, 0, n, 100000, 0);
					gen_side(&s[1], k, 1, n, 100000, 0);
					at = 1 + unit_rand() % (n - 1);
					if (trial == 0)
						at = n - 1;
					/* rows at-1 and at, made to differ
					 * on the last key only when k2 */
					if (k2) {
						s[sd].rows[at] =
						    s[sd].rows[at - 1];
						s[sd].rows[at - 1].k[1] = 2;
						s[sd].rows[at].k[1] = 1;
					} else {
						s[sd].rows[at].k[0] = -100000;
						if (s[sd].rows[at - 1].k[0] ==
						    -100000)
							s[sd].rows[at - 1].k[0]
							    = 0;
					}
					rc = run_fail(&s[0], &s[1],
					    all_types[trial % 6], false,
					    lens[li], &err);
					snprintf(want, sizeof(want),
					    "%s input: row %zu is out of order "
					    "on key %s (sorted input needed: "
					    "colsort -k %s%s)",
					    sd ? "right" : "left", at + 1,
					    sd ? (k2 ? "y" : "x") :
					    (k2 ? "b" : "a"),
					    sd ? "x" : "a",
					    k2 ? (sd ? " -k y" : " -k b") :
					    "");
					if (rc != CORE_EDATA ||
					    strcmp(err.msg, want) != 0) {
						printf("# rc %d: %s\n# want %s"
						    "\n", rc, err.msg, want);
						failures++;
					}
					side_free(&s[0]);
					side_free(&s[1]);
				}
	CHECK_EQ_INT(failures, 0);
}

/* NOT IN: a NULL on the right empties the answer; a NULL on the left
 * survives only an empty right side; two keys or another join type is a
 * usage error. */
static void
test_null_aware(void)
{
	struct side l, r, r2, l2;
	struct run_opts ro;
	struct core_err err;
	struct core_join_plan *p = NULL;
	struct rows got;
	size_t i;
	int rc;

	side_init(&l, K_INT, 0);
	side_init(&r, K_INT, 1);
	for (i = 0; i < 9000; i++) {
		struct mrow *m = side_add(&l);

		m->k[0] = (int64_t)i;
		m->null[0] = i >= 8990;
	}
	for (i = 0; i < 6000; i++)
		side_add(&r)->k[0] = (int64_t)(i * 2);
	side_sort(&l);
	side_sort(&r);
	memset(&ro, 0, sizeof(ro));
	ro.type = CORE_JOIN_ANTI;
	ro.null_aware = true;
	/* no NULL on the right: the odd keys, not the NULL ones */
	memset(&got, 0, sizeof(got));
	rc = run_join(&l, &r, &ro, &p, &got, NULL, &err, NULL);
	CHECK_EQ_INT(rc, 0);
	CHECK_EQ_INT(got.n, 4495);
	rows_free(&got);
	core_join_plan_free(p);
	CHECK(check_join(&l, &r, &ro, "null-aware, no right NULL", NULL));
	/* one NULL at the right's end: nothing, however far it is */
	side_add(&r)->null[0] = true;
	rc = run_join(&l, &r, &ro, &p, &got, NULL, &err, NULL);
	CHECK_EQ_INT(rc, 0);
	CHECK_EQ_INT(got.n, 0);
	rows_free(&got);
	core_join_plan_free(p);
	/* short batches: the NULL is read after the left side's end, when
	 * every undecided row is held */
	ro.fixed = true;
	ro.fixed_len = 17;
	rc = run_join(&l, &r, &ro, &p, &got, NULL, &err, NULL);
	CHECK_EQ_INT(rc, 0);
	CHECK_EQ_INT(got.n, 0);
	rows_free(&got);
	core_join_plan_free(p);
	ro.fixed = false;
	/* the same under a tiny budget: the undecided rows spill */
	ro.memory = 64 * 1024;
	CHECK(check_join(&l, &r, &ro, "null-aware, right NULL, small", NULL));
	r.n--;
	CHECK(check_join(&l, &r, &ro, "null-aware, small", NULL));
	ro.memory = 0;
	/* an empty right side: every left row, the NULL ones too */
	side_init(&r2, K_INT, 1);
	rc = run_join(&l, &r2, &ro, &p, &got, NULL, &err, NULL);
	CHECK_EQ_INT(rc, 0);
	CHECK_EQ_INT(got.n, 9000);
	rows_free(&got);
	core_join_plan_free(p);
	/* usage errors */
	side_init(&l2, K_TWO, 0);
	side_free(&r2);
	side_init(&r2, K_TWO, 1);
	CHECK_EQ_INT(run_fail(&l2, &r2, CORE_JOIN_ANTI, true, 0, &err),
	    CORE_EUSAGE);
	CHECK_EQ_INT(run_fail(&l, &r, CORE_JOIN_INNER, true, 0, &err),
	    CORE_EUSAGE);
	side_free(&l);
	side_free(&r);
	side_free(&l2);
	side_free(&r2);
}

static int nphase;

static void
count_phase(void *arg, const char *phase, unsigned i, unsigned n)
{
	(void)arg;
	if (strcmp(phase, "merging") == 0 && i == 0 && n == 0)
		nphase++;
}

/* The phase is told once; emit's code stops the join and comes back. */
static int
stop_emit(void *arg, const struct core_batch *b, struct core_err *err)
{
	(void)arg;
	(void)b;
	return core_err_set(err, CORE_EIO, "full");
}

static void
test_phase_and_stop(void)
{
	struct side l, r;
	struct core_join_spec spec;
	struct core_join_plan *p = NULL;
	struct core_join_options o;
	struct core_join_input li, ri;
	struct input lin, rin;
	struct core_mem mem;
	struct core_err err;
	int rc;

	side_init(&l, K_INT, 0);
	side_init(&r, K_INT, 1);
	gen_side(&l, K_INT, 0, 3000, 50, 0);
	gen_side(&r, K_INT, 1, 3000, 50, 0);
	memset(&spec, 0, sizeof(spec));
	spec.type = CORE_JOIN_INNER;
	spec.on = "a=x";
	CHECK_EQ_INT(core_join_plan_new(&spec, l.schema, r.schema, &p, &err),
	    0);
	memset(&o, 0, sizeof(o));
	o.plan = p;
	o.phase = count_phase;
	memset(&lin, 0, sizeof(lin));
	memset(&rin, 0, sizeof(rin));
	lin.s = &l;
	rin.s = &r;
	lin.rng = 7;
	rin.rng = 9;
	li = (struct core_join_input){ l.schema, input_next, &lin, 0 };
	ri = (struct core_join_input){ r.schema, input_next, &rin, 0 };
	core_mem_init(&mem, CORE_MEM_UNLIMITED);
	rc = core_join_merge(&o, &mem, &li, &ri, stop_emit, NULL, NULL, &err);
	CHECK_EQ_INT(rc, CORE_EIO);
	CHECK_EQ_INT(nphase, 1);
	CHECK_EQ_INT(mem.used, 0);
	core_batch_release(&lin.cur);
	core_batch_release(&rin.cur);
	core_join_plan_free(p);
	side_free(&l);
	side_free(&r);
}

int
main(void)
{
	RUN(test_random);
	RUN(test_batch_lengths);
	RUN(test_giant_group);
	RUN(test_out_of_order);
	RUN(test_null_aware);
	RUN(test_phase_and_stop);
	return unit_done();
}
