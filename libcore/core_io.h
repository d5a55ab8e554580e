/*
 * core_io.h - byte input and output for every tool.
 *
 * Input (struct core_input): a named byte source.  A regular, uncompressed
 * file is memory-mapped so parsers can work on it in place and in parallel;
 * everything else (stdin, pipes, gzip/bzip2/xz/zstd by content, tar
 * archives) is streamed through libarchive.  A tar archive yields its
 * members one after another (core_input_next_member).
 *
 * Output (struct core_output): a buffered writer on a file descriptor where
 * every write is checked.  EPIPE is reported as CORE_EPIPE so tools can end
 * quietly under "| head"; other failures are CORE_EIO naming the output.
 *
 * Files written by name (-o FILE) are core_outfile's.
 */
#ifndef CORE_IO_H
#define CORE_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core_err.h"

/* The size tools ask for on pipes they read or write (F_SETPIPE_SZ). */
#define CORE_PIPE_SIZE (1u << 20)

/* Enlarges fd's pipe buffer to CORE_PIPE_SIZE if fd is a pipe; silent
 * no-op otherwise or when the kernel refuses. */
void core_fd_enlarge_pipe(int fd);

/* ---- input ---- */

struct core_input;

/* Opens path ("-" or NULL = stdin).  For archives and compressed data the
 * first member is selected.  Returns 0, or CORE_EIO/CORE_EDATA with a
 * message naming the path.  *out is owned by the caller. */
int core_input_open(const char *path, struct core_input **out,
    struct core_err *err);
void core_input_free(struct core_input *in);	/* accepts NULL */

/* Name to use in messages: the path ("-" reads as "stdin"), or
 * "archive.tar:member.csv" for a tar member. */
const char *core_input_name(const struct core_input *in);

/* When the current member is a whole mapped regular file, returns its
 * bytes and sets *len; NULL otherwise (then use core_input_read). */
const char *core_input_map(struct core_input *in, size_t *len);

/* What the bytes of every member are (CORE_ENC_*, core_csv_enc.h): RAW
 * (the default) hands them out as they are; AUTO transcodes a member
 * that starts with a UTF-16 byte order mark, and any other encoding but
 * UTF8 transcodes every member; core_input_read then gives UTF-8 (an
 * invalid byte is CORE_EDATA naming file, line and byte offset) and
 * core_input_map gives NULL.  Call before the first read or map. */
void core_input_set_encoding(struct core_input *in, int enc);

/* Reads up to cap bytes of the current member.  Returns the byte count,
 * 0 at the end of the member, or a negative CORE_E* code. */
ssize_t core_input_read(struct core_input *in, void *buf, size_t cap,
    struct core_err *err);

/*
 * Whether a read would wait: the input may wait (a pipe, a terminal, a
 * socket; not a regular file) and no byte arrives on it within ms
 * milliseconds.  Bytes a decompressor holds already are not seen, so the
 * answer may be yes where a read would not wait.  Read-ahead asks it to
 * hand over what it has when its writer goes quiet.
 */
bool core_input_idle(struct core_input *in, int ms);

/*
 * Makes a core_input_read waiting on another thread for input that may
 * never come (a pipe whose writer stays silent) return soon, and every
 * later read fail: CORE_EIO, "read interrupted".  The one call that may
 * be made while another thread reads in; afterwards in is good only for
 * core_input_free, once that read has returned.
 */
void core_input_interrupt(struct core_input *in);

/* For a mapped file: CORE_EDATA "input changed while being read" when
 * it shrank since it was opened (the bytes past its new end read as
 * zeros, not as a SIGBUS); else 0.  core_input_next_member checks it
 * first; a parser checks it before reporting an error of its own. */
int core_input_check(struct core_input *in, struct core_err *err);

/* Advances to the next tar member.  0 when there is one, CORE_EOF when the
 * input has no more members (a plain or compressed file has exactly one),
 * or a negative code. */
int core_input_next_member(struct core_input *in, struct core_err *err);

/* ---- output ---- */

struct core_output {
	int fd;			/* not owned unless close_fd */
	bool close_fd;
	const char *name;	/* borrowed; for messages ("stdout") */
	char *buf;		/* owned */
	size_t len, cap;
	uint64_t nbytes;	/* bytes handed to write(2) so far */
	bool failed;		/* a write failed: bytes were lost, so every
				 * later flush fails too and the output must
				 * not be committed */
};

/* cap is the buffer size (0 = 1 MiB).  Enlarges fd's pipe. */
void core_output_init(struct core_output *o, int fd, const char *name,
    size_t cap);
/* Flushes nothing; frees the buffer; closes fd if close_fd. */
void core_output_release(struct core_output *o);
/* Appends n bytes; large writes bypass the buffer. */
int core_output_write(struct core_output *o, const void *p, size_t n,
    struct core_err *err);
int core_output_flush(struct core_output *o, struct core_err *err);
/* Writes all n bytes of p directly with write(2) after flushing pending
 * bytes (for whole frames). */
int core_write_all(int fd, const void *p, size_t n, const char *name,
    struct core_err *err);

/* Ensures room for n more bytes and returns where to write them; commit
 * with core_output_commit.  n must be <= cap. */
static inline char *
core_output_reserve(struct core_output *o, size_t n, struct core_err *err,
    int *rc)
{
	extern int core_output_flush(struct core_output *, struct core_err *);
	*rc = 0;
	if (o->cap - o->len < n)
		*rc = core_output_flush(o, err);
	return o->buf + o->len;
}
static inline void
core_output_commit(struct core_output *o, size_t n)
{
	o->len += n;
}

/* Closes stdout and reports a failed flush or close (e.g. > /dev/full)
 * as CORE_EIO.  Call once at exit after the last write. */
int core_close_stdout(struct core_err *err);

/* pread(2) until n bytes or the end of the file, retrying EINTR: the
 * bytes read (fewer than n only at the end), or -1 with errno set.  A
 * single pread may return fewer bytes than are there (a signal, FUSE,
 * NFS), and a magic number read short is a file taken for what it is
 * not. */
ssize_t core_pread_full(int fd, void *buf, size_t n, off_t off);

/* True when fd is a terminal (binary output is refused there). */
bool core_fd_is_tty(int fd);

/* The bytes in paths ("-" or npaths == 0: stdin) when every one is a
 * regular file, else 0 (a pipe, a device, or a path that cannot be
 * stat'ed: the reader reports that one). */
uint64_t core_paths_size(const char *const *paths, size_t npaths);

/* Like core_paths_size, but 0 also when any input is compressed or an
 * archive (its size then says nothing of the bytes it decodes to). */
uint64_t core_paths_plain_size(const char *const *paths, size_t npaths);

/* ---- temporary files ---- */

/* Opens an anonymous file in dir (O_TMPFILE, or create + unlink at once),
 * so nothing remains after any kind of exit.  Returns the fd or a negative
 * code with a message naming dir. */
int core_tmpfile_open(const char *dir, struct core_err *err);

/* The default temporary directory: $TMPDIR, else "/tmp". */
const char *core_tmpdir_default(void);

#endif
