/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What kind of control transfer a branch record is (branch_kind.c), for
 * the branch stack drivers' filters and PERF_SAMPLE_BRANCH_TYPE_SAVE.
 */
#ifndef _X86_EVENTS_BRANCH_KIND_H
#define _X86_EVENTS_BRANCH_KIND_H

#include <linux/types.h>

#include <asm/page.h>

/* The kinds, as told by the instruction at the record's source. */
enum x86_branch_kind {
	X86_BRK_NONE,		/* unknown: no record, unreadable, not a branch */
	X86_BRK_JCC,		/* conditional: Jcc, LOOPcc, JCXZ */
	X86_BRK_JMP,		/* direct jump, near or far */
	X86_BRK_IND_JMP,	/* indirect jump */
	X86_BRK_CALL,		/* direct call, near or far */
	X86_BRK_ZERO_CALL,	/* call to the next instruction */
	X86_BRK_IND_CALL,	/* indirect call */
	X86_BRK_RET,		/* return, near or far */
	X86_BRK_SYSCALL,	/* SYSCALL, SYSENTER */
	X86_BRK_SYSRET,		/* SYSRET, SYSEXIT */
	X86_BRK_INT,		/* INT3, INT n, INTO */
	X86_BRK_IRET,		/* IRET */
	X86_BRK_IRQ,		/* from user to kernel by anything else */
	X86_BRK_ABORT,		/* a transaction's abort */
	X86_BRK_MAX
};

/* Whether @ip, a record's address, is the kernel's (not user space's). */
static inline bool x86_kernel_ip(unsigned long ip)
{
#ifdef CONFIG_X86_32
	return ip >= PAGE_OFFSET;
#else
	return (long)ip < 0;
#endif
}

enum x86_branch_kind x86_branch_kind(unsigned long from, unsigned long to,
				     bool abort);
enum x86_branch_kind x86_branch_kind_fused(unsigned long from,
					   unsigned long to, int *skip);
u64 x86_branch_kind_filters(enum x86_branch_kind kind);
int x86_branch_kind_perf_type(enum x86_branch_kind kind);

#endif
