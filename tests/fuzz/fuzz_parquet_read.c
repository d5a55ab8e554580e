/*
 * fuzz_parquet_read.c - the Parquet reader on arbitrary bytes: the
 * footer, then every column it supports, page by page.
 *
 * Whatever the input, opening and scanning must end in CORE_EOF or a
 * negative code with a message naming the file, never crash, read out of
 * bounds, loop or allocate beyond what the input's sizes allow; every
 * batch handed out must pass core_batch_check.
 */
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core_alloc.h"
#include "core_col.h"
#include "core_parquet_read.h"
#include "replay.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct core_parquet_file *f;
	struct core_parquet_scan *s;
	struct core_batch b;
	struct core_err err;
	uint32_t *cols, n = 0, i;
	int fd = memfd_create("fuzz", 0), rc;

	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	rc = core_parquet_file_open_fd(fd, "fuzz", &f, &err);
	if (rc != 0) {
		if (rc >= 0 || strstr(err.msg, "fuzz") == NULL)
			__builtin_trap();
		close(fd);
		return 0;
	}
	cols = core_xmalloc((core_parquet_file_ncols(f) + 1) *
	    sizeof(*cols));
	for (i = 0; i < core_parquet_file_ncols(f); i++)
		if (core_parquet_file_column(f, i)->supported)
			cols[n++] = i;
	/* Without a column the rows are the footer's count, however
	 * large: nothing to decode. */
	if (n == 0) {
		core_parquet_file_free(f);
		free(cols);
		close(fd);
		return 0;
	}
	if (core_parquet_scan_new(f, cols, n, &s, &err) != 0)
		__builtin_trap();
	core_batch_init(&b, core_parquet_scan_schema(s));
	while ((rc = core_parquet_scan_next(s, &b, &err)) == 0)
		if (b.nrows == 0 || core_batch_check(&b) != NULL)
			__builtin_trap();
	if (rc != CORE_EOF && (rc >= 0 || strstr(err.msg, "fuzz") == NULL))
		__builtin_trap();
	core_batch_release(&b);
	core_parquet_scan_free(s);
	core_parquet_file_free(f);
	free(cols);
	close(fd);
	return 0;
}
