/*
 * core_alloc.h - the one allocation path.
 *
 * Every allocation in colpipe goes through these wrappers.  Sizes are
 * overflow-checked; on failure the process prints "out of memory" and exits
 * with status 70.  That is the only place libcore exits: a budgeted stage
 * decides when to spill from struct core_mem (core_mem.h), never from a
 * failing malloc, so reaching this path means a bug or a starved machine.
 */
#ifndef CORE_ALLOC_H
#define CORE_ALLOC_H

#include <stddef.h>

void *core_xmalloc(size_t size);		/* caller owns result */
void *core_xcalloc(size_t n, size_t size);	/* zeroed; caller owns */
void *core_xrealloc(void *p, size_t size);	/* p may be NULL */
void *core_xreallocarray(void *p, size_t n, size_t size);
char *core_xstrdup(const char *s);		/* caller owns result */
char *core_xstrndup(const char *s, size_t len);
/* 64-byte aligned, for column buffers; free with core_free_aligned. */
void *core_xmalloc_aligned(size_t size);
void core_free_aligned(void *p);

/*
 * Out of memory ends the process with status 70 after a message on
 * stderr: by default "colpipe: out of memory (N bytes)"; a program sets
 * hook to write its own (its name, what it was doing).  hook is called
 * once, with the size that could not be had (SIZE_MAX: a size overflow),
 * must not allocate and is not expected to return; if it does, the
 * process exits as it would have.  NULL restores the default.
 */
void core_alloc_set_fail_hook(void (*hook)(size_t size));

/* n * size, or exits as out of memory on overflow. */
size_t core_mul_size(size_t n, size_t size);

/*
 * Grows the array p (capacity *cap elements of size bytes, core_xmalloc'd
 * or NULL) so that it holds at least need elements: the capacity doubles,
 * starting from at least min, until it does (it is need itself only where
 * doubling again would overflow); the first *cap elements are kept, so
 * growth is amortised O(1) per element.  Every size is overflow-
 * checked.  Returns the array (moved or not) and updates *cap; a no-op
 * when need <= *cap.  The one growth path for arrays and byte buffers:
 *	buf = core_grow(buf, &cap, len + n, 1, 4096);
 */
void *core_grow(void *p, size_t *cap, size_t need, size_t size, size_t min);

/* Grows *buf (capacity *cap bytes) so it holds at least need bytes,
 * doubling; keeps contents.  Aligned buffers (core_xmalloc_aligned). */
void core_grow_aligned(void **buf, size_t *cap, size_t need);

/* The capacity to give a buffer that is reused for items of nearly one
 * size (spill frames cut at one budget): n and a sixty-fourth more, so
 * that the next slightly larger item fits.  Grown by exactly what each
 * larger one needed, such a buffer was new (its pages faulted in again)
 * about five times in a merge. */
static inline size_t
core_reuse_size(size_t n)
{
	return n + n / 64;
}

#endif
