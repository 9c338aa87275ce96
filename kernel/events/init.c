// SPDX-License-Identifier: GPL-2.0
/*
 * Boot and CPU hotplug.
 *
 * perf_event_init() runs once, early in start_kernel(), before other CPUs
 * are up.  The hotplug callbacks run for each CPU twice in each direction:
 * at the PREPARE stage (on a control CPU) and at the ONLINE stage (on the
 * CPU itself).  Going down, the CPU's own context is emptied on the CPU:
 * its events leave the context and stay OFF, readable but no longer
 * counting, as upstream does.  The CPU context's mutex serialises this
 * against perf_event_open(), which refuses offline CPUs with -ENODEV.
 * Before that, the events of scoped PMUs move to another CPU of their
 * scope (scope.c), under pmus_lock.
 */
#include <linux/hw_breakpoint.h>
#include <linux/smp.h>

#include "internal.h"

/**
 * perf_event_init - set up the perf core; boot only
 */
void __init perf_event_init(void)
{
	int cpu;

	perf_event_cache_init();
	for_each_possible_cpu(cpu) {
		perf_cpu_context_init(cpu);
		perf_swevent_init_cpu(cpu);
		perf_sched_cb_init_cpu(cpu);
	}
	/* The boot CPU is up already; the others report through hotplug. */
	per_cpu_ptr(&perf_cpu_context, smp_processor_id())->online = 1;
	perf_scope_boot_cpu(smp_processor_id());
	perf_swevent_register();
	perf_tp_register();
	perf_probe_register();
	WARN(init_hw_breakpoint(), "perf: breakpoint PMU not registered\n");
	perf_test_pmu_register();
	perf_test_aux_register();
	pr_info("perf: perf_event core (perfng) ready: software and breakpoint events\n");
}

/**
 * perf_event_init_cpu - a CPU is coming up
 * @cpu: the CPU
 *
 * Return: 0.
 */
int perf_event_init_cpu(unsigned int cpu)
{
	struct perf_cpu_context *cpuctx = per_cpu_ptr(&perf_cpu_context, cpu);

	perf_pmus_cpu_up(cpu);
	mutex_lock(&cpuctx->ctx.mutex);
	cpuctx->online = 1;
	mutex_unlock(&cpuctx->ctx.mutex);
	return 0;
}

/* On the dying CPU, interrupts off. */
static void perf_cpu_context_exit(void *info)
{
	struct perf_cpu_context *cpuctx = this_cpu_ptr(&perf_cpu_context);

	raw_spin_lock(&cpuctx->ctx.lock);
	update_context_time(&cpuctx->ctx);
	perf_ctx_remove_all(cpuctx, &cpuctx->ctx);
	raw_spin_unlock(&cpuctx->ctx.lock);
}

/**
 * perf_event_exit_cpu - a CPU is going down
 * @cpu: the CPU
 *
 * Return: 0.
 */
int perf_event_exit_cpu(unsigned int cpu)
{
	struct perf_cpu_context *cpuctx = per_cpu_ptr(&perf_cpu_context, cpu);

	/* Scoped PMUs' events first: they go on counting on another CPU. */
	perf_pmus_cpu_down(cpu);
	mutex_lock(&cpuctx->ctx.mutex);
	/* Fails harmlessly at the PREPARE stage: the CPU is already gone. */
	smp_call_function_single(cpu, perf_cpu_context_exit, NULL, 1);
	cpuctx->online = 0;
	mutex_unlock(&cpuctx->ctx.mutex);
	return 0;
}
