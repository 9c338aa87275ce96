// SPDX-License-Identifier: GPL-2.0
/*
 * Permission policy of perf_event_open(2) and the perf sysctls.
 *
 * For each perf_event_paranoid level (-1 .. 3, where Debian's level 3
 * refuses all use without CAP_SYS_ADMIN) an unprivileged process (uid
 * 65534, no capabilities) opens per-task and CPU-wide events with and
 * without kernel counting; other tests cover other users' tasks, the
 * process's own children, CAP_PERFMON, root, the attr bits that need
 * privilege, and the defaults and accepted ranges of every
 * /proc/sys/kernel/perf_* sysctl.  Every sysctl changed is restored by
 * the fixture teardown.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <limits.h>
#include <stdbool.h>
#include <sys/stat.h>

#include <linux/hw_breakpoint.h>

#include "../kselftest_harness.h"
#include "perf_util.h"

/* Every perf sysctl, in the order they have to be restored. */
static const char * const perf_sysctls[] = {
	"perf_cpu_time_max_percent",	/* first: it locks max_sample_rate */
	"perf_event_max_sample_rate",
	"perf_event_paranoid",
	"perf_event_mlock_kb",
	"perf_event_max_stack",
	"perf_event_max_contexts_per_stack",
};
#define NR_SYSCTLS ARRAY_SIZE(perf_sysctls)

static void save_sysctls(long *vals)
{
	unsigned int i;

	for (i = 0; i < NR_SYSCTLS; i++)
		if (read_sysctl(perf_sysctls[i], &vals[i]))
			vals[i] = LONG_MIN;
}

static void restore_sysctls(const long *vals)
{
	unsigned int i;

	for (i = 0; i < NR_SYSCTLS; i++)
		if (vals[i] != LONG_MIN)
			write_sysctl(perf_sysctls[i], vals[i]);
}

static long sysctl_val(const char *name)
{
	long v;

	return read_sysctl(name, &v) ? LONG_MIN : v;
}

/* ---- opening events in a less privileged child ---------------------------- */

struct open_req {
	struct perf_event_attr attr;
	pid_t pid;
	int cpu;
	unsigned long flags;
	uint64_t caps;		/* capabilities kept by run_with_caps() */
};

/* Child side: the errno of the open, 0 on success. */
static int open_fn(void *arg)
{
	struct open_req *r = arg;
	int fd = sys_perf_event_open(&r->attr, r->pid, r->cpu, -1, r->flags);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static int unpriv_open(struct perf_event_attr *attr, pid_t pid, int cpu)
{
	struct open_req r = { .attr = *attr, .pid = pid, .cpu = cpu };

	return run_unprivileged(open_fn, &r);
}

static int caps_open(uint64_t caps, struct perf_event_attr *attr, pid_t pid,
		     int cpu)
{
	struct open_req r = { .attr = *attr, .pid = pid, .cpu = cpu };

	return run_with_caps(caps, open_fn, &r);
}

static void user_attr(struct perf_event_attr *attr, uint64_t config)
{
	sw_attr(attr, config);
	attr->exclude_kernel = 1;
	attr->exclude_hv = 1;
}

/*
 * Child side of the "own child" checks: fork a grandchild (made dumpable
 * first when asked) and open an event on it.
 */
struct child_req {
	int dumpable;
	int exclude_kernel;
};

static int own_child_fn(void *arg)
{
	struct child_req *r = arg;
	struct perf_event_attr attr;
	int p[2], fd, err = 0;
	pid_t pid;

	if (r->dumpable && prctl(PR_SET_DUMPABLE, 1, 0, 0, 0))
		return 253;
	if (pipe(p))
		return 252;
	pid = fork_waiter(p);
	if (pid < 0)
		return 251;
	sw_attr(&attr, PERF_COUNT_SW_TASK_CLOCK);
	attr.exclude_kernel = r->exclude_kernel;
	attr.exclude_hv = r->exclude_kernel;
	fd = sys_perf_event_open(&attr, pid, -1, -1, 0);
	if (fd < 0)
		err = errno;
	else
		close(fd);
	reap_waiter(pid, p[1]);
	return err;
}

/* ---- fixtures --------------------------------------------------------------- */

FIXTURE(sysctls) {
	long saved[NR_SYSCTLS];
};

FIXTURE_SETUP(sysctls)
{
	save_sysctls(self->saved);
}

FIXTURE_TEARDOWN(sysctls)
{
	restore_sysctls(self->saved);
}

/*
 * One variant per paranoid level, with the errno an unprivileged open of
 * a per-task / CPU-wide event with exclude_kernel=1 (user) or 0 (kernel)
 * gets.
 */
FIXTURE(level) {
	long saved[NR_SYSCTLS];
};

FIXTURE_VARIANT(level) {
	int level;
	int self_user, self_kernel, cpu_user, cpu_kernel;
};

FIXTURE_VARIANT_ADD(level, minus1) {
	.level = -1,
	.self_user = 0, .self_kernel = 0, .cpu_user = 0, .cpu_kernel = 0,
};

FIXTURE_VARIANT_ADD(level, l0) {
	.level = 0,
	.self_user = 0, .self_kernel = 0, .cpu_user = 0, .cpu_kernel = 0,
};

FIXTURE_VARIANT_ADD(level, l1) {
	.level = 1,
	.self_user = 0, .self_kernel = 0,
	.cpu_user = EACCES, .cpu_kernel = EACCES,
};

FIXTURE_VARIANT_ADD(level, l2) {
	.level = 2,
	.self_user = 0, .self_kernel = EACCES,
	.cpu_user = EACCES, .cpu_kernel = EACCES,
};

/* Debian: 3 refuses every open without CAP_SYS_ADMIN. */
FIXTURE_VARIANT_ADD(level, l3) {
	.level = 3,
	.self_user = EACCES, .self_kernel = EACCES,
	.cpu_user = EACCES, .cpu_kernel = EACCES,
};

FIXTURE_SETUP(level)
{
	save_sysctls(self->saved);
	ASSERT_EQ(0, write_sysctl("perf_event_paranoid", variant->level));
	ASSERT_EQ(variant->level, sysctl_val("perf_event_paranoid"));
}

FIXTURE_TEARDOWN(level)
{
	restore_sysctls(self->saved);
}

/* ---- paranoid levels -------------------------------------------------------- */

TEST_F(level, self_user_only)
{
	struct perf_event_attr attr;

	user_attr(&attr, PERF_COUNT_SW_TASK_CLOCK);
	EXPECT_EQ(variant->self_user, unpriv_open(&attr, 0, -1));
	/* Restricting the task event to one CPU changes nothing. */
	EXPECT_EQ(variant->self_user, unpriv_open(&attr, 0, 0));
	/* Neither does naming ourselves by pid (see self_by_pid below). */
	user_attr(&attr, PERF_COUNT_SW_PAGE_FAULTS);
	EXPECT_EQ(variant->self_user, unpriv_open(&attr, 0, -1));
}

TEST_F(level, self_with_kernel)
{
	struct perf_event_attr attr;

	sw_attr(&attr, PERF_COUNT_SW_TASK_CLOCK);
	EXPECT_EQ(variant->self_kernel, unpriv_open(&attr, 0, -1));
	/* exclude_kernel alone decides; exclude_hv does not matter. */
	attr.exclude_hv = 1;
	EXPECT_EQ(variant->self_kernel, unpriv_open(&attr, 0, -1));
	attr.exclude_user = 1;
	EXPECT_EQ(variant->self_kernel, unpriv_open(&attr, 0, 0));
}

TEST_F(level, cpu_wide_user_only)
{
	struct perf_event_attr attr;

	user_attr(&attr, PERF_COUNT_SW_CPU_CLOCK);
	EXPECT_EQ(variant->cpu_user, unpriv_open(&attr, -1, 0));
	user_attr(&attr, PERF_COUNT_SW_CONTEXT_SWITCHES);
	EXPECT_EQ(variant->cpu_user, unpriv_open(&attr, -1, 0));
}

TEST_F(level, cpu_wide_with_kernel)
{
	struct perf_event_attr attr;

	sw_attr(&attr, PERF_COUNT_SW_CPU_CLOCK);
	EXPECT_EQ(variant->cpu_kernel, unpriv_open(&attr, -1, 0));
}

/* Another user's task (init, uid 0) is refused at every level. */
TEST_F(level, other_users_task)
{
	struct perf_event_attr attr;

	user_attr(&attr, PERF_COUNT_SW_TASK_CLOCK);
	EXPECT_EQ(EACCES, unpriv_open(&attr, 1, -1));
	EXPECT_EQ(EACCES, unpriv_open(&attr, 1, 0));
}

/* A dumpable child of ours counts as much as we do ourselves. */
TEST_F(level, own_child)
{
	struct child_req r = { .dumpable = 1, .exclude_kernel = 1 };

	EXPECT_EQ(variant->self_user, run_unprivileged(own_child_fn, &r));
	r.exclude_kernel = 0;
	EXPECT_EQ(variant->self_kernel, run_unprivileged(own_child_fn, &r));
}

/* Root is never refused, whatever the level. */
TEST_F(level, root_always_allowed)
{
	struct perf_event_attr attr;
	int fd;

	sw_attr(&attr, PERF_COUNT_SW_CPU_CLOCK);
	fd = sys_perf_event_open(&attr, -1, 0, -1, 0);
	ASSERT_GE(fd, 0);
	close(fd);
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(fd, 0);
	close(fd);
	/* init is root's own task. */
	fd = sys_perf_event_open(&attr, 1, -1, -1, 0);
	ASSERT_GE(fd, 0);
	close(fd);
}

/*
 * CAP_PERFMON lifts levels 0..2 but not Debian's level 3, which
 * asks for CAP_SYS_ADMIN; CAP_SYS_ADMIN alone is enough everywhere.
 */
TEST_F(level, perfmon_and_sys_admin)
{
	struct perf_event_attr attr;
	int l3 = variant->level > 2 ? EACCES : 0;

	sw_attr(&attr, PERF_COUNT_SW_CPU_CLOCK);
	EXPECT_EQ(l3, caps_open(1ULL << CAP_PERFMON, &attr, -1, 0));
	EXPECT_EQ(l3, caps_open(1ULL << CAP_PERFMON, &attr, 0, -1));
	EXPECT_EQ(l3, caps_open(1ULL << CAP_PERFMON, &attr, 1, -1));
	EXPECT_EQ(0, caps_open(1ULL << CAP_SYS_ADMIN, &attr, -1, 0));
	EXPECT_EQ(0, caps_open(1ULL << CAP_SYS_ADMIN, &attr, 1, -1));
	/* Unrelated capabilities do not help. */
	EXPECT_EQ(variant->cpu_kernel,
		  caps_open(1ULL << CAP_SYS_PTRACE, &attr, -1, 0));
}

/* The address of kernel symbol @name (as root), or 0. */
static unsigned long ksym(const char *name)
{
	char line[256], sym[128];
	unsigned long addr;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx %*s %127s", &addr, sym) == 2 &&
		    !strcmp(sym, name)) {
			fclose(f);
			return addr;
		}
	fclose(f);
	return 0;
}

/*
 * CAP_PERFMON alone, per kind of event and target, at each level (3
 * refuses everything without CAP_SYS_ADMIN first):
 *  - a breakpoint on a kernel address needs CAP_SYS_ADMIN: EPERM;
 *  - a sigtrap event on another user's task needs CAP_KILL too: EACCES,
 *    and with CAP_KILL it opens;
 *  - raw tracepoint data CPU-wide is what CAP_PERFMON is for; without it
 *    a task's own raw tracepoint data needs level -1 (EPERM otherwise).
 */
TEST_F(level, perfmon_alone_breakpoint_sigtrap)
{
	const uint64_t perfmon = 1ULL << CAP_PERFMON;
	int l3 = variant->level > 2 ? EACCES : 0;
	unsigned long kaddr = ksym("jiffies");
	struct perf_event_attr attr;

	if (kaddr) {
		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = PERF_TYPE_BREAKPOINT;
		attr.bp_type = HW_BREAKPOINT_W;
		attr.bp_addr = kaddr;
		attr.bp_len = HW_BREAKPOINT_LEN_8;
		EXPECT_EQ(l3 ? l3 : EPERM, caps_open(perfmon, &attr, -1, 0));
		EXPECT_EQ(l3 ? l3 : EPERM, caps_open(perfmon, &attr, 0, -1));
	}

	user_attr(&attr, PERF_COUNT_SW_PAGE_FAULTS);
	attr.sample_period = 1;
	attr.sigtrap = 1;
	attr.remove_on_exec = 1;
	EXPECT_EQ(l3 ? l3 : EACCES, caps_open(perfmon, &attr, 1, -1));
	EXPECT_EQ(l3, caps_open(perfmon | 1ULL << CAP_KILL, &attr, 1, -1));
}

TEST_F(level, perfmon_alone_raw_tracepoints)
{
	const uint64_t perfmon = 1ULL << CAP_PERFMON;
	int l3 = variant->level > 2 ? EACCES : 0;
	struct perf_event_attr attr;
	long id = tp_id("sched", "sched_switch");

	if (id < 0)
		SKIP(return, "no tracepoint events (tracing not built in)");
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.config = id;
	attr.sample_period = 1;
	attr.sample_type = PERF_SAMPLE_RAW;
	EXPECT_EQ(l3, caps_open(perfmon, &attr, -1, 0));
	attr.exclude_kernel = 1;
	EXPECT_EQ(variant->level < 0 ? 0 : l3 ? l3 : EPERM,
		  unpriv_open(&attr, 0, -1));
}

/*
 * A callchain with kernel frames needs kernel access like exclude_kernel=0
 * does; excluding kernel callchains avoids that.
 */
TEST_F(level, kernel_callchain)
{
	struct perf_event_attr attr;

	user_attr(&attr, PERF_COUNT_SW_TASK_CLOCK);
	attr.sample_period = 1000000;
	attr.sample_type = PERF_SAMPLE_CALLCHAIN;
	EXPECT_EQ(variant->self_kernel, unpriv_open(&attr, 0, -1));
	attr.exclude_callchain_kernel = 1;
	EXPECT_EQ(variant->self_user, unpriv_open(&attr, 0, -1));
}

/* ---- checks that do not depend on the level ---------------------------- */

/* namespaces records need CAP_PERFMON even with paranoid -1. */
TEST_F(sysctls, namespaces_needs_perfmon)
{
	struct perf_event_attr attr;

	ASSERT_EQ(0, write_sysctl("perf_event_paranoid", -1));
	user_attr(&attr, PERF_COUNT_SW_DUMMY);
	attr.namespaces = 1;
	EXPECT_EQ(EACCES, unpriv_open(&attr, 0, -1));
	EXPECT_EQ(0, caps_open(1ULL << CAP_PERFMON, &attr, 0, -1));
	attr.namespaces = 0;
	EXPECT_EQ(0, unpriv_open(&attr, 0, -1));
}

/* text_poke and physical addresses are kernel information (level > 1). */
TEST_F(sysctls, kernel_information_bits)
{
	struct perf_event_attr attr;

	ASSERT_EQ(0, write_sysctl("perf_event_paranoid", 2));
	user_attr(&attr, PERF_COUNT_SW_DUMMY);
	attr.text_poke = 1;
	EXPECT_EQ(EACCES, unpriv_open(&attr, 0, -1));
	user_attr(&attr, PERF_COUNT_SW_TASK_CLOCK);
	attr.sample_type = PERF_SAMPLE_PHYS_ADDR;
	EXPECT_EQ(EACCES, unpriv_open(&attr, 0, -1));

	ASSERT_EQ(0, write_sysctl("perf_event_paranoid", 1));
	user_attr(&attr, PERF_COUNT_SW_DUMMY);
	attr.text_poke = 1;
	EXPECT_EQ(0, unpriv_open(&attr, 0, -1));
	user_attr(&attr, PERF_COUNT_SW_TASK_CLOCK);
	attr.sample_type = PERF_SAMPLE_PHYS_ADDR;
	EXPECT_EQ(0, unpriv_open(&attr, 0, -1));
}

/*
 * Branch stacks: without an explicit privilege filter the event's own
 * exclude bits are used, and exclude_hv=0 turns into hypervisor branches,
 * which need kernel access.  Once allowed, the software PMU refuses
 * branch stacks (EOPNOTSUPP).
 */
TEST_F(sysctls, branch_stack_privilege)
{
	struct perf_event_attr attr;

	ASSERT_EQ(0, write_sysctl("perf_event_paranoid", 2));
	sw_attr(&attr, PERF_COUNT_SW_TASK_CLOCK);
	attr.exclude_kernel = 1;
	attr.sample_type = PERF_SAMPLE_BRANCH_STACK;
	attr.branch_sample_type = PERF_SAMPLE_BRANCH_ANY;
	EXPECT_EQ(EACCES, unpriv_open(&attr, 0, -1));
	attr.exclude_hv = 1;
	EXPECT_EQ(EOPNOTSUPP, unpriv_open(&attr, 0, -1));
	attr.branch_sample_type = PERF_SAMPLE_BRANCH_ANY |
				  PERF_SAMPLE_BRANCH_KERNEL;
	EXPECT_EQ(EACCES, unpriv_open(&attr, 0, -1));
	attr.branch_sample_type = PERF_SAMPLE_BRANCH_ANY |
				  PERF_SAMPLE_BRANCH_USER;
	EXPECT_EQ(EOPNOTSUPP, unpriv_open(&attr, 0, -1));
}

/* The attr is validated before any permission check, even at level 3. */
TEST_F(sysctls, attr_checked_before_permission)
{
	struct perf_event_attr attr;
	struct open_req r;

	ASSERT_EQ(0, write_sysctl("perf_event_paranoid", 3));
	sw_attr(&attr, PERF_COUNT_SW_TASK_CLOCK);
	attr.size = 8;
	EXPECT_EQ(E2BIG, unpriv_open(&attr, 0, -1));
	sw_attr(&attr, PERF_COUNT_SW_TASK_CLOCK);
	attr.__reserved_2 = 1;
	EXPECT_EQ(EINVAL, unpriv_open(&attr, 0, -1));
	sw_attr(&attr, PERF_COUNT_SW_TASK_CLOCK);
	r = (struct open_req){ .attr = attr, .pid = 0, .cpu = -1,
			       .flags = 1UL << 10 };
	EXPECT_EQ(EINVAL, run_unprivileged(open_fn, &r));
	/* ... but the permission check comes before pid/cpu/type checks. */
	attr.type = 0x7fff;
	EXPECT_EQ(EACCES, unpriv_open(&attr, -1, -1));

	/* At level 2 the kernel check also comes before them. */
	ASSERT_EQ(0, write_sysctl("perf_event_paranoid", 2));
	EXPECT_EQ(EACCES, unpriv_open(&attr, -1, -1));
	attr.exclude_kernel = 1;
	EXPECT_EQ(EINVAL, unpriv_open(&attr, -1, -1));
	EXPECT_EQ(ENOENT, unpriv_open(&attr, 0, -1));
	/* The CPU-wide check is late: after the type lookup. */
	EXPECT_EQ(ENOENT, unpriv_open(&attr, -1, 0));
}

/*
 * Our own children are only ours to watch while they are dumpable:
 * dropping to uid 65534 made us non-dumpable, and the child inherits it.
 * We can always watch ourselves, even by pid.
 */
TEST_F(sysctls, non_dumpable_child)
{
	struct child_req r = { .dumpable = 0, .exclude_kernel = 1 };

	ASSERT_EQ(0, write_sysctl("perf_event_paranoid", -1));
	EXPECT_EQ(EACCES, run_unprivileged(own_child_fn, &r));
	r.dumpable = 1;
	EXPECT_EQ(0, run_unprivileged(own_child_fn, &r));
}

static int self_by_pid_fn(void *arg)
{
	struct perf_event_attr attr;
	int fd;

	(void)arg;
	if (prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) != 0)
		return 250;	/* we expect to be non-dumpable here */
	user_attr(&attr, PERF_COUNT_SW_TASK_CLOCK);
	fd = sys_perf_event_open(&attr, getpid(), -1, -1, 0);
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

TEST_F(sysctls, self_by_pid)
{
	ASSERT_EQ(0, write_sysctl("perf_event_paranoid", 2));
	EXPECT_EQ(0, run_unprivileged(self_by_pid_fn, NULL));
}

/*
 * perf_event_mlock_kb and RLIMIT_MEMLOCK bound an unprivileged ring
 * buffer (EPERM past both), unless paranoid is -1.
 */
static int mmap_fn(void *arg)
{
	struct perf_event_attr attr;
	long ps = sysconf(_SC_PAGESIZE);
	struct rlimit rl = { 0, 0 };
	void *p;
	int fd, err = 0;

	(void)arg;
	user_attr(&attr, PERF_COUNT_SW_DUMMY);
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	if (fd < 0)
		return 200;
	if (setrlimit(RLIMIT_MEMLOCK, &rl))
		return 201;
	p = mmap(NULL, 2 * ps, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		err = errno;
	else
		munmap(p, 2 * ps);
	close(fd);
	return err;
}

TEST_F(sysctls, mlock_limit)
{
	ASSERT_EQ(0, write_sysctl("perf_event_mlock_kb", 0));
	ASSERT_EQ(0, write_sysctl("perf_event_paranoid", 2));
	EXPECT_EQ(EPERM, run_unprivileged(mmap_fn, NULL));
	ASSERT_EQ(0, write_sysctl("perf_event_paranoid", 0));
	EXPECT_EQ(EPERM, run_unprivileged(mmap_fn, NULL));
	ASSERT_EQ(0, write_sysctl("perf_event_paranoid", -1));
	EXPECT_EQ(0, run_unprivileged(mmap_fn, NULL));
	/* With the default allowance two pages are fine at level 2. */
	ASSERT_EQ(0, write_sysctl("perf_event_mlock_kb", 516));
	ASSERT_EQ(0, write_sysctl("perf_event_paranoid", 2));
	EXPECT_EQ(0, run_unprivileged(mmap_fn, NULL));
}

/* ---- the sysctls themselves ------------------------------------------------- */

TEST(sysctl_defaults)
{
	long ps = sysconf(_SC_PAGESIZE);

	EXPECT_EQ(2, sysctl_val("perf_event_paranoid"));
	EXPECT_EQ(512 + ps / 1024, sysctl_val("perf_event_mlock_kb"));
	EXPECT_EQ(100000, sysctl_val("perf_event_max_sample_rate"));
	EXPECT_EQ(25, sysctl_val("perf_cpu_time_max_percent"));
	EXPECT_EQ(127, sysctl_val("perf_event_max_stack"));
	EXPECT_EQ(8, sysctl_val("perf_event_max_contexts_per_stack"));
}

/* Exactly these six perf_* entries, all root-writable (0644). */
TEST(sysctl_entries)
{
	DIR *d = opendir("/proc/sys/kernel");
	struct dirent *de;
	unsigned int i, found = 0, others = 0;
	struct stat st;
	char path[300];

	ASSERT_NE(NULL, d);
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "perf_", 5))
			continue;
		for (i = 0; i < NR_SYSCTLS; i++)
			if (!strcmp(de->d_name, perf_sysctls[i]))
				break;
		if (i == NR_SYSCTLS) {
			TH_LOG("unexpected %s", de->d_name);
			others++;
			continue;
		}
		found |= 1U << i;
		snprintf(path, sizeof(path), "/proc/sys/kernel/%s", de->d_name);
		ASSERT_EQ(0, stat(path, &st));
		EXPECT_EQ(0644, st.st_mode & 07777) TH_LOG("%s", de->d_name);
	}
	closedir(d);
	EXPECT_EQ((1U << NR_SYSCTLS) - 1, found);
	EXPECT_EQ(0, others);
}

/* paranoid and mlock_kb take any int, without range checks. */
TEST_F(sysctls, unbounded_ints)
{
	static const long vals[] = { 3, 4, 100, -2, -1000, INT_MAX, INT_MIN };
	static const char * const names[] = {
		"perf_event_paranoid", "perf_event_mlock_kb",
	};
	unsigned int i, n;

	for (n = 0; n < 2; n++) {
		for (i = 0; i < ARRAY_SIZE(vals); i++) {
			EXPECT_EQ(0, write_sysctl(names[n], vals[i]))
				TH_LOG("%s %ld", names[n], vals[i]);
			EXPECT_EQ(vals[i], sysctl_val(names[n]));
		}
		EXPECT_EQ(-EINVAL, write_sysctl_str(names[n], "abc\n"));
		EXPECT_EQ(-EINVAL, write_sysctl_str(names[n], "2147483648\n"));
		EXPECT_EQ(INT_MIN, sysctl_val(names[n]));
	}
}

/* A paranoid level below -1 behaves like -1, above 3 like 3. */
TEST_F(sysctls, paranoid_out_of_range_levels)
{
	struct perf_event_attr attr;

	sw_attr(&attr, PERF_COUNT_SW_CPU_CLOCK);
	ASSERT_EQ(0, write_sysctl("perf_event_paranoid", -100));
	EXPECT_EQ(0, unpriv_open(&attr, -1, 0));
	ASSERT_EQ(0, write_sysctl("perf_event_paranoid", 100));
	user_attr(&attr, PERF_COUNT_SW_TASK_CLOCK);
	EXPECT_EQ(EACCES, unpriv_open(&attr, 0, -1));
}

TEST_F(sysctls, max_sample_rate_range)
{
	EXPECT_EQ(-EINVAL, write_sysctl("perf_event_max_sample_rate", 0));
	EXPECT_EQ(-EINVAL, write_sysctl("perf_event_max_sample_rate", -1));
	EXPECT_EQ(-EINVAL, write_sysctl_str("perf_event_max_sample_rate",
					    "2147483648\n"));
	EXPECT_EQ(0, write_sysctl("perf_event_max_sample_rate", 1));
	EXPECT_EQ(1, sysctl_val("perf_event_max_sample_rate"));
	EXPECT_EQ(0, write_sysctl("perf_event_max_sample_rate", INT_MAX));
	EXPECT_EQ(INT_MAX, sysctl_val("perf_event_max_sample_rate"));
	EXPECT_EQ(0, write_sysctl("perf_event_max_sample_rate", 100000));
}

/*
 * With throttling disabled (perf_cpu_time_max_percent 0 or 100) the max
 * sample rate cannot be written at all.
 */
TEST_F(sysctls, max_sample_rate_locked)
{
	EXPECT_EQ(0, write_sysctl("perf_cpu_time_max_percent", 100));
	EXPECT_EQ(-EINVAL, write_sysctl("perf_event_max_sample_rate", 50000));
	EXPECT_EQ(100000, sysctl_val("perf_event_max_sample_rate"));
	EXPECT_EQ(0, write_sysctl("perf_cpu_time_max_percent", 0));
	EXPECT_EQ(-EINVAL, write_sysctl("perf_event_max_sample_rate", 50000));
	EXPECT_EQ(0, write_sysctl("perf_cpu_time_max_percent", 99));
	EXPECT_EQ(0, write_sysctl("perf_event_max_sample_rate", 50000));
	EXPECT_EQ(50000, sysctl_val("perf_event_max_sample_rate"));
}

TEST_F(sysctls, cpu_time_max_percent_range)
{
	EXPECT_EQ(-EINVAL, write_sysctl("perf_cpu_time_max_percent", -1));
	EXPECT_EQ(-EINVAL, write_sysctl("perf_cpu_time_max_percent", 101));
	EXPECT_EQ(25, sysctl_val("perf_cpu_time_max_percent"));
	EXPECT_EQ(0, write_sysctl("perf_cpu_time_max_percent", 1));
	EXPECT_EQ(0, write_sysctl("perf_cpu_time_max_percent", 50));
	EXPECT_EQ(50, sysctl_val("perf_cpu_time_max_percent"));
}

TEST_F(sysctls, max_stack_range)
{
	EXPECT_EQ(-EINVAL, write_sysctl("perf_event_max_stack", -1));
	EXPECT_EQ(-EINVAL, write_sysctl("perf_event_max_stack", 640 * 1024 + 1));
	EXPECT_EQ(127, sysctl_val("perf_event_max_stack"));
	EXPECT_EQ(0, write_sysctl("perf_event_max_stack", 640 * 1024));
	EXPECT_EQ(640 * 1024, sysctl_val("perf_event_max_stack"));
	EXPECT_EQ(0, write_sysctl("perf_event_max_stack", 0));
	EXPECT_EQ(0, sysctl_val("perf_event_max_stack"));
}

TEST_F(sysctls, max_contexts_per_stack_range)
{
	const char *n = "perf_event_max_contexts_per_stack";

	EXPECT_EQ(-EINVAL, write_sysctl(n, -1));
	EXPECT_EQ(-EINVAL, write_sysctl(n, 1001));
	EXPECT_EQ(8, sysctl_val(n));
	EXPECT_EQ(0, write_sysctl(n, 1000));
	EXPECT_EQ(1000, sysctl_val(n));
	EXPECT_EQ(0, write_sysctl(n, 0));
	EXPECT_EQ(0, sysctl_val(n));
}

/* perf_event_open's freq check follows the sysctl. */
TEST_F(sysctls, max_sample_rate_applies)
{
	struct perf_event_attr attr;
	int fd;

	ASSERT_EQ(0, write_sysctl("perf_event_max_sample_rate", 1000));
	sw_attr(&attr, PERF_COUNT_SW_CPU_CLOCK);
	attr.freq = 1;
	attr.sample_freq = 1001;
	EXPECT_EQ(-1, sys_perf_event_open(&attr, 0, -1, -1, 0));
	EXPECT_EQ(EINVAL, errno);
	attr.sample_freq = 1000;
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	EXPECT_GE(fd, 0);
	if (fd >= 0)
		close(fd);
}

/* sample_max_stack is checked against the sysctl; 0 means "the sysctl". */
TEST_F(sysctls, max_stack_applies)
{
	struct perf_event_attr attr;
	int fd;

	ASSERT_EQ(0, write_sysctl("perf_event_max_stack", 10));
	sw_attr(&attr, PERF_COUNT_SW_TASK_CLOCK);
	attr.sample_period = 1000000;
	attr.sample_type = PERF_SAMPLE_CALLCHAIN;
	attr.sample_max_stack = 11;
	EXPECT_EQ(-1, sys_perf_event_open(&attr, 0, -1, -1, 0));
	EXPECT_EQ(EOVERFLOW, errno);
	attr.sample_max_stack = 10;
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	EXPECT_GE(fd, 0);
	if (fd >= 0)
		close(fd);
	attr.sample_max_stack = 0;
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	EXPECT_GE(fd, 0);
	if (fd >= 0)
		close(fd);
}

/* Only root may change the sysctls. */
static int write_paranoid_fn(void *arg)
{
	int fd = open("/proc/sys/kernel/perf_event_paranoid", O_WRONLY);

	(void)arg;
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

TEST(sysctl_root_only)
{
	EXPECT_EQ(EACCES, run_unprivileged(write_paranoid_fn, NULL));
}

TEST_HARNESS_MAIN
