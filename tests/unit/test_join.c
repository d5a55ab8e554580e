/*
 * test_join.c - the hash join (core_join_hash) against a nested-loop
 * reference.
 *
 * Each side is a table of plain cells (one struct per value); the
 * reference joins them as SQL says, comparing keys with its own code
 * written from core_join.h (a NULL key matches nothing; int32 with int64
 * as int64; decimal(15,2) with decimal(12,1) at scale 2; an int64 with a
 * float64 as doubles; a date with a timestamp as microseconds; a
 * decimal(25,4), a decimal128, with a decimal(12,1) at scale 4), and the
 * join's output batches, copied out as they are emitted, must hold the
 * same multiset of rows: every row of either is spelt as one string,
 * both lists are sorted and must be equal.  For tables too big for a
 * nested loop the reference finds the matches by binary search over the
 * right rows sorted on a normalised key; on every small case both ways
 * are run and must agree, so the fast one is only as trusted as the
 * nested loop it is checked against.
 *
 * Inputs are handed out as views of a batch the feed refills (and
 * poisons first) on every call, at lengths 0, 1, 2, 3, 17, 4095, 4096,
 * 4097 and random ones, sometimes with a validity bitmap marking no
 * NULL, so that a join keeping a view past the next call reads garbage.
 * Cases: every join type (and NOT IN's anti join) times nine kinds of
 * keys, NULL keys on either side, duplicates, empty sides, one-row
 * sides, both sides built, payload columns of every type with NULLs;
 * one giant key on the build side; a sweep of budgets over inputs of
 * many batches (partitioned at the small end, the same answer at every
 * budget, the peak charge within the budget); the spill cap, an input's
 * error and emit's stop passed back.
 */
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

/* ASan and UBSan make the big cases several times slower. */
#ifdef __SANITIZE_ADDRESS__
#define SCALE 2
#else
#define SCALE 1
#endif

static const uint32_t lens[] = { 0, 1, 2, 3, 17, 4095, 4096, 4097 };
#define NLENS (sizeof(lens) / sizeof(lens[0]))

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t
rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* ---- key kinds and tables ---- */

__extension__ typedef __int128 wide;
__extension__ typedef unsigned __int128 uwide;

/* A decimal128 cell's value. */
static wide
cell_wide(int64_t lo, int64_t hi)
{
	return (wide)((uwide)(uint64_t)hi << 64 | (uint64_t)lo);
}

enum kind {
	K_I64, K_I32_I64, K_TWO32, K_TWO64, K_STR, K_DEC, K_INT_F64,
	K_DATE_TS, K_WIDE, NKINDS
};

static const struct kind_def {
	const char *name;
	unsigned nkeys;
	struct core_coltype lt[2], rt[2];
} kinds[NKINDS] = {
	{ "int64", 1, { { CORE_TYPE_INT64, 0, 0 } },
	    { { CORE_TYPE_INT64, 0, 0 } } },
	{ "int32=int64", 1, { { CORE_TYPE_INT32, 0, 0 } },
	    { { CORE_TYPE_INT64, 0, 0 } } },
	{ "two ints in 32 bits", 2,
	    { { CORE_TYPE_INT32, 0, 0 }, { CORE_TYPE_INT64, 0, 0 } },
	    { { CORE_TYPE_INT64, 0, 0 }, { CORE_TYPE_INT64, 0, 0 } } },
	{ "two wide ints", 2,
	    { { CORE_TYPE_INT64, 0, 0 }, { CORE_TYPE_INT64, 0, 0 } },
	    { { CORE_TYPE_INT64, 0, 0 }, { CORE_TYPE_INT64, 0, 0 } } },
	{ "string", 1, { { CORE_TYPE_STRING, 0, 0 } },
	    { { CORE_TYPE_STRING, 0, 0 } } },
	{ "decimal(15,2)=decimal(12,1)", 1, { { CORE_TYPE_DECIMAL, 15, 2 } },
	    { { CORE_TYPE_DECIMAL, 12, 1 } } },
	{ "int64=float64", 1, { { CORE_TYPE_INT64, 0, 0 } },
	    { { CORE_TYPE_FLOAT64, 0, 0 } } },
	{ "date=timestamp", 1, { { CORE_TYPE_DATE, 0, 0 } },
	    { { CORE_TYPE_TIMESTAMP, 0, 0 } } },
	{ "decimal(25,4)=decimal(12,1)", 1,
	    { { CORE_TYPE_DECIMAL128, 25, 4 } },
	    { { CORE_TYPE_DECIMAL, 12, 1 } } },
};

static const struct core_coltype ptypes[] = {
	{ CORE_TYPE_BOOL, 0, 0 }, { CORE_TYPE_INT32, 0, 0 },
	{ CORE_TYPE_INT64, 0, 0 }, { CORE_TYPE_FLOAT64, 0, 0 },
	{ CORE_TYPE_DECIMAL, 10, 3 }, { CORE_TYPE_DATE, 0, 0 },
	{ CORE_TYPE_TIMESTAMP, 0, 0 }, { CORE_TYPE_STRING, 0, 0 },
};
#define NPAY (sizeof(ptypes) / sizeof(ptypes[0]))

#define DAY_US 86400000000ll

struct cell {
	bool null;
	int64_t i;	/* every type but float64 and string; a
			   decimal128's low 64 bits */
	int64_t hi;	/* a decimal128's high 64 bits */
	double f;
	size_t soff;	/* string: offset in the table's bytes */
	uint32_t slen;
};

/*
 * The left table's columns are its keys, an id, the payload; the right
 * table's an id, the payload, its keys (so key columns sit at different
 * indices on the two sides).
 */
struct table {
	struct core_schema *schema;	/* owned */
	int side;			/* 0 left, 1 right */
	enum kind kind;
	uint32_t ncols, nkeys;
	size_t n, cap;
	struct cell *cells;		/* n * ncols */
	struct unit_buf bytes;
};

static uint32_t
key_col(const struct table *t, unsigned k)
{
	return t->side == 0 ? k : 1 + (uint32_t)NPAY + k;
}

static uint32_t
id_col(const struct table *t)
{
	return t->side == 0 ? t->nkeys : 0;
}

static uint32_t
pay_col(const struct table *t, unsigned p)
{
	return t->side == 0 ? t->nkeys + 1 + p : 1 + p;
}

static struct cell *
cell_at(const struct table *t, size_t row, uint32_t col)
{
	return &t->cells[row * t->ncols + col];
}

static struct table *
table_new(enum kind kind, int side)
{
	struct table *t = core_xcalloc(1, sizeof(*t));
	const char *pre = side ? "r" : "l";
	char name[16];
	unsigned k, p;

	t->side = side;
	t->kind = kind;
	t->nkeys = kinds[kind].nkeys;
	t->ncols = t->nkeys + 1 + (uint32_t)NPAY;
	t->schema = core_schema_new(t->ncols);
	for (k = 0; k < t->nkeys; k++) {
		snprintf(name, sizeof(name), "%sk%u", pre, k);
		core_schema_set(t->schema, key_col(t, k), name,
		    side ? kinds[kind].rt[k] : kinds[kind].lt[k]);
	}
	snprintf(name, sizeof(name), "%sid", pre);
	core_schema_set(t->schema, id_col(t), name,
	    (struct core_coltype){ CORE_TYPE_INT64, 0, 0 });
	for (p = 0; p < NPAY; p++) {
		snprintf(name, sizeof(name), "%sp%u", pre, p);
		core_schema_set(t->schema, pay_col(t, p), name, ptypes[p]);
	}
	return t;
}

static void
table_free(struct table *t)
{
	if (t == NULL)
		return;
	core_schema_free(t->schema);
	free(t->cells);
	free(t->bytes.p);
	free(t);
}

static void
set_str(struct table *t, struct cell *c, const char *s, size_t len)
{
	c->soff = t->bytes.len;
	c->slen = (uint32_t)len;
	unit_buf_add(&t->bytes, s, len);
}

static const char *
cell_str(const struct table *t, const struct cell *c)
{
	return t->bytes.p + c->soff;
}

/*
 * The key cells of key number k on t's side.  Both sides map k the same
 * way, so equal k usually match; each side also has near misses of its
 * own (a value 2^32 away, a swapped pair, an extra byte, half a unit,
 * a microsecond), which match only what the reference says they match.
 */
static void
gen_key(struct table *t, struct cell *c, uint64_t k)
{
	bool right = t->side == 1;
	int64_t v = (int64_t)k - 5000, a, b;
	char buf[80];
	int n;

	switch (t->kind) {
	case K_I64:
		v = k == 1 ? INT64_MIN : k == 2 ? INT64_MAX :
		    (int64_t)k * 1000000007 - 500000000000;
		if (right && rnd() % 8 == 0)
			v = (int64_t)((uint64_t)v + (1ull << 32));
		if (!right && rnd() % 16 == 0)
			v ^= 1ll << 40;
		c[0].i = v;
		break;
	case K_I32_I64:
		v = k == 1 ? INT32_MIN : k == 2 ? INT32_MAX :
		    (int64_t)k * 7919 - 4000000;
		if (right && rnd() % 6 == 0)
			v += rnd() & 1 ? 1ll << 32 : -(1ll << 32);
		c[0].i = v;
		break;
	case K_TWO32:
		a = (int64_t)(k % 13) - 6;
		b = (int64_t)(k / 13) * 3 - 1000;
		if (right && rnd() % 8 == 0) {
			int64_t x = a;

			a = b;
			b = x;
		}
		c[0].i = a;
		c[1].i = b;
		break;
	case K_TWO64:
		a = (int64_t)((k % 11) << 40 | (k % 3));
		b = (int64_t)((k / 11) * 0x100000001ull ^ 0x8000000000000000ull);
		if (right && rnd() % 8 == 0)
			b ^= 1ll << 32;
		if (!right && rnd() % 16 == 0)
			a ^= 1;
		c[0].i = a;
		c[1].i = b;
		break;
	case K_STR:
		if (k < 3) {
			set_str(t, &c[0], "\0\0", (size_t)k);	/* "", NULs */
			break;
		}
		n = snprintf(buf, sizeof(buf), "%s%s%llu",
		    k % 5 == 0 ? "x" : "",
		    k % 4 == 0 ? "a long prefix that many keys share/" : "",
		    (unsigned long long)k);
		if (right && rnd() % 8 == 0)
			buf[n++] = ' ';
		if (!right && rnd() % 16 == 0)
			n--;
		set_str(t, &c[0], buf, (size_t)n);
		break;
	case K_DEC:
		/* Left in cents, right in tenths: 1.50 = 1.5, 1.55 = none. */
		if (k == 1)
			v = right ? 999999999999ll : 999999999999999ll;
		else if (k == 2)
			v = right ? -999999999999ll : -9999999999990ll;
		else
			v = right ? v : v * 5;
		c[0].i = v;
		break;
	case K_INT_F64:
		/* 2^53 + 1 is 2^53 as a double. */
		v = (int64_t)k - 20;
		if (k == 1 || k == 2)
			v = (1ll << 53) + (k == 1 ? (right ? 2 : 1) : 0);
		if (right) {
			c[0].f = (double)v;
			if (rnd() % 6 == 0)
				c[0].f += 0.5;
			if (v == 0 && rnd() % 2 == 0)
				c[0].f = -0.0;
		} else {
			c[0].i = v;
		}
		break;
	case K_DATE_TS:
		v = (int64_t)k - 2000;
		if (right) {
			v *= DAY_US;
			if (rnd() % 6 == 0)
				v += rnd() & 1 ? 1 : -1;
		}
		c[0].i = v;
		break;
	case K_WIDE:
		/* Right in tenths, left a decimal128 in ten-thousandths:
		 * near misses a unit off, or 2^64 off (the high word
		 * alone differs); key 1 is far past int64 on the left. */
		v = (int64_t)k * 7 - 40000;
		if (right) {
			c[0].i = k == 2 ? -999999999999ll : v;
			break;
		}
		{
			wide x = (wide)(k == 2 ? -999999999999ll : v) * 1000;

			if (k == 1)
				x = (wide)4000000000000000000ll *
				    1000000000000000ll + 3;
			if (rnd() % 16 == 0)
				x += 1;
			if (rnd() % 16 == 0)
				x += (wide)1 << 64;
			c[0].i = (int64_t)(uint64_t)x;
			c[0].hi = (int64_t)(x >> 64);
		}
		break;
	default:
		break;
	}
}

static void
gen_payload(struct table *t, struct cell *c, struct core_coltype type)
{
	static const double fs[] = { 0.0, -0.0, 1.5, -2.25, 1e300, 3.0 };
	char buf[128];
	size_t len, i;

	c->null = rnd() % 6 == 0;
	if (c->null) {
		if (type.id == CORE_TYPE_STRING)
			set_str(t, c, "", 0);
		return;
	}
	switch (type.id) {
	case CORE_TYPE_BOOL:
		c->i = (int64_t)(rnd() & 1);
		break;
	case CORE_TYPE_INT32:
		c->i = (int32_t)rnd();
		break;
	case CORE_TYPE_DATE:
		c->i = (int32_t)(rnd() % 100000) - 50000;
		break;
	case CORE_TYPE_DECIMAL:
		c->i = (int64_t)(rnd() % 20000000000ull) - 10000000000;
		break;
	case CORE_TYPE_FLOAT64:
		c->f = rnd() % 3 ? fs[rnd() % 6] : (double)(int64_t)rnd() / 7;
		break;
	case CORE_TYPE_STRING:
		len = rnd() % 10 == 0 ? 30 + rnd() % 90 : rnd() % 9;
		for (i = 0; i < len; i++)
			buf[i] = (char)(rnd() % 7 == 0 ? 0 : 'A' + rnd() % 50);
		set_str(t, c, buf, len);
		break;
	default:
		c->i = (int64_t)rnd() >> (rnd() % 40);
		break;
	}
}

/*
 * Appends a row of key number k; nullmask bit i makes key i NULL.
 */
static void
add_row(struct table *t, uint64_t k, unsigned nullmask)
{
	struct cell keys[2];
	unsigned i;

	t->cells = core_grow(t->cells, &t->cap, (t->n + 1) * t->ncols,
	    sizeof(*t->cells), 64);
	memset(cell_at(t, t->n, 0), 0, t->ncols * sizeof(*t->cells));
	memset(keys, 0, sizeof(keys));
	gen_key(t, keys, k);
	for (i = 0; i < t->nkeys; i++) {
		struct cell *c = cell_at(t, t->n, key_col(t, i));

		*c = keys[i];
		if (nullmask >> i & 1) {
			c->null = true;
			c->i = 0;
			c->hi = 0;
			c->f = 0;
			c->slen = 0;
		}
	}
	cell_at(t, t->n, id_col(t))->i = (int64_t)t->n;
	for (i = 0; i < NPAY; i++)
		gen_payload(t, cell_at(t, t->n, pay_col(t, i)), ptypes[i]);
	t->n++;
}

/* n rows of keys drawn from [0, dom), null_pct percent of them with a
 * NULL key (some keys of a pair, or all). */
static void
fill_table(struct table *t, size_t n, uint64_t dom, unsigned null_pct)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned mask = 0;

		if (rnd() % 100 < null_pct)
			mask = t->nkeys == 2 ? 1 + (unsigned)(rnd() % 3) : 1;
		add_row(t, rnd() % dom, mask);
	}
}

/* ---- the reference ---- */

static bool
ref_key_eq(enum kind kind, const struct table *lt, const struct cell *l,
    const struct table *rt, const struct cell *r)
{
	if (l->null || r->null)
		return false;
	switch (kind) {
	case K_STR:
		return l->slen == r->slen && memcmp(cell_str(lt, l),
		    cell_str(rt, r), l->slen) == 0;
	case K_DEC:
		return l->i == r->i * 10;
	case K_INT_F64:
		return (double)l->i == r->f;
	case K_DATE_TS:
		return l->i * DAY_US == r->i;
	case K_WIDE:
		return cell_wide(l->i, l->hi) == (wide)r->i * 1000;
	default:
		return l->i == r->i;
	}
}

static bool
ref_row_eq(const struct table *lt, size_t l, const struct table *rt,
    size_t r)
{
	unsigned k;

	for (k = 0; k < lt->nkeys; k++)
		if (!ref_key_eq(lt->kind, lt, cell_at(lt, l, key_col(lt, k)),
		    rt, cell_at(rt, r, key_col(rt, k))))
			return false;
	return true;
}

static bool
has_null_key(const struct table *t, size_t row)
{
	unsigned k;

	for (k = 0; k < t->nkeys; k++)
		if (cell_at(t, row, key_col(t, k))->null)
			return true;
	return false;
}

/* The key of a row as bytes that are equal exactly when ref_key_eq
 * says the keys are (false for a NULL key). */
static bool
norm_key(const struct table *t, size_t row, struct unit_buf *out)
{
	unsigned k;

	out->len = 0;
	for (k = 0; k < t->nkeys; k++) {
		const struct cell *c = cell_at(t, row, key_col(t, k));
		int64_t v = c->i;
		uint32_t len;
		double d;

		if (c->null)
			return false;
		switch (t->kind) {
		case K_STR:
			len = c->slen;
			unit_buf_add(out, &len, sizeof(len));
			unit_buf_add(out, cell_str(t, c), len);
			continue;
		case K_INT_F64:
			d = t->side ? c->f : (double)c->i;
			if (d == 0)
				d = 0;	/* -0 equals 0 */
			unit_buf_add(out, &d, sizeof(d));
			continue;
		case K_DEC:
			v = t->side ? v * 10 : v;
			break;
		case K_DATE_TS:
			v = t->side ? v : v * DAY_US;
			break;
		case K_WIDE: {
			wide w = t->side ? (wide)c->i * 1000 :
			    cell_wide(c->i, c->hi);

			unit_buf_add(out, &w, sizeof(w));
			continue;
		}
		default:
			break;
		}
		unit_buf_add(out, &v, sizeof(v));
	}
	return true;
}

struct pair {
	int64_t l, r;		/* row on each side, -1 for none */
};

struct pairs {
	struct pair *p;
	size_t n, cap;
};

static void
pairs_add(struct pairs *ps, int64_t l, int64_t r)
{
	ps->p = core_grow(ps->p, &ps->cap, ps->n + 1, sizeof(*ps->p), 256);
	ps->p[ps->n].l = l;
	ps->p[ps->n++].r = r;
}

/* The right rows with a key, sorted on their normalised key. */
struct rindex {
	char **key;
	size_t *klen;
	size_t *rows;
	size_t n;
};

static const struct rindex *sort_ix;

static int
key_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
	int c = memcmp(a, b, alen < blen ? alen : blen);

	return c ? c : (alen > blen) - (alen < blen);
}

static int
rindex_cmp(const void *pa, const void *pb)
{
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;

	return key_cmp(sort_ix->key[a], sort_ix->klen[a], sort_ix->key[b],
	    sort_ix->klen[b]);
}

static void
rindex_build(struct rindex *ix, const struct table *rt)
{
	struct unit_buf k = { 0 };
	size_t r;

	ix->key = core_xcalloc(rt->n + 1, sizeof(*ix->key));
	ix->klen = core_xcalloc(rt->n + 1, sizeof(*ix->klen));
	ix->rows = core_xcalloc(rt->n + 1, sizeof(*ix->rows));
	ix->n = 0;
	for (r = 0; r < rt->n; r++) {
		if (!norm_key(rt, r, &k))
			continue;
		ix->key[r] = core_xmalloc(k.len + 1);
		memcpy(ix->key[r], k.p, k.len);
		ix->klen[r] = k.len;
		ix->rows[ix->n++] = r;
	}
	sort_ix = ix;
	qsort(ix->rows, ix->n, sizeof(*ix->rows), rindex_cmp);
	free(k.p);
}

static void
rindex_free(struct rindex *ix, size_t n)
{
	size_t r;

	for (r = 0; r < n; r++)
		free(ix->key[r]);
	free(ix->key);
	free(ix->klen);
	free(ix->rows);
}

/* The first position of ix->rows whose key is >= key. */
static size_t
rindex_lower(const struct rindex *ix, const char *key, size_t len)
{
	size_t lo = 0, hi = ix->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2, r = ix->rows[mid];

		if (key_cmp(ix->key[r], ix->klen[r], key, len) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The join as SQL defines it, as (left row, right row) pairs; semi and
 * anti give (left row, -1).  nested: compare every pair of rows, else
 * look the matches up in the sorted index.
 */
static struct pairs
ref_join(const struct table *lt, const struct table *rt,
    enum core_join_type type, bool null_aware, bool nested)
{
	struct pairs ps = { 0 };
	struct rindex ix = { 0 };
	struct unit_buf k = { 0 };
	bool *rmatched = core_xcalloc(rt->n + 1, 1), right_null = false;
	size_t l, r, *m = core_xcalloc(rt->n + 1, sizeof(*m)), nm;

	for (r = 0; r < rt->n; r++)
		right_null |= has_null_key(rt, r);
	if (!nested)
		rindex_build(&ix, rt);
	for (l = 0; l < lt->n; l++) {
		nm = 0;
		if (nested) {
			for (r = 0; r < rt->n; r++)
				if (ref_row_eq(lt, l, rt, r))
					m[nm++] = r;
		} else if (norm_key(lt, l, &k)) {
			size_t at = rindex_lower(&ix, k.p, k.len);

			for (; at < ix.n; at++) {
				r = ix.rows[at];
				if (key_cmp(ix.key[r], ix.klen[r], k.p,
				    k.len) != 0)
					break;
				m[nm++] = r;
			}
		}
		switch (type) {
		case CORE_JOIN_INNER:
		case CORE_JOIN_LEFT:
		case CORE_JOIN_RIGHT:
		case CORE_JOIN_FULL:
			for (r = 0; r < nm; r++) {
				pairs_add(&ps, (int64_t)l, (int64_t)m[r]);
				rmatched[m[r]] = true;
			}
			if (nm == 0 && (type == CORE_JOIN_LEFT ||
			    type == CORE_JOIN_FULL))
				pairs_add(&ps, (int64_t)l, -1);
			break;
		case CORE_JOIN_SEMI:
			if (nm > 0)
				pairs_add(&ps, (int64_t)l, -1);
			break;
		case CORE_JOIN_ANTI:
			if (!null_aware ? nm == 0 : rt->n == 0 ||
			    (!right_null && nm == 0 && !has_null_key(lt, l)))
				pairs_add(&ps, (int64_t)l, -1);
			break;
		}
	}
	if (type == CORE_JOIN_RIGHT || type == CORE_JOIN_FULL)
		for (r = 0; r < rt->n; r++)
			if (!rmatched[r])
				pairs_add(&ps, -1, (int64_t)r);
	if (!nested)
		rindex_free(&ix, rt->n);
	free(k.p);
	free(m);
	free(rmatched);
	return ps;
}

static int
pair_cmp(const void *pa, const void *pb)
{
	const struct pair *a = pa, *b = pb;

	if (a->l != b->l)
		return a->l < b->l ? -1 : 1;
	return (a->r > b->r) - (a->r < b->r);
}

/* ---- rows as strings ---- */

struct rows {
	struct unit_buf text;	/* NUL-terminated rows back to back */
	size_t *off;
	size_t n, cap;
};

/* One value as text: "N" for NULL, else 16 hex digits of its bits (the
 * integer, or the double's) or the string's bytes in hex; then "|". */
static void
spell_value(struct unit_buf *b, struct core_coltype type, bool null,
    int64_t i, int64_t hi, double f, const char *s, size_t slen)
{
	static const char hex[] = "0123456789abcdef";
	char buf[256];
	uint64_t bits = (uint64_t)i;
	size_t j, n = 0;
	int k;

	if (null) {
		unit_buf_add(b, "N|", 2);
		return;
	}
	if (type.id == CORE_TYPE_STRING) {
		buf[n++] = '\'';
		for (j = 0; j < slen; j++) {
			if (n + 3 > sizeof(buf)) {
				unit_buf_add(b, buf, n);
				n = 0;
			}
			buf[n++] = hex[(unsigned char)s[j] >> 4];
			buf[n++] = hex[(unsigned char)s[j] & 15];
		}
		buf[n++] = '|';
		unit_buf_add(b, buf, n);
		return;
	}
	if (type.id == CORE_TYPE_FLOAT64) {
		memcpy(&bits, &f, 8);
		buf[n++] = 'f';
	}
	if (type.id == CORE_TYPE_DECIMAL128) {
		buf[n++] = 'w';
		for (k = 60; k >= 0; k -= 4)
			buf[n++] = hex[(uint64_t)hi >> k & 15];
	}
	for (k = 60; k >= 0; k -= 4)
		buf[n++] = hex[bits >> k & 15];
	buf[n++] = '|';
	unit_buf_add(b, buf, n);
}

static void
rows_end(struct rows *rs, size_t start)
{
	rs->off = core_grow(rs->off, &rs->cap, rs->n + 1, sizeof(*rs->off),
	    256);
	rs->off[rs->n++] = start;
	unit_buf_add(&rs->text, "", 1);
}

/* The reference's output rows, spelt through the plan's sources. */
static void
rows_of_pairs(struct rows *rs, const struct pairs *ps,
    const struct core_join_plan *plan, const struct table *lt,
    const struct table *rt)
{
	size_t i;
	uint32_t c;

	for (i = 0; i < ps->n; i++) {
		size_t start = rs->text.len;

		for (c = 0; c < plan->out->ncols; c++) {
			const struct table *t = plan->src[c].side ? rt : lt;
			int64_t row = plan->src[c].side ? ps->p[i].r :
			    ps->p[i].l;
			const struct cell *x;

			if (row < 0) {
				unit_buf_str(&rs->text, "N|");
				continue;
			}
			x = cell_at(t, (size_t)row, plan->src[c].col);
			spell_value(&rs->text, t->schema->fields[
			    plan->src[c].col].type, x->null, x->i, x->hi,
			    x->f, cell_str(t, x), x->slen);
		}
		rows_end(rs, start);
	}
}

/* Row r of an output batch, spelt as rows_of_pairs spells it. */
static void
rows_of_batch(struct rows *rs, const struct core_batch *b, uint32_t r)
{
	size_t start = rs->text.len;
	uint32_t c;

	for (c = 0; c < b->ncols; c++) {
		const struct core_column *col = &b->cols[c];
		bool null = !core_col_is_valid(col, r);
		int64_t i = 0, hi = 0;
		double f = 0;
		const char *s = NULL;
		size_t slen = 0;

		switch (col->type.id) {
		case CORE_TYPE_BOOL:
			i = ((const uint8_t *)col->values)[r];
			break;
		case CORE_TYPE_INT32:
		case CORE_TYPE_DATE:
			i = ((const int32_t *)col->values)[r];
			break;
		case CORE_TYPE_FLOAT64:
			f = ((const double *)col->values)[r];
			break;
		case CORE_TYPE_STRING:
			s = (const char *)col->values + col->offsets[r];
			slen = (size_t)(col->offsets[r + 1] - col->offsets[r]);
			break;
		case CORE_TYPE_DECIMAL128:
			i = ((const int64_t *)col->values)[2 * (size_t)r];
			hi = ((const int64_t *)col->values)[2 * (size_t)r + 1];
			break;
		default:
			i = ((const int64_t *)col->values)[r];
			break;
		}
		spell_value(&rs->text, col->type, null, i, hi, f, s, slen);
	}
	rows_end(rs, start);
}

static const char *sort_text;

static int
row_cmp(const void *pa, const void *pb)
{
	return strcmp(sort_text + *(const size_t *)pa,
	    sort_text + *(const size_t *)pb);
}

static void
rows_sort(struct rows *rs)
{
	sort_text = rs->text.p;
	if (rs->n > 0)
		qsort(rs->off, rs->n, sizeof(*rs->off), row_cmp);
}

static void
rows_free(struct rows *rs)
{
	free(rs->text.p);
	free(rs->off);
	memset(rs, 0, sizeof(*rs));
}

/* Sorted row lists equal?  Says where they first differ. */
static bool
rows_same(const struct rows *got, const struct rows *want, const char *what)
{
	size_t i;

	for (i = 0; i < got->n && i < want->n; i++)
		if (strcmp(got->text.p + got->off[i],
		    want->text.p + want->off[i]) != 0)
			break;
	if (i == got->n && i == want->n)
		return true;
	printf("# %s: %zu rows out, want %zu; sorted row %zu differs\n",
	    what, got->n, want->n, i);
	if (i < got->n)
		printf("#   got  %.300s\n", got->text.p + got->off[i]);
	if (i < want->n)
		printf("#   want %.300s\n", want->text.p + want->off[i]);
	return false;
}

/* ---- feeding and collecting ---- */

#define FAIL_END (-2l)

struct feed {
	const struct table *t;
	uint32_t sizes[64];	/* batch lengths, in turn */
	size_t row, calls;
	struct core_batch scratch;
	long fail_at;		/* the call that fails; -1 none, FAIL_END
				   the one that would be the end */
	int fail_rc;
	unsigned eofs;
};

static void
feed_init(struct feed *f, const struct table *t)
{
	size_t i;

	memset(f, 0, sizeof(*f));
	f->t = t;
	f->fail_at = -1;
	for (i = 0; i < 64; i++)
		f->sizes[i] = rnd() % 4 ? lens[rnd() % NLENS] :
		    1 + (uint32_t)(rnd() % 3000);
	core_batch_init(&f->scratch, t->schema);
}

/* Poisons what the last batch held, then fills rows [row0, row0 + n). */
static void
fill_batch(struct core_batch *s, const struct table *t, size_t row0,
    uint32_t n)
{
	size_t sb = 0;
	uint32_t c, r;

	for (c = 0; c < s->ncols; c++) {
		struct core_column *col = &s->cols[c];

		if (col->values_cap)
			memset(col->values, 0x5a, col->values_cap);
		if (col->offsets_cap)
			memset(col->offsets, 0x7f, col->offsets_cap);
		if (col->validity_cap)
			memset(col->validity_buf, 0, col->validity_cap);
	}
	for (r = 0; r < n; r++)
		for (c = 0; c < t->ncols; c++)
			sb += cell_at(t, row0 + r, c)->slen;
	core_batch_reset(s);
	core_batch_reserve(s, n, sb + 1);
	for (c = 0; c < t->ncols; c++) {
		struct core_column *col = &s->cols[c];
		int32_t at = 0;
		bool any_null = false;

		for (r = 0; r < n; r++) {
			const struct cell *x = cell_at(t, row0 + r, c);

			if (x->null) {
				core_col_set_null(col, r, n);
				any_null = true;
			}
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
				memcpy((char *)col->values + at,
				    cell_str(t, x), x->slen);
				at += (int32_t)x->slen;
				col->offsets[r + 1] = at;
				break;
			case CORE_TYPE_DECIMAL128:
				((int64_t *)col->values)[2 * (size_t)r] = x->i;
				((int64_t *)col->values)[2 * (size_t)r + 1] =
				    x->hi;
				break;
			default:
				((int64_t *)col->values)[r] = x->i;
				break;
			}
		}
		/* Now and then a bitmap that marks no row NULL. */
		if (!any_null && n > 0 && rnd() % 4 == 0) {
			core_col_set_null(col, 0, n);
			col->validity[0] |= 1;
		}
	}
	s->nrows = n;
}

static int
feed_next(void *arg, struct core_batch *b, struct core_err *err)
{
	struct feed *f = arg;
	uint32_t n, c;

	if ((long)f->calls == f->fail_at) {
		f->calls++;
		return core_err_set(err, f->fail_rc, "test input fails at "
		    "call %ld", f->fail_at);
	}
	n = f->sizes[f->calls++ % 64];
	if (f->row == f->t->n && f->fail_at == FAIL_END)
		return core_err_set(err, f->fail_rc, "test input fails at "
		    "its end");
	if (f->row == f->t->n) {
		f->eofs++;
		return CORE_EOF;
	}
	if (n > f->t->n - f->row)
		n = (uint32_t)(f->t->n - f->row);
	fill_batch(&f->scratch, f->t, f->row, n);
	f->row += n;
	if (b->ncols != f->scratch.ncols)
		return core_err_set(err, CORE_EINTERNAL, "batch of %u "
		    "columns, the input has %u", b->ncols, f->scratch.ncols);
	/* Views of the scratch batch, valid until the next call. */
	for (c = 0; c < b->ncols; c++) {
		struct core_column *d = &b->cols[c];
		const struct core_column *s = &f->scratch.cols[c];

		if (d->values_cap)
			core_free_aligned(d->values);
		if (d->offsets_cap)
			core_free_aligned(d->offsets);
		d->values_cap = d->offsets_cap = 0;
		d->values = s->values;
		d->offsets = s->offsets;
		d->validity = s->validity;
	}
	b->nrows = n;
	return 0;
}

struct sink {
	const struct core_join_plan *plan;
	/* When set, only these output columns, in this order, are
	 * spelt (nsel of them). */
	const uint32_t *sel;
	uint32_t nsel;
	uint32_t batch_rows;
	struct rows rows;
	uint64_t calls, nrows;
	unsigned bad;
	uint64_t stop_at;	/* the emit call that returns stop_rc */
	int stop_rc;
	/* The budget's parts and their peaks as the last emit saw them,
	 * to say where the memory went when the peak is too high. */
	const struct core_mem *mem;
	char parts[256];
	bool ended;		/* the empty batch that ends the output */
};

static void
sink_bad(struct sink *s, const char *why)
{
	if (s->bad++ == 0)
		printf("# output batch %llu: %s\n",
		    (unsigned long long)s->calls, why);
}

static int
sink_emit(void *arg, const struct core_batch *b, struct core_err *err)
{
	struct sink *s = arg;
	const char *why = core_batch_check(b);
	uint32_t r, c;

	s->calls++;
	if (s->ended)
		sink_bad(s, "a batch after the empty one that ends");
	s->ended = b->nrows == 0;
	if (s->mem != NULL) {
		size_t at = 0;
		unsigned i;

		s->parts[0] = '\0';
		for (i = 0; i < s->mem->nparts && at < sizeof(s->parts); i++)
			at += (size_t)snprintf(s->parts + at,
			    sizeof(s->parts) - at, " %s %llu",
			    s->mem->parts[i]->name,
			    (unsigned long long)s->mem->parts[i]->peak);
	}
	if (why != NULL) {
		sink_bad(s, why);
		return 0;
	}
	if (b->nrows > s->batch_rows)
		sink_bad(s, "more rows than batch_rows");
	if (b->ncols != s->plan->out->ncols) {
		sink_bad(s, "not the plan's columns");
		return 0;
	}
	if (b->schema != NULL && !core_schema_equal(b->schema,
	    s->plan->out))
		sink_bad(s, "not the plan's schema");
	for (c = 0; c < b->ncols; c++)
		if (!core_type_equal(b->cols[c].type,
		    s->plan->out->fields[c].type)) {
			sink_bad(s, "a column of the wrong type");
			return 0;
		}
	if (s->sel != NULL) {
		struct core_batch v = *b;

		v.cols = core_xcalloc(s->nsel ? s->nsel : 1, sizeof(*v.cols));
		for (c = 0; c < s->nsel; c++)
			v.cols[c] = b->cols[s->sel[c]];
		v.ncols = s->nsel;
		for (r = 0; r < b->nrows; r++)
			rows_of_batch(&s->rows, &v, r);
		free(v.cols);
	} else {
		for (r = 0; r < b->nrows; r++)
			rows_of_batch(&s->rows, b, r);
	}
	s->nrows += b->nrows;
	if (s->stop_at != 0 && s->calls == s->stop_at)
		return core_err_set(err, s->stop_rc, "stopped by the test");
	return 0;
}

/* One run's options. */
struct jrun {
	enum core_join_type type;
	bool null_aware, build_left, drop, compress;
	bool build_auto;	/* o.build_auto; build_left its fallback */
	uint64_t limit;		/* 0: CORE_MEM_UNLIMITED */
	uint32_t batch_rows;
	unsigned threads;
	uint64_t max_spill;
	/* The call of each input that fails, counting from 1; 0 none,
	 * -1 the call that would be its end. */
	long lfail_at, rfail_at;
	int fail_rc;
	uint64_t stop_at;
	int stop_rc;
	/* Give the inputs' sizes (as rows times 100 bytes, about what
	 * their MLSPILL3 files would take), which picks the fan-out and
	 * lets a build side known not to fit go straight to partitions. */
	bool size_hint;
	/* Bytes a row is said to take when sizes are given (0: 100); a
	 * wrong figure must cost time, never the answer or the budget. */
	uint32_t hint_mul;
	/* Narrow the plan to these output columns (core_join_plan_select)
	 * and join views of the columns it keeps; NULL: every column. */
	const char *select;
	/* Spell only these output columns of the whole plan's rows. */
	const uint32_t *sel;
	uint32_t nsel;
};

/* An input narrowed to a plan's selection: views of the columns it
 * keeps of each batch the feed fills. */
struct pfeed {
	struct feed *f;
	const struct core_join_proj *proj;
	int side;
	struct core_batch whole;
};

static int
pfeed_next(void *arg, struct core_batch *b, struct core_err *err)
{
	struct pfeed *p = arg;
	int rc = feed_next(p->f, &p->whole, err);

	if (rc == 0)
		core_join_proj_batch(p->proj, p->side, &p->whole, b);
	return rc;
}

struct result {
	int rc;
	struct core_err err;
	struct core_join_stats st;
	struct core_join_plan *plan;
	struct sink sink;
	struct feed lf, rf;
	struct core_join_proj proj;
	struct pfeed lp, rp;
	uint64_t peak, used;
};

static const char *
on_of(enum kind kind)
{
	return kinds[kind].nkeys == 2 ? "lk0=rk0,lk1=rk1" : "lk0=rk0";
}

static void
result_free(struct result *res)
{
	rows_free(&res->sink.rows);
	core_batch_release(&res->lf.scratch);
	core_batch_release(&res->rf.scratch);
	if (res->proj.schema[0] != NULL) {
		core_batch_release(&res->lp.whole);
		core_batch_release(&res->rp.whole);
	}
	core_join_proj_release(&res->proj);
	core_join_plan_free(res->plan);
	res->plan = NULL;
}

/* Runs core_join_hash on lt and rt as jr says; the output is left
 * sorted in res->sink.rows. */
static void
run_join(const struct table *lt, const struct table *rt,
    const struct jrun *jr, struct result *res)
{
	struct core_join_spec spec = { jr->type, on_of(lt->kind), NULL,
	    jr->drop };
	struct core_join_input li, ri;
	struct core_join_options o;
	struct core_mem mem;
	uint64_t mul;
	int rc;

	memset(res, 0, sizeof(*res));
	rc = core_join_plan_new(&spec, lt->schema, rt->schema, &res->plan,
	    &res->err);
	if (rc != 0) {
		printf("# plan: %s\n", res->err.msg);
		res->rc = rc;
		return;
	}
	feed_init(&res->lf, lt);
	feed_init(&res->rf, rt);
	res->lf.fail_at = jr->lfail_at < 0 ? FAIL_END : jr->lfail_at - 1;
	res->rf.fail_at = jr->rfail_at < 0 ? FAIL_END : jr->rfail_at - 1;
	res->lf.fail_rc = res->rf.fail_rc = jr->fail_rc;
	mul = jr->hint_mul ? jr->hint_mul : 100;
	li = (struct core_join_input){ lt->schema, feed_next, &res->lf,
	    jr->size_hint ? lt->n * mul : 0 };
	ri = (struct core_join_input){ rt->schema, feed_next, &res->rf,
	    jr->size_hint ? rt->n * mul : 0 };
	if (jr->select != NULL) {
		rc = core_join_plan_select(res->plan, lt->schema, rt->schema,
		    jr->select, &res->proj, &res->err);
		if (rc != 0) {
			printf("# select: %s\n", res->err.msg);
			res->rc = rc;
			return;
		}
		res->lp = (struct pfeed){ &res->lf, &res->proj, 0, { 0 } };
		res->rp = (struct pfeed){ &res->rf, &res->proj, 1, { 0 } };
		core_batch_init(&res->lp.whole, lt->schema);
		core_batch_init(&res->rp.whole, rt->schema);
		li = (struct core_join_input){ res->proj.schema[0],
		    pfeed_next, &res->lp, li.size_hint };
		ri = (struct core_join_input){ res->proj.schema[1],
		    pfeed_next, &res->rp, ri.size_hint };
	}
	memset(&o, 0, sizeof(o));
	o.plan = res->plan;
	o.null_aware = jr->null_aware;
	o.build_left = jr->build_left;
	o.build_auto = jr->build_auto;
	o.max_spill = jr->max_spill;
	o.compress_spill = jr->compress;
	o.batch_rows = jr->batch_rows;
	o.threads = jr->threads;
	res->sink.plan = res->plan;
	res->sink.sel = jr->sel;
	res->sink.nsel = jr->nsel;
	res->sink.batch_rows = jr->batch_rows ? jr->batch_rows : 8192;
	res->sink.stop_at = jr->stop_at;
	res->sink.stop_rc = jr->stop_rc;
	core_mem_init(&mem, jr->limit ? jr->limit : CORE_MEM_UNLIMITED);
	res->sink.mem = &mem;
	res->rc = core_join_hash(&o, &mem, &li, &ri, sink_emit, &res->sink,
	    &res->st, &res->err);
	res->sink.mem = NULL;
	if (res->rc == 0 && !res->sink.ended)
		sink_bad(&res->sink, "the output did not end with an empty "
		    "batch");
	res->peak = mem.peak;
	res->used = mem.used;
	rows_sort(&res->sink.rows);
}

/* The peak charge may pass the budget by an eighth: what a stage must
 * hold to make progress whatever it costs (core_mem_charge: a row of
 * each side, an output batch of one row) and buffers rounded up. */
static bool
peak_ok(uint64_t limit, uint64_t peak)
{
	return limit == 0 || peak <= limit + limit / 8;
}

static void
describe(char *buf, size_t cap, const struct table *lt,
    const struct table *rt, const struct jrun *jr, const char *tag)
{
	snprintf(buf, cap, "%s: %s%s join, keys %s, %zu x %zu rows, "
	    "build %s, budget %llu, batch_rows %u, threads %u%s%s", tag,
	    jr->null_aware ? "null-aware " : "", core_join_type_name(jr->type),
	    kinds[lt->kind].name, lt->n, rt->n,
	    jr->build_auto ? (jr->build_left ? "auto (else left)" :
	    "auto (else right)") : jr->build_left ? "left" : "right",
	    (unsigned long long)jr->limit,
	    jr->batch_rows, jr->threads, jr->drop ? ", right keys dropped" :
	    "", jr->size_hint ? ", sizes given" : "");
	if (jr->size_hint && jr->hint_mul != 0)
		snprintf(buf + strlen(buf), cap - strlen(buf), " (%u bytes a "
		    "row)", jr->hint_mul);
}

/* The reference's sorted output rows for jr (nested: cross-checked with
 * the nested loop).  False when the two references disagree. */
static bool
expected_rows(const struct table *lt, const struct table *rt,
    const struct jrun *jr, struct rows *want)
{
	struct core_join_spec spec = { jr->type, on_of(lt->kind), NULL,
	    jr->drop };
	struct core_join_plan *plan = NULL;
	struct core_err err = { 0, "" };
	struct pairs fast = ref_join(lt, rt, jr->type, jr->null_aware, false);
	bool ok = true;

	memset(want, 0, sizeof(*want));
	if (lt->n * rt->n <= 2000000) {
		struct pairs slow = ref_join(lt, rt, jr->type, jr->null_aware,
		    true);

		if (fast.n > 0)
			qsort(fast.p, fast.n, sizeof(*fast.p), pair_cmp);
		if (slow.n > 0)
			qsort(slow.p, slow.n, sizeof(*slow.p), pair_cmp);
		if (fast.n != slow.n || (fast.n > 0 && memcmp(fast.p, slow.p,
		    fast.n * sizeof(*fast.p)) != 0)) {
			printf("# the references disagree: %zu pairs and "
			    "%zu\n", fast.n, slow.n);
			ok = false;
		}
		free(slow.p);
	}
	if (core_join_plan_new(&spec, lt->schema, rt->schema, &plan,
	    &err) != 0) {
		printf("# plan: %s\n", err.msg);
		free(fast.p);
		return false;
	}
	rows_of_pairs(want, &fast, plan, lt, rt);
	rows_sort(want);
	core_join_plan_free(plan);
	free(fast.p);
	return ok;
}

/* Checks a successful run against want: status, every batch sound,
 * both inputs read to their end, the stats, the budget. */
static bool
check_result(const struct result *res, const struct table *lt,
    const struct table *rt, const struct jrun *jr, const struct rows *want,
    const char *what)
{
	bool ok = true;

	if (res->rc != 0) {
		printf("# %s: rc %d: %s\n", what, res->rc, res->err.msg);
		return false;
	}
	if (res->sink.bad) {
		printf("# %s: %u broken output batches\n", what,
		    res->sink.bad);
		ok = false;
	}
	if (!rows_same(&res->sink.rows, want, what))
		ok = false;
	if (res->lf.row != lt->n || res->lf.eofs == 0 ||
	    res->rf.row != rt->n || res->rf.eofs == 0) {
		printf("# %s: inputs not read to their end: left %zu of %zu, "
		    "right %zu of %zu\n", what, res->lf.row, lt->n,
		    res->rf.row, rt->n);
		ok = false;
	}
	if (res->st.rows_left != lt->n || res->st.rows_right != rt->n ||
	    res->st.rows_out != res->sink.nrows) {
		printf("# %s: stats say %llu, %llu rows in, %llu out; "
		    "%zu, %zu in, %llu out\n", what,
		    (unsigned long long)res->st.rows_left,
		    (unsigned long long)res->st.rows_right,
		    (unsigned long long)res->st.rows_out, lt->n, rt->n,
		    (unsigned long long)res->sink.nrows);
		ok = false;
	}
	if (res->st.peak_mem != res->peak || (res->st.levels > 0 &&
	    (res->st.partitions == 0 || res->st.spill_bytes == 0))) {
		printf("# %s: stats say peak %llu (the budget's %llu), "
		    "levels %llu, partitions %llu, %llu bytes spilled\n",
		    what, (unsigned long long)res->st.peak_mem,
		    (unsigned long long)res->peak,
		    (unsigned long long)res->st.levels,
		    (unsigned long long)res->st.partitions,
		    (unsigned long long)res->st.spill_bytes);
		ok = false;
	}
	if (res->used != 0) {
		printf("# %s: %llu bytes still charged\n", what,
		    (unsigned long long)res->used);
		ok = false;
	}
	if (!peak_ok(jr->limit, res->peak)) {
		printf("# %s: peak charge %llu; peaks at the last emit:%s\n",
		    what, (unsigned long long)res->peak, res->sink.parts);
		ok = false;
	}
	return ok;
}

/* One join, checked against the reference. */
static bool
check_case(const struct table *lt, const struct table *rt,
    const struct jrun *jr, const char *tag)
{
	struct result res;
	struct rows want;
	char what[300];
	bool ok;

	describe(what, sizeof(what), lt, rt, jr, tag);
	ok = expected_rows(lt, rt, jr, &want);
	run_join(lt, rt, jr, &res);
	ok = check_result(&res, lt, rt, jr, &want, what) && ok;
	result_free(&res);
	rows_free(&want);
	return ok;
}

/* ---- tests ---- */

static const enum core_join_type types[] = {
	CORE_JOIN_INNER, CORE_JOIN_LEFT, CORE_JOIN_RIGHT, CORE_JOIN_FULL,
	CORE_JOIN_SEMI, CORE_JOIN_ANTI,
};
#define NTYPES (sizeof(types) / sizeof(types[0]))

/* Tables of given keys: k[i] < 0 is a row with NULL keys. */
static struct table *
table_of(enum kind kind, int side, const long *k, size_t n)
{
	struct table *t = table_new(kind, side);
	size_t i;

	for (i = 0; i < n; i++)
		add_row(t, k[i] < 0 ? 0 : (uint64_t)k[i], k[i] < 0 ? 3 : 0);
	return t;
}

static size_t
count_rows(const struct table *lt, const struct table *rt,
    enum core_join_type type, bool null_aware, bool build_left)
{
	struct jrun jr = { 0 };
	struct result res;
	size_t n;

	jr.type = type;
	jr.null_aware = null_aware;
	jr.build_left = build_left;
	run_join(lt, rt, &jr, &res);
	n = res.rc == 0 ? res.sink.rows.n : (size_t)-1;
	if (res.rc != 0)
		printf("# rc %d: %s\n", res.rc, res.err.msg);
	result_free(&res);
	return n;
}

/*
 * Hand-made cases whose answers are counted by hand, which anchor the
 * reference itself: 1.50 = 1.5 and 1.55 matches nothing; NULL matches
 * nothing, not even NULL, nor the empty string; -0.0 = 0; a date is its
 * midnight; NOT IN's anti join.
 */
static void
test_fixed(void)
{
	/* Decimal keys: left cents k * 5 - 25000, right tenths
	 * k - 5000: k 5030 (1.50) and 5015 (1.5); 5031 is 1.55. */
	static const long ldec[] = { 5030, 5031, -1, 5030 };
	static const long rdec[] = { 5015, -1 };
	static const long rdec_nonull[] = { 5015, 5016 };
	static const long lstr[] = { 0, -1, 1, 0 };	/* "", NULL, "\0" */
	static const long rstr[] = { -1, 0 };
	struct table *lt, *rt;
	int bl;

	for (bl = 0; bl < 2; bl++) {
		lt = table_of(K_DEC, 0, ldec, 4);
		CHECK_EQ_STR(kinds[K_DEC].name, "decimal(15,2)=decimal(12,1)");
		CHECK_EQ_INT(cell_at(lt, 0, 0)->i, 150);
		CHECK_EQ_INT(cell_at(lt, 1, 0)->i, 155);
		rt = table_of(K_DEC, 1, rdec, 2);
		CHECK_EQ_INT(cell_at(rt, 0, key_col(rt, 0))->i, 15);
		CHECK_EQ_INT(count_rows(lt, rt, CORE_JOIN_INNER, false, bl), 2);
		CHECK_EQ_INT(count_rows(lt, rt, CORE_JOIN_LEFT, false, bl), 4);
		CHECK_EQ_INT(count_rows(lt, rt, CORE_JOIN_RIGHT, false, bl), 3);
		CHECK_EQ_INT(count_rows(lt, rt, CORE_JOIN_FULL, false, bl), 5);
		CHECK_EQ_INT(count_rows(lt, rt, CORE_JOIN_SEMI, false, bl), 2);
		CHECK_EQ_INT(count_rows(lt, rt, CORE_JOIN_ANTI, false, bl), 2);
		/* The right has a NULL key: NOT IN keeps nothing. */
		CHECK_EQ_INT(count_rows(lt, rt, CORE_JOIN_ANTI, true, bl), 0);
		table_free(rt);
		rt = table_of(K_DEC, 1, rdec_nonull, 2);
		/* No NULL on the right: 1.55 survives, the NULL key not. */
		CHECK_EQ_INT(count_rows(lt, rt, CORE_JOIN_ANTI, true, bl), 1);
		CHECK_EQ_INT(count_rows(lt, rt, CORE_JOIN_ANTI, false, bl), 2);
		table_free(rt);
		rt = table_of(K_DEC, 1, rdec, 0);
		/* An empty right: every left row survives, NULL too. */
		CHECK_EQ_INT(count_rows(lt, rt, CORE_JOIN_ANTI, true, bl), 4);
		CHECK_EQ_INT(count_rows(lt, rt, CORE_JOIN_ANTI, false, bl), 4);
		CHECK_EQ_INT(count_rows(lt, rt, CORE_JOIN_INNER, false, bl), 0);
		CHECK_EQ_INT(count_rows(lt, rt, CORE_JOIN_LEFT, false, bl), 4);
		table_free(rt);
		table_free(lt);

		/* The empty string equals itself, never a NULL. */
		lt = table_of(K_STR, 0, lstr, 4);
		rt = table_of(K_STR, 1, rstr, 2);
		CHECK_EQ_INT(count_rows(lt, rt, CORE_JOIN_INNER, false, bl), 2);
		CHECK_EQ_INT(count_rows(lt, rt, CORE_JOIN_FULL, false, bl), 5);
		CHECK_EQ_INT(count_rows(lt, rt, CORE_JOIN_ANTI, false, bl), 2);
		table_free(rt);
		table_free(lt);
	}
	/* -0.0 is 0; a date is its midnight and not a microsecond off. */
	lt = table_new(K_INT_F64, 0);
	add_row(lt, 20, 0);
	rt = table_new(K_INT_F64, 1);
	add_row(rt, 20, 0);
	cell_at(rt, 0, key_col(rt, 0))->f = -0.0;
	CHECK_EQ_INT(count_rows(lt, rt, CORE_JOIN_INNER, false, false), 1);
	CHECK_EQ_INT(count_rows(lt, rt, CORE_JOIN_INNER, false, true), 1);
	table_free(rt);
	table_free(lt);
	lt = table_new(K_DATE_TS, 0);
	add_row(lt, 2003, 0);
	add_row(lt, 1990, 0);
	rt = table_new(K_DATE_TS, 1);
	add_row(rt, 2003, 0);
	add_row(rt, 1990, 0);
	add_row(rt, 1990, 0);
	cell_at(rt, 0, key_col(rt, 0))->i = 3 * DAY_US;
	cell_at(rt, 1, key_col(rt, 0))->i = -10 * DAY_US;
	cell_at(rt, 2, key_col(rt, 0))->i = -10 * DAY_US + 1;
	CHECK_EQ_INT(count_rows(lt, rt, CORE_JOIN_INNER, false, false), 2);
	CHECK_EQ_INT(count_rows(lt, rt, CORE_JOIN_RIGHT, false, true), 3);
	table_free(rt);
	table_free(lt);
}

struct shape {
	size_t nl, nr;
	uint64_t dom;
	unsigned lnull, rnull;	/* percent of NULL keys */
};

/* Every kind of key, every join type, both sides built, at sizes from
 * empty to a few batches. */
static void
test_kinds(void)
{
	static const struct shape shapes[] = {
		{ 0, 0, 1, 0, 0 }, { 0, 7, 2, 0, 20 }, { 7, 0, 2, 20, 0 },
		{ 1, 1, 1, 0, 0 }, { 1, 30, 3, 0, 10 }, { 30, 1, 3, 10, 0 },
		{ 50, 50, 3, 50, 50 }, { 200, 300, 40, 10, 10 },
		{ 1000, 600, 250, 5, 5 },
		{ 6000 / SCALE, 4500 / SCALE, 3000 / SCALE, 3, 3 },
	};
	static const uint32_t brows[] = { 0, 1, 100, 4096, 8192 };
	unsigned kind, s, t, bl, na, cases = 0;

	for (kind = 0; kind < NKINDS; kind++)
		for (s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
			const struct shape *sh = &shapes[s];
			struct table *lt = table_new(kind, 0);
			struct table *rt = table_new(kind, 1);

			fill_table(lt, sh->nl, sh->dom, sh->lnull);
			fill_table(rt, sh->nr, sh->dom, sh->rnull);
			for (t = 0; t < NTYPES; t++)
				for (na = 0; na < (types[t] ==
				    CORE_JOIN_ANTI ? 2u : 1u); na++)
					for (bl = 0; bl < 2; bl++) {
						struct jrun jr = { 0 };

						jr.type = types[t];
						jr.null_aware = na;
						jr.build_left = bl;
						jr.drop = (s + t + bl) % 3 == 0;
						jr.threads = cases % 3;
						jr.batch_rows = brows[cases %
						    5];
						if (sh->nl * sh->nr > 100000 &&
						    jr.batch_rows == 1)
							jr.batch_rows = 3;
						cases++;
						if (na && kinds[kind].nkeys ==
						    2) {
							struct result res;

							run_join(lt, rt, &jr,
							    &res);
							CHECK_EQ_INT(res.rc,
							    CORE_EUSAGE);
							result_free(&res);
							continue;
						}
						CHECK(check_case(lt, rt, &jr,
						    "kinds"));
					}
			table_free(lt);
			table_free(rt);
		}
}

/*
 * One key fills most of the build side: at a small budget the partition
 * it lands in cannot be split by hashing and must be joined in chunks.
 */
static void
test_giant_key(void)
{
	static const uint64_t budgets[] = { 256 << 10, 0 };
	static const enum core_join_type gtypes[] = { CORE_JOIN_INNER,
	    CORE_JOIN_FULL, CORE_JOIN_SEMI, CORE_JOIN_ANTI };
	unsigned side, b, t;

	for (side = 0; side < 2; side++) {
		/* side: the giant key on the left (built with build_left)
		 * or on the right (built by default). */
		struct table *lt = table_new(K_I64, 0);
		struct table *rt = table_new(K_I64, 1);
		struct table *big = side ? rt : lt, *small = side ? lt : rt;
		size_t i;

		for (i = 0; i < 20000 / SCALE; i++)
			add_row(big, 77, 0);
		fill_table(big, 2000, 500, 5);
		for (i = 0; i < 2; i++)
			add_row(small, 77, 0);
		fill_table(small, 1000, 500, 5);
		for (b = 0; b < 2; b++)
			for (t = 0; t < sizeof(gtypes) / sizeof(gtypes[0]);
			    t++) {
				struct jrun jr = { 0 };
				struct result res;
				struct rows want;
				char what[300];
				bool ok;

				jr.type = gtypes[t];
				jr.build_left = side == 0;
				jr.limit = budgets[b];
				jr.threads = 1 + t % 2;
				describe(what, sizeof(what), lt, rt, &jr,
				    "giant key");
				ok = expected_rows(lt, rt, &jr, &want);
				run_join(lt, rt, &jr, &res);
				ok = check_result(&res, lt, rt, &jr, &want,
				    what) && ok;
				CHECK(ok);
				if (budgets[b] != 0 && res.rc == 0 &&
				    res.st.chunked == 0) {
					printf("# %s: not chunked (levels "
					    "%llu)\n", what,
					    (unsigned long long)res.st.levels);
					CHECK(res.st.chunked >= 1);
				}
				result_free(&res);
				rows_free(&want);
			}
		table_free(lt);
		table_free(rt);
	}
}

/*
 * A row wider than a quarter of the budget, on either side: CORE_ELIMIT
 * naming the row and the budget that joins it (st.need_mem), nothing
 * left charged; at that budget the expected rows.  A semi join of one
 * key in chunks whose probe side has more rows than the budget has room
 * for flags: CORE_ELIMIT naming the flags, then right at the budget
 * named.
 */
static void
test_too_wide(void)
{
	static const unsigned NPAYSTR = 7;	/* ptypes' string */
	unsigned side;
	size_t i;

	CHECK(ptypes[NPAYSTR].id == CORE_TYPE_STRING);
	for (side = 0; side < 2; side++) {
		struct table *lt = table_new(K_I64, 0);
		struct table *rt = table_new(K_I64, 1);
		struct table *w = side ? rt : lt;
		struct jrun jr = { 0 };
		struct result res;
		struct rows want;
		char what[300], *big = core_xmalloc(300000), msg[160];
		bool ok;

		fill_table(lt, 200, 50, 5);
		fill_table(rt, 100, 50, 5);
		memset(big, 'w', 300000);
		set_str(w, cell_at(w, 41, pay_col(w, NPAYSTR)), big, 300000);
		cell_at(w, 41, pay_col(w, NPAYSTR))->null = false;
		free(big);
		jr.type = CORE_JOIN_INNER;
		jr.limit = 1 << 20;
		describe(what, sizeof(what), lt, rt, &jr, "a row too wide");
		run_join(lt, rt, &jr, &res);
		snprintf(msg, sizeof(msg), "row 42 of the %s input is ",
		    side ? "right" : "left");
		ok = res.rc == CORE_ELIMIT && strstr(res.err.msg, msg) &&
		    strstr(res.err.msg, "more than a quarter of the memory "
		    "budget (1048576 bytes) can join: give -m 3M or more") &&
		    res.st.need_mem == 3 << 20 && res.used == 0;
		if (!ok)
			printf("# %s: rc %d: %s (%llu left charged)\n", what,
			    res.rc, res.err.msg,
			    (unsigned long long)res.used);
		CHECK(ok);
		result_free(&res);
		jr.limit = 3 << 20;
		describe(what, sizeof(what), lt, rt, &jr,
		    "a row too wide, at the budget named");
		ok = expected_rows(lt, rt, &jr, &want);
		run_join(lt, rt, &jr, &res);
		CHECK(check_result(&res, lt, rt, &jr, &want, what) && ok);
		result_free(&res);
		rows_free(&want);
		table_free(lt);
		table_free(rt);
	}
	/* Flags: 20000 left rows of key 7 semi-joined with 3000 right
	 * rows of it, built right, under 16 KiB (the tools take 256 KiB at
	 * least; the reference is a nested loop): chunks of the right's
	 * rows, a flag a left row. */
	{
		struct table *lt = table_new(K_I64, 0);
		struct table *rt = table_new(K_I64, 1);
		struct jrun jr = { 0 };
		struct result res;
		struct rows want;
		char what[300];
		unsigned long long m;
		const char *give;
		bool ok;

		for (i = 0; i < 20000; i++)
			add_row(lt, 7, 0);
		for (i = 0; i < 3000; i++)
			add_row(rt, 7, 0);
		jr.type = CORE_JOIN_SEMI;
		jr.limit = 16 << 10;
		describe(what, sizeof(what), lt, rt, &jr, "flags");
		run_join(lt, rt, &jr, &res);
		give = strstr(res.err.msg, "give -m ");
		ok = res.rc == CORE_ELIMIT && give != NULL &&
		    strstr(res.err.msg, "a partition joined in chunks needs "
		    "a flag for each of its ") && strstr(res.err.msg, " left "
		    "rows, more than the memory budget (16384 bytes) has "
		    "room for: give -m ") &&
		    res.used == 0;
		if (!ok)
			printf("# %s: rc %d: %s\n", what, res.rc,
			    res.err.msg);
		CHECK(ok);
		m = give != NULL ? strtoull(give + 8, NULL, 10) : 1;
		CHECK(res.st.need_mem == m << 20);
		result_free(&res);
		jr.limit = m << 20;
		describe(what, sizeof(what), lt, rt, &jr,
		    "flags, at the budget named");
		ok = expected_rows(lt, rt, &jr, &want);
		run_join(lt, rt, &jr, &res);
		CHECK(check_result(&res, lt, rt, &jr, &want, what) && ok);
		result_free(&res);
		rows_free(&want);
		table_free(lt);
		table_free(rt);
	}
}

/* One case of a sweep: the tables, the join (type and build side set;
 * t is the type's index), and the reference's rows. */
typedef void sweep_fn(const struct table *lt, const struct table *rt,
    struct jrun *jr, unsigned t, const struct rows *want);

/* Runs one for inner, full (both sides built) and anti joins on int,
 * string and decimal keys, over inputs of many batches. */
static void
sweep_cases(sweep_fn *one, bool size_hint)
{
	static const enum core_join_type stypes[] = { CORE_JOIN_INNER,
	    CORE_JOIN_FULL, CORE_JOIN_ANTI };
	static const enum kind skinds[] = { K_I64, K_STR, K_WIDE };
	unsigned kd, t, bl;

	for (kd = 0; kd < sizeof(skinds) / sizeof(skinds[0]); kd++) {
		struct table *lt = table_new(skinds[kd], 0);
		struct table *rt = table_new(skinds[kd], 1);

		fill_table(lt, 30000 / SCALE, 120000 / SCALE, 2);
		fill_table(rt, 100000 / SCALE, 120000 / SCALE, 2);
		for (t = 0; t < sizeof(stypes) / sizeof(stypes[0]); t++)
			for (bl = 0; bl < (t < 2 ? 2u : 1u); bl++) {
				struct jrun jr = { 0 };
				struct rows want;
				bool ref_ok;

				jr.type = stypes[t];
				jr.build_left = bl;
				jr.size_hint = size_hint;
				ref_ok = expected_rows(lt, rt, &jr, &want);
				CHECK(ref_ok);
				one(lt, rt, &jr, t, &want);
				rows_free(&want);
			}
		table_free(lt);
		table_free(rt);
	}
}

static void
budget_case(const struct table *lt, const struct table *rt, struct jrun *jr,
    unsigned t, const struct rows *want)
{
	static const uint64_t budgets[] = { 256 << 10, 1 << 20, 4 << 20,
	    64 << 20, 0 };
	unsigned b;

	for (b = 0; b < sizeof(budgets) / sizeof(budgets[0]); b++) {
		struct result res;
		char what[300];

		jr->limit = budgets[b];
		jr->threads = 1 + b % 2;
		jr->compress = b == 1;
		jr->size_hint = (t + b) % 2 == 1;
		describe(what, sizeof(what), lt, rt, jr, "sweep");
		run_join(lt, rt, jr, &res);
		CHECK(check_result(&res, lt, rt, jr, want, what));
		if (res.rc == 0 && b < 2 && res.st.levels < 1) {
			printf("# %s: not partitioned\n", what);
			CHECK(res.st.levels >= 1);
		}
		if (res.rc == 0 && budgets[b] == 0 &&
		    (res.st.levels != 0 || res.st.spill_bytes != 0)) {
			printf("# %s: spilled\n", what);
			CHECK(res.st.levels == 0);
		}
		result_free(&res);
	}
}

/*
 * The same multiset at every budget over inputs of many batches; the
 * small budgets partition, the unlimited one does not, and the peak
 * charge stays within the budget.
 */
static void
test_budget_sweep(void)
{
	sweep_cases(budget_case, false);
}

static void
hint_case(const struct table *lt, const struct table *rt, struct jrun *jr,
    unsigned t, const struct rows *want)
{
	static const uint64_t budgets[] = { 256 << 10, 1 << 20, 4 << 20 };
	static const uint32_t muls[] = { 2, 30, 1000 };
	unsigned b, m;

	(void)t;
	for (b = 0; b < sizeof(budgets) / sizeof(budgets[0]); b++)
		for (m = 0; m < sizeof(muls) / sizeof(muls[0]); m++) {
			struct result res;
			char what[300];

			jr->limit = budgets[b];
			jr->hint_mul = muls[m];
			jr->threads = 1 + m % 2;
			describe(what, sizeof(what), lt, rt, jr, "hint");
			run_join(lt, rt, jr, &res);
			CHECK(check_result(&res, lt, rt, jr, want, what));
			/* A size too small leaves the join hybrid, not all
			 * on disk: the partitions that fit stay. */
			if (budgets[b] >= (4 << 20) && muls[m] <= 30 &&
			    res.st.spill_bytes > 0 && res.st.kept == 0) {
				printf("# %s: nothing kept in memory\n", what);
				CHECK(false);
			}
			result_free(&res);
		}
}

/*
 * Sizes that are wrong: far too small (the build side looks as if it
 * fits, or as if a few partitions of it did) or far too large.  The
 * same multiset, and the peak charge within the budget, at each.
 */
static void
test_hint_sweep(void)
{
	sweep_cases(hint_case, true);
}

/*
 * --build auto without sizes: both inputs are read ahead and the one
 * that ends first is hashed, when it ends within the read-ahead's cap
 * (an eighth of the budget); else the fallback side.  The same rows
 * whichever side is hashed, at every budget, every type.
 */
static void
test_build_auto(void)
{
	static const uint64_t budgets[] = { 256 << 10, 4 << 20, 0 };
	static const struct {
		size_t ln, rn;
	} sizes[] = { { 40, 20000 }, { 20000, 40 }, { 0, 3000 },
	    { 3000, 0 }, { 20000, 30000 } };
	unsigned z, t, b, fb;

	for (z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
		struct table *lt = table_new(K_I64, 0);
		struct table *rt = table_new(K_I64, 1);

		fill_table(lt, sizes[z].ln, 3000, 3);
		fill_table(rt, sizes[z].rn, 3000, 3);
		for (t = 0; t < sizeof(types) / sizeof(types[0]); t++)
			for (b = 0; b < sizeof(budgets) / sizeof(budgets[0]);
			    b++)
				for (fb = 0; fb < 2; fb++) {
					struct jrun jr = { 0 };
					struct result res;
					struct rows want;
					char what[300];
					bool small = sizes[z].ln < 1000 ||
					    sizes[z].rn < 1000;
					/* 20000 rows of ~100 bytes pass an
					 * eighth of 4M; 3000 do not. */
					bool decided = small || budgets[b] == 0;
					bool want_left = decided ?
					    sizes[z].ln < sizes[z].rn : fb;

					jr.type = types[t];
					jr.build_auto = true;
					jr.build_left = fb;
					jr.limit = budgets[b];
					jr.batch_rows = 500;
					jr.threads = 1 + fb;
					describe(what, sizeof(what), lt, rt,
					    &jr, "auto");
					CHECK(expected_rows(lt, rt, &jr,
					    &want));
					run_join(lt, rt, &jr, &res);
					CHECK(check_result(&res, lt, rt, &jr,
					    &want, what));
					if (res.rc == 0 &&
					    res.st.build_left != want_left) {
						printf("# %s: built on the "
						    "%s\n", what,
						    res.st.build_left ?
						    "left" : "right");
						CHECK(res.st.build_left ==
						    want_left);
					}
					result_free(&res);
					rows_free(&want);
				}
		table_free(lt);
		table_free(rt);
	}
}

/* The spill cap, an input's failure and emit's stop are passed back. */
static void
test_errors(void)
{
	struct table *lt = table_new(K_I64, 0), *rt = table_new(K_I64, 1);
	struct jrun jr = { 0 };
	struct result res;
	unsigned side, when;

	fill_table(lt, 30000 / SCALE, 20000, 2);
	fill_table(rt, 60000 / SCALE, 20000, 2);

	/* A cap on spilled bytes the partitions pass. */
	jr.type = CORE_JOIN_INNER;
	jr.limit = 256 << 10;
	jr.max_spill = 4096;
	run_join(lt, rt, &jr, &res);
	CHECK_EQ_INT(res.rc, CORE_ELIMIT);
	CHECK_EQ_INT(res.used, 0);
	result_free(&res);
	jr.max_spill = 1ull << 40;
	jr.compress = true;
	run_join(lt, rt, &jr, &res);
	CHECK_EQ_INT(res.rc, 0);
	CHECK(res.st.levels >= 1);
	/* Compressed frames are held twice while probed: still within. */
	CHECK(peak_ok(jr.limit, res.peak));
	result_free(&res);
	jr.compress = false;
	jr.max_spill = 0;

	/* An input fails on its first call, in the middle, or on the call
	 * that would have been its end; in memory and partitioned; both
	 * sides built. */
	for (side = 0; side < 2; side++)
		for (when = 0; when < 6; when++) {
			long at = when % 3 == 0 ? 1 : when % 3 == 1 ? 5 : -1;

			memset(&jr, 0, sizeof(jr));
			jr.type = when % 2 ? CORE_JOIN_FULL : CORE_JOIN_ANTI;
			jr.limit = when < 3 ? 0 : 256 << 10;
			jr.build_left = side == when % 2;
			jr.fail_rc = CORE_ECORRUPT;
			if (side)
				jr.rfail_at = at;
			else
				jr.lfail_at = at;
			run_join(lt, rt, &jr, &res);
			if (res.rc != CORE_ECORRUPT)
				printf("# input %u fails at call %ld, budget "
				    "%llu: rc %d\n", side, at,
				    (unsigned long long)jr.limit, res.rc);
			CHECK_EQ_INT(res.rc, CORE_ECORRUPT);
			CHECK(strstr(res.err.msg, "test input fails") != NULL);
			CHECK_EQ_INT(res.used, 0);
			result_free(&res);
		}

	/* emit's non-zero stops the join: no call after it. */
	for (when = 0; when < 4; when++) {
		memset(&jr, 0, sizeof(jr));
		jr.type = CORE_JOIN_INNER;
		jr.limit = when % 2 ? 256 << 10 : 0;
		jr.batch_rows = 100;
		jr.stop_at = when < 2 ? 1 : 3;
		jr.stop_rc = when < 2 ? 42 : CORE_EPIPE;
		run_join(lt, rt, &jr, &res);
		CHECK_EQ_INT(res.rc, jr.stop_rc);
		CHECK_EQ_INT(res.sink.calls, jr.stop_at);
		CHECK_EQ_INT(res.used, 0);
		result_free(&res);
	}

	/* NOT IN over two key pairs is not offered. */
	table_free(lt);
	table_free(rt);
	lt = table_new(K_TWO64, 0);
	rt = table_new(K_TWO64, 1);
	fill_table(lt, 10, 5, 0);
	fill_table(rt, 10, 5, 0);
	memset(&jr, 0, sizeof(jr));
	jr.type = CORE_JOIN_ANTI;
	jr.null_aware = true;
	run_join(lt, rt, &jr, &res);
	CHECK_EQ_INT(res.rc, CORE_EUSAGE);
	result_free(&res);
	table_free(lt);
	table_free(rt);
}

/*
 * A plan narrowed to some output columns (core_join_plan_select), joined
 * over views of the columns each side then keeps, gives the rows of the
 * whole join cut to those columns, in the order asked for: random
 * selections (none, as a count; one; all; shuffled; keys or not) of
 * every type, in memory and partitioned, both sides built.  Then the
 * usage errors.
 */
/* One selection case: the whole join's rows cut to a random selection
 * (round 0 none, 1 one column, 2 all shuffled, 3 some) against the
 * narrowed join's. */
static bool
select_case(const struct table *lt, const struct table *rt,
    struct jrun *jr, unsigned round)
{
	struct result whole, part;
	uint32_t sel[64], n, i, j, k;
	char list[1024], what[300];
	size_t at = 0;
	bool ok = true;

	/* The whole join, for its plan's names. */
	run_join(lt, rt, jr, &whole);
	if (whole.rc != 0) {
		result_free(&whole);
		return false;
	}
	n = whole.plan->out->ncols;
	for (i = 0; i < n; i++)
		sel[i] = i;
	for (i = n; i > 1; i--) {
		j = (uint32_t)(rnd() % i);
		k = sel[i - 1];
		sel[i - 1] = sel[j];
		sel[j] = k;
	}
	n = round == 0 ? 0 : round == 1 ? 1 : round == 2 ? n :
	    1 + (uint32_t)(rnd() % n);
	list[0] = '\0';
	for (i = 0; i < n; i++)
		at += (size_t)snprintf(list + at, sizeof(list) - at, "%s%s",
		    i ? "," : "", whole.plan->out->fields[sel[i]].name);
	result_free(&whole);
	jr->sel = sel;
	jr->nsel = n;
	run_join(lt, rt, jr, &whole);
	jr->sel = NULL;
	jr->nsel = 0;
	jr->select = list;
	run_join(lt, rt, jr, &part);
	jr->select = NULL;
	describe(what, sizeof(what), lt, rt, jr, list);
	if (whole.rc != 0 || part.rc != 0 || part.plan->out->ncols != n ||
	    part.sink.bad != 0 || !peak_ok(jr->limit, part.peak)) {
		printf("# %s: rc %d, %d: %s\n", what, whole.rc, part.rc,
		    part.err.msg);
		ok = false;
	} else if (!rows_same(&part.sink.rows, &whole.sink.rows, what)) {
		ok = false;
	}
	result_free(&whole);
	result_free(&part);
	return ok;
}

static void
test_select(void)
{
	static const uint64_t budgets[] = { 256 << 10, 0 };
	static const enum kind skinds[] = { K_I64, K_TWO32, K_STR, K_WIDE };
	unsigned kd, t, b, round;

	for (kd = 0; kd < sizeof(skinds) / sizeof(skinds[0]); kd++) {
		struct table *lt = table_new(skinds[kd], 0);
		struct table *rt = table_new(skinds[kd], 1);

		fill_table(lt, 8000 / SCALE, 6000 / SCALE, 3);
		fill_table(rt, 12000 / SCALE, 6000 / SCALE, 3);
		for (t = 0; t < NTYPES; t++)
			for (round = 0; round < 4; round++)
				for (b = 0; b < 2; b++) {
					struct jrun jr = { 0 };

					jr.type = types[t];
					jr.build_left = (round + b) % 2;
					jr.drop = round == 3;
					jr.limit = budgets[b];
					jr.threads = 1 + round % 2;
					CHECK(select_case(lt, rt, &jr, round));
				}
		table_free(lt);
		table_free(rt);
	}
	{
		static const char *const bad[][2] = {
			{ "lk0,nope", "no column 'nope'" },
			{ "lk0,,id", "empty column name" },
			{ "lk0,lk0", "in the output list twice" },
			{ "lk", "did you mean 'lk0'?" },
		};
		struct table *lt = table_new(K_I64, 0);
		struct table *rt = table_new(K_I64, 1);
		struct core_join_spec spec = { CORE_JOIN_INNER, "lk0=rk0",
		    NULL, false };

		fill_table(lt, 10, 10, 0);
		fill_table(rt, 10, 10, 0);
		for (b = 0; b < sizeof(bad) / sizeof(bad[0]); b++) {
			struct core_join_plan *p = NULL;
			struct core_join_proj proj;
			struct core_err err = { 0, "" };

			CHECK_EQ_INT(core_join_plan_new(&spec, lt->schema,
			    rt->schema, &p, &err), 0);
			CHECK_EQ_INT(core_join_plan_select(p, lt->schema,
			    rt->schema, bad[b][0], &proj, &err), CORE_EUSAGE);
			if (strstr(err.msg, bad[b][1]) == NULL) {
				printf("# '%s': '%s' lacks '%s'\n", bad[b][0],
				    err.msg, bad[b][1]);
				unit_cur_failed++;
			}
			/* The plan as it was. */
			CHECK_EQ_INT(p->out->ncols, lt->schema->ncols +
			    rt->schema->ncols);
			core_join_plan_free(p);
		}
		table_free(lt);
		table_free(rt);
	}
}

/* An argument runs only the tests whose names contain it (each test
 * seeds the generator itself, so it runs alone as it runs with the
 * others). */
#define RUN_IF(fn)							\
	do {								\
		if (argc < 2 || strstr(#fn, argv[1]) != NULL) {		\
			rng = 0x9e3779b97f4a7c15ull;			\
			RUN(fn);					\
		}							\
	} while (0)

int
main(int argc, char **argv)
{
	RUN_IF(test_fixed);
	RUN_IF(test_kinds);
	RUN_IF(test_giant_key);
	RUN_IF(test_too_wide);
	RUN_IF(test_budget_sweep);
	RUN_IF(test_hint_sweep);
	RUN_IF(test_build_auto);
	RUN_IF(test_errors);
	RUN_IF(test_select);
	return unit_done();
}
