// SPDX-License-Identifier: GPL-2.0
/*
 * A module that counts with a kernel perf event, as the watchdog and
 * other in-kernel users do: a cpu-clock event on CPU 0 sampling every
 * millisecond, whose overflow handler counts its calls.  The parameters
 * "overflows" and "count" (read-only) report the handler's calls and the
 * event's count read with perf_event_read_value().
 *
 * Lifetime: the event is created at load and released at unload; the
 * overflow handler runs in the event's hrtimer interrupt and touches
 * only an atomic counter.
 */
#include <linux/atomic.h>
#include <linux/module.h>
#include <linux/perf_event.h>

static struct perf_event *counter;
static atomic_long_t overflows;

static void counter_overflow(struct perf_event *event,
			     struct perf_sample_data *data,
			     struct pt_regs *regs)
{
	atomic_long_inc(&overflows);
}

static int overflows_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%ld\n", atomic_long_read(&overflows));
}

static const struct kernel_param_ops overflows_ops = {
	.get	= overflows_get,
};
module_param_cb(overflows, &overflows_ops, NULL, 0444);
MODULE_PARM_DESC(overflows, "overflow handler calls so far");

static int count_get(char *buf, const struct kernel_param *kp)
{
	u64 enabled, running;

	return sysfs_emit(buf, "%llu\n",
			  perf_event_read_value(counter, &enabled, &running));
}

static const struct kernel_param_ops count_ops = {
	.get	= count_get,
};
module_param_cb(count, &count_ops, NULL, 0444);
MODULE_PARM_DESC(count, "the event's count, in nanoseconds");

static int __init counter_init(void)
{
	struct perf_event_attr attr = {
		.type		= PERF_TYPE_SOFTWARE,
		.config		= PERF_COUNT_SW_CPU_CLOCK,
		.size		= sizeof(attr),
		.sample_period	= NSEC_PER_MSEC,
	};

	counter = perf_event_create_kernel_counter(&attr, 0, NULL,
						   counter_overflow, NULL);
	return PTR_ERR_OR_ZERO(counter);
}

static void __exit counter_exit(void)
{
	perf_event_release_kernel(counter);
}

module_init(counter_init);
module_exit(counter_exit);
MODULE_DESCRIPTION("A kernel perf counter created by a module, for the perf tests");
MODULE_LICENSE("GPL");
