// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the debug-register slot accounting in hw_breakpoint.c.
 *
 * The accounting only looks at a breakpoint's CPU, its target task and
 * its type, so the tests reserve slots for stand-in events: zeroed
 * perf_event structures whose targets are zeroed task_structs that never
 * run.  No debug register is touched.  Every stand-in still holding a
 * slot is released when a case ends, so the cases do not leak into each
 * other or into the rest of the system.
 *
 * The suite needs the accounting to be idle when it starts (nothing else
 * holds a breakpoint) and at least two possible CPUs.
 */
#include <kunit/test.h>
#include <linux/cpu.h>
#include <linux/hw_breakpoint.h>
#include <linux/sched.h>
#include <linux/slab.h>

#define MAX_BPS		16
#define NO_TASK		NULL
#define ANY_CPU		-1

struct bp_kunit {
	struct perf_event	*held[MAX_BPS];
	int			nr;
	struct task_struct	*task_a, *task_b;
};

static int bp_kunit_init(struct kunit *test)
{
	struct bp_kunit *bk;

	if (hw_breakpoint_is_used())
		kunit_skip(test, "breakpoints are in use elsewhere");
	if (num_possible_cpus() < 2)
		kunit_skip(test, "needs two possible CPUs");
	bk = kunit_kzalloc(test, sizeof(*bk), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, bk);
	bk->task_a = kunit_kzalloc(test, sizeof(*bk->task_a), GFP_KERNEL);
	bk->task_b = kunit_kzalloc(test, sizeof(*bk->task_b), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, bk->task_a);
	KUNIT_ASSERT_NOT_NULL(test, bk->task_b);
	test->priv = bk;
	return 0;
}

static void bp_kunit_exit(struct kunit *test)
{
	struct bp_kunit *bk = test->priv;
	int i;

	/* Skipped in init: nothing was set up. */
	if (!bk)
		return;
	for (i = 0; i < bk->nr; i++) {
		if (bk->held[i])
			release_bp_slot(bk->held[i]);
	}
}

/*
 * Try to reserve a slot for a write breakpoint on @cpu (or any CPU) of
 * @task (or of no task).  Return: the stand-in or an ERR_PTR.
 */
static struct perf_event *try_bp(struct kunit *test, struct task_struct *task,
				 int cpu)
{
	struct bp_kunit *bk = test->priv;
	struct perf_event *bp;
	int err;

	KUNIT_ASSERT_LT(test, bk->nr, MAX_BPS);
	bp = kunit_kzalloc(test, sizeof(*bp), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, bp);
	bp->cpu = cpu;
	bp->hw.target = task;
	bp->attr.type = PERF_TYPE_BREAKPOINT;
	bp->attr.bp_type = HW_BREAKPOINT_W;
	bp->attr.bp_len = HW_BREAKPOINT_LEN_8;
	err = reserve_bp_slot(bp);
	if (err)
		return ERR_PTR(err);
	bk->held[bk->nr++] = bp;
	return bp;
}

/* Reserve, expecting success. */
static struct perf_event *get_bp(struct kunit *test, struct task_struct *task,
				 int cpu)
{
	struct perf_event *bp = try_bp(test, task, cpu);

	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(bp), "reserve: %ld", PTR_ERR(bp));
	return bp;
}

/* Reserve, expecting -ENOSPC. */
static void no_room(struct kunit *test, struct task_struct *task, int cpu)
{
	KUNIT_EXPECT_EQ(test, PTR_ERR(try_bp(test, task, cpu)), -ENOSPC);
}

static void put_bp(struct kunit *test, struct perf_event *bp)
{
	struct bp_kunit *bk = test->priv;
	int i;

	for (i = 0; i < bk->nr; i++) {
		if (bk->held[i] == bp) {
			release_bp_slot(bp);
			bk->held[i] = NULL;
			return;
		}
	}
	KUNIT_FAIL(test, "releasing a breakpoint that is not held");
}

static void get_n(struct kunit *test, struct task_struct *task, int cpu, int n)
{
	while (n--)
		get_bp(test, task, cpu);
}

static int slots(void)
{
	return hw_breakpoint_slots(TYPE_DATA);
}

/* A CPU has as many slots as debug registers; other CPUs are untouched. */
static void cpu_slots_run_out(struct kunit *test)
{
	get_n(test, NO_TASK, 0, slots());
	no_room(test, NO_TASK, 0);
	get_n(test, NO_TASK, 1, slots());
	no_room(test, NO_TASK, 1);
}

/* Releasing a breakpoint gives its slot back, once. */
static void release_returns_the_slot(struct kunit *test)
{
	struct perf_event *bp;

	get_n(test, NO_TASK, 0, slots() - 1);
	bp = get_bp(test, NO_TASK, 0);
	no_room(test, NO_TASK, 0);
	put_bp(test, bp);
	get_bp(test, NO_TASK, 0);
	no_room(test, NO_TASK, 0);
}

/* Each task has its own set of slots: tasks never run at once on a CPU. */
static void tasks_have_their_own_slots(struct kunit *test)
{
	struct bp_kunit *bk = test->priv;

	get_n(test, bk->task_a, ANY_CPU, slots());
	no_room(test, bk->task_a, ANY_CPU);
	no_room(test, bk->task_a, 1);
	get_n(test, bk->task_b, ANY_CPU, slots());
	no_room(test, bk->task_b, 0);
}

/* A task's breakpoints bound to different CPUs do not compete. */
static void task_slots_are_per_cpu(struct kunit *test)
{
	struct bp_kunit *bk = test->priv;

	get_n(test, bk->task_a, 0, slots());
	no_room(test, bk->task_a, 0);
	get_n(test, bk->task_a, 1, slots());
	/* One that can run anywhere needs a slot on CPU 0 as well. */
	no_room(test, bk->task_a, ANY_CPU);
}

/*
 * CPU-bound breakpoints and the breakpoints of whichever task runs there
 * share the registers: their sum is what must fit.
 */
static void cpu_and_task_share(struct kunit *test)
{
	struct bp_kunit *bk = test->priv;
	int half = slots() / 2;

	get_n(test, NO_TASK, 0, half);
	get_n(test, bk->task_a, ANY_CPU, slots() - half);
	no_room(test, bk->task_a, ANY_CPU);
	no_room(test, NO_TASK, 0);
	/* Task B is checked against the same CPU-bound ones. */
	get_n(test, bk->task_b, ANY_CPU, slots() - half);
	no_room(test, bk->task_b, 0);
	/* On CPU 1 nothing is CPU-bound: task A may grow there. */
	get_n(test, bk->task_a, 1, half);
	no_room(test, bk->task_a, 1);
}

/* A CPU breakpoint must leave room for the busiest task on that CPU. */
static void cpu_bp_fits_busiest_task(struct kunit *test)
{
	struct bp_kunit *bk = test->priv;

	get_n(test, bk->task_a, ANY_CPU, slots() - 1);
	get_n(test, bk->task_b, ANY_CPU, 1);
	get_bp(test, NO_TASK, 0);
	no_room(test, NO_TASK, 0);
	/* Task B may still grow up to task A's size, not beyond. */
	get_n(test, bk->task_b, ANY_CPU, slots() - 2);
	no_room(test, bk->task_b, ANY_CPU);
}

/* A task bound breakpoint on CPU 1 does not limit CPU 0. */
static void bound_task_bp_limits_its_cpu_only(struct kunit *test)
{
	struct bp_kunit *bk = test->priv;

	get_n(test, bk->task_a, 1, slots());
	no_room(test, NO_TASK, 1);
	get_n(test, NO_TASK, 0, slots());
}

/* A breakpoint of no type is refused before any slot is taken. */
static void empty_type_refused(struct kunit *test)
{
	struct perf_event *bp = kunit_kzalloc(test, sizeof(*bp), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, bp);
	bp->cpu = 0;
	bp->attr.bp_type = HW_BREAKPOINT_EMPTY;
	KUNIT_EXPECT_EQ(test, reserve_bp_slot(bp), -EINVAL);
	KUNIT_EXPECT_FALSE(test, hw_breakpoint_is_used());
	get_n(test, NO_TASK, 0, slots());
}

/* hw_breakpoint_is_used() follows the reservations. */
static void in_use_follows_reservations(struct kunit *test)
{
	struct bp_kunit *bk = test->priv;
	struct perf_event *a, *b;

	KUNIT_EXPECT_FALSE(test, hw_breakpoint_is_used());
	a = get_bp(test, NO_TASK, 0);
	b = get_bp(test, bk->task_a, ANY_CPU);
	KUNIT_EXPECT_TRUE(test, hw_breakpoint_is_used());
	put_bp(test, a);
	KUNIT_EXPECT_TRUE(test, hw_breakpoint_is_used());
	put_bp(test, b);
	KUNIT_EXPECT_FALSE(test, hw_breakpoint_is_used());
}

/*
 * Reservations are made over possible CPUs: taking a CPU offline and back
 * changes nothing, and a breakpoint bound to an offline CPU still counts.
 */
static void hotplug_keeps_reservations(struct kunit *test)
{
	struct bp_kunit *bk = test->priv;
	int cpu = cpumask_last(cpu_online_mask);
	struct perf_event *bp;
	int err;

	if (cpu == 0 || !IS_ENABLED(CONFIG_HOTPLUG_CPU))
		kunit_skip(test, "needs a second online CPU that can go offline");

	get_n(test, NO_TASK, cpu, slots() - 1);
	bp = get_bp(test, NO_TASK, cpu);
	err = remove_cpu(cpu);
	if (err)
		kunit_skip(test, "CPU %d cannot go offline: %d", cpu, err);

	no_room(test, NO_TASK, cpu);
	no_room(test, bk->task_a, ANY_CPU);
	get_bp(test, bk->task_a, 0);
	put_bp(test, bp);
	get_bp(test, bk->task_b, ANY_CPU);

	KUNIT_EXPECT_EQ(test, add_cpu(cpu), 0);
	/* @cpu: slots() - 1 CPU-bound ones and room for one per task. */
	no_room(test, NO_TASK, cpu);
	get_bp(test, bk->task_a, ANY_CPU);
	no_room(test, bk->task_a, ANY_CPU);
	/* CPU 0 has task A's two so far. */
	get_n(test, bk->task_a, 0, slots() - 2);
	no_room(test, bk->task_a, 0);
}

static struct kunit_case bp_slot_cases[] = {
	KUNIT_CASE(cpu_slots_run_out),
	KUNIT_CASE(release_returns_the_slot),
	KUNIT_CASE(tasks_have_their_own_slots),
	KUNIT_CASE(task_slots_are_per_cpu),
	KUNIT_CASE(cpu_and_task_share),
	KUNIT_CASE(cpu_bp_fits_busiest_task),
	KUNIT_CASE(bound_task_bp_limits_its_cpu_only),
	KUNIT_CASE(empty_type_refused),
	KUNIT_CASE(in_use_follows_reservations),
	KUNIT_CASE(hotplug_keeps_reservations),
	{}
};

static struct kunit_suite bp_slot_suite = {
	.name = "hw_breakpoint_slots",
	.init = bp_kunit_init,
	.exit = bp_kunit_exit,
	.test_cases = bp_slot_cases,
};

kunit_test_suite(bp_slot_suite);

MODULE_DESCRIPTION("KUnit tests of the breakpoint slot accounting");
MODULE_LICENSE("GPL");
