#!/bin/bash
# make check: build the kernels and the tests, boot each kernel in QEMU, run
# every test, scan the console for splats, and end with a table of the runs
# and one line "N passed, N failed, N skipped".  Non-zero exit on any
# failure.
#
# usage: check.sh [all|full|qemu|stock|kcsan|pmu]
#   qemu   our kernel (-smp 2 and -smp 4) and our debug kernel (-smp 2),
#          and short seeded fuzzes of the debug kernel at -smp 2 with
#          the emulated Skylake-SP and Ice Lake-SP, each after branch
#          stacks and precise samples in the same guest, and the
#          hardware-event tests on the debug kernel
#   kcsan  our KCSAN kernel (-smp 2; not the perf tool scripts), and a
#          short fuzz on it at -smp 4 with the emulated AMD PMU
#   stock  the unmodified base with the same configuration (-smp 2 and 4,
#          and the PMU runs below), which writes its verdicts to the
#          stock record (stock-record beside this script)
#   pmu    only the hardware-event runs below
#   all    qemu but the debug kernel's hardware-event run, and the stock
#          record checked instead of run (the default, and CI's)
#   full   qemu, kcsan and stock, all run (make check-full)
#   key    print the stock record's key for this tree, and whether the
#          record has it; builds and runs nothing
# With qemu and stock, the hardware-event tests also run on QEMU with our
# emulated x86 PMU (make qemu-pmu): Intel (architectural perfmon v4) and
# AMD with PerfMonV2 on stock (whose drivers are the reference) and ours,
# Intel perfmon v1 and legacy AMD on ours; Intel under -icount on stock
# (PERFTEST_ICOUNT=1 there); and Intel on our debug kernel (not in all).
# The named Intel models (skx, icx, spr, adl) run only their own tests.
# Each of these runs but the -icount one ends with a real hard lockup
# that the NMI watchdog must report.
#
# The stock record: the stock kernel's results depend only on the tests,
# the emulation, the configuration and the base, not on our code.  Its
# per-case verdicts are kept in the repository under a key computed from
# exactly those inputs (stock_key below); "all" checks that the key is
# current and reports the recorded runs, without building or booting
# stock.  A stale key fails the check, naming the command that writes a
# new record from a real run: make check KERNEL=stock.
. "$(dirname "$0")/lib.sh"

which=${1:-all}
start=$(date +%s)
results=$OUT/check
if [ "$which" != key ]; then
	rm -rf "$results"
	mkdir -p "$results"
	# What was tested, for the series' cover letter.
	git -C "$TOP" describe --always --dirty >"$results/commit" 2>/dev/null
fi

kernels= only_pmu=
case "$which" in
pmu) kernels="qemu debug stock" only_pmu=1 ;;
# The debug kernel first: its runs leave the host half a CPU idle for
# half an hour, where our kernel's build fits, instead of its own build
# running alone after our kernel's runs.
qemu) kernels="debug qemu" ;;
stock) kernels="stock" ;;
kcsan) kernels="kcsan" ;;
all) kernels="debug qemu stock-record" ;;
full) kernels="debug qemu kcsan stock" ;;
key) kernels= ;;
*) die "usage: check.sh all|full|qemu|stock|kcsan|pmu|key" ;;
esac
# Whether this run writes the stock record: only a whole stock run does.
record=
[ "$which" = stock ] || [ "$which" = full ] && record=$PERFVM/stock-record
# The short fuzz of make check: seconds of fuzzing per run.
FUZZ_SECONDS=${FUZZ_SECONDS:-60}

# fuzz KERNEL SMP PMU [SEED [TESTS]]: the short seeded fuzz (the seed is
# the CPU count unless given) on a guest with that emulated PMU, so that
# hardware events, groups of them and their inherited copies are fuzzed
# too.  With TESTS (paths), the guest runs those test programs first: the
# run is then pmu-PMU-KERNEL-smpSMP, one boot and one kmemleak scan for
# both (a debug kernel's boot and scan take about a minute under TCG).
fuzz() {
	local label=$1-fuzz-$3-smp$2 seed=${4:-$2} t0 before=
	if [ -n "${5:-}" ]; then
		label=pmu-$3-$1-smp$2
		# shellcheck disable=SC2086
		before="PERFTEST_NO_SCAN=1 $(PMU=$3 guest_cmd 0 3600 $5)"
	fi
	t0=$(date +%s)
	log "fuzzing the $1 kernel at -smp $2 (PMU=$3) for ${FUZZ_SECONDS}s, seed $seed"
	PMU=$3 FUZZ_NO_BUILD=1 FUZZ_DIR=$results SECONDS_=$FUZZ_SECONDS \
		FUZZ_BEFORE=$before \
		SEED=$seed KERNEL=$1 SMP=$2 "$PERFVM/fuzz.sh" "$label" \
		>"$results/$label.summary" 2>/dev/null
	grep -v "^$label: [0-9]* passed" "$results/$label.summary" >&2
	summaries+=("$results/$label.summary")
	note_run "$label" "$1" "$3" "$t0"
}

# note_run LABEL KERNEL PMU START: the run's row for the closing table:
# its time, and how many boots vm.sh had to retry (a guest that died or
# hung before its command; each left its console as LABEL.console.died*
# or .hung*).  A retry is never silent: it shows in the table.
note_run() {
	local n
	n=$(find "$results" -maxdepth 1 \( -name "$1.console.died*" -o \
		-name "$1.console.hung*" \) | wc -l)
	printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$(( $(date +%s) - $4 ))" "$n" \
		>>"$results/runs.tsv"
}

# The patch series: the plan places every file, git am of it on the base
# gives the tree under test, checkpatch finds nothing in kernel code
# (make patches; make patches CHECK=build builds every step).  It needs
# only the tree: it is the last step of the background builds (2.4
# minutes of a host CPU the guests leave idle), and its cover letter gets
# this run's totals once they are known.  A run without a git identity
# signs the series as make check.
with_series=
case "$which" in all|full|qemu) with_series=1 ;; esac
series() {
	local t0
	t0=$(date +%s)
	if GIT_AUTHOR_NAME=${GIT_AUTHOR_NAME:-$(git -C "$TOP" config user.name || echo "make check")} \
	   GIT_AUTHOR_EMAIL=${GIT_AUTHOR_EMAIL:-$(git -C "$TOP" config user.email || echo "check@localhost")} \
	   nice -n 19 "$PERFVM/patches.sh" >"$results/series.out" 2>&1; then
		echo "series: 1 passed, 0 failed, 0 skipped" >"$results/series.summary"
	else
		{ grep "error" "$results/series.out" | sed 's/^/FAIL series: /'
		  echo "series: 0 passed, 1 failed, 0 skipped"; } >"$results/series.summary"
	fi
	echo $(( $(date +%s) - t0 )) >"$results/series.secs"
}

build_start=$(date +%s)
# Builds overlap.  The first kernel is built in the foreground; in the
# background, at the lowest priority, our QEMU (every guest runs on it,
# PMU or not) and then the other kernels, one after the other.  They get
# what the foreground leaves: the kernel build's serial steps (linking,
# kallsyms), then the first kernel's runs, whose guests wait on timers
# and sleeps much of the time (a 2-vCPU guest kept 1.0 to 1.5 of 2 host
# CPUs busy).  Each background step leaves STEP.done (with its seconds)
# and, when it fails, STEP.failed in $results.
first= later= later_pid=
for k in $kernels; do
	[ "$k" = stock-record ] && continue
	if [ -z "$first" ]; then first=$k; else later="$later $k"; fi
done
if [ "$which" != key ]; then
	(
		for k in qemu-pmu $later; do
			t0=$(date +%s)
			if [ "$k" = qemu-pmu ]; then
				nice -n 19 "$TOP/tools/testing/qemu-pmu/build.sh" >/dev/null
			else
				nice -n 19 "$PERFVM/build.sh" "$k" >/dev/null
			fi || : >"$results/build-$k.failed"
			echo $(( $(date +%s) - t0 )) >"$results/build-$k.done"
		done
		[ -z "$with_series" ] || series
	) &
	later_pid=$!
fi
# await_build STEP: wait for a step of the background builds; the time
# waited counts as build time.
await_build() {
	local t0
	case " qemu-pmu $later " in *" $1 "*) ;; *) return 0 ;; esac
	t0=$(date +%s)
	until [ -e "$results/build-$1.done" ]; do
		sleep 2
	done
	build_secs=$((build_secs + $(date +%s) - t0))
	if [ -e "$results/build-$1.failed" ]; then
		wait "$later_pid"
		die "$1 does not build"
	fi
}
if [ "$which" != key ]; then
	if [ -n "$first" ]; then
		"$PERFVM/build.sh" "$first" >/dev/null || { wait "$later_pid"; exit 1; }
	fi
	"$PERFVM/build-tests.sh" >/dev/null || { wait "$later_pid"; exit 1; }
fi

tests_dir=$BUILD/selftests
mapfile -t all_tests < <("$PERFVM/build-tests.sh" --list)
mapfile -t smp_tests < <("$PERFVM/build-tests.sh" --list-smp)
build_secs=$(( $(date +%s) - build_start ))
[ "$which" = key ] || await_build qemu-pmu
[ "$which" = key ] || : >"$results/runs.tsv"

summaries=()

# guest_cmd ICOUNT TIMEOUT TESTS...: the guest's command that runs the
# test programs TESTS (paths) on a guest with $PMU, one run's TIMEOUT.
guest_cmd() {
	local icount=$1 tmo=$2
	shift 2
	echo "PERFTEST_PMU=${PMU:-none} PERFTEST_ICOUNT=$icount PERFTEST_TIMEOUT=$((tmo / 3)) PERFTEST_HELPERS=$tests_dir/guest sh $PERFVM/guest-tests.sh $*"
}

# run LABEL KERNEL SMP MEM TIMEOUT TESTS...; the guest's PMU is $PMU
# (vm.sh), and $VMOPTS are more vm.sh options.
run() {
	local label=$1 k=$2 smp=$3 mem=$4 tmo=$5
	shift 5
	local img=$BUILD/$k/arch/x86/boot/bzImage icount=0 t0
	if [ -n "${PLAN_ONLY:-}" ]; then
		echo "$label $k $smp $mem $tmo ${PMU:-none} ${VMOPTS:-}" "${@#"$tests_dir"/}"
		return
	fi
	t0=$(date +%s)
	[ "${VMOPTS:-}" = -I ] && icount=1
	log "running ${#@} test programs on $label"
	local opts
	mapfile -t opts < <(boot_opts "$k")
	# shellcheck disable=SC2086
	"$PERFVM/vm.sh" ${VMOPTS:-} "${opts[@]}" -k "$img" -s "$smp" -m "$mem" -t "$tmo" \
		-c "$results/$label.console" -o "$results/$label.out" -- \
		"$(guest_cmd "$icount" "$tmo" "$@")" >/dev/null
	local st=$?
	PERFTEST_CASES=$results/$label.cases "$PERFVM/summarize.py" "$label" \
		"$results/$label.out" "$results/$label.console" "$st" |
		tee "$results/$label.summary" |
		grep -v "^$label: [0-9]* passed" >&2
	summaries+=("$results/$label.summary")
	note_run "$label" "$k" "${PMU:-none}" "$t0"
}

paths() { local t; for t in "$@"; do printf '%s ' "$tests_dir/$t"; done; }

# The tests that need a hardware PMU, run on the emulated ones.
pmu_tests="hw hw_retired hw_sched hw_config hw_inherit hw_groups hw_nmi kvm_pmu perf_hw.sh
base_remove_on_exec perf_tool.sh bpftrace_hw.sh hw_lbr hw_ibs perf_models.sh guest_lbr.sh
power.sh cstate.sh amd_uncore.sh pmu_sysfs.sh"
# On the named Intel models: theirs.
model_tests="hw_models hw_hybrid hw_retired hw_lbr hw_pebs hw_bts perf_models.sh guest_lbr.sh
power.sh cstate.sh intel_uncore.sh intel_server_uncore.sh pmu_sysfs.sh"
# On a PMU whose PMIs arrive late (AMD's may): the tests of sampling.
late_tests="hw_nmi hw hw_inherit perf_tool.sh"
# On the older PMUs of the same CPUs (Intel's perfmon v1, AMD's four K7
# counters): the tests of the counters the driver programs there, the
# sysfs description and the watchdog.  The PMUs and features that do not
# change with the counters' version (IBS, LBR, RAPL, cstate, uncore, the
# models' perf commands) and perf(1)'s own commands run on the current
# Intel and AMD runs of the same CPU: on the older ones they cost a
# minute each of the same coverage.
older_tests="hw hw_retired hw_sched hw_config hw_inherit hw_groups hw_nmi kvm_pmu perf_hw.sh
base_remove_on_exec bpftrace_hw.sh pmu_sysfs.sh"
# pmu_run KERNEL PMU [-I]: LABEL pmu-PMU[-icount]-KERNEL-smp2, the tests
# $PMU_TESTS (pmu_tests when unset).  Without
# -icount the run ends with hardlockup.sh, which locks CPU 1 up for good
# (tests/final/).  Under -icount the vCPUs take turns on one host thread
# and a CPU spinning on PAUSE is many times slower: the lockup takes
# minutes to report there, and the run is for exact counts.
pmu_run() {
	local label=pmu-$2 mem=1024 tmo=1800 tests="${PMU_TESTS:-$pmu_tests} final/hardlockup.sh"
	[ "${3:-}" = -I ] && label=$label-icount tests=$pmu_tests
	[ "$1" = debug ] && mem=2048 tmo=3600
	# shellcheck disable=SC2046,SC2086
	PMU=$2 VMOPTS=${3:-} run "$label-$1-smp2" "$1" 2 "$mem" "$tmo" $(paths $tests)
}

# The scripts of perf's own commands, bpftrace and bcc: they exercise the
# tools' output more than the core, and take minutes of a slow kernel.
tool_scripts="perf_tool.sh perf_trace.sh bpftrace.sh perf_cgroup.sh bcc.sh"

# smp2_tests KERNEL: what the -smp 2 run of our kernel or stock runs.
# Every test; but in make check (all) our kernel leaves the tool scripts
# to the debug kernel, which runs every test on our code (and
# perf_tool.sh runs in each hardware-event run): 3.4 of qemu-smp2's 4.5
# minutes.  make check-full runs them here too.
smp2_tests() {
	if [ "$1" = qemu ] && [ "$which" = all ]; then
		printf '%s\n' "${all_tests[@]}" |
			grep -vxF "$(printf '%s\n' $tool_scripts)"
	else
		printf '%s\n' "${all_tests[@]}"
	fi
}

# runs_of KERNEL: the runs of one kernel (with PLAN_ONLY set, a line
# each saying what it would boot and run).
runs_of() {
	local k=$1
	case $k in
	qemu|stock)
		if [ -z "$only_pmu" ]; then
			# shellcheck disable=SC2046
			run "$k-smp2" "$k" 2 1024 1800 $(paths $(smp2_tests "$k"))
			# shellcheck disable=SC2046
			# Two packages of two cores: a scope's CPU other than
			# CPU 0 with a sibling to hand its events to.
			[ ${#smp_tests[@]} -gt 0 ] &&
				run "$k-smp4" "$k" 4,sockets=2,cores=2 1024 1800 \
					$(paths "${smp_tests[@]}" pmu_scope.sh)
		fi
		pmu_run "$k" intel
		pmu_run "$k" amd
		# CPUID describes a PMU whose registers raise #GP: the
		# kernel boots without a splat and has no hardware events.
		for nomsr in intel-nomsr amd-nomsr; do
			# shellcheck disable=SC2046
			PMU=$nomsr run "pmu-$nomsr-$k-smp2" "$k" 2 1024 600 $(paths hw_absent)
		done
		# AMD family 15h: the power PMU of its accumulated power
		# (the core counters of that family are not ours: pmu-sysfs/
		# not-yet).
		# shellcheck disable=SC2046
		PMU=amd-15h run "pmu-amd-15h-$k-smp2" "$k" 2 1024 600 $(paths amd_power.sh pmu_sysfs.sh)
		# Each AMD PMI comes 5000 instructions after its overflow.
		# shellcheck disable=SC2046,SC2086
		PMU=amd-late run "pmu-amd-late-$k-smp2" "$k" 2 1024 1800 $(paths $late_tests)
		# Named Intel models, and a hybrid Alder Lake (P-cores and
		# E-cores): what each model's PMU has, a PMU per core type or
		# a clean refusal.  A model costs a boot and its own tests.
		# On Alder Lake the NMI watchdog of the E-core (CPU 1) goes
		# through cpu_atom: its hard lockup report ends the run.
		for model in skx icx spr adl; do
			extra=
			[ "$model" = adl ] && extra=final/hardlockup.sh
			# shellcheck disable=SC2046,SC2086
			PMU=$model run "pmu-$model-$k-smp2" "$k" 2 1024 600 $(paths $model_tests $extra)
		done
		# For time: the older PMUs on ours only, -icount on stock only.
		if [ "$k" = qemu ]; then
			PMU_TESTS=$older_tests pmu_run "$k" intel-v1
			PMU_TESTS=$older_tests pmu_run "$k" amd-legacy
			# shellcheck disable=SC2046
			PMU=amd-legacy-late run "pmu-amd-legacy-late-$k-smp2" "$k" 2 1024 600 $(paths hw_nmi)
		fi
		[ "$k" = stock ] && pmu_run "$k" intel -I
		;;
	debug)
		if [ -z "$only_pmu" ]; then
			# shellcheck disable=SC2046
			run "debug-smp2" debug 2 2048 3600 $(paths "${all_tests[@]}")
			# The emulated Skylake-SP: its model's tables, the
			# offcore registers, the LBR and format 3 PEBS are
			# fuzzed too; on Ice Lake-SP, adaptive PEBS.  At -smp
			# 2: four vCPUs on two host CPUs preempt each other
			# in TCG's exclusive sections, and the run took 5.4
			# min instead of 2.9 (check-full fuzzes the KCSAN
			# kernel at -smp 4).
			# Before each fuzz, in its guest: branch stacks, precise
			# samples and branch traces under KASAN and lockdep, on
			# both models' PEBS, and BTS; the cstate PMUs.
			fuzz debug 2 skx 4 "$(paths hw_lbr hw_pebs)"
			fuzz debug 2 icx 2 "$(paths hw_pebs hw_bts cstate.sh)"
			# AMD's IBS and LBR v2, and the power PMU's timer,
			# under KASAN and lockdep.
			# shellcheck disable=SC2046
			PMU=amd run "pmu-amd-debug-smp2" debug 2 2048 3600 $(paths hw_lbr hw_ibs power.sh amd_uncore.sh)
			# shellcheck disable=SC2046
			PMU=amd-15h run "pmu-amd-15h-debug-smp2" debug 2 1024 1800 $(paths amd_power.sh)
		fi
		# The hardware-event tests under KASAN and lockdep (7 min):
		# make check has them on ours and fuzzes the debug kernel on
		# the emulated Skylake-SP; this run is check-full's.
		[ "$which" = all ] || pmu_run debug intel
		;;
	kcsan)
		# Not the scripts of perf's own commands, bpftrace or bcc: they
		# exercise the tools' output more than the core's concurrency,
		# and take minutes of this slow kernel.
		mapfile -t kcsan_tests < <(printf '%s\n' "${all_tests[@]}" |
			grep -vxF "$(printf '%s\n' $tool_scripts)")
		# shellcheck disable=SC2046
		run "kcsan-smp2" kcsan 2 2048 3600 $(paths "${kcsan_tests[@]}")
		fuzz kcsan 4 amd
		;;
	esac
}

# The inputs the stock kernel's results depend on: the tests and what
# builds and runs them, the emulation, the configuration, the base and
# Debian's QEMU source they are built from, and the stock runs' plan.
stock_key() {
	{
		git -C "$TOP" ls-files -co --exclude-standard -- \
			tools/testing/selftests/perf_events \
			tools/include/uapi/linux/perf_event.h \
			tools/testing/perf-vm/tests tools/testing/perf-vm/guest \
			tools/testing/perf-vm/modules tools/testing/perf-vm/guest-init \
			tools/testing/perf-vm/guest-tests.sh \
			tools/testing/perf-vm/build-tests.sh \
			tools/testing/perf-vm/kmemleak-scan.sh \
			tools/testing/perf-vm/vm.sh tools/testing/perf-vm/build.sh \
			tools/testing/perf-vm/summarize.py \
			tools/testing/perf-vm/config/qemu.config \
			tools/testing/perf-vm/config/stock.config \
			tools/testing/qemu-pmu ':!tools/testing/qemu-pmu/README' |
			LC_ALL=C sort |
			(cd "$TOP" && xargs -d '\n' sha256sum)
		# The expected failures that can apply to a stock run.
		grep -v '^#' "$PERFVM/expected-failures" |
			grep -E '^[^ :]+ |^[^ ]*stock[^ ]*:' || true
		dpkg-query -W -f='${Version}\n' linux-source-6.12
		cat "$OUT/qemu-pmu/.debian-version" 2>/dev/null
		PLAN_ONLY=1 runs_of stock
	} | sha256sum | cut -d' ' -f1
}

# write_record: the stock runs just made, with their per-case verdicts.
write_record() {
	local label kern pmu secs n p f sk
	{
		echo "# The stock kernel's verdicts, written by a real run of"
		echo "# make check KERNEL=stock (or make check-full); make check"
		echo "# compares the key with its inputs (check.sh: stock_key)."
		echo "key $(stock_key)"
		echo "tree $(git -C "$TOP" describe --always --dirty 2>/dev/null)"
		while IFS=$'\t' read -r label kern pmu secs n; do
			[ "$kern" = stock ] || continue
			read -r p f sk < <(tail -n 1 "$results/$label.summary" |
				sed -n 's/.*: \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped/\1 \2 \3/p')
			echo "run $label $pmu ${p:-0} ${f:-1} ${sk:-0} $secs $n"
			sed "s/^/case $label\t/" "$results/$label.cases" 2>/dev/null
		done <"$results/runs.tsv"
	} >"$record.new" && mv "$record.new" "$record"
	log "wrote the stock record, $(grep -c '^case' "$record") verdicts: $record"
}

# check_record: the recorded stock runs stand in for real ones while the
# key matches; a stale or missing record is one failure.
check_record() {
	local rec=$PERFVM/stock-record key label pmu p f sk secs n
	key=$(stock_key)
	if [ ! -f "$rec" ] || [ "$(sed -n 's/^key //p' "$rec")" != "$key" ]; then
		{ echo "FAIL stock-record: the tests, the emulation, the configuration or the base changed since the stock kernel's verdicts were recorded: run make check KERNEL=stock and commit ${rec#"$TOP"/}"
		  echo "stock-record: 0 passed, 1 failed, 0 skipped"; } >"$results/stock-record.summary"
		grep ^FAIL "$results/stock-record.summary" >&2
		summaries+=("$results/stock-record.summary")
		printf 'stock-record\tstock\t-\t0\t0\n' >>"$results/runs.tsv"
		return
	fi
	log "the stock record is current (tree $(sed -n 's/^tree //p' "$rec")): its runs stand in"
	while read -r _ label pmu p f sk secs n; do
		{ awk -F'\t' -v l="case $label" '$1 == l && $3 == "fail" {
			printf "FAIL %s (recorded): %s: not ok %s\n", substr(l, 6), $2, $4 }' "$rec"
		  echo "$label: $p passed, $f failed, $sk skipped"; } >"$results/$label.summary"
		grep ^FAIL "$results/$label.summary" >&2
		summaries+=("$results/$label.summary")
		printf '%s\tstock\t%s\t%s\t%s\n' "$label" "$pmu" "rec" "$n" >>"$results/runs.tsv"
	done < <(grep '^run ' "$rec")
}

if [ "$which" = key ]; then
	key=$(stock_key)
	echo "$key"
	grep -qx "key $key" "$PERFVM/stock-record" 2>/dev/null ||
		{ log "the stock record does not have this key"; exit 1; }
	exit 0
fi

for k in $kernels; do
	case $k in
	stock-record) check_record ;;
	*) await_build "$k"; runs_of "$k" ;;
	esac
done
[ -n "$record" ] && write_record
[ -z "$later_pid" ] || wait "$later_pid"

# The series, made beside the runs: its verdict, and this run's totals
# in its cover letter.
if [ -n "$with_series" ]; then
	[ -f "$results/series.summary" ] ||
		{ echo "FAIL series: not made (see $results/series.out)"
		  echo "series: 0 passed, 1 failed, 0 skipped"; } >"$results/series.summary"
	grep -v "^series: [0-9]* passed" "$results/series.summary" >&2
	summaries+=("$results/series.summary")
	printf 'series\t-\t-\t%s\t0\n' "$(cat "$results/series.secs" 2>/dev/null || echo 0)" >>"$results/runs.tsv"
	if grep -q "^series: 1 passed" "$results/series.summary" &&
	   ! python3 "$PERFVM/series.py" --top "$TOP" --out "$OUT" \
		--refresh-totals >>"$results/series.out" 2>&1; then
		{ echo "FAIL series: its cover letter does not take the totals (see $results/series.out)"
		  echo "series: 0 passed, 1 failed, 0 skipped"; } >"$results/series.summary"
		grep ^FAIL "$results/series.summary" >&2
	fi
fi

# The closing table: a row per run, so that a failure, a slow run and a
# retried boot are seen at a glance.
p=0 f=0 s=0 retried=0
printf '%-30s %-6s %-10s %7s %6s %7s %6s %7s\n' run kernel PMU passed failed \
	skipped min retried
for sum in "${summaries[@]}"; do
	line=$(tail -n 1 "$sum")
	label=$(basename "$sum" .summary)
	read -r a b c < <(echo "$line" | sed -n 's/.*: \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped/\1 \2 \3/p')
	p=$((p + ${a:-0})) f=$((f + ${b:-1})) s=$((s + ${c:-0}))
	kern= pmu= secs= n=
	IFS=$'\t' read -r _ kern pmu secs n < <(grep -m1 "^$label"$'\t' "$results/runs.tsv")
	retried=$((retried + ${n:-0}))
	printf '%-30s %-6s %-10s %7s %6s %7s %6s %7s\n' "$label" "${kern:--}" "${pmu:--}" \
		"${a:-?}" "${b:-1}" "${c:-?}" \
		"$(awk -v t="${secs:-0}" 'BEGIN { if (t == "rec") print "rec"; else printf "%.1f", t / 60 }')" "${n:-0}"
done
beside=
for k in qemu-pmu $later; do
	beside="$beside, $k $(cat "$results/build-$k.done" 2>/dev/null)s"
done
log "builds took ${build_secs}s (in the background:${beside#,}), the runs $(( $(date +%s) - start - build_secs ))s," \
	"$retried boots retried; logs in $results"
echo "$p passed, $f failed, $s skipped"
[ "$f" -eq 0 ]
