/*
 * core_col.c - types, schemas and column batches (see core_col.h).
 *
 * Invariants kept here: an owned buffer has cap > 0 and came from
 * core_xmalloc_aligned; a borrowed one has cap == 0 and is never freed or
 * written.  Growing a borrowed buffer replaces it with an owned one whose
 * contents are undefined, which is what a producer refilling a batch wants.
 */
#include <assert.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core_alloc.h"
#include "core_col.h"
#include "core_names.h"
#include "core_suggest.h"

size_t
core_type_width(enum core_type id)
{
	switch (id) {
	case CORE_TYPE_BOOL:
		return 1;
	case CORE_TYPE_INT32:
	case CORE_TYPE_DATE:
		return 4;
	case CORE_TYPE_INT64:
	case CORE_TYPE_FLOAT64:
	case CORE_TYPE_DECIMAL:
	case CORE_TYPE_TIMESTAMP:
		return 8;
	case CORE_TYPE_DECIMAL128:
		return 16;
	case CORE_TYPE_STRING:
		return 0;
	}
	return 0;
}

const char *
core_type_name(struct core_coltype t, char buf[CORE_TYPE_NAME_MAX])
{
	const char *s = "?";

	switch (t.id) {
	case CORE_TYPE_BOOL: s = "bool"; break;
	case CORE_TYPE_INT32: s = "int32"; break;
	case CORE_TYPE_INT64: s = "int64"; break;
	case CORE_TYPE_FLOAT64: s = "float64"; break;
	case CORE_TYPE_DATE: s = "date"; break;
	case CORE_TYPE_TIMESTAMP: s = "timestamp"; break;
	case CORE_TYPE_STRING: s = "string"; break;
	case CORE_TYPE_DECIMAL:
	case CORE_TYPE_DECIMAL128:
		snprintf(buf, CORE_TYPE_NAME_MAX, "decimal(%u,%u)",
		    (unsigned)t.precision, (unsigned)t.scale);
		return buf;
	}
	snprintf(buf, CORE_TYPE_NAME_MAX, "%s", s);
	return buf;
}

/*
 * Every spelling of a type, the canonical name first: colpipe's own, then
 * SQL's (DuckDB's, PostgreSQL's) and Arrow's.  A narrower type than
 * colpipe has (smallint, real) is read into the wider one, which holds
 * every value of it.  csv2col(1) documents this table: keep them one.
 * "int8" is SQL's eight bytes, not Arrow's one.
 */
static const struct {
	const char *name;
	enum core_type id;
} type_names[] = {
	{ "bool", CORE_TYPE_BOOL }, { "boolean", CORE_TYPE_BOOL },
	{ "logical", CORE_TYPE_BOOL },
	{ "int32", CORE_TYPE_INT32 }, { "int", CORE_TYPE_INT32 },
	{ "integer", CORE_TYPE_INT32 }, { "int4", CORE_TYPE_INT32 },
	{ "smallint", CORE_TYPE_INT32 }, { "int2", CORE_TYPE_INT32 },
	{ "int16", CORE_TYPE_INT32 }, { "tinyint", CORE_TYPE_INT32 },
	{ "int64", CORE_TYPE_INT64 }, { "bigint", CORE_TYPE_INT64 },
	{ "int8", CORE_TYPE_INT64 }, { "long", CORE_TYPE_INT64 },
	{ "float64", CORE_TYPE_FLOAT64 }, { "double", CORE_TYPE_FLOAT64 },
	{ "float8", CORE_TYPE_FLOAT64 }, { "float", CORE_TYPE_FLOAT64 },
	{ "double precision", CORE_TYPE_FLOAT64 },
	{ "real", CORE_TYPE_FLOAT64 }, { "float4", CORE_TYPE_FLOAT64 },
	{ "float32", CORE_TYPE_FLOAT64 },
	{ "date", CORE_TYPE_DATE }, { "date32", CORE_TYPE_DATE },
	{ "timestamp", CORE_TYPE_TIMESTAMP },
	{ "datetime", CORE_TYPE_TIMESTAMP },
	{ "timestamp[us]", CORE_TYPE_TIMESTAMP },
	{ "string", CORE_TYPE_STRING }, { "text", CORE_TYPE_STRING },
	{ "varchar", CORE_TYPE_STRING }, { "char", CORE_TYPE_STRING },
	{ "bpchar", CORE_TYPE_STRING }, { "utf8", CORE_TYPE_STRING },
	{ "large_utf8", CORE_TYPE_STRING },
	{ "large_string", CORE_TYPE_STRING },
};

/* "varchar(255)": SQL's string types with a length, which colpipe's
 * strings do not have, so it is checked and dropped. */
static bool
is_sized_string(const char *s, size_t len)
{
	static const char *const names[] = { "varchar", "char", "bpchar",
	    "nvarchar", "character varying", "character" };
	size_t i, n;
	const char *p;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		n = strlen(names[i]);
		if (len < n + 3 || strncasecmp(s, names[i], n) != 0 ||
		    s[n] != '(' || s[len - 1] != ')')
			continue;
		for (p = s + n + 1; p < s + len - 1; p++)
			if (!isdigit((unsigned char)*p))
				return false;
		return p > s + n + 1;
	}
	return false;
}

/* The unknown-type message: the closest spelling and the types there
 * are. */
static int
unknown_type(const char *s, size_t len, struct core_err *err)
{
	const char *names[sizeof(type_names) / sizeof(type_names[0]) + 2];
	char word[64];
	size_t i, n = sizeof(type_names) / sizeof(type_names[0]);
	int best;

	for (i = 0; i < n; i++)
		names[i] = type_names[i].name;
	names[n++] = "decimal";
	names[n++] = "numeric";
	snprintf(word, sizeof(word), "%.*s", (int)len, s);
	best = core_suggest_closest(word, names, n);
	return core_err_set(err, CORE_EUSAGE, "unknown type '%.*s'%s%s%s; "
	    "the types are bool, int32, int64, float64, decimal(p,s), date, "
	    "timestamp and string (or their SQL and Arrow names)", (int)len,
	    s, best >= 0 ? " (did you mean '" : "",
	    best >= 0 ? names[best] : "", best >= 0 ? "'?)" : "");
}

static int
parse_uint(const char **p, const char *end, unsigned *out)
{
	unsigned v = 0;
	const char *s = *p;

	while (s < end && *s == ' ')
		s++;
	if (s == end || !isdigit((unsigned char)*s))
		return -1;
	while (s < end && isdigit((unsigned char)*s)) {
		v = v * 10 + (unsigned)(*s - '0');
		if (v > 1000)
			return -1;
		s++;
	}
	while (s < end && *s == ' ')
		s++;
	*p = s;
	*out = v;
	return 0;
}

int
core_type_parse(const char *s, size_t len, struct core_coltype *out,
    struct core_err *err)
{
	const char *end = s + len, *p;
	unsigned prec, scale;
	size_t i, n;

	while (len > 0 && isspace((unsigned char)*s))
		s++, len--;
	while (len > 0 && isspace((unsigned char)s[len - 1]))
		len--;
	end = s + len;
	memset(out, 0, sizeof(*out));
	for (i = 0; i < sizeof(type_names) / sizeof(type_names[0]); i++) {
		n = strlen(type_names[i].name);
		if (n == len && strncasecmp(s, type_names[i].name, n) == 0) {
			out->id = type_names[i].id;
			return 0;
		}
	}
	if (is_sized_string(s, len)) {
		out->id = CORE_TYPE_STRING;
		return 0;
	}
	n = len >= 7 && (strncasecmp(s, "decimal", 7) == 0 ||
	    strncasecmp(s, "numeric", 7) == 0) ? 7 :
	    len >= 3 && strncasecmp(s, "dec", 3) == 0 ? 3 : 0;
	if (n > 0) {
		p = s + n;
		if (p == end || *p != '(')
			goto bad;
		p++;
		if (parse_uint(&p, end, &prec) != 0)
			goto bad;
		scale = 0;
		if (p < end && *p == ',') {
			p++;
			if (parse_uint(&p, end, &scale) != 0)
				goto bad;
		}
		if (p + 1 != end || *p != ')')
			goto bad;
		if (prec < 1 || prec > CORE_DECIMAL128_MAX_PRECISION)
			return core_err_set(err, CORE_EUSAGE,
			    "decimal precision must be 1 to %d: %.*s",
			    CORE_DECIMAL128_MAX_PRECISION, (int)len, s);
		if (scale > prec)
			return core_err_set(err, CORE_EUSAGE,
			    "decimal scale exceeds precision: %.*s", (int)len,
			    s);
		*out = core_type_decimal(prec, scale);
		return 0;
	}
bad:
	return unknown_type(s, len, err);
}

bool
core_type_equal(struct core_coltype a, struct core_coltype b)
{
	return a.id == b.id && a.precision == b.precision &&
	    a.scale == b.scale;
}

struct core_coltype
core_type_decimal(unsigned precision, unsigned scale)
{
	struct core_coltype t;

	t.id = precision > CORE_DECIMAL_MAX_PRECISION ? CORE_TYPE_DECIMAL128 :
	    CORE_TYPE_DECIMAL;
	t.precision = (uint8_t)precision;
	t.scale = (uint8_t)scale;
	return t;
}

struct core_schema *
core_schema_new(uint32_t ncols)
{
	struct core_schema *s = core_xcalloc(1, sizeof(*s));

	s->ncols = ncols;
	s->fields = core_xcalloc(ncols ? ncols : 1, sizeof(*s->fields));
	return s;
}

void
core_schema_free(struct core_schema *s)
{
	uint32_t i;

	if (s == NULL)
		return;
	for (i = 0; i < s->ncols; i++)
		free(s->fields[i].name);
	free(s->fields);
	free(s);
}

struct core_schema *
core_schema_clone(const struct core_schema *s)
{
	struct core_schema *c = core_schema_new(s->ncols);
	uint32_t i;

	for (i = 0; i < s->ncols; i++)
		core_schema_set(c, i, s->fields[i].name, s->fields[i].type);
	return c;
}

void
core_schema_set(struct core_schema *s, uint32_t i, const char *name,
    struct core_coltype type)
{
	free(s->fields[i].name);
	s->fields[i].name = core_xstrdup(name ? name : "");
	s->fields[i].type = type;
}

bool
core_schema_equal(const struct core_schema *a, const struct core_schema *b)
{
	uint32_t i;

	if (a->ncols != b->ncols)
		return false;
	for (i = 0; i < a->ncols; i++) {
		if (!core_type_equal(a->fields[i].type, b->fields[i].type) ||
		    strcmp(a->fields[i].name, b->fields[i].name) != 0)
			return false;
	}
	return true;
}

int
core_schema_find(const struct core_schema *s, const char *name)
{
	uint32_t i;

	for (i = 0; i < s->ncols; i++)
		if (strcmp(s->fields[i].name, name) == 0)
			return (int)i;
	return -1;
}

static const char *
field_name(const void *s, size_t i)
{
	return ((const struct core_schema *)s)->fields[i].name;
}

ssize_t
core_schema_first_dup(const struct core_schema *s)
{
	return core_names_first_dup(field_name, s, s->ncols);
}

char *
core_schema_describe(const struct core_schema *s)
{
	char tbuf[CORE_TYPE_NAME_MAX];
	size_t len = 1, off = 0;
	uint32_t i;
	char *out;

	for (i = 0; i < s->ncols; i++)
		len += strlen(s->fields[i].name) + CORE_TYPE_NAME_MAX + 2;
	out = core_xmalloc(len);
	out[0] = '\0';
	for (i = 0; i < s->ncols; i++)
		off += (size_t)snprintf(out + off, len - off, "%s%s:%s",
		    i ? "," : "", s->fields[i].name,
		    core_type_name(s->fields[i].type, tbuf));
	return out;
}

void
core_batch_init(struct core_batch *b, const struct core_schema *schema)
{
	uint32_t i;

	memset(b, 0, sizeof(*b));
	b->schema = schema;
	b->ncols = schema->ncols;
	b->cols = core_xcalloc(b->ncols ? b->ncols : 1, sizeof(*b->cols));
	for (i = 0; i < b->ncols; i++)
		b->cols[i].type = schema->fields[i].type;
}

static void
col_release(struct core_column *c)
{
	if (c->validity_cap)
		core_free_aligned(c->validity_buf);
	if (c->values_cap)
		core_free_aligned(c->values);
	if (c->offsets_cap)
		core_free_aligned(c->offsets);
	c->validity = NULL;
	c->validity_buf = NULL;
	c->values = NULL;
	c->offsets = NULL;
	c->validity_cap = c->values_cap = c->offsets_cap = 0;
}

void
core_batch_release(struct core_batch *b)
{
	uint32_t i;

	if (b->cols != NULL)
		for (i = 0; i < b->ncols; i++)
			col_release(&b->cols[i]);
	free(b->cols);
	memset(b, 0, sizeof(*b));
}

/* Makes *p an owned buffer of at least need bytes (contents undefined
 * when it was borrowed). */
static void
own_buffer(void **p, size_t *cap, size_t need)
{
	if (*cap == 0)
		*p = NULL;
	core_grow_aligned(p, cap, need);
}

void
core_batch_reserve(struct core_batch *b, uint32_t nrows, size_t str_bytes)
{
	struct core_column *c;
	uint32_t i;

	for (i = 0; i < b->ncols; i++) {
		c = &b->cols[i];
		c->validity = NULL;
		if (c->type.id == CORE_TYPE_STRING) {
			own_buffer((void **)&c->offsets, &c->offsets_cap,
			    core_mul_size((size_t)nrows + 1, sizeof(int32_t)));
			own_buffer(&c->values, &c->values_cap,
			    str_bytes ? str_bytes : 64);
			c->offsets[0] = 0;
		} else {
			own_buffer(&c->values, &c->values_cap,
			    core_mul_size(nrows ? nrows : 1,
			    core_type_width(c->type.id)));
		}
	}
	b->nrows = 0;
}

uint32_t
core_batch_rows_for(const struct core_schema *s, const uint32_t *sel,
    uint32_t n, uint32_t want)
{
	size_t row = 0, rows;

	if (sel == NULL)
		n = s->ncols;
	for (uint32_t k = 0; k < n; k++) {
		enum core_type id = s->fields[sel != NULL ? sel[k] : k].type.id;

		row += id == CORE_TYPE_STRING ? sizeof(int32_t) :
		    core_type_width(id);
	}
	rows = row > 0 ? CORE_BATCH_FIXED / row : want;
	if (rows > want)
		rows = want;
	return rows > 0 ? (uint32_t)rows : 1;
}

void
core_batch_reset(struct core_batch *b)
{
	uint32_t i;

	for (i = 0; i < b->ncols; i++) {
		/* The owned bitmap (validity_buf) is kept for reuse;
		 * core_col_set_null attaches it again on the next NULL. */
		b->cols[i].validity = NULL;
		if (b->cols[i].type.id == CORE_TYPE_STRING &&
		    b->cols[i].offsets_cap)
			b->cols[i].offsets[0] = 0;
	}
	b->nrows = 0;
}

void
core_col_set_null(struct core_column *c, uint32_t row, uint32_t nrows_cap)
{
	size_t need = core_bitmap_bytes(nrows_cap > row ? nrows_cap : row + 1);
	size_t old;

	if (c->validity == NULL) {
		/* First NULL of this batch: rows before it were valid. */
		if (c->validity_cap < need) {
			if (c->validity_cap)
				core_free_aligned(c->validity_buf);
			c->validity_buf = core_xmalloc_aligned(need);
			c->validity_cap = (need + 63) & ~(size_t)63;
		}
		memset(c->validity_buf, 0xff, c->validity_cap);
		c->validity = c->validity_buf;
	} else if (c->validity_cap < need) {
		/* Only an owned bitmap can be in use here: producers write
		 * into batches whose views they reset first. */
		old = c->validity_cap;
		core_grow_aligned((void **)&c->validity_buf, &c->validity_cap,
		    need);
		memset(c->validity_buf + old, 0xff, c->validity_cap - old);
		c->validity = c->validity_buf;
	}
	c->validity[row >> 3] &= (uint8_t)~(1u << (row & 7));
}

void
core_col_view(struct core_column *dst, const struct core_column *src)
{
	if (dst->values_cap)
		core_free_aligned(dst->values);
	if (dst->offsets_cap)
		core_free_aligned(dst->offsets);
	dst->values_cap = dst->offsets_cap = 0;
	dst->validity = src->validity;
	dst->values = src->values;
	dst->offsets = src->offsets;
}

void
core_col_reserve_bytes(struct core_column *c, size_t used, size_t need)
{
	if (used + need <= c->values_cap)
		return;
	core_grow_aligned(&c->values, &c->values_cap, used + need);
}

uint32_t
core_col_null_count(const struct core_column *c, uint32_t nrows)
{
	uint32_t n = 0, i, full = nrows / 8;

	if (c->validity == NULL)
		return 0;
	for (i = 0; i < full; i++)
		n += 8 - (uint32_t)__builtin_popcount(c->validity[i]);
	for (i = full * 8; i < nrows; i++)
		n += !core_col_is_valid(c, i);
	return n;
}

bool
core_col_value_equal(const struct core_column *a, uint32_t ra,
    const struct core_column *b, uint32_t rb)
{
	bool va = core_col_is_valid(a, ra), vb = core_col_is_valid(b, rb);
	size_t w;

	if (!core_type_equal(a->type, b->type) || va != vb)
		return false;
	if (!va)
		return true;
	if (a->type.id == CORE_TYPE_STRING) {
		int32_t la = a->offsets[ra + 1] - a->offsets[ra];
		int32_t lb = b->offsets[rb + 1] - b->offsets[rb];

		return la == lb && memcmp((const char *)a->values +
		    a->offsets[ra], (const char *)b->values + b->offsets[rb],
		    (size_t)la) == 0;
	}
	w = core_type_width(a->type.id);
	return memcmp((const char *)a->values + ra * w,
	    (const char *)b->values + rb * w, w) == 0;
}

/* ---- invariants, for debug builds ---- */

const char *
core_batch_check(const struct core_batch *b)
{
	uint32_t i, r;

	if (b->schema == NULL || b->ncols != b->schema->ncols)
		return "batch: ncols differs from its schema";
	for (i = 0; i < b->ncols; i++) {
		const struct core_column *c = &b->cols[i];
		size_t w = core_type_width(c->type.id);

		if (!core_type_equal(c->type, b->schema->fields[i].type))
			return "batch: a column's type differs from the schema";
		if (b->nrows == 0)
			continue;
		if (c->validity != NULL && c->validity == c->validity_buf &&
		    c->validity_cap < core_bitmap_bytes(b->nrows))
			return "batch: validity bitmap shorter than nrows";
		if (c->type.id == CORE_TYPE_STRING) {
			if (c->offsets == NULL || c->offsets[0] != 0)
				return "batch: string offsets[0] is not 0";
			if (c->offsets_cap != 0 && c->offsets_cap <
			    ((size_t)b->nrows + 1) * sizeof(int32_t))
				return "batch: offsets shorter than nrows + 1";
			for (r = 0; r < b->nrows; r++)
				if (c->offsets[r + 1] < c->offsets[r])
					return "batch: string offsets decrease";
			if (c->values_cap != 0 &&
			    (size_t)c->offsets[b->nrows] > c->values_cap)
				return "batch: offsets past the string bytes";
			continue;
		}
		if (c->values == NULL)
			return "batch: a column has no values";
		if (c->values_cap != 0 && c->values_cap < w * b->nrows)
			return "batch: values shorter than nrows";
	}
	return NULL;
}

void
core_batch_assert(const struct core_batch *b, const char *file, int line)
{
	const char *why = core_batch_check(b);

#ifndef NDEBUG
	/* The assertion's own report, so that libcore prints nothing
	 * itself (glibc's assert calls this too). */
	if (why != NULL)
		__assert_fail(why, file, (unsigned)line, "core_batch_assert");
#else
	(void)why;
	(void)file;
	(void)line;
#endif
}
