// SPDX-License-Identifier: GPL-2.0-only
/*
 * The cstate_core, cstate_pkg and cstate_module PMUs: Intel's C-state
 * residency counters, as counting events of a core, a package (or die)
 * and a module (a cluster of cores sharing an L2).
 *
 *   PMU            config  sysfs name     MSR
 *   cstate_core    0       c1-residency   0x660
 *                  1       c3-residency   0x3fc
 *                  2       c6-residency   0x3fd (0x3ff on Xeon Phi)
 *                  3       c7-residency   0x3fe
 *   cstate_pkg     0       c2-residency   0x60d
 *                  1       c3-residency   0x3f8
 *                  2       c6-residency   0x3f9 (0x3fa on Silvermont)
 *                  3       c7-residency   0x3fa
 *                  4       c8-residency   0x630
 *                  5       c9-residency   0x631
 *                  6       c10-residency  0x632
 *   cstate_module  0       c6-residency   0x664
 *
 * Each register counts, at the time stamp counter's rate, how long its
 * core, package or module has been in that state; 64 bits wide, it does
 * not wrap in practice.  Which registers a part has comes from its model
 * (cstate_parts below); of those, the ones that read without a fault are
 * offered (a present register may well read 0: a state not entered yet).
 * On a part with several dies a package's counters are per die, and the
 * package PMU is called cstate_die.  Under a hypervisor nothing is
 * offered: a guest cannot tell a residency register from one the
 * hypervisor reads as 0.
 *
 * The PMUs have the scope of their counters, so that the core lists one
 * CPU of each core, package or module in "cpumask" and moves events to
 * another when that CPU goes offline.  Only counting CPU events are
 * possible: an event remembers the register's value when it starts and
 * adds the difference when it is read or stops.
 *
 * Locking and lifetime: add, del, start and stop run on the event's CPU
 * with interrupts off.  A read may come from another CPU of the scope at
 * the same time: hw.prev_count moves with a compare-and-exchange, so no
 * difference is added twice.  The tables are set at init; the PMUs live
 * until the module goes.
 */
#include <linux/module.h>
#include <linux/nospec.h>
#include <linux/perf_event.h>
#include <linux/sysfs.h>
#include <linux/topology.h>

#include <asm/cpu_device_id.h>
#include <asm/intel-family.h>
#include <asm/msr.h>

MODULE_DESCRIPTION("Intel C-state residency counters as perf PMUs");
MODULE_LICENSE("GPL");

/* The three kinds of counter, each a PMU. */
enum cst_kind {
	CST_CORE,
	CST_PKG,
	CST_MODULE,
	CST_KINDS,
};

#define CST_MAX_EVENTS	7

/* A kind's events, by config: sysfs name and register. */
struct cst_event {
	const char	*name;
	u32		msr;
};

static struct cst_event cst_events[CST_KINDS][CST_MAX_EVENTS] = {
	[CST_CORE] = {
		{ "c1-residency", MSR_CORE_C1_RES },
		{ "c3-residency", MSR_CORE_C3_RESIDENCY },
		{ "c6-residency", MSR_CORE_C6_RESIDENCY },
		{ "c7-residency", MSR_CORE_C7_RESIDENCY },
	},
	[CST_PKG] = {
		{ "c2-residency", MSR_PKG_C2_RESIDENCY },
		{ "c3-residency", MSR_PKG_C3_RESIDENCY },
		{ "c6-residency", MSR_PKG_C6_RESIDENCY },
		{ "c7-residency", MSR_PKG_C7_RESIDENCY },
		{ "c8-residency", MSR_PKG_C8_RESIDENCY },
		{ "c9-residency", MSR_PKG_C9_RESIDENCY },
		{ "c10-residency", MSR_PKG_C10_RESIDENCY },
	},
	[CST_MODULE] = {
		{ "c6-residency", MSR_MODULE_C6_RES_MS },
	},
};

static const unsigned int cst_nr_events[CST_KINDS] = { 4, 7, 1 };

/* Configs, by state, within their kind. */
#define C1	0
#define C2	0
#define C3	1
#define C6	2
#define C7	3
#define C8	4
#define C9	5
#define C10	6

/* What a part has: a config bit per event, per kind. */
struct cst_part {
	u8	events[CST_KINDS];
	bool	pkg_c6_in_c7;		/* Silvermont */
	bool	core_c6_phi;		/* Xeon Phi */
};

static const struct cst_part cst_nehalem = {
	.events = { BIT(C3) | BIT(C6), BIT(C3) | BIT(C6) | BIT(C7) },
};

static const struct cst_part cst_sandy = {
	.events = { BIT(C3) | BIT(C6) | BIT(C7),
		    BIT(C2) | BIT(C3) | BIT(C6) | BIT(C7) },
};

static const struct cst_part cst_haswell_ult = {
	.events = { BIT(C3) | BIT(C6) | BIT(C7),
		    BIT(C2) | BIT(C3) | BIT(C6) | BIT(C7) | BIT(C8) |
		    BIT(C9) | BIT(C10) },
};

static const struct cst_part cst_cannon = {
	.events = { BIT(C1) | BIT(C3) | BIT(C6) | BIT(C7),
		    BIT(C2) | BIT(C3) | BIT(C6) | BIT(C7) | BIT(C8) |
		    BIT(C9) | BIT(C10) },
};

static const struct cst_part cst_ice_client = {
	.events = { BIT(C6) | BIT(C7),
		    BIT(C2) | BIT(C3) | BIT(C6) | BIT(C7) | BIT(C8) |
		    BIT(C9) | BIT(C10) },
};

static const struct cst_part cst_ice_server = {
	.events = { BIT(C1) | BIT(C6), BIT(C2) | BIT(C6) },
};

static const struct cst_part cst_alder = {
	.events = { BIT(C1) | BIT(C6) | BIT(C7),
		    BIT(C2) | BIT(C3) | BIT(C6) | BIT(C8) | BIT(C10) },
};

static const struct cst_part cst_lunar = {
	.events = { BIT(C1) | BIT(C6) | BIT(C7),
		    BIT(C2) | BIT(C6) | BIT(C10) },
};

static const struct cst_part cst_silvermont = {
	.events = { BIT(C1) | BIT(C6), BIT(C6) },
	.pkg_c6_in_c7 = true,
};

static const struct cst_part cst_phi = {
	.events = { BIT(C6), BIT(C2) | BIT(C3) | BIT(C6) },
	.core_c6_phi = true,
};

static const struct cst_part cst_goldmont = {
	.events = { BIT(C1) | BIT(C3) | BIT(C6),
		    BIT(C2) | BIT(C3) | BIT(C6) | BIT(C10) },
};

static const struct cst_part cst_grand_ridge = {
	.events = { BIT(C1) | BIT(C6), 0, BIT(0) },
};

static const struct cst_part cst_sierra_forest = {
	.events = { BIT(C1) | BIT(C6), BIT(C2) | BIT(C6), BIT(0) },
};

#define PART(vfm, part)	X86_MATCH_VFM(vfm, (void *)&(part))

static const struct x86_cpu_id cst_parts[] = {
	PART(INTEL_NEHALEM, cst_nehalem),
	PART(INTEL_NEHALEM_EP, cst_nehalem),
	PART(INTEL_NEHALEM_EX, cst_nehalem),
	PART(INTEL_WESTMERE, cst_nehalem),
	PART(INTEL_WESTMERE_EP, cst_nehalem),
	PART(INTEL_WESTMERE_EX, cst_nehalem),
	PART(INTEL_SANDYBRIDGE, cst_sandy),
	PART(INTEL_SANDYBRIDGE_X, cst_sandy),
	PART(INTEL_IVYBRIDGE, cst_sandy),
	PART(INTEL_IVYBRIDGE_X, cst_sandy),
	PART(INTEL_HASWELL, cst_sandy),
	PART(INTEL_HASWELL_X, cst_sandy),
	PART(INTEL_HASWELL_G, cst_sandy),
	PART(INTEL_HASWELL_L, cst_haswell_ult),
	PART(INTEL_ATOM_SILVERMONT, cst_silvermont),
	PART(INTEL_ATOM_SILVERMONT_D, cst_silvermont),
	PART(INTEL_ATOM_AIRMONT, cst_silvermont),
	PART(INTEL_ATOM_AIRMONT_NP, cst_silvermont),
	PART(INTEL_BROADWELL, cst_sandy),
	PART(INTEL_BROADWELL_D, cst_sandy),
	PART(INTEL_BROADWELL_G, cst_sandy),
	PART(INTEL_BROADWELL_X, cst_sandy),
	PART(INTEL_SKYLAKE_L, cst_sandy),
	PART(INTEL_SKYLAKE, cst_sandy),
	PART(INTEL_SKYLAKE_X, cst_sandy),
	PART(INTEL_KABYLAKE_L, cst_haswell_ult),
	PART(INTEL_KABYLAKE, cst_haswell_ult),
	PART(INTEL_COMETLAKE_L, cst_haswell_ult),
	PART(INTEL_COMETLAKE, cst_haswell_ult),
	PART(INTEL_CANNONLAKE_L, cst_cannon),
	PART(INTEL_XEON_PHI_KNL, cst_phi),
	PART(INTEL_XEON_PHI_KNM, cst_phi),
	PART(INTEL_ATOM_GOLDMONT, cst_goldmont),
	PART(INTEL_ATOM_GOLDMONT_D, cst_goldmont),
	PART(INTEL_ATOM_GOLDMONT_PLUS, cst_goldmont),
	PART(INTEL_ATOM_TREMONT_D, cst_goldmont),
	PART(INTEL_ATOM_TREMONT, cst_goldmont),
	PART(INTEL_ATOM_TREMONT_L, cst_goldmont),
	PART(INTEL_ATOM_GRACEMONT, cst_alder),
	PART(INTEL_ATOM_CRESTMONT_X, cst_sierra_forest),
	PART(INTEL_ATOM_CRESTMONT, cst_grand_ridge),
	PART(INTEL_ICELAKE_L, cst_ice_client),
	PART(INTEL_ICELAKE, cst_ice_client),
	PART(INTEL_ICELAKE_X, cst_ice_server),
	PART(INTEL_ICELAKE_D, cst_ice_server),
	PART(INTEL_SAPPHIRERAPIDS_X, cst_ice_server),
	PART(INTEL_EMERALDRAPIDS_X, cst_ice_server),
	PART(INTEL_GRANITERAPIDS_X, cst_ice_server),
	PART(INTEL_GRANITERAPIDS_D, cst_ice_server),
	PART(INTEL_TIGERLAKE_L, cst_ice_client),
	PART(INTEL_TIGERLAKE, cst_ice_client),
	PART(INTEL_ROCKETLAKE, cst_ice_client),
	PART(INTEL_ALDERLAKE, cst_alder),
	PART(INTEL_ALDERLAKE_L, cst_alder),
	PART(INTEL_RAPTORLAKE, cst_alder),
	PART(INTEL_RAPTORLAKE_P, cst_alder),
	PART(INTEL_RAPTORLAKE_S, cst_alder),
	PART(INTEL_METEORLAKE, cst_alder),
	PART(INTEL_METEORLAKE_L, cst_alder),
	PART(INTEL_ARROWLAKE, cst_alder),
	PART(INTEL_ARROWLAKE_H, cst_alder),
	PART(INTEL_ARROWLAKE_U, cst_alder),
	PART(INTEL_LUNARLAKE_M, cst_lunar),
	{}
};
MODULE_DEVICE_TABLE(x86cpu, cst_parts);

/* As set at init: each kind's offered events. */
static unsigned long cst_present[CST_KINDS];

struct cst_pmu {
	struct pmu		pmu;
	enum cst_kind		kind;
	bool			registered;
};

static struct cst_pmu *to_cst_pmu(struct pmu *pmu)
{
	return container_of(pmu, struct cst_pmu, pmu);
}

/* Add what the register counted since the last look. */
static void cst_pmu_read(struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;
	u64 prev = local64_read(&hwc->prev_count), now;

	do {
		rdmsrl(hwc->event_base, now);
	} while (!local64_try_cmpxchg(&hwc->prev_count, &prev, now));
	local64_add(now - prev, &event->count);
}

static void cst_pmu_start(struct perf_event *event, int flags)
{
	u64 now;

	rdmsrl(event->hw.event_base, now);
	local64_set(&event->hw.prev_count, now);
	event->hw.state = 0;
}

static void cst_pmu_stop(struct perf_event *event, int flags)
{
	if (event->hw.state & PERF_HES_STOPPED)
		return;
	cst_pmu_read(event);
	event->hw.state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
}

static int cst_pmu_add(struct perf_event *event, int flags)
{
	event->hw.state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
	if (flags & PERF_EF_START)
		cst_pmu_start(event, flags);
	return 0;
}

static void cst_pmu_del(struct perf_event *event, int flags)
{
	cst_pmu_stop(event, PERF_EF_UPDATE);
}

static int cst_pmu_event_init(struct perf_event *event)
{
	enum cst_kind kind = to_cst_pmu(event->pmu)->kind;
	u64 config = event->attr.config;
	unsigned int i;

	if (event->attr.type != event->pmu->type)
		return -ENOENT;
	/* A core's, package's or module's counters: counting CPU events. */
	if (event->attr.sample_period || event->cpu < 0)
		return -EINVAL;
	if (config >= cst_nr_events[kind])
		return -EINVAL;
	i = array_index_nospec((unsigned int)config, cst_nr_events[kind]);
	if (!test_bit(i, &cst_present[kind]))
		return -EINVAL;

	event->hw.idx = -1;
	event->hw.event_base = cst_events[kind][i].msr;
	return 0;
}

/*
 * sysfs: an events group per kind, showing the offered events, and the
 * one format field.
 */
#define CST_ATTR(var, label, str)					\
	static struct perf_pmu_events_attr var = {			\
		.attr = { .attr = { .name = label, .mode = 0444 },	\
			  .show = perf_event_sysfs_show },		\
		.event_str = str,					\
	}

CST_ATTR(cst_core_c1, "c1-residency", "event=0x00");
CST_ATTR(cst_core_c3, "c3-residency", "event=0x01");
CST_ATTR(cst_core_c6, "c6-residency", "event=0x02");
CST_ATTR(cst_core_c7, "c7-residency", "event=0x03");
CST_ATTR(cst_pkg_c2, "c2-residency", "event=0x00");
CST_ATTR(cst_pkg_c3, "c3-residency", "event=0x01");
CST_ATTR(cst_pkg_c6, "c6-residency", "event=0x02");
CST_ATTR(cst_pkg_c7, "c7-residency", "event=0x03");
CST_ATTR(cst_pkg_c8, "c8-residency", "event=0x04");
CST_ATTR(cst_pkg_c9, "c9-residency", "event=0x05");
CST_ATTR(cst_pkg_c10, "c10-residency", "event=0x06");
CST_ATTR(cst_module_c6, "c6-residency", "event=0x00");

static struct attribute *cst_core_attrs[] = {
	&cst_core_c1.attr.attr,
	&cst_core_c3.attr.attr,
	&cst_core_c6.attr.attr,
	&cst_core_c7.attr.attr,
	NULL,
};

static struct attribute *cst_pkg_attrs[] = {
	&cst_pkg_c2.attr.attr,
	&cst_pkg_c3.attr.attr,
	&cst_pkg_c6.attr.attr,
	&cst_pkg_c7.attr.attr,
	&cst_pkg_c8.attr.attr,
	&cst_pkg_c9.attr.attr,
	&cst_pkg_c10.attr.attr,
	NULL,
};

static struct attribute *cst_module_attrs[] = {
	&cst_module_c6.attr.attr,
	NULL,
};

/* Attribute i of a kind's group is its config i. */
#define CST_VISIBLE(kind_)						\
static umode_t cst_visible_##kind_(struct kobject *kobj,		\
				   struct attribute *attr, int i)	\
{									\
	return test_bit(i, &cst_present[kind_]) ? attr->mode : 0;	\
}

CST_VISIBLE(CST_CORE)
CST_VISIBLE(CST_PKG)
CST_VISIBLE(CST_MODULE)

static const struct attribute_group cst_core_events = {
	.name = "events",
	.attrs = cst_core_attrs,
	.is_visible = cst_visible_CST_CORE,
};

static const struct attribute_group cst_pkg_events = {
	.name = "events",
	.attrs = cst_pkg_attrs,
	.is_visible = cst_visible_CST_PKG,
};

static const struct attribute_group cst_module_events = {
	.name = "events",
	.attrs = cst_module_attrs,
	.is_visible = cst_visible_CST_MODULE,
};

PMU_FORMAT_ATTR(event, "config:0-63");

static struct attribute *cst_format_attrs[] = {
	&format_attr_event.attr,
	NULL,
};

static const struct attribute_group cst_format = {
	.name = "format",
	.attrs = cst_format_attrs,
};

static const struct attribute_group *cst_core_groups[] = {
	&cst_core_events, &cst_format, NULL,
};

static const struct attribute_group *cst_pkg_groups[] = {
	&cst_pkg_events, &cst_format, NULL,
};

static const struct attribute_group *cst_module_groups[] = {
	&cst_module_events, &cst_format, NULL,
};

#define CST_PMU(kind_, groups_, scope_)					\
	{								\
		.kind = kind_,						\
		.pmu = {						\
			.module		= THIS_MODULE,			\
			.task_ctx_nr	= perf_invalid_context,		\
			.attr_groups	= groups_,			\
			.event_init	= cst_pmu_event_init,		\
			.add		= cst_pmu_add,			\
			.del		= cst_pmu_del,			\
			.start		= cst_pmu_start,		\
			.stop		= cst_pmu_stop,			\
			.read		= cst_pmu_read,			\
			.capabilities	= PERF_PMU_CAP_NO_INTERRUPT |	\
					  PERF_PMU_CAP_NO_EXCLUDE,	\
			.scope		= scope_,			\
		},							\
	}

static struct cst_pmu cst_pmus[CST_KINDS] = {
	[CST_CORE] = CST_PMU(CST_CORE, cst_core_groups, PERF_PMU_SCOPE_CORE),
	[CST_PKG] = CST_PMU(CST_PKG, cst_pkg_groups, PERF_PMU_SCOPE_PKG),
	[CST_MODULE] = CST_PMU(CST_MODULE, cst_module_groups,
			       PERF_PMU_SCOPE_CLUSTER),
};

static const char *const cst_names[CST_KINDS] = {
	"cstate_core", "cstate_pkg", "cstate_module",
};

/* Offer each of the part's events whose register reads without a fault. */
static void __init cst_probe(const struct cst_part *part)
{
	unsigned int kind, i;
	u64 val;

	if (part->pkg_c6_in_c7)
		cst_events[CST_PKG][C6].msr = MSR_PKG_C7_RESIDENCY;
	if (part->core_c6_phi)
		cst_events[CST_CORE][C6].msr = MSR_KNL_CORE_C6_RESIDENCY;
	for (kind = 0; kind < CST_KINDS; kind++) {
		for (i = 0; i < cst_nr_events[kind]; i++) {
			if (!(part->events[kind] & BIT(i)))
				continue;
			if (rdmsrl_safe(cst_events[kind][i].msr, &val))
				continue;
			__set_bit(i, &cst_present[kind]);
		}
	}
}

static void cst_unregister(void)
{
	unsigned int kind;

	for (kind = 0; kind < CST_KINDS; kind++) {
		if (cst_pmus[kind].registered)
			perf_pmu_unregister(&cst_pmus[kind].pmu);
		cst_pmus[kind].registered = false;
	}
}

static int __init cst_init(void)
{
	const struct x86_cpu_id *id;
	unsigned int kind;
	int ret;

	if (boot_cpu_has(X86_FEATURE_HYPERVISOR))
		return -ENODEV;
	id = x86_match_cpu(cst_parts);
	if (!id)
		return -ENODEV;
	cst_probe((const struct cst_part *)id->driver_data);

	for (kind = 0; kind < CST_KINDS; kind++) {
		struct cst_pmu *cp = &cst_pmus[kind];
		const char *name = cst_names[kind];

		if (!cst_present[kind])
			continue;
		/* Several dies a package: the counters are a die's. */
		if (kind == CST_PKG && topology_max_dies_per_package() > 1) {
			cp->pmu.scope = PERF_PMU_SCOPE_DIE;
			name = "cstate_die";
		}
		ret = perf_pmu_register(&cp->pmu, name, -1);
		if (ret) {
			pr_info("cstate: %s not registered (%d)\n", name, ret);
			cst_unregister();
			return ret;
		}
		cp->registered = true;
	}
	if (!cst_present[CST_CORE] && !cst_present[CST_PKG] &&
	    !cst_present[CST_MODULE])
		return -ENODEV;
	return 0;
}
module_init(cst_init);

static void __exit cst_exit(void)
{
	cst_unregister();
}
module_exit(cst_exit);
