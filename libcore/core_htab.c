/*
 * core_htab.c - a chained hash table of (hash, row reference) entries.
 *
 * Layout: entries live in three parallel arrays (hash, ref, next) in
 * insertion order, numbered from 1; head[b] is the newest entry of bucket
 * b and next[] links each entry to the previous one of its bucket, 0
 * ending the chain.  Invariants: nbuckets == cap, a power of two (at
 * least MIN_CAP) or 0, so the load never passes 1; every entry 1..count
 * is on exactly one chain, the one of its hash's bucket, and each chain
 * runs from newer to older entries.
 *
 * Why chaining and not open addressing: a join's build side has keys with
 * many rows (a foreign key), and all of a key's rows share one hash.
 * Under open addressing they would fill one run of consecutive slots,
 * every insert of the key walking the whole run (quadratic) and every
 * other key hashed nearby walking it too; with chains a key's rows cost
 * one link each and a probe of another key never sees them except in
 * the rare shared bucket.  Entries never move, so growth re-links the
 * chains without touching hashes or refs, and the order in which a key's
 * rows come out is fixed (newest first) whatever the growth history.  The
 * full 64-bit hash is kept in each entry, so a probe skips all but true
 * hash collisions without looking at a key, and growth needs no rehash.
 *
 * The bucket is the top bits of the hash times an odd constant
 * (Fibonacci hashing): every bit of the hash reaches it, so a table fed
 * one partition of a partitioning that took the hash's low or high bits
 * still spreads over every bucket.
 *
 * Memory per entry: 8 (hash) + 8 (ref) + 4 (next) + 4 (head, as many
 * buckets as entries) = 24 bytes of capacity, charged before it is
 * allocated; while arrays are reallocated the old and new copies coexist
 * briefly, uncharged.  The workload: a build side or a set of groups of
 * up to hundreds of millions of rows, inserted and probed a batch of a
 * few thousand at a time.
 */
#include <stdlib.h>
#include <string.h>

#include "core_alloc.h"
#include "core_debug.h"
#include "core_htab.h"

#define MIN_CAP 1024u
#define ENTRY_BYTES (8u + 8u + 4u + 4u)
#define MAX_ENTRIES (1u << 31)	/* so that nbuckets fits 32 bits */

static inline uint32_t
bucket_of(const struct core_htab *t, uint64_t h)
{
	return (uint32_t)((h * 0x9e3779b97f4a7c15ull) >> t->shift);
}

void
core_htab_init(struct core_htab *t, struct core_mem_part *mem)
{
	memset(t, 0, sizeof(*t));
	t->mem = mem;
	t->shift = 64;
}

void
core_htab_release(struct core_htab *t)
{
	if (t == NULL)
		return;
	free(t->head);
	free(t->hash);
	free(t->ref);
	free(t->next);
	if (t->mem != NULL && t->charged > 0)
		core_mem_part_release(t->mem, t->charged);
	core_htab_init(t, t->mem);
}

void
core_htab_reset(struct core_htab *t)
{
	t->count = 0;
	if (t->head != NULL)
		memset(t->head, 0, (size_t)t->nbuckets * sizeof(*t->head));
}

/* Grows to ncap entries and buckets (a power of two), re-linking every
 * entry; the charge has been taken. */
static void
grow(struct core_htab *t, size_t ncap)
{
	size_t c;
	uint32_t e, b;
	unsigned bits = 0;

	c = t->cap;
	t->hash = core_grow(t->hash, &c, ncap, sizeof(*t->hash), MIN_CAP);
	c = t->cap;
	t->ref = core_grow(t->ref, &c, ncap, sizeof(*t->ref), MIN_CAP);
	c = t->cap;
	t->next = core_grow(t->next, &c, ncap, sizeof(*t->next), MIN_CAP);
	CORE_DCHECK(c == ncap);
	t->cap = ncap;
	free(t->head);
	t->head = core_xcalloc(ncap, sizeof(*t->head));
	t->nbuckets = (uint32_t)ncap;
	while (((size_t)1 << bits) < ncap)
		bits++;
	t->shift = 64 - bits;
	for (e = 1; e <= t->count; e++) {
		b = bucket_of(t, t->hash[e - 1]);
		t->next[e - 1] = t->head[b];
		t->head[b] = e;
	}
}

int
core_htab_insert(struct core_htab *t, const uint64_t *hashes,
    const uint32_t *sel, uint32_t n, uint32_t src, struct core_err *err)
{
	uint64_t hi = (uint64_t)src << 32;
	uint32_t i, e, b;
	size_t need, ncap;

	if (n == 0)
		return 0;
	if (n > MAX_ENTRIES - t->count)
		return core_err_set(err, CORE_ELIMIT, "hash table full: more "
		    "than %u entries", MAX_ENTRIES);
	need = (size_t)t->count + n;
	if (need > t->cap) {
		uint64_t bytes;

		ncap = t->cap > MIN_CAP ? t->cap : MIN_CAP;
		while (ncap < need)
			ncap *= 2;
		bytes = (uint64_t)ncap * ENTRY_BYTES;
		if (t->mem != NULL) {
			if (core_mem_part_try_charge(t->mem,
			    bytes - t->charged) != 0)
				return core_err_set(err, CORE_ELIMIT, "hash "
				    "table full: growing to %llu bytes is "
				    "over the budget",
				    (unsigned long long)bytes);
		}
		t->charged = bytes;
		grow(t, ncap);
	}
	for (i = 0; i < n; i++) {
		uint32_t row = sel != NULL ? sel[i] : i;

		e = t->count + i + 1;
		t->hash[e - 1] = hashes[i];
		t->ref[e - 1] = hi | row;
		b = bucket_of(t, hashes[i]);
		t->next[e - 1] = t->head[b];
		t->head[b] = e;
	}
	t->count += n;
	return 0;
}

void
core_htab_probe(const struct core_htab *t, const uint64_t *hashes,
    uint32_t n, uint32_t *cand)
{
	uint32_t i, e;

	if (t->count == 0) {
		memset(cand, 0, (size_t)n * sizeof(*cand));
		return;
	}
	/* A pass per level, each prefetching what the next reads: the
	 * loads of one pass are independent, so the cache misses of a
	 * large table overlap instead of queueing behind each chain
	 * walk. */
	for (i = 0; i < n; i++) {
		cand[i] = bucket_of(t, hashes[i]);
		__builtin_prefetch(&t->head[cand[i]]);
	}
	for (i = 0; i < n; i++) {
		cand[i] = t->head[cand[i]];
		if (cand[i] != CORE_HTAB_NONE)
			__builtin_prefetch(&t->hash[cand[i] - 1]);
	}
	for (i = 0; i < n; i++) {
		e = cand[i];
		while (e != CORE_HTAB_NONE && t->hash[e - 1] != hashes[i])
			e = t->next[e - 1];
		cand[i] = e;
	}
}

void
core_htab_next(const struct core_htab *t, uint32_t *cand, uint32_t n)
{
	uint32_t i, e;
	uint64_t h;

	for (i = 0; i < n; i++) {
		if ((e = cand[i]) == CORE_HTAB_NONE)
			continue;
		h = t->hash[e - 1];
		e = t->next[e - 1];
		while (e != CORE_HTAB_NONE && t->hash[e - 1] != h)
			e = t->next[e - 1];
		cand[i] = e;
	}
}

void
core_htab_refs(const struct core_htab *t, const uint32_t *cand, uint32_t n,
    uint64_t *refs)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		CORE_DCHECK(cand[i] != CORE_HTAB_NONE && cand[i] <= t->count);
		refs[i] = t->ref[cand[i] - 1];
	}
}
