/*
 * unit.h - the tiny test framework of the libcore unit tests.
 *
 * Each tests/unit/test_<mod>.c is one program that prints TAP: one
 * "ok N - name" or "not ok N - name" line per test, diagnostics on "# "
 * lines, and the plan "1..N" at the end.  tests/run-all.sh sums the TAP
 * of every suite into the final "N passed, M failed" line.
 *
 *	static void test_something(void) {
 *		CHECK(x == 1);
 *		CHECK_EQ_INT(got, want);
 *	}
 *	int main(void) {
 *		RUN(test_something);
 *		return unit_done();
 *	}
 */
#ifndef UNIT_H
#define UNIT_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int unit_ntests, unit_nfailed, unit_cur_failed;

#define CHECK(cond)							\
	do {								\
		if (!(cond)) {						\
			printf("# %s:%d: check failed: %s\n",		\
			    __FILE__, __LINE__, #cond);			\
			unit_cur_failed++;				\
		}							\
	} while (0)

#define CHECK_EQ_INT(got, want)						\
	do {								\
		long long g_ = (long long)(got), w_ = (long long)(want); \
		if (g_ != w_) {						\
			printf("# %s:%d: %s == %lld, want %lld\n",	\
			    __FILE__, __LINE__, #got, g_, w_);		\
			unit_cur_failed++;				\
		}							\
	} while (0)

#define CHECK_EQ_STR(got, want)						\
	do {								\
		const char *g_ = (got), *w_ = (want);			\
		if (g_ == NULL || strcmp(g_, w_) != 0) {		\
			printf("# %s:%d: %s == \"%s\", want \"%s\"\n",	\
			    __FILE__, __LINE__, #got, g_ ? g_ : "(null)", w_); \
			unit_cur_failed++;				\
		}							\
	} while (0)

/* Compares (ptr,len) with a C string. */
#define CHECK_EQ_MEM(ptr, len, want)					\
	do {								\
		const char *w_ = (want);				\
		size_t l_ = (len);					\
		if (l_ != strlen(w_) || memcmp((ptr), w_, l_) != 0) {	\
			printf("# %s:%d: %s == \"%.*s\", want \"%s\"\n", \
			    __FILE__, __LINE__, #ptr, (int)l_,		\
			    (const char *)(ptr), w_);			\
			unit_cur_failed++;				\
		}							\
	} while (0)

#define RUN(fn)								\
	do {								\
		unit_cur_failed = 0;					\
		fn();							\
		unit_ntests++;						\
		if (unit_cur_failed)					\
			unit_nfailed++;					\
		printf("%s %d - %s\n", unit_cur_failed ? "not ok" : "ok", \
		    unit_ntests, #fn);					\
		fflush(stdout);						\
	} while (0)

static inline int
unit_done(void)
{
	printf("1..%d\n", unit_ntests);
	return unit_nfailed ? 1 : 0;
}

/* A small deterministic PRNG (xorshift64*) so failures reproduce. */
static uint64_t unit_rng_state = 0x9E3779B97F4A7C15ull;
static inline uint64_t
unit_rand(void)
{
	uint64_t x = unit_rng_state;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	unit_rng_state = x;
	return x * 0x2545F4914F6CDD1Dull;
}

/* A growing byte string, always NUL-terminated (p may be NULL while
 * empty); free(b.p) when done. */
struct unit_buf {
	char *p;
	size_t len, cap;
};

static inline void
unit_buf_add(struct unit_buf *b, const void *p, size_t n)
{
	if (b->cap - b->len < n + 1) {
		b->cap = (b->len + n + 1) * 2;
		b->p = realloc(b->p, b->cap);
		if (b->p == NULL)
			abort();
	}
	if (n > 0)
		memcpy(b->p + b->len, p, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static inline void
unit_buf_str(struct unit_buf *b, const char *s)
{
	unit_buf_add(b, s, strlen(s));
}

static inline void
unit_buf_ch(struct unit_buf *b, char c)
{
	unit_buf_add(b, &c, 1);
}

#endif
