#!/bin/sh
# gdb hardware watchpoints and breakpoints, through ptrace's debug
# registers, on watch_target.  Prints TAP.
dir=$(dirname "$0")
target=$dir/watch_target
cmds=$(mktemp)
out=$(mktemp)
trap 'rm -f "$cmds" "$out"' EXIT

echo "TAP version 13"
if ! command -v gdb >/dev/null || [ ! -x "$target" ]; then
	echo "1..0 # SKIP gdb or the target program is missing"
	exit 4
fi
line=$(grep -n "hbreak target" "$dir/watch_target.c" 2>/dev/null | cut -d: -f1)
[ -n "$line" ] || line=17
cat >"$cmds" <<EOC
set pagination off
set confirm off
break main
run
watch counter
continue
continue
rwatch other
continue
delete
awatch counter
continue
delete
hbreak watch_target.c:$line
continue
continue
EOC
cd "$dir" && timeout $((60 * ${PERFTEST_TIMEOUT_SCALE:-2})) \
	gdb -q -batch -x "$cmds" ./watch_target >"$out" 2>&1
cat "$out" | sed 's/^/# /'

n=0 fail=0
check() {	# description, grep pattern
	n=$((n + 1))
	if grep -q -- "$2" "$out"; then
		echo "ok $n $1"
	else
		echo "not ok $n $1"
		fail=$((fail + 1))
	fi
}
check "watch: first change reported as a hardware watchpoint" "Hardware watchpoint 2: counter"
check "watch: old value 0, new value 10" "New value = 10"
check "watch: next change 10 -> 20" "New value = 20"
check "rwatch: read of other reported with its value" "Value = 3"
check "awatch: access of counter reported" "Hardware access (read/write) watchpoint 4: counter"
check "hbreak: stops at the line" "Breakpoint 5, main () at .*watch_target.c:$line"
check "program exits normally" "exited normally"
n=$((n + 1))
if grep -q "^Program received signal SIGTRAP" "$out"; then
	echo "not ok $n no stop is reported as a bare SIGTRAP"
	fail=$((fail + 1))
else
	echo "ok $n no stop is reported as a bare SIGTRAP"
fi
echo "1..$n"
[ $fail -eq 0 ]
