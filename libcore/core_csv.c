/*
 * core_csv.c - the CSV reader object: inputs and members, sampling,
 * chunked and threaded parsing, ordered emission, rejects (see core_csv.h).
 *
 * Inputs are read member by member (a plain or compressed file is one
 * member, a tar archive one per regular entry).  A member is either mapped
 * (a plain regular file: all its bytes at once) or streamed into a buffer
 * that holds at least one whole row.
 *
 * Mapped members are cut into chunks of about CSV_CHUNK_BYTES.  Chunk k
 * nominally starts just after the first line terminator at or after
 * data_start + k * CSV_CHUNK_BYTES (its "guess"); parsing a chunk runs from
 * its start to the first step boundary at or after the next chunk's guess
 * (core_csv_private.h).  The serial parse from the start of the data
 * reaches every chunk's real start this way; a chunk parsed from a guess
 * that turns out not to be that real start (the guess fell inside a quoted
 * field holding a line break) is parsed again from the real start, by the
 * consumer, before it is used.  So the rows, their line numbers and the
 * batch boundaries (a batch never spans two chunks) depend only on the
 * input bytes and the options, never on the number of threads: with N
 * threads the chunks are parsed ahead by N workers, at most a window of
 * chunks beyond the one being consumed, and handed out strictly in order.
 *
 * Line numbers: each chunk counts its physical lines; the consumer adds the
 * lines of the chunks before it when it turns a chunk's bad-row records
 * into messages or rejects lines, so errors name the right line whatever
 * thread parsed the row.
 *
 * Streamed members (a pipe, a compressed file, a tar member) are read
 * (so decompressed) by a read-ahead task into a ring of slots of about 4
 * MiB, each cut after its last line feed, or with none after its last
 * CR (struct csv_readahead).  The
 * header and the sample are read from the first slots on the caller's
 * thread; after that each slot is a chunk job as above, parsed by the
 * workers from its start, in the window beyond the one being consumed.
 * The consumer checks what a mapped member's chunks check: a slot's job
 * is good when the parse before it ended at its cut; when not (the cut
 * was a line feed inside quotes, or a row is longer than a slot), the
 * consumer parses the row that ran on with the slot's bytes itself.  So
 * a stream is parsed on every thread too, into rows, lines and batches
 * that depend only on its bytes (but see RA_IDLE_MS).  When a member
 * ends before its header and sample are through, the caller parses the
 * rest alone.
 *
 * Workers and read-ahead are long-running tasks on the reader's own
 * core_pool, started for one member and stopped before the next, so they
 * never wait for each other's helpers.  A read-ahead stopped before its
 * member's end (the caller gave up: an error further on, or free) may sit
 * in a read from a pipe whose writer never ends; core_input_interrupt
 * makes that read return, so stopping never waits for input and nothing
 * keeps reading the caller's descriptor once the reader is gone.
 */
#include <ctype.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core_alloc.h"
#include "core_csv_enc.h"
#include "core_csv_private.h"
#include "core_debug.h"
#include "core_names.h"
#include "core_pool.h"
#include "core_suggest.h"
#include "core_value.h"

#define CSV_CHUNK_BYTES (4u << 20)
#define CSV_STREAM_BUF (2u << 20)
#define CSV_SAMPLE_MAX_BYTES (64u << 20)
#define CSV_SAMPLE_POINTS 8

/* A chunk of a mapped member and what parsing it produced. */
struct csv_job {
	size_t start, limit;	/* guessed start; next chunk's guess */
	struct csv_result res;
	int state;		/* JOB_QUEUED, JOB_RUNNING, JOB_DONE */
};

enum { JOB_QUEUED, JOB_RUNNING, JOB_DONE };

/* Read-ahead of a streamed member: a pool task reads (and so
 * decompresses) the member into a ring of slots, each about
 * RA_SLOT_BYTES of it, while the caller and the workers parse.  Slot s
 * holds the bytes the slot before it had after its last line feed (the
 * carry), then what was read for it; its own bytes are [0, cut), up to
 * and including its last line feed, so the member is the slots' own
 * bytes end to end, and every slot but the first starts where a row
 * probably starts.  The slots' bytes depend only on the member's bytes
 * (a slot is read full), never on how reads fell or on the threads; but
 * a slot holding RA_IDLE_BYTES is handed over as it is when the input
 * stays quiet for RA_IDLE_MS (a pipe whose writer pauses), so a stream
 * fed slowly may be cut into other batches from one run to the next,
 * never into other rows.
 * Without a helper the caller fills each slot itself when it needs it.
 * It lives for one member: core_input is only touched by it until it has
 * seen the member's end.  Its counters are under the reader's mu. */
#define RA_SLOT_BYTES (4u << 20)
#define RA_IDLE_BYTES (1u << 20)
#define RA_IDLE_MS 200

struct csv_slot {
	char *buf;			/* owned */
	size_t cap, len, cut;
	size_t end;			/* what a parse of [0, cut) may look
					   at: cut, or cut + 1 after a lone
					   CR, whose next byte shows it is
					   no CR LF */
	bool last;			/* the member's last: its end is the
					   member's, or a read failed */
	int rc;				/* read failure, with err */
	struct core_err err;
};

struct csv_readahead {
	struct core_csv_reader *r;
	struct core_input *in;		/* borrowed */
	struct core_pool_task task;
	bool threaded;			/* task runs on a helper */
	pthread_cond_t cv;		/* a slot was released; stop */
	struct csv_slot *slot;		/* owned; nslots */
	size_t nslots;
	size_t filled, released;	/* slots filled, and given back, since
					   the member began */
	bool done, stop;		/* the last slot is filled; stop */
	char *carry;			/* owned; the filling side's */
	size_t carry_len, carry_cap;
};

struct csv_worker {
	struct core_csv_reader *r;
	struct core_pool_task task;
	struct csv_parser ps;
};

struct core_csv_reader {
	struct core_csv_options opt;
	const char *const *paths;	/* borrowed */
	size_t npaths, ipath;
	struct core_input *in;		/* owned; current input */
	const char *name;		/* core_input_name(in) */

	struct core_schema *schema;	/* owned; every field */
	struct core_schema *oschema;	/* owned; the batches' columns, or
					   NULL when they are schema's */
	uint32_t *sel;			/* owned; conf.sel */
	uint32_t *colno;		/* owned; conf.colno */
	bool *selected;			/* owned; per field, whether
					   opt.columns names it; NULL for
					   all */
	struct csv_conf conf;
	bool header;
	bool empty;			/* the first input has no rows */
	char **hnames;			/* owned; first input's header */

	struct csv_pool *pool;		/* owned */
	struct csv_parser ps;		/* the caller's thread's parser */
	struct csv_result res;		/* stream results */
	unsigned nthreads;		/* opt.threads, 0 resolved */
	struct core_pool *helpers;	/* owned; NULL until threads help */
	struct csv_readahead *ra;	/* owned; running for this member */

	/* The current member. */
	bool mapped;
	const char *map;		/* borrowed from in */
	size_t maplen;
	char *sbuf;			/* owned stream buffer */
	size_t slen, scap;
	size_t slook;			/* bytes at sbuf[slen..) that follow
					   it in the input: the byte after a
					   slot's CR cut (struct csv_slot's
					   end), or none */
	bool seof;
	size_t pos;			/* next byte to parse (map/sbuf) */
	uint64_t line_next;		/* physical line of the next row */
	bool member_done;		/* all parsed: drain, then move on */
	struct csv_job *jobs;		/* owned; chunks of the member (a
					   stream's: a ring, job k in
					   jobs[k % ra->nslots]) */
	size_t njobs, ijob, job_cap;	/* a stream's: slots filled, slot
					   being consumed (counted from the
					   member's start) */
	bool chunking;			/* a stream's slots are chunk jobs */
	bool lead;			/* sbuf's rows go before them */
	size_t chunk0;			/* the first slot that is a job */
	const char *vbuf;		/* a stream's bytes cur was parsed
					   from (view); NULL: sbuf */
	size_t vlen;
	int sfail;			/* a stream's read failure, after
					   what was read before it */
	struct core_err sferr;
	size_t prev_end;		/* real end of the chunk before ijob */
	size_t dropped;			/* map bytes before this are given
					   back to the kernel */

	/* What is being handed out. */
	struct csv_result *cur;		/* NULL when nothing */
	uint64_t cur_base;		/* line number of cur's line 0 */
	size_t rec_next;

	/* Workers (threads > 1), for the current mapped member. */
	struct csv_worker *workers;	/* owned */
	unsigned nworkers;
	pthread_mutex_t mu;
	pthread_cond_t work_cv, done_cv;
	size_t wnext;			/* next job a worker may take */
	size_t window;			/* jobs ahead of ijob allowed */
	bool quit;

	int failed;			/* sticky error code */
	struct core_err ferr;
	bool eof;

	const char **colfmt;		/* owned array, borrowed strings:
					   each column's date format */
	int bad_kind;			/* CORE_CSV_BAD_* of the error */
	uint32_t bad_col;

	struct core_csv_stats st;
	char *notes;			/* owned; inference notes, lines */
	size_t notes_len, notes_cap;
};

void
core_csv_options_init(struct core_csv_options *o)
{
	memset(o, 0, sizeof(*o));
	o->delimiter = -1;
	o->quote = -1;
	o->header = -1;
	o->batch_rows = 8192;
	o->sample_rows = 20480;
	o->threads = 0;
	o->max_errors = UINT64_MAX;
}

/* ---- errors ---- */

static int
fail(struct core_csv_reader *r, int code, struct core_err *err)
{
	/* Zeros where a truncated mapped file was are no CSV error. */
	if (r->in != NULL && r->mapped && err != NULL)
		code = core_input_check(r->in, err) ? CORE_EDATA : code;
	r->failed = code;
	if (err != NULL)
		r->ferr = *err;
	return code;
}

/* ---- stream buffer ---- */

/* The pool's helpers: at least n of them (none when none can be had).
 * Only called with no task running, between members. */
static struct core_pool *
helpers_get(struct core_csv_reader *r, unsigned n)
{
	if (r->helpers != NULL && core_pool_threads(r->helpers) - 1 >= n)
		return r->helpers;
	core_pool_free(r->helpers);
	r->helpers = core_pool_new(n + 1);
	return r->helpers;
}

/* Fills slot ra->filled (free) from the input: the carry, then up to
 * RA_SLOT_BYTES more; cuts it after its last line feed, keeping what
 * follows as the next carry.  Touches only that slot and the carry. */
static void
ra_fill(struct csv_readahead *ra, struct csv_slot *sl)
{
	size_t want = ra->carry_len + RA_SLOT_BYTES, got, c;
	ssize_t n = 0;

	/* A carry is shorter than a slot (it follows the slot's last line
	 * end, and a slot with none is not carried): room for both, made
	 * once, so pages are not mapped and cleared again for every
	 * slot. */
	if (sl->cap < want) {
		free(sl->buf);
		sl->cap = want > 2 * (size_t)RA_SLOT_BYTES ? want :
		    2 * (size_t)RA_SLOT_BYTES;
		sl->buf = core_xmalloc(sl->cap);
	}
	if (ra->carry_len > 0)
		memcpy(sl->buf, ra->carry, ra->carry_len);
	got = ra->carry_len;
	sl->rc = 0;
	memset(&sl->err, 0, sizeof(sl->err));
	while (got < want) {
		/* A read returns only when it has all it asked for (or the
		 * end): ask for a MiB at a time, and hand over what the
		 * slot has when a writer goes quiet (a pipe fed now and
		 * then) once that is worth a slot. */
		size_t ask = RA_IDLE_BYTES - (got - ra->carry_len) %
		    RA_IDLE_BYTES;

		if (got - ra->carry_len >= RA_IDLE_BYTES &&
		    (got - ra->carry_len) % RA_IDLE_BYTES == 0 &&
		    core_input_idle(ra->in, RA_IDLE_MS))
			break;
		if (ask > want - got)
			ask = want - got;
		n = core_input_read(ra->in, sl->buf + got, ask, &sl->err);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	sl->len = got;
	sl->last = n <= 0;
	if (n < 0)
		sl->rc = (int)n;
	ra->carry_len = 0;
	sl->cut = sl->end = got;
	if (sl->last)
		return;
	/* A line feed in a quoted field makes a wrong cut; the consumer
	 * finds that out (core_csv_reader_next's stream path) and parses
	 * across it.  A slot with no line feed is cut after its last CR
	 * that has a byte after it (lines ending in a lone CR), the parse
	 * seeing that byte; with neither, at its end. */
	c = got;
	while (c > 0 && sl->buf[c - 1] != '\n')
		c--;
	if (c > 0) {
		sl->cut = sl->end = c;
	} else {
		c = got - 1;
		while (c > 0 && sl->buf[c - 1] != '\r')
			c--;
		if (c == 0)
			return;
		sl->cut = c;
		sl->end = c + 1;
	}
	if (c == got)
		return;
	ra->carry = core_grow(ra->carry, &ra->carry_cap, got - c, 1, 4096);
	memcpy(ra->carry, sl->buf + c, got - c);
	ra->carry_len = got - c;
}

/* Fills the next slot (free), with r->mu held but not across the read;
 * tells the consumer and the workers. */
static void
ra_fill_next(struct core_csv_reader *r)
{
	struct csv_readahead *ra = r->ra;
	struct csv_slot *sl = &ra->slot[ra->filled % ra->nslots];

	pthread_mutex_unlock(&r->mu);
	ra_fill(ra, sl);
	pthread_mutex_lock(&r->mu);
	ra->filled++;
	ra->done = sl->last;
	r->njobs = ra->filled;
	pthread_cond_broadcast(&r->work_cv);
	pthread_cond_broadcast(&r->done_cv);
}

static void
ra_main(void *arg, unsigned who)
{
	struct csv_readahead *ra = arg;
	struct core_csv_reader *r = ra->r;

	(void)who;
	pthread_mutex_lock(&r->mu);
	while (!ra->done) {
		while (!ra->stop && ra->filled - ra->released == ra->nslots)
			pthread_cond_wait(&ra->cv, &r->mu);
		if (ra->stop)
			break;
		ra_fill_next(r);
	}
	pthread_mutex_unlock(&r->mu);
}

/* Waits until slot s is filled (fills it here when no helper reads);
 * returns it.  s is the first slot not released, or after it. */
static struct csv_slot *
ra_slot(struct core_csv_reader *r, size_t s)
{
	struct csv_readahead *ra = r->ra;

	pthread_mutex_lock(&r->mu);
	while (ra->filled <= s) {
		if (ra->threaded)
			pthread_cond_wait(&r->done_cv, &r->mu);
		else
			ra_fill_next(r);
	}
	pthread_mutex_unlock(&r->mu);
	return &ra->slot[s % ra->nslots];
}

/* Gives slots before s back to be filled again. */
static void
ra_release(struct core_csv_reader *r, size_t s)
{
	struct csv_readahead *ra = r->ra;

	pthread_mutex_lock(&r->mu);
	if (s > ra->released) {
		ra->released = s;
		pthread_cond_broadcast(&ra->cv);
	}
	pthread_mutex_unlock(&r->mu);
}

static void
ra_stop(struct core_csv_reader *r)
{
	struct csv_readahead *ra = r->ra;
	bool done;
	size_t i;

	if (ra == NULL)
		return;
	pthread_mutex_lock(&r->mu);
	ra->stop = true;
	done = ra->done;
	pthread_cond_broadcast(&ra->cv);
	pthread_mutex_unlock(&r->mu);
	/* Stopped before the end (only free and a failure do that): the
	 * task may sit in a read from a pipe whose writer never ends; cut
	 * it short.  The input is freed next, so its failing from now on is
	 * no loss. */
	if (ra->threaded) {
		if (!done)
			core_input_interrupt(ra->in);
		core_pool_wait(r->helpers, &ra->task);
	}
	for (i = 0; i < ra->nslots; i++)
		free(ra->slot[i].buf);
	free(ra->slot);
	free(ra->carry);
	pthread_cond_destroy(&ra->cv);
	free(ra);
	r->ra = NULL;
	r->chunking = false;
	r->vbuf = NULL;
}

static void
ra_start(struct core_csv_reader *r)
{
	struct core_pool *p = r->nthreads > 1 ?
	    helpers_get(r, r->nthreads + 1) : NULL;
	struct csv_readahead *ra;

	ra = core_xcalloc(1, sizeof(*ra));
	ra->r = r;
	ra->in = r->in;
	pthread_cond_init(&ra->cv, NULL);
	/* The consumer's slot, the workers' window (as for a mapped
	 * member) and one being filled. */
	ra->nslots = (p != NULL ? r->nthreads + 2 : 1) + 1;
	ra->slot = core_xcalloc(ra->nslots, sizeof(*ra->slot));
	r->ra = ra;
	r->njobs = 0;
	/* No helper: the caller fills each slot when it needs it
	 * (ra_slot); slower, not different. */
	if (p != NULL) {
		ra->threaded = true;
		core_pool_start(p, &ra->task, ra_main, ra);
	}
}

/* Appends slot sl's bytes [from, cut) to sbuf, keeping sbuf[pos..slen),
 * moved to its start, and the slot's look-ahead after them (slook). */
static void
sbuf_append(struct core_csv_reader *r, const struct csv_slot *sl,
    size_t from)
{
	size_t n = sl->cut - from;

	if (r->pos > 0) {
		memmove(r->sbuf, r->sbuf + r->pos, r->slen - r->pos);
		r->slen -= r->pos;
		r->pos = 0;
	}
	r->sbuf = core_grow(r->sbuf, &r->scap, r->slen + n + 1, 1,
	    CSV_STREAM_BUF);
	if (n > 0)
		memcpy(r->sbuf + r->slen, sl->buf + from, n);
	r->slen += n;
	r->slook = sl->end - sl->cut;
	if (r->slook > 0)
		memcpy(r->sbuf + r->slen, sl->buf + sl->cut, r->slook);
}

/* Reads more of the current member into sbuf, keeping sbuf[pos..slen):
 * the next slot's own bytes. */
static int
stream_fill(struct core_csv_reader *r, struct core_err *err)
{
	struct csv_slot *sl;

	if (r->seof)
		return 0;
	sl = ra_slot(r, r->ra->released);
	if (sl->rc != 0) {
		if (err != NULL)
			*err = sl->err;
		return sl->rc;
	}
	sbuf_append(r, sl, 0);
	r->st.bytes += sl->cut;
	r->seof = sl->last;
	ra_release(r, r->ra->released + 1);
	return 0;
}

/* What core_input is to make of the bytes: UTF-8 by default, with
 * UTF-16 told by its byte order mark. */
static int
input_encoding(const struct core_csv_reader *r)
{
	return r->opt.encoding == CORE_ENC_RAW ? CORE_ENC_AUTO :
	    r->opt.encoding;
}

/* Points the member view at the current member of r->in. */
static void
member_load(struct core_csv_reader *r)
{
	size_t len = 0;
	const char *m = core_input_map(r->in, &len);

	r->name = core_input_name(r->in);
	r->mapped = m != NULL;
	r->map = m;
	r->maplen = len;
	r->dropped = 0;
	r->pos = 0;
	r->slen = 0;
	r->slook = 0;
	r->seof = false;
	r->member_done = false;
	r->vbuf = NULL;
	r->chunking = false;
	r->sfail = 0;
	if (r->mapped)
		r->st.bytes += len;
	else
		ra_start(r);
}

static inline const char *
view(const struct core_csv_reader *r, size_t *end, bool *at_eof)
{
	if (r->mapped) {
		*end = r->maplen;
		*at_eof = true;
		return r->map;
	}
	if (r->vbuf != NULL) {
		*end = r->vlen;
		*at_eof = r->seof;
		return r->vbuf;
	}
	*end = r->slen;
	*at_eof = r->seof;
	return r->sbuf;
}

/* Appends to err's message what the member's bytes look like when they
 * are no UTF-8 (core_csv_enc_hint): around the first invalid byte of
 * what is in view, which is at or before the one that failed; the bytes
 * before it show whether valid UTF-8 is there too. */
static void
enc_hint(const struct core_csv_reader *r, struct core_err *err)
{
	const size_t half = 32u << 10;
	const char *buf;
	size_t end, k, from, to;
	bool eof;

	if (err == NULL)
		return;
	buf = view(r, &end, &eof);
	if (buf == NULL || end == 0) {
		core_csv_enc_hint("", 0, err->msg, sizeof(err->msg));
		return;
	}
	k = core_utf8_valid_prefix(buf, end);
	from = k > half ? k - half : 0;
	to = end - k > half ? k + half : end;
	core_csv_enc_hint(buf + from, k < end ? to - from : 0, err->msg,
	    sizeof(err->msg));
}

/* ---- schema from the first input ---- */

/* Where the data of the member starts: after a BOM and skip_lines lines
 * (reading more of a stream as needed); lines skipped in *nskipped. */
static int
data_start(struct core_csv_reader *r, size_t *start, uint64_t *nskipped,
    struct core_err *err)
{
	const char *buf;
	size_t end, p = 0;
	uint64_t n = 0;
	bool eof;
	int rc, k;

	if (!r->mapped)
		while (!r->seof && r->slen - r->pos < 3)
			if ((rc = stream_fill(r, err)) != 0)
				return rc;
	buf = view(r, &end, &eof);
	p = r->pos;
	if (end - p >= 3 && memcmp(buf + p, "\xef\xbb\xbf", 3) == 0)
		p += 3;
	/* Read as UTF-8, UTF-16 text without its mark would turn into
	 * rows of NUL-ridden fields, or pass as one strange column. */
	if (r->opt.encoding <= CORE_ENC_UTF8 &&
	    !(eof && (end - p) % 2 != 0) &&
	    (k = core_csv_enc_utf16_guess(buf + p, end - p)) != 0)
		return core_err_set(err, CORE_EDATA, "%s: looks like %s "
		    "without a byte order mark (a NUL byte every other "
		    "byte): try --encoding %s", r->name,
		    k == CORE_ENC_UTF16LE ? "UTF-16LE" : "UTF-16BE",
		    core_csv_enc_name(k));
	while (n < r->opt.skip_lines) {
		buf = view(r, &end, &eof);
		if (p == end && eof)
			break;
		k = p == end ? 2 : csv_skip_line(buf, &p, end, eof);
		if (k == 1) {
			n++;
			continue;
		}
		/* The line goes on past the buffer: read more (the stream
		 * buffer keeps everything from r->pos). */
		{
			size_t off = p - r->pos;

			if ((rc = stream_fill(r, err)) != 0)
				return rc;
			p = r->pos + off;
		}
	}
	*start = p;
	*nskipped = n;
	return 0;
}

/* opt->trim on the sample: what inference and the header see. */
static void
sample_trim(struct csv_sample *s)
{
	const char *p;
	size_t i, n = s->nrows * s->ncols;

	for (i = 0; i < n; i++) {
		if (s->flags[i] & CSV_F_QUOTED)
			continue;
		p = s->text + s->off[i];
		while (s->len[i] > 0 && (*p == ' ' || *p == '\t')) {
			p++;
			s->off[i]++;
			s->len[i]--;
		}
		while (s->len[i] > 0 && (p[s->len[i] - 1] == ' ' ||
		    p[s->len[i] - 1] == '\t'))
			s->len[i]--;
	}
}

/* Names the columns after opt->names ("a,b,c"): one per column, none
 * empty or repeated (no suffixes: the names are the caller's word). */
static int
apply_names(struct core_csv_reader *r, uint32_t ncols, struct core_err *err)
{
	const char *spec = r->opt.names, *p, *q;
	uint32_t n = 1, j, k;
	char *name;

	for (p = spec; *p != '\0'; p++)
		n += *p == ',';
	if (n != ncols)
		return core_err_set(err, CORE_EUSAGE, "names: %u name%s given "
		    "(%s), but the table has %u column%s: give one name per "
		    "column", n, n == 1 ? "" : "s", spec, ncols,
		    ncols == 1 ? "" : "s");
	for (j = 0, p = spec; j < n; j++, p = q + 1) {
		q = strchr(p, ',');
		if (q == NULL)
			q = p + strlen(p);
		if (q == p)
			return core_err_set(err, CORE_EUSAGE, "names: name %u "
			    "is empty in '%s'", j + 1, spec);
		name = core_xstrndup(p, (size_t)(q - p));
		for (k = 0; k < j; k++)
			if (strcmp(r->schema->fields[k].name, name) == 0)
				break;
		if (k < j) {
			core_err_set(err, CORE_EUSAGE, "names: '%s' is given "
			    "twice in '%s'", name, spec);
			free(name);
			return CORE_EUSAGE;
		}
		core_schema_set(r->schema, j, name,
		    r->schema->fields[j].type);
		free(name);
	}
	return 0;
}

/* The schema an empty input stands for: --schema's columns, in order. */
static int
empty_schema(struct core_csv_reader *r, struct core_err *err)
{
	const char *spec = r->opt.schema, *p, *q;
	uint32_t n = 0, j;
	int rc;

	if (spec == NULL) {
		r->schema = core_schema_new(0);
		r->conf.pinned = core_xcalloc(1, sizeof(bool));
		return 0;
	}
	/* Name every column after its pin, then apply the pins (which
	 * check the spec): the names come out as the spec spells them. */
	for (p = spec; *p != '\0'; p++)
		n += *p == ':';
	r->schema = core_schema_new(n);
	r->conf.pinned = core_xcalloc(n ? n : 1, sizeof(bool));
	for (j = 0, p = spec; j < n; j++) {
		char def[32];

		while (*p == ',' || *p == ' ' || *p == '\t')
			p++;
		q = strchr(p, ':');
		while (q > p && (q[-1] == ' ' || q[-1] == '\t'))
			q--;
		{
			char *name = core_xstrndup(p, (size_t)(q - p));
			struct core_coltype st = { CORE_TYPE_STRING, 0, 0 };

			snprintf(def, sizeof(def), "c%u", j + 1);
			core_schema_set(r->schema, j, *name ? name : def,
			    st);
			free(name);
		}
		/* To the comma that ends the item (outside parentheses). */
		for (int depth = 0; *p != '\0' && (*p != ',' ||
		    depth > 0); p++) {
			if (*p == '(')
				depth++;
			else if (*p == ')' && depth > 0)
				depth--;
		}
	}
	rc = csv_apply_pins(r->schema, r->conf.pinned, spec, err);
	if (rc == 0)
		for (j = 0; j < n; j++)
			if (!r->conf.pinned[j])
				rc = core_err_set(err, CORE_EUSAGE,
				    "schema: '%s' cannot be read as "
				    "name:type,...", spec);
	return rc;
}

/* The first row of buf[pos..end) that is not blank or a comment, when
 * its quoting is broken: the message for it, as parsing would give. */
static int
first_row_syntax(struct core_csv_reader *r, struct csv_tok *t,
    const char *buf, size_t pos, size_t end, bool eof, uint64_t line,
    struct core_err *err)
{
	char ex[256];
	size_t raw, row;

	for (;;) {
		if (csv_skip_eol(buf, &pos, end, eof) == 1) {
			line++;
			continue;
		}
		if (pos < end && r->opt.comment > 0 &&
		    buf[pos] == (char)r->opt.comment &&
		    csv_skip_line(buf, &pos, end, eof) == 1) {
			line++;
			continue;
		}
		break;
	}
	row = pos;
	if (pos >= end || csv_tok_row(t, buf, &pos, end, eof) != CSV_ROW_OK ||
	    t->syn == CSV_SYN_OK)
		return 0;
	raw = t->f[t->syn_field].raw;
	csv_excerpt(ex, sizeof(ex), buf + row + raw, t->row_end - row - raw);
	return core_err_set(err, CORE_EDATA, "%s:%llu:%zu: %s (%s)", r->name,
	    (unsigned long long)(line + csv_count_breaks(buf + row, raw)),
	    t->syn_field + 1, t->syn == CSV_SYN_UNTERMINATED ?
	    "unterminated quote" : "unexpected text after closing quote",
	    ex);
}

static const char *
delim_name(int d, char *buf)
{
	if (d == '\t')
		return "tab";
	buf[0] = '\'';
	buf[1] = (char)d;
	buf[2] = '\'';
	buf[3] = '\0';
	return buf;
}

/* Appends one line to the reader's notes. */
static void
note_add(struct core_csv_reader *r, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(line))
		n = sizeof(line) - 1;
	r->notes = core_grow(r->notes, &r->notes_cap,
	    r->notes_len + (size_t)n + 2, 1, 1);
	memcpy(r->notes + r->notes_len, line, (size_t)n);
	r->notes_len += (size_t)n;
	r->notes[r->notes_len++] = '\n';
	r->notes[r->notes_len] = '\0';
}

/* Says why column j was read as text although its values look typed:
 * the value that decided it, with its line (buf is what the sample was
 * taken from, so the line is the breaks before the row, plus one). */
static void
note_why(struct core_csv_reader *r, const struct csv_sample *s,
    const char *buf, uint32_t j, const struct csv_infer_why *why)
{
	size_t idx = why->row * s->ncols + j;
	char ex[256], nm[256];
	unsigned long long line = 1 +
	    csv_count_breaks(buf, s->rowpos[why->row]);
	const char *name = r->schema->fields[j].name;

	csv_excerpt(ex, sizeof(ex), s->text + s->off[idx], s->len[idx]);
	csv_excerpt(nm, sizeof(nm), name, strlen(name));
	switch (why->why) {
	case CSV_WHY_TEXTNUM:
		note_add(r, "column %s: string, not a number: %s:%llu has %s "
		    "(a leading zero or '+' would not print back)", nm,
		    r->name, line, ex);
		break;
	case CSV_WHY_NOTDATE:
	case CSV_WHY_NOTTS:
		note_add(r, "column %s: string, not %s: %s:%llu has %s, "
		    "which is no valid %s", nm,
		    why->why == CSV_WHY_NOTDATE ? "date" : "timestamp",
		    r->name, line, ex,
		    why->why == CSV_WHY_NOTDATE ? "date" : "timestamp");
		break;
	default:
		break;
	}
}

/* Sets the number notation: as given, or the decimal comma sniffed in a
 * ';'-separated file when it makes more columns numeric than '.'. */
static void
sniff_numfmt(struct core_csv_reader *r, const struct csv_sample *s,
    size_t from)
{
	static const struct csv_numfmt comma = { ',', 0 };
	const struct core_csv_options *o = &r->opt;
	unsigned ndot = 0, ncomma = 0;
	struct core_coltype t;
	uint32_t j;

	r->conf.numfmt.dec = o->decimal_mark == ',' ? ',' : '.';
	r->conf.numfmt.thou = o->thousands;
	r->conf.numfmt_on = o->decimal_mark == ',' || o->thousands != 0;
	/* Only with the delimiter sniffed too: -d ';' reads as told. */
	if (o->decimal_mark != 0 || o->thousands != 0 || o->delimiter >= 0 ||
	    r->conf.delim != ';')
		return;
	for (j = 0; j < s->ncols; j++) {
		if (r->conf.pinned[j])
			continue;
		t = csv_infer_column_why(s, j, from, o->nulls, o->nnulls, NULL,
		    NULL);
		ndot += core_type_is_decimal(t.id) || t.id == CORE_TYPE_FLOAT64;
		t = csv_infer_column_why(s, j, from, o->nulls, o->nnulls,
		    &comma, NULL);
		ncomma += core_type_is_decimal(t.id) ||
		    t.id == CORE_TYPE_FLOAT64;
	}
	if (ncomma > ndot) {
		r->conf.numfmt = comma;
		r->conf.numfmt_on = true;
		note_add(r, "numbers: decimal comma (sniffed: %u column%s of "
		    "numbers with ',', %u with '.')", ncomma,
		    ncomma == 1 ? "" : "s", ndot);
	}
}

/*
 * Takes the pages of a mapped member past its first chunk out of the
 * resident set.  The sample's points and the chunk guesses each touch a
 * few bytes far into the file, but the kernel maps whole large folios of
 * the page cache on a fault (and reads ahead a sequential mapping), so
 * the resident set would otherwise start at a good part of the file, not
 * at the few chunks the parse holds.  Pages dropped are faulted in again
 * from the page cache when next read, with the same bytes.
 */
static void
drop_tail(struct core_csv_reader *r)
{
	const size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	size_t from = (r->pos + CSV_CHUNK_BYTES + pg - 1) & ~(pg - 1);

	if (r->mapped && from < r->maplen)
		(void)madvise((char *)r->map + from, r->maplen - from,
		    MADV_DONTNEED);
}

/* Each column's date format (r->colfmt): its own from
 * opt->date_formats, else opt->date_format; CORE_EUSAGE for a name no
 * column has or one given twice. */
static int
date_formats(struct core_csv_reader *r, struct core_err *err)
{
	const struct core_csv_options *o = &r->opt;
	const struct core_schema *sc = r->schema;
	char sug[512];
	const char *e, *nm;
	size_t i, nl;
	uint32_t j;

	free(r->colfmt);
	r->colfmt = core_xcalloc(sc->ncols ? sc->ncols : 1,
	    sizeof(*r->colfmt));
	for (i = 0; i < o->ndate_formats; i++) {
		nm = o->date_formats[i];
		e = strchr(nm, '=');
		nl = (size_t)(e - nm);
		for (j = 0; j < sc->ncols; j++)
			if (strlen(sc->fields[j].name) == nl &&
			    memcmp(sc->fields[j].name, nm, nl) == 0)
				break;
		if (j == sc->ncols) {
			char *want = core_xstrndup(nm, nl);

			sug[0] = '\0';
			core_suggest_column(sc, want, sug, sizeof(sug));
			core_err_set(err, CORE_EUSAGE, "--date-format %s: no "
			    "column '%s'%s", nm, want, sug);
			free(want);
			return CORE_EUSAGE;
		}
		if (r->colfmt[j] != NULL)
			return core_err_set(err, CORE_EUSAGE, "--date-format "
			    "%s: column %s has a format already", nm,
			    sc->fields[j].name);
		r->colfmt[j] = e + 1;
	}
	for (j = 0; j < sc->ncols; j++)
		if (r->colfmt[j] == NULL)
			r->colfmt[j] = o->date_format;
	return 0;
}

/* Resolves opt.columns against the schema's names into r->sel and
 * r->selected; CORE_EUSAGE for an unknown, empty or repeated item. */
static int
select_columns(struct core_csv_reader *r, struct core_err *err)
{
	const struct core_schema *sc = r->schema;
	const char *p = r->opt.columns, *e;
	char sug[512], *want;
	uint32_t j, n = 0;
	size_t l, k;

	if (p == NULL || r->selected != NULL)
		return 0;
	r->selected = core_xcalloc(sc->ncols ? sc->ncols : 1, sizeof(bool));
	for (e = p; *e != '\0'; e++)
		n += *e == ',';
	r->sel = core_xcalloc(n + 1, sizeof(*r->sel));
	for (n = 0;; p = e + 1) {
		e = strchr(p, ',');
		l = e != NULL ? (size_t)(e - p) : strlen(p);
		if (l == 0)
			return core_err_set(err, CORE_EUSAGE, "--columns %s: "
			    "an empty column name; give names or 1-based "
			    "numbers separated by commas", r->opt.columns);
		for (j = 0; j < sc->ncols; j++)
			if (strlen(sc->fields[j].name) == l &&
			    memcmp(sc->fields[j].name, p, l) == 0)
				break;
		if (j == sc->ncols) {
			/* No such name: a number, when it is all digits. */
			unsigned long long v = 0;

			for (k = 0; k < l && p[k] >= '0' && p[k] <= '9' &&
			    v <= UINT32_MAX; k++)
				v = v * 10 + (unsigned)(p[k] - '0');
			want = core_xstrndup(p, l);
			if (k == l && v >= 1 && v <= sc->ncols) {
				j = (uint32_t)(v - 1);
			} else if (k == l) {
				core_err_set(err, CORE_EUSAGE, "--columns: no "
				    "column %s; the input has %u column%s",
				    want, sc->ncols, sc->ncols == 1 ? "" :
				    "s");
				free(want);
				return CORE_EUSAGE;
			} else {
				sug[0] = '\0';
				core_suggest_column(sc, want, sug,
				    sizeof(sug));
				core_err_set(err, CORE_EUSAGE, "--columns: no "
				    "column '%s'%s", want, sug);
				free(want);
				return CORE_EUSAGE;
			}
			free(want);
		}
		if (r->selected[j])
			return core_err_set(err, CORE_EUSAGE, "--columns %s: "
			    "column %s is listed twice; list each column "
			    "once", r->opt.columns, sc->fields[j].name);
		r->selected[j] = true;
		r->sel[n++] = j;
		if (e == NULL)
			break;
	}
	r->conf.nsel = n;
	return 0;
}

/*
 * The rows of a batch: the option's (8192 by default), fewer on a table
 * so wide that they would pass CORE_BATCH_FIXED (core_batch_rows_for).
 * *str_reserve is the bytes each string column starts a batch with, held
 * to the same total.
 */
static uint32_t
batch_rows_for(const struct core_csv_reader *r, size_t *str_reserve)
{
	const struct core_schema *s = r->schema;
	const uint32_t n = r->sel != NULL ? r->conf.nsel : s->ncols;
	size_t nstr = 0;

	for (uint32_t k = 0; k < n; k++)
		nstr += s->fields[r->sel != NULL ? r->sel[k] : k].type.id ==
		    CORE_TYPE_STRING;
	*str_reserve = nstr > 0 ? CORE_BATCH_FIXED / nstr : CSV_STR_RESERVE;
	if (*str_reserve > CSV_STR_RESERVE)
		*str_reserve = CSV_STR_RESERVE;
	if (*str_reserve < 64)
		*str_reserve = 64;
	return core_batch_rows_for(s, r->sel, n, r->opt.batch_rows);
}

static int
build_schema(struct core_csv_reader *r, struct core_err *err)
{
	const struct core_csv_options *o = &r->opt;
	struct csv_sample s;
	struct csv_tok t;
	size_t end, bom = 0, want, got, i, per, at, from, target;
	unsigned long long hline = 1;
	struct csv_sniffed sn;
	struct core_names taken = { 0 };
	uint64_t nskip = 0;
	const char *buf;
	bool eof;
	int delim, quote, why, rc = 0;
	uint32_t j;

	memset(&s, 0, sizeof(s));
	csv_tok_init(&t, ',', '"');	/* released at out in every case */
	/* A stream: read enough for the sample (or all of it). */
	if (!r->mapped) {
		while (!r->seof && r->slen < (1u << 20))
			if ((rc = stream_fill(r, err)) != 0)
				goto out;
	}
	if ((rc = data_start(r, &bom, &nskip, err)) != 0)
		goto out;
	hline = nskip + 1;
	buf = view(r, &end, &eof);
	memset(&sn, 0, sizeof(sn));
	sn.delim = o->delimiter;
	sn.quote = o->quote < 0 ? -2 : o->quote == 0 ? -1 : o->quote;
	sn.comment = o->comment;
	csv_sniff(buf + bom, end - bom, eof, &sn);
	delim = sn.delim;
	quote = sn.quote;
	r->conf.delim = delim;
	r->conf.quote = quote;
	if (sn.table && sn.pre_rows > 0) {
		char hint[64] = "";
		unsigned long long tl = nskip + sn.pre_lines;

		if (sn.lead > 0 && sn.lead < 127 && ispunct(sn.lead) &&
		    sn.lead != quote && o->comment == 0)
			snprintf(hint, sizeof(hint), ", or skip lines that "
			    "start with '%c' with --comment '%c'", sn.lead,
			    sn.lead);
		rc = core_err_set(err, CORE_EDATA, "%s:%llu: the table seems "
		    "to start here (%zu fields on every row from this line "
		    "on), after %llu line%s with other field counts: if "
		    "they are a title or notes, read the table with "
		    "--skip %llu%s", r->name, tl + 1, sn.ncols,
		    (unsigned long long)sn.pre_lines,
		    sn.pre_lines == 1 ? "" : "s", tl, hint);
		goto out;
	}
	if (sn.alt_delim >= 0 && o->delimiter < 0) {
		char a[8], b[8];

		rc = core_err_set(err, CORE_EDATA, "%s: two readings fit: "
		    "delimiter %s gives %zu columns and delimiter %s gives "
		    "%u, on every row alike; say which with -d", r->name,
		    delim_name(delim, a), sn.ncols, delim_name(sn.alt_delim,
		    b), sn.alt_ncols);
		goto out;
	}

	want = o->sample_rows + 1;	/* + a header */
	if (r->mapped && end > CSV_CHUNK_BYTES)
		want = want / 2 + 1;
	csv_tok_release(&t);
	csv_tok_init(&t, delim, quote);
	for (;;) {
		buf = view(r, &end, &eof);
		got = csv_sample_rows(&s, &t, buf, bom, end, eof, want, false,
		    o->comment);
		if (got >= want || eof || r->slen >= CSV_SAMPLE_MAX_BYTES)
			break;
		/* Not enough rows in the buffer yet: read as much again and
		 * take the sample anew (pos stays 0: nothing moves). */
		csv_sample_release(&s);
		target = 2 * r->slen;
		while (!r->seof && r->slen < target)
			if ((rc = stream_fill(r, err)) != 0)
				goto out;
	}
	if (s.nrows == 0) {
		/* Broken quoting in the only rows there are is reported
		 * where it is; an input with no row at all is an empty
		 * stream, of --schema's columns or of none. */
		if ((rc = first_row_syntax(r, &t, buf, bom, end, eof, hline,
		    err)) != 0)
			goto out;
		r->header = false;
		r->empty = true;
		note_add(r, "no rows: an empty stream of %s",
		    o->schema != NULL ? "--schema's columns" : "no columns");
		rc = empty_schema(r, err);
		goto out;
	}
	/* More rows from points further into a big mapped file, so a column
	 * whose values change type late is seen (a row that does not fit
	 * the first's shape ends a point's rows). */
	if (r->mapped && end > CSV_CHUNK_BYTES && s.nrows >= want) {
		per = (o->sample_rows / 2) / CSV_SAMPLE_POINTS + 1;
		for (i = 1; i <= CSV_SAMPLE_POINTS; i++) {
			at = (size_t)((double)end * (double)i /
			    (CSV_SAMPLE_POINTS + 1));
			while (at < end && buf[at] != '\n' && buf[at] != '\r')
				at++;
			if (csv_skip_eol(buf, &at, end, true) != 1)
				continue;
			(void)csv_sample_rows(&s, &t, buf, at,
			    at + CSV_CHUNK_BYTES < end ? at + CSV_CHUNK_BYTES :
			    end, at + CSV_CHUNK_BYTES >= end, per, true,
			    o->comment);
			drop_tail(r);
		}
	}
	if (o->trim)
		sample_trim(&s);
	csv_sample_drop_copies(&s);
	/* The header's line, for messages: after any blank lines. */
	for (at = bom;; hline++) {
		if (csv_skip_eol(buf, &at, end, eof) == 1)
			continue;
		if (at < end && o->comment > 0 && buf[at] == (char)o->comment &&
		    csv_skip_line(buf, &at, end, eof) == 1)
			continue;
		break;
	}
	if (o->header >= 0 || o->names != NULL) {
		r->header = o->header > 0;
		why = CSV_HDR_GIVEN;
	} else {
		why = csv_detect_header(&s, o->nulls, o->nnulls, &r->header);
	}
	if (why == CSV_HDR_AMBIGUOUS) {
		rc = core_err_set(err, CORE_EDATA, "%s:%llu: cannot tell "
		    "whether this row is a header: its years may be column "
		    "names or values of integer columns; say --header or "
		    "--no-header", r->name, hline);
		goto out;
	}
	if (nskip > 0)
		note_add(r, "skipped lines before the header (--skip)");
	note_add(r, "%s: %s", r->header ? "header" : "no header",
	    csv_header_why_text(why));

	if (s.ncols > CORE_COLUMNS_MAX) {
		rc = core_err_set(err, CORE_EDATA, "%s:%llu: %u columns, more "
		    "than the limit of %u; is --delimiter right?", r->name,
		    hline, s.ncols, CORE_COLUMNS_MAX);
		goto out;
	}
	r->schema = core_schema_new(s.ncols);
	r->conf.pinned = core_xcalloc(s.ncols ? s.ncols : 1, sizeof(bool));
	if (r->header)
		r->hnames = core_xcalloc(s.ncols, sizeof(char *));
	for (j = 0; j < s.ncols; j++) {
		struct core_coltype st = { CORE_TYPE_STRING, 0, 0 };
		char def[32], *name;
		const char *h;
		size_t hl;

		snprintf(def, sizeof(def), "c%u", j + 1);
		if (r->header) {
			h = s.text + s.off[j];
			hl = s.len[j];
			if (hl > 0 && (core_utf8_valid_prefix(h, hl) != hl ||
			    memchr(h, '\0', hl) != NULL)) {
				char ex[256];

				csv_excerpt(ex, sizeof(ex), h, hl);
				rc = core_err_set(err, CORE_EDATA,
				    "%s:%llu:%u: invalid UTF-8 or NUL in "
				    "header name (%s)", r->name, hline, j + 1,
				    ex);
				if (core_utf8_valid_prefix(h, hl) != hl)
					enc_hint(r, err);
				goto out;
			}
			r->hnames[j] = core_xstrndup(hl > 0 ? h : "", hl);
			name = core_names_unique(&taken,
			    hl > 0 ? r->hnames[j] : def, j);
		} else {
			name = core_names_unique(&taken, def, j);
		}
		core_schema_set(r->schema, j, name, st);
		free(name);
	}
	if (o->names != NULL && (rc = apply_names(r, s.ncols, err)) != 0)
		goto out;
	if (o->schema != NULL) {
		rc = csv_apply_pins(r->schema, r->conf.pinned, o->schema, err);
		if (rc != 0)
			goto out;
	}
	if ((rc = date_formats(r, err)) != 0 ||
	    (rc = select_columns(r, err)) != 0)
		goto out;
	from = r->header ? 1 : 0;
	sniff_numfmt(r, &s, from);
	for (j = 0; j < s.ncols; j++) {
		struct csv_infer_why tw;

		struct core_coltype *ty = &r->schema->fields[j].type;

		/* A column not selected is only delimited: its type is
		 * never used. */
		if (r->conf.pinned[j] ||
		    (r->selected != NULL && !r->selected[j]))
			continue;
		if (r->colfmt[j] != NULL && r->colfmt[j] != o->date_format) {
			*ty = (struct core_coltype){ CORE_TYPE_DATE, 0, 0 };
			continue;
		}
		if (o->date_format != NULL && csv_datefmt_column(
		    o->date_format, false, &s, j, from, o->nulls, o->nnulls)) {
			*ty = (struct core_coltype){ CORE_TYPE_DATE, 0, 0 };
			continue;
		}
		if (o->timestamp_format != NULL && csv_datefmt_column(
		    o->timestamp_format, true, &s, j, from, o->nulls,
		    o->nnulls)) {
			*ty = (struct core_coltype){ CORE_TYPE_TIMESTAMP, 0,
			    0 };
			continue;
		}
		*ty = csv_infer_column_why(&s, j, from,
		    o->nulls, o->nnulls, r->conf.numfmt_on ? &r->conf.numfmt :
		    NULL, &tw);
		/* ISO values in a column of a type given a format: text,
		 * as the format alone reads that type. */
		if ((ty->id == CORE_TYPE_DATE && o->date_format != NULL) ||
		    (ty->id == CORE_TYPE_TIMESTAMP &&
		    o->timestamp_format != NULL))
			*ty = (struct core_coltype){ CORE_TYPE_STRING, 0, 0 };
		else if (tw.why != CSV_WHY_NONE)
			note_why(r, &s, buf, j, &tw);
	}
out:
	core_names_release(&taken);
	csv_tok_release(&t);
	csv_sample_release(&s);
	drop_tail(r);
	return rc;
}

/* ---- members ---- */

static void jobs_setup(struct core_csv_reader *r);
static void chunks_setup(struct core_csv_reader *r);
static void workers_stop(struct core_csv_reader *r);

/* Skips a BOM, blank lines and (with a header) the header row of the
 * member just loaded; checks the header of a later member. */
static int
member_begin(struct core_csv_reader *r, bool first, struct core_err *err)
{
	struct csv_tok *t = &r->ps.tok;
	uint64_t lines = 0, nskip;
	const char *buf;
	size_t end, p, j;
	bool eof;
	int rc, k;

	if ((rc = data_start(r, &p, &nskip, err)) != 0)
		return rc;
	r->pos = p;
	lines = nskip;
	r->st.skipped += nskip;
	for (;;) {
		buf = view(r, &end, &eof);
		p = r->pos;
		if (p == end && !eof) {
			if ((rc = stream_fill(r, err)) != 0)
				return rc;
			continue;
		}
		if (p == end)
			break;
		k = csv_skip_eol(buf, &p, end, eof);
		if (k == 1) {
			r->pos = p;
			lines++;
			continue;
		}
		if (k == 0 && r->opt.comment > 0 &&
		    buf[p] == (char)r->opt.comment)
			k = csv_skip_line(buf, &p, end, eof) == 1 ? 3 : 2;
		if (k == 3) {
			r->pos = p;
			lines++;
			r->st.comments++;
			continue;
		}
		if (k == 2) {
			if ((rc = stream_fill(r, err)) != 0)
				return rc;
			continue;
		}
		if (r->conf.ncols == 0)
			return core_err_set(err, CORE_EDATA, "%s:%llu: a row "
			    "after an empty first input, which gave a stream "
			    "of no columns: put an input with rows first, or "
			    "give the columns with --schema", r->name,
			    (unsigned long long)lines + 1);
		if (!r->header)
			break;
		if (csv_tok_row(t, buf, &p, end, eof) == CSV_ROW_MORE) {
			if ((rc = stream_fill(r, err)) != 0)
				return rc;
			continue;
		}
		if (t->syn != CSV_SYN_OK) {
			char ex[256];
			size_t raw = t->f[t->syn_field].raw;

			csv_excerpt(ex, sizeof(ex), buf + r->pos + raw,
			    t->row_end - r->pos - raw);
			return core_err_set(err, CORE_EDATA,
			    "%s:%llu:%zu: %s (%s)", r->name,
			    (unsigned long long)(lines + 1 +
			    csv_count_breaks(buf + r->pos, raw)),
			    t->syn_field + 1, t->syn == CSV_SYN_UNTERMINATED ?
			    "unterminated quote" :
			    "unexpected text after closing quote", ex);
		}
		if (r->opt.trim)
			csv_trim_fields(t);
		if (!first) {
			char ex[256];

			if (t->nf != r->conf.ncols) {
				csv_excerpt(ex, sizeof(ex), buf + r->pos,
				    t->row_end - r->pos);
				return core_err_set(err, CORE_EDATA,
				    "%s:%llu:1: header has %zu fields, the "
				    "first input's %u (%s)", r->name,
				    (unsigned long long)lines + 1, t->nf,
				    r->conf.ncols, ex);
			}
			for (j = 0; j < t->nf; j++) {
				if (strlen(r->hnames[j]) == t->f[j].len &&
				    memcmp(r->hnames[j], t->f[j].p,
				    t->f[j].len) == 0)
					continue;
				csv_excerpt(ex, sizeof(ex), t->f[j].p,
				    t->f[j].len);
				return core_err_set(err, CORE_EDATA,
				    "%s:%llu:%zu: header name differs from the "
				    "first input's '%s' (%s)", r->name,
				    (unsigned long long)(lines + 1 +
				    csv_count_breaks(buf + r->pos,
				    t->f[j].raw)), j + 1, r->hnames[j], ex);
			}
		}
		lines += 1 + t->nbreaks;
		r->pos = p;
		break;
	}
	r->line_next = 1 + lines;
	r->st.lines += lines;
	r->ps.line = lines;
	r->ps.nrejected = 0;
	r->cur = NULL;
	if (r->conf.ncols == 0)
		r->member_done = true;	/* nothing but blank lines */
	else if (r->mapped)
		jobs_setup(r);
	else if (!r->seof)
		chunks_setup(r);
	return 0;
}

/* Opens the next member or input; CORE_EOF after the last. */
static int
next_member(struct core_csv_reader *r, struct core_err *err)
{
	int rc;

	workers_stop(r);
	ra_stop(r);
	for (;;) {
		rc = core_input_next_member(r->in, err);
		if (rc == 0) {
			member_load(r);
			return member_begin(r, false, err);
		}
		if (rc < 0)
			return rc;
		core_input_free(r->in);
		r->in = NULL;
		if (++r->ipath >= r->npaths)
			return CORE_EOF;
		rc = core_input_open(r->paths[r->ipath], &r->in, err);
		if (rc != 0)
			return rc;
		core_input_set_encoding(r->in, input_encoding(r));
		member_load(r);
		return member_begin(r, false, err);
	}
}

/* ---- chunks and workers ---- */

/* Parses buf[start..) while before limit (rows run on to their end, up
 * to end; at_eof says whether end is the member's). */
static void
parse_job(struct csv_parser *ps, const char *buf, size_t end, bool at_eof,
    size_t start, size_t limit, struct csv_result *res)
{
	size_t pos = start;

	ps->line = 0;
	ps->nrejected = 0;
	res->start = start;
	(void)csv_parse(ps, buf, &pos, limit, end, at_eof, res);
	csv_parser_flush(ps, res);
	res->end = pos;
}

/* With r->mu held: lets the jobs up to k + window run, then takes job k
 * for the caller when no worker took it (or there are none): true, the
 * caller parses it; else waits for the worker's result: false.  Returns
 * with r->mu released. */
static bool
job_claim(struct core_csv_reader *r, struct csv_job *job, size_t k)
{
	bool mine = job->state == JOB_QUEUED;

	pthread_cond_broadcast(&r->work_cv);
	if (mine) {
		job->state = JOB_RUNNING;
		if (r->wnext <= k)
			r->wnext = k + 1;
	} else {
		while (job->state != JOB_DONE)
			pthread_cond_wait(&r->done_cv, &r->mu);
	}
	pthread_mutex_unlock(&r->mu);
	return mine;
}

static void
worker_main(void *arg, unsigned who)
{
	struct csv_worker *w = arg;
	struct core_csv_reader *r = w->r;
	struct csv_job *job;

	(void)who;
	pthread_mutex_lock(&r->mu);
	for (;;) {
		while (!r->quit && !(r->wnext < r->njobs &&
		    r->wnext < r->ijob + r->window))
			pthread_cond_wait(&r->work_cv, &r->mu);
		if (r->quit)
			break;
		if (r->mapped) {
			job = &r->jobs[r->wnext++];
			job->state = JOB_RUNNING;
			pthread_mutex_unlock(&r->mu);
			parse_job(&w->ps, r->map, r->maplen, true, job->start,
			    job->limit, &job->res);
		} else {
			/* A slot: filled, and not released before the
			 * consumer has waited for this job. */
			struct csv_slot *sl = &r->ra->slot[r->wnext %
			    r->ra->nslots];

			job = &r->jobs[r->wnext++ % r->ra->nslots];
			job->state = JOB_RUNNING;
			pthread_mutex_unlock(&r->mu);
			parse_job(&w->ps, sl->buf, sl->end,
			    sl->last && sl->rc == 0, 0, sl->cut, &job->res);
		}
		pthread_mutex_lock(&r->mu);
		job->state = JOB_DONE;
		pthread_cond_broadcast(&r->done_cv);
	}
	pthread_mutex_unlock(&r->mu);
}

/* Starts up to n workers, one per helper to be had (fewer is slower, not
 * wrong: the consumer parses any chunk no worker took). */
static void
workers_start(struct core_csv_reader *r, unsigned n)
{
	struct core_pool *p = helpers_get(r, n);
	unsigned i;

	if (p == NULL)
		return;
	if (n > core_pool_threads(p) - 1)
		n = core_pool_threads(p) - 1;
	r->workers = core_xcalloc(n, sizeof(*r->workers));
	r->quit = false;
	for (i = 0; i < n; i++) {
		r->workers[i].r = r;
		csv_parser_init(&r->workers[i].ps, &r->conf, r->pool);
	}
	r->nworkers = n;
	for (i = 0; i < n; i++)
		core_pool_start(p, &r->workers[i].task, worker_main,
		    &r->workers[i]);
}

static void
workers_stop(struct core_csv_reader *r)
{
	unsigned i;

	if (r->workers == NULL)
		return;
	pthread_mutex_lock(&r->mu);
	r->quit = true;
	pthread_cond_broadcast(&r->work_cv);
	pthread_mutex_unlock(&r->mu);
	/* A task no helper took yet runs here and sees quit at once. */
	for (i = 0; i < r->nworkers; i++) {
		core_pool_wait(r->helpers, &r->workers[i].task);
		csv_parser_release(&r->workers[i].ps);
	}
	free(r->workers);
	r->workers = NULL;
	r->nworkers = 0;
}

/* Cuts the mapped member at r->pos.. into chunks and lets workers go. */
static void
jobs_setup(struct core_csv_reader *r)
{
	const char *buf = r->map;
	size_t end = r->maplen, start = r->pos, t, g, n = 0, i;
	unsigned threads;

	for (i = 0; i < r->job_cap; i++)
		csv_result_clear(&r->jobs[i].res, r->pool);
	for (t = start + CSV_CHUNK_BYTES;; t += CSV_CHUNK_BYTES) {
		if (n == r->job_cap) {
			size_t old = r->job_cap;

			r->jobs = core_grow(r->jobs, &r->job_cap, n + 1,
			    sizeof(*r->jobs), 16);
			for (i = old; i < r->job_cap; i++)
				csv_result_init(&r->jobs[i].res);
		}
		r->jobs[n].start = start;
		r->jobs[n].state = JOB_QUEUED;
		if (t >= end) {
			r->jobs[n++].limit = end;
			break;
		}
		g = t;
		while (g < end && buf[g] != '\n' && buf[g] != '\r')
			g++;
		drop_tail(r);
		if (g < end)
			g += (buf[g] == '\r' && g + 1 < end &&
			    buf[g + 1] == '\n') ? 2 : 1;
		if (g >= end) {
			r->jobs[n++].limit = end;
			break;
		}
		r->jobs[n++].limit = g;
		start = g;
		if (t < g)
			t = g;	/* a line longer than a chunk */
	}
	threads = r->nthreads;
	pthread_mutex_lock(&r->mu);
	r->njobs = n;
	r->ijob = 0;
	r->wnext = 0;
	r->prev_end = r->pos;
	if (threads > 1 && n > 1 && r->workers == NULL) {
		pthread_mutex_unlock(&r->mu);
		r->window = threads + 2;
		workers_start(r, threads);
		pthread_mutex_lock(&r->mu);
	}
	if (r->nworkers == 0)
		r->wnext = n;	/* the consumer parses every chunk */
	pthread_cond_broadcast(&r->work_cv);
	pthread_mutex_unlock(&r->mu);
}

/* Makes the slots of the streamed member not yet read into sbuf chunk
 * jobs (sbuf keeps what the header and the sample left of the slots
 * before) and lets workers go. */
static void
chunks_setup(struct core_csv_reader *r)
{
	struct csv_readahead *ra = r->ra;
	size_t i, old;
	unsigned threads = r->nthreads;

	if (r->job_cap < ra->nslots) {
		old = r->job_cap;
		r->jobs = core_grow(r->jobs, &r->job_cap, ra->nslots,
		    sizeof(*r->jobs), 16);
		for (i = old; i < r->job_cap; i++)
			csv_result_init(&r->jobs[i].res);
	}
	for (i = 0; i < r->job_cap; i++) {
		csv_result_clear(&r->jobs[i].res, r->pool);
		r->jobs[i].state = JOB_QUEUED;
	}
	r->ps.line = 0;
	pthread_mutex_lock(&r->mu);
	r->chunking = true;
	r->lead = true;
	r->chunk0 = ra->released;
	r->ijob = ra->released;
	r->wnext = ra->released;
	r->window = ra->nslots - 1;
	/* Workers need helpers beside the read-ahead's. */
	if (ra->threaded && threads > 1 && r->workers == NULL &&
	    core_pool_threads(r->helpers) > 2) {
		pthread_mutex_unlock(&r->mu);
		if (threads > core_pool_threads(r->helpers) - 2)
			threads = core_pool_threads(r->helpers) - 2;
		workers_start(r, threads);
		pthread_mutex_lock(&r->mu);
	}
	pthread_cond_broadcast(&r->work_cv);
	pthread_mutex_unlock(&r->mu);
}

/* Makes res, a chunk's result, the one handed out next. */
static void
use_result(struct core_csv_reader *r, struct csv_result *res)
{
	r->cur = res;
	r->cur_base = r->line_next;
	r->rec_next = 0;
	r->line_next += res->nlines;
	r->st.lines += res->nlines;
	r->st.comments += res->ncomments;
	r->st.padded += res->npadded;
	r->st.trailing += res->ntrailing;
}

/* Makes the next chunk's result current. */
static void
map_produce(struct core_csv_reader *r)
{
	struct csv_job *job;
	size_t k = r->ijob, upto;

	/* Nothing before prev_end is read again (a re-parse starts there,
	 * workers parse beyond it, and batches hold copies), so its pages
	 * leave the resident set: a huge file costs a few chunks of RSS,
	 * not its size, which matters where mapped pages count against a
	 * memory limit. */
	upto = r->prev_end & ~(size_t)(sysconf(_SC_PAGESIZE) - 1);
	if (r->mapped && upto > r->dropped) {
		(void)madvise((char *)r->map + r->dropped, upto - r->dropped,
		    MADV_DONTNEED);
		r->dropped = upto;
	}
	pthread_mutex_lock(&r->mu);
	if (k > 0)
		csv_result_clear(&r->jobs[k - 1].res, r->pool);
	if (k == r->njobs) {
		pthread_mutex_unlock(&r->mu);
		r->member_done = true;
		r->cur = NULL;
		return;
	}
	job = &r->jobs[k];
	if (job_claim(r, job, k)) {
		job->start = r->prev_end;
		parse_job(&r->ps, r->map, r->maplen, true, job->start,
		    job->limit, &job->res);
	} else if (job->start != r->prev_end) {
		/* The guess was inside a quoted field. */
		csv_result_clear(&job->res, r->pool);
		job->start = r->prev_end;
		parse_job(&r->ps, r->map, r->maplen, true, job->start,
		    job->limit, &job->res);
	}
	job->state = JOB_DONE;
	r->prev_end = job->res.end;
	use_result(r, &job->res);
	pthread_mutex_lock(&r->mu);
	r->ijob = k + 1;
	pthread_cond_broadcast(&r->work_cv);
	pthread_mutex_unlock(&r->mu);
}

/* Parses more of a streamed member into r->res, on the caller alone:
 * what is left when the member ended before its slots became jobs. */
static int
stream_produce(struct core_csv_reader *r, struct core_err *err)
{
	struct csv_result *res = &r->res;
	int rc;

	csv_result_clear(res, r->pool);
	r->cur = res;
	r->cur_base = 1;
	r->rec_next = 0;
	for (;;) {
		rc = csv_parse(&r->ps, r->sbuf, &r->pos, r->slen, r->slen,
		    r->seof, res);
		if (rc == CSV_PARSE_STOP)
			break;
		if (r->seof && r->pos >= r->slen) {
			csv_parser_flush(&r->ps, res);
			r->member_done = true;
			break;
		}
		if (res->nbatches > 0 || res->nrecs > 0)
			break;
		if ((rc = stream_fill(r, err)) != 0)
			return rc;
	}
	r->st.lines += res->nlines;
	r->st.comments += res->ncomments;
	r->st.padded += res->npadded;
	r->st.trailing += res->ntrailing;
	return 0;
}

/*
 * Makes the next slot's result current.  Its job parsed the slot from
 * its start, which is right when everything before it was parsed up to
 * its cut: sbuf then holds nothing.  Otherwise sbuf holds the start of a
 * row that ran past the cut before (a line feed in a quoted field, or a
 * row longer than a slot), and the slot's own bytes are parsed here
 * after it, its job's result thrown away.  Either way, what the parse
 * leaves of an unfinished row goes to sbuf for the next slot.
 */
static int
chunk_produce(struct core_csv_reader *r, struct core_err *err)
{
	struct csv_readahead *ra = r->ra;
	size_t k = r->ijob, n = ra->nslots;
	struct csv_job *job = &r->jobs[k % n];
	struct csv_slot *sl;
	bool aligned = r->pos == r->slen, at_eof;

	if (r->sfail) {
		if (err != NULL)
			*err = r->sferr;
		return r->sfail;
	}
	if (r->lead) {
		/* What the header and the sample read of the slots before
		 * chunk0 (their own bytes, so it ends where a row probably
		 * does): parsed here, before waiting for the next slot,
		 * which a writer gone quiet may never send. */
		struct csv_result *res = &r->res;

		r->lead = false;
		csv_result_clear(res, r->pool);
		parse_job(&r->ps, r->sbuf, r->slen + r->slook, false, r->pos,
		    r->slen, res);
		r->pos = res->end;
		use_result(r, res);
		return 0;
	}
	if (k > r->chunk0) {
		/* The slot before is done with: its result went out, and
		 * its job is to be the job of the slot filled next there. */
		csv_result_clear(&r->jobs[(k - 1) % n].res, r->pool);
		r->vbuf = NULL;
		pthread_mutex_lock(&r->mu);
		r->jobs[(k - 1) % n].state = JOB_QUEUED;
		pthread_mutex_unlock(&r->mu);
		ra_release(r, k);
	}
	sl = ra_slot(r, k);
	at_eof = sl->last && sl->rc == 0;
	pthread_mutex_lock(&r->mu);
	if (job_claim(r, job, k)) {
		if (aligned)
			parse_job(&r->ps, sl->buf, sl->end, at_eof, 0,
			    sl->cut, &job->res);
	} else if (!aligned) {
		csv_result_clear(&job->res, r->pool);
	}
	if (aligned) {
		/* A parse stops at the cut: the byte after a CR cut is
		 * looked at, never taken (no row ends there). */
		CORE_DCHECK(job->res.end <= sl->cut);
		r->vbuf = sl->buf;
		r->vlen = sl->cut;
		r->pos = r->slen = 0;
		sbuf_append(r, sl, job->res.end);
	} else {
		r->vbuf = NULL;
		sbuf_append(r, sl, 0);
		parse_job(&r->ps, r->sbuf, r->slen + r->slook, at_eof, r->pos,
		    r->slen, &job->res);
		r->pos = job->res.end;
	}
	job->state = JOB_DONE;
	r->st.bytes += sl->cut;
	use_result(r, &job->res);
	if (sl->rc != 0) {
		/* What was read before the failure goes out first. */
		r->sfail = sl->rc;
		r->sferr = sl->err;
	} else if (sl->last) {
		r->member_done = true;
	}
	pthread_mutex_lock(&r->mu);
	r->ijob = k + 1;
	pthread_cond_broadcast(&r->work_cv);
	pthread_mutex_unlock(&r->mu);
	return 0;
}

/* ---- handing out ---- */

/* Remembers what the failing record was about (core_csv_reader_failure),
 * from the message the parser made of it. */
static void
note_failure(struct core_csv_reader *r, const struct csv_rec *rec)
{
	const char *m = r->cur->arena + rec->msg_off;
	static const char fit[] = "value does not fit column ";
	unsigned long long nf;
	unsigned exp;
	char head[96];

	/* The message is not NUL-terminated in the arena: sscanf reads a
	 * bounded copy of its start (the counts come first). */
	snprintf(head, sizeof(head), "%.*s",
	    (int)(rec->msg_len < sizeof(head) - 1 ? rec->msg_len :
	    sizeof(head) - 1), m);
	if (rec->msg_len > sizeof(fit) && memcmp(m, fit, sizeof(fit) - 1) == 0 &&
	    rec->col >= 1 && rec->col <= r->schema->ncols) {
		r->bad_kind = CORE_CSV_BAD_TYPE;
		r->bad_col = rec->col - 1;
		/* The batches' column of that field (a value fails only in
		 * a selected one). */
		for (uint32_t k = 0; r->conf.sel != NULL &&
		    k < r->conf.nsel; k++)
			if (r->conf.sel[k] == rec->col - 1)
				r->bad_col = k;
	} else if (rec->msg_len > 8 && memcmp(m, "row has ", 8) == 0 &&
	    (sscanf(head, "row has %llu fields, expected %u", &nf,
	    &exp) == 2 ||
	    sscanf(head, "row has %llu field, expected %u", &nf, &exp) == 2) &&
	    nf >= 2 && nf < exp) {
		r->bad_kind = CORE_CSV_BAD_SHORT;
		r->bad_col = rec->col - 1;
	}
}

static int
handle_rec(struct core_csv_reader *r, const struct csv_rec *rec,
    struct core_err *err)
{
	const struct csv_result *res = r->cur;
	unsigned long long line = r->cur_base + rec->line;
	char head[64];
	int rc, n;

	if (r->opt.rejects == NULL) {
		rc = core_err_set(err, CORE_EDATA, "%s:%llu:%u: %.*s",
		    r->name, line, rec->col, (int)rec->msg_len,
		    res->arena + rec->msg_off);
		if (rec->msg_len > 15 && memcmp(res->arena + rec->msg_off,
		    "invalid UTF-8 ", 14) == 0)
			enc_hint(r, err);
		note_failure(r, rec);
		return rc;
	}
	n = snprintf(head, sizeof(head), "%llu\t", line);
	if ((rc = core_output_write(r->opt.rejects, head, (size_t)n, err)) ||
	    (rc = core_output_write(r->opt.rejects, r->name,
	    strlen(r->name), err)))
		return rc;
	n = snprintf(head, sizeof(head), ":%llu:%u: ", line, rec->col);
	if ((rc = core_output_write(r->opt.rejects, head, (size_t)n, err)) ||
	    (rc = core_output_write(r->opt.rejects,
	    res->arena + rec->msg_off, rec->msg_len, err)) ||
	    (rc = core_output_write(r->opt.rejects, "\t", 1, err)) ||
	    (rc = core_output_write(r->opt.rejects,
	    res->arena + rec->raw_off, rec->raw_len, err)) ||
	    (rc = core_output_write(r->opt.rejects, "\n", 1, err)))
		return rc;
	r->st.rejected++;
	if (r->st.rejected > r->opt.max_errors)
		return core_err_set(err, CORE_ELIMIT,
		    "%s:%llu: more than %llu bad rows rejected", r->name,
		    line, (unsigned long long)r->opt.max_errors);
	return 0;
}

/* Hands out what r->cur holds: 0 with a batch in b, 1 when it is empty,
 * or a negative code. */
static int
drain(struct core_csv_reader *r, struct core_batch *b, struct core_err *err)
{
	struct csv_result *res = r->cur;
	struct core_batch *src;
	struct core_column *cols;
	int rc;

	while (r->rec_next < res->nrecs) {
		rc = handle_rec(r, &res->recs[r->rec_next++], err);
		if (rc != 0)
			return rc;
	}
	if (res->emitted == res->nbatches)
		return 1;
	src = &res->batches[res->emitted++];
	if (b->cols == NULL || b->ncols != r->conf.nsel) {
		core_batch_release(b);
		core_batch_init(b, core_csv_reader_schema(r));
	}
	/* Swap buffers: the caller's old ones go back to the pool. */
	cols = b->cols;
	b->cols = src->cols;
	src->cols = cols;
	b->schema = core_csv_reader_schema(r);
	b->nrows = src->nrows;
	csv_pool_put(r->pool, src);
	r->st.rows += b->nrows;
	return 0;
}

/* ---- public ---- */

int
core_csv_reader_new(const char *const *paths, size_t npaths,
    const struct core_csv_options *opt, struct core_csv_reader **out,
    struct core_err *err)
{
	static const char *const stdin_path[] = { "-" };
	struct core_csv_reader *r;
	int rc;

	*out = NULL;
	if (opt->delimiter == '\n' || opt->delimiter == '\r' ||
	    opt->delimiter == 0 || opt->delimiter > 255)
		return core_err_set(err, CORE_EUSAGE,
		    "the delimiter cannot be a line break or NUL");
	if (opt->quote == '\n' || opt->quote == '\r' || opt->quote > 255 ||
	    (opt->quote > 0 && opt->quote == opt->delimiter))
		return core_err_set(err, CORE_EUSAGE,
		    "the quote cannot be a line break or the delimiter");
	if (opt->comment < 0 || opt->comment == '\n' || opt->comment == '\r' ||
	    opt->comment > 255 || (opt->comment > 0 &&
	    (opt->comment == opt->delimiter || opt->comment == opt->quote)))
		return core_err_set(err, CORE_EUSAGE, "the comment character "
		    "cannot be a line break, the delimiter or the quote");
	if (opt->thousands != 0 && ((opt->thousands >= '0' &&
	    opt->thousands <= '9') || opt->thousands == '-' ||
	    opt->thousands == '+' || opt->thousands == '\n' ||
	    opt->thousands == '\r' || opt->thousands > 255 ||
	    opt->thousands == (opt->decimal_mark == ',' ? ',' : '.')))
		return core_err_set(err, CORE_EUSAGE,
		    "the thousands separator cannot be a digit, a sign, a "
		    "line break or the decimal mark (use --decimal-comma "
		    "with --thousands .)");
	if (opt->date_format != NULL &&
	    (rc = csv_datefmt_check(opt->date_format, false, err)) != 0)
		return rc;
	if (opt->timestamp_format != NULL &&
	    (rc = csv_datefmt_check(opt->timestamp_format, true, err)) != 0)
		return rc;
	for (size_t i = 0; i < opt->ndate_formats; i++) {
		const char *e = strchr(opt->date_formats[i], '=');

		if (e == NULL || e == opt->date_formats[i])
			return core_err_set(err, CORE_EUSAGE, "--date-format "
			    "%s: give COLUMN=FORMAT, or a format alone for "
			    "every column", opt->date_formats[i]);
		if ((rc = csv_datefmt_check(e + 1, false, err)) != 0)
			return rc;
	}
	r = core_xcalloc(1, sizeof(*r));
	r->opt = *opt;
	if (r->opt.batch_rows == 0)
		r->opt.batch_rows = 8192;
	if (r->opt.sample_rows == 0)
		r->opt.sample_rows = 20480;
	if (npaths == 0) {
		paths = stdin_path;
		npaths = 1;
	}
	r->nthreads = r->opt.threads;
	if (r->nthreads == 0) {
		long nc = sysconf(_SC_NPROCESSORS_ONLN);

		r->nthreads = nc > 0 ? (unsigned)nc : 1;
	}
	r->paths = paths;
	r->npaths = npaths;
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->work_cv, NULL);
	pthread_cond_init(&r->done_cv, NULL);
	if ((rc = core_input_open(paths[0], &r->in, err)) != 0)
		goto bad;
	core_input_set_encoding(r->in, input_encoding(r));
	member_load(r);
	if ((rc = build_schema(r, err)) != 0 ||
	    (rc = select_columns(r, err)) != 0)
		goto bad;
	r->conf.schema = r->schema;
	r->conf.ncols = r->schema->ncols;
	if (r->sel == NULL) {
		r->conf.nsel = r->conf.ncols;
	} else {
		r->colno = core_xcalloc(r->conf.ncols + 1,
		    sizeof(*r->colno));
		for (uint32_t k = 0; k < r->conf.nsel; k++)
			r->colno[r->sel[k]] = k + 1;
		r->conf.colno = r->colno;
		r->oschema = core_schema_new(r->conf.nsel);
		for (uint32_t k = 0; k < r->conf.nsel; k++)
			core_schema_set(r->oschema, k,
			    r->schema->fields[r->sel[k]].name,
			    r->schema->fields[r->sel[k]].type);
	}
	r->conf.sel = r->sel;
	r->conf.nulls = r->opt.nulls;
	r->conf.pin_hint = r->opt.pin_hint != NULL ? r->opt.pin_hint :
	    "; pin the column's type";
	r->conf.nnulls = r->opt.nnulls;
	r->conf.batch_rows = batch_rows_for(r, &r->conf.str_reserve);
	r->conf.rejecting = r->opt.rejects != NULL;
	r->conf.max_errors = r->opt.max_errors;
	r->conf.skip_blank = r->conf.ncols > 1;
	r->conf.comment = r->opt.comment;
	r->conf.null_padding = r->opt.null_padding;
	r->conf.trim = r->opt.trim;
	for (uint32_t j = 0; j < r->conf.ncols; j++)
		if (r->colfmt != NULL && r->colfmt[j] != NULL)
			r->conf.datefmts = r->colfmt;
	r->conf.tsfmt = r->opt.timestamp_format;
	r->pool = csv_pool_new(core_csv_reader_schema(r));
	csv_parser_init(&r->ps, &r->conf, r->pool);
	csv_result_init(&r->res);
	r->pos = 0;
	if ((rc = member_begin(r, true, err)) != 0)
		goto bad;
	*out = r;
	return 0;
bad:
	core_csv_reader_free(r);
	return rc;
}

void
core_csv_reader_free(struct core_csv_reader *r)
{
	size_t i;
	uint32_t j;

	if (r == NULL)
		return;
	workers_stop(r);
	ra_stop(r);
	free(r->notes);
	core_pool_free(r->helpers);
	for (i = 0; i < r->job_cap; i++)
		csv_result_release(&r->jobs[i].res);
	free(r->jobs);
	csv_result_release(&r->res);
	if (r->pool != NULL)
		csv_parser_release(&r->ps);
	csv_pool_free(r->pool);
	if (r->hnames != NULL)
		for (j = 0; j < r->schema->ncols; j++)
			free(r->hnames[j]);
	free(r->hnames);
	free(r->conf.pinned);
	free(r->colfmt);
	free(r->sel);
	free(r->colno);
	free(r->selected);
	core_schema_free(r->oschema);
	core_schema_free(r->schema);
	free(r->sbuf);
	core_input_free(r->in);
	pthread_mutex_destroy(&r->mu);
	pthread_cond_destroy(&r->work_cv);
	pthread_cond_destroy(&r->done_cv);
	free(r);
}

const struct core_schema *
core_csv_reader_schema(const struct core_csv_reader *r)
{
	return r->oschema != NULL ? r->oschema : r->schema;
}

int
core_csv_reader_next(struct core_csv_reader *r, struct core_batch *b,
    struct core_err *err)
{
	int rc;

	if (r->failed) {
		if (err != NULL)
			*err = r->ferr;
		return r->failed;
	}
	if (r->eof)
		return CORE_EOF;
	for (;;) {
		if (r->cur != NULL) {
			rc = drain(r, b, err);
			if (rc <= 0)
				return rc < 0 ? fail(r, rc, err) : 0;
			if (r->cur->stopped)
				return fail(r, core_err_set(err,
				    CORE_EINTERNAL, "%s: parser stopped "
				    "without a reason", r->name), err);
			r->cur = NULL;
		}
		if (r->member_done) {
			rc = next_member(r, err);
			if (rc == CORE_EOF) {
				r->eof = true;
				return CORE_EOF;
			}
			if (rc != 0)
				return fail(r, rc, err);
			continue;
		}
		if (r->mapped)
			map_produce(r);
		else if ((rc = r->chunking ? chunk_produce(r, err) :
		    stream_produce(r, err)) != 0)
			return fail(r, rc, err);
	}
}

void
core_csv_reader_stats(const struct core_csv_reader *r,
    struct core_csv_stats *st)
{
	*st = r->st;
}

void
core_csv_reader_dialect(const struct core_csv_reader *r, int *delimiter,
    int *quote, bool *header)
{
	*delimiter = r->conf.delim;
	*quote = r->conf.quote < 0 ? 0 : r->conf.quote;
	*header = r->header;
}

void
core_csv_reader_numfmt(const struct core_csv_reader *r, int *decimal_mark,
    int *thousands)
{
	*decimal_mark = r->conf.numfmt_on ? r->conf.numfmt.dec : '.';
	*thousands = r->conf.numfmt_on ? r->conf.numfmt.thou : 0;
}

int
core_csv_reader_failure(const struct core_csv_reader *r, uint32_t *col)
{
	*col = r->bad_col;
	return r->bad_kind;
}

const char *
core_csv_reader_notes(const struct core_csv_reader *r)
{
	return r->notes != NULL ? r->notes : "";
}
