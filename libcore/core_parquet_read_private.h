/*
 * core_parquet_read_private.h - what the Parquet reader's footer and scan
 * code (core_parquet_read.c) shares with its page decoder
 * (core_parquet_read_decode.c).  Only for those two files.
 *
 * A cursor decodes one flat column's chunk of one row group, page after
 * page, a slice of rows at a time into a batch column.  The chunk's bytes
 * belong to the scan and stay put until the next row group; the cursor
 * owns the decompressed page, the dictionary and fixed-size scratch for
 * one batch (CORE_PARQUET_READ_BATCH_ROWS rows), so its memory does not
 * grow with the data beyond the largest page and dictionary.
 */
#ifndef CORE_PARQUET_READ_PRIVATE_H
#define CORE_PARQUET_READ_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core_codec.h"
#include "core_col.h"
#include "core_err.h"

/* parquet.thrift's Type. */
enum {
	PQ_BOOLEAN = 0,
	PQ_INT32 = 1,
	PQ_INT64 = 2,
	PQ_INT96 = 3,
	PQ_FLOAT = 4,
	PQ_DOUBLE = 5,
	PQ_BYTE_ARRAY = 6,
	PQ_FLBA = 7,
};

/* How a column's physical values become colpipe values. */
enum pq_conv {
	PQ_CONV_BOOL,		/* BOOLEAN -> bool */
	PQ_CONV_I32,		/* INT32 -> int32 or date */
	PQ_CONV_U32_I64,	/* INT32 read unsigned -> int64 */
	PQ_CONV_I32_I64,	/* INT32 -> decimal */
	PQ_CONV_I64,		/* INT64 -> int64, decimal, timestamp(us) */
	PQ_CONV_U64,		/* INT64 read unsigned -> int64, checked */
	PQ_CONV_TS_MS,		/* INT64 milliseconds -> timestamp */
	PQ_CONV_TS_NS,		/* INT64 nanoseconds -> timestamp */
	PQ_CONV_INT96,		/* INT96 (nanos of day, Julian day) */
	PQ_CONV_F32,		/* FLOAT -> float64 */
	PQ_CONV_F64,		/* DOUBLE -> float64 */
	PQ_CONV_F16,		/* FIXED_LEN_BYTE_ARRAY(2) FLOAT16 */
	PQ_CONV_DEC_BE,		/* big-endian two's complement -> decimal */
	PQ_CONV_STRING,		/* bytes -> string */
	PQ_CONV_UUID,		/* FIXED_LEN_BYTE_ARRAY(16) -> string */
};

/* A flat column as its pages are decoded. */
struct pq_leaf {
	int phys;		/* PQ_* */
	int32_t type_length;	/* FIXED_LEN_BYTE_ARRAY only, >= 1 */
	int max_def;		/* 0 REQUIRED, 1 OPTIONAL */
	enum pq_conv conv;
	struct core_coltype type;
	uint32_t chunk;		/* index among the row groups' chunks */
};

struct pq_sv {
	const uint8_t *p;
	uint32_t len;
};

/* RLE/bit-packing hybrid decoder (Encodings.md). */
struct pq_rle {
	const uint8_t *p, *end;
	int width;		/* 0..32 */
	uint32_t run;		/* values left in the current run */
	bool packed;		/* the current run is bit-packed */
	uint32_t value;		/* value of an RLE run */
	uint32_t lit[8];	/* unpacked group of a bit-packed run */
	unsigned lit_pos;	/* next of lit, 8 = none left */
};

#define PQ_DBP_MINI_MAX 4096	/* values per miniblock accepted */

/* DELTA_BINARY_PACKED decoder. */
struct pq_dbp {
	const uint8_t *p, *end;
	uint64_t left;		/* values not yet handed out */
	uint32_t nminis, per_mini;
	uint32_t mini;		/* next miniblock of the block */
	bool first_pending;
	bool in_block;
	uint64_t last, min_delta;
	const uint8_t *widths;	/* nminis bytes of the current block */
	uint32_t buf_pos, buf_n;
	uint64_t buf[PQ_DBP_MINI_MAX];
};

struct pq_cursor {
	const struct pq_leaf *leaf;
	enum core_codec codec;
	struct core_codec_ctx *cx;	/* borrowed from the scan */
	const uint8_t *chunk;		/* borrowed: the chunk's bytes */
	size_t chunk_len, pos;		/* next page header at pos */
	uint64_t rows_left;		/* of the row group, in no page yet */
	uint64_t pages;			/* pages decoded */

	/* The dictionary (owned): fixed-width values in dict_buf, or
	 * dict_n entries in dict_sv pointing into it. */
	bool has_dict;
	uint32_t dict_n;
	uint8_t *dict_buf;
	size_t dict_cap;
	struct pq_sv *dict_sv;
	size_t dict_sv_cap;

	/* The current data page. */
	uint8_t *page_buf;		/* owned, page_cap bytes */
	size_t page_cap;
	uint32_t page_left;		/* rows of the page not decoded */
	int encoding;
	bool levels;			/* definition levels to decode */
	bool bit_packed_levels;		/* the old BIT_PACKED encoding */
	struct pq_rle def;
	const uint8_t *bp;		/* BIT_PACKED levels */
	uint64_t bp_pos, bp_bits;
	const uint8_t *vp, *vend;	/* values section; PLAIN cursor */
	uint64_t bool_bit;		/* PLAIN BOOLEAN: next bit */
	struct pq_rle idx;		/* dictionary indices, RLE booleans */
	struct pq_dbp *dbp;		/* owned: values or lengths */
	struct pq_dbp *dbp2;		/* owned: DELTA_BYTE_ARRAY prefixes */
	uint8_t *prev;			/* owned: DELTA_BYTE_ARRAY last value */
	size_t prev_len, prev_cap;
	uint64_t bss_n, bss_i;		/* BYTE_STREAM_SPLIT stride, next */

	/* Rows to decode and drop before the next read's: the part of a
	 * page that lies before the rows a page index leaves in, and
	 * scratch they are decoded into (owned; allocated on first use). */
	uint64_t skip;
	struct core_column *skipcol;

	/* Rows of the batch being read whose strings are wanted (borrowed,
	 * indexed by the batch row); NULL: every row.  The others come
	 * out as empty strings. */
	const uint8_t *mask;

	/* Scratch for one batch: the decoding thread's (borrowed, set
	 * before each pq_cursor_read), so a file of many columns costs
	 * one set of it a thread, not one a column. */
	struct pq_scratch *sc;
	uint8_t *arena;			/* bytes the sv point to, owned */
	size_t arena_cap;
};

/* Scratch for decoding one batch of one column. */
struct pq_scratch {
	uint8_t *levbuf;		/* BATCH_ROWS definition levels */
	uint8_t *dense;			/* BATCH_ROWS * 12 physical bytes */
	uint8_t *conv;			/* BATCH_ROWS * 16 converted bytes */
	uint32_t *idxbuf;		/* BATCH_ROWS indices */
	uint64_t *u64buf;		/* BATCH_ROWS delta-decoded values */
	struct pq_sv *sv;		/* BATCH_ROWS byte strings */
};

void pq_scratch_init(struct pq_scratch *sc);
void pq_scratch_release(struct pq_scratch *sc);

/* A cursor for leaf (borrowed); its DELTA decoders are allocated when a
 * page needs them. */
void pq_cursor_init(struct pq_cursor *c, const struct pq_leaf *leaf);
void pq_cursor_release(struct pq_cursor *c);
/* Starts a column chunk of nrows rows: chunk (borrowed) holds its pages. */
void pq_cursor_start(struct pq_cursor *c, const uint8_t *chunk, size_t len,
    enum core_codec codec, uint64_t nrows);
/* Decodes the next n rows (n <= CORE_PARQUET_READ_BATCH_ROWS), after
 * dropping c->skip rows (then 0), into rows
 * row0.. of out (owned buffers, reserved for row0 + n rows; validity_buf
 * already holds a bitmap for them, all ones) and sets *nulls when one of
 * them is NULL.  *str_used: bytes of a string column used so far.  0 or
 * CORE_ECORRUPT/CORE_EDATA/CORE_ELIMIT with a message that the caller
 * prefixes with the place. */
int pq_cursor_read(struct pq_cursor *c, struct core_column *out,
    uint32_t row0, uint32_t n, size_t *str_used, bool *nulls,
    struct core_err *err);

/*
 * Loads the dictionary of a chunk from the len bytes at p (borrowed; its
 * first page) into c, of which only leaf, codec and cx need be set (then
 * free with pq_cursor_release, or reuse): 0, 1 when the first page is no
 * dictionary page, or CORE_ECORRUPT/CORE_EDATA as pq_cursor_read.
 * pq_dict_value gives entry i (< c->dict_n) in PLAIN form, without a
 * BYTE_ARRAY's length prefix.
 */
int pq_dict_load(struct pq_cursor *c, const uint8_t *p, size_t len,
    struct core_err *err);
const uint8_t *pq_dict_value(const struct pq_cursor *c, uint32_t i,
    uint32_t *len);

#endif
