#!/bin/bash
# Where a guest kernel spends its instructions: boots KERNEL (qemu, stock,
# debug) under QEMU with our PMU and -icount, runs COMMAND in it with the
# TCG plugin profile/insnprof.c counting every translation block's
# executions, and prints the kernel functions by instructions executed.
#   profile.sh KERNEL [PMU] -- COMMAND...
# PMU is none, intel (default), amd or amd-legacy.  The profile covers the
# whole guest run, boot included: profile the same command doing nothing
# too and give both to profile/symbolize.py to see only the work.  The
# raw profile stays in out/profile/KERNEL.txt.
. "$(dirname "$0")/lib.sh"

kernel=${1:?usage: profile.sh KERNEL [PMU] -- COMMAND...}
shift
pmu=intel
if [ "${1:-}" != -- ]; then
	pmu=${1:?usage: profile.sh KERNEL [PMU] -- COMMAND...}
	shift
fi
[ "${1:-}" = -- ] || die "usage: profile.sh KERNEL [PMU] -- COMMAND..."
shift

"$TOP/tools/testing/qemu-pmu/build.sh" >/dev/null || die "building QEMU failed"
dir=$OUT/profile
mkdir -p "$dir"
plugin=$dir/libinsnprof.so
src=$PERFVM/profile/insnprof.c
if [ ! -f "$plugin" ] || [ "$src" -nt "$plugin" ]; then
	# shellcheck disable=SC2046
	gcc -shared -fPIC -O2 -I"$OUT/qemu-pmu/src/include/qemu" \
		$(pkg-config --cflags glib-2.0) -o "$plugin" "$src" \
		$(pkg-config --libs glib-2.0) || die "building the plugin failed"
fi
img=$BUILD/$kernel/arch/x86/boot/bzImage
[ -r "$img" ] || die "no $kernel kernel image: $img"
prof=$dir/$kernel.txt
rm -f "$prof"
PMU=$pmu PERFVM_QEMU_EXTRA="-plugin $plugin,out=$prof" "$PERFVM/vm.sh" -I \
	-k "$img" -s 2 -c "$dir/$kernel.console" -- "$@"
st=$?
[ -s "$prof" ] || die "no profile written (guest status $st)"
"$PERFVM/profile/symbolize.py" "$BUILD/$kernel/vmlinux" "$prof"
exit $st
