# Shared settings of the perf-vm scripts; sourced, not run.
# shellcheck shell=bash
set -u
PERFVM=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$PERFVM/../../.." && pwd)
OUT=${OUT:-$TOP/out}
BASE_TARBALL=${BASE_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
BASE_SRC=$OUT/base-src		# pristine base, for the stock kernel
SERIES_SRC=$OUT/linux		# git: commit "base", then our series
BUILD=$OUT/build
JOBS=${JOBS:-$(($(nproc) + 1))}

# Paths of the kernel tree that the series owns.  Directories are replaced
# wholesale (files we do not have are removed), except what KEEP lists.
OWNED_DIRS="kernel/events arch/x86/events tools/testing/selftests/perf_events"
OWNED_FILES="include/linux/perf_event.h include/uapi/linux/perf_event.h
tools/include/uapi/linux/perf_event.h Documentation/userspace-api/perf_event.rst"
KEEP="kernel/events/uprobes.c"

# boot_opts KERNEL [APPEND]: vm.sh options every boot of that kernel
# takes, with APPEND more of its command line.  The debug kernel boots
# with 4-level paging: with 5-level paging (QEMU's max CPU has LA57),
# KASAN's idea of the address space follows the LA57 feature bit, and
# identify_cpu() clears every feature bit for a moment with interrupts
# on, so an interrupt then can see a direct-map address as wild and
# report it (the base tree's, not the perf code's).
boot_opts() {
	local a=${2:-}
	[ "$1" = debug ] && a="no5lvl${a:+ $a}"
	[ -n "$a" ] && printf '%s\n' -a "$a"
	return 0
}

log() { printf 'perf-vm: %s\n' "$*" >&2; }
die() { printf 'perf-vm: error: %s\n' "$*" >&2; exit 1; }

kmake() {
	local src=$1 obj=$2
	shift 2
	local cc=gcc
	command -v ccache >/dev/null && cc="ccache gcc"
	make -C "$src" O="$obj" -j"$JOBS" CC="$cc" LOCALVERSION= "$@"
}
