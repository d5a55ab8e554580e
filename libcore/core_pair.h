/*
 * core_pair.h - a second thread that works beside the caller.
 *
 * Column work (gathering sorted rows, encoding Parquet pages) splits
 * cleanly between two threads that each take the next column until
 * none is left.  core_pair runs one such job on the caller and on one
 * helper thread kept for the object's life, and returns when both are
 * done; or one job on the helper alone, waited for later (a write behind
 * the caller's back).  The helper blocks every signal, so handlers (the
 * atomic-file and temporary-file cleanup) run on the caller's thread.
 */
#ifndef CORE_PAIR_H
#define CORE_PAIR_H

/* One job: called with who = 0 on the caller, 1 on the helper. */
typedef void (*core_pair_fn)(void *arg, unsigned who);

struct core_pair;

/*
 * A helper thread, or NULL when want is 1, when want is 0 and the
 * machine has one core, or when no thread can be had (the work is then
 * done by the caller alone: slower, not wrong).
 */
struct core_pair *core_pair_new(unsigned want);

/* Runs fn(arg, 0) here and fn(arg, 1) on the helper (p NULL: only
 * fn(arg, 0)); returns when both have returned. */
void core_pair_run(struct core_pair *p, core_pair_fn fn, void *arg);

/* Runs fn(arg, 1) on the helper and returns at once (p NULL: runs
 * fn(arg, 1) here before returning).  Until core_pair_wait returns, p
 * takes no other job. */
void core_pair_start(struct core_pair *p, core_pair_fn fn, void *arg);

/* Returns once the job core_pair_start handed out is done; at once when
 * there is none (or p is NULL). */
void core_pair_wait(struct core_pair *p);

/* Stops and joins the helper; p may be NULL. */
void core_pair_free(struct core_pair *p);

#endif
