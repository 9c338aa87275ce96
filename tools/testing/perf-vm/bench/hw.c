// SPDX-License-Identifier: GPL-2.0
/*
 * Hardware events on the emulated Intel PMU (bench.sh boots this program's
 * guest with PMU=intel): what counting, reading and sampling them costs.
 *
 *   hw_read           ns per read(2) of a counting instructions event
 *   hw_rdpmc          ns per self-monitoring read of the same event
 *                     through the mmap user page and rdpmc (the sequence
 *                     of perf_event_open(2)), no system call
 *   hw_open_close_group  ns per open and close of a group that fills
 *                     every counter: the three fixed events (instructions,
 *                     cycles, reference cycles) and four on general
 *                     counters
 *   hw_cs_0, hw_cs_4  ns per context switch between two tasks on one
 *                     CPU, with none or four hardware events on each
 *                     (two on fixed counters, two on general ones)
 *   hw_cs_4_added     hw_cs_4 - hw_cs_0
 *   hw_sample         ns per sample of an instructions:u event sampling
 *                     every 100,000 instructions (IP, TID, TIME, PERIOD):
 *                     (time with - time without) / samples, the PMI and
 *                     the record included
 *   hw_sample_g       the same with PERF_SAMPLE_CALLCHAIN (kernel, user)
 *   hw_sample_lost    records lost in one hw_sample_g run (0 expected)
 *
 * An argument (read, rdpmc, group, cs or sample) runs that part only;
 * cs4 runs the ping-pong with four events only, for profiles.
 */
#include "bench.h"

#define RUNS		9
#define SAMPLE_RUNS	5
#define PERIOD		100000
#define WORK		20000000UL	/* spin() iterations of the sampled work */
#define RB_PAGES	128

static int hw_event(uint32_t type, uint64_t config, int group_fd,
		    uint64_t sample_type, uint64_t period)
{
	struct perf_event_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = config;
	attr.exclude_kernel = !!sample_type;
	attr.sample_type = sample_type;
	attr.sample_period = period;
	attr.disabled = !!sample_type;
	fd = sys_perf_event_open(&attr, 0, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		die("perf_event_open(type %u, config %#llx)", type,
		    (unsigned long long)config);
	return fd;
}

static int instructions(void)
{
	return hw_event(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, -1, 0, 0);
}

static void bench_read(void)
{
	double v[RUNS];
	uint64_t c;
	int fd = instructions(), r, i;

	for (r = -1; r < RUNS; r++) {
		uint64_t t = now_ns();

		for (i = 0; i < 2000; i++)
			if (read(fd, &c, sizeof(c)) != sizeof(c))
				die("read");
		if (r >= 0)
			v[r] = (double)(now_ns() - t) / 2000;
	}
	report_runs("hw_read", "ns", v, RUNS);
	close(fd);
}

static inline uint64_t rdpmc(uint32_t idx)
{
	uint32_t lo, hi;

	asm volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(idx));
	return (uint64_t)hi << 32 | lo;
}

/* The user-page read sequence of perf_event_open(2). */
static uint64_t self_read(volatile struct perf_event_mmap_page *pc)
{
	uint64_t count, pmc;
	uint32_t seq, idx;

	do {
		seq = pc->lock;
		asm volatile("" ::: "memory");
		idx = pc->index;
		count = pc->offset;
		if (pc->cap_user_rdpmc && idx) {
			pmc = rdpmc(idx - 1);
			pmc <<= 64 - pc->pmc_width;
			count += (int64_t)pmc >> (64 - pc->pmc_width);
		}
		asm volatile("" ::: "memory");
	} while (pc->lock != seq);
	return count;
}

static void bench_rdpmc(void)
{
	volatile struct perf_event_mmap_page *pc;
	volatile uint64_t sink = 0;
	double v[RUNS];
	int fd = instructions(), r, i;

	pc = mmap(NULL, sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, fd, 0);
	if (pc == MAP_FAILED)
		die("mmap");
	if (!pc->cap_user_rdpmc || !pc->index) {
		errno = EOPNOTSUPP;
		die("no rdpmc through the user page");
	}
	for (r = -1; r < RUNS; r++) {
		uint64_t t = now_ns();

		for (i = 0; i < 2000; i++)
			sink += self_read(pc);
		if (r >= 0)
			v[r] = (double)(now_ns() - t) / 2000;
	}
	report_runs("hw_rdpmc", "ns", v, RUNS);
	munmap((void *)pc, sysconf(_SC_PAGESIZE));
	close(fd);
}

/* Three fixed events, then four that only general counters take. */
static void open_full_group(int *fds)
{
	static const uint64_t fixed[] = {
		PERF_COUNT_HW_INSTRUCTIONS, PERF_COUNT_HW_CPU_CYCLES,
		PERF_COUNT_HW_REF_CPU_CYCLES,
	};
	int i;

	for (i = 0; i < 3; i++)
		fds[i] = hw_event(PERF_TYPE_HARDWARE, fixed[i], i ? fds[0] : -1, 0, 0);
	for (i = 3; i < 7; i++)
		fds[i] = hw_event(PERF_TYPE_RAW, 0x00c4, fds[0], 0, 0);
}

static void bench_open_close_group(void)
{
	double v[RUNS];
	int fds[7], r, i, j;

	for (r = -1; r < RUNS; r++) {
		uint64_t t = now_ns();

		for (i = 0; i < 100; i++) {
			open_full_group(fds);
			for (j = 6; j >= 0; j--)
				close(fds[j]);
		}
		if (r >= 0)
			v[r] = (double)(now_ns() - t) / 100;
	}
	report_runs("hw_open_close_group", "ns", v, RUNS);
}

/* The first @n of four hardware events on the calling task, not bound to a CPU. */
static void open_four(int n, int cpu_unused, int *fds)
{
	static const uint64_t cfg[][2] = {
		{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
		{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
		{ PERF_TYPE_RAW, 0x00c4 },
		{ PERF_TYPE_RAW, 0x00c5 },
	};
	int i;

	for (i = 0; i < n; i++)
		fds[i] = hw_event(cfg[i][0], cfg[i][1], -1, 0, 0);
}

/* ns per context switch with @nev hardware events on each of two tasks. */
static double pingpong(const char *id, int nev)
{
	return pingpong_ns(id, open_four, nev, 0, 400);
}

static volatile uint64_t sink;

static __attribute__((noinline)) void spin(unsigned long n)
{
	uint64_t x = sink;
	unsigned long i;

	for (i = 0; i < n; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	sink = x;
}

/* Samples and lost records in the buffer, which is then emptied. */
static void drain(struct perf_event_mmap_page *pc, uint64_t *samples,
		  uint64_t *lost)
{
	char *data = (char *)pc + pc->data_offset;
	uint64_t head = __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = pc->data_tail, size = pc->data_size;

	while (tail < head) {
		struct perf_event_header *h = (void *)(data + tail % size);

		if (h->type == PERF_RECORD_SAMPLE)
			(*samples)++;
		else if (h->type == PERF_RECORD_LOST)
			*lost += *(uint64_t *)((char *)h + sizeof(*h) + 8);
		tail += h->size;
	}
	__atomic_store_n(&pc->data_tail, tail, __ATOMIC_RELEASE);
}

/* ns per sample of the sampled work, median of the runs. */
static void bench_sample(const char *id, uint64_t extra, const char *lost_id)
{
	uint64_t type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			PERF_SAMPLE_PERIOD | extra;
	size_t len = (RB_PAGES + 1) * sysconf(_SC_PAGESIZE);
	struct perf_event_mmap_page *pc;
	uint64_t samples, lost = 0, t0, base, with;
	double v[SAMPLE_RUNS];
	int fd, r;

	fd = hw_event(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, -1, type, PERIOD);
	pc = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (pc == MAP_FAILED)
		die("mmap");
	for (r = -1; r < SAMPLE_RUNS; r++) {
		t0 = now_ns();
		spin(WORK);
		base = now_ns() - t0;

		samples = 0;
		lost = 0;
		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
		t0 = now_ns();
		spin(WORK);
		with = now_ns() - t0;
		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		drain(pc, &samples, &lost);
		if (!samples) {
			errno = ENODATA;
			die("%s: no samples", id);
		}
		if (r >= 0)
			v[r] = ((double)with - (double)base) / samples;
	}
	report_runs(id, "ns", v, SAMPLE_RUNS);
	if (lost_id)
		report(lost_id, "records", lost);
	munmap(pc, len);
	close(fd);
}

/* With an argument (read, rdpmc, group, cs, sample), only that part. */
int main(int argc, char **argv)
{
	const char *only = argc > 1 ? argv[1] : NULL;
	double base;

#define PART(name)	(!only || !strcmp(only, name))
	pin_cpu(0);
	if (PART("read"))
		bench_read();
	if (PART("rdpmc"))
		bench_rdpmc();
	if (PART("group"))
		bench_open_close_group();
	if (PART("cs")) {
		base = pingpong("hw_cs_0", 0);
		report("hw_cs_4_added", "ns", pingpong("hw_cs_4", 4) - base);
	}
	if (only && !strcmp(only, "cs4"))	/* for profiles */
		pingpong("hw_cs_4", 4);
	if (PART("sample")) {
		bench_sample("hw_sample", 0, NULL);
		bench_sample("hw_sample_g", PERF_SAMPLE_CALLCHAIN, "hw_sample_lost");
	}
	return 0;
}
