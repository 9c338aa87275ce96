#!/bin/sh
# Skylake-SP's and Ice Lake-SP's uncore PMUs that live in MSRs, on the
# emulated parts (tools/testing/qemu-pmu/README, patches 33 and 34):
# uncore_ubox and uncore_pcu, one box a package, and the six PCIe stacks'
# uncore_iio_N, uncore_iio_free_running_N, uncore_irp_N and, on Ice
# Lake-SP, uncore_m2pcie_N.
#  - All are registered, with a cpumask of one online CPU (pmu_sysfs.sh
#    diffs every file against stock's).
#  - The errnos of what they refuse: a task event, sampling, a mode
#    filter, a group of more events than the box has counters; on the
#    stacks also a group that the IIO's or M2PCIe's counter constraints
#    cannot place, config 0xff on the IIO (no fixed counter), a
#    free-running config of no counter or type, and a config that is not
#    free-running on uncore_iio_free_running_N.
#  - The U-box's fixed counter (event 0xff) counts the uncore clock, 2000
#    ticks a microsecond; the PCU's clockticks (event 0x00) 1000 on each
#    of its four counters at once; a U-box event and the PCU's thermal
#    limit cycles count 0 (the emulated package has no traffic there and
#    is never throttled).
#  - The stacks' clocks, all at once: the IIO's and IRP's clockticks
#    (event 0x01) on every counter of stacks 0 and 5 and the free-running
#    ioclk (two events on the one counter) count the IIO clock, 1000
#    ticks a microsecond on Skylake-SP and 500 on Ice Lake-SP; the
#    M2PCIe's clockticks (event 0x01) the uncore clock, 2000; an IIO and
#    an IRP event and a free-running bandwidth counter count 0 (no PCIe
#    traffic crosses the emulated stacks).  On stack 1, two clockticks
#    events opened before two events that only counters 0-1 take still
#    count all the time: the box's counters are given out anew at each
#    add.
#  - perf stat -a on them.
# Prints TAP.
dir=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$dir/lib/tap.sh"
echo "TAP version 13"
. "$dir/lib/cpu.sh"
case "$vendor:$family:$model" in
GenuineIntel:6:85 | GenuineIntel:6:106) ;;
*) skip "no emulated server uncore on $vendor family $family model $model (PMU=skx and icx boot one)" ;;
esac
grep -qw hypervisor /proc/cpuinfo &&
	skip "under a hypervisor Linux leaves the uncore alone"
command -v python3 >/dev/null || skip "no python3 for the perf_event_open() calls"
d=/sys/bus/event_source/devices
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

# The PCIe stacks' boxes.
kinds="iio iio_free_running irp"
[ "$model" = 106 ] && kinds="$kinds m2pcie"
stacks=0
for k in $kinds; do
	st=0
	for i in 0 1 2 3 4 5; do
		[ -d $d/uncore_${k}_$i ] || st=1
	done
	result $st "uncore_${k}_0 to _5 are registered"
	stacks=$((stacks | st))
done
[ "$stacks" -eq 0 ] || { tap_done; exit; }

cat >stack_uncore.py <<'EOF'
import errno, os, subprocess, sys
from pmu_open import (DEVICES, TIMES, count_times, cpulist, errno_of,
                      online_cpus, open_event, pmu_type, say)

ICX = sys.argv[1] == "106"
KINDS = ["iio", "iio_free_running", "irp"] + (["m2pcie"] if ICX else [])
# The IIO clock: Skylake-SP's 1 GHz traffic controller clock, Ice
# Lake-SP's 500 MHz; the M2PCIe's is the uncore clock.
IIO_MHZ, UCLK_MHZ = (500 if ICX else 1000), 2000
CLOCKTICKS = 0x01
# event=0xff with umask 0x10 (the free-running IIO clock) and 0x20 (the
# first bandwidth counter).
IOCLK, BW0 = 0x10ff, 0x20ff
# IIO events that only counters 0-1 (0x83) and only 2-3 (0xc0) take, on
# both parts; an IRP event; an M2PCIe event only counters 0-1 take.
IIO_LO, IIO_HI, IRP_EVENT, M2P_LO = 0x83, 0xc0, 0x18, 0x14


def box(kind, i):
    return pmu_type("uncore_%s_%d" % (kind, i))


IIO, IIO5 = box("iio", 0), box("iio", 5)
FR, FR5 = box("iio_free_running", 0), box("iio_free_running", 5)
IRP, IRP5 = box("irp", 0), box("irp", 5)

online = online_cpus()
for k in KINDS:
    masks = [cpulist(open(DEVICES + "uncore_%s_%d/cpumask" % (k, i)).read())
             for i in range(6)]
    say(all(len(m) == 1 and m <= online for m in masks),
        "uncore_%s_0 to _5 cpumasks %s: one online CPU each" %
        (k, [sorted(m) for m in masks]))

errno_of("uncore_iio_0: a task event", errno.EINVAL,
         open_event(IIO, CLOCKTICKS, cpu=-1, pid=0))
errno_of("uncore_iio_0: sampling (sample_period 1000)", errno.EINVAL,
         open_event(IIO, CLOCKTICKS, period=1000))
errno_of("uncore_iio_0: config 0xff (no fixed counter)", errno.EINVAL,
         open_event(IIO, 0xff))
errno_of("uncore_irp_0: a task event", errno.EINVAL,
         open_event(IRP, CLOCKTICKS, cpu=-1, pid=0))
errno_of("uncore_iio_free_running_0: sampling (sample_period 1000)",
         errno.EINVAL, open_event(FR, IOCLK, period=1000))
errno_of("uncore_iio_free_running_0: umask 0x18 (counter 8 of the clock "
         "type's 1)", errno.EINVAL, open_event(FR, 0x18ff))
errno_of("uncore_iio_free_running_0: umask 0x40 (a fourth type)",
         errno.EINVAL, open_event(FR, 0x40ff))
if ICX:
    errno_of("uncore_iio_free_running_0: umask 0x30 (a third type)",
             errno.EINVAL, open_event(FR, 0x30ff))
errno_of("uncore_iio_free_running_0: config 0x01 (not free-running)",
         errno.EINVAL, open_event(FR, 0x01))


def group_case(name, type_, configs, fits):
    """Say whether the first FITS of CONFIGS open as one group of TYPE_
    and each one after gives -EINVAL."""
    fds = [open_event(type_, configs[0])]
    fds += [open_event(type_, c, group=fds[0]) for c in configs[1:]]
    for fd in fds:
        if fd >= 0:
            os.close(fd)
    say(all(fd >= 0 for fd in fds[:fits]) and
        all(fd == -errno.EINVAL for fd in fds[fits:]),
        "%s: a group of %s %s (%s)" %
        (name, ",".join("%#x" % c for c in configs),
         "opens" if fits == len(configs) else
         "opens up to its %d events, then -EINVAL" % fits, fds))


group_case("uncore_iio_0", IIO, [CLOCKTICKS] * 5, 4)
group_case("uncore_iio_0", IIO, [IIO_LO] * 3, 2)
group_case("uncore_iio_0", IIO, [IIO_HI] * 3, 2)
group_case("uncore_iio_0", IIO, [CLOCKTICKS, CLOCKTICKS, IIO_HI, IIO_HI], 4)
group_case("uncore_iio_0", IIO, [IIO_LO, IIO_HI, IIO_LO, IIO_HI], 4)
group_case("uncore_iio_0", IIO, [IIO_LO, IIO_LO, CLOCKTICKS, IIO_LO], 3)
group_case("uncore_irp_0", IRP, [CLOCKTICKS] * 3, 2)
if ICX:
    M2P = box("m2pcie", 0)
    group_case("uncore_m2pcie_0", M2P, [CLOCKTICKS] * 5, 4)
    group_case("uncore_m2pcie_0", M2P, [M2P_LO] * 3, 2)

# The clocks over a second of sleep, each counter's ticks a microsecond,
# all at once (no box's counters multiplexed).
events = [(IIO, CLOCKTICKS, IIO_MHZ)] * 4 + [(IIO5, CLOCKTICKS, IIO_MHZ)] * 4
events += [(IRP, CLOCKTICKS, IIO_MHZ)] * 2 + [(IRP5, CLOCKTICKS, IIO_MHZ)] * 2
events += [(FR, IOCLK, IIO_MHZ)] * 2 + [(FR5, IOCLK, IIO_MHZ)]
events += [(FR, BW0, 0), (box("iio", 2), IIO_LO, 0),
           (box("irp", 2), IRP_EVENT, 0)]
# Two clockticks events, then two that only counters 0-1 take, each an
# event of its own: the box's counters are given out again as each is
# added, the clockticks moving to counters 2-3 to make room, and all
# four count all the time (stock reassigns a box at each add too).
IIO1 = box("iio", 1)
events += [(IIO1, CLOCKTICKS, IIO_MHZ)] * 2 + [(IIO1, IIO_LO, 0)] * 2
if ICX:
    events += [(M2P, CLOCKTICKS, UCLK_MHZ)] * 4
    events += [(box("m2pcie", 5), CLOCKTICKS, UCLK_MHZ)]
names = {box(k, i): "uncore_%s_%d" % (k, i) for k in KINDS for i in range(6)}
fds = [open_event(t, c, read_format=TIMES) for t, c, _ in events]
say(all(fd >= 0 for fd in fds), "open %d events on the stacks' boxes: %s" %
    (len(fds), fds))
if all(fd >= 0 for fd in fds):
    c0 = [count_times(fd)[0] for fd in fds]
    t0 = os.times().elapsed
    subprocess.run(["sleep", "1"], check=True)
    ct = [count_times(fd) for fd in fds]
    c1 = [c for c, _, _ in ct]
    t1 = os.times().elapsed
    late = [(names[t], "%#x" % c, run, ena)
            for (t, c, _), (_, ena, run) in zip(events, ct) if run != ena]
    say(not late, "every event counted all the time it was enabled "
        "(those that did not, and their times: %s)" % late)
    for (t, c, want), a, b in zip(events, c0, c1):
        rate = (b - a) / ((t1 - t0) * 1e6)
        if want:
            say(want * 0.9 <= rate <= want * 1.1,
                "%s config %#x: %.0f a microsecond (want %d)" %
                (names[t], c, rate, want))
        else:
            say(b == 0, "%s config %#x: %d (want 0)" % (names[t], c, b))
for fd in fds:
    if fd >= 0:
        os.close(fd)
EOF
py_cases stack_uncore.py "$model"

if command -v perf >/dev/null; then
	perf stat -a -x, -e uncore_iio_0/event=0x1/ \
		-e uncore_iio_free_running_0/ioclk/ -- sleep 0.5 >stack.out 2>&1
	result $? "perf stat -a on uncore_iio_0 and uncore_iio_free_running_0" stack.out
	awk -F, '$3 ~ /^uncore_iio_0\// && $1 > 0 { i = 1 }
		$3 ~ /^uncore_iio_free_running_0\// && $1 > 0 { f = 1 }
		END { exit !(i && f) }' stack.out
	result $? "perf stat: IIO clockticks and the free-running ioclk" stack.out
else
	skip_one "perf stat -a on uncore_iio_0 and uncore_iio_free_running_0" "no perf in this guest"
fi
tap_done
