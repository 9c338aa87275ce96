# perf_event, rewritten: build, boot and test entry points.
# See README.md.  Everything generated lives under out/.

PERFVM := tools/testing/perf-vm
KERNEL ?= all

.PHONY: all run check check-full stock debug kcsan kernel deps prepare selftests patches bench fuzz boot-count qemu-pmu distro-check clean help

all: run

help:
	@echo "make run      build our kernel, boot it in QEMU, run perf stat"
	@echo "make check    build our kernels and run every test; the stock kernel's"
	@echo "              verdicts come from its record (KERNEL=stock: run the base"
	@echo "              and write the record)"
	@echo "make check-full  make check with the KCSAN kernel and stock run for real"
	@echo "make stock    build the unmodified base kernel with the same config"
	@echo "make patches  write the planned series to out/patches, check it applies and is"
	@echo "              checkpatch-clean (CHECK=build: build every step; CHECK=boot: and boot)"
	@echo "make distro-check  Debian's kernel configuration on the series: no option"
	@echo "              lost, every perf user compiles, no perf symbol undefined"
	@echo "make bench    benchmarks, stock against ours"
	@echo "make fuzz     the perf_event fuzzer (SECONDS=N SEED=S KERNEL=debug|qemu|stock|kcsan SMP=n)"
	@echo "make qemu-pmu our QEMU: the emulated x86 PMU and a TCG fix (every guest runs on it)"
	@echo "make boot-count  boot a kernel N times and count how the boots ended"
	@echo "              (KERNEL=debug|stock-debug|... N=50 PMU=intel PERFVM_QEMU=...)"

deps:
	@$(PERFVM)/deps.sh

prepare: deps
	@$(PERFVM)/prepare.sh >/dev/null

kernel: prepare
	@$(PERFVM)/build.sh qemu >/dev/null

debug: prepare
	@$(PERFVM)/build.sh debug >/dev/null

stock: prepare
	@$(PERFVM)/build.sh stock >/dev/null

kcsan: prepare
	@$(PERFVM)/build.sh kcsan >/dev/null

run: prepare
	@$(PERFVM)/run.sh

check: prepare
	@$(PERFVM)/check.sh $(KERNEL)

check-full: prepare
	@$(PERFVM)/check.sh full

patches: prepare
	@CHECK=$(CHECK) $(PERFVM)/patches.sh

distro-check: prepare
	@$(PERFVM)/distro-check.sh

bench: prepare
	@$(PERFVM)/bench.sh

qemu-pmu:
	@tools/testing/qemu-pmu/build.sh >/dev/null

# make's own SECONDS would be the shell's: passed on as SECONDS_.
fuzz: prepare
	@SECONDS_=$(SECONDS) SEED=$(SEED) KERNEL=$(if $(filter all,$(KERNEL)),debug,$(KERNEL)) \
		SMP=$(SMP) $(PERFVM)/fuzz.sh

boot-count: prepare
	@PMU=$(PMU) $(PERFVM)/boot-count.sh $(if $(filter all,$(KERNEL)),debug,$(KERNEL)) $(or $(N),50)

clean:
	rm -rf out/build out/vm out/patches out/patches-build
