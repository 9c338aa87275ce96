// SPDX-License-Identifier: GPL-2.0-only
/*
 * Topdown on Intel cores from Ice Lake: fixed counter 3 counts the issue
 * slots (TOPDOWN.SLOTS, the "slots" event), and on the models with
 * PERF_METRICS (IA32_PERF_CAPABILITIES bit 15) that register gives the
 * share of those slots each category took since it was last cleared, a
 * byte each (0xff: all of them): retiring, bad speculation, frontend
 * bound and backend bound, and on Golden Cove cores four level-2 ones.
 *
 * The metrics are events of their own (event code 0, unit masks 0x80 up)
 * on pseudo-counters from index %X86_METRIC_BASE, one each.  A metric
 * event counts slots: its share of the slots.  It must be a counting
 * sibling in a group led by a counting slots event, and it stays with
 * that leader (PERF_EV_CAP_SIBLING).  A counting slots event and the
 * metrics are folded together (%X86_EVENT_FOLDED): whenever one of them
 * is read, starts or stops, with the counters stopped, fixed counter 3
 * and PERF_METRICS are read, each running one gets its part, and both
 * registers are cleared, so that each share is of the slots counted
 * since.  A sampling slots event counts as any fixed counter does, and
 * takes no metrics.  GLOBAL_CTRL's one bit for the metrics (48) is set
 * with the counters whenever metric counters exist.
 *
 * As upstream: the events take no filters (edge, inverse, threshold,
 * AnyThread, TSX qualifiers) nor config1/config2 (EINVAL), a metric no
 * sampling and no other leader (EINVAL); a metric code beyond the
 * model's is an ordinary event on the general counters.
 *
 * Locking: the description is written once at boot; fold runs on the
 * counters' CPU with them stopped (x86_pmu.c).
 */
#include <linux/math64.h>
#include <linux/perf_event.h>

#include <asm/msr.h>
#include <asm/perf_event.h>

#include "intel_topdown.h"

#define TD_SLOTS		0x0400	/* umask << 8 | event */
#define TD_METRIC_FIRST		0x8000
#define TD_METRIC_LAST		0x8700
#define TD_SLOTS_IDX		(X86_ASSIGN_FIXED_BASE + 3)
/* The raw config bits these events refuse: edge, inv, cmask, any, pc, TSX. */
#define TD_FILTERS		(ARCH_PERFMON_EVENTSEL_EDGE | ARCH_PERFMON_EVENTSEL_INV | \
				 ARCH_PERFMON_EVENTSEL_CMASK | ARCH_PERFMON_EVENTSEL_ANY | \
				 ARCH_PERFMON_EVENTSEL_PIN_CONTROL | BIT_ULL(32) | BIT_ULL(33))

static unsigned int td_metrics __ro_after_init;	/* metric events: 0, 4 or 8 */
static u64 td_mask __ro_after_init;		/* fixed counter 3's value mask */

/* The files, named as upstream's. */
#define TD_EVENT(_var, _name, _umask)	\
	X86_EVENT_STR(_var, _name, "event=0x00,umask=" _umask)

TD_EVENT(td_attr_slots, "slots", "0x4");
TD_EVENT(td_attr_retiring, "topdown-retiring", "0x80");
TD_EVENT(td_attr_bad_spec, "topdown-bad-spec", "0x81");
TD_EVENT(td_attr_fe_bound, "topdown-fe-bound", "0x82");
TD_EVENT(td_attr_be_bound, "topdown-be-bound", "0x83");
TD_EVENT(td_attr_heavy_ops, "topdown-heavy-ops", "0x84");
TD_EVENT(td_attr_br_mispredict, "topdown-br-mispredict", "0x85");
TD_EVENT(td_attr_fetch_lat, "topdown-fetch-lat", "0x86");
TD_EVENT(td_attr_mem_bound, "topdown-mem-bound", "0x87");

/* slots, then the metrics in PERF_METRICS' byte order; cut after the model's. */
static struct attribute *td_events[] = {
	&td_attr_slots.attr.attr,
	&td_attr_retiring.attr.attr,
	&td_attr_bad_spec.attr.attr,
	&td_attr_fe_bound.attr.attr,
	&td_attr_be_bound.attr.attr,
	&td_attr_heavy_ops.attr.attr,
	&td_attr_br_mispredict.attr.attr,
	&td_attr_fetch_lat.attr.attr,
	&td_attr_mem_bound.attr.attr,
	NULL,
};

/* The metric a raw config names (0 up), or -1. */
static int td_metric(u64 config)
{
	u64 code = config & X86_RAW_EVENT_MASK & 0xffff;

	if ((config & ARCH_PERFMON_EVENTSEL_EVENT) || code < TD_METRIC_FIRST ||
	    code > TD_METRIC_LAST)
		return -1;
	return (code - TD_METRIC_FIRST) >> 8;
}

static bool td_is_slots(u64 config)
{
	return (config & 0xffff) == TD_SLOTS;
}

/**
 * intel_topdown_probe - take the model's topdown
 * @metrics: the metric events the model has (0: none, 4 or 8)
 * @caps: IA32_PERF_CAPABILITIES (0 when there is none)
 * @mask: the counters' value mask
 * @v: the vendor description, whose fold hooks this fills in
 *
 * Called when CPUID reports fixed counter 3 on a model with topdown;
 * the driver calls the others only then.
 *
 * Return: the counters topdown adds: fixed counter 3 and the metric
 * pseudo-counters there are.
 */
u64 __init intel_topdown_probe(unsigned int metrics, u64 caps, u64 mask,
			       struct x86_vendor *v)
{
	u64 counters;

	td_mask = mask;
	if (caps & BIT_ULL(PERF_CAP_METRICS_IDX))
		td_metrics = min(metrics, 8U);
	counters = BIT_ULL(TD_SLOTS_IDX);
	if (td_metrics)
		counters |= GENMASK_ULL(X86_METRIC_BASE + td_metrics - 1, X86_METRIC_BASE);
	/* The metrics' files only where the metrics are (upstream hides them). */
	td_events[1 + td_metrics] = NULL;
	v->fold_counters = counters;
	v->fold = intel_topdown_fold;
	return counters;
}

/**
 * intel_topdown_events - the events/ files of slots and the metrics
 *
 * Return: a NULL-terminated list, cut after the metrics the model has
 * (valid once intel_topdown_probe() ran).
 */
struct attribute **intel_topdown_events(void)
{
	return td_events;
}

/**
 * intel_topdown_constraint - the counter of a topdown event
 * @config: the event's raw config
 * @counters: set to its counter when it is one
 *
 * Return: whether @config is a topdown event of the model (slots, or one
 * of its metrics).
 */
bool intel_topdown_constraint(u64 config, u64 *counters)
{
	int m;

	if ((config & X86_RAW_EVENT_MASK) == TD_SLOTS) {
		*counters = BIT_ULL(TD_SLOTS_IDX);
		return true;
	}
	m = td_metric(config);
	if (m < 0 || m >= td_metrics)
		return false;
	*counters = BIT_ULL(X86_METRIC_BASE + m);
	return true;
}

/**
 * intel_topdown_hw_config - check a new event against the topdown rules
 * @event: the event (attr.type PERF_TYPE_RAW or another)
 *
 * A counting slots event and a metric event are marked
 * %X86_EVENT_FOLDED; a metric also needs its leader
 * (PERF_EV_CAP_SIBLING).
 *
 * Return: 0, or -EINVAL when the event breaks a rule.
 */
int intel_topdown_hw_config(struct perf_event *event)
{
	struct perf_event *leader = event->group_leader;
	u64 config = event->attr.config;
	int m;

	if (event->attr.type != PERF_TYPE_RAW)
		return 0;
	m = td_metric(config);
	if (!td_is_slots(config) && (m < 0 || !td_metrics))
		return 0;
	if (event->attr.config1 || event->attr.config2 || (config & TD_FILTERS))
		return -EINVAL;
	if (td_is_slots(config)) {
		if (!is_sampling_event(event))
			event->hw.flags |= X86_EVENT_FOLDED;
		return 0;
	}
	/* A code past the model's metrics: an ordinary event. */
	if (m >= td_metrics)
		return 0;
	if (is_sampling_event(event))
		return -EINVAL;
	/* Led by a counting slots event (itself not a leader, then). */
	if (leader == event || leader->attr.type != PERF_TYPE_RAW ||
	    !td_is_slots(leader->attr.config) || is_sampling_event(leader))
		return -EINVAL;
	event->event_caps |= PERF_EV_CAP_SIBLING;
	event->hw.flags |= X86_EVENT_FOLDED;
	return 0;
}

/**
 * intel_topdown_ctrl - GLOBAL_CTRL's bits for a set of counters
 * @counters: counter indexes, metric pseudo-counters among them
 *
 * Return: @counters with the metric pseudo-counters replaced by the one
 * bit that lets PERF_METRICS count.
 */
u64 intel_topdown_ctrl(u64 counters)
{
	u64 metrics = counters & GENMASK_ULL(63, X86_METRIC_BASE);

	counters &= ~metrics;
	if (metrics)
		counters |= BIT_ULL(GLOBAL_CTRL_EN_PERF_METRICS);
	return counters;
}

/**
 * intel_topdown_fold - fold the slots and metrics counted since the last
 * @placed: the event each counter is given to
 * @which: the counters whose events take their part now
 * @wrapped: the counters that overflowed since the last fold
 *
 * Called with the counters stopped.  Nothing is read or cleared when a
 * sampling slots event holds fixed counter 3: it counts on its own.
 */
void intel_topdown_fold(struct perf_event *const *placed, u64 which, u64 wrapped)
{
	struct perf_event *owner = placed[TD_SLOTS_IDX];
	u64 slots, metrics = 0, delta;
	unsigned int share;
	int idx;

	if (owner && !(owner->hw.flags & X86_EVENT_FOLDED))
		return;
	rdmsrl(MSR_CORE_PERF_FIXED_CTR3, slots);
	slots &= td_mask;
	if (wrapped & BIT_ULL(TD_SLOTS_IDX))
		slots += td_mask + 1;
	if (!slots)
		return;
	if (td_metrics)
		rdmsrl(MSR_PERF_METRICS, metrics);
	for (; which; which &= which - 1) {
		idx = __ffs64(which);
		if (idx == TD_SLOTS_IDX) {
			delta = slots;
		} else {
			share = (metrics >> (8 * (idx - X86_METRIC_BASE))) & 0xff;
			delta = mul_u64_u32_div(slots, share, 0xff);
		}
		local64_add(delta, &placed[idx]->count);
	}
	/* The slots first: a PERF_METRICS write is taken as shares of them. */
	wrmsrl(MSR_CORE_PERF_FIXED_CTR3, 0);
	if (td_metrics)
		wrmsrl(MSR_PERF_METRICS, 0);
}
