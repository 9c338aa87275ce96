// SPDX-License-Identifier: GPL-2.0-only
/*
 * The sysfs files of the x86 layer's PMUs: events/ (the generic events
 * the vendor maps, with the encodings perf reads, then the vendor's own
 * files), caps/ (max_precise, pmu_name, and branches where there is a
 * branch stack), the rdpmc knob shared by all of them, and a hybrid
 * part's "cpus" of each core type.  format/ and the vendor's other files
 * come from the vendor (struct x86_vendor).
 *
 * Locking: the files read descriptions written once at boot; the rdpmc
 * knob's writers are serialised by rdpmc_mutex, readers of the mode use
 * READ_ONCE().  A type's cpus follow hotplug and are read unlocked, as a
 * snapshot.
 */
#include <linux/cpu.h>
#include <linux/mmu_context.h>
#include <linux/mutex.h>
#include <linux/perf_event.h>
#include <linux/sysfs.h>

#include <asm/perf_event.h>

#include "x86_type.h"

int x86_rdpmc_mode = 1;

static ssize_t x86_event_show(struct device *dev, struct device_attribute *attr,
			      char *page)
{
	struct perf_pmu_events_attr *pa =
		container_of(attr, struct perf_pmu_events_attr, attr);
	const struct x86_vendor *v = x86_dev_v(dev);
	u64 config = v->event_map(v, pa->id);
	/* AMD's event select bits 11:8 sit at 35:32. */
	u64 event = (config & ARCH_PERFMON_EVENTSEL_EVENT) |
		    ((config & AMD64_EVENTSEL_EVENT) >> 24);
	u64 umask = (config & ARCH_PERFMON_EVENTSEL_UMASK) >> 8;
	u64 cmask = (config & ARCH_PERFMON_EVENTSEL_CMASK) >> 24;
	int n = sysfs_emit(page, "event=0x%02llx", event);

	if (umask)
		n += sysfs_emit_at(page, n, ",umask=0x%02llx", umask);
	if (config & ARCH_PERFMON_EVENTSEL_EDGE)
		n += sysfs_emit_at(page, n, ",edge");
	if (config & ARCH_PERFMON_EVENTSEL_PIN_CONTROL)
		n += sysfs_emit_at(page, n, ",pc");
	if (config & ARCH_PERFMON_EVENTSEL_ANY)
		n += sysfs_emit_at(page, n, ",any");
	if (config & ARCH_PERFMON_EVENTSEL_INV)
		n += sysfs_emit_at(page, n, ",inv");
	if (cmask)
		n += sysfs_emit_at(page, n, ",cmask=0x%02llx", cmask);
	return n + sysfs_emit_at(page, n, "\n");
}

#define X86_EVENT_ATTR(_name, _id)					\
	static struct perf_pmu_events_attr x86_attr_##_id = {		\
		.attr = {						\
			.attr = { .name = _name, .mode = 0444 },	\
			.show = x86_event_show,				\
		},							\
		.id = PERF_COUNT_HW_##_id,				\
	}

X86_EVENT_ATTR("cpu-cycles", CPU_CYCLES);
X86_EVENT_ATTR("instructions", INSTRUCTIONS);
X86_EVENT_ATTR("cache-references", CACHE_REFERENCES);
X86_EVENT_ATTR("cache-misses", CACHE_MISSES);
X86_EVENT_ATTR("branch-instructions", BRANCH_INSTRUCTIONS);
X86_EVENT_ATTR("branch-misses", BRANCH_MISSES);
X86_EVENT_ATTR("bus-cycles", BUS_CYCLES);
X86_EVENT_ATTR("ref-cycles", REF_CPU_CYCLES);
X86_EVENT_ATTR("stalled-cycles-frontend", STALLED_CYCLES_FRONTEND);
X86_EVENT_ATTR("stalled-cycles-backend", STALLED_CYCLES_BACKEND);

struct attribute *x86_event_attrs[X86_GENERIC_EVENTS] = {
	&x86_attr_CPU_CYCLES.attr.attr,
	&x86_attr_INSTRUCTIONS.attr.attr,
	&x86_attr_CACHE_REFERENCES.attr.attr,
	&x86_attr_CACHE_MISSES.attr.attr,
	&x86_attr_BRANCH_INSTRUCTIONS.attr.attr,
	&x86_attr_BRANCH_MISSES.attr.attr,
	&x86_attr_BUS_CYCLES.attr.attr,
	&x86_attr_REF_CPU_CYCLES.attr.attr,
	&x86_attr_STALLED_CYCLES_FRONTEND.attr.attr,
	&x86_attr_STALLED_CYCLES_BACKEND.attr.attr,
};

/**
 * x86_event_visible - whether a PMU's events/ directory shows a file
 * @kobj: the directory
 * @attr: the file
 * @i: its index in the PMU's events/ list
 *
 * Return: the file's mode when the PMU has the event (the generic ones
 * where the vendor maps them, the vendor's always), else 0.
 */
umode_t x86_event_visible(struct kobject *kobj, struct attribute *attr, int i)
{
	struct perf_pmu_events_attr *pa =
		container_of(attr, struct perf_pmu_events_attr, attr.attr);
	const struct x86_vendor *v = x86_dev_v(kobj_to_dev(kobj));

	if (i >= X86_GENERIC_EVENTS)
		return attr->mode;
	return v->event_map(v, pa->id) ? attr->mode : 0;
}

static ssize_t max_precise_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", x86_dev_v(dev)->max_precise);
}
static DEVICE_ATTR_RO(max_precise);

static ssize_t pmu_name_show(struct device *dev,
			     struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", x86_dev_v(dev)->caps_name);
}
static DEVICE_ATTR_RO(pmu_name);

/* The depth of the branch stack, where there is one. */
static ssize_t branches_show(struct device *dev,
			     struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", x86_dev_v(dev)->branches);
}
static DEVICE_ATTR_RO(branches);

static struct attribute *x86_caps_attrs[] = {
	&dev_attr_max_precise.attr,
	&dev_attr_pmu_name.attr,
	&dev_attr_branches.attr,
	NULL,
};

static umode_t x86_caps_visible(struct kobject *kobj, struct attribute *attr,
				int i)
{
	const struct x86_vendor *v = x86_dev_v(kobj_to_dev(kobj));

	if (attr == &dev_attr_pmu_name.attr && !v->caps_name)
		return 0;
	if (attr == &dev_attr_branches.attr && !v->branches)
		return 0;
	return attr->mode;
}

struct attribute_group x86_caps_group = {
	.name = "caps",
	.attrs = x86_caps_attrs,
	.is_visible = x86_caps_visible,
};

static ssize_t rdpmc_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(x86_rdpmc_mode));
}

/* Serialises writers of the knob, which flip the static keys. */
static DEFINE_MUTEX(rdpmc_mutex);

static ssize_t rdpmc_store(struct device *dev, struct device_attribute *attr,
			   const char *buf, size_t count)
{
	unsigned long mode;
	int err = kstrtoul(buf, 0, &mode);

	if (err)
		return err;
	if (mode > 2)
		return -EINVAL;
	mutex_lock(&rdpmc_mutex);
	if (mode != x86_rdpmc_mode) {
		cpus_read_lock();
		if (mode == 0)
			static_branch_enable_cpuslocked(&rdpmc_never_available_key);
		else if (x86_rdpmc_mode == 0)
			static_branch_disable_cpuslocked(&rdpmc_never_available_key);
		if (mode == 2)
			static_branch_enable_cpuslocked(&rdpmc_always_available_key);
		else if (x86_rdpmc_mode == 2)
			static_branch_disable_cpuslocked(&rdpmc_always_available_key);
		WRITE_ONCE(x86_rdpmc_mode, mode);
		on_each_cpu(cr4_update_pce, NULL, 1);
		cpus_read_unlock();
	}
	mutex_unlock(&rdpmc_mutex);
	return count;
}

/* Root's alone, as upstream's: the knob opens counters to every task. */
static DEVICE_ATTR_ADMIN_RW(rdpmc);

static struct attribute *x86_pmu_attrs[] = {
	&dev_attr_rdpmc.attr,
	NULL,
};

struct attribute_group x86_pmu_group = {
	.attrs = x86_pmu_attrs,
};

/* A hybrid part's PMUs: the CPUs of each, as upstream's "cpus" file. */
static ssize_t cpus_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	struct x86_pmu_type *t = x86_pmu_type(dev_get_drvdata(dev));

	return cpumap_print_to_pagebuf(true, buf, &t->cpus);
}
static DEVICE_ATTR_RO(cpus);

static struct attribute *x86_hybrid_attrs[] = {
	&dev_attr_cpus.attr,
	NULL,
};

struct attribute_group x86_hybrid_group = {
	.attrs = x86_hybrid_attrs,
};
