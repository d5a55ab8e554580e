/*
 * test_expr_eval.c - the binder and the vectorized evaluator against a
 * row-at-a-time reference.
 *
 * The reference walks the parsed tree one row at a time with a scalar
 * value type, in 128-bit integers and doubles, taking only the result
 * type of each node from the binder (which test_binder_types checks on
 * its own).  It shares no code with the evaluator: its dates go through
 * gmtime_r/timegm, its LIKE is a recursive matcher, its casts round by
 * hand.  Every expression below is run over random batches (NULLs in
 * every column, short strings over a small alphabet so that LIKE and IN
 * hit, some batches with values large enough to overflow) at 0, 1, 2,
 * 3, 17, 4095, 4096, 4097 rows under random selection vectors, and
 * compared value for value, NULLs included; bool expressions also as
 * filters, against the rows whose reference value is TRUE.  An error
 * must be an error on both sides.  Bind errors are checked for their
 * message and caret.
 */

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core_alloc.h"
#include "core_col.h"
#include "core_expr.h"
#include "core_expr_bind.h"
#include "core_expr_eval.h"
#include "core_expr_parse.h"
#include "core_value.h"
#include "unit.h"

/* ---- the schema and random batches ---- */

enum { C_I, C_J, C_L, C_D, C_E, C_F, C_S, C_T, C_DT, C_TS, C_B, NCOLS };

static struct core_schema *
make_schema(void)
{
	static const struct {
		const char *name;
		enum core_type id;
		unsigned p, s;
	} cols[NCOLS] = {
		{ "i", CORE_TYPE_INT32, 0, 0 },
		{ "j", CORE_TYPE_INT32, 0, 0 },
		{ "l", CORE_TYPE_INT64, 0, 0 },
		{ "d", CORE_TYPE_DECIMAL, 9, 2 },
		{ "e", CORE_TYPE_DECIMAL, 12, 4 },
		{ "f", CORE_TYPE_FLOAT64, 0, 0 },
		{ "s", CORE_TYPE_STRING, 0, 0 },
		{ "Name", CORE_TYPE_STRING, 0, 0 },
		{ "dt", CORE_TYPE_DATE, 0, 0 },
		{ "ts", CORE_TYPE_TIMESTAMP, 0, 0 },
		{ "b", CORE_TYPE_BOOL, 0, 0 },
	};
	struct core_schema *s = core_schema_new(NCOLS);
	struct core_coltype t;
	int i;

	for (i = 0; i < NCOLS; i++) {
		memset(&t, 0, sizeof(t));
		t.id = cols[i].id;
		t.precision = (uint8_t)cols[i].p;
		t.scale = (uint8_t)cols[i].s;
		core_schema_set(s, (uint32_t)i, cols[i].name, t);
	}
	return s;
}

static int64_t
rnd_range(int64_t lo, int64_t hi)
{
	uint64_t span = (uint64_t)hi - (uint64_t)lo + 1;

	return (int64_t)((uint64_t)lo + (span ? unit_rand() % span :
	    unit_rand()));
}

static void
fill_batch(struct core_batch *b, uint32_t n, bool big)
{
	static const char *alpha[] = { "a", "b", "A", "%", "_", "ab",
	    "\xc3\xa9", "x", "B", "z", "Z", "@", "[", " ", " " };
	uint32_t r, c, k, len;
	size_t used;

	core_batch_reset(b);
	core_batch_reserve(b, n, (size_t)n * 16 + 16);
	for (c = 0; c < NCOLS; c++) {
		struct core_column *col = &b->cols[c];
		bool nulls = unit_rand() % 4 != 0;

		used = 0;
		for (r = 0; r < n; r++) {
			bool isnull = nulls && unit_rand() % 7 == 0;
			int64_t v;

			switch (col->type.id) {
			case CORE_TYPE_INT32:
				v = big && unit_rand() % 50 == 0 ?
				    rnd_range(INT32_MIN, INT32_MAX) :
				    rnd_range(-20, 20);
				((int32_t *)col->values)[r] = isnull ? 0 :
				    (int32_t)v;
				break;
			case CORE_TYPE_INT64:
				v = big && unit_rand() % 50 == 0 ?
				    rnd_range(-(1ll << 62), 1ll << 62) :
				    rnd_range(-30000, 30000);
				((int64_t *)col->values)[r] = isnull ? 0 : v;
				break;
			case CORE_TYPE_DECIMAL:
				v = big && unit_rand() % 50 == 0 ?
				    rnd_range(-(int64_t)core_pow10_u64[
				    col->type.precision] + 1,
				    (int64_t)core_pow10_u64[
				    col->type.precision] - 1) :
				    rnd_range(-3000, 3000);
				((int64_t *)col->values)[r] = isnull ? 0 : v;
				break;
			case CORE_TYPE_FLOAT64: {
				double f = (double)rnd_range(-40, 40) / 4;

				if (unit_rand() % 30 == 0)
					f = unit_rand() % 2 ? NAN : -0.0;
				((double *)col->values)[r] = isnull ? 0 : f;
				break;
			}
			case CORE_TYPE_DATE:
				/* 1993-01-01 .. 1999-12-31, a few leap days. */
				((int32_t *)col->values)[r] = isnull ? 0 :
				    (int32_t)rnd_range(8401, 10956);
				break;
			case CORE_TYPE_TIMESTAMP:
				((int64_t *)col->values)[r] = isnull ? 0 :
				    rnd_range(8401, 10956) * 86400000000ll +
				    rnd_range(0, 3) * 21600000000ll;
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

/* ---- the reference: one row at a time ---- */

struct val {
	bool null;
	bool err;
	int64_t i;	/* ints, decimals (scaled), dates, timestamps,
			 * bools */
	double f;
	char s[256];
	uint32_t n;
};

static const struct core_batch *rb;	/* the batch the reference reads */
static const struct core_schema *rs;

static struct val
vnull(void)
{
	struct val v;

	memset(&v, 0, sizeof(v));
	v.null = true;
	return v;
}

static struct val
verr(void)
{
	struct val v = vnull();

	v.err = true;
	return v;
}

static struct val
vint(int64_t i)
{
	struct val v;

	memset(&v, 0, sizeof(v));
	v.i = i;
	return v;
}

static struct val
vflt(double f)
{
	struct val v;

	memset(&v, 0, sizeof(v));
	v.f = f;
	return v;
}

static struct val
vstr(const char *s, size_t n)
{
	struct val v;

	memset(&v, 0, sizeof(v));
	if (n > sizeof(v.s))
		n = sizeof(v.s);
	memcpy(v.s, s, n);
	v.n = (uint32_t)n;
	return v;
}

static __int128
p10(unsigned k)
{
	__int128 r = 1;

	while (k--)
		r *= 10;
	return r;
}

static bool
is_intlike(enum core_type t)
{
	return t == CORE_TYPE_INT32 || t == CORE_TYPE_INT64 ||
	    t == CORE_TYPE_DECIMAL;
}

static unsigned
scl(struct core_coltype t)
{
	return t.id == CORE_TYPE_DECIMAL ? t.scale : 0;
}

static bool
fits(__int128 x, struct core_coltype t)
{
	switch (t.id) {
	case CORE_TYPE_INT32:
	case CORE_TYPE_DATE:
		return x >= INT32_MIN && x <= INT32_MAX;
	case CORE_TYPE_DECIMAL:
		return x > -p10(t.precision) && x < p10(t.precision);
	default:
		return x >= INT64_MIN && x <= INT64_MAX;
	}
}

static double
as_double(struct val v, struct core_coltype t)
{
	if (t.id == CORE_TYPE_FLOAT64)
		return v.f;
	return (double)v.i / (double)p10(scl(t));
}

static int64_t
days_of(int y, int m, int d)
{
	struct tm tm;

	memset(&tm, 0, sizeof(tm));
	tm.tm_year = y - 1900;
	tm.tm_mon = m - 1;
	tm.tm_mday = d;
	return (int64_t)timegm(&tm) / 86400;
}

static void
ymd(int64_t days, int *y, int *m, int *d)
{
	time_t t = (time_t)(days * 86400);
	struct tm tm;

	gmtime_r(&t, &tm);
	*y = tm.tm_year + 1900;
	*m = tm.tm_mon + 1;
	*d = tm.tm_mday;
}

static int64_t
floordiv(int64_t a, int64_t b)
{
	int64_t q = a / b;

	if ((a % b) != 0 && ((a < 0) != (b < 0)))
		q--;
	return q;
}

static struct val
ref_cast(struct val v, struct core_coltype from, struct core_coltype to)
{
	char buf[64];
	size_t n;

	if (v.null || v.err || core_type_equal(from, to) || from.id == 0)
		return v;
	if (to.id == CORE_TYPE_STRING) {
		switch (from.id) {
		case CORE_TYPE_BOOL:
			n = core_format_bool((uint8_t)v.i, buf);
			break;
		case CORE_TYPE_FLOAT64:
			n = core_format_float64(v.f, buf);
			break;
		case CORE_TYPE_DECIMAL:
			n = core_format_decimal(v.i, from.scale, buf);
			break;
		case CORE_TYPE_DATE:
			n = core_format_date((int32_t)v.i, buf);
			break;
		case CORE_TYPE_TIMESTAMP:
			n = core_format_timestamp(v.i, buf);
			break;
		default:
			n = core_format_int64(v.i, buf);
			break;
		}
		return vstr(buf, n);
	}
	if (from.id == CORE_TYPE_STRING) {
		struct val r = vint(0);
		int32_t i32;
		uint8_t b8;
		int rc = -1;

		switch (to.id) {
		case CORE_TYPE_BOOL:
			rc = core_parse_bool(v.s, v.n, &b8);
			r.i = b8;
			break;
		case CORE_TYPE_INT32:
		case CORE_TYPE_DATE:
			rc = to.id == CORE_TYPE_DATE ?
			    core_parse_date(v.s, v.n, &i32) :
			    core_parse_int32(v.s, v.n, &i32);
			r.i = i32;
			break;
		case CORE_TYPE_INT64:
			rc = core_parse_int64(v.s, v.n, &r.i);
			break;
		case CORE_TYPE_DECIMAL:
			rc = core_parse_decimal(v.s, v.n, to.precision,
			    to.scale, &r.i);
			break;
		case CORE_TYPE_TIMESTAMP:
			rc = core_parse_timestamp(v.s, v.n, &r.i);
			break;
		case CORE_TYPE_FLOAT64:
			rc = core_parse_float64(v.s, v.n, &r.f);
			break;
		default:
			break;
		}
		return rc == 0 ? r : verr();
	}
	if (from.id == CORE_TYPE_BOOL)
		return vint(v.i);
	if (to.id == CORE_TYPE_BOOL)
		return vint(v.i != 0);
	if (to.id == CORE_TYPE_FLOAT64)
		return vflt(as_double(v, from));
	if (from.id == CORE_TYPE_DATE && to.id == CORE_TYPE_TIMESTAMP)
		return fits((__int128)v.i * 86400000000ll, to) ?
		    vint(v.i * 86400000000ll) : verr();
	if (from.id == CORE_TYPE_TIMESTAMP && to.id == CORE_TYPE_DATE)
		return vint(floordiv(v.i, 86400000000ll));
	if (from.id == CORE_TYPE_FLOAT64) {
		double y = v.f * (double)p10(scl(to));

		/* Half away from zero, by hand. */
		y = y < 0 ? -floor(-y + 0.5) : floor(y + 0.5);
		if (!(y >= -9223372036854775808.0 &&
		    y < 9223372036854775808.0) || !fits((__int128)y, to))
			return verr();
		return vint((int64_t)y);
	}
	{
		__int128 x = v.i;
		unsigned sf = scl(from), st = scl(to);

		if (st >= sf) {
			x *= p10(st - sf);
		} else {
			__int128 f = p10(sf - st), q = x / f, rm = x % f;

			if (rm < 0)
				rm = -rm;
			if (2 * rm >= f)
				q += x < 0 ? -1 : 1;
			x = q;
		}
		return fits(x, to) ? vint((int64_t)x) : verr();
	}
}

static struct val ref(const struct core_expr *e, uint32_t row);

static int
tv(struct val v)	/* three-valued: -1 NULL, 0, 1 */
{
	return v.null ? -1 : v.i != 0;
}

static struct val
vbool3(int t)
{
	return t < 0 ? vnull() : vint(t);
}

static int
cmp3(double x, double y)
{
	if (isnan(x) || isnan(y))
		return isnan(x) - isnan(y);
	return (x > y) - (x < y);
}

/* Compares a and b (as their AST types ta, tb); -2 on NULL. */
static int
ref_compare(struct val a, struct core_coltype ta, struct val b,
    struct core_coltype tb)
{
	__int128 x, y;
	size_t m;
	int c;

	if (ta.id == 0)
		ta = tb;
	if (tb.id == 0)
		tb = ta;
	if (ta.id == CORE_TYPE_STRING && tb.id != CORE_TYPE_STRING) {
		a = ref_cast(a, ta, tb);
		ta = tb;
	}
	if (tb.id == CORE_TYPE_STRING && ta.id != CORE_TYPE_STRING) {
		b = ref_cast(b, tb, ta);
		tb = ta;
	}
	if (a.null || b.null)
		return -2;
	if (ta.id == CORE_TYPE_STRING) {
		m = a.n < b.n ? a.n : b.n;
		c = memcmp(a.s, b.s, m);
		if (c == 0)
			c = (a.n > b.n) - (a.n < b.n);
		return (c > 0) - (c < 0);
	}
	if (ta.id == CORE_TYPE_FLOAT64 || tb.id == CORE_TYPE_FLOAT64)
		return cmp3(as_double(a, ta), as_double(b, tb));
	x = a.i;
	y = b.i;
	if (ta.id == CORE_TYPE_DATE && tb.id == CORE_TYPE_TIMESTAMP)
		x *= 86400000000ll;
	else if (tb.id == CORE_TYPE_DATE && ta.id == CORE_TYPE_TIMESTAMP)
		y *= 86400000000ll;
	else if (is_intlike(ta.id) && is_intlike(tb.id)) {
		unsigned s = scl(ta) > scl(tb) ? scl(ta) : scl(tb);

		x *= p10(s - scl(ta));
		y *= p10(s - scl(tb));
	}
	return (x > y) - (x < y);
}

static bool
op_holds(enum core_expr_op op, int c)
{
	switch (op) {
	case CORE_OP_EQ: return c == 0;
	case CORE_OP_NE: return c != 0;
	case CORE_OP_LT: return c < 0;
	case CORE_OP_LE: return c <= 0;
	case CORE_OP_GT: return c > 0;
	default: return c >= 0;
	}
}

static bool
like_ref(const char *s, size_t n, const char *p, size_t m)
{
	size_t k;

	if (m == 0)
		return n == 0;
	if (p[0] == '%') {
		for (k = 0; k <= n; k++)
			if (like_ref(s + k, n - k, p + 1, m - 1))
				return true;
		return false;
	}
	if (n == 0)
		return false;
	if (p[0] == '_') {
		/* One UTF-8 character. */
		k = 1;
		while (k < n && ((unsigned char)s[k] & 0xc0) == 0x80)
			k++;
		return like_ref(s + k, n - k, p + 1, m - 1);
	}
	return s[0] == p[0] && like_ref(s + 1, n - 1, p + 1, m - 1);
}

static void
lower_ascii(char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] >= 'A' && s[i] <= 'Z')
			s[i] = (char)(s[i] + 32);
}

static struct val
ref_load(int c, uint32_t row)
{
	const struct core_column *col = &rb->cols[c];

	if (!core_col_is_valid(col, row))
		return vnull();
	switch (col->type.id) {
	case CORE_TYPE_INT32:
	case CORE_TYPE_DATE:
		return vint(((const int32_t *)col->values)[row]);
	case CORE_TYPE_FLOAT64:
		return vflt(((const double *)col->values)[row]);
	case CORE_TYPE_BOOL:
		return vint(((const uint8_t *)col->values)[row]);
	case CORE_TYPE_STRING:
		return vstr((const char *)col->values + col->offsets[row],
		    (size_t)(col->offsets[row + 1] - col->offsets[row]));
	default:
		return vint(((const int64_t *)col->values)[row]);
	}
}

/* Arithmetic on values of AST types ta, tb into type t. */
static struct val
ref_arith(const struct core_expr *e, struct val a, struct val b)
{
	struct core_coltype t = e->type, ta = e->kids[0]->type,
	    tb = e->kids[1]->type;
	__int128 x, y, z;

	if (a.err || b.err)
		return verr();
	if (a.null || b.null)
		return vnull();
	if (t.id == CORE_TYPE_FLOAT64) {
		double p = as_double(a, ta), q = as_double(b, tb);

		switch (e->op) {
		case CORE_OP_ADD: return vflt(p + q);
		case CORE_OP_SUB: return vflt(p - q);
		case CORE_OP_MUL: return vflt(p * q);
		case CORE_OP_DIV: return vflt(p / q);
		default: return vflt(fmod(p, q));
		}
	}
	x = a.i;
	y = b.i;
	if (t.id == CORE_TYPE_DECIMAL && e->op != CORE_OP_MUL) {
		x *= p10(t.scale - scl(ta));
		y *= p10(t.scale - scl(tb));
	}
	switch (e->op) {
	case CORE_OP_ADD: z = x + y; break;
	case CORE_OP_SUB: z = x - y; break;
	case CORE_OP_MUL: z = x * y; break;
	default:
		if (y == 0)
			return vnull();
		z = x % y;
		break;
	}
	/* Decimal products fit 128 bits here (|x|, |y| < 10^18 each). */
	return fits(z, t) ? vint((int64_t)z) : verr();
}

static struct val
ref_date_add(const struct core_expr *e, struct val a,
    struct core_coltype ta, const struct core_expr *iv, bool minus)
{
	int64_t q = iv->value.i, d, us;
	int y, m, dd, dm;

	if (a.err)
		return a;
	if (a.null)
		return vnull();
	(void)e;
	if (iv->unit == CORE_UNIT_YEAR)
		q *= 12;
	if (minus)
		q = -q;
	d = ta.id == CORE_TYPE_DATE ? a.i : floordiv(a.i, 86400000000ll);
	us = ta.id == CORE_TYPE_DATE ? 0 : a.i - d * 86400000000ll;
	if (iv->unit == CORE_UNIT_DAY) {
		d += q;
	} else {
		ymd(d, &y, &m, &dd);
		m += (int)q;
		while (m > 12) {
			m -= 12;
			y++;
		}
		while (m < 1) {
			m += 12;
			y--;
		}
		/* Clamp to the month's last day. */
		dm = (int)(days_of(m == 12 ? y + 1 : y, m == 12 ? 1 : m + 1,
		    1) - days_of(y, m, 1));
		d = days_of(y, m, dd < dm ? dd : dm);
	}
	return vint(d * 86400000000ll + us);
}

static struct val
ref_func(const struct core_expr *e, const char *name, uint32_t row)
{
	struct val a, b, r;
	uint32_t k;
	int y, m, d;

	if (strcasecmp(name, "concat") == 0 || strcmp(name, "||") == 0) {
		r = vstr("", 0);
		for (k = 0; k < e->nkids; k++) {
			a = ref_cast(ref(e->kids[k], row), e->kids[k]->type,
			    r.null ? e->type : e->type);
			if (a.err)
				return a;
			if (a.null) {
				if (name[0] == '|')
					return vnull();
				continue;
			}
			memcpy(r.s + r.n, a.s, a.n);
			r.n += a.n;
		}
		return r;
	}
	if (strcasecmp(name, "greatest") == 0 ||
	    strcasecmp(name, "least") == 0) {
		r = vnull();
		for (k = 0; k < e->nkids; k++) {
			a = ref_cast(ref(e->kids[k], row), e->kids[k]->type,
			    e->type);
			if (a.err)
				return a;
			if (a.null)
				continue;
			if (r.null || ref_compare(a, e->type, r, e->type) ==
			    (name[0] == 'g' ? 1 : -1))
				r = a;
		}
		return r;
	}
	if (strcasecmp(name, "nullif") == 0) {
		a = ref(e->kids[0], row);
		b = ref(e->kids[1], row);
		if (a.err || b.err)
			return verr();
		if (!a.null && !b.null && ref_compare(a, e->kids[0]->type, b,
		    e->kids[1]->type) == 0)
			return vnull();
		return ref_cast(a, e->kids[0]->type, e->type);
	}
	if (strcasecmp(name, "starts_with") == 0 ||
	    strcasecmp(name, "contains") == 0) {
		a = ref(e->kids[0], row);
		b = ref(e->kids[1], row);
		if (a.err || b.err)
			return verr();
		if (a.null || b.null)
			return vnull();
		for (k = 0; k + b.n <= a.n; k++) {
			if (memcmp(a.s + k, b.s, b.n) == 0)
				return vint(1);
			if (name[0] == 's')
				break;
		}
		return vint(0);
	}
	if (strcasecmp(name, "round") == 0 && e->nkids == 2) {
		b = ref(e->kids[1], row);
		a = ref(e->kids[0], row);
		if (a.err || a.null || b.null)
			return a.err ? a : vnull();
		if (e->type.id != CORE_TYPE_FLOAT64)
			return a;
		/* By hand, half away from zero at 10^-n. */
		{
			double f = pow(10.0, (double)b.i), g = a.f * f;

			g = signbit(g) ? -floor(-g + 0.5) : floor(g + 0.5);
			return vflt(g / f);
		}
	}
	if (strcasecmp(name, "coalesce") == 0) {
		for (k = 0; k < e->nkids; k++) {
			a = ref(e->kids[k], row);
			if (a.err || !a.null)
				return ref_cast(a, e->kids[k]->type, e->type);
		}
		return vnull();
	}
	a = ref(e->kids[0], row);
	if (a.err || a.null)
		return a;
	if (strcasecmp(name, "floor") == 0 || strcasecmp(name, "ceil") == 0 ||
	    strcasecmp(name, "round") == 0) {
		double g;

		if (e->type.id != CORE_TYPE_FLOAT64)
			return a;
		g = name[0] == 'f' ? floor(a.f) : name[0] == 'c' ? ceil(a.f) :
		    signbit(a.f) ? -floor(-a.f + 0.5) : floor(a.f + 0.5);
		return vflt(g);
	}
	if (strcasecmp(name, "abs") == 0) {
		if (e->type.id == CORE_TYPE_FLOAT64)
			return vflt(fabs(a.f));
		return fits(a.i < 0 ? -(__int128)a.i : a.i, e->type) ?
		    vint(a.i < 0 ? -a.i : a.i) : verr();
	}
	if (strcasecmp(name, "lower") == 0 || strcasecmp(name, "upper") == 0) {
		r = a;
		for (k = 0; k < r.n; k++) {
			char c = r.s[k];

			if (name[0] == 'l' && c >= 'A' && c <= 'Z')
				r.s[k] = (char)(c + 32);
			if (name[0] == 'u' && c >= 'a' && c <= 'z')
				r.s[k] = (char)(c - 32);
		}
		return r;
	}
	if (strcasecmp(name, "trim") == 0 || strcasecmp(name, "ltrim") == 0 ||
	    strcasecmp(name, "rtrim") == 0) {
		r = vnull();
		r.null = false;
		for (k = 0; k < a.n; k++) {
			bool lead = r.n == 0;
			uint32_t rest = k;

			/* Keep a space unless it leads (ltrim, trim) or only
			 * spaces follow it (rtrim, trim). */
			if (a.s[k] == ' ' && name[0] != 'r' && lead)
				continue;
			while (rest < a.n && a.s[rest] == ' ')
				rest++;
			if (a.s[k] == ' ' && name[0] != 'l' && rest == a.n)
				break;
			r.s[r.n++] = a.s[k];
		}
		return r;
	}
	if (strcasecmp(name, "length") == 0) {
		int64_t c = 0;

		for (k = 0; k < a.n; k++)
			c += ((unsigned char)a.s[k] & 0xc0) != 0x80;
		return vint(c);
	}
	ymd(e->kids[0]->type.id == CORE_TYPE_DATE ? a.i :
	    floordiv(a.i, 86400000000ll), &y, &m, &d);
	if (strcasecmp(name, "year") == 0)
		return vint(y);
	if (strcasecmp(name, "month") == 0)
		return vint(m);
	return vint(d);
}

static struct val
ref(const struct core_expr *e, uint32_t row)
{
	struct val a, b, c;
	uint32_t k, first;
	int t, u, any;

	switch (e->kind) {
	case CORE_EXPR_COLUMN:
		return ref_load(core_schema_find(rs, e->text), row);
	case CORE_EXPR_LITERAL:
		switch (e->lit) {
		case CORE_LIT_NULL:
			return vnull();
		case CORE_LIT_BOOL:
			return vint(e->value.b);
		case CORE_LIT_INT:
			return vint((int64_t)e->value.u);
		case CORE_LIT_DECIMAL:
			a = vint(0);
			core_parse_decimal(e->text, e->text_len,
			    e->type.precision, e->type.scale, &a.i);
			return a;
		case CORE_LIT_FLOAT:
			return vflt(e->value.f);
		case CORE_LIT_STRING:
			return vstr(e->text, e->text_len);
		default:
			return vint(e->value.i);
		}
	case CORE_EXPR_UNARY:
		if (e->op == CORE_OP_NEG && e->kids[0]->kind ==
		    CORE_EXPR_LITERAL && e->kids[0]->lit == CORE_LIT_INT)
			return vint((int64_t)(0 - e->kids[0]->value.u));
		a = ref(e->kids[0], row);
		if (a.err || a.null)
			return a;
		if (e->op == CORE_OP_NOT)
			return vint(!a.i);
		if (e->op == CORE_OP_POS)
			return a;
		if (e->type.id == CORE_TYPE_FLOAT64)
			return vflt(-a.f);
		return fits(-(__int128)a.i, e->type) ? vint(-a.i) : verr();
	case CORE_EXPR_BINARY:
		if (e->op == CORE_OP_AND || e->op == CORE_OP_OR) {
			/* The right side is not evaluated where the left
			 * decides, as in the evaluator. */
			a = ref(e->kids[0], row);
			if (a.err)
				return a;
			t = tv(a);
			if (t == (e->op == CORE_OP_OR))
				return vint(t);
			b = ref(e->kids[1], row);
			if (b.err)
				return b;
			u = tv(b);
			if (u == (e->op == CORE_OP_OR))
				return vint(u);
			return t < 0 || u < 0 ? vnull() :
			    vint(e->op == CORE_OP_AND);
		}
		if (e->op >= CORE_OP_EQ && e->op <= CORE_OP_GE) {
			a = ref(e->kids[0], row);
			b = ref(e->kids[1], row);
			if (a.err || b.err)
				return verr();
			t = ref_compare(a, e->kids[0]->type, b,
			    e->kids[1]->type);
			return t == -2 ? vnull() : vint(op_holds(e->op, t));
		}
		if (e->kids[1]->kind == CORE_EXPR_LITERAL &&
		    e->kids[1]->lit == CORE_LIT_INTERVAL)
			return ref_date_add(e, ref(e->kids[0], row),
			    e->kids[0]->type, e->kids[1],
			    e->op == CORE_OP_SUB);
		if (e->kids[0]->kind == CORE_EXPR_LITERAL &&
		    e->kids[0]->lit == CORE_LIT_INTERVAL)
			return ref_date_add(e, ref(e->kids[1], row),
			    e->kids[1]->type, e->kids[0], false);
		if (e->op == CORE_OP_CONCAT)
			return ref_func(e, "||", row);
		return ref_arith(e, ref(e->kids[0], row),
		    ref(e->kids[1], row));
	case CORE_EXPR_IS_NULL:
		a = ref(e->kids[0], row);
		if (a.err)
			return a;
		return vint(a.null != e->negated);
	case CORE_EXPR_BETWEEN:
		a = ref(e->kids[0], row);
		b = ref(e->kids[1], row);
		c = ref(e->kids[2], row);
		if (a.err || b.err || c.err)
			return verr();
		t = ref_compare(a, e->kids[0]->type, b, e->kids[1]->type);
		u = ref_compare(a, e->kids[0]->type, c, e->kids[2]->type);
		t = t == -2 ? -1 : t >= 0;
		u = u == -2 ? -1 : u <= 0;
		/* AND, three-valued. */
		any = t == 0 || u == 0 ? 0 : t < 0 || u < 0 ? -1 : 1;
		if (e->negated && any >= 0)
			any = !any;
		return vbool3(any);
	case CORE_EXPR_IN:
		a = ref(e->kids[0], row);
		if (a.err)
			return a;
		any = 0;
		for (k = 1; k < e->nkids; k++) {
			b = ref(e->kids[k], row);
			if (b.err)
				return b;
			t = ref_compare(a, e->kids[0]->type, b,
			    e->kids[k]->type);
			if (t == -2)
				any = any == 1 ? 1 : -1;
			else if (t == 0)
				any = 1;
		}
		if (e->negated && any >= 0)
			any = !any;
		return vbool3(any);
	case CORE_EXPR_LIKE:
		a = ref(e->kids[0], row);
		b = ref(e->kids[1], row);
		if (a.err || b.err)
			return verr();
		if (a.null || b.null)
			return vnull();
		if (e->op == CORE_OP_ILIKE) {
			lower_ascii(a.s, a.n);
			lower_ascii(b.s, b.n);
		}
		return vint(like_ref(a.s, a.n, b.s, b.n) != e->negated);
	case CORE_EXPR_CASE:
		first = e->has_operand;
		for (k = 0; k < (e->nkids - first - e->has_else) / 2; k++) {
			const struct core_expr *w = e->kids[first + 2 * k];

			if (e->has_operand) {
				a = ref(e->kids[0], row);
				b = ref(w, row);
				if (a.err || b.err)
					return verr();
				t = ref_compare(a, e->kids[0]->type, b,
				    w->type) == 0;
			} else {
				a = ref(w, row);
				if (a.err)
					return a;
				t = tv(a) == 1;
			}
			if (t)
				return ref_cast(ref(e->kids[first + 2 * k + 1],
				    row), e->kids[first + 2 * k + 1]->type,
				    e->type);
		}
		if (e->has_else)
			return ref_cast(ref(e->kids[e->nkids - 1], row),
			    e->kids[e->nkids - 1]->type, e->type);
		return vnull();
	case CORE_EXPR_CAST:
		return ref_cast(ref(e->kids[0], row), e->kids[0]->type,
		    e->type);
	case CORE_EXPR_FUNC:
		return ref_func(e, e->text, row);
	case CORE_EXPR_EXTRACT:
		return ref_func(e, e->text, row);
	}
	return verr();
}

/* As a filter: AND's right side only where its left is TRUE, OR's only
 * where its left is not. */
static int
ref_filter(const struct core_expr *e, uint32_t row)
{
	struct val v;
	int t;

	if (e->kind == CORE_EXPR_BINARY && e->op == CORE_OP_AND) {
		if ((t = ref_filter(e->kids[0], row)) != 1)
			return t;
		return ref_filter(e->kids[1], row);
	}
	if (e->kind == CORE_EXPR_BINARY && e->op == CORE_OP_OR) {
		if ((t = ref_filter(e->kids[0], row)) != 0)
			return t;
		return ref_filter(e->kids[1], row);
	}
	v = ref(e, row);
	if (v.err)
		return -1;
	return tv(v) == 1;
}

/* ---- comparison ---- */

static bool
same_value(const struct core_column *c, uint32_t i, struct val v)
{
	bool valid = core_col_is_valid(c, i);

	if (v.null != !valid)
		return false;
	if (v.null)
		return true;
	switch (c->type.id) {
	case CORE_TYPE_BOOL:
		return ((const uint8_t *)c->values)[i] == v.i;
	case CORE_TYPE_INT32:
	case CORE_TYPE_DATE:
		return ((const int32_t *)c->values)[i] == v.i;
	case CORE_TYPE_FLOAT64: {
		double g = ((const double *)c->values)[i];

		return (isnan(g) && isnan(v.f)) ||
		    memcmp(&g, &v.f, sizeof(g)) == 0;
	}
	case CORE_TYPE_STRING:
		return (uint32_t)(c->offsets[i + 1] - c->offsets[i]) == v.n &&
		    memcmp((const char *)c->values + c->offsets[i], v.s,
		    v.n) == 0;
	default:
		return ((const int64_t *)c->values)[i] == v.i;
	}
}

static const uint32_t lengths[] = { 0, 1, 2, 3, 17, 4095, 4096, 4097 };

static uint32_t
random_sel(uint32_t n, uint32_t *sel)
{
	static const unsigned pct[] = { 0, 5, 50, 95, 100, 100 };
	unsigned p = pct[unit_rand() % 6];
	uint32_t r, k = 0;

	for (r = 0; r < n; r++)
		if (unit_rand() % 100 < p)
			sel[k++] = r;
	return k;
}

static int nvalues, nerrors;

/* Runs src over random batches of every length, both ways. */
static void
check_expr(const char *src, struct core_schema *s, struct core_batch *bt,
    uint32_t *sel, uint32_t *out)
{
	struct core_expr *e = NULL;
	struct core_expr_bound *bd = NULL;
	struct core_column col;
	struct core_err err;
	static uint32_t inplace[4100];
	uint32_t li, rep, n, k, i, nout, n2;
	int rc, t, mism = 0;

	memset(&col, 0, sizeof(col));
	if (core_expr_parse(src, strlen(src), &e, &err) != 0 ||
	    core_expr_bind(e, src, strlen(src), s, &bd, &err) != 0) {
		printf("# %s: %s\n", src, err.msg);
		CHECK(0);
		core_expr_free(e);
		return;
	}
	for (li = 0; li < sizeof(lengths) / sizeof(lengths[0]); li++) {
		for (rep = 0; rep < 3; rep++) {
			n = lengths[li];
			fill_batch(bt, n, rep == 2);
			rb = bt;
			k = rep == 0 && unit_rand() % 2 ? n :
			    random_sel(n, sel);
			if (k == n)
				for (i = 0; i < n; i++)
					sel[i] = i;
			rc = core_expr_eval_project(bd, bt, rep == 0 &&
			    k == n ? NULL : sel, k, &col, &err);
			if (rc != 0) {
				bool any = false;

				CHECK_EQ_INT(rc, CORE_EDATA);
				for (i = 0; i < k && !any; i++)
					any = ref(e, sel[i]).err;
				if (!any && mism++ < 3)
					printf("# %s: n=%u: unexpected error "
					    "%s\n", src, n, err.msg);
				nerrors++;
			} else {
				CHECK(core_type_equal(col.type, e->type));
				for (i = 0; i < k; i++) {
					struct val v = ref(e, sel[i]);

					nvalues++;
					if (v.err) {
						if (mism++ < 3)
							printf("# %s: row %u: "
							    "reference fails, "
							    "evaluator not\n",
							    src, sel[i]);
						break;
					}
					if (!same_value(&col, i, v)) {
						if (mism++ < 3)
							printf("# %s: n=%u row "
							    "%u differs (want "
							    "%s%lld %g)\n",
							    src, n, sel[i],
							    v.null ? "NULL " :
							    "", (long long)v.i,
							    v.f);
					}
				}
			}
			if (e->type.id != CORE_TYPE_BOOL)
				continue;
			rc = core_expr_eval_filter(bd, bt, sel, k, out, &nout,
			    &err);
			if (rc != 0) {
				bool any = false;

				for (i = 0; i < k && !any; i++)
					any = ref_filter(e, sel[i]) < 0;
				if (!any && mism++ < 3)
					printf("# %s: filter n=%u: unexpected "
					    "error %s\n", src, n, err.msg);
				continue;
			}
			for (i = 0, t = 0; i < k; i++) {
				int want = ref_filter(e, sel[i]);

				if (want < 0) {
					if (mism++ < 3)
						printf("# %s: filter n=%u row "
						    "%u: reference fails, "
						    "evaluator not\n", src, n,
						    sel[i]);
					break;
				}
				if (want) {
					if ((uint32_t)t >= nout ||
					    out[t] != sel[i]) {
						if (mism++ < 3)
							printf("# %s: filter "
							    "n=%u row %u\n",
							    src, n, sel[i]);
						break;
					}
					t++;
				}
			}
			if (i == k && nout != (uint32_t)t && mism++ < 3)
				printf("# %s: filter n=%u: %u rows, want %d\n",
				    src, n, nout, t);
			/* In place, the selection is its own output. */
			memcpy(inplace, sel, (size_t)k * sizeof(*sel));
			if (core_expr_eval_filter(bd, bt, inplace, k, inplace,
			    &n2, &err) != 0 || n2 != nout ||
			    memcmp(inplace, out, (size_t)n2 *
			    sizeof(*out)) != 0) {
				if (mism++ < 3)
					printf("# %s: filter in place n=%u "
					    "differs\n", src, n);
			}
		}
	}
	if (mism > 0)
		printf("# %s: %d mismatches\n", src, mism);
	CHECK(mism == 0);
	core_expr_column_release(&col);
	core_expr_bound_free(bd);
	core_expr_free(e);
}

static const char *const exprs[] = {
	/* columns and literals */
	"i", "l", "d", "f", "s", "\"Name\"", "dt", "ts", "b",
	"42", "-7", "3000000000", "1.50", "-0.125", "2.5e1", "'x y'",
	"DATE '1995-03-15'", "TIMESTAMP '1995-03-15 10:30:00'", "TRUE",
	"NULL", "NULL + 1",
	/* arithmetic */
	"i + j", "i - j", "i * j", "i % j", "i / j", "l + i", "l * j",
	"l - 5", "l % 7", "-i", "-l", "+d", "-d", "-f",
	"d + e", "d - e", "d * 3", "d + 1", "1 - d", "i + d",
	"d / e", "i / 0", "f + i", "f * d", "f / j", "f % 2.5", "f - l",
	"l * 1000000000000", "i * 100000", "l + 9223372036854775000",
	"2147483647 + i", "d * d", "(d + e) * 2", "1 + 2 * 3", "7 % 0",
	"dt + 3", "dt - 10", "dt - DATE '1995-01-01'", "3 + dt",
	"dt + INTERVAL '90' DAY", "dt - INTERVAL 1 MONTH",
	"dt + INTERVAL 1 YEAR", "ts + INTERVAL 13 MONTH",
	"ts - INTERVAL '2' DAY", "INTERVAL 1 MONTH + dt",
	"DATE '1996-01-31' + INTERVAL 1 MONTH",
	/* comparisons */
	"i = j", "i <> j", "i < j", "i <= j", "i > j", "i >= j", "i = l",
	"i < d", "d = e", "d > e", "d >= 1.5", "f = i", "f < d", "f = f",
	"f <> f", "s = \"Name\"", "s < \"Name\"", "s >= 'a'", "b = TRUE",
	"b < b", "dt < DATE '1995-01-01'", "dt = ts",
	"ts >= DATE '1996-02-29'", "dt >= '1995-06-01'",
	"ts < '1995-01-01 12:00:00'", "'b' > s", "i = NULL",
	/* logic */
	"i < 0 AND j > 0", "i < 0 OR j > 0", "NOT b", "b AND i > 0",
	"b OR NULL", "NOT (i = j)", "i > 0 AND j > 0 AND l > 0",
	"(i > 0 OR j > 0) AND NOT b", "i > 0 OR j > 0 OR d > 0",
	"i > 0 AND (l * 1000000000000 > 0)", "TRUE AND b", "FALSE OR b",
	"i IS NULL", "s IS NOT NULL", "NULL IS NULL", "b IS NOT NULL",
	/* BETWEEN, IN */
	"i BETWEEN -5 AND 5", "i NOT BETWEEN j AND 10",
	"d BETWEEN 1 AND 10.5", "dt BETWEEN DATE '1994-01-01' AND "
	    "DATE '1995-01-01'", "s BETWEEN 'a' AND 'b'",
	"i IN (1, 2, 3)", "i NOT IN (1, 2, 3)", "i IN (1, NULL)",
	"i NOT IN (1, NULL)", "l IN (5, -5, 20000)", "d IN (1.5, 2, 0.05)",
	"d IN (1, 2.001)", "f IN (1.5, 2)",
	"f IN (CAST('nan' AS double), 1.5, -2)", "f NOT IN (-0.0, 2.25)",
	"i IN (1.5, 2.0)",
	"s IN ('a', 'ab', '')", "s NOT IN ('a', 'b')",
	"dt IN (DATE '1995-01-01', '1996-02-29')", "i IN (j, 3)",
	"i IN (j, NULL)", "s IN (\"Name\", 'x')",
	/* LIKE */
	"s LIKE 'a%'", "s LIKE '%b'", "s LIKE '%ab%'", "s LIKE 'ab'",
	"s LIKE '%'", "s LIKE '_'", "s LIKE 'a_%b'", "s LIKE '%a%b%'",
	"s NOT LIKE 'a%'", "s ILIKE 'A%'", "s ILIKE '%B%'",
	"s NOT ILIKE '_b'", "\"Name\" LIKE '%\\%%'", "s LIKE ''",
	"s LIKE NULL", "s LIKE '%%a'", "s LIKE '_%_'",
	/* CASE */
	"CASE WHEN i > 0 THEN 'pos' WHEN i < 0 THEN 'neg' ELSE 'zero' END",
	"CASE WHEN i > 0 THEN i END", "CASE i WHEN 1 THEN d WHEN 2 THEN "
	    "e ELSE 0 END", "CASE WHEN b THEN l ELSE i END",
	"CASE WHEN i > 100000 THEN l * 1000000000000 ELSE 0 END",
	"CASE WHEN f > 0 THEN f ELSE d END", "CASE s WHEN 'a' THEN TRUE "
	    "ELSE b END", "CASE WHEN dt > ts THEN dt ELSE ts END",
	/* CAST */
	"CAST(i AS bigint)", "CAST(l AS int)", "CAST(d AS int)",
	"CAST(d AS decimal(5,1))", "CAST(e AS decimal(18,6))",
	"CAST(f AS int)", "CAST(f AS decimal(6,2))", "CAST(i AS double)",
	"CAST(d AS double)", "d::string", "f::string", "dt::string",
	"ts::string", "b::string", "i::string", "CAST(ts AS date)",
	"CAST(dt AS timestamp)", "CAST('12' AS int) + i", "CAST(b AS int)",
	"CAST(i AS bool)", "CAST(s AS int)", "'1995-03-15'::date",
	"CAST(l AS decimal(9,2))", "CAST('1.5' AS double)",
	/* functions */
	"abs(i)", "abs(d)", "abs(f)", "abs(l * 1000000000000)",
	"lower(s)", "upper(\"Name\")", "length(s)", "coalesce(i, j, 0)",
	"coalesce(d, i)", "coalesce(s, \"Name\", 'none')",
	"coalesce(NULL, f)", "year(dt)", "month(ts)", "day(dt)",
	"extract(year FROM ts)", "extract(month FROM dt)",
	"extract(day FROM ts)", "upper(lower(s)) = upper(s)",
	"length(lower(\"Name\")) > 1",
	"s || \"Name\"", "s || i", "'<' || s || '>'", "concat(s, NULL, dt)",
	"concat(i, d, f)", "s || NULL", "nullif(i, j)", "nullif(s, 'a')",
	"nullif(d, 1)", "greatest(i, j, 0)", "least(i, j)", "greatest(d, i)",
	"least(s, \"Name\")", "greatest(f, d)", "greatest(NULL, i)",
	"least(dt, ts)", "starts_with(s, 'a')", "starts_with(s, \"Name\")",
	"contains(s, 'b')", "contains(\"Name\", s)", "floor(f)", "ceil(f)",
	"round(f)", "round(f, 1)", "round(f / 3, 2)", "round(f, -1)",
	"floor(i)", "round(l, 2)", "round(f, NULL)", "ceil(f / 0)",
	"trim(s)", "ltrim(s)", "rtrim(\"Name\")", "length(trim(s || ' '))",
	"'[' || ltrim(rtrim(s)) || ']'",
	/* mixed */
	"2 * (1 - d)", "(i + j) * (i - j) > l",
	"CASE WHEN s LIKE 'a%' THEN upper(s) ELSE lower(\"Name\") END",
	"coalesce(CAST(i AS decimal(9,2)), d) + 1",
};

static void
test_against_reference(void)
{
	struct core_schema *s = make_schema();
	struct core_batch bt;
	uint32_t *sel = core_xmalloc(4100 * sizeof(*sel));
	uint32_t *out = core_xmalloc(4100 * sizeof(*out));
	size_t i;

	core_batch_init(&bt, s);
	rs = s;
	for (i = 0; i < sizeof(exprs) / sizeof(exprs[0]); i++)
		check_expr(exprs[i], s, &bt, sel, out);
	printf("# %d values compared, %d batches failing on both sides\n",
	    nvalues, nerrors);
	core_batch_release(&bt);
	free(sel);
	free(out);
	core_schema_free(s);
}

/* ---- types and errors ---- */

static void
expect_type(struct core_schema *s, const char *src, const char *want)
{
	struct core_expr *e = NULL;
	struct core_expr_bound *b = NULL;
	struct core_err err;
	char buf[CORE_TYPE_NAME_MAX];

	if (core_expr_parse(src, strlen(src), &e, &err) != 0 ||
	    core_expr_bind(e, src, strlen(src), s, &b, &err) != 0) {
		printf("# %s: %s\n", src, err.msg);
		CHECK(0);
	} else {
		core_type_name(core_expr_bound_type(b), buf);
		if (strcmp(buf, want) != 0)
			printf("# %s\n", src);
		CHECK_EQ_STR(buf, want);
	}
	core_expr_bound_free(b);
	core_expr_free(e);
}

static void
test_binder_types(void)
{
	struct core_schema *s = make_schema();

	expect_type(s, "i + j", "int32");
	expect_type(s, "i + l", "int64");
	expect_type(s, "i + 1", "int32");
	expect_type(s, "i + 3000000000", "int64");
	expect_type(s, "d + e", "decimal(13,4)");
	expect_type(s, "d - 1", "decimal(10,2)");
	expect_type(s, "d * d", "decimal(18,4)");
	expect_type(s, "d * 2", "decimal(10,2)");
	expect_type(s, "i / j", "float64");
	expect_type(s, "d / 2", "float64");
	expect_type(s, "f + d", "float64");
	expect_type(s, "1.50", "decimal(3,2)");
	expect_type(s, "0.05", "decimal(2,2)");
	expect_type(s, "dt + INTERVAL 1 DAY", "timestamp");
	expect_type(s, "dt + 1", "date");
	expect_type(s, "dt - dt", "int64");
	expect_type(s, "CASE WHEN b THEN i ELSE d END", "decimal(12,2)");
	expect_type(s, "coalesce(i, l)", "int64");
	expect_type(s, "year(dt)", "int64");
	expect_type(s, "NULL", "bool");
	expect_type(s, "i = d", "bool");
	core_schema_free(s);
}

static void
expect_error(struct core_schema *s, const char *src, const char *want)
{
	struct core_expr *e = NULL;
	struct core_expr_bound *b = NULL;
	struct core_err err;
	int rc;

	memset(&err, 0, sizeof(err));
	if (core_expr_parse(src, strlen(src), &e, &err) != 0) {
		printf("# parse: %s\n", err.msg);
		CHECK(0);
		return;
	}
	rc = core_expr_bind(e, src, strlen(src), s, &b, &err);
	CHECK_EQ_INT(rc, CORE_EUSAGE);
	CHECK(b == NULL);
	CHECK_EQ_STR(err.msg, want);
	core_expr_bound_free(b);
	core_expr_free(e);
}

static void
test_bind_errors(void)
{
	struct core_schema *s = make_schema();

	expect_error(s, "x + 1",
	    "column 1: unknown column 'x'; the columns are i, j, l, d, e, "
	    "f, s, Name, dt, ts, b\n  x + 1\n  ^");
	expect_error(s, "nmae = 'a'",
	    "column 1: unknown column 'nmae' (did you mean 'Name'?); the "
	    "columns are i, j, l, d, e, f, s, Name, dt, ts, b\n"
	    "  nmae = 'a'\n  ^^^^");
	expect_error(s, "i + s",
	    "column 5: cannot apply '+' to int32 and string\n"
	    "  i + s\n      ^");
	expect_error(s, "s * 2 > 1",
	    "column 1: cannot apply '*' to string and int32\n"
	    "  s * 2 > 1\n  ^");
	expect_error(s, "i = 'x' OR s < dt",
	    "column 5: cannot read 'x' as int32\n"
	    "  i = 'x' OR s < dt\n      ^^^");
	expect_error(s, "b AND i",
	    "column 7: AND needs a bool, not int32\n  b AND i\n        ^");
	expect_error(s, "e * e * e",
	    "column 3: the result, decimal(24,8), needs 24 digits; more "
	    "than 18 are not supported yet\n  e * e * e\n    ^");
	expect_error(s, "l + d",
	    "column 3: the result, decimal(22,2), needs 22 digits; more "
	    "than 18 are not supported yet\n  l + d\n    ^");
	expect_error(s, "s LIKE \"Name\"",
	    "column 8: a LIKE pattern must be a constant for now\n"
	    "  s LIKE \"Name\"\n         ^^^^^^");
	expect_error(s, "i LIKE 'a'",
	    "column 1: LIKE needs a string, not int32\n  i LIKE 'a'\n  ^");
	expect_error(s, "i + INTERVAL 1 DAY",
	    "column 1: an interval is added to a date or timestamp, not "
	    "int32\n  i + INTERVAL 1 DAY\n  ^");
	expect_error(s, "INTERVAL 1 DAY",
	    "column 1: an interval goes only after + or - next to a date or "
	    "timestamp\n  INTERVAL 1 DAY\n  ^^^^^^^^^^^^^^");
	expect_error(s, "2147483647 + 1 > i",
	    "column 1: int32 overflow\n"
	    "  2147483647 + 1 > i\n  ^^^^^^^^^^^^^^");
	expect_error(s, "frob(i)",
	    "column 1: unknown function frob()\n  frob(i)\n  ^^^^");
	expect_error(s, "abs(i, j)",
	    "column 1: abs() takes 1 argument\n  abs(i, j)\n  ^^^^^^^^^");
	expect_error(s, "lower(i)",
	    "column 7: lower does not take int32\n  lower(i)\n        ^");
	expect_error(s, "CAST(dt AS int)",
	    "column 1: cannot cast date to int32\n  CAST(dt AS int)\n"
	    "  ^^^^^^^^^^^^^^^");
	expect_error(s, "CASE WHEN i THEN 1 END",
	    "column 11: WHEN needs a bool, not int32\n"
	    "  CASE WHEN i THEN 1 END\n            ^");
	expect_error(s, "CASE WHEN b THEN s ELSE i END",
	    "column 25: cannot mix string and int32\n"
	    "  CASE WHEN b THEN s ELSE i END\n                          ^");
	expect_error(s, "d % 2",
	    "column 3: '%' on decimals is not supported yet\n  d % 2\n"
	    "    ^");
	expect_error(s, "s IN ('a', 1)",
	    "column 12: cannot compare string with int32\n"
	    "  s IN ('a', 1)\n             ^");
	expect_error(s, "round(d)",
	    "column 7: round on decimals is not supported yet\n"
	    "  round(d)\n        ^");
	expect_error(s, "round(f, j)",
	    "column 10: round takes a constant integer of digits\n"
	    "  round(f, j)\n           ^");
	expect_error(s, "starts_with(s, 1)",
	    "column 16: starts_with does not take int32\n"
	    "  starts_with(s, 1)\n                 ^");
	core_schema_free(s);
}

/* Run-time errors name the row and the operation. */
static void
test_runtime_errors(void)
{
	struct core_schema *s = make_schema();
	struct core_batch bt;
	struct core_expr *e = NULL;
	struct core_expr_bound *b = NULL;
	struct core_column col;
	struct core_err err;
	const char *src = "i * 1000000";
	uint32_t r, sel[3] = { 1, 3, 4 }, out[8], nout;

	memset(&col, 0, sizeof(col));
	core_batch_init(&bt, s);
	fill_batch(&bt, 8, false);
	for (r = 0; r < 8; r++)
		((int32_t *)bt.cols[C_I].values)[r] = r == 3 ? 5000 : 1;
	bt.cols[C_I].validity = NULL;
	CHECK(core_expr_parse(src, strlen(src), &e, &err) == 0);
	CHECK(core_expr_bind(e, src, strlen(src), s, &b, &err) == 0);
	CHECK_EQ_INT(core_expr_eval_project(b, &bt, sel, 3, &col, &err),
	    CORE_EDATA);
	CHECK_EQ_STR(err.msg, "row 3: int32 overflow in 'i * 1000000'");
	b->row_base = 1000;
	CHECK_EQ_INT(core_expr_eval_project(b, &bt, NULL, 8, &col, &err),
	    CORE_EDATA);
	CHECK_EQ_STR(err.msg, "row 1003: int32 overflow in 'i * 1000000'");
	/* Not a bool: no filter. */
	CHECK_EQ_INT(core_expr_eval_filter(b, &bt, NULL, 8, out, &nout,
	    &err), CORE_EUSAGE);
	core_expr_bound_free(b);
	core_expr_free(e);
	core_expr_column_release(&col);
	core_batch_release(&bt);
	core_schema_free(s);
}

int
main(void)
{
	RUN(test_binder_types);
	RUN(test_bind_errors);
	RUN(test_runtime_errors);
	RUN(test_against_reference);
	return unit_done();
}
