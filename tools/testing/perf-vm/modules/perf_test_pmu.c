// SPDX-License-Identifier: GPL-2.0
/*
 * A module with a PMU of its own, "perf_mod_test", as drivers outside
 * the kernel tree register theirs.  Its events read as a constant, the
 * "value" their config holds, so that a test knows what perf must
 * report.  Events may be per task or per CPU.
 *
 * Lifetime: the PMU is registered at load and unregistered at unload.
 * The perf core holds a reference on this module for each event of the
 * PMU, so the module cannot be unloaded while an event exists.
 */
#include <linux/module.h>
#include <linux/perf_event.h>

PMU_FORMAT_ATTR(value, "config:0-31");

static struct attribute *test_pmu_format_attrs[] = {
	&format_attr_value.attr,
	NULL,
};

static const struct attribute_group test_pmu_format_group = {
	.name	= "format",
	.attrs	= test_pmu_format_attrs,
};

static const struct attribute_group *test_pmu_attr_groups[] = {
	&test_pmu_format_group,
	NULL,
};

static struct pmu test_pmu;

static int test_pmu_event_init(struct perf_event *event)
{
	if (event->attr.type != test_pmu.type)
		return -ENOENT;
	/* A constant has no overflow to sample. */
	if (is_sampling_event(event))
		return -EOPNOTSUPP;
	if (event->attr.config >> 32)
		return -EINVAL;
	return 0;
}

static void test_pmu_read(struct perf_event *event)
{
	local64_set(&event->count, event->attr.config);
}

static void test_pmu_start(struct perf_event *event, int flags)
{
	event->hw.state = 0;
}

static void test_pmu_stop(struct perf_event *event, int flags)
{
	if (flags & PERF_EF_UPDATE)
		test_pmu_read(event);
	event->hw.state = PERF_HES_STOPPED;
}

static int test_pmu_add(struct perf_event *event, int flags)
{
	event->hw.state = PERF_HES_STOPPED;
	if (flags & PERF_EF_START)
		test_pmu_start(event, flags);
	return 0;
}

static void test_pmu_del(struct perf_event *event, int flags)
{
	test_pmu_stop(event, PERF_EF_UPDATE);
}

static struct pmu test_pmu = {
	.module		= THIS_MODULE,
	.task_ctx_nr	= perf_sw_context,
	.attr_groups	= test_pmu_attr_groups,
	.event_init	= test_pmu_event_init,
	.add		= test_pmu_add,
	.del		= test_pmu_del,
	.start		= test_pmu_start,
	.stop		= test_pmu_stop,
	.read		= test_pmu_read,
};

static int __init test_pmu_init(void)
{
	return perf_pmu_register(&test_pmu, "perf_mod_test", -1);
}

static void __exit test_pmu_exit(void)
{
	perf_pmu_unregister(&test_pmu);
}

module_init(test_pmu_init);
module_exit(test_pmu_exit);
MODULE_DESCRIPTION("A PMU registered by a module, for the perf tests");
MODULE_LICENSE("GPL");
