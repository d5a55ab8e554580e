/*
 * core_mlspill3.c - MLSPILL3 writer and reader (format: mlspill3(5)).
 *
 * Layout recap (all integers little-endian, every record a multiple of 8
 * bytes so that buffers stay 8-byte aligned in a stream read from 0):
 *
 *   stream header  "MLSPILL3" u16 major u16 minor u32 flags u32 ncols
 *                  u32 schema_len, column descriptors, zero padding to 8,
 *                  u64 XXH3-64 of everything before it
 *   record header  u32 kind, u32 check, u64 body_len, u64 nrows,
 *                  u64 body XXH3-64; check = low 32 bits of XXH3-64 of the
 *                  32 header bytes with the check field zeroed
 *   frame body     ncols * 3 buffer descriptors (validity, offsets,
 *                  values) of 24 bytes: u32 codec, u32 reserved,
 *                  u64 raw_len, u64 stored_len; then the stored buffers in
 *                  that order, each padded to 8
 *   end body       u64 rows, u64 frames, u64 reserved (of this stream)
 *
 * The record check lets a reader reject a damaged length before it reads
 * (or allocates for) a body; the body checksum covers every buffer byte.
 * The reader validates structure after the checksum too (offsets
 * monotonic and in range, buffer sizes matching the row count), so even a
 * well-checksummed but malformed frame cannot make it read out of bounds.
 *
 * This file alone knows the byte layout: core_spill, which reads runs
 * with pread(2), parses and verifies what it reads with the record and
 * body functions of core_mlspill3_record.h, as the stream reader does.
 * Buffers are compressed and expanded through core_codec.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>
/*
 * Frame bodies (megabytes a frame) are checksummed through libxxhash's
 * run-time dispatch, which takes the widest vector unit the processor
 * has (AVX2, AVX-512): the inline code is compiled for the baseline
 * (SSE2 on x86-64) and hashed at half the speed.  The same function
 * either way, so the same values.  Short things (record headers, the
 * stream header) stay inline.
 */
#if defined(__x86_64__) || defined(__i386__)
/* libxxhash's (xxh_x86dispatch.h), declared here: under XXH_INLINE_ALL
 * that header would declare them static. */
XXH64_hash_t XXH3_64bits_dispatch(const void *input, size_t len);
XXH_errorcode XXH3_64bits_update_dispatch(XXH3_state_t *state,
    const void *input, size_t len);
#define body_hash XXH3_64bits_dispatch
#define body_hash_update XXH3_64bits_update_dispatch
#else
#define body_hash XXH3_64bits
#define body_hash_update XXH3_64bits_update
#endif

#include "core_alloc.h"
#include "core_codec.h"
#include "core_debug.h"
#include "core_io.h"
#include "core_mlspill3.h"
#include "core_mlspill3_record.h"
#include "core_pool.h"
#include "core_value.h"

#define KIND_FRAME 0x4d415246u	/* "FRAM" */
#define KIND_END 0x21444e45u	/* "END!" */
#define REC_HDR CORE_MLSPILL3_RECORD_HDR
#define END_BODY CORE_MLSPILL3_END_BODY
#define SCHEMA_MAX (1u << 26)	/* most schema_len bytes read */
#define DESC_LEN 24
#define NBUF 3			/* validity, offsets, values */
#define CODEC_RAW 0
#define CODEC_ZSTD 1

static inline void
put16(unsigned char *p, uint16_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
}

static inline void
put32(unsigned char *p, uint32_t v)
{
	put16(p, (uint16_t)v);
	put16(p + 2, (uint16_t)(v >> 16));
}

static inline void
put64(unsigned char *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

static inline uint16_t
get16(const unsigned char *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

static inline uint32_t
get32(const unsigned char *p)
{
	return (uint32_t)get16(p) | ((uint32_t)get16(p + 2) << 16);
}

static inline uint64_t
get64(const unsigned char *p)
{
	return (uint64_t)get32(p) | ((uint64_t)get32(p + 4) << 32);
}

static inline size_t
pad8(size_t n)
{
	return (8 - (n & 7)) & 7;
}

static uint32_t
record_check(const unsigned char *hdr)
{
	unsigned char tmp[REC_HDR];

	memcpy(tmp, hdr, REC_HDR);
	memset(tmp + 4, 0, 4);
	return (uint32_t)XXH3_64bits(tmp, REC_HDR);
}

static void
record_header(unsigned char *hdr, uint32_t kind, uint64_t body_len,
    uint64_t nrows, uint64_t sum)
{
	put32(hdr, kind);
	put32(hdr + 4, 0);
	put64(hdr + 8, body_len);
	put64(hdr + 16, nrows);
	put64(hdr + 24, sum);
	put32(hdr + 4, record_check(hdr));
}

/* Bytes of a stream header whose column descriptors take schema_len. */
static size_t
header_len(uint32_t schema_len)
{
	size_t len = 24 + (size_t)schema_len;

	return len + pad8(len) + 8;
}

/* ------------------------------------------------------------------ */
/* writer */

struct core_mlspill3_writer {
	int fd;				/* not owned */
	const char *name;		/* borrowed */
	const struct core_schema *schema;	/* borrowed */
	int level;			/* zstd level, 0 = raw */
	struct core_codec_ctx *codec;	/* owned when level > 0 */
	bool header_done;
	bool finished;
	unsigned char *dir;		/* record header + descriptors */
	size_t dir_cap;
	unsigned char *zbuf;		/* compressed buffers of a frame */
	size_t zbuf_cap;
	struct iovec *iov;
	size_t iov_cap;
	struct core_mlspill3_stats st;

	/* Writing behind the caller (core_mlspill3_writer_async): the
	 * frame in flight is job, a copy of the caller's batch header (its
	 * buffers are the caller's).  st is the helper's while a job is in
	 * flight; st_seen is the caller's copy, taken at each wait. */
	struct core_pool *pool;		/* borrowed; NULL: synchronous */
	struct core_pool_task task;	/* the frame in flight */
	bool pending;			/* a job is in flight */
	struct core_batch job;
	struct core_column *job_cols;	/* owned, ncols */
	int job_rc;			/* the first failed job's */
	struct core_err job_err;
	struct core_mlspill3_stats st_seen;
};

static const unsigned char zeros[8];

struct core_mlspill3_writer *
core_mlspill3_writer_new(int fd, const char *name,
    const struct core_schema *schema, int zstd_level)
{
	struct core_mlspill3_writer *w = core_xcalloc(1, sizeof(*w));

	w->fd = fd;
	w->name = name;
	w->schema = schema;
	w->level = zstd_level;
	if (zstd_level > 0)
		w->codec = core_codec_ctx_new();
	w->dir_cap = REC_HDR + (size_t)schema->ncols * NBUF * DESC_LEN;
	w->dir = core_xmalloc(w->dir_cap);
	w->iov_cap = 2 + (size_t)schema->ncols * NBUF * 2;
	w->iov = core_xcalloc(w->iov_cap, sizeof(*w->iov));
	return w;
}

void
core_mlspill3_writer_free(struct core_mlspill3_writer *w)
{
	if (w == NULL)
		return;
	if (w->pending)
		core_pool_wait(w->pool, &w->task);
	free(w->job_cols);
	core_codec_ctx_free(w->codec);
	free(w->dir);
	free(w->zbuf);
	free(w->iov);
	free(w);
}

void
core_mlspill3_writer_stats(const struct core_mlspill3_writer *w,
    struct core_mlspill3_stats *st)
{
	*st = w->pool != NULL ? w->st_seen : w->st;
	st->streams = w->header_done ? 1 : 0;
}

/* Writes every byte of iov[0..n), retrying short writes. */
static int
writev_all(struct core_mlspill3_writer *w, struct iovec *iov, int n,
    struct core_err *err)
{
	ssize_t k;

	while (n > 0) {
		k = writev(w->fd, iov, n > IOV_MAX ? IOV_MAX : n);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EPIPE)
				return core_err_set(err, CORE_EPIPE,
				    "%s: broken pipe", w->name);
			return core_err_errno(err, CORE_EIO, errno,
			    "write error on %s", w->name);
		}
		w->st.bytes += (uint64_t)k;
		while (n > 0 && (size_t)k >= iov->iov_len) {
			k -= (ssize_t)iov->iov_len;
			iov++;
			n--;
		}
		if (n > 0) {
			iov->iov_base = (char *)iov->iov_base + k;
			iov->iov_len -= (size_t)k;
		}
	}
	return 0;
}

int
core_mlspill3_schema_fits(const struct core_schema *s, const char *name,
    struct core_err *err)
{
	size_t schema_len = 0;
	uint32_t i;

	if (s->ncols > CORE_COLUMNS_MAX)
		return core_err_set(err, CORE_ELIMIT,
		    "%s: %u columns, more than the limit of %u", name,
		    s->ncols, CORE_COLUMNS_MAX);
	for (i = 0; i < s->ncols; i++)
		schema_len += 8 + strlen(s->fields[i].name);
	if (schema_len > SCHEMA_MAX)
		return core_err_set(err, CORE_ELIMIT,
		    "%s: the column names take %zu bytes, more than the "
		    "limit of %u", name, schema_len, SCHEMA_MAX);
	return 0;
}

static int
write_header(struct core_mlspill3_writer *w, struct core_err *err)
{
	const struct core_schema *s = w->schema;
	size_t schema_len = 0, len, off;
	unsigned char *h;
	struct iovec iov;
	uint32_t i;
	int r;

	/* What the reader accepts, so no stream is written that no reader
	 * takes back. */
	if ((r = core_mlspill3_schema_fits(s, w->name, err)) != 0)
		return r;
	for (i = 0; i < s->ncols; i++)
		schema_len += 8 + strlen(s->fields[i].name);
	len = header_len((uint32_t)schema_len);
	h = core_xcalloc(1, len);
	memcpy(h, CORE_MLSPILL3_MAGIC, 8);
	put16(h + 8, CORE_MLSPILL3_MAJOR);
	put16(h + 10, CORE_MLSPILL3_MINOR);
	put32(h + 12, 0);
	put32(h + 16, s->ncols);
	put32(h + 20, (uint32_t)schema_len);
	off = 24;
	for (i = 0; i < s->ncols; i++) {
		size_t nl = strlen(s->fields[i].name);

		h[off] = (unsigned char)s->fields[i].type.id;
		h[off + 1] = s->fields[i].type.precision;
		h[off + 2] = s->fields[i].type.scale;
		h[off + 3] = 0;
		put32(h + off + 4, (uint32_t)nl);
		memcpy(h + off + 8, s->fields[i].name, nl);
		off += 8 + nl;
	}
	put64(h + len - 8, XXH3_64bits(h, len - 8));
	iov.iov_base = h;
	iov.iov_len = len;
	r = writev_all(w, &iov, 1, err);
	free(h);
	if (r == 0)
		w->header_done = true;
	return r;
}

/* Picks what to store for one buffer: raw, or zstd when it shrinks. */
static void
add_buffer(struct core_mlspill3_writer *w, unsigned char *desc,
    const void *p, size_t len, size_t *zoff, struct iovec *iov, int *niov,
    uint64_t *body_len)
{
	const void *stored = p;
	size_t slen = len;
	uint32_t codec = CODEC_RAW;

	if (w->level > 0 && len >= 64) {
		size_t z;

		/* A failure stores the buffer raw, as one that does not
		 * shrink is. */
		if (core_codec_compress(w->codec, CORE_CODEC_ZSTD, w->level,
		    p, len, w->zbuf + *zoff, w->zbuf_cap - *zoff, &z,
		    NULL) == 0 && z + pad8(z) < len) {
			stored = w->zbuf + *zoff;
			slen = z;
			codec = CODEC_ZSTD;
			*zoff += z + pad8(z);
		}
	}
	put32(desc, codec);
	put32(desc + 4, 0);
	put64(desc + 8, len);
	put64(desc + 16, slen);
	if (slen > 0) {
		iov[*niov].iov_base = (void *)stored;
		iov[*niov].iov_len = slen;
		(*niov)++;
	}
	if (pad8(slen) > 0) {
		iov[*niov].iov_base = (void *)zeros;
		iov[*niov].iov_len = pad8(slen);
		(*niov)++;
	}
	*body_len += slen + pad8(slen);
}

int
core_mlspill3_write_raw(struct core_mlspill3_writer *w, const void *p,
    size_t len, uint32_t nrows, struct core_err *err)
{
	struct iovec iov;
	int r;

	if (w->pool != NULL || w->finished)
		return core_err_set(err, CORE_EINTERNAL,
		    "%s: raw frame on an async or finished writer", w->name);
	if (!w->header_done && (r = write_header(w, err)) != 0)
		return r;
	iov.iov_base = (void *)p;
	iov.iov_len = len;
	if ((r = writev_all(w, &iov, 1, err)) != 0)
		return r;
	w->st.rows += nrows;
	w->st.frames++;
	return 0;
}

static int
write_frame(struct core_mlspill3_writer *w, const struct core_batch *b,
    struct core_err *err)
{
	const struct core_schema *s = w->schema;
	size_t dirlen = (size_t)s->ncols * NBUF * DESC_LEN, zoff = 0;
	uint64_t body_len = dirlen;
	unsigned char *desc;
	XXH3_state_t xs;
	uint32_t i, n = b->nrows;
	int niov = 2, k, r;

	if (w->finished)
		return core_err_set(err, CORE_EINTERNAL,
		    "%s: write after end of stream", w->name);
	if (!w->header_done && (r = write_header(w, err)) != 0)
		return r;
	if (n == 0)
		return 0;
	if (b->ncols != s->ncols)
		return core_err_set(err, CORE_EINTERNAL,
		    "%s: batch has %u columns, stream %u", w->name, b->ncols,
		    s->ncols);
	if (w->level > 0) {
		/* Room for every buffer compressed, so no realloc moves
		 * memory the iovecs already point into. */
		size_t need = 0;

		for (i = 0; i < s->ncols; i++) {
			const struct core_column *c = &b->cols[i];
			size_t vlen = c->type.id == CORE_TYPE_STRING ?
			    (size_t)c->offsets[n] :
			    (size_t)n * core_type_width(c->type.id);

			need += core_codec_bound(CORE_CODEC_ZSTD,
			    core_bitmap_bytes(n)) + 8;
			need += core_codec_bound(CORE_CODEC_ZSTD,
			    ((size_t)n + 1) * 4) + 8;
			need += core_codec_bound(CORE_CODEC_ZSTD, vlen) + 8;
		}
		if (need > w->zbuf_cap) {
			free(w->zbuf);
			w->zbuf = core_xmalloc(need);
			w->zbuf_cap = need;
		}
	}
	desc = w->dir + REC_HDR;
	for (i = 0; i < s->ncols; i++) {
		const struct core_column *c = &b->cols[i];
		bool has_nulls = c->validity != NULL &&
		    core_col_null_count(c, n) > 0;
		size_t vlen;

		/* A bitmap without a NULL in it is not worth its bytes. */
		add_buffer(w, desc, has_nulls ? c->validity : NULL,
		    has_nulls ? core_bitmap_bytes(n) : 0, &zoff, w->iov,
		    &niov, &body_len);
		desc += DESC_LEN;
		if (c->type.id == CORE_TYPE_STRING) {
			add_buffer(w, desc, c->offsets, ((size_t)n + 1) * 4,
			    &zoff, w->iov, &niov, &body_len);
			vlen = (size_t)c->offsets[n];
		} else {
			add_buffer(w, desc, NULL, 0, &zoff, w->iov, &niov,
			    &body_len);
			vlen = (size_t)n * core_type_width(c->type.id);
		}
		desc += DESC_LEN;
		add_buffer(w, desc, c->values, vlen, &zoff, w->iov, &niov,
		    &body_len);
		desc += DESC_LEN;
	}
	/* The body checksum runs over the directory, then the stored
	 * buffers with their padding: exactly the body bytes in order. */
	XXH3_64bits_reset(&xs);
	body_hash_update(&xs, w->dir + REC_HDR, dirlen);
	for (k = 2; k < niov; k++)
		body_hash_update(&xs, w->iov[k].iov_base, w->iov[k].iov_len);
	record_header(w->dir, KIND_FRAME, body_len, n, XXH3_64bits_digest(&xs));
	w->iov[0].iov_base = w->dir;
	w->iov[0].iov_len = REC_HDR;
	w->iov[1].iov_base = w->dir + REC_HDR;
	w->iov[1].iov_len = dirlen;
	if ((r = writev_all(w, w->iov, niov, err)) != 0)
		return r;
	w->st.rows += n;
	w->st.frames++;
	return 0;
}

static void
write_job(void *arg, unsigned who)
{
	struct core_mlspill3_writer *w = arg;

	(void)who;
	w->job_rc = write_frame(w, &w->job, &w->job_err);
}

/* Waits for the frame in flight; its failure, once seen, is every later
 * call's. */
static int
async_wait(struct core_mlspill3_writer *w, struct core_err *err)
{
	if (w->pending) {
		core_pool_wait(w->pool, &w->task);
		w->pending = false;
		w->st_seen = w->st;
	}
	if (w->job_rc != 0) {
		if (err != NULL)
			*err = w->job_err;
		return w->job_rc;
	}
	return 0;
}

void
core_mlspill3_writer_async(struct core_mlspill3_writer *w,
    struct core_pool *pool)
{
	if (w->pool == NULL && pool != NULL && !w->finished) {
		w->pool = pool;
		w->job_cols = core_xcalloc(w->schema->ncols ?
		    w->schema->ncols : 1, sizeof(*w->job_cols));
		w->st_seen = w->st;
	}
}

int
core_mlspill3_write_batch(struct core_mlspill3_writer *w,
    const struct core_batch *b, struct core_err *err)
{
	int rc;

	CORE_DCHECK_BATCH(b);
	if (w->pool == NULL)
		return write_frame(w, b, err);
	if ((rc = async_wait(w, err)) != 0)
		return rc;
	if (b->nrows == 0 || b->ncols != w->schema->ncols || w->finished)
		return write_frame(w, b, err);	/* no frame, or the error */
	w->job = *b;
	w->job.cols = w->job_cols;
	memcpy(w->job_cols, b->cols, (size_t)b->ncols * sizeof(*b->cols));
	w->pending = true;
	core_pool_start(w->pool, &w->task, write_job, w);
	return 0;
}

int
core_mlspill3_writer_finish(struct core_mlspill3_writer *w,
    struct core_err *err)
{
	unsigned char rec[REC_HDR + END_BODY];
	struct iovec iov;
	int r;

	if (w->pool != NULL && (r = async_wait(w, err)) != 0)
		return r;
	if (!w->header_done && (r = write_header(w, err)) != 0)
		return r;
	put64(rec + REC_HDR, w->st.rows);
	put64(rec + REC_HDR + 8, w->st.frames);
	put64(rec + REC_HDR + 16, 0);
	record_header(rec, KIND_END, END_BODY, 0,
	    XXH3_64bits(rec + REC_HDR, END_BODY));
	iov.iov_base = rec;
	iov.iov_len = sizeof(rec);
	if ((r = writev_all(w, &iov, 1, err)) != 0)
		return r;
	w->finished = true;
	w->st_seen = w->st;
	return 0;
}

/* ------------------------------------------------------------------ */
/* reader */

struct core_mlspill3_reader {
	const char *const *paths;	/* borrowed */
	size_t npaths;
	size_t pathi;			/* index of the open path */
	int fd;
	bool close_fd;
	char *name;			/* owned: message name of fd */
	struct core_schema *schema;	/* owned: of the first stream */
	bool in_stream;			/* between a header and its end */
	uint64_t stream_rows, stream_frames;
	uint64_t offset;		/* stream bytes consumed from fd */
	unsigned char *buf;		/* aligned read buffer */
	size_t cap, start, end;
	bool eof;			/* read(2) returned 0 on fd */
	bool seekable;			/* fd is a regular file */
	const bool *want;		/* borrowed; NULL: every column */
	bool count_only;		/* frames' row counts, no bodies */
	uint64_t file_rows;		/* rows read from the open path */
	bool raw;			/* next_raw: frames as bytes */
	const unsigned char *raw_p;	/* the last raw frame */
	size_t raw_len;
	uint32_t raw_rows;
	struct core_codec_ctx *codec;	/* owned */
	void *zraw;			/* owned: expanded buffers */
	size_t zraw_cap;
	/* keep_last: the other read buffer and the other expanded one;
	 * live is the read buffer the last batch's views point into,
	 * which is never moved over or reset while it is. */
	bool keep;
	unsigned char *buf2;		/* owned */
	size_t cap2;
	void *zraw2;			/* owned */
	size_t zraw2_cap;
	const unsigned char *live;
	struct core_mlspill3_stats st;
	int tee_fd;			/* new_tee: fd gets every byte, or -1 */
	const char *tee_name;		/* borrowed */
	const char *one_path;		/* borrowed: new_tee's path */
	/* read_ahead: the next batch is read into abatch by a task on
	 * apool's helper while the caller works on the one it was handed;
	 * ast is what stats reports, as of the batch handed. */
	struct core_pool *apool;	/* borrowed; NULL: no read-ahead */
	struct core_pool_task atask;
	bool apending;			/* atask started, not waited for */
	struct core_batch abatch;
	int arc;
	struct core_err aerr;
	struct core_mlspill3_stats ast;
	/* read_ahead from a pipe: a byte written to cancel[1] ends a read
	 * ahead waiting for its writer (free's way out); else -1. */
	int cancel[2];
};

#define READ_CHUNK (1u << 20)
#define READ_MIN (64u << 10)

/*
 * Makes at least n bytes available at buf + start; returns the number
 * available (< n only at end of file) or a negative code.
 *
 * A read asks for what is missing plus the next record header, and at
 * least READ_MIN: a large frame then ends its read with little of the
 * next one behind it, so moving the unread rest to the front of the
 * buffer (needed only when the frame does not fit behind start) copies
 * a header or READ_MIN, not most of a frame.
 */
/* keep_last: makes the other buffer (at least as large) the read
 * buffer. */
static void
swap_buffers(struct core_mlspill3_reader *r)
{
	unsigned char *b = r->buf;
	size_t c = r->cap;

	if (r->cap2 < r->cap)
		core_grow_aligned((void **)&r->buf2, &r->cap2, r->cap);
	r->buf = r->buf2;
	r->cap = r->cap2;
	r->buf2 = b;
	r->cap2 = c;
}

/*
 * new_tee: duplicates up to want bytes of the input pipe to tee_fd
 * (tee(2) shares the pipe's pages, nothing is copied), then reads those
 * same bytes, so the output is the input exactly, byte for byte, however
 * the reads fall.  The number read, 0 at end of input, or a negative
 * code (errors of either side).
 */
static ssize_t
tee_read(struct core_mlspill3_reader *r, size_t want, struct core_err *err)
{
	ssize_t t, k;
	size_t got = 0;

	do
		t = tee(r->fd, r->tee_fd, want, 0);
	while (t < 0 && errno == EINTR);
	if (t < 0) {
		if (errno == EPIPE)
			return core_err_set(err, CORE_EPIPE,
			    "%s: broken pipe", r->tee_name);
		return core_err_errno(err, CORE_EIO, errno,
		    "passing %s on to %s", r->name, r->tee_name);
	}
	while (got < (size_t)t) {
		k = read(r->fd, r->buf + r->end + got, (size_t)t - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return core_err_errno(err, CORE_EIO, errno,
			    "read error on %s", r->name);
		if (k == 0)	/* cannot be: tee saw the bytes in the pipe */
			return core_err_set(err, CORE_EIO, "read error on "
			    "%s: the pipe lost bytes it held", r->name);
		got += (size_t)k;
	}
	return t;
}

static ssize_t
ensure(struct core_mlspill3_reader *r, size_t n, struct core_err *err)
{
	ssize_t k;
	size_t want, need, min;

	if (r->end - r->start >= n)
		return (ssize_t)(r->end - r->start);
	/* Counting reads headers only: nothing ahead of them. */
	min = r->count_only ? 0 : READ_MIN;
	need = n + REC_HDR > min ? n + REC_HDR : min;
	if (r->start > 0 && (r->cap - r->start < need || r->start == r->end)) {
		if (r->keep && r->buf == r->live) {
			/* The last batch's bytes stay: the rest goes to the
			 * other buffer, which becomes the read buffer. */
			swap_buffers(r);
			memcpy(r->buf, r->buf2 + r->start, r->end - r->start);
		} else {
			/* start is a multiple of 8, so alignment is
			 * preserved. */
			memmove(r->buf, r->buf + r->start,
			    r->end - r->start);
		}
		r->end -= r->start;
		r->start = 0;
	}
	if (r->cap - r->start < need) {
		/* start is 0 here (moved above); a first buffer is at least
		 * a chunk, the rule doubling 64 up to it. */
		core_grow_aligned((void **)&r->buf, &r->cap,
		    r->cap == 0 && need < READ_CHUNK ? READ_CHUNK : need);
	}
	while (r->end - r->start < n && !r->eof) {
		want = r->start + need - r->end;
		if (want < min)
			want = min;
		if (want > r->cap - r->end)
			want = r->cap - r->end;
		if (r->cancel[0] >= 0 && !r->seekable) {
			/* A read ahead from a pipe waits for data or for
			 * free (a regular file's read does not wait). */
			struct pollfd pf[2] = {
				{ r->fd, POLLIN, 0 }, { r->cancel[0], POLLIN, 0 }
			};

			if (poll(pf, 2, -1) < 0) {
				if (errno == EINTR)
					continue;
				return core_err_errno(err, CORE_EIO, errno,
				    "read error on %s", r->name);
			}
			if (pf[1].revents != 0)
				return core_err_set(err, CORE_EIO, "%s: read "
				    "given up", r->name);
		}
		if (r->tee_fd >= 0)
			k = tee_read(r, want, err);
		else
			k = read(r->fd, r->buf + r->end, want);
		if (k < 0) {
			if (r->tee_fd >= 0)
				return (int)k;
			if (errno == EINTR)
				continue;
			return core_err_errno(err, CORE_EIO, errno,
			    "read error on %s", r->name);
		}
		if (k == 0)
			r->eof = true;
		r->end += (size_t)k;
	}
	return (ssize_t)(r->end - r->start);
}

static void
consume(struct core_mlspill3_reader *r, size_t n)
{
	r->start += n;
	r->offset += n;
	r->st.bytes += n;
}

static int
open_path(struct core_mlspill3_reader *r, struct core_err *err)
{
	const char *p = r->npaths ? r->paths[r->pathi] : "-";
	struct stat st;

	free(r->name);
	r->eof = false;
	if (r->keep && r->buf == r->live && r->buf != NULL)
		swap_buffers(r);
	r->start = r->end = 0;
	r->offset = 0;
	r->file_rows = 0;
	if (strcmp(p, "-") == 0) {
		r->fd = 0;
		r->close_fd = false;
		r->name = core_xstrdup("stdin");
	} else {
		r->name = core_xstrdup(p);
		r->fd = open(p, O_RDONLY | O_CLOEXEC);
		if (r->fd < 0)
			return core_err_errno(err, CORE_EIO, errno, "%s", p);
		r->close_fd = true;
	}
	r->seekable = fstat(r->fd, &st) == 0 && S_ISREG(st.st_mode);
	core_fd_enlarge_pipe(r->fd);
	(void)posix_fadvise(r->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	return 0;
}

static int
truncated(struct core_mlspill3_reader *r, struct core_err *err)
{
	return core_err_set(err, CORE_ETRUNC,
	    "%s: truncated stream: input ends at byte %llu without the "
	    "end-of-stream record (the producer failed or was cut short)",
	    r->name, (unsigned long long)(r->offset + (r->end - r->start)));
}

/* Reads a stream header at the current position; 0 or negative. */
static int
read_stream_header(struct core_mlspill3_reader *r, struct core_err *err)
{
	const unsigned char *h;
	uint32_t ncols, schema_len, i;
	struct core_schema *s;
	size_t len, off;
	ssize_t dup;
	ssize_t k;

	if ((k = ensure(r, 24, err)) < 0)
		return (int)k;
	h = r->buf + r->start;
	if (k < 8 || memcmp(h, CORE_MLSPILL3_MAGIC, 8) != 0) {
		if (k >= 8 && r->st.streams == 0 && r->offset == 0 &&
		    memcmp(h, "PAR1", 4) == 0)
			return core_err_set(err, CORE_EDATA,
			    "%s: a Parquet file, not an MLSPILL3 stream (read "
			    "Parquet from a file: it is read from its end, "
			    "which a pipe cannot do)", r->name);
		if (k >= 8 && r->st.streams == 0 && r->offset == 0)
			return core_err_set(err, CORE_EDATA,
			    "%s: not an MLSPILL3 stream (bad magic)", r->name);
		if (k < 8 && memcmp(h, CORE_MLSPILL3_MAGIC, (size_t)k) == 0)
			return truncated(r, err);
		return core_err_set(err, CORE_ECORRUPT,
		    "%s: corrupt stream: no MLSPILL3 header at byte %llu",
		    r->name, (unsigned long long)r->offset);
	}
	if (k < 24)
		return truncated(r, err);
	if (get16(h + 8) != CORE_MLSPILL3_MAJOR)
		return core_err_set(err, CORE_EDATA,
		    "%s: unsupported MLSPILL3 version %u.%u (this reader "
		    "knows %u.x)", r->name, get16(h + 8), get16(h + 10),
		    CORE_MLSPILL3_MAJOR);
	ncols = get32(h + 16);
	schema_len = get32(h + 20);
	/* No flag is defined: one set means a format this reader does not
	 * know, so reading on would guess. */
	if (get32(h + 12) != 0)
		return core_err_set(err, CORE_ECORRUPT,
		    "%s: corrupt stream header at byte %llu (unknown flags "
		    "0x%x)", r->name, (unsigned long long)r->offset,
		    get32(h + 12));
	if (schema_len > SCHEMA_MAX || ncols > schema_len / 8 + 1)
		return core_err_set(err, CORE_ECORRUPT,
		    "%s: corrupt stream header at byte %llu", r->name,
		    (unsigned long long)r->offset);
	if (ncols > CORE_COLUMNS_MAX)
		return core_err_set(err, CORE_EDATA,
		    "%s: stream header at byte %llu: %u columns, more than "
		    "the limit of %u", r->name, (unsigned long long)r->offset,
		    ncols, CORE_COLUMNS_MAX);
	len = header_len(schema_len);
	if ((k = ensure(r, len, err)) < 0)
		return (int)k;
	if ((size_t)k < len)
		return truncated(r, err);
	h = r->buf + r->start;
	if (get64(h + len - 8) != XXH3_64bits(h, len - 8))
		return core_err_set(err, CORE_ECORRUPT,
		    "%s: corrupt stream header at byte %llu (checksum "
		    "mismatch)", r->name, (unsigned long long)r->offset);
	s = core_schema_new(ncols);
	off = 24;
	for (i = 0; i < ncols; i++) {
		struct core_coltype t = { 0, 0, 0 };
		uint32_t nl;

		if (off + 8 > 24 + (size_t)schema_len)
			goto corrupt;
		t.id = (enum core_type)h[off];
		t.precision = h[off + 1];
		t.scale = h[off + 2];
		nl = get32(h + off + 4);
		if (nl > 24 + (size_t)schema_len - off - 8)
			goto corrupt;
		if (t.id < CORE_TYPE_BOOL || t.id > CORE_TYPE_DECIMAL128 ||
		    h[off + 3] != 0)
			goto corrupt;
		/* Names are C strings to every consumer: a NUL would
		 * cut one short. */
		if (core_utf8_valid_prefix((const char *)h + off + 8, nl) !=
		    nl || memchr(h + off + 8, '\0', nl) != NULL) {
			core_schema_free(s);
			return core_err_set(err, CORE_ECORRUPT,
			    "%s: corrupt stream header at byte %llu (column "
			    "%u's name is not UTF-8 text)", r->name,
			    (unsigned long long)r->offset, i + 1);
		}
		/* Each decimal precision has one code (core_col.h), so a
		 * precision outside its code's range is damage. */
		if (t.id == CORE_TYPE_DECIMAL ? (t.precision < 1 ||
		    t.precision > CORE_DECIMAL_MAX_PRECISION ||
		    t.scale > t.precision) :
		    t.id == CORE_TYPE_DECIMAL128 ? (t.precision <=
		    CORE_DECIMAL_MAX_PRECISION ||
		    t.precision > CORE_DECIMAL128_MAX_PRECISION ||
		    t.scale > t.precision) : (t.precision || t.scale))
			goto corrupt;
		s->fields[i].name = core_xstrndup((const char *)h + off + 8,
		    nl);
		s->fields[i].type = t;
		off += 8 + nl;
	}
	if (off != 24 + (size_t)schema_len)
		goto corrupt;
	if ((dup = core_schema_first_dup(s)) >= 0) {
		int rc = core_err_set(err, CORE_ECORRUPT,
		    "%s: corrupt stream header at byte %llu (two columns "
		    "are named '%.100s')", r->name,
		    (unsigned long long)r->offset, s->fields[dup].name);

		core_schema_free(s);
		return rc;
	}
	consume(r, len);
	if (r->schema == NULL) {
		r->schema = s;
	} else if (!core_schema_equal(r->schema, s)) {
		char *a = core_schema_describe(r->schema);
		char *b = core_schema_describe(s);
		int rc = core_err_set(err, CORE_EDATA,
		    "%s: schema mismatch: a concatenated stream has "
		    "schema (%.300s), the first had (%.300s)", r->name, b, a);

		free(a);
		free(b);
		core_schema_free(s);
		return rc;
	} else {
		core_schema_free(s);
	}
	r->in_stream = true;
	r->stream_rows = r->stream_frames = 0;
	r->st.streams++;
	return 0;
corrupt:
	core_schema_free(s);
	return core_err_set(err, CORE_ECORRUPT,
	    "%s: corrupt stream header at byte %llu (bad schema)", r->name,
	    (unsigned long long)r->offset);
}

static void
reader_init(struct core_mlspill3_reader *r)
{
	r->codec = core_codec_ctx_new();
	r->tee_fd = -1;
	r->cancel[0] = r->cancel[1] = -1;
}

int
core_mlspill3_reader_new_tee(const char *path, int tee_fd,
    const char *tee_name, struct core_mlspill3_reader **out,
    struct core_err *err)
{
	struct core_mlspill3_reader *r = core_xcalloc(1, sizeof(*r));
	int rc;

	*out = NULL;
	r->one_path = path;
	r->paths = &r->one_path;
	r->npaths = 1;
	r->fd = -1;
	reader_init(r);
	r->tee_fd = tee_fd;
	r->tee_name = tee_name;
	if ((rc = open_path(r, err)) != 0 ||
	    (rc = read_stream_header(r, err)) != 0) {
		core_mlspill3_reader_free(r);
		return rc;
	}
	*out = r;
	return 0;
}

int
core_mlspill3_reader_new(const char *const *paths, size_t npaths,
    struct core_mlspill3_reader **out, struct core_err *err)
{
	struct core_mlspill3_reader *r = core_xcalloc(1, sizeof(*r));
	int rc;

	*out = NULL;
	r->paths = paths;
	r->npaths = npaths;
	r->fd = -1;
	reader_init(r);
	if ((rc = open_path(r, err)) != 0 ||
	    (rc = read_stream_header(r, err)) != 0) {
		core_mlspill3_reader_free(r);
		return rc;
	}
	*out = r;
	return 0;
}

int
core_mlspill3_reader_new_fd(int fd, const char *name,
    struct core_mlspill3_reader **out, struct core_err *err)
{
	struct core_mlspill3_reader *r = core_xcalloc(1, sizeof(*r));
	int rc;

	*out = NULL;
	r->fd = fd;
	r->name = core_xstrdup(name);
	reader_init(r);
	if ((rc = read_stream_header(r, err)) != 0) {
		core_mlspill3_reader_free(r);
		return rc;
	}
	*out = r;
	return 0;
}

void
core_mlspill3_reader_free(struct core_mlspill3_reader *r)
{
	if (r == NULL)
		return;
	if (r->apending) {
		if (r->cancel[1] >= 0)
			(void)!write(r->cancel[1], "", 1);
		core_pool_wait(r->apool, &r->atask);
	}
	if (r->cancel[0] >= 0) {
		close(r->cancel[0]);
		close(r->cancel[1]);
	}
	if (r->apool != NULL)
		core_batch_release(&r->abatch);
	if (r->close_fd && r->fd >= 0)
		close(r->fd);
	core_free_aligned(r->zraw);
	core_free_aligned(r->zraw2);
	core_codec_ctx_free(r->codec);
	core_free_aligned(r->buf);
	core_free_aligned(r->buf2);
	core_schema_free(r->schema);
	free(r->name);
	free(r);
}

const struct core_schema *
core_mlspill3_reader_schema(const struct core_mlspill3_reader *r)
{
	return r->schema;
}

void
core_mlspill3_reader_stats(const struct core_mlspill3_reader *r,
    struct core_mlspill3_stats *st)
{
	*st = r->apool != NULL ? r->ast : r->st;
}

const char *
core_mlspill3_reader_name(const struct core_mlspill3_reader *r)
{
	return r->name;
}

uint64_t
core_mlspill3_reader_file_rows(const struct core_mlspill3_reader *r)
{
	return r->file_rows;
}

int
core_mlspill3_reader_next_raw(struct core_mlspill3_reader *r,
    const void **p, size_t *len, uint32_t *nrows, struct core_err *err)
{
	int rc;

	r->raw = true;
	rc = core_mlspill3_reader_next(r, NULL, err);
	r->raw = false;
	if (rc == 0) {
		*p = r->raw_p;
		*len = r->raw_len;
		*nrows = r->raw_rows;
	}
	return rc;
}

void
core_mlspill3_reader_want(struct core_mlspill3_reader *r, const bool *want)
{
	r->want = want;
}

void
core_mlspill3_reader_keep_last(struct core_mlspill3_reader *r)
{
	r->keep = true;
}

static int reader_next(struct core_mlspill3_reader *r, struct core_batch *b,
    struct core_err *err);

static void
ahead_read(void *arg, unsigned who)
{
	struct core_mlspill3_reader *r = arg;

	(void)who;
	r->arc = reader_next(r, &r->abatch, &r->aerr);
}

/* Is a path still to open a FIFO?  Opening one waits for a writer,
 * where no poll can give up. */
static bool
fifo_ahead(const struct core_mlspill3_reader *r)
{
	struct stat st;
	size_t i;

	for (i = r->pathi + 1; i < r->npaths; i++)
		if (strcmp(r->paths[i], "-") != 0 &&
		    stat(r->paths[i], &st) == 0 && S_ISFIFO(st.st_mode))
			return true;
	return false;
}

void
core_mlspill3_reader_read_ahead(struct core_mlspill3_reader *r,
    struct core_pool *pool)
{
	/* A read ahead from a pipe waits in poll(2) beside a pipe of the
	 * reader's own, so that free can end it: a writer that keeps its
	 * end open without writing must not hold up an error's way out. */
	if (pool == NULL || r->apool != NULL || r->tee_fd >= 0 ||
	    fifo_ahead(r))
		return;
	if (pipe2(r->cancel, O_CLOEXEC) != 0) {
		r->cancel[0] = r->cancel[1] = -1;
		return;
	}
	r->apool = pool;
	r->keep = true;
	r->ast = r->st;
	core_batch_init(&r->abatch, r->schema);
}

/* next with read-ahead: waits for the batch being read (or reads it),
 * hands it over and starts reading the one after it. */
static int
ahead_next(struct core_mlspill3_reader *r, struct core_batch *b,
    struct core_err *err)
{
	struct core_column *cols;
	int rc;

	if (!r->apending)
		ahead_read(r, 0);
	else
		core_pool_wait(r->apool, &r->atask);
	r->apending = false;
	r->ast = r->st;
	if ((rc = r->arc) != 0) {
		if (rc != CORE_EOF)
			*err = r->aerr;
		return rc;
	}
	/* Swap the column arrays: b gets the views just read, abatch
	 * b's old array to read the next frame into. */
	cols = b->cols;
	b->cols = r->abatch.cols;
	r->abatch.cols = cols;
	b->nrows = r->abatch.nrows;
	r->apending = true;
	core_pool_start(r->apool, &r->atask, ahead_read, r);
	return 0;
}

void
core_mlspill3_reader_count_only(struct core_mlspill3_reader *r)
{
	r->count_only = true;
}

static int
corrupt_frame(struct core_mlspill3_reader *r, uint64_t at, const char *why,
    struct core_err *err)
{
	return core_err_set(err, CORE_ECORRUPT,
	    "%s: corrupt stream: frame at byte %llu: %s", r->name,
	    (unsigned long long)at, why);
}

/* ------------------------------------------------------------------ */
/* records (also read by core_spill) */

int
core_mlspill3_header_len(const unsigned char *h,
    const struct core_schema *s, uint64_t *len, const char **why)
{
	uint32_t schema_len = get32(h + 20);

	if (memcmp(h, CORE_MLSPILL3_MAGIC, 8) != 0) {
		*why = "no MLSPILL3 stream header";
		return CORE_ECORRUPT;
	}
	if (get16(h + 8) != CORE_MLSPILL3_MAJOR) {
		*why = "unsupported MLSPILL3 version";
		return CORE_ECORRUPT;
	}
	if (get32(h + 16) != s->ncols || schema_len > SCHEMA_MAX ||
	    s->ncols > schema_len / 8 + 1) {
		*why = "bad stream header";
		return CORE_ECORRUPT;
	}
	*len = header_len(schema_len);
	return 0;
}

int
core_mlspill3_record_parse(const unsigned char *h,
    const struct core_schema *s, struct core_mlspill3_record *rec,
    const char **why)
{
	uint32_t kind = get32(h);

	if (get32(h + 4) != record_check(h)) {
		*why = "record header check mismatch";
		return CORE_ECORRUPT;
	}
	rec->body_len = get64(h + 8);
	rec->nrows = get64(h + 16);
	rec->sum = get64(h + 24);
	if (kind == KIND_FRAME) {
		rec->kind = CORE_MLSPILL3_FRAME;
		if (core_mlspill3_frame_check(s, rec->body_len, rec->nrows,
		    why) != 0)
			return CORE_ECORRUPT;
	} else if (kind == KIND_END) {
		rec->kind = CORE_MLSPILL3_END;
		if (rec->body_len != END_BODY || rec->nrows != 0) {
			*why = "bad end record";
			return CORE_ECORRUPT;
		}
	} else {
		*why = "unknown record kind";
		return CORE_ECORRUPT;
	}
	/* Cannot overflow: frame_check bounds body_len. */
	rec->len = REC_HDR + rec->body_len;
	return 0;
}

int
core_mlspill3_body_verify(const struct core_mlspill3_record *rec,
    const unsigned char *body, const char **why)
{
	if (body_hash(body, (size_t)rec->body_len) != rec->sum) {
		*why = rec->kind == CORE_MLSPILL3_END ?
		    "end record checksum mismatch" : "checksum mismatch";
		return CORE_ECORRUPT;
	}
	return 0;
}

int
core_mlspill3_end_parse(const struct core_mlspill3_record *rec,
    const unsigned char *body, uint64_t *rows, uint64_t *frames,
    const char **why)
{
	if (rec->kind != CORE_MLSPILL3_END) {
		*why = "not an end record";
		return CORE_ECORRUPT;
	}
	if (core_mlspill3_body_verify(rec, body, why) != 0)
		return CORE_ECORRUPT;
	*rows = get64(body);
	*frames = get64(body + 8);
	return 0;
}

/* ------------------------------------------------------------------ */
/* frame bodies (also read by core_spill) */

int
core_mlspill3_frame_check(const struct core_schema *s, uint64_t body_len,
    uint64_t nrows, const char **why)
{
	uint64_t dirlen = (uint64_t)s->ncols * NBUF * DESC_LEN;

	if (body_len > CORE_MLSPILL3_MAX_BODY || body_len < dirlen ||
	    (body_len & 7) || nrows == 0 || nrows > UINT32_MAX / 2) {
		*why = "bad frame header";
		return CORE_ECORRUPT;
	}
	return 0;
}

int
core_mlspill3_body_scan(const struct core_schema *s,
    const unsigned char *body, uint64_t body_len, uint64_t *zbytes,
    const char **why)
{
	uint64_t pos = (uint64_t)s->ncols * NBUF * DESC_LEN, z = 0;
	size_t i;

	for (i = 0; i < (size_t)s->ncols * NBUF; i++) {
		const unsigned char *d = body + i * DESC_LEN;
		uint32_t codec = get32(d);
		uint64_t raw = get64(d + 8), stored = get64(d + 16);

		if (get32(d + 4) != 0 || stored > body_len - pos ||
		    pad8((size_t)stored) > body_len - pos - stored) {
			*why = "bad buffer descriptor";
			return CORE_ECORRUPT;
		}
		if (codec == CODEC_ZSTD) {
			struct core_err e;

			if (raw > CORE_MLSPILL3_MAX_BODY) {
				*why = "bad buffer length";
				return CORE_ECORRUPT;
			}
			/* raw is about to be allocated: the frame's own
			 * header must agree before it is. */
			if (core_codec_check_rawlen(CORE_CODEC_ZSTD,
			    body + pos, (size_t)stored, (size_t)raw,
			    &e) != 0) {
				*why = "bad compressed buffer length";
				return CORE_ECORRUPT;
			}
			/* 8 more: zbytes > 0 says a buffer is compressed,
			 * even one that expands to nothing. */
			z += raw + pad8((size_t)raw) + 8;
		} else if (codec != CODEC_RAW) {
			*why = "unknown buffer codec";
			return CORE_ECORRUPT;
		} else if (raw != stored) {
			*why = "bad buffer length";
			return CORE_ECORRUPT;
		}
		pos += stored + pad8((size_t)stored);
	}
	if (pos != body_len) {
		*why = "bad frame length";
		return CORE_ECORRUPT;
	}
	*zbytes = z;
	return 0;
}

static void empty_column(struct core_column *c);

/* Whether every valid one of the n bool bytes v is 0 or 1 (a NULL slot
 * is ignored, as the format says).  One pass ORing the bytes decides for
 * nearly every frame; only a frame with a stray byte looks at validity. */
static bool
bools_valid(const uint8_t *v, const uint8_t *validity, uint32_t n)
{
	uint8_t any = 0;
	uint32_t i;

	for (i = 0; i < n; i++)
		any |= v[i];
	if ((any & 0xfe) == 0)
		return true;
	if (validity == NULL)
		return false;
	for (i = 0; i < n; i++)
		if ((v[i] & 0xfe) && (validity[i >> 3] >> (i & 7) & 1))
			return false;
	return true;
}

/* Checks one column's three buffers (pointers p, lengths len) against n
 * rows and points c at them. */
static const char *
set_column(struct core_column *c, const void *const p[NBUF],
    const uint64_t len[NBUF], uint32_t n)
{
	/* Views into someone else's memory: release what c owned. */
	empty_column(c);
	if (len[0] != 0 && len[0] != core_bitmap_bytes(n))
		return "bad validity length";
	c->validity = len[0] ? (uint8_t *)p[0] : NULL;
	if (c->type.id == CORE_TYPE_STRING) {
		const int32_t *off = p[1];
		uint32_t row;

		if (len[1] != ((uint64_t)n + 1) * 4 || off[0] != 0)
			return "bad string offsets";
		for (row = 0; row < n; row++)
			if (off[row + 1] < off[row])
				return "bad string offsets";
		if ((uint64_t)off[n] != len[2])
			return "bad string data length";
		c->offsets = (int32_t *)p[1];
	} else if (len[1] != 0 ||
	    len[2] != (uint64_t)n * core_type_width(c->type.id)) {
		return "bad values length";
	} else if (c->type.id == CORE_TYPE_BOOL &&
	    !bools_valid(p[2], c->validity, n)) {
		return "bool value other than 0 or 1";
	}
	c->values = (void *)p[2];
	return NULL;
}

/* A column a masked read leaves out: no buffers. */
static void
empty_column(struct core_column *c)
{
	if (c->values_cap)
		core_free_aligned(c->values);
	if (c->offsets_cap)
		core_free_aligned(c->offsets);
	c->values_cap = c->offsets_cap = 0;
	c->validity = NULL;
	c->offsets = NULL;
	c->values = NULL;
}

/* body_decode for the columns with want[i] (want NULL: all); the others
 * are emptied, their buffers neither expanded nor checked. */
static int
body_decode_want(const struct core_schema *s, const unsigned char *body,
    uint32_t nrows, struct core_codec_ctx *cx, unsigned char *zraw,
    const bool *want, struct core_batch *b, const char **why)
{
	uint64_t pos = (uint64_t)s->ncols * NBUF * DESC_LEN, zpos = 0;
	uint32_t i, j;

	b->nrows = nrows;
	for (i = 0; i < s->ncols; i++) {
		const void *p[NBUF];
		uint64_t len[NBUF];
		bool skip = want != NULL && !want[i];

		for (j = 0; j < NBUF; j++) {
			const unsigned char *d = body +
			    ((size_t)i * NBUF + j) * DESC_LEN;
			uint64_t raw = get64(d + 8), stored = get64(d + 16);

			len[j] = raw;
			if (get32(d) == CODEC_RAW) {
				p[j] = body + pos;
			} else {
				/* Room for every buffer was made, so
				 * skipping one moves no other. */
				if (!skip && core_codec_decompress(cx,
				    CORE_CODEC_ZSTD, body + pos,
				    (size_t)stored, zraw + zpos, (size_t)raw,
				    NULL) != 0) {
					*why = "bad compressed buffer";
					return CORE_ECORRUPT;
				}
				p[j] = zraw + zpos;
				zpos += raw + pad8((size_t)raw);
			}
			pos += stored + pad8((size_t)stored);
		}
		if (skip)
			empty_column(&b->cols[i]);
		else if ((*why = set_column(&b->cols[i], p, len, nrows)) !=
		    NULL)
			return CORE_ECORRUPT;
	}
	return 0;
}

int
core_mlspill3_body_decode(const struct core_schema *s,
    const unsigned char *body, uint64_t body_len, uint32_t nrows,
    struct core_codec_ctx *cx, unsigned char *zraw, struct core_batch *b,
    const char **why)
{
	(void)body_len;		/* bounds were checked by body_scan */
	return body_decode_want(s, body, nrows, cx, zraw, NULL, b, why);
}

/* ------------------------------------------------------------------ */
/* reader, continued */

/* A counted frame: its rows, no columns. */
static void
count_frame(struct core_mlspill3_reader *r,
    const struct core_mlspill3_record *rec, struct core_batch *b)
{
	uint32_t i;

	for (i = 0; i < b->ncols; i++)
		empty_column(&b->cols[i]);
	b->nrows = (uint32_t)rec->nrows;
	r->file_rows += rec->nrows;
	r->stream_rows += rec->nrows;
	r->stream_frames++;
	r->st.rows += rec->nrows;
	r->st.frames++;
}

/*
 * Moves past a frame of a regular file without reading its body: what
 * the buffer holds of it is dropped, the rest is seeked over.  A file
 * that ends inside the body is truncated; one cut at a record boundary
 * is found by the next read, which finds no end record.
 */
static int
skip_frame(struct core_mlspill3_reader *r,
    const struct core_mlspill3_record *rec, struct core_err *err)
{
	size_t have = r->end - r->start;
	struct stat st;
	off_t pos;

	if (have >= rec->len) {
		consume(r, (size_t)rec->len);
		return 0;
	}
	pos = lseek(r->fd, (off_t)(rec->len - have), SEEK_CUR);
	if (pos < 0)
		return core_err_errno(err, CORE_EIO, errno, "seek error on %s",
		    r->name);
	if (fstat(r->fd, &st) != 0)
		return core_err_errno(err, CORE_EIO, errno, "%s", r->name);
	if (pos > st.st_size)
		return core_err_set(err, CORE_ETRUNC,
		    "%s: truncated stream: input ends at byte %llu inside a "
		    "frame (the producer failed or was cut short)", r->name,
		    (unsigned long long)st.st_size);
	r->start = r->end = 0;
	r->offset += rec->len;
	r->st.bytes += rec->len;
	return 0;
}

static int
read_frame(struct core_mlspill3_reader *r,
    const struct core_mlspill3_record *rec, struct core_batch *b,
    struct core_err *err)
{
	uint64_t at = r->offset, zbytes;
	const unsigned char *body;
	const char *why;
	ssize_t k;
	int rc;

	if (r->count_only && r->seekable) {
		if ((rc = skip_frame(r, rec, err)) != 0)
			return rc;
		count_frame(r, rec, b);
		return 0;
	}
	if ((k = ensure(r, (size_t)rec->len, err)) < 0)
		return (int)k;
	if ((size_t)k < rec->len)
		return truncated(r, err);
	body = r->buf + r->start + REC_HDR;
	if (core_mlspill3_body_verify(rec, body, &why) != 0 ||
	    core_mlspill3_body_scan(r->schema, body, rec->body_len, &zbytes,
	    &why) != 0)
		return corrupt_frame(r, at, why, err);
	if (r->count_only) {
		consume(r, (size_t)rec->len);
		count_frame(r, rec, b);
		return 0;
	}
	if (r->raw) {
		/* The bytes stay where they are until the next read. */
		r->raw_p = r->buf + r->start;
		r->raw_len = (size_t)rec->len;
		r->raw_rows = (uint32_t)rec->nrows;
		consume(r, (size_t)rec->len);
		r->file_rows += rec->nrows;
		r->stream_rows += rec->nrows;
		r->stream_frames++;
		r->st.rows += rec->nrows;
		r->st.frames++;
		return 0;
	}
	if (zbytes > 0 && r->keep) {
		/* Expanded buffers alternate: the last batch's stay. */
		void *z = r->zraw;
		size_t zc = r->zraw_cap;

		r->zraw = r->zraw2;
		r->zraw_cap = r->zraw2_cap;
		r->zraw2 = z;
		r->zraw2_cap = zc;
	}
	if (zbytes > 0)
		core_grow_aligned(&r->zraw, &r->zraw_cap, (size_t)zbytes);
	r->live = r->buf;
	if (body_decode_want(r->schema, body, (uint32_t)rec->nrows, r->codec,
	    r->zraw, r->want, b, &why) != 0)
		return corrupt_frame(r, at, why, err);
	consume(r, (size_t)rec->len);
	r->file_rows += rec->nrows;
	r->stream_rows += rec->nrows;
	r->stream_frames++;
	r->st.rows += rec->nrows;
	r->st.frames++;
	return 0;
}

static int
read_end(struct core_mlspill3_reader *r,
    const struct core_mlspill3_record *rec, struct core_err *err)
{
	uint64_t at = r->offset, rows, frames;
	const char *why;
	ssize_t k;

	if ((k = ensure(r, (size_t)rec->len, err)) < 0)
		return (int)k;
	if ((size_t)k < rec->len)
		return truncated(r, err);
	if (core_mlspill3_end_parse(rec, r->buf + r->start + REC_HDR, &rows,
	    &frames, &why) != 0)
		return corrupt_frame(r, at, why, err);
	if (rows != r->stream_rows || frames != r->stream_frames)
		return core_err_set(err, CORE_ECORRUPT,
		    "%s: corrupt stream: end record at byte %llu counts %llu "
		    "rows in %llu frames, the stream had %llu in %llu",
		    r->name, (unsigned long long)at,
		    (unsigned long long)rows, (unsigned long long)frames,
		    (unsigned long long)r->stream_rows,
		    (unsigned long long)r->stream_frames);
	consume(r, (size_t)rec->len);
	r->in_stream = false;
	return 0;
}

int
core_mlspill3_reader_next(struct core_mlspill3_reader *r,
    struct core_batch *b, struct core_err *err)
{
	if (r->apool != NULL && b != NULL)
		return ahead_next(r, b, err);
	return reader_next(r, b, err);
}

static int
reader_next(struct core_mlspill3_reader *r, struct core_batch *b,
    struct core_err *err)
{
	struct core_mlspill3_record rec;
	const char *why;
	ssize_t k;
	int rc;

	for (;;) {
		if (!r->in_stream) {
			/* Between streams: another one, the next file, or
			 * the end. */
			if ((k = ensure(r, 1, err)) < 0)
				return (int)k;
			if (k == 0) {
				if (r->npaths == 0 ||
				    r->pathi + 1 >= r->npaths)
					return CORE_EOF;
				if (r->close_fd)
					close(r->fd);
				r->fd = -1;
				r->pathi++;
				if ((rc = open_path(r, err)) != 0)
					return rc;
				if ((k = ensure(r, 1, err)) < 0)
					return (int)k;
				if (k == 0)
					return core_err_set(err, CORE_ETRUNC,
					    "%s: empty input: not an MLSPILL3 "
					    "stream", r->name);
			}
			if ((rc = read_stream_header(r, err)) != 0)
				return rc;
			continue;
		}
		if ((k = ensure(r, REC_HDR, err)) < 0)
			return (int)k;
		if ((size_t)k < REC_HDR)
			return truncated(r, err);
		if (core_mlspill3_record_parse(r->buf + r->start, r->schema,
		    &rec, &why) != 0)
			return corrupt_frame(r, r->offset, why, err);
		if (rec.kind == CORE_MLSPILL3_FRAME)
			return read_frame(r, &rec, b, err);
		if ((rc = read_end(r, &rec, err)) != 0)
			return rc;
	}
}
