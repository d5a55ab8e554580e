/*
 * colsort - sort MLSPILL3 rows by typed keys under a memory budget.
 *
 * Options and wiring only: keys, the external merge sort and order
 * checking are core_sort, spill files core_spill, the framing
 * core_mlspill3.  On any failure the output stream is left without its
 * end-of-stream record, so a downstream stage reports it as truncated.
 */
#include <getopt.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core_alloc.h"
#include "core_col.h"
#include "core_io.h"
#include "core_mem.h"
#include "core_mlspill3.h"
#include "core_pool.h"
#include "core_sort.h"
#include "core_tool.h"

static const char *prog = "colsort";

#define MIN_MEMORY ((uint64_t)256 << 10)

/* Everything the command line decides. */
struct options {
	const char **keyspecs;		/* owned array of borrowed argv */
	size_t nkeys;
	const char **tmpdirs;		/* owned array of borrowed argv */
	size_t ntmpdirs;
	uint64_t memory;		/* -m; 0 = core_mem_default_limit */
	uint64_t max_spill;		/* 0 = no cap */
	uint64_t limit;
	bool has_limit;
	bool unique;
	bool check;
	bool compress_spill;
	uint32_t batch_rows;		/* 0 = default */
	unsigned threads;		/* 0 = default */
	const char *output;		/* -o FILE, or NULL for stdout */
	bool stats;
	bool progress;
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
	    "  -c, --check          exit 0 if the input is sorted, 1 if not; "
	    "no output\n"
	    "  -m, --memory SIZE    memory budget, e.g. 64M (default: from "
	    "the machine's memory)\n"
	    "  -T, --tmpdir DIR     spill to DIR, repeatable, used in turn "
	    "(default $TMPDIR, /tmp)\n"
	    "      --max-spill SIZE fail (exit 4) when spill files would "
	    "exceed SIZE\n"
	    "      --compress-spill compress spill files with zstd\n"
	    "      --batch-rows N   most rows per output frame (default "
	    "8192)\n"
	    "  -j, --threads N      sort and gather on N threads, 1 or 2 "
	    "(default: 2 cores -> 2)\n"
	    "  -o, --output FILE    write FILE atomically instead of stdout\n"
	    "      --stats          print rows, runs, spill bytes, merge "
	    "passes and memory\n"
	    "      --progress       show progress when stderr is a terminal\n"
	    "  -h, --help           show this help\n"
	    "      --version        show the version\n"
	    "\n"
	    "Exit status: 0 ok, 1 not sorted (--check), 2 usage, 3 bad "
	    "input,\n4 --max-spill exceeded, 5 I/O error.  See colsort(1).\n",
	    prog);
}

enum {
	OPT_LIMIT = 256, OPT_MAX_SPILL, OPT_COMPRESS_SPILL, OPT_BATCH_ROWS,
	OPT_STATS, OPT_PROGRESS, OPT_VERSION,
};

static int
parse_args(int argc, char **argv, struct options *o, struct core_err *err)
{
	static const struct option longopts[] = {
		{ "key", required_argument, NULL, 'k' },
		{ "unique", no_argument, NULL, 'u' },
		{ "limit", required_argument, NULL, OPT_LIMIT },
		{ "check", no_argument, NULL, 'c' },
		{ "memory", required_argument, NULL, 'm' },
		{ "tmpdir", required_argument, NULL, 'T' },
		{ "max-spill", required_argument, NULL, OPT_MAX_SPILL },
		{ "compress-spill", no_argument, NULL, OPT_COMPRESS_SPILL },
		{ "batch-rows", required_argument, NULL, OPT_BATCH_ROWS },
		{ "threads", required_argument, NULL, 'j' },
		{ "output", required_argument, NULL, 'o' },
		{ "stats", no_argument, NULL, OPT_STATS },
		{ "progress", no_argument, NULL, OPT_PROGRESS },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	int c;

	memset(o, 0, sizeof(*o));
	o->keyspecs = core_xcalloc((size_t)argc + 1, sizeof(*o->keyspecs));
	o->tmpdirs = core_xcalloc((size_t)argc + 1, sizeof(*o->tmpdirs));
	while ((c = getopt_long(argc, argv, "k:ucm:T:o:j:h", longopts, NULL)) !=
	    -1) {
		switch (c) {
		case 'k':
			o->keyspecs[o->nkeys++] = optarg;
			break;
		case 'u':
			o->unique = true;
			break;
		case OPT_LIMIT:
			if (core_tool_parse_count("--limit", optarg,
			    &o->limit, err) != 0)
				return CORE_EUSAGE;
			o->has_limit = true;
			break;
		case 'c':
			o->check = true;
			break;
		case 'm':
			if (core_size_parse(optarg, &o->memory, err) != 0)
				return CORE_EUSAGE;
			/* Below this, runs of a few rows each would make
			 * a merge of thousands of passes. */
			if (o->memory < MIN_MEMORY)
				return core_err_set(err, CORE_EUSAGE,
				    "--memory must be at least 256K");
			break;
		case 'T':
			if (*optarg == '\0')
				return core_err_set(err, CORE_EUSAGE,
				    "--tmpdir needs a directory");
			o->tmpdirs[o->ntmpdirs++] = optarg;
			break;
		case OPT_MAX_SPILL:
			if (core_size_parse(optarg, &o->max_spill, err) != 0)
				return CORE_EUSAGE;
			if (o->max_spill == 0)
				return core_err_set(err, CORE_EUSAGE,
				    "--max-spill must be more than 0");
			break;
		case OPT_COMPRESS_SPILL:
			o->compress_spill = true;
			break;
		case OPT_BATCH_ROWS:
			if (core_tool_parse_count("--batch-rows", optarg, &v,
			    err) != 0)
				return CORE_EUSAGE;
			if (v == 0 || v > (1u << 20))
				return core_err_set(err, CORE_EUSAGE,
				    "--batch-rows must be 1 to 1048576");
			o->batch_rows = (uint32_t)v;
			break;
		case 'j':
			if (core_tool_parse_threads(optarg, &o->threads,
			    err) != 0)
				return CORE_EUSAGE;
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
	if (o->nkeys == 0)
		return core_err_set(err, CORE_EUSAGE,
		    "no sort key: give at least one -k COL");
	if (o->check && o->output != NULL)
		return core_err_set(err, CORE_EUSAGE,
		    "--check writes no output: -o makes no sense with it");
	return 0;
}

static int
parse_keys(const struct options *o, const struct core_schema *schema,
    struct core_sort_key *keys, struct core_err *err)
{
	size_t i;
	int rc;

	for (i = 0; i < o->nkeys; i++)
		if ((rc = core_sort_key_parse(o->keyspecs[i], schema, &keys[i],
		    err)) != 0)
			return rc;
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
				*sorted = false;
				core_err_set(err, CORE_OK, "%s: disorder at "
				    "row %llu", strcmp(paths[i], "-") == 0 ?
				    "stdin" : paths[i],
				    (unsigned long long)(bad - before + 1));
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
	struct core_tool_clock *clk;
	uint64_t rows;
};

static int
emit(void *arg, const struct core_batch *b, struct core_err *err)
{
	struct sink *k = arg;

	k->rows += b->nrows;
	core_tool_progress(k->clk, prog, k->rows, 0);
	return core_mlspill3_write_batch(k->w, b, err);
}

static void
print_stats(const struct core_sort *s, const struct core_mem *mem,
    const struct core_tool_clock *clk)
{
	struct core_sort_stats st;

	core_sort_get_stats(s, &st);
	fprintf(stderr, "%s: %llu rows in, %llu rows out, %llu runs, "
	    "%.1f MB spilled, %llu merge passes, %.3f s\n", prog,
	    (unsigned long long)st.rows_in, (unsigned long long)st.rows_out,
	    (unsigned long long)st.runs, (double)st.spill_bytes / 1e6,
	    (unsigned long long)st.merge_passes, core_tool_elapsed(clk));
	fprintf(stderr, "%s: memory budget %.1f MB, peak charged %.1f MB, "
	    "peak resident %.1f MB\n", prog,
	    mem->limit == CORE_MEM_UNLIMITED ? 0.0 : (double)mem->limit / 1e6,
	    (double)st.peak_mem / 1e6, (double)core_tool_peak_rss() / 1e6);
}

/* Sorts everything into fd; returns 0 or a CORE_E* code with err set.
 * The end record is written only after the last row. */
static int
run_sort(const struct options *o, const char *const *paths, size_t npaths,
    int fd, const char *outname, struct core_tool_clock *clk,
    struct core_err *err)
{
	struct core_mlspill3_reader *rd = NULL;
	struct core_sort_options so;
	struct core_sort *s = NULL;
	struct core_sort_key *keys;
	struct core_mem mem;
	struct core_batch b;
	struct sink k = { NULL, clk, 0 };
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
	core_mem_init(&mem, o->memory ? o->memory :
	    core_mem_default_limit());
	memset(&so, 0, sizeof(so));
	so.keys = keys;
	so.nkeys = o->nkeys;
	so.limit = o->limit;
	so.has_limit = o->has_limit;
	so.unique = o->unique;
	so.tmpdirs = o->tmpdirs;
	so.ntmpdirs = o->ntmpdirs;
	so.max_spill = o->max_spill;
	so.compress_spill = o->compress_spill;
	so.batch_rows = o->batch_rows;
	so.threads = o->threads;
	s = core_sort_new(&so, core_mlspill3_reader_schema(rd), &mem);
	k.w = core_mlspill3_writer_new(fd, outname,
	    core_mlspill3_reader_schema(rd), 0);
	/* Output frames are written behind the merge (core_sort keeps a
	 * batch's buffers until the next emit). */
	if (o->threads != 1) {
		wpool = core_pool_new(core_pool_default(0, 2));
		core_mlspill3_writer_async(k.w, wpool);
	}
	size = core_paths_size(paths, npaths);
	while ((rc = core_mlspill3_reader_next(rd, &b, err)) == 0) {
		struct core_mlspill3_stats st;

		core_mlspill3_reader_stats(rd, &st);
		core_sort_input(s, st.bytes, size);
		if ((rc = core_sort_add(s, &b, err)) != 0)
			break;
		core_tool_progress(clk, prog, st.rows, st.bytes);
	}
	if (rc == CORE_EOF)
		rc = core_sort_finish(s, emit, &k, err);
	if (rc == 0)
		rc = core_mlspill3_writer_finish(k.w, err);
	core_tool_progress_end(clk);
	if (rc == 0 && o->stats)
		print_stats(s, &mem, clk);
out:
	core_mlspill3_writer_free(k.w);
	core_pool_free(wpool);
	core_sort_free(s);
	core_batch_release(&b);
	core_mlspill3_reader_free(rd);
	free(keys);
	return rc;
}

int
main(int argc, char **argv)
{
	struct core_atomic atom = { .fd = -1 };
	struct core_tool_clock clk;
	struct core_err err = { 0, "" };
	struct options o;
	const char *const *paths;
	size_t npaths;
	bool sorted = true;
	int rc, fd = 1;

	/* Large buffers come and go with the budget; fixing the mmap
	 * threshold makes each go back to the kernel when freed, so the
	 * resident size follows what is charged instead of the heap's
	 * high-water mark. */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
	core_tool_init_signals();
	if ((rc = parse_args(argc, argv, &o, &err)) != 0) {
		core_err_print(prog, &err);
		fprintf(stderr, "Try '%s --help' for more information.\n",
		    prog);
		free(o.keyspecs);
		free(o.tmpdirs);
		return CORE_EXIT_USAGE;
	}
	paths = (const char *const *)argv + optind;
	npaths = (size_t)(argc - optind);
	if (o.check) {
		rc = run_check(&o, paths, npaths, &sorted, &err);
		goto out;
	}
	if (o.output == NULL && core_tool_refuse_tty(prog, 1)) {
		free(o.keyspecs);
		free(o.tmpdirs);
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
	rc = run_sort(&o, paths, npaths, fd, o.output ? o.output : "stdout",
	    &clk, &err);
	if (o.output != NULL && rc == 0)
		rc = core_atomic_commit(&atom, &err);
out:
	core_atomic_release(&atom);
	free(o.keyspecs);
	free(o.tmpdirs);
	if (rc == 0)
		rc = core_close_stdout(&err);
	if (rc == CORE_EPIPE)
		return 0;
	if (rc != 0)
		return core_tool_fail(prog, &err);
	if (!sorted) {
		fprintf(stderr, "%s: %s\n", prog, err.msg);
		return CORE_EXIT_NO;
	}
	return 0;
}
