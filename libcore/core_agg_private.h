/*
 * core_agg_private.h - the plan's inside, shared by core_agg_*.c and
 * test_agg.c: each aggregate's state kind and where its state columns
 * are in the state schema (see core_agg_plan.c).
 */
#ifndef CORE_AGG_PRIVATE_H
#define CORE_AGG_PRIVATE_H

#include <stdbool.h>
#include <stdint.h>

#include "core_agg.h"
#include "core_col.h"

/* State kinds: what the partial aggregate holds. */
enum {
	ST_CNT = 0,	/* count */
	ST_SUMI,	/* 128-bit sum and count (sum, avg of integers) */
	ST_SUMF,	/* double sum and count */
	ST_VI,		/* one int64 value or none (min, max, any_value) */
	ST_VF,		/* one double or none */
	ST_VS,		/* one string or none */
	ST_VAR,		/* count, mean, sum of squared deviations */
	ST_BOOL,	/* one bool or none (bool_and, bool_or) */
	ST_VW,		/* one 128-bit value or none (min, max, any_value
			   of decimal(p > 18)) */
	ST_Q,		/* all the group's values (median, quantiles): a
			   string of packed int64s, doubles as their
			   order-preserving int64 keys */
	ST_SA,		/* string_agg: the group's strings so far joined
			   by the separator, NULL for none */
	ST_QS,		/* all the group's values (median, quantiles of
			   strings and of decimal(p > 18)): a string of
			   items, each a 4-byte length and its bytes, a
			   decimal as 16 bytes that memcmp orders */
};

enum { OP_NONE = 0, OP_MIN, OP_MAX, OP_ANY, OP_AND, OP_OR };

struct core_agg_a {
	enum core_agg_fn fn;
	int32_t arg;			/* input column or -1 */
	struct core_coltype at;		/* argument type */
	struct core_coltype rt;		/* result type */
	uint8_t st, op;
	uint32_t scol;			/* first state column */
	bool distinct;			/* over the distinct values of arg */
	double q;			/* ST_Q: the quantile (median 0.5) */
	const char *sep;		/* ST_SA: the separator, in the
					   plan's seps */
	uint32_t seplen;
	/* Second phase of a DISTINCT plan: the state is already made, in
	 * input columns pcol, ... (the first phase's states). */
	bool pre;
	uint32_t pcol;
};

struct core_agg_plan_priv {
	uint32_t nkeys, naggs;
	uint32_t *keys;			/* owned, nkeys input columns */
	struct core_agg_a *aggs;	/* owned, naggs */
	struct core_schema *keyschema;	/* owned: the key columns */
	struct core_schema *state;	/* owned: keys, then states */
	uint32_t group_bytes;		/* states' bytes per group */
	/* With DISTINCT aggregates, the first phase: grouped by the keys
	 * and the DISTINCT argument, the other aggregates' states made
	 * alongside; this plan then reads its state batches.  Owned. */
	struct core_agg_plan_priv *pre;
	char *seps;			/* owned: string_agg's separators,
					   each NUL-terminated; the first
					   phase's point into its plan's */
};

#endif
