/*
 * csv2col - CSV/TSV text (plain, compressed or in tar archives) to a typed
 * MLSPILL3 column stream.
 *
 * Options and wiring only: parsing, sniffing and type inference are
 * core_csv, the framing is core_mlspill3.  On any failure the stream is
 * left without its end-of-stream record, so every downstream stage reports
 * it as truncated instead of taking it for a short success.
 */
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core_alloc.h"
#include "core_col.h"
#include "core_csv.h"
#include "core_io.h"
#include "core_mlspill3.h"
#include "core_tool.h"

static const char *prog = "csv2col";

/* Everything the command line decides. */
struct options {
	struct core_csv_options csv;	/* dialect, schema, nulls, threads */
	const char **nulls;		/* owned array of borrowed argv */
	size_t nnulls;
	const char *output;		/* -o FILE, or NULL for stdout */
	const char *rejects;		/* --rejects FILE, or NULL */
	bool max_errors_set;
	int zstd_level;			/* -z: 0 = frames stored raw */
	bool stats;			/* --stats */
	bool progress;			/* --progress */
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
	    "  -d, --delimiter C    field delimiter: one character or 'tab' "
	    "(default: sniffed)\n"
	    "  -q, --quote C        quote character or 'none' (default: "
	    "sniffed)\n"
	    "      --header         the first line is a header\n"
	    "      --no-header      there is no header (columns c1, c2, "
	    "...)\n"
	    "  -s, --schema SPEC    pin column types: 'name:type,...' "
	    "(e.g. 'price:decimal(15,2)')\n"
	    "  -n, --null STR       an unquoted field equal to STR is NULL "
	    "(repeatable)\n"
	    "      --sample-rows N  rows sampled for type inference "
	    "(default 20480)\n"
	    "      --batch-rows N   rows per frame (default 8192)\n"
	    "  -j, --threads N      parser threads (default: all cores)\n"
	    "      --rejects FILE   write bad rows to FILE and go on\n"
	    "      --max-errors N   with --rejects: fail (exit 4) past N bad "
	    "rows\n"
	    "  -z, --compress[=L]   zstd-compress frame buffers (level L, "
	    "default 1)\n"
	    "  -o, --output FILE    write FILE atomically instead of stdout\n"
	    "      --stats          print rows, types, bytes and time to "
	    "stderr\n"
	    "      --progress       show progress when stderr is a terminal\n"
	    "  -h, --help           show this help\n"
	    "      --version        show the version\n"
	    "\n"
	    "Types: bool int32 int64 float64 decimal(p,s) date timestamp "
	    "string.\n"
	    "Exit status: 0 ok, 2 usage, 3 bad input, 4 too many rejected "
	    "rows,\n5 I/O error.  See csv2col(1) and mlspill3(5).\n", prog);
}

enum {
	OPT_HEADER = 256, OPT_NO_HEADER, OPT_SAMPLE_ROWS, OPT_BATCH_ROWS,
	OPT_REJECTS, OPT_MAX_ERRORS, OPT_STATS, OPT_PROGRESS, OPT_VERSION,
};

static int
parse_args(int argc, char **argv, struct options *o, struct core_err *err)
{
	static const struct option longopts[] = {
		{ "delimiter", required_argument, NULL, 'd' },
		{ "quote", required_argument, NULL, 'q' },
		{ "header", no_argument, NULL, OPT_HEADER },
		{ "no-header", no_argument, NULL, OPT_NO_HEADER },
		{ "schema", required_argument, NULL, 's' },
		{ "null", required_argument, NULL, 'n' },
		{ "sample-rows", required_argument, NULL, OPT_SAMPLE_ROWS },
		{ "batch-rows", required_argument, NULL, OPT_BATCH_ROWS },
		{ "threads", required_argument, NULL, 'j' },
		{ "rejects", required_argument, NULL, OPT_REJECTS },
		{ "max-errors", required_argument, NULL, OPT_MAX_ERRORS },
		{ "compress", optional_argument, NULL, 'z' },
		{ "output", required_argument, NULL, 'o' },
		{ "stats", no_argument, NULL, OPT_STATS },
		{ "progress", no_argument, NULL, OPT_PROGRESS },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	int c, ch;

	memset(o, 0, sizeof(*o));
	core_csv_options_init(&o->csv);
	while ((c = getopt_long(argc, argv, "d:q:s:n:j:z::o:h", longopts,
	    NULL)) != -1) {
		switch (c) {
		case 'd':
			if ((ch = core_tool_parse_char("delimiter", optarg,
			    false, err)) < 0)
				return CORE_EUSAGE;
			o->csv.delimiter = ch;
			break;
		case 'q':
			if ((ch = core_tool_parse_char("quote", optarg, true,
			    err)) < 0)
				return CORE_EUSAGE;
			o->csv.quote = ch;
			break;
		case OPT_HEADER:
			o->csv.header = 1;
			break;
		case OPT_NO_HEADER:
			o->csv.header = 0;
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
			if (core_tool_parse_count("--sample-rows", optarg, &v,
			    err) != 0)
				return CORE_EUSAGE;
			if (v == 0)
				return core_err_set(err, CORE_EUSAGE,
				    "--sample-rows must be at least 1");
			o->csv.sample_rows = v;
			break;
		case OPT_BATCH_ROWS:
			if (core_tool_parse_count("--batch-rows", optarg, &v,
			    err) != 0)
				return CORE_EUSAGE;
			if (v == 0 || v > (1u << 20))
				return core_err_set(err, CORE_EUSAGE,
				    "--batch-rows must be 1 to 1048576");
			o->csv.batch_rows = (uint32_t)v;
			break;
		case 'j':
			if (core_tool_parse_count("--threads", optarg, &v,
			    err) != 0)
				return CORE_EUSAGE;
			if (v == 0 || v > 256)
				return core_err_set(err, CORE_EUSAGE,
				    "--threads must be 1 to 256");
			o->csv.threads = (unsigned)v;
			break;
		case OPT_REJECTS:
			o->rejects = optarg;
			break;
		case OPT_MAX_ERRORS:
			if (core_tool_parse_count("--max-errors", optarg, &v,
			    err) != 0)
				return CORE_EUSAGE;
			o->csv.max_errors = v;
			o->max_errors_set = true;
			break;
		case 'z':
			o->zstd_level = 1;
			if (optarg != NULL) {
				if (core_tool_parse_count("--compress", optarg,
				    &v, err) != 0)
					return CORE_EUSAGE;
				if (v < 1 || v > 19)
					return core_err_set(err, CORE_EUSAGE,
					    "--compress level must be 1 to "
					    "19");
				o->zstd_level = (int)v;
			}
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
	if (o->max_errors_set && o->rejects == NULL)
		return core_err_set(err, CORE_EUSAGE,
		    "--max-errors needs --rejects FILE");
	if (o->rejects != NULL && !o->max_errors_set)
		o->csv.max_errors = UINT64_MAX;
	o->csv.nulls = o->nulls;
	o->csv.nnulls = o->nnulls;
	return 0;
}

static void
print_stats(const struct core_csv_reader *rd,
    const struct core_mlspill3_writer *w, const struct core_tool_clock *clk)
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
	fprintf(stderr, "%s: dialect: delimiter %s, quote %s, %s\n", prog,
	    delim == '\t' ? "tab" : (char[]){ '\'', (char)delim, '\'', 0 },
	    quote == 0 ? "none" : (char[]){ '\'', (char)quote, '\'', 0 },
	    header ? "header" : "no header");
	fprintf(stderr, "%s: schema: %s\n", prog, desc);
	fprintf(stderr, "%s: %llu rows, %llu rejected, %llu frames, "
	    "%.1f MB in, %.1f MB out, %.3f s, peak memory %.1f MB\n", prog,
	    (unsigned long long)cs.rows, (unsigned long long)cs.rejected,
	    (unsigned long long)ws.frames, (double)cs.bytes / 1e6,
	    (double)ws.bytes / 1e6, core_tool_elapsed(clk),
	    (double)core_tool_peak_rss() / 1e6);
	free(desc);
}

/* Converts everything; returns 0 or a CORE_E* code with err set.  The end
 * record is written only when every input was read without error. */
static int
run(struct options *o, const char *const *paths, size_t npaths, int fd,
    const char *outname, struct core_tool_clock *clk, struct core_err *err)
{
	struct core_mlspill3_writer *w = NULL;
	struct core_csv_reader *rd = NULL;
	struct core_csv_stats cs;
	struct core_batch b;
	int rc;

	if ((rc = core_csv_reader_new(paths, npaths, &o->csv, &rd, err)) != 0)
		return rc;
	w = core_mlspill3_writer_new(fd, outname, core_csv_reader_schema(rd),
	    o->zstd_level);
	core_batch_init(&b, core_csv_reader_schema(rd));
	while ((rc = core_csv_reader_next(rd, &b, err)) == 0) {
		if ((rc = core_mlspill3_write_batch(w, &b, err)) != 0)
			break;
		core_csv_reader_stats(rd, &cs);
		core_tool_progress(clk, prog, cs.rows, cs.bytes);
	}
	if (rc == CORE_EOF)
		rc = core_mlspill3_writer_finish(w, err);
	core_tool_progress_end(clk);
	if (o->stats && (rc == 0 || rc == CORE_ELIMIT || rc == CORE_EDATA))
		print_stats(rd, w, clk);
	core_batch_release(&b);
	core_mlspill3_writer_free(w);
	core_csv_reader_free(rd);
	return rc;
}

int
main(int argc, char **argv)
{
	struct core_atomic atom = { .fd = -1 }, rej = { .fd = -1 };
	struct core_output rejout;
	struct core_tool_clock clk;
	struct core_err err = { 0, "" }, err2 = { 0, "" };
	struct options o;
	int rc, rc2, fd = 1;

	core_tool_init_signals();
	if ((rc = parse_args(argc, argv, &o, &err)) != 0) {
		core_err_print(prog, &err);
		fprintf(stderr, "Try '%s --help' for more information.\n",
		    prog);
		free(o.nulls);
		return CORE_EXIT_USAGE;
	}
	if (o.output == NULL && core_tool_refuse_tty(prog, 1)) {
		free(o.nulls);
		return CORE_EXIT_USAGE;
	}
	core_tool_clock_start(&clk, o.progress);
	if (o.output != NULL) {
		if ((rc = core_atomic_open(&atom, o.output, &err)) != 0)
			goto out;
		fd = atom.fd;
	} else {
		core_fd_enlarge_pipe(1);
	}
	if (o.rejects != NULL) {
		if ((rc = core_atomic_open(&rej, o.rejects, &err)) != 0)
			goto out;
		core_output_init(&rejout, rej.fd, o.rejects, 1 << 16);
		o.csv.rejects = &rejout;
	}
	rc = run(&o, (const char *const *)argv + optind,
	    (size_t)(argc - optind), fd, o.output ? o.output : "stdout", &clk,
	    &err);
	if (o.rejects != NULL) {
		/* The rejects file is kept whatever happened to the data:
		 * it is the record of what was left out. */
		rc2 = core_output_flush(&rejout, &err2);
		core_output_release(&rejout);
		if (rc2 == 0)
			rc2 = core_atomic_commit(&rej, &err2);
		if (rc2 != 0 && rc == 0) {
			rc = rc2;
			err = err2;
		}
	}
	if (o.output != NULL && rc == 0)
		rc = core_atomic_commit(&atom, &err);
out:
	core_atomic_release(&atom);
	core_atomic_release(&rej);
	free(o.nulls);
	return core_tool_finish(prog, rc, &err);
}
