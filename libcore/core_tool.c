/*
 * core_tool.c - the shared front-end helpers (see core_tool.h).
 */
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "core_io.h"
#include "core_tool.h"

#ifndef COLPIPE_VERSION
#define COLPIPE_VERSION "0.0.0"
#endif
#ifndef COLPIPE_BUILD
#define COLPIPE_BUILD "unknown"
#endif
#ifndef COLPIPE_MODE
#define COLPIPE_MODE "unknown"
#endif

void
core_tool_print_version(const char *prog)
{
	printf("%s (colpipe) %s\n", prog, COLPIPE_VERSION);
	printf("build %s, %s mode\n", COLPIPE_BUILD, COLPIPE_MODE);
}

bool
core_tool_refuse_tty(const char *prog, int fd)
{
	if (!isatty(fd))
		return false;
	fprintf(stderr, "%s: refusing to write binary MLSPILL3 data to a "
	    "terminal\n%s: pipe it into col2csv, or redirect it to a file "
	    "(-o FILE)\n", prog, prog);
	return true;
}

void
core_tool_init_signals(void)
{
	/* A parent may leave SIGPIPE ignored (some shells, Python); the
	 * default action is what makes "| head" end us quietly. */
	signal(SIGPIPE, SIG_DFL);
}

int
core_tool_parse_count(const char *opt, const char *s, uint64_t *out,
    struct core_err *err)
{
	unsigned long long v;
	char *end;

	if (s == NULL || !isdigit((unsigned char)*s))
		goto bad;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0')
		goto bad;
	*out = v;
	return 0;
bad:
	return core_err_set(err, CORE_EUSAGE,
	    "invalid number for %s: '%s'", opt, s ? s : "");
}

int
core_tool_parse_threads(const char *s, unsigned *out, struct core_err *err)
{
	uint64_t v;

	if (core_tool_parse_count("--threads", s, &v, err) != 0)
		return CORE_EUSAGE;
	if (v < 1 || v > 2)
		return core_err_set(err, CORE_EUSAGE,
		    "--threads must be 1 or 2");
	*out = (unsigned)v;
	return 0;
}

int
core_size_parse(const char *s, uint64_t *out, struct core_err *err)
{
	static const char units[] = "KMGTPE";
	unsigned long long v;
	uint64_t mult = 1, base;
	const char *u, *p;
	char *end;
	int i, pow;

	if (s == NULL || !isdigit((unsigned char)*s))
		goto bad;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0)
		goto bad;
	u = end;
	if (*u != '\0') {
		p = strchr(units, toupper((unsigned char)*u));
		if (p == NULL)
			goto bad;
		pow = (int)(p - units) + 1;
		base = 1024;
		if (strcasecmp(u + 1, "") == 0 || strcasecmp(u + 1, "iB") == 0)
			base = 1024;
		else if (strcmp(u + 1, "B") == 0)
			base = 1000;
		else
			goto bad;
		for (i = 0; i < pow; i++)
			if (__builtin_mul_overflow(mult, base, &mult))
				goto overflow;
	}
	if (__builtin_mul_overflow((uint64_t)v, mult, out))
		goto overflow;
	return 0;
overflow:
	return core_err_set(err, CORE_EUSAGE, "size too large: '%s'", s);
bad:
	return core_err_set(err, CORE_EUSAGE,
	    "invalid size '%s' (examples: 4096, 512K, 64M, 1G, 512KiB, "
	    "100kB)", s ? s : "");
}

int
core_tool_parse_char(const char *opt, const char *s, bool allow_none,
    struct core_err *err)
{
	if (strcmp(s, "tab") == 0 || strcmp(s, "\\t") == 0 ||
	    strcmp(s, "\t") == 0)
		return '\t';
	if (allow_none && strcmp(s, "none") == 0)
		return 0;
	if (strlen(s) == 1 && s[0] != '\n' && s[0] != '\r')
		return (unsigned char)s[0];
	core_err_set(err, CORE_EUSAGE,
	    "invalid %s '%s': expected one character%s", opt, s,
	    allow_none ? ", 'tab' or 'none'" : " or 'tab'");
	return -1;
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void
core_tool_clock_start(struct core_tool_clock *c, bool want_progress)
{
	c->start = now();
	c->last_progress = c->start;
	c->progress = want_progress && isatty(2);
}

double
core_tool_elapsed(const struct core_tool_clock *c)
{
	return now() - c->start;
}

void
core_tool_progress(struct core_tool_clock *c, const char *prog,
    uint64_t rows, uint64_t bytes)
{
	double t;

	if (!c->progress)
		return;
	t = now();
	if (t - c->last_progress < 0.25)
		return;
	c->last_progress = t;
	fprintf(stderr, "\r%s: %llu rows, %.1f MB, %.1f s   ", prog,
	    (unsigned long long)rows, (double)bytes / 1e6, t - c->start);
}

void
core_tool_progress_end(struct core_tool_clock *c)
{
	if (c->progress && c->last_progress > c->start)
		fputs("\r\033[K", stderr);
	c->progress = false;
}

uint64_t
core_tool_peak_rss(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return 0;
	return (uint64_t)ru.ru_maxrss * 1024;
}

int
core_tool_fail(const char *prog, const struct core_err *err)
{
	core_err_print(prog, err);
	return core_err_exit_status(err->code);
}

int
core_tool_finish(const char *prog, int rc, struct core_err *err)
{
	if (rc == 0)
		rc = core_close_stdout(err);
	if (rc == 0 || rc == CORE_EPIPE)
		return 0;
	return core_tool_fail(prog, err);
}

void
core_tool_exit_help(void (*usage)(FILE *))
{
	struct core_err err;

	usage(stdout);
	exit(core_close_stdout(&err) == 0 ? 0 : CORE_EXIT_IO);
}

void
core_tool_exit_version(const char *prog)
{
	struct core_err err;

	core_tool_print_version(prog);
	exit(core_close_stdout(&err) == 0 ? 0 : CORE_EXIT_IO);
}
