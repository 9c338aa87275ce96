// SPDX-License-Identifier: GPL-2.0
/*
 * Enabling and disabling many events of one task, in ns per round (all 256
 * events enabled, then all 256 disabled again).
 *
 * The task opens 256 counting software events on itself, disabled, each
 * its own group (the eight software events of bench.h in turn).
 *
 *   enable256_ioctl    PERF_EVENT_IOC_ENABLE on each fd, then
 *                      PERF_EVENT_IOC_DISABLE on each fd
 *   enable256_prctl    prctl(PR_TASK_PERF_EVENTS_ENABLE), then
 *                      prctl(PR_TASK_PERF_EVENTS_DISABLE)
 */
#include "bench.h"
#include <sys/prctl.h>

#define RUNS	7
#define NEV	256

static int fds[NEV];

static void round_ioctl(void)
{
	int i;

	for (i = 0; i < NEV; i++)
		if (ioctl(fds[i], PERF_EVENT_IOC_ENABLE, 0))
			die("PERF_EVENT_IOC_ENABLE");
	for (i = 0; i < NEV; i++)
		if (ioctl(fds[i], PERF_EVENT_IOC_DISABLE, 0))
			die("PERF_EVENT_IOC_DISABLE");
}

static void round_prctl(void)
{
	if (prctl(PR_TASK_PERF_EVENTS_ENABLE, 0, 0, 0, 0))
		die("PR_TASK_PERF_EVENTS_ENABLE");
	if (prctl(PR_TASK_PERF_EVENTS_DISABLE, 0, 0, 0, 0))
		die("PR_TASK_PERF_EVENTS_DISABLE");
}

static void measure(const char *id, void (*fn)(void))
{
	double v[RUNS];
	int r;

	for (r = -1; r < RUNS; r++) {
		uint64_t t = now_ns();

		fn();
		if (r >= 0)
			v[r] = (double)(now_ns() - t);
	}
	report_runs(id, "ns", v, RUNS);
}

int main(void)
{
	uint64_t val;
	int i;

	pin_cpu(0);
	for (i = 0; i < NEV; i++)
		fds[i] = sw_event(sw_configs[i % ARRAY_SIZE(sw_configs)], 0, -1,
				  -1, 1, 0, 0);
	measure("enable256_ioctl", round_ioctl);
	measure("enable256_prctl", round_prctl);
	/* Both must have left the events counting for a while. */
	if (read(fds[0], &val, sizeof(val)) != sizeof(val) || !val)
		fprintf(stderr, "bench: task-clock did not count while enabled\n");
	return 0;
}
