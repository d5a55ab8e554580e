/*
 * core_agg_query.c - planning a user's --by list and aggregate calls
 * (core_agg_query.h).
 *
 * Each expression is bound against the input where the user wrote it,
 * so that an error's caret is under the user's text; the projection is
 * then written out as one select list of canonical spellings (which
 * parse back to the same trees, core_expr_print's promise), with the
 * keys under their output names and the arguments under names of their
 * own, "#a0", "#a1", ...: no column name the user can write without
 * quotes, and when a key's name is so written, with more '#'s in front
 * until no key's name starts like them.  The lists are short and planned
 * once.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core_agg_query.h"
#include "core_alloc.h"
#include "core_expr.h"
#include "core_expr_bind.h"
#include "core_expr_parse.h"

struct core_agg_query {
	char *select;			/* owned */
	size_t len, cap;
	struct core_agg_spec spec;
	uint32_t *keys;			/* owned */
	struct core_agg_call *calls;	/* owned, and each one's sep */
	char **names;			/* owned, one per call */
	char **keynames;		/* owned, one per key */
	char **argtexts;		/* owned, one per argument column */
	char **ctexts;			/* owned: each call's spelling */
	/* --having: its tree over the output columns, the text it came
	 * from, its canonical spelling; the aggregates it added. */
	struct core_expr *having;	/* owned, or NULL */
	const char *having_src;		/* borrowed */
	char *having_text;		/* owned, or NULL */
	char *visible;			/* owned: the user's columns */
	uint32_t nhidden;
	char pfx[40];			/* the arguments' names: pfx, N */
	uint32_t nkeys, ncalls, nargs;
	int32_t distinct_arg;		/* -1, or DISTINCT's argument column */
	char *distinct_text;		/* owned: its spelling, or NULL */
};

/* Appends s to the select text. */
static void
put(struct core_agg_query *q, const char *s)
{
	size_t n = strlen(s);

	q->select = core_grow(q->select, &q->cap, q->len + n + 1, 1, 128);
	memcpy(q->select + q->len, s, n + 1);
	q->len += n;
}

/* Appends "EXPR AS name" (a comma first unless it is the first). */
static void
put_item(struct core_agg_query *q, const struct core_expr *e,
    const char *name)
{
	char *text = core_expr_print(e);

	if (q->len > 0)
		put(q, ", ");
	put(q, text);
	put(q, " AS ");
	core_expr_print_name(&q->select, &q->len, &q->cap, name,
	    strlen(name));
	free(text);
}

/* Binds e (from src) against in, for its type and its errors. */
static int
bind_at(struct core_expr *e, const char *src, const struct core_schema *in,
    struct core_coltype *type, int *col, struct core_err *err)
{
	struct core_expr_bound *b = NULL;
	int rc;

	rc = core_expr_bind(e, src, strlen(src), in, &b, err);
	if (rc == 0) {
		*type = core_expr_bound_type(b);
		*col = b->root->kind == CORE_BN_COLUMN ? b->root->col : -1;
	}
	core_expr_bound_free(b);
	return rc;
}

static int
plan_by(struct core_agg_query *q, const char *by,
    const struct core_schema *in, struct core_err *err)
{
	struct core_select *sl = NULL;
	struct core_coltype t;
	uint32_t i;
	int rc, col;

	if ((rc = core_select_parse(by, strlen(by), &sl, err)) != 0)
		return rc;
	q->keys = core_xmalloc(sl->nitems * sizeof(*q->keys));
	q->keynames = core_xcalloc(sl->nitems, sizeof(*q->keynames));
	for (i = 0; i < sl->nitems; i++) {
		const struct core_select_item *it = &sl->items[i];
		char *text = NULL;
		const char *name;

		if (it->star) {
			rc = core_expr_err(err, CORE_EUSAGE, by, strlen(by),
			    it->off, it->len, "keys are columns and "
			    "expressions, not *: name them");
			break;
		}
		if ((rc = bind_at(it->expr, by, in, &t, &col, err)) != 0)
			break;
		if (it->alias != NULL)
			name = it->alias;
		else if (col >= 0 && it->expr->kind == CORE_EXPR_COLUMN)
			name = in->fields[col].name;
		else
			name = text = core_expr_print(it->expr);
		put_item(q, it->expr, name);
		q->keynames[q->nkeys] = core_xstrdup(name);
		free(text);
		q->keys[q->nkeys] = q->nkeys;
		q->nkeys++;
	}
	core_select_free(sl);
	return rc;
}

/* *q = quantile argument e, a number literal in [0, 1]. */
static int
quantile_arg(const struct core_expr *e, const char *src, double *q,
    struct core_err *err)
{
	size_t len = strlen(src);

	if (e->kind == CORE_EXPR_LITERAL && e->lit == CORE_LIT_FLOAT)
		*q = e->value.f;
	else if (e->kind == CORE_EXPR_LITERAL && (e->lit == CORE_LIT_INT ||
	    e->lit == CORE_LIT_DECIMAL))
		*q = strtod(e->text, NULL);
	else
		*q = -1;
	if (!(*q >= 0 && *q <= 1))
		return core_expr_err(err, CORE_EUSAGE, src, len, e->off,
		    e->len, "the quantile must be a number from 0 to 1 "
		    "written out, such as 0.9");
	return 0;
}

/* Plans aggregate call e (from src) as the next call, output name name
 * (copied). */
static int
plan_call(struct core_agg_query *q, const struct core_expr *e,
    const char *name, const char *src, const struct core_schema *in,
    struct core_err *err)
{
	size_t len = strlen(src);
	struct core_err e2 = { 0, "" };
	struct core_coltype t, rt;
	struct core_agg_call *c;
	enum core_agg_fn fn;
	char arg[sizeof(q->pfx) + 12];
	int rc = 0, col;

	if (core_agg_fn_parse(e->text, &fn, &e2) != 0)
		return core_expr_err(err, CORE_EUSAGE, src, len, e->off,
		    e->len, "%s", e2.msg);
	q->calls = core_xrealloc(q->calls, (q->ncalls + 1) *
	    sizeof(*q->calls));
	q->names = core_xrealloc(q->names, (q->ncalls + 1) *
	    sizeof(*q->names));
	q->ctexts = core_xrealloc(q->ctexts, (q->ncalls + 1) *
	    sizeof(*q->ctexts));
	c = &q->calls[q->ncalls];
	memset(c, 0, sizeof(*c));
	q->ctexts[q->ncalls] = core_expr_print(e);
	q->names[q->ncalls] = name ? core_xstrdup(name) :
	    core_xstrdup(q->ctexts[q->ncalls]);
	q->ncalls++;
	c->fn = fn;
	c->distinct = e->distinct;
	c->arg = -1;
	if (e->star) {
		if (fn != CORE_AGG_COUNT)
			rc = core_expr_err(err, CORE_EUSAGE, src, len,
			    e->off, e->len, "only count takes *");
		c->fn = CORE_AGG_COUNT_STAR;
		return rc;
	}
	if (fn == CORE_AGG_QUANTILE_CONT || fn == CORE_AGG_QUANTILE_DISC) {
		if (e->nkids != 2)
			return core_expr_err(err, CORE_EUSAGE, src, len,
			    e->off, e->len, "%s takes two arguments, the "
			    "values and the quantile: %s(x, 0.9)",
			    core_agg_fn_name(fn), core_agg_fn_name(fn));
		if ((rc = quantile_arg(e->kids[1], src, &c->q, err)) != 0)
			return rc;
	} else if (fn == CORE_AGG_STRING_AGG && e->nkids == 2) {
		const struct core_expr *k = e->kids[1];

		if (k->kind != CORE_EXPR_LITERAL || k->lit != CORE_LIT_STRING)
			return core_expr_err(err, CORE_EUSAGE, src, len,
			    k->off, k->len, "the separator must be a string "
			    "written out, such as string_agg(x, ', ')");
		c->sep = core_xstrdup(k->text);
	} else if (fn == CORE_AGG_STRING_AGG && e->nkids != 1) {
		return core_expr_err(err, CORE_EUSAGE, src, len, e->off,
		    e->len, "string_agg takes the strings and a separator: "
		    "string_agg(x, ', '), not %u arguments", e->nkids);
	} else if (e->nkids != 1)
		return core_expr_err(err, CORE_EUSAGE, src, len, e->off,
		    e->len, "%s takes one argument, not %u",
		    core_agg_fn_name(fn), e->nkids);
	if ((rc = bind_at(e->kids[0], src, in, &t, &col, err)) != 0)
		return rc;
	if (core_agg_result_type(fn, t, &rt, &e2) != 0)
		return core_expr_err(err, CORE_EUSAGE, src, len,
		    e->kids[0]->off, e->kids[0]->len, "%s", e2.msg);
	/* One column per distinct argument text: DISTINCT needs
	 * count(DISTINCT x) and sum(DISTINCT x) to see one x. */
	{
		char *text = core_expr_print(e->kids[0]);
		uint32_t k;

		for (k = 0; k < q->nargs; k++)
			if (strcmp(q->argtexts[k], text) == 0)
				break;
		c->arg = (int32_t)(q->nkeys + k);
		if (c->distinct && q->distinct_arg >= 0 &&
		    q->distinct_arg != c->arg) {
			rc = core_expr_err(err, CORE_EUSAGE, src, len,
			    e->kids[0]->off, e->kids[0]->len, "a second "
			    "DISTINCT argument (the first is %s): one colagg "
			    "takes one; aggregate each in its own colagg and "
			    "join them with coljoin", q->distinct_text);
			free(text);
			return rc;
		}
		if (c->distinct && q->distinct_arg < 0) {
			q->distinct_arg = c->arg;
			q->distinct_text = core_xstrdup(text);
		}
		if (k < q->nargs) {
			free(text);
			return 0;
		}
		q->argtexts = core_xrealloc(q->argtexts, (q->nargs + 1) *
		    sizeof(*q->argtexts));
		q->argtexts[q->nargs] = text;
	}
	snprintf(arg, sizeof(arg), "%s%u", q->pfx, q->nargs);
	put_item(q, e->kids[0], arg);
	q->nargs++;
	return 0;
}

/* The aggregates of one text: each item a call. */
static int
plan_aggs(struct core_agg_query *q, const char *src,
    const struct core_schema *in, struct core_err *err)
{
	struct core_select *sl = NULL;
	size_t len = strlen(src);
	uint32_t i;
	int rc;

	if ((rc = core_select_parse(src, len, &sl, err)) != 0)
		return rc;
	for (i = 0; i < sl->nitems && rc == 0; i++) {
		const struct core_select_item *it = &sl->items[i];

		if (it->star || it->expr->kind != CORE_EXPR_FUNC)
			rc = core_expr_err(err, CORE_EUSAGE, src, len, it->off,
			    it->len, "expected an aggregate such as count(*), "
			    "sum(x) or avg(x)");
		else
			rc = plan_call(q, it->expr, it->alias, src, in, err);
	}
	core_select_free(sl);
	return rc;
}

/*
 * Makes the --having tree e refer to output columns only: each
 * aggregate call in it becomes the output column of the same spelling
 * when there is one, else a hidden aggregate of its own, appended to
 * the calls (named pfx "h" N, dropped from the output after the
 * filter).  Anything else is left to the binding against the output.
 */
static int
having_walk(struct core_agg_query *q, struct core_expr *e, const char *src,
    const struct core_schema *in, struct core_err *err)
{
	struct core_err e2 = { 0, "" };
	enum core_agg_fn fn;
	char name[sizeof(q->pfx) + 16];
	const char *use = NULL;
	uint32_t i;
	char *text;
	int rc;

	if (e->kind != CORE_EXPR_FUNC ||
	    core_agg_fn_parse(e->text, &fn, &e2) != 0) {
		for (i = 0; i < e->nkids; i++)
			if ((rc = having_walk(q, e->kids[i], src, in, err)) !=
			    0)
				return rc;
		return 0;
	}
	text = core_expr_print(e);
	for (i = 0; i < q->ncalls && use == NULL; i++)
		if (strcmp(q->ctexts[i], text) == 0)
			use = q->names[i];
	free(text);
	if (use == NULL) {
		snprintf(name, sizeof(name), "%sh%u", q->pfx, q->nhidden);
		if ((rc = plan_call(q, e, name, src, in, err)) != 0)
			return rc;
		q->nhidden++;
		use = q->names[q->ncalls - 1];
	}
	for (i = 0; i < e->nkids; i++)
		core_expr_free(e->kids[i]);
	free(e->kids);
	e->kids = NULL;
	e->nkids = 0;
	e->kind = CORE_EXPR_COLUMN;
	e->star = e->distinct = false;
	core_expr_set_text(e, use, strlen(use));
	return 0;
}

static void
put_raw(char **buf, size_t *len, size_t *cap, const char *s)
{
	size_t n = strlen(s);

	*buf = core_grow(*buf, cap, *len + n + 1, 1, 64);
	memcpy(*buf + *len, s, n + 1);
	*len += n;
}

/* Appends the names, quoted where they must be, separated by commas. */
static void
put_names(char **buf, size_t *len, size_t *cap, char *const *names,
    uint32_t n)
{
	uint32_t i;

	put_raw(buf, len, cap, "");
	for (i = 0; i < n; i++) {
		if (i > 0)
			put_raw(buf, len, cap, ", ");
		core_expr_print_name(buf, len, cap, names[i],
		    strlen(names[i]));
	}
}

/* The prefix of the arguments' names: "#a", with a '#' more in front
 * while some key's name starts with it (a column can be "#a0"). */
static void
arg_prefix(struct core_agg_query *q)
{
	bool again = true;
	size_t n;
	uint32_t i;

	strcpy(q->pfx, "#a");
	while (again) {
		again = false;
		n = strlen(q->pfx);
		for (i = 0; i < q->nkeys && n + 2 < sizeof(q->pfx); i++)
			if (strncmp(q->keynames[i], q->pfx, n) == 0) {
				memmove(q->pfx + 1, q->pfx, n + 1);
				q->pfx[0] = '#';
				again = true;
				break;
			}
	}
}

int
core_agg_query_new(const char *by, const char *const *aggs, size_t naggs,
    const char *having, const struct core_schema *in,
    struct core_agg_query **out, int *which, struct core_err *err)
{
	struct core_agg_query *q = core_xcalloc(1, sizeof(*q));
	uint32_t i;
	size_t k;
	int rc = 0;

	*out = NULL;
	*which = -1;
	q->distinct_arg = -1;
	put(q, "");
	if (by != NULL && *by != '\0' && (rc = plan_by(q, by, in, err)) != 0)
		goto fail;
	arg_prefix(q);
	for (k = 0; k < naggs; k++) {
		*which = (int)k;
		if ((rc = plan_aggs(q, aggs[k], in, err)) != 0)
			goto fail;
	}
	if (having != NULL) {
		*which = -2;
		q->having_src = having;
		if ((rc = core_expr_parse(having, strlen(having), &q->having,
		    err)) != 0 || (rc = having_walk(q, q->having, having, in,
		    err)) != 0)
			goto fail;
		q->having_text = core_expr_print(q->having);
		if (q->nhidden > 0) {
			size_t vl = 0, vc = 0;
			uint32_t nv = q->ncalls - q->nhidden;

			put_names(&q->visible, &vl, &vc, q->keynames,
			    q->nkeys);
			if (q->nkeys > 0 && nv > 0)
				put_raw(&q->visible, &vl, &vc, ", ");
			put_names(&q->visible, &vl, &vc, q->names, nv);
		}
	}
	/* count(*) alone needs rows, not columns: one constant. */
	if (q->len == 0)
		put(q, "TRUE AS \"#rows\"");
	for (i = 0; i < q->ncalls; i++)
		q->calls[i].name = q->names[i];
	/* Never NULL arrays, even empty: the planner copies them with
	 * memcpy, for which NULL is undefined whatever the length. */
	if (q->keys == NULL)
		q->keys = core_xcalloc(1, sizeof(*q->keys));
	if (q->calls == NULL)
		q->calls = core_xcalloc(1, sizeof(*q->calls));
	q->spec.keys = q->keys;
	q->spec.nkeys = q->nkeys;
	q->spec.aggs = q->calls;
	q->spec.naggs = q->ncalls;
	*out = q;
	return 0;
fail:
	core_agg_query_free(q);
	return rc;
}

void
core_agg_query_free(struct core_agg_query *q)
{
	uint32_t i;

	if (q == NULL)
		return;
	for (i = 0; i < q->ncalls; i++) {
		free(q->names[i]);
		free(q->ctexts[i]);
		free((char *)q->calls[i].sep);	/* owned here */
	}
	free(q->names);
	free(q->ctexts);
	core_expr_free(q->having);
	free(q->having_text);
	free(q->visible);
	for (i = 0; i < q->nkeys; i++)
		free(q->keynames[i]);
	free(q->keynames);
	for (i = 0; i < q->nargs; i++)
		free(q->argtexts[i]);
	free(q->argtexts);
	free(q->distinct_text);
	free(q->calls);
	free(q->keys);
	free(q->select);
	free(q);
}

const char *
core_agg_query_select(const struct core_agg_query *q)
{
	return q->select;
}

const char *
core_agg_query_having(const struct core_agg_query *q)
{
	return q->having_text;
}

const char *
core_agg_query_visible(const struct core_agg_query *q)
{
	return q->visible;
}

int
core_agg_query_having_check(const struct core_agg_query *q,
    const struct core_schema *out, struct core_err *err)
{
	struct core_expr_bound *b = NULL;
	struct core_coltype t;
	char tn[CORE_TYPE_NAME_MAX];
	const char *src = q->having_src;
	int rc;

	if (q->having == NULL)
		return 0;
	if ((rc = core_expr_bind(q->having, src, strlen(src), out, &b,
	    err)) != 0)
		return rc;
	t = core_expr_bound_type(b);
	core_expr_bound_free(b);
	if (t.id != CORE_TYPE_BOOL)
		return core_expr_err(err, CORE_EUSAGE, src, strlen(src),
		    q->having->off, q->having->len, "a condition is "
		    "boolean, not %s: compare it, e.g. sum(x) > 10",
		    core_type_name(t, tn));
	return 0;
}

const struct core_agg_spec *
core_agg_query_spec(const struct core_agg_query *q)
{
	return &q->spec;
}
