// SPDX-License-Identifier: GPL-2.0-only
/*
 * Intel architectural performance monitoring, versions 1 to 5, as CPUID
 * leaf 0xA describes it: general counters (IA32_PERFEVTSELx and
 * IA32_PMCx, or the full-width IA32_A_PMCx aliases when
 * IA32_PERF_CAPABILITIES says so), and from version 2 fixed counters
 * (instructions, core cycles, reference cycles) under
 * IA32_FIXED_CTR_CTRL and the global control, status and overflow-clear
 * registers.
 *
 * Version 1 has neither: each general counter's EN bit is its only gate,
 * so switching the PMU off and on rewrites the EVTSEL of every started
 * counter (struct intel_cpu keeps them), and the PMI finds the counters
 * that wrapped by their top bit, clear once a counter started at -period
 * has passed zero.  Reference cycles, which only fixed counter 2 counts,
 * get upstream's pseudo-encoding on a general counter there.
 *
 * The generic events are the architectural ones CPUID reports available.
 * The models with tables of their own (intel_models.c) add their counter
 * rules, cache events, caps/pmu_name and events/ and format/ files, and
 * from Ice Lake topdown (intel_topdown.c: fixed counter 3 and the metrics,
 * pseudo-counters from X86_METRIC_BASE); on any other model there are no
 * cache events (ENOENT), as on upstream for a model it does not know.
 *
 * Counter indexes are the x86 layer's: general from 0, fixed from 32,
 * which are also their bits in GLOBAL_CTRL and GLOBAL_STATUS.
 *
 * Hybrid parts (CPUID.07H:EDX bit 15) whose model has tables for both
 * core types get two descriptions (struct intel_type), cpu_core for the
 * P-cores and cpu_atom for the E-cores, which CPUID leaf 0x1A tells
 * apart.  Leaf 0xA reports on every core what both types have; the
 * P-core's further counters (two general, fixed counter 3) are known
 * from the model, as upstream widens the counts for it.  Any other
 * hybrid part is refused: one description would be wrong on one type.
 *
 * Guests: an event that excludes the host (a hypervisor's virtual
 * counter) keeps its bit out of GLOBAL_CTRL in the host, and one that
 * excludes the guest has its bit cleared in the value a hypervisor loads
 * at guest entry (intel_guest_msrs()).
 *
 * Locking: the hooks run on the counters' CPU with interrupts off; the
 * per-CPU state (struct intel_cpu) is changed only there.
 * The descriptions are filled once at boot.
 */
#include <linux/cpu.h>
#include <linux/device.h>
#include <linux/init.h>
#include <linux/mutex.h>
#include <linux/perf_event.h>

#include <asm/msr.h>
#include <asm/perf_event.h>

#include "intel_lbr.h"
#include "intel_models.h"
#include "intel_bts.h"
#include "intel_pebs.h"
#include "intel_rsp.h"
#include "intel_topdown.h"
#include "x86_pmu.h"

/* The architectural events in CPUID.0AH:EBX order (a set bit: absent). */
static const struct {
	u8 id;		/* PERF_COUNT_HW_* */
	u16 config;	/* umask << 8 | event */
} arch_events[] = {
	{ PERF_COUNT_HW_CPU_CYCLES,		0x003c },
	{ PERF_COUNT_HW_INSTRUCTIONS,		0x00c0 },
	{ PERF_COUNT_HW_BUS_CYCLES,		0x013c },
	{ PERF_COUNT_HW_CACHE_REFERENCES,	0x4f2e },
	{ PERF_COUNT_HW_CACHE_MISSES,		0x412e },
	{ PERF_COUNT_HW_BRANCH_INSTRUCTIONS,	0x00c4 },
	{ PERF_COUNT_HW_BRANCH_MISSES,		0x00c5 },
};

/* IA32_PERF_CAPABILITIES: the IA32_A_PMCx take full-width writes. */
#define INTEL_CAP_FULL_WIDTH_WRITES	BIT_ULL(13)

/* Reference cycles count on fixed counter 2 only: a pseudo encoding. */
#define REF_CYCLES_CONFIG	0x0300

/* Version 1: the general counters it keeps EVTSELs for. */
#define INTEL_V1_COUNTERS	8

/* CPUID leaf 0x1A's core types (EAX bits 31:24). */
#define INTEL_CORE_TYPE_ATOM	0x20
#define INTEL_CORE_TYPE_CORE	0x40

/* The most format/ files: the EVTSEL's, "any" and a model's. */
#define INTEL_FORMATS		10

/**
 * struct intel_type - the counters of one core type
 * @events: the generic events' configs (0: none)
 * @gp: the general counters
 * @fixed: the fixed ones (bits from %X86_ASSIGN_FIXED_BASE)
 * @topdown: slots and the metrics (intel_topdown.c), or 0
 * @model: the model's tables for the core type, or NULL
 * @has_pebs: its cores have PEBS this driver reads (intel_pebs.c)
 * @format: format/
 * @event_files: the model's events/ files, then topdown's
 */
struct intel_type {
	u64 events[PERF_COUNT_HW_MAX];
	u64 gp;
	u64 fixed;
	u64 topdown;
	const struct intel_model *model;
	bool has_pebs;
	struct attribute *format[INTEL_FORMATS + 1];
	struct attribute *event_files[X86_VENDOR_EVENTS + 1];
};

static struct intel_type intel_types[X86_MAX_TYPES] __ro_after_init;
static bool intel_any_thread __ro_after_init;	/* AnyThread is there */
static u64 intel_mask __ro_after_init;	/* counter value mask */
static bool intel_full_width __ro_after_init;
static bool intel_v1 __ro_after_init;	/* no global control */
static bool intel_any_deprecated __ro_after_init; /* version 5 says so */

static const struct intel_type *intel_of(const struct x86_vendor *v)
{
	return v->priv;
}

static u64 intel_event_map(const struct x86_vendor *v, u64 id)
{
	return intel_of(v)->events[id];
}

static bool has_fixed(const struct intel_type *it, int i)
{
	return it->fixed & BIT_ULL(X86_ASSIGN_FIXED_BASE + i);
}

/*
 * An event a fixed counter counts (exactly its event and umask, no
 * edge, inverse or threshold) may use it or any general counter.
 */
static u64 intel_constraint(const struct x86_vendor *v, u64 config)
{
	const struct intel_type *it = intel_of(v);
	u64 code = config & X86_RAW_EVENT_MASK, c;

	if (code == REF_CYCLES_CONFIG) {
		if (intel_v1)
			return it->gp;
		return has_fixed(it, 2) ? BIT_ULL(X86_ASSIGN_FIXED_BASE + 2) : 0;
	}
	if (code == 0x00c0 && has_fixed(it, 0))
		return it->gp | BIT_ULL(X86_ASSIGN_FIXED_BASE);
	if (code == 0x003c && has_fixed(it, 1))
		return it->gp | BIT_ULL(X86_ASSIGN_FIXED_BASE + 1);
	if (it->topdown && intel_topdown_constraint(config, &c))
		return c;
	if (it->model &&
	    intel_model_constraint(it->model, config, it->gp, it->fixed, &c))
		return c;
	return it->gp;
}

/*
 * PERF_EVENT_IOC_PERIOD: a branch event whose new period would make it
 * one the branch trace store samples is refused, as upstream, and so is
 * a period too short for precise distribution.
 */
static int intel_check_period(const struct x86_vendor *v, struct perf_event *event,
			      u64 period)
{
	u64 branches = v->event_map(v, PERF_COUNT_HW_BRANCH_INSTRUCTIONS);

	if ((event->hw.flags & X86_EVENT_PDIST) && period < X86_PDIST_MIN_PERIOD)
		return -EINVAL;
	return intel_bts_sample_wanted(event, branches, period) ? -EINVAL : 0;
}

/* MEM_TRANS_RETIRED.LOAD_LATENCY and its companion mem-loads-aux. */
#define INTEL_MEM_LOADS		0x01cdULL
#define INTEL_MEM_LOADS_AUX	0x8203ULL

static bool intel_is_mem_loads_aux(const struct perf_event *event)
{
	return (event->attr.config & INTEL_ARCH_EVENT_MASK) == INTEL_MEM_LOADS_AUX;
}

/*
 * Where the model says so (Golden Cove's cores), the load latency event
 * gives its data source only while mem-loads-aux counts in its group:
 * an event that samples the data source without it there, as its leader
 * or the leader's sibling, is refused with ENODATA, as upstream.  Called
 * at event_init, where the core holds the leader's context mutex: the
 * sibling list is stable.
 */
static int intel_mem_loads_aux(const struct intel_type *it, struct perf_event *event)
{
	struct perf_event *leader = event->group_leader, *sib;

	if (!it->model || !intel_model_mem_loads_aux(it->model) ||
	    !(event->attr.sample_type & PERF_SAMPLE_DATA_SRC) ||
	    (event->attr.config & INTEL_ARCH_EVENT_MASK) != INTEL_MEM_LOADS)
		return 0;
	if (leader == event)
		return -ENODATA;
	if (intel_is_mem_loads_aux(leader))
		return 0;
	for_each_sibling_event(sib, leader)
		if (intel_is_mem_loads_aux(sib))
			return 0;
	return -ENODATA;
}

/*
 * KVM's guest LBR event (INTEL_FIXED_VLBR_EVENT, no edge, inverse or
 * threshold): it takes the pseudo-counter X86_VLBR_IDX and counts
 * nothing; with a branch stack it holds the LBR (intel_lbr.c).  Precise,
 * EINVAL, as upstream.
 */
static int intel_vlbr_config(struct perf_event *event)
{
	if (event->attr.precise_ip)
		return -EINVAL;
	event->hw.flags |= X86_EVENT_VLBR;
	return 0;
}

static u64 intel_cache_event(const struct x86_vendor *v, unsigned int cache,
			     unsigned int op, unsigned int result)
{
	return intel_model_cache_event(intel_of(v)->model, cache, op, result);
}

/*
 * AnyThread (raw config bit 21), from version 3: counts of the whole
 * core, for those who may watch the CPU.  Version 2 refuses the bit;
 * version 1 drops it, as it drops every bit outside the raw event mask
 * (upstream's core PMU driver does the same).
 */
static int intel_hw_config(const struct x86_vendor *v, struct perf_event *event)
{
	const struct intel_type *it = intel_of(v);
	int err;

	if ((event->hw.config & X86_RAW_EVENT_MASK) == INTEL_FIXED_VLBR_EVENT)
		return intel_vlbr_config(event);

	/* A sample of every branch: the branch trace store's. */
	if (intel_bts_sample_wanted(event, v->event_map(v, PERF_COUNT_HW_BRANCH_INSTRUCTIONS),
				    event->attr.sample_period)) {
		err = intel_bts_sample_config(event);
		if (err)
			return err;
	}
	if (it->topdown) {
		err = intel_topdown_hw_config(event);
		if (err)
			return err;
	}
	if (it->model) {
		err = intel_rsp_hw_config(it->model, event);
		if (err)
			return err;
	}
	if (v->max_precise) {
		err = intel_pebs_config(v, event);
		if (err)
			return err;
	}
	err = intel_mem_loads_aux(it, event);
	if (err)
		return err;
	if (event->attr.type != event->pmu->type || intel_v1 ||
	    !(event->attr.config & ARCH_PERFMON_EVENTSEL_ANY))
		return 0;
	if (!intel_any_thread)
		return -EINVAL;
	err = perf_allow_cpu();
	if (err)
		return err;
	event->hw.config |= ARCH_PERFMON_EVENTSEL_ANY;
	return 0;
}

/*
 * The offcore response register and the LBR_SELECT an event needs, held
 * as it is added; a precise event's part in the CPU's PEBS threshold.
 */
static int intel_get_extra(const struct x86_vendor *v, struct perf_event *event)
{
	const struct intel_type *it = intel_of(v);
	int err;

	if (!it->model)
		return 0;
	err = intel_rsp_get(it->model, event);
	if (err)
		return err;
	err = intel_lbr_get(event);
	if (err) {
		intel_rsp_put(event);
		return err;
	}
	if (event->hw.flags & X86_EVENT_PRECISE)
		intel_pebs_add(event);
	return 0;
}

static void intel_put_extra(const struct x86_vendor *v, struct perf_event *event)
{
	if (event->hw.flags & X86_EVENT_PRECISE)
		intel_pebs_del(event);
	intel_lbr_put(event);
	intel_rsp_put(event);
}

/**
 * struct intel_cpu - one CPU's view of its counters' control registers
 * @t: the description of its counters (its core type's)
 * @fixed_ctrl: what was last written to IA32_FIXED_CTR_CTRL, so that
 *	starting and stopping a fixed counter (at every context switch)
 *	costs one WRMSR and no RDMSR
 * @global: the counters GLOBAL_CTRL lets count, guests aside (0: off)
 * @guest_only: counters of started events that exclude the host
 * @host_only: counters of started events that exclude the guest
 * @switch_msr: what intel_guest_msrs() hands a hypervisor: GLOBAL_CTRL,
 *	and IA32_PEBS_ENABLE where there is PEBS
 * @v1_started: version 1: the general counters started
 * @v1_off: version 1: the PMU is off (every EN bit clear)
 * @v1_evtsel: version 1: each started counter's EVTSEL, EN aside
 * @v1_switch: version 1: what a hypervisor switches, one EVTSEL each
 */
struct intel_cpu {
	const struct intel_type *t;
	u64 fixed_ctrl;
	u64 global;
	u64 guest_only;
	u64 host_only;
	struct perf_guest_switch_msr switch_msr[2];
	u64 v1_started;
	bool v1_off;
	u64 v1_evtsel[INTEL_V1_COUNTERS];
	struct perf_guest_switch_msr v1_switch[INTEL_V1_COUNTERS];
};

static DEFINE_PER_CPU(struct intel_cpu, intel_cpu);

/*
 * Version 1: write general counter @idx's EVTSEL, enabled when it is
 * started, the PMU is on and the event counts in the host.
 */
static void intel_v1_write(struct intel_cpu *ic, int idx)
{
	u64 sel = ic->v1_evtsel[idx], bit = BIT_ULL(idx);

	if ((ic->v1_started & bit) && !ic->v1_off && !(ic->guest_only & bit))
		sel |= ARCH_PERFMON_EVENTSEL_ENABLE;
	wrmsrl(MSR_ARCH_PERFMON_EVENTSEL0 + idx, sel);
}

/* Version 1: the PMU on or off, one started counter at a time. */
static void intel_v1_switch_all(struct intel_cpu *ic, bool off)
{
	u64 s;

	ic->v1_off = off;
	for (s = ic->v1_started; s; s &= s - 1)
		intel_v1_write(ic, __ffs64(s));
}

/* GLOBAL_CTRL's (or GLOBAL_STATUS's) bits for this CPU's counter indexes. */
static u64 intel_ctrl(u64 counters)
{
	return this_cpu_read(intel_cpu.t)->topdown ?
		intel_topdown_ctrl(counters) : counters;
}

static void intel_enable_all(u64 counters)
{
	struct intel_cpu *ic = this_cpu_ptr(&intel_cpu);

	if (intel_v1) {
		intel_v1_switch_all(ic, false);
		return;
	}
	intel_lbr_enable();
	ic->global = counters;
	wrmsrl(MSR_CORE_PERF_GLOBAL_CTRL, intel_ctrl(counters & ~ic->guest_only));
}

static void intel_disable_all(void)
{
	struct intel_cpu *ic = this_cpu_ptr(&intel_cpu);

	if (intel_v1) {
		intel_v1_switch_all(ic, true);
		return;
	}
	ic->global = 0;
	wrmsrl(MSR_CORE_PERF_GLOBAL_CTRL, 0);
	intel_lbr_disable();
}

/*
 * Note which side of a guest entry counter @idx counts on: guest only,
 * host only, or (both false) both.
 */
static void intel_guest_bits(int idx, bool guest_only, bool host_only)
{
	struct intel_cpu *ic = this_cpu_ptr(&intel_cpu);
	u64 bit = BIT_ULL(idx), was = ic->guest_only;

	/* The common case: nobody excludes anything here. */
	if (!guest_only && !host_only && !((was | ic->host_only) & bit))
		return;
	ic->guest_only = guest_only ? was | bit : was & ~bit;
	ic->host_only = host_only ? ic->host_only | bit : ic->host_only & ~bit;
	/* Changed with the PMU on: the host's gate changes now. */
	if (ic->global && ic->guest_only != was)
		wrmsrl(MSR_CORE_PERF_GLOBAL_CTRL,
		       intel_ctrl(ic->global & ~ic->guest_only));
}

/*
 * Version 1, without GLOBAL_CTRL: each general counter's EVTSEL, with EN
 * where the counter counts on that side of a guest entry.
 */
static struct perf_guest_switch_msr *intel_v1_guest_msrs(int *nr)
{
	struct intel_cpu *ic = this_cpu_ptr(&intel_cpu);
	struct perf_guest_switch_msr *m = ic->v1_switch;
	u64 gp = ic->t->gp, on = ic->v1_off ? 0 : ic->v1_started, bit;
	int idx;

	for (*nr = 0; gp; gp &= gp - 1, m++, (*nr)++) {
		idx = __ffs64(gp);
		bit = BIT_ULL(idx);
		m->msr = MSR_ARCH_PERFMON_EVENTSEL0 + idx;
		m->host = ic->v1_evtsel[idx];
		m->guest = ic->v1_evtsel[idx];
		if ((on & bit) && !(ic->guest_only & bit))
			m->host |= ARCH_PERFMON_EVENTSEL_ENABLE;
		if ((on & bit) && !(ic->host_only & bit))
			m->guest |= ARCH_PERFMON_EVENTSEL_ENABLE;
	}
	return ic->v1_switch;
}

/*
 * The host's precise events stop in a guest: their counters are off in
 * GLOBAL_CTRL there and, where the CPU has PEBS, IA32_PEBS_ENABLE is 0
 * (on these cores a record may land after the entry, in the guest's
 * time, into the host's buffer, and a guest has no PEBS here).
 */
static struct perf_guest_switch_msr *intel_guest_msrs(int *nr)
{
	struct intel_cpu *ic = this_cpu_ptr(&intel_cpu);
	struct perf_guest_switch_msr *m = ic->switch_msr;
	u64 pebs = intel_pebs_counters();

	if (intel_v1)
		return intel_v1_guest_msrs(nr);

	m[0].msr = MSR_CORE_PERF_GLOBAL_CTRL;
	m[0].host = intel_ctrl(ic->global & ~ic->guest_only);
	m[0].guest = intel_ctrl(ic->global & ~ic->host_only & ~pebs);
	*nr = 1;
	if (ic->t->has_pebs) {
		m[1].msr = MSR_IA32_PEBS_ENABLE;
		m[1].host = pebs;
		m[1].guest = 0;
		*nr = 2;
	}
	return m;
}

/* IA32_FIXED_CTR_CTRL's four bits for fixed counter @i: OS, USR, ANY, PMI. */
/*
 * Fixed counter @i's field of IA32_FIXED_CTR_CTRL: @bits (OS, USR, ANY,
 * PMI), and its Adaptive PEBS bit (bit 32 + 4i) with @adaptive.
 */
static void intel_fixed_ctrl(int i, u64 bits, bool adaptive)
{
	struct intel_cpu *ic = this_cpu_ptr(&intel_cpu);
	u64 ctrl = ic->fixed_ctrl;

	ctrl &= ~((0xfULL | ICL_FIXED_0_ADAPTIVE) << (4 * i));
	ctrl |= (bits | (adaptive ? ICL_FIXED_0_ADAPTIVE : 0)) << (4 * i);
	ic->fixed_ctrl = ctrl;
	wrmsrl(MSR_ARCH_PERFMON_FIXED_CTR_CTRL, ctrl);
}

static void intel_enable(struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;
	int idx = hwc->idx;
	u64 bits = 0;

	/* No counter, and no bit of the global controls. */
	if (hwc->flags & X86_EVENT_BTS) {
		intel_bts_sample_start(event);
		return;
	}
	intel_guest_bits(idx, event->attr.exclude_host, event->attr.exclude_guest);
	if (intel_v1) {
		struct intel_cpu *ic = this_cpu_ptr(&intel_cpu);

		ic->v1_evtsel[idx] = hwc->config;
		ic->v1_started |= BIT_ULL(idx);
		intel_v1_write(ic, idx);
		return;
	}
	if (idx < X86_ASSIGN_FIXED_BASE) {
		/* The offcore response it counts, first. */
		if (hwc->extra_reg.reg)
			wrmsrl(hwc->extra_reg.reg, hwc->extra_reg.config);
		if (hwc->flags & X86_EVENT_PRECISE)
			intel_pebs_enable(event);
		wrmsrl(MSR_ARCH_PERFMON_EVENTSEL0 + idx,
		       hwc->config | ARCH_PERFMON_EVENTSEL_ENABLE);
		return;
	}
	/* A metric counts with fixed counter 3 and GLOBAL_CTRL's bit. */
	if (idx >= X86_METRIC_BASE)
		return;
	if (hwc->config & ARCH_PERFMON_EVENTSEL_OS)
		bits |= 1;
	if (hwc->config & ARCH_PERFMON_EVENTSEL_USR)
		bits |= 2;
	if (hwc->config & ARCH_PERFMON_EVENTSEL_ANY)
		bits |= 4;
	if (hwc->config & ARCH_PERFMON_EVENTSEL_INT)
		bits |= 8;
	if (hwc->flags & X86_EVENT_PRECISE)
		intel_pebs_enable(event);
	intel_fixed_ctrl(idx - X86_ASSIGN_FIXED_BASE, bits,
			 hwc->config & ICL_EVENTSEL_ADAPTIVE);
}

static void intel_disable(struct perf_event *event)
{
	int idx = event->hw.idx;

	if (event->hw.flags & X86_EVENT_BTS) {
		intel_bts_sample_stop(event);
		return;
	}
	intel_guest_bits(idx, false, false);
	if (intel_v1) {
		struct intel_cpu *ic = this_cpu_ptr(&intel_cpu);

		ic->v1_started &= ~BIT_ULL(idx);
		intel_v1_write(ic, idx);
		return;
	}
	if (idx < X86_ASSIGN_FIXED_BASE) {
		wrmsrl(MSR_ARCH_PERFMON_EVENTSEL0 + idx, event->hw.config);
		if (event->hw.flags & X86_EVENT_PRECISE)
			intel_pebs_disable(event);
	} else if (idx < X86_METRIC_BASE) {
		intel_fixed_ctrl(idx - X86_ASSIGN_FIXED_BASE, 0, false);
		if (event->hw.flags & X86_EVENT_PRECISE)
			intel_pebs_disable(event);
	}
}

static u64 intel_read(int idx)
{
	u64 v;

	/* The metrics are folded (intel_topdown.c), never read alone. */
	if (idx >= X86_METRIC_BASE || idx == X86_BTS_IDX)
		return 0;
	if (idx >= X86_ASSIGN_FIXED_BASE)
		rdpmcl((1 << 30) | (idx - X86_ASSIGN_FIXED_BASE), v);
	else
		rdpmcl(idx, v);
	return v;
}

/*
 * GLOBAL_STATUS bits that belong to no counter: a condition changed, the
 * LBRs or the counters were frozen, a DS buffer or an uncore counter
 * overflowed, an ASCI event.  Nothing here uses them, but they stay set
 * until cleared: the PMI acknowledges them with the counters' bits.
 */
#define INTEL_STATUS_OTHER	(GLOBAL_STATUS_COND_CHG | GLOBAL_STATUS_BUFFER_OVF | \
				 GLOBAL_STATUS_UNC_OVF | GLOBAL_STATUS_ASIF | \
				 GLOBAL_STATUS_COUNTERS_FROZEN | GLOBAL_STATUS_LBRS_FROZEN)

static u64 intel_status(void)
{
	struct intel_cpu *ic = this_cpu_ptr(&intel_cpu);
	u64 status = 0, s;
	int idx;

	if (!intel_v1) {
		u64 pebs = intel_pebs_counters(), clear;

		rdmsrl(MSR_CORE_PERF_GLOBAL_STATUS, status);
		/*
		 * A PEBS counter's overflow only arms its record: its bit
		 * is cleared here and its sample comes from the record,
		 * when OvfBuffer (X86_STATUS_DRAIN) is reported.
		 */
		clear = status & (INTEL_STATUS_OTHER | pebs);
		if (clear)
			wrmsrl(MSR_CORE_PERF_GLOBAL_OVF_CTRL, clear);
		status &= ~pebs;
		/*
		 * Intel PT's ToPA PMI: with KVM's pt_mode=1 it is a guest's,
		 * which KVM takes through its callback.  Reported with the
		 * counters' bits, so that the PMI counts it as handled and
		 * acknowledges it (no host driver of Intel PT here).
		 */
		if (status & GLOBAL_STATUS_TRACE_TOPAPMI)
			perf_guest_handle_intel_pt_intr();
		return status & (ic->t->gp | ic->t->fixed | ic->t->topdown |
				 GLOBAL_STATUS_TRACE_TOPAPMI |
				 GLOBAL_STATUS_BUFFER_OVF);
	}
	for (s = ic->v1_started; s; s &= s - 1) {
		idx = __ffs64(s);
		if (!(intel_read(idx) & BIT_ULL(fls64(intel_mask) - 1)))
			status |= BIT_ULL(idx);
	}
	return status;
}

static void intel_ack(u64 status)
{
	/*
	 * Version 1 has no status to clear: a new period clears the bit.
	 * OvfBuffer was cleared as status() read it.
	 */
	if (!intel_v1)
		wrmsrl(MSR_CORE_PERF_GLOBAL_OVF_CTRL,
		       intel_ctrl(status & ~BIT_ULL(X86_STATUS_DRAIN)));
}

static void intel_write(int idx, u64 val)
{
	if (idx == X86_BTS_IDX)
		return;
	/* The metrics have one register, which only clears (to 0). */
	if (idx >= X86_METRIC_BASE) {
		if (idx == X86_METRIC_BASE && !val)
			wrmsrl(MSR_PERF_METRICS, 0);
		return;
	}
	if (idx >= X86_ASSIGN_FIXED_BASE)
		wrmsrl(MSR_ARCH_PERFMON_FIXED_CTR0 + idx - X86_ASSIGN_FIXED_BASE,
		       val & intel_mask);
	else if (intel_full_width)
		wrmsrl(MSR_IA32_PMC0 + idx, val & intel_mask);
	else	/* 32 bits, sign-extended by the CPU */
		wrmsrl(MSR_ARCH_PERFMON_PERFCTR0 + idx, val & 0xffffffffULL);
}

PMU_FORMAT_ATTR(event, "config:0-7");
PMU_FORMAT_ATTR(umask, "config:8-15");
PMU_FORMAT_ATTR(edge, "config:18");
PMU_FORMAT_ATTR(pc, "config:19");
PMU_FORMAT_ATTR(inv, "config:23");
PMU_FORMAT_ATTR(cmask, "config:24-31");
PMU_FORMAT_ATTR(any, "config:21");

/*
 * The EVTSEL's fields; then "any" from version 2 unless version 5
 * deprecates it, and a model's fields of config1 (intel_add_attrs()).
 */
static struct attribute *intel_evtsel_format[] __initdata = {
	&format_attr_event.attr,
	&format_attr_umask.attr,
	&format_attr_edge.attr,
	&format_attr_pc.attr,
	&format_attr_inv.attr,
	&format_attr_cmask.attr,
	NULL,
};

/*
 * Append the NULL-terminated @attrs to @list, of @size entries, which
 * keeps a NULL at its end.
 */
static void __init intel_add_attrs(struct attribute **list, size_t size,
				   struct attribute **attrs)
{
	size_t i = 0;

	while (list[i])
		i++;
	for (; attrs && *attrs; attrs++, i++) {
		if (WARN_ON_ONCE(i + 1 >= size))
			return;
		list[i] = *attrs;
	}
}

/*
 * freeze_on_smi: IA32_DEBUGCTL.FREEZE_PERFMON_ON_SMM on every CPU.  As
 * upstream's: on by default from version 2, so that counters do not
 * count what firmware does in SMM, and set as CPUs come up; at version 1
 * off until written.
 */
static unsigned long intel_freeze_on_smi;
static DEFINE_MUTEX(intel_freeze_mutex);

static void intel_set_freeze(void *unused)
{
	if (READ_ONCE(intel_freeze_on_smi))
		msr_set_bit(MSR_IA32_DEBUGCTLMSR, DEBUGCTLMSR_FREEZE_IN_SMM_BIT);
	else
		msr_clear_bit(MSR_IA32_DEBUGCTLMSR, DEBUGCTLMSR_FREEZE_IN_SMM_BIT);
}

static void intel_cpu_starting(const struct x86_vendor *v)
{
	this_cpu_write(intel_cpu.t, intel_of(v));
	if (!intel_v1)
		intel_set_freeze(NULL);
	intel_lbr_cpu_starting();
	intel_pebs_cpu_starting();
}

static ssize_t freeze_on_smi_show(struct device *dev,
				  struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%lu\n", READ_ONCE(intel_freeze_on_smi));
}

static ssize_t freeze_on_smi_store(struct device *dev,
				   struct device_attribute *attr,
				   const char *buf, size_t count)
{
	unsigned long val;
	int err = kstrtoul(buf, 0, &val);

	if (err)
		return err;
	if (val > 1)
		return -EINVAL;
	mutex_lock(&intel_freeze_mutex);
	if (val != intel_freeze_on_smi) {
		WRITE_ONCE(intel_freeze_on_smi, val);
		cpus_read_lock();
		on_each_cpu(intel_set_freeze, NULL, 1);
		cpus_read_unlock();
	}
	mutex_unlock(&intel_freeze_mutex);
	return count;
}
static DEVICE_ATTR_RW(freeze_on_smi);

static struct attribute *intel_attrs[] = {
	&dev_attr_freeze_on_smi.attr,
	NULL,
};

/*
 * Versions 2 to 4 may leave the fixed counters out of CPUID.0AH:EDX;
 * the CPU has the first three all the same, which upstream assumes
 * outside a hypervisor.  A hypervisor's CPUID is taken at its word.
 */
static unsigned int intel_nr_fixed(union cpuid10_eax eax, union cpuid10_edx edx)
{
	unsigned int n = edx.split.num_counters_fixed;

	if (eax.split.version_id < 2)
		return 0;
	if (eax.split.version_id < 5 && !boot_cpu_has(X86_FEATURE_HYPERVISOR))
		n = max(n, 3U);
	return min(n, 3U);
}

/*
 * Describe the counters of one core type: @gp and @fixed the counters
 * it has, @model its tables (NULL: the architectural ones alone), @eax,
 * @ebx CPUID leaf 0xA's, @caps IA32_PERF_CAPABILITIES.
 */
static void __init intel_type_init(struct intel_type *it, struct x86_vendor *v,
				   const struct intel_model *model, u64 gp,
				   u64 fixed, union cpuid10_eax eax,
				   union cpuid10_ebx ebx, u64 caps)
{
	unsigned int i;

	it->gp = gp;
	it->fixed = fixed;
	it->model = model;
	for (i = 0; i < ARRAY_SIZE(arch_events); i++)
		if (i < eax.split.mask_length && !(ebx.full & BIT(i)))
			it->events[arch_events[i].id] = arch_events[i].config;
	if (has_fixed(it, 2) || intel_v1)
		it->events[PERF_COUNT_HW_REF_CPU_CYCLES] = REF_CYCLES_CONFIG;

	intel_add_attrs(it->format, ARRAY_SIZE(it->format), intel_evtsel_format);
	/*
	 * AnyThread is taken from version 3, deprecated in version 5 or not
	 * (the CPU accepts the bit there).  As upstream's, the format names
	 * "any" from version 2 unless version 5 deprecates it, though the
	 * bit is refused (EINVAL) before version 3.
	 */
	if (!intel_v1 && !intel_any_deprecated) {
		struct attribute *any[] = { &format_attr_any.attr, NULL };

		intel_add_attrs(it->format, ARRAY_SIZE(it->format), any);
	}
	/*
	 * Fixed counter 3 counts slots, which only the models with topdown
	 * tables know to use (and not the generic description).
	 */
	if (model && intel_model_topdown(model) >= 0 && has_fixed(it, 3))
		it->topdown = intel_topdown_probe(intel_model_topdown(model),
						  caps, intel_mask, v);
	/* Fixed counter 3 is topdown's, when it is used at all. */
	it->fixed &= ~BIT_ULL(X86_ASSIGN_FIXED_BASE + 3);
	if (model) {
		intel_add_attrs(it->format, ARRAY_SIZE(it->format),
				intel_model_format(model));
		/* Where CPUID has the event (index 2), any counter counts it. */
		if (intel_model_ref_cycles_p(model) &&
		    it->events[PERF_COUNT_HW_BUS_CYCLES])
			it->events[PERF_COUNT_HW_REF_CPU_CYCLES] =
				it->events[PERF_COUNT_HW_BUS_CYCLES];
		intel_add_attrs(it->event_files, ARRAY_SIZE(it->event_files),
				intel_model_events(model));
	}
	/* The hybrid models' files hold topdown's, in their hybrid form. */
	if (it->topdown && !intel_model_hybrid_events(model))
		intel_add_attrs(it->event_files, ARRAY_SIZE(it->event_files),
				intel_topdown_events());

	v->priv = it;
	v->events = it->event_files;
	v->counters = it->gp | it->fixed | it->topdown;
	v->event_map = intel_event_map;
	if (model)
		v->cache_event = intel_cache_event;
	v->constraint = intel_constraint;
	v->hw_config = intel_hw_config;
	v->format = it->format;
	if (model) {
		v->get_extra = intel_get_extra;
		v->put_extra = intel_put_extra;
		intel_lbr_probe(model, caps, v);
		it->has_pebs = intel_pebs_probe(model, caps, it->gp, v);
		if (it->has_pebs) {
			/* A hybrid model's files hold mem-loads and mem-stores. */
			if (!intel_model_hybrid_events(model))
				intel_add_attrs(it->event_files,
						ARRAY_SIZE(it->event_files),
						intel_pebs_events(model));
			/* The debug store PEBS sets up serves BTS too. */
			intel_bts_probe(v);
		}
	}
}

/* The hooks and facts both core types share. */
static void __init intel_vendor_init(struct x86_vendor *v, union cpuid10_eax eax,
				     union cpuid10_ebx ebx)
{
	v->version = eax.split.version_id;
	v->events_mask = ebx.full;
	v->events_mask_len = eax.split.mask_length;
	v->width = eax.split.bit_width;
	/* Half the counter, or what a 32-bit write can start it at. */
	v->max_period = intel_full_width ? intel_mask >> 1 : (1ULL << 31) - 1;
	v->config_mask = X86_RAW_EVENT_MASK;
	v->enable_all = intel_enable_all;
	v->disable_all = intel_disable_all;
	v->enable = intel_enable;
	v->disable = intel_disable;
	v->status = intel_status;
	v->ack = intel_ack;
	v->read = intel_read;
	v->write = intel_write;
	v->attrs = intel_attrs;
	v->cpu_starting = intel_cpu_starting;
	v->guest_msrs = intel_guest_msrs;
	v->check_period = intel_check_period;
}

/*
 * A model with hybrid parts: on a hybrid part the P-cores have two
 * general counters and a fixed counter more than leaf 0xA reports,
 * unless leaf 0xA already reports more than a P-core has (upstream's
 * reading of parts whose firmware turned the E-cores off); the E-cores
 * have what it reports.  Without the hybrid flag every CPU is a P-core
 * with what leaf 0xA reports, and cpu_atom has no CPUs, as upstream.
 */
static void __init intel_hybrid_init(struct x86_vendor *v,
				     const struct intel_model *model,
				     u64 gp, u64 fixed, union cpuid10_eax eax,
				     union cpuid10_ebx ebx, u64 caps)
{
	u64 core_gp = gp << 2 | 3, core_fixed = fixed << 1 | BIT_ULL(X86_ASSIGN_FIXED_BASE);

	if (!boot_cpu_has(X86_FEATURE_HYBRID_CPU) ||
	    hweight64(core_gp) > 8 || hweight64(core_fixed) > 4) {
		core_gp = gp;
		core_fixed = fixed;
	}
	/* The core types first: the PEBS probe tells them apart by it. */
	v[0].pmu_name = "cpu_core";
	v[0].core_type = INTEL_CORE_TYPE_CORE;
	v[1].pmu_name = "cpu_atom";
	v[1].core_type = INTEL_CORE_TYPE_ATOM;
	/* Upstream takes PERF_METRICS as there on every P-core. */
	intel_type_init(&intel_types[0], &v[0], model, core_gp,
			core_fixed & X86_FIXED_MASK, eax, ebx,
			caps | BIT_ULL(PERF_CAP_METRICS_IDX));
	intel_type_init(&intel_types[1], &v[1], intel_model_atom(model), gp,
			fixed, eax, ebx, caps & ~BIT_ULL(PERF_CAP_METRICS_IDX));
}

/**
 * intel_arch_probe - describe the CPU's architectural PMU
 * @v: filled in on success, one description per core type
 * @max: how many descriptions @v has room for
 *
 * Return: how many core types were described (1, or 2 for a model
 * with hybrid parts), or -ENODEV when there is no PMU this driver can
 * run.
 */
int __init intel_arch_probe(struct x86_vendor *v, int max)
{
	union cpuid10_eax eax;
	union cpuid10_ebx ebx;
	union cpuid10_edx edx;
	unsigned int fixed_bitmap, i, n_fixed;
	const struct intel_model *model;
	u64 caps = 0, gp, fixed = 0;
	int n = 1;

	if (!boot_cpu_has(X86_FEATURE_ARCH_PERFMON))
		return -ENODEV;
	cpuid(10, &eax.full, &ebx.full, &fixed_bitmap, &edx.full);
	if (!eax.split.version_id || !eax.split.num_counters ||
	    eax.split.bit_width < 32)
		return -ENODEV;
	intel_v1 = eax.split.version_id < 2;
	model = intel_v1 ? NULL : intel_model_find();
	/*
	 * Core types with their own counters (an E-core has fewer than a
	 * P-core) need a PMU per type, which needs the model's tables:
	 * counting on one type with the other's description would touch
	 * counters that do not exist.  A model with hybrid parts has a PMU
	 * per type whether this part is hybrid or not, as upstream.
	 */
	if (model && intel_model_atom(model) && max >= 2) {
		n = 2;
	} else if (boot_cpu_has(X86_FEATURE_HYBRID_CPU)) {
		pr_info("perf: a hybrid Intel CPU of a model without tables: no hardware events\n");
		return -ENODEV;
	}
	if (!x86_counter_msr_works(MSR_ARCH_PERFMON_PERFCTR0)) {
		pr_info("perf: the counters CPUID describes do not work: no hardware events\n");
		return -ENODEV;
	}

	intel_freeze_on_smi = !intel_v1;
	gp = GENMASK_ULL(min_t(int, eax.split.num_counters,
			       intel_v1 ? INTEL_V1_COUNTERS : 32) - 1, 0);
	/* Version 1 has no fixed counters, and EDX says nothing. */
	n_fixed = intel_nr_fixed(eax, edx);
	for (i = 0; i < 4; i++)
		if ((i < n_fixed && i < 3) ||
		    (i == 3 && edx.split.num_counters_fixed > 3) ||
		    (eax.split.version_id >= 5 && (fixed_bitmap & BIT(i))))
			fixed |= BIT_ULL(X86_ASSIGN_FIXED_BASE + i);
	intel_mask = GENMASK_ULL(eax.split.bit_width - 1, 0);
	intel_any_deprecated = eax.split.version_id >= 5 &&
			       edx.split.anythread_deprecated;
	intel_any_thread = eax.split.version_id >= 3;
	if (boot_cpu_has(X86_FEATURE_PDCM) &&
	    rdmsrl_safe(MSR_IA32_PERF_CAPABILITIES, &caps))
		caps = 0;
	intel_full_width = caps & INTEL_CAP_FULL_WIDTH_WRITES;
	if (model)
		intel_rsp_probe();

	for (i = 0; i < n; i++)
		intel_vendor_init(&v[i], eax, ebx);
	if (n == 2)
		intel_hybrid_init(v, model, gp, fixed, eax, ebx, caps);
	else
		intel_type_init(&intel_types[0], v, model, gp, fixed, eax, ebx, caps);

	for (i = 0; i < n; i++) {
		if (model)
			v[i].name = intel_model_banner(model);
		else if (intel_v1)
			v[i].name = "generic_arch_v1";
		else if (eax.split.version_id >= 5)
			v[i].name = "generic_arch_v5+";
		else
			v[i].name = "generic_arch_v2+";
		v[i].caps_name = model ? intel_model_pmu_name(model) : v[i].name;
	}
	return n;
}
