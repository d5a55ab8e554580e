/*
 * core_value.c - text <-> value conversion for every colpipe type.
 *
 * The parsers are the inner loop of the CSV reader (every field of every
 * row goes through one of them), so they are written to be exact first
 * and cheap second: no allocation, no locale, no errno, no strtol.  Integer
 * and decimal digits are accumulated in a uint64_t whose digit count is
 * bounded before the loop, so no per-digit overflow test is needed.
 *
 * Floats: the common case (at most 19 significant digits, a decimal
 * exponent within +-22 and a mantissa below 2^53) is converted exactly
 * with one multiplication or division (Clinger's fast path: both operands
 * are exact doubles, so the one IEEE rounding is the correct rounding).
 * Everything else is normalised into "DIGITSe<exp>" on the stack and
 * handed to glibc's correctly rounded strtod; the normalised text has no
 * decimal point, so the locale cannot change its meaning.
 *
 * Float output is the shortest digit string that reads back to the same
 * double, laid out like ECMAScript's Number.prototype.toString.  Values
 * with a short exact decimal form (the usual CSV data) are found with a
 * multiply/divide test; the rest try 15, 16 and 17 significant digits.
 *
 * Dates use Howard Hinnant's days_from_civil/civil_from_days algorithms
 * (proleptic Gregorian, exact for the whole int32 day range).
 */
#include <assert.h>
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core_value.h"

#define USEC_PER_SEC	INT64_C(1000000)
#define USEC_PER_DAY	(INT64_C(86400) * USEC_PER_SEC)

/* Days from 1970-01-01 of 0001-01-01 and 9999-12-31. */
#define DAYS_MIN	(-719162)
#define DAYS_MAX	2932896

const uint64_t core_pow10_u64[20] = {
	UINT64_C(1), UINT64_C(10), UINT64_C(100), UINT64_C(1000),
	UINT64_C(10000), UINT64_C(100000), UINT64_C(1000000),
	UINT64_C(10000000), UINT64_C(100000000), UINT64_C(1000000000),
	UINT64_C(10000000000), UINT64_C(100000000000),
	UINT64_C(1000000000000), UINT64_C(10000000000000),
	UINT64_C(100000000000000), UINT64_C(1000000000000000),
	UINT64_C(10000000000000000), UINT64_C(100000000000000000),
	UINT64_C(1000000000000000000), UINT64_C(10000000000000000000),
};

/* Every power of ten up to 1e22 is exact in a double (5^22 < 2^53). */
static const double pow10_dbl[23] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

const char core_digit_pairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233"
	"34353637383940414243444546474849505152535455565758596061626364656667"
	"68697071727374757677787980818283848586878889909192939495969798990";

static inline unsigned
digit_of(char c)
{
	/* Wraps to a large value for every byte that is not '0'..'9'. */
	return (unsigned)(unsigned char)c - '0';
}

static inline bool
is_digit(char c)
{
	return digit_of(c) <= 9;
}

/* Two digits at s (0..99), or a value > 99 if either is not a digit. */
static inline unsigned
two_digits(const char *s)
{
	unsigned a = digit_of(s[0]), b = digit_of(s[1]);

	return (a > 9 || b > 9) ? 1000 : a * 10 + b;
}

static inline void
put2(char *p, unsigned v)
{
	memcpy(p, core_digit_pairs + 2 * v, 2);
}

/* Decimal digits of v into buf; returns their count (1..20). */
static size_t
u64_to_dec(uint64_t v, char *buf)
{
	char tmp[20], *p = tmp + sizeof(tmp);
	size_t n;

	while (v >= 100) {
		p -= 2;
		put2(p, (unsigned)(v % 100));
		v /= 100;
	}
	if (v >= 10) {
		p -= 2;
		put2(p, (unsigned)v);
	} else {
		*--p = (char)('0' + v);
	}
	n = (size_t)(tmp + sizeof(tmp) - p);
	memcpy(buf, p, n);
	return n;
}

/* ---- bool ---- */

int
core_parse_bool(const char *s, size_t len, uint8_t *out)
{
	/* c | 0x20 lower-cases a letter and maps no other byte onto a
	 * lower-case letter, so this is an exact case-insensitive match. */
	if (len == 4 && (s[0] | 0x20) == 't' && (s[1] | 0x20) == 'r' &&
	    (s[2] | 0x20) == 'u' && (s[3] | 0x20) == 'e') {
		*out = 1;
		return 0;
	}
	if (len == 5 && (s[0] | 0x20) == 'f' && (s[1] | 0x20) == 'a' &&
	    (s[2] | 0x20) == 'l' && (s[3] | 0x20) == 's' &&
	    (s[4] | 0x20) == 'e') {
		*out = 0;
		return 0;
	}
	return -1;
}

size_t
core_format_bool(uint8_t v, char *buf)
{
	if (v) {
		memcpy(buf, "true", 4);
		return 4;
	}
	memcpy(buf, "false", 5);
	return 5;
}

/* ---- integers ---- */

/*
 * Parses [+-]?[0-9]+ whose magnitude is at most limit (for a negative
 * number, limit + 1).  Leading zeros are skipped only when the digit count
 * would otherwise exceed 19, so the common case is one loop.
 */
static inline int
parse_signed(const char *s, size_t len, uint64_t limit, bool *neg,
    uint64_t *mag)
{
	const char *p = s, *end;
	uint64_t v = 0;
	unsigned bad = 0;
	size_t n;

	*neg = false;
	/* An empty string may come as a NULL pointer: no arithmetic on it. */
	if (len == 0)
		return -1;
	end = s + len;
	if (p < end && (*p == '-' || *p == '+')) {
		*neg = *p == '-';
		p++;
	}
	if (p == end)
		return -1;
	while (end - p > 19 && *p == '0')
		p++;
	n = (size_t)(end - p);
	if (n > 19)
		return -1;
	/* 19 digits never overflow a uint64_t (10^19 - 1 < 2^64). */
	for (size_t i = 0; i < n; i++) {
		unsigned d = digit_of(p[i]);

		bad |= d > 9;
		v = v * 10 + d;
	}
	if (bad || v > limit + *neg)
		return -1;
	*mag = v;
	return 0;
}

int
core_parse_int64(const char *s, size_t len, int64_t *out)
{
	uint64_t mag;
	bool neg;

	if (parse_signed(s, len, INT64_MAX, &neg, &mag) != 0)
		return -1;
	*out = neg ? (int64_t)(0 - mag) : (int64_t)mag;
	return 0;
}

int
core_parse_int32(const char *s, size_t len, int32_t *out)
{
	uint64_t mag;
	bool neg;

	if (parse_signed(s, len, INT32_MAX, &neg, &mag) != 0)
		return -1;
	*out = neg ? (int32_t)(0 - (int64_t)mag) : (int32_t)mag;
	return 0;
}

size_t
core_format_int64(int64_t v, char *buf)
{
	if (v < 0) {
		buf[0] = '-';
		/* Unsigned negation is defined for INT64_MIN too. */
		return 1 + u64_to_dec(0 - (uint64_t)v, buf + 1);
	}
	return u64_to_dec((uint64_t)v, buf);
}

/* ---- decimal ---- */

int
core_parse_decimal(const char *s, size_t len, uint8_t precision,
    uint8_t scale, int64_t *out)
{
	const char *p = s, *end, *ip, *fp = NULL;
	size_t nint, nfrac = 0;
	uint64_t v = 0;
	bool neg = false;

	if (len == 0)
		return -1;
	end = s + len;
	if (precision > 18 || scale > precision)
		return -1;
	if (p < end && (*p == '-' || *p == '+')) {
		neg = *p == '-';
		p++;
	}
	ip = p;
	while (p < end && is_digit(*p))
		p++;
	nint = (size_t)(p - ip);
	if (p < end && *p == '.') {
		fp = ++p;
		while (p < end && is_digit(*p))
			p++;
		nfrac = (size_t)(p - fp);
	}
	if (p != end || nint + nfrac == 0)
		return -1;
	/* Leading zeros are not significant: "0.05" fits decimal(2,2). */
	while (nint > 0 && *ip == '0') {
		ip++;
		nint--;
	}
	/* Exact: too many digits on either side is an error, never a
	 * rounding.  Together at most 18 digits, so v cannot overflow. */
	if (nint > (size_t)(precision - scale) || nfrac > scale)
		return -1;
	for (size_t i = 0; i < nint; i++)
		v = v * 10 + digit_of(ip[i]);
	for (size_t i = 0; i < nfrac; i++)
		v = v * 10 + digit_of(fp[i]);
	v *= core_pow10_u64[scale - nfrac];
	*out = neg ? -(int64_t)v : (int64_t)v;
	return 0;
}

size_t
core_format_decimal(int64_t v, uint8_t scale, char *buf)
{
	char *p = buf;
	uint64_t mag, ip, fp;

	assert(scale <= 18);
	if (scale > 18)
		scale = 18;
	if (v < 0) {
		*p++ = '-';
		mag = 0 - (uint64_t)v;
	} else {
		mag = (uint64_t)v;
	}
	if (scale == 0)
		return (size_t)(p - buf) + u64_to_dec(mag, p);
	ip = mag / core_pow10_u64[scale];
	fp = mag % core_pow10_u64[scale];
	p += u64_to_dec(ip, p);
	*p++ = '.';
	for (unsigned i = scale; i > 0; i--) {
		p[i - 1] = (char)('0' + fp % 10);
		fp /= 10;
	}
	return (size_t)(p + scale - buf);
}

/*
 * 128-bit decimals.  Up to 38 digits, so the magnitude stays below 2^127
 * and accumulates in a core_u128 without overflow.  Formatting splits it
 * at 10^19 so that all but one division are 64-bit ones.
 */
int
core_parse_decimal128(const char *s, size_t len, uint8_t precision,
    uint8_t scale, core_i128 *out)
{
	const char *p = s, *end, *ip, *fp = NULL;
	size_t nint, nfrac = 0;
	core_u128 v = 0;
	bool neg = false;

	if (len == 0)
		return -1;
	end = s + len;
	if (precision > 38 || scale > precision)
		return -1;
	if (p < end && (*p == '-' || *p == '+')) {
		neg = *p == '-';
		p++;
	}
	ip = p;
	while (p < end && is_digit(*p))
		p++;
	nint = (size_t)(p - ip);
	if (p < end && *p == '.') {
		fp = ++p;
		while (p < end && is_digit(*p))
			p++;
		nfrac = (size_t)(p - fp);
	}
	if (p != end || nint + nfrac == 0)
		return -1;
	while (nint > 0 && *ip == '0') {
		ip++;
		nint--;
	}
	if (nint > (size_t)(precision - scale) || nfrac > scale)
		return -1;
	for (size_t i = 0; i < nint; i++)
		v = v * 10 + digit_of(ip[i]);
	for (size_t i = 0; i < nfrac; i++)
		v = v * 10 + digit_of(fp[i]);
	for (size_t i = nfrac; i < scale; i++)
		v *= 10;
	*out = neg ? -(core_i128)v : (core_i128)v;
	return 0;
}

/* Exactly n digits of v (v < 10^n), zero padded, at p. */
static void
put_digits(char *p, uint64_t v, unsigned n)
{
	while (n > 0) {
		p[--n] = (char)('0' + v % 10);
		v /= 10;
	}
}

/* Decimal digits of v into buf; returns their count (1..39). */
static size_t
u128_to_dec(core_u128 v, char *buf)
{
	const uint64_t e19 = core_pow10_u64[19];
	uint64_t part[3];
	size_t n;
	int k = 0;

	while (v >= e19) {
		part[k++] = (uint64_t)(v % e19);
		v /= e19;
	}
	n = u64_to_dec((uint64_t)v, buf);
	while (k > 0) {
		put_digits(buf + n, part[--k], 19);
		n += 19;
	}
	return n;
}

size_t
core_format_decimal128(core_i128 v, uint8_t scale, char *buf)
{
	char digits[40], *p = buf;
	core_u128 mag;
	size_t nd;

	assert(scale <= 38);
	if (scale > 38)
		scale = 38;
	if (v < 0) {
		*p++ = '-';
		mag = 0 - (core_u128)v;
	} else {
		mag = (core_u128)v;
	}
	nd = u128_to_dec(mag, digits);
	if (scale == 0) {
		memcpy(p, digits, nd);
		return (size_t)(p - buf) + nd;
	}
	/* At least one integer digit: "0.5", as for DECIMAL. */
	if (nd <= scale) {
		*p++ = '0';
		*p++ = '.';
		memset(p, '0', scale - nd);
		p += scale - nd;
		memcpy(p, digits, nd);
		return (size_t)(p + nd - buf);
	}
	memcpy(p, digits, nd - scale);
	p += nd - scale;
	*p++ = '.';
	memcpy(p, digits + nd - scale, scale);
	return (size_t)(p + scale - buf);
}

/* ---- float64 ---- */

/* Longest significant-digit string handed to strtod: correct rounding of
 * a double needs at most 767 significant digits, and a sticky nonzero
 * digit after the cut keeps the text on the same side of every halfway
 * point between two doubles. */
#define FLOAT_MAX_DIGITS 800

/* digits (nd of them, no leading zero) times 10^e10, correctly rounded.
 * Sign-less; the caller negates. */
static double
digits_to_double(const char *digits, size_t nd, int64_t e10)
{
	char buf[FLOAT_MAX_DIGITS + 32];
	uint64_t mant = 0;
	int n;

	if (nd <= 19 && e10 >= -22 && e10 <= 22) {
		for (size_t i = 0; i < nd; i++)
			mant = mant * 10 + digit_of(digits[i]);
		if (mant <= (UINT64_C(1) << 53))
			return e10 < 0 ? (double)mant / pow10_dbl[-e10] :
			    (double)mant * pow10_dbl[e10];
	}
	assert(nd <= FLOAT_MAX_DIGITS + 1);
	/* With at most 801 digits, 10^-400000 is far below the smallest
	 * subnormal and 10^400000 far above DBL_MAX: clamping changes
	 * nothing about the result. */
	if (e10 < -400000)
		e10 = -400000;
	if (e10 > 400000)
		e10 = 400000;
	memcpy(buf, digits, nd);
	n = snprintf(buf + nd, sizeof(buf) - nd, "e%d", (int)e10);
	assert(n > 0 && (size_t)n < sizeof(buf) - nd);
	(void)n;
	return strtod(buf, NULL);
}

static int
parse_float_special(const char *p, size_t n, bool neg, double *out)
{
	char low[8];

	if (n != 3 && n != 8)
		return -1;
	for (size_t i = 0; i < n; i++)
		low[i] = (char)(p[i] | 0x20);
	if (n == 3 && memcmp(low, "nan", 3) == 0) {
		*out = NAN;
		return 0;
	}
	if ((n == 3 && memcmp(low, "inf", 3) == 0) ||
	    (n == 8 && memcmp(low, "infinity", 8) == 0)) {
		*out = neg ? -INFINITY : INFINITY;
		return 0;
	}
	return -1;
}

int
core_parse_float64(const char *s, size_t len, double *out)
{
	const char *p = s, *end, *mstart, *mend;
	uint64_t mant = 0;
	int64_t e10 = 0, exp = 0;
	unsigned nsig = 0, ndig = 0;
	bool neg = false, lost = false;
	double v;

	/* An empty string may come as NULL, and NULL + 0 is undefined. */
	if (len == 0)
		return -1;
	end = s + len;

	if (p < end && (*p == '-' || *p == '+')) {
		neg = *p == '-';
		p++;
	}
	if (p == end)
		return -1;
	if (!is_digit(*p) && *p != '.')
		return parse_float_special(p, (size_t)(end - p), neg, out);

	/* Mantissa: keep the first 19 significant digits in mant, value =
	 * mant * 10^e10 (+ what was lost). */
	mstart = p;
	for (; p < end && is_digit(*p); p++, ndig++) {
		unsigned d = digit_of(*p);

		if (mant == 0 && d == 0)
			continue;
		if (nsig < 19) {
			mant = mant * 10 + d;
			nsig++;
		} else {
			e10++;
			lost |= d != 0;
		}
	}
	if (p < end && *p == '.') {
		for (p++; p < end && is_digit(*p); p++, ndig++) {
			unsigned d = digit_of(*p);

			if (mant == 0 && d == 0) {
				e10--;
			} else if (nsig < 19) {
				mant = mant * 10 + d;
				nsig++;
				e10--;
			} else {
				lost |= d != 0;
			}
		}
	}
	mend = p;
	if (ndig == 0)
		return -1;
	if (p < end && (*p | 0x20) == 'e') {
		bool eneg = false;
		const char *es;

		p++;
		if (p < end && (*p == '-' || *p == '+')) {
			eneg = *p == '-';
			p++;
		}
		es = p;
		for (; p < end && is_digit(*p); p++) {
			if (exp < 100000000)
				exp = exp * 10 + digit_of(*p);
		}
		if (p == es)
			return -1;
		if (eneg)
			exp = -exp;
	}
	if (p != end)
		return -1;
	e10 += exp;

	if (mant == 0) {
		v = 0.0;
	} else if (!lost && mant <= (UINT64_C(1) << 53) && e10 >= -22 &&
	    e10 <= 22) {
		v = e10 < 0 ? (double)mant / pow10_dbl[-e10] :
		    (double)mant * pow10_dbl[e10];
	} else {
		/* Slow path: collect the significant digits again, as many
		 * as correct rounding can need. */
		char digits[FLOAT_MAX_DIGITS + 1];
		size_t nd = 0;
		bool started = false, frac = false, sticky = false;
		int64_t e = exp;

		for (const char *q = mstart; q < mend; q++) {
			if (*q == '.') {
				frac = true;
				continue;
			}
			if (!started && *q == '0') {
				e -= frac;
				continue;
			}
			started = true;
			if (nd < FLOAT_MAX_DIGITS) {
				digits[nd++] = *q;
				e -= frac;
			} else {
				e += !frac;
				sticky |= *q != '0';
			}
		}
		if (sticky) {
			digits[nd++] = '1';
			e--;
		}
		v = digits_to_double(digits, nd, e);
		/* A finite text that overflows is not a value we can hold;
		 * saying "inf" for it would invent data. */
		if (isinf(v))
			return -1;
	}
	*out = neg ? -v : v;
	return 0;
}

/*
 * Shortest digits of a > 0 (finite): fills digits (no leading or trailing
 * zero) and returns their count; *point is the decimal exponent n with
 * a == 0.DIGITS * 10^n.
 */
static size_t
shortest_digits(double a, char *digits, int *point)
{
	char tmp[40];
	size_t nd;
	int e = 0;

	/* Integers below 2^53: every shorter decimal is at least 1 away,
	 * more than half an ulp, so the exact digits are the shortest. */
	if (a < 9007199254740992.0 && a == (double)(uint64_t)a) {
		uint64_t u = (uint64_t)a;

		nd = u64_to_dec(u, digits);
		*point = (int)nd;
		while (digits[nd - 1] == '0')
			nd--;
		return nd;
	}
	/* A short exact decimal: the first k for which m = round(a * 10^k)
	 * gives m / 10^k == a.  m and 10^k are exact doubles, so the one
	 * rounding of the division is what parsing "m e-k" would give. */
	for (int k = 1; k <= 22; k++) {
		double x = a * pow10_dbl[k], m;

		if (x >= 9007199254740992.0)
			break;
		m = nearbyint(x);
		if (m != 0 && m / pow10_dbl[k] == a) {
			uint64_t u = (uint64_t)m;

			nd = u64_to_dec(u, digits);
			*point = (int)nd - k;
			while (digits[nd - 1] == '0')
				nd--;
			return nd;
		}
	}
	/* General case.  If the shortest form has at most 15 digits, the
	 * 15-digit rounding is that form padded with zeros (a 15-digit grid
	 * is coarser than the double grid of normal numbers); 17 always
	 * works.  Subnormals have fewer bits, so they search from 1. */
	for (int prec = a < DBL_MIN ? 1 : 15; prec <= 17; prec++) {
		const char *q;

		snprintf(tmp, sizeof(tmp), "%.*e", prec - 1, a);
		nd = 0;
		/* Skip the decimal point whatever the locale spells it. */
		for (q = tmp; *q != 'e'; q++) {
			if (is_digit(*q))
				digits[nd++] = *q;
		}
		e = atoi(q + 1);
		while (nd > 1 && digits[nd - 1] == '0')
			nd--;
		if (prec == 17 ||
		    digits_to_double(digits, nd, (int64_t)e + 1 - (int)nd) == a)
			break;
	}
	*point = e + 1;
	return nd;
}

size_t
core_format_float64(double v, char *buf)
{
	char digits[24], *p = buf;
	size_t nd;
	int n;

	if (isnan(v)) {
		memcpy(buf, "nan", 3);
		return 3;
	}
	if (signbit(v))
		*p++ = '-';
	if (isinf(v)) {
		memcpy(p, "inf", 3);
		return (size_t)(p + 3 - buf);
	}
	if (v == 0) {
		*p = '0';
		return (size_t)(p + 1 - buf);
	}
	nd = shortest_digits(fabs(v), digits, &n);
	/* Layout of ECMAScript Number::toString: plain notation for
	 * 1e-7 < |v| < 1e21, otherwise d.ddde+-x. */
	if ((int)nd <= n && n <= 21) {
		memcpy(p, digits, nd);
		memset(p + nd, '0', (size_t)n - nd);
		p += n;
	} else if (0 < n && n <= 21) {
		memcpy(p, digits, (size_t)n);
		p += n;
		*p++ = '.';
		memcpy(p, digits + n, nd - (size_t)n);
		p += nd - (size_t)n;
	} else if (-6 < n && n <= 0) {
		*p++ = '0';
		*p++ = '.';
		memset(p, '0', (size_t)-n);
		p += -n;
		memcpy(p, digits, nd);
		p += nd;
	} else {
		int x = n - 1;

		*p++ = digits[0];
		if (nd > 1) {
			*p++ = '.';
			memcpy(p, digits + 1, nd - 1);
			p += nd - 1;
		}
		*p++ = 'e';
		*p++ = x < 0 ? '-' : '+';
		p += u64_to_dec((uint64_t)(x < 0 ? -x : x), p);
	}
	return (size_t)(p - buf);
}

/* ---- date ---- */

int32_t
core_days_from_civil(int y, unsigned m, unsigned d)
{
	int64_t yy = (int64_t)y - (m <= 2);
	int64_t era = (yy >= 0 ? yy : yy - 399) / 400;
	unsigned yoe = (unsigned)(yy - era * 400);
	unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;

	return (int32_t)(era * 146097 + (int64_t)doe - 719468);
}

/* 64-bit days so that any timestamp's day number is in range. */
static void
civil_from_days64(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
	int64_t era;
	unsigned doe, yoe, doy, mp;

	z += 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = (unsigned)(z - era * 146097);
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*d = doy - (153 * mp + 2) / 5 + 1;
	*m = mp < 10 ? mp + 3 : mp - 9;
	*y = (int64_t)yoe + era * 400 + (*m <= 2);
}

void
core_civil_from_days(int32_t days, int *y, unsigned *m, unsigned *d)
{
	int64_t yy;

	civil_from_days64(days, &yy, m, d);
	*y = (int)yy;
}

static inline unsigned
days_in_month(unsigned y, unsigned m)
{
	static const uint8_t dim[13] = {
		0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31
	};
	bool leap = (y % 4 == 0) && (y % 100 != 0 || y % 400 == 0);

	return dim[m] + (m == 2 && leap);
}

/* "YYYY-MM-DD" at s (10 bytes available); days since the epoch. */
static inline int
parse_ymd(const char *s, int32_t *out)
{
	unsigned y1 = two_digits(s), y2 = two_digits(s + 2);
	unsigned m = two_digits(s + 5), d = two_digits(s + 8), y;

	if (y1 > 99 || y2 > 99 || s[4] != '-' || s[7] != '-' || m - 1 > 11 ||
	    d == 0)
		return -1;
	y = y1 * 100 + y2;
	if (y == 0 || d > days_in_month(y, m))
		return -1;
	*out = core_days_from_civil((int)y, m, d);
	return 0;
}

int
core_parse_date(const char *s, size_t len, int32_t *out)
{
	if (len != 10)
		return -1;
	return parse_ymd(s, out);
}

/* A run of 1..max decimal digits at *p (before end), as its value. */
static int
digit_run(const char **p, const char *end, size_t max, unsigned *out)
{
	const char *q = *p;
	unsigned v = 0;

	while (q < end && (unsigned)(*q - '0') <= 9 && (size_t)(q - *p) < max)
		v = v * 10 + (unsigned)(*q++ - '0');
	if (q == *p || (q < end && (unsigned)(*q - '0') <= 9))
		return -1;
	*p = q;
	*out = v;
	return 0;
}

int
core_parse_date_sql(const char *s, size_t len, int32_t *out)
{
	const char *p = s, *end;
	unsigned y, m, d;
	char sep;

	if (len == 0)
		return -1;
	if (core_parse_date(s, len, out) == 0)
		return 0;
	end = s + len;
	/* Leading zeros of the year are allowed (DuckDB reads 01995). */
	while (end - p > 4 && *p == '0' && (unsigned)(p[1] - '0') <= 9)
		p++;
	if (digit_run(&p, end, 4, &y) != 0 || p == end)
		return -1;
	sep = *p++;
	if (sep != '-' && sep != '/' && sep != ' ')
		return -1;
	if (digit_run(&p, end, 2, &m) != 0 || p == end || *p++ != sep ||
	    digit_run(&p, end, 2, &d) != 0 || p != end)
		return -1;
	if (y == 0 || m - 1 > 11 || d == 0 || d > days_in_month(y, m))
		return -1;
	*out = core_days_from_civil((int)y, m, d);
	return 0;
}

/* Writes the date of day number z; years outside 0001-9999 (no parser
 * produces them) in ISO 8601 expanded form, "+10000-01-01". */
static size_t
format_days(int64_t z, char *buf)
{
	int64_t y;
	unsigned m, d;
	char *p = buf;

	civil_from_days64(z, &y, &m, &d);
	if (y >= 1 && y <= 9999) {
		put2(p, (unsigned)(y / 100));
		put2(p + 2, (unsigned)(y % 100));
		p += 4;
	} else {
		uint64_t ay = (uint64_t)(y < 0 ? -y : y);
		char tmp[24];
		size_t n = u64_to_dec(ay, tmp);

		*p++ = y < 0 ? '-' : '+';
		for (; n < 4; n++)
			*p++ = '0';
		n = u64_to_dec(ay, p);
		p += n;
	}
	*p = '-';
	put2(p + 1, m);
	p[3] = '-';
	put2(p + 4, d);
	return (size_t)(p + 6 - buf);
}

size_t
core_format_date(int32_t days, char *buf)
{
	return format_days(days, buf);
}

/* ---- timestamp ---- */

int
core_parse_timestamp(const char *s, size_t len, int64_t *out)
{
	static const int64_t min = (int64_t)DAYS_MIN * USEC_PER_DAY;
	static const int64_t max = ((int64_t)DAYS_MAX + 1) * USEC_PER_DAY - 1;
	const char *p, *end = len > 0 ? s + len : s;
	unsigned hh, mi, ss;
	int64_t frac = 0, off = 0, t;
	int32_t days;

	if (len < 10 || parse_ymd(s, &days) != 0)
		return -1;
	if (len == 10) {
		*out = (int64_t)days * USEC_PER_DAY;
		return 0;
	}
	if (len < 19 || (s[10] != ' ' && (s[10] | 0x20) != 't') ||
	    s[13] != ':' || s[16] != ':')
		return -1;
	hh = two_digits(s + 11);
	mi = two_digits(s + 14);
	ss = two_digits(s + 17);
	if (hh > 23 || mi > 59 || ss > 59)
		return -1;
	p = s + 19;
	if (p < end && *p == '.') {
		const char *f = ++p;
		int nf;

		while (p < end && is_digit(*p))
			p++;
		nf = (int)(p - f);
		if (nf == 0 || nf > 6)
			return -1;
		for (int i = 0; i < nf; i++)
			frac = frac * 10 + digit_of(f[i]);
		frac *= (int64_t)core_pow10_u64[6 - nf];
	}
	if (p < end) {
		if ((*p | 0x20) == 'z') {
			p++;
		} else if (*p == '+' || *p == '-') {
			unsigned oh, om;

			if (end - p != 6 || p[3] != ':')
				return -1;
			oh = two_digits(p + 1);
			om = two_digits(p + 4);
			if (oh > 23 || om > 59)
				return -1;
			off = (int64_t)(oh * 3600 + om * 60) * USEC_PER_SEC;
			if (*p == '-')
				off = -off;
			p += 6;
		}
		if (p != end)
			return -1;
	}
	t = (int64_t)days * USEC_PER_DAY +
	    (int64_t)(hh * 3600 + mi * 60 + ss) * USEC_PER_SEC + frac - off;
	/* An offset can move the instant out of 0001..9999; keep every
	 * accepted value printable in the form we accept. */
	if (t < min || t > max)
		return -1;
	*out = t;
	return 0;
}

size_t
core_format_clock(uint64_t us, char *buf)
{
	unsigned secs = (unsigned)(us / USEC_PER_SEC);
	unsigned frac = (unsigned)(us % USEC_PER_SEC);
	char *p = buf;

	p[0] = ' ';
	put2(p + 1, secs / 3600);
	p[3] = ':';
	put2(p + 4, secs / 60 % 60);
	p[6] = ':';
	put2(p + 7, secs % 60);
	p += 9;
	if (frac != 0) {
		p[0] = '.';
		p[1] = (char)('0' + frac / 100000);
		put2(p + 2, frac / 1000 % 100);
		put2(p + 4, frac / 10 % 100);
		p[6] = (char)('0' + frac % 10);
		p += 7;
	}
	return (size_t)(p - buf);
}

size_t
core_format_timestamp(int64_t micros, char *buf)
{
	int64_t days = micros / USEC_PER_DAY, rem = micros % USEC_PER_DAY;
	size_t n;

	if (rem < 0) {
		rem += USEC_PER_DAY;
		days--;
	}
	n = format_days(days, buf);
	return n + core_format_clock((uint64_t)rem, buf + n);
}

/* ---- UTF-8 ---- */

size_t
core_utf8_valid_prefix(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	const unsigned char *end = p + len;

	while (p < end) {
		unsigned c = *p, lo = 0x80, hi = 0xBF;
		size_t n;

		/* Text is mostly ASCII: test eight bytes at once. */
		if (c < 0x80) {
			while (end - p >= 8) {
				uint64_t w;

				memcpy(&w, p, 8);
				if (w & UINT64_C(0x8080808080808080))
					break;
				p += 8;
			}
			while (p < end && *p < 0x80)
				p++;
			continue;
		}
		/* Lead byte: length and the range of the second byte that
		 * excludes overlongs (E0, F0), surrogates (ED) and code
		 * points above U+10FFFF (F4). */
		if (c >= 0xC2 && c <= 0xDF) {
			n = 1;
		} else if (c >= 0xE0 && c <= 0xEF) {
			n = 2;
			if (c == 0xE0)
				lo = 0xA0;
			else if (c == 0xED)
				hi = 0x9F;
		} else if (c >= 0xF0 && c <= 0xF4) {
			n = 3;
			if (c == 0xF0)
				lo = 0x90;
			else if (c == 0xF4)
				hi = 0x8F;
		} else {
			break;
		}
		if ((size_t)(end - p) <= n || p[1] < lo || p[1] > hi)
			break;
		if (n >= 2 && (p[2] & 0xC0) != 0x80)
			break;
		if (n == 3 && (p[3] & 0xC0) != 0x80)
			break;
		p += n + 1;
	}
	return (size_t)(p - (const unsigned char *)s);
}
