/*
 * core_pair.c - a second thread that works beside the caller
 * (core_pair.h).
 *
 * The helper sleeps on a condition variable until the generation count
 * moves, runs the job, clears busy and signals.  One job at a time: the
 * caller waits for busy to clear before core_pair_run returns, so the
 * job's memory may live on the caller's stack.
 */
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "core_alloc.h"
#include "core_pair.h"

struct core_pair {
	pthread_t tid;
	pthread_mutex_t mu;
	pthread_cond_t go, done;
	uint64_t gen;			/* jobs handed out so far */
	bool busy, quit;
	core_pair_fn fn;
	void *arg;
};

static void *
helper_main(void *v)
{
	struct core_pair *p = v;
	uint64_t seen = 0;

	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (!p->quit && p->gen == seen)
			pthread_cond_wait(&p->go, &p->mu);
		if (p->quit)
			break;
		seen = p->gen;
		pthread_mutex_unlock(&p->mu);
		p->fn(p->arg, 1);
		pthread_mutex_lock(&p->mu);
		p->busy = false;
		pthread_cond_signal(&p->done);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

struct core_pair *
core_pair_new(unsigned want)
{
	struct core_pair *p;
	sigset_t all, old;
	int rc;

	if (want == 1 || (want == 0 && sysconf(_SC_NPROCESSORS_ONLN) < 2))
		return NULL;
	p = core_xcalloc(1, sizeof(*p));
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->go, NULL);
	pthread_cond_init(&p->done, NULL);
	/* The helper inherits this mask: every signal blocked. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&p->tid, NULL, helper_main, p);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		pthread_mutex_destroy(&p->mu);
		pthread_cond_destroy(&p->go);
		pthread_cond_destroy(&p->done);
		free(p);
		return NULL;
	}
	return p;
}

void
core_pair_start(struct core_pair *p, core_pair_fn fn, void *arg)
{
	if (p == NULL) {
		fn(arg, 1);
		return;
	}
	pthread_mutex_lock(&p->mu);
	p->fn = fn;
	p->arg = arg;
	p->busy = true;
	p->gen++;
	pthread_cond_signal(&p->go);
	pthread_mutex_unlock(&p->mu);
}

void
core_pair_wait(struct core_pair *p)
{
	if (p == NULL)
		return;
	pthread_mutex_lock(&p->mu);
	while (p->busy)
		pthread_cond_wait(&p->done, &p->mu);
	pthread_mutex_unlock(&p->mu);
}

void
core_pair_run(struct core_pair *p, core_pair_fn fn, void *arg)
{
	if (p != NULL)
		core_pair_start(p, fn, arg);
	fn(arg, 0);
	core_pair_wait(p);
}

void
core_pair_free(struct core_pair *p)
{
	if (p == NULL)
		return;
	pthread_mutex_lock(&p->mu);
	p->quit = true;
	pthread_cond_signal(&p->go);
	pthread_mutex_unlock(&p->mu);
	pthread_join(p->tid, NULL);
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->go);
	pthread_cond_destroy(&p->done);
	free(p);
}
