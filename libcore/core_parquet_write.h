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
 *     column_orders TypeDefinedOrder; a string longer than
 *     CORE_PARQUET_STATS_MAX cut to a bound, see core_parquet_stats_lower),
 *     is_min_value_exact/is_max_value_exact, null_count and, for DOUBLE,
 *     nan_count;
 *   - a page index after each column chunk: its OffsetIndex (every
 *     column) and, with statistics on, its ColumnIndex for INT32 and
 *     INT64 columns (per page min, max, NULL count, all-NULL flag), so a
 *     reader can skip pages as well as row groups.
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

/* Whether a column chunk is dictionary-encoded.  Bool columns never are,
 * whatever their mode. */
enum core_parquet_dict {
	CORE_PARQUET_DICT_AUTO,	/* where it is smaller than PLAIN */
	CORE_PARQUET_DICT_ON,	/* always, until the dictionary is full */
	CORE_PARQUET_DICT_OFF,
};

#define CORE_PARQUET_DEFAULT_ROW_GROUP_ROWS (1u << 18)
#define CORE_PARQUET_DEFAULT_ROW_GROUP_BYTES (32u << 20)
#define CORE_PARQUET_DEFAULT_PAGE_BYTES (1u << 20)
#define CORE_PARQUET_DEFAULT_DICT_BYTES (1u << 20)
#define CORE_PARQUET_DEFAULT_ZSTD_LEVEL 1
#define CORE_PARQUET_DEFAULT_GZIP_LEVEL 6
/* A data page also ends after this many values (NULLs included), so a
 * column of NULLs cannot grow one page without bound. */
#define CORE_PARQUET_PAGE_MAX_VALUES (1u << 20)
/* Longest min_value or max_value written: a longer string minimum or
 * maximum is cut to a bound of at most this many bytes (below). */
#define CORE_PARQUET_STATS_MAX 4096

struct core_parquet_options {
	enum core_parquet_codec codec;
	int level;			/* zstd 1..22, gzip 1..9 */
	uint64_t row_group_rows;	/* >= 1 */
	uint64_t row_group_bytes;	/* >= 1 */
	uint64_t page_bytes;		/* >= 1 */
	uint64_t dict_bytes;		/* dictionary limit per column chunk */
	enum core_parquet_dict dict;	/* every column's mode ... */
	/* ... unless this is not NULL: then col_dict[i] is column i's, one
	 * entry per column of the schema given to core_parquet_writer_new,
	 * which reads it (borrowed) during that call only.  Callers that
	 * name columns resolve the names against the schema first. */
	const enum core_parquet_dict *col_dict;
	bool statistics;
	/* Timestamps as UTC instants (isAdjustedToUTC true, with the
	 * TIMESTAMP_MICROS converted type that implies it); false, the
	 * default: as zone-less wall-clock values, which is what a
	 * timestamp column holds unless its source said UTC. */
	bool timestamps_utc;
	unsigned threads;		/* encoding threads: 1 or 2; 0 = 2
					   when the machine has two cores */
};

/* Defaults: snappy, the sizes above, dictionary auto for every column
 * (col_dict NULL), statistics on. */
void core_parquet_options_init(struct core_parquet_options *o);

/* Parses "none", "uncompressed", "snappy", "gzip[:L]", "zstd[:L]" into
 * o->codec and o->level; CORE_EUSAGE with a message otherwise. */
int core_parquet_codec_parse(const char *s, struct core_parquet_options *o,
    struct core_err *err);

struct core_pool;
struct core_parquet_writer;

/* Starts a file on out (borrowed; every byte goes through it and is
 * counted from 0 at this call).  schema is borrowed for the writer's life,
 * o is copied (o->col_dict is read here, not kept).  The file's leading
 * magic is written here. */
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

/* The pool w encodes on (NULL: one thread), for work of the caller's
 * that should share its helper between write calls, e.g. reading the
 * input ahead (core_mlspill3_reader_read_ahead): a helper busy with it
 * when a batch is encoded joins the encoding once it is done, and the
 * caller encodes the rest.  Valid until core_parquet_writer_free. */
struct core_pool *core_parquet_writer_pool(
    const struct core_parquet_writer *w);

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
 * Bounds for string statistics longer than limit bytes (the writer's limit
 * is CORE_PARQUET_STATS_MAX); public for the unit tests.  parquet.thrift
 * lets min_value and max_value be any bounds of the column chunk's values
 * (is_min_value_exact/is_max_value_exact then false), and readers compare
 * them as unsigned bytes, so any prefix of the minimum is a lower bound
 * and any string that passes the maximum at some byte is an upper bound.
 * A cut is kept off the inside of a UTF-8 sequence where it can be, so
 * that the bounds of UTF-8 strings are UTF-8 too.
 *
 * core_parquet_stats_lower returns the length of the lower bound, a
 * prefix of p: n when n <= limit; else limit, or less when a well-formed
 * UTF-8 sequence starts before byte limit and ends after it: then the cut
 * is where that sequence starts (at most 3 bytes earlier).
 *
 * core_parquet_stats_upper writes the upper bound to out (room for limit
 * bytes) and its length to *outn: p itself when n <= limit.  Else, walking
 * back over the code points of P, the lower bound's prefix: the first one
 * that has a successor (not U+10FFFF; U+D7FF's is U+E000) whose encoding
 * still ends within limit bytes is replaced by that successor, and what
 * follows it is dropped.  UTF-8's byte order is code point order, so that
 * passes p, and it is UTF-8 (parquet.thrift wants bounds that are values
 * of the column's logical type, here STRING).  Should the walk meet a byte
 * that is not part of a well-formed sequence (p is not UTF-8), the byte
 * rule decides instead: of p's first limit bytes, the last one that is
 * not 0xff is incremented and those after it are dropped.  False when no
 * bound fits: P holds only U+10FFFF, or (byte rule) limit bytes of 0xff.
 */
size_t core_parquet_stats_lower(const uint8_t *p, size_t n, size_t limit);
bool core_parquet_stats_upper(const uint8_t *p, size_t n, size_t limit,
    uint8_t *out, size_t *outn);

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
	uint32_t *lit;		/* owned, lit_cap (a multiple of 8, at
				   most 512): grown as literals come, as
				   a column's definition levels often
				   have few or none */
	unsigned lit_cap;
};

void core_parquet_rle_init(struct core_parquet_rle *r, int width);
/* Empties the output and sets a new width; keeps the buffer. */
void core_parquet_rle_reset(struct core_parquet_rle *r, int width);
void core_parquet_rle_release(struct core_parquet_rle *r);
void core_parquet_rle_put_run(struct core_parquet_rle *r, uint32_t v,
    uint64_t n);
/* The n values of v in turn. */
void core_parquet_rle_put_array(struct core_parquet_rle *r,
    const uint32_t *v, size_t n);
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
