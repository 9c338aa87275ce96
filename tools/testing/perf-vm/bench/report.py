#!/usr/bin/env python3
"""Put the benchmark figures of the two kernels side by side.

usage: report.py STOCK_OUTPUT OURS_OUTPUT RESULTS_DIR

Each output is a guest's log holding lines "BENCH <id> <unit> <value>"
between the markers of guest.sh.  Prints a Markdown table (benchmark, unit,
stock, ours, ours/stock), writes RESULTS_DIR/results.csv with the header
"benchmark,unit,stock,ours,ratio" and, when gnuplot is there,
RESULTS_DIR/ratios.png, a bar chart of the ratios.  Rows come in the order
of REQUIRED, then any other figure in the order the programs printed it.
Exits 1, naming them, when a required figure is missing from either kernel
or a program failed.
"""
import csv
import os
import re
import shutil
import subprocess
import sys

REQUIRED = """
getppid read_devzero read1 read_group8 open_close1 open_close_group8
cs_0 cs_1 cs_8 cs_64 cs_1_added cs_8_added cs_64_added
cgcs_0 cgcs_1 cgcs_8 cgcs_64 cgcs_1_added cgcs_8_added cgcs_64_added
tp_off tp_event tp_bpf tp_event_added tp_bpf_added
thread_none thread_inherit_task thread_inherit_cpu
thread_inherit_task_added thread_inherit_cpu_added
fork_none fork_inherit_task fork_inherit_cpu
fork_inherit_task_added fork_inherit_cpu_added
enable256_ioctl enable256_prctl
sample_1k sample_1k_g sample_10k sample_10k_g lost_10k_g
rb_records_per_s rb_bytes_per_s rb_ns_per_record
mem_per_event mem_per_child_ctx open_at_10k
sb_mmap_0 sb_mmap_1k sb_mmap_1k_added tick_1k_added bp_0 bp_256 bp_256_added
hw_read hw_rdpmc hw_open_close_group hw_cs_0 hw_cs_4 hw_cs_4_added
hw_sample hw_sample_g hw_sample_lost
smp8_open_10k smp8_close_10k smp8_cs_0 smp8_cs_10k smp8_cs_10k_added
smp8_rec_ns_per_sample smp8_rec_samples smp8_rec_lost
""".split()

# Where the other figures go: after the required one they belong with.
AFTER = {
    "cs_64_cpu1": "cs_64_added",
    "cs_64_cpu1_added": "cs_64_cpu1",
    "sample_10k_n": "lost_10k_g",
    "rb_faults_per_s": "rb_ns_per_record",
    "rb_lost": "rb_faults_per_s",
    "mem_per_event_slab": "mem_per_event",
    "mem_per_event_slabinfo": "mem_per_event_slab",
}


def parse(path):
    """Figures {id: (unit, value)} in order, and the failed programs."""
    figures, failed, begun = {}, [], []
    try:
        with open(path, errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return figures, ["(no output: %s)" % path]
    for line in lines:
        m = re.match(r"^BENCH (\S+) (\S+) (\S+)$", line)
        if m:
            try:
                figures[m.group(1)] = (m.group(2), float(m.group(3)))
            except ValueError:
                pass
            continue
        m = re.match(r"^##BENCH-BEGIN (\S+)", line)
        if m:
            begun.append(m.group(1))
            continue
        m = re.match(r"^##BENCH-END (\S+) (\d+)", line)
        if m:
            if m.group(1) in begun:
                begun.remove(m.group(1))
            if m.group(2) != "0":
                failed.append("%s (exit %s)" % (m.group(1), m.group(2)))
    failed += ["%s (did not finish)" % p for p in begun]
    return figures, failed


def order(ids):
    rows = list(REQUIRED)
    extra = [i for i in ids if i not in rows]
    for i in extra:
        anchor = AFTER.get(i)
        if anchor in rows:
            rows.insert(rows.index(anchor) + 1, i)
    return rows + [i for i in extra if i not in rows]


def fmt(v):
    if v is None:
        return "-"
    if abs(v) >= 100 or v == int(v):
        return "{:,.0f}".format(v)
    return "{:.1f}".format(v)


def ratio(s, o):
    if s is None or o is None or s == 0:
        return None
    return o / s


def higher_is_better(unit):
    return unit.endswith("/s")


# Control figures, drawn in grey: those that involve no perf event show how
# far the two kernels differ outside perf; a count of samples should match.
CONTROLS = {"getppid", "read_devzero", "cs_0", "cgcs_0", "tp_off",
            "thread_none", "fork_none", "rb_faults_per_s", "sample_10k_n",
            "hw_cs_0"}

TICS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 2, 3, 4,
        5, 10, 20, 50, 100]


def chart(rows, png):
    """Horizontal bars of ours/stock, log scale, one per positive ratio."""
    gnuplot = shutil.which("gnuplot")
    if not gnuplot:
        print("report: gnuplot not found, no chart", file=sys.stderr)
        return False
    bars = []
    for bench, unit, s, o, r in rows:
        if r is None or r <= 0 or s <= 0 or o <= 0:
            continue
        better = r > 1 if higher_is_better(unit) else r < 1
        colour = 0x2e8b57 if better else 0xc0392b
        if abs(r - 1) < 0.02:
            colour = 0x95a5a6
        if bench in CONTROLS:
            colour = 0x5d6d7e
        bars.append((bench, r, colour))
    if not bars:
        return False
    lo = min(min(r for _, r, _ in bars), 1) / 1.1
    hi = max(max(r for _, r, _ in bars), 1) * 1.3
    tics = [t for t in TICS if lo <= t <= hi]
    if hi / lo > 20:	# a wide range: the round tics only
        tics = [t for t in tics if t in (0.01, 0.1, 1, 10, 100)
                or str(t)[0] in "25"]
    data = png + ".dat"
    with open(data, "w") as f:
        for n, (bench, r, colour) in enumerate(bars):
            f.write("%d %s %.6g %d\n" % (n, bench, r, colour))
    script = """
set terminal pngcairo noenhanced size 1000,%(h)d font "sans,10"
set output '%(png)s'
set title "perf_event benchmarks: ours / stock   (green: ours better, red: ours worse, dark grey: controls)"
set logscale x
set xrange [%(lo)g:%(hi)g]
set xtics (%(tics)s)
set xlabel "ours / stock, log scale (for a rate, /s, higher is better; for any other figure, lower)"
set yrange [%(n)d:-1]
set ytics nomirror scale 0 font ",9"
set grid xtics
unset key
set style fill solid 0.85 border -1
set arrow from 1, graph 0 to 1, graph 1 nohead lw 2 lc rgb "black"
lo(r) = r < 1 ? r : 1
hi(r) = r < 1 ? 1 : r
plot '%(data)s' using (lo($3)):1:(lo($3)):(hi($3)):($1 - 0.35):($1 + 0.35):4:ytic(2) \\
        with boxxyerror lc rgb variable, \\
     '' using (hi($3)):1:(sprintf(" %%.2f", $3)) with labels left font ",8"
""" % {"h": 120 + 22 * len(bars), "png": png, "n": len(bars), "data": data,
       "lo": lo, "hi": hi, "tics": ", ".join("%g" % t for t in tics)}
    p = subprocess.run([gnuplot], input=script, text=True,
                       capture_output=True)
    os.unlink(data)
    if p.returncode != 0:
        print("report: gnuplot failed:\n" + p.stderr, file=sys.stderr)
        return False
    return True


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    stock, stock_failed = parse(sys.argv[1])
    ours, ours_failed = parse(sys.argv[2])
    outdir = sys.argv[3]
    os.makedirs(outdir, exist_ok=True)

    ids = list(stock) + [i for i in ours if i not in stock]
    rows = []
    for bench in order(ids):
        s = stock.get(bench, (None, None))
        o = ours.get(bench, (None, None))
        unit = s[0] or o[0] or "-"
        rows.append((bench, unit, s[1], o[1], ratio(s[1], o[1])))

    print("| benchmark | unit | stock | ours | ours/stock |")
    print("|---|---|--:|--:|--:|")
    for bench, unit, s, o, r in rows:
        print("| %s | %s | %s | %s | %s |" % (
            bench, unit, fmt(s), fmt(o), "-" if r is None else "%.2f" % r))

    csv_path = os.path.join(outdir, "results.csv")
    with open(csv_path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["benchmark", "unit", "stock", "ours", "ratio"])
        for bench, unit, s, o, r in rows:
            w.writerow([bench, unit,
                        "" if s is None else "%.1f" % s,
                        "" if o is None else "%.1f" % o,
                        "" if r is None else "%.4f" % r])
    png = os.path.join(outdir, "ratios.png")
    if os.path.exists(png):
        os.unlink(png)
    made = chart(rows, png)
    print("report: %s%s" % (csv_path, ", " + png if made else ""),
          file=sys.stderr)

    bad = []
    for label, figs, failed in (("stock", stock, stock_failed),
                                ("ours", ours, ours_failed)):
        missing = [i for i in REQUIRED if i not in figs]
        if missing:
            bad.append("%s: missing %s" % (label, " ".join(missing)))
        if failed:
            bad.append("%s: failed %s" % (label, ", ".join(failed)))
    for b in bad:
        print("report: " + b, file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
