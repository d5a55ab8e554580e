/*
 * fuzz_expr_parse.c - the expression and select-list parsers on arbitrary
 * bytes.
 *
 * The first byte picks the parser (even: an expression, odd: a select
 * list); the rest is the text.  Whatever the input, the parse must either
 * succeed, and then its canonical print must parse and print the same
 * again, or fail with CORE_EUSAGE and a "column N: ..." message; never
 * crash, overflow the stack or leak.
 */
#include <stdlib.h>
#include <string.h>

#include "core_expr.h"
#include "core_expr_parse.h"
#include "replay.h"

static void
check_failure(int rc, const struct core_err *err)
{
	if (rc != CORE_EUSAGE || strncmp(err->msg, "column ", 7) != 0)
		__builtin_trap();
}

static void
fuzz_expr(const char *s, size_t len)
{
	struct core_expr *e, *back;
	struct core_err err;
	char *p1, *p2;
	int rc;

	if ((rc = core_expr_parse(s, len, &e, &err)) != 0) {
		check_failure(rc, &err);
		return;
	}
	p1 = core_expr_print(e);
	if (core_expr_parse(p1, strlen(p1), &back, &err) != 0)
		__builtin_trap();
	p2 = core_expr_print(back);
	if (strcmp(p1, p2) != 0)
		__builtin_trap();
	free(p1);
	free(p2);
	core_expr_free(back);
	core_expr_free(e);
}

static void
fuzz_select(const char *s, size_t len)
{
	struct core_select *sel, *back;
	struct core_err err;
	char *p1, *p2;
	int rc;

	if ((rc = core_select_parse(s, len, &sel, &err)) != 0) {
		check_failure(rc, &err);
		return;
	}
	p1 = core_select_print(sel);
	if (core_select_parse(p1, strlen(p1), &back, &err) != 0)
		__builtin_trap();
	p2 = core_select_print(back);
	if (strcmp(p1, p2) != 0)
		__builtin_trap();
	free(p1);
	free(p2);
	core_select_free(back);
	core_select_free(sel);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	if (data[0] & 1)
		fuzz_select((const char *)data + 1, size - 1);
	else
		fuzz_expr((const char *)data + 1, size - 1);
	return 0;
}
