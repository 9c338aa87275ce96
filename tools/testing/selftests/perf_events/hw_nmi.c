// SPDX-License-Identifier: GPL-2.0
/*
 * The PMI as an NMI, on QEMU's emulated x86 PMU (PERFTEST_PMU; hw.c says
 * what it counts).  Every PMI is an NMI, and the NMI code asks each
 * handler whether the NMI was its own: one that nobody claims is
 * "unknown" (a console line, a panic with unknown_nmi_panic).  On AMD a
 * counter's PMI may arrive after the handler of an earlier PMI already
 * took its overflow, or after the counter was stopped (PMU=amd-late
 * models that: each PMI comes a number of instructions after its
 * overflow).  A kernel must still claim every PMI and lose no sample:
 *
 *  - several sampling counters overflowing close together give no
 *    unknown NMI, and every overflow gives its sample;
 *  - a counter stopped while its PMI is on its way gives that sample
 *    (upstream waits for the PMI before it stops an AMD counter).
 *
 * On a PMU whose PMIs are not late the same must hold, trivially.
 */
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include "../kselftest_harness.h"
#include "perf_util.h"
#include "perf_rb.h"
#include "hw_util.h"

#define MAXCPU	16
#define MAXEV	5
#define LOOP	1000000UL	/* spin(LOOP): 2,000,000 user instructions */

FIXTURE(hw_nmi) {
	int kmsg;
	struct hw_rate rate;
};

FIXTURE_SETUP(hw_nmi)
{
	const char *why;
	int fail;

	self->kmsg = -1;
	self->rate.saved = 0;
	why = hw_unavailable(&fail);
	if (why) {
		ASSERT_FALSE(fail) TH_LOG("%s", why);
		SKIP(return, "%s", why);
	}
	ASSERT_EQ(hw_unthrottle(&self->rate), 0);
	/* The kernel log from here on: what the test makes it say. */
	self->kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	ASSERT_GE(self->kmsg, 0);
	ASSERT_GE(lseek(self->kmsg, 0, SEEK_END), 0);
}

FIXTURE_TEARDOWN(hw_nmi)
{
	hw_rethrottle(&self->rate);
	if (self->kmsg >= 0)
		close(self->kmsg);
}

/*
 * The kernel log's lines since the fixture's set-up that contain @what;
 * the first of them is copied to @line.
 */
static int kmsg_count(int fd, const char *what, char *line, size_t len)
{
	char rec[2048];
	int n = 0;
	ssize_t r;

	for (;;) {
		r = read(fd, rec, sizeof(rec) - 1);
		if (r < 0 && errno == EPIPE)
			continue;	/* overwritten before we read it */
		if (r <= 0)
			break;
		rec[r] = 0;
		if (strstr(rec, what) && !n++)
			snprintf(line, len, "%.200s", rec);
	}
	return n;
}

/* The samples in @rb; PERF_RECORD_LOST and _THROTTLE add to *@lost. */
static int count_samples(struct perf_rb *rb, int *lost)
{
	if (rb_fetch(rb) < 0)
		return -1;
	*lost += rb_count(rb, PERF_RECORD_LOST) +
		 rb_count(rb, PERF_RECORD_THROTTLE);
	return rb_count(rb, PERF_RECORD_SAMPLE);
}

/*
 * A user-mode sampling event on @pid: instructions or cycles (the
 * emulated core counts both at one per instruction), every @period.
 */
static int open_sampling(pid_t pid, uint64_t config, uint64_t period,
			 int disabled)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_HARDWARE,
		.size = sizeof(attr),
		.config = config,
		.sample_period = period,
		.sample_type = PERF_SAMPLE_IP,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.disabled = disabled,
	};

	return sys_perf_event_open(&attr, pid, -1, -1, 0);
}

/*
 * On every CPU a child spins under as many sampling events as there are
 * free counters (the NMI watchdog keeps one), with periods a few
 * instructions apart: their overflows come close together, and a PMI
 * often finds another counter's overflow too, whose own PMI then finds
 * nothing.  Every event's samples are its count over its period, and
 * the kernel reports no unknown NMI.
 */
TEST_F(hw_nmi, close_overflows_claim_every_nmi)
{
	static const uint64_t period[MAXEV] = { 10007, 10009, 10037, 10039, 10061 };
	int ncpu = nr_cpus(), nev = pmu_is("amd") ? 5 : 3;
	int fd[MAXCPU][MAXEV], go[2], cpu, i, lost = 0, bad;
	struct perf_rb rb[MAXCPU][MAXEV];
	pid_t pid[MAXCPU];
	char line[256] = "";

	ASSERT_LE(ncpu, MAXCPU);
	ASSERT_EQ(pipe(go), 0);
	for (cpu = 0; cpu < ncpu; cpu++) {
		pid[cpu] = fork();
		ASSERT_GE(pid[cpu], 0);
		if (!pid[cpu]) {
			char c;

			close(go[1]);
			if (pin_to_cpu(cpu) || read(go[0], &c, 1) != 0)
				_exit(1);
			spin(LOOP);
			_exit(0);
		}
	}
	close(go[0]);
	for (cpu = 0; cpu < ncpu; cpu++) {
		for (i = 0; i < nev; i++) {
			fd[cpu][i] = open_sampling(pid[cpu], i & 1 ?
						   PERF_COUNT_HW_CPU_CYCLES :
						   PERF_COUNT_HW_INSTRUCTIONS,
						   period[i], 0);
			ASSERT_GE(fd[cpu][i], 0);
			ASSERT_EQ(rb_map(&rb[cpu][i], fd[cpu][i], 64), 0);
		}
	}
	close(go[1]);
	for (cpu = 0; cpu < ncpu; cpu++) {
		int status;

		ASSERT_EQ(waitpid(pid[cpu], &status, 0), pid[cpu]);
		ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	}
	for (cpu = 0; cpu < ncpu; cpu++) {
		for (i = 0; i < nev; i++) {
			uint64_t count = read_count(fd[cpu][i]);
			int n = count_samples(&rb[cpu][i], &lost);

			ASSERT_GE(count, 2 * LOOP);
			EXPECT_EQ(n, count / period[i])
				TH_LOG("CPU %d event %d: %llu counted, period %llu",
				       cpu, i, (unsigned long long)count,
				       (unsigned long long)period[i]);
			rb_unmap(&rb[cpu][i]);
			close(fd[cpu][i]);
		}
	}
	EXPECT_EQ(lost, 0);
	bad = kmsg_count(self->kmsg, "NMI received for unknown reason",
			 line, sizeof(line));
	EXPECT_EQ(bad, 0) TH_LOG("%s", line);
}

/*
 * One burst of the calling task under @fd: enable, spin(@n), disable.
 * Its own function, so that every call counts the same instructions
 * around the loop: 2 * @n and a constant.
 */
static noinline int burst(int fd, unsigned long n)
{
	if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0))
		return -1;
	spin(n);
	return ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
}

#define BURST_PERIOD	20011
#define BURSTS		200
/* The overflow comes this many user instructions before the disable. */
#define BURST_EARLY	8

/*
 * Each burst is sized so that the sampling counter overflows a few
 * instructions before the burst's disable: the PMI of a late PMU is then
 * still on its way when the kernel stops the counter.  Every overflow
 * still gives its sample.
 */
TEST_F(hw_nmi, stop_with_pmi_on_its_way_keeps_the_sample)
{
	uint64_t around, count = 0, rem;
	int fd, cfd, i, n, lost = 0;
	struct perf_rb rb;

	/* The constant of burst(): a counting event over one. */
	cfd = open_user(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, -1,
			0, 0, 0);
	ASSERT_GE(cfd, 0);
	ASSERT_EQ(burst(cfd, 1000), 0);
	around = read_count(cfd) - 2000;
	close(cfd);
	ASSERT_LT(around, 1000);

	fd = open_sampling(0, PERF_COUNT_HW_INSTRUCTIONS, BURST_PERIOD, 1);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(rb_map(&rb, fd, 64), 0);
	for (i = 0; i < BURSTS; i++) {
		/* Instructions to the next overflow, and then a few more. */
		rem = BURST_PERIOD - count % BURST_PERIOD + BURST_EARLY;
		if (rem < around + 2)
			rem += BURST_PERIOD;
		ASSERT_EQ(burst(fd, (rem - around) / 2), 0);
		count = read_count(fd);
	}
	n = count_samples(&rb, &lost);
	EXPECT_EQ(lost, 0);
	EXPECT_EQ(n, count / BURST_PERIOD)
		TH_LOG("%llu counted in %d bursts, period %d",
		       (unsigned long long)count, BURSTS, BURST_PERIOD);
	rb_unmap(&rb);
	close(fd);
}

TEST_HARNESS_MAIN
