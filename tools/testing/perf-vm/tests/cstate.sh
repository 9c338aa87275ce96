#!/bin/sh
# The cstate_core and cstate_pkg PMUs (Intel's C-state residency
# counters) on the emulated CPUs that have them (tools/testing/qemu-pmu/
# README, C-state residency): the named Intel models, which boot without
# the hypervisor bit, as the parts do.
#  - sysfs lists the model's events, each with its event string, the one
#    format field and a cpumask with an online CPU of each core or
#    package; a CPU with the hypervisor bit has neither PMU.
#  - The errnos of what the PMUs refuse: a task event, sampling, a mode
#    filter, a config the model lacks or past the last.
#  - The residencies count the emulated C-states, in TSC cycles against
#    msr/tsc/: core C1 while the core's CPUs are halted, package C2 while
#    all of the package's are, nearly all of the time while the guest
#    sleeps and next to none while its CPUs spin; the deeper states, which
#    the emulation never enters, not at all.
#  - When the CPU that reads a package goes offline, its events move to
#    another CPU of the package and count on from there (where a
#    package's reader other than CPU 0 has a sibling: -smp
#    4,sockets=2,cores=2).
#  - perf stat -a on a residency event.
# Prints TAP.
dir=$(cd "$(dirname "$0")" && pwd)
pmus=/sys/bus/event_source/devices
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$dir/lib/tap.sh"
echo "TAP version 13"
vendor=$(awk -F': ' '/^vendor_id/ { print $2; exit }' /proc/cpuinfo)
family=$(awk -F': ' '/^cpu family/ { print $2; exit }' /proc/cpuinfo)
model=$(awk -F': ' '/^model\t/ { print $2; exit }' /proc/cpuinfo)
if grep -qw hypervisor /proc/cpuinfo; then
	[ ! -e $pmus/cstate_core ] && [ ! -e $pmus/cstate_pkg ]
	result $? "under a hypervisor: no cstate_core, no cstate_pkg"
	tap_done
	exit
fi
# The model's events (upstream's tables), in config order.
case $vendor:$family:$model in
GenuineIntel:6:85) core="c3 c6 c7" pkg="c2 c3 c6 c7" ;;
GenuineIntel:6:106|GenuineIntel:6:143) core="c1 c6" pkg="c2 c6" ;;
GenuineIntel:6:151) core="c1 c6 c7" pkg="c2 c3 c6 c8 c10" ;;
*) skip "no emulated C-state residency on $vendor family $family model $model (PMU=skx, icx, spr or adl boots one)" ;;
esac
command -v python3 >/dev/null || skip "no python3 for the perf_event_open() calls"
cd "$tmp" || exit 1

# (result counts its points in $n: the loops use other names.)
for kind in core pkg; do
	d=$pmus/cstate_$kind
	case $kind in
	core) want=$core all="c1 c3 c6 c7" ;;
	pkg) want=$pkg all="c2 c3 c6 c7 c8 c9 c10" ;;
	esac
	[ -d "$d" ]
	result $? "the cstate_$kind PMU is registered"
	[ -d "$d" ] || continue
	got=$(ls "$d/events" | sed 's/-residency$//' | sort -V | tr '\n' ' ')
	[ "${got% }" = "$want" ]
	result $? "cstate_$kind events: ${got% } (want $want)"
	i=0 bad=0
	for s in $all; do
		f=$d/events/$s-residency
		if [ -e "$f" ] && [ "$(cat "$f")" != "event=0x0$i" ]; then
			echo "$s-residency: $(cat "$f") (want event=0x0$i)"
			bad=1
		fi
		i=$((i + 1))
	done >ev.err
	result $bad "cstate_$kind: each event's string" ev.err
	[ "$(cat "$d/format/event")" = "config:0-63" ] && [ "$(ls "$d/format")" = event ]
	result $? "cstate_$kind format: event is config:0-63, and nothing else"
done

cat >cstate.py <<'PY'
import errno, os, sys, time
from pmu_open import (DEVICES, check_cpumask, count, counted, cpulist,
                      errno_of, open_event, package_of, reader_to_offline,
                      pmu_type, say, set_online)

ALL = {"core": ["c1", "c3", "c6", "c7"],
       "pkg": ["c2", "c3", "c6", "c7", "c8", "c9", "c10"]}
WANT = {"core": sys.argv[1].split(), "pkg": sys.argv[2].split()}
COUNTED = {"core": "c1", "pkg": "c2"}   # the emulation's states
TYPE = {"core": pmu_type("cstate_core"), "pkg": pmu_type("cstate_pkg"),
        "msr": pmu_type("msr")}

for kind in ("core", "pkg"):
    check_cpumask("cstate_" + kind, kind)
    t = TYPE[kind]
    first = ALL[kind].index(WANT[kind][0])
    errno_of("cstate_%s: a task event" % kind, errno.EINVAL,
             open_event(t, first, cpu=-1, pid=0))
    errno_of("cstate_%s: sampling (sample_period 1000)" % kind, errno.EINVAL,
             open_event(t, first, period=1000))
    errno_of("cstate_%s: exclude_kernel" % kind, errno.EINVAL,
             open_event(t, first, flags=1 << 5))
    errno_of("cstate_%s: config %d, past the last" % (kind, len(ALL[kind])),
             errno.EINVAL, open_event(t, len(ALL[kind])))
    errno_of("cstate_%s: config 0x100" % kind, errno.EINVAL,
             open_event(t, 0x100))
    for i, s in enumerate(ALL[kind]):
        if s not in WANT[kind]:
            errno_of("cstate_%s: %s-residency, which the model lacks" % (kind, s),
                     errno.EINVAL, open_event(t, i))

NCPU = len(package_of(0))

# The shares of msr/tsc/ each event counted on CPU 0 over SECS.
def shares(fds, tsc, secs, busy):
    got, ticks = counted(fds, secs, NCPU, busy, clock=tsc)
    return [d / max(ticks, 1) for d in got]

names, fds = [], []
for kind in ("core", "pkg"):
    for s in WANT[kind]:
        fd = open_event(TYPE[kind], ALL[kind].index(s))
        say(fd >= 0, "open cstate_%s/%s-residency/ on CPU 0: %d" % (kind, s, fd))
        if fd < 0:
            sys.exit(0)
        names.append((kind, s))
        fds.append(fd)
tsc = open_event(TYPE["msr"], 0)
say(tsc >= 0, "open msr/tsc/ on CPU 0: %d" % tsc)
if tsc < 0:
    sys.exit(0)
os.sched_setaffinity(0, {0})
idle = shares(fds, tsc, 2.0, False)
busy = shares(fds, tsc, 2.0, True)
for (kind, s), i, b in zip(names, idle, busy):
    desc = "cstate_%s/%s-residency/: %.3f of the TSC asleep, %.3f running" % (
        kind, s, i, b)
    if s == COUNTED[kind]:
        say(0.5 <= i <= 1.001 and b <= 0.1, desc + " (want 0.5 to 1, and 0.1 or less)")
    else:
        say(i == 0 and b == 0, desc + " (never entered: want 0)")
for fd in fds:
    os.close(fd)
os.close(tsc)

# A package read by a CPU other than 0 that has a sibling: when the
# reader goes offline, its events move to the sibling.  An offline CPU
# of the emulated models waits in MWAIT, which TCG runs as a spin
# (qemu-pmu README): its package leaves C2 until it is back online, when
# the event, now read on the sibling, counts again.
r = reader_to_offline("cstate_pkg", "a package's reader goes offline",
                      "package")
siblings = package_of(r)	# gone from sysfs while r is offline
fd = open_event(TYPE["pkg"], 0, cpu=r)
say(fd >= 0, "open cstate_pkg/c2-residency/ on CPU %d: %d" % (r, fd))
time.sleep(0.2)
c1 = count(fd)
try:
    set_online(r, False)
    mask = cpulist(open(DEVICES + "cstate_pkg/cpumask").read())
    say(r not in mask and mask & siblings,
        "CPU %d offline: cpumask %s has another CPU of its package" %
        (r, sorted(mask)))
    c2 = count(fd)
finally:
    set_online(r, True)
time.sleep(0.5)
c3 = count(fd)
time.sleep(0.5)
c4 = count(fd)
say(0 < c1 <= c2 < c3 < c4,
    "its event goes on counting: %d, %d offline, %d, %d back online" %
    (c1, c2, c3, c4))
os.close(fd)
PY
py_cases cstate.py "$core" "$pkg"

if command -v perf >/dev/null; then
	perf stat -a -x, -e cstate_pkg/c2-residency/ -- sleep 1 >stat.out 2>&1
	result $? "perf stat -a -e cstate_pkg/c2-residency/" stat.out
	awk -F, '$3 == "cstate_pkg/c2-residency/" && $1 > 0 { ok = 1 }
		END { exit !ok }' stat.out
	result $? "perf stat: cycles in package C2: $(head -n 1 stat.out)" stat.out
else
	skip_one "perf stat -a -e cstate_pkg/c2-residency/" "no perf in this guest"
fi
tap_done
