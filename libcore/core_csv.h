/*
 * core_csv.h - RFC 4180 CSV reader producing typed column batches.
 *
 * The reader takes a list of inputs (paths, "-" for stdin; compressed or
 * tar-archived through core_input), sniffs the dialect and header and
 * infers column types from a sample of the first input, then parses batch
 * after batch straight into column buffers.  The first input decides the
 * schema; every later input or tar member must have the same number of
 * columns (and, with a header, its own header line with the same names),
 * and its values must fit the types.
 *
 * Syntax: fields separated by one delimiter byte; rows end at LF, CR LF or
 * a lone CR, or at the end of a member (the last line needs no
 * terminator); a UTF-8 byte order mark at the start of a member is
 * skipped.  Text is UTF-8; with opt->encoding (core_csv_enc.h) every
 * member is transcoded to UTF-8 by core_input before it is parsed, and
 * by default a member that starts with a UTF-16 byte order mark is (so
 * such members are streamed, never mapped).  A member that looks
 * like UTF-16 without a mark (NUL bytes every other byte) fails at once
 * (CORE_EDATA naming the encoding to give), and invalid UTF-8 messages
 * end in what encoding the bytes around it look like.  A field starting with the quote byte is quoted: a doubled
 * quote inside stands for one, delimiters and line breaks inside are data.
 * A quote byte inside an unquoted field is data.  Text after a closing
 * quote (other than a delimiter or line end) and a quote still open at
 * the end of a member are errors.
 *
 * Blank lines (nothing between two line terminators) are skipped and not
 * rows, except in a one-column file, where a blank line after the first
 * row is a row whose one field is empty (so NULL).  Blank lines before the
 * first row are always skipped.  Skipped lines still count in line numbers.
 *
 * Skipped lines and comments: opt->skip_lines physical lines at the start
 * of every member (after a BOM) are skipped unread; with opt->comment, a
 * line whose first byte is it is no row wherever it is (a row's quoted
 * field may still hold such a line).  Both count in line numbers.
 *
 * Sniffing: the first rows (at most 200, 256 KiB; blank and comment lines
 * left out) are tokenized with each candidate delimiter (, ; TAB |, or the
 * given one).  For each delimiter the quote is " when any field opens
 * with ", even with broken quoting (reported as an error, never worked
 * around by reading the file unquoted); else ' when fields open with '
 * and close cleanly; else " (then nothing is quoted).  A reading has a
 * table when from its first row of some width >= 2 on every row has that
 * width (two rows at least when rows stand above it, at most 50 rows
 * above).  A reading with a table beats one without; then no syntax error,
 * the longer table, the wider.  Two clean tables as long (of two rows or
 * more) from different delimiters: more typed columns win, a tie fails
 * (CORE_EDATA naming both).  Without any table: more than one column, no syntax error, the
 * largest share of rows with the most common field count, the most
 * columns.  Ties go to the earlier candidate, so plain data reads as
 * comma-separated with " quoting.  Rows above the table (a preamble) fail
 * with CORE_EDATA naming the line where the table starts and the
 * skip_lines that reads it: such rows are as likely a damaged header as
 * a title, and skipping them unasked would drop data silently.
 *
 * Header detection (header -1): the first row is a header when none of its
 * fields reads as bool/number/date/timestamp, one is not empty, none holds
 * NUL or invalid UTF-8.  When every column is text, the first row is
 * also data if one of its values comes again further down its column in
 * the sample.  So a file of text columns only is taken to have a header
 * unless its first row looks like its data.  A first row with numbers is
 * a header too when they are plain integers (no sign or leading zero),
 * distinct, all years (4 digits, 1000-2999) or a run with one step, and
 * no value below them is a plain integer; years over integers beside text
 * fail (CORE_EDATA: say header or not).  Sample rows that copy the
 * whole first row (files concatenated with their headers) are left out
 * of detection and inference, so such a copy inside the data is reported
 * when it does not fit the types.  Header names: empty
 * ones become cN (N the 1-based column), repeated ones get "_1", "_2" ...;
 * without a header the names are c1, c2 ...  The column count comes from
 * the table's first row.  opt->names ("a,b,c") names the columns instead:
 * it implies no header unless header is 1 (then the header row is read
 * and checked as ever, and its names are replaced); a count other than
 * the table's, an empty or a repeated name is CORE_EUSAGE naming both
 * counts.
 *
 * Empty input: a first input with no row (no bytes, only blank or comment
 * lines) is an empty stream: of opt->schema's columns in its order when
 * given, else of no columns (then a later input with a row fails).  A
 * header-only input gives its columns as strings.  A first record with
 * broken quoting fails with its own message, as anywhere else.
 *
 * Types (per column, over the sample, NULLs ignored): the first of bool
 * (true/false in any case), int64, decimal(18,s) (plain digits with a '.',
 * s = most fraction digits seen, integer + fraction digits <= 18, no
 * exponent), decimal(38,s) (plain digits, with or without a '.', 19 to
 * 38 of them: integers too wide for int64 and long decimals stay exact),
 * float64, date, timestamp that every value parses as; string otherwise
 * and for columns with no value in the sample.  Inference never changes
 * a value's text: a number with an explicit '+' or a leading zero before
 * another digit ("007", "+4912345"; not "0" or "0.5") makes its column
 * text.  Such columns, and text columns whose values are mostly dates or
 * timestamps but one is not (2024-02-30), are noted with the line of the
 * deciding value (core_csv_reader_notes).  int32 only by
 * pinning.  The sample is the first sample_rows rows; for a mapped file
 * bigger than a chunk, half of it comes from the start and half from 8
 * points spread over the file.
 *
 * Number notation: with decimal_mark ',' and/or a thousands separator,
 * numeric columns read numbers written that way ("1.234,5"), exactly:
 * separators only between groups of three integer digits, and with a
 * decimal comma a '.' that is not the thousands separator is no number.
 * Such input is parsed row by row (slower; it never is by default).
 * With decimal_mark 0, no thousands separator and ';' sniffed as the
 * delimiter,
 * the decimal comma is sniffed: taken when it makes more columns numeric
 * than the '.' does (a note says so).
 *
 * Trimming: with opt->trim, spaces and tabs at both ends of an unquoted
 * field are dropped before it is typed or stored (so a field of blanks
 * only is NULL, and header names are trimmed too); a quoted field keeps
 * them.  A field is quoted only when its first byte is the quote, so
 * with leading blanks before a quote the quotes are text.  Such input
 * is parsed row by row (slower; never by default).
 *
 * Date and timestamp formats: with opt->date_format, every date column
 * (pinned or inferred) is read by that format and no other, and a column
 * is inferred a date when every sample value parses by it, before any
 * other type is tried; a column that only ISO 8601 dates fit is then
 * text.  Likewise opt->timestamp_format for timestamps (tried after the
 * date format).  The formats are a strptime subset, exact: %Y (4
 * digits), %y, %m, %b/%B, %d, %e, %H, %M, %S, %f (1-6 digits of
 * fraction), %%, other bytes literal (core_csv_datefmt.c); CORE_EUSAGE
 * for anything else.  Such input is parsed row by row.
 * opt->date_formats ("column=format" each, a column at most once) gives
 * a column its own format: it is a date read by it (as if pinned, so a
 * value that does not parse is an error, not text) and date_format is
 * for the other columns.  A name no column has is CORE_EUSAGE naming the
 * closest.
 *
 * NULL policy: an empty unquoted field is NULL; a quoted empty field ("")
 * is the empty string in a string column and NULL in other columns; an
 * UNQUOTED field equal to one of opt->nulls is NULL in every column
 * (quoted, it is the text itself).
 *
 * Ragged rows: a row with exactly one field more than the first row
 * (the header), whose last field is empty and unquoted (a trailing
 * delimiter on data rows only), is read without that field; no data is
 * lost and the columns stay aligned.  With opt->null_padding a row with
 * fewer fields is padded with NULLs.  Both are counted (stats).  Any
 * other count is an error.
 *
 * Errors: a value that does not fit its column, a row with the wrong
 * number of fields, an unterminated quote, text after a closing quote or
 * invalid UTF-8 in a string column fail with CORE_EDATA and the message
 *	"FILE:LINE:COL: what is wrong (the text)"
 * FILE is core_input_name(), LINE the 1-based physical line where the
 * field starts, COL the 1-based field number (for a short row: its last
 * field; for a long row: the first extra one).  The text is cut to about
 * 60 bytes ("..."), with control bytes and invalid UTF-8 escaped (\n, \r,
 * \t, \xNN).  The messages are
 *	value does not fit column NAME of type TYPE (TEXT)
 *	    [+ "; pin the type with --schema" when TYPE was inferred]
 *	row has N fields, expected M (ROW TEXT)
 *	unterminated quote (FIELD TEXT)
 *	unexpected text after closing quote (FIELD TEXT)
 *	invalid UTF-8 in column NAME (TEXT)
 * A bad header of a later input is CORE_EDATA whatever the rejects sink.
 *
 * Rejects: with opt->rejects set, a bad row is not an error; one line per
 * bad row is written to it:
 *	LINE <TAB> FILE:LINE:COL: what is wrong (the text) <TAB> RAW <LF>
 * RAW is the row's bytes exactly as in the input, without its line
 * terminator (a quoted field may hold line breaks, so a record may span
 * several lines of the rejects file).  Rows are never silently dropped:
 * every row is either in a batch or in the rejects sink.  Once more than
 * opt->max_errors rows have been rejected, next returns CORE_ELIMIT.
 *
 * Column selection: with opt->columns, batches hold only the columns it
 * lists, in its order; an item is a column's name, or when no column has
 * that name and it is all digits, a 1-based column number.  A name no
 * column has, a number out of range, an empty item or a column listed
 * twice is CORE_EUSAGE (naming the closest name).  The other fields of
 * every row are still delimited, so quoting (a quote left open, text
 * after a closing quote) and the field count are checked as ever; but
 * their types are not inferred and their values are not converted,
 * checked for UTF-8 or copied, so a value that would not fit its column
 * there is no error.  Header detection and the sniffing of a decimal
 * comma still look at every column, so the selected columns' types and
 * values are those of the same columns without opt->columns.
 *
 * Batches hold at most batch_rows rows.  Input is parsed in chunks of
 * about 4 MiB (cut at row boundaries), possibly on several threads: a
 * plain regular file in place, streamed input (pipes, compressed data,
 * tar members) as it is read ahead.  A batch never spans two chunks, so
 * the batches are a function of the input bytes and options only -- the
 * same for any thread count -- except where a pipe's writer pauses (a
 * chunk of a stream is then parsed as far as it came: core_csv.c).
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
	const char *schema;	/* "name:type,..." pins (borrowed) or NULL */
	const char *const *nulls;	/* extra NULL spellings (borrowed) */
	size_t nnulls;
	uint32_t batch_rows;	/* rows per batch; 0 = default */
	uint64_t sample_rows;	/* rows to infer types from; 0: default */
	unsigned threads;	/* parser threads; 0 = number of cores */
	struct core_output *rejects;	/* borrowed; NULL: fail on first */
	uint64_t max_errors;	/* with rejects: CORE_ELIMIT once more than
				   this many rows were rejected (default
				   UINT64_MAX) */
	uint64_t skip_lines;	/* physical lines to skip at the start of
				   every member, before the header */
	int comment;		/* a line starting with this byte is no
				   row, wherever it is; 0: none */
	int decimal_mark;	/* '.' or ',' for numbers; 0: '.', or ','
				   when sniffed (see above) */
	int thousands;		/* thousands separator byte, or 0 */
	bool null_padding;	/* a row with fewer fields than the header
				   is padded with NULLs (not an error) */
	bool trim;		/* spaces and tabs around unquoted fields
				   are no part of them (parsed row by
				   row) */
	const char *date_format;	/* borrowed: date columns are
				   written so (strptime-style, see
				   below), or NULL for ISO */
	const char *const *date_formats;	/* borrowed: "column=format"
				   each: that column is a date written so
				   (over date_format) */
	size_t ndate_formats;
	const char *timestamp_format;	/* borrowed: the same for
				   timestamp columns */
	const char *names;	/* borrowed: "a,b,c", the columns' names
				   (a header's are replaced; header -1
				   then means none), or NULL */
	int encoding;		/* CORE_ENC_* (core_csv_enc.h) of every
				   input, transcoded to UTF-8 before it is
				   parsed; 0: UTF-8, or UTF-16 by its byte
				   order mark */
	const char *columns;	/* borrowed: "a,3,b", the columns to
				   convert and hand out, in this order
				   (names, else 1-based numbers), or NULL
				   for all (see above) */
	const char *pin_hint;	/* borrowed: appended to the message for
				   a value that does not fit an inferred
				   type, the tool's way to pin one (e.g.
				   "; pin the type with --schema"); NULL:
				   "; pin the column's type" */
};

/* Fills o with the defaults (sniff everything, batch_rows 8192,
 * sample_rows 20480, threads 0, no rejects, max_errors UINT64_MAX). */
void core_csv_options_init(struct core_csv_options *o);

struct core_csv_reader;

/* Opens the inputs and reads the sample; on success the schema is known.
 * paths/npaths and opt's pointers are borrowed for the reader's life;
 * npaths == 0 reads stdin.  Fails with CORE_EUSAGE (bad option, --schema
 * naming no column), CORE_EIO, or CORE_EDATA (a preamble above the table,
 * two plausible dialects, a header that cannot be told, a bad header). */
int core_csv_reader_new(const char *const *paths, size_t npaths,
    const struct core_csv_options *opt, struct core_csv_reader **out,
    struct core_err *err);
void core_csv_reader_free(struct core_csv_reader *r);	/* accepts NULL */

/* The schema of the batches (only opt->columns' columns when given).
 * Borrowed; valid for the reader's life. */
const struct core_schema *core_csv_reader_schema(
    const struct core_csv_reader *r);

/* Fills b (initialised with core_batch_init on the reader's schema) with
 * the next rows.  The reader swaps its own filled buffers into b and takes
 * b's old ones for reuse, so no copy is made; b owns what it holds.
 * Returns 0 with b->nrows > 0, CORE_EOF after the last row, or a negative
 * code (then every later call returns the same). */
int core_csv_reader_next(struct core_csv_reader *r, struct core_batch *b,
    struct core_err *err);

struct core_csv_stats {
	uint64_t rows;		/* data rows emitted */
	uint64_t bytes;		/* bytes read (mapped or decompressed) */
	uint64_t rejected;	/* rows sent to rejects */
	uint64_t lines;		/* physical lines consumed */
	uint64_t comments;	/* comment lines among them */
	uint64_t skipped;	/* lines skipped by skip_lines */
	uint64_t padded;	/* short rows padded with NULLs */
	uint64_t trailing;	/* rows read without an extra empty last
				   field */
};
void core_csv_reader_stats(const struct core_csv_reader *r,
    struct core_csv_stats *st);

/* Dialect in use (given or sniffed); *quote is 0 for none. */
void core_csv_reader_dialect(const struct core_csv_reader *r, int *delimiter,
    int *quote, bool *header);

/* Number notation in use (given or sniffed): '.' or ',', and the
 * thousands separator or 0. */
void core_csv_reader_numfmt(const struct core_csv_reader *r,
    int *decimal_mark, int *thousands);

/* What the error that stopped the reader was about, for a tool to add
 * its hint: CORE_CSV_BAD_TYPE for a value that does not fit the type of
 * column *col (0-based, of core_csv_reader_schema), CORE_CSV_BAD_SHORT
 * for a row of two fields or more but fewer than the table (one field is
 * more often a title or a comment than a row cut short), 0 for anything
 * else (or no error). */
enum { CORE_CSV_BAD_TYPE = 1, CORE_CSV_BAD_SHORT };
int core_csv_reader_failure(const struct core_csv_reader *r, uint32_t *col);

/* Notes on sniffing and inference, one line each ending in LF ("" when
 * none): what was decided and why (the header's reason, an empty
 * input, skipped lines, a sniffed decimal comma), and a column read as
 * text although its values look like numbers (a
 * leading zero or '+'), dates or timestamps (one that is not valid),
 * with the file:line of the value that decided it.  Borrowed; valid for
 * the reader's life. */
const char *core_csv_reader_notes(const struct core_csv_reader *r);

#endif
