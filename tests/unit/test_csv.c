/*
 * test_csv.c - unit tests of the CSV reader (core_csv*.c).
 *
 * The tokenizer is checked against a deliberately naive reference parser
 * (one byte at a time, the rules of core_csv.h spelled out) on random CSV
 * with random quoting, embedded delimiters, quotes and line breaks, and
 * every kind of line end; through mapped files, gzip streams, and the
 * incremental parse with the data cut at random points.  Parsing with two
 * threads must give exactly the batches of one thread.  Then sniffing,
 * header detection, inference, pins, the NULL policy, each error message,
 * rejects, tar members and multiple inputs; and giving up on a pipe whose
 * writer went quiet.
 */
#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "core_alloc.h"
#include "core_csv.h"
#include "core_csv_private.h"
#include "core_io.h"
#include "core_value.h"
#include "unit.h"

static char tmpdir[64];

/* ---- helpers ---- */

static char *
tpath(const char *name)
{
	static char path[8][256];
	static int i;

	i = (i + 1) % 8;
	snprintf(path[i], sizeof(path[i]), "%s/%s", tmpdir, name);
	return path[i];
}

static const char *
write_file(const char *name, const void *data, size_t len)
{
	const char *path = tpath(name);
	FILE *f = fopen(path, "wb");

	if (f == NULL || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
		printf("# cannot write %s\n", path);
		exit(1);
	}
	return path;
}

static const char *
write_gz(const char *name, const void *data, size_t len)
{
	const char *path = tpath(name);
	gzFile g = gzopen(path, "wb1");

	if (g == NULL || (len > 0 && gzwrite(g, data, (unsigned)len) !=
	    (int)len) || gzclose(g) != Z_OK) {
		printf("# cannot write %s\n", path);
		exit(1);
	}
	return path;
}

/* Field and row separators in rendered output: bytes the random data
 * never holds. */
#define FS '\x01'
#define RS '\x02'
#define NUL_MARK "\x03"

static void
render_value(struct unit_buf *o, const struct core_column *c, uint32_t k)
{
	char tmp[CORE_VALUE_TEXT_MAX];
	size_t n = 0;

	if (!core_col_is_valid(c, k)) {
		unit_buf_str(o, NUL_MARK);
		return;
	}
	switch (c->type.id) {
	case CORE_TYPE_STRING:
		unit_buf_add(o, (const char *)c->values + c->offsets[k],
		    (size_t)(c->offsets[k + 1] - c->offsets[k]));
		return;
	case CORE_TYPE_BOOL:
		n = core_format_bool(((uint8_t *)c->values)[k], tmp);
		break;
	case CORE_TYPE_INT32:
		n = core_format_int64(((int32_t *)c->values)[k], tmp);
		break;
	case CORE_TYPE_INT64:
		n = core_format_int64(((int64_t *)c->values)[k], tmp);
		break;
	case CORE_TYPE_FLOAT64:
		n = core_format_float64(((double *)c->values)[k], tmp);
		break;
	case CORE_TYPE_DECIMAL:
		n = core_format_decimal(((int64_t *)c->values)[k],
		    c->type.scale, tmp);
		break;
	case CORE_TYPE_DECIMAL128:
		n = core_format_decimal128(core_i128_load(
		    (const char *)c->values + 16 * (size_t)k),
		    c->type.scale, tmp);
		break;
	case CORE_TYPE_DATE:
		n = core_format_date(((int32_t *)c->values)[k], tmp);
		break;
	case CORE_TYPE_TIMESTAMP:
		n = core_format_timestamp(((int64_t *)c->values)[k], tmp);
		break;
	}
	unit_buf_add(o, tmp, n);
}

/* What one reader run gave. */
struct run {
	int rc_new, rc;		/* of _new, and of the last _next */
	char msg[CORE_ERR_MSG_MAX];
	char *schema;		/* describe() */
	int delim, quote;
	bool header;
	struct unit_buf rows;	/* rendered rows */
	uint32_t *bsizes;	/* batch sizes */
	size_t nbatches;
	struct core_csv_stats st;
};

static void
run_free(struct run *r)
{
	free(r->schema);
	free(r->rows.p);
	free(r->bsizes);
	memset(r, 0, sizeof(*r));
}

static void
run_reader(const char *const *paths, size_t npaths,
    const struct core_csv_options *o, struct run *out)
{
	struct core_csv_reader *r;
	struct core_err err;
	struct core_batch b;
	uint32_t k, j;

	memset(out, 0, sizeof(*out));
	memset(&err, 0, sizeof(err));
	out->rc_new = core_csv_reader_new(paths, npaths, o, &r, &err);
	if (out->rc_new != 0) {
		snprintf(out->msg, sizeof(out->msg), "%s", err.msg);
		return;
	}
	out->schema = core_schema_describe(core_csv_reader_schema(r));
	core_csv_reader_dialect(r, &out->delim, &out->quote, &out->header);
	core_batch_init(&b, core_csv_reader_schema(r));
	while ((out->rc = core_csv_reader_next(r, &b, &err)) == 0) {
		if (b.nrows == 0 || b.nrows > o->batch_rows)
			out->rc = -100;	/* broken promise */
		out->bsizes = core_xreallocarray(out->bsizes,
		    out->nbatches + 1, sizeof(uint32_t));
		out->bsizes[out->nbatches++] = b.nrows;
		for (k = 0; k < b.nrows; k++) {
			for (j = 0; j < b.ncols; j++) {
				if (j > 0)
					unit_buf_ch(&out->rows, FS);
				render_value(&out->rows, &b.cols[j], k);
			}
			unit_buf_ch(&out->rows, RS);
		}
		if (out->rc != 0)
			break;
	}
	if (out->rc < 0)
		snprintf(out->msg, sizeof(out->msg), "%s", err.msg);
	core_csv_reader_stats(r, &out->st);
	core_batch_release(&b);
	core_csv_reader_free(r);
}

static void
run_one(const char *path, const struct core_csv_options *o, struct run *out)
{
	run_reader(&path, 1, o, out);
}

/* Options: fixed dialect, no header, every column a string. */
static void
string_opts(struct core_csv_options *o, int ncols, char *spec, size_t cap)
{
	size_t off = 0;
	int j;

	core_csv_options_init(o);
	o->delimiter = ',';
	o->quote = '"';
	o->header = 0;
	spec[0] = '\0';
	for (j = 0; j < ncols; j++)
		off += (size_t)snprintf(spec + off, cap - off, "%sc%d:string",
		    j ? "," : "", j + 1);
	o->schema = spec;
}

/* ---- the reference parser ---- */

/* Parses text by the rules of core_csv.h, one byte at a time, into
 * rendered rows (strings only; "" quoted is empty, empty unquoted NULL).
 * Returns false on a syntax error. */
static bool
ref_parse(const char *s, size_t n, char d, char q, struct unit_buf *out,
    size_t *ncols_out)
{
	size_t i = 0, ncols = 0, nf;
	bool first = true;

	while (i < n) {
		/* Blank line? (only skipped when there is more than one
		 * column, or before the first row) */
		if ((s[i] == '\n' || s[i] == '\r') && (first || ncols > 1)) {
			if (s[i] == '\r' && i + 1 < n && s[i + 1] == '\n')
				i++;
			i++;
			continue;
		}
		nf = 0;
		for (;;) {
			if (nf > 0)
				unit_buf_ch(out, FS);
			nf++;
			if (i < n && s[i] == q) {
				i++;
				for (;;) {
					if (i >= n)
						return false;
					if (s[i] == q) {
						if (i + 1 < n && s[i + 1] == q) {
							unit_buf_ch(out, q);
							i += 2;
							continue;
						}
						i++;
						break;
					}
					unit_buf_ch(out, s[i]);
					i++;
				}
				if (i < n && s[i] != d && s[i] != '\n' &&
				    s[i] != '\r')
					return false;
			} else {
				size_t st = i;

				while (i < n && s[i] != d && s[i] != '\n' &&
				    s[i] != '\r')
					i++;
				if (i == st)
					unit_buf_str(out, NUL_MARK);
				else
					unit_buf_add(out, s + st, i - st);
			}
			if (i < n && s[i] == d) {
				i++;
				continue;
			}
			break;
		}
		unit_buf_ch(out, RS);
		if (first)
			ncols = nf;
		else if (nf != ncols)
			return false;
		first = false;
		if (i < n) {
			if (s[i] == '\r' && i + 1 < n && s[i + 1] == '\n')
				i++;
			i++;
		}
	}
	*ncols_out = ncols;
	return true;
}

/* Random CSV: ncols columns, about nrows rows, every kind of quoting and
 * line end, random blank lines, optional final terminator. */
static void
gen_csv(struct unit_buf *b, int ncols, int nrows, bool tricky)
{
	static const char *const pieces[] = {
		"a", "b", "xyz", " ", ",", "\"", "\n", "\r", "\r\n", "\xc3\xa9",
		"12", "-3.5", "\xe2\x82\xac", "q\"q", "tab\t",
	};
	static const char *const eols[] = { "\n", "\r\n", "\r" };
	int r, j, k, np;

	for (r = 0; r < nrows; r++) {
		if (tricky && ncols > 1 && unit_rand() % 20 == 0)
			unit_buf_str(b, eols[unit_rand() % 3]);	/* blank */
		for (j = 0; j < ncols; j++) {
			struct unit_buf f = { 0 };
			bool special = false, quote;

			if (j > 0)
				unit_buf_ch(b, ',');
			np = (int)(unit_rand() % 4);
			for (k = 0; k < np; k++) {
				size_t pi = unit_rand() % (tricky ? 15 : 3);

				unit_buf_str(&f, pieces[pi]);
			}
			for (size_t i = 0; i < f.len; i++)
				if (f.p[i] == ',' || f.p[i] == '"' ||
				    f.p[i] == '\n' || f.p[i] == '\r')
					special = true;
			/* An unquoted field may hold a quote byte when it
			 * does not start with one. */
			if (special && f.len > 0 && f.p[0] != '"') {
				special = false;
				for (size_t i = 0; i < f.len; i++)
					if (f.p[i] == ',' || f.p[i] == '\n' ||
					    f.p[i] == '\r')
						special = true;
			}
			quote = special || unit_rand() % 5 == 0;
			if (ncols == 1 && f.len == 0)
				quote = true;	/* else a blank line */
			if (quote) {
				unit_buf_ch(b, '"');
				for (size_t i = 0; i < f.len; i++) {
					if (f.p[i] == '"')
						unit_buf_ch(b, '"');
					unit_buf_ch(b, f.p[i]);
				}
				unit_buf_ch(b, '"');
			} else if (f.len > 0) {
				unit_buf_add(b, f.p, f.len);
			}
			free(f.p);
		}
		if (r + 1 < nrows || unit_rand() % 2)
			unit_buf_str(b, eols[tricky ? unit_rand() % 3 : 0]);
	}
}

/* ---- tokenizer vs reference ---- */

static void
check_against_ref(const struct unit_buf *csv, int ncols, const char *tag,
    uint32_t batch_rows, unsigned threads, bool gz)
{
	struct core_csv_options o;
	struct unit_buf want = { 0 };
	struct run got;
	char spec[4096];
	const char *path;
	size_t rn = 0;
	bool ok;

	ok = ref_parse(csv->p, csv->len, ',', '"', &want, &rn);
	CHECK(ok);
	if (!ok)
		return;
	string_opts(&o, ncols, spec, sizeof(spec));
	o.batch_rows = batch_rows;
	o.threads = threads;
	path = gz ? write_gz("ref.csv.gz", csv->p, csv->len) :
	    write_file("ref.csv", csv->p, csv->len);
	run_one(path, &o, &got);
	if (got.rc_new != 0 || got.rc != CORE_EOF) {
		printf("# %s: rc %d/%d: %s\n", tag, got.rc_new, got.rc,
		    got.msg);
		unit_cur_failed++;
	} else if (got.rows.len != want.len ||
	    memcmp(got.rows.p, want.p, want.len) != 0) {
		size_t i = 0;

		while (i < want.len && i < got.rows.len &&
		    want.p[i] == got.rows.p[i])
			i++;
		printf("# %s: rows differ at byte %zu of %zu/%zu\n", tag, i,
		    got.rows.len, want.len);
		unit_cur_failed++;
	}
	run_free(&got);
	free(want.p);
}

static void
test_random_vs_reference(void)
{
	int iter;

	for (iter = 0; iter < 300; iter++) {
		struct unit_buf csv = { 0 };
		int ncols = 1 + (int)(unit_rand() % 6);
		int nrows = 1 + (int)(unit_rand() % 60);
		uint32_t br = iter % 3 == 0 ? 1 : iter % 3 == 1 ? 7 : 8192;
		char tag[64];

		gen_csv(&csv, ncols, nrows, true);
		snprintf(tag, sizeof(tag), "iter %d (%d cols)", iter, ncols);
		check_against_ref(&csv, ncols, tag, br, 1, false);
		if (iter % 10 == 0)
			check_against_ref(&csv, ncols, tag, br, 1, true);
		free(csv.p);
	}
}

/* The incremental parse (streams): cut the data anywhere, resume, and get
 * the same rows as in one go. */
static void
test_incremental_cuts(void)
{
	int iter;

	for (iter = 0; iter < 200; iter++) {
		struct unit_buf csv = { 0 }, want = { 0 }, got = { 0 };
		int ncols = 1 + (int)(unit_rand() % 4);
		size_t rn, pos = 0, avail, k;
		struct csv_conf cf;
		struct csv_pool *pool;
		struct csv_parser ps;
		struct csv_result res;
		struct core_schema *sch;
		int rc;

		gen_csv(&csv, ncols, 1 + (int)(unit_rand() % 30), true);
		if (!ref_parse(csv.p, csv.len, ',', '"', &want, &rn)) {
			CHECK(0);
			continue;
		}
		sch = core_schema_new((uint32_t)rn);
		for (k = 0; k < rn; k++) {
			struct core_coltype st = { CORE_TYPE_STRING, 0, 0 };

			core_schema_set(sch, (uint32_t)k, "c", st);
		}
		memset(&cf, 0, sizeof(cf));
		cf.delim = ',';
		cf.quote = '"';
		cf.schema = sch;
		cf.ncols = (uint32_t)rn;
		cf.pinned = core_xcalloc(rn, sizeof(bool));
		cf.batch_rows = 3;
		cf.skip_blank = rn > 1;
		pool = csv_pool_new(sch);
		csv_parser_init(&ps, &cf, pool);
		csv_result_init(&res);
		/* Skip leading blank lines as the reader does. */
		while (csv_skip_eol(csv.p, &pos, csv.len, true) == 1)
			;
		avail = pos;
		for (;;) {
			bool eof;

			avail += 1 + unit_rand() % 5;
			if (avail > csv.len)
				avail = csv.len;
			eof = avail == csv.len;
			rc = csv_parse(&ps, csv.p, &pos, avail, avail, eof,
			    &res);
			CHECK(rc != CSV_PARSE_STOP);
			if (eof && pos == csv.len)
				break;
			if (rc == CSV_PARSE_STOP)
				break;
		}
		csv_parser_flush(&ps, &res);
		for (k = 0; k < res.nbatches; k++)
			for (uint32_t r = 0; r < res.batches[k].nrows; r++) {
				for (uint32_t j = 0; j < rn; j++) {
					if (j)
						unit_buf_ch(&got, FS);
					render_value(&got,
					    &res.batches[k].cols[j], r);
				}
				unit_buf_ch(&got, RS);
			}
		CHECK(got.len == want.len &&
		    memcmp(got.p, want.p, want.len) == 0);
		CHECK_EQ_INT(res.nrecs, 0);
		csv_result_release(&res);
		csv_parser_release(&ps);
		csv_pool_free(pool);
		free(cf.pinned);
		core_schema_free(sch);
		free(csv.p);
		free(want.p);
		free(got.p);
	}
}

/* Reads the streamed input path (bytes long once decompressed) with one
 * thread and with two, o's other options as they are: both give want's
 * rows, in the same batches (more than two), and the same lines, which
 * are returned. */
static uint64_t
stream_one_two(const char *path, struct core_csv_options *o,
    const struct unit_buf *want, size_t bytes)
{
	struct run one, two;
	uint64_t lines;

	o->threads = 1;
	run_one(path, o, &one);
	o->threads = 2;
	run_one(path, o, &two);
	CHECK_EQ_INT(one.rc, CORE_EOF);
	CHECK_EQ_INT(two.rc, CORE_EOF);
	CHECK(one.rows.len == want->len &&
	    memcmp(one.rows.p, want->p, want->len) == 0);
	CHECK(two.rows.len == want->len &&
	    memcmp(two.rows.p, want->p, want->len) == 0);
	CHECK(one.nbatches == two.nbatches && memcmp(one.bsizes,
	    two.bsizes, one.nbatches * sizeof(uint32_t)) == 0);
	CHECK(one.nbatches > 2);
	CHECK_EQ_INT(one.st.lines, two.st.lines);
	CHECK_EQ_INT(one.st.bytes, bytes);
	lines = one.st.lines;
	run_free(&one);
	run_free(&two);
	return lines;
}

/* Several MB: one thread and two threads give the same batches, and the
 * reference's rows; also through gzip (streamed). */
static void
test_threads_same(void)
{
	int iter;

	for (iter = 0; iter < 4; iter++) {
		struct unit_buf csv = { 0 }, want = { 0 };
		struct core_csv_options o;
		struct run one, two;
		int ncols = 3 + iter;
		char spec[512];
		const char *path;
		size_t rn;

		/* iter 2, 3: long quoted fields full of line breaks, so
		 * chunk guesses land inside quotes. */
		while (csv.len < (size_t)(6 + iter) * 1000 * 1000) {
			if (iter >= 2 && unit_rand() % 50 == 0) {
				unit_buf_str(&csv, "\"");
				for (int k = 0; k < 20000; k++)
					unit_buf_str(&csv, k % 7 ? "x" : "\n");
				unit_buf_str(&csv, "\"");
				for (int j = 1; j < ncols; j++)
					unit_buf_str(&csv, ",z");
				unit_buf_str(&csv, "\n");
				continue;
			}
			gen_csv(&csv, ncols, 100, iter % 2 == 1);
			if (csv.len > 0 && csv.p[csv.len - 1] != '\n' &&
			    csv.p[csv.len - 1] != '\r')
				unit_buf_str(&csv, "\n");
		}
		CHECK(ref_parse(csv.p, csv.len, ',', '"', &want, &rn));
		path = write_file("big.csv", csv.p, csv.len);
		string_opts(&o, ncols, spec, sizeof(spec));
		o.threads = 1;
		run_one(path, &o, &one);
		o.threads = 2;
		run_one(path, &o, &two);
		CHECK_EQ_INT(one.rc, CORE_EOF);
		CHECK_EQ_INT(two.rc, CORE_EOF);
		CHECK(one.rows.len == want.len &&
		    memcmp(one.rows.p, want.p, want.len) == 0);
		CHECK(one.rows.len == two.rows.len &&
		    memcmp(one.rows.p, two.rows.p, one.rows.len) == 0);
		CHECK_EQ_INT(one.nbatches, two.nbatches);
		CHECK(one.nbatches == two.nbatches && memcmp(one.bsizes,
		    two.bsizes, one.nbatches * sizeof(uint32_t)) == 0);
		CHECK(one.st.lines == two.st.lines);
		CHECK(one.nbatches > 2);
		/* Streamed (gzip): read ahead in slots that are parsed as
		 * chunks, cut at a line feed that may be inside quotes.
		 * One thread and two give the same batches. */
		path = write_gz("big.csv.gz", csv.p, csv.len);
		CHECK_EQ_INT(stream_one_two(path, &o, &want, csv.len),
		    one.st.lines);
		run_free(&one);
		run_free(&two);
		free(csv.p);
		free(want.p);
	}
}

/* A stream whose lines end in a lone CR (old Mac files) and has no line
 * feed at all: its slots are cut after a CR, which may be inside quotes
 * or the last byte read (then maybe half a CR LF); one thread and two
 * give the reference's rows, the same batches and lines. */
static void
test_stream_cr(void)
{
	struct unit_buf csv = { 0 }, want = { 0 };
	struct core_csv_options o;
	char spec[512];
	const char *path;
	size_t rn;
	int i = 0;

	while (csv.len < 11 * 1000 * 1000) {
		char line[96];

		if (i % 5000 == 4999) {
			/* Long quoted CRs: cuts land inside quotes. */
			unit_buf_str(&csv, "\"");
			for (int k = 0; k < 30000; k++)
				unit_buf_str(&csv, k % 5 ? "y" : "\r");
			unit_buf_str(&csv, "\",z,\"\r\r\"\r");
		} else if (i % 7 == 3) {
			snprintf(line, sizeof(line), "%d,\"a\r%d\",b\r", i, i);
			unit_buf_str(&csv, line);
		} else {
			snprintf(line, sizeof(line), "%d,%d,\"q\"\"%d\"\r", i,
			    i * 7, i);
			unit_buf_str(&csv, line);
		}
		i++;
	}
	CHECK(memchr(csv.p, '\n', csv.len) == NULL);
	CHECK(ref_parse(csv.p, csv.len, ',', '"', &want, &rn));
	path = write_gz("cr.csv.gz", csv.p, csv.len);
	string_opts(&o, 3, spec, sizeof(spec));
	(void)stream_one_two(path, &o, &want, csv.len);
	free(csv.p);
	free(want.p);
}

/* Errors far into a big file: one thread and two name the same line,
 * mapped and streamed (gzip). */
static void
threads_errors(bool gz)
{
	struct unit_buf csv = { 0 };
	struct core_csv_options o;
	struct run one, two;
	struct core_output rej1, rej2;
	int fd1, fd2, i;
	char b1[4096], b2[4096];
	ssize_t n1, n2;
	const char *path;

	unit_buf_str(&csv, "a,b,c\n");
	for (i = 0; i < 600000; i++) {
		char line[64];

		if (i % 100000 == 99999)
			snprintf(line, sizeof(line), "%d,x%d,\"q\nq\"\n", i, i);
		else if (i % 150000 == 77)
			snprintf(line, sizeof(line), "%d,bad\n", i);
		else
			snprintf(line, sizeof(line), "%d,%d,\"s\"\n", i, i);
		unit_buf_str(&csv, line);
	}
	path = gz ? write_gz("errs.csv.gz", csv.p, csv.len) :
	    write_file("errs.csv", csv.p, csv.len);
	core_csv_options_init(&o);
	o.threads = 1;
	run_one(path, &o, &one);
	o.threads = 2;
	run_one(path, &o, &two);
	CHECK_EQ_INT(one.rc, CORE_EDATA);
	CHECK_EQ_INT(two.rc, CORE_EDATA);
	CHECK_EQ_STR(one.msg, two.msg);
	CHECK(strstr(one.msg, gz ? "errs.csv.gz:79:2: row has 2 fields, "
	    "expected 3 (77,bad)" : "errs.csv:79:2: row has 2 fields, "
	    "expected 3 (77,bad)") != NULL);
	run_free(&one);
	run_free(&two);

	/* With rejects: same rejects file. */
	fd1 = core_tmpfile_open(tmpdir, NULL);
	fd2 = core_tmpfile_open(tmpdir, NULL);
	core_output_init(&rej1, fd1, "rej1", 0);
	core_output_init(&rej2, fd2, "rej2", 0);
	o.rejects = &rej1;
	o.threads = 1;
	run_one(path, &o, &one);
	o.rejects = &rej2;
	o.threads = 2;
	run_one(path, &o, &two);
	CHECK_EQ_INT(one.rc, CORE_EOF);
	CHECK_EQ_INT(two.rc, CORE_EOF);
	CHECK(one.rows.len == two.rows.len &&
	    memcmp(one.rows.p, two.rows.p, one.rows.len) == 0);
	CHECK_EQ_INT(one.st.rejected, two.st.rejected);
	CHECK(one.st.rejected >= 4);
	CHECK(core_output_flush(&rej1, NULL) == 0);
	CHECK(core_output_flush(&rej2, NULL) == 0);
	n1 = pread(fd1, b1, sizeof(b1) - 1, 0);
	n2 = pread(fd2, b2, sizeof(b2) - 1, 0);
	CHECK(n1 > 0 && n1 == n2 && memcmp(b1, b2, (size_t)n1) == 0);
	b1[n1 > 0 ? n1 : 0] = '\0';
	/* Line numbers count the line breaks inside quotes before. */
	CHECK(strstr(b1, "150080\t") != NULL);
	CHECK(strstr(b1, "450083\t") != NULL);
	run_free(&one);
	run_free(&two);

	/* A cap: the same point of failure. */
	o.max_errors = 3;
	o.rejects = &rej1;
	o.threads = 1;
	run_one(path, &o, &one);
	o.rejects = &rej2;
	o.threads = 2;
	run_one(path, &o, &two);
	CHECK_EQ_INT(one.rc, CORE_ELIMIT);
	CHECK_EQ_INT(two.rc, CORE_ELIMIT);
	CHECK_EQ_STR(one.msg, two.msg);
	core_output_release(&rej1);
	core_output_release(&rej2);
	close(fd1);
	close(fd2);
	run_free(&one);
	run_free(&two);
	free(csv.p);
}

static void
test_threads_errors(void)
{
	threads_errors(false);
	threads_errors(true);
}

/* A compressed stream cut short far in: an error naming the input after
 * the rows before it, the same with one thread and two, never EOF. */
static void
test_stream_truncated(void)
{
	struct unit_buf csv = { 0 };
	struct core_csv_options o;
	struct run one, two;
	const char *path;
	struct stat st;
	int i;

	for (i = 0; i < 700000; i++) {
		char line[64];

		snprintf(line, sizeof(line), "%d,%d,\"s%d\"\n", i, i * 7, i);
		unit_buf_str(&csv, line);
	}
	path = write_gz("cut.csv.gz", csv.p, csv.len);
	CHECK_EQ_INT(stat(path, &st), 0);
	CHECK_EQ_INT(truncate(path, st.st_size * 2 / 3), 0);
	core_csv_options_init(&o);
	o.threads = 1;
	run_one(path, &o, &one);
	o.threads = 2;
	run_one(path, &o, &two);
	CHECK(one.rc < 0 && one.rc != CORE_EOF);
	CHECK_EQ_INT(two.rc, one.rc);
	CHECK_EQ_STR(one.msg, two.msg);
	CHECK(strstr(one.msg, "cut.csv.gz") != NULL);
	/* The rows before the cut came out, some megabytes of them. */
	CHECK(one.rows.len > (2u << 20));
	CHECK(one.rows.len == two.rows.len &&
	    memcmp(one.rows.p, two.rows.p, one.rows.len) == 0);
	run_free(&one);
	run_free(&two);
	free(csv.p);
}

/* A row bigger than the stream buffer and than a chunk. */
static void
test_huge_row(void)
{
	struct unit_buf csv = { 0 }, want = { 0 };
	struct core_csv_options o;
	char spec[64];
	struct run m, g;
	size_t rn;
	int k;

	unit_buf_str(&csv, "1,\"");
	for (k = 0; k < 700000; k++)
		unit_buf_str(&csv, k % 9 ? "abcdefgh\"\"" : "\r\n");
	unit_buf_str(&csv, "\"\n2,x\n");
	CHECK(ref_parse(csv.p, csv.len, ',', '"', &want, &rn));
	string_opts(&o, 2, spec, sizeof(spec));
	o.threads = 2;
	run_one(write_file("huge.csv", csv.p, csv.len), &o, &m);
	run_one(write_gz("huge.csv.gz", csv.p, csv.len), &o, &g);
	CHECK_EQ_INT(m.rc, CORE_EOF);
	CHECK_EQ_INT(g.rc, CORE_EOF);
	CHECK(m.rows.len == want.len &&
	    memcmp(m.rows.p, want.p, want.len) == 0);
	CHECK(g.rows.len == want.len &&
	    memcmp(g.rows.p, want.p, want.len) == 0);
	CHECK_EQ_INT(m.st.lines, 700000 / 9 + 1 + 2);
	CHECK_EQ_INT(g.st.lines, m.st.lines);
	run_free(&m);
	run_free(&g);
	free(csv.p);
	free(want.p);
}

/* ---- small cases ---- */

/* Parses text with default options (sniffing, header detection) plus
 * tweaks; returns the run. */
static void
run_text(const char *text, struct core_csv_options *o, struct run *out)
{
	const char *path = write_file("t.csv", text, strlen(text));

	run_one(path, o, out);
}

/* Renders rows with | and \n for readable expectations. */
static char *
pretty(const struct run *r)
{
	char *s = core_xmalloc(r->rows.len + 1);
	size_t i, o = 0;

	for (i = 0; i < r->rows.len; i++) {
		char c = r->rows.p[i];

		if (c == FS)
			s[o++] = '|';
		else if (c == RS)
			s[o++] = ';';
		else if (c == NUL_MARK[0])
			s[o++] = '~';
		else
			s[o++] = c;
	}
	s[o] = '\0';
	return s;
}

#define EXPECT_ROWS(text, opts, want_schema, want_rows)			\
	do {								\
		struct run r_;						\
		char *p_;						\
		run_text((text), (opts), &r_);				\
		CHECK_EQ_INT(r_.rc_new, 0);				\
		if (r_.rc_new != 0)					\
			printf("# %s\n", r_.msg);			\
		CHECK_EQ_INT(r_.rc, CORE_EOF);				\
		if (r_.rc < 0)						\
			printf("# %s\n", r_.msg);			\
		CHECK_EQ_STR(r_.schema, (want_schema));			\
		p_ = pretty(&r_);					\
		CHECK_EQ_STR(p_, (want_rows));				\
		free(p_);						\
		run_free(&r_);						\
	} while (0)

static void
test_rfc_basics(void)
{
	struct core_csv_options o;

	core_csv_options_init(&o);
	/* CRLF, no final newline, quoted with doubled quotes and CRLF. */
	EXPECT_ROWS("a,b\r\n1,\"x\"\"y\"\r\n2,\"l1\r\nl2\"", &o,
	    "a:int64,b:string", "1|x\"y;2|l1\r\nl2;");
	/* CR only line ends. */
	EXPECT_ROWS("a,b\r1,x\r2,y\r", &o, "a:int64,b:string",
	    "1|x;2|y;");
	/* BOM. */
	EXPECT_ROWS("\xef\xbb\xbf" "id,name\n1,ann\n", &o,
	    "id:int64,name:string", "1|ann;");
	/* Blank lines skipped (more than one column). */
	EXPECT_ROWS("\n\na,b\n\n1,2\r\n\r\n3,4\n\n", &o, "a:int64,b:int64",
	    "1|2;3|4;");
	/* One column: a blank line is a NULL row. */
	EXPECT_ROWS("n\n1\n\n3\n", &o, "n:int64", "1;~;3;");
	/* Quote in the middle of an unquoted field is data. */
	EXPECT_ROWS("a,b\nit's,5\"6\n", &o, "a:string,b:string",
	    "it's|5\"6;");
	/* Trailing delimiter: an empty last field. */
	EXPECT_ROWS("a,b,c\n1,2,\n", &o, "a:int64,b:int64,c:string",
	    "1|2|~;");
	/* Header only. */
	EXPECT_ROWS("x,y\n", &o, "x:string,y:string", "");
}

static void
test_sniff(void)
{
	struct core_csv_options o;
	struct run r;

	core_csv_options_init(&o);
	run_text("a;b;c\n1,5;2,5;x\n3,0;4;y\n", &o, &r);
	CHECK_EQ_INT(r.delim, ';');
	CHECK_EQ_INT(r.quote, '"');
	run_free(&r);
	run_text("a\tb\n1\tx, y\n2\tz\n", &o, &r);
	CHECK_EQ_INT(r.delim, '\t');
	run_free(&r);
	run_text("a|b|c\n1|2|3\n", &o, &r);
	CHECK_EQ_INT(r.delim, '|');
	run_free(&r);
	run_text("a,b\n'x,y',1\n'z',2\n", &o, &r);
	CHECK_EQ_INT(r.delim, ',');
	CHECK_EQ_INT(r.quote, '\'');
	run_free(&r);
	run_text("a,b\n\"x;y\",1\n\"z;w\",2\n", &o, &r);
	CHECK_EQ_INT(r.delim, ',');
	CHECK_EQ_INT(r.quote, '"');
	run_free(&r);
	/* A quote that never closes properly is reported, not read around
	 * by sniffing the file as unquoted (-q none does that). */
	run_text("size,n\n\"5 in,1\n\"3 in,2\n", &o, &r);
	CHECK_EQ_INT(r.quote, '"');
	CHECK_EQ_INT(r.rc, CORE_EDATA);
	run_free(&r);
	o.quote = 0;
	run_text("size,n\n\"5 in,1\n\"3 in,2\n", &o, &r);
	CHECK_EQ_INT(r.rc, CORE_EOF);
	CHECK_EQ_STR(r.schema, "size:string,n:int64");
	run_free(&r);
	o.quote = -1;
	/* A ' that opens fields but does not close them is not a quote. */
	run_text("a,b\n'x,1\n'y,2\n", &o, &r);
	CHECK_EQ_INT(r.quote, '"');
	CHECK_EQ_INT(r.rc, CORE_EOF);
	run_free(&r);
	/* Quoting that explains delimiters inside beats more columns. */
	run_text("a,\"b,c\",d\n1,\"2,5\",3\n", &o, &r);
	CHECK_EQ_INT(r.quote, '"');
	CHECK_EQ_STR(r.schema, "a:int64,b,c:string,d:int64");
	run_free(&r);
	run_text("x\n\"{'a': 1, 'b': 2}\"\n\"{'a': 3, 'b': 4}\"\n", &o, &r);
	CHECK_EQ_INT(r.quote, '"');
	CHECK_EQ_STR(r.schema, "x:string");
	run_free(&r);
	/* One column. */
	run_text("name\nann\nbob\n", &o, &r);
	CHECK_EQ_INT(r.delim, ',');
	CHECK_EQ_STR(r.schema, "name:string");
	run_free(&r);
	/* Given delimiter outside the candidates. */
	o.delimiter = ':';
	EXPECT_ROWS("a:b\n1:2\n", &o, "a:int64,b:int64", "1|2;");
}

static void expect_error(const char *text, struct core_csv_options *o,
    int code, const char *want);

static void
test_header(void)
{
	struct core_csv_options o;

	core_csv_options_init(&o);
	EXPECT_ROWS("1,2\n3,4\n", &o, "c1:int64,c2:int64", "1|2;3|4;");
	EXPECT_ROWS("x,y\nann,bob\n", &o, "x:string,y:string", "ann|bob;");
	EXPECT_ROWS("x,2020-01-01\nann,2021-02-03\n", &o,
	    "c1:string,c2:date", "x|2020-01-01;ann|2021-02-03;");
	/* An all-empty first row is data. */
	EXPECT_ROWS(",\n,\"\"\n", &o, "c1:string,c2:string", "~|~;~|;");
	/* A first row repeating its column's data is data. */
	EXPECT_ROWS("1/1/2020\n1/1/2020\n5/7/1995\n", &o, "c1:string",
	    "1/1/2020;1/1/2020;5/7/1995;");
	/* A header repeated whole (concatenated files) stays a header, and
	 * its copy is an error in a typed column. */
	EXPECT_ROWS("name,city\nann,rome\nname,city\nbob,oslo\n", &o,
	    "name:string,city:string", "ann|rome;name|city;bob|oslo;");
	expect_error("id,v\n1,a\nid,v\n2,b\n", &o, CORE_EDATA,
	    "3:1: value does not fit column id of type int64 (id); pin the "
	    "column's type");
	/* NUL or invalid UTF-8 cannot be a name: data. */
	{
		struct run r;

		run_one(write_file("nul.csv", "a\0b,c\nd,e\n", 10), &o, &r);
		CHECK_EQ_INT(r.rc, CORE_EOF);
		CHECK_EQ_STR(r.schema, "c1:string,c2:string");
		CHECK_EQ_INT(r.st.rows, 2);
		run_free(&r);
	}
	/* Empty and repeated names. */
	EXPECT_ROWS(",a,a,c2\n1,2,3,4\n", &o,
	    "c1:int64,a:int64,a_1:int64,c2:int64", "1|2|3|4;");
	o.header = 0;
	EXPECT_ROWS("x,y\nann,bob\n", &o, "c1:string,c2:string",
	    "x|y;ann|bob;");
	o.header = 1;
	EXPECT_ROWS("1,2\n3,4\n", &o, "1:int64,2:int64", "3|4;");
}

static void
test_inference(void)
{
	struct core_csv_options o;

	core_csv_options_init(&o);
	EXPECT_ROWS("b,i,d,f,dt,ts,s\n"
	    "true,1,1.5,1e3,2020-01-02,2020-01-02 03:04:05,x\n"
	    "FALSE,-20,2.25,2.5,1999-12-31,2020-01-02T03:04:06Z,1\n",
	    &o, "b:bool,i:int64,d:decimal(18,2),f:float64,dt:date,"
	    "ts:timestamp,s:string",
	    "true|1|1.50|1000|2020-01-02|2020-01-02 03:04:05|x;"
	    "false|-20|2.25|2.5|1999-12-31|2020-01-02 03:04:06|1;");
	/* Integers with one decimal: decimal; 19 to 38 digits: the wide
	 * decimal, exact; more: float. */
	EXPECT_ROWS("a,b\n1,12345678901234567890.5\n2.125,1\n", &o,
	    "a:decimal(18,3),b:decimal(38,1)",
	    "1.000|12345678901234567890.5;2.125|1.0;");
	EXPECT_ROWS("a\n123456789012345678901234567890123456789\n", &o,
	    "a:float64", "1.2345678901234568e+38;");
	/* Text that would not print back as written stays text. */
	EXPECT_ROWS("zip,phone,code,z,h\n01234,+4912345,007,0,0.5\n"
	    "1,2,3,-0.25,-0\n", &o,
	    "zip:string,phone:string,code:string,z:decimal(18,2),"
	    "h:decimal(18,1)",
	    "01234|+4912345|007|0.00|0.5;1|2|3|-0.25|0.0;");
	/* NULLs do not count; all NULL is string. */
	EXPECT_ROWS("a,b\n,\n7,\n", &o, "a:int64,b:string", "~|~;7|~;");
}

static void
test_schema_pins(void)
{
	struct core_csv_options o;
	struct run r;

	core_csv_options_init(&o);
	o.schema = "a:int32, b:decimal(15,2)";
	EXPECT_ROWS("a,b,c\n1,2.5,x\n", &o, "a:int32,b:decimal(15,2),c:string",
	    "1|2.50|x;");
	o.schema = "c:int64";
	run_text("a,b,c\n1,2.5,x\n", &o, &r);
	CHECK_EQ_INT(r.rc_new, 0);
	CHECK_EQ_INT(r.rc, CORE_EDATA);
	CHECK(strstr(r.msg, ":2:3: value does not fit column c of type int64"
	    " (x)") != NULL);
	CHECK(strstr(r.msg, "--schema") == NULL);	/* pinned: no hint */
	run_free(&r);
	o.schema = "zz:int64";
	run_text("a,b\n1,2\n", &o, &r);
	CHECK_EQ_INT(r.rc_new, CORE_EUSAGE);
	CHECK(strstr(r.msg, "no column named 'zz'") != NULL);
	run_free(&r);
	o.schema = "a:int99";
	run_text("a,b\n1,2\n", &o, &r);
	CHECK_EQ_INT(r.rc_new, CORE_EUSAGE);
	run_free(&r);
	o.schema = "a:int64,a:string";
	run_text("a,b\n1,2\n", &o, &r);
	CHECK_EQ_INT(r.rc_new, CORE_EUSAGE);
	run_free(&r);
	/* No header: c1, c2. */
	o.schema = "c2:string";
	o.header = 0;
	EXPECT_ROWS("1,2\n", &o, "c1:int64,c2:string", "1|2;");
}

/* A random decimal(38, scale) text in canonical form (what col2csv
 * writes), over the whole range: digits laid out by hand. */
static void
rand_dec128_text(struct unit_buf *o, unsigned scale)
{
	unsigned ni = (unsigned)(unit_rand() % (38 - scale + 1)), i;
	bool nines = unit_rand() % 8 == 0, zero = true;
	char d[40];

	if (unit_rand() % 3 == 0)
		ni = 38 - scale;
	for (i = 0; i < ni + scale; i++) {
		d[i] = nines ? '9' : (char)('0' + unit_rand() % 10);
		if (i == 0 && d[i] == '0')
			d[i] = '1';
		zero &= d[i] == '0';
	}
	/* No "-0": the canonical text of zero has no sign. */
	if (unit_rand() & 1 && !zero)
		unit_buf_ch(o, '-');
	if (ni == 0)
		unit_buf_ch(o, '0');
	unit_buf_add(o, d, ni);
	if (scale > 0) {
		unit_buf_ch(o, '.');
		unit_buf_add(o, d + ni, scale);
	}
}

/* decimal(p > 18) pinned by --schema: values over the whole range read
 * exactly and come back in the same text at every batch length, NULLs
 * included; a value with a digit too many is an error at its row and
 * column; inference is as before (no wide decimals inferred). */
static void
test_decimal128(void)
{
	static const uint32_t lens[] = { 0, 1, 2, 3, 17, 4095, 4096, 4097 };
	static const unsigned scales[] = { 0, 4, 10, 38 };
	struct core_csv_options o;
	struct run r;
	char spec[64];

	core_csv_options_init(&o);
	for (size_t si = 0; si < 4; si++)
		for (size_t li = 0; li < 8; li++) {
			struct unit_buf in = { 0 }, want = { 0 };
			char *got;

			snprintf(spec, sizeof(spec), "a:decimal(38,%u),b:int32",
			    scales[si]);
			o.schema = spec;
			unit_buf_str(&in, "a,b\n");
			for (uint32_t k = 0; k < lens[li]; k++) {
				size_t at = in.len;

				if (unit_rand() % 6 == 0) {
					unit_buf_str(&want, "~");
				} else {
					rand_dec128_text(&in, scales[si]);
					unit_buf_add(&want, in.p + at,
					    in.len - at);
				}
				unit_buf_str(&in, ",7\n");
				unit_buf_str(&want, "|7;");
			}
			run_text(in.p, &o, &r);
			CHECK_EQ_INT(r.rc_new, 0);
			CHECK_EQ_INT(r.rc, CORE_EOF);
			snprintf(spec, sizeof(spec), "a:decimal(38,%u),b:int32",
			    scales[si]);
			CHECK_EQ_STR(r.schema, spec);
			got = pretty(&r);
			CHECK_EQ_STR(got, want.p ? want.p : "");
			free(got);
			run_free(&r);
			free(in.p);
			free(want.p);
		}
	o.schema = "a:decimal(38,10)";
	EXPECT_ROWS("a,b\n+0009999999999999999999999999999.9999999999,x\n"
	    "-.5,y\n,z\n1.,w\n", &o, "a:decimal(38,10),b:string",
	    "9999999999999999999999999999.9999999999|x;-0.5000000000|y;~|z;"
	    "1.0000000000|w;");
	expect_error("a\n1\n99999999999999999999999999999\n", &o, CORE_EDATA,
	    "3:1: value does not fit column a of type decimal(38,10) "
	    "(99999999999999999999999999999)");
	expect_error("a\n1\n0.00000000001\n", &o, CORE_EDATA,
	    "3:1: value does not fit column a of type decimal(38,10) "
	    "(0.00000000001)");
	o.schema = "x:int32,a:decimal(20,2)";
	expect_error("x,a\n1,2\n3,1e5\n", &o, CORE_EDATA,
	    "3:2: value does not fit column a of type decimal(20,2) (1e5)");
	/* Inference makes 19 to 38 integer digits the wide decimal. */
	o.schema = NULL;
	EXPECT_ROWS("a\n1234567890123456789012345\n", &o, "a:decimal(38,0)",
	    "1234567890123456789012345;");
	EXPECT_ROWS("a\n-9223372036854775809\n1\n", &o, "a:decimal(38,0)",
	    "-9223372036854775809;1;");
}

static void
test_null_policy(void)
{
	static const char *const nulls[] = { "NA", "\\N" };
	struct core_csv_options o;

	core_csv_options_init(&o);
	o.nulls = nulls;
	o.nnulls = 2;
	/* int column: empty, "", NA -> NULL; string column: "" is empty,
	 * quoted "NA" is text, unquoted NA is NULL. */
	EXPECT_ROWS("i,s\n1,\"\"\n,\"NA\"\n\"\",NA\nNA,\\N\n5,x\n", &o,
	    "i:int64,s:string", "1|;~|NA;~|~;~|~;5|x;");
}

/* Runs text expecting failure; checks the message ends with want (the
 * path prefix is the temp file's). */
static void
expect_error(const char *text, struct core_csv_options *o, int code,
    const char *want)
{
	struct run r;
	char full[1024];

	run_text(text, o, &r);
	snprintf(full, sizeof(full), "%s:%s", tpath("t.csv"), want);
	if (r.rc_new != 0) {
		CHECK_EQ_INT(r.rc_new, code);
	} else {
		CHECK_EQ_INT(r.rc, code);
	}
	CHECK_EQ_STR(r.msg, full);
	run_free(&r);
}

static void
test_error_messages(void)
{
	struct core_csv_options o;
	char big[400];

	core_csv_options_init(&o);
	o.quote = '"';
	expect_error("a,b\n1,2\n3,4,5\n", &o, CORE_EDATA,
	    "3:3: row has 3 fields, expected 2 (3,4,5)");
	expect_error("a,b\n1,2\n3\n", &o, CORE_EDATA,
	    "3:1: row has 1 field, expected 2 (3)");
	expect_error("a,b\n1,2\n3,\"x\n\ny\n", &o, CORE_EDATA,
	    "3:2: unterminated quote (\"x\\n\\ny\\n)");
	expect_error("a,b\n1,2\n3,\"x\"y,\n", &o, CORE_EDATA,
	    "3:2: unexpected text after closing quote (\"x\"y,)");
	o.sample_rows = 1;
	expect_error("a,b\ns,2\n\"p\nq\",2.5\n", &o, CORE_EDATA,
	    "4:2: value does not fit column b of type int64 (2.5); pin the "
	    "column's type");
	o.sample_rows = 0;
	expect_error("a,b\n1,x\n2,\xff\x01\n", &o, CORE_EDATA,
	    "3:2: invalid UTF-8 in column b (\\xff\\x01); looks like "
	    "Latin-1 (ISO-8859-1) or Windows-1252: try --encoding latin-1");
	o.schema = "a:int32";
	expect_error("a,b\n1,2\n3000000000,4\n", &o, CORE_EDATA,
	    "3:1: value does not fit column a of type int32 (3000000000)");
	o.schema = NULL;
	o.sample_rows = 1;
	/* Long text is cut. */
	memset(big, 'z', sizeof(big));
	memcpy(big, "a\n1\n", 4);
	big[sizeof(big) - 1] = '\0';
	expect_error(big, &o, CORE_EDATA,
	    "3:1: value does not fit column a of type int64 (zzzzzzzzzzzzzzzz"
	    "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz...); pin the "
	    "column's type");
	o.sample_rows = 0;
	/* No rows: an empty stream, of no columns or of --schema's. */
	EXPECT_ROWS("", &o, "", "");
	EXPECT_ROWS("\n\r\n", &o, "", "");
	o.schema = "a:int64, b:decimal(10,2)";
	EXPECT_ROWS("", &o, "a:int64,b:decimal(10,2)", "");
	o.schema = NULL;
	/* Broken quoting in the first record is not "no rows". */
	expect_error("\"abc,1\nx,2\n", &o, CORE_EDATA,
	    "1:1: unterminated quote (\"abc,1\\nx,2\\n)");
	expect_error("\n\"Pedro \"the\" legend\",1\n", &o, CORE_EDATA,
	    "2:1: unexpected text after closing quote (\"Pedro \"the\" "
	    "legend\",1)");
}

static char *
read_fd(int fd)
{
	struct unit_buf b = { 0 };
	char tmp[4096];
	ssize_t n;
	off_t off = 0;

	unit_buf_str(&b, "");
	while ((n = pread(fd, tmp, sizeof(tmp), off)) > 0) {
		unit_buf_add(&b, tmp, (size_t)n);
		off += n;
	}
	return b.p;
}

static void
test_rejects(void)
{
	struct core_csv_options o;
	struct core_output rej;
	struct run r;
	char want[2048], *got, *p;
	int fd;

	fd = core_tmpfile_open(tmpdir, NULL);
	core_output_init(&rej, fd, "rejects", 0);
	core_csv_options_init(&o);
	o.rejects = &rej;
	o.sample_rows = 1;
	run_text("a,b\n1,2\nx,3\n4\n5,6\n7,\"8\n9\"\n", &o, &r);
	CHECK_EQ_INT(r.rc, CORE_EOF);
	p = pretty(&r);
	CHECK_EQ_STR(p, "1|2;5|6;");
	free(p);
	CHECK_EQ_INT(r.st.rejected, 3);
	CHECK_EQ_INT(r.st.rows, 2);
	CHECK(core_output_flush(&rej, NULL) == 0);
	got = read_fd(fd);
	snprintf(want, sizeof(want),
	    "3\t%1$s:3:1: value does not fit column a of type int64 (x); "
	    "pin the column's type\tx,3\n"
	    "4\t%1$s:4:1: row has 1 field, expected 2 (4)\t4\n"
	    "6\t%1$s:6:2: value does not fit column b of type int64 (8\\n9); "
	    "pin the column's type\t7,\"8\n9\"\n", tpath("t.csv"));
	CHECK_EQ_STR(got, want);
	free(got);
	run_free(&r);
	core_output_release(&rej);
	close(fd);

	/* max_errors: more than 1 rejected -> CORE_ELIMIT. */
	fd = core_tmpfile_open(tmpdir, NULL);
	core_output_init(&rej, fd, "rejects", 0);
	o.rejects = &rej;
	o.max_errors = 1;
	run_text("a,b\n1,2\nx,3\n4\n5,6\n", &o, &r);
	CHECK_EQ_INT(r.rc, CORE_ELIMIT);
	snprintf(want, sizeof(want), "%s:4: more than 1 bad rows rejected",
	    tpath("t.csv"));
	CHECK_EQ_STR(r.msg, want);
	run_free(&r);
	core_output_release(&rej);
	close(fd);
}

/* Writes a tar of (name, text) pairs, compressed with gzip when gz. */
static const char *
write_tar(const char *name, const char *const *members, size_t n, bool gz)
{
	const char *path = tpath(name);
	struct archive *a = archive_write_new();
	struct archive_entry *e;
	size_t i;

	archive_write_set_format_pax_restricted(a);
	if (gz)
		archive_write_add_filter_gzip(a);
	if (archive_write_open_filename(a, path) != ARCHIVE_OK) {
		printf("# tar: %s\n", archive_error_string(a));
		exit(1);
	}
	for (i = 0; i < n; i++) {
		size_t len = strlen(members[2 * i + 1]);

		e = archive_entry_new();
		archive_entry_set_pathname(e, members[2 * i]);
		archive_entry_set_size(e, (la_int64_t)len);
		archive_entry_set_filetype(e, AE_IFREG);
		archive_entry_set_perm(e, 0644);
		archive_write_header(a, e);
		archive_write_data(a, members[2 * i + 1], len);
		archive_entry_free(e);
	}
	archive_write_close(a);
	archive_write_free(a);
	return path;
}

static void
test_tar_and_inputs(void)
{
	static const char *const good[] = {
		"one.csv", "id,v\n1,a\n2,b\n",
		"two.csv", "\xef\xbb\xbfid,v\r\n3,c\r\n",
		"three.csv", "",
	};
	static const char *const bad[] = {
		"one.csv", "id,v\n1,a\n",
		"two.csv", "id,w\n3,c\n",
	};
	static const char *const badrow[] = {
		"one.csv", "id,v\n1,a\n",
		"two.csv", "id,v\n3,c\nx,d\n",
	};
	struct core_csv_options o;
	const char *paths[3];
	struct run r;
	char *p, want[1024];

	core_csv_options_init(&o);
	paths[0] = write_tar("good.tar", good, 3, false);
	run_one(paths[0], &o, &r);
	CHECK_EQ_INT(r.rc, CORE_EOF);
	CHECK_EQ_STR(r.schema, "id:int64,v:string");
	p = pretty(&r);
	CHECK_EQ_STR(p, "1|a;2|b;3|c;");
	free(p);
	run_free(&r);

	paths[0] = write_tar("good.tgz", good, 3, true);
	run_one(paths[0], &o, &r);
	CHECK_EQ_INT(r.rc, CORE_EOF);
	p = pretty(&r);
	CHECK_EQ_STR(p, "1|a;2|b;3|c;");
	free(p);
	run_free(&r);

	paths[0] = write_tar("bad.tar", bad, 2, false);
	run_one(paths[0], &o, &r);
	CHECK_EQ_INT(r.rc, CORE_EDATA);
	snprintf(want, sizeof(want), "%s:two.csv:1:2: header name differs "
	    "from the first input's 'v' (w)", paths[0]);
	CHECK_EQ_STR(r.msg, want);
	run_free(&r);

	paths[0] = write_tar("badrow.tar", badrow, 2, true);
	run_one(paths[0], &o, &r);
	CHECK_EQ_INT(r.rc, CORE_EDATA);
	snprintf(want, sizeof(want), "%s:two.csv:3:1: value does not fit "
	    "column id of type int64 (x); pin the column's type",
	    paths[0]);
	CHECK_EQ_STR(r.msg, want);
	run_free(&r);

	/* Several files: plain, gzip. */
	paths[0] = write_file("f1.csv", "k,v\n1,2.5\n", 10);
	paths[1] = write_gz("f2.csv.gz", "k,v\n2,3.5\n", 10);
	run_reader(paths, 2, &o, &r);
	CHECK_EQ_INT(r.rc, CORE_EOF);
	CHECK_EQ_STR(r.schema, "k:int64,v:decimal(18,1)");
	p = pretty(&r);
	CHECK_EQ_STR(p, "1|2.5;2|3.5;");
	free(p);
	run_free(&r);
	/* 3.25 does not fit decimal(18,1) inferred from the first file. */
	paths[1] = write_gz("f3.csv.gz", "k,v\n2,3.25\n", 11);
	run_reader(paths, 2, &o, &r);
	CHECK_EQ_INT(r.rc, CORE_EDATA);
	snprintf(want, sizeof(want), "%s:2:2: value does not fit column v of "
	    "type decimal(18,1) (3.25); pin the column's type",
	    paths[1]);
	CHECK_EQ_STR(r.msg, want);
	run_free(&r);
	paths[1] = write_file("f4.csv", "k,v\n3,4\n4,5,6\n", 14);
	run_reader(paths, 2, &o, &r);
	CHECK_EQ_INT(r.rc, CORE_EDATA);
	snprintf(want, sizeof(want), "%s:3:3: row has 3 fields, expected 2 "
	    "(4,5,6)", paths[1]);
	CHECK_EQ_STR(r.msg, want);
	run_free(&r);
}

static void
test_excerpt(void)
{
	char out[256];

	csv_excerpt(out, sizeof(out), "a\tb\r\n\x01\xc3\xa9\xc3", 9);
	CHECK_EQ_STR(out, "a\\tb\\r\\n\\x01\xc3\xa9\\xc3");
	csv_excerpt(out, 16, "abcdefghijklmnopqrstuvwxyz", 26);
	CHECK(strlen(out) < 16);
	CHECK(strstr(out, "...") != NULL);
}

/* Writes the text to the pipe, then keeps it open saying nothing. */
struct idle_writer {
	int fd;
	const char *text;
	size_t len;
};

static void *
write_then_idle(void *v)
{
	struct idle_writer *w = v;
	size_t off = 0;
	ssize_t n;

	while (off < w->len && (n = write(w->fd, w->text + off,
	    w->len - off)) > 0)
		off += (size_t)n;
	return NULL;
}

/*
 * stdin a pipe whose writer goes quiet after 3 MiB, never closing it: a
 * reader with read-ahead must still give up at once, on free after a
 * batch and on an error found earlier (more rows rejected than allowed),
 * with no read left waiting on the descriptor.  A hang here is a failure
 * (the alarm ends the test).
 */
static void
test_idle_pipe(void)
{
	struct core_csv_options o;
	struct core_csv_reader *r;
	struct core_output rej;
	struct idle_writer w;
	struct core_batch b;
	struct core_err err;
	pthread_t tid;
	size_t cap = 3u << 20, len = 0;
	char *text = core_xmalloc(cap);
	int fds[2], saved = dup(0), rc, pass, i;

	len += (size_t)sprintf(text, "a,b\n");
	for (i = 0; i < 200000; i++)
		len += (size_t)sprintf(text + len, "%d,%d\n", i, i);
	for (i = 0; i < 100; i++)
		len += (size_t)sprintf(text + len, "%d,x\n", i);
	/* The read-ahead hands over what it has when the pipe goes
	 * quiet, from 1 MiB on, up to its last line feed: end the text on
	 * one, with a last bad row stretched to make it 3 MiB. */
	len += (size_t)sprintf(text + len, "0,");
	memset(text + len, 'x', (3u << 20) - 1 - len);
	len = 3u << 20;
	text[len - 1] = '\n';
	signal(SIGPIPE, SIG_IGN);
	alarm(60);
	for (pass = 0; pass < 2; pass++) {
		CHECK(saved >= 0 && pipe(fds) == 0);
		CHECK(dup2(fds[0], 0) == 0);
		close(fds[0]);
		w.fd = fds[1];
		w.text = text;
		w.len = len;
		CHECK(pthread_create(&tid, NULL, write_then_idle, &w) == 0);
		core_csv_options_init(&o);
		o.threads = 2;
		/* Pass 0 takes every row (b a string), so a batch comes;
		 * pass 1 rejects the x rows. */
		o.schema = pass == 0 ? "a:int64,b:string" : "a:int64,b:int64";
		if (pass == 1) {
			core_output_init(&rej, open("/dev/null", O_WRONLY),
			    "rejects", 4096);
			rej.close_fd = true;
			o.rejects = &rej;
			o.max_errors = 3;
		}
		CHECK_EQ_INT(core_csv_reader_new(NULL, 0, &o, &r, &err), 0);
		core_batch_init(&b, core_csv_reader_schema(r));
		if (pass == 0) {
			CHECK_EQ_INT(core_csv_reader_next(r, &b, &err), 0);
		} else {
			while ((rc = core_csv_reader_next(r, &b, &err)) == 0)
				;
			CHECK_EQ_INT(rc, CORE_ELIMIT);
		}
		core_batch_release(&b);
		usleep(100000);	/* the read-ahead reaches the silence */
		core_csv_reader_free(r);
		if (pass == 1)
			core_output_release(&rej);
		/* A writer still writing sees EPIPE. */
		dup2(saved, 0);
		pthread_join(tid, NULL);
		close(fds[1]);
	}
	alarm(0);
	signal(SIGPIPE, SIG_DFL);
	close(saved);
	free(text);
}

int
main(void)
{
	char cmd[128];

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_csv.XXXXXX");
	if (mkdtemp(tmpdir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	RUN(test_excerpt);
	RUN(test_rfc_basics);
	RUN(test_sniff);
	RUN(test_header);
	RUN(test_inference);
	RUN(test_schema_pins);
	RUN(test_decimal128);
	RUN(test_null_policy);
	RUN(test_error_messages);
	RUN(test_rejects);
	RUN(test_tar_and_inputs);
	RUN(test_random_vs_reference);
	RUN(test_incremental_cuts);
	RUN(test_threads_same);
	RUN(test_threads_errors);
	RUN(test_stream_cr);
	RUN(test_stream_truncated);
	RUN(test_huge_row);
	RUN(test_idle_pipe);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", tmpdir);
	return unit_done();
}
