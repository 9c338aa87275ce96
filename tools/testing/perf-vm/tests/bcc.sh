#!/bin/sh
# Debian's bcc tools (bpfcc-tools) on perf_trace_target: profile (a
# cpu-clock sampling event per CPU with a BPF program and stack ids),
# offcputime (a kprobe PMU event on finish_task_switch), trace on a
# kretprobe, a syscall tracepoint and a uprobe (records through a
# BPF_MAP_TYPE_PERF_EVENT_ARRAY into bpf-output ring buffers).
# bcc compiles its programs at run time against the running kernel's
# headers; a distribution ships them as a headers package, here they are
# the build tree of the kernel under test, found by its uname -v.
# Prints TAP; $n is the TAP counter (lib/tap.sh), so counts go in $c.
dir=$(cd "$(dirname "$0")" && pwd)
target=$dir/perf_trace_target
tmp=$(mktemp -d)
trap 'kill $bg 2>/dev/null; rm -rf "$tmp"' EXIT
bg=

. "$dir/lib/tap.sh"
echo "TAP version 13"
if ! command -v profile-bpfcc >/dev/null || [ ! -x "$target" ]; then
	skip "bpfcc-tools or the target program is missing"
fi
[ -d /sys/kernel/tracing/events ] ||
	mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
[ -e /sys/kernel/tracing/kprobe_events ] ||
	skip "no kprobe events in this kernel (CONFIG_KPROBE_EVENTS)"
[ -e /sys/bus/event_source/devices/kprobe ] ||
	skip "no kprobe PMU in this kernel"

# The build tree whose vmlinux is running: the test kernels sit beside
# the tests (out/build/KERNEL).
kb=
for f in "$dir"/../*/include/generated/utsversion.h; do
	grep -qF "\"$(uname -v)\"" "$f" 2>/dev/null &&
		kb=${f%/include/generated/utsversion.h}
done
[ -n "$kb" ] || skip "no build tree for the running kernel ($(uname -v))"
src=$(sed -n 's/^include \(.*\)\/Makefile$/\1/p' "$kb/Makefile")
[ -d "$src/include/linux" ] || skip "no source tree for $kb"

# A headers tree as a distribution's package lays it out: the source's
# include directories with the build's generated ones beside them.
kh=$tmp/headers
mkdir -p "$kh/include" "$kh/arch/x86/include"
for e in "$src"/include/*; do ln -s "$e" "$kh/include/"; done
ln -s "$kb/include/generated" "$kb/include/config" "$kh/include/"
for e in "$src"/arch/x86/include/*; do ln -s "$e" "$kh/arch/x86/include/"; done
ln -s "$kb/arch/x86/include/generated" "$kh/arch/x86/include/"
export BCC_KERNEL_SOURCE="$kh" PYTHONUNBUFFERED=1
cd "$tmp" || exit 1
export HOME="$tmp"
comm=perf_trace_targ

# wait_for FILE PATTERN PID: until the tool in PID prints PATTERN (it has
# attached) or exits; a slow guest is slow, not stuck: the runner's
# timeout is the bound.
wait_for() {
	while ! grep -q "$2" "$1"; do
		kill -0 "$3" 2>/dev/null || return 1
		sleep 0.2
	done
}
# A background job of a script starts with SIGINT ignored, and Python
# then never raises KeyboardInterrupt: the tools that run until Ctrl-C
# start with its default action back.
ctrl_c_able="env --default-signal=INT"
# stop PID: end a tool as Ctrl-C does and wait for its report.
stop() {
	kill -INT "$1"
	wait "$1"
	bg=
}

# profile: the target spins in user_probe_me() calls until killed.
"$target" ufunc 100000000000 &
tpid=$!
profile-bpfcc -F 499 -f -p "$tpid" 2 >prof.out 2>prof.err
result $? "profile-bpfcc -F 499 -f -p PID 2 exits 0" prof.err
kill "$tpid"
wait "$tpid" 2>/dev/null
c=$(awk -v m="^$comm;" '$0 ~ m { s += $NF } END { print s + 0 }' prof.out)
[ "$c" -gt 0 ]
result $? "profile: samples in the target ($c)" prof.out
grep -q "^$comm;.*main" prof.out
result $? "profile: user stacks walk back to main()" prof.out

# offcputime: the target sleeps a millisecond at a time until killed.
"$target" sleep 1000000000 &
tpid=$!
offcputime-bpfcc -f -p "$tpid" 2 >off.out 2>off.err
result $? "offcputime-bpfcc -f -p PID 2 exits 0" off.err
kill "$tpid"
wait "$tpid" 2>/dev/null
grep -q "^$comm;.*nanosleep.*;schedule;finish_task_switch[.a-z0-9]*[[:space:]][0-9]" off.out
result $? "offcputime: the target's sleep, from nanosleep to finish_task_switch" off.out

# trace on a kretprobe, a syscall tracepoint and a uprobe: a line per
# return of the target's getppid(), with the parent's pid, one per entry,
# and one per call of user_probe_me(), which only the target has.  Each
# tool compiles its program in the guest, the most of its time under
# TCG: one tool for the three kinds of probe.
# (Not -M: bcc 0.26's exit() from its perf-buffer callback does not end
# the tool under Python 3.11.)
$ctrl_c_able trace-bpfcc -n "$comm" 'r::__do_sys_getppid "ret %d", retval' \
	't:syscalls:sys_enter_getppid' "p:$target:user_probe_me" >tr.out 2>&1 &
bg=$!
if wait_for tr.out "^PID" $bg; then
	"$target" getppid 3
	"$target" ufunc 8
	# Each line is written when bcc's poll loop reads the record.
	while [ "$(grep -c "$comm" tr.out)" -lt 14 ] && kill -0 $bg; do
		sleep 0.2
	done
	stop $bg
fi
c=$(grep -c "$comm .*__do_sys_getppid *ret $$\$" tr.out)
[ "$c" = 3 ]
result $? "trace r::__do_sys_getppid: three returns with the parent's pid ($c)" tr.out
c=$(grep -c "$comm .*sys_enter_getppid" tr.out)
[ "$c" = 3 ]
result $? "trace t:syscalls:sys_enter_getppid: three entries ($c)" tr.out
c=$(grep -c "$comm .*user_probe_me" tr.out)
[ "$c" = 8 ]
result $? "trace p:BINARY:user_probe_me: the eight calls ($c)" tr.out

tap_done
