// SPDX-License-Identifier: GPL-2.0
/*
 * Hardware breakpoints (PERF_TYPE_BREAKPOINT) opened from user space with
 * perf_event_open(2), on x86-64:
 *
 *  - attr parsing: bp_type (W, RW and X are accepted, R alone, EMPTY and
 *    other combinations are not), bp_len (1, 2, 4, 8 for data, exactly
 *    sizeof(long) for X), alignment, kernel addresses and who may use
 *    them, and the order of the slot and parse checks;
 *  - counting: writes, reads, calls, the byte range a breakpoint covers,
 *    accesses made by the kernel, per-task, per-CPU and per-task-per-CPU
 *    events, events on another process;
 *  - samples (IP, TID, ADDR, PERIOD) and SIGTRAP (sigtrap/sig_data);
 *  - inheritance into forked children and threads;
 *  - the four debug-register slots: per task, per CPU, shared between
 *    the two, held by disabled events and by ptrace's DR0..DR3;
 *  - PERF_EVENT_IOC_MODIFY_ATTRIBUTES;
 *  - exclusive groups led by breakpoints.
 *
 * Counts are exact: every access to a watched variable is made by a known
 * instruction of this program.  The variables live in cache lines of their
 * own, so that nothing else the program does touches them.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stddef.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <linux/hw_breakpoint.h>

#include "../kselftest_harness.h"
#include "perf_util.h"
#include "perf_rb.h"

#define BP_TEXT		__section("bp_text")

#define NSLOTS		4		/* DR0..DR3 */
#define RB_PAGES	8
#define MSEC		1000000ULL

/* The start of the direct map and the first byte of the CPU entry area. */
#define KERNEL_ADDR	0xffff888000000000ULL
#define CEA_ADDR	0xfffffe0000000000ULL

#ifndef TRAP_PERF
#define TRAP_PERF	6
#endif

/* Sample type of the sampling tests: IP, {pid, tid}, ADDR, PERIOD. */
#define ST_BP		(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_ADDR | \
			 PERF_SAMPLE_PERIOD)

/* ---- watched variables and the code that touches them ---- */

struct watched {
	volatile uint64_t v;
	char pad[56];
};

static struct watched vars[8] __attribute__((aligned(64)));

#define VAR(i)		(&vars[i].v)
#define QUIET		VAR(7)		/* never watched */
#define ADDR(p)		((uint64_t)(unsigned long)(p))

extern char __start_bp_text[], __stop_bp_text[];

static int in_bp_text(uint64_t ip)
{
	return ip >= ADDR(__start_bp_text) && ip < ADDR(__stop_bp_text);
}

/* Store @v to *@p; returns the address of the instruction after the store. */
static noinline BP_TEXT uint64_t store64(volatile uint64_t *p, uint64_t v)
{
	uint64_t ip;

	asm volatile("movq %2, (%1)\n"
		     "1:\tlea 1b(%%rip), %0"
		     : "=&r"(ip) : "r"(p), "r"(v) : "memory");
	return ip;
}

/* Load *@p; returns the address of the instruction after the load. */
static noinline BP_TEXT uint64_t load64(volatile uint64_t *p)
{
	uint64_t ip, v;

	asm volatile("movq (%2), %1\n"
		     "1:\tlea 1b(%%rip), %0"
		     : "=&r"(ip), "=&r"(v) : "r"(p) : "memory");
	return ip;
}

/* Store one byte at @p; returns the address of the next instruction. */
static noinline BP_TEXT uint64_t store8(volatile void *p)
{
	uint64_t ip;

	asm volatile("movb $1, (%1)\n"
		     "1:\tlea 1b(%%rip), %0"
		     : "=&r"(ip) : "r"(p) : "memory");
	return ip;
}

/* The function that instruction breakpoints watch. */
static noinline BP_TEXT int bp_func(int x)
{
	asm volatile("" : "+r"(x));
	return x * 3 + 1;
}

/* A second one, for moving an instruction breakpoint. */
static noinline BP_TEXT int bp_func2(int x)
{
	asm volatile("" : "+r"(x));
	return x * 5 + 2;
}

static int (*volatile func_ptr)(int) = bp_func;
static int (*volatile func2_ptr)(int) = bp_func2;

/*
 * The emulated CPU the tests run on (QEMU TCG) keeps a data breakpoint's
 * hit flag set after the access that hit it, and reports it again in DR6
 * when another debug register triggers, until an access to the same page
 * misses it.  Every run of accesses to a watched variable therefore ends
 * with a store to QUIET, so that each hit is reported once, as on real
 * hardware.
 */
static void quiet(void)
{
	store64(QUIET, 0);
}

static void write_n(volatile uint64_t *p, int n)
{
	int i;

	for (i = 0; i < n; i++)
		store64(p, i);
	quiet();
}

static void read_n(volatile uint64_t *p, int n)
{
	int i;

	for (i = 0; i < n; i++)
		load64(p);
	quiet();
}

static void call_n(int (*volatile *fp)(int), int n)
{
	int i;

	quiet();
	for (i = 0; i < n; i++)
		(*fp)(i);
}

/* ---- opening breakpoints ---- */

/* A counting breakpoint attr, enabled at open. */
static void bp_attr(struct perf_event_attr *a, uint32_t type, uint64_t addr,
		    uint64_t len)
{
	memset(a, 0, sizeof(*a));
	a->type = PERF_TYPE_BREAKPOINT;
	a->size = sizeof(*a);
	a->bp_type = type;
	a->bp_addr = addr;
	a->bp_len = len;
}

/* Open @a on @pid/@cpu; returns the fd or -errno. */
static int open_attr(struct perf_event_attr *a, pid_t pid, int cpu, int group)
{
	int fd = sys_perf_event_open(a, pid, cpu, group, 0);

	return fd < 0 ? -errno : fd;
}

/* Open a counting breakpoint; returns the fd or -errno. */
static int bp_open(uint32_t type, uint64_t addr, uint64_t len, pid_t pid,
		   int cpu)
{
	struct perf_event_attr a;

	bp_attr(&a, type, addr, len);
	return open_attr(&a, pid, cpu, -1);
}

/* A write breakpoint on the 8 bytes of @p, on the calling task. */
static int bp_w(volatile uint64_t *p)
{
	return bp_open(HW_BREAKPOINT_W, ADDR(p), HW_BREAKPOINT_LEN_8, 0, -1);
}

/* PERF_EVENT_IOC_MODIFY_ATTRIBUTES; returns 0 or -errno. */
static int modify(int fd, struct perf_event_attr *a)
{
	return ioctl(fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, a) ? -errno : 0;
}

/* Close the @n fds of @fds that are open. */
static void close_all(int *fds, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

/* ---- a child process that touches the variables on request ---- */

enum { K_WRITE = 1, K_READ, K_CALL, K_PIN };

struct kcmd {
	int op;
	int idx;
	int n;
};

struct kid {
	pid_t pid;
	int cmd;
	int ack;
};

/* Fork a child that serves kid_do() until kid_stop(); 0 or -1. */
static int kid_start(struct kid *k)
{
	int c[2], a[2];
	struct kcmd m;
	char ok;

	if (pipe(c) || pipe(a))
		return -1;
	k->pid = fork();
	if (k->pid < 0)
		return -1;
	if (k->pid == 0) {
		close(c[1]);
		close(a[0]);
		while (read(c[0], &m, sizeof(m)) == sizeof(m)) {
			ok = 0;
			switch (m.op) {
			case K_WRITE:
				write_n(VAR(m.idx), m.n);
				break;
			case K_READ:
				read_n(VAR(m.idx), m.n);
				break;
			case K_CALL:
				call_n(m.idx ? &func2_ptr : &func_ptr, m.n);
				break;
			case K_PIN:
				ok = pin_to_cpu(m.n) || sched_getcpu() != m.n;
				break;
			}
			if (write(a[1], &ok, 1) != 1)
				break;
		}
		_exit(0);
	}
	close(c[0]);
	close(a[1]);
	k->cmd = c[1];
	k->ack = a[0];
	return 0;
}

/* Have the child run @op on variable @idx @n times; 0 when it did. */
static int kid_do(struct kid *k, int op, int idx, int n)
{
	struct kcmd m = { .op = op, .idx = idx, .n = n };
	char ok = 1;

	if (write(k->cmd, &m, sizeof(m)) != sizeof(m) ||
	    read(k->ack, &ok, 1) != 1)
		return -1;
	return ok;
}

/* Let the child exit and reap it; returns its exit status or -1. */
static int kid_stop(struct kid *k)
{
	close(k->cmd);
	close(k->ack);
	return reap_child(k->pid);
}

/* ---- attr parsing ---- */

/* Write breakpoints of 1, 2, 4 and 8 bytes on aligned addresses open. */
TEST(write_lengths)
{
	static const uint64_t lens[] = { 1, 2, 4, 8 };
	unsigned int i;
	int fd;

	for (i = 0; i < 4; i++) {
		fd = bp_open(HW_BREAKPOINT_W, ADDR(VAR(0)), lens[i], 0, -1);
		ASSERT_GE(fd, 0) TH_LOG("len %llu: %s",
					(unsigned long long)lens[i], strerror(-fd));
		close(fd);
	}
}

/* Read-write breakpoints take the same four lengths. */
TEST(rw_lengths)
{
	static const uint64_t lens[] = { 1, 2, 4, 8 };
	unsigned int i;
	int fd;

	for (i = 0; i < 4; i++) {
		fd = bp_open(HW_BREAKPOINT_RW, ADDR(VAR(0)), lens[i], 0, -1);
		ASSERT_GE(fd, 0) TH_LOG("len %llu: %s",
					(unsigned long long)lens[i], strerror(-fd));
		close(fd);
	}
}

/* x86 cannot break on reads alone: HW_BREAKPOINT_R is EINVAL. */
TEST(read_only_refused)
{
	EXPECT_EQ(-EINVAL, bp_open(HW_BREAKPOINT_R, ADDR(VAR(0)), 8, 0, -1));
	EXPECT_EQ(-EINVAL, bp_open(HW_BREAKPOINT_R, ADDR(VAR(0)), 1, 0, -1));
}

/* HW_BREAKPOINT_EMPTY (0) is EINVAL. */
TEST(empty_type_refused)
{
	EXPECT_EQ(-EINVAL, bp_open(HW_BREAKPOINT_EMPTY, ADDR(VAR(0)), 8, 0, -1));
}

/* Execute combined with data bits, and unknown bits, are EINVAL. */
TEST(invalid_type_bits_refused)
{
	static const uint32_t types[] = {
		HW_BREAKPOINT_INVALID, HW_BREAKPOINT_W | HW_BREAKPOINT_X,
		HW_BREAKPOINT_R | HW_BREAKPOINT_X, 8, 16, HW_BREAKPOINT_W | 8,
		0x80000000u,
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(types); i++)
		EXPECT_EQ(-EINVAL, bp_open(types[i], ADDR(VAR(0)), 8, 0, -1))
			TH_LOG("bp_type %#x", types[i]);
}

/* An instruction breakpoint needs bp_len == sizeof(long), else EINVAL. */
TEST(exec_needs_long_len)
{
	static const uint64_t bad[] = { 0, 1, 2, 4, 16 };
	unsigned int i;
	int fd;

	fd = bp_open(HW_BREAKPOINT_X, ADDR(bp_func), sizeof(long), 0, -1);
	ASSERT_GE(fd, 0);
	close(fd);
	for (i = 0; i < 5; i++)
		EXPECT_EQ(-EINVAL, bp_open(HW_BREAKPOINT_X, ADDR(bp_func),
					   bad[i], 0, -1))
			TH_LOG("len %llu", (unsigned long long)bad[i]);
}

/* Instruction breakpoints have no alignment rule: any address will do. */
TEST(exec_any_alignment)
{
	int off, fd;

	for (off = 1; off < 8; off++) {
		fd = bp_open(HW_BREAKPOINT_X, ADDR(bp_func) + off, 8, 0, -1);
		ASSERT_GE(fd, 0) TH_LOG("offset %d: %s", off, strerror(-fd));
		close(fd);
	}
}

/* Data lengths other than powers of two up to 8 are EINVAL. */
TEST(bad_data_lengths)
{
	static const uint64_t bad[] = { 0, 3, 5, 6, 7, 9, 12, 24 };
	unsigned int i;

	for (i = 0; i < 8; i++) {
		EXPECT_EQ(-EINVAL, bp_open(HW_BREAKPOINT_W, ADDR(VAR(0)),
					   bad[i], 0, -1))
			TH_LOG("W len %llu", (unsigned long long)bad[i]);
		EXPECT_EQ(-EINVAL, bp_open(HW_BREAKPOINT_RW, ADDR(VAR(0)),
					   bad[i], 0, -1))
			TH_LOG("RW len %llu", (unsigned long long)bad[i]);
	}
}

/*
 * Larger powers of two would be AMD range breakpoints: without that CPU
 * feature they are EOPNOTSUPP when aligned, EINVAL when not.
 */
TEST(range_lengths_unsupported)
{
	uint64_t base = ADDR(vars) & ~63ULL;

	EXPECT_EQ(-EOPNOTSUPP, bp_open(HW_BREAKPOINT_W, base, 16, 0, -1));
	EXPECT_EQ(-EOPNOTSUPP, bp_open(HW_BREAKPOINT_W, base, 64, 0, -1));
	EXPECT_EQ(-EINVAL, bp_open(HW_BREAKPOINT_W, base + 8, 16, 0, -1));
}

/* bp_addr must be a multiple of bp_len: EINVAL otherwise. */
TEST(misaligned_refused)
{
	uint64_t a = ADDR(VAR(0));
	int off, fd;

	for (off = 0; off < 8; off++) {
		fd = bp_open(HW_BREAKPOINT_W, a + off, 1, 0, -1);
		ASSERT_GE(fd, 0);
		close(fd);
	}
	EXPECT_EQ(-EINVAL, bp_open(HW_BREAKPOINT_W, a + 1, 2, 0, -1));
	EXPECT_EQ(-EINVAL, bp_open(HW_BREAKPOINT_W, a + 2, 4, 0, -1));
	EXPECT_EQ(-EINVAL, bp_open(HW_BREAKPOINT_W, a + 6, 4, 0, -1));
	EXPECT_EQ(-EINVAL, bp_open(HW_BREAKPOINT_W, a + 4, 8, 0, -1));
	EXPECT_EQ(-EINVAL, bp_open(HW_BREAKPOINT_RW, a + 1, 8, 0, -1));
	fd = bp_open(HW_BREAKPOINT_W, a + 4, 4, 0, -1);
	ASSERT_GE(fd, 0);
	close(fd);
}

/* Address 0 is a user address like any other. */
TEST(address_zero_allowed)
{
	int fd;

	fd = bp_open(HW_BREAKPOINT_W, 0, 8, 0, -1);
	ASSERT_GE(fd, 0) TH_LOG("W at 0: %s", strerror(-fd));
	close(fd);
	fd = bp_open(HW_BREAKPOINT_X, 0, 8, 0, -1);
	ASSERT_GE(fd, 0) TH_LOG("X at 0: %s", strerror(-fd));
	close(fd);
}

/* Whether the kernel has kprobes (root reads kernel symbols). */
static int have_kprobes(void)
{
	return ksym_addr("register_kprobe") != 0;
}

/*
 * root may watch a kernel address, but not with exclude_kernel (EINVAL).
 * Instruction breakpoints on kernel addresses go where kprobes may go:
 * nowhere without kprobes (EINVAL), not on the kprobes blacklist (the
 * entry code, for one) with them.
 */
TEST(kernel_address_root)
{
	struct perf_event_attr a;
	int fd;

	bp_attr(&a, HW_BREAKPOINT_W, KERNEL_ADDR, 8);
	fd = open_attr(&a, 0, -1, -1);
	ASSERT_GE(fd, 0) TH_LOG("%s", strerror(-fd));
	close(fd);
	a.exclude_kernel = 1;
	EXPECT_EQ(-EINVAL, open_attr(&a, 0, -1, -1));
	bp_attr(&a, HW_BREAKPOINT_RW, KERNEL_ADDR, 1);
	a.exclude_kernel = 1;
	EXPECT_EQ(-EINVAL, open_attr(&a, 0, -1, -1));
	bp_attr(&a, HW_BREAKPOINT_X, KERNEL_ADDR, 8);
	if (!have_kprobes()) {
		EXPECT_EQ(-EINVAL, open_attr(&a, 0, -1, -1));
		return;
	}
	fd = open_attr(&a, 0, -1, -1);
	EXPECT_GE(fd, 0) TH_LOG("%s", strerror(-fd));
	if (fd >= 0)
		close(fd);
	ASSERT_NE(0, ksym_addr("entry_SYSCALL_64"));
	bp_attr(&a, HW_BREAKPOINT_X, ksym_addr("entry_SYSCALL_64"), 8);
	EXPECT_EQ(-EINVAL, open_attr(&a, 0, -1, -1));
}

/* The CPU entry area cannot be watched, even by root: EINVAL. */
TEST(cpu_entry_area_refused)
{
	EXPECT_EQ(-EINVAL, bp_open(HW_BREAKPOINT_W, CEA_ADDR, 8, 0, -1));
	EXPECT_EQ(-EINVAL, bp_open(HW_BREAKPOINT_RW, CEA_ADDR + 64, 8, 0, -1));
}

/* A breakpoint PMU does not record branch stacks: EOPNOTSUPP. */
TEST(branch_stack_refused)
{
	struct perf_event_attr a;

	bp_attr(&a, HW_BREAKPOINT_W, ADDR(VAR(0)), 8);
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_BRANCH_STACK;
	a.branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER;
	EXPECT_EQ(-EOPNOTSUPP, open_attr(&a, 0, -1, -1));
}

/*
 * The slot is reserved before the attr is parsed: with four breakpoints
 * open, a bad bp_len or a misaligned address gets ENOSPC, while an empty
 * bp_type is refused first (EINVAL).
 */
TEST(slots_checked_before_parse)
{
	int fds[NSLOTS], i;

	for (i = 0; i < NSLOTS; i++) {
		fds[i] = bp_w(VAR(i));
		ASSERT_GE(fds[i], 0);
	}
	EXPECT_EQ(-ENOSPC, bp_open(HW_BREAKPOINT_W, ADDR(VAR(4)), 3, 0, -1));
	EXPECT_EQ(-ENOSPC, bp_open(HW_BREAKPOINT_W, ADDR(VAR(4)) + 1, 8, 0, -1));
	EXPECT_EQ(-ENOSPC, bp_open(HW_BREAKPOINT_R, ADDR(VAR(4)), 8, 0, -1));
	EXPECT_EQ(-EINVAL, bp_open(HW_BREAKPOINT_EMPTY, ADDR(VAR(4)), 8, 0, -1));
	EXPECT_EQ(-EINVAL, bp_open(HW_BREAKPOINT_INVALID, ADDR(VAR(4)), 8, 0, -1));
	close_all(fds, NSLOTS);
}

/* ---- unprivileged users ---- */

FIXTURE(unpriv) {
	long paranoid;
};

FIXTURE_SETUP(unpriv)
{
	ASSERT_EQ(0, read_sysctl("perf_event_paranoid", &self->paranoid));
}

FIXTURE_TEARDOWN(unpriv)
{
	write_sysctl("perf_event_paranoid", self->paranoid);
}

struct open_req {
	uint32_t type;
	uint64_t addr;
	uint64_t len;
	int exclude_kernel;
};

/* In the unprivileged child: 0 if the open works, else its errno. */
static int open_req_fn(void *arg)
{
	struct open_req *r = arg;
	struct perf_event_attr a;
	int fd;

	bp_attr(&a, r->type, r->addr, r->len);
	a.exclude_kernel = r->exclude_kernel;
	fd = open_attr(&a, 0, -1, -1);
	if (fd < 0)
		return -fd;
	close(fd);
	return 0;
}

/* Watching a kernel address needs CAP_SYS_ADMIN: EPERM without it. */
TEST_F(unpriv, kernel_address_eperm)
{
	struct open_req r = { HW_BREAKPOINT_W, KERNEL_ADDR, 8, 0 };

	ASSERT_EQ(0, write_sysctl("perf_event_paranoid", -1));
	EXPECT_EQ(EPERM, run_unprivileged(open_req_fn, &r));
	r.type = HW_BREAKPOINT_RW;
	r.len = 1;
	EXPECT_EQ(EPERM, run_unprivileged(open_req_fn, &r));
	/* Without kprobes, X on a kernel address is EINVAL, before EPERM. */
	r.type = HW_BREAKPOINT_X;
	r.len = 8;
	EXPECT_EQ(have_kprobes() ? EPERM : EINVAL, run_unprivileged(open_req_fn, &r));
	/* The same user may watch its own memory. */
	r.type = HW_BREAKPOINT_W;
	r.addr = ADDR(VAR(0));
	EXPECT_EQ(0, run_unprivileged(open_req_fn, &r));
}

/* With exclude_kernel a kernel address is EINVAL, before the EPERM. */
TEST_F(unpriv, kernel_address_exclude_kernel)
{
	struct open_req r = { HW_BREAKPOINT_W, KERNEL_ADDR, 8, 1 };

	ASSERT_EQ(0, write_sysctl("perf_event_paranoid", 2));
	EXPECT_EQ(EINVAL, run_unprivileged(open_req_fn, &r));
	ASSERT_EQ(0, write_sysctl("perf_event_paranoid", -1));
	EXPECT_EQ(EINVAL, run_unprivileged(open_req_fn, &r));
}

/* At paranoid 2, exclude_kernel=0 is refused by the core first: EACCES. */
TEST_F(unpriv, paranoid_before_address)
{
	struct open_req r = { HW_BREAKPOINT_W, KERNEL_ADDR, 8, 0 };

	ASSERT_EQ(0, write_sysctl("perf_event_paranoid", 2));
	EXPECT_EQ(EACCES, run_unprivileged(open_req_fn, &r));
	r.addr = ADDR(VAR(0));
	EXPECT_EQ(EACCES, run_unprivileged(open_req_fn, &r));
}

/* In the unprivileged child: 0 if a user-only W breakpoint counts 10. */
static int count_own_fn(void *arg)
{
	struct perf_event_attr a;
	uint64_t c;
	int fd;

	bp_attr(&a, HW_BREAKPOINT_W, ADDR(VAR(0)), 8);
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	fd = open_attr(&a, 0, -1, -1);
	if (fd < 0)
		return -fd;
	write_n(VAR(0), 10);
	c = read_count(fd);
	close(fd);
	return c == 10 ? 0 : 100;
}

/* An unprivileged user counts writes to its own memory. */
TEST_F(unpriv, user_counts_own_writes)
{
	ASSERT_EQ(0, write_sysctl("perf_event_paranoid", 2));
	EXPECT_EQ(0, run_unprivileged(count_own_fn, NULL));
}

/* ---- counting ---- */

/* A W breakpoint counts each write exactly once, and no reads. */
TEST(write_counts_writes)
{
	int fd = bp_w(VAR(0));

	ASSERT_GE(fd, 0);
	EXPECT_EQ(0, read_count(fd));
	write_n(VAR(0), 37);
	EXPECT_EQ(37, read_count(fd));
	read_n(VAR(0), 20);
	EXPECT_EQ(37, read_count(fd));
	write_n(VAR(1), 20);
	EXPECT_EQ(37, read_count(fd));
	close(fd);
}

/* An RW breakpoint counts reads and writes. */
TEST(rw_counts_reads_and_writes)
{
	int fd = bp_open(HW_BREAKPOINT_RW, ADDR(VAR(0)), 8, 0, -1);

	ASSERT_GE(fd, 0);
	write_n(VAR(0), 13);
	EXPECT_EQ(13, read_count(fd));
	read_n(VAR(0), 29);
	EXPECT_EQ(42, read_count(fd));
	read_n(VAR(1), 10);
	EXPECT_EQ(42, read_count(fd));
	close(fd);
}

/* An X breakpoint on a function counts its calls. */
TEST(exec_counts_calls)
{
	int fd = bp_open(HW_BREAKPOINT_X, ADDR(bp_func), 8, 0, -1);

	ASSERT_GE(fd, 0);
	call_n(&func_ptr, 25);
	EXPECT_EQ(25, read_count(fd));
	call_n(&func2_ptr, 25);
	EXPECT_EQ(25, read_count(fd));
	/* Reading and writing the code bytes does not count. */
	EXPECT_NE(0, *(volatile unsigned char *)bp_func);
	EXPECT_EQ(25, read_count(fd));
	close(fd);
}

/* A breakpoint covers exactly bp_len bytes from bp_addr. */
TEST(len_covers_range)
{
	volatile unsigned char *b = (volatile unsigned char *)VAR(0);
	int fd, i;

	fd = bp_open(HW_BREAKPOINT_W, ADDR(b) + 4, 2, 0, -1);
	ASSERT_GE(fd, 0);
	for (i = 0; i < 8; i++)
		store8(b + i);
	EXPECT_EQ(2, read_count(fd));
	/* An 8-byte store overlapping the range counts once. */
	store64(VAR(0), 1);
	EXPECT_EQ(3, read_count(fd));
	close(fd);
}

/* exclude_user: writes from user space are not counted. */
TEST(exclude_user_counts_no_user_writes)
{
	struct perf_event_attr a;
	int fd;

	bp_attr(&a, HW_BREAKPOINT_W, ADDR(VAR(0)), 8);
	a.exclude_user = 1;
	fd = open_attr(&a, 0, -1, -1);
	ASSERT_GE(fd, 0);
	write_n(VAR(0), 10);
	EXPECT_EQ(0, read_count(fd));
	close(fd);
}

/* Let the kernel write 8 bytes to VAR(0) (read() from a pipe); 0 or -1. */
static int kernel_writes_var(void)
{
	char buf[8] = "abcdefg";
	int p[2], ret = -1;

	if (pipe(p))
		return -1;
	if (write(p[1], buf, 8) == 8 && read(p[0], (void *)VAR(0), 8) == 8)
		ret = 0;
	close(p[0]);
	close(p[1]);
	return ret;
}

/*
 * The kernel writing to a watched user address (read() from a pipe) hits
 * the breakpoint in kernel mode: counted once, unless exclude_kernel.
 * With exclude_user it is counted as well.
 */
TEST(kernel_write_to_user_address)
{
	static const int excl[3][2] = { { 0, 0 }, { 0, 1 }, { 1, 0 } };
	static const uint64_t want[3] = { 1, 0, 1 };
	struct perf_event_attr a;
	int fd, i;

	for (i = 0; i < 3; i++) {
		bp_attr(&a, HW_BREAKPOINT_W, ADDR(VAR(0)) + 3, 1);
		a.exclude_user = excl[i][0];
		a.exclude_kernel = excl[i][1];
		fd = open_attr(&a, 0, -1, -1);
		ASSERT_GE(fd, 0);
		ASSERT_EQ(0, kernel_writes_var());
		EXPECT_EQ(want[i], read_count(fd))
			TH_LOG("exclude_user %d exclude_kernel %d",
			       excl[i][0], excl[i][1]);
		close(fd);
	}
}

/* Disabled at open, a breakpoint counts only while enabled. */
TEST(enable_disable_reset)
{
	struct perf_event_attr a;
	int fd;

	bp_attr(&a, HW_BREAKPOINT_W, ADDR(VAR(0)), 8);
	a.disabled = 1;
	fd = open_attr(&a, 0, -1, -1);
	ASSERT_GE(fd, 0);
	write_n(VAR(0), 5);
	EXPECT_EQ(0, read_count(fd));
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
	write_n(VAR(0), 7);
	EXPECT_EQ(7, read_count(fd));
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_DISABLE, 0));
	write_n(VAR(0), 3);
	EXPECT_EQ(7, read_count(fd));
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_RESET, 0));
	EXPECT_EQ(0, read_count(fd));
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
	write_n(VAR(0), 4);
	EXPECT_EQ(4, read_count(fd));
	close(fd);
}

/* Breakpoints on two variables count their own variable's writes. */
TEST(two_variables_count_apart)
{
	int a = bp_w(VAR(0));
	int b = bp_open(HW_BREAKPOINT_RW, ADDR(VAR(1)), 1, 0, -1);

	ASSERT_GE(a, 0);
	ASSERT_GE(b, 0);
	write_n(VAR(0), 11);
	write_n(VAR(1), 6);
	read_n(VAR(1), 4);
	EXPECT_EQ(11, read_count(a));
	EXPECT_EQ(10, read_count(b));
	close(b);
	close(a);
}

/*
 * A breakpoint on another process counts that process's accesses only,
 * although both use the same virtual address.
 */
TEST(other_task_counts_that_task_only)
{
	struct kid k;
	int fd;

	ASSERT_EQ(0, kid_start(&k));
	fd = bp_open(HW_BREAKPOINT_W, ADDR(VAR(0)), 8, k.pid, -1);
	ASSERT_GE(fd, 0);
	write_n(VAR(0), 10);
	EXPECT_EQ(0, read_count(fd));
	ASSERT_EQ(0, kid_do(&k, K_WRITE, 0, 17));
	EXPECT_EQ(17, read_count(fd));
	ASSERT_EQ(0, kid_do(&k, K_WRITE, 1, 5));
	write_n(VAR(0), 10);
	EXPECT_EQ(17, read_count(fd));
	EXPECT_EQ(0, kid_stop(&k));
	/* The count survives the task. */
	EXPECT_EQ(17, read_count(fd));
	close(fd);
}

/* Without inherit, a breakpoint on self does not follow fork. */
TEST(no_inherit_not_in_child)
{
	struct kid k;
	int fd = bp_w(VAR(0));

	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, kid_start(&k));
	ASSERT_EQ(0, kid_do(&k, K_WRITE, 0, 9));
	EXPECT_EQ(0, kid_stop(&k));
	write_n(VAR(0), 2);
	EXPECT_EQ(2, read_count(fd));
	close(fd);
}

/* Without inherit, a thread's writes are not counted. */
static void *thread_writes(void *arg)
{
	write_n(VAR(0), (int)(long)arg);
	return NULL;
}

TEST(no_inherit_not_in_thread)
{
	pthread_t t;
	int fd = bp_w(VAR(0));

	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, pthread_create(&t, NULL, thread_writes, (void *)8L));
	ASSERT_EQ(0, pthread_join(t, NULL));
	EXPECT_EQ(0, read_count(fd));
	close(fd);
}

/*
 * A CPU-wide breakpoint (pid -1) counts any task's accesses to that
 * virtual address on that CPU, and nothing on other CPUs.
 */
TEST(per_cpu_counts_on_that_cpu)
{
	struct kid k;
	int fd;

	if (nr_cpus() < 2)
		SKIP(return, "needs two CPUs");
	fd = bp_open(HW_BREAKPOINT_W, ADDR(VAR(0)), 8, -1, 0);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, pin_to_cpu(0));
	write_n(VAR(0), 12);
	EXPECT_EQ(12, read_count(fd));
	ASSERT_EQ(0, pin_to_cpu(1));
	write_n(VAR(0), 12);
	EXPECT_EQ(12, read_count(fd));
	ASSERT_EQ(0, kid_start(&k));
	ASSERT_EQ(0, kid_do(&k, K_PIN, 0, 0));
	ASSERT_EQ(0, kid_do(&k, K_WRITE, 0, 6));
	EXPECT_EQ(18, read_count(fd));
	ASSERT_EQ(0, kid_do(&k, K_PIN, 0, 1));
	ASSERT_EQ(0, kid_do(&k, K_WRITE, 0, 6));
	EXPECT_EQ(18, read_count(fd));
	EXPECT_EQ(0, kid_stop(&k));
	close(fd);
}

/* A task breakpoint bound to one CPU counts only while it runs there. */
TEST(task_on_one_cpu)
{
	int fd;

	if (nr_cpus() < 2)
		SKIP(return, "needs two CPUs");
	fd = bp_open(HW_BREAKPOINT_W, ADDR(VAR(0)), 8, 0, 1);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, pin_to_cpu(0));
	write_n(VAR(0), 9);
	EXPECT_EQ(0, read_count(fd));
	ASSERT_EQ(0, pin_to_cpu(1));
	write_n(VAR(0), 9);
	EXPECT_EQ(9, read_count(fd));
	close(fd);
}

/* ---- samples ---- */

struct bp_sample {
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t addr;
	uint64_t period;
	uint16_t misc;
};

#define MAX_SAMPLES	256

/*
 * Decode up to @max samples of @rb, of sample_type ST_BP, or ST_BP without
 * PERIOD if @period is 0; returns how many, or -1 if they are malformed.
 */
static int get_samples_st(struct perf_rb *rb, int period, struct bp_sample *s,
			  int max)
{
	struct perf_event_header *h;
	struct rec_cur c;
	int n = 0;

	if (rb_fetch(rb) < 0)
		return -1;
	rb_rewind(rb);
	while ((h = rb_next(rb))) {
		if (h->type != PERF_RECORD_SAMPLE)
			continue;
		if (n == max)
			return -1;
		c = rc_init(h);
		s[n].misc = h->misc;
		s[n].ip = rc_u64(&c);
		s[n].pid = rc_u32(&c);
		s[n].tid = rc_u32(&c);
		s[n].addr = rc_u64(&c);
		s[n].period = period ? rc_u64(&c) : 0;
		if (!rc_ok(&c) || rc_left(&c))
			return -1;
		n++;
	}
	return n;
}

static int get_samples(struct perf_rb *rb, struct bp_sample *s, int max)
{
	return get_samples_st(rb, 1, s, max);
}

/* A disabled sampling breakpoint, period @period. */
static int open_sampler(uint32_t type, uint64_t addr, uint64_t len,
			uint64_t period)
{
	struct perf_event_attr a;

	bp_attr(&a, type, addr, len);
	a.sample_period = period;
	a.sample_type = ST_BP;
	a.disabled = 1;
	return open_attr(&a, 0, -1, -1);
}

static struct bp_sample ss[MAX_SAMPLES];

/*
 * Data breakpoints are traps: one sample per write, IP the instruction
 * after the store (inside the storing function), ADDR bp_addr, PERIOD 1.
 */
TEST(write_samples)
{
	uint64_t ip[40];
	struct perf_rb rb;
	int fd, n, i;

	fd = open_sampler(HW_BREAKPOINT_W, ADDR(VAR(0)), 8, 1);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, rb_map(&rb, fd, RB_PAGES));
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
	for (i = 0; i < 40; i++)
		ip[i] = store64(VAR(0), i);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_DISABLE, 0));
	n = get_samples(&rb, ss, MAX_SAMPLES);
	ASSERT_EQ(40, n);
	EXPECT_EQ(40, read_count(fd));
	for (i = 0; i < n; i++) {
		EXPECT_EQ(ip[i], ss[i].ip);
		EXPECT_TRUE(in_bp_text(ss[i].ip));
		EXPECT_GT(ss[i].ip, ADDR(store64));
		EXPECT_EQ(ADDR(VAR(0)), ss[i].addr);
		EXPECT_EQ((uint32_t)getpid(), ss[i].pid);
		EXPECT_EQ((uint32_t)gettid(), ss[i].tid);
		EXPECT_EQ(1, ss[i].period);
		EXPECT_EQ(PERF_RECORD_MISC_USER,
			  ss[i].misc & PERF_RECORD_MISC_CPUMODE_MASK);
		if (_metadata->exit_code == KSFT_FAIL)
			break;
	}
	rb_unmap(&rb);
	close(fd);
}

/* Reads under an RW breakpoint: IP is the instruction after the load. */
TEST(read_samples)
{
	uint64_t ip[20];
	struct perf_rb rb;
	int fd, n, i;

	fd = open_sampler(HW_BREAKPOINT_RW, ADDR(VAR(0)), 8, 1);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, rb_map(&rb, fd, RB_PAGES));
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
	for (i = 0; i < 20; i++)
		ip[i] = load64(VAR(0));
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_DISABLE, 0));
	n = get_samples(&rb, ss, MAX_SAMPLES);
	ASSERT_EQ(20, n);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(ip[i], ss[i].ip);
		EXPECT_EQ(ADDR(VAR(0)), ss[i].addr);
	}
	rb_unmap(&rb);
	close(fd);
}

/* Instruction breakpoints are faults: IP is the watched instruction. */
TEST(exec_samples)
{
	struct perf_rb rb;
	int fd, n, i;

	fd = open_sampler(HW_BREAKPOINT_X, ADDR(bp_func), 8, 1);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, rb_map(&rb, fd, RB_PAGES));
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
	call_n(&func_ptr, 15);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_DISABLE, 0));
	n = get_samples(&rb, ss, MAX_SAMPLES);
	ASSERT_EQ(15, n);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(ADDR(bp_func), ss[i].ip);
		EXPECT_EQ(ADDR(bp_func), ss[i].addr);
		EXPECT_EQ(1, ss[i].period);
	}
	rb_unmap(&rb);
	close(fd);
}

/* ADDR is bp_addr, not the byte that was accessed. */
TEST(sample_addr_is_bp_addr)
{
	volatile unsigned char *b = (volatile unsigned char *)VAR(0);
	struct perf_rb rb;
	uint64_t ip;
	int fd, n;

	fd = open_sampler(HW_BREAKPOINT_W, ADDR(VAR(0)), 8, 1);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, rb_map(&rb, fd, RB_PAGES));
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
	ip = store8(b + 5);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_DISABLE, 0));
	n = get_samples(&rb, ss, MAX_SAMPLES);
	ASSERT_EQ(1, n);
	EXPECT_EQ(ADDR(VAR(0)), ss[0].addr);
	EXPECT_EQ(ip, ss[0].ip);
	rb_unmap(&rb);
	close(fd);
}

/* With sample_period 3, every third hit is a sample. */
TEST(sample_period_three)
{
	struct perf_event_attr a;
	struct perf_rb rb;
	int fd, n;

	bp_attr(&a, HW_BREAKPOINT_W, ADDR(VAR(0)), 8);
	a.sample_period = 3;
	a.sample_type = ST_BP & ~PERF_SAMPLE_PERIOD;
	a.disabled = 1;
	fd = open_attr(&a, 0, -1, -1);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, rb_map(&rb, fd, RB_PAGES));
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
	write_n(VAR(0), 31);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_DISABLE, 0));
	n = get_samples_st(&rb, 0, ss, MAX_SAMPLES);
	EXPECT_EQ(10, n);
	EXPECT_EQ(31, read_count(fd));
	rb_unmap(&rb);
	close(fd);
}

/*
 * With PERF_SAMPLE_PERIOD in sample_type (and no freq), a breakpoint
 * writes a sample for every hit, of period 1, whatever sample_period is.
 */
TEST(sample_period_ignored_with_period_sampled)
{
	struct perf_rb rb;
	int fd, n, i;

	fd = open_sampler(HW_BREAKPOINT_W, ADDR(VAR(0)), 8, 3);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, rb_map(&rb, fd, RB_PAGES));
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
	write_n(VAR(0), 31);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_DISABLE, 0));
	n = get_samples(&rb, ss, MAX_SAMPLES);
	ASSERT_EQ(31, n);
	for (i = 0; i < n; i++)
		EXPECT_EQ(1, ss[i].period);
	EXPECT_EQ(31, read_count(fd));
	rb_unmap(&rb);
	close(fd);
}

/* ---- SIGTRAP ---- */

static volatile int trap_count;
static volatile int trap_code;
static volatile uint64_t trap_data, trap_addr;
static volatile uint32_t trap_type;

/* The perf fields that follow si_addr in the kernel's siginfo. */
static void on_trap(int sig, siginfo_t *info, void *uc)
{
	const char *f = (const char *)&info->si_addr + sizeof(void *);
	uint64_t data;
	uint32_t type;

	memcpy(&data, f, sizeof(data));
	memcpy(&type, f + sizeof(unsigned long), sizeof(type));
	trap_code = info->si_code;
	trap_addr = ADDR(info->si_addr);
	trap_data = data;
	trap_type = type;
	trap_count++;
}

static void trap_attr(struct perf_event_attr *a, uint64_t sig_data)
{
	bp_attr(a, HW_BREAKPOINT_W, ADDR(VAR(0)), 8);
	a->sample_period = 1;
	a->sigtrap = 1;
	a->remove_on_exec = 1;
	a->sig_data = sig_data;
}

static void catch_traps(void)
{
	struct sigaction sa = { .sa_sigaction = on_trap, .sa_flags = SA_SIGINFO };

	sigaction(SIGTRAP, &sa, NULL);
	trap_count = 0;
}

/*
 * sigtrap: each hit sends SIGTRAP with si_code TRAP_PERF, the event type
 * and sig_data, and si_addr the breakpoint address.
 */
TEST(sigtrap_on_hit)
{
	struct perf_event_attr a;
	int fd;

	catch_traps();
	trap_attr(&a, 0x1234567890abcdefULL);
	fd = open_attr(&a, 0, -1, -1);
	ASSERT_GE(fd, 0);
	write_n(VAR(0), 3);
	EXPECT_EQ(3, trap_count);
	EXPECT_EQ(TRAP_PERF, trap_code);
	EXPECT_EQ(PERF_TYPE_BREAKPOINT, trap_type);
	EXPECT_EQ(0x1234567890abcdefULL, trap_data);
	EXPECT_EQ(ADDR(VAR(0)), trap_addr);
	EXPECT_EQ(3, read_count(fd));
	close(fd);
}

/* ---- inheritance ---- */

/*
 * inherit: a forked child's writes are counted; the parent's read sums
 * the live child's count already, and keeps it after the child exits.
 */
TEST(inherit_forked_child)
{
	struct perf_event_attr a;
	struct kid k;
	int fd;

	bp_attr(&a, HW_BREAKPOINT_W, ADDR(VAR(0)), 8);
	a.inherit = 1;
	fd = open_attr(&a, 0, -1, -1);
	ASSERT_GE(fd, 0);
	write_n(VAR(0), 3);
	ASSERT_EQ(0, kid_start(&k));
	ASSERT_EQ(0, kid_do(&k, K_WRITE, 0, 20));
	EXPECT_EQ(23, read_count(fd));
	EXPECT_EQ(0, kid_stop(&k));
	EXPECT_EQ(23, read_count(fd));
	write_n(VAR(0), 1);
	EXPECT_EQ(24, read_count(fd));
	close(fd);
}

/* inherit: writes of threads count too, before and after they exit. */
TEST(inherit_threads)
{
	struct perf_event_attr a;
	pthread_t t[3];
	int fd, i;

	bp_attr(&a, HW_BREAKPOINT_W, ADDR(VAR(0)), 8);
	a.inherit = 1;
	fd = open_attr(&a, 0, -1, -1);
	ASSERT_GE(fd, 0);
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, pthread_create(&t[i], NULL, thread_writes,
					    (void *)(long)(5 + i)));
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, pthread_join(t[i], NULL));
	write_n(VAR(0), 4);
	EXPECT_EQ(22, read_count(fd));
	close(fd);
}

/* An inherited X breakpoint counts the child's calls. */
TEST(inherit_exec_breakpoint)
{
	struct perf_event_attr a;
	struct kid k;
	int fd;

	bp_attr(&a, HW_BREAKPOINT_X, ADDR(bp_func), 8);
	a.inherit = 1;
	fd = open_attr(&a, 0, -1, -1);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, kid_start(&k));
	ASSERT_EQ(0, kid_do(&k, K_CALL, 0, 7));
	ASSERT_EQ(0, kid_do(&k, K_CALL, 1, 7));
	EXPECT_EQ(0, kid_stop(&k));
	EXPECT_EQ(7, read_count(fd));
	close(fd);
}

/*
 * A task with four inherited breakpoints forks: the child gets four of
 * its own (slots are per task), and all of them count.
 */
TEST(inherit_four_into_child)
{
	struct perf_event_attr a;
	int fds[NSLOTS], i;
	struct kid k;

	for (i = 0; i < NSLOTS; i++) {
		bp_attr(&a, HW_BREAKPOINT_W, ADDR(VAR(i)), 8);
		a.inherit = 1;
		fds[i] = open_attr(&a, 0, -1, -1);
		ASSERT_GE(fds[i], 0);
	}
	ASSERT_EQ(0, kid_start(&k));
	for (i = 0; i < NSLOTS; i++)
		ASSERT_EQ(0, kid_do(&k, K_WRITE, i, i + 1));
	EXPECT_EQ(0, kid_stop(&k));
	for (i = 0; i < NSLOTS; i++)
		EXPECT_EQ(i + 1, read_count(fds[i]));
	close_all(fds, NSLOTS);
}

/* ---- slots ---- */

/* Four breakpoints on one task; the fifth is ENOSPC. */
TEST(four_slots_then_enospc)
{
	int fds[NSLOTS], i;

	for (i = 0; i < NSLOTS; i++) {
		fds[i] = bp_w(VAR(i));
		ASSERT_GE(fds[i], 0);
	}
	EXPECT_EQ(-ENOSPC, bp_w(VAR(4)));
	EXPECT_EQ(-ENOSPC, bp_open(HW_BREAKPOINT_RW, ADDR(VAR(4)), 1, 0, -1));
	EXPECT_EQ(-ENOSPC, bp_open(HW_BREAKPOINT_X, ADDR(bp_func), 8, 0, -1));
	/* All four count. */
	for (i = 0; i < NSLOTS; i++)
		write_n(VAR(i), 2 + i);
	for (i = 0; i < NSLOTS; i++)
		EXPECT_EQ(2 + i, read_count(fds[i]));
	close_all(fds, NSLOTS);
}

/* Closing a breakpoint gives its slot back. */
TEST(close_frees_slot)
{
	int fds[NSLOTS], fd, i;

	for (i = 0; i < NSLOTS; i++) {
		fds[i] = bp_w(VAR(i));
		ASSERT_GE(fds[i], 0);
	}
	ASSERT_EQ(-ENOSPC, bp_w(VAR(4)));
	close(fds[2]);
	fds[2] = -1;
	fd = bp_w(VAR(4));
	ASSERT_GE(fd, 0);
	write_n(VAR(4), 3);
	EXPECT_EQ(3, read_count(fd));
	EXPECT_EQ(-ENOSPC, bp_w(VAR(5)));
	close(fd);
	close_all(fds, NSLOTS);
}

/* Disabled breakpoints hold their slots. */
TEST(disabled_hold_slots)
{
	struct perf_event_attr a;
	int fds[NSLOTS], i;

	for (i = 0; i < NSLOTS; i++) {
		bp_attr(&a, HW_BREAKPOINT_W, ADDR(VAR(i)), 8);
		a.disabled = 1;
		fds[i] = open_attr(&a, 0, -1, -1);
		ASSERT_GE(fds[i], 0);
	}
	EXPECT_EQ(-ENOSPC, bp_w(VAR(4)));
	ASSERT_EQ(0, ioctl(fds[0], PERF_EVENT_IOC_ENABLE, 0));
	ASSERT_EQ(0, ioctl(fds[0], PERF_EVENT_IOC_DISABLE, 0));
	EXPECT_EQ(-ENOSPC, bp_w(VAR(4)));
	close_all(fds, NSLOTS);
}

/* Instruction and data breakpoints take slots from the same four. */
TEST(exec_and_data_share_slots)
{
	int fds[NSLOTS], i;

	fds[0] = bp_open(HW_BREAKPOINT_X, ADDR(bp_func), 8, 0, -1);
	fds[1] = bp_open(HW_BREAKPOINT_X, ADDR(bp_func2), 8, 0, -1);
	fds[2] = bp_w(VAR(0));
	fds[3] = bp_open(HW_BREAKPOINT_RW, ADDR(VAR(1)), 4, 0, -1);
	for (i = 0; i < NSLOTS; i++)
		ASSERT_GE(fds[i], 0);
	EXPECT_EQ(-ENOSPC, bp_open(HW_BREAKPOINT_X, ADDR(bp_func), 8, 0, -1));
	EXPECT_EQ(-ENOSPC, bp_w(VAR(2)));
	close_all(fds, NSLOTS);
}

/* Each task has four slots of its own. */
TEST(tasks_have_own_slots)
{
	int mine[NSLOTS], its[NSLOTS], i;
	struct kid k;

	ASSERT_EQ(0, kid_start(&k));
	for (i = 0; i < NSLOTS; i++) {
		mine[i] = bp_w(VAR(i));
		its[i] = bp_open(HW_BREAKPOINT_W, ADDR(VAR(i)), 8, k.pid, -1);
		ASSERT_GE(mine[i], 0);
		ASSERT_GE(its[i], 0);
	}
	EXPECT_EQ(-ENOSPC, bp_w(VAR(4)));
	EXPECT_EQ(-ENOSPC, bp_open(HW_BREAKPOINT_W, ADDR(VAR(4)), 8, k.pid, -1));
	ASSERT_EQ(0, kid_do(&k, K_WRITE, 3, 6));
	EXPECT_EQ(6, read_count(its[3]));
	EXPECT_EQ(0, read_count(mine[3]));
	close_all(its, NSLOTS);
	close_all(mine, NSLOTS);
	EXPECT_EQ(0, kid_stop(&k));
}

/* Four CPU-wide breakpoints on one CPU; the fifth is ENOSPC. */
TEST(per_cpu_four_slots)
{
	int fds[NSLOTS], fd, i;

	for (i = 0; i < NSLOTS; i++) {
		fds[i] = bp_open(HW_BREAKPOINT_W, ADDR(VAR(i)), 8, -1, 0);
		ASSERT_GE(fds[i], 0);
	}
	EXPECT_EQ(-ENOSPC, bp_open(HW_BREAKPOINT_W, ADDR(VAR(4)), 8, -1, 0));
	if (nr_cpus() >= 2) {
		/* Other CPUs are not affected. */
		fd = bp_open(HW_BREAKPOINT_W, ADDR(VAR(4)), 8, -1, 1);
		EXPECT_GE(fd, 0);
		if (fd >= 0)
			close(fd);
	}
	close_all(fds, NSLOTS);
}

/*
 * CPU-wide breakpoints on CPU 0 leave fewer slots to every task that may
 * run there: with two on CPU 0, a task gets two (any CPU), none bound to
 * CPU 0, and may still fill CPU 1 with two bound to that CPU.
 */
TEST(per_cpu_and_task_share_slots)
{
	int cpu[2], any[2], one[2], i;

	if (nr_cpus() < 2)
		SKIP(return, "needs two CPUs");
	for (i = 0; i < 2; i++) {
		cpu[i] = bp_open(HW_BREAKPOINT_W, ADDR(VAR(i)), 8, -1, 0);
		ASSERT_GE(cpu[i], 0);
	}
	for (i = 0; i < 2; i++) {
		any[i] = bp_w(VAR(2 + i));
		ASSERT_GE(any[i], 0);
	}
	EXPECT_EQ(-ENOSPC, bp_w(VAR(4)));
	EXPECT_EQ(-ENOSPC, bp_open(HW_BREAKPOINT_W, ADDR(VAR(4)), 8, 0, 0));
	for (i = 0; i < 2; i++) {
		one[i] = bp_open(HW_BREAKPOINT_W, ADDR(VAR(4 + i)), 8, 0, 1);
		ASSERT_GE(one[i], 0);
	}
	EXPECT_EQ(-ENOSPC, bp_open(HW_BREAKPOINT_W, ADDR(VAR(6)), 8, 0, 1));
	/*
	 * With one CPU-wide breakpoint gone, CPU 0 has room for a third
	 * breakpoint of the task, but CPU 1 is full.
	 */
	close(cpu[0]);
	cpu[0] = -1;
	EXPECT_EQ(-ENOSPC, bp_w(VAR(6)));
	close_all(one, 2);
	one[0] = bp_w(VAR(6));
	EXPECT_GE(one[0], 0);
	one[1] = -1;
	close_all(one, 2);
	close_all(any, 2);
	close_all(cpu, 2);
}

/*
 * A task holding four breakpoints (any CPU) leaves no slot for a new
 * CPU-wide breakpoint on any CPU; with three it leaves one.
 */
TEST(task_slots_limit_per_cpu)
{
	int fds[NSLOTS], a, b, i;

	for (i = 0; i < NSLOTS; i++) {
		fds[i] = bp_w(VAR(i));
		ASSERT_GE(fds[i], 0);
	}
	EXPECT_EQ(-ENOSPC, bp_open(HW_BREAKPOINT_W, ADDR(VAR(4)), 8, -1, 0));
	close(fds[3]);
	fds[3] = -1;
	a = bp_open(HW_BREAKPOINT_W, ADDR(VAR(4)), 8, -1, 0);
	ASSERT_GE(a, 0);
	b = bp_open(HW_BREAKPOINT_W, ADDR(VAR(5)), 8, -1, 0);
	EXPECT_EQ(-ENOSPC, b);
	close(a);
	close_all(fds, NSLOTS);
}

/*
 * A task may have four breakpoints bound to CPU 0 and four bound to
 * CPU 1; one for any CPU then finds no room (ENOSPC).
 */
TEST(per_task_per_cpu_slots)
{
	int fds[2 * NSLOTS], i;

	if (nr_cpus() < 2)
		SKIP(return, "needs two CPUs");
	for (i = 0; i < 2 * NSLOTS; i++) {
		fds[i] = bp_open(HW_BREAKPOINT_W, ADDR(VAR(i % NSLOTS)), 8, 0,
				 i / NSLOTS);
		ASSERT_GE(fds[i], 0) TH_LOG("bp %d: %s", i, strerror(-fds[i]));
	}
	EXPECT_EQ(-ENOSPC, bp_open(HW_BREAKPOINT_W, ADDR(VAR(4)), 8, 0, 0));
	EXPECT_EQ(-ENOSPC, bp_w(VAR(4)));
	close_all(fds, 2 * NSLOTS);
}

/* ---- ptrace's debug registers ---- */

/* Fork a child that stops for its tracer; returns its pid or -1. */
static pid_t traced_child(void)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
			_exit(1);
		raise(SIGSTOP);
		write_n(VAR(0), 1);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status)) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return -1;
	}
	return pid;
}

static void kill_child(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* Write debug register @i of traced @pid; returns 0 or -errno. */
static int poke_dr(pid_t pid, int i, unsigned long val)
{
	long off = offsetof(struct user, u_debugreg) + i * sizeof(long);

	return ptrace(PTRACE_POKEUSER, pid, (void *)off, (void *)val) ? -errno : 0;
}

/*
 * Setting DR0..DR3 through ptrace takes the four slots of the traced
 * task, even with DR7 not enabling them: perf_event_open then gets
 * ENOSPC on that task.
 */
TEST(ptrace_addresses_take_slots)
{
	pid_t pid = traced_child();
	int i;

	ASSERT_GT(pid, 0);
	for (i = 0; i < NSLOTS; i++)
		ASSERT_EQ(0, poke_dr(pid, i, ADDR(VAR(i))));
	EXPECT_EQ(-ENOSPC, bp_open(HW_BREAKPOINT_W, ADDR(VAR(4)), 8, pid, -1));
	/* Enabling them in DR7 (write, 8 bytes) changes nothing. */
	ASSERT_EQ(0, poke_dr(pid, 7, 0x99990055UL));
	EXPECT_EQ(-ENOSPC, bp_open(HW_BREAKPOINT_W, ADDR(VAR(4)), 8, pid, -1));
	/* This task's own slots are untouched. */
	i = bp_w(VAR(4));
	EXPECT_GE(i, 0);
	close(i);
	kill_child(pid);
}

/* One ptrace breakpoint leaves three slots for perf. */
TEST(ptrace_one_leaves_three)
{
	pid_t pid = traced_child();
	int fds[3], i;

	ASSERT_GT(pid, 0);
	ASSERT_EQ(0, poke_dr(pid, 2, ADDR(VAR(0))));
	for (i = 0; i < 3; i++) {
		fds[i] = bp_open(HW_BREAKPOINT_W, ADDR(VAR(i)), 8, pid, -1);
		ASSERT_GE(fds[i], 0);
	}
	EXPECT_EQ(-ENOSPC, bp_open(HW_BREAKPOINT_W, ADDR(VAR(4)), 8, pid, -1));
	close_all(fds, 3);
	kill_child(pid);
}

/* With four perf breakpoints on the child, setting DR0 fails: ENOSPC. */
TEST(perf_slots_block_ptrace)
{
	pid_t pid = traced_child();
	int fds[NSLOTS], i;

	ASSERT_GT(pid, 0);
	for (i = 0; i < NSLOTS; i++) {
		fds[i] = bp_open(HW_BREAKPOINT_W, ADDR(VAR(i)), 8, pid, -1);
		ASSERT_GE(fds[i], 0);
	}
	EXPECT_EQ(-ENOSPC, poke_dr(pid, 0, ADDR(VAR(4))));
	close(fds[0]);
	fds[0] = -1;
	EXPECT_EQ(0, poke_dr(pid, 0, ADDR(VAR(4))));
	close_all(fds, NSLOTS);
	kill_child(pid);
}

/* ---- PERF_EVENT_IOC_MODIFY_ATTRIBUTES ---- */

/* Changing bp_addr moves the breakpoint; the count carries on. */
TEST(modify_moves_address)
{
	struct perf_event_attr a;
	int fd;

	bp_attr(&a, HW_BREAKPOINT_W, ADDR(VAR(0)), 8);
	fd = open_attr(&a, 0, -1, -1);
	ASSERT_GE(fd, 0);
	write_n(VAR(0), 4);
	a.bp_addr = ADDR(VAR(1));
	ASSERT_EQ(0, modify(fd, &a));
	write_n(VAR(0), 10);
	EXPECT_EQ(4, read_count(fd));
	write_n(VAR(1), 6);
	EXPECT_EQ(10, read_count(fd));
	close(fd);
}

/* Changing bp_len widens the watched range. */
TEST(modify_len)
{
	volatile unsigned char *b = (volatile unsigned char *)VAR(0);
	struct perf_event_attr a;
	int fd;

	bp_attr(&a, HW_BREAKPOINT_W, ADDR(VAR(0)), 1);
	fd = open_attr(&a, 0, -1, -1);
	ASSERT_GE(fd, 0);
	store8(b + 4);
	EXPECT_EQ(0, read_count(fd));
	a.bp_len = 8;
	ASSERT_EQ(0, modify(fd, &a));
	store8(b + 4);
	store8(b + 7);
	EXPECT_EQ(2, read_count(fd));
	a.bp_len = 2;
	ASSERT_EQ(0, modify(fd, &a));
	store8(b + 1);
	store8(b + 2);
	EXPECT_EQ(3, read_count(fd));
	close(fd);
}

/* W -> RW makes reads count; RW -> W stops it again. */
TEST(modify_type_w_rw)
{
	struct perf_event_attr a;
	int fd;

	bp_attr(&a, HW_BREAKPOINT_W, ADDR(VAR(0)), 8);
	fd = open_attr(&a, 0, -1, -1);
	ASSERT_GE(fd, 0);
	read_n(VAR(0), 5);
	EXPECT_EQ(0, read_count(fd));
	a.bp_type = HW_BREAKPOINT_RW;
	ASSERT_EQ(0, modify(fd, &a));
	read_n(VAR(0), 5);
	write_n(VAR(0), 2);
	EXPECT_EQ(7, read_count(fd));
	a.bp_type = HW_BREAKPOINT_W;
	ASSERT_EQ(0, modify(fd, &a));
	read_n(VAR(0), 5);
	write_n(VAR(0), 1);
	EXPECT_EQ(8, read_count(fd));
	close(fd);
}

/* A data breakpoint may become an instruction breakpoint and back. */
TEST(modify_data_to_exec)
{
	struct perf_event_attr a;
	int fd;

	bp_attr(&a, HW_BREAKPOINT_W, ADDR(VAR(0)), 8);
	fd = open_attr(&a, 0, -1, -1);
	ASSERT_GE(fd, 0);
	a.bp_type = HW_BREAKPOINT_X;
	a.bp_addr = ADDR(bp_func);
	ASSERT_EQ(0, modify(fd, &a));
	write_n(VAR(0), 3);
	call_n(&func_ptr, 4);
	EXPECT_EQ(4, read_count(fd));
	a.bp_addr = ADDR(bp_func2);
	ASSERT_EQ(0, modify(fd, &a));
	call_n(&func_ptr, 4);
	call_n(&func2_ptr, 2);
	EXPECT_EQ(6, read_count(fd));
	a.bp_type = HW_BREAKPOINT_W;
	a.bp_addr = ADDR(VAR(0));
	ASSERT_EQ(0, modify(fd, &a));
	write_n(VAR(0), 3);
	EXPECT_EQ(9, read_count(fd));
	close(fd);
}

/* Changing the type with all four slots in use still works. */
TEST(modify_type_with_slots_full)
{
	struct perf_event_attr a;
	int fds[NSLOTS], i;

	for (i = 0; i < NSLOTS; i++) {
		fds[i] = bp_w(VAR(i));
		ASSERT_GE(fds[i], 0);
	}
	bp_attr(&a, HW_BREAKPOINT_X, ADDR(bp_func), 8);
	ASSERT_EQ(0, modify(fds[3], &a));
	call_n(&func_ptr, 2);
	EXPECT_EQ(2, read_count(fds[3]));
	EXPECT_EQ(-ENOSPC, bp_w(VAR(4)));
	close_all(fds, NSLOTS);
}

/* disabled=1 in the new attr leaves the breakpoint disabled. */
TEST(modify_disabled_stays_disabled)
{
	struct perf_event_attr a;
	int fd;

	bp_attr(&a, HW_BREAKPOINT_W, ADDR(VAR(0)), 8);
	fd = open_attr(&a, 0, -1, -1);
	ASSERT_GE(fd, 0);
	write_n(VAR(0), 2);
	a.disabled = 1;
	a.bp_addr = ADDR(VAR(1));
	ASSERT_EQ(0, modify(fd, &a));
	write_n(VAR(1), 5);
	EXPECT_EQ(2, read_count(fd));
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
	write_n(VAR(1), 5);
	EXPECT_EQ(7, read_count(fd));
	close(fd);
}

/* disabled=0 in the new attr enables a breakpoint opened disabled. */
TEST(modify_enabled_enables)
{
	struct perf_event_attr a;
	int fd;

	bp_attr(&a, HW_BREAKPOINT_W, ADDR(VAR(0)), 8);
	a.disabled = 1;
	fd = open_attr(&a, 0, -1, -1);
	ASSERT_GE(fd, 0);
	write_n(VAR(0), 2);
	EXPECT_EQ(0, read_count(fd));
	a.disabled = 0;
	ASSERT_EQ(0, modify(fd, &a));
	write_n(VAR(0), 3);
	EXPECT_EQ(3, read_count(fd));
	/* Also one disabled by ioctl. */
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_DISABLE, 0));
	write_n(VAR(0), 3);
	ASSERT_EQ(0, modify(fd, &a));
	write_n(VAR(0), 1);
	EXPECT_EQ(4, read_count(fd));
	close(fd);
}

/*
 * Passing the attr of the open call again (disabled=1) disables a
 * breakpoint that was enabled by ioctl since.
 */
TEST(modify_with_open_attr_disables)
{
	struct perf_event_attr a;
	int fd;

	bp_attr(&a, HW_BREAKPOINT_W, ADDR(VAR(0)), 8);
	a.disabled = 1;
	fd = open_attr(&a, 0, -1, -1);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
	write_n(VAR(0), 2);
	ASSERT_EQ(0, modify(fd, &a));
	write_n(VAR(0), 3);
	EXPECT_EQ(2, read_count(fd));
	close(fd);
}

/*
 * A refused modification of a breakpoint opened disabled and enabled by
 * ioctl since leaves it disabled: the open-time disabled bit decides.
 */
TEST(modify_refused_after_ioc_enable)
{
	struct perf_event_attr a;
	int fd;

	bp_attr(&a, HW_BREAKPOINT_W, ADDR(VAR(0)), 8);
	a.disabled = 1;
	fd = open_attr(&a, 0, -1, -1);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
	write_n(VAR(0), 2);
	a.disabled = 0;
	a.bp_len = 3;
	EXPECT_EQ(-EINVAL, modify(fd, &a));
	write_n(VAR(0), 3);
	EXPECT_EQ(2, read_count(fd));
	close(fd);
}

/* A change to any field other than bp_* and disabled: EINVAL. */
FIXTURE(modify_field) {
	struct perf_event_attr a;
	int fd;
};

FIXTURE_VARIANT(modify_field) {
	size_t off;		/* byte of the attr to change */
	uint8_t xor;		/* bits to flip there */
	int64_t size;		/* >= 0: a different size */
};

#define ATTR_BITS_OFF	(offsetof(struct perf_event_attr, read_format) + 8)

FIXTURE_VARIANT_ADD(modify_field, config) {
	.off = offsetof(struct perf_event_attr, config), .xor = 1, .size = -1,
};

FIXTURE_VARIANT_ADD(modify_field, sample_period) {
	.off = offsetof(struct perf_event_attr, sample_period), .xor = 2,
	.size = -1,
};

FIXTURE_VARIANT_ADD(modify_field, sample_type) {
	.off = offsetof(struct perf_event_attr, sample_type), .xor = 1,
	.size = -1,
};

FIXTURE_VARIANT_ADD(modify_field, read_format) {
	.off = offsetof(struct perf_event_attr, read_format), .xor = 1,
	.size = -1,
};

/* The flag bits: byte 0 is disabled(0), inherit(1), pinned(2), ... */
FIXTURE_VARIANT_ADD(modify_field, inherit) {
	.off = ATTR_BITS_OFF, .xor = 1 << 1, .size = -1,
};

FIXTURE_VARIANT_ADD(modify_field, exclude_user) {
	.off = ATTR_BITS_OFF, .xor = 1 << 4, .size = -1,
};

FIXTURE_VARIANT_ADD(modify_field, exclude_kernel) {
	.off = ATTR_BITS_OFF, .xor = 1 << 5, .size = -1,
};

FIXTURE_VARIANT_ADD(modify_field, exclude_hv) {
	.off = ATTR_BITS_OFF, .xor = 1 << 6, .size = -1,
};

FIXTURE_VARIANT_ADD(modify_field, wakeup_events) {
	.off = offsetof(struct perf_event_attr, wakeup_events), .xor = 1,
	.size = -1,
};

FIXTURE_VARIANT_ADD(modify_field, config3) {
	.off = offsetof(struct perf_event_attr, config3), .xor = 1, .size = -1,
};

FIXTURE_VARIANT_ADD(modify_field, size_ver5) {
	.size = PERF_ATTR_SIZE_VER5,
};

FIXTURE_VARIANT_ADD(modify_field, size_zero) {
	.size = 0,
};

FIXTURE_SETUP(modify_field)
{
	bp_attr(&self->a, HW_BREAKPOINT_W, ADDR(VAR(0)), 8);
	self->fd = open_attr(&self->a, 0, -1, -1);
	ASSERT_GE(self->fd, 0);
}

FIXTURE_TEARDOWN(modify_field)
{
	close(self->fd);
}

/* Refused, and the breakpoint keeps counting where it was. */
TEST_F(modify_field, refused)
{
	struct perf_event_attr b = self->a;

	b.bp_addr = ADDR(VAR(1));
	if (variant->size >= 0)
		b.size = variant->size;
	else
		((unsigned char *)&b)[variant->off] ^= variant->xor;
	EXPECT_EQ(-EINVAL, modify(self->fd, &b));
	write_n(VAR(0), 3);
	write_n(VAR(1), 5);
	EXPECT_EQ(3, read_count(self->fd));
}

/* A different type field: EINVAL. */
TEST(modify_other_type)
{
	struct perf_event_attr a;
	int fd;

	bp_attr(&a, HW_BREAKPOINT_W, ADDR(VAR(0)), 8);
	fd = open_attr(&a, 0, -1, -1);
	ASSERT_GE(fd, 0);
	a.type = PERF_TYPE_SOFTWARE;
	EXPECT_EQ(-EINVAL, modify(fd, &a));
	a.type = PERF_TYPE_TRACEPOINT;
	EXPECT_EQ(-EINVAL, modify(fd, &a));
	write_n(VAR(0), 2);
	EXPECT_EQ(2, read_count(fd));
	close(fd);
}

/* Only breakpoints can be modified: EOPNOTSUPP on a software event. */
TEST(modify_software_event)
{
	struct perf_event_attr a;
	int fd;

	sw_attr(&a, PERF_COUNT_SW_DUMMY);
	fd = open_attr(&a, 0, -1, -1);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(-EOPNOTSUPP, modify(fd, &a));
	sw_attr(&a, PERF_COUNT_SW_PAGE_FAULTS);
	EXPECT_EQ(-EOPNOTSUPP, modify(fd, &a));
	a.type = PERF_TYPE_BREAKPOINT;
	EXPECT_EQ(-EINVAL, modify(fd, &a));
	close(fd);
}

/* An unreadable attr pointer: EFAULT. */
TEST(modify_bad_pointer)
{
	int fd = bp_w(VAR(0));

	ASSERT_GE(fd, 0);
	EXPECT_EQ(-EFAULT, modify(fd, NULL));
	write_n(VAR(0), 1);
	EXPECT_EQ(1, read_count(fd));
	close(fd);
}

/*
 * A new attr that would be refused at open (bad length, misalignment,
 * R alone, empty type, X with a data length) is refused with the same
 * errno, and the old breakpoint keeps working.
 */
TEST(modify_bad_bp_keeps_old)
{
	static const struct { uint32_t type; uint64_t off, len; } bad[] = {
		{ HW_BREAKPOINT_W, 0, 3 },
		{ HW_BREAKPOINT_W, 0, 0 },
		{ HW_BREAKPOINT_W, 4, 8 },
		{ HW_BREAKPOINT_RW, 1, 2 },
		{ HW_BREAKPOINT_R, 0, 8 },
		{ HW_BREAKPOINT_EMPTY, 0, 8 },
		{ HW_BREAKPOINT_INVALID, 0, 8 },
		{ HW_BREAKPOINT_X, 0, 4 },
	};
	struct perf_event_attr a, b;
	unsigned int i;
	uint64_t n = 0;
	int fd;

	bp_attr(&a, HW_BREAKPOINT_W, ADDR(VAR(0)), 8);
	fd = open_attr(&a, 0, -1, -1);
	ASSERT_GE(fd, 0);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		b = a;
		b.bp_type = bad[i].type;
		b.bp_addr = ADDR(VAR(1)) + bad[i].off;
		b.bp_len = bad[i].len;
		EXPECT_EQ(-EINVAL, modify(fd, &b)) TH_LOG("case %u", i);
		write_n(VAR(0), 2);
		write_n(VAR(1), 1);
		n += 2;
		EXPECT_EQ(n, read_count(fd)) TH_LOG("case %u", i);
	}
	b = a;
	b.bp_addr = ADDR(VAR(1)) & ~63ULL;
	b.bp_len = 64;
	EXPECT_EQ(-EOPNOTSUPP, modify(fd, &b));
	write_n(VAR(0), 1);
	EXPECT_EQ(n + 1, read_count(fd));
	close(fd);
}

/* Moving to a kernel address with exclude_kernel: EINVAL. */
TEST(modify_kernel_address_exclude_kernel)
{
	struct perf_event_attr a;
	int fd;

	bp_attr(&a, HW_BREAKPOINT_W, ADDR(VAR(0)), 8);
	a.exclude_kernel = 1;
	fd = open_attr(&a, 0, -1, -1);
	ASSERT_GE(fd, 0);
	a.bp_addr = KERNEL_ADDR;
	EXPECT_EQ(-EINVAL, modify(fd, &a));
	write_n(VAR(0), 2);
	EXPECT_EQ(2, read_count(fd));
	close(fd);
}

/* sig_data may be changed: later SIGTRAPs carry the new value. */
TEST(modify_sig_data)
{
	struct perf_event_attr a;
	int fd;

	catch_traps();
	trap_attr(&a, 0x1111);
	fd = open_attr(&a, 0, -1, -1);
	ASSERT_GE(fd, 0);
	write_n(VAR(0), 1);
	EXPECT_EQ(1, trap_count);
	EXPECT_EQ(0x1111, trap_data);
	a.sig_data = 0x2222;
	ASSERT_EQ(0, modify(fd, &a));
	write_n(VAR(0), 1);
	EXPECT_EQ(2, trap_count);
	EXPECT_EQ(0x2222, trap_data);
	/* sig_data and bp_addr together. */
	a.sig_data = 0x3333;
	a.bp_addr = ADDR(VAR(1));
	ASSERT_EQ(0, modify(fd, &a));
	write_n(VAR(0), 1);
	write_n(VAR(1), 1);
	EXPECT_EQ(3, trap_count);
	EXPECT_EQ(0x3333, trap_data);
	EXPECT_EQ(ADDR(VAR(1)), trap_addr);
	close(fd);
}

/* After a move, samples carry the new ADDR and IPs of the new accesses. */
TEST(modify_sampling_breakpoint)
{
	struct perf_event_attr a;
	struct perf_rb rb;
	uint64_t ip0, ip1;
	int fd, n;

	bp_attr(&a, HW_BREAKPOINT_W, ADDR(VAR(0)), 8);
	a.sample_period = 1;
	a.sample_type = ST_BP;
	fd = open_attr(&a, 0, -1, -1);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, rb_map(&rb, fd, RB_PAGES));
	ip0 = store64(VAR(0), 1);
	a.bp_addr = ADDR(VAR(1));
	a.bp_type = HW_BREAKPOINT_RW;
	ASSERT_EQ(0, modify(fd, &a));
	store64(VAR(0), 1);
	ip1 = load64(VAR(1));
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_DISABLE, 0));
	n = get_samples(&rb, ss, MAX_SAMPLES);
	ASSERT_EQ(2, n);
	EXPECT_EQ(ip0, ss[0].ip);
	EXPECT_EQ(ADDR(VAR(0)), ss[0].addr);
	EXPECT_EQ(ip1, ss[1].ip);
	EXPECT_EQ(ADDR(VAR(1)), ss[1].addr);
	rb_unmap(&rb);
	close(fd);
}

/* The modification reaches inherited events of a forked child. */
TEST(modify_inherited_child)
{
	struct perf_event_attr a;
	struct kid k;
	int fd;

	bp_attr(&a, HW_BREAKPOINT_W, ADDR(VAR(0)), 8);
	a.inherit = 1;
	fd = open_attr(&a, 0, -1, -1);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, kid_start(&k));
	ASSERT_EQ(0, kid_do(&k, K_WRITE, 0, 3));
	EXPECT_EQ(3, read_count(fd));
	a.bp_addr = ADDR(VAR(1));
	ASSERT_EQ(0, modify(fd, &a));
	ASSERT_EQ(0, kid_do(&k, K_WRITE, 0, 10));
	ASSERT_EQ(0, kid_do(&k, K_WRITE, 1, 4));
	EXPECT_EQ(7, read_count(fd));
	/* Disabling through modify reaches the child too. */
	a.disabled = 1;
	ASSERT_EQ(0, modify(fd, &a));
	ASSERT_EQ(0, kid_do(&k, K_WRITE, 1, 4));
	EXPECT_EQ(7, read_count(fd));
	EXPECT_EQ(0, kid_stop(&k));
	EXPECT_EQ(7, read_count(fd));
	close(fd);
}

/* Modifying a breakpoint on another task moves it in that task. */
TEST(modify_other_task)
{
	struct perf_event_attr a;
	struct kid k;
	int fd;

	ASSERT_EQ(0, kid_start(&k));
	bp_attr(&a, HW_BREAKPOINT_W, ADDR(VAR(0)), 8);
	fd = open_attr(&a, k.pid, -1, -1);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, kid_do(&k, K_WRITE, 0, 2));
	a.bp_addr = ADDR(VAR(2));
	ASSERT_EQ(0, modify(fd, &a));
	ASSERT_EQ(0, kid_do(&k, K_WRITE, 0, 2));
	ASSERT_EQ(0, kid_do(&k, K_WRITE, 2, 5));
	EXPECT_EQ(7, read_count(fd));
	EXPECT_EQ(0, kid_stop(&k));
	close(fd);
}

/* ---- exclusive groups ---- */

/*
 * Two groups, each led by a breakpoint with exclusive=1 (pinned=0), on
 * this task, while the variables they watch are written for 200 ms.
 * Breakpoint events are software-context events to the core, and groups
 * made only of those can always go on: exclusive does not make them
 * multiplex.  Both run all the time (time_running == time_enabled) and
 * both count every write exactly.
 *
 * The groups watch two variables written alternately rather than one:
 * when one access matches two debug registers, the emulated CPU the
 * tests run on reports only the first of them in DR6, so the second
 * breakpoint would see nothing whether or not it is scheduled.  Each
 * round ends with quiet() (see there).
 */
TEST(exclusive_groups_do_not_multiplex)
{
	struct perf_event_attr a;
	uint64_t v[2][3], n = 0, end;
	int fd[2], m[2], i;

	for (i = 0; i < 2; i++) {
		bp_attr(&a, HW_BREAKPOINT_W, ADDR(VAR(i)), 8);
		a.exclusive = 1;
		a.disabled = 1;
		a.read_format = F_EN | F_RUN;
		fd[i] = open_attr(&a, 0, -1, -1);
		ASSERT_GE(fd[i], 0);
		/* A member watching a variable nobody writes. */
		bp_attr(&a, HW_BREAKPOINT_W, ADDR(VAR(2 + i)), 8);
		m[i] = open_attr(&a, 0, -1, fd[i]);
		ASSERT_GE(m[i], 0);
	}
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, ioctl(fd[i], PERF_EVENT_IOC_ENABLE, 0));
	end = mono_ns() + 200 * MSEC;
	while (mono_ns() < end) {
		for (i = 0; i < 10; i++) {
			store64(VAR(0), i);
			store64(VAR(1), i);
			quiet();
		}
		n += 10;
	}
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, ioctl(fd[i], PERF_EVENT_IOC_DISABLE, 0));
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, read3(fd[i], v[i]));
		TH_LOG("group %d: count %llu of %llu, enabled %llu, running %llu",
		       i, (unsigned long long)v[i][0], (unsigned long long)n,
		       (unsigned long long)v[i][1], (unsigned long long)v[i][2]);
		EXPECT_EQ(n, v[i][0]);
		EXPECT_GT(v[i][1], 100 * MSEC);
		EXPECT_EQ(v[i][1], v[i][2]);
		EXPECT_EQ(0, read_count(m[i]));
	}
	close_all(m, 2);
	close_all(fd, 2);
}

/* ---- races and hotplug ---- */

struct storm {
	volatile int stop;
	unsigned long writes;
};

static void *storm_thread(void *arg)
{
	struct storm *st = arg;
	unsigned long n = 0;

	while (!st->stop) {
		store64(VAR(0), n);
		store64(VAR(1), n);
		n++;
	}
	quiet();
	__atomic_fetch_add(&st->writes, n, __ATOMIC_RELAXED);
	return NULL;
}

/*
 * Threads write two variables without pause while the breakpoint they
 * inherited is moved between them, disabled and enabled, hundreds of
 * times.  Nothing breaks: every modification succeeds, and the count
 * stays within the number of writes made.
 */
TEST(modify_races_hits)
{
	struct storm st = { 0 };
	struct perf_event_attr a;
	uint64_t count, t0;
	pthread_t th[2];
	int fd, i;

	bp_attr(&a, HW_BREAKPOINT_W, ADDR(VAR(0)), 8);
	a.inherit = 1;
	fd = open_attr(&a, 0, -1, -1);
	ASSERT_GE(fd, 0);
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, pthread_create(&th[i], NULL, storm_thread, &st));
	t0 = mono_ns();
	for (i = 0; i < 500; i++) {
		a.bp_addr = ADDR(VAR(i & 1));
		a.disabled = (i % 7) == 3;
		ASSERT_EQ(0, modify(fd, &a)) TH_LOG("modification %d", i);
		if (i % 11 == 5) {
			ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_DISABLE, 0));
			ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
		}
	}
	st.stop = 1;
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, pthread_join(th[i], NULL));
	count = read_count(fd);
	TH_LOG("%llu hits of %lu writes, %llu ms", (unsigned long long)count,
	       st.writes, (unsigned long long)((mono_ns() - t0) / MSEC));
	EXPECT_GT(count, 0);
	EXPECT_LE(count, 2 * st.writes);
	close(fd);
}

static int cpu_online_file(int cpu, int on)
{
	char path[64];
	int fd, ret = 0;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	if (write(fd, on ? "1" : "0", 1) != 1)
		ret = -errno;
	close(fd);
	return ret;
}

static void pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/*
 * A task's breakpoints follow it when its CPU goes offline, and a
 * per-CPU breakpoint of an offline CPU keeps its slot: after the CPU is
 * back, four more breakpoints still do not fit there.
 */
TEST(hotplug_keeps_breakpoints)
{
	int last = sysconf(_SC_NPROCESSORS_ONLN) - 1;
	int fd, cpufd, extra[NSLOTS], i, ret;

	if (last < 1)
		SKIP(return, "needs two online CPUs");
	pin_to(last);
	fd = bp_w(VAR(0));
	ASSERT_GE(fd, 0);
	/* A CPU breakpoint that nothing hits: only its slot matters. */
	cpufd = bp_open(HW_BREAKPOINT_W, ADDR(VAR(1)), 8, -1, last);
	ASSERT_GE(cpufd, 0);
	write_n(VAR(0), 3);

	ret = cpu_online_file(last, 0);
	if (ret) {
		close(cpufd);
		close(fd);
		SKIP(return, "CPU %d cannot go offline: %d", last, ret);
	}
	/* This task now runs elsewhere; its breakpoint went with it. */
	write_n(VAR(0), 4);
	EXPECT_EQ(0, cpu_online_file(last, 1));
	pin_to(0);
	EXPECT_EQ(7, read_count(fd));
	EXPECT_EQ(0, read_count(cpufd));
	/* The CPU breakpoint and this task's one hold two slots there. */
	for (i = 0; i < NSLOTS; i++)
		extra[i] = bp_open(HW_BREAKPOINT_W, ADDR(VAR(2)), 8, -1, last);
	EXPECT_GE(extra[0], 0);
	EXPECT_GE(extra[1], 0);
	EXPECT_EQ(-ENOSPC, extra[2]);
	EXPECT_EQ(-ENOSPC, extra[3]);
	close_all(extra, NSLOTS);
	close(cpufd);
	close(fd);
}

TEST_HARNESS_MAIN
