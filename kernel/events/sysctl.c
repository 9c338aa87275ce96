// SPDX-License-Identifier: GPL-2.0
/*
 * The /proc/sys/kernel/perf_* knobs.  The table itself is kernel/sysctl.c's
 * (names, modes and ranges); this file owns the variables and the handlers
 * that keep derived limits in step.
 *
 * Locking: the values are read without locks on hot paths; a handler's
 * write is a single store of each derived value.
 */
#include <linux/sysctl.h>
#include <linux/capability.h>

#include "internal.h"

/*
 * perf_event_paranoid:
 *  -1  no restrictions
 *   0  no raw tracepoint access for unprivileged users
 *   1  unprivileged users may not count CPU-wide
 *   2  unprivileged users may not count in the kernel
 *   3  unprivileged users may not use perf_event_open() at all
 */
#ifdef CONFIG_SECURITY_PERF_EVENTS_RESTRICT
int sysctl_perf_event_paranoid __read_mostly = 3;
#else
int sysctl_perf_event_paranoid __read_mostly = 2;
#endif

/* Ring buffer memory per user, in KiB: 512 KiB of data plus a page. */
int sysctl_perf_event_mlock __read_mostly = 512 + (PAGE_SIZE / 1024);

int sysctl_perf_event_sample_rate __read_mostly = DEFAULT_MAX_SAMPLE_RATE;
int sysctl_perf_cpu_time_max_percent __read_mostly = 25;

/* Time one sample may take, from the rate and the CPU share allowed. */
int perf_sample_allowed_ns __read_mostly;

static void update_sample_limits(void)
{
	u64 ns = NSEC_PER_SEC / sysctl_perf_event_sample_rate;

	WRITE_ONCE(perf_max_samples_per_tick,
		   DIV_ROUND_UP(sysctl_perf_event_sample_rate, HZ));
	ns = div_u64(ns * sysctl_perf_cpu_time_max_percent, 100);
	WRITE_ONCE(perf_sample_allowed_ns, ns);
}

/**
 * perf_event_max_sample_rate_handler - perf_event_max_sample_rate
 * @tbl: the sysctl entry
 * @write: whether this is a write
 * @buf: data
 * @lenp: length
 * @ppos: position
 *
 * Writes are refused while throttling is off (max percent 0 or 100).
 *
 * Return: 0 or a negative errno.
 */
int perf_event_max_sample_rate_handler(const struct ctl_table *tbl, int write,
				       void *buf, size_t *lenp, loff_t *ppos)
{
	int pct = sysctl_perf_cpu_time_max_percent;
	bool unthrottled = pct == 0 || pct == 100;
	int err;

	if (write && unthrottled)
		return -EINVAL;
	err = proc_dointvec_minmax(tbl, write, buf, lenp, ppos);
	if (!err && write)
		update_sample_limits();
	return err;
}

/**
 * perf_cpu_time_max_percent_handler - perf_cpu_time_max_percent
 * @tbl: the sysctl entry
 * @write: whether this is a write
 * @buf: data
 * @lenp: length
 * @ppos: position
 *
 * 0 and 100 both mean "no limit": sampling is then never throttled.
 *
 * Return: 0 or a negative errno.
 */
int perf_cpu_time_max_percent_handler(const struct ctl_table *tbl, int write,
				      void *buf, size_t *lenp, loff_t *ppos)
{
	int pct, err = proc_dointvec_minmax(tbl, write, buf, lenp, ppos);

	if (err || !write)
		return err;
	pct = sysctl_perf_cpu_time_max_percent;
	if (pct > 0 && pct < 100) {
		update_sample_limits();
		return 0;
	}
	pr_warn("perf: Dynamic interrupt throttling disabled, can hang your system!\n");
	WRITE_ONCE(perf_sample_allowed_ns, 0);
	return 0;
}

/**
 * perf_sample_event_took - account the time one sample took
 * @sample_len_ns: its duration
 */
void perf_sample_event_took(u64 sample_len_ns)
{
}

/**
 * perf_allow_kernel - may the caller count events in the kernel?
 *
 * Return: 0, or -EACCES above paranoid level 1 without CAP_PERFMON.
 */
int perf_allow_kernel(void)
{
	if (sysctl_perf_event_paranoid > 1 && !perfmon_capable())
		return -EACCES;
	return security_perf_event_open(PERF_SECURITY_KERNEL);
}
EXPORT_SYMBOL_GPL(perf_allow_kernel);

static int __init perf_sysctl_init(void)
{
	update_sample_limits();
	return 0;
}
early_initcall(perf_sysctl_init);
