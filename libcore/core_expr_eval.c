/*
 * core_expr_eval.c - the vectorized evaluator of bound expressions.
 *
 * Each node runs once per batch: one switch on its kind and class, then a
 * loop over the selected rows.  Results are indexed by batch row, so a
 * column of a 64-bit type is its own result (read in place, no copy), a
 * child evaluated on fewer rows than its parent (AND's right side, a
 * THEN branch) needs no scatter, and constants are one slot read through
 * a zero index mask.  Decimal128 values (CORE_PHYS_I128) are copied from
 * their columns into 16-byte aligned scratch, as a borrowed column buffer
 * may be only 8-byte aligned; their kernels check every result against
 * +-(10^p - 1) and 128-bit overflow alike.  NULL is a byte per row,
 * 1 = NULL, or no array at all when no row of a vector is NULL.
 *
 * Overflow is detected in the loop by flags or'ed together (only for rows
 * that are not NULL, whose slots may hold anything); the row is looked up
 * only after a loop has found one.
 *
 * The workload: batches of a few thousand rows, expressions of tens of
 * nodes; scratch grows to the largest batch and stays.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core_alloc.h"
#include "core_expr_eval.h"
#include "core_value.h"

#define US_PER_DAY 86400000000ll

static const uint8_t zero_byte = 0, one_byte = 1;
static const uint32_t zero_sel = 0;
static const double zero_f64 = 0;
static const core_i128 zero_w = 0;	/* a zero of any class */

struct ctx {
	struct core_expr_bound *b;
	const struct core_batch *batch;
	struct core_err *err;
};

static int eval(struct ctx *cx, struct core_bnode *n, const uint32_t *sel,
    uint32_t cnt);

/* ---- scratch ---- */

static void *
vals(struct core_bnode *n, uint32_t nrows, size_t w)
{
	size_t need = (size_t)(nrows ? nrows : 1) * w;

	if (n->buf_cap < need)
		core_grow_aligned(&n->buf, &n->buf_cap, need);
	return n->buf;
}

static uint8_t *
nuls(struct core_bnode *n, uint32_t nrows)
{
	size_t need = nrows ? nrows : 1;

	if (n->nul_cap < need)
		core_grow_aligned((void **)&n->nulbuf, &n->nul_cap, need);
	return n->nulbuf;
}

static uint32_t *
sels(struct core_bnode *n, int k, uint32_t nrows)
{
	size_t need = (size_t)(nrows ? nrows : 1) * sizeof(uint32_t);

	if (n->sel_cap[k] < need)
		core_grow_aligned((void **)&n->sel[k], &n->sel_cap[k], need);
	return n->sel[k];
}

static char *
arena(struct core_bnode *n, size_t need)
{
	if (n->arena_cap < need || n->arena == NULL)
		core_grow_aligned((void **)&n->arena, &n->arena_cap,
		    need ? need : 1);
	return n->arena;
}

/* The NULL bytes of v with their mask, a zero byte when none is NULL. */
static inline void
nulview(const struct core_bvec *v, const uint8_t **p, uint32_t *m)
{
	if (v->nul == NULL) {
		*p = &zero_byte;
		*m = 0;
	} else {
		*p = v->nul;
		*m = v->m;
	}
}

/* n's NULL bytes: those of a or b (b may be NULL). */
static const uint8_t *
nul_union(struct core_bnode *n, const struct core_bvec *a,
    const struct core_bvec *b, const uint32_t *sel, uint32_t cnt,
    uint32_t nrows)
{
	const uint8_t *pa, *pb;
	uint32_t ma, mb, i, r;
	uint8_t *o;

	if (a->nul == NULL && (b == NULL || b->nul == NULL))
		return NULL;
	if (b == NULL && a->m != 0)
		return a->nul;
	nulview(a, &pa, &ma);
	if (b != NULL) {
		nulview(b, &pb, &mb);
	} else {
		pb = &zero_byte;
		mb = 0;
	}
	o = nuls(n, nrows);
	for (i = 0; i < cnt; i++) {
		r = sel[i];
		o[r] = pa[r & ma] | pb[r & mb];
	}
	return o;
}

/* ---- errors ---- */

static int
row_err(struct ctx *cx, const struct core_bnode *n, uint32_t row,
    const char *what)
{
	const char *src = cx->b->src;
	uint32_t off = n->off, len = n->len;

	/* Folding at bind time: the binder adds the place. */
	if (cx->b->row_base == UINT64_MAX)
		return core_err_set(cx->err, CORE_EDATA, "%s", what);
	if (src == NULL || (size_t)off + len > cx->b->src_len)
		len = 0;
	return core_err_set(cx->err, CORE_EDATA, "row %llu: %s in '%.*s'",
	    (unsigned long long)(cx->b->row_base + row), what, (int)len,
	    len ? src + off : "");
}

static const char *
overflow_msg(const struct core_bnode *n, char *buf, size_t cap)
{
	char t[CORE_TYPE_NAME_MAX];

	snprintf(buf, cap, "%s overflow", core_type_name(n->type, t));
	return buf;
}

/* The first selected row, not NULL, for which bad() holds; used after a
 * loop has seen one. */
#define FIND_BAD(cond)							\
	do {								\
		for (i = 0; i < cnt; i++) {				\
			r = sel[i];					\
			if (!nn[r & nm] && (cond))			\
				break;					\
		}							\
	} while (0)

/* ---- dates ---- */

/* Days since 1970-01-01 of a proleptic Gregorian date (month 1..12). */
static int64_t
days_from_civil(int64_t y, unsigned m, unsigned d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static void
civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
	int64_t era, doe, yoe, doy, mp;

	z += 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*d = (unsigned)(doy - (153 * mp + 2) / 5 + 1);
	*m = (unsigned)(mp < 10 ? mp + 3 : mp - 9);
	*y = yoe + era * 400 + (*m <= 2);
}

static int64_t
floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;

	return q - ((a % b != 0) && ((a < 0) != (b < 0)));
}

static unsigned
month_days(int64_t y, unsigned m)
{
	static const unsigned md[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30,
	    31, 30, 31 };
	bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;

	return m == 2 && leap ? 29 : md[m - 1];
}

static int64_t
add_months(int64_t days, int32_t months)
{
	int64_t y, t;
	unsigned m, d, dm;

	civil_from_days(days, &y, &m, &d);
	t = y * 12 + (m - 1) + months;
	y = floor_div(t, 12);
	m = (unsigned)(t - y * 12) + 1;
	dm = month_days(y, m);
	return days_from_civil(y, m, d < dm ? d : dm);
}

/* ---- kernels ---- */

static int
eval_column(struct ctx *cx, struct core_bnode *n, const uint32_t *sel,
    uint32_t cnt)
{
	const struct core_column *c = &cx->batch->cols[n->col];
	uint32_t nrows = cx->batch->nrows, i, r;
	uint8_t *o;

	n->out.m = ~0u;
	switch (c->type.id) {
	case CORE_TYPE_INT32:
	case CORE_TYPE_DATE: {
		const int32_t *s = c->values;
		int64_t *d = vals(n, nrows, sizeof(int64_t));

		for (i = 0; i < cnt; i++) {
			r = sel[i];
			d[r] = s[r];
		}
		n->out.v = d;
		break;
	}
	case CORE_TYPE_DECIMAL128: {
		/* A borrowed buffer may be only 8-byte aligned: the values
		 * go through memcpy into aligned scratch. */
		const char *s = c->values;
		core_i128 *d = vals(n, nrows, sizeof(core_i128));

		for (i = 0; i < cnt; i++) {
			r = sel[i];
			d[r] = core_i128_load(s + (size_t)r * sizeof(*d));
		}
		n->out.v = d;
		break;
	}
	case CORE_TYPE_STRING: {
		const char *bytes = c->values;
		const int32_t *off = c->offsets;
		struct core_bstr *d = vals(n, nrows, sizeof(*d));

		for (i = 0; i < cnt; i++) {
			r = sel[i];
			d[r].p = bytes + off[r];
			d[r].n = (uint32_t)(off[r + 1] - off[r]);
		}
		n->out.v = d;
		break;
	}
	default:
		/* 8-byte values and bools are read in place. */
		n->out.v = c->values;
		break;
	}
	n->out.nul = NULL;
	if (c->validity != NULL) {
		o = nuls(n, nrows);
		for (i = 0; i < cnt; i++) {
			r = sel[i];
			o[r] = !((c->validity[r >> 3] >> (r & 7)) & 1);
		}
		n->out.nul = o;
	}
	return 0;
}

static void
eval_const(struct core_bnode *n)
{
	n->out.m = 0;
	n->out.nul = n->k.null ? &one_byte : NULL;
	switch (n->phys) {
	case CORE_PHYS_BOOL:
		n->out.v = &n->k.b;
		break;
	case CORE_PHYS_F64:
		n->out.v = &n->k.f;
		break;
	case CORE_PHYS_STR:
		n->kbstr.p = n->k.s != NULL ? n->k.s : "";
		n->kbstr.n = n->k.slen;
		n->out.v = &n->kbstr;
		break;
	case CORE_PHYS_I128:
		n->out.v = &n->k.w;
		break;
	default:
		n->out.v = &n->k.i;
		break;
	}
}

/* Whether one I64 + - * overflows; for finding the row after a loop
 * has seen an overflow. */
static unsigned
arith_one(enum core_expr_op op, int64_t x, int64_t y, int64_t fa,
    int64_t fb, int64_t lo, int64_t hi)
{
	int64_t z;
	unsigned o;

	if (op == CORE_OP_MUL) {
		o = __builtin_mul_overflow(x, y, &z);
	} else {
		o = __builtin_mul_overflow(x, fa, &x);
		o |= __builtin_mul_overflow(y, fb, &y);
		o |= op == CORE_OP_SUB ? __builtin_sub_overflow(x, y, &z) :
		    __builtin_add_overflow(x, y, &z);
	}
	return o | (z < lo) | (z > hi);
}

/* The same over I128, the result into *z. */
static inline unsigned
arith_one_w(enum core_expr_op op, core_i128 x, core_i128 y, core_i128 fa,
    core_i128 fb, core_i128 lo, core_i128 hi, core_i128 *z)
{
	unsigned o;

	if (op == CORE_OP_MUL) {
		o = __builtin_mul_overflow(x, y, z);
	} else {
		o = __builtin_mul_overflow(x, fa, &x);
		o |= __builtin_mul_overflow(y, fb, &y);
		o |= op == CORE_OP_SUB ? __builtin_sub_overflow(x, y, z) :
		    __builtin_add_overflow(x, y, z);
	}
	return o | (*z < lo) | (*z > hi);
}

/* + - * % over I128 (both operands I128, see the binder's widen). */
static int
eval_arith_w(struct ctx *cx, struct core_bnode *n, const uint32_t *sel,
    uint32_t cnt)
{
	const struct core_bnode *ka = n->kids[0], *kb = n->kids[1];
	const core_i128 *A = ka->out.v, *B = kb->out.v;
	uint32_t nrows = cx->batch->nrows, ma = ka->out.m, mb = kb->out.m;
	uint32_t i, r, nm;
	core_i128 *O = vals(n, nrows, sizeof(core_i128));
	core_i128 fa = n->wfa, fb = n->wfb, lo = n->wlo, hi = n->whi, x, y, z;
	enum core_expr_op op = n->op;
	const uint8_t *nn;
	unsigned bad = 0, o;
	char msg[64];

	n->out.v = O;
	nulview(&n->out, &nn, &nm);
	if (op == CORE_OP_MOD) {
		/* As over I64: x % 0 is NULL, x % -1 is 0.  The scaled
		 * operands fit: the type has room for either. */
		uint8_t *N = nuls(n, nrows);
		const uint8_t *pa, *pb;
		uint32_t xa, xb;

		nulview(&ka->out, &pa, &xa);
		nulview(&kb->out, &pb, &xb);
		for (i = 0; i < cnt; i++) {
			r = sel[i];
			(void)__builtin_mul_overflow(A[r & ma], fa, &x);
			(void)__builtin_mul_overflow(B[r & mb], fb, &y);
			N[r] = pa[r & xa] | pb[r & xb] | (y == 0);
			O[r] = y == 0 || y == -1 ? 0 : x % y;
		}
		n->out.nul = N;
		return 0;
	}
	if (op == CORE_OP_MUL) {
		/* Operands within int64 (decimals widened for the
		 * product's type, as in Q1's prices times discounts) make
		 * one 64 x 64 -> 128-bit multiply that cannot overflow; the
		 * others the checked 128-bit one (a library call). */
		for (i = 0; i < cnt; i++) {
			core_i128 a, b;

			r = sel[i];
			a = A[r & ma];
			b = B[r & mb];
			if (a == (int64_t)a && b == (int64_t)b) {
				z = (core_i128)(int64_t)a * (int64_t)b;
				o = 0;
			} else {
				o = __builtin_mul_overflow(a, b, &z);
			}
			o |= (z < lo) | (z > hi);
			O[r] = z;
			bad |= o & !nn[r & nm];
		}
	} else {
		for (i = 0; i < cnt; i++) {
			r = sel[i];
			bad |= arith_one_w(op, A[r & ma], B[r & mb], fa, fb,
			    lo, hi, &z) & !nn[r & nm];
			O[r] = z;
		}
	}
	if (bad) {
		FIND_BAD(arith_one_w(op, A[r & ma], B[r & mb], fa, fb, lo, hi,
		    &z));
		return row_err(cx, n, i < cnt ? sel[i] : 0,
		    overflow_msg(n, msg, sizeof(msg)));
	}
	return 0;
}

static int
eval_arith(struct ctx *cx, struct core_bnode *n, const uint32_t *sel,
    uint32_t cnt)
{
	struct core_bnode *ka = n->kids[0], *kb = n->kids[1];
	uint32_t nrows = cx->batch->nrows, i, r, ma, mb, nm;
	const uint8_t *nn;
	char msg[64];
	int rc;

	if ((rc = eval(cx, ka, sel, cnt)) != 0 ||
	    (rc = eval(cx, kb, sel, cnt)) != 0)
		return rc;
	ma = ka->out.m;
	mb = kb->out.m;
	n->out.m = ~0u;
	n->out.nul = nul_union(n, &ka->out, &kb->out, sel, cnt, nrows);
	nulview(&n->out, &nn, &nm);
	if (n->phys == CORE_PHYS_F64) {
		const double *A = ka->out.v, *B = kb->out.v;
		double *O = vals(n, nrows, sizeof(double));

		switch (n->op) {
		case CORE_OP_ADD:
			for (i = 0; i < cnt; i++) {
				r = sel[i];
				O[r] = A[r & ma] + B[r & mb];
			}
			break;
		case CORE_OP_SUB:
			for (i = 0; i < cnt; i++) {
				r = sel[i];
				O[r] = A[r & ma] - B[r & mb];
			}
			break;
		case CORE_OP_MUL:
			for (i = 0; i < cnt; i++) {
				r = sel[i];
				O[r] = A[r & ma] * B[r & mb];
			}
			break;
		case CORE_OP_DIV:
			for (i = 0; i < cnt; i++) {
				r = sel[i];
				O[r] = A[r & ma] / B[r & mb];
			}
			break;
		default:
			for (i = 0; i < cnt; i++) {
				r = sel[i];
				O[r] = fmod(A[r & ma], B[r & mb]);
			}
			break;
		}
		n->out.v = O;
		return 0;
	}
	if (n->phys == CORE_PHYS_I128)
		return eval_arith_w(cx, n, sel, cnt);

	const int64_t *A = ka->out.v, *B = kb->out.v;
	int64_t *O = vals(n, nrows, sizeof(int64_t));
	int64_t lo = n->lo, hi = n->hi, fa = n->fa, fb = n->fb, x, y, z;
	unsigned bad = 0, o;

	n->out.v = O;
	switch (n->op) {
	case CORE_OP_ADD:
	case CORE_OP_SUB:
		if (n->op == CORE_OP_SUB && fb == 1 && fa == 1) {
			for (i = 0; i < cnt; i++) {
				r = sel[i];
				o = __builtin_sub_overflow(A[r & ma],
				    B[r & mb], &z);
				o |= (z < lo) | (z > hi);
				O[r] = z;
				bad |= o & !nn[r & nm];
			}
		} else if (fa == 1 && fb == 1) {
			for (i = 0; i < cnt; i++) {
				r = sel[i];
				o = __builtin_add_overflow(A[r & ma],
				    B[r & mb], &z);
				o |= (z < lo) | (z > hi);
				O[r] = z;
				bad |= o & !nn[r & nm];
			}
		} else {
			bool sub = n->op == CORE_OP_SUB;

			for (i = 0; i < cnt; i++) {
				r = sel[i];
				o = __builtin_mul_overflow(A[r & ma], fa, &x);
				o |= __builtin_mul_overflow(B[r & mb], fb, &y);
				o |= sub ? __builtin_sub_overflow(x, y, &z) :
				    __builtin_add_overflow(x, y, &z);
				o |= (z < lo) | (z > hi);
				O[r] = z;
				bad |= o & !nn[r & nm];
			}
		}
		break;
	case CORE_OP_MUL:
		for (i = 0; i < cnt; i++) {
			r = sel[i];
			o = __builtin_mul_overflow(A[r & ma], B[r & mb], &z);
			o |= (z < lo) | (z > hi);
			O[r] = z;
			bad |= o & !nn[r & nm];
		}
		break;
	default: {
		/* x % 0 is NULL; x % -1 is 0 (INT64_MIN % -1 traps in C). */
		uint8_t *N = nuls(n, nrows);
		const uint8_t *pa, *pb;
		uint32_t xa, xb;

		nulview(&ka->out, &pa, &xa);
		nulview(&kb->out, &pb, &xb);
		/* Decimals at one scale: fa, fb (1 for integers). */
		for (i = 0; i < cnt; i++) {
			r = sel[i];
			/* (No overflow but in the NULL rows' slots.) */
			(void)__builtin_mul_overflow(A[r & ma], fa, &x);
			(void)__builtin_mul_overflow(B[r & mb], fb, &y);
			N[r] = pa[r & xa] | pb[r & xb] | (y == 0);
			O[r] = y == 0 || y == -1 ? 0 : x % y;
		}
		n->out.nul = N;
		break;
	}
	}
	if (bad) {
		FIND_BAD(arith_one(n->op, A[r & ma], B[r & mb], fa, fb, lo,
		    hi));
		return row_err(cx, n, i < cnt ? sel[i] : 0,
		    overflow_msg(n, msg, sizeof(msg)));
	}
	return 0;
}

/* One negation (or absolute value) with its overflow flag. */
static inline unsigned
neg_one(int64_t x, bool abs_, int64_t lo, int64_t hi, int64_t *z)
{
	unsigned o = __builtin_sub_overflow(0, x, z);

	if (abs_ && x >= 0) {
		*z = x;
		o = 0;
	}
	return o | (*z < lo) | (*z > hi);
}

static inline unsigned
neg_one_w(core_i128 x, bool abs_, core_i128 lo, core_i128 hi, core_i128 *z)
{
	unsigned o = __builtin_sub_overflow(0, x, z);

	if (abs_ && x >= 0) {
		*z = x;
		o = 0;
	}
	return o | (*z < lo) | (*z > hi);
}

static int
eval_neg(struct ctx *cx, struct core_bnode *n, const uint32_t *sel,
    uint32_t cnt, bool abs_)
{
	struct core_bnode *k = n->kids[0];
	uint32_t nrows = cx->batch->nrows, i, r, m, nm;
	const uint8_t *nn;
	char msg[64];
	int rc;

	if ((rc = eval(cx, k, sel, cnt)) != 0)
		return rc;
	m = k->out.m;
	n->out.m = ~0u;
	n->out.nul = nul_union(n, &k->out, NULL, sel, cnt, nrows);
	nulview(&n->out, &nn, &nm);
	if (n->phys == CORE_PHYS_F64) {
		const double *A = k->out.v;
		double *O = vals(n, nrows, sizeof(double));

		for (i = 0; i < cnt; i++) {
			r = sel[i];
			O[r] = abs_ ? fabs(A[r & m]) : -A[r & m];
		}
		n->out.v = O;
		return 0;
	}
	if (n->phys == CORE_PHYS_I128) {
		const core_i128 *A = k->out.v;
		core_i128 *O = vals(n, nrows, sizeof(core_i128)), z;
		unsigned bad = 0;

		for (i = 0; i < cnt; i++) {
			r = sel[i];
			bad |= neg_one_w(A[r & m], abs_, n->wlo, n->whi, &z) &
			    !nn[r & nm];
			O[r] = z;
		}
		n->out.v = O;
		if (bad) {
			FIND_BAD(neg_one_w(A[r & m], abs_, n->wlo, n->whi,
			    &z));
			return row_err(cx, n, i < cnt ? sel[i] : 0,
			    overflow_msg(n, msg, sizeof(msg)));
		}
		return 0;
	}
	const int64_t *A = k->out.v;
	int64_t *O = vals(n, nrows, sizeof(int64_t)), z, lo = n->lo,
	    hi = n->hi;
	unsigned bad = 0;

	for (i = 0; i < cnt; i++) {
		r = sel[i];
		bad |= neg_one(A[r & m], abs_, lo, hi, &z) & !nn[r & nm];
		O[r] = z;
	}
	n->out.v = O;
	if (bad) {
		FIND_BAD(neg_one(A[r & m], abs_, lo, hi, &z));
		return row_err(cx, n, i < cnt ? sel[i] : 0,
		    overflow_msg(n, msg, sizeof(msg)));
	}
	return 0;
}

/* -1, 0, 1 to the truth of each comparison operator. */
static const uint8_t cmp_lut[6][3] = {
	{ 0, 1, 0 },	/* = */
	{ 1, 0, 1 },	/* <> */
	{ 1, 0, 0 },	/* < */
	{ 1, 1, 0 },	/* <= */
	{ 0, 0, 1 },	/* > */
	{ 0, 1, 1 },	/* >= */
};

static inline int
fcmp(double x, double y)
{
	/* NaN equals NaN and sorts above every number, as in DuckDB. */
	if (x != x || y != y)
		return (x != x) - (y != y);
	return (x > y) - (x < y);
}

static inline int
scmp(const struct core_bstr *x, const struct core_bstr *y)
{
	uint32_t m = x->n < y->n ? x->n : y->n;
	int c = m ? memcmp(x->p, y->p, m) : 0;

	if (c != 0)
		return (c > 0) - (c < 0);
	return (x->n > y->n) - (x->n < y->n);
}

/*
 * x * fa against y * fb, exactly.  One factor is 1 (both sides go to
 * the larger scale), and a product past 128 bits lies beyond every
 * value the other side can hold, so its sign decides.
 */
static inline int
cmp_scaled_w(core_i128 x, core_i128 fa, core_i128 y, core_i128 fb)
{
	core_i128 p, q;

	if (__builtin_mul_overflow(x, fa, &p))
		return x > 0 ? 1 : -1;
	if (__builtin_mul_overflow(y, fb, &q))
		return y > 0 ? -1 : 1;
	return (p > q) - (p < q);
}

static int
eval_cmp(struct ctx *cx, struct core_bnode *n, const uint32_t *sel,
    uint32_t cnt)
{
	struct core_bnode *ka = n->kids[0], *kb = n->kids[1];
	uint32_t nrows = cx->batch->nrows, i, r, ma, mb;
	const uint8_t *lut = cmp_lut[n->op - CORE_OP_EQ];
	uint8_t *O = vals(n, nrows, 1);
	int rc;

	if ((rc = eval(cx, ka, sel, cnt)) != 0 ||
	    (rc = eval(cx, kb, sel, cnt)) != 0)
		return rc;
	ma = ka->out.m;
	mb = kb->out.m;
	n->out.m = ~0u;
	n->out.v = O;
	n->out.nul = nul_union(n, &ka->out, &kb->out, sel, cnt, nrows);
	switch (ka->phys) {
	case CORE_PHYS_BOOL: {
		const uint8_t *A = ka->out.v, *B = kb->out.v;

		for (i = 0; i < cnt; i++) {
			r = sel[i];
			O[r] = lut[(A[r & ma] > B[r & mb]) -
			    (A[r & ma] < B[r & mb]) + 1];
		}
		break;
	}
	case CORE_PHYS_F64: {
		const double *A = ka->out.v, *B = kb->out.v;

		for (i = 0; i < cnt; i++) {
			r = sel[i];
			O[r] = lut[fcmp(A[r & ma], B[r & mb]) + 1];
		}
		break;
	}
	case CORE_PHYS_STR: {
		const struct core_bstr *A = ka->out.v, *B = kb->out.v;

		for (i = 0; i < cnt; i++) {
			r = sel[i];
			O[r] = lut[scmp(&A[r & ma], &B[r & mb]) + 1];
		}
		break;
	}
	case CORE_PHYS_I128: {
		const core_i128 *A = ka->out.v, *B = kb->out.v;
		core_i128 fa = n->wfa, fb = n->wfb, x, y;

		if (fa == 1 && fb == 1) {
			for (i = 0; i < cnt; i++) {
				r = sel[i];
				x = A[r & ma];
				y = B[r & mb];
				O[r] = lut[(x > y) - (x < y) + 1];
			}
			break;
		}
		for (i = 0; i < cnt; i++) {
			r = sel[i];
			O[r] = lut[cmp_scaled_w(A[r & ma], fa, B[r & mb], fb) +
			    1];
		}
		break;
	}
	default: {
		const int64_t *A = ka->out.v, *B = kb->out.v;
		__int128 fa = n->fa, fb = n->fb, x, y;

		if (n->fa == 1 && n->fb == 1) {
			for (i = 0; i < cnt; i++) {
				int64_t p = A[r = sel[i], r & ma],
				    q = B[r & mb];
				O[r] = lut[(p > q) - (p < q) + 1];
			}
		} else {
			for (i = 0; i < cnt; i++) {
				r = sel[i];
				x = A[r & ma] * fa;
				y = B[r & mb] * fb;
				O[r] = lut[(x > y) - (x < y) + 1];
			}
		}
		break;
	}
	}
	return 0;
}

/* AND and OR as values: the right side runs only where the left does
 * not decide (left not FALSE for AND, not TRUE for OR). */
static int
eval_logic(struct ctx *cx, struct core_bnode *n, const uint32_t *sel,
    uint32_t cnt)
{
	struct core_bnode *ka = n->kids[0], *kb = n->kids[1];
	uint32_t nrows = cx->batch->nrows, i, r, ma, mb, xa, xb, m = 0;
	uint8_t *O = vals(n, nrows, 1), *N = nuls(n, nrows);
	uint8_t decide = n->kind == CORE_BN_OR;	/* the deciding value */
	uint32_t *sub = sels(n, 0, nrows);
	const uint8_t *A, *B, *pa, *pb;
	int rc;

	if ((rc = eval(cx, ka, sel, cnt)) != 0)
		return rc;
	A = ka->out.v;
	ma = ka->out.m;
	nulview(&ka->out, &pa, &xa);
	for (i = 0; i < cnt; i++) {
		r = sel[i];
		bool d = !pa[r & xa] && A[r & ma] == decide;

		O[r] = decide;
		N[r] = 0;
		sub[m] = r;
		m += !d;
	}
	if ((rc = eval(cx, kb, sub, m)) != 0)
		return rc;
	B = kb->out.v;
	mb = kb->out.m;
	nulview(&kb->out, &pb, &xb);
	for (i = 0; i < m; i++) {
		r = sub[i];
		bool bn = pb[r & xb], bv = B[r & mb];

		if (!bn && bv == decide) {
			O[r] = decide;
			N[r] = 0;
		} else {
			O[r] = !decide;
			N[r] = pa[r & xa] | bn;
		}
	}
	n->out.v = O;
	n->out.nul = N;
	n->out.m = ~0u;
	return 0;
}

static int
eval_not(struct ctx *cx, struct core_bnode *n, const uint32_t *sel,
    uint32_t cnt)
{
	struct core_bnode *k = n->kids[0];
	uint32_t nrows = cx->batch->nrows, i, r, m;
	uint8_t *O = vals(n, nrows, 1);
	const uint8_t *A;
	int rc;

	if ((rc = eval(cx, k, sel, cnt)) != 0)
		return rc;
	A = k->out.v;
	m = k->out.m;
	for (i = 0; i < cnt; i++) {
		r = sel[i];
		O[r] = !A[r & m];
	}
	if (m == 0)
		O[0] = !A[0];
	n->out.v = O;
	n->out.nul = k->out.nul;
	n->out.m = m;
	return 0;
}

static int
eval_is_null(struct ctx *cx, struct core_bnode *n, const uint32_t *sel,
    uint32_t cnt)
{
	struct core_bnode *k = n->kids[0];
	uint32_t nrows = cx->batch->nrows, i, r, m;
	uint8_t *O = vals(n, nrows, 1), neg = n->negated;
	const uint8_t *A;
	int rc;

	if ((rc = eval(cx, k, sel, cnt)) != 0)
		return rc;
	n->out.nul = NULL;
	n->out.v = O;
	if (k->out.nul == NULL) {
		O[0] = neg;
		n->out.m = 0;
		return 0;
	}
	A = k->out.nul;
	m = k->out.m;
	for (i = 0; i < cnt; i++) {
		r = sel[i];
		O[r] = A[r & m] ^ neg;
	}
	if (m == 0)
		O[0] = A[0] ^ neg;
	n->out.m = m;
	return 0;
}

static bool
in_i64(const struct core_inset *s, int64_t v)
{
	uint32_t lo = 0, hi = s->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (s->i[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->n && s->i[lo] == v;
}

static bool
in_w(const struct core_inset *s, core_i128 v)
{
	uint32_t lo = 0, hi = s->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (s->w[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->n && s->w[lo] == v;
}

static bool
in_f64(const struct core_inset *s, double v)
{
	uint32_t lo = 0, hi = s->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (fcmp(s->f[mid], v) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->n && fcmp(s->f[lo], v) == 0;
}

static bool
in_str(const struct core_inset *s, const struct core_bstr *v)
{
	uint32_t lo = 0, hi = s->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (scmp(&s->s[mid], v) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->n && scmp(&s->s[lo], v) == 0;
}

static int
eval_in(struct ctx *cx, struct core_bnode *n, const uint32_t *sel,
    uint32_t cnt)
{
	struct core_bnode *k = n->kids[0];
	const struct core_inset *s = &n->set;
	uint32_t nrows = cx->batch->nrows, i, r, m, xm;
	uint8_t *O = vals(n, nrows, 1), *N = nuls(n, nrows), f;
	uint8_t neg = n->negated, hn = s->has_null;
	const uint8_t *pn;
	int rc;

	if ((rc = eval(cx, k, sel, cnt)) != 0)
		return rc;
	m = k->out.m;
	nulview(&k->out, &pn, &xm);
	for (i = 0; i < cnt; i++) {
		r = sel[i];
		switch (k->phys) {
		case CORE_PHYS_F64:
			f = in_f64(s, ((const double *)k->out.v)[r & m]);
			break;
		case CORE_PHYS_STR:
			f = in_str(s, &((const struct core_bstr *)
			    k->out.v)[r & m]);
			break;
		case CORE_PHYS_BOOL:
			f = in_i64(s, ((const uint8_t *)k->out.v)[r & m]);
			break;
		case CORE_PHYS_I128:
			f = in_w(s, ((const core_i128 *)k->out.v)[r & m]);
			break;
		default:
			f = in_i64(s, ((const int64_t *)k->out.v)[r & m]);
			break;
		}
		O[r] = f ^ neg;
		N[r] = pn[r & xm] | ((f ^ 1) & hn);
	}
	n->out.v = O;
	n->out.nul = N;
	n->out.m = ~0u;
	return 0;
}

static inline uint8_t
fold_ascii(uint8_t c)
{
	return (uint8_t)((unsigned)(c - 'A') < 26u ? c + 32 : c);
}

/* Bytes of the UTF-8 sequence that starts with c (1 for a stray byte). */
static inline uint32_t
utf8_len(uint8_t c)
{
	return c < 0xc0 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
}

/*
 * Glob matching with one backtrack point: on a mismatch, the last '%'
 * absorbs one more character and matching resumes after it.  That is
 * exact for patterns of literals, '_' and '%', and linear in practice.
 * '_' is one UTF-8 character.
 */
static bool
like_general(const uint8_t *s, uint32_t n, const uint8_t *p, uint32_t m,
    bool fold)
{
	uint32_t i = 0, j = 0, si = 0, pj = 0, l;
	bool star = false;

	while (i < n) {
		if (j < m && p[j] == '%') {
			star = true;
			pj = ++j;
			si = i;
			continue;
		}
		if (j < m && p[j] == '_') {
			l = utf8_len(s[i]);
			i += l <= n - i ? l : n - i;
			j++;
			continue;
		}
		if (j < m && (fold ? fold_ascii(s[i]) : s[i]) == p[j]) {
			i++;
			j++;
			continue;
		}
		if (!star)
			return false;
		l = utf8_len(s[si]);
		si += l <= n - si ? l : n - si;
		i = si;
		j = pj;
	}
	while (j < m && p[j] == '%')
		j++;
	return j == m;
}

static int
eval_like(struct ctx *cx, struct core_bnode *n, const uint32_t *sel,
    uint32_t cnt)
{
	struct core_bnode *k = n->kids[0];
	const struct core_like *lk = &n->like;
	const struct core_bstr *A;
	uint32_t nrows = cx->batch->nrows, i, r, m, len = lk->len;
	uint8_t *O = vals(n, nrows, 1), neg = n->negated;
	const char *pat = lk->pat;
	int rc;

	if ((rc = eval(cx, k, sel, cnt)) != 0)
		return rc;
	A = k->out.v;
	m = k->out.m;
	switch (lk->kind) {
	case CORE_LIKE_ALL:
		for (i = 0; i < cnt; i++)
			O[sel[i]] = !neg;
		break;
	case CORE_LIKE_EXACT:
		for (i = 0; i < cnt; i++) {
			const struct core_bstr *s = &A[(r = sel[i]) & m];
			O[r] = (s->n == len && memcmp(s->p, pat, len) == 0) ^
			    neg;
		}
		break;
	case CORE_LIKE_PREFIX:
		for (i = 0; i < cnt; i++) {
			const struct core_bstr *s = &A[(r = sel[i]) & m];
			O[r] = (s->n >= len && memcmp(s->p, pat, len) == 0) ^
			    neg;
		}
		break;
	case CORE_LIKE_SUFFIX:
		for (i = 0; i < cnt; i++) {
			const struct core_bstr *s = &A[(r = sel[i]) & m];
			O[r] = (s->n >= len && memcmp(s->p + s->n - len, pat,
			    len) == 0) ^ neg;
		}
		break;
	case CORE_LIKE_CONTAINS:
		for (i = 0; i < cnt; i++) {
			const struct core_bstr *s = &A[(r = sel[i]) & m];
			O[r] = (len == 0 || memmem(s->p, s->n, pat, len) !=
			    NULL) ^ neg;
		}
		break;
	default:
		for (i = 0; i < cnt; i++) {
			const struct core_bstr *s = &A[(r = sel[i]) & m];
			O[r] = like_general((const uint8_t *)s->p, s->n,
			    (const uint8_t *)pat, len, lk->fold) ^ neg;
		}
		break;
	}
	if (m == 0 && cnt > 0)
		O[0] = O[sel[0]];
	n->out.v = O;
	n->out.nul = k->out.nul;
	n->out.m = m;
	return 0;
}

static size_t
phys_width(enum core_phys p)
{
	switch (p) {
	case CORE_PHYS_BOOL:
		return 1;
	case CORE_PHYS_STR:
		return sizeof(struct core_bstr);
	case CORE_PHYS_I128:
		return sizeof(core_i128);
	default:
		return 8;
	}
}

/* Copies the values and NULLs of src at rows into n's vectors. */
static void
copy_rows(struct core_bnode *n, const struct core_bvec *src,
    const uint32_t *rows, uint32_t cnt, uint8_t *O, uint8_t *N)
{
	const uint8_t *pn;
	uint32_t i, r, m = src->m, xm;

	nulview(src, &pn, &xm);
	for (i = 0; i < cnt; i++) {
		r = rows[i];
		N[r] = pn[r & xm];
	}
	switch (n->phys) {
	case CORE_PHYS_BOOL:
		for (i = 0; i < cnt; i++) {
			r = rows[i];
			O[r] = ((const uint8_t *)src->v)[r & m];
		}
		break;
	case CORE_PHYS_STR:
		for (i = 0; i < cnt; i++) {
			r = rows[i];
			((struct core_bstr *)(void *)O)[r] =
			    ((const struct core_bstr *)src->v)[r & m];
		}
		break;
	case CORE_PHYS_I128:
		for (i = 0; i < cnt; i++) {
			r = rows[i];
			((core_i128 *)(void *)O)[r] =
			    ((const core_i128 *)src->v)[r & m];
		}
		break;
	default:
		/* int64 and double alike: 8 bytes. */
		for (i = 0; i < cnt; i++) {
			r = rows[i];
			((int64_t *)(void *)O)[r] =
			    ((const int64_t *)src->v)[r & m];
		}
		break;
	}
}

/* Splits rows by the bool vector v: TRUE into yes, FALSE or NULL into
 * no. */
static void
split(const struct core_bvec *v, const uint32_t *rows, uint32_t cnt,
    uint32_t *yes, uint32_t *ny, uint32_t *no, uint32_t *nno)
{
	const uint8_t *A = v->v, *pn;
	uint32_t i, r, m = v->m, xm, a = 0, b = 0;
	bool t;

	nulview(v, &pn, &xm);
	for (i = 0; i < cnt; i++) {
		r = rows[i];
		t = A[r & m] && !pn[r & xm];
		yes[a] = r;
		no[b] = r;
		a += t;
		b += !t;
	}
	*ny = a;
	*nno = b;
}

static int
eval_case(struct ctx *cx, struct core_bnode *n, const uint32_t *sel,
    uint32_t cnt)
{
	uint32_t nrows = cx->batch->nrows, i, nrem = cnt, ny, nno;
	uint8_t *O = vals(n, nrows, phys_width(n->phys));
	uint8_t *N = nuls(n, nrows);
	uint32_t *rem = sels(n, 0, nrows), *yes = sels(n, 1, nrows);
	uint32_t *no = sels(n, 2, nrows), *t;
	struct core_bnode *els = n->kids[n->nkids - 1];
	int rc;

	memcpy(rem, sel, (size_t)cnt * sizeof(*rem));
	for (i = 0; i + 1 < n->nkids && nrem > 0; i += 2) {
		if ((rc = eval(cx, n->kids[i], rem, nrem)) != 0)
			return rc;
		split(&n->kids[i]->out, rem, nrem, yes, &ny, no, &nno);
		if (ny > 0) {
			if ((rc = eval(cx, n->kids[i + 1], yes, ny)) != 0)
				return rc;
			copy_rows(n, &n->kids[i + 1]->out, yes, ny, O, N);
		}
		t = rem;
		rem = no;
		no = t;
		nrem = nno;
	}
	if (nrem > 0) {
		if ((rc = eval(cx, els, rem, nrem)) != 0)
			return rc;
		copy_rows(n, &els->out, rem, nrem, O, N);
	}
	n->out.v = O;
	n->out.nul = N;
	n->out.m = ~0u;
	return 0;
}

static int
eval_coalesce(struct ctx *cx, struct core_bnode *n, const uint32_t *sel,
    uint32_t cnt)
{
	uint32_t nrows = cx->batch->nrows, i, j, r, nrem = cnt, xm, k2;
	uint8_t *O = vals(n, nrows, phys_width(n->phys));
	uint8_t *N = nuls(n, nrows);
	uint32_t *rem = sels(n, 0, nrows), *nxt = sels(n, 1, nrows), *t;
	const uint8_t *pn;
	int rc;

	memcpy(rem, sel, (size_t)cnt * sizeof(*rem));
	for (j = 0; j < n->nkids && nrem > 0; j++) {
		struct core_bnode *k = n->kids[j];

		if ((rc = eval(cx, k, rem, nrem)) != 0)
			return rc;
		copy_rows(n, &k->out, rem, nrem, O, N);
		nulview(&k->out, &pn, &xm);
		for (i = k2 = 0; i < nrem; i++) {
			r = rem[i];
			nxt[k2] = r;
			k2 += pn[r & xm];
		}
		t = rem;
		rem = nxt;
		nxt = t;
		nrem = k2;
	}
	n->out.v = O;
	n->out.nul = N;
	n->out.m = ~0u;
	return 0;
}

static int
eval_date_add(struct ctx *cx, struct core_bnode *n, const uint32_t *sel,
    uint32_t cnt)
{
	struct core_bnode *k = n->kids[0];
	uint32_t nrows = cx->batch->nrows, i, r, m, nm;
	int64_t *O = vals(n, nrows, sizeof(int64_t)), x, d, us, z;
	bool is_date = k->type.id == CORE_TYPE_DATE;
	const int64_t *A;
	const uint8_t *nn;
	unsigned bad = 0, o;
	int rc;

	if ((rc = eval(cx, k, sel, cnt)) != 0)
		return rc;
	A = k->out.v;
	m = k->out.m;
	n->out.v = O;
	n->out.nul = k->out.nul;
	n->out.m = m;
	nulview(&n->out, &nn, &nm);
	if (m == 0 && cnt > 0)
		sel = &zero_sel, cnt = 1;
	for (i = 0; i < cnt; i++) {
		r = sel[i] & m;
		x = A[r];
		if (nn[r & nm]) {
			O[r] = 0;
			continue;
		}
		d = is_date ? x : floor_div(x, US_PER_DAY);
		us = is_date ? 0 : x - d * US_PER_DAY;
		if (d < -1000000000 || d > 1000000000) {
			bad = 1;
			break;
		}
		d = n->months ? add_months(d, n->months) : d + n->days;
		o = __builtin_mul_overflow(d, US_PER_DAY, &z);
		o |= __builtin_add_overflow(z, us, &z);
		O[r] = z;
		bad |= o;
		if (bad)
			break;
	}
	if (bad)
		return row_err(cx, n, sel[i], "timestamp overflow");
	return 0;
}

static void
range_of(struct core_coltype t, int64_t *lo, int64_t *hi)
{
	switch (t.id) {
	case CORE_TYPE_INT32:
	case CORE_TYPE_DATE:
		*lo = INT32_MIN;
		*hi = INT32_MAX;
		break;
	case CORE_TYPE_DECIMAL:
		*hi = (int64_t)core_pow10_u64[t.precision] - 1;
		*lo = -*hi;
		break;
	default:
		*lo = INT64_MIN;
		*hi = INT64_MAX;
		break;
	}
}

static unsigned
scale_of(struct core_coltype t)
{
	return core_type_is_decimal(t.id) ? t.scale : 0;
}

/* x at scale sf to scale st, rounding half away from zero; overflow
 * flag. */
static inline unsigned
rescale(int64_t x, unsigned sf, unsigned st, int64_t lo, int64_t hi,
    int64_t *z)
{
	int64_t f, q, rm;
	unsigned o = 0;

	if (st >= sf) {
		o = __builtin_mul_overflow(x, (int64_t)core_pow10_u64[st - sf],
		    z);
	} else {
		f = (int64_t)core_pow10_u64[sf - st];
		q = x / f;
		rm = x % f;
		if (rm < 0)
			rm = -rm;
		q += (2 * rm >= f) * (x < 0 ? -1 : 1);
		*z = q;
	}
	return o | (*z < lo) | (*z > hi);
}

static size_t
format_i64(struct core_coltype t, int64_t v, char *buf)
{
	switch (t.id) {
	case CORE_TYPE_DECIMAL:
		return core_format_decimal(v, t.scale, buf);
	case CORE_TYPE_DATE:
		return core_format_date((int32_t)v, buf);
	case CORE_TYPE_TIMESTAMP:
		return core_format_timestamp(v, buf);
	default:
		return core_format_int64(v, buf);
	}
}

/* DuckDB's text for a boolean in a cast: true, false, t, f, yes, no, y,
 * n, 1, 0 in any case, nothing around them. */
static int
sql_bool(const char *p, size_t n, uint8_t *b)
{
	static const char *const yes[] = { "true", "t", "yes", "y", "1" };
	static const char *const no[] = { "false", "f", "no", "n", "0" };
	size_t k;

	for (k = 0; k < 5; k++) {
		if (strlen(yes[k]) == n && strncasecmp(p, yes[k], n) == 0) {
			*b = 1;
			return 0;
		}
		if (strlen(no[k]) == n && strncasecmp(p, no[k], n) == 0) {
			*b = 0;
			return 0;
		}
	}
	return -1;
}

/* s without the spaces around it: a cast reads ' 42 ' as 42, as DuckDB
 * does (but for booleans). */
static struct core_bstr
trim_space(const struct core_bstr *s)
{
	struct core_bstr t = *s;

	while (t.n > 0 && (*t.p == ' ' || *t.p == '\t' || *t.p == '\n' ||
	    *t.p == '\r')) {
		t.p++;
		t.n--;
	}
	while (t.n > 0 && (t.p[t.n - 1] == ' ' || t.p[t.n - 1] == '\t' ||
	    t.p[t.n - 1] == '\n' || t.p[t.n - 1] == '\r'))
		t.n--;
	return t;
}

/* A string as a value of t; -1 when it is not one. */
static int
parse_as(struct core_coltype t, const struct core_bstr *s, int64_t *i,
    double *f)
{
	int32_t v32;
	uint8_t b;
	int rc;

	switch (t.id) {
	case CORE_TYPE_BOOL:
		b = 0;
		rc = sql_bool(s->p, s->n, &b);
		*i = b;
		return rc;
	case CORE_TYPE_INT32:
		rc = core_parse_int32(s->p, s->n, &v32);
		*i = v32;
		return rc;
	case CORE_TYPE_DATE:
		rc = core_parse_date_sql(s->p, s->n, &v32);
		*i = v32;
		return rc;
	case CORE_TYPE_INT64:
		return core_parse_int64(s->p, s->n, i);
	case CORE_TYPE_DECIMAL:
		return core_parse_decimal(s->p, s->n, t.precision, t.scale, i);
	case CORE_TYPE_TIMESTAMP:
		return core_parse_timestamp(s->p, s->n, i);
	case CORE_TYPE_FLOAT64:
		return core_parse_float64(s->p, s->n, f);
	default:
		return -1;
	}
}

static int
cast_err(struct ctx *cx, const struct core_bnode *n, uint32_t row,
    const char *why)
{
	char msg[160], t[CORE_TYPE_NAME_MAX];

	snprintf(msg, sizeof(msg), "%.100s %s", why,
	    core_type_name(n->type, t));
	return row_err(cx, n, row, msg);
}

/*
 * A float64 as DuckDB's cast to text spells it: the shortest digits that
 * read back to the same double, in positional notation with at least one
 * digit after the point for decimal exponents -4 .. 15 ("2.0",
 * "1000000000000000.0", "0.0001"), else as d.ddde+XX with at least two
 * exponent digits ("1e+16", "1e-07"); nan, -nan, inf, -inf.  Returns the
 * length written at buf (at most 32 bytes).
 */
static size_t
sql_float_text(double x, char *buf)
{
	char e[40], digits[20];
	int p, ex, nd, k, len = 0;
	const char *q;

	/* DuckDB keeps a NaN's sign. */
	if (isnan(x))
		return (size_t)snprintf(buf, 32, "%snan",
		    signbit(x) ? "-" : "");
	if (isinf(x))
		return (size_t)snprintf(buf, 32, "%sinf", x < 0 ? "-" : "");
	if (x == 0)
		return (size_t)snprintf(buf, 32, "%s0.0",
		    signbit(x) ? "-" : "");
	for (p = 1; p <= 17; p++) {
		snprintf(e, sizeof(e), "%.*e", p - 1, x);
		if (strtod(e, NULL) == x)
			break;
	}
	/* e is [-]d[.ddd]e[+-]XX: the digits, then the exponent. */
	q = e;
	if (*q == '-') {
		buf[len++] = '-';
		q++;
	}
	for (nd = 0; *q != 'e'; q++)
		if (*q != '.')
			digits[nd++] = *q;
	ex = atoi(q + 1);
	while (nd > 1 && digits[nd - 1] == '0')
		nd--;
	if (ex >= -4 && ex < 16) {
		if (ex < 0) {
			len += snprintf(buf + len, 8, "0.");
			for (k = 0; k < -ex - 1; k++)
				buf[len++] = '0';
			memcpy(buf + len, digits, (size_t)nd);
			len += nd;
		} else {
			for (k = 0; k <= ex; k++)
				buf[len++] = k < nd ? digits[k] : '0';
			buf[len++] = '.';
			if (nd > ex + 1) {
				memcpy(buf + len, digits + ex + 1,
				    (size_t)(nd - ex - 1));
				len += nd - ex - 1;
			} else {
				buf[len++] = '0';
			}
		}
		return (size_t)len;
	}
	buf[len++] = digits[0];
	if (nd > 1) {
		buf[len++] = '.';
		memcpy(buf + len, digits + 1, (size_t)(nd - 1));
		len += nd - 1;
	}
	len += snprintf(buf + len, 8, "e%c%02d", ex < 0 ? '-' : '+',
	    ex < 0 ? -ex : ex);
	return (size_t)len;
}

/* A timestamp's text (at buf, n bytes) as DuckDB's cast gives it: the
 * fraction of a second without its trailing zeros.  Returns the new
 * length. */
static uint32_t
sql_ts_text(const char *buf, uint32_t n)
{
	const char *dot = memchr(buf, '.', n);

	if (dot == NULL)
		return n;
	while (n > 0 && buf[n - 1] == '0')
		n--;
	if (buf + n - 1 == dot)
		n--;
	return n;
}

/* 10^k for k <= 38. */
static core_i128
pow10w(unsigned k)
{
	core_i128 v = 1;

	while (k-- > 0)
		v *= 10;
	return v;
}

/* x at a scale sf to st: times f when up, else divided by f rounding
 * half away from zero (DuckDB's decimal casts); overflow flag. */
static inline unsigned
rescale_w(core_i128 x, core_i128 f, bool up, core_i128 lo, core_i128 hi,
    core_i128 *z)
{
	core_i128 q, rm;
	unsigned o = 0;

	if (up) {
		o = __builtin_mul_overflow(x, f, z);
	} else {
		q = x / f;
		rm = x % f;
		if (rm < 0)
			rm = -rm;
		/* rm >= f - rm: 2 * rm may pass 128 bits. */
		q += (rm >= f - rm) * (x < 0 ? -1 : 1);
		*z = q;
	}
	return o | (*z < lo) | (*z > hi);
}

/* A decimal128 value of scale s as the double nearest it: one exact
 * division where both parts are exact doubles, else through its text. */
static double
w_to_f64(core_i128 v, unsigned s)
{
	static const double p10[] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7,
	    1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18,
	    1e19, 1e20, 1e21, 1e22 };
	char buf[CORE_VALUE_TEXT_MAX + 1];
	size_t len;

	if (s <= 22 && v <= ((core_i128)1 << 53) && v >= -((core_i128)1 << 53))
		return (double)v / p10[s];
	len = core_format_decimal128(v, (uint8_t)s, buf);
	buf[len] = '\0';
	return strtod(buf, NULL);
}

/* The casts to or from I128: from a string, float64, I64 (integers and
 * decimals) or I128, to float64, I64 or I128 (strings: eval_cast). */
static int
eval_cast_w(struct ctx *cx, struct core_bnode *n, const uint32_t *sel,
    uint32_t cnt)
{
	struct core_bnode *k = n->kids[0];
	struct core_coltype from = k->type, to = n->type;
	uint32_t nrows = cx->batch->nrows, i, r, m = k->out.m, nm;
	unsigned sf = scale_of(from), st = scale_of(to), bad = 0;
	core_i128 lo = n->wlo, hi = n->whi, f, z, x;
	bool up = st >= sf, wide_in = k->phys == CORE_PHYS_I128;
	const uint8_t *nn;

	nulview(&n->out, &nn, &nm);
	if (n->phys == CORE_PHYS_F64) {
		const core_i128 *A = k->out.v;
		double *O = vals(n, nrows, sizeof(double));

		for (i = 0; i < cnt; i++) {
			r = sel[i];
			O[r] = nn[r & nm] ? 0 : w_to_f64(A[r & m], sf);
		}
		n->out.v = O;
		return 0;
	}
	core_i128 *W = vals(n, nrows, sizeof(core_i128));
	int64_t *O = (int64_t *)(void *)W;

	n->out.v = W;
	if (n->phys == CORE_PHYS_I64) {
		int64_t l, h;

		range_of(to, &l, &h);
		lo = l;
		hi = h;
	}
	if (from.id == CORE_TYPE_STRING) {
		const struct core_bstr *A = k->out.v;

		for (i = 0; i < cnt; i++) {
			r = sel[i];
			W[r] = 0;
			if (nn[r & nm])
				continue;
			if (core_parse_decimal128(A[r & m].p, A[r & m].n,
			    to.precision, to.scale, &W[r]) != 0) {
				char why[96];

				snprintf(why, sizeof(why), "cannot read '%.*s' "
				    "as", A[r & m].n > 40 ? 40 :
				    (int)A[r & m].n, A[r & m].p);
				return cast_err(cx, n, r, why);
			}
		}
		return 0;
	}
	if (k->phys == CORE_PHYS_F64) {
		const double *A = k->out.v;
		double p = pow(10.0, st), y;

		for (i = 0; i < cnt; i++) {
			r = sel[i];
			y = round(A[r & m] * p);
			W[r] = 0;
			if (nn[r & nm])
				continue;
			/* NaN fails both comparisons; 1.7e38 < 2^127. */
			if (!(y > -1.7e38 && y < 1.7e38) ||
			    (W[r] = (core_i128)y) < lo || W[r] > hi)
				return cast_err(cx, n, r,
				    "value out of range for");
		}
		return 0;
	}
	f = pow10w(up ? st - sf : sf - st);
	for (i = 0; i < cnt; i++) {
		r = sel[i];
		x = wide_in ? ((const core_i128 *)k->out.v)[r & m] :
		    ((const int64_t *)k->out.v)[r & m];
		bad |= rescale_w(x, f, up, lo, hi, &z) & !nn[r & nm];
		if (n->phys == CORE_PHYS_I128)
			W[r] = z;
		else
			O[r] = (int64_t)z;
	}
	if (bad) {
		FIND_BAD(rescale_w(wide_in ?
		    ((const core_i128 *)k->out.v)[r & m] :
		    ((const int64_t *)k->out.v)[r & m], f, up, lo, hi, &z));
		return cast_err(cx, n, i < cnt ? sel[i] : 0,
		    "value out of range for");
	}
	return 0;
}

static int
eval_cast(struct ctx *cx, struct core_bnode *n, const uint32_t *sel,
    uint32_t cnt)
{
	struct core_bnode *k = n->kids[0];
	struct core_coltype from = k->type, to = n->type;
	uint32_t nrows = cx->batch->nrows, i, r, m, nm;
	const uint8_t *nn;
	int64_t lo, hi, z;
	unsigned bad = 0;
	int rc;

	if ((rc = eval(cx, k, sel, cnt)) != 0)
		return rc;
	m = k->out.m;
	n->out.m = ~0u;
	n->out.nul = nul_union(n, &k->out, NULL, sel, cnt, nrows);
	nulview(&n->out, &nn, &nm);
	range_of(to, &lo, &hi);

	if (to.id == CORE_TYPE_STRING) {
		struct core_bstr *O = vals(n, nrows, sizeof(*O));
		char *a = arena(n, (size_t)cnt * CORE_VALUE_TEXT_MAX);

		for (i = 0; i < cnt; i++) {
			r = sel[i];
			O[r].p = a;
			switch (k->phys) {
			case CORE_PHYS_BOOL:
				O[r].n = (uint32_t)core_format_bool(
				    ((const uint8_t *)k->out.v)[r & m], a);
				break;
			case CORE_PHYS_F64:
				O[r].n = (uint32_t)sql_float_text(
				    ((const double *)k->out.v)[r & m], a);
				break;
			case CORE_PHYS_I128:
				O[r].n = (uint32_t)core_format_decimal128(
				    ((const core_i128 *)k->out.v)[r & m],
				    from.scale, a);
				break;
			default:
				O[r].n = (uint32_t)format_i64(from,
				    ((const int64_t *)k->out.v)[r & m], a);
				if (from.id == CORE_TYPE_TIMESTAMP)
					O[r].n = sql_ts_text(a, O[r].n);
				break;
			}
			a += O[r].n;
		}
		n->out.v = O;
		return 0;
	}
	if (n->phys == CORE_PHYS_I128 || k->phys == CORE_PHYS_I128)
		return eval_cast_w(cx, n, sel, cnt);
	if (from.id == CORE_TYPE_STRING) {
		const struct core_bstr *A = k->out.v;
		void *O = vals(n, nrows, 8);
		int64_t iv = 0;
		double fv = 0;

		for (i = 0; i < cnt; i++) {
			r = sel[i];
			if (nn[r & nm]) {
				iv = 0;
				fv = 0;
			} else if (parse_as(to, to.id == CORE_TYPE_BOOL ?
			    &A[r & m] : &(struct core_bstr){ 0, 0 }, &iv,
			    &fv) != 0 && (to.id == CORE_TYPE_BOOL ||
			    parse_as(to, &(struct core_bstr){ trim_space(
			    &A[r & m]).p, trim_space(&A[r & m]).n }, &iv,
			    &fv) != 0)) {
				char why[96];

				snprintf(why, sizeof(why), "cannot read '%.*s' "
				    "as", A[r & m].n > 40 ? 40 :
				    (int)A[r & m].n, A[r & m].p);
				return cast_err(cx, n, r, why);
			}
			if (n->phys == CORE_PHYS_BOOL)
				((uint8_t *)O)[r] = (uint8_t)iv;
			else if (n->phys == CORE_PHYS_F64)
				((double *)O)[r] = fv;
			else
				((int64_t *)O)[r] = iv;
		}
		n->out.v = O;
		return 0;
	}
	if (k->phys == CORE_PHYS_BOOL) {
		const uint8_t *A = k->out.v;
		int64_t *O = vals(n, nrows, sizeof(int64_t));

		for (i = 0; i < cnt; i++) {
			r = sel[i];
			O[r] = A[r & m];
		}
		n->out.v = O;
		return 0;
	}
	if (n->phys == CORE_PHYS_BOOL) {
		const int64_t *A = k->out.v;
		uint8_t *O = vals(n, nrows, 1);

		for (i = 0; i < cnt; i++) {
			r = sel[i];
			O[r] = A[r & m] != 0;
		}
		n->out.v = O;
		return 0;
	}
	if (n->phys == CORE_PHYS_F64) {
		const int64_t *A = k->out.v;
		double *O = vals(n, nrows, sizeof(double));
		double f = (double)core_pow10_u64[scale_of(from)];

		/* From I64: a float64 source would be the same type, and
		 * the binder casts nothing to its own type. */
		for (i = 0; i < cnt; i++) {
			r = sel[i];
			O[r] = (double)A[r & m] / f;
		}
		n->out.v = O;
		return 0;
	}
	int64_t *O = vals(n, nrows, sizeof(int64_t));

	n->out.v = O;
	if (k->phys == CORE_PHYS_F64) {
		const double *A = k->out.v;
		double f = (double)core_pow10_u64[scale_of(to)], y;
		/* DuckDB rounds a float half to even into an integer, half
		 * away from zero into a decimal. */
		bool even = to.id != CORE_TYPE_DECIMAL;

		for (i = 0; i < cnt; i++) {
			r = sel[i];
			y = even ? nearbyint(A[r & m] * f) : round(A[r & m] * f);
			/* NaN fails both comparisons. */
			if (!(y >= -9223372036854775808.0 &&
			    y < 9223372036854775808.0)) {
				O[r] = 0;
				bad |= !nn[r & nm];
				continue;
			}
			z = (int64_t)y;
			O[r] = z;
			bad |= ((z < lo) | (z > hi)) & !nn[r & nm];
		}
		if (bad) {
			for (i = 0; i < cnt; i++) {
				r = sel[i];
				y = even ? nearbyint(A[r & m] * f) :
				    round(A[r & m] * f);
				if (!nn[r & nm] &&
				    (!(y >= -9223372036854775808.0 &&
				    y < 9223372036854775808.0) ||
				    (int64_t)y < lo || (int64_t)y > hi))
					break;
			}
			return cast_err(cx, n, i < cnt ? sel[i] : 0,
			    "value out of range for");
		}
		return 0;
	}
	const int64_t *A = k->out.v;

	if (from.id == CORE_TYPE_DATE && to.id == CORE_TYPE_TIMESTAMP) {
		for (i = 0; i < cnt; i++) {
			r = sel[i];
			bad |= __builtin_mul_overflow(A[r & m], US_PER_DAY,
			    &z) & !nn[r & nm];
			O[r] = z;
		}
		if (bad) {
			FIND_BAD(__builtin_mul_overflow(A[r & m], US_PER_DAY,
			    &z));
			return cast_err(cx, n, i < cnt ? sel[i] : 0,
			    "value out of range for");
		}
		return 0;
	}
	if (from.id == CORE_TYPE_TIMESTAMP && to.id == CORE_TYPE_DATE) {
		for (i = 0; i < cnt; i++) {
			r = sel[i];
			z = floor_div(A[r & m], US_PER_DAY);
			O[r] = z;
		}
		return 0;
	}
	unsigned sf = scale_of(from), st = scale_of(to);

	for (i = 0; i < cnt; i++) {
		r = sel[i];
		bad |= rescale(A[r & m], sf, st, lo, hi, &z) & !nn[r & nm];
		O[r] = z;
	}
	if (bad) {
		FIND_BAD(rescale(A[r & m], sf, st, lo, hi, &z));
		return cast_err(cx, n, i < cnt ? sel[i] : 0,
		    "value out of range for");
	}
	return 0;
}

static int
eval_concat(struct ctx *cx, struct core_bnode *n, const uint32_t *sel,
    uint32_t cnt)
{
	uint32_t nrows = cx->batch->nrows, i, j, r, m, xm;
	struct core_bstr *O = vals(n, nrows, sizeof(*O));
	uint8_t *N = nuls(n, nrows);
	bool skip = n->negated;
	const uint8_t *pn;
	size_t total = 0;
	char *a;
	int rc;

	for (j = 0; j < n->nkids; j++) {
		struct core_bnode *k = n->kids[j];
		const struct core_bstr *A;

		if ((rc = eval(cx, k, sel, cnt)) != 0)
			return rc;
		A = k->out.v;
		m = k->out.m;
		for (i = 0; i < cnt; i++)
			total += A[sel[i] & m].n;
	}
	a = arena(n, total);
	for (i = 0; i < cnt; i++)
		N[sel[i]] = 0;
	if (!skip) {
		for (j = 0; j < n->nkids; j++) {
			nulview(&n->kids[j]->out, &pn, &xm);
			for (i = 0; i < cnt; i++) {
				r = sel[i];
				N[r] |= pn[r & xm];
			}
		}
	}
	/* Row by row, so that each row's parts are adjacent; a NULL part
	 * adds nothing (concat() skips it, || is NULL anyway). */
	for (i = 0; i < cnt; i++) {
		r = sel[i];
		O[r].p = a;
		for (j = 0; j < n->nkids; j++) {
			const struct core_bnode *k = n->kids[j];
			const struct core_bstr *s =
			    &((const struct core_bstr *)k->out.v)[r &
			    k->out.m];

			nulview(&k->out, &pn, &xm);
			if (pn[r & xm] || s->n == 0)
				continue;
			memcpy(a, s->p, s->n);
			a += s->n;
		}
		O[r].n = (uint32_t)(a - O[r].p);
	}
	n->out.v = O;
	n->out.nul = N;
	n->out.m = ~0u;
	return 0;
}

/* Three-way comparison of two values of one class. */
static inline int
cmp_at(enum core_phys p, const void *a, uint32_t ra, const void *b,
    uint32_t rb)
{
	switch (p) {
	case CORE_PHYS_BOOL: {
		uint8_t x = ((const uint8_t *)a)[ra];
		uint8_t y = ((const uint8_t *)b)[rb];

		return (x > y) - (x < y);
	}
	case CORE_PHYS_F64:
		return fcmp(((const double *)a)[ra], ((const double *)b)[rb]);
	case CORE_PHYS_STR:
		return scmp(&((const struct core_bstr *)a)[ra],
		    &((const struct core_bstr *)b)[rb]);
	case CORE_PHYS_I128: {
		core_i128 x = ((const core_i128 *)a)[ra];
		core_i128 y = ((const core_i128 *)b)[rb];

		return (x > y) - (x < y);
	}
	default: {
		int64_t x = ((const int64_t *)a)[ra];
		int64_t y = ((const int64_t *)b)[rb];

		return (x > y) - (x < y);
	}
	}
}

static int
eval_extreme(struct ctx *cx, struct core_bnode *n, const uint32_t *sel,
    uint32_t cnt)
{
	uint32_t nrows = cx->batch->nrows, i, j, r, xm;
	uint8_t *O = vals(n, nrows, phys_width(n->phys));
	uint8_t *N = nuls(n, nrows);
	int want = n->fn == CORE_BF_GREATEST ? 1 : -1;
	const uint8_t *pn;
	uint32_t one[1];
	int rc;

	for (j = 0; j < n->nkids; j++) {
		struct core_bnode *k = n->kids[j];

		if ((rc = eval(cx, k, sel, cnt)) != 0)
			return rc;
		if (j == 0) {
			copy_rows(n, &k->out, sel, cnt, O, N);
			continue;
		}
		nulview(&k->out, &pn, &xm);
		for (i = 0; i < cnt; i++) {
			r = sel[i];
			if (pn[r & xm])
				continue;
			if (N[r] || cmp_at(n->phys, k->out.v, r & k->out.m, O,
			    r) == want) {
				one[0] = r;
				copy_rows(n, &k->out, one, 1, O, N);
			}
		}
	}
	n->out.v = O;
	n->out.nul = N;
	n->out.m = ~0u;
	return 0;
}

/* ---- dates: fields, truncation, differences ---- */

#define US_PER_HOUR 3600000000ll
#define US_PER_MIN 60000000ll
#define US_PER_SEC 1000000ll

/* Day of the week, Monday 1 .. Sunday 7 (1970-01-01 was a Thursday). */
static inline int64_t
iso_dow(int64_t d)
{
	return d + 3 - floor_div(d + 3, 7) * 7 + 1;
}

/* The ISO year of day d and, in *week, its ISO week (1 .. 53): the week
 * is the one of its Thursday, and week 1 holds the year's first one. */
static int64_t
iso_year_week(int64_t d, int64_t *week)
{
	int64_t th = d - iso_dow(d) + 4, y;
	unsigned m, dd;

	civil_from_days(th, &y, &m, &dd);
	*week = (th - days_from_civil(y, 1, 1)) / 7 + 1;
	return y;
}

/* The field part of day d, microsecond us of that day. */
static inline int64_t
date_field(int part, int64_t d, int64_t us)
{
	int64_t y, w;
	unsigned m, dd;

	switch (part) {
	case CORE_DP_HOUR:
		return us / US_PER_HOUR;
	case CORE_DP_MINUTE:
		return us / US_PER_MIN % 60;
	case CORE_DP_SECOND:
		return us / US_PER_SEC % 60;
	case CORE_DP_MILLISECOND:
		return us % US_PER_MIN / 1000;
	case CORE_DP_MICROSECOND:
		return us % US_PER_MIN;
	case CORE_DP_DOW:
		return iso_dow(d) % 7;
	case CORE_DP_ISODOW:
		return iso_dow(d);
	case CORE_DP_WEEK:
		iso_year_week(d, &w);
		return w;
	case CORE_DP_ISOYEAR:
		return iso_year_week(d, &w);
	default:
		break;
	}
	civil_from_days(d, &y, &m, &dd);
	switch (part) {
	case CORE_DP_YEAR:
		return y;
	case CORE_DP_QUARTER:
		return (m - 1) / 3 + 1;
	case CORE_DP_MONTH:
		return m;
	case CORE_DP_DOY:
		return d - days_from_civil(y, 1, 1) + 1;
	default:
		return dd;
	}
}

static int
eval_date_part(struct ctx *cx, struct core_bnode *n, const uint32_t *sel,
    uint32_t cnt)
{
	struct core_bnode *k = n->kids[0];
	uint32_t nrows = cx->batch->nrows, i, r, m = k->out.m;
	const int64_t *A = k->out.v;
	bool is_date = k->type.id == CORE_TYPE_DATE;
	int part = n->part;
	int64_t d, us;

	if (part == CORE_DP_EPOCH) {
		double *O = vals(n, nrows, sizeof(double));

		for (i = 0; i < cnt; i++) {
			r = sel[i];
			O[r] = is_date ? (double)A[r & m] * 86400.0 :
			    (double)A[r & m] / 1e6;
		}
		n->out.v = O;
		return 0;
	}

	int64_t *O = vals(n, nrows, sizeof(int64_t));

	for (i = 0; i < cnt; i++) {
		r = sel[i];
		d = is_date ? A[r & m] : floor_div(A[r & m], US_PER_DAY);
		us = is_date ? 0 : A[r & m] - d * US_PER_DAY;
		O[r] = date_field(part, d, us);
	}
	n->out.v = O;
	return 0;
}

/* The first day of the part of day d (date_trunc above a day). */
static int64_t
trunc_days(int part, int64_t d)
{
	int64_t y, w;
	unsigned m, dd;

	switch (part) {
	case CORE_DP_WEEK:
		return d - iso_dow(d) + 1;
	case CORE_DP_ISOYEAR:
		y = iso_year_week(d, &w);
		d = days_from_civil(y, 1, 4);
		return d - iso_dow(d) + 1;
	case CORE_DP_DAY:
		return d;
	default:
		break;
	}
	civil_from_days(d, &y, &m, &dd);
	if (part == CORE_DP_YEAR)
		m = 1;
	else if (part == CORE_DP_QUARTER)
		m = (m - 1) / 3 * 3 + 1;
	return days_from_civil(y, m, 1);
}

static int64_t
part_us(int part)
{
	switch (part) {
	case CORE_DP_HOUR:
		return US_PER_HOUR;
	case CORE_DP_MINUTE:
		return US_PER_MIN;
	case CORE_DP_SECOND:
		return US_PER_SEC;
	case CORE_DP_MILLISECOND:
		return 1000;
	case CORE_DP_MICROSECOND:
		return 1;
	default:
		return 0;	/* a day or more */
	}
}

static int
eval_date_trunc(struct ctx *cx, struct core_bnode *n, const uint32_t *sel,
    uint32_t cnt)
{
	struct core_bnode *k = n->kids[0];
	uint32_t nrows = cx->batch->nrows, i, r, m = k->out.m, nm;
	const int64_t *A = k->out.v;
	int64_t *O = vals(n, nrows, sizeof(int64_t)), x, d, z;
	int64_t u = part_us(n->part);
	bool is_date = k->type.id == CORE_TYPE_DATE;
	const uint8_t *nn;
	unsigned bad = 0;

	nulview(&n->out, &nn, &nm);
	for (i = 0; i < cnt; i++) {
		r = sel[i];
		x = A[r & m];
		if (nn[r & nm]) {
			O[r] = 0;
			continue;
		}
		if (is_date) {
			/* Days of int32 dates: no overflow before the
			 * product. */
			d = u ? x : trunc_days(n->part, x);
			bad |= __builtin_mul_overflow(d, US_PER_DAY, &z);
		} else if (u) {
			bad |= __builtin_mul_overflow(floor_div(x, u), u, &z);
		} else {
			d = trunc_days(n->part, floor_div(x, US_PER_DAY));
			bad |= __builtin_mul_overflow(d, US_PER_DAY, &z);
		}
		O[r] = z;
		if (bad)
			return row_err(cx, n, r, "timestamp overflow");
	}
	n->out.v = O;
	return 0;
}

/* date_diff's count of part boundaries from a to b (days da, db;
 * microseconds ua, ub since the epoch, as 128-bit). */
static inline __int128
date_diff_one(int part, int64_t da, int64_t db, __int128 ua, __int128 ub,
    int64_t u)
{
	int64_t ya, yb, w;
	unsigned ma, mb, dd;

	switch (part) {
	case CORE_DP_DAY:
		return (__int128)db - da;
	case CORE_DP_WEEK:
		/* DuckDB: whole weeks of days, toward zero. */
		return ((__int128)db - da) / 7;
	case CORE_DP_ISOYEAR:
		return (__int128)iso_year_week(db, &w) - iso_year_week(da, &w);
	case CORE_DP_YEAR:
	case CORE_DP_QUARTER:
	case CORE_DP_MONTH:
		civil_from_days(da, &ya, &ma, &dd);
		civil_from_days(db, &yb, &mb, &dd);
		if (part == CORE_DP_YEAR)
			return (__int128)yb - ya;
		if (part == CORE_DP_QUARTER)
			return ((__int128)yb - ya) * 4 + ((mb - 1) / 3) -
			    ((ma - 1) / 3);
		return ((__int128)yb - ya) * 12 + mb - ma;
	default: {
		/* Floors: a boundary crossed counts one. */
		__int128 qa = ua / u, qb = ub / u;

		qa -= ua % u != 0 && ua < 0;
		qb -= ub % u != 0 && ub < 0;
		return qb - qa;
	}
	}
}

static int
eval_date_diff(struct ctx *cx, struct core_bnode *n, const uint32_t *sel,
    uint32_t cnt)
{
	struct core_bnode *ka = n->kids[0], *kb = n->kids[1];
	uint32_t nrows = cx->batch->nrows, i, r, ma = ka->out.m,
	    mb = kb->out.m, nm;
	const int64_t *A = ka->out.v, *B = kb->out.v;
	int64_t *O = vals(n, nrows, sizeof(int64_t)), u = part_us(n->part);
	bool is_date = ka->type.id == CORE_TYPE_DATE;
	const uint8_t *nn;
	int64_t da, db;
	__int128 ua, ub, z;

	nulview(&n->out, &nn, &nm);
	for (i = 0; i < cnt; i++) {
		r = sel[i];
		if (nn[r & nm]) {
			O[r] = 0;
			continue;
		}
		if (is_date) {
			da = A[r & ma];
			db = B[r & mb];
			ua = (__int128)da * US_PER_DAY;
			ub = (__int128)db * US_PER_DAY;
		} else {
			ua = A[r & ma];
			ub = B[r & mb];
			da = floor_div(A[r & ma], US_PER_DAY);
			db = floor_div(B[r & mb], US_PER_DAY);
		}
		z = date_diff_one(n->part, da, db, ua, ub, u);
		if (z < INT64_MIN || z > INT64_MAX)
			return row_err(cx, n, r, "int64 overflow");
		O[r] = (int64_t)z;
	}
	n->out.v = O;
	return 0;
}

/* ---- strings: substring, left, right, strpos, replace ---- */

/* The byte offset of character c (0 <= c <= its characters) of s. */
static inline uint32_t
char_off(const struct core_bstr *s, int64_t c, bool ascii)
{
	uint32_t j = 0;

	if (ascii)
		return (uint32_t)c;
	while (c > 0) {
		j += utf8_len((uint8_t)s->p[j]);
		if (j > s->n)
			j = s->n;	/* a cut sequence at the end */
		c--;
	}
	return j;
}

/* The characters of s and whether each is one byte. */
static inline int64_t
char_count(const struct core_bstr *s, bool *ascii)
{
	int64_t c = 0;
	uint32_t j;

	for (j = 0; j < s->n; j++)
		c += ((uint8_t)s->p[j] & 0xc0) != 0x80;
	*ascii = c == s->n;
	return c;
}

/*
 * DuckDB's substring window over nchars characters, [*b, *e): start is
 * 1-based, 0 the place before the first character and a negative start
 * counts from the end; a negative len takes the characters before start.
 * Both ends are then clipped to the string.
 */
static inline void
substr_window(int64_t nchars, int64_t start, int64_t len, int64_t *b,
    int64_t *e)
{
	int64_t s0 = start > 0 ? start - 1 : start == 0 ? -1 :
	    nchars + start;
	int64_t lo = len >= 0 ? s0 : s0 + len, hi = len >= 0 ? s0 + len : s0;

	lo = lo < 0 ? 0 : lo > nchars ? nchars : lo;
	hi = hi < 0 ? 0 : hi > nchars ? nchars : hi;
	*b = lo;
	*e = hi > lo ? hi : lo;
}

#define SUBSTR_MIN (-4294967296ll)
#define SUBSTR_MAX 4294967295ll

static int
eval_substr(struct ctx *cx, struct core_bnode *n, const uint32_t *sel,
    uint32_t cnt)
{
	const struct core_bnode *k = n->kids[0];
	uint32_t nrows = cx->batch->nrows, i, r, m = k->out.m, nm;
	const struct core_bstr *A = k->out.v;
	const int64_t *S = n->kids[1]->out.v, *L = NULL;
	uint32_t ms = n->kids[1]->out.m, ml = 0;
	struct core_bstr *O = vals(n, nrows, sizeof(*O));
	const uint8_t *nn;
	int64_t start, len, nc, cb, ce;
	uint32_t b, e;
	bool ascii;

	if (n->nkids > 2) {
		L = n->kids[2]->out.v;
		ml = n->kids[2]->out.m;
	}
	nulview(&n->out, &nn, &nm);
	for (i = 0; i < cnt; i++) {
		const struct core_bstr *s = &A[(r = sel[i]) & m];

		O[r].p = s->p;
		O[r].n = 0;
		if (nn[r & nm])
			continue;
		start = S[r & ms];
		switch (n->fn) {
		case CORE_BF_LEFT:
			/* left(s, n) = substring(s, 1, n); n < 0 drops the
			 * last -n characters. */
			len = start;
			if (len < 0) {
				nc = char_count(s, &ascii);
				len = nc + len;
				if (len < 0)
					len = 0;
			}
			start = 1;
			break;
		case CORE_BF_RIGHT:
			/* right(s, n): the last n, or all but the first
			 * -n characters. */
			nc = char_count(s, &ascii);
			len = start < 0 ? nc + start : start;
			len = len < 0 ? 0 : len > nc ? nc : len;
			start = nc - len + 1;
			break;
		default:
			len = L != NULL ? L[r & ml] : SUBSTR_MAX;
			if (start < SUBSTR_MIN || start > SUBSTR_MAX)
				return row_err(cx, n, r,
				    "substring offset out of range");
			break;
		}
		if (len < SUBSTR_MIN || len > SUBSTR_MAX)
			return row_err(cx, n, r,
			    "substring length out of range");
		nc = char_count(s, &ascii);
		substr_window(nc, start, len, &cb, &ce);
		b = char_off(s, cb, ascii);
		e = b + char_off(&(struct core_bstr){ s->p + b,
		    s->n - (uint32_t)b }, ce - cb, ascii);
		O[r].p = s->p + b;
		O[r].n = e - b;
	}
	n->out.v = O;
	return 0;
}

/* strpos: the 1-based character position of the first match, 0 when
 * there is none, 1 for an empty needle. */
static int
eval_strpos(struct ctx *cx, struct core_bnode *n, const uint32_t *sel,
    uint32_t cnt)
{
	uint32_t nrows = cx->batch->nrows, i, r, j, ma = n->kids[0]->out.m,
	    mp = n->kids[1]->out.m;
	const struct core_bstr *A = n->kids[0]->out.v, *P = n->kids[1]->out.v;
	int64_t *O = vals(n, nrows, sizeof(int64_t)), c;
	const char *hit;

	for (i = 0; i < cnt; i++) {
		const struct core_bstr *s = &A[(r = sel[i]) & ma];
		const struct core_bstr *p = &P[r & mp];

		hit = p->n == 0 ? s->p : memmem(s->p, s->n, p->p, p->n);
		c = 0;
		if (hit != NULL) {
			for (j = 0; j < (uint32_t)(hit - s->p); j++)
				c += ((uint8_t)s->p[j] & 0xc0) != 0x80;
			c++;
		}
		O[r] = c;
	}
	n->out.v = O;
	return 0;
}

/* One row of replace into dst (NULL: only count); its length. */
static size_t
replace_one(const struct core_bstr *s, const struct core_bstr *f,
    const struct core_bstr *t, char *dst)
{
	const char *p = s->p, *end = s->p + s->n, *hit;
	size_t len = 0, k;

	if (f->n == 0) {
		/* DuckDB: an empty pattern replaces nothing. */
		if (dst != NULL && s->n)
			memcpy(dst, s->p, s->n);
		return s->n;
	}
	while ((hit = memmem(p, (size_t)(end - p), f->p, f->n)) != NULL) {
		k = (size_t)(hit - p);
		if (dst != NULL) {
			memcpy(dst + len, p, k);
			if (t->n)
				memcpy(dst + len + k, t->p, t->n);
		}
		len += k + t->n;
		p = hit + f->n;
	}
	if (dst != NULL && end > p)
		memcpy(dst + len, p, (size_t)(end - p));
	return len + (size_t)(end - p);
}

static int
eval_replace(struct ctx *cx, struct core_bnode *n, const uint32_t *sel,
    uint32_t cnt)
{
	uint32_t nrows = cx->batch->nrows, i, r, m0 = n->kids[0]->out.m,
	    m1 = n->kids[1]->out.m, m2 = n->kids[2]->out.m, nm;
	const struct core_bstr *A = n->kids[0]->out.v, *F = n->kids[1]->out.v,
	    *T = n->kids[2]->out.v;
	struct core_bstr *O = vals(n, nrows, sizeof(*O));
	const uint8_t *nn;
	size_t total = 0, k;
	char *a;

	/* Two passes, sizing the arena first, so that it is allocated
	 * once and the views into it stay put. */
	nulview(&n->out, &nn, &nm);
	for (i = 0; i < cnt; i++) {
		r = sel[i];
		if (!nn[r & nm])
			total += replace_one(&A[r & m0], &F[r & m1],
			    &T[r & m2], NULL);
	}
	if (total > UINT32_MAX)
		return row_err(cx, n, sel[0], "string too long");
	a = arena(n, total);
	for (i = 0; i < cnt; i++) {
		r = sel[i];
		O[r].p = a;
		O[r].n = 0;
		if (nn[r & nm])
			continue;
		k = replace_one(&A[r & m0], &F[r & m1], &T[r & m2], a);
		O[r].n = (uint32_t)k;
		a += k;
	}
	n->out.v = O;
	return 0;
}

/* ---- numbers: exact rounding, sign, float functions ---- */

/*
 * round, floor or ceil of an I64 value, exactly: divided by fa (a power
 * of ten; 0 drops every digit) under the mode, times fb, within lo..hi.
 */
static int
eval_dec_round_w(struct ctx *cx, struct core_bnode *n, const uint32_t *sel,
    uint32_t cnt)
{
	const struct core_bnode *k = n->kids[0];
	uint32_t nrows = cx->batch->nrows, i, r, m = k->out.m, nm;
	const core_i128 *A = k->out.v;
	core_i128 *O = vals(n, nrows, sizeof(core_i128));
	core_i128 fa = n->wfa, fb = n->wfb, lo = n->wlo, hi = n->whi, x, q, rm;
	core_i128 z, am;
	int mode = n->part;
	const uint8_t *nn;
	char msg[64];
	unsigned bad;

	nulview(&n->out, &nn, &nm);
	for (i = 0; i < cnt; i++) {
		r = sel[i];
		x = A[r & m];
		if (fa == 0) {
			O[r] = 0;
			continue;
		}
		q = x / fa;
		rm = x % fa;
		am = rm < 0 ? -rm : rm;
		if (mode == CORE_RM_FLOOR)
			q -= rm < 0;
		else if (mode == CORE_RM_CEIL)
			q += rm > 0;
		else if (am >= fa - am)
			q += x < 0 ? -1 : 1;	/* half away from zero */
		bad = __builtin_mul_overflow(q, fb, &z);
		bad |= (z < lo) | (z > hi);
		O[r] = z;
		if (bad && !nn[r & nm])
			return row_err(cx, n, r, overflow_msg(n, msg,
			    sizeof(msg)));
	}
	n->out.v = O;
	return 0;
}

static int
eval_dec_round(struct ctx *cx, struct core_bnode *n, const uint32_t *sel,
    uint32_t cnt)
{
	const struct core_bnode *k = n->kids[0];
	uint32_t nrows = cx->batch->nrows, i, r, m = k->out.m, nm;
	const int64_t *A = k->out.v;
	int64_t *O = vals(n, nrows, sizeof(int64_t));
	int64_t fa = n->fa, fb = n->fb, lo = n->lo, hi = n->hi, x, q, rm, z;
	int mode = n->part;
	const uint8_t *nn;
	char msg[64];
	unsigned bad;

	if (n->phys == CORE_PHYS_I128)
		return eval_dec_round_w(cx, n, sel, cnt);
	nulview(&n->out, &nn, &nm);
	for (i = 0; i < cnt; i++) {
		r = sel[i];
		x = A[r & m];
		if (fa == 0) {
			O[r] = 0;
			continue;
		}
		q = x / fa;
		rm = x % fa;
		if (mode == CORE_RM_FLOOR)
			q -= rm < 0;
		else if (mode == CORE_RM_CEIL)
			q += rm > 0;
		else if ((rm < 0 ? -rm : rm) >= fa - (rm < 0 ? -rm : rm))
			q += x < 0 ? -1 : 1;	/* half away from zero */
		bad = __builtin_mul_overflow(q, fb, &z);
		bad |= (z < lo) | (z > hi);
		O[r] = z;
		if (bad && !nn[r & nm])
			return row_err(cx, n, r, overflow_msg(n, msg,
			    sizeof(msg)));
	}
	n->out.v = O;
	return 0;
}

static int
eval_sign(struct ctx *cx, struct core_bnode *n, const uint32_t *sel,
    uint32_t cnt)
{
	const struct core_bnode *k = n->kids[0];
	uint32_t nrows = cx->batch->nrows, i, r, m = k->out.m;
	int64_t *O = vals(n, nrows, sizeof(int64_t));

	if (k->phys == CORE_PHYS_F64) {
		const double *A = k->out.v;

		/* NaN's sign is 0, as DuckDB's. */
		for (i = 0; i < cnt; i++) {
			r = sel[i];
			O[r] = (A[r & m] > 0) - (A[r & m] < 0);
		}
	} else if (k->phys == CORE_PHYS_I128) {
		const core_i128 *A = k->out.v;

		for (i = 0; i < cnt; i++) {
			r = sel[i];
			O[r] = (A[r & m] > 0) - (A[r & m] < 0);
		}
	} else {
		const int64_t *A = k->out.v;

		for (i = 0; i < cnt; i++) {
			r = sel[i];
			O[r] = (A[r & m] > 0) - (A[r & m] < 0);
		}
	}
	n->out.v = O;
	return 0;
}

/* sqrt, ln, log10, exp, power over doubles; DuckDB's errors for the
 * square root of a negative number and the logarithm of one <= 0. */
static int
eval_math(struct ctx *cx, struct core_bnode *n, const uint32_t *sel,
    uint32_t cnt)
{
	uint32_t nrows = cx->batch->nrows, i, r, m = n->kids[0]->out.m, nm,
	    mb = 0;
	const double *A = n->kids[0]->out.v, *B = &zero_f64;
	double *O = vals(n, nrows, sizeof(double)), x;
	const uint8_t *nn;
	unsigned bad = 0;

	if (n->nkids > 1) {
		B = n->kids[1]->out.v;
		mb = n->kids[1]->out.m;
	}
	nulview(&n->out, &nn, &nm);
	switch (n->fn) {
	case CORE_BF_SQRT:
		for (i = 0; i < cnt; i++) {
			r = sel[i];
			x = A[r & m];
			bad |= (x < 0) & !nn[r & nm];
			O[r] = sqrt(x);
		}
		if (bad) {
			FIND_BAD(A[r & m] < 0);
			return row_err(cx, n, sel[i], "cannot take the "
			    "square root of a negative number");
		}
		break;
	case CORE_BF_LN:
	case CORE_BF_LOG10:
		for (i = 0; i < cnt; i++) {
			r = sel[i];
			x = A[r & m];
			bad |= (x <= 0) & !nn[r & nm];
			O[r] = n->fn == CORE_BF_LN ? log(x) : log10(x);
		}
		if (bad) {
			FIND_BAD(A[r & m] <= 0);
			return row_err(cx, n, sel[i], A[sel[i] & m] == 0 ?
			    "cannot take the logarithm of zero" :
			    "cannot take the logarithm of a negative number");
		}
		break;
	case CORE_BF_EXP:
		for (i = 0; i < cnt; i++) {
			r = sel[i];
			O[r] = exp(A[r & m]);
		}
		break;
	default:
		for (i = 0; i < cnt; i++) {
			r = sel[i];
			O[r] = pow(A[r & m], B[r & mb]);
		}
		break;
	}
	n->out.v = O;
	return 0;
}

static int
eval_func(struct ctx *cx, struct core_bnode *n, const uint32_t *sel,
    uint32_t cnt)
{
	struct core_bnode *k = n->kids[0];
	uint32_t nrows = cx->batch->nrows, i, r, m, j;
	int rc;

	if (n->fn == CORE_BF_ABS)
		return eval_neg(cx, n, sel, cnt, true);
	if (n->fn == CORE_BF_COALESCE)
		return eval_coalesce(cx, n, sel, cnt);
	if (n->fn == CORE_BF_CONCAT)
		return eval_concat(cx, n, sel, cnt);
	if (n->fn == CORE_BF_GREATEST || n->fn == CORE_BF_LEAST)
		return eval_extreme(cx, n, sel, cnt);
	if (n->negated && (n->fn == CORE_BF_ROUND ||
	    n->fn == CORE_BF_DEC_ROUND)) {
		/* round(x, NULL) */
		n->out.v = &zero_w;
		n->out.nul = &one_byte;
		n->out.m = 0;
		return 0;
	}
	for (j = 0; j < n->nkids; j++)
		if ((rc = eval(cx, n->kids[j], sel, cnt)) != 0)
			return rc;
	m = k->out.m;
	n->out.m = ~0u;
	n->out.nul = nul_union(n, &k->out, n->nkids > 1 ? &n->kids[1]->out :
	    NULL, sel, cnt, nrows);
	if (n->nkids > 2 && n->kids[2]->out.nul != NULL) {
		/* A third argument's NULLs, into n's own bytes. */
		const uint8_t *pc, *pu = n->out.nul;
		uint32_t xc;
		uint8_t *N = nuls(n, nrows);

		nulview(&n->kids[2]->out, &pc, &xc);
		for (i = 0; i < cnt; i++) {
			r = sel[i];
			N[r] = (pu != NULL && pu[r]) | pc[r & xc];
		}
		n->out.nul = N;
	}
	switch (n->fn) {
	case CORE_BF_DATE_PART:
		return eval_date_part(cx, n, sel, cnt);
	case CORE_BF_DATE_TRUNC:
		return eval_date_trunc(cx, n, sel, cnt);
	case CORE_BF_DATE_DIFF:
		return eval_date_diff(cx, n, sel, cnt);
	case CORE_BF_SUBSTR:
	case CORE_BF_LEFT:
	case CORE_BF_RIGHT:
		return eval_substr(cx, n, sel, cnt);
	case CORE_BF_STRPOS:
		return eval_strpos(cx, n, sel, cnt);
	case CORE_BF_REPLACE:
		return eval_replace(cx, n, sel, cnt);
	case CORE_BF_DEC_ROUND:
		return eval_dec_round(cx, n, sel, cnt);
	case CORE_BF_SIGN:
		return eval_sign(cx, n, sel, cnt);
	case CORE_BF_SQRT:
	case CORE_BF_LN:
	case CORE_BF_LOG10:
	case CORE_BF_EXP:
	case CORE_BF_POWER:
		return eval_math(cx, n, sel, cnt);
	case CORE_BF_NULLIF: {
		/* a, NULL where a = b is TRUE. */
		const struct core_bnode *eq = n->kids[1];
		const uint8_t *E = eq->out.v, *pe, *pa;
		uint32_t me = eq->out.m, xe, xa;
		uint8_t *O = vals(n, nrows, phys_width(n->phys));
		uint8_t *N = nuls(n, nrows);

		copy_rows(n, &k->out, sel, cnt, O, N);
		nulview(&eq->out, &pe, &xe);
		nulview(&k->out, &pa, &xa);
		for (i = 0; i < cnt; i++) {
			r = sel[i];
			N[r] = pa[r & xa] | (E[r & me] & !pe[r & xe]);
		}
		n->out.v = O;
		n->out.nul = N;
		return 0;
	}
	case CORE_BF_STARTS_WITH:
	case CORE_BF_ENDS_WITH:
	case CORE_BF_CONTAINS: {
		const struct core_bstr *A = k->out.v, *P = n->kids[1]->out.v;
		uint32_t mp = n->kids[1]->out.m;
		uint8_t *O = vals(n, nrows, 1);
		bool sw = n->fn == CORE_BF_STARTS_WITH;
		bool ew = n->fn == CORE_BF_ENDS_WITH;

		for (i = 0; i < cnt; i++) {
			const struct core_bstr *s = &A[(r = sel[i]) & m];
			const struct core_bstr *p = &P[r & mp];

			if (sw)
				O[r] = s->n >= p->n && (p->n == 0 ||
				    memcmp(s->p, p->p, p->n) == 0);
			else if (ew)
				O[r] = s->n >= p->n && (p->n == 0 ||
				    memcmp(s->p + s->n - p->n, p->p,
				    p->n) == 0);
			else
				O[r] = p->n == 0 || memmem(s->p, s->n, p->p,
				    p->n) != NULL;
		}
		n->out.v = O;
		return 0;
	}
	case CORE_BF_FLOOR:
	case CORE_BF_CEIL:
	case CORE_BF_ROUND: {
		const double *A = k->out.v;
		double *O, f = pow(10.0, n->days);

		if (n->negated) {
			/* round(x, NULL) */
			n->out.v = &zero_w;
			n->out.nul = &one_byte;
			n->out.m = 0;
			return 0;
		}
		if (n->phys != CORE_PHYS_F64) {
			n->out = k->out;
			return 0;
		}
		O = vals(n, nrows, sizeof(double));
		for (i = 0; i < cnt; i++) {
			r = sel[i];
			O[r] = n->fn == CORE_BF_FLOOR ? floor(A[r & m]) :
			    n->fn == CORE_BF_CEIL ? ceil(A[r & m]) :
			    n->days == 0 ? round(A[r & m]) :
			    round(A[r & m] * f) / f;
		}
		n->out.v = O;
		return 0;
	}
	case CORE_BF_LOWER:
	case CORE_BF_UPPER: {
		const struct core_bstr *A = k->out.v;
		struct core_bstr *O = vals(n, nrows, sizeof(*O));
		uint8_t base = n->fn == CORE_BF_LOWER ? 'A' : 'a';
		size_t total = 0;
		char *a;

		for (i = 0; i < cnt; i++)
			total += A[sel[i] & m].n;
		a = arena(n, total);
		for (i = 0; i < cnt; i++) {
			const struct core_bstr *s = &A[(r = sel[i]) & m];

			/* ASCII letters only; other bytes pass through. */
			for (j = 0; j < s->n; j++) {
				uint8_t c = (uint8_t)s->p[j];
				a[j] = (char)((uint8_t)(c - base) < 26u ?
				    c ^ 0x20 : c);
			}
			O[r].p = a;
			O[r].n = s->n;
			a += s->n;
		}
		n->out.v = O;
		return 0;
	}
	case CORE_BF_TRIM:
	case CORE_BF_LTRIM:
	case CORE_BF_RTRIM: {
		/* Views into the argument: nothing is copied. */
		const struct core_bstr *A = k->out.v;
		struct core_bstr *O = vals(n, nrows, sizeof(*O));
		bool left = n->fn != CORE_BF_RTRIM;
		bool right = n->fn != CORE_BF_LTRIM;

		for (i = 0; i < cnt; i++) {
			const struct core_bstr *s = &A[(r = sel[i]) & m];
			uint32_t b0 = 0, e0 = s->n;

			while (left && b0 < e0 && s->p[b0] == ' ')
				b0++;
			while (right && e0 > b0 && s->p[e0 - 1] == ' ')
				e0--;
			O[r].p = s->p + b0;
			O[r].n = e0 - b0;
		}
		n->out.v = O;
		return 0;
	}
	case CORE_BF_LENGTH: {
		const struct core_bstr *A = k->out.v;
		int64_t *O = vals(n, nrows, sizeof(int64_t)), c;

		for (i = 0; i < cnt; i++) {
			const struct core_bstr *s = &A[(r = sel[i]) & m];

			for (j = 0, c = 0; j < s->n; j++)
				c += ((uint8_t)s->p[j] & 0xc0) != 0x80;
			O[r] = c;
		}
		n->out.v = O;
		return 0;
	}
	default:
		return core_err_set(cx->err, CORE_EINTERNAL,
		    "bad expression function");
	}
}

static int
eval(struct ctx *cx, struct core_bnode *n, const uint32_t *sel,
    uint32_t cnt)
{
	switch (n->kind) {
	case CORE_BN_COLUMN:
		return eval_column(cx, n, sel, cnt);
	case CORE_BN_CONST:
		eval_const(n);
		return 0;
	case CORE_BN_NEG:
		return eval_neg(cx, n, sel, cnt, false);
	case CORE_BN_ARITH:
		return eval_arith(cx, n, sel, cnt);
	case CORE_BN_CMP:
		return eval_cmp(cx, n, sel, cnt);
	case CORE_BN_AND:
	case CORE_BN_OR:
		return eval_logic(cx, n, sel, cnt);
	case CORE_BN_NOT:
		return eval_not(cx, n, sel, cnt);
	case CORE_BN_IS_NULL:
		return eval_is_null(cx, n, sel, cnt);
	case CORE_BN_IN:
		return eval_in(cx, n, sel, cnt);
	case CORE_BN_LIKE:
		return eval_like(cx, n, sel, cnt);
	case CORE_BN_CASE:
		return eval_case(cx, n, sel, cnt);
	case CORE_BN_CAST:
		return eval_cast(cx, n, sel, cnt);
	case CORE_BN_DATE_ADD:
		return eval_date_add(cx, n, sel, cnt);
	case CORE_BN_FUNC:
		return eval_func(cx, n, sel, cnt);
	case CORE_BN_REF:
		/* Evaluated over these rows or more, by index: a view. */
		n->out = n->ref->out;
		return 0;
	}
	return core_err_set(cx->err, CORE_EINTERNAL, "bad expression node");
}

/* ---- filters ---- */

/* The rows of in[0..cnt) where v is TRUE into out (may be in). */
static uint32_t
select_true(const struct core_bvec *v, const uint32_t *in, uint32_t cnt,
    uint32_t *out)
{
	const uint8_t *A = v->v, *pn;
	uint32_t i, r, m = v->m, xm, k = 0;

	nulview(v, &pn, &xm);
	for (i = 0; i < cnt; i++) {
		r = in[i];
		out[k] = r;
		k += A[r & m] & !pn[r & xm];
	}
	return k;
}

static int
filt(struct ctx *cx, struct core_bnode *n, const uint32_t *in, uint32_t cnt,
    uint32_t *out, uint32_t *nout)
{
	uint32_t nrows = cx->batch->nrows, na, nr, nb, i, j, k, t;
	uint32_t *a, *rest;
	int rc;

	switch (n->kind) {
	case CORE_BN_AND:
		/* The right side sees only the rows the left passed. */
		if ((rc = filt(cx, n->kids[0], in, cnt, out, &na)) != 0)
			return rc;
		return filt(cx, n->kids[1], out, na, out, nout);
	case CORE_BN_OR:
		a = sels(n, 0, nrows);
		rest = sels(n, 1, nrows);
		if ((rc = filt(cx, n->kids[0], in, cnt, a, &na)) != 0)
			return rc;
		/* The right side sees only the rows the left did not pass. */
		for (i = j = nr = 0; i < cnt; i++) {
			t = in[i];
			if (j < na && a[j] == t)
				j++;
			else
				rest[nr++] = t;
		}
		if ((rc = filt(cx, n->kids[1], rest, nr, rest, &nb)) != 0)
			return rc;
		for (i = j = k = 0; i < na || j < nb;) {
			if (j >= nb || (i < na && a[i] < rest[j]))
				out[k++] = a[i++];
			else
				out[k++] = rest[j++];
		}
		*nout = k;
		return 0;
	default:
		if ((rc = eval(cx, n, in, cnt)) != 0)
			return rc;
		*nout = select_true(&n->out, in, cnt, out);
		return 0;
	}
}

static const uint32_t *
identity(struct core_expr_bound *b, uint32_t n)
{
	size_t need = (size_t)(n ? n : 1) * sizeof(uint32_t), i;

	if (b->ident_cap < need) {
		core_grow_aligned((void **)&b->ident, &b->ident_cap, need);
		for (i = 0; i < b->ident_cap / sizeof(uint32_t); i++)
			b->ident[i] = (uint32_t)i;
	}
	return b->ident;
}

int
core_expr_eval_filter(struct core_expr_bound *b,
    const struct core_batch *batch, const uint32_t *sel_in, uint32_t n_in,
    uint32_t *sel_out, uint32_t *n_out, struct core_err *err)
{
	struct ctx cx = { b, batch, err };

	*n_out = 0;
	if (b->root->type.id != CORE_TYPE_BOOL)
		return core_err_set(err, CORE_EUSAGE, "a filter must be a "
		    "bool expression");
	if (sel_in == NULL)
		sel_in = identity(b, n_in);
	return filt(&cx, b->root, sel_in, n_in, sel_out, n_out);
}

/* ---- projection ---- */

static void
grow_values(struct core_column *c, size_t need)
{
	if (c->values_cap < need || c->values == NULL)
		core_grow_aligned(&c->values, &c->values_cap, need ? need : 1);
}

int
core_expr_eval_project(struct core_expr_bound *b,
    const struct core_batch *batch, const uint32_t *sel, uint32_t n,
    struct core_column *out, struct core_err *err)
{
	struct ctx cx = { b, batch, err };
	struct core_bnode *root = b->root;
	const struct core_bvec *v = &root->out;
	const uint8_t *pn;
	uint32_t i, r, m, xm;
	bool anynull = false;
	int rc;

	if (sel == NULL)
		sel = identity(b, n);
	if ((rc = eval(&cx, root, sel, n)) != 0)
		return rc;
	out->type = root->type;
	m = v->m;
	nulview(v, &pn, &xm);
	switch (root->type.id) {
	case CORE_TYPE_BOOL: {
		const uint8_t *A = v->v;
		uint8_t *O;

		grow_values(out, n);
		O = out->values;
		for (i = 0; i < n; i++)
			O[i] = A[sel[i] & m];
		break;
	}
	case CORE_TYPE_INT32:
	case CORE_TYPE_DATE: {
		const int64_t *A = v->v;
		int32_t *O;

		grow_values(out, (size_t)n * 4);
		O = out->values;
		for (i = 0; i < n; i++)
			O[i] = (int32_t)A[sel[i] & m];
		break;
	}
	case CORE_TYPE_STRING: {
		const struct core_bstr *A = v->v;
		size_t total = 0;
		char *d;

		for (i = 0; i < n; i++)
			total += pn[sel[i] & xm] ? 0 : A[sel[i] & m].n;
		if (total > INT32_MAX)
			return core_err_set(err, CORE_ELIMIT, "a string column "
			    "of more than 2 GiB in one batch");
		grow_values(out, total);
		if (out->offsets_cap < ((size_t)n + 1) * 4 ||
		    out->offsets == NULL)
			core_grow_aligned((void **)&out->offsets,
			    &out->offsets_cap, ((size_t)n + 1) * 4);
		d = out->values;
		out->offsets[0] = 0;
		for (i = 0, total = 0; i < n; i++) {
			const struct core_bstr *s = &A[sel[i] & m];
			uint32_t len = pn[sel[i] & xm] ? 0 : s->n;

			if (len)
				memcpy(d + total, s->p, len);
			total += len;
			out->offsets[i + 1] = (int32_t)total;
		}
		break;
	}
	case CORE_TYPE_DECIMAL128: {
		const core_i128 *A = v->v;
		char *O;

		grow_values(out, (size_t)n * sizeof(*A));
		O = out->values;
		for (i = 0; i < n; i++)
			core_i128_store(O + (size_t)i * sizeof(*A),
			    A[sel[i] & m]);
		break;
	}
	default: {
		/* int64, decimal, timestamp, float64: 8 bytes. */
		const int64_t *A = v->v;
		int64_t *O;

		grow_values(out, (size_t)n * 8);
		O = out->values;
		for (i = 0; i < n; i++)
			O[i] = A[sel[i] & m];
		break;
	}
	}
	out->validity = NULL;
	if (v->nul != NULL) {
		for (i = 0; i < n && !anynull; i++)
			anynull = pn[sel[i] & xm];
	}
	if (anynull) {
		size_t need = core_bitmap_bytes(n ? n : 1);

		if (out->validity_cap < need || out->validity_buf == NULL)
			core_grow_aligned((void **)&out->validity_buf,
			    &out->validity_cap, need);
		memset(out->validity_buf, 0, need);
		for (i = 0; i < n; i++) {
			r = !pn[sel[i] & xm];
			out->validity_buf[i >> 3] |= (uint8_t)(r << (i & 7));
		}
		out->validity = out->validity_buf;
		/* A NULL slot holds zero (an empty string), as core_col
		 * promises. */
		if (root->type.id != CORE_TYPE_STRING) {
			size_t w = core_type_width(root->type.id);

			for (i = 0; i < n; i++)
				if (pn[sel[i] & xm])
					memset((char *)out->values + i * w, 0,
					    w);
		}
	}
	return 0;
}

void
core_expr_column_release(struct core_column *c)
{
	if (c == NULL)
		return;
	core_free_aligned(c->validity_buf);
	core_free_aligned(c->values);
	core_free_aligned(c->offsets);
	memset(c, 0, sizeof(*c));
}
