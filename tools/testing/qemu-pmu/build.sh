#!/bin/bash
# make qemu-pmu: Debian's QEMU 7.2 with our emulated x86 PMU and our fix to
# TCG's handling of code written while translated (patches/), built into
# out/qemu-pmu/build/qemu-system-x86_64 (x86_64-softmmu only, the devices
# of devices.mak, virtfs on, KVM off; firmware comes from Debian's
# packages through -L).
#
# The source is the qemu source package of the archive this machine uses
# (a deb-src line for the same archive is added when missing), unpacked
# with Debian's patches applied, kept as a git tree (tag perfvm-debian), with
# patches/*.patch applied on top.  Incremental: when the patches change,
# only the files they touch are put back and patched again, and ninja and
# ccache rebuild only what that changed.  Prints the binary's path.
. "$(dirname "$0")/../perf-vm/lib.sh"

QP=$TOP/tools/testing/qemu-pmu
dst=$OUT/qemu-pmu
src=$dst/src
bld=$dst/build
bin=$bld/qemu-system-x86_64
# Stamps live beside the tree: the tree's untracked files are ours to clean.
version=$dst/.debian-version
applied=$dst/.patches-applied
mkdir -p "$dst"

PKGS="dpkg-dev ninja-build meson pkg-config libglib2.0-dev libpixman-1-dev
libcap-ng-dev libattr1-dev libfdt-dev zlib1g-dev python3-venv ccache
qemu-system-data seabios ipxe-qemu"
missing=
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo
if [ -n "$missing" ]; then
	log "installing:$missing"
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q \
		--no-install-recommends $missing >/dev/null ||
		die "apt-get install failed for:$missing"
fi

# The source package, once.
if [ ! -f "$version" ] || [ ! -d "$src/.git" ]; then
	if ! grep -rqs '^Types:.*deb-src\|^deb-src' /etc/apt/sources.list /etc/apt/sources.list.d/; then
		f=/etc/apt/sources.list.d/debian.sources
		[ -r "$f" ] || die "no $f to derive a deb-src line from"
		log "adding a deb-src line for the archive of $f"
		sed 's/^Types: deb$/Types: deb-src/' "$f" |
			$sudo tee /etc/apt/sources.list.d/perfvm-deb-src.sources >/dev/null
		$sudo apt-get update -q >/dev/null || die "apt-get update failed"
	fi
	rm -rf "$dst/dl" "$src" "$src.tmp" "$version" "$applied"
	mkdir -p "$dst/dl"
	log "fetching the qemu source package"
	(cd "$dst/dl" && apt-get source -q --download-only qemu >/dev/null 2>&1) ||
		{ $sudo apt-get update -q >/dev/null;
		  (cd "$dst/dl" && apt-get source -q --download-only qemu >/dev/null 2>&1); } ||
		die "apt-get source qemu failed"
	dsc=$(ls "$dst"/dl/qemu_*.dsc | head -n 1)
	log "unpacking $(basename "$dsc")"
	dpkg-source -q -x "$dsc" "$src.tmp" >/dev/null 2>&1 || die "dpkg-source -x failed"
	(
		cd "$src.tmp" &&
		git init -q -b perfvm &&
		git config user.name perf-vm && git config user.email perf-vm@localhost &&
		git add -A -f . >/dev/null &&
		git commit -q -m "$(basename "$dsc" .dsc), Debian's patches applied" &&
		git tag perfvm-debian
	) || die "cannot make a git tree of the qemu source"
	mv "$src.tmp" "$src"
	basename "$dsc" .dsc >"$version"
	# dpkg-source leaves the upstream tarball beside the tree.
	rm -rf "$dst/dl" "$dst"/qemu_*
fi

# Our patches, applied again when they change.
sum=$(cat "$QP"/patches/*.patch | sha256sum | cut -d' ' -f1)
if [ "$(cat "$applied" 2>/dev/null)" != "$sum" ]; then
	rm -f "$applied"
	log "applying $(ls "$QP"/patches/*.patch | wc -l) patches to $(cat "$version")"
	(
		cd "$src" &&
		git reset -q perfvm-debian &&
		git diff --name-only | xargs -r git checkout -q perfvm-debian -- &&
		git ls-files -z --others | xargs -0 -r rm -f &&
		git apply --whitespace=nowarn "$QP"/patches/*.patch
	) || die "our patches do not apply to $(cat "$version")"
	echo "$sum" >"$applied"
fi

# Only what the guests use (vm.sh): the pc machine, ISA serial ports and
# virtio-9p (devices.mak), no image formats but raw and qcow2, no
# vhost, TPM, user networking or audio: a fifth of the objects fewer
# than QEMU's default selection (944 of 1230 compiled).  No debug
# information either (--enable-debug-info for gdb on QEMU).
devices=$src/configs/devices/x86_64-softmmu/perfvm.mak
cmp -s "$QP/devices.mak" "$devices" || cp "$QP/devices.mak" "$devices"
conf="--target-list=x86_64-softmmu --enable-virtfs --disable-kvm
--disable-install-blobs --disable-docs --disable-gtk --disable-sdl
--disable-vnc --disable-opengl --disable-spice --disable-curses
--disable-tools --disable-guest-agent --disable-werror --disable-debug-info
--without-default-devices --with-devices-x86_64=perfvm
--disable-qcow1 --disable-vdi --disable-vvfat --disable-qed
--disable-parallels --disable-dmg --disable-bochs --disable-cloop
--disable-replication --disable-live-block-migration --disable-tpm
--disable-vhost-user --disable-vhost-kernel --disable-vhost-net
--disable-vhost-crypto --disable-vhost-vdpa --disable-vhost-user-blk-server
--disable-vduse-blk-export --disable-slirp --disable-multiprocess
--audio-drv-list="
if [ ! -f "$bld/build.ninja" ] || [ "$(cat "$bld/.perfvm-conf" 2>/dev/null)" != "$conf" ]; then
	log "configuring qemu"
	rm -rf "$bld"
	mkdir -p "$bld"
	cc=gcc
	command -v ccache >/dev/null && cc="ccache gcc"
	# shellcheck disable=SC2086
	(cd "$bld" && "$src/configure" --cc="$cc" $conf >configure.log 2>&1) ||
		{ tail -n 30 "$bld/configure.log" >&2; die "qemu configure failed"; }
	echo "$conf" >"$bld/.perfvm-conf"
fi
log "building qemu-system-x86_64 with the emulated PMU"
# ccache: the same objects wherever the tree is cloned.
CCACHE_BASEDIR=$dst CCACHE_NOHASHDIR=1 \
	ninja -C "$bld" -j"$JOBS" qemu-system-x86_64 >"$dst/build.log" 2>&1 ||
	{ tail -n 40 "$dst/build.log" >&2; die "qemu build failed"; }
echo "$bin"
