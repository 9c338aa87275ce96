// SPDX-License-Identifier: GPL-2.0
/*
 * What a hardware event becomes in the counter's control register, on
 * QEMU's emulated x86 PMU (see hw.c), read back through the msr driver
 * (/dev/cpu/0/msr) while the event counts on CPU 0:
 *
 * - PERF_TYPE_HW_CACHE: each (cache, operation, result) triple opens
 *   with the event select and unit mask of the CPU's table, or fails with
 *   ENOENT (no such event) or EINVAL (no such operation on that cache).
 *   The emulated AMD CPU is family 19h, with the table of family 17h and
 *   later; the emulated Intel model (0xF0) is in no table, so every
 *   triple is ENOENT there.
 * - AMD's large-increment events (event 0x003, retired SSE/AVX FLOPs)
 *   from family 17h with PerfCtrExtCore: each takes an even counter and
 *   programs the odd one after it with the merge event; three fill six
 *   counters, and an instructions event beside two pairs counts exactly.
 *   The K7 counters have no pairs.
 * - That event counts the SSE FLOPs of a known loop by kind, and a pair
 *   sampling it overflows every period: the driver must load the pair's
 *   high 16 bits (the odd counter) with the period's sign, or the 64-bit
 *   pair only wraps after 2^64 events.
 */
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include "../kselftest_harness.h"
#include "perf_util.h"
#include "perf_rb.h"
#include "hw_util.h"

#define CTL_EVENT	0xf0000ffffULL		/* event select 11:0, unit mask */
#define CTL_USR		0x010000ULL		/* bit 16 */
#define CTL_OS		0x020000ULL		/* bit 17 */
#define CTL_EN		0x400000ULL		/* bit 22 */
#define AMD_MERGE	(0xf000000ffULL | CTL_EN)

/*
 * Family 17h and later, by cache, operation (read, write, prefetch) and
 * result (access, miss): the event select and unit mask, 0 for ENOENT,
 * -1 for EINVAL.
 */
static const int32_t zen_cache[7][3][2] = {
	{ { 0x0040, 0xc860 }, {  0,  0 }, { 0xff5a, 0 } },	/* L1D */
	{ { 0x0080, 0x0081 }, { -1, -1 }, {  0,  0 } },		/* L1I */
	{ {      0,      0 }, {  0,  0 }, {  0,  0 } },		/* LL */
	{ { 0xff45, 0xf045 }, {  0,  0 }, {  0,  0 } },		/* DTLB */
	{ { 0x0084, 0xff85 }, { -1, -1 }, { -1, -1 } },		/* ITLB */
	{ { 0x00c2, 0x00c3 }, { -1, -1 }, { -1, -1 } },		/* BPU */
	{ {      0,      0 }, { -1, -1 }, { -1, -1 } },		/* NODE */
};

FIXTURE(hwc) {
	long watchdog;
	int msr;
};

FIXTURE_SETUP(hwc)
{
	const char *why;
	int fail;

	self->watchdog = -1;
	self->msr = -1;
	why = hw_unavailable(&fail);
	if (why) {
		ASSERT_FALSE(fail) TH_LOG("%s", why);
		SKIP(return, "%s", why);
	}
	ASSERT_EQ(pin_to_cpu(0), 0);
	self->msr = open("/dev/cpu/0/msr", O_RDONLY);
	if (self->msr < 0)
		SKIP(return, "no /dev/cpu/0/msr (CONFIG_X86_MSR): %s", strerror(errno));
	ASSERT_EQ(watchdog_pause(&self->watchdog), 0);
}

FIXTURE_TEARDOWN(hwc)
{
	if (self->msr >= 0)
		close(self->msr);
	watchdog_resume(self->watchdog);
}

/* The control MSR of counter @idx (a general counter) on this CPU. */
static uint32_t ctl_msr(int idx)
{
	return pmu_is("amd") ? 0xc0010200 + 2 * idx :
	       pmu_is_amd() ? 0xc0010000 + idx : 0x186 + idx;
}

static uint64_t rdmsr(int fd, uint32_t msr)
{
	uint64_t v = 0;

	if (pread(fd, &v, sizeof(v), msr) != sizeof(v))
		return ~0ULL;
	return v;
}

/* The user page of @fd, or NULL. */
static struct perf_event_mmap_page *map_page(int fd)
{
	void *p = mmap(NULL, getpagesize(), PROT_READ, MAP_SHARED, fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

/*
 * The general counter @pc's event counts on now, or -1: the user page's
 * index (rdpmc's ECX plus one) while the task runs with the event on.
 */
static int counter_of(struct perf_event_mmap_page *pc)
{
	uint32_t idx = __atomic_load_n(&pc->index, __ATOMIC_ACQUIRE);

	return idx && idx <= 32 ? (int)idx - 1 : -1;
}

TEST_F(hwc, cache_events_as_the_table_says)
{
	int cache, op, result, fd, idx;
	struct perf_event_mmap_page *pc;
	uint64_t config, ctl;
	int32_t want;

	for (cache = 0; cache < 7; cache++) {
		for (op = 0; op < 3; op++) {
			for (result = 0; result < 2; result++) {
				config = cache | op << 8 | result << 16;
				want = pmu_is_amd() ? zen_cache[cache][op][result] : 0;
				fd = open_user(PERF_TYPE_HW_CACHE, config, -1, 0, 0, 0);
				if (want <= 0) {
					EXPECT_EQ(fd, -1);
					EXPECT_EQ(errno, want ? EINVAL : ENOENT)
						TH_LOG("cache %d op %d result %d",
						       cache, op, result);
					if (fd >= 0)
						close(fd);
					continue;
				}
				ASSERT_GE(fd, 0) TH_LOG("cache %d op %d result %d: %s",
							cache, op, result, strerror(errno));
				pc = map_page(fd);
				ASSERT_NE(pc, NULL);
				ASSERT_EQ(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), 0);
				idx = counter_of(pc);
				ASSERT_GE(idx, 0);
				ctl = rdmsr(self->msr, ctl_msr(idx));
				EXPECT_EQ(ctl & CTL_EVENT, (uint64_t)want)
					TH_LOG("cache %d op %d result %d: ctl %#llx", cache,
					       op, result, (unsigned long long)ctl);
				EXPECT_EQ(ctl & (CTL_USR | CTL_OS | CTL_EN), CTL_USR | CTL_EN);
				munmap(pc, getpagesize());
				close(fd);
			}
		}
	}
	/* Out of range: EINVAL; bits above the result are ignored. */
	EXPECT_EQ(open_user(PERF_TYPE_HW_CACHE, 7, -1, 0, 0, 0), -1);
	EXPECT_EQ(errno, EINVAL);
	EXPECT_EQ(open_user(PERF_TYPE_HW_CACHE, 3 << 8, -1, 0, 0, 0), -1);
	EXPECT_EQ(errno, EINVAL);
	EXPECT_EQ(open_user(PERF_TYPE_HW_CACHE, 2 << 16, -1, 0, 0, 0), -1);
	EXPECT_EQ(errno, EINVAL);
	fd = open_user(PERF_TYPE_HW_CACHE, 5 | 1ULL << 24 | 1ULL << 40, -1,
		       0, 0, 0);
	if (pmu_is_amd()) {
		EXPECT_GE(fd, 0) TH_LOG("%s", strerror(errno));
		if (fd >= 0)
			close(fd);
	} else {
		EXPECT_EQ(fd, -1);
		EXPECT_EQ(errno, ENOENT);
	}
}

TEST_F(hwc, large_increment_events_take_counter_pairs)
{
	int fds[7], n = 0, i, idx, lone, max = pmu_is("amd") ? 3 : 4;
	struct perf_event_mmap_page *pc[4] = {};
	uint64_t used = 0;

	if (!pmu_is_amd())
		SKIP(return, "AMD's large-increment events; this PMU is %s", pmu_kind());
	/* Three pairs fill six counters; the four K7 counters take four. */
	for (i = 0; i < max; i++) {
		fds[n] = open_user(PERF_TYPE_RAW, 0x003, i ? fds[0] : -1, 0, 0, 0);
		ASSERT_GE(fds[n], 0) TH_LOG("member %d: %s", i, strerror(errno));
		pc[n] = map_page(fds[n]);
		ASSERT_NE(pc[n], NULL);
		n++;
	}
	/* No counter is left for one member more, of any kind. */
	lone = open_user(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,
			 fds[0], 0, 0, 0);
	EXPECT_EQ(lone, -1);
	EXPECT_EQ(errno, EINVAL);
	if (lone >= 0)
		close(lone);

	ASSERT_EQ(ioctl(fds[0], PERF_EVENT_IOC_ENABLE, 0), 0);
	for (i = 0; i < n; i++) {
		idx = counter_of(pc[i]);
		ASSERT_GE(idx, 0) TH_LOG("member %d has no counter", i);
		EXPECT_FALSE(used & 1ULL << idx);
		used |= 1ULL << idx;
		EXPECT_EQ(rdmsr(self->msr, ctl_msr(idx)) & CTL_EVENT, 0x003);
		if (pmu_is("amd")) {
			EXPECT_EQ(idx % 2, 0) TH_LOG("member %d on counter %d", i, idx);
			EXPECT_EQ(rdmsr(self->msr, ctl_msr(idx + 1)), AMD_MERGE)
				TH_LOG("counter %d", idx + 1);
		}
	}
	ASSERT_EQ(ioctl(fds[0], PERF_EVENT_IOC_DISABLE, 0), 0);
	/* Stopped: neither counter of a pair counts any longer. */
	for (i = 0; pmu_is("amd") && i < 6; i++)
		EXPECT_FALSE(rdmsr(self->msr, ctl_msr(i)) & CTL_EN)
			TH_LOG("counter %d", i);
	for (i = 0; i < n; i++) {
		munmap(pc[i], getpagesize());
		close(fds[i]);
	}

	/* Beside two pairs, an instructions event still counts exactly. */
	fds[0] = open_user(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,
			   -1, 0, 0, 0);
	ASSERT_GE(fds[0], 0);
	for (i = 1; i < 3; i++) {
		fds[i] = open_user(PERF_TYPE_RAW, 0x003, fds[0], 0, 0, 0);
		ASSERT_GE(fds[i], 0);
	}
	EXPECT_EQ(count_spin(fds[0], 2000) - count_spin(fds[0], 1000), 2000);
	for (i = 0; i < 3; i++)
		close(fds[i]);
}

/*
 * Five instructions events, each a group of its own, and a pair that
 * cannot fit beside them: every attempt to place the pair fails, and
 * must leave the events already placed on their counters.  Multiplexed,
 * each instructions event runs part of the time and its scaled count is
 * the loop's.
 */
TEST_F(hwc, pair_that_does_not_fit_leaves_the_others_counting)
{
	int fds[6], i;
	uint64_t v[3], scaled;

	if (!pmu_is("amd"))
		SKIP(return, "AMD's counter pairs; this PMU is %s", pmu_kind());
	for (i = 0; i < 5; i++) {
		fds[i] = open_user(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,
				   -1, 0, 0, F_EN | F_RUN);
		ASSERT_GE(fds[i], 0);
	}
	fds[5] = open_user(PERF_TYPE_RAW, 0x003, -1, 0, 0, 0);
	ASSERT_GE(fds[5], 0);
	for (i = 0; i < 6; i++)
		ASSERT_EQ(ioctl(fds[i], PERF_EVENT_IOC_ENABLE, 0), 0);
	spin(20000000);
	for (i = 0; i < 6; i++)
		ASSERT_EQ(ioctl(fds[i], PERF_EVENT_IOC_DISABLE, 0), 0);
	for (i = 0; i < 5; i++) {
		ASSERT_EQ(read3(fds[i], v), 0);
		EXPECT_GT(v[2], 0) TH_LOG("event %d never ran", i);
		if (!v[2])
			continue;
		scaled = (uint64_t)((double)v[0] * v[1] / v[2]);
		EXPECT_GE(scaled, 40000000 * 8 / 10)
			TH_LOG("event %d: %llu in %llu of %llu ns", i,
			       (unsigned long long)v[0], (unsigned long long)v[2],
			       (unsigned long long)v[1]);
		EXPECT_LE(scaled, 40000000 * 12 / 10);
	}
	for (i = 0; i < 6; i++)
		close(fds[i]);
}

/*
 * The SSE FLOPs of flops_loop(@n), by the unit mask of AMD's event 0x003:
 * addps is 4 add FLOPs, mulpd 2 mul, divsd 1 div.
 */
#define FLOPS_ADD	0x1
#define FLOPS_MUL	0x2
#define FLOPS_DIV	0x4

static noinline void flops_loop(unsigned long n)
{
	asm volatile("xorps %%xmm0, %%xmm0\n\t"
		     "xorps %%xmm1, %%xmm1\n\t"
		     "1:\n\t"
		     "addps %%xmm0, %%xmm1\n\t"
		     "mulpd %%xmm0, %%xmm1\n\t"
		     "divsd %%xmm1, %%xmm0\n\t"
		     "dec %0\n\t"
		     "jnz 1b"
		     : "+r"(n) : : "xmm0", "xmm1", "cc");
}

TEST_F(hwc, flops_counted_by_kind)
{
	static const struct {
		uint64_t umask, per_loop;
	} k[] = {
		{ FLOPS_ADD, 4 }, { FLOPS_MUL, 2 }, { FLOPS_DIV, 1 },
		{ FLOPS_ADD | FLOPS_MUL | FLOPS_DIV, 7 },
	};
	unsigned int i;
	int fd;

	if (!pmu_is_amd())
		SKIP(return, "AMD's FLOPs event; this PMU is %s", pmu_kind());
	for (i = 0; i < ARRAY_SIZE(k); i++) {
		fd = open_user(PERF_TYPE_RAW, 0x003 | k[i].umask << 8, -1, 0, 0, 0);
		ASSERT_GE(fd, 0) TH_LOG("%s", strerror(errno));
		ASSERT_EQ(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), 0);
		flops_loop(10000);
		ASSERT_EQ(ioctl(fd, PERF_EVENT_IOC_DISABLE, 0), 0);
		EXPECT_EQ(read_count(fd), 10000 * k[i].per_loop)
			TH_LOG("unit mask %#llx", (unsigned long long)k[i].umask);
		close(fd);
	}
}

/*
 * A pair sampling add FLOPs every 10,000 over 400,000 of them: 40
 * samples, each from the 64-bit pair wrapping.
 */
TEST_F(hwc, pair_samples_every_period)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_RAW,
		.size = sizeof(attr),
		.config = 0x003 | FLOPS_ADD << 8,
		.sample_period = 10000,
		.sample_type = PERF_SAMPLE_IP,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.disabled = 1,
	};
	struct perf_rb rb;
	int fd;

	if (!pmu_is("amd"))
		SKIP(return, "AMD's counter pairs; this PMU is %s", pmu_kind());
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(fd, 0) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(rb_map(&rb, fd, 16), 0);
	ASSERT_EQ(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	flops_loop(100000);
	ASSERT_EQ(ioctl(fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	EXPECT_EQ(read_count(fd), 400000);
	ASSERT_GE(rb_fetch(&rb), 0);
	EXPECT_EQ(rb_count(&rb, PERF_RECORD_SAMPLE), 40);
	rb_unmap(&rb);
	close(fd);
}

TEST_HARNESS_MAIN
