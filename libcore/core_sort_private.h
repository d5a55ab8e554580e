/*
 * core_sort_private.h - normalized key prefixes shared by the sorter's
 * in-memory sort, its merge and its tests.  Inside libcore only.
 *
 * Each of the first CORE_SORT_MAX_WORDS keys is encoded per row into one
 * uint64_t word whose unsigned order agrees with core_sort_compare():
 * if row a sorts before row b then word(a) <= word(b).  Most encodings
 * are exact, so an equal word means equal keys and the full comparison
 * (which needs the row's columns and costs cache misses) runs only where
 * a word can hide a difference:
 *
 *   bool, int32, date   (nonnull flag << 32) | 32-bit order-preserving
 *                       value (sign bit flipped; inverted when desc):
 *                       exact, NULL included.
 *   int64, decimal,     64-bit value with the sign bit flipped (inverted
 *   timestamp, float64  when desc); float64 uses the IEEE bit trick
 *                       with -0 folded into +0 and every NaN made one
 *                       NaN.  NULL takes 0 (nulls-first) or UINT64_MAX,
 *                       which a value can share: a tie on that word is
 *                       compared in full.
 *   decimal128          the value clamped to the int64 range, then as
 *                       int64: exact within that range (where nearly all
 *                       data lies), 0 and UINT64_MAX shared by every
 *                       value beyond it and by NULL, so a tie on either
 *                       extreme is compared in full.
 *   string              first 7 bytes big-endian, then min(len, 8) + 1
 *                       in the low byte (inverted when desc); NULL as
 *                       above, which no string can produce.  A tie is
 *                       exact unless both strings are longer than 7.
 *
 * Keys beyond the words are compared in full on a tie of all words.
 */
#ifndef CORE_SORT_PRIVATE_H
#define CORE_SORT_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core_col.h"
#include "core_sort.h"

#define CORE_SORT_MAX_WORDS 4

enum { SORTK_EXACT, SORTK_EXTREME, SORTK_STRING, SORTK_CLAMP };

struct core_sort_enc {
	uint32_t col;
	int kind;		/* SORTK_* */
	bool desc;
	bool nulls_first;
	uint64_t null_word;
};

struct core_sort_plan {
	const struct core_sort_key *keys;	/* borrowed */
	size_t nkeys;
	size_t nw;				/* words per row */
	struct core_sort_enc enc[CORE_SORT_MAX_WORDS];
};

void core_sort_plan_init(struct core_sort_plan *p,
    const struct core_sort_key *keys, size_t nkeys,
    const struct core_schema *schema);

/* Writes p->nw words for each row of b to out + row * stride. */
void core_sort_encode(const struct core_sort_plan *p,
    const struct core_batch *b, uint64_t *out, size_t stride);

/* One key in full. */
int core_sort_compare_key(const struct core_sort_key *k,
    const struct core_batch *a, uint32_t ra, const struct core_batch *b,
    uint32_t rb);

static inline bool
core_sort_word_needs_full(const struct core_sort_enc *e, uint64_t w)
{
	if (e->kind == SORTK_EXACT)
		return false;
	if (w == e->null_word)
		return true;
	if (e->kind == SORTK_STRING)
		return ((e->desc ? ~w : w) & 0xff) == 9;
	if (e->kind == SORTK_CLAMP)
		return w == 0 || w == UINT64_MAX;
	return false;
}

/* Rows a:ra and b:rb with their words wa and wb: <0, 0, >0. */
static inline int
core_sort_cmp(const struct core_sort_plan *p, const uint64_t *wa,
    const uint64_t *wb, const struct core_batch *a, uint32_t ra,
    const struct core_batch *b, uint32_t rb)
{
	size_t k;
	int c;

	for (k = 0; k < p->nw; k++) {
		if (wa[k] != wb[k])
			return wa[k] < wb[k] ? -1 : 1;
		if (core_sort_word_needs_full(&p->enc[k], wa[k]) &&
		    (c = core_sort_compare_key(&p->keys[k], a, ra, b, rb)) != 0)
			return c;
	}
	if (p->nkeys > p->nw)
		return core_sort_compare(p->keys + p->nw, p->nkeys - p->nw, a,
		    ra, b, rb);
	return 0;
}

#endif
