/*
 * core_debug.h - invariant checks that debug builds run and release
 * builds compile out.
 *
 * MODE=debug and MODE=asan define CORE_DEBUG (and leave NDEBUG unset);
 * MODE=release defines NDEBUG.  CORE_DCHECK is assert under another name,
 * for invariants; CORE_DEBUG_ON guards checks that cost more than a
 * comparison (a pass over a batch or a run), so that release builds
 * drop them entirely.  None of this ever guards input: bad input is an
 * error with a message, never an assertion.
 */
#ifndef CORE_DEBUG_H
#define CORE_DEBUG_H

#include <assert.h>

#ifdef CORE_DEBUG
#define CORE_DEBUG_ON 1
#else
#define CORE_DEBUG_ON 0
#endif

#define CORE_DCHECK(e) assert(e)

/* Asserts core_batch_check(b) in debug builds (core_col.h). */
#define CORE_DCHECK_BATCH(b) do {					\
	if (CORE_DEBUG_ON)						\
		core_batch_assert(b, __FILE__, __LINE__);		\
} while (0)

#endif
