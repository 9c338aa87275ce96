// SPDX-License-Identifier: GPL-2.0-only
/*
 * Intel Processor Trace capabilities as CPUID leaf 0x14 reports them.
 *
 * There is no PT driver here (no "intel_pt" PMU): nothing traces, so
 * there is never a trace to stop on a crash and no event is a PT event.
 * What remains is the decoding of leaf 0x14, which KVM uses for the
 * capabilities it passes to guests and for the host's own.
 *
 * Locking: the host's capabilities are read once at boot.
 */
#include <linux/export.h>
#include <linux/init.h>
#include <linux/cpufeature.h>
#include <linux/perf_event.h>
#include <linux/processor.h>

#include <asm/intel_pt.h>

/* A capability's register in the caps array: subleaf * 4 + register. */
#define PT_WORD(subleaf, reg)	((subleaf) * PT_CPUID_REGS_NUM + (reg))

static const struct {
	u8 word;
	u32 mask;
} pt_fields[] = {
	[PT_CAP_max_subleaf]		= { PT_WORD(0, CPUID_EAX), 0xffffffff },
	[PT_CAP_cr3_filtering]		= { PT_WORD(0, CPUID_EBX), BIT(0) },
	[PT_CAP_psb_cyc]		= { PT_WORD(0, CPUID_EBX), BIT(1) },
	[PT_CAP_ip_filtering]		= { PT_WORD(0, CPUID_EBX), BIT(2) },
	[PT_CAP_mtc]			= { PT_WORD(0, CPUID_EBX), BIT(3) },
	[PT_CAP_ptwrite]		= { PT_WORD(0, CPUID_EBX), BIT(4) },
	[PT_CAP_power_event_trace]	= { PT_WORD(0, CPUID_EBX), BIT(5) },
	[PT_CAP_event_trace]		= { PT_WORD(0, CPUID_EBX), BIT(7) },
	[PT_CAP_tnt_disable]		= { PT_WORD(0, CPUID_EBX), BIT(8) },
	[PT_CAP_topa_output]		= { PT_WORD(0, CPUID_ECX), BIT(0) },
	[PT_CAP_topa_multiple_entries]	= { PT_WORD(0, CPUID_ECX), BIT(1) },
	[PT_CAP_single_range_output]	= { PT_WORD(0, CPUID_ECX), BIT(2) },
	[PT_CAP_output_subsys]		= { PT_WORD(0, CPUID_ECX), BIT(3) },
	[PT_CAP_payloads_lip]		= { PT_WORD(0, CPUID_ECX), BIT(31) },
	[PT_CAP_num_address_ranges]	= { PT_WORD(1, CPUID_EAX), 0x7 },
	[PT_CAP_mtc_periods]		= { PT_WORD(1, CPUID_EAX), 0xffff0000 },
	[PT_CAP_cycle_thresholds]	= { PT_WORD(1, CPUID_EBX), 0xffff },
	[PT_CAP_psb_periods]		= { PT_WORD(1, CPUID_EBX), 0xffff0000 },
};

/* The host's leaf 0x14, subleaves 0 and 1 (zero without PT). */
static u32 pt_host_caps[PT_CPUID_LEAVES * PT_CPUID_REGS_NUM] __ro_after_init;

/**
 * intel_pt_validate_cap - one capability out of CPUID leaf 0x14 values
 * @caps: the registers of subleaves 0 and 1, EAX to EDX each
 * @capability: which field
 *
 * Return: the field's value, shifted down (0 for an unknown field).
 */
u32 intel_pt_validate_cap(u32 *caps, enum pt_capabilities capability)
{
	u32 mask;

	if ((unsigned int)capability >= ARRAY_SIZE(pt_fields))
		return 0;
	mask = pt_fields[capability].mask;
	return (caps[pt_fields[capability].word] & mask) >> __ffs(mask);
}
EXPORT_SYMBOL_GPL(intel_pt_validate_cap);

/**
 * intel_pt_validate_hw_cap - one of this CPU's PT capabilities
 * @cap: which field
 *
 * Return: the field's value, 0 on a CPU without Intel PT.
 */
u32 intel_pt_validate_hw_cap(enum pt_capabilities cap)
{
	return intel_pt_validate_cap(pt_host_caps, cap);
}
EXPORT_SYMBOL_GPL(intel_pt_validate_hw_cap);

/**
 * cpu_emergency_stop_pt - stop tracing on this CPU before a crash kernel
 *
 * Nothing traces without a PT driver, so there is nothing to stop.
 */
void cpu_emergency_stop_pt(void)
{
}

/**
 * is_intel_pt_event - whether @event is an Intel PT event
 * @event: any event
 *
 * Return: 0: there is no PT PMU here.
 */
int is_intel_pt_event(struct perf_event *event)
{
	return 0;
}

static int __init intel_pt_caps_init(void)
{
	int i;

	if (!boot_cpu_has(X86_FEATURE_INTEL_PT))
		return 0;
	for (i = 0; i < PT_CPUID_LEAVES; i++)
		cpuid_count(0x14, i, &pt_host_caps[PT_WORD(i, CPUID_EAX)],
			    &pt_host_caps[PT_WORD(i, CPUID_EBX)],
			    &pt_host_caps[PT_WORD(i, CPUID_ECX)],
			    &pt_host_caps[PT_WORD(i, CPUID_EDX)]);
	return 0;
}
early_initcall(intel_pt_caps_init);
