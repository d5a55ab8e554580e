/*
 * test_alloc.c - the one growth path (core_grow) against a plain
 * reference, and the overflow checks.
 */
#include <stdint.h>
#include <string.h>

#include "core_alloc.h"
#include "unit.h"

/* Appends random runs to a grown byte buffer and to a fixed reference:
 * the contents agree, the capacity covers the length and only doubles
 * (or jumps to what was asked for). */
static void
test_grow_vs_reference(void)
{
	static unsigned char ref[1 << 20];
	unsigned char *buf = NULL;
	size_t cap = 0, len = 0, prev;
	int i, bad = 0;

	for (i = 0; i < 2000 && len < sizeof(ref) - 5000; i++) {
		size_t n = (size_t)(unit_rand() % (i % 50 == 0 ? 5000 : 40));
		size_t k;

		prev = cap;
		buf = core_grow(buf, &cap, len + n, 1, 16);
		if (cap < len + n)
			bad++;
		if (cap != prev && prev != 0 && cap != 2 * prev &&
		    cap != len + n && cap < 2 * prev)
			bad++;
		for (k = 0; k < n; k++)
			buf[len + k] = ref[len + k] =
			    (unsigned char)unit_rand();
		len += n;
	}
	CHECK_EQ_INT(bad, 0);
	CHECK(memcmp(buf, ref, len) == 0);
	free(buf);
}

static void
test_grow_elements(void)
{
	uint64_t *a = NULL;
	size_t cap = 0, i;

	a = core_grow(a, &cap, 1, sizeof(*a), 8);
	CHECK_EQ_INT(cap, 8);
	for (i = 0; i < 1000; i++) {
		a = core_grow(a, &cap, i + 1, sizeof(*a), 8);
		a[i] = i * 3;
	}
	CHECK(cap >= 1000 && cap <= 2048);
	for (i = 0; i < 1000; i++)
		if (a[i] != i * 3)
			break;
	CHECK_EQ_INT(i, 1000);
	/* Asking for what is there changes nothing. */
	{
		uint64_t *same = core_grow(a, &cap, 10, sizeof(*a), 8);

		CHECK(same == a);
	}
	free(a);
	CHECK_EQ_INT(core_mul_size(1u << 20, 1u << 10), (size_t)1 << 30);
}

int
main(void)
{
	RUN(test_grow_vs_reference);
	RUN(test_grow_elements);
	return unit_done();
}
