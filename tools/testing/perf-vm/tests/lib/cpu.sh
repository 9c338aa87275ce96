# The CPU a script test runs on, sourced (build-tests.sh installs it
# beside the tests as lib/cpu.sh): sets vendor (GenuineIntel,
# AuthenticAMD, ...), family and model (decimal) from the first CPU of
# /proc/cpuinfo.
vendor=$(awk -F': ' '/^vendor_id/ { print $2; exit }' /proc/cpuinfo)
family=$(awk -F': ' '/^cpu family/ { print $2; exit }' /proc/cpuinfo)
model=$(awk -F': ' '/^model\t/ { print $2; exit }' /proc/cpuinfo)
