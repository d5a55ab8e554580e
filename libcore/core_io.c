/*
 * core_io.c - inputs, checked outputs and temporary files (see
 * core_io.h).
 *
 * Inputs: the first bytes of a regular file decide how it is read.  Plain
 * data is mapped whole (parsers split it among threads); data whose magic
 * says gzip/bzip2/xz/lzma/zstd/lz4/compress, or a tar archive, goes through
 * libarchive, which also reads every pipe, because a pipe cannot be peeked
 * and put back.  libarchive is given only the decompression filters and
 * the tar, raw and empty formats: with every filter enabled, ordinary text
 * starting with "begin 644" would be taken for uuencoded data.
 *
 * libarchive reads the descriptor through our callback, not its own, so
 * a read can be interrupted: a streamed input that is not a regular file
 * waits for its descriptor and for a wake pipe together, and
 * core_input_interrupt writes to the wake pipe.  Once written it stays
 * readable, so every later read fails at once too.
 *
 * A mapped file truncated under the reader (logrotate's copytruncate)
 * would kill it by SIGBUS at the first page past the new end.  Mappings
 * are registered with a SIGBUS handler that maps zero pages over the
 * rest of the faulting mapping and marks it changed; the parser then
 * reads zeros, and core_input_check (called at the end of each member
 * and on any error of a mapped member) reports "input changed while
 * being read", exit 3, instead of rows made of them.  A fault outside
 * every mapping goes to the previous handler.  A file that cannot be
 * mapped (no address space for it) is streamed instead.
 *
 * Encodings (core_input_set_encoding): a member in another encoding than
 * UTF-8 is never mapped; its bytes (from the map or from libarchive) go
 * through a core_csv_enc transcoder and core_input_read hands out UTF-8.
 * With CORE_ENC_AUTO a member starting with a UTF-16 byte order mark is
 * transcoded so; a streamed member is told by its first read, which is
 * small for that (4 KiB), so the mark is seen before anything is handed
 * out.  Nothing else changes for UTF-8: its bytes are never copied or
 * looked at here.
 */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core_alloc.h"
#include "core_csv_enc.h"
#include "core_io.h"
#include "core_outfile.h"

void
core_fd_enlarge_pipe(int fd)
{
	struct stat st;

	if (fstat(fd, &st) != 0 || !S_ISFIFO(st.st_mode))
		return;
	/* May fail past /proc/sys/fs/pipe-max-size for unprivileged users:
	 * then the pipe just stays at its size. */
	if (fcntl(fd, F_GETPIPE_SZ) < (int)CORE_PIPE_SIZE)
		(void)fcntl(fd, F_SETPIPE_SZ, (int)CORE_PIPE_SIZE);
}

ssize_t
core_pread_full(int fd, void *buf, size_t n, off_t off)
{
	size_t got = 0;
	ssize_t k;

	while (got < n) {
		k = pread(fd, (char *)buf + got, n - got, off + (off_t)got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -1;
		if (k == 0)
			break;
		got += (size_t)k;
	}
	return (ssize_t)got;
}

bool
core_fd_is_tty(int fd)
{
	return isatty(fd) == 1;
}

/* ---- input ---- */

struct core_input {
	char *path;		/* as given; "-" for stdin */
	char *name;		/* message name of the current member */
	int fd;
	bool close_fd;
	const char *map;	/* whole mapped file, or NULL */
	size_t maplen;
	size_t mapoff;		/* bytes of map handed out by read */
	struct archive *ar;	/* streaming reader, or NULL */
	bool is_tar;
	bool member_eof;	/* no current member (empty archive) */
	char *rbuf;		/* owned; what libarchive reads into */
	bool wait_fd;		/* not a regular file: a read may wait */
	bool direct;		/* plain text: read past libarchive once it
				   has handed out what it read ahead */
	bool direct_fd;		/* and it has: read(2) into the caller's
				   buffer */
	int wake[2];		/* interrupt pipe, or -1 when none */
	atomic_bool interrupted;
	int guard;		/* map's SIGBUS guard slot, or -1 */
	int read_errno;		/* the last read(2) failure, or 0: a filter
				 * reports it as damaged data ("truncated
				 * gzip input") and loses the errno */
	int enc;		/* CORE_ENC_*: RAW unless set */
	bool enc_seen;		/* the member's encoding is decided */
	struct core_csv_enc *conv;	/* owned; the member's transcoder,
					 * or NULL when its bytes are UTF-8 */
	int conv_rc;		/* a transcoder that could not be made */
	struct core_err conv_err;
};

#define INPUT_BLOCK (1u << 20)

/* ---- the SIGBUS guard of mapped inputs ---- */

#define GUARD_SLOTS 16

static struct guard {
	_Atomic(uintptr_t) base;	/* 0: free */
	size_t len;
	atomic_bool hit;		/* zero pages were mapped in */
	_Atomic(size_t) at;		/* the first faulting page's offset */
} guards[GUARD_SLOTS];
static struct sigaction guard_prev;
static uintptr_t guard_page;
static atomic_flag guard_installed = ATOMIC_FLAG_INIT;

static void
guard_handler(int sig, siginfo_t *si, void *uc)
{
	uintptr_t a = (uintptr_t)si->si_addr, b, page;
	int i;

	for (i = 0; i < GUARD_SLOTS; i++) {
		b = atomic_load(&guards[i].base);
		if (b == 0 || a < b || a >= b + guards[i].len)
			continue;
		page = a & ~(guard_page - 1);
		if (mmap((void *)page, b + guards[i].len - page, PROT_READ,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) ==
		    MAP_FAILED)
			break;
		if (!atomic_load(&guards[i].hit))
			atomic_store(&guards[i].at, page - b);
		atomic_store(&guards[i].hit, true);
		return;		/* the access is retried, and reads zeros */
	}
	/* Not ours: the previous disposition, and the fault again. */
	if ((guard_prev.sa_flags & SA_SIGINFO) &&
	    guard_prev.sa_sigaction != NULL) {
		guard_prev.sa_sigaction(sig, si, uc);
		return;
	}
	(void)sigaction(SIGBUS, &guard_prev, NULL);
}

/* Registers map (len bytes); returns its slot, or -1 unguarded. */
static int
guard_add(const char *map, size_t len)
{
	struct sigaction sa;
	uintptr_t zero;
	int i;

	if (!atomic_flag_test_and_set(&guard_installed)) {
		guard_page = (uintptr_t)sysconf(_SC_PAGESIZE);
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = guard_handler;
		sa.sa_flags = SA_SIGINFO | SA_NODEFER;
		sigemptyset(&sa.sa_mask);
		(void)sigaction(SIGBUS, &sa, &guard_prev);
	}
	/* len is set after the slot is won: no access to map can come
	 * before guard_add returns. */
	for (i = 0; i < GUARD_SLOTS; i++) {
		zero = 0;
		if (atomic_compare_exchange_strong(&guards[i].base, &zero,
		    (uintptr_t)map)) {
			guards[i].len = len;
			atomic_store(&guards[i].hit, false);
			return i;
		}
	}
	return -1;
}

static bool
magic_needs_archive(const unsigned char *b, size_t n)
{
	static const unsigned char xz[] = { 0xfd, '7', 'z', 'X', 'Z', 0 };
	static const unsigned char zst[] = { 0x28, 0xb5, 0x2f, 0xfd };
	static const unsigned char lz4[] = { 0x04, 0x22, 0x4d, 0x18 };

	if (n >= 2 && b[0] == 0x1f && (b[1] == 0x8b || b[1] == 0x9d))
		return true;	/* gzip, compress */
	if (n >= 3 && memcmp(b, "BZh", 3) == 0)
		return true;
	if (n >= 6 && memcmp(b, xz, 6) == 0)
		return true;
	if (n >= 4 && memcmp(b, zst, 4) == 0)
		return true;
	if (n >= 4 && memcmp(b, lz4, 4) == 0)
		return true;
	if (n >= 3 && b[0] == 0x5d && b[1] == 0 && b[2] == 0)
		return true;	/* lzma alone */
	if (n >= 262 && memcmp(b + 257, "ustar", 5) == 0)
		return true;
	return false;
}

static void
set_member_name(struct core_input *in, const char *member)
{
	const char *base = strcmp(in->path, "-") == 0 ? "stdin" : in->path;
	size_t len;

	free(in->name);
	if (member == NULL) {
		in->name = core_xstrdup(base);
		return;
	}
	len = strlen(base) + strlen(member) + 2;
	in->name = core_xmalloc(len);
	snprintf(in->name, len, "%s:%s", base, member);
}

static int
archive_fail(struct core_input *in, struct core_err *err)
{
	const char *msg = in->ar ? archive_error_string(in->ar) : NULL;
	int e = in->ar ? archive_errno(in->ar) : 0;

	if (in->read_errno != 0)
		return core_err_errno(err, CORE_EIO, in->read_errno, "%s",
		    in->name);

	/* libarchive reports both I/O failures (with errno) and damaged
	 * compressed data; only the former is an I/O error. */
	if (e == EIO || e == EBADF || e == ENXIO || e == ENOMEM ||
	    e == EISDIR)
		return core_err_set(err, CORE_EIO, "%s: %s", in->name,
		    msg ? msg : strerror(e));
	return core_err_set(err, CORE_EDATA, "%s: %s", in->name,
	    msg ? msg : "unreadable compressed or archived data");
}

/* Moves to the next regular-file entry; CORE_EOF when there is none. */
static int
archive_next(struct core_input *in, struct core_err *err)
{
	struct archive_entry *ent;
	int r;

	for (;;) {
		r = archive_read_next_header(in->ar, &ent);
		if (r == ARCHIVE_EOF) {
			in->member_eof = true;
			return CORE_EOF;
		}
		if (r != ARCHIVE_OK && r != ARCHIVE_WARN)
			return archive_fail(in, err);
		in->is_tar = archive_format(in->ar) != ARCHIVE_FORMAT_RAW &&
		    archive_format(in->ar) != ARCHIVE_FORMAT_EMPTY;
		if (!in->is_tar) {
			set_member_name(in, NULL);
			return 0;
		}
		if (archive_entry_filetype(ent) == AE_IFREG) {
			set_member_name(in, archive_entry_pathname(ent));
			return 0;
		}
		/* Directories, links and the like hold no rows. */
	}
}

/* One read(2) of up to cap bytes, after waiting for the descriptor or
 * the wake pipe: the count, 0 at the end, or -1 with errno (ECANCELED: a
 * read interrupted; read_errno is set when read itself failed). */
static ssize_t
fd_read(struct core_input *in, void *buf, size_t cap)
{
	struct pollfd pf[2];
	ssize_t n;

	for (;;) {
		if (atomic_load(&in->interrupted)) {
			errno = ECANCELED;
			return -1;
		}
		if (in->wait_fd && in->wake[0] >= 0) {
			pf[0].fd = in->fd;
			pf[0].events = POLLIN;
			pf[1].fd = in->wake[0];
			pf[1].events = POLLIN;
			pf[0].revents = pf[1].revents = 0;
			if (poll(pf, 2, -1) < 0) {
				if (errno == EINTR)
					continue;
				return -1;
			}
			if (pf[1].revents != 0)
				continue;	/* interrupted: see above */
		}
		n = read(in->fd, buf, cap);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			in->read_errno = errno;
			return -1;
		}
		return n;
	}
}

/* libarchive's read callback: one read of up to a block.  Once an input
 * is known to be plain text (direct), libarchive hands out what it read
 * before and is then told the input ends: raw_read reads the rest
 * itself, straight into the caller's buffer. */
static la_ssize_t
input_fill(struct archive *a, void *v, const void **buf)
{
	struct core_input *in = v;
	ssize_t n;

	*buf = in->rbuf;
	if (in->direct)
		return 0;
	n = fd_read(in, in->rbuf, INPUT_BLOCK);
	if (n < 0) {
		if (errno == ECANCELED)
			archive_set_error(a, ECANCELED, "read interrupted");
		else
			/* The errno's words: the message already names
			 * the input, and "fd 8" would mean nothing. */
			archive_set_error(a, errno, "%s", strerror(errno));
		return -1;
	}
	return n;
}

static int
open_archive(struct core_input *in, const struct stat *st,
    struct core_err *err)
{
	int r;

	in->rbuf = core_xmalloc(INPUT_BLOCK);
	/* A regular file's read never waits for long; anything else may
	 * wait for ever, so it can be interrupted. */
	in->wait_fd = !S_ISREG(st->st_mode);
	if (in->wait_fd && pipe2(in->wake, O_CLOEXEC | O_NONBLOCK) != 0)
		return core_err_errno(err, CORE_EIO, errno, "%s", in->name);
	in->ar = archive_read_new();
	if (in->ar == NULL)
		return core_err_set(err, CORE_EINTERNAL,
		    "%s: cannot create archive reader", in->name);
	archive_read_support_filter_gzip(in->ar);
	archive_read_support_filter_bzip2(in->ar);
	archive_read_support_filter_xz(in->ar);
	archive_read_support_filter_lzma(in->ar);
	archive_read_support_filter_zstd(in->ar);
	archive_read_support_filter_lz4(in->ar);
	archive_read_support_filter_compress(in->ar);
	archive_read_support_format_tar(in->ar);
	archive_read_support_format_empty(in->ar);
	archive_read_support_format_raw(in->ar);
	r = archive_read_open(in->ar, in, NULL, input_fill, NULL);
	if (r != ARCHIVE_OK) {
		/* An empty stream fails to open with some filters. */
		return archive_fail(in, err);
	}
	r = archive_next(in, err);
	if (r == CORE_EOF) {
		/* Empty input: one empty member, named like the file. */
		set_member_name(in, NULL);
		return 0;
	}
	/* Plain text, neither compressed nor archived: libarchive would
	 * only copy it once more. */
	if (r == 0 && !in->is_tar && archive_filter_count(in->ar) == 1 &&
	    archive_filter_code(in->ar, 0) == ARCHIVE_FILTER_NONE)
		in->direct = true;
	return r;
}

int
core_input_open(const char *path, struct core_input **out,
    struct core_err *err)
{
	struct core_input *in = core_xcalloc(1, sizeof(*in));
	unsigned char head[512];
	struct stat st;
	ssize_t n;
	int r;

	*out = NULL;
	in->path = core_xstrdup(path ? path : "-");
	in->wake[0] = in->wake[1] = -1;
	in->guard = -1;
	atomic_init(&in->interrupted, false);
	set_member_name(in, NULL);
	if (strcmp(in->path, "-") == 0) {
		in->fd = 0;
	} else {
		in->fd = open(in->path, O_RDONLY | O_CLOEXEC);
		if (in->fd < 0) {
			r = core_err_errno(err, CORE_EIO, errno, "%s",
			    in->path);
			core_input_free(in);
			return r;
		}
		in->close_fd = true;
	}
	if (fstat(in->fd, &st) != 0) {
		r = core_err_errno(err, CORE_EIO, errno, "%s", in->name);
		core_input_free(in);
		return r;
	}
	if (S_ISDIR(st.st_mode)) {
		r = core_err_set(err, CORE_EIO, "%s: is a directory",
		    in->name);
		core_input_free(in);
		return r;
	}
	if (S_ISREG(st.st_mode) && lseek(in->fd, 0, SEEK_CUR) == 0) {
		n = core_pread_full(in->fd, head, sizeof(head), 0);
		if (n < 0) {
			r = core_err_errno(err, CORE_EIO, errno, "%s",
			    in->name);
			core_input_free(in);
			return r;
		}
		if (!magic_needs_archive(head, (size_t)n)) {
			in->maplen = (size_t)st.st_size;
			if (in->maplen == 0) {
				in->map = "";
				*out = in;
				return 0;
			}
			/* Not MAP_POPULATE: a huge file must not be read
			 * whole before parsing starts; the parser's workers
			 * fault pages in ahead of the consumer. */
			in->map = mmap(NULL, in->maplen, PROT_READ,
			    MAP_PRIVATE, in->fd, 0);
			if (in->map != MAP_FAILED) {
				(void)madvise((void *)in->map, in->maplen,
				    MADV_SEQUENTIAL);
				in->guard = guard_add(in->map, in->maplen);
				*out = in;
				return 0;
			}
			/* No address space for it (ulimit -v below the
			 * file's size), or a file system that cannot map:
			 * then it is streamed like a pipe. */
			in->map = NULL;
			in->maplen = 0;
		}
	}
	core_fd_enlarge_pipe(in->fd);
	r = open_archive(in, &st, err);
	if (r != 0) {
		core_input_free(in);
		return r;
	}
	*out = in;
	return 0;
}

void
core_input_free(struct core_input *in)
{
	if (in == NULL)
		return;
	if (in->ar != NULL)
		archive_read_free(in->ar);
	core_csv_enc_free(in->conv);
	if (in->guard >= 0)
		atomic_store(&guards[in->guard].base, 0);
	if (in->map != NULL && in->maplen > 0)
		munmap((void *)in->map, in->maplen);
	if (in->close_fd)
		close(in->fd);
	if (in->wake[0] >= 0) {
		close(in->wake[0]);
		close(in->wake[1]);
	}
	free(in->rbuf);
	free(in->path);
	free(in->name);
	free(in);
}

void
core_input_interrupt(struct core_input *in)
{
	ssize_t n;

	atomic_store(&in->interrupted, true);
	/* Written or full already, the pipe is readable now: all it says. */
	if (in->wake[1] >= 0) {
		n = write(in->wake[1], "", 1);
		(void)n;
	}
}

bool
core_input_idle(struct core_input *in, int ms)
{
	struct pollfd pf;

	if (!in->wait_fd || atomic_load(&in->interrupted))
		return false;
	pf.fd = in->fd;
	pf.events = POLLIN;
	pf.revents = 0;
	return poll(&pf, 1, ms) == 0;
}

const char *
core_input_name(const struct core_input *in)
{
	return in->name;
}

void
core_input_set_encoding(struct core_input *in, int enc)
{
	in->enc = enc;
}

/* Makes the member's transcoder for enc (a failure is kept for the
 * first read, since core_input_map cannot report one). */
static void
conv_make(struct core_input *in, int enc)
{
	in->conv_rc = core_csv_enc_new(enc, in->name, &in->conv,
	    &in->conv_err);
}

/* Decides a mapped member's encoding; streamed ones are decided by their
 * first read (enc_peek). */
static void
enc_decide_map(struct core_input *in)
{
	const unsigned char *m = (const unsigned char *)in->map;

	in->enc_seen = true;
	if (in->enc >= CORE_ENC_LATIN1)
		conv_make(in, in->enc);
	else if (in->enc == CORE_ENC_AUTO && in->maplen >= 2 &&
	    ((m[0] == 0xff && m[1] == 0xfe) || (m[0] == 0xfe && m[1] == 0xff)))
		conv_make(in, CORE_ENC_UTF16);
}

const char *
core_input_map(struct core_input *in, size_t *len)
{
	if (in->map == NULL)
		return NULL;
	if (!in->enc_seen)
		enc_decide_map(in);
	if (in->conv != NULL || in->conv_rc != 0)
		return NULL;
	*len = in->maplen;
	return in->map;
}

static ssize_t raw_read(struct core_input *in, void *buf, size_t cap,
    struct core_err *err);

/* UTF-8 out of the member's transcoder, raw bytes read as it needs. */
static ssize_t
conv_read(struct core_input *in, char *buf, size_t cap,
    struct core_err *err)
{
	ssize_t n;
	size_t room;
	char *p;

	for (;;) {
		if (core_csv_enc_hungry(in->conv)) {
			p = core_csv_enc_space(in->conv, &room);
			if ((n = raw_read(in, p, room, err)) < 0)
				return n;
			core_csv_enc_feed(in->conv, (size_t)n);
		}
		n = core_csv_enc_out(in->conv, buf, cap, err);
		if (n != 0 || !core_csv_enc_hungry(in->conv))
			return n;
	}
}

/* The first read of a streamed member under CORE_ENC_AUTO: at least 2
 * bytes (or the end), then a UTF-16 mark makes a transcoder that takes
 * them, else they are handed out as they are. */
static ssize_t
enc_peek(struct core_input *in, char *buf, size_t cap, struct core_err *err)
{
	const unsigned char *u = (const unsigned char *)buf;
	size_t got = 0, room;
	ssize_t n;
	char *p;

	in->enc_seen = true;
	if (cap > 4096)
		cap = 4096;
	while (got < 2 && got < cap) {
		if ((n = raw_read(in, buf + got, cap - got, err)) < 0)
			return n;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	if (got < 2 || !((u[0] == 0xff && u[1] == 0xfe) ||
	    (u[0] == 0xfe && u[1] == 0xff)))
		return (ssize_t)got;
	conv_make(in, CORE_ENC_UTF16);
	if (in->conv_rc != 0) {
		*err = in->conv_err;
		return in->conv_rc;
	}
	p = core_csv_enc_space(in->conv, &room);
	memcpy(p, buf, got);
	core_csv_enc_feed(in->conv, got);
	return conv_read(in, buf, cap, err);
}

ssize_t
core_input_read(struct core_input *in, void *buf, size_t cap,
    struct core_err *err)
{
	if (!in->enc_seen) {
		if (in->map != NULL)
			enc_decide_map(in);
		else if (in->enc == CORE_ENC_AUTO)
			return enc_peek(in, buf, cap, err);
		else {
			in->enc_seen = true;
			if (in->enc >= CORE_ENC_LATIN1)
				conv_make(in, in->enc);
		}
	}
	if (in->conv_rc != 0) {
		if (err != NULL)
			*err = in->conv_err;
		return in->conv_rc;
	}
	if (in->conv != NULL)
		return conv_read(in, buf, cap, err);
	return raw_read(in, buf, cap, err);
}

/* A direct input's read past libarchive: as archive_read_data, all of
 * cap unless the input ends first. */
static ssize_t
direct_read(struct core_input *in, void *buf, size_t cap,
    struct core_err *err)
{
	size_t got = 0;
	ssize_t n;

	while (got < cap) {
		n = fd_read(in, (char *)buf + got, cap - got);
		if (n == 0)
			break;
		if (n < 0 && errno == ECANCELED)
			return core_err_set(err, CORE_EIO,
			    "%s: read interrupted", in->name);
		if (n < 0)
			return core_err_errno(err, CORE_EIO, errno, "%s",
			    in->name);
		got += (size_t)n;
	}
	return (ssize_t)got;
}

static ssize_t
raw_read(struct core_input *in, void *buf, size_t cap, struct core_err *err)
{
	la_ssize_t n;
	size_t take;

	if (in->map != NULL) {
		/* A mapped file read as a stream. */
		take = in->maplen - in->mapoff;
		if (take > cap)
			take = cap;
		memcpy(buf, in->map + in->mapoff, take);
		in->mapoff += take;
		return (ssize_t)take;
	}
	if (in->member_eof)
		return 0;
	if (in->direct_fd)
		return direct_read(in, buf, cap, err);
	n = archive_read_data(in->ar, buf, cap);
	if (n < 0 && atomic_load(&in->interrupted))
		return core_err_set(err, CORE_EIO, "%s: read interrupted",
		    in->name);
	if (n < 0)
		return archive_fail(in, err);
	if (in->direct && (size_t)n < cap) {
		/* libarchive's bytes are out: the rest from the descriptor. */
		ssize_t m;

		in->direct_fd = true;
		m = direct_read(in, (char *)buf + n, cap - (size_t)n, err);
		if (m < 0)
			return m;
		n += m;
	}
	return (ssize_t)n;
}

int
core_input_check(struct core_input *in, struct core_err *err)
{
	struct stat st;
	bool hit, shrank;
	char c;

	if (in->map == NULL || in->maplen == 0)
		return 0;
	hit = in->guard >= 0 && atomic_load(&guards[in->guard].hit);
	shrank = fstat(in->fd, &st) == 0 && (uint64_t)st.st_size < in->maplen;
	/* A page of a file that did not shrink could not be read: the
	 * disk's error, which a read of that page says again (a file cut
	 * and grown again reads). */
	if (hit && !shrank && pread(in->fd, &c, 1,
	    (off_t)atomic_load(&guards[in->guard].at)) < 0 && errno == EIO)
		return core_err_errno(err, CORE_EIO, EIO, "read error on %s",
		    in->name);
	if (hit || shrank)
		return core_err_set(err, CORE_EDATA, "%s: input changed while "
		    "being read (it was %zu bytes and shrank): convert a copy "
		    "made before it is truncated (logrotate's copytruncate)",
		    in->name, in->maplen);
	return 0;
}

int
core_input_next_member(struct core_input *in, struct core_err *err)
{
	int rc;

	if ((rc = core_input_check(in, err)) != 0)
		return rc;
	if (in->ar == NULL || !in->is_tar || in->member_eof)
		return CORE_EOF;
	/* Each member has its own mark, or none. */
	core_csv_enc_free(in->conv);
	in->conv = NULL;
	in->enc_seen = false;
	return archive_next(in, err);
}

/* ---- output ---- */

void
core_output_init(struct core_output *o, int fd, const char *name, size_t cap)
{
	memset(o, 0, sizeof(*o));
	o->fd = fd;
	o->name = name;
	o->cap = cap ? cap : (1u << 20);
	o->buf = core_xmalloc(o->cap);
	core_fd_enlarge_pipe(fd);
}

void
core_output_release(struct core_output *o)
{
	free(o->buf);
	o->buf = NULL;
	if (o->close_fd && o->fd >= 0)
		close(o->fd);
	o->fd = -1;
}

int
core_write_all(int fd, const void *p, size_t n, const char *name,
    struct core_err *err)
{
	const char *s = p;
	ssize_t w;

	while (n > 0) {
		w = write(fd, s, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EPIPE)
				return core_err_set(err, CORE_EPIPE,
				    "%s: broken pipe", name);
			return core_err_errno(err, CORE_EIO, errno,
			    "write error on %s", name);
		}
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

int
core_output_flush(struct core_output *o, struct core_err *err)
{
	int r;

	if (o->failed)
		return core_err_set(err, CORE_EIO, "write error on %s",
		    o->name);
	if (o->len == 0)
		return 0;
	r = core_write_all(o->fd, o->buf, o->len, o->name, err);
	if (r == 0)
		o->nbytes += o->len;
	else
		o->failed = true;
	o->len = 0;
	return r;
}

int
core_output_write(struct core_output *o, const void *p, size_t n,
    struct core_err *err)
{
	int r;

	if (n <= o->cap - o->len) {
		memcpy(o->buf + o->len, p, n);
		o->len += n;
		return 0;
	}
	if ((r = core_output_flush(o, err)) != 0)
		return r;
	if (n >= o->cap / 2) {
		r = core_write_all(o->fd, p, n, o->name, err);
		if (r == 0)
			o->nbytes += n;
		else
			o->failed = true;
		return r;
	}
	memcpy(o->buf, p, n);
	o->len = n;
	return 0;
}

int
core_close_stdout(struct core_err *err)
{
	if (fflush(stdout) != 0 || ferror(stdout))
		return core_err_errno(err, errno == EPIPE ? CORE_EPIPE :
		    CORE_EIO, errno, "write error on stdout");
	if (fclose(stdout) != 0 && errno != EBADF)
		return core_err_errno(err, errno == EPIPE ? CORE_EPIPE :
		    CORE_EIO, errno, "write error on stdout");
	return 0;
}

uint64_t
core_paths_size(const char *const *paths, size_t npaths)
{
	uint64_t total = 0;
	struct stat st;
	size_t i;
	int rc;

	for (i = 0; i < (npaths ? npaths : 1); i++) {
		if (npaths == 0 || strcmp(paths[i], "-") == 0)
			rc = fstat(STDIN_FILENO, &st);
		else
			rc = stat(paths[i], &st);
		if (rc != 0 || !S_ISREG(st.st_mode))
			return 0;
		total += (uint64_t)st.st_size;
	}
	return total;
}

uint64_t
core_paths_plain_size(const char *const *paths, size_t npaths)
{
	unsigned char head[512];
	uint64_t total;
	size_t i;
	ssize_t n;
	int fd;

	total = core_paths_size(paths, npaths);
	if (total == 0)
		return 0;
	/* Compressed bytes say nothing of how many bytes they decode to. */
	for (i = 0; i < (npaths ? npaths : 1); i++) {
		if (npaths == 0 || strcmp(paths[i], "-") == 0)
			n = core_pread_full(STDIN_FILENO, head, sizeof(head),
			    0);
		else if ((fd = open(paths[i], O_RDONLY | O_CLOEXEC)) < 0)
			return 0;
		else {
			n = core_pread_full(fd, head, sizeof(head), 0);
			close(fd);
		}
		if (n < 0 || magic_needs_archive(head, (size_t)n))
			return 0;
	}
	return total;
}

/* ---- temporary files ---- */

const char *
core_tmpdir_default(void)
{
	const char *t = getenv("TMPDIR");

	return t != NULL && *t != '\0' ? t : "/tmp";
}

int
core_tmpfile_open(const char *dir, struct core_err *err)
{
	char *tmpl;
	size_t len;
	int fd;

	fd = open(dir, O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
	if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
		return core_err_errno(err, CORE_EIO, errno,
		    "cannot create a temporary file in %s", dir);
	/* File systems without O_TMPFILE: create, then unlink at once. */
	len = strlen(dir) + 32;
	tmpl = core_xmalloc(len);
	snprintf(tmpl, len, "%s/colpipe.XXXXXX", dir);
	/* A signal between the two, on any thread, unlinks it too. */
	core_outfile_track(tmpl, true);
	fd = mkostemp(tmpl, O_CLOEXEC);
	if (fd < 0) {
		int e = errno;

		core_outfile_track(tmpl, false);
		free(tmpl);
		return core_err_errno(err, CORE_EIO, e,
		    "cannot create a temporary file in %s", dir);
	}
	(void)unlink(tmpl);
	core_outfile_track(tmpl, false);
	free(tmpl);
	return fd;
}
