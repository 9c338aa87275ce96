// SPDX-License-Identifier: GPL-2.0
/*
 * A PMU with a scope, as the drivers of shared counters have (an uncore,
 * the energy counters, idxd and the Intel IOMMU's counters): one counter
 * shared by the CPUs of a core, die, cluster, package or the system,
 * whose CPUs the core keeps in the PMU's "cpumask" and follows through
 * CPU hotplug (struct pmu's scope).
 *
 * The counter is "ticks", a number that only the parameter "tick" moves
 * (writing N adds N), so a test knows exactly what every event must
 * count wherever it runs.  The parameter "scope" (at load) is the
 * PERF_PMU_SCOPE_* value; "last_add" and "last_read" (read-only) are the
 * CPUs on which the PMU last added an event and last read one.
 *
 * Lifetime: the PMU is registered at load and unregistered at unload,
 * which needs every event gone (the module is pinned while one exists).
 * The counter is an atomic; each event keeps its last reading in
 * hw.prev_count, updated with an exchange so that a read racing the
 * event's removal adds each tick once.
 */
#include <linux/atomic.h>
#include <linux/module.h>
#include <linux/perf_event.h>

static unsigned int scope = PERF_PMU_SCOPE_PKG;
module_param(scope, uint, 0444);
MODULE_PARM_DESC(scope, "the PMU's scope (PERF_PMU_SCOPE_*)");

static int last_add = -1;
module_param(last_add, int, 0444);
MODULE_PARM_DESC(last_add, "the CPU that last added an event");

static int last_read = -1;
module_param(last_read, int, 0444);
MODULE_PARM_DESC(last_read, "the CPU that last read an event");

static atomic64_t ticks;

static int tick_set(const char *val, const struct kernel_param *kp)
{
	u64 n;
	int err = kstrtou64(val, 0, &n);

	if (err)
		return err;
	atomic64_add(n, &ticks);
	return 0;
}

static int tick_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%lld\n", atomic64_read(&ticks));
}

static const struct kernel_param_ops tick_ops = {
	.set	= tick_set,
	.get	= tick_get,
};
module_param_cb(tick, &tick_ops, NULL, 0644);
MODULE_PARM_DESC(tick, "the shared counter; writing N adds N");

static struct pmu scope_pmu;

static int scope_event_init(struct perf_event *event)
{
	if (event->attr.type != scope_pmu.type)
		return -ENOENT;
	/* A shared counter: no task counting, no sampling, one event. */
	if (event->cpu < 0 || is_sampling_event(event) || event->attr.config)
		return -EINVAL;
	return 0;
}

static void scope_read(struct perf_event *event)
{
	u64 now = atomic64_read(&ticks);
	u64 prev = local64_xchg(&event->hw.prev_count, now);

	local64_add(now - prev, &event->count);
	WRITE_ONCE(last_read, smp_processor_id());
}

static void scope_start(struct perf_event *event, int flags)
{
	local64_set(&event->hw.prev_count, atomic64_read(&ticks));
	event->hw.state = 0;
}

static void scope_stop(struct perf_event *event, int flags)
{
	if (!(event->hw.state & PERF_HES_STOPPED))
		scope_read(event);
	event->hw.state |= PERF_HES_STOPPED | PERF_HES_UPTODATE;
}

static int scope_add(struct perf_event *event, int flags)
{
	WRITE_ONCE(last_add, smp_processor_id());
	event->hw.state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
	if (flags & PERF_EF_START)
		scope_start(event, flags);
	return 0;
}

static void scope_del(struct perf_event *event, int flags)
{
	scope_stop(event, PERF_EF_UPDATE);
}

PMU_EVENT_ATTR_STRING(ticks, scope_attr_ticks, "config=0");

static struct attribute *scope_events[] = {
	&scope_attr_ticks.attr.attr,
	NULL,
};

static const struct attribute_group scope_events_group = {
	.name	= "events",
	.attrs	= scope_events,
};

static const struct attribute_group *scope_groups[] = {
	&scope_events_group,
	NULL,
};

static struct pmu scope_pmu = {
	.module		= THIS_MODULE,
	.task_ctx_nr	= perf_invalid_context,
	.capabilities	= PERF_PMU_CAP_NO_INTERRUPT | PERF_PMU_CAP_NO_EXCLUDE,
	.attr_groups	= scope_groups,
	.event_init	= scope_event_init,
	.add		= scope_add,
	.del		= scope_del,
	.start		= scope_start,
	.stop		= scope_stop,
	.read		= scope_read,
};

static int __init scope_init(void)
{
	scope_pmu.scope = scope;
	return perf_pmu_register(&scope_pmu, "perf_test_scope", -1);
}
module_init(scope_init);

static void __exit scope_exit(void)
{
	perf_pmu_unregister(&scope_pmu);
}
module_exit(scope_exit);

MODULE_DESCRIPTION("A perf PMU with a scope, for the perf-vm tests");
MODULE_LICENSE("GPL");
