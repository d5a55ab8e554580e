/*
 * core_fmt.h - text output formats for column batches (col2csv).
 *
 * Values are written in the canonical text forms of core_value.h (decimals
 * with their scale, ISO dates, "YYYY-MM-DD HH:MM:SS[.ffffff]" timestamps,
 * shortest round-trip floats, true/false).  Lines end with LF.
 *
 * CSV: RFC 4180 quoting with '"'; a string is quoted when it contains the
 *   delimiter, the quote, CR or LF, or is empty (so "" stays
 *   distinguishable from NULL, which is written as nothing), and nothing
 *   else is quoted, so "csv2col x.csv | col2csv" reproduces a CSV already
 *   in this form; quotes inside are doubled.  Other values are quoted
 *   only if an unusual delimiter (not , ; TAB |) occurs in their text.
 *   String bytes are written as stored.
 * TSV: fields never quoted; backslash escapes \t \n \r \\ in strings
 *   (and header names); NULL written as \N.
 * JSON Lines: one object per row, keys in column order; strict RFC 8259:
 *   NaN and +-Inf become null, '"', '\\' and control characters escaped
 *   (\n \r \t \b \f, else \u00XX), valid UTF-8 kept as is and each
 *   byte of invalid UTF-8 written as \ufffd; decimals as numbers with
 *   their scale (24386.67), dates and timestamps as strings.  int64
 *   values are exact even beyond 2^53.
 * table: for people.  Columns separated by two blanks; a header, a rule of
 *   dashes and a "(N rows)" footer, all three left out when the header is.
 *   Numbers (int32, int64, float64, decimal) right-aligned, everything
 *   else left-aligned, no trailing blanks.  NULL is shown as NULL (like a
 *   string "NULL": use csv or jsonl to tell them apart).  In strings,
 *   control characters are shown as \n \t \r or \xNN and bytes of
 *   invalid UTF-8 as \xNN.  Widths are display columns (an East Asian
 *   wide character counts two, a combining mark none) and come from the
 *   header, every batch given to core_fmt_measure, and the first batch
 *   written; a later batch with wider values widens its columns from that
 *   batch on, but rows from then on no longer line up with the rows above.
 *   With max_width (and the header), the table is fitted: string columns
 *   keep the widths so found, longer values cut with an ellipsis, so that
 *   rows stay aligned.  When the table as sized is wider than max_width, a
 *   string column is at most CORE_FMT_STRING_MAX wide (names cut too),
 *   columns are kept left to right while the line fits (at least one, cut
 *   to it), and the footer says how many did not fit, which, and
 *   hidden_hint.  Numbers, dates and timestamps are never cut.
 *
 * The formatter writes to a struct core_output and reports its errors; it
 * never flushes (the owner of the output does).  Strings of any length
 * work with any output buffer of at least 256 bytes.
 */
#ifndef CORE_FMT_H
#define CORE_FMT_H

#include <stdbool.h>

#include "core_col.h"
#include "core_err.h"
#include "core_io.h"
#include "core_pool.h"

enum core_fmt_kind {
	CORE_FMT_CSV,
	CORE_FMT_TSV,
	CORE_FMT_JSONL,
	CORE_FMT_TABLE,
};

struct core_fmt_options {
	enum core_fmt_kind kind;
	bool header;		/* CSV/TSV/table: write the header row */
	int delimiter;		/* CSV only; 0 = ','; not '"', CR or LF */
	size_t max_width;	/* table: fit to this many display columns;
				 * 0 = never fit */
	const char *hidden_hint;	/* table: after the hidden columns'
					 * names in the footer; borrowed */
};

#define CORE_FMT_STRING_MAX 32

struct core_fmt;

/* out is borrowed for the formatter's life; schema too. */
struct core_fmt *core_fmt_new(const struct core_fmt_options *opt,
    const struct core_schema *schema, struct core_output *out);
void core_fmt_free(struct core_fmt *f);		/* accepts NULL */
int core_fmt_write_batch(struct core_fmt *f, const struct core_batch *b,
    struct core_err *err);
/* Table: widens the columns to fit b's values, writing nothing; before
 * the first write_batch (afterwards a no-op).  Other formats: no-op. */
void core_fmt_measure(struct core_fmt *f, const struct core_batch *b);
/* Writes anything pending (table footer, header for zero rows). */
int core_fmt_finish(struct core_fmt *f, struct core_err *err);

/* CSV and TSV only: rows [r0, r0 + n) of b, no header whatever the
 * options (the header is the caller's), and at most
 * core_fmt_rows_bound(b, r0, n) bytes reserved in the output in all, so
 * an output with that much room is never flushed. */
int core_fmt_write_rows(struct core_fmt *f, const struct core_batch *b,
    uint32_t r0, uint32_t n, struct core_err *err);
size_t core_fmt_rows_bound(const struct core_batch *b, uint32_t r0,
    uint32_t n);

/*
 * CSV and TSV on the threads of pool (borrowed; NULL: the caller alone),
 * in core_fmt_par.c.  next(arg, b, err) fills b (core_batch_init'ed on
 * schema) with the next batch and returns 0, CORE_EOF at the end or an
 * error; its calls are made one at a time, on any of the threads (two at
 * most), and b may borrow memory that stays valid until the second next
 * call after the one that filled it.  Writes the header,
 * every batch's rows in order and what core_fmt_finish writes; stops at
 * the first error (a batch's, next's or the output's), after writing
 * every row before it.  Memory: per thread one batch and its text.
 */
int core_fmt_par_write(const struct core_fmt_options *opt,
    const struct core_schema *schema, struct core_output *out,
    struct core_pool *pool,
    int (*next)(void *arg, struct core_batch *b, struct core_err *err),
    void *arg, struct core_err *err);

#endif
