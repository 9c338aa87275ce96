// SPDX-License-Identifier: GPL-2.0-only
/*
 * The x86 PMU layer: the "cpu" PMU (PERF_TYPE_RAW, and through it
 * PERF_TYPE_HARDWARE and PERF_TYPE_HW_CACHE) on the counters a vendor
 * driver describes (struct x86_vendor).
 *
 * A hybrid part, whose core types have counters of their own, gets one
 * PMU per core type instead (struct x86_pmu_type), named by the vendor:
 * the first takes PERF_TYPE_RAW, the others a type of their own, and all
 * take hardware and cache events with their type in the config's upper
 * bits (PERF_PMU_CAP_EXTENDED_HW_TYPE).  Each CPU takes the type its
 * core type names as it comes online (its "cpus"); an event of a type
 * counts only there (pmu->filter), and a CPU's event of another type's
 * CPU is not the type's (-ENOENT, so that the core offers it on).
 *
 * Each CPU keeps the events added to its counters in the order they came
 * (struct x86_cpu_pmu).  add() appends an event and assigns counters to
 * the whole list again (assign.c), keeping each placed event where it is
 * when possible; in a group transaction the assignment waits for
 * commit_txn().  Events are programmed when the PMU is enabled again
 * (the core adds and removes them between pmu_disable() and
 * pmu_enable()): first every event that has to move is stopped, then
 * every unplaced event is placed and, unless it was stopped on purpose
 * (PERF_HES_ARCH), started.
 *
 * Counts: a counter is width bits wide; each read folds the difference
 * since the last read into the 64-bit count.  A counter is started at
 * -left, left being what remains of the period (max_period for counting
 * events), so it overflows when the period is over; the PMI (an NMI
 * through the local APIC's LVTPC) folds the count, starts the next
 * period and hands the sample to perf_event_overflow().  Counters a
 * vendor reads only together (X86_EVENT_FOLDED: Intel's topdown) start
 * from 0 instead, and are folded into their events' counts all at once
 * by the vendor, with the counters stopped, whenever one of them is
 * read, starts or stops, or one of their overflow bits is set.
 *
 * User space may read a counter with rdpmc when it has mapped the event
 * (the rdpmc knob in sysfs: 0 never, 1 with a mapped event, 2 always):
 * mapping turns CR4.PCE on for the mm on every CPU it runs on, and
 * counters used since are cleared on a switch to an mm that may read
 * them, so that no other task's counts leak.
 *
 * Locking: the per-CPU state is touched only on its CPU with interrupts
 * off (the core's callbacks) or in the PMI on that CPU, which the
 * callbacks cannot race with because they run with the PMU disabled or
 * leave the tables consistent before each counter is enabled.  The
 * vendor description is written once at boot.
 */
#include <linux/cpu.h>
#include <linux/init.h>
#include <linux/kprobes.h>
#include <linux/math64.h>
#include <linux/mmu_context.h>
#include <linux/nmi.h>
#include <linux/nospec.h>
#include <linux/perf_event.h>
#include <linux/perf_regs.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include <asm/apic.h>
#include <asm/cpu.h>
#include <asm/perf_event.h>
#include <asm/timer.h>

#include "perf_event.h"
#include "x86_pmu.h"
#include "x86_type.h"

/*
 * Not __ro_after_init: the core writes its struct pmu after boot (the
 * perf_event_mux_interval_ms file stores the rotation interval there),
 * and @cpus follows hotplug.  The descriptions are written once, before
 * the PMUs are registered.
 */
static struct x86_pmu_type x86_types[X86_MAX_TYPES];
static int x86_nr_types __ro_after_init;
static bool x86_pmu_ready __ro_after_init;

/* The description of the counters an event of ours counts on. */
static const struct x86_vendor *x86_v(struct perf_event *event)
{
	return &x86_pmu_type(event->pmu)->v;
}

/*
 * The most hardware events one CPU takes at once: more than any x86 PMU
 * has counters (a group that big could never count anyway).
 */
#define X86_PMU_MAX_EVENTS	32

/**
 * struct x86_cpu_pmu - one CPU's counters
 * @ev: the events added, in order
 * @assign: the counter of each, once assigned
 * @n: events added
 * @n_txn: of which in the open transaction
 * @txn: the open transaction's flags
 * @placed: the event each counter is given to
 * @running: the counters started
 * @dirty: counters used since user space could last read them
 * @disabled: between pmu_disable() and pmu_enable()
 * @stale: the assignment changed and the counters wait for it
 * @t: the PMU of the CPU's counters, from when it came online
 */
struct x86_cpu_pmu {
	struct perf_event *ev[X86_PMU_MAX_EVENTS];
	int assign[X86_PMU_MAX_EVENTS];
	int n;
	int n_txn;
	unsigned int txn;
	struct perf_event *placed[X86_ASSIGN_COUNTERS];
	u64 running;
	u64 dirty;
	bool disabled;
	bool stale;
	struct x86_pmu_type *t;
};

static DEFINE_PER_CPU(struct x86_cpu_pmu, x86_cpu_pmu);

/*
 * How long after a PMI an NMI nobody claims is taken for a late PMI of
 * a CPU with the vendor's late_pmi (upstream's perf_nmi_window), and when this
 * CPU's window ends.
 */
#define X86_LATE_PMI_MS	100
static DEFINE_PER_CPU(unsigned long, x86_late_pmi_until);

/* Hardware events in existence: until there is one, NMIs are not ours. */
static atomic_t x86_events = ATOMIC_INIT(0);

static int rdpmc_index(int idx)
{
	return idx >= X86_ASSIGN_FIXED_BASE ?
		(1 << 30) | (idx - X86_ASSIGN_FIXED_BASE) : idx;
}

static bool x86_event_paired(struct perf_event *event)
{
	return event->hw.flags & X86_EVENT_PAIR;
}

static bool x86_event_folded(struct perf_event *event)
{
	return event->hw.flags & X86_EVENT_FOLDED;
}

/* Of @counters, those given to folded events. */
static u64 x86_folded(struct x86_cpu_pmu *c, u64 counters)
{
	u64 m = counters & c->t->v.fold_counters, which = 0;
	int idx;

	for (; m; m &= m - 1) {
		idx = __ffs64(m);
		if (c->placed[idx] && x86_event_folded(c->placed[idx]))
			which |= BIT_ULL(idx);
	}
	return which;
}

/*
 * Stop the counters for a moment, unless they are already: in the PMI,
 * and between pmu_disable() and pmu_enable().  Marked disabled, so that
 * a PMI in between leaves them so.  Returns whether x86_restart() must
 * start them again.  Not through perf_pmu_disable(): its pmu_enable()
 * would start them in the middle of the PMI.
 */
static bool x86_pause(struct x86_cpu_pmu *c)
{
	if (c->disabled || in_nmi())
		return false;
	c->disabled = true;
	c->t->v.disable_all();
	return true;
}

static void x86_restart(struct x86_cpu_pmu *c, bool paused)
{
	if (!paused)
		return;
	c->disabled = false;
	c->t->v.enable_all(c->t->v.counters);
}

/* Fold the counts of the running folded events, the counters stopped. */
static void x86_fold(struct x86_cpu_pmu *c)
{
	bool paused = x86_pause(c);

	c->t->v.fold(c->placed, x86_folded(c, c->running), 0);
	x86_restart(c, paused);
}

/*
 * Fold what the counter counted since the last fold into the count.  A
 * folded event's count is folded with the others' (x86_fold()) instead.
 */
static void x86_event_update(struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;
	const struct x86_vendor *v = x86_v(event);
	int shift = 64 - v->width;
	u64 prev = local64_read(&hwc->prev_count), now, delta;

	if (x86_event_folded(event) || (hwc->flags & X86_EVENT_NO_COUNTER))
		return;
	do {
		now = v->read(hwc->idx);
	} while (!local64_try_cmpxchg(&hwc->prev_count, &prev, now));

	delta = ((now << shift) - (prev << shift)) >> shift;
	local64_add(delta, &event->count);
	local64_sub(delta, &hwc->period_left);
}

/*
 * Start the counter at -left for what remains of the period.  True when
 * a period ended since the last call: a sample is due.
 */
static bool x86_set_period(struct perf_event *event)
{
	const struct x86_vendor *v = x86_v(event);
	struct hw_perf_event *hwc = &event->hw;
	s64 left = local64_read(&hwc->period_left);
	s64 period = hwc->sample_period;
	bool due = false;

	if (unlikely(left <= -period)) {
		left = period;
		local64_set(&hwc->period_left, left);
		hwc->last_period = period;
		due = true;
	}
	if (unlikely(left <= 0)) {
		left += period;
		local64_set(&hwc->period_left, left);
		hwc->last_period = period;
		due = true;
	}
	if (left > v->max_period)
		left = v->max_period;
	/* A counter one event short of the wrap may miss it. */
	if (left < 2)
		left = 2;
	if ((hwc->flags & X86_EVENT_PDIST) && left < X86_PDIST_MIN_PERIOD)
		left = X86_PDIST_MIN_PERIOD;

	local64_set(&hwc->prev_count, (u64)-left);
	/*
	 * A pair (AMD's MergeEvent) is one 64-bit counter whose high 16
	 * bits are the odd counter's low 16: they take the sign of -left
	 * first, as the PPR asks, or the pair would wrap only after 2^64
	 * events and never interrupt.
	 */
	if (x86_event_paired(event))
		v->write(hwc->idx + 1, 0xffff);
	v->write(hwc->idx, (u64)-left);
	return due;
}

static void cpu_start(struct perf_event *event, int flags)
{
	struct x86_cpu_pmu *c = this_cpu_ptr(&x86_cpu_pmu);
	struct hw_perf_event *hwc = &event->hw;

	if (WARN_ON_ONCE(hwc->idx < 0 || !(hwc->state & PERF_HES_STOPPED)))
		return;
	if (x86_event_folded(event)) {
		/* The others' counts so far, and its counter from 0. */
		x86_fold(c);
	} else if ((flags & PERF_EF_RELOAD) && !(hwc->flags & X86_EVENT_NO_COUNTER)) {
		WARN_ON_ONCE(!(hwc->state & PERF_HES_UPTODATE));
		x86_set_period(event);
	}
	hwc->state = 0;
	c->running |= BIT_ULL(hwc->idx);
	/* A pair's odd counter holds the high part of the count. */
	if (!(hwc->flags & X86_EVENT_NO_COUNTER))
		c->dirty |= (x86_event_paired(event) ? 3ULL : 1ULL) << hwc->idx;
	x86_v(event)->enable(event);
	perf_event_update_userpage(event);
}

static void cpu_stop(struct perf_event *event, int flags)
{
	struct x86_cpu_pmu *c = this_cpu_ptr(&x86_cpu_pmu);
	struct hw_perf_event *hwc = &event->hw;

	if (!(hwc->state & PERF_HES_STOPPED)) {
		/* Its count (and the others') up to now. */
		if (x86_event_folded(event))
			x86_fold(c);
		x86_v(event)->disable(event);
		c->running &= ~BIT_ULL(hwc->idx);
		hwc->state |= PERF_HES_STOPPED;
	}
	if ((flags & PERF_EF_UPDATE) && !(hwc->state & PERF_HES_UPTODATE)) {
		x86_event_update(event);
		hwc->state |= PERF_HES_UPTODATE;
	}
}

static void cpu_read(struct perf_event *event)
{
	const struct x86_vendor *v = x86_v(event);
	struct x86_cpu_pmu *c = this_cpu_ptr(&x86_cpu_pmu);

	if (event->hw.state & PERF_HES_UPTODATE)
		return;
	/* Records not drained yet hold some of a reloading event's count. */
	if ((event->hw.flags & X86_EVENT_PRECISE_LARGE) && v->drain) {
		bool paused = x86_pause(c);

		v->drain(NULL);
		x86_restart(c, paused);
	}
	if (x86_event_folded(event))
		x86_fold(c);
	else
		x86_event_update(event);
}

static u64 x86_event_counters(struct perf_event *event)
{
	const struct x86_vendor *v = x86_v(event);

	if (event->hw.flags & X86_EVENT_BTS)
		return BIT_ULL(X86_BTS_IDX);
	if (event->hw.flags & X86_EVENT_VLBR)
		return BIT_ULL(X86_VLBR_IDX);
	if (event->hw.flags & X86_EVENT_PRECISE)
		return v->precise_constraint(v, event) &
		       v->precise_counters & v->counters;
	return v->constraint(v, event->hw.config) & v->counters;
}

/* Event @ev's wish for the assignment; @prev its counter, or -1. */
static void x86_req(struct x86_assign_req *r, struct perf_event *ev, int prev)
{
	r->mask = x86_event_counters(ev);
	r->prev = prev;
	r->pair = x86_event_paired(ev);
}

/* The counters event @i of the CPU holds: its own, and the next if paired. */
static u64 x86_assigned(struct x86_cpu_pmu *c, int i)
{
	u64 m = BIT_ULL(c->assign[i]);

	return x86_event_paired(c->ev[i]) ? m | m << 1 : m;
}

/*
 * Assign counters to the CPU's @n first events; 0 or -EINVAL.  The
 * assignment is worked out apart and kept only when every event has a
 * counter: a failed one leaves the events placed before where they are.
 */
static int x86_schedule(struct x86_cpu_pmu *c, int n)
{
	struct x86_assign_req req[X86_PMU_MAX_EVENTS];
	int assign[X86_PMU_MAX_EVENTS];
	int i, err;

	for (i = 0; i < n; i++) {
		struct perf_event *ev = c->ev[i];
		int idx = ev->hw.idx;

		x86_req(&req[i], ev, idx >= 0 && c->placed[idx] == ev ? idx : -1);
	}
	err = x86_assign_counters(req, n, 0, assign);
	if (!err)
		memcpy(c->assign, assign, n * sizeof(*assign));
	return err;
}

/*
 * Assign counters to events @first to @n - 1 of the CPU, those before
 * keeping theirs: each takes a free counter of its mask (a fixed one
 * first), which is what a full assignment would give it too.  Only
 * when one finds none does the full assignment run, which may move
 * the others.  0 or -EINVAL.
 */
static int x86_schedule_added(struct x86_cpu_pmu *c, int first, int n)
{
	u64 used = 0, free;
	int i;

	for (i = 0; i < first; i++)
		used |= x86_assigned(c, i);
	for (i = first; i < n; i++) {
		free = x86_event_counters(c->ev[i]) & ~used;
		/* Pairs need two counters: the full assignment finds them. */
		if (!free || x86_event_paired(c->ev[i]))
			return x86_schedule(c, n);
		if (free & ~GENMASK_ULL(X86_ASSIGN_FIXED_BASE - 1, 0))
			free &= ~GENMASK_ULL(X86_ASSIGN_FIXED_BASE - 1, 0);
		c->assign[i] = __ffs64(free);
		used |= x86_assigned(c, i);
	}
	return 0;
}

static void x86_set_counter(struct perf_event *event, int idx)
{
	struct hw_perf_event *hwc = &event->hw;

	hwc->idx = idx;
	hwc->event_base_rdpmc = rdpmc_index(idx);
	hwc->last_cpu = smp_processor_id();
}

/* Program the counters as the assignment says. */
static void x86_reprogram(struct x86_cpu_pmu *c)
{
	int i;

	/* First off every counter whose event moves, so none is shared. */
	for (i = 0; i < c->n; i++) {
		struct perf_event *ev = c->ev[i];
		struct hw_perf_event *hwc = &ev->hw;

		if (hwc->idx < 0 || c->placed[hwc->idx] != ev ||
		    hwc->idx == c->assign[i])
			continue;
		/* Stopped on purpose stays stopped; running restarts. */
		if (hwc->state & PERF_HES_STOPPED)
			hwc->state |= PERF_HES_ARCH;
		cpu_stop(ev, PERF_EF_UPDATE);
		c->placed[hwc->idx] = NULL;
		hwc->idx = -1;
	}
	for (i = 0; i < c->n; i++) {
		struct perf_event *ev = c->ev[i];
		struct hw_perf_event *hwc = &ev->hw;

		if (hwc->idx >= 0 && c->placed[hwc->idx] == ev)
			continue;
		x86_set_counter(ev, c->assign[i]);
		c->placed[hwc->idx] = ev;
		if (hwc->state & PERF_HES_ARCH)
			continue;
		cpu_start(ev, PERF_EF_RELOAD);
	}
	/*
	 * A PMI that found no event of ours (one late after the last event
	 * went) left LVTPC masked: events placed now need it open.
	 */
	perf_events_lapic_init();
}

static int cpu_add(struct perf_event *event, int flags)
{
	struct x86_cpu_pmu *c = this_cpu_ptr(&x86_cpu_pmu);
	const struct x86_vendor *v = x86_v(event);
	struct hw_perf_event *hwc = &event->hw;
	int n = c->n;

	if (n >= X86_PMU_MAX_EVENTS)
		return -EINVAL;
	hwc->idx = -1;
	hwc->state = PERF_HES_UPTODATE | PERF_HES_STOPPED;
	if (!(flags & PERF_EF_START))
		hwc->state |= PERF_HES_ARCH;
	/* A register beside the counter that others hold: not now. */
	if (v->get_extra && v->get_extra(v, event))
		return -EINVAL;
	c->ev[n] = event;

	if (c->txn & PERF_PMU_TXN_ADD) {
		c->n++;
		c->n_txn++;
		return 0;
	}
	if (x86_schedule_added(c, n, n + 1)) {
		if (v->put_extra)
			v->put_extra(v, event);
		return -EINVAL;
	}
	c->n++;
	if (c->disabled)
		c->stale = true;
	else
		x86_reprogram(c);
	return 0;
}

static void cpu_del(struct perf_event *event, int flags)
{
	struct x86_cpu_pmu *c = this_cpu_ptr(&x86_cpu_pmu);
	const struct x86_vendor *v = x86_v(event);
	struct hw_perf_event *hwc = &event->hw;
	int i;

	cpu_stop(event, PERF_EF_UPDATE);
	if (hwc->idx >= 0 && c->placed[hwc->idx] == event)
		c->placed[hwc->idx] = NULL;
	for (i = 0; i < c->n; i++)
		if (c->ev[i] == event)
			break;
	if (WARN_ON_ONCE(i == c->n))
		return;
	if ((c->txn & PERF_PMU_TXN_ADD) && i >= c->n - c->n_txn)
		c->n_txn--;
	for (; i + 1 < c->n; i++) {
		c->ev[i] = c->ev[i + 1];
		c->assign[i] = c->assign[i + 1];
	}
	c->n--;
	hwc->idx = -1;
	if (v->put_extra)
		v->put_extra(v, event);
	perf_event_update_userpage(event);
}

static void cpu_start_txn(struct pmu *pmu, unsigned int flags)
{
	struct x86_cpu_pmu *c = this_cpu_ptr(&x86_cpu_pmu);

	WARN_ON_ONCE(c->txn);
	c->txn = flags;
	if (flags & ~PERF_PMU_TXN_ADD)
		return;
	perf_pmu_disable(pmu);
	c->n_txn = 0;
}

static int cpu_commit_txn(struct pmu *pmu)
{
	struct x86_cpu_pmu *c = this_cpu_ptr(&x86_cpu_pmu);

	if (c->txn & ~PERF_PMU_TXN_ADD) {
		c->txn = 0;
		return 0;
	}
	if (c->n_txn && x86_schedule_added(c, c->n - c->n_txn, c->n))
		return -EINVAL;
	if (c->n_txn)
		c->stale = true;
	c->txn = 0;
	perf_pmu_enable(pmu);
	return 0;
}

static void cpu_cancel_txn(struct pmu *pmu)
{
	struct x86_cpu_pmu *c = this_cpu_ptr(&x86_cpu_pmu);
	unsigned int flags = c->txn;

	c->txn = 0;
	if (flags & ~PERF_PMU_TXN_ADD)
		return;
	/* The core has taken the group's events off again (del()). */
	WARN_ON_ONCE(c->n_txn);
	perf_pmu_enable(pmu);
}

static void cpu_pmu_enable(struct pmu *pmu)
{
	struct x86_cpu_pmu *c = this_cpu_ptr(&x86_cpu_pmu);

	/* The counters are the CPU's type's: another type's PMU has none here. */
	if (!c->disabled || !c->t || pmu != &c->t->pmu)
		return;
	if (c->stale) {
		c->stale = false;
		x86_reprogram(c);
	}
	/* Only now may a PMI turn the counters back on. */
	c->disabled = false;
	c->t->v.enable_all(c->t->v.counters);
}

static void cpu_pmu_disable(struct pmu *pmu)
{
	struct x86_cpu_pmu *c = this_cpu_ptr(&x86_cpu_pmu);

	if (c->disabled || !c->t || pmu != &c->t->pmu)
		return;
	c->disabled = true;
	c->t->v.disable_all();
}

/*
 * A PERF_TYPE_HW_CACHE event's counter config, from the vendor's table:
 * cache in bits 7:0 of @config, operation in 15:8, result in 23:16 (the
 * bits above are ignored).  Without a table, no event (-ENOENT).
 */
static int x86_cache_config(const struct x86_vendor *v, u64 config, u64 *out)
{
	unsigned int type = config & 0xff, op = (config >> 8) & 0xff;
	unsigned int result = (config >> 16) & 0xff;

	if (type >= PERF_COUNT_HW_CACHE_MAX || op >= PERF_COUNT_HW_CACHE_OP_MAX ||
	    result >= PERF_COUNT_HW_CACHE_RESULT_MAX)
		return -EINVAL;
	if (!v->cache_event)
		return -ENOENT;
	*out = v->cache_event(v, array_index_nospec(type, PERF_COUNT_HW_CACHE_MAX),
				array_index_nospec(op, PERF_COUNT_HW_CACHE_OP_MAX),
				array_index_nospec(result, PERF_COUNT_HW_CACHE_RESULT_MAX));
	if (*out == X86_CACHE_INVALID)
		return -EINVAL;
	return *out ? 0 : -ENOENT;
}

/* Whether the group @event joins still fits the counters on its own. */
static int x86_validate_group(struct perf_event *event)
{
	struct x86_assign_req req[X86_PMU_MAX_EVENTS];
	int assign[X86_PMU_MAX_EVENTS];
	struct perf_event *leader = event->group_leader, *sib;
	int n = 0;

	if (leader->pmu == event->pmu)
		x86_req(&req[n++], leader, -1);
	for_each_sibling_event(sib, leader) {
		if (sib->pmu != event->pmu || sib->state <= PERF_EVENT_STATE_OFF)
			continue;
		if (n >= X86_PMU_MAX_EVENTS)
			return -EINVAL;
		x86_req(&req[n++], sib, -1);
	}
	if (n >= X86_PMU_MAX_EVENTS)
		return -EINVAL;
	x86_req(&req[n++], event, -1);
	return x86_assign_counters(req, n, 0, assign);
}

/*
 * The branch recorders that cannot run together (IA32_DEBUGCTL is
 * theirs to share, from the PMI too): the users of the LBR and BTS.
 * Held from an event's init to its destroy, both in process context;
 * x86_branches_lock guards the counts.
 */
static DEFINE_SPINLOCK(x86_branches_lock);
static int x86_branches_users[X86_BRANCHES_NR];

/**
 * x86_branches_get - hold the branch recorders for one kind of user
 * @who: the kind
 *
 * Return: 0, or -EBUSY while another kind holds them (upstream's errno).
 */
int x86_branches_get(enum x86_branches who)
{
	int i, err = 0;

	spin_lock(&x86_branches_lock);
	for (i = 0; i < X86_BRANCHES_NR; i++)
		if (i != who && x86_branches_users[i])
			err = -EBUSY;
	if (!err)
		x86_branches_users[who]++;
	spin_unlock(&x86_branches_lock);
	return err;
}

/**
 * x86_branches_put - let go of what x86_branches_get() held
 * @who: the kind it was held for
 */
void x86_branches_put(enum x86_branches who)
{
	spin_lock(&x86_branches_lock);
	x86_branches_users[who]--;
	spin_unlock(&x86_branches_lock);
}

/* Whether @event uses the LBR or the branch trace store's sampler. */
static bool x86_event_branches(struct perf_event *event)
{
	return needs_branch_stack(event) || (event->hw.flags & X86_EVENT_BTS);
}

static void x86_event_destroy(struct perf_event *event)
{
	if (x86_event_branches(event))
		x86_branches_put(X86_BRANCHES_LBR);
	atomic_dec(&x86_events);
}

static int cpu_event_init(struct perf_event *event)
{
	const struct x86_vendor *v = x86_v(event);
	struct perf_event_attr *attr = &event->attr;
	struct hw_perf_event *hwc = &event->hw;
	u64 config;
	int err;

	/* Another core type's CPU: the core offers the event on. */
	if (x86_nr_types > 1 && event->cpu >= 0 &&
	    !cpumask_test_cpu(event->cpu, &x86_pmu_type(event->pmu)->cpus))
		return -ENOENT;
	if (attr->type != PERF_TYPE_HARDWARE && attr->type != PERF_TYPE_HW_CACHE &&
	    attr->type != event->pmu->type)
		return -ENOENT;
	/* Precise events another PMU samples go there (AMD: to IBS). */
	if (attr->precise_ip && v->forward) {
		err = v->forward(event);
		if (err)
			return err;
	}
	if (attr->type == PERF_TYPE_HARDWARE) {
		if (attr->config >= PERF_COUNT_HW_MAX)
			return -EINVAL;
		config = v->event_map(v, array_index_nospec(attr->config,
							      PERF_COUNT_HW_MAX));
		if (!config)
			return -ENOENT;
	} else if (attr->type == PERF_TYPE_HW_CACHE) {
		err = x86_cache_config(v, attr->config, &config);
		if (err)
			return err;
	} else {
		config = attr->config & v->config_mask;
	}

	/*
	 * The vendor's hw_config makes a precise event of it; one that
	 * samples nothing has nothing to be precise about.
	 */
	if (attr->precise_ip > v->max_precise)
		return -EOPNOTSUPP;
	if (attr->precise_ip && !is_sampling_event(event))
		return -EINVAL;
	if (needs_branch_stack(event)) {
		if (!v->branches)
			return -EOPNOTSUPP;
		err = v->branch_config(v, event);
		if (err)
			return err;
	}
	/*
	 * The XMM registers come only in the records of precise events
	 * (adaptive PEBS), never as user-space registers.
	 */
	if (attr->sample_regs_user & PERF_REG_EXTENDED_MASK)
		return -EINVAL;
	if ((attr->sample_regs_intr & PERF_REG_EXTENDED_MASK) &&
	    (!attr->precise_ip ||
	     !(event->pmu->capabilities & PERF_PMU_CAP_EXTENDED_REGS)))
		return -EINVAL;

	hwc->config = config | ARCH_PERFMON_EVENTSEL_INT;
	if (!attr->exclude_user)
		hwc->config |= ARCH_PERFMON_EVENTSEL_USR;
	if (!attr->exclude_kernel)
		hwc->config |= ARCH_PERFMON_EVENTSEL_OS;
	hwc->flags = 0;
	if (v->hw_config) {
		err = v->hw_config(v, event);
		if (err)
			return err;
	}
	if (!x86_event_counters(event))
		return -EINVAL;
	hwc->idx = -1;
	hwc->last_cpu = -1;
	if (READ_ONCE(x86_rdpmc_mode) && !x86_event_folded(event) &&
	    !(hwc->flags & X86_EVENT_NO_COUNTER))
		hwc->flags |= PERF_EVENT_FLAG_USER_READ_CNT;

	if (!is_sampling_event(event)) {
		hwc->sample_period = v->max_period;
		hwc->last_period = hwc->sample_period;
		local64_set(&hwc->period_left, hwc->sample_period);
	}

	if (event->group_leader != event) {
		err = x86_validate_group(event);
		if (err)
			return err;
	}
	if (x86_event_branches(event) && x86_branches_get(X86_BRANCHES_LBR))
		return -EBUSY;
	atomic_inc(&x86_events);
	event->destroy = x86_event_destroy;
	return 0;
}

static int cpu_check_period(struct perf_event *event, u64 period)
{
	const struct x86_vendor *v = x86_v(event);

	return v->check_period ? v->check_period(v, event, period) : 0;
}

static int cpu_event_idx(struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;

	if (!(hwc->flags & PERF_EVENT_FLAG_USER_READ_CNT) || hwc->idx < 0)
		return 0;
	return hwc->event_base_rdpmc + 1;
}

static void cpu_event_mapped(struct perf_event *event, struct mm_struct *mm)
{
	if (!(event->hw.flags & PERF_EVENT_FLAG_USER_READ_CNT))
		return;
	/* The first mapped event of the mm turns CR4.PCE on where it runs. */
	if (atomic_inc_return(&mm->context.perf_rdpmc_allowed) == 1)
		on_each_cpu_mask(mm_cpumask(mm), cr4_update_pce, NULL, 1);
}

static void cpu_event_unmapped(struct perf_event *event, struct mm_struct *mm)
{
	if (!(event->hw.flags & PERF_EVENT_FLAG_USER_READ_CNT))
		return;
	if (atomic_dec_and_test(&mm->context.perf_rdpmc_allowed))
		on_each_cpu_mask(mm_cpumask(mm), cr4_update_pce, NULL, 1);
}

/**
 * x86_perf_rdpmc_index - the rdpmc index of an event's counter
 * @event: a hardware event counting on this CPU
 *
 * Called with interrupts off, so that the event stays on its counter.
 *
 * Return: the value for rdpmc's ECX.
 */
int x86_perf_rdpmc_index(struct perf_event *event)
{
	lockdep_assert_irqs_disabled();
	return event->hw.event_base_rdpmc;
}

/**
 * x86_pmu_vendor - the counters' description, for the guest interface
 *
 * Return: the vendor driver's description of every CPU's counters (the
 * first type's where the part's cores are all of it), or NULL when no
 * driver runs them or the CPUs' counters differ (a hybrid part, to which
 * no virtual PMU is offered).
 */
const struct x86_vendor *x86_pmu_vendor(void)
{
	if (!x86_pmu_ready ||
	    (x86_nr_types > 1 && boot_cpu_has(X86_FEATURE_HYBRID_CPU)))
		return NULL;
	return &x86_types[0].v;
}

/**
 * x86_pmu_first_vendor - the first core type's counters' description
 *
 * Return: the description of the boot CPU's type's counters where the
 * part has one, the P-cores' on a hybrid part, or NULL when no driver
 * runs the counters.  For what all types share (their LBR here).
 */
const struct x86_vendor *x86_pmu_first_vendor(void)
{
	return x86_pmu_ready ? &x86_types[0].v : NULL;
}

/**
 * x86_cpu_vendor - this CPU's counters' description
 *
 * Called with interrupts off.
 *
 * Return: the vendor driver's description of this CPU's counters, or
 * NULL when no driver runs them.
 */
const struct x86_vendor *x86_cpu_vendor(void)
{
	struct x86_pmu_type *t = this_cpu_read(x86_cpu_pmu.t);

	lockdep_assert_irqs_disabled();
	return t ? &t->v : NULL;
}

/* The counters given to events, stopped ones and pairs' odd halves too. */
static u64 x86_placed_mask(struct x86_cpu_pmu *c)
{
	u64 m = 0;
	int idx;

	for (idx = 0; idx < X86_ASSIGN_COUNTERS; idx++) {
		if (!c->placed[idx])
			continue;
		m |= BIT_ULL(idx);
		if (x86_event_paired(c->placed[idx]))
			m |= BIT_ULL(idx + 1);
	}
	return m;
}

/**
 * perf_clear_dirty_counters - clear counters user space could read by rdpmc
 *
 * Called on a switch to an mm that may use rdpmc: counters this CPU used
 * for other events since, and given to none now, are zeroed so that their
 * counts do not leak.  A counter placed for an event keeps its value even
 * while stopped (a throttled event restarts from it).
 */
void perf_clear_dirty_counters(void)
{
	struct x86_cpu_pmu *c = this_cpu_ptr(&x86_cpu_pmu);
	u64 stale, keep;
	int idx;

	if (!x86_pmu_ready || !c->t)
		return;
	keep = c->running | x86_placed_mask(c);
	stale = c->dirty & ~keep;
	while (stale) {
		idx = __ffs64(stale);
		stale &= stale - 1;
		c->t->v.write(idx, 0);
	}
	c->dirty &= keep;
}

/**
 * arch_perf_update_userpage - the architecture's part of the control page
 * @event: the event
 * @userpg: the page
 * @now: perf_clock() at the time the page's times were taken
 *
 * cap_user_rdpmc when user space may read the counter with rdpmc (index
 * is then the counter's rdpmc index plus one), pmc_width its width.
 * When the scheduler clock is the TSC and stable, user space can turn a
 * TSC value into the perf clock: time = time_offset + (tsc * time_mult)
 * >> time_shift, and with cap_user_time_zero, time_zero gives the clock's
 * origin.
 */
void arch_perf_update_userpage(struct perf_event *event,
			       struct perf_event_mmap_page *userpg, u64 now)
{
	struct cyc2ns_data cyc;
	u64 base;

	/* hw.flags is the counter PMUs' own: look at it for ours only. */
	userpg->cap_user_rdpmc = event->pmu->event_idx == cpu_event_idx &&
				 (event->hw.flags & PERF_EVENT_FLAG_USER_READ_CNT);
	userpg->pmc_width = userpg->cap_user_rdpmc ? x86_v(event)->width : 0;
	userpg->cap_user_time = 0;
	userpg->cap_user_time_zero = 0;
	if (!using_native_sched_clock() || !sched_clock_stable())
		return;

	cyc2ns_read_begin(&cyc);
	base = cyc.cyc2ns_offset + __sched_clock_offset;
	userpg->cap_user_time = 1;
	userpg->time_mult = cyc.cyc2ns_mul;
	userpg->time_shift = cyc.cyc2ns_shift;
	userpg->time_offset = base - now;
	/* Records of a clockid event are not in this clock's domain. */
	if (!event->attr.use_clockid) {
		userpg->cap_user_time_zero = 1;
		userpg->time_zero = base;
	}
	cyc2ns_read_end();
}

/*
 * The PMI's duration, for perf_sample_event_took(): where sched_clock()
 * is the TSC, two TSC reads and one conversion of their difference, which
 * cost less than two sched_clock() calls.
 */
static u64 pmi_clock(void)
{
	return using_native_sched_clock() ? rdtsc() : sched_clock();
}

static u64 pmi_took_ns(u64 start)
{
	struct cyc2ns_data cyc;
	u64 ns;

	if (!using_native_sched_clock())
		return sched_clock() - start;
	cyc2ns_read_begin(&cyc);
	ns = mul_u64_u32_shr(rdtsc() - start, cyc.cyc2ns_mul, cyc.cyc2ns_shift);
	cyc2ns_read_end();
	return ns;
}

/* A PMI while no counter has an event: only the tracer's can be. */
static int x86_trace_pmi(const struct x86_vendor *v)
{
	int handled;

	if (!v->trace_pmi)
		return NMI_DONE;
	handled = v->trace_pmi();
	v->trace_resume();
	if (!handled)
		return NMI_DONE;
	apic_write(APIC_LVTPC, APIC_DM_NMI);
	return NMI_HANDLED;
}

NOKPROBE_SYMBOL(x86_trace_pmi);

/*
 * The PMI: every overflowed counter's event gets its sample.  No kprobes
 * here: one would fire inside every PMI.
 */
static int x86_pmi(unsigned int cmd, struct pt_regs *regs)
{
	struct x86_cpu_pmu *c = this_cpu_ptr(&x86_cpu_pmu);
	const struct x86_vendor *v;
	struct perf_sample_data data;
	u64 start = pmi_clock(), status, fold = 0;
	int handled = 0, loops = 0, idx;
	bool due;

	if (!c->t)
		return NMI_DONE;
	v = &c->t->v;
	if (!atomic_read(&x86_events))
		return x86_trace_pmi(v);

	v->disable_all();
	/* The tracer's interrupt has no status bit: it looks for itself. */
	if (v->trace_pmi)
		handled += v->trace_pmi();
	status = v->status();
	while (status) {
		if (++loops > 100) {
			WARN_ONCE(1, "perf: the PMU keeps overflowing: %llx\n", status);
			break;
		}
		v->ack(status);
		while (status) {
			struct perf_event *ev;
			u64 ended;

			idx = __ffs64(status);
			status &= status - 1;
			handled++;
			/* Records to turn into samples: the vendor's drain. */
			if (idx == X86_STATUS_DRAIN && v->drain) {
				v->drain(regs);
				continue;
			}
			ev = c->placed[idx];
			/* A folding counter wrapped: fold, once for all. */
			if ((BIT_ULL(idx) & v->fold_counters) &&
			    (!ev || x86_event_folded(ev))) {
				fold |= BIT_ULL(idx);
				continue;
			}
			if (!ev || !(c->running & BIT_ULL(idx)))
				continue;
			x86_event_update(ev);
			ended = ev->hw.last_period;
			due = x86_set_period(ev);
			perf_event_update_userpage_offset(ev);
			if (!due)
				continue;
			perf_sample_data_init(&data, 0, v->sample_ended_period ?
					      ended : ev->hw.last_period);
			if (has_branch_stack(ev) && v->branch_stack)
				v->branch_stack(ev, &data);
			if (perf_event_overflow(ev, &data, regs))
				cpu_stop(ev, 0);
		}
		if (fold) {
			v->fold(c->placed, x86_folded(c, c->running), fold);
			fold = 0;
		}
		status = v->status();
	}
	if (!c->disabled)
		v->enable_all(v->counters);
	if (v->trace_resume)
		v->trace_resume();
	/* The local APIC masked LVTPC when it sent the PMI. */
	apic_write(APIC_LVTPC, APIC_DM_NMI);
	if (!handled) {
		/* A PMI whose overflow the PMI before handled, come late. */
		if (v->late_pmi &&
		    time_before_eq(jiffies, this_cpu_read(x86_late_pmi_until)))
			return NMI_HANDLED;
		return NMI_DONE;
	}
	if (v->late_pmi)
		this_cpu_write(x86_late_pmi_until,
			       jiffies + msecs_to_jiffies(X86_LATE_PMI_MS));
	inc_irq_stat(apic_perf_irqs);
	perf_sample_event_took(pmi_took_ns(start));
	/*
	 * How many overflows this NMI handled: more than one tells the NMI
	 * code that the NMI latched behind this one may have nothing left
	 * to report, and is not "unknown".
	 */
	return handled;
}

NOKPROBE_SYMBOL(x86_pmi);

/*
 * The same for a platform that delivers the PMI as an ordinary interrupt:
 * Xen's PV guests get it on an event channel (arch/x86/xen/pmu.c).
 */
static int x86_pmu_handle_irq(struct pt_regs *regs)
{
	return x86_pmi(NMI_LOCAL, regs);
}

NOKPROBE_SYMBOL(x86_pmu_handle_irq);

const struct x86_pmu_irq x86_pmu = {
	.handle_irq = x86_pmu_handle_irq,
};

/**
 * x86_pmu_record - a sample from a vendor's record
 * @idx: the counter whose event the record is for
 * @iregs: the interrupted registers
 * @fill: what the record adds to the sample and its registers
 * @rec: the record
 * @overflow: the sample is an overflow's (throttling, signals, the
 *	event's limit and BPF program): in the PMI, the event's last record
 *	of the drain; the others are only written out
 *
 * Called by the vendor's drain().  The event on counter @idx, if it
 * still runs there, has its count folded and its next period started,
 * as at an overflow (a reloading event's count was folded for all its
 * records), and the sample @fill completes goes to perf_event_overflow()
 * or perf_event_output().  The registers @fill gets are those of a
 * struct x86_perf_regs, whose XMM registers it may point at.
 */
void x86_pmu_record(int idx, struct pt_regs *iregs, x86_record_fill_t fill,
		    const void *rec, bool overflow)
{
	struct x86_cpu_pmu *c = this_cpu_ptr(&x86_cpu_pmu);
	struct x86_perf_regs regs = { .xmm_regs = NULL };
	struct perf_sample_data data;
	struct perf_event *ev;
	bool due;

	if (idx < 0 || idx >= X86_ASSIGN_COUNTERS)
		return;
	ev = c->placed[idx];
	if (!ev || !(c->running & BIT_ULL(idx)))
		return;
	/* A reloading event's count was folded for all its records. */
	if (ev->hw.flags & X86_EVENT_RELOAD) {
		ev->hw.last_period = ev->hw.sample_period;
	} else {
		x86_event_update(ev);
		due = x86_set_period(ev);
		perf_event_update_userpage_offset(ev);
		if (!due)
			return;
	}
	perf_sample_data_init(&data, 0, ev->hw.last_period);
	regs.regs = *iregs;
	fill(ev, &data, &regs.regs, iregs, rec);
	/* The ring as it is now, unless the record had its own. */
	if (has_branch_stack(ev) && x86_v(ev)->branch_stack &&
	    !(data.sample_flags & PERF_SAMPLE_BRANCH_STACK))
		x86_v(ev)->branch_stack(ev, &data);
	if (!overflow)
		perf_event_output(ev, &data, &regs.regs);
	else if (perf_event_overflow(ev, &data, &regs.regs))
		cpu_stop(ev, 0);
}

NOKPROBE_SYMBOL(x86_pmu_record);

/**
 * x86_pmu_reload_fold - fold a reloading event's count over its records
 * @idx: the counter whose event the records are for (X86_EVENT_RELOAD)
 * @records: how many, each a period that ended
 *
 * Called by the vendor's drain() with the counters stopped, before it
 * hands the records to x86_pmu_record().  The counter went from where
 * it was last read to its wrap, then @records - 1 whole periods, then
 * from -period to where it is: what it reads now, less what it read,
 * plus @records periods.
 */
void x86_pmu_reload_fold(int idx, u64 records)
{
	struct x86_cpu_pmu *c = this_cpu_ptr(&x86_cpu_pmu);
	struct perf_event *ev;
	struct hw_perf_event *hwc;
	int shift;
	s64 now, was;
	u64 raw;

	if (idx < 0 || idx >= X86_ASSIGN_COUNTERS)
		return;
	ev = c->placed[idx];
	if (!ev || !(c->running & BIT_ULL(idx)) ||
	    !(ev->hw.flags & X86_EVENT_RELOAD))
		return;
	hwc = &ev->hw;
	shift = 64 - x86_v(ev)->width;
	raw = x86_v(ev)->read(idx);
	now = (s64)(raw << shift) >> shift;
	was = (s64)(local64_read(&hwc->prev_count) << shift) >> shift;
	local64_set(&hwc->prev_count, raw);
	local64_add(now - was + records * hwc->sample_period, &ev->count);
	local64_set(&hwc->period_left, -now);
	perf_event_update_userpage(ev);
}

NOKPROBE_SYMBOL(x86_pmu_reload_fold);

/**
 * perf_events_lapic_init - program the local APIC's performance vector
 *
 * The PMI is an NMI.  Called when a CPU's local APIC is set up.
 */
void perf_events_lapic_init(void)
{
	if (!x86_pmu_ready)
		return;
	apic_write(APIC_LVTPC, APIC_DM_NMI);
}

/*
 * The type of this CPU's counters: on a hybrid part, the one of its core
 * type, the first when the CPU names none (as upstream takes such a CPU
 * of a hybrid model for a big core); NULL when no type has it.
 */
static struct x86_pmu_type *x86_this_cpu_type(void)
{
	u8 core_type;
	int i;

	if (x86_nr_types == 1)
		return &x86_types[0];
	core_type = get_this_hybrid_cpu_type();
	if (!core_type)
		return &x86_types[0];
	for (i = 0; i < x86_nr_types; i++)
		if (x86_types[i].v.core_type == core_type)
			return &x86_types[i];
	return NULL;
}

static int x86_pmu_starting_cpu(unsigned int cpu)
{
	struct x86_cpu_pmu *c = this_cpu_ptr(&x86_cpu_pmu);
	struct x86_pmu_type *t = x86_this_cpu_type();
	const struct x86_vendor *v;
	u64 all;
	int idx;

	memset(c, 0, sizeof(*c));
	if (!t) {
		pr_warn("perf: CPU %u is of a core type (%#x) no PMU describes: no hardware events there\n",
			cpu, get_this_hybrid_cpu_type());
		return 0;
	}
	v = &t->v;
	all = v->counters;
	c->t = t;
	cpumask_set_cpu(cpu, &t->cpus);
	if (v->cpu_starting)
		v->cpu_starting(v);
	v->disable_all();
	while (all) {
		idx = __ffs64(all);
		all &= all - 1;
		v->write(idx, 0);
	}
	v->ack(v->counters);
	perf_events_lapic_init();
	return 0;
}

/* The CPU leaves its type (its events have gone). */
static int x86_pmu_dying_cpu(unsigned int cpu)
{
	struct x86_cpu_pmu *c = this_cpu_ptr(&x86_cpu_pmu);

	if (c->t)
		cpumask_clear_cpu(cpu, &c->t->cpus);
	return 0;
}

/*
 * A task leaves this CPU or comes in: the vendor's state of the task, if
 * it keeps one (the core calls this only while an event asked for it).
 */
static void cpu_sched_task(struct perf_event_pmu_context *epc,
			   struct task_struct *task, bool sched_in)
{
	struct x86_cpu_pmu *c = this_cpu_ptr(&x86_cpu_pmu);

	if (c->t && c->t->v.sched_task)
		c->t->v.sched_task(epc, task, sched_in);
}

/* An event of @pmu counts only on the CPUs of its type. */
static bool x86_pmu_filter(struct pmu *pmu, int cpu)
{
	return !cpumask_test_cpu(cpu, &x86_pmu_type(pmu)->cpus);
}

/* What every PMU of ours is, but its groups (x86_type_init()). */
static const struct pmu x86_cpu_pmu_desc __initconst = {
	.event_init	= cpu_event_init,
	.add		= cpu_add,
	.del		= cpu_del,
	.start		= cpu_start,
	.stop		= cpu_stop,
	.read		= cpu_read,
	.pmu_disable	= cpu_pmu_disable,
	.pmu_enable	= cpu_pmu_enable,
	.start_txn	= cpu_start_txn,
	.commit_txn	= cpu_commit_txn,
	.cancel_txn	= cpu_cancel_txn,
	.event_idx	= cpu_event_idx,
	.check_period	= cpu_check_period,
	.event_mapped	= cpu_event_mapped,
	.event_unmapped	= cpu_event_unmapped,
	.sched_task	= cpu_sched_task,
};

/* The PMU of type @t, its description filled in by the vendor. */
static void __init x86_type_init(struct x86_pmu_type *t)
{
	struct attribute **ev = t->v.events;
	int i, n = X86_GENERIC_EVENTS;

	t->pmu = x86_cpu_pmu_desc;
	memcpy(t->events, x86_event_attrs, sizeof(x86_event_attrs));
	for (i = 0; ev && ev[i]; i++) {
		if (WARN_ON_ONCE(n == X86_GENERIC_EVENTS + X86_VENDOR_EVENTS))
			break;
		t->events[n++] = ev[i];
	}
	t->events_group.name = "events";
	t->events_group.attrs = t->events;
	t->events_group.is_visible = x86_event_visible;
	t->format_group.name = "format";
	t->format_group.attrs = t->v.format;
	t->vendor_group.attrs = t->v.attrs;
	t->groups[0] = &x86_pmu_group;
	t->groups[1] = &t->vendor_group;
	t->groups[2] = &t->format_group;
	t->groups[3] = &t->events_group;
	t->groups[4] = &x86_caps_group;
	if (x86_nr_types > 1) {
		t->groups[5] = &x86_hybrid_group;
		t->pmu.capabilities |= PERF_PMU_CAP_EXTENDED_HW_TYPE;
		t->pmu.filter = x86_pmu_filter;
	}
	t->pmu.attr_groups = t->groups;
	if (t->v.extended_regs)
		t->pmu.capabilities |= PERF_PMU_CAP_EXTENDED_REGS;
	/* The vendor's state of tasks (a saved call stack); none without. */
	if (t->v.task_data_size)
		t->pmu.task_ctx_cache = kmem_cache_create("x86_lbr",
							  t->v.task_data_size,
							  0, 0, NULL);
}

/**
 * perf_event_print_debug - dump the PMU's state (sysrq)
 */
void perf_event_print_debug(void)
{
	struct x86_cpu_pmu *c;
	unsigned long flags;

	if (!x86_pmu_ready) {
		pr_info("perf: no hardware PMU driver\n");
		return;
	}
	local_irq_save(flags);
	c = this_cpu_ptr(&x86_cpu_pmu);
	pr_info("CPU#%d: %s, %d events, running %llx, status %llx\n",
		smp_processor_id(), c->t ? c->t->v.name : "-", c->n, c->running,
		c->t ? c->t->v.status() : 0);
	local_irq_restore(flags);
}

/**
 * x86_counter_msr_works - whether a counter MSR holds what is written
 * @msr: a counter's MSR, unused by anyone at this point of boot
 *
 * A hypervisor may describe counters (CPUID) that it does not back:
 * reading or writing the MSR faults, or writes are dropped.  The
 * counter is put back as it was.
 *
 * Return: true when the MSR reads back a changed value.
 */
bool __init x86_counter_msr_works(u32 msr)
{
	u64 old, val;

	if (rdmsrl_safe(msr, &old))
		return false;
	if (wrmsrl_safe(msr, old ^ 0xffffULL) || rdmsrl_safe(msr, &val)) {
		wrmsrl_safe(msr, old);
		return false;
	}
	wrmsrl_safe(msr, old);
	return val == (old ^ 0xffffULL);
}

/* What the vendor driver describes, one per core type. */
static struct x86_vendor x86_probed[X86_MAX_TYPES] __initdata;

static int __init x86_pmu_init(void)
{
	struct x86_pmu_type *t;
	int err = -ENODEV, i;

	if (IS_ENABLED(CONFIG_CPU_SUP_INTEL) &&
	    boot_cpu_data.x86_vendor == X86_VENDOR_INTEL)
		err = intel_arch_probe(x86_probed, X86_MAX_TYPES);
	if (IS_ENABLED(CONFIG_CPU_SUP_AMD) &&
	    (boot_cpu_data.x86_vendor == X86_VENDOR_AMD ||
	     boot_cpu_data.x86_vendor == X86_VENDOR_HYGON))
		err = amd_core_probe(x86_probed) ?: 1;
	if (err < 0) {
		pr_info("perf: no x86 PMU driver for this CPU\n");
		return 0;
	}
	x86_nr_types = err;
	for (i = 0; i < x86_nr_types; i++) {
		x86_types[i].v = x86_probed[i];
		x86_type_init(&x86_types[i]);
	}
	x86_pmu_ready = true;

	err = register_nmi_handler(NMI_LOCAL, x86_pmi, 0, "PMI");
	if (!err)
		err = cpuhp_setup_state(CPUHP_AP_PERF_X86_STARTING,
					"perf/x86:starting",
					x86_pmu_starting_cpu, x86_pmu_dying_cpu);
	/* The first type takes PERF_TYPE_RAW, the others one of their own. */
	for (i = 0; !err && i < x86_nr_types; i++) {
		t = &x86_types[i];
		err = perf_pmu_register(&t->pmu, x86_nr_types > 1 ? t->v.pmu_name : "cpu",
					i ? -1 : PERF_TYPE_RAW);
	}
	if (err) {
		pr_err("perf: x86 PMU registration failed: %d\n", err);
		while (--i > 0)
			perf_pmu_unregister(&x86_types[i - 1].pmu);
		x86_pmu_ready = false;
		return err;
	}
	for (i = 0; i < x86_nr_types; i++) {
		t = &x86_types[i];
		pr_info("perf: %s%s%s, %d general and %d fixed counters of %d bits\n",
			x86_nr_types > 1 ? t->v.pmu_name : "",
			x86_nr_types > 1 ? ": " : "", t->v.name,
			hweight32(lower_32_bits(t->v.counters)),
			(int)hweight64(t->v.counters & X86_FIXED_MASK), t->v.width);
		if (t->v.branches)
			pr_info("perf: %d-deep LBR\n", t->v.branches);
		if (t->v.max_precise)
			pr_info("perf: precise events, precise_ip up to %d\n",
				t->v.max_precise);
	}
	return 0;
}
early_initcall(x86_pmu_init);
