// SPDX-License-Identifier: GPL-2.0
/*
 * Scale on eight CPUs: run by bench.sh in a guest of its own at -smp 8.
 * Under -icount the guest clock is the instruction count of all vCPUs
 * together, so a figure of guest ns is the work of every CPU added up.
 *
 *   smp8_open_10k       ns per perf_event_open() of 10,000 counting
 *                       software events on this task, event i bound to
 *                       CPU i % 8 (task-clock and context-switches in
 *                       turn): the mean over the 10,000, median of runs
 *   smp8_close_10k      ns per close() of those 10,000
 *   smp8_cs_0           ns per context switch of the ping-pong of sched.c
 *                       (pingpong_ns()) on CPU 0 between this task and a
 *                       child without events, before the events are opened
 *   smp8_cs_10k         the same with the 10,000 events open on this task
 *                       (1,250 of them bound to CPU 0 run at each switch)
 *   smp8_cs_10k_added   smp8_cs_10k - smp8_cs_0
 *   smp8_rec_ns_per_sample  what a perf record -a style session adds per
 *                       sample: a cpu-clock sampling event per CPU at
 *                       4 kHz (frequency mode), IP | TID | TIME | CPU |
 *                       PERIOD, each into a 512 KiB buffer of its own,
 *                       while a process pinned to each CPU runs a fixed
 *                       CPU-bound loop; (guest ns of the eight loops with
 *                       the events - without) / samples, median of runs
 *   smp8_rec_samples    samples written in one such run
 *   smp8_rec_lost       records lost in one such run (PERF_RECORD_LOST)
 */
#include "bench.h"

#define NCPU		8
#define NEVENTS		10000
#define RUNS		3
#define CS_ROUNDS	100
#define REC_FREQ	4000
#define RB_PAGES	128		/* 512 KiB of data per CPU */
#define TARGET_NS	20000000ULL	/* guest time of one loop alone */

static int fds[NEVENTS];
static volatile uint64_t sink;

static void open_10k(double *open_ns)
{
	uint64_t t = now_ns();
	int i;

	for (i = 0; i < NEVENTS; i++)
		fds[i] = sw_event(i % 2 ? PERF_COUNT_SW_CONTEXT_SWITCHES :
				  PERF_COUNT_SW_TASK_CLOCK, 0, i % NCPU, -1, 0, 0, 0);
	*open_ns = (double)(now_ns() - t) / NEVENTS;
}

static void close_10k(double *close_ns)
{
	uint64_t t = now_ns();
	int i;

	for (i = 0; i < NEVENTS; i++)
		close(fds[i]);
	*close_ns = (double)(now_ns() - t) / NEVENTS;
}

/* The ping-pong's child opens nothing; the events are this task's. */
static void no_events(int nev, int arg, int *fds)
{
}

static void bench_10k(void)
{
	double open_ns[RUNS], close_ns[RUNS], base, cs = 0;
	int r;

	raise_nofile(NEVENTS + 1024);
	base = pingpong_ns("smp8_cs_0", no_events, 0, 0, CS_ROUNDS);
	for (r = 0; r < RUNS; r++) {
		open_10k(&open_ns[r]);
		/* Not inherited: the forked partner has no events. */
		if (!r)
			cs = pingpong_ns("smp8_cs_10k", no_events, 0, 0, CS_ROUNDS);
		close_10k(&close_ns[r]);
	}
	report_runs("smp8_open_10k", "ns", open_ns, RUNS);
	report_runs("smp8_close_10k", "ns", close_ns, RUNS);
	report("smp8_cs_10k_added", "ns", cs - base);
}

/* Guest ns for one loop of @iters on every CPU, each pinned to its own. */
static uint64_t loops_on_all(unsigned long iters)
{
	pid_t pids[NCPU];
	uint64_t t = now_ns();
	int c, status;

	for (c = 0; c < NCPU; c++) {
		pids[c] = fork();
		if (pids[c] < 0)
			die("fork");
		if (pids[c] == 0) {
			pin_cpu(c);
			sink = lcg_spin(sink, iters);
			_exit(0);
		}
	}
	for (c = 0; c < NCPU; c++)
		if (waitpid(pids[c], &status, 0) != pids[c] || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			die("loop child failed");
	return now_ns() - t;
}

/* Open, map and enable a cpu-clock sampling event on every CPU. */
static void record_start(int *ev, struct rb *rb)
{
	struct perf_event_attr attr;
	int c;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_CPU_CLOCK;
	attr.freq = 1;
	attr.sample_freq = REC_FREQ;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			   PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
	attr.disabled = 1;
	for (c = 0; c < NCPU; c++) {
		ev[c] = sys_perf_event_open(&attr, -1, c, -1, PERF_FLAG_FD_CLOEXEC);
		if (ev[c] < 0)
			die("perf_event_open(cpu-clock, cpu %d)", c);
		rb_map(&rb[c], ev[c], RB_PAGES);
	}
	for (c = 0; c < NCPU; c++)
		if (ioctl(ev[c], PERF_EVENT_IOC_ENABLE, 0))
			die("PERF_EVENT_IOC_ENABLE");
}

static void record_stop(int *ev, struct rb *rb, struct rb_stats *st)
{
	int c;

	for (c = 0; c < NCPU; c++)
		if (ioctl(ev[c], PERF_EVENT_IOC_DISABLE, 0))
			die("PERF_EVENT_IOC_DISABLE");
	memset(st, 0, sizeof(*st));
	for (c = 0; c < NCPU; c++) {
		rb_drain(&rb[c], st);
		rb_unmap(&rb[c]);
		close(ev[c]);
	}
}

static void bench_record(void)
{
	double v[RUNS], samples[RUNS], lost[RUNS];
	struct rb rb[NCPU];
	struct rb_stats st;
	unsigned long iters = 100000;
	int ev[NCPU], r;
	uint64_t t;

	/* Iterations for TARGET_NS of one loop alone, on an idle guest. */
	pin_cpu(0);
	t = now_ns();
	sink = lcg_spin(sink, iters);
	t = now_ns() - t;
	iters = iters * TARGET_NS / (t ? t : 1);
	printf("# loops: %lu iterations on each of %d CPUs\n", iters, NCPU);

	loops_on_all(iters);		/* warm up */
	for (r = 0; r < RUNS; r++) {
		uint64_t base = loops_on_all(iters), with;

		record_start(ev, rb);
		with = loops_on_all(iters);
		record_stop(ev, rb, &st);
		v[r] = st.samples ? ((double)with - (double)base) / st.samples : 0;
		samples[r] = st.samples;
		lost[r] = st.lost;
	}
	report_runs("smp8_rec_ns_per_sample", "ns", v, RUNS);
	report_runs("smp8_rec_samples", "samples", samples, RUNS);
	report_runs("smp8_rec_lost", "records", lost, RUNS);
}

int main(void)
{
	if (sysconf(_SC_NPROCESSORS_ONLN) != NCPU)
		die("needs %d CPUs, has %ld", NCPU, sysconf(_SC_NPROCESSORS_ONLN));
	pin_cpu(0);
	bench_10k();
	bench_record();
	return 0;
}
