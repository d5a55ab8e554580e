/*
 * core_htab.h - a hash table of row references.
 *
 * The table a join builds from its build side and an aggregation keeps
 * its groups in: each entry is a row's 64-bit hash (core_hash.h) and the
 * row's reference (source batch << 32 | row, the convention of
 * core_gather.h).  The table knows nothing of keys: a probe returns the
 * entries whose hash equals the probe's, the caller checks their keys
 * with core_hash_equal and gathers the matches with core_gather.  Every
 * entry of a hash is found, so every build row of a key is.
 *
 * Memory is charged to a part of the stage's budget as the table grows;
 * when the charge is refused an insert adds nothing and says CORE_ELIMIT:
 * the table is full, the caller spills.
 */
#ifndef CORE_HTAB_H
#define CORE_HTAB_H

#include <stdint.h>

#include "core_err.h"
#include "core_mem.h"

/* Entries are numbered from 1 in the order they were inserted; 0 means
 * none (the end of a probe). */
#define CORE_HTAB_NONE 0u

/*
 * Embedded; core_htab_init, then core_htab_release.  The fields are for
 * reading (core_htab_ref and the tests); only the functions change them.
 */
struct core_htab {
	struct core_mem_part *mem;	/* borrowed; NULL: nothing charged */
	uint32_t count;			/* entries */
	uint32_t *head;			/* owned, nbuckets: first entry */
	uint32_t nbuckets;		/* 0 or a power of two, == cap */
	unsigned shift;			/* 64 - log2(nbuckets) */
	uint64_t *hash;			/* owned, cap: entry e at [e - 1] */
	uint64_t *ref;			/* owned, cap */
	uint32_t *next;			/* owned, cap: the next entry in
					   the same bucket */
	size_t cap;			/* entries the arrays hold */
	uint64_t charged;		/* bytes charged to mem */
};

/* An empty table charging mem (borrowed, may be NULL). */
void core_htab_init(struct core_htab *t, struct core_mem_part *mem);
/* Frees the arrays and gives their charge back.  Accepts NULL. */
void core_htab_release(struct core_htab *t);
/* Empties the table, keeping its memory (and charge) for reuse. */
void core_htab_reset(struct core_htab *t);

/*
 * Inserts n rows of batch src: row sel[i] (sel NULL: row i) with hash
 * hashes[i], referenced as src << 32 | row.  0, or CORE_ELIMIT with a
 * message when the growth it needs is refused by the budget (or the
 * table would pass 2^31 entries): then nothing of the batch is
 * inserted and the table is as it was.  Arrays borrowed for the call.
 */
int core_htab_insert(struct core_htab *t, const uint64_t *hashes,
    const uint32_t *sel, uint32_t n, uint32_t src, struct core_err *err);

/*
 * cand[i] (caller's array of n) = the newest entry whose hash equals
 * hashes[i], or CORE_HTAB_NONE.  Entries of a hash come newest first.
 */
void core_htab_probe(const struct core_htab *t, const uint64_t *hashes,
    uint32_t n, uint32_t *cand);

/* Moves each cand[i] to the next older entry with the same hash (or
 * CORE_HTAB_NONE); a cand[i] already CORE_HTAB_NONE stays so. */
void core_htab_next(const struct core_htab *t, uint32_t *cand, uint32_t n);

/* The row reference of entry e (1 <= e <= count). */
static inline uint64_t
core_htab_ref(const struct core_htab *t, uint32_t e)
{
	return t->ref[e - 1];
}

/* refs[i] = core_htab_ref(t, cand[i]) for n entries, none of them
 * CORE_HTAB_NONE (the caller compacts first). */
void core_htab_refs(const struct core_htab *t, const uint32_t *cand,
    uint32_t n, uint64_t *refs);

#endif
