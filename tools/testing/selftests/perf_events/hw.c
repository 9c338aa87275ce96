// SPDX-License-Identifier: GPL-2.0
/*
 * Hardware events on an x86 PMU whose counts are known exactly: the one
 * QEMU emulates for these tests (tools/testing/qemu-pmu).  It retires
 * instructions one at a time and counts each in the privilege level it
 * ran in, counts a cycle per instruction (and a reference cycle per
 * cycle, on Intel), retires a REP string instruction once, and raises
 * its PMI right after the instruction that wraps a counter.  So a loop
 * of known length gives the same count every run, user and kernel counts
 * add up to the total, and a sampling event gives a known number of
 * samples.
 *
 * The runner names the guest's PMU in PERFTEST_PMU: "intel" (version 4),
 * "intel-v1", "-v2", "-v3" or "-v5" (that version: v1 has no fixed
 * counters, so reference cycles count 0 on a general counter), "amd" (six
 * counters with global control, PerfMonV2), "amd-legacy" (the four K7
 * counters, no global control) or "none".  Without an emulated PMU the
 * tests skip: real hardware counts speculation, microcode and skid that
 * no test can predict.
 */
#include <cpuid.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include "../kselftest_harness.h"
#include "perf_util.h"
#include "perf_rb.h"
#include "hw_util.h"

FIXTURE(hw) {
	struct hw_rate rate;
	long thresh;
	int restore_thresh;
};

FIXTURE_SETUP(hw)
{
	const char *why;
	int fail;

	self->rate.saved = 0;
	self->restore_thresh = 0;
	why = hw_unavailable(&fail);
	if (why) {
		ASSERT_FALSE(fail) TH_LOG("%s", why);
		SKIP(return, "%s", why);
	}
}

FIXTURE_TEARDOWN(hw)
{
	hw_rethrottle(&self->rate);
	if (self->restore_thresh)
		write_sysctl("watchdog_thresh", self->thresh);
}

/*
 * The same loop counts the same every time, and each iteration counts
 * exactly its two instructions: what differs between two lengths is
 * twice the difference of the lengths, to the instruction.
 */
TEST_F(hw, instructions_exact)
{
	int fd = open_hw(PERF_COUNT_HW_INSTRUCTIONS, 1, 0, -1, 0);
	uint64_t first, v, longer;
	int i;

	ASSERT_GE(fd, 0);
	first = count_spin(fd, 1000000);
	ASSERT_NE(first, (uint64_t)-1);
	for (i = 0; i < 4; i++) {
		v = count_spin(fd, 1000000);
		EXPECT_EQ(v, first);
	}
	longer = count_spin(fd, 3000000);
	EXPECT_EQ(longer - first, 4000000);
	/* Around the loop: the ioctl wrapper's return and the calls. */
	EXPECT_GE(first, 2000000);
	EXPECT_LT(first, 2000100);
	TH_LOG("spin(1000000): %llu user instructions", (unsigned long long)first);
	close(fd);
}

/*
 * Every instruction is either user or kernel: in one group, enabled and
 * disabled together, :u plus :k is the total.  Exact when the PMU starts
 * and stops its counters with one global write; the K7 counters are
 * started one after another, a few kernel instructions apart each.
 */
TEST_F(hw, user_and_kernel_add_up)
{
	uint64_t fmt = F_GRP, v[4];
	int all, u, k, i;
	int64_t diff;

	all = open_hw(PERF_COUNT_HW_INSTRUCTIONS, 1, 1, -1, fmt);
	ASSERT_GE(all, 0);
	u = open_hw(PERF_COUNT_HW_INSTRUCTIONS, 1, 0, all, fmt);
	ASSERT_GE(u, 0);
	k = open_hw(PERF_COUNT_HW_INSTRUCTIONS, 0, 1, all, fmt);
	ASSERT_GE(k, 0);
	ASSERT_EQ(ioctl(all, PERF_EVENT_IOC_ENABLE, 0), 0);
	for (i = 0; i < 100; i++) {
		spin(10000);
		getppid();
	}
	ASSERT_EQ(ioctl(all, PERF_EVENT_IOC_DISABLE, 0), 0);
	ASSERT_EQ(read(all, v, sizeof(v)), sizeof(v));
	ASSERT_EQ(v[0], 3);
	TH_LOG("total %llu, user %llu, kernel %llu",
	       (unsigned long long)v[1], (unsigned long long)v[2],
	       (unsigned long long)v[3]);
	EXPECT_GE(v[2], 2000000);
	EXPECT_LT(v[2], 2010000);
	/* A hundred system calls: some kernel instructions each. */
	EXPECT_GT(v[3], 100 * 20);
	diff = (int64_t)(v[2] + v[3] - v[1]);
	/*
	 * Without a global control (legacy AMD, Intel version 1) the
	 * counters start one WRMSR after another.  The harness's EXPECT_*()
	 * cannot be the body of an if-else.
	 */
	EXPECT_LT(diff < 0 ? -diff : diff,
		  pmu_is("amd-legacy") || intel_version() == 1 ? 1000 : 1);
	close(k);
	close(u);
	close(all);
}

/*
 * The documented model: a cycle per instruction, and a reference cycle
 * per cycle (Intel's fixed counter 2; AMD Zen 4's event 0x120, cycles at
 * P0 frequency, which is what Linux asks for there).
 */
/*
 * User cycles (the leader), instructions and reference cycles as one
 * group, read with PERF_FORMAT_GROUP into @v[0..3] after @run(@n).
 */
static int cycles_group(void (*run)(unsigned long), unsigned long n,
			uint64_t v[4])
{
	int fd[3], i, err = -1;

	fd[0] = open_hw(PERF_COUNT_HW_CPU_CYCLES, 1, 0, -1, F_GRP);
	fd[1] = open_hw(PERF_COUNT_HW_INSTRUCTIONS, 1, 0, fd[0], F_GRP);
	fd[2] = open_hw(PERF_COUNT_HW_REF_CPU_CYCLES, 1, 0, fd[0], F_GRP);
	if (fd[0] >= 0 && fd[1] >= 0 && fd[2] >= 0 &&
	    !ioctl(fd[0], PERF_EVENT_IOC_ENABLE, 0)) {
		run(n);
		if (!ioctl(fd[0], PERF_EVENT_IOC_DISABLE, 0) &&
		    read(fd[0], v, 4 * sizeof(*v)) == 4 * sizeof(*v))
			err = 0;
	}
	for (i = 2; i >= 0; i--)
		if (fd[i] >= 0)
			close(fd[i]);
	return err;
}

TEST_F(hw, cycles_follow_instructions)
{
	uint64_t v[4];

	ASSERT_EQ(cycles_group(spin, 500000, v), 0);
	ASSERT_EQ(v[0], 3);
	EXPECT_GE(v[1], 1000000);
	EXPECT_EQ(v[1], v[2]);
	EXPECT_EQ(v[3], intel_version() == 1 ? 0 : v[1]);
}

/*
 * The model's one instruction that takes more than a cycle: PAUSE, the
 * spin-wait hint, stalls the core for PAUSE_CYCLES cycles (real cores
 * take tens to hundreds), in which the cycle events advance and no
 * instruction retires.  The rest of the loop keeps one cycle each.
 */
#define PAUSE_CYCLES	128

static noinline void pause_loop(unsigned long n)
{
	asm volatile("1: pause\n\tdec %0\n\tjnz 1b" : "+r"(n));
}

TEST_F(hw, pause_stalls_for_cycles)
{
	const unsigned long n = 100000;
	uint64_t v[4];

	ASSERT_EQ(cycles_group(pause_loop, n, v), 0);
	ASSERT_EQ(v[0], 3);
	EXPECT_GE(v[2], 3 * n);
	EXPECT_EQ(v[1] - v[2], n * (PAUSE_CYCLES - 1));
	EXPECT_EQ(v[3], intel_version() == 1 ? 0 : v[1]);
}

/*
 * A REP-prefixed string instruction retires once, however many elements
 * it goes through (hardware retires it again only when an interrupt
 * stops it midway, which the model never counts): rep stosb, rep movsb
 * and repe cmpsb over REP_LEN bytes each count as one instruction.  The
 * model spends a cycle on each element, in which the cycle events
 * advance and the instruction events do not, and one to retire it.
 */
#define REP_LEN		4096
#define REP_INSNS	14	/* one round of rep_loop() */

static char rep_src[REP_LEN], rep_dst[REP_LEN];

static noinline void rep_loop(unsigned long n)
{
	asm volatile("1:\tmov %[len], %%ecx\n\t"
		     "mov %[d], %%rdi\n\t"
		     "xor %%eax, %%eax\n\t"
		     "rep stosb\n\t"
		     "mov %[len], %%ecx\n\t"
		     "mov %[d], %%rdi\n\t"
		     "mov %[s], %%rsi\n\t"
		     "rep movsb\n\t"
		     "mov %[len], %%ecx\n\t"
		     "mov %[d], %%rdi\n\t"
		     "mov %[s], %%rsi\n\t"
		     "repe cmpsb\n\t"
		     "dec %[n]\n\t"
		     "jnz 1b"
		     : [n] "+r"(n)
		     : [len] "i"(REP_LEN), [d] "r"(rep_dst), [s] "r"(rep_src)
		     : "rax", "rcx", "rdi", "rsi", "memory", "cc");
}

TEST_F(hw, rep_string_retires_once)
{
	const unsigned long n = 1000;
	uint64_t v[4];

	memset(rep_src, 0x5a, sizeof(rep_src));
	ASSERT_EQ(cycles_group(rep_loop, n, v), 0);
	ASSERT_EQ(v[0], 3);
	/* Around the loop: the ioctl wrapper's return and the call. */
	EXPECT_GE(v[2], REP_INSNS * n);
	EXPECT_LT(v[2], REP_INSNS * n + 100);
	/* Every byte compared equal: each string op went all the way. */
	EXPECT_EQ(memcmp(rep_dst, rep_src, REP_LEN), 0);
	EXPECT_EQ(v[1] - v[2], 3 * n * REP_LEN);
	EXPECT_EQ(v[3], intel_version() == 1 ? 0 : v[1]);
}

/* Lift the sample-rate limits for this test; restored at teardown. */
static int unthrottle(FIXTURE_DATA(hw) *self)
{
	return hw_unthrottle(&self->rate);
}

/* What a sampling run left in its buffer: IP samples, in the loop or not. */
struct ip_tally {
	int samples, outside, throttled;
	uint64_t first_outside;
};

static int tally_ips(struct perf_rb *rb, struct ip_tally *t)
{
	struct perf_event_header *h;

	memset(t, 0, sizeof(*t));
	if (rb_fetch(rb) < 0)
		return -1;
	while ((h = rb_next(rb))) {
		struct rec_cur c = rc_init(h);
		uint64_t ip;

		if (h->type == PERF_RECORD_THROTTLE)
			t->throttled++;
		if (h->type != PERF_RECORD_SAMPLE)
			continue;
		t->samples++;
		ip = rc_u64(&c);
		if (ip < (uintptr_t)hw_spin_start || ip > (uintptr_t)hw_spin_end) {
			if (!t->outside++)
				t->first_outside = ip;
		}
	}
	return 0;
}

/*
 * A period of 100,000 user instructions over a 2,000,000-instruction
 * loop: exactly 20 samples, each at an instruction of the loop (the one
 * after the instruction that wrapped the counter).
 */
TEST_F(hw, sampling_period_exact)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_HARDWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_HW_INSTRUCTIONS,
		.sample_period = 100000,
		.sample_type = PERF_SAMPLE_IP,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.disabled = 1,
	};
	struct ip_tally t;
	struct perf_rb rb;
	int fd;

	ASSERT_EQ(unthrottle(self), 0);
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(rb_map(&rb, fd, 16), 0);
	ASSERT_EQ(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	spin(1000000);
	ASSERT_EQ(ioctl(fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	ASSERT_EQ(tally_ips(&rb, &t), 0);
	/* A late PMI samples where it arrives: maybe after the loop. */
	if (!pmi_late())
		EXPECT_EQ(t.outside, 0)
			TH_LOG("a sample at %#llx, the loop is %p-%p",
			       (unsigned long long)t.first_outside,
			       hw_spin_start, hw_spin_end);
	EXPECT_EQ(t.throttled, 0);
	EXPECT_EQ(t.samples, 20);
	rb_unmap(&rb);
	close(fd);
}

/*
 * Frequency mode: FREQ_HZ samples a second of a user instructions event
 * over a loop of FREQ_LOOP instructions, the period adjusted at every
 * sample and every tick.  A sample's PERF_SAMPLE_PERIOD is the period
 * that starts there (Intel, and AMD without PerfMonV2), or the one that
 * ended there (AMD with PerfMonV2): upstream's PMI handlers differ.  So
 * the count (PERF_SAMPLE_READ) grows from one sample to the next by
 * the earlier, or this, sample's period: no sample is lost or extra.  A
 * PMI may come one instruction late (seen once in 428 samples on stock's
 * K7-counter AMD), so a sample's count may hold one instruction of the
 * next period, never more: the sum of the differences stays within one.
 * The first samples, with periods of a few events (the counter
 * runs at least 2, and a much shorter new period restarts it), are left
 * out of that check, and a PMU whose PMIs come late has none.  Under
 * -icount (PERFTEST_ICOUNT=1) guest time
 * follows the instructions, and the samples of the second half come
 * FREQ_HZ a second, within 5%.
 */
#define FREQ_HZ		4000
#define FREQ_LOOP	50000000UL
#define FREQ_MAX	1024

struct freq_sample {
	uint64_t time, period, count;
};

static int read_freq_samples(struct perf_rb *rb, struct freq_sample *smp,
			     int *lost)
{
	struct perf_event_header *h;
	int n = 0;

	*lost = 0;
	if (rb_fetch(rb) < 0)
		return -1;
	while ((h = rb_next(rb))) {
		struct rec_cur c = rc_init(h);

		if (h->type == PERF_RECORD_LOST || h->type == PERF_RECORD_THROTTLE)
			(*lost)++;
		if (h->type != PERF_RECORD_SAMPLE || n >= FREQ_MAX)
			continue;
		smp[n].time = rc_u64(&c);
		smp[n].period = rc_u64(&c);
		smp[n].count = rc_u64(&c);
		n++;
	}
	return n;
}

TEST_F(hw, sampling_freq_accounts_every_period)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_HARDWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_HW_INSTRUCTIONS,
		.freq = 1,
		.sample_freq = FREQ_HZ,
		.sample_type = PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD | PERF_SAMPLE_READ,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.disabled = 1,
	};
	static struct freq_sample smp[FREQ_MAX];
	const char *icount = getenv("PERFTEST_ICOUNT");
	uint64_t total, span;
	int fd, n, lost, i, checked = 0;
	int64_t drift = 0;
	struct perf_rb rb;

	ASSERT_EQ(unthrottle(self), 0);
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(rb_map(&rb, fd, 64), 0);
	ASSERT_EQ(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	spin(FREQ_LOOP / 2);
	ASSERT_EQ(ioctl(fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	total = read_count(fd);
	n = read_freq_samples(&rb, smp, &lost);
	ASSERT_GE(n, 8);
	ASSERT_LT(n, FREQ_MAX);
	EXPECT_EQ(lost, 0);
	/*
	 * A late PMI (PERFTEST_PMU=amd-late) reads the count where it lands,
	 * after the overflow: the counts then say nothing of the periods.
	 */
	for (i = 2; i < n && !pmi_late(); i++) {
		if (smp[i].period < 64 || smp[i - 1].period < 64 ||
		    smp[i - 2].period < 64)
			continue;
		drift += (int64_t)(smp[i].count - smp[i - 1].count) -
			 (int64_t)smp[i - (pmu_is("amd") ? 0 : 1)].period;
		EXPECT_LE(drift, 1) TH_LOG("sample %d of %d", i, n);
		EXPECT_GE(drift, -1) TH_LOG("sample %d of %d", i, n);
		checked++;
	}
	if (!pmi_late())
		EXPECT_GT(checked, n / 2);
	/* After the last sample, less than a period of counts remains. */
	EXPECT_LE(smp[n - 1].count, total);
	EXPECT_LT(total - smp[n - 1].count, 2 * smp[n - 1].period);

	span = smp[n - 1].time - smp[n / 2].time;
	TH_LOG("%d samples; the second half %llu ns apart on average", n,
	       (unsigned long long)(span / (n - 1 - n / 2)));
	if (icount && !strcmp(icount, "1")) {
		uint64_t want = (uint64_t)(n - 1 - n / 2) * 1000000000 / FREQ_HZ;

		EXPECT_LT(span, want + want / 20);
		EXPECT_GT(span, want - want / 20);
	}
	rb_unmap(&rb);
	close(fd);
}

/*
 * The PMI is precise even when another interrupt is due at the same
 * instruction: a software timer sampling every 20 us beside a counter
 * overflowing every 1009 instructions.  Every instructions sample is in
 * the loop, none at the kernel's interrupt entry.
 */
TEST_F(hw, sampling_ip_exact_under_interrupts)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_HARDWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_HW_INSTRUCTIONS,
		.sample_period = 1009,
		.sample_type = PERF_SAMPLE_IP,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.disabled = 1,
	};
	struct perf_event_attr tick = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(tick),
		.config = PERF_COUNT_SW_TASK_CLOCK,
		.sample_period = 20000,
		.disabled = 1,
	};
	struct ip_tally t;
	struct perf_rb rb;
	int fd, tfd;

	if (pmi_late())
		SKIP(return, "late PMIs (PERFTEST_PMU=%s): IPs have skid",
		     getenv("PERFTEST_PMU"));
	ASSERT_EQ(unthrottle(self), 0);
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(fd, 0);
	tfd = sys_perf_event_open(&tick, 0, -1, -1, 0);
	ASSERT_GE(tfd, 0);
	ASSERT_EQ(rb_map(&rb, fd, 256), 0);
	ASSERT_EQ(ioctl(tfd, PERF_EVENT_IOC_ENABLE, 0), 0);
	ASSERT_EQ(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	spin(1000000);
	ASSERT_EQ(ioctl(fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	ASSERT_EQ(ioctl(tfd, PERF_EVENT_IOC_DISABLE, 0), 0);
	ASSERT_EQ(tally_ips(&rb, &t), 0);
	EXPECT_EQ(t.outside, 0) TH_LOG("a sample at %#llx, the loop is %p-%p",
				      (unsigned long long)t.first_outside,
				      hw_spin_start, hw_spin_end);
	EXPECT_EQ(t.throttled, 0);
	EXPECT_EQ(t.samples, 2000000 / 1009);
	TH_LOG("%d samples, %d outside the loop, %llu timer ticks", t.samples,
	       t.outside, (unsigned long long)read_count(tfd) / 20000);
	rb_unmap(&rb);
	close(tfd);
	close(fd);
}

static inline uint64_t rdpmc(uint32_t idx)
{
	uint32_t lo, hi;

	asm volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(idx));
	return (uint64_t)hi << 32 | lo;
}

/* The count through the user page and rdpmc; -1 when it cannot be read. */
static uint64_t self_read(volatile struct perf_event_mmap_page *pc)
{
	uint64_t count;
	uint32_t seq, idx;
	int64_t pmc;
	int width;

	do {
		seq = pc->lock;
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		idx = pc->index;
		count = pc->offset;
		if (!pc->cap_user_rdpmc || !idx)
			return (uint64_t)-1;
		width = pc->pmc_width;
		pmc = (int64_t)(rdpmc(idx - 1) << (64 - width)) >> (64 - width);
		count += pmc;
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
	} while (pc->lock != seq);
	return count;
}

/* The count of spin(@n) between two self-reads, always the same code. */
static noinline uint64_t self_spin(volatile struct perf_event_mmap_page *pc,
				   unsigned long n)
{
	uint64_t a = self_read(pc);

	spin(n);
	return self_read(pc) - a;
}

/*
 * Self-monitoring: rdpmc through the user page reads the counter read(2)
 * reads, and counts the loop between two reads to the instruction.
 */
TEST_F(hw, rdpmc_matches_read)
{
	volatile struct perf_event_mmap_page *pc;
	uint64_t a, b, r;
	int fd;

	fd = open_hw(PERF_COUNT_HW_INSTRUCTIONS, 1, 0, -1, 0);
	ASSERT_GE(fd, 0);
	pc = mmap(NULL, page_size(), PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(pc, MAP_FAILED);
	ASSERT_EQ(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	EXPECT_EQ((int)pc->cap_user_rdpmc, 1);
	EXPECT_EQ(pc->pmc_width, 48);

	a = self_read(pc);
	ASSERT_NE(a, (uint64_t)-1);
	r = read_count(fd);
	b = self_read(pc);
	ASSERT_NE(b, (uint64_t)-1);
	EXPECT_LE(a, r);
	EXPECT_LE(r, b);
	EXPECT_LT(b - a, 1000);

	/* Two loops, the second a million iterations longer. */
	a = self_spin(pc, 1000);
	b = self_spin(pc, 1001000);
	EXPECT_EQ(b - a, 2000000);
	munmap((void *)pc, page_size());
	close(fd);
}

/*
 * A sampling event reloads its counter at every PMI: the user page's
 * offset follows, so rdpmc through it still gives the count, exactly:
 * two loops a million iterations apart, each crossing many PMIs, count
 * two million instructions apart.
 */
TEST_F(hw, rdpmc_exact_across_pmis)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_HARDWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_HW_INSTRUCTIONS,
		.sample_period = 10007,
		.sample_type = PERF_SAMPLE_IP,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};
	volatile struct perf_event_mmap_page *pc;
	size_t len = 9 * page_size();
	uint64_t a, b, r;
	int fd;

	/* A throttled event stops counting: no throttling here. */
	ASSERT_EQ(unthrottle(self), 0);
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(fd, 0);
	pc = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(pc, MAP_FAILED);
	EXPECT_EQ((int)pc->cap_user_rdpmc, 1);

	a = self_spin(pc, 1000);
	b = self_spin(pc, 1001000);
	EXPECT_EQ(b - a, 2000000);
	a = self_read(pc);
	r = read_count(fd);
	b = self_read(pc);
	EXPECT_LE(a, r);
	EXPECT_LE(r, b);
	EXPECT_GT(r, 2000000);
	munmap((void *)pc, len);
	close(fd);
}

/* rdpmc of @idx in a child; the signal that ended it, 0 if none. */
static int rdpmc_in_child(uint32_t idx, int map)
{
	int fd, st;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		fd = open_hw(PERF_COUNT_HW_INSTRUCTIONS, 1, 0, -1, 0);
		if (fd < 0 || ioctl(fd, PERF_EVENT_IOC_ENABLE, 0))
			_exit(2);
		if (map && mmap(NULL, page_size(), PROT_READ, MAP_SHARED, fd, 0) == MAP_FAILED)
			_exit(3);
		rdpmc(idx);
		_exit(0);
	}
	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFSIGNALED(st) ? WTERMSIG(st) : -WEXITSTATUS(st);
}

/*
 * rdpmc is allowed only to a task that mapped an event (CR4.PCE), and
 * even then a counter the PMU lacks raises #GP: SIGSEGV.
 */
TEST_F(hw, rdpmc_faults_where_it_must)
{
	EXPECT_EQ(rdpmc_in_child(0, 1), 0);
	EXPECT_EQ(rdpmc_in_child(0, 0), SIGSEGV);
	EXPECT_EQ(rdpmc_in_child(0x3fff, 1), SIGSEGV);
	if (pmu_is_amd()) {
		unsigned int a, b, c = 0, d;

		/* No fixed counters on AMD. */
		EXPECT_EQ(rdpmc_in_child(1u << 30, 1), SIGSEGV);
		/*
		 * Past the core counters, CPUID's PerfCtrExtDF and
		 * PerfCtrExtLLC put the data fabric's counters at 6 to 9 and
		 * the L3's at 10 to 15 (4 and 6 of them, as emulated).
		 */
		__get_cpuid(0x80000001, &a, &b, &c, &d);
		if (c & (1u << 28)) {
			EXPECT_EQ(rdpmc_in_child(6, 1), 0);
			EXPECT_EQ(rdpmc_in_child(15, 1), 0);
			EXPECT_EQ(rdpmc_in_child(16, 1), SIGSEGV);
		} else {
			EXPECT_EQ(rdpmc_in_child(pmu_is("amd") ? 6 : 4, 1),
				  SIGSEGV);
		}
	} else {
		/* Fixed counters from version 2. */
		EXPECT_EQ(rdpmc_in_child(1u << 30, 1),
			  intel_version() >= 2 ? 0 : SIGSEGV);
		EXPECT_EQ(rdpmc_in_child(1u << 30 | 3, 1), SIGSEGV);
		EXPECT_EQ(rdpmc_in_child(4, 1), SIGSEGV);
	}
}

#define RDPMC_KNOB "/sys/bus/event_source/devices/cpu/rdpmc"

/*
 * The rdpmc knob: 0 refuses rdpmc to every task (SIGSEGV even with a
 * mapped event), 2 allows it to every task (no mapped event needed), 1
 * (the default) to tasks that mapped an event.
 */
TEST_F(hw, rdpmc_knob)
{
	long mode;

	ASSERT_EQ(read_file_long(RDPMC_KNOB, &mode), 0);
	EXPECT_EQ(mode, 1);
	EXPECT_EQ(write_file_str(RDPMC_KNOB, "3"), -EINVAL);

	ASSERT_EQ(write_file_str(RDPMC_KNOB, "0"), 0);
	EXPECT_EQ(rdpmc_in_child(0, 1), SIGSEGV);
	EXPECT_EQ(rdpmc_in_child(0, 0), SIGSEGV);

	ASSERT_EQ(write_file_str(RDPMC_KNOB, "2"), 0);
	EXPECT_EQ(rdpmc_in_child(0, 0), 0);
	EXPECT_EQ(rdpmc_in_child(0, 1), 0);

	ASSERT_EQ(write_file_str(RDPMC_KNOB, "1"), 0);
	EXPECT_EQ(rdpmc_in_child(0, 1), 0);
	EXPECT_EQ(rdpmc_in_child(0, 0), SIGSEGV);
	ASSERT_EQ(read_file_long(RDPMC_KNOB, &mode), 0);
	EXPECT_EQ(mode, 1);
}

/*
 * Every bit of a raw config, one at a time, on the instructions event:
 * the kernel opens it or refuses it with an errno, and an opened one
 * counts without the kernel writing a bit the PMU refuses (the console
 * would show an unchecked MSR access, which the runner counts as a
 * failure).
 */
TEST_F(hw, raw_config_every_bit)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_RAW,
		.size = sizeof(attr),
		.exclude_kernel = 1,
		.disabled = 1,
	};
	int bit, fd, opened = 0;
	uint64_t v;

	for (bit = 0; bit < 64; bit++) {
		attr.config = 0xc0 | (1ULL << bit);
		fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
		if (fd < 0) {
			EXPECT_TRUE(errno == EINVAL || errno == EACCES ||
				    errno == EOPNOTSUPP || errno == ENOENT)
				TH_LOG("bit %d: %s", bit, strerror(errno));
			continue;
		}
		opened++;
		v = count_spin(fd, 1000);
		EXPECT_NE(v, (uint64_t)-1) TH_LOG("bit %d", bit);
		close(fd);
	}
	/* The event, umask and mode bits at least. */
	EXPECT_GE(opened, 16);
}

/*
 * Intel's AnyThread (raw config bit 21): refused (EINVAL) at version 2,
 * taken from version 3 by a task that may watch the CPU (this one,
 * root), deprecated in version 5 or not.  Version 1 drops the bit, as
 * every bit outside the raw event mask.  The emulated core has one
 * thread, so the core's count is the thread's.
 */
TEST_F(hw, anythread_by_version)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_RAW,
		.size = sizeof(attr),
		.config = 0xc0,
		.exclude_kernel = 1,
		.disabled = 1,
	};
	int version = intel_version(), fd, any;

	if (!version)
		SKIP(return, "an emulated Intel PMU only (PERFTEST_PMU=%s)", pmu_kind());
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(fd, 0);
	attr.config |= 1ULL << 21;
	any = sys_perf_event_open(&attr, 0, -1, -1, 0);
	if (version == 2) {
		EXPECT_EQ(any, -1);
		EXPECT_EQ(errno, EINVAL);
	} else {
		ASSERT_GE(any, 0) TH_LOG("%s", strerror(errno));
		EXPECT_EQ(count_spin(any, 1000000), count_spin(fd, 1000000));
	}
	if (any >= 0)
		close(any);
	close(fd);
}

/*
 * What perf(1) reads about the cpu PMU in sysfs, as the emulated CPUs'
 * drivers present it: the generic events with their encodings (only
 * those the CPU has: on Intel, CPUID leaf 0xA marks LLC references and
 * misses and branch misses unavailable), the format fields and the caps.
 */
TEST_F(hw, sysfs_describes_the_pmu)
{
	static const char * const intel[] = {
		"branch-instructions=event=0xc4",
		"bus-cycles=event=0x3c,umask=0x01", "cpu-cycles=event=0x3c",
		"instructions=event=0xc0", "ref-cycles=event=0x00,umask=0x03",
		"format=any cmask edge event inv pc umask",
		"caps=max_precise pmu_name", "caps/max_precise=0",
		"caps/pmu_name=generic_arch_v2+", NULL,
	};
	/* "any" from version 2 until version 5 deprecates it; the name. */
	static const char * const intel_other[] = {
		"branch-instructions=event=0xc4",
		"bus-cycles=event=0x3c,umask=0x01", "cpu-cycles=event=0x3c",
		"instructions=event=0xc0", "ref-cycles=event=0x00,umask=0x03",
		"format=cmask edge event inv pc umask",
		"caps=max_precise pmu_name", "caps/max_precise=0", NULL, NULL,
	};
	static const char * const amd[] = {
		"branch-instructions=event=0xc2", "branch-misses=event=0xc3",
		"cache-misses=event=0x64,umask=0x09",
		"cache-references=event=0x60,umask=0xff", "cpu-cycles=event=0x76",
		"instructions=event=0xc0", "ref-cycles=event=0x120,umask=0x01",
		"stalled-cycles-frontend=event=0xa9",
		"format=cmask edge event inv umask", "caps=max_precise",
		"caps/max_precise=0", NULL,
	};
	/* With PerfMonV2 the emulated Zen 4 has LBR v2's 16 records. */
	const char *amd_lbr[ARRAY_SIZE(amd) + 1];
	const char *other[ARRAY_SIZE(intel_other)];
	const char * const *want = pmu_is_amd() ? amd : intel;
	int version = intel_version();
	char cmd[512], line[512];
	int n = 0, i;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "cd /sys/bus/event_source/devices/cpu || exit 1; "
		 "for f in events/*; do echo \"${f#events/}=$(cat $f)\"; done; "
		 "echo \"format=$(ls format | tr '\\n' ' ' | sed 's/ $//')\"; "
		 "echo \"caps=$(ls caps | tr '\\n' ' ' | sed 's/ $//')\"; "
		 "for f in caps/*; do echo \"$f=$(cat $f)\"; done");
	/* Versions 2 to 4 have the same description. */
	if (version == 1 || version >= 5) {
		memcpy(other, intel_other, sizeof(other));
		other[ARRAY_SIZE(other) - 2] = version == 1 ?
			"caps/pmu_name=generic_arch_v1" :
			"caps/pmu_name=generic_arch_v5+";
		want = other;
	}
	if (pmu_is("amd")) {
		memcpy(amd_lbr, amd, sizeof(amd));
		amd_lbr[ARRAY_SIZE(amd) - 3] = "caps=branches max_precise";
		amd_lbr[ARRAY_SIZE(amd) - 1] = "caps/branches=16";
		amd_lbr[ARRAY_SIZE(amd)] = NULL;
		want = amd_lbr;
	}
	p = popen(cmd, "r");
	ASSERT_NE(p, NULL);
	while (fgets(line, sizeof(line), p)) {
		line[strcspn(line, "\n")] = 0;
		for (i = 0; want[i]; i++)
			if (!strcmp(line, want[i]))
				break;
		EXPECT_NE(want[i], NULL) TH_LOG("unexpected: %s", line);
		n++;
	}
	pclose(p);
	for (i = 0; want[i]; i++)
		;
	EXPECT_EQ(n, i);
}

/*
 * The cpu PMU's own files: rdpmc is root's alone (0600); on Intel,
 * freeze_on_smi (0644, on by default from version 2, off at version 1,
 * as upstream's; perf stat --smi-cost writes it) takes 0 and 1 and
 * nothing else.  AMD has no freeze_on_smi.
 */
TEST_F(hw, pmu_files_and_modes)
{
	const char *freeze = "/sys/bus/event_source/devices/cpu/freeze_on_smi";
	struct stat st;
	long v, was;

	ASSERT_EQ(stat(RDPMC_KNOB, &st), 0);
	EXPECT_EQ(st.st_mode & 0777, 0600);
	if (pmu_is_amd()) {
		EXPECT_NE(access(freeze, F_OK), 0);
		return;
	}
	ASSERT_EQ(stat(freeze, &st), 0) TH_LOG("no %s", freeze);
	EXPECT_EQ(st.st_mode & 0777, 0644);
	ASSERT_EQ(read_file_long(freeze, &was), 0);
	EXPECT_EQ(was, intel_version() >= 2);
	EXPECT_EQ(write_file_str(freeze, "2"), -EINVAL);
	ASSERT_EQ(write_file_str(freeze, "0"), 0);
	ASSERT_EQ(read_file_long(freeze, &v), 0);
	EXPECT_EQ(v, 0);
	ASSERT_EQ(write_file_str(freeze, "1"), 0);
	ASSERT_EQ(read_file_long(freeze, &v), 0);
	EXPECT_EQ(v, 1);
	/* Leave it as found: later tests compare the PMU's files. */
	EXPECT_EQ(write_file_str(freeze, was ? "1" : "0"), 0);
}

#define MUX_EVENTS 12

/*
 * The cpu PMU's rotation interval takes writes, as every PMU's does: its
 * struct pmu stays writable after boot.
 */
TEST_F(hw, mux_interval_takes_writes)
{
	const char *path = "/sys/bus/event_source/devices/cpu/perf_event_mux_interval_ms";
	long old, now;
	FILE *f;

	ASSERT_EQ(0, read_file_long(path, &old));
	f = fopen(path, "w");
	ASSERT_NE(NULL, f);
	fprintf(f, "%ld\n", old + 1);
	ASSERT_EQ(0, fclose(f));
	ASSERT_EQ(0, read_file_long(path, &now));
	EXPECT_EQ(old + 1, now);
	f = fopen(path, "w");
	ASSERT_NE(NULL, f);
	fprintf(f, "%ld\n", old);
	ASSERT_EQ(0, fclose(f));
}

/*
 * Twelve instruction counters on a PMU with four to six: they take
 * turns, and count * enabled / running estimates what each would have
 * counted alone.  The loop retires at a steady rate, so the estimates
 * must come within 30% of the true count (TCG's speed follows the host's
 * load, which time_running sees and the count does not, and a debug
 * kernel spends much of each turn switching events); the raw counts, a
 * quarter to a half of it, cannot.
 */
TEST_F(hw, multiplexing_scales)
{
	uint64_t fmt = F_EN | F_RUN, v[MUX_EVENTS][3], spun = 0;
	double lo = 0, hi = 0;
	long interval = 4;
	int fd[MUX_EVENTS], i, shared, done = 0;

	read_file_long("/sys/bus/event_source/devices/cpu/perf_event_mux_interval_ms",
		       &interval);
	for (i = 0; i < MUX_EVENTS; i++) {
		fd[i] = open_hw(PERF_COUNT_HW_INSTRUCTIONS, 1, 0, -1, fmt);
		ASSERT_GE(fd[i], 0);
	}
	for (i = 0; i < MUX_EVENTS; i++)
		ASSERT_EQ(ioctl(fd[i], PERF_EVENT_IOC_ENABLE, 0), 0);
	/* Until every event has run for a hundred rotation intervals. */
	while (!done) {
		spin(200000);
		spun += 400000;
		done = 1;
		for (i = 0; i < MUX_EVENTS; i++) {
			ASSERT_EQ(read(fd[i], v[i], sizeof(v[i])), sizeof(v[i]));
			if (v[i][2] < 100ULL * interval * 1000000)
				done = 0;
		}
	}
	for (i = 0; i < MUX_EVENTS; i++)
		ASSERT_EQ(ioctl(fd[i], PERF_EVENT_IOC_DISABLE, 0), 0);
	shared = 0;
	for (i = 0; i < MUX_EVENTS; i++) {
		double est;

		ASSERT_EQ(read(fd[i], v[i], sizeof(v[i])), sizeof(v[i]));
		ASSERT_GT(v[i][2], 0);
		if (v[i][2] < v[i][1])
			shared++;
		est = (double)v[i][0] * v[i][1] / v[i][2];
		EXPECT_GT(est, spun * 0.7)
			TH_LOG("event %d: %llu in %llu of %llu ns, %.0f estimated, %llu true",
			       i, (unsigned long long)v[i][0],
			       (unsigned long long)v[i][2],
			       (unsigned long long)v[i][1], est,
			       (unsigned long long)spun);
		EXPECT_LT(est, spun * 1.3);
		if (!i || est / spun < lo)
			lo = est / spun;
		if (!i || est / spun > hi)
			hi = est / spun;
		/* Raw: at most two thirds of the loop, as it ran a share. */
		EXPECT_LT(v[i][0], spun * 2 / 3);
	}
	EXPECT_EQ(shared, MUX_EVENTS);
	TH_LOG("estimates %.3f to %.3f of the true count", lo, hi);
	for (i = 0; i < MUX_EVENTS; i++)
		close(fd[i]);
}

/* A disabled counter does not count, whatever runs. */
TEST_F(hw, disabled_counts_nothing)
{
	int fd = open_hw(PERF_COUNT_HW_INSTRUCTIONS, 1, 1, -1, 0);
	uint64_t v;

	ASSERT_GE(fd, 0);
	v = count_spin(fd, 1000);
	ASSERT_NE(v, (uint64_t)-1);
	spin(100000);
	getppid();
	EXPECT_EQ(read_count(fd), v);
	close(fd);
}

/* The NMIs CPU @cpu has taken (the "NMI:" row of /proc/interrupts). */
static long long nmis_on(int cpu)
{
	char line[4096], *p, *end;
	long long v = -1;
	FILE *f;
	int i;

	f = fopen("/proc/interrupts", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		p = line + strspn(line, " ");
		if (strncmp(p, "NMI:", 4))
			continue;
		p += 4;
		for (i = 0; i <= cpu; i++) {
			v = strtoll(p, &end, 10);
			if (end == p) {
				v = -1;
				break;
			}
			p = end;
		}
		break;
	}
	fclose(f);
	return v;
}

/*
 * The hardlockup detector runs on the PMU: a pinned cycles counter per
 * CPU whose period is watchdog_thresh seconds of cycles at the CPU's
 * frequency, overflowing into an NMI.  It is available (nmi_watchdog
 * can be turned on), and with the threshold at one second a busy CPU
 * takes its NMIs: one every cpu_khz * 1000 cycles.
 */
TEST_F_TIMEOUT(hw, nmi_watchdog_fires, 900)
{
	long long before;

	if (access("/proc/sys/kernel/nmi_watchdog", F_OK))
		SKIP(return, "the kernel is built without CONFIG_HARDLOCKUP_DETECTOR");
	/* Refused (ENOTSUPP) when the detector found no counter at boot. */
	ASSERT_EQ(write_sysctl("nmi_watchdog", 1), 0);
	ASSERT_EQ(read_sysctl("watchdog_thresh", &self->thresh), 0);
	self->restore_thresh = 1;
	ASSERT_EQ(write_sysctl("watchdog_thresh", 1), 0);
	ASSERT_EQ(pin_to_cpu(0), 0);
	before = nmis_on(0);
	ASSERT_GE(before, 0);
	while (nmis_on(0) == before)
		spin(10000000);
	EXPECT_GT(nmis_on(0), before);
}

/*
 * The PMU's MSRs through the msr driver (/dev/cpu/0/msr), which turns a
 * #GP into EIO.  Writes are allowed without tainting the kernel while
 * the test runs (msr.allow_writes), and only writes that must fault are
 * made: they change nothing.
 */
#define MSR_ALLOW "/sys/module/msr/parameters/allow_writes"

static int msr_rd(int fd, uint32_t msr, uint64_t *v)
{
	return pread(fd, v, sizeof(*v), msr) == sizeof(*v) ? 0 : -errno;
}

static int msr_wr(int fd, uint32_t msr, uint64_t v)
{
	return pwrite(fd, &v, sizeof(v), msr) == sizeof(v) ? 0 : -errno;
}

/* Write @msr's value with @bits set; the error (-EIO for #GP), or 0. */
static int msr_set_bits(int fd, uint32_t msr, uint64_t bits)
{
	uint64_t v;
	int err = msr_rd(fd, msr, &v);

	if (err)
		return err;
	err = msr_wr(fd, msr, v | bits);
	if (!err)
		msr_wr(fd, msr, v);	/* it should not have: put it back */
	return err;
}

struct msr_case {
	uint32_t msr;
	int ok;		/* reads (1) or raises #GP (0); Intel: from version ok */
};

static const struct msr_case intel_msrs[] = {
	{ 0x345, 1 },	/* IA32_PERF_CAPABILITIES */
	{ 0x0c4, 1 }, { 0x0c5, 0 },	/* IA32_PMC3; no PMC4 */
	{ 0x4c4, 1 }, { 0x4c5, 0 },	/* IA32_A_PMC3; no A_PMC4 */
	{ 0x189, 1 }, { 0x18a, 0 },	/* IA32_PERFEVTSEL3; no 4 */
	{ 0x30b, 2 }, { 0x30c, 0 },	/* IA32_FIXED_CTR2; no 3 */
	{ 0x38d, 2 }, { 0x38e, 2 }, { 0x38f, 2 }, { 0x390, 2 },
	{ 0x391, 4 }, { 0x392, 4 },	/* fixed ctrl, global, v4 */
};

static const struct msr_case amd_msrs[] = {
	{ 0xc0010000, 1 }, { 0xc0010007, 1 },	/* K7 PERF_CTL0, CTR3 */
	{ 0xc0010200, 1 }, { 0xc001020b, 1 },	/* PERF_CTL0, PERF_CTR5 */
	{ 0xc001020c, 0 },			/* no counter 6 */
	{ 0xc0000300, 1 }, { 0xc0000301, 1 },	/* GlobalStatus, Ctl */
	{ 0xc0000302, 1 }, { 0xc0000303, 1 },	/* StatusClr, Set */
};

static const struct msr_case amd_legacy_msrs[] = {
	{ 0xc0010000, 1 }, { 0xc0010007, 1 },
	{ 0xc0010200, 0 }, { 0xc0000300, 0 },	/* no extension, no v2 */
};

TEST_F(hw, msr_faults_where_hardware_does)
{
	const struct msr_case *c;
	int version = intel_version();
	char allow[32] = "";
	int fd, n, i, err;
	uint64_t v;
	FILE *f;

	fd = open("/dev/cpu/0/msr", O_RDWR);
	if (fd < 0)
		SKIP(return, "no /dev/cpu/0/msr (CONFIG_X86_MSR): %s", strerror(errno));
	f = fopen(MSR_ALLOW, "r");
	if (f) {
		if (!fgets(allow, sizeof(allow), f))
			allow[0] = 0;
		fclose(f);
	}
	ASSERT_EQ(write_file_str(MSR_ALLOW, "on"), 0);
	if (version) {
		c = intel_msrs;
		n = ARRAY_SIZE(intel_msrs);
	} else if (pmu_is("amd")) {
		c = amd_msrs;
		n = ARRAY_SIZE(amd_msrs);
	} else {
		c = amd_legacy_msrs;
		n = ARRAY_SIZE(amd_legacy_msrs);
	}
	for (i = 0; i < n; i++) {
		int ok = version ? c[i].ok && version >= c[i].ok : c[i].ok;

		err = msr_rd(fd, c[i].msr, &v);
		EXPECT_EQ(err, ok ? 0 : -EIO)
			TH_LOG("rdmsr %#x", c[i].msr);
		if (!ok)
			EXPECT_EQ(msr_wr(fd, c[i].msr, 0), -EIO)
				TH_LOG("wrmsr %#x", c[i].msr);
	}
	if (version) {
		/* AnyThread (EVTSEL bit 21, fixed bit 2): from version 3. */
		int any = version >= 3 ? 0 : -EIO;

		ASSERT_EQ(msr_rd(fd, 0x345, &v), 0);
		EXPECT_EQ(v, 1 << 13);	/* full-width writes, nothing else */
		EXPECT_EQ(msr_wr(fd, 0x345, v), -EIO);	/* read-only */
		EXPECT_EQ(msr_set_bits(fd, 0x186, 1ULL << 21), any);
		EXPECT_EQ(msr_set_bits(fd, 0x186, 1ULL << 32), -EIO);
		EXPECT_EQ(msr_set_bits(fd, 0x4c1, 1ULL << 48), -EIO);	/* 48 bits */
		if (version >= 2) {
			EXPECT_EQ(msr_set_bits(fd, 0x38d, 1ULL << 2), any);
			EXPECT_EQ(msr_set_bits(fd, 0x38d, 1ULL << 12), -EIO);	/* no fixed 3 */
			EXPECT_EQ(msr_set_bits(fd, 0x38f, 1ULL << 4), -EIO);	/* no PMC4 */
			EXPECT_EQ(msr_wr(fd, 0x38e, 0), -EIO);	/* GLOBAL_STATUS: read-only */
		}
		if (version >= 4)
			EXPECT_EQ(msr_wr(fd, 0x392, 0), -EIO);	/* GLOBAL_INUSE: read-only */
	} else {
		EXPECT_EQ(msr_set_bits(fd, 0xc0010000, 1ULL << 19), -EIO);
		EXPECT_EQ(msr_set_bits(fd, 0xc0010000, 1ULL << 21), -EIO);
		EXPECT_EQ(msr_set_bits(fd, 0xc0010000, 1ULL << 42), -EIO);
		EXPECT_EQ(msr_set_bits(fd, 0xc0010004, 1ULL << 48), -EIO);
		if (pmu_is("amd"))
			EXPECT_EQ(msr_wr(fd, 0xc0000300, 0), -EIO);
	}
	if (allow[0])
		write_file_str(MSR_ALLOW, allow);
	close(fd);
}

/*
 * Every MSR of the PMU ranges of both vendors, read: a value or #GP
 * (EIO), and the machine is still there.
 */
TEST_F(hw, pmu_msr_ranges_read_safely)
{
	static const uint32_t ranges[][2] = {
		{ 0xc1, 0xd0 }, { 0x186, 0x195 }, { 0x309, 0x310 },
		{ 0x345, 0x346 }, { 0x38d, 0x396 }, { 0x4c1, 0x4d0 },
		{ 0xc0000300, 0xc0000310 }, { 0xc0010000, 0xc0010010 },
		{ 0xc0010200, 0xc0010250 },
	};
	uint32_t msr;
	uint64_t v;
	int fd, i, err, ok = 0;

	fd = open("/dev/cpu/0/msr", O_RDONLY);
	if (fd < 0)
		SKIP(return, "no /dev/cpu/0/msr (CONFIG_X86_MSR): %s", strerror(errno));
	for (i = 0; i < (int)ARRAY_SIZE(ranges); i++) {
		for (msr = ranges[i][0]; msr < ranges[i][1]; msr++) {
			err = msr_rd(fd, msr, &v);
			EXPECT_TRUE(err == 0 || err == -EIO)
				TH_LOG("rdmsr %#x: %d", msr, err);
			ok += !err;
		}
	}
	EXPECT_GT(ok, 0);
	close(fd);
}

TEST_HARNESS_MAIN
