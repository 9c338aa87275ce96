/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The PMUs of the x86 layer, one per core type (x86_pmu.c), and their
 * sysfs files (x86_sysfs.c).
 */
#ifndef _X86_EVENTS_X86_TYPE_H
#define _X86_EVENTS_X86_TYPE_H

#include <linux/cpumask.h>
#include <linux/device.h>
#include <linux/perf_event.h>

#include "x86_pmu.h"

/* The generic events/ files (the vendor's: X86_VENDOR_EVENTS at most). */
#define X86_GENERIC_EVENTS	10

/**
 * struct x86_pmu_type - one PMU and the counters of its CPUs
 * @pmu: the PMU
 * @v: the vendor's description of its CPUs' counters
 * @events: its events/ files: the generic ones, then the vendor's
 * @events_group: events/
 * @format_group: format/, from the vendor
 * @vendor_group: the vendor's files in the PMU's directory
 * @groups: the groups, for @pmu (with caps/, the rdpmc knob and a hybrid
 *	part's cpus file, shared)
 * @cpus: the online CPUs of the type
 *
 * Every hook of @v that touches counters runs on a CPU of the type (an
 * event's, or the CPU's own: x86_cpu_pmu.t).
 */
struct x86_pmu_type {
	struct pmu pmu;
	struct x86_vendor v;
	struct attribute *events[X86_GENERIC_EVENTS + X86_VENDOR_EVENTS + 1];
	struct attribute_group events_group;
	struct attribute_group format_group;
	struct attribute_group vendor_group;
	const struct attribute_group *groups[7];
	cpumask_t cpus;
};

static inline struct x86_pmu_type *x86_pmu_type(struct pmu *pmu)
{
	return container_of(pmu, struct x86_pmu_type, pmu);
}

/* The description of the PMU whose directory @dev is. */
static inline const struct x86_vendor *x86_dev_v(struct device *dev)
{
	return &x86_pmu_type(dev_get_drvdata(dev))->v;
}

/* The rdpmc knob: 0 never, 1 with a mapped event (default), 2 always. */
extern int x86_rdpmc_mode;

extern struct attribute *x86_event_attrs[X86_GENERIC_EVENTS];
extern struct attribute_group x86_pmu_group;
extern struct attribute_group x86_caps_group;
extern struct attribute_group x86_hybrid_group;

umode_t x86_event_visible(struct kobject *kobj, struct attribute *attr, int i);

#endif
