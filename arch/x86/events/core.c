// SPDX-License-Identifier: GPL-2.0-only
/*
 * x86 glue of the perf core.
 *
 * The hooks the rest of the x86 kernel and the perf core call that do
 * not belong to the counter driver (x86_pmu.c): sample flags, page sizes
 * for data addresses, the debug store, microcode.
 */
#include <linux/perf_event.h>
#include <linux/ptrace.h>

#include <linux/mmu_context.h>
#include <linux/pgtable.h>
#include <linux/sched/clock.h>

#include <asm/perf_event.h>
#include <asm/timer.h>
#include <asm/intel_ds.h>

/* Whether user space may use rdpmc regardless of mapped events (sysfs). */
DEFINE_STATIC_KEY_FALSE(rdpmc_never_available_key);
DEFINE_STATIC_KEY_FALSE(rdpmc_always_available_key);

#ifdef CONFIG_CPU_SUP_INTEL
/*
 * The PEBS/BTS save area; the CPU entry area maps it on every CPU.
 * intel_pebs.c fills it and points the CPU at it.
 */
DEFINE_PER_CPU_PAGE_ALIGNED(struct debug_store, cpu_debug_store);
#endif

/**
 * perf_check_microcode - re-check errata after a microcode update
 */
void perf_check_microcode(void)
{
}

/**
 * perf_instruction_pointer - the instruction pointer a sample reports
 * @regs: the sampled registers
 *
 * When the interrupt came while this CPU ran a guest, the guest's
 * instruction pointer, as its hypervisor reports it.
 *
 * Return: the address.
 */
unsigned long perf_instruction_pointer(struct pt_regs *regs)
{
	if (perf_guest_state())
		return perf_guest_get_ip();
	return regs->ip;
}

/**
 * perf_misc_flags - the cpumode bits of a sample's header
 * @regs: the sampled registers
 *
 * Return: PERF_RECORD_MISC_USER or PERF_RECORD_MISC_KERNEL, or their
 * GUEST_ forms when the interrupt came while this CPU ran a guest; with
 * PERF_RECORD_MISC_EXACT_IP when a precise event's record gave the
 * exact instruction (PERF_EFLAGS_EXACT in @regs).
 */
unsigned long perf_misc_flags(struct pt_regs *regs)
{
	unsigned int guest = perf_guest_state();
	unsigned long misc;

	if (guest)
		misc = guest & PERF_GUEST_USER ? PERF_RECORD_MISC_GUEST_USER :
						 PERF_RECORD_MISC_GUEST_KERNEL;
	else
		misc = user_mode(regs) ? PERF_RECORD_MISC_USER :
					 PERF_RECORD_MISC_KERNEL;
	if (regs->flags & PERF_EFLAGS_EXACT)
		misc |= PERF_RECORD_MISC_EXACT_IP;
	return misc;
}

/**
 * perf_arch_mapped_page_size - size of the page that maps @addr in @mm
 * @mm: the address space
 * @addr: the address
 *
 * Called with interrupts off, which keeps page tables alive on x86.
 *
 * Return: the size in bytes, or 0 when nothing is mapped there.
 */
u64 perf_arch_mapped_page_size(struct mm_struct *mm, unsigned long addr)
{
	unsigned int level;
	pte_t *pte = lookup_address_in_pgd(pgd_offset(mm, addr), addr, &level);

	if (!pte || !pte_present(*pte))
		return 0;
	return page_level_size(level);
}
