/*
 * fuzz_expr_bind.c - the expression parser, binder and evaluator on
 * arbitrary text against a fixed schema (schema.h).
 *
 * The first byte picks what the bound expression is used for (even: a
 * projection, odd: a filter); the rest is the text.  A parse or bind
 * must succeed or fail with CORE_EUSAGE and a "column N: ..." message;
 * an evaluation over a small batch of extreme values must succeed or
 * fail with CORE_EDATA (an overflow, a division by zero) or, for a
 * filter of a non-bool, CORE_EUSAGE, each with a message; a projection
 * must hand back a column of the bound type.  Never a crash, an
 * overflow the sanitizers see or a leak.
 */
#include <stdlib.h>
#include <string.h>

#include "core_expr.h"
#include "core_expr_bind.h"
#include "core_expr_eval.h"
#include "core_expr_parse.h"
#include "replay.h"
#include "schema.h"

static void
check_failure(int rc, int want, const struct core_err *err)
{
	if (rc != want || err->msg[0] == '\0')
		__builtin_trap();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct core_schema *schema;
	static struct core_batch batch;
	struct core_expr *e;
	struct core_expr_bound *b;
	struct core_column out;
	struct core_err err;
	uint32_t sel[FUZZ_ROWS], n;
	const char *src = (const char *)data + 1;
	int rc;

	if (size == 0)
		return 0;
	if (schema == NULL) {
		schema = fuzz_schema();
		core_batch_init(&batch, schema);
		fuzz_batch_fill(&batch);
	}
	if ((rc = core_expr_parse(src, size - 1, &e, &err)) != 0) {
		check_failure(rc, CORE_EUSAGE, &err);
		if (strncmp(err.msg, "column ", 7) != 0)
			__builtin_trap();
		return 0;
	}
	if ((rc = core_expr_bind(e, src, size - 1, schema, &b, &err)) != 0) {
		check_failure(rc, CORE_EUSAGE, &err);
		if (b != NULL || strncmp(err.msg, "column ", 7) != 0)
			__builtin_trap();
		core_expr_free(e);
		return 0;
	}
	if (data[0] & 1) {
		rc = core_expr_eval_filter(b, &batch, NULL, FUZZ_ROWS, sel, &n,
		    &err);
		if (rc == 0 && n > FUZZ_ROWS)
			__builtin_trap();
		if (rc != 0 && rc != CORE_EDATA)
			check_failure(rc, CORE_EUSAGE, &err);
		else if (rc != 0)
			check_failure(rc, CORE_EDATA, &err);
	} else {
		memset(&out, 0, sizeof(out));
		rc = core_expr_eval_project(b, &batch, NULL, FUZZ_ROWS, &out,
		    &err);
		if (rc == 0 && !core_type_equal(out.type,
		    core_expr_bound_type(b)))
			__builtin_trap();
		if (rc != 0)
			check_failure(rc, CORE_EDATA, &err);
		core_expr_column_release(&out);
	}
	core_expr_bound_free(b);
	core_expr_free(e);
	return 0;
}
