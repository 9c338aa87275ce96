// SPDX-License-Identifier: GPL-2.0
/*
 * Branch stacks (PERF_SAMPLE_BRANCH_STACK) from the LBR of the emulated
 * Skylake-SP (PERFTEST_PMU=skx), which records its last 32 taken near
 * branches exactly (tools/testing/qemu-pmu/README).  A round of
 * lbr_loop() takes four branches: a call, its return, a jump and the
 * loop's conditional branch.  A branch counter with a period of one
 * round samples after the same branch every time, and each sample's
 * stack, newest first, is the rounds' branches in reverse order of
 * execution, with the cycles the model spent between them (one
 * instruction a cycle).  A context switch empties the stack (the kernel
 * resets the LBR for the task coming in), so a sample now and then has
 * a short one.  The filters leave one kind each, and the call
 * stack mode leaves the calls not yet returned from.
 */
#define _GNU_SOURCE
#include <errno.h>
#include "../kselftest_harness.h"
#include "perf_util.h"
#include "perf_rb.h"
#include "hw_util.h"

#define LBR_DEPTH	32
#define ROUNDS		1000
/* The first samples' stacks still hold what ran before the loop. */
#define SKIPPED		40

static noinline void lbr_loop(unsigned long n)
{
	asm volatile("lbr_loop_start:\n"
		     "lbr_call:\tcall lbr_fn\n"
		     "lbr_jmp:\tjmp lbr_next\n"
		     "lbr_fn:\tret\n"
		     "lbr_next:\tdec %[n]\n"
		     "lbr_jnz:\tjnz lbr_call\n"
		     "lbr_loop_end:"
		     : [n] "+r"(n) : : "memory", "cc");
}

extern const char lbr_loop_start[], lbr_loop_end[], lbr_call[], lbr_jmp[],
	lbr_fn[], lbr_next[], lbr_jnz[];

/* The round's taken branches in the order they run; their cycles. */
struct branch {
	const char *from, *to;
	uint64_t cycles;
	uint64_t sample_type;	/* the filter that keeps it alone; 0: none */
};

static const struct branch *round_branches(void)
{
	static struct branch b[4];

	b[0] = (struct branch){ lbr_call, lbr_fn, 1, PERF_SAMPLE_BRANCH_ANY_CALL };
	b[1] = (struct branch){ lbr_fn, lbr_jmp, 1, PERF_SAMPLE_BRANCH_ANY_RETURN };
	b[2] = (struct branch){ lbr_jmp, lbr_next, 1, 0 };
	b[3] = (struct branch){ lbr_jnz, lbr_call, 2, PERF_SAMPLE_BRANCH_COND };
	return b;
}

/* Which of the round's branches an entry is, or -1. */
static int which_branch(const struct perf_branch_entry *e)
{
	const struct branch *b = round_branches();
	int i;

	for (i = 0; i < 4; i++)
		if (e->from == (uintptr_t)b[i].from && e->to == (uintptr_t)b[i].to)
			return i;
	return -1;
}

FIXTURE(lbr) {
	struct hw_rate rate;
};

FIXTURE_SETUP(lbr)
{
	self->rate.saved = 0;
	if (!pmu_is("skx"))
		SKIP(return, "the emulated LBR is Skylake-SP's (PMU=skx)");
	ASSERT_EQ(hw_unthrottle(&self->rate), 0);
}

FIXTURE_TEARDOWN(lbr)
{
	hw_rethrottle(&self->rate);
}

/* What the samples of one run hold. */
struct lbr_run {
	int samples, checked, bad_order, foreign, full, entries;
	int cycles_exact, cycles_short;
	uint64_t nr_min, nr_max;
	int kinds[4];
};

/*
 * Sample the user branches of lbr_loop(ROUNDS) every round, keeping the
 * branch stacks @branch_type selects; tally the stacks of the samples in
 * the loop, leaving out the first SKIPPED (the stack fills up).
 * Returns the errno of the open, or 0.
 */
static int lbr_sample(uint64_t branch_type, struct lbr_run *r)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_BRANCH_INSTRUCTIONS,
		.sample_period = 4,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_BRANCH_STACK,
		.branch_sample_type = branch_type | PERF_SAMPLE_BRANCH_USER,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.disabled = 1,
	};
	struct perf_event_header *h;
	struct perf_rb rb;
	int fd;

	memset(r, 0, sizeof(*r));
	r->nr_min = ~0ULL;
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	if (fd < 0)
		return errno;
	if (rb_map(&rb, fd, 512)) {
		close(fd);
		return -1;
	}
	if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0))
		goto fail;
	lbr_loop(ROUNDS);
	if (ioctl(fd, PERF_EVENT_IOC_DISABLE, 0) || rb_fetch(&rb) < 0)
		goto fail;
	while ((h = rb_next(&rb))) {
		struct rec_cur c = rc_init(h);
		const struct perf_branch_entry *e;
		uint64_t ip, nr, i;
		int prev = -1, k;

		if (h->type != PERF_RECORD_SAMPLE)
			continue;
		ip = rc_u64(&c);
		nr = rc_u64(&c);
		e = (const struct perf_branch_entry *)rc_ptr(&c, nr * sizeof(*e));
		if (r->samples++ < SKIPPED || !e || ip < (uintptr_t)lbr_loop_start ||
		    ip > (uintptr_t)lbr_loop_end)
			continue;
		r->checked++;
		r->nr_min = nr < r->nr_min ? nr : r->nr_min;
		r->nr_max = nr > r->nr_max ? nr : r->nr_max;
		r->full += nr == LBR_DEPTH;
		for (i = 0; i < nr; i++) {
			k = which_branch(&e[i]);
			if (k < 0) {
				r->foreign++;
				prev = -1;
				continue;
			}
			r->kinds[k]++;
			/* Newest first: each the one that ran before the last. */
			if (branch_type == PERF_SAMPLE_BRANCH_ANY && prev >= 0 &&
			    k != (prev + 3) % 4)
				r->bad_order++;
			r->entries++;
			if (e[i].cycles == round_branches()[k].cycles)
				r->cycles_exact++;
			else if (e[i].cycles < round_branches()[k].cycles)
				r->cycles_short++;
			prev = k;
		}
	}
	rb_unmap(&rb);
	close(fd);
	return 0;
fail:
	rb_unmap(&rb);
	close(fd);
	return -1;
}

static int lbr_missing(int err)
{
	return err == EOPNOTSUPP && kernel_is_ours();
}

TEST_F(lbr, any_branch_in_order)
{
	struct lbr_run r;
	int err = lbr_sample(PERF_SAMPLE_BRANCH_ANY, &r);

	if (lbr_missing(err))
		SKIP(return, "branch stacks: not in this kernel yet (issue 34)");
	ASSERT_EQ(err, 0);
	TH_LOG("%d samples, %d checked, %d full (%llu to %llu entries)",
	       r.samples, r.checked, r.full, (unsigned long long)r.nr_min,
	       (unsigned long long)r.nr_max);
	TH_LOG("%d of %d entries with the model's cycles", r.cycles_exact,
	       r.entries);
	EXPECT_GE(r.checked, ROUNDS - SKIPPED - 2);
	EXPECT_GE(r.full, r.checked / 2);
	EXPECT_EQ(r.foreign, 0);
	EXPECT_EQ(r.bad_order, 0);
	/*
	 * The branch after each PMI, one a round, also counts the kernel's
	 * cycles, and so does the first after a context switch: the others
	 * count the model's, and none fewer.
	 */
	EXPECT_EQ(r.cycles_short, 0);
	EXPECT_GE(r.cycles_exact, r.entries * 3 / 4 - r.checked);
}

/*
 * Each filter keeps its kind of branch, and only it: calls, returns,
 * conditional branches (no filter keeps only direct jumps).
 */
TEST_F(lbr, filters_keep_one_kind)
{
	const struct branch *b = round_branches();
	struct lbr_run r;
	int k, err;

	for (k = 0; k < 4; k++) {
		if (!b[k].sample_type)
			continue;
		err = lbr_sample(b[k].sample_type, &r);
		if (lbr_missing(err))
			SKIP(return, "branch stacks: not in this kernel yet (issue 34)");
		ASSERT_EQ(err, 0) TH_LOG("filter %#llx", (unsigned long long)b[k].sample_type);
		EXPECT_GE(r.checked, ROUNDS - SKIPPED - 2);
		EXPECT_GE(r.full, r.checked / 2);
		EXPECT_EQ(r.foreign, 0);
		EXPECT_EQ(r.kinds[k], r.entries)
			TH_LOG("filter %#llx: %d of %d", (unsigned long long)b[k].sample_type,
			       r.kinds[k], r.entries);
	}
}

TEST_HARNESS_MAIN
