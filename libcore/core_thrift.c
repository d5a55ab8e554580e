/*
 * core_thrift.c - Thrift compact-protocol encoder (see core_thrift.h).
 *
 * The encoding, from the compact protocol specification:
 *   - integers: i16/i32/i64 are zigzag-mapped, then written as unsigned
 *     LEB128 varints (7 bits a byte, low group first, high bit = more);
 *   - a field header is one byte (delta << 4 | type) when the id is 1..15
 *     above the previous id of the same struct, else the type byte
 *     followed by the id as a zigzag varint;
 *   - a bool field carries its value in the type nibble (1 true, 2 false)
 *     and has no body;
 *   - binary: varint length, then the bytes;
 *   - a list header is one byte (n << 4 | type) for n < 15, else
 *     (0xf0 | type) followed by n as a varint;
 *   - a struct is its fields followed by a stop byte 0.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "core_alloc.h"
#include "core_thrift.h"

void
core_thrift_init(struct core_thrift *t)
{
	memset(t, 0, sizeof(*t));
}

void
core_thrift_release(struct core_thrift *t)
{
	free(t->buf);
	memset(t, 0, sizeof(*t));
}

void
core_thrift_reset(struct core_thrift *t)
{
	t->len = 0;
	t->depth = 0;
	t->last[0] = 0;
}

static void
reserve(struct core_thrift *t, size_t n)
{
	if (t->cap - t->len < n)
		t->buf = core_grow(t->buf, &t->cap, t->len + n, 1, 256);
}

static inline void
put_byte(struct core_thrift *t, uint8_t b)
{
	reserve(t, 1);
	t->buf[t->len++] = b;
}

void
core_thrift_put_varint(struct core_thrift *t, uint64_t v)
{
	reserve(t, 10);
	while (v >= 0x80) {
		t->buf[t->len++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	t->buf[t->len++] = (uint8_t)v;
}

static void
field_header(struct core_thrift *t, int16_t id, uint8_t type)
{
	int delta = (int)id - (int)t->last[t->depth];

	if (delta > 0 && delta <= 15) {
		put_byte(t, (uint8_t)(delta << 4 | type));
	} else {
		put_byte(t, type);
		core_thrift_put_varint(t, core_thrift_zigzag(id));
	}
	t->last[t->depth] = id;
}

void
core_thrift_field_i32(struct core_thrift *t, int16_t id, int32_t v)
{
	field_header(t, id, CORE_THRIFT_I32);
	core_thrift_put_varint(t, core_thrift_zigzag(v));
}

void
core_thrift_field_i64(struct core_thrift *t, int16_t id, int64_t v)
{
	field_header(t, id, CORE_THRIFT_I64);
	core_thrift_put_varint(t, core_thrift_zigzag(v));
}

void
core_thrift_field_i16(struct core_thrift *t, int16_t id, int16_t v)
{
	field_header(t, id, CORE_THRIFT_I16);
	core_thrift_put_varint(t, core_thrift_zigzag(v));
}

void
core_thrift_field_byte(struct core_thrift *t, int16_t id, int8_t v)
{
	/* A byte is written as itself, not as a varint. */
	field_header(t, id, CORE_THRIFT_BYTE);
	put_byte(t, (uint8_t)v);
}

void
core_thrift_field_bool(struct core_thrift *t, int16_t id, bool v)
{
	field_header(t, id, v ? CORE_THRIFT_TRUE : CORE_THRIFT_FALSE);
}

void
core_thrift_elem_binary(struct core_thrift *t, const void *p, size_t len)
{
	core_thrift_put_varint(t, len);
	reserve(t, len);
	if (len > 0)
		memcpy(t->buf + t->len, p, len);
	t->len += len;
}

void
core_thrift_field_binary(struct core_thrift *t, int16_t id, const void *p,
    size_t len)
{
	field_header(t, id, CORE_THRIFT_BINARY);
	core_thrift_elem_binary(t, p, len);
}

void
core_thrift_field_string(struct core_thrift *t, int16_t id, const char *s)
{
	core_thrift_field_binary(t, id, s, strlen(s));
}

static void
push(struct core_thrift *t)
{
	assert(t->depth < CORE_THRIFT_MAX_DEPTH);
	t->last[++t->depth] = 0;
}

void
core_thrift_field_struct(struct core_thrift *t, int16_t id)
{
	field_header(t, id, CORE_THRIFT_STRUCT);
	push(t);
}

void
core_thrift_elem_struct(struct core_thrift *t)
{
	push(t);
}

void
core_thrift_struct_end(struct core_thrift *t)
{
	put_byte(t, 0);
	if (t->depth > 0)
		t->depth--;
	else
		t->last[0] = 0;
}

void
core_thrift_field_list(struct core_thrift *t, int16_t id, uint8_t elem_type,
    uint32_t n)
{
	field_header(t, id, CORE_THRIFT_LIST);
	if (n < 15) {
		put_byte(t, (uint8_t)(n << 4 | elem_type));
	} else {
		put_byte(t, (uint8_t)(0xf0 | elem_type));
		core_thrift_put_varint(t, n);
	}
}

void
core_thrift_elem_i32(struct core_thrift *t, int32_t v)
{
	core_thrift_put_varint(t, core_thrift_zigzag(v));
}

void
core_thrift_raw(struct core_thrift *t, const void *p, size_t len)
{
	reserve(t, len);
	if (len > 0)
		memcpy(t->buf + t->len, p, len);
	t->len += len;
}
