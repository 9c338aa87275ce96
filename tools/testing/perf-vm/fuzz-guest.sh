#!/bin/sh
# Runs in the guest for fuzz.sh: the fuzzer, then checks that nothing of
# it is left behind, reported as TAP between the markers summarize.py
# reads; then a kmemleak scan when the kernel has kmemleak.
# usage: fuzz-guest.sh FUZZER SEED SECONDS
fuzzer=$1 seed=$2 secs=$3
n=0 fail=0
result() {	# status description
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n $2"
	else
		echo "not ok $n $2"
		fail=1
	fi
}
echo "##PERFTEST-BEGIN perf_fuzz"
# kmemleak's own scans, every ten minutes and the first a minute after
# boot, walk every object in one RCU read-side section from a nice 10
# thread: under a fuzz that keeps both CPUs busy with PMIs and spinning
# children (a PMI took 1.6 ms on average on our debug kernel under seed 2
# on the emulated Ice Lake-SP, 2.8 ms on stock's), the preempted scan
# held RCU's grace period for 65 s and RCU reported a stall.  The scans
# after the fuzz (kmemleak-scan.sh, below) still find every leak.
[ -w /sys/kernel/debug/kmemleak ] && echo scan=off >/sys/kernel/debug/kmemleak
taint0=$(cat /proc/sys/kernel/tainted)
"$fuzzer" -s "$seed" -t "$secs" -l /tmp/perf_fuzz.log &
pid=$!
# It ends by itself; if it does not, show where its threads are stuck.
i=0
while kill -0 $pid 2>/dev/null && [ $i -lt $((secs + 120)) ]; do
	sleep 1
	i=$((i + 1))
done
if kill -0 $pid 2>/dev/null; then
	echo "# the fuzzer did not end: its threads' kernel stacks"
	for t in /proc/$pid/task/*; do
		echo "# $t $(cat "$t/wchan" 2>/dev/null) $(cut -d' ' -f3 "$t/stat")"
		sed 's/^/#   /' "$t/stack" 2>/dev/null
	done
	[ -w /proc/sysrq-trigger ] && echo l >/proc/sysrq-trigger
	kill -9 $pid
fi
wait $pid
st=$?
result $st "the fuzzer ran for ${secs}s (seed $seed) and exited cleanly"
# Its log replays the run (perf_fuzz -r); the tail names the last calls,
# the main thread's (the ones a replay makes) apart from the others'.
if [ $st -ne 0 ]; then
	grep '^M ' /tmp/perf_fuzz.log | tail -n 100 | sed 's/^/# /'
	grep -v '^M ' /tmp/perf_fuzz.log | tail -n 60 | sed 's/^/# /'
fi

# Events are freed after an RCU grace period and their release may be
# deferred to task work: give that a moment.
sleep 2
# A limit that cannot change while events with callchains exist.
v=$(cat /proc/sys/kernel/perf_event_max_stack)
echo "$v" >/proc/sys/kernel/perf_event_max_stack
result $? "no event with a callchain is left (perf_event_max_stack is writable)"
off=0
for f in /sys/devices/system/cpu/cpu*/online; do
	[ "$(cat "$f")" = 1 ] || off=1
done
result $off "every CPU is online again"
[ "$(cat /proc/sys/kernel/tainted)" = "$taint0" ]
result $? "the kernel was not tainted (no warning)"
echo "1..$n"
echo "##PERFTEST-END perf_fuzz $fail"
# Report memory the kernel lost track of, when kmemleak is built in.
sh "$(dirname "$0")/kmemleak-scan.sh"
exit 0
