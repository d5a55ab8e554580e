/*
 * core_codec.c - whole-buffer compression and decompression
 * (core_codec.h) over libzstd, libsnappy and zlib; decompression only
 * over liblz4 and libbrotlidec, which keep no state between calls.
 *
 * A context holds at most one object per library and direction, each
 * created on its first use and then only reset: ZSTD_compressCCtx and
 * ZSTD_decompressDCtx start every call afresh on the same context, and
 * deflateReset/inflateReset keep the zlib streams' memory.  The deflate
 * stream is tied to its level, so a call at another level starts it again
 * (callers use one level per context in practice).
 *
 * zlib counts bytes in 32-bit uInt, so buffers past 4 GiB are fed to it in
 * pieces; the output does not depend on how the input is cut.  Debug
 * builds cut at an odd 64 KiB, so the unit tests run that path too.  zlib
 * allocates through core_alloc like the rest of libcore; zstd and snappy
 * use their own allocators (ZSTD_customMem is not in zstd's stable API),
 * and a failed zstd context creation takes the out-of-memory path.
 *
 * Invariants: zc, zd are NULL or live; def_init, inf_init say whether def
 * and inf hold a live stream; def_level is def's level when def_init.
 */
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <brotli/decode.h>
#include <lz4.h>
#include <snappy-c.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "core_alloc.h"
#include "core_codec.h"

#ifdef CORE_DEBUG
#define ZLIB_PIECE 65521u
#else
#define ZLIB_PIECE UINT_MAX
#endif

struct core_codec_ctx {
	ZSTD_CCtx *zc;		/* owned, or NULL until zstd compresses */
	ZSTD_DCtx *zd;		/* owned, or NULL until zstd decompresses */
	z_stream def;		/* gzip compression */
	z_stream inf;		/* gzip decompression */
	bool def_init, inf_init;
	int def_level;
};

static voidpf
z_alloc(voidpf opaque, uInt items, uInt size)
{
	(void)opaque;
	return core_xreallocarray(NULL, items, size);
}

static void
z_free(voidpf opaque, voidpf p)
{
	(void)opaque;
	free(p);
}

struct core_codec_ctx *
core_codec_ctx_new(void)
{
	return core_xcalloc(1, sizeof(struct core_codec_ctx));
}

void
core_codec_ctx_free(struct core_codec_ctx *cx)
{
	if (cx == NULL)
		return;
	ZSTD_freeCCtx(cx->zc);
	ZSTD_freeDCtx(cx->zd);
	if (cx->def_init)
		deflateEnd(&cx->def);
	if (cx->inf_init)
		inflateEnd(&cx->inf);
	free(cx);
}

const char *
core_codec_name(enum core_codec codec)
{
	switch (codec) {
	case CORE_CODEC_NONE:
		return "none";
	case CORE_CODEC_SNAPPY:
		return "snappy";
	case CORE_CODEC_GZIP:
		return "gzip";
	case CORE_CODEC_ZSTD:
		return "zstd";
	case CORE_CODEC_LZ4_RAW:
		return "lz4_raw";
	case CORE_CODEC_LZ4_HADOOP:
		return "lz4";
	case CORE_CODEC_BROTLI:
		return "brotli";
	}
	return "unknown";
}

int
core_codec_level_max(enum core_codec codec)
{
	switch (codec) {
	case CORE_CODEC_GZIP:
		return 9;
	case CORE_CODEC_ZSTD:
		return ZSTD_maxCLevel();
	default:
		return 0;
	}
}

size_t
core_codec_bound(enum core_codec codec, size_t n)
{
	switch (codec) {
	case CORE_CODEC_NONE:
		break;
	case CORE_CODEC_SNAPPY:
		return snappy_max_compressed_length(n);
	case CORE_CODEC_GZIP:
		/* compressBound allows for the 6-byte zlib wrapper; the gzip
		 * one takes 18.  With windowBits 15 and memLevel 8 this is
		 * what deflateBound computes. */
		return (size_t)compressBound((uLong)n) + 12;
	case CORE_CODEC_ZSTD:
		return ZSTD_compressBound(n);
	default:
		break;
	}
	return n;
}

static int
unknown_codec(enum core_codec codec, struct core_err *err)
{
	return core_err_set(err, CORE_EINTERNAL, "unknown codec %d",
	    (int)codec);
}

/* ---- zlib in pieces ---- */

/* Moves the next piece of (*p, *left) into (*next, *avail) once zlib has
 * used the last one. */
static void
refill(Bytef **next, uInt *avail, const unsigned char **p, size_t *left)
{
	size_t k;

	if (*avail != 0 || *left == 0)
		return;
	k = *left < ZLIB_PIECE ? *left : ZLIB_PIECE;
	*next = (Bytef *)(uintptr_t)*p;
	*avail = (uInt)k;
	*p += k;
	*left -= k;
}

static int
gzip_compress(struct core_codec_ctx *cx, int level, const void *src,
    size_t n, void *dst, size_t cap, size_t *outlen, struct core_err *err)
{
	z_stream *zs = &cx->def;
	const unsigned char *in = src, *out = dst;
	size_t inleft = n, outleft = cap;
	int zrc;

	if (level <= 0)
		level = CORE_CODEC_GZIP_DEFAULT;
	if (cx->def_init && cx->def_level != level) {
		deflateEnd(zs);
		cx->def_init = false;
	}
	if (!cx->def_init) {
		memset(zs, 0, sizeof(*zs));
		zs->zalloc = z_alloc;
		zs->zfree = z_free;
		/* windowBits 15 + 16: deflate in a gzip wrapper. */
		if (deflateInit2(zs, level, Z_DEFLATED, 15 + 16, 8,
		    Z_DEFAULT_STRATEGY) != Z_OK)
			return core_err_set(err, CORE_EINTERNAL,
			    "cannot start gzip compression at level %d", level);
		cx->def_init = true;
		cx->def_level = level;
	} else if (deflateReset(zs) != Z_OK) {
		return core_err_set(err, CORE_EINTERNAL,
		    "gzip compression failed");
	}
	zs->avail_in = zs->avail_out = 0;
	for (;;) {
		refill(&zs->next_in, &zs->avail_in, &in, &inleft);
		refill(&zs->next_out, &zs->avail_out, &out, &outleft);
		zrc = deflate(zs, inleft == 0 ? Z_FINISH : Z_NO_FLUSH);
		if (zrc == Z_STREAM_END)
			break;
		if (zrc != Z_OK && zrc != Z_BUF_ERROR)
			return core_err_set(err, CORE_EINTERNAL,
			    "gzip compression failed (%d)", zrc);
		if (zs->avail_out == 0 && outleft == 0)
			return core_err_set(err, CORE_ELIMIT,
			    "gzip output does not fit in %zu bytes", cap);
	}
	*outlen = cap - outleft - zs->avail_out;
	return 0;
}

static int
gzip_decompress(struct core_codec_ctx *cx, const void *src, size_t n,
    void *dst, size_t rawlen, struct core_err *err)
{
	z_stream *zs = &cx->inf;
	const unsigned char *in = src, *out = dst;
	size_t inleft = n, outleft = rawlen, got;
	unsigned char spare;
	int zrc;

	if (!cx->inf_init) {
		memset(zs, 0, sizeof(*zs));
		zs->zalloc = z_alloc;
		zs->zfree = z_free;
		/* windowBits 15 + 32: a gzip or a zlib wrapper. */
		if (inflateInit2(zs, 15 + 32) != Z_OK)
			return core_err_set(err, CORE_EINTERNAL,
			    "cannot start gzip decompression");
		cx->inf_init = true;
	} else if (inflateReset(zs) != Z_OK) {
		return core_err_set(err, CORE_EINTERNAL,
		    "gzip decompression failed");
	}
	zs->avail_in = zs->avail_out = 0;
	zs->next_in = NULL;
	/* zlib refuses a NULL output pointer even with no room behind it. */
	zs->next_out = &spare;
	for (;;) {
		refill(&zs->next_in, &zs->avail_in, &in, &inleft);
		refill(&zs->next_out, &zs->avail_out, &out, &outleft);
		zrc = inflate(zs, Z_NO_FLUSH);
		if (zrc == Z_STREAM_END) {
			if (zs->avail_in == 0 && inleft == 0)
				break;
			/* Another gzip member follows. */
			if (inflateReset(zs) != Z_OK)
				return core_err_set(err, CORE_EINTERNAL,
				    "gzip decompression failed");
			continue;
		}
		if (zrc == Z_OK)
			continue;
		if (zrc != Z_BUF_ERROR)
			return core_err_set(err, CORE_EDATA,
			    "corrupt gzip data (%s)",
			    zs->msg != NULL ? zs->msg : "bad stream");
		if (zs->avail_out == 0 && outleft == 0)
			return core_err_set(err, CORE_EDATA,
			    "gzip data expands to more than the declared %zu "
			    "bytes", rawlen);
		if (zs->avail_in == 0 && inleft == 0)
			return core_err_set(err, CORE_EDATA,
			    "truncated gzip data: %zu bytes end before the "
			    "end of the stream", n);
	}
	got = rawlen - outleft - zs->avail_out;
	if (got != rawlen)
		return core_err_set(err, CORE_EDATA,
		    "gzip data expands to %zu bytes, not the declared %zu",
		    got, rawlen);
	return 0;
}

/* ---- lz4 and brotli ---- */

static int
lz4_raw_decompress(const void *src, size_t n, void *dst, size_t rawlen,
    struct core_err *err)
{
	int r;

	if (n > INT_MAX || rawlen > INT_MAX)
		return core_err_set(err, CORE_EDATA,
		    "lz4 block of %zu bytes is too large", n);
	r = LZ4_decompress_safe(src, dst, (int)n, (int)rawlen);
	if (r < 0)
		return core_err_set(err, CORE_EDATA, "corrupt lz4 data");
	if ((size_t)r != rawlen)
		return core_err_set(err, CORE_EDATA,
		    "lz4 data expands to %d bytes, not the declared %zu", r,
		    rawlen);
	return 0;
}

static uint32_t
be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3];
}

/* Hadoop's framing: blocks of (4-byte big-endian raw length, 4-byte
 * compressed length, one LZ4 block), until the input ends.  Returns
 * false, leaving dst to be overwritten, when the input is not exactly
 * that. */
static bool
lz4_hadoop_frames(const unsigned char *p, size_t n, unsigned char *dst,
    size_t rawlen)
{
	size_t got = 0;

	while (n > 0) {
		uint32_t raw, clen;
		int r;

		if (n < 8)
			return false;
		raw = be32(p);
		clen = be32(p + 4);
		p += 8;
		n -= 8;
		if (clen > n || raw > rawlen - got || clen > INT_MAX ||
		    raw > INT_MAX)
			return false;
		r = LZ4_decompress_safe((const char *)p, (char *)dst + got,
		    (int)clen, (int)raw);
		if (r < 0 || (uint32_t)r != raw)
			return false;
		got += raw;
		p += clen;
		n -= clen;
	}
	return got == rawlen;
}

static int
brotli_decompress(const void *src, size_t n, void *dst, size_t rawlen,
    struct core_err *err)
{
	size_t got = rawlen;

	if (BrotliDecoderDecompress(n, src, &got, dst) !=
	    BROTLI_DECODER_RESULT_SUCCESS)
		return core_err_set(err, CORE_EDATA,
		    "corrupt brotli data, or more than the declared %zu "
		    "bytes", rawlen);
	if (got != rawlen)
		return core_err_set(err, CORE_EDATA,
		    "brotli data expands to %zu bytes, not the declared %zu",
		    got, rawlen);
	return 0;
}

/* ---- the codecs ---- */

int
core_codec_compress(struct core_codec_ctx *cx, enum core_codec codec,
    int level, const void *src, size_t n, void *dst, size_t cap,
    size_t *outlen, struct core_err *err)
{
	size_t r;

	switch (codec) {
	case CORE_CODEC_NONE:
		if (cap < n)
			return core_err_set(err, CORE_ELIMIT,
			    "%zu bytes do not fit in %zu", n, cap);
		if (n > 0)
			memcpy(dst, src, n);
		*outlen = n;
		return 0;
	case CORE_CODEC_SNAPPY:
		r = cap;
		switch (snappy_compress(src, n, dst, &r)) {
		case SNAPPY_OK:
			*outlen = r;
			return 0;
		case SNAPPY_BUFFER_TOO_SMALL:
			return core_err_set(err, CORE_ELIMIT,
			    "snappy output may not fit in %zu bytes", cap);
		default:
			return core_err_set(err, CORE_EINTERNAL,
			    "snappy compression failed");
		}
	case CORE_CODEC_GZIP:
		return gzip_compress(cx, level, src, n, dst, cap, outlen, err);
	case CORE_CODEC_ZSTD:
		if (cx->zc == NULL && (cx->zc = ZSTD_createCCtx()) == NULL)
			core_xmalloc(SIZE_MAX);	/* out of memory path */
		r = ZSTD_compressCCtx(cx->zc, dst, cap, src, n, level);
		if (!ZSTD_isError(r)) {
			*outlen = r;
			return 0;
		}
		if (ZSTD_getErrorCode(r) == ZSTD_error_dstSize_tooSmall)
			return core_err_set(err, CORE_ELIMIT,
			    "zstd output does not fit in %zu bytes", cap);
		return core_err_set(err, CORE_EINTERNAL,
		    "zstd compression failed: %s", ZSTD_getErrorName(r));
	default:
		break;
	}
	return unknown_codec(codec, err);
}

/* A zstd block expands to at most 128 KiB (ZSTD_BLOCKSIZE_MAX, a format
 * constant: RFC 8878 3.1.1.2.4) and takes at least 4 bytes, a 3-byte
 * header and an RLE byte, so n bytes hold at most this much. */
static uint64_t
zstd_blocks_bound(size_t n)
{
	return ((uint64_t)n / 4 + 1) * ((uint64_t)128 << 10);
}

static int
zstd_check_rawlen(const unsigned char *p, size_t n, size_t rawlen,
    struct core_err *err)
{
	uint64_t known = 0, bound = 0;
	size_t total = n;

	while (n > 0) {
		size_t len = ZSTD_findFrameCompressedSize(p, n);
		unsigned long long c = ZSTD_getFrameContentSize(p, n);

		if (ZSTD_isError(len) || c == ZSTD_CONTENTSIZE_ERROR)
			return core_err_set(err, CORE_EDATA,
			    "corrupt zstd data (%s)", ZSTD_isError(len) ?
			    ZSTD_getErrorName(len) : "bad frame header");
		if (c == ZSTD_CONTENTSIZE_UNKNOWN)
			bound += zstd_blocks_bound(len);
		else
			known += c;
		if (known > rawlen)
			break;
		p += len;
		n -= len;
	}
	if (known > rawlen || (bound == 0 && known != rawlen))
		return core_err_set(err, CORE_EDATA,
		    "zstd data declares %llu bytes, not the declared %zu",
		    (unsigned long long)known, rawlen);
	if (rawlen - known > bound && bound > 0)
		return core_err_set(err, CORE_EDATA,
		    "zstd data of %zu bytes cannot expand to the declared %zu",
		    total, rawlen);
	return 0;
}

int
core_codec_check_rawlen(enum core_codec codec, const void *src, size_t n,
    size_t rawlen, struct core_err *err)
{
	size_t r;

	switch (codec) {
	case CORE_CODEC_SNAPPY:
		if (snappy_uncompressed_length(src, n, &r) != SNAPPY_OK)
			return core_err_set(err, CORE_EDATA,
			    "corrupt snappy data (bad length prefix)");
		if (r != rawlen)
			return core_err_set(err, CORE_EDATA,
			    "snappy data expands to %zu bytes, not the "
			    "declared %zu", r, rawlen);
		return 0;
	case CORE_CODEC_ZSTD:
		return zstd_check_rawlen(src, n, rawlen, err);
	default:
		return 0;
	}
}

int
core_codec_decompress(struct core_codec_ctx *cx, enum core_codec codec,
    const void *src, size_t n, void *dst, size_t rawlen,
    struct core_err *err)
{
	size_t r;

	switch (codec) {
	case CORE_CODEC_NONE:
		if (n != rawlen)
			return core_err_set(err, CORE_EDATA,
			    "uncompressed data is %zu bytes, not the declared "
			    "%zu", n, rawlen);
		if (n > 0)
			memcpy(dst, src, n);
		return 0;
	case CORE_CODEC_SNAPPY:
		/* The length snappy stores first must be the declared one
		 * before anything is written. */
		if (snappy_uncompressed_length(src, n, &r) != SNAPPY_OK)
			return core_err_set(err, CORE_EDATA,
			    "corrupt snappy data (bad length prefix)");
		if (r != rawlen)
			return core_err_set(err, CORE_EDATA,
			    "snappy data expands to %zu bytes, not the "
			    "declared %zu", r, rawlen);
		if (snappy_uncompress(src, n, dst, &r) != SNAPPY_OK ||
		    r != rawlen)
			return core_err_set(err, CORE_EDATA,
			    "corrupt snappy data");
		return 0;
	case CORE_CODEC_GZIP:
		return gzip_decompress(cx, src, n, dst, rawlen, err);
	case CORE_CODEC_ZSTD:
		if (cx->zd == NULL && (cx->zd = ZSTD_createDCtx()) == NULL)
			core_xmalloc(SIZE_MAX);	/* out of memory path */
		r = ZSTD_decompressDCtx(cx->zd, dst, rawlen, src, n);
		if (ZSTD_isError(r)) {
			if (ZSTD_getErrorCode(r) ==
			    ZSTD_error_dstSize_tooSmall)
				return core_err_set(err, CORE_EDATA,
				    "zstd data expands to more than the "
				    "declared %zu bytes", rawlen);
			return core_err_set(err, CORE_EDATA,
			    "corrupt zstd data (%s)", ZSTD_getErrorName(r));
		}
		if (r != rawlen)
			return core_err_set(err, CORE_EDATA,
			    "zstd data expands to %zu bytes, not the declared "
			    "%zu", r, rawlen);
		return 0;
	case CORE_CODEC_LZ4_RAW:
		return lz4_raw_decompress(src, n, dst, rawlen, err);
	case CORE_CODEC_LZ4_HADOOP:
		if (lz4_hadoop_frames(src, n, dst, rawlen))
			return 0;
		return lz4_raw_decompress(src, n, dst, rawlen, err);
	case CORE_CODEC_BROTLI:
		return brotli_decompress(src, n, dst, rawlen, err);
	}
	return unknown_codec(codec, err);
}
