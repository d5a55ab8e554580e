/*
 * core_codec.h - whole-buffer compression and decompression.
 *
 * The one owner of the compression libraries: the Parquet writer (and
 * reader) compress pages with it, MLSPILL3 compresses frame buffers with
 * it.  Every call works on a whole buffer the caller owns: compress into
 * dst of at least core_codec_bound bytes, decompress into dst of exactly
 * the size the container declared.  Decompression is exact: input that is
 * corrupt, ends early, or expands to more or fewer bytes than declared is
 * a CORE_EDATA error, and dst then holds nothing the caller may use.
 *
 * The library state (a zstd context, a zlib stream) lives in a struct
 * core_codec_ctx, created on the codec's first use and reset, never
 * reallocated, from one call to the next: a hot path that keeps one
 * context per thread allocates nothing per page or frame.  A context is
 * not thread-safe; one thread uses it at a time.
 */
#ifndef CORE_CODEC_H
#define CORE_CODEC_H

#include <stddef.h>

#include "core_err.h"

enum core_codec {
	CORE_CODEC_NONE,	/* a copy */
	CORE_CODEC_SNAPPY,	/* the raw snappy format, no framing */
	CORE_CODEC_GZIP,	/* deflate in a gzip wrapper (RFC 1952) */
	CORE_CODEC_ZSTD,	/* zstd frames (RFC 8878) */
	/* Decompression only (compressing is CORE_EINTERNAL), for the
	 * Parquet reader: */
	CORE_CODEC_LZ4_RAW,	/* one LZ4 block, no framing */
	CORE_CODEC_LZ4_HADOOP,	/* Hadoop's framing of LZ4 blocks, or, as
				   older writers produced under the same
				   Parquet codec, one raw block */
	CORE_CODEC_BROTLI,	/* a brotli stream (RFC 7932) */
};

/* Levels: zstd 1..core_codec_level_max (3 when 0 is given; zstd's
 * negative fast levels work too), gzip 1..9 (6 when 0 is given); NONE
 * and SNAPPY ignore theirs. */
#define CORE_CODEC_ZSTD_DEFAULT 3
#define CORE_CODEC_GZIP_DEFAULT 6

struct core_codec_ctx;

/* Caller owns the result; it holds no library state until first use. */
struct core_codec_ctx *core_codec_ctx_new(void);
void core_codec_ctx_free(struct core_codec_ctx *cx);	/* accepts NULL */

/* Lowercase name for messages: "none", "snappy", "gzip", "zstd",
 * "lz4_raw", "lz4", "brotli". */
const char *core_codec_name(enum core_codec codec);

/* The highest level codec takes (0 when it has no levels). */
int core_codec_level_max(enum core_codec codec);

/* The most bytes compressing n bytes can produce, for any level. */
size_t core_codec_bound(enum core_codec codec, size_t n);

/*
 * Compresses src (n bytes) into dst (cap bytes) at level; *outlen is the
 * compressed length.  0; CORE_ELIMIT when dst is too small (never with
 * cap >= core_codec_bound); CORE_EINTERNAL when the library fails.  The
 * output depends only on codec, level and src, not on earlier calls.
 */
int core_codec_compress(struct core_codec_ctx *cx, enum core_codec codec,
    int level, const void *src, size_t n, void *dst, size_t cap,
    size_t *outlen, struct core_err *err);

/*
 * Whether src (n bytes) can expand to rawlen bytes as far as the
 * compressed data's own headers tell, for a caller to ask before it
 * allocates rawlen bytes on a container's word: zstd frames that declare
 * their content sizes must add up to rawlen, and a frame that does not
 * must be long enough to hold that many bytes in blocks; snappy's length
 * prefix must be rawlen.  0, or CORE_EDATA with a message as
 * core_codec_decompress's; the other codecs tell nothing beforehand (0).
 */
int core_codec_check_rawlen(enum core_codec codec, const void *src,
    size_t n, size_t rawlen, struct core_err *err);

/*
 * Decompresses src (n bytes) into dst, which receives exactly rawlen
 * bytes.  0, or CORE_EDATA with a message naming the codec and what is
 * wrong (the caller adds the place).  zstd accepts one or more complete
 * frames; gzip one or more members, or a zlib (RFC 1950) stream, since
 * writers disagree on the wrapper and its checksum protects either.
 */
int core_codec_decompress(struct core_codec_ctx *cx, enum core_codec codec,
    const void *src, size_t n, void *dst, size_t rawlen,
    struct core_err *err);

#endif
