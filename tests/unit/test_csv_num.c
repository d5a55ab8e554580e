/*
 * test_csv_num.c - csv_num_rewrite (numbers with a decimal comma and
 * thousands separators) against an obvious reference: random numbers
 * printed plainly with printf and printed grouped digit by digit must
 * rewrite to the plain text; a separator put anywhere else must be
 * refused.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core_csv_private.h"
#include "unit.h"

/* p rewritten with nf, as a C string in out; "(refused)" when refused. */
static const char *
rw(const struct csv_numfmt *nf, const char *p, char *out, size_t cap)
{
	long n = csv_num_rewrite(nf, p, strlen(p), out, cap - 1);

	if (n < 0)
		return "(refused)";
	out[n] = '\0';
	return out;
}

static void
test_cases(void)
{
	const struct csv_numfmt de = { ',', '.' }, fr = { ',', ' ' },
	    dc = { ',', 0 }, us = { '.', ',' };
	char b[64];

	CHECK_EQ_STR(rw(&de, "1.234,5", b, sizeof(b)), "1234.5");
	CHECK_EQ_STR(rw(&de, "-1.234.567,25", b, sizeof(b)), "-1234567.25");
	CHECK_EQ_STR(rw(&de, "12", b, sizeof(b)), "12");
	CHECK_EQ_STR(rw(&de, "1,5", b, sizeof(b)), "1.5");
	CHECK_EQ_STR(rw(&de, "1.5", b, sizeof(b)), "(refused)");
	CHECK_EQ_STR(rw(&de, "1.23,5", b, sizeof(b)), "(refused)");
	CHECK_EQ_STR(rw(&de, "1234.567", b, sizeof(b)), "(refused)");
	CHECK_EQ_STR(rw(&de, ".123", b, sizeof(b)), "(refused)");
	CHECK_EQ_STR(rw(&de, "1.234.", b, sizeof(b)), "(refused)");
	CHECK_EQ_STR(rw(&fr, "12 345,5", b, sizeof(b)), "12345.5");
	CHECK_EQ_STR(rw(&dc, "1,5", b, sizeof(b)), "1.5");
	CHECK_EQ_STR(rw(&dc, "1,5e3", b, sizeof(b)), "1.5e3");
	CHECK_EQ_STR(rw(&dc, "3.5", b, sizeof(b)), "(refused)");
	CHECK_EQ_STR(rw(&dc, "1,5,5", b, sizeof(b)), "(refused)");
	CHECK_EQ_STR(rw(&dc, "nan", b, sizeof(b)), "nan");
	CHECK_EQ_STR(rw(&dc, "2024-01-01", b, sizeof(b)), "2024-01-01");
	CHECK_EQ_STR(rw(&us, "1,234.5", b, sizeof(b)), "1234.5");
	CHECK_EQ_STR(rw(&us, "+1,234", b, sizeof(b)), "+1234");
	CHECK_EQ_STR(rw(&us, "1,5", b, sizeof(b)), "(refused)");
	CHECK_EQ_STR(rw(&us, "1,234.5", b, 4), "(refused)");
}

static void
test_random(void)
{
	static const struct csv_numfmt fmts[] = {
		{ ',', '.' }, { ',', ' ' }, { '.', ',' }, { ',', 0 },
		{ '.', '\'' },
	};
	char plain[64], grouped[80], bad[80], out[96], digits[32];
	int i, k;

	for (i = 0; i < 200000; i++) {
		const struct csv_numfmt *nf = &fmts[unit_rand() % 5];
		uint64_t ip = unit_rand() % 1000000000000ull;
		unsigned fd = (unsigned)(unit_rand() % 4);
		unsigned fr = (unsigned)(unit_rand() % 10000);
		bool neg = unit_rand() % 2;
		size_t nd, j, o = 0, b = 0, at;
		long n;

		/* The reference: printf's plain form. */
		if (fd > 0)
			snprintf(plain, sizeof(plain), "%s%llu.%0*u",
			    neg ? "-" : "", (unsigned long long)ip, (int)fd,
			    fr % (fd == 1 ? 10 : fd == 2 ? 100 : 1000));
		else
			snprintf(plain, sizeof(plain), "%s%llu",
			    neg ? "-" : "", (unsigned long long)ip);
		/* The same number grouped, digit by digit. */
		nd = (size_t)snprintf(digits, sizeof(digits), "%llu",
		    (unsigned long long)ip);
		if (neg)
			grouped[o++] = '-';
		for (j = 0; j < nd; j++) {
			if (nf->thou != 0 && j > 0 && (nd - j) % 3 == 0)
				grouped[o++] = (char)nf->thou;
			grouped[o++] = digits[j];
		}
		if (fd > 0) {
			grouped[o++] = (char)nf->dec;
			memcpy(grouped + o, strchr(plain, '.') + 1, fd);
			o += fd;
		}
		n = csv_num_rewrite(nf, grouped, o, out, sizeof(out));
		CHECK(n >= 0 && (size_t)n == strlen(plain) &&
		    memcmp(out, plain, (size_t)n) == 0);
		if (unit_cur_failed > 0) {
			printf("# %.*s -> %s\n", (int)o, grouped, plain);
			return;
		}
		/* A separator where no group boundary is: refused. */
		if (nf->thou == 0 || nd < 2)
			continue;
		at = 1 + unit_rand() % (nd - 1);
		if ((nd - at) % 3 == 0)
			continue;
		b = 0;
		for (j = 0; j < nd; j++) {
			if (j == at)
				bad[b++] = (char)nf->thou;
			bad[b++] = digits[j];
		}
		k = (int)csv_num_rewrite(nf, bad, b, out, sizeof(out));
		CHECK(k < 0);
		if (unit_cur_failed > 0) {
			printf("# accepted %.*s\n", (int)b, bad);
			return;
		}
	}
}

int
main(void)
{
	RUN(test_cases);
	RUN(test_random);
	return unit_done();
}
