// SPDX-License-Identifier: GPL-2.0-only
/*
 * The "power" PMU of AMD family 15h: a compute unit's average power,
 * from the accumulated power interface of models 60h and later (CPUID
 * Fn8000_0007_EDX bit 12).  One event, power-pkg (config 1), in
 * microwatts (sysfs: unit "mWatts", scale 1e-3).
 *
 * The hardware keeps, for each compute unit, an accumulator of its power
 * in milliwatts times a sample period (MSR 0xc001007a), which wraps to 0
 * on reaching the maximum MSR 0xc001007b gives, and a performance time
 * stamp counter (PTSC, 0xc0010280); a sample period is N PTSC periods, N
 * being CPUID Fn8000_0007_ECX.  The average power between two looks is
 * then N * (accumulated difference) / (PTSC difference) milliwatts.
 *
 * What the count means is upstream's: an event remembers both registers
 * when it starts, and each read of a running event, and its stop, adds
 * the average power from that start to now, in microwatts.  perf stat's
 * one read after disabling gives the run's average; a count read while
 * running grows by the average since the start at each read.
 *
 * A compute unit's cores are SMT siblings to Linux, so the PMU has the
 * core's scope: the core lists one CPU of each compute unit in
 * "cpumask", puts each event on that CPU and moves it when that CPU goes
 * offline.  Only counting CPU events: the registers do not interrupt.
 *
 * Locking and lifetime: add, del, start and stop run on the event's CPU,
 * read there or on another CPU of its compute unit (the core reads a
 * scoped PMU's events where they share the counters), all with
 * interrupts off and under the event's context lock, which orders them:
 * the snapshots and the count need no lock of their own.  The
 * accumulator and the PTSC (CU_PTSC) are the compute unit's, the same
 * from each of its cores.  The ratio and the maximum are set at init;
 * the PMU lives until the module goes.
 */
#include <linux/cpufeature.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/perf_event.h>
#include <linux/sysfs.h>

#include <asm/cpu_device_id.h>
#include <asm/msr.h>

#include "x86_pmu.h"

MODULE_DESCRIPTION("AMD family 15h accumulated power as the power PMU");
MODULE_LICENSE("GPL");

#define AMD_POWER_CONFIG	0xffULL
#define AMD_POWER_PKG		1

/* N: the sample period in PTSC periods; the accumulator's maximum. */
static u32 amd_power_ratio;
static u64 amd_power_max;

/* The average power since the event started, in microwatts, added. */
static void amd_power_update(struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;
	u64 acc, ptsc, d_acc, d_ptsc;

	rdmsrl(MSR_F15H_CU_PWR_ACCUMULATOR, acc);
	rdmsrl(MSR_F15H_PTSC, ptsc);
	d_acc = acc >= hwc->pwr_acc ? acc - hwc->pwr_acc :
				      amd_power_max - hwc->pwr_acc + acc;
	d_ptsc = ptsc - hwc->ptsc;
	/* No time yet: no average to give. */
	if (!d_ptsc)
		return;
	local64_add(mul_u64_u64_div_u64(d_acc, (u64)amd_power_ratio * 1000,
					d_ptsc), &event->count);
}

static void amd_power_start(struct perf_event *event, int flags)
{
	struct hw_perf_event *hwc = &event->hw;

	if (!(hwc->state & PERF_HES_STOPPED))
		return;
	hwc->state = 0;
	rdmsrl(MSR_F15H_PTSC, hwc->ptsc);
	rdmsrl(MSR_F15H_CU_PWR_ACCUMULATOR, hwc->pwr_acc);
}

static void amd_power_stop(struct perf_event *event, int flags)
{
	struct hw_perf_event *hwc = &event->hw;

	if (hwc->state & PERF_HES_STOPPED)
		return;
	hwc->state |= PERF_HES_STOPPED;
	if (flags & PERF_EF_UPDATE) {
		amd_power_update(event);
		hwc->state |= PERF_HES_UPTODATE;
	}
}

static int amd_power_add(struct perf_event *event, int flags)
{
	event->hw.state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
	if (flags & PERF_EF_START)
		amd_power_start(event, flags);
	return 0;
}

static void amd_power_del(struct perf_event *event, int flags)
{
	amd_power_stop(event, PERF_EF_UPDATE);
}

static void amd_power_read(struct perf_event *event)
{
	if (!(event->hw.state & PERF_HES_STOPPED))
		amd_power_update(event);
}

static int amd_power_event_init(struct perf_event *event)
{
	if (event->attr.type != event->pmu->type)
		return -ENOENT;
	/* A compute unit's registers: no task events, no sampling. */
	if (event->cpu < 0 || event->attr.sample_period)
		return -EINVAL;
	if ((event->attr.config & AMD_POWER_CONFIG) != AMD_POWER_PKG)
		return -EINVAL;
	return 0;
}

X86_EVENT_STR(amd_power_pkg, "power-pkg", "event=0x01");
X86_EVENT_STR(amd_power_pkg_unit, "power-pkg.unit", "mWatts");
X86_EVENT_STR(amd_power_pkg_scale, "power-pkg.scale", "1.000000e-3");

static struct attribute *amd_power_event_attrs[] = {
	&amd_power_pkg.attr.attr,
	&amd_power_pkg_unit.attr.attr,
	&amd_power_pkg_scale.attr.attr,
	NULL,
};

static const struct attribute_group amd_power_events_group = {
	.name = "events",
	.attrs = amd_power_event_attrs,
};

PMU_FORMAT_ATTR(event, "config:0-7");

static struct attribute *amd_power_format_attrs[] = {
	&format_attr_event.attr,
	NULL,
};

static const struct attribute_group amd_power_format_group = {
	.name = "format",
	.attrs = amd_power_format_attrs,
};

static const struct attribute_group *amd_power_attr_groups[] = {
	&amd_power_format_group,
	&amd_power_events_group,
	NULL,
};

static struct pmu amd_power_pmu = {
	.module		= THIS_MODULE,
	.task_ctx_nr	= perf_invalid_context,
	.attr_groups	= amd_power_attr_groups,
	.event_init	= amd_power_event_init,
	.add		= amd_power_add,
	.del		= amd_power_del,
	.start		= amd_power_start,
	.stop		= amd_power_stop,
	.read		= amd_power_read,
	.capabilities	= PERF_PMU_CAP_NO_EXCLUDE,
	.scope		= PERF_PMU_SCOPE_CORE,
};

static const struct x86_cpu_id amd_power_cpus[] __initconst = {
	X86_MATCH_VENDOR_FAM(AMD, 0x15, NULL),
	{}
};

static int __init amd_power_init(void)
{
	int ret;

	if (!x86_match_cpu(amd_power_cpus) ||
	    !boot_cpu_has(X86_FEATURE_ACC_POWER))
		return -ENODEV;
	amd_power_ratio = cpuid_ecx(0x80000007);
	if (rdmsrl_safe(MSR_F15H_CU_MAX_PWR_ACCUMULATOR, &amd_power_max)) {
		pr_err("AMD power: the accumulator's maximum cannot be read\n");
		return -ENODEV;
	}
	ret = perf_pmu_register(&amd_power_pmu, "power", -1);
	if (ret)
		return ret;
	pr_info("AMD power PMU: a compute unit's average power\n");
	return 0;
}
module_init(amd_power_init);

static void __exit amd_power_exit(void)
{
	perf_pmu_unregister(&amd_power_pmu);
}
module_exit(amd_power_exit);
