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
 * The object is plain data owned by its stage.  Charges and releases
 * (of the budget and of its parts) are atomic, so two threads may charge
 * one budget (a join assembling output on a helper while the caller
 * reads); setting up and finishing parts, and reading the counters for
 * --stats, are for one thread once the others are done.
 */
#ifndef CORE_MEM_H
#define CORE_MEM_H

#include <stdbool.h>
#include <stdint.h>

#include "core_err.h"

#define CORE_MEM_UNLIMITED UINT64_MAX
#define CORE_MEM_MAX_PARTS 8

struct core_mem_part;

struct core_mem {
	uint64_t limit;		/* bytes that may be charged at once */
	uint64_t used;		/* bytes charged now */
	uint64_t peak;		/* most bytes ever charged at once */
	/* The parts charging this budget, borrowed, in the order they
	 * were added (for --stats). */
	struct core_mem_part *parts[CORE_MEM_MAX_PARTS];
	unsigned nparts;
};

/*
 * A part of a stage's budget: the sort's buffers, a join's hash table,
 * its partition buffers, probe batches, the output.  A stage splits its
 * budget among its parts by giving each a cap; a charge must fit both
 * the part's cap and the whole budget.  Each part keeps its own use and
 * peak, so --stats can say where the memory went.  The part is embedded
 * in the stage's object and registered with the budget until
 * core_mem_part_fini.
 *
 * Releasing more than was charged is a bug: a failed assertion in debug
 * builds (CORE_DEBUG); release builds clamp at zero.
 */
struct core_mem_part {
	struct core_mem *mem;	/* borrowed: the budget */
	const char *name;	/* static, e.g. "hash table" */
	uint64_t cap;		/* most bytes at once; CORE_MEM_UNLIMITED:
				 * only the budget bounds it */
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

/* Adds part p (name static) of budget m with the given cap. */
void core_mem_part_init(struct core_mem_part *p, struct core_mem *m,
    const char *name, uint64_t cap);
/* Gives back what p still holds and removes it from m's list. */
void core_mem_part_fini(struct core_mem_part *p);
/* As core_mem_try_charge, within p's cap as well as the budget. */
int core_mem_part_try_charge(struct core_mem_part *p, uint64_t n);
/* As core_mem_charge: charged whatever the cap and the limit say. */
void core_mem_part_charge(struct core_mem_part *p, uint64_t n);
void core_mem_part_release(struct core_mem_part *p, uint64_t n);
/* Bytes p can still be charged: the smaller of its cap's room and the
 * budget's. */
uint64_t core_mem_part_available(const struct core_mem_part *p);

/* The default budget when --memory is not given, chosen as GNU sort
 * does: the larger of the memory available now and an eighth of physical
 * memory (or of the cgroup's memory limit, when smaller), at most three
 * quarters of that, at most a fifth of what an address-space (ulimit -v)
 * or data limit leaves above what the process already maps, and at least
 * 8 MiB. */
uint64_t core_mem_default_limit(void);

/* The memory limit of this process's cgroup under root (normally
 * "/sys/fs/cgroup"): v2's memory.max of its own group or of root, or
 * v1's memory/memory.limit_in_bytes, the smallest; 0 when none is set
 * or none can be read. */
uint64_t core_mem_cgroup_limit(const char *root);

#endif
