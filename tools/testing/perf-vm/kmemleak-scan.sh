#!/bin/sh
# Runs in the guest after the tests: print what kmemleak found, when the
# kernel has it.  Two scans, a few seconds apart: an object freed after an
# RCU grace period or by deferred work is not reported by the second.
if [ -w /sys/kernel/debug/kmemleak ]; then
	echo scan >/sys/kernel/debug/kmemleak
	sleep 6
	echo scan >/sys/kernel/debug/kmemleak
	cat /sys/kernel/debug/kmemleak
fi
