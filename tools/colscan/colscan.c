/*
 * colscan - filter and project MLSPILL3 streams: SQL's WHERE and SELECT
 * list, LIMIT and count(*).
 *
 * Options and wiring only: the plan and the per-batch work are
 * core_scan (over the expression engine, core_expr_*), the framing
 * core_mlspill3.  Every mistake in an expression is reported before a
 * row is read.  Columns no expression reads and no output column shows
 * are not decoded (core_mlspill3_reader_want); --count with no filter
 * reads only record headers, seeking past the frame bodies of a file.
 * On any failure the output stream is left without its end-of-stream
 * record, so a downstream stage reports it as truncated.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core_col.h"
#include "core_io.h"
#include "core_mlspill3.h"
#include "core_scan.h"
#include "fe.h"

static void usage(FILE *fp);

static const struct fe_tool tool = {
	.name = "colscan",
	.opts = FE_OPT_OUTPUT | FE_OPT_COMPRESS,
	.usage = usage,
};

/* Everything the command line decides. */
struct options {
	struct fe_common common;	/* -o -z --stats --progress */
	const char *where;		/* borrowed argv, or NULL */
	const char *select;		/* borrowed argv, or NULL */
	uint64_t limit;
	bool has_limit;
	bool count;
	bool schema;
};

static void
usage(FILE *fp)
{
	fprintf(fp,
	    "usage: %s [options] [INPUT...]\n"
	    "Filter and project MLSPILL3 column streams (stdin, or each "
	    "INPUT; '-' is\nstdin) with SQL expressions.\n"
	    "\n"
	    "  -w, --where EXPR     keep the rows for which EXPR is true "
	    "(NULL is not)\n"
	    "  -s, --select LIST    output columns: *, * EXCLUDE (a, b), "
	    "names and\n"
	    "                       EXPR AS name, separated by commas "
	    "(default *)\n"
	    "  -n, --limit N        stop after N rows\n"
	    "  -c, --count          print the number of rows that pass, "
	    "as text\n"
	    "      --schema         print the output columns, one name:type "
	    "a line,\n"
	    "                       without reading any row\n",
	    tool.name);
	fe_usage_shared(fp);
	fprintf(fp, "\n"
	    "Exit status: 0 ok, 2 usage (a bad expression), 3 bad input or "
	    "a value\nerror (overflow, a failed cast), 5 I/O error.  See "
	    "colscan(1).\n");
}

enum { OPT_SCHEMA = 256 };

static int
option(void *arg, int c, const char *optarg, struct core_err *err)
{
	struct options *o = arg;

	switch (c) {
	case 'w':
		if (o->where != NULL)
			return core_err_set(err, CORE_EUSAGE, "--where given "
			    "twice: join the conditions with AND");
		o->where = optarg;
		break;
	case 's':
		if (o->select != NULL)
			return core_err_set(err, CORE_EUSAGE, "--select given "
			    "twice: give one list, separated by commas");
		o->select = optarg;
		break;
	case 'n':
		if (fe_parse_count("limit", optarg, &o->limit, err) != 0)
			return CORE_EUSAGE;
		o->has_limit = true;
		break;
	case 'c':
		o->count = true;
		break;
	case OPT_SCHEMA:
		o->schema = true;
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
		{ "where", required_argument, NULL, 'w' },
		{ "select", required_argument, NULL, 's' },
		{ "limit", required_argument, NULL, 'n' },
		{ "count", no_argument, NULL, 'c' },
		{ "schema", no_argument, NULL, OPT_SCHEMA },
		{ NULL, 0, NULL, 0 },
	};
	int rc;

	memset(o, 0, sizeof(*o));
	if ((rc = fe_parse(argc, argv, "w:s:n:c", longopts, option, o,
	    &o->common, err)) != 0)
		return rc;
	if (o->count && o->schema)
		return core_err_set(err, CORE_EUSAGE, "--count and --schema "
		    "cannot be combined");
	if ((o->count || o->schema) && o->common.zstd_level != 0)
		return core_err_set(err, CORE_EUSAGE, "%s prints text: -z "
		    "makes no sense with it", o->count ? "--count" :
		    "--schema");
	return 0;
}

/* The run: the reader, the plan, and what was read. */
struct run {
	const struct options *o;
	struct core_mlspill3_reader *rd;
	struct core_scan *scan;
	struct core_batch in;
	struct fe_progress *prog;
	uint64_t rows_out;
};

/* The plan's usage errors, naming the option the text came from. */
static int
plan(struct run *r, struct core_err *err)
{
	struct core_scan_spec spec;
	char which;
	int rc;

	spec.where = r->o->where;
	spec.select = r->o->select;
	rc = core_scan_new(&spec, core_mlspill3_reader_schema(r->rd),
	    &r->scan, &which, err);
	if (rc == CORE_EUSAGE) {
		struct core_err e = *err;

		core_err_set(err, CORE_EUSAGE, "%s: %s", which == 'w' ?
		    "--where" : "--select", e.msg);
	}
	return rc;
}

/* Reads the next batch and tells progress; 0, CORE_EOF or an error. */
static int
next(struct run *r, struct core_err *err)
{
	struct core_mlspill3_stats st;
	int rc;

	rc = core_mlspill3_reader_next(r->rd, &r->in, err);
	if (r->prog != NULL) {
		core_mlspill3_reader_stats(r->rd, &st);
		fe_progress_update(r->prog, st.rows, st.bytes);
	}
	if (rc == 0)
		core_scan_set_row_base(r->scan,
		    core_mlspill3_reader_file_rows(r->rd) - r->in.nrows + 1);
	return rc;
}

/* A row error names the input it is in: "FILE: row N: ...". */
static int
row_error(struct run *r, int rc, struct core_err *err)
{
	struct core_err e = *err;

	if (rc == CORE_EDATA)
		core_err_set(err, rc, "%s: %s",
		    core_mlspill3_reader_name(r->rd), e.msg);
	return rc;
}

/*
 * With a limit, the batch that reaches it is cut to its shortest prefix
 * that holds the want rows still wanted, so that no row past the limit
 * is evaluated: a value error there is not the user's concern.  Whether
 * a prefix holds them, or fails, only grows with its length, so a
 * bisection over counts of prefixes finds it; a failing prefix that
 * does not hold them ends in the row that fails, which the scan then
 * reports.  A filtered batch that does not reach the limit costs one
 * count more, only while fewer rows than a batch are wanted.
 */
static int
cut_to_limit(struct run *r, uint64_t want, struct core_err *err)
{
	uint32_t lo = 0, hi = r->in.nrows, mid, n;
	int rc;

	if (want >= r->in.nrows)
		return 0;
	if (!core_scan_has_filter(r->scan)) {
		r->in.nrows = (uint32_t)want;
		return 0;
	}
	rc = core_scan_count(r->scan, &r->in, &n, err);
	if (rc == 0 && n < want)
		return 0;
	if (rc != 0 && rc != CORE_EDATA)
		return rc;
	/* The prefix of lo rows does not hold them; that of hi rows holds
	 * them or fails. */
	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		r->in.nrows = mid;
		rc = core_scan_count(r->scan, &r->in, &n, err);
		if (rc == 0 && n < want)
			lo = mid;
		else if (rc == 0 || rc == CORE_EDATA)
			hi = mid;
		else
			return rc;
	}
	r->in.nrows = hi;
	return 0;
}

static int
run_count(struct run *r, const struct fe_out *out, struct core_err *err)
{
	uint64_t total = 0;
	char line[32];
	uint32_t n;
	int rc, len;

	if (!core_scan_has_filter(r->scan))
		core_mlspill3_reader_count_only(r->rd);
	else
		core_mlspill3_reader_want(r->rd, core_scan_needed(r->scan));
	while ((!r->o->has_limit || total < r->o->limit) &&
	    (rc = next(r, err)) == 0) {
		if ((r->o->has_limit && (rc = cut_to_limit(r, r->o->limit -
		    total, err)) != 0) ||
		    (rc = core_scan_count(r->scan, &r->in, &n, err)) != 0)
			return row_error(r, rc, err);
		total += n;
	}
	if (r->o->has_limit && total >= r->o->limit)
		total = r->o->limit;
	else if (rc != CORE_EOF)
		return rc;
	r->rows_out = total;
	len = snprintf(line, sizeof(line), "%" PRIu64 "\n", total);
	return core_write_all(out->fd, line, (size_t)len, out->name, err);
}

static int
run_schema(struct run *r, const struct fe_out *out, struct core_err *err)
{
	const struct core_schema *s = core_scan_schema(r->scan);
	char tn[CORE_TYPE_NAME_MAX];
	struct core_output o;
	uint32_t i;
	int rc;

	rc = 0;
	core_output_init(&o, out->fd, out->name, 0);
	for (i = 0; i < s->ncols && rc == 0; i++) {
		const char *t = core_type_name(s->fields[i].type, tn);

		if ((rc = core_output_write(&o, s->fields[i].name,
		    strlen(s->fields[i].name), err)) == 0 &&
		    (rc = core_output_write(&o, ":", 1, err)) == 0 &&
		    (rc = core_output_write(&o, t, strlen(t), err)) == 0)
			rc = core_output_write(&o, "\n", 1, err);
	}
	if (rc == 0)
		rc = core_output_flush(&o, err);
	core_output_release(&o);
	return rc;
}

static int
run_scan(struct run *r, const struct fe_out *out, struct core_err *err)
{
	const struct fe_common *c = &r->o->common;
	struct core_mlspill3_writer *w;
	const struct core_batch *b;
	struct core_batch part;
	int rc = 0;

	core_mlspill3_reader_want(r->rd, core_scan_needed(r->scan));
	w = core_mlspill3_writer_new(out->fd, out->name,
	    core_scan_schema(r->scan), c->zstd_level);
	/* One thread: an output batch views the reader's buffer, which
	 * the next read reuses, so a frame written behind the scan could
	 * overlap nothing but that read. */
	while (!(r->o->has_limit && r->rows_out >= r->o->limit)) {
		if ((rc = next(r, err)) != 0)
			break;
		if ((r->o->has_limit && (rc = cut_to_limit(r, r->o->limit -
		    r->rows_out, err)) != 0) ||
		    (rc = core_scan_batch(r->scan, &r->in, &b, err)) != 0) {
			rc = row_error(r, rc, err);
			break;
		}
		if (b->nrows == 0)
			continue;
		part = *b;
		if (r->o->has_limit && r->o->limit - r->rows_out < part.nrows)
			part.nrows = (uint32_t)(r->o->limit - r->rows_out);
		r->rows_out += part.nrows;
		if ((rc = core_mlspill3_write_batch(w, &part, err)) != 0)
			break;
	}
	if (rc == CORE_EOF || rc == 0)
		rc = core_mlspill3_writer_finish(w, err);
	core_mlspill3_writer_free(w);
	return rc;
}

static void
print_stats(const struct run *r)
{
	struct core_mlspill3_stats st;

	core_mlspill3_reader_stats(r->rd, &st);
	fprintf(stderr, "%s: %" PRIu64 " rows in, %" PRIu64 " rows out, "
	    "%" PRIu64 " frames, %" PRIu64 " streams, %.1f MB in, %.3f s, "
	    "peak memory %.1f MB\n", fe_prog(), st.rows, r->rows_out,
	    st.frames, st.streams, (double)st.bytes / 1e6, fe_elapsed(),
	    (double)fe_peak_rss() / 1e6);
}

static int
run(const struct options *o, const char *const *paths, size_t npaths,
    const struct fe_out *out, struct core_err *err)
{
	struct run r;
	int rc;

	memset(&r, 0, sizeof(r));
	r.o = o;
	if ((rc = core_mlspill3_reader_new(paths, npaths, &r.rd, err)) != 0)
		return rc;
	if ((rc = plan(&r, err)) != 0)
		goto out;
	core_batch_init(&r.in, core_mlspill3_reader_schema(r.rd));
	if (o->schema) {
		rc = run_schema(&r, out, err);
		goto out;
	}
	r.prog = fe_progress_new(o->common.progress,
	    core_paths_size(paths, npaths));
	if (o->count)
		rc = run_count(&r, out, err);
	else
		rc = run_scan(&r, out, err);
	fe_progress_free(r.prog);
	if (rc == 0 && o->common.stats)
		print_stats(&r);
out:
	core_batch_release(&r.in);
	core_scan_free(r.scan);
	core_mlspill3_reader_free(r.rd);
	return rc;
}

int
main(int argc, char **argv)
{
	struct core_err err = { 0, "" };
	struct options o;
	struct fe_out out;
	const char *const *paths;
	size_t npaths;
	int rc;

	fe_init(&tool);
	fe_out_zero(&out);
	if ((rc = parse_args(argc, argv, &o, &err)) != 0) {
		fe_common_release(&o.common);
		return fe_usage_fail(&err);
	}
	paths = (const char *const *)argv + optind;
	npaths = (size_t)(argc - optind);
	if ((rc = fe_refuse_tty_input(paths, npaths, &err)) != 0)
		goto out;
	if ((rc = fe_out_open(&out, o.common.output, o.count || o.schema ?
	    NULL : "MLSPILL3", paths, npaths, &err)) != 0)
		goto out;
	rc = run(&o, paths, npaths, &out, &err);
	if (rc == 0)
		rc = fe_out_commit(&out, &err);
out:
	fe_out_release(&out);
	fe_common_release(&o.common);
	return fe_finish(rc, &err);
}
