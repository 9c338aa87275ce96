// SPDX-License-Identifier: GPL-2.0-only
/*
 * Call chains on x86: the kernel part with the kernel's unwinder, the
 * user part by following the frame pointer chain of a 64-bit task.
 *
 * Context: called from sample output, possibly in NMI, with interrupts
 * off; user memory is read with page faults disabled, so a frame that is
 * not present simply ends the chain.
 */
#include <linux/perf_event.h>
#include <linux/uaccess.h>

#include <asm/stacktrace.h>
#include <asm/unwind.h>
#include <asm/tlbflush.h>

/* Registers that come from a real exception frame (not made up). */
static bool frame_is_real(struct pt_regs *regs)
{
	return regs->flags & X86_EFLAGS_FIXED;
}

/**
 * perf_callchain_kernel - store the kernel return addresses of a sample
 * @entry: the chain being built
 * @regs: the interrupted kernel registers
 */
void perf_callchain_kernel(struct perf_callchain_entry_ctx *entry,
			   struct pt_regs *regs)
{
	struct unwind_state state;
	unsigned long ret;

	/* A guest's stack is not this kernel's to walk. */
	if (perf_guest_state())
		return;
	if (perf_callchain_store(entry, regs->ip))
		return;
	/*
	 * A made-up frame (a software event raised from C code) only has
	 * a stack pointer to start from; a real one is unwound through.
	 */
	if (frame_is_real(regs))
		unwind_start(&state, current, regs, NULL);
	else
		unwind_start(&state, current, NULL, (void *)regs->sp);

	for (; !unwind_done(&state); unwind_next_frame(&state)) {
		ret = unwind_get_return_address(&state);
		if (!ret || perf_callchain_store(entry, ret))
			break;
	}
}

/* A user frame: saved frame pointer, then return address. */
struct user_frame {
	unsigned long next;
	unsigned long ret;
};

/**
 * perf_callchain_user - store the user return addresses of a sample
 * @entry: the chain being built
 * @regs: the task's user registers
 *
 * Each frame is read inside one user-access window with inline
 * exception-table loads: no call per word, and nothing that can fault
 * in a way that sleeps (page faults are disabled).
 */
void perf_callchain_user(struct perf_callchain_entry_ctx *entry,
			 struct pt_regs *regs)
{
	const struct user_frame __user *fp = (const void __user *)regs->bp;
	unsigned long next, ret;

	if (perf_guest_state())
		return;
	perf_callchain_store(entry, regs->ip);
	/* The user address space may not be the current one (lazy mm). */
	if (!nmi_uaccess_okay())
		return;
	/* Only 64-bit frame chains are followed. */
	if (!user_64bit_mode(regs))
		return;

	pagefault_disable();
	while (fp && entry->nr < entry->max_stack) {
		if (!user_access_begin(fp, sizeof(*fp)))
			break;
		unsafe_get_user(next, &fp->next, fault);
		unsafe_get_user(ret, &fp->ret, fault);
		user_access_end();
		if (perf_callchain_store(entry, ret))
			break;
		/* Frames go up the stack; anything else is not a chain. */
		if (next <= (unsigned long)fp)
			break;
		fp = (const void __user *)next;
	}
	pagefault_enable();
	return;

fault:
	user_access_end();
	pagefault_enable();
}
