// SPDX-License-Identifier: GPL-2.0-only
/*
 * AMD's counters outside the cores, as counting PMUs of CPU events:
 *
 *   PMU        counters of            where               CPUID   RDPMC
 *   amd_l3     a last-level cache     6 at 0xc0010230     LLC     10-15
 *   amd_df     a node's data fabric   4 at 0xc0010240 (a  NB      6-9, 16-
 *                                     PerfMonV2 part says
 *                                     how many)
 *   amd_umc_N  one memory controller  0xc0010800 on       PerfMonV2  -
 *              of a node
 *
 * Before family 17h the first two are the L2 (amd_l2: four counters
 * shared by a compute unit) and the northbridge (amd_nb).  Each counter
 * is a CTL/CTR pair of MSRs that every CPU sharing the cache or node
 * sees; L3 and DF counters wrap at 48 bits, a UMC counter stops at its
 * top and is reset here before it gets there.  None of them can tell
 * which CPU caused an event, and none interrupts: only counting CPU
 * events, without exclusions.
 *
 * A "box" is the set of counters of one cache or node, seen through one
 * PMU.  The CPUs that share it share the box; one of them, its reader,
 * is in the PMU's cpumask, and event_init moves every event of the box
 * to that CPU, so that its counters are only ever programmed from there.
 * When the reader goes offline, another CPU of the box takes its events
 * over.  The UMC PMUs belong to one node each (amd_umc_N are numbered
 * across the nodes found at init, each node's active controllers in
 * turn): CPUs of other nodes have no box for them.
 *
 * Locking and lifetime: add, del, start, stop and read run on the
 * reader with interrupts off; a box's slots are claimed with cmpxchg
 * all the same, as an event may be scheduled in on the new reader while
 * the old one is going.  Boxes are made and joined at CPU online (under
 * the hotplug lock, which serialises those callbacks) and left when a
 * CPU is dead, after the core has taken its events off the counters.
 * The PMUs live as long as the module.
 */
#include <linux/cpufeature.h>
#include <linux/cpuhotplug.h>
#include <linux/module.h>
#include <linux/perf_event.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include <asm/msr.h>
#include <asm/perf_event.h>

MODULE_DESCRIPTION("AMD L3, data fabric and memory controller PMUs");
MODULE_LICENSE("GPL");

#define AUC_WIDTH		48
#define AUC_MAX_UMC_PMUS	32
#define AUC_NODES		64

enum auc_type { AUC_DF, AUC_L3, AUC_UMC };

/* Counters shared by the CPUs of one cache or node. */
struct auc_box {
	int			reader;
	int			users;
	struct perf_event	*slot[];
};

struct auc_pmu {
	struct pmu		pmu;
	char			name[16];
	enum auc_type		type;
	int			node;		/* UMC: the node, else -1 */
	int			counters;
	u32			msr;		/* CTL of counter 0 */
	int			rdpmc;		/* index of counter 0, or -1 */
	bool			registered;
	cpumask_t		readers;
	struct auc_box * __percpu *box;
};

static struct auc_pmu *auc_pmus[2 + AUC_MAX_UMC_PMUS];
static int auc_nr_pmus;
static bool auc_v2;		/* PerfMonV2 */
static bool auc_zen;		/* family 17h or later: DF and L3 */

static struct auc_pmu *to_auc(struct pmu *pmu)
{
	return container_of(pmu, struct auc_pmu, pmu);
}

/* The cache or node whose counters @cpu sees through @p. */
static int auc_key(struct auc_pmu *p, int cpu)
{
	return p->type == AUC_L3 ? per_cpu_llc_id(cpu) :
				   topology_amd_node_id(cpu);
}

static u64 auc_read_ctr(struct hw_perf_event *hwc)
{
	u64 val;

	if (hwc->event_base_rdpmc >= 0)
		rdpmcl(hwc->event_base_rdpmc, val);
	else
		rdmsrl(hwc->event_base, val);
	return val;
}

static void auc_read(struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;
	u64 prev = local64_read(&hwc->prev_count);
	int shift = 64 - AUC_WIDTH;
	u64 now = auc_read_ctr(hwc);

	if (to_auc(event->pmu)->type == AUC_UMC) {
		/*
		 * A UMC counter saturates instead of wrapping: start it
		 * again from 0 once it is half way, long before its top.
		 */
		if (now & BIT_ULL(AUC_WIDTH - 1)) {
			wrmsrl(hwc->event_base, 0);
			local64_set(&hwc->prev_count, 0);
		} else {
			local64_set(&hwc->prev_count, now);
		}
		/* Bit 48 is its overflow flag, not a count. */
		shift++;
	} else {
		local64_set(&hwc->prev_count, now);
	}
	local64_add((s64)((now << shift) - (prev << shift)) >> shift,
		    &event->count);
}

static u64 auc_enable_bit(struct perf_event *event)
{
	return to_auc(event->pmu)->type == AUC_UMC ?
	       AMD64_PERFMON_V2_ENABLE_UMC : ARCH_PERFMON_EVENTSEL_ENABLE;
}

static void auc_start(struct perf_event *event, int flags)
{
	struct hw_perf_event *hwc = &event->hw;

	if (flags & PERF_EF_RELOAD)
		wrmsrl(hwc->event_base, local64_read(&hwc->prev_count));
	hwc->state = 0;
	wrmsrl(hwc->config_base, hwc->config | auc_enable_bit(event));
	perf_event_update_userpage(event);
}

static void auc_stop(struct perf_event *event, int flags)
{
	struct hw_perf_event *hwc = &event->hw;

	wrmsrl(hwc->config_base, hwc->config);
	hwc->state |= PERF_HES_STOPPED;
	if ((flags & PERF_EF_UPDATE) && !(hwc->state & PERF_HES_UPTODATE)) {
		auc_read(event);
		hwc->state |= PERF_HES_UPTODATE;
	}
}

static int auc_add(struct perf_event *event, int flags)
{
	struct auc_pmu *p = to_auc(event->pmu);
	struct auc_box *box = *per_cpu_ptr(p->box, event->cpu);
	struct hw_perf_event *hwc = &event->hw;
	int i;

	for (i = 0; i < p->counters; i++) {
		if (!cmpxchg(&box->slot[i], NULL, event))
			break;
	}
	if (i == p->counters)
		return -EBUSY;

	hwc->idx = i;
	hwc->config_base = p->msr + 2 * i;
	hwc->event_base = p->msr + 2 * i + 1;
	hwc->event_base_rdpmc = -1;
	if (p->rdpmc >= 0) {
		/* DF counters past the fourth follow the six of the L3. */
		hwc->event_base_rdpmc = p->rdpmc + i +
			(p->type == AUC_DF && i >= AMD64_NUM_COUNTERS_NB ? 6 : 0);
	}
	hwc->state = PERF_HES_UPTODATE | PERF_HES_STOPPED;
	if (flags & PERF_EF_START)
		auc_start(event, PERF_EF_RELOAD);
	return 0;
}

static void auc_del(struct perf_event *event, int flags)
{
	struct auc_pmu *p = to_auc(event->pmu);
	struct auc_box *box = *per_cpu_ptr(p->box, event->cpu);
	struct hw_perf_event *hwc = &event->hw;

	auc_stop(event, PERF_EF_UPDATE);
	cmpxchg(&box->slot[hwc->idx], event, NULL);
	hwc->idx = -1;
}

/* Whether @event's group, with it, fits @p's counters. */
static bool auc_group_fits(struct auc_pmu *p, struct perf_event *event)
{
	struct perf_event *leader = event->group_leader, *sib;
	int n = 1;

	if (leader == event)
		return true;
	if (leader->pmu == event->pmu)
		n++;
	for_each_sibling_event(sib, leader) {
		if (sib->pmu == event->pmu &&
		    sib->state > PERF_EVENT_STATE_OFF)
			n++;
	}
	return n <= p->counters;
}

/* The L3 fields of family 19h: which cores, threads and slices count. */
#define L3_19H_FIELDS	(AMD64_L3_F19H_THREAD_MASK | AMD64_L3_SLICEID_MASK | \
			 AMD64_L3_EN_ALL_CORES | AMD64_L3_EN_ALL_SLICES | \
			 AMD64_L3_COREID_MASK)

static u64 auc_config(struct auc_pmu *p, u64 config)
{
	u64 fields;

	switch (p->type) {
	case AUC_DF:
		return config & (auc_v2 ? AMD64_PERFMON_V2_RAW_EVENT_MASK_NB :
					  AMD64_RAW_EVENT_MASK_NB);
	case AUC_UMC:
		return config & AMD64_PERFMON_V2_RAW_EVENT_MASK_UMC;
	default:
		break;
	}
	if (!auc_zen)
		return config & AMD64_RAW_EVENT_MASK_NB;
	if (boot_cpu_data.x86 < 0x19) {
		/* Family 17h: all slices and threads unless told. */
		fields = (config & AMD64_L3_SLICE_MASK ?: AMD64_L3_SLICE_MASK) |
			 (config & AMD64_L3_THREAD_MASK ?: AMD64_L3_THREAD_MASK);
	} else if (config & AMD64_L3_F19H_THREAD_MASK) {
		fields = config & L3_19H_FIELDS;
	} else {
		/* No thread chosen: every thread of every core and slice. */
		fields = AMD64_L3_F19H_THREAD_MASK | AMD64_L3_EN_ALL_CORES |
			 AMD64_L3_EN_ALL_SLICES;
	}
	return (config & AMD64_RAW_EVENT_MASK_NB) | fields;
}

static int auc_event_init(struct perf_event *event)
{
	struct auc_pmu *p = to_auc(event->pmu);
	struct auc_box *box;

	if (event->attr.type != event->pmu->type)
		return -ENOENT;
	/* Counts of a whole cache or node: no task can own them. */
	if (event->cpu < 0)
		return -EINVAL;
	box = *per_cpu_ptr(p->box, event->cpu);
	if (!box)
		return -ENODEV;
	if (!auc_group_fits(p, event))
		return -EINVAL;

	event->hw.config = auc_config(p, event->attr.config);
	event->hw.idx = -1;
	event->cpu = box->reader;
	return 0;
}

/* sysfs: cpumask, and each layout's format. */
static ssize_t cpumask_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	struct auc_pmu *p = to_auc(dev_get_drvdata(dev));

	return cpumap_print_to_pagebuf(true, buf, &p->readers);
}
static DEVICE_ATTR_RO(cpumask);

static struct attribute *auc_attrs[] = {
	&dev_attr_cpumask.attr,
	NULL,
};

static const struct attribute_group auc_group = {
	.attrs = auc_attrs,
};

#define AUC_FORMAT(var, file, layout)					\
static ssize_t var##_show(struct device *dev,				\
			  struct device_attribute *attr, char *page)	\
{									\
	return sysfs_emit(page, layout "\n");				\
}									\
static struct device_attribute fmt_##var = __ATTR(file, 0444, var##_show, NULL)

AUC_FORMAT(ev12, event, "config:0-7,32-35");
AUC_FORMAT(ev14, event, "config:0-7,32-35,59-60");
AUC_FORMAT(ev14v2, event, "config:0-7,32-37");
AUC_FORMAT(ev8, event, "config:0-7");
AUC_FORMAT(um8, umask, "config:8-15");
AUC_FORMAT(um12, umask, "config:8-15,24-27");
AUC_FORMAT(coreid, coreid, "config:42-44");
AUC_FORMAT(slicemask, slicemask, "config:48-51");
AUC_FORMAT(thr8, threadmask, "config:56-63");
AUC_FORMAT(thr2, threadmask, "config:56-57");
AUC_FORMAT(allslices, enallslices, "config:46");
AUC_FORMAT(allcores, enallcores, "config:47");
AUC_FORMAT(sliceid, sliceid, "config:48-50");
AUC_FORMAT(rdwr, rdwrmask, "config:8-9");

/* Filled at init with the layout of the CPU's family and PMU version. */
static struct attribute *auc_df_fmt[3];
static struct attribute *auc_l3_fmt[8];
static struct attribute *auc_umc_fmt[] = {
	&fmt_ev8.attr,
	&fmt_rdwr.attr,
	NULL,
};

static const struct attribute_group auc_df_fmt_group = {
	.name = "format",
	.attrs = auc_df_fmt,
};

static const struct attribute_group auc_l3_fmt_group = {
	.name = "format",
	.attrs = auc_l3_fmt,
};

static const struct attribute_group auc_umc_fmt_group = {
	.name = "format",
	.attrs = auc_umc_fmt,
};

static const struct attribute_group *auc_df_groups[] = {
	&auc_group, &auc_df_fmt_group, NULL,
};

static const struct attribute_group *auc_l3_groups[] = {
	&auc_group, &auc_l3_fmt_group, NULL,
};

static const struct attribute_group *auc_umc_groups[] = {
	&auc_group, &auc_umc_fmt_group, NULL,
};

static void auc_pick_formats(void)
{
	struct attribute **a = auc_l3_fmt;

	auc_df_fmt[0] = auc_v2 ? &fmt_ev14v2.attr :
			auc_zen ? &fmt_ev14.attr : &fmt_ev12.attr;
	auc_df_fmt[1] = auc_v2 ? &fmt_um12.attr : &fmt_um8.attr;

	*a++ = auc_zen ? &fmt_ev8.attr : &fmt_ev12.attr;
	*a++ = &fmt_um8.attr;
	if (!auc_zen)
		return;
	if (boot_cpu_data.x86 < 0x19) {
		*a++ = &fmt_thr8.attr;
		*a++ = &fmt_slicemask.attr;
		return;
	}
	*a++ = &fmt_thr2.attr;
	*a++ = &fmt_coreid.attr;
	*a++ = &fmt_allslices.attr;
	*a++ = &fmt_allcores.attr;
	*a++ = &fmt_sliceid.attr;
}

/*
 * Register a PMU of @type named @name: @counters CTL/CTR pairs from @msr,
 * read by RDPMC from index @rdpmc (-1: from the MSRs), and for a UMC the
 * @node whose CPUs see it (-1: every CPU).
 */
static int auc_add_pmu(enum auc_type type, int counters, u32 msr, int rdpmc,
		       int node, const char *name,
		       const struct attribute_group **groups)
{
	struct auc_pmu *p;
	int ret;

	if (auc_nr_pmus == ARRAY_SIZE(auc_pmus))
		return -ENOSPC;
	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	p->box = alloc_percpu(struct auc_box *);
	if (!p->box) {
		kfree(p);
		return -ENOMEM;
	}
	p->type = type;
	p->node = node;
	p->counters = counters;
	p->msr = msr;
	p->rdpmc = rdpmc;
	strscpy(p->name, name, sizeof(p->name));
	p->pmu = (struct pmu) {
		.module		= THIS_MODULE,
		.task_ctx_nr	= perf_invalid_context,
		.attr_groups	= groups,
		.event_init	= auc_event_init,
		.add		= auc_add,
		.del		= auc_del,
		.start		= auc_start,
		.stop		= auc_stop,
		.read		= auc_read,
		.capabilities	= PERF_PMU_CAP_NO_EXCLUDE |
				  PERF_PMU_CAP_NO_INTERRUPT,
	};
	auc_pmus[auc_nr_pmus++] = p;

	ret = perf_pmu_register(&p->pmu, p->name, -1);
	if (ret)
		return ret;
	p->registered = true;
	pr_info("amd_uncore: %d %s%s counters\n", counters,
		boot_cpu_data.x86_vendor == X86_VENDOR_HYGON ? "HYGON " : "",
		p->name);
	return 0;
}

static void auc_free_all(void)
{
	while (auc_nr_pmus) {
		struct auc_pmu *p = auc_pmus[--auc_nr_pmus];

		if (p->registered)
			perf_pmu_unregister(&p->pmu);
		free_percpu(p->box);
		kfree(p);
	}
}

/* The DF (NB) and L3 (L2) PMUs, one of each for the whole system. */
static int auc_make_shared(void)
{
	int ret, n;

	if (boot_cpu_has(X86_FEATURE_PERFCTR_NB)) {
		n = AMD64_NUM_COUNTERS_NB;
		if (auc_v2) {
			union cpuid_0x80000022_ebx ebx;

			ebx.full = cpuid_ebx(EXT_PERFMON_DEBUG_FEATURES);
			n = ebx.split.num_df_pmc;
		}
		if (n) {
			ret = auc_add_pmu(AUC_DF, n, MSR_F15H_NB_PERF_CTL, 6, -1,
					  auc_zen ? "amd_df" : "amd_nb",
					  auc_df_groups);
			if (ret)
				return ret;
		}
	}
	if (boot_cpu_has(X86_FEATURE_PERFCTR_LLC))
		return auc_add_pmu(AUC_L3, auc_zen ? 6 : 4,
				   MSR_F16H_L2I_PERF_CTL, 10, -1,
				   auc_zen ? "amd_l3" : "amd_l2", auc_l3_groups);
	return 0;
}

/*
 * The UMC PMUs: for each node with an online CPU, in order, one a
 * controller that CPUID's active mask names, its share of the counters.
 */
static int auc_make_umc(void)
{
	unsigned int eax, ecx, edx, umcs, per, i;
	union cpuid_0x80000022_ebx ebx;
	DECLARE_BITMAP(nodes, AUC_NODES) = { 0 };
	int cpu, node, index = 0, ret;
	char name[16];

	if (!auc_v2)
		return 0;
	cpuid(EXT_PERFMON_DEBUG_FEATURES, &eax, &ebx.full, &ecx, &edx);
	umcs = hweight32(ecx);
	if (!umcs)
		return 0;
	per = ebx.split.num_umc_pmc / umcs;
	if (!per)
		return 0;

	for_each_online_cpu(cpu) {
		node = topology_amd_node_id(cpu);
		if (node < AUC_NODES)
			__set_bit(node, nodes);
	}
	for_each_set_bit(node, nodes, AUC_NODES) {
		for (i = 0; i < umcs; i++) {
			snprintf(name, sizeof(name), "amd_umc_%d", index++);
			ret = auc_add_pmu(AUC_UMC, per,
					  MSR_F19H_UMC_PERF_CTL + 2 * i * per,
					  -1, node, name, auc_umc_groups);
			if (ret)
				return ret;
		}
	}
	return 0;
}

static int auc_cpu_online(unsigned int cpu)
{
	int i, j;

	for (i = 0; i < auc_nr_pmus; i++) {
		struct auc_pmu *p = auc_pmus[i];
		struct auc_box *box = NULL;

		if (p->node >= 0 && topology_amd_node_id(cpu) != p->node)
			continue;
		for_each_online_cpu(j) {
			struct auc_box *b = *per_cpu_ptr(p->box, j);

			if (j != cpu && b && auc_key(p, j) == auc_key(p, cpu)) {
				box = b;
				break;
			}
		}
		if (!box) {
			box = kzalloc_node(struct_size(box, slot, p->counters),
					   GFP_KERNEL, cpu_to_node(cpu));
			if (!box)
				return -ENOMEM;
			box->reader = cpu;
			cpumask_set_cpu(cpu, &p->readers);
		}
		box->users++;
		*per_cpu_ptr(p->box, cpu) = box;
	}
	return 0;
}

/* Before @cpu goes: hand the boxes it reads to a CPU that shares them. */
static int auc_cpu_down(unsigned int cpu)
{
	int i, j;

	for (i = 0; i < auc_nr_pmus; i++) {
		struct auc_pmu *p = auc_pmus[i];
		struct auc_box *box = *per_cpu_ptr(p->box, cpu);

		if (!box || box->reader != cpu)
			continue;
		for_each_online_cpu(j) {
			if (j == cpu || *per_cpu_ptr(p->box, j) != box)
				continue;
			perf_pmu_migrate_context(&p->pmu, cpu, j);
			box->reader = j;
			cpumask_clear_cpu(cpu, &p->readers);
			cpumask_set_cpu(j, &p->readers);
			break;
		}
	}
	return 0;
}

/* @cpu is dead and its events off the counters: leave its boxes. */
static int auc_cpu_dead(unsigned int cpu)
{
	int i;

	for (i = 0; i < auc_nr_pmus; i++) {
		struct auc_pmu *p = auc_pmus[i];
		struct auc_box *box = *per_cpu_ptr(p->box, cpu);

		if (!box)
			continue;
		*per_cpu_ptr(p->box, cpu) = NULL;
		if (box->reader == cpu)
			cpumask_clear_cpu(cpu, &p->readers);
		if (!--box->users)
			kfree(box);
	}
	return 0;
}

static int __init auc_init(void)
{
	int ret;

	if (boot_cpu_data.x86_vendor != X86_VENDOR_AMD &&
	    boot_cpu_data.x86_vendor != X86_VENDOR_HYGON)
		return -ENODEV;
	/* The caches and nodes are known from the topology leaves. */
	if (!boot_cpu_has(X86_FEATURE_TOPOEXT))
		return -ENODEV;

	auc_v2 = boot_cpu_has(X86_FEATURE_PERFMON_V2);
	auc_zen = boot_cpu_data.x86 >= 0x17;
	auc_pick_formats();

	cpus_read_lock();
	ret = auc_make_shared();
	if (!ret)
		ret = auc_make_umc();
	cpus_read_unlock();
	if (ret)
		goto fail;
	if (!auc_nr_pmus)
		return -ENODEV;

	ret = cpuhp_setup_state(CPUHP_PERF_X86_AMD_UNCORE_PREP,
				"perf/x86/amd/uncore:prepare", NULL,
				auc_cpu_dead);
	if (ret)
		goto fail;
	ret = cpuhp_setup_state(CPUHP_AP_PERF_X86_AMD_UNCORE_ONLINE,
				"perf/x86/amd/uncore:online", auc_cpu_online,
				auc_cpu_down);
	if (ret)
		goto fail_prep;
	return 0;

fail_prep:
	cpuhp_remove_state(CPUHP_PERF_X86_AMD_UNCORE_PREP);
fail:
	auc_free_all();
	return ret;
}

static void __exit auc_exit(void)
{
	cpuhp_remove_state(CPUHP_AP_PERF_X86_AMD_UNCORE_ONLINE);
	cpuhp_remove_state(CPUHP_PERF_X86_AMD_UNCORE_PREP);
	auc_free_all();
}

module_init(auc_init);
module_exit(auc_exit);
