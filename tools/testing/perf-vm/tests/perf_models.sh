#!/bin/sh
# shellcheck disable=SC2046  # the counts are split into words on purpose
# perf(1) on the named Intel models (PERFTEST_PMU=skx, icx, spr or adl):
# perf list shows the topdown events where the model has them, and perf
# stat --topdown, --td-level 2 and -M TopdownL1 report the emulated
# core's shares: of the slots of a cycle (5 on Ice Lake, 6 on Golden
# Cove) one retires and the others are backend bound
# (tools/testing/qemu-pmu/README).  On Skylake --topdown uses the topdown
# events of old, system-wide.  On the hybrid Alder Lake perf shows each
# event per core type (cpu_core, cpu_atom) and takes topdown from the
# P-cores.  On every Intel model perf record -b and --call-graph lbr take
# branch stacks and call stacks from the LBR (the architectural one on
# Sapphire Rapids and Alder Lake), -e cycles:pp precise samples from
# PEBS, perf mem and perf c2c the loads' latencies and sources, -e
# intel_bts//u a branch trace through the AUX area and -e branches:u -c 1
# a sample of every branch.  On the AMD model (PERFTEST_PMU=amd),
# perf record -b takes branch stacks from LBR v2, cycles:pp, -e ibs_op//
# and ibs_fetch// sample through IBS, and perf mem and perf c2c take the
# loads' latencies and sources from it.  Prints TAP.
dir=$(cd "$(dirname "$0")" && pwd)
target=$dir/perf_hw_target
pmu=${PERFTEST_PMU:-none}
# perf mem and perf c2c on Intel with a fixed period: at their default
# 4000 Hz with the throttle off, a slow emulated PMI (a loaded host) can
# leave the task no time between samples for a minute.
memper="-c 1009"
[ "$pmu" = amd ] && memper=
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$dir/lib/tap.sh"
echo "TAP version 13"
case $pmu in
icx) width=5 levels=1 ;;
spr|adl) width=6 levels=2 ;;
skx) width=0 levels=0 ;;
amd) width=-1 levels=0 ;;
*) skip "not a named Intel model or the AMD one (PMU=skx, icx, spr, adl or amd boots one)" ;;
esac
command -v perf >/dev/null && [ -x "$target" ] || skip "perf or the target program is missing"
pmus=/sys/bus/event_source/devices
if [ "$pmu" = adl ] && [ ! -e $pmus/cpu_core ]; then
	case $(uname -r) in
	*-perfng*) skip "this kernel has no PMU per core type yet (issue 33)" ;;
	esac
fi
if [ "$pmu" = amd ] && [ ! -e $pmus/ibs_op ]; then
	case $(uname -r) in
	*-perfng*) skip "this kernel has no IBS driver yet (issue 34)" ;;
	esac
fi
if [ "$width" -gt 0 ] && [ "$pmu" != adl ] && [ ! -e $pmus/cpu/events/slots ]; then
	case $(uname -r) in
	*-perfng*) skip "this kernel has no topdown events yet (issue 33)" ;;
	esac
fi
cd "$tmp" || exit 1

# The PMIs of a TCG guest are slow, and the kernel lowers the sample rate
# after a slow one: the samples asked for here would be throttled.  The
# rate up while the time limit is on, then the limit off; restored in the
# other order.
sysctls=
for s in perf_cpu_time_max_percent perf_event_max_sample_rate; do
	sysctls="$sysctls $s=$(cat /proc/sys/kernel/$s)"
done
trap 'for s in $sysctls; do echo "${s#*=}" >"/proc/sys/kernel/${s%%=*}"; done; rm -rf "$tmp"' EXIT
echo 100000 >/proc/sys/kernel/perf_event_max_sample_rate
echo 0 >/proc/sys/kernel/perf_cpu_time_max_percent
export DEBUGINFOD_URLS=

# pcts FILE: the percentages of perf stat's topdown line, colours aside,
# in tenths of a percent, one per line.
pcts() {
	sed 's/\x1b\[[0-9;]*m//g' "$1" | grep -E '^ +[0-9.]+%' | head -1 |
		grep -oE '[0-9]+\.[0-9]%' | tr -d '.%' | awk '{ print $1 + 0 }'
}
# within DESCRIPTION VALUE MIN MAX [FILE]
within() {
	[ -n "$2" ] && [ "$2" -ge "$3" ] && [ "$2" -le "$4" ]
	result $? "$1 (${2:-none} in $3..$4)" "${5:-}"
}

# brstack_check CYCLES [TYPE]: branch stacks from the LBR, the loop's
# branch, predicted, with CYCLES cycles (Intel's the model's 2: a dec and
# the jnz; AMD's records have none), newest first in each sample; the
# architectural LBR's records also have their type (/COND).
brstack_check() {
	perf record -q -o b.data -b -e branches:u -c 10007 -- "$target" 1000000 \
		>/dev/null 2>b.err
	result $? "record -b -e branches:u exits 0" b.err
	perf script -i b.data -F brstacksym 2>/dev/null | awk '{ print $1 }' >b.out
	all=$(grep -c . b.out)
	hit=$(grep -cE "^loop\\+0x[0-9a-f]+/loop\\+0x[0-9a-f]+/P/-/-/$1/${2:-}\$" b.out)
	[ "$all" -ge 50 ] && [ "$((hit * 10))" -ge "$((all * 9))" ]
	result $? "script -F brstacksym: $hit of $all samples start with the loop's branch" b.out
}

# The LBR (skx, icx, spr, adl): perf record -b and --call-graph lbr.
lbr_checks() {
	case $pmu in
	spr|adl) brstack_check 2 COND ;;
	*) brstack_check 2 ;;
	esac
	# Call stacks from the LBR in call stack mode: loop under main.  On
	# Alder Lake on one P-core: each core type's LBR holds the calls made
	# on that type only, so after the task moves to the other type its
	# call into loop is in neither, and perf script shows no chain under
	# the samples (stock's and ours alike, seen by moving the target with
	# taskset -p during the record).
	pin=
	[ "$pmu" = adl ] && pin="taskset -c $core"
	$pin perf record -q -o c.data --call-graph lbr -e cycles:u -c 100003 -- "$target" 10000000 \
		>/dev/null 2>c.err
	result $? "record --call-graph lbr exits 0" c.err
	perf script -i c.data >c.out 2>&1
	# cycles:u, or on Alder Lake cpu_core/cycles:u/ and cpu_atom/cycles:u/.
	all=$(grep -cE 'cycles:u/?:' c.out)
	hit=$(grep -A1 ' loop+0x' c.out | grep -c ' main+0x')
	[ "$all" -ge 50 ] && [ "$((hit * 10))" -ge "$((all * 9))" ]
	result $? "script: $hit of $all samples have loop called from main" c.out
}

# record_loop NAME EVENT PERIOD ROUNDS TENTHS MIN: perf record -e EVENT
# -c PERIOD of ROUNDS of the target's loop into NAME.data; at least TENTHS
# in ten of its samples (and MIN of them) must be in the loop.
record_loop() {
	perf record -q -o "$1.data" -e "$2" -c "$3" -- "$target" "$4" \
		>/dev/null 2>"$1.err"
	result $? "record -e $2 exits 0" "$1.err"
	perf script -i "$1.data" -F ip,sym 2>/dev/null | awk '{ print $2 }' >"$1.out"
	all=$(grep -c . "$1.out")
	hit=$(grep -c '^loop$' "$1.out")
	[ "$all" -ge "$6" ] && [ "$((hit * 10))" -ge "$((all * $5))" ]
	result $? "script -F ip,sym: $hit of $all $2 samples in the loop" "$1.out"
}

# PEBS (skx, icx, spr, adl): perf record -e cycles:ppu.
precise_checks() {
	if [ "$(cat "$pmus/cpu/caps/max_precise" 2>/dev/null)" = 0 ]; then
		case $(uname -r) in
		*-perfng*)
			skip_one "record -e cycles:ppu" "this kernel has no adaptive PEBS yet (issue 34)"
			return ;;
		esac
	fi
	# Precise cycles from PEBS: each sample exact, on an instruction of
	# the loop (a dec and a jnz) in nine of ten.
	record_loop p cycles:ppu 10007 1000000 9 50
	perf report -i p.data --stdio -F sym 2>/dev/null | grep -q 'loop'
	result $? "report: the loop" p.out
}

# Branch trace store (skx, icx, spr, adl): perf record -e intel_bts//u, a trace
# through the AUX area, perf script decoding it.
bts_checks() {
	if [ ! -d "$pmus/intel_bts" ]; then
		case $(uname -r) in
		*-perfng*)
			skip_one "record -e intel_bts//u" "this kernel has no intel_bts (issue 34)"
			return ;;
		esac
	fi
	perf record --per-thread -q -o t.data -e intel_bts//u -- "$target" 1000 \
		>/dev/null 2>t.err
	result $? "record -e intel_bts//u exits 0" t.err
	perf script -i t.data -F ip,sym,addr,symoff 2>/dev/null >t.out
	[ "$(grep -c 'main+0x[0-9a-f]* *=> *[0-9a-f]* loop+0x0$' t.out)" -eq 1 ] &&
		[ "$(grep -c . t.out)" -ge 500 ]
	result $? "script: the trace's branches, main's call to loop once" t.out
	# A sample of every branch: the loop's jnz, taken 999 times of 1000.
	# The samples have no registers, so perf takes them for the
	# kernel's and names no symbol (upstream's too): count by address.
	perf record -q -o s.data -e branches:u -c 1 -- "$target" 1000 >/dev/null 2>s.err
	result $? "record -e branches:u -c 1 exits 0" s.err
	perf script -i s.data -F ip 2>/dev/null | sort | uniq -c >s.out
	grep -qE '^ +999 +[0-9a-f]+$' s.out
	result $? "script: a sample of each of the loop's 999 taken branches" s.out
}

# perf mem (skx, icx, spr, adl, amd): the loads of a walk over 16 MiB, each from local
# RAM in 200 cycles (the emulation's latency model).
mem_checks() {
	# shellcheck disable=SC2086  # no option, or two words
	perf mem record $memper -o m.data -- "$target" walk 4 >/dev/null 2>m.err
	result $? "mem record exits 0" m.err
	perf mem report -i m.data --stdio --sort=local_weight,mem,sym 2>/dev/null >m.out
	grep -qE '^ +[0-9.]+% +[0-9]+ +200 +Local RAM or RAM hit +\[\.\] walk' m.out
	result $? "mem report: the walk's loads, 200 cycles from local RAM" m.out
	c2c_checks
}

# c2c_total FILE NAME: the count perf c2c report gives NAME.
c2c_total() {
	sed -n "s/^ *$2 *: *\([0-9]*\)\$/\1/p" "$1"
}

# perf c2c (skx, icx, spr, adl, amd): the walk's loads come from local DRAM (on
# Intel all of them: the load latency event keeps those over 30 cycles;
# IBS also tags cache hits), and there are stores.  No line is shared:
# one task.
c2c_checks() {
	# shellcheck disable=SC2086  # no option, or two words
	perf c2c record $memper -o c2c.data -- "$target" walk 4 >/dev/null 2>c2c.err
	result $? "c2c record exits 0" c2c.err
	perf c2c report -i c2c.data --stdio >c2c.out 2>&1
	result $? "c2c report exits 0" c2c.out
	loads=$(c2c_total c2c.out "Load Operations")
	dram=$(c2c_total c2c.out "Load Local DRAM")
	stores=$(c2c_total c2c.out "Store Operations")
	echo "# c2c: $loads loads, $dram from local DRAM, $stores stores"
	if [ "$pmu" = amd ]; then
		[ "${dram:-0}" -gt 0 ] && [ "${loads:-0}" -gt "$dram" ]
	else
		[ "${dram:-0}" -gt 0 ] && [ "$loads" = "$dram" ]
	fi
	result $? "c2c report: loads from local DRAM" c2c.out
	[ "${stores:-0}" -gt 0 ] && [ "$(c2c_total c2c.out "Total Shared Cache Lines")" = 0 ]
	result $? "c2c report: stores, no shared line" c2c.out
}

# IBS (amd): precise cycles through op sampling, the two PMUs' samples.
# IBS samples every privilege level (upstream's driver has no filter),
# so the kernel has its share: the NMIs' own work, the task's start and
# its spinning on locks in the kernel (each PAUSE 128 cycles).  The loop
# has seven in ten of the samples; hw_ibs checks them exactly.  IBS's
# NMIs take long under TCG, so the kernel lowers the sample rate and a
# run may keep under a hundred samples: 20 are asked for.
ibs_checks() {
	for ev in cycles:pp ibs_op// ibs_fetch//; do
		record_loop i "$ev" 100000 10000000 7 20
	done
}

if [ "$pmu" = amd ]; then
	if [ -e $pmus/cpu/caps/branches ]; then
		brstack_check 0
	else
		skip_one "record -b -e branches:u" "this kernel has no driver for AMD's LBR v2 yet (issue 34)"
	fi
	ibs_checks
	mem_checks
	tap_done
	exit
fi

if [ "$width" -eq 0 ]; then
	# Skylake: the events of old, which count nothing in the emulation.
	perf stat --topdown -a -- "$target" 1000000 >td.out 2>&1
	result $? "stat --topdown -a exits 0" td.out
	set -- $(sed 's/\x1b\[[0-9;]*m//g' td.out | grep -E '^S0-D0-C0 ')
	[ "$#" -eq 6 ]
	result $? "stat --topdown -a: a line per core, four metrics" td.out
	lbr_checks
	precise_checks
	mem_checks
	bts_checks
	tap_done
	exit
fi

# Retiring a width-th, in tenths of a percent (PERF_METRICS' 8 bits and
# the rounding of a kernel that writes saved shares back take up to 1.5
# points).  perf stat counts user space only (--all-user): the kernel's
# share is mostly PAUSE stalls, all backend bound, and how many a spin
# takes depends on how long the other vCPU keeps it waiting, that is on
# the host's load (a loaded host brought retiring down to 13.9%).
ret_hi=$((1000 / width + 5))
ret_lo=$((ret_hi - 20))

if [ "$pmu" = adl ]; then
	core=$(cut -d, -f1 $pmus/cpu_core/cpus | cut -d- -f1)
	atom=$(cut -d, -f1 $pmus/cpu_atom/cpus | cut -d- -f1)
	perf list >list.out 2>&1
	for e in cpu_core/slots/ cpu_core/topdown-retiring/ cpu_atom/topdown-retiring/ \
		cpu_core/instructions/ cpu_atom/instructions/; do
		grep -q "$e .*Kernel PMU event" list.out
		result $? "list: $e" list.out
	done
	# System-wide, perf opens the event on each type's CPUs.
	perf stat -a -x, -o a.out -e instructions -- "$target" 1000000 >/dev/null 2>a.err
	result $? "stat -a -e instructions exits 0" a.err
	for p in cpu_core cpu_atom; do
		v=$(grep ",$p/instructions/," a.out | cut -d, -f1)
		[ -n "$v" ] && [ "$v" -gt 0 ] 2>/dev/null
		result $? "stat -a: $p/instructions/ counts (${v:-none})" a.out
	done
	# Each type's event counts the loop on a CPU of its type (exec and
	# start-up add some 100,000).
	for pc in "cpu_core $core" "cpu_atom $atom"; do
		# shellcheck disable=SC2086  # two words on purpose
		set -- $pc
		p=$1 cpu=$2
		taskset -c "$cpu" perf stat -x, -o t.out -e "$p/instructions/u" \
			-- "$target" 10000000 >/dev/null 2>t.err
		set -- $(grep "/instructions/u," t.out | cut -d, -f1)
		within "stat on CPU $cpu: $p/instructions/u" "${1:-}" 20000000 20400000 t.out
	done
	# Topdown on a P-core: the twelve shares of levels 1 and 2.
	taskset -c "$core" perf stat --all-user --topdown -- "$target" 10000000 >td.out 2>&1
	result $? "stat --topdown on a P-core exits 0" td.out
	set -- $(pcts td.out)
	echo "# levels 1 and 2 (0.1%): $*"
	[ "$#" -eq 12 ]
	result $? "stat --topdown: twelve metrics ($#)" td.out
	within "stat --topdown: retiring" "${1:-}" "$ret_lo" "$ret_hi" td.out
	within "stat --topdown: the four add up to 100%" $((${1:-0} + ${2:-0} + ${3:-0} + ${4:-0})) 999 1001
	taskset -c "$core" perf stat -x, -o ev.out \
		-e '{cpu_core/slots/u,cpu_core/topdown-retiring/u}' -- "$target" 10000000 \
		>/dev/null 2>ev.err
	result $? "stat -e '{cpu_core/slots/u,cpu_core/topdown-retiring/u}' exits 0" ev.err
	set -- $(grep -v '^#' ev.out | grep , | cut -d, -f1)
	echo "# slots, retiring: $*"
	within "stat: slots:u, the loop's 2e7 cycles" "$((${1:-0} / width))" 20000000 20200000 ev.out
	within "stat: retiring:u a width-th of slots:u (per mille)" \
		"$((${2:-0} * width * 1000 / (${1:-0} + 1)))" 960 1010 ev.out
	lbr_checks
	precise_checks
	mem_checks
	bts_checks
	tap_done
	exit
fi

perf list >list.out 2>&1
for e in slots topdown-retiring topdown-bad-spec topdown-fe-bound topdown-be-bound; do
	grep -q "^ *$e OR cpu/$e/ .*Kernel PMU event" list.out
	result $? "list: $e" list.out
done
grep -q "topdown-heavy-ops OR" list.out
[ $? -eq $((levels == 2 ? 0 : 1)) ]
result $? "list: the level-2 events where the model has them" list.out

perf stat --all-user --topdown -- "$target" 10000000 >td.out 2>&1
result $? "stat --topdown exits 0" td.out
set -- $(pcts td.out)
echo "# retiring, bad speculation, frontend, backend (0.1%): $*"
within "stat --topdown: retiring" "${1:-}" "$ret_lo" "$ret_hi" td.out
within "stat --topdown: bad speculation" "${2:-}" 0 0
within "stat --topdown: frontend bound" "${3:-}" 0 0
within "stat --topdown: the four add up to 100%" $((${1:-0} + ${2:-0} + ${3:-0} + ${4:-0})) 999 1001

if [ "$levels" -eq 2 ]; then
	perf stat --all-user --topdown --td-level 2 -- "$target" 10000000 >td2.out 2>&1
	result $? "stat --topdown --td-level 2 exits 0" td2.out
	set -- $(pcts td2.out)
	echo "# levels 1 and 2 (0.1%): $*"
	[ "$#" -eq 12 ]
	result $? "stat --td-level 2: twelve metrics ($#)" td2.out
	# Heavy operations and branch mispredicts 0, light operations all
	# of retiring; fetch latency and bandwidth 0, core bound all of
	# backend bound (the model has no memory bound).
	[ "$#" -eq 12 ] && [ "$5" = 0 ] && [ "$6" = "$1" ] && [ "$7" = 0 ] &&
		[ "$8" = 0 ] && [ "$9" = 0 ] && [ "${10}" = 0 ] && [ "${11}" = 0 ] &&
		[ "${12}" = "$4" ]
	result $? "stat --td-level 2: the model's level-2 shares" td2.out
fi

perf stat --all-user -M TopdownL1 -- "$target" 10000000 >m.out 2>&1
result $? "stat -M TopdownL1 exits 0" m.out
r=$(sed -n 's/.*#[^0-9]*\([0-9]*\)\.\([0-9]\) *% *tma_retiring.*/\1\2/p' m.out)
within "stat -M TopdownL1: tma_retiring" "$r" "$ret_lo" "$ret_hi" m.out

# The events themselves: retiring a width-th of the slots.  PERF_METRICS
# has 8 bits a share (Golden Cove's 42/255 is 1.2% short of a sixth), and a
# kernel that writes saved shares back at each switch loses a little more
# each time (stock read 98.0% of the fifth on Ice Lake).
perf stat -x, -o ev.out -e '{slots,topdown-retiring}:u' -- "$target" 10000000 \
	>/dev/null 2>ev.err
result $? "stat -e '{slots,topdown-retiring}:u' exits 0" ev.err
set -- $(grep -v '^#' ev.out | grep , | cut -d, -f1)
echo "# slots, retiring: $*"
within "stat: slots:u, the loop's 2e7 cycles" "$((${1:-0} / width))" 20000000 20200000 ev.out
within "stat: retiring:u a width-th of slots:u (per mille)" \
	"$((${2:-0} * width * 1000 / (${1:-0} + 1)))" 960 1010 ev.out

lbr_checks
precise_checks
mem_checks
bts_checks
tap_done
