#!/bin/bash
# Build the perf_events kselftests (from the series tree) into
# out/build/selftests, together with the script tests of tests/ and, in
# final/, those of tests/final/ (tests that leave the guest unusable, a
# CPU locked up: check.sh runs each last in its guest, never in the lists
# below).
#   build-tests.sh            build
#   build-tests.sh --list     the test programs, in run order
#   build-tests.sh --list-smp those that also run at -smp 4
. "$(dirname "$0")/lib.sh"

dir=$SERIES_SRC/tools/testing/selftests/perf_events
dst=$BUILD/selftests
# The base tree's own perf_events selftests that run here as on stock.
BASE_TESTS="mmap sigtrap_threads remove_on_exec watermark_signal"
vars() { make -s -C "$dir" --no-print-directory -f Makefile -f - "$@" <<'MK'
print-%:
	@echo $($*)
MK
}
case "${1:-}" in
--list)
	for t in $(vars print-TEST_GEN_PROGS 2>/dev/null); do basename "$t"; done
	for t in "$PERFVM"/tests/*.sh; do [ -e "$t" ] && basename "$t"; done
	for t in $BASE_TESTS; do echo "base_$t"; done
	exit 0 ;;
--list-smp)
	for t in $(vars print-TEST_SMP_PROGS 2>/dev/null); do basename "$t"; done
	exit 0 ;;
esac

mkdir -p "$dst"
[ -f "$dir/Makefile" ] || exit 0
make -s -C "$dir" OUTPUT="$dst" KHDR_INCLUDES="-isystem $SERIES_SRC/tools/include/uapi" \
	>"$dst/build.log" 2>&1 || { cat "$dst/build.log" >&2; die "selftests failed to build"; }
grep -E "warning" "$dst/build.log" >&2
for t in "$PERFVM"/tests/*.sh; do
	[ -e "$t" ] && install -m 755 "$t" "$dst/"
done
install -D -m 644 "$PERFVM/tests/lib/tap.sh" "$dst/lib/tap.sh"
install -D -m 644 "$PERFVM/tests/lib/pmu_open.py" "$dst/lib/pmu_open.py"
install -D -m 644 "$PERFVM/tests/lib/cpu.sh" "$dst/lib/cpu.sh"
# pmu_sysfs.sh's descriptions of the stock kernel's PMUs.
rm -rf "$dst/pmu-sysfs"
install -D -m 644 -t "$dst/pmu-sysfs" "$PERFVM"/tests/pmu-sysfs/*
mkdir -p "$dst/final"
for t in "$PERFVM"/tests/final/*.sh; do
	[ -e "$t" ] && install -m 755 "$t" "$dst/final/"
done
# The base tree's tests, built by the pristine base's own Makefile (its
# flags matter: the tests rely on -O0) against the series' exported uapi
# headers, as kselftests are built.
make -s -C "$SERIES_SRC" O="$BUILD/hdr" INSTALL_HDR_PATH="$BUILD/hdr/usr" \
	headers_install >"$dst/hdr.log" 2>&1 ||
	{ cat "$dst/hdr.log" >&2; die "headers_install failed"; }
mkdir -p "$dst/base"
make -s -C "$BASE_SRC/tools/testing/selftests/perf_events" OUTPUT="$dst/base" \
	KHDR_INCLUDES="-isystem $BUILD/hdr/usr/include" >"$dst/base.log" 2>&1 ||
	{ cat "$dst/base.log" >&2; die "the base tree's perf_events tests failed to build"; }
for t in $BASE_TESTS; do
	install -m 755 "$dst/base/$t" "$dst/base_$t"
done
# The runner's helpers: the slowness calibration and the alarm() scaler.
mkdir -p "$dst/guest"
gcc -O2 -Wall -o "$dst/guest/calibrate" "$PERFVM/guest/calibrate.c" ||
	die "cannot build the calibration"
gcc -O2 -Wall -shared -fPIC -o "$dst/guest/timeout_scale.so" \
	"$PERFVM/guest/timeout_scale.c" || die "cannot build timeout_scale.so"
# Programs the script tests drive, and their sources (gdb lists lines).
for c in "$PERFVM"/tests/*.c; do
	[ -e "$c" ] || continue
	cp "$c" "$dst/"
	gcc -g -O0 -o "$dst/$(basename "$c" .c)" "$c" || die "cannot build $c"
done
exit 0
