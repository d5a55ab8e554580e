/*
 * colagg - group-by aggregation of MLSPILL3 streams and Parquet files
 * under a memory budget.
 *
 * Options and wiring only: the --by list and the aggregate calls are
 * planned by core_agg_query into a projection (core_scan) that filters
 * the rows by --where and evaluates the keys and the arguments, and a
 * core_agg spec; the hash aggregation
 * with its spill partitions is core_agg_hash; --having is one more
 * core_scan over the groups (its aggregate calls made columns by
 * core_agg_query, the hidden ones dropped by its select list); the inputs are core_source.  Every mistake
 * in the text is reported before a row is read.  On any failure the
 * output stream is left without its end-of-stream record, so a
 * downstream stage reports it as truncated.
 */
#include <ctype.h>
#include <inttypes.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core_agg.h"
#include "core_agg_query.h"
#include "core_ahead.h"
#include "core_alloc.h"
#include "core_col.h"
#include "core_io.h"
#include "core_mem.h"
#include "core_mlspill3.h"
#include "core_pool.h"
#include "core_scan.h"
#include "core_source.h"
#include "fe.h"

static void usage(FILE *fp);

static const struct fe_tool tool = {
	.name = "colagg",
	.opts = FE_OPT_OUTPUT | FE_OPT_THREADS | FE_OPT_COMPRESS |
	    FE_OPT_BUDGET,
	.max_threads = 2,
	.threads_help = "read the input ahead, decode Parquet columns\n"
	    "and aggregate spilled partitions on N threads\n"
	    "(default and most: 2)",
	.usage = usage,
};

/* Everything the command line decides. */
struct options {
	struct fe_common common;	/* -o -j -z -m -T --max-spill ... */
	const char *by;			/* borrowed argv, or NULL */
	const char *where;		/* borrowed argv, or NULL */
	const char *having;		/* borrowed argv, or NULL */
	bool sorted;
	const char **aggs;		/* owned array of borrowed argv */
	size_t naggs;
	const char **inputs;		/* owned array of borrowed argv */
	size_t ninputs;
};

static void
usage(FILE *fp)
{
	fprintf(fp,
	    "usage: %s [--by LIST] AGG... [options] [INPUT...]\n"
	    "Group the rows of MLSPILL3 streams or Parquet files (stdin, or "
	    "each INPUT;\n'-' is stdin) and aggregate each group, within a "
	    "memory budget.\n"
	    "Each AGG is FUNC(EXPR) [AS name], or several separated by "
	    "commas: count(*),\ncount, sum, avg, min, max, any_value, "
	    "var_samp, var_pop, stddev_samp,\nstddev_pop, stddev, bool_and, "
	    "bool_or, median, quantile_cont(EXPR, Q),\nquantile_disc(EXPR, Q) "
	    "(Q a number from 0 to 1), string_agg(EXPR[, 'SEP'])\n(the "
	    "group's strings in input order, joined by SEP, default ',').\n"
	    "FUNC(DISTINCT EXPR) takes each distinct value once (one DISTINCT "
	    "argument\nper run).\n"
	    "\n"
	    "  -b, --by LIST        group by these columns or EXPR AS name, "
	    "separated\n"
	    "                       by commas (default: one group, the whole "
	    "input)\n"
	    "  -w, --where EXPR     aggregate only the rows for which EXPR is "
	    "true (SQL's\n"
	    "                       WHERE: as colscan -w, without the pipe)\n"
	    "      --having EXPR    keep the groups for which EXPR, over the "
	    "output\n"
	    "                       columns and aggregate calls such as "
	    "sum(x), is true\n"
	    "      --sorted         the input is grouped by the keys (as "
	    "colsort -k\n"
	    "                       sorts it): aggregate as it streams, "
	    "groups in order\n", tool.name);
	fe_usage_shared(fp);
	fprintf(fp, "\n"
	    "Exit status: 0 ok, 2 usage (a bad expression), 3 bad input or a "
	    "value error\n(overflow), 4 --max-spill exceeded, 5 I/O error.  "
	    "See colagg(1).\n");
}

enum { OPT_HAVING = 256, OPT_SORTED };

static int
option(void *arg, int c, const char *optarg, struct core_err *err)
{
	struct options *o = arg;

	switch (c) {
	case 'b':
		if (o->by != NULL)
			return core_err_set(err, CORE_EUSAGE, "--by given "
			    "twice: give one list, separated by commas");
		o->by = optarg;
		break;
	case 'w':
		if (o->where != NULL)
			return core_err_set(err, CORE_EUSAGE, "--where given "
			    "twice: join the conditions with AND");
		o->where = optarg;
		break;
	case OPT_SORTED:
		o->sorted = true;
		break;
	case OPT_HAVING:
		if (o->having != NULL)
			return core_err_set(err, CORE_EUSAGE, "--having given "
			    "twice: join the conditions with AND");
		o->having = optarg;
		break;
	default:
		return core_err_set(err, CORE_EINTERNAL, "option %d", c);
	}
	return 0;
}

/*
 * Whether operand s is an aggregate: it starts with a name and '('.  A
 * file whose name looks so is still an input when no aggregate has that
 * name and the file exists ("./sum(1).col" is always a file).
 */
static bool
is_agg(const char *s)
{
	const char *p = s, *name;
	struct core_err e = { 0, "" };
	enum core_agg_fn fn;
	struct stat st;
	char buf[64];
	size_t n;

	while (isspace((unsigned char)*p))
		p++;
	name = p;
	while (isalnum((unsigned char)*p) || *p == '_')
		p++;
	n = (size_t)(p - name);
	while (isspace((unsigned char)*p))
		p++;
	if (n == 0 || *p != '(' || isdigit((unsigned char)*name))
		return false;
	if (n < sizeof(buf)) {
		memcpy(buf, name, n);
		buf[n] = '\0';
		if (core_agg_fn_parse(buf, &fn, &e) == 0)
			return true;
	}
	return stat(s, &st) != 0;
}

static int
parse_args(int argc, char **argv, struct options *o, struct core_err *err)
{
	static const struct option longopts[] = {
		{ "by", required_argument, NULL, 'b' },
		{ "where", required_argument, NULL, 'w' },
		{ "having", required_argument, NULL, OPT_HAVING },
		{ "sorted", no_argument, NULL, OPT_SORTED },
		{ NULL, 0, NULL, 0 },
	};
	int rc, i;

	memset(o, 0, sizeof(*o));
	if ((rc = fe_parse(argc, argv, "b:w:", longopts, option, o, &o->common,
	    err)) != 0)
		return rc;
	o->aggs = core_xmalloc((size_t)(argc - optind + 1) *
	    sizeof(*o->aggs));
	o->inputs = core_xmalloc((size_t)(argc - optind + 1) *
	    sizeof(*o->inputs));
	for (i = optind; i < argc; i++) {
		if (is_agg(argv[i]))
			o->aggs[o->naggs++] = argv[i];
		else
			o->inputs[o->ninputs++] = argv[i];
	}
	if (o->naggs == 0 && o->by == NULL)
		return core_err_set(err, CORE_EUSAGE, "nothing to compute: "
		    "give --by LIST or an aggregate such as 'count(*)'");
	return 0;
}

static void
options_release(struct options *o)
{
	free(o->aggs);
	free(o->inputs);
	fe_common_release(&o->common);
}

/* The run: inputs, the projection, the plan, the output. */
struct run {
	const struct options *o;
	struct core_source *src;
	struct core_scan *proj;		/* keys and arguments */
	struct core_scan *having;	/* over the groups, or NULL */
	struct core_agg_query *query;
	struct core_agg_plan *plan;
	struct core_batch in;
	struct core_mlspill3_writer *w;
	struct fe_progress *prog;
	/* With two threads: the input read and projected one batch ahead
	 * (produce on its thread), handed to the aggregation by next. */
	struct core_ahead *ahead;
	/* With it, the keys hashed there too once the aggregation wants
	 * them: the k-th batch's in hs[k % CORE_AHEAD_SLOTS], which the
	 * producer reaches only once the k - CORE_AHEAD_SLOTS'th is let go
	 * of (core_ahead.h). */
	struct core_agg_prehash *ph;
	struct core_agg_hashes hs[CORE_AHEAD_SLOTS];
	uint64_t nmade, nused;
	const struct core_agg_hashes *cur;
	uint64_t rows_out;
	char phase[40];
};

/* The text's mistakes, naming where the text came from. */
static int
plan(struct run *r, struct core_err *err)
{
	const struct options *o = r->o;
	struct core_scan_spec spec;
	struct core_err e;
	char which;
	int at, rc;

	rc = core_agg_query_new(o->by, o->aggs, o->naggs, o->having,
	    core_source_schema(r->src), &r->query, &at, err);
	if (rc != 0) {
		e = *err;
		if (at == -2)
			core_err_set(err, rc, "--having: %s", e.msg);
		else if (at < 0)
			core_err_set(err, rc, "--by: %s", e.msg);
		else
			core_err_set(err, rc, "'%s': %s", o->aggs[at], e.msg);
		return rc;
	}
	memset(&spec, 0, sizeof(spec));
	spec.where = o->where;
	spec.select = core_agg_query_select(r->query);
	if ((rc = core_scan_new(&spec, core_source_schema(r->src), &r->proj,
	    &which, err)) != 0) {
		if (which == 'w') {
			e = *err;
			core_err_set(err, rc, "--where: %s", e.msg);
		}
		return rc;
	}
	if ((rc = core_agg_plan_new(core_agg_query_spec(r->query),
	    core_scan_schema(r->proj), &r->plan, err)) != 0)
		return rc;
	if (o->having != NULL) {
		memset(&spec, 0, sizeof(spec));
		spec.where = core_agg_query_having(r->query);
		spec.select = core_agg_query_visible(r->query);
		rc = core_agg_query_having_check(r->query, r->plan->out, err);
		if (rc == 0)
			rc = core_scan_new(&spec, r->plan->out, &r->having,
			    &which, err);
		if (rc != 0) {
			e = *err;
			core_err_set(err, rc, "--having: %s", e.msg);
			return rc;
		}
	}
	return 0;
}

/*
 * The next batch of the input, projected (and filtered by --where), as
 * core_ahead's producer: tag is the source's rows and bytes so far, for
 * --progress, which is drawn by the aggregation's thread.
 */
static int
produce(void *arg, const struct core_batch **out, uint64_t tag[2],
    struct core_err *err)
{
	struct run *r = arg;
	const struct core_batch *p;
	struct core_source_stats st;
	struct core_err e;
	int rc;

	do {
		if ((rc = core_source_next(r->src, &r->in, err)) != 0)
			return rc;
		core_scan_set_row_base(r->proj,
		    core_source_file_rows(r->src) - r->in.nrows + 1);
		if ((rc = core_scan_batch(r->proj, &r->in, &p, err)) != 0) {
			e = *err;
			core_err_set(err, rc, "%s: %s",
			    core_source_name(r->src), e.msg);
			return rc;
		}
	} while (p->nrows == 0);
	if (r->prog != NULL) {
		core_source_stats(r->src, &st);
		tag[0] = st.rows;
		tag[1] = st.bytes;
	}
	if (r->ph != NULL) {
		struct core_agg_hashes *h = &r->hs[r->nmade++ %
		    CORE_AHEAD_SLOTS];

		if (core_agg_prehash_wanted(r->ph))
			core_agg_prehash_make(r->ph, p, h);
		else
			h->made = false;
	}
	*out = p;
	return 0;
}

/* The hashes of the batch next gave last, or NULL. */
static const struct core_agg_hashes *
hashes(void *arg)
{
	const struct run *r = arg;

	return r->cur;
}

/* The aggregation's input: the next batch, projected. */
static int
next(void *arg, struct core_batch *b, struct core_err *err)
{
	struct run *r = arg;
	const struct core_batch *p;
	uint64_t tag[2] = { 0, 0 };
	uint32_t i;
	int rc;

	if (r->ahead != NULL)
		rc = core_ahead_next(r->ahead, &p, tag, err);
	else
		rc = produce(r, &p, tag, err);
	if (rc != 0)
		return rc;
	fe_progress_update(r->prog, tag[0], tag[1]);
	if (r->ph != NULL)
		r->cur = &r->hs[r->nused++ % CORE_AHEAD_SLOTS];
	for (i = 0; i < b->ncols; i++)
		core_col_view(&b->cols[i], &p->cols[i]);
	b->nrows = p->nrows;
	return 0;
}

static int
emit(void *arg, const struct core_batch *b, struct core_err *err)
{
	struct run *r = arg;
	const struct core_batch *h = b;
	int rc;

	if (r->having != NULL && b->nrows > 0) {
		core_scan_set_row_base(r->having, r->rows_out + 1);
		if ((rc = core_scan_batch(r->having, b, &h, err)) != 0)
			return rc;
		if (h->nrows == 0)
			return 0;
	}
	r->rows_out += h->nrows;
	return core_mlspill3_write_batch(r->w, h, err);
}

static void
phase(void *arg, const char *name, unsigned i, unsigned n)
{
	struct run *r = arg;

	if (n > 0)
		snprintf(r->phase, sizeof(r->phase), "%s %u/%u", name, i, n);
	else
		snprintf(r->phase, sizeof(r->phase), "%s", name);
	fe_progress_phase(r->prog, r->phase);
}

static void
print_stats(const struct run *r, const struct core_agg_stats *st,
    const struct core_mem *mem)
{
	char budget[64];

	fprintf(stderr, "%s: %" PRIu64 " rows in, %" PRIu64 " groups, "
	    "%" PRIu64 " rows out, %.3f s\n", fe_prog(), st->rows_in,
	    st->groups, r->rows_out, fe_elapsed());
	fprintf(stderr, "%s: %" PRIu64 " partitions, %" PRIu64 " levels, "
	    "%.1f MB spilled, %" PRIu64 " tables\n", fe_prog(),
	    st->partitions, st->levels, (double)st->spill_bytes / 1e6,
	    st->tables);
	fe_budget_text(&r->o->common, mem->limit, budget, sizeof(budget));
	fprintf(stderr, "%s: memory budget %s, peak charged %.1f MB, "
	    "peak resident %.1f MB\n", fe_prog(), budget,
	    (double)st->peak_mem / 1e6, (double)fe_peak_rss() / 1e6);
	fe_print_mem_parts(mem);
}

static int
run(const struct options *o, const struct fe_out *out, struct core_err *err)
{
	const struct fe_common *c = &o->common;
	struct core_agg_options ao;
	struct core_agg_input in;
	struct core_agg_stats st = { 0 };
	struct core_pool *pool = NULL, *src_pool = NULL;
	struct core_mem mem;
	struct run r;
	unsigned k;
	int rc;

	memset(&r, 0, sizeof(r));
	memset(&st, 0, sizeof(st));
	r.o = o;
	if ((rc = core_source_open(o->inputs, o->ninputs, &r.src, err)) != 0)
		return rc;
	if ((rc = plan(&r, err)) != 0)
		goto out;
	core_batch_init(&r.in, core_source_schema(r.src));
	core_source_want(r.src, core_scan_needed(r.proj));
	core_source_prune(r.src, core_scan_prune(r.proj));
	if (c->threads != 1)
		pool = core_pool_new(core_pool_default(c->threads, 2));
	core_mem_init(&mem, c->memory ? c->memory :
	    core_mem_default_limit());
	memset(&ao, 0, sizeof(ao));
	ao.plan = r.plan;
	ao.tmpdirs = c->tmpdirs;
	ao.ntmpdirs = c->ntmpdirs;
	ao.max_spill = c->max_spill;
	ao.compress_spill = c->compress_spill;
	ao.pool = pool;
	ao.phase = phase;
	ao.phase_arg = &r;
	memset(&in, 0, sizeof(in));
	in.schema = core_scan_schema(r.proj);
	in.next = next;
	in.arg = &r;
	in.size_hint = core_paths_size(o->inputs, o->ninputs);
	in.hashes = hashes;
	r.w = core_mlspill3_writer_new(out->fd, out->name, r.having ?
	    core_scan_schema(r.having) : r.plan->out, c->zstd_level);
	r.prog = fe_progress_new(c->progress, in.size_hint);
	fe_progress_phase(r.prog, "reading");
	/*
	 * With two threads the input is read on a thread of its own, its
	 * Parquet columns decoded there on a pool of its own (a pool is
	 * used by one thread at a time): reading, checking, filtering and
	 * projecting the next batch while this one is aggregated.  Started
	 * last: it reads what is set up above.  Without a thread, as with
	 * -j 1, all of it is done here.
	 */
	if (pool != NULL) {
		src_pool = core_pool_new(2);
		core_source_pool(r.src, src_pool);
		r.ph = core_agg_prehash_new(r.plan, core_scan_schema(r.proj));
		if (core_ahead_new(core_scan_schema(r.proj), produce, &r,
		    &r.ahead, err) != 0) {
			core_agg_prehash_free(r.ph);
			r.ph = NULL;
			core_source_pool(r.src, pool);
			core_pool_free(src_pool);
			src_pool = NULL;
		}
	}
	in.prehash = r.ph;
	if (o->sorted) {
		rc = core_agg_sorted(&ao, &mem, &in, emit, &r, &st, err);
		/* Its row numbers count the whole input: name it. */
		if (rc == CORE_EDATA && strncmp(err->msg, "row ", 4) == 0) {
			struct core_err e = *err;

			core_err_set(err, rc, "%s: %s", o->ninputs == 1 ?
			    o->inputs[0] : o->ninputs == 0 ? "stdin" :
			    "input", e.msg);
		}
	} else {
		rc = core_agg_hash(&ao, &mem, &in, emit, &r, &st, err);
	}
	if (rc == 0)
		rc = core_mlspill3_writer_finish(r.w, err);
	/* The reading thread ends before what it reads from. */
	core_ahead_free(r.ahead);
	r.ahead = NULL;
	fe_progress_free(r.prog);
	if (rc == 0 && c->stats)
		print_stats(&r, &st, &mem);
	if (rc == CORE_ELIMIT && c->max_spill != 0 && st.need_mem == 0)
		fe_err_append(err, " (--max-spill): raise it or --memory");
	core_mlspill3_writer_free(r.w);
out:
	core_ahead_free(r.ahead);
	core_agg_prehash_free(r.ph);
	for (k = 0; k < CORE_AHEAD_SLOTS; k++)
		core_agg_hashes_free(&r.hs[k]);
	core_batch_release(&r.in);
	core_scan_free(r.having);
	core_agg_plan_free(r.plan);
	core_scan_free(r.proj);
	core_agg_query_free(r.query);
	core_source_free(r.src);
	core_pool_free(src_pool);
	core_pool_free(pool);
	return rc;
}

int
main(int argc, char **argv)
{
	struct core_err err = { 0, "" };
	struct options o;
	struct fe_out out;
	int rc;

	/* As in coljoin: large buffers go back to the kernel when freed,
	 * so the resident size follows what is charged. */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
	fe_init(&tool);
	fe_out_zero(&out);
	if ((rc = parse_args(argc, argv, &o, &err)) != 0) {
		options_release(&o);
		return fe_usage_fail(&err);
	}
	if ((rc = fe_refuse_tty_input(o.inputs, o.ninputs, &err)) != 0)
		goto out;
	if ((rc = fe_out_open(&out, o.common.output, "MLSPILL3", o.inputs,
	    o.ninputs, &err)) != 0)
		goto out;
	rc = run(&o, &out, &err);
	if (rc == 0)
		rc = fe_out_commit(&out, &err);
out:
	fe_out_release(&out);
	options_release(&o);
	return fe_finish(rc, &err);
}
