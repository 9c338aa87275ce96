// SPDX-License-Identifier: GPL-2.0-only
/*
 * The "power" PMU: the energy counters of RAPL (running average power
 * limit), as counting events of a whole package or die.
 *
 *   config  sysfs name     domain                      Intel MSR  AMD MSR
 *   1       energy-cores   the cores (power plane 0)   0x639      -
 *   2       energy-pkg     the package                 0x611      0xc001029b
 *   3       energy-ram     the memory                  0x619      -
 *   4       energy-gpu     the graphics (power plane 1) 0x641     -
 *   5       energy-psys    the platform                0x64d      -
 *
 * Which domains a part may have comes from its model (rapl_parts below)
 * or, on AMD and Hygon, from CPUID's RAPL bit (the package alone).  A
 * domain is present when its register reads without a fault and not 0,
 * which is how a part (or a hypervisor) without it answers; Sapphire
 * Rapids' platform domain reads 0 until it is used and is taken as is.
 *
 * A register counts the domain's energy in bits 31:0, in units of
 * 2^-ESU joule, ESU being bits 12:8 of the power unit register (0x606,
 * AMD 0xc0010299); some servers count DRAM in 2^-16 J and Sapphire
 * Rapids the platform in joules, whatever the register says.  Counts are
 * given in 2^-32 J whatever the domain's unit, which sysfs says with
 * each event's .unit ("Joules") and .scale (2^-32).
 *
 * The counters belong to a die (Intel) or a package (AMD), not to a CPU:
 * the PMU has that scope, so that the core lists one CPU of each in
 * "cpumask" and moves events to another when that CPU goes offline.
 * Only CPU events are possible, and only counting ones: the counters do
 * not interrupt.  An event remembers the register's value when it starts
 * and adds the difference when it is read or stops.  A 32-bit register
 * may wrap between two reads, which would lose 2^32 units: while a CPU
 * has events running, an hrtimer there reads them well before that can
 * happen even at 200 W.
 *
 * Locking and lifetime: add, del, start and stop run on the event's CPU
 * with interrupts off, and so does the hrtimer (a hard one), so each
 * CPU's list of running events needs no lock.  A read may come from
 * another CPU of the scope at the same time: hw.prev_count is moved with
 * a compare-and-exchange, so that no difference is added twice.  The
 * tables are set at init; the PMU lives until the module goes.
 */
#include <linux/hrtimer.h>
#include <linux/module.h>
#include <linux/nospec.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>
#include <linux/sysfs.h>

#include <asm/cpu_device_id.h>
#include <asm/intel-family.h>
#include <asm/msr.h>

MODULE_DESCRIPTION("RAPL energy counters as the power PMU");
MODULE_LICENSE("GPL");

/* Domains, in config order less one. */
enum rapl_domain {
	RAPL_PP0,
	RAPL_PKG,
	RAPL_RAM,
	RAPL_PP1,
	RAPL_PSYS,
	RAPL_DOMAINS,
};

#define D(x)		BIT(RAPL_##x)
#define RAPL_CONFIG	0xffULL

/* What a part has, and where its units differ from the unit register. */
struct rapl_part {
	unsigned int	domains;	/* D() bits */
	bool		amd;		/* AMD's registers */
	bool		ram_unit_16;	/* DRAM in 2^-16 J */
	bool		psys_in_joules;	/* and taken unread */
};

static const struct rapl_part rapl_sandy = {
	.domains = D(PP0) | D(PKG) | D(PP1),
};

static const struct rapl_part rapl_sandy_server = {
	.domains = D(PP0) | D(PKG) | D(RAM),
};

static const struct rapl_part rapl_haswell = {
	.domains = D(PP0) | D(PKG) | D(RAM) | D(PP1),
};

static const struct rapl_part rapl_server = {
	.domains = D(PP0) | D(PKG) | D(RAM),
	.ram_unit_16 = true,
};

static const struct rapl_part rapl_phi = {
	.domains = D(PKG) | D(RAM),
	.ram_unit_16 = true,
};

static const struct rapl_part rapl_client = {
	.domains = D(PP0) | D(PKG) | D(RAM) | D(PP1) | D(PSYS),
};

static const struct rapl_part rapl_sapphire = {
	.domains = D(PP0) | D(PKG) | D(RAM) | D(PSYS),
	.psys_in_joules = true,
};

static const struct rapl_part rapl_amd = {
	.domains = D(PKG),
	.amd = true,
};

#define PART(vfm, part)	X86_MATCH_VFM(vfm, (void *)&(part))

static const struct x86_cpu_id rapl_parts[] = {
	X86_MATCH_FEATURE(X86_FEATURE_RAPL, (void *)&rapl_amd),
	PART(INTEL_SANDYBRIDGE, rapl_sandy),
	PART(INTEL_IVYBRIDGE, rapl_sandy),
	PART(INTEL_SANDYBRIDGE_X, rapl_sandy_server),
	PART(INTEL_IVYBRIDGE_X, rapl_sandy_server),
	PART(INTEL_HASWELL, rapl_haswell),
	PART(INTEL_HASWELL_L, rapl_haswell),
	PART(INTEL_HASWELL_G, rapl_haswell),
	PART(INTEL_BROADWELL, rapl_haswell),
	PART(INTEL_BROADWELL_G, rapl_haswell),
	PART(INTEL_ATOM_GOLDMONT, rapl_haswell),
	PART(INTEL_ATOM_GOLDMONT_D, rapl_haswell),
	PART(INTEL_ATOM_GOLDMONT_PLUS, rapl_haswell),
	PART(INTEL_HASWELL_X, rapl_server),
	PART(INTEL_BROADWELL_X, rapl_server),
	PART(INTEL_BROADWELL_D, rapl_server),
	PART(INTEL_SKYLAKE_X, rapl_server),
	PART(INTEL_ICELAKE_X, rapl_server),
	PART(INTEL_ICELAKE_D, rapl_server),
	PART(INTEL_XEON_PHI_KNL, rapl_phi),
	PART(INTEL_XEON_PHI_KNM, rapl_phi),
	PART(INTEL_SKYLAKE, rapl_client),
	PART(INTEL_SKYLAKE_L, rapl_client),
	PART(INTEL_KABYLAKE, rapl_client),
	PART(INTEL_KABYLAKE_L, rapl_client),
	PART(INTEL_CANNONLAKE_L, rapl_client),
	PART(INTEL_ICELAKE, rapl_client),
	PART(INTEL_ICELAKE_L, rapl_client),
	PART(INTEL_COMETLAKE, rapl_client),
	PART(INTEL_COMETLAKE_L, rapl_client),
	PART(INTEL_TIGERLAKE, rapl_client),
	PART(INTEL_TIGERLAKE_L, rapl_client),
	PART(INTEL_ALDERLAKE, rapl_client),
	PART(INTEL_ALDERLAKE_L, rapl_client),
	PART(INTEL_ATOM_GRACEMONT, rapl_client),
	PART(INTEL_RAPTORLAKE, rapl_client),
	PART(INTEL_RAPTORLAKE_P, rapl_client),
	PART(INTEL_RAPTORLAKE_S, rapl_client),
	PART(INTEL_METEORLAKE, rapl_client),
	PART(INTEL_METEORLAKE_L, rapl_client),
	PART(INTEL_ARROWLAKE, rapl_client),
	PART(INTEL_ARROWLAKE_H, rapl_client),
	PART(INTEL_ARROWLAKE_U, rapl_client),
	PART(INTEL_LUNARLAKE_M, rapl_client),
	PART(INTEL_SAPPHIRERAPIDS_X, rapl_sapphire),
	PART(INTEL_EMERALDRAPIDS_X, rapl_sapphire),
	{}
};
MODULE_DEVICE_TABLE(x86cpu, rapl_parts);

static const u32 rapl_intel_msr[RAPL_DOMAINS] = {
	[RAPL_PP0]	= MSR_PP0_ENERGY_STATUS,
	[RAPL_PKG]	= MSR_PKG_ENERGY_STATUS,
	[RAPL_RAM]	= MSR_DRAM_ENERGY_STATUS,
	[RAPL_PP1]	= MSR_PP1_ENERGY_STATUS,
	[RAPL_PSYS]	= MSR_PLATFORM_ENERGY_STATUS,
};

/* As set at init: the present domains, their registers and units. */
static unsigned long rapl_present;
static u32 rapl_msr[RAPL_DOMAINS];
static u8 rapl_unit[RAPL_DOMAINS];	/* counts are 2^-unit J */
static ktime_t rapl_poll;

/* A CPU's running events, and the timer that keeps them from wrapping. */
struct rapl_cpu {
	struct list_head	running;
	unsigned int		nr;
	struct hrtimer		timer;
};

static DEFINE_PER_CPU(struct rapl_cpu, rapl_cpus);

/* Add what the register counted since the last look, in 2^-32 J. */
static void rapl_pmu_read(struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;
	u64 prev = local64_read(&hwc->prev_count), now;
	u64 delta;

	do {
		rdmsrl(hwc->event_base, now);
	} while (!local64_try_cmpxchg(&hwc->prev_count, &prev, now));

	delta = (u32)(now - prev);
	local64_add(delta << (32 - rapl_unit[hwc->idx]), &event->count);
}

static enum hrtimer_restart rapl_poll_fn(struct hrtimer *timer)
{
	struct rapl_cpu *rc = container_of(timer, struct rapl_cpu, timer);
	struct perf_event *event;

	if (!rc->nr)
		return HRTIMER_NORESTART;
	list_for_each_entry(event, &rc->running, active_entry)
		rapl_pmu_read(event);
	hrtimer_forward_now(timer, rapl_poll);
	return HRTIMER_RESTART;
}

static void rapl_pmu_start(struct perf_event *event, int flags)
{
	struct rapl_cpu *rc = this_cpu_ptr(&rapl_cpus);
	struct hw_perf_event *hwc = &event->hw;
	u64 now;

	if (!(hwc->state & PERF_HES_STOPPED))
		return;
	hwc->state = 0;
	rdmsrl(hwc->event_base, now);
	local64_set(&hwc->prev_count, now);
	list_add_tail(&event->active_entry, &rc->running);
	if (!rc->nr++)
		hrtimer_start(&rc->timer, rapl_poll,
			      HRTIMER_MODE_REL_PINNED_HARD);
}

static void rapl_pmu_stop(struct perf_event *event, int flags)
{
	struct rapl_cpu *rc = this_cpu_ptr(&rapl_cpus);
	struct hw_perf_event *hwc = &event->hw;

	if (hwc->state & PERF_HES_STOPPED)
		return;
	rapl_pmu_read(event);
	hwc->state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
	list_del(&event->active_entry);
	if (!--rc->nr)
		hrtimer_try_to_cancel(&rc->timer);
}

static int rapl_pmu_add(struct perf_event *event, int flags)
{
	event->hw.state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
	if (flags & PERF_EF_START)
		rapl_pmu_start(event, flags);
	return 0;
}

static void rapl_pmu_del(struct perf_event *event, int flags)
{
	rapl_pmu_stop(event, PERF_EF_UPDATE);
}

static int rapl_pmu_event_init(struct perf_event *event)
{
	u64 config = event->attr.config;
	unsigned int d;

	if (event->attr.type != event->pmu->type)
		return -ENOENT;
	if (config & ~RAPL_CONFIG)
		return -EINVAL;
	/* A die's or a package's counters: no task events, no sampling. */
	if (event->cpu < 0 || event->attr.sample_period)
		return -EINVAL;
	if (config < 1 || config > RAPL_DOMAINS)
		return -EINVAL;
	d = array_index_nospec(config - 1, RAPL_DOMAINS);
	if (!test_bit(d, &rapl_present))
		return -EINVAL;

	event->hw.idx = d;
	event->hw.config = config;
	event->hw.event_base = rapl_msr[d];
	return 0;
}

/*
 * sysfs: each present domain's event, unit and scale; one format field.
 * The names have '-' in them, so they are written out as strings.
 */
#define RAPL_ATTR(var, label, str)					\
	static struct perf_pmu_events_attr var = {			\
		.attr = { .attr = { .name = label, .mode = 0444 },	\
			  .show = perf_event_sysfs_show },		\
		.event_str = str,					\
	}

#define RAPL_SCALE	"2.3283064365386962890625e-10"	/* 2^-32 */

RAPL_ATTR(rapl_pp0, "energy-cores", "event=0x01");
RAPL_ATTR(rapl_pp0_unit, "energy-cores.unit", "Joules");
RAPL_ATTR(rapl_pp0_scale, "energy-cores.scale", RAPL_SCALE);
RAPL_ATTR(rapl_pkg, "energy-pkg", "event=0x02");
RAPL_ATTR(rapl_pkg_unit, "energy-pkg.unit", "Joules");
RAPL_ATTR(rapl_pkg_scale, "energy-pkg.scale", RAPL_SCALE);
RAPL_ATTR(rapl_ram, "energy-ram", "event=0x03");
RAPL_ATTR(rapl_ram_unit, "energy-ram.unit", "Joules");
RAPL_ATTR(rapl_ram_scale, "energy-ram.scale", RAPL_SCALE);
RAPL_ATTR(rapl_pp1, "energy-gpu", "event=0x04");
RAPL_ATTR(rapl_pp1_unit, "energy-gpu.unit", "Joules");
RAPL_ATTR(rapl_pp1_scale, "energy-gpu.scale", RAPL_SCALE);
RAPL_ATTR(rapl_psys, "energy-psys", "event=0x05");
RAPL_ATTR(rapl_psys_unit, "energy-psys.unit", "Joules");
RAPL_ATTR(rapl_psys_scale, "energy-psys.scale", RAPL_SCALE);

static struct attribute *rapl_event_attrs[] = {
	&rapl_pp0.attr.attr,
	&rapl_pp0_unit.attr.attr,
	&rapl_pp0_scale.attr.attr,
	&rapl_pkg.attr.attr,
	&rapl_pkg_unit.attr.attr,
	&rapl_pkg_scale.attr.attr,
	&rapl_ram.attr.attr,
	&rapl_ram_unit.attr.attr,
	&rapl_ram_scale.attr.attr,
	&rapl_pp1.attr.attr,
	&rapl_pp1_unit.attr.attr,
	&rapl_pp1_scale.attr.attr,
	&rapl_psys.attr.attr,
	&rapl_psys_unit.attr.attr,
	&rapl_psys_scale.attr.attr,
	NULL,
};

/* Three attributes a domain, in domain order. */
static umode_t rapl_event_visible(struct kobject *kobj, struct attribute *attr,
				  int i)
{
	return test_bit(i / 3, &rapl_present) ? attr->mode : 0;
}

static const struct attribute_group rapl_events_group = {
	.name = "events",
	.attrs = rapl_event_attrs,
	.is_visible = rapl_event_visible,
};

PMU_FORMAT_ATTR(event, "config:0-7");

static struct attribute *rapl_format_attrs[] = {
	&format_attr_event.attr,
	NULL,
};

static const struct attribute_group rapl_format_group = {
	.name = "format",
	.attrs = rapl_format_attrs,
};

static const struct attribute_group *rapl_attr_groups[] = {
	&rapl_events_group,
	&rapl_format_group,
	NULL,
};

static struct pmu rapl_pmu = {
	.module		= THIS_MODULE,
	.task_ctx_nr	= perf_invalid_context,
	.attr_groups	= rapl_attr_groups,
	.event_init	= rapl_pmu_event_init,
	.add		= rapl_pmu_add,
	.del		= rapl_pmu_del,
	.start		= rapl_pmu_start,
	.stop		= rapl_pmu_stop,
	.read		= rapl_pmu_read,
	.capabilities	= PERF_PMU_CAP_NO_EXCLUDE,
};

/* Find the present domains and their units; -ENODEV without a unit. */
static int __init rapl_probe(const struct rapl_part *part)
{
	u32 unit_msr = part->amd ? MSR_AMD_RAPL_POWER_UNIT : MSR_RAPL_POWER_UNIT;
	unsigned int d, esu;
	u64 val;

	if (rdmsrl_safe(unit_msr, &val))
		return -ENODEV;
	esu = (val >> 8) & 0x1f;
	for (d = 0; d < RAPL_DOMAINS; d++) {
		rapl_unit[d] = esu;
		if (!(part->domains & BIT(d)))
			continue;
		rapl_msr[d] = part->amd ? MSR_AMD_PKG_ENERGY_STATUS :
					  rapl_intel_msr[d];
		if (d == RAPL_PSYS && part->psys_in_joules) {
			__set_bit(d, &rapl_present);
			continue;
		}
		if (rdmsrl_safe(rapl_msr[d], &val) || !(u32)val)
			continue;
		__set_bit(d, &rapl_present);
	}
	if (part->ram_unit_16)
		rapl_unit[RAPL_RAM] = 16;
	if (part->psys_in_joules)
		rapl_unit[RAPL_PSYS] = 0;
	return 0;
}

/*
 * How often to read a running event: half the time a register takes to
 * wrap at 200 W, that is 2^(32 - ESU) units at 200 J/s, halved (as
 * upstream reads); 2 ms when a unit is too small to say.
 */
static ktime_t __init rapl_poll_period(void)
{
	unsigned int esu = rapl_unit[RAPL_PP0];
	u64 ms = 2;

	if (esu < 32)
		ms = (1000 / (2 * 100)) * (1ULL << (32 - esu - 1));
	return ms_to_ktime(ms);
}

static int __init rapl_pmu_init(void)
{
	const struct x86_cpu_id *id = x86_match_cpu(rapl_parts);
	const struct rapl_part *part;
	unsigned int cpu;
	int ret;

	if (!id)
		return -ENODEV;
	part = (const struct rapl_part *)id->driver_data;
	ret = rapl_probe(part);
	if (ret)
		return ret;
	rapl_poll = rapl_poll_period();
	for_each_possible_cpu(cpu) {
		struct rapl_cpu *rc = per_cpu_ptr(&rapl_cpus, cpu);

		INIT_LIST_HEAD(&rc->running);
		hrtimer_init(&rc->timer, CLOCK_MONOTONIC,
			     HRTIMER_MODE_REL_PINNED_HARD);
		rc->timer.function = rapl_poll_fn;
	}
	/* Intel's counters are a die's (a package's on single-die parts). */
	rapl_pmu.scope = part->amd ? PERF_PMU_SCOPE_PKG : PERF_PMU_SCOPE_DIE;
	ret = perf_pmu_register(&rapl_pmu, "power", -1);
	if (ret)
		return ret;
	pr_info("RAPL PMU: %lu domains, counts in 2^-32 J, read every %lld ms\n",
		hweight_long(rapl_present), ktime_to_ms(rapl_poll));
	return 0;
}
module_init(rapl_pmu_init);

static void __exit rapl_pmu_exit(void)
{
	unsigned int cpu;

	perf_pmu_unregister(&rapl_pmu);
	for_each_possible_cpu(cpu)
		hrtimer_cancel(&per_cpu_ptr(&rapl_cpus, cpu)->timer);
}
module_exit(rapl_pmu_exit);
