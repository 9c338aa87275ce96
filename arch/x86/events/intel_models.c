// SPDX-License-Identifier: GPL-2.0-only
/*
 * Intel models with tables of their own: Skylake, Ice Lake and Sapphire
 * Rapids cores (client and server parts alike), and the hybrid Alder
 * Lake and Raptor Lake parts, whose Golden Cove P-cores and Gracemont
 * E-cores each have their tables (intel_model_atom()).  What the
 * architectural
 * description in CPUID leaf 0xA does not say and the Intel SDM's event
 * lists do:
 *
 * - the counters an event may use: many events count only on general
 *   counters 0 to 3, a few on one counter, and some encodings name a
 *   fixed counter only (pseudo-encodings with event code 0);
 * - the encodings of the generic cache events (PERF_TYPE_HW_CACHE);
 * - the events that need a second register beside their EVTSEL: the
 *   offcore response events take MSR_OFFCORE_RSP_0 or _1 (the first two
 *   entries of a model's table, in that order), which the driver
 *   programs from config1 (a cache event's from the model's table);
 *   the load latency register (the third entry) is PEBS's, programmed
 *   from config1 where the PEBS driver drives it; the frontend
 *   register and the others are not driven, and their events are
 *   refused with -ENXIO, the errno upstream gives when the register
 *   cannot be written.
 *
 * caps/pmu_name takes upstream's name for the model, which the perf
 * tool uses to pick its event lists and metrics; events/ and format/
 * get the files upstream adds for it.
 *
 * Locking: none; the tables are constant and the model is chosen once at
 * boot.
 */
#include <linux/nospec.h>
#include <linux/perf_event.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/topology.h>

#include <asm/cpu_device_id.h>
#include <asm/intel-family.h>
#include <asm/perf_event.h>

#include "intel_models.h"

/*
 * A counter rule: events whose config, under @mask, is in @first..@last
 * (@last 0: just @first) may count on the general counters of @gp and
 * the fixed counter @fixed (-1: none).  @mask 0xff compares the event code, 0xffff the code and
 * the unit mask, and 0 the whole raw event (no edge, inverse or
 * threshold): the rules for the events a fixed counter counts.
 */
struct intel_rule {
	u16 mask, first, last;
	u8 gp;
	s8 fixed;
};

#define ANY_GP	0xff

/* Event codes @a..@b on the general counters of @gp. */
#define CODES(a, b, g)		{ 0xff, a, b, g, -1 }
/* Event and unit mask @c (umask << 8 | code) on the counters of @gp. */
#define EVENT(c, g)		{ 0xffff, c, 0, g, -1 }
/* Exactly @c: fixed counter @f, and the general ones of @gp. */
#define FIXED(c, f, g)		{ 0, c, 0, g, f }

static const struct intel_rule skl_rules[] = {
	EVENT(0x01c0, 0x2),		/* INST_RETIRED.PREC_DIST */
	CODES(0xcd, 0xcd, 0xf),		/* MEM_TRANS_RETIRED */
	CODES(0xc6, 0xc6, 0xf),		/* FRONTEND_RETIRED */
	CODES(0xd0, 0xd2, 0xf),		/* MEM_INST and MEM_LOAD_*_RETIRED */
	{ }
};

static const struct intel_rule icl_rules[] = {
	FIXED(0x01c0, 0, ANY_GP),	/* INST_RETIRED.PREC_DIST, old code */
	FIXED(0x0100, 0, 0),		/* INST_RETIRED.PREC_DIST */
	FIXED(0x0400, 3, 0),		/* TOPDOWN.SLOTS */
	CODES(0x03, 0x0a, 0xf),
	CODES(0x1f, 0x28, 0xf),
	CODES(0x32, 0x32, 0xf),
	CODES(0x48, 0x56, 0xf),
	CODES(0x60, 0x8b, 0xf),
	EVENT(0x04a3, ANY_GP),		/* CYCLE_ACTIVITY.STALLS_TOTAL */
	EVENT(0x10a3, ANY_GP),		/* CYCLE_ACTIVITY.CYCLES_MEM_ANY */
	EVENT(0x14a3, ANY_GP),		/* CYCLE_ACTIVITY.STALLS_MEM_ANY */
	CODES(0xa3, 0xa3, 0xf),		/* the other CYCLE_ACTIVITY */
	CODES(0xa8, 0xb0, 0xf),
	CODES(0xb7, 0xbd, 0xf),
	CODES(0xd0, 0xe6, 0xf),
	CODES(0xef, 0xf4, 0xf),
	{ }
};

/* Golden Cove: Sapphire Rapids' cores. */
static const struct intel_rule glc_rules[] = {
	FIXED(0x0100, 0, 0),		/* INST_RETIRED.PREC_DIST */
	FIXED(0x013c, 2, ANY_GP),	/* CPU_CLK_UNHALTED.REF_TSC_P */
	FIXED(0x0400, 3, 0),		/* TOPDOWN.SLOTS */
	CODES(0x2e, 0x2e, ANY_GP),	/* LONGEST_LAT_CACHE */
	CODES(0x3c, 0x3c, ANY_GP),	/* CPU_CLK_UNHALTED */
	CODES(0x01, 0x8f, 0xf),		/* below 0x90: counters 0-3 */
	EVENT(0x01a3, 0xf),
	EVENT(0x02a3, 0xf),
	EVENT(0x08a3, 0xf),
	EVENT(0x04a4, 0x1),		/* TOPDOWN.BAD_SPEC_SLOTS */
	EVENT(0x08a4, 0x1),		/* TOPDOWN.BR_MISPREDICT_SLOTS */
	EVENT(0x02cd, 0x1),		/* MEM_TRANS_RETIRED.STORE_SAMPLE */
	CODES(0xce, 0xce, 0x1),		/* AMX_OPS_RETIRED */
	CODES(0xd0, 0xdf, 0xf),
	CODES(0x90, 0xfe, ANY_GP),
	{ }
};

/* Gracemont: only the fixed counters' events have rules. */
static const struct intel_rule grt_rules[] = {
	FIXED(0x013c, 2, ANY_GP),	/* CPU_CLK_UNHALTED.REF_TSC_P */
	{ }
};

/*
 * The registers beside the EVTSEL, by the event and unit mask that use
 * them, with the bits of config1 each takes (beyond them: -EINVAL).
 */
struct intel_extra {
	u16 event;
	u64 valid;
};

static const struct intel_extra skl_extra[] = {
	{ 0x01b7, 0x3fffff8fffULL },	/* MSR_OFFCORE_RSP_0 */
	{ 0x01bb, 0x3fffff8fffULL },	/* MSR_OFFCORE_RSP_1 */
	{ 0x01cd, 0xffff },		/* MSR_PEBS_LD_LAT_THRESHOLD */
	{ 0x01c6, 0x7fff17 },		/* MSR_PEBS_FRONTEND */
	{ }
};

static const struct intel_extra icl_extra[] = {
	{ 0x01b7, 0x3fffffbfffULL },
	{ 0x01bb, 0x3fffffbfffULL },
	{ 0x01cd, 0xffff },
	{ 0x01c6, 0x7fff17 },
	{ }
};

static const struct intel_extra glc_extra[] = {
	{ 0x012a, 0x3fffffffffULL },	/* MSR_OFFCORE_RSP_0 */
	{ 0x012b, 0x3fffffffffULL },	/* MSR_OFFCORE_RSP_1 */
	{ 0x01cd, 0xffff },
	{ 0x01c6, 0x7fff1f },		/* MSR_PEBS_FRONTEND */
	{ 0x40ad, 0x7 },
	{ 0x04c2, 0x8 },
	{ }
};

static const struct intel_extra grt_extra[] = {
	{ 0x01b7, 0x3fffffffffULL },	/* MSR_OFFCORE_RSP_0 */
	{ 0x02b7, 0x3fffffffffULL },	/* MSR_OFFCORE_RSP_1 */
	{ 0x05d0, 0xffff },		/* MSR_PEBS_LD_LAT_THRESHOLD */
	{ }
};

/*
 * Cache events: [cache][operation][result], 0 for none (-ENOENT) and
 * X86_CACHE_INVALID for one the cache cannot have (-EINVAL).  The same
 * shape holds the offcore response (config1) of the cache events that
 * are offcore response events.
 */
typedef u64 intel_cache_table[PERF_COUNT_HW_CACHE_MAX][PERF_COUNT_HW_CACHE_OP_MAX]
			     [PERF_COUNT_HW_CACHE_RESULT_MAX];

#define RD	PERF_COUNT_HW_CACHE_OP_READ
#define WR	PERF_COUNT_HW_CACHE_OP_WRITE
#define PF	PERF_COUNT_HW_CACHE_OP_PREFETCH
#define NONE	X86_CACHE_INVALID
/* Both results of an operation: { access, miss }. */
#define AM(a, m)	{ a, m }

static const intel_cache_table skl_cache = {
	[PERF_COUNT_HW_CACHE_L1D] = {
		/* MEM_INST_RETIRED.ALL_LOADS and ALL_STORES; L1D.REPLACEMENT */
		[RD] = AM(0x81d0, 0x0151), [WR] = AM(0x82d0, 0),
	},
	[PERF_COUNT_HW_CACHE_L1I] = {
		[RD] = AM(0, 0x0283),	/* ICACHE_64B.IFTAG_MISS */
		[WR] = AM(NONE, NONE),
	},
	/* The offcore response event; refused until it is programmed. */
	[PERF_COUNT_HW_CACHE_LL] = {
		[RD] = AM(0x01b7, 0x01b7), [WR] = AM(0x01b7, 0x01b7),
	},
	[PERF_COUNT_HW_CACHE_DTLB] = {
		[RD] = AM(0x81d0, 0x0e08), [WR] = AM(0x82d0, 0x0e49),
	},
	[PERF_COUNT_HW_CACHE_ITLB] = {
		[RD] = AM(0x2085, 0x0e85),
		[WR] = AM(NONE, NONE), [PF] = AM(NONE, NONE),
	},
	[PERF_COUNT_HW_CACHE_BPU] = {
		/* BR_INST_RETIRED.ALL_BRANCHES, BR_MISP_RETIRED.ALL_BRANCHES */
		[RD] = AM(0x00c4, 0x00c5),
		[WR] = AM(NONE, NONE), [PF] = AM(NONE, NONE),
	},
	[PERF_COUNT_HW_CACHE_NODE] = {
		[RD] = AM(0x01b7, 0x01b7), [WR] = AM(0x01b7, 0x01b7),
	},
};

static const intel_cache_table glc_cache = {
	[PERF_COUNT_HW_CACHE_L1D] = {
		/* misses: L1D.REPLACEMENT's successor, MEM_LOAD_RETIRED */
		[RD] = AM(0x81d0, 0xe124), [WR] = AM(0x82d0, 0),
	},
	[PERF_COUNT_HW_CACHE_L1I] = {
		[RD] = AM(0, 0xe424), [WR] = AM(NONE, NONE),
	},
	[PERF_COUNT_HW_CACHE_LL] = {
		/* OCR (event 0x2a) with its offcore response register */
		[RD] = AM(0x012a, 0x012a), [WR] = AM(0x012a, 0x012a),
	},
	[PERF_COUNT_HW_CACHE_DTLB] = {
		[RD] = AM(0x81d0, 0x0e12), [WR] = AM(0x82d0, 0x0e13),
	},
	[PERF_COUNT_HW_CACHE_ITLB] = {
		[RD] = AM(NONE, 0x0e11),
		[WR] = AM(NONE, NONE), [PF] = AM(NONE, NONE),
	},
	[PERF_COUNT_HW_CACHE_BPU] = {
		[RD] = AM(0x04c4, 0x04c5),
		[WR] = AM(NONE, NONE), [PF] = AM(NONE, NONE),
	},
	[PERF_COUNT_HW_CACHE_NODE] = {
		[RD] = AM(0x012a, 0x012a),
	},
};

/* Gracemont's, as Goldmont Plus's; no event counts ITLB reads. */
static const intel_cache_table grt_cache = {
	[PERF_COUNT_HW_CACHE_L1D] = {
		/* MEM_UOPS_RETIRED.ALL_LOADS and ALL_STORES */
		[RD] = AM(0x81d0, 0), [WR] = AM(0x82d0, 0),
	},
	[PERF_COUNT_HW_CACHE_L1I] = {
		[RD] = AM(0x0380, 0x0280), [WR] = AM(NONE, NONE),
	},
	[PERF_COUNT_HW_CACHE_LL] = {
		[RD] = AM(0x01b7, 0x01b7), [WR] = AM(0x01b7, 0x01b7),
	},
	[PERF_COUNT_HW_CACHE_DTLB] = {
		[RD] = AM(0x81d0, 0x0e08), [WR] = AM(0x82d0, 0x0e49),
	},
	[PERF_COUNT_HW_CACHE_ITLB] = {
		[RD] = AM(NONE, 0x0481),
		[WR] = AM(NONE, NONE), [PF] = AM(NONE, NONE),
	},
	[PERF_COUNT_HW_CACHE_BPU] = {
		[RD] = AM(0x00c4, 0x00c5),
		[WR] = AM(NONE, NONE), [PF] = AM(NONE, NONE),
	},
};

/* The offcore responses of the LL and NODE events: request | response. */
static const intel_cache_table skl_cache_rsp = {
	[PERF_COUNT_HW_CACHE_LL] = {
		[RD] = AM(0x3fc0010001ULL, 0x3ffc020001ULL),
		[WR] = AM(0x3fc0010002ULL, 0x3ffc020002ULL),
	},
	[PERF_COUNT_HW_CACHE_NODE] = {
		[RD] = AM(0x1fc4000001ULL, 0x1ff8000001ULL),
		[WR] = AM(0x1fc4000002ULL, 0x1ff8000002ULL),
	},
};

static const intel_cache_table glc_cache_rsp = {
	[PERF_COUNT_HW_CACHE_LL] = {
		[RD] = AM(0x10001ULL, 0x3fbfc00001ULL),
		[WR] = AM(0x3f3ffc0002ULL, 0x3f3fc00002ULL),
	},
	[PERF_COUNT_HW_CACHE_NODE] = {
		[RD] = AM(0x10c000001ULL, 0x3fb3000001ULL),
	},
};

static const intel_cache_table grt_cache_rsp = {
	[PERF_COUNT_HW_CACHE_LL] = {
		[RD] = AM(0x10001ULL, 0x3f04000001ULL),
		[WR] = AM(0x10002ULL, 0x3f04000002ULL),
	},
};

/* format/: the second register's fields, in config1. */
PMU_FORMAT_ATTR(offcore_rsp, "config1:0-63");
PMU_FORMAT_ATTR(ldlat, "config1:0-15");
PMU_FORMAT_ATTR(frontend, "config1:0-23");

static struct attribute *intel_extra_format[] = {
	&format_attr_offcore_rsp.attr,
	&format_attr_ldlat.attr,
	&format_attr_frontend.attr,
	NULL,
};

/* Gracemont has no frontend register. */
static struct attribute *grt_format[] = {
	&format_attr_offcore_rsp.attr,
	&format_attr_ldlat.attr,
	NULL,
};

/*
 * Skylake's topdown events of old (before the slots counter), which the
 * perf tool scales by the pipeline's width.  With SMT the cycles are the
 * core's (AnyThread), and the width is shared by two threads.  As
 * upstream's, these files end without a newline.
 */
struct intel_smt_attr {
	struct device_attribute attr;
	const char *one;	/* without SMT */
	const char *smt;	/* with */
};

static ssize_t intel_smt_show(struct device *dev, struct device_attribute *attr,
			      char *page)
{
	struct intel_smt_attr *a = container_of(attr, struct intel_smt_attr, attr);
	const char *str = topology_max_smt_threads() > 1 ? a->smt : a->one;
	size_t len = strlen(str);

	/* Short constant strings, without the newline sysfs_emit() wants. */
	memcpy(page, str, len);
	return len;
}

#define SMT_EVENT(_var, _name, _one, _smt)				\
	static struct intel_smt_attr _var = {				\
		.attr = {						\
			.attr = { .name = _name, .mode = 0444 },	\
			.show = intel_smt_show,				\
		},							\
		.one = _one,						\
		.smt = _smt,						\
	}

SMT_EVENT(skl_total_slots, "topdown-total-slots",
	  "event=0x3c,umask=0x0", "event=0x3c,umask=0x0,any=1");
SMT_EVENT(skl_total_slots_scale, "topdown-total-slots.scale", "4", "2");
X86_EVENT_STR(skl_slots_issued, "topdown-slots-issued", "event=0xe,umask=0x1");
X86_EVENT_STR(skl_slots_retired, "topdown-slots-retired", "event=0xc2,umask=0x2");
X86_EVENT_STR(skl_fetch_bubbles, "topdown-fetch-bubbles", "event=0x9c,umask=0x1");
/* INT_MISC.RECOVERY_CYCLES: unit mask 1 on Skylake. */
SMT_EVENT(skl_recovery_bubbles, "topdown-recovery-bubbles",
	  "event=0xd,umask=0x1,cmask=1", "event=0xd,umask=0x1,cmask=1,any=1");
SMT_EVENT(skl_recovery_bubbles_scale, "topdown-recovery-bubbles.scale", "4", "2");

static struct attribute *skl_events[] = {
	&skl_slots_issued.attr.attr,
	&skl_slots_retired.attr.attr,
	&skl_fetch_bubbles.attr.attr,
	&skl_total_slots.attr.attr,
	&skl_total_slots_scale.attr.attr,
	&skl_recovery_bubbles.attr.attr,
	&skl_recovery_bubbles_scale.attr.attr,
	NULL,
};

/*
 * Golden Cove's load latency event needs this one counting beside it
 * (upstream's PMU_FL_MEM_LOADS_AUX), which is why its file is there.
 */
X86_EVENT_STR(glc_mem_loads_aux, "mem-loads-aux", "event=0x03,umask=0x82");

static struct attribute *glc_events[] = {
	&glc_mem_loads_aux.attr.attr,
	NULL,
};

/*
 * A hybrid part's events/ files.  Upstream keeps one string for the core
 * types that have the event, their encodings in the order of its PMUs
 * (cpu_atom's, then cpu_core's) with ';' between, and shows each PMU its
 * own: without a newline, and, when another encoding follows it, padded
 * with NULs up to the length of the rest of the string (so the files of
 * cpu_atom are longer than their text).  These files are the same bytes.
 */
struct intel_hybrid_attr {
	struct device_attribute attr;
	const char *str;
	u8 part;
};

static ssize_t intel_hybrid_show(struct device *dev,
				 struct device_attribute *attr, char *page)
{
	struct intel_hybrid_attr *a = container_of(attr, struct intel_hybrid_attr, attr);
	const char *s = a->str, *end;
	size_t len;
	int i;

	for (i = 0; i < a->part && strchr(s, ';'); i++)
		s = strchr(s, ';') + 1;
	end = strchrnul(s, ';');
	len = strlen(s);
	/* Constant strings, far shorter than the page. */
	memset(page, 0, len);
	memcpy(page, s, end - s);
	return len;
}

#define HYBRID_EVENT(_var, _name, _part, _str)				\
	static struct intel_hybrid_attr _var = {			\
		.attr = {						\
			.attr = { .name = _name, .mode = 0444 },	\
			.show = intel_hybrid_show,			\
		},							\
		.str = _str,						\
		.part = _part,						\
	}

/* Encodings of both core types: cpu_atom's (part 0), cpu_core's (1). */
#define ADL_TD_RETIRING		"event=0xc2,umask=0x0;event=0x00,umask=0x80"
#define ADL_TD_BAD_SPEC		"event=0x73,umask=0x0;event=0x00,umask=0x81"
#define ADL_TD_FE_BOUND		"event=0x71,umask=0x0;event=0x00,umask=0x82"
#define ADL_TD_BE_BOUND		"event=0x74,umask=0x0;event=0x00,umask=0x83"
#define ADL_MEM_LOADS		"event=0xd0,umask=0x5,ldlat=3;event=0xcd,umask=0x1,ldlat=3"
#define ADL_MEM_STORES		"event=0xd0,umask=0x6;event=0xcd,umask=0x2"

HYBRID_EVENT(adl_slots, "slots", 0, "event=0x00,umask=0x4");
HYBRID_EVENT(adl_retiring, "topdown-retiring", 1, ADL_TD_RETIRING);
HYBRID_EVENT(adl_bad_spec, "topdown-bad-spec", 1, ADL_TD_BAD_SPEC);
HYBRID_EVENT(adl_fe_bound, "topdown-fe-bound", 1, ADL_TD_FE_BOUND);
HYBRID_EVENT(adl_be_bound, "topdown-be-bound", 1, ADL_TD_BE_BOUND);
HYBRID_EVENT(adl_heavy_ops, "topdown-heavy-ops", 0, "event=0x00,umask=0x84");
HYBRID_EVENT(adl_br_mispredict, "topdown-br-mispredict", 0, "event=0x00,umask=0x85");
HYBRID_EVENT(adl_fetch_lat, "topdown-fetch-lat", 0, "event=0x00,umask=0x86");
HYBRID_EVENT(adl_mem_bound, "topdown-mem-bound", 0, "event=0x00,umask=0x87");
HYBRID_EVENT(adl_mem_loads, "mem-loads", 1, ADL_MEM_LOADS);
HYBRID_EVENT(adl_mem_stores, "mem-stores", 1, ADL_MEM_STORES);
HYBRID_EVENT(adl_mem_loads_aux, "mem-loads-aux", 0, "event=0x03,umask=0x82");
HYBRID_EVENT(grt_retiring, "topdown-retiring", 0, ADL_TD_RETIRING);
HYBRID_EVENT(grt_bad_spec, "topdown-bad-spec", 0, ADL_TD_BAD_SPEC);
HYBRID_EVENT(grt_fe_bound, "topdown-fe-bound", 0, ADL_TD_FE_BOUND);
HYBRID_EVENT(grt_be_bound, "topdown-be-bound", 0, ADL_TD_BE_BOUND);
HYBRID_EVENT(grt_mem_loads, "mem-loads", 0, ADL_MEM_LOADS);
HYBRID_EVENT(grt_mem_stores, "mem-stores", 0, ADL_MEM_STORES);

/* The P-cores': topdown (slots and the metrics) first, as the driver needs. */
static struct attribute *adl_core_events[] = {
	&adl_slots.attr.attr,
	&adl_retiring.attr.attr,
	&adl_bad_spec.attr.attr,
	&adl_fe_bound.attr.attr,
	&adl_be_bound.attr.attr,
	&adl_heavy_ops.attr.attr,
	&adl_br_mispredict.attr.attr,
	&adl_fetch_lat.attr.attr,
	&adl_mem_bound.attr.attr,
	&adl_mem_loads.attr.attr,
	&adl_mem_stores.attr.attr,
	&adl_mem_loads_aux.attr.attr,
	NULL,
};

/* The E-cores' topdown events are ordinary ones, on general counters. */
static struct attribute *adl_atom_events[] = {
	&grt_retiring.attr.attr,
	&grt_bad_spec.attr.attr,
	&grt_fe_bound.attr.attr,
	&grt_be_bound.attr.attr,
	&grt_mem_loads.attr.attr,
	&grt_mem_stores.attr.attr,
	NULL,
};

/**
 * struct intel_model - what one family of cores adds to leaf 0xA
 * @pmu_name: upstream's name for it, in caps/pmu_name
 * @banner: the boot log's name for its events
 * @rules: counter rules, first match wins; events no rule names may use
 *	every general counter
 * @extra: events that need a register beside the EVTSEL, the offcore
 *	response events first (MSR_OFFCORE_RSP_0's, then _1's)
 * @cache: the cache events
 * @cache_rsp: the offcore response of those that are offcore events
 * @no_itlb_reads: no event counts ITLB reads (Ice Lake, on Skylake's table)
 * @metrics: the topdown metric events the cores have with PERF_METRICS,
 *	or -1 when they have no slots counter (fixed counter 3)
 * @events: its events/ files (optional)
 * @ref_cycles_p: reference cycles count on general counters too, as
 *	event 0x3c unit mask 1, where CPUID says the event is there
 * @format: its format/ files beside the EVTSEL's (NULL: the offcore
 *	response, load latency and frontend fields)
 * @atom: a hybrid part's E-core tables (this being its P-core's), or
 *	NULL
 * @hybrid_events: @events hold topdown's files already (the hybrid
 *	forms)
 * @lbr: the depth of the model-specific LBR (intel_lbr.c), 0 for none
 *	(or an architectural LBR, which has no driver here)
 * @precise: the highest precise_ip of the model's PEBS (intel_pebs.c: 3
 *	with precise distribution), 0 for none this driver reads
 * @glc_pebs: the PEBS is Golden Cove's: its constraints, PDist on
 *	general counter 0, the store latency event, records whose latency
 *	is split into the instruction's and the cache access's
 * @grt_pebs: the PEBS is Gracemont's (Alder Lake's E-cores): its
 *	constraints, reduced skid on general counter 0, its latency events
 *	and data sources, split latencies
 * @mem_loads_aux: the load latency event gives its data source only in
 *	a group with mem-loads-aux (upstream's PMU_FL_MEM_LOADS_AUX)
 */
struct intel_model {
	const char *pmu_name;
	const char *banner;
	const struct intel_rule *rules;
	const struct intel_extra *extra;
	const intel_cache_table *cache;
	const intel_cache_table *cache_rsp;
	bool no_itlb_reads;
	s8 metrics;
	struct attribute **events;
	bool ref_cycles_p;
	struct attribute **format;
	const struct intel_model *atom;
	bool hybrid_events;
	u8 lbr;
	u8 precise;
	bool glc_pebs;
	bool grt_pebs;
	bool mem_loads_aux;
};

static const struct intel_model skylake = {
	"skylake", "Skylake events", skl_rules, skl_extra, &skl_cache,
	&skl_cache_rsp, false, -1, skl_events, .lbr = 32, .precise = 3,
};

static const struct intel_model icelake = {
	"icelake", "Icelake events", icl_rules, icl_extra, &skl_cache,
	&skl_cache_rsp, true, 4, .lbr = 32, .precise = 3,
};

static const struct intel_model sapphire_rapids = {
	"sapphire_rapids", "Sapphire Rapids events", glc_rules, glc_extra,
	&glc_cache, &glc_cache_rsp, false, 8, glc_events, true,
	.precise = 3, .glc_pebs = true, .mem_loads_aux = true,
};

static const struct intel_model alderlake_atom = {
	.pmu_name = "alderlake_hybrid",
	.banner = "Alderlake Hybrid events",
	.rules = grt_rules,
	.extra = grt_extra,
	.cache = &grt_cache,
	.cache_rsp = &grt_cache_rsp,
	.metrics = -1,
	.events = adl_atom_events,
	.ref_cycles_p = true,
	.format = grt_format,
	.hybrid_events = true,
	.precise = 3,
	.grt_pebs = true,
};

static const struct intel_model alderlake = {
	.pmu_name = "alderlake_hybrid",
	.banner = "Alderlake Hybrid events",
	.rules = glc_rules,
	.extra = glc_extra,
	.cache = &glc_cache,
	.cache_rsp = &glc_cache_rsp,
	.metrics = 8,
	.events = adl_core_events,
	.ref_cycles_p = true,
	.atom = &alderlake_atom,
	.hybrid_events = true,
	.precise = 3,
	.glc_pebs = true,
	.mem_loads_aux = true,
};

static const struct x86_cpu_id intel_model_ids[] = {
	X86_MATCH_VFM(INTEL_SKYLAKE_X, &skylake),
	X86_MATCH_VFM(INTEL_SKYLAKE_L, &skylake),
	X86_MATCH_VFM(INTEL_SKYLAKE, &skylake),
	X86_MATCH_VFM(INTEL_KABYLAKE_L, &skylake),
	X86_MATCH_VFM(INTEL_KABYLAKE, &skylake),
	X86_MATCH_VFM(INTEL_COMETLAKE_L, &skylake),
	X86_MATCH_VFM(INTEL_COMETLAKE, &skylake),
	X86_MATCH_VFM(INTEL_ICELAKE_X, &icelake),
	X86_MATCH_VFM(INTEL_ICELAKE_D, &icelake),
	X86_MATCH_VFM(INTEL_ICELAKE_L, &icelake),
	X86_MATCH_VFM(INTEL_ICELAKE, &icelake),
	X86_MATCH_VFM(INTEL_TIGERLAKE_L, &icelake),
	X86_MATCH_VFM(INTEL_TIGERLAKE, &icelake),
	X86_MATCH_VFM(INTEL_ROCKETLAKE, &icelake),
	X86_MATCH_VFM(INTEL_SAPPHIRERAPIDS_X, &sapphire_rapids),
	X86_MATCH_VFM(INTEL_EMERALDRAPIDS_X, &sapphire_rapids),
	X86_MATCH_VFM(INTEL_ALDERLAKE, &alderlake),
	X86_MATCH_VFM(INTEL_ALDERLAKE_L, &alderlake),
	X86_MATCH_VFM(INTEL_RAPTORLAKE, &alderlake),
	X86_MATCH_VFM(INTEL_RAPTORLAKE_P, &alderlake),
	X86_MATCH_VFM(INTEL_RAPTORLAKE_S, &alderlake),
	{}
};

/**
 * intel_model_find - the boot CPU's model tables
 *
 * Return: the model, or NULL when this driver has no tables for it (the
 * architectural description alone is used then).
 */
const struct intel_model *intel_model_find(void)
{
	const struct x86_cpu_id *id = x86_match_cpu(intel_model_ids);

	return id ? (const struct intel_model *)id->driver_data : NULL;
}

/**
 * intel_model_pmu_name - upstream's name of the model's PMU
 * @m: the model
 *
 * Return: the name caps/pmu_name shows.
 */
const char *intel_model_pmu_name(const struct intel_model *m)
{
	return m->pmu_name;
}

/**
 * intel_model_banner - the boot log's name of the model's events
 * @m: the model
 *
 * Return: the name.
 */
const char *intel_model_banner(const struct intel_model *m)
{
	return m->banner;
}

/**
 * intel_model_topdown - the model's topdown
 * @m: the model
 *
 * Return: how many metric events its cores have with PERF_METRICS (4 or
 * 8), or -1 when they have no slots counter.
 */
int intel_model_topdown(const struct intel_model *m)
{
	return m->metrics;
}

/**
 * intel_model_events - the model's own events/ files
 * @m: the model
 *
 * Return: a NULL-terminated list, or NULL.
 */
struct attribute **intel_model_events(const struct intel_model *m)
{
	return m->events;
}

/**
 * intel_model_format - the model's format/ files beside the EVTSEL's
 * @m: the model
 *
 * Return: a NULL-terminated list: the fields of the registers beside
 * the EVTSEL, which every model with tables has.
 */
struct attribute **intel_model_format(const struct intel_model *m)
{
	return m->format ?: intel_extra_format;
}

/**
 * intel_model_atom - a hybrid part's E-core tables
 * @m: the model, as intel_model_find() gives it (the P-core's tables)
 *
 * Return: the E-cores' tables, or NULL when the model is not hybrid.
 */
const struct intel_model *intel_model_atom(const struct intel_model *m)
{
	return m->atom;
}

/**
 * intel_model_hybrid_events - whether the events/ files include topdown's
 * @m: the model
 *
 * Return: true when intel_model_events() holds the hybrid forms of the
 * topdown files, which the driver then takes instead of its own.
 */
bool intel_model_hybrid_events(const struct intel_model *m)
{
	return m->hybrid_events;
}

/**
 * intel_model_ref_cycles_p - whether reference cycles go on general counters
 * @m: the model
 *
 * Return: true when the model counts reference cycles as event 0x3c unit
 * mask 1 on any counter (fixed counter 2 among them), which the generic
 * event then uses where CPUID reports it.
 */
bool intel_model_ref_cycles_p(const struct intel_model *m)
{
	return m->ref_cycles_p;
}

/**
 * intel_model_constraint - the counters the model lets an event use
 * @m: the model
 * @config: the event's raw config (event, umask and the other EVTSEL bits)
 * @gp: the general counters there are (bits from 0)
 * @fixed: the fixed counters there are (bits from %X86_ASSIGN_FIXED_BASE)
 * @counters: set to the counters the event may use, when a rule names it
 *
 * Return: whether a rule of the model names the event.
 */
bool intel_model_constraint(const struct intel_model *m, u64 config, u64 gp,
			    u64 fixed, u64 *counters)
{
	const struct intel_rule *r;
	u64 code, c;

	for (r = m->rules; r->mask || r->first; r++) {
		code = r->mask ? config & r->mask : config & X86_RAW_EVENT_MASK;
		if (code < r->first || code > max(r->first, r->last))
			continue;
		c = r->gp & gp;
		if (r->fixed >= 0)
			c |= fixed & BIT_ULL(X86_ASSIGN_FIXED_BASE + r->fixed);
		*counters = c;
		return true;
	}
	return false;
}

/**
 * intel_model_cache_event - a cache event's config on the model
 * @m: the model
 * @cache: PERF_COUNT_HW_CACHE_*, in range
 * @op: PERF_COUNT_HW_CACHE_OP_*, in range
 * @result: PERF_COUNT_HW_CACHE_RESULT_*, in range
 *
 * Return: the config, 0 when the model has no such event, or
 * %X86_CACHE_INVALID when the cache cannot have it.
 */
u64 intel_model_cache_event(const struct intel_model *m, unsigned int cache,
			    unsigned int op, unsigned int result)
{
	if (m->no_itlb_reads && cache == PERF_COUNT_HW_CACHE_ITLB &&
	    op == PERF_COUNT_HW_CACHE_OP_READ &&
	    result == PERF_COUNT_HW_CACHE_RESULT_ACCESS)
		return X86_CACHE_INVALID;
	return (*m->cache)[cache][op][result];
}

/**
 * intel_model_extra - the register beside the EVTSEL an event needs
 * @m: the model
 * @event: the event, its hw.config set
 * @config1: set to the value of the offcore response register
 *
 * An offcore response event takes MSR_OFFCORE_RSP_0 or _1 with the
 * value of its config1, which may have only the register's bits
 * (-EINVAL); a cache event's comes from the model's table.  The load
 * latency events take MSR_PEBS_LD_LAT_THRESHOLD with their config1.  An
 * event that needs the frontend register or another this driver does
 * not drive is refused with -ENXIO, as upstream refuses it where the
 * register cannot be written, after the same config1 check.
 *
 * Return: -1 when the event needs no register, 0 or 1 for the offcore
 * response register it takes first, %INTEL_EXTRA_LDLAT for the load
 * latency register, or the errno.
 */
int intel_model_extra(const struct intel_model *m, struct perf_event *event,
		      u64 *config1)
{
	u64 code = event->hw.config & (ARCH_PERFMON_EVENTSEL_EVENT |
				       ARCH_PERFMON_EVENTSEL_UMASK);
	u64 cfg = event->attr.config;
	const struct intel_extra *e;
	bool cache = event->attr.type == PERF_TYPE_HW_CACHE;
	int i;

	for (e = m->extra, i = 0; e->event; e++, i++) {
		if (e->event != code)
			continue;
		/* A cache event's config1 is the driver's, not the user's. */
		*config1 = cache ?
			(*m->cache_rsp)[array_index_nospec(cfg & 0xff, PERF_COUNT_HW_CACHE_MAX)]
				       [array_index_nospec((cfg >> 8) & 0xff,
							   PERF_COUNT_HW_CACHE_OP_MAX)]
				       [array_index_nospec((cfg >> 16) & 0xff,
							   PERF_COUNT_HW_CACHE_RESULT_MAX)] :
			event->attr.config1;
		if (*config1 & ~e->valid)
			return -EINVAL;
		return i <= INTEL_EXTRA_LDLAT ? i : -ENXIO;
	}
	return -1;
}

/**
 * intel_model_rsp - an offcore response register's event and bits
 * @m: the model
 * @i: the register, 0 or 1
 * @valid: set to the bits the register takes
 *
 * Return: the event and unit mask (umask << 8 | event) of the offcore
 * response event that uses the register.
 */
u64 intel_model_rsp(const struct intel_model *m, int i, u64 *valid)
{
	*valid = m->extra[i].valid;
	return m->extra[i].event;
}

/**
 * intel_model_lbr - the depth of the model's model-specific LBR
 * @m: the model
 *
 * Return: its entries, 0 when it has none this driver reads.
 */
int intel_model_lbr(const struct intel_model *m)
{
	return m->lbr;
}

/**
 * intel_model_precise - the highest precise_ip of the model's PEBS
 * @m: the model
 *
 * Return: 3 where PEBS has precise distribution, 0 when the model has no
 * PEBS this driver reads.
 */
int intel_model_precise(const struct intel_model *m)
{
	return m->precise;
}

/**
 * intel_model_glc_pebs - whether the model's PEBS is Golden Cove's
 * @m: the model
 *
 * Return: true for Sapphire Rapids' (PDist, store latency, split
 * latencies; intel_pebs.c).
 */
bool intel_model_glc_pebs(const struct intel_model *m)
{
	return m->glc_pebs;
}

/**
 * intel_model_grt_pebs - whether the model's PEBS is Gracemont's
 * @m: the model (a hybrid part's E-core tables)
 *
 * Return: true for Alder Lake's E-cores' (intel_pebs.c).
 */
bool intel_model_grt_pebs(const struct intel_model *m)
{
	return m->grt_pebs;
}

/**
 * intel_model_mem_loads_aux - whether mem-loads needs mem-loads-aux
 * @m: the model (a hybrid part's P-core tables)
 *
 * Return: true where the load latency event sampling its data source
 * must be in a group with event 0x03, unit mask 0x82.
 */
bool intel_model_mem_loads_aux(const struct intel_model *m)
{
	return m->mem_loads_aux;
}
