/*
 * test_io.c - inputs (plain, compressed by content, tar members), checked
 * output, atomic files, the size of a list of inputs, a read from an
 * idle pipe interrupted, and a mapped input's page that could not be
 * read.
 *
 * Compressed inputs are made here with libarchive's writer, so the test
 * needs no external programs.
 */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core_alloc.h"
#include "core_io.h"
#include "unit.h"

static char dir[] = "/tmp/test_io.XXXXXX";

static char *
path_of(const char *name)
{
	char *p = core_xmalloc(strlen(dir) + strlen(name) + 2);

	sprintf(p, "%s/%s", dir, name);
	return p;
}

/* Writes members (name, text) pairs with libarchive: filter is an
 * ARCHIVE_FILTER_* code, tar selects ustar over raw. */
static char *
make_file(const char *name, int filter, bool tar, const char *const *m,
    int nm)
{
	struct archive *a = archive_write_new();
	char *p = path_of(name);
	int i;

	archive_write_add_filter(a, filter);
	if (tar)
		archive_write_set_format_ustar(a);
	else
		archive_write_set_format_raw(a);
	CHECK_EQ_INT(archive_write_open_filename(a, p), ARCHIVE_OK);
	for (i = 0; i < nm; i++) {
		struct archive_entry *e = archive_entry_new();

		archive_entry_set_pathname(e, m[2 * i]);
		archive_entry_set_filetype(e, AE_IFREG);
		archive_entry_set_perm(e, 0644);
		archive_entry_set_size(e, (la_int64_t)strlen(m[2 * i + 1]));
		CHECK_EQ_INT(archive_write_header(a, e), ARCHIVE_OK);
		archive_write_data(a, m[2 * i + 1], strlen(m[2 * i + 1]));
		archive_entry_free(e);
	}
	archive_write_close(a);
	archive_write_free(a);
	return p;
}

/* Reads the current member whole through core_input_read. */
static char *
read_member(struct core_input *in)
{
	size_t len = 0, cap = 64;
	char *buf = core_xmalloc(cap);
	struct core_err err;
	ssize_t n;

	for (;;) {
		if (cap - len < 7) {
			cap *= 2;
			buf = core_xrealloc(buf, cap);
		}
		/* Small reads on purpose: members span many calls. */
		n = core_input_read(in, buf + len, 7, &err);
		CHECK(n >= 0);
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	return buf;
}

static void
test_plain_file_is_mapped(void)
{
	const char *m[] = { "x", "a,b\n1,2\n" };
	char *p = path_of("plain.csv");
	struct core_input *in;
	struct core_err err;
	size_t len;
	const char *map;
	char *got;
	FILE *f = fopen(p, "w");

	fputs(m[1], f);
	fclose(f);
	CHECK_EQ_INT(core_input_open(p, &in, &err), 0);
	map = core_input_map(in, &len);
	CHECK(map != NULL);
	CHECK_EQ_MEM(map, len, m[1]);
	got = read_member(in);
	CHECK_EQ_STR(got, m[1]);
	CHECK_EQ_STR(core_input_name(in), p);
	CHECK_EQ_INT(core_input_next_member(in, &err), CORE_EOF);
	free(got);
	core_input_free(in);
	free(p);
}

static void
check_compressed(int filter, const char *name)
{
	const char *m[] = { "data", "id,name\n1,\"x,y\"\n2,z\n" };
	char *p = make_file(name, filter, false, m, 1);
	struct core_input *in;
	struct core_err err;
	size_t len;
	char *got;

	CHECK_EQ_INT(core_input_open(p, &in, &err), 0);
	CHECK(core_input_map(in, &len) == NULL);
	got = read_member(in);
	CHECK_EQ_STR(got, m[1]);
	CHECK_EQ_STR(core_input_name(in), p);
	CHECK_EQ_INT(core_input_next_member(in, &err), CORE_EOF);
	free(got);
	core_input_free(in);
	free(p);
}

static void
test_compressed_by_content(void)
{
	/* Named .csv on purpose: the content decides. */
	check_compressed(ARCHIVE_FILTER_GZIP, "gz.csv");
	check_compressed(ARCHIVE_FILTER_BZIP2, "bz2.csv");
	check_compressed(ARCHIVE_FILTER_XZ, "xz.csv");
	check_compressed(ARCHIVE_FILTER_ZSTD, "zst.csv");
}

static void
test_tar_members(void)
{
	const char *m[] = { "a.csv", "x\n1\n", "b.csv", "x\n2\n3\n" };
	char *p = make_file("t.tar.gz", ARCHIVE_FILTER_GZIP, true, m, 2);
	struct core_input *in;
	struct core_err err;
	char *got, want[256];

	CHECK_EQ_INT(core_input_open(p, &in, &err), 0);
	snprintf(want, sizeof(want), "%s:a.csv", p);
	CHECK_EQ_STR(core_input_name(in), want);
	got = read_member(in);
	CHECK_EQ_STR(got, "x\n1\n");
	free(got);
	CHECK_EQ_INT(core_input_next_member(in, &err), 0);
	snprintf(want, sizeof(want), "%s:b.csv", p);
	CHECK_EQ_STR(core_input_name(in), want);
	got = read_member(in);
	CHECK_EQ_STR(got, "x\n2\n3\n");
	free(got);
	CHECK_EQ_INT(core_input_next_member(in, &err), CORE_EOF);
	core_input_free(in);
	free(p);
}

static void
test_damaged_and_missing(void)
{
	const char *m[] = { "data", "hello, world, this is text\n" };
	char *p = make_file("bad.gz", ARCHIVE_FILTER_GZIP, false, m, 1);
	struct core_input *in;
	struct core_err err;
	struct stat st;
	char buf[4096];
	ssize_t n;
	int fd;

	/* Cut the gzip member short: reading must fail, not end early. */
	stat(p, &st);
	CHECK_EQ_INT(truncate(p, st.st_size - 6), 0);
	/* Small inputs are found damaged already when opened. */
	if (core_input_open(p, &in, &err) == 0) {
		do
			n = core_input_read(in, buf, sizeof(buf), &err);
		while (n > 0);
		CHECK(n < 0);
		core_input_free(in);
	}
	CHECK_EQ_INT(err.code, CORE_EDATA);
	CHECK(strstr(err.msg, "bad.gz") != NULL);
	free(p);
	p = path_of("missing.csv");
	CHECK_EQ_INT(core_input_open(p, &in, &err), CORE_EIO);
	CHECK(strstr(err.msg, "missing.csv: No such file") != NULL);
	free(p);
	/* An empty file is one empty member. */
	p = path_of("empty.csv");
	fd = open(p, O_CREAT | O_WRONLY, 0644);
	close(fd);
	CHECK_EQ_INT(core_input_open(p, &in, &err), 0);
	CHECK_EQ_INT(core_input_read(in, buf, sizeof(buf), &err), 0);
	core_input_free(in);
	free(p);
}

/* While set, pread fails with EIO, as it does on a disk's bad page:
 * this pread, the executable's own, is the one libcore calls. */
static volatile bool pread_eio;

ssize_t
pread(int fd, void *buf, size_t n, off_t off)
{
	if (pread_eio) {
		errno = EIO;
		return -1;
	}
	return syscall(SYS_pread64, fd, buf, n, off);
}

ssize_t pread64(int fd, void *buf, size_t n, off_t off)
    __attribute__((alias("pread")));

/*
 * A mapped input whose page faults (SIGBUS, taken by the guard: zeros
 * are read) is "input changed" (CORE_EDATA) when the file shrank or a
 * read of that page works, and a read error (CORE_EIO) when the file
 * kept its size and the read fails too.
 */
static void
test_mapped_fault(void)
{
	char *p = path_of("fault.csv");
	const size_t sz = 1u << 20;
	struct core_input *in;
	struct core_err err;
	const volatile char *map;
	size_t len, i;
	FILE *f = fopen(p, "w");
	int round;

	for (i = 0; i < sz; i += 4)
		fputs("1,2\n", f);
	fclose(f);
	for (round = 0; round < 2; round++) {
		CHECK_EQ_INT(core_input_open(p, &in, &err), 0);
		map = core_input_map(in, &len);
		CHECK(map != NULL && len == sz);
		if (map == NULL)
			break;
		CHECK_EQ_INT(core_input_check(in, &err), 0);
		/* Cut: the last page faults and reads as zeros. */
		CHECK_EQ_INT(truncate(p, 4096), 0);
		CHECK_EQ_INT(map[sz - 1], 0);
		CHECK_EQ_INT(map[0], '1');
		if (round == 0) {
			/* Shrunk: changed, whatever a read says. */
			pread_eio = true;
			CHECK_EQ_INT(core_input_check(in, &err), CORE_EDATA);
			pread_eio = false;
		} else {
			/* Its size again: the page reads (a hole), so it
			 * changed; or it does not, and that is the disk. */
			CHECK_EQ_INT(truncate(p, (off_t)sz), 0);
			CHECK_EQ_INT(core_input_check(in, &err), CORE_EDATA);
			CHECK(strstr(err.msg, "input changed") != NULL);
			pread_eio = true;
			CHECK_EQ_INT(core_input_check(in, &err), CORE_EIO);
			pread_eio = false;
			CHECK(strstr(err.msg, "read error on") != NULL);
			CHECK(strstr(err.msg, "fault.csv") != NULL);
		}
		core_input_free(in);
		CHECK_EQ_INT(truncate(p, (off_t)sz), 0);
	}
	free(p);
}

static void
test_output_and_tmpfile(void)
{
	struct core_output o;
	struct core_err err;
	char big[5000], back[6000];
	int fd = core_tmpfile_open(dir, &err);

	CHECK(fd >= 0);
	memset(big, 'x', sizeof(big));
	core_output_init(&o, fd, "tmp", 4096);
	CHECK_EQ_INT(core_output_write(&o, "ab", 2, &err), 0);
	CHECK_EQ_INT(core_output_write(&o, big, sizeof(big), &err), 0);
	CHECK_EQ_INT(core_output_flush(&o, &err), 0);
	CHECK_EQ_INT(o.nbytes, 5002);
	CHECK_EQ_INT(pread(fd, back, sizeof(back), 0), 5002);
	CHECK(back[0] == 'a' && back[1] == 'b' && back[5001] == 'x');
	core_output_release(&o);
	close(fd);
	fd = open("/dev/full", O_WRONLY);
	if (fd >= 0) {
		core_output_init(&o, fd, "/dev/full", 0);
		CHECK_EQ_INT(core_output_write(&o, "x", 1, &err), 0);
		CHECK_EQ_INT(core_output_flush(&o, &err), CORE_EIO);
		CHECK(strstr(err.msg, "write error on /dev/full") != NULL);
		core_output_release(&o);
		close(fd);
	}
	CHECK(core_tmpfile_open("/nonexistent/dir", &err) < 0);
	CHECK(strstr(err.msg, "/nonexistent/dir") != NULL);
}

/* Sizes of inputs: regular files sum, stdin counts when it is one, and
 * anything else (a pipe, a missing path) makes the total unknown. */
static void
test_paths_size(void)
{
	char *a = path_of("size_a"), *b = path_of("size_b");
	const char *both[2], *with_stdin[2], *missing[2];
	int fd, saved, p[2];

	fd = open(a, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0 && write(fd, "12345", 5) == 5);
	close(fd);
	fd = open(b, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0 && write(fd, "1234567", 7) == 7);
	close(fd);
	both[0] = a;
	both[1] = b;
	CHECK_EQ_INT(core_paths_size(both, 2), 12);
	CHECK_EQ_INT(core_paths_size(both, 1), 5);
	missing[0] = a;
	missing[1] = "/nonexistent/file";
	CHECK_EQ_INT(core_paths_size(missing, 2), 0);
	missing[1] = "/dev/null";
	CHECK_EQ_INT(core_paths_size(missing, 2), 0);

	saved = dup(STDIN_FILENO);
	fd = open(b, O_RDONLY);
	dup2(fd, STDIN_FILENO);
	close(fd);
	with_stdin[0] = a;
	with_stdin[1] = "-";
	CHECK_EQ_INT(core_paths_size(NULL, 0), 7);
	CHECK_EQ_INT(core_paths_size(with_stdin, 2), 12);
	CHECK(pipe(p) == 0);
	dup2(p[0], STDIN_FILENO);
	close(p[0]);
	close(p[1]);
	CHECK_EQ_INT(core_paths_size(NULL, 0), 0);
	CHECK_EQ_INT(core_paths_size(with_stdin, 2), 0);
	dup2(saved, STDIN_FILENO);
	close(saved);
	free(a);
	free(b);
}

struct blocked_read {
	struct core_input *in;
	ssize_t n;
	struct core_err err;
};

static void *
read_blocked(void *v)
{
	struct blocked_read *b = v;
	char buf[64];

	b->n = core_input_read(b->in, buf, sizeof(buf), &b->err);
	return NULL;
}

/* A read waiting on a pipe whose writer says nothing returns once
 * interrupted, and every read after it fails too. */
static void
test_interrupt_idle_pipe(void)
{
	struct blocked_read b;
	struct core_err err;
	pthread_t tid;
	int fds[2], saved = dup(0);
	static char text[16384];
	char buf[64];
	size_t got = 0;
	ssize_t n;

	/* Enough for libarchive to tell the format without the end. */
	memset(text, 'x', sizeof(text));
	memset(&b, 0, sizeof(b));
	CHECK(saved >= 0 && pipe(fds) == 0);
	CHECK(dup2(fds[0], 0) == 0);
	close(fds[0]);
	CHECK(write(fds[1], text, sizeof(text)) == sizeof(text));
	CHECK_EQ_INT(core_input_open("-", &b.in, &err), 0);
	while (got < sizeof(text) &&
	    (n = core_input_read(b.in, buf, sizeof(buf), &err)) > 0)
		got += (size_t)n;
	CHECK_EQ_INT(got, sizeof(text));
	b.n = 1;
	CHECK(pthread_create(&tid, NULL, read_blocked, &b) == 0);
	usleep(50000);
	CHECK_EQ_INT(b.n, 1);	/* still waiting */
	core_input_interrupt(b.in);
	pthread_join(tid, NULL);
	CHECK_EQ_INT(b.n, CORE_EIO);
	CHECK_EQ_STR(b.err.msg, "stdin: read interrupted");
	CHECK(write(fds[1], "1,2\n", 4) == 4);
	CHECK(core_input_read(b.in, buf, sizeof(buf), &err) < 0);
	core_input_free(b.in);
	close(fds[1]);
	dup2(saved, 0);
	close(saved);
}

int
main(void)
{
	char cmd[64];
	int rc;

	if (mkdtemp(dir) == NULL)
		return 1;
	RUN(test_plain_file_is_mapped);
	RUN(test_compressed_by_content);
	RUN(test_tar_members);
	RUN(test_damaged_and_missing);
	RUN(test_output_and_tmpfile);
	RUN(test_paths_size);
	RUN(test_interrupt_idle_pipe);
	RUN(test_mapped_fault);
	rc = unit_done();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		return 1;
	return rc;
}
