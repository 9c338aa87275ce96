/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the perf_events selftests: the system call and a few
 * ways to open a software event, reads, page faults and CPU time on
 * demand, forked children, CPU pinning, running a function as an
 * unprivileged user, and small sysctl and sysfs files.
 */
#ifndef PERF_UTIL_H
#define PERF_UTIL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <linux/capability.h>
#include <linux/perf_event.h>

#define F_EN	PERF_FORMAT_TOTAL_TIME_ENABLED
#define F_RUN	PERF_FORMAT_TOTAL_TIME_RUNNING
#define F_ID	PERF_FORMAT_ID
#define F_GRP	PERF_FORMAT_GROUP
#define F_LOST	PERF_FORMAT_LOST

/* The kernel's spellings, for functions and data the tests probe. */
#define noinline	__attribute__((noinline, noclone))
#define __maybe_unused	__attribute__((unused))
#define __section(s)	__attribute__((section(s)))

/* The uid and gid of the unprivileged user (nobody). */
#define NOBODY_ID	65534

static inline int sys_perf_event_open(struct perf_event_attr *attr, pid_t pid,
				      int cpu, int group_fd,
				      unsigned long flags)
{
	return syscall(__NR_perf_event_open, attr, pid, cpu, group_fd, flags);
}

/* A counting attr for one software event, enabled at open. */
static inline void sw_attr(struct perf_event_attr *attr, uint64_t config)
{
	memset(attr, 0, sizeof(*attr));
	attr->type = PERF_TYPE_SOFTWARE;
	attr->size = sizeof(*attr);
	attr->config = config;
}

/* The attr bits a test may want on a counting software event. */
struct evspec {
	uint64_t config;
	uint64_t fmt;		/* read_format */
	int disabled;
	int inherit;
	int inherit_thread;
	int inherit_stat;
	int enable_on_exec;
	int remove_on_exec;
	int pinned;
	int exclusive;
};

/* Open the software event @s describes. */
static inline int open_spec(const struct evspec *s, pid_t pid, int cpu,
			    int group_fd, unsigned long flags)
{
	struct perf_event_attr attr;

	sw_attr(&attr, s->config);
	attr.read_format = s->fmt;
	attr.disabled = s->disabled;
	attr.inherit = s->inherit;
	attr.inherit_thread = s->inherit_thread;
	attr.inherit_stat = s->inherit_stat;
	attr.enable_on_exec = s->enable_on_exec;
	attr.remove_on_exec = s->remove_on_exec;
	attr.pinned = s->pinned;
	attr.exclusive = s->exclusive;
	return sys_perf_event_open(&attr, pid, cpu, group_fd, flags);
}

/* Open a software event with read_format @fmt on @pid/@cpu. */
static inline int open_ev(uint64_t config, pid_t pid, int cpu, int group_fd,
			  uint64_t fmt, int disabled)
{
	struct evspec s = {
		.config = config,
		.fmt = fmt,
		.disabled = disabled,
	};

	return open_spec(&s, pid, cpu, group_fd, 0);
}

/* Open a software event with read_format @fmt on the calling task. */
static inline int open_fmt(uint64_t config, uint64_t fmt, int group_fd,
			   int disabled)
{
	return open_ev(config, 0, -1, group_fd, fmt, disabled);
}

/* Open a software counter on the calling task, any CPU. */
static inline int open_sw(uint64_t config, int group_fd)
{
	return open_fmt(config, 0, group_fd, 0);
}

/* Read one u64 count; returns the value or (uint64_t)-1 on error. */
static inline uint64_t read_count(int fd)
{
	uint64_t v;

	if (read(fd, &v, sizeof(v)) != sizeof(v))
		return (uint64_t)-1;
	return v;
}

/* Read {value, enabled, running}; returns 0 on success. */
static inline int read3(int fd, uint64_t v[3])
{
	size_t len = 3 * sizeof(uint64_t);

	return read(fd, v, len) == (ssize_t)len ? 0 : -1;
}

/* The event's ID (PERF_EVENT_IOC_ID), or 0 on error. */
static inline uint64_t event_id(int fd)
{
	uint64_t id = 0;

	if (ioctl(fd, PERF_EVENT_IOC_ID, &id))
		return 0;
	return id;
}

/* revents of a non-blocking poll(), or -1. */
static inline int poll_now(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int ret = poll(&p, 1, 0);

	return ret < 0 ? -1 : p.revents;
}

/* The page size, in bytes. */
static inline long page_size(void)
{
	return sysconf(_SC_PAGESIZE);
}

/* Map a one-data-page ring buffer on @fd; NULL on failure. */
static inline void *map_rb(int fd)
{
	void *p = mmap(NULL, 2 * page_size(), PROT_READ | PROT_WRITE,
		       MAP_SHARED, fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* Unmap a ring buffer mapped by map_rb(). */
static inline void unmap_rb(void *rb)
{
	munmap(rb, 2 * page_size());
}

/* @n fresh anonymous pages, not backed by huge pages; NULL on failure. */
static inline char *map_anon(int n)
{
	char *p = mmap(NULL, n * page_size(), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	madvise(p, n * page_size(), MADV_NOHUGEPAGE);
	return p;
}

/* Write one byte to each of the @n pages at @p. */
static inline void touch_range(char *p, int n)
{
	long psz = page_size();
	int i;

	for (i = 0; i < n; i++)
		((volatile char *)p)[i * psz] = 1;
}

/* Fault in @n fresh anonymous pages, one write fault each. */
static inline void touch_pages(int n)
{
	char *p = map_anon(n);

	if (p) {
		touch_range(p, n);
		munmap(p, n * page_size());
	}
}

/* Burn CPU for roughly @loops iterations. */
static inline void burn(unsigned long loops)
{
	volatile unsigned long sink = 0;
	unsigned long i;

	for (i = 0; i < loops; i++)
		sink += i;
	/* A last read, so that the sink counts as used. */
	(void)sink;
}

/* The time of clock @clk, in ns. */
static inline uint64_t clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* CPU time of the calling thread, in ns. */
static inline uint64_t thread_ns(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

/* CLOCK_MONOTONIC, in ns. */
static inline uint64_t mono_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

/* Burn about @ns of this thread's CPU time. */
static inline void burn_ns(uint64_t ns)
{
	uint64_t end = thread_ns() + ns;

	while (thread_ns() < end)
		burn(10000);
}

/* Sleep for @ns, resuming after signals. */
static inline void sleep_ns(uint64_t ns)
{
	struct timespec ts = { ns / 1000000000ULL, ns % 1000000000ULL };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/*
 * Sleep briefly, so that the task is switched out and back in: that is a
 * context switch, and events that were added to the context without being
 * scheduled (siblings promoted when their leader is closed) are scheduled.
 */
static inline void settle(void)
{
	usleep(2000);
}

/* Context switches of this process so far, voluntary or not. */
static inline long switches_so_far(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return -1;
	return ru.ru_nvcsw + ru.ru_nivcsw;
}

/*
 * Sleep until this process has been switched out at least once: a short
 * sleep whose timer expires before the task reaches schedule() (a guest
 * the host kept from running) switches nothing.
 */
static inline void switch_out(void)
{
	long n = switches_so_far();

	do
		usleep(2000);
	while (switches_so_far() == n);
}

/* Number of CPUs online, as sysconf reports it. */
static inline int nr_cpus(void)
{
	return (int)sysconf(_SC_NPROCESSORS_ONLN);
}

/* nr_cpu_ids: one more than the highest possible CPU, or -1. */
static inline int nr_possible_cpus(void)
{
	FILE *f = fopen("/sys/devices/system/cpu/possible", "r");
	int lo = 0, hi = -1, n;

	if (!f)
		return -1;
	n = fscanf(f, "%d-%d", &lo, &hi);
	fclose(f);
	if (n < 1)
		return -1;
	return (n == 2 ? hi : lo) + 1;
}

/* Pin the calling thread to @cpu; returns 0 or -errno. */
static inline int pin_to_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

/* Whether the kernel has the perf_event cgroup controller (CGROUP_PERF). */
static inline int have_perf_cgroup(void)
{
	char line[256];
	FILE *f = fopen("/proc/cgroups", "r");
	int found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		found = !strncmp(line, "perf_event\t", 11);
	fclose(f);
	return found;
}

/* Raise RLIMIT_NOFILE to at least @n; returns 0 or -1. */
static inline int raise_nofile(rlim_t n)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return -1;
	if (rl.rlim_cur >= n)
		return 0;
	rl.rlim_cur = n;
	if (rl.rlim_max < n)
		rl.rlim_max = n;
	return setrlimit(RLIMIT_NOFILE, &rl);
}

/* Reap child @pid; returns its exit status, or -1 if it did not exit. */
static inline int reap_child(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/*
 * Run @fn(@arg) in a forked child, pinned to @cpu unless @cpu is -1, and
 * wait for it; returns what @fn returned (1 if the child could not be
 * pinned), or -1.
 */
static inline int run_child(int cpu, int (*fn)(void *), void *arg)
{
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (cpu >= 0 && (pin_to_cpu(cpu) || sched_getcpu() != cpu))
			_exit(1);
		_exit(fn(arg));
	}
	return reap_child(pid);
}

/*
 * Fork a child that blocks until the write end of pipe @p is closed; the
 * parent keeps only that end.  Returns the child's pid, or -1.
 */
static inline pid_t fork_waiter(int p[2])
{
	pid_t pid = fork();
	char c;

	if (pid == 0) {
		close(p[1]);
		while (read(p[0], &c, 1) > 0)
			;
		_exit(0);
	}
	close(p[0]);
	return pid;
}

/* Let a child of fork_waiter() go by closing @wfd, and reap it. */
static inline void reap_waiter(pid_t pid, int wfd)
{
	close(wfd);
	waitpid(pid, NULL, 0);
}

/* touch_pages() for run_child(): @n is the number of pages. */
static inline int touch_pages_fn(void *n)
{
	touch_pages((int)(long)n);
	return 0;
}

/* Fork a child (on @cpu unless -1) that touches @n fresh pages; 0 if ok. */
static inline int touch_in_child(int cpu, int n)
{
	return run_child(cpu, touch_pages_fn, (void *)(long)n);
}

/* What run_with_caps() runs in its child, and with what. */
struct nobody_call {
	uid_t id;
	uint64_t caps;
	int (*fn)(void *arg);
	void *arg;
};

/*
 * Child side of run_with_caps(): become uid/gid c->id, keep the
 * capabilities in c->caps (if any) effective and permitted, run c->fn.
 */
static inline int nobody_fn(void *arg)
{
	struct nobody_call *c = arg;
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];

	if (c->caps && prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0))
		return 255;
	if (setresgid(c->id, c->id, c->id) || setresuid(c->id, c->id, c->id))
		return 255;
	if (c->caps) {
		memset(data, 0, sizeof(data));
		data[0].effective = (uint32_t)c->caps;
		data[0].permitted = (uint32_t)c->caps;
		data[1].effective = (uint32_t)(c->caps >> 32);
		data[1].permitted = (uint32_t)(c->caps >> 32);
		if (syscall(SYS_capset, &hdr, data))
			return 254;
	}
	return c->fn(c->arg);
}

/*
 * Run @fn(@arg) in a child that dropped to uid/gid NOBODY_ID but kept the
 * capabilities in @caps (a mask of CAP_* bits); returns the child's exit
 * status (255/254 if it could not drop to that), or -1 if it died.
 */
static inline int run_with_caps(uint64_t caps, int (*fn)(void *), void *arg)
{
	struct nobody_call c = {
		.id = NOBODY_ID, .caps = caps, .fn = fn, .arg = arg,
	};

	return run_child(-1, nobody_fn, &c);
}

/*
 * Like run_unprivileged(), as uid/gid @id: a user of its own, whose
 * per-user accounting (locked memory) no other case shares, so that a
 * kernel that leaves a charge behind fails that case alone.
 */
static inline int run_as_user(uid_t id, int (*fn)(void *), void *arg)
{
	struct nobody_call c = { .id = id, .fn = fn, .arg = arg };

	return run_child(-1, nobody_fn, &c);
}

/* Like run_with_caps(), without any capability. */
static inline int run_unprivileged(int (*fn)(void *), void *arg)
{
	return run_with_caps(0, fn, arg);
}

/* Read one integer from the file at @path; returns 0 or -1. */
static inline int read_file_long(const char *path, long *val)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -1;
	ok = fscanf(f, "%ld", val) == 1;
	fclose(f);
	return ok ? 0 : -1;
}

/* Write @s to the file at @path in one write(); returns 0 or -errno. */
static inline int write_file_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	int ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, s, strlen(s)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* The /proc path of the kernel sysctl @name. */
static inline void sysctl_path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "/proc/sys/kernel/%s", name);
}

/* Read an integer sysctl under /proc/sys/kernel; returns 0 or -1. */
static inline int read_sysctl(const char *name, long *val)
{
	char path[128];

	sysctl_path(path, sizeof(path), name);
	return read_file_long(path, val);
}

/* Write a raw string to a sysctl; returns 0 or -errno. */
static inline int write_sysctl_str(const char *name, const char *s)
{
	char path[128];

	sysctl_path(path, sizeof(path), name);
	return write_file_str(path, s);
}

/* Write an integer sysctl; returns 0 or -errno. */
static inline int write_sysctl(const char *name, long val)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%ld\n", val);
	return write_sysctl_str(name, buf);
}

/*
 * The kernel's taint flags: a warning, an oops or a sanitizer report
 * during a test changes them.
 */
static inline long kernel_taint(void)
{
	long t = 0;

	read_file_long("/proc/sys/kernel/tainted", &t);
	return t;
}

/* VmPin of this process (memory pinned by its perf buffers), in kB, or -1. */
static inline long vm_pin_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmPin: %ld", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/*
 * The address of kernel symbol @name from /proc/kallsyms (root
 * sees them), or 0.
 */
static inline uint64_t ksym_addr(const char *name)
{
	char line[256], sym[200];
	unsigned long long addr;
	uint64_t found = 0;
	char kind;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %199s", &addr, &kind, sym) == 3 &&
		    !strcmp(sym, name)) {
			found = addr;
			break;
		}
	fclose(f);
	return found;
}

/* Whether the kernel has bpf(2): an unknown command is EINVAL, not ENOSYS. */
static inline int have_bpf_syscall(void)
{
	return !(syscall(__NR_bpf, -1, NULL, 0) < 0 && errno == ENOSYS);
}

/* The tracefs events directory, mounting tracefs if need be. */
static inline const char *tracefs_events(void)
{
	static const char * const dirs[] = {
		"/sys/kernel/tracing/events",
		"/sys/kernel/debug/tracing/events",
	};
	unsigned int i;

	for (i = 0; i < 2; i++)
		if (!access(dirs[i], R_OK))
			return dirs[i];
	if (!access("/sys/kernel/tracing", F_OK) &&
	    !mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL) &&
	    !access(dirs[0], R_OK))
		return dirs[0];
	return NULL;
}

/* The id of tracepoint @sys/@name, or -1. */
static inline long tp_id(const char *sys, const char *name)
{
	const char *ev = tracefs_events();
	char path[256];
	long id;

	if (!ev)
		return -1;
	snprintf(path, sizeof(path), "%s/%s/%s/id", ev, sys, name);
	return read_file_long(path, &id) ? -1 : id;
}

#endif /* PERF_UTIL_H */
