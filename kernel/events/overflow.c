// SPDX-License-Identifier: GPL-2.0
/*
 * Overflows of sampling events: the refresh limit, throttling, frequency
 * mode, and the signals that go with them.
 *
 * Throttling: an event may overflow at most max_samples_per_tick times
 * per tick of its CPU (perf_event_max_sample_rate / HZ).  Past that it is
 * throttled: its samples stop (its PMU is stopped where it has an
 * interrupt to stop), a THROTTLE record says so, and the next tick
 * restarts it with an UNTHROTTLE record.  The count of the current tick
 * lives in hw.interrupts, tagged with the tick it belongs to (a per-CPU
 * sequence number), so no per-tick walk is needed to reset it.
 *
 * Frequency mode: the period follows the observed event rate so that
 * about sample_freq samples come per second: at each overflow from the
 * time since the previous one, and at each tick from the count of the
 * tick, through a low-pass filter (an eighth of the difference per step).
 *
 * Context: overflows run where the event fires (NMI, interrupt, or the
 * task raising a software event) with interrupts off; the tick work runs
 * in the timer interrupt, holding the CPU's and the task's context locks.
 */
#include <linux/sched/clock.h>
#include <linux/tick.h>

#include "internal.h"

#define MAX_INTERRUPTS (~0ULL)

static DEFINE_PER_CPU(u64, perf_tick_seq);
/* Events throttled on this CPU since its last tick. */
static DEFINE_PER_CPU(unsigned int, perf_throttled);
atomic_t perf_nr_sampling_events;
int perf_max_samples_per_tick __read_mostly =
	DIV_ROUND_UP(DEFAULT_MAX_SAMPLE_RATE, HZ);

/**
 * perf_sample_period_for - the period giving @freq samples a second
 * @count: events seen
 * @nsec: in this much time
 * @freq: the wanted samples per second
 *
 * Return: count * 10^9 / (nsec * freq), at least 1; computed without
 * overflowing 64 bits.
 */
u64 perf_sample_period_for(u64 count, u64 nsec, u64 freq)
{
	u64 per_sec;

	if (!nsec || !freq)
		return 1;
	/* Events per second first, then per sample. */
	per_sec = mul_u64_u64_div_u64(count, NSEC_PER_SEC, nsec);
	per_sec = div64_u64(per_sec, freq);
	return per_sec ? per_sec : 1;
}

/**
 * perf_filter_period - one low-pass step from @cur towards @target
 * @cur: the current period
 * @target: the period the last observation asks for
 *
 * Return: the new period, an eighth of the way (rounded away from @cur)
 * towards @target, never 0.
 */
u64 perf_filter_period(u64 cur, u64 target)
{
	s64 step = (s64)(target - cur);
	u64 next;

	step = step >= 0 ? (step + 7) / 8 : (step - 7) / 8;
	next = cur + step;
	return next ? next : 1;
}

static void adjust_period(struct perf_event *event, u64 nsec, u64 count,
			  bool restart)
{
	struct hw_perf_event *hwc = &event->hw;
	u64 target = perf_sample_period_for(count, nsec, event->attr.sample_freq);

	hwc->sample_period = perf_filter_period(hwc->sample_period, target);
	/* Far into a much longer old period: start the new one now. */
	if (local64_read(&hwc->period_left) > 8 * (s64)hwc->sample_period) {
		if (restart)
			event->pmu->stop(event, PERF_EF_UPDATE);
		local64_set(&hwc->period_left, 0);
		if (restart)
			event->pmu->start(event, PERF_EF_RELOAD);
	}
}

static void log_throttle(struct perf_event *event, bool unthrottle)
{
	struct {
		struct perf_event_header	header;
		u64				time;
		u64				id;
		u64				stream_id;
	} rec = {
		.header = {
			.type = unthrottle ? PERF_RECORD_UNTHROTTLE : PERF_RECORD_THROTTLE,
			.misc = 0,
			.size = sizeof(rec),
		},
		.time = perf_event_clock(event),
		.id = perf_event_primary_id(event),
		.stream_id = event->id,
	};

	perf_event_fixed_record(event, &rec.header);
}

/**
 * perf_event_unthrottle - a throttled event may sample again
 * @event: the event, ACTIVE on this CPU, its context locked
 * @start: restart the PMU too (it was stopped when throttled)
 */
void perf_event_unthrottle(struct perf_event *event, bool start)
{
	if (event->hw.interrupts != MAX_INTERRUPTS)
		return;
	event->hw.interrupts = 0;
	log_throttle(event, true);
	if (start)
		event->pmu->start(event, 0);
}

/* Count one overflow in this tick; true when that throttles the event. */
static bool account_overflow(struct perf_event *event, bool throttle)
{
	struct hw_perf_event *hwc = &event->hw;
	u64 tick = __this_cpu_read(perf_tick_seq);

	if (hwc->interrupts_seq != tick) {
		/*
		 * Still throttled from another tick (the tick that would have
		 * lifted it ran before it reached this event, or on another
		 * CPU): it is lifted now, and said so.
		 */
		if (hwc->interrupts == MAX_INTERRUPTS)
			log_throttle(event, true);
		hwc->interrupts_seq = tick;
		hwc->interrupts = 1;
	} else if (hwc->interrupts != MAX_INTERRUPTS) {
		hwc->interrupts++;
	}

	if (event->attr.freq) {
		u64 now = perf_clock();
		s64 since = now - hwc->freq_time_stamp;

		hwc->freq_time_stamp = now;
		if (since > 0 && since < 2 * TICK_NSEC)
			adjust_period(event, since, hwc->last_period, true);
	}

	if (!throttle || hwc->interrupts < perf_max_samples_per_tick ||
	    READ_ONCE(perf_sample_allowed_ns) == 0)
		return false;
	hwc->interrupts = MAX_INTERRUPTS;
	log_throttle(event, false);
	__this_cpu_inc(perf_throttled);
	tick_dep_set_cpu(smp_processor_id(), TICK_DEP_BIT_PERF_EVENTS);
	return true;
}

/**
 * perf_event_throttled - whether an event is throttled for this tick
 * @event: the event
 *
 * Return: true while its samples are held back.
 */
bool perf_event_throttled(struct perf_event *event)
{
	return event->hw.interrupts == MAX_INTERRUPTS;
}

/**
 * perf_event_account_interrupt - count an overflow that wrote no sample
 * @event: the event
 *
 * Return: 1 when the event is now throttled.
 */
int perf_event_account_interrupt(struct perf_event *event)
{
	return account_overflow(event, true);
}

/* Samples must not leak kernel addresses to those who may not see them. */
static bool sample_addr_allowed(struct perf_event *event, struct pt_regs *regs)
{
	if (event->attr.exclude_kernel && !user_mode(regs))
		return false;
	return true;
}

/*
 * Queue the synchronous signal of a sigtrap event; it is sent on the
 * task's way back to user space (perf_pending_task()).
 */
static void queue_sigtrap(struct perf_event *event, struct perf_sample_data *data,
			  struct pt_regs *regs)
{
	struct perf_overflow_state *ov = event->ov;

	/*
	 * The signal goes to the task that runs now: it must be the one the
	 * event watches.  An overflow while another runs is a bug of the
	 * caller's; it would kill a task that asked for nothing.
	 */
	if (WARN_ON_ONCE(READ_ONCE(event->ctx->task) != current))
		return;
	if (ov->pending_work)
		return;
	if (task_work_add(current, &ov->pending_task,
			  in_nmi() ? TWA_NMI_CURRENT : TWA_RESUME))
		return;
	/* The task work holds a reference until it has run. */
	WARN_ON_ONCE(!perf_event_get_ref(event));
	ov->pending_work = 1;
	ov->pending_addr = 0;
	if (regs && sample_addr_allowed(event, regs) &&
	    (data->sample_flags & PERF_SAMPLE_ADDR))
		ov->pending_addr = data->addr;
}

/**
 * __perf_event_overflow - an event reached its sample period
 * @event: the event
 * @throttle: whether this overflow counts towards throttling
 * @data: what the PMU gathered
 * @regs: the interrupted registers
 *
 * Return: 1 when the event must stop (throttled, or its refresh limit
 * ran out), else 0.
 */
int __perf_event_overflow(struct perf_event *event, bool throttle,
			  struct perf_sample_data *data, struct pt_regs *regs)
{
	struct perf_overflow_state *ov;
	perf_overflow_handler_t handler;
	int ret = 0, limit;

	/* Only now is the overflow state known to be there. */
	if (unlikely(!is_sampling_event(event)))
		return 0;
	ov = event->ov;
	limit = atomic_read(&ov->event_limit);
	if (account_overflow(event, throttle))
		ret = 1;
	/* A BPF program may drop the sample, and all that follows from it. */
	if (unlikely(READ_ONCE(event->prog)) && !perf_bpf_overflow(event, data, regs))
		return ret;

	ov->pending_kill = POLL_IN;
	if (limit && atomic_dec_and_test(&ov->event_limit)) {
		ret = 1;
		ov->pending_kill = POLL_HUP;
		perf_event_disable_inatomic(event);
	}
	if (event->attr.sigtrap)
		queue_sigtrap(event, data, regs);

	handler = READ_ONCE(event->overflow_handler);
	handler(event, data, regs);

	/* SIGIO for fasync users, from a context that may send it. */
	if (*perf_event_fasync(event) && ov->pending_kill) {
		ov->pending_wakeup = 1;
		irq_work_queue(&ov->pending_irq);
	}
	return ret;
}

/**
 * perf_event_overflow - an event reached its sample period
 * @event: the event
 * @data: what the PMU gathered
 * @regs: the interrupted registers
 *
 * Return: 1 when the event must stop (throttled, or its refresh limit
 * ran out), else 0.
 */
int perf_event_overflow(struct perf_event *event,
			struct perf_sample_data *data, struct pt_regs *regs)
{
	return __perf_event_overflow(event, true, data, regs);
}

static void tick_event(struct perf_event *event)
{
	if (event->state == PERF_EVENT_STATE_ACTIVE && is_sampling_event(event))
		perf_event_tick_one(event);
}

/* Tick work on one sub-context's active groups and their members. */
static void tick_pmu_ctx(struct perf_event_pmu_context *epc)
{
	struct perf_event *group, *sibling;

	list_for_each_entry(group, &epc->pinned_active, active_list) {
		tick_event(group);
		for_each_sibling_event(sibling, group)
			tick_event(sibling);
	}
	list_for_each_entry(group, &epc->flexible_active, active_list) {
		tick_event(group);
		for_each_sibling_event(sibling, group)
			tick_event(sibling);
	}
}

/**
 * perf_event_tick_one - per-tick work for one active sampling event
 * @event: the event, ACTIVE on this CPU, its context locked
 *
 * Unthrottles it, and in frequency mode retunes its period from the
 * count of the tick.
 */
void perf_event_tick_one(struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;
	bool freq = event->attr.freq && event->attr.sample_freq;
	u64 now;
	s64 delta;

	if (hwc->interrupts == MAX_INTERRUPTS)
		perf_event_unthrottle(event, !freq);
	if (!freq)
		return;

	event->pmu->stop(event, PERF_EF_UPDATE);
	now = local64_read(&event->count);
	delta = now - hwc->freq_count_stamp;
	hwc->freq_count_stamp = now;
	if (delta > 0)
		adjust_period(event, TICK_NSEC, delta, false);
	event->pmu->start(event, delta > 0 ? PERF_EF_RELOAD : 0);
}

/*
 * Only events in frequency mode and throttled ones have tick work: a
 * context with neither is not walked, however many samplers it has.
 */
static void tick_ctx(struct perf_event_context *ctx, bool throttled)
{
	struct perf_event_pmu_context *epc;

	if (!ctx || !ctx->is_active || !(ctx->nr_freq || throttled))
		return;
	list_for_each_entry(epc, &ctx->pmu_ctx_list, pmu_ctx_entry) {
		perf_pmu_disable(epc->pmu);
		tick_pmu_ctx(epc);
		perf_pmu_enable(epc->pmu);
	}
}

/**
 * perf_event_task_tick - scheduler tick hook
 *
 * Starts a new throttling period on this CPU and, for the events that are
 * throttled or in frequency mode, does the per-tick work.  Events
 * throttled here and moved since were unthrottled when they moved.
 */
void perf_event_task_tick(void)
{
	struct perf_cpu_context *cpuctx;
	struct perf_event_context *task_ctx;
	unsigned long flags;
	bool throttled;

	lockdep_assert_irqs_disabled();
	__this_cpu_inc(perf_tick_seq);
	tick_dep_clear_cpu(smp_processor_id(), TICK_DEP_BIT_PERF_EVENTS);

	cpuctx = this_cpu_ptr(&perf_cpu_context);
	if (!atomic_read(&perf_nr_sampling_events))
		return;
	throttled = __this_cpu_xchg(perf_throttled, 0);
	/*
	 * Interrupts are off: the task context (changed only on this CPU,
	 * so too) stays.  A frequency event added meanwhile is seen next
	 * tick.
	 */
	task_ctx = cpuctx->task_ctx;
	if (!throttled && !READ_ONCE(cpuctx->ctx.nr_freq) &&
	    !(task_ctx && READ_ONCE(task_ctx->nr_freq)))
		return;
	local_irq_save(flags);
	perf_ctx_lock(cpuctx, task_ctx);
	tick_ctx(&cpuctx->ctx, throttled);
	tick_ctx(task_ctx, throttled);
	perf_ctx_unlock(cpuctx, task_ctx);
	local_irq_restore(flags);
}
