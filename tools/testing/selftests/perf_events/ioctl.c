// SPDX-License-Identifier: GPL-2.0
/*
 * The perf event ioctls on software events: ENABLE, DISABLE, RESET (also
 * with PERF_IOC_FLAG_GROUP, from the leader or a sibling), ID, PERIOD,
 * REFRESH, SET_OUTPUT, SET_FILTER, SET_BPF, PAUSE_OUTPUT, QUERY_BPF,
 * MODIFY_ATTRIBUTES and unknown command numbers.
 *
 * Counts are made deterministic with the page-faults event: touching a
 * fresh anonymous page is one fault, and nothing else in the measured
 * stretches faults once the code has run once.  The kernel under test has
 * no BPF syscall and no tracing, which decides several errnos below.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdbool.h>

#include "../kselftest_harness.h"
#include "perf_util.h"

#define NPAGES	32
#define NSEC_PER_SEC_ULL 1000000000ULL

static int open_faults(int disabled, int group_fd)
{
	return open_fmt(PERF_COUNT_SW_PAGE_FAULTS, 0, group_fd, disabled);
}

/* A sampling software event on the calling task (no ring buffer). */
static int open_sampling(uint64_t config, uint64_t period, int freq,
			 int inherit, int disabled)
{
	struct perf_event_attr attr;

	sw_attr(&attr, config);
	attr.sample_period = period;
	attr.freq = freq;
	attr.inherit = inherit;
	attr.disabled = disabled;
	return sys_perf_event_open(&attr, 0, -1, -1, 0);
}

/* ioctl's errno, 0 on success. */
static int ioctl_err(int fd, unsigned long cmd, unsigned long arg)
{
	return ioctl(fd, cmd, arg) ? errno : 0;
}

/* Warm up the code paths used while measuring, so they do not fault. */
static void warm_up(int fd)
{
	touch_pages(NPAGES);
	read_count(fd);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
}

/* ---- ENABLE / DISABLE / RESET ------------------------------------------------ */

TEST(disabled_at_open_counts_nothing)
{
	int fd = open_faults(1, -1);
	uint64_t v;

	ASSERT_GE(fd, 0);
	touch_pages(NPAGES);
	EXPECT_EQ(0, read_count(fd));
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
	touch_pages(NPAGES);
	v = read_count(fd);
	EXPECT_GE(v, NPAGES);
	EXPECT_LE(v, NPAGES + 4);
	close(fd);
}

TEST(disable_stops_enable_resumes)
{
	int fd = open_faults(0, -1);
	uint64_t v1, v2, v3;

	ASSERT_GE(fd, 0);
	warm_up(fd);
	touch_pages(NPAGES);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_DISABLE, 0));
	v1 = read_count(fd);
	EXPECT_GE(v1, 2 * NPAGES);
	touch_pages(NPAGES);
	v2 = read_count(fd);
	EXPECT_EQ(v1, v2);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
	touch_pages(NPAGES);
	v3 = read_count(fd);
	EXPECT_EQ(v2 + NPAGES, v3);
	close(fd);
}

/* Repeating ENABLE or DISABLE is harmless. */
TEST(enable_disable_repeat)
{
	int fd = open_faults(1, -1);

	ASSERT_GE(fd, 0);
	EXPECT_EQ(0, ioctl_err(fd, PERF_EVENT_IOC_DISABLE, 0));
	EXPECT_EQ(0, ioctl_err(fd, PERF_EVENT_IOC_ENABLE, 0));
	EXPECT_EQ(0, ioctl_err(fd, PERF_EVENT_IOC_ENABLE, 0));
	EXPECT_EQ(0, ioctl_err(fd, PERF_EVENT_IOC_DISABLE, 0));
	EXPECT_EQ(0, ioctl_err(fd, PERF_EVENT_IOC_DISABLE, 0));
	/* Bits of the argument other than FLAG_GROUP are ignored. */
	EXPECT_EQ(0, ioctl_err(fd, PERF_EVENT_IOC_ENABLE, 0xfe));
	EXPECT_EQ(0, ioctl_err(fd, PERF_EVENT_IOC_RESET, ~1UL));
	close(fd);
}

TEST(task_clock_freezes_when_disabled)
{
	int fd = open_sw(PERF_COUNT_SW_TASK_CLOCK, -1);
	uint64_t v1, v2;

	ASSERT_GE(fd, 0);
	burn(2000000);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_DISABLE, 0));
	v1 = read_count(fd);
	EXPECT_GT(v1, 0);
	burn(5000000);
	v2 = read_count(fd);
	EXPECT_EQ(v1, v2);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
	burn(2000000);
	EXPECT_GT(read_count(fd), v2);
	close(fd);
}

TEST(reset)
{
	int fd = open_faults(0, -1), tc;
	uint64_t before, after;

	ASSERT_GE(fd, 0);
	warm_up(fd);
	touch_pages(NPAGES);
	EXPECT_GE(read_count(fd), NPAGES);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_RESET, 0));
	EXPECT_EQ(0, read_count(fd));
	/* It keeps counting from zero. */
	touch_pages(NPAGES);
	EXPECT_EQ(NPAGES, read_count(fd));
	/* A disabled event is reset too, and stays disabled. */
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_DISABLE, 0));
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_RESET, 0));
	EXPECT_EQ(0, read_count(fd));
	touch_pages(NPAGES);
	EXPECT_EQ(0, read_count(fd));
	close(fd);

	tc = open_sw(PERF_COUNT_SW_TASK_CLOCK, -1);
	ASSERT_GE(tc, 0);
	burn(5000000);
	before = read_count(tc);
	ASSERT_EQ(0, ioctl(tc, PERF_EVENT_IOC_RESET, 0));
	after = read_count(tc);
	EXPECT_LT(after, before);
	close(tc);
}

/* ---- groups --------------------------------------------------------------------- */

struct group {
	int fd[3];
};

static int open_group(struct group *g)
{
	int i;

	g->fd[0] = open_faults(1, -1);
	if (g->fd[0] < 0)
		return -1;
	for (i = 1; i < 3; i++) {
		g->fd[i] = open_faults(1, g->fd[0]);
		if (g->fd[i] < 0)
			return -1;
	}
	return 0;
}

static void close_group(struct group *g)
{
	int i;

	for (i = 0; i < 3; i++)
		close(g->fd[i]);
}

/*
 * ENABLE, DISABLE and RESET with FLAG_GROUP, issued on the fds of members
 * @en, @dis and @rst of a fresh group, each act on all three events.
 */
static void check_group_flag(struct __test_metadata *_metadata, int en,
			     int dis, int rst)
{
	struct group g;
	uint64_t v[3];
	int i;

	ASSERT_EQ(0, open_group(&g));
	ASSERT_EQ(0, ioctl(g.fd[en], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP));
	touch_pages(NPAGES);
	ASSERT_EQ(0, ioctl(g.fd[dis], PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP));
	for (i = 0; i < 3; i++) {
		v[i] = read_count(g.fd[i]);
		EXPECT_GE(v[i], NPAGES) TH_LOG("event %d", i);
	}
	touch_pages(NPAGES);
	for (i = 0; i < 3; i++)
		EXPECT_EQ(v[i], read_count(g.fd[i])) TH_LOG("event %d", i);
	ASSERT_EQ(0, ioctl(g.fd[rst], PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP));
	for (i = 0; i < 3; i++)
		EXPECT_EQ(0, read_count(g.fd[i])) TH_LOG("event %d", i);
	close_group(&g);
}

TEST(group_flag_from_leader)
{
	check_group_flag(_metadata, 0, 0, 0);
}

/* FLAG_GROUP on a sibling's fd acts on the whole group, leader included. */
TEST(group_flag_from_sibling)
{
	check_group_flag(_metadata, 2, 1, 2);
}

/*
 * Without the flag only the event itself changes state; a sibling counts
 * only while both it and its leader are enabled.
 */
TEST(group_without_flag)
{
	struct group g;

	ASSERT_EQ(0, open_group(&g));
	ASSERT_EQ(0, ioctl(g.fd[0], PERF_EVENT_IOC_ENABLE, 0));
	touch_pages(NPAGES);
	EXPECT_GE(read_count(g.fd[0]), NPAGES);
	EXPECT_EQ(0, read_count(g.fd[1]));
	EXPECT_EQ(0, read_count(g.fd[2]));

	ASSERT_EQ(0, ioctl(g.fd[1], PERF_EVENT_IOC_ENABLE, 0));
	touch_pages(NPAGES);
	EXPECT_GE(read_count(g.fd[1]), NPAGES);
	EXPECT_EQ(0, read_count(g.fd[2]));

	/* Leader off: the enabled sibling stops as well. */
	ASSERT_EQ(0, ioctl(g.fd[0], PERF_EVENT_IOC_DISABLE, 0));
	ASSERT_EQ(0, ioctl(g.fd[1], PERF_EVENT_IOC_RESET, 0));
	touch_pages(NPAGES);
	EXPECT_EQ(0, read_count(g.fd[1]));

	/* RESET without the flag leaves the others alone. */
	ASSERT_EQ(0, ioctl(g.fd[0], PERF_EVENT_IOC_RESET, 0));
	EXPECT_EQ(0, read_count(g.fd[0]));
	close_group(&g);
}

/* ---- ID --------------------------------------------------------------------- */

TEST(id)
{
	struct perf_event_attr attr;
	uint64_t id1 = 0, id2 = 0, id3 = 0, buf[2];
	int fd1, fd2;

	sw_attr(&attr, PERF_COUNT_SW_TASK_CLOCK);
	attr.read_format = PERF_FORMAT_ID;
	fd1 = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(fd1, 0);
	fd2 = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(fd2, 0);
	ASSERT_EQ(0, ioctl(fd1, PERF_EVENT_IOC_ID, &id1));
	ASSERT_EQ(0, ioctl(fd2, PERF_EVENT_IOC_ID, &id2));
	EXPECT_NE(0, id1);
	EXPECT_NE(0, id2);
	EXPECT_NE(id1, id2);
	ASSERT_EQ(sizeof(buf), read(fd1, buf, sizeof(buf)));
	EXPECT_EQ(id1, buf[1]);
	ASSERT_EQ(sizeof(buf), read(fd2, buf, sizeof(buf)));
	EXPECT_EQ(id2, buf[1]);
	/* Stable across RESET and DISABLE. */
	ioctl(fd1, PERF_EVENT_IOC_RESET, 0);
	ioctl(fd1, PERF_EVENT_IOC_DISABLE, 0);
	ASSERT_EQ(0, ioctl(fd1, PERF_EVENT_IOC_ID, &id3));
	EXPECT_EQ(id1, id3);
	close(fd2);
	close(fd1);
}

TEST(id_in_group_read)
{
	struct perf_event_attr attr;
	uint64_t id[2], buf[5];
	int fd[2], i;

	sw_attr(&attr, PERF_COUNT_SW_DUMMY);
	attr.read_format = PERF_FORMAT_ID | PERF_FORMAT_GROUP;
	fd[0] = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(fd[0], 0);
	fd[1] = sys_perf_event_open(&attr, 0, -1, fd[0], 0);
	ASSERT_GE(fd[1], 0);
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, ioctl(fd[i], PERF_EVENT_IOC_ID, &id[i]));
	/* nr, then { value, id } per event, leader first. */
	ASSERT_EQ(sizeof(buf), read(fd[0], buf, sizeof(buf)));
	EXPECT_EQ(2, buf[0]);
	EXPECT_EQ(id[0], buf[2]);
	EXPECT_EQ(id[1], buf[4]);
	close(fd[1]);
	close(fd[0]);
}

TEST(id_bad_pointer)
{
	int fd = open_sw(PERF_COUNT_SW_DUMMY, -1);

	ASSERT_GE(fd, 0);
	EXPECT_EQ(EFAULT, ioctl_err(fd, PERF_EVENT_IOC_ID, 0));
	EXPECT_EQ(EFAULT, ioctl_err(fd, PERF_EVENT_IOC_ID, -4096UL));
	close(fd);
}

/* ---- PERIOD and REFRESH ------------------------------------------------------ */

TEST(period_on_counting_event)
{
	int fd = open_sw(PERF_COUNT_SW_TASK_CLOCK, -1);
	uint64_t p = 1000;

	ASSERT_GE(fd, 0);
	EXPECT_EQ(EINVAL, ioctl_err(fd, PERF_EVENT_IOC_PERIOD, (unsigned long)&p));
	/* The value is copied in before anything else is checked. */
	EXPECT_EQ(EFAULT, ioctl_err(fd, PERF_EVENT_IOC_PERIOD, 0));
	close(fd);
}

TEST(period_on_sampling_event)
{
	int fd = open_sampling(PERF_COUNT_SW_TASK_CLOCK, 1000000, 0, 0, 0);
	uint64_t p;

	ASSERT_GE(fd, 0);
	p = 500000;
	EXPECT_EQ(0, ioctl_err(fd, PERF_EVENT_IOC_PERIOD, (unsigned long)&p));
	p = 0;
	EXPECT_EQ(EINVAL, ioctl_err(fd, PERF_EVENT_IOC_PERIOD, (unsigned long)&p));
	p = 1ULL << 63;
	EXPECT_EQ(EINVAL, ioctl_err(fd, PERF_EVENT_IOC_PERIOD, (unsigned long)&p));
	p = (1ULL << 63) - 1;
	EXPECT_EQ(0, ioctl_err(fd, PERF_EVENT_IOC_PERIOD, (unsigned long)&p));
	EXPECT_EQ(EFAULT, ioctl_err(fd, PERF_EVENT_IOC_PERIOD, 0));
	close(fd);
}

/* For a freq event the value is a frequency, bounded by the sysctl. */
TEST(period_on_freq_event)
{
	int fd = open_sampling(PERF_COUNT_SW_PAGE_FAULTS, 1000, 1, 0, 0);
	uint64_t p;
	long max;

	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, read_sysctl("perf_event_max_sample_rate", &max));
	p = max;
	EXPECT_EQ(0, ioctl_err(fd, PERF_EVENT_IOC_PERIOD, (unsigned long)&p));
	p = max + 1;
	EXPECT_EQ(EINVAL, ioctl_err(fd, PERF_EVENT_IOC_PERIOD, (unsigned long)&p));
	p = 0;
	EXPECT_EQ(EINVAL, ioctl_err(fd, PERF_EVENT_IOC_PERIOD, (unsigned long)&p));
	close(fd);
}

/*
 * cpu-clock and task-clock turn a frequency into a fixed period (in ns)
 * when they are created, so afterwards PERIOD takes periods: values
 * above the max sample rate are fine, bit 63 is not.
 */
TEST(period_on_clock_freq_event)
{
	uint64_t configs[] = { PERF_COUNT_SW_CPU_CLOCK, PERF_COUNT_SW_TASK_CLOCK };
	uint64_t p;
	long max;
	int i, fd;

	ASSERT_EQ(0, read_sysctl("perf_event_max_sample_rate", &max));
	for (i = 0; i < 2; i++) {
		fd = open_sampling(configs[i], 1000, 1, 0, 0);
		ASSERT_GE(fd, 0);
		p = max + 1;
		EXPECT_EQ(0, ioctl_err(fd, PERF_EVENT_IOC_PERIOD,
				       (unsigned long)&p));
		p = 10ULL * NSEC_PER_SEC_ULL;
		EXPECT_EQ(0, ioctl_err(fd, PERF_EVENT_IOC_PERIOD,
				       (unsigned long)&p));
		p = 1ULL << 63;
		EXPECT_EQ(EINVAL, ioctl_err(fd, PERF_EVENT_IOC_PERIOD,
					    (unsigned long)&p));
		close(fd);
	}
}

TEST(refresh_rules)
{
	int fd;

	fd = open_sw(PERF_COUNT_SW_PAGE_FAULTS, -1);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(EINVAL, ioctl_err(fd, PERF_EVENT_IOC_REFRESH, 1));
	close(fd);

	fd = open_sampling(PERF_COUNT_SW_PAGE_FAULTS, 1000, 0, 1, 1);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(EINVAL, ioctl_err(fd, PERF_EVENT_IOC_REFRESH, 1));
	close(fd);

	fd = open_sampling(PERF_COUNT_SW_PAGE_FAULTS, 1000, 0, 0, 1);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(0, ioctl_err(fd, PERF_EVENT_IOC_REFRESH, 1));
	close(fd);
}

/*
 * REFRESH enables a disabled sampling event for @n more overflows; with
 * a period of 1 it then disables itself after @n page faults.
 */
TEST(refresh_counts_overflows)
{
	int fd = open_sampling(PERF_COUNT_SW_PAGE_FAULTS, 1, 0, 0, 1);

	ASSERT_GE(fd, 0);
	touch_pages(NPAGES);
	EXPECT_EQ(0, read_count(fd));
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_REFRESH, 3));
	touch_pages(NPAGES);
	EXPECT_EQ(3, read_count(fd));
	touch_pages(NPAGES);
	EXPECT_EQ(3, read_count(fd));
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_REFRESH, 2));
	touch_pages(NPAGES);
	EXPECT_EQ(5, read_count(fd));
	close(fd);
}

/* ---- SET_OUTPUT ------------------------------------------------------------------ */

TEST(set_output_reset_without_buffer)
{
	int fd = open_sw(PERF_COUNT_SW_DUMMY, -1);

	ASSERT_GE(fd, 0);
	EXPECT_EQ(0, ioctl_err(fd, PERF_EVENT_IOC_SET_OUTPUT, -1));
	EXPECT_EQ(0, ioctl_err(fd, PERF_EVENT_IOC_SET_OUTPUT, -1));
	close(fd);
}

TEST(set_output_bad_targets)
{
	int fd = open_sw(PERF_COUNT_SW_DUMMY, -1);
	int plain = open_sw(PERF_COUNT_SW_DUMMY, -1);
	int null = open("/dev/null", O_RDONLY);
	int closed = dup(null);

	ASSERT_GE(fd, 0);
	ASSERT_GE(plain, 0);
	ASSERT_GE(closed, 0);
	close(closed);
	EXPECT_EQ(EBADF, ioctl_err(fd, PERF_EVENT_IOC_SET_OUTPUT, null));
	EXPECT_EQ(EBADF, ioctl_err(fd, PERF_EVENT_IOC_SET_OUTPUT, closed));
	EXPECT_EQ(EBADF, ioctl_err(fd, PERF_EVENT_IOC_SET_OUTPUT, -2));
	/* Itself, or an event without a ring buffer. */
	EXPECT_EQ(EINVAL, ioctl_err(fd, PERF_EVENT_IOC_SET_OUTPUT, fd));
	EXPECT_EQ(EINVAL, ioctl_err(fd, PERF_EVENT_IOC_SET_OUTPUT, plain));
	close(null);
	close(plain);
	close(fd);
}

TEST(set_output_to_buffer)
{
	int fd = open_sw(PERF_COUNT_SW_DUMMY, -1);
	int buf = open_sw(PERF_COUNT_SW_DUMMY, -1);
	void *rb;

	ASSERT_GE(fd, 0);
	ASSERT_GE(buf, 0);
	rb = map_rb(buf);
	ASSERT_NE(NULL, rb);
	EXPECT_EQ(0, ioctl_err(fd, PERF_EVENT_IOC_SET_OUTPUT, buf));
	EXPECT_EQ(0, ioctl_err(fd, PERF_EVENT_IOC_SET_OUTPUT, buf));
	EXPECT_EQ(0, ioctl_err(fd, PERF_EVENT_IOC_SET_OUTPUT, -1));
	/* The buffer's owner cannot redirect while it is mapped. */
	EXPECT_EQ(EINVAL, ioctl_err(buf, PERF_EVENT_IOC_SET_OUTPUT, -1));
	EXPECT_EQ(EINVAL, ioctl_err(buf, PERF_EVENT_IOC_SET_OUTPUT, fd));
	/* Once unmapped, the buffer is gone and cannot be a target. */
	unmap_rb(rb);
	EXPECT_EQ(EINVAL, ioctl_err(fd, PERF_EVENT_IOC_SET_OUTPUT, buf));
	EXPECT_EQ(0, ioctl_err(buf, PERF_EVENT_IOC_SET_OUTPUT, -1));
	close(buf);
	close(fd);
}

/* Target and event must agree on CPU, task (for per-task buffers), clock. */
TEST(set_output_mismatch)
{
	struct perf_event_attr attr;
	int buf, fd, wfd[2];
	pid_t pid;

	buf = open_sw(PERF_COUNT_SW_DUMMY, -1);
	ASSERT_GE(buf, 0);
	ASSERT_NE(NULL, map_rb(buf));

	sw_attr(&attr, PERF_COUNT_SW_DUMMY);
	fd = sys_perf_event_open(&attr, 0, 0, -1, 0);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(EINVAL, ioctl_err(fd, PERF_EVENT_IOC_SET_OUTPUT, buf));
	close(fd);

	attr.use_clockid = 1;
	attr.clockid = CLOCK_MONOTONIC_RAW;
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(EINVAL, ioctl_err(fd, PERF_EVENT_IOC_SET_OUTPUT, buf));
	close(fd);

	attr.use_clockid = 0;
	attr.write_backward = 1;
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(EINVAL, ioctl_err(fd, PERF_EVENT_IOC_SET_OUTPUT, buf));
	close(fd);

	/* Another task's event cannot share a per-task buffer. */
	ASSERT_EQ(0, pipe(wfd));
	pid = fork_waiter(wfd);
	ASSERT_GE(pid, 0);
	attr.write_backward = 0;
	fd = sys_perf_event_open(&attr, pid, -1, -1, 0);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(EINVAL, ioctl_err(fd, PERF_EVENT_IOC_SET_OUTPUT, buf));
	close(fd);
	reap_waiter(pid, wfd[1]);
	close(buf);
}

/* A CPU-wide buffer takes any event on its CPU. */
TEST(set_output_cpu_buffer)
{
	struct perf_event_attr attr;
	int buf, fd;

	sw_attr(&attr, PERF_COUNT_SW_DUMMY);
	buf = sys_perf_event_open(&attr, -1, 0, -1, 0);
	ASSERT_GE(buf, 0);
	ASSERT_NE(NULL, map_rb(buf));
	fd = sys_perf_event_open(&attr, 0, 0, -1, 0);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(0, ioctl_err(fd, PERF_EVENT_IOC_SET_OUTPUT, buf));
	close(fd);
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(EINVAL, ioctl_err(fd, PERF_EVENT_IOC_SET_OUTPUT, buf));
	close(fd);
	close(buf);
}

/* ---- the rest ------------------------------------------------------------------- */

/* No tracing and no address filters: every filter string is EINVAL. */
TEST(set_filter)
{
	int fd = open_sw(PERF_COUNT_SW_PAGE_FAULTS, -1);

	ASSERT_GE(fd, 0);
	EXPECT_EQ(EFAULT, ioctl_err(fd, PERF_EVENT_IOC_SET_FILTER, 0));
	EXPECT_EQ(EINVAL, ioctl_err(fd, PERF_EVENT_IOC_SET_FILTER,
				    (unsigned long)""));
	EXPECT_EQ(EINVAL, ioctl_err(fd, PERF_EVENT_IOC_SET_FILTER,
				    (unsigned long)"common_pid != 0"));
	EXPECT_EQ(EINVAL, ioctl_err(fd, PERF_EVENT_IOC_SET_FILTER,
				    (unsigned long)"filter 0x1000/0x100@/bin/sh"));
	close(fd);
}

/*
 * Without CONFIG_BPF_SYSCALL there is no program to attach; with it, what
 * is no program is refused (bpf.c attaches real ones).
 */
TEST(set_bpf)
{
	int fd = open_sw(PERF_COUNT_SW_PAGE_FAULTS, -1);
	int bpf = have_bpf_syscall();

	ASSERT_GE(fd, 0);
	EXPECT_EQ(bpf ? EBADF : EOPNOTSUPP, ioctl_err(fd, PERF_EVENT_IOC_SET_BPF, -1));
	/* Standard input, and the event itself. */
	EXPECT_EQ(bpf ? EINVAL : EOPNOTSUPP, ioctl_err(fd, PERF_EVENT_IOC_SET_BPF, 0));
	EXPECT_EQ(bpf ? EINVAL : EOPNOTSUPP, ioctl_err(fd, PERF_EVENT_IOC_SET_BPF, fd));
	close(fd);
}

/* Only tracepoint events have programs to list (bpf.c lists some). */
TEST(query_bpf)
{
	int fd = open_sw(PERF_COUNT_SW_PAGE_FAULTS, -1);
	int err = have_bpf_syscall() ? EINVAL : EOPNOTSUPP;
	/* The query with room for four ids after it. */
	union {
		struct perf_event_query_bpf q;
		char room[sizeof(struct perf_event_query_bpf) +
			  4 * sizeof(uint32_t)];
	} q = { .q.ids_len = 4 };

	ASSERT_GE(fd, 0);
	EXPECT_EQ(err, ioctl_err(fd, PERF_EVENT_IOC_QUERY_BPF, (unsigned long)&q));
	EXPECT_EQ(err, ioctl_err(fd, PERF_EVENT_IOC_QUERY_BPF, 0));
	close(fd);
}

TEST(pause_output)
{
	int fd = open_sw(PERF_COUNT_SW_DUMMY, -1);
	int other = open_sw(PERF_COUNT_SW_DUMMY, -1);
	void *rb;

	ASSERT_GE(fd, 0);
	ASSERT_GE(other, 0);
	EXPECT_EQ(EINVAL, ioctl_err(fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 1));
	EXPECT_EQ(EINVAL, ioctl_err(fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 0));
	rb = map_rb(fd);
	ASSERT_NE(NULL, rb);
	EXPECT_EQ(0, ioctl_err(fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 1));
	EXPECT_EQ(0, ioctl_err(fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 1));
	EXPECT_EQ(0, ioctl_err(fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 0));
	/* Through SET_OUTPUT the other event shares (and can pause) it. */
	ASSERT_EQ(0, ioctl(other, PERF_EVENT_IOC_SET_OUTPUT, fd));
	EXPECT_EQ(0, ioctl_err(other, PERF_EVENT_IOC_PAUSE_OUTPUT, 1));
	EXPECT_EQ(0, ioctl_err(other, PERF_EVENT_IOC_PAUSE_OUTPUT, 0));
	close(other);
	close(fd);
}

/*
 * MODIFY_ATTRIBUTES: the attr is copied and validated like at open
 * (EFAULT, E2BIG with size write-back, EINVAL), then a type change is
 * EINVAL and software events cannot be modified (EOPNOTSUPP).
 */
TEST(modify_attributes)
{
	struct perf_event_attr attr;
	int fd = open_sw(PERF_COUNT_SW_PAGE_FAULTS, -1);

	ASSERT_GE(fd, 0);
	sw_attr(&attr, PERF_COUNT_SW_PAGE_FAULTS);
	EXPECT_EQ(EOPNOTSUPP, ioctl_err(fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES,
					(unsigned long)&attr));
	attr.config = PERF_COUNT_SW_CONTEXT_SWITCHES;
	EXPECT_EQ(EOPNOTSUPP, ioctl_err(fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES,
					(unsigned long)&attr));
	attr.type = PERF_TYPE_BREAKPOINT;
	EXPECT_EQ(EINVAL, ioctl_err(fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES,
				    (unsigned long)&attr));
	attr.type = 0x7fff;
	EXPECT_EQ(EINVAL, ioctl_err(fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES,
				    (unsigned long)&attr));
	EXPECT_EQ(EFAULT, ioctl_err(fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, 0));

	sw_attr(&attr, PERF_COUNT_SW_PAGE_FAULTS);
	attr.size = 8;
	EXPECT_EQ(E2BIG, ioctl_err(fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES,
				   (unsigned long)&attr));
	EXPECT_EQ(sizeof(attr), attr.size);

	sw_attr(&attr, PERF_COUNT_SW_PAGE_FAULTS);
	attr.__reserved_2 = 1;
	EXPECT_EQ(EINVAL, ioctl_err(fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES,
				    (unsigned long)&attr));
	sw_attr(&attr, PERF_COUNT_SW_PAGE_FAULTS);
	attr.sigtrap = 1;
	EXPECT_EQ(EINVAL, ioctl_err(fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES,
				    (unsigned long)&attr));
	/* size 0 means VER0, as at open. */
	sw_attr(&attr, PERF_COUNT_SW_PAGE_FAULTS);
	attr.size = 0;
	EXPECT_EQ(EOPNOTSUPP, ioctl_err(fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES,
					(unsigned long)&attr));
	EXPECT_EQ(0, attr.size);
	close(fd);
}

/*
 * cpu-clock and task-clock are served by PMUs of their own whose type
 * replaces PERF_TYPE_SOFTWARE in the event, so stock sees a type change
 * and answers EINVAL rather than EOPNOTSUPP.
 */
TEST(modify_attributes_clock_events)
{
	uint64_t configs[] = { PERF_COUNT_SW_CPU_CLOCK, PERF_COUNT_SW_TASK_CLOCK };
	struct perf_event_attr attr;
	int i, fd;

	for (i = 0; i < 2; i++) {
		fd = open_sw(configs[i], -1);
		ASSERT_GE(fd, 0);
		sw_attr(&attr, configs[i]);
		EXPECT_EQ(EINVAL, ioctl_err(fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES,
					    (unsigned long)&attr));
		close(fd);
	}
}

/* Command numbers are matched exactly, size and direction included. */
TEST(unknown_ioctl)
{
	static const unsigned long cmds[] = {
		_IO('$', 12), _IO('$', 0xff), _IO('$', 7), _IO('$', 4),
		_IOR('$', 7, uint32_t), _IOW('$', 4, uint32_t),
		_IOW('$', 7, uint64_t *), _IOR('$', 0, int),
		_IO('%', 0), 0, 0x5401 /* TCGETS */,
	};
	int fd = open_sw(PERF_COUNT_SW_DUMMY, -1);
	uint64_t v = 0;
	unsigned int i;

	ASSERT_GE(fd, 0);
	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		EXPECT_EQ(ENOTTY, ioctl_err(fd, cmds[i], (unsigned long)&v))
			TH_LOG("cmd %#lx", cmds[i]);
	close(fd);
}

/* ioctls also work on an event attached to another task. */
TEST(ioctl_on_other_task_event)
{
	int p[2], fd;
	pid_t pid;
	uint64_t id = 0;

	ASSERT_EQ(0, pipe(p));
	pid = fork_waiter(p);
	ASSERT_GE(pid, 0);
	fd = open_ev(PERF_COUNT_SW_TASK_CLOCK, pid, -1, -1, 0, 1);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(0, ioctl_err(fd, PERF_EVENT_IOC_ENABLE, 0));
	EXPECT_EQ(0, ioctl_err(fd, PERF_EVENT_IOC_RESET, 0));
	EXPECT_EQ(0, ioctl_err(fd, PERF_EVENT_IOC_ID, (unsigned long)&id));
	EXPECT_NE(0, id);
	EXPECT_EQ(0, ioctl_err(fd, PERF_EVENT_IOC_DISABLE, 0));
	reap_waiter(pid, p[1]);
	/* After the task is gone the ioctls still succeed. */
	EXPECT_EQ(0, ioctl_err(fd, PERF_EVENT_IOC_ENABLE, 0));
	EXPECT_EQ(0, ioctl_err(fd, PERF_EVENT_IOC_RESET, 0));
	EXPECT_EQ(0, ioctl_err(fd, PERF_EVENT_IOC_DISABLE, 0));
	close(fd);
}

TEST_HARNESS_MAIN
