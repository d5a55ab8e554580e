/*
 * col2parquet - an MLSPILL3 column stream to a Parquet file, in one pass
 * with bounded memory.
 *
 * Options and wiring only: the stream reader is core_mlspill3, the file
 * writer core_parquet_write.  -o FILE goes through core_atomic, so FILE
 * appears (renamed over any old one) only after the whole input was read,
 * including its end-of-stream record, and the file was fsynced; on an
 * error or SIGINT/SIGTERM/SIGHUP the temporary file is removed.  "-o -"
 * streams the file to stdout, which Parquet's layout allows (the footer
 * comes last); a failed run then leaves output without a footer, which no
 * reader takes for a Parquet file.
 *
 * --dictionary COL=MODE names columns of the input, which is known only
 * once the first stream's schema was read: the names are resolved then,
 * before the writer starts, so an unknown name is a usage error that
 * leaves no output at all.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core_alloc.h"
#include "core_col.h"
#include "core_io.h"
#include "core_mlspill3.h"
#include "core_parquet_write.h"
#include "core_tool.h"

static const char *prog = "col2parquet";

/* A --dictionary COL=MODE: name points into argv, len bytes. */
struct col_dict {
	const char *name;
	size_t len;
	enum core_parquet_dict mode;
};

/* Everything the command line decides. */
struct options {
	struct core_parquet_options pq;	/* codec, sizes, dictionary */
	struct col_dict *col_dict;	/* owned, in command-line order */
	size_t ncol_dict;
	const char *output;		/* -o FILE, "-" for stdout */
	bool stats;			/* --stats */
	bool progress;			/* --progress */
};

static void
usage(FILE *fp)
{
	fprintf(fp,
	    "usage: %s -o FILE [options] [INPUT...]\n"
	    "Write MLSPILL3 column streams (stdin, or each INPUT; '-' is "
	    "stdin) as one\nParquet file.\n"
	    "\n"
	    "  -o, --output FILE        the Parquet file, written atomically; "
	    "'-' is stdout\n"
	    "  -c, --compression C      none, snappy (default), zstd[:LEVEL] "
	    "(default 3),\n"
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
	    "      --no-statistics      write no min/max/null statistics\n"
	    "  -j, --threads N          encoding threads, 1 or 2 (default: 2 "
	    "on 2+ cores)\n"
	    "      --stats              print rows, row groups, bytes and "
	    "time to stderr\n"
	    "      --progress           show progress when stderr is a "
	    "terminal\n"
	    "  -h, --help               show this help\n"
	    "      --version            show the version\n"
	    "\n"
	    "Exit status: 0 ok, 2 usage, 3 bad or truncated input, 4 a "
	    "Parquet limit,\n5 I/O error.  See col2parquet(1).\n", prog);
}

enum {
	OPT_RG_ROWS = 256, OPT_RG_BYTES, OPT_PAGE_BYTES, OPT_DICTIONARY,
	OPT_NO_STATISTICS, OPT_STATS, OPT_PROGRESS, OPT_VERSION,
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
	if (core_size_parse(s, out, err) != 0) {
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
parse_args(int argc, char **argv, struct options *o, struct core_err *err)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "compression", required_argument, NULL, 'c' },
		{ "row-group-rows", required_argument, NULL, OPT_RG_ROWS },
		{ "row-group-bytes", required_argument, NULL, OPT_RG_BYTES },
		{ "page-bytes", required_argument, NULL, OPT_PAGE_BYTES },
		{ "dictionary", required_argument, NULL, OPT_DICTIONARY },
		{ "no-statistics", no_argument, NULL, OPT_NO_STATISTICS },
		{ "threads", required_argument, NULL, 'j' },
		{ "stats", no_argument, NULL, OPT_STATS },
		{ "progress", no_argument, NULL, OPT_PROGRESS },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	int c;

	memset(o, 0, sizeof(*o));
	core_parquet_options_init(&o->pq);
	while ((c = getopt_long(argc, argv, "o:c:j:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o->output = optarg;
			break;
		case 'c':
			if (core_parquet_codec_parse(optarg, &o->pq, err) != 0)
				return CORE_EUSAGE;
			break;
		case OPT_RG_ROWS:
			if (core_tool_parse_count("--row-group-rows", optarg,
			    &v, err) != 0)
				return CORE_EUSAGE;
			if (v == 0 || v > INT32_MAX)
				return core_err_set(err, CORE_EUSAGE,
				    "--row-group-rows must be 1 to %d",
				    INT32_MAX);
			o->pq.row_group_rows = v;
			break;
		case OPT_RG_BYTES:
			if (parse_size("--row-group-bytes", optarg,
			    (uint64_t)1 << 40, &o->pq.row_group_bytes,
			    err) != 0)
				return CORE_EUSAGE;
			break;
		case OPT_PAGE_BYTES:
			if (parse_size("--page-bytes", optarg,
			    (uint64_t)1 << 30, &o->pq.page_bytes, err) != 0)
				return CORE_EUSAGE;
			break;
		case OPT_DICTIONARY:
			if (parse_dictionary(optarg, o, err) != 0)
				return CORE_EUSAGE;
			break;
		case OPT_NO_STATISTICS:
			o->pq.statistics = false;
			break;
		case 'j':
			if (core_tool_parse_threads(optarg, &o->pq.threads,
			    err) != 0)
				return CORE_EUSAGE;
			break;
		case OPT_STATS:
			o->stats = true;
			break;
		case OPT_PROGRESS:
			o->progress = true;
			break;
		case 'h':
			core_tool_exit_help(usage);
		case OPT_VERSION:
			core_tool_exit_version(prog);
		default:
			usage(stderr);
			exit(CORE_EXIT_USAGE);
		}
	}
	if (o->output == NULL)
		return core_err_set(err, CORE_EUSAGE,
		    "no output: give -o FILE (or -o - for stdout)");
	return 0;
}

/* Converts everything; returns 0 or a CORE_E* code with err set.  The
 * footer is written only after the input's last end-of-stream record. */
static int
run(const struct options *o, const char *const *paths, size_t npaths,
    struct core_output *out, struct core_tool_clock *clk,
    struct core_err *err)
{
	struct core_mlspill3_reader *rd = NULL;
	struct core_parquet_writer *w = NULL;
	struct core_parquet_options pq = o->pq;
	const struct core_schema *schema;
	enum core_parquet_dict *modes = NULL;
	struct core_parquet_stats ps;
	struct core_mlspill3_stats st;
	struct core_batch b;
	int rc;

	if ((rc = core_mlspill3_reader_new(paths, npaths, &rd, err)) != 0)
		return rc;
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
	while (rc == 0 && (rc = core_mlspill3_reader_next(rd, &b, err)) ==
	    0) {
		if ((rc = core_parquet_write_batch(w, &b, err)) != 0)
			break;
		core_mlspill3_reader_stats(rd, &st);
		core_tool_progress(clk, prog, st.rows, st.bytes);
	}
	if (rc == CORE_EOF)
		rc = core_parquet_writer_finish(w, err);
	core_tool_progress_end(clk);
	if (rc == 0 && o->stats) {
		core_mlspill3_reader_stats(rd, &st);
		core_parquet_writer_stats(w, &ps);
		fprintf(stderr, "%s: %llu rows, %llu row groups, %llu pages, "
		    "%llu dictionary chunks, %.1f MB in, %.1f MB out, "
		    "%.3f s, peak memory %.1f MB\n", prog,
		    (unsigned long long)ps.rows,
		    (unsigned long long)ps.row_groups,
		    (unsigned long long)ps.pages,
		    (unsigned long long)ps.dict_chunks, (double)st.bytes / 1e6,
		    (double)ps.bytes / 1e6, core_tool_elapsed(clk),
		    (double)core_tool_peak_rss() / 1e6);
	}
	core_parquet_writer_free(w);
	core_batch_release(&b);
	core_mlspill3_reader_free(rd);
	return rc;
}

int
main(int argc, char **argv)
{
	struct core_atomic atom = { .fd = -1 };
	struct core_tool_clock clk;
	struct core_output out;
	struct core_err err = { 0, "" };
	struct options o;
	bool to_stdout;
	int rc, fd = 1;

	core_tool_init_signals();
	if ((rc = parse_args(argc, argv, &o, &err)) != 0) {
		free(o.col_dict);
		core_err_print(prog, &err);
		fprintf(stderr, "Try '%s --help' for more information.\n",
		    prog);
		return CORE_EXIT_USAGE;
	}
	to_stdout = strcmp(o.output, "-") == 0;
	if (to_stdout && core_fd_is_tty(1)) {
		fprintf(stderr, "%s: refusing to write binary Parquet data to "
		    "a terminal\n%s: give -o FILE, or redirect stdout; to "
		    "read the input as text, pipe it into col2csv\n", prog,
		    prog);
		free(o.col_dict);
		return CORE_EXIT_USAGE;
	}
	core_tool_clock_start(&clk, o.progress);
	if (!to_stdout) {
		if ((rc = core_atomic_open(&atom, o.output, &err)) != 0) {
			free(o.col_dict);
			return core_tool_fail(prog, &err);
		}
		fd = atom.fd;
	}
	core_output_init(&out, fd, to_stdout ? "stdout" : o.output, 0);
	rc = run(&o, (const char *const *)argv + optind,
	    (size_t)(argc - optind), &out, &clk, &err);
	core_output_release(&out);
	free(o.col_dict);
	if (!to_stdout) {
		if (rc == 0)
			rc = core_atomic_commit(&atom, &err);
		core_atomic_release(&atom);
	}
	return core_tool_finish(prog, rc, &err);
}
