#!/bin/bash
# Build one kernel flavour incrementally.
#   qemu   our series, qemu fragment           -> out/build/qemu
#   debug  our series, qemu + debug fragments  -> out/build/debug
#   kcsan  our series, qemu + kcsan fragments  -> out/build/kcsan
#   stock  the unmodified base, qemu fragment  -> out/build/stock
#   stock-debug  the base with the debug fragments
# The .config is regenerated only when the fragments change.
. "$(dirname "$0")/lib.sh"

flavour=${1:?usage: build.sh qemu|debug|kcsan|stock|stock-debug}
frags=$PERFVM/config/qemu.config
case "$flavour" in
qemu) src=$SERIES_SRC; frags="$frags $PERFVM/config/ours.config" ;;
debug) src=$SERIES_SRC
	frags="$frags $PERFVM/config/debug.config $PERFVM/config/ours.config" ;;
kcsan) src=$SERIES_SRC
	frags="$frags $PERFVM/config/kcsan.config $PERFVM/config/ours.config" ;;
stock) src=$BASE_SRC; frags="$frags $PERFVM/config/stock.config" ;;
stock-debug) src=$BASE_SRC
	frags="$frags $PERFVM/config/debug.config $PERFVM/config/stock.config" ;;
*) die "unknown flavour $flavour" ;;
esac
obj=$BUILD/$flavour
mkdir -p "$obj"

# shellcheck disable=SC2086
cat $frags >"$obj/fragment.new"
if ! cmp -s "$obj/fragment.new" "$obj/fragment.config" || [ ! -f "$obj/.config" ]; then
	log "configuring $flavour"
	kmake "$src" "$obj" tinyconfig >/dev/null || die "tinyconfig failed"
	"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" \
		"$obj/fragment.new" >/dev/null || die "merge_config failed"
	kmake "$src" "$obj" olddefconfig >/dev/null || die "olddefconfig failed"
	# Every line of the fragments must have survived: a missing
	# dependency silently drops an option.
	bad=0
	# The last fragment that sets an option wins.
	while read -r opt want; do
		if [ "$want" = n ]; then
			grep -q "^$opt=" "$obj/.config" && { log "still set: $opt"; bad=1; }
		else
			grep -qxF "$opt=$want" "$obj/.config" || { log "not in .config: $opt=$want"; bad=1; }
		fi
	done < <(sed -n -e 's/^\(CONFIG_[A-Za-z0-9_]*\)=\(.*\)$/\1 \2/p' \
			-e 's/^# \(CONFIG_[A-Za-z0-9_]*\) is not set$/\1 n/p' "$obj/fragment.new" |
		 awk '{ v[$1] = $2; if (!($1 in o)) { o[$1] = n++; k[n - 1] = $1 } }
		      END { for (i = 0; i < n; i++) print k[i], v[k[i]] }')
	[ $bad = 0 ] || die "fragment for $flavour did not apply"
	mv "$obj/fragment.new" "$obj/fragment.config"
else
	rm -f "$obj/fragment.new"
fi

log "building $flavour kernel"
if ! kmake "$src" "$obj" bzImage >"$obj/build.log" 2>&1; then
	# A shared build host sometimes refuses to fork: retry once.
	if grep -q "Cannot fork\|Resource temporarily unavailable" "$obj/build.log"; then
		kmake "$src" "$obj" bzImage >"$obj/build.log" 2>&1 ||
			{ tail -n 40 "$obj/build.log" >&2; die "$flavour build failed"; }
	else
		grep -E "error|Error" "$obj/build.log" | head -n 40 >&2
		tail -n 20 "$obj/build.log" >&2
		die "$flavour build failed (log: $obj/build.log)"
	fi
fi
grep -E "warning:" "$obj/build.log" | grep -E "kernel/events|arch/x86/events|perf_event" >&2

# The out-of-tree test modules (modules/), built against this kernel
# into modules/RELEASE/ beside the tests, where modules.sh finds them.
if grep -q "^CONFIG_MODULES=y" "$obj/.config"; then
	kmake "$src" "$obj" modules >>"$obj/build.log" 2>&1 ||
		die "$flavour modules failed to build (log: $obj/build.log)"
	m=$obj/testmods
	rm -rf "$m"
	mkdir -p "$m"
	cp "$PERFVM"/modules/Makefile "$PERFVM"/modules/*.c "$m/"
	kmake "$src" "$obj" M="$m" modules >"$m/build.log" 2>&1 ||
		{ cat "$m/build.log" >&2; die "the test modules failed to build for $flavour"; }
	grep -E "warning:" "$m/build.log" >&2
	rel=$(cat "$obj/include/config/kernel.release")
	mkdir -p "$BUILD/modules/$rel"
	cp "$m"/*.ko "$BUILD/modules/$rel/"
fi
echo "$obj/arch/x86/boot/bzImage"
