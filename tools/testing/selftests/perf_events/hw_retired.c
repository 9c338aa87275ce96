// SPDX-License-Identifier: GPL-2.0
/*
 * Events of retired instructions beyond instructions and cycles, on the
 * emulated PMUs: branches, taken branches, loads and stores.  The
 * emulation counts them exactly from the translated code
 * (tools/testing/qemu-pmu/README): branch instructions everywhere
 * (Intel's architectural 0xc4, AMD's 0xc2), taken branches on AMD (0xc4)
 * and on the named Intel models (BR_INST_RETIRED.NEAR_TAKEN), loads and
 * stores on the named Intel models (0xd0, unit masks 0x81 and 0x82).
 * One round of retired_loop() is five near branches, four of them
 * taken, three loads and three stores; what two lengths of the loop
 * count differs by exactly that times the difference of the lengths.
 * A counter of branches interrupts right after the branch that wraps
 * it: with a period of one round, every sample is at the same
 * instruction, the target of one of the loop's branches.
 *
 * Constraints: the emulation counts a constrained event only on the
 * counters its model allows (INST_RETIRED.PREC_DIST on Skylake's counter
 * 1, the memory events 0xd0 on the first four counters of Ice Lake and
 * Golden Cove), so a driver that places one elsewhere reads 0.
 */
#define _GNU_SOURCE
#include <errno.h>
#include "../kselftest_harness.h"
#include "perf_util.h"
#include "perf_rb.h"
#include "hw_util.h"
#include "hw_model_util.h"

#define ROUND_BRANCHES	5
#define ROUND_TAKEN	4
#define ROUND_LOADS	3
#define ROUND_STORES	3
#define ROUND_INSNS	10

static long words[3] = { 1 };

/*
 * A round: a load, a store, a read-modify-write (both), a call (taken,
 * a store), a return (taken, a load), a jump (taken), a conditional
 * branch not taken (words[0] is not 0), and the loop's conditional
 * branch, taken but at the end.
 */
static noinline void retired_loop(unsigned long n)
{
	asm volatile("retired_loop_start:\n"
		     "retired_top:\tmov (%[m]), %%rax\n\t"
		     "mov %%rax, 8(%[m])\n\t"
		     "addq $1, 16(%[m])\n\t"
		     "call retired_ret\n"
		     "retired_after_call:\tjmp retired_cmp\n"
		     "retired_ret:\tret\n"
		     "retired_cmp:\tcmp $0, %%rax\n\t"
		     "je retired_loop_end\n"
		     "retired_dec:\tdec %[n]\n\t"
		     "jnz retired_top\n"
		     "retired_loop_end:"
		     : [n] "+r"(n) : [m] "r"(words) : "rax", "memory", "cc");
}

extern const char retired_loop_start[], retired_loop_end[], retired_top[],
	retired_after_call[], retired_ret[], retired_cmp[], retired_dec[];

/* Where a PMU counts: its type, and a CPU of it (-1: any). */
struct target {
	const char *pmu;	/* "cpu", or a core type's PMU */
	uint32_t type;		/* for raw events */
	uint64_t ext;		/* for generic ones: the type << 32, or 0 */
	int cpu;
	uint64_t taken;		/* raw taken branches; 0: none */
	int mem;		/* loads 0x81d0 and stores 0x82d0 */
};

/*
 * The guest's PMUs: Alder Lake's two core types, or one "cpu"; how many,
 * 0 when this guest's PMU is none of the emulated ones.
 */
static int targets(struct target *t)
{
	static const char * const named[] = { "skx", "icx", "spr" };
	unsigned int i;

	if (pmu_is("adl")) {
		t[0] = (struct target){ "cpu_core", 0, 0, 0, 0x20c4, 1 };
		t[1] = (struct target){ "cpu_atom", 0, 0, 1, 0xc0c4, 1 };
		for (i = 0; i < 2; i++) {
			t[i].type = pmu_type(t[i].pmu);
			t[i].ext = (uint64_t)t[i].type << PERF_PMU_TYPE_SHIFT;
		}
		return 2;
	}
	t[0] = (struct target){ "cpu", PERF_TYPE_RAW, 0, -1, 0, 0 };
	if (pmu_is_amd()) {
		t[0].taken = 0xc4;
		return 1;
	}
	for (i = 0; i < ARRAY_SIZE(named); i++) {
		if (pmu_is(named[i])) {
			t[0].taken = 0x20c4;
			t[0].mem = 1;
		}
	}
	return intel_version() || t[0].mem ? 1 : 0;
}

static const char *retired_unavailable(int *fail)
{
	*fail = 0;
	if (pmu_is("none"))
		return "no emulated PMU in this guest (PERFTEST_PMU)";
	if (!access(PMU_DIR "cpu/type", F_OK) ||
	    !access(PMU_DIR "cpu_core/type", F_OK))
		return NULL;
	if (kernel_is_ours())
		return "this kernel has no driver for this PMU yet (issue 12)";
	*fail = 1;
	return "the guest has an emulated PMU, but the kernel registered no CPU PMU";
}

FIXTURE(retired) {
	struct target t[2];
	int n;
	struct hw_rate rate;
};

FIXTURE_SETUP(retired)
{
	const char *why;
	int fail;

	self->rate.saved = 0;
	why = retired_unavailable(&fail);
	if (why) {
		ASSERT_FALSE(fail) TH_LOG("%s", why);
		SKIP(return, "%s", why);
	}
	self->n = targets(self->t);
	if (!self->n)
		SKIP(return, "PERFTEST_PMU=%s: not a PMU these tests know",
		     pmu_kind());
}

FIXTURE_TEARDOWN(retired)
{
	hw_rethrottle(&self->rate);
}

/* The user-mode events of one run of retired_loop(@n); -1 on error. */
static noinline uint64_t count_loop(int fd, unsigned long n)
{
	if (ioctl(fd, PERF_EVENT_IOC_RESET, 0) ||
	    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0))
		return (uint64_t)-1;
	retired_loop(n);
	if (ioctl(fd, PERF_EVENT_IOC_DISABLE, 0))
		return (uint64_t)-1;
	return read_count(fd);
}

/*
 * What 3000 rounds count beyond 1000, for an event of @type and
 * @config on @t's CPU; -1 when it does not open or count alike twice.
 */
static int64_t per_2000_rounds(struct target *t, uint32_t type,
			       uint64_t config)
{
	uint64_t a, b, c;
	int fd;

	if (t->cpu >= 0 && pin(t->cpu))
		return -1;
	fd = open_user(type, config, -1, 0, 0, 0);
	if (fd < 0)
		return -1;
	a = count_loop(fd, 1000);
	b = count_loop(fd, 1000);
	c = count_loop(fd, 3000);
	close(fd);
	if (a == (uint64_t)-1 || c == (uint64_t)-1 || a != b)
		return -1;
	return (int64_t)(c - a);
}

TEST_F(retired, branches_exact)
{
	int i;

	for (i = 0; i < self->n; i++) {
		struct target *t = &self->t[i];

		EXPECT_EQ(per_2000_rounds(t, PERF_TYPE_HARDWARE,
					  t->ext | PERF_COUNT_HW_BRANCH_INSTRUCTIONS),
			  2000 * ROUND_BRANCHES) TH_LOG("%s", t->pmu);
	}
}

TEST_F(retired, taken_branches_exact)
{
	int i;

	if (!self->t[0].taken)
		SKIP(return, "architectural perfmon has no taken-branch event");
	for (i = 0; i < self->n; i++) {
		struct target *t = &self->t[i];

		EXPECT_EQ(per_2000_rounds(t, t->type, t->taken),
			  2000 * ROUND_TAKEN) TH_LOG("%s", t->pmu);
	}
}

TEST_F(retired, loads_and_stores_exact)
{
	int i;

	if (!self->t[0].mem)
		SKIP(return, "%s: the emulation counts loads and stores on the named Intel models",
		     pmu_kind());
	for (i = 0; i < self->n; i++) {
		struct target *t = &self->t[i];

		EXPECT_EQ(per_2000_rounds(t, t->type, 0x81d0),
			  2000 * ROUND_LOADS) TH_LOG("%s loads", t->pmu);
		EXPECT_EQ(per_2000_rounds(t, t->type, 0x82d0),
			  2000 * ROUND_STORES) TH_LOG("%s stores", t->pmu);
	}
}

/*
 * INST_RETIRED.PREC_DIST counts instructions on Skylake's counter 1: a
 * driver must put it there, whatever the order of the events.
 */
TEST_F(retired, prec_dist_on_its_counter)
{
	if (!pmu_is("skx"))
		SKIP(return, "INST_RETIRED.PREC_DIST on a general counter: Skylake's (PMU=skx)");
	EXPECT_EQ(per_2000_rounds(&self->t[0], PERF_TYPE_RAW, 0x01c0),
		  2000 * ROUND_INSNS);
}

/*
 * A group of four branch events and four memory events fills Ice Lake's
 * and Golden Cove's eight counters, the memory events on the first four
 * (the only ones where they count); in either order of opening, every
 * event counts exactly.
 */
TEST_F(retired, memory_events_on_their_counters)
{
	static const uint64_t ev[2] = { 0x00c4, 0x81d0 };
	static const uint64_t per_round[2] = { ROUND_BRANCHES, ROUND_LOADS };
	struct target *t = &self->t[0];
	int order, i;

	if (!pmu_is("icx") && !pmu_is("spr") && !pmu_is("adl"))
		SKIP(return, "0xd0 on 4 of 8 counters: Ice Lake, Golden Cove (PMU=icx, spr, adl)");
	ASSERT_EQ(pin(t->cpu < 0 ? 0 : t->cpu), 0);
	for (order = 0; order < 2; order++) {
		uint64_t v[2][9], d;
		int fd[8], r;

		for (i = 0; i < 8; i++) {
			struct perf_event_attr attr = {
				.size = sizeof(attr),
				.type = t->type,
				.config = ev[(i < 4) ^ order],
				.exclude_kernel = 1,
				.exclude_hv = 1,
				.read_format = F_GRP,
				.disabled = !i,
			};

			fd[i] = sys_perf_event_open(&attr, 0, -1, i ? fd[0] : -1, 0);
			ASSERT_GE(fd[i], 0) TH_LOG("event %d", i);
		}
		for (r = 0; r < 2; r++) {
			ASSERT_EQ(ioctl(fd[0], PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP), 0);
			ASSERT_EQ(ioctl(fd[0], PERF_EVENT_IOC_ENABLE, 0), 0);
			retired_loop(r ? 3000 : 1000);
			ASSERT_EQ(ioctl(fd[0], PERF_EVENT_IOC_DISABLE, 0), 0);
			ASSERT_EQ(read(fd[0], v[r], sizeof(v[r])), sizeof(v[r]));
			ASSERT_EQ(v[r][0], 8);
		}
		for (i = 0; i < 8; i++) {
			d = v[1][i + 1] - v[0][i + 1];
			EXPECT_EQ(d, 2000 * per_round[(i < 4) ^ order])
				TH_LOG("order %d, event %d: %#llx", order, i,
				       (unsigned long long)ev[(i < 4) ^ order]);
		}
		for (i = 0; i < 8; i++)
			close(fd[i]);
	}
}

/* Whether @ip is right after one of the loop's branches. */
static int after_a_branch(uint64_t ip)
{
	static const char * const at[] = {
		retired_top, retired_after_call, retired_ret, retired_cmp,
		retired_dec,
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(at); i++)
		if (ip == (uintptr_t)at[i])
			return 1;
	return 0;
}

/*
 * A period of one round of branches: the samples in the loop are all at
 * one instruction, the one a branch went to; a sample or two may fall
 * before the loop, where the count starts.
 */
TEST_F(retired, branch_sample_right_after_the_branch)
{
	const unsigned long rounds = 2000;
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_HARDWARE,
		.sample_period = ROUND_BRANCHES,
		.sample_type = PERF_SAMPLE_IP,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.disabled = 1,
	};
	int i;

	if (pmi_late())
		SKIP(return, "late PMIs (PERFTEST_PMU=%s): IPs have skid",
		     getenv("PERFTEST_PMU"));
	ASSERT_EQ(hw_unthrottle(&self->rate), 0);
	for (i = 0; i < self->n; i++) {
		struct target *t = &self->t[i];
		int in = 0, out = 0, other = 0, fd;
		struct perf_event_header *h;
		uint64_t first = 0;
		struct perf_rb rb;

		if (t->cpu >= 0)
			ASSERT_EQ(pin(t->cpu), 0);
		attr.config = t->ext | PERF_COUNT_HW_BRANCH_INSTRUCTIONS;
		fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
		ASSERT_GE(fd, 0) TH_LOG("%s", t->pmu);
		ASSERT_EQ(rb_map(&rb, fd, 64), 0);
		ASSERT_EQ(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), 0);
		retired_loop(rounds);
		ASSERT_EQ(ioctl(fd, PERF_EVENT_IOC_DISABLE, 0), 0);
		ASSERT_GE(rb_fetch(&rb), 0);
		while ((h = rb_next(&rb))) {
			struct rec_cur c = rc_init(h);
			uint64_t ip;

			if (h->type != PERF_RECORD_SAMPLE)
				continue;
			ip = rc_u64(&c);
			if (ip < (uintptr_t)retired_loop_start ||
			    ip > (uintptr_t)retired_loop_end) {
				out++;
				continue;
			}
			if (!in++)
				first = ip;
			other += ip != first;
		}
		TH_LOG("%s: %d samples in the loop, at %#llx; %d before or after",
		       t->pmu, in, (unsigned long long)first, out);
		EXPECT_TRUE(after_a_branch(first));
		EXPECT_EQ(other, 0);
		EXPECT_GE(in, rounds - 1);
		EXPECT_LE(in + out, rounds + 2);
		rb_unmap(&rb);
		close(fd);
	}
}

TEST_HARNESS_MAIN
