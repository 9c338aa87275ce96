/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What x86 code outside arch/x86/events takes from the PMU drivers.
 *
 * Two callers include this header by its path, and it gives them exactly
 * what they use, nothing of the drivers' internals (x86_pmu.h has those):
 *
 *  - resctrl's cache pseudo-locking (arch/x86/kernel/cpu/resctrl) writes
 *    the raw config of its measuring events with X86_CONFIG();
 *  - Xen's PV PMU (arch/x86/xen/pmu.c) receives the counters' overflow
 *    as an event channel interrupt, not as an NMI, and hands it to the
 *    drivers through x86_pmu.handle_irq().
 *
 * Lifetime: x86_pmu is constant and built in; handle_irq may be called
 * from any interrupt or NMI context on the CPU whose counters overflowed.
 */
#ifndef _X86_EVENTS_PERF_EVENT_H
#define _X86_EVENTS_PERF_EVENT_H

#include <linux/perf_event.h>
#include <asm/msr.h>
#include <asm/perf_event.h>

/*
 * The performance event select register (IA32_PERFEVTSELx, AMD's
 * PERF_CTLx) as named fields; X86_CONFIG(.event = 0xd1, .umask = 0x10)
 * gives the attribute's raw config for that event.
 */
union x86_pmu_config {
	struct {
		u64 event:8,		/* event select, bits 7:0 */
		    umask:8,		/* unit mask */
		    usr:1,		/* count at CPL > 0 */
		    os:1,		/* count at CPL 0 */
		    edge:1,		/* count rising edges */
		    pc:1,		/* pin control */
		    interrupt:1,	/* PMI on overflow */
		    __reserved1:1,	/* AnyThread on old Intel parts */
		    en:1,		/* counter enable */
		    inv:1,		/* invert the cmask comparison */
		    cmask:8,		/* counter mask, bits 31:24 */
		    event2:4,		/* AMD: event select bits 11:8 */
		    __reserved2:4,
		    go:1,		/* AMD: count in the guest only */
		    ho:1;		/* AMD: count in the host only */
	} bits;
	u64 value;
};

#define X86_CONFIG(args...) (((union x86_pmu_config){ .bits = { args } }).value)

/**
 * struct x86_pmu_irq - the drivers' overflow interrupt entry
 * @handle_irq: handle the counters' overflow on this CPU with @regs as the
 *	interrupted registers; returns how many overflows it handled, 0 when
 *	the interrupt was not the PMU's
 */
struct x86_pmu_irq {
	int (*handle_irq)(struct pt_regs *regs);
};

extern const struct x86_pmu_irq x86_pmu;

#endif /* _X86_EVENTS_PERF_EVENT_H */
