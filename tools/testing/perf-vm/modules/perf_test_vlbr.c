// SPDX-License-Identifier: GPL-2.0
/*
 * A module that does with the host's branch recorder what KVM does for
 * a guest's LBR (arch/x86/kvm/vmx/pmu_intel.c): it asks the x86 driver
 * for the recorder with x86_perf_get_lbr(), which the read-only
 * parameters lbr_nr, lbr_from, lbr_to, lbr_info and lbr_callstack
 * report, and holds the recorder with KVM's event: writing 1 to "vlbr"
 * makes, for the writing task, a pinned event of INTEL_FIXED_VLBR_EVENT
 * that excludes the host and samples the call stack of user branches.
 * Writing 2 makes the same event for the host (not excluding it), and
 * 0 releases either.  Reading "vlbr" gives the event's state as it was
 * made ("active", "inactive", "off", "error"), then whether the CPU
 * recorded branches then (IA32_DEBUGCTL.LBR, or the architectural LBR's
 * LBREn; "-" but on Intel), or "err" and the errno of its making, or
 * "none".
 *
 * Lifetime: the event lives from a write of 1 or 2 to the next write or
 * the unload, under vlbr_lock.
 */
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/perf_event.h>

#include <asm/cpufeature.h>
#include <asm/msr.h>
#include <asm/perf_event.h>

#define VLBR_DEBUGCTL_LBR	BIT_ULL(0)
#define VLBR_ARCH_LBR_CTL	0x14ce

static struct x86_pmu_lbr lbr;
static DEFINE_MUTEX(vlbr_lock);
static struct perf_event *vlbr;
static char vlbr_result[32] = "none";

module_param_named(lbr_nr, lbr.nr, uint, 0444);
module_param_named(lbr_from, lbr.from, uint, 0444);
module_param_named(lbr_to, lbr.to, uint, 0444);
module_param_named(lbr_info, lbr.info, uint, 0444);
module_param_named(lbr_callstack, lbr.has_callstack, bool, 0444);

/* Whether this Intel CPU records branches now; '-' elsewhere. */
static char vlbr_recording(void)
{
	u64 v;

	if (boot_cpu_data.x86_vendor != X86_VENDOR_INTEL)
		return '-';
	if (boot_cpu_has(X86_FEATURE_ARCH_LBR)) {
		if (rdmsrl_safe(VLBR_ARCH_LBR_CTL, &v))
			return '-';
	} else if (rdmsrl_safe(MSR_IA32_DEBUGCTLMSR, &v)) {
		return '-';
	}
	return v & VLBR_DEBUGCTL_LBR ? '1' : '0';
}

static const char *vlbr_state(const struct perf_event *event)
{
	switch (event->state) {
	case PERF_EVENT_STATE_ACTIVE:
		return "active";
	case PERF_EVENT_STATE_INACTIVE:
		return "inactive";
	case PERF_EVENT_STATE_OFF:
		return "off";
	default:
		return "error";
	}
}

static void vlbr_release(void)
{
	if (vlbr)
		perf_event_release_kernel(vlbr);
	vlbr = NULL;
	strscpy(vlbr_result, "none", sizeof(vlbr_result));
}

static int vlbr_set(const char *val, const struct kernel_param *kp)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_RAW,
		.size = sizeof(attr),
		.config = INTEL_FIXED_VLBR_EVENT,
		.sample_type = PERF_SAMPLE_BRANCH_STACK,
		.pinned = true,
		.branch_sample_type = PERF_SAMPLE_BRANCH_CALL_STACK |
				      PERF_SAMPLE_BRANCH_USER,
	};
	struct perf_event *event;
	unsigned int how;
	char on;
	int err;

	err = kstrtouint(val, 0, &how);
	if (err || how > 2)
		return -EINVAL;
	mutex_lock(&vlbr_lock);
	vlbr_release();
	if (how) {
		attr.exclude_host = how == 1;
		event = perf_event_create_kernel_counter(&attr, -1, current,
							 NULL, NULL);
		if (IS_ERR(event)) {
			snprintf(vlbr_result, sizeof(vlbr_result), "err %ld",
				 PTR_ERR(event));
		} else {
			vlbr = event;
			preempt_disable();
			on = vlbr_recording();
			preempt_enable();
			snprintf(vlbr_result, sizeof(vlbr_result), "%s %c",
				 vlbr_state(event), on);
		}
	}
	mutex_unlock(&vlbr_lock);
	return 0;
}

static int vlbr_get(char *buf, const struct kernel_param *kp)
{
	int n;

	mutex_lock(&vlbr_lock);
	n = sysfs_emit(buf, "%s\n", vlbr_result);
	mutex_unlock(&vlbr_lock);
	return n;
}

static const struct kernel_param_ops vlbr_ops = {
	.set	= vlbr_set,
	.get	= vlbr_get,
};
module_param_cb(vlbr, &vlbr_ops, NULL, 0644);
MODULE_PARM_DESC(vlbr, "1: hold the LBR for a guest, 2: for the host, 0: let go");

static int __init vlbr_init(void)
{
	x86_perf_get_lbr(&lbr);
	return 0;
}

static void __exit vlbr_exit(void)
{
	mutex_lock(&vlbr_lock);
	vlbr_release();
	mutex_unlock(&vlbr_lock);
}

module_init(vlbr_init);
module_exit(vlbr_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KVM's guest LBR event, from a module");
