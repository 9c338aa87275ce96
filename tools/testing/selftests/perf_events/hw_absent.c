// SPDX-License-Identifier: GPL-2.0
/*
 * A PMU that CPUID describes but whose registers are not there, as under
 * a hypervisor that passes the PMU's CPUID leaves through without the
 * MSRs (QEMU's pmu-msrs=off; PERFTEST_PMU=intel-nomsr or amd-nomsr).
 * The kernel must find that out at boot: it registers no "cpu" PMU,
 * hardware events open with ENOENT as on a CPU without a PMU, software
 * events still count, and the NMI watchdog, which needs a counter, is
 * not available (nmi_watchdog is read-only and reads 0).  The runner
 * fails the run on any splat its console shows, so a kernel that touched
 * a missing register without an exception-table entry fails here too.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include "../kselftest_harness.h"
#include "perf_util.h"
#include "hw_util.h"

static const char *absent_unavailable(void)
{
	const char *k = pmu_kind();
	size_t n = strlen(k);

	if (n < 6 || strcmp(k + n - 6, "-nomsr"))
		return "the guest's PMU has its registers (PMU=intel-nomsr boots one without)";
	return NULL;
}

TEST(no_cpu_pmu)
{
	const char *why = absent_unavailable();

	if (why)
		SKIP(return, "%s", why);
	ASSERT_NE(0, access("/sys/bus/event_source/devices/cpu", F_OK));
	ASSERT_EQ(ENOENT, errno);
}

TEST(hardware_events_enoent)
{
	const char *why = absent_unavailable();
	char buf[128];

	if (why)
		SKIP(return, "%s", why);
	/* The generic hardware events, and a raw one: no PMU takes them. */
	EXPECT_EQ(NULL, hw_events_not_enoent(buf, sizeof(buf)))
		TH_LOG("%s", buf);
}

TEST(software_events_count)
{
	const char *why = absent_unavailable();
	uint64_t count;
	int fd;

	if (why)
		SKIP(return, "%s", why);
	fd = open_sw(PERF_COUNT_SW_TASK_CLOCK, -1);
	ASSERT_LE(0, fd);
	spin(1000000);
	count = read_count(fd);
	EXPECT_NE((uint64_t)-1, count);
	EXPECT_LT(0, count);
	close(fd);
}

/*
 * The hard lockup detector needs a counter: without one its switch is
 * read-only (mode 0444) and reads 0.
 */
TEST(nmi_watchdog_unavailable)
{
	const char *path = "/proc/sys/kernel/nmi_watchdog";
	const char *why = absent_unavailable();
	struct stat st;
	char c = 0;
	int fd;

	if (why)
		SKIP(return, "%s", why);
	if (stat(path, &st))
		SKIP(return, "no nmi_watchdog (CONFIG_HARDLOCKUP_DETECTOR)");
	EXPECT_EQ(0444, st.st_mode & 07777);
	fd = open(path, O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(1, read(fd, &c, 1));
	EXPECT_EQ('0', c);
	close(fd);
	EXPECT_EQ(-1, open(path, O_WRONLY));
	EXPECT_EQ(EACCES, errno);
}

TEST_HARNESS_MAIN
