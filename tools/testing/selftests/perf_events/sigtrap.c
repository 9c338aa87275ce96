// SPDX-License-Identifier: GPL-2.0
/*
 * Synchronous signals from perf events (perf_event_attr.sigtrap):
 *
 *  - the open-time rules: sigtrap needs remove_on_exec and a task,
 *    inherit_thread needs inherit, remove_on_exec excludes
 *    enable_on_exec, and a sigtrap event on another task needs CAP_KILL
 *    on top of CAP_PERFMON, or ptrace-attach rights over the task;
 *  - what the SIGTRAP carries (si_code TRAP_PERF, si_addr, si_perf_data,
 *    si_perf_type, si_perf_flags) for breakpoints, page faults and the
 *    task clock;
 *  - which thread gets it, and which threads and children inherit the
 *    event (inherit, inherit_thread, CLONE_CLEAR_SIGHAND);
 *  - how many signals: one per overflow, so one per write with a period
 *    of 1 and one per k writes with a period of k, none while the event
 *    is disabled, at most the REFRESH count, one pending while SIGTRAP is
 *    blocked (flagged TRAP_PERF_FLAG_ASYNC);
 *  - PERF_EVENT_IOC_MODIFY_ATTRIBUTES changing sig_data and the address;
 *  - remove_on_exec: after execve() the event neither counts nor signals.
 *
 * glibc's siginfo_t has no si_perf_* fields, so the handler reads them
 * through struct perf_siginfo, the kernel's layout of a SIGTRAP siginfo.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <pthread.h>
#include <stddef.h>
#include <linux/hw_breakpoint.h>
#include <linux/sched.h>

#include "../kselftest_harness.h"
#include "perf_util.h"

#ifndef TRAP_PERF
#define TRAP_PERF		6
#endif
#ifndef TRAP_PERF_FLAG_ASYNC
#define TRAP_PERF_FLAG_ASYNC	(1u << 0)
#endif

#define SIG_DATA	0x123456789abcdef0UL
#define SIG_DATA2	0x0fedcba987654321UL
#define MAXSIG		512
#define NTHREADS	4
#define EXEC_FLAG	"--sigtrap-exec-helper"

/*
 * include/uapi/asm-generic/siginfo.h on x86-64: si_signo, si_errno,
 * si_code, then the _sifields union 8-byte aligned; in its _sigfault
 * member the address comes first, then the _perf struct {unsigned long
 * _data; __u32 _type; __u32 _flags;} (the union right after _addr).
 */
struct perf_siginfo {
	int signo;
	int err;
	int code;
	int pad;
	unsigned long addr;
	unsigned long data;
	uint32_t type;
	uint32_t flags;
};

static_assert(offsetof(struct perf_siginfo, addr) == offsetof(siginfo_t, si_addr),
	       "si_addr offset");
static_assert(sizeof(struct perf_siginfo) <= sizeof(siginfo_t), "siginfo size");

/* One signal, as the handler saw it. */
struct sigrec {
	int signo;
	int err;
	int code;
	pid_t tid;
	unsigned long addr;
	unsigned long data;
	uint32_t type;
	uint32_t flags;
};

static struct sigrec recs[MAXSIG];
static volatile int nsig;
static __thread volatile int tsig;

/* Watched words, each in a cache line of its own. */
static volatile uint64_t watched __attribute__((aligned(64)));
static volatile uint64_t other_word __attribute__((aligned(64)));
static volatile uint64_t tword[NTHREADS][8] __attribute__((aligned(64)));

static void on_trap(int sig, siginfo_t *info, void *uc)
{
	const struct perf_siginfo *k = (const void *)info;
	int i = __atomic_fetch_add(&nsig, 1, __ATOMIC_RELAXED);

	tsig = tsig + 1;
	if (i >= MAXSIG)
		return;
	recs[i].signo = k->signo;
	recs[i].err = k->err;
	recs[i].code = k->code;
	recs[i].tid = gettid();
	recs[i].addr = k->addr;
	recs[i].data = k->data;
	recs[i].type = k->type;
	recs[i].flags = k->flags;
}

/*
 * Install on_trap() for SIGTRAP, run it once so that its code and stack
 * are faulted in (a page fault event must not count the handler's own
 * faults), and forget that and earlier signals.
 */
static void install_trap_flags(int flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_trap;
	sa.sa_flags = SA_SIGINFO | flags;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTRAP, &sa, NULL);
	memset(recs, 0, sizeof(recs));
	raise(SIGTRAP);
	nsig = 0;
	tsig = 0;
	memset(recs, 0, sizeof(recs));
}

static void install_trap(void)
{
	install_trap_flags(0);
}

static void set_trap_disposition(void (*h)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = h;
	sigaction(SIGTRAP, &sa, NULL);
}

/* A sampling breakpoint attr with sigtrap on @addr, 8 bytes (or an insn). */
static void bp_attr(struct perf_event_attr *attr, const volatile void *addr,
		    uint32_t bp_type)
{
	memset(attr, 0, sizeof(*attr));
	attr->type = PERF_TYPE_BREAKPOINT;
	attr->size = sizeof(*attr);
	attr->bp_type = bp_type;
	attr->bp_addr = (unsigned long)addr;
	attr->bp_len = bp_type == HW_BREAKPOINT_X ? sizeof(long) : HW_BREAKPOINT_LEN_8;
	attr->sample_period = 1;
	attr->sigtrap = 1;
	attr->remove_on_exec = 1;
	attr->sig_data = SIG_DATA;
	attr->exclude_kernel = 1;
	attr->exclude_hv = 1;
}

/* Open a write breakpoint with sigtrap on @addr for the calling thread. */
static int open_wbp(const volatile void *addr)
{
	struct perf_event_attr attr;

	bp_attr(&attr, addr, HW_BREAKPOINT_W);
	return sys_perf_event_open(&attr, 0, -1, -1, 0);
}

/* A software event attr with sigtrap and a period of @period. */
static void sw_sig_attr(struct perf_event_attr *attr, uint64_t config, uint64_t period)
{
	sw_attr(attr, config);
	attr->sample_period = period;
	attr->sigtrap = 1;
	attr->remove_on_exec = 1;
	attr->sig_data = SIG_DATA;
}

/* The errno of opening @attr on @pid/@cpu, 0 if it opened. */
static int open_errno(struct perf_event_attr *attr, pid_t pid, int cpu)
{
	int fd = sys_perf_event_open(attr, pid, cpu, -1, 0);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static void write_n(volatile uint64_t *p, int n)
{
	int i;

	for (i = 0; i < n; i++)
		*p = i;
}

static int count_tid(pid_t tid)
{
	int i, n = 0, tot = nsig < MAXSIG ? nsig : MAXSIG;

	for (i = 0; i < tot; i++)
		n += recs[i].tid == tid;
	return n;
}

/* Check every recorded signal against what a perf SIGTRAP should carry. */
static void check_recs(struct __test_metadata *_metadata, int n, unsigned long addr,
		       uint32_t type, unsigned long data, uint32_t flags)
{
	int i;

	for (i = 0; i < n && i < MAXSIG; i++) {
		EXPECT_EQ(SIGTRAP, recs[i].signo);
		EXPECT_EQ(TRAP_PERF, recs[i].code);
		EXPECT_EQ(0, recs[i].err);
		EXPECT_EQ(addr, recs[i].addr);
		EXPECT_EQ(data, recs[i].data);
		EXPECT_EQ(type, recs[i].type);
		EXPECT_EQ(flags, recs[i].flags) TH_LOG("signal %d", i);
	}
}

/* ---- perf_event_open() rules --------------------------------------------- */

/* sigtrap without remove_on_exec is refused with EINVAL. */
TEST(open_sigtrap_needs_remove_on_exec)
{
	struct perf_event_attr attr;

	bp_attr(&attr, &watched, HW_BREAKPOINT_W);
	attr.remove_on_exec = 0;
	EXPECT_EQ(EINVAL, open_errno(&attr, 0, -1));
	sw_sig_attr(&attr, PERF_COUNT_SW_PAGE_FAULTS, 1);
	attr.disabled = 1;
	attr.remove_on_exec = 0;
	EXPECT_EQ(EINVAL, open_errno(&attr, 0, -1));
	attr.remove_on_exec = 1;
	EXPECT_EQ(0, open_errno(&attr, 0, -1));
}

/*
 * inherit_thread without inherit is EINVAL, with or without sigtrap; a
 * sigtrap event may be inherited by children (inherit alone) as well as
 * by threads only.
 */
TEST(open_inherit_rules)
{
	struct perf_event_attr attr;

	bp_attr(&attr, &watched, HW_BREAKPOINT_W);
	attr.inherit_thread = 1;
	EXPECT_EQ(EINVAL, open_errno(&attr, 0, -1));
	attr.sigtrap = 0;
	EXPECT_EQ(EINVAL, open_errno(&attr, 0, -1));
	bp_attr(&attr, &watched, HW_BREAKPOINT_W);
	attr.inherit = 1;
	EXPECT_EQ(0, open_errno(&attr, 0, -1));
	attr.inherit_thread = 1;
	EXPECT_EQ(0, open_errno(&attr, 0, -1));
}

/* remove_on_exec and enable_on_exec together are EINVAL. */
TEST(open_remove_excludes_enable_on_exec)
{
	struct perf_event_attr attr;

	sw_sig_attr(&attr, PERF_COUNT_SW_PAGE_FAULTS, 1);
	attr.disabled = 1;
	attr.enable_on_exec = 1;
	EXPECT_EQ(EINVAL, open_errno(&attr, 0, -1));
	attr.sigtrap = 0;
	EXPECT_EQ(EINVAL, open_errno(&attr, 0, -1));
	attr.remove_on_exec = 0;
	EXPECT_EQ(0, open_errno(&attr, 0, -1));
}

/* A sigtrap event needs a task: CPU-wide sigtrap events are EINVAL. */
TEST(open_sigtrap_needs_task)
{
	struct perf_event_attr attr;

	sw_sig_attr(&attr, PERF_COUNT_SW_PAGE_FAULTS, 1);
	attr.disabled = 1;
	EXPECT_EQ(EINVAL, open_errno(&attr, -1, 0));
	attr.sigtrap = 0;
	EXPECT_EQ(0, open_errno(&attr, -1, 0));
	attr.sigtrap = 1;
	EXPECT_EQ(0, open_errno(&attr, 0, 0));
}

/* What a child with reduced privileges tries to open. */
struct other_req {
	pid_t target;		/* 0: a same-uid process the child forks */
	int dumpable;		/* PR_SET_DUMPABLE for that process */
	int sigtrap;
};

/* Child side: the errno of opening a (disabled) event on the target. */
static int other_open_fn(void *arg)
{
	struct other_req *r = arg;
	struct perf_event_attr attr;
	pid_t target = r->target, pid = 0;
	int p[2], err;

	if (!target) {
		if (prctl(PR_SET_DUMPABLE, r->dumpable, 0, 0, 0) || pipe(p))
			return 253;
		pid = fork_waiter(p);
		if (pid < 0)
			return 253;
		target = pid;
	}
	sw_sig_attr(&attr, PERF_COUNT_SW_PAGE_FAULTS, 1);
	attr.sigtrap = r->sigtrap;
	attr.disabled = 1;
	attr.exclude_kernel = 1;
	err = open_errno(&attr, target, -1);
	if (pid)
		reap_waiter(pid, p[1]);
	return err;
}

/* Root may open sigtrap events on another process. */
TEST(open_other_process_root)
{
	struct perf_event_attr attr;
	int p[2];
	pid_t pid;

	ASSERT_EQ(0, pipe(p));
	pid = fork_waiter(p);
	ASSERT_GT(pid, 0);
	sw_sig_attr(&attr, PERF_COUNT_SW_PAGE_FAULTS, 1);
	attr.disabled = 1;
	EXPECT_EQ(0, open_errno(&attr, pid, -1));
	reap_waiter(pid, p[1]);
}

/*
 * Without capabilities (paranoid 2, user-only events), a sigtrap event
 * opens on a dumpable process of the same uid, and is EACCES on a
 * non-dumpable one or on root's process.  With CAP_PERFMON alone a
 * counting event opens on root's process but a sigtrap one is EACCES;
 * CAP_PERFMON with CAP_KILL opens both.
 */
TEST(open_other_process_unprivileged)
{
	const uint64_t perfmon = 1ULL << CAP_PERFMON, kill = 1ULL << CAP_KILL;
	struct other_req r;
	long saved;

	ASSERT_EQ(0, read_sysctl("perf_event_paranoid", &saved));
	ASSERT_EQ(0, write_sysctl("perf_event_paranoid", 2));

	r = (struct other_req){ .target = 0, .dumpable = 1, .sigtrap = 1 };
	EXPECT_EQ(0, run_unprivileged(other_open_fn, &r));
	r.dumpable = 0;
	EXPECT_EQ(EACCES, run_unprivileged(other_open_fn, &r));
	r.sigtrap = 0;
	EXPECT_EQ(EACCES, run_unprivileged(other_open_fn, &r));

	r = (struct other_req){ .target = getpid(), .sigtrap = 1 };
	EXPECT_EQ(EACCES, run_unprivileged(other_open_fn, &r));
	EXPECT_EQ(EACCES, run_with_caps(perfmon, other_open_fn, &r));
	EXPECT_EQ(EACCES, run_with_caps(kill, other_open_fn, &r));
	EXPECT_EQ(0, run_with_caps(perfmon | kill, other_open_fn, &r));
	r.sigtrap = 0;
	EXPECT_EQ(0, run_with_caps(perfmon, other_open_fn, &r));

	write_sysctl("perf_event_paranoid", saved);
}

/* ---- breakpoints ------------------------------------------------------------ */

/*
 * A write to a watched word raises SIGTRAP with si_code TRAP_PERF,
 * si_errno 0, si_addr the breakpoint address (also for a write to
 * another byte of the watched range), si_perf_data sig_data,
 * si_perf_type PERF_TYPE_BREAKPOINT, si_perf_flags 0, in the writer.
 */
TEST(bp_write_siginfo)
{
	int fd;

	install_trap();
	fd = open_wbp(&watched);
	ASSERT_GE(fd, 0);
	watched = 1;
	ASSERT_EQ(1, nsig);
	((volatile uint8_t *)&watched)[5] = 2;
	ASSERT_EQ(2, nsig);
	check_recs(_metadata, 2, (unsigned long)&watched, PERF_TYPE_BREAKPOINT, SIG_DATA, 0);
	EXPECT_EQ(gettid(), recs[0].tid);
	EXPECT_EQ(2, read_count(fd));
	close(fd);
}

/* A write breakpoint ignores reads; a read/write one fires on both. */
TEST(bp_read_and_rw)
{
	uint64_t sink = 0;
	struct perf_event_attr attr;
	int fd, i;

	install_trap();
	fd = open_wbp(&watched);
	ASSERT_GE(fd, 0);
	for (i = 0; i < 5; i++)
		sink += watched;
	EXPECT_EQ(0, nsig);
	EXPECT_EQ(0, read_count(fd));
	close(fd);

	bp_attr(&attr, &watched, HW_BREAKPOINT_RW);
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(fd, 0);
	for (i = 0; i < 3; i++)
		sink += watched;
	watched = sink;
	EXPECT_EQ(4, nsig);
	check_recs(_metadata, 4, (unsigned long)&watched, PERF_TYPE_BREAKPOINT, SIG_DATA, 0);
	close(fd);
}

static noinline void bp_target_fn(void)
{
	__asm__ volatile("" ::: "memory");
}

/* An execute breakpoint signals once per call, si_addr the function. */
TEST(bp_execute)
{
	struct perf_event_attr attr;
	int fd, i;

	install_trap();
	bp_attr(&attr, (void *)bp_target_fn, HW_BREAKPOINT_X);
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(fd, 0);
	for (i = 0; i < 3; i++)
		bp_target_fn();
	EXPECT_EQ(3, nsig);
	check_recs(_metadata, 3, (unsigned long)bp_target_fn, PERF_TYPE_BREAKPOINT,
		   SIG_DATA, 0);
	EXPECT_EQ(3, read_count(fd));
	close(fd);
}

/* With a period of 1, N writes give exactly N signals and a count of N. */
TEST(bp_period_1)
{
	int fd;

	install_trap();
	fd = open_wbp(&watched);
	ASSERT_GE(fd, 0);
	write_n(&watched, 100);
	EXPECT_EQ(100, nsig);
	EXPECT_EQ(100, read_count(fd));
	check_recs(_metadata, 100, (unsigned long)&watched, PERF_TYPE_BREAKPOINT,
		   SIG_DATA, 0);
	close(fd);
}

/* With a period of k, N writes give N/k signals (and still count N). */
TEST(bp_period_k)
{
	struct perf_event_attr attr;
	int fd;

	install_trap();
	bp_attr(&attr, &watched, HW_BREAKPOINT_W);
	attr.sample_period = 5;
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(fd, 0);
	write_n(&watched, 100);
	EXPECT_EQ(20, nsig);
	EXPECT_EQ(100, read_count(fd));
	write_n(&watched, 4);
	EXPECT_EQ(20, nsig);
	watched = 1;
	EXPECT_EQ(21, nsig);
	close(fd);
}

/* A disabled event sends nothing; enabled it does; disabled again not. */
TEST(bp_disabled_silent)
{
	struct perf_event_attr attr;
	int fd;

	install_trap();
	bp_attr(&attr, &watched, HW_BREAKPOINT_W);
	attr.disabled = 1;
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(fd, 0);
	write_n(&watched, 10);
	EXPECT_EQ(0, nsig);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
	write_n(&watched, 10);
	EXPECT_EQ(10, nsig);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_DISABLE, 0));
	write_n(&watched, 10);
	EXPECT_EQ(10, nsig);
	EXPECT_EQ(10, read_count(fd));
	close(fd);
	install_trap();
	write_n(&watched, 10);
	EXPECT_EQ(0, nsig);
}

/*
 * PERF_EVENT_IOC_REFRESH n enables the event for n overflows: n signals,
 * then the event is disabled (and stops counting).  REFRESH is EINVAL on
 * an inherited event.
 */
TEST(bp_refresh)
{
	struct perf_event_attr attr;
	int fd;

	install_trap();
	bp_attr(&attr, &watched, HW_BREAKPOINT_W);
	attr.disabled = 1;
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_REFRESH, 3));
	write_n(&watched, 10);
	EXPECT_EQ(3, nsig);
	EXPECT_EQ(3, read_count(fd));
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_REFRESH, 2));
	write_n(&watched, 10);
	EXPECT_EQ(5, nsig);
	EXPECT_EQ(5, read_count(fd));
	check_recs(_metadata, 5, (unsigned long)&watched, PERF_TYPE_BREAKPOINT, SIG_DATA, 0);
	close(fd);

	attr.inherit = 1;
	attr.inherit_thread = 1;
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(-1, ioctl(fd, PERF_EVENT_IOC_REFRESH, 1));
	EXPECT_EQ(EINVAL, errno);
	close(fd);
}

/*
 * PERF_EVENT_IOC_MODIFY_ATTRIBUTES: a new sig_data shows in the signals
 * that follow, a new address moves the breakpoint.  Changing the type is
 * EINVAL.
 */
TEST(bp_modify_attributes)
{
	struct perf_event_attr attr;
	int fd;

	install_trap();
	bp_attr(&attr, &watched, HW_BREAKPOINT_W);
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(fd, 0);
	watched = 1;
	ASSERT_EQ(1, nsig);
	EXPECT_EQ(SIG_DATA, recs[0].data);

	attr.sig_data = SIG_DATA2;
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &attr))
		TH_LOG("MODIFY_ATTRIBUTES: %s", strerror(errno));
	watched = 2;
	ASSERT_EQ(2, nsig);
	EXPECT_EQ(SIG_DATA2, recs[1].data);
	EXPECT_EQ((unsigned long)&watched, recs[1].addr);

	attr.bp_addr = (unsigned long)&other_word;
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &attr));
	watched = 3;
	EXPECT_EQ(2, nsig);
	other_word = 3;
	ASSERT_EQ(3, nsig);
	EXPECT_EQ((unsigned long)&other_word, recs[2].addr);
	EXPECT_EQ(SIG_DATA2, recs[2].data);
	EXPECT_EQ(PERF_TYPE_BREAKPOINT, recs[2].type);

	attr.type = PERF_TYPE_SOFTWARE;
	EXPECT_EQ(-1, ioctl(fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &attr));
	EXPECT_EQ(EINVAL, errno);
	close(fd);
}

/* MODIFY_ATTRIBUTES on a software event is EOPNOTSUPP. */
TEST(sw_modify_attributes_unsupported)
{
	struct perf_event_attr attr;
	int fd;

	sw_sig_attr(&attr, PERF_COUNT_SW_PAGE_FAULTS, 1);
	attr.disabled = 1;
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(fd, 0);
	attr.sig_data = SIG_DATA2;
	EXPECT_EQ(-1, ioctl(fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &attr));
	EXPECT_EQ(EOPNOTSUPP, errno);
	close(fd);
}

/*
 * A write by the kernel into the watched word (read(2) from a pipe)
 * signals with exclude_kernel=0 and not with exclude_kernel=1.
 */
TEST(bp_kernel_write)
{
	struct perf_event_attr attr;
	uint64_t v = 42;
	int p[2], fd, k;

	ASSERT_EQ(0, pipe(p));
	for (k = 1; k >= 0; k--) {
		install_trap();
		bp_attr(&attr, &watched, HW_BREAKPOINT_W);
		attr.exclude_kernel = k;
		fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
		ASSERT_GE(fd, 0);
		ASSERT_EQ(8, write(p[1], &v, 8));
		ASSERT_EQ(8, read(p[0], (void *)&watched, 8));
		EXPECT_EQ(42, watched);
		EXPECT_EQ(!k, nsig) TH_LOG("exclude_kernel %d", k);
		EXPECT_EQ(!k, read_count(fd));
		if (nsig)
			check_recs(_metadata, 1, (unsigned long)&watched,
				   PERF_TYPE_BREAKPOINT, SIG_DATA, 0);
		close(fd);
	}
	close(p[0]);
	close(p[1]);
}

/*
 * With SIGTRAP blocked, the signal stays pending (one, however many
 * writes) and is delivered on unblocking with si_perf_flags
 * TRAP_PERF_FLAG_ASYNC; the event counts every write.
 */
TEST(bp_blocked_signal)
{
	sigset_t set, pend;
	int fd;

	install_trap();
	fd = open_wbp(&watched);
	ASSERT_GE(fd, 0);
	alarm(20);
	sigemptyset(&set);
	sigaddset(&set, SIGTRAP);
	ASSERT_EQ(0, sigprocmask(SIG_BLOCK, &set, NULL));
	write_n(&watched, 3);
	EXPECT_EQ(0, nsig);
	ASSERT_EQ(0, sigpending(&pend));
	EXPECT_TRUE(sigismember(&pend, SIGTRAP));
	EXPECT_EQ(3, read_count(fd));
	ASSERT_EQ(0, sigprocmask(SIG_UNBLOCK, &set, NULL));
	EXPECT_EQ(1, nsig);
	check_recs(_metadata, 1, (unsigned long)&watched, PERF_TYPE_BREAKPOINT, SIG_DATA,
		   TRAP_PERF_FLAG_ASYNC);
	watched = 1;
	EXPECT_EQ(2, nsig);
	EXPECT_EQ(0, recs[1].flags);
	alarm(0);
	close(fd);
}

/* With SIGTRAP ignored the writer carries on; the event still counts. */
TEST(bp_ignored_signal)
{
	int fd;

	set_trap_disposition(SIG_IGN);
	fd = open_wbp(&watched);
	ASSERT_GE(fd, 0);
	write_n(&watched, 10);
	EXPECT_EQ(10, read_count(fd));
	close(fd);
}

static int dfl_child(void *arg)
{
	struct rlimit rl = { 0, 0 };

	setrlimit(RLIMIT_CORE, &rl);
	set_trap_disposition(SIG_DFL);
	if (open_wbp(&watched) < 0)
		return 1;
	watched = 1;
	return 0;
}

/* With the default disposition, the signal kills the writer. */
TEST(bp_default_disposition_kills)
{
	int status;
	pid_t pid = fork();

	ASSERT_GE(pid, 0);
	if (pid == 0)
		_exit(dfl_child(NULL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFSIGNALED(status)) TH_LOG("status %#x", status);
	EXPECT_EQ(SIGTRAP, WTERMSIG(status));
}

/* Closing the event stops the signals. */
TEST(bp_close_stops)
{
	int fd;

	install_trap();
	fd = open_wbp(&watched);
	ASSERT_GE(fd, 0);
	watched = 1;
	EXPECT_EQ(1, nsig);
	close(fd);
	write_n(&watched, 5);
	EXPECT_EQ(1, nsig);
}

/* ---- threads and children ------------------------------------------------ */

struct thr {
	pthread_t th;
	pthread_barrier_t *bar;
	volatile uint64_t *word;	/* the word this thread writes */
	volatile uint64_t *other;	/* a word another thread watches */
	int writes;
	int open;			/* open an event on @word first */
	pid_t tid;
	int fd;
	int got;			/* signals this thread received */
};

static void *thr_fn(void *arg)
{
	struct thr *t = arg;

	t->tid = gettid();
	t->fd = -1;
	if (t->open)
		t->fd = open_wbp(t->word);
	pthread_barrier_wait(t->bar);
	write_n(t->word, t->writes);
	if (t->other)
		write_n(t->other, 3);
	pthread_barrier_wait(t->bar);
	t->got = tsig;
	if (t->fd >= 0)
		close(t->fd);
	return NULL;
}

static void run_threads(struct thr *t, int open, int shared)
{
	pthread_barrier_t bar;
	int i;

	pthread_barrier_init(&bar, NULL, NTHREADS);
	for (i = 0; i < NTHREADS; i++) {
		t[i] = (struct thr){ .bar = &bar, .writes = i + 1, .open = open };
		t[i].word = shared ? &watched : tword[i];
		t[i].other = shared ? NULL : tword[(i + 1) % NTHREADS];
		pthread_create(&t[i].th, NULL, thr_fn, &t[i]);
	}
	for (i = 0; i < NTHREADS; i++)
		pthread_join(t[i].th, NULL);
	pthread_barrier_destroy(&bar);
}

/*
 * Per-thread events opened by each thread: each thread gets exactly the
 * signals for its own writes, and writes to a word another thread
 * watches signal nobody.
 */
TEST(threads_own_events)
{
	struct thr t[NTHREADS];
	int i;

	install_trap();
	run_threads(t, 1, 0);
	for (i = 0; i < NTHREADS; i++) {
		EXPECT_GE(t[i].fd, 0);
		EXPECT_EQ(i + 1, t[i].got) TH_LOG("thread %d", i);
		EXPECT_EQ(i + 1, count_tid(t[i].tid));
	}
	EXPECT_EQ(NTHREADS * (NTHREADS + 1) / 2, nsig);
}

/*
 * inherit + inherit_thread: threads created after the open inherit the
 * event, and each gets the signals for its own writes (with the
 * parent's sig_data); the parent's count includes theirs.
 */
TEST(threads_inherit_thread)
{
	struct perf_event_attr attr;
	struct thr t[NTHREADS];
	int i, fd;

	install_trap();
	bp_attr(&attr, &watched, HW_BREAKPOINT_W);
	attr.inherit = 1;
	attr.inherit_thread = 1;
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(fd, 0);
	run_threads(t, 0, 1);
	for (i = 0; i < NTHREADS; i++) {
		EXPECT_EQ(i + 1, t[i].got) TH_LOG("thread %d", i);
		EXPECT_EQ(i + 1, count_tid(t[i].tid));
	}
	EXPECT_EQ(0, tsig);
	EXPECT_EQ(NTHREADS * (NTHREADS + 1) / 2, nsig);
	check_recs(_metadata, nsig, (unsigned long)&watched, PERF_TYPE_BREAKPOINT,
		   SIG_DATA, 0);
	EXPECT_EQ(NTHREADS * (NTHREADS + 1) / 2, read_count(fd));
	close(fd);
}

/* Without inherit, new threads do not signal; the opener still does. */
TEST(threads_no_inherit)
{
	struct thr t[NTHREADS];
	int i, fd;

	install_trap();
	fd = open_wbp(&watched);
	ASSERT_GE(fd, 0);
	run_threads(t, 0, 1);
	for (i = 0; i < NTHREADS; i++)
		EXPECT_EQ(0, t[i].got);
	EXPECT_EQ(0, nsig);
	watched = 1;
	EXPECT_EQ(1, nsig);
	EXPECT_EQ(1, read_count(fd));
	close(fd);
}

/* Fork a child that writes the watched word @n times; its exit status. */
static int child_writes(int n)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		nsig = 0;
		write_n(&watched, n);
		_exit(nsig);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1000 + status;
}

/*
 * A forked child does not inherit an inherit_thread event; it does
 * inherit a plain inherit one and gets the signals itself.
 */
TEST(fork_inheritance)
{
	struct perf_event_attr attr;
	int fd;

	install_trap();
	bp_attr(&attr, &watched, HW_BREAKPOINT_W);
	attr.inherit = 1;
	attr.inherit_thread = 1;
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(0, child_writes(5));
	EXPECT_EQ(0, read_count(fd));
	close(fd);

	attr.inherit_thread = 0;
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(5, child_writes(5));
	EXPECT_EQ(5, read_count(fd));
	EXPECT_EQ(0, nsig);
	close(fd);
}

/*
 * A child cloned with CLONE_CLEAR_SIGHAND does not inherit a sigtrap
 * event (it would die of the SIGTRAP otherwise).
 */
TEST(clone_clear_sighand_not_inherited)
{
	struct clone_args args = {
		.flags = CLONE_CLEAR_SIGHAND,
		.exit_signal = SIGCHLD,
	};
	struct perf_event_attr attr;
	int fd, status;
	pid_t pid;

	install_trap();
	bp_attr(&attr, &watched, HW_BREAKPOINT_W);
	attr.inherit = 1;
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(fd, 0);
	pid = syscall(__NR_clone3, &args, sizeof(args));
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		write_n(&watched, 5);
		_exit(7);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status)) TH_LOG("status %#x", status);
	EXPECT_EQ(7, WEXITSTATUS(status));
	EXPECT_EQ(0, read_count(fd));
	close(fd);
}

/* ---- software events ------------------------------------------------------- */

/*
 * Page faults with a period of 1 (user faults only): one signal per
 * fresh page touched, si_addr the faulting address, si_perf_type
 * PERF_TYPE_SOFTWARE; signals == count.
 */
TEST(sw_page_faults)
{
	struct perf_event_attr attr;
	const int n = 16;
	long psz = page_size();
	char *p = map_anon(n);
	int fd, i, j, hits;

	ASSERT_NE(NULL, p);
	install_trap();
	sw_sig_attr(&attr, PERF_COUNT_SW_PAGE_FAULTS, 1);
	attr.exclude_kernel = 1;
	attr.disabled = 1;
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
	for (i = 0; i < n; i++)
		((volatile char *)p)[i * psz + 8 * i] = 1;
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_DISABLE, 0));
	EXPECT_EQ(n, nsig);
	EXPECT_EQ(nsig, read_count(fd));
	for (i = 0; i < n; i++) {
		hits = 0;
		for (j = 0; j < nsig && j < MAXSIG; j++)
			hits += recs[j].addr == (unsigned long)p + i * psz + 8 * i;
		EXPECT_EQ(1, hits) TH_LOG("page %d", i);
	}
	for (j = 0; j < nsig && j < MAXSIG; j++) {
		EXPECT_EQ(TRAP_PERF, recs[j].code);
		EXPECT_EQ(PERF_TYPE_SOFTWARE, recs[j].type);
		EXPECT_EQ(SIG_DATA, recs[j].data);
		EXPECT_EQ(0, recs[j].flags);
		EXPECT_EQ(gettid(), recs[j].tid);
	}
	close(fd);
	munmap(p, n * psz);
}

/*
 * The task clock with a period of 1 ms signals the running task with
 * si_perf_type PERF_TYPE_SOFTWARE, si_addr 0 and si_perf_flags 0.  (The
 * handler is SA_NODEFER: the clock also runs in the handler, and a
 * signal raised while SIGTRAP is blocked would be flagged async.)
 */
TEST(sw_task_clock)
{
	struct perf_event_attr attr;
	int fd, n;

	install_trap_flags(SA_NODEFER);
	sw_sig_attr(&attr, PERF_COUNT_SW_TASK_CLOCK, 1000000);
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(fd, 0);
	burn_ns(100000000);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_DISABLE, 0));
	n = nsig;
	TH_LOG("%d signals in 100 ms of task clock", n);
	EXPECT_GE(n, 20);
	EXPECT_LE(n, 200);
	check_recs(_metadata, n, 0, PERF_TYPE_SOFTWARE, SIG_DATA, 0);
	sleep_ns(20000000);
	EXPECT_EQ(n, nsig);
	close(fd);
}

/* ---- remove_on_exec ---------------------------------------------------------- */

/*
 * The worker: 'T' touches 4 fresh pages and answers with the number of
 * signals it received, 'E' re-executes this program (which answers once
 * it runs), 'Q' exits.
 */
static void exec_worker(int cfd, int afd, int fresh)
{
	char buf[3][16];
	char c;
	int n;

	if (fresh) {
		n = -1;
		if (write(afd, &n, sizeof(n)) != sizeof(n))
			_exit(1);
	}
	while (read(cfd, &c, 1) == 1) {
		switch (c) {
		case 'T':
			touch_pages(4);
			break;
		case 'E':
			snprintf(buf[0], sizeof(buf[0]), "%d", cfd);
			snprintf(buf[1], sizeof(buf[1]), "%d", afd);
			snprintf(buf[2], sizeof(buf[2]), "sigtrap");
			execl("/proc/self/exe", buf[2], EXEC_FLAG, buf[0], buf[1],
			      (char *)NULL);
			_exit(2);
		default:
			_exit(0);
		}
		n = nsig;
		if (write(afd, &n, sizeof(n)) != sizeof(n))
			_exit(1);
	}
	_exit(0);
}

static void __attribute__((constructor)) exec_helper(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], EXEC_FLAG))
		exec_worker(atoi(argv[2]), atoi(argv[3]), 1);
}

static int worker_cmd(int cfd, int afd, char c)
{
	int n;

	if (write(cfd, &c, 1) != 1 || read(afd, &n, sizeof(n)) != sizeof(n))
		return -1000;
	return n;
}

/*
 * A sigtrap event opened by the parent on a worker signals the worker;
 * after the worker's execve() the event is gone: the parent's fd still
 * reads, but the count no longer moves and the new image (SIGTRAP at its
 * default disposition) is not killed by page faults.
 */
TEST(remove_on_exec)
{
	struct perf_event_attr attr;
	int c[2], a[2], fd, status;
	uint64_t c1, c2, c3;
	pid_t pid;

	install_trap();
	ASSERT_EQ(0, pipe(c));
	ASSERT_EQ(0, pipe(a));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		close(c[1]);
		close(a[0]);
		exec_worker(c[0], a[1], 0);
	}
	close(c[0]);
	close(a[1]);
	sw_sig_attr(&attr, PERF_COUNT_SW_PAGE_FAULTS, 1);
	attr.exclude_kernel = 1;
	fd = sys_perf_event_open(&attr, pid, -1, -1, 0);
	ASSERT_GE(fd, 0);

	EXPECT_GE(worker_cmd(c[1], a[0], 'T'), 4);
	c1 = read_count(fd);
	EXPECT_GE(c1, 4);
	EXPECT_EQ(-1, worker_cmd(c[1], a[0], 'E'));
	c2 = read_count(fd);
	EXPECT_GE(c2, c1);
	EXPECT_EQ(0, worker_cmd(c[1], a[0], 'T'));
	EXPECT_EQ(0, worker_cmd(c[1], a[0], 'T'));
	c3 = read_count(fd);
	EXPECT_EQ(c2, c3);
	TH_LOG("count before exec %llu, after exec %llu, later %llu",
	       (unsigned long long)c1, (unsigned long long)c2, (unsigned long long)c3);
	ASSERT_EQ(1, write(c[1], "Q", 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status)) TH_LOG("status %#x", status);
	EXPECT_EQ(0, WEXITSTATUS(status));
	close(fd);
	close(c[1]);
	close(a[0]);
}

TEST_HARNESS_MAIN
