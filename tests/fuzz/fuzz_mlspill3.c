/*
 * fuzz_mlspill3.c - the MLSPILL3 reader on arbitrary bytes.
 *
 * Whatever the input, the reader must end in CORE_EOF or an error code,
 * never crash, read out of bounds or loop; every batch it hands out must
 * be structurally sound (string offsets within the values).
 */
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core_col.h"
#include "core_mlspill3.h"
#include "replay.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct core_mlspill3_reader *r;
	struct core_batch b;
	struct core_err err;
	uint32_t i;
	int fd = memfd_create("fuzz", 0), rc;

	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	lseek(fd, 0, SEEK_SET);
	if (core_mlspill3_reader_new_fd(fd, "fuzz", &r, &err) == 0) {
		core_batch_init(&b, core_mlspill3_reader_schema(r));
		while ((rc = core_mlspill3_reader_next(r, &b, &err)) == 0) {
			for (i = 0; i < b.ncols; i++) {
				const struct core_column *c = &b.cols[i];

				if (c->type.id == CORE_TYPE_STRING &&
				    c->offsets[b.nrows] < c->offsets[0])
					__builtin_trap();
			}
		}
		if (rc > 0 && rc != CORE_EOF)
			__builtin_trap();
		core_batch_release(&b);
		core_mlspill3_reader_free(r);
	}
	close(fd);
	return 0;
}
