// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of what hypervisors use of the x86 PMU driver (guest.c,
 * intel.c, amd.c, kernel/events/guest.c):
 *
 *  - perf_get_x86_pmu_capability() agrees with CPUID;
 *  - perf_get_hw_event_config() gives the generic events' encodings and
 *    0 out of range;
 *  - Intel: perf_guest_get_msrs() keeps events that exclude the guest
 *    out of the guest's GLOBAL_CTRL and those that exclude the host out
 *    of the host's, which is also what the register holds; version 1,
 *    without GLOBAL_CTRL, does the same with each counter's EVTSEL; a
 *    host's precise event is off in a guest, PEBS_ENABLE 0 there;
 *  - AMD: an event that excludes the guest carries the host-only bit
 *    exactly while SVM is declared on (amd_pmu_enable_virt());
 *  - the guest callbacks turn a sample's IP and cpumode into the
 *    guest's.
 *
 * Cases bind the test thread to its CPU; those for one vendor skip on
 * the other, and all skip without a PMU driver.
 */
#include <kunit/test.h>
#include <linux/cpufeature.h>
#include <linux/perf_event.h>
#include <linux/sched.h>

#include <asm/msr.h>
#include <asm/perf_event.h>

#include "x86_pmu.h"

static int guest_init(struct kunit *test)
{
	int cpu = raw_smp_processor_id();

	KUNIT_ASSERT_EQ(test, 0, set_cpus_allowed_ptr(current, cpumask_of(cpu)));
	return 0;
}

static void guest_exit(struct kunit *test)
{
	set_cpus_allowed_ptr(current, cpu_possible_mask);
}

static const struct x86_vendor *need_pmu(struct kunit *test)
{
	const struct x86_vendor *v = x86_pmu_vendor();

	if (!v)
		kunit_skip(test, "no x86 PMU driver on this CPU");
	return v;
}

static bool is_intel(void)
{
	return boot_cpu_data.x86_vendor == X86_VENDOR_INTEL;
}

/* Intel's version 1: no global registers. */
static bool is_intel_v1(void)
{
	return is_intel() && x86_pmu_vendor() && x86_pmu_vendor()->version < 2;
}

static void capability_agrees_with_cpuid(struct kunit *test)
{
	struct x86_pmu_capability cap;
	unsigned int eax, ebx, ecx, edx;
	int gp, fixed;

	need_pmu(test);
	perf_get_x86_pmu_capability(&cap);
	if (is_intel()) {
		cpuid(10, &eax, &ebx, &ecx, &edx);
		KUNIT_EXPECT_EQ(test, cap.version, eax & 0xff);
		KUNIT_EXPECT_EQ(test, cap.num_counters_gp, (eax >> 8) & 0xff);
		KUNIT_EXPECT_EQ(test, cap.bit_width_gp, (eax >> 16) & 0xff);
		KUNIT_EXPECT_EQ(test, cap.events_mask_len, eax >> 24);
		KUNIT_EXPECT_EQ(test, cap.events_mask, ebx);
		/*
		 * The first three fixed counters; the fourth (slots) where the
		 * model's tables drive it, as upstream counts it (KVM takes
		 * three at most).
		 */
		fixed = min_t(int, edx & 0x1f, 3);
		if (x86_pmu_vendor()->counters & BIT_ULL(X86_ASSIGN_FIXED_BASE + 3))
			fixed = edx & 0x1f;
		KUNIT_EXPECT_EQ(test, cap.num_counters_fixed, fixed);
		/* No width for fixed counters that are not there (v1). */
		KUNIT_EXPECT_EQ(test, cap.bit_width_fixed,
				cap.num_counters_fixed ? cap.bit_width_gp : 0);
		return;
	}
	gp = boot_cpu_has(X86_FEATURE_PERFCTR_CORE) ? 6 : 4;
	if (boot_cpu_has(X86_FEATURE_PERFMON_V2))
		gp = (cpuid_ebx(EXT_PERFMON_DEBUG_FEATURES) & 0xf) ?: gp;
	KUNIT_EXPECT_EQ(test, cap.version,
			boot_cpu_has(X86_FEATURE_PERFMON_V2) ? 2 : 0);
	KUNIT_EXPECT_EQ(test, cap.num_counters_gp, gp);
	KUNIT_EXPECT_EQ(test, cap.bit_width_gp, 48);
	KUNIT_EXPECT_EQ(test, cap.num_counters_fixed, 0);
	KUNIT_EXPECT_EQ(test, cap.bit_width_fixed, 0);
	KUNIT_EXPECT_EQ(test, cap.events_mask, 0);
	KUNIT_EXPECT_EQ(test, cap.events_mask_len, 0);
}

/* Intel: whether CPUID.0AH says architectural event @bit is there. */
static bool intel_has_event(int bit)
{
	unsigned int eax, ebx, ecx, edx;

	cpuid(10, &eax, &ebx, &ecx, &edx);
	return bit < eax >> 24 && !(ebx & BIT(bit));
}

static void hw_event_config_encodes(struct kunit *test)
{
	need_pmu(test);
	KUNIT_EXPECT_EQ(test, perf_get_hw_event_config(PERF_COUNT_HW_INSTRUCTIONS),
			0xc0);
	KUNIT_EXPECT_EQ(test, perf_get_hw_event_config(PERF_COUNT_HW_CPU_CYCLES),
			is_intel() ? 0x3c : 0x76);
	/* Branches: architectural event 5 on Intel, absent when CPUID says. */
	KUNIT_EXPECT_EQ(test, perf_get_hw_event_config(PERF_COUNT_HW_BRANCH_INSTRUCTIONS),
			!is_intel() ? 0xc2 : intel_has_event(5) ? 0xc4 : 0);
	KUNIT_EXPECT_EQ(test, perf_get_hw_event_config(-1), 0);
	KUNIT_EXPECT_EQ(test, perf_get_hw_event_config(PERF_COUNT_HW_MAX), 0);
	KUNIT_EXPECT_EQ(test, perf_get_hw_event_config(INT_MAX), 0);
}

/* A pinned instructions counter on this CPU, counting now. */
static struct perf_event *counter(struct kunit *test, bool no_host, bool no_guest)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_HARDWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_HW_INSTRUCTIONS,
		.pinned = 1,
		.exclude_host = no_host,
		.exclude_guest = no_guest,
	};
	struct perf_event *event;

	event = perf_event_create_kernel_counter(&attr, raw_smp_processor_id(),
						 NULL, NULL, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(event));
	KUNIT_ASSERT_EQ(test, event->state, PERF_EVENT_STATE_ACTIVE);
	KUNIT_ASSERT_GE(test, event->hw.idx, 0);
	return event;
}

static void intel_switches_global_ctrl(struct kunit *test)
{
	struct perf_event *both, *host, *guest;
	struct perf_guest_switch_msr *m;
	u64 b, h, g, now;
	int nr = -1;

	need_pmu(test);
	if (!is_intel())
		kunit_skip(test, "Intel only: AMD switches nothing");
	if (is_intel_v1())
		kunit_skip(test, "version 1 has no GLOBAL_CTRL");
	both = counter(test, false, false);
	host = counter(test, false, true);
	guest = counter(test, true, false);
	b = BIT_ULL(both->hw.idx);
	h = BIT_ULL(host->hw.idx);
	g = BIT_ULL(guest->hw.idx);

	local_irq_disable();
	m = perf_guest_get_msrs(&nr, NULL);
	rdmsrl(MSR_CORE_PERF_GLOBAL_CTRL, now);
	local_irq_enable();

	KUNIT_ASSERT_NOT_NULL(test, m);
	/* GLOBAL_CTRL, and IA32_PEBS_ENABLE where there is PEBS. */
	KUNIT_ASSERT_GE(test, nr, 1);
	KUNIT_ASSERT_LE(test, nr, 2);
	KUNIT_EXPECT_EQ(test, m[0].msr, MSR_CORE_PERF_GLOBAL_CTRL);
	KUNIT_EXPECT_EQ(test, m[0].host & (b | h | g), b | h);
	KUNIT_EXPECT_EQ(test, m[0].guest & (b | h | g), b | g);
	KUNIT_EXPECT_EQ(test, now, m[0].host);

	perf_event_release_kernel(guest);
	local_irq_disable();
	m = perf_guest_get_msrs(&nr, NULL);
	rdmsrl(MSR_CORE_PERF_GLOBAL_CTRL, now);
	local_irq_enable();
	/* The freed counter is no longer kept from the host. */
	KUNIT_EXPECT_EQ(test, m[0].host & g, m[0].guest & g);
	KUNIT_EXPECT_EQ(test, now, m[0].host);

	perf_event_release_kernel(host);
	perf_event_release_kernel(both);
}

/*
 * A host's precise event stops in a guest: its counter is off in the
 * guest's GLOBAL_CTRL and IA32_PEBS_ENABLE is 0 there, or the CPU would
 * write records of the guest's time into the host's buffer.
 */
static void intel_keeps_pebs_from_guests(struct kunit *test)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_HARDWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_HW_INSTRUCTIONS,
		.sample_period = 1000000,
		.precise_ip = 2,
		.pinned = 1,
	};
	struct perf_guest_switch_msr *m;
	struct perf_event *event;
	u64 bit;
	int nr = -1;

	need_pmu(test);
	if (!is_intel() || !x86_pmu_vendor()->max_precise)
		kunit_skip(test, "no PEBS (caps/max_precise 0)");
	event = perf_event_create_kernel_counter(&attr, raw_smp_processor_id(),
						 NULL, NULL, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(event));
	KUNIT_ASSERT_EQ(test, event->state, PERF_EVENT_STATE_ACTIVE);
	bit = BIT_ULL(event->hw.idx);

	local_irq_disable();
	m = perf_guest_get_msrs(&nr, NULL);
	local_irq_enable();

	KUNIT_EXPECT_EQ(test, nr, 2);
	if (nr == 2) {
		KUNIT_EXPECT_EQ(test, m[0].host & bit, bit);
		KUNIT_EXPECT_EQ(test, m[0].guest & bit, 0);
		KUNIT_EXPECT_EQ(test, m[1].msr, MSR_IA32_PEBS_ENABLE);
		KUNIT_EXPECT_EQ(test, m[1].host & bit, bit);
		KUNIT_EXPECT_EQ(test, m[1].guest, 0);
	}
	perf_event_release_kernel(event);
}

/* Version 1: one EVTSEL per counter, EN where the event counts. */
static void intel_v1_switches_evtsels(struct kunit *test)
{
	struct perf_event *ev[3];
	struct perf_guest_switch_msr *m;
	u64 now[3], en = ARCH_PERFMON_EVENTSEL_ENABLE;
	int nr = -1, i, idx;

	need_pmu(test);
	if (!is_intel_v1())
		kunit_skip(test, "Intel version 1 only");
	ev[0] = counter(test, false, false);
	ev[1] = counter(test, false, true);	/* host only */
	ev[2] = counter(test, true, false);	/* guest only */

	local_irq_disable();
	m = perf_guest_get_msrs(&nr, NULL);
	for (i = 0; i < 3; i++)
		rdmsrl(MSR_ARCH_PERFMON_EVENTSEL0 + ev[i]->hw.idx, now[i]);
	local_irq_enable();

	KUNIT_ASSERT_NOT_NULL(test, m);
	KUNIT_ASSERT_EQ(test, nr, hweight32(lower_32_bits(x86_pmu_vendor()->counters)));
	for (i = 0; i < 3; i++) {
		idx = ev[i]->hw.idx;
		KUNIT_ASSERT_LT(test, idx, nr);
		KUNIT_EXPECT_EQ(test, m[idx].msr, MSR_ARCH_PERFMON_EVENTSEL0 + idx);
		KUNIT_EXPECT_EQ(test, !!(m[idx].host & en), i != 2);
		KUNIT_EXPECT_EQ(test, !!(m[idx].guest & en), i != 1);
		KUNIT_EXPECT_EQ(test, now[i], m[idx].host);
	}
	for (i = 2; i >= 0; i--)
		perf_event_release_kernel(ev[i]);
}

static u32 amd_ctl_msr(int idx)
{
	if (boot_cpu_has(X86_FEATURE_PERFCTR_CORE))
		return MSR_F15H_PERF_CTL + 2 * idx;
	return MSR_K7_EVNTSEL0 + idx;
}

static void amd_host_only_follows_svm(struct kunit *test)
{
	struct perf_guest_switch_msr *m;
	struct perf_event *host, *both;
	bool was_on;
	u64 ctl, ctl2;
	int nr = -1;

	need_pmu(test);
	if (is_intel())
		kunit_skip(test, "AMD only");
	local_irq_disable();
	m = perf_guest_get_msrs(&nr, NULL);
	local_irq_enable();
	KUNIT_EXPECT_NULL(test, m);
	KUNIT_EXPECT_EQ(test, nr, 0);

	host = counter(test, false, true);
	both = counter(test, false, false);
	rdmsrl(amd_ctl_msr(host->hw.idx), ctl);
	was_on = ctl & AMD64_EVENTSEL_HOSTONLY;

	amd_pmu_disable_virt();
	rdmsrl(amd_ctl_msr(host->hw.idx), ctl);
	KUNIT_EXPECT_FALSE(test, ctl & AMD64_EVENTSEL_HOSTONLY);
	KUNIT_EXPECT_TRUE(test, ctl & ARCH_PERFMON_EVENTSEL_ENABLE);

	amd_pmu_enable_virt();
	rdmsrl(amd_ctl_msr(host->hw.idx), ctl);
	rdmsrl(amd_ctl_msr(both->hw.idx), ctl2);
	KUNIT_EXPECT_TRUE(test, ctl & AMD64_EVENTSEL_HOSTONLY);
	KUNIT_EXPECT_TRUE(test, ctl & ARCH_PERFMON_EVENTSEL_ENABLE);
	KUNIT_EXPECT_FALSE(test, ctl2 & (AMD64_EVENTSEL_HOSTONLY | AMD64_EVENTSEL_GUESTONLY));

	if (!was_on)
		amd_pmu_disable_virt();
	perf_event_release_kernel(both);
	perf_event_release_kernel(host);
}

#ifdef CONFIG_GUEST_PERF_EVENTS
static unsigned int fake_state;

static unsigned int fake_guest_state(void)
{
	return fake_state;
}

static unsigned long fake_guest_ip(void)
{
	return 0x1234000;
}

static struct perf_guest_info_callbacks fake_cbs = {
	.state = fake_guest_state,
	.get_ip = fake_guest_ip,
};

static void callbacks_make_guest_samples(struct kunit *test)
{
	struct perf_guest_info_callbacks *saved;
	struct pt_regs regs = { .ip = 0xffffffff81000000UL, .cs = __KERNEL_CS };

	/* A hypervisor in this kernel may have registered its own. */
	saved = rcu_access_pointer(perf_guest_cbs);
	if (saved)
		perf_unregister_guest_info_callbacks(saved);
	KUNIT_EXPECT_EQ(test, perf_guest_state(), 0);

	perf_register_guest_info_callbacks(&fake_cbs);
	fake_state = 0;
	preempt_disable();
	KUNIT_EXPECT_EQ(test, perf_misc_flags(&regs), PERF_RECORD_MISC_KERNEL);
	KUNIT_EXPECT_EQ(test, perf_instruction_pointer(&regs), regs.ip);
	fake_state = PERF_GUEST_ACTIVE;
	KUNIT_EXPECT_EQ(test, perf_misc_flags(&regs), PERF_RECORD_MISC_GUEST_KERNEL);
	KUNIT_EXPECT_EQ(test, perf_instruction_pointer(&regs), 0x1234000);
	fake_state = PERF_GUEST_ACTIVE | PERF_GUEST_USER;
	KUNIT_EXPECT_EQ(test, perf_misc_flags(&regs), PERF_RECORD_MISC_GUEST_USER);
	KUNIT_EXPECT_EQ(test, perf_guest_handle_intel_pt_intr(), 0);
	preempt_enable();
	perf_unregister_guest_info_callbacks(&fake_cbs);

	/* Gone: host samples again, whatever the callbacks would say. */
	preempt_disable();
	KUNIT_EXPECT_EQ(test, perf_misc_flags(&regs), PERF_RECORD_MISC_KERNEL);
	KUNIT_EXPECT_EQ(test, perf_instruction_pointer(&regs), regs.ip);
	preempt_enable();
	if (saved)
		perf_register_guest_info_callbacks(saved);
}
#else
static void callbacks_make_guest_samples(struct kunit *test)
{
	kunit_skip(test, "CONFIG_GUEST_PERF_EVENTS is off: no hypervisor to ask");
}
#endif

static struct kunit_case guest_cases[] = {
	KUNIT_CASE(capability_agrees_with_cpuid),
	KUNIT_CASE(hw_event_config_encodes),
	KUNIT_CASE(intel_switches_global_ctrl),
	KUNIT_CASE(intel_keeps_pebs_from_guests),
	KUNIT_CASE(intel_v1_switches_evtsels),
	KUNIT_CASE(amd_host_only_follows_svm),
	KUNIT_CASE(callbacks_make_guest_samples),
	{}
};

static struct kunit_suite guest_suite = {
	.name = "x86_pmu_guest",
	.init = guest_init,
	.exit = guest_exit,
	.test_cases = guest_cases,
};

kunit_test_suite(guest_suite);
