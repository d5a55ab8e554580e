/*
 * test_pool.c - core_pool: every call made exactly once, wherever.
 *
 * The reference is a count per who: after core_pool_run each of the n
 * calls has been made once, whatever the pool (NULL, one to four
 * threads) and however busy its helpers are with background tasks.
 * Also: who 0 runs on the caller; helpers block every signal; a task
 * waited for before any helper is free runs on the caller, so a wait
 * never depends on a helper; a task never started is waited for at once.
 */
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "core_pool.h"
#include "unit.h"

#define MAXN 64

struct counts {
	unsigned hits[MAXN];		/* atomic */
	pthread_t caller;
	bool who0_elsewhere;		/* atomic */
	bool unblocked;			/* atomic: a helper took SIGINT */
};

static void
count_fn(void *arg, unsigned who)
{
	struct counts *c = arg;
	sigset_t cur;

	__atomic_fetch_add(&c->hits[who], 1, __ATOMIC_RELAXED);
	if (who == 0 && !pthread_equal(pthread_self(), c->caller))
		__atomic_store_n(&c->who0_elsewhere, true, __ATOMIC_RELAXED);
	if (!pthread_equal(pthread_self(), c->caller)) {
		pthread_sigmask(SIG_SETMASK, NULL, &cur);
		if (!sigismember(&cur, SIGINT) || !sigismember(&cur, SIGTERM))
			__atomic_store_n(&c->unblocked, true,
			    __ATOMIC_RELAXED);
	}
	/* Long enough that helpers overlap the caller. */
	if (who % 3 == 1)
		usleep(200);
}

static void
check_run(struct core_pool *p, unsigned n)
{
	struct counts c;
	unsigned i;

	memset(&c, 0, sizeof(c));
	c.caller = pthread_self();
	core_pool_run(p, n, count_fn, &c);
	for (i = 0; i < MAXN; i++)
		CHECK_EQ_INT(c.hits[i], i < n ? 1 : 0);
	CHECK(!c.who0_elsewhere);
	CHECK(!c.unblocked);
}

static const unsigned ns[] = { 0, 1, 2, 3, 17, MAXN };

static void
test_run(void)
{
	unsigned t, i, rep;

	for (t = 0; t <= 4; t++) {
		struct core_pool *p = t == 0 ? NULL : core_pool_new(t);

		CHECK_EQ_INT(core_pool_threads(p), t == 0 ? 1 : t);
		for (rep = 0; rep < 20; rep++)
			for (i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
				check_run(p, ns[i]);
		core_pool_free(p);
	}
	CHECK(core_pool_new(1) == NULL);
	CHECK(core_pool_threads(NULL) == 1);
	CHECK(core_pool_default(3, 2) == 3);
	CHECK(core_pool_default(0, 1) == 1);
}

struct gate {
	bool open;			/* atomic */
	bool ran;			/* atomic */
	pthread_t ran_on;
};

static void
gate_fn(void *arg, unsigned who)
{
	struct gate *g = arg;

	(void)who;
	while (!__atomic_load_n(&g->open, __ATOMIC_ACQUIRE))
		usleep(100);
	__atomic_store_n(&g->ran, true, __ATOMIC_RELEASE);
}

static void
mark_fn(void *arg, unsigned who)
{
	struct gate *g = arg;

	(void)who;
	g->ran_on = pthread_self();
	__atomic_store_n(&g->ran, true, __ATOMIC_RELEASE);
}

/* The one helper is held by a task; a second task, and jobs split n
 * ways, are then all done by the caller. */
static void
test_busy_helper(void)
{
	struct core_pool *p = core_pool_new(2);
	struct core_pool_task ta, tb, none;
	struct gate a, b;
	unsigned i;

	memset(&ta, 0, sizeof(ta));
	memset(&tb, 0, sizeof(tb));
	memset(&none, 0, sizeof(none));
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	CHECK(p != NULL);
	core_pool_wait(p, &none);
	core_pool_start(p, &ta, gate_fn, &a);
	/* Let the helper take a. */
	usleep(20000);
	core_pool_start(p, &tb, mark_fn, &b);
	core_pool_wait(p, &tb);
	CHECK(__atomic_load_n(&b.ran, __ATOMIC_ACQUIRE));
	CHECK(pthread_equal(b.ran_on, pthread_self()));
	for (i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
		check_run(p, ns[i]);
	CHECK(!__atomic_load_n(&a.ran, __ATOMIC_ACQUIRE));
	__atomic_store_n(&a.open, true, __ATOMIC_RELEASE);
	core_pool_wait(p, &ta);
	CHECK(__atomic_load_n(&a.ran, __ATOMIC_ACQUIRE));
	core_pool_wait(p, &ta);		/* done already: at once */
	core_pool_free(p);
}

/* Tasks started and waited for in turn, as a write-behind does. */
static void
test_tasks(void)
{
	struct core_pool *p = core_pool_new(2);
	struct core_pool_task t;
	struct counts c;
	unsigned i;

	memset(&t, 0, sizeof(t));
	memset(&c, 0, sizeof(c));
	c.caller = pthread_self();
	for (i = 0; i < 200; i++) {
		core_pool_start(p, &t, count_fn, &c);
		if (i % 2 == 0)
			check_run(p, 3);
		core_pool_wait(p, &t);
		CHECK_EQ_INT(c.hits[0], i + 1);
	}
	core_pool_free(p);
	/* No pool: the task runs at once. */
	memset(&c, 0, sizeof(c));
	c.caller = pthread_self();
	core_pool_start(NULL, &t, count_fn, &c);
	CHECK_EQ_INT(c.hits[0], 1);
	core_pool_wait(NULL, &t);
	core_pool_free(NULL);
}

int
main(void)
{
	RUN(test_run);
	RUN(test_busy_helper);
	RUN(test_tasks);
	return unit_done();
}
