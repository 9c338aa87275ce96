// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of the PMI's local APIC entry (x86_pmu.c).
 *
 * Intel's local APIC masks LVTPC when it sends a PMI, and the PMI
 * handler opens it again.  A PMI that finds no event of ours (one that
 * comes after the last event went) returns before that, so the entry
 * stays masked: the events placed on that CPU later must open it, or
 * they never interrupt.  The case masks the entry as such a PMI leaves
 * it, places an event, and reads the entry back.
 *
 * The PMI stops the counters for its whole body.  What it calls may read
 * an event whose count is partly in records not drained yet (a sample
 * that reads its group, a BPF program): that read must drain without
 * starting the counters again, or they count the PMI's own work and
 * overflow again before it is done.  The case reads such an event from
 * an overflow handler and looks at the counters' global enable there.
 *
 * The test thread is bound to its CPU; the cases skip without a PMU
 * driver (and the second without PEBS).  The first puts the entry back
 * as it found it whatever the outcome.
 */
#include <kunit/test.h>
#include <linux/perf_event.h>
#include <linux/sched.h>

#include <asm/msr.h>

#include <asm/apic.h>

#include "x86_pmu.h"

static int pmi_init(struct kunit *test)
{
	int cpu = raw_smp_processor_id();

	KUNIT_ASSERT_EQ(test, 0, set_cpus_allowed_ptr(current, cpumask_of(cpu)));
	return 0;
}

static void pmi_exit(struct kunit *test)
{
	set_cpus_allowed_ptr(current, cpu_possible_mask);
}

static void placing_an_event_opens_lvtpc(struct kunit *test)
{
	/* Pinned, so that it is placed at once on this CPU. */
	struct perf_event_attr attr = {
		.pinned = 1,
		.config = PERF_COUNT_HW_CPU_CYCLES,
		.size = sizeof(attr),
		.type = PERF_TYPE_HARDWARE,
	};
	struct perf_event *event;
	u32 lvtpc;

	if (!x86_pmu_vendor())
		kunit_skip(test, "no x86 PMU driver on this CPU");
	if (!boot_cpu_has(X86_FEATURE_APIC))
		kunit_skip(test, "no local APIC");

	/* What a PMI that found no event leaves behind on Intel. */
	local_irq_disable();
	apic_write(APIC_LVTPC, APIC_DM_NMI | APIC_LVT_MASKED);
	local_irq_enable();

	event = perf_event_create_kernel_counter(&attr, raw_smp_processor_id(),
						 NULL, NULL, NULL);
	lvtpc = apic_read(APIC_LVTPC);
	if (!IS_ERR(event))
		perf_event_release_kernel(event);
	/* Open again for the events already here (the NMI watchdog's). */
	apic_write(APIC_LVTPC, APIC_DM_NMI);

	KUNIT_ASSERT_FALSE(test, IS_ERR(event));
	KUNIT_EXPECT_EQ(test, lvtpc & APIC_LVT_MASKED, 0);
	KUNIT_EXPECT_EQ(test, lvtpc & APIC_MODE_MASK, APIC_DM_NMI);
}

/* What the overflow handler of read_in_the_pmi_keeps_counters_stopped saw. */
struct pmi_read {
	struct perf_event *buffered;
	u64 ctrl;
	int fired;
};

static struct pmi_read pmi_read;

static void pmi_read_handler(struct perf_event *event,
			     struct perf_sample_data *data,
			     struct pt_regs *regs)
{
	struct perf_event *buffered = READ_ONCE(pmi_read.buffered);

	if (!buffered || READ_ONCE(pmi_read.fired))
		return;
	/* As a sample reading its group reads its members. */
	buffered->pmu->read(buffered);
	rdmsrl(MSR_CORE_PERF_GLOBAL_CTRL, pmi_read.ctrl);
	WRITE_ONCE(pmi_read.fired, 1);
}

static void read_in_the_pmi_keeps_counters_stopped(struct kunit *test)
{
	/* Precise with a fixed period and no sample fields: records kept. */
	struct perf_event_attr buffered_attr = {
		.pinned = 1,
		.precise_ip = 1,
		.sample_period = 1ULL << 40,
		.config = PERF_COUNT_HW_INSTRUCTIONS,
		.size = sizeof(buffered_attr),
		.type = PERF_TYPE_HARDWARE,
	};
	struct perf_event_attr sampling_attr = {
		.pinned = 1,
		.sample_period = 100000,
		.config = PERF_COUNT_HW_CPU_CYCLES,
		.size = sizeof(sampling_attr),
		.type = PERF_TYPE_HARDWARE,
	};
	const struct x86_vendor *v = x86_pmu_vendor();
	int cpu = raw_smp_processor_id();
	struct perf_event *buffered, *sampling;
	unsigned long spins;

	if (!v)
		kunit_skip(test, "no x86 PMU driver on this CPU");
	if (!v->drain)
		kunit_skip(test, "no records to drain: no PEBS on this CPU");

	buffered = perf_event_create_kernel_counter(&buffered_attr, cpu, NULL,
						    NULL, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(buffered));
	if (!(buffered->hw.flags & X86_EVENT_PRECISE_LARGE)) {
		perf_event_release_kernel(buffered);
		kunit_skip(test, "the precise event keeps no records");
	}
	memset(&pmi_read, 0, sizeof(pmi_read));
	WRITE_ONCE(pmi_read.buffered, buffered);
	sampling = perf_event_create_kernel_counter(&sampling_attr, cpu, NULL,
						    pmi_read_handler, NULL);
	if (IS_ERR(sampling)) {
		perf_event_release_kernel(buffered);
		KUNIT_FAIL(test, "the sampling event: %ld", PTR_ERR(sampling));
		return;
	}
	/* Cycles go on while this CPU spins; a billion spins is a stuck PMU. */
	for (spins = 0; !READ_ONCE(pmi_read.fired) && spins < 1000000000;
	     spins++)
		cpu_relax();
	perf_event_release_kernel(sampling);
	perf_event_release_kernel(buffered);

	KUNIT_ASSERT_TRUE_MSG(test, READ_ONCE(pmi_read.fired),
			      "no overflow after %lu spins", spins);
	KUNIT_EXPECT_EQ(test, pmi_read.ctrl, 0);
}

static struct kunit_case pmi_cases[] = {
	KUNIT_CASE(placing_an_event_opens_lvtpc),
	KUNIT_CASE(read_in_the_pmi_keeps_counters_stopped),
	{}
};

static struct kunit_suite pmi_suite = {
	.name = "x86_pmu_pmi",
	.init = pmi_init,
	.exit = pmi_exit,
	.test_cases = pmi_cases,
};

kunit_test_suite(pmi_suite);
