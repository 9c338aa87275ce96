// SPDX-License-Identifier: GPL-2.0
/*
 * Groups of software and hardware events on QEMU's emulated x86 PMU
 * (see hw.c).  A hardware event may join a group led by a software
 * event: the group moves to the hardware PMU and runs there as one, its
 * members back in the state they were opened in and keeping their
 * counts.  Software events may join a hardware group at any time.  So
 * perf stat's '{task-clock,cycles,instructions}' and perf record's
 * sampling on a hardware sibling of a software leader work.
 */
#include <sys/ioctl.h>
#include "../kselftest_harness.h"
#include "perf_util.h"
#include "perf_rb.h"
#include "hw_util.h"

#define LOOP	1000000UL	/* spin(LOOP): 2,000,000 user instructions */
#define NPAGES	64

FIXTURE(hwg) {
	int fd[4];
	struct hw_rate rate;
};

FIXTURE_SETUP(hwg)
{
	const char *why;
	int fail, i;

	for (i = 0; i < 4; i++)
		self->fd[i] = -1;
	self->rate.saved = 0;
	why = hw_unavailable(&fail);
	if (why) {
		ASSERT_FALSE(fail) TH_LOG("%s", why);
		SKIP(return, "%s", why);
	}
}

FIXTURE_TEARDOWN(hwg)
{
	int i;

	for (i = 3; i >= 0; i--)
		if (self->fd[i] >= 0)
			close(self->fd[i]);
	hw_rethrottle(&self->rate);
}

/* An enabled event on the calling task, user mode only, leading a group. */
static int open_enabled(uint32_t type, uint64_t config, uint64_t fmt)
{
	struct perf_event_attr attr = {
		.type = type,
		.size = sizeof(attr),
		.config = config,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.read_format = fmt,
	};

	return sys_perf_event_open(&attr, 0, -1, -1, 0);
}

/* A group read: { nr, values[nr] }; 0 when it has @nr members. */
static int read_group(int fd, int nr, uint64_t *v)
{
	uint64_t buf[1 + 4];
	ssize_t want = (1 + nr) * sizeof(uint64_t);

	if (read(fd, buf, sizeof(buf)) != want || buf[0] != (uint64_t)nr)
		return -1;
	memcpy(v, buf + 1, nr * sizeof(uint64_t));
	return 0;
}

/*
 * task-clock leads, instructions joins: the open succeeds, and enabling
 * the leader starts both; the hardware member counts the loop.
 */
TEST_F(hwg, hardware_event_joins_software_leader)
{
	uint64_t v[2];

	self->fd[0] = open_user(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK,
				-1, 0, 0, F_GRP);
	ASSERT_GE(self->fd[0], 0);
	self->fd[1] = open_user(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,
				self->fd[0], 0, 0, F_GRP);
	ASSERT_GE(self->fd[1], 0) TH_LOG("errno %d", errno);
	ASSERT_EQ(ioctl(self->fd[0], PERF_EVENT_IOC_ENABLE, 0), 0);
	spin(LOOP);
	ASSERT_EQ(ioctl(self->fd[0], PERF_EVENT_IOC_DISABLE, 0), 0);
	ASSERT_EQ(read_group(self->fd[0], 2, v), 0);
	EXPECT_GT(v[0], 0);
	EXPECT_GE(v[1], 2 * LOOP);
	EXPECT_LT(v[1], 2 * LOOP + 1000);
}

/*
 * A group created enabled: the software leader counts from the open,
 * and after the move the group runs without any ioctl, a second hardware
 * member and a software one included.
 */
TEST_F(hwg, group_created_enabled_runs_after_the_move)
{
	uint64_t v[4];

	self->fd[0] = open_enabled(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS,
				   F_GRP);
	ASSERT_GE(self->fd[0], 0);
	self->fd[1] = open_user(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,
				self->fd[0], 0, 0, F_GRP);
	ASSERT_GE(self->fd[1], 0) TH_LOG("errno %d", errno);
	self->fd[2] = open_user(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES,
				self->fd[0], 0, 0, F_GRP);
	ASSERT_GE(self->fd[2], 0) TH_LOG("errno %d", errno);
	self->fd[3] = open_user(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS,
				self->fd[0], 0, 0, F_GRP);
	ASSERT_GE(self->fd[3], 0) TH_LOG("errno %d", errno);
	touch_pages(NPAGES);
	spin(LOOP);
	ASSERT_EQ(read_group(self->fd[0], 4, v), 0);
	EXPECT_GE(v[0], NPAGES);
	EXPECT_GE(v[1], 2 * LOOP);
	EXPECT_GE(v[2], 2 * LOOP);
	EXPECT_GE(v[3], NPAGES);
}

/* What the software leader counted before the move, it keeps. */
TEST_F(hwg, the_move_keeps_the_counts)
{
	uint64_t before, after;

	self->fd[0] = open_enabled(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS,
				   0);
	ASSERT_GE(self->fd[0], 0);
	touch_pages(NPAGES);
	before = read_count(self->fd[0]);
	EXPECT_GE(before, NPAGES);
	self->fd[1] = open_user(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,
				self->fd[0], 0, 0, 0);
	ASSERT_GE(self->fd[1], 0) TH_LOG("errno %d", errno);
	touch_pages(NPAGES);
	after = read_count(self->fd[0]);
	EXPECT_GE(after, before + NPAGES);
	EXPECT_GT(read_count(self->fd[1]), 0);
}

/*
 * A sampling hardware sibling of a software leader: its overflows give
 * samples, one every period of the loop's instructions.
 */
TEST_F(hwg, hardware_sibling_of_software_leader_samples)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_HARDWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_HW_INSTRUCTIONS,
		.sample_period = 100000,
		.sample_type = PERF_SAMPLE_IP,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};
	struct perf_rb rb;
	int n;

	ASSERT_EQ(hw_unthrottle(&self->rate), 0);
	self->fd[0] = open_user(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK,
				-1, 0, 0, 0);
	ASSERT_GE(self->fd[0], 0);
	self->fd[1] = sys_perf_event_open(&attr, 0, -1, self->fd[0], 0);
	ASSERT_GE(self->fd[1], 0) TH_LOG("errno %d", errno);
	ASSERT_EQ(rb_map(&rb, self->fd[1], 16), 0);
	ASSERT_EQ(ioctl(self->fd[0], PERF_EVENT_IOC_ENABLE, 0), 0);
	spin(LOOP);
	ASSERT_EQ(ioctl(self->fd[0], PERF_EVENT_IOC_DISABLE, 0), 0);
	ASSERT_GE(rb_fetch(&rb), 0);
	n = rb_count(&rb, PERF_RECORD_SAMPLE);
	/* 20 periods in the loop; one more may end around it. */
	EXPECT_GE(n, 20);
	EXPECT_LE(n, 21);
	rb_unmap(&rb);
}

/* A software group on one CPU does not take a hardware event for another. */
TEST_F(hwg, hardware_event_for_another_cpu_refused)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_TASK_CLOCK,
		.exclude_kernel = 1,
		.disabled = 1,
	};

	if (nr_cpus() < 2)
		SKIP(return, "needs two CPUs");
	self->fd[0] = sys_perf_event_open(&attr, 0, 0, -1, 0);
	ASSERT_GE(self->fd[0], 0);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_INSTRUCTIONS;
	attr.disabled = 0;
	EXPECT_EQ(sys_perf_event_open(&attr, 0, 1, self->fd[0], 0), -1);
	EXPECT_EQ(errno, EINVAL);
}

TEST_HARNESS_MAIN
