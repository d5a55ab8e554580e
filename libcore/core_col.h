/*
 * core_col.h - colpipe's types, schemas and column batches.
 *
 * A batch holds up to a few thousand rows column by column, in buffers laid
 * out like Apache Arrow's:
 *   - validity: LSB-first bitmap, bit i set = row i is valid (not NULL).
 *     validity == NULL means no row of the column is NULL.
 *   - fixed-width values: bool (1 byte, 0 or 1), int32, int64, float64,
 *     decimal (int64 scaled by 10^scale, precision <= 18), decimal128
 *     (16-byte little-endian two's complement, core_i128, scaled by
 *     10^scale, precision 19..38), date (int32 days since 1970-01-01),
 *     timestamp (int64 microseconds since the epoch, UTC).
 *     The value slot of a NULL row holds zero.
 *   - strings: nrows+1 int32 offsets into a byte buffer of UTF-8 text;
 *     offsets[0] == 0, offsets non-decreasing, a NULL string is empty.
 * Every buffer starts 64-byte aligned in memory.
 *
 * Ownership: a column either owns its value/offset buffers (cap fields
 * > 0, allocated with core_xmalloc_aligned, freed by core_batch_release)
 * or borrows them from the object that filled it (cap fields == 0; e.g.
 * the MLSPILL3 reader, whose buffers stay valid until its next read call).
 * The validity pointer is a view: of the owned validity_buf, of borrowed
 * memory, or NULL when the batch has no NULL in that column.
 */
#ifndef CORE_COL_H
#define CORE_COL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#include "core_err.h"

enum core_type {
	CORE_TYPE_BOOL = 1,
	CORE_TYPE_INT32 = 2,
	CORE_TYPE_INT64 = 3,
	CORE_TYPE_FLOAT64 = 4,
	CORE_TYPE_DECIMAL = 5,
	CORE_TYPE_DATE = 6,
	CORE_TYPE_TIMESTAMP = 7,
	CORE_TYPE_STRING = 8,
	CORE_TYPE_DECIMAL128 = 9,
};

/*
 * Users see one decimal(p,s) type; the id is its physical width.  DECIMAL
 * holds p <= 18 in an int64 (its bytes, on the wire and in Parquet, are
 * what they always were), DECIMAL128 holds 19 <= p <= 38 in a 128-bit
 * integer, as DuckDB does.  core_type_parse and core_type_decimal pick the
 * id from p, so a type of either id always has the precision of its range.
 */
#define CORE_DECIMAL_MAX_PRECISION 18
#define CORE_DECIMAL128_MAX_PRECISION 38

/* Most columns a table may have: readers refuse more (a crafted header
 * of commas would otherwise cost a schema entry per byte). */
#define CORE_COLUMNS_MAX ((uint32_t)1 << 20)

/* gcc and clang's 128-bit integer; __extension__ keeps -Wpedantic quiet
 * about a type C17 does not name.  Values sit in memory in the machine's
 * order, which colpipe (x86-64, aarch64) requires to be little-endian. */
__extension__ typedef __int128 core_i128;
__extension__ typedef unsigned __int128 core_u128;

/* Loads and stores of one value through memcpy: a 16-byte slot in a
 * borrowed buffer need not be 16-byte aligned (an MLSPILL3 payload is
 * 8-byte aligned), and the compiler may assume alignment for core_i128. */
static inline core_i128
core_i128_load(const void *p)
{
	core_i128 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline void
core_i128_store(void *p, core_i128 v)
{
	memcpy(p, &v, sizeof(v));
}

/* A column type.  precision/scale only mean something for DECIMAL
 * (1 <= precision <= 18) and DECIMAL128 (19 <= precision <= 38), with
 * 0 <= scale <= precision; zero otherwise. */
struct core_coltype {
	enum core_type id;
	uint8_t precision;
	uint8_t scale;
};

/* Width in bytes of one value, 0 for STRING. */
size_t core_type_width(enum core_type id);

/* Writes the canonical spelling ("int64", "decimal(15,2)") into buf;
 * returns buf. */
#define CORE_TYPE_NAME_MAX 32
const char *core_type_name(struct core_coltype t, char buf[CORE_TYPE_NAME_MAX]);

/* Parses a type spelling ("int", "int32", "bigint", "decimal(15,2)",
 * "date", "timestamp", "string", "text", "double", "bool" ...), case
 * insensitive.  0 or CORE_EUSAGE with a message. */
int core_type_parse(const char *s, size_t len, struct core_coltype *out,
    struct core_err *err);

bool core_type_equal(struct core_coltype a, struct core_coltype b);

/* The decimal type of precision 1..38 (DECIMAL or DECIMAL128 by width)
 * and scale 0..precision; the caller checks the ranges. */
struct core_coltype core_type_decimal(unsigned precision, unsigned scale);

/* DECIMAL or DECIMAL128. */
static inline bool
core_type_is_decimal(enum core_type id)
{
	return id == CORE_TYPE_DECIMAL || id == CORE_TYPE_DECIMAL128;
}

struct core_field {
	char *name;			/* owned, NUL-terminated UTF-8 */
	struct core_coltype type;
};

/* An ordered list of named, typed columns.  Heap object. */
struct core_schema {
	uint32_t ncols;
	struct core_field *fields;	/* owned, ncols entries */
};

struct core_schema *core_schema_new(uint32_t ncols);	/* names NULL */
void core_schema_free(struct core_schema *s);		/* accepts NULL */
struct core_schema *core_schema_clone(const struct core_schema *s);
/* Takes a copy of name. */
void core_schema_set(struct core_schema *s, uint32_t i, const char *name,
    struct core_coltype type);
bool core_schema_equal(const struct core_schema *a,
    const struct core_schema *b);
/* Index of the column called name, or -1. */
int core_schema_find(const struct core_schema *s, const char *name);
/* The first column whose name an earlier column of s has, or -1: in
 * time linear in the columns. */
ssize_t core_schema_first_dup(const struct core_schema *s);
/* "a:int64,b:decimal(15,2)" into a caller-owned core_xmalloc'd string. */
char *core_schema_describe(const struct core_schema *s);

struct core_column {
	struct core_coltype type;
	uint8_t *validity;	/* NULL = all valid; else a view of
				   validity_buf or borrowed */
	void *values;		/* fixed width values, or string bytes */
	int32_t *offsets;	/* STRING only: nrows + 1 entries */
	uint8_t *validity_buf;	/* owned bitmap storage (validity_cap) */
	size_t validity_cap;	/* bytes of validity_buf */
	size_t values_cap;	/* bytes owned; 0 = values borrowed */
	size_t offsets_cap;	/* bytes owned; 0 = offsets borrowed */
	/* Fixed width only: the bytes from one row's value to the next
	 * when values interleave with other columns' (core_sort packs a
	 * row's non-key values into one record in its buffer, which only
	 * core_gather reads); 0, the rule everywhere else: dense, the
	 * type's width apart. */
	uint32_t stride;
};

struct core_batch {
	const struct core_schema *schema;	/* borrowed */
	uint32_t nrows;
	uint32_t ncols;
	struct core_column *cols;		/* owned array, ncols */
};

/* Initialises an empty batch for schema (no buffers yet). */
void core_batch_init(struct core_batch *b, const struct core_schema *schema);
/* Frees owned buffers and the column array. */
void core_batch_release(struct core_batch *b);
/* Makes every column own buffers for at least nrows rows and str_bytes
 * string bytes per string column, dropping borrowed pointers; validity is
 * left NULL (see core_col_set_null).  Keeps nrows at 0. */
void core_batch_reserve(struct core_batch *b, uint32_t nrows,
    size_t str_bytes);
/*
 * The rows a batch of columns ncols of s (sel[k] for k < n, or all of s
 * when sel is NULL) should hold: want, or fewer when so many rows of
 * fixed-width values and string offsets would pass CORE_BATCH_FIXED
 * bytes; at least 1.  A table of a hundred thousand columns then costs
 * memory in proportion to its columns, not columns times want rows.
 */
#define CORE_BATCH_FIXED ((size_t)8 << 20)
uint32_t core_batch_rows_for(const struct core_schema *s,
    const uint32_t *sel, uint32_t n, uint32_t want);
/* nrows = 0; string offsets[0] = 0; validity dropped to NULL (the buffer
 * is kept for reuse).  Buffers are kept. */
void core_batch_reset(struct core_batch *b);

static inline bool
core_col_is_valid(const struct core_column *c, uint32_t row)
{
	return c->validity == NULL || (c->validity[row >> 3] >> (row & 7)) & 1;
}

/* Marks row NULL in an owned column, creating the bitmap (all valid for
 * rows before it) on first use; capacity is for at least nrows_cap rows. */
void core_col_set_null(struct core_column *c, uint32_t row,
    uint32_t nrows_cap);

/* Ensures an owned string column has room for need more bytes after
 * used bytes. */
void core_col_reserve_bytes(struct core_column *c, size_t used, size_t need);

/* Makes dst a borrowed view of src's validity, values and offsets (the
 * types are the caller's to match; dst's is left as it is).  Values and
 * offsets dst owned are freed first; its validity buffer is kept for
 * reuse.  src must outlive the view's use. */
void core_col_view(struct core_column *dst, const struct core_column *src);

/* Number of NULL rows among the first nrows. */
uint32_t core_col_null_count(const struct core_column *c, uint32_t nrows);

/* Bytes of the validity bitmap for nrows rows. */
static inline size_t
core_bitmap_bytes(uint32_t nrows)
{
	return ((size_t)nrows + 7) / 8;
}

/*
 * Checks the structural invariants above on a batch a stage hands on:
 * ncols and types as in its schema, offsets[0] == 0 and non-decreasing,
 * owned buffers large enough for nrows.  (What NULL slots hold is not
 * checked: a stream from elsewhere may carry bytes there, which readers
 * ignore, so it is input, not an invariant.)  NULL when they hold, else a
 * static description of the first one broken (for the assertion).
 */
const char *core_batch_check(const struct core_batch *b);

/* Aborts with file:line and core_batch_check's reason when b is broken;
 * for CORE_DCHECK_BATCH (core_debug.h) in debug builds. */
void core_batch_assert(const struct core_batch *b, const char *file,
    int line);

/* Row-wise equality of two columns of the same type (tests, checks). */
bool core_col_value_equal(const struct core_column *a, uint32_t ra,
    const struct core_column *b, uint32_t rb);

#endif
