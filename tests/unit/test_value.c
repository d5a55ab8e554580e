/*
 * test_value.c - unit tests of core_value (text <-> value conversions).
 *
 * Every parser and formatter is checked against an obviously correct
 * reference: snprintf/strtod for numbers, a naive day-by-day calendar
 * walk over every date 0001-01-01..9999-12-31, gmtime_r for timestamps,
 * and a textbook code point decoder for UTF-8.  Random inputs come from
 * unit_rand() so failures reproduce.
 */
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <time.h>

#include "core_value.h"
#include "unit.h"

#define S(lit) (lit), (sizeof(lit) - 1)

static const uint64_t p10[19] = {
	1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull,
	10000000ull, 100000000ull, 1000000000ull, 10000000000ull,
	100000000000ull, 1000000000000ull, 10000000000000ull,
	100000000000000ull, 1000000000000000ull, 10000000000000000ull,
	100000000000000000ull, 1000000000000000000ull,
};

/* Formats with f into a NUL-terminated static string (for CHECK_EQ_STR). */
static char txt[CORE_VALUE_TEXT_MAX + 1];
static const char *
ftxt(size_t n)
{
	if (n > CORE_VALUE_TEXT_MAX)
		n = CORE_VALUE_TEXT_MAX;
	txt[n] = '\0';
	return txt;
}

static int
parse_i64(const char *s, int64_t *v)
{
	return core_parse_int64(s, strlen(s), v);
}

static void
test_bool(void)
{
	uint8_t v = 9;

	CHECK(core_parse_bool(S("true"), &v) == 0 && v == 1);
	CHECK(core_parse_bool(S("TRUE"), &v) == 0 && v == 1);
	CHECK(core_parse_bool(S("tRuE"), &v) == 0 && v == 1);
	CHECK(core_parse_bool(S("false"), &v) == 0 && v == 0);
	CHECK(core_parse_bool(S("False"), &v) == 0 && v == 0);
	/* Only true/false: "1"/"0" must stay integers for inference. */
	CHECK(core_parse_bool(S("1"), &v) == -1);
	CHECK(core_parse_bool(S("0"), &v) == -1);
	CHECK(core_parse_bool(S("t"), &v) == -1);
	CHECK(core_parse_bool(S("yes"), &v) == -1);
	CHECK(core_parse_bool(S(""), &v) == -1);
	CHECK(core_parse_bool(S("true "), &v) == -1);
	CHECK(core_parse_bool(S("truE\x80"), &v) == -1);
	CHECK(core_parse_bool(S("TRU\x05"), &v) == -1);
	CHECK_EQ_STR(ftxt(core_format_bool(1, txt)), "true");
	CHECK_EQ_STR(ftxt(core_format_bool(0, txt)), "false");
}

static int64_t
rand_i64(void)
{
	uint64_t r = unit_rand();
	int shift = (int)(unit_rand() % 64);

	return (int64_t)(r >> shift) * ((unit_rand() & 1) ? -1 : 1);
}

static void
test_int_roundtrip(void)
{
	char ref[32];

	for (int i = 0; i < 200000; i++) {
		int64_t v = rand_i64(), back = 0;
		int32_t b32 = 0;
		size_t n;

		if (i == 0)
			v = INT64_MIN;
		if (i == 1)
			v = INT64_MAX;
		n = core_format_int64(v, txt);
		snprintf(ref, sizeof(ref), "%" PRId64, v);
		CHECK_EQ_STR(ftxt(n), ref);
		CHECK(core_parse_int64(txt, n, &back) == 0);
		CHECK(back == v);
		if (v >= INT32_MIN && v <= INT32_MAX) {
			CHECK(core_parse_int32(txt, n, &b32) == 0);
			CHECK_EQ_INT(b32, v);
		} else {
			CHECK(core_parse_int32(txt, n, &b32) == -1);
		}
	}
}

static void
test_int_cases(void)
{
	int64_t v = 0;
	int32_t w = 0;
	static const char *const bad[] = {
		"", "-", "+", "--1", "+-1", "1a", "a1", " 1", "1 ", "0x10",
		"1.0", "1e3", "9223372036854775808", "-9223372036854775809",
		"18446744073709551616", "99999999999999999999",
		"12345678901234567890123", "1_000", "\xd9\xa1",
	};

	CHECK(parse_i64("9223372036854775807", &v) == 0 && v == INT64_MAX);
	CHECK(parse_i64("-9223372036854775808", &v) == 0 && v == INT64_MIN);
	CHECK(parse_i64("+42", &v) == 0 && v == 42);
	CHECK(parse_i64("-0", &v) == 0 && v == 0);
	CHECK(parse_i64("007", &v) == 0 && v == 7);
	CHECK(parse_i64("000000000000000000000000000042", &v) == 0 &&
	    v == 42);
	CHECK(parse_i64("-00000000000000000009223372036854775808", &v) == 0 &&
	    v == INT64_MIN);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (parse_i64(bad[i], &v) != -1) {
			printf("# accepted int64 \"%s\"\n", bad[i]);
			CHECK(0);
		}
	}
	CHECK(core_parse_int32(S("2147483647"), &w) == 0 && w == INT32_MAX);
	CHECK(core_parse_int32(S("-2147483648"), &w) == 0 && w == INT32_MIN);
	CHECK(core_parse_int32(S("2147483648"), &w) == -1);
	CHECK(core_parse_int32(S("-2147483649"), &w) == -1);
	CHECK(core_parse_int32(S("4294967296"), &w) == -1);
	CHECK_EQ_STR(ftxt(core_format_int64(0, txt)), "0");
	CHECK_EQ_STR(ftxt(core_format_int64(INT64_MIN, txt)),
	    "-9223372036854775808");
}

/* The obvious decimal formatter: integer part and zero-padded fraction. */
static void
ref_decimal(int64_t v, unsigned scale, char *buf, size_t cap)
{
	uint64_t mag = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;

	if (scale == 0)
		snprintf(buf, cap, "%s%" PRIu64, v < 0 ? "-" : "", mag);
	else
		snprintf(buf, cap, "%s%" PRIu64 ".%0*" PRIu64, v < 0 ? "-" : "",
		    mag / p10[scale], (int)scale, mag % p10[scale]);
}

static unsigned
ndigits(uint64_t v)
{
	unsigned n = 0;

	while (v) {
		n++;
		v /= 10;
	}
	return n;
}

static void
test_decimal_roundtrip(void)
{
	char ref[48];

	for (int i = 0; i < 200000; i++) {
		unsigned scale = (unsigned)(unit_rand() % 19);
		unsigned nd = (unsigned)(unit_rand() % 19);
		int64_t v = (int64_t)(unit_rand() % p10[nd]), back = 1;
		unsigned intd, pmin;
		size_t n;

		if (unit_rand() & 1)
			v = -v;
		n = core_format_decimal(v, (uint8_t)scale, txt);
		ref_decimal(v, scale, ref, sizeof(ref));
		CHECK_EQ_STR(ftxt(n), ref);
		CHECK(core_parse_decimal(txt, n, 18, (uint8_t)scale, &back)
		    == 0);
		CHECK(back == v);
		/* The tightest precision accepts it, one less does not. */
		intd = ndigits((v < 0 ? (uint64_t)-v : (uint64_t)v) /
		    p10[scale]);
		pmin = intd + scale;
		if (pmin >= 1) {
			CHECK(core_parse_decimal(txt, n, (uint8_t)pmin,
			    (uint8_t)scale, &back) == 0 && back == v);
		}
		if (intd > 0) {
			CHECK(core_parse_decimal(txt, n, (uint8_t)(pmin - 1),
			    (uint8_t)scale, &back) == -1);
		}
		/* One fraction digit more than the scale is refused. */
		if (scale < 18) {
			char more[64];

			memcpy(more, txt, n);
			if (scale == 0)
				memcpy(more + n++, ".", 1);
			more[n++] = '1';
			CHECK(core_parse_decimal(more, n, 18, (uint8_t)scale,
			    &back) == -1);
		}
	}
}

/*
 * 128-bit decimals against digit strings: a value is made from its
 * digits with schoolbook arithmetic on four 32-bit limbs (no 128-bit
 * integer involved), and its canonical text is the same digits laid
 * out by hand.
 */
static core_i128
ref_from_digits(const char *d, size_t n, bool neg)
{
	uint32_t limb[4] = { 0, 0, 0, 0 };
	core_u128 u = 0;
	size_t i;
	int k;

	for (i = 0; i < n; i++) {
		uint64_t carry = (uint64_t)(d[i] - '0');

		for (k = 0; k < 4; k++) {
			uint64_t x = (uint64_t)limb[k] * 10 + carry;

			limb[k] = (uint32_t)x;
			carry = x >> 32;
		}
	}
	for (k = 3; k >= 0; k--)
		u = u << 32 | limb[k];
	return neg ? -(core_i128)u : (core_i128)u;
}

/* Random digits: n of them, the first nonzero when lead is set. */
static void
rand_digits(char *d, size_t n, bool lead)
{
	for (size_t i = 0; i < n; i++)
		d[i] = (char)('0' + unit_rand() % 10);
	if (lead && n > 0 && d[0] == '0')
		d[0] = (char)('1' + unit_rand() % 9);
}

static void
test_decimal128_roundtrip(void)
{
	char ip[40], fp[40], canon[96], alt[128], all[80];
	int fails = 0;

	for (int i = 0; i < 200000; i++) {
		unsigned prec = 1 + (unsigned)(unit_rand() % 38);
		unsigned scale = (unsigned)(unit_rand() % (prec + 1));
		unsigned ni = (unsigned)(unit_rand() % (prec - scale + 1));
		bool neg = unit_rand() & 1, zero;
		core_i128 want, got = 1;
		size_t n, nc = 0, na;

		/* Mostly full-width values: the edges of the range. */
		if (unit_rand() % 4 == 0)
			ni = prec - scale;
		rand_digits(ip, ni, true);
		rand_digits(fp, scale, false);
		if (unit_rand() % 16 == 0) {
			memset(ip, '9', ni);
			memset(fp, '9', scale);
		}
		memcpy(all, ip, ni);
		memcpy(all + ni, fp, scale);
		want = ref_from_digits(all, ni + scale, neg);
		zero = want == 0;
		if (neg && !zero)
			canon[nc++] = '-';
		if (ni == 0)
			canon[nc++] = '0';
		memcpy(canon + nc, ip, ni);
		nc += ni;
		if (scale > 0) {
			canon[nc++] = '.';
			memcpy(canon + nc, fp, scale);
			nc += scale;
		}
		canon[nc] = '\0';
		n = core_format_decimal128(want, (uint8_t)scale, txt);
		fails += strcmp(ftxt(n), canon) != 0;
		fails += core_parse_decimal128(canon, nc, (uint8_t)prec,
		    (uint8_t)scale, &got) != 0 || got != want;
		/* Sign, leading zeros and a shorter fraction read the same. */
		na = (size_t)snprintf(alt, sizeof(alt), "%s000%.*s.%.*s",
		    neg ? "-" : "+", (int)ni, ip, (int)scale, fp);
		while (na > 0 && alt[na - 1] == '0')
			na--;
		got = 1;
		fails += core_parse_decimal128(alt, na, (uint8_t)prec,
		    (uint8_t)scale, &got) != 0 || got != want;
		/* One digit too many on either side is refused. */
		if (ni == prec - scale) {
			na = (size_t)snprintf(alt, sizeof(alt), "1%s", canon +
			    (neg && !zero));
			fails += core_parse_decimal128(alt, na, (uint8_t)prec,
			    (uint8_t)scale, &got) != -1;
		}
		na = (size_t)snprintf(alt, sizeof(alt), "%s%s5", canon,
		    scale == 0 ? "." : "");
		fails += core_parse_decimal128(alt, na, (uint8_t)prec,
		    (uint8_t)scale, &got) != -1;
		/* Up to 18 digits the int64 decimal agrees. */
		if (prec <= 18) {
			int64_t v64 = 1;

			fails += core_parse_decimal(canon, nc, (uint8_t)prec,
			    (uint8_t)scale, &v64) != 0 || v64 != want;
			n = core_format_decimal(v64, (uint8_t)scale, txt);
			fails += strcmp(ftxt(n), canon) != 0;
		}
	}
	CHECK_EQ_INT(fails, 0);
}

static void
test_decimal128_cases(void)
{
	const char *nines = "99999999999999999999999999999999999999";
	char buf[64];
	core_i128 v, max = 0;

	for (int i = 0; i < 38; i++)
		max = max * 10 + 9;
	CHECK(core_parse_decimal128(nines, 38, 38, 0, &v) == 0 && v == max);
	CHECK_EQ_STR(ftxt(core_format_decimal128(max, 0, txt)), nines);
	CHECK(core_parse_decimal128(S("-99999999999999999999999999999999999999"),
	    38, 0, &v) == 0 && v == -max);
	snprintf(buf, sizeof(buf), "0.%s", nines);
	CHECK(core_parse_decimal128(buf, strlen(buf), 38, 38, &v) == 0 &&
	    v == max);
	CHECK_EQ_STR(ftxt(core_format_decimal128(-max, 38, txt)),
	    "-0.99999999999999999999999999999999999999");
	CHECK_EQ_STR(ftxt(core_format_decimal128(-max, 10, txt)),
	    "-9999999999999999999999999999.9999999999");
	/* 10^38 has 39 digits: out of range for every precision. */
	CHECK(core_parse_decimal128(S("100000000000000000000000000000000000000"),
	    38, 0, &v) == -1);
	CHECK(core_parse_decimal128(S("10000000000000000000000000000"), 38, 10,
	    &v) == -1);
	CHECK(core_parse_decimal128(S("1"), 39, 0, &v) == -1);
	CHECK(core_parse_decimal128(S("1"), 20, 21, &v) == -1);
	CHECK(core_parse_decimal128(S("1e5"), 38, 0, &v) == -1);
	CHECK(core_parse_decimal128(S(""), 38, 0, &v) == -1);
	CHECK(core_parse_decimal128(S("-"), 38, 0, &v) == -1);
	CHECK(core_parse_decimal128(S("."), 38, 2, &v) == -1);
	CHECK(core_parse_decimal128(S("1.2.3"), 38, 2, &v) == -1);
	CHECK(core_parse_decimal128(S(" 1"), 38, 2, &v) == -1);
	CHECK(core_parse_decimal128(S("-.5"), 38, 2, &v) == 0 && v == -50);
	CHECK(core_parse_decimal128(S("1."), 38, 2, &v) == 0 && v == 100);
	CHECK(core_parse_decimal128(S("-0.00"), 38, 2, &v) == 0 && v == 0);
	CHECK_EQ_STR(ftxt(core_format_decimal128(0, 4, txt)), "0.0000");
	CHECK_EQ_STR(ftxt(core_format_decimal128(-5, 3, txt)), "-0.005");
	CHECK_EQ_STR(ftxt(core_format_decimal128(
	    (core_i128)10000000000000000000ull * 10, 1, txt)),
	    "10000000000000000000.0");
	/* Beyond 38 digits (no parser makes them) still prints exactly. */
	v = (core_i128)(~(core_u128)0 >> 1);
	CHECK_EQ_STR(ftxt(core_format_decimal128(v, 0, txt)),
	    "170141183460469231731687303715884105727");
	CHECK_EQ_STR(ftxt(core_format_decimal128(-v - 1, 38, txt)),
	    "-1.70141183460469231731687303715884105728");
	CHECK(core_format_decimal128(-v - 1, 38, txt) <= CORE_VALUE_TEXT_MAX);
}

static void
test_decimal_cases(void)
{
	int64_t v = 0;
	static const char *const bad[] = {
		"", "-", "+", ".", "-.", "1.234", "1e5", "1E5", "1.2.3",
		"1,5", " 1", "1 ", "--1", "1-", "0x1", "inf", "nan", "1.2e1",
		"12345678901234567.00", "+.", "1..", "..1",
	};

	CHECK(core_parse_decimal(S("-0.05"), 15, 2, &v) == 0 && v == -5);
	CHECK_EQ_STR(ftxt(core_format_decimal(-5, 2, txt)), "-0.05");
	CHECK(core_parse_decimal(S("0.05"), 2, 2, &v) == 0 && v == 5);
	CHECK(core_parse_decimal(S("-0.00"), 2, 2, &v) == 0 && v == 0);
	CHECK(core_parse_decimal(S("1."), 15, 2, &v) == 0 && v == 100);
	CHECK(core_parse_decimal(S(".5"), 15, 2, &v) == 0 && v == 50);
	CHECK(core_parse_decimal(S("-.5"), 15, 2, &v) == 0 && v == -50);
	CHECK(core_parse_decimal(S("+1.5"), 15, 2, &v) == 0 && v == 150);
	CHECK(core_parse_decimal(S("24386.67"), 15, 2, &v) == 0 &&
	    v == 2438667);
	CHECK(core_parse_decimal(S("0000000000000000000000012.5"), 4, 1,
	    &v) == 0 && v == 125);
	CHECK(core_parse_decimal(S("999999999999999999"), 18, 0, &v) == 0 &&
	    v == 999999999999999999);
	CHECK(core_parse_decimal(S("-0.999999999999999999"), 18, 18, &v)
	    == 0 && v == -999999999999999999);
	CHECK(core_parse_decimal(S("1"), 18, 18, &v) == -1);
	CHECK(core_parse_decimal(S("0"), 18, 18, &v) == 0 && v == 0);
	CHECK(core_parse_decimal(S("123"), 4, 2, &v) == -1);
	CHECK(core_parse_decimal(S("12"), 4, 2, &v) == 0 && v == 1200);
	CHECK(core_parse_decimal(S("1.5"), 5, 0, &v) == -1);
	CHECK(core_parse_decimal(S("1"), 19, 0, &v) == -1);
	CHECK(core_parse_decimal(S("1"), 2, 3, &v) == -1);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (core_parse_decimal(bad[i], strlen(bad[i]), 18, 2, &v)
		    != -1) {
			printf("# accepted decimal \"%s\"\n", bad[i]);
			CHECK(0);
		}
	}
	CHECK_EQ_STR(ftxt(core_format_decimal(0, 3, txt)), "0.000");
	CHECK_EQ_STR(ftxt(core_format_decimal(7, 0, txt)), "7");
	CHECK_EQ_STR(ftxt(core_format_decimal(INT64_MIN, 2, txt)),
	    "-92233720368547758.08");
	CHECK_EQ_STR(ftxt(core_format_decimal(INT64_MAX, 18, txt)),
	    "9.223372036854775807");
	CHECK_EQ_STR(ftxt(core_format_decimal(-1, 18, txt)),
	    "-0.000000000000000001");
}

static bool
same_double(double a, double b)
{
	return memcmp(&a, &b, sizeof(a)) == 0;
}

/* True when v survives a trip through its correctly rounded text of
 * ndig significant digits. */
static bool
ref_roundtrips(double v, int ndig)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%.*e", ndig - 1, v);
	return strtod(buf, NULL) == v;
}

static int
count_sig_digits(const char *s)
{
	int n = 0, started = 0, trail = 0;

	for (; *s && *s != 'e'; s++) {
		if (*s < '0' || *s > '9')
			continue;
		if (*s != '0')
			started = 1;
		if (!started)
			continue;
		n++;
		trail = *s == '0' ? trail + 1 : 0;
	}
	return n - trail;
}

static int
parse_f(const char *s, double *v)
{
	return core_parse_float64(s, strlen(s), v);
}

static void
check_float_roundtrip(double v, int *longer)
{
	double back = 0;
	size_t n = core_format_float64(v, txt);

	CHECK(n <= CORE_VALUE_TEXT_MAX);
	ftxt(n);
	if (core_parse_float64(txt, n, &back) != 0 || !same_double(back, v)) {
		printf("# %.17g formatted as \"%s\" does not read back\n", v,
		    txt);
		CHECK(0);
	}
	/* The text is also what strtod reads, in the C locale. */
	CHECK(same_double(strtod(txt, NULL), v));
	/* Shortest: one digit less, correctly rounded, does not read back
	 * (the %.Ne search's answer). */
	if (v != 0 && isfinite(v) && count_sig_digits(txt) > 1 &&
	    ref_roundtrips(v, count_sig_digits(txt) - 1))
		(*longer)++;
}

static void
test_float_roundtrip(void)
{
	int longer = 0;

	/* Random bit patterns: every exponent, subnormals included. */
	for (int i = 0; i < 200000; i++) {
		uint64_t bits = unit_rand();
		double v;

		memcpy(&v, &bits, sizeof(v));
		if (isnan(v))
			continue;
		check_float_roundtrip(v, &longer);
	}
	/* Subnormals: fewer significant bits, so shorter texts. */
	for (int i = 0; i < 20000; i++) {
		uint64_t bits = unit_rand() >> (12 + unit_rand() % 52);
		double v;

		memcpy(&v, &bits, sizeof(v));
		check_float_roundtrip(v, &longer);
	}
	/* Short decimals, the usual CSV content: m / 10^k. */
	for (int i = 0; i < 200000; i++) {
		uint64_t m = unit_rand() % p10[1 + unit_rand() % 16];
		int k = (int)(unit_rand() % 19);
		char in[48];
		double v = 0;

		snprintf(in, sizeof(in), "%" PRIu64 "e-%d", m, k);
		CHECK(parse_f(in, &v) == 0);
		CHECK(same_double(v, strtod(in, NULL)));
		check_float_roundtrip(v, &longer);
		check_float_roundtrip(-v, &longer);
	}
	for (int i = 0; i < 100000; i++) {
		double v = (double)(int64_t)unit_rand() /
		    (double)(1 + unit_rand() % 1000000);

		check_float_roundtrip(v, &longer);
	}
	/* Longer than needed only in the rare asymmetric power-of-two
	 * cases. */
	if (longer > 0)
		printf("# %d values one digit longer than the %%.Ne search\n",
		    longer);
	CHECK(longer < 20);
}

static void
test_float_cases(void)
{
	static const struct {
		double v;
		const char *text;
	} fmt[] = {
		{0.1, "0.1"}, {0.3, "0.3"}, {1.0, "1"}, {100, "100"},
		{-2.5, "-2.5"}, {1e300, "1e+300"}, {5e-324, "5e-324"},
		{-0.0, "-0"}, {0.0, "0"}, {1e21, "1e+21"},
		{1e20, "100000000000000000000"}, {123.456, "123.456"},
		{1e-7, "1e-7"}, {1.5e-7, "1.5e-7"}, {0.000001, "0.000001"},
		{0.0000012, "0.0000012"},
		{DBL_MAX, "1.7976931348623157e+308"},
		{DBL_MIN, "2.2250738585072014e-308"},
		{1.0 / 3, "0.3333333333333333"},
		{2.0 / 3, "0.6666666666666666"},
		{9007199254740993.0, "9007199254740992"},
		{9007199254740994.0, "9007199254740994"},
		{18014398509481988.0, "18014398509481988"},
		{123456789012345680.0, "123456789012345680"},
		{0.1 + 0.2, "0.30000000000000004"},
		{5e-7, "5e-7"}, {-1e-300, "-1e-300"},
		{4.35, "4.35"}, {2.675, "2.675"}, {1e16, "10000000000000000"},
		{1.2345678901234567e-5, "0.000012345678901234568"},
	};
	double v = 0;

	for (size_t i = 0; i < sizeof(fmt) / sizeof(fmt[0]); i++)
		CHECK_EQ_STR(ftxt(core_format_float64(fmt[i].v, txt)),
		    fmt[i].text);
	CHECK_EQ_STR(ftxt(core_format_float64(NAN, txt)), "nan");
	CHECK_EQ_STR(ftxt(core_format_float64(-NAN, txt)), "nan");
	CHECK_EQ_STR(ftxt(core_format_float64(INFINITY, txt)), "inf");
	CHECK_EQ_STR(ftxt(core_format_float64(-INFINITY, txt)), "-inf");

	CHECK(parse_f("0.1", &v) == 0 && v == 0.1);
	CHECK(parse_f("1e300", &v) == 0 && v == 1e300);
	CHECK(parse_f("5e-324", &v) == 0 && v == 5e-324);
	CHECK(parse_f("2.4703282292062328e-324", &v) == 0 && v == 5e-324);
	CHECK(parse_f("2.4703282292062327e-324", &v) == 0 && v == 0);
	CHECK(parse_f("9007199254740993", &v) == 0 &&
	    v == 9007199254740992.0);
	CHECK(parse_f("9007199254740995", &v) == 0 &&
	    v == 9007199254740996.0);
	CHECK(parse_f("-0", &v) == 0 && same_double(v, -0.0));
	CHECK(parse_f("-0.0e10", &v) == 0 && same_double(v, -0.0));
	CHECK(parse_f("1e-400", &v) == 0 && same_double(v, 0.0));
	CHECK(parse_f("-1e-400", &v) == 0 && same_double(v, -0.0));
	CHECK(parse_f("0e999999999999", &v) == 0 && v == 0);
	CHECK(parse_f("1.5E+3", &v) == 0 && v == 1500);
	CHECK(parse_f(".5", &v) == 0 && v == 0.5);
	CHECK(parse_f("5.", &v) == 0 && v == 5);
	CHECK(parse_f("+.5e1", &v) == 0 && v == 5);
	CHECK(parse_f("1.7976931348623157e308", &v) == 0 && v == DBL_MAX);
	CHECK(parse_f("nan", &v) == 0 && isnan(v));
	CHECK(parse_f("NaN", &v) == 0 && isnan(v));
	CHECK(parse_f("-nan", &v) == 0 && isnan(v));
	CHECK(parse_f("inf", &v) == 0 && v == INFINITY);
	CHECK(parse_f("-Infinity", &v) == 0 && v == -INFINITY);
	CHECK(parse_f("+INF", &v) == 0 && v == INFINITY);
	{
		static const char *const bad[] = {
			"", "+", "-", ".", "e1", ".e1", "1e", "1e+", "1e-",
			"0x10", "0x1p3", " 1", "1 ", "1_000", "1,5", "infx",
			"in", "nan(1)", "infinit", "1e400", "-1e400",
			"1.8e308", "1..0", "1.0.0", "--1", "1e1.5", "++1",
			"1d5", "1f",
		};

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			if (parse_f(bad[i], &v) != -1) {
				printf("# accepted float \"%s\"\n", bad[i]);
				CHECK(0);
			}
		}
	}
}

/* Random decimal strings of every shape, compared with strtod. */
static void
test_float_parse_vs_strtod(void)
{
	char s[2200];

	for (int i = 0; i < 300000; i++) {
		size_t n = 0;
		int nint = (int)(unit_rand() % 24), nfrac;
		double want, got = 0;
		int rc;

		if (i % 1000 == 0)
			nint = (int)(unit_rand() % 1000);
		nfrac = (int)(unit_rand() % 24);
		if (unit_rand() % 3 == 0)
			s[n++] = (unit_rand() & 1) ? '-' : '+';
		for (int j = 0; j < nint; j++)
			s[n++] = (char)('0' + unit_rand() % 10);
		if (unit_rand() & 1 || nint == 0) {
			s[n++] = '.';
			for (int j = 0; j < nfrac; j++)
				s[n++] = (char)('0' + unit_rand() % 10);
			if (nint == 0 && nfrac == 0)
				s[n++] = '7';
		}
		if (unit_rand() & 1) {
			n += (size_t)snprintf(s + n, 16, "e%d",
			    (int)(unit_rand() % 800) - 400);
		}
		s[n] = '\0';
		want = strtod(s, NULL);
		rc = core_parse_float64(s, n, &got);
		if (isinf(want)) {
			CHECK(rc == -1);
		} else if (rc != 0 || !same_double(got, want)) {
			printf("# \"%.80s\": got %.17g want %.17g\n", s, got,
			    want);
			CHECK(0);
		}
	}
}

/* Exact midpoints between adjacent doubles, as long decimal text, with
 * and without a tiny excess far beyond the 800th digit. */
static void
test_float_halfway(void)
{
	char s[2400];

	for (int i = 0; i < 3000; i++) {
		uint64_t bits = unit_rand() & 0x7fefffffffffffffull;
		double a, b, got = 0;
		long double mid;
		int n;

		if (i % 3 == 0)	/* subnormal and small normal range */
			bits &= 0x001fffffffffffffull;
		memcpy(&a, &bits, sizeof(a));
		b = nextafter(a, INFINITY);
		mid = ((long double)a + (long double)b) / 2;
		/* glibc prints the exact expansion of a long double. */
		n = snprintf(s, sizeof(s) - 4, "%.1100Le", mid);
		if (n <= 0 || (size_t)n >= sizeof(s) - 4)
			continue;
		CHECK(core_parse_float64(s, (size_t)n, &got) == 0);
		CHECK(same_double(got, strtod(s, NULL)));
		/* Push it up by one unit in a far digit before 'e'. */
		{
			char *e = strchr(s, 'e');
			char tail[16];

			snprintf(tail, sizeof(tail), "%s", e);
			e[-1] = e[-1] == '9' ? '9' : (char)(e[-1] + 1);
			memcpy(e, tail, strlen(tail) + 1);
			CHECK(core_parse_float64(s, strlen(s), &got) == 0);
			CHECK(same_double(got, strtod(s, NULL)));
		}
	}
}

static bool
is_leap(int y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/* Every date 0001-01-01..9999-12-31, walked one day at a time. */
static void
test_date_exhaustive(void)
{
	static const unsigned dim[13] = {
		0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31
	};
	int32_t day = -719162;
	long bad = 0;
	char ref[32];

	for (int y = 1; y <= 9999; y++) {
		for (unsigned m = 1; m <= 12; m++) {
			unsigned nd = dim[m] + (m == 2 && is_leap(y));

			for (unsigned d = 1; d <= nd; d++, day++) {
				int yy;
				unsigned mm, dd;
				int32_t back = 0;
				size_t n;

				core_civil_from_days(day, &yy, &mm, &dd);
				n = core_format_date(day, txt);
				snprintf(ref, sizeof(ref), "%04d-%02u-%02u",
				    y, m, d);
				if (core_days_from_civil(y, m, d) != day ||
				    yy != y || mm != m || dd != d ||
				    n != 10 || memcmp(txt, ref, 10) != 0 ||
				    core_parse_date(ref, 10, &back) != 0 ||
				    back != day) {
					if (bad++ < 5)
						printf("# date %s (day %d)\n",
						    ref, (int)day);
				}
			}
		}
	}
	CHECK_EQ_INT(bad, 0);
	CHECK_EQ_INT(day - 1, 2932896);
	CHECK_EQ_INT(core_days_from_civil(1970, 1, 1), 0);
}

static void
test_date_cases(void)
{
	int32_t d = 0;
	static const char *const bad[] = {
		"", "2021-02-29", "2020-02-30", "1900-02-29", "0000-01-01",
		"2020-13-01", "2020-00-10", "2020-01-00", "2020-01-32",
		"2020-04-31", "2020-1-01", "2020-01-1", "2020/01/01",
		"10000-01-01", "20200101", "2020-01-01 ", " 2020-01-01",
		"2020-01-01T00:00:00", "+020-01-01", "2020-0a-01",
		"202a-01-01", "2020-01-\x31\x00",
	};

	CHECK(core_parse_date(S("2000-02-29"), &d) == 0 &&
	    d == core_days_from_civil(2000, 2, 29));
	CHECK(core_parse_date(S("1970-01-01"), &d) == 0 && d == 0);
	CHECK(core_parse_date(S("1969-12-31"), &d) == 0 && d == -1);
	CHECK(core_parse_date(S("0001-01-01"), &d) == 0 && d == -719162);
	CHECK(core_parse_date(S("9999-12-31"), &d) == 0 && d == 2932896);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (core_parse_date(bad[i], strlen(bad[i]), &d) != -1) {
			printf("# accepted date \"%s\"\n", bad[i]);
			CHECK(0);
		}
	}
	/* A NUL inside the text is not a digit. */
	CHECK(core_parse_date("2020-01-0\0", 10, &d) == -1);
	/* Out of range day numbers still format, in expanded form. */
	CHECK_EQ_STR(ftxt(core_format_date(-719163, txt)), "+0000-12-31");
	CHECK_EQ_STR(ftxt(core_format_date(2932897, txt)), "+10000-01-01");
	CHECK(core_format_date(INT32_MIN, txt) <= CORE_VALUE_TEXT_MAX);
	CHECK(core_format_date(INT32_MAX, txt) <= CORE_VALUE_TEXT_MAX);
	CHECK_EQ_STR(ftxt(core_format_date(INT32_MIN, txt)),
	    "-5877641-06-23");
}

/* core_parse_date_sql against a reference: every written form of random
 * valid and invalid dates, with one- or two-digit months and days, year
 * padding and each separator; accepted exactly when the parts make a
 * date and the form is one SQL's cast reads. */
static void
test_date_sql(void)
{
	static const char seps[] = "-/ .";
	int bad = 0;

	for (int i = 0; i < 200000; i++) {
		unsigned y = (unsigned)(unit_rand() % 10001);
		unsigned m = (unsigned)(unit_rand() % 14);
		unsigned d = (unsigned)(unit_rand() % 33);
		char s1 = seps[unit_rand() % 4], s2 = unit_rand() % 8 ?
		    s1 : seps[unit_rand() % 4];
		int ypad = (int)(unit_rand() % 7), mw = 1 + (int)(unit_rand() %
		    2), dw = 1 + (int)(unit_rand() % 2);
		static const uint8_t mdays[13] = {
			0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31
		};
		char t[40];
		int n = snprintf(t, sizeof(t), "%0*u%c%0*u%c%0*u", ypad, y,
		    s1, mw, m, s2, dw, d);
		unsigned last = m >= 1 && m <= 12 ? mdays[m] +
		    (unsigned)(m == 2 && is_leap((int)y)) : 0;
		bool want = y >= 1 && y <= 9999 && d >= 1 && d <= last &&
		    s1 == s2 && s1 != '.';
		int32_t got = 0;
		int rc = core_parse_date_sql(t, (size_t)n, &got);

		if ((rc == 0) != want || (want && got !=
		    core_days_from_civil((int)y, m, d))) {
			if (bad++ < 5)
				printf("# date_sql \"%s\": rc %d\n", t, rc);
		}
	}
	CHECK_EQ_INT(bad, 0);
	{
		static const char *const no[] = {
			"", "1995", "1995-1", "1995-1-", "1995--1-5",
			"1995-1-5 ", "1995-001-05", "1995-01-005", "19950105",
			"-1995-01-05", "1995-1-5x", "x1995-1-5", "12345-1-1",
		};
		int32_t dd;

		for (size_t k = 0; k < sizeof(no) / sizeof(no[0]); k++)
			if (core_parse_date_sql(no[k], strlen(no[k]),
			    &dd) == 0) {
				printf("# accepted \"%s\"\n", no[k]);
				CHECK(0);
			}
	}
}

static void
test_timestamp_roundtrip(void)
{
	const int64_t lo = INT64_C(-719162) * 86400 * 1000000;
	const int64_t hi = INT64_C(2932897) * 86400 * 1000000 - 1;
	char ref[64];

	for (int i = 0; i < 300000; i++) {
		int64_t t = lo + (int64_t)(unit_rand() % (uint64_t)(hi - lo)),
		    back = 0, secs;
		struct tm tm;
		time_t tt;
		size_t n;
		int us;

		if (i % 4 == 1)
			t -= t % 1000;		/* millisecond values */
		else if (i % 4 == 2)
			t -= t % 1000000;	/* whole seconds */
		if (t < lo)
			t += 1000000;
		secs = t / 1000000;
		us = (int)(t % 1000000);
		if (us < 0) {
			us += 1000000;
			secs--;
		}
		tt = (time_t)secs;
		gmtime_r(&tt, &tm);
		n = (size_t)snprintf(ref, sizeof(ref),
		    "%04d-%02d-%02d %02d:%02d:%02d", tm.tm_year + 1900,
		    tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
		    tm.tm_sec);
		if (us != 0)
			snprintf(ref + n, sizeof(ref) - n, ".%06d", us);
		n = core_format_timestamp(t, txt);
		CHECK_EQ_STR(ftxt(n), ref);
		CHECK(core_parse_timestamp(txt, n, &back) == 0 && back == t);
	}
}

static int
parse_ts(const char *s, int64_t *t)
{
	return core_parse_timestamp(s, strlen(s), t);
}

static void
test_timestamp_cases(void)
{
	int64_t t = 0;
	static const char *const bad[] = {
		"", "2020-01-01 24:00:00", "2020-01-01 10:60:00",
		"2020-01-01 10:00:60", "2020-01-01 10:00:00.1234567",
		"2020-01-01 10:00", "2020-01-01 10:00:00.",
		"2020-01-01T10:00:00+24:00", "2020-01-01T10:00:00+01:60",
		"2020-01-01T10:00:00+0100", "2020-01-01T10:00:00+01",
		"2020-01-01 10:00:00 ", "2020-01-01  10:00:00",
		"2020-01-01_10:00:00", "2020-02-30 10:00:00",
		"2020-01-01 1:00:00", "2020-01-01 10:00:00ZZ",
		"2020-01-01 10:00:00Z+01:00", "2020-01-01 10:0a:00",
		"0001-01-01 00:00:00+00:01", "9999-12-31 23:59:59-00:01",
		"2020-01-01 10-00-00", "2020-01-01 10:00:00,5",
		"2020-01-01 ",
	};

	CHECK(parse_ts("1970-01-01 00:00:00", &t) == 0 && t == 0);
	CHECK(parse_ts("1970-01-01", &t) == 0 && t == 0);
	CHECK(parse_ts("1970-01-02", &t) == 0 && t == 86400000000);
	CHECK(parse_ts("1970-01-01T00:00:01Z", &t) == 0 && t == 1000000);
	CHECK(parse_ts("1970-01-01t00:00:01z", &t) == 0 && t == 1000000);
	CHECK(parse_ts("1970-01-01 01:00:00+01:00", &t) == 0 && t == 0);
	CHECK(parse_ts("1969-12-31 23:30:00-00:30", &t) == 0 && t == 0);
	CHECK(parse_ts("1970-01-01 00:00:00.5", &t) == 0 && t == 500000);
	CHECK(parse_ts("1970-01-01 00:00:00.000001", &t) == 0 && t == 1);
	CHECK(parse_ts("1969-12-31 23:59:59.999999", &t) == 0 && t == -1);
	CHECK(parse_ts("2000-02-29 12:34:56.789+05:30", &t) == 0);
	CHECK_EQ_STR(ftxt(core_format_timestamp(t, txt)),
	    "2000-02-29 07:04:56.789000");
	CHECK(parse_ts("0001-01-01 00:00:00", &t) == 0 &&
	    t == INT64_C(-719162) * 86400000000);
	CHECK(parse_ts("9999-12-31 23:59:59.999999", &t) == 0);
	CHECK(parse_ts("0001-01-01 00:30:00+00:30", &t) == 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (parse_ts(bad[i], &t) != -1) {
			printf("# accepted timestamp \"%s\"\n", bad[i]);
			CHECK(0);
		}
	}
	CHECK_EQ_STR(ftxt(core_format_timestamp(0, txt)),
	    "1970-01-01 00:00:00");
	CHECK_EQ_STR(ftxt(core_format_timestamp(-1, txt)),
	    "1969-12-31 23:59:59.999999");
	CHECK_EQ_STR(ftxt(core_format_timestamp(500000, txt)),
	    "1970-01-01 00:00:00.500000");
	CHECK_EQ_STR(ftxt(core_format_timestamp(120, txt)),
	    "1970-01-01 00:00:00.000120");
	CHECK(core_format_timestamp(INT64_MIN, txt) <= CORE_VALUE_TEXT_MAX);
	CHECK(core_format_timestamp(INT64_MAX, txt) <= CORE_VALUE_TEXT_MAX);
	CHECK_EQ_STR(ftxt(core_format_timestamp(INT64_MAX, txt)),
	    "+294247-01-10 04:00:54.775807");
}

/* Textbook decoder: length from the lead byte, then range checks on the
 * assembled code point. */
static size_t
ref_utf8_prefix(const unsigned char *s, size_t len)
{
	size_t i = 0;

	while (i < len) {
		unsigned c = s[i], cp, n, min;

		if (c < 0x80) {
			i++;
			continue;
		} else if ((c & 0xE0) == 0xC0) {
			n = 1, cp = c & 0x1F, min = 0x80;
		} else if ((c & 0xF0) == 0xE0) {
			n = 2, cp = c & 0x0F, min = 0x800;
		} else if ((c & 0xF8) == 0xF0) {
			n = 3, cp = c & 0x07, min = 0x10000;
		} else {
			return i;
		}
		if (len - i <= n)
			return i;
		for (unsigned k = 1; k <= n; k++) {
			if ((s[i + k] & 0xC0) != 0x80)
				return i;
			cp = cp << 6 | (s[i + k] & 0x3F);
		}
		if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
			return i;
		i += n + 1;
	}
	return i;
}

static size_t
utf8_prefix(const char *s)
{
	return core_utf8_valid_prefix(s, strlen(s));
}

static void
test_utf8(void)
{
	unsigned char buf[64];

	CHECK_EQ_INT(utf8_prefix(""), 0);
	CHECK_EQ_INT(utf8_prefix("plain ascii text, long enough"), 29);
	CHECK_EQ_INT(utf8_prefix("caf\xc3\xa9"), 5);
	CHECK_EQ_INT(utf8_prefix("\xe2\x82\xac"), 3);
	CHECK_EQ_INT(utf8_prefix("\xf0\x9f\x98\x80"), 4);
	CHECK_EQ_INT(utf8_prefix("\xf4\x8f\xbf\xbf"), 4);	/* U+10FFFF */
	CHECK_EQ_INT(utf8_prefix("\xed\x9f\xbf"), 3); /* U+D7FF */
	CHECK_EQ_INT(utf8_prefix("\xee\x80\x80"), 3); /* U+E000 */
	CHECK_EQ_INT(utf8_prefix("ab\xc0\x80"), 2); /* overlong */
	CHECK_EQ_INT(utf8_prefix("ab\xc1\xbf"), 2);
	CHECK_EQ_INT(utf8_prefix("ab\xe0\x80\x80"), 2);
	CHECK_EQ_INT(utf8_prefix("ab\xe0\x9f\xbf"), 2);
	CHECK_EQ_INT(utf8_prefix("ab\xf0\x80\x80\x80"), 2);
	CHECK_EQ_INT(utf8_prefix("ab\xf0\x8f\xbf\xbf"), 2);
	CHECK_EQ_INT(utf8_prefix("ab\xed\xa0\x80"), 2); /* surrogate */
	CHECK_EQ_INT(utf8_prefix("ab\xed\xbf\xbf"), 2);
	CHECK_EQ_INT(utf8_prefix("ab\xf4\x90\x80\x80"), 2); /* > 10FFFF */
	CHECK_EQ_INT(utf8_prefix("ab\xf5\x80\x80\x80"), 2);
	CHECK_EQ_INT(utf8_prefix("ab\xff"), 2);
	CHECK_EQ_INT(utf8_prefix("ab\x80"), 2); /* stray */
	CHECK_EQ_INT(utf8_prefix("ab\xc3"), 2); /* truncated */
	CHECK_EQ_INT(utf8_prefix("ab\xe2\x82"), 2);
	CHECK_EQ_INT(utf8_prefix("ab\xf0\x9f\x98"), 2);
	CHECK_EQ_INT(utf8_prefix("ab\xe2\x82x"), 2);
	CHECK_EQ_INT(utf8_prefix("0123456789abcdef\xc3\xa9x"), 19);
	CHECK_EQ_INT(core_utf8_valid_prefix("a\0b", 3), 3);

	/* Random strings, mostly ASCII with bursts of high bytes, every
	 * offset and length so the 8-byte path meets every boundary. */
	for (int i = 0; i < 400000; i++) {
		size_t len = (size_t)(unit_rand() % sizeof(buf));
		unsigned mode = (unsigned)(unit_rand() % 4);

		for (size_t j = 0; j < len; j++) {
			uint64_t r = unit_rand();

			if (mode == 0 || (r & 7) != 0)
				buf[j] = (unsigned char)(0x20 + r % 0x5f);
			else
				buf[j] = (unsigned char)(0x80 +
				    (r >> 8) % 0x80);
			if (mode == 3 && (r & 0x700) == 0) {
				/* A valid multi-byte character. */
				static const char *const ch[] = {
					"\xc3\xa9", "\xe2\x82\xac",
					"\xf0\x9f\x98\x80", "\xed\x9f\xbf",
				};
				const char *c = ch[(r >> 12) % 4];
				size_t cl = strlen(c);

				if (j + cl <= len) {
					memcpy(buf + j, c, cl);
					j += cl - 1;
				}
			}
		}
		if (core_utf8_valid_prefix((const char *)buf, len) !=
		    ref_utf8_prefix(buf, len)) {
			printf("# utf8 mismatch at case %d\n", i);
			CHECK(0);
			break;
		}
	}
}

int
main(void)
{
	RUN(test_bool);
	RUN(test_int_roundtrip);
	RUN(test_int_cases);
	RUN(test_decimal_roundtrip);
	RUN(test_decimal_cases);
	RUN(test_decimal128_roundtrip);
	RUN(test_decimal128_cases);
	RUN(test_float_roundtrip);
	RUN(test_float_cases);
	RUN(test_float_parse_vs_strtod);
	RUN(test_float_halfway);
	RUN(test_date_exhaustive);
	RUN(test_date_cases);
	RUN(test_date_sql);
	RUN(test_timestamp_roundtrip);
	RUN(test_timestamp_cases);
	RUN(test_utf8);
	return unit_done();
}
