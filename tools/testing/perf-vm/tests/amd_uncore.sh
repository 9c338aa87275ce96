#!/bin/sh
# AMD's uncore PMUs on the emulated Zen 4 (tools/testing/qemu-pmu/README,
# patch 30): amd_l3, amd_df and one amd_umc_N a memory controller.
#  - Each is registered, with a cpumask of one online CPU of its cache or
#    node and its format fields (pmu_sysfs.sh diffs every file against
#    stock's).
#  - The errnos of what they refuse: a task event, sampling, a mode
#    filter, a group of more events than counters, a CPU that is offline.
#  - amd_l3's lookups (event 0x04, the hit states) count each load and
#    store: N loads on CPU 1 (a process already running, cued through a
#    pipe) count at least N, within a quarter of N more than a cue of
#    none, for every core and for CPU 1's core, and little for CPU 0's
#    core (the bounds skipped where the kernel alone makes more than N / 8
#    lookups as long: a debug kernel); the miss state counts 0 (the
#    emulated L3 holds everything).
#  - When a node's reader other than CPU 0 goes offline, its events move
#    to another CPU of the node (-smp 4,sockets=2,cores=2, not in make
#    check).
#  - amd_df counts 0 (no traffic reaches the fabric); amd_umc's memory
#    clock (event 0) counts 2400 a microsecond, its other events 0.
#  - perf stat -a on each PMU.
# Prints TAP.
dir=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$dir/lib/tap.sh"
echo "TAP version 13"
command -v python3 >/dev/null || skip "no python3 for the perf_event_open() calls"
. "$dir/lib/cpu.sh"
[ "$vendor" = AuthenticAMD ] && [ "$family" -ge 25 ] &&
	grep -qw perfctr_llc /proc/cpuinfo && grep -qw perfmon_v2 /proc/cpuinfo ||
	skip "no emulated AMD uncore counters (PMU=amd boots a Zen 4 with them)"
[ "$(nproc)" -ge 2 ] || skip "one CPU: the loads run on CPU 1"
cd "$tmp" || exit 1

d=/sys/bus/event_source/devices
# Two memory controllers a node, numbered across the nodes (packages).
pkgs=$(cat /sys/devices/system/cpu/cpu*/topology/physical_package_id | sort -u | wc -l)
umcs=$((2 * pkgs))
i=0
while [ $i -lt $umcs ]; do
	[ -d $d/amd_umc_$i ]
	result $? "the amd_umc_$i PMU is registered"
	i=$((i + 1))
done
[ ! -d $d/amd_umc_$umcs ]
result $? "no amd_umc_$umcs: each of the $pkgs nodes has two active memory controllers"
for p in amd_l3 amd_df; do
	[ -d $d/$p ]
	result $? "the $p PMU is registered"
done
[ -d $d/amd_l3 ] && [ -d $d/amd_df ] && [ -d $d/amd_umc_0 ] || { tap_done; exit; }

cat >uncore.py <<'EOF'
import errno, os, subprocess, sys
from pmu_open import (DEVICES, check_cpumask, count, cpulist, cued_loads,
                      errno_of, online_cpus, open_event, package_of,
                      reader_to_offline, pmu_type, say, set_online, skip,
                      topology_key)

TARGET = sys.argv[1]
L3, DF, UMC = pmu_type("amd_l3"), pmu_type("amd_df"), pmu_type("amd_umc_0")
LOOKUPS = 0x04 | 0xff << 8

def package_key(cpu):
    return topology_key(cpu, "pkg")

def core_of(cpu):
    return int(open("/sys/devices/system/cpu/cpu%d/topology/core_id"
                    % cpu).read())

# One reader a node (and its single L3); each UMC PMU its node's.
check_cpumask("amd_l3", "pkg")
check_cpumask("amd_df", "pkg")
pkgs = sorted({package_key(c) for c in online_cpus()})
for i in range(2 * len(pkgs)):
    mask = cpulist(open(DEVICES + "amd_umc_%d/cpumask" % i).read())
    say(len(mask) == 1 and package_key(min(mask)) == pkgs[i // 2],
        "amd_umc_%d cpumask %s: a CPU of node %s" % (i, sorted(mask),
                                                   pkgs[i // 2]))

errno_of("amd_l3: a task event", errno.EINVAL,
         open_event(L3, LOOKUPS, cpu=-1, pid=0))
errno_of("amd_l3: sampling (sample_period 1000)", errno.EOPNOTSUPP,
         open_event(L3, LOOKUPS, period=1000))
errno_of("amd_df: exclude_kernel", errno.EINVAL,
         open_event(DF, 0, flags=1 << 5))
errno_of("amd_umc_0: exclude_user", errno.EINVAL,
         open_event(UMC, 0, flags=1 << 4))


def group_limit(type_, n, name):
    """N events of TYPE_ fit in a group, one more does not."""
    fds = [open_event(type_, 0)]
    for i in range(1, n + 1):
        fds.append(open_event(type_, 0, group=fds[0]))
    ok = all(fd >= 0 for fd in fds[:n]) and fds[n] == -errno.EINVAL
    say(ok, "%s: a group of %d events opens, of %d gives -EINVAL (%s)" %
        (name, n, n + 1, fds))
    for fd in fds:
        if fd >= 0:
            os.close(fd)


group_limit(L3, 6, "amd_l3")
group_limit(DF, 4, "amd_df")
group_limit(UMC, 4, "amd_umc_0")


os.sched_setaffinity(0, {0})
core1, core0 = core_of(1), core_of(0)
# ThreadMask 1 (the core's one thread), EnAllSlices, CoreId.
def l3_core(core):
    return LOOKUPS | core << 42 | 1 << 46 | 1 << 56

fds = [open_event(L3, LOOKUPS, cpu=1), open_event(L3, l3_core(core1)),
       open_event(L3, l3_core(core0)), open_event(L3, 0x04 | 0x01 << 8),
       open_event(DF, 0x1f | 0x7fe << 8), open_event(UMC, 0x0a)]
say(all(fd >= 0 for fd in fds), "open amd_l3, amd_df and amd_umc_0 "
    "events (on CPU 1 too): %s" % fds)
if not all(fd >= 0 for fd in fds):
    sys.exit(0)
# Every load is counted, with what the kernel adds: at least N, and
# within a quarter of N more than a cue of no loads.  Unless the kernel
# on its own makes more than an eighth of N lookups in that time, as a
# debug kernel's kmemleak and RCU threads do: no bound holds then.
N = 4000000


def good(least, extra):
    return (extra[0] <= N * 1.25 and extra[1] <= N * 1.25 and
            (core0 == core1 or extra[2] < N / 4))


least_long, extra, most, idle = cued_loads(TARGET, 1, N, fds, good)
others = most[3:]


def at_most(i, bound, desc):
    if idle[i] > N / 8:
        skip(desc, "the kernel alone made %d lookups in as long" % idle[i])
    else:
        say(extra[i] <= bound, "%s: %d more than none" % (desc, extra[i]))


say(N <= least_long[0], "amd_l3 lookups, every core: %d loads on CPU 1 "
    "count at least %d" % (N, least_long[0]))
at_most(0, N * 1.25, "amd_l3 lookups, every core: within N / 4 of N")
say(N <= least_long[1], "amd_l3 lookups of CPU 1's core (%d): at least %d"
    % (core1, least_long[1]))
at_most(1, N * 1.25, "amd_l3 lookups of CPU 1's core: within N / 4 of N")
if core0 != core1:
    at_most(2, N / 4, "amd_l3 lookups of CPU 0's core (%d) while CPU 1 "
            "loads: less than N / 4" % core0)
say(others[0] == 0, "amd_l3 misses (unit mask 0x01): %d" % others[0])
say(others[1] == 0 and others[2] == 0,
    "amd_df and amd_umc_0's CAS commands (no traffic past the L3): "
    "%d, %d" % (others[1], others[2]))
for fd in fds:
    os.close(fd)

# The memory clock: 2400 a microsecond while enabled.
fd = open_event(UMC, 0)
c0 = count(fd)
t0 = os.times().elapsed
subprocess.run(["sleep", "1"], check=True)
c1 = count(fd)
t1 = os.times().elapsed
os.close(fd)
rate = (c1 - c0) / ((t1 - t0) * 1e6)
say(2400 * 0.9 <= rate <= 2400 * 1.1,
    "amd_umc_0 memory clocks: %.0f a microsecond (want 2400)" % rate)

# A CPU that is offline has no box to count on.
if 1 in online_cpus():
    try:
        set_online(1, False)
        errno_of("amd_l3 on an offline CPU", errno.ENODEV,
                 open_event(L3, LOOKUPS, cpu=1))
    finally:
        set_online(1, True)
    fd = open_event(L3, LOOKUPS, cpu=1)
    say(fd >= 0, "amd_l3 on CPU 1 back online: %d" % fd)
    if fd >= 0:
        os.close(fd)

# A node read by a CPU other than 0 that has a sibling: when the reader
# goes offline, its events move to the sibling and go on counting.
r = reader_to_offline("amd_l3", "a reader goes offline", "node")
siblings = package_of(r)
umc = [i for i in range(2 * len(pkgs))
       if r in cpulist(open(DEVICES + "amd_umc_%d/cpumask" % i).read())]
say(len(umc) == 2, "CPU %d reads two UMC PMUs: %s" % (r, umc))
fds = [open_event(pmu_type("amd_umc_%d" % umc[0]), 0, cpu=r),
       open_event(L3, LOOKUPS, cpu=r)]
say(min(fds) >= 0, "open amd_umc_%d's clocks and amd_l3's lookups on CPU "
    "%d: %s" % (umc[0], r, fds))
c1 = [count(fd) for fd in fds]
try:
    set_online(r, False)
    ok = True
    for pmu in ("amd_l3", "amd_df", "amd_umc_%d" % umc[0]):
        mask = cpulist(open(DEVICES + pmu + "/cpumask").read())
        ok = ok and r not in mask and bool(mask & siblings)
    say(ok, "CPU %d offline: amd_l3, amd_df and amd_umc_%d have another "
        "CPU of its node" % (r, umc[0]))
    subprocess.run(["sleep", "0.5"], check=True)
    c2 = [count(fd) for fd in fds]
    subprocess.run(["sleep", "0.5"], check=True)
    c3 = [count(fd) for fd in fds]
    say(c1[0] < c2[0] < c3[0] and c1[1] <= c2[1] <= c3[1],
        "its events go on counting: clocks %d, %d, %d; lookups %d, %d, %d" %
        (c1[0], c2[0], c3[0], c1[1], c2[1], c3[1]))
finally:
    set_online(r, True)
for fd in fds:
    os.close(fd)
EOF
py_cases uncore.py "$dir/perf_hw_target"

if command -v perf >/dev/null; then
	perf stat -a -x, -e amd_l3/event=0x04,umask=0xff/ -e amd_umc_0/event=0/ \
		-e amd_df/event=0x1f,umask=0x7fe/ -- "$dir/perf_hw_target" loads 1000000 \
		>stat.out 2>&1
	result $? "perf stat -a on amd_l3, amd_umc_0 and amd_df" stat.out
	awk -F, '$3 ~ /^amd_l3/ && $1 >= 1000000 { l3 = 1 }
		$3 ~ /^amd_umc_0/ && $1 > 0 { umc = 1 }
		$3 ~ /^amd_df/ && $1 == 0 { df = 1 }
		END { exit !(l3 && umc && df) }' stat.out
	result $? "perf stat: a million loads' lookups, memory clocks, no fabric traffic" stat.out
else
	skip_one "perf stat -a on the uncore PMUs" "no perf in this guest"
fi
tap_done
