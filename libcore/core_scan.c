/*
 * core_scan.c - WHERE and SELECT over batches (see core_scan.h).
 *
 * Planning turns the select list into one item per output column: a
 * plain input column (col >= 0), or a bound expression with the column
 * it is evaluated into.  A name in an EXCLUDE list, and every other name,
 * is resolved by the binder, so unknown names get one message wherever
 * they are written.
 *
 * Per batch the only copies are those the rows force: all rows pass,
 * and plain columns are the input's own buffers; some pass, and the
 * plain columns are gathered in one pass of core_gather_select (the
 * columns no item passes through are not touched).  Expressions are
 * evaluated over the selection only.
 *
 * Workload: batches of a few thousand rows, filters that keep anything
 * from none to all of them; the plan is tiny and built once.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core_alloc.h"
#include "core_expr.h"
#include "core_expr_bind.h"
#include "core_expr_eval.h"
#include "core_expr_parse.h"
#include "core_gather.h"
#include "core_names.h"
#include "core_prune.h"
#include "core_scan.h"

struct item {
	int col;			/* >= 0: the input column, as is */
	struct core_expr_bound *expr;	/* col < 0: owned */
	struct core_column val;		/* expr's values, owned */
};

struct core_scan {
	const struct core_scan_spec *spec;	/* borrowed while planning */
	const struct core_schema *in;		/* borrowed */
	struct core_schema *schema;		/* owned: the output */
	struct core_expr_bound *where;		/* owned, or NULL */
	struct core_prune *prune;		/* owned, or NULL */
	struct item *items;			/* owned, schema->ncols */
	uint32_t shared;			/* parts of items computed once
						   (core_expr_share) */
	bool *needed;				/* owned, in->ncols */
	bool *fneeded;				/* owned: the filter's */
	bool *pass;				/* owned, in->ncols: some
						   item passes it through */
	bool any_pass;
	bool identity;
	uint32_t *sel;				/* owned */
	size_t sel_cap;
	struct core_gather *g;			/* owned */
	struct core_gather_out go;
	struct core_batch out;			/* views */
};

/* ---- planning ---- */

/* Marks the input columns a bound subtree reads. */
static void
mark_columns(const struct core_bnode *n, bool *needed)
{
	uint32_t i;

	if (n->kind == CORE_BN_COLUMN)
		needed[n->col] = true;
	for (i = 0; i < n->nkids; i++)
		mark_columns(n->kids[i], needed);
}

/* The unreadable column called name (len bytes), or -1. */
static int
find_unreadable(const struct core_scan_spec *sp, const char *name,
    size_t len)
{
	uint32_t i;

	for (i = 0; i < sp->nunreadable; i++)
		if (strlen(sp->unreadable[i]) == len &&
		    strncasecmp(sp->unreadable[i], name, len) == 0)
			return (int)i;
	return -1;
}

/* An unreadable column named anywhere in e is an error at its place. */
static int
check_unreadable(const struct core_scan_spec *sp, const struct core_expr *e,
    const char *src, size_t len, struct core_err *err)
{
	uint32_t i;
	int u;

	if (e->kind == CORE_EXPR_COLUMN &&
	    (u = find_unreadable(sp, e->text, e->text_len)) >= 0)
		return core_expr_err(err, CORE_EUSAGE, src, len, e->off,
		    e->len, "column '%s' cannot be read: %s",
		    sp->unreadable[u], sp->unreadable_why[u]);
	for (i = 0; i < e->nkids; i++)
		if (check_unreadable(sp, e->kids[i], src, len, err) != 0)
			return CORE_EUSAGE;
	return 0;
}

/* Resolves the name (len bytes) written at [off, off + span) of src the
 * way the binder resolves a column: *col, or CORE_EUSAGE. */
static int
resolve_name(const char *name, size_t len, const char *src, size_t src_len,
    uint32_t off, uint32_t span, const struct core_schema *in, int *col,
    struct core_err *err)
{
	struct core_expr *e = core_expr_new(CORE_EXPR_COLUMN);
	struct core_expr_bound *b = NULL;
	int rc;

	core_expr_set_text(e, name, len);
	e->off = off;
	e->len = span;
	e->height = 1;
	rc = core_expr_bind(e, src, src_len, in, &b, err);
	if (rc == 0)
		*col = b->root->col;
	core_expr_bound_free(b);
	core_expr_free(e);
	return rc;
}

/* Grows the item array for one more output column named name. */
static struct item *
add_item(struct core_scan *s, uint32_t *n, uint32_t *cap, char ***names,
    const char *name)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		s->items = core_xrealloc(s->items, *cap * sizeof(*s->items));
		*names = core_xrealloc(*names, *cap * sizeof(**names));
	}
	memset(&s->items[*n], 0, sizeof(s->items[*n]));
	(*names)[*n] = core_xstrdup(name);
	return &s->items[(*n)++];
}

static const char *
name_in_array(const void *names, size_t i)
{
	return ((char *const *)names)[i];
}

/* Expands the select list into items and their names. */
static int
plan_select(struct core_scan *s, const char *src, uint32_t *nitems,
    char ***names, struct core_err *err)
{
	const struct core_schema *in = s->in;
	struct core_select *sl = NULL;
	size_t len = strlen(src);
	uint32_t i, j, cap = 0;
	bool *drop = NULL, *udrop;
	ssize_t dup;
	int col, rc;

	*nitems = 0;
	if ((rc = core_select_parse(src, len, &sl, err)) != 0)
		return rc;
	drop = core_xmalloc(in->ncols ? in->ncols : 1);
	udrop = core_xmalloc(s->spec->nunreadable + 1);
	for (i = 0; i < sl->nitems; i++) {
		const struct core_select_item *it = &sl->items[i];
		struct item *x;
		char *text;

		if (it->star) {
			memset(drop, 0, in->ncols);
			memset(udrop, 0, s->spec->nunreadable);
			for (j = 0; j < it->nexclude; j++) {
				int u = find_unreadable(s->spec,
				    it->exclude[j], strlen(it->exclude[j]));

				if (u >= 0) {
					udrop[u] = true;
					continue;
				}
				rc = resolve_name(it->exclude[j],
				    strlen(it->exclude[j]), src, len,
				    it->exclude_span[j].off,
				    it->exclude_span[j].len, in, &col, err);
				if (rc != 0)
					goto out;
				drop[col] = true;
			}
			for (j = 0; j < s->spec->nunreadable; j++)
				if (!udrop[j]) {
					rc = core_expr_err(err, CORE_EUSAGE,
					    src, len, it->off, it->len,
					    "* takes column '%s', which cannot "
					    "be read (%s): leave it out with * "
					    "EXCLUDE (%s)",
					    s->spec->unreadable[j],
					    s->spec->unreadable_why[j],
					    s->spec->unreadable[j]);
					goto out;
				}
			for (j = 0; j < in->ncols; j++) {
				if (drop[j])
					continue;
				x = add_item(s, nitems, &cap, names,
				    in->fields[j].name);
				x->col = (int)j;
			}
			continue;
		}
		if ((rc = check_unreadable(s->spec, it->expr, src, len,
		    err)) != 0)
			goto out;
		if (it->expr->kind == CORE_EXPR_COLUMN) {
			rc = resolve_name(it->expr->text, it->expr->text_len,
			    src, len, it->expr->off, it->expr->len, in, &col,
			    err);
			if (rc != 0)
				goto out;
			x = add_item(s, nitems, &cap, names, it->alias ?
			    it->alias : in->fields[col].name);
			x->col = col;
			continue;
		}
		/* DuckDB names a computed column by its text; ours is the
		 * canonical spelling, which is close to DuckDB's. */
		text = it->alias ? NULL : core_expr_print(it->expr);
		x = add_item(s, nitems, &cap, names, it->alias ? it->alias :
		    text);
		free(text);
		x->col = -1;
		if ((rc = core_expr_bind(it->expr, src, len, in, &x->expr,
		    err)) != 0)
			goto out;
		mark_columns(x->expr->root, s->needed);
	}
	/* A stream names each column once: later stages find columns by
	 * name. */
	if ((dup = core_names_first_dup(name_in_array, *names,
	    *nitems)) >= 0)
		rc = core_err_set(err, CORE_EUSAGE, "the output has two "
		    "columns named '%s': name one with AS, or leave one out "
		    "with * EXCLUDE (...)", (*names)[dup]);
out:
	free(drop);
	free(udrop);
	core_select_free(sl);
	return rc;
}

static int
plan_where(struct core_scan *s, const char *src, struct core_err *err)
{
	struct core_expr *e = NULL;
	struct core_coltype t;
	char tn[CORE_TYPE_NAME_MAX];
	size_t len = strlen(src);
	int rc;

	if ((rc = core_expr_parse(src, len, &e, err)) != 0)
		return rc;
	if ((rc = check_unreadable(s->spec, e, src, len, err)) != 0 ||
	    (rc = core_expr_bind(e, src, len, s->in, &s->where, err)) != 0)
		goto out;
	t = core_expr_bound_type(s->where);
	if (t.id != CORE_TYPE_BOOL) {
		rc = core_expr_err(err, CORE_EUSAGE, src, len, e->off, e->len,
		    "a filter must be a condition (boolean), not %s",
		    core_type_name(t, tn));
		goto out;
	}
	mark_columns(s->where->root, s->needed);
	mark_columns(s->where->root, s->fneeded);
	s->prune = core_prune_new(s->where, s->in);
out:
	core_expr_free(e);
	return rc;
}

int
core_scan_new(const struct core_scan_spec *spec,
    const struct core_schema *in, struct core_scan **out, char *which,
    struct core_err *err)
{
	struct core_scan *s = core_xcalloc(1, sizeof(*s));
	char **names = NULL;
	uint32_t i, n = 0;
	int rc;

	*out = NULL;
	s->spec = spec;
	s->in = in;
	s->needed = core_xcalloc(in->ncols ? in->ncols : 1, 1);
	s->pass = core_xcalloc(in->ncols ? in->ncols : 1, 1);
	s->fneeded = core_xcalloc(in->ncols ? in->ncols : 1, 1);
	*which = 'w';
	if (spec->where != NULL &&
	    (rc = plan_where(s, spec->where, err)) != 0)
		goto fail;
	*which = 's';
	if (!spec->count_only && (rc = plan_select(s, spec->select ?
	    spec->select : "*", &n, &names, err)) != 0)
		goto fail;
	s->schema = core_schema_new(n);
	s->identity = s->where == NULL && n == in->ncols;
	for (i = 0; i < n; i++) {
		struct item *x = &s->items[i];

		if (x->col >= 0) {
			s->needed[x->col] = true;
			s->pass[x->col] = true;
			s->any_pass = true;
			core_schema_set(s->schema, i, names[i],
			    in->fields[x->col].type);
			if (x->col != (int)i ||
			    strcmp(names[i], in->fields[i].name) != 0)
				s->identity = false;
		} else {
			core_schema_set(s->schema, i, names[i],
			    core_expr_bound_type(x->expr));
			s->identity = false;
		}
	}
	/* Items are evaluated in order over the same rows: a later one
	 * reads what an earlier one computed (Q1's sum_charge contains
	 * sum_disc_price). */
	{
		struct core_expr_bound **ex = core_xcalloc(n ? n : 1,
		    sizeof(*ex));

		for (i = 0; i < n; i++)
			ex[i] = s->items[i].col < 0 ? s->items[i].expr : NULL;
		s->shared = core_expr_share(ex, n);
		free(ex);
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	names = NULL;
	s->spec = NULL;
	s->g = core_gather_new(in, NULL, NULL);
	core_gather_out_init(&s->go, in);
	core_batch_init(&s->out, s->schema);
	*out = s;
	return 0;
fail:
	for (i = 0; i < n; i++) {
		free(names[i]);
		core_expr_bound_free(s->items[i].expr);
	}
	free(names);
	free(s->items);
	s->items = NULL;
	core_scan_free(s);
	return rc;
}

void
core_scan_free(struct core_scan *s)
{
	uint32_t i;

	if (s == NULL)
		return;
	for (i = 0; s->items != NULL && i < s->schema->ncols; i++) {
		core_expr_bound_free(s->items[i].expr);
		core_expr_column_release(&s->items[i].val);
	}
	if (s->out.cols != NULL)
		memset(s->out.cols, 0, s->out.ncols * sizeof(*s->out.cols));
	core_batch_release(&s->out);
	if (s->g != NULL)
		core_gather_out_release(s->g, &s->go);
	core_gather_free(s->g);
	core_prune_free(s->prune);
	core_expr_bound_free(s->where);
	core_schema_free(s->schema);
	free(s->items);
	free(s->needed);
	free(s->fneeded);
	free(s->pass);
	free(s->sel);
	free(s);
}

const struct core_schema *
core_scan_schema(const struct core_scan *s)
{
	return s->schema;
}

const bool *
core_scan_needed(const struct core_scan *s)
{
	return s->needed;
}

const bool *
core_scan_filter_needed(const struct core_scan *s)
{
	return s->fneeded;
}

const struct core_prune *
core_scan_prune(const struct core_scan *s)
{
	return s->prune;
}

bool
core_scan_has_filter(const struct core_scan *s)
{
	return s->where != NULL;
}

bool
core_scan_is_identity(const struct core_scan *s)
{
	return s->identity;
}

void
core_scan_set_row_base(struct core_scan *s, uint64_t base)
{
	uint32_t i;

	if (s->where != NULL)
		s->where->row_base = base;
	for (i = 0; i < s->schema->ncols; i++)
		if (s->items[i].expr != NULL)
			s->items[i].expr->row_base = base;
}

/* ---- running ---- */

/* The rows of in that pass into s->sel, their number in *k; *all when
 * they are every row (s->sel then means nothing). */
static int
filter(struct core_scan *s, const struct core_batch *in, uint32_t *k,
    bool *all, struct core_err *err)
{
	int rc;

	*all = true;
	*k = in->nrows;
	if (s->where == NULL || in->nrows == 0)
		return 0;
	if (s->sel_cap < in->nrows) {
		free(s->sel);
		s->sel_cap = in->nrows;
		s->sel = core_xmalloc(s->sel_cap * sizeof(*s->sel));
	}
	if ((rc = core_expr_eval_filter(s->where, in, NULL, in->nrows,
	    s->sel, k, err)) != 0)
		return rc;
	*all = *k == in->nrows;
	return 0;
}

int
core_scan_batch(struct core_scan *s, const struct core_batch *in,
    const struct core_batch **out, struct core_err *err)
{
	const struct core_batch *src = in;
	const uint32_t *sel;
	uint32_t i, k;
	bool all;
	int rc;

	*out = &s->out;
	s->out.nrows = 0;
	if ((rc = filter(s, in, &k, &all, err)) != 0)
		return rc;
	if (k == 0)
		return 0;
	sel = all ? NULL : s->sel;
	if (!all && s->any_pass) {
		core_gather_select(s->g, in, s->sel, k, s->pass, &s->go);
		src = &s->go.batch;
	}
	for (i = 0; i < s->schema->ncols; i++) {
		struct item *x = &s->items[i];

		if (x->col >= 0) {
			core_col_view(&s->out.cols[i], &src->cols[x->col]);
			continue;
		}
		if ((rc = core_expr_eval_project(x->expr, in, sel, k,
		    &x->val, err)) != 0)
			return rc;
		core_col_view(&s->out.cols[i], &x->val);
	}
	s->out.nrows = k;
	return 0;
}

int
core_scan_count(struct core_scan *s, const struct core_batch *in,
    uint32_t *n, struct core_err *err)
{
	bool all;

	return filter(s, in, n, &all, err);
}

int
core_scan_mark(struct core_scan *s, const struct core_batch *in,
    uint8_t *mask, struct core_err *err)
{
	uint32_t k, i;
	bool all;
	int rc;

	if ((rc = filter(s, in, &k, &all, err)) != 0)
		return rc;
	memset(mask, all, in->nrows);
	if (!all)
		for (i = 0; i < k; i++)
			mask[s->sel[i]] = 1;
	return 0;
}
