/*
 * fe_progress.c - --progress on stderr (fe.h).
 *
 * One line for a whole pipeline.  "csv2col big.csv | colsort -k a |
 * col2parquet -o x" with --progress on every stage would have three
 * processes each redrawing the same terminal line with "\r", and each
 * would wipe the others' text.  So the stages share a table instead: a
 * small file named after the user, the terminal (its device number) and
 * the process group (the shell puts a pipeline's processes in one), with
 * one slot per process.  Under flock(2) a process writes its own slot and
 * then draws every live slot, joined with " | ", cut to the terminal's
 * width; so whoever draws last shows everyone's latest state.  A slot
 * whose process is gone (kill(pid, 0) fails) is free; the last process
 * to leave removes the file.  A process killed with SIGKILL leaves its
 * slot to be reclaimed, and the file (1 KiB) when it was the last.
 *
 * When the table cannot be had (no writable $TMPDIR, or a file there that
 * is not ours), the process draws its own text alone, as before.
 *
 * Each line shows the phase, the rows and input bytes so far, with the
 * input's size, a percentage and the time left when the size is known,
 * and the throughput.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core_alloc.h"
#include "fe.h"

#define NSLOTS 8
#define SLOT_TEXT 120

struct slot {
	int32_t pid;		/* 0: free */
	char text[SLOT_TEXT];	/* NUL-terminated */
};

struct fe_progress {
	uint64_t total;		/* input bytes, 0 = unknown */
	const char *phase;	/* static */
	uint64_t rows, bytes;
	double last;		/* monotonic seconds of the last draw */
	double phase_start;
	uint64_t phase_rows0, phase_bytes0;
	int fd;			/* the shared table, or -1: draw alone */
	char *path;		/* owned: the table's name */
	int slot;
	bool drawn;		/* something of ours is on the line */
};

static double
mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
human_bytes(char *buf, size_t cap, double b)
{
	static const char *const unit[] = { "B", "kB", "MB", "GB", "TB",
	    "PB" };
	int u = 0;

	while (b >= 1000 && u < 5) {
		b /= 1000;
		u++;
	}
	snprintf(buf, cap, u == 0 ? "%.0f %s" : "%.1f %s", b, unit[u]);
}

static void
human_count(char *buf, size_t cap, double n)
{
	if (n >= 1e9)
		snprintf(buf, cap, "%.2fG", n / 1e9);
	else if (n >= 1e6)
		snprintf(buf, cap, "%.2fM", n / 1e6);
	else if (n >= 1e4)
		snprintf(buf, cap, "%.1fk", n / 1e3);
	else
		snprintf(buf, cap, "%.0f", n);
}

static void
human_time(char *buf, size_t cap, double s)
{
	unsigned long t = (unsigned long)(s + 0.5);

	if (t >= 3600)
		snprintf(buf, cap, "%lu:%02lu:%02lu", t / 3600, t / 60 % 60,
		    t % 60);
	else
		snprintf(buf, cap, "%lu:%02lu", t / 60, t % 60);
}

/* This process's status text. */
static void
compose(const struct fe_progress *p, char *out, size_t cap)
{
	double dt = mono() - p->phase_start;
	char rows[32], pos[32], tot[32], rate[32], left[32];
	size_t n;

	human_count(rows, sizeof(rows), (double)p->rows);
	n = (size_t)snprintf(out, cap, "%s: %s, %s rows", fe_prog(),
	    p->phase, rows);
	if (n >= cap)
		return;
	if (p->bytes > 0) {
		human_bytes(pos, sizeof(pos), (double)p->bytes);
		if (p->total >= p->bytes && p->total > 0) {
			human_bytes(tot, sizeof(tot), (double)p->total);
			n += (size_t)snprintf(out + n, cap - n, ", %s of %s "
			    "(%.0f%%)", pos, tot,
			    100.0 * (double)p->bytes / (double)p->total);
		} else {
			n += (size_t)snprintf(out + n, cap - n, ", %s", pos);
		}
	}
	if (n >= cap || dt < 0.5)
		return;
	if (p->bytes > p->phase_bytes0) {
		double bps = (double)(p->bytes - p->phase_bytes0) / dt;

		human_bytes(rate, sizeof(rate), bps);
		n += (size_t)snprintf(out + n, cap - n, ", %s/s", rate);
		if (n < cap && p->total > p->bytes && bps > 0) {
			human_time(left, sizeof(left),
			    (double)(p->total - p->bytes) / bps);
			snprintf(out + n, cap - n, ", %s left", left);
		}
	} else if (p->rows > p->phase_rows0) {
		human_count(rate, sizeof(rate),
		    (double)(p->rows - p->phase_rows0) / dt);
		snprintf(out + n, cap - n, ", %s rows/s", rate);
	}
}

static unsigned
term_width(void)
{
	struct winsize ws;

	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 10)
		return ws.ws_col;
	return 80;
}

/* Writes "\r<line>\033[K", the line cut to the terminal's width. */
static void
draw(const char *line)
{
	unsigned w = term_width() - 1;
	char buf[NSLOTS * (SLOT_TEXT + 3) + 16];
	size_t len = strlen(line);
	int n;

	if (len > w)
		len = w;
	n = snprintf(buf, sizeof(buf), "\r%.*s\033[K", (int)len, line);
	if (n > 0)
		(void)!write(STDERR_FILENO, buf, (size_t)n);
}

static bool
read_table(int fd, struct slot *t)
{
	ssize_t n;

	memset(t, 0, sizeof(struct slot) * NSLOTS);
	n = pread(fd, t, sizeof(struct slot) * NSLOTS, 0);
	return n >= 0;
}

static void
write_slot(int fd, int i, const struct slot *s)
{
	(void)!pwrite(fd, s, sizeof(*s), (off_t)i * (off_t)sizeof(*s));
}

static bool
alive(int32_t pid)
{
	return pid > 0 && (kill(pid, 0) == 0 || errno == EPERM);
}

/* Draws every live slot of the table, under the lock. */
static void
draw_table(const struct slot *t)
{
	char line[NSLOTS * (SLOT_TEXT + 3) + 1];
	size_t n = 0;
	int i;

	line[0] = '\0';
	for (i = 0; i < NSLOTS; i++) {
		if (!alive(t[i].pid) || t[i].text[0] == '\0')
			continue;
		n += (size_t)snprintf(line + n, sizeof(line) - n, "%s%.*s",
		    n > 0 ? " | " : "", SLOT_TEXT - 1, t[i].text);
	}
	draw(line);
}

static void
join_table(struct fe_progress *p)
{
	struct slot t[NSLOTS];
	const char *dir = getenv("TMPDIR");
	struct stat st;
	size_t len;
	int i;

	p->fd = -1;
	if (fstat(STDERR_FILENO, &st) != 0)
		return;
	if (dir == NULL || *dir == '\0')
		dir = "/tmp";
	len = strlen(dir) + 96;
	p->path = core_xmalloc(len);
	snprintf(p->path, len, "%s/colpipe-progress-%lu-%lx-%ld", dir,
	    (unsigned long)getuid(), (unsigned long)st.st_rdev,
	    (long)getpgrp());
	p->fd = open(p->path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
	    0600);
	if (p->fd < 0)
		return;
	/* Someone else's file under our name is not a table to trust. */
	if (fstat(p->fd, &st) != 0 || st.st_uid != getuid() ||
	    !S_ISREG(st.st_mode) || flock(p->fd, LOCK_EX) != 0)
		goto alone;
	if (!read_table(p->fd, t)) {
		flock(p->fd, LOCK_UN);
		goto alone;
	}
	for (i = 0; i < NSLOTS; i++)
		if (!alive(t[i].pid))
			break;
	if (i == NSLOTS) {
		flock(p->fd, LOCK_UN);
		goto alone;
	}
	p->slot = i;
	memset(&t[i], 0, sizeof(t[i]));
	t[i].pid = (int32_t)getpid();
	write_slot(p->fd, i, &t[i]);
	flock(p->fd, LOCK_UN);
	return;
alone:
	close(p->fd);
	p->fd = -1;
}

struct fe_progress *
fe_progress_new(bool want, uint64_t total)
{
	struct fe_progress *p;

	if (!want || !isatty(STDERR_FILENO))
		return NULL;
	p = core_xcalloc(1, sizeof(*p));
	p->total = total;
	p->phase = "reading";
	p->phase_start = mono();
	join_table(p);
	return p;
}

static void
redraw(struct fe_progress *p)
{
	struct slot t[NSLOTS];
	/* Zeroed whole: the slot written to the shared file is all of it,
	 * not only the line compose ends with its NUL. */
	char text[SLOT_TEXT] = { 0 };

	compose(p, text, sizeof(text));
	p->drawn = true;
	if (p->fd < 0 || flock(p->fd, LOCK_EX) != 0) {
		draw(text);
		return;
	}
	if (read_table(p->fd, t)) {
		t[p->slot].pid = (int32_t)getpid();
		memcpy(t[p->slot].text, text, sizeof(text));
		write_slot(p->fd, p->slot, &t[p->slot]);
		draw_table(t);
	} else {
		draw(text);
	}
	flock(p->fd, LOCK_UN);
}

void
fe_progress_phase(struct fe_progress *p, const char *phase)
{
	fe_set_phase(phase);
	if (p == NULL)
		return;
	p->phase = phase;
	p->phase_start = mono();
	p->phase_rows0 = p->rows;
	p->phase_bytes0 = p->bytes;
	p->last = p->phase_start;
	redraw(p);
}

void
fe_progress_update(struct fe_progress *p, uint64_t rows, uint64_t bytes)
{
	double t;

	if (p == NULL)
		return;
	p->rows = rows;
	p->bytes = bytes;
	t = mono();
	if (t - p->last < 0.25)
		return;
	p->last = t;
	redraw(p);
}

void
fe_progress_free(struct fe_progress *p)
{
	struct slot t[NSLOTS];
	bool others = false;
	int i;

	if (p == NULL)
		return;
	if (p->fd >= 0 && flock(p->fd, LOCK_EX) == 0) {
		struct slot none;

		memset(&none, 0, sizeof(none));
		write_slot(p->fd, p->slot, &none);
		if (read_table(p->fd, t))
			for (i = 0; i < NSLOTS; i++)
				if (alive(t[i].pid))
					others = true;
		if (others && p->drawn)
			draw_table(t);
		else if (p->drawn)
			draw("");
		/* The last one out removes the table. */
		if (!others)
			(void)unlink(p->path);
		flock(p->fd, LOCK_UN);
	} else if (p->drawn) {
		draw("");
	}
	if (p->fd >= 0)
		close(p->fd);
	free(p->path);
	free(p);
}
