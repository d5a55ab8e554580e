/*
 * test_names.c - core_names against a list searched from end to end: the
 * same indices found and the same unique names made, on random names from
 * a tiny alphabet so that duplicates and made-up names that collide with
 * later real ones ("a", "a", "a_1") are common.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core_names.h"
#include "unit.h"

/* The reference: the index of name among the first n of list, or -1. */
static int64_t
ref_find(char **list, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(list[i], name) == 0)
			return (int64_t)i;
	return -1;
}

/* The reference's unique name: want, else the smallest want_k unused. */
static char *
ref_unique(char **list, size_t n, const char *want)
{
	char *name = malloc(strlen(want) + 24);
	unsigned k = 1;

	strcpy(name, want);
	while (ref_find(list, n, name) >= 0)
		sprintf(name, "%s_%u", want, k++);
	return name;
}

static void
random_name(char *buf)
{
	static const char alpha[] = "ab_1";
	size_t len = unit_rand() % 4, i;

	for (i = 0; i < len; i++)
		buf[i] = alpha[unit_rand() % 4];
	buf[len] = '\0';
}

static void
test_unique_vs_reference(void)
{
	enum { N = 1500 };
	char **list = calloc(N, sizeof(*list)), want[8];
	struct core_names s;
	size_t i;
	int round;

	for (round = 0; round < 4; round++) {
		core_names_init(&s);
		for (i = 0; i < N; i++) {
			char *got, *ref;

			random_name(want);
			ref = ref_unique(list, i, want);
			got = core_names_unique(&s, want, (uint32_t)i);
			CHECK_EQ_STR(got, ref);
			free(got);
			list[i] = ref;
		}
		CHECK_EQ_INT(s.count, N);
		for (i = 0; i < 200; i++) {
			random_name(want);
			CHECK_EQ_INT(core_names_find(&s, want),
			    ref_find(list, N, want));
			CHECK_EQ_INT(core_names_find(&s, list[i * 7]),
			    (int64_t)(i * 7));
		}
		core_names_release(&s);
		for (i = 0; i < N; i++)
			free(list[i]);
	}
	free(list);
}

static void
test_add_and_find(void)
{
	struct core_names s;

	core_names_init(&s);
	CHECK_EQ_INT(core_names_find(&s, "a"), -1);
	CHECK_EQ_INT(core_names_add(&s, "a", 7), 1);
	CHECK_EQ_INT(core_names_add(&s, "a", 8), 0);
	CHECK_EQ_INT(core_names_add(&s, "", 9), 1);
	CHECK_EQ_INT(core_names_find(&s, "a"), 7);
	CHECK_EQ_INT(core_names_find(&s, ""), 9);
	/* A prefix of a held name is not held. */
	CHECK_EQ_INT(core_names_add(&s, "abc", 1), 1);
	CHECK_EQ_INT(core_names_find(&s, "ab"), -1);
	core_names_release(&s);
	core_names_release(NULL);
}

int
main(void)
{
	RUN(test_add_and_find);
	RUN(test_unique_vs_reference);
	return unit_done();
}
