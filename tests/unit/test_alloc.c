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

/* core_grow_aligned grows by core_grow's rule (min 64), keeps what was
 * there and hands out 64-byte aligned buffers. */
static void
test_grow_aligned_same_rule(void)
{
	void *a = NULL;
	unsigned char *b = NULL;
	size_t acap = 0, bcap = 0, need = 0, i, k;
	unsigned seed = 7;

	for (k = 0; k < 200; k++) {
		seed = seed * 1103515245u + 12345u;
		need += k == 0 ? 1 : (seed >> 16) % (k < 100 ? 300 : 70000);
		core_grow_aligned(&a, &acap, need);
		b = core_grow(b, &bcap, need, 1, 64);
		CHECK_EQ_INT(acap, bcap);
		CHECK(((uintptr_t)a & 63) == 0);
		for (i = 0; i < acap && i < 4096; i++)
			((unsigned char *)a)[i] = (unsigned char)(i + k);
		if (acap > 0)
			CHECK(((unsigned char *)a)[0] == (unsigned char)k);
	}
	core_free_aligned(a);
	free(b);
}

int
main(void)
{
	RUN(test_grow_vs_reference);
	RUN(test_grow_elements);
	RUN(test_grow_aligned_same_rule);
	return unit_done();
}
