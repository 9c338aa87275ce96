/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the tests of hardware events share (hw.c, hw_sched.c,
 * hw_config.c): the loop of known length, which PMU the runner booted
 * (PERFTEST_PMU), whether the tests can run, the NMI watchdog out of the
 * way, opening and counting a hardware event, and reading a PMU's sysfs
 * files.
 */
#ifndef HW_UTIL_H
#define HW_UTIL_H

#include <dirent.h>
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

/* Sysfs file @path's bytes into @buf (terminated); their count, or -1. */
static inline __maybe_unused ssize_t read_bytes(const char *path, char *buf,
						size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n >= 0)
		buf[n] = 0;
	return n;
}

/* The entries of directory @dir, dot files aside; -1 when it is not there. */
static inline __maybe_unused int count_files(const char *dir)
{
	struct dirent *d;
	DIR *dp = opendir(dir);
	int n = 0;

	if (!dp)
		return -1;
	while ((d = readdir(dp)))
		n += d->d_name[0] != '.';
	closedir(dp);
	return n;
}

/*
 * How many events of @attr one group holds, trying up to @max + 1 (the
 * leader disabled); *@err is the errno of the first refused, 0 if none.
 */
static inline __maybe_unused int group_fit(struct perf_event_attr *attr,
					   int max, int *err)
{
	int fd[16], n, i;

	*err = 0;
	for (n = 0; n <= max && n < 16; n++) {
		attr->disabled = !n;
		fd[n] = sys_perf_event_open(attr, 0, -1, n ? fd[0] : -1, 0);
		if (fd[n] < 0) {
			*err = errno;
			break;
		}
	}
	for (i = 0; i < n; i++)
		close(fd[i]);
	return n;
}

#define MSR_EVTSEL0		0x186
#define MSR_OFFCORE_RSP_0	0x1a6
#define EVTSEL_EN		(1ULL << 22)

/* MSR @msr of CPU @cpu through the msr driver; 0, or -1. */
static inline __maybe_unused int read_msr(int cpu, uint32_t msr, uint64_t *val)
{
	char path[64];
	int fd, ok;

	snprintf(path, sizeof(path), "/dev/cpu/%d/msr", cpu);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	ok = pread(fd, val, sizeof(*val), msr) == sizeof(*val);
	close(fd);
	return ok ? 0 : -1;
}

/*
 * The general counter of CPU @cpu (of @gp) programmed with @event (event
 * and umask) and enabled: -1 when none is, -2 when the MSRs cannot be
 * read.
 */
static inline __maybe_unused int counter_with(int cpu, unsigned int gp,
					      uint64_t event)
{
	uint64_t sel;
	unsigned int i;

	for (i = 0; i < gp; i++) {
		if (read_msr(cpu, MSR_EVTSEL0 + i, &sel))
			return -2;
		if ((sel & 0xffff) == event && (sel & EVTSEL_EN))
			return i;
	}
	return -1;
}

/*
 * Offcore response events of PMU @type on CPU @cpu (the caller runs
 * there only), @code the event of MSR_OFFCORE_RSP_0 and @alt that of
 * _1, on @gp general counters: what is wrong with them, or NULL.
 *
 * Two pinned events with different responses take both registers, the
 * second under the other register's event; a third cannot count beside
 * them; a group holds two such responses, not three; config1 bits no
 * register has are EINVAL.
 */
static inline __maybe_unused const char *
offcore_wrong(uint32_t type, int cpu, unsigned int gp, uint64_t code,
	      uint64_t alt, char *buf, size_t len)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = type,
		.config = code,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			       PERF_FORMAT_TOTAL_TIME_RUNNING,
	};
	uint64_t rsp[2], v[3];
	int fd[3], i;
	const char *why = NULL;

	attr.pinned = 1;
	attr.config1 = 0x10001;		/* demand data reads, any response */
	fd[0] = sys_perf_event_open(&attr, 0, -1, -1, 0);
	attr.config1 = 0x20002;		/* demand writes, ... */
	fd[1] = sys_perf_event_open(&attr, 0, -1, -1, 0);
	attr.pinned = 0;
	attr.config1 = 0x40004;
	fd[2] = sys_perf_event_open(&attr, 0, -1, -1, 0);
	if (fd[0] < 0 || fd[1] < 0 || fd[2] < 0) {
		snprintf(buf, len, "an offcore event does not open: %s", strerror(errno));
		why = buf;
		goto out;
	}
	/* This task runs its events here now. */
	if (read_msr(cpu, MSR_OFFCORE_RSP_0, &rsp[0]) ||
	    read_msr(cpu, MSR_OFFCORE_RSP_0 + 1, &rsp[1])) {
		snprintf(buf, len, "no /dev/cpu/%d/msr to read the registers", cpu);
		why = buf;
		goto out;
	}
	if (rsp[0] != 0x10001 || rsp[1] != 0x20002 ||
	    counter_with(cpu, gp, code) < 0 || counter_with(cpu, gp, alt) < 0) {
		snprintf(buf, len, "registers %#llx %#llx, events %#llx on %d, %#llx on %d",
			 (unsigned long long)rsp[0], (unsigned long long)rsp[1],
			 (unsigned long long)code, counter_with(cpu, gp, code),
			 (unsigned long long)alt, counter_with(cpu, gp, alt));
		why = buf;
		goto out;
	}
	spin(100000);
	if (read(fd[2], v, sizeof(v)) != sizeof(v) || !v[1] || v[2]) {
		snprintf(buf, len, "a third response counted: enabled %llu, running %llu",
			 (unsigned long long)v[1], (unsigned long long)v[2]);
		why = buf;
	}
out:
	for (i = 0; i < 3; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	if (why)
		return why;
	/* A group: two responses fit, a third does not. */
	attr.read_format = 0;
	attr.disabled = 1;
	attr.config1 = 0x10001;
	fd[0] = sys_perf_event_open(&attr, 0, -1, -1, 0);
	attr.disabled = 0;
	attr.config1 = 0x20002;
	fd[1] = fd[0] < 0 ? -1 : sys_perf_event_open(&attr, 0, -1, fd[0], 0);
	attr.config1 = 0x40004;
	fd[2] = fd[1] < 0 ? -1 : sys_perf_event_open(&attr, 0, -1, fd[0], 0);
	if (fd[1] < 0 || fd[2] >= 0 || errno != EINVAL) {
		snprintf(buf, len, "group of three responses: %d %d %d", fd[0], fd[1], fd[2]);
		why = buf;
	}
	for (i = 0; i < 3; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	attr.config1 = 1ULL << 63;
	attr.disabled = 1;
	fd[0] = sys_perf_event_open(&attr, 0, -1, -1, 0);
	if (!why && (fd[0] >= 0 || errno != EINVAL)) {
		snprintf(buf, len, "config1 bit 63 not refused with EINVAL");
		why = buf;
	}
	if (fd[0] >= 0)
		close(fd[0]);
	return why;
}

#endif
