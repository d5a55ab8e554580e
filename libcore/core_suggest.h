/*
 * core_suggest.h - "did you mean" for names a user typed: the closest of
 * a few candidates (column names, type names), for messages that say what
 * to type instead.
 */
#ifndef CORE_SUGGEST_H
#define CORE_SUGGEST_H

#include <stddef.h>

#include "core_col.h"

/* Edit distance with transpositions, case insensitive; (size_t)-1 for
 * names over 64 bytes (no one mistypes those by a letter). */
size_t core_suggest_distance(const char *a, const char *b);

/* The index of the candidate closest to name when it is close enough to
 * be what was meant (at most a third of it wrong, one edit for short
 * names, and not all of it), else -1.  cands: n borrowed strings. */
int core_suggest_closest(const char *name, const char *const *cands,
    size_t n);

/* Appends to buf (of size bytes, NUL-terminated) " (did you mean 'x'?)"
 * when a column of s is close to name, then "; the columns are a, b, c"
 * (or "; the input has no columns").  Truncates to fit. */
void core_suggest_column(const struct core_schema *s, const char *name,
    char *buf, size_t size);

#endif
