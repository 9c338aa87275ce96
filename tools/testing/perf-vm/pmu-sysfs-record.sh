#!/bin/bash
# Write tests/pmu-sysfs/PMU: the stock kernel's sysfs description of its
# PMUs (tests/pmu_sysfs.sh --dump) on each emulated CPU the runs of make
# check boot at -smp 2, for tests/pmu_sysfs.sh to compare ours with.
# Run it after a change to the emulation or the configuration that
# changes what stock registers (then make check KERNEL=stock, since the
# descriptions are the stock record's input too).  Needs the stock
# kernel and our QEMU built (make stock qemu-pmu).
#   pmu-sysfs-record.sh [PMU...]    default: every PMU the runs boot
. "$(dirname "$0")/lib.sh"

kernel=$OUT/build/stock/arch/x86/boot/bzImage
dst=$PERFVM/tests/pmu-sysfs
[ -f "$kernel" ] || die "no stock kernel: make stock"
mkdir -p "$dst" "$OUT/tmp"
pmus=${*:-none intel intel-v1 amd amd-legacy amd-15h skx icx spr adl}
for p in $pmus; do
	log "stock, PMU=$p"
	out=$OUT/tmp/pmu-sysfs.$p
	PMU=$p "$PERFVM/vm.sh" -k "$kernel" -s 2 -m 1024 -t 600 \
		-c "$OUT/tmp/pmu-sysfs.$p.console" -- \
		"echo BEGIN-DUMP; PERFTEST_PMU=$p sh $PERFVM/tests/pmu_sysfs.sh --dump; echo END-DUMP" \
		>"$out" 2>&1 || die "the stock guest failed (PMU=$p): $out"
	sed -n '/^BEGIN-DUMP/,/^END-DUMP/p' "$out" | sed '1d;$d' | tr -d '\r' >"$dst/$p.new"
	[ -s "$dst/$p.new" ] || die "no description from the guest (PMU=$p): $out"
	mv "$dst/$p.new" "$dst/$p"
	log "$(grep -c '' "$dst/$p") files of $(sed 's|/.*||' "$dst/$p" | uniq | wc -l) PMUs in ${dst#"$TOP"/}/$p"
done
