/*
 * shim.c - an LD_PRELOAD library that injects I/O faults into the tools,
 * for tests/cli/faults.bats.
 *
 * It interposes read, pread, readv, write, pwrite, writev, fsync (the
 * calls libcore's I/O is made of: core_io.c, core_mlspill3.c, core_spill.c,
 * core_outfile.c, core_parquet_read.c; no tool writes through stdio except
 * --help and messages on stderr, and close and rename cannot fail for want
 * of space once fsync has succeeded) and close and, on the descriptors it
 * selects,
 * makes them fail as a full disk, a bad sector or a signal would.  Every
 * fault is chosen by the environment, read once at load:
 *
 *	FAULT_PATH=GLOB		selects the descriptors whose /proc/self/fd
 *				link matches GLOB (fnmatch, so "/d/?*" also
 *				matches an unlinked "/d/#123 (deleted)" and
 *				"pipe:*" every pipe); unset: every
 *				descriptor above 2
 *	FAULT_ENOSPC_AFTER=N	writes to selected descriptors fail with
 *				ENOSPC once N bytes have been written to
 *				them in all (the write that crosses N is
 *				short, as a real disk's is)
 *	FAULT_EIO_AFTER=N	reads likewise fail with EIO after N bytes
 *	FAULT_FSYNC=E		fsync of a selected descriptor fails with
 *				errno E (EIO or ENOSPC)
 *	FAULT_EINTR_EVERY=K	every K-th selected call fails with EINTR,
 *				transferring nothing
 *	FAULT_SHORT=S		selected transfers move at most 1, 2, ...,
 *				S bytes, cycling, so every size of a short
 *				transfer up to S occurs
 *	FAULT_CLOSE_SLEEP=MS	after closing a selected FIFO, sleeps MS
 *				milliseconds: a reader that lets go of a
 *				FIFO and opens it again leaves its writer
 *				that long without a reader
 *	FAULT_NO_TMPFILE=1	open and openat with O_TMPFILE fail with
 *				EOPNOTSUPP, as on a file system without
 *				it (whatever FAULT_PATH says: the file
 *				does not exist yet)
 *	FAULT_LOG=FILE		appends one line for each fault injected
 *				("enospc", "eio", "fsync", "eintr",
 *				"short", "close", "notmpfile") so a test
 *				can see that it fired
 *
 * Counters are shared by every thread (atomics) and are per process: each
 * tool in a pipeline counts its own bytes.  The shim is test code, built
 * without the sanitizers (an ASan tool needs ASAN_OPTIONS
 * verify_asan_link_order=0 to accept it).
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

typedef ssize_t (*read_fn)(int, void *, size_t);
typedef ssize_t (*write_fn)(int, const void *, size_t);
typedef ssize_t (*pread_fn)(int, void *, size_t, off_t);
typedef ssize_t (*pwrite_fn)(int, const void *, size_t, off_t);
typedef ssize_t (*readv_fn)(int, const struct iovec *, int);
typedef ssize_t (*writev_fn)(int, const struct iovec *, int);
typedef int (*fsync_fn)(int);
typedef int (*close_fn)(int);
typedef int (*openat_fn)(int, const char *, int, ...);

static read_fn real_read;
static write_fn real_write;
static pread_fn real_pread;
static pwrite_fn real_pwrite;
static readv_fn real_readv;
static writev_fn real_writev;
static fsync_fn real_fsync;
static close_fn real_close;
static openat_fn real_openat;

static const char *path_glob;
static long long enospc_after = -1, eio_after = -1;
static long long eintr_every, short_max;
static int fsync_errno;
static long long close_sleep_ms;
static bool no_tmpfile;
static int log_fd = -1;

static long long written, readn, calls, shorts;

static long long
env_num(const char *name, long long dflt)
{
	const char *s = getenv(name);

	return s != NULL && *s != '\0' ? strtoll(s, NULL, 10) : dflt;
}

static void
resolve(void)
{
	real_read = (read_fn)dlsym(RTLD_NEXT, "read");
	real_write = (write_fn)dlsym(RTLD_NEXT, "write");
	real_pread = (pread_fn)dlsym(RTLD_NEXT, "pread");
	real_pwrite = (pwrite_fn)dlsym(RTLD_NEXT, "pwrite");
	real_readv = (readv_fn)dlsym(RTLD_NEXT, "readv");
	real_writev = (writev_fn)dlsym(RTLD_NEXT, "writev");
	real_fsync = (fsync_fn)dlsym(RTLD_NEXT, "fsync");
	real_close = (close_fn)dlsym(RTLD_NEXT, "close");
	real_openat = (openat_fn)dlsym(RTLD_NEXT, "openat");
}

static void __attribute__((constructor))
fault_init(void)
{
	const char *s;

	resolve();
	path_glob = getenv("FAULT_PATH");
	enospc_after = env_num("FAULT_ENOSPC_AFTER", -1);
	eio_after = env_num("FAULT_EIO_AFTER", -1);
	eintr_every = env_num("FAULT_EINTR_EVERY", 0);
	short_max = env_num("FAULT_SHORT", 0);
	close_sleep_ms = env_num("FAULT_CLOSE_SLEEP", 0);
	no_tmpfile = env_num("FAULT_NO_TMPFILE", 0) != 0;
	s = getenv("FAULT_FSYNC");
	if (s != NULL)
		fsync_errno = strcmp(s, "ENOSPC") == 0 ? ENOSPC : EIO;
	s = getenv("FAULT_LOG");
	if (s != NULL && *s != '\0')
		log_fd = open(s, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
		    0644);
}

static void
note(const char *what, int fd)
{
	char line[96];
	int n;

	if (log_fd < 0)
		return;
	n = snprintf(line, sizeof(line), "%s %d %d\n", what, (int)getpid(),
	    fd);
	/* Straight to the kernel: the log's own descriptor is not ours to
	 * fault. */
	if (n > 0)
		(void)!syscall(SYS_write, log_fd, line, (size_t)n);
}

static bool
selected(int fd)
{
	char link[32], target[4096];
	ssize_t n;

	if (fd == log_fd)
		return false;
	if (path_glob == NULL)
		return fd > 2;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return false;
	target[n] = '\0';
	return fnmatch(path_glob, target, 0) == 0;
}

/*
 * Decides the fate of one selected transfer of n bytes: returns -1 with
 * errno set for a failure, else the bytes to transfer (at most n).  limit
 * and counter are the ENOSPC or EIO threshold and its running count,
 * which tally() advances by what was transferred.
 */
static ssize_t
plan(int fd, size_t n, long long limit, long long *counter, int err,
    const char *what)
{
	long long done, k;
	size_t want = n;

	if (eintr_every > 0 &&
	    __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED) % eintr_every == 0) {
		note("eintr", fd);
		errno = EINTR;
		return -1;
	}
	if (short_max > 0 && n > 1) {
		k = __atomic_fetch_add(&shorts, 1, __ATOMIC_RELAXED) %
		    short_max + 1;
		if ((size_t)k < want) {
			want = (size_t)k;
			note("short", fd);
		}
	}
	if (limit >= 0 && n > 0) {
		done = __atomic_load_n(counter, __ATOMIC_RELAXED);
		if (done >= limit) {
			note(what, fd);
			errno = err;
			return -1;
		}
		if (done + (long long)want > limit)
			want = (size_t)(limit - done);
	}
	return (ssize_t)want;
}

static ssize_t
tally(ssize_t k, long long *counter)
{
	if (k > 0)
		__atomic_fetch_add(counter, (long long)k, __ATOMIC_RELAXED);
	return k;
}

/* An iovec array cut to its first want bytes, in cut (of at most max
 * entries); returns the entries used. */
static int
cut_iov(const struct iovec *iov, int cnt, size_t want, struct iovec *cut,
    int max)
{
	int i;

	for (i = 0; i < cnt && i < max && want > 0; i++) {
		cut[i] = iov[i];
		if (cut[i].iov_len > want)
			cut[i].iov_len = want;
		want -= cut[i].iov_len;
	}
	return i;
}

static size_t
iov_total(const struct iovec *iov, int cnt)
{
	size_t t = 0;
	int i;

	for (i = 0; i < cnt; i++)
		t += iov[i].iov_len;
	return t;
}

/* A mode is passed only with O_CREAT or O_TMPFILE. */
static bool
takes_mode(int flags)
{
	return (flags & O_CREAT) != 0 || (flags & O_TMPFILE) == O_TMPFILE;
}

/* Whether an open with flags fails as FAULT_NO_TMPFILE says. */
static bool
refuse_tmpfile(int flags)
{
	if (!no_tmpfile || (flags & O_TMPFILE) != O_TMPFILE)
		return false;
	note("notmpfile", -1);
	errno = EOPNOTSUPP;
	return true;
}

int
openat(int dirfd, const char *path, int flags, ...)
{
	mode_t mode;
	va_list ap;

	if (real_openat == NULL)
		resolve();
	va_start(ap, flags);
	mode = takes_mode(flags) ? (mode_t)va_arg(ap, int) : 0;
	va_end(ap);
	if (refuse_tmpfile(flags))
		return -1;
	return real_openat(dirfd, path, flags, mode);
}

/* open(path) is openat(AT_FDCWD, path). */
int
open(const char *path, int flags, ...)
{
	mode_t mode;
	va_list ap;

	va_start(ap, flags);
	mode = takes_mode(flags) ? (mode_t)va_arg(ap, int) : 0;
	va_end(ap);
	return openat(AT_FDCWD, path, flags, mode);
}

int open64(const char *path, int flags, ...)
    __attribute__((alias("open")));

int openat64(int dirfd, const char *path, int flags, ...)
    __attribute__((alias("openat")));

ssize_t
read(int fd, void *buf, size_t n)
{
	ssize_t k;

	if (real_read == NULL)
		resolve();
	if (!selected(fd))
		return real_read(fd, buf, n);
	k = plan(fd, n, eio_after, &readn, EIO, "eio");
	return k < 0 ? -1 : tally(real_read(fd, buf, (size_t)k), &readn);
}

ssize_t
pread(int fd, void *buf, size_t n, off_t off)
{
	ssize_t k;

	if (real_pread == NULL)
		resolve();
	if (!selected(fd))
		return real_pread(fd, buf, n, off);
	k = plan(fd, n, eio_after, &readn, EIO, "eio");
	return k < 0 ? -1 :
	    tally(real_pread(fd, buf, (size_t)k, off), &readn);
}

ssize_t pread64(int, void *, size_t, off_t);
ssize_t
pread64(int fd, void *buf, size_t n, off_t off)
{
	return pread(fd, buf, n, off);
}

ssize_t
readv(int fd, const struct iovec *iov, int cnt)
{
	struct iovec cut[64];
	ssize_t k;

	if (real_readv == NULL)
		resolve();
	if (!selected(fd))
		return real_readv(fd, iov, cnt);
	k = plan(fd, iov_total(iov, cnt), eio_after, &readn, EIO, "eio");
	if (k < 0)
		return -1;
	return tally(real_readv(fd, cut, cut_iov(iov, cnt, (size_t)k, cut,
	    64)), &readn);
}

ssize_t
write(int fd, const void *buf, size_t n)
{
	ssize_t k;

	if (real_write == NULL)
		resolve();
	if (!selected(fd))
		return real_write(fd, buf, n);
	k = plan(fd, n, enospc_after, &written, ENOSPC, "enospc");
	return k < 0 ? -1 :
	    tally(real_write(fd, buf, (size_t)k), &written);
}

ssize_t
pwrite(int fd, const void *buf, size_t n, off_t off)
{
	ssize_t k;

	if (real_pwrite == NULL)
		resolve();
	if (!selected(fd))
		return real_pwrite(fd, buf, n, off);
	k = plan(fd, n, enospc_after, &written, ENOSPC, "enospc");
	return k < 0 ? -1 :
	    tally(real_pwrite(fd, buf, (size_t)k, off), &written);
}

ssize_t pwrite64(int, const void *, size_t, off_t);
ssize_t
pwrite64(int fd, const void *buf, size_t n, off_t off)
{
	return pwrite(fd, buf, n, off);
}

ssize_t
writev(int fd, const struct iovec *iov, int cnt)
{
	struct iovec cut[1024];
	ssize_t k;

	if (real_writev == NULL)
		resolve();
	if (!selected(fd))
		return real_writev(fd, iov, cnt);
	k = plan(fd, iov_total(iov, cnt), enospc_after, &written, ENOSPC,
	    "enospc");
	if (k < 0)
		return -1;
	return tally(real_writev(fd, cut, cut_iov(iov, cnt, (size_t)k, cut,
	    1024)), &written);
}

int
fsync(int fd)
{
	if (real_fsync == NULL)
		resolve();
	if (fsync_errno != 0 && selected(fd)) {
		note("fsync", fd);
		errno = fsync_errno;
		return -1;
	}
	return real_fsync(fd);
}

int
close(int fd)
{
	struct stat st;
	struct timespec ts;
	bool fifo;
	int rc;

	if (real_close == NULL)
		resolve();
	fifo = close_sleep_ms > 0 && fstat(fd, &st) == 0 &&
	    S_ISFIFO(st.st_mode) && selected(fd);
	rc = real_close(fd);
	if (fifo) {
		int e = errno;

		note("close", fd);
		ts.tv_sec = close_sleep_ms / 1000;
		ts.tv_nsec = close_sleep_ms % 1000 * 1000000;
		while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
			;
		errno = e;
	}
	return rc;
}
