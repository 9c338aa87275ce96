// SPDX-License-Identifier: GPL-2.0
/*
 * Costs that must not grow with events that have nothing to do with them:
 *
 *   sb_mmap_0          mmap() + munmap() of an anonymous page while one
 *                      event of this task asks for MMAP records (of data
 *                      mappings; it has no buffer, so the records are
 *                      offered and dropped), in ns
 *   sb_mmap_1k         the same with 1,000 more counting events on this
 *                      task that ask for no side-band record
 *   sb_mmap_1k_added   the difference: the walk of events that want none
 *   tick_1k_added      ns added to each scheduler tick by 1,000 sampling
 *                      events of this task that never overflow (no
 *                      frequency mode, never throttled): a CPU-bound loop
 *                      is timed with them and with 1,000 counting events
 *                      of the same kind instead (so that the rest, the
 *                      context switches above all, costs the same), and
 *                      the difference is divided by the ticks of the loop
 *   bp_0               perf_event_open() + close() of a breakpoint on this
 *                      task, no other breakpoint in the system
 *   bp_256             the same while 256 other threads hold one each
 *   bp_256_added       the difference: the slot accounting's cost per
 *                      breakpoint held elsewhere
 */
#include "bench.h"

#include <linux/hw_breakpoint.h>
#include <pthread.h>

#define RUNS		11
#define OTHERS		1000
#define BP_THREADS	256
/* CONFIG_HZ of the kernels built here. */
#define TICK_NS		4000000ULL

static volatile uint64_t sink;

static int dummy_event(int mmap_data)
{
	struct perf_event_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.mmap_data = mmap_data;
	a.sample_id_all = 1;
	fd = sys_perf_event_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		die("perf_event_open(dummy)");
	return fd;
}

static double time_mmaps(void)
{
	double v[RUNS];
	int r, i, n = 500;
	void *p;

	for (r = -1; r < RUNS; r++) {
		uint64_t t = now_ns();

		for (i = 0; i < n; i++) {
			p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (p == MAP_FAILED)
				die("mmap");
			munmap(p, 4096);
		}
		if (r >= 0)
			v[r] = (double)(now_ns() - t) / n;
	}
	return median(v, RUNS);
}

static void bench_sb_mmap(void)
{
	int sb = dummy_event(1), fds[OTHERS], i;
	double base, many;

	base = time_mmaps();
	for (i = 0; i < OTHERS; i++)
		fds[i] = dummy_event(0);
	many = time_mmaps();
	for (i = 0; i < OTHERS; i++)
		close(fds[i]);
	close(sb);
	report("sb_mmap_0", "ns", base);
	report("sb_mmap_1k", "ns", many);
	report("sb_mmap_1k_added", "ns", many - base);
}

/* A loop of fixed work, long enough for dozens of ticks. */
static double time_loop(void)
{
	double v[RUNS];
	uint64_t i;
	int r;

	for (r = -1; r < RUNS; r++) {
		uint64_t t = now_ns();

		for (i = 0; i < 100000000ULL; i++)
			sink += i;
		if (r >= 0)
			v[r] = (double)(now_ns() - t);
	}
	return median(v, RUNS);
}

/* The loop's time with OTHERS page-fault events of @period on this task. */
static double time_loop_with(uint64_t period)
{
	struct perf_event_attr a;
	int fds[OTHERS], i;
	double t;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_PAGE_FAULTS;
	a.sample_period = period;
	for (i = 0; i < OTHERS; i++) {
		fds[i] = sys_perf_event_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (fds[i] < 0)
			die("perf_event_open(event %d)", i);
	}
	t = time_loop();
	for (i = 0; i < OTHERS; i++)
		close(fds[i]);
	return t;
}

static void bench_tick(void)
{
	double counting = time_loop_with(0), sampling = time_loop_with(1ULL << 62);

	report("tick_1k_added", "ns", (sampling - counting) / (counting / TICK_NS));
}

/* ---- breakpoints ---- */

static volatile uint64_t watched[BP_THREADS + 1];
static int go_pipe[2];

static int bp_event(pid_t tid, volatile uint64_t *addr)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_BREAKPOINT;
	a.bp_type = HW_BREAKPOINT_W;
	a.bp_addr = (unsigned long)addr;
	a.bp_len = HW_BREAKPOINT_LEN_8;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	return sys_perf_event_open(&a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static double time_bp(void)
{
	double v[RUNS];
	int r, i, n = 100, fd;

	for (r = -1; r < RUNS; r++) {
		uint64_t t = now_ns();

		for (i = 0; i < n; i++) {
			fd = bp_event(0, &watched[BP_THREADS]);
			if (fd < 0)
				die("perf_event_open(breakpoint)");
			close(fd);
		}
		if (r >= 0)
			v[r] = (double)(now_ns() - t) / n;
	}
	return median(v, RUNS);
}

struct holder {
	pthread_t th;
	volatile pid_t tid;
};

static void *hold(void *arg)
{
	struct holder *h = arg;
	char c;

	h->tid = syscall(SYS_gettid);
	/* Until the write end is closed. */
	while (read(go_pipe[0], &c, 1) > 0)
		;
	return NULL;
}

static void bench_bp(void)
{
	static struct holder h[BP_THREADS];
	int fds[BP_THREADS], i;
	double base, many;

	base = time_bp();
	if (pipe(go_pipe))
		die("pipe");
	for (i = 0; i < BP_THREADS; i++) {
		if (pthread_create(&h[i].th, NULL, hold, &h[i]))
			die("pthread_create");
		while (!h[i].tid)
			sched_yield();
		fds[i] = bp_event(h[i].tid, &watched[i]);
		if (fds[i] < 0)
			die("perf_event_open(breakpoint of thread %d)", i);
	}
	many = time_bp();
	for (i = 0; i < BP_THREADS; i++)
		close(fds[i]);
	close(go_pipe[1]);
	for (i = 0; i < BP_THREADS; i++)
		pthread_join(h[i].th, NULL);
	close(go_pipe[0]);
	report("bp_0", "ns", base);
	report("bp_256", "ns", many);
	report("bp_256_added", "ns", many - base);
}

int main(void)
{
	pin_cpu(0);
	raise_nofile(4096);
	bench_sb_mmap();
	bench_tick();
	bench_bp();
	return 0;
}
