#!/bin/bash
# boot-count.sh KERNEL N: boot a kernel N times and say how each boot
# ended, to tell an intermittent boot crash of the kernel from one of the
# QEMU it runs on.  KERNEL is a flavour of build.sh (built if needed); PMU
# chooses the emulated PMU as for vm.sh, PERFVM_QEMU another QEMU binary
# (/usr/bin/qemu-system-x86_64 is Debian's).  Each boot runs "true" at
# -smp 2; vm.sh's own retries are counted here as the failed boots they
# are.  Prints one line:
#   KERNEL PMU QEMU: N boots, R reached the command, C crashed, H hung
# followed by the first splat line of each crash.
. "$(dirname "$0")/lib.sh"

k=${1:?usage: boot-count.sh KERNEL N}
n=${2:?usage: boot-count.sh KERNEL N}
case $k in
debug|kcsan|stock-debug) mem=2048 ;;
*) mem=1024 ;;
esac
"$PERFVM/build.sh" "$k" >/dev/null || die "$k does not build"
[ -n "${PERFVM_QEMU:-}" ] || "$TOP/tools/testing/qemu-pmu/build.sh" >/dev/null ||
	die "qemu-pmu does not build"
img=$BUILD/$k/arch/x86/boot/bzImage
dir=$OUT/boot-count/$k-${PMU:-none}-$(basename "${PERFVM_QEMU:-qemu-pmu}")
rm -rf "$dir"
mkdir -p "$dir"
reached=0 crashed=0 hung=0
splats=
for i in $(seq "$n"); do
	con=$dir/$i.console
	# One attempt each: a boot that fails is counted, not retried.
	PERFVM_BOOT_ATTEMPTS=1 "$PERFVM/vm.sh" -k "$img" -s 2 -m "$mem" -t 300 \
		-c "$con" -o "$dir/$i.out" -- true >/dev/null 2>&1
	if grep -q "perfvm: guest ready" "$con"; then
		reached=$((reached + 1))
	elif [ -e "$con.hung1" ] || ! grep -qE "BUG:|Oops|Kernel panic|general protection" "$con"; then
		hung=$((hung + 1))
	else
		crashed=$((crashed + 1))
		splats="$splats
  boot $i: $(grep -m1 -E "BUG:|Oops|Kernel panic|general protection" "$con" |
			sed 's/^\[[ 0-9.]*\] //')"
	fi
done
echo "$k ${PMU:-none} $(basename "${PERFVM_QEMU:-qemu-pmu}"): $n boots, $reached reached the command, $crashed crashed, $hung hung$splats"
