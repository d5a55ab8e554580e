/*
 * core_mlspill3_record.h - MLSPILL3 records, for readers (in libcore)
 * that fetch a stream's bytes themselves.
 *
 * core_spill reads runs with pread(2) into buffers its caller's budget is
 * charged for, so it cannot use the stream reader; it still knows nothing
 * of the byte layout.  It reads a stream header's first
 * CORE_MLSPILL3_HEADER_FIXED bytes to learn the header's length, then
 * each record's CORE_MLSPILL3_RECORD_HDR header bytes to learn its kind
 * and body length, then the body, which follows its header, and hands
 * every piece to the functions here.  The stream reader parses records
 * with the same functions.
 *
 * Each returns 0, or CORE_ECORRUPT with *why, a static string, saying
 * what is wrong; the caller names the place.
 */
#ifndef CORE_MLSPILL3_RECORD_H
#define CORE_MLSPILL3_RECORD_H

#include <stdint.h>

#include "core_col.h"

#define CORE_MLSPILL3_HEADER_FIXED 24	/* a stream header's fixed part */
#define CORE_MLSPILL3_RECORD_HDR 32	/* a record header */
#define CORE_MLSPILL3_END_BODY 24	/* the end record's body */

enum core_mlspill3_kind {
	CORE_MLSPILL3_FRAME,
	CORE_MLSPILL3_END,
};

/* A record header, parsed and checked. */
struct core_mlspill3_record {
	enum core_mlspill3_kind kind;
	uint64_t body_len;	/* frames: as frame_check allows; end: 24 */
	uint64_t nrows;		/* frames: 1 .. UINT32_MAX / 2; end: 0 */
	uint64_t sum;		/* XXH3-64 of the body */
	uint64_t len;		/* the whole record, header and body */
};

/*
 * The length of the stream header whose first CORE_MLSPILL3_HEADER_FIXED
 * bytes are h, for a stream expected to have schema s: checks the magic,
 * the major version and the column count (not the column descriptors nor
 * the header's checksum, which need all of it).
 */
int core_mlspill3_header_len(const unsigned char *h,
    const struct core_schema *s, uint64_t *len, const char **why);

/*
 * Parses the CORE_MLSPILL3_RECORD_HDR bytes at h into *rec, checking the
 * record check, the kind and, before anyone reads or allocates a body,
 * that the lengths are possible: for a frame as frame_check says, for the
 * end record its fixed body and no rows.
 */
int core_mlspill3_record_parse(const unsigned char *h,
    const struct core_schema *s, struct core_mlspill3_record *rec,
    const char **why);

/* Checks rec->body_len bytes of body against the record's checksum. */
int core_mlspill3_body_verify(const struct core_mlspill3_record *rec,
    const unsigned char *body, const char **why);

/* The counts in an end record's body (its checksum verified here). */
int core_mlspill3_end_parse(const struct core_mlspill3_record *rec,
    const unsigned char *body, uint64_t *rows, uint64_t *frames,
    const char **why);

/*
 * Frame bodies.
 *
 * frame_check: a record header's body length and row count are possible
 *   for schema s (record_parse calls it for every frame).
 * body_scan: every buffer descriptor of a body (its checksum verified)
 *   lies inside it; *zbytes is the room its compressed buffers need once
 *   expanded (0 when none is compressed).
 * body_decode: points b's columns (b initialized on s) into body, or into
 *   zraw (at least *zbytes; cx decompresses them, and is used only
 *   then) for compressed buffers, after checking each column against
 *   nrows.  The batch is a view, valid while body and zraw are.
 */
struct core_codec_ctx;
int core_mlspill3_frame_check(const struct core_schema *s, uint64_t body_len,
    uint64_t nrows, const char **why);
int core_mlspill3_body_scan(const struct core_schema *s,
    const unsigned char *body, uint64_t body_len, uint64_t *zbytes,
    const char **why);
int core_mlspill3_body_decode(const struct core_schema *s,
    const unsigned char *body, uint64_t body_len, uint32_t nrows,
    struct core_codec_ctx *cx, unsigned char *zraw, struct core_batch *b,
    const char **why);

#endif
