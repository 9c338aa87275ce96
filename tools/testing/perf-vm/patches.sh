#!/bin/bash
# make patches: write the series planned in tools/testing/perf-vm/series
# to out/patches/ (cover letter first), check that git am of it on the
# base gives the tested tree, and run checkpatch --strict on every patch
# (series.py).
#
#   CHECK=build  also build every step of the series with the qemu
#                configuration, incrementally, and name the first step
#                that does not build
#   CHECK=boot   as build, then boot the last step and run the smoke test
. "$(dirname "$0")/lib.sh"

check=${CHECK:-}
case "$check" in
'' | build | boot) ;;
*) die "CHECK=$check: build or boot" ;;
esac

# The series is sent and signed off by whoever runs this: git config's
# user, or GIT_AUTHOR_NAME and GIT_AUTHOR_EMAIL.
[ -n "${GIT_AUTHOR_NAME:-}" ] || git -C "$TOP" config user.name >/dev/null ||
	die "git config user.name is not set: the series needs a sender"
[ -n "${GIT_AUTHOR_EMAIL:-}" ] || git -C "$TOP" config user.email >/dev/null ||
	die "git config user.email is not set: the series needs a sender"

python3 "$PERFVM/series.py" --top "$TOP" --src "$SERIES_SRC" --out "$OUT" \
	--plan "$PERFVM/series" --exceptions "$PERFVM/checkpatch-exceptions" ||
	exit 1
[ -n "$check" ] || exit 0

# Build every step in one work tree that persists between runs, so that
# a checkout touches only the files that differ and make rebuilds only
# what they feed.
work=$OUT/patches-build
obj=$BUILD/series
if ! git -C "$work" rev-parse --git-dir >/dev/null 2>&1; then
	rm -rf "$work"
	git -C "$SERIES_SRC" worktree prune
	git -C "$SERIES_SRC" worktree add -q --detach "$work" base ||
		die "cannot create a work tree of the base"
fi

# The configuration: the qemu fragments on the tested tree; each step
# takes it through olddefconfig (options a step does not know drop out).
cfg=$obj/series.config
mkdir -p "$obj"
"$PERFVM/build.sh" qemu >/dev/null || die "the tested tree does not build"
cp "$BUILD/qemu/.config" "$cfg"

commits=$(git -C "$SERIES_SRC" rev-list --reverse base..patches)
n=0
total=$(echo "$commits" | wc -l)
start=$(date +%s)
for c in $commits; do
	n=$((n + 1))
	subject=$(git -C "$SERIES_SRC" log -1 --format=%s "$c")
	git -C "$work" checkout -q --detach "$c" ||
		die "cannot check out patch $n"
	cp "$cfg" "$obj/.config"
	t0=$(date +%s)
	if ! kmake "$work" "$obj" olddefconfig >"$obj/step.log" 2>&1 ||
	   ! kmake "$work" "$obj" bzImage >>"$obj/step.log" 2>&1; then
		grep -E "error|Error" "$obj/step.log" | head -n 20 >&2
		die "patch $n/$total does not build: $subject (log: $obj/step.log)"
	fi
	if grep -E "warning:" "$obj/step.log" | grep -E "kernel/events|arch/x86/events|perf_event" >&2; then
		die "patch $n/$total builds with warnings: $subject"
	fi
	printf 'perf-vm: built %2d/%d in %4ds: %s\n' "$n" "$total" \
		$(($(date +%s) - t0)) "$subject" >&2
done
log "every patch builds ($(($(date +%s) - start)) s)"
[ "$check" = boot ] || exit 0

img=$obj/arch/x86/boot/bzImage
"$PERFVM/build-tests.sh" >/dev/null || die "the selftests do not build"
"$PERFVM/vm.sh" -k "$img" -s 2 -t 300 -- \
	"cd $BUILD/selftests && ./smoke" || die "the last patch does not boot and pass the smoke test"
log "the last patch boots and passes the smoke test"
