#!/bin/bash
# make bench: build the stock and our kernel, boot each in turn under
# -icount shift=0,sleep=off (the guest clock counts instructions, so the
# figures repeat), run the benchmark programs of bench/ in it, and print the
# figures side by side.  The programs of hardware events (HW_PROGS) run in
# a second guest of each kernel, on the emulated Intel PMU (PMU=intel), and
# those of eight CPUs (SMP8_PROGS) in a third, at -smp 8.  Writes
# out/bench/results.csv and out/bench/ratios.png;
# the guests' logs stay in out/bench/.  Non-zero exit when a guest or a
# program failed or a figure is missing.
#
# Environment:
#   BENCH_NO_BUILD=1   use the kernel images already built
#   BENCH_ONLY="..."   run only these programs (default: all of bench/*.c)
#   BENCH_KERNELS="..." run only these kernels (stock qemu; default both)
. "$(dirname "$0")/lib.sh"

start=$(date +%s)
results=$OUT/bench
bin=$BUILD/bench
rm -rf "$results"
mkdir -p "$results" "$bin"

# The order the guest runs them in: cheap and sensitive ones first.
ALL_PROGS="syscall sched cgroup tracepoint inherit enable sample ringbuf mem scale hw smp8"
HW_PROGS="hw"
SMP8_PROGS="smp8"
progs=${BENCH_ONLY:-$ALL_PROGS}
plain_progs= hw_progs= smp8_progs=
for p in $progs; do
	case " $HW_PROGS " in
	*" $p "*) hw_progs="$hw_progs $p"; continue ;;
	esac
	case " $SMP8_PROGS " in
	*" $p "*) smp8_progs="$smp8_progs $p"; continue ;;
	esac
	plain_progs="$plain_progs $p"
done
"$TOP/tools/testing/qemu-pmu/build.sh" >/dev/null ||
	die "building our QEMU failed"
kernels=${BENCH_KERNELS:-stock qemu}

for k in $kernels; do
	img=$BUILD/$k/arch/x86/boot/bzImage
	if [ -z "${BENCH_NO_BUILD:-}" ]; then
		img=$("$PERFVM/build.sh" "$k") || die "building the $k kernel failed"
	fi
	[ -r "$img" ] || die "no $k kernel image: $img"
done

for p in $progs; do
	src=$PERFVM/bench/$p.c
	[ -r "$src" ] || die "no benchmark program $src"
	gcc -O2 -g -fno-omit-frame-pointer -Wall -static -pthread \
		-isystem "$TOP/tools/include/uapi" -o "$bin/$p" "$src" ||
		die "compiling $src failed"
done

# Console lines that mean the kernel went wrong (as in summarize.py).
SPLAT='BUG: |WARNING: |Oops|Kernel panic|general protection fault|kernel BUG|rcu: INFO|RCU stall|INFO: task .* blocked'
failed=
for k in $kernels; do
	label=$k
	[ "$k" = qemu ] && label=ours
	img=$BUILD/$k/arch/x86/boot/bzImage
	rm -f "$results/$label.out" "$results/$label.console"
	# One guest for the plain programs, one on the emulated PMU, one
	# with eight CPUs.
	for set in plain hw smp8; do
		smp=2
		case $set in
		plain) list=$plain_progs pmu=none out=$label ;;
		hw) list=$hw_progs pmu=intel out=$label-hw ;;
		smp8) list=$smp8_progs pmu=none out=$label-smp8 smp=8 ;;
		esac
		[ -n "$list" ] || continue
		log "running the benchmarks on the $label kernel ($img, PMU=$pmu):$list"
		t0=$(date +%s)
		# shellcheck disable=SC2086
		PMU=$pmu "$PERFVM/vm.sh" -k "$img" -I -s $smp -m 2048 -t 3600 \
			-c "$results/$out.console" -o "$results/$out.out" -- \
			"sh $PERFVM/bench/guest.sh $bin $list" >/dev/null
		st=$?
		echo "$(( $(date +%s) - t0 ))" >"$results/$out.seconds"
		log "$label: guest status $st, $(cat "$results/$out.seconds")s of wall time"
		if [ $st -ne 0 ]; then
			failed="$failed $out"
			grep -v '^BENCH \|^# ' "$results/$out.out" | tail -n 20 >&2
		fi
		if grep -Eq "$SPLAT" "$results/$out.console"; then
			grep -E "$SPLAT" "$results/$out.console" | head -n 5 >&2
			log "$label: kernel splat on the console ($results/$out.console)"
			failed="$failed $out"
		fi
		# The report reads one output per kernel.
		if [ $set != plain ] && [ -r "$results/$out.out" ]; then
			cat "$results/$out.out" >>"$results/$label.out"
		fi
	done
done

# The report compares stock with ours; a kernel that did not run has no
# figures, which the report names.
"$PERFVM/bench/report.py" "$results/stock.out" "$results/ours.out" "$results"
rep=$?
log "took $(( $(date +%s) - start ))s; logs in $results"
if [ -n "$failed" ]; then
	log "FAILED: the benchmarks did not run cleanly on:$failed"
	exit 1
fi
if [ $rep -ne 0 ]; then
	if [ -n "${BENCH_ONLY:-}${BENCH_KERNELS:-}" ]; then
		log "partial run (BENCH_ONLY/BENCH_KERNELS): figures of the programs and kernels left out are missing"
	else
		log "FAILED: figures are missing (see above)"
		exit 1
	fi
fi
log "done: $results/results.csv, $results/ratios.png"
