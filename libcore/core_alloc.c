/*
 * core_alloc.c - checked allocation (see core_alloc.h).
 *
 * Out of memory is the one condition on which libcore ends the process:
 * every caller would have to propagate it only to exit in the same way,
 * and a budgeted stage never gets here by design.
 *
 * The C++ library the tools link (libsnappy, whose C API compresses with
 * a working memory it allocates with operator new) would throw
 * std::bad_alloc through C frames instead, which ends in std::terminate
 * and SIGABRT (exit 134, no message).  So the plain operator new and
 * delete are defined here, in C, under their Itanium ABI names: the
 * executable's definitions take precedence over libstdc++'s for every
 * shared library, a failing new takes the same out-of-memory path as
 * core_xmalloc, and delete frees what new got from malloc.  No exception
 * can then leave snappy; checking sizes before the call could not have
 * promised that, the allocation being snappy's own.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core_alloc.h"
#include "core_err.h"

static void (*fail_hook)(size_t);	/* set once, at start */

void
core_alloc_set_fail_hook(void (*hook)(size_t size))
{
	fail_hook = hook;
}

static void __attribute__((noreturn))
oom(size_t size)
{
	void (*hook)(size_t) = fail_hook;
	char msg[96];
	int n;

	if (hook != NULL) {
		hook(size);
		_exit(CORE_EXIT_INTERNAL);
	}
	/* No stdio: it may itself need memory. */
	n = snprintf(msg, sizeof(msg), "colpipe: out of memory (%zu bytes)\n",
	    size);
	if (n > 0 && write(2, msg, (size_t)n) < 0)
		_exit(CORE_EXIT_INTERNAL);
	_exit(CORE_EXIT_INTERNAL);
}

/*
 * Large blocks ask for transparent huge pages.  A hash table, a sort's
 * arena or an aggregate's arrays are touched all over soon after they
 * are allocated; with 4 KiB pages each first touch is a page fault, and
 * on a virtual machine the faults (and the kernel zeroing a page at a
 * time) cost more than the work: a group-by of 1.5M groups spent half
 * its time in them.  Where the system leaves huge pages to madvise(2)
 * (the usual "madvise" setting), this asks for them on blocks of
 * HUGE_MIN bytes or more; elsewhere it changes nothing.  It is a hint:
 * failure is ignored, and what is resident is still what is touched,
 * rounded to 2 MiB at the edges of a block this large.
 *
 * The advice covers the block's whole pages up to the end of what
 * malloc_usable_size says it holds: for a block malloc mapped on its
 * own that is its whole mapping, header page included.  Advising only
 * part of it would split the mapping in two, and realloc could then no
 * longer move it with mremap(2) and would copy it instead.
 */
#define HUGE_MIN ((size_t)8 << 20)

static void
huge_hint(void *p, size_t size)
{
	uintptr_t pg = 4096, a, e;

	if (size < HUGE_MIN)
		return;
	a = (uintptr_t)p & ~(pg - 1);
	e = ((uintptr_t)p + malloc_usable_size(p) + pg - 1) & ~(pg - 1);
	(void)madvise((void *)a, e - a, MADV_HUGEPAGE);
}

size_t
core_mul_size(size_t n, size_t size)
{
	size_t r;

	if (__builtin_mul_overflow(n, size, &r))
		oom(SIZE_MAX);
	return r;
}

void *
core_xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (p == NULL)
		oom(size);
	huge_hint(p, size);
	return p;
}

void *
core_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (p == NULL)
		oom(core_mul_size(n, size));
	huge_hint(p, n * size);
	return p;
}

void *
core_xrealloc(void *p, size_t size)
{
	void *q = realloc(p, size ? size : 1);

	if (q == NULL)
		oom(size);
	huge_hint(q, size);
	return q;
}

void *
core_xreallocarray(void *p, size_t n, size_t size)
{
	return core_xrealloc(p, core_mul_size(n, size));
}

char *
core_xstrdup(const char *s)
{
	return core_xstrndup(s, strlen(s));
}

char *
core_xstrndup(const char *s, size_t len)
{
	char *p = core_xmalloc(len + 1);

	/* s may be NULL when len is 0: an empty column's bytes. */
	if (len > 0)
		memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

/* operator new(size_t), new[](size_t), and the plain and sized deletes
 * (see the top of the file).  Declared here only: no header may offer
 * them to C callers. */
void *_Znwm(size_t size);
void *_Znam(size_t size);
void _ZdlPv(void *p);
void _ZdaPv(void *p);
void _ZdlPvm(void *p, size_t size);
void _ZdaPvm(void *p, size_t size);

void *
_Znwm(size_t size)
{
	return core_xmalloc(size);
}

void *
_Znam(size_t size)
{
	return core_xmalloc(size);
}

void
_ZdlPv(void *p)
{
	free(p);
}

void
_ZdaPv(void *p)
{
	free(p);
}

void
_ZdlPvm(void *p, size_t size)
{
	(void)size;
	free(p);
}

void
_ZdaPvm(void *p, size_t size)
{
	(void)size;
	free(p);
}

void *
core_xmalloc_aligned(size_t size)
{
	void *p = NULL;

	/* Round up so SIMD loops may read whole words at the end. */
	size = (size + 63) & ~(size_t)63;
	if (size == 0)
		size = 64;
	if (posix_memalign(&p, 64, size) != 0)
		oom(size);
	huge_hint(p, size);
	return p;
}

void
core_free_aligned(void *p)
{
	free(p);
}

/* The growth rule of core_grow and core_grow_aligned: cap (at least
 * min, at least 1) doubled until it holds need, or need itself where
 * doubling would overflow. */
static size_t
grow_cap(size_t cap, size_t need, size_t min)
{
	size_t ncap = cap > min ? cap : min;

	if (ncap == 0)
		ncap = 1;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			return need;
		ncap *= 2;
	}
	return ncap;
}

void *
core_grow(void *p, size_t *cap, size_t need, size_t size, size_t min)
{
	size_t ncap;

	if (need <= *cap)
		return p;
	ncap = grow_cap(*cap, need, min);
	p = core_xreallocarray(p, ncap, size);
	*cap = ncap;
	return p;
}

void
core_grow_aligned(void **buf, size_t *cap, size_t need)
{
	size_t ncap;
	void *nb;

	if (need <= *cap)
		return;
	ncap = grow_cap(*cap, need, 64);
	nb = core_xmalloc_aligned(ncap);
	if (*buf != NULL && *cap > 0)
		memcpy(nb, *buf, *cap);
	if (*cap > 0)
		core_free_aligned(*buf);
	*buf = nb;
	*cap = ncap;
}
