/*
 * col2parquet - an MLSPILL3 column stream to a Parquet file, in one pass
 * with bounded memory.
 *
 * Options and wiring only: the stream reader is core_mlspill3, the file
 * writer core_parquet_write.  -o FILE goes through the front end's opener
 * (fe_out_open, core_outfile), so a regular FILE
 * appears (renamed over any old one) only after the whole input was read,
 * including its end-of-stream record, and the file was fsynced; on an
 * error or any signal, SIGKILL included, nothing is left.  "-o -"
 * streams the file to stdout, which Parquet's layout allows (the footer
 * comes last); a failed run then leaves output without a footer, which no
 * reader takes for a Parquet file.
 *
 * --dictionary COL=MODE names columns of the input, which is known only
 * once the first stream's schema was read: the names are resolved then,
 * before the writer starts, so an unknown name is a usage error that
 * leaves no output at all.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core_alloc.h"
#include "core_col.h"
#include "core_io.h"
#include "core_mlspill3.h"
#include "core_parquet_write.h"
#include "fe.h"

static void usage(FILE *fp);

static const struct fe_tool tool = {
	.name = "col2parquet",
	.opts = FE_OPT_OUTPUT | FE_OPT_THREADS,
	.max_threads = 2,
	.threads_help = "encoding threads (default and most: 2)",
	.usage = usage,
	.output_help = "the Parquet file (required; '-' is stdout); a\n"
	    "regular file is replaced only when complete",
	.help_width = 27,
};

/* A --dictionary COL=MODE: name points into argv, len bytes. */
struct col_dict {
	const char *name;
	size_t len;
	enum core_parquet_dict mode;
};

/* Everything the command line decides. */
struct options {
	struct fe_common common;	/* -o, -j, --stats, --progress */
	struct core_parquet_options pq;	/* codec, sizes, dictionary */
	struct col_dict *col_dict;	/* owned, in command-line order */
	size_t ncol_dict;
};

static void
usage(FILE *fp)
{
	fprintf(fp,
	    "usage: %s -o FILE [options] [INPUT...]\n"
	    "Write MLSPILL3 column streams (stdin, or each INPUT; '-' is "
	    "stdin) as one\nParquet file.\n"
	    "\n"
	    "  -c, --compression C      none, snappy (default), zstd[:LEVEL] "
	    "(default 1),\n"
	    "                           gzip[:LEVEL] (default 6)\n"
	    "      --row-group-rows N   rows per row group (default "
	    "262144)\n"
	    "      --row-group-bytes S  buffered bytes per row group "
	    "(default 32M)\n"
	    "      --page-bytes S       PLAIN bytes per data page (default "
	    "1M)\n"
	    "      --dictionary MODE    auto (default), on or off: every "
	    "column's\n"
	    "      --dictionary COL=MODE\n"
	    "                           column COL's, over the global MODE; "
	    "repeatable,\n"
	    "                           the last for a column wins\n"
	    "      --no-statistics      write no statistics (min, max, NULL "
	    "count)\n"
	    "      --utc-timestamps     timestamps are UTC instants "
	    "(isAdjustedToUTC);\n"
	    "                           default: zone-less wall-clock "
	    "values\n",
	    tool.name);
	fe_usage_shared(fp);
	fprintf(fp, "\n"
	    "Exit status: 0 ok, 2 usage, 3 bad or truncated input, 4 a "
	    "Parquet limit,\n5 I/O error.  See col2parquet(1).\n");
}

enum {
	OPT_RG_ROWS = 256, OPT_RG_BYTES, OPT_PAGE_BYTES, OPT_DICTIONARY,
	OPT_NO_STATISTICS,
	OPT_UTC_TIMESTAMPS,
};

static int
parse_dict_mode(const char *s, enum core_parquet_dict *mode)
{
	if (strcmp(s, "auto") == 0)
		*mode = CORE_PARQUET_DICT_AUTO;
	else if (strcmp(s, "on") == 0)
		*mode = CORE_PARQUET_DICT_ON;
	else if (strcmp(s, "off") == 0)
		*mode = CORE_PARQUET_DICT_OFF;
	else
		return -1;
	return 0;
}

/* --dictionary MODE or COL=MODE.  A column name may hold '=' itself:
 * the last one starts the mode, which never has one. */
static int
parse_dictionary(const char *arg, struct options *o, struct core_err *err)
{
	const char *eq = strrchr(arg, '=');
	struct col_dict *d;

	if (eq == NULL) {
		if (parse_dict_mode(arg, &o->pq.dict) != 0)
			return core_err_set(err, CORE_EUSAGE,
			    "--dictionary must be auto, on or off, or "
			    "COL=auto|on|off, not '%s'", arg);
		return 0;
	}
	if (eq == arg)
		return core_err_set(err, CORE_EUSAGE,
		    "--dictionary %s: no column name before '='", arg);
	o->col_dict = core_xreallocarray(o->col_dict, o->ncol_dict + 1,
	    sizeof(*o->col_dict));
	d = &o->col_dict[o->ncol_dict];
	if (parse_dict_mode(eq + 1, &d->mode) != 0)
		return core_err_set(err, CORE_EUSAGE,
		    "--dictionary %s: the mode must be auto, on or off", arg);
	d->name = arg;
	d->len = (size_t)(eq - arg);
	o->ncol_dict++;
	return 0;
}

/* Every column's mode: the global one, then each COL=MODE in command-line
 * order over it, so a column named twice gets the last.  (Every column of
 * that name, should the schema have several.)  CORE_EUSAGE for a name
 * that is no column of the schema. */
static int
resolve_dictionary(const struct options *o, const struct core_schema *s,
    enum core_parquet_dict *modes, struct core_err *err)
{
	const struct col_dict *d;
	uint32_t i;
	size_t k;
	bool found;

	for (i = 0; i < s->ncols; i++)
		modes[i] = o->pq.dict;
	for (k = 0; k < o->ncol_dict; k++) {
		d = &o->col_dict[k];
		found = false;
		for (i = 0; i < s->ncols; i++)
			if (strlen(s->fields[i].name) == d->len &&
			    memcmp(s->fields[i].name, d->name, d->len) == 0) {
				modes[i] = d->mode;
				found = true;
			}
		if (!found)
			return core_err_set(err, CORE_EUSAGE,
			    "--dictionary %s: the input has no column "
			    "'%.*s'", d->name, (int)d->len, d->name);
	}
	return 0;
}

/* A size option: at least 1 byte, at most 1 GiB for pages (a Parquet page
 * is limited to 2 GiB and may pass page_bytes by one value). */
static int
parse_size(const char *opt, const char *s, uint64_t max, uint64_t *out,
    struct core_err *err)
{
	if (fe_parse_size(s, out, err) != 0) {
		core_err_prefix(err, opt);
		return CORE_EUSAGE;
	}
	if (*out == 0 || *out > max)
		return core_err_set(err, CORE_EUSAGE,
		    "%s must be 1 to %llu bytes", opt,
		    (unsigned long long)max);
	return 0;
}

static int
option(void *arg, int c, const char *optarg, struct core_err *err)
{
	struct options *o = arg;
	uint64_t v;

	switch (c) {
	case 'c':
		if (core_parquet_codec_parse(optarg, &o->pq, err) != 0)
			return CORE_EUSAGE;
		break;
	case OPT_RG_ROWS:
		if (fe_parse_count("--row-group-rows", optarg, &v, err) != 0)
			return CORE_EUSAGE;
		if (v == 0 || v > INT32_MAX)
			return core_err_set(err, CORE_EUSAGE,
			    "--row-group-rows must be 1 to %d", INT32_MAX);
		o->pq.row_group_rows = v;
		break;
	case OPT_RG_BYTES:
		if (parse_size("--row-group-bytes", optarg, (uint64_t)1 << 40,
		    &o->pq.row_group_bytes, err) != 0)
			return CORE_EUSAGE;
		break;
	case OPT_PAGE_BYTES:
		if (parse_size("--page-bytes", optarg, (uint64_t)1 << 30,
		    &o->pq.page_bytes, err) != 0)
			return CORE_EUSAGE;
		break;
	case OPT_DICTIONARY:
		if (parse_dictionary(optarg, o, err) != 0)
			return CORE_EUSAGE;
		break;
	case OPT_NO_STATISTICS:
		o->pq.statistics = false;
		break;
	case OPT_UTC_TIMESTAMPS:
		o->pq.timestamps_utc = true;
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
		{ "compression", required_argument, NULL, 'c' },
		{ "row-group-rows", required_argument, NULL, OPT_RG_ROWS },
		{ "row-group-bytes", required_argument, NULL, OPT_RG_BYTES },
		{ "page-bytes", required_argument, NULL, OPT_PAGE_BYTES },
		{ "dictionary", required_argument, NULL, OPT_DICTIONARY },
		{ "no-statistics", no_argument, NULL, OPT_NO_STATISTICS },
		{ "utc-timestamps", no_argument, NULL, OPT_UTC_TIMESTAMPS },
		{ NULL, 0, NULL, 0 },
	};
	int rc;

	memset(o, 0, sizeof(*o));
	core_parquet_options_init(&o->pq);
	if ((rc = fe_parse(argc, argv, "c:", longopts, option, o, &o->common,
	    err)) != 0)
		return rc;
	if (o->common.threads != 0)
		o->pq.threads = o->common.threads;
	if (o->common.output == NULL)
		return core_err_set(err, CORE_EUSAGE,
		    "no output: give -o FILE (or -o - for stdout)");
	return 0;
}

/* Converts everything; returns 0 or a CORE_E* code with err set.  The
 * footer is written only after the input's last end-of-stream record. */
static int
run(const struct options *o, const char *const *paths, size_t npaths,
    struct core_output *out, struct core_err *err)
{
	struct core_mlspill3_reader *rd = NULL;
	struct core_parquet_writer *w = NULL;
	struct core_parquet_options pq = o->pq;
	const struct core_schema *schema;
	enum core_parquet_dict *modes = NULL;
	struct core_parquet_stats ps;
	struct core_mlspill3_stats st;
	struct fe_progress *prog;
	struct core_batch b;
	int rc;

	if ((rc = core_mlspill3_reader_new(paths, npaths, &rd, err)) != 0)
		return rc;
	prog = fe_progress_new(o->common.progress,
	    core_paths_size(paths, npaths));
	schema = core_mlspill3_reader_schema(rd);
	core_batch_init(&b, schema);
	if (o->ncol_dict > 0) {
		modes = core_xreallocarray(NULL, schema->ncols ?
		    schema->ncols : 1, sizeof(*modes));
		rc = resolve_dictionary(o, schema, modes, err);
		pq.col_dict = modes;
	}
	if (rc == 0)
		rc = core_parquet_writer_new(out, schema, &pq, &w, err);
	free(modes);
	/* The input is read ahead on the encoding helper (which joins the
	 * encoding once the frame is read): the frames' reading and
	 * checking no longer wait for the encoding, nor it for them. */
	if (rc == 0)
		core_mlspill3_reader_read_ahead(rd,
		    core_parquet_writer_pool(w));
	while (rc == 0 && (rc = core_mlspill3_reader_next(rd, &b, err)) ==
	    0) {
		if ((rc = core_parquet_write_batch(w, &b, err)) != 0)
			break;
		core_mlspill3_reader_stats(rd, &st);
		fe_progress_update(prog, st.rows, st.bytes);
	}
	if (rc == CORE_EOF)
		rc = core_parquet_writer_finish(w, err);
	fe_progress_free(prog);
	if (rc == 0 && o->common.stats) {
		core_mlspill3_reader_stats(rd, &st);
		core_parquet_writer_stats(w, &ps);
		fprintf(stderr, "%s: %llu rows, %llu row groups, %llu pages, "
		    "%llu dictionary chunks, %.1f MB in, %.1f MB out, "
		    "%.3f s, peak memory %.1f MB\n", fe_prog(),
		    (unsigned long long)ps.rows,
		    (unsigned long long)ps.row_groups,
		    (unsigned long long)ps.pages,
		    (unsigned long long)ps.dict_chunks, (double)st.bytes / 1e6,
		    (double)ps.bytes / 1e6, fe_elapsed(),
		    (double)fe_peak_rss() / 1e6);
	}
	/* The reader first: a read ahead may be under way on w's pool. */
	core_mlspill3_reader_free(rd);
	core_parquet_writer_free(w);
	core_batch_release(&b);
	return rc;
}

int
main(int argc, char **argv)
{
	struct core_err err = { 0, "" };
	struct core_output out;
	struct options o;
	struct fe_out dst;
	const char *const *paths;
	size_t npaths;
	int rc;

	fe_init(&tool);
	fe_out_zero(&dst);
	if ((rc = parse_args(argc, argv, &o, &err)) != 0) {
		free(o.col_dict);
		fe_common_release(&o.common);
		return fe_usage_fail(&err);
	}
	paths = (const char *const *)argv + optind;
	npaths = (size_t)(argc - optind);
	if ((rc = fe_refuse_tty_input(paths, npaths, &err)) != 0 ||
	    (rc = fe_out_open(&dst, o.common.output, "Parquet", paths, npaths,
	    &err)) != 0)
		goto out;
	core_output_init(&out, dst.fd, dst.name, 0);
	rc = run(&o, paths, npaths, &out, &err);
	core_output_release(&out);
	if (rc == 0)
		rc = fe_out_commit(&dst, &err);
out:
	fe_out_release(&dst);
	free(o.col_dict);
	fe_common_release(&o.common);
	return fe_finish(rc, &err);
}
