// SPDX-License-Identifier: GPL-2.0-only
/*
 * amd_ibs: AMD's instruction-based sampling, as two PMUs of their own:
 * "ibs_fetch" samples instruction fetches, "ibs_op" the ops the core
 * dispatches.  Each is one unit a CPU: a control register with the data
 * registers after it (IbsFetchCtl, then the fetch's linear and physical
 * address; IbsOpCtl, then the op's RIP, IbsOpData 1 to 3 and the linear
 * and physical address of its data), and the registers CPUID 0x8000001B
 * says are there besides (IbsBrTarget, IbsOpData4, the fetch's extended
 * control).
 *
 * The hardware: software writes MaxCnt, the period in sixteens (ibs_op
 * has seven more bits at 26:20 with OpCntExt), and En.  The unit counts
 * fetches, or cycles or dispatched ops (CntCtl); when the count reaches
 * MaxCnt it tags the next fetch or op, and when that completes it fills
 * the data registers, sets Val, stops counting and raises an NMI through
 * the local APIC's extended LVT entry whose offset IbsCtl gives.  The NMI
 * reads the registers and writes the control again to go on.
 *
 * Periods: a sample period is a multiple of 16, at least 16 (the low four
 * bits of attr.sample_period are dropped in any mode, as 6.12 does: its
 * test meant to refuse them reads the period through sample_freq, its
 * union twin, so it never refuses).  An event made counting (no period)
 * takes its period from MaxCnt in attr.config and becomes a sampling
 * event, as upstream's do (the core then gives it the state samples
 * need).  A period beyond the
 * unit's longest hardware one runs in pieces, the last piece the
 * longest.  In frequency mode the core may ask for periods below 16: the
 * unit then runs 16.
 *
 * Counts: an event's count is what its unit counted: at each Val the
 * hardware period that ended, and when it stops what the unit counted
 * since it was armed (FetchCnt; IbsOpCtl's CurCnt with RdWrOpCnt, else
 * nothing).  read() adds nothing while the event runs, as upstream: the
 * count moves at samples and stops.
 *
 * The sample: its IP is the fetch's address or the op's RIP, exact,
 * unless the op unit says that RIP is not valid (then the interrupted
 * IP, not exact); its callchain is the interrupted context's.
 * PERF_SAMPLE_RAW is the u32 capabilities, then the control and data
 * registers in address order, then IbsBrTarget and IbsOpData4 (ibs_op)
 * or the extended control (ibs_fetch) where CPUID has them.  Of a load
 * or store op, the data address, its physical address, the data source
 * and (loads that missed the data cache) the miss latency as the weight,
 * decoded as upstream's driver does: that is what perf mem reads.
 *
 * Late NMIs: once a unit has set Val, its NMI may come after software has
 * switched the unit off.  Whoever clears ibs_cpu.armed owns the unit's
 * sample: the NMI when it finds Val, stop() when it switches the unit off
 * first, having set ibs_cpu.late; an NMI that finds the unit unarmed and
 * late set takes it as the late one and clears it.  As with upstream's
 * driver, a late flag whose NMI never comes takes one unknown NMI.
 *
 * Not here: family 10h, whose firmware gives IBS no LVT offset (upstream
 * assigns one through the northbridge's PCI registers); IBS is then not
 * set up there, with a firmware-bug message.
 *
 * Locking: the per-CPU state and the units' registers are touched on
 * their CPU only, with interrupts off (add, del, start, stop, called by
 * the core) or in the NMI, which may come between any two steps of the
 * others: the order of armed, late and the register writes (each step a
 * single store the NMI sees in program order) is what keeps them apart.
 * Once an event is added, its count, period_left and prev_count are
 * changed only by the unit's owner at the time.  The descriptions of the
 * units are set once at boot, before the PMUs are registered.
 */
#include <linux/bitfield.h>
#include <linux/cpuhotplug.h>
#include <linux/export.h>
#include <linux/hardirq.h>
#include <linux/init.h>
#include <linux/kprobes.h>
#include <linux/nmi.h>
#include <linux/perf_event.h>
#include <linux/sched/clock.h>
#include <linux/syscore_ops.h>

#include <asm/amd-ibs.h>
#include <asm/apic.h>
#include <asm/msr.h>
#include <asm/perf_event.h>
#include <asm/processor-flags.h>

#include "branch_kind.h"
#include "x86_pmu.h"

/* MaxCnt and the counts count sixteens: a hardware period's low bits. */
#define IBS_SHIFT		4
#define IBS_MIN_PERIOD		16
/* IbsOpCtl's current count, 27 bits with RdWrOpCnt. */
#define IBS_OP_COUNT		GENMASK_ULL(58, 32)

/* An op register's place in a record: its distance from IbsOpCtl. */
#define IBS_OP_AT(msr)		((msr) - MSR_AMD64_IBSOPCTL)
/* The op registers up to IbsOpData, whose RipInvalid bit says of the RIP. */
#define IBS_OP_TO_DATA		(IBS_OP_AT(MSR_AMD64_IBSOPDATA) + 1)
/* The most registers a record holds: the op unit's, and two besides. */
#define IBS_RECORD_REGS		(MSR_AMD64_IBSOP_REG_COUNT + 2)

/* What an op sample asks of the data registers. */
#define IBS_MEM_SAMPLE		(PERF_SAMPLE_ADDR | PERF_SAMPLE_PHYS_ADDR | \
				 PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_WEIGHT_TYPE)

enum { IBS_FETCH, IBS_OP, IBS_UNITS };

/**
 * struct ibs_cpu - one unit of one CPU
 * @event: the event added here, NULL when none
 * @armed: the unit runs for @event, which its next Val is a sample of
 * @late: the unit was switched off while it ran: the first NMI that is
 *	not otherwise ours is its own, come late
 */
struct ibs_cpu {
	struct perf_event *event;
	bool armed;
	bool late;
};

static DEFINE_PER_CPU(struct ibs_cpu, ibs_fetch_cpu);
static DEFINE_PER_CPU(struct ibs_cpu, ibs_op_cpu);

/* A register read into a raw record when CPUID has @cap. */
struct ibs_extra {
	u32 cap;
	u32 msr;
};

/**
 * struct ibs_unit - one of the two units, as all CPUs have it
 * @pmu: its PMU
 * @cpu: its per-CPU state
 * @op: the op unit (else the fetch unit)
 * @ctl: its control register, the data registers right after it
 * @regs: the control and data registers
 * @extra: the registers a raw record adds, 0-terminated
 * @config_mask: the attr.config bits user space may set
 * @count_mask: the control's count fields: MaxCnt (the period of a
 *	counting event, in attr.config) and the current count
 * @en: the enable bit
 * @val: the valid bit
 * @max_period: the longest hardware period
 * @count: what the unit counted since it was armed, by its control
 * @en_toggle: the count restarts only when En goes from 0 to 1 (the
 *	fetch unit of families 16h to 18h)
 * @zero_ip: a fetch sample at address 0 is no sample (erratum 1197,
 *	family 19h before model 10h)
 */
struct ibs_unit {
	struct pmu pmu;
	struct ibs_cpu __percpu *cpu;
	bool op;
	u32 ctl;
	int regs;
	const struct ibs_extra *extra;
	u64 config_mask;
	u64 count_mask;
	u64 en;
	u64 val;
	u64 max_period;
	u64 (*count)(u64 ctl);
	bool en_toggle;
	bool zero_ip;
};

/*
 * A sample's raw record: the capabilities, then the registers.  The u32
 * before them puts the registers at an 8-byte boundary; the record user
 * space sees starts at @caps.
 */
struct ibs_record {
	u32 align;
	u32 caps;
	u64 regs[IBS_RECORD_REGS];
};

/* CPUID 0x8000001B EAX, once the interrupt is known to be deliverable. */
static u32 ibs_features __ro_after_init;
/* Erratum 1293: IbsOpData2 and the L2 miss bit are unreliable on some ops. */
static bool ibs_zen3_data2 __ro_after_init;
/* IbsOpData2's CacheHitSt means something (not family 19h models 0-Fh, 20h-5Fh). */
static bool ibs_hit_state __ro_after_init;

static struct ibs_unit ibs_units[IBS_UNITS];

static bool ibs_has(u32 cap)
{
	return ibs_features & cap;
}

static struct ibs_unit *ibs_unit_of(struct perf_event *event)
{
	return container_of(event->pmu, struct ibs_unit, pmu);
}

static u64 ibs_fetch_count(u64 ctl)
{
	return FIELD_GET(IBS_FETCH_CNT, ctl) << IBS_SHIFT;
}

/* An IbsOpCtl's period: MaxCnt, and its upper bits with OpCntExt. */
static u64 ibs_op_period(u64 ctl)
{
	u64 period = (ctl & IBS_OP_MAX_CNT) << IBS_SHIFT;

	if (ibs_has(IBS_CAPS_OPCNTEXT))
		period |= ctl & IBS_OP_MAX_CNT_EXT_MASK;
	return period;
}

/*
 * With Val the count reached MaxCnt (CurCnt then holds random low bits,
 * not the count); else CurCnt, which only RdWrOpCnt makes readable.
 */
static u64 ibs_op_count(u64 ctl)
{
	if (ctl & IBS_OP_VAL)
		return ibs_op_period(ctl);
	if (ibs_has(IBS_CAPS_RDWROPCNT))
		return FIELD_GET(IBS_OP_COUNT, ctl);
	return 0;
}

/* The control's MaxCnt fields for a hardware period @hw. */
static u64 ibs_maxcnt(struct ibs_unit *u, u64 hw)
{
	u64 high = 0;

	/* OpCntExt: the period's bits 26:20 stand where they are. */
	if (u->op && ibs_has(IBS_CAPS_OPCNTEXT))
		high = hw & IBS_OP_MAX_CNT_EXT_MASK;
	return high | (hw & ~high) >> IBS_SHIFT;
}

/*
 * The next hardware period, from what is left of the sample period, in
 * @hw; the count starts again from 0.  True when a sample period ended
 * (a sample is due).  A sample period longer than the unit's longest
 * runs in pieces, the last one the longest, so that the NMI before the
 * sample does not come just before it.
 */
static bool ibs_next_period(struct ibs_unit *u, struct hw_perf_event *hwc, u64 *hw)
{
	s64 period = hwc->sample_period, max = u->max_period;
	s64 left = local64_read(&hwc->period_left);
	bool due = false;

	/* Far past its end (the period shrank): a fresh one. */
	if (unlikely(left <= -period)) {
		left = period;
		due = true;
	}
	if (left < IBS_MIN_PERIOD) {
		left += period;
		due = true;
	}
	if (due) {
		local64_set(&hwc->period_left, left);
		hwc->last_period = period;
	}
	if (left > max)
		left = clamp_t(s64, left - max, IBS_MIN_PERIOD, max);
	*hw = max_t(s64, left, IBS_MIN_PERIOD);
	local64_set(&hwc->prev_count, 0);
	return due;
}

/* Fold what the unit counted since the last fold into the event's count. */
static void ibs_fold(struct ibs_unit *u, struct perf_event *event, u64 ctl)
{
	struct hw_perf_event *hwc = &event->hw;
	u64 now = u->count(ctl);
	u64 delta = now - local64_read(&hwc->prev_count);

	local64_set(&hwc->prev_count, now);
	local64_add(delta, &event->count);
	local64_sub(delta, &hwc->period_left);
}

/*
 * Switch the unit off from its control @ctl: counts, Val and En cleared.
 * Family 10h's unit may raise an interrupt it cannot clear unless its
 * count goes before En (erratum 420).
 */
static void ibs_switch_off(struct ibs_unit *u, u64 ctl)
{
	ctl &= ~u->count_mask;
	if (boot_cpu_data.x86 == 0x10)
		wrmsrl(u->ctl, ctl);
	wrmsrl(u->ctl, ctl & ~(u->en | u->val));
}

/*
 * Run the unit for @event for a hardware period @hw; @keep: bits of the
 * control carried over (the op count's random low bits).
 */
static void ibs_arm(struct ibs_unit *u, struct perf_event *event, u64 hw, u64 keep)
{
	struct ibs_cpu *pc = this_cpu_ptr(u->cpu);
	u64 ctl = event->hw.config | keep | ibs_maxcnt(u, hw);

	if (u->en_toggle)
		wrmsrl(u->ctl, ctl);
	/* Before En: the NMI of a sample that comes at once must find it. */
	WRITE_ONCE(pc->armed, true);
	barrier();
	wrmsrl(u->ctl, ctl | u->en);
}

/*
 * Switch the unit off under @event and fold its count, unless it is off
 * already.  late is set before armed is taken: an NMI in between, or
 * the one of a sample the unit makes before it is off, is then taken.
 */
static void ibs_halt(struct ibs_unit *u, struct perf_event *event)
{
	struct ibs_cpu *pc = this_cpu_ptr(u->cpu);
	u64 ctl;

	if (!READ_ONCE(pc->armed))
		return;
	WRITE_ONCE(pc->late, true);
	barrier();
	if (!xchg(&pc->armed, false))
		return;
	rdmsrl(u->ctl, ctl);
	ibs_switch_off(u, ctl);
	ibs_fold(u, event, ctl);
}

/* Flags and periods are ignored: the unit keeps no state to resume. */
static void ibs_start(struct perf_event *event, int flags)
{
	struct ibs_unit *u = ibs_unit_of(event);
	struct hw_perf_event *hwc = &event->hw;
	u64 hw;

	if (WARN_ON_ONCE(!(hwc->state & PERF_HES_STOPPED)))
		return;
	hwc->state = 0;
	ibs_next_period(u, hwc, &hw);
	ibs_arm(u, event, hw, 0);
	perf_event_update_userpage(event);
}

/* The count is always brought up to date: the unit cannot keep it. */
static void ibs_stop(struct perf_event *event, int flags)
{
	struct hw_perf_event *hwc = &event->hw;

	if (hwc->state & PERF_HES_STOPPED)
		return;
	ibs_halt(ibs_unit_of(event), event);
	hwc->state |= PERF_HES_STOPPED | PERF_HES_UPTODATE;
}

static int ibs_add(struct perf_event *event, int flags)
{
	struct ibs_cpu *pc = this_cpu_ptr(ibs_unit_of(event)->cpu);

	if (pc->event)
		return -ENOSPC;
	event->hw.state = PERF_HES_UPTODATE | PERF_HES_STOPPED;
	WRITE_ONCE(pc->event, event);
	if (flags & PERF_EF_START)
		ibs_start(event, PERF_EF_RELOAD);
	return 0;
}

static void ibs_del(struct perf_event *event, int flags)
{
	struct ibs_cpu *pc = this_cpu_ptr(ibs_unit_of(event)->cpu);

	if (pc->event != event)
		return;
	ibs_stop(event, PERF_EF_UPDATE);
	WRITE_ONCE(pc->event, NULL);
	perf_event_update_userpage(event);
}

/* The count moves only at samples and stops (see the top of the file). */
static void ibs_read(struct perf_event *event)
{
}

/* One event of a unit a group: the unit is one. */
static bool ibs_group_taken(struct perf_event *event)
{
	struct perf_event *leader = event->group_leader, *sib;

	if (leader == event)
		return false;
	if (leader->pmu == event->pmu)
		return true;
	for_each_sibling_event(sib, leader)
		if (sib->pmu == event->pmu)
			return true;
	return false;
}

/*
 * The sample period: attr.sample_period (MaxCnt in attr.config may not
 * be set then), or for a counting event MaxCnt, which makes it sample.
 * @config loses MaxCnt.
 */
static int ibs_period_init(struct ibs_unit *u, struct perf_event *event, u64 *config)
{
	struct hw_perf_event *hwc = &event->hw;
	u64 period;

	if (hwc->sample_period) {
		if (*config & u->count_mask)
			return -EINVAL;
		hwc->sample_period = max_t(u64, hwc->sample_period & ~0xfULL,
					   IBS_MIN_PERIOD);
	} else {
		period = u->op ? ibs_op_period(*config) :
			 (*config & IBS_FETCH_MAX_CNT) << IBS_SHIFT;
		*config &= ~u->count_mask;
		if (!period)
			return -EINVAL;
		/* The event samples from now on; the core sees to its state. */
		event->attr.sample_period = period;
		hwc->sample_period = period;
	}
	hwc->last_period = hwc->sample_period;
	local64_set(&hwc->period_left, hwc->sample_period);
	return 0;
}

static int ibs_event_init(struct perf_event *event)
{
	struct ibs_unit *u = ibs_unit_of(event);
	u64 config = event->attr.config;
	int err;

	if (event->attr.type != event->pmu->type)
		return -ENOENT;
	if (config & ~u->config_mask)
		return -EINVAL;
	if (has_branch_stack(event))
		return -EOPNOTSUPP;
	if (ibs_group_taken(event))
		return -EINVAL;
	err = ibs_period_init(u, event, &config);
	if (err)
		return err;
	/* What the control keeps besides MaxCnt: RandEn, CntCtl, L3MissOnly. */
	event->hw.config = config;
	return 0;
}

/* The registers a sample asks for into @regs (the control is there). */
static int ibs_read_regs(struct ibs_unit *u, u64 sample_type, u64 *regs)
{
	const struct ibs_extra *x;
	int n = 2, i;	/* the control, and the fetch address or op RIP */

	if ((sample_type & PERF_SAMPLE_RAW) ||
	    (u->op && (sample_type & IBS_MEM_SAMPLE)))
		n = u->regs;
	else if (u->op && ibs_has(IBS_CAPS_RIPINVALIDCHK))
		n = IBS_OP_TO_DATA;
	for (i = 1; i < n; i++)
		rdmsrl(u->ctl + i, regs[i]);
	if (!(sample_type & PERF_SAMPLE_RAW))
		return n;
	for (x = u->extra; x->cap; x++)
		if (ibs_has(x->cap))
			rdmsrl(x->msr, regs[n++]);
	return n;
}

/*
 * The sample's IP from the record @r.  False when the record is no
 * sample (erratum 1197).
 */
static bool ibs_sample_ip(struct ibs_unit *u, struct pt_regs *regs, const u64 *r)
{
	unsigned long ip = r[1];

	if (u->op && ibs_has(IBS_CAPS_RIPINVALIDCHK) &&
	    (r[IBS_OP_AT(MSR_AMD64_IBSOPDATA)] & IBS_RIP_INVALID)) {
		regs->flags &= ~PERF_EFLAGS_EXACT;
		return true;
	}
	if (u->zero_ip && !ip)
		return false;
	regs->ip = ip;
	regs->cs = x86_kernel_ip(ip) ? __KERNEL_CS : __USER_CS;
	/* A vm86 task's IP keeps saying so, in the perf flag. */
	if (regs->flags & X86_VM_MASK)
		regs->flags ^= PERF_EFLAGS_VM | X86_VM_MASK;
	regs->flags |= PERF_EFLAGS_EXACT;
	return true;
}

#define IBS_LVL(l)		(PERF_MEM_S(LVL, l) | PERF_MEM_S(LVL, HIT))
#define IBS_NUM(n)		PERF_MEM_S(LVLNUM, n)
#define IBS_FAR(h)		(PERF_MEM_S(REMOTE, REMOTE) | PERF_MEM_S(HOPS, h))

/* Erratum 1293: the op's IbsOpData2 and L2Miss say nothing. */
static bool ibs_data2_bogus(union ibs_op_data3 d3)
{
	return ibs_zen3_data2 && (d3.sw_pf || d3.dc_miss_no_mab_alloc);
}

/* IbsOpData2's DataSrc: three bits, five with the Zen 4 extensions. */
static u8 ibs_source(union ibs_op_data2 d2)
{
	if (ibs_has(IBS_CAPS_ZEN4))
		return d2.data_src_hi << 3 | d2.data_src_lo;
	return d2.data_src_lo;
}

/*
 * Where a load's data came from, by DataSrc: its three bits, or its five
 * with the Zen 4 extensions; 0 where DataSrc does not say.
 */
static const u64 ibs_levels[2][32] = {
	[false] = {
		[IBS_DATA_SRC_LOC_CACHE]	= IBS_LVL(L3) | IBS_LVL(REM_CCE1) |
						  IBS_NUM(ANY_CACHE) | PERF_MEM_S(HOPS, 0),
		[IBS_DATA_SRC_DRAM]		= IBS_LVL(LOC_RAM) | IBS_NUM(RAM),
		[IBS_DATA_SRC_REM_CACHE]	= IBS_LVL(REM_CCE2) | IBS_NUM(ANY_CACHE) |
						  IBS_FAR(1),
		[IBS_DATA_SRC_IO]		= IBS_LVL(IO) | IBS_NUM(IO),
	},
	[true] = {
		[IBS_DATA_SRC_EXT_LOC_CACHE]	  = IBS_LVL(L3) | IBS_NUM(L3),
		[IBS_DATA_SRC_EXT_NEAR_CCX_CACHE] = IBS_LVL(REM_CCE1) | IBS_NUM(ANY_CACHE) |
						    IBS_FAR(0),
		[IBS_DATA_SRC_EXT_DRAM]		  = IBS_LVL(LOC_RAM) | IBS_NUM(RAM),
		[IBS_DATA_SRC_EXT_FAR_CCX_CACHE]  = IBS_LVL(REM_CCE2) | IBS_NUM(ANY_CACHE) |
						    IBS_FAR(1),
		[IBS_DATA_SRC_EXT_PMEM]		  = IBS_NUM(PMEM),
		[IBS_DATA_SRC_EXT_IO]		  = IBS_LVL(IO) | IBS_NUM(IO),
		[IBS_DATA_SRC_EXT_EXT_MEM]	  = IBS_NUM(CXL),
	},
};

/*
 * A load's source level, another node's when RmtNode says so (one hop:
 * IBS does not say how far).  Only memory is ever remote: DRAM (the same
 * value with and without the Zen 4 extensions), and with them persistent
 * and extended memory.
 */
static u64 ibs_load_level(union ibs_op_data2 d2, u8 src)
{
	u64 lvl = ibs_levels[ibs_has(IBS_CAPS_ZEN4)][src & 0x1f];

	if (!lvl || !d2.rmt_node)
		return lvl;
	if (src == IBS_DATA_SRC_DRAM)
		return IBS_LVL(REM_RAM1) | IBS_NUM(RAM) | IBS_FAR(1);
	if (ibs_has(IBS_CAPS_ZEN4) &&
	    (src == IBS_DATA_SRC_EXT_PMEM || src == IBS_DATA_SRC_EXT_EXT_MEM))
		return lvl | IBS_FAR(1);
	return lvl;
}

/*
 * The level bits of a load or store: uncached (IbsOpData3 says nothing
 * more then, I/O aside), L1, L2, then for a load the data source; else
 * the miss address buffer when the miss had none allocated.
 */
static u64 ibs_level(union ibs_op_data2 d2, union ibs_op_data3 d3, bool load)
{
	u8 src = ibs_source(d2);
	u64 lvl;

	if (d3.dc_uc_mem_acc && src != IBS_DATA_SRC_EXT_IO)
		return IBS_LVL(UNC) | IBS_NUM(UNC);
	if (!d3.dc_miss)
		return IBS_LVL(L1) | IBS_NUM(L1);
	if (!d3.l2_miss && !ibs_data2_bogus(d3))
		return IBS_LVL(L2) | IBS_NUM(L2);
	lvl = load ? ibs_load_level(d2, src) : 0;
	if (lvl)
		return lvl;
	if (d3.dc_miss_no_mab_alloc)
		return IBS_LVL(LFB) | IBS_NUM(LFB);
	return PERF_MEM_S(LVL, NA) | IBS_NUM(NA);
}

/* A load served by another core's cache, modified there (CacheHitSt 0). */
static u64 ibs_snoop(union ibs_op_data2 d2, union perf_mem_data_src ds, bool load)
{
	u8 src = ibs_source(d2);
	bool hitm;

	if (!ibs_hit_state || !load || d2.cache_hit_st ||
	    (ds.mem_lvl & (PERF_MEM_LVL_L1 | PERF_MEM_LVL_L2)))
		return PERF_MEM_SNOOP_NA;
	if (ibs_has(IBS_CAPS_ZEN4))
		hitm = src == IBS_DATA_SRC_EXT_LOC_CACHE ||
		       src == IBS_DATA_SRC_EXT_NEAR_CCX_CACHE ||
		       src == IBS_DATA_SRC_EXT_FAR_CCX_CACHE;
	else
		hitm = src == IBS_DATA_SRC_LOC_CACHE;
	return hitm ? PERF_MEM_SNOOP_HITM : PERF_MEM_SNOOP_NA;
}

static u64 ibs_tlb(union ibs_op_data3 d3)
{
	if (!d3.dc_lin_addr_valid)
		return PERF_MEM_TLB_NA;
	if (!d3.dc_l1tlb_miss)
		return PERF_MEM_TLB_L1 | PERF_MEM_TLB_HIT;
	return PERF_MEM_TLB_L2 | (d3.dc_l2tlb_miss ? PERF_MEM_TLB_MISS : PERF_MEM_TLB_HIT);
}

static u64 ibs_data_src(union ibs_op_data2 d2, union ibs_op_data3 d3, bool load)
{
	union perf_mem_data_src ds = { .val = PERF_MEM_NA };

	ds.mem_op = load ? PERF_MEM_OP_LOAD : PERF_MEM_OP_STORE;
	ds.mem_lvl = 0;
	ds.mem_lvl_num = 0;
	ds.val |= ibs_level(d2, d3, load);
	ds.mem_snoop = ibs_snoop(d2, ds, load);
	ds.mem_dtlb = ibs_tlb(d3);
	ds.mem_lock = d3.dc_locked_op ? PERF_MEM_LOCK_LOCKED : PERF_MEM_LOCK_NA;
	return ds.val;
}

/* What an op record @r says of a load or store, as the sample asks. */
static void ibs_mem(struct perf_event *event, struct perf_sample_data *data,
		    const u64 *r)
{
	u64 st = event->attr.sample_type;
	union ibs_op_data3 d3 = { .val = r[IBS_OP_AT(MSR_AMD64_IBSOPDATA3)] };
	union ibs_op_data2 d2 = { .val = r[IBS_OP_AT(MSR_AMD64_IBSOPDATA2)] };
	union ibs_op_data d1 = { .val = r[IBS_OP_AT(MSR_AMD64_IBSOPDATA)] };
	bool load = d3.ld_op;

	if (!d3.ld_op && !d3.st_op)
		return;
	if (ibs_data2_bogus(d3))
		d2.val = 0;
	if (st & PERF_SAMPLE_DATA_SRC) {
		data->data_src.val = ibs_data_src(d2, d3, load);
		data->sample_flags |= PERF_SAMPLE_DATA_SRC;
	}
	if ((st & PERF_SAMPLE_WEIGHT_TYPE) && load && d3.dc_miss) {
		data->weight.full = 0;
		if (st & PERF_SAMPLE_WEIGHT_STRUCT) {
			data->weight.var1_dw = d3.dc_miss_lat;
			data->weight.var2_w = d1.tag_to_ret_ctr;
		} else {
			data->weight.full = d3.dc_miss_lat;
		}
		data->sample_flags |= PERF_SAMPLE_WEIGHT_TYPE;
	}
	if ((st & PERF_SAMPLE_ADDR) && d3.dc_lin_addr_valid) {
		data->addr = r[IBS_OP_AT(MSR_AMD64_IBSDCLINAD)];
		data->sample_flags |= PERF_SAMPLE_ADDR;
	}
	if ((st & PERF_SAMPLE_PHYS_ADDR) && d3.dc_phy_addr_valid) {
		data->phys_addr = r[IBS_OP_AT(MSR_AMD64_IBSDCPHYSAD)];
		data->sample_flags |= PERF_SAMPLE_PHYS_ADDR;
	}
}

/*
 * The sample of the record whose control is @ctl, for a period @ended.
 * Return: perf_event_overflow()'s answer (1: the event must stop), 0
 * when the record is no sample.
 */
static int ibs_output(struct ibs_unit *u, struct perf_event *event, u64 ctl,
		      u64 ended, struct pt_regs *iregs)
{
	u64 st = event->attr.sample_type;
	struct perf_sample_data data;
	struct perf_raw_record raw;
	struct ibs_record rec;
	struct pt_regs regs = *iregs;
	int n;

	rec.regs[0] = ctl;
	n = ibs_read_regs(u, st, rec.regs);
	if (!ibs_sample_ip(u, &regs, rec.regs))
		return 0;
	perf_sample_data_init(&data, 0, ended);
	if (st & PERF_SAMPLE_RAW) {
		rec.caps = ibs_features;
		raw = (struct perf_raw_record) {
			.frag = {
				.size = sizeof(rec.caps) + n * sizeof(u64),
				.data = &rec.caps,
			},
		};
		perf_sample_save_raw_data(&data, event, &raw);
	}
	if (u->op && (st & IBS_MEM_SAMPLE))
		ibs_mem(event, &data, rec.regs);
	/* The RIP and the interrupted stack do not go together: unwind the latter. */
	if (st & PERF_SAMPLE_CALLCHAIN)
		perf_sample_save_callchain(&data, event, iregs);
	return perf_event_overflow(event, &data, &regs);
}

/*
 * The unit set Val for @event (whose it is now, armed cleared): count
 * the period, sample when the sample period ended, and go on.
 */
static void ibs_sampled(struct ibs_unit *u, struct ibs_cpu *pc,
			struct perf_event *event, u64 ctl, struct pt_regs *iregs)
{
	struct hw_perf_event *hwc = &event->hw;
	u64 ended, hw, keep = 0;
	int stop = 0;

	ibs_fold(u, event, ctl);
	ended = hwc->last_period;
	if (ibs_next_period(u, hwc, &hw))
		stop = ibs_output(u, event, ctl, ended, iregs);
	/*
	 * Frequency mode may have stopped and started the event meanwhile:
	 * it then runs with its new period.
	 */
	if (READ_ONCE(pc->armed)) {
		if (stop) {
			ibs_halt(u, event);
			hwc->state |= PERF_HES_STOPPED | PERF_HES_UPTODATE;
		}
		return;
	}
	/* Throttled, or its refresh limit is out: off until started again. */
	if (stop || (hwc->state & PERF_HES_STOPPED)) {
		ibs_switch_off(u, ctl);
		hwc->state |= PERF_HES_STOPPED | PERF_HES_UPTODATE;
		return;
	}
	/* Counting ops, the random low bits of the count stay random. */
	if (u->op && ibs_has(IBS_CAPS_RDWROPCNT) && (ctl & IBS_OP_CNT_CTL))
		keep = ctl & IBS_OP_CUR_CNT_RAND;
	ibs_arm(u, event, hw, keep);
}

/* An NMI that is not the unit's sample: its late one, if it owes one. */
static int ibs_take_late(struct ibs_cpu *pc)
{
	if (!READ_ONCE(pc->late))
		return 0;
	WRITE_ONCE(pc->late, false);
	return 1;
}

static int ibs_unit_nmi(struct ibs_unit *u, struct pt_regs *iregs)
{
	struct ibs_cpu *pc = this_cpu_ptr(u->cpu);
	struct perf_event *event;
	u64 ctl;

	if (!READ_ONCE(pc->armed))
		return ibs_take_late(pc);
	event = READ_ONCE(pc->event);
	rdmsrl(u->ctl, ctl);
	if (!(ctl & u->val) || WARN_ON_ONCE(!event))
		return ibs_take_late(pc);
	WRITE_ONCE(pc->armed, false);
	ibs_sampled(u, pc, event, ctl, iregs);
	perf_event_update_userpage(event);
	return 1;
}

NOKPROBE_SYMBOL(ibs_unit_nmi);

/* The IBS NMI (through the extended LVT entry), beside the PMI. */
static int ibs_nmi(unsigned int cmd, struct pt_regs *regs)
{
	u64 start = sched_clock();
	int handled;

	handled = ibs_unit_nmi(&ibs_units[IBS_FETCH], regs);
	handled += ibs_unit_nmi(&ibs_units[IBS_OP], regs);
	if (handled) {
		inc_irq_stat(apic_perf_irqs);
		perf_sample_event_took(sched_clock() - start);
	}
	return handled;
}

NOKPROBE_SYMBOL(ibs_nmi);

PMU_FORMAT_ATTR(rand_en, "config:57");
PMU_FORMAT_ATTR(cnt_ctl, "config:19");
X86_EVENT_STR(ibs_fetch_l3miss, "l3missonly", "config:59");
X86_EVENT_STR(ibs_op_l3miss, "l3missonly", "config:16");
X86_EVENT_STR(ibs_zen4, "zen4_ibs_extensions", "1");

/* rand_en always; cnt_ctl with OpCnt; the Zen 4 files with its bit. */
static umode_t ibs_attr_visible(struct kobject *kobj, struct attribute *attr, int i)
{
	u32 need = IBS_CAPS_ZEN4;

	if (attr == &format_attr_rand_en.attr)
		need = 0;
	else if (attr == &format_attr_cnt_ctl.attr)
		need = IBS_CAPS_OPCNT;
	return (ibs_features & need) == need ? attr->mode : 0;
}

static struct attribute *ibs_fetch_format[] = {
	&format_attr_rand_en.attr,
	&ibs_fetch_l3miss.attr.attr,
	NULL,
};

static struct attribute *ibs_op_format[] = {
	&format_attr_cnt_ctl.attr,
	&ibs_op_l3miss.attr.attr,
	NULL,
};

static struct attribute *ibs_caps_attrs[] = {
	&ibs_zen4.attr.attr,
	NULL,
};

static const struct attribute_group ibs_fetch_format_group = {
	.name		= "format",
	.attrs		= ibs_fetch_format,
	.is_visible	= ibs_attr_visible,
};

static const struct attribute_group ibs_op_format_group = {
	.name		= "format",
	.attrs		= ibs_op_format,
	.is_visible	= ibs_attr_visible,
};

/* caps/ is there on every CPU, empty without the Zen 4 extensions. */
static const struct attribute_group ibs_caps_group = {
	.name		= "caps",
	.attrs		= ibs_caps_attrs,
	.is_visible	= ibs_attr_visible,
};

static const struct attribute_group *ibs_fetch_groups[] = {
	&ibs_fetch_format_group,
	&ibs_caps_group,
	NULL,
};

static const struct attribute_group *ibs_op_groups[] = {
	&ibs_op_format_group,
	&ibs_caps_group,
	NULL,
};

static const struct ibs_extra ibs_fetch_extra[] = {
	{ IBS_CAPS_FETCHCTLEXTD, MSR_AMD64_ICIBSEXTDCTL },
	{ }
};

static const struct ibs_extra ibs_op_extra[] = {
	{ IBS_CAPS_BRNTRGT, MSR_AMD64_IBSBRTARGET },
	{ IBS_CAPS_OPDATA4, MSR_AMD64_IBSOPDATA4 },
	{ }
};

#define IBS_PMU(_groups) {				\
	.task_ctx_nr	= perf_hw_context,		\
	.capabilities	= PERF_PMU_CAP_NO_EXCLUDE,	\
	.attr_groups	= _groups,			\
	.event_init	= ibs_event_init,		\
	.add		= ibs_add,			\
	.del		= ibs_del,			\
	.start		= ibs_start,			\
	.stop		= ibs_stop,			\
	.read		= ibs_read,			\
}

static struct ibs_unit ibs_units[IBS_UNITS] = {
	[IBS_FETCH] = {
		.pmu		= IBS_PMU(ibs_fetch_groups),
		.cpu		= &ibs_fetch_cpu,
		.ctl		= MSR_AMD64_IBSFETCHCTL,
		.regs		= MSR_AMD64_IBSFETCH_REG_COUNT,
		.extra		= ibs_fetch_extra,
		.config_mask	= IBS_FETCH_RAND_EN | IBS_FETCH_MAX_CNT,
		.count_mask	= IBS_FETCH_MAX_CNT | IBS_FETCH_CNT,
		.en		= IBS_FETCH_ENABLE,
		.val		= IBS_FETCH_VAL,
		.max_period	= IBS_FETCH_MAX_CNT << IBS_SHIFT,
		.count		= ibs_fetch_count,
	},
	[IBS_OP] = {
		.pmu		= IBS_PMU(ibs_op_groups),
		.cpu		= &ibs_op_cpu,
		.op		= true,
		.ctl		= MSR_AMD64_IBSOPCTL,
		.regs		= MSR_AMD64_IBSOP_REG_COUNT,
		.extra		= ibs_op_extra,
		.config_mask	= IBS_OP_MAX_CNT,
		.count_mask	= IBS_OP_MAX_CNT | IBS_OP_CUR_CNT | IBS_OP_CUR_CNT_RAND,
		.en		= IBS_OP_ENABLE,
		.val		= IBS_OP_VAL,
		.max_period	= IBS_OP_MAX_CNT << IBS_SHIFT,
		.count		= ibs_op_count,
	},
};

/**
 * get_ibs_caps - the IBS capabilities, for the core PMU and others
 *
 * Return: CPUID 0x8000001B EAX (IBS_CAPS_*, IBS_CAPS_DEFAULT on CPUs that
 * do not describe them) once IBS is set up; 0 before, and where the CPU
 * has no IBS or its interrupt cannot be delivered.
 */
u32 get_ibs_caps(void)
{
	return ibs_features;
}
EXPORT_SYMBOL(get_ibs_caps);

/* The ibs_op config of a core event it can sample, in @config. */
static bool ibs_op_form(const struct perf_event_attr *attr, u64 *config)
{
	if (attr->type == PERF_TYPE_HARDWARE && attr->config == PERF_COUNT_HW_CPU_CYCLES) {
		*config = 0;
		return true;
	}
	if (attr->type != PERF_TYPE_RAW)
		return false;
	if (attr->config == 0x76) {		/* cycles not in halt */
		*config = 0;
		return true;
	}
	if (attr->config == 0xc1) {		/* retired ops */
		*config = IBS_OP_CNT_CTL;
		return true;
	}
	return false;
}

/**
 * forward_event_to_ibs - sample a precise core event with ibs_op
 * @event: an event of the core PMU with attr.precise_ip, on a CPU with IBS
 *
 * IBS tags an op exactly, so precise_ip 1 and 2 are ibs_op's to give:
 * cycles (the generic event or raw 0x76) with ibs_op counting cycles,
 * raw 0xc1 (retired ops) with it counting ops (CntCtl).  attr.type and
 * attr.config are rewritten to say so; other events have no precise
 * form.
 *
 * Return: -EOPNOTSUPP for precise_ip 0 or 3; else -ENOENT, on which the
 * core offers the event to the PMU attr.type now names (ibs_op when the
 * event was rewritten, else none).
 */
int forward_event_to_ibs(struct perf_event *event)
{
	struct perf_event_attr *attr = &event->attr;
	u64 config;

	if (!attr->precise_ip || attr->precise_ip > 2)
		return -EOPNOTSUPP;
	if (ibs_op_form(attr, &config)) {
		attr->type = ibs_units[IBS_OP].pmu.type;
		attr->config = config;
	}
	return -ENOENT;
}

/* The extended LVT offset IbsCtl gives, or -EINVAL when it gives none. */
static int ibs_lvt_offset(void)
{
	u64 ibsctl;

	rdmsrl(MSR_AMD64_IBSCTL, ibsctl);
	if (!(ibsctl & IBSCTL_LVT_OFFSET_VALID))
		return -EINVAL;
	return ibsctl & IBSCTL_LVT_OFFSET_MASK;
}

/* Deliver the units' interrupt to this CPU as an NMI. */
static int ibs_cpu_starting(unsigned int cpu)
{
	int offset = ibs_lvt_offset();

	if (offset < 0 || setup_APIC_eilvt(offset, 0, APIC_EILVT_MSG_NMI, 0))
		pr_warn("perf: IBS APIC setup failed on cpu #%u\n", cpu);
	return 0;
}

/* Mask the entry as the CPU goes. */
static int ibs_cpu_dying(unsigned int cpu)
{
	int offset = ibs_lvt_offset();

	if (offset >= 0)
		setup_APIC_eilvt(offset, 0, APIC_EILVT_MSG_FIX, 1);
	return 0;
}

#ifdef CONFIG_PM
/* Suspend and resume on the CPU that stays: the others go through hotplug. */
static int ibs_suspend(void *data)
{
	return ibs_cpu_dying(smp_processor_id());
}

static void ibs_resume(void *data)
{
	ibs_cpu_starting(smp_processor_id());
}

static const struct syscore_ops ibs_syscore_ops = {
	.suspend	= ibs_suspend,
	.resume		= ibs_resume,
};

static struct syscore ibs_syscore = {
	.ops		= &ibs_syscore_ops,
};

static void __init ibs_pm_init(void)
{
	register_syscore(&ibs_syscore);
}
#else
static inline void ibs_pm_init(void) { }
#endif

/*
 * The firmware gave IBS an extended LVT offset, and the local APIC code
 * lets IBS have it: setup_APIC_eilvt() reserves it for NMIs, masked
 * until each CPU comes up.
 */
static bool __init ibs_lvt_reserve(void)
{
	bool ok = false;
	int offset;

	preempt_disable();
	offset = ibs_lvt_offset();
	if (offset < 0)
		pr_err(FW_BUG "perf: IBS: no interrupt offset in IbsCtl on cpu %d\n",
		       smp_processor_id());
	else if (setup_APIC_eilvt(offset, 0, APIC_EILVT_MSG_NMI, 1))
		pr_err(FW_BUG "perf: IBS: interrupt offset %d is taken (cpu %d)\n",
		       offset, smp_processor_id());
	else
		ok = true;
	preempt_enable();
	return ok;
}

/* CPUID 0x8000001B EAX, or the default set where it is not described. */
static u32 __init ibs_cpuid(void)
{
	u32 caps;

	if (!boot_cpu_has(X86_FEATURE_IBS))
		return 0;
	if (boot_cpu_data.extended_cpuid_level < IBS_CPUID_FEATURES)
		return IBS_CAPS_DEFAULT;
	caps = cpuid_eax(IBS_CPUID_FEATURES);
	return caps & IBS_CAPS_AVAIL ? caps : IBS_CAPS_DEFAULT;
}

/* What the capabilities and the CPU's model change in the units. */
static void __init ibs_units_setup(void)
{
	struct ibs_unit *fetch = &ibs_units[IBS_FETCH], *op = &ibs_units[IBS_OP];
	u8 family = boot_cpu_data.x86, model = boot_cpu_data.x86_model;

	fetch->en_toggle = family >= 0x16 && family <= 0x18;
	fetch->zero_ip = family == 0x19 && model < 0x10;
	ibs_zen3_data2 = family == 0x19 && model <= 0xf;
	ibs_hit_state = !(family == 0x19 &&
			  (model <= 0xf || (model >= 0x20 && model <= 0x5f)));
	if (ibs_has(IBS_CAPS_OPCNT))
		op->config_mask |= IBS_OP_CNT_CTL;
	if (ibs_has(IBS_CAPS_OPCNTEXT)) {
		op->config_mask |= IBS_OP_MAX_CNT_EXT_MASK;
		op->count_mask |= IBS_OP_MAX_CNT_EXT_MASK | IBS_OP_CUR_CNT_EXT_MASK;
		op->max_period |= IBS_OP_MAX_CNT_EXT_MASK;
	}
	if (ibs_has(IBS_CAPS_ZEN4)) {
		fetch->config_mask |= IBS_FETCH_L3MISSONLY;
		op->config_mask |= IBS_OP_L3MISSONLY;
	}
}

/*
 * The NMI handler first (it has nothing to do until an event is armed),
 * then the PMUs, fetch first: their types follow that order.
 */
static int __init ibs_register(void)
{
	int err;

	err = register_nmi_handler(NMI_LOCAL, ibs_nmi, 0, "perf_ibs");
	if (err)
		return err;
	err = perf_pmu_register(&ibs_units[IBS_FETCH].pmu, "ibs_fetch", -1);
	if (err)
		goto nmi;
	err = perf_pmu_register(&ibs_units[IBS_OP].pmu, "ibs_op", -1);
	if (!err)
		return 0;
	perf_pmu_unregister(&ibs_units[IBS_FETCH].pmu);
nmi:
	unregister_nmi_handler(NMI_LOCAL, "perf_ibs");
	return err;
}

static int __init amd_ibs_init(void)
{
	u32 caps = ibs_cpuid();
	int err;

	if (!caps)
		return -ENODEV;
	if (!ibs_lvt_reserve())
		return -EINVAL;
	/* Before the PMUs: their sysfs files and configs depend on it. */
	ibs_features = caps;
	ibs_units_setup();
	err = cpuhp_setup_state(CPUHP_AP_PERF_X86_AMD_IBS_STARTING,
				"perf/x86/amd/ibs:starting",
				ibs_cpu_starting, ibs_cpu_dying);
	if (err)
		goto fail;
	err = ibs_register();
	if (err) {
		cpuhp_remove_state(CPUHP_AP_PERF_X86_AMD_IBS_STARTING);
		goto fail;
	}
	ibs_pm_init();
	pr_info("perf: AMD IBS detected (0x%08x)\n", caps);
	return 0;
fail:
	pr_err("perf: IBS setup failed: %d\n", err);
	ibs_features = 0;
	return err;
}
device_initcall(amd_ibs_init);
