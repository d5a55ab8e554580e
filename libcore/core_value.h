/*
 * core_value.h - text <-> value conversion for every colpipe type.
 *
 * Defined once here and used by the CSV reader, the output formats and
 * (later) expressions, so that "csv2col | col2csv" reproduces a canonical
 * CSV byte for byte.  Parsers take (pointer, length) text without
 * surrounding whitespace or quotes and never allocate.  They return 0 on
 * success and -1 when the text is not a valid value of the type (the
 * caller builds the message, with the place of the value).
 *
 * Canonical text forms (what the formatters write) and what the parsers
 * accept besides:
 *   bool       true / false; parse: any case, nothing else (not 1/0, t/f,
 *              yes/no, so that CSV inference keeps 0/1 columns integers)
 *   int32/64   -?[0-9]+ without leading zeros; parse: optional '+' or
 *              '-', leading zeros, range checked (never wraps)
 *   decimal    -?[0-9]+(.[0-9]{scale})?  exactly `scale` fraction digits;
 *              parse: optional sign, "1." and ".5" accepted, no exponent,
 *              never rounded (see core_parse_decimal); the same for
 *              decimal128, whose text is DuckDB's for its decimals
 *   float64    the shortest digits that read back to the same double, laid
 *              out like ECMAScript's Number.prototype.toString: plain for
 *              1e-6 <= |v| < 1e21 ("0.1", "100", "0.000001"), otherwise
 *              "1e+21", "1.5e-7", "5e-324"; "-0" for negative zero; "nan",
 *              "inf", "-inf".  Parse: [+-]?(digits[.[digits]]|.digits)
 *              ([eE][+-]?digits)?, correctly rounded (any number of digits);
 *              nan, inf, infinity in any case; a finite text whose value
 *              overflows a double is rejected (never read as inf); one
 *              that underflows reads as (signed) zero or a subnormal
 *   date       YYYY-MM-DD (proleptic Gregorian, years 0001-9999, day of
 *              month checked incl. leap years); exactly that on input
 *   timestamp  YYYY-MM-DD HH:MM:SS[.ffffff] (UTC; six fraction digits
 *              when the microseconds are not zero, none otherwise).
 *              Parse: see core_parse_timestamp
 * Day numbers and timestamps outside 0001-9999 (no parser produces them)
 * are still written, with the year in ISO 8601 expanded form
 * ("+10000-01-01", "-0001-...", "+0000-12-31"); they do not parse back.
 * Nothing here depends on the locale.
 */
#ifndef CORE_VALUE_H
#define CORE_VALUE_H

#include <stddef.h>
#include <stdint.h>

#include "core_col.h"

/* Enough for any value but strings. */
#define CORE_VALUE_TEXT_MAX 48

int core_parse_bool(const char *s, size_t len, uint8_t *out);
int core_parse_int32(const char *s, size_t len, int32_t *out);
int core_parse_int64(const char *s, size_t len, int64_t *out);
int core_parse_float64(const char *s, size_t len, double *out);
/* Exact: the text may have at most `scale` fraction digits (never rounded)
 * and at most precision - scale integer digits (leading zeros do not
 * count: "0.05" fits decimal(2,2)).  Fails when precision > 18 or
 * scale > precision. */
int core_parse_decimal(const char *s, size_t len, uint8_t precision,
    uint8_t scale, int64_t *out);
/* The same for 128-bit decimals: precision 1..38 (DECIMAL128 uses 19..38;
 * smaller ones are accepted so callers need not care).  Fails when
 * precision > 38 or scale > precision. */
int core_parse_decimal128(const char *s, size_t len, uint8_t precision,
    uint8_t scale, core_i128 *out);
int core_parse_date(const char *s, size_t len, int32_t *out);
/* core_parse_date, and what SQL's cast to DATE also reads (as DuckDB):
 * one- or two-digit months and days, leading zeros on the year, and '/'
 * or ' ' as the separator (the same one twice), as in '1995-1-5'.  Not
 * for CSV fields: a CSV column is one format, checked strictly. */
int core_parse_date_sql(const char *s, size_t len, int32_t *out);
/* Accepts "YYYY-MM-DD" alone (midnight), or date, 'T'/'t'/' ', HH:MM:SS
 * (00:00:00-23:59:59), an optional fraction of 1 to 6 digits, and an
 * optional "Z"/"z" or "+HH:MM"/"-HH:MM" offset (HH <= 23, MM <= 59;
 * converted to UTC).  The UTC result must lie within 0001-01-01 ..
 * 9999-12-31 so that it prints back in this form. */
int core_parse_timestamp(const char *s, size_t len, int64_t *out);

/* Formatters write into buf (>= CORE_VALUE_TEXT_MAX bytes), no NUL, and
 * return the length (at most CORE_VALUE_TEXT_MAX for any input).  int32
 * values go through core_format_int64. */
size_t core_format_bool(uint8_t v, char *buf);
size_t core_format_int64(int64_t v, char *buf);
size_t core_format_decimal(int64_t v, uint8_t scale, char *buf);
/* Any v (also beyond +-(10^38 - 1)), scale 0..38; at most 42 bytes. */
size_t core_format_decimal128(core_i128 v, uint8_t scale, char *buf);
size_t core_format_float64(double v, char *buf);
size_t core_format_date(int32_t days, char *buf);
size_t core_format_timestamp(int64_t micros, char *buf);
/* The part of a timestamp after its date: " HH:MM:SS[.ffffff]" for us
 * microseconds into the day (0 <= us < 86400000000); 9 or 16 bytes. */
size_t core_format_clock(uint64_t us, char *buf);

/* 10^i for i in 0..19, for the parsers and formatters of decimals. */
extern const uint64_t core_pow10_u64[20];

/* "00" "01" ... "99": the two digits of v at core_digit_pairs + 2 * v,
 * for the formatters of integers, dates and times. */
extern const char core_digit_pairs[201];

/* Days since 1970-01-01 for a proleptic Gregorian date; no checking. */
int32_t core_days_from_civil(int y, unsigned m, unsigned d);
void core_civil_from_days(int32_t days, int *y, unsigned *m, unsigned *d);

/* Length of the longest valid UTF-8 prefix of s; == len when valid. */
size_t core_utf8_valid_prefix(const char *s, size_t len);

#endif
