/*
 * csv2col - CSV/TSV text (plain, compressed or in tar archives) to a typed
 * MLSPILL3 column stream.
 *
 * Options and wiring only: parsing, sniffing and type inference are
 * core_csv, the framing is core_mlspill3.  On any failure the stream is
 * left without its end-of-stream record, so every downstream stage reports
 * it as truncated instead of taking it for a short success.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core_alloc.h"
#include "core_col.h"
#include "core_csv.h"
#include "core_csv_enc.h"
#include "core_io.h"
#include "core_mlspill3.h"
#include "fe.h"

static void usage(FILE *fp);

static const struct fe_tool tool = {
	.name = "csv2col",
	.opts = FE_OPT_OUTPUT | FE_OPT_THREADS | FE_OPT_COMPRESS,
	.max_threads = 256,
	.threads_help = "parser threads (default: all cores)",
	.usage = usage,
};

/* Everything the command line decides. */
struct options {
	struct fe_common common;	/* -o, -j, -z, --stats, --progress */
	struct core_csv_options csv;	/* dialect, schema, nulls, threads */
	const char **nulls;		/* owned array of borrowed argv */
	size_t nnulls;
	const char **datefmts;		/* owned array of borrowed argv:
					   --date-format COLUMN=FORMAT */
	size_t ndatefmts;
	const char *rejects;		/* --rejects FILE, or NULL */
	bool max_errors_set;
	bool describe;			/* --describe */
};

static void
usage(FILE *fp)
{
	fprintf(fp,
	    "usage: %s [options] [FILE...]\n"
	    "Read CSV (stdin, or each FILE; '-' is stdin; gzip, bzip2, xz, "
	    "zstd and tar\nare recognised by content) and write a typed "
	    "MLSPILL3 column stream.\n"
	    "\n"
	    "  -d, --delimiter C    field delimiter: one character or 'tab'\n"
	    "                       (default: sniffed)\n"
	    "  -q, --quote C        quote character or 'none' (default: "
	    "sniffed)\n"
	    "      --header         the first line is a header\n"
	    "      --no-header      there is no header (columns c1, c2, "
	    "...)\n"
	    "      --names a,b,c    name the columns (implies --no-header; "
	    "with --header,\n"
	    "                       replaces the header's names)\n"
	    "      --skip N         skip N lines before the header (title "
	    "or note lines)\n"
	    "      --comment C      lines starting with C are comments, "
	    "wherever they are\n"
	    "      --encoding E     the input's encoding: utf-8 (default), "
	    "latin-1,\n"
	    "                       windows-1252, utf-16, utf-16le, "
	    "utf-16be\n"
	    "  -s, --schema SPEC    pin column types: 'name:type,...'\n"
	    "                       (e.g. 'price:decimal(15,2)')\n"
	    "      --columns LIST   convert and write only these columns, "
	    "in this order\n"
	    "                       (names or 1-based numbers: 'b,1'); the "
	    "others are\n"
	    "                       only delimited: quoting and field "
	    "counts are checked,\n"
	    "                       their types and values are not\n"
	    "  -n, --null STR       an unquoted field equal to STR is NULL "
	    "(repeatable)\n"
	    "      --sample-rows N  rows sampled for type inference "
	    "(default 20480)\n"
	    "      --batch-rows N   rows per frame (default 8192)\n"
	    "      --date-format F  dates are written so (e.g. '%%d/%%m/%%Y';\n"
	    "                       %%Y %%y %%m %%b %%d %%e)\n"
	    "                       or COLUMN=F for one column's (repeatable)\n"
	    "      --timestamp-format F\n"
	    "                       timestamps are written so (also %%H %%M "
	    "%%S %%f)\n"
	    "      --trim           drop spaces and tabs around unquoted "
	    "fields\n"
	    "      --null-padding   pad rows with too few fields with NULLs\n"
	    "      --decimal-comma  numbers use ',' as the decimal mark "
	    "(1,5)\n"
	    "      --thousands C    numbers may group digits with C "
	    "(1.234,5 with '.')\n"
	    "      --describe       print the options the sample decides "
	    "(dialect, header,\n"
	    "                       -s schema) as a command line, and stop\n"
	    "      --rejects FILE   write bad rows to FILE and go on\n"
	    "      --max-errors N   with --rejects: fail (exit 4) past N bad "
	    "rows\n", tool.name);
	fe_usage_shared(fp);
	fprintf(fp, "\n"
	    "Types: bool int32 int64 float64 decimal(p,s) date timestamp "
	    "string.\n"
	    "Exit status: 0 ok, 2 usage, 3 bad input, 4 too many rejected "
	    "rows,\n5 I/O error.  See csv2col(1) and mlspill3(5).\n");
}

enum {
	OPT_HEADER = 256, OPT_NO_HEADER, OPT_SAMPLE_ROWS, OPT_BATCH_ROWS,
	OPT_REJECTS, OPT_MAX_ERRORS, OPT_SKIP, OPT_COMMENT,
	OPT_NULL_PADDING, OPT_DECIMAL_COMMA, OPT_THOUSANDS, OPT_NAMES,
	OPT_TRIM, OPT_DATE_FORMAT, OPT_TIMESTAMP_FORMAT, OPT_DESCRIBE,
	OPT_ENCODING, OPT_COLUMNS,
};

static int
option(void *arg, int c, const char *optarg, struct core_err *err)
{
	struct options *o = arg;
	uint64_t v;
	int ch;

	switch (c) {
	case 'd':
		if ((ch = fe_parse_char("delimiter", optarg, false, err)) < 0)
			return CORE_EUSAGE;
		o->csv.delimiter = ch;
		break;
	case 'q':
		if ((ch = fe_parse_char("quote", optarg, true, err)) < 0)
			return CORE_EUSAGE;
		o->csv.quote = ch;
		break;
	case OPT_HEADER:
		o->csv.header = 1;
		break;
	case OPT_NO_HEADER:
		o->csv.header = 0;
		break;
	case OPT_DATE_FORMAT: {
		const char *eq = strchr(optarg, '=');

		/* A format names its fields with %, a column does not. */
		if (eq != NULL && memchr(optarg, '%', (size_t)(eq - optarg)) ==
		    NULL) {
			o->datefmts = core_xreallocarray(o->datefmts,
			    o->ndatefmts + 1, sizeof(*o->datefmts));
			o->datefmts[o->ndatefmts++] = optarg;
		} else {
			o->csv.date_format = optarg;
		}
		break;
	}
	case OPT_TIMESTAMP_FORMAT:
		o->csv.timestamp_format = optarg;
		break;
	case OPT_DESCRIBE:
		o->describe = true;
		break;
	case OPT_ENCODING:
		if (core_csv_enc_lookup(optarg, &o->csv.encoding, err) != 0)
			return CORE_EUSAGE;
		break;
	case OPT_TRIM:
		o->csv.trim = true;
		break;
	case OPT_NAMES:
		o->csv.names = optarg;
		break;
	case OPT_COLUMNS:
		o->csv.columns = optarg;
		break;
	case OPT_SKIP:
		if (fe_parse_count("--skip", optarg, &v, err) != 0)
			return CORE_EUSAGE;
		o->csv.skip_lines = v;
		break;
	case OPT_COMMENT:
		if ((ch = fe_parse_char("comment", optarg, false, err)) < 0)
			return CORE_EUSAGE;
		o->csv.comment = ch;
		break;
	case 's':
		o->csv.schema = optarg;
		break;
	case 'n':
		o->nulls = core_xreallocarray(o->nulls, o->nnulls + 1,
		    sizeof(*o->nulls));
		o->nulls[o->nnulls++] = optarg;
		break;
	case OPT_SAMPLE_ROWS:
		if (fe_parse_count("--sample-rows", optarg, &v, err) != 0)
			return CORE_EUSAGE;
		if (v == 0)
			return core_err_set(err, CORE_EUSAGE,
			    "--sample-rows must be at least 1");
		o->csv.sample_rows = v;
		break;
	case OPT_BATCH_ROWS:
		if (fe_parse_batch_rows(optarg, &o->csv.batch_rows,
		    err) != 0)
			return CORE_EUSAGE;
		break;
	case OPT_REJECTS:
		o->rejects = optarg;
		break;
	case OPT_NULL_PADDING:
		o->csv.null_padding = true;
		break;
	case OPT_DECIMAL_COMMA:
		o->csv.decimal_mark = ',';
		break;
	case OPT_THOUSANDS:
		if ((ch = fe_parse_char("thousands", optarg, false, err)) < 0)
			return CORE_EUSAGE;
		o->csv.thousands = ch;
		break;
	case OPT_MAX_ERRORS:
		if (fe_parse_count("--max-errors", optarg, &v, err) != 0)
			return CORE_EUSAGE;
		o->csv.max_errors = v;
		o->max_errors_set = true;
		break;
	default:
		return core_err_set(err, CORE_EINTERNAL, "option %d", c);
	}
	return 0;
}

static int
parse_args(int argc, char **argv, struct options *o, struct core_err *err)
{
	static const struct option longopts[] = {
		{ "delimiter", required_argument, NULL, 'd' },
		{ "quote", required_argument, NULL, 'q' },
		{ "header", no_argument, NULL, OPT_HEADER },
		{ "no-header", no_argument, NULL, OPT_NO_HEADER },
		{ "names", required_argument, NULL, OPT_NAMES },
		{ "columns", required_argument, NULL, OPT_COLUMNS },
		{ "trim", no_argument, NULL, OPT_TRIM },
		{ "describe", no_argument, NULL, OPT_DESCRIBE },
		{ "encoding", required_argument, NULL, OPT_ENCODING },
		{ "date-format", required_argument, NULL, OPT_DATE_FORMAT },
		{ "timestamp-format", required_argument, NULL,
		    OPT_TIMESTAMP_FORMAT },
		{ "skip", required_argument, NULL, OPT_SKIP },
		{ "comment", required_argument, NULL, OPT_COMMENT },
		{ "schema", required_argument, NULL, 's' },
		{ "null", required_argument, NULL, 'n' },
		{ "sample-rows", required_argument, NULL, OPT_SAMPLE_ROWS },
		{ "batch-rows", required_argument, NULL, OPT_BATCH_ROWS },
		{ "rejects", required_argument, NULL, OPT_REJECTS },
		{ "null-padding", no_argument, NULL, OPT_NULL_PADDING },
		{ "decimal-comma", no_argument, NULL, OPT_DECIMAL_COMMA },
		{ "thousands", required_argument, NULL, OPT_THOUSANDS },
		{ "max-errors", required_argument, NULL, OPT_MAX_ERRORS },
		{ NULL, 0, NULL, 0 },
	};
	int rc;

	memset(o, 0, sizeof(*o));
	core_csv_options_init(&o->csv);
	if ((rc = fe_parse(argc, argv, "d:q:s:n:", longopts, option, o,
	    &o->common, err)) != 0)
		return rc;
	if (o->common.threads != 0)
		o->csv.threads = o->common.threads;
	if (o->max_errors_set && o->rejects == NULL)
		return core_err_set(err, CORE_EUSAGE,
		    "--max-errors needs --rejects FILE");
	if (o->describe && (o->common.output != NULL || o->rejects != NULL))
		return core_err_set(err, CORE_EUSAGE, "--describe writes no "
		    "stream and no rejects: drop -o and --rejects");
	if (o->rejects != NULL && !o->max_errors_set)
		o->csv.max_errors = UINT64_MAX;
	o->csv.nulls = o->nulls;
	o->csv.nnulls = o->nnulls;
	o->csv.date_formats = o->datefmts;
	o->csv.ndate_formats = o->ndatefmts;
	o->csv.pin_hint = "";	/* add_hint says more */
	return 0;
}

/* failed: the run stopped on an error, printed after these lines; the
 * counts line says so, lest "0 rows, 0 rejected" read as a success. */
static void
print_stats(const struct core_csv_reader *rd,
    const struct core_mlspill3_writer *w, bool failed)
{
	const struct core_schema *s = core_csv_reader_schema(rd);
	struct core_mlspill3_stats ws;
	struct core_csv_stats cs;
	char *desc = core_schema_describe(s);
	int delim, quote;
	bool header;

	core_csv_reader_stats(rd, &cs);
	core_mlspill3_writer_stats(w, &ws);
	core_csv_reader_dialect(rd, &delim, &quote, &header);
	fprintf(stderr, "%s: dialect: delimiter %s, quote %s, %s\n",
	    fe_prog(),
	    delim == '\t' ? "tab" : (char[]){ '\'', (char)delim, '\'', 0 },
	    quote == 0 ? "none" : (char[]){ '\'', (char)quote, '\'', 0 },
	    header ? "header" : "no header");
	for (const char *n = core_csv_reader_notes(rd), *e; *n != '\0';
	    n = e + 1) {
		e = strchr(n, '\n');
		fprintf(stderr, "%s: %.*s\n", fe_prog(), (int)(e - n), n);
	}
	if (cs.skipped > 0 || cs.comments > 0)
		fprintf(stderr, "%s: %llu lines skipped (--skip), %llu "
		    "comment lines\n", fe_prog(),
		    (unsigned long long)cs.skipped,
		    (unsigned long long)cs.comments);
	if (cs.padded > 0 || cs.trailing > 0)
		fprintf(stderr, "%s: ragged rows: %llu padded with NULLs, "
		    "%llu read without a trailing empty field\n", fe_prog(),
		    (unsigned long long)cs.padded,
		    (unsigned long long)cs.trailing);
	fprintf(stderr, "%s: schema: %s\n", fe_prog(), desc);
	fprintf(stderr, "%s: %s%llu rows, %llu rejected, %llu frames, "
	    "%.1f MB in, %.1f MB out, %.3f s, peak memory %.1f MB\n",
	    fe_prog(), failed ? "failed (the error follows); so far: " : "",
	    (unsigned long long)cs.rows,
	    (unsigned long long)cs.rejected, (unsigned long long)ws.frames,
	    (double)cs.bytes / 1e6, (double)ws.bytes / 1e6, fe_elapsed(),
	    (double)fe_peak_rss() / 1e6);
	free(desc);
}

/* Appends to err's message what to type when the reader stopped at a
 * value that does not fit its column (the -s spec to paste, with that
 * column as text, while it is short enough to read) or at a short row
 * (--null-padding). */
static void
add_hint(const struct options *o, const struct core_csv_reader *rd,
    struct core_err *err)
{
	const struct core_schema *s = core_csv_reader_schema(rd);
	char tbuf[CORE_TYPE_NAME_MAX], spec[320];
	size_t have = strlen(err->msg), off = 0;
	uint32_t col, j;
	int kind = core_csv_reader_failure(rd, &col);
	bool ok = true;

	if (kind == CORE_CSV_BAD_SHORT && !o->csv.null_padding) {
		snprintf(err->msg + have, sizeof(err->msg) - have, "; if rows "
		    "leave out empty trailing fields, give --null-padding");
		return;
	}
	if (kind != CORE_CSV_BAD_TYPE || col >= s->ncols)
		return;
	for (j = 0; j < s->ncols && ok; j++) {
		const char *n = s->fields[j].name;
		int k;

		if (strchr(n, ',') != NULL || strchr(n, '\'') != NULL ||
		    n[0] == ' ' || n[0] == '\0')
			ok = false;
		k = snprintf(spec + off, sizeof(spec) - off, "%s%s:%s",
		    j ? "," : "", n, j == col ? "string" :
		    core_type_name(s->fields[j].type, tbuf));
		if (k < 0 || (size_t)k >= sizeof(spec) - off)
			ok = false;
		else
			off += (size_t)k;
	}
	if (ok)
		snprintf(err->msg + have, sizeof(err->msg) - have, "; to read "
		    "column %s as text, give --schema '%s' (or edit the "
		    "types; --describe prints all the options)",
		    s->fields[col].name, spec);
	else
		snprintf(err->msg + have, sizeof(err->msg) - have, "; give "
		    "column %s its type with --schema (--describe prints the "
		    "schema to edit)", s->fields[col].name);
}

/* Converts everything; returns 0 or a CORE_E* code with err set.  The end
 * record is written only when every input was read without error. */
static int
run(struct options *o, const char *const *paths, size_t npaths,
    const struct fe_out *out, struct core_err *err)
{
	struct core_mlspill3_writer *w = NULL;
	struct core_csv_reader *rd = NULL;
	struct fe_progress *prog;
	struct core_csv_stats cs;
	struct core_batch b;
	int rc;

	if ((rc = core_csv_reader_new(paths, npaths, &o->csv, &rd, err)) != 0)
		return rc;
	prog = fe_progress_new(o->common.progress,
	    core_paths_plain_size(paths, npaths));
	w = core_mlspill3_writer_new(out->fd, out->name,
	    core_csv_reader_schema(rd), o->common.zstd_level);
	core_batch_init(&b, core_csv_reader_schema(rd));
	while ((rc = core_csv_reader_next(rd, &b, err)) == 0) {
		if ((rc = core_mlspill3_write_batch(w, &b, err)) != 0)
			break;
		core_csv_reader_stats(rd, &cs);
		fe_progress_update(prog, cs.rows, cs.bytes);
	}
	if (rc == CORE_EOF)
		rc = core_mlspill3_writer_finish(w, err);
	if (rc == CORE_EDATA)
		add_hint(o, rd, err);
	fe_progress_free(prog);
	if (o->common.stats && (rc == 0 || rc == CORE_ELIMIT ||
	    rc == CORE_EDATA))
		print_stats(rd, w, rc != 0);
	core_batch_release(&b);
	core_mlspill3_writer_free(w);
	core_csv_reader_free(rd);
	return rc;
}

/* s as one shell word, in single quotes. */
static void
put_word(const char *s)
{
	putchar('\'');
	for (; *s != '\0'; s++)
		if (*s == '\'')
			fputs("'\\''", stdout);
		else
			putchar(*s);
	putchar('\'');
}

/* " OPT C" ("OPT C" for the first option, with no space before). */
static void
put_opt_char(const char *opt, int c)
{
	printf("%s%s ", strcmp(opt, "-d") == 0 ? "" : " ", opt);
	if (c == '\t')
		fputs("tab", stdout);
	else
		put_word((char[]){ (char)c, '\0' });
}

/* --describe: the options that read the input as the sample decided,
 * as one line to paste after "csv2col"; nothing past the sample is
 * read.  Names a -s spec cannot hold are an error, not a line that
 * would read the input otherwise. */
static int
describe(struct options *o, const char *const *paths, size_t npaths,
    struct core_err *err)
{
	struct core_csv_reader *rd = NULL;
	const struct core_schema *s;
	int delim, quote, dec, thou, rc;
	const char *n;
	bool header;
	uint32_t j;
	size_t l;
	char *spec;

	if ((rc = core_csv_reader_new(paths, npaths, &o->csv, &rd, err)) != 0)
		return rc;
	s = core_csv_reader_schema(rd);
	for (j = 0; j < s->ncols; j++) {
		n = s->fields[j].name;
		l = strlen(n);
		if (l == 0 || strchr(n, ',') != NULL || n[0] == ' ' ||
		    n[0] == '\t' || n[l - 1] == ' ' || n[l - 1] == '\t') {
			rc = core_err_set(err, CORE_EDATA, "--describe: column "
			    "%u's name '%s' cannot be written in a --schema "
			    "spec (a comma, or blanks at an end): name the "
			    "columns with --names", j + 1, n);
			core_csv_reader_free(rd);
			return rc;
		}
	}
	core_csv_reader_dialect(rd, &delim, &quote, &header);
	core_csv_reader_numfmt(rd, &dec, &thou);
	put_opt_char("-d", delim);
	if (quote == 0)
		fputs(" -q none", stdout);
	else
		put_opt_char("-q", quote);
	fputs(header ? " --header" : " --no-header", stdout);
	if (o->csv.encoding > CORE_ENC_UTF8)
		printf(" --encoding %s", core_csv_enc_name(o->csv.encoding));
	if (o->csv.skip_lines > 0)
		printf(" --skip %llu", (unsigned long long)o->csv.skip_lines);
	if (o->csv.comment > 0)
		put_opt_char("--comment", o->csv.comment);
	if (o->csv.names != NULL) {
		fputs(" --names ", stdout);
		put_word(o->csv.names);
	}
	if (o->csv.columns != NULL) {
		fputs(" --columns ", stdout);
		put_word(o->csv.columns);
	}
	if (o->csv.trim)
		fputs(" --trim", stdout);
	if (o->csv.null_padding)
		fputs(" --null-padding", stdout);
	if (dec == ',')
		fputs(" --decimal-comma", stdout);
	if (thou != 0)
		put_opt_char("--thousands", thou);
	for (size_t i = 0; i < o->nnulls; i++) {
		fputs(" -n ", stdout);
		put_word(o->nulls[i]);
	}
	if (o->csv.date_format != NULL) {
		fputs(" --date-format ", stdout);
		put_word(o->csv.date_format);
	}
	for (size_t i = 0; i < o->ndatefmts; i++) {
		fputs(" --date-format ", stdout);
		put_word(o->datefmts[i]);
	}
	if (o->csv.timestamp_format != NULL) {
		fputs(" --timestamp-format ", stdout);
		put_word(o->csv.timestamp_format);
	}
	if (s->ncols > 0) {
		spec = core_schema_describe(s);
		fputs(" -s ", stdout);
		put_word(spec);
		free(spec);
	}
	putchar('\n');
	core_csv_reader_free(rd);
	if (fflush(stdout) != 0 || ferror(stdout))
		return core_err_set(err, CORE_EIO, "stdout: write failed");
	return 0;
}

/* --rejects and -o naming one file (not yet there, so not caught as the
 * same inode) would have one replace the other. */
static int
same_name(const char *a, const char *b, struct core_err *err)
{
	char *ra, *rb;
	bool same;

	if (b == NULL || strcmp(b, "-") == 0)
		return 0;
	ra = core_path_resolve_links(a);
	rb = core_path_resolve_links(b);
	same = ra != NULL && rb != NULL && strcmp(ra, rb) == 0 &&
	    strncmp(ra, "/dev/", 5) != 0;
	free(ra);
	free(rb);
	if (same)
		return core_err_set(err, CORE_EUSAGE, "--rejects and -o name "
		    "the same file: %s", a);
	return 0;
}

int
main(int argc, char **argv)
{
	struct fe_out out, rej;
	struct core_output rejout;
	struct core_err err = { 0, "" }, err2 = { 0, "" };
	struct options o;
	const char *const *paths;
	const char **guarded = NULL;
	size_t npaths;
	int rc, rc2;

	fe_init(&tool);
	fe_out_zero(&out);
	fe_out_zero(&rej);
	if ((rc = parse_args(argc, argv, &o, &err)) != 0) {
		rc = fe_usage_fail(&err);
		goto done;
	}
	paths = (const char *const *)argv + optind;
	npaths = (size_t)(argc - optind);
	if (o.describe) {
		rc = describe(&o, paths, npaths, &err);
		goto fail;
	}
	/* Neither output may be an input, nor the rejects the data. */
	guarded = core_xcalloc(npaths + 1, sizeof(*guarded));
	memcpy(guarded, paths, npaths * sizeof(*guarded));
	if ((rc = fe_out_open(&out, o.common.output, "MLSPILL3", paths,
	    npaths, &err)) != 0)
		goto fail;
	if (o.rejects != NULL) {
		if ((rc = same_name(o.rejects, o.common.output, &err)) != 0)
			goto fail;
		guarded[npaths] = out.is_stdout ? "-" : o.common.output;
		if ((rc = fe_out_open(&rej, o.rejects, NULL, guarded,
		    npaths + 1, &err)) != 0)
			goto fail;
		core_output_init(&rejout, rej.fd, rej.name, 1 << 16);
		o.csv.rejects = &rejout;
	}
	rc = run(&o, paths, npaths, &out, &err);
	if (o.rejects != NULL) {
		/* The rejects file is kept whatever happened to the data:
		 * it is the record of what was left out; but only whole
		 * (a failed write to it fails this flush). */
		rc2 = core_output_flush(&rejout, &err2);
		core_output_release(&rejout);
		if (rc2 == 0)
			rc2 = fe_out_commit(&rej, &err2);
		if (rc2 != 0 && rc == 0) {
			rc = rc2;
			err = err2;
		}
	}
	if (rc == 0)
		rc = fe_out_commit(&out, &err);
fail:
	fe_out_release(&out);
	fe_out_release(&rej);
	rc = fe_finish(rc, &err);
done:
	free(guarded);
	fe_common_release(&o.common);
	free(o.nulls);
	free(o.datefmts);
	return rc;
}
