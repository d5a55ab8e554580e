/*
 * coljoin - join two MLSPILL3 streams on equality keys under a memory
 * budget.
 *
 * Options and wiring only: the plan (keys, types, output columns) is
 * core_join_plan, the hash join with its partitioning to spill files
 * core_join_hash, the streaming merge join of --sorted core_join_merge,
 * the framing core_mlspill3.  Every mistake a plan can find is reported
 * before a row is read.  On any failure the output stream is left
 * without its end-of-stream record, so a downstream stage reports it as
 * truncated.
 */
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core_ahead.h"
#include "core_col.h"
#include "core_io.h"
#include "core_join.h"
#include "core_mem.h"
#include "core_mlspill3.h"
#include "core_pool.h"
#include "fe.h"

static void usage(FILE *fp);

static const struct fe_tool tool = {
	.name = "coljoin",
	.opts = FE_OPT_OUTPUT | FE_OPT_THREADS | FE_OPT_COMPRESS |
	    FE_OPT_BUDGET,
	.max_threads = 2,
	.threads_help = "build, probe and gather on N threads\n"
	    "(default and most: 2)",
	.usage = usage,
};

enum build_side { BUILD_RIGHT, BUILD_LEFT, BUILD_AUTO };

/* Everything the command line decides. */
struct options {
	struct fe_common common;	/* -o -j -z -m -T --max-spill ... */
	const char *on;			/* borrowed argv */
	enum core_join_type type;
	bool null_aware;
	const char *suffix;		/* borrowed argv, NULL: none */
	bool drop_right_keys;
	enum build_side build;
	bool build_given;
	bool sorted;
	uint32_t batch_rows;		/* 0 = default */
	const char *select;		/* borrowed argv, NULL: every column */
	bool count;			/* print the number of rows out */
};

static void
usage(FILE *fp)
{
	fprintf(fp,
	    "usage: %s --on L=R[,L2=R2...] [options] LEFT RIGHT\n"
	    "Join two MLSPILL3 column streams (files, pipes, or '-' for "
	    "stdin) on equal\nkeys, within a memory budget, spilling "
	    "partitions to temporary files.\n"
	    "\n"
	    "      --on L=R[,...]   join keys: left column L equals right "
	    "column R\n"
	    "                       (K alone is K=K)\n"
	    "      --type T         inner, left, right, full, semi or anti "
	    "(default inner)\n"
	    "      --null-aware     anti join as NOT IN: nothing survives a "
	    "NULL right key\n"
	    "      --suffix S       append S to right column names the left "
	    "side has\n"
	    "      --drop-right-keys\n"
	    "                       leave the right key columns out of the "
	    "output\n"
	    "      --build SIDE     hash the left, right or auto (smaller; "
	    "streams are\n"
	    "                       read ahead to see which ends first) side "
	    "(default right)\n"
	    "      --sorted         both inputs sorted on the keys: merge "
	    "join, no hashing\n"
	    "  -s, --select LIST    output only these columns, in this "
	    "order (names of\n"
	    "                       the output, separated by commas); the "
	    "others are\n"
	    "                       neither decoded nor carried\n"
	    "  -c, --count          print the number of rows the join "
	    "gives, as text\n"
	    "      --batch-rows N   most rows per output frame (default "
	    "8192)\n", tool.name);
	fe_usage_shared(fp);
	fprintf(fp, "\n"
	    "Exit status: 0 ok, 2 usage, 3 bad input (or out of order with "
	    "--sorted),\n4 --max-spill exceeded, 5 I/O error.  See "
	    "coljoin(1).\n");
}

enum {
	OPT_ON = 256, OPT_TYPE, OPT_NULL_AWARE, OPT_SUFFIX,
	OPT_DROP_RIGHT_KEYS, OPT_BUILD, OPT_SORTED, OPT_BATCH_ROWS,
};

static int
option(void *arg, int c, const char *optarg, struct core_err *err)
{
	struct options *o = arg;

	switch (c) {
	case OPT_ON:
		o->on = optarg;
		break;
	case OPT_TYPE:
		if (core_join_type_parse(optarg, &o->type, err) != 0)
			return CORE_EUSAGE;
		break;
	case OPT_NULL_AWARE:
		o->null_aware = true;
		break;
	case OPT_SUFFIX:
		if (*optarg == '\0')
			return core_err_set(err, CORE_EUSAGE,
			    "--suffix must not be empty");
		o->suffix = optarg;
		break;
	case OPT_DROP_RIGHT_KEYS:
		o->drop_right_keys = true;
		break;
	case OPT_BUILD:
		if (strcmp(optarg, "right") == 0)
			o->build = BUILD_RIGHT;
		else if (strcmp(optarg, "left") == 0)
			o->build = BUILD_LEFT;
		else if (strcmp(optarg, "auto") == 0)
			o->build = BUILD_AUTO;
		else
			return core_err_set(err, CORE_EUSAGE, "--build must "
			    "be left, right or auto, not '%s'", optarg);
		o->build_given = true;
		break;
	case OPT_SORTED:
		o->sorted = true;
		break;
	case OPT_BATCH_ROWS:
		if (fe_parse_batch_rows(optarg, &o->batch_rows, err) != 0)
			return CORE_EUSAGE;
		break;
	case 's':
		if (o->select != NULL)
			return core_err_set(err, CORE_EUSAGE, "--select given "
			    "twice: give one list, separated by commas");
		o->select = optarg;
		break;
	case 'c':
		o->count = true;
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
		{ "on", required_argument, NULL, OPT_ON },
		{ "type", required_argument, NULL, OPT_TYPE },
		{ "null-aware", no_argument, NULL, OPT_NULL_AWARE },
		{ "suffix", required_argument, NULL, OPT_SUFFIX },
		{ "drop-right-keys", no_argument, NULL, OPT_DROP_RIGHT_KEYS },
		{ "build", required_argument, NULL, OPT_BUILD },
		{ "sorted", no_argument, NULL, OPT_SORTED },
		{ "batch-rows", required_argument, NULL, OPT_BATCH_ROWS },
		{ "select", required_argument, NULL, 's' },
		{ "count", no_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	int rc, nops;

	memset(o, 0, sizeof(*o));
	o->type = CORE_JOIN_INNER;
	o->build = BUILD_RIGHT;
	if ((rc = fe_parse(argc, argv, "s:c", longopts, option, o,
	    &o->common, err)) != 0)
		return rc;
	if (o->count && o->select != NULL)
		return core_err_set(err, CORE_EUSAGE, "--count prints the "
		    "number of rows: --select makes no sense with it");
	if (o->count && o->common.zstd_level != 0)
		return core_err_set(err, CORE_EUSAGE, "--count prints text: "
		    "-z makes no sense with it");
	if (o->on == NULL)
		return core_err_set(err, CORE_EUSAGE,
		    "no join key: give --on LEFT=RIGHT");
	nops = argc - optind;
	if (nops != 2)
		return core_err_set(err, CORE_EUSAGE, "%s: give two inputs, "
		    "LEFT and RIGHT", nops < 2 ? "too few inputs" :
		    "too many inputs");
	if (strcmp(argv[optind], "-") == 0 &&
	    strcmp(argv[optind + 1], "-") == 0)
		return core_err_set(err, CORE_EUSAGE, "LEFT and RIGHT cannot "
		    "both be '-' (stdin): give one as a file or <(...)");
	if (o->null_aware && o->type != CORE_JOIN_ANTI)
		return core_err_set(err, CORE_EUSAGE, "--null-aware is for "
		    "--type anti only (here --type %s)",
		    core_join_type_name(o->type));
	if (o->sorted && o->build_given)
		return core_err_set(err, CORE_EUSAGE, "--sorted builds no "
		    "hash table: --build makes no sense with it");
	return 0;
}

/* One input: its reader, as a struct core_join_input. */
struct input {
	const char *path;		/* borrowed argv */
	struct core_mlspill3_reader *rd;
	struct core_join_input in;
	struct sink *k;			/* for progress */
	/* --select, --count: the join sees a view of proj's columns of
	 * each batch read into whole. */
	const struct core_join_proj *proj;
	int side;
	struct core_batch whole;
	struct core_batch out;		/* what produce hands out */
	/* With two threads and a budget of AHEAD_MIN or more: the input
	 * read, checked and decoded on a thread of its own (produce),
	 * batches ahead of the join. */
	struct core_ahead *ahead;
	uint64_t rows, bytes;		/* read so far, for progress */
	uint64_t file_bytes;		/* a regular file's size, else 0 */
	/* The first batch, read to scale the size hint (scale_hint): what
	 * produce hands out first, with this code, when peeked. */
	bool peeked;
	int peek_rc;
};

/* The bytes batch b's columns hold: values, offsets, text, bitmaps. */
static uint64_t
batch_bytes(const struct core_batch *b)
{
	uint64_t n = 0;
	uint32_t i;

	for (i = 0; i < b->ncols; i++) {
		const struct core_column *c = &b->cols[i];
		size_t w = core_type_width(c->type.id);

		if (c->validity != NULL)
			n += core_bitmap_bytes(b->nrows);
		if (w != 0)
			n += (uint64_t)b->nrows * w;
		else if (b->nrows > 0)
			n += ((uint64_t)b->nrows + 1) * 4 +
			    (uint64_t)(c->offsets[b->nrows] - c->offsets[0]);
	}
	return n;
}

/*
 * A file read narrowed (--select, --count, the right side of a semi or
 * anti join) holds fewer bytes in the join than on disk, and the size
 * hint plans the join's memory (a build side planned too large is
 * partitioned and spilled when it would have fit): it is scaled by the
 * share of the first frame's bytes that the wanted columns take.  That
 * frame is handed to the join first.  0, or the read's failure.
 */
static int
scale_hint(struct input *in, struct core_err *err)
{
	struct core_mlspill3_stats st;
	uint64_t want;
	int rc;

	if (in->proj == NULL || in->in.size_hint == 0)
		return 0;
	rc = core_mlspill3_reader_next(in->rd, &in->whole, err);
	if (rc != 0 && rc != CORE_EOF)
		return rc;
	in->peeked = true;
	in->peek_rc = rc;
	if (rc != 0)
		return 0;
	core_join_proj_batch(in->proj, in->side, &in->whole, &in->out);
	core_mlspill3_reader_stats(in->rd, &st);
	want = batch_bytes(&in->out);
	if (st.bytes > 0 && in->whole.nrows > 0 && want < st.bytes)
		in->in.size_hint = (uint64_t)((double)in->in.size_hint *
		    (double)want / (double)st.bytes) + 1;
	return 0;
}

/* The least budget the inputs are read ahead at: the copies the read-
 * ahead holds (CORE_AHEAD_SLOTS batches of each input) are not charged,
 * and would be a large part of a small budget. */
#define AHEAD_MIN ((uint64_t)64 << 20)

/* emit may run on a helper of the join's while the inputs are read on
 * the caller: progress is shown under mu. */
struct sink {
	struct core_mlspill3_writer *w;
	pthread_mutex_t mu;
	struct fe_progress *prog;
	struct input *inputs;		/* the two, for progress */
	uint64_t rows;			/* rows written */
	char phase[40];			/* "joining 2/8", shown by prog */
};

static void
progress(struct sink *k)
{
	if (k->prog == NULL)
		return;
	pthread_mutex_lock(&k->mu);
	fe_progress_update(k->prog, k->inputs[0].rows + k->inputs[1].rows,
	    k->inputs[0].bytes + k->inputs[1].bytes);
	pthread_mutex_unlock(&k->mu);
}

/* The next batch of an input, its columns narrowed to what the join
 * uses; on the read-ahead's thread when there is one.  tag: the rows and
 * bytes read so far. */
static int
produce(void *arg, const struct core_batch **out, uint64_t tag[2],
    struct core_err *err)
{
	struct input *in = arg;
	struct core_mlspill3_stats st;
	int rc;

	if (in->peeked) {
		in->peeked = false;
		rc = in->peek_rc;
	} else if (in->proj == NULL) {
		rc = core_mlspill3_reader_next(in->rd, &in->out, err);
	} else {
		rc = core_mlspill3_reader_next(in->rd, &in->whole, err);
		if (rc == 0)
			core_join_proj_batch(in->proj, in->side, &in->whole,
			    &in->out);
	}
	core_mlspill3_reader_stats(in->rd, &st);
	tag[0] = st.rows;
	tag[1] = st.bytes;
	*out = &in->out;
	return rc;
}

static int
next(void *arg, struct core_batch *b, struct core_err *err)
{
	struct input *in = arg;
	const struct core_batch *p;
	uint64_t tag[2] = { 0, 0 };
	uint32_t i;
	int rc;

	if (in->ahead != NULL)
		rc = core_ahead_next(in->ahead, &p, tag, err);
	else
		rc = produce(in, &p, tag, err);
	if (rc == 0) {
		for (i = 0; i < b->ncols; i++)
			core_col_view(&b->cols[i], &p->cols[i]);
		b->nrows = p->nrows;
	}
	pthread_mutex_lock(&in->k->mu);
	in->rows = tag[0];
	in->bytes = tag[1];
	pthread_mutex_unlock(&in->k->mu);
	progress(in->k);
	return rc;
}

/* The join's phases, as progress shows them. */
static void
phase(void *arg, const char *name, unsigned i, unsigned n)
{
	struct sink *k = arg;

	pthread_mutex_lock(&k->mu);
	if (n > 0)
		snprintf(k->phase, sizeof(k->phase), "%s %u/%u", name, i, n);
	else
		snprintf(k->phase, sizeof(k->phase), "%s", name);
	fe_progress_phase(k->prog, k->phase);
	pthread_mutex_unlock(&k->mu);
}

static int
emit(void *arg, const struct core_batch *b, struct core_err *err)
{
	struct sink *k = arg;

	k->rows += b->nrows;
	progress(k);
	if (k->w == NULL)	/* --count */
		return 0;
	return core_mlspill3_write_batch(k->w, b, err);
}

static void
print_stats(const struct fe_common *c, const struct core_join_stats *st,
    const struct core_mem *mem)
{
	char budget[64];

	fprintf(stderr, "%s: %llu left rows, %llu right rows, %llu rows "
	    "out, %s hashed, %.3f s\n", fe_prog(),
	    (unsigned long long)st->rows_left,
	    (unsigned long long)st->rows_right,
	    (unsigned long long)st->rows_out,
	    st->build_left ? "left" : "right", fe_elapsed());
	fprintf(stderr, "%s: %llu partitions, %llu levels, %llu chunked, "
	    "%llu kept, %.1f MB spilled\n", fe_prog(),
	    (unsigned long long)st->partitions,
	    (unsigned long long)st->levels, (unsigned long long)st->chunked,
	    (unsigned long long)st->kept, (double)st->spill_bytes / 1e6);
	fe_budget_text(c, mem->limit, budget, sizeof(budget));
	fprintf(stderr, "%s: memory budget %s, peak charged %.1f MB, "
	    "peak resident %.1f MB\n", fe_prog(), budget,
	    (double)st->peak_mem / 1e6, (double)fe_peak_rss() / 1e6);
	fe_print_mem_parts(mem);
}

/* The plan's usage errors, with the option that mends them where one
 * does (libcore names no tool's options). */
static int
make_plan(const struct options *o, const struct core_schema *left,
    const struct core_schema *right, struct core_join_plan **plan,
    struct core_err *err)
{
	struct core_join_spec spec;
	int rc;

	memset(&spec, 0, sizeof(spec));
	spec.type = o->type;
	spec.on = o->on;
	spec.suffix = o->suffix;
	spec.drop_right_keys = o->drop_right_keys;
	rc = core_join_plan_new(&spec, left, right, plan, err);
	if (rc == CORE_EUSAGE && strstr(err->msg, "in the output twice")) {
		if (o->suffix == NULL)
			fe_err_append(err, ": give --suffix S to rename the "
			    "right input's clashing columns, or "
			    "--drop-right-keys");
		else
			fe_err_append(err, ": try another --suffix");
	}
	if (rc == 0 && o->null_aware && (*plan)->nkeys != 1) {
		rc = core_err_set(err, CORE_EUSAGE, "--null-aware takes one "
		    "key pair, not %zu", (*plan)->nkeys);
		core_join_plan_free(*plan);
		*plan = NULL;
	}
	return rc;
}

/* Joins into out; returns 0 or a CORE_E* code with err set.  The end
 * record is written only after the last row. */
static int
run_join(const struct options *o, struct input *inputs,
    const struct fe_out *out, struct core_err *err)
{
	const struct fe_common *c = &o->common;
	struct core_join_plan *plan = NULL;
	struct core_join_options jo;
	struct core_join_stats st = { 0 };
	struct core_join_proj proj;
	struct core_mem mem;
	struct sink k;
	uint64_t total = 0;
	struct core_pool *wpool = NULL;
	int i, rc;

	memset(&k, 0, sizeof(k));
	pthread_mutex_init(&k.mu, NULL);
	memset(&st, 0, sizeof(st));
	memset(&proj, 0, sizeof(proj));
	k.inputs = inputs;
	for (i = 0; i < 2; i++) {
		struct input *in = &inputs[i];

		if ((rc = core_mlspill3_reader_new(&in->path, 1, &in->rd,
		    err)) != 0)
			return rc;
		in->k = &k;
		in->in.schema = core_mlspill3_reader_schema(in->rd);
		in->in.next = next;
		in->in.arg = in;
		in->in.size_hint = core_paths_size(&in->path, 1);
		in->file_bytes = in->in.size_hint;
	}
	if ((rc = make_plan(o, inputs[0].in.schema, inputs[1].in.schema,
	    &plan, err)) != 0)
		return rc;
	/* Only what the output and the keys use is decoded and joined. */
	if ((o->select != NULL || o->count) &&
	    (rc = core_join_plan_select(plan, inputs[0].in.schema,
	    inputs[1].in.schema, o->count ? "" : o->select, &proj,
	    err)) != 0) {
		core_join_plan_free(plan);
		return rc;
	}
	if (o->select == NULL && !o->count)
		(void)core_join_plan_narrow_unused(plan, inputs[0].in.schema,
		    inputs[1].in.schema, &proj);
	/* An output wider than a stream may be is known now, not after
	 * the join has read its inputs. */
	if (!o->count &&
	    (rc = core_mlspill3_schema_fits(plan->out, out->name, err)) != 0) {
		core_join_proj_release(&proj);
		core_join_plan_free(plan);
		return rc;
	}
	for (i = 0; proj.schema[0] != NULL && i < 2; i++) {
		struct input *in = &inputs[i];

		core_mlspill3_reader_want(in->rd, proj.want[i]);
		core_batch_init(&in->whole, in->in.schema);
		in->proj = &proj;
		in->side = i;
		in->in.schema = proj.schema[i];
	}
	for (i = 0; i < 2; i++)
		core_batch_init(&inputs[i].out, inputs[i].in.schema);
	for (i = 0; i < 2 && rc == 0; i++)
		rc = scale_hint(&inputs[i], err);
	core_mem_init(&mem, c->memory ? c->memory :
	    core_mem_default_limit());
	memset(&jo, 0, sizeof(jo));
	jo.plan = plan;
	jo.null_aware = o->null_aware;
	if (o->build == BUILD_LEFT)
		jo.build_left = true;
	/* Files by their sizes, streams by reading ahead. */
	jo.build_auto = o->build == BUILD_AUTO;
	jo.tmpdirs = c->tmpdirs;
	jo.ntmpdirs = c->ntmpdirs;
	jo.max_spill = c->max_spill;
	jo.compress_spill = c->compress_spill;
	jo.batch_rows = o->batch_rows;
	jo.threads = c->threads;
	jo.phase = phase;
	jo.phase_arg = &k;
	if (!o->count)
		k.w = core_mlspill3_writer_new(out->fd, out->name, plan->out,
		    c->zstd_level);
	/* Frames are written behind the join on a thread of their own:
	 * the join ends with an empty batch, which waits for the last
	 * frame while its buffers are alive. */
	if (k.w != NULL && c->threads != 1) {
		wpool = core_pool_new(core_pool_default(0, 2));
		core_mlspill3_writer_async(k.w, wpool);
	}
	if (inputs[0].file_bytes != 0 && inputs[1].file_bytes != 0)
		total = inputs[0].file_bytes + inputs[1].file_bytes;
	k.prog = fe_progress_new(c->progress, total);
	fe_progress_phase(k.prog, "reading");
	/* Each input on a thread of its own, when there are two cores and
	 * room beside the budget; started last, as they read at once.
	 * Without a thread the join reads it itself. */
	for (i = 0; i < 2 && rc == 0 && c->threads != 1 &&
	    core_pool_default(c->threads, 2) > 1 && mem.limit >= AHEAD_MIN;
	    i++)
		if (core_ahead_new(inputs[i].in.schema, produce, &inputs[i],
		    &inputs[i].ahead, err) != 0)
			inputs[i].ahead = NULL;
	if (rc != 0)
		;	/* the first frame read to scale a size hint failed */
	else if (o->sorted)
		rc = core_join_merge(&jo, &mem, &inputs[0].in,
		    &inputs[1].in, emit, &k, &st, err);
	else
		rc = core_join_hash(&jo, &mem, &inputs[0].in, &inputs[1].in,
		    emit, &k, &st, err);
	/* The reading threads end before what they read from. */
	for (i = 0; i < 2; i++) {
		core_ahead_free(inputs[i].ahead);
		inputs[i].ahead = NULL;
	}
	if (rc == 0 && k.w != NULL)
		rc = core_mlspill3_writer_finish(k.w, err);
	if (rc == 0 && o->count) {
		char line[32];
		int len = snprintf(line, sizeof(line), "%llu\n",
		    (unsigned long long)k.rows);

		rc = core_write_all(out->fd, line, (size_t)len, out->name,
		    err);
	}
	fe_progress_free(k.prog);
	pthread_mutex_destroy(&k.mu);
	if (rc == 0 && c->stats)
		print_stats(c, &st, &mem);
	if (rc == CORE_ELIMIT && c->max_spill != 0 && st.need_mem == 0)
		fe_err_append(err, " (--max-spill): raise it or --memory");
	core_mlspill3_writer_free(k.w);
	core_pool_free(wpool);
	for (i = 0; i < 2; i++) {
		/* Views of the reader's buffers: nothing of theirs owned. */
		if (inputs[i].proj != NULL)
			core_batch_release(&inputs[i].whole);
		core_batch_release(&inputs[i].out);
		inputs[i].proj = NULL;
	}
	core_join_proj_release(&proj);
	core_join_plan_free(plan);
	return rc;
}

int
main(int argc, char **argv)
{
	struct core_err err = { 0, "" };
	struct options o;
	struct fe_out out;
	struct input inputs[2];
	const char *const *paths;
	int i, rc;

	/* Large buffers come and go with the budget; fixing the mmap
	 * threshold makes each go back to the kernel when freed, so the
	 * resident size follows what is charged instead of the heap's
	 * high-water mark.  Not below 4 MiB: a partition's spill frames,
	 * hash table and probe frames are made anew for each partition,
	 * and at a budget of tens of MiB they are of a MiB or two; mapped
	 * afresh, each of their pages faulted and was zeroed again per
	 * partition (90,000 faults at -m 64M over SF1, 3 s of system
	 * time, slower than -m 8M).  From the heap they are reused, and
	 * the peak resident size moves by a few MiB at most. */
	mallopt(M_MMAP_THRESHOLD, 4 * 1024 * 1024);
	/* One heap: the helpers' own arenas kept what the main thread's
	 * buffers freed into them (SF1 -m 64M: peak resident 94 MiB with
	 * them, 82 MiB without, the same time). */
	mallopt(M_ARENA_MAX, 1);
	fe_init(&tool);
	fe_out_zero(&out);
	memset(inputs, 0, sizeof(inputs));
	if ((rc = parse_args(argc, argv, &o, &err)) != 0) {
		fe_common_release(&o.common);
		return fe_usage_fail(&err);
	}
	paths = (const char *const *)argv + optind;
	inputs[0].path = paths[0];
	inputs[1].path = paths[1];
	if ((rc = fe_refuse_tty_input(paths, 2, &err)) != 0)
		goto out;
	if ((rc = fe_out_open(&out, o.common.output, o.count ? NULL :
	    "MLSPILL3", paths, 2, &err)) != 0)
		goto out;
	rc = run_join(&o, inputs, &out, &err);
	if (rc == 0)
		rc = fe_out_commit(&out, &err);
out:
	for (i = 0; i < 2; i++)
		core_mlspill3_reader_free(inputs[i].rd);
	fe_out_release(&out);
	fe_common_release(&o.common);
	return fe_finish(rc, &err);
}
