// SPDX-License-Identifier: GPL-2.0
/*
 * Context-switch cost with per-task events, in ns per switch.
 *
 * Two processes pinned to CPU 0 pass one byte back and forth over a pair of
 * pipes, so that every read blocks and every write wakes the other: a round
 * trip is two context switches.  Each of the two tasks first opens N
 * counting software events on itself (pid 0, cpu -1; task-clock and
 * context-switches in turn), which the scheduler switches out and in with
 * the task.
 *
 *   cs_0, cs_1, cs_8, cs_64    N = 0, 1, 8, 64 events on each task
 *   cs_N_added                 cs_N - cs_0: what N events add to a switch
 *   cs_64_cpu1                 64 events on each task, bound to CPU 1
 *                              (pid 0, cpu 1): events that cannot run on
 *                              CPU 0, where the tasks switch
 *   cs_64_cpu1_added           cs_64_cpu1 - cs_0
 */
#include "bench.h"

static void open_events(int n, int cpu, int *fds)
{
	static const uint64_t cfg[] = {
		PERF_COUNT_SW_TASK_CLOCK, PERF_COUNT_SW_CONTEXT_SWITCHES,
	};
	int i;

	for (i = 0; i < n; i++)
		fds[i] = sw_event(cfg[i % 2], 0, cpu, -1, 0, 0, 0);
}

/* ns per context switch with @nev events on each task, bound to @cpu. */
static double pingpong(const char *id, int nev, int cpu, int rounds)
{
	return pingpong_ns(id, open_events, nev, cpu, rounds);
}

int main(void)
{
	static const int counts[] = { 1, 8, 64 };
	char id[32];
	double base, x;
	unsigned int i;

	pin_cpu(0);
	base = pingpong("cs_0", 0, -1, 400);
	for (i = 0; i < ARRAY_SIZE(counts); i++) {
		snprintf(id, sizeof(id), "cs_%d", counts[i]);
		x = pingpong(id, counts[i], -1, counts[i] > 8 ? 200 : 400);
		snprintf(id, sizeof(id), "cs_%d_added", counts[i]);
		report(id, "ns", x - base);
	}
	if (sysconf(_SC_NPROCESSORS_ONLN) > 1) {
		x = pingpong("cs_64_cpu1", 64, 1, 400);
		report("cs_64_cpu1_added", "ns", x - base);
	}
	return 0;
}
