// SPDX-License-Identifier: GPL-2.0
/*
 * The /proc/sys/kernel/perf_* knobs.  The table itself is kernel/sysctl.c's
 * (names, modes and ranges); this file owns the variables and the handlers
 * that keep derived limits in step.
 *
 * Sampling interrupts that take too long lower the sample rate, as the
 * kernel.perf_event_max_sample_rate documentation says: each CPU keeps a
 * running sum of its last 128 interrupts' durations, and when their
 * average exceeds the time a sample may take, the rate drops so that
 * samples of a quarter longer than that average fit the CPU share again.
 *
 * Locking: the values are read without locks on hot paths; a handler's
 * write is a single store of each derived value.  The running sums are
 * per CPU, touched only there in the PMI (NMI) path.
 */
#include <linux/sysctl.h>
#include <linux/capability.h>
#include <linux/irq_work.h>

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

/* The last interrupts' durations, per CPU: their average is sum / 128. */
#define SAMPLE_LEN_WINDOW	128
static DEFINE_PER_CPU(u64, sample_len_sum);

/* What the last lowering saw, for its message (printed outside NMI). */
static u64 lowered_avg, lowered_allowed;

static void sample_rate_lowered(struct irq_work *work)
{
	pr_info("perf: interrupt took too long (%llu > %llu), lowering kernel.perf_event_max_sample_rate to %d\n",
		READ_ONCE(lowered_avg), READ_ONCE(lowered_allowed),
		READ_ONCE(sysctl_perf_event_sample_rate));
}

static struct irq_work lowered_work = IRQ_WORK_INIT(sample_rate_lowered);

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
 * perf_sample_event_took - account the time one sampling interrupt took
 * @sample_len_ns: its duration
 *
 * Called by PMU drivers at the end of their interrupt, NMI included.
 * When this CPU's recent interrupts take longer on average than a
 * sample may, the sample rate is lowered (see the top of this file).
 */
void perf_sample_event_took(u64 sample_len_ns)
{
	u64 allowed = READ_ONCE(perf_sample_allowed_ns), sum, avg, per_tick;

	if (!allowed)
		return;
	sum = __this_cpu_read(sample_len_sum);
	sum += sample_len_ns - sum / SAMPLE_LEN_WINDOW;
	__this_cpu_write(sample_len_sum, sum);
	avg = sum / SAMPLE_LEN_WINDOW;
	if (avg <= allowed)
		return;

	WRITE_ONCE(lowered_avg, avg);
	WRITE_ONCE(lowered_allowed, allowed);
	avg += avg / 4;
	per_tick = (TICK_NSEC / 100) * sysctl_perf_cpu_time_max_percent;
	per_tick = avg < per_tick ? div64_u64(per_tick, avg) : 1;
	WRITE_ONCE(perf_sample_allowed_ns, min_t(u64, avg, INT_MAX));
	WRITE_ONCE(perf_max_samples_per_tick, per_tick);
	WRITE_ONCE(sysctl_perf_event_sample_rate, per_tick * HZ);
	irq_work_queue(&lowered_work);
}

/**
 * perf_sample_limits_reset - forget the interrupts' durations; tests only
 * @rate: the sample rate to set again
 *
 * Puts kernel.perf_event_max_sample_rate back to @rate, the limits
 * derived from it in step, and every CPU's running sum to zero.
 */
void perf_sample_limits_reset(int rate)
{
	int cpu;

	for_each_possible_cpu(cpu)
		per_cpu(sample_len_sum, cpu) = 0;
	WRITE_ONCE(sysctl_perf_event_sample_rate, rate);
	update_sample_limits();
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
