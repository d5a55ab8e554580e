/*
 * fuzz_csv.c - the CSV reader (sniffing, inference, parsing) on arbitrary
 * bytes.
 *
 * The input is offered as a file, so both the mapped (parallel) path and
 * sniffing run; the first byte also picks a thread count and whether the
 * header is sniffed.  Whatever the input, the reader must end in CORE_EOF
 * or an error code with a message, never crash, hang or hand out a batch
 * whose string offsets are out of order.
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core_col.h"
#include "core_csv.h"
#include "replay.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct core_csv_options opt;
	struct core_csv_reader *r;
	struct core_batch b;
	struct core_err err;
	char path[64];
	const char *paths[1] = { path };
	uint32_t i;
	int fd = memfd_create("fuzz.csv", 0), rc;

	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	core_csv_options_init(&opt);
	opt.threads = size > 0 && (data[0] & 1) ? 2 : 1;
	opt.batch_rows = 7;
	if (core_csv_reader_new(paths, 1, &opt, &r, &err) == 0) {
		core_batch_init(&b, core_csv_reader_schema(r));
		while ((rc = core_csv_reader_next(r, &b, &err)) == 0) {
			for (i = 0; i < b.ncols; i++) {
				const struct core_column *c = &b.cols[i];

				if (c->type.id == CORE_TYPE_STRING &&
				    c->offsets[b.nrows] < c->offsets[0])
					__builtin_trap();
			}
		}
		if (rc < 0 && err.msg[0] == '\0')
			__builtin_trap();
		core_batch_release(&b);
		core_csv_reader_free(r);
	} else if (err.msg[0] == '\0') {
		__builtin_trap();
	}
	close(fd);
	return 0;
}
