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
 * The test thread is bound to its CPU; the case skips without a PMU
 * driver.  It puts the entry back as it found it whatever the outcome.
 */
#include <kunit/test.h>
#include <linux/perf_event.h>
#include <linux/sched.h>

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

static struct kunit_case pmi_cases[] = {
	KUNIT_CASE(placing_an_event_opens_lvtpc),
	{}
};

static struct kunit_suite pmi_suite = {
	.name = "x86_pmu_pmi",
	.init = pmi_init,
	.exit = pmi_exit,
	.test_cases = pmi_cases,
};

kunit_test_suite(pmi_suite);
