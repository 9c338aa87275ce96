#!/bin/sh
# KVM's use of the host's branch recorder, from a module that does what
# KVM's VMX code does (perf-vm/modules/perf_test_vlbr.c): it asks
# x86_perf_get_lbr() for the recorder (its depth, its first records'
# MSRs, call stack mode) and holds it for a guest with KVM's event of
# INTEL_FIXED_VLBR_EVENT, excluding the host.  The event is active at
# once and the host leaves the recorder off (the guest's IA32_DEBUGCTL
# is its own); for the host the same event turns it on.  While it is
# held, the branch trace store cannot trace (the two exclude each
# other).  Where there is no LBR the event is EOPNOTSUPP, and AMD's LBR
# v2 is told of without MSRs or call stacks, as upstream does.
# PERFTEST_PMU names the emulated PMU.  Prints TAP.
dir=$(cd "$(dirname "$0")" && pwd)
mods=$dir/../modules/$(uname -r)
pmu=${PERFTEST_PMU:-none}
tmp=$(mktemp -d)
trap 'rmmod perf_test_vlbr 2>/dev/null; rm -rf "$tmp"' EXIT

. "$dir/lib/tap.sh"
echo "TAP version 13"
[ -e /proc/modules ] || skip "no module support in this kernel (CONFIG_MODULES)"
[ -f "$mods/perf_test_vlbr.ko" ] || skip "no test modules built for $(uname -r)"
cd "$tmp" || exit 1
p=/sys/module/perf_test_vlbr/parameters

# What x86_perf_get_lbr() reports: depth, FROM, TO, INFO, call stacks.
case $pmu in
skx|icx) want="32 1664 1728 3520 Y" held="active 0" host="active 1" ;;
spr|adl) want="32 5376 5632 4608 Y" held="active 0" host="active 1" ;;
amd) want="16 0 0 0 N" held="err -95" host="err -95" ;;
# No PMU driver: no raw events at all.
none) want="0 0 0 0 N" held="err -2" host="err -2" ;;
*) want="0 0 0 0 N" held="err -95" host="err -95" ;;
esac

insmod "$mods/perf_test_vlbr.ko" 2>ins.err
result $? "insmod perf_test_vlbr" ins.err
got=$(for f in lbr_nr lbr_from lbr_to lbr_info lbr_callstack; do cat $p/$f; done | tr '\n' ' ')
[ "$got" = "$want " ]
result $? "x86_perf_get_lbr(): $got(want $want)"

# Alder Lake: the event is cpu_core's; made on a P-core it is active.
taskset -c 0 sh -c "echo 1 >$p/vlbr"
got=$(cat $p/vlbr)
[ "$got" = "$held" ]
result $? "KVM's guest LBR event: $got (want $held)"
if [ -d /sys/bus/event_source/devices/intel_bts ] && [ "$held" = "active 0" ]; then
	! perf record --per-thread -q -o b.data -e intel_bts//u -- true >b.out 2>&1
	result $? "intel_bts cannot trace while a guest holds the LBR" b.out
fi
taskset -c 0 sh -c "echo 2 >$p/vlbr"
got=$(cat $p/vlbr)
[ "$got" = "$host" ]
result $? "the same event for the host: $got (want $host)"
echo 0 >$p/vlbr
if [ -d /sys/bus/event_source/devices/intel_bts ] && [ "$held" = "active 0" ]; then
	perf record --per-thread -q -o b.data -e intel_bts//u -- true >b.out 2>&1
	result $? "intel_bts traces once the LBR is let go" b.out
fi
rmmod perf_test_vlbr 2>rm.err
result $? "rmmod perf_test_vlbr releases the event" rm.err
tap_done
