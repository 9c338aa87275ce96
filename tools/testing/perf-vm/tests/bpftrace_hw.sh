#!/bin/sh
# bpftrace's hardware: probe, on the emulated PMUs (check.sh runs it there;
# elsewhere it skips): instructions sampled every 100,000 in
# perf_trace_target must give samples.  One bpftrace run, as each costs
# seconds of guest time.  Prints TAP.
dir=$(cd "$(dirname "$0")" && pwd)
target=$dir/perf_trace_target
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$dir/lib/tap.sh"
echo "TAP version 13"
if ! command -v bpftrace >/dev/null || [ ! -x "$target" ]; then
	skip "bpftrace or the target program is missing"
fi
[ -d /sys/bus/event_source/devices/cpu ] || skip "no hardware PMU in this guest"
cd "$tmp" || exit 1
export HOME=$tmp

bpftrace -e 'hardware:instructions:100000 /comm == "perf_trace_targ"/ { @n = count(); }' \
	-c "$target mmap 2000" >hw.out 2>&1
result $? "hardware:instructions:100000 exits 0" hw.out
c=$(awk '$1 == "@n:" { print $2; exit }' hw.out)
[ "${c:-0}" -gt 0 ]
result $? "hardware:instructions:100000 samples the target (${c:-none})" hw.out

tap_done
