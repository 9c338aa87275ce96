// SPDX-License-Identifier: GPL-2.0
/*
 * The x86 "msr" PMU: free-running counters the CPU keeps in MSRs (the
 * TSC always; APERF, MPERF, PPERF, SMI_COUNT, PTSC, IRPERF and the
 * thermal margin where the CPU has them), read at the start and the end
 * of each stretch an event runs.  It needs no hardware PMU, so every
 * x86 guest has it, QEMU's TCG included.  Counting only: no sampling, no
 * mode filters.
 */
#include <sys/ioctl.h>
#include "../kselftest_harness.h"
#include "perf_util.h"

#define MSR_PMU "/sys/bus/event_source/devices/msr"

/* The config values of the events, as sysfs names them. */
enum { MSR_TSC, MSR_APERF, MSR_MPERF, MSR_PPERF, MSR_SMI, MSR_PTSC,
	MSR_IRPERF, MSR_THERM, MSR_EVENTS };

static const char * const event_names[MSR_EVENTS] = {
	"tsc", "aperf", "mperf", "pperf", "smi", "ptsc", "irperf",
	"cpu_thermal_margin",
};

static int read_str(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -1;
	ok = !!fgets(buf, len, f);
	fclose(f);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

static int msr_type(void)
{
	long type;

	if (read_file_long(MSR_PMU "/type", &type))
		return -1;
	return type;
}

static void msr_attr(struct perf_event_attr *attr, uint64_t config)
{
	memset(attr, 0, sizeof(*attr));
	attr->type = msr_type();
	attr->size = sizeof(*attr);
	attr->config = config;
}

FIXTURE(msr) {
	int type;
};

FIXTURE_SETUP(msr)
{
	self->type = msr_type();
	if (self->type < 0)
		SKIP(return, "no msr PMU (%s): not an x86 kernel with perf events", MSR_PMU);
}

FIXTURE_TEARDOWN(msr)
{
}

/* What perf(1) reads to name and encode the events. */
TEST_F(msr, sysfs_describes_the_events)
{
	char path[256], buf[64];
	int i, seen = 0;

	ASSERT_EQ(read_str(MSR_PMU "/format/event", buf, sizeof(buf)), 0);
	EXPECT_STREQ(buf, "config:0-63");
	ASSERT_EQ(read_str(MSR_PMU "/events/tsc", buf, sizeof(buf)), 0);
	EXPECT_STREQ(buf, "event=0x00");
	for (i = 0; i < MSR_EVENTS; i++) {
		char want[32];

		snprintf(path, sizeof(path), MSR_PMU "/events/%s", event_names[i]);
		if (read_str(path, buf, sizeof(buf)))
			continue;
		seen++;
		snprintf(want, sizeof(want), "event=0x%02x", i);
		EXPECT_STREQ(buf, want);
	}
	TH_LOG("%d of %d events present", seen, MSR_EVENTS);
	if (!read_str(MSR_PMU "/events/cpu_thermal_margin", buf, sizeof(buf))) {
		ASSERT_EQ(read_str(MSR_PMU "/events/cpu_thermal_margin.snapshot",
				   buf, sizeof(buf)), 0);
		EXPECT_STREQ(buf, "1");
		ASSERT_EQ(read_str(MSR_PMU "/events/cpu_thermal_margin.unit",
				   buf, sizeof(buf)), 0);
		EXPECT_STREQ(buf, "C");
	}
}

/*
 * Each present event opens; each absent one (no sysfs entry) and each
 * config past the last is EINVAL.
 */
TEST_F(msr, present_events_open_others_einval)
{
	struct perf_event_attr attr;
	char path[256];
	uint64_t config;
	int fd;

	for (config = 0; config < MSR_EVENTS + 3; config++) {
		int present = 0;

		if (config < MSR_EVENTS) {
			snprintf(path, sizeof(path), MSR_PMU "/events/%s",
				 event_names[config]);
			present = !access(path, F_OK);
		}
		msr_attr(&attr, config);
		fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
		if (present) {
			EXPECT_GE(fd, 0) TH_LOG("config %llu: %s",
						(unsigned long long)config, strerror(errno));
		} else {
			EXPECT_EQ(fd, -1);
			EXPECT_EQ(errno, EINVAL) TH_LOG("config %llu",
							(unsigned long long)config);
		}
		if (fd >= 0)
			close(fd);
	}
	msr_attr(&attr, 1ULL << 32);
	EXPECT_EQ(sys_perf_event_open(&attr, 0, -1, -1, 0), -1);
	EXPECT_EQ(errno, EINVAL);
}

/* No sampling (by period or frequency), no user/kernel filters. */
TEST_F(msr, counting_only)
{
	static const char * const what[] = {
		"sample_period", "freq", "exclude_kernel", "exclude_user",
		"exclude_idle",
	};
	struct perf_event_attr attr;
	int i;

	for (i = 0; i < 5; i++) {
		msr_attr(&attr, MSR_TSC);
		switch (i) {
		case 0:
			attr.sample_period = 100000;
			break;
		case 1:
			attr.freq = 1;
			attr.sample_freq = 1000;
			break;
		case 2:
			attr.exclude_kernel = 1;
			break;
		case 3:
			attr.exclude_user = 1;
			break;
		case 4:
			attr.exclude_idle = 1;
			break;
		}
		EXPECT_EQ(sys_perf_event_open(&attr, 0, -1, -1, 0), -1)
			TH_LOG("%s", what[i]);
		EXPECT_EQ(errno, EINVAL) TH_LOG("%s", what[i]);
	}
}

/* The TSC's rate in ticks per nanosecond, from what the kernel says. */
static double tsc_ghz(void)
{
	char line[256];
	double mhz = 0;
	FILE *f = fopen("/proc/cpuinfo", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "cpu MHz : %lf", &mhz) == 1 ||
		    sscanf(line, "cpu MHz\t: %lf", &mhz) == 1)
			break;
	fclose(f);
	return mhz / 1000;
}

/*
 * A task's tsc event counts TSC ticks while the task runs: over a busy
 * loop its count follows time_running at the TSC's rate, and a disabled
 * event stays still.
 */
TEST_F(msr, tsc_counts_while_the_task_runs)
{
	struct perf_event_attr attr;
	uint64_t v[3], w[3];
	double ghz = tsc_ghz(), rate;
	int fd;

	msr_attr(&attr, MSR_TSC);
	attr.read_format = F_EN | F_RUN;
	attr.disabled = 1;
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	burn_ns(50 * 1000 * 1000);
	ASSERT_EQ(ioctl(fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	ASSERT_EQ(read(fd, v, sizeof(v)), sizeof(v));
	ASSERT_GT(v[0], 0);
	ASSERT_GT(v[2], 0);
	rate = (double)v[0] / v[2];
	TH_LOG("%llu ticks in %llu ns running: %.3f GHz (cpu MHz says %.3f)",
	       (unsigned long long)v[0], (unsigned long long)v[2], rate, ghz);
	if (ghz > 0) {
		EXPECT_GT(rate, ghz * 0.9);
		EXPECT_LT(rate, ghz * 1.1);
	}
	burn_ns(10 * 1000 * 1000);
	ASSERT_EQ(read(fd, w, sizeof(w)), sizeof(w));
	EXPECT_EQ(w[0], v[0]);
	close(fd);
}

/*
 * The msr PMU is a software-like one (it cannot fail to schedule): its
 * events join software groups and lead them, and a group read returns
 * both.
 */
TEST_F(msr, groups_with_software_events)
{
	struct perf_event_attr attr;
	uint64_t v[3];
	int lead, tsc, lead2, clk;

	lead = open_fmt(PERF_COUNT_SW_TASK_CLOCK, F_GRP, -1, 1);
	ASSERT_GE(lead, 0);
	msr_attr(&attr, MSR_TSC);
	attr.read_format = F_GRP;
	tsc = sys_perf_event_open(&attr, 0, -1, lead, 0);
	ASSERT_GE(tsc, 0);
	ASSERT_EQ(ioctl(lead, PERF_EVENT_IOC_ENABLE, 0), 0);
	burn_ns(10 * 1000 * 1000);
	ASSERT_EQ(ioctl(lead, PERF_EVENT_IOC_DISABLE, 0), 0);
	ASSERT_EQ(read(lead, v, sizeof(v)), sizeof(v));
	EXPECT_EQ(v[0], 2);
	EXPECT_GT(v[1], 0);
	EXPECT_GT(v[2], v[1] / 2);	/* ticks at 0.5 GHz or more */

	msr_attr(&attr, MSR_TSC);
	attr.read_format = F_GRP;
	attr.disabled = 1;
	lead2 = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(lead2, 0);
	clk = open_fmt(PERF_COUNT_SW_TASK_CLOCK, F_GRP, lead2, 0);
	ASSERT_GE(clk, 0);
	ASSERT_EQ(ioctl(lead2, PERF_EVENT_IOC_ENABLE, 0), 0);
	burn_ns(10 * 1000 * 1000);
	ASSERT_EQ(ioctl(lead2, PERF_EVENT_IOC_DISABLE, 0), 0);
	ASSERT_EQ(read(lead2, v, sizeof(v)), sizeof(v));
	EXPECT_EQ(v[0], 2);
	EXPECT_GT(v[1], 0);
	EXPECT_GT(v[2], 0);
	close(clk);
	close(lead2);
	close(tsc);
	close(lead);
}

/* A CPU-wide tsc event counts the TSC whatever runs, idle included. */
TEST_F(msr, cpu_wide_tsc)
{
	struct perf_event_attr attr;
	uint64_t v[3];
	int fd;

	msr_attr(&attr, MSR_TSC);
	attr.read_format = F_EN | F_RUN;
	fd = sys_perf_event_open(&attr, -1, 0, -1, 0);
	ASSERT_GE(fd, 0);
	sleep_ns(20 * 1000 * 1000);
	ASSERT_EQ(read(fd, v, sizeof(v)), sizeof(v));
	EXPECT_GT(v[0], 0);
	EXPECT_EQ(v[1], v[2]);
	/* Asleep or not, the TSC ran all the time the event was enabled. */
	EXPECT_GT((double)v[0] / v[1], 0.1);
	close(fd);
}

TEST_HARNESS_MAIN
