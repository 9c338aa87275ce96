// SPDX-License-Identifier: GPL-2.0-only
/*
 * The model-specific last branch records of Intel cores, Skylake to Tiger
 * Lake: PERF_SAMPLE_BRANCH_STACK for the events of the core PMU.
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
 * Not here: the architectural LBR of later models (CPUID leaf 0x1C),
 * branch counters (PERF_SAMPLE_BRANCH_COUNTERS: -EINVAL, as upstream
 * without them) and KVM's guest LBR (x86_perf_get_lbr() still reports
 * none).
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

/*
 * The LBR_SELECT bits each filter bit wants recorded; the bits not here
 * are left to the software filter (or, like HV, mean nothing here).
 */
static const struct {
	u64 filter;
	u64 sel;
} lbr_sel_map[] = {
	{ PERF_SAMPLE_BRANCH_USER,	 LBR_SEL_USER },
	{ PERF_SAMPLE_BRANCH_KERNEL,	 LBR_SEL_KERNEL },
	{ PERF_SAMPLE_BRANCH_ANY,	 LBR_SEL_ANY },
	{ PERF_SAMPLE_BRANCH_ANY_RETURN, LBR_SEL_RETURN | LBR_SEL_FAR },
	{ PERF_SAMPLE_BRANCH_ANY_CALL,	 LBR_SEL_REL_CALL | LBR_SEL_IND_CALL |
					 LBR_SEL_FAR },
	{ PERF_SAMPLE_BRANCH_IND_CALL,	 LBR_SEL_IND_CALL },
	{ PERF_SAMPLE_BRANCH_COND,	 LBR_SEL_JCC },
	{ PERF_SAMPLE_BRANCH_CALL_STACK, LBR_SEL_REL_CALL | LBR_SEL_IND_CALL |
					 LBR_SEL_RETURN | LBR_SEL_CALL_STACK },
	{ PERF_SAMPLE_BRANCH_IND_JUMP,	 LBR_SEL_IND_JMP },
	{ PERF_SAMPLE_BRANCH_CALL,	 LBR_SEL_REL_CALL },
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
 * @select: the value they hold it with
 * @want: the branch filter of the event added last
 * @written: what LBR_SELECT holds (U64_MAX: not known)
 * @on: IA32_DEBUGCTL.LBR is set
 * @stack: the records of the last read, for the sample being written
 * @entries: the room for @stack's records
 */
struct intel_lbr_cpu {
	int users;
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
	return select & LBR_SEL_CALL_STACK;
}

/* Empty the ring. */
static void lbr_reset(void)
{
	int i;

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
	for (i = 0; i < ARRAY_SIZE(lbr_sel_map); i++)
		if (want & lbr_sel_map[i].filter)
			sel |= lbr_sel_map[i].sel;
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
	perf_sched_cb_dec(event->pmu);
}

/**
 * intel_lbr_enable - record, if an event on this CPU wants it
 *
 * Called as the PMU is turned on.
 */
void intel_lbr_enable(void)
{
	struct intel_lbr_cpu *lc = this_cpu_ptr(&intel_lbr_cpu);
	u64 debugctl;

	if (!lc->users)
		return;
	if (lc->written != lc->select) {
		wrmsrl(MSR_LBR_SELECT, lc->select);
		lc->written = lc->select;
	}
	rdmsrl(MSR_IA32_DEBUGCTLMSR, debugctl);
	debugctl |= DEBUGCTLMSR_LBR;
	if (lbr_call_stack(lc->select))
		debugctl &= ~DEBUGCTLMSR_FREEZE_LBRS_ON_PMI;
	else
		debugctl |= DEBUGCTLMSR_FREEZE_LBRS_ON_PMI;
	wrmsrl(MSR_IA32_DEBUGCTLMSR, debugctl);
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
	lc->on = false;
	lc->written = U64_MAX;
	lbr_reset();
}

/* A record: its addresses, and with @info what LBR_INFO says of it. */
static void lbr_entry(struct perf_branch_entry *e, u64 from, u64 to,
		      bool info, u64 inf)
{
	perf_clear_branch_entry_bitfields(e);
	e->from = from;
	e->to = to;
	if (info) {
		e->mispred = !!(inf & LBR_INFO_MISPRED);
		e->predicted = !e->mispred;
		e->in_tx = !!(inf & LBR_INFO_IN_TX);
		e->abort = !!(inf & LBR_INFO_ABORT);
		e->cycles = inf & LBR_INFO_CYCLES;
	}
}

/*
 * Read up to @max records of the ring into @entries, newest first; in
 * call stack mode (@select) up to the first empty one.  Returns how many;
 * @tos gets the top of the stack.
 */
static int lbr_read(struct perf_branch_entry *entries, int max, u64 select,
		    bool info, u64 *tos)
{
	bool call_stack = lbr_call_stack(select);
	u64 from, to, inf = 0;
	int i, idx, n = 0;

	rdmsrl(MSR_LBR_TOS, *tos);
	for (i = 0; i < max; i++) {
		idx = (*tos - i) & (lbr_nr - 1);
		rdmsrl(MSR_LBR_NHM_FROM + idx, from);
		rdmsrl(MSR_LBR_NHM_TO + idx, to);
		/* A call stack ends at its first empty record. */
		if (call_stack && !from)
			break;
		if (info)
			rdmsrl(MSR_LBR_INFO_0 + idx, inf);
		lbr_entry(&entries[n++], from, to, info, inf);
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
	bool types = want & PERF_SAMPLE_BRANCH_TYPE_SAVE;
	enum x86_branch_kind kind;
	int i, n = 0;

	want &= ~PERF_SAMPLE_BRANCH_HV;
	if ((want & PERF_SAMPLE_BRANCH_ANY) && (want & LBR_PLM) == LBR_PLM &&
	    !types)
		return nr;
	for (i = 0; i < nr; i++) {
		kind = x86_branch_kind(e[i].from, e[i].to, e[i].abort);
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
		if (call_stack && !rec[0])
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

	rdmsrl(MSR_LBR_TOS, s->tos);
	for (i = 0; i < lbr_nr; i++) {
		rdmsrl(MSR_LBR_NHM_FROM + i, s->from[i]);
		rdmsrl(MSR_LBR_NHM_TO + i, s->to[i]);
		rdmsrl(MSR_LBR_INFO_0 + i, s->info[i]);
	}
	s->valid = true;
}

static void lbr_restore(const struct intel_lbr_saved *s)
{
	int i;

	for (i = 0; i < lbr_nr; i++) {
		wrmsrl(MSR_LBR_NHM_FROM + i, s->from[i]);
		wrmsrl(MSR_LBR_NHM_TO + i, s->to[i]);
		wrmsrl(MSR_LBR_INFO_0 + i, s->info[i]);
	}
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
	int nr = intel_model_lbr(m), i;

	if (!nr || (caps & LBR_FORMAT_MASK) != LBR_FORMAT_INFO)
		return 0;
	if (!lbr_msr_works(MSR_LBR_TOS, 0x3))
		return 0;
	for (i = 0; i < nr; i++)
		if (!lbr_msr_works(MSR_LBR_NHM_FROM + i, 0xffff) ||
		    !lbr_msr_works(MSR_LBR_NHM_TO + i, 0xffff))
			return 0;
	lbr_nr = nr;
	v->branches = nr;
	v->branch_config = intel_lbr_config;
	v->branch_stack = intel_lbr_sample;
	v->sched_task = intel_lbr_sched_task;
	v->task_data_size = sizeof(struct intel_lbr_saved);
	static_call_update(perf_snapshot_branch_stack, intel_lbr_snapshot);
	return nr;
}
