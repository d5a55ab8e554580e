/*
 * test_tool.c - size and option-value parsing shared by every tool.
 */
#include "core_tool.h"
#include "unit.h"

static uint64_t
size_of(const char *s, int *rc)
{
	struct core_err err;
	uint64_t v = 0;

	*rc = core_size_parse(s, &v, &err);
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

	CHECK_EQ_INT(core_tool_parse_char("delimiter", "tab", false, &err),
	    '\t');
	CHECK_EQ_INT(core_tool_parse_char("delimiter", "\\t", false, &err),
	    '\t');
	CHECK_EQ_INT(core_tool_parse_char("delimiter", ";", false, &err),
	    ';');
	CHECK_EQ_INT(core_tool_parse_char("quote", "none", true, &err), 0);
	CHECK_EQ_INT(core_tool_parse_char("delimiter", "none", false, &err),
	    -1);
	CHECK_EQ_INT(core_tool_parse_char("delimiter", ",,", false, &err),
	    -1);
	CHECK(strstr(err.msg, "invalid delimiter ',,'") != NULL);
	CHECK_EQ_INT(core_tool_parse_count("--x", "123", &v, &err), 0);
	CHECK_EQ_INT(v, 123);
	CHECK_EQ_INT(core_tool_parse_count("--x", "12a", &v, &err),
	    CORE_EUSAGE);
	CHECK_EQ_INT(core_tool_parse_count("--x", "-3", &v, &err),
	    CORE_EUSAGE);
	{
		unsigned t = 9;

		CHECK_EQ_INT(core_tool_parse_threads("2", &t, &err), 0);
		CHECK_EQ_INT(t, 2);
		CHECK_EQ_INT(core_tool_parse_threads("1", &t, &err), 0);
		CHECK_EQ_INT(t, 1);
		CHECK_EQ_INT(core_tool_parse_threads("3", &t, &err),
		    CORE_EUSAGE);
		CHECK(strstr(err.msg, "1 or 2") != NULL);
		CHECK_EQ_INT(core_tool_parse_threads("0", &t, &err),
		    CORE_EUSAGE);
		CHECK_EQ_INT(core_tool_parse_threads("x", &t, &err),
		    CORE_EUSAGE);
		CHECK_EQ_INT(t, 1);
	}
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
	RUN(test_exit_status_table);
	RUN(test_err_prefix);
	return unit_done();
}
