// SPDX-License-Identifier: GPL-2.0
/*
 * Branch stacks (PERF_SAMPLE_BRANCH_STACK) from the LBR of the emulated
 * Skylake-SP and Ice Lake-SP (PERFTEST_PMU=skx, icx), which records its
 * last 32 taken near branches exactly, from the architectural LBR of the
 * emulated Sapphire Rapids and Alder Lake (spr, adl; on Alder Lake the
 * events are the P-cores' and the test runs on CPU 0, one), also 32 deep,
 * and from the emulated Zen 4's LBR v2 (amd), its last 16
 * (tools/testing/qemu-pmu/README).  A round of
 * lbr_loop() takes four branches: a call, its return, a jump and the
 * loop's conditional branch.  A branch counter with a period of one
 * round samples after the same branch every time, and each sample's
 * stack, newest first, is the rounds' branches in reverse order of
 * execution, with the cycles the model spent between them (one
 * instruction a cycle).  A context switch empties the stack (the kernel
 * resets the LBR for the task coming in), so a sample now and then has
 * a short one.  The filters leave one kind each (one for a whole
 * group), the types asked for are the branches' own, and the call stack
 * mode leaves the calls not yet returned from, kept across context
 * switches (the kernel saves a task's stack as it leaves and writes it
 * back as it returns).  A BPF program reads the ring with
 * bpf_get_branch_snapshot().  AMD's records have no cycles, and its
 * recorder no call stack mode and no way to leave the flags or cycles
 * out (EOPNOTSUPP, as upstream).  The architectural LBR records each
 * branch's type, so every record has it, asked for or not; and its
 * records keep their flags and cycles when NO_FLAGS and NO_CYCLES say
 * they are not wanted, as upstream's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include "../kselftest_harness.h"
#include "perf_util.h"
#include "perf_rb.h"
#include "hw_model_util.h"
#include "bpf_util.h"

#define ROUNDS		1000
/* The first samples' stacks still hold what ran before the loop. */
#define SKIPPED		40

/* AMD's LBR v2: 16 records, no cycles and no call stack mode. */
static bool lbr_amd(void)
{
	return pmu_is("amd");
}

/* Whether the guest's CPU is one of the models with the LBR. */
static bool lbr_model(void)
{
	return pmu_is("skx") || pmu_is("icx") || pmu_is("spr") || pmu_is("adl") ||
	       pmu_is("amd");
}

/* The architectural LBR (CPUID leaf 0x1C). */
static bool lbr_arch(void)
{
	return pmu_is("spr") || pmu_is("adl");
}

/* The sysfs file with the depth of the LBR of the core PMU. */
static const char *lbr_caps(void)
{
	return pmu_is("adl") ? PMU_DIR "cpu_core/caps/branches" :
			       PMU_DIR "cpu/caps/branches";
}

/* Whether this kernel has no driver for the model's LBR yet. */
static bool lbr_driver_missing(void)
{
	return (lbr_amd() || lbr_arch()) && kernel_is_ours() &&
	       access(lbr_caps(), F_OK);
}

static unsigned int lbr_depth(void)
{
	return lbr_amd() ? 16 : 32;
}

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
	lbr_fn[], lbr_next[], lbr_jnz[], cs_top[], cs_mid[], cs_leaf[],
	cs_loop[], cs_loop_end[], cs_flat[], cs_flat_loop[], cs_flat_end[];

/* The round's taken branches in the order they run; their cycles. */
struct branch {
	const char *from, *to;
	uint64_t cycles;
	uint64_t sample_type;	/* the filter that keeps it alone; 0: none */
	unsigned int type;	/* PERF_BR_* */
};

static const struct branch *round_branches(void)
{
	static struct branch b[4];

	b[0] = (struct branch){ lbr_call, lbr_fn, 1, PERF_SAMPLE_BRANCH_ANY_CALL,
				PERF_BR_CALL };
	b[1] = (struct branch){ lbr_fn, lbr_jmp, 1, PERF_SAMPLE_BRANCH_ANY_RETURN,
				PERF_BR_RET };
	b[2] = (struct branch){ lbr_jmp, lbr_next, 1, 0, PERF_BR_UNCOND };
	b[3] = (struct branch){ lbr_jnz, lbr_call, 2, PERF_SAMPLE_BRANCH_COND,
				PERF_BR_COND };
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
	if (!lbr_model())
		SKIP(return, "the emulated LBRs: skx, icx, spr, adl, amd (PERFTEST_PMU)");
	if (lbr_driver_missing())
		SKIP(return, "this kernel has no driver for this LBR yet (issue 34)");
	/* Alder Lake: the events are the P-cores'; CPU 0 is one. */
	if (pmu_is("adl"))
		ASSERT_EQ(pin(0), 0);
	ASSERT_EQ(hw_unthrottle(&self->rate), 0);
}

FIXTURE_TEARDOWN(lbr)
{
	hw_rethrottle(&self->rate);
}

/* What the samples of one run hold. */
struct lbr_run {
	int samples, checked, bad_order, foreign, full, entries;
	int cycles_exact, cycles_short, bad_type, flagged, bad_index;
	uint64_t nr_min, nr_max;
	int kinds[4];
};

/*
 * A disabled branch counter of this task's user code, sampling the IP
 * and the user branches @branch_type selects every @period branches.
 * Returns the file descriptor, or -1 (errno set).
 */
static int lbr_open(uint64_t branch_type, uint64_t period)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_BRANCH_INSTRUCTIONS,
		.sample_period = period,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_BRANCH_STACK,
		.branch_sample_type = branch_type | PERF_SAMPLE_BRANCH_USER,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.disabled = 1,
	};

	return sys_perf_event_open(&attr, 0, -1, -1, 0);
}

/*
 * Sample the user branches of lbr_loop(ROUNDS) every round, keeping the
 * branch stacks @branch_type selects; tally the stacks of the samples in
 * the loop, leaving out the first SKIPPED (the stack fills up).
 * Returns the errno of the open, or 0.
 */
static int lbr_sample(uint64_t branch_type, struct lbr_run *r)
{
	struct perf_event_header *h;
	struct perf_rb rb;
	int fd;

	memset(r, 0, sizeof(*r));
	r->nr_min = ~0ULL;
	fd = lbr_open(branch_type, 4);
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
		/* The index of the newest record: the top of the stack. */
		if ((branch_type & PERF_SAMPLE_BRANCH_HW_INDEX) &&
		    rc_u64(&c) >= lbr_depth())
			r->bad_index++;
		e = (const struct perf_branch_entry *)rc_ptr(&c, nr * sizeof(*e));
		if (r->samples++ < SKIPPED || !e || ip < (uintptr_t)lbr_loop_start ||
		    ip > (uintptr_t)lbr_loop_end)
			continue;
		r->checked++;
		r->nr_min = nr < r->nr_min ? nr : r->nr_min;
		r->nr_max = nr > r->nr_max ? nr : r->nr_max;
		r->full += nr == lbr_depth();
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
			if (((branch_type & PERF_SAMPLE_BRANCH_TYPE_SAVE) ||
			     lbr_arch()) &&
			    e[i].type != round_branches()[k].type)
				r->bad_type++;
			if (e[i].mispred || e[i].predicted)
				r->flagged++;
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

TEST_F(lbr, any_branch_in_order)
{
	struct lbr_run r;
	int err = lbr_sample(PERF_SAMPLE_BRANCH_ANY, &r);

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
	EXPECT_EQ(r.flagged, r.entries);
	/* AMD's records have no cycles. */
	if (lbr_amd()) {
		EXPECT_EQ(r.cycles_short, r.entries);
		return;
	}
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
		ASSERT_EQ(err, 0) TH_LOG("filter %#llx", (unsigned long long)b[k].sample_type);
		EXPECT_GE(r.checked, ROUNDS - SKIPPED - 2);
		EXPECT_GE(r.full, r.checked / 2);
		EXPECT_EQ(r.foreign, 0);
		EXPECT_EQ(r.kinds[k], r.entries)
			TH_LOG("filter %#llx: %d of %d", (unsigned long long)b[k].sample_type,
			       r.kinds[k], r.entries);
	}
}

/*
 * What the filter asks of the records: PERF_SAMPLE_BRANCH_TYPE_SAVE gives
 * each its branch's type and PERF_SAMPLE_BRANCH_HW_INDEX puts the top of
 * the stack before them; with NO_FLAGS and NO_CYCLES they have neither
 * (the model predicts every branch: otherwise each is "predicted"),
 * except from the architectural LBR, whose records keep both (and their
 * types).
 */
TEST_F(lbr, types_index_and_flags)
{
	static const uint64_t asks[] = {
		PERF_SAMPLE_BRANCH_TYPE_SAVE | PERF_SAMPLE_BRANCH_HW_INDEX,
		PERF_SAMPLE_BRANCH_NO_FLAGS | PERF_SAMPLE_BRANCH_NO_CYCLES,
	};
	struct lbr_run r;
	unsigned int i;
	bool bare;

	for (i = 0; i < ARRAY_SIZE(asks); i++) {
		bare = asks[i] & PERF_SAMPLE_BRANCH_NO_FLAGS;
		if (bare && lbr_amd()) {
			EXPECT_EQ(lbr_sample(PERF_SAMPLE_BRANCH_ANY | asks[i], &r),
				  EOPNOTSUPP);
			continue;
		}
		ASSERT_EQ(lbr_sample(PERF_SAMPLE_BRANCH_ANY | asks[i], &r), 0);
		EXPECT_GE(r.checked, ROUNDS - SKIPPED - 2);
		EXPECT_EQ(r.foreign, 0);
		EXPECT_EQ(r.bad_order, 0);
		EXPECT_EQ(r.bad_type, 0);
		EXPECT_EQ(r.bad_index, 0);
		EXPECT_EQ(r.flagged, bare && !lbr_arch() ? 0 : r.entries);
		if (bare && !lbr_arch())
			EXPECT_EQ(r.cycles_exact, 0);
		if (bare && lbr_arch())
			EXPECT_GE(r.cycles_exact, r.entries / 2);
	}
}

/* A filter and the errno of an event that asks for it (0: none). */
struct filter_case {
	uint64_t type;
	int err;
};

/* AMD's: no call stack, transactions, or records without flags or cycles. */
static const struct filter_case amd_filters[] = {
	{ PERF_SAMPLE_BRANCH_CALL_STACK, EOPNOTSUPP },
	{ PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_NO_TX, EOPNOTSUPP },
	{ PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_IN_TX, EOPNOTSUPP },
	{ PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_ABORT_TX, EOPNOTSUPP },
	{ PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_NO_CYCLES, EOPNOTSUPP },
	/* Upstream's AMD driver does not look at the counters bit. */
	{ PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_COUNTERS, 0 },
	{ PERF_SAMPLE_BRANCH_IND_JUMP | PERF_SAMPLE_BRANCH_CALL, 0 },
	{ PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_HV, 0 },
	{ PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_TYPE_SAVE |
	  PERF_SAMPLE_BRANCH_HW_INDEX, 0 },
};

/* Filters upstream refuses on this LBR, and the call stack's mates. */
TEST_F(lbr, filter_errnos)
{
	static const struct filter_case intel_filters[] = {
		{ PERF_SAMPLE_BRANCH_CALL_STACK | PERF_SAMPLE_BRANCH_ANY, EINVAL },
		{ PERF_SAMPLE_BRANCH_CALL_STACK | PERF_SAMPLE_BRANCH_COND, EINVAL },
		{ PERF_SAMPLE_BRANCH_CALL_STACK | PERF_SAMPLE_BRANCH_ANY_CALL, EINVAL },
		{ PERF_SAMPLE_BRANCH_CALL_STACK | PERF_SAMPLE_BRANCH_NO_TX, EINVAL },
		{ PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_COUNTERS, EINVAL },
		{ PERF_SAMPLE_BRANCH_CALL_STACK | PERF_SAMPLE_BRANCH_CALL, 0 },
		{ PERF_SAMPLE_BRANCH_CALL_STACK | PERF_SAMPLE_BRANCH_IND_JUMP, 0 },
		{ PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_NO_TX, 0 },
	};
	const struct filter_case *cases = intel_filters;
	unsigned int i, n = ARRAY_SIZE(intel_filters);

	if (lbr_amd()) {
		cases = amd_filters;
		n = ARRAY_SIZE(amd_filters);
	}

	for (i = 0; i < n; i++) {
		int fd = lbr_open(cases[i].type, 1000);

		if (!cases[i].err) {
			EXPECT_GE(fd, 0) TH_LOG("filter %#llx: %s",
						(unsigned long long)cases[i].type,
						strerror(errno));
		} else {
			EXPECT_EQ(fd, -1);
			EXPECT_EQ(errno, cases[i].err)
				TH_LOG("filter %#llx", (unsigned long long)cases[i].type);
		}
		if (fd >= 0)
			close(fd);
	}
}

/*
 * A group counts at once, so its members share LBR_SELECT: a member that
 * wants another value is refused (EINVAL), one that wants the same value
 * with other options of the records is not.  On AMD no member is
 * refused for its filter (upstream's driver lets the last event added
 * set the register).
 */
TEST_F(lbr, group_shares_the_filter)
{
	static const struct filter_case intel_members[] = {
		{ PERF_SAMPLE_BRANCH_ANY, 0 },
		{ PERF_SAMPLE_BRANCH_COND, EINVAL },
		{ PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_TYPE_SAVE, 0 },
		{ PERF_SAMPLE_BRANCH_CALL_STACK, EINVAL },
	};
	static const struct filter_case amd_members[] = {
		{ PERF_SAMPLE_BRANCH_ANY, 0 },
		{ PERF_SAMPLE_BRANCH_COND, 0 },
		{ PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_TYPE_SAVE, 0 },
		{ PERF_SAMPLE_BRANCH_CALL_STACK, EOPNOTSUPP },
	};
	const struct filter_case *members = lbr_amd() ? amd_members : intel_members;
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_BRANCH_INSTRUCTIONS,
		.sample_period = 1000,
		.sample_type = PERF_SAMPLE_BRANCH_STACK,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};
	int leader, fd[4];
	unsigned int i;

	leader = lbr_open(PERF_SAMPLE_BRANCH_ANY, 1000);
	ASSERT_GE(leader, 0);
	for (i = 0; i < ARRAY_SIZE(fd); i++) {
		attr.branch_sample_type = members[i].type | PERF_SAMPLE_BRANCH_USER;
		fd[i] = sys_perf_event_open(&attr, 0, -1, leader, 0);
		if (!members[i].err) {
			EXPECT_GE(fd[i], 0) TH_LOG("member %u: %s", i, strerror(errno));
		} else {
			EXPECT_EQ(fd[i], -1);
			EXPECT_EQ(errno, members[i].err) TH_LOG("member %u", i);
		}
	}
	for (i = 0; i < ARRAY_SIZE(fd); i++)
		if (fd[i] >= 0)
			close(fd[i]);
	close(leader);
}

/*
 * Call stack mode: cs_top() calls cs_mid(), which calls cs_leaf(),
 * which first blocks on a pipe until a thread on the same CPU answers
 * (the task leaves the CPU and comes back), then loops.  Every sample in
 * the loop has, newest first, the calls to cs_leaf, cs_mid and cs_top:
 * the stack came back with the task.  A saved stack comes back once:
 * when the task comes in again after it left without its event (none
 * saved then), the stack starts empty, with none of those calls.
 */
#define CS_ROUNDS	2000
#define CS_SWITCHES	3

static int cs_ping[2], cs_pong[2], cs_go[2], cs_done[2];
/* The event cs_switch() disables after the switches; -1: none. */
static int cs_disable_fd = -1;

static __attribute__((used)) void cs_switch(void)
{
	char c = 0;
	int i;

	for (i = 0; i < CS_SWITCHES; i++)
		if (write(cs_ping[1], &c, 1) != 1 || read(cs_pong[0], &c, 1) != 1)
			return;
	if (cs_disable_fd >= 0)
		ioctl(cs_disable_fd, PERF_EVENT_IOC_DISABLE, 0);
}

asm(".text\n"
	".globl cs_top\n"
	"cs_top:\n\tsub $8, %rsp\n\tcall cs_mid\n\tadd $8, %rsp\n\tret\n"
	".globl cs_mid\n"
	"cs_mid:\n\tsub $8, %rsp\n\tcall cs_leaf\n\tadd $8, %rsp\n\tret\n"
	".globl cs_leaf\n"
	"cs_leaf:\n\tpush %rbx\n\tmov %rdi, %rbx\n\tcall cs_switch\n"
	".globl cs_loop\n"
	"cs_loop:\n\tdec %rbx\n\tjnz cs_loop\n"
	".globl cs_loop_end\n"
	"cs_loop_end:\n\tpop %rbx\n\tret\n"
	".globl cs_flat\n"
	"cs_flat:\n\tmov %rdi, %rcx\n"
	".globl cs_flat_loop\n"
	"cs_flat_loop:\n\tdec %rcx\n\tjnz cs_flat_loop\n"
	".globl cs_flat_end\n"
	"cs_flat_end:\n\tret\n");

/*
 * The thread on the task's CPU: answers the switches, then, given an
 * event, enables it while the task waits for that (cs_go, cs_done).
 */
struct cs_helper {
	int cpu;
	int enable_fd;
};

static void *cs_answer(void *arg)
{
	const struct cs_helper *h = arg;
	char c;
	int i;

	if (pin(h->cpu))
		return NULL;
	for (i = 0; i < CS_SWITCHES; i++)
		if (read(cs_ping[0], &c, 1) != 1 || write(cs_pong[1], &c, 1) != 1)
			return NULL;
	if (h->enable_fd >= 0 && read(cs_go[0], &c, 1) == 1) {
		ioctl(h->enable_fd, PERF_EVENT_IOC_ENABLE, 0);
		if (write(cs_done[1], &c, 1) != 1)
			return NULL;
	}
	return NULL;
}

/* What the samples in [@lo, @hi) say of the chain cs_top, cs_mid, cs_leaf. */
struct cs_tally {
	int in_loop;	/* samples there */
	int whole;	/* with the chain as their newest three records */
	int stale;	/* with any call of the chain */
};

static int cs_tally(struct perf_rb *rb, const char *lo, const char *hi,
		    struct cs_tally *t)
{
	struct perf_event_header *h;

	memset(t, 0, sizeof(*t));
	if (rb_fetch(rb) < 0)
		return -1;
	while ((h = rb_next(rb))) {
		struct rec_cur c = rc_init(h);
		const struct perf_branch_entry *e;
		uint64_t ip, nr, i;
		int chain = 0;

		if (h->type != PERF_RECORD_SAMPLE)
			continue;
		ip = rc_u64(&c);
		nr = rc_u64(&c);
		e = (const struct perf_branch_entry *)rc_ptr(&c, nr * sizeof(*e));
		if (!e || ip < (uintptr_t)lo || ip >= (uintptr_t)hi)
			continue;
		t->in_loop++;
		for (i = 0; i < nr; i++)
			chain += e[i].to == (uintptr_t)cs_leaf ||
				 e[i].to == (uintptr_t)cs_mid ||
				 e[i].to == (uintptr_t)cs_top;
		t->stale += chain > 0;
		if (nr >= 3 && e[0].to == (uintptr_t)cs_leaf &&
		    e[1].to == (uintptr_t)cs_mid && e[2].to == (uintptr_t)cs_top)
			t->whole++;
	}
	return 0;
}

FIXTURE(cs) {
	struct hw_rate rate;
	struct cs_helper helper;
	pthread_t th;
	struct perf_rb rb;
	int fd;
};

FIXTURE_SETUP(cs)
{
	self->rate.saved = 0;
	self->fd = -1;
	if (!lbr_model() || lbr_amd())
		SKIP(return, "the call stack mode is skx's, icx's, spr's, adl's (PERFTEST_PMU)");
	if (lbr_driver_missing())
		SKIP(return, "this kernel has no driver for this LBR yet (issue 34)");
	ASSERT_EQ(hw_unthrottle(&self->rate), 0);
	ASSERT_EQ(pin(0), 0);
	ASSERT_EQ(pipe(cs_ping), 0);
	ASSERT_EQ(pipe(cs_pong), 0);
	ASSERT_EQ(pipe(cs_go), 0);
	ASSERT_EQ(pipe(cs_done), 0);
	self->fd = lbr_open(PERF_SAMPLE_BRANCH_CALL_STACK, 3);
	ASSERT_GE(self->fd, 0) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(rb_map(&self->rb, self->fd, 512), 0);
	self->helper.cpu = 0;
	self->helper.enable_fd = self->fd;
	ASSERT_EQ(pthread_create(&self->th, NULL, cs_answer, &self->helper), 0);
	ASSERT_EQ(ioctl(self->fd, PERF_EVENT_IOC_ENABLE, 0), 0);
}

FIXTURE_TEARDOWN(cs)
{
	char c = 0;

	if (self->fd < 0) {
		hw_rethrottle(&self->rate);
		return;
	}
	/* The helper may still wait for its go. */
	if (write(cs_go[1], &c, 1) != 1)
		TH_LOG("cannot release the helper");
	pthread_join(self->th, NULL);
	rb_unmap(&self->rb);
	close(self->fd);
	hw_rethrottle(&self->rate);
}

TEST_F(cs, kept_across_switches)
{
	void (*top)(unsigned long n) = (void (*)(unsigned long))cs_top;
	struct cs_tally t;

	top(CS_ROUNDS);
	ASSERT_EQ(ioctl(self->fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	ASSERT_EQ(cs_tally(&self->rb, cs_loop, cs_loop_end, &t), 0);
	TH_LOG("%d samples in the loop, %d with the whole stack", t.in_loop, t.whole);
	EXPECT_GE(t.in_loop, CS_ROUNDS / 3 - 2);
	EXPECT_EQ(t.whole, t.in_loop);
}

TEST_F(cs, written_back_once)
{
	void (*top)(unsigned long n) = (void (*)(unsigned long))cs_top;
	void (*flat)(unsigned long n) = (void (*)(unsigned long))cs_flat;
	struct cs_tally t;
	char c = 0;

	/* The switches save and restore; then the event goes off. */
	cs_disable_fd = self->fd;
	top(CS_ROUNDS);
	cs_disable_fd = -1;
	/* Off the CPU without the event (no save); back with it. */
	ASSERT_EQ(write(cs_go[1], &c, 1), 1);
	ASSERT_EQ(read(cs_done[0], &c, 1), 1);
	flat(CS_ROUNDS);
	ASSERT_EQ(ioctl(self->fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	ASSERT_EQ(cs_tally(&self->rb, cs_flat_loop, cs_flat_end, &t), 0);
	TH_LOG("%d samples in the flat loop, %d with calls long returned from",
	       t.in_loop, t.stale);
	EXPECT_GE(t.in_loop, CS_ROUNDS / 3 - 2);
	EXPECT_EQ(t.stale, 0);
}

/*
 * bpf_get_branch_snapshot() in a program on the getppid() tracepoint,
 * while an event records this task's kernel branches: the program gets
 * records, the newest a branch in the kernel.  The program stores what
 * the helper returned, and the newest record's source and target.
 */
#define SNAP_ENTRIES	16
#define SNAP_BUF	(SNAP_ENTRIES * (int)sizeof(struct perf_branch_entry))

static int snapshot_prog(int map)
{
	struct prog p = {};
	int skip;

	stack_ptr(&p, BPF_REG_1, -SNAP_BUF);
	mov_imm(&p, BPF_REG_2, SNAP_BUF);
	mov_imm(&p, BPF_REG_3, 0);
	call(&p, BPF_FUNC_get_branch_snapshot);
	mov_reg(&p, BPF_REG_6, BPF_REG_0);
	emit(&p, INSN(BPF_LDX | BPF_MEM | BPF_DW, BPF_REG_7, BPF_REG_10, -SNAP_BUF, 0));
	emit(&p, INSN(BPF_LDX | BPF_MEM | BPF_DW, BPF_REG_8, BPF_REG_10, -SNAP_BUF + 8, 0));
	skip = lookup_key0(&p, map, -SNAP_BUF - 8);
	emit(&p, INSN(BPF_STX | BPF_MEM | BPF_DW, BPF_REG_0, BPF_REG_6, 0, 0));
	emit(&p, INSN(BPF_STX | BPF_MEM | BPF_DW, BPF_REG_0, BPF_REG_7, 8, 0));
	emit(&p, INSN(BPF_STX | BPF_MEM | BPF_DW, BPF_REG_0, BPF_REG_8, 16, 0));
	patch(&p, skip);
	ret_imm(&p, 1);
	return prog_load(BPF_PROG_TYPE_TRACEPOINT, &p);
}

TEST_F(lbr, bpf_branch_snapshot)
{
	struct perf_event_attr lbr = {
		.size = sizeof(lbr),
		.type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_BRANCH_INSTRUCTIONS,
		.sample_period = 1ULL << 40,
		.sample_type = PERF_SAMPLE_BRANCH_STACK,
		.branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_KERNEL,
		.exclude_user = 1,
	};
	struct perf_event_attr tp = {
		.size = sizeof(tp),
		.type = PERF_TYPE_TRACEPOINT,
	};
	long id = tp_id("syscalls", "sys_enter_getppid");
	uint64_t v[3] = {};
	int map, prog, fd, tfd;

	if (!have_bpf_syscall() || id < 0)
		SKIP(return, "no bpf() or no syscall tracepoints here");
	map = map_create(BPF_MAP_TYPE_ARRAY, sizeof(v), 1);
	ASSERT_GE(map, 0);
	prog = snapshot_prog(map);
	ASSERT_GE(prog, 0);
	fd = sys_perf_event_open(&lbr, 0, -1, -1, 0);
	ASSERT_GE(fd, 0) TH_LOG("%s", strerror(errno));
	tp.config = id;
	tfd = sys_perf_event_open(&tp, 0, -1, -1, 0);
	ASSERT_GE(tfd, 0);
	ASSERT_EQ(ioctl(tfd, PERF_EVENT_IOC_SET_BPF, prog), 0);
	syscall(SYS_getppid);
	ASSERT_EQ(map_lookup(map, 0, v), 0);
	TH_LOG("snapshot: %lld bytes, newest from %#llx to %#llx", (long long)v[0],
	       (unsigned long long)v[1], (unsigned long long)v[2]);
	EXPECT_GT((int64_t)v[0], 0);
	EXPECT_EQ(v[0] % sizeof(struct perf_branch_entry), 0);
	EXPECT_LE(v[0], SNAP_BUF);
	EXPECT_LT((int64_t)v[1], 0);
	EXPECT_LT((int64_t)v[2], 0);
	close(tfd);
	close(fd);
	close(prog);
	close(map);
}

/* The models without an LBR this kernel reads: no branch stacks. */
TEST(no_lbr_elsewhere)
{
	long branches;
	int fd;

	if (lbr_model()) {
		if (lbr_driver_missing())
			SKIP(return, "this kernel has no driver for this LBR yet (issue 34)");
		ASSERT_EQ(read_file_long(lbr_caps(), &branches), 0);
		EXPECT_EQ(branches, lbr_depth());
		/* Alder Lake's E-cores have the architectural LBR too. */
		if (pmu_is("adl")) {
			ASSERT_EQ(read_file_long(PMU_DIR "cpu_atom/caps/branches",
						 &branches), 0);
			EXPECT_EQ(branches, lbr_depth());
		}
		return;
	}
	/* Without a PMU, hardware events are ENOENT. */
	if (pmu_is("none"))
		SKIP(return, "no emulated PMU in this guest (PERFTEST_PMU)");
	fd = lbr_open(PERF_SAMPLE_BRANCH_ANY, 1000);
	EXPECT_EQ(fd, -1);
	EXPECT_EQ(errno, EOPNOTSUPP);
	if (fd >= 0)
		close(fd);
}

TEST_HARNESS_MAIN
