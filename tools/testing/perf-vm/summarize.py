#!/usr/bin/env python3
"""Turn one guest run into pass/fail/skip counts.

usage: summarize.py LABEL OUTPUT_LOG CONSOLE_LOG [VM_STATUS]

OUTPUT_LOG holds the TAP of each test program between the markers that
guest-tests.sh prints; CONSOLE_LOG holds the kernel's messages.  Counted:
  - every kselftest test case (ok / not ok / # SKIP; a failure listed in
    expected-failures counts as skipped and is named), and for a program that
    died without a TAP plan or a "# Totals" line, one failure;
  - every KUnit test case reported on the console;
  - every splat on the console (BUG, WARNING, KASAN, lockdep, RCU stall, hung
    task, Oops, panic) and every kmemleak report that involves perf, each as
    one failure; a KCSAN data-race report counts when one of the racing
    accesses is made in a function of the perf core or the x86 PMU code
    (the first frame of an access's stack), and is listed otherwise: a
    race inside timekeeping's or mm's own lockless readers that perf
    merely calls (ktime_get_raw_fast_ns() from perf_event_clock(), say)
    is theirs to annotate.
Prints one line per failure and a last line "LABEL: P passed, F failed, S skipped".
With PERFTEST_CASES=FILE in the environment, also writes each kselftest
case's verdict to FILE, a line "PROGRAM<TAB>VERDICT<TAB>CASE" each (ok,
fail, skip or xfail), and a line per other failure with "-" as its
program (check.sh keeps the stock kernel's in its record).
"""
import os
import re
import sys

label, out_log, con_log = sys.argv[1:4]
vm_status = int(sys.argv[4]) if len(sys.argv) > 4 else 0

def read(p):
    try:
        with open(p, errors="replace") as f:
            return f.read().splitlines()
    except OSError:
        return []

passed = failed = skipped = 0
fails = []
xfails = []
verdicts = []

# Failures listed in expected-failures: PROGRAM is a test program, or
# KERNEL:PROGRAM for a failure of one kernel flavour only (the LABEL
# starts with the flavour: stock-smp2 is of "stock").
expected = []
for line in read(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                          "expected-failures")):
    if line.strip() and not line.startswith("#"):
        prog, case, reason = line.split(None, 2)
        kernel, _, prog = prog.rpartition(":")
        expected.append((kernel, prog, re.compile(case + "$"), reason))

def expected_failure(prog, case):
    for k, p, c, reason in expected:
        if k and not label.startswith(k + "-"):
            continue
        if p == prog and c.match(case):
            return reason
    return None

# kselftest programs
cur = None
cases = {}
seen_end = set()
results_line = re.compile(r"^(not ok|ok) \d+ (.*?)(\s+#\s*(SKIP|skip|XFAIL|TODO)\b.*)?$")
# A failure is printed with the diagnostics its case printed before it
# (the kselftest harness), or after it (the script tests' tap.sh: the
# head of the file the check looked at).
notes = []
after = None
for line in read(out_log):
    m = re.match(r"^##PERFTEST-BEGIN (\S+)", line)
    if m:
        cur = m.group(1)
        cases[cur] = {"p": 0, "f": 0, "s": 0, "x": 0, "planned": False, "totals": False}
        continue
    m = re.match(r"^##PERFTEST-END (\S+) (\d+)", line)
    if m:
        name, rc = m.group(1), int(m.group(2))
        c = cases.get(name)
        seen_end.add(name)
        if c is not None and not c["totals"] and c["p"] + c["f"] + c["s"] == 0:
            failed += 1
            fails.append("%s: %s produced no test results (exit %d)" % (label, name, rc))
        elif c is not None and rc not in (0, 4) and c["f"] + c["x"] == 0:
            failed += 1
            fails.append("\n".join(["%s: %s exited with status %d" % (label, name, rc)]
                                   + notes))
        cur = None
        after = None
        continue
    if cur is None:
        continue
    if line.startswith("#") and not line.startswith("# Totals"):
        notes = (notes + ["    " + line[:200]])[-6:]
        if after is not None and after[1] < 24:
            fails[after[0]] += "\n    " + line[:200]
            after[1] += 1
    if line.startswith("1.."):
        cases[cur]["planned"] = True
        # "1..0 # SKIP why": the whole program skips; one skip.
        if re.match(r"^1\.\.0\s*#\s*SKIP\b", line, re.I):
            cases[cur]["s"] += 1
            skipped += 1
    if line.startswith("# Totals:"):
        cases[cur]["totals"] = True
    m = results_line.match(line)
    if m:
        after = None
        if m.group(4) and m.group(4).upper() == "SKIP":
            cases[cur]["s"] += 1
            skipped += 1
            verdicts.append((cur, "skip", m.group(2)))
        elif m.group(1) == "ok":
            cases[cur]["p"] += 1
            passed += 1
            verdicts.append((cur, "ok", m.group(2)))
        elif (reason := expected_failure(cur, m.group(2))):
            cases[cur]["x"] += 1
            skipped += 1
            xfails.append("%s: %s: %s (%s)" % (label, cur, m.group(2), reason))
            verdicts.append((cur, "xfail", m.group(2)))
        else:
            cases[cur]["f"] += 1
            failed += 1
            verdicts.append((cur, "fail", m.group(2)))
            fails.append("\n".join(["%s: %s: not ok %s" % (label, cur, m.group(2))]
                                   + notes))
            if cur.endswith(".sh"):
                after = [len(fails) - 1, 0]
        notes = []
if cur is not None and cur not in seen_end:
    failed += 1
    fails.append("%s: %s did not finish (guest died or timed out)" % (label, cur))
if vm_status not in (0,):
    failed += 1
    fails.append("%s: the guest run ended with status %d" % (label, vm_status))

# kmemleak reports (printed by guest-tests.sh at the end)
block = []
def flush_leak(block):
    global failed
    text = "\n".join(block)
    if re.search(r"perf_|kernel/events", text):
        failed += 1
        fails.append("%s: kmemleak: %s" % (label, block[0].strip()))
for line in read(out_log):
    if line.startswith("unreferenced object"):
        if block:
            flush_leak(block)
        block = [line]
    elif block and line.startswith(" "):
        block.append(line)
    elif block:
        flush_leak(block)
        block = []
if block:
    flush_leak(block)

# Functions of the perf core and the x86 PMU code: a KCSAN report is the
# series' business (a failure) when one of the racing accesses is made in
# one of them; the rest of the kernel's data races are listed, not counted.
top = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                    "..", "..", ".."))
perf_funcs = set()
for d in ("kernel/events", "arch/x86/events"):
    try:
        names = sorted(os.listdir(os.path.join(top, d)))
    except OSError:
        continue
    for n in names:
        if n.endswith(".c"):
            for line in read(os.path.join(top, d, n)):
                m = re.match(r"^(?:[A-Za-z_][\w \*]*?[ \*])?([A-Za-z_]\w*)\(", line)
                if m and not line.startswith((" ", "\t", "#")):
                    perf_funcs.add(m.group(1))
kcsan_frame = re.compile(r"^\s*([A-Za-z_][\w.]*)\+0x")

kcsan_access = re.compile(r"^(race at|read|write|read-write|[a-z-]+ \(marked\)) .* on cpu \d+:")

def kcsan_is_ours(block):
    """Whether the first frame under an access line is a perf function."""
    first = False
    for line in block:
        if kcsan_access.match(line.strip()) or "race at unknown origin" in line:
            first = True
            continue
        m = kcsan_frame.match(line)
        if m and first:
            first = False
            if m.group(1).split(".")[0] in perf_funcs:
                return True
    return False

# console: KUnit and splats
splat = re.compile(
    r"(BUG: |WARNING: |UBSAN|DEBUG_LOCKS_WARN_ON|possible recursive locking"
    r"|possible circular locking|inconsistent lock state|possible irq lock inversion"
    r"|suspicious RCU usage|lock held when returning to user space|rcu: INFO"
    r"|RCU stall|INFO: task .* blocked|Oops|Kernel panic|general protection fault"
    r"|kernel BUG|refcount_t: |list_add corruption|list_del corruption|ODEBUG: "
    r"|unchecked MSR access|NMI received for unknown reason)")
ktap_case = re.compile(r"^\s{4,}(not ok|ok) \d+ (\S+)(.*)$")
# A user task's fatal trap, which the kernel reports (exception-trace):
# "traps: hw[70] general protection fault ip:... in hw[...]".  Tests
# raise them on purpose (rdpmc of a missing counter); not a splat.
user_trap = re.compile(r"^traps: \S+\[\d+\] ")
con = [re.sub(r"^\[\s*[0-9.]+\]\s?", "", line) for line in read(con_log)]
races = []
for i, body in enumerate(con):
    if not body.startswith("BUG: KCSAN:"):
        continue
    block = []
    for nxt in con[i + 1:]:
        if nxt.startswith("====="):
            break
        block.append(nxt)
    if kcsan_is_ours(block):
        failed += 1
        fails.append("%s: console: %s" % (label, body.strip()[:200]))
    else:
        races.append("%s: %s" % (label, body.strip()[:200]))
for body in con:
    if body.startswith("BUG: KCSAN:"):
        continue
    if splat.search(body) and not user_trap.match(body):
        failed += 1
        fails.append("%s: console: %s" % (label, body.strip()[:200]))
        continue
    m = ktap_case.match(body)
    if m:
        if "# SKIP" in m.group(3):
            skipped += 1
        elif m.group(1) == "ok":
            passed += 1
        else:
            failed += 1
            fails.append("%s: kunit: not ok %s" % (label, m.group(2)))

if os.environ.get("PERFTEST_CASES"):
    # Failures that are not a kselftest case: a program that died, a
    # splat, a KUnit case.
    others = [f for f in fails if ": not ok " not in f.split("\n")[0]
              or ": kunit: " in f]
    with open(os.environ["PERFTEST_CASES"], "w") as f:
        for prog, verdict, case in verdicts:
            f.write("%s\t%s\t%s\n" % (prog, verdict, case))
        for o in others:
            f.write("-\tfail\t%s\n" % o.split("\n")[0][len(label) + 2:])

for x in xfails:
    print("XFAIL " + x)
for r in races:
    print("KCSAN (outside perf) " + r)
for f in fails:
    print("FAIL " + f)
print("%s: %d passed, %d failed, %d skipped" % (label, passed, failed, skipped))
