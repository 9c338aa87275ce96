// SPDX-License-Identifier: GPL-2.0
/*
 * Guest callbacks: how a hypervisor tells samples taken while its guest
 * runs from samples of the host.
 *
 * A hypervisor (KVM, Xen) registers one set of callbacks.  The sample
 * path asks them, through perf_guest_state() and perf_guest_get_ip() in
 * <linux/perf_event.h>, whether the CPU was running a guest when the
 * interrupt came and at which guest address; the architecture then
 * reports the guest's IP and the PERF_RECORD_MISC_GUEST_* cpumode.
 *
 * Locking: registration is serialised by guest_mutex.  Readers run with
 * preemption off (in NMI, interrupt or the sample path) or under
 * rcu_read_lock(): the static key keeps the check free until a
 * hypervisor is there, and unregistering waits for an RCU grace period
 * so that no reader still calls into callbacks being torn down.
 */
#include <linux/mutex.h>
#include <linux/perf_event.h>
#include <linux/rcupdate.h>

struct perf_guest_info_callbacks __rcu *perf_guest_cbs;
DEFINE_STATIC_KEY_FALSE(perf_guest_cbs_key);
static DEFINE_MUTEX(guest_mutex);

/**
 * perf_register_guest_info_callbacks - a hypervisor's guest callbacks
 * @cbs: the callbacks; @cbs->state and @cbs->get_ip are required,
 *	 @cbs->handle_intel_pt_intr may be NULL
 *
 * Only one set is registered at a time: a second registration is a bug
 * of the caller, warned about and ignored.
 */
void perf_register_guest_info_callbacks(struct perf_guest_info_callbacks *cbs)
{
	mutex_lock(&guest_mutex);
	if (!WARN_ON_ONCE(rcu_access_pointer(perf_guest_cbs))) {
		rcu_assign_pointer(perf_guest_cbs, cbs);
		static_branch_enable(&perf_guest_cbs_key);
	}
	mutex_unlock(&guest_mutex);
}
EXPORT_SYMBOL_GPL(perf_register_guest_info_callbacks);

/**
 * perf_unregister_guest_info_callbacks - remove a hypervisor's callbacks
 * @cbs: what perf_register_guest_info_callbacks() was given
 *
 * Returns once no CPU can be running one of the callbacks.  Removing
 * callbacks that are not the registered ones is warned about and
 * ignored.
 */
void perf_unregister_guest_info_callbacks(struct perf_guest_info_callbacks *cbs)
{
	mutex_lock(&guest_mutex);
	if (!WARN_ON_ONCE(rcu_access_pointer(perf_guest_cbs) != cbs)) {
		static_branch_disable(&perf_guest_cbs_key);
		RCU_INIT_POINTER(perf_guest_cbs, NULL);
		synchronize_rcu();
	}
	mutex_unlock(&guest_mutex);
}
EXPORT_SYMBOL_GPL(perf_unregister_guest_info_callbacks);
