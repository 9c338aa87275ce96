#!/bin/sh
# The NMI watchdog reports a real hard lockup.  The hardlockup detector
# keeps a pinned cycles counter on each CPU whose overflow NMI checks
# that the CPU's watchdog hrtimer ran since the last one; here LKDTM's
# HARDLOCKUP spins on CPU 1 with interrupts off, and CPU 0 waits for
# the report of CPU 1 in the kernel log.
#
# CPU 1 stays locked up: the test leaves the guest able only to restart
# (through SysRq, see guest-init), so it runs last in its guest
# (check.sh), with every interrupt moved to CPU 0 first.  RCU stall
# reports are turned off first, since no grace period ends any more; the
# guest restarts long before a blocked task would be reported (hung
# task).  Prints TAP.
pmu=${PERFTEST_PMU:-none}
. "$(cd "$(dirname "$0")" && pwd)/../lib/tap.sh"
lkdtm=/sys/kernel/debug/provoke-crash/DIRECT
kernel=/proc/sys/kernel

echo "TAP version 13"
[ "$pmu" != none ] || skip "no emulated PMU in this guest (PERFTEST_PMU; PMU=intel or amd boots one)"
[ -w $kernel/nmi_watchdog ] || skip "the kernel is built without CONFIG_HARDLOCKUP_DETECTOR"
[ -w $lkdtm ] || skip "no LKDTM (CONFIG_LKDTM) to lock a CPU up"
grep -qx HARDLOCKUP $lkdtm || skip "LKDTM has no HARDLOCKUP"
[ "$(nproc)" -ge 2 ] || skip "one CPU: nothing would be left to watch"
command -v taskset >/dev/null || skip "no taskset to put the lockup on CPU 1"

# nmis CPU: that CPU's NMI count in /proc/interrupts.
nmis() {
	awk -v c="$1" '$1 == "NMI:" { print $(c + 2) }' /proc/interrupts
}
# lockup_reported: the detector's message for CPU 1 is in the log.
lockup_reported() {
	dmesg | grep -q "Watchdog detected hard LOCKUP on cpu 1\$"
}

# Refused (ENOTSUPP) when the detector found no counter at boot.
write() { echo "$2" >"$1"; }
write $kernel/nmi_watchdog 1
result $? "nmi_watchdog can be turned on"
write $kernel/hardlockup_panic 0
write $kernel/watchdog_thresh 1
result $? "watchdog_thresh set to 1 s"
echo 1 >/sys/module/rcupdate/parameters/rcu_cpu_stall_suppress
if lockup_reported; then
	result 1 "no hard lockup reported before the lockup"
	tap_done
	exit
fi

# CPU 0 takes every interrupt from now on: the serial line this prints
# to and the root file system's virtio devices must not wait on CPU 1.
# An I/O APIC interrupt moves when it next arrives: wait until those
# have, making each arrive (a line out, a file read).
for irq in /proc/irq/*/smp_affinity_list; do
	echo 0 >"$irq" 2>/dev/null
done
for irq in $(awk '/ttyS1|virtio/ { sub(":", "", $1); print $1 }' /proc/interrupts); do
	until [ "$(cat /proc/irq/"$irq"/effective_affinity_list)" = 0 ]; do
		echo "# waiting for IRQ $irq to move to CPU 0"
		ls -l "$(dirname "$0")" /usr/bin >/dev/null
		sleep 1
	done
done
taskset -p -c 0 $$ >/dev/null
# A slow NMI earlier in the run (a vCPU the host preempted in one) may
# have lowered perf_event_max_sample_rate to HZ: then the watchdog's
# second overflow in one tick throttles it, and only the tick, which a
# CPU with interrupts off never takes, would let it run again.  The rate
# back up (written while the time limit is on), then the limit off.
echo 100000 >$kernel/perf_event_max_sample_rate
echo 0 >$kernel/perf_cpu_time_max_percent
before=$(nmis 1)
# guest-init restarts the guest without waiting on CPU 1.
: >/run/perfvm-cpu-locked
start=$(cut -d' ' -f1 /proc/uptime)
taskset -c 1 sh -c "echo HARDLOCKUP >$lkdtm" &
# The detector looks at CPU 1 in each of its NMIs there, one a
# watchdog_thresh period of cycles, and reports the lockup in the second
# or third: twenty without a report are a detector that missed it.  If
# CPU 1 takes no NMI at all, the harness's time limit ends the wait; the
# lines printed while waiting say how far it got.
waited=0 nmi=$before
until lockup_reported || [ $((nmi - before)) -gt 20 ]; do
	sleep 1
	waited=$((waited + 1))
	nmi=$(nmis 1)
	[ $((waited % 30)) -eq 0 ] &&
		echo "# waited $waited s: NMIs on CPU 1: $before before the lockup, $nmi now"
done
echo "# waited $(awk -v s="$start" '{ print $1 - s }' /proc/uptime) s"
lockup_reported
result $? "CPU 1 spinning with interrupts off is reported as a hard lockup"
echo "# NMIs on CPU 1: $before before the lockup, $(nmis 1) after"

tap_done
