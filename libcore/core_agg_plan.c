/*
 * core_agg_plan.c - what an aggregation produces (core_agg.h): function
 * names, result types, and the layout of the partial aggregates.
 *
 * Every aggregate is kept, in memory and in spill files, as a partial
 * aggregate (its "state"): a few columns that two partial aggregates of
 * one group merge by.  An input row becomes the state of a group of one
 * row, so the in-memory table, the partitions and their re-reading all
 * merge states and nothing else; the layout is decided here, once, and
 * the state schema (keys, then each aggregate's state columns) is what
 * the spill files hold.
 *
 * Integer-like values whose min, max or any_value is taken are widened to
 * int64 in their state (bool, int32 and date narrow back on output), so
 * the merge loops have four value kinds: int64, float64, string, and
 * the 128-bit integers of decimal(p > 18).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core_agg.h"
#include "core_agg_private.h"
#include "core_alloc.h"
#include "core_hash.h"

static const struct {
	const char *name;
	enum core_agg_fn fn;
} fn_names[] = {
	{ "count", CORE_AGG_COUNT }, { "sum", CORE_AGG_SUM },
	{ "avg", CORE_AGG_AVG }, { "mean", CORE_AGG_AVG },
	{ "min", CORE_AGG_MIN }, { "max", CORE_AGG_MAX },
	{ "any_value", CORE_AGG_ANY_VALUE },
	{ "var_samp", CORE_AGG_VAR_SAMP }, { "variance", CORE_AGG_VAR_SAMP },
	{ "var_pop", CORE_AGG_VAR_POP },
	{ "stddev_samp", CORE_AGG_STDDEV_SAMP },
	{ "stddev", CORE_AGG_STDDEV_SAMP },
	{ "stddev_pop", CORE_AGG_STDDEV_POP },
	{ "bool_and", CORE_AGG_BOOL_AND }, { "bool_or", CORE_AGG_BOOL_OR },
	{ "median", CORE_AGG_MEDIAN },
	{ "quantile_cont", CORE_AGG_QUANTILE_CONT },
	{ "quantile_disc", CORE_AGG_QUANTILE_DISC },
	{ "string_agg", CORE_AGG_STRING_AGG },
};

int
core_agg_fn_parse(const char *s, enum core_agg_fn *out, struct core_err *err)
{
	size_t i;

	for (i = 0; i < sizeof(fn_names) / sizeof(fn_names[0]); i++)
		if (strcasecmp(s, fn_names[i].name) == 0) {
			*out = fn_names[i].fn;
			return 0;
		}
	return core_err_set(err, CORE_EUSAGE, "unknown aggregate function: "
	    "%s", s);
}

const char *
core_agg_fn_name(enum core_agg_fn fn)
{
	size_t i;

	if (fn == CORE_AGG_COUNT_STAR)
		return "count";
	for (i = 0; i < sizeof(fn_names) / sizeof(fn_names[0]); i++)
		if (fn_names[i].fn == fn)
			return fn_names[i].name;
	return "?";
}

static bool
int_like(enum core_type t)
{
	return t == CORE_TYPE_BOOL || t == CORE_TYPE_INT32 ||
	    t == CORE_TYPE_INT64 || t == CORE_TYPE_DECIMAL;
}

static bool
numeric(enum core_type t)
{
	return t == CORE_TYPE_INT32 || t == CORE_TYPE_INT64 ||
	    t == CORE_TYPE_DECIMAL || t == CORE_TYPE_FLOAT64;
}

/*
 * DuckDB's result types (checked against DuckDB 1.x with typeof()), and
 * what is emitted while core_col has no 128-bit type:
 *   count(*), count(x)            BIGINT                -> int64
 *   sum(bool|int32|int64)         HUGEINT               -> decimal(38,0),
 *                                 colpipe's 128-bit integer: the same
 *                                 values to 38 digits (a 2^64-row sum of
 *                                 int64s stays inside), CORE_EDATA past
 *   sum(decimal(p,s))             DECIMAL(38,s)         -> decimal(38,s),
 *                                 CORE_EDATA past 38 digits
 *   sum(double)                   DOUBLE
 *   avg(int32|int64|decimal|double) DOUBLE
 *   min/max/any_value(T)          T
 *   var_*, stddev_*(number)       DOUBLE
 *   bool_and/bool_or(bool)        BOOLEAN
 *   median, quantile_cont(int32|int64|double)  DOUBLE
 *   median, quantile_cont(decimal(p<=18,s))    DECIMAL(p,s)
 *   median, quantile_cont(date|timestamp)      TIMESTAMP
 *   quantile_disc(T)              T (int32, int64, decimal, double,
 *                                 date, timestamp, varchar)
 *   median, quantile_cont(decimal(p>18,s))     DECIMAL(p,s)
 *   median(varchar)               VARCHAR (quantile_disc's value; DuckDB
 *                                 has no quantile_cont of strings)
 *   string_agg(varchar)           VARCHAR (DuckDB casts other types to
 *                                 VARCHAR; here the caller casts)
 */
int
core_agg_result_type(enum core_agg_fn fn, struct core_coltype arg,
    struct core_coltype *out, struct core_err *err)
{
	char tn[CORE_TYPE_NAME_MAX];
	struct core_coltype t = { 0, 0, 0 };

	switch (fn) {
	case CORE_AGG_COUNT_STAR:
	case CORE_AGG_COUNT:
		t.id = CORE_TYPE_INT64;
		break;
	case CORE_AGG_SUM:
		if (arg.id == CORE_TYPE_FLOAT64) {
			t.id = CORE_TYPE_FLOAT64;
		} else if (arg.id == CORE_TYPE_DECIMAL ||
		    arg.id == CORE_TYPE_DECIMAL128) {
			t = core_type_decimal(CORE_DECIMAL128_MAX_PRECISION,
			    arg.scale);
		} else if (int_like(arg.id)) {
			t = core_type_decimal(CORE_DECIMAL128_MAX_PRECISION,
			    0);
		} else {
			goto bad;
		}
		break;
	case CORE_AGG_AVG:
		if (!numeric(arg.id) && arg.id != CORE_TYPE_DECIMAL128)
			goto bad;
		t.id = CORE_TYPE_FLOAT64;
		break;
	case CORE_AGG_VAR_SAMP:
	case CORE_AGG_VAR_POP:
	case CORE_AGG_STDDEV_SAMP:
	case CORE_AGG_STDDEV_POP:
		if (!numeric(arg.id) && arg.id != CORE_TYPE_DECIMAL128)
			goto bad;
		t.id = CORE_TYPE_FLOAT64;
		break;
	case CORE_AGG_MIN:
	case CORE_AGG_MAX:
	case CORE_AGG_ANY_VALUE:
		t = arg;
		break;
	case CORE_AGG_BOOL_AND:
	case CORE_AGG_BOOL_OR:
		if (arg.id != CORE_TYPE_BOOL)
			goto bad;
		t.id = CORE_TYPE_BOOL;
		break;
	case CORE_AGG_MEDIAN:
	case CORE_AGG_QUANTILE_CONT:
	case CORE_AGG_QUANTILE_DISC:
		if (arg.id != CORE_TYPE_INT32 && arg.id != CORE_TYPE_INT64 &&
		    arg.id != CORE_TYPE_DECIMAL && arg.id != CORE_TYPE_FLOAT64 &&
		    arg.id != CORE_TYPE_DATE && arg.id != CORE_TYPE_TIMESTAMP &&
		    arg.id != CORE_TYPE_DECIMAL128 &&
		    (arg.id != CORE_TYPE_STRING ||
		    fn == CORE_AGG_QUANTILE_CONT))
			goto bad;
		t = arg;
		if (fn == CORE_AGG_QUANTILE_DISC)
			break;
		if (arg.id == CORE_TYPE_INT32 || arg.id == CORE_TYPE_INT64)
			t.id = CORE_TYPE_FLOAT64;
		else if (arg.id == CORE_TYPE_DATE)
			t.id = CORE_TYPE_TIMESTAMP;
		break;
	case CORE_AGG_STRING_AGG:
		if (arg.id != CORE_TYPE_STRING)
			goto bad;
		t = arg;
		break;
	default:
		return core_err_set(err, CORE_EUSAGE, "unknown aggregate "
		    "function %d", (int)fn);
	}
	*out = t;
	return 0;
bad:
	return core_err_set(err, CORE_EUSAGE, "%s does not take %s",
	    core_agg_fn_name(fn), core_type_name(arg, tn));
}

/* The state kind of an aggregate of argument type at. */
static void
layout(struct core_agg_a *a, struct core_coltype at)
{
	enum core_type t = at.id;

	a->op = OP_NONE;
	switch (a->fn) {
	case CORE_AGG_COUNT_STAR:
	case CORE_AGG_COUNT:
		a->st = ST_CNT;
		break;
	case CORE_AGG_SUM:
	case CORE_AGG_AVG:
		a->st = t == CORE_TYPE_FLOAT64 ? ST_SUMF : ST_SUMI;
		break;
	case CORE_AGG_MIN:
	case CORE_AGG_MAX:
	case CORE_AGG_ANY_VALUE:
		a->op = a->fn == CORE_AGG_MIN ? OP_MIN :
		    a->fn == CORE_AGG_MAX ? OP_MAX : OP_ANY;
		a->st = t == CORE_TYPE_FLOAT64 ? ST_VF :
		    t == CORE_TYPE_STRING ? ST_VS :
		    t == CORE_TYPE_DECIMAL128 ? ST_VW : ST_VI;
		break;
	case CORE_AGG_BOOL_AND:
	case CORE_AGG_BOOL_OR:
		a->op = a->fn == CORE_AGG_BOOL_AND ? OP_AND : OP_OR;
		a->st = ST_BOOL;
		break;
	case CORE_AGG_MEDIAN:
	case CORE_AGG_QUANTILE_CONT:
	case CORE_AGG_QUANTILE_DISC:
		a->st = t == CORE_TYPE_STRING || t == CORE_TYPE_DECIMAL128 ?
		    ST_QS : ST_Q;
		break;
	case CORE_AGG_STRING_AGG:
		a->st = ST_SA;
		break;
	default:
		a->st = ST_VAR;
		break;
	}
}

static const uint8_t st_ncols[] = {
	[ST_CNT] = 1, [ST_SUMI] = 3, [ST_SUMF] = 2, [ST_VI] = 1, [ST_VF] = 1,
	[ST_VS] = 1, [ST_VAR] = 3, [ST_BOOL] = 1, [ST_VW] = 1, [ST_Q] = 1,
	[ST_SA] = 1, [ST_QS] = 1,
};

/* Bytes of the in-memory arrays per group (core_agg.c's struct acc); the
 * values of ST_Q, ST_SA and ST_QS are charged as they come. */
static const uint8_t st_bytes[] = {
	[ST_CNT] = 8, [ST_SUMI] = 24, [ST_SUMF] = 16, [ST_VI] = 9,
	[ST_VF] = 9, [ST_VS] = 17, [ST_VAR] = 24, [ST_BOOL] = 2, [ST_VW] = 17,
	[ST_Q] = 16, [ST_SA] = 16, [ST_QS] = 16,
};

static void
state_cols(const struct core_agg_a *a, struct core_coltype *ct)
{
	struct core_coltype i64 = { CORE_TYPE_INT64, 0, 0 };
	struct core_coltype f64 = { CORE_TYPE_FLOAT64, 0, 0 };
	struct core_coltype str = { CORE_TYPE_STRING, 0, 0 };
	struct core_coltype bl = { CORE_TYPE_BOOL, 0, 0 };

	switch (a->st) {
	case ST_CNT:
		ct[0] = i64;
		break;
	case ST_SUMI:		/* low word, high word, count */
		ct[0] = i64;
		ct[1] = i64;
		ct[2] = i64;
		break;
	case ST_SUMF:		/* sum, count */
		ct[0] = f64;
		ct[1] = i64;
		break;
	case ST_VI:
		ct[0] = i64;
		break;
	case ST_VF:
		ct[0] = f64;
		break;
	case ST_VS:
	case ST_Q:
	case ST_SA:
	case ST_QS:
		ct[0] = str;
		break;
	case ST_VAR:		/* count, mean, sum of squared deviations */
		ct[0] = i64;
		ct[1] = f64;
		ct[2] = f64;
		break;
	case ST_BOOL:
		ct[0] = bl;
		break;
	case ST_VW:		/* the value itself, 16 bytes */
		ct[0] = a->at;
		break;
	}
}

/* v's state schema: its key schema's columns, then each aggregate's
 * state columns (from a->scol on). */
static struct core_schema *
make_state(const struct core_agg_plan_priv *v)
{
	struct core_schema *st;
	struct core_coltype ct[3];
	uint32_t i, j, nst = v->nkeys;
	char buf[32];

	for (i = 0; i < v->naggs; i++)
		nst += st_ncols[v->aggs[i].st];
	st = core_schema_new(nst);
	for (i = 0; i < v->nkeys; i++)
		core_schema_set(st, i, v->keyschema->fields[i].name,
		    v->keyschema->fields[i].type);
	for (i = 0; i < v->naggs; i++) {
		const struct core_agg_a *a = &v->aggs[i];

		state_cols(a, ct);
		for (j = 0; j < st_ncols[a->st]; j++) {
			snprintf(buf, sizeof(buf), "s%u.%u", i, j);
			core_schema_set(st, a->scol + j, buf, ct[j]);
		}
	}
	return st;
}

static void
priv_free(struct core_agg_plan_priv *v)
{
	if (v == NULL)
		return;
	priv_free(v->pre);
	free(v->seps);
	free(v->keys);
	free(v->aggs);
	core_schema_free(v->state);
	core_schema_free(v->keyschema);
	free(v);
}

/*
 * Splits v, whose DISTINCT aggregates all take input column x, in two
 * phases.  The first groups the input by (keys, x) and makes the states
 * of the other aggregates as usual; each of its groups is then one row
 * of the second, v itself, which groups by the keys alone: there the
 * DISTINCT aggregates see each (keys, x) once, x as a plain input
 * value, and the other aggregates merge the first phase's states.
 */
static void
plan_distinct(struct core_agg_plan_priv *v, const struct core_schema *in,
    uint32_t x)
{
	struct core_agg_plan_priv *pre = core_xcalloc(1, sizeof(*pre));
	uint32_t i, nk = v->nkeys, nst = nk + 1;

	pre->nkeys = nk + 1;
	pre->keys = core_xcalloc(nk + 1, sizeof(*pre->keys));
	memcpy(pre->keys, v->keys, nk * sizeof(*pre->keys));
	pre->keys[nk] = x;
	pre->keyschema = core_schema_new(nk + 1);
	for (i = 0; i < nk; i++)
		core_schema_set(pre->keyschema, i,
		    v->keyschema->fields[i].name,
		    v->keyschema->fields[i].type);
	core_schema_set(pre->keyschema, nk, "#distinct", in->fields[x].type);
	pre->aggs = core_xcalloc(v->naggs + 1, sizeof(*pre->aggs));
	for (i = 0; i < v->naggs; i++) {
		struct core_agg_a *a = &v->aggs[i], *b;

		if (a->distinct) {
			a->arg = (int32_t)nk;
			continue;
		}
		b = &pre->aggs[pre->naggs++];
		*b = *a;
		b->scol = nst;
		nst += st_ncols[b->st];
		pre->group_bytes += st_bytes[b->st];
		a->pre = true;
		a->pcol = b->scol;
	}
	pre->state = make_state(pre);
	for (i = 0; i < nk; i++)
		v->keys[i] = i;
	v->pre = pre;
}

int
core_agg_plan_new(const struct core_agg_spec *spec,
    const struct core_schema *in, struct core_agg_plan **out,
    struct core_err *err)
{
	struct core_agg_plan *p;
	struct core_agg_plan_priv *v;
	uint32_t i, nst;
	ssize_t dup;
	int32_t dx = -1;
	size_t seppos = 0;
	char buf[256];
	int rc;

	*out = NULL;
	if (spec->nkeys > CORE_HASH_MAX_KEYS)
		return core_err_set(err, CORE_EUSAGE, "more than %d group "
		    "keys", CORE_HASH_MAX_KEYS);
	for (i = 0; i < spec->nkeys; i++)
		if (spec->keys[i] >= in->ncols)
			return core_err_set(err, CORE_EUSAGE, "group key "
			    "column %u out of range (%u columns)",
			    spec->keys[i], in->ncols);
	p = core_xcalloc(1, sizeof(*p));
	v = p->priv = core_xcalloc(1, sizeof(*v));
	/* The separators in one buffer, made before any points into it. */
	for (i = 0, nst = 0; i < spec->naggs; i++)
		if (spec->aggs[i].fn == CORE_AGG_STRING_AGG)
			nst += (uint32_t)strlen(spec->aggs[i].sep != NULL ?
			    spec->aggs[i].sep : ",") + 1;
	v->seps = core_xmalloc(nst + 1);
	v->nkeys = spec->nkeys;
	v->naggs = spec->naggs;
	v->keys = core_xcalloc(spec->nkeys + 1, sizeof(*v->keys));
	v->aggs = core_xcalloc(spec->naggs + 1, sizeof(*v->aggs));
	if (spec->nkeys > 0)
		memcpy(v->keys, spec->keys, spec->nkeys * sizeof(*v->keys));
	p->out = core_schema_new(spec->nkeys + spec->naggs);
	v->keyschema = core_schema_new(spec->nkeys);
	nst = spec->nkeys;
	for (i = 0; i < spec->nkeys; i++) {
		const struct core_field *f = &in->fields[spec->keys[i]];

		core_schema_set(p->out, i, f->name, f->type);
		core_schema_set(v->keyschema, i, f->name, f->type);
	}
	for (i = 0; i < spec->naggs; i++) {
		const struct core_agg_call *c = &spec->aggs[i];
		struct core_agg_a *a = &v->aggs[i];
		struct core_coltype at = { CORE_TYPE_INT64, 0, 0 };

		a->fn = c->fn;
		if (c->fn == CORE_AGG_STRING_AGG) {
			const char *sp = c->sep != NULL ? c->sep : ",";

			a->sep = v->seps + seppos;
			a->seplen = (uint32_t)strlen(sp);
			memcpy(v->seps + seppos, sp, a->seplen + 1);
			seppos += a->seplen + 1;
		}
		a->q = c->fn == CORE_AGG_MEDIAN ? 0.5 : c->q;
		if (!(a->q >= 0 && a->q <= 1)) {
			rc = core_err_set(err, CORE_EUSAGE, "%s: the quantile "
			    "%g is not in [0, 1]; write it as a fraction: "
			    "quantile_cont(x, 0.9)", core_agg_fn_name(c->fn),
			    a->q);
			goto fail;
		}
		a->arg = c->fn == CORE_AGG_COUNT_STAR ? -1 : c->arg;
		if (c->distinct && a->arg < 0) {
			rc = core_err_set(err, CORE_EUSAGE, "%s(DISTINCT ...) "
			    "needs an argument: count(DISTINCT x)",
			    core_agg_fn_name(c->fn));
			goto fail;
		}
		if (a->arg >= 0) {
			if ((uint32_t)a->arg >= in->ncols) {
				rc = core_err_set(err, CORE_EUSAGE, "argument "
				    "column %d of %s out of range (%u "
				    "columns)", a->arg,
				    core_agg_fn_name(c->fn), in->ncols);
				goto fail;
			}
			at = in->fields[a->arg].type;
		} else if (c->fn != CORE_AGG_COUNT_STAR) {
			rc = core_err_set(err, CORE_EUSAGE, "%s needs an "
			    "argument", core_agg_fn_name(c->fn));
			goto fail;
		}
		if (c->distinct) {
			if (dx >= 0 && dx != a->arg) {
				rc = core_err_set(err, CORE_EUSAGE, "DISTINCT "
				    "over two different arguments (%s and "
				    "%s): one colagg takes one; aggregate "
				    "each in its own colagg and join them "
				    "with coljoin", in->fields[dx].name,
				    in->fields[a->arg].name);
				goto fail;
			}
			if (spec->nkeys >= CORE_HASH_MAX_KEYS) {
				rc = core_err_set(err, CORE_EUSAGE, "DISTINCT "
				    "with %d group keys: it groups by the "
				    "keys and its argument, at most %d",
				    CORE_HASH_MAX_KEYS, CORE_HASH_MAX_KEYS);
				goto fail;
			}
			dx = a->arg;
			a->distinct = true;
		}
		if ((rc = core_agg_result_type(c->fn, at, &a->rt, err)) != 0) {
			if (a->arg >= 0)
				core_err_prefix(err,
				    in->fields[a->arg].name);
			goto fail;
		}
		a->at = at;
		layout(a, at);
		a->scol = nst;
		nst += st_ncols[a->st];
		v->group_bytes += st_bytes[a->st];
		if (c->name != NULL)
			snprintf(buf, sizeof(buf), "%s", c->name);
		else if (a->arg < 0)
			snprintf(buf, sizeof(buf), "count_star()");
		else if (c->fn == CORE_AGG_QUANTILE_CONT ||
		    c->fn == CORE_AGG_QUANTILE_DISC)
			snprintf(buf, sizeof(buf), "%s(%s%s, %.17g)",
			    core_agg_fn_name(c->fn), c->distinct ?
			    "DISTINCT " : "", in->fields[a->arg].name, a->q);
		else if (c->fn == CORE_AGG_STRING_AGG)
			snprintf(buf, sizeof(buf), "%s(%s%s, '%s')",
			    core_agg_fn_name(c->fn), c->distinct ?
			    "DISTINCT " : "", in->fields[a->arg].name, a->sep);
		else
			snprintf(buf, sizeof(buf), "%s(%s%s)",
			    core_agg_fn_name(c->fn), c->distinct ?
			    "DISTINCT " : "", in->fields[a->arg].name);
		core_schema_set(p->out, spec->nkeys + i, buf, a->rt);
	}
	if ((dup = core_schema_first_dup(p->out)) >= 0) {
		rc = core_err_set(err, CORE_EUSAGE, "two output columns "
		    "named %s", p->out->fields[dup].name);
		goto fail;
	}
	if (dx >= 0)
		plan_distinct(v, in, (uint32_t)dx);
	v->state = make_state(v);
	*out = p;
	return 0;
fail:
	core_agg_plan_free(p);
	return rc;
}

void
core_agg_plan_free(struct core_agg_plan *p)
{
	if (p == NULL)
		return;
	priv_free(p->priv);
	core_schema_free(p->out);
	free(p);
}
