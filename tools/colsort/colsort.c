/*
 * colsort - sort MLSPILL3 rows by typed keys under a memory budget.
 *
 * Options and wiring only: keys, the external merge sort and order
 * checking are core_sort, spill files core_spill, the framing
 * core_mlspill3.  On any failure the output stream is left without its
 * end-of-stream record, so a downstream stage reports it as truncated.
 */
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "core_alloc.h"
#include "core_col.h"
#include "core_io.h"
#include "core_mem.h"
#include "core_mlspill3.h"
#include "core_pool.h"
#include "core_sort.h"
#include "fe.h"

/* A helper thread's stack (limit_address_space). */
#define HELPER_STACK ((size_t)1 << 20)

static void usage(FILE *fp);

static const struct fe_tool tool = {
	.name = "colsort",
	.opts = FE_OPT_OUTPUT | FE_OPT_THREADS | FE_OPT_COMPRESS |
	    FE_OPT_BUDGET,
	.max_threads = 2,
	.threads_help = "sort and gather on N threads (default and most: 2)",
	.usage = usage,
};

/* Everything the command line decides. */
struct options {
	struct fe_common common;	/* -o -j -z -m -T --max-spill ... */
	const char **keyspecs;		/* owned array of borrowed argv */
	size_t nkeys;
	uint64_t limit;
	bool has_limit;
	bool unique;
	bool check;
	bool reverse;			/* -r: keys without a direction
					 * descend */
	uint32_t batch_rows;		/* 0 = default */
};

static void
usage(FILE *fp)
{
	fprintf(fp,
	    "usage: %s -k KEY [options] [FILE...]\n"
	    "Sort the rows of MLSPILL3 column streams (stdin, or each FILE; "
	    "'-' is stdin)\nby typed keys, within a memory budget, spilling "
	    "sorted runs to temporary files.\n"
	    "\n"
	    "  -k, --key COL[:asc|:desc][:nulls-first|:nulls-last]\n"
	    "                       sort key, repeatable (default ascending, "
	    "NULLs last)\n"
	    "  -u, --unique         keep only the first row of each run of "
	    "equal keys\n"
	    "      --limit N        output only the first N rows (top-N in "
	    "O(N) memory)\n"
	    "  -r, --reverse        every key without :asc or :desc "
	    "descending\n"
	    "  -c, --check          exit 0 if the input is sorted, 1 if not; "
	    "no output\n"
	    "  -s, --stable         accepted for sort(1)'s sake: the sort is "
	    "always stable\n"
	    "  -S SIZE              the same as --memory SIZE, as in sort(1)\n"
	    "      --batch-rows N   most rows per output frame (default "
	    "8192)\n", tool.name);
	fe_usage_shared(fp);
	fprintf(fp, "\n"
	    "Exit status: 0 ok, 1 not sorted (--check), 2 usage, 3 bad "
	    "input,\n4 --max-spill exceeded or a row too wide for -m, 5 I/O "
	    "error.  See colsort(1).\n");
}

enum { OPT_LIMIT = 256, OPT_BATCH_ROWS, OPT_STABLE };

static int
option(void *arg, int c, const char *optarg, struct core_err *err)
{
	struct options *o = arg;

	switch (c) {
	case 'k':
		o->keyspecs[o->nkeys++] = optarg;
		break;
	case 'u':
		o->unique = true;
		break;
	case OPT_LIMIT:
		if (fe_parse_count("--limit", optarg, &o->limit, err) != 0)
			return CORE_EUSAGE;
		o->has_limit = true;
		break;
	case 'c':
		o->check = true;
		break;
	case 'r':
		o->reverse = true;
		break;
	case 's':
	case OPT_STABLE:
		break;	/* equal keys keep their input order anyway */
	case 'S':
		if (fe_parse_memory(optarg, &o->common.memory, err) != 0)
			return CORE_EUSAGE;
		o->common.memory_text = optarg;
		break;
	case OPT_BATCH_ROWS:
		if (fe_parse_batch_rows(optarg, &o->batch_rows, err) != 0)
			return CORE_EUSAGE;
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
		{ "key", required_argument, NULL, 'k' },
		{ "unique", no_argument, NULL, 'u' },
		{ "limit", required_argument, NULL, OPT_LIMIT },
		{ "check", no_argument, NULL, 'c' },
		{ "reverse", no_argument, NULL, 'r' },
		{ "stable", no_argument, NULL, OPT_STABLE },
		{ "batch-rows", required_argument, NULL, OPT_BATCH_ROWS },
		{ NULL, 0, NULL, 0 },
	};
	int rc;

	memset(o, 0, sizeof(*o));
	o->keyspecs = core_xcalloc((size_t)argc + 1, sizeof(*o->keyspecs));
	if ((rc = fe_parse(argc, argv, "k:ucrsS:", longopts, option, o,
	    &o->common, err)) != 0)
		return rc;
	if (o->nkeys == 0)
		return core_err_set(err, CORE_EUSAGE,
		    "no sort key: give at least one -k COL");
	if (o->check && o->common.output != NULL)
		return core_err_set(err, CORE_EUSAGE,
		    "--check writes no output: -o makes no sense with it");
	return 0;
}

/* Whether a key spec (parsed already) says :asc or :desc itself: one of
 * its last two ':' modifiers is one. */
static bool
direction_given(const char *spec, const struct core_schema *schema)
{
	const char *end = spec + strlen(spec), *p;
	int i;

	if (core_schema_find(schema, spec) >= 0)
		return false;
	for (i = 0; i < 2; i++) {
		for (p = end; p > spec && p[-1] != ':'; p--)
			;
		if (p == spec)
			return false;
		if (((size_t)(end - p) == 3 && strncasecmp(p, "asc", 3) == 0) ||
		    ((size_t)(end - p) == 4 && strncasecmp(p, "desc", 4) == 0))
			return true;
		end = p - 1;
	}
	return false;
}

static int
parse_keys(const struct options *o, const struct core_schema *schema,
    struct core_sort_key *keys, struct core_err *err)
{
	size_t i;
	int rc;

	for (i = 0; i < o->nkeys; i++) {
		if ((rc = core_sort_key_parse(o->keyspecs[i], schema, &keys[i],
		    err)) != 0)
			return rc;
		/* As sort(1)'s -r leaves a key with its own flags alone. */
		if (o->reverse && !direction_given(o->keyspecs[i], schema))
			keys[i].desc = true;
	}
	return 0;
}

/* --check: each FILE in turn (so a disorder names its file), the order
 * running on across files as if they were one input. */
static int
run_check(const struct options *o, const char *const *paths, size_t npaths,
    bool *sorted, struct core_err *err)
{
	static const char *const stdin_path[] = { "-" };
	struct core_sort_check *chk = NULL;
	struct core_schema *schema = NULL;
	struct core_sort_key *keys;
	uint64_t bad = 0, before = 0;
	size_t i;
	int rc = 0;

	if (npaths == 0) {
		paths = stdin_path;
		npaths = 1;
	}
	keys = core_xcalloc(o->nkeys, sizeof(*keys));
	*sorted = true;
	for (i = 0; i < npaths && rc == 0 && *sorted; i++) {
		struct core_mlspill3_reader *rd;
		struct core_mlspill3_stats st;
		struct core_batch b;

		if ((rc = core_mlspill3_reader_new(paths + i, 1, &rd,
		    err)) != 0)
			break;
		if (schema == NULL) {
			schema = core_schema_clone(
			    core_mlspill3_reader_schema(rd));
			if ((rc = parse_keys(o, schema, keys, err)) != 0) {
				core_mlspill3_reader_free(rd);
				break;
			}
			chk = core_sort_check_new(keys, o->nkeys, schema,
			    o->unique);
		} else if (!core_schema_equal(schema,
		    core_mlspill3_reader_schema(rd))) {
			rc = core_err_set(err, CORE_EDATA, "%s: schema differs "
			    "from the first input's", paths[i]);
			core_mlspill3_reader_free(rd);
			break;
		}
		core_batch_init(&b, core_mlspill3_reader_schema(rd));
		while ((rc = core_mlspill3_reader_next(rd, &b, err)) == 0)
			if (core_sort_check_batch(chk, &b, &bad) != 0) {
				char keys_text[CORE_ERR_MSG_MAX / 2];

				*sorted = false;
				core_sort_check_describe(chk, &b, bad,
				    keys_text, sizeof(keys_text));
				core_err_set(err, CORE_OK, "%s: disorder at "
				    "row %llu: %s", strcmp(paths[i], "-") == 0 ?
				    "stdin" : paths[i],
				    (unsigned long long)(bad - before + 1),
				    keys_text);
				break;
			}
		if (rc == CORE_EOF)
			rc = 0;
		core_mlspill3_reader_stats(rd, &st);
		before += st.rows;
		core_batch_release(&b);
		core_mlspill3_reader_free(rd);
	}
	core_sort_check_free(chk);
	core_schema_free(schema);
	free(keys);
	return rc;
}

struct sink {
	struct core_mlspill3_writer *w;
	struct fe_progress *prog;
	uint64_t rows;
	bool merging;		/* the output comes from a merge */
	char phase[32];		/* "merging 2/3", shown by prog */
};

/* The sort's phases after the input, as progress shows them. */
static void
phase(void *arg, const char *name, unsigned i, unsigned n)
{
	struct sink *k = arg;

	if (strcmp(name, "merging") == 0) {
		k->merging = true;
		snprintf(k->phase, sizeof(k->phase), "merging %u/%u", i, n);
	} else {
		snprintf(k->phase, sizeof(k->phase), "%s", name);
	}
	fe_progress_phase(k->prog, k->phase);
}

static int
emit(void *arg, const struct core_batch *b, struct core_err *err)
{
	struct sink *k = arg;

	/* A merge writes as it merges: its phase says so already. */
	if (k->rows == 0 && !k->merging)
		fe_progress_phase(k->prog, "writing");
	k->rows += b->nrows;
	fe_progress_update(k->prog, k->rows, 0);
	return core_mlspill3_write_batch(k->w, b, err);
}

static void
print_stats(const struct options *o, const struct core_sort *s,
    const struct core_mem *mem)
{
	struct core_sort_stats st;
	char budget[64];

	core_sort_get_stats(s, &st);
	fprintf(stderr, "%s: %llu rows in, %llu rows out, %llu runs, "
	    "%.1f MB spilled, %llu merge passes, %.3f s\n", fe_prog(),
	    (unsigned long long)st.rows_in, (unsigned long long)st.rows_out,
	    (unsigned long long)st.runs, (double)st.spill_bytes / 1e6,
	    (unsigned long long)st.merge_passes, fe_elapsed());
	fe_budget_text(&o->common, mem->limit, budget, sizeof(budget));
	fprintf(stderr, "%s: memory budget %s, peak charged %.1f MB, "
	    "peak resident %.1f MB\n", fe_prog(), budget,
	    (double)st.peak_mem / 1e6, (double)fe_peak_rss() / 1e6);
	fe_print_mem_parts(mem);
}

/* Sorts everything into out; returns 0 or a CORE_E* code with err set.
 * The end record is written only after the last row. */
static bool
row_too_wide(const struct core_sort *s)
{
	struct core_sort_stats st;

	core_sort_get_stats(s, &st);
	return st.need_mem != 0;
}

static int
run_sort(const struct options *o, const char *const *paths, size_t npaths,
    const struct fe_out *out, struct core_err *err)
{
	const struct fe_common *c = &o->common;
	struct core_mlspill3_reader *rd = NULL;
	struct core_sort_options so;
	struct core_sort *s = NULL;
	struct core_sort_key *keys;
	struct core_mem mem;
	struct core_batch b;
	struct sink k = { NULL, NULL, 0, false, "" };
	struct core_pool *wpool = NULL;
	uint64_t size;
	int rc;

	if ((rc = core_mlspill3_reader_new(paths, npaths, &rd, err)) != 0)
		return rc;
	keys = core_xcalloc(o->nkeys, sizeof(*keys));
	core_batch_init(&b, core_mlspill3_reader_schema(rd));
	if ((rc = parse_keys(o, core_mlspill3_reader_schema(rd), keys,
	    err)) != 0)
		goto out;
	core_mem_init(&mem, c->memory ? c->memory :
	    core_mem_default_limit());
	memset(&so, 0, sizeof(so));
	so.keys = keys;
	so.nkeys = o->nkeys;
	so.limit = o->limit;
	so.has_limit = o->has_limit;
	so.unique = o->unique;
	so.tmpdirs = c->tmpdirs;
	so.ntmpdirs = c->ntmpdirs;
	so.max_spill = c->max_spill;
	so.compress_spill = c->compress_spill;
	so.batch_rows = o->batch_rows;
	so.threads = c->threads;
	so.phase = phase;
	so.phase_arg = &k;
	s = core_sort_new(&so, core_mlspill3_reader_schema(rd), &mem);
	k.w = core_mlspill3_writer_new(out->fd, out->name,
	    core_mlspill3_reader_schema(rd), c->zstd_level);
	/* Output frames are written behind the merge (core_sort keeps a
	 * batch's buffers until the next emit). */
	if (c->threads != 1) {
		wpool = core_pool_new(core_pool_default(0, 2));
		core_mlspill3_writer_async(k.w, wpool);
		/* The input is read and decoded on the same helper while
		 * the rows before it are buffered (the merge's writes come
		 * only after the last read). */
		core_mlspill3_reader_read_ahead(rd, wpool);
	}
	size = core_paths_size(paths, npaths);
	k.prog = fe_progress_new(c->progress, size);
	while ((rc = core_mlspill3_reader_next(rd, &b, err)) == 0) {
		struct core_mlspill3_stats st;

		core_mlspill3_reader_stats(rd, &st);
		core_sort_input(s, st.bytes, size);
		if ((rc = core_sort_add(s, &b, err)) != 0)
			break;
		fe_progress_update(k.prog, st.rows, st.bytes);
	}
	if (rc == CORE_EOF)
		rc = core_sort_finish(s, emit, &k, err);
	if (rc == 0)
		rc = core_mlspill3_writer_finish(k.w, err);
	fe_progress_free(k.prog);
	if (rc == 0 && c->stats)
		print_stats(o, s, &mem);
	/* Besides a row too wide for the budget (which says what to
	 * give), the spill limit is the only limit a sort has. */
	if (rc == CORE_ELIMIT && c->max_spill != 0 && !row_too_wide(s))
		fe_err_append(err, " (--max-spill): raise it or --memory");
out:
	core_mlspill3_writer_free(k.w);
	core_sort_free(s);
	/* After the sort (whose spill writer uses the reader's schema) and
	 * before the pool (a read ahead may be under way on it). */
	core_mlspill3_reader_free(rd);
	core_pool_free(wpool);
	core_batch_release(&b);
	free(keys);
	return rc;
}

/*
 * The address space beyond the budget (colsort(1), MEMORY): each helper
 * thread would otherwise reserve its own 64 MiB malloc arena and an
 * 8 MiB stack, about 220 MB for the three a sort runs, which
 * `ulimit -v` counts though hardly a page of it is touched.  Large
 * buffers are mmap'd anyway (the threshold above) and the helpers
 * allocate little, so one arena costs no contention worth having; their
 * deepest stack (zstd, the gather) is a few tens of KiB.
 */
static void
limit_address_space(void)
{
	pthread_attr_t a;

	mallopt(M_ARENA_MAX, 1);
	if (pthread_attr_init(&a) != 0)
		return;
	if (pthread_attr_setstacksize(&a, HELPER_STACK) == 0)
		(void)pthread_setattr_default_np(&a);
	pthread_attr_destroy(&a);
}

int
main(int argc, char **argv)
{
	struct core_err err = { 0, "" };
	struct options o;
	struct fe_out out;
	const char *const *paths;
	size_t npaths;
	bool sorted = true;
	int rc;

	/* Large buffers come and go with the budget; fixing the mmap
	 * threshold makes each go back to the kernel when freed, so the
	 * resident size follows what is charged instead of the heap's
	 * high-water mark. */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
	limit_address_space();
	fe_init(&tool);
	fe_out_zero(&out);
	if ((rc = parse_args(argc, argv, &o, &err)) != 0) {
		free(o.keyspecs);
		fe_common_release(&o.common);
		return fe_usage_fail(&err);
	}
	paths = (const char *const *)argv + optind;
	npaths = (size_t)(argc - optind);
	if ((rc = fe_refuse_tty_input(paths, npaths, &err)) != 0)
		goto out;
	if (o.check) {
		rc = run_check(&o, paths, npaths, &sorted, &err);
		goto out;
	}
	if ((rc = fe_out_open(&out, o.common.output, "MLSPILL3", paths,
	    npaths, &err)) != 0)
		goto out;
	rc = run_sort(&o, paths, npaths, &out, &err);
	if (rc == 0)
		rc = fe_out_commit(&out, &err);
out:
	fe_out_release(&out);
	free(o.keyspecs);
	fe_common_release(&o.common);
	rc = fe_finish(rc, &err);
	if (rc == 0 && !sorted) {
		fprintf(stderr, "%s: %s\n", fe_prog(), err.msg);
		return CORE_EXIT_NO;
	}
	return rc;
}
