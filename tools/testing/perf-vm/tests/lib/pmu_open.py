# Helpers for the perf_event_open() calls the PMU shell tests make from
# Python (power.sh, cstate.sh, the uncore tests): counting CPU events of a PMU named in
# sysfs, the CPUs of a package, hotplug, and result lines for the shell
# script to turn into TAP: "0 DESC" passed, "1 DESC" failed, "2 DESC|WHY"
# skipped.
import ctypes, errno, os, struct, subprocess, sys, time

libc = ctypes.CDLL(None, use_errno=True)
DEVICES = "/sys/bus/event_source/devices/"


def pmu_type(pmu):
    return int(open(DEVICES + pmu + "/type").read())


def cpulist(text):
    out = set()
    for part in text.strip().split(","):
        if part:
            a, _, b = part.partition("-")
            out |= set(range(int(a), int(b or a) + 1))
    return out


def package_of(cpu):
    return cpulist(open("/sys/devices/system/cpu/cpu%d/topology/package_cpus_list"
                        % cpu).read())


def say(ok, desc):
    print("%d %s" % (0 if ok else 1, desc), flush=True)


def skip(desc, why):
    print("2 %s|%s" % (desc, why), flush=True)


def open_event(type_, config, cpu=0, pid=-1, period=0, flags=0, group=-1,
               read_format=0):
    """An event of TYPE_ and CONFIG (in GROUP's group); its fd, or -errno."""
    # struct perf_event_attr, PERF_ATTR_SIZE_VER0 (64 bytes) is enough.
    attr = bytearray(struct.pack("IIQQQQQ", type_, 64, config, period, 0,
                                 read_format, 0))
    struct.pack_into("Q", attr, 40, flags)
    buf = ctypes.create_string_buffer(bytes(attr), 64)
    fd = libc.syscall(298, buf, pid, cpu, group, 8)
    return fd if fd >= 0 else -ctypes.get_errno()


def count(fd):
    return struct.unpack("Q", os.read(fd, 8))[0]


# read_format: the times an event was enabled and ran, after its count.
TIMES = 1 | 2


def count_times(fd):
    """COUNT, ENABLED, RUNNING of an event opened with TIMES."""
    return struct.unpack("QQQ", os.read(fd, 24))


def errno_of(desc, want, fd):
    """Say whether an open (its result FD) failed with WANT."""
    if fd >= 0:
        os.close(fd)
    say(fd == -want, "%s: %s (want -%s)" % (desc, fd if fd >= 0 else
        "-" + errno.errorcode.get(-fd, str(-fd)), errno.errorcode[want]))


def spin(secs):
    end = time.monotonic() + secs
    while time.monotonic() < end:
        pass


def spin_others(ncpu, secs):
    """Fork a spinner on each of CPUs 1 to NCPU-1 for SECS; their pids."""
    pids = []
    for c in range(1, ncpu):
        pid = os.fork()
        if pid == 0:
            os.sched_setaffinity(0, {c})
            spin(secs)
            os._exit(0)
        pids.append(pid)
    return pids


def set_online(cpu, on):
    with open("/sys/devices/system/cpu/cpu%d/online" % cpu, "w") as f:
        f.write("1" if on else "0")


def movable_reader(pmu):
    """A CPU of PMU's cpumask other than 0 whose package has another, or
    None: the reader a hotplug test can take offline."""
    mask = cpulist(open(DEVICES + pmu + "/cpumask").read())
    movable = [r for r in sorted(mask) if r != 0 and len(package_of(r)) > 1]
    return movable[0] if movable else None


def reader_to_offline(pmu, desc, unit):
    """movable_reader(PMU); without one, skip DESC (no UNIT, "package" or
    "node", has such a reader) and end the script."""
    r = movable_reader(pmu)
    if r is None:
        skip(desc, "no %s whose reader other than CPU 0 has a sibling "
             "(-smp 4,sockets=2,cores=2 has one)" % unit)
        sys.exit(0)
    return r


def online_cpus():
    return cpulist(open("/sys/devices/system/cpu/online").read())


def topology_key(cpu, level):
    """CPU's package ("pkg") or core ("core") as a string."""
    t = "/sys/devices/system/cpu/cpu%d/topology/" % cpu
    key = open(t + "physical_package_id").read().strip()
    if level == "core":
        key += "." + open(t + "core_id").read().strip()
    return key


def check_cpumask(pmu, level):
    """Say whether PMU's cpumask holds one online CPU of each package or
    core (LEVEL "pkg" or "core"), whichever CPU that is."""
    mask = cpulist(open(DEVICES + pmu + "/cpumask").read())
    online = online_cpus()
    keys = [topology_key(c, level) for c in sorted(mask & online)]
    want = {topology_key(c, level) for c in online}
    say(mask <= online and len(keys) == len(set(keys)) and set(keys) == want,
        "%s cpumask %s: an online CPU of each %s" %
        (pmu, ",".join(map(str, sorted(mask))),
         "core" if level == "core" else "package"))


def cpu_times():
    """Each CPU's idle and total time so far, from /proc/stat."""
    times = {}
    for line in open("/proc/stat"):
        f = line.split()
        if f[0].startswith("cpu") and f[0] != "cpu":
            t = [int(x) for x in f[1:9]]
            times[int(f[0][3:])] = (t[3] + t[4], sum(t))
    return times


def idle_shares(before, after, cpus):
    """The share of the time between two cpu_times() each of CPUS idled."""
    return [(after[c][0] - before[c][0]) /
            max(after[c][1] - before[c][1], 1) for c in sorted(cpus)]


def all_idle(shares):
    """The least share of the time CPUs with these idle SHARES can all
    have idled together (none of them need overlap before the sum passes
    one less than their number)."""
    return max(0.0, sum(shares) - (len(shares) - 1))


def counted(fds, secs, ncpu, busy, clock=None):
    """What each of FDS counts over SECS while this task, pinned to CPU 0,
    sleeps or (BUSY) spins with a spinner on each other CPU of NCPU;
    and the time that took: CLOCK's count if given, else seconds."""
    pids = []
    if busy:
        pids = spin_others(ncpu, secs + 0.5)
        time.sleep(0.2)
    before = [count(fd) for fd in fds]
    t0 = count(clock) if clock is not None else time.monotonic()
    if busy:
        spin(secs)
    else:
        time.sleep(secs)
    t1 = count(clock) if clock is not None else time.monotonic()
    after = [count(fd) for fd in fds]
    for pid in pids:
        os.waitpid(pid, 0)
    return [a - b for a, b in zip(after, before)], t1 - t0


def cued_loads(target, cpu, n, fds, good, rounds=8):
    """What FDS count while perf_hw_target (TARGET) runs N loads on CPU.

    The target, started once, runs each lot of loads on a cue through a
    pipe, so that what counts between a cue and its answer is the loads,
    two system calls and whatever else the kernel does meanwhile, not a
    process's start and exit (on a debug kernel a hundred million memory
    accesses, varying by millions).  What the kernel adds only adds: of
    up to ROUNDS rounds of a cue of no loads and one of N, each count's
    least is the one with the least of it; the rounds stop once
    GOOD(least, extra) holds.  Returns least (each count's least with N
    loads), extra (least less the least with none), most (each count's
    largest with N loads) and idle: what each counts while the target
    waits for as long as the rounds of N loads took on average, the
    kernel's own share of a round.
    """
    cue = subprocess.Popen(["taskset", "-c", str(cpu), target, "cued"],
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                           bufsize=0)

    def lot(k):
        before = [count(fd) for fd in fds]
        cue.stdin.write(b"%d\n" % k)
        if cue.stdout.read(1) != b"\n":
            raise RuntimeError("perf_hw_target cued gave no answer")
        return [count(fd) - b for fd, b in zip(fds, before)]

    lot(0)
    none = least = most = None
    took = []
    for _ in range(rounds):
        short = lot(0)
        t = time.monotonic()
        long = lot(n)
        took.append(time.monotonic() - t)
        none = short if none is None else list(map(min, none, short))
        least = long if least is None else list(map(min, least, long))
        most = long if most is None else list(map(max, most, long))
        extra = [b - a for a, b in zip(none, least)]
        if good(least, extra):
            break
    before = [count(fd) for fd in fds]
    time.sleep(sum(took) / len(took))
    idle = [count(fd) - b for fd, b in zip(fds, before)]
    cue.stdin.close()
    cue.wait()
    return least, extra, most, idle
