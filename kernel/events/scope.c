// SPDX-License-Identifier: GPL-2.0
/*
 * PMU scopes: counters that one core, die, cluster, package or the whole
 * system shares (pmu->scope), such as an uncore's or the energy counters.
 *
 * Each such counter is read and programmed through one online CPU of the
 * CPUs that share it, its reader.  The readers of each kind of scope make
 * a mask, which a scoped PMU shows in sysfs as "cpumask": perf opens its
 * events there only.  When a reader goes offline, another CPU of its
 * scope becomes the reader and the scoped PMUs' events move to it
 * (perf_pmu_migrate_context()).
 *
 * Locking: the masks change in the CPU hotplug callbacks only, under the
 * caller's pmus_lock (pmu.c), which orders them against registration and
 * against each other; lock order pmus_lock, then the CPU contexts'
 * mutexes (migration).  Readers of the masks (sysfs, event_init) take no
 * lock: a mask may change under them as a CPU goes, as upstream's.
 */
#include <linux/cpumask.h>
#include <linux/topology.h>

#include "internal.h"

static struct cpumask scope_readers[PERF_PMU_MAX_SCOPE];

/**
 * perf_scope_cpus - the CPUs that share a CPU's counter of a scope
 * @scope: a PERF_PMU_SCOPE_*
 * @cpu: the CPU
 *
 * Return: the topology mask, or NULL for PERF_PMU_SCOPE_NONE and unknown
 * scopes.
 */
const struct cpumask *perf_scope_cpus(unsigned int scope, int cpu)
{
	/* Smallest to largest; topology_core_cpumask() is the package. */
	if (scope == PERF_PMU_SCOPE_CORE)
		return topology_sibling_cpumask(cpu);
	if (scope == PERF_PMU_SCOPE_CLUSTER)
		return topology_cluster_cpumask(cpu);
	if (scope == PERF_PMU_SCOPE_DIE)
		return topology_die_cpumask(cpu);
	if (scope == PERF_PMU_SCOPE_PKG)
		return topology_core_cpumask(cpu);
	return scope == PERF_PMU_SCOPE_SYS_WIDE ? cpu_online_mask : NULL;
}

/**
 * perf_scope_readers - the CPUs that read the counters of a scope
 * @scope: a PERF_PMU_SCOPE_*
 *
 * Return: the mask, or NULL for PERF_PMU_SCOPE_NONE and unknown scopes.
 */
const struct cpumask *perf_scope_readers(unsigned int scope)
{
	if (scope == PERF_PMU_SCOPE_NONE || scope >= PERF_PMU_MAX_SCOPE)
		return NULL;
	return &scope_readers[scope];
}

/**
 * perf_scope_boot_cpu - the boot CPU reads every scope
 * @cpu: the boot CPU
 *
 * At perf_event_init() no topology is known yet; the boot CPU is in every
 * scope that will be, and no other CPU is up.
 */
void __init perf_scope_boot_cpu(unsigned int cpu)
{
	unsigned int s;

	for (s = PERF_PMU_SCOPE_NONE + 1; s < PERF_PMU_MAX_SCOPE; s++)
		cpumask_set_cpu(cpu, &scope_readers[s]);
}

/**
 * perf_scope_cpu_up - a CPU comes up: it reads each scope that has no reader
 * @cpu: the CPU
 *
 * Called twice, as the hotplug callbacks are: before the CPU runs (its
 * topology may be empty still, and then it is left alone) and on the CPU.
 * Caller holds pmus_lock.
 */
void perf_scope_cpu_up(unsigned int cpu)
{
	unsigned int s;

	for (s = PERF_PMU_SCOPE_NONE + 1; s < PERF_PMU_MAX_SCOPE; s++) {
		const struct cpumask *shared = perf_scope_cpus(s, cpu);

		if (cpumask_empty(shared) ||
		    cpumask_intersects(shared, &scope_readers[s]))
			continue;
		cpumask_set_cpu(cpu, &scope_readers[s]);
	}
}

/**
 * perf_scope_cpu_down - a CPU goes: another CPU of its scope reads for it
 * @cpu: the CPU
 * @to: for each scope, the CPU that takes over from @cpu, or -1 when @cpu
 *	was not its reader or no other CPU is left in it
 *
 * Caller holds pmus_lock and moves the scoped PMUs' events to @to.
 */
void perf_scope_cpu_down(unsigned int cpu, int to[PERF_PMU_MAX_SCOPE])
{
	unsigned int s, next;

	to[PERF_PMU_SCOPE_NONE] = -1;
	for (s = PERF_PMU_SCOPE_NONE + 1; s < PERF_PMU_MAX_SCOPE; s++) {
		to[s] = -1;
		if (!cpumask_test_and_clear_cpu(cpu, &scope_readers[s]))
			continue;
		next = cpumask_any_but(perf_scope_cpus(s, cpu), cpu);
		if (next >= nr_cpu_ids)
			continue;
		cpumask_set_cpu(next, &scope_readers[s]);
		to[s] = next;
	}
}

/**
 * perf_scope_event_init - a new event of a scoped PMU
 * @event: the event, accepted by its PMU's event_init
 *
 * A CPU event needs a reader in its CPU's scope, as upstream's: the event
 * stays on the CPU it was opened on, and may be read from any CPU of the
 * scope.
 *
 * Return: 0, or -ENODEV when the CPU's scope has no reader.
 */
int perf_scope_event_init(struct perf_event *event)
{
	unsigned int scope = event->pmu->scope;
	const struct cpumask *shared;

	if (scope == PERF_PMU_SCOPE_NONE || event->cpu < 0)
		return 0;
	shared = perf_scope_cpus(scope, event->cpu);
	if (!shared || !cpumask_intersects(shared, &scope_readers[scope]))
		return -ENODEV;
	event->event_caps |= PERF_EV_CAP_READ_SCOPE;
	return 0;
}
