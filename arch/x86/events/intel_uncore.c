// SPDX-License-Identifier: GPL-2.0-only
/*
 * The uncore counters Intel parts keep in MSRs outside their cores, as
 * counting PMUs of CPU events: the client uncore of Alder Lake (and
 * Alder Lake-N) and Raptor Lake, and the U-box, PCU and I/O stacks of
 * Skylake-SP and Ice Lake-SP.  intel_uncore_parts.c holds each part's
 * boxes as data.
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
 * and six I/O stacks, N from 0 to 5, each with (box control first):
 *
 *   PMU            counts                 counters  box, CTL, CTR (box 0)  bits
 *   uncore_iio_N   the stack's PCIe root  4         skx 0xa40, 0xa48, 0xa41 48
 *                                                   icx 0xa50, 0xa58, 0xa51
 *   uncore_irp_N   its coherency engine   2         skx 0xa58, 0xa5b, 0xa59 48
 *                                                   icx 0xa4a, 0xa4d, 0xa4b
 *   uncore_m2pcie_N  its mesh stop (icx)  4         icx 0xa40, 0xa46, 0xa41 48
 *   uncore_iio_free_running_N             free-running, read only     36, 48
 *
 * A Skylake-SP stack's registers are 0x20 MSRs after the one before;
 * Ice Lake-SP's are 0, 0x20, 0x40, 0x90, 0xb0 and 0xd0 after stack 0's.
 * Some events count only on some counters (upstream's constraints: on
 * the IIO, 0x83 on counters 0-1, 0xc0 on 2-3, ...; on the M2PCIe, 0x14,
 * 0x23 and 0x2d on 0-1).  A free-running counter has no control: its
 * event is 0xff with a umask whose high nibble, less one, picks a type
 * (0x1-: the IIO clock; 0x2-: bandwidth; Skylake-SP's 0x3-: utilization)
 * and whose low nibble a port.  Any number of events may read one, and
 * a group of them always fits.
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
 * taken.)  When a PCU, IIO, IRP or M2PCIe box gets busy its box control
 * is written 0, so that no freeze left by firmware stops it.  These parts
 * have no global control register.
 *
 * A box's general counters are given out at each add: an event takes a
 * counter its constraint allows, and the box's events on this CPU move
 * to other counters when that makes room, as upstream reassigns a box's
 * counters when one is added (iuc_claim()).  A group opens when some
 * assignment of its events fits the box (iuc_group_fits()), counting
 * as upstream does.
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
 * second, Skylake-SP's 36-bit IIO clock in 68 seconds, unseen: while a
 * box has events, an hrtimer on the reader folds their counts every 60
 * seconds, as upstream.
 *
 * Locking and lifetime: add, del, start, stop, read and the hrtimer (a
 * hard one, pinned) run on the reader with interrupts off.  An event
 * opened as its reader goes offline may land on that CPU after the
 * others have moved on, so a box's counters (its slots), its list of
 * free-running events and the PCU's band filter change under the box's
 * lock, a raw spinlock; only events on the CPU that holds it are moved
 * or folded, and the box's timer may run on neither CPU until the box
 * is next idle.  The readers change only in the hotplug callbacks, which
 * the hotplug lock serialises; event_init reads a package's reader once.
 * The boxes of every die the topology can have are made at init and
 * freed at exit, so nothing is allocated at hotplug.  The PMUs live as
 * long as the module, which each event holds.
 */
#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/cpufeature.h>
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/device.h>
#include <linux/hrtimer.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/perf_event.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/sysfs.h>
#include <linux/topology.h>

#include <asm/cpu_device_id.h>
#include <asm/intel-family.h>
#include <asm/msr.h>

#include "assign.h"
#include "intel_uncore.h"

MODULE_DESCRIPTION("Intel uncore PMUs: Alder Lake's and Raptor Lake's client uncore, Skylake-SP's and Ice Lake-SP's U-box, PCU, IIO, IRP and M2PCIe");
MODULE_LICENSE("GPL");

#define IUC_MSR_CBOXES		0x396		/* bits 3:0: how many */
#define IUC_CBOX_COUNT		GENMASK_ULL(3, 0)
#define IUC_MSR_GLOBAL		0x2ff0
#define IUC_GLOBAL_EN		BIT_ULL(29)
#define IUC_CTL_EN		BIT_ULL(22)
#define IUC_MAX_PMUS		32
#define IUC_FIXED		IUC_MAX_COUNTERS	/* its slot */
#define IUC_FREE		(IUC_MAX_COUNTERS + 1)	/* hw.idx */
#define IUC_FREE_UMASK		0x10	/* free-running type 0, counter 0 */
#define IUC_NO_BAND		-1
#define IUC_BANDS		4
#define IUC_PCU_BAND0		0x0b
#define IUC_FOLD_NS		(60 * NSEC_PER_SEC)

struct iuc_pmu;

/* One PMU's counters in one package (die). */
struct iuc_box {
	struct iuc_pmu		*pmu;
	unsigned int		die;
	atomic_t		nr_events;	/* added: running or stopped */
	struct hrtimer		timer;
	raw_spinlock_t		lock;		/* all below */
	struct perf_event	*slot[IUC_MAX_COUNTERS + 1];	/* fixed last */
	struct list_head	free_events;	/* by active_entry */
	u64			band_filter;	/* what the PCU's holds */
	unsigned int		band_users[IUC_BANDS];
};

struct iuc_pmu {
	struct pmu		pmu;
	const struct iuc_kind	*kind;
	unsigned int		idx;		/* of the kind's boxes */
	u32			ctl;		/* counter 0's control MSR */
	u32			ctr;		/* counter 0 */
	u32			box_ctl;
	bool			registered;
	char			name[32];
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

static void iuc_fold_here(struct perf_event *event, int cpu)
{
	if (event && READ_ONCE(event->oncpu) == cpu &&
	    !(event->hw.state & PERF_HES_STOPPED))
		iuc_fold(event);
}

static enum hrtimer_restart iuc_tick(struct hrtimer *timer)
{
	struct iuc_box *box = container_of(timer, struct iuc_box, timer);
	int cpu = smp_processor_id();
	struct perf_event *event;
	int i;

	if (!atomic_read(&box->nr_events) ||
	    READ_ONCE(iuc_reader[box->die]) != cpu)
		return HRTIMER_NORESTART;
	raw_spin_lock(&box->lock);
	for (i = 0; i < ARRAY_SIZE(box->slot); i++)
		iuc_fold_here(box->slot[i], cpu);
	list_for_each_entry(event, &box->free_events, active_entry)
		iuc_fold_here(event, cpu);
	raw_spin_unlock(&box->lock);
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
	if (hwc->config_base)
		wrmsrl(hwc->config_base, hwc->config | IUC_CTL_EN);
}

static void iuc_stop(struct perf_event *event, int flags)
{
	struct hw_perf_event *hwc = &event->hw;

	if (!(hwc->state & PERF_HES_STOPPED)) {
		if (hwc->config_base)
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

/*
 * The free-running counter @config reads in @p's box, or 0 if it names
 * none.  As upstream: event 0xff, and a umask of 0x10 or more whose high
 * nibble, less one, picks the type and low nibble the counter; config
 * bits above the umask make the type one the box has not.
 */
static u32 iuc_free_msr(const struct iuc_pmu *p, u64 config)
{
	const struct iuc_free *f;
	u64 umask = config >> 8;
	u64 type = (umask - IUC_FREE_UMASK) >> 4;
	unsigned int i = umask & 0xf;

	if ((config & 0xff) != IUC_CLOCKTICKS || umask < IUC_FREE_UMASK ||
	    type >= p->kind->nr_free)
		return 0;
	f = &p->kind->free[type];
	if (i >= f->n)
		return 0;
	return f->msr + i + (f->offsets ? f->offsets[p->idx] :
			     f->stride * p->idx);
}

/* Whether @config is an event of @p; see the top of the file. */
static bool iuc_config_ok(const struct iuc_pmu *p, u64 config)
{
	if (p->kind->free)
		return iuc_free_msr(p, config);
	if (p->kind->fixed)
		return config == IUC_CLOCKTICKS;
	if (iuc_is_fixed(p, config))
		return true;
	if ((config & 0xff) != IUC_CLOCKTICKS)
		return true;
	return config != IUC_CLOCKTICKS && ((config >> 8) & 0xff) < 0x10;
}

/* The general counters of @p's box the event @config may count on. */
static unsigned int iuc_counters(const struct iuc_pmu *p, u64 config)
{
	const struct iuc_constraint *c = p->kind->constraints;

	for (; c && c->counters; c++) {
		if ((config & 0xff) == c->code)
			return c->counters;
	}
	return GENMASK(p->kind->counters - 1, 0);
}

/*
 * A general counter of @box for @event, under the box's lock, or -1.
 * The box's events on this CPU may move to other counters to make room,
 * as upstream reassigns a box's counters at each add; an event that
 * landed on another CPU (its reader went offline as it was added) stays
 * where it is.  x86_assign_counters() keeps every event that can where
 * it is.
 */
static int iuc_claim(struct iuc_box *box, struct perf_event *event)
{
	struct x86_assign_req req[IUC_MAX_COUNTERS + 1];
	struct perf_event *ev[IUC_MAX_COUNTERS + 1];
	bool running[IUC_MAX_COUNTERS + 1];
	int idx[IUC_MAX_COUNTERS + 1];
	int cpu = smp_processor_id();
	int i, n = 0;

	for (i = 0; i < box->pmu->kind->counters; i++) {
		if (!box->slot[i])
			continue;
		ev[n] = box->slot[i];
		req[n].mask = READ_ONCE(ev[n]->oncpu) == cpu ?
			      iuc_counters(box->pmu, ev[n]->hw.config) : BIT(i);
		req[n].prev = i;
		req[n].pair = false;
		n++;
	}
	ev[n] = event;
	req[n].mask = iuc_counters(box->pmu, event->hw.config);
	req[n].prev = -1;
	req[n].pair = false;
	if (x86_assign_counters(req, n + 1, 0, idx))
		return -1;

	/* Empty the counters that change hands, then fill them. */
	for (i = 0; i < n; i++) {
		struct hw_perf_event *hwc = &ev[i]->hw;

		if (hwc->idx == idx[i])
			continue;
		running[i] = !(hwc->state & PERF_HES_STOPPED);
		iuc_stop(ev[i], PERF_EF_UPDATE);
		box->slot[hwc->idx] = NULL;
	}
	for (i = 0; i < n; i++) {
		struct hw_perf_event *hwc = &ev[i]->hw;

		if (hwc->idx == idx[i])
			continue;
		hwc->idx = idx[i];
		hwc->config_base = box->pmu->ctl + idx[i];
		hwc->event_base = box->pmu->ctr + idx[i];
		box->slot[idx[i]] = ev[i];
		if (running[i])
			iuc_start(ev[i], 0);
	}
	box->slot[idx[n]] = event;
	return idx[n];
}

/*
 * The PCU's band filter for @event, under the box's lock, if it is a
 * band event: its threshold goes into the band's byte unless events of
 * the band counting already asked for another.  False when it cannot
 * count now.
 */
static bool iuc_band_get(struct iuc_box *box, struct perf_event *event)
{
	struct hw_perf_event_extra *band = &event->hw.extra_reg;
	u64 mask;

	if (band->idx == IUC_NO_BAND)
		return true;
	mask = GENMASK_ULL(8 * band->idx + 7, 8 * band->idx);
	if (box->band_users[band->idx] &&
	    (box->band_filter & mask) != band->config)
		return false;
	box->band_users[band->idx]++;
	box->band_filter = (box->band_filter & ~mask) | band->config;
	wrmsrl(box->pmu->kind->band_filter, box->band_filter);
	return true;
}

/* Put @event on a counter of @box, under its lock: false if none. */
static bool iuc_place(struct iuc_box *box, struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;
	int i;

	if (hwc->idx == IUC_FREE) {
		list_add_tail(&event->active_entry, &box->free_events);
		return true;
	}
	if (iuc_is_fixed(box->pmu, event->attr.config)) {
		if (box->slot[IUC_FIXED])
			return false;
		box->slot[IUC_FIXED] = event;
		hwc->idx = IUC_FIXED;
		hwc->config_base = box->pmu->kind->fixed_ctl;
		hwc->event_base = box->pmu->kind->fixed_ctr;
		return true;
	}
	if (!iuc_band_get(box, event))
		return false;
	i = iuc_claim(box, event);
	if (i < 0) {
		if (hwc->extra_reg.idx != IUC_NO_BAND)
			box->band_users[hwc->extra_reg.idx]--;
		return false;
	}
	hwc->idx = i;
	hwc->config_base = box->pmu->ctl + i;
	hwc->event_base = box->pmu->ctr + i;
	return true;
}

static int iuc_add(struct perf_event *event, int flags)
{
	struct iuc_box *box = event->pmu_private;
	struct hw_perf_event *hwc = &event->hw;
	bool ok;

	raw_spin_lock(&box->lock);
	ok = iuc_place(box, event);
	raw_spin_unlock(&box->lock);
	if (!ok)
		return -EINVAL;
	hwc->state = PERF_HES_STOPPED | PERF_HES_UPTODATE;

	/* A box gets busy: the package counts, and the timer runs. */
	if (atomic_inc_return(&box->nr_events) == 1) {
		if (iuc_global)
			wrmsrl(IUC_MSR_GLOBAL, IUC_GLOBAL_EN);
		if (box->pmu->box_ctl)
			wrmsrl(box->pmu->box_ctl, 0);
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
	struct hw_perf_event *hwc = &event->hw;

	iuc_stop(event, PERF_EF_UPDATE);
	raw_spin_lock(&box->lock);
	if (hwc->idx == IUC_FREE) {
		list_del_init(&event->active_entry);
	} else {
		if (hwc->extra_reg.idx != IUC_NO_BAND)
			box->band_users[hwc->extra_reg.idx]--;
		box->slot[hwc->idx] = NULL;
		hwc->idx = -1;
	}
	raw_spin_unlock(&box->lock);
	if (atomic_dec_and_test(&box->nr_events))
		hrtimer_try_to_cancel(&box->timer);
}

/* The counters a group asks of a box, as iuc_group_fits() counts them. */
struct iuc_fit {
	struct x86_assign_req	req[IUC_MAX_COUNTERS + 1];
	int			n;
	int			fixed;
};

/* Count the event @config into @f: false when @p's box has too few. */
static bool iuc_fit_one(const struct iuc_pmu *p, struct iuc_fit *f,
			u64 config)
{
	if (iuc_is_fixed(p, config))
		return ++f->fixed <= 1;
	if (f->n == p->kind->counters)
		return false;
	f->req[f->n].mask = iuc_counters(p, config);
	f->req[f->n].prev = -1;
	f->req[f->n++].pair = false;
	return true;
}

/*
 * Whether @event's group, with it, fits a box of @p.  As upstream counts:
 * the leader whatever its state, a sibling unless it is off, and only the
 * events of @p; the core keeps other hardware PMUs out of the group.  A
 * free-running event always fits: it has its counter to itself.
 */
static bool iuc_group_fits(struct iuc_pmu *p, struct perf_event *event)
{
	struct perf_event *leader = event->group_leader, *sib;
	int idx[IUC_MAX_COUNTERS + 1];
	struct iuc_fit f = {};

	if (leader == event || p->kind->free)
		return true;
	if (leader->pmu == event->pmu &&
	    !iuc_fit_one(p, &f, leader->attr.config))
		return false;
	for_each_sibling_event(sib, leader) {
		if (sib->pmu != event->pmu ||
		    sib->state <= PERF_EVENT_STATE_OFF)
			continue;
		if (!iuc_fit_one(p, &f, sib->attr.config))
			return false;
	}
	if (!iuc_fit_one(p, &f, event->attr.config))
		return false;
	return !x86_assign_counters(f.req, f.n, 0, idx);
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
	event->hw.config_base = 0;
	event->hw.extra_reg.idx = IUC_NO_BAND;
	event->hw.idx = -1;
	if (p->kind->free) {
		/* Read only, never programmed: no control register. */
		event->hw.idx = IUC_FREE;
		event->hw.event_base = iuc_free_msr(p, config);
	}
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
	return 0;
}

/* sysfs: the readers; the format and event files are the parts'. */
static ssize_t cpumask_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	return cpumap_print_to_pagebuf(true, buf, &iuc_readers);
}
static DEVICE_ATTR_RO(cpumask);

static struct attribute *iuc_attrs[] = {
	&dev_attr_cpumask.attr,
	NULL,
};

const struct attribute_group iuc_group = {
	.attrs = iuc_attrs,
};

static const struct x86_cpu_id iuc_models[] = {
	X86_MATCH_VFM(INTEL_ALDERLAKE, &iuc_client),
	X86_MATCH_VFM(INTEL_ALDERLAKE_L, &iuc_client),
	X86_MATCH_VFM(INTEL_ATOM_GRACEMONT, &iuc_client),
	X86_MATCH_VFM(INTEL_RAPTORLAKE, &iuc_client),
	X86_MATCH_VFM(INTEL_RAPTORLAKE_P, &iuc_client),
	X86_MATCH_VFM(INTEL_RAPTORLAKE_S, &iuc_client),
	X86_MATCH_VFM(INTEL_SKYLAKE_X, &iuc_skx),
	X86_MATCH_VFM(INTEL_ICELAKE_X, &iuc_icx),
	X86_MATCH_VFM(INTEL_ICELAKE_D, &iuc_icx),
	{}
};
MODULE_DEVICE_TABLE(x86cpu, iuc_models);

/* Register box @idx of the @n of @kind as a PMU, with a box a die. */
static int __init iuc_add_pmu(const struct iuc_kind *kind, unsigned int idx,
			      unsigned int n)
{
	u32 off = kind->offsets ? kind->offsets[idx] : kind->stride * idx;
	struct iuc_pmu *p;
	unsigned int die;
	int ret;

	if (WARN_ON_ONCE(iuc_nr_pmus == IUC_MAX_PMUS))
		return -EINVAL;
	p = kzalloc(struct_size(p, box, iuc_nr_dies), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	p->kind = kind;
	p->idx = idx;
	p->ctl = kind->ctl + off;
	p->ctr = kind->ctr + off;
	p->box_ctl = kind->box_ctl ? kind->box_ctl + off : 0;
	for (die = 0; die < iuc_nr_dies; die++) {
		struct iuc_box *box = &p->box[die];

		box->pmu = p;
		box->die = die;
		raw_spin_lock_init(&box->lock);
		INIT_LIST_HEAD(&box->free_events);
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
	iuc_parts_init();

	iuc_nr_dies = topology_max_packages() * topology_max_dies_per_package();
	iuc_reader = kmalloc_array(iuc_nr_dies, sizeof(*iuc_reader),
				   GFP_KERNEL);
	if (!iuc_reader)
		return -ENOMEM;
	for (die = 0; die < iuc_nr_dies; die++)
		iuc_reader[die] = -1;

	for (k = 0; k < part->nr_kinds; k++) {
		const struct iuc_kind *kind = part->kinds[k];

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
