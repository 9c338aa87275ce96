#!/bin/sh
# Runs in the guest: the benchmark programs named on the command line, from
# BINDIR, one after the other.  They are copied to /tmp first so that no
# program reads the 9p root while it measures (waiting for 9p jumps the
# -icount clock).  Each program's output is framed by marker lines:
#   ##BENCH-BEGIN <name>
#   ##BENCH-END <name> <exit status>
# usage: guest.sh BINDIR PROGRAM...
bindir=$1
shift
limit=${BENCH_TIMEOUT:-900}
echo "# kernel $(uname -r), $(nproc) CPUs"
mkdir -p /tmp/bench
for p in "$@"; do
	cp "$bindir/$p" /tmp/bench/ || exit 1
done
# Read once what the loop below runs besides the programs.
timeout 10 true
rc=0
for p in "$@"; do
	echo "##BENCH-BEGIN $p"
	timeout -k 10 "$limit" "/tmp/bench/$p"
	st=$?
	echo "##BENCH-END $p $st"
	[ $st -eq 0 ] || rc=1
done
exit $rc
