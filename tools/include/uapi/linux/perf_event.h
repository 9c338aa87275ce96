/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * perf_event user-space interface.
 *
 * This header is the contract between the kernel and programs that use
 * perf_event_open(2): the attribute structure handed to the system call,
 * the ioctls accepted on the returned descriptor, the control page at the
 * start of an event's mmap() area and the binary records the kernel writes
 * into the ring buffer behind it.
 *
 * Every value, name and layout below is part of the stable Linux ABI and
 * must never change; new features only ever append.  Members tagged
 * "non-ABI" are counters of the enumeration they end and may grow.
 */
#ifndef _UAPI_LINUX_PERF_EVENT_H
#define _UAPI_LINUX_PERF_EVENT_H

#include <linux/types.h>
#include <linux/ioctl.h>
#include <asm/byteorder.h>

/*
 * ---------------------------------------------------------------------
 * Event selection: perf_event_attr::type and perf_event_attr::config
 * ---------------------------------------------------------------------
 */

/*
 * Built-in event classes for perf_event_attr::type.  PMUs registered at
 * run time get dynamically allocated type numbers instead; user space
 * finds them in /sys/bus/event_source/devices/<pmu>/type.
 */
enum perf_type_id {
	PERF_TYPE_HARDWARE			= 0,
	PERF_TYPE_SOFTWARE			= 1,
	PERF_TYPE_TRACEPOINT			= 2,
	PERF_TYPE_HW_CACHE			= 3,
	PERF_TYPE_RAW				= 4,
	PERF_TYPE_BREAKPOINT			= 5,

	PERF_TYPE_MAX,				/* non-ABI */
};

/*
 * For the two generic hardware classes, config is split in two halves:
 *
 *   config[31:0]   the event itself (mask: PERF_HW_EVENT_MASK)
 *                    PERF_TYPE_HARDWARE: an enum perf_hw_id value
 *                    PERF_TYPE_HW_CACHE: cache | (op << 8) | (result << 16),
 *                    using enum perf_hw_cache_id, perf_hw_cache_op_id and
 *                    perf_hw_cache_op_result_id; bits 24-31 stay zero
 *   config[63:32]  type number of the PMU that should count it (from
 *                  PERF_PMU_TYPE_SHIFT); 0 picks the default CPU PMU, the
 *                  same one PERF_TYPE_RAW events go to.  This lets hybrid
 *                  systems target one particular kind of core.
 */
#define PERF_PMU_TYPE_SHIFT		32
#define PERF_HW_EVENT_MASK		0xffffffff

/*
 * Generic hardware events (PERF_TYPE_HARDWARE).  The PMU driver translates
 * each into a model specific event; the open fails when it has no match.
 */
enum perf_hw_id {
	PERF_COUNT_HW_CPU_CYCLES		= 0,
	PERF_COUNT_HW_INSTRUCTIONS		= 1,
	PERF_COUNT_HW_CACHE_REFERENCES		= 2,
	PERF_COUNT_HW_CACHE_MISSES		= 3,
	PERF_COUNT_HW_BRANCH_INSTRUCTIONS	= 4,
	PERF_COUNT_HW_BRANCH_MISSES		= 5,
	PERF_COUNT_HW_BUS_CYCLES		= 6,
	PERF_COUNT_HW_STALLED_CYCLES_FRONTEND	= 7,
	PERF_COUNT_HW_STALLED_CYCLES_BACKEND	= 8,
	PERF_COUNT_HW_REF_CPU_CYCLES		= 9,

	PERF_COUNT_HW_MAX,			/* non-ABI */
};

/*
 * Generic cache events (PERF_TYPE_HW_CACHE) are built from three parts,
 * see the config encoding above:
 *
 *   which cache   L1 data, L1 instruction, last level, data TLB,
 *                 instruction TLB, branch predictor, NUMA node
 *   which access  read, write or prefetch
 *   what result   every access, or only the misses
 */
enum perf_hw_cache_id {
	PERF_COUNT_HW_CACHE_L1D			= 0,
	PERF_COUNT_HW_CACHE_L1I			= 1,
	PERF_COUNT_HW_CACHE_LL			= 2,
	PERF_COUNT_HW_CACHE_DTLB		= 3,
	PERF_COUNT_HW_CACHE_ITLB		= 4,
	PERF_COUNT_HW_CACHE_BPU			= 5,
	PERF_COUNT_HW_CACHE_NODE		= 6,

	PERF_COUNT_HW_CACHE_MAX,		/* non-ABI */
};

enum perf_hw_cache_op_id {
	PERF_COUNT_HW_CACHE_OP_READ		= 0,
	PERF_COUNT_HW_CACHE_OP_WRITE		= 1,
	PERF_COUNT_HW_CACHE_OP_PREFETCH		= 2,

	PERF_COUNT_HW_CACHE_OP_MAX,		/* non-ABI */
};

enum perf_hw_cache_op_result_id {
	PERF_COUNT_HW_CACHE_RESULT_ACCESS	= 0,
	PERF_COUNT_HW_CACHE_RESULT_MISS		= 1,

	PERF_COUNT_HW_CACHE_RESULT_MAX,		/* non-ABI */
};

/*
 * Software events (PERF_TYPE_SOFTWARE).  The kernel counts these itself,
 * so they work on machines without any usable PMU, and they can be
 * sampled just like hardware events.  The dummy event is useful to receive
 * side-band records (mmap, comm, ...) without counting anything.
 */
enum perf_sw_ids {
	PERF_COUNT_SW_CPU_CLOCK			= 0,	/* per-CPU hrtimer clock */
	PERF_COUNT_SW_TASK_CLOCK		= 1,	/* time spent by the task */
	PERF_COUNT_SW_PAGE_FAULTS		= 2,
	PERF_COUNT_SW_CONTEXT_SWITCHES		= 3,
	PERF_COUNT_SW_CPU_MIGRATIONS		= 4,
	PERF_COUNT_SW_PAGE_FAULTS_MIN		= 5,	/* served without I/O */
	PERF_COUNT_SW_PAGE_FAULTS_MAJ		= 6,	/* needed I/O */
	PERF_COUNT_SW_ALIGNMENT_FAULTS		= 7,
	PERF_COUNT_SW_EMULATION_FAULTS		= 8,
	PERF_COUNT_SW_DUMMY			= 9,	/* counts nothing */
	PERF_COUNT_SW_BPF_OUTPUT		= 10,	/* bpf_perf_event_output() */
	PERF_COUNT_SW_CGROUP_SWITCHES		= 11,	/* switch into another cgroup */

	PERF_COUNT_SW_MAX,			/* non-ABI */
};

/*
 * ---------------------------------------------------------------------
 * Sampling: perf_event_attr::sample_type and branch_sample_type
 * ---------------------------------------------------------------------
 */

/*
 * perf_event_attr::sample_type.  Each bit adds one item to the body of a
 * PERF_RECORD_SAMPLE; the order in which the items appear is documented
 * next to PERF_RECORD_SAMPLE in enum perf_event_type.  The identity bits
 * (TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER) also select the trailer that
 * attr.sample_id_all appends to the other record types.
 */
enum perf_event_sample_format {
	PERF_SAMPLE_IP				= 1U << 0,
	PERF_SAMPLE_TID				= 1U << 1,
	PERF_SAMPLE_TIME			= 1U << 2,
	PERF_SAMPLE_ADDR			= 1U << 3,
	PERF_SAMPLE_READ			= 1U << 4,
	PERF_SAMPLE_CALLCHAIN			= 1U << 5,
	PERF_SAMPLE_ID				= 1U << 6,
	PERF_SAMPLE_CPU				= 1U << 7,
	PERF_SAMPLE_PERIOD			= 1U << 8,
	PERF_SAMPLE_STREAM_ID			= 1U << 9,
	PERF_SAMPLE_RAW				= 1U << 10,
	PERF_SAMPLE_BRANCH_STACK		= 1U << 11,
	PERF_SAMPLE_REGS_USER			= 1U << 12,
	PERF_SAMPLE_STACK_USER			= 1U << 13,
	PERF_SAMPLE_WEIGHT			= 1U << 14,
	PERF_SAMPLE_DATA_SRC			= 1U << 15,
	PERF_SAMPLE_IDENTIFIER			= 1U << 16,
	PERF_SAMPLE_TRANSACTION			= 1U << 17,
	PERF_SAMPLE_REGS_INTR			= 1U << 18,
	PERF_SAMPLE_PHYS_ADDR			= 1U << 19,
	PERF_SAMPLE_AUX				= 1U << 20,
	PERF_SAMPLE_CGROUP			= 1U << 21,
	PERF_SAMPLE_DATA_PAGE_SIZE		= 1U << 22,
	PERF_SAMPLE_CODE_PAGE_SIZE		= 1U << 23,
	PERF_SAMPLE_WEIGHT_STRUCT		= 1U << 24,

	PERF_SAMPLE_MAX = 1U << 25,		/* non-ABI */
};

/* Both flavours of the weight item; at most one of them may be requested. */
#define PERF_SAMPLE_WEIGHT_TYPE	(PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)

/*
 * perf_event_attr::branch_sample_type, used together with
 * PERF_SAMPLE_BRANCH_STACK.  The value is a mask of the bits below; the
 * *_SHIFT enumeration gives their positions.
 *
 * Two groups of bits are involved:
 *
 *  - privilege filters (USER, KERNEL, HV): which branches to keep by the
 *    privilege level they happen at.  When none of them is given, the
 *    exclude_* settings of the event are used; when some are given they
 *    may differ from the event's own, but are subject to the same
 *    permission checks (see PERF_SAMPLE_BRANCH_PLM_ALL).
 *
 *  - branch kind filters (ANY ... CALL): several may be ORed together;
 *    ANY already includes every kind, so combining it with the others
 *    adds nothing.
 *
 * The remaining bits (NO_FLAGS and later) do not filter but change what
 * each recorded entry or the sample carries.
 */
enum perf_branch_sample_type_shift {
	PERF_SAMPLE_BRANCH_USER_SHIFT		= 0, /* user-mode branches */
	PERF_SAMPLE_BRANCH_KERNEL_SHIFT		= 1, /* kernel-mode branches */
	PERF_SAMPLE_BRANCH_HV_SHIFT		= 2, /* hypervisor branches */

	PERF_SAMPLE_BRANCH_ANY_SHIFT		= 3, /* every kind of branch */
	PERF_SAMPLE_BRANCH_ANY_CALL_SHIFT	= 4, /* calls of all sorts */
	PERF_SAMPLE_BRANCH_ANY_RETURN_SHIFT	= 5, /* returns of all sorts */
	PERF_SAMPLE_BRANCH_IND_CALL_SHIFT	= 6, /* calls through a pointer */
	PERF_SAMPLE_BRANCH_ABORT_TX_SHIFT	= 7, /* aborted HW transactions */
	PERF_SAMPLE_BRANCH_IN_TX_SHIFT		= 8, /* only inside a transaction */
	PERF_SAMPLE_BRANCH_NO_TX_SHIFT		= 9, /* only outside transactions */
	PERF_SAMPLE_BRANCH_COND_SHIFT		= 10, /* conditional jumps */

	PERF_SAMPLE_BRANCH_CALL_STACK_SHIFT	= 11, /* LBR call-stack mode */
	PERF_SAMPLE_BRANCH_IND_JUMP_SHIFT	= 12, /* jumps through a pointer */
	PERF_SAMPLE_BRANCH_CALL_SHIFT		= 13, /* direct calls only */

	PERF_SAMPLE_BRANCH_NO_FLAGS_SHIFT	= 14, /* leave entry flags zero */
	PERF_SAMPLE_BRANCH_NO_CYCLES_SHIFT	= 15, /* leave cycle counts zero */

	PERF_SAMPLE_BRANCH_TYPE_SAVE_SHIFT	= 16, /* fill in entry type */

	PERF_SAMPLE_BRANCH_HW_INDEX_SHIFT	= 17, /* emit hw_idx of the stack */

	PERF_SAMPLE_BRANCH_PRIV_SAVE_SHIFT	= 18, /* fill in entry priv */

	PERF_SAMPLE_BRANCH_COUNTERS_SHIFT	= 19, /* per-branch event counts */

	PERF_SAMPLE_BRANCH_MAX_SHIFT		/* non-ABI */
};

enum perf_branch_sample_type {
	PERF_SAMPLE_BRANCH_USER		= 1U << PERF_SAMPLE_BRANCH_USER_SHIFT,
	PERF_SAMPLE_BRANCH_KERNEL	= 1U << PERF_SAMPLE_BRANCH_KERNEL_SHIFT,
	PERF_SAMPLE_BRANCH_HV		= 1U << PERF_SAMPLE_BRANCH_HV_SHIFT,

	PERF_SAMPLE_BRANCH_ANY		= 1U << PERF_SAMPLE_BRANCH_ANY_SHIFT,
	PERF_SAMPLE_BRANCH_ANY_CALL	= 1U << PERF_SAMPLE_BRANCH_ANY_CALL_SHIFT,
	PERF_SAMPLE_BRANCH_ANY_RETURN	= 1U << PERF_SAMPLE_BRANCH_ANY_RETURN_SHIFT,
	PERF_SAMPLE_BRANCH_IND_CALL	= 1U << PERF_SAMPLE_BRANCH_IND_CALL_SHIFT,
	PERF_SAMPLE_BRANCH_ABORT_TX	= 1U << PERF_SAMPLE_BRANCH_ABORT_TX_SHIFT,
	PERF_SAMPLE_BRANCH_IN_TX	= 1U << PERF_SAMPLE_BRANCH_IN_TX_SHIFT,
	PERF_SAMPLE_BRANCH_NO_TX	= 1U << PERF_SAMPLE_BRANCH_NO_TX_SHIFT,
	PERF_SAMPLE_BRANCH_COND		= 1U << PERF_SAMPLE_BRANCH_COND_SHIFT,

	PERF_SAMPLE_BRANCH_CALL_STACK	= 1U << PERF_SAMPLE_BRANCH_CALL_STACK_SHIFT,
	PERF_SAMPLE_BRANCH_IND_JUMP	= 1U << PERF_SAMPLE_BRANCH_IND_JUMP_SHIFT,
	PERF_SAMPLE_BRANCH_CALL		= 1U << PERF_SAMPLE_BRANCH_CALL_SHIFT,

	PERF_SAMPLE_BRANCH_NO_FLAGS	= 1U << PERF_SAMPLE_BRANCH_NO_FLAGS_SHIFT,
	PERF_SAMPLE_BRANCH_NO_CYCLES	= 1U << PERF_SAMPLE_BRANCH_NO_CYCLES_SHIFT,

	PERF_SAMPLE_BRANCH_TYPE_SAVE	= 1U << PERF_SAMPLE_BRANCH_TYPE_SAVE_SHIFT,

	PERF_SAMPLE_BRANCH_HW_INDEX	= 1U << PERF_SAMPLE_BRANCH_HW_INDEX_SHIFT,

	PERF_SAMPLE_BRANCH_PRIV_SAVE	= 1U << PERF_SAMPLE_BRANCH_PRIV_SAVE_SHIFT,

	PERF_SAMPLE_BRANCH_COUNTERS	= 1U << PERF_SAMPLE_BRANCH_COUNTERS_SHIFT,

	PERF_SAMPLE_BRANCH_MAX		= 1U << PERF_SAMPLE_BRANCH_MAX_SHIFT,
};

/*
 * Architecture neutral kinds of control transfer, reported in
 * perf_branch_entry::type when PERF_SAMPLE_BRANCH_TYPE_SAVE is requested.
 */
enum {
	PERF_BR_UNKNOWN		= 0,	/* could not be classified */
	PERF_BR_COND		= 1,	/* conditional jump */
	PERF_BR_UNCOND		= 2,	/* unconditional direct jump */
	PERF_BR_IND		= 3,	/* jump through a pointer */
	PERF_BR_CALL		= 4,	/* direct call */
	PERF_BR_IND_CALL	= 5,	/* call through a pointer */
	PERF_BR_RET		= 6,	/* return from a call */
	PERF_BR_SYSCALL		= 7,	/* system call entry */
	PERF_BR_SYSRET		= 8,	/* system call exit */
	PERF_BR_COND_CALL	= 9,	/* call taken on a condition */
	PERF_BR_COND_RET	= 10,	/* return taken on a condition */
	PERF_BR_ERET		= 11,	/* return from an exception */
	PERF_BR_IRQ		= 12,	/* interrupt delivery */
	PERF_BR_SERROR		= 13,	/* system error exception */
	PERF_BR_NO_TX		= 14,	/* outside any transaction */
	PERF_BR_EXTEND_ABI	= 15,	/* real kind is in new_type */
	PERF_BR_MAX,
};

/*
 * Whether the branch was executed speculatively and on which path, as
 * reported in perf_branch_entry::spec (0 when the hardware cannot tell).
 */
enum {
	PERF_BR_SPEC_NA			= 0,	/* no information */
	PERF_BR_SPEC_WRONG_PATH		= 1,	/* speculated, later squashed */
	PERF_BR_NON_SPEC_CORRECT_PATH	= 2,	/* architecturally executed */
	PERF_BR_SPEC_CORRECT_PATH	= 3,	/* speculated and then retired */
	PERF_BR_SPEC_MAX,
};

/*
 * Further kinds for perf_branch_entry::new_type, meaningful when type is
 * PERF_BR_EXTEND_ABI.  The ARCH_n slots are defined per architecture.
 */
enum {
	PERF_BR_NEW_FAULT_ALGN		= 0,	/* misaligned access fault */
	PERF_BR_NEW_FAULT_DATA		= 1,	/* fault on a data access */
	PERF_BR_NEW_FAULT_INST		= 2,	/* fault on instruction fetch */
	PERF_BR_NEW_ARCH_1		= 3,	/* architecture slot 1 */
	PERF_BR_NEW_ARCH_2		= 4,	/* architecture slot 2 */
	PERF_BR_NEW_ARCH_3		= 5,	/* architecture slot 3 */
	PERF_BR_NEW_ARCH_4		= 6,	/* architecture slot 4 */
	PERF_BR_NEW_ARCH_5		= 7,	/* architecture slot 5 */
	PERF_BR_NEW_MAX,
};

/*
 * Privilege level of the branch target, in perf_branch_entry::priv when
 * PERF_SAMPLE_BRANCH_PRIV_SAVE is requested.
 */
enum {
	PERF_BR_PRIV_UNKNOWN	= 0,
	PERF_BR_PRIV_USER	= 1,
	PERF_BR_PRIV_KERNEL	= 2,
	PERF_BR_PRIV_HV		= 3,
};

/* How arm64 uses the architecture slots of the new_type enumeration. */
#define PERF_BR_ARM64_FIQ		PERF_BR_NEW_ARCH_1
#define PERF_BR_ARM64_DEBUG_HALT	PERF_BR_NEW_ARCH_2
#define PERF_BR_ARM64_DEBUG_EXIT	PERF_BR_NEW_ARCH_3
#define PERF_BR_ARM64_DEBUG_INST	PERF_BR_NEW_ARCH_4
#define PERF_BR_ARM64_DEBUG_DATA	PERF_BR_NEW_ARCH_5

/* All privilege filter bits of branch_sample_type at once. */
#define PERF_SAMPLE_BRANCH_PLM_ALL \
	(PERF_SAMPLE_BRANCH_USER | \
	 PERF_SAMPLE_BRANCH_KERNEL | \
	 PERF_SAMPLE_BRANCH_HV)

/*
 * First word of a PERF_SAMPLE_REGS_USER / PERF_SAMPLE_REGS_INTR item: it
 * tells which register layout follows.  NONE means no registers could be
 * captured (for example in a kernel thread) and nothing else follows.
 */
enum perf_sample_regs_abi {
	PERF_SAMPLE_REGS_ABI_NONE	= 0,
	PERF_SAMPLE_REGS_ABI_32		= 1,
	PERF_SAMPLE_REGS_ABI_64		= 2,
};

/*
 * The PERF_SAMPLE_TRANSACTION item: flags describing a hardware memory
 * transaction (usually the reason it aborted).  Any combination of the
 * low bits may be set; the upper 32 bits carry the abort code supplied by
 * the program or the hardware.
 */
enum {
	PERF_TXN_ELISION        = (1 << 0), /* lock elision region */
	PERF_TXN_TRANSACTION    = (1 << 1), /* explicit transaction */
	PERF_TXN_SYNC           = (1 << 2), /* caused by this instruction */
	PERF_TXN_ASYNC          = (1 << 3), /* caused by something else */
	PERF_TXN_RETRY          = (1 << 4), /* retrying may succeed */
	PERF_TXN_CONFLICT       = (1 << 5), /* data conflict with another CPU */
	PERF_TXN_CAPACITY_WRITE = (1 << 6), /* write set overflowed */
	PERF_TXN_CAPACITY_READ  = (1 << 7), /* read set overflowed */

	PERF_TXN_MAX	        = (1 << 8), /* non-ABI */

	/* abort code: bits 32-63 */

	PERF_TXN_ABORT_MASK  = (0xffffffffULL << 32),
	PERF_TXN_ABORT_SHIFT = 32,
};

/*
 * ---------------------------------------------------------------------
 * Counter values: perf_event_attr::read_format
 * ---------------------------------------------------------------------
 *
 * read_format decides what read(2) on an event descriptor returns.  The
 * same layout is embedded in PERF_RECORD_READ and in the PERF_SAMPLE_READ
 * item of samples.  All fields are u64; fields in brackets exist only
 * when the flag on the right is set, and appear in the order shown.
 *
 * One event (PERF_FORMAT_GROUP not set):
 *
 *	value			current count
 *	[time_enabled]		PERF_FORMAT_TOTAL_TIME_ENABLED
 *	[time_running]		PERF_FORMAT_TOTAL_TIME_RUNNING
 *	[id]			PERF_FORMAT_ID
 *	[lost]			PERF_FORMAT_LOST
 *
 * Whole group, read through its leader (PERF_FORMAT_GROUP set):
 *
 *	nr			number of entries that follow the times
 *	[time_enabled]		PERF_FORMAT_TOTAL_TIME_ENABLED
 *	[time_running]		PERF_FORMAT_TOTAL_TIME_RUNNING
 *	nr times, leader first:
 *		value
 *		[id]		PERF_FORMAT_ID
 *		[lost]		PERF_FORMAT_LOST
 *
 * time_enabled and time_running are nanoseconds; when the PMU had to be
 * multiplexed, value * time_enabled / time_running estimates the full
 * count.  lost is the number of samples of this event that were lost.
 */
enum perf_event_read_format {
	PERF_FORMAT_TOTAL_TIME_ENABLED		= 1U << 0,
	PERF_FORMAT_TOTAL_TIME_RUNNING		= 1U << 1,
	PERF_FORMAT_ID				= 1U << 2,
	PERF_FORMAT_GROUP			= 1U << 3,
	PERF_FORMAT_LOST			= 1U << 4,

	PERF_FORMAT_MAX = 1U << 5,		/* non-ABI */
};

/*
 * ---------------------------------------------------------------------
 * The attribute structure
 * ---------------------------------------------------------------------
 */

/*
 * Values that perf_event_attr::size has taken as the structure grew.  The
 * kernel accepts each of them; a caller built against a newer header may
 * pass a larger size as long as the bytes unknown to the kernel are zero.
 */
#define PERF_ATTR_SIZE_VER0	64	/* original layout */
#define PERF_ATTR_SIZE_VER1	72	/* gained config2 */
#define PERF_ATTR_SIZE_VER2	80	/* gained branch_sample_type */
#define PERF_ATTR_SIZE_VER3	96	/* gained sample_regs_user and */
					/* sample_stack_user */
#define PERF_ATTR_SIZE_VER4	104	/* gained sample_regs_intr */
#define PERF_ATTR_SIZE_VER5	112	/* gained aux_watermark */
#define PERF_ATTR_SIZE_VER6	120	/* gained aux_sample_size */
#define PERF_ATTR_SIZE_VER7	128	/* gained sig_data */
#define PERF_ATTR_SIZE_VER8	136	/* gained config3 */

/*
 * Argument of perf_event_open(2): describes what to count or sample and
 * how to report it.  Zero-fill the whole structure before setting fields;
 * every unused or reserved bit must be zero.
 */
struct perf_event_attr {
	/* Event class: enum perf_type_id or a dynamic PMU type number. */
	__u32			type;

	/* sizeof(struct perf_event_attr) as known to the caller. */
	__u32			size;

	/* Which event of that class; meaning depends on type. */
	__u64			config;

	/* Overflow interval: events per sample, or samples per second if freq. */
	union {
		__u64		sample_period;
		__u64		sample_freq;
	};

	__u64			sample_type;	/* PERF_SAMPLE_* bits */
	__u64			read_format;	/* PERF_FORMAT_* bits */

	__u64			disabled       :  1, /* created stopped */
				inherit	       :  1, /* clone into new child tasks */
				pinned	       :  1, /* keep on the PMU or fail */
				exclusive      :  1, /* sole group on the PMU */
				exclude_user   :  1, /* skip user mode */
				exclude_kernel :  1, /* skip kernel mode */
				exclude_hv     :  1, /* skip the hypervisor */
				exclude_idle   :  1, /* skip the idle task */
				mmap           :  1, /* report executable mmaps */
				comm	       :  1, /* report task name changes */
				freq           :  1, /* sample_freq is in use */
				inherit_stat   :  1, /* per-child totals */
				enable_on_exec :  1, /* start at next exec() */
				task           :  1, /* report fork and exit */
				watermark      :  1, /* wake up by bytes */
				/*
				 * Tolerated distance ("skid") between the
				 * instruction that overflowed and the reported
				 * IP: 0 any, 1 a constant one, 2 ask for none,
				 * 3 insist on none.  Samples known to be exact
				 * carry PERF_RECORD_MISC_EXACT_IP.
				 */
				precise_ip     :  2, /* skid limit, see above */
				mmap_data      :  1, /* report data mmaps too */
				sample_id_all  :  1, /* sample_id on all records */

				exclude_host   :  1, /* skip host execution */
				exclude_guest  :  1, /* skip guest execution */

				exclude_callchain_kernel : 1, /* no kernel frames */
				exclude_callchain_user   : 1, /* no user frames */
				mmap2          :  1, /* use the MMAP2 record */
				comm_exec      :  1, /* mark COMM due to exec() */
				use_clockid    :  1, /* timestamps from clockid */
				context_switch :  1, /* report task switches */
				write_backward :  1, /* fill buffer top down */
				namespaces     :  1, /* report namespaces */
				ksymbol        :  1, /* report kernel symbols */
				bpf_event      :  1, /* report BPF program events */
				aux_output     :  1, /* output into the AUX area */
				cgroup         :  1, /* report new cgroups */
				text_poke      :  1, /* report kernel text edits */
				build_id       :  1, /* MMAP2 with build id */
				inherit_thread :  1, /* inherit by threads only */
				remove_on_exec :  1, /* drop event on exec() */
				sigtrap        :  1, /* SIGTRAP on each overflow */
				__reserved_1   : 26;

	/* When to wake a poll()er: after N samples, or N bytes if watermark. */
	union {
		__u32		wakeup_events;
		__u32		wakeup_watermark;
	};

	__u32			bp_type;	/* breakpoint: HW_BREAKPOINT_* */
	union {
		__u64		bp_addr;	/* breakpoint: address */
		__u64		kprobe_func;	/* perf_kprobe: symbol string */
		__u64		uprobe_path;	/* perf_uprobe: path string */
		__u64		config1;	/* more PMU config bits */
	};
	union {
		__u64		bp_len;		/* breakpoint: length */
		__u64		kprobe_addr;	/* perf_kprobe: if no symbol */
		__u64		probe_offset;	/* k/uprobe: offset */
		__u64		config2;	/* more PMU config bits */
	};
	__u64	branch_sample_type;		/* PERF_SAMPLE_BRANCH_* bits */

	/*
	 * PERF_SAMPLE_REGS_USER: user-mode registers to record, one bit per
	 * register numbered as in the architecture's asm/perf_regs.h.
	 */
	__u64	sample_regs_user;

	/* PERF_SAMPLE_STACK_USER: bytes of user stack to copy. */
	__u32	sample_stack_user;

	/* Clock for timestamps when use_clockid is set (CLOCK_*). */
	__s32	clockid;

	/*
	 * PERF_SAMPLE_REGS_INTR: registers to record, same numbering as
	 * sample_regs_user.  They are taken at the PMU interrupt, or at the
	 * sampled instruction itself when precise_ip is non-zero.
	 */
	__u64	sample_regs_intr;

	/* Bytes of new AUX data after which a poll()er is woken. */
	__u32	aux_watermark;
	/* Callchain depth cap; kernel.perf_event_max_stack still applies. */
	__u16	sample_max_stack;
	__u16	__reserved_2;
	/* PERF_SAMPLE_AUX: bytes of AUX data to copy into each sample. */
	__u32	aux_sample_size;

	union {
		__u32	aux_action;
		struct {
			__u32	aux_start_paused :  1, /* AUX trace starts paused */
				aux_pause        :  1, /* overflow pauses it */
				aux_resume       :  1, /* overflow resumes it */
				__reserved_3     : 29;
		};
	};

	/*
	 * With sigtrap: returned to the signal handler in
	 * siginfo_t::si_perf_data so it can tell events apart.  That member
	 * is a long, so 32-bit targets only see the low half.
	 */
	__u64	sig_data;

	__u64	config3;			/* yet more PMU config bits */
};

/*
 * Argument of PERF_EVENT_IOC_QUERY_BPF, which lists the BPF programs
 * attached to the tracepoint the event is on.
 */
struct perf_event_query_bpf {
	__u32	ids_len;	/* in: room in ids[] */
	__u32	prog_cnt;	/* out: programs attached in total */
	__u32	ids[];		/* out: up to ids_len program ids */
};

/*
 * ---------------------------------------------------------------------
 * ioctl(2) requests on an event descriptor
 * ---------------------------------------------------------------------
 *
 *   ENABLE, DISABLE    start or stop counting
 *   REFRESH            enable for arg more overflows, then stop again
 *   RESET              set the count back to zero
 *   PERIOD             arg points to a new sample_period / sample_freq
 *   SET_OUTPUT         write records into the buffer of event fd arg;
 *                      -1 goes back to having no buffer redirection
 *   SET_FILTER         arg points to a filter expression string
 *   ID                 store the event id where arg points
 *   SET_BPF            attach the BPF program whose fd is arg
 *   PAUSE_OUTPUT       non-zero arg stops ring buffer writes, 0 resumes
 *   QUERY_BPF          see struct perf_event_query_bpf
 *   MODIFY_ATTRIBUTES  update the attributes of a live event (only
 *                      breakpoints support this)
 *
 * ENABLE, DISABLE and RESET act on the whole group when arg is
 * PERF_IOC_FLAG_GROUP, otherwise on the one event.
 */
#define PERF_EVENT_IOC_ENABLE			_IO('$', 0)
#define PERF_EVENT_IOC_DISABLE			_IO('$', 1)
#define PERF_EVENT_IOC_REFRESH			_IO('$', 2)
#define PERF_EVENT_IOC_RESET			_IO('$', 3)
#define PERF_EVENT_IOC_PERIOD			_IOW('$', 4, __u64)
#define PERF_EVENT_IOC_SET_OUTPUT		_IO('$', 5)
#define PERF_EVENT_IOC_SET_FILTER		_IOW('$', 6, char *)
#define PERF_EVENT_IOC_ID			_IOR('$', 7, __u64 *)
#define PERF_EVENT_IOC_SET_BPF			_IOW('$', 8, __u32)
#define PERF_EVENT_IOC_PAUSE_OUTPUT		_IOW('$', 9, __u32)
#define PERF_EVENT_IOC_QUERY_BPF		_IOWR('$', 10, struct perf_event_query_bpf *)
#define PERF_EVENT_IOC_MODIFY_ATTRIBUTES	_IOW('$', 11, struct perf_event_attr *)

enum perf_event_ioc_flags {
	PERF_IOC_FLAG_GROUP		= 1U << 0,
};

/*
 * ---------------------------------------------------------------------
 * The control page
 * ---------------------------------------------------------------------
 *
 * mmap() of an event descriptor maps one control page, optionally followed
 * by a ring buffer of 2^n data pages.  The control page is laid out as
 * below.
 *
 * Reading a self-monitoring counter without a system call
 * --------------------------------------------------------
 * The kernel increments @lock before and after it rewrites the fields, so
 * a reader snapshots them and retries when @lock moved meanwhile.  Only
 * the task the event is attached to can use the raw counter this way.
 *
 *	struct perf_event_mmap_page *pg;	// from mmap(fd, ...)
 *	__u64 ena, run, val, cyc = 0, toff = 0;
 *	__u32 gen, idx, mul = 0;
 *	__u16 sh = 0, bits = 0;
 *	__s64 raw = 0;
 *
 *	do {
 *		gen = pg->lock;
 *		compiler_barrier();
 *		ena = pg->time_enabled;
 *		run = pg->time_running;
 *		idx = pg->index;
 *		val = pg->offset;
 *		if (pg->cap_user_time && ena != run) {
 *			cyc = read_timestamp_counter();		// e.g. rdtsc
 *			toff = pg->time_offset;
 *			mul = pg->time_mult;
 *			sh = pg->time_shift;
 *		}
 *		if (pg->cap_user_rdpmc && idx) {
 *			raw = read_hw_counter(idx - 1);		// e.g. rdpmc
 *			bits = pg->pmc_width;
 *		}
 *		compiler_barrier();
 *	} while (pg->lock != gen);
 *
 * Afterwards, if a raw value was read, it is only @pmc_width bits wide:
 * sign-extend it and add it to @offset:
 *
 *	raw = (__s64)((__u64)raw << (64 - bits)) >> (64 - bits);
 *	val += raw;
 *
 * Time arithmetic
 * ---------------
 * Converting a cycle count c to nanoseconds uses the triple
 * (time_mult, time_shift, time_offset):
 *
 *	scale(c) = (c >> time_shift) * time_mult
 *		 + (((c & ((1ULL << time_shift) - 1)) * time_mult) >> time_shift)
 *
 * Splitting c avoids overflowing 64 bits in the multiplication.
 *
 *  - cap_user_time: time_offset + scale(cyc) is the time elapsed since
 *    the values of time_enabled/time_running were current.  Add it to ena,
 *    and to run when idx is non-zero (the event is on the PMU right now).
 *    The count can then be extrapolated for multiplexing as
 *    val * ena / run, computed as (val / run) * ena + (val % run) * ena / run.
 *
 *  - cap_user_time_zero: a sample timestamp ts is time_zero + scale(cyc),
 *    so a timestamp can be turned back into counter cycles with
 *	t = ts - time_zero;
 *	cyc = ((t / time_mult) << time_shift)
 *	    + (((t % time_mult) << time_shift) / time_mult);
 *
 *  - cap_user_time_short: the cycle counter is narrower than 64 bits and
 *    must be widened before applying the formulas above:
 *	cyc = time_cycles + ((cyc - time_cycles) & time_mask);
 *    This is a correction only; readers unaware of it keep working for as
 *    long as the counter does not wrap.
 *
 * Consuming the ring buffer
 * -------------------------
 * The records live in the mapping at @data_offset and occupy @data_size
 * bytes.  @data_head and @data_tail are free running byte counters; the
 * byte a counter designates is at (counter % data_size).
 *
 *  - The kernel advances @data_head after it has written records.  Read
 *    it with acquire semantics (or follow the load with smp_rmb()) before
 *    looking at the records it covers.
 *
 *  - If the mapping is writable, the reader stores to @data_tail how far
 *    it has consumed, after a full barrier (smp_mb()) that orders its
 *    record reads before that store.  The kernel then never overwrites
 *    unconsumed data; it drops records and reports PERF_RECORD_LOST.
 *
 *  - If the mapping is read-only, @data_tail is ignored and the oldest
 *    data is overwritten (typically combined with write_backward).
 *
 * The AUX area, used by tracing PMUs for bulk hardware data, is a second
 * buffer mapped separately from the same descriptor.  Before mapping it,
 * user space writes @aux_offset and @aux_size; the offset must lie at or
 * beyond data_offset + data_size and the mmap() must cover exactly
 * aux_size bytes at aux_offset.  @aux_head and @aux_tail then work like
 * @data_head and @data_tail, with the same barrier rules.
 */
struct perf_event_mmap_page {
	__u32	version;		/* layout revision */
	__u32	compat_version;		/* oldest revision it is compatible with */

	__u32	lock;			/* update sequence count, see above */
	__u32	index;			/* counter number + 1; 0: not readable */
	__s64	offset;			/* add to the raw counter value */
	__u64	time_enabled;		/* ns the event was enabled */
	__u64	time_running;		/* ns the event was on the PMU */
	union {
		__u64	capabilities;
		struct {
			__u64	cap_bit0		: 1, /* obsolete, reads 0 */
				cap_bit0_is_deprecated	: 1, /* reads 1: skip bit 0 */

				cap_user_rdpmc		: 1, /* counter is user readable */
				cap_user_time		: 1, /* time_{shift,mult,offset} ok */
				cap_user_time_zero	: 1, /* time_zero ok */
				cap_user_time_short	: 1, /* time_{cycles,mask} ok */
				cap_____res		: 58;
		};
	};

	/* Bits of the raw counter value that are significant. */
	__u16	pmc_width;

	/* Cycles to nanoseconds conversion, see "Time arithmetic". */
	__u16	time_shift;
	__u32	time_mult;
	__u64	time_offset;
	__u64	time_zero;

	__u32	size;			/* bytes in use before __reserved[] */
	__u32	__reserved_1;

	/* Width of a short cycle counter, see cap_user_time_short. */
	__u64	time_cycles;
	__u64	time_mask;

	/* Room for more fields; keeps what follows at offset 1024. */
	__u8	__reserved[116 * 8];

	/* Ring buffer positions, see "Consuming the ring buffer". */
	__u64	data_head;		/* written by the kernel */
	__u64	data_tail;		/* written by the reader */
	__u64	data_offset;		/* start of the records in the mapping */
	__u64	data_size;		/* length of the record area */

	/* AUX buffer: the same scheme for the separately mapped AUX area. */
	__u64	aux_head;
	__u64	aux_tail;
	__u64	aux_offset;
	__u64	aux_size;
};

/*
 * ---------------------------------------------------------------------
 * Ring buffer records
 * ---------------------------------------------------------------------
 *
 * Bits of perf_event_header::misc.  Bits 0-2 hold the CPU mode the record
 * relates to; bits 3-11 are unused.  Bits 13 and 14 are each shared by
 * several flags, and which one applies depends on the record type.
 *
 *   bits 0-2  CPUMODE_*               (all records, see MASK)
 *   bit 12    PROC_MAP_PARSE_TIMEOUT  only set by user-space tools
 *   bit 13    MMAP_DATA               MMAP, MMAP2: mapping is not code
 *             COMM_EXEC               COMM: new name comes from exec()
 *             FORK_EXEC               FORK: only used inside perf tools
 *             SWITCH_OUT              SWITCH*: the task leaves the CPU
 *   bit 14    EXACT_IP                SAMPLE: ip is the precise instruction
 *                                     (see perf_event_attr::precise_ip)
 *             SWITCH_OUT_PREEMPT      SWITCH*: it left while still runnable
 *             MMAP_BUILD_ID           MMAP2: carries a build id, not inode
 *   bit 15    EXT_RESERVED            kept for a future extension
 */
#define PERF_RECORD_MISC_CPUMODE_MASK		(7 << 0)
#define PERF_RECORD_MISC_CPUMODE_UNKNOWN	(0 << 0)
#define PERF_RECORD_MISC_KERNEL			(1 << 0)
#define PERF_RECORD_MISC_USER			(2 << 0)
#define PERF_RECORD_MISC_HYPERVISOR		(3 << 0)
#define PERF_RECORD_MISC_GUEST_KERNEL		(4 << 0)
#define PERF_RECORD_MISC_GUEST_USER		(5 << 0)

/* Reading /proc/<pid>/maps gave up part way because it took too long. */
#define PERF_RECORD_MISC_PROC_MAP_PARSE_TIMEOUT	(1 << 12)

/* Bit 13: one meaning per record type, see the table above. */
#define PERF_RECORD_MISC_MMAP_DATA		(1 << 13)
#define PERF_RECORD_MISC_COMM_EXEC		(1 << 13)
#define PERF_RECORD_MISC_FORK_EXEC		(1 << 13)
#define PERF_RECORD_MISC_SWITCH_OUT		(1 << 13)

/* Bit 14: likewise. */
#define PERF_RECORD_MISC_EXACT_IP		(1 << 14)
#define PERF_RECORD_MISC_SWITCH_OUT_PREEMPT	(1 << 14)
#define PERF_RECORD_MISC_MMAP_BUILD_ID		(1 << 14)

/* Bit 15: set aside for an extended misc field. */
#define PERF_RECORD_MISC_EXT_RESERVED		(1 << 15)

/* Start of every record; size counts the whole record including this. */
struct perf_event_header {
	__u32	type;		/* enum perf_event_type */
	__u16	misc;		/* PERF_RECORD_MISC_* */
	__u16	size;
};

/* Identity of one namespace, as carried by PERF_RECORD_NAMESPACES. */
struct perf_ns_link_info {
	__u64	dev;
	__u64	ino;
};

/* Position of each namespace kind in the PERF_RECORD_NAMESPACES array. */
enum {
	NET_NS_INDEX		= 0,
	UTS_NS_INDEX		= 1,
	IPC_NS_INDEX		= 2,
	PID_NS_INDEX		= 3,
	USER_NS_INDEX		= 4,
	MNT_NS_INDEX		= 5,
	CGROUP_NS_INDEX		= 6,

	NR_NAMESPACES,		/* how many kinds there are */
};

/*
 * Record types (perf_event_header::type).
 *
 * Notation used for the bodies below, i.e. what follows the header:
 * fields are listed in order with no implicit padding; "u32 a, b" means
 * two consecutive u32s; "if FLAG" marks an optional field present only
 * when that attribute flag is set; strings are NUL terminated and padded
 * with zeroes so that the record length stays a multiple of 8 bytes.
 *
 * sample_id: when perf_event_attr::sample_id_all is set, every record
 * type except PERF_RECORD_SAMPLE ends with the following trailer.  Which
 * of its fields are present is decided by sample_type, and they come in
 * this order:
 *
 *	u32 pid, tid		if PERF_SAMPLE_TID
 *	u64 time		if PERF_SAMPLE_TIME
 *	u64 id			if PERF_SAMPLE_ID
 *	u64 stream_id		if PERF_SAMPLE_STREAM_ID
 *	u32 cpu, res		if PERF_SAMPLE_CPU
 *	u64 id			if PERF_SAMPLE_IDENTIFIER
 *
 * Being appended at the end, the trailer does not move any field an
 * older parser knows about.  PERF_SAMPLE_IDENTIFIER repeats the value of
 * PERF_SAMPLE_ID, but always at a fixed spot: the last u64 of any other
 * record, and the first u64 after the header of a sample.  A reader can
 * therefore find the event, and from it the sample_type, without knowing
 * the sample_type first.
 */
enum perf_event_type {
	/*
	 * A task mapped an executable region (with attr.mmap_data also
	 * a data region, flagged PERF_RECORD_MISC_MMAP_DATA).  Used to
	 * resolve code addresses to files.
	 *
	 *	u32 pid, tid
	 *	u64 addr		start address
	 *	u64 len
	 *	u64 pgoff		file offset, in bytes
	 *	char filename[]
	 *	sample_id
	 */
	PERF_RECORD_MMAP			= 1,

	/*
	 * Records of an event were thrown away because the ring buffer was
	 * full.
	 *
	 *	u64 id			event that lost them
	 *	u64 lost		how many
	 *	sample_id
	 */
	PERF_RECORD_LOST			= 2,

	/*
	 * A task got a new name (exec() or prctl(PR_SET_NAME)).
	 *
	 *	u32 pid, tid
	 *	char comm[]
	 *	sample_id
	 */
	PERF_RECORD_COMM			= 3,

	/*
	 * A task ended.  Same body as PERF_RECORD_FORK:
	 *
	 *	u32 pid, ppid
	 *	u32 tid, ptid
	 *	u64 time
	 *	sample_id
	 */
	PERF_RECORD_EXIT			= 4,

	/*
	 * THROTTLE: sampling of an event was suspended because it raised
	 * interrupts faster than allowed; UNTHROTTLE: it was resumed.  The
	 * two records have the same body:
	 *
	 *	u64 time
	 *	u64 id
	 *	u64 stream_id
	 *	sample_id
	 */
	PERF_RECORD_THROTTLE			= 5,
	PERF_RECORD_UNTHROTTLE			= 6,

	/*
	 * A task was created (by fork() or clone()).  Body as for EXIT.
	 */
	PERF_RECORD_FORK			= 7,

	/*
	 * Final counts of an inherited event in a task that exited (see
	 * attr.inherit_stat).
	 *
	 *	u32 pid, tid
	 *	values			read_format layout, see above
	 *	sample_id
	 */
	PERF_RECORD_READ			= 8,

	/*
	 * One sample.  Items are present as selected by attr.sample_type
	 * and appear in exactly this order:
	 *
	 *	u64 id			if PERF_SAMPLE_IDENTIFIER
	 *	u64 ip			if PERF_SAMPLE_IP
	 *	u32 pid, tid		if PERF_SAMPLE_TID
	 *	u64 time		if PERF_SAMPLE_TIME
	 *	u64 addr		if PERF_SAMPLE_ADDR
	 *	u64 id			if PERF_SAMPLE_ID
	 *	u64 stream_id		if PERF_SAMPLE_STREAM_ID
	 *	u32 cpu, res		if PERF_SAMPLE_CPU
	 *	u64 period		if PERF_SAMPLE_PERIOD
	 *	values			if PERF_SAMPLE_READ (read_format layout)
	 *	callchain		if PERF_SAMPLE_CALLCHAIN:
	 *		u64 nr
	 *		u64 ips[nr]	addresses and PERF_CONTEXT_* markers
	 *	raw			if PERF_SAMPLE_RAW:
	 *		u32 size
	 *		char data[size]	size includes the tail padding
	 *	branch stack		if PERF_SAMPLE_BRANCH_STACK:
	 *		u64 nr
	 *		u64 hw_idx	if PERF_SAMPLE_BRANCH_HW_INDEX
	 *		struct perf_branch_entry lbr[nr]
	 *		u64 counters[nr] if PERF_SAMPLE_BRANCH_COUNTERS
	 *	user registers		if PERF_SAMPLE_REGS_USER:
	 *		u64 abi		enum perf_sample_regs_abi
	 *		u64 regs[n]	n = bits set in sample_regs_user;
	 *				absent if abi is NONE
	 *	user stack		if PERF_SAMPLE_STACK_USER:
	 *		u64 size	bytes reserved for the copy
	 *		char data[size]
	 *		u64 dyn_size	bytes of data actually valid;
	 *				data and dyn_size absent if size is 0
	 *	union perf_sample_weight if PERF_SAMPLE_WEIGHT or
	 *				PERF_SAMPLE_WEIGHT_STRUCT
	 *	u64 data_src		if PERF_SAMPLE_DATA_SRC
	 *	u64 transaction		if PERF_SAMPLE_TRANSACTION
	 *	interrupt registers	if PERF_SAMPLE_REGS_INTR: same shape
	 *				as user registers, sample_regs_intr
	 *	u64 phys_addr		if PERF_SAMPLE_PHYS_ADDR
	 *	u64 cgroup		if PERF_SAMPLE_CGROUP (cgroup id)
	 *	u64 data_page_size	if PERF_SAMPLE_DATA_PAGE_SIZE
	 *	u64 code_page_size	if PERF_SAMPLE_CODE_PAGE_SIZE
	 *	aux snapshot		if PERF_SAMPLE_AUX:
	 *		u64 size
	 *		char data[size]
	 *
	 * The content of the raw data belongs to whatever produced it
	 * (tracepoint, PMU, BPF program) and is not covered by any ABI
	 * promise; it may change with hardware or kernel version.
	 *
	 * In the branch stack, the width and number of the event counts
	 * packed into each counters[] word are advertised by the PMU in
	 * sysfs as caps/branch_counter_width and caps/branch_counter_nr.
	 */
	PERF_RECORD_SAMPLE			= 9,

	/*
	 * Richer replacement for PERF_RECORD_MMAP (attr.mmap2) that also
	 * identifies the mapped object.  When PERF_RECORD_MISC_MMAP_BUILD_ID
	 * is set in misc, the identity is a build id rather than an inode.
	 *
	 *	u32 pid, tid
	 *	u64 addr, len, pgoff
	 *	either (no MMAP_BUILD_ID):
	 *		u32 maj, min	device numbers
	 *		u64 ino
	 *		u64 ino_generation
	 *	or (MMAP_BUILD_ID set), same 24 bytes:
	 *		u8 build_id_size
	 *		u8 __reserved_1
	 *		u16 __reserved_2
	 *		u8 build_id[20]
	 *	u32 prot, flags		as passed to mmap()
	 *	char filename[]
	 *	sample_id
	 */
	PERF_RECORD_MMAP2			= 10,

	/*
	 * New data was written to the AUX area.
	 *
	 *	u64 aux_offset		where, in the AUX area
	 *	u64 aux_size		how much
	 *	u64 flags		PERF_AUX_FLAG_* bits
	 *	sample_id
	 */
	PERF_RECORD_AUX				= 11,

	/*
	 * Instruction tracing began for a task.
	 *
	 *	u32 pid, tid
	 *	sample_id
	 */
	PERF_RECORD_ITRACE_START		= 12,

	/*
	 * Samples that could not be produced at all (for instance dropped
	 * by the hardware), as opposed to lost in the ring buffer.
	 *
	 *	u64 lost
	 *	sample_id
	 */
	PERF_RECORD_LOST_SAMPLES		= 13,

	/*
	 * The monitored task was switched in, or out when
	 * PERF_RECORD_MISC_SWITCH_OUT is set.  No body besides:
	 *
	 *	sample_id
	 */
	PERF_RECORD_SWITCH			= 14,

	/*
	 * Same as PERF_RECORD_SWITCH for per-CPU events, naming the other
	 * task involved: the incoming one on a switch out, the outgoing one
	 * on a switch in.
	 *
	 *	u32 next_prev_pid
	 *	u32 next_prev_tid
	 *	sample_id
	 */
	PERF_RECORD_SWITCH_CPU_WIDE		= 15,

	/*
	 * Namespaces of a task, indexed by NET_NS_INDEX and friends.
	 *
	 *	u32 pid, tid
	 *	u64 nr_namespaces
	 *	struct perf_ns_link_info link_info[nr_namespaces]
	 *	sample_id
	 */
	PERF_RECORD_NAMESPACES			= 16,

	/*
	 * A kernel symbol (JITed BPF program, trampoline, ...) was added,
	 * or removed when PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER is in flags.
	 *
	 *	u64 addr
	 *	u32 len
	 *	u16 ksym_type		enum perf_record_ksymbol_type
	 *	u16 flags
	 *	char name[]
	 *	sample_id
	 */
	PERF_RECORD_KSYMBOL			= 17,

	/*
	 * A BPF program was loaded or unloaded.
	 *
	 *	u16 type		enum perf_bpf_event_type
	 *	u16 flags
	 *	u32 id			BPF program id
	 *	u8 tag[8]		program tag (BPF_TAG_SIZE bytes)
	 *	sample_id
	 */
	PERF_RECORD_BPF_EVENT			= 18,

	/*
	 * A cgroup was created.
	 *
	 *	u64 id			cgroup id
	 *	char path[]		path below the cgroup root
	 *	sample_id
	 */
	PERF_RECORD_CGROUP			= 19,

	/*
	 * Kernel code was modified at run time.  bytes[] holds old_len
	 * bytes of the previous instructions immediately followed by
	 * new_len bytes of the new ones; either length may be 0, e.g.
	 * when a trampoline appears or goes away.
	 *
	 *	u64 addr
	 *	u16 old_len, new_len
	 *	u8 bytes[old_len + new_len]
	 *	sample_id
	 */
	PERF_RECORD_TEXT_POKE			= 20,

	/*
	 * With aux_output the hardware puts event data into the AUX area,
	 * tagged with its own hardware id.  This record tells which hardware
	 * id belongs to the event given by sample_id, which is thus needed
	 * (for example to tell apart PEBS data of several events inside
	 * Intel PT traces).
	 *
	 *	u64 hw_id
	 *	sample_id
	 */
	PERF_RECORD_AUX_OUTPUT_HW_ID		= 21,

	PERF_RECORD_MAX,			/* non-ABI */
};

/* PERF_RECORD_KSYMBOL::ksym_type */
enum perf_record_ksymbol_type {
	PERF_RECORD_KSYMBOL_TYPE_UNKNOWN	= 0,
	PERF_RECORD_KSYMBOL_TYPE_BPF		= 1,
	/* Out-of-line code: ftrace trampolines, optimized kprobes and such. */
	PERF_RECORD_KSYMBOL_TYPE_OOL		= 2,
	PERF_RECORD_KSYMBOL_TYPE_MAX		/* non-ABI */
};

/* PERF_RECORD_KSYMBOL::flags */
#define PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER	(1 << 0)

/* PERF_RECORD_BPF_EVENT::type */
enum perf_bpf_event_type {
	PERF_BPF_EVENT_UNKNOWN		= 0,
	PERF_BPF_EVENT_PROG_LOAD	= 1,
	PERF_BPF_EVENT_PROG_UNLOAD	= 2,
	PERF_BPF_EVENT_MAX,		/* non-ABI */
};

/* Default limits for callchains (see also attr.sample_max_stack). */
#define PERF_MAX_STACK_DEPTH		127
#define PERF_MAX_CONTEXTS_PER_STACK	  8

/*
 * Markers that may appear among the addresses of a PERF_SAMPLE_CALLCHAIN.
 * Any entry at or above PERF_CONTEXT_MAX (compared as u64) is not a return
 * address but announces the context of the entries after it.
 */
enum perf_callchain_context {
	PERF_CONTEXT_HV			= (__u64)-32,
	PERF_CONTEXT_KERNEL		= (__u64)-128,
	PERF_CONTEXT_USER		= (__u64)-512,

	PERF_CONTEXT_GUEST		= (__u64)-2048,
	PERF_CONTEXT_GUEST_KERNEL	= (__u64)-2176,
	PERF_CONTEXT_GUEST_USER		= (__u64)-2560,

	PERF_CONTEXT_MAX		= (__u64)-4095,
};

/*
 * Bits of the flags word of PERF_RECORD_AUX.
 */
#define PERF_AUX_FLAG_TRUNCATED			0x01	/* cut short for lack of room */
#define PERF_AUX_FLAG_OVERWRITE			0x02	/* taken in overwrite mode */
#define PERF_AUX_FLAG_PARTIAL			0x04	/* the data has holes */
#define PERF_AUX_FLAG_COLLISION			0x08	/* overlaps another sample */
#define PERF_AUX_FLAG_PMU_FORMAT_TYPE_MASK	0xff00	/* data format, PMU defined */

/* Format values for ARM CoreSight inside PERF_AUX_FLAG_PMU_FORMAT_TYPE_MASK. */
#define PERF_AUX_FLAG_CORESIGHT_FORMAT_CORESIGHT	0x0000 /* framed, the default */
#define PERF_AUX_FLAG_CORESIGHT_FORMAT_RAW		0x0100 /* bare source data */

/* The flags argument of perf_event_open(2). */
#define PERF_FLAG_FD_NO_GROUP		(1UL << 0) /* group_fd: not a leader */
#define PERF_FLAG_FD_OUTPUT		(1UL << 1) /* group_fd: share its buffer */
#define PERF_FLAG_PID_CGROUP		(1UL << 2) /* pid is a cgroup fd; needs cpu */
#define PERF_FLAG_FD_CLOEXEC		(1UL << 3) /* new fd gets close-on-exec */

/*
 * ---------------------------------------------------------------------
 * Memory access description: the PERF_SAMPLE_DATA_SRC item
 * ---------------------------------------------------------------------
 *
 * The u64 is a set of small fields, each described by one group of
 * PERF_MEM_* values below together with the _SHIFT of that group.  Most
 * groups are bit masks; LVLNUM and HOPS are plain numbers.  The _NA value
 * of a group says the PMU could not provide that information.
 */
#if defined(__LITTLE_ENDIAN_BITFIELD)
union perf_mem_data_src {
	__u64 val;
	struct {
		__u64	mem_op:5,	/* kind of access: PERF_MEM_OP_* */
			mem_lvl:14,	/* legacy level + hit/miss: PERF_MEM_LVL_* */
			mem_snoop:5,	/* snoop outcome: PERF_MEM_SNOOP_* */
			mem_lock:2,	/* atomicity: PERF_MEM_LOCK_* */
			mem_dtlb:7,	/* data TLB outcome: PERF_MEM_TLB_* */
			mem_lvl_num:4,	/* where it was served: PERF_MEM_LVLNUM_* */
			mem_remote:1,	/* that level is on another node */
			mem_snoopx:2,	/* more snoop outcomes: PERF_MEM_SNOOPX_* */
			mem_blk:3,	/* why it stalled: PERF_MEM_BLK_* */
			mem_hops:3,	/* distance: PERF_MEM_HOPS_* */
			mem_rsvd:18;
	};
};
#elif defined(__BIG_ENDIAN_BITFIELD)
union perf_mem_data_src {
	__u64 val;
	struct {
		__u64	mem_rsvd:18,
			mem_hops:3,	/* distance: PERF_MEM_HOPS_* */
			mem_blk:3,	/* why it stalled: PERF_MEM_BLK_* */
			mem_snoopx:2,	/* more snoop outcomes: PERF_MEM_SNOOPX_* */
			mem_remote:1,	/* that level is on another node */
			mem_lvl_num:4,	/* where it was served: PERF_MEM_LVLNUM_* */
			mem_dtlb:7,	/* data TLB outcome: PERF_MEM_TLB_* */
			mem_lock:2,	/* atomicity: PERF_MEM_LOCK_* */
			mem_snoop:5,	/* snoop outcome: PERF_MEM_SNOOP_* */
			mem_lvl:14,	/* legacy level + hit/miss: PERF_MEM_LVL_* */
			mem_op:5;	/* kind of access: PERF_MEM_OP_* */
	};
};
#else
#error "Unknown endianness"
#endif

/* mem_op: what kind of access it was */
#define PERF_MEM_OP_NA		0x01 /* unknown */
#define PERF_MEM_OP_LOAD	0x02 /* data read */
#define PERF_MEM_OP_STORE	0x04 /* data write */
#define PERF_MEM_OP_PFETCH	0x08 /* prefetch request */
#define PERF_MEM_OP_EXEC	0x10 /* instruction fetch */
#define PERF_MEM_OP_SHIFT	0

/*
 * mem_lvl: the original encoding of level and hit/miss in one field.
 * Newer code should describe the level with mem_lvl_num, mem_remote and
 * mem_snoopx instead; this field stays for compatibility.
 */
#define PERF_MEM_LVL_NA		0x01  /* unknown */
#define PERF_MEM_LVL_HIT	0x02  /* the level hit */
#define PERF_MEM_LVL_MISS	0x04  /* the level missed */
#define PERF_MEM_LVL_L1		0x08  /* first level cache */
#define PERF_MEM_LVL_LFB	0x10  /* line fill buffer */
#define PERF_MEM_LVL_L2		0x20  /* second level cache */
#define PERF_MEM_LVL_L3		0x40  /* third level cache */
#define PERF_MEM_LVL_LOC_RAM	0x80  /* DRAM of this node */
#define PERF_MEM_LVL_REM_RAM1	0x100 /* DRAM one hop away */
#define PERF_MEM_LVL_REM_RAM2	0x200 /* DRAM two hops away */
#define PERF_MEM_LVL_REM_CCE1	0x400 /* cache one hop away */
#define PERF_MEM_LVL_REM_CCE2	0x800 /* cache two hops away */
#define PERF_MEM_LVL_IO		0x1000 /* I/O space */
#define PERF_MEM_LVL_UNC	0x2000 /* uncacheable memory */
#define PERF_MEM_LVL_SHIFT	5

/* mem_remote */
#define PERF_MEM_REMOTE_REMOTE	0x01  /* served by another node */
#define PERF_MEM_REMOTE_SHIFT	37

/* mem_lvl_num: a single level number, not a mask */
#define PERF_MEM_LVLNUM_L1	0x01 /* first level cache */
#define PERF_MEM_LVLNUM_L2	0x02 /* second level cache */
#define PERF_MEM_LVLNUM_L3	0x03 /* third level cache */
#define PERF_MEM_LVLNUM_L4	0x04 /* fourth level cache */
#define PERF_MEM_LVLNUM_L2_MHB	0x05 /* L2 miss handling buffer */
#define PERF_MEM_LVLNUM_MSC	0x06 /* memory-side cache */
/* 0x07 is unassigned */
#define PERF_MEM_LVLNUM_UNC	0x08 /* uncacheable */
#define PERF_MEM_LVLNUM_CXL	0x09 /* CXL attached memory */
#define PERF_MEM_LVLNUM_IO	0x0a /* I/O space */
#define PERF_MEM_LVLNUM_ANY_CACHE 0x0b /* some cache, level unknown */
#define PERF_MEM_LVLNUM_LFB	0x0c /* line fill buffer / L1 MHB */
#define PERF_MEM_LVLNUM_RAM	0x0d /* DRAM */
#define PERF_MEM_LVLNUM_PMEM	0x0e /* persistent memory */
#define PERF_MEM_LVLNUM_NA	0x0f /* unknown */

#define PERF_MEM_LVLNUM_SHIFT	33

/* mem_snoop: coherency snoop result */
#define PERF_MEM_SNOOP_NA	0x01 /* unknown */
#define PERF_MEM_SNOOP_NONE	0x02 /* no snoop was needed */
#define PERF_MEM_SNOOP_HIT	0x04 /* another cache had the line */
#define PERF_MEM_SNOOP_MISS	0x08 /* no other cache had it */
#define PERF_MEM_SNOOP_HITM	0x10 /* another cache had it dirty */
#define PERF_MEM_SNOOP_SHIFT	19

/* mem_snoopx: further snoop results */
#define PERF_MEM_SNOOPX_FWD	0x01 /* line was forwarded */
#define PERF_MEM_SNOOPX_PEER	0x02 /* line came from a peer cache */
#define PERF_MEM_SNOOPX_SHIFT  38

/* mem_lock: atomic accesses */
#define PERF_MEM_LOCK_NA	0x01 /* unknown */
#define PERF_MEM_LOCK_LOCKED	0x02 /* part of a locked operation */
#define PERF_MEM_LOCK_SHIFT	24

/* mem_dtlb: data TLB lookup */
#define PERF_MEM_TLB_NA		0x01 /* unknown */
#define PERF_MEM_TLB_HIT	0x02 /* the level hit */
#define PERF_MEM_TLB_MISS	0x04 /* the level missed */
#define PERF_MEM_TLB_L1		0x08 /* first level TLB */
#define PERF_MEM_TLB_L2		0x10 /* second level TLB */
#define PERF_MEM_TLB_WK		0x20 /* hardware page walk */
#define PERF_MEM_TLB_OS		0x40 /* page fault, OS handled */
#define PERF_MEM_TLB_SHIFT	26

/* mem_blk: reason the access was held up */
#define PERF_MEM_BLK_NA		0x01 /* unknown */
#define PERF_MEM_BLK_DATA	0x02 /* store data not forwardable */
#define PERF_MEM_BLK_ADDR	0x04 /* address overlap conflict */
#define PERF_MEM_BLK_SHIFT	40

/* mem_hops: how far away the data was found */
#define PERF_MEM_HOPS_0		0x01 /* other core, this node */
#define PERF_MEM_HOPS_1		0x02 /* other node, this socket */
#define PERF_MEM_HOPS_2		0x03 /* other socket, this board */
#define PERF_MEM_HOPS_3		0x04 /* other board */
/* 0x05-0x07 are unassigned */
#define PERF_MEM_HOPS_SHIFT	43

/*
 * Place one value into its field of a data_src word, for example
 * PERF_MEM_S(LVL, HIT) | PERF_MEM_S(OP, LOAD).
 */
#define PERF_MEM_S(a, s) \
	(((__u64)PERF_MEM_##a##_##s) << PERF_MEM_##a##_SHIFT)

/*
 * ---------------------------------------------------------------------
 * Branch stack entries
 * ---------------------------------------------------------------------
 *
 * One taken branch in the PERF_SAMPLE_BRANCH_STACK item:
 *
 *   from       address of the instruction that branched (on some hardware
 *              not necessarily a branch instruction)
 *   to         where it went
 *   mispred,   whether the target was mispredicted or predicted; both are
 *   predicted  0 when the hardware does not tell
 *   in_tx      happened inside a hardware transaction
 *   abort      was a transaction abort
 *   cycles     core cycles since the previous entry (0 if not known)
 *   type       PERF_BR_* kind (needs PERF_SAMPLE_BRANCH_TYPE_SAVE)
 *   spec       PERF_BR_SPEC_* speculation outcome (0 if not known)
 *   new_type   PERF_BR_NEW_* kind when type is PERF_BR_EXTEND_ABI
 *   priv       PERF_BR_PRIV_* level of the target
 */
struct perf_branch_entry {
	__u64	from;
	__u64	to;
	__u64	mispred:1,	/* wrongly predicted */
		predicted:1,	/* correctly predicted */
		in_tx:1,	/* inside a transaction */
		abort:1,	/* transaction abort */
		cycles:16,	/* cycles since last entry */
		type:4,		/* PERF_BR_* */
		spec:2,		/* PERF_BR_SPEC_* */
		new_type:4,	/* PERF_BR_NEW_* */
		priv:3,		/* PERF_BR_PRIV_* */
		reserved:31;
};

/* Number of bits of the third word of perf_branch_entry that are in use. */
#define PERF_BRANCH_ENTRY_INFO_BITS_MAX		33

/*
 * The PERF_SAMPLE_WEIGHT / PERF_SAMPLE_WEIGHT_STRUCT item.  With
 * PERF_SAMPLE_WEIGHT it is one number in @full; with
 * PERF_SAMPLE_WEIGHT_STRUCT it is three separate values whose meaning
 * (typically one or more latencies) is up to the PMU.
 */
union perf_sample_weight {
	__u64		full;
#if defined(__LITTLE_ENDIAN_BITFIELD)
	struct {
		__u32	var1_dw;
		__u16	var2_w;
		__u16	var3_w;
	};
#elif defined(__BIG_ENDIAN_BITFIELD)
	struct {
		__u16	var3_w;
		__u16	var2_w;
		__u32	var1_dw;
	};
#else
#error "Unknown endianness"
#endif
};

#endif /* _UAPI_LINUX_PERF_EVENT_H */
