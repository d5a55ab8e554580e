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
	struct core_agg_call *calls;	/* owned */
	char **names;			/* owned, one per call */
	char **keynames;		/* owned, one per key */
	char pfx[40];			/* the arguments' names: pfx, N */
	uint32_t nkeys, ncalls, nargs;
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

/* The aggregates of one text: each item a call. */
static int
plan_aggs(struct core_agg_query *q, const char *src,
    const struct core_schema *in, struct core_err *err)
{
	struct core_select *sl = NULL;
	size_t len = strlen(src);
	struct core_err e2 = { 0, "" };
	struct core_coltype t, rt;
	uint32_t i;
	int rc, col;

	if ((rc = core_select_parse(src, len, &sl, err)) != 0)
		return rc;
	for (i = 0; i < sl->nitems && rc == 0; i++) {
		const struct core_select_item *it = &sl->items[i];
		const struct core_expr *e = it->expr;
		struct core_agg_call *c;
		enum core_agg_fn fn;
		char arg[sizeof(q->pfx) + 12];

		if (it->star || e->kind != CORE_EXPR_FUNC) {
			rc = core_expr_err(err, CORE_EUSAGE, src, len, it->off,
			    it->len, "expected an aggregate such as count(*), "
			    "sum(x) or avg(x)");
			break;
		}
		if (core_agg_fn_parse(e->text, &fn, &e2) != 0) {
			rc = core_expr_err(err, CORE_EUSAGE, src, len, e->off,
			    e->len, "%s", e2.msg);
			break;
		}
		q->calls = core_xrealloc(q->calls, (q->ncalls + 1) *
		    sizeof(*q->calls));
		q->names = core_xrealloc(q->names, (q->ncalls + 1) *
		    sizeof(*q->names));
		c = &q->calls[q->ncalls];
		memset(c, 0, sizeof(*c));
		q->names[q->ncalls] = it->alias ? core_xstrdup(it->alias) :
		    core_expr_print(e);
		q->ncalls++;
		c->fn = fn;
		c->distinct = e->distinct;
		c->arg = -1;
		if (e->star) {
			if (fn != CORE_AGG_COUNT)
				rc = core_expr_err(err, CORE_EUSAGE, src, len,
				    e->off, e->len, "only count takes *");
			c->fn = CORE_AGG_COUNT_STAR;
			continue;
		}
		if (e->nkids != 1) {
			rc = core_expr_err(err, CORE_EUSAGE, src, len, e->off,
			    e->len, "%s takes one argument, not %u",
			    core_agg_fn_name(fn), e->nkids);
			break;
		}
		if ((rc = bind_at(e->kids[0], src, in, &t, &col, err)) != 0)
			break;
		if (core_agg_result_type(fn, t, &rt, &e2) != 0) {
			rc = core_expr_err(err, CORE_EUSAGE, src, len,
			    e->kids[0]->off, e->kids[0]->len, "%s", e2.msg);
			break;
		}
		snprintf(arg, sizeof(arg), "%s%u", q->pfx, q->nargs);
		put_item(q, e->kids[0], arg);
		c->arg = (int32_t)(q->nkeys + q->nargs);
		q->nargs++;
	}
	core_select_free(sl);
	return rc;
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
    const struct core_schema *in, struct core_agg_query **out, int *which,
    struct core_err *err)
{
	struct core_agg_query *q = core_xcalloc(1, sizeof(*q));
	uint32_t i;
	size_t k;
	int rc = 0;

	*out = NULL;
	*which = -1;
	put(q, "");
	if (by != NULL && *by != '\0' && (rc = plan_by(q, by, in, err)) != 0)
		goto fail;
	arg_prefix(q);
	for (k = 0; k < naggs; k++) {
		*which = (int)k;
		if ((rc = plan_aggs(q, aggs[k], in, err)) != 0)
			goto fail;
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
	for (i = 0; i < q->ncalls; i++)
		free(q->names[i]);
	free(q->names);
	for (i = 0; i < q->nkeys; i++)
		free(q->keynames[i]);
	free(q->keynames);
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

const struct core_agg_spec *
core_agg_query_spec(const struct core_agg_query *q)
{
	return &q->spec;
}
