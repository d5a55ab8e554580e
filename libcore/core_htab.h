/*
 * core_htab.h - a hash table of row references.
 *
 * The table a join builds from its build side and an aggregation keeps
 * its groups in: each entry is a row's reference (source batch << 32 |
 * row, the convention of core_gather.h) under the tag of its 64-bit hash
 * (core_hash.h), 32 bits of it (core_htab_tag).  The table knows nothing
 * of keys: a probe returns the entries whose tag equals the probe's
 * hash's, the caller checks their keys with core_hash_equal and gathers
 * the matches with core_gather.  Every entry of a hash is found, so every
 * build row of a key is; an entry of another hash comes with them only
 * when the tags agree (about one pair in 2^32), and its key check fails.
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

/* Bytes of memory an entry of capacity takes: 16 for the entry and 8 for
 * its two bucket heads. */
#define CORE_HTAB_ENTRY_BYTES 24u

/* One entry: a row reference, its hash's tag and the entry inserted
 * before it in its bucket (or CORE_HTAB_NONE).  A probe reads all three
 * from one cache line. */
struct core_htab_entry {
	uint64_t ref;
	uint32_t tag;
	uint32_t next;
};

/* The 32 bits of a 64-bit hash the table keeps: both halves, so that a
 * partitioning that used either half leaves the tags spread. */
static inline uint32_t
core_htab_tag(uint64_t h)
{
	return (uint32_t)(h ^ (h >> 32));
}

/*
 * Embedded; core_htab_init, then core_htab_release.  The fields are for
 * reading (core_htab_ref and the tests); only the functions change them.
 */
struct core_htab {
	struct core_mem_part *mem;	/* borrowed; NULL: nothing charged */
	uint32_t count;			/* entries */
	uint32_t *head;			/* owned, nbuckets: newest entry */
	uint32_t nbuckets;		/* 0 or a power of two, 2 * cap
					   (at most 2^31) */
	unsigned shift;			/* 32 - log2(nbuckets) */
	struct core_htab_entry *ent;	/* owned, cap: entry e at [e - 1] */
	size_t cap;			/* entries ent holds */
	uint64_t charged;		/* bytes charged to mem */
};

/* An empty table charging mem (borrowed, may be NULL). */
void core_htab_init(struct core_htab *t, struct core_mem_part *mem);
/* Frees the arrays and gives their charge back.  Accepts NULL. */
void core_htab_release(struct core_htab *t);
/* Empties the table, keeping its memory (and charge) for reuse. */
void core_htab_reset(struct core_htab *t);

/*
 * Makes room for n entries in all, so that inserting them grows nothing,
 * charging mem as an insert would: 0, or CORE_ELIMIT as core_htab_insert
 * (the table then as it was).
 */
int core_htab_reserve(struct core_htab *t, size_t n, struct core_err *err);

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
 * As core_htab_insert, each entry's reference being its whole hash: for
 * a caller that knows an entry's row by its number (entry e is the e-th
 * inserted) and compares hashes first (core_hash_batch_exact).
 */
int core_htab_insert_hashed(struct core_htab *t, const uint64_t *hashes,
    uint32_t n, struct core_err *err);

/*
 * cand[i] (caller's array of n) = the newest entry whose tag equals
 * hashes[i]'s, or CORE_HTAB_NONE.  Entries of a tag come newest first.
 */
void core_htab_probe(const struct core_htab *t, const uint64_t *hashes,
    uint32_t n, uint32_t *cand);

/* Moves each cand[i] to the next older entry with the same tag (or
 * CORE_HTAB_NONE); a cand[i] already CORE_HTAB_NONE stays so. */
void core_htab_next(const struct core_htab *t, uint32_t *cand, uint32_t n);

/* The row reference of entry e (1 <= e <= count). */
static inline uint64_t
core_htab_ref(const struct core_htab *t, uint32_t e)
{
	return t->ent[e - 1].ref;
}

/* refs[i] = core_htab_ref(t, cand[i]) for n entries, none of them
 * CORE_HTAB_NONE (the caller compacts first). */
void core_htab_refs(const struct core_htab *t, const uint32_t *cand,
    uint32_t n, uint64_t *refs);

#endif
