#!/bin/sh
# Out-of-tree modules on the perf in-kernel API, built against the
# running kernel (perf-vm/modules/): one registers a PMU of its own
# (perf_mod_test), one counts with a kernel event.  Each loads, works and
# unloads; a module whose PMU has an event open cannot be unloaded.
# Prints TAP.
dir=$(cd "$(dirname "$0")" && pwd)
mods=$dir/../modules/$(uname -r)
user=$dir/perf_mod_user
tmp=$(mktemp -d)
trap 'exec 3>&-; rmmod perf_test_pmu perf_test_counter 2>/dev/null; rm -rf "$tmp"' EXIT

. "$dir/lib/tap.sh"
echo "TAP version 13"
[ -e /proc/modules ] || skip "no module support in this kernel (CONFIG_MODULES)"
[ -f "$mods/perf_test_pmu.ko" ] || skip "no test modules built for $(uname -r)"
cd "$tmp" || exit 1
pmu=/sys/bus/event_source/devices/perf_mod_test

# wait_for COMMAND...: poll until COMMAND succeeds (a slow guest is slow,
# not stuck: the runner's timeout is the bound).
wait_for() {
	while ! "$@"; do
		sleep 0.1
	done
}

# --- a module with its own PMU --------------------------------------------
insmod "$mods/perf_test_pmu.ko" 2>ins.err
result $? "insmod perf_test_pmu" ins.err
[ -f $pmu/type ] && [ "$(cat $pmu/format/value)" = "config:0-31" ]
result $? "the PMU and its format are in sysfs"

perf stat -x, -e perf_mod_test/value=42/ -o stat.out -- true >/dev/null 2>&1
v=$(awk -F, '/perf_mod_test/ { print $1; exit }' stat.out)
[ "$v" = 42 ]
result $? "perf stat -e perf_mod_test/value=42/ reads 42 (${v:-none})" stat.out

mkfifo in
"$user" 7 <in >user.out 2>&1 &
upid=$!
exec 3>in
wait_for grep -q "^open$" user.out
! rmmod perf_test_pmu 2>rm-busy.err
result $? "rmmod refused while an event of the PMU is open" rm-busy.err
[ -f $pmu/type ]
result $? "the PMU stays registered"
exec 3>&-
wait $upid
result $? "the event's owner exits 0" user.out
grep -q "^count 7$" user.out
result $? "the event read its value (7)" user.out

rmmod perf_test_pmu 2>rm.err
result $? "rmmod perf_test_pmu once the event is gone" rm.err
[ ! -e $pmu ]
result $? "the PMU left sysfs"
insmod "$mods/perf_test_pmu.ko" 2>ins2.err && rmmod perf_test_pmu 2>>ins2.err
result $? "the PMU registers again after unloading" ins2.err

# --- a module counting with a kernel event ---------------------------------
insmod "$mods/perf_test_counter.ko" 2>cnt.err
result $? "insmod perf_test_counter" cnt.err
p=/sys/module/perf_test_counter/parameters
wait_for test "$(cat $p/overflows)" -ge 3
result $? "its overflow handler runs ($(cat $p/overflows) calls so far)"
c=$(cat $p/count)
[ "$c" -ge 3000000 ]
result $? "its count is at least 3 ms of CPU 0's clock ($c ns)"
rmmod perf_test_counter 2>cnt-rm.err
result $? "rmmod perf_test_counter releases the event" cnt-rm.err

tap_done
