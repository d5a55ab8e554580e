/*
 * core_err.h - error codes and the error object every libcore call fills.
 *
 * libcore never prints and never exits (the one exception is running out
 * of memory, see core_alloc.h).  A failing call returns a negative CORE_E*
 * code and leaves a human-readable message, with its context (file, line,
 * column, errno text), on the struct core_err the caller passed in.  Tools
 * print "progname: <msg>" and exit with core_err_exit_status(code).
 *
 * Messages follow the project style: lowercase, no final period, the place
 * first when there is one ("orders.csv:1042:7: unterminated quote").
 */
#ifndef CORE_ERR_H
#define CORE_ERR_H

#include <stdarg.h>

enum {
	CORE_OK = 0,
	CORE_EOF = 1,		/* positive: end of input, not a failure */
	CORE_EUSAGE = -1,	/* bad option or argument          -> exit 2 */
	CORE_EDATA = -2,	/* bad input data (parse, type)    -> exit 3 */
	CORE_ETRUNC = -3,	/* truncated stream                -> exit 3 */
	CORE_ECORRUPT = -4,	/* checksum or structure failure   -> exit 3 */
	CORE_ELIMIT = -5,	/* a limit was exceeded            -> exit 4 */
	CORE_EIO = -6,		/* read/write/open failure         -> exit 5 */
	CORE_EINTERNAL = -7,	/* a bug                           -> exit 70 */
	CORE_EPIPE = -8,	/* downstream went away (EPIPE)    -> quiet exit */
};

/* The exit statuses shared by every tool (STYLE.md, every man page). */
enum {
	CORE_EXIT_OK = 0,
	CORE_EXIT_NO = 1,
	CORE_EXIT_USAGE = 2,
	CORE_EXIT_DATA = 3,
	CORE_EXIT_LIMIT = 4,
	CORE_EXIT_IO = 5,
	CORE_EXIT_INTERNAL = 70,
};

#define CORE_ERR_MSG_MAX 1024

/* Embedded in objects or on the caller's stack; no release needed. */
struct core_err {
	int code;			/* last CORE_E* code, 0 when none */
	char msg[CORE_ERR_MSG_MAX];	/* NUL-terminated message */
};

/* Records code and a printf-style message; returns code for chaining:
 *	return core_err_set(err, CORE_EDATA, "%s:%llu: bad row", ...);
 * err may be NULL (the code is still returned). */
int core_err_set(struct core_err *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int core_err_vset(struct core_err *err, int code, const char *fmt,
    va_list ap);

/* Like core_err_set, appending ": strerror(errnum)". */
int core_err_errno(struct core_err *err, int code, int errnum,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Prefixes the existing message with "prefix: " (e.g. a file name). */
void core_err_prefix(struct core_err *err, const char *prefix);

void core_err_clear(struct core_err *err);

/* Maps a CORE_E* code to the shared exit status. */
int core_err_exit_status(int code);

/* Writes "progname: msg\n" to stderr.  The only printing helper; tools use
 * it, libcore does not. */
void core_err_print(const char *progname, const struct core_err *err);

#endif
