/*
 * core_csv_num.c - numbers written with a decimal comma and/or thousands
 * separators (1.234,5), rewritten as the plain text the value parsers
 * read (1234.5).
 *
 * Invariant: the rewrite is exact or refused.  Thousands separators are
 * accepted only between groups of three integer digits (the first group
 * 1 to 3 digits), so "1.5" with '.' for thousands is refused rather than
 * read as 15; with a decimal comma a '.' that is not the thousands
 * separator is refused, so "1.5" is never read as one and a half in a
 * file that writes 1,5.  Text with none of the special bytes is passed
 * through unchanged (nan, 1e5, 12).
 *
 * Workload: only with --decimal-comma or --thousands, on the row-by-row
 * path, for numeric columns; one pass over a short value, no allocation.
 */
#include <string.h>

#include "core_csv_private.h"

static bool
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

long
csv_num_rewrite(const struct csv_numfmt *nf, const char *p, size_t len,
    char *out, size_t cap)
{
	size_t i = 0, o = 0, group = 0, ngroups = 0;
	bool special = false;

	for (i = 0; i < len; i++)
		if (p[i] == nf->dec || p[i] == nf->thou || p[i] == '.' ||
		    p[i] == ',')
			special = true;
	if (!special) {
		if (len > cap)
			return -1;
		memcpy(out, p, len);
		return (long)len;
	}
	if (len + 1 > cap)
		return -1;
	i = 0;
	if (i < len && (p[i] == '-' || p[i] == '+'))
		out[o++] = p[i++];
	/* The integer part, with its groups checked when separated. */
	for (; i < len; i++) {
		if (is_digit(p[i])) {
			out[o++] = p[i];
			group++;
			continue;
		}
		if (nf->thou != 0 && p[i] == nf->thou) {
			if (group == 0 || (ngroups == 0 && group > 3) ||
			    (ngroups > 0 && group != 3))
				return -1;
			ngroups++;
			group = 0;
			continue;
		}
		break;
	}
	if (ngroups > 0 && group != 3)
		return -1;
	if (o == 0 || !is_digit(out[o - 1]))
		return -1;
	if (i < len && p[i] == nf->dec) {
		out[o++] = '.';
		for (i++; i < len && is_digit(p[i]); i++)
			out[o++] = p[i];
	}
	/* An exponent may follow; nothing else may. */
	if (i < len && (p[i] == 'e' || p[i] == 'E')) {
		out[o++] = p[i++];
		if (i < len && (p[i] == '-' || p[i] == '+'))
			out[o++] = p[i++];
		for (; i < len && is_digit(p[i]); i++)
			out[o++] = p[i];
	}
	if (i != len)
		return -1;
	return (long)o;
}
