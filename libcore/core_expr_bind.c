/*
 * core_expr_bind.c - the binder: names to columns, DuckDB's types on
 * every node, implicit casts, compiled LIKE patterns and IN lists, and
 * literal subtrees folded to constants.
 *
 * The bound tree is built afresh from the AST (which keeps only the
 * types written into it), so a construct that SQL defines by others is
 * bound as those others: x BETWEEN a AND b as x >= a AND x <= b, CASE x
 * WHEN v as x = v, an IN list with non-constant items as a chain of ORs
 * of equalities.  The AST of x is then bound once per use, which costs
 * an evaluation of x per use and keeps the tree a tree.
 *
 * Folding runs the evaluator itself on a one-row batch, so a constant
 * means exactly what the same subtree means over data; an error there
 * (an overflow, a cast that does not parse) is reported at bind time
 * with a caret.
 *
 * Expressions are short: nodes are allocated one by one and the walks
 * recurse (the parser bounds the depth).
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core_alloc.h"
#include "core_expr_bind.h"
#include "core_expr_eval.h"
#include "core_suggest.h"
#include "core_value.h"

/* The NULL literal's type until its context gives it one. */
#define TYPE_ANY ((enum core_type)0)

struct binder {
	const char *src;
	size_t len;
	const struct core_schema *schema;
	struct core_err *err;
	bool final;		/* a failing fold is the error */
	uint32_t nfailed;	/* folds that failed while !final */
};

static void bnode_free(struct core_bnode *n);

static struct core_bnode *
bnode_new(enum core_bnode_kind kind, const struct core_expr *e)
{
	struct core_bnode *n = core_xcalloc(1, sizeof(*n));

	n->kind = kind;
	n->col = -1;
	n->fa = n->fb = 1;
	n->wfa = n->wfb = 1;
	n->lo = INT64_MIN;
	n->hi = INT64_MAX;
	if (e != NULL) {
		n->off = e->off;
		n->len = e->len;
	}
	return n;
}

static void
add_kid(struct core_bnode *n, struct core_bnode *kid)
{
	n->kids = core_xreallocarray(n->kids, (size_t)n->nkids + 1,
	    sizeof(*n->kids));
	n->kids[n->nkids++] = kid;
}

static void
bnode_free(struct core_bnode *n)
{
	uint32_t i;

	if (n == NULL)
		return;
	for (i = 0; i < n->nkids; i++)
		bnode_free(n->kids[i]);
	free(n->kids);
	free(n->k.s);
	free(n->like.pat);
	free(n->set.i);
	free(n->set.w);
	free(n->set.f);
	free(n->set.s);
	free(n->set.sbytes);
	core_free_aligned(n->buf);
	core_free_aligned(n->nulbuf);
	for (i = 0; i < 3; i++)
		core_free_aligned(n->sel[i]);
	core_free_aligned(n->arena);
	free(n);
}

/* ---- types ---- */

static enum core_phys
phys_of(enum core_type id)
{
	switch (id) {
	case CORE_TYPE_FLOAT64:
		return CORE_PHYS_F64;
	case CORE_TYPE_STRING:
		return CORE_PHYS_STR;
	case CORE_TYPE_BOOL:
		return CORE_PHYS_BOOL;
	case CORE_TYPE_DECIMAL128:
		return CORE_PHYS_I128;
	default:
		/* TYPE_ANY, a NULL constant, reads as a bool until typed. */
		return id == TYPE_ANY ? CORE_PHYS_BOOL : CORE_PHYS_I64;
	}
}

static struct core_coltype
mktype(enum core_type id, unsigned p, unsigned s)
{
	struct core_coltype t;

	memset(&t, 0, sizeof(t));
	t.id = id;
	t.precision = (uint8_t)p;
	t.scale = (uint8_t)s;
	return t;
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

static void
set_type(struct core_bnode *n, struct core_coltype t)
{
	n->type = t;
	n->phys = phys_of(t.id);
	if (t.id == CORE_TYPE_DECIMAL128) {
		n->whi = pow10w(t.precision) - 1;
		n->wlo = -n->whi;
	}
}

static bool
is_int(enum core_type id)
{
	return id == CORE_TYPE_INT32 || id == CORE_TYPE_INT64;
}

static bool
is_num(enum core_type id)
{
	return is_int(id) || core_type_is_decimal(id) ||
	    id == CORE_TYPE_FLOAT64;
}

static bool
is_null_const(const struct core_bnode *n)
{
	return n->kind == CORE_BN_CONST && n->type.id == TYPE_ANY;
}

static const char *
tname(struct core_coltype t, char buf[CORE_TYPE_NAME_MAX])
{
	if (t.id == TYPE_ANY)
		return "NULL";
	return core_type_name(t, buf);
}

static int64_t
pow10i(unsigned k)
{
	return (int64_t)core_pow10_u64[k];
}

/* The range of values of an I64 type, for overflow checks. */
static void
type_range(struct core_coltype t, int64_t *lo, int64_t *hi)
{
	switch (t.id) {
	case CORE_TYPE_INT32:
	case CORE_TYPE_DATE:
		*lo = INT32_MIN;
		*hi = INT32_MAX;
		break;
	case CORE_TYPE_DECIMAL:
		*hi = pow10i(t.precision) - 1;
		*lo = -*hi;
		break;
	default:
		*lo = INT64_MIN;
		*hi = INT64_MAX;
		break;
	}
}

/*
 * The integer type of a and b (int32 or int64) together.  An integer
 * literal in DuckDB takes the type of an integer beside it that is no
 * literal when that type holds its value: i * -2147483648 is an int32
 * where i is one (and overflows as one), though -2147483648 alone or
 * beside another literal (-2147483648 * 2) is an int64.  A folded
 * constant such as (1 + 1) is no literal, as in DuckDB.  -2147483648
 * is the one int64 literal an int32 holds.
 */
static enum core_type
int_pair(const struct core_bnode *a, const struct core_bnode *b)
{
	const struct core_bnode *lit = a->k.ilit ? a : b;
	const struct core_bnode *other = a->k.ilit ? b : a;

	if (a->type.id == CORE_TYPE_INT32 && b->type.id == CORE_TYPE_INT32)
		return CORE_TYPE_INT32;
	if (a->k.ilit != b->k.ilit && other->type.id == CORE_TYPE_INT32 &&
	    lit->k.i >= INT32_MIN && lit->k.i <= INT32_MAX)
		return CORE_TYPE_INT32;
	return CORE_TYPE_INT64;
}

/* A number as a decimal(p, s) for DuckDB's decimal rules: an int32 (an
 * integer literal that fits one too) as (10,0), an int64 as (19,0). */
static void
dec_view(const struct core_bnode *n, unsigned *p, unsigned *s)
{
	*s = 0;
	if (core_type_is_decimal(n->type.id)) {
		*p = n->type.precision;
		*s = n->type.scale;
	} else {
		*p = n->type.id == CORE_TYPE_INT32 ? 10 : 19;
	}
}

/* The scale of a number's type (0 for integers). */
static unsigned
scale_of(struct core_coltype t)
{
	return core_type_is_decimal(t.id) ? t.scale : 0;
}

static int
err_at(struct binder *bd, uint32_t off, uint32_t len, const char *msg)
{
	return core_expr_err(bd->err, CORE_EUSAGE, bd->src, bd->len, off,
	    len, "%s", msg);
}

static int
too_wide(struct binder *bd, const struct core_expr *e, unsigned s)
{
	char msg[160];

	snprintf(msg, sizeof(msg), "the product needs a scale of %u; at "
	    "most %d is supported (cast an operand to a smaller scale or "
	    "to double)", s, CORE_DECIMAL128_MAX_PRECISION);
	return err_at(bd, e->op_len ? e->op_off : e->off,
	    e->op_len ? e->op_len : e->len, msg);
}

/* ---- folding ---- */

static bool
all_const(const struct core_bnode *n)
{
	uint32_t i;

	for (i = 0; i < n->nkids; i++)
		if (n->kids[i]->kind != CORE_BN_CONST)
			return false;
	return true;
}

/* Replaces *np (whose children are all constants) by its value. */
static int
fold(struct binder *bd, struct core_bnode **np)
{
	struct core_bnode *n = *np, *k;
	struct core_expr_bound tmp;
	struct core_batch one;
	struct core_column col;
	struct core_err e2;
	int rc;

	if (n->kind == CORE_BN_CONST || n->kind == CORE_BN_COLUMN ||
	    !all_const(n))
		return 0;
	memset(&tmp, 0, sizeof(tmp));
	memset(&one, 0, sizeof(one));
	memset(&col, 0, sizeof(col));
	tmp.root = n;
	tmp.src = (char *)bd->src;
	tmp.src_len = bd->len;
	tmp.row_base = UINT64_MAX;	/* messages without a row */
	one.nrows = 1;
	rc = core_expr_eval_project(&tmp, &one, NULL, 1, &col, &e2);
	core_free_aligned(tmp.ident);
	if (rc != 0) {
		core_expr_column_release(&col);
		if (bd->final)
			return err_at(bd, n->off, n->len, e2.msg);
		/* Under AND or OR: an error only if this side stays
		 * (bind_logic), which then binds it again. */
		bd->nfailed++;
		return 0;
	}
	k = bnode_new(CORE_BN_CONST, NULL);
	k->off = n->off;
	k->len = n->len;
	set_type(k, n->type);
	if (!core_col_is_valid(&col, 0)) {
		k->k.null = true;
	} else {
		switch (n->type.id) {
		case CORE_TYPE_BOOL:
			k->k.b = ((uint8_t *)col.values)[0];
			k->k.i = k->k.b;
			break;
		case CORE_TYPE_INT32:
		case CORE_TYPE_DATE:
			k->k.i = ((int32_t *)col.values)[0];
			break;
		case CORE_TYPE_FLOAT64:
			k->k.f = ((double *)col.values)[0];
			break;
		case CORE_TYPE_DECIMAL128:
			k->k.w = core_i128_load(col.values);
			break;
		case CORE_TYPE_STRING:
			k->k.slen = (uint32_t)col.offsets[1];
			k->k.s = core_xmalloc((size_t)k->k.slen + 1);
			memcpy(k->k.s, col.values, k->k.slen);
			k->k.s[k->k.slen] = '\0';
			break;
		default:
			k->k.i = ((int64_t *)col.values)[0];
			break;
		}
	}
	core_expr_column_release(&col);
	bnode_free(n);
	*np = k;
	return 0;
}

/* AND and OR with a constant side: x AND TRUE is x, x AND FALSE is FALSE,
 * x OR FALSE is x, x OR TRUE is TRUE (as DuckDB simplifies them), so a
 * column under an absorbed side is not read at all.  A NULL constant
 * decides nothing and is left to the evaluator. */
static int
fold_logic(struct binder *bd, struct core_bnode **np)
{
	struct core_bnode *n = *np, *k, *keep;
	bool absorb = n->kind == CORE_BN_OR;	/* TRUE absorbs OR */
	uint32_t i;

	for (i = 0; i < 2 && n->nkids == 2; i++) {
		k = n->kids[i];
		if (k->kind != CORE_BN_CONST || k->k.null)
			continue;
		keep = (k->k.b != 0) == absorb ? k : n->kids[1 - i];
		if (keep == n->kids[0])
			n->kids[0] = NULL;
		else
			n->kids[1] = NULL;
		bnode_free(n);
		*np = keep;
		return 0;
	}
	return fold(bd, np);
}

/* ---- casts ---- */

static bool
can_cast(struct core_coltype from, struct core_coltype to)
{
	enum core_type a = from.id, b = to.id;

	if (a == TYPE_ANY || a == b || a == CORE_TYPE_STRING ||
	    b == CORE_TYPE_STRING)
		return true;
	if (is_num(a) && is_num(b))
		return true;
	if ((a == CORE_TYPE_DATE || a == CORE_TYPE_TIMESTAMP) &&
	    (b == CORE_TYPE_DATE || b == CORE_TYPE_TIMESTAMP))
		return true;
	if ((a == CORE_TYPE_BOOL && is_int(b)) ||
	    (is_int(a) && b == CORE_TYPE_BOOL))
		return true;
	return false;
}

/* n as type t: a NULL constant takes t, the same type stays, anything
 * else gets a CAST above it (folded when n is a constant). */
static int
cast_to(struct binder *bd, struct core_bnode **np, struct core_coltype t)
{
	struct core_bnode *n = *np, *c;

	if (is_null_const(n)) {
		set_type(n, t);
		return 0;
	}
	if (core_type_equal(n->type, t))
		return 0;
	c = bnode_new(CORE_BN_CAST, NULL);
	c->off = n->off;
	c->len = n->len;
	set_type(c, t);
	add_kid(c, n);
	*np = c;
	return fold(bd, np);
}

/* A number beside an I128 operand as a decimal128 of its own scale, so
 * that both sides of a kernel have one class. */
static int
widen(struct binder *bd, struct core_bnode **np)
{
	if ((*np)->phys == CORE_PHYS_I128)
		return 0;
	return cast_to(bd, np, core_type_decimal(
	    CORE_DECIMAL128_MAX_PRECISION, scale_of((*np)->type)));
}

/* The type two values of a CASE, coalesce or IN list share. */
static int
common_type(struct binder *bd, const struct core_bnode *a,
    const struct core_bnode *b, struct core_coltype *out)
{
	char msg[160], b1[CORE_TYPE_NAME_MAX], b2[CORE_TYPE_NAME_MAX];
	enum core_type x = a->type.id, y = b->type.id;
	unsigned pa, sa, pb, sb, s, id, p;

	if (x == TYPE_ANY) {
		*out = b->type;
		return 0;
	}
	if (y == TYPE_ANY || core_type_equal(a->type, b->type)) {
		*out = a->type;
		return 0;
	}
	if (is_num(x) && is_num(y)) {
		if (x == CORE_TYPE_FLOAT64 || y == CORE_TYPE_FLOAT64) {
			*out = mktype(CORE_TYPE_FLOAT64, 0, 0);
		} else if (is_int(x) && is_int(y)) {
			*out = mktype(int_pair(a, b), 0, 0);
		} else {
			dec_view(a, &pa, &sa);
			dec_view(b, &pb, &sb);
			s = sa > sb ? sa : sb;
			id = pa - sa > pb - sb ? pa - sa : pb - sb;
			p = id + s;
			/* DuckDB keeps the integer digits and drops
			 * fraction digits beyond 38. */
			if (p > CORE_DECIMAL128_MAX_PRECISION) {
				p = CORE_DECIMAL128_MAX_PRECISION;
				s = p - id;
			}
			*out = core_type_decimal(p, s);
		}
		return 0;
	}
	if ((x == CORE_TYPE_DATE && y == CORE_TYPE_TIMESTAMP) ||
	    (y == CORE_TYPE_DATE && x == CORE_TYPE_TIMESTAMP)) {
		*out = mktype(CORE_TYPE_TIMESTAMP, 0, 0);
		return 0;
	}
	/* A string constant reads as the other side's type. */
	if (x == CORE_TYPE_STRING && a->kind == CORE_BN_CONST) {
		*out = b->type;
		return 0;
	}
	if (y == CORE_TYPE_STRING && b->kind == CORE_BN_CONST) {
		*out = a->type;
		return 0;
	}
	snprintf(msg, sizeof(msg), "cannot mix %s and %s", tname(a->type, b1),
	    tname(b->type, b2));
	return err_at(bd, b->off, b->len, msg);
}

/* ---- nodes ---- */

static int bind_logic(struct binder *bd, struct core_expr *e,
    struct core_bnode **out);
static int bind(struct binder *bd, struct core_expr *e,
    struct core_bnode **out);

/* Binds every child of e into n, in order. */
static int
bind_kids(struct binder *bd, struct core_expr *e, struct core_bnode *n,
    uint32_t from)
{
	struct core_bnode *k;
	uint32_t i;
	int rc;

	for (i = from; i < e->nkids; i++) {
		if ((rc = bind(bd, e->kids[i], &k)) != 0)
			return rc;
		add_kid(n, k);
	}
	return 0;
}

static int
need_bool(struct binder *bd, struct core_bnode **np, const char *what)
{
	char msg[160], b[CORE_TYPE_NAME_MAX];

	if ((*np)->type.id == CORE_TYPE_BOOL)
		return 0;
	if (is_null_const(*np)) {
		set_type(*np, mktype(CORE_TYPE_BOOL, 0, 0));
		return 0;
	}
	snprintf(msg, sizeof(msg), "%s needs a bool, not %s", what,
	    tname((*np)->type, b));
	return err_at(bd, (*np)->off, (*np)->len, msg);
}

static int
bind_column(struct binder *bd, struct core_expr *e, struct core_bnode **out)
{
	const struct core_schema *s = bd->schema;
	char msg[CORE_ERR_MSG_MAX / 2];
	int i, found = -1, nfound = 0;
	struct core_bnode *c;

	if (s != NULL)
		found = core_schema_find(s, e->text);
	if (found < 0 && s != NULL) {
		/* A unique case-insensitive match, as DuckDB resolves. */
		for (i = 0; i < (int)s->ncols; i++)
			if (strcasecmp(s->fields[i].name, e->text) == 0) {
				found = i;
				nfound++;
			}
		if (nfound > 1)
			found = -1;
	}
	if (found < 0) {
		snprintf(msg, sizeof(msg), "unknown column '%s'", e->text);
		core_suggest_column(s, e->text, msg, sizeof(msg));
		return err_at(bd, e->off, e->len, msg);
	}
	c = bnode_new(CORE_BN_COLUMN, e);
	c->col = found;
	set_type(c, s->fields[found].type);
	*out = c;
	return 0;
}

/*
 * Integer literal lit under an odd (neg) or even number of unary minus
 * signs, typed as DuckDB 1.5 types it.  Its parser keeps digits up to
 * 2147483647 as an INTEGER, negated or not, and reads a longer literal
 * as text, the minus signs folded in, which its binder makes the first
 * of BIGINT, HUGEINT and UHUGEINT that holds the value, else a DOUBLE:
 * -2147483648 and -9223372036854775808 are BIGINTs,
 * 9223372036854775808 and -9223372036854775809 HUGEINTs, a literal
 * past 2^128 - 1 (or below -2^127) a DOUBLE, inf past DBL_MAX.  colpipe
 * holds a HUGEINT as decimal(38,0), which has room for every HUGEINT
 * literal but those of 39 digits; those and a UHUGEINT are out of range
 * here.  e is the node the constant stands for (lit, or the outermost
 * minus), whose span an error points at.
 */
static int
bind_int(struct binder *bd, const struct core_expr *lit, bool neg,
    const struct core_expr *e, struct core_bnode **out)
{
	const core_u128 u128_max = ~(core_u128)0;
	core_u128 mag = 0;
	bool fits = true;
	struct core_bnode *c;
	char msg[160];
	size_t i;

	for (i = 0; i < lit->text_len && fits; i++) {
		unsigned dg = (unsigned)(lit->text[i] - '0');

		fits = mag <= (u128_max - dg) / 10;
		mag = mag * 10 + dg;
	}
	c = bnode_new(CORE_BN_CONST, e);
	c->k.ilit = true;
	*out = c;
	if (fits && mag <= INT32_MAX) {
		c->k.i = neg ? -(int64_t)mag : (int64_t)mag;
		set_type(c, mktype(CORE_TYPE_INT32, 0, 0));
	} else if (fits && mag <= (core_u128)INT64_MAX + neg) {
		c->k.i = neg ? -(int64_t)(mag - 1) - 1 : (int64_t)mag;
		set_type(c, mktype(CORE_TYPE_INT64, 0, 0));
	} else if (fits && mag < (core_u128)pow10w(
	    CORE_DECIMAL128_MAX_PRECISION)) {
		c->k.w = neg ? -(core_i128)mag : (core_i128)mag;
		set_type(c, core_type_decimal(CORE_DECIMAL128_MAX_PRECISION,
		    0));
	} else if (fits && (!neg || mag <= (core_u128)1 << 127)) {
		/* 39 digits, once leading zeros are gone. */
		for (i = 0; lit->text[i] == '0'; i++)
			;
		snprintf(msg, sizeof(msg), "integer out of range '%s%s'",
		    neg ? "-" : "", lit->text + i);
		return err_at(bd, e->off, e->len, msg);
	} else {
		/* The lexer let only digits through: a failure is a value
		 * past DBL_MAX, which DuckDB reads as inf. */
		if (core_parse_float64(lit->text, lit->text_len, &c->k.f) != 0)
			c->k.f = INFINITY;
		if (neg)
			c->k.f = -c->k.f;
		set_type(c, mktype(CORE_TYPE_FLOAT64, 0, 0));
	}
	return 0;
}

static int
bind_literal(struct binder *bd, struct core_expr *e, struct core_bnode **out)
{
	struct core_bnode *c = bnode_new(CORE_BN_CONST, e);
	unsigned p = 0, s = 0;
	const char *dot;
	size_t i;

	*out = c;
	switch (e->lit) {
	case CORE_LIT_NULL:
		c->k.null = true;
		set_type(c, mktype(TYPE_ANY, 0, 0));
		return 0;
	case CORE_LIT_BOOL:
		c->k.b = e->value.b;
		c->k.i = e->value.b;
		set_type(c, mktype(CORE_TYPE_BOOL, 0, 0));
		return 0;
	case CORE_LIT_INT:
		bnode_free(c);
		return bind_int(bd, e, false, e, out);
	case CORE_LIT_DECIMAL:
		dot = memchr(e->text, '.', e->text_len);
		for (i = 0; i < e->text_len; i++) {
			if (!isdigit((unsigned char)e->text[i]))
				continue;
			/* DuckDB counts every digit written: 0.5 is
			 * decimal(2,1), .5 decimal(1,1). */
			if (dot != NULL && e->text + i > dot)
				s++;
			p++;
		}
		if (p == 0)
			p = 1;
		if (p > CORE_DECIMAL128_MAX_PRECISION) {
			/* DuckDB's double for longer literals. */
			if (core_parse_float64(e->text, e->text_len,
			    &c->k.f) != 0)
				return err_at(bd, e->off, e->len,
				    "bad decimal");
			set_type(c, mktype(CORE_TYPE_FLOAT64, 0, 0));
			return 0;
		}
		set_type(c, core_type_decimal(p, s));
		if (c->phys == CORE_PHYS_I128 ? core_parse_decimal128(e->text,
		    e->text_len, (uint8_t)p, (uint8_t)s, &c->k.w) != 0 :
		    core_parse_decimal(e->text, e->text_len, (uint8_t)p,
		    (uint8_t)s, &c->k.i) != 0)
			return err_at(bd, e->off, e->len, "bad decimal");
		return 0;
	case CORE_LIT_FLOAT:
		c->k.f = e->value.f;
		set_type(c, mktype(CORE_TYPE_FLOAT64, 0, 0));
		return 0;
	case CORE_LIT_STRING:
		c->k.s = core_xstrndup(e->text, e->text_len);
		c->k.slen = (uint32_t)e->text_len;
		set_type(c, mktype(CORE_TYPE_STRING, 0, 0));
		return 0;
	case CORE_LIT_DATE:
		c->k.i = e->value.i;
		set_type(c, mktype(CORE_TYPE_DATE, 0, 0));
		return 0;
	case CORE_LIT_TIMESTAMP:
		c->k.i = e->value.i;
		set_type(c, mktype(CORE_TYPE_TIMESTAMP, 0, 0));
		return 0;
	case CORE_LIT_INTERVAL:
		break;
	}
	return err_at(bd, e->off, e->len, "an interval goes only after + or "
	    "- next to a date or timestamp");
}

static bool
is_interval(const struct core_expr *e)
{
	return e->kind == CORE_EXPR_LITERAL && e->lit == CORE_LIT_INTERVAL;
}

/* date/timestamp +/- INTERVAL; x is bound, iv the interval literal. */
static int
bind_date_add(struct binder *bd, struct core_expr *e, struct core_bnode *x,
    const struct core_expr *iv, bool minus, struct core_bnode **out)
{
	char msg[160], b[CORE_TYPE_NAME_MAX];
	struct core_bnode *n;
	int64_t q = iv->value.i;

	if (x->type.id != CORE_TYPE_DATE &&
	    x->type.id != CORE_TYPE_TIMESTAMP && !is_null_const(x)) {
		uint32_t off = x->off, len = x->len;

		snprintf(msg, sizeof(msg), "an interval is added to a date or "
		    "timestamp, not %s", tname(x->type, b));
		bnode_free(x);
		return err_at(bd, off, len, msg);
	}
	if (iv->unit == CORE_UNIT_YEAR)
		q *= 12;
	if (q > 1000000 || q < -1000000) {
		bnode_free(x);
		return err_at(bd, iv->off, iv->len, "interval out of range");
	}
	if (minus)
		q = -q;
	n = bnode_new(CORE_BN_DATE_ADD, e);
	if (iv->unit == CORE_UNIT_DAY)
		n->days = (int32_t)q;
	else
		n->months = (int32_t)q;
	if (is_null_const(x))
		set_type(x, mktype(CORE_TYPE_DATE, 0, 0));
	add_kid(n, x);
	set_type(n, mktype(CORE_TYPE_TIMESTAMP, 0, 0));
	*out = n;
	return fold(bd, out);
}

static int
bind_arith(struct binder *bd, struct core_expr *e, struct core_bnode **out)
{
	char msg[200], b1[CORE_TYPE_NAME_MAX], b2[CORE_TYPE_NAME_MAX];
	struct core_bnode *n, *a, *b;
	enum core_type x, y;
	unsigned pa, sa, pb, sb, p, s, wide;
	bool add = e->op == CORE_OP_ADD, sub = e->op == CORE_OP_SUB;
	int rc;

	if ((add || sub) && is_interval(e->kids[1])) {
		if ((rc = bind(bd, e->kids[0], &a)) != 0)
			return rc;
		return bind_date_add(bd, e, a, e->kids[1], sub, out);
	}
	if (add && is_interval(e->kids[0])) {
		if ((rc = bind(bd, e->kids[1], &a)) != 0)
			return rc;
		return bind_date_add(bd, e, a, e->kids[0], false, out);
	}
	n = bnode_new(CORE_BN_ARITH, e);
	n->op = e->op;
	*out = n;
	if ((rc = bind_kids(bd, e, n, 0)) != 0)
		return rc;
	a = n->kids[0];
	b = n->kids[1];
	if (is_null_const(a) && is_null_const(b))
		set_type(a, mktype(CORE_TYPE_INT32, 0, 0));
	if (is_null_const(a))
		set_type(a, b->type);
	if (is_null_const(b))
		set_type(b, a->type);
	x = a->type.id;
	y = b->type.id;

	/* Dates: date +/- integer days, date - date. */
	if (x == CORE_TYPE_DATE && is_int(y) && (add || sub)) {
		set_type(n, a->type);
		type_range(n->type, &n->lo, &n->hi);
		return fold(bd, out);
	}
	if (y == CORE_TYPE_DATE && is_int(x) && add) {
		set_type(n, b->type);
		type_range(n->type, &n->lo, &n->hi);
		return fold(bd, out);
	}
	if (x == CORE_TYPE_DATE && y == CORE_TYPE_DATE && sub) {
		set_type(n, mktype(CORE_TYPE_INT64, 0, 0));
		return fold(bd, out);
	}
	if (!is_num(x) || !is_num(y)) {
		const struct core_bnode *bad = is_num(x) ? b : a;

		snprintf(msg, sizeof(msg), "cannot apply '%.*s' to %s and %s",
		    (int)e->op_len, bd->src + e->op_off, tname(a->type, b1),
		    tname(b->type, b2));
		return err_at(bd, bad->off, bad->len, msg);
	}
	if (e->op == CORE_OP_DIV || x == CORE_TYPE_FLOAT64 ||
	    y == CORE_TYPE_FLOAT64) {
		set_type(n, mktype(CORE_TYPE_FLOAT64, 0, 0));
		if ((rc = cast_to(bd, &n->kids[0], n->type)) != 0 ||
		    (rc = cast_to(bd, &n->kids[1], n->type)) != 0)
			return rc;
		return fold(bd, out);
	}
	if (is_int(x) && is_int(y)) {
		set_type(n, mktype(int_pair(a, b), 0, 0));
		/* An int64 literal beside an int32 is one (int_pair): a
		 * constant cast, folded. */
		if (n->type.id == CORE_TYPE_INT32 &&
		    ((rc = cast_to(bd, &n->kids[0], n->type)) != 0 ||
		    (rc = cast_to(bd, &n->kids[1], n->type)) != 0))
			return rc;
		type_range(n->type, &n->lo, &n->hi);
		return fold(bd, out);
	}
	dec_view(a, &pa, &sa);
	dec_view(b, &pb, &sb);
	wide = pa > pb ? pa : pb;
	if (e->op == CORE_OP_MUL) {
		/* DuckDB: p1 + p2 digits, at most 38; a product of
		 * operands of at most 18 digits each, at a scale below
		 * 18, stays at 18 digits (checked for overflow) rather
		 * than going to 128 bits. */
		p = pa + pb;
		s = sa + sb;
		if (s > CORE_DECIMAL128_MAX_PRECISION)
			return too_wide(bd, e, s);
		if (p > CORE_DECIMAL128_MAX_PRECISION)
			p = CORE_DECIMAL128_MAX_PRECISION;
		if (p > CORE_DECIMAL_MAX_PRECISION &&
		    wide <= CORE_DECIMAL_MAX_PRECISION &&
		    s < CORE_DECIMAL_MAX_PRECISION)
			p = CORE_DECIMAL_MAX_PRECISION;
	} else {
		/* Both sides go to the larger scale.  DuckDB gives the
		 * remainder the larger side's integer digits (d % 2 on a
		 * decimal(9,2) is decimal(12,2)) and the sum one more; it
		 * keeps a sum of operands of at most 18 digits at 18,
		 * caps one at 38, and computes a remainder of more than
		 * 38 digits in double. */
		s = sa > sb ? sa : sb;
		p = (pa - sa > pb - sb ? pa - sa : pb - sb) + s;
		if (e->op != CORE_OP_MOD) {
			p++;
			if (p > CORE_DECIMAL_MAX_PRECISION &&
			    wide <= CORE_DECIMAL_MAX_PRECISION)
				p = CORE_DECIMAL_MAX_PRECISION;
			if (p > CORE_DECIMAL128_MAX_PRECISION)
				p = CORE_DECIMAL128_MAX_PRECISION;
		} else if (p > CORE_DECIMAL128_MAX_PRECISION) {
			set_type(n, mktype(CORE_TYPE_FLOAT64, 0, 0));
			if ((rc = cast_to(bd, &n->kids[0], n->type)) != 0 ||
			    (rc = cast_to(bd, &n->kids[1], n->type)) != 0)
				return rc;
			return fold(bd, out);
		}
	}
	set_type(n, core_type_decimal(p, s));
	if (n->phys == CORE_PHYS_I128) {
		if ((rc = widen(bd, &n->kids[0])) != 0 ||
		    (rc = widen(bd, &n->kids[1])) != 0)
			return rc;
		if (e->op != CORE_OP_MUL) {
			n->wfa = pow10w(s - sa);
			n->wfb = pow10w(s - sb);
		}
		return fold(bd, out);
	}
	if (e->op != CORE_OP_MUL) {
		n->fa = pow10i(s - sa);
		n->fb = pow10i(s - sb);
	}
	type_range(n->type, &n->lo, &n->hi);
	return fold(bd, out);
}

/* Types a comparison of two bound operands (children of n). */
static int
type_cmp(struct binder *bd, struct core_bnode *n)
{
	char msg[160], b1[CORE_TYPE_NAME_MAX], b2[CORE_TYPE_NAME_MAX];
	struct core_bnode *a = n->kids[0], *b = n->kids[1];
	enum core_type x, y;
	struct core_coltype t;
	unsigned s;
	int rc;

	set_type(n, mktype(CORE_TYPE_BOOL, 0, 0));
	if (is_null_const(a) && is_null_const(b))
		set_type(a, mktype(CORE_TYPE_BOOL, 0, 0));
	if (is_null_const(a))
		set_type(a, b->type);
	if (is_null_const(b))
		set_type(b, a->type);
	x = a->type.id;
	y = b->type.id;
	if (is_num(x) && is_num(y)) {
		if (x == CORE_TYPE_FLOAT64 || y == CORE_TYPE_FLOAT64) {
			t = mktype(CORE_TYPE_FLOAT64, 0, 0);
			if ((rc = cast_to(bd, &n->kids[0], t)) != 0 ||
			    (rc = cast_to(bd, &n->kids[1], t)) != 0)
				return rc;
			return 0;
		}
		/* Exact: both sides at the larger scale, in 128 bits. */
		s = a->type.scale > b->type.scale ? a->type.scale :
		    b->type.scale;
		if (a->phys == CORE_PHYS_I128 || b->phys == CORE_PHYS_I128) {
			/* Scaling may pass 128 bits: see eval_cmp.  (a and
			 * b are gone once widened.) */
			n->wfa = pow10w(s - a->type.scale);
			n->wfb = pow10w(s - b->type.scale);
			if ((rc = widen(bd, &n->kids[0])) != 0 ||
			    (rc = widen(bd, &n->kids[1])) != 0)
				return rc;
			return 0;
		}
		n->fa = pow10i(s - a->type.scale);
		n->fb = pow10i(s - b->type.scale);
		return 0;
	}
	if (x == y)
		return 0;
	if ((x == CORE_TYPE_DATE && y == CORE_TYPE_TIMESTAMP) ||
	    (x == CORE_TYPE_TIMESTAMP && y == CORE_TYPE_DATE)) {
		t = mktype(CORE_TYPE_TIMESTAMP, 0, 0);
		if ((rc = cast_to(bd, &n->kids[0], t)) != 0 ||
		    (rc = cast_to(bd, &n->kids[1], t)) != 0)
			return rc;
		return 0;
	}
	if (x == CORE_TYPE_STRING && a->kind == CORE_BN_CONST &&
	    can_cast(a->type, b->type))
		return (rc = cast_to(bd, &n->kids[0], b->type)) != 0 ? rc :
		    type_cmp(bd, n);
	if (y == CORE_TYPE_STRING && b->kind == CORE_BN_CONST &&
	    can_cast(b->type, a->type))
		return (rc = cast_to(bd, &n->kids[1], a->type)) != 0 ? rc :
		    type_cmp(bd, n);
	snprintf(msg, sizeof(msg), "cannot compare %s with %s",
	    tname(a->type, b1), tname(b->type, b2));
	return err_at(bd, b->off, b->len, msg);
}

static struct core_bnode *
cmp_node(enum core_expr_op op, struct core_bnode *a, struct core_bnode *b,
    const struct core_expr *e)
{
	struct core_bnode *n = bnode_new(CORE_BN_CMP, e);

	n->op = op;
	add_kid(n, a);
	add_kid(n, b);
	return n;
}

static struct core_bnode *
logic_node(enum core_bnode_kind kind, struct core_bnode *a,
    struct core_bnode *b, const struct core_expr *e)
{
	struct core_bnode *n = bnode_new(kind, e);

	add_kid(n, a);
	if (b != NULL)
		add_kid(n, b);
	set_type(n, mktype(CORE_TYPE_BOOL, 0, 0));
	return n;
}

/* *out = (x op y) for ASTs x and y, each bound afresh. */
static int
bind_cmp_of(struct binder *bd, enum core_expr_op op, struct core_expr *x,
    struct core_expr *y, const struct core_expr *e, struct core_bnode **out)
{
	struct core_bnode *a, *b;
	int rc;

	*out = NULL;
	if ((rc = bind(bd, x, &a)) != 0)
		return rc;
	if ((rc = bind(bd, y, &b)) != 0) {
		bnode_free(a);
		return rc;
	}
	*out = cmp_node(op, a, b, e);
	if ((rc = type_cmp(bd, *out)) != 0)
		return rc;
	return fold(bd, out);
}

static int
bind_between(struct binder *bd, struct core_expr *e, struct core_bnode **out)
{
	struct core_bnode *lo = NULL, *hi = NULL;
	int rc;

	*out = NULL;
	if ((rc = bind_cmp_of(bd, e->negated ? CORE_OP_LT : CORE_OP_GE,
	    e->kids[0], e->kids[1], e, &lo)) != 0 ||
	    (rc = bind_cmp_of(bd, e->negated ? CORE_OP_GT : CORE_OP_LE,
	    e->kids[0], e->kids[2], e, &hi)) != 0) {
		bnode_free(lo);
		bnode_free(hi);
		return rc;
	}
	*out = logic_node(e->negated ? CORE_BN_OR : CORE_BN_AND, lo, hi, e);
	return fold(bd, out);
}

static int
cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static int
cmp_f64(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	/* NaN sorts last and equals itself, so that NaN IN (NaN) holds
	 * as DuckDB's NaN = NaN does. */
	if (x != x || y != y)
		return (x != x) - (y != y);
	return (x > y) - (x < y);
}

static int
cmp_bstr(const void *a, const void *b)
{
	const struct core_bstr *x = a, *y = b;
	uint32_t n = x->n < y->n ? x->n : y->n;
	int c = n ? memcmp(x->p, y->p, n) : 0;

	if (c != 0)
		return c;
	return (x->n > y->n) - (x->n < y->n);
}

static int
cmp_w(const void *a, const void *b)
{
	core_i128 x = *(const core_i128 *)a, y = *(const core_i128 *)b;

	return (x > y) - (x < y);
}

/* An item constant of the probe x's I64 or I128 type, exactly, or false
 * when no probe value can equal it (more fraction digits than the probe
 * has, or beyond its class). */
static bool
item_exact(const struct core_bnode *k, const struct core_bnode *x,
    core_i128 *v)
{
	unsigned ks = scale_of(k->type), ps = scale_of(x->type);
	core_i128 w = k->phys == CORE_PHYS_I128 ? k->k.w : k->k.i, f;

	if (ks <= ps) {
		if (__builtin_mul_overflow(w, pow10w(ps - ks), v))
			return false;
	} else {
		f = pow10w(ks - ps);
		if (w % f != 0)
			return false;
		*v = w / f;
	}
	return x->phys == CORE_PHYS_I128 || (*v >= INT64_MIN &&
	    *v <= INT64_MAX);
}

/* Builds the sorted set of IN's constant items (n->kids[1..]) for the
 * probe n->kids[0], then drops the items. */
static int
build_set(struct binder *bd, struct core_bnode *n)
{
	char msg[160], b1[CORE_TYPE_NAME_MAX], b2[CORE_TYPE_NAME_MAX];
	struct core_inset *set = &n->set;
	struct core_bnode *x = n->kids[0], *k;
	uint32_t i, m = 0, j;
	core_i128 v;
	bool flt = x->type.id == CORE_TYPE_FLOAT64;
	size_t bytes = 0;
	int rc;

	if (is_null_const(x))
		set_type(x, n->kids[1]->type.id == TYPE_ANY ?
		    mktype(CORE_TYPE_BOOL, 0, 0) : n->kids[1]->type);
	for (i = 1; i < n->nkids; i++) {
		k = n->kids[i];
		if (k->k.null)
			continue;
		if (is_num(x->type.id) && k->type.id == CORE_TYPE_FLOAT64)
			flt = true;
	}
	if (flt && (rc = cast_to(bd, &n->kids[0],
	    mktype(CORE_TYPE_FLOAT64, 0, 0))) != 0)
		return rc;
	x = n->kids[0];
	/* Items of another type than the probe take its type; a date
	 * probe among timestamps becomes a timestamp. */
	for (i = 1; i < n->nkids; i++) {
		k = n->kids[i];
		if (k->k.null || core_type_equal(k->type, x->type))
			continue;
		if (x->type.id == CORE_TYPE_DATE &&
		    k->type.id == CORE_TYPE_TIMESTAMP) {
			if ((rc = cast_to(bd, &n->kids[0], k->type)) != 0)
				return rc;
			return build_set(bd, n);
		}
		if (is_num(x->type.id) && is_num(k->type.id) && !flt)
			continue;	/* exact conversion below */
		if (k->type.id == CORE_TYPE_STRING ||
		    (flt && is_num(k->type.id)) ||
		    (x->type.id == CORE_TYPE_TIMESTAMP &&
		    k->type.id == CORE_TYPE_DATE)) {
			if ((rc = cast_to(bd, &n->kids[i], x->type)) != 0)
				return rc;
			continue;
		}
		snprintf(msg, sizeof(msg), "cannot compare %s with %s",
		    tname(x->type, b1), tname(k->type, b2));
		return err_at(bd, k->off, k->len, msg);
	}
	for (i = 1; i < n->nkids; i++)
		if (n->kids[i]->type.id == CORE_TYPE_STRING)
			bytes += n->kids[i]->k.slen;
	set->i = core_xmalloc(n->nkids * sizeof(*set->i));
	set->w = core_xmalloc(n->nkids * sizeof(*set->w));
	set->f = core_xmalloc(n->nkids * sizeof(*set->f));
	set->s = core_xmalloc(n->nkids * sizeof(*set->s));
	set->sbytes = core_xmalloc(bytes + 1);
	bytes = 0;
	for (i = 1; i < n->nkids; i++) {
		k = n->kids[i];
		if (k->k.null) {
			set->has_null = true;
			continue;
		}
		switch (x->phys) {
		case CORE_PHYS_F64:
			set->f[m++] = k->k.f;
			break;
		case CORE_PHYS_STR:
			memcpy(set->sbytes + bytes, k->k.s, k->k.slen);
			set->s[m].p = set->sbytes + bytes;
			set->s[m++].n = k->k.slen;
			bytes += k->k.slen;
			break;
		case CORE_PHYS_BOOL:
			set->i[m++] = k->k.b;
			break;
		case CORE_PHYS_I128:
			if (item_exact(k, x, &v))
				set->w[m++] = v;
			break;
		default:
			if (item_exact(k, x, &v))
				set->i[m++] = (int64_t)v;
			break;
		}
	}
	switch (x->phys) {
	case CORE_PHYS_F64:
		qsort(set->f, m, sizeof(*set->f), cmp_f64);
		for (i = j = 0; i < m; i++)
			if (j == 0 || cmp_f64(&set->f[j - 1], &set->f[i]))
				set->f[j++] = set->f[i];
		break;
	case CORE_PHYS_STR:
		qsort(set->s, m, sizeof(*set->s), cmp_bstr);
		for (i = j = 0; i < m; i++)
			if (j == 0 || cmp_bstr(&set->s[j - 1], &set->s[i]))
				set->s[j++] = set->s[i];
		break;
	case CORE_PHYS_I128:
		qsort(set->w, m, sizeof(*set->w), cmp_w);
		for (i = j = 0; i < m; i++)
			if (j == 0 || set->w[j - 1] != set->w[i])
				set->w[j++] = set->w[i];
		break;
	default:
		qsort(set->i, m, sizeof(*set->i), cmp_i64);
		for (i = j = 0; i < m; i++)
			if (j == 0 || set->i[j - 1] != set->i[i])
				set->i[j++] = set->i[i];
		break;
	}
	set->n = m ? j : 0;
	for (i = 1; i < n->nkids; i++)
		bnode_free(n->kids[i]);
	n->nkids = 1;
	return 0;
}

static int
bind_in(struct binder *bd, struct core_expr *e, struct core_bnode **out)
{
	struct core_bnode *n, *c, *acc = NULL;
	uint32_t i;
	int rc;

	n = bnode_new(CORE_BN_IN, e);
	n->negated = e->negated;
	set_type(n, mktype(CORE_TYPE_BOOL, 0, 0));
	*out = n;
	if ((rc = bind_kids(bd, e, n, 0)) != 0)
		return rc;
	for (i = 1; i < n->nkids; i++)
		if (n->kids[i]->kind != CORE_BN_CONST)
			break;
	if (n->kids[0]->type.id == CORE_TYPE_BOOL ||
	    n->kids[0]->type.id == TYPE_ANY || i < n->nkids ||
	    n->kids[0]->kind == CORE_BN_CONST) {
		/* Not a constant list over a value: as SQL defines it, an
		 * OR of equalities. */
		bnode_free(n);
		*out = NULL;
		for (i = 1; i < e->nkids; i++) {
			if ((rc = bind_cmp_of(bd, CORE_OP_EQ, e->kids[0],
			    e->kids[i], e, &c)) != 0) {
				bnode_free(c);
				bnode_free(acc);
				return rc;
			}
			acc = acc == NULL ? c :
			    logic_node(CORE_BN_OR, acc, c, e);
		}
		if (e->negated)
			acc = logic_node(CORE_BN_NOT, acc, NULL, e);
		*out = acc;
		return fold(bd, out);
	}
	return build_set(bd, n);
}

/* Compiles the constant pattern of LIKE into n->like. */
static void
compile_like(struct core_bnode *n, const char *p, uint32_t len, bool fold_)
{
	struct core_like *lk = &n->like;
	uint32_t i, npct = 0, first = len, last = len;
	bool under = false;

	lk->fold = fold_;
	for (i = 0; i < len; i++) {
		if (p[i] == '%') {
			if (npct++ == 0)
				first = i;
			last = i;
		} else if (p[i] == '_') {
			under = true;
		}
	}
	lk->kind = CORE_LIKE_GENERAL;
	if (!fold_ && !under) {
		if (npct == 0)
			lk->kind = CORE_LIKE_EXACT;
		else if (npct == len)
			lk->kind = CORE_LIKE_ALL;
		else if (npct == 1 && first == len - 1)
			lk->kind = CORE_LIKE_PREFIX;
		else if (npct == 1 && first == 0)
			lk->kind = CORE_LIKE_SUFFIX;
		else if (npct == 2 && first == 0 && last == len - 1)
			lk->kind = CORE_LIKE_CONTAINS;
	}
	switch (lk->kind) {
	case CORE_LIKE_PREFIX:
		lk->len = len - 1;
		lk->pat = core_xstrndup(p, lk->len);
		break;
	case CORE_LIKE_SUFFIX:
		lk->len = len - 1;
		lk->pat = core_xstrndup(p + 1, lk->len);
		break;
	case CORE_LIKE_CONTAINS:
		lk->len = len - 2;
		lk->pat = core_xstrndup(p + 1, lk->len);
		break;
	default:
		lk->len = len;
		lk->pat = core_xstrndup(p, len);
		if (fold_)
			for (i = 0; i < len; i++)
				lk->pat[i] = (char)tolower(
				    (unsigned char)lk->pat[i]);
		break;
	}
}

static int
bind_like(struct binder *bd, struct core_expr *e, struct core_bnode **out)
{
	char msg[160], b[CORE_TYPE_NAME_MAX];
	struct core_bnode *n, *x, *pat;
	int rc;

	n = bnode_new(CORE_BN_LIKE, e);
	n->negated = e->negated;
	set_type(n, mktype(CORE_TYPE_BOOL, 0, 0));
	*out = n;
	if ((rc = bind_kids(bd, e, n, 0)) != 0)
		return rc;
	x = n->kids[0];
	pat = n->kids[1];
	if (is_null_const(x))
		set_type(x, mktype(CORE_TYPE_STRING, 0, 0));
	if (x->type.id != CORE_TYPE_STRING) {
		snprintf(msg, sizeof(msg), "LIKE needs a string, not %s",
		    tname(x->type, b));
		return err_at(bd, x->off, x->len, msg);
	}
	if (pat->kind != CORE_BN_CONST)
		return err_at(bd, pat->off, pat->len,
		    "a LIKE pattern must be a constant for now");
	if (is_null_const(pat)) {
		/* x LIKE NULL is NULL. */
		bnode_free(n);
		*out = bnode_new(CORE_BN_CONST, e);
		(*out)->k.null = true;
		set_type(*out, mktype(CORE_TYPE_BOOL, 0, 0));
		return 0;
	}
	if (pat->type.id != CORE_TYPE_STRING) {
		snprintf(msg, sizeof(msg), "a LIKE pattern is a string, not "
		    "%s", tname(pat->type, b));
		return err_at(bd, pat->off, pat->len, msg);
	}
	compile_like(n, pat->k.s, pat->k.slen, e->op == CORE_OP_ILIKE);
	bnode_free(pat);
	n->nkids = 1;
	return fold(bd, out);
}

/* bind_case's kids: bd->final is cleared past the first WHEN (the caller
 * restores it). */
static int
bind_case_kids(struct binder *bd, struct core_expr *e, struct core_bnode *n,
    uint32_t first, uint32_t nwhen)
{
	const struct core_bnode *acc;
	struct core_bnode *k, sofar;
	struct core_coltype t;
	uint32_t i;
	int rc;

	for (i = 0; i < nwhen; i++) {
		struct core_expr *w = e->kids[first + 2 * i];

		if (e->has_operand)
			rc = bind_cmp_of(bd, CORE_OP_EQ, e->kids[0], w, w, &k);
		else
			rc = bind(bd, w, &k);
		if (rc != 0) {
			bnode_free(k);
			return rc;
		}
		add_kid(n, k);
		if ((rc = need_bool(bd, &n->kids[n->nkids - 1], "WHEN")) != 0)
			return rc;
		bd->final = false;
		if ((rc = bind(bd, e->kids[first + 2 * i + 1], &k)) != 0)
			return rc;
		add_kid(n, k);
	}
	bd->final = false;
	if (e->has_else) {
		if ((rc = bind(bd, e->kids[e->nkids - 1], &k)) != 0)
			return rc;
	} else {
		k = bnode_new(CORE_BN_CONST, e);
		k->k.null = true;
		set_type(k, mktype(TYPE_ANY, 0, 0));
	}
	add_kid(n, k);
	/* DuckDB's order: the ELSE value (NULL without one), then each
	 * THEN; the first as itself, an integer literal counting as one
	 * (int_pair), then the type so far. */
	acc = n->kids[n->nkids - 1];
	t = acc->type;
	memset(&sofar, 0, sizeof(sofar));
	sofar.kind = CORE_BN_CAST;
	for (i = 1; i < n->nkids; i += 2) {
		if ((rc = common_type(bd, acc, n->kids[i], &t)) != 0)
			return rc;
		sofar.type = t;
		acc = &sofar;
	}
	if (t.id == TYPE_ANY)
		t = mktype(CORE_TYPE_BOOL, 0, 0);
	for (i = 1; i < n->nkids; i += 2)
		if ((rc = cast_to(bd, &n->kids[i], t)) != 0)
			return rc;
	if ((rc = cast_to(bd, &n->kids[n->nkids - 1], t)) != 0)
		return rc;
	set_type(n, t);
	return 0;
}

/*
 * CASE.  Only the first WHEN is evaluated on every row; each THEN, each
 * later WHEN and the ELSE only on the rows that reach it (eval_case), as
 * DuckDB evaluates them.  So a constant among those whose value is an
 * error (THEN log10(-1)) is no error at bind time: it is left unfolded
 * and raises its error, naming the row, only if a row reaches it.
 */
static int
bind_case(struct binder *bd, struct core_expr *e, struct core_bnode **out)
{
	struct core_bnode *n;
	uint32_t first = e->has_operand ? 1 : 0;
	uint32_t nwhen = (e->nkids - first - e->has_else) / 2;
	bool was = bd->final;
	int rc;

	n = bnode_new(CORE_BN_CASE, e);
	*out = n;
	rc = bind_case_kids(bd, e, n, first, nwhen);
	bd->final = was;
	if (rc != 0)
		return rc;
	return fold(bd, out);
}

static int
bind_cast(struct binder *bd, struct core_expr *e, struct core_bnode **out)
{
	char msg[160], b1[CORE_TYPE_NAME_MAX], b2[CORE_TYPE_NAME_MAX];
	struct core_bnode *n, *x;
	int rc;

	if ((rc = bind(bd, e->kids[0], &x)) != 0)
		return rc;
	if (!can_cast(x->type, e->cast_type)) {
		snprintf(msg, sizeof(msg), "cannot cast %s to %s",
		    tname(x->type, b1), tname(e->cast_type, b2));
		bnode_free(x);
		return err_at(bd, e->off, e->len, msg);
	}
	if (is_null_const(x)) {
		set_type(x, e->cast_type);
		x->off = e->off;
		x->len = e->len;
		*out = x;
		return 0;
	}
	/* A cast to the type the value has is the value. */
	if (core_type_equal(x->type, e->cast_type)) {
		*out = x;
		return 0;
	}
	n = bnode_new(CORE_BN_CAST, e);
	set_type(n, e->cast_type);
	add_kid(n, x);
	*out = n;
	return fold(bd, out);
}

static const struct {
	const char *name;
	enum core_bfunc fn;
	uint32_t min, max;	/* arguments */
	enum core_dpart part;	/* DATE_PART of one argument */
} funcs[] = {
	{ "abs", CORE_BF_ABS, 1, 1, 0 },
	{ "lower", CORE_BF_LOWER, 1, 1, 0 },
	{ "lcase", CORE_BF_LOWER, 1, 1, 0 },
	{ "upper", CORE_BF_UPPER, 1, 1, 0 },
	{ "ucase", CORE_BF_UPPER, 1, 1, 0 },
	{ "length", CORE_BF_LENGTH, 1, 1, 0 },
	{ "len", CORE_BF_LENGTH, 1, 1, 0 },
	{ "coalesce", CORE_BF_COALESCE, 1, 1000, 0 },
	{ "concat", CORE_BF_CONCAT, 1, 1000, 0 },
	{ "nullif", CORE_BF_NULLIF, 2, 2, 0 },
	{ "greatest", CORE_BF_GREATEST, 1, 1000, 0 },
	{ "least", CORE_BF_LEAST, 1, 1000, 0 },
	{ "starts_with", CORE_BF_STARTS_WITH, 2, 2, 0 },
	{ "prefix", CORE_BF_STARTS_WITH, 2, 2, 0 },
	{ "contains", CORE_BF_CONTAINS, 2, 2, 0 },
	{ "ends_with", CORE_BF_ENDS_WITH, 2, 2, 0 },
	{ "suffix", CORE_BF_ENDS_WITH, 2, 2, 0 },
	{ "trim", CORE_BF_TRIM, 1, 1, 0 },
	{ "ltrim", CORE_BF_LTRIM, 1, 1, 0 },
	{ "rtrim", CORE_BF_RTRIM, 1, 1, 0 },
	{ "floor", CORE_BF_FLOOR, 1, 1, 0 },
	{ "ceil", CORE_BF_CEIL, 1, 1, 0 },
	{ "ceiling", CORE_BF_CEIL, 1, 1, 0 },
	{ "round", CORE_BF_ROUND, 1, 2, 0 },
	{ "substring", CORE_BF_SUBSTR, 2, 3, 0 },
	{ "substr", CORE_BF_SUBSTR, 2, 3, 0 },
	{ "left", CORE_BF_LEFT, 2, 2, 0 },
	{ "right", CORE_BF_RIGHT, 2, 2, 0 },
	{ "strpos", CORE_BF_STRPOS, 2, 2, 0 },
	{ "instr", CORE_BF_STRPOS, 2, 2, 0 },
	{ "position", CORE_BF_STRPOS, 2, 2, 0 },
	{ "replace", CORE_BF_REPLACE, 3, 3, 0 },
	{ "sign", CORE_BF_SIGN, 1, 1, 0 },
	{ "sqrt", CORE_BF_SQRT, 1, 1, 0 },
	{ "ln", CORE_BF_LN, 1, 1, 0 },
	{ "log10", CORE_BF_LOG10, 1, 1, 0 },
	{ "exp", CORE_BF_EXP, 1, 1, 0 },
	{ "power", CORE_BF_POWER, 2, 2, 0 },
	{ "pow", CORE_BF_POWER, 2, 2, 0 },
	{ "date_part", CORE_BF_DATE_PART, 2, 2, 0 },
	{ "datepart", CORE_BF_DATE_PART, 2, 2, 0 },
	{ "date_trunc", CORE_BF_DATE_TRUNC, 2, 2, 0 },
	{ "datetrunc", CORE_BF_DATE_TRUNC, 2, 2, 0 },
	{ "date_diff", CORE_BF_DATE_DIFF, 3, 3, 0 },
	{ "datediff", CORE_BF_DATE_DIFF, 3, 3, 0 },
	{ "date_add", CORE_BF_DATE_PART, 2, 2, 0 },	/* see bind_func */
	{ "year", CORE_BF_DATE_PART, 1, 1, CORE_DP_YEAR },
	{ "quarter", CORE_BF_DATE_PART, 1, 1, CORE_DP_QUARTER },
	{ "month", CORE_BF_DATE_PART, 1, 1, CORE_DP_MONTH },
	{ "week", CORE_BF_DATE_PART, 1, 1, CORE_DP_WEEK },
	{ "weekofyear", CORE_BF_DATE_PART, 1, 1, CORE_DP_WEEK },
	{ "day", CORE_BF_DATE_PART, 1, 1, CORE_DP_DAY },
	{ "dayofmonth", CORE_BF_DATE_PART, 1, 1, CORE_DP_DAY },
	{ "hour", CORE_BF_DATE_PART, 1, 1, CORE_DP_HOUR },
	{ "minute", CORE_BF_DATE_PART, 1, 1, CORE_DP_MINUTE },
	{ "second", CORE_BF_DATE_PART, 1, 1, CORE_DP_SECOND },
	{ "millisecond", CORE_BF_DATE_PART, 1, 1, CORE_DP_MILLISECOND },
	{ "microsecond", CORE_BF_DATE_PART, 1, 1, CORE_DP_MICROSECOND },
	{ "dayofweek", CORE_BF_DATE_PART, 1, 1, CORE_DP_DOW },
	{ "isodow", CORE_BF_DATE_PART, 1, 1, CORE_DP_ISODOW },
	{ "dayofyear", CORE_BF_DATE_PART, 1, 1, CORE_DP_DOY },
	{ "isoyear", CORE_BF_DATE_PART, 1, 1, CORE_DP_ISOYEAR },
	{ "epoch", CORE_BF_DATE_PART, 1, 1, CORE_DP_EPOCH },
};

/* DuckDB's names of date parts, as date_part, extract, date_trunc and
 * date_diff take them (case insensitive). */
static const struct {
	const char *name;
	enum core_dpart part;
} dparts[] = {
	{ "year", CORE_DP_YEAR }, { "years", CORE_DP_YEAR },
	{ "y", CORE_DP_YEAR }, { "yr", CORE_DP_YEAR },
	{ "yrs", CORE_DP_YEAR },
	{ "quarter", CORE_DP_QUARTER }, { "quarters", CORE_DP_QUARTER },
	{ "month", CORE_DP_MONTH }, { "months", CORE_DP_MONTH },
	{ "mon", CORE_DP_MONTH }, { "mons", CORE_DP_MONTH },
	{ "week", CORE_DP_WEEK }, { "weeks", CORE_DP_WEEK },
	{ "w", CORE_DP_WEEK }, { "weekofyear", CORE_DP_WEEK },
	{ "day", CORE_DP_DAY }, { "days", CORE_DP_DAY },
	{ "d", CORE_DP_DAY }, { "dayofmonth", CORE_DP_DAY },
	{ "hour", CORE_DP_HOUR }, { "hours", CORE_DP_HOUR },
	{ "h", CORE_DP_HOUR }, { "hr", CORE_DP_HOUR },
	{ "hrs", CORE_DP_HOUR },
	{ "minute", CORE_DP_MINUTE }, { "minutes", CORE_DP_MINUTE },
	{ "m", CORE_DP_MINUTE }, { "min", CORE_DP_MINUTE },
	{ "mins", CORE_DP_MINUTE },
	{ "second", CORE_DP_SECOND }, { "seconds", CORE_DP_SECOND },
	{ "s", CORE_DP_SECOND }, { "sec", CORE_DP_SECOND },
	{ "secs", CORE_DP_SECOND },
	{ "millisecond", CORE_DP_MILLISECOND },
	{ "milliseconds", CORE_DP_MILLISECOND },
	{ "ms", CORE_DP_MILLISECOND }, { "msec", CORE_DP_MILLISECOND },
	{ "msecs", CORE_DP_MILLISECOND },
	{ "microsecond", CORE_DP_MICROSECOND },
	{ "microseconds", CORE_DP_MICROSECOND },
	{ "us", CORE_DP_MICROSECOND }, { "usec", CORE_DP_MICROSECOND },
	{ "usecs", CORE_DP_MICROSECOND },
	{ "dow", CORE_DP_DOW }, { "dayofweek", CORE_DP_DOW },
	{ "weekday", CORE_DP_DOW },
	{ "isodow", CORE_DP_ISODOW },
	{ "doy", CORE_DP_DOY }, { "dayofyear", CORE_DP_DOY },
	{ "isoyear", CORE_DP_ISOYEAR },
	{ "epoch", CORE_DP_EPOCH },
};

static enum core_dpart
find_dpart(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(dparts) / sizeof(dparts[0]); i++)
		if (strlen(dparts[i].name) == len &&
		    strncasecmp(dparts[i].name, s, len) == 0)
			return dparts[i].part;
	return 0;
}

/*
 * The part of date_trunc or date_diff as the field it works on, as
 * DuckDB maps them: a day-of-something is the day, epoch the second.
 */
static enum core_dpart
step_part(enum core_dpart p)
{
	switch (p) {
	case CORE_DP_DOW:
	case CORE_DP_ISODOW:
	case CORE_DP_DOY:
		return CORE_DP_DAY;
	case CORE_DP_EPOCH:
		return CORE_DP_SECOND;
	default:
		return p;
	}
}

/* Takes n->kids[0], which must be a constant string naming a date part,
 * into n->part and drops it; a NULL part makes *null true. */
static int
take_part(struct binder *bd, struct core_bnode *n, const char *name,
    bool *null)
{
	char msg[200];
	struct core_bnode *k = n->kids[0];
	uint32_t i;

	*null = false;
	if (is_null_const(k)) {
		*null = true;
	} else if (k->kind != CORE_BN_CONST ||
	    k->type.id != CORE_TYPE_STRING) {
		snprintf(msg, sizeof(msg), "%s takes the part as a constant "
		    "string ('year', 'month', 'day', ...)", name);
		return err_at(bd, k->off, k->len, msg);
	} else if ((n->part = find_dpart(k->k.s, k->k.slen)) == 0) {
		snprintf(msg, sizeof(msg), "unknown date part '%.40s'",
		    k->k.s);
		return err_at(bd, k->off, k->len, msg);
	}
	bnode_free(k);
	for (i = 1; i < n->nkids; i++)
		n->kids[i - 1] = n->kids[i];
	n->nkids--;
	return 0;
}

/* Whether kids[i] is a date or a timestamp (a NULL becomes a date). */
static bool
is_datelike(struct core_bnode *k)
{
	if (is_null_const(k))
		set_type(k, mktype(CORE_TYPE_DATE, 0, 0));
	return k->type.id == CORE_TYPE_DATE ||
	    k->type.id == CORE_TYPE_TIMESTAMP;
}

/* round, floor, ceil (n->fn; n->days digits of round) over a decimal or
 * an integer a: an exact DEC_ROUND node, or a copy (n->fn kept) where
 * the rounding changes nothing.  DuckDB's types: a decimal(p,s) rounds
 * to decimal(p,0), or to decimal(p,d) for round(x, d) with 0 <= d < s;
 * an integer keeps its type. */
static void
type_dec_round(struct core_bnode *n, struct core_coltype t)
{
	int s = (int)scale_of(t);
	int d = n->fn == CORE_BF_ROUND ? n->days : 0, k, up = 0;

	set_type(n, t);
	if (d >= s)
		return;		/* identity */
	n->part = n->fn == CORE_BF_FLOOR ? CORE_RM_FLOOR :
	    n->fn == CORE_BF_CEIL ? CORE_RM_CEIL : CORE_RM_HALF_AWAY;
	n->fn = CORE_BF_DEC_ROUND;
	k = s - d;		/* digits dropped */
	if (d < 0)
		up = -d;	/* zeros put back */
	if (core_type_is_decimal(t.id))
		set_type(n, core_type_decimal(t.precision,
		    d > 0 ? (unsigned)d : 0));
	if (n->phys == CORE_PHYS_I128) {
		n->wfa = k > 38 ? 0 : pow10w((unsigned)k);
		n->wfb = up > 38 ? 0 : pow10w((unsigned)up);
		return;
	}
	/* fa 0: more digits dropped than a value has, every result 0. */
	n->fa = k > 18 ? 0 : pow10i((unsigned)k);
	n->fb = up > 18 ? 0 : pow10i((unsigned)up);
	type_range(n->type, &n->lo, &n->hi);
}

/* Types the FUNC node n (fn, kids bound). */
static int
type_func(struct binder *bd, struct core_bnode *n, const char *name)
{
	char msg[160], b[CORE_TYPE_NAME_MAX];
	struct core_bnode *a = n->kids[0], sofar;
	const struct core_bnode *acc;
	struct core_coltype t;
	uint32_t i;
	int rc;

	switch (n->fn) {
	case CORE_BF_ABS:
		if (is_null_const(a))
			set_type(a, mktype(CORE_TYPE_INT32, 0, 0));
		if (!is_num(a->type.id))
			goto bad;
		set_type(n, a->type);
		type_range(n->type, &n->lo, &n->hi);
		return 0;
	case CORE_BF_LOWER:
	case CORE_BF_UPPER:
	case CORE_BF_TRIM:
	case CORE_BF_LTRIM:
	case CORE_BF_RTRIM:
	case CORE_BF_LENGTH:
		if (is_null_const(a))
			set_type(a, mktype(CORE_TYPE_STRING, 0, 0));
		if (a->type.id != CORE_TYPE_STRING)
			goto bad;
		set_type(n, n->fn == CORE_BF_LENGTH ?
		    mktype(CORE_TYPE_INT64, 0, 0) :
		    mktype(CORE_TYPE_STRING, 0, 0));
		for (i = 1; i < n->nkids; i++) {
			a = n->kids[i];
			if (is_null_const(a))
				set_type(a, mktype(CORE_TYPE_INT64, 0, 0));
			if (!is_int(a->type.id))
				goto bad;
			if ((rc = cast_to(bd, &n->kids[i],
			    mktype(CORE_TYPE_INT64, 0, 0))) != 0)
				return rc;
		}
		return 0;
	case CORE_BF_DATE_PART:
	case CORE_BF_DATE_TRUNC:
		if (!is_datelike(a))
			goto bad;
		set_type(n, n->fn == CORE_BF_DATE_TRUNC ?
		    mktype(CORE_TYPE_TIMESTAMP, 0, 0) :
		    n->part == CORE_DP_EPOCH ?
		    mktype(CORE_TYPE_FLOAT64, 0, 0) :
		    mktype(CORE_TYPE_INT64, 0, 0));
		if (n->fn == CORE_BF_DATE_TRUNC)
			n->part = step_part(n->part);
		return 0;
	case CORE_BF_DATE_DIFF:
		for (i = 0; i < 2; i++)
			if (!is_datelike(a = n->kids[i]))
				goto bad;
		n->part = step_part(n->part);
		if (n->kids[0]->type.id != n->kids[1]->type.id) {
			t = mktype(CORE_TYPE_TIMESTAMP, 0, 0);
			if ((rc = cast_to(bd, &n->kids[0], t)) != 0 ||
			    (rc = cast_to(bd, &n->kids[1], t)) != 0)
				return rc;
		}
		set_type(n, mktype(CORE_TYPE_INT64, 0, 0));
		return 0;
	case CORE_BF_SUBSTR:
	case CORE_BF_LEFT:
	case CORE_BF_RIGHT:
		if (is_null_const(a))
			set_type(a, mktype(CORE_TYPE_STRING, 0, 0));
		if (a->type.id != CORE_TYPE_STRING)
			goto bad;
		for (i = 1; i < n->nkids; i++) {
			a = n->kids[i];
			if (is_null_const(a))
				set_type(a, mktype(CORE_TYPE_INT64, 0, 0));
			if (!is_int(a->type.id))
				goto bad;
			if ((rc = cast_to(bd, &n->kids[i],
			    mktype(CORE_TYPE_INT64, 0, 0))) != 0)
				return rc;
		}
		set_type(n, mktype(CORE_TYPE_STRING, 0, 0));
		return 0;
	case CORE_BF_STRPOS:
	case CORE_BF_REPLACE:
		for (i = 0; i < n->nkids; i++) {
			a = n->kids[i];
			if (is_null_const(a))
				set_type(a, mktype(CORE_TYPE_STRING, 0, 0));
			if (a->type.id != CORE_TYPE_STRING)
				goto bad;
		}
		set_type(n, n->fn == CORE_BF_STRPOS ?
		    mktype(CORE_TYPE_INT64, 0, 0) :
		    mktype(CORE_TYPE_STRING, 0, 0));
		return 0;
	case CORE_BF_SIGN:
		/* DuckDB's tinyint, which core_col does not have. */
		if (is_null_const(a))
			set_type(a, mktype(CORE_TYPE_INT32, 0, 0));
		if (!is_num(a->type.id))
			goto bad;
		set_type(n, mktype(CORE_TYPE_INT32, 0, 0));
		return 0;
	case CORE_BF_SQRT:
	case CORE_BF_LN:
	case CORE_BF_LOG10:
	case CORE_BF_EXP:
	case CORE_BF_POWER:
		for (i = 0; i < n->nkids; i++) {
			a = n->kids[i];
			if (is_null_const(a))
				set_type(a, mktype(CORE_TYPE_FLOAT64, 0, 0));
			if (!is_num(a->type.id))
				goto bad;
			if ((rc = cast_to(bd, &n->kids[i],
			    mktype(CORE_TYPE_FLOAT64, 0, 0))) != 0)
				return rc;
		}
		set_type(n, mktype(CORE_TYPE_FLOAT64, 0, 0));
		return 0;
	case CORE_BF_CONCAT:
		for (i = 0; i < n->nkids; i++)
			if ((rc = cast_to(bd, &n->kids[i],
			    mktype(CORE_TYPE_STRING, 0, 0))) != 0)
				return rc;
		set_type(n, mktype(CORE_TYPE_STRING, 0, 0));
		return 0;
	case CORE_BF_NULLIF:
		set_type(n, a->type.id == TYPE_ANY ?
		    mktype(CORE_TYPE_BOOL, 0, 0) : a->type);
		if (is_null_const(a))
			set_type(a, n->type);
		return 0;
	case CORE_BF_STARTS_WITH:
	case CORE_BF_CONTAINS:
	case CORE_BF_ENDS_WITH:
		for (i = 0; i < 2; i++) {
			a = n->kids[i];
			if (is_null_const(a))
				set_type(a, mktype(CORE_TYPE_STRING, 0, 0));
			if (a->type.id != CORE_TYPE_STRING)
				goto bad;
		}
		set_type(n, mktype(CORE_TYPE_BOOL, 0, 0));
		return 0;
	case CORE_BF_FLOOR:
	case CORE_BF_CEIL:
	case CORE_BF_ROUND:
		if (is_null_const(a))
			set_type(a, mktype(CORE_TYPE_FLOAT64, 0, 0));
		if (!is_num(a->type.id))
			goto bad;
		if (n->nkids == 2) {
			struct core_bnode *d = n->kids[1];

			if (d->kind != CORE_BN_CONST ||
			    (!d->k.null && !is_int(d->type.id)))
				return err_at(bd, d->off, d->len, "round takes "
				    "a constant integer of digits");
			n->days = d->k.null ? 0 : d->k.i < -30 ? -30 :
			    d->k.i > 30 ? 30 : (int32_t)d->k.i;
			if (d->k.null)
				n->negated = true;	/* all NULL */
			bnode_free(d);
			n->nkids = 1;
		}
		if (is_int(a->type.id) && n->fn != CORE_BF_ROUND) {
			/* DuckDB's floor and ceil of an integer are
			 * doubles. */
			if ((rc = cast_to(bd, &n->kids[0],
			    mktype(CORE_TYPE_FLOAT64, 0, 0))) != 0)
				return rc;
			a = n->kids[0];
		}
		if (a->type.id != CORE_TYPE_FLOAT64) {
			/* Exact on decimals and integers; where nothing
			 * is dropped the node stays, typed as its
			 * argument, and evaluates as a copy. */
			type_dec_round(n, a->type);
			return 0;
		}
		set_type(n, mktype(CORE_TYPE_FLOAT64, 0, 0));
		return 0;
	case CORE_BF_GREATEST:
	case CORE_BF_LEAST:
	case CORE_BF_COALESCE:
		/* As in bind_case. */
		acc = a;
		t = a->type;
		memset(&sofar, 0, sizeof(sofar));
		sofar.kind = CORE_BN_CAST;
		for (i = 1; i < n->nkids; i++) {
			if ((rc = common_type(bd, acc, n->kids[i], &t)) != 0)
				return rc;
			sofar.type = t;
			acc = &sofar;
		}
		if (t.id == TYPE_ANY)
			t = mktype(CORE_TYPE_BOOL, 0, 0);
		for (i = 0; i < n->nkids; i++)
			if ((rc = cast_to(bd, &n->kids[i], t)) != 0)
				return rc;
		set_type(n, t);
		return 0;
	case CORE_BF_DEC_ROUND:
		break;
	}
	return err_at(bd, n->off, n->len, "unknown function");
bad:
	snprintf(msg, sizeof(msg), "%s does not take %s", name,
	    tname(a->type, b));
	return err_at(bd, a->off, a->len, msg);
}

static int
bind_func(struct binder *bd, struct core_expr *e, struct core_bnode **out)
{
	char msg[200];
	struct core_bnode *n, *k;
	size_t i;
	int rc;

	for (i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++)
		if (strcasecmp(funcs[i].name, e->text) == 0)
			break;
	if (i == sizeof(funcs) / sizeof(funcs[0])) {
		snprintf(msg, sizeof(msg), "unknown function %s()", e->text);
		return err_at(bd, e->op_len ? e->op_off : e->off,
		    e->op_len ? e->op_len : e->len, msg);
	}
	if (e->star || e->distinct || e->nkids < funcs[i].min ||
	    e->nkids > funcs[i].max) {
		if (funcs[i].min == funcs[i].max)
			snprintf(msg, sizeof(msg), "%s() takes %u argument%s",
			    funcs[i].name, funcs[i].min,
			    funcs[i].min == 1 ? "" : "s");
		else
			snprintf(msg, sizeof(msg), "%s() takes %u to %u "
			    "arguments", funcs[i].name, funcs[i].min,
			    funcs[i].max);
		return err_at(bd, e->off, e->len, msg);
	}
	if (strcasecmp(funcs[i].name, "date_add") == 0) {
		struct core_bnode *x;

		if (!is_interval(e->kids[1]))
			return err_at(bd, e->kids[1]->off, e->kids[1]->len,
			    "date_add takes an INTERVAL");
		if ((rc = bind(bd, e->kids[0], &x)) != 0)
			return rc;
		return bind_date_add(bd, e, x, e->kids[1], false, out);
	}
	n = bnode_new(CORE_BN_FUNC, e);
	n->fn = funcs[i].fn;
	n->part = funcs[i].part;
	/* concat() skips NULLs, where || is NULL. */
	n->negated = n->fn == CORE_BF_CONCAT;
	*out = n;
	if (n->fn == CORE_BF_NULLIF) {
		struct core_bnode *a, *eq;

		if ((rc = bind(bd, e->kids[0], &a)) != 0)
			return rc;
		add_kid(n, a);
		if ((rc = bind_cmp_of(bd, CORE_OP_EQ, e->kids[0], e->kids[1],
		    e, &eq)) != 0) {
			bnode_free(eq);
			return rc;
		}
		add_kid(n, eq);
	} else if (n->fn == CORE_BF_COALESCE) {
		/* Past the first, an argument is evaluated only on the rows
		 * still NULL (eval_coalesce): an error of a constant there
		 * is raised only if a row reaches it, as in bind_case. */
		bool was = bd->final;

		if ((rc = bind(bd, e->kids[0], &k)) != 0)
			return rc;
		add_kid(n, k);
		bd->final = false;
		if ((rc = bind_kids(bd, e, n, 1)) == 0)
			rc = type_func(bd, n, funcs[i].name);
		bd->final = was;
		if (rc != 0)
			return rc;
		return fold(bd, out);
	} else if ((rc = bind_kids(bd, e, n, 0)) != 0) {
		return rc;
	}
	if (n->part == 0 && (n->fn == CORE_BF_DATE_PART ||
	    n->fn == CORE_BF_DATE_TRUNC || n->fn == CORE_BF_DATE_DIFF)) {
		bool null;

		if ((rc = take_part(bd, n, funcs[i].name, &null)) != 0)
			return rc;
		if (null) {
			/* A NULL part: NULL, of the type a part gives. */
			n->part = CORE_DP_DAY;
			if ((rc = type_func(bd, n, funcs[i].name)) != 0)
				return rc;
			k = bnode_new(CORE_BN_CONST, e);
			k->k.null = true;
			set_type(k, n->type);
			bnode_free(n);
			*out = k;
			return 0;
		}
	}
	if ((rc = type_func(bd, n, funcs[i].name)) != 0)
		return rc;
	return fold(bd, out);
}

static int
bind_extract(struct binder *bd, struct core_expr *e, struct core_bnode **out)
{
	struct core_bnode *n;
	enum core_dpart part;
	int rc;

	if ((part = find_dpart(e->text, e->text_len)) == 0)
		return err_at(bd, e->op_off, e->op_len, "extract takes year, "
		    "quarter, month, week, day, hour, minute, second, "
		    "millisecond, microsecond, dow, isodow, doy, isoyear or "
		    "epoch");
	n = bnode_new(CORE_BN_FUNC, e);
	n->fn = CORE_BF_DATE_PART;
	n->part = part;
	*out = n;
	if ((rc = bind_kids(bd, e, n, 0)) != 0 ||
	    (rc = type_func(bd, n, e->text)) != 0)
		return rc;
	return fold(bd, out);
}

static int
bind_unary(struct binder *bd, struct core_expr *e, struct core_bnode **out)
{
	char msg[160], b[CORE_TYPE_NAME_MAX];
	struct core_bnode *n, *x;
	struct core_expr *k = e->kids[0];
	bool neg = true;
	int rc;

	/* Minus signs straight above an integer literal are part of it, as
	 * in DuckDB: -9223372036854775808 is a literal, not an overflow,
	 * and - -9223372036854775808 one too. */
	while (e->op == CORE_OP_NEG && k->kind == CORE_EXPR_UNARY &&
	    k->op == CORE_OP_NEG) {
		k = k->kids[0];
		neg = !neg;
	}
	if (e->op == CORE_OP_NEG && k->kind == CORE_EXPR_LITERAL &&
	    k->lit == CORE_LIT_INT)
		return bind_int(bd, k, neg, e, out);
	k = e->kids[0];
	if ((rc = bind(bd, k, &x)) != 0)
		return rc;
	if (e->op == CORE_OP_NOT) {
		n = logic_node(CORE_BN_NOT, x, NULL, e);
		*out = n;
		if ((rc = need_bool(bd, &n->kids[0], "NOT")) != 0)
			return rc;
		return fold(bd, out);
	}
	if (is_null_const(x))
		set_type(x, mktype(CORE_TYPE_INT32, 0, 0));
	if (!is_num(x->type.id)) {
		snprintf(msg, sizeof(msg), "cannot apply '%c' to %s",
		    e->op == CORE_OP_NEG ? '-' : '+', tname(x->type, b));
		bnode_free(x);
		return err_at(bd, k->off, k->len, msg);
	}
	if (e->op == CORE_OP_POS) {
		*out = x;
		return 0;
	}
	n = bnode_new(CORE_BN_NEG, e);
	add_kid(n, x);
	set_type(n, x->type);
	type_range(n->type, &n->lo, &n->hi);
	*out = n;
	return fold(bd, out);
}

static int
bind(struct binder *bd, struct core_expr *e, struct core_bnode **out)
{
	struct core_bnode *n = NULL;
	int rc;

	*out = NULL;
	switch (e->kind) {
	case CORE_EXPR_COLUMN:
		rc = bind_column(bd, e, out);
		break;
	case CORE_EXPR_LITERAL:
		rc = bind_literal(bd, e, out);
		break;
	case CORE_EXPR_UNARY:
		rc = bind_unary(bd, e, out);
		break;
	case CORE_EXPR_BINARY:
		switch (e->op) {
		case CORE_OP_AND:
		case CORE_OP_OR:
			rc = bind_logic(bd, e, out);
			break;
		case CORE_OP_EQ: case CORE_OP_NE: case CORE_OP_LT:
		case CORE_OP_LE: case CORE_OP_GT: case CORE_OP_GE:
			n = bnode_new(CORE_BN_CMP, e);
			n->op = e->op;
			*out = n;
			if ((rc = bind_kids(bd, e, n, 0)) != 0 ||
			    (rc = type_cmp(bd, n)) != 0)
				break;
			rc = fold(bd, out);
			break;
		case CORE_OP_CONCAT:
			n = bnode_new(CORE_BN_FUNC, e);
			n->fn = CORE_BF_CONCAT;
			*out = n;
			if ((rc = bind_kids(bd, e, n, 0)) != 0 ||
			    (rc = type_func(bd, n, "||")) != 0)
				break;
			rc = fold(bd, out);
			break;
		default:
			rc = bind_arith(bd, e, out);
			break;
		}
		break;
	case CORE_EXPR_IS_NULL:
		n = bnode_new(CORE_BN_IS_NULL, e);
		n->negated = e->negated;
		set_type(n, mktype(CORE_TYPE_BOOL, 0, 0));
		*out = n;
		if ((rc = bind_kids(bd, e, n, 0)) == 0)
			rc = fold(bd, out);
		break;
	case CORE_EXPR_BETWEEN:
		rc = bind_between(bd, e, out);
		break;
	case CORE_EXPR_IN:
		rc = bind_in(bd, e, out);
		break;
	case CORE_EXPR_LIKE:
		rc = bind_like(bd, e, out);
		break;
	case CORE_EXPR_CASE:
		rc = bind_case(bd, e, out);
		break;
	case CORE_EXPR_CAST:
		rc = bind_cast(bd, e, out);
		break;
	case CORE_EXPR_FUNC:
		rc = bind_func(bd, e, out);
		break;
	case CORE_EXPR_EXTRACT:
		rc = bind_extract(bd, e, out);
		break;
	default:
		rc = err_at(bd, e->off, e->len, "unsupported expression");
		break;
	}
	if (rc != 0) {
		bnode_free(*out);
		*out = NULL;
		return rc;
	}
	e->type = (*out)->type;
	return 0;
}

/*
 * AND, OR.  A constant side that decides (FALSE AND x, TRUE OR x) drops
 * the other unevaluated, as DuckDB's rewrites do, so a value error of a
 * constant in the dropped side (FALSE AND sqrt(-1) > x) is no error.
 * The sides are bound with such errors held back; a side that stays
 * and held one back is bound again with them raised, so what it binds
 * to is exactly what it always was (nested ANDs and ORs leave this to
 * the outermost).
 */
static int
bind_logic(struct binder *bd, struct core_expr *e, struct core_bnode **out)
{
	const char *what = e->op == CORE_OP_AND ? "AND" : "OR";
	bool absorb = e->op == CORE_OP_OR, was = bd->final, keep[2];
	struct core_bnode *n, *k;
	uint32_t failed[2], i, before;
	int rc = 0;

	n = bnode_new(e->op == CORE_OP_AND ? CORE_BN_AND : CORE_BN_OR, e);
	set_type(n, mktype(CORE_TYPE_BOOL, 0, 0));
	*out = n;
	bd->final = false;
	for (i = 0; i < 2 && rc == 0; i++) {
		before = bd->nfailed;
		if ((rc = bind(bd, e->kids[i], &k)) == 0)
			add_kid(n, k);
		failed[i] = bd->nfailed - before;
	}
	bd->final = was;
	if (rc != 0 || (rc = need_bool(bd, &n->kids[0], what)) != 0 ||
	    (rc = need_bool(bd, &n->kids[1], what)) != 0)
		return rc;
	keep[0] = keep[1] = true;
	for (i = 0; i < 2; i++) {
		k = n->kids[i];
		if (k->kind == CORE_BN_CONST && !k->k.null) {
			keep[(k->k.b != 0) == absorb ? 1 - i : i] = false;
			break;
		}
	}
	for (i = 0; i < 2 && was; i++) {
		if (!keep[i] || failed[i] == 0)
			continue;
		bnode_free(n->kids[i]);
		n->kids[i] = NULL;
		if ((rc = bind(bd, e->kids[i], &n->kids[i])) != 0)
			return rc;
	}
	return fold_logic(bd, out);
}

int
core_expr_bind(struct core_expr *e, const char *src, size_t len,
    const struct core_schema *schema, struct core_expr_bound **out,
    struct core_err *err)
{
	struct binder bd = { src, len, schema, err, true, 0 };
	struct core_bnode *root;
	struct core_expr_bound *b;
	int rc;

	*out = NULL;
	if ((rc = bind(&bd, e, &root)) != 0)
		return rc;
	if (root->type.id == TYPE_ANY) {
		set_type(root, mktype(CORE_TYPE_BOOL, 0, 0));
		e->type = root->type;
	}
	b = core_xcalloc(1, sizeof(*b));
	b->root = root;
	b->src = core_xstrndup(src, len);
	b->src_len = len;
	*out = b;
	return 0;
}

struct core_coltype
core_expr_bound_type(const struct core_expr_bound *b)
{
	return b->root->type;
}

bool
core_expr_bound_is_const(const struct core_expr_bound *b)
{
	return b->root->kind == CORE_BN_CONST;
}

/* ---- common subexpressions ---- */

/* Whether a computes what b does, for the kinds core_expr_share takes
 * (every field those kinds' evaluation reads); a REF is its target. */
static bool
same_tree(const struct core_bnode *a, const struct core_bnode *b)
{
	uint32_t i;

	while (a->kind == CORE_BN_REF)
		a = a->ref;
	while (b->kind == CORE_BN_REF)
		b = b->ref;
	if (a == b)
		return true;
	switch (a->kind) {
	case CORE_BN_COLUMN:
	case CORE_BN_NEG:
	case CORE_BN_ARITH:
	case CORE_BN_CAST:
		break;
	case CORE_BN_CONST:
		if (a->type.id == CORE_TYPE_STRING)
			return false;
		break;
	default:
		return false;
	}
	if (a->kind != b->kind || a->op != b->op ||
	    a->negated != b->negated || a->type.id != b->type.id ||
	    a->type.precision != b->type.precision ||
	    a->type.scale != b->type.scale || a->phys != b->phys ||
	    a->nkids != b->nkids || a->col != b->col ||
	    a->k.null != b->k.null || a->k.ilit != b->k.ilit ||
	    a->k.b != b->k.b || a->k.i != b->k.i || a->k.w != b->k.w ||
	    memcmp(&a->k.f, &b->k.f, sizeof(a->k.f)) != 0 ||
	    a->fa != b->fa || a->fb != b->fb || a->lo != b->lo ||
	    a->hi != b->hi || a->wfa != b->wfa || a->wfb != b->wfb ||
	    a->wlo != b->wlo || a->whi != b->whi)
		return false;
	for (i = 0; i < a->nkids; i++)
		if (!same_tree(a->kids[i], b->kids[i]))
			return false;
	return true;
}

/* Replaces the parts of *np that compute what one of roots[0..n) does
 * with REF nodes; the count replaced. */
static uint32_t
share_in(struct core_bnode **np, struct core_bnode *const *roots,
    uint32_t n)
{
	struct core_bnode *nd = *np, *r;
	uint32_t i, k = 0;

	if (nd->kind == CORE_BN_COLUMN || nd->kind == CORE_BN_CONST ||
	    nd->kind == CORE_BN_REF)
		return 0;
	for (i = 0; i < n; i++) {
		if (roots[i] == NULL || !same_tree(nd, roots[i]))
			continue;
		r = core_xcalloc(1, sizeof(*r));
		r->kind = CORE_BN_REF;
		r->type = nd->type;
		r->phys = nd->phys;
		r->off = nd->off;
		r->len = nd->len;
		r->ref = roots[i];
		bnode_free(nd);
		*np = r;
		return 1;
	}
	for (i = 0; i < nd->nkids; i++)
		k += share_in(&nd->kids[i], roots, n);
	return k;
}

uint32_t
core_expr_share(struct core_expr_bound *const *x, uint32_t n)
{
	struct core_bnode **roots;
	uint32_t j, k = 0;

	if (n < 2)
		return 0;
	roots = core_xcalloc(n, sizeof(*roots));
	for (j = 0; j < n; j++) {
		if (x[j] == NULL)
			continue;
		k += share_in(&x[j]->root, roots, j);
		/* A whole tree made a REF is no root to share: its
		 * target is one already. */
		if (x[j]->root->kind != CORE_BN_REF &&
		    x[j]->root->kind != CORE_BN_COLUMN &&
		    x[j]->root->kind != CORE_BN_CONST)
			roots[j] = x[j]->root;
	}
	free(roots);
	return k;
}

void
core_expr_bound_free(struct core_expr_bound *b)
{
	if (b == NULL)
		return;
	bnode_free(b->root);
	free(b->src);
	core_free_aligned(b->ident);
	free(b);
}
