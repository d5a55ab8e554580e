/*
 * core_ahead.h - a stage's input read one batch ahead, on a thread of
 * its own.
 *
 * A stage whose input costs work (reading and checking frames, decoding,
 * a filter and the expressions of a projection) and whose own work costs
 * about as much (an aggregation's hashing and accumulating) can run the
 * two on two cores: while the caller works on one batch, the producer
 * makes the next.  The producer is a function that hands out a batch
 * valid only until its next call, as core_source and core_scan do; each
 * batch is therefore copied into one of CORE_AHEAD_SLOTS slots the ahead
 * owns (only the columns the batch has, compactly), and the caller is
 * handed the slot, valid until its next call.  So the producer is never
 * more than that many batches ahead, and the memory beyond the
 * producer's own is that many copies of its batches.
 *
 * Every call of the producer is made on the ahead's thread, one after
 * the other, and none after it has returned CORE_EOF or an error, which
 * the caller gets after the batches made before it, in order.  The
 * producer must not share anything unlocked with the caller's thread
 * (a core_pool is used by one thread at a time: give the producer's
 * its own).  core_ahead_free stops the producer once its current call
 * returns.
 *
 * The producer is called for the k-th batch (from 0) only once the
 * caller has let go of the (k - CORE_AHEAD_SLOTS)-th, by asking for the
 * next: so a producer may keep data of its own beside each batch (say,
 * its keys' hashes) in CORE_AHEAD_SLOTS places, the k-th batch's at
 * k % CORE_AHEAD_SLOTS, and the caller read the place of the batch it
 * holds, made before it was handed over.
 */
#ifndef CORE_AHEAD_H
#define CORE_AHEAD_H

#include <stdint.h>

#include "core_col.h"
#include "core_err.h"

/* Batches copied at once: the producer runs at most this many ahead of
 * the caller, which evens out batches of uneven cost on either side. */
#define CORE_AHEAD_SLOTS 4

/*
 * The producer: 0 with *b the next batch (borrowed until its next call;
 * a batch of 0 rows is handed on as it is) and tag[0..2) two numbers of
 * its choosing handed to the caller with it (say, progress counters);
 * CORE_EOF at the end; or a negative code with err set.
 */
typedef int (*core_ahead_fn)(void *arg, const struct core_batch **b,
    uint64_t tag[2], struct core_err *err);

struct core_ahead;

/*
 * Starts fn(arg, ...) on a thread of its own, making batches of schema
 * (borrowed, must outlive the ahead).  0, or CORE_EIO when no thread
 * can be had (then *out is NULL and the caller calls fn itself).
 */
int core_ahead_new(const struct core_schema *schema, core_ahead_fn fn,
    void *arg, struct core_ahead **out, struct core_err *err);

/*
 * The next batch: 0 with *b (owned by the ahead, valid until the next
 * call or the free) and tag as the producer set them, or the producer's
 * CORE_EOF or error (with its message in err), again on every later
 * call.
 */
int core_ahead_next(struct core_ahead *a, const struct core_batch **b,
    uint64_t tag[2], struct core_err *err);

/* Stops the producer (waiting for a call it is in to return), joins its
 * thread and frees everything; accepts NULL. */
void core_ahead_free(struct core_ahead *a);

#endif
