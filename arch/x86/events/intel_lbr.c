// SPDX-License-Identifier: GPL-2.0-only
/*
 * The last branch records of Intel cores: PERF_SAMPLE_BRANCH_STACK for the
 * events of the core PMU, from the model-specific LBR (Skylake to Tiger
 * Lake) or the architectural one (CPUID leaf 0x1C: Sapphire Rapids,
 * Alder Lake and later).
 *
 * The CPU keeps its last 32 taken branches in a ring of MSR triplets
 * (MSR_LBR_NHM_FROM + n, MSR_LBR_NHM_TO + n, MSR_LBR_INFO_0 + n; the
 * format IA32_PERF_CAPABILITIES[5:0] calls 5), MSR_LBR_TOS indexing the
 * newest, while IA32_DEBUGCTL.LBR is set.  MSR_LBR_SELECT leaves kinds
 * of branches and privilege levels out (a set bit in 8:0 suppresses) or
 * turns the ring into a call stack (bit 9: a return takes its call off).
 *
 * An event's branch_sample_type becomes an LBR_SELECT value at
 * event_init (hw.branch_reg.config).  The events on a CPU share the one
 * register: an event is added only when the events already there want
 * the same value (hw.branch_reg.alloc while it holds it), else it waits
 * as for a busy counter.  Recording is on while the PMU is on and an
 * event holds the register, frozen by the CPU at a PMI (except in call
 * stack mode, where a frozen stack would miss the returns), and off
 * while the PMU is off, so the PMI, which turns the PMU off first, reads
 * the ring as it was at the overflow.
 *
 * In the PMI the ring is read newest first, then filtered in software
 * for what LBR_SELECT cannot tell (branch_kind.c decodes the source
 * instruction): the privilege level of the source, transactions, the
 * kinds the filter names, empty records, and the branch types
 * PERF_SAMPLE_BRANCH_TYPE_SAVE asks for.  As upstream's, that step is
 * skipped for a filter of every branch at every level without types.
 *
 * Across context switches (sched_task): the ring does not say which
 * address space a record belongs to, so a task coming in starts with an
 * empty ring, unless its call stack was saved when it left (task events
 * in call stack mode keep the ring in their sub-context's task_ctx_data),
 * which is written back.  An event added for the first time starts with
 * an empty ring too.
 *
 * bpf_get_branch_snapshot() reads the ring of its CPU while an event
 * holds it, filtered for the event added last.
 *
 * The architectural LBR is the same ring behind other registers, and
 * the same code drives it (lbr_arch): MSR_ARCH_LBR_CTL both turns it on
 * and filters, each bit a kind to keep (hw.branch_reg.config holds its
 * filter bits), the records are MSR_ARCH_LBR_FROM_0 + n, _TO_0 + n and
 * _INFO_0 + n with record 0 the newest (there is no top of stack: the
 * hardware index is 0), writing MSR_ARCH_LBR_DEPTH empties it, and
 * LBR_INFO says the branch's type, which the software filter takes
 * instead of decoding the source.  As upstream's, every record is typed
 * and keeps its flags and cycles whatever the event asks, and the
 * records are saved with RDMSR, not XSAVES.  Leaf 0x1C says which
 * filters, flags and cycles the hardware has; the others are refused
 * (-EOPNOTSUPP) or left empty.
 *
 * KVM's guest LBR: x86_perf_get_lbr() tells KVM of the ring (its depth,
 * its first records' MSRs, call stack mode), and while a guest uses it
 * KVM holds it with an event of INTEL_FIXED_VLBR_EVENT that excludes the
 * host, in call stack mode for the guest's user branches.  While such an
 * event is on a CPU the host does not turn recording on or off there
 * (the guest's IA32_DEBUGCTL is its own), and the ring is saved and
 * restored across the vCPU task's switches as any call stack is.
 *
 * Not here: branch counters (PERF_SAMPLE_BRANCH_COUNTERS: -EINVAL, as
 * upstream without them), and the architectural LBR of a model the
 * driver has no table for.
 *
 * Locking: the per-CPU state is changed on its CPU with interrupts off
 * (the x86 layer's add, del, pmu_enable and pmu_disable, the PMI, and
 * sched_task, which the core calls with the PMU disabled).  The model's
 * description is written once at boot.
 */
#include <linux/perf_event.h>
#include <linux/slab.h>
#include <linux/static_call.h>

#include <asm/msr.h>
#include <asm/perf_event.h>

#include "branch_kind.h"
#include "intel_lbr.h"
#include "intel_models.h"

#define LBR_MAX			32
#define LBR_FORMAT_INFO		5
#define LBR_FORMAT_MASK		0x3fULL

/* MSR_LBR_SELECT: bits 8:0 leave out what they name, bit 9 does not. */
#define LBR_SEL_KERNEL		BIT_ULL(0)	/* ending at CPL 0 */
#define LBR_SEL_USER		BIT_ULL(1)	/* ending above CPL 0 */
#define LBR_SEL_JCC		BIT_ULL(2)
#define LBR_SEL_REL_CALL	BIT_ULL(3)
#define LBR_SEL_IND_CALL	BIT_ULL(4)
#define LBR_SEL_RETURN		BIT_ULL(5)
#define LBR_SEL_IND_JMP		BIT_ULL(6)
#define LBR_SEL_REL_JMP		BIT_ULL(7)
#define LBR_SEL_FAR		BIT_ULL(8)
#define LBR_SEL_CALL_STACK	BIT_ULL(9)
#define LBR_SEL_SUPPRESS	GENMASK_ULL(8, 0)
#define LBR_SEL_ANY		GENMASK_ULL(8, 2)

/* MSR_ARCH_LBR_CTL: bits 22:16 keep what they name, as do 2:1. */
#define ALBR_KERNEL		BIT_ULL(1)	/* at CPL 0 */
#define ALBR_USER		BIT_ULL(2)	/* above CPL 0 */
#define ALBR_CALL_STACK		BIT_ULL(3)
#define ALBR_JCC		BIT_ULL(16)
#define ALBR_REL_JMP		BIT_ULL(17)
#define ALBR_IND_JMP		BIT_ULL(18)
#define ALBR_REL_CALL		BIT_ULL(19)
#define ALBR_IND_CALL		BIT_ULL(20)
#define ALBR_RETURN		BIT_ULL(21)
#define ALBR_OTHER		BIT_ULL(22)
#define ALBR_ANY		GENMASK_ULL(22, 16)
/* Leaf 0x1C EBX: CPL filtering, branch filtering, call stack mode. */
#define ALBR_HAS_CPL		BIT(0)
#define ALBR_HAS_FILTER		BIT(1)
#define ALBR_HAS_CALL_STACK	BIT(2)
/* ECX: mispredictions, cycles (timed LBR), branch types. */
#define ALBR_HAS_MISPRED	BIT(0)
#define ALBR_HAS_CYCLES		BIT(1)
#define ALBR_HAS_TYPE		BIT(2)

/*
 * The LBR_SELECT bits (sel) and MSR_ARCH_LBR_CTL bits (ctl) each filter
 * bit wants recorded; the bits not here are left to the software filter
 * (or, like HV, mean nothing here).
 */
static const struct {
	u64 filter;
	u64 sel;
	u64 ctl;
} lbr_sel_map[] = {
	{ PERF_SAMPLE_BRANCH_USER,	 LBR_SEL_USER, ALBR_USER },
	{ PERF_SAMPLE_BRANCH_KERNEL,	 LBR_SEL_KERNEL, ALBR_KERNEL },
	{ PERF_SAMPLE_BRANCH_ANY,	 LBR_SEL_ANY, ALBR_ANY },
	{ PERF_SAMPLE_BRANCH_ANY_RETURN, LBR_SEL_RETURN | LBR_SEL_FAR,
					 ALBR_RETURN | ALBR_OTHER },
	{ PERF_SAMPLE_BRANCH_ANY_CALL,	 LBR_SEL_REL_CALL | LBR_SEL_IND_CALL |
					 LBR_SEL_FAR,
					 ALBR_REL_CALL | ALBR_IND_CALL | ALBR_OTHER },
	{ PERF_SAMPLE_BRANCH_IND_CALL,	 LBR_SEL_IND_CALL, ALBR_IND_CALL },
	{ PERF_SAMPLE_BRANCH_COND,	 LBR_SEL_JCC, ALBR_JCC },
	{ PERF_SAMPLE_BRANCH_CALL_STACK, LBR_SEL_REL_CALL | LBR_SEL_IND_CALL |
					 LBR_SEL_RETURN | LBR_SEL_CALL_STACK,
					 ALBR_REL_CALL | ALBR_IND_CALL |
					 ALBR_RETURN | ALBR_CALL_STACK },
	{ PERF_SAMPLE_BRANCH_IND_JUMP,	 LBR_SEL_IND_JMP, ALBR_IND_JMP },
	{ PERF_SAMPLE_BRANCH_CALL,	 LBR_SEL_REL_CALL, ALBR_REL_CALL },
};

/* LBR_INFO's branch types (59:56) past which the source is decoded. */
static const enum x86_branch_kind albr_kinds[] = {
	X86_BRK_JCC, X86_BRK_IND_JMP, X86_BRK_JMP, X86_BRK_IND_CALL,
	X86_BRK_CALL, X86_BRK_RET,
};

/* The filter bits that name kinds of branches (branch_kind.c). */
#define LBR_KINDS	(PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_ANY_CALL | \
			 PERF_SAMPLE_BRANCH_ANY_RETURN | PERF_SAMPLE_BRANCH_IND_CALL | \
			 PERF_SAMPLE_BRANCH_ABORT_TX | PERF_SAMPLE_BRANCH_COND | \
			 PERF_SAMPLE_BRANCH_CALL_STACK | PERF_SAMPLE_BRANCH_IND_JUMP | \
			 PERF_SAMPLE_BRANCH_CALL)
/* What call stack mode cannot be combined with (-EINVAL). */
#define LBR_NOT_WITH_CALL_STACK (PERF_SAMPLE_BRANCH_ANY | \
			 PERF_SAMPLE_BRANCH_ANY_CALL | PERF_SAMPLE_BRANCH_ANY_RETURN | \
			 PERF_SAMPLE_BRANCH_IND_CALL | PERF_SAMPLE_BRANCH_ABORT_TX | \
			 PERF_SAMPLE_BRANCH_IN_TX | PERF_SAMPLE_BRANCH_NO_TX | \
			 PERF_SAMPLE_BRANCH_COND)
#define LBR_TX		(PERF_SAMPLE_BRANCH_IN_TX | PERF_SAMPLE_BRANCH_NO_TX)
#define LBR_PLM		(PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_KERNEL)

/* The ring of this CPU model, 0 entries when there is none. */
static int lbr_nr __ro_after_init;
/* It is the architectural LBR; leaf 0x1C's ECX. */
static bool lbr_arch __ro_after_init;
static u32 albr_info __ro_after_init;
/* The filter bits this ring cannot honour (-EOPNOTSUPP). */
static u64 lbr_unsupported __ro_after_init;

/**
 * struct intel_lbr_saved - a task's call stack, kept while it is out
 * @valid: the ring below was saved as the task last left, and not yet
 *	written back
 * @tos: MSR_LBR_TOS
 * @from: the sources
 * @to: the targets
 * @info: the LBR_INFO of each
 */
struct intel_lbr_saved {
	bool valid;
	u64 tos;
	u64 from[LBR_MAX];
	u64 to[LBR_MAX];
	u64 info[LBR_MAX];
};

/**
 * struct intel_lbr_cpu - one CPU's ring
 * @users: the events holding LBR_SELECT
 * @guest: of which guest LBR events (excluding the host)
 * @select: the value they hold it with
 * @want: the branch filter of the event added last
 * @written: what LBR_SELECT holds (U64_MAX: not known)
 * @on: IA32_DEBUGCTL.LBR is set
 * @stack: the records of the last read, for the sample being written
 * @entries: the room for @stack's records
 */
struct intel_lbr_cpu {
	int users;
	int guest;
	u64 select;
	u64 want;
	u64 written;
	bool on;
	struct perf_branch_stack stack;
	struct perf_branch_entry entries[LBR_MAX];
};

static DEFINE_PER_CPU(struct intel_lbr_cpu, intel_lbr_cpu);

static bool lbr_call_stack(u64 select)
{
	return select & (lbr_arch ? ALBR_CALL_STACK : LBR_SEL_CALL_STACK);
}

/* The MSRs of record @i: of the ring's slot @i, or the @i-th newest. */
static u32 lbr_from_msr(int i)
{
	return (lbr_arch ? MSR_ARCH_LBR_FROM_0 : MSR_LBR_NHM_FROM) + i;
}

static u32 lbr_to_msr(int i)
{
	return (lbr_arch ? MSR_ARCH_LBR_TO_0 : MSR_LBR_NHM_TO) + i;
}

static u32 lbr_info_msr(int i)
{
	return (lbr_arch ? MSR_ARCH_LBR_INFO_0 : MSR_LBR_INFO_0) + i;
}

/* Empty the ring. */
static void lbr_reset(void)
{
	int i;

	if (lbr_arch) {
		wrmsrl(MSR_ARCH_LBR_DEPTH, lbr_nr);
		return;
	}
	for (i = 0; i < lbr_nr; i++) {
		wrmsrl(MSR_LBR_NHM_FROM + i, 0);
		wrmsrl(MSR_LBR_NHM_TO + i, 0);
		wrmsrl(MSR_LBR_INFO_0 + i, 0);
	}
}

/*
 * Whether the members of @event's group that use the ring want @sel in
 * LBR_SELECT too.  Called at event_init, where the core holds the
 * leader's context mutex: the sibling list is stable.
 */
static bool lbr_group_agrees(struct perf_event *event, u64 sel)
{
	struct perf_event *leader = event->group_leader, *sib;

	if (needs_branch_stack(leader) && leader->hw.branch_reg.config != sel)
		return false;
	for_each_sibling_event(sib, leader)
		if (needs_branch_stack(sib) && sib->hw.branch_reg.config != sel)
			return false;
	return true;
}

/**
 * intel_lbr_config - check an event's branch filter, set its LBR_SELECT
 * @v: the description of the event's counters
 * @event: the event; it has a branch filter
 *
 * Return: 0; -EOPNOTSUPP without a ring, -EINVAL for branch counters, a
 * call stack with other kinds of branches, or a group member whose
 * LBR_SELECT differs from the others', as upstream.
 */
int intel_lbr_config(const struct x86_vendor *v, struct perf_event *event)
{
	u64 want = event->attr.branch_sample_type, sel = 0;
	int i;

	if (!v->branches)
		return -EOPNOTSUPP;
	if (want & PERF_SAMPLE_BRANCH_COUNTERS)
		return -EINVAL;
	if ((want & PERF_SAMPLE_BRANCH_CALL_STACK) &&
	    (want & LBR_NOT_WITH_CALL_STACK))
		return -EINVAL;
	if (want & lbr_unsupported)
		return -EOPNOTSUPP;
	for (i = 0; i < ARRAY_SIZE(lbr_sel_map); i++)
		if (want & lbr_sel_map[i].filter)
			sel |= lbr_arch ? lbr_sel_map[i].ctl : lbr_sel_map[i].sel;
	if (!lbr_arch)
		sel ^= LBR_SEL_SUPPRESS;
	/* The members of a group count together: one LBR_SELECT for all. */
	if (event->group_leader != event && !lbr_group_agrees(event, sel))
		return -EINVAL;
	event->hw.branch_reg.config = sel;
	event->hw.branch_reg.alloc = 0;
	if (want & PERF_SAMPLE_BRANCH_CALL_STACK)
		event->attach_state |= PERF_ATTACH_TASK_DATA;
	return 0;
}

/* Whether @event is KVM's, holding the ring for a guest only. */
static bool lbr_guest_event(const struct perf_event *event)
{
	return (event->hw.flags & X86_EVENT_VLBR) && event->attr.exclude_host;
}

/**
 * intel_lbr_get - hold the ring for an event being added on this CPU
 * @event: the event
 *
 * Return: 0 (nothing to do for an event without a branch filter), or
 * -EBUSY when the events holding it want another LBR_SELECT.
 */
int intel_lbr_get(struct perf_event *event)
{
	struct intel_lbr_cpu *lc = this_cpu_ptr(&intel_lbr_cpu);
	struct hw_perf_event_extra *br = &event->hw.branch_reg;

	if (!lbr_nr || !needs_branch_stack(event) || br->alloc)
		return 0;
	if (lc->users && lc->select != br->config)
		return -EBUSY;
	lc->select = br->config;
	lc->want = event->attr.branch_sample_type;
	/* A new event sees no branches from before it was there. */
	if (!lc->users++ && !event->total_time_running)
		lbr_reset();
	if (lbr_guest_event(event))
		lc->guest++;
	br->alloc = 1;
	perf_sched_cb_inc(event->pmu);
	return 0;
}

/**
 * intel_lbr_put - let go of the ring as an event is deleted
 * @event: the event
 */
void intel_lbr_put(struct perf_event *event)
{
	struct hw_perf_event_extra *br = &event->hw.branch_reg;

	if (!br->alloc)
		return;
	br->alloc = 0;
	this_cpu_dec(intel_lbr_cpu.users);
	if (lbr_guest_event(event))
		this_cpu_dec(intel_lbr_cpu.guest);
	perf_sched_cb_dec(event->pmu);
}

/**
 * intel_lbr_enable - record, if an event on this CPU wants it
 *
 * Called as the PMU is turned on.  Not while a guest holds the ring.
 */
void intel_lbr_enable(void)
{
	struct intel_lbr_cpu *lc = this_cpu_ptr(&intel_lbr_cpu);
	u64 debugctl;

	if (!lc->users || lc->guest)
		return;
	if (!lbr_arch && lc->written != lc->select) {
		wrmsrl(MSR_LBR_SELECT, lc->select);
		lc->written = lc->select;
	}
	rdmsrl(MSR_IA32_DEBUGCTLMSR, debugctl);
	if (!lbr_arch)
		debugctl |= DEBUGCTLMSR_LBR;
	if (lbr_call_stack(lc->select))
		debugctl &= ~DEBUGCTLMSR_FREEZE_LBRS_ON_PMI;
	else
		debugctl |= DEBUGCTLMSR_FREEZE_LBRS_ON_PMI;
	wrmsrl(MSR_IA32_DEBUGCTLMSR, debugctl);
	if (lbr_arch)
		wrmsrl(MSR_ARCH_LBR_CTL, lc->select | ARCH_LBR_CTL_LBREN);
	lc->on = true;
}

/**
 * intel_lbr_disable - stop recording (the ring keeps its records)
 *
 * Called as the PMU is turned off.
 */
void intel_lbr_disable(void)
{
	struct intel_lbr_cpu *lc = this_cpu_ptr(&intel_lbr_cpu);
	u64 debugctl;

	if (!lc->on)
		return;
	if (lbr_arch)
		wrmsrl(MSR_ARCH_LBR_CTL, 0);
	rdmsrl(MSR_IA32_DEBUGCTLMSR, debugctl);
	debugctl &= ~(DEBUGCTLMSR_LBR | DEBUGCTLMSR_FREEZE_LBRS_ON_PMI);
	wrmsrl(MSR_IA32_DEBUGCTLMSR, debugctl);
	lc->on = false;
}

/**
 * intel_lbr_cpu_starting - a CPU's ring before its first use
 */
void intel_lbr_cpu_starting(void)
{
	struct intel_lbr_cpu *lc = this_cpu_ptr(&intel_lbr_cpu);

	if (!lbr_nr)
		return;
	lc->users = 0;
	lc->guest = 0;
	lc->on = false;
	lc->written = U64_MAX;
	lbr_reset();
}

/*
 * A record: its addresses, and with @info what LBR_INFO says of it.  The
 * architectural LBR's branch type waits in ->type, plus one (0: none),
 * for lbr_filter().
 */
static void lbr_entry(struct perf_branch_entry *e, u64 from, u64 to,
		      bool info, u64 inf)
{
	u64 type = (inf & LBR_INFO_BR_TYPE) >> LBR_INFO_BR_TYPE_OFFSET;

	perf_clear_branch_entry_bitfields(e);
	e->from = from;
	e->to = to;
	if (!info)
		return;
	e->in_tx = !!(inf & LBR_INFO_IN_TX);
	e->abort = !!(inf & LBR_INFO_ABORT);
	if (!lbr_arch) {
		e->mispred = !!(inf & LBR_INFO_MISPRED);
		e->predicted = !e->mispred;
		e->cycles = inf & LBR_INFO_CYCLES;
		return;
	}
	e->mispred = (albr_info & ALBR_HAS_MISPRED) && (inf & LBR_INFO_MISPRED);
	e->predicted = !e->mispred;
	if ((albr_info & ALBR_HAS_CYCLES) && (inf & LBR_INFO_CYC_CNT_VALID))
		e->cycles = inf & LBR_INFO_CYCLES;
	if ((albr_info & ALBR_HAS_TYPE) && type < ARRAY_SIZE(albr_kinds))
		e->type = type + 1;
}

/*
 * Read up to @max records of the ring into @entries, newest first; in
 * call stack mode (@select), and always from the architectural LBR, up
 * to the first empty one.  Returns how many; @tos gets the top of the
 * stack.
 */
static int lbr_read(struct perf_branch_entry *entries, int max, u64 select,
		    bool info, u64 *tos)
{
	bool to_empty = lbr_arch || lbr_call_stack(select);
	u64 from, to, inf = 0;
	int i, idx, n = 0;

	*tos = 0;
	if (!lbr_arch)
		rdmsrl(MSR_LBR_TOS, *tos);
	for (i = 0; i < max; i++) {
		idx = lbr_arch ? i : (*tos - i) & (lbr_nr - 1);
		rdmsrl(lbr_from_msr(idx), from);
		if (to_empty && !from)
			break;
		rdmsrl(lbr_to_msr(idx), to);
		if (info || lbr_arch)
			rdmsrl(lbr_info_msr(idx), inf);
		lbr_entry(&entries[n++], from, to, info || lbr_arch, inf);
	}
	return n;
}

/* Whether filter @want keeps record @e of kind @kind. */
static bool lbr_keep(u64 want, const struct perf_branch_entry *e,
		     enum x86_branch_kind kind)
{
	if (kind == X86_BRK_NONE || !(x86_branch_kind_filters(kind) & want))
		return false;
	if (!(want & (x86_kernel_ip(e->to) ? PERF_SAMPLE_BRANCH_KERNEL :
					  PERF_SAMPLE_BRANCH_USER)))
		return false;
	if (x86_kernel_ip(e->from) && !(want & PERF_SAMPLE_BRANCH_KERNEL))
		return false;
	if ((want & LBR_TX) &&
	    !(want & (e->in_tx ? PERF_SAMPLE_BRANCH_IN_TX : PERF_SAMPLE_BRANCH_NO_TX)))
		return false;
	return true;
}

/*
 * Keep the @nr records filter @want keeps, typed when it asks; returns
 * how many.
 */
static int lbr_filter(struct perf_branch_entry *e, int nr, u64 want)
{
	bool types = lbr_arch || (want & PERF_SAMPLE_BRANCH_TYPE_SAVE);
	enum x86_branch_kind kind;
	int i, n = 0;

	want &= ~PERF_SAMPLE_BRANCH_HV;
	if ((want & PERF_SAMPLE_BRANCH_ANY) && (want & LBR_PLM) == LBR_PLM &&
	    !types)
		return nr;
	for (i = 0; i < nr; i++) {
		if (e[i].type)
			kind = albr_kinds[e[i].type - 1];
		else
			kind = x86_branch_kind(e[i].from, e[i].to, e[i].abort);
		e[i].type = 0;
		if (!lbr_keep(want, &e[i], kind))
			continue;
		if (types)
			e[i].type = x86_branch_kind_perf_type(kind);
		e[n++] = e[i];
	}
	return n;
}

/*
 * x86_vendor.branch_stack: in the PMI, the branch stack of @event's
 * sample, from the ring as the PMI found it.
 */
static void intel_lbr_sample(struct perf_event *event,
			     struct perf_sample_data *data)
{
	struct intel_lbr_cpu *lc = this_cpu_ptr(&intel_lbr_cpu);
	u64 want = event->attr.branch_sample_type;
	int n;

	if (!event->hw.branch_reg.alloc)
		return;
	n = lbr_read(lc->entries, lbr_nr, lc->select,
		     !((want & PERF_SAMPLE_BRANCH_NO_FLAGS) &&
		       (want & PERF_SAMPLE_BRANCH_NO_CYCLES)), &lc->stack.hw_idx);
	lc->stack.nr = lbr_filter(lc->entries, n, want);
	perf_sample_save_brstack(data, event, &lc->stack, NULL);
}

/**
 * intel_lbr_sample_records - the branch stack of @event's sample from
 *	the LBR records a PEBS record holds (adaptive PEBS)
 * @event: the event, holding the ring (its LBR_SELECT in force)
 * @data: its sample
 * @rec: @nr records, newest first, each its FROM, TO and LBR_INFO
 * @nr: how many
 *
 * In the drain, with interrupts off.  The ring's top of stack then is
 * not the record's: the stack has no hardware index (-1), as upstream's
 * large PEBS gives.
 */
void intel_lbr_sample_records(struct perf_event *event,
			      struct perf_sample_data *data, const u64 *rec,
			      int nr)
{
	struct intel_lbr_cpu *lc = this_cpu_ptr(&intel_lbr_cpu);
	u64 want = event->attr.branch_sample_type;
	bool call_stack = lbr_call_stack(lc->select);
	int i, n = 0;

	if (!event->hw.branch_reg.alloc)
		return;
	for (i = 0; i < min(nr, lbr_nr); i++, rec += 3) {
		if ((call_stack || lbr_arch) && !rec[0])
			break;
		lbr_entry(&lc->entries[n++], rec[0], rec[1], true, rec[2]);
	}
	lc->stack.hw_idx = -1ULL;
	lc->stack.nr = lbr_filter(lc->entries, n, want);
	perf_sample_save_brstack(data, event, &lc->stack, NULL);
}

/*
 * bpf_get_branch_snapshot(): up to @cnt records of this CPU's ring as
 * it is now, with recording stopped while it is read; none when no
 * event holds the ring (its records would be of no one's asking).
 */
static int intel_lbr_snapshot(struct perf_branch_entry *entries,
			      unsigned int cnt)
{
	struct intel_lbr_cpu *lc;
	unsigned long flags;
	bool was_on;
	u64 tos;
	int n = 0;

	local_irq_save(flags);
	lc = this_cpu_ptr(&intel_lbr_cpu);
	if (lc->users) {
		was_on = lc->on;
		intel_lbr_disable();
		n = lbr_read(entries, min_t(unsigned int, cnt, lbr_nr),
			     lc->select, true, &tos);
		n = lbr_filter(entries, n, lc->want);
		if (was_on)
			intel_lbr_enable();
	}
	local_irq_restore(flags);
	return n;
}

static void lbr_save(struct intel_lbr_saved *s)
{
	int i;

	if (!lbr_arch)
		rdmsrl(MSR_LBR_TOS, s->tos);
	for (i = 0; i < lbr_nr; i++) {
		rdmsrl(lbr_from_msr(i), s->from[i]);
		rdmsrl(lbr_to_msr(i), s->to[i]);
		rdmsrl(lbr_info_msr(i), s->info[i]);
	}
	s->valid = true;
}

static void lbr_restore(const struct intel_lbr_saved *s)
{
	int i;

	for (i = 0; i < lbr_nr; i++) {
		wrmsrl(lbr_from_msr(i), s->from[i]);
		wrmsrl(lbr_to_msr(i), s->to[i]);
		wrmsrl(lbr_info_msr(i), s->info[i]);
	}
	if (!lbr_arch)
		wrmsrl(MSR_LBR_TOS, s->tos);
}

/*
 * x86_vendor.sched_task: a task leaves or comes in; @epc is its part
 * for the PMU, or NULL.  The PMU is off.
 */
static void intel_lbr_sched_task(struct perf_event_pmu_context *epc,
				 struct task_struct *task, bool sched_in)
{
	struct intel_lbr_cpu *lc = this_cpu_ptr(&intel_lbr_cpu);
	struct intel_lbr_saved *s = epc ? epc->task_ctx_data : NULL;

	if (!lc->users)
		return;
	if (s && lbr_call_stack(lc->select)) {
		if (!sched_in) {
			lbr_save(s);
		} else if (s->valid) {
			/* Once: a later switch in without a save starts empty. */
			lbr_restore(s);
			s->valid = false;
		} else {
			lbr_reset();
		}
		return;
	}
	if (sched_in)
		lbr_reset();
}

/*
 * Whether @msr takes a write of @mask's bits flipped (and is given its
 * value back): under a hypervisor, which may describe a model without
 * giving it the MSRs.  Bare metal has what its model has.
 */
static bool __init lbr_msr_works(u32 msr, u64 mask)
{
	u64 old, flipped;

	if (!boot_cpu_has(X86_FEATURE_HYPERVISOR))
		return true;
	if (rdmsrl_safe(msr, &old) || wrmsrl_safe(msr, old ^ mask) ||
	    rdmsrl_safe(msr, &flipped))
		return false;
	wrmsrl_safe(msr, old);
	return flipped == (old ^ mask);
}

/* Whether the @nr records from @from and @to take writes (see above). */
static bool __init lbr_records_work(u32 from, u32 to, int nr)
{
	int i;

	for (i = 0; i < nr; i++)
		if (!lbr_msr_works(from + i, 0xffff) ||
		    !lbr_msr_works(to + i, 0xffff))
			return false;
	return true;
}

/*
 * The architectural LBR that leaf 0x1C describes, at its deepest: its
 * depth, 0 when it is not there or lacks the privilege or kind filters
 * (every part with one has both; upstream would filter such a ring in
 * software).
 */
static int __init albr_probe(void)
{
	u32 eax, ebx, ecx, edx;
	int nr;

	cpuid(0x1c, &eax, &ebx, &ecx, &edx);
	nr = fls(eax & 0xff) * 8;
	if (!nr || nr > LBR_MAX || wrmsrl_safe(MSR_ARCH_LBR_DEPTH, nr))
		return 0;
	if (!(ebx & ALBR_HAS_CPL) || !(ebx & ALBR_HAS_FILTER))
		return 0;
	if (!lbr_records_work(MSR_ARCH_LBR_FROM_0, MSR_ARCH_LBR_TO_0, nr))
		return 0;
	albr_info = ecx;
	if (!(ebx & ALBR_HAS_CALL_STACK))
		lbr_unsupported |= PERF_SAMPLE_BRANCH_CALL_STACK;
	lbr_arch = true;
	return nr;
}

/**
 * intel_lbr_probe - find the model's ring
 * @m: the model's tables
 * @caps: IA32_PERF_CAPABILITIES
 * @v: the description of the core's counters: the branch stack hooks
 *	and its depth are filled in when there is a ring
 *
 * Return: the ring's depth, 0 when there is none this driver reads.
 */
int __init intel_lbr_probe(const struct intel_model *m, u64 caps,
			   struct x86_vendor *v)
{
	int nr = intel_model_lbr(m);

	if (boot_cpu_has(X86_FEATURE_ARCH_LBR)) {
		nr = albr_probe();
		if (!nr)
			return 0;
	} else {
		if (!nr || (caps & LBR_FORMAT_MASK) != LBR_FORMAT_INFO)
			return 0;
		if (!lbr_msr_works(MSR_LBR_TOS, 0x3) ||
		    !lbr_records_work(MSR_LBR_NHM_FROM, MSR_LBR_NHM_TO, nr))
			return 0;
	}
	lbr_nr = nr;
	v->branches = nr;
	v->guest_lbr.nr = nr;
	v->guest_lbr.from = lbr_from_msr(0);
	v->guest_lbr.to = lbr_to_msr(0);
	v->guest_lbr.info = lbr_info_msr(0);
	v->guest_lbr.has_callstack = !(lbr_unsupported & PERF_SAMPLE_BRANCH_CALL_STACK);
	v->branch_config = intel_lbr_config;
	v->branch_stack = intel_lbr_sample;
	v->sched_task = intel_lbr_sched_task;
	v->task_data_size = sizeof(struct intel_lbr_saved);
	static_call_update(perf_snapshot_branch_stack, intel_lbr_snapshot);
	return nr;
}
