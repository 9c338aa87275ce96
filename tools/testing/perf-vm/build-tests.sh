#!/bin/bash
# Build the perf_events kselftests (from the series tree) into
# out/build/selftests, together with the script tests of tests/.
#   build-tests.sh            build
#   build-tests.sh --list     the test programs, in run order
#   build-tests.sh --list-smp those that also run at -smp 4
. "$(dirname "$0")/lib.sh"

dir=$SERIES_SRC/tools/testing/selftests/perf_events
dst=$BUILD/selftests
# The base tree's own perf_events selftests that run here as on stock.
BASE_TESTS="mmap"
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
# The base tree's tests, built from the pristine base with our uapi header.
for t in $BASE_TESTS; do
	gcc -O2 -Wall -isystem "$SERIES_SRC/tools/include/uapi" \
		-I"$BASE_SRC/tools/testing/selftests" \
		-o "$dst/base_$t" "$BASE_SRC/tools/testing/selftests/perf_events/$t.c" \
		-lpthread || die "cannot build the base tree's $t test"
done
# Programs the script tests drive, and their sources (gdb lists lines).
for c in "$PERFVM"/tests/*.c; do
	[ -e "$c" ] || continue
	cp "$c" "$dst/"
	gcc -g -O0 -o "$dst/$(basename "$c" .c)" "$c" || die "cannot build $c"
done
exit 0
