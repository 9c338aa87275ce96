// SPDX-License-Identifier: GPL-2.0
/*
 * System-call costs, in ns per call:
 *
 *   getppid            a system call that does nothing: the floor
 *   read_devzero       an 8-byte read() of /dev/zero: the cost of read()
 *                      itself, to compare the perf reads with
 *   read1              read() of one counting task-clock event of this task
 *   read_group8        read() of a group of 8 counting software events
 *                      (task-clock leader, cpu-clock and six other software
 *                      events as siblings) with PERF_FORMAT_GROUP
 *   open_close1        perf_event_open() of one counting task-clock event
 *                      on this task, then close()
 *   open_close_group8  perf_event_open() of the group of 8 above, then the
 *                      eight close()s
 */
#include "bench.h"

#define RUNS	11

static volatile uint64_t sink;

static void bench_read_devzero(void)
{
	double v[RUNS];
	int r, i, n = 2000, fd = open("/dev/zero", O_RDONLY);
	uint64_t buf;

	if (fd < 0)
		die("/dev/zero");
	for (r = -1; r < RUNS; r++) {
		uint64_t t = now_ns();

		for (i = 0; i < n; i++)
			if (read(fd, &buf, sizeof(buf)) != sizeof(buf))
				die("read /dev/zero");
		if (r >= 0)
			v[r] = (double)(now_ns() - t) / n;
	}
	close(fd);
	report_runs("read_devzero", "ns", v, RUNS);
}

static void bench_read1(void)
{
	double v[RUNS];
	int r, i, n = 1000;
	int fd = sw_event(PERF_COUNT_SW_TASK_CLOCK, 0, -1, -1, 0, 0, 0);
	uint64_t val;

	for (r = -1; r < RUNS; r++) {
		uint64_t t = now_ns();

		for (i = 0; i < n; i++)
			if (read(fd, &val, sizeof(val)) != sizeof(val))
				die("read task-clock");
		if (r >= 0)
			v[r] = (double)(now_ns() - t) / n;
	}
	sink = val;
	close(fd);
	report_runs("read1", "ns", v, RUNS);
}

/* Open the group of 8 of this task, fds into @fd[8]. */
static void open_group8(int *fd, uint64_t read_format)
{
	int i;

	fd[0] = sw_event(sw_configs[0], 0, -1, -1, 0, 0, read_format);
	for (i = 1; i < 8; i++)
		fd[i] = sw_event(sw_configs[i], 0, -1, fd[0], 0, 0, read_format);
}

static void bench_read_group8(void)
{
	double v[RUNS];
	int r, i, n = 1000, fd[8];
	uint64_t buf[1 + 8];

	open_group8(fd, PERF_FORMAT_GROUP);
	for (r = -1; r < RUNS; r++) {
		uint64_t t = now_ns();

		for (i = 0; i < n; i++)
			if (read(fd[0], buf, sizeof(buf)) != sizeof(buf))
				die("read group");
		if (r >= 0)
			v[r] = (double)(now_ns() - t) / n;
	}
	if (buf[0] != 8)
		fprintf(stderr, "bench: group read returned %llu values\n",
			(unsigned long long)buf[0]);
	for (i = 7; i >= 0; i--)
		close(fd[i]);
	report_runs("read_group8", "ns", v, RUNS);
}

static void bench_open_close1(void)
{
	report_open_close1("open_close1", 200);
}

static void bench_open_close_group8(void)
{
	double v[RUNS];
	int r, i, j, n = 40, fd[8];

	for (r = -1; r < RUNS; r++) {
		uint64_t t = now_ns();

		for (i = 0; i < n; i++) {
			open_group8(fd, 0);
			for (j = 7; j >= 0; j--)
				close(fd[j]);
		}
		if (r >= 0)
			v[r] = (double)(now_ns() - t) / n;
	}
	report_runs("open_close_group8", "ns", v, RUNS);
}

int main(void)
{
	pin_cpu(0);
	getppid_ns("getppid");
	bench_read_devzero();
	bench_read1();
	bench_read_group8();
	bench_open_close1();
	bench_open_close_group8();
	return 0;
}
