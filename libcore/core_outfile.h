/*
 * core_outfile.h - a file a tool writes by name (-o FILE, --rejects FILE).
 *
 * What the name points at decides how it is written:
 *
 *  - a regular file, or nothing yet: the file is replaced atomically.  The
 *    new contents are written to an unnamed file (O_TMPFILE) in the
 *    target's directory, fsynced, given a name with linkat(2) and renamed
 *    over the target only on commit, so a failed, interrupted or killed
 *    run (SIGKILL, out of memory) leaves the old file untouched and
 *    nothing else behind.  Through a symbolic link the link's target is
 *    replaced, not the link.  A replaced file keeps its mode (and, where
 *    permitted, its owner and group).  Where the file system has no
 *    O_TMPFILE (or /proc is not mounted), a hidden named temporary file is
 *    used instead, removed on error and by a SIGINT/SIGTERM/SIGHUP/SIGPIPE
 *    handler, though not on SIGKILL.
 *
 *  - a device, FIFO or socket (/dev/null, a named pipe, a terminal), or
 *    /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: written in
 *    place, as the shell's ">" and GNU sort -o do.  Such an output cannot
 *    be taken back, so it is not atomic; the /dev/fd forms write to the
 *    inherited descriptor itself (keeping its offset and O_APPEND).
 *
 *  - a directory: refused (CORE_EUSAGE) before anything is created.
 *
 * The object never prints; failures return a CORE_E* code with a message
 * naming the path.
 */
#ifndef CORE_OUTFILE_H
#define CORE_OUTFILE_H

#include <stdbool.h>
#include <sys/types.h>

#include "core_err.h"

enum core_outfile_kind {
	CORE_OUTFILE_REPLACE,	/* a regular file, replaced on commit */
	CORE_OUTFILE_DIRECT,	/* written in place (device, FIFO, fd) */
};

struct core_outfile {
	int fd;			/* write here; -1 when closed */
	enum core_outfile_kind kind;
	char *path;		/* owned: the name given, for messages */
	char *target;		/* owned: the file replaced, links resolved */
	char *base;		/* owned: target's last component */
	char *tmp;		/* owned: named temporary (fallback), or NULL */
	char *dir;		/* owned: target's directory, during open */
	int dirfd;		/* REPLACE: the target's directory, else -1 */
	bool existed;		/* REPLACE: the target existed at open */
	bool open;		/* between open and commit/abort */
};

/*
 * Resolves path as described above and opens it for writing.  On success
 * f->fd is ready; the caller writes, then commits or aborts.  Opening a
 * FIFO blocks until it has a reader, as open(2) does.  CORE_EUSAGE for a
 * directory, CORE_EIO otherwise, with nothing created.
 */
int core_outfile_open(struct core_outfile *f, const char *path,
    struct core_err *err);

/* Makes the written bytes the file's contents: fsync, link and rename
 * over the target, fsync of the directory (REPLACE); close (DIRECT).  On
 * failure the old file is left as it was and the new bytes are gone. */
int core_outfile_commit(struct core_outfile *f, struct core_err *err);

/* Drops what was written (REPLACE) or just closes (DIRECT); a no-op after
 * commit or abort. */
void core_outfile_abort(struct core_outfile *f);

/* Aborts if still open and frees the names; f may be zeroed or released
 * already. */
void core_outfile_release(struct core_outfile *f);

/* Tests only: false makes every later open take the named-temporary
 * fallback, as on a file system without O_TMPFILE (default true). */
void core_outfile_use_tmpfile(bool use);

/*
 * Follows path's symbolic links (at most 40) to the name that a write
 * through it would replace: a newly allocated string (caller frees), or
 * NULL with errno set (ELOOP, or what lstat/readlink said).  A missing
 * last component is not an error: the result names the file to create.
 */
char *core_path_resolve_links(const char *path);

/*
 * Adds (add) or removes name, a temporary file's name the caller keeps
 * alive meanwhile, to or from the names the tools' SIGINT, SIGTERM,
 * SIGHUP, SIGPIPE and SIGXFSZ handler unlinks before the signal ends the
 * process (the handler is installed by the first call).  For a file
 * that exists by name only from its creation to its unlink, on a file
 * system without O_TMPFILE: a signal between the two, on any thread,
 * leaves nothing behind.
 */
void core_outfile_track(char *name, bool add);

#endif
