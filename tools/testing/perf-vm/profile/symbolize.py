#!/usr/bin/env python3
"""Guest kernel instructions by function, from insnprof.c's output.

usage: symbolize.py VMLINUX PROFILE [BASELINE] [N]

Sums each block's instructions (length x executions) into the kernel
function holding its first instruction (nm -n VMLINUX) and prints the N
(default 40) largest.  With BASELINE, a profile of the same kernel doing
less (the same boot without the work of interest), prints the difference.
"""
import bisect
import collections
import subprocess
import sys


def functions(vmlinux):
    syms = []
    out = subprocess.run(["nm", "-n", vmlinux], capture_output=True,
                         text=True, check=True).stdout
    for line in out.splitlines():
        p = line.split()
        if len(p) == 3 and p[1] in "tTwW":
            syms.append((int(p[0], 16), p[2]))
    return syms


def load(syms, path):
    addrs = [a for a, _ in syms]
    total = collections.Counter()
    with open(path) as f:
        for line in f:
            pc, insns, execs = line.split()
            pc = int(pc, 16)
            if pc < 0xffffffff80000000:
                continue
            i = bisect.bisect_right(addrs, pc) - 1
            total[syms[i][1] if i >= 0 else "?"] += int(insns) * int(execs)
    return total


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    syms = functions(sys.argv[1])
    prof = load(syms, sys.argv[2])
    n = 40
    if len(sys.argv) > 3 and not sys.argv[3].isdigit():
        base = load(syms, sys.argv[3])
        prof = collections.Counter({k: prof[k] - base.get(k, 0) for k in prof})
        n = int(sys.argv[4]) if len(sys.argv) > 4 else n
    elif len(sys.argv) > 3:
        n = int(sys.argv[3])
    print("%14d  all kernel functions" % sum(prof.values()))
    for name, count in sorted(prof.items(), key=lambda kv: -abs(kv[1]))[:n]:
        print("%14d  %s" % (count, name))


if __name__ == "__main__":
    main()
