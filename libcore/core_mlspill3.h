/*
 * core_mlspill3.h - the MLSPILL3 stream: writer and reader.
 *
 * MLSPILL3 is colpipe's one framing for pipes, .col files and spill files;
 * its byte layout is specified in mlspill3(5).  In short: a stream header
 * (magic, version, schema, checksum), then one frame per batch (a 32-byte
 * record header with its own check, then per column a directory of
 * validity/offsets/values buffers, each 8-byte aligned and optionally
 * zstd-compressed, the body checksummed with XXH3-64), then an end record
 * with the stream's row and frame counts.  Complete streams with the same
 * schema may follow each other.
 *
 * The writer emits each frame with one writev(2).  The reader hands out
 * batches whose buffers are views of its own memory (no copy unless the
 * buffer was compressed), valid until the next read call.
 */
#ifndef CORE_MLSPILL3_H
#define CORE_MLSPILL3_H

#include <stdbool.h>
#include <stdint.h>

#include "core_col.h"
#include "core_err.h"

#define CORE_MLSPILL3_MAGIC "MLSPILL3"
#define CORE_MLSPILL3_MAJOR 1
#define CORE_MLSPILL3_MINOR 0

/* Largest frame body a reader accepts: bounds what a damaged length field
 * can make it allocate. */
#define CORE_MLSPILL3_MAX_BODY ((uint64_t)1 << 32)

struct core_mlspill3_writer;

/* Writes to fd (not owned; name is for messages and borrowed).  schema is
 * borrowed for the writer's life.  zstd_level 0 stores buffers raw;
 * 1..19 compresses each buffer that shrinks.  The header is written by the
 * first write_batch or by finish. */
/* 0, or CORE_ELIMIT (naming name) when no MLSPILL3 reader would take a
 * stream of schema s: too many columns or bytes of names.  The writer
 * checks it; a stage whose output schema is not its input's (coljoin)
 * checks it before reading any data. */
int core_mlspill3_schema_fits(const struct core_schema *s,
    const char *name, struct core_err *err);
struct core_mlspill3_writer *core_mlspill3_writer_new(int fd,
    const char *name, const struct core_schema *schema, int zstd_level);
/* Writes b as one frame (nothing for an empty batch). */
int core_mlspill3_write_batch(struct core_mlspill3_writer *w,
    const struct core_batch *b, struct core_err *err);
/*
 * From now on frames are written on a helper thread of pool (borrowed,
 * kept for the writer's life; NULL changes nothing).  write_batch returns once the frame is handed over;
 * the batch's buffers (not the batch struct, which is copied) must stay
 * unchanged until the next write_batch or finish returns, which wait for
 * the frame before.  A failed frame's error is returned by the next call.
 * Stats then count the frames waited for.
 */
struct core_pool;
void core_mlspill3_writer_async(struct core_mlspill3_writer *w,
    struct core_pool *pool);
/* Writes a frame record exactly as a reader of a stream of the same
 * schema handed it out (core_mlspill3_reader_next_raw): len bytes, nrows
 * rows.  Not on an async writer. */
int core_mlspill3_write_raw(struct core_mlspill3_writer *w, const void *p,
    size_t len, uint32_t nrows, struct core_err *err);
/* Writes the end-of-stream record.  Without it readers report the
 * stream as truncated, which is what a failing producer wants. */
int core_mlspill3_writer_finish(struct core_mlspill3_writer *w,
    struct core_err *err);
void core_mlspill3_writer_free(struct core_mlspill3_writer *w);

struct core_mlspill3_stats {
	uint64_t rows;
	uint64_t frames;
	uint64_t bytes;		/* stream bytes written or read */
	uint64_t streams;	/* reader: streams (concatenated) read */
};
void core_mlspill3_writer_stats(const struct core_mlspill3_writer *w,
    struct core_mlspill3_stats *st);

struct core_mlspill3_reader;

/* Opens paths in turn ("-" = stdin; npaths == 0 reads stdin) and reads
 * the first stream header, so the schema is known on success.  Every
 * further stream, concatenated or in a later file, must have the same
 * schema.  paths are borrowed for the reader's life. */
int core_mlspill3_reader_new(const char *const *paths, size_t npaths,
    struct core_mlspill3_reader **out, struct core_err *err);
/* The same on an open fd (not owned), e.g. a spill file rewound to 0. */
int core_mlspill3_reader_new_fd(int fd, const char *name,
    struct core_mlspill3_reader **out, struct core_err *err);
void core_mlspill3_reader_free(struct core_mlspill3_reader *r);

/* Borrowed, valid for the reader's life. */
const struct core_schema *core_mlspill3_reader_schema(
    const struct core_mlspill3_reader *r);

/* Fills b (core_batch_init'ed on the reader's schema) with the next frame:
 * 0, CORE_EOF after the last complete stream, or a negative code:
 * CORE_ETRUNC (stream ends without its end record), CORE_ECORRUPT
 * (checksum or structure), CORE_EDATA (schema mismatch, not MLSPILL3,
 * unsupported version), CORE_EIO. */
int core_mlspill3_reader_next(struct core_mlspill3_reader *r,
    struct core_batch *b, struct core_err *err);

void core_mlspill3_reader_stats(const struct core_mlspill3_reader *r,
    struct core_mlspill3_stats *st);

/* The input the last frame came from ("stdin" or its path; valid until
 * the next read call), and the rows read from it so far, that frame's
 * included: messages about a row name the file and the row in it. */
const char *core_mlspill3_reader_name(const struct core_mlspill3_reader *r);
uint64_t core_mlspill3_reader_file_rows(
    const struct core_mlspill3_reader *r);

/*
 * As core_mlspill3_reader_new over the one path (borrowed for the
 * reader's life; "-" is stdin), which must be a pipe, as must tee_fd:
 * every byte is duplicated to tee_fd with tee(2) before it is read, so
 * that tee_fd gets the input exactly as it came, checked by this reader
 * as it passes (a bad frame has gone on before it is found: the reader
 * behind tee_fd finds it too).  For a stage that changes nothing; it
 * costs one copy of the data where a read and a write cost two.  Errors
 * on tee_fd are CORE_EPIPE or CORE_EIO naming tee_name (borrowed).
 */
int core_mlspill3_reader_new_tee(const char *path, int tee_fd,
    const char *tee_name, struct core_mlspill3_reader **out,
    struct core_err *err);

/*
 * The next frame as its record's bytes (header and body, len of them,
 * nrows rows; valid until the next read call), its checksum and layout
 * verified but nothing decoded: for a stage that passes frames on as
 * they are (core_mlspill3_write_raw).  0, CORE_EOF, or next's errors.
 */
int core_mlspill3_reader_next_raw(struct core_mlspill3_reader *r,
    const void **p, size_t *len, uint32_t *nrows, struct core_err *err);

/*
 * Leaves out of the batches next fills the columns with want[i] false
 * (want: borrowed, one flag per schema column; NULL: every column).
 * Their buffers are covered by the frame's checksum, which is verified,
 * but are neither expanded nor checked further, and the batch's column
 * is empty (NULL buffers): a scan that reads three columns of twenty
 * pays for three.
 */
void core_mlspill3_reader_want(struct core_mlspill3_reader *r,
    const bool *want);

/*
 * From now on a batch from next stays valid until the second read call
 * after it, not the first: one more batch can be read while it is still
 * in use (formatted on another thread).  Costs a second read buffer and
 * a second buffer of expanded (compressed) data.
 */
void core_mlspill3_reader_keep_last(struct core_mlspill3_reader *r);

/*
 * From now on each frame is read, verified and decoded on a helper of
 * pool (borrowed; NULL: no change) while the caller works on the batch
 * it was handed before (not when a later path is a FIFO, whose open
 * waits for a writer; from a pipe the read waits in poll(2), which free
 * ends, so a writer that neither writes nor closes holds nothing up): next hands over the frame read ahead and starts
 * on the one after it.  A batch stays valid until the next read call,
 * as without read-ahead; stats and errors are as of the batches handed
 * over, in order.  Costs what keep_last costs (which it turns on: do
 * not also ask for keep_last's longer validity).  The pool must be used
 * by nothing else between read calls (core_pool.h: one thread at a
 * time); core_mlspill3_reader_free waits for a read under way, so free
 * the reader before the pool.  name and file_rows would describe the
 * frame being read ahead, so a caller that needs them does not ask for
 * this.  Not for next_raw, which stays synchronous (and must not be
 * mixed in).
 */
void core_mlspill3_reader_read_ahead(struct core_mlspill3_reader *r,
    struct core_pool *pool);

/*
 * From now on next fills b with a frame's row count only (every column
 * empty).  On a regular file the frame bodies are skipped with lseek(2),
 * neither read nor verified; every record header and end record is
 * still read and checked, so a stream cut short is reported as
 * truncated all the same.  On a pipe the bodies are read and verified.
 */
void core_mlspill3_reader_count_only(struct core_mlspill3_reader *r);

/* Readers inside libcore that fetch a stream's bytes themselves (spill
 * files, read with pread(2)) parse them with core_mlspill3_record.h. */

#endif
