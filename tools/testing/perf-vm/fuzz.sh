#!/bin/bash
# make fuzz: boot a kernel and run the perf_event fuzzer in it, then judge
# the run: a splat on the console, a hang (the guest not coming back), a
# leak kmemleak reports, or state left behind after every event is closed
# fails it.
#
# usage: fuzz.sh [LABEL]
# Environment (make fuzz passes its variables on):
#   SECONDS_=N       seconds of fuzzing (default 60)
#   SEED=S           the fuzzer's seed (default 1)
#   KERNEL=k         debug (default), qemu, stock or kcsan
#   SMP=n            guest CPUs (default 2)
#   PMU=k            the guest's emulated PMU, as vm.sh takes it (default none)
#   FUZZ_NO_BUILD=1  use the kernel image already built
#   FUZZ_DIR=dir     where the logs go (default out/fuzz)
#   FUZZ_BEFORE=cmd  a guest command to run first, in the same guest, with
#                    an hour more for it (check.sh: test programs, their
#                    kmemleak scan left to the fuzz's)
# Prints "LABEL: P passed, F failed, S skipped" last, as check.sh's runs do;
# the guest's logs are in FUZZ_DIR/LABEL.{out,console}.
. "$(dirname "$0")/lib.sh"

secs=${SECONDS_:-60}
seed=${SEED:-1}
kernel=${KERNEL:-debug}
smp=${SMP:-2}
label=${1:-fuzz-$kernel-smp$smp-seed$seed}
dir=${FUZZ_DIR:-$OUT/fuzz}
bin=$BUILD/fuzz
mkdir -p "$dir" "$bin"

case "$kernel" in
qemu|debug|stock|kcsan) ;;
*) die "KERNEL must be qemu, debug, stock or kcsan" ;;
esac
img=$BUILD/$kernel/arch/x86/boot/bzImage
if [ -z "${FUZZ_NO_BUILD:-}" ]; then
	img=$("$PERFVM/build.sh" "$kernel") || die "building the $kernel kernel failed"
fi
[ -r "$img" ] || die "no $kernel kernel image: $img"
if [ -z "${FUZZ_NO_BUILD:-}" ]; then
	"$TOP/tools/testing/qemu-pmu/build.sh" >/dev/null || die "building our QEMU failed"
fi
gcc -O2 -g -Wall -static -pthread -isystem "$TOP/tools/include/uapi" \
	-o "$bin/perf_fuzz" "$PERFVM/fuzz/perf_fuzz.c" || die "cannot build the fuzzer"

# The guest has the fuzzing time, a kmemleak scan or two and the boot; a
# debug or KCSAN kernel boots and scans slowly.
tmo=$((secs * 3 + 600))
first=
if [ -n "${FUZZ_BEFORE:-}" ]; then
	first="$FUZZ_BEFORE; "
	tmo=$((tmo + 3600))
fi
log "fuzzing $kernel at -smp $smp for ${secs}s, seed $seed"
# A task a signal kills (the fuzzer, or a shell of the run that no
# event may touch) is named on the console with its registers.
mapfile -t opts < <(boot_opts "$kernel" print-fatal-signals=1)
"$PERFVM/vm.sh" "${opts[@]}" -k "$img" -s "$smp" -m 2048 -t "$tmo" \
	-c "$dir/$label.console" -o "$dir/$label.out" -- \
	"${first}sh $PERFVM/fuzz-guest.sh $bin/perf_fuzz $seed $secs" >/dev/null
st=$?
"$PERFVM/summarize.py" "$label" "$dir/$label.out" "$dir/$label.console" "$st"
