#!/bin/sh
# The "power" PMU (RAPL's energy counters) on the emulated CPUs that have
# them (tools/testing/qemu-pmu/README, RAPL): the named Intel models and
# the AMD one.
#  - sysfs lists the model's domains, each with its event string, unit
#    ("Joules") and scale (2^-32), the one format field and a cpumask
#    with an online CPU of each package.
#  - The errnos of what the PMU refuses: a task event, sampling, a mode
#    filter, a config that is not a domain of the model.
#  - Each domain counts the emulated energy: its watts over a stretch of
#    time fall within what the emulation's model gives for the number of
#    CPUs, in the domain's own unit (DRAM in 2^-16 J on Skylake-SP and
#    Ice Lake-SP, the platform in joules on Sapphire Rapids), and the
#    package draws more while the CPUs run than while they sleep.
#  - When the CPU that reads a package goes offline, its events move to
#    another CPU of the package and go on counting (where a package's
#    reader other than CPU 0 has a sibling: -smp 4,sockets=2,cores=2).
#  - perf stat -a -e power/energy-pkg/ reports joules.
# Prints TAP.
dir=$(cd "$(dirname "$0")" && pwd)
d=/sys/bus/event_source/devices/power
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$dir/lib/tap.sh"
echo "TAP version 13"
command -v python3 >/dev/null || skip "no python3 for the perf_event_open() calls"
. "$dir/lib/cpu.sh"
# The domains of the emulated part, in config order (1 cores ... 5 psys).
case $vendor:$family:$model in
GenuineIntel:6:85|GenuineIntel:6:106) want="pkg ram" ;;
GenuineIntel:6:143) want="pkg ram psys" ;;
GenuineIntel:6:151) want="cores pkg gpu psys" ;;
AuthenticAMD:*)
	if [ "$family" -ge 23 ] && grep -qw rapl /proc/cpuinfo; then
		want="pkg"
	else
		skip "an AMD CPU without RAPL (PMU=amd boots one with it)"
	fi
	;;
*) skip "no emulated RAPL on $vendor family $family model $model (PMU=skx, icx, spr, adl or amd boots one)" ;;
esac
cd "$tmp" || exit 1

[ -d $d ]
result $? "the power PMU is registered"
[ -d $d ] || { tap_done; exit; }
got=
for dom in cores pkg ram gpu psys; do
	[ -e $d/events/energy-$dom ] && got="$got $dom"
done
[ "${got# }" = "$want" ]
result $? "events: ${got# } (want $want)"
bad=0
# (result counts its points in $n: the loops use other names.)
for dom in $want; do
	c=$(cat "$d/events/energy-$dom")
	u=$(cat "$d/events/energy-$dom.unit")
	s=$(cat "$d/events/energy-$dom.scale")
	i=0
	for m in cores pkg ram gpu psys; do
		i=$((i + 1))
		[ $m = "$dom" ] && break
	done
	[ "$c" = "event=0x0$i" ] && [ "$u" = Joules ] &&
		[ "$s" = 2.3283064365386962890625e-10 ] ||
		{ echo "energy-$dom: '$c' '$u' '$s'"; bad=1; }
done >ev.err
result $bad "each event's string, unit and scale" ev.err
[ "$(cat $d/format/event)" = "config:0-7" ] && [ "$(ls $d/format)" = event ]
result $? "format: event is config:0-7, and nothing else"
cat >power.py <<'EOF'
import errno, os, sys, time
from pmu_open import (DEVICES, check_cpumask, count, counted, cpulist,
                      errno_of, open_event, package_of, reader_to_offline,
                      pmu_type, say, set_online)

D = DEVICES + "power/"
WANT = sys.argv[1].split()
NAMES = ["cores", "pkg", "ram", "gpu", "psys"]
TYPE = pmu_type("power")

# The CPUs of CPU 0's package, whose energy the events on CPU 0 count.
NCPU = len(package_of(0))

check_cpumask("power", "pkg")

pkg = NAMES.index("pkg") + 1
errno_of("a task event", errno.EINVAL, open_event(TYPE, pkg, cpu=-1, pid=0))
errno_of("sampling (sample_period 1000)", errno.EINVAL,
         open_event(TYPE, pkg, period=1000))
errno_of("exclude_kernel", errno.EINVAL, open_event(TYPE, pkg, flags=1 << 5))
errno_of("config 0", errno.EINVAL, open_event(TYPE, 0))
errno_of("config 6", errno.EINVAL, open_event(TYPE, 6))
errno_of("config 0x102 (bits above 0-7)", errno.EINVAL, open_event(TYPE, 0x102))
for i, n in enumerate(NAMES):
    if n not in WANT:
        errno_of("energy-%s, which the model lacks" % n, errno.EINVAL,
                 open_event(TYPE, i + 1))

# The emulation's watts (qemu-pmu README): a running CPU 4 to its core, a
# halted one 0.5; the package 8 more; DRAM 2 and 1 a running CPU; the
# graphics 1; the platform package + DRAM + 5.  Per domain, the least
# (every CPU halted) and the most (every CPU running), with a margin for
# the guest's clock against QEMU's.
def bounds(n):
    lo_core, hi_core = 0.5 * NCPU, 4.0 * NCPU
    b = {"cores": (lo_core, hi_core), "pkg": (8 + lo_core, 8 + hi_core),
         "ram": (2.0, 2.0 + NCPU), "gpu": (1.0, 1.0),
         "psys": (15 + lo_core, 15 + hi_core + NCPU)}[n]
    return b[0] * 0.8, b[1] * 1.2

def watts(fds, secs, busy):
    got, t = counted(fds, secs, NCPU, busy)
    return [d / 2.0 ** 32 / t for d in got]

fds = []
for n in WANT:
    fd = open_event(TYPE, NAMES.index(n) + 1)
    say(fd >= 0, "open energy-%s on CPU 0: %d" % (n, fd))
    if fd < 0:
        sys.exit(0)
    fds.append(fd)
os.sched_setaffinity(0, {0})
idle = watts(fds, 2.0, False)
busy = watts(fds, 2.0, True)
for n, i, b in zip(WANT, idle, busy):
    lo, hi = bounds(n)
    say(lo <= i <= hi and lo <= b <= hi,
        "energy-%s: %.2f W idle, %.2f W busy (the model's %.2f to %.2f)" %
        (n, i, b, lo, hi))
p = WANT.index("pkg")
say(busy[p] > idle[p] + 2.0,
    "energy-pkg: %.2f W with %d CPUs running, more than %.2f W asleep" %
    (busy[p], NCPU, idle[p]))
for fd in fds:
    os.close(fd)

# A package read by a CPU other than 0 that has a sibling: when the
# reader goes offline, its events move to the sibling and go on counting.
r = reader_to_offline("power", "a reader goes offline", "package")
siblings = package_of(r)	# gone from sysfs while r is offline
fd = open_event(TYPE, pkg, cpu=r)
say(fd >= 0, "open energy-pkg on CPU %d: %d" % (r, fd))
c1 = count(fd)
try:
    set_online(r, False)
    mask = cpulist(open(D + "cpumask").read())
    say(r not in mask and mask & siblings,
        "CPU %d offline: cpumask %s has another CPU of its package" %
        (r, sorted(mask)))
    time.sleep(0.5)
    c2 = count(fd)
    time.sleep(0.5)
    c3 = count(fd)
    say(c1 < c2 < c3, "its event goes on counting: %d, %d, %d" % (c1, c2, c3))
finally:
    set_online(r, True)
os.close(fd)
EOF
py_cases power.py "$want"

if command -v perf >/dev/null; then
	perf stat -a -x, -e power/energy-pkg/ -- sleep 1 >stat.out 2>&1
	result $? "perf stat -a -e power/energy-pkg/" stat.out
	awk -F, '$3 == "power/energy-pkg/" && $2 == "Joules" && $1 > 0 { ok = 1 }
		END { exit !ok }' stat.out
	result $? "perf stat: joules of energy-pkg: $(head -n 1 stat.out)" stat.out
else
	skip_one "perf stat -a -e power/energy-pkg/" "no perf in this guest"
fi
tap_done
