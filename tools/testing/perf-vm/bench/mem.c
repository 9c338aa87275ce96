// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel memory per event and per inherited context, and the cost of an
 * open among many events.  Memory is read from /proc/meminfo after folding
 * the per-CPU counters (/proc/sys/vm/stat_refresh) and letting RCU callbacks
 * run; /proc/slabinfo adds a figure when the kernel has it.
 *
 *   mem_per_event       bytes of kernel memory (the drop of MemFree) per
 *                       counting software event: 10,000 task-clock events
 *                       opened on this task, divided by 10,000.  The events
 *                       are opened disabled, so that the opens stay cheap;
 *                       a disabled event is as large as an enabled one.
 *   mem_per_event_slab  the same from the growth of Slab
 *   mem_per_event_slabinfo  the same from /proc/slabinfo (objects times
 *                       object size), when present
 *   open_at_10k         perf_event_open() + close() of one more counting
 *                       task-clock event (as open_close1) while those
 *                       10,000 events are open on the task, in ns
 *   mem_per_child_ctx   bytes per inherited child context: fork 500
 *                       children that block on a pipe, with one inherited
 *                       task-clock event on the parent and without; the
 *                       growth of Slab per child with, minus without
 *                       (medians of 7 rounds each).  What a child context
 *                       takes (the context, its PMU sub-context and the
 *                       copied event) is all slab memory.
 *                       The drop of MemFree is printed as a comment
 *                       only: it moves by tens of KiB per child from run
 *                       to run (page tables, stacks, per-CPU page lists,
 *                       frees of the previous round still pending) around
 *                       a difference of about 1.5 KiB.
 */
#include "bench.h"
#include <sys/wait.h>

#define NEVENTS		10000
#define NCHILD		500
#define ROUNDS		7

struct mem {
	double free;		/* MemFree, bytes */
	double slab;		/* Slab, bytes */
	double slabinfo;	/* sum of objects * size over slabinfo, or -1 */
};

static double meminfo_field(const char *buf, const char *name)
{
	const char *p = strstr(buf, name);

	return p ? strtod(p + strlen(name), NULL) * 1024 : 0;
}

static double slabinfo_bytes(void)
{
	FILE *f = fopen("/proc/slabinfo", "r");
	char line[512], name[128];
	unsigned long active, num, size;
	double sum = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%127s %lu %lu %lu", name, &active, &num, &size) == 4)
			sum += (double)active * size;
	fclose(f);
	return sum;
}

static void settle(void)
{
	int fd;

	/* RCU frees and deferred work of what came before. */
	usleep(200000);
	fd = open("/proc/sys/vm/stat_refresh", O_WRONLY);
	if (fd >= 0) {
		/* Best effort: without it the counters are off by a little. */
		if (write(fd, "1\n", 2) != 2)
			errno = 0;
		close(fd);
	}
}

static void read_mem(struct mem *m)
{
	static char buf[8192];
	ssize_t n;
	int fd;

	settle();
	fd = open("/proc/meminfo", O_RDONLY);
	if (fd < 0)
		die("/proc/meminfo");
	n = read(fd, buf, sizeof(buf) - 1);
	if (n <= 0)
		die("read /proc/meminfo");
	buf[n] = 0;
	close(fd);
	m->free = meminfo_field(buf, "MemFree:");
	m->slab = meminfo_field(buf, "Slab:");
	m->slabinfo = slabinfo_bytes();
}

static void bench_many_events(void)
{
	static int fds[NEVENTS];
	struct mem before, after;
	int i;

	raise_nofile(NEVENTS + 1024);
	read_mem(&before);
	for (i = 0; i < NEVENTS; i++)
		fds[i] = sw_event(PERF_COUNT_SW_TASK_CLOCK, 0, -1, -1, 1, 0, 0);
	read_mem(&after);
	report("mem_per_event", "bytes", (before.free - after.free) / NEVENTS);
	report("mem_per_event_slab", "bytes", (after.slab - before.slab) / NEVENTS);
	if (before.slabinfo >= 0)
		report("mem_per_event_slabinfo", "bytes",
		       (after.slabinfo - before.slabinfo) / NEVENTS);

	report_open_close1("open_at_10k", 20);
	for (i = 0; i < NEVENTS; i++)
		close(fds[i]);
}

/* Per-child drop of MemFree and growth of Slab with NCHILD children. */
static void children(int inherit, double *free, double *slab)
{
	int ready[2], release[2], i, fd = -1, status;
	static pid_t pids[NCHILD];
	struct mem before, after;
	char c;

	if (pipe(ready) || pipe(release))
		die("pipe");
	if (inherit)
		fd = sw_event(PERF_COUNT_SW_TASK_CLOCK, 0, -1, -1, 0, 1, 0);
	read_mem(&before);
	for (i = 0; i < NCHILD; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			die("fork");
		if (pids[i] == 0) {
			close(ready[0]);
			close(release[1]);
			if (write(ready[1], "r", 1) != 1)
				_exit(1);
			if (read(release[0], &c, 1) < 0)
				_exit(1);
			_exit(0);
		}
	}
	for (i = 0; i < NCHILD; i++)
		if (read(ready[0], &c, 1) != 1)
			die("child ready");
	read_mem(&after);
	close(release[1]);
	for (i = 0; i < NCHILD; i++)
		if (waitpid(pids[i], &status, 0) != pids[i])
			die("waitpid");
	close(release[0]);
	close(ready[0]);
	close(ready[1]);
	if (fd >= 0)
		close(fd);
	*free = (before.free - after.free) / NCHILD;
	*slab = (after.slab - before.slab) / NCHILD;
}

static void bench_child_ctx(void)
{
	double free[2][ROUNDS], slab[2][ROUNDS], f0, f1, s0, s1;
	int r, k;

	for (r = 0; r < ROUNDS; r++)
		for (k = 0; k < 2; k++)
			children(k, &free[k][r], &slab[k][r]);
	f0 = median(free[0], ROUNDS);
	f1 = median(free[1], ROUNDS);
	s0 = median(slab[0], ROUNDS);
	s1 = median(slab[1], ROUNDS);
	printf("# per child: MemFree drop %.0f without, %.0f with an inherited event (%.0f .. %.0f)\n",
	       f0, f1, free[1][0], free[1][ROUNDS - 1]);
	printf("# per child: Slab growth %.0f without, %.0f with\n", s0, s1);
	report("mem_per_child_ctx", "bytes", s1 - s0);
}

int main(void)
{
	pin_cpu(0);
	bench_many_events();
	bench_child_ctx();
	return 0;
}
