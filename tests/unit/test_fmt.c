/*
 * test_fmt.c - unit tests of core_fmt (csv, tsv, jsonl and table output).
 *
 * Exact expected texts for small hand-made batches pin the documented
 * rules (quoting, escaping, NULL forms, table layout); random batches of
 * every type, nasty strings included, are compared with a naive reference
 * writer at batch lengths 0, 1, 2, 3, 17, 4095, 4096, 4097, split into
 * batches in several ways and written through a tiny (256-byte) and a
 * default-sized output buffer.  Values are rendered by core_value (tested
 * in test_value); the reference re-implements only the layout.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core_col.h"
#include "core_fmt.h"
#include "core_io.h"
#include "core_pool.h"
#include "core_value.h"
#include "unit.h"

/* ---- hand-made batches (borrowed buffers, freed by tb_free) ---- */

struct tcol {
	enum core_type id;
	uint8_t scale;
	uint8_t *valid;		/* NULL = all valid */
	void *vals;
	int32_t *off;
	char *bytes;
};

struct tbatch {
	uint32_t nrows, ncols;
	struct tcol *c;
};

static bool
tb_valid(const struct tbatch *t, uint32_t i, uint32_t r)
{
	return t->c[i].valid == NULL || t->c[i].valid[r];
}

/* A core_batch view of rows [from, from + n) of t. */
static void
tb_view(const struct tbatch *t, const struct core_schema *s, uint32_t from,
    uint32_t n, struct core_batch *b)
{
	b->schema = s;
	b->nrows = n;
	b->ncols = t->ncols;
	b->cols = calloc(t->ncols ? t->ncols : 1, sizeof(*b->cols));
	for (uint32_t i = 0; i < t->ncols; i++) {
		const struct tcol *tc = &t->c[i];
		struct core_column *c = &b->cols[i];
		size_t w = core_type_width(tc->id);

		c->type.id = tc->id;
		c->type.precision = tc->id == CORE_TYPE_DECIMAL ? 18 :
		    tc->id == CORE_TYPE_DECIMAL128 ? 38 : 0;
		c->type.scale = tc->scale;
		if (tc->valid) {
			c->validity = calloc(core_bitmap_bytes(n) + 1, 1);
			for (uint32_t r = 0; r < n; r++)
				if (tc->valid[from + r])
					c->validity[r >> 3] |=
					    (uint8_t)(1u << (r & 7));
		}
		if (tc->id == CORE_TYPE_STRING) {
			size_t len = (size_t)(tc->off[from + n] -
			    tc->off[from]);

			/* Offsets need not start at 0 for the formatter, but
			 * keep the invariant anyway: rebase a copy.  The
			 * bytes are copied to a block of their exact size,
			 * so that ASan sees a read past them. */
			c->offsets = malloc(((size_t)n + 1) * sizeof(int32_t));
			for (uint32_t r = 0; r <= n; r++)
				c->offsets[r] = tc->off[from + r] -
				    tc->off[from];
			c->values = malloc(len ? len : 1);
			if (len)
				memcpy(c->values, tc->bytes + tc->off[from],
				    len);
		} else {
			c->values = (char *)tc->vals + (size_t)from * w;
		}
	}
}

static void
view_free(struct core_batch *b)
{
	for (uint32_t i = 0; i < b->ncols; i++) {
		free(b->cols[i].validity);
		free(b->cols[i].offsets);
		if (b->cols[i].type.id == CORE_TYPE_STRING)
			free(b->cols[i].values);
	}
	free(b->cols);
}

static void
tb_free(struct tbatch *t)
{
	for (uint32_t i = 0; i < t->ncols; i++) {
		free(t->c[i].valid);
		free(t->c[i].vals);
		free(t->c[i].off);
		free(t->c[i].bytes);
	}
	free(t->c);
}

/* ---- running the formatter into a memory file ---- */

/* Writes rows [0, t->nrows) of t in batches of the given sizes (cycled;
 * a 0 entry writes an empty batch) and returns the text (malloc'd). */
static char *
run_fmt(enum core_fmt_kind kind, bool header, int delim,
    const struct core_schema *s, const struct tbatch *t,
    const uint32_t *sizes, size_t nsizes, size_t cap, size_t *len)
{
	struct core_fmt_options opt = { kind, header, delim, 0, NULL };
	struct core_output out;
	struct core_err err = { 0 };
	struct core_fmt *f;
	uint32_t done = 0;
	size_t k = 0;
	int fd = memfd_create("fmt", 0), rc = 0;
	off_t size;
	char *text;

	if (fd < 0)
		abort();
	core_output_init(&out, fd, "memfd", cap);
	f = core_fmt_new(&opt, s, &out);
	while (rc == 0 && (done < t->nrows || k == 0)) {
		uint32_t n = nsizes ? sizes[k % nsizes] : t->nrows;
		struct core_batch b;

		k++;
		if (n > t->nrows - done)
			n = t->nrows - done;
		tb_view(t, s, done, n, &b);
		rc = core_fmt_write_batch(f, &b, &err);
		view_free(&b);
		done += n;
		if (k > 100000)
			break;
	}
	if (rc == 0)
		rc = core_fmt_finish(f, &err);
	if (rc == 0)
		rc = core_output_flush(&out, &err);
	if (rc != 0)
		printf("# formatter failed: %s\n", err.msg);
	CHECK_EQ_INT(rc, 0);
	core_fmt_free(f);
	core_output_release(&out);
	size = lseek(fd, 0, SEEK_END);
	text = malloc((size_t)size + 1);
	if (pread(fd, text, (size_t)size, 0) != size)
		abort();
	text[size] = '\0';
	close(fd);
	*len = (size_t)size;
	return text;
}

static char *
fmt1(enum core_fmt_kind kind, bool header, int delim,
    const struct core_schema *s, const struct tbatch *t)
{
	size_t len;

	return run_fmt(kind, header, delim, s, t, NULL, 0, 4096, &len);
}

/* ---- small fixed batches ---- */

static struct core_schema *
schema_of(const struct tbatch *t, const char *const *names)
{
	struct core_schema *s = core_schema_new(t->ncols);

	for (uint32_t i = 0; i < t->ncols; i++) {
		struct core_coltype ty = { t->c[i].id, 0, t->c[i].scale };

		if (ty.id == CORE_TYPE_DECIMAL)
			ty.precision = 18;
		if (ty.id == CORE_TYPE_DECIMAL128)
			ty.precision = 38;
		core_schema_set(s, i, names[i], ty);
	}
	return s;
}

/* A string column from a list; NULL entries are NULL rows. */
static void
str_col(struct tcol *c, const char *const *v, size_t nv, const size_t *lens)
{
	size_t total = 0;

	c->id = CORE_TYPE_STRING;
	c->off = malloc((nv + 1) * sizeof(int32_t));
	c->valid = malloc(nv + 1);
	for (size_t i = 0; i < nv; i++)
		total += v[i] ? (lens ? lens[i] : strlen(v[i])) : 0;
	c->bytes = malloc(total + 1);
	c->off[0] = 0;
	for (size_t i = 0; i < nv; i++) {
		size_t n = v[i] ? (lens ? lens[i] : strlen(v[i])) : 0;

		c->valid[i] = v[i] != NULL;
		if (n)
			memcpy(c->bytes + c->off[i], v[i], n);
		c->off[i + 1] = c->off[i] + (int32_t)n;
	}
}

static void
i64_col(struct tcol *c, enum core_type id, const int64_t *v, size_t nv,
    const uint8_t *valid)
{
	c->id = id;
	c->vals = malloc(nv * 8 + 8);
	memcpy(c->vals, v, nv * 8);
	if (valid) {
		c->valid = malloc(nv + 1);
		memcpy(c->valid, valid, nv);
	}
}

static void
test_csv_quoting(void)
{
	static const char *const sv[] = {
		"plain", "a,b", "say \"hi\"", "", NULL, " lead", "trail ",
		"line\nbreak", "cr\r", "mid space", "\"", "tab\there",
		"caf\xc3\xa9",
	};
	static const int64_t iv[] = { 1, 0, -3, 4, 5, 6, 7, 8, 9, 10, 11,
	    12, 13 };
	static const uint8_t ivalid[] = { 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	    1, 1 };
	static const char *const names[] = { "s,x", "i" };
	struct tbatch t = { 13, 2, calloc(2, sizeof(struct tcol)) };
	struct core_schema *s;
	char *out;

	str_col(&t.c[0], sv, 13, NULL);
	i64_col(&t.c[1], CORE_TYPE_INT64, iv, 13, ivalid);
	s = schema_of(&t, names);
	out = fmt1(CORE_FMT_CSV, true, ',', s, &t);
	CHECK_EQ_STR(out,
	    "\"s,x\",i\n"
	    "plain,1\n"
	    "\"a,b\",\n"
	    "\"say \"\"hi\"\"\",-3\n"
	    "\"\",4\n"
	    ",5\n"
	    " lead,6\n"
	    "trail ,7\n"
	    "\"line\nbreak\",8\n"
	    "\"cr\r\",9\n"
	    "mid space,10\n"
	    "\"\"\"\",11\n"
	    "tab\there,12\n"
	    "caf\xc3\xa9,13\n");
	free(out);
	out = fmt1(CORE_FMT_CSV, false, '\t', s, &t);
	CHECK(strncmp(out, "plain\t1\n", 8) == 0);
	CHECK(strstr(out, "\"tab\there\"\t12\n") != NULL);
	CHECK(strstr(out, "a,b\t\n") != NULL);
	free(out);
	core_schema_free(s);
	tb_free(&t);
}

/* An unusual delimiter that occurs in numbers and dates. */
static void
test_csv_odd_delimiter(void)
{
	static const int64_t dv[] = { -150, 25 };
	static const char *const names[] = { "d", "day", "n" };
	struct tbatch t = { 2, 3, calloc(3, sizeof(struct tcol)) };
	struct core_schema *s;
	int32_t *days;
	char *out;

	i64_col(&t.c[0], CORE_TYPE_DECIMAL, dv, 2, NULL);
	t.c[0].scale = 2;
	t.c[1].id = CORE_TYPE_DATE;
	days = malloc(2 * sizeof(int32_t));
	days[0] = 0;
	days[1] = 365;
	t.c[1].vals = days;
	t.c[2].id = CORE_TYPE_INT32;
	t.c[2].vals = calloc(2, sizeof(int32_t));
	((int32_t *)t.c[2].vals)[0] = -7;
	((int32_t *)t.c[2].vals)[1] = 2147483647;
	s = schema_of(&t, names);
	out = fmt1(CORE_FMT_CSV, true, '-', s, &t);
	CHECK_EQ_STR(out, "d-day-n\n"
	    "\"-1.50\"-\"1970-01-01\"-\"-7\"\n"
	    "0.25-\"1971-01-01\"-2147483647\n");
	free(out);
	out = fmt1(CORE_FMT_CSV, true, '.', s, &t);
	CHECK_EQ_STR(out, "d.day.n\n"
	    "\"-1.50\".1970-01-01.-7\n"
	    "\"0.25\".1971-01-01.2147483647\n");
	free(out);
	out = fmt1(CORE_FMT_CSV, true, ';', s, &t);
	CHECK_EQ_STR(out, "d;day;n\n-1.50;1970-01-01;-7\n"
	    "0.25;1971-01-01;2147483647\n");
	free(out);
	core_schema_free(s);
	tb_free(&t);
}

static void
test_tsv(void)
{
	static const char *const sv[] = {
		"plain", "a\tb", "two\nlines", "back\\slash", "", NULL, "cr\r",
		"\\N",
	};
	static const char *const names[] = { "s\tx", "f" };
	struct tbatch t = { 8, 2, calloc(2, sizeof(struct tcol)) };
	struct core_schema *s;
	double *f;
	char *out;

	str_col(&t.c[0], sv, 8, NULL);
	t.c[1].id = CORE_TYPE_FLOAT64;
	f = calloc(8, sizeof(double));
	f[0] = 0.1;
	f[1] = NAN;
	f[2] = -INFINITY;
	f[3] = -0.0;
	f[4] = 1e21;
	f[5] = 2.5;
	t.c[1].vals = f;
	t.c[1].valid = calloc(8, 1);
	memset(t.c[1].valid, 1, 7);
	s = schema_of(&t, names);
	out = fmt1(CORE_FMT_TSV, true, 0, s, &t);
	CHECK_EQ_STR(out,
	    "s\\tx\tf\n"
	    "plain\t0.1\n"
	    "a\\tb\tnan\n"
	    "two\\nlines\t-inf\n"
	    "back\\\\slash\t-0\n"
	    "\t1e+21\n"
	    "\\N\t2.5\n"
	    "cr\\r\t0\n"
	    "\\\\N\t\\N\n");
	free(out);
	core_schema_free(s);
	tb_free(&t);
}

static void
test_jsonl(void)
{
	static const char *const sv[] = {
		"plain", "q\"b\\s", "ctl\x01\x1f\n\t\r\b\f",
		"caf\xc3\xa9 \xe2\x82\xac",
		"bad\xff\xc3(\xed\xa0\x80", NULL, "\x7f/",
	};
	static const char *const names[] = {
		"s\"", "f", "d", "day", "ts", "b", "i",
	};
	static const int64_t dv[] = { 2438667, -5, 0, 100, 7, 8, 9 };
	struct tbatch t = { 7, 7, calloc(7, sizeof(struct tcol)) };
	struct core_schema *s;
	double *f;
	int32_t *days;
	int64_t *ts;
	uint8_t *bo;
	char *out;

	str_col(&t.c[0], sv, 7, NULL);
	t.c[1].id = CORE_TYPE_FLOAT64;
	f = calloc(7, sizeof(double));
	f[0] = NAN;
	f[1] = INFINITY;
	f[2] = -INFINITY;
	f[3] = -0.0;
	f[4] = 1e21;
	f[5] = 5e-324;
	f[6] = 0.1;
	t.c[1].vals = f;
	i64_col(&t.c[2], CORE_TYPE_DECIMAL, dv, 7, NULL);
	t.c[2].scale = 2;
	t.c[3].id = CORE_TYPE_DATE;
	days = calloc(7, sizeof(int32_t));
	days[1] = -1;
	t.c[3].vals = days;
	t.c[4].id = CORE_TYPE_TIMESTAMP;
	ts = calloc(7, sizeof(int64_t));
	ts[0] = 1500;
	t.c[4].vals = ts;
	t.c[4].valid = calloc(7, 1);
	t.c[4].valid[0] = t.c[4].valid[1] = 1;
	t.c[5].id = CORE_TYPE_BOOL;
	bo = calloc(7, 1);
	bo[0] = 1;
	t.c[5].vals = bo;
	t.c[6].id = CORE_TYPE_INT64;
	t.c[6].vals = calloc(7, sizeof(int64_t));
	((int64_t *)t.c[6].vals)[0] = INT64_MIN;
	((int64_t *)t.c[6].vals)[1] = 9007199254740993;
	s = schema_of(&t, names);
	out = fmt1(CORE_FMT_JSONL, true, 0, s, &t);
	CHECK_EQ_STR(out,
	    "{\"s\\\"\":\"plain\",\"f\":null,\"d\":24386.67,"
	    "\"day\":\"1970-01-01\",\"ts\":\"1970-01-01 00:00:00.001500\","
	    "\"b\":true,\"i\":-9223372036854775808}\n"
	    "{\"s\\\"\":\"q\\\"b\\\\s\",\"f\":null,\"d\":-0.05,"
	    "\"day\":\"1969-12-31\",\"ts\":\"1970-01-01 00:00:00\","
	    "\"b\":false,\"i\":9007199254740993}\n"
	    "{\"s\\\"\":\"ctl\\u0001\\u001f\\n\\t\\r\\b\\f\",\"f\":null,"
	    "\"d\":0.00,\"day\":\"1970-01-01\",\"ts\":null,\"b\":false,"
	    "\"i\":0}\n"
	    "{\"s\\\"\":\"caf\xc3\xa9 \xe2\x82\xac\",\"f\":-0,\"d\":1.00,"
	    "\"day\":\"1970-01-01\",\"ts\":null,\"b\":false,\"i\":0}\n"
	    "{\"s\\\"\":\"bad\\ufffd\\ufffd(\\ufffd\\ufffd\\ufffd\","
	    "\"f\":1e+21,\"d\":0.07,\"day\":\"1970-01-01\",\"ts\":null,"
	    "\"b\":false,\"i\":0}\n"
	    "{\"s\\\"\":null,\"f\":5e-324,\"d\":0.08,\"day\":\"1970-01-01\","
	    "\"ts\":null,\"b\":false,\"i\":0}\n"
	    "{\"s\\\"\":\"\x7f/\",\"f\":0.1,\"d\":0.09,\"day\":\"1970-01-01\","
	    "\"ts\":null,\"b\":false,\"i\":0}\n");
	free(out);
	core_schema_free(s);
	tb_free(&t);
}

static void
test_table(void)
{
	static const char *const sv[] = {
		"alice", NULL, "\xc3\xa9t\xc3\xa9", "two\nlines", "x\xff",
	};
	static const char *const names[] = { "name", "qty", "price", "day" };
	static const int64_t qv[] = { 3, 10, -1, 0, 123456 };
	static const uint8_t qvalid[] = { 1, 1, 1, 0, 1 };
	static const int64_t pv[] = { 150, 1200, -5, 0, 1 };
	struct tbatch t = { 5, 4, calloc(4, sizeof(struct tcol)) };
	struct core_schema *s;
	uint32_t sizes[2] = { 3, 2 };
	size_t len;
	char *out;

	str_col(&t.c[0], sv, 5, NULL);
	i64_col(&t.c[1], CORE_TYPE_INT64, qv, 5, qvalid);
	i64_col(&t.c[2], CORE_TYPE_DECIMAL, pv, 5, NULL);
	t.c[2].scale = 2;
	t.c[3].id = CORE_TYPE_DATE;
	t.c[3].vals = calloc(5, sizeof(int32_t));
	s = schema_of(&t, names);
	out = fmt1(CORE_FMT_TABLE, true, 0, s, &t);
	CHECK_EQ_STR(out,
	    "name           qty  price  day\n"
	    "----------  ------  -----  ----------\n"
	    "alice            3   1.50  1970-01-01\n"
	    "NULL            10  12.00  1970-01-01\n"
	    "\xc3\xa9t\xc3\xa9             -1  -0.05  1970-01-01\n"
	    "two\\nlines    NULL   0.00  1970-01-01\n"
	    "x\\xff       123456   0.01  1970-01-01\n"
	    "(5 rows)\n");
	free(out);
	/* Two batches: the second widens name and qty from its first row
	 * on; nothing is cut. */
	out = run_fmt(CORE_FMT_TABLE, true, 0, s, &t, sizes, 2, 4096, &len);
	CHECK_EQ_STR(out,
	    "name   qty  price  day\n"
	    "-----  ---  -----  ----------\n"
	    "alice    3   1.50  1970-01-01\n"
	    "NULL    10  12.00  1970-01-01\n"
	    "\xc3\xa9t\xc3\xa9     -1  -0.05  1970-01-01\n"
	    "two\\nlines    NULL   0.00  1970-01-01\n"
	    "x\\xff       123456   0.01  1970-01-01\n"
	    "(5 rows)\n");
	free(out);
	out = fmt1(CORE_FMT_TABLE, false, 0, s, &t);
	CHECK(strncmp(out, "alice            3   1.50  1970-01-01\n", 38)
	    == 0);
	CHECK(strstr(out, "rows") == NULL && strstr(out, "---") == NULL);
	free(out);
	/* No rows at all. */
	t.nrows = 0;
	out = fmt1(CORE_FMT_TABLE, true, 0, s, &t);
	CHECK_EQ_STR(out, "name  qty  price  day\n----  ---  -----  ---\n"
	    "(0 rows)\n");
	free(out);
	t.nrows = 1;
	out = fmt1(CORE_FMT_TABLE, true, 0, s, &t);
	CHECK_EQ_STR(out, "name   qty  price  day\n"
	    "-----  ---  -----  ----------\n"
	    "alice    3   1.50  1970-01-01\n(1 row)\n");
	free(out);
	t.nrows = 5;
	core_schema_free(s);
	tb_free(&t);
}

static void
test_zero_rows(void)
{
	static const char *const names[] = { "a b", "c" };
	struct tbatch t = { 0, 2, calloc(2, sizeof(struct tcol)) };
	struct core_schema *s;
	static const char *const none[1] = { NULL };
	char *out;

	str_col(&t.c[0], none, 0, NULL);
	t.c[1].id = CORE_TYPE_INT64;
	t.c[1].vals = calloc(1, 8);
	s = schema_of(&t, names);
	out = fmt1(CORE_FMT_CSV, true, ',', s, &t);
	CHECK_EQ_STR(out, "a b,c\n");
	free(out);
	out = fmt1(CORE_FMT_CSV, false, ',', s, &t);
	CHECK_EQ_STR(out, "");
	free(out);
	out = fmt1(CORE_FMT_TSV, true, 0, s, &t);
	CHECK_EQ_STR(out, "a b\tc\n");
	free(out);
	out = fmt1(CORE_FMT_JSONL, true, 0, s, &t);
	CHECK_EQ_STR(out, "");
	free(out);
	out = fmt1(CORE_FMT_TABLE, false, 0, s, &t);
	CHECK_EQ_STR(out, "");
	free(out);
	core_schema_free(s);
	tb_free(&t);
}

/* ---- the reference writer ---- */

static size_t
ref_value(const struct tcol *c, uint32_t r, char *buf)
{
	const char *v = c->vals;

	switch (c->id) {
	case CORE_TYPE_BOOL:
		return core_format_bool(((const uint8_t *)v)[r], buf);
	case CORE_TYPE_INT32:
		return core_format_int64(((const int32_t *)v)[r], buf);
	case CORE_TYPE_INT64:
		return core_format_int64(((const int64_t *)v)[r], buf);
	case CORE_TYPE_FLOAT64:
		return core_format_float64(((const double *)v)[r], buf);
	case CORE_TYPE_DECIMAL:
		return core_format_decimal(((const int64_t *)v)[r], c->scale,
		    buf);
	case CORE_TYPE_DECIMAL128:
		return core_format_decimal128(core_i128_load(v + 16 * (size_t)r),
		    c->scale, buf);
	case CORE_TYPE_DATE:
		return core_format_date(((const int32_t *)v)[r], buf);
	case CORE_TYPE_TIMESTAMP:
		return core_format_timestamp(((const int64_t *)v)[r], buf);
	default:
		return 0;
	}
}

/* A CSV field with delimiter d: a string is quoted when empty or when
 * it holds d, '"', CR or LF; any other value only when d is not one of
 * , ; TAB | and its text holds d. */
static void
ref_csv_field(struct unit_buf *o, const char *s, size_t n, bool is_str, char d)
{
	bool q = is_str && n == 0;
	bool usual = d == ',' || d == ';' || d == '\t' || d == '|';

	for (size_t i = 0; i < n; i++) {
		if (is_str && (s[i] == d || s[i] == '"' || s[i] == '\n' ||
		    s[i] == '\r'))
			q = true;
		if (!is_str && !usual && s[i] == d)
			q = true;
	}
	if (!q) {
		unit_buf_add(o, s, n);
		return;
	}
	unit_buf_ch(o, '"');
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '"')
			unit_buf_ch(o, '"');
		unit_buf_ch(o, s[i]);
	}
	unit_buf_ch(o, '"');
}

static void
ref_tsv_field(struct unit_buf *o, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		switch (s[i]) {
		case '\t': unit_buf_str(o, "\\t"); break;
		case '\n': unit_buf_str(o, "\\n"); break;
		case '\r': unit_buf_str(o, "\\r"); break;
		case '\\': unit_buf_str(o, "\\\\"); break;
		default: unit_buf_ch(o, s[i]); break;
		}
	}
}

/* The test strings are valid UTF-8, so only ASCII needs a look. */
static void
ref_json_str(struct unit_buf *o, const char *s, size_t n)
{
	char tmp[8];

	unit_buf_ch(o, '"');
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\') {
			unit_buf_ch(o, '\\');
			unit_buf_ch(o, (char)c);
		} else if (c == '\n') {
			unit_buf_str(o, "\\n");
		} else if (c == '\t') {
			unit_buf_str(o, "\\t");
		} else if (c == '\r') {
			unit_buf_str(o, "\\r");
		} else if (c == '\b') {
			unit_buf_str(o, "\\b");
		} else if (c == '\f') {
			unit_buf_str(o, "\\f");
		} else if (c < 0x20) {
			snprintf(tmp, sizeof(tmp), "\\u%04x", c);
			unit_buf_str(o, tmp);
		} else {
			unit_buf_ch(o, (char)c);
		}
	}
	unit_buf_ch(o, '"');
}

static void
ref_table_str(struct unit_buf *o, const char *s, size_t n, size_t *w)
{
	char tmp[8];

	*w = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '\n' || c == '\t' || c == '\r') {
			unit_buf_ch(o, '\\');
			unit_buf_ch(o, c == '\n' ? 'n' : c == '\t' ? 't' : 'r');
			*w += 2;
		} else if (c < 0x20 || c == 0x7f) {
			snprintf(tmp, sizeof(tmp), "\\x%02x", c);
			unit_buf_str(o, tmp);
			*w += 4;
		} else if (c < 0x80) {
			unit_buf_ch(o, (char)c);
			*w += 1;
		} else {
			/* A whole character (the strings here are valid
			 * UTF-8): wide CJK and emoji two columns, combining
			 * acute accent none. */
			size_t k = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
			uint32_t cp = c & (0x7F >> k);

			for (size_t j = 1; j < k; j++)
				cp = cp << 6 | ((unsigned char)s[i + j] & 0x3F);
			unit_buf_add(o, s + i, k);
			i += k - 1;
			*w += (cp >= 0x4E00 && cp <= 0x9FFF) ||
			    (cp >= 0x1F300 && cp <= 0x1F64F) ? 2 :
			    cp == 0x301 ? 0 : 1;
		}
	}
}

static bool
right_aligned(enum core_type id)
{
	return id == CORE_TYPE_INT32 || id == CORE_TYPE_INT64 ||
	    id == CORE_TYPE_FLOAT64 || id == CORE_TYPE_DECIMAL ||
	    id == CORE_TYPE_DECIMAL128;
}

/* The cell text as the table shows it, into o; returns its width. */
static size_t
ref_cell(struct unit_buf *o, const struct tcol *c, bool valid, uint32_t r)
{
	char buf[64];
	size_t n, w;

	if (!valid) {
		unit_buf_str(o, "NULL");
		return 4;
	}
	if (c->id == CORE_TYPE_STRING) {
		ref_table_str(o, c->bytes + c->off[r],
		    (size_t)(c->off[r + 1] - c->off[r]), &w);
		return w;
	}
	n = ref_value(c, r, buf);
	unit_buf_add(o, buf, n);
	return n;
}

static void
ref_table_row(struct unit_buf *o, const struct core_schema *s,
    const struct tbatch *t, int64_t r, const size_t *width)
{
	for (uint32_t i = 0; i < t->ncols; i++) {
		struct unit_buf cell = { 0 };
		size_t w;

		if (r < 0)
			ref_table_str(&cell, s->fields[i].name,
			    strlen(s->fields[i].name), &w);
		else
			w = ref_cell(&cell, &t->c[i],
			    tb_valid(t, i, (uint32_t)r), (uint32_t)r);
		if (i > 0)
			unit_buf_str(o, "  ");
		if (right_aligned(t->c[i].id))
			for (size_t k = w; k < width[i]; k++)
				unit_buf_ch(o, ' ');
		if (cell.len)
			unit_buf_add(o, cell.p, cell.len);
		if (!right_aligned(t->c[i].id) && i + 1 < t->ncols)
			for (size_t k = w; k < width[i]; k++)
				unit_buf_ch(o, ' ');
		free(cell.p);
	}
	unit_buf_ch(o, '\n');
}

/* The whole expected text for t written in batches of sizes[]; header
 * and delim (CSV) are the options (the table and JSON Lines are only
 * checked with header). */
static void
ref_write(struct unit_buf *o, enum core_fmt_kind kind, bool header, char delim,
    const struct core_schema *s, const struct tbatch *t,
    const uint32_t *sizes, size_t nsizes)
{
	char buf[64];
	size_t width[16] = { 0 };
	bool table_started = false;
	uint32_t done = 0;
	size_t k = 0;

	if ((kind == CORE_FMT_CSV || kind == CORE_FMT_TSV) && header) {
		for (uint32_t i = 0; i < t->ncols; i++) {
			const char *nm = s->fields[i].name;

			if (i > 0)
				unit_buf_ch(o,
				    kind == CORE_FMT_CSV ? delim : '\t');
			if (kind == CORE_FMT_CSV)
				ref_csv_field(o, nm, strlen(nm), true, delim);
			else
				ref_tsv_field(o, nm, strlen(nm));
		}
		unit_buf_ch(o, '\n');
	}
	if (kind == CORE_FMT_TABLE) {
		for (uint32_t i = 0; i < t->ncols; i++) {
			struct unit_buf tmp = { 0 };

			ref_table_str(&tmp, s->fields[i].name,
			    strlen(s->fields[i].name), &width[i]);
			free(tmp.p);
		}
	}
	while (done < t->nrows) {
		uint32_t n = nsizes ? sizes[k++ % nsizes] : t->nrows;

		if (n > t->nrows - done)
			n = t->nrows - done;
		if (kind == CORE_FMT_TABLE && n > 0) {
			for (uint32_t i = 0; i < t->ncols; i++) {
				for (uint32_t r = done; r < done + n; r++) {
					struct unit_buf tmp = { 0 };
					size_t w = ref_cell(&tmp, &t->c[i],
					    tb_valid(t, i, r), r);

					if (w > width[i])
						width[i] = w;
					free(tmp.p);
				}
			}
			if (!table_started) {
				table_started = true;
				ref_table_row(o, s, t, -1, width);
				for (uint32_t i = 0; i < t->ncols; i++) {
					if (i > 0)
						unit_buf_str(o, "  ");
					for (size_t j = 0; j < width[i]; j++)
						unit_buf_ch(o, '-');
				}
				unit_buf_ch(o, '\n');
			}
		}
		for (uint32_t r = done; r < done + n; r++) {
			if (kind == CORE_FMT_TABLE) {
				ref_table_row(o, s, t, r, width);
				continue;
			}
			for (uint32_t i = 0; i < t->ncols; i++) {
				const struct tcol *c = &t->c[i];
				bool valid = tb_valid(t, i, r);
				const char *str = c->bytes ? c->bytes +
				    c->off[r] : NULL;
				size_t sl = c->bytes ? (size_t)(c->off[r + 1] -
				    c->off[r]) : 0, vl = 0;

				if (c->id != CORE_TYPE_STRING && valid)
					vl = ref_value(c, r, buf);
				if (kind == CORE_FMT_JSONL) {
					unit_buf_str(o, i == 0 ? "{" : ",");
					ref_json_str(o, s->fields[i].name,
					    strlen(s->fields[i].name));
					unit_buf_ch(o, ':');
					if (!valid)
						unit_buf_str(o, "null");
					else if (c->id == CORE_TYPE_STRING)
						ref_json_str(o, str, sl);
					else if (c->id == CORE_TYPE_FLOAT64 &&
					    !isfinite(((double *)c->vals)[r]))
						unit_buf_str(o, "null");
					else if (c->id == CORE_TYPE_DATE ||
					    c->id == CORE_TYPE_TIMESTAMP)
						ref_json_str(o, buf, vl);
					else
						unit_buf_add(o, buf, vl);
					continue;
				}
				if (i > 0)
					unit_buf_ch(o, kind == CORE_FMT_CSV ?
					    delim : '\t');
				if (kind == CORE_FMT_CSV) {
					if (!valid)
						continue;
					if (c->id == CORE_TYPE_STRING)
						ref_csv_field(o, str, sl, true,
						    delim);
					else
						ref_csv_field(o, buf, vl,
						    false, delim);
				} else {
					if (!valid)
						unit_buf_str(o, "\\N");
					else if (c->id == CORE_TYPE_STRING)
						ref_tsv_field(o, str, sl);
					else
						unit_buf_add(o, buf, vl);
				}
			}
			unit_buf_str(o, kind == CORE_FMT_JSONL ? "}\n" : "\n");
		}
		done += n;
	}
	if (kind == CORE_FMT_TABLE) {
		if (!table_started) {
			ref_table_row(o, s, t, -1, width);
			for (uint32_t i = 0; i < t->ncols; i++) {
				if (i > 0)
					unit_buf_str(o, "  ");
				for (size_t j = 0; j < width[i]; j++)
					unit_buf_ch(o, '-');
			}
			unit_buf_ch(o, '\n');
		}
		snprintf(buf, sizeof(buf), "(%u row%s)\n", t->nrows,
		    t->nrows == 1 ? "" : "s");
		unit_buf_str(o, buf);
	}
}

/* ---- random batches ---- */

static void
rand_string(struct unit_buf *o)
{
	static const char *const piece[] = {
		"a", "b", "Z", "0", " ", ",", "\"", "\n", "\r", "\t", "\\",
		"\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\x01", "\x7f",
		"x", "y", "hello", "NULL", "\\N",
		"\xe6\x97\xa5", "e\xcc\x81",	/* wide; combining */
	};
	size_t n = (size_t)(unit_rand() % 12);

	if (unit_rand() % 50 == 0)
		n = (size_t)(unit_rand() % 400);
	for (size_t i = 0; i < n; i++) {
		uint64_t r = unit_rand();

		/* Mostly letters, so that plain fields occur too. */
		unit_buf_str(o, piece[(r & 3) ? 16 + (r >> 8) % 3 :
		    (r >> 8) % (sizeof(piece) / sizeof(piece[0]))]);
	}
}

static double
rand_double(void)
{
	uint64_t r = unit_rand();
	double v;

	switch (r % 8) {
	case 0:
		return NAN;
	case 1:
		return (r & 8) ? INFINITY : -INFINITY;
	case 2:
		return (r & 8) ? 0.0 : -0.0;
	case 3:
		memcpy(&v, &r, sizeof(v));
		return isnan(v) ? 1.5 : v;
	default:
		return (double)(int64_t)(unit_rand() % 2000000 - 1000000) /
		    100.0;
	}
}

static void
rand_batch(struct tbatch *t, uint32_t nrows)
{
	static const enum core_type ids[] = {
		CORE_TYPE_STRING, CORE_TYPE_BOOL, CORE_TYPE_INT32,
		CORE_TYPE_INT64, CORE_TYPE_FLOAT64, CORE_TYPE_DECIMAL,
		CORE_TYPE_DATE, CORE_TYPE_TIMESTAMP, CORE_TYPE_STRING,
		CORE_TYPE_DECIMAL128,
	};

	t->nrows = nrows;
	t->ncols = sizeof(ids) / sizeof(ids[0]);
	t->c = calloc(t->ncols, sizeof(struct tcol));
	for (uint32_t i = 0; i < t->ncols; i++) {
		struct tcol *c = &t->c[i];
		size_t w = core_type_width(ids[i]);

		c->id = ids[i];
		c->scale = ids[i] == CORE_TYPE_DECIMAL ?
		    (uint8_t)(unit_rand() % 5) : ids[i] ==
		    CORE_TYPE_DECIMAL128 ? (uint8_t)(unit_rand() % 39) : 0;
		if (i % 2 == 0) {
			c->valid = malloc((size_t)nrows + 1);
			for (uint32_t r = 0; r < nrows; r++)
				c->valid[r] = unit_rand() % 7 != 0;
		}
		if (c->id == CORE_TYPE_STRING) {
			struct unit_buf b = { 0 };

			c->off = malloc(((size_t)nrows + 1) * sizeof(int32_t));
			c->off[0] = 0;
			for (uint32_t r = 0; r < nrows; r++) {
				if (tb_valid(t, i, r))
					rand_string(&b);
				c->off[r + 1] = (int32_t)b.len;
			}
			unit_buf_add(&b, "", 0);
			c->bytes = b.p;
			continue;
		}
		c->vals = calloc((size_t)nrows + 1, w);
		for (uint32_t r = 0; r < nrows; r++) {
			uint64_t x = unit_rand();
			bool valid = tb_valid(t, i, r);

			switch (c->id) {
			case CORE_TYPE_BOOL:
				((uint8_t *)c->vals)[r] = valid ? x & 1 : 0;
				break;
			case CORE_TYPE_INT32:
			case CORE_TYPE_DATE:
				((int32_t *)c->vals)[r] = !valid ? 0 :
				    c->id == CORE_TYPE_DATE ?
				    (int32_t)(x % 2932897) - 719162 :
				    (int32_t)(x >> (x % 33));
				break;
			case CORE_TYPE_FLOAT64:
				((double *)c->vals)[r] = valid ?
				    rand_double() : 0;
				break;
			case CORE_TYPE_TIMESTAMP:
				((int64_t *)c->vals)[r] = !valid ? 0 :
				    (int64_t)(x % 253402300800000000ull) -
				    62135596800000000ll;
				break;
			case CORE_TYPE_DECIMAL128: {
				/* Every magnitude up to 38 nines. */
				core_i128 max = 0, v;

				for (int k = 0; k < 38; k++)
					max = max * 10 + 9;
				v = (core_i128)((core_u128)x << 64 |
				    unit_rand()) % max;
				v >>= x % 120;
				if (x % 17 == 0)
					v = x & 32 ? max : -max;
				core_i128_store((char *)c->vals + 16 * (size_t)r,
				    valid ? v : 0);
				break;
			}
			default:
				((int64_t *)c->vals)[r] = !valid ? 0 :
				    (int64_t)(x >> (x % 64));
				break;
			}
		}
	}
}

static void
report_diff(const char *got, size_t len, const struct unit_buf *want,
    uint32_t nrows, size_t kind, size_t split, size_t cap)
{
	size_t d = 0;

	while (d < len && d < want->len && got[d] == want->p[d])
		d++;
	printf("# rows %u kind %zu split %zu cap %zu: differs at byte %zu "
	    "of %zu/%zu: \"%.40s\" vs \"%.40s\"\n", nrows, kind, split, cap,
	    d, len, want->len, got + d, want->p ? want->p + d : "");
	CHECK(0);
}

static void
test_random_vs_reference(void)
{
	static const uint32_t lengths[] = {
		0, 1, 2, 3, 17, 4095, 4096, 4097
	};
	static const char *const names[] = {
		"s", "b,\"q\"", "i32", "i64", "f\tx", "dec", "day", "t\xc3\xa9",
		"s2", "wide",
	};
	static const enum core_fmt_kind kinds[] = {
		CORE_FMT_CSV, CORE_FMT_TSV, CORE_FMT_JSONL, CORE_FMT_TABLE,
	};
	/* Ways to split the rows into batches; a 0 is an empty batch. */
	static const uint32_t split_a[] = { 1000000 };
	static const uint32_t split_b[] = { 0, 1, 7, 4096 };
	static const uint32_t split_c[] = { 3, 0, 1000 };
	static const struct {
		const uint32_t *sizes;
		size_t n;
	} splits[] = { { split_a, 1 }, { split_b, 4 }, { split_c, 3 } };
	static const size_t caps[] = { 256, 0 };

	for (size_t li = 0; li < sizeof(lengths) / sizeof(lengths[0]); li++) {
		struct tbatch t;
		struct core_schema *s;

		rand_batch(&t, lengths[li]);
		s = schema_of(&t, names);
		for (size_t ki = 0; ki < 4; ki++) {
			for (size_t si = 0; si < 3; si++) {
				struct unit_buf want = { 0 };

				ref_write(&want, kinds[ki], true, ',', s, &t,
				    splits[si].sizes, splits[si].n);
				for (size_t ci = 0; ci < 2; ci++) {
					size_t len;
					char *got = run_fmt(kinds[ki], true,
					    ',', s, &t, splits[si].sizes,
					    splits[si].n, caps[ci], &len);

					if (len != want.len || (len > 0 &&
					    memcmp(got, want.p, len) != 0))
						report_diff(got, len, &want,
						    t.nrows, ki, si, caps[ci]);
					free(got);
				}
				free(want.p);
			}
		}
		core_schema_free(s);
		tb_free(&t);
	}
}

/* A string far longer than the output buffer, in every format. */
static void
test_long_string(void)
{
	static const char *const names[] = { "s" };
	static const enum core_fmt_kind kinds[] = {
		CORE_FMT_CSV, CORE_FMT_TSV, CORE_FMT_JSONL, CORE_FMT_TABLE,
	};
	struct unit_buf big = { 0 };
	const char *v[2];
	size_t lens[2];
	struct tbatch t = { 2, 1, calloc(1, sizeof(struct tcol)) };
	struct core_schema *s;

	while (big.len < 300000)
		rand_string(&big);
	v[0] = big.p;
	lens[0] = big.len;
	v[1] = "short";
	lens[1] = 5;
	str_col(&t.c[0], v, 2, lens);
	s = schema_of(&t, names);
	for (size_t ki = 0; ki < 4; ki++) {
		size_t caps[] = { 256, 4096, 0 };

		for (size_t ci = 0; ci < 3; ci++) {
			struct unit_buf want = { 0 };
			size_t len;
			char *got = run_fmt(kinds[ki], true, ',', s, &t, NULL,
			    0, caps[ci], &len);

			ref_write(&want, kinds[ki], true, ',', s, &t, NULL,
			    0);
			CHECK(len == want.len && memcmp(got, want.p, len) == 0);
			free(got);
			free(want.p);
		}
	}
	core_schema_free(s);
	tb_free(&t);
	free(big.p);
}

/* Invalid UTF-8 cut across escaping pieces gives the same JSON as in one
 * piece: every byte of it becomes one \ufffd. */
static void
test_json_invalid_long(void)
{
	static const char *const names[] = { "s" };
	struct unit_buf big = { 0 }, want = { 0 };
	const char *v[1];
	size_t lens[1], len, nbad = 0;
	struct tbatch t = { 1, 1, calloc(1, sizeof(struct tcol)) };
	struct core_schema *s;
	char *got;

	while (big.len < 50000) {
		uint64_t r = unit_rand();

		if (r % 5 == 0) {
			/* A truncated or stray sequence. */
			static const char *const bad[] = {
				"\xe2\x82", "\x80", "\xf0\x9f\x98", "\xff",
				"\xc0\xaf",
			};
			const char *b = bad[(r >> 8) % 5];

			unit_buf_str(&big, b);
			nbad += strlen(b);
			unit_buf_str(&want, strlen(b) == 1 ? "\\ufffd" :
			    strlen(b) == 2 ? "\\ufffd\\ufffd" :
			    "\\ufffd\\ufffd\\ufffd");
			/* An ASCII byte after it, so that the next piece
			 * cannot complete it. */
			unit_buf_str(&big, "x");
			unit_buf_str(&want, "x");
		} else {
			unit_buf_str(&big, "\xe2\x82\xac");
			unit_buf_str(&want, "\xe2\x82\xac");
		}
	}
	v[0] = big.p;
	lens[0] = big.len;
	str_col(&t.c[0], v, 1, lens);
	s = schema_of(&t, names);
	got = run_fmt(CORE_FMT_JSONL, true, ',', s, &t, NULL, 0, 256, &len);
	CHECK(len == want.len + 9);
	CHECK(strncmp(got, "{\"s\":\"", 6) == 0);
	CHECK(len > 9 && memcmp(got + 6, want.p, want.len) == 0);
	CHECK(nbad > 0);
	free(got);
	free(want.p);
	core_schema_free(s);
	tb_free(&t);
	free(big.p);
}

/* ---- CSV and TSV: every delimiter, every type, edge values ---- */

/* An integer with its digit count at the edges often: 10^k - 1, 10^k,
 * 10^k + 1, the extremes, or a random magnitude; either sign. */
static int64_t
edge_int(uint64_t x, unsigned maxdigits)
{
	static const int64_t ext[] = { 0, 1, -1, INT64_MAX, INT64_MIN,
	    INT32_MAX, INT32_MIN, 99999999, 100000000, -100000000,
	    9999999999999999, 10000000000000000 };
	unsigned k = (unsigned)(x >> 8) % (maxdigits + 1);
	int64_t p = 1, v;

	switch (x % 4) {
	case 0:
		return ext[(x >> 8) % (sizeof(ext) / sizeof(ext[0]))];
	case 1:
		for (unsigned i = 0; i < k && i < 18; i++)
			p *= 10;
		v = p + (int64_t)((x >> 16) % 3) - 1;
		return (x & 64) ? -v : v;
	default:
		v = (int64_t)(x >> (x % 64));
		return (x & 128) ? v : -v;
	}
}

static int32_t
edge_int32(uint64_t x)
{
	int64_t v = edge_int(x, 10);

	if (v > INT32_MAX || v < INT32_MIN)
		v = (x & 256) ? INT32_MAX : INT32_MIN;
	return (int32_t)v;
}

/* Letters only: a string that needs no quoting anywhere. */
static void
plain_string(struct unit_buf *o)
{
	size_t n = 1 + (size_t)(unit_rand() % 20);

	for (size_t i = 0; i < n; i++)
		unit_buf_ch(o, (char)('a' + unit_rand() % 26));
}

enum { WIDE_NCOLS = 12 };

/*
 * Columns: 0 nasty strings with NULLs; 1 plain strings, never NULL, an
 * empty or quoted one now and then (so most blocks are used in place,
 * a few not); 2 plain strings with NULLs, some NULLs carrying bytes;
 * 3 bool; 4 int32; 5 int64; 6 float64; 7 decimal of scale sc; 8
 * decimal(15,2); 9 date, rarely outside 0001-9999; 10 timestamp, rarely
 * extreme; 11 int64 never NULL.
 */
static void
rand_wide_batch(struct tbatch *t, uint32_t nrows, uint8_t sc)
{
	static const enum core_type ids[WIDE_NCOLS] = {
		CORE_TYPE_STRING, CORE_TYPE_STRING, CORE_TYPE_STRING,
		CORE_TYPE_BOOL, CORE_TYPE_INT32, CORE_TYPE_INT64,
		CORE_TYPE_FLOAT64, CORE_TYPE_DECIMAL, CORE_TYPE_DECIMAL,
		CORE_TYPE_DATE, CORE_TYPE_TIMESTAMP, CORE_TYPE_INT64,
	};

	t->nrows = nrows;
	t->ncols = WIDE_NCOLS;
	t->c = calloc(WIDE_NCOLS, sizeof(struct tcol));
	for (uint32_t i = 0; i < WIDE_NCOLS; i++) {
		struct tcol *c = &t->c[i];

		c->id = ids[i];
		c->scale = i == 7 ? sc : i == 8 ? 2 : 0;
		if (i != 1 && i != 11) {
			c->valid = malloc((size_t)nrows + 1);
			for (uint32_t r = 0; r < nrows; r++)
				c->valid[r] = unit_rand() % (i == 2 ? 4 : 9)
				    != 0;
		}
		if (c->id == CORE_TYPE_STRING) {
			struct unit_buf b = { 0 };

			c->off = malloc(((size_t)nrows + 1) * sizeof(int32_t));
			c->off[0] = 0;
			for (uint32_t r = 0; r < nrows; r++) {
				uint64_t x = unit_rand();

				if (i == 0 && tb_valid(t, i, r))
					rand_string(&b);
				else if (i == 2 && !tb_valid(t, i, r))
					/* Bytes under a NULL are not shown. */
					unit_buf_str(&b,
					    x % 500 == 0 ? "junk" : "");
				else if (x % 3000 == 0)
					unit_buf_str(&b,
					    (x >> 20) & 1 ? "" : "a\"b");
				else
					plain_string(&b);
				c->off[r + 1] = (int32_t)b.len;
			}
			unit_buf_add(&b, "", 0);
			c->bytes = b.p;
			continue;
		}
		c->vals = calloc((size_t)nrows + 1, core_type_width(c->id));
		for (uint32_t r = 0; r < nrows; r++) {
			uint64_t x = unit_rand();
			bool rare = x % 40 == 0;

			x >>= 6;
			switch (c->id) {
			case CORE_TYPE_BOOL:
				/* Any non-zero byte is true. */
				((uint8_t *)c->vals)[r] = rare ?
				    (uint8_t)(x | 2) : x & 1;
				break;
			case CORE_TYPE_INT32:
				((int32_t *)c->vals)[r] = edge_int32(x);
				break;
			case CORE_TYPE_INT64:
				((int64_t *)c->vals)[r] = edge_int(x, 19);
				break;
			case CORE_TYPE_FLOAT64:
				((double *)c->vals)[r] = rand_double();
				break;
			case CORE_TYPE_DECIMAL:
				((int64_t *)c->vals)[r] = i == 8 ?
				    (int64_t)(x % 20000000) - 10000000 :
				    edge_int(x, 19);
				break;
			case CORE_TYPE_DATE:
				((int32_t *)c->vals)[r] = !rare ?
				    (int32_t)(x % 2932897) - 719162 :
				    (x & 1) ? (int32_t)(x >> 1) :
				    (int32_t)(x % 3 == 0 ? -719163 :
				    x % 3 == 1 ? 2932897 : 0);
				break;
			case CORE_TYPE_TIMESTAMP:
				((int64_t *)c->vals)[r] = !rare ?
				    (int64_t)(x % 253402300800000000ull) -
				    62135596800000000ll :
				    (x & 1) ? (int64_t)(x << 6) :
				    (x & 2) ? INT64_MIN : INT64_MAX;
				break;
			default:
				break;
			}
		}
	}
}

static bool
same_text(const char *got, size_t len, const struct unit_buf *want)
{
	return len == want->len && (len == 0 ||
	    memcmp(got, want->p, len) == 0);
}

/*
 * CSV with every kind of delimiter (the usual ones, and unusual ones
 * that occur in numbers, dates, timestamps, floats and bools and so
 * force quoting of those values) and TSV, header on and off, tiny and
 * default output buffers, batches split several ways; against the
 * reference writer.
 */
static void
test_delimited_vs_reference(void)
{
	static const char *const names[WIDE_NCOLS] = {
		"s", "p,q", "n\"ul", "b", "i32", "i64\t", "f", "dec", "price",
		"day", "ts", "k",
	};
	static const char delims[] = {
		',', ';', '\t', '|', ':', '-', '.', '5', 'e', ' ', 't', 'a',
	};
	/* Rows, and the scale of the decimal column. */
	static const struct {
		uint32_t nrows;
		uint8_t scale;
	} shapes[] = {
		{ 2500, 9 }, { 1, 0 }, { 700, 18 }, { 5, 4 }, { 1500, 1 },
		{ 2, 8 }, { 300, 3 },
	};
	static const uint32_t split_a[] = { 1000000 };
	static const uint32_t split_b[] = { 1, 0, 300, 999, 13 };
	static const struct {
		const uint32_t *sizes;
		size_t n;
	} splits[] = { { split_a, 1 }, { split_b, 5 } };
	unsigned nbad = 0, nrun = 0;

	for (size_t li = 0; li < sizeof(shapes) / sizeof(shapes[0]); li++) {
		struct tbatch t;
		struct core_schema *s;

		rand_wide_batch(&t, shapes[li].nrows, shapes[li].scale);
		s = schema_of(&t, names);
		for (size_t di = 0; di <= sizeof(delims); di++) {
			/* The last round is TSV. */
			enum core_fmt_kind kind = di < sizeof(delims) ?
			    CORE_FMT_CSV : CORE_FMT_TSV;
			char d = kind == CORE_FMT_CSV ? delims[di] : '\t';
			size_t si = (li + di) % 2;
			bool header = (li + di) % 3 != 0;
			struct unit_buf want = { 0 };

			ref_write(&want, kind, header, d, s, &t,
			    splits[si].sizes, splits[si].n);
			for (size_t cap = 256; cap != 1; cap = cap ? 0 : 1) {
				size_t len;
				char *got = run_fmt(kind, header, d, s, &t,
				    splits[si].sizes, splits[si].n, cap, &len);

				nrun++;
				if (!same_text(got, len, &want) &&
				    nbad++ < 3) {
					printf("# delimiter '%c' header %d\n",
					    d, header);
					report_diff(got, len, &want, t.nrows,
					    (size_t)kind, si, cap);
				}
				free(got);
			}
			free(want.p);
		}
		core_schema_free(s);
		tb_free(&t);
	}
	CHECK_EQ_INT(nbad, 0);
	CHECK(nrun > 100);
}

/*
 * Rows whose strings are tens of kilobytes: blocks shrink to a few rows,
 * and a row with more string bytes than a block holds is written value
 * by value; output buffers smaller and larger than a row.
 */
static void
test_long_rows(void)
{
	static const char *const names[] = { "a", "n", "b" };
	static const size_t sizes[] = { 3, 20000, 70000, 0, 40000 };
	struct tbatch t = { 60, 3, calloc(3, sizeof(struct tcol)) };
	struct core_schema *s;
	int64_t nums[60];

	for (uint32_t k = 0; k < 3; k += 2) {
		struct unit_buf b = { 0 };
		struct tcol *c = &t.c[k];

		c->id = CORE_TYPE_STRING;
		c->off = malloc(61 * sizeof(int32_t));
		c->off[0] = 0;
		for (uint32_t r = 0; r < 60; r++) {
			size_t want = sizes[(r * (k + 1) + unit_rand() % 2) %
			    5];

			while (b.len - (size_t)c->off[r] < want) {
				if (unit_rand() % 3 == 0)
					rand_string(&b);
				else
					plain_string(&b);
			}
			c->off[r + 1] = (int32_t)b.len;
		}
		unit_buf_add(&b, "", 0);
		c->bytes = b.p;
	}
	for (uint32_t r = 0; r < 60; r++)
		nums[r] = edge_int(unit_rand(), 19);
	i64_col(&t.c[1], CORE_TYPE_INT64, nums, 60, NULL);
	s = schema_of(&t, names);
	for (int kind = CORE_FMT_CSV; kind <= CORE_FMT_TSV; kind++) {
		static const size_t caps[] = { 256, 65536, 0 };
		static const uint32_t split[] = { 7, 1, 60 };

		for (size_t ci = 0; ci < 3; ci++) {
			struct unit_buf want = { 0 };
			size_t len;
			char *got = run_fmt((enum core_fmt_kind)kind, true, ',',
			    s, &t, split + ci, 1, caps[ci], &len);

			ref_write(&want, (enum core_fmt_kind)kind, true, ',', s,
			    &t, split + ci, 1);
			if (!same_text(got, len, &want))
				report_diff(got, len, &want, t.nrows,
				    (size_t)kind, ci, caps[ci]);
			free(got);
			free(want.p);
		}
	}
	core_schema_free(s);
	tb_free(&t);
}

/* Batches with no column still have rows: each an empty line. */
static void
test_no_columns(void)
{
	struct tbatch t = { 3, 0, NULL };
	struct core_schema *s = core_schema_new(0);
	char *out;

	out = fmt1(CORE_FMT_CSV, true, ',', s, &t);
	CHECK_EQ_STR(out, "\n\n\n\n");
	free(out);
	out = fmt1(CORE_FMT_TSV, false, 0, s, &t);
	CHECK_EQ_STR(out, "\n\n\n");
	free(out);
	core_schema_free(s);
}

/* A full device: the error reaches the caller as CORE_EIO. */
static void
test_write_error(void)
{
	static const char *const names[] = { "i" };
	struct core_fmt_options opt = { CORE_FMT_CSV, true, ',', 0, NULL };
	struct tbatch t;
	struct core_schema *s;
	struct core_output out;
	struct core_err err = { 0 };
	struct core_fmt *f;
	struct core_batch b;
	int fd = open("/dev/full", O_WRONLY), rc;

	if (fd < 0) {
		printf("# no /dev/full, skipped\n");
		return;
	}
	t.nrows = 4096;
	t.ncols = 1;
	t.c = calloc(1, sizeof(struct tcol));
	t.c[0].id = CORE_TYPE_INT64;
	t.c[0].vals = calloc(4096, 8);
	s = schema_of(&t, names);
	core_output_init(&out, fd, "/dev/full", 256);
	f = core_fmt_new(&opt, s, &out);
	tb_view(&t, s, 0, 4096, &b);
	rc = core_fmt_write_batch(f, &b, &err);
	CHECK_EQ_INT(rc, CORE_EIO);
	CHECK(strstr(err.msg, "/dev/full") != NULL);
	view_free(&b);
	core_fmt_free(f);
	core_output_release(&out);
	close(fd);
	core_schema_free(s);
	tb_free(&t);
	core_fmt_free(NULL);
}

/* ---- core_fmt_par_write ---- */

/* A source of views of t, in batches of sizes[] (cycled); the view two
 * calls back is poisoned and freed, as the contract allows, so a thread
 * still reading it writes garbage (or ASan says so).  fail_at > 0: that
 * call fails with CORE_ECORRUPT. */
struct psrc {
	const struct tbatch *t;
	const struct core_schema *s;
	const uint32_t *sizes;
	size_t nsizes, k;
	uint32_t done;
	size_t fail_at;
	struct core_batch ring[3];
	bool used[3];
};

static void
poison_free(struct core_batch *b)
{
	for (uint32_t i = 0; i < b->ncols; i++)
		if (b->cols[i].type.id == CORE_TYPE_STRING) {
			size_t n = (size_t)b->cols[i].offsets[b->nrows];

			memset(b->cols[i].values, '#', n);
			memset(b->cols[i].offsets, 0x7f,
			    ((size_t)b->nrows + 1) * sizeof(int32_t));
		}
	view_free(b);
}

static int
psrc_next(void *arg, struct core_batch *b, struct core_err *err)
{
	struct psrc *ps = arg;
	size_t slot = ps->k % 3, old = (ps->k + 1) % 3;
	uint32_t n;

	ps->k++;
	if (ps->used[old]) {
		poison_free(&ps->ring[old]);
		ps->used[old] = false;
	}
	if (ps->fail_at != 0 && ps->k == ps->fail_at)
		return core_err_set(err, CORE_ECORRUPT, "made to fail");
	if (ps->done == ps->t->nrows)
		return CORE_EOF;
	n = ps->nsizes ? ps->sizes[(ps->k - 1) % ps->nsizes] : ps->t->nrows;
	if (n > ps->t->nrows - ps->done)
		n = ps->t->nrows - ps->done;
	tb_view(ps->t, ps->s, ps->done, n, &ps->ring[slot]);
	ps->used[slot] = true;
	ps->done += n;
	/* b is the thread's own batch: hand it the view's columns. */
	memcpy(b->cols, ps->ring[slot].cols, b->ncols * sizeof(*b->cols));
	b->nrows = n;
	return 0;
}

/* The text of core_fmt_par_write on pool; rc its result. */
static char *
run_par(enum core_fmt_kind kind, struct core_pool *pool,
    struct psrc *ps, size_t *len, int *rc, struct core_err *err)
{
	struct core_fmt_options opt = { kind, true, ',', 0, NULL };
	struct core_output out;
	int fd = memfd_create("par", 0);
	off_t size;
	char *text;

	if (fd < 0)
		abort();
	core_output_init(&out, fd, "memfd", 0);
	*rc = core_fmt_par_write(&opt, ps->s, &out, pool, psrc_next, ps,
	    err);
	if (*rc == 0)
		*rc = core_output_flush(&out, err);
	else
		core_output_flush(&out, err);
	core_output_release(&out);
	for (size_t i = 0; i < 3; i++)
		if (ps->used[i])
			poison_free(&ps->ring[i]);
	size = lseek(fd, 0, SEEK_END);
	text = malloc((size_t)size + 1);
	if (pread(fd, text, (size_t)size, 0) != size)
		abort();
	close(fd);
	*len = (size_t)size;
	return text;
}

/* Threads write what one thread writes, in order, whatever the split;
 * an error of the source stops the output after the rows before it. */
static void
test_par_vs_reference(void)
{
	static const uint32_t lengths[] = { 0, 1, 4097, 20000 };
	static const char *const names[] = {
		"s", "b,\"q\"", "i32", "i64", "f\tx", "dec", "day", "t\xc3\xa9",
		"s2", "wide",
	};
	static const uint32_t split[] = { 1, 3000, 7, 2048, 5000 };
	struct core_pool *pool = core_pool_new(2);

	for (size_t li = 0; li < sizeof(lengths) / sizeof(lengths[0]); li++) {
		struct tbatch t;
		struct core_schema *s;

		rand_batch(&t, lengths[li]);
		s = schema_of(&t, names);
		for (int ki = 0; ki < 2; ki++) {
			enum core_fmt_kind kind = ki ? CORE_FMT_TSV :
			    CORE_FMT_CSV;
			struct unit_buf want = { 0 };
			struct core_err err = { 0 };
			struct psrc ps = { .t = &t, .s = s, .sizes = split,
			    .nsizes = 5 };
			size_t len;
			int rc;
			char *got = run_par(kind, pool, &ps, &len, &rc, &err);

			ref_write(&want, kind, true, ',', s, &t, split, 5);
			CHECK_EQ_INT(rc, 0);
			CHECK(len == want.len && memcmp(got, want.p, len) == 0);
			free(got);
			free(want.p);

			/* Fails at the 4th call: the rows of 3 batches
			 * (1 + 3000 + 7 at most), then nothing. */
			struct psrc pf = { .t = &t, .s = s, .sizes = split,
			    .nsizes = 5, .fail_at = 4 };
			struct tbatch head = t;
			struct unit_buf wf = { 0 };

			head.nrows = t.nrows < 3008 ? t.nrows : 3008;
			got = run_par(kind, pool, &pf, &len, &rc, &err);
			ref_write(&wf, kind, true, ',', s, &head, split, 3);
			CHECK_EQ_INT(rc, t.nrows < 3008 ? 0 : CORE_ECORRUPT);
			CHECK(len == wf.len && memcmp(got, wf.p, len) == 0);
			free(got);
			free(wf.p);
		}
		core_schema_free(s);
		tb_free(&t);
	}
	core_pool_free(pool);
}

/* A batch whose text is larger than a thread's buffer (64 MiB) is
 * streamed in its turn, after the text of its first rows and between
 * batches that are not. */
static void
test_par_huge(void)
{
	static const char *const names[] = { "s" };
	enum { NSMALL = 2100, NROWS = NSMALL + 4 };
	static const uint32_t split[] = { 1, NSMALL + 2, 1 };
	struct core_pool *pool = core_pool_new(2);
	size_t n = (size_t)33 << 20, len;
	char *big = malloc(n);
	const char **v = calloc(NROWS, sizeof(*v));
	size_t *lens = calloc(NROWS, sizeof(*lens));
	struct tbatch t = { NROWS, 1, calloc(1, sizeof(struct tcol)) };
	struct unit_buf want = { 0 };
	struct core_err err = { 0 };
	struct core_schema *s;
	struct psrc ps = { .t = &t, .sizes = split, .nsizes = 3 };
	char *got;
	int rc;

	for (size_t i = 0; i < n; i++)
		big[i] = i % 1000 == 0 ? '"' : (char)('a' + i % 26);
	for (size_t i = 0; i < NROWS; i++) {
		v[i] = i % 3 ? "x,y" : "plain";
		lens[i] = strlen(v[i]);
	}
	v[NSMALL + 1] = big;
	lens[NSMALL + 1] = n;
	str_col(&t.c[0], v, NROWS, lens);
	s = schema_of(&t, names);
	ps.s = s;
	got = run_par(CORE_FMT_CSV, pool, &ps, &len, &rc, &err);
	ref_write(&want, CORE_FMT_CSV, true, ',', s, &t, split, 3);
	CHECK_EQ_INT(rc, 0);
	CHECK(len == want.len && memcmp(got, want.p, len) == 0);
	free(got);
	free(want.p);
	core_schema_free(s);
	tb_free(&t);
	free(big);
	free(v);
	free(lens);
	core_pool_free(pool);
}

int
main(void)
{
	RUN(test_csv_quoting);
	RUN(test_csv_odd_delimiter);
	RUN(test_tsv);
	RUN(test_jsonl);
	RUN(test_table);
	RUN(test_zero_rows);
	RUN(test_random_vs_reference);
	RUN(test_delimited_vs_reference);
	RUN(test_long_rows);
	RUN(test_no_columns);
	RUN(test_long_string);
	RUN(test_json_invalid_long);
	RUN(test_write_error);
	RUN(test_par_vs_reference);
	RUN(test_par_huge);
	return unit_done();
}
