// SPDX-License-Identifier: GPL-2.0
/*
 * The breakpoint PMU and the accounting of debug-register slots, shared
 * by perf_event_open(2), ptrace and kernel users.
 *
 * Accounting: every breakpoint event is pinned, so a reservation must hold
 * whatever runs.  On a CPU, the registers can be needed at one time by all
 * breakpoints bound to that CPU plus those of the one task running there;
 * a new breakpoint is refused with -ENOSPC when, on some CPU it can run
 * on, CPU-bound breakpoints plus the largest set any single task has there
 * would exceed the number of registers.
 *
 * What is kept, so that a reservation costs O(CPUs x registers) whatever
 * the number of breakpoints and tasks:
 *  - cpu_pinned[cpu]: breakpoints bound to the CPU and to no task;
 *  - per task with breakpoints, a struct bp_task (hashed by the task):
 *    how many of its breakpoints may run on any CPU, and, for a task that
 *    also has breakpoints bound to CPUs, how many on each CPU;
 *  - per CPU, a histogram: hist(cpu)[n] tasks have n breakpoints that can
 *    run there (n >= 1), whose highest non-empty bucket is the largest set
 *    any task needs there.
 * A task breakpoint's bp_task is in its pmu_private while it holds a slot.
 *
 * Locking: bp_mutex serialises reservation and release; both may sleep
 * (but for the kernel debugger's, which only try the mutex and never
 * allocate: its breakpoints belong to no task).  The PMU callbacks run
 * with interrupts off on the breakpoint's CPU and only program the debug
 * registers (the architecture's code).
 */
#include <linux/hw_breakpoint.h>
#include <linux/hashtable.h>
#include <linux/slab.h>
#include <linux/cpu.h>
#include <linux/kdebug.h>

#include "internal.h"

struct bp_task {
	struct hlist_node	node;
	struct task_struct	*task;
	unsigned int		total;		/* its breakpoints */
	unsigned int		any;		/* of which on any CPU */
	unsigned int		*on_cpu;	/* per CPU, or NULL: none bound */
};

static DEFINE_MUTEX(bp_mutex);
static DEFINE_HASHTABLE(bp_tasks, 7);
static unsigned int cpu_pinned[NR_CPUS];
/* nr_cpu_ids rows of slots + 1 buckets; allocated at boot. */
static unsigned int *bp_hist;
static unsigned int nr_reserved;

static int nr_slots(void)
{
	return hw_breakpoint_slots(TYPE_DATA);
}

static unsigned int *hist(int cpu)
{
	return bp_hist + cpu * (nr_slots() + 1);
}

static struct bp_task *find_bp_task(struct task_struct *task)
{
	struct bp_task *bt;

	hash_for_each_possible(bp_tasks, bt, node, (unsigned long)task) {
		if (bt->task == task)
			return bt;
	}
	return NULL;
}

/* Breakpoints of the task of @bt that can run on @cpu. */
static unsigned int task_on(struct bp_task *bt, int cpu)
{
	if (!bt)
		return 0;
	return bt->any + (bt->on_cpu ? bt->on_cpu[cpu] : 0);
}

/* The largest number of breakpoints one task has that can run on @cpu. */
static unsigned int max_task_on(int cpu)
{
	unsigned int *h = hist(cpu);
	int n;

	for (n = nr_slots(); n > 0; n--) {
		if (h[n])
			return n;
	}
	return 0;
}

/*
 * Whether one more breakpoint of @bt's task (NULL: of no task) fits on
 * @cpu.  Including the task itself in the maximum changes nothing: it
 * needs one more than it has.
 */
static bool fits_on(struct bp_task *bt, bool task_bp, int cpu)
{
	unsigned int need = max_task_on(cpu);

	if (task_bp)
		need = max(need, task_on(bt, cpu) + 1);
	else
		need++;
	return cpu_pinned[cpu] + need <= nr_slots();
}

/* A task's count on @cpu goes from @from to @to: move it in the histogram. */
static void hist_move(int cpu, unsigned int from, unsigned int to)
{
	unsigned int *h = hist(cpu);

	if (from)
		h[from]--;
	if (to)
		h[to]++;
}

/* Add @delta (+1 or -1) breakpoints of @bt's task, on @cpu or any CPU. */
static void bp_task_add(struct bp_task *bt, int cpu, int delta)
{
	unsigned int before;
	int c;

	if (cpu >= 0) {
		before = task_on(bt, cpu);
		bt->on_cpu[cpu] += delta;
		hist_move(cpu, before, before + delta);
	} else {
		for_each_possible_cpu(c) {
			before = task_on(bt, c);
			hist_move(c, before, before + delta);
		}
		bt->any += delta;
	}
	bt->total += delta;
}

/*
 * Reserve with bp_mutex held.  @spare_bt and @spare_cpus are allocations
 * the caller made in case the task has no bp_task yet, or no per-CPU
 * counts yet; whatever is used is set to NULL.
 */
static int __reserve_bp_slot(struct perf_event *bp, struct bp_task **spare_bt,
			     unsigned int **spare_cpus)
{
	struct task_struct *task = bp->hw.target;
	struct bp_task *bt = NULL;
	int cpu;

	if (bp->attr.bp_type == HW_BREAKPOINT_EMPTY ||
	    bp->attr.bp_type == HW_BREAKPOINT_INVALID)
		return -EINVAL;

	if (task)
		bt = find_bp_task(task);
	if (bp->cpu >= 0) {
		if (!fits_on(bt, task, bp->cpu))
			return -ENOSPC;
	} else {
		for_each_possible_cpu(cpu) {
			if (!fits_on(bt, task, cpu))
				return -ENOSPC;
		}
	}

	if (!task) {
		cpu_pinned[bp->cpu]++;
		nr_reserved++;
		return 0;
	}
	if (!bt) {
		if (!spare_bt || !*spare_bt)
			return -ENOMEM;
		bt = *spare_bt;
		*spare_bt = NULL;
		bt->task = task;
		hash_add(bp_tasks, &bt->node, (unsigned long)task);
	}
	if (bp->cpu >= 0 && !bt->on_cpu) {
		if (!spare_cpus || !*spare_cpus)
			return -ENOMEM;	/* nothing was counted yet */
		bt->on_cpu = *spare_cpus;
		*spare_cpus = NULL;
	}
	bp_task_add(bt, bp->cpu, 1);
	bp->pmu_private = bt;
	nr_reserved++;
	return 0;
}

static void __release_bp_slot(struct perf_event *bp)
{
	struct bp_task *bt = bp->pmu_private;

	if (!bp->hw.target) {
		cpu_pinned[bp->cpu]--;
		nr_reserved--;
		return;
	}
	if (!bt)
		return;
	bp_task_add(bt, bp->cpu, -1);
	bp->pmu_private = NULL;
	nr_reserved--;
	if (bt->total)
		return;
	hash_del(&bt->node);
	kfree(bt->on_cpu);
	kfree(bt);
}

/**
 * reserve_bp_slot - claim a debug register for a breakpoint event
 * @bp: the event
 *
 * Return: 0, -ENOSPC when the registers are all spoken for, -EINVAL for a
 * breakpoint of no type, or -ENOMEM.
 */
int reserve_bp_slot(struct perf_event *bp)
{
	struct bp_task *spare_bt = NULL;
	unsigned int *spare_cpus = NULL;
	int ret;

	if (bp->hw.target) {
		spare_bt = kzalloc(sizeof(*spare_bt), GFP_KERNEL);
		if (bp->cpu >= 0)
			spare_cpus = kcalloc(nr_cpu_ids, sizeof(*spare_cpus),
					     GFP_KERNEL);
	}
	mutex_lock(&bp_mutex);
	ret = __reserve_bp_slot(bp, &spare_bt, &spare_cpus);
	mutex_unlock(&bp_mutex);
	kfree(spare_bt);
	kfree(spare_cpus);
	return ret;
}

/**
 * release_bp_slot - give back what reserve_bp_slot() claimed
 * @bp: the event
 */
void release_bp_slot(struct perf_event *bp)
{
	mutex_lock(&bp_mutex);
	__release_bp_slot(bp);
	mutex_unlock(&bp_mutex);
}

/**
 * dbg_reserve_bp_slot - reserve_bp_slot() for the kernel debugger
 * @bp: the event
 *
 * Return: 0, -ENOSPC, or -1 when the accounting is busy.
 */
int dbg_reserve_bp_slot(struct perf_event *bp)
{
	int ret;

	if (!mutex_trylock(&bp_mutex))
		return -1;
	ret = __reserve_bp_slot(bp, NULL, NULL);
	mutex_unlock(&bp_mutex);
	return ret;
}

/**
 * dbg_release_bp_slot - release_bp_slot() for the kernel debugger
 * @bp: the event
 *
 * Return: 0, or -1 when the accounting is busy.
 */
int dbg_release_bp_slot(struct perf_event *bp)
{
	if (!mutex_trylock(&bp_mutex))
		return -1;
	__release_bp_slot(bp);
	mutex_unlock(&bp_mutex);
	return 0;
}

/**
 * hw_breakpoint_is_used - whether any breakpoint holds a slot
 *
 * Return: true if so.
 */
bool hw_breakpoint_is_used(void)
{
	return READ_ONCE(nr_reserved) != 0;
}

static int hw_breakpoint_parse(struct perf_event *bp,
			       const struct perf_event_attr *attr,
			       struct arch_hw_breakpoint *hw)
{
	int err = hw_breakpoint_arch_parse(bp, attr, hw);

	if (err)
		return err;
	if (!arch_check_bp_in_kernelspace(hw))
		return 0;
	if (attr->exclude_kernel)
		return -EINVAL;
	/* A breakpoint on the trap path itself could recurse forever. */
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	return 0;
}

/**
 * register_perf_hw_breakpoint - reserve a slot and check the address
 * @bp: a breakpoint event being initialised
 *
 * Return: 0 or a negative errno.
 */
int register_perf_hw_breakpoint(struct perf_event *bp)
{
	struct arch_hw_breakpoint info = { };
	int err = reserve_bp_slot(bp);

	if (err)
		return err;
	err = hw_breakpoint_parse(bp, &bp->attr, &info);
	if (err) {
		release_bp_slot(bp);
		return err;
	}
	bp->hw.info = info;
	return 0;
}

/**
 * register_user_hw_breakpoint - a breakpoint in a task, for ptrace
 * @attr: the breakpoint
 * @triggered: called on each hit
 * @context: argument of @triggered
 * @tsk: the task
 *
 * Return: the event or an ERR_PTR.
 */
struct perf_event *
register_user_hw_breakpoint(struct perf_event_attr *attr,
			    perf_overflow_handler_t triggered,
			    void *context, struct task_struct *tsk)
{
	return perf_event_create_kernel_counter(attr, -1, tsk, triggered, context);
}
EXPORT_SYMBOL_GPL(register_user_hw_breakpoint);

/* The fields a breakpoint may change in place. */
static void copy_bp_fields(struct perf_event_attr *dst,
			   const struct perf_event_attr *src)
{
	dst->disabled = src->disabled;
	dst->bp_type = src->bp_type;
	dst->bp_addr = src->bp_addr;
	dst->bp_len = src->bp_len;
}

/**
 * modify_user_hw_breakpoint_check - change address, length, type, enable
 * @bp: the breakpoint event, disabled by the caller
 * @attr: the new attributes
 * @check: refuse changes to any other field
 *
 * Return: 0 or a negative errno; on error nothing changed.
 */
int modify_user_hw_breakpoint_check(struct perf_event *bp,
				    struct perf_event_attr *attr, bool check)
{
	struct arch_hw_breakpoint hw = { };
	int err;

	err = hw_breakpoint_parse(bp, attr, &hw);
	if (err)
		return err;
	if (check) {
		struct perf_event_attr cur = bp->attr;

		copy_bp_fields(&cur, attr);
		if (memcmp(&cur, attr, sizeof(cur)))
			return -EINVAL;
	}
	/* x86 has one kind of slot for every type: nothing to move. */
	copy_bp_fields(&bp->attr, attr);
	bp->hw.info = hw;
	return 0;
}
EXPORT_SYMBOL_GPL(modify_user_hw_breakpoint_check);

/**
 * modify_user_hw_breakpoint - change a ptrace breakpoint
 * @bp: the breakpoint event
 * @attr: the new attributes
 *
 * Return: 0 or a negative errno.
 */
int modify_user_hw_breakpoint(struct perf_event *bp, struct perf_event_attr *attr)
{
	int err;

	/* ptrace may call this with interrupts off, on the traced task. */
	if (irqs_disabled() && bp->ctx && bp->ctx->task == current)
		perf_event_disable_local(bp);
	else
		perf_event_disable(bp);

	err = modify_user_hw_breakpoint_check(bp, attr, false);

	if (!bp->attr.disabled)
		perf_event_enable(bp);
	return err;
}
EXPORT_SYMBOL_GPL(modify_user_hw_breakpoint);

/**
 * unregister_hw_breakpoint - remove a breakpoint
 * @bp: the event, or NULL
 */
void unregister_hw_breakpoint(struct perf_event *bp)
{
	if (bp)
		perf_event_release_kernel(bp);
}
EXPORT_SYMBOL_GPL(unregister_hw_breakpoint);

/**
 * register_wide_hw_breakpoint - one kernel breakpoint on every online CPU
 * @attr: the breakpoint
 * @triggered: called on each hit
 * @context: argument of @triggered
 *
 * Return: a per-CPU array of events, or an ERR_PTR.
 */
struct perf_event * __percpu *
register_wide_hw_breakpoint(struct perf_event_attr *attr,
			    perf_overflow_handler_t triggered, void *context)
{
	struct perf_event * __percpu *events, *bp;
	long err = 0;
	int cpu;

	events = alloc_percpu(typeof(*events));
	if (!events)
		return (void __percpu __force *)ERR_PTR(-ENOMEM);

	cpus_read_lock();
	for_each_online_cpu(cpu) {
		bp = perf_event_create_kernel_counter(attr, cpu, NULL, triggered,
						      context);
		if (IS_ERR(bp)) {
			err = PTR_ERR(bp);
			break;
		}
		per_cpu(*events, cpu) = bp;
	}
	cpus_read_unlock();

	if (!err)
		return events;
	unregister_wide_hw_breakpoint(events);
	return (void __percpu __force *)ERR_PTR(err);
}
EXPORT_SYMBOL_GPL(register_wide_hw_breakpoint);

/**
 * unregister_wide_hw_breakpoint - undo register_wide_hw_breakpoint()
 * @cpu_events: what it returned
 */
void unregister_wide_hw_breakpoint(struct perf_event * __percpu *cpu_events)
{
	int cpu;

	for_each_possible_cpu(cpu)
		unregister_hw_breakpoint(per_cpu(*cpu_events, cpu));
	free_percpu(cpu_events);
}
EXPORT_SYMBOL_GPL(unregister_wide_hw_breakpoint);

static void bp_destroy(struct perf_event *bp)
{
	release_bp_slot(bp);
}

static int bp_event_init(struct perf_event *bp)
{
	int err;

	if (bp->attr.type != PERF_TYPE_BREAKPOINT)
		return -ENOENT;
	if (has_branch_stack(bp))
		return -EOPNOTSUPP;

	err = register_perf_hw_breakpoint(bp);
	if (err)
		return err;
	bp->destroy = bp_destroy;
	return 0;
}

static int bp_add(struct perf_event *bp, int flags)
{
	struct hw_perf_event *hw = &bp->hw;

	hw->state = (flags & PERF_EF_START) ? hw->state : PERF_HES_STOPPED;
	/* Sampling breakpoints restart their period on every add. */
	if (bp->attr.sample_period) {
		hw->last_period = hw->sample_period;
		perf_swevent_set_period(bp);
	}
	return arch_install_hw_breakpoint(bp);
}

static void bp_del(struct perf_event *bp, int flags)
{
	arch_uninstall_hw_breakpoint(bp);
}

static void bp_start(struct perf_event *bp, int flags)
{
	bp->hw.state = 0;
}

static void bp_stop(struct perf_event *bp, int flags)
{
	bp->hw.state = PERF_HES_STOPPED;
}

static struct pmu perf_breakpoint = {
	/* Breakpoints never fail to schedule once their slot is reserved. */
	.task_ctx_nr	= perf_sw_context,
	.event_init	= bp_event_init,
	.add		= bp_add,
	.del		= bp_del,
	.start		= bp_start,
	.stop		= bp_stop,
	.read		= hw_breakpoint_pmu_read,
};

/*
 * The architecture reports debug exceptions through the die notifier
 * chain; breakpoints must see them before anyone else does.
 */
static struct notifier_block bp_exception_nb = {
	.notifier_call	= hw_breakpoint_exceptions_notify,
	.priority	= INT_MAX,
};

/**
 * init_hw_breakpoint - register the breakpoint PMU; boot only
 *
 * Return: 0 or a negative errno.
 */
int __init init_hw_breakpoint(void)
{
	int ret;

	bp_hist = kcalloc(nr_cpu_ids * (nr_slots() + 1), sizeof(*bp_hist),
			  GFP_KERNEL);
	if (!bp_hist)
		return -ENOMEM;
	ret = perf_pmu_register(&perf_breakpoint, "breakpoint",
				PERF_TYPE_BREAKPOINT);
	if (ret)
		return ret;
	return register_die_notifier(&bp_exception_nb);
}
