/*
 * core_csv.h - RFC 4180 CSV reader producing typed column batches.
 *
 * The reader takes a list of inputs (paths, "-" for stdin; compressed or
 * tar-archived through core_input), sniffs the dialect and header and
 * infers column types from a sample of the first input, then parses batch
 * after batch straight into column buffers.  The first input decides the
 * schema; every later input or tar member must have the same number of
 * columns (and, with a header, the same names), and its values must fit
 * the types.
 *
 * NULL policy (documented in csv2col(1)): an empty unquoted field is NULL;
 * a quoted empty field ("") is the empty string in a string column and
 * NULL in other columns; a field equal to one of the --null strings
 * (compared before unquoting? see csv2col(1)) is NULL.
 *
 * Errors: a value that does not fit its column, a row with the wrong
 * number of fields, an unterminated quote or invalid UTF-8 in a string
 * column fail with CORE_EDATA and the message
 *	"FILE:LINE:COL: what is wrong (the text)"
 * unless a rejects sink is set, in which case the whole row is written to
 * it (see core_csv_options.rejects) and parsing goes on until max_errors
 * is exceeded (CORE_ELIMIT).
 */
#ifndef CORE_CSV_H
#define CORE_CSV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core_col.h"
#include "core_err.h"
#include "core_io.h"

struct core_csv_options {
	int delimiter;		/* byte, or -1 to sniff (, ; TAB |) */
	int quote;		/* byte, 0 for none, or -1 to sniff (" ') */
	int header;		/* 1 yes, 0 no, -1 detect */
	const char *schema;	/* "name:type,..." pins (borrowed), or NULL */
	const char *const *nulls;	/* extra NULL spellings (borrowed) */
	size_t nnulls;
	uint32_t batch_rows;	/* rows per batch; 0 = default */
	uint64_t sample_rows;	/* rows sampled for inference; 0 = default */
	unsigned threads;	/* parser threads; 0 = number of cores */
	struct core_output *rejects;	/* borrowed, or NULL = fail on first */
	uint64_t max_errors;	/* with rejects: fail after this many */
};

/* Fills o with the defaults (sniff everything, no rejects). */
void core_csv_options_init(struct core_csv_options *o);

struct core_csv_reader;

/* Opens the inputs and reads the sample; on success the schema is known.
 * paths/npaths are borrowed for the reader's life; npaths == 0 reads
 * stdin. */
int core_csv_reader_new(const char *const *paths, size_t npaths,
    const struct core_csv_options *opt, struct core_csv_reader **out,
    struct core_err *err);
void core_csv_reader_free(struct core_csv_reader *r);	/* accepts NULL */

/* Borrowed; valid for the reader's life. */
const struct core_schema *core_csv_reader_schema(
    const struct core_csv_reader *r);

/* Fills b (initialised with core_batch_init on the reader's schema; the
 * reader (re)allocates its buffers) with the next rows.  Returns 0 with
 * b->nrows > 0, CORE_EOF after the last row, or a negative code. */
int core_csv_reader_next(struct core_csv_reader *r, struct core_batch *b,
    struct core_err *err);

struct core_csv_stats {
	uint64_t rows;		/* data rows emitted */
	uint64_t bytes;		/* input bytes parsed */
	uint64_t rejected;	/* rows sent to rejects */
	uint64_t lines;		/* physical lines consumed */
};
void core_csv_reader_stats(const struct core_csv_reader *r,
    struct core_csv_stats *st);

/* Dialect found by sniffing (for --stats / messages). */
void core_csv_reader_dialect(const struct core_csv_reader *r, int *delimiter,
    int *quote, bool *header);

#endif
