// SPDX-License-Identifier: GPL-2.0
/*
 * Multiplexing, seen from user space, on a PMU that runs out of counters.
 *
 * Software PMUs never run out, so this needs the perf_test PMU that
 * CONFIG_PERF_EVENTS_TEST_PMU adds (two counters per CPU, counting
 * nanoseconds while an event holds a counter).  Kernels without it (the
 * stock kernel among them) skip these tests: the PMU is a deliberate,
 * test-only addition.  Since the count is time on a counter, count and
 * time_running agree and scaling can be checked exactly enough.
 */
#include "../kselftest_harness.h"
#include "perf_util.h"

#define MUX_SYSFS "/sys/bus/event_source/devices/perf_test"

static int test_pmu_type(void)
{
	long type;

	return read_file_long(MUX_SYSFS "/type", &type) ? -1 : (int)type;
}

#define NEED_TEST_PMU(type)						\
	do {								\
		type = test_pmu_type();					\
		if (type < 0)						\
			SKIP(return, "no perf_test PMU (a test-only PMU of this kernel)"); \
	} while (0)

static int open_test(int type, int group_fd, int pinned, int exclusive,
		     int disabled)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.pinned = pinned;
	attr.exclusive = exclusive;
	attr.disabled = disabled;
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			   PERF_FORMAT_TOTAL_TIME_RUNNING;
	return sys_perf_event_open(&attr, 0, -1, group_fd, 0);
}

struct reading {
	uint64_t count, enabled, running;
};

static int rd(int fd, struct reading *r)
{
	return read(fd, r, sizeof(*r)) == sizeof(*r) ? 0 : -1;
}

/* Keep the CPU busy for about @ms of task time. */
static void spin_ms(int ms)
{
	burn_ns(ms * 1000000ULL);
}

static int within(uint64_t a, uint64_t b, int pct)
{
	uint64_t d = a > b ? a - b : b - a;

	return d * 100 <= b * pct;
}

FIXTURE(mux) {
	int type;
};

FIXTURE_SETUP(mux)
{
	NEED_TEST_PMU(self->type);
	ASSERT_EQ(0, pin_to_cpu(0));
}

FIXTURE_TEARDOWN(mux)
{
}

/* Bad configs and sampling are refused the way a PMU refuses them. */
TEST_F(mux, refuses_bad_attrs)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = self->type;
	attr.config = 1;
	EXPECT_EQ(-1, sys_perf_event_open(&attr, 0, -1, -1, 0));
	EXPECT_EQ(EINVAL, errno);

	/* No overflow interrupt: sampling is not supported. */
	attr.config = 0;
	attr.sample_period = 1000;
	EXPECT_EQ(-1, sys_perf_event_open(&attr, 0, -1, -1, 0));
	EXPECT_EQ(EOPNOTSUPP, errno);
}

/* Two events fit the two counters: they run all the time. */
TEST_F(mux, two_events_run_all_the_time)
{
	struct reading r;
	int fd[2], i;

	for (i = 0; i < 2; i++) {
		fd[i] = open_test(self->type, -1, 0, 0, 0);
		ASSERT_GE(fd[i], 0);
	}
	spin_ms(50);
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, rd(fd[i], &r));
		EXPECT_GT(r.enabled, 0);
		EXPECT_EQ(r.enabled, r.running);
		EXPECT_TRUE(within(r.count, r.running, 5));
		close(fd[i]);
	}
}

/*
 * One try of four events on two counters for 200 ms: the running times
 * add up to two counters' worth and are each less than enabled, and each
 * count, scaled by enabled / running, estimates enabled.  Returns whether
 * the scaled counts were close; the other checks are hard failures.
 *
 * A count is PMU time and time_running is the core's time: the two agree
 * but for the moments between the core's clock reading and the PMU's at
 * each rotation.  A vCPU that the host preempts in such a moment, with
 * interrupts off, adds that time to running only: on a loaded host the
 * scaled count can fall short once in a while, never on every try.
 */
static int four_on_two(struct __test_metadata *_metadata, int type, int last)
{
	uint64_t sum = 0, enabled = 0, scaled;
	struct reading r[4];
	int fd[4], i, close_enough = 1;

	for (i = 0; i < 4; i++) {
		fd[i] = open_test(type, -1, 0, 0, 1);
		if (fd[i] < 0)
			break;
	}
	EXPECT_EQ(4, i);
	if (i < 4)
		goto out;
	/* Enabled together, so all four have the same enabled time. */
	EXPECT_EQ(0, prctl(PR_TASK_PERF_EVENTS_ENABLE));
	spin_ms(200);
	EXPECT_EQ(0, prctl(PR_TASK_PERF_EVENTS_DISABLE));

	for (i = 0; i < 4; i++) {
		EXPECT_EQ(0, rd(fd[i], &r[i]));
		enabled += r[i].enabled;
		sum += r[i].running;
		EXPECT_GT(r[i].running, 0);
		EXPECT_LT(r[i].running, r[i].enabled);
		if (!r[i].running)
			continue;
		/* Scaling: count * enabled / running estimates enabled. */
		scaled = (uint64_t)((double)r[i].count * r[i].enabled / r[i].running);
		if (within(scaled, r[i].enabled, 10))
			continue;
		close_enough = 0;
		if (last)
			TH_LOG("event %d: count %llu enabled %llu running %llu", i,
			       (unsigned long long)r[i].count,
			       (unsigned long long)r[i].enabled,
			       (unsigned long long)r[i].running);
	}
	/* Two counters were busy the whole time. */
	EXPECT_TRUE(within(sum, enabled / 4 * 2, 15))
		TH_LOG("running sum %llu, enabled %llu", (unsigned long long)sum,
		       (unsigned long long)(enabled / 4));
out:
	while (i-- > 0)
		close(fd[i]);
	return close_enough;
}

/* Four events share two counters: each runs about half the time. */
TEST_F(mux, four_events_share_two_counters)
{
	int try;

	for (try = 1; try <= 5; try++)
		if (four_on_two(_metadata, self->type, try == 5))
			return;
	EXPECT_TRUE(0) TH_LOG("the scaled counts missed enabled on five tries");
}

/* A group needs all its counters at once; one of three never runs. */
TEST_F(mux, group_larger_than_pmu_never_runs)
{
	struct reading r;
	int leader, a, b;

	leader = open_test(self->type, -1, 0, 0, 1);
	ASSERT_GE(leader, 0);
	a = open_test(self->type, leader, 0, 0, 0);
	ASSERT_GE(a, 0);
	b = open_test(self->type, leader, 0, 0, 0);
	ASSERT_GE(b, 0);
	ASSERT_EQ(0, ioctl(leader, PERF_EVENT_IOC_ENABLE, 0));
	spin_ms(30);
	ASSERT_EQ(0, rd(leader, &r));
	EXPECT_GT(r.enabled, 0);
	EXPECT_EQ(0, r.running);
	EXPECT_EQ(0, r.count);
	close(b);
	close(a);
	close(leader);
}

/* A pinned event that finds no counter goes to the error state. */
TEST_F(mux, pinned_overcommit_errors)
{
	struct pollfd pfd;
	struct reading r;
	int fd[3], i;

	for (i = 0; i < 3; i++) {
		fd[i] = open_test(self->type, -1, 1, 0, 0);
		ASSERT_GE(fd[i], 0);
	}
	spin_ms(20);
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, rd(fd[i], &r));
		EXPECT_EQ(r.enabled, r.running);
	}
	/* The error state reads as end of file and polls as hung up. */
	EXPECT_EQ(0, read(fd[2], &r, sizeof(r)));
	pfd.fd = fd[2];
	pfd.events = POLLIN;
	EXPECT_EQ(1, poll(&pfd, 1, 0));
	EXPECT_TRUE(pfd.revents & POLLHUP);

	/* With a counter free again, enabling brings it back. */
	close(fd[0]);
	ASSERT_EQ(0, ioctl(fd[2], PERF_EVENT_IOC_ENABLE, 0));
	spin_ms(20);
	ASSERT_EQ(0, rd(fd[2], &r));
	EXPECT_GT(r.running, 0);
	close(fd[1]);
	close(fd[2]);
}

/* An exclusive event never runs at the same time as another. */
TEST_F(mux, exclusive_runs_alone)
{
	struct reading x, o;
	int excl, other;

	excl = open_test(self->type, -1, 0, 1, 1);
	ASSERT_GE(excl, 0);
	other = open_test(self->type, -1, 0, 0, 1);
	ASSERT_GE(other, 0);
	ASSERT_EQ(0, prctl(PR_TASK_PERF_EVENTS_ENABLE));
	spin_ms(150);
	ASSERT_EQ(0, prctl(PR_TASK_PERF_EVENTS_DISABLE));
	ASSERT_EQ(0, rd(excl, &x));
	ASSERT_EQ(0, rd(other, &o));
	EXPECT_GT(x.running, 0);
	EXPECT_GT(o.running, 0);
	/* Two counters: without exclusivity both would run all along. */
	EXPECT_LE(x.running + o.running, x.enabled + x.enabled / 10);
	close(other);
	close(excl);
}

#define MUX_INTERVAL MUX_SYSFS "/perf_event_mux_interval_ms"

static int read_interval(void)
{
	long ms;

	return read_file_long(MUX_INTERVAL, &ms) ? -1 : (int)ms;
}

static int write_interval(const char *val)
{
	return write_file_str(MUX_INTERVAL, val);
}

/*
 * Task groups bound to a CPU take turns with those for any CPU: on CPU 0,
 * four flexible events (two for any CPU, two for CPU 0, opened in turn)
 * share the two counters, each running about half the time; one for
 * CPU 1 never runs there.
 */
TEST_F(mux, cpu_bound_task_groups_take_turns)
{
	static const int cpu[5] = { -1, 0, -1, 0, 1 };
	uint64_t sum = 0, enabled = 0;
	struct perf_event_attr attr;
	struct reading r[5];
	int fd[5], i;

	if (nr_cpus() < 2)
		SKIP(return, "needs two CPUs");
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = self->type;
	attr.disabled = 1;
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			   PERF_FORMAT_TOTAL_TIME_RUNNING;
	for (i = 0; i < 5; i++) {
		fd[i] = sys_perf_event_open(&attr, 0, cpu[i], -1, 0);
		ASSERT_GE(fd[i], 0);
	}
	ASSERT_EQ(0, prctl(PR_TASK_PERF_EVENTS_ENABLE));
	spin_ms(200);
	ASSERT_EQ(0, prctl(PR_TASK_PERF_EVENTS_DISABLE));

	for (i = 0; i < 5; i++)
		ASSERT_EQ(0, rd(fd[i], &r[i]));
	for (i = 0; i < 4; i++) {
		enabled += r[i].enabled;
		sum += r[i].running;
		EXPECT_GT(r[i].running, 0) TH_LOG("event %d (cpu %d)", i, cpu[i]);
		EXPECT_LT(r[i].running, r[i].enabled) TH_LOG("event %d", i);
		EXPECT_TRUE(within(r[i].running, r[i].enabled / 2, 25))
			TH_LOG("event %d (cpu %d): running %llu of %llu", i, cpu[i],
			       (unsigned long long)r[i].running,
			       (unsigned long long)r[i].enabled);
	}
	EXPECT_TRUE(within(sum, enabled / 4 * 2, 15))
		TH_LOG("running sum %llu, enabled %llu", (unsigned long long)sum,
		       (unsigned long long)(enabled / 4));
	EXPECT_GT(r[4].enabled, 0);
	EXPECT_EQ(0, r[4].running);
	for (i = 0; i < 5; i++)
		close(fd[i]);
}

/*
 * fork copies the parent's groups while multiplexing rotates them every
 * millisecond: each child must get each group exactly once.  Each group
 * is a perf_test leader, counting in the parent so that the groups
 * rotate, and a task-clock sibling that is off until exec.  Every child
 * execs /bin/true, which turns its copies of the siblings on together,
 * and exits; so each sibling ends with the children's lives after exec,
 * summed, and none of the parent's time.  A group copied twice into a
 * child adds that child's life once more to its sibling; a group not
 * copied leaves it out.
 */
TEST_F_TIMEOUT(mux, fork_copies_each_group_once_while_rotating, 900)
{
	uint64_t v[24], lo = ~0ULL, hi = 0, en[2];
	struct perf_event_attr attr;
	int lead[24], sib[24], i, status, ms = read_interval();
	char old[16];
	pid_t pid;

	ASSERT_GT(ms, 0);
	snprintf(old, sizeof(old), "%d", ms);
	ASSERT_EQ(0, write_interval("1"));
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = self->type;
	attr.inherit = 1;
	for (i = 0; i < 24; i++) {
		lead[i] = sys_perf_event_open(&attr, 0, -1, -1, 0);
		ASSERT_GE(lead[i], 0);
	}
	for (i = 0; i < 24; i++) {
		struct evspec s = {
			.config = PERF_COUNT_SW_TASK_CLOCK,
			.fmt = F_EN,
			.disabled = 1,
			.inherit = 1,
			.enable_on_exec = 1,
		};

		sib[i] = open_spec(&s, 0, -1, lead[i], 0);
		ASSERT_GE(sib[i], 0);
	}
	for (i = 0; i < 40; i++) {
		pid = fork();
		ASSERT_GE(pid, 0);
		if (!pid) {
			execl("/bin/true", "true", (char *)NULL);
			_exit(127);
		}
		/* Keep the parent running for rotations to happen. */
		spin_ms(1);
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	}
	EXPECT_EQ(0, write_interval(old));
	for (i = 0; i < 24; i++) {
		ASSERT_EQ(sizeof(en), read(sib[i], en, sizeof(en)));
		v[i] = en[1];
		lo = v[i] < lo ? v[i] : lo;
		hi = v[i] > hi ? v[i] : hi;
	}
	/* Half a child's average life apart at most. */
	EXPECT_GT(lo, 0);
	EXPECT_LT(hi - lo, lo / 200)
		TH_LOG("siblings' enabled times from %llu to %llu ns",
		       (unsigned long long)lo, (unsigned long long)hi);
	for (i = 0; i < 24; i++) {
		if (hi - lo >= lo / 200)
			TH_LOG("sibling %d: %llu ns", i, (unsigned long long)v[i]);
		close(sib[i]);
		close(lead[i]);
	}
}

/* The rotation interval is a sysfs knob, at least 1 ms. */
TEST_F(mux, interval_knob)
{
	int old = read_interval();

	ASSERT_GT(old, 0);
	EXPECT_EQ(-EINVAL, write_interval("0"));
	EXPECT_EQ(-EINVAL, write_interval("-5"));
	EXPECT_EQ(0, write_interval("10"));
	EXPECT_EQ(10, read_interval());
	EXPECT_EQ(0, write_interval("4"));
	EXPECT_EQ(4, read_interval());
}

TEST_HARNESS_MAIN
