/*
 * core_outfile.c - files written by name (core_outfile.h).
 *
 * Replacement is unnamed until commit: O_TMPFILE creates an inode with no
 * name in the target's directory (so it is on the right file system for
 * the final rename, and no kind of exit can leave it behind), and commit
 * gives it a name through /proc/self/fd with linkat(AT_SYMLINK_FOLLOW),
 * which needs no privilege (AT_EMPTY_PATH would need CAP_DAC_READ_SEARCH).
 * linkat cannot replace a name, so a new file is linked straight to its
 * name, and an existing one is linked to a hidden name and renamed over
 * the target; signals are blocked across those two calls so that only
 * SIGKILL, in a window of two system calls, could leave the hidden name.
 *
 * The fallback (no O_TMPFILE, no /proc) is a named temporary kept in a
 * small table that a signal handler walks to unlink before re-raising the
 * signal with its default action.
 *
 * Invariants: open implies fd >= 0; kind == REPLACE implies dirfd >= 0
 * and base != NULL while open; tmp != NULL only for the fallback, and only
 * while open.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core_alloc.h"
#include "core_outfile.h"

/* ---- the fallback's signal cleanup ---- */

#define TRACK_MAX 8

/* Absolute or cwd-relative names a signal handler must unlink.  Written
 * only with every signal blocked, under track_mu (spill files are made
 * on several threads); read by the handler. */
static char *volatile tracked[TRACK_MAX];
static volatile sig_atomic_t handlers_set;
static pthread_mutex_t track_mu = PTHREAD_MUTEX_INITIALIZER;

static void
on_signal(int sig)
{
	int i;

	for (i = 0; i < TRACK_MAX; i++)
		if (tracked[i] != NULL)
			(void)unlink(tracked[i]);
	signal(sig, SIG_DFL);
	raise(sig);
}

void
core_outfile_track(char *name, bool add)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE,
	    SIGXFSZ };
	sigset_t all, old;
	struct sigaction sa;
	size_t k;
	int i;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	pthread_mutex_lock(&track_mu);
	if (!handlers_set) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_signal;
		sigfillset(&sa.sa_mask);
		for (k = 0; k < sizeof(sigs) / sizeof(sigs[0]); k++) {
			struct sigaction cur;

			/* Leave ignored signals ignored (nohup). */
			if (sigaction(sigs[k], NULL, &cur) == 0 &&
			    cur.sa_handler == SIG_IGN)
				continue;
			sigaction(sigs[k], &sa, NULL);
		}
		handlers_set = 1;
	}
	for (i = 0; i < TRACK_MAX; i++) {
		if (add && tracked[i] == NULL) {
			tracked[i] = name;
			break;
		}
		if (!add && tracked[i] == name) {
			tracked[i] = NULL;
			break;
		}
	}
	pthread_mutex_unlock(&track_mu);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* ---- names ---- */

char *
core_path_resolve_links(const char *path)
{
	char *cur = core_xstrdup(path);
	char link[PATH_MAX];
	struct stat st;
	int hops;

	for (hops = 0; hops <= 40; hops++) {
		ssize_t n;
		char *slash, *next;
		size_t dlen;

		if (lstat(cur, &st) != 0) {
			if (errno == ENOENT)
				return cur;
			goto fail;
		}
		if (!S_ISLNK(st.st_mode))
			return cur;
		n = readlink(cur, link, sizeof(link) - 1);
		if (n < 0)
			goto fail;
		link[n] = '\0';
		slash = strrchr(cur, '/');
		if (link[0] == '/' || slash == NULL) {
			next = core_xstrdup(link);
		} else {
			dlen = (size_t)(slash - cur) + 1;
			next = core_xmalloc(dlen + (size_t)n + 1);
			memcpy(next, cur, dlen);
			memcpy(next + dlen, link, (size_t)n + 1);
		}
		free(cur);
		cur = next;
	}
	errno = ELOOP;
fail:
	{
		int e = errno;

		free(cur);
		errno = e;
	}
	return NULL;
}

/* The descriptor named by /dev/stdout, /dev/stderr, /dev/stdin,
 * /dev/fd/N or /proc/self/fd/N, or -1 for any other path.  These are
 * written through the descriptor itself: reopening them by name would
 * truncate a file the shell opened for appending, and replacing them
 * would turn a device into a regular file. */
static int
inherited_fd(const char *path)
{
	static const char *const pfx[] = { "/dev/fd/", "/proc/self/fd/" };
	const char *p = NULL;
	size_t i;
	long v;
	char *end;

	if (strcmp(path, "/dev/stdin") == 0)
		return 0;
	if (strcmp(path, "/dev/stdout") == 0)
		return 1;
	if (strcmp(path, "/dev/stderr") == 0)
		return 2;
	for (i = 0; i < 2 && p == NULL; i++)
		if (strncmp(path, pfx[i], strlen(pfx[i])) == 0)
			p = path + strlen(pfx[i]);
	if (p == NULL || *p < '0' || *p > '9')
		return -1;
	errno = 0;
	v = strtol(p, &end, 10);
	if (errno != 0 || *end != '\0' || v > INT_MAX)
		return -1;
	return (int)v;
}

static void
split_target(struct core_outfile *f, char **dir)
{
	char *slash = strrchr(f->target, '/');

	if (slash == NULL) {
		*dir = core_xstrdup(".");
		f->base = core_xstrdup(f->target);
	} else {
		size_t dlen = slash == f->target ? 1 :
		    (size_t)(slash - f->target);

		*dir = core_xmalloc(dlen + 1);
		memcpy(*dir, f->target, dlen);
		(*dir)[dlen] = '\0';
		f->base = core_xstrdup(slash + 1);
	}
}

/* A hidden name beside the target that does not exist yet is chosen by
 * the caller's retry loop; this only makes candidates. */
static void
hidden_name(char *buf, size_t cap, const char *base, unsigned attempt)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	snprintf(buf, cap, ".%s.%ld.%lx%x.tmp", base, (long)getpid(),
	    (unsigned long)ts.tv_nsec, attempt);
}

/* Cleared by tests to run the fallback where O_TMPFILE works. */
static bool use_tmpfile = true;

void
core_outfile_use_tmpfile(bool use)
{
	use_tmpfile = use;
}

static bool
have_proc_fd(void)
{
	return use_tmpfile && access("/proc/self/fd", X_OK) == 0;
}

/* The named-temporary fallback: ".BASE.tmpXXXXXX" beside the target. */
static int
open_named(struct core_outfile *f, const char *dir, struct core_err *err)
{
	size_t len = strlen(dir) + strlen(f->base) + 16;

	f->tmp = core_xmalloc(len);
	snprintf(f->tmp, len, "%s/.%s.tmpXXXXXX", dir, f->base);
	core_outfile_track(f->tmp, true);
	f->fd = mkostemp(f->tmp, O_CLOEXEC);
	if (f->fd < 0) {
		int e = errno;

		core_outfile_track(f->tmp, false);
		free(f->tmp);
		f->tmp = NULL;
		return core_err_errno(err, CORE_EIO, e, "cannot create %s",
		    f->path);
	}
	return 0;
}

/* Gives the new file the old one's mode, owner and group (best effort
 * for the owner: only root may give a file away), or for a new file the
 * mode a plain creat(2) would. */
static void
set_mode(struct core_outfile *f, const struct stat *old)
{
	mode_t mask;

	if (f->existed) {
		struct stat now;

		if (fstat(f->fd, &now) == 0 &&
		    (now.st_uid != old->st_uid || now.st_gid != old->st_gid))
			(void)fchown(f->fd, old->st_uid, old->st_gid);
		(void)fchmod(f->fd, old->st_mode & 07777);
		return;
	}
	if (f->tmp == NULL)
		return;		/* O_TMPFILE applied mode & ~umask */
	mask = umask(0);
	umask(mask);
	(void)fchmod(f->fd, 0666 & ~mask);
}

int
core_outfile_open(struct core_outfile *f, const char *path,
    struct core_err *err)
{
	struct stat st;
	int ifd, rc;

	memset(&st, 0, sizeof(st));
	memset(f, 0, sizeof(*f));
	f->fd = -1;
	f->dirfd = -1;
	f->path = core_xstrdup(path);
	if (*path == '\0')
		return core_err_set(err, CORE_EUSAGE, "empty output file "
		    "name");

	if ((ifd = inherited_fd(path)) >= 0) {
		f->kind = CORE_OUTFILE_DIRECT;
		f->fd = fcntl(ifd, F_DUPFD_CLOEXEC, 3);
		if (f->fd < 0)
			return core_err_errno(err, CORE_EIO, errno,
			    "cannot write %s", path);
		f->open = true;
		return 0;
	}

	f->target = core_path_resolve_links(path);
	if (f->target == NULL)
		return core_err_errno(err, CORE_EIO, errno, "cannot write %s",
		    path);
	if (stat(f->target, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return core_err_set(err, CORE_EUSAGE,
			    "%s: is a directory", path);
		if (!S_ISREG(st.st_mode)) {
			f->kind = CORE_OUTFILE_DIRECT;
			f->fd = open(f->target, O_WRONLY | O_CLOEXEC |
			    O_NOCTTY);
			if (f->fd < 0)
				return core_err_errno(err, CORE_EIO, errno,
				    "cannot write %s", path);
			f->open = true;
			return 0;
		}
		/* Replacing a file we could not write to would go round
		 * what its mode says; refuse as ">" would. */
		if (access(f->target, W_OK) != 0)
			return core_err_errno(err, CORE_EIO, errno,
			    "cannot write %s", path);
		f->existed = true;
	} else if (errno != ENOENT) {
		return core_err_errno(err, CORE_EIO, errno, "cannot write %s",
		    path);
	}

	f->kind = CORE_OUTFILE_REPLACE;
	/* The directory's name is kept in f, not only in a local: a
	 * process killed inside one of the calls below then still points
	 * to it from memory (valgrind called it lost when the pointer was
	 * only in a register of the system call the signal ended). */
	split_target(f, &f->dir);
	f->dirfd = open(f->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (f->dirfd < 0 && errno == EACCES)
		f->dirfd = open(f->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (f->dirfd < 0) {
		rc = core_err_errno(err, CORE_EIO, errno, "cannot create %s",
		    path);
		goto out;
	}
	f->fd = -1;
	if (have_proc_fd())
		f->fd = openat(f->dirfd, ".", O_TMPFILE | O_WRONLY |
		    O_CLOEXEC, 0666);
	rc = 0;
	if (f->fd < 0) {
		if (have_proc_fd() && errno != EOPNOTSUPP &&
		    errno != EISDIR && errno != EINVAL) {
			rc = core_err_errno(err, CORE_EIO, errno,
			    "cannot create %s", path);
			goto out;
		}
		if ((rc = open_named(f, f->dir, err)) != 0)
			goto out;
	}
	f->open = true;
	set_mode(f, &st);
out:
	free(f->dir);
	f->dir = NULL;
	return rc;
}

/* Links the unnamed file in as the target (REPLACE, O_TMPFILE). */
static int
link_tmpfile(struct core_outfile *f, struct core_err *err)
{
	char proc[64], hidden[NAME_MAX + 1];
	sigset_t all, old;
	unsigned attempt;
	int rc = 0;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", f->fd);
	if (!f->existed) {
		if (linkat(AT_FDCWD, proc, f->dirfd, f->base,
		    AT_SYMLINK_FOLLOW) == 0)
			return 0;
		if (errno != EEXIST)
			return core_err_errno(err, CORE_EIO, errno,
			    "cannot create %s", f->path);
		/* Someone created it meanwhile: replace it like any. */
	}
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	for (attempt = 0;; attempt++) {
		hidden_name(hidden, sizeof(hidden), f->base, attempt);
		if (strlen(f->base) > NAME_MAX - 40)
			snprintf(hidden, sizeof(hidden), ".colpipe.%ld.%x.tmp",
			    (long)getpid(), attempt);
		if (linkat(AT_FDCWD, proc, f->dirfd, hidden,
		    AT_SYMLINK_FOLLOW) == 0)
			break;
		if (errno != EEXIST || attempt > 100) {
			rc = core_err_errno(err, CORE_EIO, errno,
			    "cannot create %s", f->path);
			goto out;
		}
	}
	if (renameat(f->dirfd, hidden, f->dirfd, f->base) != 0) {
		rc = core_err_errno(err, CORE_EIO, errno,
		    "cannot replace %s", f->path);
		(void)unlinkat(f->dirfd, hidden, 0);
	}
out:
	sigprocmask(SIG_SETMASK, &old, NULL);
	return rc;
}

int
core_outfile_commit(struct core_outfile *f, struct core_err *err)
{
	int rc = 0;

	if (!f->open)
		return core_err_set(err, CORE_EINTERNAL,
		    "%s: commit without an open file", f->path ? f->path : "?");
	if (f->kind == CORE_OUTFILE_DIRECT) {
		f->open = false;
		rc = close(f->fd);
		f->fd = -1;
		if (rc != 0 && errno != EINTR)
			return core_err_errno(err, errno == EPIPE ?
			    CORE_EPIPE : CORE_EIO, errno, "%s", f->path);
		return 0;
	}
	if (fsync(f->fd) != 0) {
		rc = core_err_errno(err, CORE_EIO, errno, "%s", f->path);
		core_outfile_abort(f);
		return rc;
	}
	if (f->tmp == NULL) {
		if ((rc = link_tmpfile(f, err)) != 0) {
			core_outfile_abort(f);
			return rc;
		}
	} else {
		if (renameat(AT_FDCWD, f->tmp, f->dirfd, f->base) != 0) {
			rc = core_err_errno(err, CORE_EIO, errno,
			    "cannot replace %s", f->path);
			core_outfile_abort(f);
			return rc;
		}
		core_outfile_track(f->tmp, false);
		free(f->tmp);
		f->tmp = NULL;
	}
	f->open = false;
	/* After fsync a failing close has nothing left to lose. */
	(void)close(f->fd);
	f->fd = -1;
	/* Make the new name durable (a no-op on an O_PATH descriptor). */
	(void)fsync(f->dirfd);
	return 0;
}

void
core_outfile_abort(struct core_outfile *f)
{
	if (f->open && f->fd >= 0)
		close(f->fd);
	if (f->open)
		f->fd = -1;
	if (f->tmp != NULL) {
		(void)unlink(f->tmp);
		core_outfile_track(f->tmp, false);
		free(f->tmp);
		f->tmp = NULL;
	}
	f->open = false;
}

void
core_outfile_release(struct core_outfile *f)
{
	core_outfile_abort(f);
	/* base is set exactly when dirfd was opened (a zeroed object has
	 * neither, and its fd 0 is not ours). */
	if (f->base != NULL && f->dirfd >= 0)
		close(f->dirfd);
	f->dirfd = -1;
	free(f->path);
	free(f->target);
	free(f->base);
	f->path = f->target = f->base = NULL;
}
