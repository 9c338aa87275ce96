// SPDX-License-Identifier: GPL-2.0
/*
 * The PMU registry: type numbers, finding the PMU for a new event, the
 * default transaction callbacks, and the event_source bus in sysfs.
 *
 * Locking: pmus_lock (a mutex) serialises registration and the scopes'
 * CPU hotplug (scope.c); the list of PMUs is walked under SRCU
 * (pmus_srcu), because event_init may sleep.  pmus_lock comes before the
 * CPU contexts' mutexes, which moving a scoped PMU's events takes.  Type
 * numbers are kept in an IDR: the fixed ABI types for the PMUs that own
 * them, PERF_TYPE_MAX and up for the rest.
 */
#include <linux/cpumask.h>
#include <linux/device.h>
#include <linux/idr.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/srcu.h>

#include "internal.h"

static LIST_HEAD(pmus);
static DEFINE_MUTEX(pmus_lock);
DEFINE_SRCU(pmus_srcu);
static DEFINE_IDR(pmu_idr);
static bool pmu_bus_running;

static void pmu_nop(struct pmu *pmu)
{
}

/**
 * perf_pmu_disable - stop a PMU from counting on this CPU (nesting)
 * @pmu: the PMU
 */
void perf_pmu_disable(struct pmu *pmu)
{
	/* A PMU without the callbacks (software ones) has nothing to count. */
	if (pmu->pmu_disable == pmu_nop)
		return;
	/* Only the outermost call reaches the driver. */
	if (this_cpu_inc_return(*pmu->pmu_disable_count) == 1)
		pmu->pmu_disable(pmu);
}

/**
 * perf_pmu_enable - undo one perf_pmu_disable()
 * @pmu: the PMU
 */
void perf_pmu_enable(struct pmu *pmu)
{
	if (pmu->pmu_enable == pmu_nop)
		return;
	if (this_cpu_dec_return(*pmu->pmu_disable_count) == 0)
		pmu->pmu_enable(pmu);
}

static void pmu_nop_txn(struct pmu *pmu, unsigned int flags)
{
}

static int pmu_nop_commit(struct pmu *pmu)
{
	return 0;
}

/* With a real enable/disable, a transaction is a disabled stretch. */
static void pmu_start_txn_disable(struct pmu *pmu, unsigned int flags)
{
	perf_pmu_disable(pmu);
}

static int pmu_commit_txn_enable(struct pmu *pmu)
{
	perf_pmu_enable(pmu);
	return 0;
}

static void pmu_cancel_txn_enable(struct pmu *pmu)
{
	perf_pmu_enable(pmu);
}

static int pmu_event_idx_none(struct perf_event *event)
{
	return 0;
}

/**
 * perf_pmu_put - drop the module reference an event holds on its PMU
 * @pmu: the PMU
 */
void perf_pmu_put(struct pmu *pmu)
{
	module_put(pmu->module);
}

/* ---- sysfs: /sys/bus/event_source/devices/<pmu>/ ---- */

static ssize_t type_show(struct device *dev, struct device_attribute *attr,
			 char *page)
{
	struct pmu *pmu = dev_get_drvdata(dev);

	return sysfs_emit(page, "%d\n", pmu->type);
}
static DEVICE_ATTR_RO(type);

static ssize_t perf_event_mux_interval_ms_show(struct device *dev,
					       struct device_attribute *attr,
					       char *page)
{
	struct pmu *pmu = dev_get_drvdata(dev);

	return sysfs_emit(page, "%d\n", pmu->hrtimer_interval_ms);
}

static ssize_t perf_event_mux_interval_ms_store(struct device *dev,
						struct device_attribute *attr,
						const char *buf, size_t count)
{
	struct pmu *pmu = dev_get_drvdata(dev);
	int ms, err;

	err = kstrtoint(buf, 0, &ms);
	if (err)
		return err;
	if (ms < 1)
		return -EINVAL;

	mutex_lock(&pmus_lock);
	err = perf_mux_interval_set(pmu, ms);
	mutex_unlock(&pmus_lock);
	return err ? err : count;
}
static DEVICE_ATTR_RW(perf_event_mux_interval_ms);

static ssize_t nr_addr_filters_show(struct device *dev,
				    struct device_attribute *attr, char *page)
{
	struct pmu *pmu = dev_get_drvdata(dev);

	return sysfs_emit(page, "%d\n", pmu->nr_addr_filters);
}
static DEVICE_ATTR_RO(nr_addr_filters);

/* A scoped PMU's CPUs, those perf opens its events on (scope.c). */
static ssize_t cpumask_show(struct device *dev, struct device_attribute *attr,
			    char *page)
{
	struct pmu *pmu = dev_get_drvdata(dev);
	const struct cpumask *readers = perf_scope_readers(pmu->scope);

	return readers ? cpumap_print_to_pagebuf(true, page, readers) : 0;
}
static DEVICE_ATTR_RO(cpumask);

/*
 * Every PMU device shows these; nr_addr_filters only where it matters,
 * cpumask only for a scoped PMU.
 */
static struct attribute *perf_pmu_std_attrs[] = {
	&dev_attr_cpumask.attr,
	&dev_attr_nr_addr_filters.attr,
	&dev_attr_perf_event_mux_interval_ms.attr,
	&dev_attr_type.attr,
	NULL,
};

static umode_t perf_pmu_attr_visible(struct kobject *kobj, struct attribute *a,
				     int n)
{
	struct pmu *pmu = dev_get_drvdata(kobj_to_dev(kobj));
	bool hide = (a == &dev_attr_nr_addr_filters.attr && !pmu->nr_addr_filters) ||
		    (a == &dev_attr_cpumask.attr && pmu->scope == PERF_PMU_SCOPE_NONE);

	return hide ? 0 : a->mode;
}

static const struct attribute_group perf_pmu_std_group = {
	.attrs = perf_pmu_std_attrs,
	.is_visible = perf_pmu_attr_visible,
};

static const struct attribute_group *perf_pmu_std_groups[] = {
	&perf_pmu_std_group,
	NULL,
};

static const struct bus_type perf_pmu_bus = {
	.dev_groups = perf_pmu_std_groups,
	.name = "event_source",
};

static void perf_pmu_dev_free(struct device *dev)
{
	kfree(dev);
}

/* Create /sys/bus/event_source/devices/<name> for a registered PMU. */
static int perf_pmu_add_device(struct pmu *pmu)
{
	struct device *dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	int err;

	if (!dev)
		return -ENOMEM;
	device_initialize(dev);
	dev->release = perf_pmu_dev_free;
	dev->bus = &perf_pmu_bus;
	dev->parent = pmu->parent;
	dev->groups = pmu->attr_groups;
	dev_set_drvdata(dev, pmu);

	err = dev_set_name(dev, "%s", pmu->name);
	if (!err)
		err = device_add(dev);
	if (err)
		goto put;
	/* Groups added after registration (driver-detected features). */
	if (pmu->attr_update) {
		err = sysfs_update_groups(&dev->kobj, pmu->attr_update);
		if (err) {
			device_del(dev);
			goto put;
		}
	}
	pmu->dev = dev;
	return 0;
put:
	put_device(dev);
	return err;
}

/**
 * perf_event_sysfs_show - show() of a PMU_EVENT_ATTR_STRING() entry
 * @dev: the PMU's device
 * @attr: the entry
 * @page: the buffer
 *
 * Return: bytes written.
 */
ssize_t perf_event_sysfs_show(struct device *dev, struct device_attribute *attr,
			      char *page)
{
	struct perf_pmu_events_attr *ea = container_of(attr, struct perf_pmu_events_attr, attr);

	return ea->event_str ? sysfs_emit(page, "%s\n", ea->event_str) : 0;
}
EXPORT_SYMBOL_GPL(perf_event_sysfs_show);

/* PMUs registered before the bus existed get their devices now. */
static int __init perf_pmu_bus_init(void)
{
	struct pmu *pmu;
	int err;

	mutex_lock(&pmus_lock);
	err = bus_register(&perf_pmu_bus);
	if (!err) {
		list_for_each_entry(pmu, &pmus, entry) {
			if (!pmu->name || pmu->dev == PMU_NULL_DEV)
				continue;
			WARN(perf_pmu_add_device(pmu), "perf: no sysfs device for PMU %s\n",
			     pmu->name);
		}
		pmu_bus_running = true;
	}
	mutex_unlock(&pmus_lock);
	return err;
}
device_initcall(perf_pmu_bus_init);

/**
 * perf_pmu_register - make a PMU available to perf_event_open()
 * @pmu: the PMU, filled in by its driver
 * @name: its name in sysfs, or NULL for none
 * @type: a fixed PERF_TYPE_* number, or -1 for a dynamic one
 *
 * Return: 0 or a negative errno.
 */
int perf_pmu_register(struct pmu *pmu, const char *name, int type)
{
	int cpu, ret;

	if (WARN_ONCE(pmu->scope >= PERF_PMU_MAX_SCOPE,
		      "perf: PMU %s has an invalid scope %u\n", name, pmu->scope))
		return -EINVAL;

	mutex_lock(&pmus_lock);
	ret = -ENOMEM;
	pmu->pmu_disable_count = alloc_percpu(int);
	if (!pmu->pmu_disable_count)
		goto unlock;

	pmu->name = name;
	if (type >= 0)
		ret = idr_alloc(&pmu_idr, pmu, type, type + 1, GFP_KERNEL);
	else
		ret = idr_alloc(&pmu_idr, pmu, PERF_TYPE_MAX, 0, GFP_KERNEL);
	if (ret < 0)
		goto free_count;
	pmu->type = ret;

	pmu->cpu_pmu_context = alloc_percpu(struct perf_cpu_pmu_context);
	ret = -ENOMEM;
	if (!pmu->cpu_pmu_context)
		goto free_idr;
	if (!pmu->hrtimer_interval_ms)
		pmu->hrtimer_interval_ms = 4;
	for_each_possible_cpu(cpu)
		perf_cpu_pmu_context_init(per_cpu_ptr(pmu->cpu_pmu_context, cpu),
					  pmu, cpu);

	if (!pmu->pmu_enable) {
		pmu->pmu_enable = pmu_nop;
		pmu->pmu_disable = pmu_nop;
	}
	if (!pmu->start_txn) {
		if (pmu->pmu_enable != pmu_nop) {
			pmu->start_txn = pmu_start_txn_disable;
			pmu->commit_txn = pmu_commit_txn_enable;
			pmu->cancel_txn = pmu_cancel_txn_enable;
		} else {
			pmu->start_txn = pmu_nop_txn;
			pmu->commit_txn = pmu_nop_commit;
			pmu->cancel_txn = pmu_nop;
		}
	}
	if (!pmu->event_idx)
		pmu->event_idx = pmu_event_idx_none;

	if (pmu_bus_running && name && pmu->dev != PMU_NULL_DEV) {
		ret = perf_pmu_add_device(pmu);
		if (ret)
			goto free_cpc;
	}

	/* Specific PMUs first: the software ones are the catch-all. */
	if (type == PERF_TYPE_SOFTWARE || !name)
		list_add_tail_rcu(&pmu->entry, &pmus);
	else
		list_add_rcu(&pmu->entry, &pmus);
	mutex_unlock(&pmus_lock);
	return 0;

free_cpc:
	free_percpu(pmu->cpu_pmu_context);
free_idr:
	idr_remove(&pmu_idr, pmu->type);
free_count:
	free_percpu(pmu->pmu_disable_count);
unlock:
	mutex_unlock(&pmus_lock);
	return ret;
}
EXPORT_SYMBOL_GPL(perf_pmu_register);

/**
 * perf_pmu_unregister - withdraw a PMU; no event may still use it
 * @pmu: the PMU
 */
void perf_pmu_unregister(struct pmu *pmu)
{
	int cpu;

	mutex_lock(&pmus_lock);
	list_del_rcu(&pmu->entry);
	idr_remove(&pmu_idr, pmu->type);
	mutex_unlock(&pmus_lock);

	synchronize_srcu(&pmus_srcu);
	synchronize_rcu();

	for_each_possible_cpu(cpu)
		perf_mux_hrtimer_cancel(per_cpu_ptr(pmu->cpu_pmu_context, cpu));
	if (pmu->dev && pmu->dev != PMU_NULL_DEV)
		device_unregister(pmu->dev);
	free_percpu(pmu->cpu_pmu_context);
	free_percpu(pmu->pmu_disable_count);
}
EXPORT_SYMBOL_GPL(perf_pmu_unregister);

/**
 * perf_pmus_cpu_up - a CPU comes up: the scopes it reads
 * @cpu: the CPU
 */
void perf_pmus_cpu_up(unsigned int cpu)
{
	mutex_lock(&pmus_lock);
	perf_scope_cpu_up(cpu);
	mutex_unlock(&pmus_lock);
}

/**
 * perf_pmus_cpu_down - a CPU goes: scoped PMUs' events move off it
 * @cpu: the CPU, still online
 *
 * Each scoped PMU's events on @cpu move to the CPU that reads its scope
 * from now on; where no CPU of the scope is left, they stay and are
 * emptied out with the rest of the CPU's context.
 */
void perf_pmus_cpu_down(unsigned int cpu)
{
	int to[PERF_PMU_MAX_SCOPE];
	struct pmu *pmu;

	mutex_lock(&pmus_lock);
	perf_scope_cpu_down(cpu, to);
	list_for_each_entry(pmu, &pmus, entry) {
		if (pmu->scope != PERF_PMU_SCOPE_NONE && to[pmu->scope] >= 0)
			perf_pmu_migrate_context(pmu, cpu, to[pmu->scope]);
	}
	mutex_unlock(&pmus_lock);
}

static bool uses_extended_regs(struct perf_event *event)
{
	u64 regs = event->attr.sample_regs_user | event->attr.sample_regs_intr;

	return regs & PERF_REG_EXTENDED_MASK;
}

/*
 * Offer @ev to @pmu.  Returns 0 when the PMU took it (ev->pmu set and a
 * module reference held), else the PMU's error with nothing left behind.
 */
static int try_init_event(struct pmu *pmu, struct perf_event *ev)
{
	struct perf_event *leader = ev->group_leader;
	struct perf_event_context *locked = NULL;
	int err;

	if (!try_module_get(pmu->module))
		return -ENODEV;

	/*
	 * A hardware PMU may look at the group it is asked to join, whose
	 * members are stable under the leader's context mutex.  A copy's
	 * leader that is in no context yet is seen by no one else: a lazy
	 * copy is made under that very mutex (perf_lazy_work()), so it
	 * must not be taken again.
	 */
	if (leader != ev && pmu->task_ctx_nr != perf_sw_context &&
	    !(ev->parent && !(leader->attach_state & PERF_ATTACH_CONTEXT)))
		locked = perf_event_ctx_lock_nested(leader, SINGLE_DEPTH_NESTING);
	ev->pmu = pmu;
	err = pmu->event_init(ev);
	if (locked)
		perf_event_ctx_unlock(leader, locked);

	if (!err && uses_extended_regs(ev) &&
	    !(pmu->capabilities & PERF_PMU_CAP_EXTENDED_REGS))
		err = -EOPNOTSUPP;
	if (!err && event_has_any_exclude_flag(ev) &&
	    (pmu->capabilities & PERF_PMU_CAP_NO_EXCLUDE))
		err = -EINVAL;
	if (!err)
		err = perf_scope_event_init(ev);
	if (!err)
		return 0;

	/* event_init may have set up what destroy tears down. */
	if (ev->destroy)
		ev->destroy(ev);
	ev->destroy = NULL;
	ev->pmu = NULL;
	module_put(pmu->module);
	return err;
}

/**
 * perf_init_event - find the PMU that accepts a new event
 * @ev: the event; attr.type may be rewritten by a PMU that forwards the
 *      event to another PMU
 *
 * A copy tries its parent's PMU first.  Hardware and cache types may name
 * a PMU in the upper config bits; without one they go to whoever owns
 * PERF_TYPE_RAW.  Types nobody owns are offered to every PMU.
 *
 * Return: the PMU, or an ERR_PTR (-ENOENT when nobody wants it).
 */
struct pmu *perf_init_event(struct perf_event *ev)
{
	struct pmu *pmu, *found = ERR_PTR(-ENOENT);
	u32 want = ev->attr.type;
	bool named_pmu = false;
	int idx, err, hops;

	idx = srcu_read_lock(&pmus_srcu);
	ev->orig_type = want;

	if (ev->parent && ev->parent->pmu &&
	    !try_init_event(ev->parent->pmu, ev)) {
		found = ev->parent->pmu;
		goto out;
	}

	if (want == PERF_TYPE_HARDWARE || want == PERF_TYPE_HW_CACHE) {
		u32 target = ev->attr.config >> PERF_PMU_TYPE_SHIFT;

		named_pmu = target != 0;
		if (named_pmu)
			ev->attr.config &= PERF_HW_EVENT_MASK;
		want = named_pmu ? target : PERF_TYPE_RAW;
	}

	for (hops = 0; hops < 4; hops++) {
		rcu_read_lock();
		pmu = idr_find(&pmu_idr, want);
		rcu_read_unlock();
		if (!pmu)
			goto scan;
		/* Only PMUs that say so take hardware events by their type. */
		if (want != ev->attr.type && want != PERF_TYPE_RAW &&
		    !(pmu->capabilities & PERF_PMU_CAP_EXTENDED_HW_TYPE))
			goto out;
		err = try_init_event(pmu, ev);
		if (!err) {
			found = pmu;
			goto out;
		}
		/* Forwarded: the PMU pointed attr.type somewhere else. */
		if (err == -ENOENT && ev->attr.type != want && !named_pmu) {
			want = ev->attr.type;
			continue;
		}
		found = ERR_PTR(err);
		goto out;
	}
	goto out;

scan:
	list_for_each_entry_srcu(pmu, &pmus, entry, srcu_read_lock_held(&pmus_srcu)) {
		err = try_init_event(pmu, ev);
		if (err == -ENOENT)
			continue;
		found = err ? ERR_PTR(err) : pmu;
		break;
	}
out:
	srcu_read_unlock(&pmus_srcu, idx);
	return found;
}
