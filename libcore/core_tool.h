/*
 * core_tool.h - what every colpipe binary shares around its main():
 * --version text, --stats and --progress reporting, refusing binary output
 * on a terminal, option-value parsing and the common exit path.
 *
 * Unlike the rest of libcore, these helpers print (to stderr), because
 * they exist to give every tool the same voice.
 */
#ifndef CORE_TOOL_H
#define CORE_TOOL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core_err.h"

/* Prints "prog (colpipe) VERSION" and build details to stdout. */
void core_tool_print_version(const char *prog);

/* True (after printing a hint) when fd is a terminal and the tool would
 * write binary MLSPILL3 to it. */
bool core_tool_refuse_tty(const char *prog, int fd);

/* Makes SIGPIPE end the process quietly, even when the parent left it
 * ignored (then EPIPE is turned into the same quiet exit). */
void core_tool_init_signals(void);

/* Parses a non-negative decimal count for option opt; CORE_EUSAGE with a
 * message on failure. */
int core_tool_parse_count(const char *opt, const char *s, uint64_t *out,
    struct core_err *err);

/* Parses the argument of -j/--threads: 1 or 2 (the tools use at most
 * two threads).  CORE_EUSAGE with a message otherwise. */
int core_tool_parse_threads(const char *s, unsigned *out,
    struct core_err *err);

/* Parses a size like "64M", "1G", "512KiB", "100kB", "4096" into bytes:
 * K/M/G/T/P and KiB/MiB/... are powers of 1024, kB/KB/MB/GB/TB are
 * powers of 1000, a bare number is bytes.  Overflow is an error. */
int core_size_parse(const char *s, uint64_t *out, struct core_err *err);

/* Parses a delimiter/quote argument: one byte, "tab", "\t", or for quotes
 * "none" (-> 0).  Returns the byte or -1 with a message. */
int core_tool_parse_char(const char *opt, const char *s, bool allow_none,
    struct core_err *err);

/* Progress and statistics. */
struct core_tool_clock {
	double start;		/* monotonic seconds at start */
	double last_progress;
	bool progress;		/* --progress and stderr is a terminal */
};
void core_tool_clock_start(struct core_tool_clock *c, bool want_progress);
double core_tool_elapsed(const struct core_tool_clock *c);
/* Prints "\rprog: N rows, X MB" at most a few times a second. */
void core_tool_progress(struct core_tool_clock *c, const char *prog,
    uint64_t rows, uint64_t bytes);
/* Clears the progress line (call before any other stderr output). */
void core_tool_progress_end(struct core_tool_clock *c);
/* Peak resident set size of this process in bytes. */
uint64_t core_tool_peak_rss(void);

/* Maps a failing code to the exit status after printing the message;
 * CORE_EPIPE exits quietly with 0 is NOT done here: callers decide.
 * Returns the exit status. */
int core_tool_fail(const char *prog, const struct core_err *err);

/* The end of every tool's main, given the run's code: closes stdout
 * (a failed flush, as on /dev/full, is an I/O error), takes a closed
 * downstream pipe as a quiet success (| head), and otherwise prints the
 * message and returns the exit status. */
int core_tool_finish(const char *prog, int rc, struct core_err *err);

/* --help and --version: print to stdout and exit 0, or 5 when stdout
 * cannot be written. */
void core_tool_exit_help(void (*usage)(FILE *)) __attribute__((noreturn));
void core_tool_exit_version(const char *prog) __attribute__((noreturn));

#endif
