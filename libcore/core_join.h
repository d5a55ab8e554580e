/*
 * core_join.h - joins of two column streams on equality keys.
 *
 * This part is the plan: what a join of a left and a right schema on the
 * given keys produces, decided before any row is read, so that every
 * mistake in the command line (an unknown column, keys that cannot be
 * compared, a name on both sides) is a usage error that costs nothing.
 *
 * Join types have SQL's meaning: inner, left, right and full (outer)
 * joins; semi (left rows with a match) and anti (left rows without one,
 * NOT EXISTS).  A NULL key never matches.  The output holds the left
 * columns, then the right ones (none for semi and anti), the right key
 * columns left out on request.
 *
 * Keys of different but compatible types compare as SQL compares them,
 * in a common type: int32 with int64 as int64; decimals of different
 * scales (and integers with decimals) as one decimal of the larger scale
 * with room for both sides' integer digits, when that fits in 18 digits;
 * a float64 with any number as float64; a date with a timestamp as a
 * timestamp.  Strings join only strings, booleans only booleans.
 */
#ifndef CORE_JOIN_H
#define CORE_JOIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core_col.h"
#include "core_err.h"

enum core_join_type {
	CORE_JOIN_INNER,
	CORE_JOIN_LEFT,
	CORE_JOIN_RIGHT,
	CORE_JOIN_FULL,
	CORE_JOIN_SEMI,
	CORE_JOIN_ANTI,
};

/* "inner", "left", "right", "full", "semi", "anti" (case-insensitive;
 * also "left outer", "right outer", "full outer").  0 or CORE_EUSAGE. */
int core_join_type_parse(const char *s, enum core_join_type *out,
    struct core_err *err);
const char *core_join_type_name(enum core_join_type t);

/* What the caller asks for; strings borrowed for the call. */
struct core_join_spec {
	enum core_join_type type;
	/* "L=R[,L2=R2...]": a left column equal to a right one; "K" alone
	 * is "K=K". */
	const char *on;
	/* Appended to a right column's name that a left column (or an
	 * earlier output column) already has; NULL: such a clash is an
	 * error. */
	const char *suffix;
	bool drop_right_keys;	/* leave the right key columns out */
};

/* One key pair and the type both sides compare in. */
struct core_join_key {
	uint32_t lcol, rcol;		/* column indices on each side */
	struct core_coltype common;
};

/* Where an output column comes from. */
struct core_join_src {
	uint8_t side;			/* 0 left, 1 right */
	uint32_t col;			/* column index on that side */
};

struct core_join_plan {
	enum core_join_type type;
	struct core_join_key *keys;	/* owned, nkeys >= 1 */
	size_t nkeys;
	struct core_schema *out;	/* owned: the output's schema */
	struct core_join_src *src;	/* owned: out->ncols entries */
};

/*
 * Plans the join of left and right (borrowed for the call) as spec asks.
 * On success *out is the caller's (core_join_plan_free).  CORE_EUSAGE
 * with a message naming the column, its side and, for keys, both types,
 * for: an empty or malformed key list, a column a side does not have
 * (the message lists the side's columns), keys whose types cannot be
 * compared, a column name that both sides give the output.
 */
int core_join_plan_new(const struct core_join_spec *spec,
    const struct core_schema *left, const struct core_schema *right,
    struct core_join_plan **out, struct core_err *err);
void core_join_plan_free(struct core_join_plan *p);	/* accepts NULL */

/* The type keys of types a and b compare in: 0, or CORE_EUSAGE when
 * they cannot be compared (err says why, without column names). */
int core_join_common_type(struct core_coltype a, struct core_coltype b,
    struct core_coltype *out, struct core_err *err);

#endif
