/*
 * core_names.h - a set of names (column names) with their indices, for
 * finding a name and making names unique in time linear in their number.
 *
 * A header of 100k columns, or 8000 copies of one name, is hostile but
 * legal input: a schema's names are checked and renamed through this set
 * rather than by comparing each name with every earlier one.
 */
#ifndef CORE_NAMES_H
#define CORE_NAMES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct core_names_ent {
	uint64_t hash;
	char *name;		/* owned; NULL: the slot is free */
	uint32_t val;		/* the index given with the name */
	uint32_t next;		/* core_names_unique: the next suffix to try */
};

/* Embedded; zeroed or core_names_init, then core_names_release. */
struct core_names {
	struct core_names_ent *ent;	/* owned, cap slots */
	size_t cap;			/* 0 or a power of two */
	size_t count;			/* names held, at most cap / 2 */
};

void core_names_init(struct core_names *s);
/* Frees the names and slots.  Accepts NULL. */
void core_names_release(struct core_names *s);

/* The index given with name, or -1 when the set does not hold it. */
int64_t core_names_find(const struct core_names *s, const char *name);

/* Adds a copy of name with index val: 1, or 0 (and nothing changes)
 * when the set holds name already. */
int core_names_add(struct core_names *s, const char *name, uint32_t val);

/*
 * The first of want, want_1, want_2, ... that the set does not hold,
 * added with index val; the caller owns the string returned.  The same
 * name as a loop over the suffixes would give, but each suffix of a want
 * is tried once over all calls, so n copies of a name cost O(n).
 */
char *core_names_unique(struct core_names *s, const char *want,
    uint32_t val);

/*
 * The first i in [0, n) whose name (name_at(arg, i)) one before it has,
 * or -1 when the n names differ: the check that a stream names each
 * column once, in time linear in n.
 */
ssize_t core_names_first_dup(const char *(*name_at)(const void *, size_t),
    const void *arg, size_t n);

#endif
