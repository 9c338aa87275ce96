# TAP for the script tests, sourced (not a test itself: build-tests.sh
# installs it beside them as lib/tap.sh).
#   skip REASON                  the whole test skips (exit 4)
#   result STATUS DESC [FILE]    a test point; FILE's head shown on failure
#   skip_one DESC REASON         a test point that skips
#   tap_done                     the plan; the exit status says if all passed
#   py_cases SCRIPT [ARG...]     test points from a Python script's lines
#                                (lib/pmu_open.py's say() and skip())
n=0 fail=0

skip() {
	echo "1..0 # SKIP $1"
	exit 4
}

result() {
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n $2"
	else
		echo "not ok $n $2"
		fail=$((fail + 1))
		[ -n "${3:-}" ] && sed -n '1,40s/^/# /p' "$3"
	fi
}

skip_one() {
	n=$((n + 1))
	echo "ok $n $1 # SKIP $2"
}

tap_done() {
	echo "1..$n"
	[ "$fail" -eq 0 ]
}

# Run the Python SCRIPT with lib/ on its path ($dir: the sourcing test's
# directory) and turn its lines into test points: "0 DESC" passed, "1
# DESC" failed, "2 DESC|WHY" skipped; and a point for the script's own
# exit status.
py_cases() {
	PYTHONPATH=$dir/lib python3 "$@" >cases.out 2>cases.err
	result $? "the cases ran" cases.err
	while read -r st desc; do
		case $st in
		2) skip_one "${desc%%|*}" "${desc#*|}" ;;
		*) result "$st" "$desc" ;;
		esac
	done <cases.out
}
