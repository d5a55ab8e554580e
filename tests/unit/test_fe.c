/*
 * test_fe.c - the front end's option parsing: values, the shared options
 * and the -j range.
 */
#include <getopt.h>
#include <unistd.h>

#include "fe.h"
#include "unit.h"

static uint64_t
size_of(const char *s, int *rc)
{
	struct core_err err;
	uint64_t v = 0;

	*rc = fe_parse_size(s, &v, &err);
	return v;
}

static void
test_sizes(void)
{
	int rc;

	CHECK_EQ_INT(size_of("4096", &rc), 4096);
	CHECK_EQ_INT(rc, 0);
	CHECK_EQ_INT(size_of("64M", &rc), 64ull << 20);
	CHECK_EQ_INT(size_of("1G", &rc), 1ull << 30);
	CHECK_EQ_INT(size_of("512KiB", &rc), 512ull << 10);
	CHECK_EQ_INT(size_of("512k", &rc), 512ull << 10);
	CHECK_EQ_INT(size_of("100kB", &rc), 100000);
	CHECK_EQ_INT(size_of("2MB", &rc), 2000000);
	CHECK_EQ_INT(size_of("3T", &rc), 3ull << 40);
	CHECK_EQ_INT(rc, 0);
	size_of("16E", &rc);
	CHECK_EQ_INT(rc, CORE_EUSAGE);		/* 2^64: overflow */
	size_of("99999999999999999999", &rc);
	CHECK_EQ_INT(rc, CORE_EUSAGE);
	size_of("17179869184G", &rc);		/* 2^34 * 2^30 */
	CHECK_EQ_INT(rc, CORE_EUSAGE);
	size_of("-1M", &rc);
	CHECK_EQ_INT(rc, CORE_EUSAGE);
	size_of("12X", &rc);
	CHECK_EQ_INT(rc, CORE_EUSAGE);
	size_of("1Mi", &rc);
	CHECK_EQ_INT(rc, CORE_EUSAGE);
	size_of("", &rc);
	CHECK_EQ_INT(rc, CORE_EUSAGE);
	size_of(" 1M", &rc);
	CHECK_EQ_INT(rc, CORE_EUSAGE);
}

static void
test_chars_and_counts(void)
{
	struct core_err err;
	uint64_t v;

	CHECK_EQ_INT(fe_parse_char("delimiter", "tab", false, &err),
	    '\t');
	CHECK_EQ_INT(fe_parse_char("delimiter", "\\t", false, &err),
	    '\t');
	CHECK_EQ_INT(fe_parse_char("delimiter", ";", false, &err),
	    ';');
	CHECK_EQ_INT(fe_parse_char("quote", "none", true, &err), 0);
	CHECK_EQ_INT(fe_parse_char("delimiter", "none", false, &err),
	    -1);
	CHECK_EQ_INT(fe_parse_char("delimiter", ",,", false, &err),
	    -1);
	CHECK(strstr(err.msg, "invalid delimiter ',,'") != NULL);
	CHECK_EQ_INT(fe_parse_count("--x", "123", &v, &err), 0);
	CHECK_EQ_INT(v, 123);
	CHECK_EQ_INT(fe_parse_count("--x", "12a", &v, &err),
	    CORE_EUSAGE);
	CHECK_EQ_INT(fe_parse_count("--x", "-3", &v, &err),
	    CORE_EUSAGE);
}

static void
no_usage(FILE *fp)
{
	(void)fp;
}

static const struct fe_tool test_tool = {
	.name = "test",
	.opts = FE_OPT_OUTPUT | FE_OPT_THREADS | FE_OPT_COMPRESS |
	    FE_OPT_BUDGET,
	.max_threads = 2,
	.threads_help = "threads",
	.usage = no_usage,
};

/* The tool's own option, -k: counts how often it came. */
static int
own_option(void *arg, int c, const char *optarg, struct core_err *err)
{
	(void)optarg;
	if (c != 'k')
		return core_err_set(err, CORE_EINTERNAL, "option %d", c);
	++*(int *)arg;
	return 0;
}

/* fe_parse on a command line given as one string of words. */
static int
parse_line(const char *line, struct fe_common *c, int *nk,
    struct core_err *err)
{
	static const struct option longopts[] = {
		{ "key", no_argument, NULL, 'k' },
		{ NULL, 0, NULL, 0 },
	};
	char buf[256], *argv[32], *w;
	int argc = 0, rc;

	snprintf(buf, sizeof(buf), "test %s", line);
	for (w = strtok(buf, " "); w != NULL && argc < 31;
	    w = strtok(NULL, " "))
		argv[argc++] = w;
	argv[argc] = NULL;
	optind = 0;		/* GNU getopt: start over */
	opterr = 0;
	*nk = 0;
	rc = fe_parse(argc, argv, "k", longopts, own_option, nk, c, err);
	return rc;
}

static void
test_shared_options(void)
{
	struct fe_common c;
	struct core_err err;
	int nk;

	fe_init(&test_tool);
	CHECK_EQ_INT(parse_line("-k -o out -j 2 --key x", &c, &nk, &err), 0);
	CHECK_EQ_INT(nk, 2);
	CHECK_EQ_STR(c.output, "out");
	CHECK_EQ_INT(c.threads, 2);
	fe_common_release(&c);
	/* -j beyond what the tool can use is clamped, not refused. */
	CHECK_EQ_INT(parse_line("-j 64", &c, &nk, &err), 0);
	CHECK_EQ_INT(c.threads, 2);
	fe_common_release(&c);
	CHECK_EQ_INT(parse_line("--threads=1", &c, &nk, &err), 0);
	CHECK_EQ_INT(c.threads, 1);
	fe_common_release(&c);
	CHECK_EQ_INT(parse_line("-j 0", &c, &nk, &err), CORE_EUSAGE);
	CHECK(strstr(err.msg, "at least 1") != NULL);
	fe_common_release(&c);
	CHECK_EQ_INT(parse_line("-j x", &c, &nk, &err), CORE_EUSAGE);
	fe_common_release(&c);
	CHECK_EQ_INT(parse_line("-z -m 64M -T a -T b --max-spill 1G "
	    "--compress-spill --stats --progress", &c, &nk, &err), 0);
	CHECK_EQ_INT(c.zstd_level, 1);
	CHECK_EQ_INT(c.memory, 64ull << 20);
	CHECK_EQ_INT(c.ntmpdirs, 2);
	CHECK_EQ_STR(c.tmpdirs[1], "b");
	CHECK_EQ_INT(c.max_spill, 1ull << 30);
	CHECK(c.compress_spill && c.stats && c.progress);
	fe_common_release(&c);
	CHECK_EQ_INT(parse_line("--compress=7", &c, &nk, &err), 0);
	CHECK_EQ_INT(c.zstd_level, 7);
	fe_common_release(&c);
	CHECK_EQ_INT(parse_line("--compress=20", &c, &nk, &err), CORE_EUSAGE);
	fe_common_release(&c);
	CHECK_EQ_INT(parse_line("-m 100K", &c, &nk, &err), CORE_EUSAGE);
	CHECK(strstr(err.msg, "256K") != NULL);
	fe_common_release(&c);
	/* An unknown option: named in err, as a bad value is. */
	CHECK_EQ_INT(parse_line("--nope", &c, &nk, &err), CORE_EUSAGE);
	CHECK_EQ_STR(err.msg, "unknown option '--nope'");
	fe_common_release(&c);
	CHECK_EQ_INT(parse_line("--stat", &c, &nk, &err), 0);
	CHECK(c.stats);
	fe_common_release(&c);
	CHECK_EQ_INT(parse_line("-m 1.5G", &c, &nk, &err), 0);
	CHECK_EQ_INT(c.memory, 3ull << 29);
	CHECK_EQ_STR(c.memory_text, "1.5G");
	fe_common_release(&c);
	CHECK_EQ_INT(parse_line("-m 64mb", &c, &nk, &err), 0);
	CHECK_EQ_INT(c.memory, 64000000);
	fe_common_release(&c);
	CHECK_EQ_INT(parse_line("-m 100%", &c, &nk, &err), 0);
	CHECK_EQ_INT(c.memory, (uint64_t)sysconf(_SC_PHYS_PAGES) *
	    (uint64_t)sysconf(_SC_PAGESIZE));
	fe_common_release(&c);
	CHECK_EQ_INT(parse_line("--max-spill 50%", &c, &nk, &err),
	    CORE_EUSAGE);
	fe_common_release(&c);
}

static void
test_exit_status_table(void)
{
	CHECK_EQ_INT(core_err_exit_status(CORE_OK), 0);
	CHECK_EQ_INT(core_err_exit_status(CORE_EUSAGE), 2);
	CHECK_EQ_INT(core_err_exit_status(CORE_EDATA), 3);
	CHECK_EQ_INT(core_err_exit_status(CORE_ETRUNC), 3);
	CHECK_EQ_INT(core_err_exit_status(CORE_ECORRUPT), 3);
	CHECK_EQ_INT(core_err_exit_status(CORE_ELIMIT), 4);
	CHECK_EQ_INT(core_err_exit_status(CORE_EIO), 5);
	CHECK_EQ_INT(core_err_exit_status(CORE_EINTERNAL), 70);
}

static void
test_err_prefix(void)
{
	struct core_err err;
	char big[2000];

	core_err_set(&err, CORE_EDATA, "%d:%d: bad", 3, 4);
	core_err_prefix(&err, "x.csv");
	CHECK_EQ_STR(err.msg, "x.csv: 3:4: bad");
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	core_err_set(&err, CORE_EDATA, "%s", big);
	CHECK_EQ_INT(strlen(err.msg), CORE_ERR_MSG_MAX - 1);
	core_err_prefix(&err, "p");
	CHECK_EQ_INT(strlen(err.msg), CORE_ERR_MSG_MAX - 1);
	CHECK(strncmp(err.msg, "p: aaa", 6) == 0);
	core_err_errno(&err, CORE_EIO, 2, "open %s", "f");
	CHECK_EQ_STR(err.msg, "open f: No such file or directory");
}

int
main(void)
{
	RUN(test_sizes);
	RUN(test_chars_and_counts);
	RUN(test_shared_options);
	RUN(test_exit_status_table);
	RUN(test_err_prefix);
	return unit_done();
}
