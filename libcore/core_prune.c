/*
 * core_prune.c - ruling units out by their statistics (core_prune.h).
 *
 * The conjuncts kept are terms over one column's own values: the
 * comparison's column side must be the column node itself, not a cast
 * of it, so the statistics (in the column's domain) compare with the
 * constant exactly as the evaluator compares rows: integer-domain values
 * as col * fa against k * fb in 128 bits (fa, fb are the bound node's
 * scale factors), decimal128 ones as col * wfa against k * wfb with the
 * evaluator's rule for products past 128 bits, strings bytewise.
 */
#include <stdlib.h>
#include <string.h>

#include "core_alloc.h"
#include "core_prune.h"

enum term_kind { T_CMP, T_NULL, T_NOT_NULL, T_IN };

struct term {
	enum term_kind kind;
	int col;
	bool str;			/* a string column */
	bool wide;			/* a decimal128 column */
	core_i128 wk, wfa, wfb;		/* T_CMP wide: col * wfa op wk * wfb */
	enum core_expr_op op;		/* T_CMP: col op k */
	__int128 k, fa;			/* T_CMP integers: col * fa op k */
	const char *s;			/* T_CMP strings: borrowed */
	uint32_t slen;
	const struct core_inset *set;	/* T_IN: borrowed */
};

struct core_prune {
	struct term *terms;	/* owned */
	uint32_t n, cap;
	bool *cols;		/* owned, in->ncols */
};

/* The operator seen from the other side: k < col is col > k. */
static enum core_expr_op
flip(enum core_expr_op op)
{
	switch (op) {
	case CORE_OP_LT:
		return CORE_OP_GT;
	case CORE_OP_LE:
		return CORE_OP_GE;
	case CORE_OP_GT:
		return CORE_OP_LT;
	case CORE_OP_GE:
		return CORE_OP_LE;
	default:
		return op;
	}
}

static bool
is_prunable_col(const struct core_bnode *n)
{
	return n->kind == CORE_BN_COLUMN && (n->phys == CORE_PHYS_I64 ||
	    n->phys == CORE_PHYS_STR || n->phys == CORE_PHYS_I128) &&
	    n->type.id != CORE_TYPE_BOOL;
}

static struct term *
add(struct core_prune *p)
{
	if (p->n == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 8;
		p->terms = core_xrealloc(p->terms,
		    p->cap * sizeof(*p->terms));
	}
	memset(&p->terms[p->n], 0, sizeof(p->terms[p->n]));
	return &p->terms[p->n++];
}

/* Keeps the conjuncts of n that statistics can decide. */
static void
collect(struct core_prune *p, const struct core_bnode *n)
{
	const struct core_bnode *a, *b;
	struct term *t;

	switch (n->kind) {
	case CORE_BN_AND:
		collect(p, n->kids[0]);
		collect(p, n->kids[1]);
		return;
	case CORE_BN_CMP:
		a = n->kids[0];
		b = n->kids[1];
		if (is_prunable_col(a) && b->kind == CORE_BN_CONST &&
		    !b->k.null) {
			t = add(p);
			t->op = n->op;
			t->k = (__int128)b->k.i * n->fb;
			t->fa = n->fa;
			t->wk = b->k.w;
			t->wfa = n->wfa;
			t->wfb = n->wfb;
		} else if (is_prunable_col(b) && a->kind == CORE_BN_CONST &&
		    !a->k.null) {
			t = add(p);
			t->op = flip(n->op);
			t->k = (__int128)a->k.i * n->fa;
			t->fa = n->fb;
			t->wk = a->k.w;
			t->wfa = n->wfb;
			t->wfb = n->wfa;
			a = b;
			b = n->kids[0];
		} else {
			return;
		}
		t->kind = T_CMP;
		t->wide = a->phys == CORE_PHYS_I128;
		if (t->wide && b->phys != CORE_PHYS_I128) {
			p->n--;		/* not widened alike: keep out */
			return;
		}
		t->col = a->col;
		t->str = a->phys == CORE_PHYS_STR;
		t->s = b->k.s;
		t->slen = b->k.slen;
		if (t->str && b->phys != CORE_PHYS_STR)
			p->n--;		/* not a string constant: keep out */
		return;
	case CORE_BN_IS_NULL:
		a = n->kids[0];
		if (a->kind != CORE_BN_COLUMN)
			return;
		t = add(p);
		t->kind = n->negated ? T_NOT_NULL : T_NULL;
		t->col = a->col;
		return;
	case CORE_BN_IN:
		a = n->kids[0];
		if (n->negated || !is_prunable_col(a))
			return;
		t = add(p);
		t->kind = T_IN;
		t->col = a->col;
		t->str = a->phys == CORE_PHYS_STR;
		t->wide = a->phys == CORE_PHYS_I128;
		t->set = &n->set;
		return;
	default:
		return;
	}
}

struct core_prune *
core_prune_new(const struct core_expr_bound *where,
    const struct core_schema *in)
{
	struct core_prune *p;
	uint32_t i;

	if (where == NULL)
		return NULL;
	p = core_xcalloc(1, sizeof(*p));
	collect(p, where->root);
	if (p->n == 0) {
		core_prune_free(p);
		return NULL;
	}
	p->cols = core_xcalloc(in->ncols ? in->ncols : 1, 1);
	for (i = 0; i < p->n; i++)
		p->cols[p->terms[i].col] = true;
	return p;
}

void
core_prune_free(struct core_prune *p)
{
	if (p == NULL)
		return;
	free(p->terms);
	free(p->cols);
	free(p);
}

const bool *
core_prune_columns(const struct core_prune *p)
{
	return p->cols;
}

/* Bytewise order of two strings, as the evaluator compares them. */
static int
scmp(const char *a, uint32_t an, const char *b, uint32_t bn)
{
	int c = memcmp(a, b, an < bn ? an : bn);

	if (c != 0)
		return c < 0 ? -1 : 1;
	return (an > bn) - (an < bn);
}

/* Whether some v in [lo, hi] (each compared with k as c(v) is) may
 * make v op k true, from lo's and hi's comparisons with k. */
static bool
range_may(enum core_expr_op op, int clo, int chi)
{
	switch (op) {
	case CORE_OP_EQ:
		return clo <= 0 && chi >= 0;
	case CORE_OP_NE:
		return !(clo == 0 && chi == 0);
	case CORE_OP_LT:
		return clo < 0;
	case CORE_OP_LE:
		return clo <= 0;
	case CORE_OP_GT:
		return chi > 0;
	case CORE_OP_GE:
		return chi >= 0;
	default:
		return true;
	}
}

static int
icmp(__int128 x, __int128 y)
{
	return (x > y) - (x < y);
}

/* x * fa against y * fb (fa, fb > 0) as the evaluator compares
 * decimal128 values: a product past 128 bits is beyond any value the
 * other side can hold, so its sign decides. */
static int
wcmp(core_i128 x, core_i128 fa, core_i128 y, core_i128 fb)
{
	core_i128 p, q;

	if (__builtin_mul_overflow(x, fa, &p))
		return x > 0 ? 1 : -1;
	if (__builtin_mul_overflow(y, fb, &q))
		return y > 0 ? -1 : 1;
	return (p > q) - (p < q);
}

/* Whether some item of the sorted set lies in [min, max]. */
static bool
set_may(const struct term *t, const struct core_colstats *st)
{
	const struct core_inset *set = t->set;
	uint32_t lo = 0, hi = set->n;

	/* The first item >= min, then is it <= max. */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		bool below = t->str ? scmp(set->s[mid].p, set->s[mid].n,
		    st->smin, st->sminlen) < 0 : t->wide ?
		    set->w[mid] < st->wmin : set->i[mid] < st->imin;

		if (below)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == set->n)
		return false;
	if (t->wide)
		return set->w[lo] <= st->wmax;
	return t->str ? scmp(set->s[lo].p, set->s[lo].n, st->smax,
	    st->smaxlen) <= 0 : set->i[lo] <= st->imax;
}

static bool
term_may(const struct term *t, const struct core_colstats *st)
{
	bool all_null = st->has_null_count && st->null_count >= st->rows;

	switch (t->kind) {
	case T_NULL:
		return !st->has_null_count || st->null_count > 0;
	case T_NOT_NULL:
		return !all_null;
	case T_IN:
		if (all_null)
			return false;
		return !st->has_minmax || set_may(t, st);
	case T_CMP:
		if (all_null)
			return false;
		if (!st->has_minmax)
			return true;
		if (t->str)
			return range_may(t->op, scmp(st->smin, st->sminlen,
			    t->s, t->slen), scmp(st->smax, st->smaxlen, t->s,
			    t->slen));
		if (t->wide)
			return range_may(t->op, wcmp(st->wmin, t->wfa, t->wk,
			    t->wfb), wcmp(st->wmax, t->wfa, t->wk, t->wfb));
		return range_may(t->op, icmp((__int128)st->imin * t->fa, t->k),
		    icmp((__int128)st->imax * t->fa, t->k));
	}
	return true;
}

bool
core_prune_may_match(const struct core_prune *p,
    const struct core_colstats *st)
{
	uint32_t i;

	for (i = 0; i < p->n; i++)
		if (!term_may(&p->terms[i], &st[p->terms[i].col]))
			return false;
	return true;
}

bool
core_prune_has_eq(const struct core_prune *p, uint32_t col)
{
	uint32_t i;

	for (i = 0; p != NULL && i < p->n; i++) {
		const struct term *t = &p->terms[i];

		if (t->col == (int)col && (t->kind == T_IN ||
		    (t->kind == T_CMP && t->op == CORE_OP_EQ)))
			return true;
	}
	return false;
}
