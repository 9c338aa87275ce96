#!/bin/sh
# perf(1) on cgroups: perf stat -G and --for-each-cgroup count only the
# cgroup's tasks, perf record -G samples only them, and perf record
# --all-cgroups tags each sample with the cgroup it came from (perf
# script's cgroup field).  The workload is perf_trace_target mmap N, two
# threads each faulting in a fresh page N times, started inside a cgroup
# of its own.  Prints TAP.
dir=$(cd "$(dirname "$0")" && pwd)
target=$dir/perf_trace_target
tmp=$(mktemp -d)
cg=
trap 'cleanup' EXIT
cleanup() {
	if [ -n "$cg" ]; then
		rmdir "$root/$cg/b" "$root/$cg/a" "$root/$cg" 2>/dev/null
	fi
	rm -rf "$tmp"
}

. "$dir/lib/tap.sh"
echo "TAP version 13"
if ! command -v perf >/dev/null || [ ! -x "$target" ]; then
	skip "perf or the target program is missing"
fi
root=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
if [ -z "$root" ]; then
	root=/sys/fs/cgroup
	mount -t cgroup2 cgroup2 "$root" 2>/dev/null || skip "cannot mount cgroup2"
fi
[ -e "$root/cgroup.procs" ] || skip "no cgroup2 hierarchy at $root"
# An implicit controller: /proc/cgroups lists it, cgroup.controllers not.
grep -q '^perf_event[[:space:]]' /proc/cgroups ||
	skip "no perf_event controller (CONFIG_CGROUP_PERF)"
# The perf_event controller reaches new cgroups once the root's controller
# masks are computed, which a write to its subtree_control does.
echo +pids >"$root/cgroup.subtree_control" 2>/dev/null
cg=perftest.$$
mkdir "$root/$cg" "$root/$cg/a" "$root/$cg/b" || skip "cannot make cgroups"
cd "$tmp" || exit 1
export HOME=$tmp

# sh enter CGROUP COMMAND...: COMMAND, run inside cgroup $cg/CGROUP.
cat >enter <<EOF
echo \$\$ >"$root/$cg/\$1/cgroup.procs" || exit 1
shift
exec "\$@"
EOF
# stat_value FILE EVENT CGROUP: the count perf stat -x, printed for them
stat_value() {
	awk -F, -v e="$2" -v c="$3" '$3 == e && $4 == c { print $1; exit }' "$1"
}

perf stat -a -x, -o stat.out -e page-faults -G "$cg/a" -- \
	sh enter a "$target" mmap 500 >/dev/null 2>stat.err
result $? "stat -a -G exits 0" stat.err
v=$(stat_value stat.out page-faults "$cg/a")
[ "${v:-0}" -ge 1000 ] 2>/dev/null
result $? "stat -G: the cgroup's faults (${v:-none}, want >= 1000)" stat.out

perf stat -a -x, -o each.out -e page-faults --for-each-cgroup "$cg/a,$cg/b" -- \
	sh enter a "$target" mmap 500 >/dev/null 2>each.err
result $? "stat --for-each-cgroup exits 0" each.err
va=$(stat_value each.out page-faults "$cg/a")
vb=$(stat_value each.out page-faults "$cg/b")
# Nothing of b ran: its event never counted.
[ "${va:-0}" -ge 1000 ] 2>/dev/null && [ "${vb:-x}" = "<not counted>" ]
result $? "stat --for-each-cgroup: a ${va:-none} (>= 1000), b ${vb:-none} (<not counted>)" \
	each.out

perf record -q -a -e page-faults -c 1 -G "$cg/b" -o g.data -- \
	sh enter b "$target" mmap 300 >/dev/null 2>g.err
result $? "record -a -G exits 0" g.err
perf script -i g.data -F comm >g.out 2>&1
# The shell that joined b before it became the target is in b too.
c=$(awk '$1 == "perf_trace_targ" { n++ } END { print n + 0 }' g.out)
other=$(awk '$1 != "perf_trace_targ" && $1 != "sh" { n++ } END { print n + 0 }' g.out)
[ "$c" -ge 600 ] && [ "$other" -eq 0 ]
result $? "record -G: $c samples of the target (want >= 600), $other of tasks outside b" g.out

perf record -q -a --all-cgroups -e page-faults -c 1 -o all.data -- \
	sh enter a "$target" mmap 200 >/dev/null 2>all.err
result $? "record -a --all-cgroups exits 0" all.err
# perf 6.1 shows no sample's cgroup (perf report's cgroup key says
# "unknown" for the v2 hierarchy), so read it from the raw dump: with
# sample_type IP, TID, TIME, PERIOD and CGROUP, a sample is 56 bytes and
# its last u64 (little-endian) is the cgroup id, the directory's inode.
perf report -D -i all.data >all.out 2>&1
want=$(stat -c %i "$root/$cg/a")
c=$(awk -v want="$want" '
	function hex(s,   i, v) {
		v = 0
		for (i = 1; i <= length(s); i++)
			v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v
	}
	/raw event: size/ { size = $6 }
	/^\.  0030:/ { id = 0; for (i = 10; i >= 3; i--) id = id * 256 + hex($i) }
	/thread: perf_trace_targ:/ && size == 56 && id == want { n++ }
	END { print n + 0 }' all.out)
[ "$c" -ge 400 ]
result $? "record --all-cgroups: $c target samples with the id of $cg/a (want >= 400)" \
	all.out

tap_done
