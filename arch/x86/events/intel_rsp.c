// SPDX-License-Identifier: GPL-2.0-only
/*
 * The offcore response registers of Intel cores, and the load latency
 * register: MSR_OFFCORE_RSP_0 and _1 select the requests and responses
 * that the offcore response events (one event code for each register)
 * count; MSR_PEBS_LD_LAT_THRESHOLD the latency above which the load
 * latency events count, where the PEBS driver drives them.  An event's config1
 * is the value its register must hold while it counts, so two events
 * with different values cannot share a register: a CPU's two registers
 * are shared by value, each held by the events that want its value (a
 * count of them), and an event whose register holds another value takes
 * the other register, its event code changed to that register's, when
 * that one is free or holds its value and takes its bits.  An event
 * that finds neither cannot count now: its add fails and the core
 * rotates it in later, as for a counter conflict.  The load latency
 * register is shared the same way, with no other to move to.  A group
 * whose members need more than the registers can hold at once is
 * refused (-EINVAL), as upstream refuses it.
 *
 * Locking: the per-CPU state is changed in the x86 layer's add and del,
 * on its CPU with interrupts off; an event holds a register from its
 * add to its del (hw.extra_reg.alloc).  A group is checked at its new
 * member's event_init, where the core holds the leader's context mutex
 * (the sibling list is stable, as for x86_validate_group()); a member
 * counting on some CPU meanwhile may move to its other register there,
 * which changes nothing in the check: it tries both registers.
 */
#include <linux/perf_event.h>

#include <asm/msr.h>
#include <asm/perf_event.h>

#include "intel_models.h"
#include "intel_rsp.h"

/**
 * struct intel_rsp_cpu - a CPU's offcore response and load latency
 *	registers
 * @val: the value each holds
 * @ref: how many added events use each
 */
struct intel_rsp_cpu {
	u64 val[INTEL_EXTRA_LDLAT + 1];
	int ref[INTEL_EXTRA_LDLAT + 1];
};

static DEFINE_PER_CPU(struct intel_rsp_cpu, intel_rsp_cpu);

/* The registers take writes (on the emulated CPUs without them: not). */
static bool intel_rsp_ok __ro_after_init;
static bool intel_ldlat_ok __ro_after_init;

/* Whether @msr takes writes: @flip's bits flip and read back. */
static bool __init rsp_msr_works(u32 msr, u64 flip)
{
	u64 old, val;

	if (rdmsrl_safe(msr, &old))
		return false;
	if (wrmsrl_safe(msr, old ^ flip) || rdmsrl_safe(msr, &val))
		return false;
	wrmsrl_safe(msr, old);
	return val == (old ^ flip);
}

/**
 * intel_rsp_probe - whether the offcore response registers work
 *
 * As upstream checks them: two bits every model defines flip and read
 * back, and the register is put back.
 *
 * Return: true when MSR_OFFCORE_RSP_0 takes writes.
 */
bool __init intel_rsp_probe(void)
{
	intel_rsp_ok = rsp_msr_works(MSR_OFFCORE_RSP_0, 0x11);
	return intel_rsp_ok;
}

/**
 * intel_rsp_ldlat_probe - drive the load latency register
 *
 * Called by the PEBS driver, which reads the records of the load
 * latency events, when it has found PEBS; checked as the offcore
 * registers are.
 *
 * Return: true when MSR_PEBS_LD_LAT_THRESHOLD takes writes.
 */
bool __init intel_rsp_ldlat_probe(void)
{
	intel_ldlat_ok = rsp_msr_works(MSR_PEBS_LD_LAT_THRESHOLD, 0x10);
	return intel_ldlat_ok;
}

/* Whether register @i can take @val for an event of model @m. */
static bool rsp_fits(const struct intel_model *m, int i, u64 val)
{
	u64 valid;

	intel_model_rsp(m, i, &valid);
	return !(val & ~valid);
}

/*
 * Place @er's value on @rc's registers: its own register when that one
 * is free or holds the value, else the other on the same terms (an
 * offcore response register).  The register taken, or -1 when neither
 * can.
 */
static int rsp_place(const struct intel_model *m, struct intel_rsp_cpu *rc,
		     const struct hw_perf_event_extra *er)
{
	int i = er->idx;

	if (!rsp_fits(m, i, er->config) || (rc->ref[i] && rc->val[i] != er->config)) {
		if (i == INTEL_EXTRA_LDLAT)
			return -1;
		i = !i;
		if (!rsp_fits(m, i, er->config) ||
		    (rc->ref[i] && rc->val[i] != er->config))
			return -1;
	}
	rc->val[i] = er->config;
	rc->ref[i]++;
	return i;
}

/*
 * Whether the events of @event's group that need a register (@event
 * among them) can all count at once: each placed as the CPU would, on
 * two empty registers.
 */
static bool rsp_group_fits(const struct intel_model *m, struct perf_event *event)
{
	struct perf_event *leader = event->group_leader, *sib;
	struct intel_rsp_cpu rc = { };

	if (leader->pmu == event->pmu && leader->hw.extra_reg.reg &&
	    rsp_place(m, &rc, &leader->hw.extra_reg) < 0)
		return false;
	for_each_sibling_event(sib, leader) {
		if (sib->pmu != event->pmu || !sib->hw.extra_reg.reg)
			continue;
		if (rsp_place(m, &rc, &sib->hw.extra_reg) < 0)
			return false;
	}
	return rsp_place(m, &rc, &event->hw.extra_reg) >= 0;
}

/**
 * intel_rsp_hw_config - take note of the register a new event needs
 * @m: the model
 * @event: the event, its hw.config set
 *
 * Return: 0 (hw.extra_reg filled in when the event needs an offcore
 * response or the load latency register), -EINVAL for a config1 the register does not take
 * or a group that cannot count at once, -ENXIO for a register this
 * driver does not drive or that does not take writes.
 */
int intel_rsp_hw_config(const struct intel_model *m, struct perf_event *event)
{
	struct hw_perf_event_extra *er = &event->hw.extra_reg;
	u64 config1;
	int i = intel_model_extra(m, event, &config1);

	memset(er, 0, sizeof(*er));
	if (i < 0)
		return i == -1 ? 0 : i;
	if (i == INTEL_EXTRA_LDLAT ? !intel_ldlat_ok : !intel_rsp_ok)
		return -ENXIO;
	er->reg = i == INTEL_EXTRA_LDLAT ? MSR_PEBS_LD_LAT_THRESHOLD :
					   MSR_OFFCORE_RSP_0 + i;
	er->idx = i;
	er->config = config1;
	if (event->group_leader != event && !rsp_group_fits(m, event))
		return -EINVAL;
	return 0;
}

/**
 * intel_rsp_get - hold the register an event needs on this CPU
 * @m: the model
 * @event: the event being added
 *
 * Its own register when that one is free or holds its value, else the
 * other one on the same terms, the event's code changed to the other
 * register's event.
 *
 * Return: 0, or -EBUSY when neither register can take its value now.
 */
int intel_rsp_get(const struct intel_model *m, struct perf_event *event)
{
	struct hw_perf_event_extra *er = &event->hw.extra_reg;
	struct intel_rsp_cpu *rc = this_cpu_ptr(&intel_rsp_cpu);
	u64 valid;
	int i;

	if (!er->reg || er->alloc)
		return 0;
	i = rsp_place(m, rc, er);
	if (i < 0)
		return -EBUSY;
	if (i != er->idx) {
		event->hw.config &= ~(ARCH_PERFMON_EVENTSEL_EVENT |
				      ARCH_PERFMON_EVENTSEL_UMASK);
		event->hw.config |= intel_model_rsp(m, i, &valid);
		er->idx = i;
		er->reg = MSR_OFFCORE_RSP_0 + i;
	}
	er->alloc = 1;
	return 0;
}

/**
 * intel_rsp_put - let go of the register an event held on this CPU
 * @event: the event being deleted
 */
void intel_rsp_put(struct perf_event *event)
{
	struct hw_perf_event_extra *er = &event->hw.extra_reg;

	if (!er->alloc)
		return;
	this_cpu_ptr(&intel_rsp_cpu)->ref[er->idx]--;
	er->alloc = 0;
}
