#!/bin/bash
# make distro-check: the series under Debian's own configuration.
#
#  1. Debian's .config for this base (the linux-headers-<version>-amd64
#     package of the installed linux-source-6.12) goes through olddefconfig
#     in the base tree (stock) and in ours.  Every option stock keeps, ours
#     must keep with the same value, except those distro-expected lists
#     (each with the issue that brings it back); a listed option that is
#     kept again is a failure too, so that the list stays true.
#  2. Every object of that configuration, built in or module, whose source
#     uses the perf API (perf_event_*, perf_pmu_*, hw_breakpoint, the
#     x86 drivers' headers, a tracepoint definition) is compiled in our
#     tree, with the whole of kernel/events and arch/x86/events.  An object
#     that fails is compiled in the base tree too: failing only in ours
#     is a failure.
#  3. Every symbol those objects take from stock's perf implementation
#     (kernel/events, arch/x86/events) must be defined by ours, and
#     exported by ours where a module takes it.
#
# Everything lives in out/distro; reruns are incremental (ccache and
# kbuild).  Environment: DISTRO_CONFIG=path uses that .config instead of
# Debian's; DISTRO_ONLY=config stops after step 1.
. "$(dirname "$0")/lib.sh"

DIST=$OUT/distro
mkdir -p "$DIST"
# pahole: Debian's configuration has BTF, which olddefconfig keeps only
# where pahole is.
if ! command -v pahole >/dev/null; then
	log "installing: dwarves"
	sudo=
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q \
		--no-install-recommends dwarves >/dev/null || die "cannot install dwarves"
fi
fail=0
bad() { printf 'distro-check: FAIL %s\n' "$*"; fail=1; }
say() { printf 'distro-check: %s\n' "$*"; }

# --- Debian's configuration --------------------------------------------
debian_config() {
	local v pkg deb
	v=$(dpkg-query -W -f='${Version}' linux-source-6.12) ||
		die "linux-source-6.12 is not installed (make prepare)"
	pkg=linux-headers-${v%%-*}+deb12-amd64
	deb=$(ls "$DIST"/deb/"${pkg}"_*.deb 2>/dev/null | head -1)
	if [ -z "$deb" ]; then
		mkdir -p "$DIST/deb"
		(cd "$DIST/deb" && apt-get download "$pkg" >/dev/null 2>&1) ||
			die "cannot download $pkg"
		deb=$(ls "$DIST"/deb/"${pkg}"_*.deb | head -1)
	fi
	rm -rf "$DIST/deb/x"
	dpkg-deb -x "$deb" "$DIST/deb/x" || die "cannot unpack $deb"
	cp "$DIST/deb/x/usr/src/$pkg/.config" "$DIST/debian.config"
	rm -rf "$DIST/deb/x"
	echo "$pkg"
}

if [ -n "${DISTRO_CONFIG:-}" ]; then
	cp "$DISTRO_CONFIG" "$DIST/debian.config"
	say "configuration: $DISTRO_CONFIG"
else
	say "configuration: $(debian_config)"
fi

# olddefconfig in one tree; the config lines it keeps, sorted.
configure() {	# $1: name, $2: source tree
	local obj=$DIST/$1 tools
	mkdir -p "$obj"
	# The compiler and pahole decide options too.
	tools="$(gcc --version | head -1); $(pahole --version)"
	if ! cmp -s "$DIST/debian.config" "$obj/debian.config" ||
	   [ "$tools" != "$(cat "$obj/.perfvm-tools" 2>/dev/null)" ] ||
	   [ ! -f "$obj/.config" ] || [ "$2/Makefile" -nt "$obj/.config" ] ||
	   [ -n "$(find "$2" -name 'Kconfig*' -newer "$obj/.config" -print -quit)" ]; then
		cp "$DIST/debian.config" "$obj/.config"
		kmake "$2" "$obj" olddefconfig >/dev/null 2>"$obj/olddefconfig.log" ||
			die "olddefconfig failed in $1 (see $obj/olddefconfig.log)"
		cp "$DIST/debian.config" "$obj/debian.config"
		echo "$tools" >"$obj/.perfvm-tools"
	fi
	grep -E '^CONFIG_|^# CONFIG_.* is not set' "$obj/.config" |
		sed -E 's/^# (CONFIG_[A-Za-z0-9_]+) is not set/\1=n/' |
		LC_ALL=C sort >"$obj/options"
}

configure stock "$BASE_SRC"
configure ours "$SERIES_SRC"

# Options each tree sets (not =n), as NAME=VALUE.
set_opts() { grep -v '=n$' "$DIST/$1/options"; }
expected=$(grep -Ev '^#|^$' "$PERFVM/distro-expected" | awk '{print $1}')
lost=$(LC_ALL=C comm -23 <(set_opts stock) <(set_opts ours) | cut -d= -f1)
gained=$(LC_ALL=C comm -13 <(set_opts stock) <(set_opts ours))
for o in $lost; do
	theirs=$(grep "^$o=" "$DIST/stock/options")
	ours=$(grep "^$o=" "$DIST/ours/options" || echo "$o=n")
	if printf '%s\n' "$expected" | grep -qx "$o"; then
		say "expected: $theirs in stock, ${ours#*=} in ours"
	else
		bad "config: $theirs in stock, ${ours#*=} in ours"
	fi
done
for o in $expected; do
	printf '%s\n' "$lost" | grep -qx "$o" ||
		bad "config: $o is listed in distro-expected but ours keeps it"
done
[ -n "$gained" ] && say "ours adds: $(echo $gained)"
# What the base itself cannot keep here (tools this machine lacks): the
# same in both trees, shown so that nobody mistakes it for the series'.
env_lost=$(LC_ALL=C comm -23 \
	<(grep -E '^CONFIG_' "$DIST/debian.config" | LC_ALL=C sort) \
	<(grep -E '^CONFIG_' "$DIST/stock/.config" | LC_ALL=C sort) | cut -d= -f1)
[ -n "$env_lost" ] && say "lost by the base here too (not the series'): $(echo $env_lost)"
say "config: $(wc -l <"$DIST/ours/options") options, $(echo "$lost" | grep -c .) lost, $(echo "$gained" | grep -c .) added"

if [ "${DISTRO_ONLY:-}" = config ]; then
	[ $fail = 0 ] && say "PASS (configuration only)"
	exit $fail
fi

# --- the objects of this configuration ----------------------------------
# kbuild's dry run lists every compile of the configuration without
# running it: "-c -o OBJ SRC" on each command, -DMODULE on modules'.  It
# lists only what is out of date, so it runs in an object tree of its
# own where nothing is ever built (DIR.list, prepared with the same
# .config), whatever the state of the one the objects are compiled in.
objects() {	# $1: name, $2: source tree; writes $DIST/$1/objects
	local obj=$DIST/$1 list=$DIST/$1.list
	if [ ! -s "$obj/objects" ] || ! cmp -s "$obj/.config" "$list/.config"; then
		say "$1: listing the objects of the configuration"
		mkdir -p "$list"
		cp "$obj/.config" "$list/.config"
		kmake "$2" "$list" prepare >"$list/prepare.log" 2>&1 ||
			die "prepare failed in $list (see $list/prepare.log)"
		# prepare may rewrite the .config: keep the one compared.
		cp "$obj/.config" "$list/.config"
		kmake "$2" "$list" -n -k vmlinux modules 2>/dev/null |
			awk '/ -c -o [^ ]+\.o / {
				mod = / -DMODULE / ? "m" : "y"
				s = ""
				for (i = 2; i + 2 <= NF; i++)
					if ($i == "-o" && $(i - 1) == "-c") {
						o = $(i + 1); s = $(i + 2)
						sub(/[;'"'"']+$/, "", s)
					}
				if (s ~ /\.c$/ && o !~ /^scripts\/|^tools\//) print mod, o, s
			}' | LC_ALL=C sort -u -k2,2 >"$obj/objects.new"
		mv "$obj/objects.new" "$obj/objects"
	fi
}

# Both trees: ours compiles the objects, the base the failures to compare
# and its perf implementation for the symbols.
for t in ours:$SERIES_SRC stock:$BASE_SRC; do
	say "${t%%:*}: preparing the tree"
	kmake "${t#*:}" "$DIST/${t%%:*}" prepare >"$DIST/${t%%:*}/prepare.log" 2>&1 ||
		die "prepare failed in ${t%%:*} (see $DIST/${t%%:*}/prepare.log)"
done
objects ours "$SERIES_SRC"

# Sources that use the perf API: the words below, or a header of it.
PERF_RE='\<(perf_[a-z0-9_]+|x86_perf_[a-z_]+|x86_pmu|hw_breakpoint|register_(user|wide|kernel)_hw_breakpoint|CREATE_TRACE_POINTS|X86_CONFIG)\>|events/perf_event\.h'
(
	cd "$SERIES_SRC" &&
	awk '{print $3}' "$DIST/ours/objects" | sed "s|^$SERIES_SRC/||" |
		xargs -r grep -lE "$PERF_RE" 2>/dev/null
) | LC_ALL=C sort -u >"$DIST/ours/perf-sources"
awk -v top="$SERIES_SRC/" 'NR == FNR { use[$1] = 1; next }
	{ s = $3; sub("^" top, "", s)
	  if (use[s] || s ~ /^(kernel\/events|arch\/x86\/events)\//) print }' \
	"$DIST/ours/perf-sources" "$DIST/ours/objects" >"$DIST/ours/perf-objects"
n=$(wc -l <"$DIST/ours/perf-objects")
say "ours: $(wc -l <"$DIST/ours/objects") objects in the configuration, $n use the perf API"

# kbuild's single targets, relative to the object tree, many per run.
build_objects() {	# $1: name, $2: source tree, $3: list "mod obj src"; prints failed objects
	local obj=$DIST/$1
	awk '{print $2}' "$3" | sed "s|^$obj/||" >"$obj/targets"
	xargs -r -n 200 sh -c 's=$0 o=$1 j=$2 c=$3; shift 3
		make -s -C "$s" O="$o" -j"$j" -k CC="$c" LOCALVERSION= "$@" 2>&1 || true' \
		"$2" "$obj" "$JOBS" "$(command -v ccache >/dev/null && echo 'ccache gcc' || echo gcc)" \
		<"$obj/targets" >"$obj/build.log"
	{
		while read -r t; do
			[ -f "$obj/$t" ] || echo "$t"
		done <"$obj/targets"
		# An object that exists may be a stale one: the log says.
		sed -n 's/^make.*\*\*\* \[[^]]*: \([^] ]*\.o\)\] Error.*/\1/p' "$obj/build.log"
	} | LC_ALL=C sort -u
}

say "ours: compiling $n objects"
start=$SECONDS
failed=$(build_objects ours "$SERIES_SRC" "$DIST/ours/perf-objects")
say "ours: compiled in $((SECONDS - start)) s"
if [ -n "$failed" ]; then
	say "stock: compiling the $(echo "$failed" | wc -l) objects that failed"
	printf '%s\n' "$failed" | awk '{print "y", $1, "-"}' >"$DIST/stock/retry"
	stock_failed=$(build_objects stock "$BASE_SRC" "$DIST/stock/retry")
	for t in $failed; do
		if printf '%s\n' "$stock_failed" | grep -qx "$t"; then
			say "not built by the base either: $t"
		else
			bad "compile: $t (see $DIST/ours/build.log)"
		fi
	done
fi

# --- symbols ---------------------------------------------------------------
# Stock's perf implementation, compiled whole (built-in and modules).
say "stock: compiling kernel/events and arch/x86/events"
kmake "$BASE_SRC" "$DIST/stock" -k kernel/events/ arch/x86/events/ \
	>"$DIST/stock/perf.log" 2>&1 || bad "stock's perf implementation does not build here (see $DIST/stock/perf.log)"

defined() {	# $@: objects; prints the symbols they define
	nm --defined-only "$@" 2>/dev/null | awk 'NF == 3 && $2 ~ /[A-Z]/ {print $3}' | LC_ALL=C sort -u
}
impl_objs() {	# $1: object tree
	find "$1/kernel/events" "$1/arch/x86/events" -name '*.o' \
		! -name '*.mod.o' ! -name 'built-in*' ! -name '*.lto.o' 2>/dev/null
}
# shellcheck disable=SC2046
defined $(impl_objs "$DIST/stock") >"$DIST/stock/perf-defined"
# shellcheck disable=SC2046
defined $(impl_objs "$DIST/ours") >"$DIST/ours/perf-defined"
exported() {	# $@: objects; prints the symbols they export
	nm --defined-only "$@" 2>/dev/null |
		awk 'NF == 3 && sub(/^__export_symbol_/, "", $3) {print $3}' | LC_ALL=C sort -u
}
# shellcheck disable=SC2046
exported $(impl_objs "$DIST/stock") >"$DIST/stock/perf-exported"
# shellcheck disable=SC2046
exported $(impl_objs "$DIST/ours") >"$DIST/ours/perf-exported"
# Every symbol defined anywhere in what was compiled of ours.
awk -v d="$DIST/ours/" '{print d $2}' "$DIST/ours/perf-objects" | xargs -r nm --defined-only 2>/dev/null |
	awk 'NF == 3 && $2 ~ /[A-Z]/ {print $3}' | LC_ALL=C sort -u >"$DIST/ours/all-defined"

# Each object's undefined symbols, against what stock's perf code defines
# (and exports) and what ours does.
while read -r mod o src; do
	[ -f "$DIST/ours/$o" ] || continue
	nm --undefined-only "$DIST/ours/$o" 2>/dev/null |
		awk -v m="$mod" -v o="$o" '{print m, o, $2}'
done <"$DIST/ours/perf-objects" >"$DIST/ours/undefined"
awk -v S="$DIST/stock/perf-defined" -v SE="$DIST/stock/perf-exported" \
    -v D="$DIST/ours/perf-defined" -v A="$DIST/ours/all-defined" \
    -v E="$DIST/ours/perf-exported" '
	BEGIN {
		while ((getline l < S) > 0) sdef[l] = 1
		while ((getline l < SE) > 0) sexp[l] = 1
		while ((getline l < D) > 0) odef[l] = 1
		while ((getline l < A) > 0) oall[l] = 1
		while ((getline l < E) > 0) oexp[l] = 1
	}
	!sdef[$3] { next }
	!odef[$3] && !oall[$3] {
		print "symbol: " $2 " takes " $3 ", which stock'"'"'s perf code defines and ours does not"
		next
	}
	$1 == "m" && sexp[$3] && !oexp[$3] {
		print "symbol: module object " $2 " takes " $3 ", which ours does not export"
	}' "$DIST/ours/undefined" | LC_ALL=C sort -u >"$DIST/ours/missing"
missing=$(wc -l <"$DIST/ours/missing")
while read -r l; do bad "$l"; done <"$DIST/ours/missing"
say "symbols: $missing missing"

if [ $fail = 0 ]; then
	say "PASS"
else
	say "FAILED"
fi
exit $fail
