/*
 * core_mem.c - memory budgets (see core_mem.h).
 *
 * Invariant: used <= limit after every successful try_charge; only
 * core_mem_charge may push used past limit, and then available() is 0
 * until releases bring it back.  peak >= used always.  For a part the
 * same holds against its cap, and the budget's used is at least the sum
 * of its parts' (charges made on the budget directly belong to no part).
 */
#include <assert.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "core_mem.h"

void
core_mem_init(struct core_mem *m, uint64_t limit)
{
	memset(m, 0, sizeof(*m));
	m->limit = limit;
}

/*
 * The counters are updated atomically: a stage may charge one budget
 * from two threads (a join assembling output on a helper while the
 * caller reads the next partition).  A peak is raised to at least the
 * value just reached.
 */
#define LOAD(p) __atomic_load_n((p), __ATOMIC_RELAXED)

static void
peak_raise(uint64_t *peak, uint64_t v)
{
	uint64_t p = LOAD(peak);

	while (v > p && !__atomic_compare_exchange_n(peak, &p, v, true,
	    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

/* Adds n to *used unless the sum would pass limit (0), or saturating
 * (limit UINT64_MAX, never refused); the new value in *now. */
static int
add_within(uint64_t *used, uint64_t n, uint64_t limit, uint64_t *now)
{
	uint64_t u = LOAD(used), v;

	do {
		if (limit != UINT64_MAX && (n > limit || u > limit - n))
			return CORE_ELIMIT;
		v = n > UINT64_MAX - u ? UINT64_MAX : u + n;
	} while (!__atomic_compare_exchange_n(used, &u, v, true,
	    __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	*now = v;
	return 0;
}

/* Takes n from *used (not below 0). */
static void
sub_floor(uint64_t *used, uint64_t n)
{
	uint64_t u = LOAD(used), v;

	do {
		/* Releasing more than was charged is a bug in the
		 * caller. */
		assert(n <= u);
		v = n > u ? 0 : u - n;
	} while (!__atomic_compare_exchange_n(used, &u, v, true,
	    __ATOMIC_RELAXED, __ATOMIC_RELAXED));
}

int
core_mem_try_charge(struct core_mem *m, uint64_t n)
{
	uint64_t now;

	/* An unlimited budget refuses nothing, as the limit is never
	 * passed. */
	if (add_within(&m->used, n, m->limit == UINT64_MAX ? UINT64_MAX - 1 :
	    m->limit, &now) != 0)
		return CORE_ELIMIT;
	peak_raise(&m->peak, now);
	return 0;
}

void
core_mem_charge(struct core_mem *m, uint64_t n)
{
	uint64_t now;

	(void)add_within(&m->used, n, UINT64_MAX, &now);
	peak_raise(&m->peak, now);
}

void
core_mem_release(struct core_mem *m, uint64_t n)
{
	sub_floor(&m->used, n);
}

void
core_mem_part_init(struct core_mem_part *p, struct core_mem *m,
    const char *name, uint64_t cap)
{
	p->mem = m;
	p->name = name;
	p->cap = cap;
	p->used = 0;
	p->peak = 0;
	assert(m->nparts < CORE_MEM_MAX_PARTS);
	if (m->nparts < CORE_MEM_MAX_PARTS)
		m->parts[m->nparts++] = p;
}

void
core_mem_part_fini(struct core_mem_part *p)
{
	struct core_mem *m = p->mem;
	unsigned i;

	if (m == NULL)
		return;
	core_mem_part_release(p, p->used);
	for (i = 0; i < m->nparts; i++)
		if (m->parts[i] == p) {
			memmove(&m->parts[i], &m->parts[i + 1],
			    (m->nparts - i - 1) * sizeof(m->parts[0]));
			m->nparts--;
			break;
		}
	p->mem = NULL;
}

int
core_mem_part_try_charge(struct core_mem_part *p, uint64_t n)
{
	uint64_t now;

	if (add_within(&p->used, n, p->cap == UINT64_MAX ? UINT64_MAX - 1 :
	    p->cap, &now) != 0)
		return CORE_ELIMIT;
	if (core_mem_try_charge(p->mem, n) != 0) {
		sub_floor(&p->used, n);
		return CORE_ELIMIT;
	}
	peak_raise(&p->peak, now);
	return 0;
}

void
core_mem_part_charge(struct core_mem_part *p, uint64_t n)
{
	uint64_t now;

	core_mem_charge(p->mem, n);
	(void)add_within(&p->used, n, UINT64_MAX, &now);
	peak_raise(&p->peak, now);
}

void
core_mem_part_release(struct core_mem_part *p, uint64_t n)
{
	uint64_t u = LOAD(&p->used);

	assert(n <= u);
	if (n > u)
		n = u;
	sub_floor(&p->used, n);
	core_mem_release(p->mem, n);
}

uint64_t
core_mem_part_available(const struct core_mem_part *p)
{
	uint64_t a = core_mem_available(p->mem);
	uint64_t used = LOAD(&p->used);
	uint64_t room = used >= p->cap ? 0 : p->cap - used;

	return room < a ? room : a;
}

uint64_t
core_mem_available(const struct core_mem *m)
{
	uint64_t used = LOAD(&m->used);

	return used >= m->limit ? 0 : m->limit - used;
}

/* MemAvailable from /proc/meminfo in bytes, or 0 when unknown. */
static uint64_t
mem_available(void)
{
	char line[256];
	unsigned long long kb;
	uint64_t r = 0;
	FILE *f = fopen("/proc/meminfo", "r");

	if (f == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
			r = (uint64_t)kb * 1024;
			break;
		}
	fclose(f);
	return r;
}

/* The kB of the line "key:" of /proc/self/status in bytes, or 0. */
static uint64_t
proc_status(const char *key)
{
	char line[256];
	unsigned long long kb;
	size_t klen = strlen(key);
	uint64_t r = 0;
	FILE *f = fopen("/proc/self/status", "r");

	if (f == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, key, klen) == 0 &&
		    sscanf(line + klen, " %llu kB", &kb) == 1) {
			r = (uint64_t)kb * 1024;
			break;
		}
	fclose(f);
	return r;
}

/* The number in file path ("max" and unreadable: 0). */
static uint64_t
read_limit(const char *path)
{
	unsigned long long v;
	uint64_t r = 0;
	FILE *f = fopen(path, "r");

	if (f == NULL)
		return 0;
	if (fscanf(f, "%llu", &v) == 1)
		r = v;
	fclose(f);
	return r;
}

uint64_t
core_mem_cgroup_limit(const char *root)
{
	char path[4096 + 64], line[4096];
	uint64_t lim = 0, v;
	FILE *f;

	/* v2: the process's own group (the "0::" line), then the root a
	 * container sees as its own group. */
	f = fopen("/proc/self/cgroup", "r");
	while (f != NULL && fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "0::", 3) == 0) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(path, sizeof(path), "%s%s/memory.max", root,
			    line + 3);
			lim = read_limit(path);
		}
	if (f != NULL)
		fclose(f);
	snprintf(path, sizeof(path), "%s/memory.max", root);
	if ((v = read_limit(path)) != 0 && (lim == 0 || v < lim))
		lim = v;
	/* v1: "no limit" is a huge number, a page short of 2^63. */
	snprintf(path, sizeof(path), "%s/memory/memory.limit_in_bytes", root);
	if ((v = read_limit(path)) != 0 && v < ((uint64_t)1 << 60) &&
	    (lim == 0 || v < lim))
		lim = v;
	return lim;
}

/* Caps *size at a fifth of what limit resource leaves above used. */
static void
cap_by_rlimit(uint64_t *size, int resource, uint64_t used)
{
	struct rlimit rl;
	uint64_t room;

	if (getrlimit(resource, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
		return;
	room = rl.rlim_cur > used ? rl.rlim_cur - used : 0;
	if (*size > room / 5)
		*size = room / 5;
}

uint64_t
core_mem_default_limit(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
	uint64_t total = pages > 0 && psize > 0 ?
	    (uint64_t)pages * (uint64_t)psize : 0;
	uint64_t size = mem_available();
	uint64_t cg = core_mem_cgroup_limit("/sys/fs/cgroup");

	/* A cgroup's limit is the machine such a process has. */
	if (cg != 0 && (total == 0 || cg < total))
		total = cg;
	if (size < total / 8)
		size = total / 8;
	if (total > 0 && size > total / 4 * 3)
		size = total / 4 * 3;
	/* Of an address-space or data limit, what the libraries, stacks
	 * and heap already take is not there to have; of the rest, a
	 * fifth: a stage maps up to four times its budget (colsort with
	 * two keys at ulimit -v 100M fails at -m 20M, finishes at 16M:
	 * its arena is reserved whole besides the buffers it reads into,
	 * each thread has its stack, and malloc rounds up). */
	cap_by_rlimit(&size, RLIMIT_AS, proc_status("VmSize:"));
	cap_by_rlimit(&size, RLIMIT_DATA, proc_status("VmData:"));
	if (size < ((uint64_t)8 << 20))
		size = (uint64_t)8 << 20;
	return size;
}
