/*
 * core_parquet_write.h - a streaming Parquet file writer.
 *
 * Batches go in as they come; the file goes out front to back, so it can
 * be written to a pipe.  Rows are gathered into a row group until
 * row_group_rows rows or row_group_bytes of buffered, encoded data (see
 * below), then the row group is written: per column its dictionary page
 * (when the column chunk used one) and its data pages.  The footer (schema,
 * row group and column chunk metadata, statistics) follows the last row
 * group.
 *
 * What the file holds (parquet-format's parquet.thrift and Encodings.md):
 *   - every column OPTIONAL, definition levels in the RLE/bit-packed
 *     hybrid (bit width 1, 4-byte length prefix: data page V1);
 *   - physical and logical types: bool BOOLEAN; int32 INT32; int64 INT64;
 *     float64 DOUBLE; decimal(p,s) INT32 (p <= 9) or INT64 with
 *     DECIMAL(p,s); date INT32 DATE; timestamp INT64
 *     TIMESTAMP(MICROS, isAdjustedToUTC); string BYTE_ARRAY STRING; the
 *     legacy converted type is set beside each logical type;
 *   - PLAIN encoding, or a PLAIN dictionary page with RLE_DICTIONARY data
 *     pages where the dictionary pays, falling back to PLAIN for the rest
 *     of a column chunk once its dictionary grows past dict_bytes;
 *   - per column chunk min/max (strings as unsigned bytes, NaN left out,
 *     column_orders TypeDefinedOrder), null_count and, for DOUBLE,
 *     nan_count.
 *
 * Memory: the open row group's compressed pages are held until it is
 * written; they and the dictionaries to come count towards
 * row_group_bytes, checked after every slice of a batch.  Besides that,
 * each column keeps scratch that does not grow with the input: its open
 * page (at most page_bytes of PLAIN values plus one value, or the
 * dictionary indices of that many values, and its definition levels) and
 * its dictionary (at most dict_bytes, and a hash table of four bytes a
 * slot kept under half full, so at most 2 * dict_bytes for 4-byte
 * values).  So the writer's memory is at most about
 * row_group_bytes + ncols * (page_bytes + 4 * dict_bytes), whatever the
 * size of the input.
 */
#ifndef CORE_PARQUET_WRITE_H
#define CORE_PARQUET_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core_col.h"
#include "core_err.h"
#include "core_io.h"

/* CompressionCodec values of parquet.thrift. */
enum core_parquet_codec {
	CORE_PARQUET_UNCOMPRESSED = 0,
	CORE_PARQUET_SNAPPY = 1,
	CORE_PARQUET_GZIP = 2,
	CORE_PARQUET_ZSTD = 6,
};

enum core_parquet_dict {
	CORE_PARQUET_DICT_AUTO,	/* where it is smaller than PLAIN */
	CORE_PARQUET_DICT_ON,	/* always, until the dictionary is full */
	CORE_PARQUET_DICT_OFF,
};

#define CORE_PARQUET_DEFAULT_ROW_GROUP_ROWS (1u << 18)
#define CORE_PARQUET_DEFAULT_ROW_GROUP_BYTES (32u << 20)
#define CORE_PARQUET_DEFAULT_PAGE_BYTES (1u << 20)
#define CORE_PARQUET_DEFAULT_DICT_BYTES (1u << 20)
#define CORE_PARQUET_DEFAULT_ZSTD_LEVEL 3
#define CORE_PARQUET_DEFAULT_GZIP_LEVEL 6
/* A data page also ends after this many values (NULLs included), so a
 * column of NULLs cannot grow one page without bound. */
#define CORE_PARQUET_PAGE_MAX_VALUES (1u << 20)
/* Longest string kept as a min or max statistic; a column chunk with a
 * longer minimum or maximum gets no min/max (null_count still). */
#define CORE_PARQUET_STATS_MAX 4096

struct core_parquet_options {
	enum core_parquet_codec codec;
	int level;			/* zstd 1..22, gzip 1..9 */
	uint64_t row_group_rows;	/* >= 1 */
	uint64_t row_group_bytes;	/* >= 1 */
	uint64_t page_bytes;		/* >= 1 */
	uint64_t dict_bytes;		/* dictionary limit per column chunk */
	enum core_parquet_dict dict;
	bool statistics;
	unsigned threads;		/* encoding threads: 1 or 2; 0 = 2
					   when the machine has two cores */
};

/* Defaults: snappy, the sizes above, dictionary auto, statistics on. */
void core_parquet_options_init(struct core_parquet_options *o);

/* Parses "none", "uncompressed", "snappy", "gzip[:L]", "zstd[:L]" into
 * o->codec and o->level; CORE_EUSAGE with a message otherwise. */
int core_parquet_codec_parse(const char *s, struct core_parquet_options *o,
    struct core_err *err);

struct core_parquet_writer;

/* Starts a file on out (borrowed; every byte goes through it and is
 * counted from 0 at this call).  schema is borrowed for the writer's life,
 * o is copied.  The file's leading magic is written here. */
int core_parquet_writer_new(struct core_output *out,
    const struct core_schema *schema, const struct core_parquet_options *o,
    struct core_parquet_writer **w, struct core_err *err);

/* Adds the rows of b (a batch of the writer's schema).  May write whole
 * row groups.  CORE_EIO/CORE_EPIPE from the output, CORE_EDATA for a
 * decimal that does not fit its precision, CORE_ELIMIT for a page over
 * 2 GiB. */
int core_parquet_write_batch(struct core_parquet_writer *w,
    const struct core_batch *b, struct core_err *err);

/* Writes the last row group and the footer, then flushes out.  Without
 * it the output is not a Parquet file (it has no footer). */
int core_parquet_writer_finish(struct core_parquet_writer *w,
    struct core_err *err);

void core_parquet_writer_free(struct core_parquet_writer *w);

struct core_parquet_stats {
	uint64_t rows;
	uint64_t row_groups;
	uint64_t pages;		/* data and dictionary pages */
	uint64_t dict_chunks;	/* column chunks with a dictionary */
	uint64_t bytes;		/* file bytes written so far */
	uint64_t peak_buffered;	/* most bytes held for one row group */
};
void core_parquet_writer_stats(const struct core_parquet_writer *w,
    struct core_parquet_stats *st);

/*
 * The RLE/bit-packing hybrid encoder (Encodings.md), used for definition
 * levels and dictionary indices; public for the unit tests.  Values are
 * fed one at a time or as runs; the encoder keeps a run of equal values
 * open and emits it as an RLE run once it reaches 8 values, other values
 * go out as bit-packed groups of 8 (the last group zero-padded).
 */
struct core_parquet_rle {
	uint8_t *buf;		/* owned output; len bytes */
	size_t len, cap;
	int width;		/* bits per value, 1..32 */
	uint32_t cur;		/* value of the open run */
	uint64_t rep;		/* length of the open run (0 = none) */
	unsigned nlit;		/* values waiting in lit to be bit-packed */
	uint32_t lit[512];
};

void core_parquet_rle_init(struct core_parquet_rle *r, int width);
/* Empties the output and sets a new width; keeps the buffer. */
void core_parquet_rle_reset(struct core_parquet_rle *r, int width);
void core_parquet_rle_release(struct core_parquet_rle *r);
void core_parquet_rle_put_run(struct core_parquet_rle *r, uint32_t v,
    uint64_t n);
static inline void
core_parquet_rle_put(struct core_parquet_rle *r, uint32_t v)
{
	if (r->rep > 0 && v == r->cur)
		r->rep++;
	else
		core_parquet_rle_put_run(r, v, 1);
}
/* Emits everything pending; buf/len then hold the encoded runs. */
void core_parquet_rle_finish(struct core_parquet_rle *r);

/* Bits needed for values 0..maxv (at least 1). */
int core_parquet_bit_width(uint32_t maxv);

#endif
