/*
 * core_suggest.c - the closest spelling of a mistyped name (core_suggest.h).
 *
 * Workload: one call per usage error, over a schema's columns or a fixed
 * list of type names; tens of candidates of a few bytes each, so a plain
 * dynamic-programming table per pair is the whole algorithm.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core_alloc.h"
#include "core_suggest.h"

size_t
core_suggest_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j, w, *d, best, t;

	if (la > 64 || lb > 64)
		return (size_t)-1;
	w = lb + 1;
	d = core_xmalloc((la + 1) * w * sizeof(*d));
	for (i = 0; i <= la; i++)
		d[i * w] = i;
	for (j = 0; j <= lb; j++)
		d[j] = j;
	for (i = 1; i <= la; i++) {
		for (j = 1; j <= lb; j++) {
			int ca = tolower((unsigned char)a[i - 1]);
			int cb = tolower((unsigned char)b[j - 1]);

			best = d[(i - 1) * w + j - 1] + (ca != cb);
			if (d[(i - 1) * w + j] + 1 < best)
				best = d[(i - 1) * w + j] + 1;
			if (d[i * w + j - 1] + 1 < best)
				best = d[i * w + j - 1] + 1;
			/* "amuont": a swap of neighbours is one slip. */
			if (i > 1 && j > 1 &&
			    ca == tolower((unsigned char)b[j - 2]) &&
			    cb == tolower((unsigned char)a[i - 2]) &&
			    d[(i - 2) * w + j - 2] + 1 < best)
				best = d[(i - 2) * w + j - 2] + 1;
			d[i * w + j] = best;
		}
	}
	t = d[la * w + lb];
	free(d);
	return t;
}

int
core_suggest_closest(const char *name, const char *const *cands, size_t n)
{
	size_t i, d, bestd = (size_t)-1, len = strlen(name), most;
	int best = -1;

	for (i = 0; i < n; i++) {
		d = core_suggest_distance(name, cands[i]);
		if (d < bestd) {
			bestd = d;
			best = (int)i;
		}
	}
	most = len / 3 > 1 ? len / 3 : 1;
	if (best < 0 || bestd > most || bestd >= len ||
	    strcmp(cands[best], name) == 0)
		return -1;
	return best;
}

/* Appends pre, s and post to buf, cut to fit. */
static void
append(char *buf, size_t size, const char *pre, const char *s,
    const char *post)
{
	size_t n = strlen(buf);

	if (n + 1 < size)
		snprintf(buf + n, size - n, "%s%s%s", pre, s, post);
}

void
core_suggest_column(const struct core_schema *s, const char *name,
    char *buf, size_t size)
{
	const char **names;
	uint32_t i;
	int best;

	if (s == NULL || s->ncols == 0) {
		append(buf, size, "; the input has no columns", "", "");
		return;
	}
	names = core_xcalloc(s->ncols, sizeof(*names));
	for (i = 0; i < s->ncols; i++)
		names[i] = s->fields[i].name;
	best = core_suggest_closest(name, names, s->ncols);
	if (best >= 0)
		append(buf, size, " (did you mean '", names[best], "'?)");
	append(buf, size, "; the columns are", "", "");
	for (i = 0; i < s->ncols; i++)
		append(buf, size, i ? ", " : " ", names[i], "");
	free(names);
}
