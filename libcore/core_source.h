/*
 * core_source.h - the inputs of a reading stage as one table: MLSPILL3
 * streams and Parquet files, told apart by their bytes.
 *
 * Each path is opened in turn when the one before is done ("-" is
 * stdin; no path at all is stdin).  A regular file that begins with
 * "PAR1" is read as Parquet (core_parquet_read), anything else as
 * MLSPILL3 (core_mlspill3, which accepts concatenated streams).  Every
 * input must have the first one's columns, names and types alike; the
 * first difference is CORE_EDATA naming both files and the column.
 *
 * A Parquet column colpipe cannot hold (a list, a map, a struct, an
 * interval) is not in the schema; it is listed as unreadable, with the
 * reason, so that a stage can name it when it is asked for.
 *
 * Laziness is the caller's to ask for: core_source_want leaves columns
 * out of the batches (MLSPILL3 does not expand them, Parquet does not
 * read their chunks), core_source_count counts rows without decoding a
 * value (MLSPILL3 record headers; Parquet footers).
 */
#ifndef CORE_SOURCE_H
#define CORE_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core_col.h"
#include "core_err.h"

struct core_source;

/*
 * Opens the first of paths (borrowed for the source's life; npaths 0
 * reads stdin), so that the schema is known on success.  *out is the
 * caller's (core_source_free).  The errors of the readers: CORE_EIO,
 * CORE_ETRUNC, CORE_ECORRUPT, CORE_EDATA.
 */
int core_source_open(const char *const *paths, size_t npaths,
    struct core_source **out, struct core_err *err);
void core_source_free(struct core_source *s);	/* NULL is fine */

/*
 * As core_source_open over one path (borrowed, as there), which must be
 * a pipe carrying MLSPILL3, as must tee_fd: the input's bytes go on to
 * tee_fd exactly as they come (core_mlspill3_reader_new_tee), for a
 * stage that changes nothing and reads only to check.
 */
int core_source_open_tee(const char *const *path, int tee_fd,
    const char *tee_name, struct core_source **out, struct core_err *err);

/* The columns of the table; borrowed, valid for the source's life. */
const struct core_schema *core_source_schema(const struct core_source *s);

/* Columns the first input has that no batch can hold: the count, and
 * the name and reason of column i (both static or the source's). */
uint32_t core_source_nunreadable(const struct core_source *s);
const char *core_source_unreadable(const struct core_source *s, uint32_t i,
    const char **why);

/* Leaves the columns with want[i] false (one flag per schema column,
 * borrowed; NULL: every column) empty in the batches next fills.  Call
 * before the first next. */
void core_source_want(struct core_source *s, const bool *want);

/* Decodes Parquet columns on the threads of pool (borrowed for the
 * source's life; NULL: the caller alone).  Call before the first next. */
struct core_pool;
void core_source_pool(struct core_source *s, struct core_pool *pool);

/*
 * A filter evaluated between the two halves of a Parquet batch: the
 * columns with cols[i] set (one flag per schema column, borrowed) are
 * decoded first, fn(arg, b, mask, err) sets mask[row] (b->nrows bytes)
 * for the rows that may pass, reading only those columns of b, and the
 * other columns' strings are then copied for those rows alone (the
 * others' are empty; the caller must not look at them).  fn returns 0
 * or an error, passed back.  Call before the first next.
 */
typedef int (*core_source_filter_fn)(void *arg, const struct core_batch *b,
    uint8_t *mask, struct core_err *err);
void core_source_prefilter(struct core_source *s, const bool *cols,
    core_source_filter_fn fn, void *arg);

/* Skips the Parquet row groups whose statistics prove that no row can
 * pass the filter p was made from (borrowed for the source's life; NULL:
 * none).  Call before the first next. */
struct core_prune;
void core_source_prune(struct core_source *s, const struct core_prune *p);

/*
 * Fills b (core_batch_init'ed on the schema; its buffers become views)
 * with the next rows: 0 with b->nrows >= 1, CORE_EOF after the last
 * input, or an error.  The batch is valid until the next call.
 */
int core_source_next(struct core_source *s, struct core_batch *b,
    struct core_err *err);

/*
 * As next, but a frame of an MLSPILL3 input comes as its record's bytes
 * (*raw set; *p, *len, *nrows as core_mlspill3_reader_next_raw gives
 * them), for a stage that passes it on unchanged; a Parquet input fills
 * b as next does (*raw false).
 */
int core_source_next_raw(struct core_source *s, struct core_batch *b,
    bool *raw, const void **p, size_t *len, uint32_t *nrows,
    struct core_err *err);

/*
 * The rows of every input from here on, counted without decoding them,
 * stopping once *rows reaches stop (UINT64_MAX: count all).  0 or an
 * error; a truncated MLSPILL3 input is still an error.
 */
int core_source_count(struct core_source *s, uint64_t stop, uint64_t *rows,
    struct core_err *err);

/* The input the last batch came from ("stdin" or its path), and the
 * rows read from it so far, that batch's included: row errors name
 * "FILE: row N". */
const char *core_source_name(const struct core_source *s);
uint64_t core_source_file_rows(const struct core_source *s);

struct core_source_stats {
	uint64_t rows;		/* rows read (counted ones included) */
	uint64_t bytes;		/* bytes read: MLSPILL3 streams, Parquet
				 * column chunks */
	uint64_t inputs;	/* inputs opened */
	uint64_t frames;	/* MLSPILL3 frames */
	uint64_t row_groups;	/* Parquet row groups read */
	uint64_t row_groups_skipped;	/* ruled out by statistics */
	uint64_t pages;		/* Parquet pages decoded */
	uint64_t pages_skipped;	/* ruled out by a page index */
};
void core_source_stats(const struct core_source *s,
    struct core_source_stats *st);

#endif
