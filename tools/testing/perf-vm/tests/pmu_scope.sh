#!/bin/sh
# PMUs with a scope (struct pmu's scope), through a module that has one
# (perf-vm/modules/perf_test_scope.c): a counter shared by the CPUs of a
# core, die, cluster, package or the system, that only the module's
# "tick" parameter moves, so every event's count is known.
#  - The PMU's "cpumask" holds one online CPU of each scope instance,
#    for each scope; PMUs without a scope have no cpumask.
#  - perf stat -a opens the PMU's events on those CPUs and counts.
#  - An event may be read from any CPU of its scope, without an IPI: the
#    PMU's read runs on the reading CPU.
#  - When the CPU that reads a scope goes offline, another CPU of the
#    scope takes over, in cpumask and with the events, which go on
#    counting; where none is left, the events stop and stay readable.
# Migration needs a scope whose CPU is not CPU 0 and has a second CPU
# (-smp 4,sockets=2,cores=2); elsewhere that part skips.  Prints TAP.
dir=$(cd "$(dirname "$0")" && pwd)
mods=$dir/../modules/$(uname -r)
tmp=$(mktemp -d)
p=/sys/module/perf_test_scope/parameters
d=/sys/bus/event_source/devices/perf_test_scope
trap 'rmmod perf_test_scope 2>/dev/null; for c in /sys/devices/system/cpu/cpu[0-9]*/online; do echo 1 >$c 2>/dev/null; done; rm -rf "$tmp"' EXIT

. "$dir/lib/tap.sh"
echo "TAP version 13"
[ -e /proc/modules ] || skip "no module support in this kernel (CONFIG_MODULES)"
[ -f "$mods/perf_test_scope.ko" ] || skip "no test modules built for $(uname -r)"
command -v python3 >/dev/null || skip "no python3 for the perf_event_open() calls"
cd "$tmp" || exit 1

[ ! -e /sys/bus/event_source/devices/software/cpumask ]
result $? "a PMU without a scope has no cpumask"

# The cases, in python for perf_event_open(); each line it prints is
# "STATUS DESCRIPTION" (STATUS 0 passed, 1 failed, 2 skipped).
cat >scope.py <<'EOF'
import ctypes, errno, os, struct, sys

libc = ctypes.CDLL(None, use_errno=True)
P = "/sys/module/perf_test_scope/parameters/"
D = "/sys/bus/event_source/devices/perf_test_scope/"
SCOPE, NAME = int(sys.argv[1]), sys.argv[2]
TOPO = {1: "core_cpus_list", 2: "die_cpus_list", 3: "cluster_cpus_list",
        4: "package_cpus_list"}

def say(ok, desc):
    print("%d %s: %s" % (0 if ok else 1, NAME, desc), flush=True)

def skip(desc, why):
    print("2 %s: %s|%s" % (NAME, desc, why), flush=True)

def cpulist(s):
    out = set()
    for part in s.strip().split(","):
        if not part:
            continue
        a, _, b = part.partition("-")
        out |= set(range(int(a), int(b or a) + 1))
    return out

def rd(path):
    with open(path) as f:
        return f.read()

def online():
    return cpulist(rd("/sys/devices/system/cpu/online"))

def shared(cpu):
    if SCOPE == 5:
        return online()
    return cpulist(rd("/sys/devices/system/cpu/cpu%d/topology/%s" % (cpu, TOPO[SCOPE])))

def readers():
    return cpulist(rd(D + "cpumask"))

def set_online(cpu, on):
    with open("/sys/devices/system/cpu/cpu%d/online" % cpu, "w") as f:
        f.write("1" if on else "0")

def tick(n):
    with open(P + "tick", "w") as f:
        f.write(str(n))

def param(name):
    return int(rd(P + name))

class Attr(ctypes.Structure):
    _fields_ = [("type", ctypes.c_uint32), ("size", ctypes.c_uint32),
                ("config", ctypes.c_uint64), ("rest", ctypes.c_uint8 * 112)]

def open_event(cpu, pid=-1):
    a = Attr()
    a.type = int(rd(D + "type"))
    a.size = ctypes.sizeof(Attr)
    fd = libc.syscall(298, ctypes.byref(a), pid, cpu, -1, 0)
    return fd if fd >= 0 else -ctypes.get_errno()

def count(fd):
    return struct.unpack("Q", os.read(fd, 8))[0]

def valid_readers():
    r, on = readers(), online()
    ok = r <= on
    for c in on:
        ok = ok and len(shared(c) & r) == 1
    return ok, r

def cases():
    ok, r = valid_readers()
    say(ok, "cpumask %s has one online CPU of each scope" % sorted(r))

    fd = open_event(-1, 0)
    say(fd == -errno.EINVAL, "a task event: %d (want -EINVAL)" % fd)

    # Every online CPU may open an event; it counts the shared ticks.
    fds = {c: open_event(c) for c in sorted(online())}
    say(all(f >= 0 for f in fds.values()), "an event on each online CPU: %s" % fds)
    base = {c: count(f) for c, f in fds.items() if f >= 0}
    tick(5)
    got = {c: count(f) - base[c] for c, f in fds.items() if f >= 0}
    say(all(v == 5 for v in got.values()), "each counts 5 ticks: %s" % got)
    for f in fds.values():
        if f >= 0:
            os.close(f)

    # A read from another CPU of the event's scope runs there.
    pair = None
    for c in sorted(online()):
        others = sorted(shared(c) - {c})
        if others:
            pair = (c, others[0])
            break
    if pair:
        e, here = pair
        fd = open_event(e)
        os.sched_setaffinity(0, {here})
        count(fd)
        last = param("last_read")
        os.sched_setaffinity(0, online())
        os.close(fd)
        say(last == here, "an event of CPU %d read on CPU %d: read on %d" % (e, here, last))
    else:
        skip("a read from another CPU of the scope", "no scope has two online CPUs")

    def hotpluggable(c):
        return c != 0 and os.path.exists("/sys/devices/system/cpu/cpu%d/online" % c)

    # The reader of a scope with another CPU goes offline: the other takes over.
    mover = [c for c in sorted(readers()) if hotpluggable(c) and
             any(hotpluggable(o) for o in shared(c) - {c})]
    if mover:
        r = mover[0]
        scope_of_r = shared(r)
        fd = open_event(r)
        tick(3)
        set_online(r, False)
        now = readers()
        took = sorted(now & scope_of_r)
        say(r not in now and len(took) == 1,
            "CPU %d offline: cpumask %s (one CPU of its scope %s)" % (r, sorted(now), sorted(scope_of_r)))
        tick(4)
        n = count(fd)
        say(n == 7, "its event goes on counting on CPU %s: %d (want 7)" % (took, n))
        say(took and param("last_add") == took[0],
            "the PMU added it on CPU %d (want %s)" % (param("last_add"), took))
        set_online(r, True)
        say(readers() == now, "CPU %d back: cpumask %s (want %s)" % (r, sorted(readers()), sorted(now)))
        tick(1)
        n = count(fd)
        say(n == 8, "the event counts on: %d (want 8)" % n)
        if took and hotpluggable(took[0]):
            set_online(took[0], False)
            say(r in readers(), "CPU %d offline: CPU %d reads again (%s)" % (took[0], r, sorted(readers())))
            tick(2)
            n = count(fd)
            say(n == 10, "the event moved back and counts: %d (want 10)" % n)
            set_online(took[0], True)
        os.close(fd)
    else:
        skip("a scope's CPU goes offline", "no hotpluggable CPU reads a scope with another hotpluggable CPU")

    # The only CPU of its scope goes offline: its events stop, readable.
    alone = [c for c in sorted(readers()) if hotpluggable(c) and shared(c) == {c}]
    if alone and SCOPE != 5:
        r = alone[0]
        fd = open_event(r)
        tick(2)
        set_online(r, False)
        say(r not in readers(), "CPU %d offline: cpumask %s" % (r, sorted(readers())))
        tick(5)
        n = count(fd)
        say(n == 2, "its event stopped at 2: %d" % n)
        set_online(r, True)
        say(r in readers(), "CPU %d back reads its scope: %s" % (r, sorted(readers())))
        fd2 = open_event(r)
        say(fd2 >= 0, "a new event on CPU %d: %d" % (r, fd2))
        if fd2 >= 0:
            os.close(fd2)
        os.close(fd)
    else:
        skip("the only CPU of a scope goes offline", "no hotpluggable CPU is alone in its scope")

    ok, r = valid_readers()
    say(ok, "after hotplug, cpumask %s has one online CPU of each scope" % sorted(r))

present = sorted(online())
try:
    cases()
finally:
    for c in present:
        if c not in online():
            set_online(c, True)
EOF

for s in 1:core 2:die 3:cluster 4:package 5:system; do
	insmod "$mods/perf_test_scope.ko" scope="${s%%:*}" 2>ins.err
	result $? "insmod perf_test_scope scope=${s#*:}" ins.err
	[ -e $d/cpumask ] || { result 1 "${s#*:}: no cpumask"; rmmod perf_test_scope; continue; }
	python3 scope.py "${s%%:*}" "${s#*:}" >out 2>err
	result $? "${s#*:}: the cases ran" err
	while read -r st desc; do
		case $st in
		2) skip_one "${desc%%|*}" "${desc#*|}" ;;
		*) result "$st" "$desc" ;;
		esac
	done <out
	rmmod perf_test_scope 2>rm.err
	result $? "rmmod perf_test_scope" rm.err
done

# perf stat -a opens the events on the cpumask's CPUs.
insmod "$mods/perf_test_scope.ko" scope=4 2>ins.err
result $? "insmod perf_test_scope scope=package" ins.err
want=$(cat $d/cpumask)
perf stat -a -A -x, -e perf_test_scope/ticks/ -- sh -c "echo 6 >$p/tick" >stat.out 2>&1
result $? "perf stat -a -e perf_test_scope/ticks/" stat.out
got=$(awk -F, '/perf_test_scope/ { sub(/^CPU/, "", $1); printf "%s%s:%s", s, $1, $2; s = "," }' stat.out)
exp=$(python3 -c "
import sys
out = []
for part in sys.argv[1].split(','):
    a, _, b = part.partition('-')
    out += ['%d:6' % c for c in range(int(a), int(b or a) + 1)]
print(','.join(out))" "$want")
[ "$got" = "$exp" ]
result $? "perf stat -a: CPU:count $got (want $exp, cpumask $want)" stat.out
rmmod perf_test_scope
tap_done
