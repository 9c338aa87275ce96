// SPDX-License-Identifier: GPL-2.0
/*
 * The cost of one sample of a cpu-clock sampling event, in ns per sample.
 *
 * A fixed, CPU-bound piece of work (about 100 ms of guest time, in a
 * function eight calls deep, built with frame pointers so that the user
 * callchain unwinds) runs once without an event and once with a cpu-clock
 * event of this task sampling it into a 512 KiB ring buffer that is read
 * after the run.  Cost per sample = (time with - time without) / samples,
 * the median over the runs.  Sample type IP | TID | TIME | PERIOD.
 *
 *   sample_1k       sample_period 1,000,000 ns (1 kHz)
 *   sample_1k_g     the same with PERF_SAMPLE_CALLCHAIN (kernel and user)
 *   sample_10k      sample_period 100,000 ns (10 kHz)
 *   sample_10k_g    the same with PERF_SAMPLE_CALLCHAIN
 *   lost_10k_g      records lost (the sum of PERF_RECORD_LOST) in one
 *                   sample_10k_g run: 0 while the buffer holds the run
 *   sample_10k_n    samples written in one sample_10k run
 */
#include "bench.h"

#define RUNS		5
#define TARGET_NS	100000000ULL	/* guest time of the work */
#define CHUNK		10000		/* iterations of lcg_spin() per call */
#define DEPTH		8
#define RB_PAGES	128		/* 512 KiB of data */

static volatile uint64_t sink;
static unsigned long calls;		/* calls of work() that make TARGET_NS */


static __attribute__((noinline)) uint64_t work(int depth, unsigned long n)
{
	uint64_t x;

	if (!depth)
		return lcg_spin(sink, n);
	x = work(depth - 1, n);
	asm volatile("" : "+r" (x));	/* keeps the call a real call */
	return x;
}

/* Guest ns of the work. */
static uint64_t run_work(void)
{
	uint64_t t = now_ns(), x = 0;
	unsigned long i;

	for (i = 0; i < calls; i++)
		x += work(DEPTH, CHUNK);
	sink = x;
	return now_ns() - t;
}

static void calibrate(void)
{
	uint64_t t;

	calls = 20;
	run_work();
	t = run_work();
	calls = TARGET_NS * 20 / (t ? t : 1);
	if (!calls)
		calls = 1;
}

struct variant {
	const char *id;
	uint64_t period;
	int callchain;
	double v[RUNS];
	double lost[RUNS];
	double samples[RUNS];
};

/* One run of @var: ns of the work with the event, and what it wrote. */
static uint64_t sampled_run(struct variant *var, struct rb_stats *st)
{
	struct perf_event_attr attr;
	uint64_t t;
	struct rb rb;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_CPU_CLOCK;
	attr.sample_period = var->period;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			   PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD;
	if (var->callchain)
		attr.sample_type |= PERF_SAMPLE_CALLCHAIN;
	attr.disabled = 1;
	fd = sys_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		die("perf_event_open(cpu-clock, period %llu)",
		    (unsigned long long)var->period);
	rb_map(&rb, fd, RB_PAGES);

	if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0))
		die("PERF_EVENT_IOC_ENABLE");
	t = run_work();
	if (ioctl(fd, PERF_EVENT_IOC_DISABLE, 0))
		die("PERF_EVENT_IOC_DISABLE");

	memset(st, 0, sizeof(*st));
	rb_drain(&rb, st);
	rb_unmap(&rb);
	close(fd);
	return t;
}

int main(void)
{
	static struct variant vars[] = {
		{ .id = "sample_1k", .period = 1000000, .callchain = 0 },
		{ .id = "sample_1k_g", .period = 1000000, .callchain = 1 },
		{ .id = "sample_10k", .period = 100000, .callchain = 0 },
		{ .id = "sample_10k_g", .period = 100000, .callchain = 1 },
	};
	struct rb_stats st;
	unsigned int i;
	int r;

	pin_cpu(0);
	calibrate();
	printf("# work: %lu calls of %d iterations at depth %d\n",
	       calls, CHUNK, DEPTH);
	for (r = 0; r < RUNS; r++) {
		uint64_t base = run_work();

		for (i = 0; i < ARRAY_SIZE(vars); i++) {
			uint64_t t = sampled_run(&vars[i], &st);
			uint64_t n = st.samples + st.lost;

			vars[i].v[r] = n ? ((double)t - (double)base) / n : 0;
			vars[i].lost[r] = st.lost;
			vars[i].samples[r] = st.samples;
		}
	}
	for (i = 0; i < ARRAY_SIZE(vars); i++)
		report_runs(vars[i].id, "ns", vars[i].v, RUNS);
	report_runs("lost_10k_g", "records", vars[3].lost, RUNS);
	report_runs("sample_10k_n", "samples", vars[2].samples, RUNS);
	return 0;
}
