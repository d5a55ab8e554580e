/*
 * test_csv_sniff.c - property test of the CSV reader's sniffing: random
 * tables written out and read back through the public reader API must
 * come back with the same dialect, header, types and values, or fail;
 * never read differently at exit 0.
 *
 * Each table has a random delimiter (, ; TAB |), 1 to 6 columns of random
 * types (int64, decimal(18,2), float64, date, bool, string), 1 to 30 data
 * rows, a header or not, string fields quoted at random (always when they
 * hold the delimiter, the quote or a line break; unquoted, they may hold
 * the other candidate delimiters), an empty (NULL) field now and then,
 * and sometimes title lines before it.  A table with title lines is read
 * twice: as it is (any reading at exit 0 is wrong: the titles are not
 * table rows) and with skip_lines set to their count (which must give the
 * table back).
 *
 * The reference is the generator itself: it knows what it wrote.  Tables
 * no reader could tell apart are not generated: a headerless table has a
 * typed column (all text, a first row of text is a header by the rules of
 * core_csv.h), header names are text no value repeats.  Wrong readings at
 * exit 0 must be none on tables of at least 3 columns and 5 rows; the rate
 * on smaller ones (one-column tables with titles cannot be told from a
 * one-column table) is printed as a TAP comment.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core_alloc.h"
#include "core_csv.h"
#include "core_value.h"
#include "unit.h"

#define MAXC 6
#define MAXR 30
#define NTABLES 1500

enum { T_INT, T_DEC, T_FLT, T_DATE, T_BOOL, T_STR, T_N };

static const char *const tname[T_N] = {
	"int64", "decimal(18,2)", "float64", "date", "bool", "string",
};

static char tmpdir[64];

static unsigned
rnd(unsigned n)
{
	return (unsigned)(unit_rand() % n);
}

/* A generated table: the text of every cell as written (unquoted) and as
 * the reader must give it back (NULL: empty expected text and null). */
struct table {
	int delim, ncols, nrows, npre;
	bool header;
	int type[MAXC];
	char name[MAXC][24];
	char cell[MAXR][MAXC][48];	/* value as written */
	char want[MAXR][MAXC][48];	/* value as read back */
	bool null[MAXR][MAXC];
};

static void
gen_string(char *out, size_t cap)
{
	static const char extra[] = " ,;|\"'\t";
	size_t n = 2 + rnd(8), i;

	/* A leading letter that no number, date or bool starts with. */
	out[0] = "wxyzqk"[rnd(6)];
	for (i = 1; i < n && i + 1 < cap; i++)
		out[i] = rnd(6) == 0 ? extra[rnd(sizeof(extra) - 1)] :
		    (char)('a' + rnd(26));
	out[i] = '\0';
}

static void
gen_cell(struct table *t, int r, int j)
{
	char *c = t->cell[r][j], *w = t->want[r][j];
	double f;

	t->null[r][j] = false;
	if (r > 0 && rnd(12) == 0) {
		t->null[r][j] = true;
		c[0] = w[0] = '\0';
		return;
	}
	switch (t->type[j]) {
	case T_INT:
		snprintf(c, 48, "%s%u", rnd(4) == 0 ? "-" : "", rnd(100000));
		if (strcmp(c, "-0") == 0)
			strcpy(c, "0");
		strcpy(w, c);
		break;
	case T_DEC:
		snprintf(c, 48, "%u.%02u", rnd(10000), rnd(100));
		strcpy(w, c);
		break;
	case T_FLT:
		snprintf(c, 48, "%u.%ue%d", 1 + rnd(9), rnd(10),
		    (int)rnd(20) - 10);
		f = strtod(c, NULL);
		w[core_format_float64(f, w)] = '\0';
		break;
	case T_DATE:
		snprintf(c, 48, "%04u-%02u-%02u", 1990 + rnd(40), 1 + rnd(12),
		    1 + rnd(28));
		strcpy(w, c);
		break;
	case T_BOOL:
		strcpy(c, rnd(2) ? "true" : "false");
		strcpy(w, c);
		break;
	default:
		gen_string(c, 48);
		strcpy(w, c);
		break;
	}
}

static void
gen_table(struct table *t, bool big)
{
	static const int delims[] = { ',', ';', '\t', '|' };
	int r, j, k;
	bool typed = false;

	memset(t, 0, sizeof(*t));
	t->delim = delims[rnd(4)];
	t->ncols = big ? 3 + (int)rnd(MAXC - 2) : 1 + (int)rnd(MAXC);
	t->nrows = big ? 5 + (int)rnd(MAXR - 4) : 1 + (int)rnd(MAXR);
	t->header = rnd(2) == 0;
	t->npre = rnd(4) == 0 ? 1 + (int)rnd(4) : 0;
	for (j = 0; j < t->ncols; j++) {
		t->type[j] = (int)rnd(T_N);
		typed |= t->type[j] != T_STR;
		snprintf(t->name[j], sizeof(t->name[j]), "h%c%c%d",
		    'a' + rnd(26), 'a' + rnd(26), j);
	}
	/* All text and no header reads as a header: not a table to ask. */
	if (!t->header && !typed)
		t->type[rnd((unsigned)t->ncols)] = T_INT;
	for (r = 0; r < t->nrows; r++)
		for (j = 0; j < t->ncols; j++)
			gen_cell(t, r, j);
	/* A column with no value reads as string: keep one. */
	for (j = 0; j < t->ncols; j++) {
		for (k = 0; k < t->nrows && t->null[k][j]; k++)
			;
		if (k == t->nrows)
			gen_cell(t, 0, j);
	}
}

static void
put_field(struct unit_buf *o, const struct table *t, const char *v,
    bool string)
{
	bool q = string && (rnd(3) == 0 || strchr(v, t->delim) != NULL ||
	    strchr(v, '"') != NULL || strchr(v, '\n') != NULL);

	if (!q) {
		unit_buf_str(o, v);
		return;
	}
	unit_buf_ch(o, '"');
	for (; *v != '\0'; v++) {
		if (*v == '"')
			unit_buf_ch(o, '"');
		unit_buf_ch(o, *v);
	}
	unit_buf_ch(o, '"');
}

static void
write_table(const struct table *t, struct unit_buf *o)
{
	static const char *const pre[] = {
		"Report of the year", "Source: the office", "",
		"Last updated: today", "Notes and remarks",
	};
	int r, j;

	/* Title lines, blank ones among them but not first (blank lines
	 * alone are no title: the reader skips them). */
	for (r = 0; r < t->npre; r++) {
		unit_buf_str(o, pre[r == 0 ? 0 : rnd(5)]);
		/* A title line may have one delimiter (two fields). */
		if (rnd(3) == 0) {
			unit_buf_ch(o, (char)t->delim);
			unit_buf_str(o, "value");
		}
		unit_buf_ch(o, '\n');
	}
	if (t->header) {
		for (j = 0; j < t->ncols; j++) {
			if (j > 0)
				unit_buf_ch(o, (char)t->delim);
			put_field(o, t, t->name[j], true);
		}
		unit_buf_ch(o, '\n');
	}
	for (r = 0; r < t->nrows; r++) {
		for (j = 0; j < t->ncols; j++) {
			if (j > 0)
				unit_buf_ch(o, (char)t->delim);
			put_field(o, t, t->cell[r][j], t->type[j] == T_STR &&
			    !t->null[r][j]);
		}
		if (r + 1 < t->nrows || rnd(2))
			unit_buf_ch(o, '\n');
	}
}

static void
render(const struct core_column *c, uint32_t k, char *out)
{
	size_t n = 0;

	switch (c->type.id) {
	case CORE_TYPE_STRING:
		n = (size_t)(c->offsets[k + 1] - c->offsets[k]);
		if (n > 47)
			n = 47;
		memcpy(out, (const char *)c->values + c->offsets[k], n);
		break;
	case CORE_TYPE_BOOL:
		n = core_format_bool(((uint8_t *)c->values)[k], out);
		break;
	case CORE_TYPE_INT64:
		n = core_format_int64(((int64_t *)c->values)[k], out);
		break;
	case CORE_TYPE_FLOAT64:
		n = core_format_float64(((double *)c->values)[k], out);
		break;
	case CORE_TYPE_DECIMAL:
		n = core_format_decimal(((int64_t *)c->values)[k],
		    c->type.scale, out);
		break;
	case CORE_TYPE_DATE:
		n = core_format_date(((int32_t *)c->values)[k], out);
		break;
	default:
		strcpy(out, "?");
		n = 1;
		break;
	}
	out[n] = '\0';
}

enum { READ_ERROR, READ_RIGHT, READ_WRONG };

/* Reads path and compares with t; *why says what differed. */
static int
read_back(const char *path, const struct table *t, uint64_t skip,
    char *why, size_t cap)
{
	struct core_csv_options o;
	struct core_csv_reader *rd;
	const struct core_schema *s;
	struct core_err err;
	struct core_batch b;
	char got[CORE_VALUE_TEXT_MAX + 48];
	int delim, quote, rc, res = READ_RIGHT, row = 0, j;
	bool header;
	uint32_t k;

	core_csv_options_init(&o);
	o.skip_lines = skip;
	o.threads = 1;
	memset(&err, 0, sizeof(err));
	if (core_csv_reader_new(&path, 1, &o, &rd, &err) != 0) {
		snprintf(why, cap, "%s", err.msg);
		return READ_ERROR;
	}
	s = core_csv_reader_schema(rd);
	core_csv_reader_dialect(rd, &delim, &quote, &header);
	if ((int)s->ncols != t->ncols) {
		snprintf(why, cap, "%u columns, want %d", s->ncols, t->ncols);
		res = READ_WRONG;
	} else if (header != t->header) {
		snprintf(why, cap, "header %d, want %d", header, t->header);
		res = READ_WRONG;
	} else if (t->ncols > 1 && delim != t->delim) {
		snprintf(why, cap, "delimiter %d, want %d", delim, t->delim);
		res = READ_WRONG;
	}
	for (j = 0; res == READ_RIGHT && j < t->ncols; j++) {
		char tn[CORE_TYPE_NAME_MAX];

		core_type_name(s->fields[j].type, tn);
		if (strcmp(tn, tname[t->type[j]]) != 0) {
			snprintf(why, cap, "column %d %s, want %s", j + 1, tn,
			    tname[t->type[j]]);
			res = READ_WRONG;
		} else if (t->header && strcmp(s->fields[j].name,
		    t->name[j]) != 0) {
			snprintf(why, cap, "column %d named %s", j + 1,
			    s->fields[j].name);
			res = READ_WRONG;
		}
	}
	core_batch_init(&b, s);
	while (res == READ_RIGHT &&
	    (rc = core_csv_reader_next(rd, &b, &err)) == 0)
		for (k = 0; k < b.nrows && res == READ_RIGHT; k++, row++)
			for (j = 0; j < t->ncols; j++) {
				bool valid = core_col_is_valid(&b.cols[j], k);

				if (row >= t->nrows) {
					snprintf(why, cap, "extra row");
					res = READ_WRONG;
					break;
				}
				if (valid)
					render(&b.cols[j], k, got);
				if (valid == t->null[row][j] || (valid &&
				    strcmp(got, t->want[row][j]) != 0)) {
					snprintf(why, cap, "row %d col %d: "
					    "'%s', want '%s'", row + 1, j + 1,
					    valid ? got : "NULL",
					    t->want[row][j]);
					res = READ_WRONG;
					break;
				}
			}
	if (res == READ_RIGHT && rc != CORE_EOF) {
		snprintf(why, cap, "%s", err.msg);
		res = READ_ERROR;
	}
	else if (res == READ_RIGHT && row != t->nrows) {
		snprintf(why, cap, "%d rows, want %d", row, t->nrows);
		res = READ_WRONG;
	}
	core_batch_release(&b);
	core_csv_reader_free(rd);
	return res;
}

struct tally {
	unsigned tables, right, errors, wrong;
	unsigned titled;	/* readings of tables with title lines as
				   they are: errors, rightly */
};

static void
one_table(bool big, struct tally *ta, unsigned n)
{
	struct table *t = core_xmalloc(sizeof(*t));
	struct unit_buf o = { NULL, 0, 0 };
	char path[128], why[CORE_ERR_MSG_MAX + 64];
	bool keep = false;
	FILE *f;
	int res;

	gen_table(t, big);
	write_table(t, &o);
	snprintf(path, sizeof(path), "%s/%c%u.csv", tmpdir, big ? 'b' : 's', n);
	f = fopen(path, "wb");
	if (f == NULL || fwrite(o.p, 1, o.len, f) != o.len || fclose(f)) {
		printf("# cannot write %s\n", path);
		exit(1);
	}
	/* As written: with title lines, any reading at exit 0 is wrong. */
	why[0] = '\0';
	res = read_back(path, t, 0, why, sizeof(why));
	if (t->npre > 0 && res != READ_ERROR) {
		res = READ_WRONG;
		if (why[0] == '\0')
			snprintf(why, sizeof(why), "%d title lines read as "
			    "the table", t->npre);
	}
	ta->tables++;
	ta->titled += t->npre > 0;
	ta->right += res == READ_RIGHT;
	ta->errors += res == READ_ERROR;
	ta->wrong += res == READ_WRONG;
	if (res == READ_WRONG && getenv("SNIFF_VERBOSE") != NULL)
		printf("# %s: %s\n", path, why);
	if (res == READ_WRONG && big) {
		printf("# wrong reading of %s (%s)\n", path, why);
		keep = true;
	}
	if (getenv("SNIFF_VERBOSE") != NULL && res == READ_ERROR &&
	    t->npre == 0)
		printf("# error: %s\n", why);
	/* With the titles skipped, the table as written. */
	if (t->npre > 0) {
		why[0] = '\0';
		res = read_back(path, t, (uint64_t)t->npre, why,
		    sizeof(why));
		ta->tables++;
		ta->right += res == READ_RIGHT;
		ta->errors += res == READ_ERROR;
		ta->wrong += res == READ_WRONG;
		if (res == READ_WRONG && big) {
			printf("# wrong reading of %s with skip %d (%s)\n",
			    path, t->npre, why);
			keep = true;
		}
	}
	/* A wrong reading's file stays, to be looked at. */
	if (!keep)
		unlink(path);
	free(o.p);
	free(t);
}

static void
report(const char *what, const struct tally *ta)
{
	printf("# %s: %u readings, %u right, %u errors, %u wrong at exit 0 "
	    "(%.2f%%)\n", what, ta->tables, ta->right, ta->errors, ta->wrong,
	    ta->tables ? 100.0 * ta->wrong / ta->tables : 0.0);
}

static void
test_big_tables(void)
{
	struct tally ta = { 0, 0, 0, 0, 0 };
	unsigned i;

	unit_rng_state = 0x5eed0001u;
	for (i = 0; i < NTABLES; i++)
		one_table(true, &ta, i);
	report("tables of >= 3 columns and >= 5 rows", &ta);
	CHECK_EQ_INT(ta.wrong, 0);
	/* The reader must read most of them, not refuse them. */
	CHECK(ta.right * 10 >= (ta.tables - ta.titled) * 9);
}

static void
test_small_tables(void)
{
	struct tally ta = { 0, 0, 0, 0, 0 };
	unsigned i;

	unit_rng_state = 0x5eed0002u;
	for (i = 0; i < NTABLES; i++)
		one_table(false, &ta, i);
	report("tables of any size (1-6 columns, 1-30 rows)", &ta);
	CHECK(ta.tables > 0);
}

int
main(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_csv_sniff.XXXXXX");
	if (mkdtemp(tmpdir) == NULL) {
		printf("# mkdtemp failed\n");
		return 1;
	}
	RUN(test_big_tables);
	RUN(test_small_tables);
	rmdir(tmpdir);
	return unit_done();
}
