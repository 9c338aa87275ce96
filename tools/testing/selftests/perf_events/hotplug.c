// SPDX-License-Identifier: GPL-2.0
/*
 * CPU hotplug through /sys/devices/system/cpu/cpuN/online and events:
 * a per-CPU event on CPU N is taken off its CPU when N goes offline (read
 * still works, count and times freeze, its group is broken up, ioctls
 * succeed but ENABLE cannot bring it back) and it stays dead when N comes
 * back online; opening a per-CPU event on an offline CPU is ENODEV, while a
 * task event bound to that CPU opens fine; a task pinned to N is moved away
 * and its task event keeps counting, but its per-task event for CPU N stops.
 * Every CPU is put back online in teardown.  Skips with one CPU or without
 * a hotpluggable CPU.
 */
#include "../kselftest_harness.h"
#include "perf_util.h"

#define MAXCPU	64

static void online_path(int cpu, char *buf, size_t len)
{
	snprintf(buf, len, "/sys/devices/system/cpu/cpu%d/online", cpu);
}

/* 1 online, 0 offline, -1 no online file. */
static int cpu_online(int cpu)
{
	char path[64];
	long v;

	online_path(cpu, path, sizeof(path));
	return read_file_long(path, &v) ? -1 : (int)v;
}

/* Write the online file; returns 0 or -errno. */
static int set_online(int cpu, int on)
{
	char path[64];

	online_path(cpu, path, sizeof(path));
	return write_file_str(path, on ? "1\n" : "0\n");
}

FIXTURE(hp) {
	int cpu;	/* the CPU the tests take offline */
};

FIXTURE_SETUP(hp)
{
	int i, n = nr_cpus();

	self->cpu = -1;
	if (n < 2)
		SKIP(return, "needs two CPUs");
	/* The highest online CPU that has an online file. */
	for (i = MAXCPU - 1; i > 0; i--) {
		if (cpu_online(i) == 1) {
			self->cpu = i;
			break;
		}
	}
	if (self->cpu < 0)
		SKIP(return, "no hotpluggable CPU (no cpuN/online file)");
	{
		char path[64];

		online_path(self->cpu, path, sizeof(path));
		if (access(path, W_OK))
			SKIP(return, "cannot write %s", path);
	}
}

/* Runs in the parent, so CPUs come back even if the test crashed. */
FIXTURE_TEARDOWN_PARENT(hp)
{
	int i;

	for (i = 1; i < MAXCPU; i++)
		if (cpu_online(i) == 0)
			set_online(i, 1);
}

/* Take self->cpu offline, moving ourselves off it first. */
static int offline(int cpu)
{
	pin_to_cpu(0);
	return set_online(cpu, 0);
}

/* A per-CPU event: readable after offline, count and times frozen. */
TEST_F(hp, percpu_event_frozen_when_offline)
{
	uint64_t a[3], b[3];
	int fd;

	fd = open_ev(PERF_COUNT_SW_CPU_CLOCK, -1, self->cpu, -1,
		     F_EN | F_RUN, 0);
	ASSERT_GE(fd, 0);
	usleep(20000);
	ASSERT_EQ(read3(fd, a), 0);
	EXPECT_GT(a[0], 0);
	ASSERT_EQ(offline(self->cpu), 0);
	ASSERT_EQ(cpu_online(self->cpu), 0);

	ASSERT_EQ(read3(fd, a), 0);
	EXPECT_GT(a[0], 0);
	EXPECT_GT(a[1], 0);
	usleep(50000);
	ASSERT_EQ(read3(fd, b), 0);
	EXPECT_EQ(b[0], a[0]);
	EXPECT_EQ(b[1], a[1]);
	EXPECT_EQ(b[2], a[2]);
	close(fd);
}

/*
 * A leader whose CPU went away has left its context for good: once the CPU
 * is back, a new event cannot join it (ENODEV), and the leader can still
 * be read and closed.
 */
TEST_F(hp, no_joining_a_leader_that_left)
{
	uint64_t buf[4];
	int leader, member;

	leader = open_ev(PERF_COUNT_SW_CPU_CLOCK, -1, self->cpu, -1, F_GRP, 0);
	ASSERT_GE(leader, 0);
	ASSERT_EQ(offline(self->cpu), 0);
	ASSERT_EQ(set_online(self->cpu, 1), 0);
	member = open_ev(PERF_COUNT_SW_DUMMY, -1, self->cpu, leader, F_GRP, 0);
	EXPECT_EQ(member, -1);
	EXPECT_EQ(errno, ENODEV);
	/* Where it was let in, the member goes first: the safe order. */
	if (member >= 0)
		close(member);
	EXPECT_EQ(read(leader, buf, sizeof(buf)), 16);
	close(leader);
}

/*
 * A member of a group broken up by offlining leads a group of its own
 * afterwards: its old leader can be closed and group ioctls and reads of
 * the member see the member alone.
 */
TEST_F(hp, member_outlives_its_old_leader)
{
	uint64_t buf[4];
	int leader, member;

	/*
	 * The stock kernel keeps the member pointing at the freed leader and
	 * uses it in the group ioctl below: a use-after-free that can take
	 * the rest of the run down with it.  This series' kernels have the
	 * perf_test PMU.
	 */
	if (access("/sys/bus/event_source/devices/perf_test", F_OK))
		SKIP(return, "would use freed memory on a kernel without the fix");
	leader = open_ev(PERF_COUNT_SW_CPU_CLOCK, -1, self->cpu, -1, F_GRP, 0);
	ASSERT_GE(leader, 0);
	member = open_ev(PERF_COUNT_SW_DUMMY, -1, self->cpu, leader, F_GRP, 0);
	ASSERT_GE(member, 0);
	ASSERT_EQ(offline(self->cpu), 0);
	ASSERT_EQ(set_online(self->cpu, 1), 0);
	close(leader);
	/* Its memory is freed after a grace period: let that pass. */
	usleep(200000);
	EXPECT_EQ(ioctl(member, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP), 0);
	EXPECT_EQ(ioctl(member, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP), 0);
	/* nr and the member's own value. */
	EXPECT_EQ(read(member, buf, sizeof(buf)), 16);
	EXPECT_EQ(buf[0], 1);
	close(member);
}

/* Offlining breaks a per-CPU group up: every member reads as a group of 1. */
TEST_F(hp, percpu_group_broken_up)
{
	uint64_t fmt = F_GRP | F_ID;
	uint64_t buf[1 + 2 * 3];
	int fd[3], i;

	for (i = 0; i < 3; i++) {
		fd[i] = open_ev(PERF_COUNT_SW_CPU_CLOCK, -1, self->cpu,
				i ? fd[0] : -1, fmt, 0);
		ASSERT_GE(fd[i], 0);
	}
	ASSERT_EQ(read(fd[0], buf, sizeof(buf)), sizeof(buf));
	EXPECT_EQ(buf[0], 3);
	ASSERT_EQ(offline(self->cpu), 0);
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(read(fd[i], buf, sizeof(buf)), 8 * 3);
		EXPECT_EQ(buf[0], 1);
		EXPECT_EQ(buf[2], event_id(fd[i]));
	}
	for (i = 0; i < 3; i++)
		close(fd[i]);
}

/* ioctls on an offlined event succeed; RESET zeroes, ENABLE revives nothing. */
TEST_F(hp, ioctls_while_offline)
{
	int fd;

	fd = open_ev(PERF_COUNT_SW_CPU_CLOCK, -1, self->cpu, -1, 0, 0);
	ASSERT_GE(fd, 0);
	usleep(10000);
	ASSERT_EQ(offline(self->cpu), 0);
	EXPECT_GT(read_count(fd), 0);
	EXPECT_EQ(ioctl(fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	EXPECT_EQ(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	EXPECT_EQ(ioctl(fd, PERF_EVENT_IOC_RESET, 0), 0);
	EXPECT_EQ(read_count(fd), 0);
	EXPECT_EQ(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	usleep(20000);
	EXPECT_EQ(read_count(fd), 0);
	close(fd);
}

/* Opening a per-CPU event on an offline CPU: ENODEV. */
TEST_F(hp, open_on_offline_cpu_enodev)
{
	int leader;

	leader = open_ev(PERF_COUNT_SW_CPU_CLOCK, -1, self->cpu, -1, 0, 0);
	ASSERT_GE(leader, 0);
	ASSERT_EQ(offline(self->cpu), 0);
	errno = 0;
	EXPECT_EQ(open_ev(PERF_COUNT_SW_CPU_CLOCK, -1, self->cpu, -1, 0, 0), -1);
	EXPECT_EQ(errno, ENODEV);
	errno = 0;
	EXPECT_EQ(open_ev(PERF_COUNT_SW_PAGE_FAULTS, -1, self->cpu, -1, 0, 1),
		  -1);
	EXPECT_EQ(errno, ENODEV);
	/* Joining the group of an event left on that CPU: also ENODEV. */
	errno = 0;
	EXPECT_EQ(open_ev(PERF_COUNT_SW_CPU_CLOCK, -1, self->cpu, leader, 0, 0),
		  -1);
	EXPECT_EQ(errno, ENODEV);
	close(leader);
}

/* A task event bound to an offline CPU opens, and counts nothing. */
TEST_F(hp, task_event_on_offline_cpu_opens)
{
	int fd;

	ASSERT_EQ(offline(self->cpu), 0);
	fd = open_ev(PERF_COUNT_SW_TASK_CLOCK, 0, self->cpu, -1, 0, 0);
	ASSERT_GE(fd, 0) TH_LOG("open: %s", strerror(errno));
	burn(2000000);
	EXPECT_EQ(read_count(fd), 0);
	close(fd);
}

/*
 * Back online, the old event stays dead, even after DISABLE + ENABLE; a
 * new event on the CPU counts.
 */
TEST_F(hp, event_not_revived_by_online)
{
	uint64_t v;
	int fd, fresh;

	fd = open_ev(PERF_COUNT_SW_CPU_CLOCK, -1, self->cpu, -1, 0, 0);
	ASSERT_GE(fd, 0);
	usleep(10000);
	ASSERT_EQ(offline(self->cpu), 0);
	v = read_count(fd);
	ASSERT_EQ(set_online(self->cpu, 1), 0);
	ASSERT_EQ(cpu_online(self->cpu), 1);
	usleep(50000);
	EXPECT_EQ(read_count(fd), v);
	EXPECT_EQ(ioctl(fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	EXPECT_EQ(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	usleep(50000);
	EXPECT_EQ(read_count(fd), v);

	fresh = open_ev(PERF_COUNT_SW_CPU_CLOCK, -1, self->cpu, -1, 0, 0);
	ASSERT_GE(fresh, 0);
	usleep(20000);
	EXPECT_GT(read_count(fresh), 0);
	close(fresh);
	close(fd);
}

/*
 * A task pinned to the CPU is moved away when it goes offline: its task
 * event keeps counting, its per-task event for that CPU stops (count and
 * running frozen, enabled still running).
 */
TEST_F(hp, pinned_task_moves_and_keeps_counting)
{
	uint64_t a[3], b[3], c0;
	int any, bound, status;
	pid_t pid;

	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		if (pin_to_cpu(self->cpu))
			_exit(1);
		for (;;)
			burn(1000000);
	}
	any = open_ev(PERF_COUNT_SW_TASK_CLOCK, pid, -1, -1, 0, 0);
	ASSERT_GE(any, 0);
	bound = open_ev(PERF_COUNT_SW_TASK_CLOCK, pid, self->cpu, -1,
			F_EN | F_RUN, 0);
	ASSERT_GE(bound, 0);
	usleep(50000);
	ASSERT_EQ(read3(bound, a), 0);
	EXPECT_GT(a[0], 0);

	ASSERT_EQ(offline(self->cpu), 0);
	ASSERT_EQ(read3(bound, a), 0);
	c0 = read_count(any);
	usleep(100000);
	EXPECT_GT(read_count(any), c0);
	ASSERT_EQ(read3(bound, b), 0);
	EXPECT_EQ(b[0], a[0]);
	EXPECT_EQ(b[2], a[2]);
	EXPECT_GT(b[1], a[1]);

	kill(pid, SIGKILL);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_TRUE(WIFSIGNALED(status));
	close(bound);
	close(any);
}

/* An offlined event is not "hung up": poll with a buffer stays quiet. */
TEST_F(hp, poll_after_offline_not_hup)
{
	void *rb;
	int fd;

	fd = open_ev(PERF_COUNT_SW_CPU_CLOCK, -1, self->cpu, -1, 0, 0);
	ASSERT_GE(fd, 0);
	rb = map_rb(fd);
	ASSERT_NE(rb, NULL);
	EXPECT_EQ(poll_now(fd), 0);
	ASSERT_EQ(offline(self->cpu), 0);
	EXPECT_EQ(poll_now(fd), 0);
	unmap_rb(rb);
	close(fd);
}

/* Repeated offline/online cycles: fresh events count every time. */
TEST_F(hp, offline_online_cycles)
{
	uint64_t v;
	int i, fd;

	for (i = 0; i < 3; i++) {
		fd = open_ev(PERF_COUNT_SW_CPU_CLOCK, -1, self->cpu, -1, 0, 0);
		ASSERT_GE(fd, 0) TH_LOG("cycle %d: %s", i, strerror(errno));
		usleep(10000);
		EXPECT_GT(read_count(fd), 0);
		ASSERT_EQ(offline(self->cpu), 0);
		v = read_count(fd);
		usleep(10000);
		EXPECT_EQ(read_count(fd), v);
		ASSERT_EQ(set_online(self->cpu, 1), 0);
		close(fd);
	}
}

TEST_HARNESS_MAIN
