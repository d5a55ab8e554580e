/*
 * fuzz_csv_dialect.c - the CSV reader with its dialect given, not
 * sniffed, on arbitrary bytes: what csv2col -d, -q and --header/
 * --no-header do.
 *
 * The first byte picks the delimiter (, ; TAB |), the quote (" ' or
 * none), the header (yes, no, detect) and one or two threads; the second
 * whether the types are pinned by a schema ("c1:int64,c2:string,..."),
 * so values that do not fit are rows to reject; the rest is the file.
 * Whatever the input, the reader must end in CORE_EOF or an error code
 * with a message, never crash, hang or hand out a batch that fails
 * core_batch_check.
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
	static const char delims[4] = { ',', ';', '\t', '|' };
	static const char quotes[3] = { '"', '\'', 0 };
	static const char *schemas[4] = { NULL, "a:int64,b:string",
	    "a:decimal(5,2),b:date,c:bool", "a:timestamp,b:double,c:int32" };
	struct core_csv_options opt;
	struct core_csv_reader *r;
	struct core_batch b;
	struct core_err err;
	char path[64];
	const char *paths[1] = { path };
	int fd, rc;

	if (size < 2)
		return 0;
	if ((fd = memfd_create("fuzz.csv", 0)) < 0)
		return 0;
	if (write(fd, data + 2, size - 2) != (ssize_t)(size - 2)) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	core_csv_options_init(&opt);
	opt.delimiter = delims[data[0] & 3];
	opt.quote = quotes[((data[0] >> 2) & 3) % 3];
	opt.header = (int)((data[0] >> 4) & 3) % 3 - 1;
	opt.threads = data[0] & 0x40 ? 2 : 1;
	opt.schema = schemas[data[1] & 3];
	opt.batch_rows = 5;
	opt.sample_rows = 1 + (data[1] >> 2);
	if (core_csv_reader_new(paths, 1, &opt, &r, &err) == 0) {
		core_batch_init(&b, core_csv_reader_schema(r));
		while ((rc = core_csv_reader_next(r, &b, &err)) == 0)
			if (core_batch_check(&b) != NULL)
				__builtin_trap();
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
