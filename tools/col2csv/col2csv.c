/*
 * col2csv - MLSPILL3 streams to CSV, TSV, JSON Lines or an aligned table.
 *
 * Options and wiring only: the stream reader is core_mlspill3, the text
 * formats are core_fmt.  Reads stdin or each FILE in turn; concatenated
 * streams and several files are one table and must share a schema.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core_col.h"
#include "core_fmt.h"
#include "core_io.h"
#include "core_mlspill3.h"
#include "core_tool.h"

static const char *prog = "col2csv";

/* Everything the command line decides. */
struct options {
	struct core_fmt_options fmt;	/* format, header, delimiter */
	const char *output;		/* -o FILE, or NULL for stdout */
	bool stats;			/* --stats */
	bool progress;			/* --progress */
};

static void
usage(FILE *fp)
{
	fprintf(fp,
	    "usage: %s [options] [FILE...]\n"
	    "Print MLSPILL3 column streams (stdin, or each FILE; '-' is stdin)"
	    " as text.\n"
	    "\n"
	    "  -f, --format FMT   csv (default), tsv, jsonl or table\n"
	    "      --no-header    omit the header row (csv, tsv, table)\n"
	    "  -d, --delimiter C  csv field delimiter (default ',')\n"
	    "  -o, --output FILE  write FILE atomically instead of stdout\n"
	    "      --stats        print rows, frames, bytes and time to "
	    "stderr\n"
	    "      --progress     show progress when stderr is a terminal\n"
	    "  -h, --help         show this help\n"
	    "      --version      show the version\n"
	    "\n"
	    "Exit status: 0 ok, 2 usage, 3 bad or truncated input, 5 I/O "
	    "error.\n"
	    "See col2csv(1) and mlspill3(5).\n", prog);
}

enum { OPT_NO_HEADER = 256, OPT_STATS, OPT_PROGRESS, OPT_VERSION };

static int
parse_args(int argc, char **argv, struct options *o, struct core_err *err)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "no-header", no_argument, NULL, OPT_NO_HEADER },
		{ "delimiter", required_argument, NULL, 'd' },
		{ "output", required_argument, NULL, 'o' },
		{ "stats", no_argument, NULL, OPT_STATS },
		{ "progress", no_argument, NULL, OPT_PROGRESS },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	int c, d;

	memset(o, 0, sizeof(*o));
	o->fmt.kind = CORE_FMT_CSV;
	o->fmt.header = true;
	o->fmt.delimiter = ',';
	while ((c = getopt_long(argc, argv, "f:d:o:h", longopts, NULL)) !=
	    -1) {
		switch (c) {
		case 'f':
			if (strcmp(optarg, "csv") == 0)
				o->fmt.kind = CORE_FMT_CSV;
			else if (strcmp(optarg, "tsv") == 0)
				o->fmt.kind = CORE_FMT_TSV;
			else if (strcmp(optarg, "jsonl") == 0 ||
			    strcmp(optarg, "ndjson") == 0)
				o->fmt.kind = CORE_FMT_JSONL;
			else if (strcmp(optarg, "table") == 0)
				o->fmt.kind = CORE_FMT_TABLE;
			else
				return core_err_set(err, CORE_EUSAGE,
				    "unknown format '%s' (csv, tsv, jsonl, "
				    "table)", optarg);
			break;
		case OPT_NO_HEADER:
			o->fmt.header = false;
			break;
		case 'd':
			d = core_tool_parse_char("delimiter", optarg, false,
			    err);
			if (d < 0)
				return CORE_EUSAGE;
			if (d == '"')
				return core_err_set(err, CORE_EUSAGE,
				    "the delimiter cannot be the quote");
			o->fmt.delimiter = d;
			break;
		case 'o':
			o->output = optarg;
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
	return 0;
}

/* Runs the whole conversion; returns 0 or a CORE_E* code with err set. */
static int
run(const struct options *o, const char *const *paths, size_t npaths,
    struct core_output *out, struct core_tool_clock *clk,
    struct core_err *err)
{
	struct core_mlspill3_reader *rd = NULL;
	struct core_mlspill3_stats st;
	struct core_fmt *fmt = NULL;
	struct core_batch b;
	int rc;

	if ((rc = core_mlspill3_reader_new(paths, npaths, &rd, err)) != 0)
		return rc;
	core_batch_init(&b, core_mlspill3_reader_schema(rd));
	fmt = core_fmt_new(&o->fmt, core_mlspill3_reader_schema(rd), out);
	while ((rc = core_mlspill3_reader_next(rd, &b, err)) == 0) {
		if ((rc = core_fmt_write_batch(fmt, &b, err)) != 0)
			break;
		core_mlspill3_reader_stats(rd, &st);
		core_tool_progress(clk, prog, st.rows, st.bytes);
	}
	if (rc == CORE_EOF)
		rc = core_fmt_finish(fmt, err);
	if (rc == 0)
		rc = core_output_flush(out, err);
	core_tool_progress_end(clk);
	core_mlspill3_reader_stats(rd, &st);
	if (rc == 0 && o->stats)
		fprintf(stderr, "%s: %llu rows, %llu frames, %llu streams, "
		    "%.1f MB in, %.1f MB out, %.3f s, peak memory %.1f MB\n",
		    prog, (unsigned long long)st.rows,
		    (unsigned long long)st.frames,
		    (unsigned long long)st.streams, (double)st.bytes / 1e6,
		    (double)out->nbytes / 1e6, core_tool_elapsed(clk),
		    (double)core_tool_peak_rss() / 1e6);
	core_fmt_free(fmt);
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
	int rc, fd = 1;

	core_tool_init_signals();
	if ((rc = parse_args(argc, argv, &o, &err)) != 0) {
		core_err_print(prog, &err);
		fprintf(stderr, "Try '%s --help' for more information.\n",
		    prog);
		return CORE_EXIT_USAGE;
	}
	core_tool_clock_start(&clk, o.progress);
	if (o.output != NULL) {
		if ((rc = core_atomic_open(&atom, o.output, &err)) != 0)
			return core_tool_fail(prog, &err);
		fd = atom.fd;
	}
	core_output_init(&out, fd, o.output ? o.output : "stdout", 0);
	rc = run(&o, (const char *const *)argv + optind,
	    (size_t)(argc - optind), &out, &clk, &err);
	core_output_release(&out);
	if (o.output != NULL) {
		if (rc == 0)
			rc = core_atomic_commit(&atom, &err);
		core_atomic_release(&atom);
	}
	return core_tool_finish(prog, rc, &err);
}
