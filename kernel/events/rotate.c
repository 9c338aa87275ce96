// SPDX-License-Identifier: GPL-2.0
/*
 * Multiplexing: when a PMU has more flexible groups than room, a timer per
 * CPU and PMU takes them off in turn so that each runs for a share of the
 * time.  time_enabled and time_running of each event record the share, so
 * user space can scale the counts.
 *
 * Policy: the flexible groups of the CPU's context and of the running
 * task's context are each kept in a list; scheduling walks a list in order
 * and stops at the first group that does not fit.  Every interval the
 * group at the head moves to the tail, so over a full turn each group
 * leads once.  Pinned groups are never rotated.  A CPU context's cgroup
 * groups sit on their cgroups' lists, and a task context's groups bound
 * to one CPU on that CPU's list; the walk merges those that may run here
 * (the running task's cgroups', this CPU's) with the context's own, in
 * group_seq order, and rotation moves the first of that walk to the end.
 *
 * Fork copies a task's groups walking its lists with only the context's
 * mutex held (inherit.c), sleeping to allocate; the task context's
 * rotate_disable, set under its lock meanwhile, holds its rotation off.
 *
 * Context: the timer is pinned to its CPU and runs in hard interrupt
 * context; it takes the CPU's and the task's context locks like every
 * other scheduling path.  hrtimer_lock guards only the timer's state.
 */
#include "internal.h"

/*
 * The first flexible group that may run here goes last: the head of the
 * sub-context's list, or the first of the merged walk (which may sit on
 * a cgroup's list, or on the list of a task's groups bound to this CPU).
 */
static void rotate_flexible(struct perf_event_pmu_context *epc)
{
	struct perf_group_iter it;
	struct perf_event *first;

	if (perf_group_iter_start(&it, epc, false))
		first = perf_group_iter_next(&it);
	else
		first = list_first_entry_or_null(&epc->flexible_groups,
						 struct perf_event, group_entry);
	if (!first)
		return;
	list_move_tail(&first->group_entry, perf_group_list(first));
	perf_group_seq_next(first);
}

/**
 * perf_rotate_context - rotate one PMU's flexible groups on this CPU
 * @cpc: the CPU's part of the PMU
 *
 * Return: whether rotation is still needed afterwards.
 */
bool perf_rotate_context(struct perf_cpu_pmu_context *cpc)
{
	struct perf_cpu_context *cpuctx = this_cpu_ptr(&perf_cpu_context);
	struct perf_event_pmu_context *cpu_epc = &cpc->epc, *task_epc;
	struct perf_event_context *task_ctx;
	struct pmu *pmu = cpu_epc->pmu;
	bool cpu_rotate, task_rotate, held = false, again;

	perf_ctx_lock(cpuctx, cpuctx->task_ctx);
	task_ctx = cpuctx->task_ctx;
	task_epc = perf_ctx_pmu_context(task_ctx, pmu);
	cpu_rotate = cpu_epc->ctx && cpu_epc->rotate_necessary;
	task_rotate = task_epc && task_epc->rotate_necessary;
	if (task_rotate && task_ctx->rotate_disable) {
		/* fork is walking the lists: try again next interval */
		task_rotate = false;
		held = true;
	}
	if (!cpu_rotate && !task_rotate) {
		perf_ctx_unlock(cpuctx, task_ctx);
		return held;
	}

	update_context_time(&cpuctx->ctx);
	if (task_ctx)
		update_context_time(task_ctx);

	perf_pmu_disable(pmu);
	if (task_rotate)
		pmu_ctx_sched_out(task_epc, EVENT_FLEXIBLE);
	if (cpu_rotate)
		pmu_ctx_sched_out(cpu_epc, EVENT_FLEXIBLE);

	if (cpu_rotate)
		rotate_flexible(cpu_epc);
	if (task_rotate)
		rotate_flexible(task_epc);

	if (cpu_epc->ctx)
		pmu_groups_sched_in(cpu_epc, false);
	if (task_epc)
		pmu_groups_sched_in(task_epc, false);
	perf_pmu_enable(pmu);

	again = cpu_epc->rotate_necessary || (task_epc && task_epc->rotate_necessary);
	perf_ctx_unlock(cpuctx, task_ctx);
	return again;
}

static enum hrtimer_restart perf_mux_hrtimer_handler(struct hrtimer *hr)
{
	struct perf_cpu_pmu_context *cpc =
		container_of(hr, struct perf_cpu_pmu_context, hrtimer);
	bool again = perf_rotate_context(cpc);

	raw_spin_lock(&cpc->hrtimer_lock);
	if (again)
		hrtimer_forward_now(hr, cpc->hrtimer_interval);
	else
		cpc->hrtimer_active = 0;
	raw_spin_unlock(&cpc->hrtimer_lock);

	return again ? HRTIMER_RESTART : HRTIMER_NORESTART;
}

/**
 * perf_mux_hrtimer_init - set up the multiplexing timer of one CPU and PMU
 * @cpc: the CPU's part of the PMU
 * @pmu: the PMU
 * @cpu: the CPU
 */
void perf_mux_hrtimer_init(struct perf_cpu_pmu_context *cpc, struct pmu *pmu,
			   int cpu)
{
	raw_spin_lock_init(&cpc->hrtimer_lock);
	cpc->hrtimer_interval = ms_to_ktime(pmu->hrtimer_interval_ms);
	hrtimer_init(&cpc->hrtimer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_PINNED_HARD);
	cpc->hrtimer.function = perf_mux_hrtimer_handler;
}

/**
 * perf_mux_hrtimer_restart - make sure the timer runs; on its CPU
 * @cpc: the CPU's part of the PMU
 */
void perf_mux_hrtimer_restart(struct perf_cpu_pmu_context *cpc)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&cpc->hrtimer_lock, flags);
	if (!cpc->hrtimer_active) {
		cpc->hrtimer_active = 1;
		hrtimer_forward_now(&cpc->hrtimer, cpc->hrtimer_interval);
		hrtimer_start_expires(&cpc->hrtimer, HRTIMER_MODE_ABS_PINNED_HARD);
	}
	raw_spin_unlock_irqrestore(&cpc->hrtimer_lock, flags);
}

/**
 * perf_mux_hrtimer_cancel - stop the timer
 * @cpc: the CPU's part of the PMU
 */
void perf_mux_hrtimer_cancel(struct perf_cpu_pmu_context *cpc)
{
	hrtimer_cancel(&cpc->hrtimer);
	cpc->hrtimer_active = 0;
}

/**
 * perf_mux_interval_set - change a PMU's multiplexing interval
 * @pmu: the PMU
 * @ms: the interval in milliseconds, at least 1
 *
 * Running timers pick the new interval up at their next expiry.
 *
 * Return: 0.
 */
int perf_mux_interval_set(struct pmu *pmu, int ms)
{
	int cpu;

	pmu->hrtimer_interval_ms = ms;
	for_each_possible_cpu(cpu) {
		struct perf_cpu_pmu_context *cpc = per_cpu_ptr(pmu->cpu_pmu_context, cpu);

		WRITE_ONCE(cpc->hrtimer_interval, ms_to_ktime(ms));
	}
	return 0;
}
