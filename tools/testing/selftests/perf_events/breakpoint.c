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
 *  - inheritance into forked children and threads.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <linux/hw_breakpoint.h>

#include "../kselftest_harness.h"
#include "breakpoint_util.h"

#ifndef TRAP_PERF
#define TRAP_PERF	6
#endif

static int in_bp_text(uint64_t ip)
{
	return ip >= ADDR(__start_bp_text) && ip < ADDR(__stop_bp_text);
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

TEST_HARNESS_MAIN
