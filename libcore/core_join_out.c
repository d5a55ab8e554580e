/*
 * core_join_out.c - output batches of a join from pairs of row
 * references (core_join_private.h).
 *
 * One gather per side, over that side's schema, fills that side's
 * columns; the output batch is then a list of column views picked from
 * the two gathered batches in the plan's order.  Two sets of outs are
 * used in turn, so the batch emitted last is untouched while the next is
 * gathered.  Only the columns the plan outputs are gathered (a dropped
 * right key costs nothing).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core_alloc.h"
#include "core_gather.h"
#include "core_join_private.h"

struct core_join_out {
	const struct core_join_plan *plan;	/* borrowed */
	struct core_gather *g[2];		/* owned: left, right */
	struct core_gather_out out[2][2];	/* [set][side] */
	unsigned set;				/* the set used next */
	bool *want[2];				/* owned: columns output */
	bool any[2];				/* the side has one */
	struct core_batch null[2];		/* one row of NULLs */
	struct core_batch batch;		/* views; cols owned */
	int32_t zero;				/* an empty string column's
						   offsets */
	bool emit_failed;			/* emit returned non-zero */
};

/* A one-row batch of schema whose every column is NULL. */
static void
null_row(struct core_batch *b, const struct core_schema *schema)
{
	uint32_t i;

	core_batch_init(b, schema);
	core_batch_reserve(b, 1, 0);
	for (i = 0; i < b->ncols; i++) {
		struct core_column *c = &b->cols[i];
		size_t w = core_type_width(c->type.id);

		if (w == 0) {
			c->offsets[0] = 0;
			c->offsets[1] = 0;
		} else {
			memset(c->values, 0, w);
		}
		core_col_set_null(c, 0, 1);
	}
	b->nrows = 1;
}

struct core_join_out *
core_join_out_new(const struct core_join_plan *plan,
    const struct core_schema *left, const struct core_schema *right,
    struct core_pool *pool, struct core_mem_part *mem)
{
	struct core_join_out *o = core_xcalloc(1, sizeof(*o));
	const struct core_schema *side[2] = { left, right };
	uint32_t i;
	int s, k;

	o->plan = plan;
	for (s = 0; s < 2; s++) {
		o->g[s] = core_gather_new(side[s], pool, mem);
		o->want[s] = core_xcalloc(side[s]->ncols ? side[s]->ncols : 1,
		    sizeof(bool));
		for (k = 0; k < 2; k++)
			core_gather_out_init(&o->out[k][s], side[s]);
		null_row(&o->null[s], side[s]);
	}
	for (i = 0; i < plan->out->ncols; i++) {
		const struct core_join_src *src = &plan->src[i];

		o->want[src->side][src->col] = true;
		o->any[src->side] = true;
	}
	core_batch_init(&o->batch, plan->out);
	return o;
}

void
core_join_out_free(struct core_join_out *o)
{
	int s, k;

	if (o == NULL)
		return;
	for (s = 0; s < 2; s++) {
		for (k = 0; k < 2; k++)
			core_gather_out_release(o->g[s], &o->out[k][s]);
		core_gather_free(o->g[s]);
		free(o->want[s]);
		core_batch_release(&o->null[s]);
	}
	/* The columns are views: nothing of theirs to free. */
	free(o->batch.cols);
	free(o);
}

const struct core_batch *
core_join_out_null(const struct core_join_out *o, int side)
{
	return &o->null[side != 0];
}

int
core_join_out_emit(struct core_join_out *o,
    const struct core_batch *const *lsrcs, size_t nl, const uint64_t *lref,
    const struct core_batch *const *rsrcs, size_t nr, const uint64_t *rref,
    uint32_t n, core_join_emit_fn emit, void *arg, struct core_err *err)
{
	struct core_gather_out *out = o->out[o->set];
	uint32_t i;
	int rc;

	if (n == 0)
		return 0;
	if (o->any[0])
		core_gather_rows(o->g[0], lsrcs, nl, lref, n,
		    CORE_GATHER_TEXT_UNKNOWN, o->want[0], &out[0]);
	if (o->any[1])
		core_gather_rows(o->g[1], rsrcs, nr, rref, n,
		    CORE_GATHER_TEXT_UNKNOWN, o->want[1], &out[1]);
	for (i = 0; i < o->plan->out->ncols; i++) {
		const struct core_join_src *src = &o->plan->src[i];
		struct core_column *c = &o->batch.cols[i];

		*c = out[src->side].batch.cols[src->col];
		/* A view: the gathered out owns the buffers. */
		c->validity_buf = NULL;
		c->validity_cap = 0;
		c->values_cap = 0;
		c->offsets_cap = 0;
	}
	o->batch.nrows = n;
	o->set ^= 1;
	if ((rc = emit(arg, &o->batch, err)) != 0)
		o->emit_failed = true;
	return rc;
}

int
core_join_out_finish(struct core_join_out *o, int rc, core_join_emit_fn emit,
    void *arg, struct core_err *err)
{
	struct core_err ignored = { 0, "" };
	uint32_t i;
	int erc;

	/* After emit's own failure it is not called again. */
	if (o->emit_failed)
		return rc;
	/* The columns of the last batch, or none: with no row, only their
	 * string offsets' first entry is read. */
	for (i = 0; i < o->batch.ncols; i++)
		if (o->batch.cols[i].offsets == NULL)
			o->batch.cols[i].offsets = &o->zero;
	o->batch.nrows = 0;
	erc = emit(arg, &o->batch, rc == 0 ? err : &ignored);
	return rc != 0 ? rc : erc;
}
