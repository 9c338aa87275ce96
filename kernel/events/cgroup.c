// SPDX-License-Identifier: GPL-2.0
/*
 * cgroup events: the perf_event controller, and CPU events that count only
 * while a task of one cgroup, or of a cgroup below it, runs.
 *
 * An event opened with PERF_FLAG_PID_CGROUP is a CPU event like any other:
 * it lives in its CPU's context, and holds a reference on its cgroup
 * (event->cgrp) from perf_cgroup_connect() until it is freed.  While a CPU
 * context has such events (ctx->nr_cgroups), cpuctx->cgrp is the perf
 * cgroup of the task that runs there, and event_filter_match() lets a
 * cgroup event count only when cpuctx->cgrp is its cgroup or lies below
 * it.  A context switch between tasks of different cgroups, and the move
 * of a running task to another cgroup, schedule the PMUs that have cgroup
 * events afresh (perf_cgroup_switch()).
 *
 * Time: each cgroup has a clock on each CPU (struct perf_cgroup_info) that
 * runs while the cgroup is on the path from cpuctx->cgrp up to the root.
 * A cgroup event's time_enabled and time_running are measured on its
 * cgroup's clock instead of the context's (perf_event_time()), so they
 * grow only while a task of the cgroup ran on the event's CPU.
 *
 * Locking: cpuctx->cgrp, the clocks of a CPU and the nr_cgroups counts
 * change on their CPU with interrupts off and cpuctx->ctx.lock held; the
 * only exception is a CPU that is offline, whose context is changed under
 * its lock from elsewhere.  The controller's callbacks run in process
 * context under cgroup_mutex.
 *
 * Lifetime: cpuctx->cgrp holds no reference.  It is the cgroup of a task
 * that runs on that CPU, or ran there last, and that task's css_set keeps
 * the css alive until the task is freed, which is after its last switch
 * out has moved cpuctx->cgrp on to the next task's cgroup.  A CPU that
 * went offline keeps the cgroup of its idle task, the root.
 *
 * Group lists: a cgroup's lists on a CPU (perf_cgroup_info.groups) hold
 * leaders of that CPU's context only.  Like a sub-context's lists they
 * change with the context's mutex and lock held, and are walked with the
 * lock held.  Each leader holds its cgroup through event->cgrp, so a
 * cgroup with groups on a list outlives them; the walk from cpuctx->cgrp
 * up to the root takes no reference either, since a css keeps its
 * parents alive.  group_seq is handed out under the same context lock.
 */
#include <linux/cgroup.h>
#include <linux/file.h>
#include <linux/slab.h>

#include "internal.h"

static inline struct perf_cgroup *css_perf(struct cgroup_subsys_state *css)
{
	return container_of(css, struct perf_cgroup, css);
}

/*
 * Bring the clocks of @cgrp and its ancestors on @cpu up to @now, and turn
 * them on or off (@on < 0: leave them as they are).
 */
static void cgrp_clocks(struct perf_cgroup *cgrp, int cpu, u64 now, int on)
{
	struct cgroup_subsys_state *css;

	for (css = &cgrp->css; css; css = css->parent) {
		struct perf_cgroup_info *info = per_cpu_ptr(css_perf(css)->info, cpu);

		if (info->active)
			info->time += now - info->timestamp;
		info->timestamp = now;
		if (on >= 0)
			info->active = on;
	}
}

/**
 * perf_cgroup_update_time - advance the clocks of this CPU's cgroup path
 * @ctx: a CPU context with cgroup events, locked, live
 * @now: the time the context clock was advanced to
 */
void perf_cgroup_update_time(struct perf_event_context *ctx, u64 now)
{
	struct perf_cpu_context *cpuctx = container_of(ctx, struct perf_cpu_context, ctx);

	if (cpuctx == this_cpu_ptr(&perf_cpu_context) && cpuctx->cgrp)
		cgrp_clocks(cpuctx->cgrp, smp_processor_id(), now, -1);
}

/**
 * perf_cgroup_event_time - the clock a cgroup event's times are kept on
 * @event: an event with a cgroup, bound to a CPU
 *
 * Return: its cgroup's time on its CPU, as last brought up to date.
 */
u64 perf_cgroup_event_time(struct perf_event *event)
{
	return per_cpu_ptr(event->cgrp->info, event->cpu)->time;
}

/**
 * perf_cgroup_event_time_now - a cgroup event's clock as of @now, lock-free
 * @event: an event with a cgroup, bound to a CPU
 * @now: perf_clock() now
 *
 * Return: the time perf_cgroup_event_time() would give after an update.
 */
u64 perf_cgroup_event_time_now(struct perf_event *event, u64 now)
{
	struct perf_cgroup_info *info = per_cpu_ptr(event->cgrp->info, event->cpu);
	u64 t = READ_ONCE(info->time);

	if (READ_ONCE(info->active))
		t += now - READ_ONCE(info->timestamp);
	return t;
}

/**
 * perf_cgroup_match - whether a cgroup event may count now
 * @event: an event with a cgroup, on this CPU
 *
 * Return: true if the task running here is in the event's cgroup or in
 * one below it.
 */
bool perf_cgroup_match(struct perf_event *event)
{
	struct perf_cgroup *cur = this_cpu_ptr(&perf_cpu_context)->cgrp;

	return cur && cgroup_is_descendant(cur->css.cgroup, event->cgrp->css.cgroup);
}

/**
 * perf_cgroup_group_list - the list a cgroup group's leader belongs on
 * @event: the leader, a cgroup event
 *
 * Return: its cgroup's pinned or flexible list on its CPU.
 */
struct list_head *perf_cgroup_group_list(struct perf_event *event)
{
	struct perf_cgroup_info *info = per_cpu_ptr(event->cgrp->info, event->cpu);

	return &info->groups[!event->attr.pinned];
}

/**
 * perf_cgroup_iter_fill - add the next cgroup lists of the path to a walk
 * @it: the walk, its lists from @it->nr on free
 *
 * Takes non-empty lists of the cgroups from @it->next_css up, until @it
 * is full or the path ends, and starts every list of @it from its head.
 */
void perf_cgroup_iter_fill(struct perf_group_iter *it)
{
	int cpu = smp_processor_id(), i;

	while (it->next_css && it->nr < PERF_GROUP_ITER_LISTS) {
		struct perf_cgroup_info *info =
			per_cpu_ptr(css_perf(it->next_css)->info, cpu);

		if (!list_empty(&info->groups[it->kind]))
			it->head[it->nr++] = &info->groups[it->kind];
		it->next_css = it->next_css->parent;
	}
	for (i = 0; i < it->nr; i++)
		it->pos[i] = it->head[i]->next;
}

/**
 * perf_cgroup_iter_start - start a walk of the groups that may run here
 * @it: the walk
 * @epc: a sub-context of this CPU's context, locked
 * @pinned: its pinned groups, else its flexible ones
 *
 * The walk covers @epc's own list and, for each cgroup from the running
 * task's up to the root, the groups of that cgroup on this CPU: the cost
 * grows with the groups that can run, not with those of other cgroups.
 * Lists are merged in group_seq order, which is creation order with
 * multiplexing's moves; past PERF_GROUP_ITER_LISTS non-empty lists on
 * the path, the rest follow in a merge of their own.
 *
 * Return: false when @epc's own list is all there is to walk (no cgroup
 * events here); @it is then unused.
 */
bool perf_cgroup_iter_start(struct perf_group_iter *it,
			    struct perf_event_pmu_context *epc, bool pinned)
{
	struct perf_cgroup *cgrp;

	if (!epc->nr_cgroups)
		return false;
	cgrp = this_cpu_ptr(&perf_cpu_context)->cgrp;
	if (!cgrp)
		return false;
	it->epc = epc;
	it->kind = !pinned;
	it->head[0] = pinned ? &epc->pinned_groups : &epc->flexible_groups;
	it->nr = 1;
	it->next_css = &cgrp->css;
	perf_cgroup_iter_fill(it);
	return true;
}

/**
 * perf_cgroup_event_add - account a cgroup event joining a CPU context
 * @event: the event; nothing happens unless it has a cgroup
 * @ctx: its CPU's context, locked
 *
 * The first one starts the clocks of the cgroup path of the task running
 * there.  A context of a CPU that is offline waits for the first context
 * switch there instead.
 */
void perf_cgroup_event_add(struct perf_event *event, struct perf_event_context *ctx)
{
	struct perf_cpu_context *cpuctx = container_of(ctx, struct perf_cpu_context, ctx);

	if (!event->cgrp)
		return;
	event->pmu_ctx->nr_cgroups++;
	if (ctx->nr_cgroups++ || cpuctx != this_cpu_ptr(&perf_cpu_context))
		return;
	cpuctx->cgrp = perf_cgroup_from_task(current, ctx);
	cgrp_clocks(cpuctx->cgrp, smp_processor_id(), perf_clock(), 1);
}

/**
 * perf_cgroup_event_del - account a cgroup event leaving a CPU context
 * @event: the event; nothing happens unless it has a cgroup
 * @ctx: its CPU's context, locked
 *
 * The last one stops the clocks.
 */
void perf_cgroup_event_del(struct perf_event *event, struct perf_event_context *ctx)
{
	struct perf_cpu_context *cpuctx = container_of(ctx, struct perf_cpu_context, ctx);

	if (!event->cgrp)
		return;
	event->pmu_ctx->nr_cgroups--;
	if (--ctx->nr_cgroups)
		return;
	if (cpuctx->cgrp)
		cgrp_clocks(cpuctx->cgrp, event->cpu, perf_clock(), 0);
	cpuctx->cgrp = NULL;
}

/**
 * perf_cgroup_switch - follow the cgroup of the task about to run here
 * @next: the task; its cgroup is looked at under RCU or the rq lock
 *
 * Called with interrupts off, after the outgoing task's context left the
 * CPU, or from an IPI when the running task changed cgroups.  The PMUs
 * with cgroup events are scheduled afresh, with the live task context's
 * groups in their proper order; the others are not touched.
 */
void perf_cgroup_switch(struct task_struct *next)
{
	struct perf_cpu_context *cpuctx = this_cpu_ptr(&perf_cpu_context);
	struct perf_event_context *task_ctx = cpuctx->task_ctx;
	struct perf_event_pmu_context *epc;
	struct perf_cgroup *cgrp;
	int cpu = smp_processor_id();
	u64 now;

	cgrp = perf_cgroup_from_task(next, NULL);
	if (READ_ONCE(cpuctx->cgrp) == cgrp)
		return;

	perf_ctx_lock(cpuctx, task_ctx);
	if (!cpuctx->ctx.nr_cgroups || cpuctx->cgrp == cgrp)
		goto unlock;

	/* Everything that moves below moves at one instant. */
	update_context_time(&cpuctx->ctx);
	if (task_ctx)
		update_context_time(task_ctx);
	now = perf_clock();
	if (cpuctx->cgrp)
		cgrp_clocks(cpuctx->cgrp, cpu, now, 0);
	list_for_each_entry(epc, &cpuctx->ctx.pmu_ctx_list, pmu_ctx_entry) {
		if (epc->nr_cgroups)
			pmu_ctx_sched_out(epc, EVENT_ALL);
	}
	cpuctx->cgrp = cgrp;
	cgrp_clocks(cgrp, cpu, now, 1);
	list_for_each_entry(epc, &cpuctx->ctx.pmu_ctx_list, pmu_ctx_entry) {
		if (epc->nr_cgroups)
			perf_ctx_resched(cpuctx, task_ctx, epc->pmu, EVENT_PINNED);
	}
unlock:
	perf_ctx_unlock(cpuctx, task_ctx);
}

/**
 * perf_cgroup_connect - scope a new CPU event to a cgroup
 * @fd: a file descriptor of the cgroup's directory
 * @event: the event, not yet installed
 * @leader: its group leader, or NULL; a group lives in one cgroup
 *
 * Return: 0, -EBADF if @fd is not an open cgroup directory, -ENOENT if the
 * cgroup is going away, -EINVAL if @leader counts in another cgroup.
 */
int perf_cgroup_connect(int fd, struct perf_event *event, struct perf_event *leader)
{
	struct cgroup_subsys_state *css;
	struct fd f = fdget(fd);

	if (!fd_file(f))
		return -EBADF;
	css = css_tryget_online_from_dir(fd_file(f)->f_path.dentry,
					 &perf_event_cgrp_subsys);
	fdput(f);
	if (IS_ERR(css))
		return PTR_ERR(css);
	if (leader && leader->cgrp != css_perf(css)) {
		css_put(css);
		return -EINVAL;
	}
	event->cgrp = css_perf(css);
	/* The context switch hooks follow the cgroup of each task. */
	if (!(event->attach_state & PERF_ATTACH_SCHED_EVENTS)) {
		perf_sched_events_inc();
		event->attach_state |= PERF_ATTACH_SCHED_EVENTS;
	}
	return 0;
}

/**
 * perf_cgroup_detach - drop an event's cgroup reference
 * @event: the event, being freed
 */
void perf_cgroup_detach(struct perf_event *event)
{
	if (!event->cgrp)
		return;
	css_put(&event->cgrp->css);
	event->cgrp = NULL;
}

/**
 * perf_cgroup_sample_id - the cgroup id of PERF_SAMPLE_CGROUP
 *
 * Return: the id of the perf cgroup of the current task; any context.
 */
u64 perf_cgroup_sample_id(void)
{
	u64 id;

	rcu_read_lock();
	id = cgroup_id(task_css(current, perf_event_cgrp_id)->cgroup);
	rcu_read_unlock();
	return id;
}

/* ---- the controller ---- */

static struct cgroup_subsys_state *
perf_cgroup_css_alloc(struct cgroup_subsys_state *parent_css)
{
	struct perf_cgroup *pc;
	int cpu;

	pc = kzalloc(sizeof(*pc), GFP_KERNEL);
	if (!pc)
		return ERR_PTR(-ENOMEM);
	pc->info = alloc_percpu(struct perf_cgroup_info);
	if (!pc->info) {
		kfree(pc);
		return ERR_PTR(-ENOMEM);
	}
	for_each_possible_cpu(cpu) {
		struct perf_cgroup_info *info = per_cpu_ptr(pc->info, cpu);

		INIT_LIST_HEAD(&info->groups[0]);
		INIT_LIST_HEAD(&info->groups[1]);
	}
	return &pc->css;
}

static void perf_cgroup_css_free(struct cgroup_subsys_state *css)
{
	struct perf_cgroup *pc = css_perf(css);

	free_percpu(pc->info);
	kfree(pc);
}

static int perf_cgroup_css_online(struct cgroup_subsys_state *css)
{
	perf_event_cgroup_record(css->cgroup);
	return 0;
}

/* On the moved task's CPU, interrupts off. */
static void perf_cgroup_move(void *arg)
{
	struct task_struct *task = arg;

	if (task == current)
		perf_cgroup_switch(task);
}

/*
 * A task that runs while it changes cgroups has its CPU follow it now; one
 * that does not is followed at its next switch in.
 */
static void perf_cgroup_attach(struct cgroup_taskset *tset)
{
	struct cgroup_subsys_state *css;
	struct task_struct *task;

	cgroup_taskset_for_each(task, css, tset) {
		if (task_curr(task))
			smp_call_function_single(task_cpu(task), perf_cgroup_move,
						 task, 1);
	}
}

struct cgroup_subsys perf_event_cgrp_subsys = {
	.css_alloc	= perf_cgroup_css_alloc,
	.css_free	= perf_cgroup_css_free,
	.css_online	= perf_cgroup_css_online,
	.attach		= perf_cgroup_attach,
	/* On in every cgroup of the default hierarchy, as upstream has it. */
	.implicit_on_dfl = true,
	.threaded	= true,
};
