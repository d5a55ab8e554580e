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
 * Canonical text forms (what the formatters write and parsers accept):
 *   bool       true / false   (parse also: t/f, yes/no, y/n, 1/0? no: see .c)
 *   int32/64   -?[0-9]+, no leading '+' on output, no leading zeros
 *   decimal    -?[0-9]+(.[0-9]{scale})?  exactly `scale` fraction digits
 *   float64    shortest text that round-trips (%.17g at worst); nan, inf,
 *              -inf
 *   date       YYYY-MM-DD (proleptic Gregorian, years 0001-9999)
 *   timestamp  YYYY-MM-DD HH:MM:SS[.ffffff] (UTC; fraction trimmed of
 *              trailing zeros to 3 or 6 digits)
 */
#ifndef CORE_VALUE_H
#define CORE_VALUE_H

#include <stddef.h>
#include <stdint.h>

/* Enough for any value but strings. */
#define CORE_VALUE_TEXT_MAX 48

int core_parse_bool(const char *s, size_t len, uint8_t *out);
int core_parse_int32(const char *s, size_t len, int32_t *out);
int core_parse_int64(const char *s, size_t len, int64_t *out);
int core_parse_float64(const char *s, size_t len, double *out);
/* Exact: the text may have at most `scale` fraction digits (never rounded)
 * and at most precision - scale integer digits. */
int core_parse_decimal(const char *s, size_t len, uint8_t precision,
    uint8_t scale, int64_t *out);
int core_parse_date(const char *s, size_t len, int32_t *out);
/* Accepts 'T' or ' ' between date and time, an optional fraction of up to
 * 6 digits, and an optional "Z" or "+HH:MM"/"-HH:MM" offset (converted to
 * UTC). */
int core_parse_timestamp(const char *s, size_t len, int64_t *out);

/* Formatters write into buf (>= CORE_VALUE_TEXT_MAX bytes), no NUL, and
 * return the length. */
size_t core_format_bool(uint8_t v, char *buf);
size_t core_format_int64(int64_t v, char *buf);
size_t core_format_decimal(int64_t v, uint8_t scale, char *buf);
size_t core_format_float64(double v, char *buf);
size_t core_format_date(int32_t days, char *buf);
size_t core_format_timestamp(int64_t micros, char *buf);

/* Days since 1970-01-01 for a proleptic Gregorian date; no checking. */
int32_t core_days_from_civil(int y, unsigned m, unsigned d);
void core_civil_from_days(int32_t days, int *y, unsigned *m, unsigned *d);

/* Length of the longest valid UTF-8 prefix of s; == len when valid. */
size_t core_utf8_valid_prefix(const char *s, size_t len);

#endif
