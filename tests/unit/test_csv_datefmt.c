/*
 * test_csv_datefmt.c - csv_datefmt_parse against the C library: random
 * dates and times written with strftime in random formats must parse
 * back to what timegm makes of them; random digit strings must be taken
 * exactly when glibc's strptime takes them whole and timegm keeps the
 * day and second (strptime allows 31 February and leap seconds) and the
 * year has 4 digits (strptime reads fewer); and csv_datefmt_check refuses what is not supported.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core_csv_private.h"
#include "unit.h"

static bool
parse(const char *fmt, const char *s, bool ts, int64_t *v)
{
	return csv_datefmt_parse(fmt, s, strlen(s), ts, v) == 0;
}

static void
test_cases(void)
{
	int64_t v = 0;

	CHECK(parse("%d/%m/%Y", "03/05/2024", false, &v));
	CHECK_EQ_INT(v, 19846);		/* 2024-05-03 */
	CHECK(parse("%d/%m/%Y", "3/5/2024", false, &v));
	CHECK_EQ_INT(v, 19846);
	CHECK(!parse("%d/%m/%Y", "30/02/2024", false, &v));
	CHECK(parse("%d/%m/%Y", "29/02/2024", false, &v));
	CHECK(!parse("%d/%m/%Y", "29/02/2023", false, &v));
	CHECK(!parse("%d/%m/%Y", "3/5/24", false, &v));
	CHECK(!parse("%d/%m/%Y", "03/05/2024 ", false, &v));
	CHECK(!parse("%d/%m/%Y", "03/05/0000", false, &v));
	CHECK(parse("%d/%m/%y", "01/01/69", false, &v));
	CHECK_EQ_INT(v, -365);
	CHECK(parse("%d/%m/%y", "01/01/68", false, &v));
	CHECK_EQ_INT(v, 35794);		/* 2068-01-01 */
	CHECK(parse("%e %b %Y", " 5 mar 2024", false, &v));
	CHECK(parse("%e %b %Y", "5 March 2024", false, &v));
	CHECK_EQ_INT(v, 19787);
	CHECK(!parse("%e %b %Y", "5 Mrz 2024", false, &v));
	CHECK(parse("%Y%m%d", "20240503", false, &v));
	CHECK_EQ_INT(v, 19846);
	CHECK(parse("%d.%m.%Y %H:%M:%S.%f", "01.01.1970 00:00:01.5", true,
	    &v));
	CHECK_EQ_INT(v, 1500000);
	CHECK(parse("%d.%m.%Y %H:%M", "02.01.1970 01:02", true, &v));
	CHECK_EQ_INT(v, (86400 + 3720) * INT64_C(1000000));
	CHECK(!parse("%d.%m.%Y %H:%M", "02.01.1970 24:00", true, &v));
	CHECK(parse("100%% %Y-%m-%d", "100% 1970-01-02", false, &v));
	CHECK_EQ_INT(v, 1);
}

static void
test_check(void)
{
	struct core_err e = { 0, "" };

	CHECK_EQ_INT(csv_datefmt_check("%d/%m/%Y", false, &e), 0);
	CHECK_EQ_INT(csv_datefmt_check("%d/%m/%Y %H:%M:%S.%f", true, &e), 0);
	CHECK_EQ_INT(csv_datefmt_check("%d/%m/%Y %H", false, &e),
	    CORE_EUSAGE);
	CHECK_EQ_INT(csv_datefmt_check("%d/%m", false, &e), CORE_EUSAGE);
	CHECK_EQ_INT(csv_datefmt_check("%d/%m/%Y/%y", false, &e),
	    CORE_EUSAGE);
	CHECK_EQ_INT(csv_datefmt_check("%j/%Y", false, &e), CORE_EUSAGE);
	CHECK_EQ_INT(csv_datefmt_check("%d/%m/%Y%", false, &e), CORE_EUSAGE);
	CHECK_EQ_INT(csv_datefmt_check("%d %b %Y %T", true, &e),
	    CORE_EUSAGE);
}

/* Formats strftime writes and csv_datefmt_parse reads; "%f" is put in
 * by hand (strftime has none). */
static const char *const fmts[] = {
	"%d/%m/%Y", "%m/%d/%Y", "%Y%m%d", "%d.%m.%y", "%e %b %Y", "%B %d, %Y",
	"%Y-%m-%d %H:%M:%S", "%d/%m/%Y %H:%M", "%Y%m%dT%H%M%S",
	"%d-%b-%Y %H:%M:%S.%f", "%y%m%d %H.%M", "[%Y] %d|%m %% %S %M %H",
};

/* strftime with a format from the tables above. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
static void
fmt_time(char *buf, size_t cap, const char *f, const struct tm *tm)
{
	strftime(buf, cap, f, tm);
}
#pragma GCC diagnostic pop

static bool
is_ts(const char *f)
{
	return strstr(f, "%H") != NULL || strstr(f, "%S") != NULL;
}

static void
test_random_roundtrip(void)
{
	char buf[128], fmt[64], frac[8];
	struct core_err e = { 0, "" };
	int i;

	for (i = 0; i < 200000; i++) {
		const char *f = fmts[unit_rand() % (sizeof(fmts) /
		    sizeof(fmts[0]))];
		bool ts = is_ts(f), y2 = strstr(f, "%y") != NULL;
		/* glibc's strftime writes years before 1000 with fewer
		 * digits than %Y reads. */
		time_t t0 = y2 ? -31536000 : -30610224000;	/* 1969, 1000 */
		time_t t1 = y2 ? 3124137599 : 253402300799;	/* 2068, 9999 */
		time_t t = t0 + (time_t)(unit_rand() % (uint64_t)(t1 - t0));
		unsigned us = (unsigned)(unit_rand() % 1000000);
		const char *pf = strstr(f, "%f");
		int64_t want, got = 0;
		struct tm tm;

		CHECK_EQ_INT(csv_datefmt_check(f, ts, &e), 0);
		gmtime_r(&t, &tm);
		if (pf != NULL) {
			/* strftime the part before, then the fraction. */
			snprintf(fmt, sizeof(fmt), "%.*s", (int)(pf - f), f);
			fmt_time(buf, sizeof(buf), fmt, &tm);
			snprintf(frac, sizeof(frac), "%06u", us);
			strcat(buf, frac);
		} else {
			fmt_time(buf, sizeof(buf), f, &tm);
			us = 0;
		}
		tm.tm_sec = strstr(f, "%S") != NULL ? tm.tm_sec : 0;
		tm.tm_min = strstr(f, "%M") != NULL ? tm.tm_min : 0;
		tm.tm_hour = strstr(f, "%H") != NULL ? tm.tm_hour : 0;
		want = (int64_t)timegm(&tm);
		want = ts ? want * 1000000 + us : want / 86400 -
		    (want % 86400 < 0);
		if (!parse(f, buf, ts, &got) || got != want) {
			CHECK_EQ_INT(got, want);
			printf("# %s with '%s'\n", buf, f);
			return;
		}
	}
}

static void
test_random_strings(void)
{
	static const char *const rfmts[] = {
		"%d/%m/%Y", "%d.%m.%Y %H:%M", "%m/%d/%Y %H:%M:%S",
	};
	char buf[64], ydig[8];
	int i, taken = 0;

	for (i = 0; i < 200000; i++) {
		const char *f = rfmts[unit_rand() % 3];
		bool ts = is_ts(f), want;
		size_t n = 0, k, nd, ylen = 0;
		const char *q, *end;
		struct tm tm;
		int64_t got;
		time_t t;

		/* Random digit runs of 0-5 digits where f has conversions,
		 * f's own separators, sometimes one wrong. */
		for (q = f; *q != '\0'; q++) {
			if (*q == '%') {
				q++;
				nd = (size_t)(unit_rand() % 6);
				if (unit_rand() % 2)
					nd = *q == 'Y' ? 4 : 2;
				for (k = 0; k < nd; k++)
					buf[n++] = (char)('0' +
					    unit_rand() % (k == 0 &&
					    (*q == 'd' || *q == 'm') ? 4 :
					    10));
				if (*q == 'Y') {
					ylen = nd;
					memcpy(ydig, buf + n - nd, nd);
				}
			} else {
				buf[n++] = unit_rand() % 50 == 0 ? '-' : *q;
			}
		}
		buf[n] = '\0';
		memset(&tm, 0, sizeof(tm));
		end = strptime(buf, f, &tm);
		want = end != NULL && *end == '\0' && ylen == 4 &&
		    memcmp(ydig, "0000", 4) != 0;
		if (want) {
			/* strptime takes 31/02 and leap seconds (:60, :61):
			 * timegm moves them on. */
			struct tm in = tm;

			t = timegm(&tm);
			gmtime_r(&t, &tm);
			want = tm.tm_mday == in.tm_mday &&
			    tm.tm_mon == in.tm_mon && tm.tm_sec == in.tm_sec;
		}
		taken += want;
		if (parse(f, buf, ts, &got) != want) {
			CHECK(false);
			printf("# '%s' with '%s': want %s\n", buf, f,
			    want ? "taken" : "refused");
			return;
		}
	}
	/* The reference took a fair share, or the test says little. */
	printf("# %d of %d taken\n", taken, i);
	CHECK(taken > 3000);
}

int
main(void)
{
	RUN(test_cases);
	RUN(test_check);
	RUN(test_random_roundtrip);
	RUN(test_random_strings);
	return unit_done();
}
