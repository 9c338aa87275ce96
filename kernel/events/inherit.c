// SPDX-License-Identifier: GPL-2.0
/*
 * Events and the life of tasks: fork copies inheritable groups into the
 * child, exit folds the children's counts back into their parents and
 * ends the task's events, exec enables the events waiting for it.
 *
 * Inheritance is flat: every copy points at the original event (the one
 * user space holds), never at an intermediate copy, so a grandchild's
 * count lands directly in the original.  A copy holds a reference on the
 * original and sits on its child_list (under its child_mutex).  A copy is
 * allocated short (see struct perf_event): it has no owner, buffer,
 * pollers or children of its own, and a copy of a counting event has no
 * overflow state either, so none of these may be reached through it.
 * A copy is made from the original (its attributes, period and handler)
 * in the state of the forking task's event, and refused only once the
 * original is released (DEAD): an original whose task exited still gets
 * copies in the children its children fork.
 *
 * Groups bound to a CPU other than the one the child starts on are not
 * copied at fork: the child gets slots for them, and copies when it first
 * runs on their CPU (lazy.c).
 *
 * Locking: fork runs in the parent and holds the parent context's mutex
 * while copying, with the context's rotate_disable set so that
 * multiplexing does not reorder the group lists it walks; the child's
 * context is private until the child is published.  Exit runs in the
 * exiting task, takes its context's mutex, and takes each original's
 * child_mutex to unlink a copy.  Release of an original takes each copy's
 * context mutex before its own child_mutex
 * (perf_free_event_children()), the same order.
 */
#include <linux/slab.h>
#include <linux/sched/task.h>

#include "internal.h"

/**
 * perf_inherit_event - copy an original event for a child
 * @orig: the original
 * @state: the copy's first state, PERF_EVENT_STATE_OFF or _INACTIVE
 * @enable_on_exec: the copy's attr.enable_on_exec
 * @child: the child task
 * @child_leader: the copy of the group's leader, or NULL for a leader
 * @child_ctx: the child's context, not yet published, or the current
 *	       task's own with its mutex held
 * @attach: add the copy to @child_ctx and to @orig's children now (a
 *	    context not yet published); otherwise the caller installs it
 *	    and links it (lazy.c)
 *
 * Return: the copy, NULL when @orig is being released, or an ERR_PTR.
 */
struct perf_event *perf_inherit_event(struct perf_event *orig, int state,
				      bool enable_on_exec,
				      struct task_struct *child,
				      struct perf_event *child_leader,
				      struct perf_event_context *child_ctx,
				      bool attach)
{
	struct perf_event_pmu_context *epc;
	struct perf_event *event;

	/* Copies go on after their original's task exits, not past close. */
	if (READ_ONCE(orig->state) == PERF_EVENT_STATE_DEAD)
		return NULL;
	if (!perf_event_get_ref(orig))
		return NULL;

	event = perf_event_alloc(&orig->attr, orig->cpu, child,
				 child_leader, orig, NULL, NULL);
	if (IS_ERR(event))
		return event;	/* freeing it dropped the reference on orig */

	epc = find_get_pmu_context(orig->pmu_ctx->pmu, child_ctx, event->cpu,
				   event->attach_state & PERF_ATTACH_TASK_DATA);
	if (IS_ERR(epc)) {
		free_event(event);	/* drops the reference on orig */
		return ERR_CAST(epc);
	}
	event->pmu_ctx = epc;
	get_ctx(child_ctx);
	event->ctx = child_ctx;

	event->state = state;
	event->attr.enable_on_exec = enable_on_exec;
	event->event_caps = orig->event_caps;
	event->hw.sample_period = orig->hw.sample_period;
	local64_set(&event->hw.period_left, event->hw.sample_period);
	event->overflow_handler = orig->overflow_handler;
	event->overflow_handler_context = orig->overflow_handler_context;
	perf_bpf_inherit(event, orig);
	perf_event_compute_sizes(event);
	if (!attach)
		return event;

	/*
	 * Under child_mutex, as perf_event_release_kernel() makes the
	 * original DEAD before it frees the children it finds listed: either
	 * it finds this copy, or the copy sees DEAD and goes.
	 */
	mutex_lock(&orig->child_mutex);
	if (orig->state == PERF_EVENT_STATE_DEAD) {
		mutex_unlock(&orig->child_mutex);
		free_event(event);
		return NULL;
	}
	raw_spin_lock_irq(&child_ctx->lock);
	list_add_event(event, child_ctx);
	perf_group_attach(event);
	raw_spin_unlock_irq(&child_ctx->lock);
	list_add_tail(&event->child_entry, &orig->child_list);
	mutex_unlock(&orig->child_mutex);
	return event;
}

/* A copy of @event, an original or a copy in the forking task. */
static struct perf_event *inherit_copy(struct perf_event *event,
				       struct task_struct *child,
				       struct perf_event *child_leader,
				       struct perf_event_context *child_ctx)
{
	struct perf_event *orig = event->parent ?: event;

	/* A copy being taken out at its task's exit is not copied. */
	if (event->state <= PERF_EVENT_STATE_EXIT)
		return NULL;
	/* The state is the forking task's event's, the attributes the original's. */
	return perf_inherit_event(orig, perf_copy_state(event),
				  orig->attr.enable_on_exec, child, child_leader,
				  child_ctx, true);
}

static int inherit_group(struct perf_event *leader, struct task_struct *child,
			 struct perf_event_context *child_ctx)
{
	struct perf_event *child_leader, *sibling, *copy;

	child_leader = inherit_copy(leader, child, NULL, child_ctx);
	if (IS_ERR_OR_NULL(child_leader))
		return PTR_ERR_OR_ZERO(child_leader);

	for_each_sibling_event(sibling, leader) {
		copy = inherit_copy(sibling, child, child_leader, child_ctx);
		if (IS_ERR(copy))
			return PTR_ERR(copy);
	}
	/* Group reads sum the copies only while the shapes still agree. */
	child_leader->group_generation = leader->group_generation;
	return 0;
}

static int inherit_groups(struct list_head *groups, u64 clone_flags,
			  struct task_struct *child,
			  struct perf_event_context **child_ctx)
{
	struct perf_event *leader;
	int err;

	list_for_each_entry(leader, groups, group_entry) {
		if (!perf_event_inherits_to(leader, clone_flags))
			continue;
		if (!*child_ctx) {
			*child_ctx = alloc_perf_context(child);
			if (!*child_ctx)
				return -ENOMEM;
		}
		err = inherit_group(leader, child, *child_ctx);
		if (err)
			return err;
	}
	return 0;
}

/*
 * The groups of one sub-context: those for any CPU, then those bound to
 * each CPU in CPU order, pinned before flexible in each.  Only @cpu's
 * bound groups are copied; the others get slots in the child (lazy.c).
 */
static int inherit_epc(struct perf_event_pmu_context *epc, u64 clone_flags,
		       struct task_struct *child,
		       struct perf_event_context **child_ctx, int cpu)
{
	struct perf_event *leader;
	int c, i, err;

	err = inherit_groups(&epc->pinned_groups, clone_flags, child, child_ctx);
	if (!err)
		err = inherit_groups(&epc->flexible_groups, clone_flags, child, child_ctx);
	for (c = 0; !err && epc->cpu_groups && c < nr_cpu_ids; c++) {
		for (i = 0; !err && i < 2; i++) {
			struct list_head *groups = &epc->cpu_groups[c].groups[i];

			if (c == cpu) {
				err = inherit_groups(groups, clone_flags, child,
						     child_ctx);
				continue;
			}
			list_for_each_entry(leader, groups, group_entry)
				if (perf_event_inherits_to(leader, clone_flags))
					perf_lazy_defer_group(leader, *child_ctx);
		}
	}
	return err;
}

/*
 * The CPU whose bound groups a child gets at once: the only one it may
 * run on, or else the one it is forked on, where it usually starts.
 */
static int first_cpu_of(struct task_struct *child)
{
	int cpu = cpumask_first(child->cpus_ptr);

	if (cpumask_next(cpu, child->cpus_ptr) < nr_cpu_ids)
		cpu = raw_smp_processor_id();
	return cpu;
}

/* Copies and slots of the parent's events; parent_ctx->mutex held. */
static int inherit_ctx(struct perf_event_context *parent_ctx, u64 clone_flags,
		       struct task_struct *child,
		       struct perf_event_context **child_ctx)
{
	struct perf_event_pmu_context *epc;
	int cpu = first_cpu_of(child);
	int n = perf_lazy_count(parent_ctx, clone_flags, cpu);
	int err;

	if (n) {
		*child_ctx = alloc_perf_context(child);
		if (!*child_ctx)
			return -ENOMEM;
		err = perf_lazy_alloc(*child_ctx, n);
		if (err)
			return err;
	}
	list_for_each_entry(epc, &parent_ctx->pmu_ctx_list, pmu_ctx_entry) {
		err = inherit_epc(epc, clone_flags, child, child_ctx, cpu);
		if (err)
			return err;
	}
	return perf_lazy_inherit_slots(parent_ctx, clone_flags, child,
				       child_ctx, cpu);
}

/**
 * perf_event_init_task - set up a new task's perf state at fork
 * @child: the new task, not yet running
 * @clone_flags: the clone flags
 *
 * Return: 0, or the error of the copy that failed.  On failure, what was
 * copied is undone here: copy_process() calls perf_event_free_task() only
 * for the steps after this one, and frees the task at once.
 */
int perf_event_init_task(struct task_struct *child, u64 clone_flags)
{
	struct perf_event_context *parent_ctx, *child_ctx = NULL;
	int err;

	memset(child->perf_recursion, 0, sizeof(child->perf_recursion));
	child->perf_event_ctxp = NULL;
	mutex_init(&child->perf_event_mutex);
	INIT_LIST_HEAD(&child->perf_event_list);

	rcu_read_lock();
	parent_ctx = READ_ONCE(current->perf_event_ctxp);
	if (parent_ctx && !refcount_inc_not_zero(&parent_ctx->refcount))
		parent_ctx = NULL;
	rcu_read_unlock();
	if (!parent_ctx)
		return 0;

	mutex_lock(&parent_ctx->mutex);
	/* Multiplexing would move groups under the walk (rotate.c). */
	raw_spin_lock_irq(&parent_ctx->lock);
	parent_ctx->rotate_disable = 1;
	raw_spin_unlock_irq(&parent_ctx->lock);
	err = inherit_ctx(parent_ctx, clone_flags, child, &child_ctx);
	raw_spin_lock_irq(&parent_ctx->lock);
	parent_ctx->rotate_disable = 0;
	raw_spin_unlock_irq(&parent_ctx->lock);
	mutex_unlock(&parent_ctx->mutex);
	put_ctx(parent_ctx);

	if (child_ctx)
		child->perf_event_ctxp = child_ctx;
	/*
	 * The copies made so far are on their originals' child lists and
	 * name the task: take them all back before the task is freed.
	 */
	if (err)
		perf_event_free_task(child);
	return err;
}

static void unlink_from_parent(struct perf_event *event)
{
	struct perf_event *parent = event->parent;

	mutex_lock(&parent->child_mutex);
	if (!list_empty(&event->child_entry)) {
		perf_event_sync_child(event);
		/* Lockless readers (has_copies()) see the sums once it is gone. */
		smp_mb__after_atomic();
		list_del_init(&event->child_entry);
	}
	mutex_unlock(&parent->child_mutex);
}

/**
 * perf_event_exit_event - end one event of a task's context
 * @event: the event
 * @ctx: its context, mutex held
 * @flags: extra DETACH_* flags for an original
 *
 * A copy gives its count to its original and is freed.  An original
 * becomes EXIT, keeps its final count and wakes its pollers; it stays in
 * its group (user space may still read the group) unless @flags says
 * otherwise.
 */
void perf_event_exit_event(struct perf_event *event,
			   struct perf_event_context *ctx, unsigned long flags)
{
	struct perf_event *parent = event->parent;

	if (parent) {
		/* inherit_stat: the copy's final count, as a READ record. */
		if (event->attr.inherit_stat && ctx->task != TASK_TOMBSTONE)
			perf_event_read_record(event, ctx->task);
		perf_remove_from_context(event, DETACH_GROUP | DETACH_EXIT);
		unlink_from_parent(event);
		/* Its original may be waiting for the last copy to go. */
		perf_event_wakeup(parent);
		/* The copy's reference was its context's. */
		put_event(event);
		return;
	}

	perf_remove_from_context(event, flags | DETACH_EXIT);
	perf_event_wakeup(event);
}

static void perf_event_exit_task_context(struct task_struct *task, bool exiting)
{
	struct perf_cpu_context *cpuctx;
	struct perf_event_context *ctx;
	struct perf_event *event, *tmp;

	mutex_lock(&task->perf_event_mutex);
	ctx = task->perf_event_ctxp;
	if (!ctx) {
		mutex_unlock(&task->perf_event_mutex);
		return;
	}

	/* Those watching the task hear of its end while they still can. */
	if (exiting)
		perf_event_task_record(task, ctx, false);

	mutex_lock(&ctx->mutex);
	local_irq_disable();
	cpuctx = this_cpu_ptr(&perf_cpu_context);
	perf_ctx_lock(cpuctx, ctx);
	if (exiting && cpuctx->task_ctx == ctx)
		perf_ctx_deactivate(cpuctx, ctx);
	WRITE_ONCE(task->perf_event_ctxp, NULL);
	WRITE_ONCE(ctx->task, TASK_TOMBSTONE);
	perf_ctx_unlock(cpuctx, ctx);
	local_irq_enable();
	/* The context's task reference; ctx->task no longer names it. */
	put_task_struct(task);
	mutex_unlock(&task->perf_event_mutex);

	perf_lazy_exit(ctx, task);
	list_for_each_entry_safe(event, tmp, &ctx->event_list, event_entry)
		perf_event_exit_event(event, ctx, 0);
	mutex_unlock(&ctx->mutex);

	put_ctx(ctx);	/* the task's reference */
}

/**
 * perf_event_exit_task - the current task is exiting
 * @child: the exiting task (current)
 *
 * Its own events lose their owner; the events watching it end.
 */
void perf_event_exit_task(struct task_struct *child)
{
	struct perf_event *event, *tmp;

	mutex_lock(&child->perf_event_mutex);
	list_for_each_entry_safe(event, tmp, &child->perf_event_list, owner_entry) {
		list_del_init(&event->owner_entry);
		/* Readers of ->owner under RCU see the unlink before NULL. */
		smp_store_release(&event->owner, NULL);
	}
	mutex_unlock(&child->perf_event_mutex);

	perf_event_exit_task_context(child, true);
	/* CPU-wide events hear of every exit. */
	perf_event_task_record(child, NULL, false);
}

/**
 * perf_event_free_task - undo perf_event_init_task() of a failed fork
 * @task: the task that never ran
 */
void perf_event_free_task(struct task_struct *task)
{
	perf_event_exit_task_context(task, false);
}

/**
 * perf_event_delayed_put - last check when a task struct is freed
 * @task: the task
 */
void perf_event_delayed_put(struct task_struct *task)
{
	WARN_ON_ONCE(task->perf_event_ctxp);
}

/**
 * perf_free_event_children - free every copy of an original being released
 * @event: the original
 */
void perf_free_event_children(struct perf_event *event)
{
	struct perf_event_context *ctx;
	struct perf_event *child;

	if (!perf_event_can_have_copies(event))
		return;
	/* Slots first: a copy made in the meantime is then on the list. */
	perf_lazy_release(event);
	for (;;) {
		mutex_lock(&event->child_mutex);
		child = list_first_entry_or_null(&event->child_list,
						 struct perf_event, child_entry);
		if (!child) {
			mutex_unlock(&event->child_mutex);
			return;
		}
		/* Listed copies hold their context's reference: not zero. */
		WARN_ON_ONCE(!perf_event_get_ref(child));
		ctx = child->ctx;
		get_ctx(ctx);
		mutex_unlock(&event->child_mutex);

		mutex_lock(&ctx->mutex);
		mutex_lock(&event->child_mutex);
		if (!list_empty(&child->child_entry)) {
			list_del_init(&child->child_entry);
			mutex_unlock(&event->child_mutex);
			perf_remove_from_context(child, DETACH_GROUP);
			mutex_unlock(&ctx->mutex);
			put_event(child);	/* the context's reference */
		} else {
			/* Its task exited and took care of it meanwhile. */
			mutex_unlock(&event->child_mutex);
			mutex_unlock(&ctx->mutex);
		}
		put_event(child);
		put_ctx(ctx);
	}
}

/*
 * Events with remove_on_exec end at exec, as if the task had exited for
 * them, and leave their group.  They must also leave their owner's list
 * (prctl no longer reaches them), but the owner's mutex nests outside
 * ctx->mutex: they are collected on @gone (through migrate_entry, which
 * nothing else uses on a task context's event) with a reference, for the
 * caller to unlink once it has dropped ctx->mutex.
 */
static void perf_event_remove_on_exec(struct perf_event_context *ctx,
				      struct list_head *gone)
{
	struct perf_event *event, *tmp;

	list_for_each_entry_safe(event, tmp, &ctx->event_list, event_entry) {
		if (!event->attr.remove_on_exec)
			continue;
		if (!event->parent && perf_event_get_ref(event))
			list_add_tail(&event->migrate_entry, gone);
		perf_event_exit_event(event, ctx, DETACH_GROUP);
	}
}

/**
 * perf_event_exec - the current task has exec'd a new program
 *
 * Events opened with enable_on_exec start counting now; those opened with
 * remove_on_exec end.
 */
void perf_event_exec(void)
{
	struct perf_event *event, *tmp;
	struct perf_event_context *ctx;
	LIST_HEAD(gone);

	mutex_lock(&current->perf_event_mutex);
	ctx = current->perf_event_ctxp;
	if (ctx)
		get_ctx(ctx);
	mutex_unlock(&current->perf_event_mutex);
	if (!ctx)
		return;

	mutex_lock(&ctx->mutex);
	perf_event_remove_on_exec(ctx, &gone);
	perf_lazy_exec(ctx);
	perf_event_enable_on_exec_ctx(ctx);
	mutex_unlock(&ctx->mutex);
	put_ctx(ctx);

	list_for_each_entry_safe(event, tmp, &gone, migrate_entry) {
		list_del_init(&event->migrate_entry);
		perf_event_drop_owner(event);
		put_event(event);
	}
}
