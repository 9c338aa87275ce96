// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the perf core's internal logic: time accounting, the
 * order groups are scheduled in, all-or-nothing groups, exclusive groups,
 * the ERROR state of pinned groups that do not fit, multiplexing, and
 * the sample rate lowered when sampling interrupts take too long.
 *
 * They use kernel counters on the test thread itself or on its CPU.  The
 * perf_test PMU (two counters per CPU, counting nanoseconds while on a
 * counter) is what makes room run out.  The thread is bound to one CPU
 * for the duration of each test so that its task and CPU events compete
 * for the same counters.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/sched.h>
#include <linux/timekeeping.h>

#include "internal.h"

#define MAX_EVENTS 8

struct perf_kunit {
	struct perf_event	*events[MAX_EVENTS];
	int			nr;
	int			cpu;
};

static int perf_kunit_init(struct kunit *test)
{
	struct perf_kunit *pk = kunit_kzalloc(test, sizeof(*pk), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, pk);
	pk->cpu = raw_smp_processor_id();
	KUNIT_ASSERT_EQ(test, 0, set_cpus_allowed_ptr(current, cpumask_of(pk->cpu)));
	test->priv = pk;
	return 0;
}

static void perf_kunit_exit(struct kunit *test)
{
	struct perf_kunit *pk = test->priv;
	int i;

	/* Siblings first, then leaders. */
	for (i = pk->nr - 1; i >= 0; i--)
		perf_event_release_kernel(pk->events[i]);
	set_cpus_allowed_ptr(current, cpu_possible_mask);
}

static void test_attr(struct perf_event_attr *attr, u32 type, u64 config)
{
	memset(attr, 0, sizeof(*attr));
	attr->type = type;
	attr->size = sizeof(*attr);
	attr->config = config;
}

/* Create an event; @task_event: on this thread, else on this CPU. */
static struct perf_event *make(struct kunit *test, struct perf_event_attr *attr,
			       bool task_event, struct perf_event *leader)
{
	struct perf_kunit *pk = test->priv;
	struct perf_event *event;

	KUNIT_ASSERT_LT(test, pk->nr, MAX_EVENTS);
	event = perf_event_create_counter(attr, task_event ? -1 : pk->cpu,
					  task_event ? current : NULL, leader,
					  NULL, NULL);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(event), "create: %ld", PTR_ERR(event));
	pk->events[pk->nr++] = event;
	return event;
}

static struct perf_event *make_test(struct kunit *test, bool task_event,
				    bool pinned, struct perf_event *leader)
{
	struct perf_event_attr attr;

	test_attr(&attr, perf_test_pmu_type(), 0);
	attr.pinned = pinned;
	return make(test, &attr, task_event, leader);
}

/* A leader created disabled, so its group can be completed first. */
static struct perf_event *make_test_off(struct kunit *test)
{
	struct perf_event_attr attr;

	test_attr(&attr, perf_test_pmu_type(), 0);
	attr.disabled = 1;
	return make(test, &attr, true, NULL);
}

struct reading {
	u64 count, enabled, running;
};

static struct reading rd(struct perf_event *event)
{
	struct reading r;

	r.count = perf_event_read_value(event, &r.enabled, &r.running);
	return r;
}

/*
 * Keep the CPU busy, so the thread stays scheduled in, for @ms of clock
 * time.  Not mdelay(): early in boot a CPU's delay loop can be calibrated
 * far off under emulation (40 ms took 0.2 ms on one CPU of a guest).
 */
static void spin_ms(unsigned int ms)
{
	u64 end = ktime_get_ns() + (u64)ms * NSEC_PER_MSEC;

	while (ktime_get_ns() < end)
		cpu_relax();
}

/* A software group's enabled and running times are always equal. */
static void sw_time_enabled_equals_running(struct kunit *test)
{
	struct perf_event_attr attr;
	struct perf_event *clock;
	struct reading r;
	u64 before, took;

	test_attr(&attr, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	clock = make(test, &attr, true, NULL);
	spin_ms(5);
	usleep_range(2000, 3000);
	spin_ms(5);
	before = perf_clock();
	r = rd(clock);
	took = perf_clock() - before;
	KUNIT_EXPECT_GT(test, r.enabled, 0ULL);
	KUNIT_EXPECT_EQ(test, r.enabled, r.running);
	/*
	 * task-clock counts the context's time while on the PMU.  The read
	 * settles the times first and then asks the clock, which looks at
	 * perf_clock() once more: the count may be ahead by that gap, which
	 * is within the read (long, when the host stalls the guest's CPU).
	 */
	KUNIT_EXPECT_GE(test, r.count, r.running);
	KUNIT_EXPECT_LE(test, r.count - r.running, took);
}

/* Time does not run while an event is disabled. */
static void disabled_time_stands_still(struct kunit *test)
{
	struct perf_event_attr attr;
	struct perf_event *clock;
	struct reading a, b;

	test_attr(&attr, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	attr.disabled = 1;
	clock = make(test, &attr, true, NULL);
	spin_ms(3);
	a = rd(clock);
	KUNIT_EXPECT_EQ(test, a.enabled, 0ULL);
	KUNIT_EXPECT_EQ(test, a.count, 0ULL);

	perf_event_enable(clock);
	spin_ms(3);
	perf_event_disable(clock);
	a = rd(clock);
	spin_ms(3);
	b = rd(clock);
	KUNIT_EXPECT_GT(test, a.enabled, 0ULL);
	KUNIT_EXPECT_EQ(test, a.enabled, b.enabled);
	KUNIT_EXPECT_EQ(test, a.count, b.count);
}

/* A group needs all its counters at once: too big a group never runs. */
static void group_is_all_or_nothing(struct kunit *test)
{
	struct perf_event *l2, *s2, *l3, *s3a, *s3b;
	struct reading r;

	l2 = make_test_off(test);
	s2 = make_test(test, true, false, l2);
	perf_event_enable(l2);
	spin_ms(10);
	/* Off the PMU, the group's times stand still and can be compared. */
	perf_event_disable(l2);
	r = rd(l2);
	KUNIT_EXPECT_GT(test, r.running, 0ULL);
	KUNIT_EXPECT_EQ(test, r.enabled, r.running);
	KUNIT_EXPECT_EQ(test, rd(s2).running, r.running);

	/* Three members, two counters: it can never be scheduled. */
	l3 = make_test_off(test);
	s3a = make_test(test, true, false, l3);
	s3b = make_test(test, true, false, l3);
	perf_event_enable(l3);
	spin_ms(20);
	r = rd(l3);
	KUNIT_EXPECT_GT(test, r.enabled, 0ULL);
	KUNIT_EXPECT_EQ(test, r.running, 0ULL);
	KUNIT_EXPECT_EQ(test, rd(s3a).running, 0ULL);
	KUNIT_EXPECT_EQ(test, rd(s3b).running, 0ULL);
}

/* A pinned group that does not fit goes to the ERROR state. */
static void pinned_overcommit_errors(struct kunit *test)
{
	struct perf_event *p[3];
	int i, errors = 0;

	for (i = 0; i < 3; i++)
		p[i] = make_test(test, false, true, NULL);
	spin_ms(2);
	for (i = 0; i < 3; i++) {
		if (READ_ONCE(p[i]->state) == PERF_EVENT_STATE_ERROR)
			errors++;
	}
	KUNIT_EXPECT_EQ(test, errors, 1);
	/* The first two came first and keep their counters. */
	KUNIT_EXPECT_EQ(test, READ_ONCE(p[0]->state), PERF_EVENT_STATE_ACTIVE);
	KUNIT_EXPECT_EQ(test, READ_ONCE(p[1]->state), PERF_EVENT_STATE_ACTIVE);
	KUNIT_EXPECT_EQ(test, READ_ONCE(p[2]->state), PERF_EVENT_STATE_ERROR);
}

/* Whether each of @n groups ran more than a fifth and less than 4/5. */
static bool shares_within(struct reading *r, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (r[i].running <= r[i].enabled / 5 ||
		    r[i].running >= r[i].enabled * 4 / 5)
			return false;
	}
	return true;
}

/*
 * Four flexible groups share two counters: each runs about half the time.
 *
 * Rotation steps in the guest CPU's time: a host that stalls that CPU
 * for tens of milliseconds (seen while it builds a kernel beside the
 * guest) leaves one pair on the counters for all of the stall.  So the
 * groups run in rounds of 120 ms, until the shares are within bounds or
 * 40 rounds have passed; a core that does not rotate never gets there.
 */
static void flexible_groups_multiplex(struct kunit *test)
{
	struct perf_event *e[4];
	struct reading r[4];
	int i, round;
	u64 sum = 0;

	for (i = 0; i < 4; i++)
		e[i] = make_test(test, true, false, NULL);
	for (round = 0; round < 40; round++) {
		if (round) {
			for (i = 0; i < 4; i++)
				perf_event_enable(e[i]);
		}
		spin_ms(120);
		for (i = 0; i < 4; i++)
			perf_event_disable(e[i]);
		for (i = 0; i < 4; i++)
			r[i] = rd(e[i]);
		if (shares_within(r, 4))
			break;
	}
	for (i = 0; i < 4; i++) {
		sum += r[i].running;
		/*
		 * The test PMU counts time on a counter, inside the times it
		 * is scheduled.  Not compared with the running time itself:
		 * the two clocks are read at different points of adding and
		 * removing, and a host that stalls the guest's CPU between
		 * them (18 ms seen on a loaded host) moves one, not the other.
		 */
		KUNIT_EXPECT_GT(test, r[i].count, 0ULL);
		KUNIT_EXPECT_LE(test, r[i].count, r[i].enabled);
		KUNIT_EXPECT_GT(test, r[i].running, r[i].enabled / 5);
		KUNIT_EXPECT_LT(test, r[i].running, r[i].enabled * 4 / 5);
	}
	/* Two counters were busy all along: running adds up to 2x. */
	KUNIT_EXPECT_GT(test, sum, r[0].enabled * 2 * 9 / 10);
	KUNIT_EXPECT_LE(test, sum, r[0].enabled * 2 + r[0].enabled / 10);
}

/* The task's pinned group goes before the CPU's flexible groups. */
static void task_pinned_before_cpu_flexible(struct kunit *test)
{
	struct perf_event *pinned, *flex[2];
	struct reading r;
	int i;

	for (i = 0; i < 2; i++)
		flex[i] = make_test(test, false, false, NULL);
	pinned = make_test(test, true, true, NULL);
	spin_ms(40);
	r = rd(pinned);
	KUNIT_EXPECT_EQ(test, READ_ONCE(pinned->state), PERF_EVENT_STATE_ACTIVE);
	KUNIT_EXPECT_EQ(test, r.enabled, r.running);
	/* The CPU's two flexible events now share the one counter left. */
	for (i = 0; i < 2; i++) {
		r = rd(flex[i]);
		KUNIT_EXPECT_LT(test, r.running, r.enabled);
	}
}

/* An exclusive group runs alone: never at the same time as another. */
static void exclusive_group_runs_alone(struct kunit *test)
{
	struct perf_event_attr attr;
	struct perf_event *excl, *other;
	struct reading a, b;
	u64 start, span;

	test_attr(&attr, perf_test_pmu_type(), 0);
	attr.exclusive = 1;
	start = perf_clock();
	excl = make(test, &attr, true, NULL);
	other = make_test(test, true, false, NULL);
	spin_ms(120);
	a = rd(excl);
	b = rd(other);
	span = perf_clock() - start;
	KUNIT_EXPECT_GT(test, a.running, 0ULL);
	KUNIT_EXPECT_GT(test, b.running, 0ULL);
	/*
	 * Never at the same time: their running times fit in the span of
	 * the test, however long the host stalled it.  With two counters,
	 * both would run all the time if not exclusive: twice the span.
	 */
	KUNIT_EXPECT_LE(test, a.running + b.running, span);
}

/* Leader and siblings are scheduled together: identical times. */
static void siblings_share_times(struct kunit *test)
{
	struct perf_event *leader, *sibling, *rival[2];
	struct reading l, s;
	int i;

	leader = make_test_off(test);
	sibling = make_test(test, true, false, leader);
	perf_event_enable(leader);
	rival[0] = make_test(test, true, false, NULL);
	rival[1] = make_test(test, true, false, NULL);
	/*
	 * Until rotation has given the rivals a turn: a few intervals, or
	 * longer when the machine running the guest is busy (2 s at most).
	 */
	spin_ms(20);
	for (i = 0; i < 200 && !rd(rival[0]).running; i++)
		spin_ms(10);
	spin_ms(10);
	/* Disabling the leader takes the group off: running freezes. */
	perf_event_disable(leader);
	l = rd(leader);
	s = rd(sibling);
	KUNIT_EXPECT_EQ(test, l.running, s.running);
	/* Both were enabled from the start; the sibling still is. */
	KUNIT_EXPECT_GE(test, s.enabled, l.enabled);
	KUNIT_EXPECT_LT(test, l.running, l.enabled);
	KUNIT_EXPECT_GT(test, rd(rival[0]).running, 0ULL);
}

/* ---- ring buffer arithmetic ---- */

static void rb_room_forward(struct kunit *test)
{
	const unsigned long size = 4096;

	/* Empty buffer: everything but one byte fits. */
	KUNIT_EXPECT_TRUE(test, perf_rb_has_room(0, 0, size, size - 8, false));
	KUNIT_EXPECT_TRUE(test, perf_rb_has_room(0, 0, size, size - 1, false));
	KUNIT_EXPECT_FALSE(test, perf_rb_has_room(0, 0, size, size, false));
	/* Reader 100 bytes behind: the rest is free. */
	KUNIT_EXPECT_TRUE(test, perf_rb_has_room(100, 0, size, size - 101, false));
	KUNIT_EXPECT_FALSE(test, perf_rb_has_room(100, 0, size, size - 100, false));
	/* Positions are byte counts since the start: they wrap. */
	KUNIT_EXPECT_TRUE(test, perf_rb_has_room(3 * size + 10, 3 * size, size, 64, false));
	KUNIT_EXPECT_FALSE(test, perf_rb_has_room(4 * size - 8, 3 * size, size, 16, false));
	/* Unsigned wrap of the counters themselves. */
	KUNIT_EXPECT_TRUE(test, perf_rb_has_room(8, -8UL, size, 64, false));
	KUNIT_EXPECT_FALSE(test, perf_rb_has_room(8, -8UL, size, size - 16, false));
}

static void rb_room_backward(struct kunit *test)
{
	const unsigned long size = 8192;

	/* The head runs down from 0: the reader's tail is above it. */
	KUNIT_EXPECT_TRUE(test, perf_rb_has_room(0, 0, size, 64, true));
	KUNIT_EXPECT_FALSE(test, perf_rb_has_room(-(size - 8), 0, size, 16, true));
	KUNIT_EXPECT_TRUE(test, perf_rb_has_room(-64UL, 0, size, size - 65, true));
	KUNIT_EXPECT_FALSE(test, perf_rb_has_room(-64UL, 0, size, size - 64, true));
}

/* ---- frequency mode ---- */

static void freq_period_from_rate(struct kunit *test)
{
	/* 1M events a second, 1000 samples a second: every 1000 events. */
	KUNIT_EXPECT_EQ(test, 1000ULL, perf_sample_period_for(1000000, NSEC_PER_SEC, 1000));
	/* The same rate seen over a 4 ms tick. */
	KUNIT_EXPECT_EQ(test, 1000ULL, perf_sample_period_for(4000, 4 * NSEC_PER_MSEC, 1000));
	/* Slower than the frequency: never below one. */
	KUNIT_EXPECT_EQ(test, 1ULL, perf_sample_period_for(3, NSEC_PER_SEC, 1000));
	KUNIT_EXPECT_EQ(test, 1ULL, perf_sample_period_for(1000, 0, 1000));
	/* Huge counts do not overflow: 2^40 events in 1 s at 1 Hz. */
	KUNIT_EXPECT_EQ(test, 1ULL << 40, perf_sample_period_for(1ULL << 40, NSEC_PER_SEC, 1));
}

static void freq_filter_steps(struct kunit *test)
{
	u64 p = 1;
	int i;

	/* An eighth of the way, rounded away from the current value. */
	KUNIT_EXPECT_EQ(test, 101ULL, perf_filter_period(100, 108));
	KUNIT_EXPECT_EQ(test, 102ULL, perf_filter_period(100, 109));
	KUNIT_EXPECT_EQ(test, 99ULL, perf_filter_period(100, 92));
	KUNIT_EXPECT_EQ(test, 100ULL, perf_filter_period(100, 100));
	/* Never zero. */
	KUNIT_EXPECT_EQ(test, 1ULL, perf_filter_period(1, 0));
	/* Converges towards the target. */
	for (i = 0; i < 200; i++)
		p = perf_filter_period(p, 1000000);
	KUNIT_EXPECT_GT(test, p, 999000ULL);
	KUNIT_EXPECT_LE(test, p, 1000000ULL);
}

/*
 * Interrupts that take less than a sample may leave the rate alone; a
 * run of slow ones lowers it, with the limits derived from it in step.
 */
static void slow_interrupts_lower_the_rate(struct kunit *test)
{
	int rate = sysctl_perf_event_sample_rate;
	int pct = sysctl_perf_cpu_time_max_percent;
	int allowed, i;

	if (pct <= 0 || pct >= 100)
		kunit_skip(test, "interrupt throttling is off (perf_cpu_time_max_percent %d)", pct);
	perf_sample_limits_reset(DEFAULT_MAX_SAMPLE_RATE);
	allowed = READ_ONCE(perf_sample_allowed_ns);
	KUNIT_ASSERT_GT(test, allowed, 0);

	preempt_disable();
	for (i = 0; i < 1000; i++)
		perf_sample_event_took(allowed / 2);
	KUNIT_EXPECT_EQ(test, sysctl_perf_event_sample_rate, DEFAULT_MAX_SAMPLE_RATE);
	for (i = 0; i < 1000 && sysctl_perf_event_sample_rate == DEFAULT_MAX_SAMPLE_RATE; i++)
		perf_sample_event_took(10ULL * allowed);
	preempt_enable();

	KUNIT_EXPECT_LT(test, sysctl_perf_event_sample_rate, DEFAULT_MAX_SAMPLE_RATE);
	KUNIT_EXPECT_GT(test, READ_ONCE(perf_sample_allowed_ns), allowed);
	KUNIT_EXPECT_EQ(test, READ_ONCE(perf_max_samples_per_tick) * HZ,
			sysctl_perf_event_sample_rate);
	perf_sample_limits_reset(rate);
}

static struct kunit_case perf_core_cases[] = {
	KUNIT_CASE(sw_time_enabled_equals_running),
	KUNIT_CASE(disabled_time_stands_still),
	KUNIT_CASE(group_is_all_or_nothing),
	KUNIT_CASE(pinned_overcommit_errors),
	KUNIT_CASE(flexible_groups_multiplex),
	KUNIT_CASE(task_pinned_before_cpu_flexible),
	KUNIT_CASE(exclusive_group_runs_alone),
	KUNIT_CASE(siblings_share_times),
	KUNIT_CASE(rb_room_forward),
	KUNIT_CASE(rb_room_backward),
	KUNIT_CASE(freq_period_from_rate),
	KUNIT_CASE(freq_filter_steps),
	KUNIT_CASE(slow_interrupts_lower_the_rate),
	{}
};

static struct kunit_suite perf_core_suite = {
	.name = "perf_core",
	.init = perf_kunit_init,
	.exit = perf_kunit_exit,
	.test_cases = perf_core_cases,
};

kunit_test_suite(perf_core_suite);

MODULE_DESCRIPTION("KUnit tests of the perf_event core");
MODULE_LICENSE("GPL");
