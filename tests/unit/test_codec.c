/*
 * test_codec.c - core_codec against the compression libraries used
 * directly.
 *
 * Every codec round-trips empty, tiny, random, highly compressible and
 * large inputs through one reused context; what it writes is byte for
 * byte what a one-shot library call writes (so moving a caller onto
 * core_codec changes no file) and decodes with the library's own
 * decoder.  Decompression is exact: every truncation, a wrong declared
 * size either way and damaged headers are CORE_EDATA, and damage
 * anywhere never writes past the declared size (guard bytes, ASan).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <snappy-c.h>
#include <zlib.h>
#include <zstd.h>

#include "core_alloc.h"
#include "core_codec.h"
#include "unit.h"

static const enum core_codec all[] = {
	CORE_CODEC_NONE, CORE_CODEC_SNAPPY, CORE_CODEC_GZIP, CORE_CODEC_ZSTD,
};
#define NCODECS (sizeof(all) / sizeof(all[0]))
#define GUARD 64

/* The inputs: kind 0 empty, 1 one byte, 2 seven bytes, 3 random, 4 all
 * zeros, 5 a short repeated pattern, 6 large mixed text-like bytes. */
#define NKINDS 7
static unsigned char *
make_input(int kind, size_t *n)
{
	static const size_t len[NKINDS] = {
		0, 1, 7, 100000, 1 << 20, 300001, 5u << 20,
	};
	unsigned char *p = core_xmalloc(len[kind] + 1);
	size_t i;

	*n = len[kind];
	for (i = 0; i < *n; i++) {
		switch (kind) {
		case 4:
			p[i] = 0;
			break;
		case 5:
			p[i] = (unsigned char)"colpipe,"[i % 8];
			break;
		case 6:
			/* Runs of a few letters with random breaks:
			 * compressible, but not trivially. */
			p[i] = unit_rand() % 16 == 0 ?
			    (unsigned char)unit_rand() :
			    (unsigned char)('a' + unit_rand() % 6);
			break;
		default:
			p[i] = (unsigned char)unit_rand();
		}
	}
	return p;
}

/* What the library writes when called directly, once, with a fresh
 * state: the reference for byte-identical output. */
static unsigned char *
reference_compress(enum core_codec c, int level, const unsigned char *src,
    size_t n, size_t *outlen)
{
	size_t cap = core_codec_bound(c, n);
	unsigned char *dst = core_xmalloc(cap);
	z_stream zs;

	switch (c) {
	case CORE_CODEC_NONE:
		memcpy(dst, src, n);
		*outlen = n;
		break;
	case CORE_CODEC_SNAPPY:
		*outlen = cap;
		if (snappy_compress((const char *)src, n, (char *)dst,
		    outlen) != SNAPPY_OK)
			abort();
		break;
	case CORE_CODEC_GZIP:
		memset(&zs, 0, sizeof(zs));
		if (deflateInit2(&zs, level, Z_DEFLATED, 15 + 16, 8,
		    Z_DEFAULT_STRATEGY) != Z_OK)
			abort();
		if (deflateBound(&zs, n) > cap)
			abort();
		zs.next_in = (Bytef *)(uintptr_t)src;
		zs.avail_in = (uInt)n;
		zs.next_out = dst;
		zs.avail_out = (uInt)cap;
		if (deflate(&zs, Z_FINISH) != Z_STREAM_END)
			abort();
		*outlen = cap - zs.avail_out;
		deflateEnd(&zs);
		break;
	case CORE_CODEC_ZSTD:
		*outlen = ZSTD_compress(dst, cap, src, n, level);
		if (ZSTD_isError(*outlen))
			abort();
		break;
	default:	/* decompression-only codecs */
		abort();
	}
	return dst;
}

/* The library's own decoder (strict gzip wrapper): 0 when src expands
 * to exactly want bytes equal to orig. */
static int
reference_decompress(enum core_codec c, const unsigned char *src, size_t n,
    const unsigned char *orig, size_t want)
{
	unsigned char *dst = core_xmalloc(want + 1);
	size_t got = want + 1;
	z_stream zs;
	int ok = 0;

	switch (c) {
	case CORE_CODEC_NONE:
		ok = n == want;
		if (ok && n > 0)
			memcpy(dst, src, n);
		break;
	case CORE_CODEC_SNAPPY:
		ok = snappy_uncompress((const char *)src, n, (char *)dst,
		    &got) == SNAPPY_OK && got == want;
		break;
	case CORE_CODEC_GZIP:
		memset(&zs, 0, sizeof(zs));
		if (inflateInit2(&zs, 15 + 16) != Z_OK)
			abort();
		zs.next_in = (Bytef *)(uintptr_t)src;
		zs.avail_in = (uInt)n;
		zs.next_out = dst;
		zs.avail_out = (uInt)want + 1;
		ok = inflate(&zs, Z_FINISH) == Z_STREAM_END &&
		    zs.avail_out == 1 && zs.avail_in == 0;
		inflateEnd(&zs);
		break;
	case CORE_CODEC_ZSTD:
		got = ZSTD_decompress(dst, want + 1, src, n);
		ok = !ZSTD_isError(got) && got == want;
		break;
	default:
		abort();
	}
	ok = ok && (want == 0 || memcmp(dst, orig, want) == 0);
	free(dst);
	return ok ? 0 : -1;
}

static int
level_of(enum core_codec c)
{
	return c == CORE_CODEC_GZIP ? 6 : c == CORE_CODEC_ZSTD ? 3 : 0;
}

/* Decompresses (src, n) as rawlen bytes into a buffer with guard bytes
 * behind rawlen; *guard_ok says they were left alone. */
static int
decompress_guarded(struct core_codec_ctx *cx, enum core_codec c,
    const unsigned char *src, size_t n, size_t rawlen,
    unsigned char **out, bool *guard_ok, struct core_err *err)
{
	unsigned char *dst = core_xmalloc(rawlen + GUARD);
	size_t i;
	int rc;

	memset(dst + rawlen, 0xa5, GUARD);
	rc = core_codec_decompress(cx, c, src, n, dst, rawlen, err);
	*guard_ok = true;
	for (i = 0; i < GUARD; i++)
		if (dst[rawlen + i] != 0xa5)
			*guard_ok = false;
	if (out != NULL)
		*out = dst;
	else
		free(dst);
	return rc;
}

static void
test_round_trips(void)
{
	struct core_codec_ctx *cx = core_codec_ctx_new();
	struct core_err err;
	size_t k, n, clen, rlen;
	int kind;

	/* Every input through the same context, twice: reuse must not
	 * change a byte. */
	for (kind = 0; kind < 2 * NKINDS; kind++) {
		unsigned char *src = make_input(kind % NKINDS, &n);

		for (k = 0; k < NCODECS; k++) {
			enum core_codec c = all[k];
			int level = level_of(c);
			size_t cap = core_codec_bound(c, n);
			unsigned char *dst = core_xmalloc(cap);
			unsigned char *ref = reference_compress(c, level, src,
			    n, &rlen);
			unsigned char *back;
			bool guard_ok;
			int rc;

			rc = core_codec_compress(cx, c, level, src, n, dst,
			    cap, &clen, &err);
			CHECK_EQ_INT(rc, 0);
			CHECK(clen <= cap);
			CHECK_EQ_INT(clen, rlen);
			CHECK(clen == rlen && memcmp(dst, ref, clen) == 0);
			CHECK_EQ_INT(reference_decompress(c, dst, clen, src,
			    n), 0);
			rc = decompress_guarded(cx, c, dst, clen, n, &back,
			    &guard_ok, &err);
			CHECK_EQ_INT(rc, 0);
			CHECK(guard_ok);
			CHECK(n == 0 || memcmp(back, src, n) == 0);
			if (kind % NKINDS == 4 && c != CORE_CODEC_NONE)
				CHECK(clen < n / 20);
			free(back);
			free(ref);
			free(dst);
		}
		free(src);
	}
	core_codec_ctx_free(cx);
	core_codec_ctx_free(NULL);
}

/* Levels change what gzip and zstd write; one context follows each
 * call's level (gzip restarts its stream for it). */
static void
test_levels(void)
{
	struct core_codec_ctx *cx = core_codec_ctx_new();
	static const int gz[] = { 1, 9, 9, 6, 1, 0 };
	static const int zs[] = { 1, 19, 3, -1, 0, 1 };
	struct core_err err;
	size_t i, n, clen, rlen;
	unsigned char *src = make_input(6, &n);
	size_t cap = core_codec_bound(CORE_CODEC_GZIP, n);
	unsigned char *dst = core_xmalloc(cap), *ref;

	n = 200000;
	for (i = 0; i < sizeof(gz) / sizeof(gz[0]); i++) {
		CHECK_EQ_INT(core_codec_compress(cx, CORE_CODEC_GZIP, gz[i],
		    src, n, dst, cap, &clen, &err), 0);
		/* 0 is the documented default, 6. */
		ref = reference_compress(CORE_CODEC_GZIP, gz[i] ? gz[i] : 6,
		    src, n, &rlen);
		CHECK(clen == rlen && memcmp(dst, ref, clen) == 0);
		free(ref);
		CHECK_EQ_INT(core_codec_compress(cx, CORE_CODEC_ZSTD, zs[i],
		    src, n, dst, cap, &clen, &err), 0);
		ref = reference_compress(CORE_CODEC_ZSTD, zs[i], src, n,
		    &rlen);
		CHECK(clen == rlen && memcmp(dst, ref, clen) == 0);
		free(ref);
	}
	free(dst);
	free(src);
	core_codec_ctx_free(cx);
}

/* A destination smaller than the output is CORE_ELIMIT, not a short
 * write past its end. */
static void
test_small_destination(void)
{
	struct core_codec_ctx *cx = core_codec_ctx_new();
	struct core_err err;
	size_t k, n, clen;
	unsigned char *src = make_input(3, &n);
	unsigned char *dst = core_xmalloc(core_codec_bound(CORE_CODEC_SNAPPY,
	    n) + GUARD);

	for (k = 0; k < NCODECS; k++) {
		enum core_codec c = all[k];
		size_t i, cap = c == CORE_CODEC_SNAPPY ?
		    core_codec_bound(c, n) - 1 : n / 2;
		bool guard_ok = true;

		memset(dst + cap, 0xa5, GUARD);
		CHECK_EQ_INT(core_codec_compress(cx, c, level_of(c), src, n,
		    dst, cap, &clen, &err), CORE_ELIMIT);
		for (i = 0; i < GUARD; i++)
			guard_ok = guard_ok && dst[cap + i] == 0xa5;
		CHECK(guard_ok);
		CHECK(strstr(err.msg, "fit") != NULL);
	}
	free(dst);
	free(src);
	core_codec_ctx_free(cx);
}

/* Compresses the mixed input (n bytes) with c; caller frees. */
static unsigned char *
compressed(struct core_codec_ctx *cx, enum core_codec c, const void *src,
    size_t n, size_t *clen)
{
	size_t cap = core_codec_bound(c, n);
	unsigned char *dst = core_xmalloc(cap);
	struct core_err err;

	if (core_codec_compress(cx, c, level_of(c), src, n, dst, cap, clen,
	    &err) != 0)
		abort();
	return dst;
}

/* Every prefix of a compressed buffer is rejected, and the context is
 * still good afterwards. */
static void
test_truncated(void)
{
	struct core_codec_ctx *cx = core_codec_ctx_new();
	struct core_err err;
	size_t k, n, clen, cut;
	unsigned char *src = make_input(6, &n);

	n = 3000;
	for (k = 0; k < NCODECS; k++) {
		enum core_codec c = all[k];
		unsigned char *z = compressed(cx, c, src, n, &clen);
		int bad = 0, unguarded = 0;
		bool guard_ok;

		for (cut = 0; cut < clen; cut++) {
			err.msg[0] = '\0';
			if (decompress_guarded(cx, c, z, cut, n, NULL,
			    &guard_ok, &err) != CORE_EDATA ||
			    err.msg[0] == '\0')
				bad++;
			if (!guard_ok)
				unguarded++;
		}
		CHECK_EQ_INT(bad, 0);
		CHECK_EQ_INT(unguarded, 0);
		CHECK_EQ_INT(decompress_guarded(cx, c, z, clen, n, NULL,
		    &guard_ok, &err), 0);
		free(z);
	}
	free(src);
	core_codec_ctx_free(cx);
}

/* A declared size off by one either way, or zero, is rejected with a
 * message saying so. */
static void
test_wrong_size(void)
{
	struct core_codec_ctx *cx = core_codec_ctx_new();
	struct core_err err;
	size_t k, n, clen, i;
	unsigned char *src = make_input(6, &n);

	n = 5000;
	for (k = 0; k < NCODECS; k++) {
		enum core_codec c = all[k];
		unsigned char *z = compressed(cx, c, src, n, &clen);
		const size_t wrong[] = { n - 1, n + 1, 0, n / 2, 2 * n };
		bool guard_ok;

		for (i = 0; i < sizeof(wrong) / sizeof(wrong[0]); i++) {
			err.msg[0] = '\0';
			CHECK_EQ_INT(decompress_guarded(cx, c, z, clen,
			    wrong[i], NULL, &guard_ok, &err), CORE_EDATA);
			CHECK(guard_ok);
			CHECK(strstr(err.msg, core_codec_name(c)) != NULL ||
			    c == CORE_CODEC_NONE);
			CHECK(strstr(err.msg, "declared") != NULL);
		}
		free(z);
	}
	free(src);
	core_codec_ctx_free(cx);
}

/*
 * Damage.  gzip carries a CRC-32 and the length of its content, so
 * every changed byte past its header is caught.  zstd (no content
 * checksum, as colpipe writes it) and snappy (none at all) rely on their
 * container's checksum for the content; a damaged header or length is
 * still caught, and no damage may ever write past the declared size or
 * crash.
 */
static void
test_corrupted(void)
{
	struct core_codec_ctx *cx = core_codec_ctx_new();
	struct core_err err;
	size_t k, n, clen;
	unsigned char *src = make_input(6, &n);
	int trial;

	n = 20000;
	for (k = 1; k < NCODECS; k++) {
		enum core_codec c = all[k];
		unsigned char *z = compressed(cx, c, src, n, &clen);
		unsigned char *d = core_xmalloc(clen);
		int missed = 0, unguarded = 0, rc;
		bool guard_ok;

		for (trial = 0; trial < 2000; trial++) {
			/* gzip's bytes 4..9 (time, flags, system) are
			 * informational, outside its CRC. */
			size_t at = c == CORE_CODEC_GZIP ?
			    10 + unit_rand() % (clen - 10) :
			    unit_rand() % clen;

			memcpy(d, z, clen);
			d[at] ^= (unsigned char)(1 + unit_rand() % 255);
			rc = decompress_guarded(cx, c, d, clen, n, NULL,
			    &guard_ok, &err);
			CHECK(rc == 0 || rc == CORE_EDATA);
			if (rc == 0 && c == CORE_CODEC_GZIP)
				missed++;
			if (!guard_ok)
				unguarded++;
		}
		CHECK_EQ_INT(missed, 0);
		CHECK_EQ_INT(unguarded, 0);
		/* The first bytes: zstd's and gzip's magic, snappy's
		 * two-byte length. */
		for (trial = 0; trial < (c == CORE_CODEC_SNAPPY ? 2 : 3);
		    trial++) {
			memcpy(d, z, clen);
			d[trial] ^= 0x40;
			CHECK_EQ_INT(decompress_guarded(cx, c, d, clen, n,
			    NULL, &guard_ok, &err), CORE_EDATA);
		}
		/* Bytes behind a complete stream. */
		{
			unsigned char *t = core_xmalloc(clen + 4);

			memcpy(t, z, clen);
			memcpy(t + clen, "\x01\x02\x03\x04", 4);
			CHECK_EQ_INT(decompress_guarded(cx, c, t, clen + 4, n,
			    NULL, &guard_ok, &err), CORE_EDATA);
			free(t);
		}
		CHECK_EQ_INT(decompress_guarded(cx, c, z, clen, n, NULL,
		    &guard_ok, &err), 0);
		free(d);
		free(z);
	}
	free(src);
	core_codec_ctx_free(cx);
}

/* What other writers produce: gzip members one after another and a zlib
 * wrapper read as gzip; two zstd frames read as one buffer. */
static void
test_other_writers(void)
{
	struct core_codec_ctx *cx = core_codec_ctx_new();
	struct core_err err;
	size_t n, a, b, zl;
	unsigned char *src = make_input(6, &n);
	unsigned char *za, *zb, *cat, *back = core_xmalloc(40000);
	uLongf zlen = compressBound(20000);
	unsigned char *zlib = core_xmalloc(zlen);
	int k;

	for (k = 0; k < 2; k++) {
		enum core_codec c = k ? CORE_CODEC_ZSTD : CORE_CODEC_GZIP;

		za = compressed(cx, c, src, 20000, &a);
		zb = compressed(cx, c, src + 20000, 20000, &b);
		cat = core_xmalloc(a + b);
		memcpy(cat, za, a);
		memcpy(cat + a, zb, b);
		CHECK_EQ_INT(core_codec_decompress(cx, c, cat, a + b, back,
		    40000, &err), 0);
		CHECK(memcmp(back, src, 40000) == 0);
		free(cat);
		free(za);
		free(zb);
	}
	if (compress2(zlib, &zlen, src, 20000, 6) != Z_OK)
		abort();
	zl = zlen;
	CHECK_EQ_INT(core_codec_decompress(cx, CORE_CODEC_GZIP, zlib, zl,
	    back, 20000, &err), 0);
	CHECK(memcmp(back, src, 20000) == 0);
	free(zlib);
	free(back);
	free(src);
	core_codec_ctx_free(cx);
}

/*
 * core_codec_check_rawlen against what the compressed data is known to
 * hold: the exact length passes, a byte more or less fails, for zstd
 * frames with their content size, two frames in a row, and snappy; a
 * frame without a content size passes its real length and fails one
 * its blocks cannot hold.
 */
static void
test_check_rawlen(void)
{
	struct core_codec_ctx *cx = core_codec_ctx_new();
	struct core_err err;
	size_t n, clen, c2, k;

	for (k = 0; k < 50; k++) {
		unsigned char *src, *dst;
		ZSTD_CCtx *zc;

		n = 1 + unit_rand() % 70000;
		src = core_xmalloc(n);
		memset(src, (int)(unit_rand() % 3), n);
		src[unit_rand() % n] = (unsigned char)unit_rand();
		dst = core_xmalloc(2 * core_codec_bound(CORE_CODEC_ZSTD, n) +
		    core_codec_bound(CORE_CODEC_SNAPPY, n));
		CHECK_EQ_INT(core_codec_compress(cx, CORE_CODEC_ZSTD, 1, src,
		    n, dst, core_codec_bound(CORE_CODEC_ZSTD, n), &clen,
		    &err), 0);
		CHECK_EQ_INT(core_codec_check_rawlen(CORE_CODEC_ZSTD, dst,
		    clen, n, &err), 0);
		CHECK_EQ_INT(core_codec_check_rawlen(CORE_CODEC_ZSTD, dst,
		    clen, n + 1, &err), CORE_EDATA);
		CHECK_EQ_INT(core_codec_check_rawlen(CORE_CODEC_ZSTD, dst,
		    clen, n - 1, &err), CORE_EDATA);
		CHECK_EQ_INT(core_codec_check_rawlen(CORE_CODEC_ZSTD, dst,
		    clen, (size_t)1 << 31, &err), CORE_EDATA);
		/* Two frames: their sizes add up. */
		memcpy(dst + clen, dst, clen);
		CHECK_EQ_INT(core_codec_check_rawlen(CORE_CODEC_ZSTD, dst,
		    2 * clen, 2 * n, &err), 0);
		CHECK_EQ_INT(core_codec_check_rawlen(CORE_CODEC_ZSTD, dst,
		    2 * clen, n, &err), CORE_EDATA);
		/* No content size in the frame header. */
		zc = ZSTD_createCCtx();
		ZSTD_CCtx_setParameter(zc, ZSTD_c_contentSizeFlag, 0);
		c2 = ZSTD_compress2(zc, dst, core_codec_bound(CORE_CODEC_ZSTD,
		    n), src, n);
		CHECK(!ZSTD_isError(c2));
		ZSTD_freeCCtx(zc);
		CHECK_EQ_INT(core_codec_check_rawlen(CORE_CODEC_ZSTD, dst, c2,
		    n, &err), 0);
		CHECK_EQ_INT(core_codec_check_rawlen(CORE_CODEC_ZSTD, dst, c2,
		    (c2 / 4 + 2) * ((size_t)128 << 10), &err), CORE_EDATA);
		CHECK_EQ_INT(core_codec_compress(cx, CORE_CODEC_SNAPPY, 0, src,
		    n, dst, core_codec_bound(CORE_CODEC_SNAPPY, n), &clen,
		    &err), 0);
		CHECK_EQ_INT(core_codec_check_rawlen(CORE_CODEC_SNAPPY, dst,
		    clen, n, &err), 0);
		CHECK_EQ_INT(core_codec_check_rawlen(CORE_CODEC_SNAPPY, dst,
		    clen, n + 1, &err), CORE_EDATA);
		free(src);
		free(dst);
	}
	/* Not zstd at all. */
	CHECK_EQ_INT(core_codec_check_rawlen(CORE_CODEC_ZSTD, "garbage!", 8,
	    8, &err), CORE_EDATA);
	core_codec_ctx_free(cx);
}

int
main(void)
{
	RUN(test_round_trips);
	RUN(test_levels);
	RUN(test_small_destination);
	RUN(test_truncated);
	RUN(test_wrong_size);
	RUN(test_corrupted);
	RUN(test_other_writers);
	RUN(test_check_rawlen);
	return unit_done();
}
