// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the perf core's in-kernel API for drivers and other
 * subsystems, and of core paths no user-space test can steer:
 *
 *  - perf_event_pause(): the count at the stop, the reset;
 *  - perf_sched_cb_inc()/dec(): a PMU's sched_task() hears of context
 *    switches on its CPU while it asks to, and not after;
 *  - perf_pmu_migrate_context(): a PMU's CPU events move to another CPU,
 *    groups whole, each keeping its count and its enabled state;
 *  - a disable asked for from an overflow on one CPU, while the event
 *    counts on another, is carried out where the event counts;
 *  - an event is allocated in the shape it needs: the part that keeps
 *    inherited copies only when it is inheritable, the overflow state
 *    after the event when it samples, and apart once a counting event
 *    gets a ring buffer;
 *  - inherited events bound to a CPU: a child gets a slot, not a copy,
 *    for a CPU it has not run on, and the copy made when it gets there
 *    counts exactly what the child does there; a child whose slot goes
 *    wakes the original only while it holds a reference of its own
 *    (the original's last close may come as soon as the slot is off its
 *    list: that window is a few instructions wide, too narrow for a
 *    race test to hit, so the test watches the wakeup with a kprobe).
 *
 * The test thread is bound to one CPU for each case; the cases that need
 * a second CPU skip without one.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/irq_work.h>
#include <linux/completion.h>
#include <linux/kprobes.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/task_work.h>
#include <linux/timekeeping.h>

#include "internal.h"

struct kapi {
	int cpu, other;
};

static int kapi_init(struct kunit *test)
{
	struct kapi *k = kunit_kzalloc(test, sizeof(*k), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, k);
	k->cpu = raw_smp_processor_id();
	KUNIT_ASSERT_EQ(test, 0, set_cpus_allowed_ptr(current, cpumask_of(k->cpu)));
	k->other = cpumask_any_but(cpu_online_mask, k->cpu);
	test->priv = k;
	return 0;
}

static void kapi_exit(struct kunit *test)
{
	set_cpus_allowed_ptr(current, cpu_possible_mask);
}

static int other_cpu(struct kunit *test)
{
	struct kapi *k = test->priv;

	if (k->other >= nr_cpu_ids)
		kunit_skip(test, "needs a second online CPU");
	return k->other;
}

static void spin_ms(unsigned int ms)
{
	u64 end = ktime_get_ns() + (u64)ms * NSEC_PER_MSEC;

	while (ktime_get_ns() < end)
		cpu_relax();
}

static void kattr(struct perf_event_attr *attr, u32 type, u64 config)
{
	memset(attr, 0, sizeof(*attr));
	attr->type = type;
	attr->size = sizeof(*attr);
	attr->config = config;
}

static struct perf_event *kcounter(struct kunit *test, struct perf_event_attr *attr,
				   int cpu, struct task_struct *task,
				   struct perf_event *leader)
{
	struct perf_event *event = perf_event_create_counter(attr, cpu, task,
							     leader, NULL, NULL);

	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(event), "create: %ld", PTR_ERR(event));
	return event;
}

static u64 value(struct perf_event *event)
{
	u64 enabled, running;

	return perf_event_read_value(event, &enabled, &running);
}

/* ---- perf_event_pause() ---- */

static void pause_takes_count_and_resets(struct kunit *test)
{
	struct perf_event_attr attr;
	struct perf_event *clock;
	u64 first, again;

	kattr(&attr, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	clock = kcounter(test, &attr, -1, current, NULL);
	spin_ms(3);
	first = perf_event_pause(clock, false);
	KUNIT_EXPECT_GT(test, first, 0ULL);
	KUNIT_EXPECT_EQ(test, READ_ONCE(clock->state), PERF_EVENT_STATE_OFF);
	/* Stopped: nothing more is counted. */
	spin_ms(3);
	again = perf_event_pause(clock, true);
	KUNIT_EXPECT_EQ(test, again, first);
	KUNIT_EXPECT_EQ(test, value(clock), 0ULL);
	perf_event_release_kernel(clock);
}

/* ---- perf_sched_cb_inc()/dec() ---- */

static atomic_t cb_in, cb_out;
static struct pmu cb_pmu;

static int cb_event_init(struct perf_event *event)
{
	return event->attr.type == cb_pmu.type ? 0 : -ENOENT;
}

static int cb_add(struct perf_event *event, int flags)
{
	perf_sched_cb_inc(event->pmu);
	return 0;
}

static void cb_del(struct perf_event *event, int flags)
{
	perf_sched_cb_dec(event->pmu);
}

static void cb_nop(struct perf_event *event, int flags)
{
}

static void cb_read(struct perf_event *event)
{
}

static void cb_sched_task(struct perf_event_pmu_context *epc,
			  struct task_struct *task, bool sched_in)
{
	atomic_inc(sched_in ? &cb_in : &cb_out);
}

static struct pmu cb_pmu = {
	.task_ctx_nr	= perf_invalid_context,
	.capabilities	= PERF_PMU_CAP_NO_INTERRUPT,
	.event_init	= cb_event_init,
	.add		= cb_add,
	.del		= cb_del,
	.start		= cb_nop,
	.stop		= cb_nop,
	.read		= cb_read,
	.sched_task	= cb_sched_task,
};

static void sched_task_while_asked(struct kunit *test)
{
	struct kapi *k = test->priv;
	struct perf_event_attr attr;
	struct perf_event *event;
	int i, in, out;

	KUNIT_ASSERT_EQ(test, 0, perf_pmu_register(&cb_pmu, NULL, -1));
	atomic_set(&cb_in, 0);
	atomic_set(&cb_out, 0);
	kattr(&attr, cb_pmu.type, 0);
	event = perf_event_create_counter(&attr, k->cpu, NULL, NULL, NULL, NULL);
	if (IS_ERR(event)) {
		perf_pmu_unregister(&cb_pmu);
		KUNIT_FAIL(test, "create: %ld", PTR_ERR(event));
		return;
	}
	KUNIT_EXPECT_EQ(test, READ_ONCE(event->state), PERF_EVENT_STATE_ACTIVE);
	/* Each sleep is a switch to another task and back. */
	for (i = 0; i < 5; i++)
		usleep_range(1000, 2000);
	KUNIT_EXPECT_GE(test, atomic_read(&cb_out), 5);
	KUNIT_EXPECT_GE(test, atomic_read(&cb_in), 5);

	perf_event_release_kernel(event);
	in = atomic_read(&cb_in);
	out = atomic_read(&cb_out);
	for (i = 0; i < 3; i++)
		usleep_range(1000, 2000);
	KUNIT_EXPECT_EQ(test, atomic_read(&cb_in), in);
	KUNIT_EXPECT_EQ(test, atomic_read(&cb_out), out);
	perf_pmu_unregister(&cb_pmu);
}

/* ---- perf_pmu_migrate_context() ---- */

static void migrate_moves_groups(struct kunit *test)
{
	struct kapi *k = test->priv;
	int dst = other_cpu(test);
	struct perf_event_context *dst_ctx = &per_cpu_ptr(&perf_cpu_context, dst)->ctx;
	struct perf_event *leader, *sibling, *off;
	struct perf_event_attr attr;
	u64 l0, s0;

	kattr(&attr, perf_test_pmu_type(), 0);
	leader = kcounter(test, &attr, k->cpu, NULL, NULL);
	sibling = kcounter(test, &attr, k->cpu, NULL, leader);
	attr.disabled = 1;
	off = kcounter(test, &attr, k->cpu, NULL, NULL);
	spin_ms(3);
	l0 = value(leader);
	s0 = value(sibling);
	KUNIT_EXPECT_GT(test, l0, 0ULL);

	perf_pmu_migrate_context(leader->pmu, k->cpu, dst);

	KUNIT_EXPECT_EQ(test, leader->cpu, dst);
	KUNIT_EXPECT_EQ(test, sibling->cpu, dst);
	KUNIT_EXPECT_EQ(test, off->cpu, dst);
	KUNIT_EXPECT_PTR_EQ(test, leader->ctx, dst_ctx);
	KUNIT_EXPECT_PTR_EQ(test, sibling->group_leader, leader);
	KUNIT_EXPECT_EQ(test, leader->nr_siblings, 1);
	/* Enabled ones count on the new CPU, the disabled one stays off. */
	KUNIT_EXPECT_EQ(test, READ_ONCE(leader->state), PERF_EVENT_STATE_ACTIVE);
	KUNIT_EXPECT_EQ(test, READ_ONCE(leader->oncpu), dst);
	KUNIT_EXPECT_EQ(test, READ_ONCE(sibling->state), PERF_EVENT_STATE_ACTIVE);
	KUNIT_EXPECT_EQ(test, READ_ONCE(off->state), PERF_EVENT_STATE_OFF);
	spin_ms(3);
	KUNIT_EXPECT_GT(test, value(leader), l0);
	KUNIT_EXPECT_GT(test, value(sibling), s0);
	KUNIT_EXPECT_EQ(test, value(off), 0ULL);

	/* And back: the group runs here again. */
	perf_pmu_migrate_context(leader->pmu, dst, k->cpu);
	KUNIT_EXPECT_EQ(test, leader->cpu, k->cpu);
	KUNIT_EXPECT_EQ(test, READ_ONCE(leader->oncpu), k->cpu);

	perf_event_release_kernel(off);
	perf_event_release_kernel(sibling);
	perf_event_release_kernel(leader);
}

/* ---- a disable asked for on the wrong CPU ---- */

static void pending_disable_follows_event(struct kunit *test)
{
	int elsewhere = other_cpu(test);
	struct perf_event_attr attr;
	struct perf_event *event;

	/* A sampler (it has the overflow state) that never overflows. */
	kattr(&attr, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY);
	attr.sample_period = 1ULL << 40;
	event = kcounter(test, &attr, -1, current, NULL);
	KUNIT_ASSERT_EQ(test, READ_ONCE(event->state), PERF_EVENT_STATE_ACTIVE);

	/*
	 * As if the event had overflowed and asked to be disabled while
	 * its work was still queued on a CPU it has left.
	 */
	WRITE_ONCE(event->pending_disable, 1);
	KUNIT_ASSERT_TRUE(test, irq_work_queue_on(&event->ov->pending_disable_irq,
						  elsewhere));
	irq_work_sync(&event->ov->pending_disable_irq);

	KUNIT_EXPECT_EQ(test, READ_ONCE(event->state), PERF_EVENT_STATE_OFF);
	KUNIT_EXPECT_EQ(test, READ_ONCE(event->pending_disable), 0U);
	perf_event_release_kernel(event);
}

/* ---- the shapes of an event ---- */

static void event_has_the_parts_it_needs(struct kunit *test)
{
	size_t copies_end = offsetofend(struct perf_event, lazy_list);
	size_t copies_start = offsetof(struct perf_event, child_total_time_enabled);
	struct perf_event_attr attr;
	struct perf_event *event;
	void *end;
	int err;

	/* Counting, not inheritable: neither part. */
	kattr(&attr, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	event = kcounter(test, &attr, -1, current, NULL);
	KUNIT_EXPECT_GE(test, ksize(event), copies_start);
	KUNIT_EXPECT_LT(test, ksize(event), copies_end);
	KUNIT_EXPECT_NULL(test, event->ov);
	KUNIT_EXPECT_FALSE(test, perf_event_can_have_copies(event));

	/* A buffer on the way: the state is allocated apart, once. */
	mutex_lock(&event->mmap_mutex);
	err = perf_event_get_overflow_state(event);
	mutex_unlock(&event->mmap_mutex);
	KUNIT_ASSERT_EQ(test, err, 0);
	KUNIT_ASSERT_NOT_NULL(test, event->ov);
	KUNIT_EXPECT_PTR_EQ(test, event->ov->event, event);
	end = (void *)event + ksize(event);
	KUNIT_EXPECT_TRUE(test, (void *)event->ov >= end ||
			  (void *)(event->ov + 1) <= (void *)event);
	KUNIT_EXPECT_TRUE(test, list_empty(&event->ov->rb_entry));
	perf_event_release_kernel(event);

	/* Inheritable: the part that keeps copies, empty. */
	attr.inherit = 1;
	event = kcounter(test, &attr, -1, current, NULL);
	KUNIT_EXPECT_GE(test, ksize(event), copies_end);
	KUNIT_EXPECT_TRUE(test, list_empty(&event->child_list));
	KUNIT_EXPECT_TRUE(test, list_empty(&event->lazy_list));
	KUNIT_EXPECT_NULL(test, event->ov);
	perf_event_release_kernel(event);

	/* Sampling: the state right after the event, in the same object. */
	kattr(&attr, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY);
	attr.sample_period = 1ULL << 40;
	event = kcounter(test, &attr, -1, current, NULL);
	KUNIT_ASSERT_NOT_NULL(test, event->ov);
	KUNIT_EXPECT_PTR_EQ(test, event->ov->event, event);
	end = (void *)event + ksize(event);
	KUNIT_EXPECT_TRUE(test, (void *)event->ov >= (void *)event + copies_start);
	KUNIT_EXPECT_TRUE(test, (void *)(event->ov + 1) <= end);
	perf_event_release_kernel(event);
}

/* ---- lazy copies of inherited per-CPU events ---- */

struct lazy_child {
	struct completion done;
	struct perf_event *there;	/* the original for the second CPU */
	int other;
	int err;
	bool copied_before, waiting_before, copied_after, waiting_after;
};

static void lazy_look(struct perf_event *orig, bool *copied, bool *waiting)
{
	mutex_lock(&orig->child_mutex);
	*copied = !list_empty(&orig->child_list);
	*waiting = !list_empty(&orig->lazy_list);
	mutex_unlock(&orig->child_mutex);
}

static void raise_emulation_faults(int n)
{
	while (n--)
		perf_sw_event(PERF_COUNT_SW_EMULATION_FAULTS, 1, NULL, 0);
}

static int lazy_child_fn(void *arg)
{
	struct lazy_child *c = arg;

	raise_emulation_faults(3);
	lazy_look(c->there, &c->copied_before, &c->waiting_before);
	c->err = set_cpus_allowed_ptr(current, cpumask_of(c->other));
	/* A kernel thread never returns to user space: run the work here. */
	task_work_run();
	lazy_look(c->there, &c->copied_after, &c->waiting_after);
	raise_emulation_faults(5);
	complete(&c->done);
	/* Returning would mean an exec'd user program to ret_from_fork. */
	do_exit(0);
}

static void lazy_copy_counts_after_arrival(struct kunit *test)
{
	struct kapi *k = test->priv;
	struct lazy_child c = { .other = other_cpu(test) };
	struct perf_event_attr attr;
	struct perf_event *here;
	pid_t pid;

	kattr(&attr, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS);
	attr.inherit = 1;
	here = kcounter(test, &attr, k->cpu, current, NULL);
	c.there = kcounter(test, &attr, c.other, current, NULL);
	init_completion(&c.done);
	pid = kernel_thread(lazy_child_fn, &c, "perf_lazy", 0);
	KUNIT_ASSERT_GT(test, pid, 0);
	wait_for_completion(&c.done);

	KUNIT_EXPECT_EQ(test, c.err, 0);
	KUNIT_EXPECT_FALSE(test, c.copied_before);
	KUNIT_EXPECT_TRUE(test, c.waiting_before);
	KUNIT_EXPECT_TRUE(test, c.copied_after);
	KUNIT_EXPECT_FALSE(test, c.waiting_after);
	/* Live copies' counts are read with their originals'. */
	KUNIT_EXPECT_EQ(test, value(here), 3ULL);
	KUNIT_EXPECT_EQ(test, value(c.there), 5ULL);
	perf_event_release_kernel(c.there);
	perf_event_release_kernel(here);
}

struct lazy_exit {
	struct completion queued, go;
	int other;
	int err;
	bool pending;
};

static int lazy_exit_fn(void *arg)
{
	struct lazy_exit *x = arg;

	x->err = set_cpus_allowed_ptr(current, cpumask_of(x->other));
	/* The arrival queued the copy work; leave without running it. */
	x->pending = task_work_pending(current);
	complete(&x->queued);
	wait_for_completion(&x->go);
	kfree(x);
	/* do_exit() ends the task's context before it runs task work. */
	do_exit(0);
}

static void lazy_exit_with_copy_work_queued(struct kunit *test)
{
	struct perf_event_attr attr;
	struct perf_event *there;
	struct lazy_exit *x;
	pid_t pid;

	x = kzalloc(sizeof(*x), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, x);
	x->other = other_cpu(test);
	init_completion(&x->queued);
	init_completion(&x->go);
	kattr(&attr, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS);
	attr.inherit = 1;
	there = kcounter(test, &attr, x->other, current, NULL);
	pid = kernel_thread(lazy_exit_fn, x, "perf_lazy_exit", 0);
	if (pid <= 0) {
		perf_event_release_kernel(there);
		kfree(x);
	}
	KUNIT_ASSERT_GT(test, pid, 0);
	wait_for_completion(&x->queued);
	KUNIT_EXPECT_EQ(test, x->err, 0);
	KUNIT_EXPECT_TRUE(test, x->pending);
	/*
	 * With the original gone, the child's context holds only slots: the
	 * child's exit frees it, and the slots with it, at once.  The queued
	 * work must be gone by then (KASAN reports it otherwise).
	 */
	perf_event_release_kernel(there);
	complete(&x->go);
}

/*
 * A parent with an inherited event bound to another CPU forks a child,
 * which gets a slot for it, and exits: the original's task is gone.  The
 * child then exits without reaching that CPU; dropping its slot wakes the
 * original's pollers, and must hold a reference while it does: the test
 * holds one, the child must hold another.
 */
struct lazy_unlink {
	struct completion forked, parent_done, go, woken;
	struct perf_event *orig;
	struct task_struct *child;
	long refs_at_wakeup;
	int err;
};

static struct lazy_unlink *unlink_watch;

static int unlink_wakeup_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct lazy_unlink *u = READ_ONCE(unlink_watch);

	if (u && current == READ_ONCE(u->child) &&
	    regs_get_kernel_argument(regs, 0) == (unsigned long)u->orig) {
		u->refs_at_wakeup = atomic_long_read(&u->orig->refcount);
		complete(&u->woken);
	}
	return 0;
}

static int unlink_child_fn(void *arg)
{
	struct lazy_unlink *u = arg;

	WRITE_ONCE(u->child, current);
	complete(&u->forked);
	wait_for_completion(&u->go);
	/* Exits on its CPU: the slot goes without a copy. */
	do_exit(0);
}

static int unlink_parent_fn(void *arg)
{
	struct lazy_unlink *u = arg;

	wait_for_completion(&u->go);
	reinit_completion(&u->go);
	if (kernel_thread(unlink_child_fn, u, "perf_lazy_child", 0) <= 0)
		u->err = -EAGAIN;
	else
		wait_for_completion(&u->forked);
	complete(&u->parent_done);
	do_exit(0);
}

static void lazy_unlink_holds_the_original(struct kunit *test)
{
	struct kprobe kp = {
		.symbol_name = "perf_event_wakeup",
		.pre_handler = unlink_wakeup_pre,
	};
	struct perf_event_attr attr;
	struct task_struct *parent;
	struct lazy_unlink *u;
	int other = other_cpu(test);
	pid_t pid;

	if (!IS_ENABLED(CONFIG_KPROBES))
		kunit_skip(test, "the wakeup is watched with a kprobe (CONFIG_KPROBES)");
	u = kunit_kzalloc(test, sizeof(*u), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, u);
	init_completion(&u->forked);
	init_completion(&u->parent_done);
	init_completion(&u->go);
	init_completion(&u->woken);
	u->refs_at_wakeup = -1;
	pid = kernel_thread(unlink_parent_fn, u, "perf_lazy_parent", 0);
	KUNIT_ASSERT_GT(test, pid, 0);
	parent = find_get_task_by_vpid(pid);
	KUNIT_ASSERT_NOT_NULL(test, parent);
	/* Both stay on this CPU; the event is for the other. */
	kattr(&attr, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS);
	attr.inherit = 1;
	u->orig = perf_event_create_counter(&attr, other, parent,
					    NULL, NULL, NULL);
	put_task_struct(parent);
	if (IS_ERR(u->orig)) {
		complete(&u->go);
		wait_for_completion(&u->parent_done);
		KUNIT_FAIL(test, "create: %ld", PTR_ERR(u->orig));
		return;
	}
	complete(&u->go);
	wait_for_completion(&u->parent_done);
	KUNIT_EXPECT_EQ(test, u->err, 0);
	if (u->err)
		goto out;
	/* The parent has gone: the original waits for its last child. */
	WRITE_ONCE(unlink_watch, u);
	if (register_kprobe(&kp)) {
		WRITE_ONCE(unlink_watch, NULL);
		complete(&u->go);
		KUNIT_FAIL(test, "no kprobe on perf_event_wakeup");
		goto out;
	}
	complete(&u->go);
	wait_for_completion(&u->woken);
	unregister_kprobe(&kp);
	WRITE_ONCE(unlink_watch, NULL);
	/* The test's reference, and the child's own while it wakes. */
	KUNIT_EXPECT_GE(test, u->refs_at_wakeup, 2L);
out:
	perf_event_release_kernel(u->orig);
}

static struct kunit_case perf_kapi_cases[] = {
	KUNIT_CASE(pause_takes_count_and_resets),
	KUNIT_CASE(sched_task_while_asked),
	KUNIT_CASE(migrate_moves_groups),
	KUNIT_CASE(pending_disable_follows_event),
	KUNIT_CASE(event_has_the_parts_it_needs),
	KUNIT_CASE(lazy_copy_counts_after_arrival),
	KUNIT_CASE(lazy_exit_with_copy_work_queued),
	KUNIT_CASE(lazy_unlink_holds_the_original),
	{}
};

static struct kunit_suite perf_kapi_suite = {
	.name = "perf_kapi",
	.init = kapi_init,
	.exit = kapi_exit,
	.test_cases = perf_kapi_cases,
};

kunit_test_suite(perf_kapi_suite);

MODULE_DESCRIPTION("KUnit tests of the perf_event in-kernel API");
MODULE_LICENSE("GPL");
