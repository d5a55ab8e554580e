/*
 * core_spill.c - sorted runs in anonymous temporary files (core_spill.h).
 *
 * Writing goes through core_mlspill3's writer, so a run is a well-formed
 * MLSPILL3 stream (mlspill3(5)) appended at the end of its file; the
 * file's own offset is always at its end because reads use pread(2).
 * Reading fetches each record with pread(2), the body into the merge
 * frame's own buffer (a stream reader would keep a large read buffer per
 * run, too much for a wide merge under a small budget).  What the bytes
 * mean is core_mlspill3's alone (core_mlspill3_record.h): this file
 * reads a record's header, asks how long the record is, reads its body
 * and hands it back to be verified and decoded.  Everything read is
 * verified (record check, body checksum, buffer bounds, string offsets,
 * the end record's counts) before a batch points into it, because a file
 * on a full or failing disk is input like any other.
 *
 * Chained runs' frames go through a second writer per file (chain[i]),
 * which is kept for the spill set's life and only ever writes frames:
 * its stream header goes out with its first frame, its end record never.
 * Before each frame the file offset is moved to the file's end, so
 * contiguous runs written in between do not disturb it; the frame's
 * place is then known from the writer's byte counts.
 *
 * Invariants: files[i] >= 0 once opened; ends[i] is the size of file i;
 * at most one run is open for writing (writer != NULL), and no chained
 * frame is written while one is.
 */
#define _FILE_OFFSET_BITS 64
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core_alloc.h"
#include "core_codec.h"
#include "core_debug.h"
#include "core_io.h"
#include "core_mlspill3.h"
#include "core_mlspill3_record.h"
#include "core_pool.h"
#include "core_spill.h"

struct core_spill {
	const char *const *dirs;	/* borrowed */
	size_t ndirs;
	const char *default_dir[1];
	int *files;			/* owned fds, -1 until first use */
	uint64_t *ends;
	char **names;			/* owned: "spill file in DIR" */
	uint64_t max_bytes;
	int level;
	const struct core_schema *schema;	/* borrowed */
	uint32_t next;			/* file for the next run */
	struct core_mlspill3_writer *writer;	/* the run being written */
	struct core_mlspill3_writer **chain;	/* owned, per file: frames
						   of chained runs, or NULL */
	uint32_t wfile;
	uint64_t woff;
	uint64_t written;		/* bytes of finished runs */
	struct core_codec_ctx *codec;	/* owned: decompresses frames */
	struct core_pool *pool;		/* owned: writes runs, or NULL */
};

struct core_spill *
core_spill_new(const char *const *dirs, size_t ndirs, uint64_t max_bytes,
    int zstd_level, const struct core_schema *schema)
{
	struct core_spill *sp = core_xcalloc(1, sizeof(*sp));
	size_t i;

	if (ndirs == 0) {
		sp->default_dir[0] = core_tmpdir_default();
		dirs = sp->default_dir;
		ndirs = 1;
	}
	sp->dirs = dirs;
	sp->ndirs = ndirs;
	sp->files = core_xcalloc(ndirs, sizeof(*sp->files));
	sp->ends = core_xcalloc(ndirs, sizeof(*sp->ends));
	sp->names = core_xcalloc(ndirs, sizeof(*sp->names));
	sp->chain = core_xcalloc(ndirs, sizeof(*sp->chain));
	for (i = 0; i < ndirs; i++) {
		size_t len = strlen(dirs[i]) + 32;

		sp->files[i] = -1;
		sp->names[i] = core_xmalloc(len);
		snprintf(sp->names[i], len, "spill file in %s", dirs[i]);
	}
	sp->max_bytes = max_bytes;
	sp->level = zstd_level;
	sp->schema = schema;
	sp->codec = core_codec_ctx_new();
	return sp;
}

void
core_spill_free(struct core_spill *sp)
{
	size_t i;

	if (sp == NULL)
		return;
	core_mlspill3_writer_free(sp->writer);
	core_pool_free(sp->pool);
	for (i = 0; i < sp->ndirs; i++) {
		core_mlspill3_writer_free(sp->chain[i]);
		if (sp->files[i] >= 0)
			close(sp->files[i]);
		free(sp->names[i]);
	}
	free(sp->chain);
	free(sp->files);
	free(sp->ends);
	free(sp->names);
	core_codec_ctx_free(sp->codec);
	free(sp);
}

uint64_t
core_spill_bytes(const struct core_spill *sp)
{
	struct core_mlspill3_stats st;

	if (sp->writer == NULL)
		return sp->written;
	core_mlspill3_writer_stats(sp->writer, &st);
	return sp->written + st.bytes;
}

static int
check_cap(struct core_spill *sp, struct core_err *err)
{
	if (sp->max_bytes != 0 && core_spill_bytes(sp) > sp->max_bytes)
		return core_err_set(err, CORE_ELIMIT,
		    "temporary files would exceed the spill limit of %llu "
		    "bytes", (unsigned long long)sp->max_bytes);
	return 0;
}

void
core_spill_async(struct core_spill *sp)
{
	if (sp->pool == NULL)
		sp->pool = core_pool_new(core_pool_default(0, 2));
}

const struct core_schema *
core_spill_schema(const struct core_spill *sp)
{
	return sp->schema;
}

/* Opens the next file in turn if need be and moves its offset to its
 * end; the file's index in *f. */
static int
next_file(struct core_spill *sp, uint32_t *f, struct core_err *err)
{
	int fd;

	*f = sp->next;
	if (sp->files[*f] < 0) {
		if ((fd = core_tmpfile_open(sp->dirs[*f], err)) < 0)
			return fd;
		sp->files[*f] = fd;
	}
	sp->next = (uint32_t)((*f + 1) % sp->ndirs);
	if (lseek(sp->files[*f], (off_t)sp->ends[*f], SEEK_SET) < 0)
		return core_err_errno(err, CORE_EIO, errno, "%s",
		    sp->names[*f]);
	return 0;
}

int
core_spill_run_begin(struct core_spill *sp, struct core_err *err)
{
	uint32_t f;
	int rc;

	if ((rc = next_file(sp, &f, err)) != 0)
		return rc;
	sp->wfile = f;
	sp->woff = sp->ends[f];
	sp->writer = core_mlspill3_writer_new(sp->files[f], sp->names[f],
	    sp->schema, sp->level);
	core_mlspill3_writer_async(sp->writer, sp->pool);
	return 0;
}

int
core_spill_run_write(struct core_spill *sp, const struct core_batch *b,
    struct core_err *err)
{
	int rc = core_mlspill3_write_batch(sp->writer, b, err);

	return rc != 0 ? rc : check_cap(sp, err);
}

int
core_spill_run_end(struct core_spill *sp, struct core_spill_run *run,
    struct core_err *err)
{
	struct core_mlspill3_stats st;
	int rc;

	if ((rc = core_mlspill3_writer_finish(sp->writer, err)) != 0)
		return rc;
	core_mlspill3_writer_stats(sp->writer, &st);
	core_mlspill3_writer_free(sp->writer);
	sp->writer = NULL;
	run->file = sp->wfile;
	run->off = sp->woff;
	run->len = st.bytes;
	run->rows = st.rows;
	run->chained = false;
	run->frames = NULL;
	run->nframes = run->frames_cap = 0;
	sp->ends[sp->wfile] += st.bytes;
	sp->written += st.bytes;
	return check_cap(sp, err);
}

void
core_spill_chain_init(struct core_spill_run *run)
{
	memset(run, 0, sizeof(*run));
	run->chained = true;
}

void
core_spill_chain_release(struct core_spill_run *run)
{
	if (run == NULL || !run->chained)
		return;
	free(run->frames);
	run->frames = NULL;
	run->nframes = run->frames_cap = 0;
}

/* Reads exactly n bytes at off of file f. */
static int read_at(struct core_spill *sp, uint32_t f, void *buf, size_t n,
    uint64_t off, struct core_err *err);

int
core_spill_chain_write(struct core_spill *sp, struct core_spill_run *run,
    const struct core_batch *b, struct core_err *err)
{
	struct core_mlspill3_stats before, after;
	unsigned char h[CORE_MLSPILL3_HEADER_FIXED];
	struct core_spill_extent *e;
	uint64_t start, hlen = 0;
	const char *why;
	uint32_t f;
	int rc, wrc;

	CORE_DCHECK(run->chained);
	if (b->nrows == 0)
		return 0;
	if (sp->writer != NULL)
		return core_err_set(err, CORE_EINTERNAL,
		    "chained frame written while a run is being written");
	if ((rc = next_file(sp, &f, err)) != 0)
		return rc;
	if (sp->chain[f] == NULL)
		sp->chain[f] = core_mlspill3_writer_new(sp->files[f],
		    sp->names[f], sp->schema, sp->level);
	start = sp->ends[f];
	core_mlspill3_writer_stats(sp->chain[f], &before);
	wrc = core_mlspill3_write_batch(sp->chain[f], b, err);
	core_mlspill3_writer_stats(sp->chain[f], &after);
	/* Whatever reached the file, even a failed frame's part, is the
	 * file's now: the next record goes after it. */
	sp->ends[f] += after.bytes - before.bytes;
	sp->written += after.bytes - before.bytes;
	if (wrc != 0)
		return wrc;
	if (before.streams == 0) {
		/* The stream header went out with this frame. */
		if ((rc = read_at(sp, f, h, sizeof(h), start, err)) != 0)
			return rc;
		if (core_mlspill3_header_len(h, sp->schema, &hlen, &why) != 0)
			return core_err_set(err, CORE_EINTERNAL,
			    "%s: stream header: %s", sp->names[f], why);
	}
	run->frames = core_grow(run->frames, &run->frames_cap,
	    run->nframes + 1, sizeof(*run->frames), 16);
	e = &run->frames[run->nframes++];
	e->file = f;
	e->off = start + hlen;
	e->len = after.bytes - before.bytes - hlen;
	run->len += e->len;
	run->rows += b->nrows;
	return check_cap(sp, err);
}

void
core_spill_run_discard(struct core_spill *sp, const struct core_spill_run *run)
{
	size_t i;

	/* Best effort: a file system without hole punching keeps the
	 * space until exit, which is only less thrifty. */
	if (!run->chained) {
		(void)fallocate(sp->files[run->file],
		    FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		    (off_t)run->off, (off_t)run->len);
		return;
	}
	for (i = 0; i < run->nframes; i++)
		(void)fallocate(sp->files[run->frames[i].file],
		    FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		    (off_t)run->frames[i].off, (off_t)run->frames[i].len);
}

static int
extent_cmp(const void *a, const void *b)
{
	const struct core_spill_extent *x = a, *y = b;

	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	return (x->off > y->off) - (x->off < y->off);
}

void
core_spill_runs_discard(struct core_spill *sp,
    const struct core_spill_run *const *runs, size_t n)
{
	struct core_spill_extent *e = NULL, *x;
	size_t ne = 0, cap = 0, i, j;

	for (i = 0; i < n; i++) {
		const struct core_spill_run *r = runs[i];
		size_t m = r->chained ? r->nframes : 1;

		if (m == 0 || (!r->chained && r->len == 0))
			continue;
		e = core_grow(e, &cap, ne + m, sizeof(*e), 64);
		if (!r->chained) {
			e[ne].file = r->file;
			e[ne].off = r->off;
			e[ne++].len = r->len;
			continue;
		}
		memcpy(e + ne, r->frames, m * sizeof(*e));
		ne += m;
	}
	if (ne == 0)
		return;
	qsort(e, ne, sizeof(*e), extent_cmp);
	/* Best effort, as core_spill_run_discard. */
	for (i = 0; i < ne; i = j) {
		x = &e[i];
		for (j = i + 1; j < ne && e[j].file == x->file &&
		    e[j].off == x->off + x->len; j++)
			x->len += e[j].len;
		(void)fallocate(sp->files[x->file],
		    FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		    (off_t)x->off, (off_t)x->len);
	}
	free(e);
}

static int
read_at(struct core_spill *sp, uint32_t f, void *buf, size_t n, uint64_t off,
    struct core_err *err)
{
	int fd = sp->files[f];
	size_t got = 0;
	ssize_t k;

	while (got < n) {
		k = pread(fd, (char *)buf + got, n - got, (off_t)(off + got));
		if (k < 0) {
			if (errno == EINTR)
				continue;
			return core_err_errno(err, CORE_EIO, errno,
			    "read error on %s", sp->names[f]);
		}
		if (k == 0)
			return core_err_set(err, CORE_ECORRUPT,
			    "%s: run ends early at byte %llu", sp->names[f],
			    (unsigned long long)(off + got));
		got += (size_t)k;
	}
	return 0;
}

static int
corrupt(struct core_spill *sp, const struct core_spill_cursor *c,
    const char *why, struct core_err *err)
{
	return core_err_set(err, CORE_ECORRUPT,
	    "%s: corrupt run at byte %llu: %s", sp->names[c->file],
	    (unsigned long long)c->pos, why);
}

int
core_spill_cursor_open(struct core_spill *sp, struct core_spill_cursor *c,
    const struct core_spill_run *run, struct core_err *err)
{
	unsigned char h[CORE_MLSPILL3_HEADER_FIXED];
	const char *why;
	uint64_t len;
	int rc;

	c->run = run;
	c->pos = run->off;
	c->file = run->file;
	c->rows = c->frames = 0;
	c->done = false;
	if (run->chained) {
		/* Its frames carry no stream header of their own. */
		if (run->nframes > 0) {
			c->pos = run->frames[0].off;
			c->file = run->frames[0].file;
		}
		return 0;
	}
	if ((rc = read_at(sp, run->file, h, sizeof(h), c->pos, err)) != 0)
		return rc;
	/* The header was written by this process for this schema; its
	 * length is all a reader needs from it. */
	if (core_mlspill3_header_len(h, sp->schema, &len, &why) != 0)
		return corrupt(sp, c, why, err);
	if (len > run->len)
		return corrupt(sp, c, "bad stream header", err);
	c->pos += len;
	return 0;
}

void
core_spill_frame_release(struct core_spill_frame *f, struct core_mem_part *mem)
{
	core_free_aligned(f->body);
	core_free_aligned(f->raw);
	f->body = f->raw = NULL;
	f->body_cap = f->raw_cap = 0;
	core_mem_part_release(mem, f->charged);
	f->charged = 0;
}

/* A frame keeps its buffers from one read to the next (fresh pages cost
 * a fault each); only growth is allocated (core_reuse_size) and
 * charged. */
static void
grow(unsigned char **buf, uint64_t *cap, uint64_t need,
    struct core_spill_frame *f, struct core_mem_part *mem)
{
	if (need <= *cap)
		return;
	need = (core_reuse_size((size_t)need) + 63) & ~(uint64_t)63;
	core_free_aligned(*buf);
	*buf = core_xmalloc_aligned((size_t)need);
	core_mem_part_charge(mem, need - *cap);
	f->charged += need - *cap;
	*cap = need;
}

/* Reads the end record whose header is rec, and checks its counts. */
static int
read_end(struct core_spill *sp, struct core_spill_cursor *c,
    const struct core_mlspill3_record *rec, struct core_err *err)
{
	unsigned char body[CORE_MLSPILL3_END_BODY];
	uint64_t rows, frames;
	const char *why;
	int rc;

	if ((rc = read_at(sp, c->file, body, sizeof(body),
	    c->pos + CORE_MLSPILL3_RECORD_HDR, err)) != 0)
		return rc;
	if (core_mlspill3_end_parse(rec, body, &rows, &frames, &why) != 0)
		return corrupt(sp, c, why, err);
	if (rows != c->rows || frames != c->frames || c->rows != c->run->rows)
		return corrupt(sp, c, "row count mismatch", err);
	c->done = true;
	return CORE_EOF;
}

int
core_spill_read_frame(struct core_spill *sp, struct core_spill_cursor *c,
    struct core_spill_frame *f, struct core_mem_part *mem,
    struct core_err *err)
{
	const struct core_spill_run *run = c->run;
	unsigned char h[CORE_MLSPILL3_RECORD_HDR];
	struct core_mlspill3_record rec;
	uint64_t zbytes, lim = run->off + run->len;
	const unsigned char *body = NULL;
	const char *why;
	int rc;

	if (c->done)
		return CORE_EOF;
	if (run->chained) {
		/* A chained run ends with its list; no end record is its. */
		if (c->frames == run->nframes) {
			if (c->rows != run->rows)
				return corrupt(sp, c, "row count mismatch",
				    err);
			c->done = true;
			return CORE_EOF;
		}
		c->pos = run->frames[c->frames].off;
		c->file = run->frames[c->frames].file;
		lim = c->pos + run->frames[c->frames].len;
	}
	/* Nothing outside the run is read: a cut run is not the next. */
	if (c->pos + sizeof(h) > lim)
		return corrupt(sp, c, "record past the end of the run", err);
	if (run->chained) {
		/* The extent is the record: read whole, with one call (the
		 * record header 32 bytes, so the body stays aligned). */
		uint64_t len = lim - c->pos;

		if (len > CORE_MLSPILL3_RECORD_HDR + CORE_MLSPILL3_MAX_BODY)
			return corrupt(sp, c, "frame too long", err);
		grow(&f->body, &f->body_cap, len, f, mem);
		if ((rc = read_at(sp, c->file, f->body, (size_t)len, c->pos,
		    err)) != 0)
			return rc;
		memcpy(h, f->body, sizeof(h));
		body = f->body + CORE_MLSPILL3_RECORD_HDR;
	} else if ((rc = read_at(sp, c->file, h, sizeof(h), c->pos,
	    err)) != 0) {
		return rc;
	}
	if (core_mlspill3_record_parse(h, sp->schema, &rec, &why) != 0)
		return corrupt(sp, c, why, err);
	if (c->pos + rec.len > lim ||
	    (run->chained && c->pos + rec.len != lim))
		return corrupt(sp, c, "record past the end of the run", err);
	if (rec.kind == CORE_MLSPILL3_END) {
		if (run->chained)
			return corrupt(sp, c, "end record in a chained run",
			    err);
		return read_end(sp, c, &rec, err);
	}
	if (!run->chained) {
		grow(&f->body, &f->body_cap, rec.body_len, f, mem);
		if ((rc = read_at(sp, c->file, f->body, (size_t)rec.body_len,
		    c->pos + CORE_MLSPILL3_RECORD_HDR, err)) != 0)
			return rc;
		body = f->body;
	}
	if (core_mlspill3_body_verify(&rec, body, &why) != 0 ||
	    core_mlspill3_body_scan(sp->schema, body, rec.body_len,
	    &zbytes, &why) != 0)
		return corrupt(sp, c, why, err);
	if (zbytes > 0)
		grow(&f->raw, &f->raw_cap, zbytes, f, mem);
	if (core_mlspill3_body_decode(sp->schema, body, rec.body_len,
	    (uint32_t)rec.nrows, sp->codec, f->raw, &f->batch, &why) != 0)
		return corrupt(sp, c, why, err);
	f->batch.nrows = (uint32_t)rec.nrows;
	c->pos += rec.len;
	c->rows += rec.nrows;
	c->frames++;
	return 0;
}
