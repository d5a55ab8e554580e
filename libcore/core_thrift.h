/*
 * core_thrift.h - a Thrift compact-protocol encoder and a pull decoder,
 * as Parquet's page headers and file footer need them.
 *
 * The encoder writes only what Parquet uses: i32/i64 (zigzag varints), bool,
 * binary/string, nested structs and lists.  The caller writes fields in
 * increasing id order inside each struct, as the compact protocol's field
 * id deltas assume (an out-of-order id is still encoded correctly, with the
 * long form).  Output accumulates in one growable byte buffer owned by the
 * encoder; nothing here can fail except running out of memory, which ends
 * the process like every allocation (core_alloc.h).
 *
 * Invariant: depth counts the structs opened and not yet closed; last[d]
 * is the id of the last field written in the struct at depth d, 0 at its
 * start.  A struct opened as a list element starts a fresh id sequence
 * just like one opened as a field.
 */
#ifndef CORE_THRIFT_H
#define CORE_THRIFT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Compact-protocol type codes (field headers and list headers). */
enum {
	CORE_THRIFT_TRUE = 1,
	CORE_THRIFT_FALSE = 2,
	CORE_THRIFT_BYTE = 3,
	CORE_THRIFT_I16 = 4,
	CORE_THRIFT_I32 = 5,
	CORE_THRIFT_I64 = 6,
	CORE_THRIFT_DOUBLE = 7,
	CORE_THRIFT_BINARY = 8,
	CORE_THRIFT_LIST = 9,
	CORE_THRIFT_SET = 10,
	CORE_THRIFT_MAP = 11,
	CORE_THRIFT_STRUCT = 12,
};

#define CORE_THRIFT_MAX_DEPTH 16

struct core_thrift {
	uint8_t *buf;		/* owned; len bytes written, cap allocated */
	size_t len, cap;
	int depth;		/* open structs (0 = top level) */
	int16_t last[CORE_THRIFT_MAX_DEPTH + 1];
};

void core_thrift_init(struct core_thrift *t);
void core_thrift_release(struct core_thrift *t);
/* Empties the buffer (keeping its memory) and the struct stack. */
void core_thrift_reset(struct core_thrift *t);

/* Fields of the current struct. */
void core_thrift_field_i32(struct core_thrift *t, int16_t id, int32_t v);
void core_thrift_field_i64(struct core_thrift *t, int16_t id, int64_t v);
void core_thrift_field_i16(struct core_thrift *t, int16_t id, int16_t v);
void core_thrift_field_byte(struct core_thrift *t, int16_t id, int8_t v);
void core_thrift_field_bool(struct core_thrift *t, int16_t id, bool v);
void core_thrift_field_binary(struct core_thrift *t, int16_t id,
    const void *p, size_t len);
void core_thrift_field_string(struct core_thrift *t, int16_t id,
    const char *s);
/* Opens a struct-valued field; close it with core_thrift_struct_end. */
void core_thrift_field_struct(struct core_thrift *t, int16_t id);
/* Writes the header of a list-valued field of n elements of elem_type;
 * the caller then writes exactly n elements with the core_thrift_elem_*
 * calls (or, for structs, core_thrift_elem_struct ... struct_end). */
void core_thrift_field_list(struct core_thrift *t, int16_t id,
    uint8_t elem_type, uint32_t n);

/* List elements. */
void core_thrift_elem_i32(struct core_thrift *t, int32_t v);
void core_thrift_elem_binary(struct core_thrift *t, const void *p,
    size_t len);
void core_thrift_elem_struct(struct core_thrift *t);

/* Appends len bytes already encoded elsewhere (e.g. list elements
 * prepared in another encoder). */
void core_thrift_raw(struct core_thrift *t, const void *p, size_t len);

/* Writes the stop byte of the innermost open struct and closes it.  At
 * depth 0 it ends the top-level struct being written. */
void core_thrift_struct_end(struct core_thrift *t);

/* Raw varint and zigzag helpers, exposed for the unit tests. */
void core_thrift_put_varint(struct core_thrift *t, uint64_t v);
static inline uint64_t
core_thrift_zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

/*
 * The decoder: a cursor over bytes that may be anything (a file's footer,
 * a page header), so every read is bounds-checked and returns
 * CORE_ECORRUPT, with a static reason in why, instead of reading past
 * end.  The caller pulls fields in the order they come, handles the ids it
 * knows and skips the rest with core_thrift_skip, as the protocol's
 * forward compatibility wants.  Nesting deeper than CORE_THRIFT_MAX_DEPTH
 * is refused, so hostile input cannot recurse without bound; a list
 * header's count is checked against the bytes left (every element takes
 * at least one), so no count read here justifies more than the input's
 * size.
 *
 * Invariant: as for the encoder, depth counts the structs opened and not
 * yet closed and last[depth] is the id of the innermost one's last field;
 * the top-level struct is open from core_thrift_reader_init on.
 */
struct core_thrift_reader {
	const uint8_t *p, *end;	/* borrowed; the bytes not read yet */
	int depth;
	int16_t last[CORE_THRIFT_MAX_DEPTH + 1];
	const char *why;	/* static; set by the first failure */
};

/* Starts reading the top-level struct in the n bytes at p (borrowed for
 * the reader's use). */
void core_thrift_reader_init(struct core_thrift_reader *r, const void *p,
    size_t n);

/* The next field of the innermost open struct: 1 with *id and *type set,
 * 0 at its stop byte (the struct is then closed), or CORE_ECORRUPT.  A
 * bool field's value is its type: CORE_THRIFT_TRUE or CORE_THRIFT_FALSE. */
int core_thrift_read_field(struct core_thrift_reader *r, int16_t *id,
    uint8_t *type);

/* The value of an integer field or element of the given type (BYTE, I16,
 * I32 or I64; anything else is CORE_ECORRUPT). */
int core_thrift_read_int(struct core_thrift_reader *r, uint8_t type,
    int64_t *v);
/* As core_thrift_read_int, and the value must lie in lo..hi. */
int core_thrift_read_int_range(struct core_thrift_reader *r, uint8_t type,
    int64_t lo, int64_t hi, int64_t *v);
/* A binary or string: *p points into the input (borrowed). */
int core_thrift_read_binary(struct core_thrift_reader *r, const uint8_t **p,
    size_t *len);
/* A list or set header: element type and count. */
int core_thrift_read_list(struct core_thrift_reader *r, uint8_t *elem_type,
    uint32_t *n);
/* Opens a struct-valued field or element; its fields follow. */
int core_thrift_read_struct(struct core_thrift_reader *r);
/* Skips a value of the given type (a whole struct, list or map). */
int core_thrift_skip(struct core_thrift_reader *r, uint8_t type);

/* Bytes consumed since core_thrift_reader_init was given start. */
static inline size_t
core_thrift_reader_used(const struct core_thrift_reader *r,
    const void *start)
{
	return (size_t)(r->p - (const uint8_t *)start);
}

#endif
