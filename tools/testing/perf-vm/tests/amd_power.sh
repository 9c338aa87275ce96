#!/bin/sh
# The "power" PMU of AMD family 15h (accumulated power) on the emulated
# CPU that has it (PMU=amd-15h; tools/testing/qemu-pmu/README, patch 32).
#  - sysfs: the one event power-pkg with its string, unit ("mWatts") and
#    scale (1e-3), the one format field, a cpumask with an online CPU of
#    each compute unit (a core to Linux).
#  - The errnos of what the PMU refuses: a task event, sampling, a mode
#    filter, a config whose low byte is not 1 (the bits above it are
#    ignored, as upstream).
#  - What a count is: each read of a running event adds the compute
#    unit's average power since the event started, in microwatts, within
#    the emulation's model (4 W a running vCPU, 0.5 W a halted one); a
#    CPU that spins draws more than one that sleeps; a disabled event
#    keeps its count.
#  - perf stat -a -e power/power-pkg/ reports milliwatts within the model.
# Prints TAP.
dir=$(cd "$(dirname "$0")" && pwd)
d=/sys/bus/event_source/devices/power
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$dir/lib/tap.sh"
echo "TAP version 13"
command -v python3 >/dev/null || skip "no python3 for the perf_event_open() calls"
. "$dir/lib/cpu.sh"
[ "$vendor:$family" = AuthenticAMD:21 ] && grep -qw acc_power /proc/cpuinfo ||
	skip "no accumulated power on $vendor family $family (PMU=amd-15h boots an AMD family 15h CPU with it)"
cd "$tmp" || exit 1

[ -d $d ]
result $? "the power PMU is registered"
[ -d $d ] || { tap_done; exit; }
[ "$(ls $d/events | tr '\n' ' ')" = "power-pkg power-pkg.scale power-pkg.unit " ]
result $? "events: $(ls $d/events | tr '\n' ' ')"
[ "$(cat $d/events/power-pkg)" = "event=0x01" ] &&
	[ "$(cat $d/events/power-pkg.unit)" = mWatts ] &&
	[ "$(cat $d/events/power-pkg.scale)" = 1.000000e-3 ]
result $? "power-pkg: '$(cat $d/events/power-pkg)', unit '$(cat $d/events/power-pkg.unit)', scale '$(cat $d/events/power-pkg.scale)'"
[ "$(cat $d/format/event)" = "config:0-7" ] && [ "$(ls $d/format)" = event ]
result $? "format: event is config:0-7, and nothing else"

cat >amd_power.py <<'EOF'
import errno, fcntl, os, time
from pmu_open import (check_cpumask, count, errno_of, online_cpus,
                      open_event, pmu_type, say, spin)

TYPE = pmu_type("power")
IOC_DISABLE = 0x2401
# The emulation's model (qemu-pmu README, patch 32), in microwatts: a
# compute unit of one vCPU draws 0.5 W halted and 4 W running.  The
# counts are floors of exact averages; the margin is for the guest's
# clock against QEMU's.
LO, HI = 500000 * 0.97, 4000000 * 1.03

check_cpumask("power", "core")

errno_of("a task event", errno.EINVAL, open_event(TYPE, 1, cpu=-1, pid=0))
errno_of("sampling (sample_period 1000)", errno.EINVAL,
         open_event(TYPE, 1, period=1000))
errno_of("exclude_kernel", errno.EINVAL, open_event(TYPE, 1, flags=1 << 5))
errno_of("config 0", errno.EINVAL, open_event(TYPE, 0))
errno_of("config 2", errno.EINVAL, open_event(TYPE, 2))
fd = open_event(TYPE, 0x101)
say(fd >= 0, "config 0x101 (bits above 0-7 ignored) opens: %d" % fd)
if fd >= 0:
    os.close(fd)
for c in sorted(online_cpus()):
    fd = open_event(TYPE, 1, cpu=c)
    say(fd >= 0, "open power-pkg on CPU %d: %d" % (c, fd))
    if fd >= 0:
        os.close(fd)

os.sched_setaffinity(0, {0})
# Busy: CPU 0 runs this task for the event's first stretch.
fd = open_event(TYPE, 1)
t0 = time.monotonic()
spin(2.0)
c1 = count(fd)
t1 = time.monotonic()
say(3000000 <= c1 <= HI,
    "CPU 0 spinning: %d uW since the start (4 W running)" % c1)
time.sleep(2.0)
c2 = count(fd)
t2 = time.monotonic()
# The second read adds the average over both stretches: the first's,
# then one of 0.5 to 4 W.
lo = (c1 * (t1 - t0) + LO * (t2 - t1)) / (t2 - t0) * 0.97
hi = (c1 * (t1 - t0) + HI * (t2 - t1)) / (t2 - t0) * 1.03
say(lo <= c2 - c1 <= hi,
    "a second read adds the average since the start: %d uW (%d to %d)" %
    (c2 - c1, lo, hi))
fcntl.ioctl(fd, IOC_DISABLE, 0)
c3 = count(fd)
time.sleep(0.5)
c4 = count(fd)
say(c3 > c2 and c4 == c3,
    "disabled, the count stays: %d after %d, then %d" % (c3, c2, c4))
os.close(fd)

# Idle: CPU 0 halts while this task sleeps.
fd = open_event(TYPE, 1)
time.sleep(2.0)
idle = count(fd)
os.close(fd)
say(LO <= idle < c1,
    "CPU 0 asleep: %d uW, at least 0.5 W and less than spinning" % idle)
EOF
py_cases amd_power.py

if command -v perf >/dev/null; then
	ncu=$(python3 -c "import sys; sys.path.insert(0, '$dir/lib'); from pmu_open import cpulist; print(len(cpulist(open('$d/cpumask').read())))")
	perf stat -a -x, -e power/power-pkg/ -- sleep 1 >stat.out 2>&1
	result $? "perf stat -a -e power/power-pkg/" stat.out
	awk -F, -v n="$ncu" '$3 == "power/power-pkg/" && $2 == "mWatts" &&
		$1 >= n * 485 && $1 <= n * 4120 { ok = 1 } END { exit !ok }' stat.out
	result $? "perf stat: milliwatts of $ncu compute units within the model: $(head -n 1 stat.out)" stat.out
else
	skip_one "perf stat -a -e power/power-pkg/" "no perf in this guest"
fi
tap_done
