/*
 * core_hash.h - hashing and comparing the key columns of a batch, a batch
 * at a time.
 *
 * A join's build and probe sides, an aggregation's groups and a
 * partitioning all need the same two things of a row's key: a 64-bit hash
 * and an equality with another row's key, so that equal keys hash equal
 * and the table's candidates can be checked.  Both follow the rules SQL
 * joins compare by, which are those of colsort's order
 * (core_sort_compare_key):
 *   - integer-like keys (bool, int32, int64, date, timestamp, decimal)
 *     compare by their value, whatever their width: an int32 5 equals an
 *     int64 5; a decimal compares by the number it stands for, so
 *     decimal(15,2) 1.50 equals decimal(12,1) 1.5;
 *   - float64: -0.0 equals +0.0, every NaN equals every NaN;
 *   - decimal(p > 18) (128 bits): by value among keys of its scale, a
 *     kind of its own (such a key compares with another of its width
 *     and scale only: convert the other side first);
 *   - strings: by their bytes and length;
 *   - NULL: a join drops rows whose key has a NULL (NULL matches nothing),
 *     an aggregation groups them (NULLs equal); the hash reports which
 *     rows those are and the equality is told which rule applies.
 * Keys of different kinds (an integer with a float or a string) are not
 * comparable: core_hash_keys_comparable says no and the caller converts
 * first.
 */
#ifndef CORE_HASH_H
#define CORE_HASH_H

#include <stdbool.h>
#include <stdint.h>

#include "core_col.h"
#include "core_err.h"

#define CORE_HASH_MAX_KEYS 32

/* How a key column's values are read (core_hash_keys_init decides). */
enum core_hash_kind {
	CORE_HASH_KIND_INT = 1,		/* integer-like, compared by value */
	CORE_HASH_KIND_FLOAT = 2,
	CORE_HASH_KIND_STRING = 3,
	CORE_HASH_KIND_WIDE = 4,	/* decimal(p > 18), at its own scale */
};

/*
 * The key columns of one side, checked against its schema and prepared
 * once; plain data, embedded or on the stack, nothing to release.
 *
 * Integer-like keys hash their value at a common scale: the number the
 * value stands for times 10^scale, truncated towards zero.  Two sides
 * whose keys are to match must use the same common scale per key, at
 * most the smaller of their own scales (0 for integers, a decimal's scale
 * otherwise): a decimal(15,2) joined with a decimal(12,1) uses 1, with an
 * int64 uses 0.  A value with digits below the common scale (1.55 at
 * scale 1) equals nothing on a side with that scale, so the truncation
 * only costs it a collision, never a wrong match: the equality compares
 * exact values.
 */
struct core_hash_keys {
	uint32_t nkeys;
	uint32_t col[CORE_HASH_MAX_KEYS];	/* column index in the batch */
	uint8_t kind[CORE_HASH_MAX_KEYS];	/* enum core_hash_kind */
	uint8_t type[CORE_HASH_MAX_KEYS];	/* enum core_type */
	uint8_t own_scale[CORE_HASH_MAX_KEYS];	/* decimal's scale, else 0 */
	uint8_t scale[CORE_HASH_MAX_KEYS];	/* common scale */
	int64_t div[CORE_HASH_MAX_KEYS];	/* 10^(own_scale - scale) */
	int path;				/* private: which hash path */
};

/*
 * Prepares keys cols[0..nkeys) of schema (borrowed for the call only).
 * scales[i] is key i's common scale (see above); scales NULL means each
 * key's own scale (one side hashed alone, as an aggregation does).
 * 0, or CORE_EUSAGE with a message (no keys, too many, a column out of
 * range, a common scale above the key's own, or other than its own for a
 * decimal(p > 18)).
 */
int core_hash_keys_init(struct core_hash_keys *k,
    const struct core_schema *schema, const uint32_t *cols,
    const uint8_t *scales, uint32_t nkeys, struct core_err *err);

/* Whether rows hashed with a and with b can be compared: as many keys,
 * each of the same kind and common scale.  Equal keys of such sides hash
 * equal (with the same seed). */
bool core_hash_keys_comparable(const struct core_hash_keys *a,
    const struct core_hash_keys *b);

/*
 * Hashes the key of n rows of b: rows sel[0..n), or rows 0..n when sel is
 * NULL.  hash[i] (caller's array of n) is row i's hash under seed (a
 * partitioning re-hashes with another seed); null[i] (caller's array of n
 * bytes, or NULL when not wanted) is 1 when some key column of row i is
 * NULL, else 0.  Returns how many rows have a NULL key.  Rows with a NULL
 * key still get a hash, equal for equal keys under NULLs-equal, for an
 * aggregation to group them.  No allocation.
 *
 * Which function of the values the hash is depends only on the keys'
 * kinds (and never on their widths): one integer key mixes its value; two
 * pack into one exact 64-bit word when both values fit 32 bits (always
 * for int32 and date); one or two short strings pack the same way; any
 * other key hashes with XXH3, key after key.
 */
uint32_t core_hash_batch(const struct core_hash_keys *k,
    const struct core_batch *b, const uint32_t *sel, uint32_t n,
    uint64_t seed, uint64_t *hash, uint8_t *null);

/*
 * core_hash_batch, and exact[i] (caller's array of n, or NULL) = 1 where
 * row i's hash is exact: distinct keys of exact rows (under the same
 * keys, scales and seed) never hash equal, so two exact rows have equal
 * keys exactly when their hashes are equal, and an exact row's key
 * equals no key of a row that is not.  Exact: a key with no NULL that
 * is one integer-like or float64 column, two integer-like columns
 * whose values both lie within int32, one string column of at most 7
 * bytes or two of at most 3 bytes each (the functions at the top of
 * core_hash.c that are bijections), none of them hashed at a scale
 * smaller than its own; every other row is 0.
 */
uint32_t core_hash_batch_exact(const struct core_hash_keys *k,
    const struct core_batch *b, const uint32_t *sel, uint32_t n,
    uint64_t seed, uint64_t *hash, uint8_t *null, uint8_t *exact);

/*
 * Compares n candidate pairs: eq[i] (caller's array of n bytes) = 1 when
 * the key of row rows_a[i] of a (ka's keys; rows_a NULL: row i) equals the
 * key of row (uint32_t)refs_b[i] of batch srcs_b[refs_b[i] >> 32] (kb's
 * keys; the reference convention of core_gather.h), else 0.  ka and kb
 * must be comparable.  With nulls_equal two NULLs in a key column are
 * equal (grouping); without, a NULL equals nothing (a join).  Arrays and
 * batches borrowed for the call.
 */
void core_hash_equal(const struct core_hash_keys *ka,
    const struct core_batch *a, const uint32_t *rows_a,
    const struct core_hash_keys *kb, const struct core_batch *const *srcs_b,
    const uint64_t *refs_b, uint32_t n, bool nulls_equal, uint8_t *eq);

#endif
