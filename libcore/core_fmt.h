/*
 * core_fmt.h - text output formats for column batches (col2csv).
 *
 * CSV: RFC 4180; a field is quoted when it contains the delimiter, the
 *   quote, CR or LF, or starts/ends with a space, or is an empty string
 *   (so "" stays distinguishable from NULL, which is written as nothing).
 * TSV: fields never quoted; backslash escapes \t \n \r \\ in strings;
 *   NULL written as \N.
 * JSON Lines: one object per row, keys in column order; strict RFC 8259:
 *   NaN and +-Inf become null, control characters escaped, decimals as
 *   numbers with their scale, dates and timestamps as strings.
 * table: an aligned text table for people; column widths from the first
 *   batch (wider later values widen the column from then on), numbers
 *   right-aligned, NULL shown as NULL? (see col2csv(1)).
 *
 * The formatter writes to a struct core_output and reports its errors.
 */
#ifndef CORE_FMT_H
#define CORE_FMT_H

#include <stdbool.h>

#include "core_col.h"
#include "core_err.h"
#include "core_io.h"

enum core_fmt_kind {
	CORE_FMT_CSV,
	CORE_FMT_TSV,
	CORE_FMT_JSONL,
	CORE_FMT_TABLE,
};

struct core_fmt_options {
	enum core_fmt_kind kind;
	bool header;		/* CSV/TSV/table: write the header row */
	int delimiter;		/* CSV only; default ',' */
};

struct core_fmt;

/* out is borrowed for the formatter's life; schema too. */
struct core_fmt *core_fmt_new(const struct core_fmt_options *opt,
    const struct core_schema *schema, struct core_output *out);
void core_fmt_free(struct core_fmt *f);		/* accepts NULL */
int core_fmt_write_batch(struct core_fmt *f, const struct core_batch *b,
    struct core_err *err);
/* Writes anything pending (table footer, header for zero rows). */
int core_fmt_finish(struct core_fmt *f, struct core_err *err);

#endif
