// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kind of a branch record, from the instruction at its source.
 *
 * Branch records give two addresses and, on most models, no kind: a
 * filter the hardware cannot apply (or applies only roughly) and the
 * branch types PERF_SAMPLE_BRANCH_TYPE_SAVE asks for are found by
 * decoding the instruction at the source.  A user source is read with
 * copy_from_user_nmi() from the current task (the records are read in
 * the PMI, for the task that ran); a kernel source only when it is
 * kernel text (a faulting user instruction pointer may have been
 * recorded with a kernel-looking address).  A record whose target is in
 * the kernel and whose source is a user instruction that enters none
 * (SYSCALL, SYSENTER, INT) is an interrupt, a trap or a fault.  Where the
 * hardware names the first instruction of a fused pair (a compare and
 * the conditional jump after it) instead of the branch, the branch is
 * looked for in the bytes that follow (x86_branch_kind_fused()).
 *
 * Each kind is kept by the branch_sample_type bits that select it, and
 * has a PERF_BR_* type, the ones upstream reports for x86.
 *
 * Locking: none; runs in any context, NMI included.
 */
#include <linux/mm.h>
#include <linux/perf_event.h>
#include <linux/uaccess.h>

#include <asm/insn.h>
#include <asm/ptrace.h>

#include "branch_kind.h"

#define ANY		PERF_SAMPLE_BRANCH_ANY
#define CALLS		(ANY | PERF_SAMPLE_BRANCH_ANY_CALL)
#define RETURNS		(ANY | PERF_SAMPLE_BRANCH_ANY_RETURN)
#define STACK		PERF_SAMPLE_BRANCH_CALL_STACK

static const struct {
	u64 filters;	/* the branch_sample_type bits that keep it */
	int type;	/* PERF_BR_* */
} kinds[X86_BRK_MAX] = {
	[X86_BRK_NONE]	    = { 0, PERF_BR_UNKNOWN },
	[X86_BRK_JCC]	    = { ANY | PERF_SAMPLE_BRANCH_COND, PERF_BR_COND },
	[X86_BRK_JMP]	    = { ANY, PERF_BR_UNCOND },
	[X86_BRK_IND_JMP]   = { ANY | PERF_SAMPLE_BRANCH_IND_JUMP, PERF_BR_IND },
	[X86_BRK_CALL]	    = { CALLS | PERF_SAMPLE_BRANCH_CALL | STACK, PERF_BR_CALL },
	[X86_BRK_ZERO_CALL] = { CALLS | PERF_SAMPLE_BRANCH_CALL, PERF_BR_CALL },
	[X86_BRK_IND_CALL]  = { CALLS | PERF_SAMPLE_BRANCH_IND_CALL | STACK,
				PERF_BR_IND_CALL },
	[X86_BRK_RET]	    = { RETURNS | STACK, PERF_BR_RET },
	[X86_BRK_SYSCALL]   = { CALLS, PERF_BR_SYSCALL },
	[X86_BRK_SYSRET]    = { RETURNS, PERF_BR_SYSRET },
	[X86_BRK_INT]	    = { CALLS, PERF_BR_UNKNOWN },
	[X86_BRK_IRET]	    = { RETURNS, PERF_BR_ERET },
	[X86_BRK_IRQ]	    = { CALLS, PERF_BR_IRQ },
	[X86_BRK_ABORT]	    = { ANY | PERF_SAMPLE_BRANCH_ABORT_TX, PERF_BR_UNKNOWN },
};

/**
 * x86_branch_kind_filters - the filters that keep a kind of branch
 * @kind: the kind
 *
 * Return: the branch_sample_type bits (of those naming kinds) any of
 * which keeps a record of @kind.
 */
u64 x86_branch_kind_filters(enum x86_branch_kind kind)
{
	return kinds[kind].filters;
}

/**
 * x86_branch_kind_perf_type - the branch type a kind is reported as
 * @kind: the kind
 *
 * Return: its PERF_BR_* type.
 */
int x86_branch_kind_perf_type(enum x86_branch_kind kind)
{
	return kinds[kind].type;
}

/* The kind of the decoded instruction, or NONE when it is no branch. */
static enum x86_branch_kind decode_kind(struct insn *insn)
{
	u8 op;

	if (insn_get_opcode(insn))
		return X86_BRK_NONE;
	op = insn->opcode.bytes[0];
	if (op == 0x0f) {
		op = insn->opcode.bytes[1];
		if (op >= 0x80 && op <= 0x8f)
			return X86_BRK_JCC;
		if (op == 0x05 || op == 0x34)
			return X86_BRK_SYSCALL;
		if (op == 0x07 || op == 0x35)
			return X86_BRK_SYSRET;
		return X86_BRK_NONE;
	}
	if ((op >= 0x70 && op <= 0x7f) || (op >= 0xe0 && op <= 0xe3))
		return X86_BRK_JCC;
	switch (op) {
	case 0xc2: case 0xc3: case 0xca: case 0xcb:
		return X86_BRK_RET;
	case 0xcc: case 0xcd: case 0xce:
		return X86_BRK_INT;
	case 0xcf:
		return X86_BRK_IRET;
	case 0xe8:
		/* A call of the next instruction pushes its address only. */
		if (insn_get_immediate(insn) || !insn->immediate.value)
			return X86_BRK_ZERO_CALL;
		return X86_BRK_CALL;
	case 0x9a:
		return X86_BRK_CALL;
	case 0xe9: case 0xea: case 0xeb:
		return X86_BRK_JMP;
	case 0xff:
		if (insn_get_modrm(insn))
			return X86_BRK_NONE;
		switch (X86_MODRM_REG(insn->modrm.value)) {
		case 2: case 3:
			return X86_BRK_IND_CALL;
		case 4: case 5:
			return X86_BRK_IND_JMP;
		}
	}
	return X86_BRK_NONE;
}

/*
 * The kind of the instruction at @text, @len bytes of it there.  With
 * @fused, of the first branch in those bytes, @skip getting how far
 * after @text it starts: on some CPUs a record's source is the
 * instruction fused with the branch after it (a compare before a
 * conditional jump).  @skip is 0 when no branch is found.
 */
static enum x86_branch_kind decode_first(const u8 *text, int len, bool is64,
					 bool fused, int *skip)
{
	enum x86_branch_kind kind;
	struct insn insn;
	int off = 0;

	for (;;) {
		insn_init(&insn, text + off, len - off, is64);
		kind = decode_kind(&insn);
		if (kind != X86_BRK_NONE || !fused)
			break;
		if (insn_get_length(&insn) || !insn.length ||
		    off + insn.length >= len)
			break;
		off += insn.length;
	}
	*skip = kind == X86_BRK_NONE ? 0 : off;
	return kind;
}

/* x86_branch_kind(), looking past fused instructions with @fused. */
static enum x86_branch_kind branch_kind_at(unsigned long from, unsigned long to,
					   bool abort, bool fused, int *skip)
{
	u8 buf[MAX_INSN_SIZE];
	enum x86_branch_kind kind;
	const u8 *text = buf;
	bool user = !x86_kernel_ip(from), is64 = true;
	int len = MAX_INSN_SIZE;

	*skip = 0;
	if (!from || !to)
		return X86_BRK_NONE;
	if (abort)
		return X86_BRK_ABORT;
	if (user) {
		if (!current->mm)
			return X86_BRK_NONE;
		len -= copy_from_user_nmi(buf, (void __user *)from, len);
		if (!len)
			return X86_BRK_NONE;
#ifdef CONFIG_X86_64
		is64 = any_64bit_mode(current_pt_regs());
#endif
	} else {
		if (!kernel_text_address(from) || in_gate_area_no_mm(from))
			return X86_BRK_NONE;
		text = (const u8 *)from;
	}
	kind = decode_first(text, len, is64, fused, skip);
	/* Into the kernel from an instruction that does not enter it. */
	if (user && x86_kernel_ip(to) && kind != X86_BRK_SYSCALL &&
	    kind != X86_BRK_INT)
		kind = X86_BRK_IRQ;
	return kind;
}

/**
 * x86_branch_kind - the kind of a branch record
 * @from: its source
 * @to: its target
 * @abort: it is a transaction's abort
 *
 * Return: the kind, %X86_BRK_NONE for an empty record (a source or target
 * of 0) or one whose source cannot be read or decoded.
 */
enum x86_branch_kind x86_branch_kind(unsigned long from, unsigned long to,
				     bool abort)
{
	int skip;

	return branch_kind_at(from, to, abort, false, &skip);
}

/**
 * x86_branch_kind_fused - the kind of a branch record whose source may be
 *	an instruction fused with the branch after it
 * @from: its source
 * @to: its target
 * @skip: set to how far after @from the branch is (0: at @from, or none
 *	found)
 *
 * For records that name the first instruction of a fused pair (AMD's
 * last branch records): when the instruction at @from is no branch, the
 * first branch in the MAX_INSN_SIZE bytes from @from is taken instead.
 *
 * Return: the kind, as x86_branch_kind() gives it for @from + *@skip.
 */
enum x86_branch_kind x86_branch_kind_fused(unsigned long from,
					   unsigned long to, int *skip)
{
	return branch_kind_at(from, to, false, true, skip);
}
