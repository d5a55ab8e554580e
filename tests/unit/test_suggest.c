/*
 * test_suggest.c - core_suggest's edit distance against the recursive
 * definition on random short names, and which candidates it offers.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core_suggest.h"
#include "unit.h"

/* Optimal string alignment distance, straight from its recurrence:
 * exponential, so only for the short names below. */
static size_t
ref_distance(const char *a, size_t la, const char *b, size_t lb)
{
	size_t best, d;

	if (la == 0)
		return lb;
	if (lb == 0)
		return la;
	best = ref_distance(a, la - 1, b, lb) + 1;
	if ((d = ref_distance(a, la, b, lb - 1) + 1) < best)
		best = d;
	d = ref_distance(a, la - 1, b, lb - 1) +
	    (tolower((unsigned char)a[la - 1]) !=
	    tolower((unsigned char)b[lb - 1]));
	if (d < best)
		best = d;
	if (la > 1 && lb > 1 &&
	    tolower((unsigned char)a[la - 1]) ==
	    tolower((unsigned char)b[lb - 2]) &&
	    tolower((unsigned char)a[la - 2]) ==
	    tolower((unsigned char)b[lb - 1]) &&
	    (d = ref_distance(a, la - 2, b, lb - 2) + 1) < best)
		best = d;
	return best;
}

static void
rand_name(char *s)
{
	static const char alpha[] = "abAB_c";
	size_t n = (size_t)(unit_rand() % 7), i;

	for (i = 0; i < n; i++)
		s[i] = alpha[unit_rand() % (sizeof(alpha) - 1)];
	s[n] = '\0';
}

static void
test_distance_vs_reference(void)
{
	char a[8], b[8];
	int i, bad = 0;

	for (i = 0; i < 20000; i++) {
		rand_name(a);
		rand_name(b);
		if (core_suggest_distance(a, b) !=
		    ref_distance(a, strlen(a), b, strlen(b)))
			bad++;
	}
	CHECK_EQ_INT(bad, 0);
	CHECK_EQ_INT(core_suggest_distance("amount", "amuont"), 1);
	CHECK_EQ_INT(core_suggest_distance("Amount", "amount"), 0);
	memset(a, 0, sizeof(a));
	{
		char big[80];

		memset(big, 'x', sizeof(big) - 1);
		big[sizeof(big) - 1] = '\0';
		CHECK(core_suggest_distance(big, "x") == (size_t)-1);
	}
}

static void
test_closest(void)
{
	static const char *const cols[] = { "id", "name", "amount",
	    "l_shipdate" };

	CHECK_EQ_INT(core_suggest_closest("amuont", cols, 4), 2);
	CHECK_EQ_INT(core_suggest_closest("Amount", cols, 4), 2);
	CHECK_EQ_INT(core_suggest_closest("l_shipdat", cols, 4), 3);
	CHECK_EQ_INT(core_suggest_closest("nosuch", cols, 4), -1);
	/* An exact name is no suggestion; nor is one all different. */
	CHECK_EQ_INT(core_suggest_closest("name", cols, 4), -1);
	CHECK_EQ_INT(core_suggest_closest("x", cols, 4), -1);
	CHECK_EQ_INT(core_suggest_closest("ix", cols, 4), 0);
	CHECK_EQ_INT(core_suggest_closest("amount", cols, 0), -1);
}

int
main(void)
{
	RUN(test_distance_vs_reference);
	RUN(test_closest);
	return unit_done();
}
