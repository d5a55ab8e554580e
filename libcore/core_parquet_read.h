/*
 * core_parquet_read.h - a Parquet file reader: the footer, the schema as
 * colpipe types, and batches of a projection of the columns.
 *
 * Opening a file reads only its footer (FileMetaData, parquet-format's
 * parquet.thrift): the schema, the row groups and their row counts, and
 * where each column chunk lies.  Row counts come from the footer alone,
 * so counting rows never touches a data page.  A scan then reads, row
 * group by row group, only the column chunks of the columns it was given
 * (one pread of each chunk's byte range) and decodes their pages into
 * struct core_batch batches of at most CORE_PARQUET_READ_BATCH_ROWS rows;
 * a batch never spans two row groups.
 *
 * The columns are the top-level fields of the file's schema.  A flat one
 * (a leaf, REQUIRED or OPTIONAL) maps to a colpipe type:
 *   BOOLEAN -> bool; INT32 -> int32 (INT(8|16|32), UINT(8|16) too),
 *   UINT(32) -> int64; INT64 -> int64 (UINT(64) too: a value past
 *   INT64_MAX is an error); DATE -> date; DECIMAL(p<=18,s) in INT32,
 *   INT64, FIXED_LEN_BYTE_ARRAY or BYTE_ARRAY -> decimal(p,s), and
 *   DECIMAL(19<=p<=38,s) in the byte arrays -> decimal(p,s) as
 *   decimal128;
 *   TIMESTAMP(MILLIS|MICROS|NANOS) and INT96 -> timestamp (microseconds;
 *   nanoseconds round towards minus infinity; local and UTC alike; INT96
 *   computed modulo 2^64 as Spark writes it);
 *   FLOAT, DOUBLE, FLOAT16 -> float64; BYTE_ARRAY (STRING, ENUM, JSON,
 *   BSON or none) and FIXED_LEN_BYTE_ARRAY without a numeric annotation
 *   -> string (bytes as they are); UUID -> string, in the 8-4-4-4-12
 *   lowercase hex form.
 * Anything else (groups, repeated fields, TIME, INTERVAL, decimals of more
 * than 38 digits, or more than 18 in INT32/INT64) is listed with supported false and a reason, and is an
 * error naming it only when a scan selects it.
 *
 * Reading: pages v1 and v2; PLAIN, PLAIN_DICTIONARY and RLE_DICTIONARY,
 * RLE (booleans), DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY,
 * DELTA_BYTE_ARRAY, BYTE_STREAM_SPLIT values; definition levels in RLE or
 * the old BIT_PACKED encoding; codecs uncompressed, snappy, gzip, zstd,
 * brotli, lz4_raw and lz4 (Hadoop's framing, or a raw block).  Page
 * checksums are not read; the column chunks' statistics are, for a
 * caller to skip row groups with (core_parquet_scan_skip), and the page
 * index (ColumnIndex, OffsetIndex) for pages (core_parquet_scan_prune).
 *
 * Bad files: every length, offset, count and dictionary index read from
 * the file is checked before it is used; a file that fails a check gives
 * CORE_ECORRUPT (structure: footer, page headers, offsets) or CORE_EDATA
 * (values: levels, indices, encoded data), with a message naming the
 * file, and the row group and column where there is one.  No allocation
 * is larger than what the file's sizes allow: the footer, the chunks
 * read, and pages of at most their codec's largest expansion of their
 * compressed size (at most 1 GiB; core_parquet_read_decode.c).
 *
 * Memory of a scan: the selected columns' compressed chunks of one row
 * group, one decompressed page and the dictionary of each, and the batch.
 *
 * A file and its scans are used by one thread at a time (a scan may
 * lend its batches' columns to a pool's threads: core_parquet_scan_pool).
 */
#ifndef CORE_PARQUET_READ_H
#define CORE_PARQUET_READ_H

#include <stdbool.h>
#include <stdint.h>

#include "core_col.h"
#include "core_err.h"
#include "core_prune.h"

#define CORE_PARQUET_READ_BATCH_ROWS 4096

struct core_parquet_file;

/* A top-level column of the file. */
struct core_parquet_column {
	const char *name;		/* owned by the file */
	struct core_coltype type;	/* meaningful when supported */
	bool supported;
	const char *why;		/* static; why not, when not */
};

/* Opens path and reads its footer.  *f is the caller's, freed with
 * core_parquet_file_free.  CORE_EIO when the file cannot be read,
 * CORE_ECORRUPT when it is not a Parquet file or its footer is bad. */
int core_parquet_file_open(const char *path, struct core_parquet_file **f,
    struct core_err *err);
/* The same on an open descriptor (borrowed: it must stay open until the
 * file is freed; it is read with pread only).  name is copied, for
 * messages. */
int core_parquet_file_open_fd(int fd, const char *name,
    struct core_parquet_file **f, struct core_err *err);
void core_parquet_file_free(struct core_parquet_file *f);

uint32_t core_parquet_file_ncols(const struct core_parquet_file *f);
/* Column i < ncols; borrowed from f. */
const struct core_parquet_column *core_parquet_file_column(
    const struct core_parquet_file *f, uint32_t i);
/* Index of the column called name, or -1. */
int core_parquet_file_find(const struct core_parquet_file *f,
    const char *name);
uint32_t core_parquet_file_nrow_groups(const struct core_parquet_file *f);
/* Rows of row group rg < nrow_groups, and of the whole file (the sum). */
uint64_t core_parquet_file_row_group_rows(const struct core_parquet_file *f,
    uint32_t rg);
uint64_t core_parquet_file_nrows(const struct core_parquet_file *f);
/* The writer's created_by, or ""; borrowed from f. */
const char *core_parquet_file_created_by(const struct core_parquet_file *f);

struct core_parquet_scan;

/*
 * Starts reading columns cols[0..ncols) of f (indices; copied; a column
 * may be given more than once) from the first row group on.  f is
 * borrowed for the scan's life.  CORE_EUSAGE for an index out of range,
 * CORE_EDATA naming the first column selected that is not supported.
 * With ncols 0 the batches have rows and no columns.
 */
int core_parquet_scan_new(struct core_parquet_file *f, const uint32_t *cols,
    uint32_t ncols, struct core_parquet_scan **s, struct core_err *err);
void core_parquet_scan_free(struct core_parquet_scan *s);

/* Decodes each batch's columns on the threads of pool (borrowed for the
 * scan's life; NULL or one thread: the caller alone), each column on
 * one thread; the batches are the same whatever the thread count. */
struct core_pool;
void core_parquet_scan_pool(struct core_parquet_scan *s,
    struct core_pool *pool);

/* The schema of the batches: the selected columns in order; borrowed
 * from the scan. */
const struct core_schema *core_parquet_scan_schema(
    const struct core_parquet_scan *s);

/*
 * Fills b (initialised by the caller with core_batch_init on the scan's
 * schema; it owns its buffers, which are reused from call to call) with
 * the next rows: 0 and b->nrows >= 1, CORE_EOF after the last row, or an
 * error (CORE_EIO, CORE_ECORRUPT, CORE_EDATA, CORE_ELIMIT when one batch
 * of a string column would pass 2 GiB).  After an error the scan is done.
 */
int core_parquet_scan_next(struct core_parquet_scan *s, struct core_batch *b,
    struct core_err *err);

/*
 * One batch in two steps, for a filter that reads some columns and shows
 * others: next_cols decodes the next rows of the scan's columns with
 * first[i] set (first: borrowed until next_rest; NULL: every column, and
 * it is next), leaving the others' buffers as they were; next_rest then
 * decodes the other columns for the same rows, copying the strings of
 * only the rows with mask[row] set (b->nrows bytes, borrowed for the
 * call; the other rows' strings come out empty).  Each next_cols with
 * first must be followed by its next_rest.
 */
int core_parquet_scan_next_cols(struct core_parquet_scan *s,
    struct core_batch *b, const bool *first, struct core_err *err);
int core_parquet_scan_next_rest(struct core_parquet_scan *s,
    struct core_batch *b, const uint8_t *mask, struct core_err *err);

struct core_parquet_scan_stats {
	uint64_t row_groups;	/* row groups read */
	/* By core_parquet_scan_skip, their dictionaries, or their pages
	 * all ruled out (core_parquet_scan_prune). */
	uint64_t row_groups_skipped;
	uint64_t pages;		/* data and dictionary pages decoded */
	uint64_t pages_skipped;	/* data pages ruled out by a page index */
	uint64_t bytes;		/* file bytes read: chunks, page indexes */
};
void core_parquet_scan_stats(const struct core_parquet_scan *s,
    struct core_parquet_scan_stats *st);

/*
 * The statistics of column col's chunk in row group rg, in colpipe's
 * domain (core_prune.h): the NULL count when the file has it, min and
 * max when the file has them in a form that orders as colpipe orders the
 * column's values (integers, dates, timestamps, decimals; decimals in
 * byte arrays and strings from the exact min_value/max_value fields
 * only).
 * Returns whether anything is known; rows is always set.  Strings are
 * borrowed from f.
 */
bool core_parquet_file_colstats(const struct core_parquet_file *f,
    uint32_t rg, uint32_t col, struct core_colstats *st);

/* Row groups with skip[rg] set (nrow_groups flags, copied; NULL: none)
 * are passed over without a byte of them read.  Before the first next. */
void core_parquet_scan_skip(struct core_parquet_scan *s, const bool *skip);

/*
 * Pages too: in each row group read, the pages of the columns p reads
 * (core_prune_columns) whose ColumnIndex min, max and NULL counts prove
 * that no row of theirs passes are ruled out, and the scan hands out
 * only the other rows (the batches then hold fewer rows than the row
 * group; the answers of a filter over them are the same).  p is over a
 * schema of n columns, its column j the file's column map[j]; p and map
 * are borrowed for the scan's life (NULL p: no page pruning).  Of the
 * scan's columns with an OffsetIndex, only the pages holding rows left
 * are read.  A page index that does not fit its chunk is CORE_ECORRUPT
 * naming the file, row group and column.  And whole row groups: one
 * whose chunk of a column p has an = or IN term on (core_prune_has_eq)
 * is dictionary-encoded throughout and whose dictionary holds no value
 * that may pass is skipped after only that dictionary page is read.
 * Before the first next.
 */
void core_parquet_scan_prune(struct core_parquet_scan *s,
    const struct core_prune *p, const uint32_t *map, uint32_t n);

#endif
