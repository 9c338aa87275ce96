// SPDX-License-Identifier: GPL-2.0-only
/*
 * AMD's core performance counters, family 17h (Zen) and later: six
 * counters at MSR_F15H_PERF_CTL/CTR (PerfCtrExtCore), or the four K7
 * counters (PERF_CTL0-3, PERF_CTR0-3) when the CPU lacks the extension;
 * with PerfMonV2, the count CPUID 0x80000022 gives and the global
 * control, status and status-clear registers.  48-bit counters, a 12-bit
 * event select (bits 7:0 and 35:32), no fixed counters.  The generic
 * and cache events of family 17h and later; with the extension,
 * large-increment events take a pair of counters.
 *
 * Without PerfMonV2 there is no global gate and no overflow status: the
 * PMU is switched off by clearing each started counter's enable bit
 * (their controls are cached per CPU for that), and a counter has
 * overflowed when its top bit is clear (it starts at -left).
 *
 * An AMD PMI may arrive late, after software has stopped the counter
 * whose overflow sent it: the PMI then finds nothing, and the sample is
 * lost (the count is not).  So, outside an NMI, switching the PMU off
 * waits for the PMI of any counter that has overflowed, 50 us at most,
 * as upstream does.  The core stops a single counter only with the PMU
 * off (perf_pmu_disable()), so that wait covers those stops too.
 *
 * With PerfMonV2, Zen 4 and later may have LBR v2 (amd_lbr.c): branch
 * stacks, recording while the PMU is on.
 *
 * Guests: an event that excludes the host counts with the guest-only
 * bit, one that excludes the guest with the host-only bit.  The
 * host-only bit only means something while SVM is on (the counter may
 * not count at all otherwise), so it is held back until a hypervisor
 * says SVM is on for this CPU (amd_pmu_enable_virt()).
 *
 * Locking: the hooks run on the counters' CPU with interrupts off, or in
 * the PMI there; the per-CPU cache is touched nowhere else.  The
 * description is filled once at boot.
 */
#include <linux/delay.h>
#include <linux/hardirq.h>
#include <linux/init.h>
#include <linux/perf_event.h>

#include <asm/msr.h>
#include <asm/perf_event.h>

#include "amd_lbr.h"
#include "x86_pmu.h"

#define AMD_WIDTH	48
#define AMD_TOP_BIT	BIT_ULL(AMD_WIDTH - 1)

/*
 * The generic events of family 17h and later, by generation: Zen 1, Zen
 * 2 and 3, Zen 4 and later (0: none).  The encodings are 12-bit event
 * selects with bits 11:8 at 35:32, and the unit mask.
 */
enum { ZEN1, ZEN2, ZEN4, ZEN_GENERATIONS };

struct zen_event {
	u8 id;
	u64 config[ZEN_GENERATIONS];
};

static const struct zen_event zen_events[] __initconst = {
	{ PERF_COUNT_HW_CPU_CYCLES,		{ 0x76, 0x76, 0x76 } },
	{ PERF_COUNT_HW_INSTRUCTIONS,		{ 0xc0, 0xc0, 0xc0 } },
	{ PERF_COUNT_HW_CACHE_REFERENCES,	{ 0xff60, 0xff60, 0xff60 } },
	{ PERF_COUNT_HW_CACHE_MISSES,		{ 0x0964, 0x0964, 0x0964 } },
	{ PERF_COUNT_HW_BRANCH_INSTRUCTIONS,	{ 0xc2, 0xc2, 0xc2 } },
	{ PERF_COUNT_HW_BRANCH_MISSES,		{ 0xc3, 0xc3, 0xc3 } },
	/* Stall events changed with Zen 2; the back-end one went. */
	{ PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, { 0x0287, 0xa9, 0xa9 } },
	{ PERF_COUNT_HW_STALLED_CYCLES_BACKEND,	{ 0x0187, 0, 0 } },
	/* Cycles not in halt at P0 frequency, from Zen 4. */
	{ PERF_COUNT_HW_REF_CPU_CYCLES,		{ 0, 0, 0x100000120 } },
};

/*
 * PERF_TYPE_HW_CACHE from family 17h: the (cache, operation, result)
 * triples that have an event; every other triple has none (ENOENT),
 * except the operations a cache cannot see at all (EINVAL, below).
 */
#define CACHE_ID(c, o, r)	(PERF_COUNT_HW_CACHE_##c |		\
				 PERF_COUNT_HW_CACHE_OP_##o << 8 |	\
				 PERF_COUNT_HW_CACHE_RESULT_##r << 16)

static const struct {
	u32 id;
	u16 config;
} zen_cache_events[] = {
	{ CACHE_ID(L1D, READ, ACCESS),		0x0040 },	/* data cache accesses */
	{ CACHE_ID(L1D, READ, MISS),		0xc860 },	/* L2 accesses from DC misses */
	{ CACHE_ID(L1D, PREFETCH, ACCESS),	0xff5a },	/* DC fills by hardware prefetch */
	{ CACHE_ID(L1I, READ, ACCESS),		0x0080 },	/* instruction cache fetches */
	{ CACHE_ID(L1I, READ, MISS),		0x0081 },	/* instruction cache misses */
	{ CACHE_ID(DTLB, READ, ACCESS),		0xff45 },	/* L2 DTLB accesses */
	{ CACHE_ID(DTLB, READ, MISS),		0xf045 },	/* L2 DTLB misses: table walks */
	{ CACHE_ID(ITLB, READ, ACCESS),		0x0084 },	/* L1 ITLB misses that hit L2 */
	{ CACHE_ID(ITLB, READ, MISS),		0xff85 },	/* L1 and L2 ITLB misses */
	{ CACHE_ID(BPU, READ, ACCESS),		0x00c2 },	/* retired branches */
	{ CACHE_ID(BPU, READ, MISS),		0x00c3 },	/* retired mispredicted branches */
};

#define OP(o)	BIT(PERF_COUNT_HW_CACHE_OP_##o)

/* The operations each cache cannot see: instructions are not written. */
static const u8 zen_cache_impossible[PERF_COUNT_HW_CACHE_MAX] = {
	[PERF_COUNT_HW_CACHE_L1I]	= OP(WRITE),
	[PERF_COUNT_HW_CACHE_ITLB]	= OP(WRITE) | OP(PREFETCH),
	[PERF_COUNT_HW_CACHE_BPU]	= OP(WRITE) | OP(PREFETCH),
	[PERF_COUNT_HW_CACHE_NODE]	= OP(WRITE) | OP(PREFETCH),
};

/*
 * Large-increment events (family 17h and later, with PerfCtrExtCore):
 * their count may grow by more than one a cycle, so each takes an even
 * counter and merges the odd one after it into its count.
 */
#define AMD_PAIR_EVENT		0x003		/* retired SSE/AVX FLOPs */
#define AMD_MERGE_CTL		(0xf000000ffULL | ARCH_PERFMON_EVENTSEL_ENABLE)

static u64 amd_events[PERF_COUNT_HW_MAX] __ro_after_init;
static u64 amd_counters __ro_after_init;
static u64 amd_pairs __ro_after_init;		/* even counters with a next one */
static u32 amd_ctl_base __ro_after_init;	/* PERF_CTL of counter 0 */
static u32 amd_ctr_base __ro_after_init;	/* PERF_CTR of counter 0 */
static int amd_stride __ro_after_init;		/* MSRs from one counter to the next */
static bool amd_v2 __ro_after_init;

/**
 * struct amd_cpu - one CPU's counter controls
 * @ctl: each started counter's control (its event's hw.config)
 * @started: the counters started
 * @off: without PerfMonV2: the PMU is off (each enable bit clear)
 * @virt: SVM is on: the host-only bit may be written
 */
struct amd_cpu {
	u64 ctl[X86_ASSIGN_FIXED_BASE];
	u64 started;
	bool off;
	bool virt;
};

static DEFINE_PER_CPU(struct amd_cpu, amd_cpu);

static u32 amd_ctl(int idx)
{
	return amd_ctl_base + amd_stride * idx;
}

static u32 amd_ctr(int idx)
{
	return amd_ctr_base + amd_stride * idx;
}

/* Write counter @idx's control, enabled or not. */
static void amd_write_ctl(struct amd_cpu *a, int idx, bool enable)
{
	u64 ctl = a->ctl[idx];

	if (!a->virt)
		ctl &= ~AMD64_EVENTSEL_HOSTONLY;
	if (enable)
		ctl |= ARCH_PERFMON_EVENTSEL_ENABLE;
	wrmsrl(amd_ctl(idx), ctl);
}

static u64 amd_event_map(const struct x86_vendor *v, u64 id)
{
	return amd_events[id];
}

static u64 amd_cache_event(const struct x86_vendor *v, unsigned int cache,
			   unsigned int op, unsigned int result)
{
	u32 id = cache | op << 8 | result << 16;
	int i;

	if (zen_cache_impossible[cache] & BIT(op))
		return X86_CACHE_INVALID;
	for (i = 0; i < ARRAY_SIZE(zen_cache_events); i++)
		if (zen_cache_events[i].id == id)
			return zen_cache_events[i].config;
	return 0;
}

/* The 12-bit event select of @config (bits 7:0 and 35:32). */
static unsigned int amd_event_select(u64 config)
{
	return (config & 0xff) | ((config >> 24) & 0xf00);
}

static bool amd_is_pair(u64 config)
{
	return amd_pairs && amd_event_select(config) == AMD_PAIR_EVENT;
}

static u64 amd_constraint(const struct x86_vendor *v, u64 config)
{
	return amd_is_pair(config) ? amd_pairs : amd_counters;
}

/*
 * Excluding both host and guest counts nothing: both bits set would
 * count everywhere, so the privilege levels are cleared instead.
 */
static int amd_hw_config(const struct x86_vendor *v, struct perf_event *event)
{
	struct perf_event_attr *attr = &event->attr;

	if (attr->exclude_host && attr->exclude_guest)
		event->hw.config &= ~(ARCH_PERFMON_EVENTSEL_USR | ARCH_PERFMON_EVENTSEL_OS);
	else if (attr->exclude_host)
		event->hw.config |= AMD64_EVENTSEL_GUESTONLY;
	else if (attr->exclude_guest)
		event->hw.config |= AMD64_EVENTSEL_HOSTONLY;
	if (amd_is_pair(event->hw.config))
		event->hw.flags |= X86_EVENT_PAIR;
	return 0;
}

/*
 * The counters have no precise mode: IBS samples the precise events it
 * can (forward_event_to_ibs() sends them to ibs_op and refuses or passes
 * on the others, as upstream); without IBS they are refused
 * (max_precise 0, -EOPNOTSUPP).
 */
static int amd_forward(struct perf_event *event)
{
	return get_ibs_caps() ? forward_event_to_ibs(event) : 0;
}

/* Of @counters, those that overflowed and wait for their PMI. */
static u64 amd_overflowed(u64 counters)
{
	u64 status = 0, s, v;
	int idx;

	if (amd_v2) {
		rdmsrl(MSR_AMD64_PERF_CNTR_GLOBAL_STATUS, status);
		return status & counters;
	}
	/* A counter started at -left has wrapped when its top bit clears. */
	for (s = counters; s; s &= s - 1) {
		idx = __ffs64(s);
		rdpmcl(idx, v);
		if (!(v & AMD_TOP_BIT))
			status |= BIT_ULL(idx);
	}
	return status;
}

#define AMD_PMI_WAIT_US	50

/*
 * @counters are stopped: give the PMI their overflows are waiting for
 * the time to come (the PMI resets an overflowed counter to -left, or
 * clears its status bit).  In an NMI there is nothing to wait for: the
 * PMI is held until this NMI ends, and then finds nothing, which the
 * late-PMI window of the x86 layer claims.
 */
static void amd_wait_for_pmi(u64 counters)
{
	int i;

	if (!counters || in_nmi())
		return;
	for (i = 0; i < AMD_PMI_WAIT_US && amd_overflowed(counters); i++)
		udelay(1);
}

static void amd_enable_all(u64 counters)
{
	struct amd_cpu *a = this_cpu_ptr(&amd_cpu);
	u64 s;
	int idx;

	if (amd_v2) {
		amd_lbr_enable();
		wrmsrl(MSR_AMD64_PERF_CNTR_GLOBAL_CTL, amd_counters);
		return;
	}
	a->off = false;
	for (s = a->started; s; s &= s - 1) {
		idx = __ffs64(s);
		amd_write_ctl(a, idx, true);
	}
}

static void amd_disable_all(void)
{
	struct amd_cpu *a = this_cpu_ptr(&amd_cpu);
	u64 s;
	int idx;

	if (amd_v2) {
		wrmsrl(MSR_AMD64_PERF_CNTR_GLOBAL_CTL, 0);
		amd_lbr_disable();
	} else {
		a->off = true;
		for (s = a->started; s; s &= s - 1) {
			idx = __ffs64(s);
			amd_write_ctl(a, idx, false);
		}
	}
	amd_wait_for_pmi(a->started);
}

static void amd_enable(struct perf_event *event)
{
	struct amd_cpu *a = this_cpu_ptr(&amd_cpu);
	int idx = event->hw.idx;

	a->ctl[idx] = event->hw.config;
	a->started |= BIT_ULL(idx);
	if (event->hw.flags & X86_EVENT_PAIR)
		wrmsrl(amd_ctl(idx + 1), AMD_MERGE_CTL);
	/* Without a global gate, a switched-off PMU starts it later. */
	amd_write_ctl(a, idx, amd_v2 || !a->off);
}

static void amd_disable(struct perf_event *event)
{
	struct amd_cpu *a = this_cpu_ptr(&amd_cpu);
	int idx = event->hw.idx;

	a->started &= ~BIT_ULL(idx);
	amd_write_ctl(a, idx, false);
	if (event->hw.flags & X86_EVENT_PAIR)
		wrmsrl(amd_ctl(idx + 1), 0);
}

/* SVM goes on or off on this CPU: rewrite the started counters' controls. */
static void amd_set_virt(bool on)
{
	struct amd_cpu *a;
	unsigned long flags;
	u64 s;
	int idx;

	local_irq_save(flags);
	a = this_cpu_ptr(&amd_cpu);
	a->virt = on;
	for (s = a->started; s; s &= s - 1) {
		idx = __ffs64(s);
		amd_write_ctl(a, idx, amd_v2 || !a->off);
	}
	local_irq_restore(flags);
}

/**
 * amd_pmu_enable_virt - SVM is now on for this CPU
 *
 * Events that exclude the guest may count with the host-only bit from
 * now on.
 */
void amd_pmu_enable_virt(void)
{
	amd_set_virt(true);
}
EXPORT_SYMBOL_GPL(amd_pmu_enable_virt);

/**
 * amd_pmu_disable_virt - SVM is now off for this CPU
 *
 * Events that exclude the guest count without the host-only bit, which
 * could keep them from counting at all while SVM is off.
 */
void amd_pmu_disable_virt(void)
{
	amd_set_virt(false);
}
EXPORT_SYMBOL_GPL(amd_pmu_disable_virt);

static u64 amd_read(int idx)
{
	u64 v;

	rdpmcl(idx, v);
	return v;
}

static void amd_write(int idx, u64 val)
{
	wrmsrl(amd_ctr(idx), val & GENMASK_ULL(AMD_WIDTH - 1, 0));
}

static u64 amd_status(void)
{
	struct amd_cpu *a = this_cpu_ptr(&amd_cpu);

	return amd_overflowed(amd_v2 ? amd_counters : a->started);
}

static void amd_ack(u64 status)
{
	if (amd_v2)
		wrmsrl(MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_CLR, status);
}

PMU_FORMAT_ATTR(event, "config:0-7,32-35");
PMU_FORMAT_ATTR(umask, "config:8-15");
PMU_FORMAT_ATTR(edge, "config:18");
PMU_FORMAT_ATTR(inv, "config:23");
PMU_FORMAT_ATTR(cmask, "config:24-31");

static struct attribute *amd_format[] = {
	&format_attr_event.attr,
	&format_attr_umask.attr,
	&format_attr_edge.attr,
	&format_attr_inv.attr,
	&format_attr_cmask.attr,
	NULL,
};

/**
 * amd_core_probe - describe the CPU's core counters
 * @v: filled in on success
 *
 * Return: 0, or -ENODEV before family 17h or when the counters do not
 * answer (a hypervisor that reports none).
 */
int __init amd_core_probe(struct x86_vendor *v)
{
	int n = 4, gen, i;

	if (boot_cpu_data.x86 < 0x17)
		return -ENODEV;
	if (boot_cpu_has(X86_FEATURE_PERFCTR_CORE)) {
		amd_ctl_base = MSR_F15H_PERF_CTL;
		amd_ctr_base = MSR_F15H_PERF_CTR;
		amd_stride = 2;
		n = 6;
		if (boot_cpu_has(X86_FEATURE_PERFMON_V2)) {
			union cpuid_0x80000022_ebx ebx;

			ebx.full = cpuid_ebx(EXT_PERFMON_DEBUG_FEATURES);
			if (ebx.split.num_core_pmc)
				n = min_t(int, ebx.split.num_core_pmc, 16);
			amd_v2 = true;
		}
	} else {
		amd_ctl_base = MSR_K7_EVNTSEL0;
		amd_ctr_base = MSR_K7_PERFCTR0;
		amd_stride = 1;
	}
	if (!x86_counter_msr_works(amd_ctr(0)))
		return -ENODEV;

	gen = ZEN1;
	if (boot_cpu_has(X86_FEATURE_ZEN4) || boot_cpu_data.x86 >= 0x1a)
		gen = ZEN4;
	else if (boot_cpu_has(X86_FEATURE_ZEN2) || boot_cpu_data.x86 >= 0x19)
		gen = ZEN2;
	for (i = 0; i < ARRAY_SIZE(zen_events); i++)
		amd_events[zen_events[i].id] = zen_events[i].config[gen];
	amd_counters = GENMASK_ULL(n - 1, 0);
	/* Pairs need the extension; the K7 counters have none. */
	if (boot_cpu_has(X86_FEATURE_PERFCTR_CORE))
		amd_pairs = amd_counters & (amd_counters >> 1) & 0x5555555555555555ULL;

	v->name = amd_v2 ? "AMD core counters with PerfMonV2" : "AMD core counters";
	v->version = amd_v2 ? 2 : 0;
	v->counters = amd_counters;
	v->width = AMD_WIDTH;
	v->max_period = AMD_TOP_BIT - 1;
	v->config_mask = AMD64_RAW_EVENT_MASK;
	v->event_map = amd_event_map;
	v->cache_event = amd_cache_event;
	v->constraint = amd_constraint;
	v->hw_config = amd_hw_config;
	v->enable_all = amd_enable_all;
	v->disable_all = amd_disable_all;
	v->enable = amd_enable;
	v->disable = amd_disable;
	v->status = amd_status;
	v->ack = amd_ack;
	v->read = amd_read;
	v->write = amd_write;
	v->format = amd_format;
	v->sample_ended_period = amd_v2;
	v->late_pmi = true;
	v->forward = amd_forward;
	/* LBR v2: events that want branch stacks hold it while added. */
	if (amd_v2 && amd_lbr_probe(v)) {
		v->get_extra = amd_lbr_get;
		v->put_extra = amd_lbr_put;
		v->cpu_starting = amd_lbr_cpu_starting;
	}
	return 0;
}
