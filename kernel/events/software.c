// SPDX-License-Identifier: GPL-2.0
/*
 * Software events: the "software" PMU (page faults, context switches,
 * migrations, ...) and the two clocks, cpu-clock and task-clock.
 *
 * Counting: each CPU has one list per software event id.  An event is on
 * its CPU's list exactly while it is ACTIVE there (pmu::add puts it on,
 * pmu::del takes it off, both on that CPU with interrupts off), so raising
 * an event costs one list walk of the events that can count it right now,
 * and an id nobody asked for costs a patched-out branch
 * (perf_swevent_enabled[]).  The lists are walked under RCU (the walkers
 * run with preemption off); events are freed after a grace period.
 *
 * Recursion: an event raised while another one of the same interrupt
 * level is being counted on this CPU is dropped.
 *
 * Overflows: counting is lock-free, but an overflow is handled with
 * interrupts off and only for an event counting on this CPU.  An event
 * leaves its context (and so can lose its last reference) only through a
 * cross-CPU call to the CPU it counts on, which cannot come in between:
 * whatever the overflow queues (irq_work, task_work) is queued on an event
 * that is still there.  Each sampling event gets a fresh sample data: one
 * hit may feed several events of different sample_type.
 *
 * The clocks count nanoseconds while ACTIVE: cpu-clock from the CPU's
 * clock, task-clock from its context's time (which only runs while the
 * task does).
 */
#include <linux/sched/clock.h>
#include <linux/hrtimer.h>
#include <asm/irq_regs.h>

#include "internal.h"

struct swevent_lists {
	struct hlist_head	heads[PERF_COUNT_SW_MAX];
	u8			recursion[PERF_NR_CONTEXTS];
};

static DEFINE_PER_CPU(struct swevent_lists, swevent_lists);

DEFINE_PER_CPU(struct pt_regs, __perf_regs[4]);

struct static_key perf_swevent_enabled[PERF_COUNT_SW_MAX];
EXPORT_SYMBOL_GPL(perf_swevent_enabled);

/**
 * perf_swevent_get_recursion_context - claim this CPU's software event slot
 *
 * Return: the interrupt level claimed, or -1 when it is already in use.
 */
int perf_swevent_get_recursion_context(void)
{
	u8 *recursion = this_cpu_ptr(swevent_lists.recursion);
	unsigned char level = interrupt_context_level();

	if (recursion[level])
		return -1;
	recursion[level]++;
	barrier();
	return level;
}
EXPORT_SYMBOL_GPL(perf_swevent_get_recursion_context);

/**
 * perf_swevent_put_recursion_context - release what the get above claimed
 * @rctx: its return value
 */
void perf_swevent_put_recursion_context(int rctx)
{
	u8 *recursion = this_cpu_ptr(swevent_lists.recursion);

	barrier();
	recursion[rctx]--;
}
EXPORT_SYMBOL_GPL(perf_swevent_put_recursion_context);

static bool swevent_excluded(struct perf_event *event, struct pt_regs *regs)
{
	if (event->hw.state & PERF_HES_STOPPED)
		return true;
	if (!regs)
		return false;
	if (user_mode(regs))
		return event->attr.exclude_user;
	return event->attr.exclude_kernel;
}

/**
 * perf_swevent_set_period - account one elapsed period of a sampling event
 * @event: the event
 *
 * Return: how many periods elapsed (0 while still inside one).
 */
u64 perf_swevent_set_period(struct perf_event *event)
{
	u64 span = event->hw.last_period;
	s64 cur, next;
	u64 periods;

	event->hw.last_period = event->hw.sample_period;
	/*
	 * period_left counts up towards zero; each whole period crossed is
	 * one overflow.  Negative: still inside the current period.
	 */
	cur = local64_read(&event->hw.period_left);
	do {
		if (cur < 0)
			return 0;
		periods = div64_u64(cur + span, span);
		next = cur - (s64)(periods * span);
	} while (!local64_try_cmpxchg(&event->hw.period_left, &cur, next));
	return periods;
}

/*
 * @overflow periods ended at once (0: find out from period_left).  As
 * upstream, only the second and later of a batch count towards
 * throttling, so an event sampling every occurrence is never throttled.
 */
static void swevent_overflow(struct perf_event *event, u64 overflow,
			     struct perf_sample_data *data, struct pt_regs *regs)
{
	bool throttle = false;

	if (!overflow)
		overflow = perf_swevent_set_period(event);
	/* Throttled: counting goes on, samples wait for the next tick. */
	if (perf_event_throttled(event))
		return;
	for (; overflow; overflow--) {
		if (__perf_event_overflow(event, throttle, data, regs))
			break;
		throttle = true;
	}
}

/* The sampling half of perf_swevent_count(); interrupts off. */
static void swevent_sample(struct perf_event *event, u64 nr,
			   struct perf_sample_data *data, struct pt_regs *regs)
{
	struct hw_perf_event *hwc = &event->hw;

	/*
	 * As upstream: an event that records the period, in period mode,
	 * samples every occurrence and reports how many it stood for.
	 */
	if ((event->attr.sample_type & PERF_SAMPLE_PERIOD) && !event->attr.freq) {
		data->period = nr;
		swevent_overflow(event, 1, data, regs);
		return;
	}
	data->period = hwc->last_period;
	if (nr == 1 && hwc->sample_period == 1 && !event->attr.freq) {
		swevent_overflow(event, 1, data, regs);
		return;
	}
	if (local64_add_negative(nr, &hwc->period_left))
		return;
	swevent_overflow(event, 0, data, regs);
}

/**
 * perf_swevent_count - add @nr occurrences to a software-style event
 * @event: the event
 * @nr: occurrences
 * @data: sample data, for overflows
 * @regs: registers at the occurrence, or NULL (no sampling then)
 */
void perf_swevent_count(struct perf_event *event, u64 nr,
			struct perf_sample_data *data, struct pt_regs *regs)
{
	unsigned long flags;

	local64_add(nr, &event->count);
	if (!regs || !is_sampling_event(event))
		return;

	/*
	 * The overflow queues work (irq_work, task_work) that holds on to
	 * the event, so the event must stay in its context until that is
	 * done.  It leaves its context on this CPU, by a cross-CPU call
	 * while it counts here: with interrupts off, an event seen counting
	 * here stays so, and referenced, until they are back on.  Callers
	 * from process context (page faults, tracepoints) have them on.
	 */
	local_irq_save(flags);
	if (READ_ONCE(event->state) == PERF_EVENT_STATE_ACTIVE &&
	    READ_ONCE(event->oncpu) == smp_processor_id())
		swevent_sample(event, nr, data, regs);
	local_irq_restore(flags);
}

/**
 * ___perf_sw_event - count a software event on this CPU, no recursion guard
 * @event_id: the PERF_COUNT_SW_* id
 * @nr: how many occurred
 * @regs: where, or NULL
 * @addr: the data address, for samples
 */
void ___perf_sw_event(u32 event_id, u64 nr, struct pt_regs *regs, u64 addr)
{
	struct hlist_head *head = this_cpu_ptr(&swevent_lists.heads[event_id]);
	struct perf_sample_data data __uninitialized;
	struct perf_event *event;

	rcu_read_lock();
	hlist_for_each_entry_rcu(event, head, hlist_entry) {
		if (swevent_excluded(event, regs))
			continue;
		/*
		 * A sample's data is gathered for one event's sample_type:
		 * each sampling event starts from what the hit provides.
		 */
		if (is_sampling_event(event))
			perf_sample_data_init(&data, addr, 0);
		perf_swevent_count(event, nr, &data, regs);
	}
	rcu_read_unlock();
}

/**
 * __perf_sw_event - count a software event on this CPU
 * @event_id: the PERF_COUNT_SW_* id
 * @nr: how many occurred
 * @regs: where, or NULL
 * @addr: the data address, for samples
 */
void __perf_sw_event(u32 event_id, u64 nr, struct pt_regs *regs, u64 addr)
{
	int rctx;

	preempt_disable_notrace();
	rctx = perf_swevent_get_recursion_context();
	if (rctx >= 0) {
		___perf_sw_event(event_id, nr, regs, addr);
		perf_swevent_put_recursion_context(rctx);
	}
	preempt_enable_notrace();
}

static void swevent_destroy(struct perf_event *event)
{
	static_key_slow_dec(&perf_swevent_enabled[event->attr.config]);
}

static struct pmu perf_swevent;
static struct pmu perf_cpu_clock;
static struct pmu perf_task_clock;

static int swevent_init(struct perf_event *event)
{
	u64 id = event->attr.config;

	if (event->attr.type != PERF_TYPE_SOFTWARE)
		return -ENOENT;
	if (has_branch_stack(event))
		return -EOPNOTSUPP;

	/* The clocks are PMUs of their own: hand the event over. */
	if (id == PERF_COUNT_SW_CPU_CLOCK) {
		event->attr.type = perf_cpu_clock.type;
		return -ENOENT;
	}
	if (id == PERF_COUNT_SW_TASK_CLOCK) {
		event->attr.type = perf_task_clock.type;
		return -ENOENT;
	}
	if (id >= PERF_COUNT_SW_MAX)
		return -ENOENT;

	/* Copies live no longer than their original, which holds the key. */
	if (!event->parent) {
		static_key_slow_inc(&perf_swevent_enabled[id]);
		event->destroy = swevent_destroy;
	}
	return 0;
}

static int swevent_add(struct perf_event *event, int flags)
{
	struct hlist_head *head = this_cpu_ptr(&swevent_lists.heads[event->attr.config]);

	event->hw.state = (flags & PERF_EF_START) ? 0 : PERF_HES_STOPPED;
	/* Counting towards the next overflow resumes (or starts) here. */
	if (is_sampling_event(event)) {
		event->hw.last_period = event->hw.sample_period;
		perf_swevent_set_period(event);
	}
	hlist_add_head_rcu(&event->hlist_entry, head);
	perf_update_userpage_if_mapped(event);
	return 0;
}

static void swevent_del(struct perf_event *event, int flags)
{
	hlist_del_rcu(&event->hlist_entry);
}

static void swevent_start(struct perf_event *event, int flags)
{
	event->hw.state = 0;
}

static void swevent_stop(struct perf_event *event, int flags)
{
	event->hw.state = PERF_HES_STOPPED;
}

static void swevent_read(struct perf_event *event)
{
}

static struct pmu perf_swevent = {
	.capabilities	= PERF_PMU_CAP_NO_NMI,
	.task_ctx_nr	= perf_sw_context,
	.event_init	= swevent_init,
	.add		= swevent_add,
	.del		= swevent_del,
	.start		= swevent_start,
	.stop		= swevent_stop,
	.read		= swevent_read,
};

/* ---- clocks: count = sum of (now - prev_count) while running ---- */

/*
 * A sampling clock samples from an hrtimer on its CPU, every sample
 * period nanoseconds (10 us at least), in the interrupted context.
 */
static enum hrtimer_restart clock_hrtimer(struct hrtimer *timer)
{
	struct perf_event *event = container_of(timer, struct perf_event, hw.hrtimer);
	enum hrtimer_restart ret = HRTIMER_RESTART;
	struct perf_sample_data data __uninitialized;
	struct pt_regs *regs;

	if (event->state != PERF_EVENT_STATE_ACTIVE)
		return HRTIMER_NORESTART;

	event->pmu->read(event);
	perf_sample_data_init(&data, 0, event->hw.last_period);
	regs = get_irq_regs();
	if (regs && !swevent_excluded(event, regs) &&
	    !(event->attr.exclude_idle && is_idle_task(current))) {
		if (perf_event_overflow(event, &data, regs))
			ret = HRTIMER_NORESTART;
	}
	hrtimer_forward_now(timer, ns_to_ktime(max_t(u64, 10000,
						     event->hw.sample_period)));
	return ret;
}

static void clock_timer_start(struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;
	s64 left = local64_read(&hwc->period_left);

	if (!is_sampling_event(event))
		return;
	/* Resume the period that was running when the event went off. */
	if (left <= 0)
		left = hwc->sample_period;
	local64_set(&hwc->period_left, 0);
	hrtimer_start(&hwc->hrtimer, ns_to_ktime(max_t(s64, 10000, left)),
		      HRTIMER_MODE_REL_PINNED_HARD);
}

static void clock_timer_stop(struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;

	if (!is_sampling_event(event))
		return;
	/* Keep what was left of the period for the next start. */
	local64_set(&hwc->period_left,
		    ktime_to_ns(hrtimer_get_remaining(&hwc->hrtimer)));
	hrtimer_cancel(&hwc->hrtimer);
}

static void clock_timer_init(struct perf_event *event)
{
	if (!is_sampling_event(event))
		return;
	hrtimer_init(&event->hw.hrtimer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	event->hw.hrtimer.function = clock_hrtimer;
}

static u64 cpu_clock_now(struct perf_event *event)
{
	return local_clock();
}

/* The context's time as of its last update: what starts and stops use. */
static u64 task_clock_now(struct perf_event *event)
{
	return event->ctx->time;
}

/* The context's time right now, for reads between updates (samples). */
static u64 task_clock_now_exact(struct perf_event *event)
{
	struct perf_event_context *ctx = event->ctx;
	u64 t = READ_ONCE(ctx->time);

	if (READ_ONCE(ctx->is_active) & EVENT_TIME)
		t += perf_clock() - READ_ONCE(ctx->timestamp);
	return t;
}

static void clock_update(struct perf_event *event, u64 now)
{
	u64 prev = local64_xchg(&event->hw.prev_count, now);

	local64_add(now - prev, &event->count);
}

static int clock_init(struct perf_event *event, struct pmu *pmu, u64 config)
{
	struct hw_perf_event *hwc = &event->hw;

	if (event->attr.type != pmu->type)
		return -ENOENT;
	if (event->attr.config != config)
		return -ENOENT;
	if (has_branch_stack(event))
		return -EOPNOTSUPP;

	/*
	 * A clock knows its rate: a sampling frequency becomes the
	 * equivalent fixed period in nanoseconds, once and for all.
	 */
	if (is_sampling_event(event) && event->attr.freq) {
		event->attr.sample_period = NSEC_PER_SEC / event->attr.sample_freq;
		event->attr.freq = 0;
		hwc->sample_period = event->attr.sample_period;
		hwc->last_period = hwc->sample_period;
		local64_set(&hwc->period_left, hwc->sample_period);
	}
	clock_timer_init(event);
	return 0;
}

static int cpu_clock_init(struct perf_event *event)
{
	return clock_init(event, &perf_cpu_clock, PERF_COUNT_SW_CPU_CLOCK);
}

static void cpu_clock_start(struct perf_event *event, int flags)
{
	local64_set(&event->hw.prev_count, cpu_clock_now(event));
	event->hw.state = 0;
	clock_timer_start(event);
}

static void cpu_clock_stop(struct perf_event *event, int flags)
{
	if (event->hw.state & PERF_HES_STOPPED)
		return;
	clock_timer_stop(event);
	clock_update(event, cpu_clock_now(event));
	event->hw.state = PERF_HES_STOPPED;
}

static int cpu_clock_add(struct perf_event *event, int flags)
{
	event->hw.state = PERF_HES_STOPPED;
	if (flags & PERF_EF_START)
		cpu_clock_start(event, flags);
	perf_update_userpage_if_mapped(event);
	return 0;
}

static void cpu_clock_del(struct perf_event *event, int flags)
{
	cpu_clock_stop(event, flags);
}

static void cpu_clock_read(struct perf_event *event)
{
	if (!(event->hw.state & PERF_HES_STOPPED))
		clock_update(event, cpu_clock_now(event));
}

static struct pmu perf_cpu_clock = {
	.dev		= PMU_NULL_DEV,		/* no sysfs device */
	.capabilities	= PERF_PMU_CAP_NO_NMI,
	.task_ctx_nr	= perf_sw_context,
	.event_init	= cpu_clock_init,
	.add		= cpu_clock_add,
	.del		= cpu_clock_del,
	.start		= cpu_clock_start,
	.stop		= cpu_clock_stop,
	.read		= cpu_clock_read,
};

static int task_clock_init(struct perf_event *event)
{
	return clock_init(event, &perf_task_clock, PERF_COUNT_SW_TASK_CLOCK);
}

static void task_clock_start(struct perf_event *event, int flags)
{
	local64_set(&event->hw.prev_count, task_clock_now(event));
	event->hw.state = 0;
	clock_timer_start(event);
}

static void task_clock_stop(struct perf_event *event, int flags)
{
	if (event->hw.state & PERF_HES_STOPPED)
		return;
	clock_timer_stop(event);
	clock_update(event, task_clock_now(event));
	event->hw.state = PERF_HES_STOPPED;
}

static int task_clock_add(struct perf_event *event, int flags)
{
	event->hw.state = PERF_HES_STOPPED;
	if (flags & PERF_EF_START)
		task_clock_start(event, flags);
	perf_update_userpage_if_mapped(event);
	return 0;
}

static void task_clock_del(struct perf_event *event, int flags)
{
	task_clock_stop(event, flags);
}

static void task_clock_read(struct perf_event *event)
{
	if (!(event->hw.state & PERF_HES_STOPPED))
		clock_update(event, task_clock_now_exact(event));
}

static struct pmu perf_task_clock = {
	.dev		= PMU_NULL_DEV,		/* no sysfs device */
	.capabilities	= PERF_PMU_CAP_NO_NMI,
	.task_ctx_nr	= perf_sw_context,
	.event_init	= task_clock_init,
	.add		= task_clock_add,
	.del		= task_clock_del,
	.start		= task_clock_start,
	.stop		= task_clock_stop,
	.read		= task_clock_read,
};

/**
 * perf_bp_event - a hardware breakpoint fired
 * @bp: its event
 * @data: the register frame of the hit
 */
void perf_bp_event(struct perf_event *bp, void *data)
{
	struct perf_sample_data sample __uninitialized;
	struct pt_regs *regs = data;

	perf_sample_data_init(&sample, bp->attr.bp_addr, 0);
	if (!bp->hw.state && !swevent_excluded(bp, regs))
		perf_swevent_count(bp, 1, &sample, regs);
}

/**
 * perf_swevent_init_cpu - prepare a CPU's software event lists
 * @cpu: the CPU
 */
void perf_swevent_init_cpu(unsigned int cpu)
{
	struct swevent_lists *lists = per_cpu_ptr(&swevent_lists, cpu);
	int i;

	for (i = 0; i < PERF_COUNT_SW_MAX; i++)
		INIT_HLIST_HEAD(&lists->heads[i]);
}

/**
 * perf_swevent_register - register the software PMUs; boot only
 */
void __init perf_swevent_register(void)
{
	perf_pmu_register(&perf_swevent, "software", PERF_TYPE_SOFTWARE);
	perf_pmu_register(&perf_cpu_clock, "cpu_clock", -1);
	perf_pmu_register(&perf_task_clock, "task_clock", -1);
}
