/*
 * core_sort_key.c - sort key specs, the order of every type, and the
 * normalized key words that make most comparisons two integer compares
 * (encodings: core_sort_private.h).
 *
 * core_sort_compare_key() is the definition of the order; the encoders
 * below must agree with it (a unit test compares them on random values of
 * every type).
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core_sort.h"
#include "core_sort_private.h"
#include "core_suggest.h"

/* Modifiers are case insensitive (":DESC"), as SQL's ASC and DESC. */
static bool
strip_suffix(char *s, size_t *len, const char *suf)
{
	size_t n = strlen(suf);

	if (*len > n && strncasecmp(s + *len - n, suf, n) == 0) {
		*len -= n;
		s[*len] = '\0';
		return true;
	}
	return false;
}

/* One end of a sort(1) key: F[.C][bdfgiMhnRrV]*; *p is moved past it.
 * Sets *field (1-based) and *rev when the flags hold an 'r'. */
static bool
gnu_pos(const char **p, unsigned long *field, bool *rev)
{
	const char *s = *p;
	char *end;

	if (!isdigit((unsigned char)*s))
		return false;
	*field = strtoul(s, &end, 10);
	s = end;
	if (*s == '.') {
		if (!isdigit((unsigned char)s[1]))
			return false;
		strtoul(s + 1, &end, 10);
		s = end;
	}
	while (*s != '\0' && strchr("bdfgiMhnRrV", *s) != NULL)
		if (*s++ == 'r')
			*rev = true;
	*p = s;
	return true;
}

/* A key typed from sort(1) habit ("9", "9,9", "2nr", "amount,amount"):
 * says how to write it here.  0 when spec is not one. */
static int
gnu_hint(const char *spec, const struct core_schema *s, struct core_err *err)
{
	const char *p = spec, *comma, *name;
	unsigned long f = 0, f2 = 0;
	bool rev = false;
	char head[256];
	int col;

	if (gnu_pos(&p, &f, &rev)) {
		if (*p == ',' && (++p, !gnu_pos(&p, &f2, &rev)))
			return 0;
		if (*p != '\0')
			return 0;
		if (f == 0 || f > s->ncols) {
			char msg[CORE_ERR_MSG_MAX / 2] = "";

			core_suggest_column(s, "", msg, sizeof(msg));
			return core_err_set(err, CORE_EUSAGE, "key '%s' is "
			    "sort(1)'s field syntax, but keys are column "
			    "names here, and the input has %u columns%s",
			    spec, (unsigned)s->ncols, msg);
		}
		name = s->fields[f - 1].name;
		if (rev)
			return core_err_set(err, CORE_EUSAGE, "key '%s' is "
			    "sort(1)'s field syntax, but keys are column "
			    "names here: field %lu is '%s', so type -k %s:desc "
			    "(each type orders itself: no 'n' is needed)",
			    spec, f, name, name);
		return core_err_set(err, CORE_EUSAGE, "key '%s' is sort(1)'s "
		    "field syntax, but keys are column names here: field %lu "
		    "is '%s', so type -k %s (descending: -k %s:desc; each "
		    "type orders itself: no 'n' is needed)", spec, f, name,
		    name, name);
	}
	/* "amount,amount": a range of one column, as sort(1) spells it. */
	comma = strchr(spec, ',');
	if (comma == NULL || (size_t)(comma - spec) >= sizeof(head))
		return 0;
	memcpy(head, spec, (size_t)(comma - spec));
	head[comma - spec] = '\0';
	if ((col = core_schema_find(s, head)) < 0)
		return 0;
	return core_err_set(err, CORE_EUSAGE, "key '%s': a key is one column "
	    "with no ',' range, as in -k %s (or -k %s:desc for descending)",
	    spec, head, head);
}

int
core_sort_key_parse(const char *spec, const struct core_schema *schema,
    struct core_sort_key *out, struct core_err *err)
{
	char name[1024];
	size_t len = strlen(spec);
	bool dir_seen = false, nulls_seen = false, more = true;
	int col, rc;

	memset(out, 0, sizeof(*out));
	if ((col = core_schema_find(schema, spec)) >= 0) {
		out->col = (uint32_t)col;
		return 0;
	}
	if (len >= sizeof(name))
		return core_err_set(err, CORE_EUSAGE, "key '%.60s...' is too "
		    "long", spec);
	memcpy(name, spec, len + 1);
	/* Options come last, in any order, each at most once. */
	while (more) {
		more = false;
		if (!dir_seen && strip_suffix(name, &len, ":asc")) {
			dir_seen = more = true;
		} else if (!dir_seen && strip_suffix(name, &len, ":desc")) {
			out->desc = true;
			dir_seen = more = true;
		} else if (!nulls_seen &&
		    strip_suffix(name, &len, ":nulls-first")) {
			out->nulls_first = true;
			nulls_seen = more = true;
		} else if (!nulls_seen &&
		    strip_suffix(name, &len, ":nulls-last")) {
			nulls_seen = more = true;
		}
	}
	if ((col = core_schema_find(schema, name)) < 0) {
		const char *colon = strchr(name, ':');
		char msg[CORE_ERR_MSG_MAX / 2] = "";

		if (colon != NULL) {
			char head[1024];

			memcpy(head, name, (size_t)(colon - name));
			head[colon - name] = '\0';
			if (core_schema_find(schema, head) >= 0)
				return core_err_set(err, CORE_EUSAGE,
				    "bad key option '%s' in '%s' (asc, desc, "
				    "nulls-first, nulls-last)", colon + 1,
				    spec);
		}
		if ((rc = gnu_hint(spec, schema, err)) != 0)
			return rc;
		core_suggest_column(schema, name, msg, sizeof(msg));
		return core_err_set(err, CORE_EUSAGE,
		    "unknown key column '%s'%s", name, msg);
	}
	out->col = (uint32_t)col;
	return 0;
}

static inline int
cmp_i64(int64_t a, int64_t b)
{
	return (a > b) - (a < b);
}

/* -0 == +0; NaN equals NaN and follows every number. */
static inline int
cmp_f64(double a, double b)
{
	if (a < b)
		return -1;
	if (a > b)
		return 1;
	if (a == b)
		return 0;
	return isnan(a) ? (isnan(b) ? 0 : 1) : -1;
}

int
core_sort_compare_key(const struct core_sort_key *k,
    const struct core_batch *a, uint32_t ra, const struct core_batch *b,
    uint32_t rb)
{
	const struct core_column *ca = &a->cols[k->col], *cb = &b->cols[k->col];
	bool va = core_col_is_valid(ca, ra), vb = core_col_is_valid(cb, rb);
	int c;

	if (!va || !vb) {
		if (va == vb)
			return 0;
		/* The direction does not move NULLs. */
		return !va == k->nulls_first ? -1 : 1;
	}
	switch (ca->type.id) {
	case CORE_TYPE_BOOL:
		c = (int)((const uint8_t *)ca->values)[ra] -
		    (int)((const uint8_t *)cb->values)[rb];
		break;
	case CORE_TYPE_INT32:
	case CORE_TYPE_DATE:
		c = cmp_i64(((const int32_t *)ca->values)[ra],
		    ((const int32_t *)cb->values)[rb]);
		break;
	case CORE_TYPE_INT64:
	case CORE_TYPE_DECIMAL:
	case CORE_TYPE_TIMESTAMP:
		c = cmp_i64(((const int64_t *)ca->values)[ra],
		    ((const int64_t *)cb->values)[rb]);
		break;
	case CORE_TYPE_FLOAT64:
		c = cmp_f64(((const double *)ca->values)[ra],
		    ((const double *)cb->values)[rb]);
		break;
	case CORE_TYPE_DECIMAL128: {
		core_i128 x = core_i128_load((const char *)ca->values +
		    16 * (size_t)ra);
		core_i128 y = core_i128_load((const char *)cb->values +
		    16 * (size_t)rb);

		c = (x > y) - (x < y);
		break;
	}
	case CORE_TYPE_STRING: {
		int32_t la = ca->offsets[ra + 1] - ca->offsets[ra];
		int32_t lb = cb->offsets[rb + 1] - cb->offsets[rb];
		int32_t n = la < lb ? la : lb;

		c = n > 0 ? memcmp((const char *)ca->values + ca->offsets[ra],
		    (const char *)cb->values + cb->offsets[rb], (size_t)n) : 0;
		if (c == 0)
			c = (la > lb) - (la < lb);
		else
			c = c < 0 ? -1 : 1;
		break;
	}
	default:
		c = 0;
		break;
	}
	return k->desc ? -c : c;
}

int
core_sort_compare(const struct core_sort_key *keys, size_t nkeys,
    const struct core_batch *a, uint32_t ra, const struct core_batch *b,
    uint32_t rb)
{
	size_t i;
	int c;

	for (i = 0; i < nkeys; i++)
		if ((c = core_sort_compare_key(&keys[i], a, ra, b, rb)) != 0)
			return c;
	return 0;
}

void
core_sort_plan_init(struct core_sort_plan *p, const struct core_sort_key *keys,
    size_t nkeys, const struct core_schema *schema)
{
	size_t i;

	memset(p, 0, sizeof(*p));
	p->keys = keys;
	p->nkeys = nkeys;
	p->nw = nkeys < CORE_SORT_MAX_WORDS ? nkeys : CORE_SORT_MAX_WORDS;
	for (i = 0; i < p->nw; i++) {
		struct core_sort_enc *e = &p->enc[i];

		e->col = keys[i].col;
		e->desc = keys[i].desc;
		e->nulls_first = keys[i].nulls_first;
		switch (schema->fields[e->col].type.id) {
		case CORE_TYPE_BOOL:
		case CORE_TYPE_INT32:
		case CORE_TYPE_DATE:
			e->kind = SORTK_EXACT;
			e->null_word = e->nulls_first ? 0 : (uint64_t)1 << 32;
			break;
		case CORE_TYPE_STRING:
			e->kind = SORTK_STRING;
			e->null_word = e->nulls_first ? 0 : UINT64_MAX;
			break;
		case CORE_TYPE_DECIMAL128:
			e->kind = SORTK_CLAMP;
			e->null_word = e->nulls_first ? 0 : UINT64_MAX;
			break;
		default:
			e->kind = SORTK_EXTREME;
			e->null_word = e->nulls_first ? 0 : UINT64_MAX;
			break;
		}
	}
}

static inline uint64_t
f64_word(double d)
{
	uint64_t u;

	if (d != d)
		d = NAN;
	else if (d == 0)
		d = 0;	/* folds -0 into +0 */
	memcpy(&u, &d, sizeof(u));
	if (d != d)
		u = 0x7ff8000000000000ull;
	return u >> 63 ? ~u : u | (uint64_t)1 << 63;
}

static inline uint64_t
str_word(const unsigned char *s, int32_t len)
{
	uint64_t w = 0;
	int32_t i, n = len < 7 ? len : 7;

	for (i = 0; i < n; i++)
		w |= (uint64_t)s[i] << (56 - 8 * i);
	return w | (uint64_t)((len < 8 ? len : 8) + 1);
}

/* Encodes one key of every row; the loops are per type so each is a
 * tight loop the compiler can unroll. */
static void
encode_key(const struct core_sort_enc *e, const struct core_column *c,
    uint32_t n, uint64_t *out, size_t stride)
{
	uint64_t inv = e->desc ? UINT64_MAX : 0;
	uint32_t r;

	switch (c->type.id) {
	case CORE_TYPE_BOOL: {
		const uint8_t *v = c->values;
		uint64_t hi = e->nulls_first ? (uint64_t)1 << 32 : 0;

		for (r = 0; r < n; r++)
			out[r * stride] = hi | (((uint64_t)v[r] ^ inv) &
			    0xffffffffu);
		break;
	}
	case CORE_TYPE_INT32:
	case CORE_TYPE_DATE: {
		const int32_t *v = c->values;
		uint64_t hi = e->nulls_first ? (uint64_t)1 << 32 : 0;

		for (r = 0; r < n; r++)
			out[r * stride] = hi | ((((uint64_t)(uint32_t)v[r] ^
			    0x80000000u) ^ inv) & 0xffffffffu);
		break;
	}
	case CORE_TYPE_INT64:
	case CORE_TYPE_DECIMAL:
	case CORE_TYPE_TIMESTAMP: {
		const int64_t *v = c->values;

		for (r = 0; r < n; r++)
			out[r * stride] = ((uint64_t)v[r] ^
			    (uint64_t)1 << 63) ^ inv;
		break;
	}
	case CORE_TYPE_FLOAT64: {
		const double *v = c->values;

		for (r = 0; r < n; r++)
			out[r * stride] = f64_word(v[r]) ^ inv;
		break;
	}
	case CORE_TYPE_DECIMAL128: {
		const char *v = c->values;

		for (r = 0; r < n; r++) {
			core_i128 x = core_i128_load(v + 16 * (size_t)r);
			int64_t y = x > INT64_MAX ? INT64_MAX :
			    x < INT64_MIN ? INT64_MIN : (int64_t)x;

			out[r * stride] = ((uint64_t)y ^
			    (uint64_t)1 << 63) ^ inv;
		}
		break;
	}
	case CORE_TYPE_STRING: {
		const unsigned char *v = c->values;
		const int32_t *off = c->offsets;

		for (r = 0; r < n; r++)
			out[r * stride] = str_word(v + off[r],
			    off[r + 1] - off[r]) ^ inv;
		break;
	}
	}
	if (c->validity != NULL)
		for (r = 0; r < n; r++)
			if (!core_col_is_valid(c, r))
				out[r * stride] = e->null_word;
}

void
core_sort_encode(const struct core_sort_plan *p, const struct core_batch *b,
    uint64_t *out, size_t stride)
{
	size_t k;

	for (k = 0; k < p->nw; k++)
		encode_key(&p->enc[k], &b->cols[p->enc[k].col], b->nrows,
		    out + k, stride);
}
