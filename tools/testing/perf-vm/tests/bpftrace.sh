#!/bin/sh
# bpftrace one-liners on perf_trace_target, whose calls are counted
# exactly: a tracepoint, a kprobe and a kretprobe on getppid(), a uprobe
# on a function of the target, a software event (page faults), profile:
# and interval: probes (bpftrace_hw.sh has the hardware probe).
# Each count is checked against the target's.  Prints TAP; $n is the
# TAP counter (lib/tap.sh), so counts read here go in $c.
dir=$(cd "$(dirname "$0")" && pwd)
target=$dir/perf_trace_target
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$dir/lib/tap.sh"
echo "TAP version 13"
if ! command -v bpftrace >/dev/null || [ ! -x "$target" ]; then
	skip "bpftrace or the target program is missing"
fi
[ -d /sys/kernel/tracing/events ] ||
	mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
[ -d /sys/kernel/debug/tracing ] ||
	mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
if [ ! -e /sys/kernel/tracing/kprobe_events ]; then
	skip "no kprobe events in this kernel (CONFIG_KPROBE_EVENTS)"
fi
cd "$tmp" || exit 1
export HOME=$tmp
comm=perf_trace_targ

# bt NAME PROGRAM COMMAND...: run bpftrace with -c; output in NAME.out
bt() {
	name=$1 prog=$2
	shift 2
	bpftrace -e "$prog" -c "$*" >"$name.out" 2>&1
}
# value NAME MAP: the value bpftrace printed for @MAP at exit
value() {
	awk -v m="@$2:" '$1 == m { print $2; exit }' "$1.out"
}
# eq NAME MAP WANT DESCRIPTION
eq() {
	v=$(value "$1" "$2")
	[ "${v:-x}" = "$3" ]
	result $? "$4 (${v:-none}, want $3)" "$1.out"
}

bt tp "tracepoint:syscalls:sys_enter_getppid /comm == \"$comm\"/ { @n = count(); }" \
	"$target" getppid 17
result $? "tracepoint: exits 0" tp.out
eq tp n 17 "tracepoint:syscalls:sys_enter_getppid counts the target's calls"

bt kp "kprobe:__do_sys_getppid /comm == \"$comm\"/ { @n = count(); }" \
	"$target" getppid 19
eq kp n 19 "kprobe:__do_sys_getppid counts the target's calls"

bt kr "kretprobe:__do_sys_getppid /comm == \"$comm\"/ { @n = count(); @r = max(retval); }" \
	"$target" getppid 21
eq kr n 21 "kretprobe:__do_sys_getppid counts the target's returns"
r=$(value kr r)
[ "${r:-0}" -gt 0 ]
result $? "kretprobe: retval is the parent's pid (${r:-none})" kr.out

bt up "uprobe:$target:user_probe_me { @n = count(); }" "$target" ufunc 8
eq up n 8 "uprobe:user_probe_me counts the target's calls"

bt ur "uretprobe:$target:user_probe_me { @n = count(); }" "$target" ufunc 9
eq ur n 9 "uretprobe:user_probe_me counts the target's returns"

# Two threads each fault in a fresh page per round: 2 * 500 at least.
bt sw "software:page-faults:1 /comm == \"$comm\"/ { @n = count(); }" \
	"$target" mmap 500
c=$(value sw n)
[ "${c:-0}" -ge 1000 ]
result $? "software:page-faults:1 sees every fault (${c:-none}, want >= 1000)" sw.out

bpftrace -e 'profile:hz:499 { @n = count(); } interval:ms:400 { exit(); }' \
	>prof.out 2>&1
result $? "profile: and interval: exit 0" prof.out
c=$(value prof n)
[ "${c:-0}" -gt 0 ]
result $? "profile:hz:499 fires within 400 ms (${c:-none})" prof.out

tap_done
