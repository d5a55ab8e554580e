/*
 * core_thrift.c - Thrift compact-protocol encoder and decoder (see
 * core_thrift.h).
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
 *   - a struct is its fields followed by a stop byte 0;
 *   - a map header is its size as a varint, then (when not 0) one byte of
 *     key type << 4 | value type; bool list elements are one byte each.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "core_alloc.h"
#include "core_err.h"
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

/* ---- decoding ---- */

void
core_thrift_reader_init(struct core_thrift_reader *r, const void *p,
    size_t n)
{
	memset(r, 0, sizeof(*r));
	r->p = p;
	r->end = r->p + n;
}

static int
bad(struct core_thrift_reader *r, const char *why)
{
	if (r->why == NULL)
		r->why = why;
	return CORE_ECORRUPT;
}

static int
get_varint(struct core_thrift_reader *r, uint64_t *v)
{
	uint64_t x = 0;
	int shift;

	for (shift = 0; shift < 64; shift += 7) {
		uint8_t b;

		if (r->p >= r->end)
			return bad(r, "truncated varint");
		b = *r->p++;
		x |= (uint64_t)(b & 0x7f) << shift;
		if ((b & 0x80) == 0) {
			*v = x;
			return 0;
		}
	}
	return bad(r, "varint longer than 10 bytes");
}

static int64_t
unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

int
core_thrift_read_field(struct core_thrift_reader *r, int16_t *id,
    uint8_t *type)
{
	uint8_t b, delta;
	uint64_t v;
	int64_t fid;

	if (r->p >= r->end)
		return bad(r, "truncated struct");
	b = *r->p++;
	if (b == 0) {
		if (r->depth > 0)
			r->depth--;
		return 0;
	}
	*type = b & 0x0f;
	delta = b >> 4;
	if (*type < CORE_THRIFT_TRUE || *type > CORE_THRIFT_STRUCT)
		return bad(r, "unknown field type");
	if (delta != 0) {
		fid = (int64_t)r->last[r->depth] + delta;
	} else {
		if (get_varint(r, &v) != 0)
			return CORE_ECORRUPT;
		fid = unzigzag(v);
	}
	if (fid < INT16_MIN || fid > INT16_MAX)
		return bad(r, "field id out of range");
	*id = (int16_t)fid;
	r->last[r->depth] = *id;
	return 1;
}

int
core_thrift_read_int(struct core_thrift_reader *r, uint8_t type,
    int64_t *v)
{
	uint64_t u;

	switch (type) {
	case CORE_THRIFT_BYTE:
		if (r->p >= r->end)
			return bad(r, "truncated byte");
		*v = (int8_t)*r->p++;
		return 0;
	case CORE_THRIFT_I16:
	case CORE_THRIFT_I32:
	case CORE_THRIFT_I64:
		if (get_varint(r, &u) != 0)
			return CORE_ECORRUPT;
		*v = unzigzag(u);
		if ((type == CORE_THRIFT_I16 && (*v < INT16_MIN ||
		    *v > INT16_MAX)) || (type == CORE_THRIFT_I32 &&
		    (*v < INT32_MIN || *v > INT32_MAX)))
			return bad(r, "integer out of its type's range");
		return 0;
	default:
		return bad(r, "integer expected");
	}
}

int
core_thrift_read_int_range(struct core_thrift_reader *r, uint8_t type,
    int64_t lo, int64_t hi, int64_t *v)
{
	if (core_thrift_read_int(r, type, v) != 0)
		return CORE_ECORRUPT;
	if (*v < lo || *v > hi)
		return bad(r, "integer out of range");
	return 0;
}

int
core_thrift_read_binary(struct core_thrift_reader *r, const uint8_t **p,
    size_t *len)
{
	uint64_t n;

	if (get_varint(r, &n) != 0)
		return CORE_ECORRUPT;
	if (n > (uint64_t)(r->end - r->p))
		return bad(r, "binary longer than the bytes left");
	*p = r->p;
	*len = (size_t)n;
	r->p += n;
	return 0;
}

int
core_thrift_read_list(struct core_thrift_reader *r, uint8_t *elem_type,
    uint32_t *n)
{
	uint64_t v;
	uint8_t b;

	if (r->p >= r->end)
		return bad(r, "truncated list");
	b = *r->p++;
	*elem_type = b & 0x0f;
	if (*elem_type < CORE_THRIFT_TRUE || *elem_type > CORE_THRIFT_STRUCT)
		return bad(r, "unknown list element type");
	v = b >> 4;
	if (v == 15 && get_varint(r, &v) != 0)
		return CORE_ECORRUPT;
	if (v > (uint64_t)(r->end - r->p))
		return bad(r, "list longer than the bytes left");
	*n = (uint32_t)v;
	return 0;
}

int
core_thrift_read_struct(struct core_thrift_reader *r)
{
	if (r->depth >= CORE_THRIFT_MAX_DEPTH)
		return bad(r, "structs nested too deep");
	r->last[++r->depth] = 0;
	return 0;
}

static int
skip_n(struct core_thrift_reader *r, size_t n)
{
	if (n > (size_t)(r->end - r->p))
		return bad(r, "truncated value");
	r->p += n;
	return 0;
}

/* Skips a list element or map entry half (where a bool is a byte). */
static int
skip_elem(struct core_thrift_reader *r, uint8_t type)
{
	if (type == CORE_THRIFT_TRUE || type == CORE_THRIFT_FALSE)
		return skip_n(r, 1);
	return core_thrift_skip(r, type);
}

int
core_thrift_skip(struct core_thrift_reader *r, uint8_t type)
{
	const uint8_t *p;
	size_t len;
	uint64_t v;
	uint32_t n, i;
	int16_t id;
	uint8_t et, kt, vt;
	int rc;

	switch (type) {
	case CORE_THRIFT_TRUE:
	case CORE_THRIFT_FALSE:
		return 0;
	case CORE_THRIFT_BYTE:
		return skip_n(r, 1);
	case CORE_THRIFT_I16:
	case CORE_THRIFT_I32:
	case CORE_THRIFT_I64:
		return get_varint(r, &v);
	case CORE_THRIFT_DOUBLE:
		return skip_n(r, 8);
	case CORE_THRIFT_BINARY:
		return core_thrift_read_binary(r, &p, &len);
	case CORE_THRIFT_LIST:
	case CORE_THRIFT_SET:
		if (core_thrift_read_list(r, &et, &n) != 0)
			return CORE_ECORRUPT;
		if (r->depth >= CORE_THRIFT_MAX_DEPTH)
			return bad(r, "values nested too deep");
		r->depth++;
		for (i = 0; i < n; i++)
			if (skip_elem(r, et) != 0)
				return CORE_ECORRUPT;
		r->depth--;
		return 0;
	case CORE_THRIFT_MAP:
		if (get_varint(r, &v) != 0)
			return CORE_ECORRUPT;
		if (v == 0)
			return 0;
		if (v > (uint64_t)(r->end - r->p))
			return bad(r, "map longer than the bytes left");
		if (r->p >= r->end)
			return bad(r, "truncated map");
		kt = *r->p >> 4;
		vt = *r->p++ & 0x0f;
		if (r->depth >= CORE_THRIFT_MAX_DEPTH)
			return bad(r, "values nested too deep");
		r->depth++;
		for (; v > 0; v--)
			if (skip_elem(r, kt) != 0 || skip_elem(r, vt) != 0)
				return CORE_ECORRUPT;
		r->depth--;
		return 0;
	case CORE_THRIFT_STRUCT:
		if (core_thrift_read_struct(r) != 0)
			return CORE_ECORRUPT;
		while ((rc = core_thrift_read_field(r, &id, &et)) > 0)
			if (core_thrift_skip(r, et) != 0)
				return CORE_ECORRUPT;
		return rc;
	default:
		return bad(r, "unknown value type");
	}
}
