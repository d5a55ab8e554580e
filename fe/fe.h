/*
 * fe.h - the front end every colpipe tool shares: the layer between
 * libcore and each tool's main().
 *
 * libcore never prints and never exits; this layer does both, so that
 * every tool speaks with one voice: the options they share (parsed and
 * documented once), the usage-error tail, --help and --version, outputs
 * opened and committed by one opener (stdout, "-", regular files replaced
 * atomically, devices and FIFOs written in place, a terminal refused for
 * binary data, a tool's own input refused as its output), binary input
 * refused from a terminal, progress on stderr, and the exit path.
 *
 * Layers: tools/<tool>/ include fe.h and libcore's public headers;
 * fe/ includes libcore's public headers; libcore includes neither
 * (tests/layers.sh checks it).
 */
#ifndef FE_H
#define FE_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core_err.h"
#include "core_io.h"
#include "core_mem.h"
#include "core_outfile.h"

/* ---- the tool ---- */

/* The shared options a tool takes, or'ed together. */
enum {
	FE_OPT_OUTPUT = 1 << 0,		/* -o, --output FILE */
	FE_OPT_THREADS = 1 << 1,	/* -j, --threads N */
	FE_OPT_COMPRESS = 1 << 2,	/* -z, --compress[=L]: MLSPILL3 out */
	FE_OPT_BUDGET = 1 << 3,		/* -m, -T, --max-spill,
					 * --compress-spill */
};

/* What a tool tells the front end about itself; static for its life. */
struct fe_tool {
	const char *name;		/* "colsort" */
	unsigned opts;			/* FE_OPT_* */
	unsigned max_threads;		/* -j above this is clamped to it */
	const char *threads_help;	/* -j's line in --help */
	void (*usage)(FILE *);		/* the whole --help text */
	const char *output_help;	/* -o's line, NULL: the usual */
	int help_width;			/* option column, 0 = 23 */
};

/* The values of the shared options; zero means "not given". */
struct fe_common {
	const char *output;		/* -o: borrowed argv; NULL = stdout */
	bool stats;			/* --stats */
	bool progress;			/* --progress */
	unsigned threads;		/* -j: 0 = the tool's default */
	int zstd_level;			/* -z: 0 = frames stored raw */
	uint64_t memory;		/* -m: 0 = core_mem_default_limit */
	const char *memory_text;	/* -m as given: borrowed argv */
	const char **tmpdirs;		/* -T: owned array of borrowed argv */
	size_t ntmpdirs;
	uint64_t max_spill;		/* --max-spill: 0 = no cap */
	bool compress_spill;		/* --compress-spill */
};

/* The smallest --memory a budgeted stage accepts: below it, runs of a
 * few rows each would make merges of thousands of passes. */
#define FE_MIN_MEMORY ((uint64_t)256 << 10)

/* Sets the program name every message starts with and makes SIGPIPE end
 * the process quietly, even when the parent left it ignored.  First call
 * of every main. */
void fe_init(const struct fe_tool *t);

/* Names what the tool is doing now ("sorting"; static), for the message
 * of an out-of-memory end; fe_progress_phase calls it.  NULL: nothing
 * said. */
void fe_set_phase(const char *phase);

/* The tool given to fe_init. */
const struct fe_tool *fe_tool(void);
const char *fe_prog(void);

/*
 * A tool's own option: called with getopt_long's c and optarg for every
 * option that is not a shared one.  Returns 0, or CORE_EUSAGE with err set.
 */
typedef int (*fe_option_fn)(void *arg, int c, const char *optarg,
    struct core_err *err);

/*
 * Parses argv: the tool's own short options (getopt syntax) and long
 * options (NULL-terminated; values of 'val' below 1000) go to fn, the
 * shared ones the tool takes fill *c.  -h/--help and --version print and
 * exit here.  On return optind is the first operand.  0, or CORE_EUSAGE
 * with err set (an unknown option, or one without its value, too: one
 * line, as a bad value has).  Free c with fe_common_release.
 */
int fe_parse(int argc, char **argv, const char *shortopts,
    const struct option *longopts, fe_option_fn fn, void *arg,
    struct fe_common *c, struct core_err *err);
void fe_common_release(struct fe_common *c);

/* Prints the help lines of the shared options the tool takes, aligned
 * with the tool's own (the option column is help_width wide). */
void fe_usage_shared(FILE *fp);

/* Prints the usage error (when err has a message) and "Try 'PROG --help'
 * for more information."; returns CORE_EXIT_USAGE for main to return. */
int fe_usage_fail(const struct core_err *err);

/* Parsing option values, for the tools' own options.  CORE_EUSAGE with a
 * message naming opt on failure. */
int fe_parse_count(const char *opt, const char *s, uint64_t *out,
    struct core_err *err);
/* "64M", "1.5G", "512KiB", "100kB", "64mb", "4096": K/M/G/T/P/E and
 * KiB/MiB/... (any case) are powers of 1024, kB/MB/... (any case) powers
 * of 1000, a bare integer is bytes; a fraction is cut to whole bytes. */
int fe_parse_size(const char *s, uint64_t *out, struct core_err *err);
/* --memory: a size as above, or "50%" of the physical memory (as sort(1)
 * -S reads it); at least FE_MIN_MEMORY. */
int fe_parse_memory(const char *s, uint64_t *out, struct core_err *err);
/* --stats: the budget as the user gave it ("64M", "50% (8.2 GB)"), or
 * limit in MB with "(the default)". */
void fe_budget_text(const struct fe_common *c, uint64_t limit, char *buf,
    size_t size);
/* --batch-rows N: 1 to 1048576 rows per frame. */
int fe_parse_batch_rows(const char *s, uint32_t *out, struct core_err *err);
/* One byte, "tab" or "\t", and with allow_none "none" (-> 0); -1 with a
 * message otherwise. */
int fe_parse_char(const char *opt, const char *s, bool allow_none,
    struct core_err *err);

/* ---- inputs ---- */

/*
 * Binary (MLSPILL3) input from a terminal is refused, as binary output to
 * one is: with no operand, or with "-", and stdin a terminal, CORE_EUSAGE
 * with a hint (a tool would otherwise wait silently for bytes nobody will
 * type).
 */
int fe_refuse_tty_input(const char *const *paths, size_t npaths,
    struct core_err *err);

/* ---- outputs ---- */

/* An output the tool writes: stdout, or a file named on the command line
 * (core_outfile decides how it is written). */
struct fe_out {
	int fd;			/* write here */
	const char *name;	/* "stdout" or the path, for messages */
	bool is_stdout;		/* NULL or "-": fd 1, nothing to commit */
	struct core_outfile file;	/* when !is_stdout */
};

/*
 * Opens the output named path (NULL or "-" is stdout).  binary names the
 * format ("MLSPILL3", "Parquet") when the bytes are not text, and then a
 * terminal is refused with a hint (CORE_EUSAGE).  A path that is the same
 * file as one of inputs (npaths of them; "-" skipped) is refused
 * (CORE_EUSAGE) before anything is opened: the input would be gone before
 * it was read.  A directory is refused.  Call before any work, so that a
 * bad -o costs nothing.
 */
int fe_out_open(struct fe_out *o, const char *path, const char *binary,
    const char *const *inputs, size_t ninputs, struct core_err *err);

/* Makes a named output's bytes its contents (core_outfile_commit); a no-op
 * for stdout, which fe_finish closes. */
int fe_out_commit(struct fe_out *o, struct core_err *err);

/* Drops an uncommitted output and frees it; safe after commit, and on an
 * object fe_out_open failed on or was never called on when zeroed by
 * fe_out_zero. */
void fe_out_release(struct fe_out *o);
void fe_out_zero(struct fe_out *o);

/* ---- the end ---- */

/* --stats: "PROG: memory parts: NAME peak X MB, ..." for the parts of
 * budget m (core_mem_part), in the order the stage added them; nothing
 * when it has none. */
void fe_print_mem_parts(const struct core_mem *m);

/* Peak resident set size of this process in bytes. */
uint64_t fe_peak_rss(void);

/* Appends text to err's message (a tool's own wording after libcore's,
 * which never names a tool's options). */
void fe_err_append(struct core_err *err, const char *text);

/* Prints "PROG: message" for err and returns its exit status. */
int fe_fail(const struct core_err *err);

/*
 * The end of every main, given the run's code: closes stdout (a failed
 * flush, as on /dev/full, is an I/O error), takes a closed downstream
 * pipe as a quiet success (| head), and otherwise prints the message and
 * returns the exit status.
 */
int fe_finish(int rc, struct core_err *err);

/* ---- progress ---- */

/*
 * --progress, when stderr is a terminal: one status line per process,
 * redrawn at most four times a second, showing the phase ("reading",
 * "sorting", "merging 2/3", "writing"), the position in the input, with a
 * percentage and time left when its size is known, and throughput.
 * Several tools of one pipeline share the terminal line: each owns a
 * slot in a small table kept in a file beside the terminal's name
 * (fe_progress.c), and whoever draws draws every slot, so none
 * overwrites another's.
 */
struct fe_progress;

/* NULL (every call below then does nothing) unless want and stderr is a
 * terminal.  total is the input's size in bytes, 0 when not known. */
struct fe_progress *fe_progress_new(bool want, uint64_t total);
/* Sets the phase shown (a static string); redraws at once. */
void fe_progress_phase(struct fe_progress *p, const char *phase);
/* Reports the position: rows and input bytes handled so far. */
void fe_progress_update(struct fe_progress *p, uint64_t rows,
    uint64_t bytes);
/* Clears the line (call before any other stderr output) and frees p;
 * accepts NULL. */
void fe_progress_free(struct fe_progress *p);

/* Seconds since fe_init, for --stats. */
double fe_elapsed(void);

#endif
