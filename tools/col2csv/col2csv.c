/*
 * col2csv - MLSPILL3 streams to CSV, TSV, JSON Lines or an aligned table.
 *
 * Options and wiring only: the stream reader is core_mlspill3, the text
 * formats are core_fmt.  Reads stdin or each FILE in turn; concatenated
 * streams and several files are one table and must share a schema.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core_col.h"
#include "core_fmt.h"
#include "core_io.h"
#include "core_mlspill3.h"
#include "fe.h"

static void usage(FILE *fp);

static const struct fe_tool tool = {
	.name = "col2csv",
	.opts = FE_OPT_OUTPUT,
	.usage = usage,
};

/* Everything the command line decides. */
struct options {
	struct fe_common common;	/* -o, --stats, --progress */
	struct core_fmt_options fmt;	/* format, header, delimiter */
	const char *format;		/* -f as given, for messages */
	bool delimiter_given;		/* -d: CSV only */
	bool no_header_given;		/* --no-header: not JSON Lines */
};

static void
usage(FILE *fp)
{
	fprintf(fp,
	    "usage: %s [options] [FILE...]\n"
	    "Print MLSPILL3 column streams (stdin, or each FILE; '-' is stdin)"
	    " as text.\n"
	    "\n"
	    "  -f, --format FMT     csv (default), tsv, jsonl or table\n"
	    "      --no-header      omit the header row (csv, tsv, table)\n"
	    "  -d, --delimiter C    csv field delimiter (default ',')\n",
	    tool.name);
	fe_usage_shared(fp);
	fprintf(fp, "\n"
	    "Exit status: 0 ok, 2 usage, 3 bad or truncated input, 5 I/O "
	    "error.\n"
	    "See col2csv(1) and mlspill3(5).\n");
}

enum { OPT_NO_HEADER = 256 };

static int
option(void *arg, int c, const char *optarg, struct core_err *err)
{
	struct options *o = arg;
	int d;

	switch (c) {
	case 'f':
		o->format = optarg;
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
			    "unknown format '%s' (csv, tsv, jsonl, table)",
			    optarg);
		break;
	case OPT_NO_HEADER:
		o->fmt.header = false;
		o->no_header_given = true;
		break;
	case 'd':
		d = fe_parse_char("delimiter", optarg, false, err);
		if (d < 0)
			return CORE_EUSAGE;
		if (d == '"')
			return core_err_set(err, CORE_EUSAGE,
			    "the delimiter cannot be the quote");
		o->fmt.delimiter = d;
		o->delimiter_given = true;
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
		{ "format", required_argument, NULL, 'f' },
		{ "no-header", no_argument, NULL, OPT_NO_HEADER },
		{ "delimiter", required_argument, NULL, 'd' },
		{ NULL, 0, NULL, 0 },
	};
	int rc;

	memset(o, 0, sizeof(*o));
	o->fmt.kind = CORE_FMT_CSV;
	o->fmt.header = true;
	o->fmt.delimiter = ',';
	if ((rc = fe_parse(argc, argv, "f:d:", longopts, option, o,
	    &o->common, err)) != 0)
		return rc;
	/* An option the format ignores would be a silent surprise. */
	if (o->delimiter_given && o->fmt.kind != CORE_FMT_CSV)
		return core_err_set(err, CORE_EUSAGE, "-d has no effect with "
		    "-f %s: only csv takes a delimiter (-f csv -d ';', or "
		    "-f csv -d tab for tabs with csv's quoting)", o->format);
	if (o->no_header_given && o->fmt.kind == CORE_FMT_JSONL)
		return core_err_set(err, CORE_EUSAGE, "--no-header has no "
		    "effect with -f %s: JSON Lines have no header row",
		    o->format);
	return 0;
}

/* Runs the whole conversion; returns 0 or a CORE_E* code with err set. */
static int
run(const struct options *o, const char *const *paths, size_t npaths,
    struct core_output *out, struct core_err *err)
{
	struct core_mlspill3_reader *rd = NULL;
	struct core_mlspill3_stats st;
	struct core_fmt *fmt = NULL;
	struct fe_progress *prog;
	struct core_batch b;
	int rc;

	if ((rc = core_mlspill3_reader_new(paths, npaths, &rd, err)) != 0)
		return rc;
	prog = fe_progress_new(o->common.progress,
	    core_paths_size(paths, npaths));
	core_batch_init(&b, core_mlspill3_reader_schema(rd));
	fmt = core_fmt_new(&o->fmt, core_mlspill3_reader_schema(rd), out);
	while ((rc = core_mlspill3_reader_next(rd, &b, err)) == 0) {
		if ((rc = core_fmt_write_batch(fmt, &b, err)) != 0)
			break;
		core_mlspill3_reader_stats(rd, &st);
		fe_progress_update(prog, st.rows, st.bytes);
	}
	if (rc == CORE_EOF)
		rc = core_fmt_finish(fmt, err);
	if (rc == 0)
		rc = core_output_flush(out, err);
	fe_progress_free(prog);
	core_mlspill3_reader_stats(rd, &st);
	if (rc == 0 && o->common.stats)
		fprintf(stderr, "%s: %llu rows, %llu frames, %llu streams, "
		    "%.1f MB in, %.1f MB out, %.3f s, peak memory %.1f MB\n",
		    fe_prog(), (unsigned long long)st.rows,
		    (unsigned long long)st.frames,
		    (unsigned long long)st.streams, (double)st.bytes / 1e6,
		    (double)out->nbytes / 1e6, fe_elapsed(),
		    (double)fe_peak_rss() / 1e6);
	core_fmt_free(fmt);
	core_batch_release(&b);
	core_mlspill3_reader_free(rd);
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
		fe_common_release(&o.common);
		return fe_usage_fail(&err);
	}
	paths = (const char *const *)argv + optind;
	npaths = (size_t)(argc - optind);
	if ((rc = fe_refuse_tty_input(paths, npaths, &err)) != 0 ||
	    (rc = fe_out_open(&dst, o.common.output, NULL, paths, npaths,
	    &err)) != 0)
		goto out;
	core_output_init(&out, dst.fd, dst.name, 0);
	rc = run(&o, paths, npaths, &out, &err);
	core_output_release(&out);
	if (rc == 0)
		rc = fe_out_commit(&dst, &err);
out:
	fe_out_release(&dst);
	fe_common_release(&o.common);
	return fe_finish(rc, &err);
}
