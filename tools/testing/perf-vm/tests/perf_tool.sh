#!/bin/sh
# perf(1) on perf_tool_target: record -g and report/script (the hot
# function's share, sample count, callchains, no losses), page-fault data
# addresses (record -d), system-wide record (-a), top --stdio for a few
# seconds and stat -I.  Prints TAP.
dir=$(cd "$(dirname "$0")" && pwd)
target=$dir/perf_tool_target
tmp=$(mktemp -d)
sysctls=
# The sysctls this test changed, back to what they were (in order).
restore() {
	for s in $sysctls; do
		echo "${s#*=}" >"/proc/sys/kernel/${s%%=*}"
	done
}
trap 'kill $bg 2>/dev/null; restore; rm -rf "$tmp"' EXIT
bg=

. "$dir/lib/tap.sh"
echo "TAP version 13"
if ! command -v perf >/dev/null || [ ! -x "$target" ]; then
	skip "perf or the target program is missing"
fi
cd "$tmp" || exit 1

# check DESCRIPTION FILE PATTERN: FILE has a line matching PATTERN (ERE).
check() {
	grep -Eq -- "$3" "$2"
	result $? "$1" "$2"
}
# range DESCRIPTION VALUE MIN MAX [FILE]; FILE's head shown on failure
range() {
	v=${2:-0}
	[ "$v" -ge "$3" ] && [ "$v" -le "$4" ]
	result $? "$1 ($v in $3..$4)" "${5:-}"
}
# samples_of FILE SYMBOL: SYMBOL's samples in a report (-n), 0 if absent.
samples_of() {
	awk -v s="$2" '$NF == s && $1 ~ /%$/ { print $2; n = 1; exit }
		END { if (!n) print 0 }' "$1"
}
# sum_samples FILE: the sum of the Samples column of a report (-n).
sum_samples() {
	awk '$1 ~ /%$/ && $2 ~ /^[0-9]+$/ { s += $2 } END { print s + 0 }' "$1"
}

# A slow PMI earlier (a vCPU the host preempted in one; stock took 289 ms
# once) may have lowered perf_event_max_sample_rate below the 1000 Hz
# asked for here, and later ones may again: the rate back up, written
# while the time limit is on, then the limit off.  Restored in this
# order: the limit on again before the rate.
for s in perf_cpu_time_max_percent perf_event_max_sample_rate; do
	sysctls="$sysctls $s=$(cat /proc/sys/kernel/$s)"
done
echo 100000 >/proc/sys/kernel/perf_event_max_sample_rate
echo 0 >/proc/sys/kernel/perf_cpu_time_max_percent

# --- perf record -g, report, script -------------------------------------
perf record -F 1000 -g -o cpu.data -- "$target" cpu 1000 >rec.out 2>&1
result $? "record -F 1000 -g exits 0" rec.out
samples=$(sed -n 's/.*Captured and wrote .*(\([0-9]*\) samples).*/\1/p' rec.out)
# 1 s of CPU time at 1000 Hz (QEMU's timers are not exact).  A guest the
# host keeps from running loses timer expirations: the CPU time goes on
# while it waits, a late expiry takes one sample for the periods it
# missed.  The floor follows the slowdown the runner measured
# (PERFTEST_TIMEOUT_SCALE: 2 on an idle host with the small kernel,
# where it is 600).
floor=$((1200 / ${PERFTEST_TIMEOUT_SCALE:-2}))
range "record: sample count" "$samples" "$floor" 1600 rec.out

perf report -i cpu.data --stdio --no-children -n --sort sym -g none \
	>rep.out 2>rep.err
result $? "report --stdio exits 0" rep.err
# hot_loop does three quarters of the target's work, warm_loop one
# quarter: their shares of the two functions' samples.  (Of all samples,
# the kernel's take a part that depends on the kernel: a debug kernel's
# lockdep and KASAN under the sampling interrupt took 30% in one run.)
hot=$(samples_of rep.out hot_loop)
warm=$(samples_of rep.out warm_loop)
both=$((hot + warm))
[ "$both" -gt 0 ] || both=1
range "report: hot_loop's share of the target's samples" \
	$((100 * hot / both)) 60 90 rep.out
range "report: warm_loop's share of the target's samples" \
	$((100 * warm / both)) 10 40
check "report: no lost samples" rep.out "^# Total Lost Samples: 0$"
! grep -qi "lost" rep.err
result $? "report: no lost-samples warning" rep.err
total=$(sum_samples rep.out)
range "report: samples add up to the recorded count" "$total" \
	"$samples" "$samples"

perf script -i cpu.data -F comm,tid,time,event,ip,sym >scr.out 2>scr.err
result $? "script exits 0" scr.err
# The event is cycles with a hardware PMU, cpu-clock without one.
check "script: comm, tid, time and event fields" scr.out \
	"^ *perf_tool_targe +[0-9]+ +[0-9]+\.[0-9]{6}: +(cpu-clock|cycles)"
# A sample's callchain: hot_loop, then cpu and main further out.
awk '/^$/ { h = c = 0; next }
     $NF == "hot_loop" { h = 1 }
     h && $NF == "cpu" { c = 1 }
     c && $NF == "main" { found = 1 }
     END { exit !found }' scr.out
result $? "script: callchains hot_loop <- cpu <- main" scr.out

# --- page faults with data addresses --------------------------------------
perf record -e page-faults -c 1 -d -o pf.data -- "$target" faults 64 \
	>pf.out 2>&1
result $? "record -e page-faults -d exits 0" pf.out
lo=$(sed -n 's/^buf \(0x[0-9a-f]*\) .*/\1/p' pf.out)
hi=$(sed -n 's/^buf 0x[0-9a-f]* \(0x[0-9a-f]*\)$/\1/p' pf.out)
in=0
if [ -n "$lo" ] && [ -n "$hi" ]; then
	perf script -i pf.data -F addr >pfa.out 2>/dev/null
	while read -r a; do
		a=$((0x${a#0x}))
		[ "$a" -ge $((lo)) ] && [ "$a" -lt $((hi)) ] && in=$((in + 1))
	done <pfa.out
fi
# One sample per page written, each with its address in the buffer.
range "record -d: fault addresses in the touched buffer" "$in" 64 64

# --- system-wide ----------------------------------------------------------
"$target" spin $((1500 * ${PERFTEST_TIMEOUT_SCALE:-2})) >/dev/null &
bg=$!
perf record -a -o all.data -- sleep 1 >all.out 2>&1
result $? "record -a exits 0" all.out
perf report -i all.data --stdio -n --sort comm >allr.out 2>/dev/null
comms=$(awk '$1 ~ /%$/ && $2 ~ /^[0-9]+$/ { n++ } END { print n + 0 }' allr.out)
range "record -a: distinct comms" "$comms" 3 1000
check "record -a: the sleep command" allr.out "% +[0-9]+ +sleep *$"
check "record -a: a busy task on another CPU" allr.out "perf_tool_targe"
kill $bg 2>/dev/null
wait $bg 2>/dev/null
bg=

# --- top ------------------------------------------------------------------
# perf top --stdio reads keys from stdin: give it a FIFO that stays quiet.
# Its start-up (reading every task's maps and the kernel's symbols) takes
# a few seconds, many on a debug kernel, before the first screen.  It is
# stopped with SIGINT once a screen lists the busy function, or when it
# or the busy task ends first (a slow guest gets a longer busy task: the
# runner's PERFTEST_TIMEOUT_SCALE is 2 on an idle host with the small
# kernel).
k=${PERFTEST_TIMEOUT_SCALE:-2}
"$target" spin $((7000 * k)) >/dev/null &
bg=$!
: >top.out
mkfifo keys
# A background job of a script starts with SIGINT ignored: give it back.
env --default-signal=INT perf top --stdio -d 1 <keys >top.out 2>&1 &
top=$!
exec 3>keys
while kill -0 $top 2>/dev/null && kill -0 $bg 2>/dev/null &&
      ! { grep -q "PerfTop:" top.out && grep -q "\] warm_loop" top.out; }; do
	sleep 0.5
done
kill -INT $top 2>/dev/null
wait $top
rc=$?
exec 3>&-
kill $bg 2>/dev/null
wait $bg 2>/dev/null
bg=
if grep -q "PerfTop:" top.out; then
	result $rc "top --stdio ends cleanly on SIGINT" top.out
	check "top --stdio: the busy function is listed" top.out "\] warm_loop"
else
	n=$((n + 1))
	echo "ok $n top --stdio # SKIP perf top cannot run here"
	sed -n '1,10s/^/# /p' top.out
fi

# --- stat -I --------------------------------------------------------------
perf stat -I 100 -e task-clock,page-faults -- "$target" spin 800 \
	>/dev/null 2>stat.out
result $? "stat -I 100 exits 0" stat.out
lines=$(grep -Ec "^ *[0-9]+\.[0-9]+ +[0-9.,]+ +msec task-clock" stat.out)
range "stat -I 100: task-clock intervals" "$lines" 4 20
awk '/task-clock/ { if ($1 + 0 <= last) bad = 1; last = $1 + 0 }
     END { exit bad }' stat.out
result $? "stat -I 100: interval stamps increase" stat.out

tap_done
