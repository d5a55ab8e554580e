/*
 * test_mem.c - memory budgets against a plain running total.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core_mem.h"
#include "unit.h"

static void
test_charge_release_vs_reference(void)
{
	struct core_mem m;
	uint64_t ref = 0, peak = 0, held[64];
	int nheld = 0, i, bad = 0;

	core_mem_init(&m, 1000000);
	for (i = 0; i < 100000; i++) {
		if (nheld > 0 && (unit_rand() % 2 == 0 || nheld == 64)) {
			int k = (int)(unit_rand() % (uint64_t)nheld);

			core_mem_release(&m, held[k]);
			ref -= held[k];
			held[k] = held[--nheld];
		} else {
			uint64_t n = unit_rand() % 100000;
			bool fits = ref + n <= 1000000;
			int rc = core_mem_try_charge(&m, n);

			if ((rc == 0) != fits)
				bad++;
			if (rc == 0) {
				ref += n;
				held[nheld++] = n;
			}
		}
		if (ref > peak)
			peak = ref;
		if (m.used != ref || m.peak != peak || m.used > m.limit)
			bad++;
	}
	CHECK_EQ_INT(bad, 0);
}

static void
test_forced_charge_and_edges(void)
{
	struct core_mem m;

	core_mem_init(&m, 100);
	CHECK_EQ_INT(core_mem_try_charge(&m, 100), 0);
	CHECK_EQ_INT(core_mem_available(&m), 0);
	CHECK_EQ_INT(core_mem_try_charge(&m, 1), CORE_ELIMIT);
	core_mem_charge(&m, 50);		/* must hold it anyway */
	CHECK_EQ_INT(m.used, 150);
	CHECK_EQ_INT(core_mem_available(&m), 0);
	core_mem_release(&m, 100);
	CHECK_EQ_INT(core_mem_available(&m), 50);
	CHECK_EQ_INT(m.peak, 150);
	CHECK_EQ_INT(core_mem_try_charge(&m, UINT64_MAX), CORE_ELIMIT);
	CHECK_EQ_INT(m.used, 50);
	core_mem_init(&m, CORE_MEM_UNLIMITED);
	CHECK_EQ_INT(core_mem_try_charge(&m, (uint64_t)1 << 62), 0);
	CHECK_EQ_INT(core_mem_try_charge(&m, (uint64_t)1 << 62), 0);
	CHECK(core_mem_default_limit() >= ((uint64_t)8 << 20));
}

/* Parts against per-part running totals: a charge fits both its cap
 * and the budget; the budget's use is the parts' sum. */
static void
test_parts_vs_reference(void)
{
	struct core_mem m;
	struct core_mem_part p[3];
	uint64_t cap[3] = { 300000, CORE_MEM_UNLIMITED, 50000 };
	uint64_t ref[3] = { 0, 0, 0 }, peak[3] = { 0, 0, 0 };
	uint64_t held[64];
	int owner[64], nheld = 0, i, k, bad = 0;

	core_mem_init(&m, 500000);
	core_mem_part_init(&p[0], &m, "a", cap[0]);
	core_mem_part_init(&p[1], &m, "b", cap[1]);
	core_mem_part_init(&p[2], &m, "c", cap[2]);
	CHECK_EQ_INT(m.nparts, 3);
	for (i = 0; i < 100000; i++) {
		if (nheld > 0 && (unit_rand() % 2 == 0 || nheld == 64)) {
			k = (int)(unit_rand() % (uint64_t)nheld);
			core_mem_part_release(&p[owner[k]], held[k]);
			ref[owner[k]] -= held[k];
			held[k] = held[nheld - 1];
			owner[k] = owner[--nheld];
		} else {
			int w = (int)(unit_rand() % 3);
			uint64_t n = unit_rand() % 60000;
			uint64_t sum = ref[0] + ref[1] + ref[2];
			bool fits = ref[w] + n <= cap[w] && sum + n <= 500000;
			int rc = core_mem_part_try_charge(&p[w], n);

			if ((rc == 0) != fits)
				bad++;
			if (rc == 0) {
				ref[w] += n;
				held[nheld] = n;
				owner[nheld++] = w;
			}
		}
		for (k = 0; k < 3; k++) {
			if (ref[k] > peak[k])
				peak[k] = ref[k];
			if (p[k].used != ref[k] || p[k].peak != peak[k] ||
			    p[k].used > cap[k])
				bad++;
		}
		if (m.used != ref[0] + ref[1] + ref[2] || m.used > m.limit)
			bad++;
	}
	CHECK_EQ_INT(bad, 0);
	/* Available is the smaller of the cap's room and the budget's. */
	CHECK(core_mem_part_available(&p[2]) <= cap[2] - ref[2]);
	core_mem_part_fini(&p[1]);
	CHECK_EQ_INT(m.nparts, 2);
	CHECK(m.parts[0] == &p[0] && m.parts[1] == &p[2]);
	CHECK_EQ_INT(m.used, ref[0] + ref[2]);
	core_mem_part_fini(&p[0]);
	core_mem_part_fini(&p[2]);
	CHECK_EQ_INT(m.used, 0);
	CHECK_EQ_INT(m.nparts, 0);
}

static void
put(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (f != NULL) {
		fputs(text, f);
		fclose(f);
	}
}

/* v2's memory.max and v1's limit_in_bytes, "max" and v1's "no limit". */
static void
test_cgroup_limit(void)
{
	char root[] = "/tmp/test_mem.XXXXXX", sub[64];

	CHECK(mkdtemp(root) != NULL);
	CHECK_EQ_INT(core_mem_cgroup_limit(root), 0);
	put(root, "memory.max", "max\n");
	CHECK_EQ_INT(core_mem_cgroup_limit(root), 0);
	put(root, "memory.max", "209715200\n");
	CHECK_EQ_INT(core_mem_cgroup_limit(root), 209715200);
	snprintf(sub, sizeof(sub), "%s/memory", root);
	CHECK(mkdir(sub, 0700) == 0);
	put(sub, "memory.limit_in_bytes", "9223372036854771712\n");
	CHECK_EQ_INT(core_mem_cgroup_limit(root), 209715200);
	put(sub, "memory.limit_in_bytes", "104857600\n");
	CHECK_EQ_INT(core_mem_cgroup_limit(root), 104857600);
	put(root, "memory.max", "max\n");
	CHECK_EQ_INT(core_mem_cgroup_limit(root), 104857600);
	(void)!system("rm -rf /tmp/test_mem.??????");
}

/* Under ulimit -v, the default budget is at most a fifth of what is left
 * above the address space already taken, so the tool can still run. */
static void
test_default_under_rlimit_as(void)
{
	pid_t pid = fork();
	int st = 0;

	if (pid == 0) {
		struct rlimit rl = { 200u << 20, 200u << 20 };
		uint64_t d;

		if (setrlimit(RLIMIT_AS, &rl) != 0)
			_exit(2);
		d = core_mem_default_limit();
		_exit(d >= (8u << 20) && d < (200u << 20) / 5 ? 0 : 1);
	}
	CHECK(pid > 0);
	CHECK(waitpid(pid, &st, 0) == pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* Two threads charging and releasing parts of one budget: the budget
 * is never passed by what try_charge granted, and every byte comes
 * back. */
struct hammer {
	struct core_mem_part *part;
	uint64_t granted;		/* bytes try_charge granted */
};

static void *
hammer_main(void *v)
{
	struct hammer *h = v;
	uint64_t held[8] = { 0 };
	unsigned i, k;

	for (i = 0; i < 3000000; i++) {
		k = i % 8;
		if (held[k] != 0) {
			core_mem_part_release(h->part, held[k]);
			held[k] = 0;
		} else if (i % 3 == 0) {
			core_mem_part_charge(h->part, 1 + i % 97);
			held[k] = 1 + i % 97;
		} else if (core_mem_part_try_charge(h->part, 1 + i % 1000) ==
		    0) {
			held[k] = 1 + i % 1000;
			h->granted += held[k];
		}
	}
	for (k = 0; k < 8; k++)
		core_mem_part_release(h->part, held[k]);
	return NULL;
}

static void
test_two_threads(void)
{
	struct core_mem mem;
	struct core_mem_part a, b;
	struct hammer h[2];
	pthread_t t;

	core_mem_init(&mem, 5000);
	core_mem_part_init(&a, &mem, "a", CORE_MEM_UNLIMITED);
	core_mem_part_init(&b, &mem, "b", 3000);
	h[0].part = &a;
	h[0].granted = 0;
	h[1].part = &b;
	h[1].granted = 0;
	CHECK(pthread_create(&t, NULL, hammer_main, &h[1]) == 0);
	hammer_main(&h[0]);
	CHECK(pthread_join(t, NULL) == 0);
	CHECK_EQ_INT(mem.used, 0);
	CHECK_EQ_INT(a.used, 0);
	CHECK_EQ_INT(b.used, 0);
	CHECK(b.peak <= 3000 + 97 * 8);
	CHECK(h[0].granted > 0 && h[1].granted > 0);
}

int
main(void)
{
	RUN(test_two_threads);
	RUN(test_cgroup_limit);
	RUN(test_default_under_rlimit_as);
	RUN(test_parts_vs_reference);
	RUN(test_charge_release_vs_reference);
	RUN(test_forced_charge_and_edges);
	return unit_done();
}
