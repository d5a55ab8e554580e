/*
 * core_csv_private.h - the pieces of the CSV reader shared by its files.
 *
 *   core_csv_parse.c   the row tokenizer and the rows -> columns converter
 *                      (the hot loop), error records and their text
 *   core_csv_infer.c   dialect sniffing, header detection, type inference,
 *                      --schema pins
 *   core_csv.c         the reader object: inputs and members, chunking,
 *                      threads, ordered emission, rejects
 *
 * Only libcore/core_csv*.c include this header.
 *
 * Positions are byte offsets into one contiguous buffer (the mapped file,
 * a read-ahead slot of a stream, or the stream buffer); a "step boundary" is a position where the serial
 * parser starts a row or a blank line.  Parsing from a step boundary up to
 * a limit always stops at the first step boundary at or after the limit,
 * which is what lets chunks be parsed independently and checked against
 * each other (core_csv.c).
 */
#ifndef CORE_CSV_PRIVATE_H
#define CORE_CSV_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core_col.h"
#include "core_csv.h"
#include "core_err.h"

/* A string column starts a batch with CSV_STR_RESERVE bytes of room,
 * less when many string columns would pass CORE_BATCH_FIXED between
 * them (a wide table's batches also have fewer rows: core_batch_rows_for). */
#define CSV_STR_RESERVE	(64u << 10)

/* Field flags. */
#define CSV_F_QUOTED	1u	/* the field was enclosed in quotes */
#define CSV_F_SCRATCH	2u	/* value is in the scratch buffer
				   (tokenizer internal; resolved before a
				   row is returned) */
#define CSV_F_COPIED	4u	/* value was unescaped into the scratch
				   buffer, so p is not in the input */

/* One field of the row last tokenized.  p points into the input buffer,
 * or into the tokenizer's scratch buffer for a quoted field that had
 * doubled quotes; valid until the next call. */
struct csv_field {
	const char *p;
	uint32_t len;
	uint32_t flags;
	size_t raw;		/* offset of the field's first byte (its
				   opening quote, if any) from the row start */
};

/* Syntax errors the tokenizer finds in a row (the row is still delimited
 * exactly, so parsing can go on with the next one). */
enum csv_syntax {
	CSV_SYN_OK = 0,
	CSV_SYN_AFTER_QUOTE,	/* text between a closing quote and the
				   next delimiter or line end */
	CSV_SYN_UNTERMINATED,	/* end of input inside a quoted field */
};

/* Tokenizer results. */
enum {
	CSV_ROW_OK = 0,		/* a row was tokenized */
	CSV_ROW_MORE = 1,	/* the row may go on past the end of the data
				   that is there: read more, then retry */
};

struct csv_tok {
	int delim;		/* field delimiter byte */
	int quote;		/* quote byte, or -1 for none */
	uint8_t stop_unq[256];	/* delimiter, CR, LF */
	uint8_t stop_q[256];	/* quote, CR, LF */

	struct csv_field *f;	/* owned; nf used, fcap allocated */
	size_t nf, fcap;
	char *scratch;		/* owned; unescaped quoted values */
	size_t slen, scap;

	/* About the row last tokenized. */
	size_t row_end;		/* offset just past its last field
				   (before the line terminator) */
	uint64_t nbreaks;	/* line breaks inside its quoted fields */
	enum csv_syntax syn;	/* first syntax error, or CSV_SYN_OK */
	size_t syn_field;	/* field index of that error */
};

void csv_tok_init(struct csv_tok *t, int delim, int quote);
void csv_tok_release(struct csv_tok *t);

/* Tokenizes the row starting at buf[*pos] (which must be < end) into
 * t->f; on CSV_ROW_OK, *pos is past its line terminator.  at_eof says that
 * buf[end] is the end of the member, so a last line without terminator is
 * a row; otherwise a row touching end is CSV_ROW_MORE and *pos is left. */
int csv_tok_row(struct csv_tok *t, const char *buf, size_t *pos, size_t end,
    bool at_eof);

/* When buf[*pos] starts a line terminator, consumes it (CR LF, LF or CR)
 * and returns 1; CSV_ROW_MORE (2) when a CR is the last byte and more may
 * follow; 0 when *pos is not at a line terminator. */
int csv_skip_eol(const char *buf, size_t *pos, size_t end, bool at_eof);

/* Consumes the line at buf[*pos] and its terminator, whatever its bytes
 * (a comment or --skip line) and returns 1; 2 when its end is not in
 * the data yet (*pos left), as csv_skip_eol. */
int csv_skip_line(const char *buf, size_t *pos, size_t end, bool at_eof);

/* Drops spaces and tabs at both ends of every unquoted field of the row
 * last tokenized (opt->trim). */
void csv_trim_fields(struct csv_tok *t);

/* Line breaks (CR LF, LF, CR) in p[0..len). */
uint64_t csv_count_breaks(const char *p, size_t len);

/* Writes a message-safe excerpt of p[0..len) into out (cap >= 16): at most
 * about 60 bytes of text, control bytes and invalid UTF-8 as \n, \r, \t,
 * \xNN, "..." when cut. */
void csv_excerpt(char *out, size_t cap, const char *p, size_t len);

/* ---- numbers with a decimal comma or thousands separators ---- */

struct csv_numfmt {
	int dec;		/* decimal mark: '.' or ',' */
	int thou;		/* thousands separator byte, or 0 */
};

/* Rewrites the number p[0..len) written in nf's way as plain text
 * ([sign]digits[.digits][e[sign]digits]) into out (cap bytes).  Returns
 * its length, or -1 when it is no number in that notation (a misplaced
 * separator, a '.' in a decimal-comma number) or does not fit.  Text
 * without '.', ',', nf->dec or nf->thou is copied unchanged. */
long csv_num_rewrite(const struct csv_numfmt *nf, const char *p, size_t len,
    char *out, size_t cap);

/* ---- dates and timestamps in a given format (core_csv_datefmt.c) ---- */

/* Checks a --date-format (ts false) or --timestamp-format (ts true)
 * format: 0, or CORE_EUSAGE saying what is wrong and what is supported. */
int csv_datefmt_check(const char *fmt, bool ts, struct core_err *err);

/* Parses p[0..len) by the checked fmt: 0 with *out days since 1970-01-01
 * (ts false) or microseconds since 1970-01-01 00:00:00 UTC (ts true); -1
 * when it does not match or names no valid date or time. */
int csv_datefmt_parse(const char *fmt, const char *p, size_t len, bool ts,
    int64_t *out);

struct csv_sample;

/* True when col has a value in sample rows [from, nrows) and every one
 * that is not NULL parses by fmt. */
bool csv_datefmt_column(const char *fmt, bool ts, const struct csv_sample *s,
    uint32_t col, size_t from, const char *const *nulls, size_t nnulls);

/* ---- the parse of rows into batches ---- */

/* What every parser of one reader shares, read-only once parsing starts. */
struct csv_conf {
	int delim, quote;		/* quote -1 = none */
	const struct core_schema *schema;	/* borrowed: every field */
	uint32_t ncols;			/* fields a row has */
	const uint32_t *sel;		/* borrowed: nsel field indices,
					   batch column k is field sel[k]
					   (--columns), the other fields
					   only delimited; NULL: every
					   field in order (nsel unused) */
	uint32_t nsel;
	const uint32_t *colno;		/* borrowed, with sel: per field,
					   1 + its batch column, 0 when not
					   selected (so the row path tries
					   fields left to right, and a row's
					   first bad field is the one
					   reported, in any order of sel) */
	bool *pinned;			/* owned; ncols; from --schema */
	const char *const *nulls;	/* borrowed */
	size_t nnulls;
	uint32_t batch_rows;
	bool rejecting;			/* rejects sink set: go on */
	uint64_t max_errors;
	bool skip_blank;		/* blank lines are no rows (ncols>1) */
	int comment;			/* lines starting with this byte
					   are no rows; 0: none */
	const char *pin_hint;		/* borrowed: after a value that does
					   not fit an inferred type */
	bool null_padding;		/* pad short rows with NULLs */
	bool trim;			/* csv_trim_fields every row
					   (parsed row by row) */
	const char *const *datefmts;	/* borrowed: ncols, the format each
					   date column is read by, NULL for
					   ISO; NULL when none has one
					   (parsed row by row otherwise) */
	const char *tsfmt;		/* borrowed: timestamp columns read
					   by this format (parsed row by
					   row); NULL: ISO */
	bool numfmt_on;			/* numbers are written numfmt's way
					   (parsed row by row) */
	struct csv_numfmt numfmt;
	/* Knobs for tests; zero in normal use. */
	bool by_row;			/* convert row by row: the reference
					   path the block path must match */
	uint32_t block_rows;		/* rows per block, tried even after
					   a bad one; 0: the default, with
					   a row by row stretch after a bad
					   block */
	size_t str_reserve;		/* bytes a string column starts a
					   batch with; 0: CSV_STR_RESERVE */
	size_t batch_bytes;		/* raw row bytes that close a batch
					   early; 0: INT32_MAX (the most
					   int32 string offsets can hold) */
	int isa;			/* the plain-row tokenizer's vectors
					   (enum csv_isa); 0: the widest
					   this CPU has */
};

/* Vector widths of the plain-row tokenizer (core_csv_parse.c), each
 * giving exactly the same fields. */
enum csv_isa {
	CSV_ISA_AUTO = 0,
	CSV_ISA_SSE2,		/* or no vectors at all */
	CSV_ISA_AVX2,
	CSV_ISA_AVX512,
};

/* Whether this CPU (and build) can run isa. */
bool csv_isa_supported(int isa);

/* One bad row: where, what, and (when rejecting) its bytes. */
struct csv_rec {
	uint64_t line;		/* physical line of the field, relative
				   to the origin of the parser's line
				   counter */
	uint32_t col;		/* 1-based field number */
	size_t msg_off, msg_len;	/* "what (text)" in the arena */
	size_t raw_off, raw_len;	/* the raw row in the arena */
};

/* What parsing a stretch of input produced, consumed in order by the
 * reader.  Owned buffers; reused from stretch to stretch. */
struct csv_result {
	struct core_batch *batches;	/* completed batches, in order */
	size_t nbatches, batch_cap;
	size_t emitted;			/* batches handed out so far */
	struct csv_rec *recs;		/* bad rows, in order */
	size_t nrecs, rec_cap;
	char *arena;			/* texts of recs */
	size_t alen, acap;
	bool stopped;			/* parsing stopped on a bad row (no
					   rejects, or too many) */
	uint64_t nlines;		/* physical lines consumed */
	uint64_t ncomments;		/* comment lines among them */
	uint64_t nrows;			/* rows put into batches */
	uint64_t npadded, ntrailing;	/* of them: short rows padded,
					   rows without a trailing empty
					   field */
	size_t start, end;		/* stretch parsed: [start, end) */
};

struct csv_pool;

void csv_result_init(struct csv_result *res);
/* Keeps buffers; batches left in it go back to pool. */
void csv_result_clear(struct csv_result *res, struct csv_pool *pool);
void csv_result_release(struct csv_result *res);

/* A free list of batches with buffers, shared by the parsers and the
 * consumer of one reader (locked: parsers run on several threads). */
struct csv_pool *csv_pool_new(const struct core_schema *schema);
void csv_pool_free(struct csv_pool *p);
void csv_pool_get(struct csv_pool *p, struct core_batch *out);
void csv_pool_put(struct csv_pool *p, struct core_batch *b);

/* One parsing thread's state. */
struct csv_parser {
	const struct csv_conf *conf;	/* borrowed */
	struct csv_pool *pool;		/* borrowed */
	struct csv_tok tok;
	struct core_batch cur;		/* batch being filled (cols NULL
					   when none) */
	size_t cur_raw;			/* raw row bytes put into cur, an
					   upper bound of any string column's
					   bytes */
	uint64_t line;			/* lines before the next row */
	uint64_t nrejected;		/* bad rows recorded since reset */
	uint64_t *bnull;		/* owned; per column, the NULL rows
					   of the block being converted */
	uint32_t by_row_left;		/* rows to parse row by row before
					   trying blocks again */
	int isa;			/* enum csv_isa, never AUTO */
};

void csv_parser_init(struct csv_parser *ps, const struct csv_conf *conf,
    struct csv_pool *pool);
void csv_parser_release(struct csv_parser *ps);

enum {
	CSV_PARSE_DONE = 0,	/* reached limit (or the end at eof) */
	CSV_PARSE_MORE = 1,	/* needs more data after buf[end] */
	CSV_PARSE_STOP = 2,	/* stopped on a bad row (see res->stopped) */
};

/* Parses rows from buf[*pos] while *pos < limit (limit <= end), appending
 * full batches and bad-row records to res; returns a CSV_PARSE_ code.  A
 * row that starts before limit is parsed to its end, past limit. */
int csv_parse(struct csv_parser *ps, const char *buf, size_t *pos,
    size_t limit, size_t end, bool at_eof, struct csv_result *res);

/* Moves the partly filled batch, if it has rows, to res. */
void csv_parser_flush(struct csv_parser *ps, struct csv_result *res);

/* Records a bad row in res; what is the message text that will follow
 * "FILE:LINE:COL: ". */
void csv_result_add(struct csv_result *res, uint64_t line, uint32_t col,
    const char *what, const char *raw, size_t raw_len);

/* ---- dialect, header, types (core_csv_infer.c) ---- */

/* Sampled rows of the first input: ncols values each, copied. */
struct csv_sample {
	uint32_t ncols;
	size_t nrows;		/* row 0 is the header candidate */
	uint32_t *off, *len;	/* owned; nrows * ncols */
	uint8_t *flags;		/* owned; nrows * ncols (CSV_F_QUOTED) */
	size_t *rowpos;		/* owned; nrows: offset of each row in the
				   buffer it was sampled from (for line
				   numbers in notes) */
	char *text;		/* owned */
	size_t tlen, tcap;
};

void csv_sample_release(struct csv_sample *s);

/* The dialect and the table's place in the first rows. */
struct csv_sniffed {
	int delim;		/* in: a byte, or -1 to sniff; out: chosen */
	int quote;		/* in: a byte, -1 none, -2 sniff; out */
	int comment;		/* in: comment byte, 0 none */
	bool table;		/* out: a consistent block of rows of
				   several columns was found */
	size_t ncols;		/* out: its (or the modal) width */
	size_t pre_rows;	/* out: rows before that block */
	uint64_t pre_lines;	/* out: physical lines before it */
	int lead;		/* out: the byte every row before it
				   starts with, or -1 */
	int alt_delim;		/* out: another delimiter giving as good
				   a table, or -1 */
	uint32_t alt_ncols;	/* out: that table's width */
};

/* Sniffs the dialect from the first bytes of buf (see core_csv.h). */
void csv_sniff(const char *buf, size_t len, bool at_eof,
    struct csv_sniffed *sn);

/* Collects up to max_rows rows of buf[pos..end) into s (which fixes ncols
 * from the first row without a syntax error when s->nrows == 0), lines
 * starting with comment (0: none) left out.  Returns the number of rows
 * taken; stops early at a row with another field count when strict. */
size_t csv_sample_rows(struct csv_sample *s, struct csv_tok *t,
    const char *buf, size_t pos, size_t end, bool at_eof, size_t max_rows,
    bool strict, int comment);

/* Removes the rows that are copies of row 0 (when ncols > 1). */
void csv_sample_drop_copies(struct csv_sample *s);

/* Why row 0 of a sample is or is not taken for a header. */
enum {
	CSV_HDR_GIVEN,		/* --header / --no-header */
	CSV_HDR_TYPED_FIRST,	/* no: the first row has typed values */
	CSV_HDR_BYTES,		/* no: NUL or invalid UTF-8 in it */
	CSV_HDR_EMPTY_ROW,	/* no: nothing in it */
	CSV_HDR_OVER_TYPED,	/* yes: text over typed columns */
	CSV_HDR_ALL_TEXT,	/* yes: all text, nothing repeated */
	CSV_HDR_REPEATS,	/* no: all text, a value repeated below */
	CSV_HDR_LABELS,		/* yes: numbers as labels over columns of
				   other values */
	CSV_HDR_AMBIGUOUS,	/* neither: years over integers beside
				   text; the caller fails */
};

/* Sets *header when row 0 of the sample looks like a header; returns
 * the reason, a CSV_HDR_ code. */
int csv_detect_header(const struct csv_sample *s, const char *const *nulls,
    size_t nnulls, bool *header);
/* The reason in words (static). */
const char *csv_header_why_text(int why);

/* Infers column col's type from sample rows [from, nrows). */
struct core_coltype csv_infer_column(const struct csv_sample *s, uint32_t col,
    size_t from, const char *const *nulls, size_t nnulls);

/* Why csv_infer_column gave a column the type it did, when that is
 * worth a note: the first sample row (of the rows looked at) whose value
 * decided it. */
enum csv_why {
	CSV_WHY_NONE = 0,
	CSV_WHY_TEXTNUM,	/* numbers kept as text: a leading zero or an
				   explicit '+' would not print back */
	CSV_WHY_NOTDATE,	/* mostly dates, but this value is none */
	CSV_WHY_NOTTS,		/* mostly timestamps, but this value is none */
};

struct csv_infer_why {
	enum csv_why why;
	size_t row;		/* sample row of the deciding value */
};

/* csv_infer_column, also saying why (why may be NULL), with numbers
 * written nf's way (NULL: plain). */
struct core_coltype csv_infer_column_why(const struct csv_sample *s,
    uint32_t col, size_t from, const char *const *nulls, size_t nnulls,
    const struct csv_numfmt *nf, struct csv_infer_why *why);

/* Applies "name:type,..." pins to schema; pinned[i] set for each.
 * CORE_EUSAGE on an unknown name, a bad type or a repeated name. */
int csv_apply_pins(struct core_schema *schema, bool *pinned,
    const char *spec, struct core_err *err);

/* True when p[0..len) is one of the NULL spellings. */
bool csv_is_null_string(const char *p, size_t len, const char *const *nulls,
    size_t nnulls);

#endif
