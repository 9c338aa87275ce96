#!/bin/sh
# Runs in the guest: every test program named on the command line, one after
# the other, each under a time limit.  Each program's TAP output is framed by
# marker lines that the host's check.sh parses:
#   ##PERFTEST-BEGIN <name>
#   ##PERFTEST-END <name> <exit status>
limit=${PERFTEST_TIMEOUT:-300}
for t in "$@"; do
	name=$(basename "$t")
	echo "##PERFTEST-BEGIN $name"
	echo "##PERFTEST-BEGIN $name" >/dev/kmsg 2>/dev/null
	timeout -k 10 "$limit" "$t"
	rc=$?
	echo "##PERFTEST-END $name $rc"
	echo "##PERFTEST-END $name $rc" >/dev/kmsg 2>/dev/null
done
# Report memory the kernel lost track of, when kmemleak is built in.
if [ -w /sys/kernel/debug/kmemleak ]; then
	echo scan >/sys/kernel/debug/kmemleak
	sleep 6
	echo scan >/sys/kernel/debug/kmemleak
	cat /sys/kernel/debug/kmemleak
fi
exit 0
