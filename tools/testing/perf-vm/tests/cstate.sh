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
# The kernel's own work keeps CPUs from sleeping for a share of the time
# that varies (a debug kernel's most): a residency is held to the bounds
# the CPUs' idle times in /proc/stat set, and is a skip when they do not
# leave the core or package idle a quarter of the time.
# Prints TAP.
dir=$(cd "$(dirname "$0")" && pwd)
pmus=/sys/bus/event_source/devices
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$dir/lib/tap.sh"
echo "TAP version 13"
. "$dir/lib/cpu.sh"
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
import errno, os, shutil, subprocess, sys, time
from pmu_open import (DEVICES, all_idle, check_cpumask, count, counted,
                      cpu_times, cpulist, errno_of, idle_shares, open_event,
                      package_of, reader_to_offline, pmu_type, say, set_online,
                      skip)

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
# CPU 0's core or package.
def cpus_of(kind):
    return cpulist(open("/sys/devices/system/cpu/cpu0/topology/%s_cpus_list" %
                        ("core" if kind == "core" else "package")).read())


# While the test sleeps, the kernel's own work (a debug kernel's above
# all) keeps CPUs busy for a share of the time that varies from run to
# run.  A residency is the time all CPUs of the core or package are
# halted: at most the least of their idle shares in /proc/stat, and at
# least what those shares force to overlap, less the idle loop's own
# work before HLT and after each wakeup, which is idle time but not
# halted: half the overlap is wanted (on our debug kernel, Ice Lake-SP,
# core C1 counted 0.835 to 0.867 of the TSC with CPU 0 idle 0.975 to
# 0.980, package C2 0.781 to 0.805 with both CPUs idle 0.975 or more;
# on a quiet non-debug guest 0.94 to 0.99 for 0.995).  Below a quarter
# of the time the floor says nothing, and the case is a skip naming the
# shares.  Without a SHARE, the residency need only be above 0.
def asleep(desc, cpus, t0, t1, share=None, counted=0):
    idle = idle_shares(t0, t1, cpus)
    lo = all_idle(idle)
    hi = min(idle)
    desc += ", CPUs %s idle %s of the time" % (
        ",".join(map(str, sorted(cpus))), "/".join("%.3f" % x for x in idle))
    if lo < 0.25:
        skip(desc, "the kernel kept them busy: together idle at least %.3f"
             " of the time" % lo)
    elif share is None:
        say(counted > 0, desc + " (want more than 0)")
    else:
        say(lo / 2 <= share <= min(hi + 0.1, 1.001),
            desc + " (want %.3f to %.3f)" % (lo / 2, min(hi + 0.1, 1.001)))


os.sched_setaffinity(0, {0})
t0 = cpu_times()
idle = shares(fds, tsc, 2.0, False)
t1 = cpu_times()
busy = shares(fds, tsc, 2.0, True)
for (kind, s), i, b in zip(names, idle, busy):
    name = "cstate_%s/%s-residency/" % (kind, s)
    if s == COUNTED[kind]:
        asleep("%s: %.3f of the TSC asleep" % (name, i), cpus_of(kind),
               t0, t1, share=i)
        say(b <= 0.1, "%s: %.3f of the TSC while the CPUs spin (want 0.1 or"
            " less)" % (name, b))
    else:
        say(i == 0 and b == 0, "%s: %.3f of the TSC asleep, %.3f running"
            " (never entered: want 0)" % (name, i, b))
for fd in fds:
    os.close(fd)
os.close(tsc)

# perf stat -a: CPU 0's package has cycles in C2 over a second's sleep.
ev = "cstate_pkg/c2-residency/"
if shutil.which("perf"):
    t0 = cpu_times()
    r = subprocess.run(["perf", "stat", "-a", "-x,", "-e", ev, "--",
                        "sleep", "1"], capture_output=True, text=True)
    t1 = cpu_times()
    say(r.returncode == 0, "perf stat -a -e %s: exit %d" % (ev, r.returncode))
    line = [x for x in r.stderr.splitlines() if x.split(",")[2:3] == [ev]]
    n = int(line[0].split(",")[0]) if line and line[0].split(",")[0].isdigit() \
        else -1
    asleep("perf stat: %d cycles in package C2 (%s)" %
           (n, line[0] if line else r.stderr.strip()), package_of(0), t0, t1,
           counted=n)
else:
    skip("perf stat -a -e %s" % ev, "no perf in this guest")

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
tap_done
