/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the tests of named Intel models share (hw_models.c, hw_hybrid.c,
 * hw_retired.c): a PMU's sysfs files and type, pinning to a CPU, group
 * fits, the counters' MSRs through the msr driver, and the offcore
 * response registers' checks.
 */
#ifndef HW_MODEL_UTIL_H
#define HW_MODEL_UTIL_H

#include <dirent.h>
#include <sched.h>
#include "hw_util.h"

#define PMU_DIR "/sys/bus/event_source/devices/"

/* The calling thread onto CPU @cpu alone; 0, or -1. */
static inline __maybe_unused int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/* The errno of opening @a for this task, 0 when it opens. */
static inline __maybe_unused int open_errno(struct perf_event_attr *a)
{
	int fd = sys_perf_event_open(a, 0, -1, -1, 0);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

/* The type number of PMU @pmu (sysfs); -1 when it is not registered. */
static inline __maybe_unused int pmu_type(const char *pmu)
{
	char path[128];
	long v;

	snprintf(path, sizeof(path), PMU_DIR "%s/type", pmu);
	return read_file_long(path, &v) ? -1 : (int)v;
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
