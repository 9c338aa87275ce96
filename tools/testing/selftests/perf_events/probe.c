// SPDX-License-Identifier: GPL-2.0
/*
 * The kprobe and uprobe PMUs (/sys/bus/event_source/devices/kprobe and
 * uprobe): an event that places its own probe on a kernel function (by
 * name, or by address) or on an offset of a file, counting each hit, or
 * each return for a return probe (config bit 0); a uprobe's reference
 * counter (config bits 32-63) raised while the probe is in place;
 * PERF_EVENT_IOC_SET_FILTER on a probe's fields; PERF_SAMPLE_RAW records
 * carrying the probe's address; and the errors for names, addresses and
 * paths that cannot take a probe, and for callers without the privilege.
 *
 * The kernel probe goes on the getppid() system call, which nothing else
 * in the test makes; the user probe on a function of this program.
 */
#include <limits.h>
#include "../kselftest_harness.h"
#include "perf_util.h"
#include "perf_rb.h"

#define NO_PROBE_PMU "no %s PMU in this kernel (CONFIG_%s_EVENTS; issue 13)"
#define KFUNC "__x64_sys_getppid"
#define CALLS 7

/* The type of PMU @name, or -1. */
static int pmu_type(const char *name)
{
	char path[128];
	long type;

	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type", name);
	return read_file_long(path, &type) ? -1 : (int)type;
}

/* The contents of a format file of PMU @pmu, newline removed, or "". */
static const char *pmu_format(const char *pmu, const char *name)
{
	static char buf[64];
	char path[160];
	FILE *f;

	buf[0] = 0;
	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/format/%s",
		 pmu, name);
	f = fopen(path, "r");
	if (!f)
		return buf;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	return buf;
}

/* An event of probe PMU @type; pid 0, any CPU, disabled. */
static int open_probe(int type, uint64_t config, uint64_t name, uint64_t addr,
		      int inherit)
{
	struct perf_event_attr attr = {
		.type = type,
		.size = sizeof(attr),
		.config = config,
		.config1 = name,
		.config2 = addr,
		.inherit = inherit,
		.disabled = 1,
	};

	return sys_perf_event_open(&attr, 0, -1, -1, 0);
}

static int open_kprobe(int type, uint64_t config, const char *func,
		       uint64_t addr)
{
	return open_probe(type, config, (uintptr_t)func, addr, 0);
}

static void call_getppid(int n)
{
	while (n-- > 0)
		syscall(SYS_getppid);
}

/* Enable @fd, make @n getppid() calls, disable; the count. */
static long count_getppid(int fd, int n)
{
	if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0))
		return -1;
	call_getppid(n);
	if (ioctl(fd, PERF_EVENT_IOC_DISABLE, 0))
		return -1;
	return (long)read_count(fd);
}

/* The function the user probes go on. */
static noinline int probe_target(int x)
{
	asm volatile("" : "+r" (x));
	return x + 1;
}

/* A USDT-style semaphore: the kernel raises it while a probe uses it. */
static unsigned short probe_semaphore __section(".probes");

static unsigned short semaphore_now(void)
{
	return __atomic_load_n(&probe_semaphore, __ATOMIC_RELAXED);
}

static char self_path[PATH_MAX];

/* The file offset of address @p of this program, from /proc/self/maps. */
static uint64_t file_offset(const void *p)
{
	unsigned long long start, end, pgoff;
	uintptr_t a = (uintptr_t)p;
	char line[512], path[PATH_MAX];
	uint64_t off = (uint64_t)-1;
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return off;
	while (fgets(line, sizeof(line), f)) {
		path[0] = 0;
		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %4095s", &start, &end,
			   &pgoff, path) < 3)
			continue;
		if (a >= start && a < end && !strcmp(path, self_path)) {
			off = a - start + pgoff;
			break;
		}
	}
	fclose(f);
	return off;
}

static int open_uprobe(int type, uint64_t config, const char *path,
		       uint64_t offset)
{
	return open_probe(type, config, (uintptr_t)path, offset, 0);
}

FIXTURE(kp) {
	int type;
	int fd;
};

FIXTURE_SETUP(kp)
{
	self->fd = -1;
	self->type = pmu_type("kprobe");
	if (self->type < 0)
		SKIP(return, NO_PROBE_PMU, "kprobe", "KPROBE");
}

FIXTURE_TEARDOWN(kp)
{
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F(kp, pmu_in_sysfs)
{
	EXPECT_GE(self->type, PERF_TYPE_MAX);
	EXPECT_STREQ(pmu_format("kprobe", "retprobe"), "config:0");
}

TEST_F(kp, counts_each_call)
{
	self->fd = open_kprobe(self->type, 0, KFUNC, 0);
	ASSERT_GE(self->fd, 0) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(count_getppid(self->fd, CALLS), CALLS);
	/* Disabled, the probe counts nothing. */
	call_getppid(3);
	EXPECT_EQ(read_count(self->fd), CALLS);
}

TEST_F(kp, retprobe_counts_each_return)
{
	self->fd = open_kprobe(self->type, 1, KFUNC, 0);
	ASSERT_GE(self->fd, 0) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(count_getppid(self->fd, CALLS), CALLS);
}

TEST_F(kp, by_address)
{
	uint64_t addr = ksym_addr(KFUNC);

	ASSERT_NE(addr, 0);
	self->fd = open_kprobe(self->type, 0, NULL, addr);
	ASSERT_GE(self->fd, 0) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(count_getppid(self->fd, CALLS), CALLS);
}

/* Two probes on the same function count independently. */
TEST_F(kp, two_probes_one_function)
{
	int fd2;

	self->fd = open_kprobe(self->type, 0, KFUNC, 0);
	ASSERT_GE(self->fd, 0) TH_LOG("%s", strerror(errno));
	fd2 = open_kprobe(self->type, 1, KFUNC, 0);
	ASSERT_GE(fd2, 0) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(ioctl(fd2, PERF_EVENT_IOC_ENABLE, 0), 0);
	EXPECT_EQ(count_getppid(self->fd, CALLS), CALLS);
	call_getppid(2);
	EXPECT_EQ(read_count(fd2), CALLS + 2);
	close(fd2);
}

/* An inherited probe event counts in the children; it folds back. */
TEST_F(kp, inherited_counts_children)
{
	int status;
	pid_t pid;

	self->fd = open_probe(self->type, 0, (uintptr_t)KFUNC, 0, 1);
	ASSERT_GE(self->fd, 0) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(ioctl(self->fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		call_getppid(CALLS);
		_exit(0);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	call_getppid(1);
	ASSERT_EQ(ioctl(self->fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	EXPECT_EQ(read_count(self->fd), CALLS + 1);
}

TEST_F(kp, filter_selects_hits)
{
	char expr[64];
	int fd2;

	self->fd = open_kprobe(self->type, 0, KFUNC, 0);
	ASSERT_GE(self->fd, 0) TH_LOG("%s", strerror(errno));
	fd2 = open_kprobe(self->type, 0, KFUNC, 0);
	ASSERT_GE(fd2, 0) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(ioctl(self->fd, PERF_EVENT_IOC_SET_FILTER, "common_pid =="), -1);
	EXPECT_EQ(errno, EINVAL);
	EXPECT_EQ(ioctl(self->fd, PERF_EVENT_IOC_SET_FILTER, "no_such_field == 1"), -1);
	EXPECT_EQ(errno, EINVAL);
	snprintf(expr, sizeof(expr), "common_pid != %d", getpid());
	ASSERT_EQ(ioctl(self->fd, PERF_EVENT_IOC_SET_FILTER, expr), 0)
		TH_LOG("%s", strerror(errno));
	snprintf(expr, sizeof(expr), "common_pid == %d", getpid());
	ASSERT_EQ(ioctl(fd2, PERF_EVENT_IOC_SET_FILTER, expr), 0)
		TH_LOG("%s", strerror(errno));
	ASSERT_EQ(ioctl(fd2, PERF_EVENT_IOC_ENABLE, 0), 0);
	EXPECT_EQ(count_getppid(self->fd, CALLS), 0);
	ASSERT_EQ(ioctl(fd2, PERF_EVENT_IOC_DISABLE, 0), 0);
	EXPECT_EQ(read_count(fd2), CALLS);
	close(fd2);
}

/*
 * Each hit is a sample whose raw data is the probe's trace record: the
 * common header, then the probed address (__probe_ip), which is the
 * function's, or a few bytes into it past an endbr64.
 */
TEST_F(kp, samples_carry_raw_record)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_RAW,
		.config1 = (uintptr_t)KFUNC,
		.disabled = 1,
	};
	uint64_t addr = ksym_addr(KFUNC);
	struct perf_rb rb;

	ASSERT_NE(addr, 0);
	attr.type = self->type;
	self->fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(self->fd, 0) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(rb_map(&rb, self->fd, 4), 0);
	EXPECT_EQ(count_getppid(self->fd, CALLS), CALLS);
	rb_fetch(&rb);
	EXPECT_EQ(rb_count(&rb, PERF_RECORD_SAMPLE), CALLS);
	/* struct trace_entry (8 bytes), then __probe_ip. */
	EXPECT_EQ(rb_raw_u64_in(&rb, 8, addr, addr + 8), CALLS);
	rb_unmap(&rb);
}

/* Nothing to probe: the errno upstream gives for each. */
TEST_F(kp, bad_targets)
{
	char *long_name = malloc(1024);

	ASSERT_NE(long_name, NULL);
	memset(long_name, 'a', 1023);
	long_name[1023] = 0;
	/* An unknown function. */
	EXPECT_EQ(open_kprobe(self->type, 0, "no_such_function_perf_test", 0), -1);
	EXPECT_EQ(errno, ENOENT);
	/* A name longer than a kernel symbol can be. */
	EXPECT_EQ(open_kprobe(self->type, 0, long_name, 0), -1);
	EXPECT_EQ(errno, E2BIG);
	/* A name the caller cannot read. */
	EXPECT_EQ(open_kprobe(self->type, 0, (const char *)8, 0), -1);
	EXPECT_EQ(errno, EFAULT);
	/* The PMI handler (stock's name, then ours): kprobes refuse it. */
	EXPECT_EQ(open_kprobe(self->type, 0, ksym_addr("perf_event_nmi_handler") ?
			      "perf_event_nmi_handler" : "x86_pmi", 0), -1);
	EXPECT_EQ(errno, EINVAL);
	/* An address with no kernel symbol. */
	EXPECT_EQ(open_kprobe(self->type, 0, NULL, 8), -1);
	EXPECT_EQ(errno, ENOENT);
	free(long_name);
}

/* A probe hit has no branch stack to sample. */
TEST_F(kp, no_branch_stack)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_BRANCH_STACK,
		.branch_sample_type = PERF_SAMPLE_BRANCH_ANY,
		.config1 = (uintptr_t)KFUNC,
	};

	attr.type = self->type;
	EXPECT_EQ(sys_perf_event_open(&attr, 0, -1, -1, 0), -1);
	EXPECT_EQ(errno, EOPNOTSUPP);
}

static int try_kprobe(void *arg)
{
	int fd = open_kprobe(*(int *)arg, 0, KFUNC, 0);

	return fd >= 0 ? 0 : errno;
}

TEST_F(kp, needs_perfmon)
{
	EXPECT_EQ(run_unprivileged(try_kprobe, &self->type), EACCES);
}

FIXTURE(up) {
	int type;
	int fd;
	uint64_t offset;
};

FIXTURE_SETUP(up)
{
	ssize_t n;

	self->fd = -1;
	self->type = pmu_type("uprobe");
	if (self->type < 0)
		SKIP(return, NO_PROBE_PMU, "uprobe", "UPROBE");
	n = readlink("/proc/self/exe", self_path, sizeof(self_path) - 1);
	ASSERT_GT(n, 0);
	self_path[n] = 0;
	self->offset = file_offset((void *)probe_target);
	ASSERT_NE(self->offset, (uint64_t)-1);
}

FIXTURE_TEARDOWN(up)
{
	if (self->fd >= 0)
		close(self->fd);
}

/* Enable @fd, make @n calls of the probed function, disable; the count. */
static long count_calls(int fd, int n)
{
	int i, x = 0;

	if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0))
		return -1;
	for (i = 0; i < n; i++)
		x = probe_target(x);
	if (ioctl(fd, PERF_EVENT_IOC_DISABLE, 0))
		return -1;
	return x == n ? (long)read_count(fd) : -1;
}

TEST_F(up, pmu_in_sysfs)
{
	EXPECT_GE(self->type, PERF_TYPE_MAX);
	EXPECT_STREQ(pmu_format("uprobe", "retprobe"), "config:0");
	EXPECT_STREQ(pmu_format("uprobe", "ref_ctr_offset"), "config:32-63");
}

TEST_F(up, counts_each_call)
{
	self->fd = open_uprobe(self->type, 0, self_path, self->offset);
	ASSERT_GE(self->fd, 0) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(count_calls(self->fd, CALLS), CALLS);
}

TEST_F(up, retprobe_counts_each_return)
{
	self->fd = open_uprobe(self->type, 1, self_path, self->offset);
	ASSERT_GE(self->fd, 0) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(count_calls(self->fd, CALLS), CALLS);
}

/* The reference counter is raised while the probe is in place. */
TEST_F(up, raises_ref_ctr)
{
	uint64_t ref = file_offset((const void *)&probe_semaphore);

	ASSERT_NE(ref, (uint64_t)-1);
	ASSERT_EQ(semaphore_now(), 0);
	self->fd = open_uprobe(self->type, ref << 32, self_path, self->offset);
	ASSERT_GE(self->fd, 0) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(count_calls(self->fd, CALLS), CALLS);
	EXPECT_EQ(semaphore_now(), 1);
	close(self->fd);
	self->fd = -1;
	EXPECT_EQ(semaphore_now(), 0);
}

TEST_F(up, bad_targets)
{
	/* No path, an empty one, one that does not exist. */
	EXPECT_EQ(open_uprobe(self->type, 0, NULL, self->offset), -1);
	EXPECT_EQ(errno, EINVAL);
	EXPECT_EQ(open_uprobe(self->type, 0, "", self->offset), -1);
	EXPECT_EQ(errno, EINVAL);
	EXPECT_EQ(open_uprobe(self->type, 0, "/no/such/file", 0), -1);
	EXPECT_EQ(errno, ENOENT);
	/* A path the caller cannot read. */
	EXPECT_EQ(open_uprobe(self->type, 0, (const char *)8, 0), -1);
	EXPECT_EQ(errno, EFAULT);
	/* An offset past the end of the file. */
	EXPECT_EQ(open_uprobe(self->type, 0, self_path, 1ULL << 40), -1);
	EXPECT_EQ(errno, EINVAL);
	/* A directory. */
	EXPECT_EQ(open_uprobe(self->type, 0, "/", 0), -1);
	EXPECT_EQ(errno, EINVAL);
}

struct up_try {
	int type;
	uint64_t offset;
};

static int try_uprobe(void *arg)
{
	struct up_try *t = arg;
	int fd = open_uprobe(t->type, 0, self_path, t->offset);

	return fd >= 0 ? 0 : errno;
}

/* Upstream asks for CAP_SYS_ADMIN; CAP_PERFMON is not enough. */
TEST_F(up, needs_sys_admin)
{
	struct up_try t = { .type = self->type, .offset = self->offset };

	EXPECT_EQ(run_unprivileged(try_uprobe, &t), EACCES);
	EXPECT_EQ(run_with_caps(1ULL << 38 /* CAP_PERFMON */, try_uprobe, &t),
		  EACCES);
}

TEST_HARNESS_MAIN
