/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the benchmark programs of bench.sh.
 *
 * Every figure is the median of repeated measurements of CLOCK_MONOTONIC in
 * the guest.  Under QEMU's -icount shift=0,sleep=off the guest clock counts
 * executed instructions, so a figure is an instruction count and repeats
 * from run to run; sleeping and waiting for I/O jump the clock, so nothing
 * inside a timed region sleeps or touches the 9p root.
 *
 * Each figure is printed as one line "BENCH <id> <unit> <value>"; a line
 * "# <id>: min .. max (n runs)" before it shows the spread of the runs.
 */
#ifndef PERF_VM_BENCH_H
#define PERF_VM_BENCH_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define MAX_RUNS	64

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static inline void __attribute__((noreturn, format(printf, 1, 2)))
die(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	fflush(stdout);
	va_start(ap, fmt);
	fprintf(stderr, "bench: ");
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s\n", strerror(err));
	exit(1);
}

static inline int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median of @n values; sorts them. */
static inline double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static inline void report(const char *id, const char *unit, double value)
{
	printf("BENCH %s %s %.1f\n", id, unit, value);
	fflush(stdout);
}

/* Print the spread of @n runs, then their median as figure @id. */
static inline double report_runs(const char *id, const char *unit,
				 double *v, int n)
{
	double m = median(v, n);

	printf("# %s: %.1f .. %.1f (%d runs)\n", id, v[0], v[n - 1], n);
	report(id, unit, m);
	return m;
}

/*
 * ns per getppid() call, the median of 11 runs of 2000, reported as
 * figure @id: the floor of a system call, or with a tracepoint on it.
 */
#define GETPPID_RUNS	11
static inline double getppid_ns(const char *id)
{
	double v[GETPPID_RUNS];
	int r, i, n = 2000;

	for (r = -1; r < GETPPID_RUNS; r++) {
		uint64_t t = now_ns();

		for (i = 0; i < n; i++)
			syscall(SYS_getppid);
		if (r >= 0)
			v[r] = (double)(now_ns() - t) / n;
	}
	return report_runs(id, "ns", v, GETPPID_RUNS);
}

/* One byte through a pipe, for the ping-pong of sched.c and hw.c. */
static inline void xwrite(int fd)
{
	char c = 0;

	if (write(fd, &c, 1) != 1)
		die("pipe write");
}

/* One byte from a pipe; 0 at end of file. */
static inline int xread(int fd)
{
	char c;
	ssize_t n = read(fd, &c, 1);

	if (n < 0)
		die("pipe read");
	return n;
}

/*
 * The ping-pong of sched.c and hw.c: two processes on the calling
 * process's CPU pass one byte back and forth over a pair of pipes, so
 * that every read blocks and every write wakes the other, @rounds round
 * trips (two context switches each) a run.  @open_events(@nev, @arg,
 * fds) opens each task's events on itself first (at most 64).  Reports
 * the median of the runs in ns per context switch as figure @id.
 */
#define PINGPONG_RUNS	9
static inline double pingpong_ns(const char *id,
				 void (*open_events)(int nev, int arg, int *fds),
				 int nev, int arg, int rounds)
{
	int to_child[2], to_parent[2], fds[64], i, r, status;
	double v[PINGPONG_RUNS];
	pid_t pid;

	if (pipe(to_child) || pipe(to_parent))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		close(to_child[1]);
		close(to_parent[0]);
		open_events(nev, arg, fds);
		xwrite(to_parent[1]);
		while (xread(to_child[0]))
			xwrite(to_parent[1]);
		_exit(0);
	}
	close(to_child[0]);
	close(to_parent[1]);
	open_events(nev, arg, fds);
	xread(to_parent[0]);	/* the child's events are open */

	for (r = -1; r < PINGPONG_RUNS; r++) {
		uint64_t t = now_ns();

		for (i = 0; i < rounds; i++) {
			xwrite(to_child[1]);
			xread(to_parent[0]);
		}
		if (r >= 0)
			v[r] = (double)(now_ns() - t) / (2.0 * rounds);
	}
	close(to_child[1]);
	close(to_parent[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		die("ping-pong child failed");
	for (i = 0; i < nev; i++)
		close(fds[i]);
	return report_runs(id, "ns", v, PINGPONG_RUNS);
}

/*
 * CPU-bound work: @n steps of a linear congruential generator from @x, a
 * call of its own (sampled callchains end in it).
 */
static __attribute__((noinline, unused)) uint64_t lcg_spin(uint64_t x, unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	return x;
}

static inline int sys_perf_event_open(struct perf_event_attr *attr, pid_t pid,
				      int cpu, int group_fd,
				      unsigned long flags)
{
	return syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
}

/* A counting software event; dies on failure. */
static inline int sw_event(uint64_t config, pid_t pid, int cpu, int group_fd,
			   int disabled, int inherit, uint64_t read_format)
{
	struct perf_event_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = config;
	attr.disabled = disabled;
	attr.inherit = inherit;
	attr.read_format = read_format;
	fd = sys_perf_event_open(&attr, pid, cpu, group_fd, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		die("perf_event_open(software %llu, pid %d, cpu %d)",
		    (unsigned long long)config, pid, cpu);
	return fd;
}

/*
 * perf_event_open() + close() of one counting task-clock event of this
 * task, @n times a run: the median of RUNS_OC runs in ns, as figure @id.
 */
#define RUNS_OC	11
static inline void report_open_close1(const char *id, int n)
{
	double v[RUNS_OC];
	int r, i;

	for (r = -1; r < RUNS_OC; r++) {
		uint64_t t = now_ns();

		for (i = 0; i < n; i++)
			close(sw_event(PERF_COUNT_SW_TASK_CLOCK, 0, -1, -1, 0, 0, 0));
		if (r >= 0)
			v[r] = (double)(now_ns() - t) / n;
	}
	report_runs(id, "ns", v, RUNS_OC);
}

/* The software events the benchmarks cycle through. */
static const uint64_t sw_configs[] = {
	PERF_COUNT_SW_TASK_CLOCK,
	PERF_COUNT_SW_CPU_CLOCK,
	PERF_COUNT_SW_PAGE_FAULTS,
	PERF_COUNT_SW_CONTEXT_SWITCHES,
	PERF_COUNT_SW_CPU_MIGRATIONS,
	PERF_COUNT_SW_PAGE_FAULTS_MIN,
	PERF_COUNT_SW_PAGE_FAULTS_MAJ,
	PERF_COUNT_SW_ALIGNMENT_FAULTS,
};

/* Run the calling thread (and what it forks) on @cpu only. */
static inline void pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity(%d)", cpu);
}

static inline void raise_nofile(rlim_t n)
{
	struct rlimit rl = { n, n };

	if (setrlimit(RLIMIT_NOFILE, &rl))
		die("setrlimit(RLIMIT_NOFILE, %lu)", (unsigned long)n);
}

/* A perf ring buffer mapped by its reader. */
struct rb {
	struct perf_event_mmap_page *pg;
	char *data;
	uint64_t size;		/* bytes of data, a power of two */
	size_t len;		/* bytes mapped */
};

/* What rb_drain() saw. */
struct rb_stats {
	uint64_t samples;	/* PERF_RECORD_SAMPLE records */
	uint64_t lost;		/* records lost, the sum of PERF_RECORD_LOST */
	uint64_t other;		/* other records */
	uint64_t bytes;		/* bytes of all records */
};

/* Map @data_pages pages of ring buffer (a power of two) of event @fd. */
static inline void rb_map(struct rb *rb, int fd, size_t data_pages)
{
	size_t page = sysconf(_SC_PAGESIZE);
	void *p;

	rb->size = data_pages * page;
	rb->len = (data_pages + 1) * page;
	p = mmap(NULL, rb->len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		die("mmap of %zu ring-buffer pages", data_pages);
	rb->pg = p;
	rb->data = (char *)p + page;
}

static inline void rb_unmap(struct rb *rb)
{
	munmap(rb->pg, rb->len);
}

static inline uint64_t rb_u64(struct rb *rb, uint64_t pos)
{
	return *(uint64_t *)(rb->data + (pos & (rb->size - 1)));
}

/* Consume every record the buffer holds; add them up into @st. */
static inline void rb_drain(struct rb *rb, struct rb_stats *st)
{
	uint64_t head = __atomic_load_n(&rb->pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = rb->pg->data_tail;

	while (tail < head) {
		struct perf_event_header *h =
			(void *)(rb->data + (tail & (rb->size - 1)));

		if (!h->size)
			break;
		if (h->type == PERF_RECORD_SAMPLE)
			st->samples++;
		else if (h->type == PERF_RECORD_LOST)
			st->lost += rb_u64(rb, tail + 16);
		else
			st->other++;
		st->bytes += h->size;
		tail += h->size;
	}
	__atomic_store_n(&rb->pg->data_tail, tail, __ATOMIC_RELEASE);
}

#endif
