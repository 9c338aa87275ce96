// SPDX-License-Identifier: GPL-2.0
/*
 * Hardware breakpoints (PERF_TYPE_BREAKPOINT) in the x86-64 debug
 * registers, and changes to them:
 *
 *  - the four debug-register slots: per task, per CPU, shared between
 *    the two, held by disabled events and by ptrace's DR0..DR3;
 *  - PERF_EVENT_IOC_MODIFY_ATTRIBUTES: which fields may change, and what
 *    a moved, widened or retyped breakpoint counts, samples and signals;
 *  - exclusive groups led by breakpoints;
 *  - modifications racing with hits, and CPU hotplug.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stddef.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <linux/hw_breakpoint.h>

#include "../kselftest_harness.h"
#include "breakpoint_util.h"

/* PERF_EVENT_IOC_MODIFY_ATTRIBUTES; returns 0 or -errno. */
static int modify(int fd, struct perf_event_attr *a)
{
	return ioctl(fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, a) ? -errno : 0;
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
