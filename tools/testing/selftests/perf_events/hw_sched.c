// SPDX-License-Identifier: GPL-2.0
/*
 * Hardware events meet the counters' limits, on QEMU's emulated x86 PMU
 * (see hw.c): groups that fill every counter of a kind and one more,
 * pinned groups that cannot get counters (error state, and out of it by
 * an enable), flexible events behind pinned ones, counts of children
 * folding back into an inherited event, and a task's count staying exact
 * while CPUs go offline and online under it.
 *
 * The counters the emulated CPUs have (PERFTEST_PMU): "intel" four
 * general and three fixed (instructions, cycles, reference cycles), as
 * "intel-v2" to "-v5" have, "intel-v1" four general only, "amd" six
 * general, "amd-legacy" four.  The NMI watchdog holds one
 * counter per CPU; the fixture turns it off and back on.
 */
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include "../kselftest_harness.h"
#include "perf_util.h"
#include "hw_util.h"

/*
 * Instructions events that fit at once: general counters plus fixed 0
 * (Intel from version 2).
 */
static int instructions_capacity(void)
{
	if (intel_version())
		return 4 + (intel_version() >= 2);
	return pmu_is("amd") ? 6 : 4;
}

FIXTURE(hws) {
	long watchdog;
	int fds[16];
	int n;
};

FIXTURE_SETUP(hws)
{
	const char *why;
	int fail;

	self->watchdog = -1;
	self->n = 0;
	why = hw_unavailable(&fail);
	if (why) {
		ASSERT_FALSE(fail) TH_LOG("%s", why);
		SKIP(return, "%s", why);
	}
	ASSERT_EQ(watchdog_pause(&self->watchdog), 0);
}

FIXTURE_TEARDOWN(hws)
{
	while (self->n > 0)
		close(self->fds[--self->n]);
	watchdog_resume(self->watchdog);
}

/* Keep @fd for teardown; returns it. */
static int keep(FIXTURE_DATA(hws) *self, int fd)
{
	if (fd >= 0 && self->n < 16)
		self->fds[self->n++] = fd;
	return fd;
}

/*
 * A group of as many instructions events as there are counters for them
 * counts, each member exactly as much as the others (user mode only:
 * they start one after the other in the kernel), and runs all the time
 * it is enabled.  One more member cannot ever fit: EINVAL at open.
 */
TEST_F(hws, group_fills_the_counters)
{
	int cap = instructions_capacity(), i, leader, fd;
	uint64_t v[3 + 16];

	leader = keep(self, open_user(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,
				      -1, 0, 0, F_GRP | F_EN | F_RUN));
	ASSERT_GE(leader, 0);
	for (i = 1; i < cap; i++)
		ASSERT_GE(keep(self, open_user(PERF_TYPE_HARDWARE,
					       PERF_COUNT_HW_INSTRUCTIONS, leader,
					       0, 0, 0)), 0) TH_LOG("member %d", i);
	fd = open_user(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, leader, 0, 0, 0);
	EXPECT_EQ(fd, -1);
	EXPECT_EQ(errno, EINVAL);
	if (fd >= 0)
		close(fd);

	ASSERT_EQ(ioctl(leader, PERF_EVENT_IOC_ENABLE, 0), 0);
	spin(1000000);
	ASSERT_EQ(ioctl(leader, PERF_EVENT_IOC_DISABLE, 0), 0);
	ASSERT_EQ(read(leader, v, sizeof(v)), (ssize_t)((3 + cap) * sizeof(uint64_t)));
	ASSERT_EQ(v[0], cap);
	EXPECT_GT(v[1], 0);
	EXPECT_EQ(v[2], v[1]);
	EXPECT_GE(v[3], 2000000);
	for (i = 1; i < cap; i++)
		EXPECT_EQ(v[3 + i], v[3]) TH_LOG("member %d", i);
}

/*
 * Intel: reference cycles count on fixed counter 2 only, so a group
 * takes one; the three fixed counters and the four general ones take a
 * group of seven, and an eighth member is EINVAL.
 */
TEST_F(hws, fixed_and_general_counters_of_a_group)
{
	static const uint64_t fixed[] = {
		PERF_COUNT_HW_INSTRUCTIONS, PERF_COUNT_HW_CPU_CYCLES,
		PERF_COUNT_HW_REF_CPU_CYCLES,
	};
	int leader, fd, i;

	if (intel_version() < 2)
		SKIP(return, "fixed counters: the emulated Intel PMU from version 2");
	leader = keep(self, open_user(PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES,
				      -1, 0, 0, 0));
	ASSERT_GE(leader, 0);
	fd = open_user(PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES, leader, 0, 0, 0);
	EXPECT_EQ(fd, -1);
	EXPECT_EQ(errno, EINVAL);
	if (fd >= 0)
		close(fd);

	/* The two other fixed events, then four on general counters only. */
	for (i = 0; i < 2; i++)
		ASSERT_GE(keep(self, open_user(PERF_TYPE_HARDWARE, fixed[i], leader,
					       0, 0, 0)), 0);
	for (i = 0; i < 4; i++)
		ASSERT_GE(keep(self, open_user(PERF_TYPE_RAW, 0x00c4, leader,
					       0, 0, 0)), 0) TH_LOG("general %d", i);
	fd = open_user(PERF_TYPE_RAW, 0x00c4, leader, 0, 0, 0);
	EXPECT_EQ(fd, -1);
	EXPECT_EQ(errno, EINVAL);
	if (fd >= 0)
		close(fd);
}

/*
 * A pinned group that has every counter leaves none for a second pinned
 * event: that one goes into error state, where read() returns 0 bytes.
 * A flexible event waits instead (enabled, never running).  Once the
 * counters are free, an enable brings the errored event back.
 */
TEST_F(hws, pinned_event_without_a_counter_errors)
{
	int cap = instructions_capacity(), i, leader, late, flex;
	uint64_t v[3], x;

	leader = keep(self, open_user(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,
				      -1, 1, 0, 0));
	ASSERT_GE(leader, 0);
	for (i = 1; i < cap; i++)
		ASSERT_GE(keep(self, open_user(PERF_TYPE_HARDWARE,
					       PERF_COUNT_HW_INSTRUCTIONS, leader,
					       0, 0, 0)), 0);
	ASSERT_EQ(ioctl(leader, PERF_EVENT_IOC_ENABLE, 0), 0);

	late = open_user(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, -1, 1, 0, 0);
	ASSERT_GE(late, 0);
	flex = open_user(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, -1, 0, 0,
			 F_EN | F_RUN);
	ASSERT_GE(flex, 0);
	ASSERT_EQ(ioctl(late, PERF_EVENT_IOC_ENABLE, 0), 0);
	ASSERT_EQ(ioctl(flex, PERF_EVENT_IOC_ENABLE, 0), 0);
	spin(100000);
	switch_out();
	spin(100000);

	EXPECT_EQ(read(late, &x, sizeof(x)), 0);
	ASSERT_EQ(read3(flex, v), 0);
	EXPECT_GT(v[1], 0);
	EXPECT_EQ(v[2], 0);
	EXPECT_EQ(v[0], 0);

	/* The pinned group goes; the errored event is enabled again. */
	while (self->n > 0)
		close(self->fds[--self->n]);
	close(flex);
	ASSERT_EQ(ioctl(late, PERF_EVENT_IOC_ENABLE, 0), 0);
	spin(100000);
	ASSERT_EQ(read(late, &x, sizeof(x)), sizeof(x));
	EXPECT_GE(x, 200000);
	close(late);
}

/*
 * Fork a child that spins @n and exits; the count of a new inherited
 * event (new: a reset would keep upstream's count of exited children).
 */
static uint64_t count_children(unsigned long n)
{
	uint64_t count = 0;
	pid_t pid;
	int fd, status;

	fd = open_user(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, -1, 0, 1, 0);
	if (fd < 0 || ioctl(fd, PERF_EVENT_IOC_ENABLE, 0))
		goto out;
	pid = fork();
	if (pid == 0) {
		spin(n);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		goto out;
	if (!ioctl(fd, PERF_EVENT_IOC_DISABLE, 0))
		count = read_count(fd);
out:
	if (fd >= 0)
		close(fd);
	return count;
}

/*
 * An inherited hardware event counts its children: what a child spins
 * comes back to the parent's count when the child exits, two lengths
 * apart by twice their difference (fork and exit in libc count about
 * the same each time).
 */
TEST_F(hws, children_count_into_an_inherited_event)
{
	uint64_t a, b;

	a = count_children(1000000);
	b = count_children(3000000);
	ASSERT_GT(a, 2000000);
	ASSERT_GT(b, a);
	EXPECT_LT(llabs((long long)(b - a) - 4000000), 20000)
		TH_LOG("1M: %llu, 3M: %llu", (unsigned long long)a,
		       (unsigned long long)b);
}

/* CPU hotplug under a counting task. */
static char online_file[64];
static atomic_int toggles, stop_toggling;

static int set_online(int on)
{
	int fd = open(online_file, O_WRONLY), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, on ? "1" : "0", 1) == 1;
	close(fd);
	return ok ? 0 : -1;
}

static void *toggler(void *arg)
{
	while (!atomic_load(&stop_toggling)) {
		if (set_online(0) || set_online(1))
			break;
		atomic_fetch_add(&toggles, 1);
	}
	return NULL;
}

/*
 * A task's user-mode count is exact while another thread takes the last
 * CPU offline and back again and again: each time it runs there, the
 * task is moved off it, and its event with it.  The loop is made longer
 * until at least one offline and online happened while it counted.
 */
TEST_F(hws, task_count_exact_across_cpu_hotplug)
{
	uint64_t base, c;
	unsigned long n = 4000000;
	pthread_t t;
	int fd, cpu, before, round;

	cpu = nr_cpus() - 1;
	if (cpu < 1)
		SKIP(return, "needs two CPUs");
	snprintf(online_file, sizeof(online_file),
		 "/sys/devices/system/cpu/cpu%d/online", cpu);
	if (access(online_file, W_OK))
		SKIP(return, "cannot write %s", online_file);

	fd = keep(self, open_hw(PERF_COUNT_HW_INSTRUCTIONS, 1, 0, -1, 0));
	ASSERT_GE(fd, 0);
	/* What count_spin() adds to the loop's own instructions. */
	base = count_spin(fd, 1000) - 2000;

	atomic_store(&toggles, 0);
	atomic_store(&stop_toggling, 0);
	ASSERT_EQ(pthread_create(&t, NULL, toggler, NULL), 0);
	for (round = 0; round < 8; round++, n *= 2) {
		before = atomic_load(&toggles);
		c = count_spin(fd, n);
		EXPECT_EQ(c, 2 * n + base) TH_LOG("round %d, %lu", round, n);
		if (atomic_load(&toggles) > before + 1)
			break;
	}
	atomic_store(&stop_toggling, 1);
	pthread_join(t, NULL);
	set_online(1);
	EXPECT_LT(round, 8) TH_LOG("the CPU never went offline while the task counted");
}

/*
 * An exclusive task group waits only for its own context's groups: a
 * CPU event holding a counter on every CPU (as the NMI watchdog's does)
 * does not keep it off, and it counts the whole loop.
 */
TEST_F(hws, exclusive_task_group_beside_cpu_events)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_HARDWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_HW_CPU_CYCLES,
		.pinned = 1,
	};
	uint64_t v;
	int i, fd;

	for (i = 0; i < nr_cpus() && i < 8; i++)
		ASSERT_GE(keep(self, sys_perf_event_open(&attr, -1, i, -1, 0)), 0);
	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_HARDWARE;
	attr.size = sizeof(attr);
	attr.config = PERF_COUNT_HW_INSTRUCTIONS;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	attr.exclusive = 1;
	attr.disabled = 1;
	fd = keep(self, sys_perf_event_open(&attr, 0, -1, -1, 0));
	ASSERT_GE(fd, 0);
	v = count_spin(fd, 1000000);
	EXPECT_GE(v, 2000000);
	EXPECT_LT(v, 2000100);
}

TEST_HARNESS_MAIN
