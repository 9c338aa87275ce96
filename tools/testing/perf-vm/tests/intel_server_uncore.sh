#!/bin/sh
# Skylake-SP's and Ice Lake-SP's U-box and PCU uncore PMUs on the
# emulated parts (tools/testing/qemu-pmu/README, patch 33): uncore_ubox
# and uncore_pcu, one box a package.
#  - Both are registered, with a cpumask of one online CPU (pmu_sysfs.sh
#    diffs every file against stock's).
#  - The errnos of what they refuse: a task event, sampling, a mode
#    filter, a group of more events than the box has counters.
#  - The U-box's fixed counter (event 0xff) counts the uncore clock, 2000
#    ticks a microsecond; the PCU's clockticks (event 0x00) 1000 on each
#    of its four counters at once; a U-box event and the PCU's thermal
#    limit cycles count 0 (the emulated package has no traffic there and
#    is never throttled).
#  - perf stat -a on them.
# Prints TAP.
dir=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$dir/lib/tap.sh"
echo "TAP version 13"
vendor=$(awk -F': ' '/^vendor_id/ { print $2; exit }' /proc/cpuinfo)
family=$(awk -F': ' '/^cpu family/ { print $2; exit }' /proc/cpuinfo)
model=$(awk -F': ' '/^model\t/ { print $2; exit }' /proc/cpuinfo)
case "$vendor:$family:$model" in
GenuineIntel:6:85 | GenuineIntel:6:106) ;;
*) skip "no emulated server uncore on $vendor family $family model $model (PMU=skx and icx boot one)" ;;
esac
grep -qw hypervisor /proc/cpuinfo &&
	skip "under a hypervisor Linux leaves the uncore alone"
command -v python3 >/dev/null || skip "no python3 for the perf_event_open() calls"
d=/sys/bus/event_source/devices
if [ ! -d $d/uncore_ubox ] && [ ! -d $d/uncore_pcu ]; then
	case "$(uname -r)" in
	*-perfng*) skip "this kernel has no driver for Intel's server uncore yet (issue 35)" ;;
	esac
fi
cd "$tmp" || exit 1

for p in uncore_ubox uncore_pcu; do
	[ -d $d/$p ]
	result $? "the $p PMU is registered"
done
[ -d $d/uncore_ubox ] && [ -d $d/uncore_pcu ] || { tap_done; exit; }

cat >server_uncore.py <<'EOF'
import errno, os, subprocess
from pmu_open import (DEVICES, count, cpulist, errno_of, online_cpus,
                      open_event, pmu_type, say)

UBOX, PCU = pmu_type("uncore_ubox"), pmu_type("uncore_pcu")
UCLK, PCU_CLOCKTICKS = 0xff, 0x00
# A U-box event (its message counter) and a PCU event (cycles the
# frequency was limited by temperature).
U_EVENT, PCU_THERMAL = 0x42, 0x04

for p in ("uncore_ubox", "uncore_pcu"):
    mask = cpulist(open(DEVICES + p + "/cpumask").read())
    say(len(mask) == 1 and mask <= online_cpus(),
        "%s cpumask %s: one online CPU" % (p, sorted(mask)))

errno_of("uncore_ubox: a task event", errno.EINVAL,
         open_event(UBOX, UCLK, cpu=-1, pid=0))
errno_of("uncore_pcu: sampling (sample_period 1000)", errno.EINVAL,
         open_event(PCU, PCU_CLOCKTICKS, period=1000))
errno_of("uncore_pcu: exclude_kernel", errno.EINVAL,
         open_event(PCU, PCU_CLOCKTICKS, flags=1 << 5))

# The U-box has two general counters and the fixed one: a group of two
# general events and the clock opens, a third general event does not.
fds = [open_event(UBOX, U_EVENT)]
fds += [open_event(UBOX, c, group=fds[0]) for c in (U_EVENT, UCLK, U_EVENT)]
say(all(fd >= 0 for fd in fds[:3]) and fds[3] == -errno.EINVAL,
    "uncore_ubox: 2 general events and the clock open in a group, a "
    "third general event gives -EINVAL (%s)" % fds)
for fd in fds:
    if fd >= 0:
        os.close(fd)
fds = [open_event(PCU, PCU_CLOCKTICKS)]
fds += [open_event(PCU, PCU_CLOCKTICKS, group=fds[0]) for _ in range(4)]
say(all(fd >= 0 for fd in fds[:4]) and fds[4] == -errno.EINVAL,
    "uncore_pcu: a group of 4 events opens, of 5 gives -EINVAL (%s)" % fds)
for fd in fds:
    if fd >= 0:
        os.close(fd)

# The clocks: over a second of sleep, each counter's ticks a
# microsecond.  All at once: the box's counters are not multiplexed.
events = [(UBOX, UCLK, 2000), (UBOX, U_EVENT, 0), (UBOX, U_EVENT, 0)]
events += [(PCU, PCU_CLOCKTICKS, 1000)] * 3 + [(PCU, PCU_THERMAL, 0)]
fds = [open_event(t, c) for t, c, _ in events]
say(all(fd >= 0 for fd in fds), "open the U-box's 3 and the PCU's 4 "
    "counters: %s" % fds)
if all(fd >= 0 for fd in fds):
    c0 = [count(fd) for fd in fds]
    t0 = os.times().elapsed
    subprocess.run(["sleep", "1"], check=True)
    c1 = [count(fd) for fd in fds]
    t1 = os.times().elapsed
    for (t, c, want), a, b in zip(events, c0, c1):
        name = "uncore_ubox" if t == UBOX else "uncore_pcu"
        rate = (b - a) / ((t1 - t0) * 1e6)
        if want:
            say(want * 0.9 <= rate <= want * 1.1,
                "%s event %#x: %.0f a microsecond (want %d)" %
                (name, c, rate, want))
        else:
            say(b == 0, "%s event %#x: %d (want 0)" % (name, c, b))
for fd in fds:
    if fd >= 0:
        os.close(fd)
EOF
py_cases server_uncore.py

if command -v perf >/dev/null; then
	perf stat -a -x, -e uncore_ubox/event=0xff/ -e uncore_pcu/event=0x0/ \
		-- sleep 0.5 >stat.out 2>&1
	result $? "perf stat -a on uncore_ubox and uncore_pcu" stat.out
	awk -F, '$3 ~ /^uncore_ubox/ && $1 > 0 { u = 1 }
		$3 ~ /^uncore_pcu/ && $1 > 0 { p = 1 }
		END { exit !(u && p) }' stat.out
	result $? "perf stat: uncore clockticks and PCU clockticks" stat.out
else
	skip_one "perf stat -a on the server uncore PMUs" "no perf in this guest"
fi
tap_done
