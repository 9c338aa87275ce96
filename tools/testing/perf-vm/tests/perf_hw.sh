#!/bin/sh
# perf(1) with hardware events on the emulated x86 PMU (PERFTEST_PMU names
# it): perf stat counts a program of known length exactly and the same in
# every run, :u and :k add up to the total, and perf record -c takes as
# many samples as perf stat's count says, most of them in the loop.
# Address-space randomisation is off (setarch -R), so that the loader
# and libc take the same path in every run.  Prints TAP.
dir=$(cd "$(dirname "$0")" && pwd)
target=$dir/perf_hw_target
pmu=${PERFTEST_PMU:-none}
tmp=$(mktemp -d)
sysctls=
# The sysctls this test changed, back to what they were (in order).
restore() {
	for s in $sysctls; do
		echo "${s#*=}" >"/proc/sys/kernel/${s%%=*}"
	done
}
trap 'restore; rm -rf "$tmp"' EXIT

. "$dir/lib/tap.sh"
echo "TAP version 13"
[ "$pmu" != none ] || skip "no emulated PMU in this guest (PERFTEST_PMU; PMU=intel or amd boots one)"
command -v perf >/dev/null && [ -x "$target" ] || skip "perf or the target program is missing"
command -v setarch >/dev/null || skip "no setarch to turn address randomisation off"
command -v taskset >/dev/null || skip "no taskset to keep the target on one CPU"
if [ ! -e /sys/bus/event_source/devices/cpu/type ]; then
	# This series' kernels name themselves -perfng in their release.
	case $(uname -r) in
	*-perfng*) skip "this kernel has no driver for this PMU yet (issue 12)" ;;
	esac
	echo "1..1"
	echo "not ok 1 the guest has an emulated PMU, but the kernel registered no cpu PMU"
	exit 1
fi
cd "$tmp" || exit 1

# same DESCRIPTION GOT WANT
same() {
	[ "$2" = "$3" ]
	result $? "$1 ($2, want $3)"
}
# perf record gives its child DEBUGINFOD_URLS= (empty); the same for every
# run here, so that the loader sees the same environment under both tools.
export DEBUGINFOD_URLS=
# stat N EVENTS: perf stat's counts of "perf_hw_target N", one per line.
stat() {
	setarch -R perf stat -x, -o stat.out -e "$2" -- "$target" "$1" >/dev/null 2>stat.err ||
		{ echo "perf stat failed" >&2; cat stat.err >&2; return 1; }
	grep -v '^#' stat.out | grep , | cut -d, -f1
}

# --- perf stat: exact, and the same in every run --------------------------
a=$(stat 1000000 instructions:u)
b=$(stat 1000000 instructions:u)
c=$(stat 1000000 instructions:u)
echo "# perf stat -e instructions:u perf_hw_target 1000000: $a"
[ -n "$a" ] && [ "$a" = "$b" ] && [ "$b" = "$c" ]
result $? "stat: instructions:u the same in three runs ($a $b $c)"
d=$(stat 2000000 instructions:u)
same "stat: a million more iterations, two million more instructions" \
	"$((d - a))" 2000000
# A cycle for each instruction, and one for each element a REP string
# instruction goes through (glibc's start-up copies and clears a few
# hundred bytes with them).
cyc=$(stat 1000000 cycles:u)
[ -n "$cyc" ] && [ "$cyc" -ge "$a" ] && [ $((cyc - a)) -lt 10000 ]
result $? "stat: cycles:u are instructions:u and REP elements ($cyc, $a)"
ref=$(stat 1000000 ref-cycles:u)
if [ "$pmu" = intel-v1 ]; then
	# No fixed counter 2: the pseudo-encoding on a general counter.
	same "stat: ref-cycles:u count nothing at version 1" "$ref" 0
else
	same "stat: ref-cycles:u equal cycles:u" "$ref" "$cyc"
fi

# --- :u + :k ----------------------------------------------------------------
stat 1000000 '{instructions,instructions:u,instructions:k}' >uk.out
set -- $(cat uk.out)
echo "# total $1, user $2, kernel $3"
if [ "$pmu" = amd-legacy ] || [ "$pmu" = intel-v1 ]; then
	# Without a global control (the K7 counters, Intel version 1) the
	# counters start one after another: a few instructions apart.
	diff=$(($2 + $3 - $1))
	[ "${diff#-}" -lt 1000 ]
	result $? "stat: user + kernel within 1000 of the total ($diff)"
else
	same "stat: user + kernel is the total" "$(($2 + $3))" "$1"
fi
same "stat: the group's user count is the lone one's" "$2" "$a"

# --- perf record -c: the sample count follows from the count ---------------
# Restored in this order: the time limit on again before the rate.
for s in perf_cpu_time_max_percent perf_event_max_sample_rate; do
	sysctls="$sysctls $s=$(cat /proc/sys/kernel/$s)"
done
# The rate can only be written while the time limit is on; then the
# limit off, so that slow emulated PMIs do not lower the rate.
echo 100000 >/proc/sys/kernel/perf_event_max_sample_rate
echo 0 >/proc/sys/kernel/perf_cpu_time_max_percent
# perf record opens an event per CPU for the task: a task that moves
# between CPUs splits its count between them, and each event leaves its
# own part of a period unsampled.  One CPU, so the count is whole.
taskset -c 0 setarch -R perf record -q -o rec.data -e instructions:u -c 100000 -- \
	"$target" 1000000 >rec.out 2>&1
result $? "record -e instructions:u -c 100000 exits 0" rec.out
perf script -i rec.data -F ip,sym >scr.out 2>scr.err
result $? "script exits 0" scr.err
same "record: samples = instructions:u / 100000" "$(wc -l <scr.out)" \
	"$((a / 100000))"
# loop()'s 2,000,000 instructions hold 20 multiples of the period, 21
# when one falls in its few instructions around the asm loop.
inloop=$(grep -c ' loop$' scr.out)
[ "$inloop" -ge 20 ] && [ "$inloop" -le 21 ]
result $? "record: samples in loop() ($inloop, want 20 or 21)" scr.out

# --- perf record of a forking workload with a hardware group -------------
# perf record opens the group inherited, once per CPU: each child gets
# copies of groups bound to CPUs it reaches after fork.  The command a
# new user runs first, then children that run long enough to be sampled
# wherever they go.
perf record -q -o fork.data -e '{cycles,instructions}' -- \
	sh -c 'for i in 1 2 3 4; do /bin/true & done; wait' >fork.out 2>&1
result $? "record -e '{cycles,instructions}' of sh forking /bin/true exits 0" fork.out
perf script -i fork.data -F comm,event >fscr.out 2>fscr.err
result $? "script of it exits 0" fscr.err
[ -s fscr.out ]
result $? "record: the forking workload was sampled ($(wc -l <fscr.out) samples)"
perf record -q -o fork2.data -e '{instructions:u,cycles:u}' -c 100000 -- \
	sh -c "for i in 1 2 3 4; do $target 1000000 & done; wait" >fork2.out 2>&1
result $? "record -e '{instructions:u,cycles:u}' of four children exits 0" fork2.out
perf script -i fork2.data -F comm,pid,event >fscr2.out 2>fscr2.err
result $? "script of it exits 0" fscr2.err
# Each child's loop wraps the period 20 times.  A child that moves to
# another CPU leaves part of a period on each CPU's event unsampled, so
# fewer may be seen, never none: every child is sampled, most periods.
grep perf_hw_target fscr2.out | grep 'instructions:u' >kids.out
kids=$(wc -l <kids.out)
pids=$(awk '{ print $2 }' kids.out | sort -u | wc -l)
[ "$pids" -eq 4 ] && [ "$kids" -ge 60 ] && [ "$kids" -le 84 ]
result $? "record: samples of all four children ($pids) and most of their periods ($kids, want 60 to 84)" fscr2.out

tap_done
