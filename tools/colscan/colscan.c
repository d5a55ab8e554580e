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
#include <sys/stat.h>

#include "core_alloc.h"
#include "core_col.h"
#include "core_io.h"
#include "core_mlspill3.h"
#include "core_pool.h"
#include "core_scan.h"
#include "core_source.h"
#include "fe.h"

static void usage(FILE *fp);

static const struct fe_tool tool = {
	.name = "colscan",
	.opts = FE_OPT_OUTPUT | FE_OPT_THREADS | FE_OPT_COMPRESS,
	.max_threads = 2,
	.threads_help = "decode Parquet columns on N threads\n"
	    "(default and most: 2)",
	.usage = usage,
};

/* Everything the command line decides. */
struct options {
	struct fe_common common;	/* -o -j -z --stats --progress */
	const char *where;		/* borrowed argv, or NULL */
	const char *select;		/* borrowed argv, or NULL */
	uint64_t limit;
	bool has_limit;
	bool count;
	bool schema;
	bool no_prune;
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
	    "                       without reading any row\n"
	    "      --no-prune       read every Parquet row group and page, "
	    "even those\n"
	    "                       whose statistics rule out every row\n",
	    tool.name);
	fe_usage_shared(fp);
	fprintf(fp, "\n"
	    "Exit status: 0 ok, 2 usage (a bad expression), 3 bad input or "
	    "a value\nerror (overflow, a failed cast), 5 I/O error.  See "
	    "colscan(1).\n");
}

enum { OPT_SCHEMA = 256, OPT_NO_PRUNE };

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
	case OPT_NO_PRUNE:
		o->no_prune = true;
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
		{ "no-prune", no_argument, NULL, OPT_NO_PRUNE },
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
	struct core_source *src;
	struct core_scan *scan;
	struct core_pool *pool;
	struct core_batch in;
	struct fe_progress *prog;
	uint64_t rows_out;
};

/* The plan's usage errors, naming the option the text came from. */
static int
plan(struct run *r, struct core_err *err)
{
	struct core_scan_spec spec;
	const char **names, **whys;
	uint32_t i, n = core_source_nunreadable(r->src);
	char which;
	int rc;

	names = core_xmalloc((n + 1) * sizeof(*names));
	whys = core_xmalloc((n + 1) * sizeof(*whys));
	for (i = 0; i < n; i++)
		names[i] = core_source_unreadable(r->src, i, &whys[i]);
	memset(&spec, 0, sizeof(spec));
	spec.where = r->o->where;
	spec.select = r->o->select;
	spec.unreadable = names;
	spec.unreadable_why = whys;
	spec.nunreadable = n;
	/* A count has no output columns: the select list is not planned
	 * (and a column no batch can hold does not matter). */
	spec.count_only = r->o->count && r->o->select == NULL;
	rc = core_scan_new(&spec, core_source_schema(r->src), &r->scan,
	    &which, err);
	free(names);
	free(whys);
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
	struct core_source_stats st;
	int rc;

	rc = core_source_next(r->src, &r->in, err);
	if (r->prog != NULL) {
		core_source_stats(r->src, &st);
		fe_progress_update(r->prog, st.rows, st.bytes);
	}
	if (rc == 0)
		core_scan_set_row_base(r->scan,
		    core_source_file_rows(r->src) - r->in.nrows + 1);
	return rc;
}

/* The filter between a Parquet batch's two halves: the rows that pass
 * are the only ones whose other strings are copied. */
static int
prefilter(void *arg, const struct core_batch *b, uint8_t *mask,
    struct core_err *err)
{
	struct run *r = arg;
	struct core_err e;
	int rc;

	core_scan_set_row_base(r->scan, core_source_file_rows(r->src) + 1);
	rc = core_scan_mark(r->scan, b, mask, err);
	if (rc == CORE_EDATA) {
		e = *err;
		core_err_set(err, rc, "%s: %s", core_source_name(r->src),
		    e.msg);
	}
	return rc;
}

/* A row error names the input it is in: "FILE: row N: ...". */
static int
row_error(struct run *r, int rc, struct core_err *err)
{
	struct core_err e = *err;

	if (rc == CORE_EDATA)
		core_err_set(err, rc, "%s: %s", core_source_name(r->src),
		    e.msg);
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

	if (!core_scan_has_filter(r->scan)) {
		rc = core_source_count(r->src, r->o->has_limit ? r->o->limit :
		    UINT64_MAX, &total, err);
		if (rc != 0)
			return rc;
		goto print;
	}
	core_source_want(r->src, core_scan_filter_needed(r->scan));
	if (!r->o->no_prune)
		core_source_prune(r->src, core_scan_prune(r->scan));
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
print:
	if (r->o->has_limit && total > r->o->limit)
		total = r->o->limit;
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

/* The identity scan: frames through as bytes (Parquet batches written
 * as usual).  w NULL: the source tees its input to the output, and
 * the frames are only read, to be checked. */
static int
run_raw(struct run *r, struct core_mlspill3_writer *w, struct core_err *err)
{
	struct core_source_stats st;
	const void *p;
	size_t len;
	uint32_t n;
	bool raw;
	int rc;

	while ((rc = core_source_next_raw(r->src, &r->in, &raw, &p, &len, &n,
	    err)) == 0) {
		if (r->prog != NULL) {
			core_source_stats(r->src, &st);
			fe_progress_update(r->prog, st.rows, st.bytes);
		}
		if (!raw)
			n = r->in.nrows;
		r->rows_out += n;
		if (w == NULL)
			continue;
		rc = raw ? core_mlspill3_write_raw(w, p, len, n, err) :
		    core_mlspill3_write_batch(w, &r->in, err);
		if (rc != 0)
			return rc;
	}
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

	core_source_want(r->src, core_scan_needed(r->scan));
	if (!r->o->no_prune)
		core_source_prune(r->src, core_scan_prune(r->scan));
	if (core_scan_has_filter(r->scan))
		core_source_prefilter(r->src, core_scan_filter_needed(r->scan),
		    prefilter, r);
	w = core_mlspill3_writer_new(out->fd, out->name,
	    core_scan_schema(r->scan), c->zstd_level);
	/* A stage that changes nothing passes MLSPILL3 frames on as they
	 * came, checked but neither decoded nor checksummed again. */
	if (core_scan_is_identity(r->scan) && !r->o->has_limit &&
	    c->zstd_level == 0) {
		rc = run_raw(r, w, err);
		goto finish;
	}
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
finish:
	if (rc == CORE_EOF || rc == 0)
		rc = core_mlspill3_writer_finish(w, err);
	core_mlspill3_writer_free(w);
	return rc;
}

static void
print_stats(const struct run *r)
{
	struct core_source_stats st;

	core_source_stats(r->src, &st);
	fprintf(stderr, "%s: %" PRIu64 " rows in, %" PRIu64 " rows out, "
	    "%" PRIu64 " inputs, %" PRIu64 " frames, %" PRIu64 " row groups "
	    "read, %" PRIu64 " skipped, %" PRIu64 " pages read, %" PRIu64
	    " skipped, %.1f MB in, %.3f s, peak memory %.1f MB\n", fe_prog(),
	    st.rows, r->rows_out, st.inputs, st.frames, st.row_groups,
	    st.row_groups_skipped, st.pages, st.pages_skipped,
	    (double)st.bytes / 1e6, fe_elapsed(),
	    (double)fe_peak_rss() / 1e6);
}

static bool
is_pipe(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode);
}

/*
 * A scan with nothing to do, from one pipe to another, has its input's
 * pages passed to the output by the kernel (core_source_open_tee) and
 * only reads them to check them: one copy of the data, not two.  The
 * output is then the input byte for byte, concatenated streams
 * included, which every reader takes as the one table colscan would
 * have written.
 */
static bool
can_tee(const struct options *o, const char *const *paths, size_t npaths,
    const struct fe_out *out)
{
	if (o->where != NULL || o->select != NULL || o->has_limit ||
	    o->count || o->schema || o->common.zstd_level != 0)
		return false;
	if (npaths > 1 || (npaths == 1 && strcmp(paths[0], "-") != 0))
		return false;
	return is_pipe(0) && is_pipe(out->fd);
}

static int
run(const struct options *o, const char *const *paths, size_t npaths,
    const struct fe_out *out, struct core_err *err)
{
	static const char *const stdin_path[] = { "-" };
	bool tee = can_tee(o, paths, npaths, out);
	struct run r;
	int rc;

	memset(&r, 0, sizeof(r));
	r.o = o;
	rc = tee ? core_source_open_tee(stdin_path, out->fd, out->name,
	    &r.src, err) : core_source_open(paths, npaths, &r.src, err);
	if (rc != 0)
		return rc;
	if (tee) {
		core_batch_init(&r.in, core_source_schema(r.src));
		r.prog = fe_progress_new(o->common.progress, 0);
		rc = run_raw(&r, NULL, err);
		if (rc == CORE_EOF)
			rc = 0;
		fe_progress_free(r.prog);
		if (rc == 0 && o->common.stats)
			print_stats(&r);
		goto out;
	}
	if ((rc = plan(&r, err)) != 0)
		goto out;
	core_batch_init(&r.in, core_source_schema(r.src));
	if (o->schema) {
		/* Only headers (MLSPILL3) or footers (Parquet) were read:
		 * the stats say so, with 0 rows. */
		rc = run_schema(&r, out, err);
		if (rc == 0 && o->common.stats)
			print_stats(&r);
		goto out;
	}
	r.prog = fe_progress_new(o->common.progress,
	    core_paths_size(paths, npaths));
	if (o->common.threads != 1) {
		r.pool = core_pool_new(core_pool_default(o->common.threads,
		    2));
		core_source_pool(r.src, r.pool);
	}
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
	core_source_free(r.src);
	core_pool_free(r.pool);
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
