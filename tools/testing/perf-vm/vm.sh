#!/bin/bash
# Boot a kernel under QEMU TCG with the host's root shared read-only over
# virtio-9p, run one shell command in the guest and pass its exit status back.
#
# usage: vm.sh -k BZIMAGE [-s SMP] [-m MEM] [-t SECONDS] [-c CONSOLE_LOG]
#              [-o OUTPUT_LOG] [-a EXTRA_APPEND] [-I] -- COMMAND...
#   -I   run with -icount shift=0,sleep=off (deterministic guest clock)
# The command's output (second serial port) goes to stdout and, with -o, to a
# file; kernel messages go to the console log.  Exit status: the command's,
# or 124 when the guest did not finish in time, 125 when it died without
# reporting a status.  A guest that does not get to the command within
# PERFVM_BOOT_LIMIT seconds (default 200), or that dies before it, is booted
# again, up to three times.
#
# Every run uses our QEMU (make qemu-pmu builds it into out/qemu-pmu):
# Debian's 7.2 with our emulated PMU and a fix to TCG that guests patching
# live code need (see qemu-pmu/patches/0009).
# PMU=none (the default) leaves the emulated PMU off: no hardware events.
# PMU=intel turns it on, on an Intel CPU with architectural perfmon v4: the
# TCG "max" CPU as GenuineIntel family 6 model 0xF0, a model number no
# driver table of Linux 6.12 names, so drivers take their generic paths.
# PMU=intel-v1, -v2, -v3 or -v5 is the same CPU with that version of
# architectural perfmon instead (the emulated PMU's pmu-version).
# PMU=amd runs it on an AMD CPU (family 0x19 model 0x11, a Zen 4) with
# PerfCtrExtCore and PerfMonV2: six counters with global control, and
# the L3, data fabric and memory controller counters (patch 0030).
# PMU=amd-legacy is the same CPU without either: the four K7 counters.
# PMU=amd-15h is an AMD family 0x15 model 0x60 (Carrizo, Excavator
# cores) with PerfCtrExtCore (six counters, no PerfMonV2) and the
# accumulated power interface (patch 0032), which no later family has.
# PMU=intel-nomsr and amd-nomsr are the intel and amd CPUs whose PMU
# registers raise #GP although CPUID describes them (pmu-msrs=off).
# PMU=amd-late and amd-legacy-late are the amd and amd-legacy CPUs whose
# PMIs arrive late, as Zen's may: each counter's PMI PERFVM_PMI_DELAY
# (default 5000) retired instructions after its overflow (pmi-delay).
# PMU=skx, icx, spr and adl are named Intel models, with their part's PMU
# (qemu-pmu/patches/0014): Skylake-SP (model 0x55), Ice Lake-SP (0x6A),
# Sapphire Rapids (0x8F) and the hybrid Alder Lake (0x97), whose first
# half of the vCPUs are P-cores and the others E-cores.
# PERFVM_QEMU names another QEMU binary.
set -u
here=$(cd "$(dirname "$0")" && pwd)
kernel= smp=2 mem=1024 timeout=600 console= output= append= icount=
boot_limit=${PERFVM_BOOT_LIMIT:-200}
# Boots tried before giving up (boot-count.sh counts single boots).
attempts=${PERFVM_BOOT_ATTEMPTS:-3}
while getopts "k:s:m:t:c:o:a:I" opt; do
	case $opt in
	k) kernel=$OPTARG ;;
	s) smp=$OPTARG ;;
	m) mem=$OPTARG ;;
	t) timeout=$OPTARG ;;
	c) console=$OPTARG ;;
	o) output=$OPTARG ;;
	a) append=$OPTARG ;;
	I) icount=1 ;;
	*) echo "vm.sh: bad option" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ "${1:-}" = "--" ] && shift
if [ -z "$kernel" ] || [ ! -r "$kernel" ]; then
	echo "vm.sh: no kernel image (-k): '$kernel'" >&2
	exit 2
fi
[ $# -gt 0 ] || { echo "vm.sh: no command" >&2; exit 2; }

# The repository is shared a second time, so that the guest still sees it
# when it lives under a directory the guest covers with a tmpfs (/tmp).
top=$(cd "$here/../../.." && pwd)
mkdir -p "$top/out/vm"
work=$(mktemp -d "$top/out/vm/run.XXXXXX")
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT
printf '%s\n' "$*" >"$work/cmd.sh"
chmod 644 "$work/cmd.sh"
[ -n "$console" ] || console=$work/console.log
: >"$console"
out=$work/out.log
: >"$out"

qemu=${PERFVM_QEMU:-$top/out/qemu-pmu/build/qemu-system-x86_64}
cpu=max
# Built without its firmware: Debian's, from the packages.
fw=(-L /usr/share/qemu -L /usr/share/seabios -L /usr/lib/ipxe/qemu)
late=
case "${PMU:-none}" in
amd-late|amd-legacy-late)
	late=,pmi-delay=${PERFVM_PMI_DELAY:-5000}
	PMU=${PMU%-late}
	;;
esac
case "${PMU:-none}" in
# QEMU's max CPU has our PMU on by default (an AMD one under TCG).
none) cpu=max,pmu=off ;;
intel|intel-v[1235]|amd|amd-legacy|amd-15h|intel-nomsr|amd-nomsr|skx|icx|spr|adl)
	case $PMU in
	# The named Intel models without the hypervisor bit, as the parts:
	# Linux's cstate and uncore drivers stay away from a guest.
	skx) cpu=max,vendor=GenuineIntel,family=6,model=85,stepping=4,hypervisor=off ;;
	icx) cpu=max,vendor=GenuineIntel,family=6,model=106,stepping=6,hypervisor=off ;;
	spr) cpu=max,vendor=GenuineIntel,family=6,model=143,stepping=8,hypervisor=off ;;
	adl) cpu=max,vendor=GenuineIntel,family=6,model=151,stepping=2,hypervisor=off ;;
	intel) cpu=max,vendor=GenuineIntel,family=6,model=240,stepping=0 ;;
	# CPUID describes the PMU, its registers raise #GP (pmu-msrs=off).
	intel-nomsr) cpu=max,vendor=GenuineIntel,family=6,model=240,stepping=0,pmu-msrs=off ;;
	amd-nomsr) cpu=max,vendor=AuthenticAMD,family=25,model=17,stepping=1,topoext=on,pmu-msrs=off ;;
	intel-v*) cpu=max,vendor=GenuineIntel,family=6,model=240,stepping=0,pmu-version=${PMU#intel-v} ;;
	# The AMD CPUs with PerfMonV2 have Zen's topology leaves (TOPOEXT),
	# which Linux's amd_uncore driver needs.  Not amd-legacy (no uncore
	# counters there): with TOPOEXT, its guest stopped after the hard
	# lockup report of final/hardlockup.sh (2 of 2 boots) instead of
	# restarting (issue 35).
	amd) cpu=max,vendor=AuthenticAMD,family=25,model=17,stepping=1,topoext=on,ibs=on ;;
	amd-legacy) cpu=max,vendor=AuthenticAMD,family=25,model=17,stepping=1,perfctr-core=off ;;
	amd-15h) cpu=max,vendor=AuthenticAMD,family=21,model=96,stepping=1,topoext=on,perfmon-v2=off ;;
	esac
	cpu=$cpu,pmu=on$late
	;;
*)
	echo "vm.sh: PMU must be none, intel, intel-v1/2/3/5, amd, amd-legacy, amd-15h, intel-nomsr, amd-nomsr, amd-late, amd-legacy-late, skx, icx, spr or adl, not '$PMU'" >&2
	exit 2
	;;
esac
if [ ! -x "$(command -v "$qemu")" ]; then
	echo "vm.sh: no $qemu (make qemu-pmu builds it)" >&2
	exit 2
fi

qemu_args=(
	-accel tcg -cpu "$cpu" -smp "$smp" -m "$mem" "${fw[@]}"
	-display none -monitor none -no-reboot -nodefaults
	-kernel "$kernel"
	-append "console=ttyS0 root=/dev/root rootfstype=9p rootflags=trans=virtio,version=9p2000.L,msize=512000,cache=loose ro init=$here/guest-init perfvm.cmd=$work/cmd.sh perfvm.top=$top panic=-1 softlockup_panic=0 pci=noacpi $append"
	-fsdev local,id=root,path=/,security_model=none,readonly=on,multidevs=remap
	-device virtio-9p-pci,fsdev=root,mount_tag=/dev/root
	-fsdev local,id=top,path="$top",security_model=none,readonly=on,multidevs=remap
	-device virtio-9p-pci,fsdev=top,mount_tag=perfvm_top
	-chardev file,id=con,path="$console"
	-serial chardev:con
	-chardev stdio,id=out,signal=off,logfile="$out"
	-serial chardev:out
)
[ -n "$icount" ] && qemu_args+=(-icount shift=0,sleep=off)
# Extra QEMU options for debugging, e.g. PERFVM_QEMU_EXTRA="-s" for gdb.
# shellcheck disable=SC2206
[ -n "${PERFVM_QEMU_EXTRA:-}" ] && qemu_args+=($PERFVM_QEMU_EXTRA)

# One boot; sets qrc.  A guest that has not got to its command within
# $boot_limit seconds (guest-init's "perfvm: guest ready") is stopped (qrc
# 126) and booted again.
#
# pci=noacpi above: the configurations have no PCI_MSI, so the virtio-9p
# devices interrupt through INTx, which ACPI routes by evaluating the
# DSDT's _PRT.  A debug kernel (kmemleak above all) runs that AML loop so
# slowly that it can reach ACPICA's 30 s loop limit; the device is then
# left with no IRQ and the first 9p request (the root mount) waits for
# ever with every CPU idle.  The PIIX router the kernel programs without
# ACPI gives the same IRQs at once.
boot_once() {
	local waited=0 pid
	: >"$console"
	: >"$out"
	rm -f "$work/qrc"
	( timeout -k 10 "$timeout" "$qemu" "${qemu_args[@]}" </dev/null |
		sed -u '/^PERFVM-EXIT: /d'
	  echo "${PIPESTATUS[0]}" >"$work/qrc" ) &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		if [ "$waited" -ge "$boot_limit" ] && ! grep -q "perfvm: guest ready" "$console"; then
			pkill -f -- "perfvm.cmd=$work/cmd.sh"
			wait "$pid"
			qrc=126
			return
		fi
		sleep 2
		waited=$((waited + 2))
	done
	wait "$pid"
	qrc=$(cat "$work/qrc" 2>/dev/null || echo 125)
}

# A guest that died before it got to its command (an early-boot crash,
# such as an interrupt racing the IO-APIC set-up under TCG) is booted
# again too; a crash that is the kernel's own comes back every time.
for attempt in $(seq "$attempts"); do
	boot_once
	if [ "$qrc" -eq 126 ]; then
		cp "$console" "$console.hung$attempt"
		echo "vm.sh: the guest did not get to its command within ${boot_limit}s; booting" \
			"again (console kept in $console.hung$attempt)" >&2
	elif ! grep -q "perfvm: guest ready" "$console" && [ "$attempt" -lt "$attempts" ]; then
		cp "$console" "$console.died$attempt"
		echo "vm.sh: the guest died before it got to its command (qemu status $qrc);" \
			"booting again (console kept in $console.died$attempt)" >&2
	else
		break
	fi
done
[ -n "$output" ] && sed '/^PERFVM-EXIT: /d' "$out" >"$output"

status=$(sed -n 's/^PERFVM-EXIT: \([0-9]*\).*/\1/p' "$out" | tail -n 1)
if [ -n "$status" ]; then
	exit "$status"
fi
if [ $qrc -eq 124 ] || [ $qrc -eq 137 ]; then
	echo "vm.sh: guest did not finish within ${timeout}s (console: $console)" >&2
	exit 124
fi
if [ "$qrc" -eq 126 ]; then
	echo "vm.sh: the guest did not boot in $attempts attempts (console: $console); its tail:" >&2
	tail -n 15 "$console" >&2
	exit 125
fi
echo "vm.sh: guest ended without an exit status (qemu status $qrc); console tail:" >&2
tail -n 30 "$console" >&2
exit 125
