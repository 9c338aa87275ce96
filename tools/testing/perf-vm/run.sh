#!/bin/bash
# make run: build our kernel, boot it at -smp 2 on QEMU with the emulated
# PMU (PMU=intel unless PMU says otherwise; PMU=none for Debian's QEMU)
# and count a small workload with the host's perf.
. "$(dirname "$0")/lib.sh"

ver=$(make -s -C "$SERIES_SRC" kernelversion)
log "base: Debian linux-source-6.12, Linux $ver"
img=$("$PERFVM/build.sh" qemu) || exit 1
export PMU=${PMU:-intel}
"$TOP/tools/testing/qemu-pmu/build.sh" >/dev/null || exit 1
log "booting $img (PMU=$PMU)"
"$PERFVM/vm.sh" -k "$img" -s 2 -t 300 -- '
echo "uname -r: $(uname -r)"
dmesg | grep "perf: "
perf stat -e task-clock,context-switches,cpu-migrations,page-faults,cpu-clock,cycles,instructions -- \
	sh -c "i=0; while [ \$i -lt 20000 ]; do i=\$((i+1)); done; ls -R /usr/share/doc >/dev/null"
'
