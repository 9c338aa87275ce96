// SPDX-License-Identifier: GPL-2.0
/*
 * A hybrid Intel part (PERFTEST_PMU=adl: the emulated Alder Lake, whose
 * first half of the CPUs are P-cores and the others E-cores).  CPUID
 * leaf 7 says hybrid, leaf 0x1A gives each CPU its core type, and leaf
 * 0xA reports what both types have (6 general and 3 fixed counters; a
 * P-core has 8 and 4).  A kernel that drives hybrid parts registers one
 * PMU per core type, cpu_core and cpu_atom, each with the CPUs of its
 * type, and an event of one type counts only on its CPUs.  A kernel
 * that does not must refuse the part cleanly: no "cpu" PMU sized from
 * one core type, hardware events ENOENT.  The runner fails the run on
 * any splat its console shows.
 */
#define _GNU_SOURCE
#include <cpuid.h>
#include <errno.h>
#include <sched.h>
#include "../kselftest_harness.h"
#include "perf_util.h"
#include "hw_util.h"

#define PMU_DIR "/sys/bus/event_source/devices/"
#define CORE_TYPE_ATOM 0x20
#define CORE_TYPE_CORE 0x40

static const char *hybrid_unavailable(void)
{
	if (!pmu_is("adl"))
		return "the guest's CPU is not hybrid (PMU=adl boots an Alder Lake)";
	return NULL;
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static int online_cpus(void)
{
	return (int)sysconf(_SC_NPROCESSORS_ONLN);
}

/* The first CPU of a PMU's "cpus" list ("0", "2-3", "0,2"); -1 if none. */
static int first_cpu(const char *pmu)
{
	char path[128];
	long v;

	snprintf(path, sizeof(path), PMU_DIR "%s/cpus", pmu);
	return read_file_long(path, &v) ? -1 : (int)v;
}

static int pmu_type(const char *pmu)
{
	char path[128];
	long v;

	snprintf(path, sizeof(path), PMU_DIR "%s/type", pmu);
	return read_file_long(path, &v) ? -1 : (int)v;
}

/* The emulation: hybrid in leaf 7, each CPU's type in leaf 0x1A. */
TEST(cpuid_describes_the_hybrid_part)
{
	unsigned int a, b, c, d, type;
	int cpu, n = online_cpus();
	const char *why = hybrid_unavailable();

	if (why)
		SKIP(return, "%s", why);
	ASSERT_GE(n, 2);
	__cpuid_count(7, 0, a, b, c, d);
	ASSERT_TRUE(d & (1U << 15));
	for (cpu = 0; cpu < n; cpu++) {
		ASSERT_EQ(0, pin(cpu));
		__cpuid_count(0x1a, 0, a, b, c, d);
		type = a >> 24;
		EXPECT_EQ(cpu < (n + 1) / 2 ? CORE_TYPE_CORE : CORE_TYPE_ATOM, type)
			TH_LOG("CPU %d: core type 0x%x", cpu, type);
		/* Version 5, six general and three fixed counters on both. */
		__cpuid_count(0xa, 0, a, b, c, d);
		EXPECT_EQ(5, a & 0xff);
		EXPECT_EQ(6, (a >> 8) & 0xff);
		EXPECT_EQ(3, d & 0x1f);
	}
}

/*
 * One PMU per core type, each counting the loop exactly on its own CPUs
 * and never running on the other type's.
 */
TEST(pmus_per_core_type_count_exactly)
{
	static const char *const pmus[] = { "cpu_core", "cpu_atom" };
	uint64_t count, v[3];
	const char *why = hybrid_unavailable();
	int i, cpu, type, other, fd, ofd;

	if (why)
		SKIP(return, "%s", why);
	if (access(PMU_DIR "cpu_core", F_OK) && kernel_is_ours())
		SKIP(return, "this kernel has no PMU per core type yet (issue 33)");
	for (i = 0; i < 2; i++) {
		cpu = first_cpu(pmus[i]);
		type = pmu_type(pmus[i]);
		other = pmu_type(pmus[!i]);
		ASSERT_LE(0, cpu) TH_LOG("no %s PMU with CPUs", pmus[i]);
		ASSERT_LT(0, type);
		ASSERT_LT(0, other);
		ASSERT_EQ(0, pin(cpu));
		/* The generic event with the PMU in the extended type bits. */
		fd = open_user(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS |
			       (uint64_t)type << PERF_PMU_TYPE_SHIFT, -1, 0, 0, 0);
		ASSERT_LE(0, fd) TH_LOG("%s/instructions/: %s", pmus[i], strerror(errno));
		ofd = open_user(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS |
				(uint64_t)other << PERF_PMU_TYPE_SHIFT, -1, 0, 0,
				PERF_FORMAT_TOTAL_TIME_ENABLED |
				PERF_FORMAT_TOTAL_TIME_RUNNING);
		ASSERT_LE(0, ofd);
		ASSERT_EQ(0, ioctl(ofd, PERF_EVENT_IOC_ENABLE, 0));
		count = count_spin(fd, 1000000);
		ASSERT_EQ(0, ioctl(ofd, PERF_EVENT_IOC_DISABLE, 0));
		EXPECT_GE(count, 2000000);
		EXPECT_LT(count, 2000100);
		TH_LOG("%s on CPU %d: %llu user instructions", pmus[i], cpu,
		       (unsigned long long)count);
		/* The other type's event never ran here. */
		ASSERT_EQ(sizeof(v), read(ofd, v, sizeof(v)));
		EXPECT_EQ(0, v[0]);
		EXPECT_EQ(0, v[2]);
		EXPECT_LT(0, v[1]);
		close(ofd);
		close(fd);
	}
}

/*
 * Until a kernel has a PMU per core type it registers no "cpu" PMU on a
 * hybrid part: sized from the boot CPU's type it would be wrong on the
 * other.  Hardware and raw events are then ENOENT, as without a PMU.
 */
TEST(refused_cleanly_without_per_type_pmus)
{
	const char *why = hybrid_unavailable();
	char buf[128];

	if (why)
		SKIP(return, "%s", why);
	if (!access(PMU_DIR "cpu_core", F_OK))
		SKIP(return, "this kernel drives the hybrid part: nothing to refuse");
	ASSERT_NE(0, access(PMU_DIR "cpu", F_OK))
		TH_LOG("a \"cpu\" PMU on a hybrid part without PMUs per core type");
	EXPECT_EQ(NULL, hw_events_not_enoent(buf, sizeof(buf)))
		TH_LOG("%s", buf);
}

TEST_HARNESS_MAIN
