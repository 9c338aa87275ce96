#!/bin/bash
# Install the Debian packages the build, the guest and the tests need.
# Does nothing when all of them are present.
. "$(dirname "$0")/lib.sh"

PKGS="linux-source-6.12 qemu-system-x86 gcc make flex bison libelf-dev
libssl-dev bc cpio ccache busybox-static manpages-dev kmod rsync xz-utils
gawk git python3 linux-perf gdb file libc6-dev gnuplot-nox bpftrace
bpfcc-tools python3-ply python3-git"

missing=
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
log "installing:$missing"
sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q >/dev/null || log "apt-get update failed; trying anyway"
# shellcheck disable=SC2086
$sudo apt-get install -y -q --no-install-recommends $missing >/dev/null ||
	die "apt-get install failed for:$missing"
