// SPDX-License-Identifier: GPL-2.0-only
/*
 * Precise event-based sampling (PEBS) of Intel cores whose records have
 * format 3 (Skylake to Comet Lake) or format 4 or 5 with the baseline,
 * the adaptive records of Ice Lake and Sapphire Rapids: attr.precise_ip
 * for the events of the core PMU.
 *
 * The CPU writes a record into a buffer the debug store describes
 * (struct debug_store: the buffer's base, the index of the next record,
 * its end, and the index at which a PMI is due) when a counter whose
 * IA32_PEBS_ENABLE bit is set has wrapped and its event occurs again,
 * or, with precise distribution (INST_RETIRED.PREC_DIST on Skylake's
 * counter 1, Ice Lake's fixed counter 0), for the instruction that
 * wrapped it.  The record holds the state after that instruction: its
 * address (the eventing IP), the next one's, the general registers, the
 * counters it is for, and for memory events the data address and where
 * the data was.  The counter then takes the reset value the debug store
 * holds for it.
 *
 * Format 3 records are all alike (struct pebs_rec), and only the first
 * four general counters have PEBS.  Format 4 (PEBS_BASELINE) has it on
 * every counter, the fixed ones too, and a record is made of groups:
 * the basic one (its size, the eventing IP, the counters, the TSC),
 * then those MSR_PEBS_DATA_CFG selects for counters whose Adaptive bit
 * is set (every precise event's here): memory, the general registers,
 * the XMM registers, the LBR.  A CPU's selection is what its precise
 * events need together, set as the first comes and grown as others do
 * (as upstream, it does not shrink until the CPU has none); the drain
 * reads each record by its own size.
 *
 * Each CPU's debug store (cpu_debug_store, which the CPU entry area maps
 * on every CPU) gets a buffer, mapped there as well so that the CPU can
 * write it while user page tables are loaded (page table isolation).
 * The buffers are allocated for every possible CPU when the first
 * precise event is made, and kept.  IA32_DS_AREA points at the entry
 * area's view of the debug store from when the CPU comes up.
 *
 * A record at the interrupt threshold raises a PMI (GLOBAL_STATUS
 * OvfBuffer, which the x86 layer hands to drain()).  In frequency mode
 * the threshold is one record and the counter's reset value 0: the PMI
 * starts the next period as for any sample.  With a fixed period the
 * counter reloads -period at each record (X86_EVENT_RELOAD), and when
 * every precise event on the CPU samples only what a record holds
 * (upstream's large PEBS flags) the threshold is the buffer's end, less
 * a record per counter: many records a PMI.  Then the buffer is drained
 * too when such an event stops, when it is read, and when a task leaves
 * the CPU (sched_task), since records do not say whose they are.  A
 * precise event does not interrupt on its own overflow (no INT bit),
 * and the overflow bits of the PEBS counters are cleared, not reported:
 * their samples come from records.
 * In the sample, precise_ip 1 gives the record's IP (the instruction
 * after the event's); 2 and 3 the eventing IP, marked exact
 * (PERF_EFLAGS_EXACT in the sample's flags, PERF_RECORD_MISC_EXACT_IP in
 * its header).  The general registers of PERF_SAMPLE_REGS_INTR are the
 * record's; the callchain is the interrupted context's.  Cycles with
 * precise_ip are counted through INST_RETIRED with an inverted threshold
 * of 16, which every cycle meets (the PREC_DIST form with precise_ip 3),
 * as upstream does.
 *
 * The load latency events (MEM_TRANS_RETIRED.LOAD_LATENCY, the perf
 * tool's mem-loads) count the loads slower than the threshold their
 * config1 gives MSR_PEBS_LD_LAT_THRESHOLD (intel_rsp.c holds it); on
 * Skylake their counter's load latency bit of IA32_PEBS_ENABLE (32 +
 * the counter) is set too.  Their records give each load's latency (the
 * sample's weight) and where its data came from (the data source, by
 * upstream's table for the model).
 *
 * Golden Cove's PEBS (Sapphire Rapids, format 5) keeps the fixed
 * counters' reset values after room for 32 general ones, and has its
 * own constraints (upstream's table): INST_RETIRED's 0xc0 and the load
 * latency event on counters 1 to 7, the store latency event
 * (MEM_TRANS_RETIRED.STORE_SAMPLE, whose records give each store's
 * latency and source) on counter 0, the memory events on 0 to 3.
 * precise_ip 3 asks for precise distribution: PDist on general counter
 * 0 (an event that cannot count there is refused), or for instructions
 * fixed counter 0; its period is at least X86_PDIST_MIN_PERIOD.  The
 * memory group's latency is split into the instruction's (the weight's
 * var2_w) and the cache access's (the weight).
 *
 * Alder Lake's two core types each have their own rules: its P-cores
 * are Golden Cove's (format 4 there), its E-cores Gracemont's, whose
 * latency events are MEM_UOPS_RETIRED.LOAD_LATENCY (counters 0 and 1)
 * and .STORE_LATENCY, whose precise_ip 3 is reduced skid on general
 * counter 0 (fixed counter 0 for instructions), and whose data sources
 * have a table of their own.  As upstream's flags are the part's, the
 * E-cores' latencies are split too, and their precise_ip 3 wants the
 * same period.
 *
 * Not here: the older record formats, PEBS on fixed counter 3 (the
 * topdown slots, which do not sample here), and guests' PEBS.
 *
 * Locking: the buffers are allocated under pebs_mutex, before the first
 * precise event exists; the per-CPU state and the CPU's registers are
 * changed on their CPU with interrupts off (the x86 layer's add, del,
 * start, stop and the PMI).
 */
#include <linux/gfp.h>
#include <linux/io.h>
#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/perf_event.h>
#include <linux/perf_regs.h>
#include <linux/sched/clock.h>
#include <linux/topology.h>

#include <asm/cpu_device_id.h>
#include <asm/cpu_entry_area.h>
#include <asm/intel-family.h>
#include <asm/intel_ds.h>
#include <asm/msr.h>
#include <asm/perf_event.h>
#include <asm/segment.h>
#include <asm/timer.h>

#include "branch_kind.h"
#include "intel_lbr.h"
#include "intel_models.h"
#include "intel_pebs.h"
#include "intel_rsp.h"

/* IA32_PERF_CAPABILITIES: trap-like records, their format (11:8). */
#define PEBS_CAP_TRAP		BIT_ULL(6)
#define PEBS_CAP_FORMAT(caps)	(((caps) >> 8) & 0xf)
#define PEBS_CAP_BASELINE	BIT_ULL(14)
#define PEBS_FORMAT_SKL		3
#define PEBS_FORMAT_ICL		4
#define PEBS_FORMAT_SPR		5
#define PEBS_FORMAT_LAST	6

/*
 * The fixed counters' reset values, after the general ones': format 4
 * has room for 8 of those, format 5 for 32.
 */
#define PEBS_RESET_FIXED	MAX_PEBS_EVENTS_FMT4
#define PEBS_RESET_FIXED_SPR	MAX_PEBS_EVENTS

/* Cycles, as precise events count them: every cycle has < 16 retiring. */
#define PEBS_CYCLES		0x003cULL
#define PEBS_CYCLES_ALL		0x108000c0ULL	/* INST_RETIRED.TOTAL_CYCLES_PS */
#define PEBS_CYCLES_PDIST	0x108001c0ULL	/* INST_RETIRED.PREC_DIST, same */
#define PEBS_PREC_DIST		0x01c0ULL
/* MEM_TRANS_RETIRED.LOAD_LATENCY, and Golden Cove's .STORE_SAMPLE */
#define PEBS_LOAD_LATENCY	0x01cdULL
#define PEBS_STORE_LATENCY	0x02cdULL
/* INST_RETIRED.ANY, as fixed counter 0 counts it */
#define PEBS_INSTRUCTIONS	0x00c0ULL

/* The data source of a store: bit 0, an L1 hit. */
#define PEBS_DSE_L1_HIT		BIT_ULL(0)
/* A load's: where the data came from (3:0), an STLB miss, locked. */
#define PEBS_DSE_SOURCE		GENMASK_ULL(3, 0)
#define PEBS_DSE_STLB_MISS	BIT_ULL(4)
#define PEBS_DSE_LOCKED		BIT_ULL(5)
/* Golden Cove: a load blocked by a store's data, or by its address. */
#define PEBS_DSE_DATA_BLK	BIT_ULL(6)
#define PEBS_DSE_ADDR_BLK	BIT_ULL(7)
/* Golden Cove's memory group latency: the cache access's, bits 47:32. */
#define PEBS_CACHE_LATENCY(l)	(((l) >> 32) & 0xffff)
#define PEBS_INSTR_LATENCY(l)	((l) & 0xffff)
/* Gracemont's latency events: MEM_UOPS_RETIRED.LOAD_LATENCY, .STORE_ */
#define PEBS_GRT_LOAD_LATENCY	0x05d0ULL
#define PEBS_GRT_STORE_LATENCY	0x06d0ULL

#define PEBS_SRC(a, b)		PERF_MEM_S(a, b)
#define PEBS_LOAD_HIT		(PEBS_SRC(OP, LOAD) | PEBS_SRC(LVL, HIT))
#define PEBS_LVL(l)		PEBS_SRC(LVLNUM, l)

/*
 * The data sources of load latency records, Skylake's and Ice Lake's,
 * as upstream decodes them: the caches of this core and package, then
 * L3 misses served elsewhere (entries 8 and 9 are persistent memory on
 * the servers, pebs_src_pmem, an L4 on the clients), I/O, uncached.
 */
static const u64 pebs_src[16] = {
	PEBS_SRC(OP, LOAD) | PEBS_SRC(LVL, MISS) | PEBS_LVL(L3) | PEBS_SRC(SNOOP, NA),
	PEBS_LOAD_HIT | PEBS_SRC(LVL, L1) | PEBS_LVL(L1) | PEBS_SRC(SNOOP, NONE),
	PEBS_LOAD_HIT | PEBS_SRC(LVL, LFB) | PEBS_LVL(LFB) | PEBS_SRC(SNOOP, NONE),
	PEBS_LOAD_HIT | PEBS_SRC(LVL, L2) | PEBS_LVL(L2) | PEBS_SRC(SNOOP, NONE),
	PEBS_LOAD_HIT | PEBS_SRC(LVL, L3) | PEBS_LVL(L3) | PEBS_SRC(SNOOP, NONE),
	PEBS_LOAD_HIT | PEBS_SRC(LVL, L3) | PEBS_LVL(L3) | PEBS_SRC(SNOOP, MISS),
	PEBS_LOAD_HIT | PEBS_SRC(LVL, L3) | PEBS_LVL(L3) | PEBS_SRC(SNOOP, HIT),
	PEBS_LOAD_HIT | PEBS_SRC(LVL, L3) | PEBS_LVL(L3) | PEBS_SRC(SNOOP, HITM),
	PEBS_LOAD_HIT | PEBS_LVL(L4) | PEBS_SRC(SNOOP, HIT),
	PEBS_LOAD_HIT | PEBS_LVL(L4) | PEBS_SRC(REMOTE, REMOTE) | PEBS_SRC(SNOOP, HIT),
	PEBS_LOAD_HIT | PEBS_SRC(LVL, LOC_RAM) | PEBS_LVL(RAM) | PEBS_SRC(SNOOP, HIT),
	PEBS_LOAD_HIT | PEBS_LVL(RAM) | PEBS_SRC(REMOTE, REMOTE) | PEBS_SRC(SNOOP, NONE),
	PEBS_LOAD_HIT | PEBS_LVL(ANY_CACHE) | PEBS_SRC(REMOTE, REMOTE) |
		PEBS_SRC(SNOOPX, FWD),
	PEBS_LOAD_HIT | PEBS_LVL(ANY_CACHE) | PEBS_SRC(REMOTE, REMOTE) |
		PEBS_SRC(SNOOP, HITM),
	PEBS_LOAD_HIT | PEBS_SRC(LVL, IO) | PEBS_LVL(NA) | PEBS_SRC(SNOOP, NONE),
	PEBS_LOAD_HIT | PEBS_SRC(LVL, UNC) | PEBS_LVL(NA) | PEBS_SRC(SNOOP, NONE),
};

/*
 * Gracemont's data sources, as upstream decodes them: Sandy Bridge's
 * table (L3 hits by their snoop, then L3 misses: a remote cache, local
 * or remote memory) with its own L3 snoop entries 5, 6 and 8.
 */
static const u64 pebs_src_grt[16] = {
	PEBS_SRC(OP, LOAD) | PEBS_SRC(LVL, MISS) | PEBS_LVL(L3) | PEBS_SRC(SNOOP, NA),
	PEBS_LOAD_HIT | PEBS_SRC(LVL, L1) | PEBS_LVL(L1) | PEBS_SRC(SNOOP, NONE),
	PEBS_LOAD_HIT | PEBS_SRC(LVL, LFB) | PEBS_LVL(LFB) | PEBS_SRC(SNOOP, NONE),
	PEBS_LOAD_HIT | PEBS_SRC(LVL, L2) | PEBS_LVL(L2) | PEBS_SRC(SNOOP, NONE),
	PEBS_LOAD_HIT | PEBS_SRC(LVL, L3) | PEBS_LVL(L3) | PEBS_SRC(SNOOP, NONE),
	PEBS_LOAD_HIT | PEBS_SRC(LVL, L3) | PEBS_LVL(L3) | PEBS_SRC(SNOOP, HIT),
	PEBS_LOAD_HIT | PEBS_SRC(LVL, L3) | PEBS_LVL(L3) | PEBS_SRC(SNOOP, HITM),
	PEBS_LOAD_HIT | PEBS_SRC(LVL, L3) | PEBS_LVL(L3) | PEBS_SRC(SNOOP, HITM),
	PEBS_LOAD_HIT | PEBS_SRC(LVL, L3) | PEBS_LVL(L3) | PEBS_SRC(SNOOPX, FWD),
	PEBS_LOAD_HIT | PEBS_SRC(LVL, REM_CCE1) | PEBS_SRC(REMOTE, REMOTE) |
		PEBS_LVL(L3) | PEBS_SRC(SNOOP, HITM),
	PEBS_LOAD_HIT | PEBS_SRC(LVL, LOC_RAM) | PEBS_LVL(RAM) | PEBS_SRC(SNOOP, HIT),
	PEBS_LOAD_HIT | PEBS_SRC(LVL, REM_RAM1) | PEBS_SRC(REMOTE, REMOTE) |
		PEBS_LVL(L3) | PEBS_SRC(SNOOP, HIT),
	PEBS_LOAD_HIT | PEBS_SRC(LVL, LOC_RAM) | PEBS_LVL(RAM) |
		PEBS_SRC(SNOOP, NONE) | PEBS_SRC(SNOOP, MISS),
	PEBS_LOAD_HIT | PEBS_SRC(LVL, REM_RAM1) | PEBS_LVL(RAM) |
		PEBS_SRC(REMOTE, REMOTE) | PEBS_SRC(SNOOP, NONE) | PEBS_SRC(SNOOP, MISS),
	PEBS_LOAD_HIT | PEBS_SRC(LVL, IO) | PEBS_LVL(NA) | PEBS_SRC(SNOOP, NONE),
	PEBS_LOAD_HIT | PEBS_SRC(LVL, UNC) | PEBS_LVL(NA) | PEBS_SRC(SNOOP, NONE),
};

/* Skylake's PEBS counters, the first four general ones. */
#define PEBS_SKL_COUNTERS	GENMASK_ULL(3, 0)

/* What the samples of large PEBS may hold: what a record has. */
#define PEBS_LARGE_SAMPLE	(PERF_SAMPLE_IP | PERF_SAMPLE_TID |		\
				 PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |		\
				 PERF_SAMPLE_CPU | PERF_SAMPLE_STREAM_ID |	\
				 PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_IDENTIFIER | \
				 PERF_SAMPLE_TRANSACTION |			\
				 PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_REGS_INTR | \
				 PERF_SAMPLE_REGS_USER | PERF_SAMPLE_PERIOD |	\
				 PERF_SAMPLE_CODE_PAGE_SIZE |			\
				 PERF_SAMPLE_WEIGHT_TYPE | PERF_SAMPLE_TIME)

/* What asks for the memory group of a format 4 record. */
#define PEBS_MEM_SAMPLE		(PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC |	\
				 PERF_SAMPLE_PHYS_ADDR |			\
				 PERF_SAMPLE_WEIGHT_TYPE |			\
				 PERF_SAMPLE_TRANSACTION |			\
				 PERF_SAMPLE_DATA_PAGE_SIZE)

/* The registers a record has, as PERF_REG_X86_* bits. */
#define PEBS_REGS		(GENMASK_ULL(PERF_REG_X86_FLAGS, PERF_REG_X86_AX) | \
				 GENMASK_ULL(PERF_REG_X86_R15, PERF_REG_X86_R8))

/*
 * A format 3 record, 200 bytes: the state after the eventing
 * instruction, then what the record is for.
 */
struct pebs_rec {
	u64 flags;
	u64 ip;			/* the next instruction */
	u64 ax;
	u64 bx;
	u64 cx;
	u64 dx;
	u64 si;
	u64 di;
	u64 bp;
	u64 sp;
	u64 r8;
	u64 r9;
	u64 r10;
	u64 r11;
	u64 r12;
	u64 r13;
	u64 r14;
	u64 r15;
	u64 counters;		/* GLOBAL_STATUS bits of the PEBS counters */
	u64 addr;		/* a memory event's data linear address */
	u64 source;		/* a memory event's data source */
	u64 latency;
	u64 event_ip;		/* the eventing instruction */
	u64 tsx;
	u64 tsc;
};

static DEFINE_MUTEX(pebs_mutex);
static bool pebs_ready;		/* every possible CPU has its buffer */
static bool pebs_present __ro_after_init;
static int pebs_format __ro_after_init;
static u64 pebs_width_mask __ro_after_init;	/* a counter's bits */
static u64 pebs_counters_all __ro_after_init;	/* those with PEBS */
static int pebs_lbr_nr __ro_after_init;	/* the LBR's depth, or 0 */
static bool pebs_src_pmem __ro_after_init;	/* a server's sources 8, 9 */
static bool pebs_ldlat __ro_after_init;	/* the load latency register */
/* Golden Cove's or Gracemont's cores: split latencies, PDist's period. */
static bool pebs_split __ro_after_init;

/* The rules a core type's precise events follow. */
enum pebs_core {
	PEBS_CORE_SKL,		/* Skylake's format 3 */
	PEBS_CORE_ICL,		/* Ice Lake's adaptive records */
	PEBS_CORE_GLC,		/* Golden Cove's */
	PEBS_CORE_GRT,		/* Gracemont's */
};

/* Each core type's rules, by its x86_vendor.core_type (two when hybrid). */
static struct {
	u8 core_type;
	u8 core;
} pebs_types[2] __ro_after_init;
static int pebs_ntypes __ro_after_init;

static enum pebs_core pebs_core_of(const struct x86_vendor *v)
{
	int i;

	for (i = 0; i < pebs_ntypes; i++)
		if (pebs_types[i].core_type == v->core_type)
			return pebs_types[i].core;
	return PEBS_CORE_SKL;
}

static DEFINE_PER_CPU(struct page *, pebs_pages);

/**
 * struct pebs_cpu - one CPU's precise events
 * @on: the counters with PEBS on (IA32_PEBS_ENABLE)
 * @n: precise events added
 * @n_large: of which with large PEBS
 * @cb: the CPU asked for sched_task (every one large)
 * @pmu: whose sched_task
 * @draining: in drain(), which what it calls may call again
 * @groups: format 4: the groups the precise events need (PEBS_DATACFG_*)
 * @written: what MSR_PEBS_DATA_CFG holds
 * @latency: format 3: the counters of load latency events (their load
 *	latency bits, IA32_PEBS_ENABLE's 32 and up)
 */
struct pebs_cpu {
	u64 on;
	u64 latency;
	int n;
	int n_large;
	bool cb;
	struct pmu *pmu;
	bool draining;
	u64 groups;
	u64 written;
};

static DEFINE_PER_CPU(struct pebs_cpu, pebs_cpu);

/* The sched_task of the LBR, which PEBS's calls after its own. */
static void (*pebs_next_sched_task)(struct perf_event_pmu_context *epc,
				    struct task_struct *task, bool sched_in);

static void intel_pebs_drain(struct pt_regs *iregs);

/* The debug store as the CPU sees it, through the CPU entry area. */
static unsigned long pebs_ds_area(int cpu)
{
	return (unsigned long)&get_cpu_entry_area(cpu)->cpu_debug_store;
}

/* The size of a record: format 3's, or format 4's with @groups. */
static size_t pebs_record_size(u64 groups)
{
	size_t size = sizeof(struct pebs_basic);

	if (pebs_format < PEBS_FORMAT_ICL)
		return sizeof(struct pebs_rec);
	if (groups & PEBS_DATACFG_MEMINFO)
		size += sizeof(struct pebs_meminfo);
	if (groups & PEBS_DATACFG_GP)
		size += sizeof(struct pebs_gprs);
	if (groups & PEBS_DATACFG_XMMS)
		size += sizeof(struct pebs_xmm);
	if (groups & PEBS_DATACFG_LBRS)
		size += (((groups >> PEBS_DATACFG_LBR_SHIFT) & 0xff) + 1) *
			sizeof(struct lbr_entry);
	return size;
}

/* Give @cpu its buffer: allocated, mapped, described in its store. */
static int pebs_alloc(int cpu)
{
	struct debug_store *ds = per_cpu_ptr(&cpu_debug_store, cpu);
	void *cea = &get_cpu_entry_area(cpu)->cpu_debug_buffers.pebs_buffer;
	unsigned long base = (unsigned long)cea;
	size_t off, n = PEBS_BUFFER_SIZE / sizeof(struct pebs_rec);
	struct page *page;
	phys_addr_t pa;

	if (per_cpu(pebs_pages, cpu))
		return 0;
	page = alloc_pages_node(cpu_to_node(cpu), GFP_KERNEL | __GFP_ZERO,
				get_order(PEBS_BUFFER_SIZE));
	if (!page)
		return -ENOMEM;
	pa = page_to_phys(page);
	for (off = 0; off < PEBS_BUFFER_SIZE; off += PAGE_SIZE)
		cea_set_pte(cea + off, pa + off, PAGE_KERNEL);
	per_cpu(pebs_pages, cpu) = page;
	ds->pebs_buffer_base = base;
	ds->pebs_index = base;
	/* Format 4's records differ in size: the whole buffer. */
	ds->pebs_absolute_maximum = base + (pebs_format < PEBS_FORMAT_ICL ?
					    n * sizeof(struct pebs_rec) :
					    PEBS_BUFFER_SIZE);
	ds->pebs_interrupt_threshold = base + pebs_record_size(0);
	return 0;
}

/*
 * The buffers of every possible CPU, made once, before the first
 * precise event: a CPU that comes up later finds its own.
 */
static int pebs_reserve(void)
{
	int cpu, err = 0;

	/* Pairs with the release below: the buffers are there once seen. */
	if (smp_load_acquire(&pebs_ready))
		return 0;
	mutex_lock(&pebs_mutex);
	for_each_possible_cpu(cpu) {
		err = pebs_alloc(cpu);
		if (err)
			break;
	}
	if (!err) {
		/* The debug stores are filled before a precise event is made. */
		smp_store_release(&pebs_ready, true);
	}
	mutex_unlock(&pebs_mutex);
	return err;
}

/*
 * The memory access an event counts on a core with the rules of @core,
 * where its records say.  Gracemont's say it of its latency events only.
 */
static u32 pebs_mem_kind(u64 code, enum pebs_core core)
{
	u32 event = code & 0xff, umask = (code >> 8) & 0xff;
	u32 last = pebs_format < PEBS_FORMAT_ICL ? 0xd3 : 0xd4;

	/* No edge, inverse, threshold or AnyThread. */
	if (code & ~0xffffULL)
		return 0;
	if (core == PEBS_CORE_GRT) {
		if (code == PEBS_GRT_LOAD_LATENCY)
			return pebs_ldlat ? X86_EVENT_PRECISE_LAT | X86_EVENT_PRECISE_GRT : 0;
		if (code == PEBS_GRT_STORE_LATENCY)
			return X86_EVENT_PRECISE_STLAT | X86_EVENT_PRECISE_GRT;
		return 0;
	}
	if (code == PEBS_LOAD_LATENCY)
		return pebs_ldlat ? X86_EVENT_PRECISE_LAT : 0;
	if (code == PEBS_STORE_LATENCY)
		return core == PEBS_CORE_GLC ? X86_EVENT_PRECISE_STLAT : 0;
	/*
	 * MEM_LOAD_RETIRED, MEM_LOAD_L3_HIT_RETIRED, _L3_MISS_RETIRED, and
	 * from Ice Lake MEM_LOAD_MISC_RETIRED.
	 */
	if (event >= 0xd1 && event <= last)
		return X86_EVENT_PRECISE_LD;
	/* MEM_INST_RETIRED: STLB misses, locked, split, all; of each kind. */
	if (event != 0xd0 || hweight8(umask >> 4) != 1)
		return 0;
	if ((umask & 0xf) == 1)
		return X86_EVENT_PRECISE_LD;
	if ((umask & 0xf) == 2)
		return X86_EVENT_PRECISE_ST;
	return 0;
}

/*
 * What the samples of @event may hold for large PEBS: the record's TSC
 * is no clock of the user's choice, and its registers are only user
 * space's when the event leaves the kernel out.
 */
static u64 pebs_large_sample(const struct perf_event *event)
{
	u64 ok = PEBS_LARGE_SAMPLE;

	if (event->attr.use_clockid)
		ok &= ~PERF_SAMPLE_TIME;
	if (!event->attr.exclude_kernel ||
	    (event->attr.sample_regs_user & ~PEBS_REGS))
		ok &= ~PERF_SAMPLE_REGS_USER;
	/* Format 4 records have the XMM registers and the LBR as well. */
	if (pebs_format >= PEBS_FORMAT_ICL)
		return ok | PERF_SAMPLE_BRANCH_STACK;
	if (event->attr.sample_regs_intr & ~PEBS_REGS)
		ok &= ~PERF_SAMPLE_REGS_INTR;
	return ok;
}

/*
 * Format 4: the groups @event's samples need of a record (upstream's
 * choice): none for an exact IP and time alone; the registers for
 * precise_ip 1's next IP as for registers asked for.
 */
static u64 pebs_groups(const struct perf_event *event)
{
	const struct perf_event_attr *attr = &event->attr;
	u64 st = attr->sample_type, groups = 0;

	if (!(st & ~(PERF_SAMPLE_IP | PERF_SAMPLE_TIME)) && attr->precise_ip > 1)
		return 0;
	if (st & PEBS_MEM_SAMPLE)
		groups |= PEBS_DATACFG_MEMINFO;
	if (attr->precise_ip < 2 ||
	    ((st & PERF_SAMPLE_REGS_INTR) && (attr->sample_regs_intr & PEBS_REGS)) ||
	    ((st & PERF_SAMPLE_REGS_USER) && (attr->sample_regs_user & PEBS_REGS)))
		groups |= PEBS_DATACFG_GP;
	if ((st & PERF_SAMPLE_REGS_INTR) &&
	    (attr->sample_regs_intr & PERF_REG_EXTENDED_MASK))
		groups |= PEBS_DATACFG_XMMS;
	if ((st & PERF_SAMPLE_BRANCH_STACK) && pebs_lbr_nr)
		groups |= PEBS_DATACFG_LBRS |
			  (u64)(pebs_lbr_nr - 1) << PEBS_DATACFG_LBR_SHIFT;
	return groups;
}

/**
 * intel_pebs_config - make a precise event of @event (attr.precise_ip)
 * @event: an event being made, its hw.config set
 *
 * Reserves the buffers at the first one.  On Skylake, cycles take their
 * precise form and edges, inverses and thresholds are refused; from Ice
 * Lake the event asks for adaptive records.  On Golden Cove precise_ip
 * 3 wants a fixed period of X86_PDIST_MIN_PERIOD or more (in frequency
 * mode the x86 layer lengthens shorter ones).  The event stops
 * interrupting on its overflow, and its kind of memory access, if any,
 * is noted for the data source.
 *
 * Return: 0, -EINVAL for too short a period, or -ENOMEM when the
 * buffers cannot be had.
 */
int intel_pebs_config(const struct x86_vendor *v, struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;
	u64 code = hwc->config & X86_RAW_EVENT_MASK;
	int err;

	if (!event->attr.precise_ip)
		return 0;
	if (pebs_split && event->attr.precise_ip == 3) {
		if (!event->attr.freq &&
		    event->attr.sample_period < X86_PDIST_MIN_PERIOD)
			return -EINVAL;
		hwc->flags |= X86_EVENT_PDIST;
	}
	err = pebs_reserve();
	if (err)
		return err;
	if (pebs_format >= PEBS_FORMAT_ICL) {
		hwc->config |= ICL_EVENTSEL_ADAPTIVE;
		goto precise;
	}
	if (code == PEBS_CYCLES) {
		code = event->attr.precise_ip == 3 ? PEBS_CYCLES_PDIST
						   : PEBS_CYCLES_ALL;
		hwc->config = (hwc->config & ~X86_RAW_EVENT_MASK) | code;
	}
	/* Edge, inverse, threshold: only the forms that count cycles. */
	if ((code & X86_ALL_EVENT_FLAGS) && code != PEBS_CYCLES_ALL &&
	    code != PEBS_CYCLES_PDIST)
		return -EINVAL;
precise:
	hwc->config &= ~ARCH_PERFMON_EVENTSEL_INT;
	hwc->flags |= X86_EVENT_PRECISE | pebs_mem_kind(code, pebs_core_of(v));
	/*
	 * A fixed period: the CPU reloads the counter.  Unless a wakeup
	 * comes every so many samples (they must be seen as they come).
	 */
	if (!event->attr.freq &&
	    !(event->attr.wakeup_events && !event->attr.watermark)) {
		hwc->flags |= X86_EVENT_RELOAD;
		if (!(event->attr.sample_type & ~pebs_large_sample(event)))
			hwc->flags |= X86_EVENT_PRECISE_LARGE;
	}
	return 0;
}

/*
 * The counters of a precise event (x86_vendor.precise_constraint), as
 * upstream's PEBS table for Skylake says: INST_RETIRED.PREC_DIST,
 * whatever its threshold, on counter 1, any other on the first four.
 */
static u64 intel_pebs_constraint(const struct x86_vendor *v,
				 const struct perf_event *event)
{
	return (event->hw.config & 0xffff) == PEBS_PREC_DIST ? BIT_ULL(1) :
							       PEBS_SKL_COUNTERS;
}

/*
 * The same from Ice Lake, as upstream's table and its fallback to the
 * event's own rules say: INST_RETIRED.PREC_DIST (and its new encoding
 * 0x0100) on fixed counter 0, the memory events on the first four
 * general counters, any other where it counts.
 */
static u64 intel_pebs_constraint_icl(const struct x86_vendor *v,
				     const struct perf_event *ev)
{
	u64 config = ev->hw.config, code = config & 0xffff;
	u32 event = config & 0xff;

	if (!(config & X86_ALL_EVENT_FLAGS)) {
		if (code == PEBS_PREC_DIST || code == 0x0100)
			return BIT_ULL(X86_ASSIGN_FIXED_BASE);
		if (event >= 0xd0 && event <= 0xd4)
			return GENMASK_ULL(3, 0);
	}
	return v->constraint(v, config);
}

/*
 * Golden Cove's, as upstream's table and its rules for precise_ip 3 say:
 * INST_RETIRED.PREC_DIST's 0x0100 on fixed counter 0 and the slots on
 * fixed counter 3; INST_RETIRED (0xc0) and the load latency event on
 * general counters 1 to 7, the store latency event on 0, the memory
 * events on 0 to 3; any other where it counts.  precise_ip 3 then keeps
 * general counter 0 (PDist) or nothing, but for instructions, which take
 * fixed counter 0.
 */
static u64 intel_pebs_constraint_glc(const struct x86_vendor *v,
				     const struct perf_event *ev)
{
	u64 config = ev->hw.config, code = config & 0xffff, mask;
	u32 event = config & 0xff;
	bool ppp = ev->attr.precise_ip == 3;

	if (ppp && (config & X86_RAW_EVENT_MASK) == PEBS_INSTRUCTIONS)
		return BIT_ULL(X86_ASSIGN_FIXED_BASE);
	if (config & X86_ALL_EVENT_FLAGS)
		mask = v->constraint(v, config);
	else if (code == 0x0100)
		mask = BIT_ULL(X86_ASSIGN_FIXED_BASE);
	else if (code == 0x0400)
		mask = BIT_ULL(X86_ASSIGN_FIXED_BASE + 3);
	else if (event == 0xc0 || code == PEBS_LOAD_LATENCY)
		mask = GENMASK_ULL(7, 1);
	else if (code == PEBS_STORE_LATENCY)
		mask = BIT_ULL(0);
	else if (event >= 0xd0 && event <= 0xd4)
		mask = GENMASK_ULL(3, 0);
	else
		mask = v->constraint(v, config);
	return ppp ? mask & BIT_ULL(0) : mask;
}

/*
 * Gracemont's, as upstream's table and its rules for precise_ip 3 say:
 * the load latency event on general counters 0 and 1, the store latency
 * event on 0 to 5; any other where it counts.  precise_ip 3 is reduced
 * skid: general counter 0, and fixed counter 0 for instructions.
 */
static u64 intel_pebs_constraint_grt(const struct x86_vendor *v,
				     const struct perf_event *ev)
{
	u64 config = ev->hw.config, code = config & X86_RAW_EVENT_MASK;

	if (ev->attr.precise_ip == 3)
		return BIT_ULL(0) | (code == PEBS_INSTRUCTIONS ?
				     BIT_ULL(X86_ASSIGN_FIXED_BASE) : 0);
	if (code == PEBS_GRT_LOAD_LATENCY)
		return GENMASK_ULL(1, 0);
	if (code == PEBS_GRT_STORE_LATENCY)
		return GENMASK_ULL(5, 0);
	return v->constraint(v, config);
}

/* The debug store's slot of counter @idx's reset value. */
static int pebs_reset_slot(int idx)
{
	if (idx < X86_ASSIGN_FIXED_BASE)
		return idx;
	return (pebs_format >= PEBS_FORMAT_SPR ? PEBS_RESET_FIXED_SPR :
						 PEBS_RESET_FIXED) +
	       idx - X86_ASSIGN_FIXED_BASE;
}

/**
 * intel_pebs_enable - turn PEBS on for a precise event's counter
 * @event: the event, its counter assigned
 *
 * Before its counter starts.  The reset value is 0: the PMI that the
 * record raises starts the next period.  Format 4: the groups the CPU's
 * precise events need are selected first.
 */
void intel_pebs_enable(struct perf_event *event)
{
	struct debug_store *ds = this_cpu_ptr(&cpu_debug_store);
	struct pebs_cpu *pc = this_cpu_ptr(&pebs_cpu);
	struct hw_perf_event *hwc = &event->hw;
	int idx = hwc->idx, slot = pebs_reset_slot(idx);

	if (pebs_format >= PEBS_FORMAT_ICL && pc->groups != pc->written) {
		wrmsrl(MSR_PEBS_DATA_CFG, pc->groups);
		pc->written = pc->groups;
	}
	ds->pebs_event_reset[slot] = 0;
	if (hwc->flags & X86_EVENT_RELOAD)
		ds->pebs_event_reset[slot] = -hwc->sample_period & pebs_width_mask;
	pc->on |= BIT_ULL(idx);
	if ((hwc->flags & X86_EVENT_PRECISE_LAT) && pebs_format < PEBS_FORMAT_ICL)
		pc->latency |= BIT_ULL(idx);
	wrmsrl(MSR_IA32_PEBS_ENABLE, pc->on | pc->latency << 32);
}

/**
 * intel_pebs_disable - turn PEBS off for a precise event's counter
 * @event: the event, its counter stopped
 */
void intel_pebs_disable(struct perf_event *event)
{
	struct pebs_cpu *pc = this_cpu_ptr(&pebs_cpu);

	/* Its records first, while it still runs. */
	if (pc->n_large)
		intel_pebs_drain(NULL);
	pc->on &= ~BIT_ULL(event->hw.idx);
	pc->latency &= ~BIT_ULL(event->hw.idx);
	wrmsrl(MSR_IA32_PEBS_ENABLE, pc->on | pc->latency << 32);
}

/*
 * The interrupt threshold: the buffer's end, less a record per counter,
 * when every precise event on the CPU takes large PEBS; else one record.
 */
static void pebs_threshold(struct pebs_cpu *pc)
{
	struct debug_store *ds = this_cpu_ptr(&cpu_debug_store);
	size_t size = pebs_record_size(pc->groups);

	if (pc->n && pc->n == pc->n_large)
		ds->pebs_interrupt_threshold = ds->pebs_absolute_maximum -
			hweight64(pebs_counters_all) * size;
	else
		ds->pebs_interrupt_threshold = ds->pebs_buffer_base + size;
}

/* A precise event comes (@add) or goes: the threshold, sched_task. */
static void pebs_account(struct perf_event *event, bool add)
{
	struct pebs_cpu *pc = this_cpu_ptr(&pebs_cpu);
	int d = add ? 1 : -1;
	bool cb;

	pc->n += d;
	if (event->hw.flags & X86_EVENT_PRECISE_LARGE)
		pc->n_large += d;
	/* The groups grow with each event, and start anew with the first. */
	if (add && pebs_format >= PEBS_FORMAT_ICL)
		pc->groups = (pc->n == 1 ? 0 : pc->groups) | pebs_groups(event);
	pebs_threshold(pc);
	cb = pc->n && pc->n == pc->n_large;
	if (cb == pc->cb)
		return;
	pc->cb = cb;
	if (cb) {
		pc->pmu = event->pmu;
		perf_sched_cb_inc(pc->pmu);
	} else {
		perf_sched_cb_dec(pc->pmu);
	}
}

/**
 * intel_pebs_add - a precise event is added to this CPU
 * @event: the event
 */
void intel_pebs_add(struct perf_event *event)
{
	pebs_account(event, true);
}

/**
 * intel_pebs_del - a precise event leaves this CPU
 * @event: the event, stopped (its records drained)
 */
void intel_pebs_del(struct perf_event *event)
{
	pebs_account(event, false);
}

/*
 * x86_vendor.sched_task: a task leaves; the records so far are its own.
 * Then the LBR's, where there is one.
 */
static void intel_pebs_sched_task(struct perf_event_pmu_context *epc,
				  struct task_struct *task, bool sched_in)
{
	if (!sched_in && this_cpu_read(pebs_cpu.n_large))
		intel_pebs_drain(NULL);
	if (pebs_next_sched_task)
		pebs_next_sched_task(epc, task, sched_in);
}

/**
 * intel_pebs_counters - this CPU's counters with PEBS on
 *
 * Return: their GLOBAL_STATUS bits.
 */
u64 intel_pebs_counters(void)
{
	return this_cpu_read(pebs_cpu.on);
}

/**
 * intel_pebs_cpu_starting - point a CPU coming up at its debug store
 */
void intel_pebs_cpu_starting(void)
{
	if (!pebs_present)
		return;
	this_cpu_write(pebs_cpu.on, 0);
	this_cpu_write(pebs_cpu.latency, 0);
	wrmsrl(MSR_IA32_PEBS_ENABLE, 0);
	if (pebs_format >= PEBS_FORMAT_ICL) {
		this_cpu_write(pebs_cpu.written, 0);
		wrmsrl(MSR_PEBS_DATA_CFG, 0);
	}
	wrmsrl(MSR_IA32_DS_AREA, pebs_ds_area(smp_processor_id()));
}

/**
 * perf_restore_debug_store - point the CPU at its debug store again
 *
 * Called on resume from suspend, where IA32_DS_AREA comes back zeroed.
 */
void perf_restore_debug_store(void)
{
	if (pebs_present)
		wrmsrl(MSR_IA32_DS_AREA, pebs_ds_area(smp_processor_id()));
}

/*
 * A Gracemont latency event's data source, as upstream decodes it: its
 * table, the STLB and lock bits (upstream takes the lock bit for the
 * STLB's and the STLB's for the lock's, and so do we), a load blocked by
 * a store's data.
 */
static u64 pebs_lat_src_grt(const struct perf_event *event, u64 source)
{
	union perf_mem_data_src src;

	src.val = pebs_src_grt[source & PEBS_DSE_SOURCE];
	if (source & PEBS_DSE_LOCKED)
		src.mem_dtlb = PERF_MEM_TLB_MISS | PERF_MEM_TLB_L2;
	else
		src.mem_dtlb = PERF_MEM_TLB_HIT | PERF_MEM_TLB_L1 |
			       PERF_MEM_TLB_L2;
	if (source & PEBS_DSE_STLB_MISS)
		src.mem_lock = PERF_MEM_LOCK_LOCKED;
	src.mem_blk = (source & PEBS_DSE_DATA_BLK) ? PERF_MEM_BLK_DATA :
						     PERF_MEM_BLK_NA;
	if (event->hw.flags & X86_EVENT_PRECISE_STLAT)
		src.mem_op = PERF_MEM_OP_STORE;
	return src.val;
}

/*
 * A latency event's data source: where the data was (by the model's
 * table), the STLB, the lock; on Golden Cove, what blocked a load.
 */
static u64 pebs_lat_src(const struct perf_event *event, u64 source)
{
	union perf_mem_data_src src;

	if (event->hw.flags & X86_EVENT_PRECISE_GRT)
		return pebs_lat_src_grt(event, source);
	src.val = pebs_src[source & PEBS_DSE_SOURCE];
	if (pebs_src_pmem && (source & 0xe) == 0x8)
		src.mem_lvl_num = PERF_MEM_LVLNUM_PMEM;
	if (source & PEBS_DSE_STLB_MISS)
		src.mem_dtlb = PERF_MEM_TLB_MISS | PERF_MEM_TLB_L2;
	else
		src.mem_dtlb = PERF_MEM_TLB_HIT | PERF_MEM_TLB_L1 |
			       PERF_MEM_TLB_L2;
	if (source & PEBS_DSE_LOCKED)
		src.mem_lock = PERF_MEM_LOCK_LOCKED;
	/* Stores, and loads before Golden Cove, say nothing of blocking. */
	src.mem_blk = PERF_MEM_BLK_NA;
	if (event->hw.flags & X86_EVENT_PRECISE_STLAT) {
		src.mem_op = PERF_MEM_OP_STORE;
	} else if (pebs_split && (source & (PEBS_DSE_DATA_BLK | PEBS_DSE_ADDR_BLK))) {
		src.mem_blk = 0;
		if (source & PEBS_DSE_DATA_BLK)
			src.mem_blk |= PERF_MEM_BLK_DATA;
		if (source & PEBS_DSE_ADDR_BLK)
			src.mem_blk |= PERF_MEM_BLK_ADDR;
	}
	return src.val;
}

/* A sample's data source: a store's L1 hit or miss, a load's kind. */
static u64 pebs_data_src(const struct perf_event *event, u64 source)
{
	union perf_mem_data_src src = { .val = PERF_MEM_NA };

	if (event->hw.flags & (X86_EVENT_PRECISE_LAT | X86_EVENT_PRECISE_STLAT))
		return pebs_lat_src(event, source);
	if (event->hw.flags & X86_EVENT_PRECISE_ST) {
		src.mem_op = PERF_MEM_OP_STORE;
		src.mem_lvl = PERF_MEM_LVL_L1 | ((source & PEBS_DSE_L1_HIT) ?
						 PERF_MEM_LVL_HIT : PERF_MEM_LVL_MISS);
	} else if (event->hw.flags & X86_EVENT_PRECISE_LD) {
		src.mem_op = PERF_MEM_OP_LOAD;
	}
	return src.val;
}

/* The sample's time from a record's TSC, where it is sched_clock()'s. */
static void pebs_time(struct perf_event *event, struct perf_sample_data *data,
		      u64 tsc)
{
	if ((event->attr.sample_type & PERF_SAMPLE_TIME) &&
	    !event->attr.use_clockid && using_native_sched_clock() &&
	    sched_clock_stable()) {
		data->time = native_sched_clock_from_tsc(tsc) +
			     __sched_clock_offset;
		data->sample_flags |= PERF_SAMPLE_TIME;
	}
}

/*
 * The sample's weight from a record's @latency: the whole of it (format
 * 3's load latency, format 4's memory group field) for
 * PERF_SAMPLE_WEIGHT and its low half for the weight's var1_dw; on
 * Golden Cove the cache access's latency, with the instruction's in
 * var2_w of PERF_SAMPLE_WEIGHT_STRUCT, as upstream.
 */
static void pebs_weight(struct perf_event *event, struct perf_sample_data *data,
			u64 latency)
{
	u64 st = event->attr.sample_type, instr = 0;

	if (!(st & PERF_SAMPLE_WEIGHT_TYPE))
		return;
	if (pebs_split) {
		instr = PEBS_INSTR_LATENCY(latency);
		latency = PEBS_CACHE_LATENCY(latency);
	}
	data->weight.full = 0;
	if (st & PERF_SAMPLE_WEIGHT) {
		data->weight.full = latency;
	} else {
		data->weight.var1_dw = (u32)latency;
		data->weight.var2_w = instr;
	}
	data->sample_flags |= PERF_SAMPLE_WEIGHT_TYPE;
}

/*
 * A memory event's data address and source, and a latency as the
 * sample's weight (format 3: a load latency event's), as the sample
 * asks.
 */
static void pebs_mem(struct perf_event *event, struct perf_sample_data *data,
		     u64 addr, u64 source, u64 latency, bool weighs)
{
	u64 st = event->attr.sample_type;

	if (weighs)
		pebs_weight(event, data, latency);

	if (st & (PERF_SAMPLE_ADDR | PERF_SAMPLE_PHYS_ADDR |
		  PERF_SAMPLE_DATA_PAGE_SIZE)) {
		data->addr = addr;
		data->sample_flags |= PERF_SAMPLE_ADDR;
	}
	if (st & PERF_SAMPLE_DATA_SRC) {
		data->data_src.val = pebs_data_src(event, source);
		data->sample_flags |= PERF_SAMPLE_DATA_SRC;
	}
}

/* The sample's IP: the eventing one, exact, for precise_ip 2 and 3. */
static void pebs_ip(struct pt_regs *regs, unsigned long ip, u64 flags,
		    bool exact)
{
	regs->flags = (flags & ~PERF_EFLAGS_EXACT) | (exact ? PERF_EFLAGS_EXACT : 0);
	regs->ip = ip;
	regs->cs = x86_kernel_ip(ip) ? __KERNEL_CS : __USER_CS;
}

#define PEBS_PT(r)	offsetof(struct pt_regs, r)

/* Where RAX and the seven after it go in struct pt_regs, per format. */
static const u16 pebs_rec_regs[] = {
	PEBS_PT(ax), PEBS_PT(bx), PEBS_PT(cx), PEBS_PT(dx),
	PEBS_PT(si), PEBS_PT(di), PEBS_PT(bp), PEBS_PT(sp),
};

static const u16 pebs_gprs_regs[] = {
	PEBS_PT(ax), PEBS_PT(cx), PEBS_PT(dx), PEBS_PT(bx),
	PEBS_PT(sp), PEBS_PT(bp), PEBS_PT(si), PEBS_PT(di),
};

#ifdef CONFIG_X86_64
/* R8 to R15, which follow them in both formats. */
static const u16 pebs_hi_regs[] = {
	PEBS_PT(r8), PEBS_PT(r9), PEBS_PT(r10), PEBS_PT(r11),
	PEBS_PT(r12), PEBS_PT(r13), PEBS_PT(r14), PEBS_PT(r15),
};
#endif

/*
 * The sample's general registers from a record's, RAX at @ax and the
 * others after it, in the order @low gives.
 */
static void pebs_regs(struct pt_regs *regs, const u64 *ax, const u16 *low)
{
	int i;

	for (i = 0; i < 8; i++)
		*(unsigned long *)((void *)regs + low[i]) = ax[i];
#ifdef CONFIG_X86_64
	for (i = 0; i < ARRAY_SIZE(pebs_hi_regs); i++)
		*(unsigned long *)((void *)regs + pebs_hi_regs[i]) = ax[8 + i];
#endif
}

/* What a format 3 record makes of @event's sample (x86_record_fill_t). */
static void pebs_fill(struct perf_event *event, struct perf_sample_data *data,
		      struct pt_regs *regs, const struct pt_regs *iregs,
		      const void *p)
{
	const struct pebs_rec *r = p;
	u64 st = event->attr.sample_type;
	bool exact = event->attr.precise_ip > 1;

	pebs_ip(regs, exact ? r->event_ip : r->ip, r->flags, exact);
	if (st & (PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_REGS_USER))
		pebs_regs(regs, &r->ax, pebs_rec_regs);
	pebs_mem(event, data, r->addr, r->source, r->latency,
		 event->hw.flags & X86_EVENT_PRECISE_LAT);
	/* The callchain of the interrupted context, as upstream's. */
	if (st & PERF_SAMPLE_CALLCHAIN)
		perf_sample_save_callchain(data, event, (struct pt_regs *)iregs);
	pebs_time(event, data, r->tsc);
}

/*
 * What a format 4 record makes of @event's sample: its groups in their
 * order, the XMM registers through the struct x86_perf_regs @regs is
 * in, the branch stack from its LBR records.
 */
static void pebs_fill_icl(struct perf_event *event,
			  struct perf_sample_data *data, struct pt_regs *regs,
			  const struct pt_regs *iregs, const void *p)
{
	const struct pebs_basic *b = p;
	u64 groups = b->format_group, st = event->attr.sample_type;
	const struct pebs_meminfo *mem = NULL;
	const struct pebs_gprs *g = NULL;
	const void *next = b + 1;
	bool exact = event->attr.precise_ip > 1;

	if (groups & PEBS_DATACFG_MEMINFO) {
		mem = next;
		next = mem + 1;
	}
	if (groups & PEBS_DATACFG_GP) {
		g = next;
		next = g + 1;
	}
	/* precise_ip 1's next IP is in the registers, which it asks for. */
	if (!exact && g)
		pebs_ip(regs, g->ip, g->flags, false);
	else
		pebs_ip(regs, b->ip, g ? g->flags : regs->flags, true);
	if (g && (st & (PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_REGS_USER)))
		pebs_regs(regs, &g->ax, pebs_gprs_regs);
	if (mem)
		pebs_mem(event, data, mem->address, mem->aux, mem->mem_latency,
			 true);
	if (groups & PEBS_DATACFG_XMMS) {
		const struct pebs_xmm *x = next;

		container_of(regs, struct x86_perf_regs, regs)->xmm_regs =
			(u64 *)x->xmm;
		next = x + 1;
	}
	if ((groups & PEBS_DATACFG_LBRS) && has_branch_stack(event))
		intel_lbr_sample_records(event, data, next,
					 ((groups >> PEBS_DATACFG_LBR_SHIFT) & 0xff) + 1);
	if (st & PERF_SAMPLE_CALLCHAIN)
		perf_sample_save_callchain(data, event, (struct pt_regs *)iregs);
	pebs_time(event, data, b->tsc);
}

/* The record after @p, before @end; NULL when none fits. */
static const void *pebs_next(const void *p, const void *end)
{
	const struct pebs_basic *b = p;
	size_t left = end - p, size;

	if (pebs_format < PEBS_FORMAT_ICL)
		return left >= sizeof(struct pebs_rec) ?
		       p + sizeof(struct pebs_rec) : NULL;
	if (left < sizeof(*b))
		return NULL;
	size = b->format_size;
	return size >= sizeof(*b) && size <= left ? p + size : NULL;
}

/* The counters record @p is for, of those with PEBS on. */
static u64 pebs_rec_counters(const void *p, u64 on)
{
	if (pebs_format < PEBS_FORMAT_ICL)
		return ((const struct pebs_rec *)p)->counters & on;
	return ((const struct pebs_basic *)p)->applicable_counters & on;
}

/*
 * The drain: each record is a sample of the events of the counters it
 * names that have PEBS on; the buffer is then empty again.  The counts
 * of reloading events are folded first, for all their records.  With
 * the counters stopped: in the PMI (@iregs), or as an event stops or is
 * read, or a task leaves (@iregs NULL: no interrupted context).
 */
static void intel_pebs_drain(struct pt_regs *iregs)
{
	struct debug_store *ds = this_cpu_ptr(&cpu_debug_store);
	struct pebs_cpu *pc = this_cpu_ptr(&pebs_cpu);
	x86_record_fill_t fill = pebs_format < PEBS_FORMAT_ICL ? pebs_fill :
								  pebs_fill_icl;
	u32 records[X86_ASSIGN_FIXED_BASE + INTEL_PMC_MAX_FIXED] = { 0 };
	const void *first, *end, *r, *next;
	struct pt_regs none;
	bool in_pmi = iregs;
	u64 which;
	int idx;

	if (pc->draining || !ds->pebs_buffer_base ||
	    ds->pebs_index == ds->pebs_buffer_base)
		return;
	pc->draining = true;
	if (!iregs) {
		memset(&none, 0, sizeof(none));
		iregs = &none;
	}
	first = (const void *)(unsigned long)ds->pebs_buffer_base;
	end = (const void *)(unsigned long)ds->pebs_index;
	ds->pebs_index = ds->pebs_buffer_base;
	for (r = first; (next = pebs_next(r, end)); r = next)
		for (which = pebs_rec_counters(r, pc->on); which; which &= which - 1)
			records[__ffs64(which)]++;
	for (which = pc->on; which; which &= which - 1) {
		idx = __ffs64(which);
		if (records[idx])
			x86_pmu_reload_fold(idx, records[idx]);
	}
	/* An event's last record in the PMI is its overflow. */
	for (r = first; (next = pebs_next(r, end)); r = next) {
		for (which = pebs_rec_counters(r, pc->on); which; which &= which - 1) {
			idx = __ffs64(which);
			x86_pmu_record(idx, iregs, fill, r, in_pmi && !--records[idx]);
		}
	}
	pc->draining = false;
}

NOKPROBE_SYMBOL(intel_pebs_drain);

/*
 * The events/ files upstream adds where there is PEBS: the perf tool's
 * mem-loads (MEM_TRANS_RETIRED.LOAD_LATENCY, which needs the load
 * latency register) and mem-stores (MEM_INST_RETIRED.ALL_STORES).
 */
X86_EVENT_STR(pebs_mem_loads, "mem-loads", "event=0xcd,umask=0x1,ldlat=3");
X86_EVENT_STR(pebs_mem_stores, "mem-stores", "event=0xd0,umask=0x82");
/* Golden Cove's mem-stores is its store latency event. */
X86_EVENT_STR(pebs_mem_stores_glc, "mem-stores", "event=0xcd,umask=0x2");

static struct attribute *pebs_events[] __initdata = {
	&pebs_mem_loads.attr.attr,
	&pebs_mem_stores.attr.attr,
	NULL,
};

static struct attribute *pebs_events_glc[] __initdata = {
	&pebs_mem_loads.attr.attr,
	&pebs_mem_stores_glc.attr.attr,
	NULL,
};

/**
 * intel_pebs_events - the events/ files of a core with PEBS
 * @m: the model's tables (not a hybrid one's: its files have them)
 *
 * Return: a NULL-terminated list, for a description whose max_precise
 * intel_pebs_probe() set.
 */
struct attribute ** __init intel_pebs_events(const struct intel_model *m)
{
	return intel_model_glc_pebs(m) ? pebs_events_glc : pebs_events;
}

/**
 * intel_pebs_probe - find the model's PEBS
 * @m: the model's tables
 * @caps: IA32_PERF_CAPABILITIES
 * @gp: the general counters, on which PEBS works
 * @v: the description of the core's counters (its counters and LBR
 *	probed): the precise hooks are filled in when there is PEBS this
 *	driver reads
 *
 * Return: the highest precise_ip, 0 when there is no such PEBS.
 */
int __init intel_pebs_probe(const struct intel_model *m, u64 caps, u64 gp,
			    struct x86_vendor *v)
{
	int precise = intel_model_precise(m), format = PEBS_CAP_FORMAT(caps);
	enum pebs_core core;
	u64 counters;

	if (!precise || !boot_cpu_has(X86_FEATURE_PEBS) ||
	    !boot_cpu_has(X86_FEATURE_DTES64) || !(caps & PEBS_CAP_TRAP) ||
	    pebs_ntypes == ARRAY_SIZE(pebs_types))
		return 0;
	if (format == PEBS_FORMAT_SKL) {
		counters = gp & PEBS_SKL_COUNTERS;
		core = PEBS_CORE_SKL;
		v->precise_constraint = intel_pebs_constraint;
	} else if (format >= PEBS_FORMAT_ICL && format <= PEBS_FORMAT_LAST &&
		   (caps & PEBS_CAP_BASELINE)) {
		/* Every counter but fixed counter 3's topdown slots. */
		counters = gp | (v->counters & X86_FIXED_MASK &
			GENMASK_ULL(X86_ASSIGN_FIXED_BASE + 2, X86_ASSIGN_FIXED_BASE));
		core = intel_model_glc_pebs(m) ? PEBS_CORE_GLC :
		       intel_model_grt_pebs(m) ? PEBS_CORE_GRT : PEBS_CORE_ICL;
		v->precise_constraint = core == PEBS_CORE_GLC ? intel_pebs_constraint_glc :
					core == PEBS_CORE_GRT ? intel_pebs_constraint_grt :
								intel_pebs_constraint_icl;
		v->extended_regs = true;
		pebs_lbr_nr = v->branches;
	} else {
		return 0;
	}
	pebs_types[pebs_ntypes].core_type = v->core_type;
	pebs_types[pebs_ntypes++].core = core;
	pebs_split |= core == PEBS_CORE_GLC || core == PEBS_CORE_GRT;
	/* The threshold leaves room for a record per counter of either type. */
	pebs_counters_all |= counters;
	pebs_format = format;
	pebs_present = true;
	pebs_ldlat = intel_rsp_ldlat_probe();
	pebs_src_pmem = boot_cpu_data.x86_vfm == INTEL_SKYLAKE_X ||
			boot_cpu_data.x86_vfm == INTEL_ICELAKE_X ||
			boot_cpu_data.x86_vfm == INTEL_ICELAKE_D ||
			boot_cpu_data.x86_vfm == INTEL_SAPPHIRERAPIDS_X ||
			boot_cpu_data.x86_vfm == INTEL_EMERALDRAPIDS_X;
	pebs_width_mask = GENMASK_ULL(v->width - 1, 0);
	pebs_next_sched_task = v->sched_task;
	v->sched_task = intel_pebs_sched_task;
	v->max_precise = precise;
	v->precise_counters = counters;
	v->drain = intel_pebs_drain;
	return precise;
}
