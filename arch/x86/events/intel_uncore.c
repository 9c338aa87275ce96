// SPDX-License-Identifier: GPL-2.0-only
/*
 * The uncore counters Intel parts keep in MSRs outside their cores, as
 * counting PMUs of CPU events: the client uncore of Alder Lake (and
 * Alder Lake-N) and Raptor Lake, and the U-box and PCU of Skylake-SP and
 * Ice Lake-SP.
 *
 *   PMU            counts                counters  CTL, CTR of counter i  bits
 *   uncore_cbox_N  L3 slice N (a C-box)  2         0x2000 + 8N + i,        44
 *                                                  0x2002 + 8N + i
 *   uncore_arb_N   the arbiter, N < 2    2         0x2fd0 + 8N + i,        44
 *                                                  0x2fd2 + 8N + i
 *   uncore_clock   uncore clock ticks    1, fixed  0x2fde, 0x2fdf          48
 *
 * A part has as many C-boxes as bits 3:0 of MSR 0x396 say; one alone
 * would be uncore_cbox, unnumbered, as upstream names a lone box.  A C-box
 * or ARB control register takes the event select of the config (event,
 * umask, edge, inv, and the C-box's threshold or the ARB's cmask) with
 * enable bit 22; the ARB counts its events 0x80 and 0x83 on counter 0
 * alone.  The clock has no event select: its one event is config 0xff
 * ("clockticks") and its control register takes bit 22 and nothing else.
 * As upstream, config bits outside the format are dropped, and a C-box or
 * the ARB refuses event 0xff as config 0xff (the clock's) or with a umask
 * of 0x10 or more (what upstream takes for a free-running counter, which
 * these boxes lack).  The clock refuses any config but 0xff, for which
 * upstream would program MSR 0.
 *
 * Skylake-SP and Ice Lake-SP (and Cascade Lake, Ice Lake-D), a box each
 * per package:
 *
 *   PMU            counts                 counters  CTL, CTR of counter i  bits
 *   uncore_ubox    the system controller  2         0x705 + i, 0x709 + i   48
 *                  the uncore clock       1, fixed  0x703, 0x704           48
 *   uncore_pcu     the power controller   4         0x711 + i, 0x717 + i   48
 *
 * The U-box's config 0xff is its fixed counter, the uncore clock; other
 * configs go to its general counters, as on the client boxes.  The PCU
 * has no fixed counter, and takes of the config its event select, the
 * occupancy select (bits 14-15), edge, inv, threshold (bits 24-28) and
 * the occupancy invert and edge bits (30, 31), not the umask, as
 * upstream.  Its events 0x0b to 0x0e count the cycles above a frequency
 * band's threshold, the byte of the band filter (0x715) that config1
 * gives at the band's place (filter_band0 to 3): events of one band that
 * ask for different thresholds cannot count at once.  (Upstream takes
 * that byte from config1 at a place it shifts by the band's number of
 * bits rather than bytes, so only band 0's threshold reaches the
 * register there; and moves an event to another band when its own is
 * taken.)  When a PCU box gets busy its box control (0x710) is written
 * 0, so that no freeze left by firmware stops it.  These parts have no
 * global control register.
 *
 * On the client parts nothing counts without EN (bit 29) of the global
 * control register, 0x2ff0.  It is set whenever one of a package's boxes
 * goes from no events to some, and cleared when the package's last CPU
 * goes (so also at unload), as upstream sets it when it enables a box and
 * clears it when box 0 of a PMU goes.  Upstream also clears it while it reprograms box 0
 * of a PMU, setting it again right after: a pause of every counter in the
 * package, which this driver leaves out.
 *
 * No counter interrupts, and none can tell which CPU caused an event:
 * only counting CPU events, without exclusions.  Under a hypervisor
 * nothing is offered, as upstream.
 *
 * A "box" is one PMU's counters in one package (a die, on parts with
 * several).  The package's CPUs share its boxes; one of them, its reader,
 * is in every PMU's cpumask, and event_init moves each event to it, so
 * that the counters are only ever programmed and read there.  The box is
 * found from the die id of the CPU asked for, which the topology keeps
 * while that CPU is offline: an event asked for there opens on the
 * reader.  When the reader goes offline another CPU of the package takes
 * its events over; after the last one nothing counts in the package.
 * A 44-bit counter wraps in about an hour at a few billion events a
 * second, unseen: while a box has events, an hrtimer on the reader folds
 * their counts every 60 seconds, as upstream.
 *
 * Locking and lifetime: add, del, start, stop, read and the hrtimer (a
 * hard one, pinned) run on the reader with interrupts off, so a box needs
 * no lock.  Its counters are claimed with cmpxchg all the same, and the
 * hrtimer folds only the events running on its own CPU, because an event
 * opened as its reader goes offline may land there after the others have
 * moved on; the box's timer may then run on neither, until the box is
 * next idle.  For the same reason the PCU's band filter and its users
 * change under the box's band_lock, a raw spinlock (add and del run with
 * interrupts off).  The readers change only in the hotplug callbacks, which the
 * hotplug lock serialises; event_init reads a package's reader once.  The
 * boxes of every die the topology can have are made at init and freed at
 * exit, so nothing is allocated at hotplug.  The PMUs live as long as the
 * module, which each event holds.
 */
#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/cpufeature.h>
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/device.h>
#include <linux/hrtimer.h>
#include <linux/module.h>
#include <linux/perf_event.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/topology.h>

#include <asm/cpu_device_id.h>
#include <asm/intel-family.h>
#include <asm/msr.h>

MODULE_DESCRIPTION("Intel uncore PMUs: Alder Lake's and Raptor Lake's client uncore, Skylake-SP's and Ice Lake-SP's U-box and PCU");
MODULE_LICENSE("GPL");

#define IUC_MSR_CBOXES		0x396		/* bits 3:0: how many */
#define IUC_CBOX_COUNT		GENMASK_ULL(3, 0)
#define IUC_MSR_GLOBAL		0x2ff0
#define IUC_GLOBAL_EN		BIT_ULL(29)
#define IUC_CTL_EN		BIT_ULL(22)
#define IUC_BOX_STRIDE		8		/* MSRs a box takes */
#define IUC_MAX_PMUS		(15 + 2 + 1)	/* C-boxes, ARBs, the clock */
#define IUC_MAX_COUNTERS	4		/* general; and a fixed one */
#define IUC_CLOCKTICKS		0xff
#define IUC_NO_BAND		-1
#define IUC_BANDS		4
#define IUC_FOLD_NS		(60 * NSEC_PER_SEC)

/* Event, umask, edge and inv; then the C-box's threshold, the ARB's cmask. */
#define IUC_EVSEL		(GENMASK_ULL(15, 0) | BIT_ULL(18) | BIT_ULL(23))
#define IUC_CBOX_EVSEL		(IUC_EVSEL | GENMASK_ULL(29, 24))
#define IUC_ARB_EVSEL		(IUC_EVSEL | GENMASK_ULL(28, 24))
#define IUC_UBOX_EVSEL		(IUC_EVSEL | GENMASK_ULL(28, 24))
/* Event, occupancy select, edge, inv, threshold, occupancy inv and edge. */
#define IUC_PCU_EVSEL		(GENMASK_ULL(7, 0) | GENMASK_ULL(15, 14) | \
				 BIT_ULL(18) | BIT_ULL(23) | \
				 GENMASK_ULL(28, 24) | GENMASK_ULL(31, 30))
#define IUC_PCU_BAND0		0x0b

/* What the C-boxes, the ARBs or the clock have in common. */
struct iuc_kind {
	const char			*name;
	unsigned int			boxes;	/* 0: as MSR 0x396 says */
	u32				ctl;	/* box 0's first control MSR */
	u32				ctr;	/* and its first counter */
	u8				counters;
	u8				width;
	u64				evsel;	/* the config bits CTL takes */
	bool				fixed;	/* the clock: no event select */
	bool				arb;	/* 0x80, 0x83: counter 0 */
	u32				fixed_ctl; /* a fixed counter beside */
	u32				fixed_ctr; /* the general ones: 0xff */
	u32				box_ctl; /* written 0 when busy */
	u32				band_filter; /* the PCU's */
	const struct attribute_group	**groups;
};

struct iuc_pmu;

/* One PMU's counters in one package (die). */
struct iuc_box {
	struct iuc_pmu		*pmu;
	unsigned int		die;
	atomic_t		nr_events;	/* added, on a counter */
	struct hrtimer		timer;
	struct perf_event	*slot[IUC_MAX_COUNTERS + 1];	/* fixed last */
	raw_spinlock_t		band_lock;	/* the two below */
	u64			band_filter;	/* what the PCU's holds */
	unsigned int		band_users[IUC_BANDS];
};

struct iuc_pmu {
	struct pmu		pmu;
	const struct iuc_kind	*kind;
	u32			ctl;		/* counter 0's control MSR */
	u32			ctr;		/* counter 0 */
	bool			registered;
	char			name[16];
	struct iuc_box		box[];		/* by logical die */
};

static struct iuc_pmu *iuc_pmus[IUC_MAX_PMUS];
static unsigned int iuc_nr_pmus;
static unsigned int iuc_nr_dies;
static bool iuc_global;		/* the part has MSR 0x2ff0 */
static int *iuc_reader;		/* by logical die; -1: none online */
static cpumask_t iuc_readers;	/* what cpumask shows */
static cpumask_t iuc_up;	/* CPUs our online callback has seen */

static struct iuc_pmu *to_iuc(struct pmu *pmu)
{
	return container_of(pmu, struct iuc_pmu, pmu);
}

/* Add what the counter counted since the last look, modulo its width. */
static void iuc_fold(struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;
	u64 mask = GENMASK_ULL(to_iuc(event->pmu)->kind->width - 1, 0);
	u64 prev = local64_read(&hwc->prev_count);
	u64 now;

	rdmsrl(hwc->event_base, now);
	local64_set(&hwc->prev_count, now);
	local64_add((now - prev) & mask, &event->count);
}

static enum hrtimer_restart iuc_tick(struct hrtimer *timer)
{
	struct iuc_box *box = container_of(timer, struct iuc_box, timer);
	int cpu = smp_processor_id();
	int i;

	if (!atomic_read(&box->nr_events) ||
	    READ_ONCE(iuc_reader[box->die]) != cpu)
		return HRTIMER_NORESTART;
	for (i = 0; i < ARRAY_SIZE(box->slot); i++) {
		struct perf_event *event = READ_ONCE(box->slot[i]);

		if (event && READ_ONCE(event->oncpu) == cpu &&
		    !(event->hw.state & PERF_HES_STOPPED))
			iuc_fold(event);
	}
	hrtimer_forward_now(timer, ns_to_ktime(IUC_FOLD_NS));
	return HRTIMER_RESTART;
}

static void iuc_start(struct perf_event *event, int flags)
{
	struct hw_perf_event *hwc = &event->hw;
	u64 now;

	/* The count goes on from wherever the counter stands. */
	rdmsrl(hwc->event_base, now);
	local64_set(&hwc->prev_count, now);
	hwc->state = 0;
	wrmsrl(hwc->config_base, hwc->config | IUC_CTL_EN);
}

static void iuc_stop(struct perf_event *event, int flags)
{
	struct hw_perf_event *hwc = &event->hw;

	if (!(hwc->state & PERF_HES_STOPPED)) {
		wrmsrl(hwc->config_base, 0);
		hwc->state |= PERF_HES_STOPPED;
	}
	if ((flags & PERF_EF_UPDATE) && !(hwc->state & PERF_HES_UPTODATE)) {
		iuc_fold(event);
		hwc->state |= PERF_HES_UPTODATE;
	}
}

/* Whether the event @config goes to the U-box's fixed counter. */
static bool iuc_is_fixed(const struct iuc_pmu *p, u64 config)
{
	return p->kind->fixed_ctl && config == IUC_CLOCKTICKS;
}

/* Whether @config is an event of @p; see the top of the file. */
static bool iuc_config_ok(const struct iuc_pmu *p, u64 config)
{
	if (p->kind->fixed)
		return config == IUC_CLOCKTICKS;
	if (iuc_is_fixed(p, config))
		return true;
	if ((config & 0xff) != IUC_CLOCKTICKS)
		return true;
	return config != IUC_CLOCKTICKS && ((config >> 8) & 0xff) < 0x10;
}

/* Whether the event @config can only count on counter 0 of @p's box. */
static bool iuc_counter0_only(const struct iuc_pmu *p, u64 config)
{
	u8 code = config & 0xff;

	return p->kind->arb && (code == 0x80 || code == 0x83);
}

/*
 * A free counter of @box for @event, or -1.  Events tied to counter 0
 * take it; the others take the highest free one, so as to leave it.
 */
static int iuc_claim(struct iuc_box *box, struct perf_event *event)
{
	int i = iuc_counter0_only(box->pmu, event->hw.config) ? 0 :
		box->pmu->kind->counters - 1;

	if (iuc_is_fixed(box->pmu, event->attr.config)) {
		i = IUC_MAX_COUNTERS;
		return cmpxchg(&box->slot[i], NULL, event) ? -1 : i;
	}
	for (; i >= 0; i--) {
		if (!cmpxchg(&box->slot[i], NULL, event))
			return i;
	}
	return -1;
}

/*
 * The PCU's band filter for @event, if it is a band event: its threshold
 * goes into the band's byte unless events of the band counting already
 * asked for another.  False when it cannot count now.
 */
static bool iuc_band_get(struct iuc_box *box, struct perf_event *event)
{
	struct hw_perf_event_extra *band = &event->hw.extra_reg;
	u64 mask;

	bool ok = true;

	if (band->idx == IUC_NO_BAND)
		return true;
	mask = GENMASK_ULL(8 * band->idx + 7, 8 * band->idx);
	raw_spin_lock(&box->band_lock);
	if (box->band_users[band->idx] &&
	    (box->band_filter & mask) != band->config) {
		ok = false;
	} else {
		box->band_users[band->idx]++;
		box->band_filter = (box->band_filter & ~mask) | band->config;
		wrmsrl(box->pmu->kind->band_filter, box->band_filter);
	}
	raw_spin_unlock(&box->band_lock);
	return ok;
}

static void iuc_band_put(struct iuc_box *box, struct perf_event *event)
{
	if (event->hw.extra_reg.idx == IUC_NO_BAND)
		return;
	raw_spin_lock(&box->band_lock);
	box->band_users[event->hw.extra_reg.idx]--;
	raw_spin_unlock(&box->band_lock);
}

static int iuc_add(struct perf_event *event, int flags)
{
	struct iuc_box *box = event->pmu_private;
	const struct iuc_kind *kind = box->pmu->kind;
	struct hw_perf_event *hwc = &event->hw;
	int i = iuc_claim(box, event);

	if (i < 0)
		return -EINVAL;
	if (!iuc_band_get(box, event)) {
		WRITE_ONCE(box->slot[i], NULL);
		return -EINVAL;
	}
	hwc->idx = i;
	if (i == IUC_MAX_COUNTERS) {
		hwc->config_base = kind->fixed_ctl;
		hwc->event_base = kind->fixed_ctr;
	} else {
		hwc->config_base = box->pmu->ctl + i;
		hwc->event_base = box->pmu->ctr + i;
	}
	hwc->state = PERF_HES_STOPPED | PERF_HES_UPTODATE;

	/* A box gets busy: the package counts, and the timer runs. */
	if (atomic_inc_return(&box->nr_events) == 1) {
		if (iuc_global)
			wrmsrl(IUC_MSR_GLOBAL, IUC_GLOBAL_EN);
		if (kind->box_ctl)
			wrmsrl(kind->box_ctl, 0);
		hrtimer_start(&box->timer, ns_to_ktime(IUC_FOLD_NS),
			      HRTIMER_MODE_REL_PINNED_HARD);
	}
	if (flags & PERF_EF_START)
		iuc_start(event, 0);
	return 0;
}

static void iuc_del(struct perf_event *event, int flags)
{
	struct iuc_box *box = event->pmu_private;

	iuc_stop(event, PERF_EF_UPDATE);
	iuc_band_put(box, event);
	WRITE_ONCE(box->slot[event->hw.idx], NULL);
	event->hw.idx = -1;
	if (atomic_dec_and_test(&box->nr_events))
		hrtimer_try_to_cancel(&box->timer);
}

/*
 * Whether @event's group, with it, fits a box of @p.  As upstream counts:
 * the leader whatever its state, a sibling unless it is off, and only the
 * events of @p; the core keeps other hardware PMUs out of the group.
 */
static bool iuc_group_fits(struct iuc_pmu *p, struct perf_event *event)
{
	struct perf_event *leader = event->group_leader, *sib;
	int first = iuc_counter0_only(p, event->attr.config);
	int fixed = iuc_is_fixed(p, event->attr.config);
	int n = 1 - fixed;

	if (leader == event)
		return true;
	if (leader->pmu == event->pmu) {
		if (iuc_is_fixed(p, leader->attr.config))
			fixed++;
		else
			n++;
		first += iuc_counter0_only(p, leader->attr.config);
	}
	for_each_sibling_event(sib, leader) {
		if (sib->pmu != event->pmu ||
		    sib->state <= PERF_EVENT_STATE_OFF)
			continue;
		if (iuc_is_fixed(p, sib->attr.config))
			fixed++;
		else
			n++;
		first += iuc_counter0_only(p, sib->attr.config);
	}
	return n <= p->kind->counters && fixed <= 1 && first <= 1;
}

static int iuc_event_init(struct perf_event *event)
{
	struct iuc_pmu *p = to_iuc(event->pmu);
	u64 config = event->attr.config;
	unsigned int die;
	int reader;

	if (event->attr.type != event->pmu->type)
		return -ENOENT;
	/* Nothing here interrupts: counting only. */
	if (event->hw.sample_period)
		return -EINVAL;
	/* A package's counters, which no task owns. */
	if (event->cpu < 0)
		return -EINVAL;
	die = topology_logical_die_id(event->cpu);
	if (die >= iuc_nr_dies)
		return -EINVAL;
	reader = READ_ONCE(iuc_reader[die]);
	if (reader < 0)
		return -EINVAL;
	if (!iuc_config_ok(p, config))
		return -EINVAL;
	if (!iuc_group_fits(p, event))
		return -EINVAL;

	event->cpu = reader;
	event->pmu_private = &p->box[die];
	event->hw.config = config & p->kind->evsel;
	event->hw.extra_reg.idx = IUC_NO_BAND;
	/* The fixed counter's control takes the enable bit alone. */
	if (iuc_is_fixed(p, config))
		event->hw.config = 0;
	if (p->kind->band_filter && (config & 0xff) >= IUC_PCU_BAND0 &&
	    (config & 0xff) < IUC_PCU_BAND0 + IUC_BANDS) {
		int b = (config & 0xff) - IUC_PCU_BAND0;

		event->hw.extra_reg.idx = b;
		event->hw.extra_reg.config = event->attr.config1 &
					     GENMASK_ULL(8 * b + 7, 8 * b);
	}
	event->hw.idx = -1;
	return 0;
}

/* sysfs: the readers, each kind's format and the clock's one event. */
static ssize_t cpumask_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	return cpumap_print_to_pagebuf(true, buf, &iuc_readers);
}
static DEVICE_ATTR_RO(cpumask);

/* Upstream's uncore event strings end without a newline. */
static ssize_t clockticks_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	return strscpy(buf, "event=0xff", PAGE_SIZE);
}
static DEVICE_ATTR_RO(clockticks);

PMU_FORMAT_ATTR(event, "config:0-7");
PMU_FORMAT_ATTR(umask, "config:8-15");
PMU_FORMAT_ATTR(edge, "config:18");
PMU_FORMAT_ATTR(inv, "config:23");
PMU_FORMAT_ATTR(threshold, "config:24-29");
PMU_FORMAT_ATTR(cmask, "config:24-28");
PMU_FORMAT_ATTR(occ_invert, "config:30");
PMU_FORMAT_ATTR(occ_edge_det, "config:31");
PMU_FORMAT_ATTR(filter_band0, "config1:0-7");
PMU_FORMAT_ATTR(filter_band1, "config1:8-15");
PMU_FORMAT_ATTR(filter_band2, "config1:16-23");
PMU_FORMAT_ATTR(filter_band3, "config1:24-31");

/* The U-box's and the PCU's threshold fields: one name, two widths. */
static ssize_t thresh5_show(struct device *dev, struct device_attribute *attr,
			    char *page)
{
	return sysfs_emit(page, "config:24-28\n");
}

static ssize_t thresh8_show(struct device *dev, struct device_attribute *attr,
			    char *page)
{
	return sysfs_emit(page, "config:24-31\n");
}

static struct device_attribute format_attr_thresh5 =
	__ATTR(thresh, 0444, thresh5_show, NULL);
static struct device_attribute format_attr_thresh8 =
	__ATTR(thresh, 0444, thresh8_show, NULL);

static struct attribute *iuc_attrs[] = {
	&dev_attr_cpumask.attr,
	NULL,
};

static const struct attribute_group iuc_group = {
	.attrs = iuc_attrs,
};

/* The format files of each kind, by name. */
static struct attribute *iuc_cbox_format[] = {
	&format_attr_edge.attr,
	&format_attr_event.attr,
	&format_attr_inv.attr,
	&format_attr_threshold.attr,
	&format_attr_umask.attr,
	NULL,
};

static struct attribute *iuc_arb_format[] = {
	&format_attr_cmask.attr,
	&format_attr_edge.attr,
	&format_attr_event.attr,
	&format_attr_inv.attr,
	&format_attr_umask.attr,
	NULL,
};

static struct attribute *iuc_ubox_format[] = {
	&format_attr_edge.attr,
	&format_attr_event.attr,
	&format_attr_inv.attr,
	&format_attr_thresh5.attr,
	&format_attr_umask.attr,
	NULL,
};

static struct attribute *iuc_pcu_format[] = {
	&format_attr_edge.attr,
	&format_attr_event.attr,
	&format_attr_filter_band0.attr,
	&format_attr_filter_band1.attr,
	&format_attr_filter_band2.attr,
	&format_attr_filter_band3.attr,
	&format_attr_inv.attr,
	&format_attr_occ_edge_det.attr,
	&format_attr_occ_invert.attr,
	&format_attr_thresh8.attr,
	&format_attr_umask.attr,
	NULL,
};

static struct attribute *iuc_clock_format[] = {
	&format_attr_event.attr,
	NULL,
};

static struct attribute *iuc_clock_events[] = {
	&dev_attr_clockticks.attr,
	NULL,
};

static const struct attribute_group iuc_cbox_format_group = {
	.name = "format",
	.attrs = iuc_cbox_format,
};

static const struct attribute_group iuc_arb_format_group = {
	.name = "format",
	.attrs = iuc_arb_format,
};

static const struct attribute_group iuc_ubox_format_group = {
	.name = "format",
	.attrs = iuc_ubox_format,
};

static const struct attribute_group iuc_pcu_format_group = {
	.name = "format",
	.attrs = iuc_pcu_format,
};

static const struct attribute_group iuc_clock_format_group = {
	.name = "format",
	.attrs = iuc_clock_format,
};

static const struct attribute_group iuc_clock_events_group = {
	.name = "events",
	.attrs = iuc_clock_events,
};

static const struct attribute_group *iuc_cbox_groups[] = {
	&iuc_group, &iuc_cbox_format_group, NULL,
};

static const struct attribute_group *iuc_arb_groups[] = {
	&iuc_group, &iuc_arb_format_group, NULL,
};

static const struct attribute_group *iuc_clock_groups[] = {
	&iuc_group, &iuc_clock_format_group, &iuc_clock_events_group, NULL,
};

static const struct attribute_group *iuc_ubox_groups[] = {
	&iuc_group, &iuc_ubox_format_group, NULL,
};

static const struct attribute_group *iuc_pcu_groups[] = {
	&iuc_group, &iuc_pcu_format_group, NULL,
};

/* In upstream's order of registration. */
static const struct iuc_kind iuc_client_kinds[] = {
	{
		.name = "cbox", .ctl = 0x2000, .ctr = 0x2002,
		.counters = 2, .width = 44, .evsel = IUC_CBOX_EVSEL,
		.groups = iuc_cbox_groups,
	}, {
		.name = "arb", .boxes = 2, .ctl = 0x2fd0, .ctr = 0x2fd2,
		.counters = 2, .width = 44, .evsel = IUC_ARB_EVSEL,
		.arb = true, .groups = iuc_arb_groups,
	}, {
		.name = "clock", .boxes = 1, .ctl = 0x2fde, .ctr = 0x2fdf,
		.counters = 1, .width = 48, .fixed = true,
		.groups = iuc_clock_groups,
	},
};

static const struct iuc_kind iuc_server_kinds[] = {
	{
		.name = "ubox", .boxes = 1, .ctl = 0x705, .ctr = 0x709,
		.counters = 2, .width = 48, .evsel = IUC_UBOX_EVSEL,
		.fixed_ctl = 0x703, .fixed_ctr = 0x704,
		.groups = iuc_ubox_groups,
	}, {
		.name = "pcu", .boxes = 1, .ctl = 0x711, .ctr = 0x717,
		.counters = 4, .width = 48, .evsel = IUC_PCU_EVSEL,
		.box_ctl = 0x710, .band_filter = 0x715,
		.groups = iuc_pcu_groups,
	},
};

/* A part's kinds of boxes; client parts count their C-boxes first. */
struct iuc_part {
	const struct iuc_kind	*kinds;
	unsigned int		nr_kinds;
	bool			client;
};

static const struct iuc_part iuc_client = {
	iuc_client_kinds, ARRAY_SIZE(iuc_client_kinds), true,
};

static const struct iuc_part iuc_server = {
	iuc_server_kinds, ARRAY_SIZE(iuc_server_kinds), false,
};

static const struct x86_cpu_id iuc_models[] = {
	X86_MATCH_VFM(INTEL_ALDERLAKE, &iuc_client),
	X86_MATCH_VFM(INTEL_ALDERLAKE_L, &iuc_client),
	X86_MATCH_VFM(INTEL_ATOM_GRACEMONT, &iuc_client),
	X86_MATCH_VFM(INTEL_RAPTORLAKE, &iuc_client),
	X86_MATCH_VFM(INTEL_RAPTORLAKE_P, &iuc_client),
	X86_MATCH_VFM(INTEL_RAPTORLAKE_S, &iuc_client),
	X86_MATCH_VFM(INTEL_SKYLAKE_X, &iuc_server),
	X86_MATCH_VFM(INTEL_ICELAKE_X, &iuc_server),
	X86_MATCH_VFM(INTEL_ICELAKE_D, &iuc_server),
	{}
};
MODULE_DEVICE_TABLE(x86cpu, iuc_models);

/* Register box @idx of the @n of @kind as a PMU, with a box a die. */
static int __init iuc_add_pmu(const struct iuc_kind *kind, unsigned int idx,
			      unsigned int n)
{
	struct iuc_pmu *p;
	unsigned int die;
	int ret;

	p = kzalloc(struct_size(p, box, iuc_nr_dies), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	p->kind = kind;
	p->ctl = kind->ctl + IUC_BOX_STRIDE * idx;
	p->ctr = kind->ctr + IUC_BOX_STRIDE * idx;
	for (die = 0; die < iuc_nr_dies; die++) {
		struct iuc_box *box = &p->box[die];

		box->pmu = p;
		box->die = die;
		raw_spin_lock_init(&box->band_lock);
		hrtimer_init(&box->timer, CLOCK_MONOTONIC,
			     HRTIMER_MODE_REL_PINNED_HARD);
		box->timer.function = iuc_tick;
	}
	if (n == 1)
		snprintf(p->name, sizeof(p->name), "uncore_%s", kind->name);
	else
		snprintf(p->name, sizeof(p->name), "uncore_%s_%u", kind->name,
			 idx);
	p->pmu = (struct pmu) {
		.module		= THIS_MODULE,
		.task_ctx_nr	= perf_invalid_context,
		.attr_groups	= kind->groups,
		.event_init	= iuc_event_init,
		.add		= iuc_add,
		.del		= iuc_del,
		.start		= iuc_start,
		.stop		= iuc_stop,
		.read		= iuc_fold,
		.capabilities	= PERF_PMU_CAP_NO_EXCLUDE |
				  PERF_PMU_CAP_NO_INTERRUPT,
	};
	iuc_pmus[iuc_nr_pmus++] = p;

	ret = perf_pmu_register(&p->pmu, p->name, -1);
	if (ret)
		return ret;
	p->registered = true;
	return 0;
}

static void iuc_free_all(void)
{
	unsigned int die;

	while (iuc_nr_pmus) {
		struct iuc_pmu *p = iuc_pmus[--iuc_nr_pmus];

		if (p->registered)
			perf_pmu_unregister(&p->pmu);
		for (die = 0; die < iuc_nr_dies; die++)
			hrtimer_cancel(&p->box[die].timer);
		kfree(p);
	}
	kfree(iuc_reader);
	iuc_reader = NULL;
}

/* @cpu is up: the first of its package becomes the package's reader. */
static int iuc_cpu_online(unsigned int cpu)
{
	unsigned int die = topology_logical_die_id(cpu);

	if (die >= iuc_nr_dies)
		return 0;
	cpumask_set_cpu(cpu, &iuc_up);
	if (iuc_reader[die] >= 0)
		return 0;
	cpumask_set_cpu(cpu, &iuc_readers);
	WRITE_ONCE(iuc_reader[die], cpu);
	return 0;
}

/*
 * @cpu is going, and this runs on it while its events are still on the
 * counters: if it is its package's reader, another CPU of the package
 * takes its events over; after the package's last, nothing counts there.
 */
static int iuc_cpu_offline(unsigned int cpu)
{
	unsigned int die = topology_logical_die_id(cpu);
	int target = -1;
	unsigned int i;
	int j;

	if (!cpumask_test_and_clear_cpu(cpu, &iuc_up) ||
	    iuc_reader[die] != cpu)
		return 0;
	for_each_cpu(j, &iuc_up) {
		if (topology_logical_die_id(j) == die) {
			target = j;
			break;
		}
	}
	cpumask_clear_cpu(cpu, &iuc_readers);
	WRITE_ONCE(iuc_reader[die], target);
	if (target < 0) {
		if (iuc_global)
			wrmsrl(IUC_MSR_GLOBAL, 0);
		return 0;
	}
	cpumask_set_cpu(target, &iuc_readers);
	for (i = 0; i < iuc_nr_pmus; i++)
		perf_pmu_migrate_context(&iuc_pmus[i]->pmu, cpu, target);
	return 0;
}

static int __init iuc_init(void)
{
	const struct x86_cpu_id *id;
	const struct iuc_part *part;
	unsigned int die, k, i, n, cboxes = 0;
	u64 cfg;
	int ret;

	/* As upstream: a hypervisor need not pass these through. */
	if (boot_cpu_has(X86_FEATURE_HYPERVISOR))
		return -ENODEV;
	id = x86_match_cpu(iuc_models);
	if (!id)
		return -ENODEV;
	part = (const struct iuc_part *)id->driver_data;
	if (part->client) {
		if (rdmsrl_safe(IUC_MSR_CBOXES, &cfg))
			return -ENODEV;
		cboxes = cfg & IUC_CBOX_COUNT;
	}
	iuc_global = part->client;

	iuc_nr_dies = topology_max_packages() * topology_max_dies_per_package();
	iuc_reader = kmalloc_array(iuc_nr_dies, sizeof(*iuc_reader),
				   GFP_KERNEL);
	if (!iuc_reader)
		return -ENOMEM;
	for (die = 0; die < iuc_nr_dies; die++)
		iuc_reader[die] = -1;

	for (k = 0; k < part->nr_kinds; k++) {
		const struct iuc_kind *kind = &part->kinds[k];

		n = kind->boxes ? kind->boxes : cboxes;
		for (i = 0; i < n; i++) {
			ret = iuc_add_pmu(kind, i, n);
			if (ret)
				goto fail;
		}
	}
	ret = cpuhp_setup_state(CPUHP_AP_PERF_X86_UNCORE_ONLINE,
				"perf/x86/intel/uncore:online",
				iuc_cpu_online, iuc_cpu_offline);
	if (ret)
		goto fail;
	return 0;

fail:
	iuc_free_all();
	return ret;
}

static void __exit iuc_exit(void)
{
	cpuhp_remove_state(CPUHP_AP_PERF_X86_UNCORE_ONLINE);
	iuc_free_all();
}

module_init(iuc_init);
module_exit(iuc_exit);
