#!/bin/sh
# perf(1)'s tracing commands on perf_trace_target: perf trace (summary
# and one system call), perf probe on a kernel function, its return and a
# user function, with record and stat on the probes, tracepoint records
# with a filter, perf sched record and latency, and perf lock record.
# Each count is the target's exact number of calls.  Prints TAP.
dir=$(cd "$(dirname "$0")" && pwd)
target=$dir/perf_trace_target
tmp=$(mktemp -d)
trap 'perf probe -q -d "probe*:*" 2>/dev/null; rm -rf "$tmp"' EXIT

. "$dir/lib/tap.sh"
echo "TAP version 13"
if ! command -v perf >/dev/null || [ ! -x "$target" ]; then
	skip "perf or the target program is missing"
fi
[ -d /sys/kernel/tracing/events ] ||
	mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
if [ ! -e /sys/kernel/tracing/kprobe_events ]; then
	skip "no kprobe events in this kernel (CONFIG_KPROBE_EVENTS)"
fi
cd "$tmp" || exit 1
# perf probe keeps its caches under $HOME.
export HOME=$tmp

# eq DESCRIPTION VALUE WANT [FILE]
eq() {
	[ "${2:-x}" = "$3" ]
	result $? "$1 (${2:-none}, want $3)" "${4:-}"
}
# samples FILE EVENT: the target's samples of EVENT in perf script output.
samples() {
	awk -v e="$2:" '$1 == "perf_trace_targ" && $0 ~ e { n++ } END { print n + 0 }' "$1"
}

# --- perf trace ----------------------------------------------------------
perf trace -s -o trace-s.out -- "$target" getppid 25 >/dev/null 2>trace-s.err
result $? "trace -s exits 0" trace-s.err
calls=$(awk '$1 == "getppid" { print $2; exit }' trace-s.out)
eq "trace -s: getppid calls" "$calls" 25 trace-s.out

perf trace -e getppid -o trace-e.out -- "$target" getppid 3 >/dev/null 2>trace-e.err
result $? "trace -e getppid exits 0" trace-e.err
eq "trace -e getppid: one line per call" \
	"$(grep -c 'getppid()' trace-e.out)" 3 trace-e.out

# --- tracepoints with filters ---------------------------------------------
# getppid is system call 110 on x86_64.
perf record -q -e raw_syscalls:sys_enter --filter 'id == 110' -o sys.data -- \
	"$target" getppid 9 >/dev/null 2>sys.err
result $? "record -e raw_syscalls:sys_enter --filter exits 0" sys.err
perf script -i sys.data >sys.out 2>&1
eq "record --filter: the target's getppid entries" \
	"$(samples sys.out raw_syscalls:sys_enter)" 9 sys.out

perf record -q -e sched:sched_switch --filter 'prev_state == 1' -o sw.data -- \
	"$target" sleep 6 >/dev/null 2>sw.err
result $? "record -e sched:sched_switch --filter exits 0" sw.err
perf script -i sw.data >sw.out 2>&1
# A sleep whose timer fires before the target leaves the CPU is no switch.
cnt=$(grep -c "sched:sched_switch:" sw.out)
[ "$cnt" -ge 1 ] && ! grep "sched:sched_switch:" sw.out | grep -qv "prev_state=S "
result $? "record --filter: $cnt switches, all in state S" sw.out

# --- perf probe: kernel function, its return, a user function ------------
perf probe -q -a __do_sys_getppid >probe.out 2>&1
result $? "probe -a __do_sys_getppid" probe.out
perf probe -q -a '__do_sys_getppid%return' >probe-ret.out 2>&1
result $? "probe -a __do_sys_getppid%return" probe-ret.out
perf record -q -e 'probe:__do_sys_getppid*' -o kp.data -- \
	"$target" getppid 11 >/dev/null 2>kp.err
result $? "record -e probe:__do_sys_getppid* exits 0" kp.err
perf script -i kp.data >kp.out 2>&1
eq "record: kprobe hits" "$(samples kp.out 'probe:__do_sys_getppid')" 11 kp.out
eq "record: kretprobe hits" "$(samples kp.out 'probe:__do_sys_getppid__return')" \
	11 kp.out
perf stat -x, -e probe:__do_sys_getppid -o kp-stat.out -- \
	"$target" getppid 13 >/dev/null 2>&1
eq "stat -e probe:__do_sys_getppid" \
	"$(awk -F, '/probe:__do_sys_getppid/ { print $1; exit }' kp-stat.out)" 13 \
	kp-stat.out
perf probe -q -d 'probe:*' >probe-d.out 2>&1
result $? "probe -d removes the kernel probes" probe-d.out
! grep -q __do_sys_getppid /sys/kernel/tracing/kprobe_events
result $? "kprobe_events is empty again"

perf probe -q -x "$target" -a user_probe_me >uprobe.out 2>&1
result $? "probe -x target -a user_probe_me" uprobe.out
perf record -q -e 'probe_perf_trace_target:user_probe_me' -o up.data -- \
	"$target" ufunc 8 >/dev/null 2>up.err
result $? "record -e probe_perf_trace_target:user_probe_me exits 0" up.err
perf script -i up.data >up.out 2>&1
eq "record: uprobe hits" "$(samples up.out probe_perf_trace_target:user_probe_me)" \
	8 up.out
perf probe -q -d 'probe_perf_trace_target:*' >uprobe-d.out 2>&1
result $? "probe -d removes the user probe" uprobe-d.out

# --- perf sched ----------------------------------------------------------
perf sched record -q -o sched.data -- "$target" sleep 10 >/dev/null 2>sched.err
result $? "sched record exits 0" sched.err
perf sched latency -i sched.data >lat.out 2>lat.err
result $? "sched latency exits 0" lat.err
# perf 6.1's latency table counts one switch per task here, on stock too;
# the target's row must be there with its run time.
grep -Eq "^ *perf_trace_targ:[0-9]+ +\| +[0-9.]+ ms" lat.out
result $? "sched latency: the target's row" lat.out
perf sched timehist -i sched.data >th.out 2>th.err
result $? "sched timehist exits 0" th.err
# One line each time the target leaves the CPU.
cnt=$(grep -c "perf_trace_targ\[" th.out)
[ "$cnt" -ge 1 ]
result $? "sched timehist: $cnt lines of the target" th.out

# --- perf lock -----------------------------------------------------------
perf lock record -q -o lock.data -- "$target" mmap 2000 >/dev/null 2>lock.err
result $? "lock record exits 0" lock.err
perf evlist -i lock.data >lock-ev.out 2>&1
grep -q "^lock:contention_begin$" lock-ev.out
result $? "lock record: lock:contention_begin recorded" lock-ev.out
perf lock contention -i lock.data >lock-rep.out 2>&1
result $? "lock contention exits 0" lock-rep.out

tap_done
