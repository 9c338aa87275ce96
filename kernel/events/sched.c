// SPDX-License-Identifier: GPL-2.0
/*
 * Putting groups onto PMUs and taking them off again; time accounting; the
 * context switch hooks; enable, disable, reset and period changes.
 *
 * Locking and context:
 *  - Every function that touches a live context runs on that context's CPU
 *    with interrupts disabled, holding cpuctx->ctx.lock and, for a task
 *    context, the task context's lock (perf_ctx_lock()).  The PMU callbacks
 *    add/del/start/stop/read are only ever called that way.
 *  - A context that is not live (its task is not running, or it has no
 *    events) is changed under its lock alone, from any CPU.
 *  - Membership of the group lists is changed only with ctx->mutex held as
 *    well, so that a holder of the mutex can walk them and sleep.
 *
 * Time: ctx->time advances while the context is live (is_active has
 * EVENT_TIME).  An event's totals are brought up to date at every state
 * change: time_enabled grows while the state is INACTIVE or ACTIVE,
 * time_running while it is ACTIVE.  The context clocks are advanced once,
 * on entry to a locked section (a context switch, a remote call, a read,
 * a rotation) and not inside it, so that every state change made in one
 * section happens at one instant: an event enabled and scheduled in
 * within a section never shows enabled time without running time.
 *
 * Order of scheduling on a CPU, per PMU: the CPU's pinned groups, the
 * task's pinned groups, the CPU's flexible groups, the task's flexible
 * groups.  A pinned group that does not fit goes to the ERROR state; a
 * flexible one that does not fit waits for the multiplexing timer.
 * Groups made only of software events always fit, so changes that concern
 * them never reschedule anything else.
 */
#include <linux/sched/clock.h>
#include <linux/workqueue.h>

#include "internal.h"

/**
 * update_context_time - advance a live context's clock to now
 * @ctx: the context, locked
 */
void update_context_time(struct perf_event_context *ctx)
{
	u64 now;

	if (!(ctx->is_active & EVENT_TIME))
		return;
	now = perf_clock();
	ctx->time += now - ctx->timestamp;
	ctx->timestamp = now;
#ifdef CONFIG_CGROUP_PERF
	if (ctx->nr_cgroups && !ctx->task)
		perf_cgroup_update_time(ctx, now);
#endif
}

/*
 * A sibling counts as disabled while its leader is: a group that cannot
 * run accrues no time in any member, whatever each member's own state.
 */
static enum perf_event_state effective_state(struct perf_event *event)
{
	struct perf_event *leader = event->group_leader;

	if (leader != event && leader->state <= PERF_EVENT_STATE_OFF)
		return leader->state;
	return event->state;
}

static __always_inline void update_time(struct perf_event *event)
{
	enum perf_event_state state = effective_state(event);
	u64 now = perf_event_time(event);
	u64 delta = now - event->tstamp;

	if (state >= PERF_EVENT_STATE_INACTIVE)
		event->total_time_enabled += delta;
	if (state == PERF_EVENT_STATE_ACTIVE)
		event->total_time_running += delta;
	event->tstamp = now;
}

/**
 * perf_event_update_time - bring time_enabled and time_running up to date
 * @event: the event, its context locked (or not yet published)
 */
void perf_event_update_time(struct perf_event *event)
{
	update_time(event);
}

/**
 * perf_event_set_state - change an event's state, settling its times first
 * @event: the event, its context locked
 * @state: the new state
 *
 * A leader that becomes enabled or disabled changes how its siblings
 * accrue time, so theirs are settled first too.
 */
void perf_event_set_state(struct perf_event *event, enum perf_event_state state)
{
	struct perf_event *sibling;
	bool was_enabled, now_enabled;

	if (event->state == state)
		return;
	update_time(event);
	was_enabled = event->state >= PERF_EVENT_STATE_INACTIVE;
	now_enabled = state >= PERF_EVENT_STATE_INACTIVE;
	if (event->group_leader == event && was_enabled != now_enabled) {
		list_for_each_entry(sibling, &event->sibling_list, sibling_list)
			perf_event_update_time(sibling);
	}
	WRITE_ONCE(event->state, state);
}

/**
 * event_filter_match - whether an event may count on the current CPU
 * @event: the event
 */
bool event_filter_match(struct perf_event *event)
{
	int cpu = smp_processor_id();

	if (event->cpu != -1 && event->cpu != cpu)
		return false;
	if (event->pmu->filter && event->pmu->filter(event->pmu, cpu))
		return false;
	if (perf_event_has_cgroup(event) && !perf_cgroup_match(event))
		return false;
	return true;
}

static struct perf_cpu_pmu_context *epc_cpc(struct perf_event_pmu_context *epc)
{
	return this_cpc(epc->pmu);
}

static int event_sched_in(struct perf_event *event,
			  struct perf_event_pmu_context *epc)
{
	if (event->state <= PERF_EVENT_STATE_OFF)
		return 0;
	/* Added twice, a PMU would count it twice (or corrupt its lists). */
	if (WARN_ON_ONCE(event->state == PERF_EVENT_STATE_ACTIVE))
		return 0;

	WRITE_ONCE(event->oncpu, smp_processor_id());
	perf_event_set_state(event, PERF_EVENT_STATE_ACTIVE);
	/* Throttling lasts a tick of the CPU it happened on: not past here. */
	if (unlikely(perf_event_throttled(event)))
		perf_event_unthrottle(event, false);
	perf_event_itrace_start(event);
	if (event->pmu->add(event, PERF_EF_START)) {
		perf_event_set_state(event, PERF_EVENT_STATE_INACTIVE);
		WRITE_ONCE(event->oncpu, -1);
		return -EAGAIN;
	}
	if (!is_software_event(event))
		epc_cpc(epc)->active_oncpu++;
	if (event->attr.exclusive)
		epc_cpc(epc)->exclusive = 1;
	return 0;
}

/**
 * event_sched_out - take one event off its PMU
 * @event: the event; nothing happens unless it is ACTIVE
 * @epc: the sub-context its group lives in
 */
void event_sched_out(struct perf_event *event, struct perf_event_pmu_context *epc)
{
	enum perf_event_state state = PERF_EVENT_STATE_INACTIVE;

	if (event->state != PERF_EVENT_STATE_ACTIVE)
		return;

	event->pmu->del(event, 0);
	WRITE_ONCE(event->oncpu, -1);
	if (event->pending_disable) {
		event->pending_disable = 0;
		state = PERF_EVENT_STATE_OFF;
	}
	perf_event_set_state(event, state);
	if (!is_software_event(event))
		epc_cpc(epc)->active_oncpu--;
	if (event->attr.exclusive)
		epc_cpc(epc)->exclusive = 0;
}

/* group_sched_out() with the PMU already disabled by the caller. */
static void __group_sched_out(struct perf_event *group,
			      struct perf_event_pmu_context *epc)
{
	struct perf_event *sibling;

	if (group->state != PERF_EVENT_STATE_ACTIVE)
		return;

	event_sched_out(group, epc);
	list_for_each_entry(sibling, &group->sibling_list, sibling_list)
		event_sched_out(sibling, epc);
	list_del_init(&group->active_list);
}

/**
 * group_sched_out - take a whole group off its PMU
 * @group: the group leader
 * @epc: its sub-context
 */
void group_sched_out(struct perf_event *group, struct perf_event_pmu_context *epc)
{
	perf_pmu_disable(epc->pmu);
	__group_sched_out(group, epc);
	perf_pmu_enable(epc->pmu);
}

static int group_sched_in(struct perf_event *group,
			  struct perf_event_pmu_context *epc)
{
	struct perf_event *sibling, *failed = NULL;
	struct pmu *pmu = epc->pmu;

	if (group->state <= PERF_EVENT_STATE_OFF)
		return 0;

	/* An event alone is its own transaction: add() checks that it fits. */
	if (!group->nr_siblings) {
		if (event_sched_in(group, epc))
			return -EAGAIN;
		goto added;
	}

	pmu->start_txn(pmu, PERF_PMU_TXN_ADD);
	if (event_sched_in(group, epc)) {
		pmu->cancel_txn(pmu);
		return -EAGAIN;
	}
	list_for_each_entry(sibling, &group->sibling_list, sibling_list) {
		if (event_sched_in(sibling, epc)) {
			failed = sibling;
			break;
		}
	}
	if (!failed && !pmu->commit_txn(pmu))
		goto added;

	/* Undo what went on, in order, up to the member that failed. */
	list_for_each_entry(sibling, &group->sibling_list, sibling_list) {
		if (sibling == failed)
			break;
		event_sched_out(sibling, epc);
	}
	event_sched_out(group, epc);
	pmu->cancel_txn(pmu);
	return -EAGAIN;

added:
	list_add_tail(&group->active_list, group->attr.pinned ?
		      &epc->pinned_active : &epc->flexible_active);
	return 0;
}

static bool group_can_go_on(struct perf_event *group,
			    struct perf_event_pmu_context *epc, bool can_add_hw)
{
	struct perf_cpu_pmu_context *cpc;

	if (group->group_caps & PERF_EV_CAP_SOFTWARE)
		return true;
	cpc = epc_cpc(epc);
	if (cpc->exclusive)
		return false;
	/*
	 * As upstream's: an exclusive group waits for the groups of its
	 * own kind (pinned or flexible) of its own context to be off,
	 * not for other contexts' events, such as a CPU's NMI watchdog
	 * beside a task's group.  Once on, it keeps every other hardware
	 * group of the PMU off this CPU.
	 */
	if (group->attr.exclusive &&
	    !list_empty(group->attr.pinned ? &epc->pinned_active :
					     &epc->flexible_active))
		return false;
	return can_add_hw;
}

/*
 * One group's turn to go on: a pinned group that does not fit goes to the
 * ERROR state; a flexible one waits for multiplexing, and no flexible group
 * after it takes a hardware counter (*@can_add_hw).
 */
static __always_inline void group_turn(struct perf_event *group,
				       struct perf_event_pmu_context *epc,
				       bool pinned, bool *can_add_hw)
{
	if (group->state != PERF_EVENT_STATE_INACTIVE)
		return;
	if (!event_filter_match(group))
		return;
	if (group_can_go_on(group, epc, *can_add_hw) && !group_sched_in(group, epc))
		return;

	/* No room on the PMU for this group. */
	if (pinned) {
		perf_event_set_state(group, PERF_EVENT_STATE_ERROR);
		return;
	}
	*can_add_hw = false;
	epc->rotate_necessary = 1;
	perf_mux_hrtimer_restart(epc_cpc(epc));
}

/**
 * pmu_groups_sched_in - put a sub-context's groups of one kind on its PMU
 * @epc: the sub-context, live on this CPU
 * @pinned: the pinned groups, else the flexible ones
 */
void pmu_groups_sched_in(struct perf_event_pmu_context *epc, bool pinned)
{
	struct list_head *groups = pinned ? &epc->pinned_groups : &epc->flexible_groups;
	struct perf_group_iter it;
	struct perf_event *group;
	bool can_add_hw = true;

	if (perf_group_iter_start(&it, epc, pinned)) {
		while ((group = perf_group_iter_next(&it)))
			group_turn(group, epc, pinned, &can_add_hw);
		return;
	}
	list_for_each_entry(group, groups, group_entry)
		group_turn(group, epc, pinned, &can_add_hw);
}

/**
 * pmu_ctx_sched_out - take a sub-context's active groups off its PMU
 * @epc: the sub-context, live on this CPU
 * @event_type: EVENT_PINNED and/or EVENT_FLEXIBLE
 */
void pmu_ctx_sched_out(struct perf_event_pmu_context *epc,
		       enum event_type_t event_type)
{
	struct perf_event *group, *tmp;

	if (!perf_pmu_ctx_is_active(epc))
		goto done;

	perf_pmu_disable(epc->pmu);
	if (event_type & EVENT_PINNED) {
		list_for_each_entry_safe(group, tmp, &epc->pinned_active, active_list)
			__group_sched_out(group, epc);
	}
	if (event_type & EVENT_FLEXIBLE) {
		list_for_each_entry_safe(group, tmp, &epc->flexible_active, active_list)
			__group_sched_out(group, epc);
	}
	perf_pmu_enable(epc->pmu);
done:
	if (event_type & EVENT_FLEXIBLE)
		epc->rotate_necessary = 0;
}

static void pmu_ctx_sched_in(struct perf_event_pmu_context *epc,
			     enum event_type_t event_type)
{
	perf_pmu_disable(epc->pmu);
	if (event_type & EVENT_PINNED)
		pmu_groups_sched_in(epc, true);
	if (event_type & EVENT_FLEXIBLE)
		pmu_groups_sched_in(epc, false);
	perf_pmu_enable(epc->pmu);
}

/**
 * ctx_sched_out - take a live context's groups off their PMUs
 * @ctx: the context, locked, on its CPU
 * @pmu: only this PMU's groups, or NULL for all
 * @event_type: EVENT_PINNED and/or EVENT_FLEXIBLE
 *
 * With @pmu NULL the context also stops being live for @event_type; with a
 * PMU given this is the first half of a reschedule and the context stays
 * live.
 */
void ctx_sched_out(struct perf_event_context *ctx, struct pmu *pmu,
		   enum event_type_t event_type)
{
	struct perf_event_pmu_context *epc;

	if (!ctx->is_active)
		return;

	update_context_time(ctx);
	if (!pmu) {
		ctx->is_active &= ~(event_type & EVENT_ALL);
		if (!(ctx->is_active & EVENT_ALL))
			ctx->is_active = 0;
	}
	list_for_each_entry(epc, &ctx->pmu_ctx_list, pmu_ctx_entry) {
		if (pmu && epc->pmu != pmu)
			continue;
		pmu_ctx_sched_out(epc, event_type);
	}
}

/**
 * ctx_sched_in - put a context's groups of one kind onto their PMUs
 * @ctx: the context, locked, on its CPU
 * @pmu: only this PMU's groups, or NULL for all
 * @event_type: EVENT_PINNED and/or EVENT_FLEXIBLE
 */
void ctx_sched_in(struct perf_event_context *ctx, struct pmu *pmu,
		  enum event_type_t event_type)
{
	struct perf_event_pmu_context *epc;

	if (!(ctx->is_active & EVENT_TIME))
		ctx->timestamp = perf_clock();
	ctx->is_active |= (event_type & EVENT_ALL) | EVENT_TIME;

	list_for_each_entry(epc, &ctx->pmu_ctx_list, pmu_ctx_entry) {
		if (pmu && epc->pmu != pmu)
			continue;
		pmu_ctx_sched_in(epc, event_type);
	}
}

/* The standard order: CPU pinned, task pinned, CPU flexible, task flexible. */
static void perf_event_sched_in(struct perf_cpu_context *cpuctx,
				struct perf_event_context *task_ctx,
				struct pmu *pmu)
{
	if (cpuctx->ctx.is_active)
		ctx_sched_in(&cpuctx->ctx, pmu, EVENT_PINNED);
	if (task_ctx)
		ctx_sched_in(task_ctx, pmu, EVENT_PINNED);
	if (cpuctx->ctx.is_active)
		ctx_sched_in(&cpuctx->ctx, pmu, EVENT_FLEXIBLE);
	if (task_ctx)
		ctx_sched_in(task_ctx, pmu, EVENT_FLEXIBLE);
}

/* Take one PMU's groups off without changing whether the context is live. */
static void ctx_pmu_sched_out(struct perf_event_context *ctx, struct pmu *pmu,
			      enum event_type_t event_type)
{
	struct perf_event_pmu_context *epc;

	if (!ctx->is_active)
		return;
	list_for_each_entry(epc, &ctx->pmu_ctx_list, pmu_ctx_entry) {
		if (pmu && epc->pmu != pmu)
			continue;
		pmu_ctx_sched_out(epc, event_type);
	}
}

/**
 * perf_ctx_resched - schedule a CPU's groups of one PMU afresh
 * @cpuctx: this CPU's context, locked
 * @task_ctx: the live task context, locked, or NULL
 * @pmu: the PMU whose groups changed, or NULL for all
 * @event_type: which kind of group changed
 *
 * A change to a pinned group can push out anything; a change to a
 * flexible group only other flexible groups.
 */
void perf_ctx_resched(struct perf_cpu_context *cpuctx,
		      struct perf_event_context *task_ctx, struct pmu *pmu,
		      enum event_type_t event_type)
{
	enum event_type_t out = (event_type & EVENT_PINNED) ? EVENT_ALL : EVENT_FLEXIBLE;

	if (task_ctx)
		ctx_pmu_sched_out(task_ctx, pmu, out);
	ctx_pmu_sched_out(&cpuctx->ctx, pmu, out);
	perf_event_sched_in(cpuctx, task_ctx, pmu);
}

/*
 * Whether a task sub-context has a group that may run on this CPU, going
 * by CPU binding alone: one bound elsewhere never needs the PMU here.
 */
static bool task_epc_has_groups_here(struct perf_event_pmu_context *epc)
{
	struct perf_cpu_groups *cg;

	if (!list_empty(&epc->pinned_groups) || !list_empty(&epc->flexible_groups))
		return true;
	if (!epc->cpu_groups)
		return false;
	cg = &epc->cpu_groups[smp_processor_id()];
	return !list_empty(&cg->groups[0]) || !list_empty(&cg->groups[1]);
}

/**
 * perf_ctx_activate - make a context live on this CPU and schedule it in
 * @cpuctx: this CPU's context, locked
 * @ctx: the CPU's own context, or the current task's context, locked
 */
void perf_ctx_activate(struct perf_cpu_context *cpuctx,
		       struct perf_event_context *ctx)
{
	struct perf_event_pmu_context *epc;

	if (ctx->is_active)
		return;

	if (ctx == &cpuctx->ctx) {
		ctx_sched_in(ctx, NULL, EVENT_ALL);
		return;
	}

	WARN_ON_ONCE(cpuctx->task_ctx && cpuctx->task_ctx != ctx);
	cpuctx->task_ctx = ctx;
	if (!(ctx->is_active & EVENT_TIME))
		ctx->timestamp = perf_clock();
	ctx->is_active = EVENT_ALL | EVENT_TIME;

	list_for_each_entry(epc, &ctx->pmu_ctx_list, pmu_ctx_entry) {
		struct perf_event_pmu_context *cpu_epc = &this_cpc(epc->pmu)->epc;
		bool sw = epc->pmu->task_ctx_nr == perf_sw_context;

		if (!task_epc_has_groups_here(epc))
			continue;
		if (sw || !perf_pmu_ctx_is_active(cpu_epc)) {
			pmu_ctx_sched_in(epc, EVENT_ALL);
			continue;
		}
		/* Task pinned groups come before the CPU's flexible ones. */
		perf_pmu_disable(epc->pmu);
		pmu_ctx_sched_out(cpu_epc, EVENT_FLEXIBLE);
		pmu_groups_sched_in(epc, true);
		pmu_groups_sched_in(cpu_epc, false);
		pmu_groups_sched_in(epc, false);
		perf_pmu_enable(epc->pmu);
	}
}

/**
 * perf_ctx_deactivate - take a live context off this CPU entirely
 * @cpuctx: this CPU's context, locked
 * @ctx: the context, locked
 */
void perf_ctx_deactivate(struct perf_cpu_context *cpuctx,
			 struct perf_event_context *ctx)
{
	if (!ctx->is_active)
		return;
	ctx_sched_out(ctx, NULL, EVENT_ALL);
	ctx->is_active = 0;
	if (cpuctx->task_ctx == ctx)
		cpuctx->task_ctx = NULL;
}

/**
 * group_sched_in_now - put a software group on at once, or reschedule
 * @group: a group leader that was just enabled or installed
 * @epc: its sub-context, live on this CPU
 *
 * Software groups always fit, so they go straight on; anything else asks
 * for its PMU to be rescheduled in the proper order.
 * Return: 0.
 */
int group_sched_in_now(struct perf_event *group, struct perf_event_pmu_context *epc)
{
	struct perf_cpu_context *cpuctx = this_cpu_ptr(&perf_cpu_context);

	if (!event_filter_match(group))
		return 0;
	if (group->group_caps & PERF_EV_CAP_SOFTWARE) {
		if (group->state == PERF_EVENT_STATE_INACTIVE)
			group_sched_in(group, epc);
		return 0;
	}
	perf_ctx_resched(cpuctx, cpuctx->task_ctx, epc->pmu,
			 group->attr.pinned ? EVENT_PINNED : EVENT_FLEXIBLE);
	return 0;
}

/* ---- context switches ---- */

/*
 * PMUs that keep per-task state in hardware (a branch record stack, a
 * sample buffer) ask, while they have an event on a CPU that needs it,
 * to hear of every context switch there: perf_sched_cb_inc() from their
 * add(), perf_sched_cb_dec() from their del().  Their sched_task() is
 * called on the way out before the outgoing task's events leave, and on
 * the way in after the incoming task's events came, with that task and
 * its context's part for the PMU (NULL when it has none).  The lists
 * are per CPU and only touched on their CPU with interrupts off.
 */
static DEFINE_PER_CPU(struct list_head, sched_cb_list);
static DEFINE_PER_CPU(int, sched_cb_users);

/**
 * perf_sched_cb_init_cpu - prepare a CPU's list of sched_task PMUs
 * @cpu: the CPU
 */
void perf_sched_cb_init_cpu(int cpu)
{
	INIT_LIST_HEAD(per_cpu_ptr(&sched_cb_list, cpu));
}

/**
 * perf_sched_cb_inc - a PMU wants sched_task() on this CPU
 * @pmu: the PMU; it has a sched_task callback
 *
 * Called on this CPU with interrupts off (from the PMU's add()).
 */
void perf_sched_cb_inc(struct pmu *pmu)
{
	struct perf_cpu_pmu_context *cpc = this_cpc(pmu);

	if (!cpc->sched_cb_usage++)
		list_add(&cpc->sched_cb_entry, this_cpu_ptr(&sched_cb_list));
	this_cpu_inc(sched_cb_users);
}
EXPORT_SYMBOL_GPL(perf_sched_cb_inc);

/**
 * perf_sched_cb_dec - undo one perf_sched_cb_inc()
 * @pmu: the PMU
 *
 * Called on this CPU with interrupts off (from the PMU's del()).
 */
void perf_sched_cb_dec(struct pmu *pmu)
{
	struct perf_cpu_pmu_context *cpc = this_cpc(pmu);

	this_cpu_dec(sched_cb_users);
	if (!--cpc->sched_cb_usage)
		list_del(&cpc->sched_cb_entry);
}
EXPORT_SYMBOL_GPL(perf_sched_cb_dec);

/*
 * Tell the PMUs that asked for it of a switch: @task leaves (@sched_in
 * false) or arrives.  Interrupts off.
 */
static void pmu_sched_task_cbs(struct perf_cpu_context *cpuctx,
			       struct task_struct *task, bool sched_in)
{
	struct perf_event_context *task_ctx = cpuctx->task_ctx;
	struct perf_cpu_pmu_context *cpc;
	struct pmu *pmu;

	perf_ctx_lock(cpuctx, task_ctx);
	list_for_each_entry(cpc, this_cpu_ptr(&sched_cb_list), sched_cb_entry) {
		pmu = cpc->epc.pmu;
		if (WARN_ON_ONCE(!pmu->sched_task))
			continue;
		perf_pmu_disable(pmu);
		pmu->sched_task(perf_ctx_pmu_context(task_ctx, pmu), task, sched_in);
		perf_pmu_enable(pmu);
	}
	perf_ctx_unlock(cpuctx, task_ctx);
}

/**
 * __perf_event_task_sched_out - the outgoing task's events leave the CPU
 * @task: the task being switched out
 * @next: the task about to run
 *
 * Called with the runqueue locked and interrupts off.
 */
void __perf_event_task_sched_out(struct task_struct *task,
				 struct task_struct *next)
{
	struct perf_cpu_context *cpuctx = this_cpu_ptr(&perf_cpu_context);
	struct perf_event_context *ctx = cpuctx->task_ctx;

	/* Records of the switch go out while the task's events still count. */
	if (atomic_read(&perf_nr_switch_events))
		perf_event_switch_record(next, false);
	if (__this_cpu_read(sched_cb_users) && task != next)
		pmu_sched_task_cbs(cpuctx, task, false);
	if (ctx) {
		perf_ctx_lock(cpuctx, ctx);
		perf_ctx_deactivate(cpuctx, ctx);
		perf_ctx_unlock(cpuctx, ctx);
	}
#ifdef CONFIG_CGROUP_PERF
	/* With the task's groups gone, the CPU's follow @next's cgroup. */
	if (READ_ONCE(cpuctx->ctx.nr_cgroups))
		perf_cgroup_switch(next);
#endif
}

/**
 * __perf_event_task_sched_in - the incoming task's events join the CPU
 * @prev: the task that ran before
 * @task: the task now running
 *
 * Called with interrupts off, after the switch.
 */
void __perf_event_task_sched_in(struct task_struct *prev,
				struct task_struct *task)
{
	struct perf_cpu_context *cpuctx = this_cpu_ptr(&perf_cpu_context);
	struct perf_event_context *ctx = READ_ONCE(task->perf_event_ctxp);

	if (ctx && READ_ONCE(ctx->nr_events) && cpuctx->task_ctx != ctx) {
		perf_ctx_lock(cpuctx, ctx);
		if (ctx->nr_events && ctx->task == task)
			perf_ctx_activate(cpuctx, ctx);
		perf_ctx_unlock(cpuctx, ctx);
	}
	/* Set at fork, before the task first ran. */
	if (ctx && unlikely(ctx->lazy))
		perf_lazy_arrive(ctx);
	if (__this_cpu_read(sched_cb_users) && prev != task)
		pmu_sched_task_cbs(cpuctx, task, true);
	if (atomic_read(&perf_nr_switch_events))
		perf_event_switch_record(prev, true);
}

/*
 * perf_sched_events turns the context switch hooks on while any task
 * context has events.  Turning a static key off patches code on every CPU,
 * so the last user's leaving only schedules that, a second later, and a
 * new user in the meantime cancels it.
 */
DEFINE_STATIC_KEY_FALSE(perf_sched_events);
static DEFINE_MUTEX(perf_sched_mutex);
static int perf_sched_users;

static void perf_sched_events_off(struct work_struct *work)
{
	mutex_lock(&perf_sched_mutex);
	if (!perf_sched_users && static_key_enabled(&perf_sched_events))
		static_branch_disable(&perf_sched_events);
	mutex_unlock(&perf_sched_mutex);
}

static DECLARE_DELAYED_WORK(perf_sched_work, perf_sched_events_off);

/**
 * perf_sched_events_inc - a task event came to exist; may sleep
 */
void perf_sched_events_inc(void)
{
	mutex_lock(&perf_sched_mutex);
	if (!perf_sched_users++ && !static_key_enabled(&perf_sched_events))
		static_branch_enable(&perf_sched_events);
	mutex_unlock(&perf_sched_mutex);
}

/**
 * perf_sched_events_dec - a task event is gone; may sleep
 */
void perf_sched_events_dec(void)
{
	mutex_lock(&perf_sched_mutex);
	if (!--perf_sched_users)
		schedule_delayed_work(&perf_sched_work, HZ);
	mutex_unlock(&perf_sched_mutex);
}

/* ---- enable, disable, reset, period ---- */

/**
 * perf_event_sched_in_live - put a newly added or enabled event to work
 * @event: the event, INACTIVE, in @ctx
 * @cpuctx: this CPU's context, locked
 * @ctx: the event's context, locked, live here or about to be
 *
 * A context that was not live yet is activated with all its groups; a
 * leader goes on as a group; a sibling only when its group is on the
 * PMU, at once for software groups and by a reschedule otherwise.
 */
void perf_event_sched_in_live(struct perf_event *event,
			      struct perf_cpu_context *cpuctx,
			      struct perf_event_context *ctx)
{
	struct perf_event *leader = event->group_leader;

	if (!ctx->is_active) {
		perf_ctx_activate(cpuctx, ctx);
		return;
	}
	/*
	 * An install that found the task switched out added the event under
	 * the lock and comes back here by IPI when the task runs again: its
	 * switch-in may have put the event on already.
	 */
	if (event->state != PERF_EVENT_STATE_INACTIVE)
		return;
	if (leader == event) {
		group_sched_in_now(event, event->pmu_ctx);
		return;
	}
	if (leader->state != PERF_EVENT_STATE_ACTIVE)
		return;
	if (leader->group_caps & PERF_EV_CAP_SOFTWARE) {
		if (event_filter_match(event))
			event_sched_in(event, event->pmu_ctx);
		return;
	}
	perf_ctx_resched(cpuctx, cpuctx->task_ctx, event->pmu_ctx->pmu,
			 leader->attr.pinned ? EVENT_PINNED : EVENT_FLEXIBLE);
}

static void __perf_event_enable(struct perf_event *event,
				struct perf_cpu_context *cpuctx,
				struct perf_event_context *ctx, void *data)
{
	if (event->state >= PERF_EVENT_STATE_INACTIVE ||
	    event->state < PERF_EVENT_STATE_ERROR)
		return;
	if (!(event->attach_state & PERF_ATTACH_CONTEXT))
		return;

	perf_event_set_state(event, PERF_EVENT_STATE_INACTIVE);
	/* Only a live context with events has anything to schedule. */
	if (cpuctx && ctx->is_active)
		perf_event_sched_in_live(event, cpuctx, ctx);
}

/**
 * _perf_event_enable - enable one event; ctx->mutex held
 * @event: the event
 *
 * An event in the ERROR state is enabled afresh, so a pinned group that
 * failed gets another chance.
 */
void _perf_event_enable(struct perf_event *event)
{
	struct perf_event_context *ctx = event->ctx;

	raw_spin_lock_irq(&ctx->lock);
	if (event->state >= PERF_EVENT_STATE_INACTIVE ||
	    event->state < PERF_EVENT_STATE_ERROR) {
		raw_spin_unlock_irq(&ctx->lock);
		return;
	}
	if (event->state == PERF_EVENT_STATE_ERROR)
		event->state = PERF_EVENT_STATE_OFF;
	raw_spin_unlock_irq(&ctx->lock);

	event_function_call(event, __perf_event_enable, NULL);
}

/**
 * __perf_event_disable - disable one event where its context lives
 * @event: the event
 * @cpuctx: this CPU's context when @ctx is live here, else NULL
 * @ctx: the event's context, locked
 * @data: unused
 *
 * Disabling a leader takes its whole group off the PMU.
 */
void __perf_event_disable(struct perf_event *event,
			  struct perf_cpu_context *cpuctx,
			  struct perf_event_context *ctx, void *data)
{
	if (event->state < PERF_EVENT_STATE_INACTIVE)
		return;

	if (event == event->group_leader)
		group_sched_out(event, event->pmu_ctx);
	else
		event_sched_out(event, event->pmu_ctx);
	perf_event_set_state(event, PERF_EVENT_STATE_OFF);
}

/**
 * _perf_event_disable - disable one event; ctx->mutex held
 * @event: the event
 */
void _perf_event_disable(struct perf_event *event)
{
	struct perf_event_context *ctx = event->ctx;

	raw_spin_lock_irq(&ctx->lock);
	if (event->state <= PERF_EVENT_STATE_OFF) {
		raw_spin_unlock_irq(&ctx->lock);
		return;
	}
	raw_spin_unlock_irq(&ctx->lock);

	event_function_call(event, __perf_event_disable, NULL);
}

/**
 * perf_event_enable - enable a kernel counter
 * @event: the event
 */
void perf_event_enable(struct perf_event *event)
{
	struct perf_event_context *ctx = perf_event_ctx_lock(event);

	_perf_event_enable(event);
	perf_event_ctx_unlock(event, ctx);
}
EXPORT_SYMBOL_GPL(perf_event_enable);

/**
 * perf_event_disable - disable a kernel counter
 * @event: the event
 */
void perf_event_disable(struct perf_event *event)
{
	struct perf_event_context *ctx = perf_event_ctx_lock(event);

	_perf_event_disable(event);
	perf_event_ctx_unlock(event, ctx);
}
EXPORT_SYMBOL_GPL(perf_event_disable);

/**
 * perf_event_disable_local - disable an event from its own CPU, atomically
 * @event: the event, live on this CPU
 */
void perf_event_disable_local(struct perf_event *event)
{
	event_function_local(event, __perf_event_disable, NULL);
}

/**
 * perf_event_disable_inatomic - disable an event from interrupt context
 * @event: the event
 *
 * The event leaves the PMU the next time it is scheduled out.
 */
void perf_event_disable_inatomic(struct perf_event *event)
{
	/* Only an event that can overflow gets here. */
	if (WARN_ON_ONCE(!event->ov))
		return;
	event->pending_disable = 1;
	irq_work_queue(&event->ov->pending_disable_irq);
}

static void __perf_event_reset(struct perf_event *event,
			       struct perf_cpu_context *cpuctx,
			       struct perf_event_context *ctx, void *data)
{
	if (event->state == PERF_EVENT_STATE_ACTIVE && cpuctx)
		event->pmu->read(event);
	local64_set(&event->count, 0);
}

/**
 * _perf_event_reset - zero an event's count; ctx->mutex held
 * @event: the event
 *
 * Times are not reset, as upstream; children's folded counts are.
 */
void _perf_event_reset(struct perf_event *event)
{
	perf_event_read(event, false);
	atomic64_set(&event->child_count, 0);
	event_function_call(event, __perf_event_reset, NULL);
	/* Mapped readers see the zero now, running or not. */
	perf_event_update_userpage(event);
}

/**
 * _perf_event_refresh - allow @refresh more overflows, then enable
 * @event: a sampling, non-inherited event
 * @refresh: number of overflows
 *
 * Return: 0 or -EINVAL.
 */
int _perf_event_refresh(struct perf_event *event, int refresh)
{
	if (event->attr.inherit || !is_sampling_event(event))
		return -EINVAL;
	atomic_add(refresh, &event->ov->event_limit);
	_perf_event_enable(event);
	return 0;
}

/**
 * perf_event_refresh - _perf_event_refresh() for kernel users
 * @event: the event
 * @refresh: number of overflows
 *
 * Return: 0 or -EINVAL.
 */
int perf_event_refresh(struct perf_event *event, int refresh)
{
	struct perf_event_context *ctx = perf_event_ctx_lock(event);
	int ret = _perf_event_refresh(event, refresh);

	perf_event_ctx_unlock(event, ctx);
	return ret;
}
EXPORT_SYMBOL_GPL(perf_event_refresh);

static void __perf_event_period(struct perf_event *event,
				struct perf_cpu_context *cpuctx,
				struct perf_event_context *ctx, void *data)
{
	u64 value = *(u64 *)data;
	bool active = cpuctx && event->state == PERF_EVENT_STATE_ACTIVE;

	if (event->attr.freq) {
		event->attr.sample_freq = value;
		return;
	}
	event->attr.sample_period = value;
	event->hw.sample_period = value;
	if (active) {
		perf_pmu_disable(event->pmu);
		/*
		 * Restarted here, a throttled event samples again at once:
		 * it is no longer throttled, and says so, or the tick would
		 * start it a second time.
		 */
		perf_event_unthrottle(event, false);
		event->pmu->stop(event, PERF_EF_UPDATE);
	}
	local64_set(&event->hw.period_left, 0);
	if (active) {
		event->pmu->start(event, PERF_EF_RELOAD);
		perf_pmu_enable(event->pmu);
	}
}

/**
 * _perf_event_period - change a sampling event's period or frequency
 * @event: the event
 * @value: new period, or new frequency for a freq event
 *
 * Return: 0, or -EINVAL for a counting event, a zero value, a frequency
 * above the allowed rate, or a period with the top bit set or that the
 * PMU's check_period refuses.
 */
int _perf_event_period(struct perf_event *event, u64 value)
{
	if (!is_sampling_event(event))
		return -EINVAL;
	if (!value)
		return -EINVAL;
	if (event->attr.freq) {
		if (value > sysctl_perf_event_sample_rate)
			return -EINVAL;
	} else if (value & (1ULL << 63)) {
		return -EINVAL;
	} else if (event->pmu->check_period &&
		   event->pmu->check_period(event, value)) {
		/* The PMU judges periods only: a frequency is the core's. */
		return -EINVAL;
	}

	event_function_call(event, __perf_event_period, &value);
	return 0;
}

/**
 * perf_event_period - _perf_event_period() for kernel users
 * @event: the event
 * @value: new period or frequency
 *
 * Return: 0 or -EINVAL.
 */
int perf_event_period(struct perf_event *event, u64 value)
{
	struct perf_event_context *ctx = perf_event_ctx_lock(event);
	int ret = _perf_event_period(event, value);

	perf_event_ctx_unlock(event, ctx);
	return ret;
}
EXPORT_SYMBOL_GPL(perf_event_period);

/**
 * perf_event_pause - disable a kernel counter and take its count
 * @event: the event, not inherited (its copies' counts are not taken)
 * @reset: zero the count as well
 *
 * For users that keep a count of their own and fold the counter into it
 * before reprogramming it (KVM's virtual PMU): the count is read after
 * the event has left its PMU, so nothing can be added between the read
 * and the reset.
 *
 * Return: the count at the moment the event stopped.
 */
u64 perf_event_pause(struct perf_event *event, bool reset)
{
	struct perf_event_context *ctx = perf_event_ctx_lock(event);
	u64 count;

	WARN_ON_ONCE(event->attr.inherit);
	_perf_event_disable(event);
	count = local64_read(&event->count);
	if (reset)
		local64_set(&event->count, 0);
	perf_event_ctx_unlock(event, ctx);
	return count;
}
EXPORT_SYMBOL_GPL(perf_event_pause);

/**
 * perf_event_enable_on_exec_ctx - enable the events waiting for an exec
 * @ctx: the current task's context, mutex held
 */
void perf_event_enable_on_exec_ctx(struct perf_event_context *ctx)
{
	struct perf_cpu_context *cpuctx;
	struct perf_event *event;
	bool enabled = false;

	local_irq_disable();
	cpuctx = this_cpu_ptr(&perf_cpu_context);
	perf_ctx_lock(cpuctx, ctx);
	update_context_time(&cpuctx->ctx);
	update_context_time(ctx);
	list_for_each_entry(event, &ctx->event_list, event_entry) {
		if (!event->attr.enable_on_exec)
			continue;
		event->attr.enable_on_exec = 0;
		if (event->state >= PERF_EVENT_STATE_INACTIVE)
			continue;
		perf_event_set_state(event, PERF_EVENT_STATE_INACTIVE);
		enabled = true;
	}
	if (enabled && ctx->is_active)
		perf_ctx_resched(cpuctx, ctx, NULL, EVENT_ALL);
	else if (enabled && ctx->nr_events && ctx->task == current)
		perf_ctx_activate(cpuctx, ctx);
	perf_ctx_unlock(cpuctx, ctx);
	local_irq_enable();
}

/**
 * perf_pmu_resched - reschedule one PMU's groups on this CPU
 * @pmu: the PMU
 */
void perf_pmu_resched(struct pmu *pmu)
{
	struct perf_cpu_context *cpuctx = this_cpu_ptr(&perf_cpu_context);
	struct perf_event_context *task_ctx = cpuctx->task_ctx;

	perf_ctx_lock(cpuctx, task_ctx);
	perf_ctx_resched(cpuctx, task_ctx, pmu, EVENT_ALL);
	perf_ctx_unlock(cpuctx, task_ctx);
}
