/*
 * core_csv_datefmt.c - dates and timestamps written in a strptime-style
 * format (--date-format, --timestamp-format).
 *
 * A small subset of strptime, exact where strptime is lenient:
 *	%Y  year, exactly 4 digits, 0001-9999
 *	%y  year, exactly 2 digits: 69-99 are 1969-1999, 00-68 2000-2068
 *	%m  month, 1 or 2 digits, 1-12
 *	%b  month name in English, full or three letters, any case (%B too)
 *	%d  day of the month, 1 or 2 digits (%e: also after one space)
 *	%H  hour 0-23, %M minute 0-59, %S second 0-59 (1 or 2 digits)
 *	%f  fraction of the second, 1 to 6 digits (to microseconds)
 *	%%  a '%'
 * Any other byte of the format matches itself only (a space matches one
 * space).  Numbers are read greedily up to their most digits; the whole
 * value must be used; the day must exist in its month.  A date format
 * names the year, month and day and nothing of the time; a timestamp
 * format names the year, month and day, and the missing time fields are
 * 0.  No conversion may be given twice (%Y and %y are both the year).
 *
 * Invariants: parsing allocates nothing and reads only p[0..len); the
 * format was checked by csv_datefmt_check before it is parsed with.
 * Workload: row by row conversion of date columns of CSV files whose
 * dates are not ISO 8601 (core_csv_parse.c's put_row, and inference over
 * the sample); a few hundred nanoseconds a value is fine.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core_csv_private.h"
#include "core_value.h"

static const char *const month_names[12] = {
	"january", "february", "march", "april", "may", "june", "july",
	"august", "september", "october", "november", "december",
};

/* The field a conversion sets, as a bit (0: none). */
enum { F_YEAR = 1, F_MONTH = 2, F_DAY = 4, F_HOUR = 8, F_MIN = 16,
	F_SEC = 32, F_FRAC = 64 };

static unsigned
conv_field(int c)
{
	switch (c) {
	case 'Y': case 'y':
		return F_YEAR;
	case 'm': case 'b': case 'B':
		return F_MONTH;
	case 'd': case 'e':
		return F_DAY;
	case 'H':
		return F_HOUR;
	case 'M':
		return F_MIN;
	case 'S':
		return F_SEC;
	case 'f':
		return F_FRAC;
	default:
		return 0;
	}
}

int
csv_datefmt_check(const char *fmt, bool ts, struct core_err *err)
{
	const char *what = ts ? "timestamp format" : "date format";
	unsigned seen = 0, fl;
	const char *f;

	for (f = fmt; *f != '\0'; f++) {
		if (*f != '%')
			continue;
		if (f[1] == '%') {
			f++;
			continue;
		}
		fl = conv_field(f[1]);
		if (fl == 0 || (!ts && fl > F_DAY))
			return core_err_set(err, CORE_EUSAGE, "%s '%s': %%%s "
			    "is not supported; use %s and other bytes as "
			    "they are", what, fmt, f[1] == '\0' ? "" :
			    (char[]){ f[1], '\0' }, ts ? "%Y %y %m %b %d %e "
			    "%H %M %S %f %%" : "%Y %y %m %b %d %e %%");
		if (seen & fl)
			return core_err_set(err, CORE_EUSAGE, "%s '%s': %%%c "
			    "sets a field given before", what, fmt, f[1]);
		seen |= fl;
		f++;
	}
	if ((seen & (F_YEAR | F_MONTH | F_DAY)) != (F_YEAR | F_MONTH | F_DAY))
		return core_err_set(err, CORE_EUSAGE, "%s '%s' needs a year "
		    "(%%Y or %%y), a month (%%m or %%b) and a day (%%d or "
		    "%%e)", what, fmt);
	return 0;
}

/* Reads min..max digits at p[*i] (greedily) into *v. */
static bool
digits(const char *p, size_t len, size_t *i, unsigned min, unsigned max,
    unsigned *v)
{
	unsigned n = 0, x = 0;

	while (n < max && *i < len && p[*i] >= '0' && p[*i] <= '9') {
		x = x * 10 + (unsigned)(p[*i] - '0');
		(*i)++;
		n++;
	}
	*v = x;
	return n >= min;
}

/* A month name at p[*i], full or its first three letters. */
static bool
month_name(const char *p, size_t len, size_t *i, unsigned *mo)
{
	unsigned m;
	size_t n, k;

	for (m = 0; m < 12; m++) {
		n = strlen(month_names[m]);
		for (k = 0; k < n && *i + k < len; k++)
			if ((p[*i + k] | 0x20) != month_names[m][k])
				break;
		if (k == n || k >= 3) {
			*i += k == n ? n : 3;
			*mo = m + 1;
			return true;
		}
	}
	return false;
}

static unsigned
month_days(unsigned y, unsigned m)
{
	static const unsigned char d[12] = { 31, 28, 31, 30, 31, 30, 31, 31,
	    30, 31, 30, 31 };

	if (m == 2 && (y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)))
		return 29;
	return d[m - 1];
}

int
csv_datefmt_parse(const char *fmt, const char *p, size_t len, bool ts,
    int64_t *out)
{
	unsigned y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0, us = 0, v, n;
	size_t i = 0, at;
	const char *f;
	int64_t days;

	for (f = fmt; *f != '\0'; f++) {
		if (*f != '%' || f[1] == '%') {
			f += *f == '%';
			if (i >= len || p[i] != *f)
				return -1;
			i++;
			continue;
		}
		switch (*++f) {
		case 'Y':
			if (!digits(p, len, &i, 4, 4, &y) || y == 0)
				return -1;
			break;
		case 'y':
			if (!digits(p, len, &i, 2, 2, &v))
				return -1;
			y = v < 69 ? 2000 + v : 1900 + v;
			break;
		case 'm':
			if (!digits(p, len, &i, 1, 2, &mo))
				return -1;
			break;
		case 'b':
		case 'B':
			if (!month_name(p, len, &i, &mo))
				return -1;
			break;
		case 'e':
			if (i + 1 < len && p[i] == ' ' && p[i + 1] != ' ')
				i++;
			/* FALLTHROUGH */
		case 'd':
			if (!digits(p, len, &i, 1, 2, &d))
				return -1;
			break;
		case 'H':
			if (!digits(p, len, &i, 1, 2, &h) || h > 23)
				return -1;
			break;
		case 'M':
			if (!digits(p, len, &i, 1, 2, &mi) || mi > 59)
				return -1;
			break;
		case 'S':
			if (!digits(p, len, &i, 1, 2, &s) || s > 59)
				return -1;
			break;
		case 'f':
			at = i;
			if (!digits(p, len, &i, 1, 6, &us))
				return -1;
			for (n = (unsigned)(i - at); n < 6; n++)
				us *= 10;
			break;
		default:
			return -1;	/* not checked: never */
		}
	}
	if (i != len || mo < 1 || mo > 12 || d < 1 || d > month_days(y, mo))
		return -1;
	days = core_days_from_civil((int)y, mo, d);
	if (!ts) {
		*out = days;
		return 0;
	}
	*out = ((days * 24 + h) * 60 + mi) * 60 + s;
	*out = *out * 1000000 + us;
	return 0;
}

bool
csv_datefmt_column(const char *fmt, bool ts, const struct csv_sample *s,
    uint32_t col, size_t from, const char *const *nulls, size_t nnulls)
{
	size_t r, idx, seen = 0;
	const char *p;
	int64_t v;

	for (r = from; r < s->nrows; r++) {
		idx = r * s->ncols + col;
		p = s->text + s->off[idx];
		/* NULLs as the parser sees them (core_csv.h): empty, or an
		 * unquoted NULL spelling. */
		if (s->len[idx] == 0 || (!(s->flags[idx] & CSV_F_QUOTED) &&
		    csv_is_null_string(p, s->len[idx], nulls, nnulls)))
			continue;
		if (csv_datefmt_parse(fmt, p, s->len[idx], ts, &v) != 0)
			return false;
		seen++;
	}
	return seen > 0;
}
