#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Generate the patch series from the plan and the tested tree.

The tested tree is the series tree's HEAD (prepare.sh): the base with our
files in.  The plan (tools/testing/perf-vm/series) says in which patch
each changed path lands.  This script

  - checks that the plan places every path that differs between the base
    and the tested tree exactly once, and nothing else;
  - makes one commit per planned patch on top of the base, with git
    plumbing in a private index (no work tree);
  - writes them with format-patch, renames and rewrites detected, and a
    cover letter built from the current state;
  - applies the patches with git am on a clean checkout of the base and
    checks that the result is the tested tree;
  - runs checkpatch --strict on every patch;
  - with --check build|boot, builds every step of the series in one
    persistent work tree and object directory (incremental, ccache).

Plan syntax: '#' at the start of a line is a comment outside message
bodies.  A patch starts with 'patch: SUBJECT' and a header, one key per
line (continuation lines start with white space):

  files:   paths written with their final contents
  stage:   paths that collide with files the base builds: written at
           DIR/next/NAME, where nothing builds them
  switch:  (no value) moves every staged file into place
  delete:  directories or files whose base files the series removes
  partial: PATH lines|blocks REGEX   an early version of PATH without the
           lines, or blocks (a line at column 0 and the indented or
           blank lines after it: a Kconfig entry), that match REGEX; the
           full file lands in a later patch (at its staged path when
           that patch stages it)

A blank line ends the header; the commit message body follows, up to the
next 'patch:' line.  'cover: SUBJECT' with a body gives the cover letter's
subject and opening.
"""

import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile

ADD_LIMIT = 1500
BODY_WIDTH = 72


def die(msg):
    print(f"series: error: {msg}", file=sys.stderr)
    sys.exit(1)


def log(msg):
    print(f"series: {msg}", file=sys.stderr, flush=True)


class Git:
    def __init__(self, repo, env=None):
        self.repo = repo
        self.env = dict(os.environ)
        if env:
            self.env.update(env)

    def run(self, *args, inp=None, env=None, check=True, binary=False):
        e = dict(self.env)
        if env:
            e.update(env)
        r = subprocess.run(["git", "-C", self.repo] + list(args),
                           input=inp, capture_output=True, env=e,
                           text=not binary)
        if check and r.returncode:
            err = r.stderr if not binary else r.stderr.decode()
            die(f"git {' '.join(args[:3])}: {err.strip()}")
        return r.stdout if check else r


# ---------------------------------------------------------------- the plan

class Patch:
    def __init__(self, subject, line):
        self.subject = subject
        self.line = line
        self.files = []
        self.stage = []
        self.switch = False
        self.delete = []
        self.partial = []	# (path, kind, regex)
        self.body = []


def parse_plan(path):
    cover = None
    patches = []
    cur = None
    in_header = False
    key = None
    with open(path) as f:
        lines = f.read().split("\n")
    for n, raw in enumerate(lines, 1):
        m = re.match(r"^(patch|cover): (.*)$", raw)
        if m:
            cur = Patch(m.group(2).strip(), n)
            if m.group(1) == "cover":
                if cover or patches:
                    die(f"{path}:{n}: one cover, before the patches")
                cover = cur
            else:
                patches.append(cur)
            in_header = True
            key = None
            continue
        if cur is None:
            if raw.strip() and not raw.startswith("#"):
                die(f"{path}:{n}: text before the first patch")
            continue
        if in_header:
            if not raw.strip():
                in_header = False
                continue
            if raw.startswith("#"):
                continue
            m = re.match(r"^(files|stage|switch|delete|partial):\s*(.*)$", raw)
            if m:
                key, val = m.group(1), m.group(2)
            elif raw[0].isspace() and key:
                val = raw
            else:
                die(f"{path}:{n}: unknown header line: {raw}")
            if key == "switch":
                cur.switch = True
            elif key == "partial":
                if val.strip():
                    p = val.split(None, 2)
                    if len(p) != 3 or p[1] not in ("lines", "blocks"):
                        die(f"{path}:{n}: partial: PATH lines|blocks REGEX")
                    cur.partial.append((p[0], p[1], p[2]))
            else:
                getattr(cur, key).extend(val.split())
            continue
        if raw.startswith("#"):
            continue
        cur.body.append(raw)
    for p in ([cover] if cover else []) + patches:
        while p.body and not p.body[-1].strip():
            p.body.pop()
        while p.body and not p.body[0].strip():
            p.body.pop(0)
    return cover, patches


def staged_path(path):
    d, b = os.path.split(path)
    return f"{d}/next/{b}"


def filtered(text, kind, regex):
    rx = re.compile(regex)
    if kind == "lines":
        return "".join(ln for ln in text.splitlines(True) if not rx.search(ln))
    # Blocks: a line at column 0 (config, comment, source, ...) and the
    # indented or blank lines after it, as Kconfig entries are laid out.
    blocks, cur = [], []
    for ln in text.splitlines(True):
        if cur and ln.strip() and not ln[0].isspace():
            blocks.append("".join(cur))
            cur = []
        cur.append(ln)
    if cur:
        blocks.append("".join(cur))
    return "".join(b for b in blocks if not rx.search(b)).rstrip("\n") + "\n"


def validate(plan_path, patches, changed, deleted):
    errors = []
    placed = {}
    staged = set()
    for i, p in enumerate(patches, 1):
        where = f"{plan_path}:{p.line} (patch {i})"
        if len(p.subject) > 70:
            errors.append(f"{where}: subject longer than 70 columns")
        if not re.match(r"^[\w/. -]+: \S", p.subject):
            errors.append(f"{where}: subject is not 'subsystem: summary'")
        if not p.body:
            errors.append(f"{where}: no commit message")
        for ln in p.body:
            if len(ln) > BODY_WIDTH:
                errors.append(f"{where}: message line over {BODY_WIDTH}"
                              f" columns: {ln[:40]}...")
        for f in p.files + p.stage:
            if f not in changed:
                errors.append(f"{where}: {f} is not a file the series"
                              " adds or changes")
            elif f in placed:
                errors.append(f"{where}: {f} is already placed by patch"
                              f" {placed[f]}")
            else:
                placed[f] = i
        for f, _, _ in p.partial:
            if f not in changed:
                errors.append(f"{where}: partial {f} is not a file the"
                              " series adds or changes")
            elif f in placed:
                errors.append(f"{where}: partial {f} comes after the whole"
                              f" file (patch {placed[f]})")
        staged.update(p.stage)
        if p.switch:
            staged.clear()
    for f in sorted(staged):
        errors.append(f"{f} is staged but no later patch has 'switch:'")
    for f in sorted(changed):
        if f not in placed:
            errors.append(f"{f} is not in the series plan: add it to the"
                          f" patch of its concern in {plan_path}")
    covered = set()
    for p in patches:
        for d in p.delete:
            hit = [f for f in deleted if f == d or f.startswith(d + "/")]
            if not hit:
                errors.append(f"{plan_path}:{p.line}: delete: {d} removes"
                              " nothing")
            covered.update(hit)
    for f in sorted(set(deleted) - covered):
        errors.append(f"{f} is removed by the series but no patch deletes"
                      f" it: add it to a 'delete:' in {plan_path}")
    if errors:
        for e in errors:
            print(f"series: error: {e}", file=sys.stderr)
        sys.exit(1)


# ------------------------------------------------------------ the commits

def make_commits(git, patches, tested, deleted, ident, date):
    tmp = tempfile.mkdtemp(prefix="series-index.")
    env = {"GIT_INDEX_FILE": os.path.join(tmp, "index")}
    git.run("read-tree", "base", env=env)
    staged = []
    parent = git.run("rev-parse", "base").strip()
    commits = []

    def blob_of(path):
        return git.run("rev-parse", f"{tested}:{path}").strip()

    def mode_of(path):
        out = git.run("ls-tree", tested, "--", path)
        return out.split()[0]

    def put(path, blob, mode):
        git.run("update-index", "--add", "--cacheinfo",
                f"{mode},{blob},{path}", env=env)

    def drop(path):
        git.run("update-index", "--force-remove", "--", path, env=env)

    # A partial version of a file staged later lands where it is staged.
    later_staged = {f for p in patches for f in p.stage}
    for p in patches:
        for f, kind, rx in p.partial:
            text = git.run("cat-file", "blob", blob_of(f))
            blob = git.run("hash-object", "-w", "--stdin",
                           inp=filtered(text, kind, rx)).strip()
            put(staged_path(f) if f in later_staged else f, blob, mode_of(f))
        for f in p.files:
            put(f, blob_of(f), mode_of(f))
        for f in p.stage:
            put(staged_path(f), blob_of(f), mode_of(f))
            staged.append(f)
        for d in p.delete:
            for f in deleted:
                if f == d or f.startswith(d + "/"):
                    drop(f)
        if p.switch:
            for f in staged:
                drop(staged_path(f))
                put(f, blob_of(f), mode_of(f))
            staged = []
        tree = git.run("write-tree", env=env).strip()
        msg = p.subject + "\n\n" + "\n".join(p.body) + \
            f"\n\nSigned-off-by: {ident[0]} <{ident[1]}>\n"
        cenv = {"GIT_AUTHOR_NAME": ident[0], "GIT_AUTHOR_EMAIL": ident[1],
                "GIT_COMMITTER_NAME": ident[0],
                "GIT_COMMITTER_EMAIL": ident[1],
                "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
        parent = git.run("commit-tree", tree, "-p", parent, inp=msg,
                         env=cenv).strip()
        commits.append(parent)
    shutil.rmtree(tmp)
    return commits


# ---------------------------------------------------------- cover letter

def rst_section(text, title):
    """The body of the top-level section TITLE, rst markup flattened."""
    lines = text.split("\n")
    out = None
    for i, ln in enumerate(lines):
        under = lines[i + 1] if i + 1 < len(lines) else ""
        is_title = under and re.fullmatch(r"=+", under) and ln.strip()
        if out is not None:
            if is_title:
                break
            out.append(ln)
        elif is_title and ln.strip() == title:
            out = []
    if out is None:
        die(f"the documentation has no section '{title}'")
    s = "\n".join(ln for ln in out if not re.fullmatch(r"=+", ln))
    s = s.replace("``", "")
    s = re.sub(r"`([^`]+)`_", r"\1", s)
    return rewrap(s.strip("\n"))


def rewrap(s, width=72):
    """Refill paragraphs and bullets to WIDTH columns."""
    import textwrap
    out = []
    for para in re.split(r"\n\s*\n", s):
        items = re.split(r"\n(?=\* )", para)
        for it in items:
            words = " ".join(it.split())
            if words.startswith("* "):
                out.append(textwrap.fill(words[2:], width, initial_indent="- ",
                                         subsequent_indent="  "))
            else:
                out.append(textwrap.fill(words, width))
        out.append("")
    return "\n".join(out).rstrip("\n")


def registered_pmus(git, tested):
    """Names passed to perf_pmu_register() in the tested tree."""
    out = git.run("grep", "-h", "-o", "-E",
                  r'perf_pmu_register\([^,]+, *"[^"]+"', tested, "--",
                  "kernel/events", "arch/x86/events", check=False)
    names = re.findall(r'"([^"]+)"', out.stdout if hasattr(out, "stdout")
                       else out)
    return sorted(set(names))


def refused_options(git, tested):
    """Kconfig options kept by name but refused (depends on n)."""
    res = []
    for kc in ("kernel/events/Kconfig", "arch/x86/events/Kconfig"):
        r = git.run("show", f"{tested}:{kc}", check=False)
        if r.returncode:
            continue
        for blk in re.split(r"\n(?=config )", r.stdout):
            m = re.match(r'config (\w+)\n\s+(?:bool|tristate) "([^"]*)"', blk)
            if m and re.search(r"^\s+depends on n$", blk, re.M):
                res.append(f"CONFIG_{m.group(1)} ({m.group(2)})")
    return res


def check_totals(top):
    d = os.path.join(top, "out", "check")
    rows = []
    if os.path.isdir(d):
        for f in sorted(os.listdir(d)):
            if f.endswith(".summary"):
                with open(os.path.join(d, f)) as fh:
                    for ln in fh:
                        if re.match(r"^\S+: \d+ passed", ln):
                            rows.append("  " + ln.strip())
    return rows


def bench_table(top):
    path = os.path.join(top, "out", "bench", "results.csv")
    if not os.path.exists(path):
        return []
    rows = [ln.strip().split(",") for ln in open(path) if ln.strip()]
    out = [f"  {'benchmark':<28} {'unit':<6} {'stock':>10} {'ours':>10}"
           f" {'ratio':>6}"]
    for r in rows[1:]:
        if len(r) < 5:
            continue
        try:
            ratio = f"{float(r[4]):.2f}"
        except ValueError:
            ratio = r[4]
        out.append(f"  {r[0]:<28} {r[1]:<6} {r[2]:>10} {r[3]:>10}"
                   f" {ratio:>6}")
    return out


def tests_section(top):
    """The cover letter's Tests section: the last make check's totals."""
    tot = check_totals(top)
    parts = ["Tests", "-----"]
    if tot:
        cpath = os.path.join(top, "out", "check", "commit")
        on = ""
        if os.path.exists(cpath):
            on = f" (on {open(cpath).read().strip()})"
        parts.append(rewrap("The kselftests (tools/testing/selftests/"
                            "perf_events), KUnit suites, perf tool and"
                            " bpftrace scripts and a short fuzz, in QEMU;"
                            " totals of the last 'make check' run" + on +
                            ", per kernel, PMU and CPU count (stock is"
                            " the unmodified 6.12 with the same"
                            " configuration):"))
        parts += tot
    else:
        parts.append("No 'make check' results were found in out/check.")
    parts.append("")
    return parts


def refresh_totals(top, out):
    """Put the totals of the make check that just ended in the cover
    letter of out/patches, written while its runs went on."""
    d = os.path.join(out, "patches")
    covers = sorted(f for f in os.listdir(d) if f.startswith("0000-"))
    if not covers:
        die(f"{d}: no cover letter")
    path = os.path.join(d, covers[0])
    text = open(path).read()
    m = re.search(r"^Tests\n-----\n.*?(?=^Benchmarks\n)", text, re.M | re.S)
    if not m:
        die(f"{path}: no Tests section")
    new = "\n".join(tests_section(top)) + "\n"
    open(path, "w").write(text[:m.start()] + new + text[m.end():])


def cover_text(git, tested, top, cover, exceptions):
    doc = git.run("show", f"{tested}:Documentation/userspace-api/"
                  "perf_event.rst")
    parts = ["\n".join(cover.body), ""]
    parts += ["Design", "------", rst_section(doc, "Design notes"), ""]
    parts += ["Differences a user can see", "--------------------------",
              rst_section(doc, "Deliberate differences"), ""]
    pmus = registered_pmus(git, tested)
    parts += ["What is implemented", "-------------------",
              rewrap("PMUs the code registers, each where its hardware or"
                     " option is present: " + ", ".join(pmus) + "."), ""]
    parts += ["What is not", "-----------",
              rst_section(doc, "Not implemented yet"), ""]
    refused = refused_options(git, tested)
    if refused:
        parts.append(rewrap("Kconfig keeps these options by name and"
                            " refuses them, with a message:"))
        parts += ["  " + r for r in refused]
        parts.append("")
    parts += tests_section(top)
    tab = bench_table(top)
    parts += ["Benchmarks", "----------"]
    if tab:
        parts.append(rewrap("The last 'make bench' run, the stock 6.12"
                            " kernel against this series on the same QEMU"
                            " and configuration (ratio = ours / stock,"
                            " lower is better):"))
        parts += tab
    else:
        parts.append("No 'make bench' results were found in out/bench.")
    parts.append("")
    if exceptions:
        parts += ["checkpatch", "----------",
                  rewrap("checkpatch --strict is clean except for these"
                         " findings, kept on purpose:")]
        for e in exceptions:
            parts.append(rewrap(f"* {e}"))
        parts.append("")
    return "\n".join(parts).rstrip("\n") + "\n"


# --------------------------------------------------------------- checks

def added_lines(patch_text):
    n = 0
    for ln in patch_text.split("\n"):
        if ln.startswith("+") and not ln.startswith("+++"):
            n += 1
    return n


def load_exceptions(path):
    """Lines 'PATH-GLOB TYPE reason': checkpatch findings kept on purpose."""
    ex = []
    if not os.path.exists(path):
        return ex
    for ln in open(path):
        ln = ln.rstrip("\n")
        if not ln.strip() or ln.startswith("#"):
            continue
        glob, typ, reason = ln.split(None, 2)
        ex.append((glob, typ, reason))
    return ex


def parallel(fn, items):
    """fn over items, a process per CPU at a time; results in order."""
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 1) as ex:
        return list(ex.map(fn, items))


def run_checkpatch(src, patches, exceptions):
    import fnmatch
    env = dict(os.environ)
    env["PATH"] = "/usr/bin:" + env.get("PATH", "")
    totals = {"kernel": [0, 0, 0], "selftests": [0, 0, 0]}
    kept = {}
    bad = []
    def one(p):
        r = subprocess.run([os.path.join(src, "scripts/checkpatch.pl"),
                            "--strict", "--show-types", "--ignore",
                            "FILE_PATH_CHANGES", p],
                           capture_output=True, text=True, env=env,
                           cwd=src)
        return r.stdout + r.stderr

    for p, out in zip(patches, parallel(one, patches)):
        if "Traceback" in out or "No such file" in out:
            die(f"checkpatch did not run every check on {p}: {out[-400:]}")
        for m in re.finditer(r"^(ERROR|WARNING|CHECK):(\w+): (.*)\n"
                             r"(?:.*\n)*?#\d+: FILE: ([^:]+):(\d+)",
                             out, re.M):
            level, typ, text, path, line = m.groups()
            ok = None
            for g, t, reason in exceptions:
                if t == typ and fnmatch.fnmatch(path, g):
                    ok = reason
            area = "selftests" if path.startswith("tools/") else "kernel"
            if ok:
                kept.setdefault((typ, ok), []).append(f"{path}:{line}")
                continue
            idx = {"ERROR": 0, "WARNING": 1, "CHECK": 2}[level]
            totals[area][idx] += 1
            bad.append(f"{os.path.basename(p)}: {level}:{typ}: {path}:"
                       f"{line}: {text}")
    return totals, kept, bad


def maintainers_cover(src, paths):
    """Added files with no MAINTAINERS entry but THE REST.

    checkpatch asks whether MAINTAINERS needs updating for every patch
    that adds or moves a file (FILE_PATH_CHANGES); instead of that
    question, check the answer: every added file's final path must be
    covered by an entry already.
    """
    env = dict(os.environ)
    env["PATH"] = "/usr/bin:" + env.get("PATH", "")
    bare = []

    def one(path):
        return subprocess.run([os.path.join(src, "scripts/get_maintainer.pl"),
                               "--no-git", "--no-git-fallback", "--no-email",
                               "--no-l", "--subsystem", "--no-rolestats",
                               "-f", path], capture_output=True, text=True,
                              cwd=src, env=env)

    paths = sorted(paths)
    for path, r in zip(paths, parallel(one, paths)):
        entries = [ln for ln in r.stdout.splitlines() if ln.strip()]
        if r.returncode or not [e for e in entries if e != "THE REST"]:
            bare.append(path)
    return bare


def add_replaced_deletions(git, path, parent):
    """Spell out the deletion of files a rename replaces.

    With -B -M, git writes a staged file moving onto a path that held
    another file as a rename alone, which git apply refuses ("already
    exists"): put the deletion of the old file in front of the rename.
    """
    text = open(path).read()
    targets = re.findall(r"^rename to (\S+)$", text, re.M)
    old = [t for t in targets
           if git.run("cat-file", "-e", f"{parent}:{t}", check=False)
           .returncode == 0
           and not re.search(rf"^diff --git a/{re.escape(t)} b/"
                             rf"{re.escape(t)}\ndeleted file", text, re.M)]
    if not old:
        return
    tmp = tempfile.mkdtemp(prefix="series-index.")
    env = {"GIT_INDEX_FILE": os.path.join(tmp, "index")}
    git.run("read-tree", parent, env=env)
    for t in old:
        git.run("update-index", "--force-remove", "--", t, env=env)
    tree = git.run("write-tree", env=env).strip()
    shutil.rmtree(tmp)
    for t in old:
        dele = git.run("diff", "--no-renames", "--full-index", parent, tree,
                       "--", t)
        m = re.search(r"^diff --git a/\S+ b/" + re.escape(t) + r"\n"
                      r"(?:similarity|rename from)", text, re.M)
        if not m:
            die(f"{path}: no rename onto {t}")
        text = text[:m.start()] + dele + text[m.start():]
    # The diffstat format-patch wrote does not know of those deletions.
    head, sep, rest = text.partition("\n---\n")
    first = rest.find("\ndiff --git ")
    r = subprocess.run(["git", "apply", "--stat", "--summary", "-"],
                       input=text, capture_output=True, text=True)
    if r.returncode or first < 0:
        die(f"{path}: cannot compute the diffstat: {r.stderr.strip()}")
    text = head + sep + r.stdout + "\n" + rest[first + 1:]
    open(path, "w").write(text)


# ----------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--top", required=True)
    ap.add_argument("--src", help="the series git tree")
    ap.add_argument("--out", required=True)
    ap.add_argument("--plan")
    ap.add_argument("--exceptions")
    ap.add_argument("--refresh-totals", action="store_true",
                    help="only put the last make check's totals in the"
                    " cover letter already written")
    args = ap.parse_args()
    if args.refresh_totals:
        refresh_totals(args.top, args.out)
        return
    if not (args.src and args.plan and args.exceptions):
        ap.error("--src, --plan and --exceptions are needed")

    git = Git(args.src)
    tested = git.run("rev-parse", "HEAD^{tree}").strip()
    base_tree = git.run("rev-parse", "base^{tree}").strip()
    status = git.run("diff", "--name-status", "--no-renames", base_tree,
                     tested)
    changed, deleted = set(), []
    for ln in status.splitlines():
        st, path = ln.split("\t", 1)
        if st == "D":
            deleted.append(path)
        else:
            changed.add(path)

    cover, patches = parse_plan(args.plan)
    if cover is None:
        die(f"{args.plan}: no 'cover:' entry")
    validate(os.path.relpath(args.plan, args.top), patches, changed, deleted)

    top = Git(args.top)
    name = os.environ.get("GIT_AUTHOR_NAME") or \
        top.run("config", "user.name", check=False).stdout.strip()
    email = os.environ.get("GIT_AUTHOR_EMAIL") or \
        top.run("config", "user.email", check=False).stdout.strip()
    if not name or not email:
        die("git config user.name and user.email must be set: the series"
            " is sent and signed off by whoever generates it")
    date = top.run("log", "-1", "--format=%aD", "HEAD").strip()

    commits = make_commits(git, patches, tested, deleted, (name, email),
                           date)
    tip = commits[-1]
    if git.run("rev-parse", f"{tip}^{{tree}}").strip() != tested:
        diff = git.run("diff", "--stat", tip, tested)
        die("the planned series does not end at the tested tree:\n" + diff)
    git.run("update-ref", "refs/heads/patches", tip)

    dst = os.path.join(args.out, "patches")
    shutil.rmtree(dst, ignore_errors=True)
    os.makedirs(dst)
    git.run("format-patch", "-q", "-M", "-B", "--cover-letter",
            "--no-signature", "--thread=shallow", "-o", dst,
            "base..patches",
            env={"GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": email,
                 "GIT_COMMITTER_NAME": name, "GIT_COMMITTER_EMAIL": email,
                 "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date})
    files = sorted(os.listdir(dst))
    cover_path = os.path.join(dst, files[0])
    series = [os.path.join(dst, f) for f in files[1:]]
    parents = [git.run("rev-parse", "base").strip()] + commits[:-1]
    for path, parent in zip(series, parents):
        add_replaced_deletions(git, path, parent)

    # Sizes and what each patch touches.
    errors = []
    sizes = []
    for i, (p, path) in enumerate(zip(patches, series), 1):
        text = open(path).read()
        n = added_lines(text)
        sizes.append(n)
        if n > ADD_LIMIT:
            errors.append(f"patch {i} ({p.subject}) adds {n} lines, more"
                          f" than {ADD_LIMIT}: split it by concern")

    # git am on a clean checkout of the base gives the tested tree.
    wt = tempfile.mkdtemp(prefix="series-am.", dir=args.out)
    os.rmdir(wt)
    git.run("worktree", "prune")
    git.run("worktree", "add", "-q", "--detach", wt, "base")
    try:
        am = Git(wt)
        r = am.run("-c", f"user.name={name}", "-c", f"user.email={email}",
                   "am", "-q", "--keep-cr", *series, check=False)
        if r.returncode:
            die(f"git am does not apply the series: {r.stderr.strip()}")
        got = am.run("rev-parse", "HEAD^{tree}").strip()
        if got != tested:
            die("the applied series differs from the tested tree:\n" +
                am.run("diff", "--stat", "HEAD", tested))
    finally:
        git.run("worktree", "remove", "--force", wt, check=False)
    log(f"git am of the {len(series)} patches on the base gives the tested"
        " tree")

    added = [f for f in changed
             if git.run("cat-file", "-e", f"base:{f}", check=False)
             .returncode]
    bare = maintainers_cover(args.src, added)
    for f in bare:
        errors.append(f"{f}: no MAINTAINERS entry covers it")
    log(f"MAINTAINERS covers the {len(added) - len(bare)} files the series"
        " adds")

    exceptions = load_exceptions(args.exceptions)
    totals, kept, bad = run_checkpatch(args.src, series, exceptions)
    ex_lines = [f"{typ}: {reason} ({', '.join(sorted(set(where))[:6])}"
                f"{', ...' if len(set(where)) > 6 else ''})"
                for (typ, reason), where in sorted(kept.items())]

    ex_lines.append("FILE_PATH_CHANGES (does MAINTAINERS need updating?) is"
                    " not asked: make patches checks instead that an entry"
                    " of MAINTAINERS covers every file the series adds")
    text = cover_text(git, tested, args.top, cover, ex_lines)
    s = open(cover_path).read()
    s = s.replace("*** SUBJECT HERE ***", cover.subject)
    s = s.replace("*** BLURB HERE ***", text.rstrip("\n"))
    open(cover_path, "w").write(s)

    for i, (p, n) in enumerate(zip(patches, sizes), 1):
        print(f"{i:3d} +{n:<5d} {p.subject}")
    for b in bad:
        print(b)
    k, t = totals["kernel"], totals["selftests"]
    print(f"{len(series)} patches in {dst}, largest +{max(sizes)} lines")
    print(f"checkpatch --strict, kernel code: {k[0]} errors, {k[1]}"
          f" warnings, {k[2]} checks; selftests and tools: {t[0]} errors,"
          f" {t[1]} warnings, {t[2]} checks;"
          f" {sum(len(v) for v in kept.values())} kept on purpose")
    if k[0] or k[1]:
        errors.append("checkpatch finds errors or warnings in kernel code")
    if t[0] or t[1]:
        errors.append("checkpatch finds errors or warnings in the"
                      " selftests that are not listed as kept on purpose")
    if errors:
        for e in errors:
            print(f"series: error: {e}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
