/*
 * core_mem.h - the memory budget of a stage.
 *
 * Sort, join and aggregation each get one struct core_mem from --memory
 * SIZE and charge every large buffer against it (buffered batches, sort
 * arrays, hash tables, merge buffers).  The budget, not a failing malloc,
 * decides when a stage spills: try_charge says no before the process grows
 * past the limit.  Small fixed overheads (option state, one input frame,
 * stdio) are not charged; each tool's man page states that constant.
 *
 * The object is plain data owned by its stage and is not thread-safe;
 * a stage with worker threads charges from one thread or per worker.
 */
#ifndef CORE_MEM_H
#define CORE_MEM_H

#include <stdbool.h>
#include <stdint.h>

#include "core_err.h"

#define CORE_MEM_UNLIMITED UINT64_MAX

struct core_mem {
	uint64_t limit;		/* bytes that may be charged at once */
	uint64_t used;		/* bytes charged now */
	uint64_t peak;		/* most bytes ever charged at once */
};

/* limit CORE_MEM_UNLIMITED means no budget. */
void core_mem_init(struct core_mem *m, uint64_t limit);

/* Charges n bytes if they fit under the limit: 0, or CORE_ELIMIT with
 * nothing charged (the caller spills, then tries again). */
int core_mem_try_charge(struct core_mem *m, uint64_t n);

/* Charges n bytes whether or not they fit, for memory a stage cannot do
 * without (the one row that must be held to make progress); later
 * try_charge calls fail until enough is released. */
void core_mem_charge(struct core_mem *m, uint64_t n);

/* Gives back n bytes charged before. */
void core_mem_release(struct core_mem *m, uint64_t n);

/* Bytes that can still be charged (0 when over the limit). */
uint64_t core_mem_available(const struct core_mem *m);

/* The default budget when --memory is not given, chosen as GNU sort
 * does: the larger of the memory available now and an eighth of physical
 * memory, at most three quarters of physical memory and half of any
 * address-space or data limit, and at least 8 MiB. */
uint64_t core_mem_default_limit(void);

#endif
