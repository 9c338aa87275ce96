// SPDX-License-Identifier: GPL-2.0-only
/*
 * x86 glue of the perf core.
 *
 * There is no hardware counter driver yet: hardware, cache and raw events
 * find no PMU and fail with -ENOENT, which is also what happens on a CPU
 * without a PMU (QEMU's TCG).  What remains here are the hooks the rest of
 * the x86 kernel and the perf core call.
 */
#include <linux/perf_event.h>
#include <linux/ptrace.h>

#include <linux/sched/clock.h>

#include <asm/perf_event.h>
#include <asm/mmu_context.h>
#include <asm/timer.h>
#include <asm/pgtable.h>
#include <asm/intel_ds.h>

/* Whether user space may use rdpmc regardless of mapped events (sysfs). */
DEFINE_STATIC_KEY_FALSE(rdpmc_never_available_key);
DEFINE_STATIC_KEY_FALSE(rdpmc_always_available_key);

#ifdef CONFIG_CPU_SUP_INTEL
/* The PEBS/BTS save area; the CPU entry area maps it on every CPU. */
DEFINE_PER_CPU_PAGE_ALIGNED(struct debug_store, cpu_debug_store);

/**
 * perf_restore_debug_store - point the CPU at its debug store again
 *
 * Called on resume from suspend, where IA32_DS_AREA comes back zeroed.
 * The debug store only matters to BTS and PEBS, and no driver here uses
 * them: the MSR was never programmed, so there is nothing to restore.
 */
void perf_restore_debug_store(void)
{
}
#endif

/**
 * perf_events_lapic_init - program the local APIC's performance vector
 *
 * Nothing to program without a counter driver.
 */
void perf_events_lapic_init(void)
{
}

/**
 * perf_check_microcode - re-check errata after a microcode update
 */
void perf_check_microcode(void)
{
}

/**
 * perf_clear_dirty_counters - clear counters user space could read by rdpmc
 *
 * Called on a switch of mm; nothing is ever exposed to rdpmc here.
 */
void perf_clear_dirty_counters(void)
{
}

/**
 * perf_instruction_pointer - the instruction pointer a sample reports
 * @regs: the sampled registers
 *
 * Return: the address.
 */
unsigned long perf_instruction_pointer(struct pt_regs *regs)
{
	return regs->ip;
}

/**
 * perf_misc_flags - the cpumode bits of a sample's header
 * @regs: the sampled registers
 *
 * Return: PERF_RECORD_MISC_USER or PERF_RECORD_MISC_KERNEL.
 */
unsigned long perf_misc_flags(struct pt_regs *regs)
{
	return user_mode(regs) ? PERF_RECORD_MISC_USER : PERF_RECORD_MISC_KERNEL;
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

/**
 * perf_event_print_debug - dump the PMU's registers (sysrq)
 */
void perf_event_print_debug(void)
{
	pr_info("perf: no hardware PMU driver\n");
}

/**
 * arch_perf_update_userpage - the architecture's part of the control page
 * @event: the event
 * @userpg: the page
 * @now: perf_clock() at the time the page's times were taken
 *
 * No counter can be read with rdpmc here.  When the scheduler clock is the
 * TSC and stable, user space can turn a TSC value into the perf clock:
 * time = time_offset + (tsc * time_mult) >> time_shift, and with
 * cap_user_time_zero, time_zero gives the clock's origin.
 */
void arch_perf_update_userpage(struct perf_event *event,
			       struct perf_event_mmap_page *userpg, u64 now)
{
	struct cyc2ns_data cyc;
	u64 base;

	userpg->cap_user_rdpmc = 0;
	userpg->pmc_width = 0;
	userpg->cap_user_time = 0;
	userpg->cap_user_time_zero = 0;
	if (!using_native_sched_clock() || !sched_clock_stable())
		return;

	cyc2ns_read_begin(&cyc);
	base = cyc.cyc2ns_offset + __sched_clock_offset;
	userpg->cap_user_time = 1;
	userpg->time_mult = cyc.cyc2ns_mul;
	userpg->time_shift = cyc.cyc2ns_shift;
	userpg->time_offset = base - now;
	/* Records of a clockid event are not in this clock's domain. */
	if (!event->attr.use_clockid) {
		userpg->cap_user_time_zero = 1;
		userpg->time_zero = base;
	}
	cyc2ns_read_end();
}
