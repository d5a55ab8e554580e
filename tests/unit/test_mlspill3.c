/*
 * test_mlspill3.c - the MLSPILL3 writer and reader.
 *
 * Round trips random batches of every type (with and without NULLs, raw
 * and zstd), then attacks the integrity promises of mlspill3(5): a
 * multi-frame stream cut at every byte offset must read as truncated, every
 * single-bit flip must be detected, concatenated streams read as one, a
 * schema mismatch and an unknown version are rejected; the body decoder
 * shared with spill files survives damage behind a good checksum, and the
 * record and header parsers they share reject every kind of damaged
 * header, also behind a recomputed record check.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "core_alloc.h"
#include "core_codec.h"
#include "core_col.h"
#include "core_mlspill3.h"
#include "core_mlspill3_record.h"
#include "core_pool.h"
#include "unit.h"

static struct core_schema *
all_types_schema(void)
{
	static const char *const spec[] = {
		"bool", "int32", "int64", "float64", "decimal(15,2)", "date",
		"timestamp", "string", "decimal(38,4)",
	};
	struct core_schema *s = core_schema_new(9);
	struct core_coltype t;
	char name[16];
	uint32_t i;

	for (i = 0; i < 9; i++) {
		core_type_parse(spec[i], strlen(spec[i]), &t, NULL);
		/* Distinct names: a reader rejects a repeated one. */
		snprintf(name, sizeof(name), "c_%.*s%u",
		    (int)strcspn(spec[i], "("), spec[i], i);
		core_schema_set(s, i, name, t);
	}
	return s;
}

/* Fills b with n random rows; NULLs with probability 1/null_every
 * (0 = none). */
static void
random_batch(struct core_batch *b, uint32_t n, unsigned null_every)
{
	uint32_t i, r;
	size_t used;

	core_batch_reserve(b, n, 16);
	for (i = 0; i < b->ncols; i++) {
		struct core_column *c = &b->cols[i];

		used = 0;
		for (r = 0; r < n; r++) {
			bool null = null_every && unit_rand() % null_every == 0;
			uint64_t x = unit_rand();

			switch (c->type.id) {
			case CORE_TYPE_BOOL:
				((uint8_t *)c->values)[r] = null ? 0 : x & 1;
				break;
			case CORE_TYPE_INT32:
			case CORE_TYPE_DATE:
				((int32_t *)c->values)[r] = null ? 0 :
				    (int32_t)x;
				break;
			case CORE_TYPE_FLOAT64: {
				double d = null ? 0 : (double)(int64_t)x / 7.0;

				memcpy((char *)c->values + 8 * r, &d, 8);
				break;
			}
			case CORE_TYPE_STRING: {
				size_t len = null ? 0 : x % 40;

				core_col_reserve_bytes(c, used, len);
				for (size_t k = 0; k < len; k++)
					((char *)c->values)[used + k] =
					    (char)('a' + (x >> (k % 50)) % 26);
				used += len;
				c->offsets[r + 1] = (int32_t)used;
				break;
			}
			case CORE_TYPE_DECIMAL128:
				core_i128_store((char *)c->values + 16 * r,
				    null ? 0 : (core_i128)((core_u128)x << 61 |
				    unit_rand()) * (x & 1 ? -1 : 1));
				break;
			default:
				((int64_t *)c->values)[r] = null ? 0 :
				    (int64_t)x;
				break;
			}
			if (null)
				core_col_set_null(c, r, n);
		}
	}
	b->nrows = n;
}


/* An in-memory file holding len bytes of p, rewound. */
static int
memfile(const void *p, size_t len)
{
	int fd = memfd_create("mlspill3", 0);

	if (fd < 0 || write(fd, p, len) != (ssize_t)len)
		abort();
	lseek(fd, 0, SEEK_SET);
	return fd;
}

/* Releases batches b[0..n). */
static void
release_batches(struct core_batch *b, int n)
{
	for (int f = 0; f < n; f++)
		core_batch_release(&b[f]);
}

/* want[] for streams a (na frames) then b (nb) read as one input. */
static void
want_both(const struct core_batch **want, struct core_batch *a, int na,
    struct core_batch *b, int nb)
{
	for (int f = 0; f < na; f++)
		want[f] = &a[f];
	for (int f = 0; f < nb; f++)
		want[na + f] = &b[f];
}

static char *
slurp(int fd, size_t *len)
{
	off_t n = lseek(fd, 0, SEEK_END);
	char *p = core_xmalloc((size_t)n + 1);

	if (pread(fd, p, (size_t)n, 0) != n)
		abort();
	*len = (size_t)n;
	return p;
}

/* Writes nframes random batches (kept in want[]) to a new memfd. */
static int
write_stream(const struct core_schema *s, int level, struct core_batch *want,
    int nframes, uint32_t rows, unsigned null_every)
{
	struct core_mlspill3_writer *w;
	struct core_err err;
	int fd = memfd_create("s", 0), f;

	w = core_mlspill3_writer_new(fd, "mem", s, level);
	for (f = 0; f < nframes; f++) {
		core_batch_init(&want[f], s);
		random_batch(&want[f], rows + (uint32_t)f, null_every);
		CHECK_EQ_INT(core_mlspill3_write_batch(w, &want[f], &err), 0);
	}
	CHECK_EQ_INT(core_mlspill3_writer_finish(w, &err), 0);
	core_mlspill3_writer_free(w);
	return fd;
}

/* The pool read_all reads ahead on (NULL: none). */
static struct core_pool *ahead_pool;

/* Reads fd to the end; returns the final code and counts rows. */
static int
read_all(int fd, uint64_t *rows, struct core_err *err)
{
	struct core_mlspill3_reader *r;
	struct core_batch b;
	int rc;

	*rows = 0;
	lseek(fd, 0, SEEK_SET);
	if ((rc = core_mlspill3_reader_new_fd(fd, "mem", &r, err)) != 0)
		return rc;
	core_mlspill3_reader_read_ahead(r, ahead_pool);
	core_batch_init(&b, core_mlspill3_reader_schema(r));
	while ((rc = core_mlspill3_reader_next(r, &b, err)) == 0)
		*rows += b.nrows;
	core_batch_release(&b);
	core_mlspill3_reader_free(r);
	return rc;
}

static void
round_trip(int level, unsigned null_every)
{
	struct core_schema *s = all_types_schema();
	struct core_batch want[5], got;
	struct core_mlspill3_reader *r;
	struct core_err err;
	int fd, f, rc;
	uint32_t i, row;

	fd = write_stream(s, level, want, 5, 1000, null_every);
	lseek(fd, 0, SEEK_SET);
	CHECK_EQ_INT(core_mlspill3_reader_new_fd(fd, "mem", &r, &err), 0);
	CHECK(core_schema_equal(core_mlspill3_reader_schema(r), s));
	core_batch_init(&got, core_mlspill3_reader_schema(r));
	for (f = 0; f < 5; f++) {
		rc = core_mlspill3_reader_next(r, &got, &err);
		CHECK_EQ_INT(rc, 0);
		if (rc != 0)
			break;
		CHECK_EQ_INT(got.nrows, want[f].nrows);
		for (i = 0; i < s->ncols; i++)
			for (row = 0; row < got.nrows; row++)
				if (!core_col_value_equal(&got.cols[i], row,
				    &want[f].cols[i], row)) {
					CHECK(!"value differs");
					i = s->ncols;
					break;
				}
	}
	CHECK_EQ_INT(core_mlspill3_reader_next(r, &got, &err), CORE_EOF);
	core_batch_release(&got);
	core_mlspill3_reader_free(r);
	for (f = 0; f < 5; f++)
		core_batch_release(&want[f]);
	core_schema_free(s);
	close(fd);
}

/* Frames written behind the caller make the same bytes as frames
 * written in line, raw and compressed; a failed write is reported by a
 * later call, and by every call after it. */
static void
test_async_writer(void)
{
	struct core_schema *s = all_types_schema();
	struct core_pool *pair = core_pool_new(2);
	struct core_batch b[12];
	struct core_mlspill3_writer *w;
	struct core_err err;
	int level, f, fd[2], k, rc, bad;

	CHECK(pair != NULL);
	for (f = 0; f < 12; f++) {
		core_batch_init(&b[f], s);
		random_batch(&b[f], 500 + 37 * (uint32_t)f, f % 3 ? 4 : 0);
	}
	for (level = 0; level <= 3; level += 3) {
		char *p[2];
		size_t len[2];

		for (k = 0; k < 2; k++) {
			fd[k] = memfd_create("a", 0);
			w = core_mlspill3_writer_new(fd[k], "mem", s, level);
			if (k == 1)
				core_mlspill3_writer_async(w, pair);
			for (f = 0; f < 12; f++)
				CHECK_EQ_INT(core_mlspill3_write_batch(w, &b[f],
				    &err), 0);
			CHECK_EQ_INT(core_mlspill3_writer_finish(w, &err), 0);
			core_mlspill3_writer_free(w);
			p[k] = slurp(fd[k], &len[k]);
			close(fd[k]);
		}
		CHECK(len[0] == len[1] && memcmp(p[0], p[1], len[0]) == 0);
		free(p[0]);
		free(p[1]);
	}
	/* A descriptor that cannot be written: the first frame is only
	 * handed over, the next call sees its failure. */
	fd[0] = open("/dev/null", O_RDONLY);
	w = core_mlspill3_writer_new(fd[0], "ro", s, 0);
	core_mlspill3_writer_async(w, pair);
	rc = core_mlspill3_write_batch(w, &b[0], &err);
	bad = rc != 0;
	rc = core_mlspill3_write_batch(w, &b[1], &err);
	bad += rc != 0;
	CHECK(bad >= 1);
	CHECK_EQ_INT(rc, CORE_EIO);
	CHECK(strstr(err.msg, "ro") != NULL);
	CHECK_EQ_INT(core_mlspill3_writer_finish(w, &err), CORE_EIO);
	core_mlspill3_writer_free(w);
	close(fd[0]);
	/* Freed with a frame in flight: waits for it. */
	fd[0] = memfd_create("a", 0);
	w = core_mlspill3_writer_new(fd[0], "mem", s, 0);
	core_mlspill3_writer_async(w, pair);
	CHECK_EQ_INT(core_mlspill3_write_batch(w, &b[2], &err), 0);
	core_mlspill3_writer_free(w);
	close(fd[0]);
	release_batches(b, 12);
	core_pool_free(pair);
	core_schema_free(s);
}

/* Round trips of decimal128 frames at the awkward lengths, with the
 * extremes of the range, read back value for value; then a header whose
 * decimal128 precision or scale is out of range, behind a good checksum,
 * is rejected as corrupt. */
static void
test_decimal128(void)
{
	static const uint32_t lens[] = { 0, 1, 2, 3, 17, 4095, 4096, 4097 };
	static const struct {
		unsigned char prec, scale;
		bool ok;
	} hdr[] = {
		{ 38, 4, true }, { 19, 0, true }, { 38, 38, true },
		{ 18, 4, false }, { 39, 4, false }, { 0, 0, false },
		{ 38, 39, false }, { 255, 0, false },
	};
	struct core_schema *s = core_schema_new(2);
	struct core_coltype i64 = { CORE_TYPE_INT64, 0, 0 };
	struct core_mlspill3_writer *w;
	struct core_mlspill3_reader *r;
	struct core_batch want[8], got;
	struct core_err err;
	core_i128 max = 0;
	uint64_t rows;
	size_t k, len;
	char *p;
	int fd;

	for (k = 0; k < 38; k++)
		max = max * 10 + 9;
	core_schema_set(s, 0, "d", core_type_decimal(38, 4));
	core_schema_set(s, 1, "n", i64);
	for (int level = 0; level <= 3; level += 3) {
		fd = memfd_create("d", 0);
		w = core_mlspill3_writer_new(fd, "mem", s, level);
		for (k = 0; k < 8; k++) {
			uint32_t n = lens[k];

			core_batch_init(&want[k], s);
			random_batch(&want[k], n, 1 + (unsigned)k % 3);
			for (uint32_t j = 0; j < n; j++) {
				core_i128 v = (core_i128)((core_u128)
				    unit_rand() << 64 | unit_rand()) % max;

				if (j % 7 == 0)
					v = j % 14 ? max : -max;
				if (core_col_is_valid(&want[k].cols[0], j))
					core_i128_store((char *)want[k].cols[0]
					    .values + 16 * j, v);
			}
			CHECK_EQ_INT(core_mlspill3_write_batch(w, &want[k],
			    &err), 0);
		}
		CHECK_EQ_INT(core_mlspill3_writer_finish(w, &err), 0);
		core_mlspill3_writer_free(w);
		lseek(fd, 0, SEEK_SET);
		CHECK_EQ_INT(core_mlspill3_reader_new_fd(fd, "mem", &r, &err),
		    0);
		CHECK(core_schema_equal(core_mlspill3_reader_schema(r), s));
		core_batch_init(&got, core_mlspill3_reader_schema(r));
		for (k = 0; k < 8; k++) {
			bool same = true;

			if (lens[k] == 0)
				continue;	/* an empty batch writes no frame */
			CHECK_EQ_INT(core_mlspill3_reader_next(r, &got, &err),
			    0);
			CHECK_EQ_INT(got.nrows, lens[k]);
			for (uint32_t j = 0; j < got.nrows && j < lens[k]; j++)
				same &= core_col_value_equal(&got.cols[0], j,
				    &want[k].cols[0], j) &&
				    core_col_value_equal(&got.cols[1], j,
				    &want[k].cols[1], j);
			CHECK(same);
		}
		CHECK_EQ_INT(core_mlspill3_reader_next(r, &got, &err),
		    CORE_EOF);
		core_batch_release(&got);
		core_mlspill3_reader_free(r);
		for (k = 0; k < 8; k++)
			core_batch_release(&want[k]);
		if (level == 0) {
			p = slurp(fd, &len);
			/* The first descriptor: code 9, then p and s. */
			CHECK_EQ_INT((unsigned char)p[24], 9);
			CHECK_EQ_INT((unsigned char)p[25], 38);
			CHECK_EQ_INT((unsigned char)p[26], 4);
			for (k = 0; k < sizeof(hdr) / sizeof(hdr[0]); k++) {
				/* 24 + two descriptors of 8 + 1 and 8 + 1
				 * name bytes = 42, padded to 48. */
				uint64_t h;
				int rfd;

				p[25] = (char)hdr[k].prec;
				p[26] = (char)hdr[k].scale;
				h = XXH3_64bits(p, 48);
				memcpy(p + 48, &h, 8);
				rfd = memfile(p, len);
				memset(&err, 0, sizeof(err));
				CHECK_EQ_INT(read_all(rfd, &rows, &err),
				    hdr[k].ok ? CORE_EOF : CORE_ECORRUPT);
				if (!hdr[k].ok)
					CHECK(strstr(err.msg, "bad schema") !=
					    NULL);
				close(rfd);
			}
			free(p);
		}
		close(fd);
	}
	core_schema_free(s);
}

static void test_round_trip_raw(void) { round_trip(0, 0); }
static void test_round_trip_raw_nulls(void) { round_trip(0, 5); }
static void test_round_trip_zstd_nulls(void) { round_trip(3, 3); }

/* Every cut of a complete multi-frame stream reads as truncated. */
static void
test_truncated_every_offset(void)
{
	struct core_schema *s = all_types_schema();
	struct core_batch want[3];
	struct core_err err;
	uint64_t rows;
	size_t len, cut;
	char *bytes;
	int fd, f, bad = 0;

	fd = write_stream(s, 0, want, 3, 7, 3);
	bytes = slurp(fd, &len);
	close(fd);
	CHECK(len > 500);
	/* Read in line, then read ahead on a helper. */
	for (cut = 0; cut < 2 * len; cut++) {
		int mf, rc;

		if (cut == len)
			ahead_pool = core_pool_new(2);
		mf = memfile(bytes, cut % len);
		rc = read_all(mf, &rows, &err);
		close(mf);
		if (rc != CORE_ETRUNC) {
			if (bad++ < 5)
				printf("# cut at %zu: rc %d (%s)\n", cut % len,
				    rc, err.msg);
		}
	}
	core_pool_free(ahead_pool);
	ahead_pool = NULL;
	CHECK_EQ_INT(bad, 0);
	/* The whole stream reads fine. */
	fd = memfile(bytes, len);
	CHECK_EQ_INT(read_all(fd, &rows, &err), CORE_EOF);
	CHECK_EQ_INT(rows, 7 + 8 + 9);
	close(fd);
	free(bytes);
	for (f = 0; f < 3; f++)
		core_batch_release(&want[f]);
	core_schema_free(s);
}

/* Every single-bit flip anywhere in the stream is detected. */
static void
bit_flips(int level)
{
	struct core_schema *s = all_types_schema();
	struct core_batch want[2];
	struct core_err err;
	uint64_t rows;
	size_t len, bit;
	char *bytes;
	int fd, f, missed = 0;

	fd = write_stream(s, level, want, 2, 40, 4);
	bytes = slurp(fd, &len);
	close(fd);
	/* Read in line; with level 0, read ahead as well. */
	for (bit = 0; bit < len * 8 * (level == 0 ? 2 : 1); bit++) {
		size_t at = bit % (len * 8);
		int mf, rc;

		if (bit == len * 8)
			ahead_pool = core_pool_new(2);
		bytes[at / 8] ^= (char)(1u << (at % 8));
		mf = memfile(bytes, len);
		rc = read_all(mf, &rows, &err);
		close(mf);
		bytes[at / 8] ^= (char)(1u << (at % 8));
		if (rc >= 0 && missed++ < 5)
			printf("# flip of bit %zu not detected\n", at);
	}
	core_pool_free(ahead_pool);
	ahead_pool = NULL;
	CHECK_EQ_INT(missed, 0);
	free(bytes);
	for (f = 0; f < 2; f++)
		core_batch_release(&want[f]);
	core_schema_free(s);
}

static void test_bit_flips_raw(void) { bit_flips(0); }
static void test_bit_flips_zstd(void) { bit_flips(1); }

/*
 * The body decoder that spill files use (core_spill reads bodies with
 * pread): a good body decodes to the rows written, and a body damaged
 * behind a correct checksum (the checksum is the caller's) is either
 * still well-formed or reported, never read out of bounds (ASan run).
 */
static void
body_decoder(int level)
{
	struct core_schema *s = all_types_schema();
	struct core_batch want[1], got;
	const unsigned char *rec = NULL;
	unsigned char *body;
	uint64_t body_len, nrows, zbytes;
	unsigned char *zraw = NULL;
	size_t zcap = 0, len, at;
	struct core_codec_ctx *cx = core_codec_ctx_new();
	const char *why;
	char *bytes;
	uint32_t i, row;
	int fd, trial, bad = 0, rc;

	fd = write_stream(s, level, want, 1, 300, 4);
	bytes = slurp(fd, &len);
	close(fd);
	for (at = 0; at + 32 <= len; at += 8)
		if (memcmp(bytes + at, "FRAM", 4) == 0) {
			rec = (const unsigned char *)bytes + at;
			break;
		}
	CHECK(rec != NULL);
	memcpy(&body_len, rec + 8, 8);
	memcpy(&nrows, rec + 16, 8);
	CHECK_EQ_INT(core_mlspill3_frame_check(s, body_len, nrows, &why), 0);
	CHECK_EQ_INT(core_mlspill3_frame_check(s, body_len + 4, nrows, &why),
	    CORE_ECORRUPT);
	CHECK_EQ_INT(core_mlspill3_frame_check(s, body_len, 0, &why),
	    CORE_ECORRUPT);
	body = core_xmalloc_aligned((size_t)body_len);
	core_batch_init(&got, s);
	for (trial = 0; trial < 3000; trial++) {
		memcpy(body, rec + 32, (size_t)body_len);
		/* Trial 0 is the good body; then one to four bytes changed,
		 * mostly in the buffer descriptors. */
		if (trial > 0) {
			int k, nk = 1 + (int)(unit_rand() % 4);

			for (k = 0; k < nk; k++) {
				size_t dir = (size_t)s->ncols * 3 * 24;
				size_t o = unit_rand() % 2 ? unit_rand() % dir :
				    unit_rand() % body_len;

				body[o] ^= (unsigned char)(1 + unit_rand() %
				    255);
			}
		}
		rc = core_mlspill3_body_scan(s, body, body_len, &zbytes, &why);
		if (rc == 0) {
			if (zbytes > 0)
				core_grow_aligned((void **)&zraw, &zcap,
				    (size_t)zbytes);
			rc = core_mlspill3_body_decode(s, body, body_len,
			    (uint32_t)nrows, cx, zraw, &got, &why);
		}
		if (rc != 0) {
			CHECK_EQ_INT(rc, CORE_ECORRUPT);
			CHECK(why != NULL && *why != '\0');
			bad++;
			continue;
		}
		if (trial > 0)
			continue;
		CHECK_EQ_INT(got.nrows, want[0].nrows);
		for (i = 0; i < s->ncols; i++)
			for (row = 0; row < got.nrows; row++)
				if (!core_col_value_equal(&got.cols[i], row,
				    &want[0].cols[i], row)) {
					CHECK(!"value differs");
					i = s->ncols;
					break;
				}
	}
	/* Most damage is caught by the structure checks alone. */
	CHECK(bad > 1500);
	core_batch_release(&got);
	core_batch_release(&want[0]);
	core_free_aligned(body);
	core_free_aligned(zraw);
	core_codec_ctx_free(cx);
	free(bytes);
	core_schema_free(s);
}

static void test_body_decoder_raw(void) { body_decoder(0); }
static void test_body_decoder_zstd(void) { body_decoder(1); }

static void
test_concatenated_streams(void)
{
	struct core_schema *s = all_types_schema();
	struct core_batch a[2], b[3];
	struct core_err err;
	size_t la, lb;
	char *pa, *pb, *both;
	uint64_t rows;
	int fa, fb, fd;

	fa = write_stream(s, 0, a, 2, 10, 2);
	fb = write_stream(s, 2, b, 3, 20, 0);
	pa = slurp(fa, &la);
	pb = slurp(fb, &lb);
	both = core_xmalloc(la + lb);
	memcpy(both, pa, la);
	memcpy(both + la, pb, lb);
	fd = memfile(both, la + lb);
	CHECK_EQ_INT(read_all(fd, &rows, &err), CORE_EOF);
	CHECK_EQ_INT(rows, 10 + 11 + 20 + 21 + 22);
	close(fd);
	/* Cut inside the second stream: truncated, not a short success. */
	fd = memfile(both, la + lb - 1);
	CHECK_EQ_INT(read_all(fd, &rows, &err), CORE_ETRUNC);
	close(fd);
	free(pa);
	free(pb);
	free(both);
	close(fa);
	close(fb);
	release_batches(a, 2);
	release_batches(b, 3);
	core_schema_free(s);
}

/* test_tee's two ends: a feeder writing p in uneven pieces into a
 * pipe, and a drainer keeping what comes out of the other. */
struct pipe_job {
	int fd;
	char *p;
	size_t len, cap;
};

static void *
feed(void *arg)
{
	struct pipe_job *j = arg;
	size_t off = 0, k;
	uint64_t x = 7;

	while (off < j->len) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		k = 1 + (size_t)(x >> 33) % 70000;
		if (k > j->len - off)
			k = j->len - off;
		if (write(j->fd, j->p + off, k) != (ssize_t)k)
			abort();
		off += k;
	}
	close(j->fd);
	return NULL;
}

static void *
drain(void *arg)
{
	struct pipe_job *j = arg;
	ssize_t k;

	for (;;) {
		if (j->cap - j->len < 65536)
			j->p = core_grow(j->p, &j->cap, j->len + 65536, 1,
			    1 << 20);
		if ((k = read(j->fd, j->p + j->len, j->cap - j->len)) <= 0)
			break;
		j->len += (size_t)k;
	}
	return NULL;
}

/* A tee'd reader hands on exactly what it reads, however the writes
 * fall, and still reads and checks it: rows counted, a cut found. */
static void
test_tee(void)
{
	struct core_schema *s = all_types_schema();
	struct core_mlspill3_reader *r;
	struct core_batch a[2], b[3], got;
	struct pipe_job in, out;
	struct core_err err;
	pthread_t tf, td;
	int pa[2], pb[2], f, cut, rc;
	char path[32], *both, *pa_b, *pb_b;
	size_t la, lb;
	uint64_t rows;

	f = write_stream(s, 0, a, 2, 3000, 2);
	pa_b = slurp(f, &la);
	close(f);
	f = write_stream(s, 1, b, 3, 5000, 0);
	pb_b = slurp(f, &lb);
	close(f);
	both = core_xmalloc(la + lb);
	memcpy(both, pa_b, la);
	memcpy(both + la, pb_b, lb);
	for (cut = 0; cut < 2; cut++) {
		CHECK(pipe(pa) == 0 && pipe(pb) == 0);
		in = (struct pipe_job){ pa[1], both, la + lb - (cut ? 9 : 0),
		    0 };
		out = (struct pipe_job){ pb[0], NULL, 0, 0 };
		pthread_create(&tf, NULL, feed, &in);
		pthread_create(&td, NULL, drain, &out);
		snprintf(path, sizeof(path), "/dev/fd/%d", pa[0]);
		rc = core_mlspill3_reader_new_tee(path, pb[1], "out", &r,
		    &err);
		CHECK_EQ_INT(rc, 0);
		rows = 0;
		core_batch_init(&got, s);
		while ((rc = core_mlspill3_reader_next(r, &got, &err)) == 0)
			rows += got.nrows;
		CHECK_EQ_INT(rc, cut ? CORE_ETRUNC : CORE_EOF);
		if (!cut)
			CHECK_EQ_INT(rows, 3000 + 3001 + 5000 + 5001 + 5002);
		core_batch_release(&got);
		core_mlspill3_reader_free(r);
		close(pa[0]);
		close(pb[1]);
		pthread_join(tf, NULL);
		pthread_join(td, NULL);
		CHECK_EQ_INT(out.len, in.len);
		CHECK(memcmp(out.p, both, in.len) == 0);
		free(out.p);
		close(pb[0]);
	}
	free(both);
	free(pa_b);
	free(pb_b);
	release_batches(a, 2);
	release_batches(b, 3);
	core_schema_free(s);
}

/* True when got holds want's rows and values. */
static bool
batch_same(const struct core_batch *got, const struct core_batch *want)
{
	if (got->nrows != want->nrows)
		return false;
	for (uint32_t i = 0; i < want->ncols; i++)
		for (uint32_t r = 0; r < got->nrows; r++)
			if (!core_col_value_equal(&got->cols[i], r,
			    &want->cols[i], r))
				return false;
	return true;
}

/* keep_last: after each read the batch before is still intact, across
 * buffer moves, growth, stream boundaries and compressed frames. */
static void
test_keep_last(void)
{
	enum { NA = 30, NB = 30 };
	struct core_schema *s = all_types_schema();
	struct core_batch a[NA], b[NB], got[2];
	const struct core_batch *want[NA + NB];
	struct core_mlspill3_reader *r;
	struct core_err err;
	size_t la, lb;
	char *pa, *pb, *both;
	int fa, fb, fd, f, bad = 0;

	fa = write_stream(s, 0, a, NA, 1500, 3);
	fb = write_stream(s, 1, b, NB, 700, 0);
	want_both(want, a, NA, b, NB);
	pa = slurp(fa, &la);
	pb = slurp(fb, &lb);
	both = core_xmalloc(la + lb);
	memcpy(both, pa, la);
	memcpy(both + la, pb, lb);
	fd = memfile(both, la + lb);
	CHECK_EQ_INT(core_mlspill3_reader_new_fd(fd, "mem", &r, &err), 0);
	core_mlspill3_reader_keep_last(r);
	core_batch_init(&got[0], core_mlspill3_reader_schema(r));
	core_batch_init(&got[1], core_mlspill3_reader_schema(r));
	for (f = 0; f < NA + NB; f++) {
		CHECK_EQ_INT(core_mlspill3_reader_next(r, &got[f & 1], &err),
		    0);
		bad += !batch_same(&got[f & 1], want[f]);
		if (f > 0)
			bad += !batch_same(&got[(f - 1) & 1], want[f - 1]);
	}
	CHECK_EQ_INT(core_mlspill3_reader_next(r, &got[f & 1], &err),
	    CORE_EOF);
	bad += !batch_same(&got[(f - 1) & 1], want[f - 1]);
	CHECK_EQ_INT(bad, 0);
	core_batch_release(&got[0]);
	core_batch_release(&got[1]);
	core_mlspill3_reader_free(r);
	close(fd);
	close(fa);
	close(fb);
	free(pa);
	free(pb);
	free(both);
	release_batches(a, NA);
	release_batches(b, NB);
	core_schema_free(s);
}

/*
 * read_ahead: two streams (raw with NULLs, then compressed) in two
 * files read as one input; every batch handed over equals the one
 * written, the stats after each read equal a plain reader's at the same
 * point, the end is CORE_EOF; a reader freed with a read under way, and
 * one whose pool has no helper (NULL: reads in line), are fine too.
 */
static void
test_read_ahead(void)
{
	enum { NA = 12, NB = 9 };
	struct core_schema *s = all_types_schema();
	struct core_batch a[NA], b[NB], got, plain;
	const struct core_batch *want[NA + NB];
	struct core_mlspill3_reader *r, *q;
	struct core_mlspill3_stats st, sq;
	struct core_pool *pool = core_pool_new(2);
	struct core_err err;
	char pa[] = "/tmp/colpipe-ra-a-XXXXXX", pb[] = "/tmp/colpipe-ra-b-XXXXXX";
	const char *paths[2] = { pa, pb };
	int fa, fb, f, bad = 0, mode, ta, tb;

	fa = write_stream(s, 0, a, NA, 900, 4);
	fb = write_stream(s, 1, b, NB, 400, 0);
	want_both(want, a, NA, b, NB);
	ta = mkstemp(pa);
	tb = mkstemp(pb);
	{
		size_t la, lb;
		char *p = slurp(fa, &la), *q2 = slurp(fb, &lb);

		CHECK(write(ta, p, la) == (ssize_t)la);
		CHECK(write(tb, q2, lb) == (ssize_t)lb);
		free(p);
		free(q2);
	}
	close(ta);
	close(tb);
	for (mode = 0; mode < 3; mode++) {
		CHECK_EQ_INT(core_mlspill3_reader_new(paths, 2, &r, &err), 0);
		CHECK_EQ_INT(core_mlspill3_reader_new(paths, 2, &q, &err), 0);
		core_mlspill3_reader_read_ahead(r, mode == 1 ? NULL : pool);
		core_batch_init(&got, core_mlspill3_reader_schema(r));
		core_batch_init(&plain, core_mlspill3_reader_schema(q));
		for (f = 0; f < NA + NB; f++) {
			CHECK_EQ_INT(core_mlspill3_reader_next(r, &got, &err),
			    0);
			CHECK_EQ_INT(core_mlspill3_reader_next(q, &plain,
			    &err), 0);
			bad += !batch_same(&got, want[f]);
			core_mlspill3_reader_stats(r, &st);
			core_mlspill3_reader_stats(q, &sq);
			bad += memcmp(&st, &sq, sizeof(st)) != 0;
			/* mode 2: stop with the next read under way. */
			if (mode == 2 && f == NA + 2)
				break;
		}
		if (mode != 2)
			CHECK_EQ_INT(core_mlspill3_reader_next(r, &got, &err),
			    CORE_EOF);
		core_batch_release(&got);
		core_batch_release(&plain);
		core_mlspill3_reader_free(r);
		core_mlspill3_reader_free(q);
	}
	CHECK_EQ_INT(bad, 0);
	core_pool_free(pool);
	unlink(pa);
	unlink(pb);
	close(fa);
	close(fb);
	release_batches(a, NA);
	release_batches(b, NB);
	core_schema_free(s);
}

/*
 * read_ahead on a pipe: a whole stream reads as written; a stream whose
 * writer has written one frame and a part of the next, and keeps the
 * pipe open, hands the first batch, and the reader (whose read ahead
 * waits for the writer) is freed at once all the same.
 */
static void
test_read_ahead_pipe(void)
{
	struct core_schema *s = all_types_schema();
	struct core_batch want[2], got;
	struct core_mlspill3_reader *r;
	struct core_pool *pool = core_pool_new(2);
	struct core_err err;
	size_t len;
	char *bytes;
	int fd, p[2], f;

	fd = write_stream(s, 0, want, 2, 100, 3);
	bytes = slurp(fd, &len);
	close(fd);
	CHECK(len < 60000);
	CHECK(pipe(p) == 0);
	CHECK(write(p[1], bytes, len) == (ssize_t)len);
	close(p[1]);
	CHECK_EQ_INT(core_mlspill3_reader_new_fd(p[0], "pipe", &r, &err), 0);
	core_mlspill3_reader_read_ahead(r, pool);
	core_batch_init(&got, core_mlspill3_reader_schema(r));
	for (f = 0; f < 2; f++) {
		CHECK_EQ_INT(core_mlspill3_reader_next(r, &got, &err), 0);
		CHECK(batch_same(&got, &want[f]));
	}
	CHECK_EQ_INT(core_mlspill3_reader_next(r, &got, &err), CORE_EOF);
	core_batch_release(&got);
	core_mlspill3_reader_free(r);
	close(p[0]);
	CHECK(pipe(p) == 0);
	/* Frames of about equal size: 60% of the stream holds the whole
	 * first frame, not the second. */
	CHECK(write(p[1], bytes, len * 6 / 10) == (ssize_t)(len * 6 / 10));
	CHECK_EQ_INT(core_mlspill3_reader_new_fd(p[0], "pipe", &r, &err), 0);
	core_mlspill3_reader_read_ahead(r, pool);
	core_batch_init(&got, core_mlspill3_reader_schema(r));
	CHECK_EQ_INT(core_mlspill3_reader_next(r, &got, &err), 0);
	CHECK(batch_same(&got, &want[0]));
	core_batch_release(&got);
	/* A free that waited would hang: SIGALRM ends the test instead. */
	alarm(30);
	core_mlspill3_reader_free(r);
	core_pool_free(pool);
	alarm(0);
	close(p[0]);
	close(p[1]);
	free(bytes);
	for (f = 0; f < 2; f++)
		core_batch_release(&want[f]);
	core_schema_free(s);
}

static void
test_schema_mismatch(void)
{
	struct core_schema *s = all_types_schema(), *t;
	struct core_batch a[1], b[1];
	struct core_err err;
	struct core_coltype ty = { CORE_TYPE_INT64, 0, 0 };
	size_t la, lb;
	char *pa, *pb, *both;
	uint64_t rows;
	int fa, fb, fd;

	t = core_schema_clone(s);
	core_schema_set(t, 1, "c_int32", ty);	/* int32 -> int64 */
	fa = write_stream(s, 0, a, 1, 5, 0);
	fb = write_stream(t, 0, b, 1, 5, 0);
	pa = slurp(fa, &la);
	pb = slurp(fb, &lb);
	both = core_xmalloc(la + lb);
	memcpy(both, pa, la);
	memcpy(both + la, pb, lb);
	fd = memfile(both, la + lb);
	CHECK_EQ_INT(read_all(fd, &rows, &err), CORE_EDATA);
	CHECK(strstr(err.msg, "schema mismatch") != NULL);
	close(fd);
	free(pa);
	free(pb);
	free(both);
	close(fa);
	close(fb);
	core_batch_release(&a[0]);
	core_batch_release(&b[0]);
	core_schema_free(s);
	core_schema_free(t);
}

static void
test_unknown_version(void)
{
	struct core_schema *s = all_types_schema();
	struct core_batch a[1];
	struct core_err err;
	uint64_t rows;
	size_t len;
	char *p;
	int fd;

	fd = write_stream(s, 0, a, 1, 5, 0);
	p = slurp(fd, &len);
	close(fd);
	p[8] = 2;	/* major version 2 */
	fd = memfile(p, len);
	CHECK_EQ_INT(read_all(fd, &rows, &err), CORE_EDATA);
	CHECK(strstr(err.msg, "unsupported MLSPILL3 version 2") != NULL);
	close(fd);
	memcpy(p, "NOTSPILL", 8);
	fd = memfile(p, len);
	CHECK_EQ_INT(read_all(fd, &rows, &err), CORE_EDATA);
	CHECK(strstr(err.msg, "not an MLSPILL3 stream") != NULL);
	close(fd);
	free(p);
	core_batch_release(&a[0]);
	core_schema_free(s);
}

static void
test_empty_stream(void)
{
	struct core_schema *s = all_types_schema();
	struct core_mlspill3_writer *w;
	struct core_err err;
	uint64_t rows = 99;
	int fd = memfd_create("e", 0);

	w = core_mlspill3_writer_new(fd, "mem", s, 0);
	CHECK_EQ_INT(core_mlspill3_writer_finish(w, &err), 0);
	core_mlspill3_writer_free(w);
	CHECK_EQ_INT(read_all(fd, &rows, &err), CORE_EOF);
	CHECK_EQ_INT(rows, 0);
	close(fd);
	fd = memfd_create("e", 0);
	CHECK_EQ_INT(read_all(fd, &rows, &err), CORE_ETRUNC);
	close(fd);
	core_schema_free(s);
}

/* ---- the record parser shared with spill files ---- */

/* The record check as mlspill3(5) states it, for headers made here. */
static void
set_check(unsigned char *h)
{
	unsigned char tmp[32];
	uint32_t c;

	memcpy(tmp, h, 32);
	memset(tmp + 4, 0, 4);
	c = (uint32_t)XXH3_64bits(tmp, 32);
	memcpy(h + 4, &c, 4);
}

static void
put_u64(unsigned char *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

/* A stream of two frames: its first frame's record and its end record. */
static char *
two_frames(const struct core_schema *s, size_t *len, size_t *frame,
    size_t *end)
{
	struct core_batch want[2];
	size_t at;
	char *bytes;
	int fd;

	fd = write_stream(s, 1, want, 2, 300, 4);
	bytes = slurp(fd, len);
	close(fd);
	core_batch_release(&want[0]);
	core_batch_release(&want[1]);
	*frame = *end = 0;
	for (at = 0; at + 32 <= *len; at += 8)
		if (*frame == 0 && memcmp(bytes + at, "FRAM", 4) == 0)
			*frame = at;
	*end = *len - 32 - CORE_MLSPILL3_END_BODY;
	CHECK(*frame > 0);
	CHECK(memcmp(bytes + *end, "END!", 4) == 0);
	return bytes;
}

static void
test_record_parse(void)
{
	struct core_schema *s = all_types_schema();
	struct core_mlspill3_record rec;
	unsigned char h[32];
	const unsigned char *p;
	uint64_t rows, frames, body_len;
	size_t len, fr, end, bit;
	const char *why = NULL;
	char *bytes = two_frames(s, &len, &fr, &end);
	int missed = 0;

	/* Good records. */
	p = (const unsigned char *)bytes + fr;
	CHECK_EQ_INT(core_mlspill3_record_parse(p, s, &rec, &why), 0);
	CHECK_EQ_INT(rec.kind, CORE_MLSPILL3_FRAME);
	CHECK_EQ_INT(rec.nrows, 300);
	CHECK_EQ_INT(rec.len, 32 + rec.body_len);
	CHECK(fr + rec.len < end);
	CHECK_EQ_INT(core_mlspill3_body_verify(&rec, p + 32, &why), 0);
	body_len = rec.body_len;
	p = (const unsigned char *)bytes + end;
	CHECK_EQ_INT(core_mlspill3_record_parse(p, s, &rec, &why), 0);
	CHECK_EQ_INT(rec.kind, CORE_MLSPILL3_END);
	CHECK_EQ_INT(rec.len, 32 + CORE_MLSPILL3_END_BODY);
	CHECK_EQ_INT(core_mlspill3_end_parse(&rec, p + 32, &rows, &frames,
	    &why), 0);
	CHECK_EQ_INT(rows, 601);
	CHECK_EQ_INT(frames, 2);

	/* Every single-bit flip of either header fails its check. */
	for (bit = 0; bit < 2 * 256; bit++) {
		memcpy(h, bytes + (bit < 256 ? fr : end), 32);
		h[bit % 256 / 8] ^= (unsigned char)(1u << (bit % 8));
		why = NULL;
		if (core_mlspill3_record_parse(h, s, &rec, &why) !=
		    CORE_ECORRUPT || why == NULL)
			missed++;
	}
	CHECK_EQ_INT(missed, 0);
	memcpy(h, bytes + fr, 32);
	h[5] ^= 1;
	CHECK_EQ_INT(core_mlspill3_record_parse(h, s, &rec, &why),
	    CORE_ECORRUPT);
	CHECK_EQ_STR(why, "record header check mismatch");

	/* A good check over bad contents. */
	memcpy(h, bytes + fr, 32);
	memcpy(h, "FRAX", 4);
	set_check(h);
	CHECK_EQ_INT(core_mlspill3_record_parse(h, s, &rec, &why),
	    CORE_ECORRUPT);
	CHECK_EQ_STR(why, "unknown record kind");
	{
		/* Frame lengths: past the reader's limit, unaligned, too
		 * short for the directory; rows: none, too many. */
		const uint64_t bad_len[] = {
			(uint64_t)1 << 40, CORE_MLSPILL3_MAX_BODY + 8,
			body_len + 4, 8, 0, UINT64_MAX,
		};
		const uint64_t bad_rows[] = { 0, UINT32_MAX, UINT64_MAX };
		size_t i;

		for (i = 0; i < sizeof(bad_len) / sizeof(bad_len[0]); i++) {
			memcpy(h, bytes + fr, 32);
			put_u64(h + 8, bad_len[i]);
			set_check(h);
			CHECK_EQ_INT(core_mlspill3_record_parse(h, s, &rec,
			    &why), CORE_ECORRUPT);
			CHECK_EQ_STR(why, "bad frame header");
		}
		for (i = 0; i < sizeof(bad_rows) / sizeof(bad_rows[0]); i++) {
			memcpy(h, bytes + fr, 32);
			put_u64(h + 16, bad_rows[i]);
			set_check(h);
			CHECK_EQ_INT(core_mlspill3_record_parse(h, s, &rec,
			    &why), CORE_ECORRUPT);
			CHECK_EQ_STR(why, "bad frame header");
		}
		/* The end record: its body is 24 bytes and it has no
		 * rows. */
		for (i = 0; i < 4; i++) {
			memcpy(h, bytes + end, 32);
			if (i < 3)
				put_u64(h + 8, (uint64_t[]){ 0, 32,
				    UINT64_MAX }[i]);
			else
				put_u64(h + 16, 1);
			set_check(h);
			CHECK_EQ_INT(core_mlspill3_record_parse(h, s, &rec,
			    &why), CORE_ECORRUPT);
			CHECK_EQ_STR(why, "bad end record");
		}
	}

	/* Bodies that do not match their checksum. */
	{
		unsigned char *body = core_xmalloc(body_len);

		memcpy(h, bytes + fr, 32);
		CHECK_EQ_INT(core_mlspill3_record_parse(h, s, &rec, &why), 0);
		memcpy(body, bytes + fr + 32, body_len);
		body[body_len - 1] ^= 0x80;
		CHECK_EQ_INT(core_mlspill3_body_verify(&rec, body, &why),
		    CORE_ECORRUPT);
		CHECK_EQ_STR(why, "checksum mismatch");
		free(body);
		CHECK_EQ_INT(core_mlspill3_end_parse(&rec,
		    (const unsigned char *)bytes + end + 32, &rows, &frames,
		    &why), CORE_ECORRUPT);
		memcpy(h, bytes + end, 32);
		CHECK_EQ_INT(core_mlspill3_record_parse(h, s, &rec, &why), 0);
		memcpy(h, bytes + end + 32, 24);
		h[0] ^= 1;		/* one row more */
		CHECK_EQ_INT(core_mlspill3_end_parse(&rec, h, &rows, &frames,
		    &why), CORE_ECORRUPT);
		CHECK_EQ_STR(why, "end record checksum mismatch");
	}
	free(bytes);
	core_schema_free(s);
}

static void
test_header_len(void)
{
	struct core_schema *s = all_types_schema();
	struct core_schema *other = core_schema_new(2);
	struct core_coltype t = { CORE_TYPE_INT64, 0, 0 };
	unsigned char h[CORE_MLSPILL3_HEADER_FIXED];
	uint64_t len, schema_len;
	size_t blen, fr, end;
	const char *why = NULL;
	char *bytes = two_frames(s, &blen, &fr, &end);

	core_schema_set(other, 0, "a", t);
	core_schema_set(other, 1, "b", t);
	memcpy(h, bytes, sizeof(h));
	CHECK_EQ_INT(core_mlspill3_header_len(h, s, &len, &why), 0);
	/* The header ends where the first record starts. */
	CHECK_EQ_INT(len, fr);
	CHECK_EQ_INT(core_mlspill3_header_len(h, other, &len, &why),
	    CORE_ECORRUPT);
	CHECK_EQ_STR(why, "bad stream header");
	h[3] ^= 1;
	CHECK_EQ_INT(core_mlspill3_header_len(h, s, &len, &why),
	    CORE_ECORRUPT);
	CHECK_EQ_STR(why, "no MLSPILL3 stream header");
	memcpy(h, bytes, sizeof(h));
	h[8] = 2;
	CHECK_EQ_INT(core_mlspill3_header_len(h, s, &len, &why),
	    CORE_ECORRUPT);
	CHECK_EQ_STR(why, "unsupported MLSPILL3 version");
	/* A column descriptor length no header could have. */
	memcpy(h, bytes, sizeof(h));
	schema_len = 0xffffffffu;
	memcpy(h + 20, &schema_len, 4);
	CHECK_EQ_INT(core_mlspill3_header_len(h, s, &len, &why),
	    CORE_ECORRUPT);
	free(bytes);
	core_schema_free(other);
	core_schema_free(s);
}

/* ---- what a reader must reject (mlspill3(5)) ---- */

/*
 * A stream built here from the format's text, not by the writer: ncols
 * bool columns named names[i], one frame of 4 rows whose column i holds
 * the bytes vals + 4 * i, stored raw, and the end record; flags and the
 * first descriptor's reserved byte as given.  Returns its length.
 */
static size_t
hand_stream(unsigned char *out, uint32_t flags, uint8_t reserved,
    const char *const *names, uint32_t ncols, const uint8_t *vals)
{
	unsigned char *h = out;
	size_t at = 24, body, i;
	uint64_t sum;
	uint32_t c, v;

	memcpy(h, "MLSPILL3", 8);
	h[8] = 1, h[9] = 0, h[10] = 0, h[11] = 0;
	memcpy(h + 12, &flags, 4);
	memcpy(h + 16, &ncols, 4);
	for (c = 0; c < ncols; c++) {
		v = (uint32_t)strlen(names[c]);
		memset(h + at, 0, 4);
		h[at] = 1;
		h[at + 3] = c == 0 ? reserved : 0;
		memcpy(h + at + 4, &v, 4);
		memcpy(h + at + 8, names[c], v);
		at += 8 + v;
	}
	v = (uint32_t)(at - 24);
	memcpy(h + 20, &v, 4);
	while (at % 8)
		h[at++] = 0;
	sum = XXH3_64bits(h, at);
	memcpy(h + at, &sum, 8);
	at += 8;
	/* The frame: 3 descriptors a column, then each values buffer of 4
	 * bytes padded to 8. */
	body = at + 32;
	memset(out + body, 0, (size_t)ncols * (72 + 8));
	for (c = 0; c < ncols; c++) {
		unsigned char *d = out + body + (size_t)c * 72 + 48;

		put_u64(d + 8, 4);
		put_u64(d + 16, 4);
		memcpy(out + body + (size_t)ncols * 72 + c * 8, vals + 4 * c,
		    4);
	}
	i = (size_t)ncols * 80;
	memset(out + at, 0, 32);
	memcpy(out + at, "FRAM", 4);
	put_u64(out + at + 8, i);
	put_u64(out + at + 16, 4);
	put_u64(out + at + 24, XXH3_64bits(out + body, i));
	set_check(out + at);
	at = body + i;
	memset(out + at, 0, 32 + 24);
	memcpy(out + at, "END!", 4);
	put_u64(out + at + 8, 24);
	put_u64(out + at + 32, 4);
	put_u64(out + at + 40, 1);
	put_u64(out + at + 24, XXH3_64bits(out + at + 32, 24));
	set_check(out + at);
	return at + 56;
}

static void
test_strict_reader(void)
{
	static const struct {
		uint32_t flags;
		uint8_t reserved;
		const char *names[2];
		uint8_t vals[8];
		const char *why;	/* NULL: reads */
	} cases[] = {
		{ 0, 0, { "a", "b" }, { 0, 1, 1, 0, 1, 1, 1, 1 }, NULL },
		{ 0, 0, { "a", "b" }, { 0, 1, 2, 0, 1, 1, 1, 1 },
		    "bool value other than 0 or 1" },
		{ 0, 0, { "a", "b" }, { 0, 1, 1, 0, 1, 1, 1, 0xff },
		    "bool value other than 0 or 1" },
		{ 1, 0, { "a", "b" }, { 0 }, "unknown flags 0x1" },
		{ 0x80000000u, 0, { "a", "b" }, { 0 }, "unknown flags" },
		{ 0, 1, { "a", "b" }, { 0 }, "bad schema" },
		{ 0, 0, { "a", "a" }, { 0 }, "two columns are named 'a'" },
		{ 0, 0, { "\xc3\xa9", "\xc3\xa9" }, { 0 }, "two columns" },
		{ 0, 0, { "a", "\xc3(" }, { 0 }, "column 2's name is not UTF-8" },
		{ 0, 0, { "\xff", "b" }, { 0 }, "column 1's name is not UTF-8" },
		{ 0, 0, { "ab", "a" }, { 0 }, NULL },
	};
	unsigned char buf[512];
	struct core_err err;
	uint64_t rows;
	size_t i, len;
	int fd, rc;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		len = hand_stream(buf, cases[i].flags, cases[i].reserved,
		    cases[i].names, 2, cases[i].vals);
		fd = memfile(buf, len);
		memset(&err, 0, sizeof(err));
		rc = read_all(fd, &rows, &err);
		close(fd);
		if (cases[i].why == NULL) {
			CHECK_EQ_INT(rc, CORE_EOF);
			CHECK_EQ_INT(rows, 4);
		} else {
			CHECK_EQ_INT(rc, CORE_ECORRUPT);
			CHECK(strstr(err.msg, cases[i].why) != NULL);
		}
		if (rc != (cases[i].why ? CORE_ECORRUPT : CORE_EOF) ||
		    (cases[i].why && !strstr(err.msg, cases[i].why)))
			printf("# case %zu: %s\n", i, err.msg);
	}
}

/*
 * A zstd buffer whose descriptor claims far more than its frame holds
 * is rejected from the frame's own header, before raw_len is allocated;
 * one claiming a byte more or less than the frame declares too.
 */
static void
test_zstd_declared_size(void)
{
	static const int64_t delta[] = { 1, -1, (int64_t)1 << 30,
	    ((int64_t)3 << 30) };
	struct core_schema *s = core_schema_new(1);
	struct core_coltype t = { CORE_TYPE_INT64, 0, 0 };
	struct core_batch want[1];
	struct core_err err;
	uint64_t rows, raw;
	size_t len, at, k, body, dlen;
	char *p;
	int fd;

	core_schema_set(s, 0, "x", t);
	/* Zeros: the values buffer is stored compressed. */
	core_batch_init(&want[0], s);
	core_batch_reserve(&want[0], 4096, 0);
	memset(want[0].cols[0].values, 0, 4096 * 8);
	want[0].nrows = 4096;
	fd = memfd_create("z", 0);
	{
		struct core_mlspill3_writer *w =
		    core_mlspill3_writer_new(fd, "mem", s, 3);

		CHECK_EQ_INT(core_mlspill3_write_batch(w, &want[0], &err), 0);
		CHECK_EQ_INT(core_mlspill3_writer_finish(w, &err), 0);
		core_mlspill3_writer_free(w);
	}
	p = slurp(fd, &len);
	close(fd);
	for (at = 0; at + 32 <= len; at += 8)
		if (memcmp(p + at, "FRAM", 4) == 0)
			break;
	body = at + 32;
	memcpy(&dlen, p + at + 8, 8);
	/* The values descriptor (the third) is zstd. */
	CHECK_EQ_INT((unsigned char)p[body + 48], 1);
	memcpy(&raw, p + body + 48 + 8, 8);
	CHECK_EQ_INT(raw, 4096 * 8);
	for (k = 0; k < sizeof(delta) / sizeof(delta[0]); k++) {
		char *q = core_xmalloc(len);
		uint64_t v = raw + (uint64_t)delta[k], sum;

		memcpy(q, p, len);
		memcpy(q + body + 48 + 8, &v, 8);
		sum = XXH3_64bits(q + body, dlen);
		memcpy(q + at + 24, &sum, 8);
		set_check((unsigned char *)q + at);
		fd = memfile(q, len);
		memset(&err, 0, sizeof(err));
		CHECK_EQ_INT(read_all(fd, &rows, &err), CORE_ECORRUPT);
		CHECK(strstr(err.msg, "bad compressed buffer length") != NULL);
		close(fd);
		free(q);
	}
	free(p);
	core_batch_release(&want[0]);
	core_schema_free(s);
}

/* The column limit on both sides: the writer refuses what the reader
 * would, and a header declaring more columns than the limit is refused
 * before its schema is read. */
static void
test_column_limit(void)
{
	uint32_t n = CORE_COLUMNS_MAX + 1, i;
	struct core_schema *s = core_schema_new(n);
	struct core_coltype t;
	struct core_mlspill3_writer *w;
	struct core_err err;
	unsigned char h[24];
	uint64_t rows;
	char *name;
	int fd;

	core_type_parse("int32", 5, &t, NULL);
	for (i = 0; i < n; i++)
		core_schema_set(s, i, "c", t);
	fd = memfd_create("wide", 0);
	w = core_mlspill3_writer_new(fd, "wide", s, 0);
	memset(&err, 0, sizeof(err));
	CHECK_EQ_INT(core_mlspill3_writer_finish(w, &err), CORE_ELIMIT);
	CHECK(strstr(err.msg, "1048577 columns, more than the limit of "
	    "1048576") != NULL);
	core_mlspill3_writer_free(w);
	close(fd);
	core_schema_free(s);

	/* Two names of 33 MiB: more schema than a reader reads. */
	s = core_schema_new(2);
	name = core_xmalloc(33u << 20);
	memset(name, 'a', (33u << 20) - 1);
	name[(33u << 20) - 1] = '\0';
	core_schema_set(s, 0, name, t);
	name[0] = 'b';
	core_schema_set(s, 1, name, t);
	free(name);
	fd = memfd_create("long", 0);
	w = core_mlspill3_writer_new(fd, "long", s, 0);
	memset(&err, 0, sizeof(err));
	CHECK_EQ_INT(core_mlspill3_writer_finish(w, &err), CORE_ELIMIT);
	CHECK(strstr(err.msg, "column names take") != NULL);
	core_mlspill3_writer_free(w);
	close(fd);
	core_schema_free(s);

	memcpy(h, CORE_MLSPILL3_MAGIC, 8);
	h[8] = CORE_MLSPILL3_MAJOR, h[9] = 0, h[10] = 0, h[11] = 0;
	memset(h + 12, 0, 4);
	memcpy(h + 16, &n, 4);
	i = 8 * n;
	memcpy(h + 20, &i, 4);
	fd = memfile(h, sizeof(h));
	memset(&err, 0, sizeof(err));
	CHECK_EQ_INT(read_all(fd, &rows, &err), CORE_EDATA);
	CHECK(strstr(err.msg, "1048577 columns, more than the limit") != NULL);
	close(fd);
}

int
main(void)
{
	RUN(test_round_trip_raw);
	RUN(test_keep_last);
	RUN(test_read_ahead);
	RUN(test_read_ahead_pipe);
	RUN(test_decimal128);
	RUN(test_round_trip_raw_nulls);
	RUN(test_round_trip_zstd_nulls);
	RUN(test_truncated_every_offset);
	RUN(test_bit_flips_raw);
	RUN(test_bit_flips_zstd);
	RUN(test_body_decoder_raw);
	RUN(test_body_decoder_zstd);
	RUN(test_record_parse);
	RUN(test_header_len);
	RUN(test_concatenated_streams);
	RUN(test_tee);
	RUN(test_schema_mismatch);
	RUN(test_unknown_version);
	RUN(test_empty_stream);
	RUN(test_async_writer);
	RUN(test_strict_reader);
	RUN(test_zstd_declared_size);
	RUN(test_column_limit);
	return unit_done();
}
