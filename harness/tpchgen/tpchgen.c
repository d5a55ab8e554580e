/*
 * tpchgen - TPC-H data at any scale factor, as CSV or MLSPILL3.
 *
 *   tpchgen -s SF [-T TABLE]... [-o DIR] [--format csv|col] [--seed N]
 *
 * Options, output and threads; the values come from tpchgen_tables.c and
 * the comment text from tpchgen_text.c.  A table is made a chunk at a
 * time (a few thousand rows, or orders for lineitem): each round the
 * threads generate one chunk each into their own batch (and format it as
 * CSV), and a background task writes the previous round's chunks in
 * order, so output bytes depend on the seed and scale only, never on -j.
 * Every file is written under a temporary name and renamed into place
 * when complete (core_outfile through fe_out_open).
 *
 * Built beside the tools but not among them (build/MODE/harness/bin/), not
 * installed: it is the benchmark's data source, and its -o names a
 * directory and it reads no input, so the contract every tool in
 * build/MODE/bin keeps (tests/cli/common.bats, output.bats) does not fit.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core_alloc.h"
#include "core_col.h"
#include "core_io.h"
#include "core_mlspill3.h"
#include "core_pool.h"
#include "fe.h"
#include "tpchgen.h"

static void usage(FILE *fp);

static const struct fe_tool tool = {
	.name = "tpchgen",
	.opts = FE_OPT_THREADS | FE_OPT_COMPRESS,
	.max_threads = 64,
	.threads_help = "generating threads (default: all cores)",
	.usage = usage,
};

struct options {
	struct fe_common common;	/* -j, -z, --stats, --progress */
	double sf;
	uint64_t seed;
	const char *dir;		/* -o: borrowed argv, "-" = stdout */
	bool col;			/* --format col */
	bool want[TG_NTABLES];		/* -T; none given = every table */
	bool any_table;
};

static void
usage(FILE *fp)
{
	fprintf(fp,
	    "usage: %s [options]\n"
	    "Generate TPC-H tables (region, nation, supplier, customer, part,"
	    "\npartsupp, orders, lineitem) as DIR/TABLE.csv or DIR/TABLE.col."
	    "\n\n"
	    "  -s, --scale SF       scale factor, 0.01 to 10000 (default 1)\n"
	    "  -T, --table TABLE    generate TABLE only; repeatable, or a "
	    "comma list\n"
	    "  -o, --output DIR     write into DIR, made if missing (default "
	    "'.'); '-' writes\n"
	    "                       the one table given with -T to stdout\n"
	    "      --format FMT     csv (default) or col (MLSPILL3)\n"
	    "      --seed N         the random seed (default 19): the same "
	    "seed, the same bytes\n",
	    tool.name);
	fe_usage_shared(fp);
	fprintf(fp, "\n"
	    "Exit status: 0 ok, 2 usage, 5 I/O error.\n"
	    "See tpchgen(1) and harness/README.\n");
}

enum { OPT_FORMAT = 256, OPT_SEED };

static int
add_tables(struct options *o, const char *list, struct core_err *err)
{
	char *copy = core_xstrdup(list), *save = NULL, *t;
	int k, rc = 0;

	for (t = strtok_r(copy, ",", &save); t != NULL;
	    t = strtok_r(NULL, ",", &save)) {
		if ((k = tg_table_find(t)) < 0) {
			rc = core_err_set(err, CORE_EUSAGE, "unknown table "
			    "'%s' (region, nation, supplier, customer, part, "
			    "partsupp, orders, lineitem)", t);
			break;
		}
		o->want[k] = true;
		o->any_table = true;
	}
	free(copy);
	if (rc == 0 && !o->any_table)
		rc = core_err_set(err, CORE_EUSAGE, "--table: no table named");
	return rc;
}

static int
option(void *arg, int c, const char *optarg, struct core_err *err)
{
	struct options *o = arg;
	char *end;

	switch (c) {
	case 's':
		errno = 0;
		o->sf = strtod(optarg, &end);
		if (errno || end == optarg || *end != '\0' ||
		    !isfinite(o->sf) || o->sf < 0.01 || o->sf > 10000)
			return core_err_set(err, CORE_EUSAGE, "--scale: '%s' "
			    "is not a scale factor from 0.01 to 10000",
			    optarg);
		return 0;
	case OPT_FORMAT:
		if (strcmp(optarg, "csv") == 0)
			o->col = false;
		else if (strcmp(optarg, "col") == 0)
			o->col = true;
		else
			return core_err_set(err, CORE_EUSAGE,
			    "unknown format '%s' (csv, col)", optarg);
		return 0;
	case OPT_SEED:
		return fe_parse_count("--seed", optarg, &o->seed, err);
	default:
		return core_err_set(err, CORE_EINTERNAL, "option %d", c);
	}
}

static int
parse_args(int argc, char **argv, struct options *o, struct core_err *err)
{
	static const struct option longopts[] = {
		{ "scale", required_argument, NULL, 's' },
		{ "table", required_argument, NULL, 'T' },
		{ "output", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ NULL, 0, NULL, 0 },
	};
	int rc, t, n = 0;
	size_t k;

	memset(o, 0, sizeof(*o));
	o->sf = 1;
	o->seed = 19;
	o->dir = ".";
	rc = fe_parse(argc, argv, "s:T:o:", longopts, option, o, &o->common,
	    err);
	if (rc != 0)
		return rc;
	/* fe_parse files -o under output and each -T under tmpdirs for
	 * every tool; here they are the directory and the tables. */
	if (o->common.output != NULL)
		o->dir = o->common.output;
	for (k = 0; k < o->common.ntmpdirs; k++)
		if ((rc = add_tables(o, o->common.tmpdirs[k], err)) != 0)
			return rc;
	if (optind < argc)
		return core_err_set(err, CORE_EUSAGE, "unexpected operand "
		    "'%s'", argv[optind]);
	if (!o->any_table)
		for (t = 0; t < TG_NTABLES; t++)
			o->want[t] = true;
	for (t = 0; t < TG_NTABLES; t++)
		n += o->want[t];
	if (strcmp(o->dir, "-") == 0 && n != 1)
		return core_err_set(err, CORE_EUSAGE, "-o -: name one table "
		    "with -T");
	if (o->common.zstd_level && !o->col)
		return core_err_set(err, CORE_EUSAGE, "--compress needs "
		    "--format col");
	return 0;
}

/* ---- CSV ---- */

/* Writes v in decimal at p; returns the end. */
static inline char *
put_u64(char *p, uint64_t v)
{
	char tmp[20];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

static inline char *
put_i64(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		return put_u64(p, (uint64_t)0 - (uint64_t)v);
	}
	return put_u64(p, (uint64_t)v);
}

/* A decimal of scale 2 as the reference files spell it: "-0.50". */
static inline char *
put_dec2(char *p, int64_t v)
{
	uint64_t a;

	if (v < 0) {
		*p++ = '-';
		a = (uint64_t)0 - (uint64_t)v;
	} else {
		a = (uint64_t)v;
	}
	p = put_u64(p, a / 100);
	*p++ = '.';
	*p++ = (char)('0' + a / 10 % 10);
	*p++ = (char)('0' + a % 10);
	return p;
}

/* A string as it is: no generated value holds a quote, and only the
 * quotable columns a comma. */
static inline char *
put_plain(char *p, const char *s, size_t n)
{
	tg_copy(p, s, n);
	return p + n;
}

/* A string of a column that may hold a comma: quoted when it does (no
 * generated value holds a quote, so none is doubled). */
static inline char *
put_quotable(char *p, const char *s, size_t n)
{
	if (memchr(s, ',', n) == NULL)
		return put_plain(p, s, n);
	*p++ = '"';
	p = put_plain(p, s, n);
	*p++ = '"';
	return p;
}

/* The most bytes one row of table ti can take as CSV. */
static size_t
csv_row_max(const struct tg_tabinfo *ti)
{
	size_t n = 1;
	uint32_t c;

	for (c = 0; c < ti->ncols; c++)
		n += ti->types[c].id == CORE_TYPE_STRING ?
		    (size_t)ti->maxlen[c] + 3 : 24;
	return n;
}

/* Formats b's rows as CSV lines into buf (room for csv_row_max per row
 * and TG_SLACK); returns the bytes written. */
static size_t
csv_format(const struct tg_tabinfo *ti, const struct core_batch *b,
    char *buf)
{
	char *p = buf;
	uint32_t r, c;

	for (r = 0; r < b->nrows; r++) {
		for (c = 0; c < ti->ncols; c++) {
			const struct core_column *col = &b->cols[c];

			if (c)
				*p++ = ',';
			switch (ti->types[c].id) {
			case CORE_TYPE_INT64:
				p = put_i64(p, ((const int64_t *)
				    col->values)[r]);
				break;
			case CORE_TYPE_DECIMAL:
				p = put_dec2(p, ((const int64_t *)
				    col->values)[r]);
				break;
			case CORE_TYPE_DATE:
				memcpy(p, tg_date_text(((const int32_t *)
				    col->values)[r]), 10);
				p += 10;
				break;
			default: {
				const char *s = (const char *)col->values +
				    col->offsets[r];
				size_t n = (size_t)(col->offsets[r + 1] -
				    col->offsets[r]);

				p = ti->quotable >> c & 1 ?
				    put_quotable(p, s, n) : put_plain(p, s, n);
				break;
			}
			}
		}
		*p++ = '\n';
	}
	return (size_t)(p - buf);
}

/* ---- one table ---- */

/* One thread's chunk of a round. */
struct slot {
	struct core_batch b;
	char *text;		/* CSV: owned, text_cap bytes */
	size_t text_cap, text_len;
	bool used;		/* holds a chunk of this round */
};

/* A table's run: the rounds' slots (two sets of nthreads, one being
 * generated while the other is written) and the writer's state. */
struct run {
	const struct tg_ctx *ctx;
	enum tg_table t;
	const struct tg_tabinfo *ti;
	bool col;
	unsigned nthreads;
	uint64_t units, nchunks, round;
	struct slot *slots[2];
	unsigned set;			/* being generated */
	/* The writer, a background task over slots[set ^ 1]. */
	struct core_pool_task wtask;
	unsigned wset;
	int fd;
	const char *name;
	struct core_mlspill3_writer *w;
	int wrc;
	struct core_err werr;
	uint64_t rows, bytes;
};

static void
gen_job(void *arg, unsigned who)
{
	struct run *r = arg;
	struct slot *s = &r->slots[r->set][who];
	uint64_t c = r->round * r->nthreads + who, first;
	uint32_t n;

	s->used = c < r->nchunks;
	if (!s->used)
		return;
	first = c * r->ti->chunk;
	n = (uint32_t)(r->units - first < r->ti->chunk ? r->units - first :
	    r->ti->chunk);
	tg_generate(r->ctx, r->t, first, n, &s->b);
	if (!r->col) {
		size_t need = csv_row_max(r->ti) * s->b.nrows + TG_SLACK;

		if (need > s->text_cap) {
			free(s->text);
			s->text = core_xmalloc(need);
			s->text_cap = need;
		}
		s->text_len = csv_format(r->ti, &s->b, s->text);
	}
}

static void
write_job(void *arg, unsigned who)
{
	struct run *r = arg;
	unsigned k;

	(void)who;
	for (k = 0; k < r->nthreads && r->wrc == 0; k++) {
		struct slot *s = &r->slots[r->wset][k];

		if (!s->used)
			continue;
		r->rows += s->b.nrows;
		if (r->col) {
			r->wrc = core_mlspill3_write_batch(r->w, &s->b,
			    &r->werr);
		} else {
			r->wrc = core_write_all(r->fd, s->text, s->text_len,
			    r->name, &r->werr);
			r->bytes += s->text_len;
		}
	}
}

static struct core_schema *
table_schema(const struct tg_tabinfo *ti)
{
	struct core_schema *s = core_schema_new(ti->ncols);
	uint32_t c;

	for (c = 0; c < ti->ncols; c++)
		core_schema_set(s, c, ti->cols[c], ti->types[c]);
	return s;
}

/* Generates table t to out; 0 or a CORE_E* code with err set. */
static int
gen_table(const struct tg_ctx *ctx, enum tg_table t, const struct options *o,
    struct core_pool *pool, struct fe_out *out, struct fe_progress *prog,
    struct run *r, struct core_err *err)
{
	struct core_schema *schema = table_schema(&tg_tables[t]);
	unsigned k, s;
	int rc = 0;

	memset(r, 0, sizeof(*r));
	r->ctx = ctx;
	r->t = t;
	r->ti = &tg_tables[t];
	r->col = o->col;
	r->nthreads = core_pool_threads(pool);
	r->units = tg_units(ctx, t);
	r->nchunks = (r->units + r->ti->chunk - 1) / r->ti->chunk;
	r->fd = out->fd;
	r->name = out->name;
	for (s = 0; s < 2; s++) {
		r->slots[s] = core_xcalloc(r->nthreads, sizeof(struct slot));
		for (k = 0; k < r->nthreads; k++)
			core_batch_init(&r->slots[s][k].b, schema);
	}
	if (o->col) {
		r->w = core_mlspill3_writer_new(out->fd, out->name, schema,
		    o->common.zstd_level);
	} else {
		/* The header row. */
		char line[512];
		size_t n = 0;
		uint32_t c;

		for (c = 0; c < r->ti->ncols; c++)
			n += (size_t)snprintf(line + n, sizeof(line) - n,
			    "%s%s", c ? "," : "", r->ti->cols[c]);
		line[n++] = '\n';
		rc = core_write_all(out->fd, line, n, out->name, err);
		r->bytes = n;
	}
	for (r->round = 0; rc == 0 && r->round * r->nthreads < r->nchunks;
	    r->round++) {
		r->set = (unsigned)(r->round & 1);
		core_pool_run(pool, r->nthreads, gen_job, r);
		core_pool_wait(pool, &r->wtask);
		if (r->wrc != 0)
			break;
		fe_progress_update(prog, r->rows, 0);
		r->wset = r->set;
		core_pool_start(pool, &r->wtask, write_job, r);
	}
	core_pool_wait(pool, &r->wtask);
	if (rc == 0 && r->wrc != 0) {
		rc = r->wrc;
		*err = r->werr;
	}
	if (rc == 0 && r->w != NULL) {
		struct core_mlspill3_stats st;

		rc = core_mlspill3_writer_finish(r->w, err);
		core_mlspill3_writer_stats(r->w, &st);
		r->bytes = st.bytes;
	}
	core_mlspill3_writer_free(r->w);
	for (s = 0; s < 2; s++) {
		for (k = 0; k < r->nthreads; k++) {
			core_batch_release(&r->slots[s][k].b);
			free(r->slots[s][k].text);
		}
		free(r->slots[s]);
	}
	core_schema_free(schema);
	return rc;
}

/* Makes DIR when it is missing; a usage error when it names something
 * that is not a directory. */
static int
ensure_dir(const char *dir, struct core_err *err)
{
	struct stat st;

	if (stat(dir, &st) == 0) {
		if (!S_ISDIR(st.st_mode))
			return core_err_set(err, CORE_EUSAGE,
			    "%s: not a directory", dir);
		return 0;
	}
	if (errno != ENOENT || mkdir(dir, 0777) != 0)
		return core_err_errno(err, CORE_EIO, errno, "%s", dir);
	return 0;
}

int
main(int argc, char **argv)
{
	struct options o;
	struct core_err err = { 0 };
	struct tg_ctx ctx;
	struct core_pool *pool = NULL;
	struct fe_progress *prog = NULL;
	struct fe_out out;
	struct run run;
	char *path = NULL;
	int rc, t;

	fe_init(&tool);
	fe_out_zero(&out);
	if (parse_args(argc, argv, &o, &err) != 0) {
		fe_common_release(&o.common);
		return fe_usage_fail(&err);
	}
	memset(&ctx, 0, sizeof(ctx));
	ctx.seed = o.seed;
	ctx.sf = o.sf;
	tg_ctx_scale(&ctx);
	if (!tg_ctx_suppliers_distinct(&ctx)) {
		core_err_set(&err, CORE_EUSAGE, "--scale %g: the "
		    "specification's partsupp suppliers repeat at this scale "
		    "(%llu suppliers); take another", o.sf,
		    (unsigned long long)ctx.nsupp);
		fe_common_release(&o.common);
		return fe_usage_fail(&err);
	}
	rc = strcmp(o.dir, "-") == 0 ? 0 : ensure_dir(o.dir, &err);
	if (rc == 0) {
		ctx.pool = tg_pool_new(o.seed);
		pool = core_pool_new(core_pool_default(o.common.threads,
		    tool.max_threads));
		prog = fe_progress_new(o.common.progress, 0);
	}
	for (t = 0; rc == 0 && t < TG_NTABLES; t++) {
		if (!o.want[t])
			continue;
		free(path);
		path = NULL;
		if (strcmp(o.dir, "-") != 0) {
			size_t n = strlen(o.dir) + strlen(tg_tables[t].name) +
			    8;

			path = core_xmalloc(n);
			snprintf(path, n, "%s/%s.%s", o.dir, tg_tables[t].name,
			    o.col ? "col" : "csv");
		}
		rc = fe_out_open(&out, path ? path : "-",
		    o.col ? "MLSPILL3" : NULL, NULL, 0, &err);
		if (rc != 0)
			break;
		fe_progress_phase(prog, tg_tables[t].name);
		rc = gen_table(&ctx, (enum tg_table)t, &o, pool, &out, prog,
		    &run, &err);
		if (rc == 0)
			rc = fe_out_commit(&out, &err);
		fe_out_release(&out);
		fe_out_zero(&out);
		if (rc == 0 && o.common.stats) {
			fe_progress_free(prog);
			prog = fe_progress_new(o.common.progress, 0);
			fprintf(stderr, "%s: %s: %llu rows, %.1f MB, %.2f s\n",
			    fe_prog(), tg_tables[t].name,
			    (unsigned long long)run.rows,
			    (double)run.bytes / 1e6, fe_elapsed());
		}
	}
	fe_progress_free(prog);
	if (rc == 0 && o.common.stats)
		fprintf(stderr, "%s: %d thread(s), peak RSS %.1f MB\n",
		    fe_prog(), (int)core_pool_threads(pool),
		    (double)fe_peak_rss() / 1e6);
	free(path);
	free((char *)ctx.pool);
	core_pool_free(pool);
	fe_common_release(&o.common);
	return fe_finish(rc, &err);
}
