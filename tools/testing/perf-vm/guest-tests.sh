#!/bin/sh
# Runs in the guest: every test program named on the command line, one after
# the other, each under a time limit.  Each program's TAP output is framed by
# marker lines that the host's check.sh parses:
#   ##PERFTEST-BEGIN <name>
#   ##PERFTEST-END <name> <exit status>
limit=${PERFTEST_TIMEOUT:-300}
# How slow this guest is (flavour and host load together): the test
# programs' own alarms and the script tests' waits grow by that factor.
helpers=${PERFTEST_HELPERS:-}
if [ -x "$helpers/calibrate" ] && [ -r "$helpers/timeout_scale.so" ]; then
	cal=$("$helpers/calibrate")
	PERFTEST_TIMEOUT_SCALE=${cal%% *}
	LD_PRELOAD=$helpers/timeout_scale.so
	export PERFTEST_TIMEOUT_SCALE LD_PRELOAD
	echo "# test timeouts scaled by $PERFTEST_TIMEOUT_SCALE (calibration ${cal#* } ns)"
fi
scanned=
for t in "$@"; do
	name=$(basename "$t")
	# A test of final/ locks a CPU up for good, after which no RCU grace
	# period ends and every object freed through RCU looks leaked: the
	# scan for what the tests before it lost runs now.
	case $t in
	*/final/*)
		[ -n "$scanned" ] || sh "$(dirname "$0")/kmemleak-scan.sh"
		scanned=1 ;;
	esac
	echo "##PERFTEST-BEGIN $name"
	echo "##PERFTEST-BEGIN $name" >/dev/kmsg 2>/dev/null
	timeout -k 10 "$limit" "$t"
	rc=$?
	echo "##PERFTEST-END $name $rc"
	echo "##PERFTEST-END $name $rc" >/dev/kmsg 2>/dev/null
done
# Report memory the kernel lost track of, when kmemleak is built in;
# with PERFTEST_NO_SCAN set, the command that runs next in this guest
# scans (a fuzz after the tests, check.sh).
[ -n "$scanned" ] || [ -n "${PERFTEST_NO_SCAN:-}" ] ||
	sh "$(dirname "$0")/kmemleak-scan.sh"
exit 0
