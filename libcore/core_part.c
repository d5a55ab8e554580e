/*
 * core_part.c - many partitions written at once (core_part.h).
 *
 * A batch is routed in two passes: a counting sort of its row numbers by
 * partition (stable, so each partition's rows keep their order), then,
 * partition by partition, a columnar copy of its rows onto the end of
 * its buffer, one column at a time with a loop per value width.  Nothing
 * is allocated per row.
 *
 * A buffer is a batch whose columns own their memory, sized for rcap
 * rows and, per string column, scap text bytes; its charge is exactly
 * the sum of those capacities, computed before anything is allocated so
 * that the budget can refuse first.  When it refuses, a buffer is freed
 * (one with memory but no rows, else the one with the most rows, which
 * is written out first) and the charge tried again;
 * when nothing is left to free, the rows are charged anyway (a buffer of
 * one input batch's rows at most) and written out at once, so the memory
 * held never exceeds the budget by more than one batch.
 *
 * A buffer is written out when its rows pass the frame size, chosen at
 * creation so that every buffer can be full at once within the budget's
 * room (half the room over the partition count); after a
 * full frame is written its memory is kept for the next rows (the
 * partition is likely to fill again), after a flush for room it is
 * freed.
 *
 * Written behind (core_part_async), a full buffer is swapped into the
 * next slot of a ring (taking the memory of the latest written slot
 * that has some, or none) and a helper writes the ring's frames in
 * order, computing their checksums, while the caller routes on.  The
 * helper takes the next frame itself as soon as it has written one, so
 * that while there is a backlog no hand-over waits for a thread to
 * wake; once it has written everything it stops, and the caller starts
 * it again when START_BYTES are pending (small frames, of a small
 * budget over many partitions, then go by the dozen and not one start
 * each).  The caller waits only when PENDING_MAX bytes in two frames or
 * more, or the whole ring, are pending, until half of that is written.
 * When the budget refuses growth, the written slots' memory is freed
 * first, then everything pending is written and freed, and only then
 * is a partition's buffer written early (on the caller, nothing being
 * pending).  The spill set is touched by one thread at a time: the
 * helper while frames are pending, the caller only for reads of runs
 * already complete, or for writes once nothing is pending.  The ring's
 * counters are under mu.
 *
 * Invariants: buf[k].charged == the bytes of buf[k]'s capacities, and
 * their sum with the charges of the ring's buffers is what the set
 * holds of mem; each buffer's rows are the partition's latest, not yet
 * in its run (those pending for partition k, in ring order, come before
 * buf[k]'s); rows[k] counts partition k's rows routed, written or not.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core_alloc.h"
#include "core_debug.h"
#include "core_part.h"

#define FRAME_MIN ((uint64_t)16 << 10)
#define RCAP_MIN 64
#define SCAP_MIN 1024
/* Strings this long or shorter are copied as this many bytes. */
#define SHORT_COPY 32
/* Write-behind: a ring of RING slots; the helper is started at
 * START_BYTES pending, and the caller waits at PENDING_MAX. */
#define RING 64u
#define START_BYTES ((uint64_t)256 << 10)
#define PENDING_MAX ((uint64_t)512 << 10)

/* What became of a partition's space. */
enum gone {
	GONE_LIVE = 0,
	GONE_RETIRED,		/* to be given back */
	GONE_DISCARDED,		/* given back */
};

struct buf {
	struct core_batch b;	/* owned buffers; nrows rows */
	size_t rcap;		/* rows every column has room for */
	uint64_t text;		/* string bytes held, all columns */
	uint64_t charged;	/* bytes of the capacities */
};

struct core_part {
	const struct core_schema *schema;	/* borrowed */
	uint32_t nparts;
	struct core_spill *sp;		/* owned when own_sp */
	bool own_sp;
	bool finished;
	struct core_mem_part *mem;	/* borrowed, or NULL */
	uint64_t frame_bytes;		/* a buffer is written at this */
	uint64_t row_bytes;		/* fixed bytes of a row */
	size_t frame_rows;		/* rows of a frame of fixed bytes */
	struct buf *buf;		/* owned, nparts */
	struct core_spill_run *runs;	/* owned, nparts, chained */
	uint64_t *rows;			/* owned, nparts: rows routed */
	uint8_t *gone;			/* owned, nparts: enum gone */
	/* Writes behind the caller (core_part_async). */
	struct core_pool *pool;		/* borrowed, or NULL */
	struct core_pool_task task;
	pthread_mutex_t mu;
	pthread_cond_t cv;		/* a frame written, or the helper
					   stopped */
	struct buf *ring;		/* owned, RING slots */
	uint32_t *ring_k;		/* their partitions */
	uint64_t tail;			/* slots filled, ever */
	uint64_t wr;			/* slots written (or, after a
					   failure, given up), ever */
	uint64_t pending;		/* rows' bytes in slots [wr, tail) */
	bool running;			/* the helper has work, or has not
					   yet seen that it has none */
	bool started;			/* started and not yet waited for */
	bool waiting;			/* the caller waits on cv */
	bool stop;			/* core_part_free: write no more */
	int wr_rc;			/* the helper's writes: 0 or failed */
	uint64_t wr_bytes;		/* bytes the writes added */
	uint64_t wr_frames;		/* frames they wrote */
	struct core_err wr_err;
	/* Scratch of one add: rows grouped by partition. */
	uint32_t *sel;			/* owned, sel_cap */
	size_t sel_cap;
	uint32_t *start;		/* owned, nparts + 2 */
	uint64_t *text;			/* owned, ncols: a piece's text */
	size_t *scap;			/* owned, ncols: planned string caps */
	struct core_part_stats st;
};

/* A buffer is written at bytes (within FRAME_MIN and the most), and
 * holds as many rows of fixed bytes. */
static void
frame_set(struct core_part *p, uint64_t bytes)
{
	if (bytes > CORE_PART_FRAME_MAX)
		bytes = CORE_PART_FRAME_MAX;
	if (bytes < FRAME_MIN)
		bytes = FRAME_MIN;
	p->frame_bytes = bytes;
	p->frame_rows = (size_t)(bytes / (p->row_bytes + 1)) + 1;
}

static struct core_part *
part_new(struct core_spill *sp, bool own, uint32_t nparts,
    struct core_mem_part *mem)
{
	struct core_part *p = core_xcalloc(1, sizeof(*p));
	const struct core_schema *s = core_spill_schema(sp);
	uint64_t room;
	uint32_t k, i;

	CORE_DCHECK(nparts >= 1);
	p->schema = s;
	p->nparts = nparts;
	p->sp = sp;
	p->own_sp = own;
	p->mem = mem;
	room = mem != NULL ? core_mem_part_available(mem) : CORE_MEM_UNLIMITED;
	for (i = 0; i < s->ncols; i++) {
		size_t w = core_type_width(s->fields[i].type.id);

		p->row_bytes += w != 0 ? w : sizeof(int32_t);
	}
	/* Capacities run up to twice what a frame holds (fixed columns
	 * and text are sized apart), and every buffer may be full at once. */
	frame_set(p, room / nparts / 2);
	p->buf = core_xcalloc(nparts, sizeof(*p->buf));
	p->runs = core_xcalloc(nparts, sizeof(*p->runs));
	p->rows = core_xcalloc(nparts, sizeof(*p->rows));
	p->gone = core_xcalloc(nparts, sizeof(*p->gone));
	for (k = 0; k < nparts; k++) {
		core_batch_init(&p->buf[k].b, s);
		core_spill_chain_init(&p->runs[k]);
	}
	p->start = core_xcalloc((size_t)nparts + 2, sizeof(*p->start));
	p->text = core_xcalloc(s->ncols + 1, sizeof(*p->text));
	p->scap = core_xcalloc(s->ncols + 1, sizeof(*p->scap));
	return p;
}

struct core_part *
core_part_new(const struct core_schema *schema, uint32_t nparts,
    const char *const *dirs, size_t ndirs, uint64_t max_spill,
    int zstd_level, struct core_mem_part *mem)
{
	return part_new(core_spill_new(dirs, ndirs, max_spill, zstd_level,
	    schema), true, nparts, mem);
}

struct core_part *
core_part_new_in(struct core_spill *sp, uint32_t nparts,
    struct core_mem_part *mem)
{
	return part_new(sp, false, nparts, mem);
}

/* Frees buffer bf's memory and gives its charge back. */
static void
buf_free(struct core_part *p, struct buf *bf)
{
	core_batch_release(&bf->b);
	core_batch_init(&bf->b, p->schema);
	bf->rcap = 0;
	bf->text = 0;
	if (p->mem != NULL)
		core_mem_part_release(p->mem, bf->charged);
	bf->charged = 0;
}

/* Frees the ring's slots with whatever memory their buffers hold. */
static void
ring_free(struct core_part *p)
{
	uint32_t i;

	for (i = 0; i < RING; i++) {
		buf_free(p, &p->ring[i]);
		core_batch_release(&p->ring[i].b);
	}
	free(p->ring);
	free(p->ring_k);
	pthread_cond_destroy(&p->cv);
	pthread_mutex_destroy(&p->mu);
}

void
core_part_free(struct core_part *p)
{
	uint32_t k;

	if (p == NULL)
		return;
	if (p->pool != NULL) {
		/* Only after finish or a failure: nothing pending is
		 * wanted any more. */
		pthread_mutex_lock(&p->mu);
		p->stop = true;
		pthread_mutex_unlock(&p->mu);
		if (p->started)
			core_pool_wait(p->pool, &p->task);
		ring_free(p);
	}
	for (k = 0; k < p->nparts; k++) {
		buf_free(p, &p->buf[k]);
		core_batch_release(&p->buf[k].b);
		core_spill_chain_release(&p->runs[k]);
	}
	if (p->own_sp)
		core_spill_free(p->sp);
	free(p->buf);
	free(p->runs);
	free(p->rows);
	free(p->gone);
	free(p->sel);
	free(p->start);
	free(p->text);
	free(p->scap);
	free(p);
}

void
core_part_async(struct core_part *p, struct core_pool *pool)
{
	uint32_t i;

	CORE_DCHECK(p->pool == NULL && p->st.frames == 0);
	if (core_pool_threads(pool) < 2)
		return;
	p->pool = pool;
	p->ring = core_xcalloc(RING, sizeof(*p->ring));
	for (i = 0; i < RING; i++)
		core_batch_init(&p->ring[i].b, p->schema);
	p->ring_k = core_xcalloc(RING, sizeof(*p->ring_k));
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
}

static uint64_t held(const struct core_part *p, const struct buf *bf);

/* Empties bf of rows, keeping its memory for the next. */
static void
buf_reset(struct buf *bf)
{
	uint32_t i;

	bf->b.nrows = 0;
	bf->text = 0;
	for (i = 0; i < bf->b.ncols; i++) {
		/* The bitmap's storage stays for the next rows. */
		bf->b.cols[i].validity = NULL;
		if (bf->b.cols[i].offsets != NULL)
			bf->b.cols[i].offsets[0] = 0;
	}
}

/* The helper: writes the ring's pending frames in order, taking the next
 * as soon as one is written, until none is left, a write fails or the
 * set is being freed.  The slots [wr, tail) are the helper's alone. */
static void
write_job(void *arg, unsigned who)
{
	struct core_part *p = arg;
	uint64_t at, bytes, before, added;
	struct core_err e;
	struct buf *bf;
	int rc;

	(void)who;
	pthread_mutex_lock(&p->mu);
	while (p->wr < p->tail && p->wr_rc == 0 && !p->stop) {
		at = p->wr;
		pthread_mutex_unlock(&p->mu);
		bf = &p->ring[at % RING];
		bytes = held(p, bf);
		before = core_spill_bytes(p->sp);
		rc = core_spill_chain_write(p->sp,
		    &p->runs[p->ring_k[at % RING]], &bf->b, &e);
		added = core_spill_bytes(p->sp) - before;
		if (rc == 0)
			buf_reset(bf);
		pthread_mutex_lock(&p->mu);
		p->wr_bytes += added;
		if (rc != 0) {
			p->wr_rc = rc;
			p->wr_err = e;
			break;
		}
		p->wr_frames++;
		p->wr = at + 1;
		p->pending -= bytes;
		/* The caller, waiting for room, goes on at half. */
		if (p->waiting && (p->pending <= PENDING_MAX / 2 ||
		    p->tail - p->wr <= 1) && p->tail - p->wr <= RING / 2)
			pthread_cond_signal(&p->cv);
	}
	p->running = false;
	if (p->waiting)
		pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->mu);
}

/* Swaps buffers a and b (their memory and charges). */
static void
buf_swap(struct buf *a, struct buf *b)
{
	struct buf t = *a;

	*a = *b;
	*b = t;
}

/* With mu held: starts the helper on the pending frames unless it is on
 * them already (or a write failed). */
static void
kick(struct core_part *p)
{
	if (p->running || p->wr == p->tail || p->wr_rc != 0)
		return;
	if (p->started) {
		/* The last run has seen nothing left (running is false)
		 * and is returning: nothing changes meanwhile. */
		pthread_mutex_unlock(&p->mu);
		core_pool_wait(p->pool, &p->task);
		pthread_mutex_lock(&p->mu);
	}
	p->running = true;
	p->started = true;
	core_pool_start(p->pool, &p->task, write_job, p);
}

/* With mu held: counts what the helper wrote; its failure, once seen, is
 * every later call's. */
static int
collect(struct core_part *p, struct core_err *err)
{
	p->st.bytes += p->wr_bytes;
	p->st.frames += p->wr_frames;
	p->wr_bytes = 0;
	p->wr_frames = 0;
	if (p->wr_rc != 0 && err != NULL)
		*err = p->wr_err;
	return p->wr_rc;
}

/* Writes out everything pending and waits for it: the helper stopped
 * after (the caller may write), and the written slots keep their
 * memory. */
static int
drain(struct core_part *p, struct core_err *err)
{
	int rc;

	if (p->pool == NULL)
		return 0;
	pthread_mutex_lock(&p->mu);
	kick(p);
	while (p->running) {
		p->waiting = true;
		pthread_cond_wait(&p->cv, &p->mu);
	}
	p->waiting = false;
	rc = collect(p, err);
	pthread_mutex_unlock(&p->mu);
	if (p->started) {
		core_pool_wait(p->pool, &p->task);
		p->started = false;
	}
	return rc;
}

/* Something is pending, or the helper has not been waited for. */
static bool
ring_busy(struct core_part *p)
{
	bool busy;

	if (p->pool == NULL)
		return false;
	pthread_mutex_lock(&p->mu);
	busy = p->started || p->wr != p->tail;
	pthread_mutex_unlock(&p->mu);
	return busy;
}

/* The latest written slot holding memory among the written slots
 * [lo, wr), or NULL.  Written slots are the helper's no more. */
static struct buf *
spare_latest(struct core_part *p, uint64_t lo, uint64_t wr)
{
	uint64_t j;

	for (j = wr; j > lo; j--)
		if (p->ring[(j - 1) % RING].charged != 0)
			return &p->ring[(j - 1) % RING];
	return NULL;
}

/* Frees the memory of written slots, of one only when one: whether any
 * was freed.  The latest written go first: the oldest are the next
 * slots to be filled, whose memory the partitions then take. */
static bool
spares_free(struct core_part *p, bool one)
{
	uint64_t wr, lo;
	struct buf *bf;
	bool freed = false;

	if (p->pool == NULL)
		return false;
	pthread_mutex_lock(&p->mu);
	wr = p->wr;
	pthread_mutex_unlock(&p->mu);
	/* Slots before wr, back to a ring's length before tail, are the
	 * written ones. */
	lo = p->tail > RING ? p->tail - RING : 0;
	while ((bf = spare_latest(p, lo, wr)) != NULL) {
		buf_free(p, bf);
		freed = true;
		if (one)
			break;
	}
	return freed;
}

/* Writes partition k's buffered rows as one frame of its run, here,
 * after whatever is pending. */
static int
flush_now(struct core_part *p, uint32_t k, struct core_err *err)
{
	struct buf *bf = &p->buf[k];
	uint64_t before;
	int rc;

	if (bf->b.nrows == 0)
		return 0;
	CORE_DCHECK_BATCH(&bf->b);
	if ((rc = drain(p, err)) != 0)
		return rc;
	before = core_spill_bytes(p->sp);
	rc = core_spill_chain_write(p->sp, &p->runs[k], &bf->b, err);
	p->st.bytes += core_spill_bytes(p->sp) - before;
	if (rc != 0)
		return rc;
	p->st.frames++;
	buf_reset(bf);
	return 0;
}

/* Writes partition k's buffered rows as one frame of its run: behind the
 * caller when there is a helper (into the ring, buffer k then taking a
 * written slot's memory, or none), else here. */
static int
flush(struct core_part *p, uint32_t k, struct core_err *err)
{
	struct buf *bf = &p->buf[k], *slot, *spare;
	uint64_t h;
	int rc;

	if (bf->b.nrows == 0)
		return 0;
	if (p->pool == NULL)
		return flush_now(p, k, err);
	CORE_DCHECK_BATCH(&bf->b);
	h = held(p, bf);
	pthread_mutex_lock(&p->mu);
	/* Big frames (of a big budget) still go two at a time. */
	while (p->wr_rc == 0 && (p->tail - p->wr == RING ||
	    (p->pending >= PENDING_MAX && p->tail - p->wr >= 2))) {
		kick(p);
		p->waiting = true;
		pthread_cond_wait(&p->cv, &p->mu);
		p->waiting = false;
	}
	if (p->wr_rc != 0) {
		rc = collect(p, err);
		pthread_mutex_unlock(&p->mu);
		return rc;
	}
	slot = &p->ring[p->tail % RING];
	/* Buffer k takes a written slot's memory, the latest written's
	 * first (slot itself, the oldest, aside), so that no more buffers
	 * hold memory than the partitions and the pending frames need. */
	if (slot->charged == 0 && (spare = spare_latest(p, p->tail >= RING ?
	    p->tail - RING + 1 : 0, p->wr)) != NULL)
		buf_swap(spare, slot);
	p->ring_k[p->tail % RING] = k;
	buf_swap(slot, bf);
	p->tail++;
	p->pending += h;
	if (p->pending >= START_BYTES)
		kick(p);
	pthread_mutex_unlock(&p->mu);
	return 0;
}

static size_t
bitmap_cap(size_t rcap)
{
	return (core_bitmap_bytes((uint32_t)rcap) + 7) & ~(size_t)7;
}

/* The bytes of bf's capacities were they rcap rows, p->scap text bytes
 * and a bitmap where vsrc has one or bf has one already. */
static uint64_t
plan_bytes(const struct core_part *p, const struct buf *bf, size_t rcap,
    const struct core_batch *vsrc)
{
	uint64_t n = 0;
	uint32_t i;

	for (i = 0; i < p->schema->ncols; i++) {
		const struct core_column *c = &bf->b.cols[i];
		size_t w = core_type_width(c->type.id);

		if (w != 0)
			n += (uint64_t)rcap * w;
		else
			n += (uint64_t)(rcap + 1) * sizeof(int32_t) +
			    p->scap[i];
		if (c->validity_buf != NULL ||
		    (vsrc != NULL && vsrc->cols[i].validity != NULL))
			n += bitmap_cap(rcap);
	}
	return n;
}

/* A capacity for need: doubled from cap, so that a buffer filling row
 * by row is copied O(1) times a byte, but not past what one frame holds
 * (frame), nor, from empty, past need: a buffer is written once it holds
 * a frame, and a piece too big for the budget is written as soon as it
 * is copied. */
static size_t
grown(size_t cap, size_t need, size_t min, size_t frame)
{
	size_t n = cap > min ? cap : min;

	if (cap == 0)
		return need > min ? need : min;
	while (n < need)
		n *= 2;
	if (n > frame)
		n = frame > need ? frame : need;
	return n;
}

/* Plans room in bf for n more rows of src with text bytes p->text[] per
 * column: the new capacities (rcap returned, p->scap[]) and their bytes
 * (*bytes). */
static size_t
plan(struct core_part *p, const struct buf *bf, const struct core_batch *src,
    uint32_t n, uint64_t *bytes)
{
	size_t rows = (size_t)bf->b.nrows + n, rcap;
	uint32_t i;

	rcap = rows <= bf->rcap ? bf->rcap : grown(bf->rcap, rows, RCAP_MIN,
	    p->frame_rows);
	for (i = 0; i < p->schema->ncols; i++) {
		const struct core_column *c = &bf->b.cols[i];
		size_t used, need;

		p->scap[i] = 0;
		if (core_type_width(c->type.id) != 0)
			continue;
		used = bf->b.nrows > 0 ? (size_t)c->offsets[bf->b.nrows] : 0;
		need = used + (size_t)p->text[i];
		/* Never empty: a view of nothing is still a buffer. */
		p->scap[i] = need <= c->values_cap && c->values_cap > 0 ?
		    c->values_cap : grown(c->values_cap, need, SCAP_MIN,
		    (size_t)p->frame_bytes);
	}
	*bytes = plan_bytes(p, bf, rcap, src);
	return rcap;
}

/* Moves *buf to a new aligned buffer of ncap bytes keeping used bytes. */
static void
resize(void **buf, size_t *cap, size_t used, size_t ncap)
{
	void *n;

	if (ncap == *cap)
		return;
	n = core_xmalloc_aligned(ncap);
	if (used > 0)
		memcpy(n, *buf, used);
	if (*cap != 0)
		core_free_aligned(*buf);
	*buf = n;
	*cap = ncap;
}

/* Gives bf the capacities planned (rcap, p->scap[]): bytes in all. */
static void
realize(struct core_part *p, struct buf *bf, const struct core_batch *src,
    size_t rcap, uint64_t bytes)
{
	uint32_t rows = bf->b.nrows, i;

	for (i = 0; i < p->schema->ncols; i++) {
		struct core_column *c = &bf->b.cols[i];
		size_t w = core_type_width(c->type.id);
		bool had = c->validity != NULL;

		if (w != 0) {
			resize(&c->values, &c->values_cap, (size_t)rows * w,
			    rcap * w);
		} else {
			size_t used = rows == 0 ? 0 :
			    ((size_t)rows + 1) * sizeof(int32_t);

			resize((void **)&c->offsets, &c->offsets_cap, used,
			    (rcap + 1) * sizeof(int32_t));
			if (rows == 0)
				c->offsets[0] = 0;
			resize(&c->values, &c->values_cap,
			    (size_t)c->offsets[rows], p->scap[i]);
		}
		if (c->validity_buf != NULL || src->cols[i].validity != NULL) {
			resize((void **)&c->validity_buf, &c->validity_cap,
			    had ? core_bitmap_bytes(rows) : 0,
			    bitmap_cap(rcap));
			if (had)
				c->validity = c->validity_buf;
		}
	}
	bf->rcap = rcap;
	bf->charged = bytes;
}

/* Bytes bf's rows take. */
static uint64_t
held(const struct core_part *p, const struct buf *bf)
{
	return (uint64_t)bf->b.nrows * p->row_bytes + bf->text;
}

/* The buffer to free for room, or nparts when none holds memory: one
 * holding memory but no rows (freed without a write), else the one
 * holding the most rows' bytes (the fewest frames for the room). */
static uint32_t
victim(const struct core_part *p)
{
	uint32_t k, best = p->nparts;
	uint64_t most = 0, h;

	for (k = 0; k < p->nparts; k++) {
		if (p->buf[k].charged == 0)
			continue;
		if (p->buf[k].b.nrows == 0)
			return k;
		if ((h = held(p, &p->buf[k])) > most) {
			most = h;
			best = k;
		}
	}
	return best;
}

/* Makes room in buffer k for n more rows of src (text in p->text[]),
 * flushing others (or k) for room when the budget refuses.  *forced:
 * the budget could not be met, the rows are charged over it. */
static int
make_room(struct core_part *p, uint32_t k, const struct core_batch *src,
    uint32_t n, bool *forced, struct core_err *err)
{
	struct buf *bf = &p->buf[k];
	uint64_t bytes;
	size_t rcap;
	uint32_t j;
	int rc;

	*forced = false;
	for (;;) {
		rcap = plan(p, bf, src, n, &bytes);
		if (bytes <= bf->charged)
			break;
		if (p->mem == NULL ||
		    core_mem_part_try_charge(p->mem, bytes - bf->charged) == 0)
			break;
		/* Written slots' memory first, then what is pending,
		 * once written; then a partition's buffer. */
		if (spares_free(p, true))
			continue;
		if (ring_busy(p)) {
			if ((rc = drain(p, err)) != 0)
				return rc;
			spares_free(p, false);
			continue;
		}
		if ((j = victim(p)) == p->nparts) {
			core_mem_part_charge(p->mem, bytes - bf->charged);
			*forced = true;
			break;
		}
		if (p->buf[j].b.nrows > 0) {
			if ((rc = flush_now(p, j, err)) != 0)
				return rc;
			p->st.room_flushes++;
		}
		buf_free(p, &p->buf[j]);
	}
	if (bytes > bf->charged || rcap != bf->rcap)
		realize(p, bf, src, rcap, bytes);
	return 0;
}

/* Copies rows sel[0..n) of src onto the end of bf (room made). */
static void
append(struct buf *bf, const struct core_batch *src, const uint32_t *sel,
    uint32_t n)
{
	uint32_t at = bf->b.nrows, i, j;

	for (i = 0; i < src->ncols; i++) {
		const struct core_column *s = &src->cols[i];
		struct core_column *d = &bf->b.cols[i];

		switch (core_type_width(s->type.id)) {
		case 1: {
			const uint8_t *sv = s->values;
			uint8_t *dv = (uint8_t *)d->values + at;

			for (j = 0; j < n; j++)
				dv[j] = sv[sel[j]];
			break;
		}
		case 4: {
			const int32_t *sv = s->values;
			int32_t *dv = (int32_t *)d->values + at;

			for (j = 0; j < n; j++)
				dv[j] = sv[sel[j]];
			break;
		}
		case 8: {
			const int64_t *sv = s->values;
			int64_t *dv = (int64_t *)d->values + at;

			for (j = 0; j < n; j++)
				dv[j] = sv[sel[j]];
			break;
		}
		case 16: {
			/* decimal128 as two words: its buffers are only
			 * 8-byte aligned when borrowed from a stream. */
			const uint64_t *sv = s->values;
			uint64_t *dv = (uint64_t *)d->values + 2 * (size_t)at;

			for (j = 0; j < n; j++) {
				dv[2 * j] = sv[2 * (size_t)sel[j]];
				dv[2 * j + 1] = sv[2 * (size_t)sel[j] + 1];
			}
			break;
		}
		default: {
			const int32_t *so = s->offsets;
			const char *sv = s->values;
			int32_t *doff = d->offsets + at;
			char *dv = d->values;
			int32_t o = doff[0];
			/* Short strings move as SHORT_COPY bytes of fixed
			 * size (no call, no dispatch on the length) where
			 * both buffers have them: the source up to its last
			 * string's end, the destination up to its capacity
			 * (bytes past the string are overwritten by the
			 * next, or lie past the frame's text). */
			int64_t s_end = (int64_t)so[src->nrows] - SHORT_COPY;
			int64_t d_end = (int64_t)d->values_cap - SHORT_COPY;

			/* A column of empty strings may have no bytes at
			 * all (values NULL): nothing to copy from it. */
			for (j = 0; j < n && sv != NULL; j++) {
				int32_t from = so[sel[j]];
				int32_t len = so[sel[j] + 1] - from;

				if (len <= SHORT_COPY && from <= s_end &&
				    o <= d_end)
					memcpy(dv + o, sv + from, SHORT_COPY);
				else
					memcpy(dv + o, sv + from, (size_t)len);
				o += len;
				doff[j + 1] = o;
			}
			for (; j < n; j++)
				doff[j + 1] = o;
			bf->text += (uint64_t)(o - doff[0]);
			break;
		}
		}
		if (s->validity != NULL || d->validity != NULL) {
			uint8_t *v = d->validity_buf;

			if (d->validity == NULL) {
				/* The rows before were all valid. */
				memset(v, 0xff, core_bitmap_bytes(at));
				d->validity = v;
			}
			for (j = 0; j < n; j++) {
				uint32_t r = at + j;
				unsigned bit = core_col_is_valid(s, sel[j]);

				/* A byte begun here starts known: its bits
				 * past the last row go out in the frame. */
				if ((r & 7) == 0)
					v[r >> 3] = 0xff;
				v[r >> 3] = (uint8_t)((v[r >> 3] &
				    ~(1u << (r & 7))) | (bit << (r & 7)));
			}
		}
	}
	bf->b.nrows = at + n;
}

/* Routes rows sel[0..n) of src, all of partition k, n small enough for
 * a frame (route() slices). */
static int
route_piece(struct core_part *p, uint32_t k, const struct core_batch *src,
    const uint32_t *sel, uint32_t n, struct core_err *err)
{
	struct buf *bf = &p->buf[k];
	uint64_t text = 0;
	bool forced;
	uint32_t i, j;
	int rc;

	for (i = 0; i < src->ncols; i++) {
		const int32_t *so = src->cols[i].offsets;
		uint64_t t = 0;

		if (core_type_width(src->cols[i].type.id) == 0)
			for (j = 0; j < n; j++)
				t += (uint64_t)(so[sel[j] + 1] - so[sel[j]]);
		p->text[i] = t;
		text += t;
	}
	/* A frame stays under the frame size unless one piece is bigger,
	 * which also keeps string offsets within int32. */
	if (bf->b.nrows > 0 &&
	    held(p, bf) + n * p->row_bytes + text > p->frame_bytes &&
	    (rc = flush(p, k, err)) != 0)
		return rc;
	if ((rc = make_room(p, k, src, n, &forced, err)) != 0)
		return rc;
	append(bf, src, sel, n);
	if (forced) {
		/* Over the budget until written: written at once. */
		if ((rc = flush_now(p, k, err)) != 0)
			return rc;
		buf_free(p, bf);
	} else if (held(p, bf) >= p->frame_bytes) {
		return flush(p, k, err);
	}
	return 0;
}

/* Routes rows sel[0..n) of src, all of partition k, a frame's rows at a
 * time: one batch's rows of one partition (a batch of one key) may be
 * more than the budget lets a buffer hold. */
static int
route(struct core_part *p, uint32_t k, const struct core_batch *src,
    const uint32_t *sel, uint32_t n, struct core_err *err)
{
	uint32_t step = p->frame_rows < UINT32_MAX ? (uint32_t)p->frame_rows :
	    UINT32_MAX, m;
	int rc;

	while (n > 0) {
		m = n < step ? n : step;
		if ((rc = route_piece(p, k, src, sel, m, err)) != 0)
			return rc;
		sel += m;
		n -= m;
	}
	return 0;
}

int
core_part_add(struct core_part *p, const struct core_batch *b,
    const uint32_t *part_of_row, struct core_err *err)
{
	uint32_t n = b->nrows, i, k, top = 0;
	uint32_t *start = p->start;
	int rc;

	if (p->finished)
		return core_err_set(err, CORE_EINTERNAL,
		    "rows added to a finished partition set");
	if (n == 0)
		return 0;
	CORE_DCHECK_BATCH(b);
	for (i = 0; i < n; i++) {
		k = part_of_row[i];
		top = k != CORE_PART_SKIP && k > top ? k : top;
	}
	if (top >= p->nparts)
		return core_err_set(err, CORE_EINTERNAL,
		    "partition %u of %u partitions", top, p->nparts);
	p->sel = core_grow(p->sel, &p->sel_cap, n, sizeof(*p->sel), 4096);
	/* Counting sort: start[k + 1] counts, then start[k] is where
	 * partition k's rows begin, then (after placing) where they end.
	 * Skipped rows count as partition nparts, which is never routed. */
	memset(start, 0, ((size_t)p->nparts + 2) * sizeof(*start));
	for (i = 0; i < n; i++) {
		k = part_of_row[i];
		start[(k < p->nparts ? k : p->nparts) + 1]++;
	}
	for (k = 0; k <= p->nparts; k++)
		start[k + 1] += start[k];
	for (i = 0; i < n; i++) {
		k = part_of_row[i];
		p->sel[start[k < p->nparts ? k : p->nparts]++] = i;
	}
	/* start[k] is now partition k's end, and start[k - 1] its start. */
	for (k = 0; k < p->nparts; k++) {
		uint32_t lo = k == 0 ? 0 : start[k - 1], hi = start[k];

		if (hi > lo && (rc = route(p, k, b, p->sel + lo, hi - lo,
		    err)) != 0)
			return rc;
		p->rows[k] += hi - lo;
	}
	p->st.rows += start[p->nparts - 1];
	return 0;
}

int
core_part_finish(struct core_part *p, struct core_err *err)
{
	uint32_t k;
	int rc;

	if (p->finished)
		return 0;
	for (k = 0; k < p->nparts; k++) {
		if ((rc = flush(p, k, err)) != 0)
			return rc;
		buf_free(p, &p->buf[k]);
	}
	if ((rc = drain(p, err)) != 0)
		return rc;
	spares_free(p, false);
	p->finished = true;
	return 0;
}

uint32_t
core_part_count(const struct core_part *p)
{
	return p->nparts;
}

const struct core_spill_run *
core_part_run(const struct core_part *p, uint32_t k)
{
	CORE_DCHECK(k < p->nparts);
	return &p->runs[k];
}

uint64_t
core_part_rows(const struct core_part *p, uint32_t k)
{
	CORE_DCHECK(k < p->nparts);
	return p->rows[k];
}

uint64_t
core_part_frame_bytes(const struct core_part *p)
{
	return p->frame_bytes;
}

void
core_part_frame_cap(struct core_part *p, uint64_t bytes)
{
	if (bytes < p->frame_bytes)
		frame_set(p, bytes);
}

struct core_spill *
core_part_spill(struct core_part *p)
{
	return p->sp;
}

void
core_part_discard(struct core_part *p, uint32_t k)
{
	CORE_DCHECK(k < p->nparts);
	core_spill_run_discard(p->sp, &p->runs[k]);
	p->gone[k] = GONE_DISCARDED;
}

void
core_part_retire(struct core_part *p, uint32_t k)
{
	CORE_DCHECK(k < p->nparts);
	if (p->gone[k] == GONE_LIVE)
		p->gone[k] = GONE_RETIRED;
}

void
core_part_discard_retired(struct core_part *p)
{
	const struct core_spill_run **r = core_xcalloc(p->nparts,
	    sizeof(*r));
	uint32_t k, n = 0;

	for (k = 0; k < p->nparts; k++)
		if (p->gone[k] == GONE_RETIRED) {
			r[n++] = &p->runs[k];
			p->gone[k] = GONE_DISCARDED;
		}
	if (n > 0)
		core_spill_runs_discard(p->sp, r, n);
	free(r);
}

void
core_part_stats(const struct core_part *p, struct core_part_stats *st)
{
	*st = p->st;
}
