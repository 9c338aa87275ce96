// SPDX-License-Identifier: GPL-2.0
/*
 * AMD's instruction-based sampling on the emulated Zen 4 (PERFTEST_PMU=
 * amd), whose IBS tags exact instructions (tools/testing/qemu-pmu/README):
 * the ibs_op and ibs_fetch PMUs, and precise cycles routed to ibs_op.
 *
 * A round of ibs_loop() is five instructions: a load and a store whose
 * address is buf + 8 * rcx, a jump, the decrement of rcx and the loop's
 * conditional branch.  Op samples of the loop are at one of the five,
 * exactly, with the op's registers in the raw data: a load or store
 * with its linear address (also the sample's address and data source),
 * a branch retired and taken with its target.  IBS samples every
 * privilege level, so the kernel's samples (interrupts, the ioctl) are
 * left out of the tally.  Fetch samples are in the loop: hardware
 * fetches blocks, so they need not start an instruction.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include "../kselftest_harness.h"
#include "perf_util.h"
#include "perf_rb.h"
#include "hw_model_util.h"

/*
 * The period is a multiple of 16 and not of 5, so that samples move
 * along the round.  IBS counts the NMI's own work after it starts the
 * unit again (its exit): a period shorter than that would tag an
 * instruction there and raise the next NMI before the task runs again,
 * for ever, since the tests lift the kernel's throttling.  A debug
 * kernel's NMI exit takes tens of thousands of instructions.  The loop
 * runs CALLS times ROUNDS rounds.  Samples can be lost (a unit stopped
 * with its sample on the way): three in four of the loop's are asked for.
 */
#define ROUNDS		100000
#define CALLS		200
#define PERIOD		1000016
#define LOOP_INSNS	(5ULL * ROUNDS * CALLS)

/* IbsOpCtl.CntCtl: count ops, not cycles (format cnt_ctl). */
#define IBS_OP_CNT_CTL	0x80000ULL
/* IbsOpData: branch retired, taken; IbsOpData3: load, store, address valid. */
#define OP_BRN_TAKEN	0x800000000ULL
#define OP_BRN_RET	0x2000000000ULL
#define OP_LD		0x1ULL
#define OP_ST		0x2ULL
#define OP_LIN_VALID	0x20000ULL
/* CPUID Fn8000_001B EAX: IbsBrTarget is there. */
#define CAPS_BRNTRGT	0x20U

/* The raw data of an op sample: the registers in MSR order. */
enum { R_CTL, R_RIP, R_DATA, R_DATA2, R_DATA3, R_DCLIN, R_DCPHYS, R_BRTGT, R_NR };

static uint64_t buf[ROUNDS + 2];

static noinline void ibs_loop(uint64_t *p, unsigned long n)
{
	asm volatile("ibs_loop_start:\n"
		     "ibs_load:\tmov (%%rdi,%%rcx,8), %%rax\n"
		     "ibs_store:\tmov %%rax, 8(%%rdi,%%rcx,8)\n"
		     "ibs_jmp:\tjmp ibs_dec\n"
		     "ibs_dec:\tdec %%rcx\n"
		     "ibs_jnz:\tjnz ibs_load\n"
		     "ibs_loop_end:"
		     : "+c"(n) : "D"(p) : "rax", "memory", "cc");
}

static void ibs_loops(void)
{
	int i;

	for (i = 0; i < CALLS; i++)
		ibs_loop(buf, ROUNDS);
}

extern const char ibs_loop_start[], ibs_load[], ibs_store[], ibs_jmp[],
	ibs_dec[], ibs_jnz[], ibs_loop_end[];

static int which_insn(uint64_t ip)
{
	const char *insn[5] = { ibs_load, ibs_store, ibs_jmp, ibs_dec, ibs_jnz };
	int i;

	for (i = 0; i < 5; i++)
		if (ip == (uintptr_t)insn[i])
			return i;
	return -1;
}

static bool kernel_address(uint64_t a)
{
	return a >= 0xffff800000000000ULL;
}

static bool in_loop(uint64_t ip)
{
	return ip >= (uintptr_t)ibs_loop_start && ip < (uintptr_t)ibs_loop_end;
}

/* What the samples of one run were. */
struct ibs_run {
	int samples, kernel, user_outside, exact;
	int in_loop, at[5];
	int raw_ok, raw_bad;		/* the raw data's shape */
	int rip_ok;			/* IbsOpRip is the sample's IP */
	int mem_ok, mem_bad;		/* loads and stores: kind, address */
	int br_ok, br_bad;		/* branches: retired, taken, target */
	int plain_ok, plain_bad;	/* the decrement: none of those */
};

/* An ibs_op or ibs_fetch event of this task, disabled; -errno. */
static int open_ibs(uint32_t type, uint64_t config, uint64_t period,
		    uint64_t sample_type)
{
	struct perf_event_attr a = {
		.size = sizeof(a),
		.type = type,
		.config = config,
		.sample_period = period,
		.sample_type = sample_type,
		.disabled = 1,
	};
	int fd = sys_perf_event_open(&a, 0, -1, -1, 0);

	return fd < 0 ? -errno : fd;
}

/* Run the loop with @fd enabled and fetch its ring; 0 or -errno. */
static int ibs_run_loop(int fd, struct perf_rb *rb)
{
	if (rb_map(rb, fd, 256))
		return -ENOMEM;
	if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) ||
	    (ibs_loops(), ioctl(fd, PERF_EVENT_IOC_DISABLE, 0)) ||
	    rb_fetch(rb) < 0) {
		rb_unmap(rb);
		return -EIO;
	}
	return 0;
}

/*
 * Whether op data @d and @reg say what branch @k did: the jump (2)
 * always went to ibs_dec, the branch back (4) to ibs_load but the once
 * it fell through.
 */
static bool branch_ok(int k, uint64_t d, const uint64_t *reg)
{
	uintptr_t target = (uintptr_t)(k == 2 ? ibs_dec : ibs_load);

	if (k == 4 && !(d & OP_BRN_TAKEN))
		return true;
	return (d & OP_BRN_TAKEN) && reg[R_BRTGT] == target;
}

/* Check one op sample's raw registers against the instruction @k. */
static void tally_op(struct ibs_run *r, int k, uint64_t ip, uint64_t addr,
		     const uint64_t *reg)
{
	uint64_t d = reg[R_DATA], d3 = reg[R_DATA3];
	uint64_t want = (uintptr_t)buf;

	if (reg[R_RIP] == ip)
		r->rip_ok++;
	switch (k) {
	case 0:
	case 1:
		if ((d3 & (OP_LD | OP_ST)) == (k ? OP_ST : OP_LD) &&
		    (d3 & OP_LIN_VALID) && reg[R_DCLIN] == addr &&
		    addr >= want && addr < want + sizeof(buf) &&
		    !(d & OP_BRN_RET))
			r->mem_ok++;
		else
			r->mem_bad++;
		break;
	case 2:
	case 4:
		if ((d & OP_BRN_RET) && !(d3 & (OP_LD | OP_ST)) &&
		    branch_ok(k, d, reg))
			r->br_ok++;
		else
			r->br_bad++;
		break;
	default:
		if (!(d & (OP_BRN_RET | OP_BRN_TAKEN)) && !(d3 & (OP_LD | OP_ST)))
			r->plain_ok++;
		else
			r->plain_bad++;
	}
}

/*
 * Sample the loop with @fd's event: where the samples are and, with
 * PERF_SAMPLE_RAW and ADDR in its sample type (@op), what the op's
 * registers say.
 */
static int ibs_tally(int fd, bool op, struct ibs_run *r)
{
	struct perf_event_header *h;
	struct perf_rb rb;
	int err;

	memset(r, 0, sizeof(*r));
	err = ibs_run_loop(fd, &rb);
	if (err)
		return err;
	while ((h = rb_next(&rb))) {
		struct rec_cur c = rc_init(h);
		uint64_t ip, addr = 0, reg[R_NR] = { 0 };
		uint32_t size, caps;
		int k, i;

		if (h->type != PERF_RECORD_SAMPLE)
			continue;
		r->samples++;
		ip = rc_u64(&c);
		if (h->misc & PERF_RECORD_MISC_EXACT_IP)
			r->exact++;
		if (op) {
			addr = rc_u64(&c);
			size = rc_u32(&c);
			caps = rc_u32(&c);
			/* caps and eight registers, 8-byte aligned with the size */
			if (size == 4 + 8 * R_NR && (caps & CAPS_BRNTRGT)) {
				r->raw_ok++;
				for (i = 0; i < R_NR; i++)
					reg[i] = rc_u64(&c);
			} else {
				r->raw_bad++;
			}
		}
		if (kernel_address(ip)) {
			r->kernel++;
			continue;
		}
		if (!in_loop(ip)) {
			r->user_outside++;
			continue;
		}
		r->in_loop++;
		k = which_insn(ip);
		if (k < 0)
			continue;
		r->at[k]++;
		if (op)
			tally_op(r, k, ip, addr, reg);
	}
	rb_unmap(&rb);
	return 0;
}

static void log_run(struct __test_metadata *_metadata, const char *what,
		    const struct ibs_run *r)
{
	TH_LOG("%s: %d samples, %d kernel, %d user outside the loop, %d in it, %d exact",
	       what, r->samples, r->kernel, r->user_outside, r->in_loop, r->exact);
	TH_LOG("%s: load %d, store %d, jmp %d, dec %d, jnz %d; raw %d/%d bad, rip %d",
	       what, r->at[0], r->at[1], r->at[2], r->at[3], r->at[4],
	       r->raw_ok, r->raw_bad, r->rip_ok);
	TH_LOG("%s: memory %d/%d bad, branches %d/%d bad, dec %d/%d bad", what,
	       r->mem_ok, r->mem_bad, r->br_ok, r->br_bad, r->plain_ok, r->plain_bad);
}

FIXTURE(ibs) {
	int op, fetch;
	struct hw_rate rate;
};

FIXTURE_SETUP(ibs)
{
	self->rate.saved = 0;
	if (!pmu_is("amd"))
		SKIP(return, "the emulated IBS is the AMD model's (PERFTEST_PMU=amd)");
	self->op = pmu_type("ibs_op");
	self->fetch = pmu_type("ibs_fetch");
	if (self->op < 0 && kernel_is_ours())
		SKIP(return, "this kernel has no IBS driver yet (issue 34)");
	ASSERT_GE(self->op, 0) TH_LOG("no ibs_op PMU on the emulated Zen 4");
	ASSERT_GE(self->fetch, 0) TH_LOG("no ibs_fetch PMU on the emulated Zen 4");
	ASSERT_EQ(hw_unthrottle(&self->rate), 0);
}

FIXTURE_TEARDOWN(ibs)
{
	hw_rethrottle(&self->rate);
}

/* The PMUs' formats, as upstream names them. */
TEST_F(ibs, formats)
{
	EXPECT_EQ(access("/sys/bus/event_source/devices/ibs_op/format/cnt_ctl", R_OK), 0);
	EXPECT_EQ(access("/sys/bus/event_source/devices/ibs_fetch/format/rand_en", R_OK), 0);
	/* No L3 miss filtering without Zen 4's capability bit. */
	EXPECT_NE(access("/sys/bus/event_source/devices/ibs_op/format/l3missonly", F_OK), 0);
}

/*
 * Op samples in cycles: each user sample in the loop is at one of its
 * five instructions, every one of them is sampled, and the registers
 * describe the instruction.
 */
static void op_samples(struct __test_metadata *_metadata, int type,
		       uint64_t config, const char *what)
{
	struct ibs_run r;
	int fd, k;

	fd = open_ibs(type, config, PERIOD, PERF_SAMPLE_IP | PERF_SAMPLE_ADDR |
		      PERF_SAMPLE_RAW);
	ASSERT_GE(fd, 0) TH_LOG("open: %s", strerror(-fd));
	ASSERT_EQ(ibs_tally(fd, true, &r), 0);
	close(fd);
	log_run(_metadata, what, &r);
	/*
	 * About one sample a period of the loop: 96 to 112 of 100 were
	 * seen.  Our debug kernel once gave 68 in ops mode, with 94 kernel
	 * samples (a cause not found yet): half the periods there.
	 */
	EXPECT_GE(r.in_loop, LOOP_INSNS / PERIOD * (kernel_is_debug() ? 2 : 3) / 4);
	EXPECT_LE(r.user_outside, 4);
	EXPECT_EQ(r.at[0] + r.at[1] + r.at[2] + r.at[3] + r.at[4], r.in_loop);
	for (k = 0; k < 5; k++)
		EXPECT_GT(r.at[k], 0) TH_LOG("instruction %d never sampled", k);
	EXPECT_EQ(r.raw_bad, 0);
	EXPECT_EQ(r.exact, r.samples);
	EXPECT_GE(r.rip_ok, r.in_loop);
	EXPECT_EQ(r.mem_bad, 0);
	EXPECT_EQ(r.br_bad, 0);
	EXPECT_EQ(r.plain_bad, 0);
}

TEST_F(ibs, op_samples_in_cycles)
{
	op_samples(_metadata, self->op, 0, "ibs_op");
}

TEST_F(ibs, op_samples_in_ops)
{
	op_samples(_metadata, self->op, IBS_OP_CNT_CTL, "ibs_op/cnt_ctl=1/");
}

/* Fetch samples: their addresses are in the loop. */
TEST_F(ibs, fetch_samples)
{
	struct ibs_run r;
	int fd;

	fd = open_ibs(self->fetch, 0, PERIOD, PERF_SAMPLE_IP);
	ASSERT_GE(fd, 0) TH_LOG("open: %s", strerror(-fd));
	ASSERT_EQ(ibs_tally(fd, false, &r), 0);
	close(fd);
	log_run(_metadata, "ibs_fetch", &r);
	EXPECT_GE(r.in_loop, LOOP_INSNS / PERIOD * 3 / 4);
	EXPECT_LE(r.user_outside, 4);
}

/*
 * Loads and stores as perf mem sees them: the sample's data source says
 * which, and its address is the one accessed.
 */
TEST_F(ibs, data_source_and_address)
{
	struct perf_event_header *h;
	int fd, loads = 0, stores = 0, bad = 0;
	struct perf_rb rb;

	fd = open_ibs(self->op, 0, PERIOD, PERF_SAMPLE_IP | PERF_SAMPLE_ADDR |
		      PERF_SAMPLE_DATA_SRC);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(ibs_run_loop(fd, &rb), 0);
	while ((h = rb_next(&rb))) {
		struct rec_cur c = rc_init(h);
		union perf_mem_data_src src;
		uint64_t ip, addr;
		int k;

		if (h->type != PERF_RECORD_SAMPLE)
			continue;
		ip = rc_u64(&c);
		addr = rc_u64(&c);
		src.val = rc_u64(&c);
		k = which_insn(ip);
		if (k < 0)
			continue;
		if (k == 0 && src.mem_op == PERF_MEM_OP_LOAD &&
		    addr >= (uintptr_t)buf && addr < (uintptr_t)(buf + ROUNDS + 2))
			loads++;
		else if (k == 1 && src.mem_op == PERF_MEM_OP_STORE &&
			 addr >= (uintptr_t)buf && addr < (uintptr_t)(buf + ROUNDS + 2))
			stores++;
		else if (k < 2)
			bad++;
	}
	rb_unmap(&rb);
	close(fd);
	TH_LOG("%d loads, %d stores, %d wrong", loads, stores, bad);
	EXPECT_GT(loads, 0);
	EXPECT_GT(stores, 0);
	EXPECT_EQ(bad, 0);
}

/*
 * Precise cycles go to ibs_op, up to precise_ip 2, and are then its
 * events; other precise events find no PMU.
 */
TEST_F(ibs, precise_cycles_are_op_samples)
{
	struct perf_event_attr a = {
		.size = sizeof(a),
		.type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_CPU_CYCLES,
		.sample_period = PERIOD,
		.sample_type = PERF_SAMPLE_IP,
		.precise_ip = 2,
		.disabled = 1,
	};
	struct ibs_run r;
	int fd, k;

	fd = sys_perf_event_open(&a, 0, -1, -1, 0);
	ASSERT_GE(fd, 0) TH_LOG("cycles:pp: %s", strerror(errno));
	ASSERT_EQ(ibs_tally(fd, false, &r), 0);
	close(fd);
	log_run(_metadata, "cycles:pp", &r);
	EXPECT_GE(r.in_loop, LOOP_INSNS / PERIOD * 3 / 4);
	EXPECT_EQ(r.exact, r.samples);
	for (k = 0; k < 5; k++)
		EXPECT_GT(r.at[k], 0) TH_LOG("instruction %d never sampled", k);
	a.precise_ip = 3;
	EXPECT_EQ(open_errno(&a), EOPNOTSUPP);
	/* Forwarded, it is ibs_op's: no exclude bits there. */
	a.precise_ip = 2;
	a.exclude_kernel = 1;
	EXPECT_EQ(open_errno(&a), EINVAL);
	/* Precise events IBS has no counting mode for: no PMU takes them. */
	a.exclude_kernel = 0;
	a.config = PERF_COUNT_HW_INSTRUCTIONS;
	EXPECT_EQ(open_errno(&a), ENOENT);
}

/*
 * The period's low four bits are not the counter's: a period that has
 * them is taken rounded down (upstream's check of them reads the
 * period as a frequency, and lets it through).
 */
TEST_F(ibs, period_rounded_down)
{
	struct perf_event_header *h;
	int fd, samples = 0, wrong = 0;
	struct perf_rb rb;

	fd = open_ibs(self->op, 0, PERIOD + 15, PERF_SAMPLE_PERIOD);
	ASSERT_GE(fd, 0) TH_LOG("open: %s", strerror(-fd));
	ASSERT_EQ(ibs_run_loop(fd, &rb), 0);
	while ((h = rb_next(&rb))) {
		struct rec_cur c = rc_init(h);

		if (h->type != PERF_RECORD_SAMPLE)
			continue;
		samples++;
		if (rc_u64(&c) != PERIOD)
			wrong++;
	}
	rb_unmap(&rb);
	close(fd);
	EXPECT_GT(samples, 0);
	EXPECT_EQ(wrong, 0);
}

/* The attributes IBS refuses, with upstream's errnos. */
TEST_F(ibs, refused_attributes)
{
	struct perf_event_attr a = {
		.size = sizeof(a),
		.type = self->op,
		.sample_period = PERIOD,
		.disabled = 1,
	};
	int fd, fd2;

	/* The maximum count comes from the period or the config, not both. */
	EXPECT_EQ(open_ibs(self->op, 0x10, PERIOD, 0), -EINVAL);
	/* Bits of IbsOpCtl that are not the event's to set (En). */
	EXPECT_EQ(open_ibs(self->op, 1ULL << 17, PERIOD, 0), -EINVAL);
	/* No period at all: IBS only samples. */
	EXPECT_EQ(open_ibs(self->op, 0, 0, 0), -EINVAL);
	/* The period from the config's maximum count. */
	fd = open_ibs(self->op, 0x100, 0, 0);
	EXPECT_GE(fd, 0);
	if (fd >= 0)
		close(fd);
	/* IBS samples every privilege level: no exclude bits. */
	a.exclude_kernel = 1;
	EXPECT_EQ(open_errno(&a), EINVAL);
	a.exclude_kernel = 0;
	a.exclude_hv = 1;
	EXPECT_EQ(open_errno(&a), EINVAL);
	a.exclude_hv = 0;
	/* No branch stacks. */
	a.sample_type = PERF_SAMPLE_BRANCH_STACK;
	a.branch_sample_type = PERF_SAMPLE_BRANCH_ANY;
	EXPECT_EQ(open_errno(&a), EOPNOTSUPP);
	/* One op event a group: IBS has one unit. */
	a.sample_type = 0;
	a.branch_sample_type = 0;
	fd = sys_perf_event_open(&a, 0, -1, -1, 0);
	ASSERT_GE(fd, 0);
	fd2 = sys_perf_event_open(&a, 0, -1, fd, 0);
	EXPECT_EQ(fd2, -1);
	EXPECT_EQ(errno, EINVAL);
	if (fd2 >= 0)
		close(fd2);
	close(fd);
}

TEST_HARNESS_MAIN
