/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The x86 PMU layer (x86_pmu.c) and the vendor drivers under it.
 */
#ifndef _X86_EVENTS_X86_PMU_H
#define _X86_EVENTS_X86_PMU_H

#include <linux/perf_event.h>

#include "assign.h"

/*
 * hw.flags of an event that takes the counter after its own too (set by
 * the vendor's hw_config): AMD's large-increment events, whose count can
 * grow by more than one a cycle and spills into the odd counter.
 */
#define X86_EVENT_PAIR		BIT(0)

/*
 * hw.flags of an event whose counter the vendor reads together with
 * others (set by the vendor's hw_config): Intel's topdown, where the
 * slots of fixed counter 3 and the shares PERF_METRICS gives of them are
 * read and cleared at once.  Such a counter starts from 0, not -period;
 * its count is folded by the vendor's fold() for all of them together,
 * whenever one of them is read, starts or stops; it does not sample and
 * user space does not read it with rdpmc (index 0 in the control page).
 */
#define X86_EVENT_FOLDED	BIT(1)

/*
 * hw.flags of a precise event (attr.precise_ip, set by the vendor's
 * hw_config): its samples come from the vendor's records (Intel's
 * PEBS), not from its counter's overflow, which interrupts nothing.
 * With the kind of memory access it counts, where the records say
 * something of it: loads, stores, loads above a latency.
 */
#define X86_EVENT_PRECISE	BIT(2)
#define X86_EVENT_PRECISE_LD	BIT(3)
#define X86_EVENT_PRECISE_ST	BIT(4)
/* A precise load latency event: its records give latencies and sources. */
#define X86_EVENT_PRECISE_LAT	BIT(7)
/* A precise store latency event (Golden Cove's): the same for stores. */
#define X86_EVENT_PRECISE_STLAT	BIT(10)
/* A latency event of a Gracemont core: its sources by that core's table. */
#define X86_EVENT_PRECISE_GRT	BIT(11)

/*
 * hw.flags of a precise_ip 3 event of a part with Golden Cove's precise
 * distribution (PDist on general counter 0; instructions on fixed
 * counter 0): the counter must start at least X86_PDIST_MIN_PERIOD
 * events from its wrap, as upstream asks of every such event.
 */
#define X86_EVENT_PDIST		BIT(9)
#define X86_PDIST_MIN_PERIOD	128

/*
 * hw.flags of a precise event whose counter the CPU reloads with
 * -period at each record (a fixed period): the vendor's drain() folds
 * its count for all its records at once (x86_pmu_reload_fold()), and
 * its samples do not start periods.  With X86_EVENT_PRECISE_LARGE, the
 * CPU keeps many records before it interrupts: they are drained as
 * well when the event stops and when it is read.
 */
#define X86_EVENT_RELOAD	BIT(5)
#define X86_EVENT_PRECISE_LARGE	BIT(6)

/*
 * hw.flags of Intel's branch instructions event with a fixed period of
 * one (set by the vendor's hw_config): the branch trace store records
 * each branch and the vendor turns the records into samples.  It takes
 * the pseudo-counter X86_BTS_IDX, has no count (0) and no period, and
 * user space does not read it with rdpmc.
 */
#define X86_EVENT_BTS		BIT(8)

/*
 * hw.flags of KVM's guest LBR event (Intel's INTEL_FIXED_VLBR_EVENT, set
 * by the vendor's hw_config): it holds the LBR for a guest while its
 * task runs and counts nothing, on the pseudo-counter X86_VLBR_IDX (the
 * index of GLOBAL_STATUS's LBR freeze bit, as upstream's).
 */
#define X86_EVENT_VLBR		BIT(12)

/* The events without a counter of their own: no count, no period. */
#define X86_EVENT_NO_COUNTER	(X86_EVENT_BTS | X86_EVENT_VLBR)

/*
 * The status bit (a vendor's status()) that says the vendor's buffer of
 * records reached its threshold: the PMI calls drain().  Intel's
 * GLOBAL_STATUS OvfBuffer (GLOBAL_STATUS_BUFFER_OVF_BIT).
 */
#define X86_STATUS_DRAIN	62

/* The most events/ files a vendor adds (a model's, topdown's). */
#define X86_VENDOR_EVENTS	16

/* The fixed counters' indexes, and the pseudo-counters' above them. */
#define X86_FIXED_MASK		GENMASK_ULL(47, X86_ASSIGN_FIXED_BASE)
#define X86_METRIC_BASE		48
/* The branch trace store's pseudo-counter (upstream's index too). */
#define X86_BTS_IDX		47
/* The guest LBR event's, among the metrics' (upstream's index too). */
#define X86_VLBR_IDX		58

/**
 * struct x86_vendor - what a vendor driver tells the x86 layer
 * @name: the PMU's name in the boot log
 * @pmu_name: on a hybrid part, the PMU's name in sysfs (the one PMU of a
 *	part whose cores are all alike is "cpu")
 * @core_type: on a hybrid part, the core type of the CPUs whose counters
 *	this describes (CPUID leaf 0x1A); 0 elsewhere
 * @priv: the vendor's own state for these counters (optional)
 * @caps_name: the PMU's name in caps/pmu_name (NULL: no such file)
 * @version: the PMU's version (Intel: CPUID leaf 0xA)
 * @events_mask: Intel: the architectural events CPUID.0AH:EBX says are
 *	absent (a set bit each); 0 elsewhere
 * @events_mask_len: Intel: how many bits of @events_mask are defined
 * @counters: the counters there are (general from bit 0, fixed from 32)
 * @width: counter width in bits
 * @max_period: the longest period one counter run may have
 * @config_mask: the PERF_TYPE_RAW config bits user space may set
 * @event_map: the config of a PERF_TYPE_HARDWARE event, 0 if none
 * @cache_event: the config of a PERF_TYPE_HW_CACHE event (cache, op,
 *	result, each in range), 0 when the CPU has no such event, or
 *	%X86_CACHE_INVALID when it cannot have one (optional: none)
 * @constraint: the counters a config may count on (for a paired event,
 *	the even counters of its pairs)
 * @hw_config: adjust a new event's hw.config and hw.flags, or refuse it
 *	(optional)
 * @enable_all: let the counters of @active count (the PMU on)
 * @disable_all: stop all counters at once (the PMU off)
 * @enable: program and start the event's counter (hw.idx)
 * @disable: stop the event's counter
 * @status: the counters that overflowed, for the PMI
 * @ack: clear those overflow bits
 * @read: the counter's value now
 * @write: set the counter's value
 * @sample_ended_period: a sample's PERF_SAMPLE_PERIOD is the period that
 *	ended there (AMD with PerfMonV2, as upstream's handler for it does)
 *	rather than the one that starts there; the two differ in frequency
 *	mode, where the period changes between overflows
 * @late_pmi: the CPU may deliver a PMI after the PMI before it cleared
 *	its overflow bit (AMD, whose LVTPC is not masked on delivery):
 *	an NMI nobody claims soon after a PMI is taken as such a one
 * @format: sysfs format/ attributes
 * @attrs: the vendor's own files beside rdpmc (optional)
 * @cpu_starting: set a CPU's vendor state up as it comes online, before
 *	its counters are used, @v being the description of its counters
 *	(optional)
 * @guest_msrs: what a hypervisor switches at guest entry and exit so that
 *	host-only events stop in the guest and guest-only ones count only
 *	there (optional: NULL when the counters' controls do it)
 * @fold_counters: the counters that %X86_EVENT_FOLDED events may take,
 *	and whose overflow bit calls for a fold (0: none)
 * @fold: add to the count of each event of @placed whose counter is in
 *	@which what it counted since the last fold, and clear the counters
 *	of @fold_counters; @wrapped: the counters that overflowed since
 *	(their width is added).  Called with the counters stopped.
 * @events: the vendor's own sysfs events/ files, %X86_VENDOR_EVENTS at
 *	most (optional)
 * @get_extra: hold what else than a counter the event needs on this CPU
 *	(a register beside its EVTSEL) as it is added; -EBUSY when other
 *	events hold it (optional)
 * @put_extra: let go of it as the event is deleted (optional)
 * @branches: the depth of the branch stack the CPU records
 *	(caps/branches); 0: no branch stacks (-EOPNOTSUPP)
 * @branch_config: check a new event's branch filter and set it up
 *	(hw.branch_reg); with @branches
 * @branch_stack: in the PMI, save @event's branch stack in its sample
 *	(perf_sample_save_brstack()); with @branches
 * @sched_task: a task leaves this CPU or comes in (the PMU's sched_task,
 *	for the vendor's state of the task), called with the PMU disabled
 *	while an event asked for it (perf_sched_cb_inc()); optional
 * @task_data_size: the size of the vendor's state of a task
 *	(task_ctx_data), 0 for none
 * @max_precise: the highest attr.precise_ip the vendor takes
 *	(caps/max_precise); 0: no precise events (-EOPNOTSUPP)
 * @precise_counters: the counters precise events may count on
 * @precise_constraint: which of those a precise event may use, by its
 *	hw.config and attr.precise_ip (its rules replace @constraint's for
 *	precise events)
 * @extended_regs: precise events' samples may have the XMM registers
 *	(PERF_PMU_CAP_EXTENDED_REGS), which the records give
 * @drain: turn the records the vendor's buffer holds into samples
 *	(x86_pmu_record()), @iregs being the interrupted registers in the
 *	PMI, NULL when an event is read or stops; with @max_precise
 * @trace_pmi: in the PMI, before the counters are looked at: stop the
 *	vendor's branch tracer (BTS) while the PMI runs, and handle its
 *	interrupt, which has no status bit; 1 when the PMI was its
 *	(optional)
 * @trace_resume: as the PMI leaves, trace again; with @trace_pmi
 * @forward: an event with attr.precise_ip that another PMU samples (AMD's
 *	IBS): before anything else is looked at, rewrite attr.type (and
 *	attr.config) and return -ENOENT for the core to offer it there, or
 *	refuse it; 0: the event is this PMU's to take or refuse (optional)
 * @check_period: whether PERF_EVENT_IOC_PERIOD may give @event the
 *	period @period: 0, or -EINVAL (optional: any)
 * @guest_lbr: the branch recorder as KVM is told of it
 *	(x86_perf_get_lbr()), filled in with @branches; zero without one
 *
 * The hooks that take @v describe the counters of that description
 * (event_map, cache_event, constraint and hw_config run on any CPU); the
 * others run with interrupts off on the CPU whose counters they touch,
 * which the vendor knows from cpu_starting.
 */
struct x86_vendor {
	const char *name;
	const char *pmu_name;
	u8 core_type;
	const void *priv;
	const char *caps_name;
	int version;
	u32 events_mask;
	int events_mask_len;
	u64 counters;
	int width;
	u64 max_period;
	u64 config_mask;
	u64 (*event_map)(const struct x86_vendor *v, u64 hw_id);
	u64 (*cache_event)(const struct x86_vendor *v, unsigned int cache,
			   unsigned int op, unsigned int result);
	u64 (*constraint)(const struct x86_vendor *v, u64 config);
	int (*hw_config)(const struct x86_vendor *v, struct perf_event *event);
	void (*enable_all)(u64 active);
	void (*disable_all)(void);
	void (*enable)(struct perf_event *event);
	void (*disable)(struct perf_event *event);
	u64 (*status)(void);
	void (*ack)(u64 status);
	u64 (*read)(int idx);
	void (*write)(int idx, u64 val);
	bool sample_ended_period;
	bool late_pmi;
	struct attribute **format;
	struct attribute **attrs;
	void (*cpu_starting)(const struct x86_vendor *v);
	struct perf_guest_switch_msr *(*guest_msrs)(int *nr);
	u64 fold_counters;
	void (*fold)(struct perf_event *const *placed, u64 which, u64 wrapped);
	struct attribute **events;
	int (*get_extra)(const struct x86_vendor *v, struct perf_event *event);
	void (*put_extra)(const struct x86_vendor *v, struct perf_event *event);
	int branches;
	int (*branch_config)(const struct x86_vendor *v, struct perf_event *event);
	void (*branch_stack)(struct perf_event *event, struct perf_sample_data *data);
	void (*sched_task)(struct perf_event_pmu_context *epc,
			   struct task_struct *task, bool sched_in);
	size_t task_data_size;
	int max_precise;
	u64 precise_counters;
	u64 (*precise_constraint)(const struct x86_vendor *v,
				  const struct perf_event *event);
	bool extended_regs;
	void (*drain)(struct pt_regs *iregs);
	int (*trace_pmi)(void);
	void (*trace_resume)(void);
	int (*forward)(struct perf_event *event);
	int (*check_period)(const struct x86_vendor *v, struct perf_event *event,
			    u64 period);
	struct x86_pmu_lbr guest_lbr;
};

/* The kinds of users of the branch recorders (x86_branches_get()). */
enum x86_branches {
	X86_BRANCHES_LBR,
	X86_BRANCHES_BTS,
	X86_BRANCHES_NR,
};

int x86_branches_get(enum x86_branches who);
void x86_branches_put(enum x86_branches who);

/**
 * typedef x86_record_fill_t - fill a sample from a vendor's record
 * @event: the event the record is for
 * @data: the sample, its period set
 * @regs: the sample's registers, the interrupted ones until the record
 *	says otherwise; the regs of a struct x86_perf_regs
 * @iregs: the interrupted registers
 * @rec: the record
 */
typedef void (*x86_record_fill_t)(struct perf_event *event,
				  struct perf_sample_data *data,
				  struct pt_regs *regs,
				  const struct pt_regs *iregs, const void *rec);

void x86_pmu_record(int idx, struct pt_regs *iregs, x86_record_fill_t fill,
		    const void *rec, bool overflow);
void x86_pmu_reload_fold(int idx, u64 records);

/*
 * A static events/ file @_var named @_name (dashes allowed, which
 * PMU_EVENT_ATTR_STRING cannot take) showing the encoding @_str.
 */
#define X86_EVENT_STR(_var, _name, _str)				\
	static struct perf_pmu_events_attr _var = {			\
		.attr = {						\
			.attr = { .name = _name, .mode = 0444 },	\
			.show = perf_event_sysfs_show,			\
		},							\
		.event_str = _str,					\
	}

/* What cache_event() returns for an operation a cache cannot have. */
#define X86_CACHE_INVALID	(~0ULL)

/* The most PMUs the x86 layer registers: one per core type. */
#define X86_MAX_TYPES		2

const struct x86_vendor *x86_pmu_vendor(void);
const struct x86_vendor *x86_pmu_first_vendor(void);
const struct x86_vendor *x86_cpu_vendor(void);

bool x86_counter_msr_works(u32 msr);
int intel_arch_probe(struct x86_vendor *v, int max);
int amd_core_probe(struct x86_vendor *v);

#endif
