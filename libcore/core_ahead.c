/*
 * core_ahead.c - a stage's input read one batch ahead (core_ahead.h).
 *
 * CORE_AHEAD_SLOTS slots, filled by the producer's thread in turn and
 * handed to the caller in the same turn.  A slot is full from the moment its copy is
 * done until the caller's next call after the one that handed it out;
 * the producer fills a slot only when it is not full, so it never
 * writes what the caller is reading, and the copy itself is made
 * outside the lock.  After the producer's last batch comes its end
 * (CORE_EOF or an error), which the caller sees once every full slot is
 * handed out; the producer's thread ends there.
 *
 * A slot's columns are views into buffers of its own, which grow to the
 * largest batch seen and are then reused; a string column's offsets are
 * rebased to start at 0, so only the bytes its rows use are copied.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core_ahead.h"
#include "core_alloc.h"
#include "core_pool.h"

#define NSLOT CORE_AHEAD_SLOTS

/* One column's buffers in a slot. */
struct cbuf {
	void *valid, *off, *val;
	size_t validcap, offcap, valcap;
};

struct slot {
	struct core_batch b;		/* views into bufs */
	struct cbuf *bufs;		/* owned, one a column */
	uint64_t tag[2];
	bool full;			/* under mu */
};

struct core_ahead {
	const struct core_schema *schema;	/* borrowed */
	core_ahead_fn fn;
	void *arg;
	pthread_t tid;
	pthread_mutex_t mu;
	pthread_cond_t filled, freed;
	struct slot slot[NSLOT];
	unsigned next_in, next_out;	/* the producer's, the caller's */
	int held;			/* the slot the caller has, or -1 */
	bool done, stop;		/* under mu */
	int rc;				/* the producer's end */
	struct core_err err;
};

/* Slot s = a copy of batch b. */
static void
copy_batch(struct slot *s, const struct core_batch *b)
{
	uint32_t n = b->nrows, i;

	s->b.nrows = n;
	for (i = 0; i < b->ncols; i++) {
		const struct core_column *c = &b->cols[i];
		struct core_column *d = &s->b.cols[i];
		struct cbuf *u = &s->bufs[i];
		size_t len;

		d->validity = NULL;
		d->offsets = NULL;
		d->values = NULL;
		if (n == 0)
			continue;
		if (c->validity != NULL) {
			len = core_bitmap_bytes(n);
			core_grow_aligned(&u->valid, &u->validcap, len);
			memcpy(u->valid, c->validity, len);
			d->validity = u->valid;
		}
		if (c->type.id == CORE_TYPE_STRING) {
			int32_t base = c->offsets[0], *o;
			uint32_t r;

			len = (size_t)(c->offsets[n] - base);
			core_grow_aligned(&u->off, &u->offcap,
			    ((size_t)n + 1) * 4);
			core_grow_aligned(&u->val, &u->valcap, len);
			o = u->off;
			for (r = 0; r <= n; r++)
				o[r] = c->offsets[r] - base;
			if (len > 0)
				memcpy(u->val, (const char *)c->values + base,
				    len);
			d->offsets = o;
			d->values = u->val;
			continue;
		}
		len = (size_t)n * core_type_width(c->type.id);
		core_grow_aligned(&u->val, &u->valcap, len);
		memcpy(u->val, c->values, len);
		d->values = u->val;
	}
}

static void *
produce(void *arg)
{
	struct core_ahead *a = arg;
	const struct core_batch *b;
	struct core_err err = { 0, "" };
	uint64_t tag[2];
	struct slot *s;
	int rc;

	for (;;) {
		pthread_mutex_lock(&a->mu);
		s = &a->slot[a->next_in];
		while (s->full && !a->stop)
			pthread_cond_wait(&a->freed, &a->mu);
		if (a->stop) {
			pthread_mutex_unlock(&a->mu);
			return NULL;
		}
		pthread_mutex_unlock(&a->mu);
		tag[0] = tag[1] = 0;
		rc = a->fn(a->arg, &b, tag, &err);
		if (rc == 0)
			copy_batch(s, b);
		pthread_mutex_lock(&a->mu);
		if (rc != 0) {
			a->rc = rc;
			a->err = err;
			a->done = true;
		} else {
			s->tag[0] = tag[0];
			s->tag[1] = tag[1];
			s->full = true;
			a->next_in = (a->next_in + 1) % NSLOT;
		}
		pthread_cond_signal(&a->filled);
		pthread_mutex_unlock(&a->mu);
		if (rc != 0)
			return NULL;
	}
}

static void
slots_free(struct core_ahead *a)
{
	unsigned k;
	uint32_t i;

	for (k = 0; k < NSLOT; k++) {
		struct slot *s = &a->slot[k];

		if (s->bufs != NULL)
			for (i = 0; i < a->schema->ncols; i++) {
				core_free_aligned(s->bufs[i].valid);
				core_free_aligned(s->bufs[i].off);
				core_free_aligned(s->bufs[i].val);
			}
		free(s->bufs);
		core_batch_release(&s->b);
	}
}

int
core_ahead_new(const struct core_schema *schema, core_ahead_fn fn,
    void *arg, struct core_ahead **out, struct core_err *err)
{
	struct core_ahead *a = core_xcalloc(1, sizeof(*a));
	unsigned k;
	int e;

	*out = NULL;
	a->schema = schema;
	a->fn = fn;
	a->arg = arg;
	a->held = -1;
	for (k = 0; k < NSLOT; k++) {
		core_batch_init(&a->slot[k].b, schema);
		a->slot[k].bufs = core_xcalloc(schema->ncols + 1,
		    sizeof(*a->slot[k].bufs));
	}
	pthread_mutex_init(&a->mu, NULL);
	pthread_cond_init(&a->filled, NULL);
	pthread_cond_init(&a->freed, NULL);
	/* Signals go to the caller's thread, as with core_pool's helpers. */
	e = core_pool_spawn(&a->tid, produce, a);
	if (e != 0) {
		pthread_mutex_destroy(&a->mu);
		pthread_cond_destroy(&a->filled);
		pthread_cond_destroy(&a->freed);
		slots_free(a);
		free(a);
		return core_err_errno(err, CORE_EIO, e, "starting a thread "
		    "to read ahead");
	}
	*out = a;
	return 0;
}

int
core_ahead_next(struct core_ahead *a, const struct core_batch **b,
    uint64_t tag[2], struct core_err *err)
{
	struct slot *s;
	int rc;

	pthread_mutex_lock(&a->mu);
	if (a->held >= 0) {
		a->slot[a->held].full = false;
		a->held = -1;
		pthread_cond_signal(&a->freed);
	}
	s = &a->slot[a->next_out];
	while (!s->full && !a->done)
		pthread_cond_wait(&a->filled, &a->mu);
	if (s->full) {
		a->held = (int)a->next_out;
		a->next_out = (a->next_out + 1) % NSLOT;
		pthread_mutex_unlock(&a->mu);
		*b = &s->b;
		tag[0] = s->tag[0];
		tag[1] = s->tag[1];
		return 0;
	}
	rc = a->rc;
	*err = a->err;
	pthread_mutex_unlock(&a->mu);
	return rc;
}

void
core_ahead_free(struct core_ahead *a)
{
	if (a == NULL)
		return;
	pthread_mutex_lock(&a->mu);
	a->stop = true;
	pthread_cond_signal(&a->freed);
	pthread_mutex_unlock(&a->mu);
	pthread_join(a->tid, NULL);
	pthread_mutex_destroy(&a->mu);
	pthread_cond_destroy(&a->filled);
	pthread_cond_destroy(&a->freed);
	slots_free(a);
	free(a);
}
