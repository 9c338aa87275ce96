// SPDX-License-Identifier: GPL-2.0
/*
 * x86 debug registers as a debugger sees them through PTRACE_PEEKUSER and
 * PTRACE_POKEUSER at offsetof(struct user, u_debugreg[i]).  The kernel
 * backs each of DR0-DR3 with a breakpoint perf event, so this is also a
 * test of the breakpoint PMU's validation and of its slot accounting,
 * shared between ptrace and perf_event_open():
 *
 *  - DR0-DR3 take user addresses and refuse kernel ones; DR7 takes the
 *    enable, type and length bits of each slot and refuses I/O
 *    breakpoints, execute breakpoints longer than one byte and lengths
 *    the address is not aligned to; DR4 and DR5 read as 0 and cannot be
 *    written; DR6 reads what was last written, or the slots that hit;
 *  - a write watchpoint stops the tracee with SIGTRAP on every write and
 *    DR6 tells which slot hit; clearing DR7 lets it run to the end;
 *  - four slots per task: ptrace and perf breakpoints on the same task
 *    compete for them (ENOSPC); execve() releases the ptrace ones;
 *  - misaligned and out-of-range offsets are EIO.
 *
 * Each test forks a tracee that stops itself (PTRACE_TRACEME, SIGSTOP),
 * then writes and reads a few words of its own when continued.
 */
#define _GNU_SOURCE
#include <stddef.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <linux/hw_breakpoint.h>

#include "../kselftest_harness.h"
#include "perf_util.h"

#define DR_OFF(i)	offsetof(struct user, u_debugreg[i])
/*
 * The kernel's struct user ends with error_code and fault_address after
 * u_debugreg[]; glibc's stops at u_debugreg[].
 */
#define USER_END	(DR_OFF(8) + 2 * sizeof(unsigned long))

/* DR7 fields of slot @i: local enable, type (R/W) and length (LEN). */
#define DR7_L(i)		(1UL << (2 * (i)))
#define DR7_RW(i, rw)		((unsigned long)(rw) << (16 + 4 * (i)))
#define DR7_LEN(i, len)		((unsigned long)(len) << (18 + 4 * (i)))
#define RW_EXEC		0
#define RW_WRITE	1
#define RW_IO		2
#define RW_RDWR		3
#define LEN_1		0
#define LEN_2		1
#define LEN_8		2
#define LEN_4		3
#define DR7_SLOT(i, rw, len)	(DR7_L(i) | DR7_RW(i, rw) | DR7_LEN(i, len))

/* DR6 as read before anything hit or was written. */
#define DR6_INIT	0xffff0ff0UL

#define KERNEL_ADDR	0xffffffff81000000UL
#define NWRITES		3

/* The words the tracee writes and reads, each in a cache line of its own. */
static volatile uint64_t wword __attribute__((aligned(64)));
static volatile uint64_t rword __attribute__((aligned(64)));
static volatile uint64_t spare[4][8] __attribute__((aligned(64)));

/* What the tracee does once continued. */
static int tracee_exec;

static noinline void tracee_fn(void)
{
	__asm__ volatile("" ::: "memory");
}

static void tracee_body(void)
{
	uint64_t sink = 0;
	int i;

	if (ptrace(PTRACE_TRACEME, 0, 0, 0))
		_exit(100);
	raise(SIGSTOP);
	if (tracee_exec) {
		execl("/bin/true", "true", (char *)NULL);
		_exit(101);
	}
	for (i = 0; i < NWRITES; i++)
		wword = i;
	sink += rword;
	tracee_fn();
	_exit(sink == 0 ? 0 : 102);
}

/* Fork a tracee and wait until it stopped itself; its pid, or -1. */
static pid_t start_tracee(void)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0)
		tracee_body();
	if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status) ||
	    WSTOPSIG(status) != SIGSTOP) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return -1;
	}
	return pid;
}

static void kill_tracee(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* PEEKUSER at @off; the errno goes to *@err (0 on success). */
static unsigned long peek_at(pid_t pid, unsigned long off, int *err)
{
	long v;

	errno = 0;
	v = ptrace(PTRACE_PEEKUSER, pid, off, 0);
	*err = errno;
	return v;
}

/* DR@i of @pid, or a poison value if it cannot be read. */
static unsigned long peek_dr(pid_t pid, int i)
{
	unsigned long v;
	int err;

	v = peek_at(pid, DR_OFF(i), &err);
	return err ? 0xdead0000UL + err : v;
}

/* POKEUSER @v at @off: 0 or the errno. */
static int poke_at(pid_t pid, unsigned long off, unsigned long v)
{
	return ptrace(PTRACE_POKEUSER, pid, off, v) ? errno : 0;
}

static int poke_dr(pid_t pid, int i, unsigned long v)
{
	return poke_at(pid, DR_OFF(i), v);
}

/* Continue the tracee and wait; the wait status, or -1. */
static int cont_wait(pid_t pid)
{
	int status;

	if (ptrace(PTRACE_CONT, pid, 0, 0))
		return -1;
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return status;
}

static int is_trap_stop(int status)
{
	return status >= 0 && WIFSTOPPED(status) && WSTOPSIG(status) == SIGTRAP;
}

static int exited_ok(int status)
{
	return status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* Open a counting write breakpoint on @addr for @pid; fd or -errno. */
static int open_bp(pid_t pid, const volatile void *addr)
{
	struct perf_event_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_BREAKPOINT;
	attr.size = sizeof(attr);
	attr.bp_type = HW_BREAKPOINT_W;
	attr.bp_addr = (unsigned long)addr;
	attr.bp_len = HW_BREAKPOINT_LEN_8;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	fd = sys_perf_event_open(&attr, pid, -1, -1, 0);
	return fd < 0 ? -errno : fd;
}

FIXTURE(tracee) {
	pid_t pid;
};

FIXTURE_SETUP(tracee)
{
	self->pid = start_tracee();
	ASSERT_GT(self->pid, 0);
}

FIXTURE_TEARDOWN(tracee)
{
	if (self->pid > 0)
		kill_tracee(self->pid);
}

/* ---- the address registers ------------------------------------------------ */

/* DR0-DR3 read 0 at first and read back the user addresses written. */
TEST_F(tracee, addr_roundtrip)
{
	int i;

	for (i = 0; i < 4; i++)
		EXPECT_EQ(0, peek_dr(self->pid, i));
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, poke_dr(self->pid, i, (unsigned long)spare[i]));
	for (i = 0; i < 4; i++)
		EXPECT_EQ((unsigned long)spare[i], peek_dr(self->pid, i));
	ASSERT_EQ(0, poke_dr(self->pid, 2, (unsigned long)&wword));
	EXPECT_EQ((unsigned long)&wword, peek_dr(self->pid, 2));
	ASSERT_EQ(0, poke_dr(self->pid, 2, 0));
	EXPECT_EQ(0, peek_dr(self->pid, 2));
	EXPECT_EQ(0, peek_dr(self->pid, 7));
}

/*
 * A kernel address in DR0-DR3 is EINVAL, for an empty slot and for one
 * in use (which keeps its address).
 */
TEST_F(tracee, addr_kernel_refused)
{
	EXPECT_EQ(EINVAL, poke_dr(self->pid, 0, KERNEL_ADDR));
	EXPECT_EQ(0, peek_dr(self->pid, 0));
	EXPECT_EQ(EINVAL, poke_dr(self->pid, 1, 0xffff800000000000UL));
	EXPECT_EQ(EINVAL, poke_dr(self->pid, 1, ~0UL & ~7UL));
	ASSERT_EQ(0, poke_dr(self->pid, 3, (unsigned long)&wword));
	EXPECT_EQ(EINVAL, poke_dr(self->pid, 3, KERNEL_ADDR));
	EXPECT_EQ((unsigned long)&wword, peek_dr(self->pid, 3));
}

/* ---- DR7 ------------------------------------------------------------------ */

/*
 * DR7 takes an enabled 8-byte write slot and reads back as written; the
 * slot's address register is unchanged.  The LE/GE bits read back too.
 */
TEST_F(tracee, dr7_roundtrip)
{
	unsigned long v = DR7_SLOT(0, RW_WRITE, LEN_8);

	ASSERT_EQ(0, poke_dr(self->pid, 0, (unsigned long)&wword));
	ASSERT_EQ(0, poke_dr(self->pid, 7, v));
	EXPECT_EQ(v, peek_dr(self->pid, 7));
	EXPECT_EQ((unsigned long)&wword, peek_dr(self->pid, 0));

	v |= DR7_SLOT(1, RW_RDWR, LEN_4) | 0x300;
	ASSERT_EQ(0, poke_dr(self->pid, 1, (unsigned long)&rword));
	ASSERT_EQ(0, poke_dr(self->pid, 7, v));
	EXPECT_EQ(v, peek_dr(self->pid, 7));
	ASSERT_EQ(0, poke_dr(self->pid, 7, 0));
	EXPECT_EQ(0, peek_dr(self->pid, 7));
	EXPECT_EQ((unsigned long)&rword, peek_dr(self->pid, 1));
}

/* A slot may be enabled before its address is set (it watches 0 till then). */
TEST_F(tracee, dr7_before_address)
{
	unsigned long v = DR7_SLOT(1, RW_WRITE, LEN_8);

	ASSERT_EQ(0, poke_dr(self->pid, 7, v));
	EXPECT_EQ(v, peek_dr(self->pid, 7));
	EXPECT_EQ(0, peek_dr(self->pid, 1));
	ASSERT_EQ(0, poke_dr(self->pid, 1, (unsigned long)&wword));
	EXPECT_EQ((unsigned long)&wword, peek_dr(self->pid, 1));
	EXPECT_TRUE(is_trap_stop(cont_wait(self->pid)));
	EXPECT_EQ(DR6_INIT | 2, peek_dr(self->pid, 6));
}

/* R/W = 10 (I/O) is EINVAL, and DR7 keeps its previous value. */
TEST_F(tracee, dr7_io_refused)
{
	unsigned long v = DR7_SLOT(0, RW_WRITE, LEN_8);

	ASSERT_EQ(0, poke_dr(self->pid, 0, (unsigned long)&wword));
	ASSERT_EQ(0, poke_dr(self->pid, 7, v));
	EXPECT_EQ(EINVAL, poke_dr(self->pid, 7, DR7_SLOT(2, RW_IO, LEN_1)));
	EXPECT_EQ(EINVAL, poke_dr(self->pid, 7, v | DR7_SLOT(2, RW_IO, LEN_1)));
	EXPECT_EQ(v, peek_dr(self->pid, 7));
	/* The refused write did not disarm slot 0. */
	EXPECT_TRUE(is_trap_stop(cont_wait(self->pid)));
	EXPECT_EQ(DR6_INIT | 1, peek_dr(self->pid, 6));
}

/* An execute slot must have LEN 00; with it, it stops at the function. */
TEST_F(tracee, dr7_exec_len)
{
	struct user_regs_struct regs;

	ASSERT_EQ(0, poke_dr(self->pid, 0, (unsigned long)tracee_fn));
	EXPECT_EQ(EINVAL, poke_dr(self->pid, 7, DR7_SLOT(0, RW_EXEC, LEN_8)));
	EXPECT_EQ(EINVAL, poke_dr(self->pid, 7, DR7_SLOT(0, RW_EXEC, LEN_4)));
	EXPECT_EQ(EINVAL, poke_dr(self->pid, 7, DR7_SLOT(0, RW_EXEC, LEN_2)));
	EXPECT_EQ(0, peek_dr(self->pid, 7));
	ASSERT_EQ(0, poke_dr(self->pid, 7, DR7_SLOT(0, RW_EXEC, LEN_1)));
	ASSERT_TRUE(is_trap_stop(cont_wait(self->pid)));
	ASSERT_EQ(0, ptrace(PTRACE_GETREGS, self->pid, 0, &regs));
	EXPECT_EQ((unsigned long)tracee_fn, regs.rip);
	EXPECT_EQ(DR6_INIT | 1, peek_dr(self->pid, 6));
	ASSERT_EQ(0, poke_dr(self->pid, 7, 0));
	EXPECT_TRUE(exited_ok(cont_wait(self->pid)));
}

/*
 * A length the address is not aligned to is EINVAL, whichever of DR7 and
 * the address register is written last.
 */
TEST_F(tracee, dr7_alignment)
{
	unsigned long a = (unsigned long)&wword;

	ASSERT_EQ(0, poke_dr(self->pid, 0, a + 1));
	EXPECT_EQ(EINVAL, poke_dr(self->pid, 7, DR7_SLOT(0, RW_WRITE, LEN_8)));
	EXPECT_EQ(EINVAL, poke_dr(self->pid, 7, DR7_SLOT(0, RW_WRITE, LEN_2)));
	EXPECT_EQ(0, poke_dr(self->pid, 7, DR7_SLOT(0, RW_WRITE, LEN_1)));
	ASSERT_EQ(0, poke_dr(self->pid, 1, a + 2));
	EXPECT_EQ(EINVAL, poke_dr(self->pid, 7, DR7_SLOT(1, RW_WRITE, LEN_4)));
	EXPECT_EQ(0, poke_dr(self->pid, 7, DR7_SLOT(1, RW_WRITE, LEN_2)));
	EXPECT_EQ(DR7_SLOT(1, RW_WRITE, LEN_2), peek_dr(self->pid, 7));

	ASSERT_EQ(0, poke_dr(self->pid, 2, a));
	ASSERT_EQ(0, poke_dr(self->pid, 7, DR7_SLOT(2, RW_WRITE, LEN_8)));
	EXPECT_EQ(EINVAL, poke_dr(self->pid, 2, a + 4));
	EXPECT_EQ(a, peek_dr(self->pid, 2));
}

/* ---- DR4, DR5, DR6 ---------------------------------------------------------- */

/* DR4 and DR5 read as 0 and writing them is EIO. */
TEST_F(tracee, dr4_dr5)
{
	int err;

	EXPECT_EQ(0, peek_at(self->pid, DR_OFF(4), &err));
	EXPECT_EQ(0, err);
	EXPECT_EQ(0, peek_at(self->pid, DR_OFF(5), &err));
	EXPECT_EQ(0, err);
	EXPECT_EQ(EIO, poke_dr(self->pid, 4, 0));
	EXPECT_EQ(EIO, poke_dr(self->pid, 5, 0));
	EXPECT_EQ(EIO, poke_dr(self->pid, 4, (unsigned long)&wword));
}

/* DR6 starts as 0xffff0ff0 and reads back whatever was written. */
TEST_F(tracee, dr6_read_write)
{
	static const unsigned long vals[] = { 0, 1, 0xf, 0xffff0ff0, 0x12345678, ~0UL };
	unsigned int i;

	EXPECT_EQ(DR6_INIT, peek_dr(self->pid, 6));
	for (i = 0; i < ARRAY_SIZE(vals); i++) {
		ASSERT_EQ(0, poke_dr(self->pid, 6, vals[i]));
		EXPECT_EQ(vals[i], peek_dr(self->pid, 6));
	}
}

/* ---- watchpoints -------------------------------------------------------------- */

/*
 * A write watchpoint in slot 2 stops the tracee with SIGTRAP (si_code
 * TRAP_HWBKPT) after each of its writes; DR6 shows bit 2; a read of
 * another word does not stop it; clearing DR7 lets it run to exit.
 */
TEST_F(tracee, watch_write_stops)
{
	siginfo_t si;
	int i, status;

	ASSERT_EQ(0, poke_dr(self->pid, 2, (unsigned long)&wword));
	ASSERT_EQ(0, poke_dr(self->pid, 7, DR7_SLOT(2, RW_WRITE, LEN_8)));
	for (i = 0; i < NWRITES; i++) {
		status = cont_wait(self->pid);
		ASSERT_TRUE(is_trap_stop(status)) TH_LOG("write %d: status %#x", i, status);
		ASSERT_EQ(0, ptrace(PTRACE_GETSIGINFO, self->pid, 0, &si));
		EXPECT_EQ(SIGTRAP, si.si_signo);
		EXPECT_EQ(TRAP_HWBKPT, si.si_code);
		EXPECT_EQ(DR6_INIT | 4, peek_dr(self->pid, 6));
	}
	status = cont_wait(self->pid);
	EXPECT_TRUE(exited_ok(status)) TH_LOG("status %#x", status);
	self->pid = 0;
}

/* After one hit, DR7 = 0 lets the tracee run to exit without stopping. */
TEST_F(tracee, watch_cleared_runs_to_exit)
{
	int status;

	ASSERT_EQ(0, poke_dr(self->pid, 0, (unsigned long)&wword));
	ASSERT_EQ(0, poke_dr(self->pid, 7, DR7_SLOT(0, RW_WRITE, LEN_8)));
	ASSERT_TRUE(is_trap_stop(cont_wait(self->pid)));
	EXPECT_EQ(DR6_INIT | 1, peek_dr(self->pid, 6));
	ASSERT_EQ(0, poke_dr(self->pid, 7, 0));
	EXPECT_EQ((unsigned long)&wword, peek_dr(self->pid, 0));
	status = cont_wait(self->pid);
	EXPECT_TRUE(exited_ok(status)) TH_LOG("status %#x", status);
	self->pid = 0;
}

/*
 * Two slots: DR6 shows only the slot of the latest hit (bit 0 for the
 * write watch, bit 3 for the read/write watch on the word read).
 */
TEST_F(tracee, watch_two_slots)
{
	int i, status;

	ASSERT_EQ(0, poke_dr(self->pid, 0, (unsigned long)&wword));
	ASSERT_EQ(0, poke_dr(self->pid, 3, (unsigned long)&rword));
	ASSERT_EQ(0, poke_dr(self->pid, 7, DR7_SLOT(0, RW_WRITE, LEN_8) |
				       DR7_SLOT(3, RW_RDWR, LEN_4)));
	for (i = 0; i < NWRITES; i++) {
		ASSERT_TRUE(is_trap_stop(cont_wait(self->pid)));
		EXPECT_EQ(DR6_INIT | 1, peek_dr(self->pid, 6));
	}
	ASSERT_TRUE(is_trap_stop(cont_wait(self->pid)));
	EXPECT_EQ(DR6_INIT | 8, peek_dr(self->pid, 6));
	status = cont_wait(self->pid);
	EXPECT_TRUE(exited_ok(status)) TH_LOG("status %#x", status);
	self->pid = 0;
}

/* ---- slots shared with perf_event_open() ------------------------------------ */

/*
 * Each address register in use holds a slot even with DR7 clear: with
 * three set, one perf breakpoint fits on the tracee and a second is
 * ENOSPC; with four set, none fits.
 */
TEST_F(tracee, ptrace_slots_then_perf)
{
	int i, fd;

	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, poke_dr(self->pid, i, (unsigned long)spare[i]));
	fd = open_bp(self->pid, &wword);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(-ENOSPC, open_bp(self->pid, &rword));
	close(fd);
	ASSERT_EQ(0, poke_dr(self->pid, 3, (unsigned long)spare[3]));
	EXPECT_EQ(-ENOSPC, open_bp(self->pid, &wword));
	ASSERT_EQ(0, poke_dr(self->pid, 7, DR7_SLOT(0, RW_WRITE, LEN_8)));
	EXPECT_EQ(-ENOSPC, open_bp(self->pid, &wword));
	/* The calling task's own slots are not the tracee's. */
	fd = open_bp(0, &wword);
	EXPECT_GE(fd, 0);
	close(fd);
}

/*
 * With four perf breakpoints on the tracee, a fifth slot through ptrace
 * is ENOSPC, through an address register or DR7; closing one frees it.
 */
TEST_F(tracee, perf_slots_then_ptrace)
{
	int fd[4], i;

	for (i = 0; i < 4; i++) {
		fd[i] = open_bp(self->pid, spare[i]);
		ASSERT_GE(fd[i], 0);
	}
	EXPECT_EQ(ENOSPC, poke_dr(self->pid, 0, (unsigned long)&wword));
	EXPECT_EQ(0, peek_dr(self->pid, 0));
	EXPECT_EQ(ENOSPC, poke_dr(self->pid, 7, DR7_SLOT(1, RW_WRITE, LEN_8)));
	EXPECT_EQ(0, peek_dr(self->pid, 7));
	close(fd[2]);
	EXPECT_EQ(0, poke_dr(self->pid, 0, (unsigned long)&wword));
	EXPECT_EQ(ENOSPC, poke_dr(self->pid, 7, DR7_SLOT(1, RW_WRITE, LEN_8)));
	EXPECT_EQ(0, poke_dr(self->pid, 7, DR7_SLOT(0, RW_WRITE, LEN_8)));
	for (i = 0; i < 4; i++)
		if (i != 2)
			close(fd[i]);
}

/* execve() drops the ptrace breakpoints: registers read 0, slots are free. */
TEST(exec_releases_slots)
{
	int fd[4], i, status;
	pid_t pid;

	tracee_exec = 1;
	pid = start_tracee();
	ASSERT_GT(pid, 0);
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, poke_dr(pid, i, (unsigned long)spare[i]));
	ASSERT_EQ(0, poke_dr(pid, 7, DR7_SLOT(0, RW_WRITE, LEN_8)));
	EXPECT_EQ(-ENOSPC, open_bp(pid, &wword));
	status = cont_wait(pid);
	ASSERT_TRUE(is_trap_stop(status)) TH_LOG("status %#x", status);
	for (i = 0; i < 4; i++)
		EXPECT_EQ(0, peek_dr(pid, i));
	EXPECT_EQ(0, peek_dr(pid, 7));
	EXPECT_EQ(DR6_INIT, peek_dr(pid, 6));
	for (i = 0; i < 4; i++) {
		fd[i] = open_bp(pid, spare[i]);
		EXPECT_GE(fd[i], 0);
	}
	for (i = 0; i < 4; i++)
		close(fd[i]);
	status = cont_wait(pid);
	EXPECT_TRUE(exited_ok(status)) TH_LOG("status %#x", status);
}

/*
 * PTRACE_DETACH leaves the watchpoint armed: the no longer traced task
 * is killed by the SIGTRAP of its first write.
 */
TEST_F(tracee, detach_keeps_watch)
{
	int status;

	ASSERT_EQ(0, poke_dr(self->pid, 0, (unsigned long)&wword));
	ASSERT_EQ(0, poke_dr(self->pid, 7, DR7_SLOT(0, RW_WRITE, LEN_8)));
	ASSERT_EQ(0, ptrace(PTRACE_DETACH, self->pid, 0, 0));
	ASSERT_EQ(self->pid, waitpid(self->pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status)) TH_LOG("status %#x", status);
	EXPECT_EQ(SIGTRAP, WTERMSIG(status));
	self->pid = 0;
}

/* ---- offsets ------------------------------------------------------------------ */

/*
 * Misaligned offsets and offsets past the kernel's struct user are EIO;
 * the two words after u_debugreg[] read as 0 and are not writable.
 */
TEST_F(tracee, bad_offsets)
{
	int err;

	EXPECT_EQ(0, peek_at(self->pid, DR_OFF(8), &err));
	EXPECT_EQ(0, err);
	EXPECT_EQ(0, peek_at(self->pid, USER_END - 8, &err));
	EXPECT_EQ(0, err);
	EXPECT_EQ(EIO, poke_at(self->pid, DR_OFF(8), 0));
	peek_at(self->pid, USER_END, &err);
	EXPECT_EQ(EIO, err);
	EXPECT_EQ(EIO, poke_at(self->pid, USER_END, 0));

	peek_at(self->pid, DR_OFF(0) + 1, &err);
	EXPECT_EQ(EIO, err);
	peek_at(self->pid, DR_OFF(7) + 4, &err);
	EXPECT_EQ(EIO, err);
	EXPECT_EQ(EIO, poke_at(self->pid, DR_OFF(0) + 1, (unsigned long)&wword));
	EXPECT_EQ(EIO, poke_at(self->pid, DR_OFF(7) + 2, 0));
	EXPECT_EQ(0, peek_dr(self->pid, 0));
}

/* The registers are per tracee: a second tracee's read 0. */
TEST_F(tracee, per_task)
{
	pid_t other = start_tracee();

	ASSERT_GT(other, 0);
	ASSERT_EQ(0, poke_dr(self->pid, 0, (unsigned long)&wword));
	ASSERT_EQ(0, poke_dr(self->pid, 7, DR7_SLOT(0, RW_WRITE, LEN_8)));
	EXPECT_EQ(0, peek_dr(other, 0));
	EXPECT_EQ(0, peek_dr(other, 7));
	EXPECT_TRUE(exited_ok(cont_wait(other)));
	EXPECT_TRUE(is_trap_stop(cont_wait(self->pid)));
}

TEST_HARNESS_MAIN
