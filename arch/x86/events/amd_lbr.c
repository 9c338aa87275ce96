// SPDX-License-Identifier: GPL-2.0-only
/*
 * AMD's last branch records, version 2 (Zen 4 and later, with PerfMonV2):
 * PERF_SAMPLE_BRANCH_STACK for the events of the core PMU.
 *
 * The hardware: CPUID 0x80000022 says the recorder is there (EAX bit 1)
 * and how deep it is (EBX 9:4, 16 on Zen 4).  While DBG_EXTN_CFG.LBRV2EN
 * is set, each taken branch that MSR_AMD64_LBR_SELECT lets through is
 * pushed onto a stack of MSR pairs at MSR_AMD_SAMP_BR_FROM + 2n (source,
 * mispredicted in bit 63) and + 2n + 1 (target, with valid and
 * speculative bits, and bit 61 marking a record to ignore: erratum
 * 1452).  Pair 0 always holds the newest record, so there is no top of
 * stack to read (the samples' hw_idx is 0).  LBR_SELECT's bits 8:0 each
 * leave a kind of branch or privilege level out.  With LbrAndPmcFreeze
 * (CPUID EAX bit 2), DEBUGCTL.FREEZE_LBRS_ON_PMI stops recording at a
 * PMI until GLOBAL_STATUS.LbrFreeze is cleared.
 *
 * Filters: an event's branch_sample_type becomes the LBR_SELECT kinds it
 * wants recorded (hw.branch_reg.config) at event_init; what the stack
 * cannot do (call stacks, transactions, records without flags or
 * cycles) is refused with -EOPNOTSUPP, as upstream's driver does.  The
 * events on a CPU share the one LBR_SELECT: it records what any of them
 * wants, so no event waits for or is refused because of another, and
 * each sample keeps, in software, only what its own event asked for.
 * That software step decodes the source of each record (branch_kind.c):
 * it gives the kind the filter and PERF_SAMPLE_BRANCH_TYPE_SAVE need,
 * and moves a source that names the compare fused with a conditional
 * jump to the jump, as upstream does for these records.  Records whose
 * source cannot be decoded are left out.
 *
 * Recording is on while the PMU is on and an event on the CPU holds the
 * recorder (hw.branch_reg.alloc), off while the PMU is off.  The PMI
 * turns the PMU off first, so the records it reads end at the overflow
 * (on parts without the freeze, a few branches of the NMI's entry
 * later).  They are read and decoded once per PMI, at the first sample
 * that wants them, and filtered for each sample.
 *
 * Context switches (sched_task): records name no address space, so the
 * stack is emptied as a task comes in; so is it when an event that never
 * ran is added to a CPU whose recorder nobody held.
 *
 * bpf_get_branch_snapshot() reads the stack of its CPU while an event
 * holds it, with the filter of the event added last.
 *
 * Locking: the per-CPU state is changed on its CPU with interrupts off
 * (the x86 layer's add, del, pmu_enable, pmu_disable and cpu_starting,
 * sched_task, which the core calls with the PMU disabled, and the
 * snapshot), or in the PMI, which reads the records only while the
 * recorder is off.  The depth and features are written once at boot.
 */
#include <linux/perf_event.h>
#include <linux/static_call.h>

#include <asm/msr.h>
#include <asm/perf_event.h>

#include "amd_lbr.h"
#include "branch_kind.h"

/* The most records read; CPUID may say up to 63. */
#define LBR_MAX			32

/* MSR_AMD64_LBR_SELECT: a set bit leaves those branches unrecorded. */
#define SEL_CPL0		BIT_ULL(0)	/* ending at CPL 0 */
#define SEL_CPL123		BIT_ULL(1)	/* ending above CPL 0 */
#define SEL_JCC			BIT_ULL(2)
#define SEL_NEAR_REL_CALL	BIT_ULL(3)
#define SEL_NEAR_IND_CALL	BIT_ULL(4)
#define SEL_NEAR_RET		BIT_ULL(5)
#define SEL_NEAR_IND_JMP	BIT_ULL(6)
#define SEL_NEAR_REL_JMP	BIT_ULL(7)
#define SEL_FAR			BIT_ULL(8)
#define SEL_BITS		9
#define SEL_ALL			GENMASK_ULL(SEL_BITS - 1, 0)
#define SEL_BRANCHES		GENMASK_ULL(SEL_BITS - 1, 2)

/* A record's two MSRs. */
#define REC_ADDR		GENMASK_ULL(57, 0)
#define FROM_MISPREDICTED	BIT_ULL(63)
#define TO_IGNORE		BIT_ULL(61)
#define TO_SPECULATIVE		BIT_ULL(62)
#define TO_VALID		BIT_ULL(63)

/* What the recorder cannot do (-EOPNOTSUPP). */
#define LBR_REFUSED	(PERF_SAMPLE_BRANCH_CALL_STACK | PERF_SAMPLE_BRANCH_ABORT_TX | \
			 PERF_SAMPLE_BRANCH_IN_TX | PERF_SAMPLE_BRANCH_NO_TX | \
			 PERF_SAMPLE_BRANCH_NO_FLAGS | PERF_SAMPLE_BRANCH_NO_CYCLES)

/* The software filter of an event that holds the stack, not sampling it. */
#define LBR_EVERYTHING	(PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER | \
			 PERF_SAMPLE_BRANCH_KERNEL)

/*
 * For each filter bit, the LBR_SELECT kinds that must be recorded for it;
 * the bits not here (HV, the records' options) record nothing.
 */
static const struct {
	u64 bit;
	u64 kinds;
} sel_for_filter[] = {
	{ PERF_SAMPLE_BRANCH_KERNEL,	 SEL_CPL0 },
	{ PERF_SAMPLE_BRANCH_USER,	 SEL_CPL123 },
	{ PERF_SAMPLE_BRANCH_ANY,	 SEL_BRANCHES },
	{ PERF_SAMPLE_BRANCH_COND,	 SEL_JCC },
	{ PERF_SAMPLE_BRANCH_CALL,	 SEL_NEAR_REL_CALL },
	{ PERF_SAMPLE_BRANCH_IND_CALL,	 SEL_NEAR_IND_CALL },
	{ PERF_SAMPLE_BRANCH_IND_JUMP,	 SEL_NEAR_IND_JMP },
	{ PERF_SAMPLE_BRANCH_ANY_CALL,	 SEL_NEAR_REL_CALL | SEL_NEAR_IND_CALL | SEL_FAR },
	{ PERF_SAMPLE_BRANCH_ANY_RETURN, SEL_NEAR_RET | SEL_FAR },
};

/* The stack's depth, 0 without one; whether a PMI freezes it. */
static int lbr_depth __ro_after_init;
static bool lbr_freeze __ro_after_init;

/**
 * struct amd_lbr_cpu - one CPU's recorder
 * @users: the events holding it
 * @wanted: for each LBR_SELECT bit, how many of them want its branches
 * @select: the LBR_SELECT they want together
 * @written: what LBR_SELECT holds (U64_MAX: not known)
 * @filter: the software filter of the event added last (the snapshot's)
 * @on: recording (DBG_EXTN_CFG.LBRV2EN set)
 * @nr: how many records @rec holds, read since recording stopped; -1
 *	when they are still to be read
 * @rec: the records, newest first
 * @kind: the kind of each
 * @stack: the records of the sample being written
 * @entries: the room for @stack's records
 */
struct amd_lbr_cpu {
	int users;
	int wanted[SEL_BITS];
	u64 select;
	u64 written;
	u64 filter;
	bool on;
	int nr;
	struct perf_branch_entry rec[LBR_MAX];
	u8 kind[LBR_MAX];
	struct perf_branch_stack stack;
	struct perf_branch_entry entries[LBR_MAX];
};

static DEFINE_PER_CPU(struct amd_lbr_cpu, amd_lbr_cpu);

static u32 lbr_from_msr(int i)
{
	return MSR_AMD_SAMP_BR_FROM + 2 * i;
}

static u32 lbr_to_msr(int i)
{
	return MSR_AMD_SAMP_BR_FROM + 2 * i + 1;
}

/* Empty the stack; the records read before are gone too. */
static void lbr_clear(struct amd_lbr_cpu *lc)
{
	int i;

	for (i = 0; i < lbr_depth; i++) {
		wrmsrl(lbr_from_msr(i), 0);
		wrmsrl(lbr_to_msr(i), 0);
	}
	lc->nr = -1;
}

/* Set (@set) or clear @bits of @msr, leaving its other bits. */
static void lbr_msr_bits(u32 msr, u64 bits, bool set)
{
	u64 val;

	rdmsrl(msr, val);
	wrmsrl(msr, set ? val | bits : val & ~bits);
}

/*
 * DBG_EXTN_CFG.LBRV2EN, and with the freeze DEBUGCTL's freeze bit: armed
 * before recording starts, disarmed after it stops.
 */
static void lbr_switch(bool on)
{
	if (lbr_freeze && on)
		lbr_msr_bits(MSR_IA32_DEBUGCTLMSR, DEBUGCTLMSR_FREEZE_LBRS_ON_PMI, true);
	lbr_msr_bits(MSR_AMD_DBG_EXTN_CFG, DBG_EXTN_CFG_LBRV2EN, on);
	if (lbr_freeze && !on)
		lbr_msr_bits(MSR_IA32_DEBUGCTLMSR, DEBUGCTLMSR_FREEZE_LBRS_ON_PMI, false);
}

/* Count the kinds @kinds in or (@delta -1) out of what the CPU records. */
static void lbr_want_kinds(struct amd_lbr_cpu *lc, u64 kinds, int delta)
{
	u64 recorded = 0;
	int i;

	for (i = 0; i < SEL_BITS; i++) {
		if (kinds & BIT_ULL(i))
			lc->wanted[i] += delta;
		if (lc->wanted[i])
			recorded |= BIT_ULL(i);
	}
	lc->select = SEL_ALL & ~recorded;
}

/*
 * x86_vendor.branch_config: the LBR_SELECT kinds @event records, or
 * -EOPNOTSUPP for what the recorder cannot do.  An event that holds the
 * stack without sampling it has it record everything.
 */
static int amd_lbr_config(const struct x86_vendor *v, struct perf_event *event)
{
	u64 want = event->attr.branch_sample_type, kinds = 0;
	int i;

	if (!v->branches)
		return -EOPNOTSUPP;
	if (!has_branch_stack(event)) {
		kinds = SEL_ALL;
	} else {
		if (want & LBR_REFUSED)
			return -EOPNOTSUPP;
		for (i = 0; i < ARRAY_SIZE(sel_for_filter); i++)
			if (want & sel_for_filter[i].bit)
				kinds |= sel_for_filter[i].kinds;
	}
	event->hw.branch_reg.config = kinds;
	event->hw.branch_reg.alloc = 0;
	return 0;
}

/**
 * amd_lbr_get - hold the recorder for an event being added on this CPU
 * @v: the description of the event's counters
 * @event: the event
 *
 * Nothing to do for an event without a branch filter.  The recorder is
 * never busy: it records what each of its users wants.
 *
 * Return: 0.
 */
int amd_lbr_get(const struct x86_vendor *v, struct perf_event *event)
{
	struct amd_lbr_cpu *lc = this_cpu_ptr(&amd_lbr_cpu);
	struct hw_perf_event_extra *br = &event->hw.branch_reg;

	if (!lbr_depth || !needs_branch_stack(event) || br->alloc)
		return 0;
	lbr_want_kinds(lc, br->config, 1);
	lc->filter = has_branch_stack(event) ? event->attr.branch_sample_type :
					       LBR_EVERYTHING;
	/* A new event sees no branches from before it was there. */
	if (!lc->users++ && !event->total_time_running)
		lbr_clear(lc);
	br->alloc = 1;
	perf_sched_cb_inc(event->pmu);
	return 0;
}

/**
 * amd_lbr_put - let go of the recorder as an event is deleted
 * @v: the description of the event's counters
 * @event: the event
 */
void amd_lbr_put(const struct x86_vendor *v, struct perf_event *event)
{
	struct amd_lbr_cpu *lc = this_cpu_ptr(&amd_lbr_cpu);
	struct hw_perf_event_extra *br = &event->hw.branch_reg;

	if (!br->alloc)
		return;
	br->alloc = 0;
	lbr_want_kinds(lc, br->config, -1);
	lc->users--;
	perf_sched_cb_dec(event->pmu);
}

/**
 * amd_lbr_enable - record, if an event on this CPU wants it
 *
 * Called as the PMU is turned on, before the counters.
 */
void amd_lbr_enable(void)
{
	struct amd_lbr_cpu *lc = this_cpu_ptr(&amd_lbr_cpu);

	if (!lc->users)
		return;
	lc->nr = -1;
	if (lc->written != lc->select) {
		wrmsrl(MSR_AMD64_LBR_SELECT, lc->select);
		lc->written = lc->select;
	}
	/* The last PMI froze the stack: it records again from now. */
	if (lbr_freeze)
		wrmsrl(MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_CLR,
		       GLOBAL_STATUS_LBRS_FROZEN);
	lbr_switch(true);
	lc->on = true;
}

/**
 * amd_lbr_disable - stop recording (the stack keeps its records)
 *
 * Called as the PMU is turned off, after the counters: first thing in
 * the PMI.
 */
void amd_lbr_disable(void)
{
	struct amd_lbr_cpu *lc = this_cpu_ptr(&amd_lbr_cpu);

	if (!lc->on)
		return;
	lbr_switch(false);
	lc->on = false;
}

/**
 * amd_lbr_cpu_starting - a CPU's recorder before its first use
 * @v: the description of its counters
 *
 * Not recording, the stack empty, no users.
 */
void amd_lbr_cpu_starting(const struct x86_vendor *v)
{
	struct amd_lbr_cpu *lc = this_cpu_ptr(&amd_lbr_cpu);

	memset(lc->wanted, 0, sizeof(lc->wanted));
	lc->users = 0;
	lc->select = SEL_ALL;
	lc->written = U64_MAX;
	lc->on = false;
	lbr_switch(false);
	lbr_clear(lc);
}

/* An address of a record, sign-extended as the CPU's linear addresses. */
static u64 lbr_addr(u64 msr)
{
	return sign_extend64(msr & REC_ADDR, boot_cpu_data.x86_virt_bits - 1);
}

/* What the valid and speculative bits of a record's target say. */
static int lbr_spec(u64 to)
{
	if (!(to & TO_VALID))
		return PERF_BR_SPEC_WRONG_PATH;
	return to & TO_SPECULATIVE ? PERF_BR_SPEC_CORRECT_PATH :
				     PERF_BR_NON_SPEC_CORRECT_PATH;
}

/*
 * Read the @max newest records into @e, newest first, each with its kind
 * in @kind; empty and ignored ones are skipped.  Returns how many.
 */
static int lbr_read(struct perf_branch_entry *e, u8 *kind, int max)
{
	u64 from, to;
	int i, n = 0, fused;

	for (i = 0; i < max; i++) {
		rdmsrl(lbr_to_msr(i), to);
		if (!(to & (TO_VALID | TO_SPECULATIVE)) || (to & TO_IGNORE))
			continue;
		rdmsrl(lbr_from_msr(i), from);
		perf_clear_branch_entry_bitfields(&e[n]);
		e[n].from = lbr_addr(from);
		e[n].to = lbr_addr(to);
		e[n].mispred = !!(from & FROM_MISPREDICTED);
		e[n].predicted = !e[n].mispred;
		e[n].spec = lbr_spec(to);
		kind[n] = x86_branch_kind_fused(e[n].from, e[n].to, &fused);
		e[n].from += fused;
		n++;
	}
	return n;
}

/* Whether software filter @want keeps record @e, of kind @kind. */
static bool lbr_kept(u64 want, const struct perf_branch_entry *e,
		     enum x86_branch_kind kind)
{
	u64 level = x86_kernel_ip(e->to) ? PERF_SAMPLE_BRANCH_KERNEL :
					   PERF_SAMPLE_BRANCH_USER;

	if (!(want & level) || !(want & x86_branch_kind_filters(kind)))
		return false;
	/* From the kernel only when the kernel is asked for. */
	return (want & PERF_SAMPLE_BRANCH_KERNEL) || !x86_kernel_ip(e->from);
}

/*
 * Copy to @out those of the @nr records @rec (of kinds @kind) that
 * @want keeps, typed when it asks; @out may be @rec.  Returns how many.
 */
static int lbr_filter(struct perf_branch_entry *out,
		      const struct perf_branch_entry *rec, const u8 *kind,
		      int nr, u64 want)
{
	int i, n = 0;

	for (i = 0; i < nr; i++) {
		if (!lbr_kept(want, &rec[i], kind[i]))
			continue;
		out[n] = rec[i];
		if (want & PERF_SAMPLE_BRANCH_TYPE_SAVE)
			out[n].type = x86_branch_kind_perf_type(kind[i]);
		n++;
	}
	return n;
}

/*
 * x86_vendor.branch_stack: in the PMI, with recording stopped, the
 * branch stack of @event's sample.
 */
static void amd_lbr_sample(struct perf_event *event,
			   struct perf_sample_data *data)
{
	struct amd_lbr_cpu *lc = this_cpu_ptr(&amd_lbr_cpu);

	if (!event->hw.branch_reg.alloc)
		return;
	if (lc->nr < 0)
		lc->nr = lbr_read(lc->rec, lc->kind, lbr_depth);
	lc->stack.nr = lbr_filter(lc->entries, lc->rec, lc->kind, lc->nr,
				  event->attr.branch_sample_type);
	lc->stack.hw_idx = 0;
	perf_sample_save_brstack(data, event, &lc->stack, NULL);
}

/*
 * The snapshot with interrupts off: the @max newest records, read with
 * recording stopped, then filtered; none when no event holds the
 * recorder (they would be of no one's asking).
 */
static int lbr_snapshot_here(struct perf_branch_entry *entries, int max)
{
	struct amd_lbr_cpu *lc = this_cpu_ptr(&amd_lbr_cpu);
	bool resume = lc->on;
	u8 kind[LBR_MAX];
	int n;

	if (!lc->users)
		return 0;
	amd_lbr_disable();
	n = lbr_read(entries, kind, max);
	if (resume)
		amd_lbr_enable();
	return lbr_filter(entries, entries, kind, n, lc->filter);
}

/* bpf_get_branch_snapshot(): up to @cnt of this CPU's records, now. */
static int amd_lbr_snapshot(struct perf_branch_entry *entries,
			    unsigned int cnt)
{
	unsigned long flags;
	int n;

	local_irq_save(flags);
	n = lbr_snapshot_here(entries, min_t(unsigned int, cnt, lbr_depth));
	local_irq_restore(flags);
	return n;
}

/*
 * x86_vendor.sched_task: a task comes in (or leaves); the PMU is off.
 * The records of the task before it would be taken for its own.
 */
static void amd_lbr_sched_task(struct perf_event_pmu_context *epc,
			       struct task_struct *task, bool sched_in)
{
	struct amd_lbr_cpu *lc = this_cpu_ptr(&amd_lbr_cpu);

	if (sched_in && lc->users)
		lbr_clear(lc);
}

/*
 * Whether the recorder's MSRs can be read and written back: under a
 * hypervisor, which may report LBR v2 without backing them.  Bare metal
 * has what CPUID says.
 */
static bool __init lbr_msrs_answer(int depth)
{
	u32 msr[] = { MSR_AMD_DBG_EXTN_CFG, MSR_AMD64_LBR_SELECT };
	u64 val;
	int i;

	if (!boot_cpu_has(X86_FEATURE_HYPERVISOR))
		return true;
	for (i = 0; i < ARRAY_SIZE(msr); i++)
		if (rdmsrl_safe(msr[i], &val) || wrmsrl_safe(msr[i], val))
			return false;
	for (i = 0; i < depth; i++)
		if (rdmsrl_safe(lbr_from_msr(i), &val) ||
		    rdmsrl_safe(lbr_to_msr(i), &val) ||
		    wrmsrl_safe(lbr_from_msr(i), 0) ||
		    wrmsrl_safe(lbr_to_msr(i), 0))
			return false;
	return true;
}

/**
 * amd_lbr_probe - find the CPU's LBR v2
 * @v: the description of the core counters, PerfMonV2's (version 2):
 *	the branch stack hooks and its depth are filled in when there is one
 *
 * Return: the stack's depth, 0 when there is none (CPUID 0x80000022 EAX
 * bit 1 clear, no PerfMonV2, or MSRs that do not answer).
 */
int __init amd_lbr_probe(struct x86_vendor *v)
{
	union cpuid_0x80000022_ebx ebx;
	int depth;

	if (v->version < 2 || !boot_cpu_has(X86_FEATURE_AMD_LBR_V2))
		return 0;
	ebx.full = cpuid_ebx(EXT_PERFMON_DEBUG_FEATURES);
	depth = min_t(int, ebx.split.lbr_v2_stack_sz, LBR_MAX);
	if (!depth || !lbr_msrs_answer(depth))
		return 0;
	lbr_depth = depth;
	lbr_freeze = boot_cpu_has(X86_FEATURE_AMD_LBR_PMC_FREEZE);
	v->branches = depth;
	/* Its depth, as upstream tells it: no MSRs, no call stack mode. */
	v->guest_lbr.nr = depth;
	v->branch_config = amd_lbr_config;
	v->branch_stack = amd_lbr_sample;
	v->sched_task = amd_lbr_sched_task;
	static_call_update(perf_snapshot_branch_stack, amd_lbr_snapshot);
	return depth;
}
