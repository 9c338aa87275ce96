// SPDX-License-Identifier: GPL-2.0-only
/*
 * The "msr" PMU: counters the CPU runs freely in MSRs, whatever perf
 * does, exposed as counting events.
 *
 *   config  sysfs name           source
 *   0       tsc                  the time-stamp counter (RDTSC)
 *   1       aperf                IA32_APERF (X86_FEATURE_APERFMPERF)
 *   2       mperf                IA32_MPERF (X86_FEATURE_APERFMPERF)
 *   3       pperf                MSR_PPERF (Intel models that have it)
 *   4       smi                  MSR_SMI_COUNT, 32 bits (Intel models)
 *   5       ptsc                 MSR_F15H_PTSC (X86_FEATURE_PTSC)
 *   6       irperf               MSR_F17H_IRPERF (X86_FEATURE_IRPERF)
 *   7       cpu_thermal_margin   IA32_THERM_STATUS's digital readout, a
 *                                snapshot in degrees C (X86_FEATURE_DTHERM)
 *
 * An event is present when the CPU says it has its counter and reading
 * the MSR does not fault (a hypervisor may report a feature whose MSR it
 * does not emulate).  The set is fixed at boot; sysfs lists only the
 * present events, and the others are EINVAL.
 *
 * Nothing is programmed: an event remembers the counter's value when it
 * starts running and adds the difference when it stops or is read.  So
 * there is no interrupt (no sampling), no counter to run out of (the PMU
 * schedules like a software one: perf_sw_context) and no mode filter.
 *
 * Locking and lifetime: the callbacks run on the event's CPU with
 * interrupts off, as the core calls them; hw.prev_count is updated with
 * a compare-and-exchange so that a read from an IPI and a stop cannot
 * add the same ticks twice.  The PMU and its tables live for ever.
 */
#include <linux/init.h>
#include <linux/nospec.h>
#include <linux/perf_event.h>
#include <linux/sysfs.h>

#include <asm/cpu_device_id.h>
#include <asm/intel-family.h>
#include <asm/msr.h>

enum msr_event_id {
	MSR_EV_TSC,
	MSR_EV_APERF,
	MSR_EV_MPERF,
	MSR_EV_PPERF,
	MSR_EV_SMI,
	MSR_EV_PTSC,
	MSR_EV_IRPERF,
	MSR_EV_THERM,
	MSR_EV_COUNT,
};

/* Intel models with MSR_SMI_COUNT (and, the second list, MSR_PPERF too). */
static const struct x86_cpu_id smi_models[] __initconst = {
	X86_MATCH_VFM(INTEL_NEHALEM, NULL),
	X86_MATCH_VFM(INTEL_NEHALEM_G, NULL),
	X86_MATCH_VFM(INTEL_NEHALEM_EP, NULL),
	X86_MATCH_VFM(INTEL_NEHALEM_EX, NULL),
	X86_MATCH_VFM(INTEL_WESTMERE, NULL),
	X86_MATCH_VFM(INTEL_WESTMERE_EP, NULL),
	X86_MATCH_VFM(INTEL_WESTMERE_EX, NULL),
	X86_MATCH_VFM(INTEL_SANDYBRIDGE, NULL),
	X86_MATCH_VFM(INTEL_SANDYBRIDGE_X, NULL),
	X86_MATCH_VFM(INTEL_IVYBRIDGE, NULL),
	X86_MATCH_VFM(INTEL_IVYBRIDGE_X, NULL),
	X86_MATCH_VFM(INTEL_HASWELL, NULL),
	X86_MATCH_VFM(INTEL_HASWELL_X, NULL),
	X86_MATCH_VFM(INTEL_HASWELL_L, NULL),
	X86_MATCH_VFM(INTEL_HASWELL_G, NULL),
	X86_MATCH_VFM(INTEL_BROADWELL, NULL),
	X86_MATCH_VFM(INTEL_BROADWELL_D, NULL),
	X86_MATCH_VFM(INTEL_BROADWELL_G, NULL),
	X86_MATCH_VFM(INTEL_BROADWELL_X, NULL),
	X86_MATCH_VFM(INTEL_SAPPHIRERAPIDS_X, NULL),
	X86_MATCH_VFM(INTEL_EMERALDRAPIDS_X, NULL),
	X86_MATCH_VFM(INTEL_GRANITERAPIDS_X, NULL),
	X86_MATCH_VFM(INTEL_GRANITERAPIDS_D, NULL),
	X86_MATCH_VFM(INTEL_ATOM_SILVERMONT, NULL),
	X86_MATCH_VFM(INTEL_ATOM_SILVERMONT_D, NULL),
	X86_MATCH_VFM(INTEL_ATOM_AIRMONT, NULL),
	X86_MATCH_VFM(INTEL_ATOM_AIRMONT_NP, NULL),
	X86_MATCH_VFM(INTEL_ATOM_GOLDMONT, NULL),
	X86_MATCH_VFM(INTEL_ATOM_GOLDMONT_D, NULL),
	X86_MATCH_VFM(INTEL_ATOM_GOLDMONT_PLUS, NULL),
	X86_MATCH_VFM(INTEL_ATOM_TREMONT_D, NULL),
	X86_MATCH_VFM(INTEL_ATOM_TREMONT, NULL),
	X86_MATCH_VFM(INTEL_ATOM_TREMONT_L, NULL),
	X86_MATCH_VFM(INTEL_XEON_PHI_KNL, NULL),
	X86_MATCH_VFM(INTEL_XEON_PHI_KNM, NULL),
	{}
};

static const struct x86_cpu_id smi_pperf_models[] __initconst = {
	X86_MATCH_VFM(INTEL_SKYLAKE_L, NULL),
	X86_MATCH_VFM(INTEL_SKYLAKE, NULL),
	X86_MATCH_VFM(INTEL_SKYLAKE_X, NULL),
	X86_MATCH_VFM(INTEL_KABYLAKE_L, NULL),
	X86_MATCH_VFM(INTEL_KABYLAKE, NULL),
	X86_MATCH_VFM(INTEL_COMETLAKE_L, NULL),
	X86_MATCH_VFM(INTEL_COMETLAKE, NULL),
	X86_MATCH_VFM(INTEL_ICELAKE_L, NULL),
	X86_MATCH_VFM(INTEL_ICELAKE, NULL),
	X86_MATCH_VFM(INTEL_ICELAKE_X, NULL),
	X86_MATCH_VFM(INTEL_ICELAKE_D, NULL),
	X86_MATCH_VFM(INTEL_TIGERLAKE_L, NULL),
	X86_MATCH_VFM(INTEL_TIGERLAKE, NULL),
	X86_MATCH_VFM(INTEL_ROCKETLAKE, NULL),
	X86_MATCH_VFM(INTEL_ALDERLAKE, NULL),
	X86_MATCH_VFM(INTEL_ALDERLAKE_L, NULL),
	X86_MATCH_VFM(INTEL_ATOM_GRACEMONT, NULL),
	X86_MATCH_VFM(INTEL_RAPTORLAKE, NULL),
	X86_MATCH_VFM(INTEL_RAPTORLAKE_P, NULL),
	X86_MATCH_VFM(INTEL_RAPTORLAKE_S, NULL),
	X86_MATCH_VFM(INTEL_METEORLAKE, NULL),
	X86_MATCH_VFM(INTEL_METEORLAKE_L, NULL),
	{}
};

/* Where each event's count comes from; 0 for the TSC (RDTSC). */
static const u32 msr_of[MSR_EV_COUNT] = {
	[MSR_EV_APERF]	= MSR_IA32_APERF,
	[MSR_EV_MPERF]	= MSR_IA32_MPERF,
	[MSR_EV_PPERF]	= MSR_PPERF,
	[MSR_EV_SMI]	= MSR_SMI_COUNT,
	[MSR_EV_PTSC]	= MSR_F15H_PTSC,
	[MSR_EV_IRPERF]	= MSR_F17H_IRPERF,
	[MSR_EV_THERM]	= MSR_IA32_THERM_STATUS,
};

/* The present events, a bit per config; set once at boot. */
static unsigned long msr_present __ro_after_init;

/* Whether the CPU says it has event @id's counter. */
static bool __init msr_event_claimed(int id)
{
	switch (id) {
	case MSR_EV_TSC:
		return boot_cpu_has(X86_FEATURE_TSC);
	case MSR_EV_APERF:
	case MSR_EV_MPERF:
		return boot_cpu_has(X86_FEATURE_APERFMPERF);
	case MSR_EV_SMI:
		return x86_match_cpu(smi_models) || x86_match_cpu(smi_pperf_models);
	case MSR_EV_PPERF:
		return x86_match_cpu(smi_pperf_models);
	case MSR_EV_PTSC:
		return boot_cpu_has(X86_FEATURE_PTSC);
	case MSR_EV_IRPERF:
		return boot_cpu_has(X86_FEATURE_IRPERF);
	case MSR_EV_THERM:
		return boot_cpu_has(X86_FEATURE_DTHERM);
	}
	return false;
}

static void __init msr_probe(void)
{
	u64 val;
	int id;

	for (id = 0; id < MSR_EV_COUNT; id++) {
		if (!msr_event_claimed(id))
			continue;
		/* Claimed is not enough under a hypervisor: read it once. */
		if (msr_of[id] && rdmsrl_safe(msr_of[id], &val))
			continue;
		__set_bit(id, &msr_present);
	}
}

static u64 msr_now(struct perf_event *event)
{
	u64 v;

	if (!event->hw.event_base)
		return rdtsc_ordered();
	rdmsrl(event->hw.event_base, v);
	return v;
}

/* Bring the count up to the counter's value now. */
static void msr_pmu_read(struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;
	u64 prev = local64_read(&hwc->prev_count), now;
	s64 delta;

	do {
		now = msr_now(event);
	} while (!local64_try_cmpxchg(&hwc->prev_count, &prev, now));

	switch (hwc->config) {
	case MSR_EV_THERM:
		/* A reading, not a count: degrees below the limit, or -1. */
		local64_set(&event->count,
			    now & BIT_ULL(31) ? (now >> 16) & 0x3f : -1);
		return;
	case MSR_EV_SMI:
		/* A 32-bit counter: its wrap is a small step forward. */
		delta = sign_extend64(now - prev, 31);
		break;
	default:
		delta = now - prev;
	}
	local64_add(delta, &event->count);
}

static void msr_pmu_start(struct perf_event *event, int flags)
{
	local64_set(&event->hw.prev_count, msr_now(event));
}

static void msr_pmu_stop(struct perf_event *event, int flags)
{
	msr_pmu_read(event);
}

static int msr_pmu_add(struct perf_event *event, int flags)
{
	if (flags & PERF_EF_START)
		msr_pmu_start(event, flags);
	return 0;
}

static void msr_pmu_del(struct perf_event *event, int flags)
{
	msr_pmu_stop(event, PERF_EF_UPDATE);
}

static int msr_pmu_event_init(struct perf_event *event)
{
	u64 id = event->attr.config;

	if (event->attr.type != event->pmu->type)
		return -ENOENT;
	/* A free-running counter never interrupts: no period, no freq. */
	if (event->attr.sample_period)
		return -EINVAL;
	if (id >= MSR_EV_COUNT)
		return -EINVAL;
	id = array_index_nospec(id, MSR_EV_COUNT);
	if (!test_bit(id, &msr_present))
		return -EINVAL;

	event->hw.idx = -1;
	event->hw.config = id;
	event->hw.event_base = msr_of[id];
	return 0;
}

/* sysfs: events/ lists the present events, format/ the one field. */
PMU_EVENT_ATTR_STRING(tsc, msr_attr_tsc, "event=0x00");
PMU_EVENT_ATTR_STRING(aperf, msr_attr_aperf, "event=0x01");
PMU_EVENT_ATTR_STRING(mperf, msr_attr_mperf, "event=0x02");
PMU_EVENT_ATTR_STRING(pperf, msr_attr_pperf, "event=0x03");
PMU_EVENT_ATTR_STRING(smi, msr_attr_smi, "event=0x04");
PMU_EVENT_ATTR_STRING(ptsc, msr_attr_ptsc, "event=0x05");
PMU_EVENT_ATTR_STRING(irperf, msr_attr_irperf, "event=0x06");
PMU_EVENT_ATTR_STRING(cpu_thermal_margin, msr_attr_therm, "event=0x07");
PMU_EVENT_ATTR_STRING(cpu_thermal_margin.snapshot, msr_attr_therm_snap, "1");
PMU_EVENT_ATTR_STRING(cpu_thermal_margin.unit, msr_attr_therm_unit, "C");

/* The event each attribute describes: its index in msr_event_attrs. */
static const u8 msr_attr_event[] = {
	MSR_EV_TSC, MSR_EV_APERF, MSR_EV_MPERF, MSR_EV_PPERF, MSR_EV_SMI,
	MSR_EV_PTSC, MSR_EV_IRPERF, MSR_EV_THERM, MSR_EV_THERM, MSR_EV_THERM,
};

static struct attribute *msr_event_attrs[] = {
	&msr_attr_tsc.attr.attr,
	&msr_attr_aperf.attr.attr,
	&msr_attr_mperf.attr.attr,
	&msr_attr_pperf.attr.attr,
	&msr_attr_smi.attr.attr,
	&msr_attr_ptsc.attr.attr,
	&msr_attr_irperf.attr.attr,
	&msr_attr_therm.attr.attr,
	&msr_attr_therm_snap.attr.attr,
	&msr_attr_therm_unit.attr.attr,
	NULL,
};

static umode_t msr_event_visible(struct kobject *kobj, struct attribute *attr,
				 int i)
{
	return test_bit(msr_attr_event[i], &msr_present) ? attr->mode : 0;
}

static const struct attribute_group msr_events_group = {
	.name = "events",
	.attrs = msr_event_attrs,
	.is_visible = msr_event_visible,
};

PMU_FORMAT_ATTR(event, "config:0-63");

static struct attribute *msr_format_attrs[] = {
	&format_attr_event.attr,
	NULL,
};

static const struct attribute_group msr_format_group = {
	.name = "format",
	.attrs = msr_format_attrs,
};

static const struct attribute_group *msr_attr_groups[] = {
	&msr_events_group,
	&msr_format_group,
	NULL,
};

static struct pmu msr_pmu = {
	.task_ctx_nr	= perf_sw_context,
	.attr_groups	= msr_attr_groups,
	.event_init	= msr_pmu_event_init,
	.add		= msr_pmu_add,
	.del		= msr_pmu_del,
	.start		= msr_pmu_start,
	.stop		= msr_pmu_stop,
	.read		= msr_pmu_read,
	.capabilities	= PERF_PMU_CAP_NO_INTERRUPT | PERF_PMU_CAP_NO_EXCLUDE,
};

static int __init msr_pmu_init(void)
{
	BUILD_BUG_ON(ARRAY_SIZE(msr_attr_event) != ARRAY_SIZE(msr_event_attrs) - 1);

	if (!boot_cpu_has(X86_FEATURE_TSC)) {
		pr_info("perf: no msr PMU: the CPU has no TSC\n");
		return 0;
	}
	msr_probe();
	return perf_pmu_register(&msr_pmu, "msr", -1);
}
device_initcall(msr_pmu_init);
