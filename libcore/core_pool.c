/*
 * core_pool.c - a few worker threads beside the caller (core_pool.h).
 *
 * One queue of jobs under one mutex: a job is a core_pool_task with n
 * calls to make, of which claimed have been taken and done have
 * returned.  A job stays queued while it has calls left to claim; the
 * helpers sleep on go until one is queued, and whoever finishes a job's
 * last call broadcasts done.  The workloads are a handful of jobs a
 * batch, each worth far more than a lock round trip, so one lock is no
 * contention worth avoiding.
 */
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "core_alloc.h"
#include "core_pool.h"

struct core_pool {
	pthread_mutex_t mu;
	pthread_cond_t go, done;
	struct core_pool_task *head, *tail;	/* jobs with calls left */
	bool quit;
	unsigned nhelpers;
	pthread_t *tids;		/* owned, nhelpers */
};

unsigned
core_pool_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (unsigned)n : 1;
}

unsigned
core_pool_default(unsigned want, unsigned most)
{
	unsigned n = core_pool_cpus();

	if (want != 0)
		return want;
	return n < most ? n : most;
}

static void
unqueue(struct core_pool *p, struct core_pool_task *t)
{
	struct core_pool_task **q = &p->head, *prev = NULL;

	while (*q != NULL && *q != t) {
		prev = *q;
		q = &(*q)->next;
	}
	if (*q == NULL)
		return;
	*q = t->next;
	if (p->tail == t)
		p->tail = prev;
	t->next = NULL;
}

static void
enqueue(struct core_pool *p, struct core_pool_task *t)
{
	t->next = NULL;
	if (p->tail != NULL)
		p->tail->next = t;
	else
		p->head = t;
	p->tail = t;
	pthread_cond_broadcast(&p->go);
}

/* Claims the next call of t, with p->mu held; t leaves the queue once
 * nothing is left to claim. */
static unsigned
claim(struct core_pool *p, struct core_pool_task *t)
{
	unsigned who = t->claimed++;

	if (t->claimed == t->n)
		unqueue(p, t);
	return who;
}

/* Runs call who of t without the lock and counts it done. */
static void
call(struct core_pool *p, struct core_pool_task *t, unsigned who)
{
	core_pool_fn fn = t->fn;
	void *arg = t->arg;

	pthread_mutex_unlock(&p->mu);
	fn(arg, who);
	pthread_mutex_lock(&p->mu);
	if (++t->done == t->n)
		pthread_cond_broadcast(&p->done);
}

static void *
helper_main(void *v)
{
	struct core_pool *p = v;
	struct core_pool_task *t;

	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (!p->quit && p->head == NULL)
			pthread_cond_wait(&p->go, &p->mu);
		if ((t = p->head) == NULL)
			break;
		call(p, t, claim(p, t));
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

int
core_pool_spawn(pthread_t *tid, void *(*fn)(void *), void *arg)
{
	sigset_t all, old;
	int e;

	/* The thread inherits the mask it is created under. */
	sigfillset(&all);
	sigdelset(&all, SIGBUS);
	sigdelset(&all, SIGSEGV);
	sigdelset(&all, SIGFPE);
	sigdelset(&all, SIGILL);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	e = pthread_create(tid, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return e;
}

struct core_pool *
core_pool_new(unsigned nthreads)
{
	struct core_pool *p;
	unsigned i;

	if (nthreads == 0)
		nthreads = core_pool_cpus();
	if (nthreads <= 1)
		return NULL;
	p = core_xcalloc(1, sizeof(*p));
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->go, NULL);
	pthread_cond_init(&p->done, NULL);
	p->tids = core_xcalloc(nthreads - 1, sizeof(*p->tids));
	for (i = 0; i < nthreads - 1; i++)
		if (core_pool_spawn(&p->tids[i], helper_main, p) != 0)
			break;	/* fewer threads: slower, not wrong */
	p->nhelpers = i;
	if (i == 0) {
		core_pool_free(p);
		return NULL;
	}
	return p;
}

void
core_pool_free(struct core_pool *p)
{
	unsigned i;

	if (p == NULL)
		return;
	pthread_mutex_lock(&p->mu);
	p->quit = true;
	pthread_cond_broadcast(&p->go);
	pthread_mutex_unlock(&p->mu);
	for (i = 0; i < p->nhelpers; i++)
		pthread_join(p->tids[i], NULL);
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->go);
	pthread_cond_destroy(&p->done);
	free(p->tids);
	free(p);
}

unsigned
core_pool_threads(const struct core_pool *p)
{
	return p == NULL ? 1 : p->nhelpers + 1;
}

void
core_pool_run(struct core_pool *p, unsigned n, core_pool_fn fn, void *arg)
{
	struct core_pool_task t = { 0 };
	unsigned who;

	if (n == 0)
		return;
	if (p == NULL || n == 1) {
		for (who = 0; who < n; who++)
			fn(arg, who);
		return;
	}
	t.fn = fn;
	t.arg = arg;
	t.n = n;
	t.claimed = 1;		/* who 0 is the caller's */
	pthread_mutex_lock(&p->mu);
	enqueue(p, &t);
	call(p, &t, 0);
	while (t.claimed < t.n)
		call(p, &t, claim(p, &t));
	while (t.done < t.n)
		pthread_cond_wait(&p->done, &p->mu);
	pthread_mutex_unlock(&p->mu);
}

void
core_pool_start(struct core_pool *p, struct core_pool_task *t,
    core_pool_fn fn, void *arg)
{
	t->fn = fn;
	t->arg = arg;
	t->n = 1;
	t->claimed = 0;
	t->done = 0;
	if (p == NULL) {
		fn(arg, 0);
		t->n = 0;
		return;
	}
	pthread_mutex_lock(&p->mu);
	enqueue(p, t);
	pthread_mutex_unlock(&p->mu);
}

void
core_pool_wait(struct core_pool *p, struct core_pool_task *t)
{
	if (p == NULL || t->n == 0)
		return;
	pthread_mutex_lock(&p->mu);
	/* Not taken yet: every helper is busy, so the caller runs it. */
	while (t->claimed < t->n)
		call(p, t, claim(p, t));
	while (t->done < t->n)
		pthread_cond_wait(&p->done, &p->mu);
	t->n = 0;
	pthread_mutex_unlock(&p->mu);
}
