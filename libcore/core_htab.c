/*
 * core_htab.c - a chained hash table of (hash, row reference) entries.
 *
 * Layout: entries live in one array in insertion order, numbered from 1,
 * each its row reference, its hash's tag and the previous entry of its
 * bucket (0 ending the chain); head[b] is the newest entry of bucket b.
 * Invariants: cap is a power of two (at least MIN_CAP) or 0, nbuckets is
 * twice cap (at most 2^31), so the load never passes one half; every
 * entry 1..count is on exactly one chain, the one of its tag's bucket,
 * and each chain runs from newer to older entries.
 *
 * Why chaining and not open addressing: a join's build side has keys with
 * many rows (a foreign key), and all of a key's rows share one hash.
 * Under open addressing they would fill one run of consecutive slots,
 * every insert of the key walking the whole run (quadratic) and every
 * other key hashed nearby walking it too; with chains a key's rows cost
 * one link each and a probe of another key never sees them except in
 * the rare shared bucket.  Entries never move, so growth re-links the
 * chains without touching refs, and the order in which a key's rows come
 * out is fixed (newest first) whatever the growth history.
 *
 * Why one array of entries and a 32-bit tag: a probe of a large table
 * misses the cache on the bucket's head, then on the entry; with the
 * tag, reference and link in one 16-byte entry (four to a cache line,
 * none across two) that is all it misses before the caller's key check,
 * where three parallel arrays missed once each.  The tag rules out all
 * but one in 2^32 of the other hashes met on a chain, and the caller's
 * key check decides the rest.  Half-full buckets keep most chains at one
 * entry, so a probe of a unique key seldom follows a link.
 *
 * The bucket is the top bits of the tag times an odd constant (Fibonacci
 * hashing): every bit of the tag reaches it, and the tag folds both
 * halves of the hash, so a table fed one partition of a partitioning that
 * took the hash's low or high bits still spreads over every bucket.
 *
 * Memory per entry of capacity: 16 (the entry) + 8 (two heads) = 24
 * bytes (CORE_HTAB_ENTRY_BYTES), charged before it is allocated; while
 * the entries are reallocated the old and new copies coexist briefly,
 * uncharged.  The workload: a build side or a set of groups of up to
 * hundreds of millions of rows, inserted and probed a batch of a few
 * thousand at a time.
 */
#include <stdlib.h>
#include <string.h>

#include "core_alloc.h"
#include "core_debug.h"
#include "core_htab.h"

#define MIN_CAP 1024u
#define ENTRY_BYTES CORE_HTAB_ENTRY_BYTES
#define MAX_ENTRIES (1u << 31)	/* so that entries number in 32 bits */
#define MAX_BUCKETS (1u << 31)
/* How far ahead of its use a bucket head is prefetched. */
#define AHEAD 16u

static inline uint32_t
bucket_of(const struct core_htab *t, uint32_t tag)
{
	return (uint32_t)((uint64_t)(uint32_t)(tag * 0x9e3779b9u) >>
	    t->shift);
}

void
core_htab_init(struct core_htab *t, struct core_mem_part *mem)
{
	memset(t, 0, sizeof(*t));
	t->mem = mem;
	t->shift = 32;
}

void
core_htab_release(struct core_htab *t)
{
	if (t == NULL)
		return;
	free(t->head);
	free(t->ent);
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

/* Grows to ncap entries and twice as many buckets (powers of two),
 * re-linking every entry; the charge has been taken. */
static void
grow(struct core_htab *t, size_t ncap)
{
	size_t c = t->cap, nb = ncap * 2 < MAX_BUCKETS ? ncap * 2 :
	    MAX_BUCKETS;
	uint32_t e, b;
	unsigned bits = 0;

	t->ent = core_grow(t->ent, &c, ncap, sizeof(*t->ent), MIN_CAP);
	CORE_DCHECK(c == ncap);
	t->cap = ncap;
	free(t->head);
	t->head = core_xcalloc(nb, sizeof(*t->head));
	t->nbuckets = (uint32_t)nb;
	while (((size_t)1 << bits) < nb)
		bits++;
	t->shift = 32 - bits;
	for (e = 1; e <= t->count; e++) {
		struct core_htab_entry *x = &t->ent[e - 1];

		if (e + AHEAD <= t->count)
			__builtin_prefetch(&t->head[bucket_of(t,
			    t->ent[e + AHEAD - 1].tag)], 1);
		b = bucket_of(t, x->tag);
		x->next = t->head[b];
		t->head[b] = e;
	}
}

/* Room for need entries: 0, or CORE_ELIMIT when the charge is refused. */
static int
ensure_cap(struct core_htab *t, size_t need, struct core_err *err)
{
	uint64_t bytes;
	size_t ncap;

	if (need <= t->cap)
		return 0;
	if (need > MAX_ENTRIES)
		return core_err_set(err, CORE_ELIMIT, "hash table full: more "
		    "than %u entries", MAX_ENTRIES);
	ncap = t->cap > MIN_CAP ? t->cap : MIN_CAP;
	while (ncap < need)
		ncap *= 2;
	bytes = (uint64_t)ncap * ENTRY_BYTES;
	if (t->mem != NULL && core_mem_part_try_charge(t->mem,
	    bytes - t->charged) != 0)
		return core_err_set(err, CORE_ELIMIT, "hash table full: "
		    "growing to %llu bytes is over the budget",
		    (unsigned long long)bytes);
	t->charged = bytes;
	grow(t, ncap);
	return 0;
}

int
core_htab_reserve(struct core_htab *t, size_t n, struct core_err *err)
{
	return ensure_cap(t, n, err);
}

/* Inserts n entries of hashes[i], each referenced as refs[i], or (refs
 * NULL) as src << 32 | row sel[i] (sel NULL: row i). */
static int
insert(struct core_htab *t, const uint64_t *hashes, const uint64_t *refs,
    const uint32_t *sel, uint32_t n, uint32_t src, struct core_err *err)
{
	uint64_t hi = (uint64_t)src << 32;
	uint32_t i, e, b, tag;
	int rc;

	if (n == 0)
		return 0;
	if (n > MAX_ENTRIES - t->count)
		return core_err_set(err, CORE_ELIMIT, "hash table full: more "
		    "than %u entries", MAX_ENTRIES);
	if ((rc = ensure_cap(t, (size_t)t->count + n, err)) != 0)
		return rc;
	for (i = 0; i < n; i++) {
		uint32_t row = sel != NULL ? sel[i] : i;
		struct core_htab_entry *x;

		/* The head a later row links into, fetched while this
		 * one is linked: the heads of a large table miss. */
		if (i + AHEAD < n)
			__builtin_prefetch(&t->head[bucket_of(t,
			    core_htab_tag(hashes[i + AHEAD]))], 1);
		e = t->count + i + 1;
		x = &t->ent[e - 1];
		tag = core_htab_tag(hashes[i]);
		x->ref = refs != NULL ? refs[i] : hi | row;
		x->tag = tag;
		b = bucket_of(t, tag);
		x->next = t->head[b];
		t->head[b] = e;
	}
	t->count += n;
	return 0;
}

int
core_htab_insert(struct core_htab *t, const uint64_t *hashes,
    const uint32_t *sel, uint32_t n, uint32_t src, struct core_err *err)
{
	return insert(t, hashes, NULL, sel, n, src, err);
}

int
core_htab_insert_hashed(struct core_htab *t, const uint64_t *hashes,
    uint32_t n, struct core_err *err)
{
	return insert(t, hashes, hashes, NULL, n, 0, err);
}

void
core_htab_probe(const struct core_htab *t, const uint64_t *hashes,
    uint32_t n, uint32_t *cand)
{
	uint32_t i, e, tag;

	if (t->count == 0) {
		memset(cand, 0, (size_t)n * sizeof(*cand));
		return;
	}
	/* A pass per level, each prefetching what the next reads: the
	 * loads of one pass are independent, so the cache misses of a
	 * large table overlap instead of queueing behind each chain
	 * walk. */
	for (i = 0; i < n; i++) {
		cand[i] = bucket_of(t, core_htab_tag(hashes[i]));
		__builtin_prefetch(&t->head[cand[i]]);
	}
	for (i = 0; i < n; i++) {
		cand[i] = t->head[cand[i]];
		if (cand[i] != CORE_HTAB_NONE)
			__builtin_prefetch(&t->ent[cand[i] - 1]);
	}
	for (i = 0; i < n; i++) {
		tag = core_htab_tag(hashes[i]);
		e = cand[i];
		while (e != CORE_HTAB_NONE && t->ent[e - 1].tag != tag)
			e = t->ent[e - 1].next;
		cand[i] = e;
	}
}

void
core_htab_next(const struct core_htab *t, uint32_t *cand, uint32_t n)
{
	uint32_t i, e, tag;

	for (i = 0; i < n; i++) {
		if ((e = cand[i]) == CORE_HTAB_NONE)
			continue;
		tag = t->ent[e - 1].tag;
		e = t->ent[e - 1].next;
		while (e != CORE_HTAB_NONE && t->ent[e - 1].tag != tag)
			e = t->ent[e - 1].next;
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
		refs[i] = t->ent[cand[i] - 1].ref;
	}
}
