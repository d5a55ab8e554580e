/*
 * timer.c - runs one command repeatedly and reports its cost as JSON.
 *
 *	timer [-n runs] [-w warmups] [-o file] -- command [arg ...]
 *
 * Each run is a fresh process started with posix_spawnp(3), its standard
 * input /dev/null and its standard output the file given with -o
 * (default /dev/null); standard error is passed through so a failing
 * command can say why.  Wall time is CLOCK_MONOTONIC around spawn and
 * wait4(2); CPU time (user + system) and peak RSS come from the rusage
 * wait4 returns for the child, and the system part of that CPU time on
 * its own (sys_ms: the kernel's share, e.g. copying output into the page
 * cache, which on a virtual machine varies from run to run far more than
 * user time does).  On Linux that rusage also covers the
 * descendants the child itself waited for, so for "sh -c 'a | b'" the CPU
 * is the sum over a, b and the shell, and the peak RSS is that of the
 * largest single process, not the sum.
 *
 * Why a separate C program and not the harness shell or node: a child
 * starts with its parent's pages mapped, so a big parent raises every
 * child's ru_maxrss.  This process stays a few hundred KiB, and
 * posix_spawn does not copy it anyway.
 *
 * Warm-up runs are run and checked but not reported.  Every run, warm-up
 * or timed, must exit with status 0; otherwise the timer prints why on
 * stderr, prints no JSON and exits 1, so no time is ever recorded for a
 * failed run.  Exit 2 means a usage error.
 *
 * Output (one line on stdout): runs, warmups, per-run arrays wall_ms,
 * cpu_ms, sys_ms and rss_kb in run order, and the summaries best/median/max of
 * wall, best/median of CPU and the maximum RSS in MiB.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define MAX_RUNS 1000

struct sample {
	double wall_ms;
	double cpu_ms;
	double sys_ms;
	long rss_kb;
};

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static double
tv_ms(struct timeval tv)
{
	return tv.tv_sec * 1e3 + tv.tv_usec / 1e3;
}

/* One run of argv.  Returns 0 and fills *s, or -1 after saying why. */
static int
run_once(char **argv, const char *out, struct sample *s)
{
	posix_spawn_file_actions_t fa;
	struct rusage ru;
	pid_t pid;
	double t0, t1;
	int rc, status;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, out,
	    O_WRONLY | O_CREAT | O_TRUNC, 0666);
	t0 = now_ms();
	rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc != 0) {
		fprintf(stderr, "timer: %s: %s\n", argv[0], strerror(rc));
		return -1;
	}
	while (wait4(pid, &status, 0, &ru) < 0) {
		if (errno != EINTR) {
			perror("timer: wait4");
			return -1;
		}
	}
	t1 = now_ms();
	if (WIFSIGNALED(status)) {
		fprintf(stderr, "timer: %s: killed by signal %d\n", argv[0],
		    WTERMSIG(status));
		return -1;
	}
	if (WEXITSTATUS(status) != 0) {
		fprintf(stderr, "timer: %s: exit status %d\n", argv[0],
		    WEXITSTATUS(status));
		return -1;
	}
	s->wall_ms = t1 - t0;
	s->cpu_ms = tv_ms(ru.ru_utime) + tv_ms(ru.ru_stime);
	s->sys_ms = tv_ms(ru.ru_stime);
	s->rss_kb = ru.ru_maxrss;	/* KiB on Linux */
	return 0;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median of n values (sorted copy in tmp): the mean of the middle two
 * when n is even. */
static double
median(const double *v, double *tmp, int n)
{
	memcpy(tmp, v, n * sizeof(*v));
	qsort(tmp, n, sizeof(*tmp), cmp_double);
	return n % 2 ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2;
}

static void
usage(void)
{
	fprintf(stderr,
	    "usage: timer [-n runs] [-w warmups] [-o file] -- command [arg ...]\n");
	exit(2);
}

static int
parse_count(const char *s, int min)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > MAX_RUNS)
		usage();
	return (int)v;
}

int
main(int argc, char **argv)
{
	static struct sample samples[MAX_RUNS];
	static double wall[MAX_RUNS], cpu[MAX_RUNS], tmp[MAX_RUNS];
	const char *out = "/dev/null";
	struct sample warm;
	double best_wall, max_wall, best_cpu;
	long max_rss;
	int ch, i, runs = 5, warmups = 1;

	while ((ch = getopt(argc, argv, "+n:w:o:")) != -1) {
		switch (ch) {
		case 'n':
			runs = parse_count(optarg, 1);
			break;
		case 'w':
			warmups = parse_count(optarg, 0);
			break;
		case 'o':
			out = optarg;
			break;
		default:
			usage();
		}
	}
	argv += optind;
	if (*argv == NULL)
		usage();

	for (i = 0; i < warmups; i++)
		if (run_once(argv, out, &warm) != 0)
			return 1;
	for (i = 0; i < runs; i++) {
		if (run_once(argv, out, &samples[i]) != 0)
			return 1;
		wall[i] = samples[i].wall_ms;
		cpu[i] = samples[i].cpu_ms;
	}

	best_wall = max_wall = wall[0];
	best_cpu = cpu[0];
	max_rss = samples[0].rss_kb;
	for (i = 1; i < runs; i++) {
		if (wall[i] < best_wall)
			best_wall = wall[i];
		if (wall[i] > max_wall)
			max_wall = wall[i];
		if (cpu[i] < best_cpu)
			best_cpu = cpu[i];
		if (samples[i].rss_kb > max_rss)
			max_rss = samples[i].rss_kb;
	}

	printf("{\"runs\":%d,\"warmups\":%d,\"wall_ms\":[", runs, warmups);
	for (i = 0; i < runs; i++)
		printf("%s%.3f", i ? "," : "", wall[i]);
	printf("],\"cpu_ms\":[");
	for (i = 0; i < runs; i++)
		printf("%s%.3f", i ? "," : "", cpu[i]);
	printf("],\"sys_ms\":[");
	for (i = 0; i < runs; i++)
		printf("%s%.3f", i ? "," : "", samples[i].sys_ms);
	printf("],\"rss_kb\":[");
	for (i = 0; i < runs; i++)
		printf("%s%ld", i ? "," : "", samples[i].rss_kb);
	printf("],\"best_wall_ms\":%.3f,\"median_wall_ms\":%.3f,"
	    "\"max_wall_ms\":%.3f,\"best_cpu_ms\":%.3f,"
	    "\"median_cpu_ms\":%.3f,\"peak_rss_mb\":%.1f}\n",
	    best_wall, median(wall, tmp, runs), max_wall, best_cpu,
	    median(cpu, tmp, runs), max_rss / 1024.0);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		perror("timer: stdout");
		return 1;
	}
	return 0;
}
