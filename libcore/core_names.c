/*
 * core_names.c - a set of names with their indices (core_names.h).
 *
 * Open addressing with linear probing on XXH3 hashes, at most half full,
 * so a lookup is a probe or two.  Invariant: every held name sits in the
 * run of occupied slots that starts at its hash's home slot; names are
 * never removed, so no tombstones.
 *
 * Workload: one schema's column names, from a few to a few hundred
 * thousand, each added once and looked up a few times; the set lives as
 * long as the header or schema it checks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "core_alloc.h"
#include "core_names.h"

void
core_names_init(struct core_names *s)
{
	memset(s, 0, sizeof(*s));
}

void
core_names_release(struct core_names *s)
{
	size_t i;

	if (s == NULL)
		return;
	for (i = 0; i < s->cap; i++)
		free(s->ent[i].name);
	free(s->ent);
	memset(s, 0, sizeof(*s));
}

/* The slot holding name, or the free slot where it would go. */
static size_t
slot(const struct core_names *s, const char *name, size_t len, uint64_t h)
{
	size_t mask = s->cap - 1, i = (size_t)h & mask;

	while (s->ent[i].name != NULL && (s->ent[i].hash != h ||
	    strncmp(s->ent[i].name, name, len) != 0 ||
	    s->ent[i].name[len] != '\0'))
		i = (i + 1) & mask;
	return i;
}

static void
grow(struct core_names *s)
{
	struct core_names_ent *old = s->ent;
	size_t ocap = s->cap, i;

	s->cap = ocap ? ocap * 2 : 16;
	s->ent = core_xcalloc(s->cap, sizeof(*s->ent));
	for (i = 0; i < ocap; i++) {
		size_t j;

		if (old[i].name == NULL)
			continue;
		for (j = (size_t)old[i].hash & (s->cap - 1);
		    s->ent[j].name != NULL; j = (j + 1) & (s->cap - 1))
			;
		s->ent[j] = old[i];
	}
	free(old);
}

int64_t
core_names_find(const struct core_names *s, const char *name)
{
	size_t len = strlen(name), i;

	if (s->count == 0)
		return -1;
	i = slot(s, name, len, XXH3_64bits(name, len));
	return s->ent[i].name != NULL ? (int64_t)s->ent[i].val : -1;
}

/* Adds a copy of name (len bytes, hash h), which the set does not
 * hold. */
static void
insert(struct core_names *s, const char *name, size_t len, uint64_t h,
    uint32_t val)
{
	size_t i;

	if ((s->count + 1) * 2 > s->cap)
		grow(s);
	i = slot(s, name, len, h);
	s->ent[i].hash = h;
	s->ent[i].name = core_xstrndup(name, len);
	s->ent[i].val = val;
	s->ent[i].next = 1;
	s->count++;
}

int
core_names_add(struct core_names *s, const char *name, uint32_t val)
{
	size_t len = strlen(name);
	uint64_t h = XXH3_64bits(name, len);

	if (s->count > 0 && s->ent[slot(s, name, len, h)].name != NULL)
		return 0;
	insert(s, name, len, h, val);
	return 1;
}

char *
core_names_unique(struct core_names *s, const char *want, uint32_t val)
{
	size_t wlen = strlen(want), size = wlen + 24, i, len;
	uint64_t h = XXH3_64bits(want, wlen);
	char *name;
	uint32_t k;

	if (s->count == 0 || s->ent[i = slot(s, want, wlen, h)].name ==
	    NULL) {
		insert(s, want, wlen, h, val);
		return core_xstrndup(want, wlen);
	}
	/* Names are only added, so a suffix of want once taken stays
	 * taken: the search goes on from where the last one stopped. */
	name = core_xmalloc(size);
	for (k = s->ent[i].next;; k++) {
		len = (size_t)snprintf(name, size, "%s_%u", want, k);
		h = XXH3_64bits(name, len);
		if (s->ent[slot(s, name, len, h)].name == NULL)
			break;
	}
	s->ent[i].next = k + 1;
	insert(s, name, len, h, val);
	return name;
}

ssize_t
core_names_first_dup(const char *(*name_at)(const void *, size_t),
    const void *arg, size_t n)
{
	struct core_names s;
	size_t i;

	core_names_init(&s);
	for (i = 0; i < n; i++)
		if (core_names_add(&s, name_at(arg, i), (uint32_t)i) == 0)
			break;
	core_names_release(&s);
	return i < n ? (ssize_t)i : -1;
}
