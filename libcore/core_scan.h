/*
 * core_scan.h - a filter and a projection over a stream of batches:
 * SQL's WHERE and SELECT list, colscan's engine, also for the stages
 * (colagg, the TPC-H pipelines) that filter or compute columns first.
 *
 * A scan is planned once against the input schema: the WHERE text is
 * parsed and bound (it must be boolean), the select list is expanded
 * ("*", "* EXCLUDE (a, b)", names, "EXPR AS name") into the output
 * schema.  Every mistake the text can hold is reported then, before a
 * row is read, as CORE_EUSAGE with the caret lines of core_expr_err.
 *
 * Per batch, the filter runs first over the whole batch and leaves a
 * selection vector; a batch no row of which passes costs nothing more.
 * Output columns that are plain input columns are views of the input
 * when every row passed, or gathered once (core_gather) for the rows
 * that did; computed columns are evaluated only for those rows.  The
 * output batch is a view: of the input batch, and of buffers the scan
 * keeps from batch to batch; valid until the next call or until the
 * input batch changes.
 *
 * core_scan_needed says which input columns the scan reads at all, so a
 * reader can leave the others undecoded (core_mlspill3_reader_want).
 */
#ifndef CORE_SCAN_H
#define CORE_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core_col.h"
#include "core_err.h"

struct core_scan;

/* What the user asked for; the strings are borrowed for core_scan_new
 * only.  NULL where: every row; NULL select: "*". */
struct core_scan_spec {
	const char *where;
	const char *select;
	/* Columns the input has but cannot hand out (core_source's
	 * unreadable ones): naming one is an error giving its reason, and
	 * "*" must EXCLUDE them. */
	const char *const *unreadable;
	const char *const *unreadable_why;
	uint32_t nunreadable;
	/* Only rows are counted (core_scan_count): no select list is
	 * planned, and the output has no column. */
	bool count_only;
};

/*
 * Plans a scan of batches of schema in (borrowed; must outlive the scan)
 * into *out (caller owns; core_scan_free).  0 or CORE_EUSAGE with the
 * message ("--where" or "--select" is the caller's to add).  Which text
 * an error is in is told by *which: 'w' for where, 's' for select.
 */
int core_scan_new(const struct core_scan_spec *spec,
    const struct core_schema *in, struct core_scan **out, char *which,
    struct core_err *err);
void core_scan_free(struct core_scan *s);	/* NULL is fine */

/* The output schema; borrowed, valid for the scan's life. */
const struct core_schema *core_scan_schema(const struct core_scan *s);

/* in->ncols flags: whether the scan reads input column i. */
const bool *core_scan_needed(const struct core_scan *s);

/* in->ncols flags: whether the filter reads input column i (what
 * core_scan_count needs). */
const bool *core_scan_filter_needed(const struct core_scan *s);

/* Whether the scan has a filter, and whether it passes every input
 * column through unchanged (no filter, select "*"). */
bool core_scan_has_filter(const struct core_scan *s);
bool core_scan_is_identity(const struct core_scan *s);

/* What the filter's statistics can rule out (core_prune.h); NULL when
 * nothing.  Borrowed, valid for the scan's life. */
struct core_prune;
const struct core_prune *core_scan_prune(const struct core_scan *s);

/* Run-time errors name rows as "row N" with N = base + the row's index
 * in the batch; set it before each batch (1-based counting: base is 1
 * plus the rows before). */
void core_scan_set_row_base(struct core_scan *s, uint64_t base);

/*
 * The rows of in that pass the filter, projected, into *out (a view, see
 * above; out->nrows may be 0).  0, or CORE_EDATA naming the row (an
 * overflow, a cast that does not fit).
 */
int core_scan_batch(struct core_scan *s, const struct core_batch *in,
    const struct core_batch **out, struct core_err *err);

/* Sets mask[row] (in->nrows bytes) for the rows of in that pass the
 * filter, reading only its columns (core_scan_filter_needed): the
 * prefilter of core_source. */
int core_scan_mark(struct core_scan *s, const struct core_batch *in,
    uint8_t *mask, struct core_err *err);

/* Counts the rows of in that pass the filter, computing nothing else. */
int core_scan_count(struct core_scan *s, const struct core_batch *in,
    uint32_t *n, struct core_err *err);

#endif
