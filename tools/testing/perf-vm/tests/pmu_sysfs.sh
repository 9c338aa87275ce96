#!/bin/sh
# Every PMU's sysfs description against the stock kernel's on the same
# emulated CPU: which PMUs /sys/bus/event_source/devices lists, and each
# one's files (cpumask, cpus, caps/, events/, format/, the attributes of
# its own) with their contents; the type numbers, which the order of
# registration decides, are left out.  pmu-sysfs/PMU holds what stock
# shows at -smp 2 with PERFTEST_PMU=PMU (pmu-sysfs-record.sh writes it);
# on our kernel the PMUs named in pmu-sysfs/not-yet, which it does not
# have yet (a name prefixed "PMU:" on that CPU only), are left out of
# that, and must then be absent.  Our kernel's
# test-only PMUs (perf_test, perf_test_aux) and those of the test
# modules are not compared.  With --dump, prints the description.
# Prints TAP.
dir=$(cd "$(dirname "$0")" && pwd)
pmu=${PERFTEST_PMU:-none}
golden=$dir/pmu-sysfs/$pmu
notyet=$dir/pmu-sysfs/not-yet

# One line a file: "PMU/PATH: CONTENT", the content on one line (its
# newlines as spaces, no NUL bytes or trailing spaces; empty where it
# cannot be read), the files to a depth of two below each PMU's
# directory, in byte order.
# One process for thousands of files: a shell loop that forks three per
# file took over a minute of a model's run under TCG.
dump() {
	python3 - <<'PY'
import os, sys

top = "/sys/bus/event_source/devices"
skip = ("perf_test", "perf_test_aux", "perf_test_scope")
out = sys.stdout.buffer


def files(pmu, rel, depth):
    """The regular files below pmu/rel, symlinks not followed."""
    try:
        names = os.listdir(os.path.join(top, pmu, rel))
    except OSError:
        return
    for n in names:
        r = rel + "/" + n if rel else n
        st = os.lstat(os.path.join(top, pmu, r))
        if (st.st_mode & 0o170000) == 0o100000:
            yield pmu + "/" + r
        elif (st.st_mode & 0o170000) == 0o040000 and depth < 2:
            yield from files(pmu, r, depth + 1)


for pmu in sorted(os.listdir(top)):
    if pmu in skip or pmu.startswith("perf_test_pmu"):
        continue
    for f in sorted(files(pmu, "", 1)):
        if f.endswith("/uevent") or "/power/" in f:
            continue
        if f.endswith("/type"):
            out.write(f.encode() + b": (a number)\n")
            continue
        try:
            with open(os.path.join(top, f), "rb") as fh:
                data = fh.read()
        except OSError:
            data = b""
        # As the shell read them: a NUL byte dropped.
        data = data.replace(b"\0", b"").replace(b"\n", b" ").rstrip(b" ")
        out.write(f.encode() + b": " + data + b"\n")
PY
}

if [ "${1:-}" = --dump ]; then
	dump
	exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$dir/lib/tap.sh"
echo "TAP version 13"
[ -f "$golden" ] || skip "no stock description recorded for PERFTEST_PMU=$pmu"
[ "$(getconf _NPROCESSORS_CONF)" = 2 ] || skip "the descriptions are recorded at -smp 2"
dump >"$tmp/got"
cp "$golden" "$tmp/want"
# Ours: the PMUs it does not have yet, with the issue that brings them.
case $(uname -r) in
*-perfng*)
	while read -r glob why; do
		case $glob in
		''|'#'*) continue ;;
		*:*)
			[ "${glob%%:*}" = "$pmu" ] || continue
			glob=${glob#*:}
			;;
		esac
		# shellcheck disable=SC2254
		present=$(cd /sys/bus/event_source/devices &&
			for p in *; do case $p in $glob) echo "$p" ;; esac; done)
		[ -z "$present" ]
		result $? "$glob is absent ($why): ${present:-none}"
	done <"$notyet"
	awk -v list="$notyet" -v pmu="$pmu" '
		BEGIN { while ((getline l < list) > 0) if (l !~ /^#/ && split(l, w) > 0) {
			c = index(w[1], ":")
			if (c == 0) g[++k] = w[1]
			else if (substr(w[1], 1, c - 1) == pmu) g[++k] = substr(w[1], c + 1)
		} }
		{ p = $0; sub(/\/.*/, "", p)
		  for (i = 1; i <= k; i++) {
			re = "^" g[i] "$"; gsub(/\*/, ".*", re); gsub(/\?/, ".", re)
			if (p ~ re) next
		  }
		  print }' "$golden" >"$tmp/want"
	;;
esac
pmus() { sed 's|/.*||' "$1" | uniq | tr '\n' ' '; }
[ "$(pmus "$tmp/got")" = "$(pmus "$tmp/want")" ]
result $? "the PMUs: $(pmus "$tmp/got")(stock's: $(pmus "$tmp/want"))"
diff -u "$tmp/want" "$tmp/got" >"$tmp/diff"
result $? "each PMU's files and contents as stock's ($(wc -l <"$tmp/want") files)" "$tmp/diff"
tap_done
