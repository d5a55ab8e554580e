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
#include <sys/ioctl.h>
#include <unistd.h>

#include "core_alloc.h"
#include "core_col.h"
#include "core_fmt.h"
#include "core_io.h"
#include "core_mlspill3.h"
#include "core_pool.h"
#include "fe.h"

static void usage(FILE *fp);

static const struct fe_tool tool = {
	.name = "col2csv",
	.opts = FE_OPT_OUTPUT | FE_OPT_THREADS,
	.max_threads = 2,
	.threads_help = "csv, tsv: format on N threads (default and most 2)",
	.usage = usage,
};

/* Everything the command line decides. */
struct options {
	struct fe_common common;	/* -o, --stats, --progress */
	struct core_fmt_options fmt;	/* format, header, delimiter */
	const char *format;		/* -f as given, for messages */
	bool delimiter_given;		/* -d: CSV only */
	bool no_header_given;		/* --no-header: not JSON Lines */
	bool wide;			/* --wide: never fit the table */
	uint64_t width;			/* --width N; 0 = not given */
	uint64_t limit;			/* --limit N rows ... */
	bool has_limit;			/* ... when given */
};

/* The most rows --limit buffers to size a table's columns from. */
#define SIZE_ROWS_MAX 100000

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
	    "  -d, --delimiter C    csv field delimiter (default ',')\n"
	    "      --limit N        write only the first N rows\n"
	    "      --wide           table: never fit the terminal's width\n"
	    "      --width N        table: fit N columns, terminal or not\n",
	    tool.name);
	fe_usage_shared(fp);
	fprintf(fp, "\n"
	    "Exit status: 0 ok, 2 usage, 3 bad or truncated input, 5 I/O "
	    "error.\n"
	    "See col2csv(1) and mlspill3(5).\n");
}

enum { OPT_NO_HEADER = 256, OPT_WIDE, OPT_WIDTH, OPT_LIMIT };

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
	case OPT_WIDE:
		o->wide = true;
		break;
	case OPT_WIDTH:
		if (fe_parse_count("--width", optarg, &o->width, err) != 0)
			return CORE_EUSAGE;
		if (o->width < 8 || o->width > 100000)
			return core_err_set(err, CORE_EUSAGE,
			    "--width must be 8 to 100000");
		break;
	case OPT_LIMIT:
		if (fe_parse_count("--limit", optarg, &o->limit, err) != 0)
			return CORE_EUSAGE;
		o->has_limit = true;
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
		{ "wide", no_argument, NULL, OPT_WIDE },
		{ "width", required_argument, NULL, OPT_WIDTH },
		{ "limit", required_argument, NULL, OPT_LIMIT },
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
	if ((o->wide || o->width != 0) && o->fmt.kind != CORE_FMT_TABLE)
		return core_err_set(err, CORE_EUSAGE, "%s has no effect with "
		    "-f %s: only a table is fitted to a width (-f table)",
		    o->wide ? "--wide" : "--width", o->format ? o->format :
		    "csv");
	if (o->wide && o->width != 0)
		return core_err_set(err, CORE_EUSAGE, "--wide and --width "
		    "contradict each other: give one");
	return 0;
}

/* The width a table is fitted to: --width, else on a terminal $COLUMNS
 * (as ls(1) reads it) or the terminal's own; 0 = not fitted. */
static size_t
table_width(const struct options *o, int fd)
{
	struct winsize ws;
	const char *env;
	long v;

	if (o->width != 0)
		return (size_t)o->width;
	if (o->wide || o->fmt.kind != CORE_FMT_TABLE || !isatty(fd))
		return 0;
	if ((env = getenv("COLUMNS")) != NULL && (v = atol(env)) >= 8)
		return (size_t)v;
	if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 8)
		return ws.ws_col;
	return 80;
}

/* What the threads of a CSV or TSV conversion read from. */
struct source {
	struct core_mlspill3_reader *rd;
	struct fe_progress *prog;
	uint64_t left;			/* rows still to write (--limit) */
};

/* core_fmt_par_write's next batch: the reader's, cut to --limit. */
static int
source_next(void *arg, struct core_batch *b, struct core_err *err)
{
	struct source *src = arg;
	struct core_mlspill3_stats st;
	int rc;

	if (src->left == 0)
		return CORE_EOF;
	if ((rc = core_mlspill3_reader_next(src->rd, b, err)) != 0)
		return rc;
	if (b->nrows > src->left)
		b->nrows = (uint32_t)src->left;
	src->left -= b->nrows;
	core_mlspill3_reader_stats(src->rd, &st);
	fe_progress_update(src->prog, st.rows, st.bytes);
	return 0;
}

/* Runs the whole conversion; returns 0 or a CORE_E* code with err set. */
static int
run(const struct options *o, const char *const *paths, size_t npaths,
    struct core_output *out, struct core_pool *pool, struct core_err *err)
{
	struct core_mlspill3_reader *rd = NULL;
	struct core_mlspill3_stats st;
	struct core_fmt_options fo = o->fmt;
	struct core_fmt *fmt = NULL;
	struct fe_progress *prog;
	struct core_batch b, *held = NULL, *cur;
	const struct core_schema *schema;
	uint64_t left = o->has_limit ? o->limit : UINT64_MAX;
	/* A bounded table is sized from all its rows: they are read
	 * before the first is written.  Unbounded (| head is not
	 * knowable), from the first frame. */
	bool size_all = o->fmt.kind == CORE_FMT_TABLE && o->has_limit &&
	    o->limit <= SIZE_ROWS_MAX;
	size_t nheld = 0, i;
	int rc = 0;

	if ((rc = core_mlspill3_reader_new(paths, npaths, &rd, err)) != 0)
		return rc;
	schema = core_mlspill3_reader_schema(rd);
	prog = fe_progress_new(o->common.progress,
	    core_paths_size(paths, npaths));
	core_batch_init(&b, schema);
	fo.max_width = table_width(o, out->fd);
	fo.hidden_hint = "; --wide shows them";
	if (pool != NULL && (fo.kind == CORE_FMT_CSV ||
	    fo.kind == CORE_FMT_TSV)) {
		struct source src = { rd, prog, left };

		core_mlspill3_reader_keep_last(rd);
		rc = core_fmt_par_write(&fo, schema, out, pool, source_next,
		    &src, err);
		goto done;
	}
	fmt = core_fmt_new(&fo, schema, out);
	while (left > 0) {
		cur = &b;
		if (size_all) {
			held = core_xreallocarray(held, nheld + 1,
			    sizeof(*held));
			cur = &held[nheld];
			core_batch_init(cur, schema);
		}
		if ((rc = core_mlspill3_reader_next(rd, cur, err)) != 0) {
			if (size_all)
				core_batch_release(cur);
			break;
		}
		if (cur->nrows > left)
			cur->nrows = (uint32_t)left;
		left -= cur->nrows;
		if (size_all) {
			core_fmt_measure(fmt, cur);
			nheld++;
		} else if ((rc = core_fmt_write_batch(fmt, cur, err)) != 0) {
			break;
		}
		core_mlspill3_reader_stats(rd, &st);
		fe_progress_update(prog, st.rows, st.bytes);
	}
	/* --limit reached: the rest is not read, as head(1) reads no
	 * further. */
	if (rc == 0 && left == 0)
		rc = CORE_EOF;
	for (i = 0; i < nheld && rc == CORE_EOF; i++)
		if ((rc = core_fmt_write_batch(fmt, &held[i], err)) == 0)
			rc = CORE_EOF;
	for (i = 0; i < nheld; i++)
		core_batch_release(&held[i]);
	free(held);
	if (rc == CORE_EOF)
		rc = core_fmt_finish(fmt, err);
done:
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
	struct core_pool *pool = NULL;
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
	/* Formatting is most of the work; the reader and the writes are
	 * shared in turn.  JSON Lines and the table stay on one thread. */
	if (o.common.threads != 1)
		pool = core_pool_new(core_pool_default(o.common.threads, 2));
	rc = run(&o, paths, npaths, &out, pool, &err);
	core_pool_free(pool);
	core_output_release(&out);
	if (rc == 0)
		rc = fe_out_commit(&dst, &err);
out:
	fe_out_release(&dst);
	fe_common_release(&o.common);
	return fe_finish(rc, &err);
}
