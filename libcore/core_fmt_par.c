/*
 * core_fmt_par.c - CSV and TSV written on several threads, in order
 * (core_fmt_par_write, declared in core_fmt.h).
 *
 * Every thread (two at most) runs the same loop: take the next batch
 * from the source (one thread at a time, under read_mu) with its
 * sequence number, format it into the thread's own buffer, then wait for
 * its turn (turn == its sequence number) and hand the text to the real
 * output in one write.  A thread holds its batch from its read to the
 * end of its turn, and turns go in read order, so when a batch is read
 * every batch before the last one is done: the source needs to keep one
 * batch valid across one more read, not more (core_mlspill3's
 * keep_last), and nothing is copied.
 * Reading and writing are short next to formatting, so on two cores the
 * formatting of one batch overlaps the reading, formatting and writing
 * of the next.
 *
 * Invariants:
 *   - bytes reach the output in sequence order: only the thread whose
 *     turn it is writes, and it passes the turn on only when done;
 *   - every sequence number taken is passed on, whatever happens to its
 *     batch, so no thread waits for a turn that never comes;
 *   - an error (the source's, the formatter's or the output's) is
 *     recorded in its batch's turn, so the rows before it are written
 *     and the first error in row order is the one reported;
 *   - a thread's buffer is never flushed by the formatter: before each
 *     chunk of rows it has room for core_fmt_rows_bound of them.  When
 *     the text of a batch would grow it past BUF_MAX (very long strings)
 *     the thread waits for its turn first, then writes its buffer out as
 *     it fills, and a chunk bigger than BUF_MAX alone goes through the
 *     shared formatter on the real output, which streams it;
 *   - memory: per thread the views of one batch and at most BUF_MAX of
 *     text.
 *
 * The workload is col2csv at gigabytes a second: batches of some
 * thousands of rows, a few hundred KiB to a few MiB of text each.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core_alloc.h"
#include "core_debug.h"
#include "core_fmt.h"

/* Rows formatted per bound check: small enough that the bound (which
 * assumes the longest text for every cell) stays near the real size. */
#define CHUNK_ROWS	2048
/* Largest text buffer of a thread. */
#define BUF_MAX		((size_t)64 << 20)
#define BUF_MIN		((size_t)1 << 20)

struct par;

/* One thread's state. */
struct worker {
	struct par *par;
	struct core_fmt *fmt;		/* owned; writes to text */
	struct core_output text;	/* buf owned; never written to a file */
	struct core_batch in;		/* views of the source's memory */
	struct core_err err;
};

struct par {
	const struct core_schema *schema;	/* borrowed */
	struct core_output *out;	/* borrowed: the real output */
	struct core_fmt *shared;	/* owned: on out, used in turn only */
	int (*next)(void *, struct core_batch *, struct core_err *);
	void *arg;

	pthread_mutex_t read_mu;	/* next(), ended, seq */
	bool ended;			/* next gave EOF or an error */
	uint64_t seq;			/* batches taken */

	pthread_mutex_t turn_mu;	/* turn, rc, err */
	pthread_cond_t turn_cv;
	uint64_t turn;			/* the batch whose bytes go next */
	int rc;				/* first error in row order, or 0 */
	struct core_err err;
};

static void
wait_turn(struct par *p, uint64_t seq, bool *stop)
{
	pthread_mutex_lock(&p->turn_mu);
	while (p->turn != seq)
		pthread_cond_wait(&p->turn_cv, &p->turn_mu);
	*stop = p->rc != 0;
	pthread_mutex_unlock(&p->turn_mu);
}

/* Ends turn seq, recording rc (0 or an error) if it is the first. */
static void
pass_turn(struct par *p, int rc, const struct core_err *err)
{
	pthread_mutex_lock(&p->turn_mu);
	if (rc != 0 && p->rc == 0) {
		p->rc = rc;
		p->err = *err;
	}
	p->turn++;
	pthread_cond_broadcast(&p->turn_cv);
	pthread_mutex_unlock(&p->turn_mu);
}

/* The thread's text so far to the real output (in its turn). */
static int
drain(struct worker *w)
{
	int rc = core_output_write(w->par->out, w->text.buf, w->text.len,
	    &w->err);

	w->text.len = 0;
	return rc;
}

/*
 * Formats w->own into w->text chunk by chunk.  Before the turn is held
 * (*held false) nothing is written anywhere else; once the text would
 * pass BUF_MAX the turn is waited for and the text goes out as it fills.
 */
static int
format_batch(struct worker *w, uint64_t seq, bool *held, bool *stop)
{
	const struct core_batch *b = &w->in;
	int rc;

	for (uint32_t r0 = 0; r0 < b->nrows;) {
		uint32_t n = b->nrows - r0 < CHUNK_ROWS ? b->nrows - r0 :
		    CHUNK_ROWS;
		size_t need = core_fmt_rows_bound(b, r0, n);

		if (w->text.cap - w->text.len < need &&
		    w->text.len + need <= BUF_MAX) {
			size_t cap = w->text.cap;

			w->text.buf = core_grow(w->text.buf, &cap,
			    w->text.len + need, 1, BUF_MIN);
			w->text.cap = cap;
		}
		if (w->text.cap - w->text.len < need) {
			if (!*held) {
				wait_turn(w->par, seq, stop);
				*held = true;
				if (*stop)
					return 0;
			}
			if ((rc = drain(w)) != 0)
				return rc;
			if (w->text.cap < need) {
				/* Too long for any buffer: streamed. */
				if ((rc = core_fmt_write_rows(w->par->shared,
				    b, r0, n, &w->err)) != 0)
					return rc;
				r0 += n;
				continue;
			}
		}
		if ((rc = core_fmt_write_rows(w->fmt, b, r0, n,
		    &w->err)) != 0)
			return rc;
		CORE_DCHECK(w->text.nbytes == 0 && !w->text.failed);
		r0 += n;
	}
	return 0;
}

static void
worker_run(void *arg, unsigned who)
{
	struct worker *w = (struct worker *)arg + who;
	struct par *p = w->par;

	for (;;) {
		uint64_t seq;
		bool held = false, stop = false;
		int rc;

		pthread_mutex_lock(&p->read_mu);
		if (p->ended) {
			pthread_mutex_unlock(&p->read_mu);
			return;
		}
		seq = p->seq++;
		rc = p->next(p->arg, &w->in, &w->err);
		if (rc != 0)
			p->ended = true;
		pthread_mutex_unlock(&p->read_mu);

		if (rc == 0)
			rc = format_batch(w, seq, &held, &stop);
		if (!held)
			wait_turn(p, seq, &stop);
		if (rc == 0 && !stop)
			rc = drain(w);
		w->text.len = 0;
		pass_turn(p, rc, &w->err);
		if (rc != 0 || stop) {
			/* No thread starts another batch. */
			pthread_mutex_lock(&p->read_mu);
			p->ended = true;
			pthread_mutex_unlock(&p->read_mu);
			return;
		}
	}
}

int
core_fmt_par_write(const struct core_fmt_options *opt,
    const struct core_schema *schema, struct core_output *out,
    struct core_pool *pool,
    int (*next)(void *arg, struct core_batch *b, struct core_err *err),
    void *arg, struct core_err *err)
{
	struct core_fmt_options wo = *opt;
	/* Two batches at most in use: see next's contract. */
	unsigned nw = core_pool_threads(pool) < 2 ? 1 : 2;
	struct worker *ws;
	struct core_batch empty;
	struct par p;
	int rc;

	if (opt->kind != CORE_FMT_CSV && opt->kind != CORE_FMT_TSV)
		return core_err_set(err, CORE_EINTERNAL,
		    "formatting on threads in a format other than csv or tsv");
	memset(&p, 0, sizeof(p));
	p.schema = schema;
	p.out = out;
	p.next = next;
	p.arg = arg;
	pthread_mutex_init(&p.read_mu, NULL);
	pthread_mutex_init(&p.turn_mu, NULL);
	pthread_cond_init(&p.turn_cv, NULL);
	p.shared = core_fmt_new(opt, schema, out);
	/* The header, through a batch of no rows. */
	core_batch_init(&empty, schema);
	rc = core_fmt_write_batch(p.shared, &empty, err);
	core_batch_release(&empty);

	wo.header = false;
	ws = core_xcalloc(nw, sizeof(*ws));
	for (unsigned i = 0; i < nw; i++) {
		struct worker *w = &ws[i];

		w->par = &p;
		w->text.fd = -1;
		w->text.name = "a formatting buffer";
		w->text.cap = BUF_MIN;
		w->text.buf = core_xmalloc(w->text.cap);
		w->fmt = core_fmt_new(&wo, schema, &w->text);
		core_batch_init(&w->in, schema);
	}
	if (rc == 0) {
		core_pool_run(pool, nw, worker_run, ws);
		rc = p.rc;
		if (rc == CORE_EOF)
			rc = core_fmt_finish(p.shared, err);
		else if (rc != 0)
			*err = p.err;
	}
	for (unsigned i = 0; i < nw; i++) {
		core_fmt_free(ws[i].fmt);
		free(ws[i].text.buf);
		core_batch_release(&ws[i].in);
	}
	free(ws);
	core_fmt_free(p.shared);
	pthread_cond_destroy(&p.turn_cv);
	pthread_mutex_destroy(&p.turn_mu);
	pthread_mutex_destroy(&p.read_mu);
	return rc;
}
