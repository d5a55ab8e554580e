/*
 * core_pool.h - a few worker threads beside the caller.
 *
 * Two shapes of work use them.  A job split n ways (gathering columns,
 * encoding Parquet pages, the halves of a radix pass): core_pool_run
 * calls fn(arg, who) once for each who in [0, n), the caller taking
 * who 0 and idle helpers the rest, and returns when all n are done;
 * whatever no helper took the caller runs itself, so a busy or missing
 * helper makes a job slower, never wrong, and the caller's stack may
 * hold the job's state.  A task in the background (a write behind the
 * caller's back): core_pool_start hands fn(arg, 0) to a helper and
 * returns, core_pool_wait waits for it, running it here if no helper has
 * taken it yet, so a wait can never wait for a thread that is not there.
 *
 * A NULL pool is a pool of one thread, the caller: run calls fn for every
 * who in turn, start runs the task at once.  Helpers block every signal,
 * so handlers (the atomic-file and temporary-file cleanup) run on the
 * caller's thread.  A pool's calls are made from one thread at a time.
 */
#ifndef CORE_POOL_H
#define CORE_POOL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

typedef void (*core_pool_fn)(void *arg, unsigned who);

struct core_pool;

/* A background task, embedded in its owner; zeroed it is none.  Its
 * fields are the pool's. */
struct core_pool_task {
	core_pool_fn fn;
	void *arg;
	unsigned n, claimed, done;
	struct core_pool_task *next;
};

/*
 * Starts thread *tid running fn(arg) with every signal blocked but those
 * a fault raises in the thread itself (a blocked SIGBUS would turn
 * core_io's guard of mapped files into death), so that handlers (the
 * atomic-file and temporary-file cleanup) run on the caller's thread;
 * the caller's own mask is left as it was.  0, or pthread_create's
 * error number.  The pool's helpers and core_ahead's thread start so.
 */
int core_pool_spawn(pthread_t *tid, void *(*fn)(void *), void *arg);

/* Processors online, at least 1. */
unsigned core_pool_cpus(void);

/* want when not 0, else the processors online but at most most: the
 * thread count of an option where 0 means "the default". */
unsigned core_pool_default(unsigned want, unsigned most);

/*
 * A pool of nthreads threads counting the caller (nthreads - 1 helpers);
 * 0 means one per processor online.  NULL when that is 1, or when no
 * thread can be had (the caller then does everything).
 */
struct core_pool *core_pool_new(unsigned nthreads);

/* Stops and joins the helpers, once their work is done; accepts NULL. */
void core_pool_free(struct core_pool *p);

/* Threads counting the caller: 1 for NULL. */
unsigned core_pool_threads(const struct core_pool *p);

/* Calls fn(arg, who) for each who in [0, n), who 0 on the caller;
 * returns when every call has returned. */
void core_pool_run(struct core_pool *p, unsigned n, core_pool_fn fn,
    void *arg);

/* Starts fn(arg, 0) as task t (p NULL: runs it here and returns).  t
 * must not be running already. */
void core_pool_start(struct core_pool *p, struct core_pool_task *t,
    core_pool_fn fn, void *arg);

/* Returns once task t is done; at once when it was never started or is
 * done already. */
void core_pool_wait(struct core_pool *p, struct core_pool_task *t);

#endif
