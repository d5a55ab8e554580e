/*
 * fe.c - the shared front end (fe.h): options, usage, outputs, the end.
 *
 * The program name and the tool description are the only state: set once
 * by fe_init, read by every message, as getprogname(3) would be.
 */
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core_alloc.h"
#include "core_suggest.h"
#include "core_version.h"
#include "fe.h"

static const struct fe_tool *tool;
static double start_time;
static const char *volatile cur_phase;	/* fe_set_phase */

/* Values of the shared long options without a short form; the tools'
 * own use values below 1000. */
enum {
	FE_O_STATS = 1000, FE_O_PROGRESS, FE_O_VERSION, FE_O_MAX_SPILL,
	FE_O_COMPRESS_SPILL,
};

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void
fe_set_phase(const char *phase)
{
	cur_phase = phase;
}

/*
 * core_alloc's failure hook: the tool's name, what it was doing and what
 * to do about it.  No stdio and no allocation: memory has run out.
 */
static void
out_of_memory(size_t size)
{
	const char *ph = cur_phase;
	char msg[400];
	int n;

	n = snprintf(msg, sizeof(msg), "%s: out of memory%s%s: cannot "
	    "allocate %zu bytes more; %s\n", fe_prog(), ph ? " while " : "",
	    ph ? ph : "", size, tool != NULL && (tool->opts & FE_OPT_BUDGET) ?
	    "give a smaller --memory (-m), or raise the address-space "
	    "limit (ulimit -v) or free memory" : "raise the address-space "
	    "limit (ulimit -v) or free memory");
	if (n > 0)
		(void)!write(STDERR_FILENO, msg,
		    (size_t)n < sizeof(msg) ? (size_t)n : sizeof(msg) - 1);
}

void
fe_init(const struct fe_tool *t)
{
	tool = t;
	start_time = now();
	core_alloc_set_fail_hook(out_of_memory);
	/* A parent may leave SIGPIPE ignored (some shells, Python); the
	 * default action is what makes "| head" end us quietly. */
	signal(SIGPIPE, SIG_DFL);
}

const struct fe_tool *
fe_tool(void)
{
	return tool;
}

const char *
fe_prog(void)
{
	return tool != NULL ? tool->name : "colpipe";
}

double
fe_elapsed(void)
{
	return now() - start_time;
}

/* ---- option values ---- */

int
fe_parse_count(const char *opt, const char *s, uint64_t *out,
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
fe_parse_batch_rows(const char *s, uint32_t *out, struct core_err *err)
{
	uint64_t v;

	if (fe_parse_count("--batch-rows", s, &v, err) != 0)
		return CORE_EUSAGE;
	if (v == 0 || v > (1u << 20))
		return core_err_set(err, CORE_EUSAGE,
		    "--batch-rows must be 1 to 1048576");
	*out = (uint32_t)v;
	return 0;
}

/* A size's number: digits, optionally a fraction ("1.5"), as an integer
 * and its fraction's digits (at most 18 kept). */
static bool
size_number(const char *s, const char **end, uint64_t *ip, uint64_t *frac,
    unsigned *fdigits)
{
	char *e;

	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	*ip = strtoull(s, &e, 10);
	if (errno != 0)
		return false;
	*frac = 0;
	*fdigits = 0;
	if (*e == '.') {
		e++;
		if (!isdigit((unsigned char)*e))
			return false;
		for (; isdigit((unsigned char)*e); e++)
			if (*fdigits < 18) {
				*frac = *frac * 10 + (uint64_t)(*e - '0');
				(*fdigits)++;
			}
	}
	*end = e;
	return true;
}

/* ip.frac * mult, truncated to whole bytes; false on overflow. */
static bool
size_scale(uint64_t ip, uint64_t frac, unsigned fdigits, uint64_t mult,
    uint64_t *out)
{
	unsigned __int128 f = (unsigned __int128)frac * mult;
	unsigned i;

	for (i = 0; i < fdigits; i++)
		f /= 10;
	if (__builtin_mul_overflow(ip, mult, out) ||
	    __builtin_add_overflow(*out, (uint64_t)f, out))
		return false;
	return true;
}

static int
parse_size(const char *s, bool percent, uint64_t *out, struct core_err *err)
{
	static const char units[] = "KMGTPE";
	uint64_t mult = 1, base, ip, frac;
	unsigned fdigits;
	const char *u, *p;
	int i, pow;

	if (s == NULL || !size_number(s, &u, &ip, &frac, &fdigits))
		goto bad;
	if (percent && strcmp(u, "%") == 0) {
		/* As sort(1) -S reads it: of the physical memory. */
		long pages = sysconf(_SC_PHYS_PAGES);
		long psize = sysconf(_SC_PAGESIZE);
		uint64_t phys;

		if (ip > 100 || (ip == 100 && frac != 0))
			return core_err_set(err, CORE_EUSAGE, "invalid size "
			    "'%s': a percentage of memory is at most 100%%",
			    s);
		if (pages <= 0 || psize <= 0)
			return core_err_set(err, CORE_EUSAGE, "invalid size "
			    "'%s': the machine's memory is not known; give "
			    "bytes (64M)", s);
		phys = (uint64_t)pages * (uint64_t)psize;
		*out = (uint64_t)((unsigned __int128)phys * ip / 100);
		while (fdigits-- > 0)
			phys /= 10;
		*out += (uint64_t)((unsigned __int128)phys * frac / 100);
		return 0;
	}
	if (*u != '\0') {
		p = strchr(units, toupper((unsigned char)*u));
		if (p == NULL)
			goto bad;
		pow = (int)(p - units) + 1;
		if (strcasecmp(u + 1, "") == 0 || strcasecmp(u + 1, "iB") == 0)
			base = 1024;
		else if (strcasecmp(u + 1, "B") == 0)
			base = 1000;
		else
			goto bad;
		for (i = 0; i < pow; i++)
			if (__builtin_mul_overflow(mult, base, &mult))
				goto overflow;
	} else if (fdigits > 0) {
		goto bad;	/* "1.5" bytes */
	}
	if (!size_scale(ip, frac, fdigits, mult, out))
		goto overflow;
	return 0;
overflow:
	return core_err_set(err, CORE_EUSAGE, "size too large: '%s'", s);
bad:
	return core_err_set(err, CORE_EUSAGE,
	    "invalid size '%s' (examples: 4096, 512K, 64M, 1.5G, 512KiB, "
	    "100kB%s)", s ? s : "", percent ? ", 50%" : "");
}

int
fe_parse_size(const char *s, uint64_t *out, struct core_err *err)
{
	return parse_size(s, false, out, err);
}

int
fe_parse_memory(const char *s, uint64_t *out, struct core_err *err)
{
	if (parse_size(s, true, out, err) != 0)
		return CORE_EUSAGE;
	if (*out < FE_MIN_MEMORY)
		return core_err_set(err, CORE_EUSAGE,
		    "--memory must be at least 256K (got '%s')", s);
	return 0;
}

void
fe_budget_text(const struct fe_common *c, uint64_t limit, char *buf,
    size_t size)
{
	if (c->memory_text == NULL)
		snprintf(buf, size, "%.1f MB (the default)",
		    (double)limit / 1e6);
	else if (strchr(c->memory_text, '%') != NULL)
		snprintf(buf, size, "%s (%.1f MB)", c->memory_text,
		    (double)limit / 1e6);
	else
		snprintf(buf, size, "%s", c->memory_text);
}

int
fe_parse_char(const char *opt, const char *s, bool allow_none,
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

/* ---- --help, --version, usage errors ---- */

static void __attribute__((noreturn))
exit_after_stdout(void)
{
	struct core_err err;

	exit(core_close_stdout(&err) == 0 ? 0 : CORE_EXIT_IO);
}

static void __attribute__((noreturn))
exit_help(void)
{
	tool->usage(stdout);
	exit_after_stdout();
}

static void __attribute__((noreturn))
exit_version(void)
{
	printf("%s (colpipe) %s\n", fe_prog(), core_version());
	printf("build %s, %s mode\n", core_build_id(), core_build_mode());
	exit_after_stdout();
}

int
fe_usage_fail(const struct core_err *err)
{
	if (err != NULL && err->msg[0] != '\0')
		core_err_print(fe_prog(), err);
	fprintf(stderr, "Try '%s --help' for more information.\n",
	    fe_prog());
	return CORE_EXIT_USAGE;
}

/* One option's help: "  OPT" padded to the tool's column, then each
 * line of text (separated by '\n') at that column. */
static void
opt_help(FILE *fp, const char *opt, const char *text)
{
	int w = tool->help_width ? tool->help_width : 23;
	const char *nl;

	if ((int)strlen(opt) + 3 > w)
		fprintf(fp, "  %s\n%*s", opt, w, "");
	else
		fprintf(fp, "  %-*s", w - 2, opt);
	while ((nl = strchr(text, '\n')) != NULL) {
		fprintf(fp, "%.*s\n%*s", (int)(nl - text), text, w, "");
		text = nl + 1;
	}
	fprintf(fp, "%s\n", text);
}

void
fe_usage_shared(FILE *fp)
{
	unsigned o = tool->opts;

	if (o & FE_OPT_OUTPUT)
		opt_help(fp, "-o, --output FILE", tool->output_help ?
		    tool->output_help : "write FILE instead of stdout ('-' is "
		    "stdout); a regular\nfile is replaced only when complete");
	if (o & FE_OPT_COMPRESS)
		opt_help(fp, "-z, --compress[=L]", "zstd-compress frame "
		    "buffers (level L, default 1)");
	if (o & FE_OPT_BUDGET) {
		opt_help(fp, "-m, --memory SIZE", "memory budget: 64M, 1.5G, "
		    "or 50% of the physical\nmemory (default: from the "
		    "machine's memory)");
		opt_help(fp, "-T, --tmpdir DIR", "spill to DIR, repeatable, "
		    "used in turn\n(default $TMPDIR, /tmp)");
		opt_help(fp, "    --max-spill SIZE", "fail (exit 4) when spill "
		    "files would exceed SIZE");
		opt_help(fp, "    --compress-spill", "compress spill files "
		    "with zstd");
	}
	if (o & FE_OPT_THREADS)
		opt_help(fp, "-j, --threads N", tool->threads_help);
	opt_help(fp, "    --stats", "print rows, bytes, time and memory to "
	    "stderr");
	opt_help(fp, "    --progress", "show progress when stderr is a "
	    "terminal");
	opt_help(fp, "-h, --help", "show this help");
	opt_help(fp, "    --version", "show the version");
}

/* ---- parsing ---- */

static size_t
count_opts(const struct option *o)
{
	size_t n = 0;

	while (o != NULL && o[n].name != NULL)
		n++;
	return n;
}

/*
 * What getopt (silenced: it would name the program by its path) found
 * wrong with argv[optind - 1] or optopt, in one line as every other usage
 * error, with the closest long option when one is near.
 */
static int
bad_option(char **argv, const char *shorts, const struct option *all,
    size_t nall, struct core_err *err)
{
	const char *a = argv[optind - 1], *eq, *p, **names;
	size_t len, i;
	int best;

	if (a != NULL && strncmp(a, "--", 2) == 0) {
		eq = strchr(a, '=');
		len = eq != NULL ? (size_t)(eq - a) : strlen(a);
		if (optopt != 0 && eq != NULL)
			return core_err_set(err, CORE_EUSAGE, "option '%.*s' "
			    "takes no value", (int)len, a);
		if (optopt != 0)
			return core_err_set(err, CORE_EUSAGE, "option '%s' "
			    "needs a value", a);
		names = core_xcalloc(nall + 1, sizeof(*names));
		for (i = 0; i < nall; i++)
			names[i] = all[i].name;
		/* getopt takes a unique prefix: two that fit are a choice. */
		{
			char list[256] = "";
			size_t nfit = 0, m;

			for (i = 0; i < nall; i++)
				if (strncmp(names[i], a + 2, len - 2) == 0 &&
				    (m = strlen(list)) + 1 < sizeof(list)) {
					snprintf(list + m, sizeof(list) - m,
					    "%s--%s", nfit ? ", " : "",
					    names[i]);
					nfit++;
				}
			if (nfit > 1) {
				free(names);
				return core_err_set(err, CORE_EUSAGE,
				    "option '%.*s' is ambiguous: %s",
				    (int)len, a, list);
			}
		}
		{
			char want[128];

			snprintf(want, sizeof(want), "%.*s", (int)(len - 2),
			    a + 2);
			best = core_suggest_closest(want, names, nall);
		}
		if (best >= 0)
			core_err_set(err, CORE_EUSAGE, "unknown option '%.*s' "
			    "(did you mean '--%s'?)", (int)len, a,
			    names[best]);
		else
			core_err_set(err, CORE_EUSAGE, "unknown option "
			    "'%.*s'", (int)len, a);
		free(names);
		return CORE_EUSAGE;
	}
	p = optopt > 0 && optopt < 256 ? strchr(shorts, optopt) : NULL;
	if (p != NULL && p[1] == ':')
		return core_err_set(err, CORE_EUSAGE, "option -%c needs a "
		    "value", optopt);
	if (optopt > 32 && optopt < 127)
		return core_err_set(err, CORE_EUSAGE, "unknown option -%c",
		    optopt);
	return core_err_set(err, CORE_EUSAGE, "unknown option '%s'",
	    a != NULL ? a : "");
}

static int
shared_option(struct fe_common *c, int ch, const char *arg,
    struct core_err *err)
{
	uint64_t v;

	switch (ch) {
	case 'o':
		c->output = arg;
		return 0;
	case FE_O_STATS:
		c->stats = true;
		return 0;
	case FE_O_PROGRESS:
		c->progress = true;
		return 0;
	case 'j':
		if (fe_parse_count("--threads", arg, &v, err) != 0)
			return CORE_EUSAGE;
		if (v == 0)
			return core_err_set(err, CORE_EUSAGE,
			    "--threads must be at least 1");
		/* -j $(nproc) on a big machine asks for what is there;
		 * the tool takes what it can use. */
		c->threads = v > tool->max_threads ? tool->max_threads :
		    (unsigned)v;
		return 0;
	case 'z':
		c->zstd_level = 1;
		if (arg != NULL) {
			if (fe_parse_count("--compress", arg, &v, err) != 0)
				return CORE_EUSAGE;
			if (v < 1 || v > 19)
				return core_err_set(err, CORE_EUSAGE,
				    "--compress level must be 1 to 19");
			c->zstd_level = (int)v;
		}
		return 0;
	case 'm':
		if (fe_parse_memory(arg, &c->memory, err) != 0)
			return CORE_EUSAGE;
		c->memory_text = arg;
		return 0;
	case 'T':
		if (*arg == '\0')
			return core_err_set(err, CORE_EUSAGE,
			    "--tmpdir needs a directory");
		c->tmpdirs[c->ntmpdirs++] = arg;
		return 0;
	case FE_O_MAX_SPILL:
		if (fe_parse_size(arg, &c->max_spill, err) != 0)
			return CORE_EUSAGE;
		if (c->max_spill == 0)
			return core_err_set(err, CORE_EUSAGE,
			    "--max-spill must be more than 0");
		return 0;
	case FE_O_COMPRESS_SPILL:
		c->compress_spill = true;
		return 0;
	}
	return 1;		/* not a shared option */
}

int
fe_parse(int argc, char **argv, const char *shortopts,
    const struct option *longopts, fe_option_fn fn, void *arg,
    struct fe_common *c, struct core_err *err)
{
	static const struct option out_opts[] = {
		{ "output", required_argument, NULL, 'o' },
	}, thr_opts[] = {
		{ "threads", required_argument, NULL, 'j' },
	}, z_opts[] = {
		{ "compress", optional_argument, NULL, 'z' },
	}, budget_opts[] = {
		{ "memory", required_argument, NULL, 'm' },
		{ "tmpdir", required_argument, NULL, 'T' },
		{ "max-spill", required_argument, NULL, FE_O_MAX_SPILL },
		{ "compress-spill", no_argument, NULL, FE_O_COMPRESS_SPILL },
	}, base_opts[] = {
		{ "stats", no_argument, NULL, FE_O_STATS },
		{ "progress", no_argument, NULL, FE_O_PROGRESS },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, FE_O_VERSION },
	};
	unsigned o = tool->opts;
	size_t nown = count_opts(longopts), n = 0, slen;
	struct option *all;
	char *shorts;
	int ch, rc = 0;

#define ADD(tab) do {							\
	memcpy(all + n, tab, sizeof(tab));				\
	n += sizeof(tab) / sizeof(tab[0]);				\
} while (0)
	memset(c, 0, sizeof(*c));
	c->tmpdirs = core_xcalloc((size_t)argc + 1, sizeof(*c->tmpdirs));
	all = core_xcalloc(nown + 16, sizeof(*all));
	if (nown > 0)
		memcpy(all, longopts, nown * sizeof(*all));
	n = nown;
	if (o & FE_OPT_OUTPUT)
		ADD(out_opts);
	if (o & FE_OPT_THREADS)
		ADD(thr_opts);
	if (o & FE_OPT_COMPRESS)
		ADD(z_opts);
	if (o & FE_OPT_BUDGET)
		ADD(budget_opts);
	ADD(base_opts);
#undef ADD
	slen = strlen(shortopts);
	shorts = core_xmalloc(slen + 16);
	snprintf(shorts, slen + 16, "%s%s%s%s%sh", shortopts,
	    o & FE_OPT_OUTPUT ? "o:" : "", o & FE_OPT_THREADS ? "j:" : "",
	    o & FE_OPT_COMPRESS ? "z::" : "", o & FE_OPT_BUDGET ? "m:T:" : "");

	opterr = 0;
	while (rc == 0 && (ch = getopt_long(argc, argv, shorts, all,
	    NULL)) != -1) {
		if (ch == 'h' || ch == FE_O_VERSION) {
			free(shorts);
			free(all);
			fe_common_release(c);
			if (ch == 'h')
				exit_help();
			exit_version();
		}
		if (ch == '?' || ch == ':') {
			rc = bad_option(argv, shorts, all, n, err);
			break;
		}
		rc = shared_option(c, ch, optarg, err);
		if (rc == 1)
			rc = fn != NULL ? fn(arg, ch, optarg, err) :
			    core_err_set(err, CORE_EINTERNAL,
			    "option %d has no handler", ch);
	}
	free(shorts);
	free(all);
	return rc;
}

void
fe_common_release(struct fe_common *c)
{
	free(c->tmpdirs);
	c->tmpdirs = NULL;
	c->ntmpdirs = 0;
}

/* ---- inputs ---- */

int
fe_refuse_tty_input(const char *const *paths, size_t npaths,
    struct core_err *err)
{
	bool reads_stdin = npaths == 0;
	size_t i;

	for (i = 0; i < npaths; i++)
		if (strcmp(paths[i], "-") == 0)
			reads_stdin = true;
	if (!reads_stdin || !isatty(STDIN_FILENO))
		return 0;
	return core_err_set(err, CORE_EUSAGE, "refusing to read binary "
	    "MLSPILL3 data from a terminal\n%s: pipe a stream into it "
	    "(csv2col FILE | %s ...), or name a .col file", fe_prog(),
	    fe_prog());
}

/* ---- outputs ---- */

static int
refuse_tty(const char *binary, struct core_err *err)
{
	if (strcmp(binary, "MLSPILL3") == 0)
		return core_err_set(err, CORE_EUSAGE, "refusing to write "
		    "binary MLSPILL3 data to a terminal\n%s: pipe it into "
		    "col2csv, or redirect it to a file (-o FILE)", fe_prog());
	return core_err_set(err, CORE_EUSAGE, "refusing to write binary %s "
	    "data to a terminal\n%s: give -o FILE, or redirect stdout; to "
	    "read the input as text, pipe it into col2csv", binary,
	    fe_prog());
}

void
fe_out_zero(struct fe_out *o)
{
	memset(o, 0, sizeof(*o));
	o->fd = -1;
	o->file.fd = -1;
	o->file.dirfd = -1;
}

int
fe_out_open(struct fe_out *o, const char *path, const char *binary,
    const char *const *inputs, size_t ninputs, struct core_err *err)
{
	struct stat out, in;
	size_t i;
	int rc;

	fe_out_zero(o);
	if (path == NULL || strcmp(path, "-") == 0) {
		o->is_stdout = true;
		o->fd = STDOUT_FILENO;
		o->name = "stdout";
		if (binary != NULL && isatty(STDOUT_FILENO))
			return refuse_tty(binary, err);
		core_fd_enlarge_pipe(STDOUT_FILENO);
		return 0;
	}
	o->name = path;
	/* Replacing an input before reading it would lose it: refuse the
	 * same regular file under any name (a FIFO or a device is not
	 * replaced, so reading and writing one is the user's business). */
	if (stat(path, &out) == 0 && S_ISREG(out.st_mode))
		for (i = 0; i < ninputs; i++)
			if (strcmp(inputs[i], "-") != 0 &&
			    stat(inputs[i], &in) == 0 &&
			    in.st_dev == out.st_dev && in.st_ino == out.st_ino)
				return core_err_set(err, CORE_EUSAGE,
				    "%s: the output is also an input (%s); "
				    "write to another file", path, inputs[i]);
	if ((rc = core_outfile_open(&o->file, path, err)) != 0)
		return rc;
	o->fd = o->file.fd;
	if (binary != NULL && isatty(o->fd)) {
		core_outfile_abort(&o->file);
		return refuse_tty(binary, err);
	}
	core_fd_enlarge_pipe(o->fd);
	return 0;
}

int
fe_out_commit(struct fe_out *o, struct core_err *err)
{
	if (o->is_stdout)
		return 0;
	return core_outfile_commit(&o->file, err);
}

void
fe_out_release(struct fe_out *o)
{
	if (!o->is_stdout)
		core_outfile_release(&o->file);
	o->fd = -1;
}

/* ---- the end ---- */

void
fe_print_mem_parts(const struct core_mem *m)
{
	unsigned i;

	if (m->nparts == 0)
		return;
	fprintf(stderr, "%s: memory parts:", fe_prog());
	for (i = 0; i < m->nparts; i++)
		fprintf(stderr, "%s %s peak %.1f MB", i ? "," : "",
		    m->parts[i]->name, (double)m->parts[i]->peak / 1e6);
	fputc('\n', stderr);
}

uint64_t
fe_peak_rss(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return 0;
	return (uint64_t)ru.ru_maxrss * 1024;
}

void
fe_err_append(struct core_err *err, const char *text)
{
	size_t n = strlen(err->msg);

	snprintf(err->msg + n, sizeof(err->msg) - n, "%s", text);
}

int
fe_fail(const struct core_err *err)
{
	core_err_print(fe_prog(), err);
	return core_err_exit_status(err->code);
}

int
fe_finish(int rc, struct core_err *err)
{
	if (rc == 0)
		rc = core_close_stdout(err);
	if (rc == 0 || rc == CORE_EPIPE)
		return 0;
	return fe_fail(err);
}
