/*
 * schema.h - the fixed schema the binder and spec targets resolve names
 * against, and a small batch of it with NULLs and extreme values for the
 * evaluator: one column of every type, and names with ':' and spaces,
 * which the key-spec parsers must find by their whole name.
 */
#ifndef FUZZ_SCHEMA_H
#define FUZZ_SCHEMA_H

#include <stdint.h>
#include <string.h>

#include "core_col.h"

#define FUZZ_ROWS 5

static inline struct core_schema *
fuzz_schema(void)
{
	static const struct {
		const char *name;
		struct core_coltype t;
	} cols[] = {
		{ "a", { CORE_TYPE_INT64, 0, 0 } },
		{ "i", { CORE_TYPE_INT32, 0, 0 } },
		{ "f", { CORE_TYPE_FLOAT64, 0, 0 } },
		{ "price", { CORE_TYPE_DECIMAL, 15, 2 } },
		{ "big", { CORE_TYPE_DECIMAL128, 38, 4 } },
		{ "d", { CORE_TYPE_DATE, 0, 0 } },
		{ "ts", { CORE_TYPE_TIMESTAMP, 0, 0 } },
		{ "s", { CORE_TYPE_STRING, 0, 0 } },
		{ "flag", { CORE_TYPE_BOOL, 0, 0 } },
		{ "c:d", { CORE_TYPE_INT64, 0, 0 } },
		{ "two words", { CORE_TYPE_STRING, 0, 0 } },
	};
	struct core_schema *s = core_schema_new(sizeof(cols) /
	    sizeof(cols[0]));
	uint32_t i;

	for (i = 0; i < s->ncols; i++)
		core_schema_set(s, i, cols[i].name, cols[i].t);
	return s;
}

/* Fills b (initialised for fuzz_schema()) with FUZZ_ROWS rows: zero,
 * one, the extremes of each width and a NULL row. */
static inline void
fuzz_batch_fill(struct core_batch *b)
{
	static const int64_t v64[FUZZ_ROWS] = { 0, 1, -1, INT64_MAX,
	    INT64_MIN };
	static const char *str[FUZZ_ROWS] = { "", "x", "%_\\",
	    "\xc3\xa9t\xc3\xa9", "a longer string value" };
	uint32_t c, r;

	core_batch_reserve(b, FUZZ_ROWS, 64);
	for (c = 0; c < b->ncols; c++) {
		struct core_column *col = &b->cols[c];
		int32_t off = 0;

		for (r = 0; r < FUZZ_ROWS; r++) {
			switch (col->type.id) {
			case CORE_TYPE_BOOL:
				((uint8_t *)col->values)[r] = r & 1;
				break;
			case CORE_TYPE_INT32:
			case CORE_TYPE_DATE:
				((int32_t *)col->values)[r] = (int32_t)v64[r];
				break;
			case CORE_TYPE_FLOAT64:
				((double *)col->values)[r] = (double)v64[r] / 3;
				break;
			case CORE_TYPE_DECIMAL128:
				memset((char *)col->values + 16 * r,
				    v64[r] < 0 ? 0xff : 0, 16);
				memcpy((char *)col->values + 16 * r, &v64[r], 8);
				break;
			case CORE_TYPE_STRING:
				col->offsets[r] = off;
				memcpy((char *)col->values + off, str[r],
				    strlen(str[r]));
				off += (int32_t)strlen(str[r]);
				col->offsets[r + 1] = off;
				break;
			default:
				((int64_t *)col->values)[r] = v64[r];
				break;
			}
		}
		core_col_set_null(col, 2, FUZZ_ROWS);
	}
	b->nrows = FUZZ_ROWS;
}

#endif
