// SPDX-License-Identifier: GPL-2.0-only
/*
 * What a hypervisor asks of the x86 PMU driver: KVM sizes its virtual
 * PMU from perf_get_x86_pmu_capability(), encodes the generic events with
 * perf_get_hw_event_config(), and on Intel loads the global control
 * register from perf_guest_get_msrs() at each guest entry and exit, so
 * that events excluding the guest stop there and events excluding the
 * host (its own virtual counters) count only there.  On AMD the counter
 * controls carry the host-only and guest-only bits themselves (amd.c).
 *
 * x86_perf_get_lbr() tells KVM of the branch recorder (intel_lbr.c holds
 * it for a guest with KVM's event).  Intel PT has no driver here: there
 * is no trace to stop when VMX turns on.
 *
 * Locking: the description is fixed at boot; perf_guest_get_msrs() runs
 * with interrupts off and reads this CPU's state only.
 */
#include <linux/cpufeature.h>
#include <linux/export.h>
#include <linux/nospec.h>
#include <linux/perf_event.h>
#include <linux/string.h>

#include <asm/perf_event.h>

#include "x86_pmu.h"

/**
 * perf_get_x86_pmu_capability - the counters a virtual PMU may mirror
 * @cap: filled in; all zero when no driver runs the counters, or on a
 *	 hybrid CPU, whose cores differ
 */
void perf_get_x86_pmu_capability(struct x86_pmu_capability *cap)
{
	const struct x86_vendor *v = x86_pmu_vendor();

	memset(cap, 0, sizeof(*cap));
	if (!v || cpu_feature_enabled(X86_FEATURE_HYBRID_CPU))
		return;
	cap->version = v->version;
	cap->num_counters_gp = hweight32(lower_32_bits(v->counters));
	cap->num_counters_fixed = hweight64(v->counters & X86_FIXED_MASK);
	/* One width for both kinds, as the general counters have. */
	cap->bit_width_gp = cap->num_counters_gp ? v->width : 0;
	cap->bit_width_fixed = cap->num_counters_fixed ? v->width : 0;
	cap->events_mask = v->events_mask;
	cap->events_mask_len = v->events_mask_len;
}
EXPORT_SYMBOL_GPL(perf_get_x86_pmu_capability);

/**
 * perf_get_hw_event_config - the raw config of a generic hardware event
 * @hw_event: a PERF_COUNT_HW_* value
 *
 * Return: the config PERF_TYPE_RAW would take for it, or 0 when the CPU
 * does not count it (or @hw_event is out of range, or the part is hybrid:
 * no virtual PMU is offered there).
 */
u64 perf_get_hw_event_config(int hw_event)
{
	const struct x86_vendor *v = x86_pmu_vendor();

	if (!v || hw_event < 0 || hw_event >= PERF_COUNT_HW_MAX)
		return 0;
	return v->event_map(v, array_index_nospec(hw_event, PERF_COUNT_HW_MAX));
}
EXPORT_SYMBOL_GPL(perf_get_hw_event_config);

/**
 * perf_guest_get_msrs - MSRs to switch at guest entry and exit
 * @nr: set to the number of entries returned
 * @data: the hypervisor's PMU state (unused: no PEBS here)
 *
 * Called with interrupts off, right before entering the guest.
 *
 * Return: this CPU's array of MSRs with the values to load in the guest
 * and back in the host, or NULL (@nr 0) when nothing needs switching.
 */
struct perf_guest_switch_msr *perf_guest_get_msrs(int *nr, void *data)
{
	const struct x86_vendor *v = x86_cpu_vendor();

	lockdep_assert_irqs_disabled();
	*nr = 0;
	if (!v || !v->guest_msrs)
		return NULL;
	return v->guest_msrs(nr);
}
EXPORT_SYMBOL_GPL(perf_guest_get_msrs);

#ifdef CONFIG_CPU_SUP_INTEL
/**
 * x86_perf_get_lbr - the LBR stack a guest could be given
 * @lbr: filled in: the depth, the first records' MSRs and whether there
 *	is a call stack mode, as the first core type's driver found them
 *	(a hybrid part's types share them); all zero without one
 */
void x86_perf_get_lbr(struct x86_pmu_lbr *lbr)
{
	const struct x86_vendor *v = x86_pmu_first_vendor();

	if (v)
		*lbr = v->guest_lbr;
	else
		memset(lbr, 0, sizeof(*lbr));
}
EXPORT_SYMBOL_GPL(x86_perf_get_lbr);

/**
 * intel_pt_handle_vmx - VMX is being turned on or off on this CPU
 * @on: whether it is
 *
 * VMXON stops Intel PT tracing on CPUs without PT in VMX operation;
 * PT has no driver here, so there is no trace to stop or resume.
 */
void intel_pt_handle_vmx(int on)
{
}
EXPORT_SYMBOL_GPL(intel_pt_handle_vmx);
#endif
