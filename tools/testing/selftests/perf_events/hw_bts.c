// SPDX-License-Identifier: GPL-2.0
/*
 * Branch trace store through the AUX area: the intel_bts PMU on the
 * emulated Skylake-SP, Ice Lake-SP, Sapphire Rapids and Alder Lake
 * (PERFTEST_PMU=skx, icx, spr, adl), whose
 * branch trace store records every taken near branch of the traced
 * modes exactly (tools/testing/qemu-pmu/README).  The trace is a run of
 * 24-byte records (from, to, flags) in the AUX area, at the places the
 * PERF_RECORD_AUX records name.
 *
 * A round of bts_loop() takes four branches: a call, its return, a jump
 * and the loop's conditional branch (not taken the last time).  A user
 * trace of the loop holds each of them exactly once a round, and no
 * kernel address; a kernel trace holds no user address.  A read-only
 * area is a snapshot: written round and round, its records flagged
 * OVERWRITE, the newest trace before aux_head, which is an offset into
 * the area (as stock's driver gives it).  The LBR's users and BTS exclude
 * each other (EBUSY); a trace needs the kernel's permission (EACCES);
 * another AUX PMU's event cannot write into the area (EINVAL).
 *
 * The branch trace store also samples every branch: the core PMU's
 * branch instructions event with a fixed period of one gives a sample of
 * each of the loop's branches, exactly once a round, the branch as the
 * IP and its target as the address, and counts nothing, as upstream's.
 * Upstream's rules for it hold on every Intel model: EOPNOTSUPP without
 * a branch trace store, for an event that does not exclude the kernel or
 * a precise one; PERF_EVENT_IOC_PERIOD cannot set a period of one.
 */
#define _GNU_SOURCE
#include "../kselftest_harness.h"
#include "perf_util.h"
#include "hw_model_util.h"
#include "aux_util.h"
#include "perf_rb.h"

#define ROUNDS		1000
#define AUX_PAGES	64
#define BTS_RECORD	24

struct bts_rec {
	uint64_t from, to, flags;
};

static noinline void bts_loop(unsigned long n)
{
	asm volatile("bts_call:\tcall bts_fn\n"
		     "bts_jmp:\tjmp bts_next\n"
		     "bts_fn:\tret\n"
		     "bts_next:\tdec %[n]\n"
		     "bts_jnz:\tjnz bts_call\n"
		     : [n] "+r"(n) : : "memory", "cc");
}

extern const char bts_call[], bts_jmp[], bts_fn[], bts_next[], bts_jnz[];

/* Whether the guest's CPU is one of the models with branch trace store. */
static bool bts_model(void)
{
	return pmu_is("skx") || pmu_is("icx") || pmu_is("spr") || pmu_is("adl");
}

/* An intel_bts event of this task, disabled; -errno. */
static int open_bts(int type, bool user, bool kernel)
{
	struct perf_event_attr a = {
		.size = sizeof(a),
		.type = type,
		.disabled = 1,
		.exclude_user = !user,
		.exclude_kernel = !kernel,
		.exclude_hv = 1,
		.sample_id_all = 1,
		.sample_type = PERF_SAMPLE_TID,
	};
	int fd = sys_perf_event_open(&a, 0, -1, -1, 0);

	return fd < 0 ? -errno : fd;
}

/* The trace records in [@from, @to) of the area, passed to @fn. */
static void bts_walk(struct aux_map *m, uint64_t from, uint64_t to,
		     void (*fn)(const struct bts_rec *r, void *arg), void *arg)
{
	const unsigned char *area = (const unsigned char *)m->aux;
	struct bts_rec r;
	uint64_t pos, off, i;

	for (pos = from; pos + BTS_RECORD <= to; pos += BTS_RECORD) {
		for (i = 0; i < BTS_RECORD; i++) {
			off = (pos + i) & (m->size - 1);
			((unsigned char *)&r)[i] = area[off];
		}
		fn(&r, arg);
	}
}

struct tally {
	uint64_t records, call, ret, jmp, jnz, kernel, user;
};

static bool kernel_address(uint64_t a)
{
	return a >= 0xffff800000000000ULL;
}

static void tally_one(const struct bts_rec *r, void *arg)
{
	struct tally *t = arg;

	t->records++;
	t->call += r->from == (uintptr_t)bts_call && r->to == (uintptr_t)bts_fn;
	t->ret += r->from == (uintptr_t)bts_fn && r->to == (uintptr_t)bts_jmp;
	t->jmp += r->from == (uintptr_t)bts_jmp && r->to == (uintptr_t)bts_next;
	t->jnz += r->from == (uintptr_t)bts_jnz && r->to == (uintptr_t)bts_call;
	if (kernel_address(r->from) || kernel_address(r->to))
		t->kernel++;
	else
		t->user++;
}

FIXTURE(bts) {
	int type;
};

FIXTURE_SETUP(bts)
{
	if (!bts_model())
		SKIP(return, "no emulated branch trace store (PERFTEST_PMU=skx, icx, spr or adl)");
	self->type = pmu_type("intel_bts");
	if (self->type < 0)
		SKIP(return, "no intel_bts PMU (issue 34: BTS on the AUX area)");
}

FIXTURE_TEARDOWN(bts)
{
}

/*
 * A user trace of the loop: each of its branches once a round, and only
 * user addresses; the AUX records follow one another from 0 and end at
 * aux_head; ITRACE_START names this task.
 */
TEST_F(bts, user_trace_is_exact)
{
	struct tally t = { 0 };
	struct aux_rec r[256];
	struct perf_event_header *h;
	struct aux_map m;
	uint64_t end = 0;
	int fd, n, i, starts = 0;

	fd = open_bts(self->type, true, false);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(map_aux(&m, fd, AUX_PAGES, PROT_READ | PROT_WRITE), 0);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	bts_loop(ROUNDS);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);

	n = aux_records(&m, r, ARRAY_SIZE(r));
	ASSERT_GE(n, 1);
	ASSERT_LE(n, ARRAY_SIZE(r));
	for (i = 0; i < n; i++) {
		EXPECT_EQ(r[i].offset, end) TH_LOG("record %d", i);
		EXPECT_EQ(r[i].flags, 0) TH_LOG("record %d", i);
		EXPECT_EQ(r[i].size % BTS_RECORD, 0) TH_LOG("record %d", i);
		bts_walk(&m, r[i].offset, r[i].offset + r[i].size, tally_one, &t);
		end += r[i].size;
	}
	EXPECT_EQ(aux_head(&m), end);
	EXPECT_EQ(t.call, ROUNDS);
	EXPECT_EQ(t.ret, ROUNDS);
	EXPECT_EQ(t.jmp, ROUNDS);
	EXPECT_EQ(t.jnz, ROUNDS - 1);
	EXPECT_EQ(t.kernel, 0);

	rb_rewind(&m.rb);
	while ((h = rb_next(&m.rb))) {
		struct rec_cur c = rc_init(h);

		if (h->type != PERF_RECORD_ITRACE_START)
			continue;
		EXPECT_EQ(rc_u32(&c), getpid());
		EXPECT_EQ(rc_u32(&c), gettid_());
		starts++;
	}
	EXPECT_GE(starts, 1);
	unmap_aux(&m);
	close(fd);
}

/* A kernel trace: the task's system calls' branches, no user address. */
TEST_F(bts, kernel_trace_has_no_user_branch)
{
	struct tally t = { 0 };
	struct aux_rec r[256];
	struct aux_map m;
	int fd, n, i;

	fd = open_bts(self->type, false, true);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(map_aux(&m, fd, AUX_PAGES, PROT_READ | PROT_WRITE), 0);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	bts_loop(ROUNDS);
	for (i = 0; i < 10; i++)
		getppid();
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);

	n = aux_records(&m, r, ARRAY_SIZE(r));
	ASSERT_GE(n, 1);
	ASSERT_LE(n, ARRAY_SIZE(r));
	for (i = 0; i < n; i++)
		bts_walk(&m, r[i].offset, r[i].offset + r[i].size, tally_one, &t);
	EXPECT_GT(t.kernel, 0);
	EXPECT_EQ(t.user, 0);
	EXPECT_EQ(t.call + t.ret + t.jmp + t.jnz, 0);
	unmap_aux(&m);
	close(fd);
}

/*
 * A snapshot area (read-only): written round and round, the records say
 * OVERWRITE; the area before aux_head holds whole records, the loop's
 * among them.
 */
TEST_F(bts, snapshot_area_keeps_the_newest)
{
	struct tally t = { 0 };
	struct aux_rec r[256];
	struct aux_map m;
	uint64_t head;
	int fd, n, i;

	fd = open_bts(self->type, true, false);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(map_aux(&m, fd, 4, PROT_READ), 0);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	bts_loop(ROUNDS);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);

	n = aux_records(&m, r, ARRAY_SIZE(r));
	ASSERT_GE(n, 1);
	ASSERT_LE(n, ARRAY_SIZE(r));
	for (i = 0; i < n; i++)
		EXPECT_EQ(r[i].flags & PERF_AUX_FLAG_OVERWRITE,
			  PERF_AUX_FLAG_OVERWRITE) TH_LOG("record %d", i);
	/*
	 * The head is where in the buffer the next record would go: the
	 * newest records end there (the older ones, past it, run up to the
	 * last whole record of the area and were overwritten in part).
	 */
	head = aux_head(&m);
	EXPECT_LE(head, m.size);
	EXPECT_EQ(head % BTS_RECORD, 0);
	bts_walk(&m, 0, head, tally_one, &t);
	EXPECT_GT(t.jmp, 0);
	EXPECT_EQ(t.kernel, 0);
	unmap_aux(&m);
	close(fd);
}

/*
 * The LBR's users and BTS exclude each other (both own IA32_DEBUGCTL's
 * branch bits): a branch stack event makes intel_bts EBUSY, and the
 * other way round, until the holder is closed.
 */
TEST_F(bts, lbr_and_bts_exclude_each_other)
{
	struct perf_event_attr lbr = {
		.size = sizeof(lbr),
		.type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_CPU_CYCLES,
		.sample_period = 100000,
		.sample_type = PERF_SAMPLE_BRANCH_STACK,
		.branch_sample_type = PERF_SAMPLE_BRANCH_ANY,
		.exclude_kernel = 1,
		.disabled = 1,
	};
	int bts, lbr_fd;

	lbr_fd = sys_perf_event_open(&lbr, 0, -1, -1, 0);
	ASSERT_GE(lbr_fd, 0);
	EXPECT_EQ(open_bts(self->type, true, false), -EBUSY);
	close(lbr_fd);

	bts = open_bts(self->type, true, false);
	ASSERT_GE(bts, 0);
	EXPECT_EQ(sys_perf_event_open(&lbr, 0, -1, -1, 0), -1);
	EXPECT_EQ(errno, EBUSY);
	close(bts);

	/* Each alone is fine again. */
	lbr_fd = sys_perf_event_open(&lbr, 0, -1, -1, 0);
	EXPECT_GE(lbr_fd, 0);
	close(lbr_fd);
}

/* The type of intel_bts, for the child of run_unprivileged(). */
static int bts_type;

/* A user-space trace of itself, as nobody: 0, or the errno. */
static int open_bts_as_nobody(void *arg)
{
	int fd = open_bts(bts_type, true, false);

	if (fd < 0)
		return -fd;
	close(fd);
	return 0;
}

/*
 * Branch records show kernel addresses even when the kernel's branches
 * are left out: a user-space trace needs the kernel's permission too,
 * EACCES for an unprivileged user at perf_event_paranoid 2 (as upstream)
 * and allowed at 1.
 */
TEST_F(bts, user_trace_needs_kernel_permission)
{
	long saved;

	ASSERT_EQ(read_file_long("/proc/sys/kernel/perf_event_paranoid", &saved), 0);
	bts_type = self->type;
	ASSERT_EQ(write_sysctl("perf_event_paranoid", 2), 0);
	EXPECT_EQ(run_unprivileged(open_bts_as_nobody, NULL), EACCES);
	ASSERT_EQ(write_sysctl("perf_event_paranoid", 1), 0);
	EXPECT_EQ(run_unprivileged(open_bts_as_nobody, NULL), 0);
	write_sysctl("perf_event_paranoid", saved);
}

/*
 * One AUX area holds one PMU's trace: an AUX event of another PMU cannot
 * be redirected into intel_bts's buffer (EINVAL); a software event can.
 * The second AUX PMU is perf_test_aux of our test kernels.
 */
TEST_F(bts, set_output_across_aux_pmus)
{
	struct perf_event_attr other = {
		.size = sizeof(other),
		.type = pmu_type("perf_test_aux"),
		.config = 1024,
		.disabled = 1,
	};
	struct aux_map m;
	int bts, fd;

	if ((int)other.type < 0)
		SKIP(return, "no second AUX PMU (perf_test_aux, a test PMU of this core only)");
	bts = open_bts(self->type, true, false);
	ASSERT_GE(bts, 0);
	ASSERT_EQ(map_aux(&m, bts, 4, PROT_READ | PROT_WRITE), 0);
	fd = sys_perf_event_open(&other, 0, -1, -1, 0);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, bts), -1);
	EXPECT_EQ(errno, EINVAL);
	close(fd);
	fd = open_sw(PERF_COUNT_SW_DUMMY, -1);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, bts), 0);
	close(fd);
	unmap_aux(&m);
	close(bts);
}

/* Whether the guest's CPU is one of the emulated Intel models. */
static bool intel_model(void)
{
	return bts_model() || pmu_is("spr") || pmu_is("adl");
}

/* The branch instructions event of this task's user code, disabled. */
static void branch_attr(struct perf_event_attr *a, uint64_t period)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_HARDWARE;
	a->config = PERF_COUNT_HW_BRANCH_INSTRUCTIONS;
	a->sample_period = period;
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_ADDR |
			 PERF_SAMPLE_PERIOD;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	a->disabled = 1;
}

/*
 * A sample of every branch: each of the loop's branches exactly once a
 * round (more rounds than the buffer holds records, so the PMI drains
 * it on the way), IP the branch, address its target, period 1, this
 * task's; no kernel address; no count.
 */
TEST(branch_samples_every_branch)
{
	struct perf_event_attr a;
	struct perf_event_header *h;
	struct perf_rb rb;
	struct tally t = { 0 };
	uint64_t count = 1, bad_period = 0, lost = 0;
	int fd;

	if (!bts_model())
		SKIP(return, "no emulated branch trace store (PERFTEST_PMU=skx, icx, spr or adl)");
	/* Alder Lake: the event is the P-cores' PMU's; stay on one. */
	if (pmu_is("adl"))
		ASSERT_EQ(pin(0), 0);
	branch_attr(&a, 1);
	fd = sys_perf_event_open(&a, 0, -1, -1, 0);
	if (fd < 0 && errno == EOPNOTSUPP && kernel_is_ours() &&
	    pmu_type("intel_bts") < 0)
		SKIP(return, "this kernel has no branch trace store driver (issue 34)");
	ASSERT_GE(fd, 0) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(rb_map(&rb, fd, 256), 0);
	ASSERT_EQ(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	bts_loop(4 * ROUNDS);
	ASSERT_EQ(ioctl(fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	ASSERT_GE(rb_fetch(&rb), 0);
	while ((h = rb_next(&rb))) {
		struct rec_cur c = rc_init(h);
		struct bts_rec r;

		if (h->type == PERF_RECORD_LOST)
			lost++;
		if (h->type != PERF_RECORD_SAMPLE)
			continue;
		r.from = rc_u64(&c);
		EXPECT_EQ(rc_u32(&c), getpid());
		EXPECT_EQ(rc_u32(&c), gettid_());
		r.to = rc_u64(&c);
		bad_period += rc_u64(&c) != 1;
		tally_one(&r, &t);
	}
	TH_LOG("%llu samples", (unsigned long long)t.records);
	EXPECT_EQ(lost, 0);
	EXPECT_EQ(bad_period, 0);
	EXPECT_EQ(t.call, 4 * ROUNDS);
	EXPECT_EQ(t.ret, 4 * ROUNDS);
	EXPECT_EQ(t.jmp, 4 * ROUNDS);
	EXPECT_EQ(t.jnz, 4 * ROUNDS - 1);
	EXPECT_EQ(t.kernel, 0);
	ASSERT_EQ(read(fd, &count, sizeof(count)), sizeof(count));
	EXPECT_EQ(count, 0);
	rb_unmap(&rb);
	close(fd);
}

/*
 * Upstream's rules for a branch event with a period of one, on every
 * Intel model: it needs the branch trace store, an event that excludes
 * the kernel and is not precise; a frequency or another period makes it
 * an ordinary event; PERF_EVENT_IOC_PERIOD cannot set a period of one
 * (nor can it on a model without the store).  With intel_bts tracing,
 * EBUSY.
 */
TEST(branch_sample_errnos)
{
	/* Kernel: it does not exclude the kernel. */
	static const struct {
		uint32_t type;
		uint64_t config;
		bool kernel;
		int precise, err;
	} cases[] = {
		{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, false, 0, 0 },
		{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, true, 0, EOPNOTSUPP },
		{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, false, 1, EOPNOTSUPP },
		/* The raw encoding is the same event. */
		{ PERF_TYPE_RAW, 0x00c4, true, 0, EOPNOTSUPP },
	};
	uint64_t one = 1, three = 3;
	struct perf_event_attr a;
	unsigned int i;
	int fd, bts;

	if (!intel_model())
		SKIP(return, "not an emulated Intel model (PERFTEST_PMU=skx, icx, spr, adl)");
	branch_attr(&a, 1);
	if (!bts_model()) {
		EXPECT_EQ(open_errno(&a), EOPNOTSUPP);
	} else {
		if (kernel_is_ours() && pmu_type("intel_bts") < 0)
			SKIP(return, "this kernel has no branch trace store driver (issue 34)");
		for (i = 0; i < ARRAY_SIZE(cases); i++) {
			branch_attr(&a, 1);
			a.type = cases[i].type;
			a.config = cases[i].config;
			a.exclude_kernel = !cases[i].kernel;
			a.precise_ip = cases[i].precise;
			EXPECT_EQ(open_errno(&a), cases[i].err) TH_LOG("case %u", i);
		}
		branch_attr(&a, 1);
		bts = open_bts(pmu_type("intel_bts"), true, false);
		ASSERT_GE(bts, 0);
		EXPECT_EQ(open_errno(&a), EBUSY);
		close(bts);
	}
	/* A frequency of one, or another period: an ordinary event. */
	a.exclude_kernel = 0;
	a.freq = 1;
	EXPECT_EQ(open_errno(&a), 0);
	a.freq = 0;
	a.sample_period = 2;
	fd = sys_perf_event_open(&a, 0, -1, -1, 0);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(ioctl(fd, PERF_EVENT_IOC_PERIOD, &one), -1);
	EXPECT_EQ(errno, EINVAL);
	EXPECT_EQ(ioctl(fd, PERF_EVENT_IOC_PERIOD, &three), 0);
	close(fd);
}

TEST_HARNESS_MAIN
