#!/bin/sh
# Alder Lake's client uncore PMUs on the emulated part (tools/testing/
# qemu-pmu/README, patch 31): uncore_cbox_N, a C-box a CPU,
# uncore_arb_0 and _1, and uncore_clock.
#  - Each is registered, with a cpumask of one online CPU (pmu_sysfs.sh
#    diffs every file against stock's); no C-box past the CPUs.
#  - The errnos of what they refuse: a task event, sampling, a mode
#    filter, a group of more events than a C-box has counters; an event
#    on a CPU that is offline opens, on the package's reader.
#  - C-box N's cache lookups (event 0x34) count CPU N's loads and
#    stores: N loads on CPU 1 (cued through a pipe) count at least N,
#    within a quarter of N more than a cue of none, on C-box 1 with the
#    E and S states and any or read requests; little with write
#    requests or on C-box 0; none with the M or I states (the emulated
#    L3 holds every line, in E).  The bounds are skipped where the kernel
#    alone makes more than N / 8 lookups as long (a debug kernel).  The
#    ARB's requests count 0.
#  - uncore_clock's clockticks count 2000 a microsecond.
#  - perf stat -a on them.
# Prints TAP.
dir=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$dir/lib/tap.sh"
echo "TAP version 13"
. "$dir/lib/cpu.sh"
[ "$vendor:$family:$model" = GenuineIntel:6:151 ] ||
	skip "no emulated client uncore on $vendor family $family model $model (PMU=adl boots one)"
grep -qw hypervisor /proc/cpuinfo &&
	skip "under a hypervisor Linux leaves the client uncore alone"
command -v python3 >/dev/null || skip "no python3 for the perf_event_open() calls"
[ "$(nproc)" -ge 2 ] || skip "one CPU: the loads run on CPU 1"
cd "$tmp" || exit 1

d=/sys/bus/event_source/devices
ncpu=$(getconf _NPROCESSORS_CONF)
i=0
while [ $i -lt "$ncpu" ]; do
	[ -d $d/uncore_cbox_$i ]
	result $? "the uncore_cbox_$i PMU is registered"
	i=$((i + 1))
done
[ ! -d $d/uncore_cbox_$ncpu ]
result $? "no uncore_cbox_$ncpu: a C-box for each of the $ncpu CPUs"
for p in uncore_arb_0 uncore_arb_1 uncore_clock; do
	[ -d $d/$p ]
	result $? "the $p PMU is registered"
done
[ "$(cat $d/uncore_clock/events/clockticks 2>/dev/null)" = event=0xff ]
result $? "uncore_clock/events/clockticks is event=0xff"
[ -d $d/uncore_cbox_1 ] && [ -d $d/uncore_arb_0 ] && [ -d $d/uncore_clock ] ||
	{ tap_done; exit; }

cat >uncore.py <<'EOF'
import errno, os, subprocess, sys
from pmu_open import (DEVICES, count, cpulist, cued_loads, errno_of,
                      online_cpus, open_event, pmu_type, say, set_online,
                      skip)

TARGET = sys.argv[1]
CBO0, CBO1 = pmu_type("uncore_cbox_0"), pmu_type("uncore_cbox_1")
ARB, CLOCK = pmu_type("uncore_arb_0"), pmu_type("uncore_clock")
LOOKUP = 0x34


def lookup(umask):
    return LOOKUP | umask << 8


for p in ("uncore_cbox_0", "uncore_cbox_1", "uncore_arb_0", "uncore_clock"):
    mask = cpulist(open(DEVICES + p + "/cpumask").read())
    say(len(mask) == 1 and mask <= online_cpus(),
        "%s cpumask %s: one online CPU" % (p, sorted(mask)))

errno_of("uncore_cbox_0: a task event", errno.EINVAL,
         open_event(CBO0, lookup(0x86), cpu=-1, pid=0))
errno_of("uncore_cbox_0: sampling (sample_period 1000)", errno.EINVAL,
         open_event(CBO0, lookup(0x86), period=1000))
errno_of("uncore_arb_0: exclude_kernel", errno.EINVAL,
         open_event(ARB, 0x81 | 1 << 8, flags=1 << 5))
errno_of("uncore_clock: exclude_user", errno.EINVAL,
         open_event(CLOCK, 0xff, flags=1 << 4))

fds = [open_event(CBO0, lookup(0x86))]
fds += [open_event(CBO0, lookup(0x86), group=fds[0]) for _ in range(2)]
say(fds[0] >= 0 and fds[1] >= 0 and fds[2] == -errno.EINVAL,
    "uncore_cbox_0: a group of 2 events opens, of 3 gives -EINVAL (%s)" % fds)
for fd in fds:
    if fd >= 0:
        os.close(fd)

os.sched_setaffinity(0, {0})
# Every load is counted, with what the kernel adds: at least N, within
# a quarter of N more than none.  Unless the kernel on its own makes
# more than an eighth of N lookups in that time (a debug kernel): no
# bound holds then.  No more events on a box than it has counters, so
# that none is multiplexed.
N = 4000000


def lots(configs, good):
    fds = [open_event(t, c) for t, c in configs]
    say(all(fd >= 0 for fd in fds), "open %s: %s" %
        (", ".join("%d:%#x" % tc for tc in configs), fds))
    if not all(fd >= 0 for fd in fds):
        sys.exit(0)
    got = cued_loads(TARGET, 1, N, fds, good)
    for fd in fds:
        os.close(fd)
    return got


def at_most(got, i, bound, desc):
    least, extra, most, idle = got
    if idle[i] > N / 8:
        skip(desc, "the kernel alone made %d lookups in as long" % idle[i])
    else:
        say(extra[i] <= bound, "%s: %d more than none" % (desc, extra[i]))


got = lots([(CBO1, lookup(0x86)), (CBO1, lookup(0x16)),
            (CBO0, lookup(0x86)), (ARB, 0x81 | 1 << 8)],
           lambda least, extra: extra[0] <= N * 1.25 and
           extra[1] <= N * 1.25 and extra[2] < N / 4)
least, extra, most, idle = got
for i, what in ((0, "any request, E or S (0x86)"),
                (1, "read requests, E or S (0x16)")):
    say(N <= least[i], "uncore_cbox_1 lookups, %s: %d loads on CPU 1 "
        "count at least %d" % (what, N, least[i]))
    at_most(got, i, N * 1.25, "uncore_cbox_1 lookups, %s: within N / 4 "
            "of N" % what)
at_most(got, 2, N / 4, "uncore_cbox_0 lookups while CPU 1 loads: less "
        "than N / 4")
say(most[3] == 0, "uncore_arb_0 requests (event 0x81, umask 1): %d" %
    most[3])

got = lots([(CBO1, lookup(0x26)), (CBO1, lookup(0x81))],
           lambda least, extra: extra[0] < N / 4)
at_most(got, 0, N / 4, "uncore_cbox_1 lookups, write requests (0x26): "
        "less than N / 4")
say(got[2][1] == 0, "uncore_cbox_1 lookups of M lines (0x81): %d" %
    got[2][1])
got = lots([(CBO1, lookup(0x88))], lambda least, extra: True)
say(got[2][0] == 0, "uncore_cbox_1 lookups of I lines (0x88): %d" %
    got[2][0])

# The uncore clock: 2000 ticks a microsecond.
fd = open_event(CLOCK, 0xff)
c0 = count(fd)
t0 = os.times().elapsed
subprocess.run(["sleep", "1"], check=True)
c1 = count(fd)
t1 = os.times().elapsed
os.close(fd)
rate = (c1 - c0) / ((t1 - t0) * 1e6)
say(2000 * 0.9 <= rate <= 2000 * 1.1,
    "uncore_clock clockticks: %.0f a microsecond (want 2000)" % rate)

# An event on a CPU that is offline goes to its package's reader.
if 1 in online_cpus():
    try:
        set_online(1, False)
        fd = open_event(CBO1, lookup(0x86), cpu=1)
        say(fd >= 0, "uncore_cbox_1 on offline CPU 1 opens, on the "
            "package's reader: %d" % fd)
        if fd >= 0:
            os.close(fd)
    finally:
        set_online(1, True)
EOF
py_cases uncore.py "$dir/perf_hw_target"

if command -v perf >/dev/null; then
	perf stat -a -x, -e uncore_cbox_1/event=0x34,umask=0x86/ \
		-e uncore_clock/clockticks/ -e uncore_arb_0/event=0x81,umask=0x1/ \
		-- taskset -c 1 "$dir/perf_hw_target" loads 1000000 >stat.out 2>&1
	result $? "perf stat -a on uncore_cbox_1, uncore_clock and uncore_arb_0" stat.out
	awk -F, '$3 ~ /^uncore_cbox_1/ && $1 >= 1000000 { cbo = 1 }
		$3 ~ /^uncore_clock/ && $1 > 0 { clock = 1 }
		$3 ~ /^uncore_arb_0/ && $1 == 0 { arb = 1 }
		END { exit !(cbo && clock && arb) }' stat.out
	result $? "perf stat: a million loads' lookups, clockticks, no ARB requests" stat.out
else
	skip_one "perf stat -a on the client uncore PMUs" "no perf in this guest"
fi
tap_done
