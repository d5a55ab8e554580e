/*
 * test_outfile.c - files written by name: regular files replaced only on
 * commit (keeping their mode, through symbolic links), devices and FIFOs
 * written in place, directories refused, nothing left behind.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core_alloc.h"
#include "core_outfile.h"
#include "unit.h"

static char dir[] = "/tmp/test_outfile.XXXXXX";

/* Entries an open, uncommitted file adds to its directory: none with
 * O_TMPFILE, its temporary name in the fallback. */
static int pending = 0;

static char *
path_of(const char *name)
{
	char *p = core_xmalloc(strlen(dir) + strlen(name) + 2);

	sprintf(p, "%s/%s", dir, name);
	return p;
}

static void
put(const char *name, const char *text, mode_t mode)
{
	char *p = path_of(name);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, mode);

	CHECK(fd >= 0);
	CHECK_EQ_INT(write(fd, text, strlen(text)), (long)strlen(text));
	close(fd);
	chmod(p, mode);
	free(p);
}

/* The file's contents ("" when missing) in a static buffer. */
static const char *
get(const char *name)
{
	static char buf[256];
	char *p = path_of(name);
	int fd = open(p, O_RDONLY);
	ssize_t n = 0;

	buf[0] = '\0';
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
	}
	buf[n > 0 ? n : 0] = '\0';
	free(p);
	return buf;
}

/* Entries of the test directory, "." and ".." aside. */
static int
entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			n++;
	closedir(d);
	return n;
}

static void
write_str(struct core_outfile *f, const char *s)
{
	CHECK_EQ_INT(write(f->fd, s, strlen(s)), (long)strlen(s));
}

static void
test_replace_and_abort(void)
{
	struct core_outfile f;
	struct core_err err;
	struct stat st;
	char *p = path_of("out.txt");

	put("out.txt", "old\n", 0640);
	CHECK_EQ_INT(core_outfile_open(&f, p, &err), 0);
	CHECK_EQ_INT(f.kind, CORE_OUTFILE_REPLACE);
	write_str(&f, "new\n");
	/* Until commit the old file is there, and nothing else is. */
	CHECK_EQ_STR(get("out.txt"), "old\n");
	CHECK_EQ_INT(entries(), 1 + pending);
	core_outfile_abort(&f);
	core_outfile_release(&f);
	CHECK_EQ_STR(get("out.txt"), "old\n");
	CHECK_EQ_INT(entries(), 1);

	CHECK_EQ_INT(core_outfile_open(&f, p, &err), 0);
	write_str(&f, "new\n");
	CHECK_EQ_INT(core_outfile_commit(&f, &err), 0);
	core_outfile_release(&f);
	CHECK_EQ_STR(get("out.txt"), "new\n");
	CHECK_EQ_INT(entries(), 1);
	/* The replaced file's mode is kept. */
	CHECK_EQ_INT(stat(p, &st), 0);
	CHECK_EQ_INT(st.st_mode & 07777, 0640);
	unlink(p);
	free(p);
}

static void
test_new_file(void)
{
	struct core_outfile f;
	struct core_err err;
	struct stat st;
	char *p = path_of("fresh.txt");
	mode_t mask = umask(022);

	CHECK_EQ_INT(core_outfile_open(&f, p, &err), 0);
	write_str(&f, "x");
	CHECK_EQ_INT(entries(), pending);
	CHECK_EQ_INT(core_outfile_commit(&f, &err), 0);
	core_outfile_release(&f);
	CHECK_EQ_STR(get("fresh.txt"), "x");
	CHECK_EQ_INT(stat(p, &st), 0);
	CHECK_EQ_INT(st.st_mode & 07777, 0644);
	umask(mask);
	unlink(p);
	free(p);
}

/* Through a symbolic link the link's target is replaced and the link
 * stays a link; a dangling link creates its target. */
static void
test_symlink(void)
{
	struct core_outfile f;
	struct core_err err;
	struct stat st;
	char *link = path_of("link"), *dangling = path_of("dangling");

	put("target", "old", 0600);
	CHECK_EQ_INT(symlink("target", link), 0);
	CHECK_EQ_INT(core_outfile_open(&f, link, &err), 0);
	write_str(&f, "new");
	CHECK_EQ_INT(core_outfile_commit(&f, &err), 0);
	core_outfile_release(&f);
	CHECK_EQ_INT(lstat(link, &st), 0);
	CHECK(S_ISLNK(st.st_mode));
	CHECK_EQ_STR(get("target"), "new");
	CHECK_EQ_INT(stat(link, &st), 0);
	CHECK_EQ_INT(st.st_mode & 07777, 0600);

	CHECK_EQ_INT(symlink("made", dangling), 0);
	CHECK_EQ_INT(core_outfile_open(&f, dangling, &err), 0);
	write_str(&f, "m");
	CHECK_EQ_INT(core_outfile_commit(&f, &err), 0);
	core_outfile_release(&f);
	CHECK_EQ_STR(get("made"), "m");
	CHECK_EQ_INT(lstat(dangling, &st), 0);
	CHECK(S_ISLNK(st.st_mode));
	unlink(link);
	unlink(dangling);
	free(link);
	free(dangling);
	link = path_of("target");
	unlink(link);
	free(link);
	link = path_of("made");
	unlink(link);
	free(link);
	CHECK_EQ_INT(entries(), 0);
}

static void
test_special_files(void)
{
	struct core_outfile f;
	struct core_err err;
	struct stat st;
	char *fifo = path_of("fifo"), *sub = path_of("sub");
	char buf[16] = "";
	pid_t pid;
	int fd, status;

	/* /dev/null stays a device. */
	CHECK_EQ_INT(core_outfile_open(&f, "/dev/null", &err), 0);
	CHECK_EQ_INT(f.kind, CORE_OUTFILE_DIRECT);
	write_str(&f, "gone");
	CHECK_EQ_INT(core_outfile_commit(&f, &err), 0);
	core_outfile_release(&f);
	CHECK_EQ_INT(stat("/dev/null", &st), 0);
	CHECK(S_ISCHR(st.st_mode));

	/* A FIFO is written to its reader, and stays a FIFO. */
	CHECK_EQ_INT(mkfifo(fifo, 0600), 0);
	pid = fork();
	if (pid == 0) {
		ssize_t n;

		fd = open(fifo, O_RDONLY);
		n = read(fd, buf, sizeof(buf) - 1);
		_exit(n == 5 && memcmp(buf, "hello", 5) == 0 ? 0 : 1);
	}
	CHECK_EQ_INT(core_outfile_open(&f, fifo, &err), 0);
	CHECK_EQ_INT(f.kind, CORE_OUTFILE_DIRECT);
	write_str(&f, "hello");
	CHECK_EQ_INT(core_outfile_commit(&f, &err), 0);
	core_outfile_release(&f);
	CHECK_EQ_INT(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK_EQ_INT(lstat(fifo, &st), 0);
	CHECK(S_ISFIFO(st.st_mode));
	unlink(fifo);

	/* /dev/fd/N writes to the descriptor itself. */
	fd = open(fifo, O_RDWR | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0);
	snprintf(buf, sizeof(buf), "/dev/fd/%d", fd);
	CHECK_EQ_INT(core_outfile_open(&f, buf, &err), 0);
	CHECK_EQ_INT(f.kind, CORE_OUTFILE_DIRECT);
	write_str(&f, "via fd");
	CHECK_EQ_INT(core_outfile_commit(&f, &err), 0);
	core_outfile_release(&f);
	close(fd);
	CHECK_EQ_STR(get("fifo"), "via fd");
	unlink(fifo);

	/* A directory is refused, and nothing is made. */
	CHECK_EQ_INT(mkdir(sub, 0700), 0);
	CHECK_EQ_INT(core_outfile_open(&f, sub, &err), CORE_EUSAGE);
	CHECK(strstr(err.msg, "is a directory") != NULL);
	core_outfile_release(&f);
	rmdir(sub);
	/* A missing directory is an I/O error naming the path. */
	CHECK_EQ_INT(core_outfile_open(&f, "/nonexistent/dir/x", &err),
	    CORE_EIO);
	CHECK(strstr(err.msg, "/nonexistent/dir/x") != NULL);
	core_outfile_release(&f);
	CHECK_EQ_INT(entries(), 0);
	free(fifo);
	free(sub);
}

/* A process killed before commit leaves neither a new file nor a
 * temporary one: the file has no name until commit. */
static void
test_sigkill_leaves_nothing(void)
{
	char *p = path_of("killed");
	pid_t pid;
	int status, pfd[2];
	char c;

	put("killed", "old", 0644);
	CHECK_EQ_INT(pipe(pfd), 0);
	pid = fork();
	if (pid == 0) {
		struct core_outfile f;
		struct core_err err;

		if (core_outfile_open(&f, p, &err) != 0)
			_exit(1);
		if (write(f.fd, "partial", 7) != 7)
			_exit(1);
		(void)!write(pfd[1], "r", 1);
		pause();
		_exit(0);
	}
	close(pfd[1]);
	CHECK_EQ_INT(read(pfd[0], &c, 1), 1);
	close(pfd[0]);
	kill(pid, SIGKILL);
	CHECK_EQ_INT(waitpid(pid, &status, 0), pid);
	CHECK(WIFSIGNALED(status));
	CHECK_EQ_STR(get("killed"), "old");
	CHECK_EQ_INT(entries(), 1);
	unlink(p);
	free(p);
}

static void
test_resolve_links(void)
{
	char *a = path_of("a"), *r;

	CHECK_EQ_INT(symlink("b", a), 0);
	r = core_path_resolve_links(a);
	CHECK(r != NULL && strcmp(r + strlen(dir), "/b") == 0);
	free(r);
	unlink(a);
	/* A loop is ELOOP, not a hang. */
	CHECK_EQ_INT(symlink("a", a), 0);
	errno = 0;
	CHECK(core_path_resolve_links(a) == NULL);
	CHECK_EQ_INT(errno, ELOOP);
	unlink(a);
	free(a);
}

/* The named-temporary fallback, for file systems without O_TMPFILE:
 * the same replacement, mode and symlink rules, and a temporary name
 * that exists only until commit or abort. */
static void
test_fallback(void)
{
	struct core_outfile f;
	struct core_err err;
	char *p = path_of("fb.txt");

	core_outfile_use_tmpfile(false);
	pending = 1;
	test_replace_and_abort();
	test_new_file();
	test_symlink();
	put("fb.txt", "old", 0644);
	CHECK_EQ_INT(core_outfile_open(&f, p, &err), 0);
	CHECK(f.tmp != NULL);
	CHECK_EQ_INT(entries(), 2);	/* the old file and the temporary */
	write_str(&f, "new");
	CHECK_EQ_INT(core_outfile_commit(&f, &err), 0);
	core_outfile_release(&f);
	CHECK_EQ_INT(entries(), 1);
	CHECK_EQ_STR(get("fb.txt"), "new");
	CHECK_EQ_INT(core_outfile_open(&f, p, &err), 0);
	write_str(&f, "lost");
	core_outfile_release(&f);	/* abort: the temporary goes */
	CHECK_EQ_INT(entries(), 1);
	CHECK_EQ_STR(get("fb.txt"), "new");
	unlink(p);
	free(p);
	pending = 0;
	core_outfile_use_tmpfile(true);
}

int
main(void)
{
	CHECK(mkdtemp(dir) != NULL);
	RUN(test_replace_and_abort);
	RUN(test_new_file);
	RUN(test_symlink);
	RUN(test_special_files);
	RUN(test_sigkill_leaves_nothing);
	RUN(test_resolve_links);
	RUN(test_fallback);
	rmdir(dir);
	return unit_done();
}
