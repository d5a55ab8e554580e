/*
 * replay.h - run a libFuzzer-style target on files, without libFuzzer.
 *
 * Each fuzz_<parser>.c defines LLVMFuzzerTestOneInput.  Built normally
 * (make), the program replays the files named on its command line, so
 * the corpus and any crash reproducer run under ASan in make check.
 * Built with clang -fsanitize=fuzzer -DCORE_LIBFUZZER, libFuzzer's own
 * main drives it (tests/fuzz/README).
 */
#ifndef REPLAY_H
#define REPLAY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#ifndef CORE_LIBFUZZER
int
main(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		uint8_t *buf;
		long n;

		if (f == NULL || fseek(f, 0, SEEK_END) != 0 ||
		    (n = ftell(f)) < 0) {
			perror(argv[i]);
			return 2;
		}
		rewind(f);
		buf = malloc((size_t)n + 1);
		if (buf == NULL || fread(buf, 1, (size_t)n, f) != (size_t)n) {
			perror(argv[i]);
			return 2;
		}
		fclose(f);
		LLVMFuzzerTestOneInput(buf, (size_t)n);
		free(buf);
	}
	return 0;
}
#endif

#endif
