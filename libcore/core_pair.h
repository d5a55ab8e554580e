/*
 * core_pair.h - a second thread that works beside the caller.
 *
 * Column work (gathering sorted rows, encoding Parquet pages) splits
 * cleanly between two threads that each take the next column until
 * none is left.  core_pair runs one such job on the caller and on one
 * helper thread kept for the object's life, and returns when both are
 * done.  The helper blocks every signal, so handlers (the atomic-file
 * and temporary-file cleanup) run on the caller's thread.
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

/* Stops and joins the helper; p may be NULL. */
void core_pair_free(struct core_pair *p);

#endif
