/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the tests of hardware events share (hw.c, hw_sched.c,
 * hw_config.c): the loop of known length, which PMU the runner booted
 * (PERFTEST_PMU), whether the tests can run, the NMI watchdog out of the
 * way, and opening and counting a hardware event.
 */
#ifndef HW_UTIL_H
#define HW_UTIL_H

#include <sys/utsname.h>
#include "perf_util.h"

/* The loop every test counts: exactly 2 * @n instructions, @n >= 1. */
static noinline void spin(unsigned long n)
{
	asm volatile("hw_spin_start:\n\t"
		     "1:\tdec %0\n\t"
		     "jnz 1b\n"
		     "hw_spin_end:" : "+r"(n) : : "cc");
}

extern const char hw_spin_start[], hw_spin_end[];

/*
 * PERFTEST_PMU names the guest's emulated PMU (vm.sh's PMU), with
 * "-late" when its PMIs arrive late (amd-late: each counter's PMI comes
 * some instructions after its overflow, as on Zen).  pmu_kind() is the
 * PMU without that suffix, pmi_late() says whether it was there.
 */
static inline const char *pmu_kind(void)
{
	static char kind[32];
	const char *s = getenv("PERFTEST_PMU");
	size_t n;

	if (!s || !*s)
		return "none";
	snprintf(kind, sizeof(kind), "%s", s);
	n = strlen(kind);
	if (n > 5 && !strcmp(kind + n - 5, "-late"))
		kind[n - 5] = 0;
	return kind;
}

static inline int pmi_late(void)
{
	const char *s = getenv("PERFTEST_PMU");

	return s && *s && strcmp(s, pmu_kind());
}

static inline int pmu_is(const char *kind)
{
	return !strcmp(pmu_kind(), kind);
}

static inline int pmu_is_amd(void)
{
	return !strncmp(pmu_kind(), "amd", 3);
}

/*
 * The Intel architectural perfmon version the guest presents: "intel"
 * is version 4, "intel-vN" version N; 0 on AMD or without a PMU.
 */
static inline int intel_version(void)
{
	const char *k = pmu_kind();

	if (!strcmp(k, "intel"))
		return 4;
	return strncmp(k, "intel-v", 7) ? 0 : atoi(k + 7);
}

/* Whether this is one of this series' kernels (-perfng in the release). */
static inline int kernel_is_ours(void)
{
	struct utsname u;

	return !uname(&u) && strstr(u.release, "-perfng");
}

/* Whether this is our debug kernel (KASAN, lockdep: -perfng-debug). */
static inline int kernel_is_debug(void)
{
	struct utsname u;

	return !uname(&u) && strstr(u.release, "-perfng-debug");
}

/*
 * Whether the tests can run here: NULL when they can, else why not.
 * *@fail is set when that is a failure rather than a skip: the guest has
 * an emulated PMU and a kernel that should drive it did not.
 */
static inline const char *hw_unavailable(int *fail)
{
	*fail = 0;
	if (pmu_is("none"))
		return "no emulated PMU in this guest (PERFTEST_PMU; PMU=intel or amd boots one)";
	if (!access("/sys/bus/event_source/devices/cpu/type", F_OK))
		return NULL;
	if (kernel_is_ours())
		return "this kernel has no driver for this PMU yet (issue 12)";
	*fail = 1;
	return "the guest has an emulated PMU, but the kernel registered no \"cpu\" PMU";
}

/*
 * The NMI watchdog holds a counter on every CPU: off while a test needs
 * them all.  *@saved is the value to put back, -1 when there is none.
 */
static inline int watchdog_pause(long *saved)
{
	long v;

	*saved = -1;
	if (read_sysctl("nmi_watchdog", &v) || !v)
		return 0;
	if (write_sysctl("nmi_watchdog", 0))
		return -1;
	*saved = v;
	return 0;
}

static inline void watchdog_resume(long saved)
{
	if (saved >= 0)
		write_sysctl("nmi_watchdog", saved);
}

/*
 * The sample rate limits, lifted for a sampling test and put back after:
 * emulated PMIs take long, and the kernel would lower the rate (and
 * throttle) on a slow or busy host.
 */
struct hw_rate {
	long max_rate, max_percent;
	int saved;
};

static inline int hw_unthrottle(struct hw_rate *r)
{
	if (read_sysctl("perf_event_max_sample_rate", &r->max_rate) ||
	    read_sysctl("perf_cpu_time_max_percent", &r->max_percent))
		return -1;
	r->saved = 1;
	/*
	 * A rate no test reaches, first: it cannot be written while the
	 * time limit is off.  Then the limit off.
	 */
	if (write_sysctl("perf_event_max_sample_rate", 10000000) ||
	    write_sysctl("perf_cpu_time_max_percent", 0))
		return -1;
	return 0;
}

/* Undo hw_unthrottle(): the time limit on again before the rate. */
static inline void hw_rethrottle(struct hw_rate *r)
{
	if (!r->saved)
		return;
	write_sysctl("perf_cpu_time_max_percent", r->max_percent);
	write_sysctl("perf_event_max_sample_rate", r->max_rate);
	r->saved = 0;
}

/* A hardware event on the calling task, disabled; -1 on error. */
static inline int open_hw(uint64_t config, int user, int kernel, int group_fd,
			  uint64_t fmt)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_HARDWARE,
		.size = sizeof(attr),
		.config = config,
		.exclude_user = !user,
		.exclude_kernel = !kernel,
		.exclude_hv = 1,
		.read_format = fmt,
		.disabled = group_fd < 0,
	};

	return sys_perf_event_open(&attr, 0, -1, group_fd, 0);
}

/* An event of any type on the calling task, counting user mode only. */
static inline int open_user(uint32_t type, uint64_t config, int group_fd,
			    int pinned, int inherit, uint64_t fmt)
{
	struct perf_event_attr attr = {
		.type = type,
		.size = sizeof(attr),
		.config = config,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.pinned = pinned,
		.inherit = inherit,
		.read_format = fmt,
		.disabled = group_fd < 0,
	};

	return sys_perf_event_open(&attr, 0, -1, group_fd, 0);
}

/*
 * Where no PMU takes hardware events: the first of the generic hardware
 * events and a raw one that does not fail to open with ENOENT, written
 * to @buf, or NULL when every one does.
 */
static inline const char *hw_events_not_enoent(char *buf, size_t len)
{
	static const struct {
		uint32_t type;
		uint64_t config;
	} ev[] = {
		{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
		{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
		{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
		{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
		{ PERF_TYPE_RAW, 0xc0 },
	};
	unsigned int i;
	int fd;

	for (i = 0; i < ARRAY_SIZE(ev); i++) {
		fd = open_user(ev[i].type, ev[i].config, -1, 0, 0, 0);
		if (fd >= 0 || errno != ENOENT) {
			snprintf(buf, len, "event %u:%llu: %s", ev[i].type,
				 (unsigned long long)ev[i].config,
				 fd >= 0 ? "opened" : strerror(errno));
			if (fd >= 0)
				close(fd);
			return buf;
		}
	}
	return NULL;
}

/*
 * The user instructions of one run of spin(@n) between enable and
 * disable: a function of its own, so that every call counts the same
 * instructions around the loop.
 */
static noinline __maybe_unused uint64_t count_spin(int fd, unsigned long n)
{
	if (ioctl(fd, PERF_EVENT_IOC_RESET, 0) || ioctl(fd, PERF_EVENT_IOC_ENABLE, 0))
		return (uint64_t)-1;
	spin(n);
	if (ioctl(fd, PERF_EVENT_IOC_DISABLE, 0))
		return (uint64_t)-1;
	return read_count(fd);
}

#endif
