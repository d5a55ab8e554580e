/*
 * test_spill.c - runs in spill files, read back with pread(2).
 *
 * Runs of random batches, raw and zstd, read back equal to what was
 * written, several open at once; a run described wrongly (cut at every
 * 8-byte boundary, moved, with the wrong row count) is an error, never a
 * short or shifted success, and nothing outside the run is read.
 */
#include <string.h>

#include "core_alloc.h"
#include "core_col.h"
#include "core_mem.h"
#include "core_spill.h"
#include "unit.h"

static struct core_schema *
schema(void)
{
	struct core_schema *s = core_schema_new(2);
	struct core_coltype i64 = { CORE_TYPE_INT64, 0, 0 };
	struct core_coltype str = { CORE_TYPE_STRING, 0, 0 };

	core_schema_set(s, 0, "k", i64);
	core_schema_set(s, 1, "v", str);
	return s;
}

/* A batch of n rows: k = base + row, v = a string of (row % 13) x's. */
static void
fill(struct core_batch *b, uint32_t n, int64_t base)
{
	uint32_t r;
	int32_t off = 0;

	core_batch_reserve(b, n, 16);
	for (r = 0; r < n; r++) {
		int len = (int)(r % 13);

		((int64_t *)b->cols[0].values)[r] = base + r;
		b->cols[1].offsets[r] = off;
		core_col_reserve_bytes(&b->cols[1], (size_t)off, 13);
		memset((char *)b->cols[1].values + off, 'x', (size_t)len);
		off += len;
	}
	b->cols[1].offsets[n] = off;
	b->nrows = n;
}

/* Writes a run of nframes batches; rows get keys from base on. */
static void
write_run(struct core_spill *sp, const struct core_schema *s,
    struct core_spill_run *run, int nframes, int64_t base)
{
	struct core_batch b;
	struct core_err err;
	int f;

	core_batch_init(&b, s);
	CHECK_EQ_INT(core_spill_run_begin(sp, &err), 0);
	for (f = 0; f < nframes; f++) {
		fill(&b, 500 + (uint32_t)f, base);
		base += 500 + f;
		CHECK_EQ_INT(core_spill_run_write(sp, &b, &err), 0);
	}
	CHECK_EQ_INT(core_spill_run_end(sp, run, &err), 0);
	core_batch_release(&b);
}

/* Reads c to its end, checking every key against base, base + 1, ...;
 * returns the final code and counts rows. */
static int
read_run(struct core_spill *sp, struct core_spill_cursor *c,
    struct core_spill_frame *f, struct core_mem_part *mem, int64_t base,
    uint64_t *rows, int *wrong, struct core_err *err)
{
	uint32_t r;
	int rc;

	*rows = 0;
	while ((rc = core_spill_read_frame(sp, c, f, mem, err)) == 0) {
		for (r = 0; r < f->batch.nrows; r++) {
			const int32_t *off = f->batch.cols[1].offsets;

			if (((const int64_t *)f->batch.cols[0].values)[r] !=
			    base + (int64_t)*rows ||
			    off[r + 1] - off[r] != (int32_t)(r % 13))
				(*wrong)++;
			(*rows)++;
		}
	}
	return rc;
}

static void
round_trip(int level)
{
	struct core_schema *s = schema();
	struct core_spill *sp = core_spill_new(NULL, 0, 0, level, s);
	struct core_spill_run run[3];
	struct core_spill_cursor c[3];
	struct core_spill_frame f[3];
	struct core_mem mem;
	struct core_mem_part part;
	struct core_err err;
	uint64_t rows;
	int i, wrong = 0;

	core_mem_init(&mem, CORE_MEM_UNLIMITED);
	core_mem_part_init(&part, &mem, "frames", CORE_MEM_UNLIMITED);
	memset(f, 0, sizeof(f));
	for (i = 0; i < 3; i++)
		write_run(sp, s, &run[i], 2 + i, 1000000 * i);
	/* All three open at once, read interleaved through the cursors. */
	for (i = 0; i < 3; i++) {
		core_batch_init(&f[i].batch, s);
		CHECK_EQ_INT(core_spill_cursor_open(sp, &c[i], &run[i], &err),
		    0);
	}
	for (i = 2; i >= 0; i--) {
		CHECK_EQ_INT(read_run(sp, &c[i], &f[i], &part, 1000000 * i,
		    &rows, &wrong, &err), CORE_EOF);
		CHECK_EQ_INT(rows, run[i].rows);
		CHECK_EQ_INT(core_spill_read_frame(sp, &c[i], &f[i], &part,
		    &err), CORE_EOF);
	}
	CHECK_EQ_INT(wrong, 0);
	CHECK(mem.used > 0);
	for (i = 0; i < 3; i++) {
		core_spill_frame_release(&f[i], &part);
		core_batch_release(&f[i].batch);
	}
	CHECK_EQ_INT(mem.used, 0);
	core_spill_free(sp);
	core_schema_free(s);
}

static void test_round_trip_raw(void) { round_trip(0); }
static void test_round_trip_zstd(void) { round_trip(1); }

/*
 * The middle run of three, described wrongly: cut at every 8 bytes, and
 * started 8 bytes late or early.  Every read must fail (CORE_ECORRUPT),
 * never end early as a success nor run on into the next run.
 */
static void
test_wrong_runs(void)
{
	struct core_schema *s = schema();
	struct core_spill *sp = core_spill_new(NULL, 0, 0, 1, s);
	struct core_spill_run run[3], bad;
	struct core_spill_cursor c;
	struct core_spill_frame f;
	struct core_mem mem;
	struct core_mem_part part;
	struct core_err err;
	uint64_t rows, cut;
	int i, rc, wrong = 0, passed = 0, other = 0;

	core_mem_init(&mem, CORE_MEM_UNLIMITED);
	core_mem_part_init(&part, &mem, "frames", CORE_MEM_UNLIMITED);
	memset(&f, 0, sizeof(f));
	core_batch_init(&f.batch, s);
	for (i = 0; i < 3; i++)
		write_run(sp, s, &run[i], 3, 0);
	for (cut = 0; cut < run[1].len; cut += 8) {
		bad = run[1];
		bad.len = cut;
		rc = core_spill_cursor_open(sp, &c, &bad, &err);
		if (rc == 0)
			rc = read_run(sp, &c, &f, &part, 0, &rows, &wrong,
			    &err);
		if (rc == CORE_EOF)
			passed++;
		else if (rc != CORE_ECORRUPT)
			other++;
	}
	CHECK_EQ_INT(passed, 0);
	CHECK_EQ_INT(other, 0);
	for (i = -1; i <= 1; i += 2) {
		bad = run[1];
		bad.off += (uint64_t)(8 * i);
		CHECK_EQ_INT(core_spill_cursor_open(sp, &c, &bad, &err),
		    CORE_ECORRUPT);
	}
	/* A row count other than the run's. */
	bad = run[1];
	bad.rows++;
	CHECK_EQ_INT(core_spill_cursor_open(sp, &c, &bad, &err), 0);
	CHECK_EQ_INT(read_run(sp, &c, &f, &part, 0, &rows, &wrong, &err),
	    CORE_ECORRUPT);
	CHECK(strstr(err.msg, "row count mismatch") != NULL);
	/* And the true description still reads. */
	CHECK_EQ_INT(core_spill_cursor_open(sp, &c, &run[1], &err), 0);
	CHECK_EQ_INT(read_run(sp, &c, &f, &part, 0, &rows, &wrong, &err),
	    CORE_EOF);
	CHECK_EQ_INT(rows, run[1].rows);
	CHECK_EQ_INT(wrong, 0);
	core_spill_frame_release(&f, &part);
	core_batch_release(&f.batch);
	core_spill_free(sp);
	core_schema_free(s);
}

int
main(void)
{
	RUN(test_round_trip_raw);
	RUN(test_round_trip_zstd);
	RUN(test_wrong_runs);
	return unit_done();
}
