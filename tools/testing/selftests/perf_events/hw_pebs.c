// SPDX-License-Identifier: GPL-2.0
/*
 * Precise samples (attr.precise_ip) from PEBS on the emulated Skylake-SP
 * (PERFTEST_PMU=skx: format 3 records), Ice Lake-SP (icx: adaptive
 * records, on the fixed counters too), Sapphire Rapids (spr: format 5,
 * precise distribution on counter 0) and Alder Lake (adl: adaptive
 * records on both core types; the fixture's tests run on a P-core, a
 * Golden Cove as Sapphire Rapids' cores are), whose records name the exact
 * instruction of each sampled event, its data address and the registers
 * after it (tools/testing/qemu-pmu/README).  A round of pebs_loop() is five
 * instructions: a load and a store whose address is buf + 8 * rcx, a
 * jump, the decrement of rcx and the loop's conditional branch.  With
 * precise_ip 2 a sample's IP is the instruction that caused it (a
 * branch for a branch event, the load for a load event) and the kernel
 * marks it exact; with precise_ip 1 it is the instruction after.  A
 * load or store sample's address is the one the instruction accessed,
 * which the registers of the sample (the record's) give again.  The
 * adaptive records also carry the XMM registers and the LBR stack.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <asm/perf_regs.h>
#include "../kselftest_harness.h"
#include "perf_util.h"
#include "perf_rb.h"
#include "hw_model_util.h"

#define ROUNDS		20000
#define LOADS		0x81d0	/* MEM_INST_RETIRED.ALL_LOADS */
#define STORES		0x82d0	/* MEM_INST_RETIRED.ALL_STORES */

static uint64_t buf[ROUNDS + 2];
/* XMM0's low half, in sample_regs_intr. */
static const uint64_t xmm0_lo = 1ULL << PERF_REG_X86_XMM0;

static noinline void pebs_loop(uint64_t *p, unsigned long n)
{
	asm volatile("pebs_loop_start:\n"
		     "pebs_load:\tmov (%%rdi,%%rcx,8), %%rax\n"
		     "pebs_store:\tmov %%rax, 8(%%rdi,%%rcx,8)\n"
		     "pebs_jmp:\tjmp pebs_dec\n"
		     "pebs_dec:\tdec %%rcx\n"
		     "pebs_jnz:\tjnz pebs_load\n"
		     "pebs_loop_end:"
		     : "+c"(n) : "D"(p) : "rax", "memory", "cc");
}

extern const char pebs_loop_start[], pebs_load[], pebs_store[], pebs_jmp[],
	pebs_dec[], pebs_jnz[], pebs_loop_end[];

/* The core PMU's directory: Alder Lake's P-cores' on the hybrid part. */
static const char *core_pmu(void)
{
	return pmu_is("adl") ? "/sys/bus/event_source/devices/cpu_core/" :
			       "/sys/bus/event_source/devices/cpu/";
}

/* The most precise_ip the kernel takes (caps/max_precise), or -1. */
static int precise_max(void)
{
	char path[128];
	long v;

	snprintf(path, sizeof(path), "%scaps/max_precise", core_pmu());
	if (read_file_long(path, &v))
		return -1;
	return v;
}

/* Whether the guest's CPU is one of the models with PEBS. */
static bool pebs_model(void)
{
	return pmu_is("skx") || pmu_is("icx") || pmu_is("spr") || pmu_is("adl");
}

/* Whether its records are adaptive (all but Skylake's). */
static bool pebs_adaptive(void)
{
	return pebs_model() && !pmu_is("skx");
}

/*
 * Whether its core is a Golden Cove (Sapphire Rapids, Alder Lake's
 * P-cores, where the tests of the fixture run on Alder Lake).
 */
static bool glc(void)
{
	return pmu_is("spr") || pmu_is("adl");
}

FIXTURE(pebs) {
	struct hw_rate rate;
};

FIXTURE_SETUP(pebs)
{
	self->rate.saved = 0;
	if (!pebs_model())
		SKIP(return, "the emulated PEBS is skx's, icx's, spr's and adl's");
	if (kernel_is_ours() && precise_max() < 1)
		SKIP(return, "this kernel has no PEBS driver yet (issue 34)");
	/* Alder Lake: the P-core, whose PMU takes the legacy and raw events. */
	if (pmu_is("adl"))
		ASSERT_EQ(pin(0), 0);
	ASSERT_EQ(hw_unthrottle(&self->rate), 0);
}

FIXTURE_TEARDOWN(pebs)
{
	hw_rethrottle(&self->rate);
}

/* What the samples of one run were. */
struct pebs_run {
	int samples, exact, outside;
	int at[5];		/* per instruction of the round, in order */
	int addr_ok, addr_bad, regs_ok;
	int src_ok;
};

/* Which instruction of the round @ip is, or -1. */
static int which_insn(uint64_t ip)
{
	const char *insn[5] = { pebs_load, pebs_store, pebs_jmp, pebs_dec, pebs_jnz };
	int i;

	for (i = 0; i < 5; i++)
		if (ip == (uintptr_t)insn[i])
			return i;
	return -1;
}

/*
 * Open @attr for this task, in the group of @group (or alone, at -1), run
 * @work(@arg) with it (its group) enabled, and fetch its ring into @rb.
 * Returns the fd (the caller unmaps and closes), or -errno.
 */
static int pebs_record_in(struct perf_event_attr *attr, int group,
			  void (*work)(void *), void *arg, struct perf_rb *rb)
{
	int fd = sys_perf_event_open(attr, 0, -1, group, 0);
	int on = group < 0 ? fd : group;
	int flags = group < 0 ? 0 : PERF_IOC_FLAG_GROUP;

	if (fd < 0)
		return -errno;
	if (rb_map(rb, fd, 256)) {
		close(fd);
		return -ENOMEM;
	}
	if (!ioctl(on, PERF_EVENT_IOC_ENABLE, flags)) {
		work(arg);
		if (!ioctl(on, PERF_EVENT_IOC_DISABLE, flags) && rb_fetch(rb) >= 0)
			return fd;
	}
	rb_unmap(rb);
	close(fd);
	return -EIO;
}

static int pebs_record(struct perf_event_attr *attr, void (*work)(void *),
		       void *arg, struct perf_rb *rb)
{
	return pebs_record_in(attr, -1, work, arg, rb);
}

static void run_pebs_loop(void *arg)
{
	pebs_loop(buf, ROUNDS);
}

/*
 * Sample the user-space events @type/@config of pebs_loop(ROUNDS) every
 * @period, with @precise; tally the samples: where they are, whether
 * the kernel marked them exact, and for memory events (@mem: 1 loads,
 * 2 stores) their address and data source against the registers.
 * Returns the errno of the open, or 0.
 */
static int pebs_sample(uint32_t type, uint64_t config, int precise,
		       uint64_t period, int mem, struct pebs_run *r)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = type,
		.config = config,
		.sample_period = period,
		.sample_type = PERF_SAMPLE_IP,
		.precise_ip = precise,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.disabled = 1,
	};
	struct perf_event_header *h;
	struct perf_rb rb;
	int fd;

	memset(r, 0, sizeof(*r));
	if (mem) {
		attr.sample_type |= PERF_SAMPLE_ADDR | PERF_SAMPLE_REGS_INTR |
				    PERF_SAMPLE_DATA_SRC;
		/* In the sample in the order of the bits: CX, then DI. */
		attr.sample_regs_intr = (1ULL << PERF_REG_X86_CX) |
					(1ULL << PERF_REG_X86_DI);
	}
	fd = pebs_record(&attr, run_pebs_loop, NULL, &rb);
	if (fd < 0)
		return -fd;
	while ((h = rb_next(&rb))) {
		struct rec_cur c = rc_init(h);
		uint64_t ip, addr = 0, abi, cx = 0, di = 0;
		union perf_mem_data_src src = { .val = 0 };
		int k;

		if (h->type != PERF_RECORD_SAMPLE)
			continue;
		r->samples++;
		ip = rc_u64(&c);
		if (mem) {
			addr = rc_u64(&c);
			src.val = rc_u64(&c);
			abi = rc_u64(&c);
			if (abi) {
				cx = rc_u64(&c);
				di = rc_u64(&c);
			}
		}
		if (h->misc & PERF_RECORD_MISC_EXACT_IP)
			r->exact++;
		k = which_insn(ip);
		if (k < 0) {
			r->outside++;
			continue;
		}
		r->at[k]++;
		if (!mem)
			continue;
		/* The record's registers: rcx and rdi after the access. */
		if (di == (uintptr_t)buf && addr == di + 8 * cx + (mem == 2 ? 8 : 0))
			r->regs_ok++;
		if (addr >= (uintptr_t)buf && addr < (uintptr_t)(buf + ROUNDS + 2))
			r->addr_ok++;
		else
			r->addr_bad++;
		if (src.mem_op == (mem == 1 ? PERF_MEM_OP_LOAD : PERF_MEM_OP_STORE) &&
		    (mem == 1 || src.mem_lvl == (PERF_MEM_LVL_L1 | PERF_MEM_LVL_HIT)))
			r->src_ok++;
	}
	rb_unmap(&rb);
	close(fd);
	return 0;
}

static void log_run(struct __test_metadata *_metadata, const char *what,
		    const struct pebs_run *r)
{
	TH_LOG("%s: %d samples, %d exact, %d outside the loop",
	       what, r->samples, r->exact, r->outside);
	TH_LOG("%s: load %d, store %d, jmp %d, dec %d, jnz %d", what, r->at[0], r->at[1],
	       r->at[2], r->at[3], r->at[4]);
}

/* The kernel says how precise it can be: PEBS with precise distribution. */
TEST_F(pebs, max_precise)
{
	EXPECT_EQ(precise_max(), 3);
}

/*
 * Branches, precise_ip 2: each sample is one of the round's two branches
 * (the jump and the conditional branch), exactly.  Without PEBS the IP
 * would be the branch's target.
 */
TEST_F(pebs, branches_at_the_branch)
{
	struct pebs_run r;

	ASSERT_EQ(pebs_sample(PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS,
			      2, 1009, 0, &r), 0);
	log_run(_metadata, "branches:pp", &r);
	EXPECT_GE(r.samples, 2 * ROUNDS / 1009 - 2);
	EXPECT_EQ(r.exact, r.samples);
	EXPECT_EQ(r.at[0] + r.at[1] + r.at[3], 0);
	EXPECT_LE(r.outside, 2);
}

/*
 * Loads, precise_ip 2: every sample is the load, its address the one
 * buf + 8 * rcx that the sample's registers give, an L1 load.
 */
TEST_F(pebs, loads_with_their_address)
{
	struct pebs_run r;

	ASSERT_EQ(pebs_sample(PERF_TYPE_RAW, LOADS, 2, 997, 1, &r), 0);
	log_run(_metadata, "loads:pp", &r);
	TH_LOG("%d addresses in buf (%d not), %d as the registers say, %d loads",
	       r.addr_ok, r.addr_bad, r.regs_ok, r.src_ok);
	EXPECT_GE(r.samples, ROUNDS / 997 - 2);
	EXPECT_EQ(r.at[0], r.samples - r.outside);
	EXPECT_LE(r.outside, 2);
	EXPECT_EQ(r.exact, r.samples);
	EXPECT_EQ(r.regs_ok, r.at[0]);
	EXPECT_EQ(r.src_ok, r.at[0]);
}

/* Stores, the same: the address is buf + 8 * (rcx + 1), an L1 hit. */
TEST_F(pebs, stores_with_their_address)
{
	struct pebs_run r;

	ASSERT_EQ(pebs_sample(PERF_TYPE_RAW, STORES, 2, 997, 2, &r), 0);
	log_run(_metadata, "stores:pp", &r);
	TH_LOG("%d addresses in buf (%d not), %d as the registers say, %d L1 stores",
	       r.addr_ok, r.addr_bad, r.regs_ok, r.src_ok);
	EXPECT_GE(r.samples, ROUNDS / 997 - 2);
	EXPECT_EQ(r.at[1], r.samples - r.outside);
	EXPECT_LE(r.outside, 2);
	EXPECT_EQ(r.regs_ok, r.at[1]);
	EXPECT_EQ(r.src_ok, r.at[1]);
}

/*
 * precise_ip 1 gives the record's own IP: the instruction after the
 * eventing one, for a load the store that follows it; not marked exact.
 */
TEST_F(pebs, one_gives_the_next_instruction)
{
	struct pebs_run r;

	ASSERT_EQ(pebs_sample(PERF_TYPE_RAW, LOADS, 1, 997, 1, &r), 0);
	log_run(_metadata, "loads:p", &r);
	EXPECT_GE(r.samples, ROUNDS / 997 - 2);
	EXPECT_EQ(r.at[1], r.samples - r.outside);
	EXPECT_LE(r.outside, 2);
	EXPECT_EQ(r.exact, 0);
}

/*
 * Cycles and instructions, precise_ip 2 and 3: each sample is exact and
 * on one of the loop's instructions.  Precise distribution (Skylake's
 * cycles:ppp, INST_RETIRED.PREC_DIST on counter 1; Ice Lake's
 * instructions, on fixed counter 0; Sapphire Rapids' instructions:ppp
 * there, and its cycles, which go on counter 0 and its PDist) records
 * the instruction that wraps the counter, so a period prime to the
 * round's five instructions samples each of them.  The others record
 * the event after the wrap and reload the counter there, a period one
 * longer, which here samples one instruction only (Sapphire Rapids'
 * instructions:pp, on counters 1 to 7).
 */
TEST_F(pebs, cycles_and_instructions_exact)
{
	static const struct {
		uint64_t config;
		int precise;
		const char *name;
	} ev[] = {
		{ PERF_COUNT_HW_CPU_CYCLES, 2, "cycles:pp" },
		{ PERF_COUNT_HW_CPU_CYCLES, 3, "cycles:ppp" },
		{ PERF_COUNT_HW_INSTRUCTIONS, 2, "instructions:pp" },
		{ PERF_COUNT_HW_INSTRUCTIONS, 3, "instructions:ppp" },
	};
	struct pebs_run r;
	int i, k;

	for (i = 0; i < ARRAY_SIZE(ev); i++) {
		ASSERT_EQ(pebs_sample(PERF_TYPE_HARDWARE, ev[i].config,
				      ev[i].precise, 1009, 0, &r), 0);
		log_run(_metadata, ev[i].name, &r);
		EXPECT_GE(r.samples, 5 * ROUNDS / 1009 - 2);
		EXPECT_EQ(r.exact, r.samples);
		EXPECT_LE(r.outside, 2);
		if (pmu_is("skx") ? i != 1 : glc() ? i == 2 : i < 2)
			continue;
		for (k = 0; k < 5; k++)
			EXPECT_GT(r.at[k], 0);
	}
}

/*
 * A fixed period and what a record holds: many records a PMI (large
 * PEBS).  A read while the event runs counts the records not yet
 * drained: the loop's 100,000 instructions, give or take a few a record
 * (the counter reloads at the record, some events after its wrap; both
 * kernels read 100,542 here); without them it would read less than a
 * period.  The samples are one a period.
 */
TEST_F(pebs, counts_and_samples_with_many_records)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_INSTRUCTIONS,
		.sample_period = 1009,
		.sample_type = PERF_SAMPLE_IP,
		.precise_ip = 2,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.disabled = 1,
	};
	struct perf_event_header *h;
	struct perf_rb rb;
	uint64_t count = 0;
	int fd, samples = 0;

	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(rb_map(&rb, fd, 256), 0);
	ASSERT_EQ(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	pebs_loop(buf, ROUNDS);
	ASSERT_EQ(read(fd, &count, sizeof(count)), sizeof(count));
	ASSERT_EQ(ioctl(fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	ASSERT_GE(rb_fetch(&rb), 0);
	while ((h = rb_next(&rb)))
		samples += h->type == PERF_RECORD_SAMPLE;
	rb_unmap(&rb);
	close(fd);
	TH_LOG("%llu instructions read while counting, %d samples",
	       (unsigned long long)count, samples);
	EXPECT_GE(count, 5 * ROUNDS - 5 * ROUNDS / 1009 - 2);
	EXPECT_LE(count, 5 * ROUNDS + 1000);
	EXPECT_GE(samples, 5 * ROUNDS / 1010 - 1);
	EXPECT_LE(samples, 5 * ROUNDS / 1009 + 2);
}

/*
 * Open a user-space event of this task, in the group of @group (or
 * alone, disabled, at -1); its fd, or -errno.
 */
static int pebs_open(uint32_t type, uint64_t config, int precise, int sampling,
		     int group)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = type,
		.config = config,
		.sample_period = sampling ? 10007 : 0,
		.sample_type = PERF_SAMPLE_IP,
		.precise_ip = precise,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		/* Members on: a disabled one is not counted in the group's needs. */
		.disabled = group < 0,
	};
	int fd = sys_perf_event_open(&attr, 0, -1, group, 0);

	return fd < 0 ? -errno : fd;
}

/*
 * The events upstream's drivers take with precise_ip, and those they
 * refuse: a counting event (EINVAL), on Skylake an edge, inverse or
 * threshold other than the cycles forms (EINVAL; Ice Lake takes them on
 * any counter), and groups that need more PEBS counters than there are:
 * five memory events (counters 0 to 3), or the precise distribution
 * counter twice (INST_RETIRED.PREC_DIST on Skylake's counter 1 or Ice
 * Lake's fixed counter 0; on Sapphire Rapids, PDist's counter 0, which
 * precise_ip 3 asks for and INST_RETIRED's 0xc0 cannot have).  Reference
 * cycles, which only a fixed counter counts otherwise, go on a general
 * one on Skylake, on their fixed counter on Ice Lake and later.
 */
TEST_F(pebs, precise_errnos)
{
	static const struct {
		const char *what;
		uint32_t type;
		uint64_t config;
		int precise, sampling, err_skx, err_icx, err_spr;
	} c[] = {
		{ "ref-cycles:pp", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES, 2, 1,
		  0, 0, 0 },
		{ "counting cycles:pp", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 2, 0,
		  EINVAL, EINVAL, EINVAL },
		{ "raw 0x10000c4 (cmask 1):p", PERF_TYPE_RAW, 0x10000c4, 1, 1, EINVAL, 0, 0 },
		{ "raw 0x8000c4 (inv):p", PERF_TYPE_RAW, 0x8000c4, 1, 1, EINVAL, 0, 0 },
		{ "raw 0x40c4 (edge):p", PERF_TYPE_RAW, 0x440c4, 1, 1, EINVAL, 0, 0 },
		{ "raw 0x108000c0:p", PERF_TYPE_RAW, 0x108000c0, 1, 1, 0, 0, 0 },
		{ "raw 0x1c0:ppp", PERF_TYPE_RAW, 0x1c0, 3, 1, 0, 0, EINVAL },
		{ "raw 0x1c0:pp", PERF_TYPE_RAW, 0x1c0, 2, 1, 0, 0, 0 },
		{ "L1-dcache-loads:pp", PERF_TYPE_HW_CACHE, 0, 2, 1, 0, 0, 0 },
		{ "raw 0x81d0:ppp", PERF_TYPE_RAW, LOADS, 3, 1, 0, 0, 0 },
	};
	/* The event with one precise distribution counter. */
	uint64_t pdist = glc() ? PERF_COUNT_HW_CPU_CYCLES : 0x1c0;
	uint32_t pdist_type = glc() ? PERF_TYPE_HARDWARE : PERF_TYPE_RAW;
	int fd[5], i, err, want;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		err = pebs_open(c[i].type, c[i].config, c[i].precise, c[i].sampling, -1);
		if (err >= 0)
			close(err);
		TH_LOG("%s: %s", c[i].what, err >= 0 ? "opens" : strerror(-err));
		want = pmu_is("skx") ? c[i].err_skx :
		       glc() ? c[i].err_spr : c[i].err_icx;
		EXPECT_EQ(err >= 0 ? 0 : -err, want);
	}
	/* Four PEBS counters for memory events: the fifth does not fit. */
	for (i = 0; i < 5; i++) {
		fd[i] = pebs_open(PERF_TYPE_RAW, LOADS, 2, 1, i ? fd[0] : -1);
		if (i < 4)
			ASSERT_GE(fd[i], 0);
	}
	EXPECT_EQ(fd[4], -EINVAL);
	for (i = 0; i < 4; i++)
		close(fd[i]);
	/* Precise distribution has one counter. */
	fd[0] = pebs_open(pdist_type, pdist, 3, 1, -1);
	ASSERT_GE(fd[0], 0);
	fd[1] = pebs_open(pdist_type, pdist, 3, 1, fd[0]);
	EXPECT_EQ(fd[1], -EINVAL);
	if (fd[1] >= 0)
		close(fd[1]);
	close(fd[0]);
}

/* A loop of three: xmm0 takes rcx, then rcx counts down. */
static noinline void xmm_loop(unsigned long n)
{
	asm volatile("xmm_movq:\tmovq %%rcx, %%xmm0\n"
		     "xmm_dec:\tdec %%rcx\n"
		     "xmm_jnz:\tjnz xmm_movq\n"
		     "xmm_end:"
		     : "+c"(n) : : "xmm0", "cc");
}

extern const char xmm_movq[], xmm_end[];

static int open_regs(uint64_t intr, uint64_t user, int precise)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_INSTRUCTIONS,
		.sample_period = 1009,
		.sample_type = PERF_SAMPLE_IP,
		.precise_ip = precise,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.disabled = 1,
	};
	int fd;

	if (intr) {
		attr.sample_type |= PERF_SAMPLE_REGS_INTR;
		attr.sample_regs_intr = intr;
	}
	if (user) {
		attr.sample_type |= PERF_SAMPLE_REGS_USER;
		attr.sample_regs_user = user;
	}
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	return fd < 0 ? -errno : fd;
}

/*
 * The XMM registers, which only adaptive records have (Ice Lake): in
 * sample_regs_intr of a precise event only, else EINVAL, as upstream's
 * x86 drivers say (before the core would say EOPNOTSUPP of a PMU that
 * has none).
 */
TEST_F(pebs, xmm_registers_errnos)
{
	int fd;

	fd = open_regs(xmm0_lo, 0, 2);
	EXPECT_EQ(fd < 0 ? fd : 0, pebs_adaptive() ? 0 : -EINVAL);
	if (fd >= 0)
		close(fd);
	fd = open_regs(xmm0_lo, 0, 0);
	EXPECT_EQ(fd, -EINVAL);
	if (fd >= 0)
		close(fd);
	fd = open_regs(0, xmm0_lo, 2);
	EXPECT_EQ(fd, -EINVAL);
	if (fd >= 0)
		close(fd);
}

/*
 * The record's XMM0 is the one after the eventing instruction: rcx
 * itself at the movq, rcx + 1 after the decrement.
 */
TEST_F(pebs, xmm_registers_in_records)
{
	struct perf_event_header *h;
	int fd, in = 0, ok = 0, all = 0;
	struct perf_rb rb;

	if (!pebs_adaptive())
		SKIP(return, "Skylake's records have no XMM registers");
	fd = open_regs((1ULL << PERF_REG_X86_CX) | xmm0_lo, 0, 2);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(rb_map(&rb, fd, 256), 0);
	ASSERT_EQ(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	xmm_loop(3 * ROUNDS);
	ASSERT_EQ(ioctl(fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	ASSERT_GE(rb_fetch(&rb), 0);
	while ((h = rb_next(&rb))) {
		struct rec_cur c = rc_init(h);
		uint64_t ip, abi, cx, xmm0;

		if (h->type != PERF_RECORD_SAMPLE)
			continue;
		all++;
		ip = rc_u64(&c);
		abi = rc_u64(&c);
		cx = rc_u64(&c);
		xmm0 = rc_u64(&c);
		if (!abi || c.bad || ip < (uintptr_t)xmm_movq || ip >= (uintptr_t)xmm_end)
			continue;
		in++;
		if (ip != (uintptr_t)xmm_movq)
			cx++;
		if (xmm0 == cx)
			ok++;
	}
	rb_unmap(&rb);
	close(fd);
	TH_LOG("%d samples, %d in the loop, %d with xmm0 as rcx says", all, in, ok);
	EXPECT_GE(in, 9 * ROUNDS / 1009 - 2);
	EXPECT_EQ(ok, in);
}

/*
 * Precise branches with their branch stacks, a fixed period (on Ice Lake
 * the records carry the LBR stack, many a PMI): the newest user branch
 * of every sample in the loop is one of the loop's, the jump to the
 * decrement or the conditional branch back to the load.
 */
TEST_F(pebs, branch_stacks_of_precise_samples)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_BRANCH_INSTRUCTIONS,
		.sample_period = 1009,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_BRANCH_STACK,
		.branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER,
		.precise_ip = 2,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.disabled = 1,
	};
	struct perf_event_header *h;
	int fd, in = 0, ok = 0, all = 0;
	struct perf_rb rb;

	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	if (fd < 0 && errno == EOPNOTSUPP && kernel_is_ours())
		SKIP(return, "this kernel has no branch stacks with PEBS yet (issue 34)");
	ASSERT_GE(fd, 0);
	ASSERT_EQ(rb_map(&rb, fd, 256), 0);
	ASSERT_EQ(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	pebs_loop(buf, ROUNDS);
	ASSERT_EQ(ioctl(fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	ASSERT_GE(rb_fetch(&rb), 0);
	while ((h = rb_next(&rb))) {
		struct rec_cur c = rc_init(h);
		uint64_t ip, nr, from, to;

		if (h->type != PERF_RECORD_SAMPLE)
			continue;
		all++;
		ip = rc_u64(&c);
		nr = rc_u64(&c);
		from = rc_u64(&c);
		to = rc_u64(&c);
		if (which_insn(ip) < 0)
			continue;
		in++;
		if (nr && !c.bad &&
		    ((from == (uintptr_t)pebs_jmp && to == (uintptr_t)pebs_dec) ||
		     (from == (uintptr_t)pebs_jnz && to == (uintptr_t)pebs_load)))
			ok++;
	}
	rb_unmap(&rb);
	close(fd);
	TH_LOG("%d samples, %d in the loop, %d with a loop branch newest", all, in, ok);
	EXPECT_GE(in, 2 * ROUNDS / 1009 - 2);
	EXPECT_EQ(ok, in);
}

/*
 * Load latency (MEM_TRANS_RETIRED.LOAD_LATENCY, the perf tool's
 * mem-loads): the loads slower than config1's threshold, with their
 * latency as the sample's weight and where their data came from.  The
 * emulation's caches (tools/testing/qemu-pmu/README) give a load of a
 * line not seen for a while 200 cycles from local memory, and one of
 * the line just loaded 5 cycles from L1.  A walk of 64-byte strides
 * over 4 MiB misses every time; one over 1 KiB hits after its first
 * round.  The counter reloads at the record, after the event that
 * wrapped it: a sample every 102 loads.
 *
 * Sapphire Rapids' records also give the instruction's latency (the
 * emulation's: the cache latency and a cycle), the weight's var2_w
 * (PERF_SAMPLE_WEIGHT_STRUCT; 0 on the others), and its drivers take
 * mem-loads with a data source only in a group with mem-loads-aux
 * (event 0x03, unit mask 0x82).
 */
#define WALK_BIG	(4 << 20)
#define WALK_SMALL	1024

static noinline void walk(const char *p, unsigned long n, unsigned long len)
{
	asm volatile("walk_start:\n"
		     "\txor %%rdx, %%rdx\n"
		     "walk_load:\tmov (%%rdi,%%rdx), %%rax\n"
		     "\tadd $64, %%rdx\n"
		     "\tcmp %%rsi, %%rdx\n"
		     "\tjb walk_load\n"
		     "\tdec %%rcx\n"
		     "\tjnz walk_start\n"
		     : "+c"(n) : "D"(p), "S"(len) : "rax", "rdx", "memory", "cc");
}

extern const char walk_load[];

struct lat_run {
	int samples, at_load, exact, in_buf, weight_ok, instr_ok, src_ok;
	uint64_t weight;
};

#define MEM_LOADS_AUX	0x8203

/* Open mem-loads-aux on PMU @type, a leader; its fd, or -errno. */
static int mem_loads_aux_on(uint32_t type)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = type,
		.config = MEM_LOADS_AUX,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.disabled = 1,
	};
	int fd;

	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	return fd < 0 ? -errno : fd;
}

/* Open the mem-loads-aux leader Golden Cove wants; -1 elsewhere. */
static int mem_loads_aux(void)
{
	return glc() ? mem_loads_aux_on(PERF_TYPE_RAW) : -1;
}

struct walk_arg {
	const char *buf;
	unsigned long len, rounds;
};

static void run_walk(void *arg)
{
	struct walk_arg *w = arg;

	walk(w->buf, w->rounds, w->len);
}

/*
 * Sample the user-space load latency event @type/@config above @ldlat
 * over @rounds walks of @len bytes of @buf, expecting each sample's
 * weight to be @weight and its data to come from @lvl (PERF_MEM_LVLNUM_*).
 */
static int lat_sample(uint32_t type, uint64_t config, const char *buf,
		      unsigned long len, unsigned long rounds, uint64_t ldlat,
		      uint64_t weight, unsigned int lvl, struct lat_run *r)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = type,
		.config = config,
		.config1 = ldlat,
		.sample_period = 101,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_ADDR |
			       PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_DATA_SRC,
		.precise_ip = 2,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.disabled = 1,
	};
	struct walk_arg w = { buf, len, rounds };
	struct perf_event_header *h;
	struct perf_rb rb;
	int fd, aux;

	memset(r, 0, sizeof(*r));
	aux = type == PERF_TYPE_RAW ? mem_loads_aux() : -1;
	if (aux < -1)
		return aux;
	attr.disabled = aux >= 0 ? 0 : 1;
	fd = pebs_record_in(&attr, aux, run_walk, &w, &rb);
	if (aux >= 0)
		close(aux);
	if (fd < 0)
		return fd;
	while ((h = rb_next(&rb))) {
		struct rec_cur c = rc_init(h);
		union perf_mem_data_src src;
		uint64_t ip, addr;

		if (h->type != PERF_RECORD_SAMPLE)
			continue;
		r->samples++;
		ip = rc_u64(&c);
		addr = rc_u64(&c);
		r->weight = rc_u64(&c);
		src.val = rc_u64(&c);
		r->at_load += ip == (uintptr_t)walk_load;
		r->exact += !!(h->misc & PERF_RECORD_MISC_EXACT_IP);
		r->in_buf += addr >= (uintptr_t)buf && addr < (uintptr_t)buf + len;
		r->weight_ok += (uint32_t)r->weight == weight;
		r->instr_ok += glc() ? (r->weight >> 32 & 0xffff) == weight + 1 :
			       r->weight >> 32 == 0;
		r->src_ok += src.mem_op == PERF_MEM_OP_LOAD && src.mem_lvl_num == lvl &&
			     (src.mem_lvl & PERF_MEM_LVL_HIT);
	}
	rb_unmap(&rb);
	close(fd);
	return 0;
}

TEST_F(pebs, load_latency_weights_and_sources)
{
	unsigned long rounds = 2;
	struct lat_run r;
	char *big;
	int err;

	/*
	 * The emulation's caches are each vCPU's own: a walk that moved to
	 * the other CPU and back would find there lines of its last round
	 * and count fewer slow loads.  One CPU, as one core's caches.
	 */
	ASSERT_EQ(pin(0), 0);
	big = malloc(WALK_BIG);
	ASSERT_NE(NULL, big);
	memset(big, 1, WALK_BIG);
	/* Every load of the big walk misses: 200 cycles, local memory. */
	err = lat_sample(PERF_TYPE_RAW, 0x01cd, big, WALK_BIG, rounds, 30, 200,
			 PERF_MEM_LVLNUM_RAM, &r);
	if (err == -ENXIO && kernel_is_ours())
		SKIP(goto out, "this kernel has no load latency events yet (issue 34)");
	ASSERT_EQ(0, err);
	TH_LOG("big walk, ldlat 30: %d samples, %d at the load, %d exact, %d in the buffer",
	       r.samples, r.at_load, r.exact, r.in_buf);
	TH_LOG("big walk, ldlat 30: %d weighing 200 (%d with the instruction's), %d from RAM",
	       r.weight_ok, r.instr_ok, r.src_ok);
	EXPECT_GE(r.samples, rounds * (WALK_BIG / 64) / 102 - 2);
	EXPECT_EQ(r.at_load, r.samples);
	EXPECT_EQ(r.exact, r.samples);
	EXPECT_EQ(r.in_buf, r.samples);
	EXPECT_EQ(r.weight_ok, r.samples);
	EXPECT_EQ(r.instr_ok, r.samples);
	EXPECT_EQ(r.src_ok, r.samples);
	/* The small walk hits L1 (5 cycles): above 3, not above 30. */
	ASSERT_EQ(0, lat_sample(PERF_TYPE_RAW, 0x01cd, big, WALK_SMALL, 20000, 3, 5,
				PERF_MEM_LVLNUM_L1, &r));
	TH_LOG("small walk, ldlat 3: %d samples, %d at the load, %d weighing 5, %d from L1",
	       r.samples, r.at_load, r.weight_ok, r.src_ok);
	EXPECT_GE(r.samples, 20000 * (WALK_SMALL / 64) / 102 - 2);
	EXPECT_EQ(r.at_load, r.samples);
	/* What the kernel loads meanwhile may evict a line now and then. */
	EXPECT_GE(r.weight_ok * 100, r.samples * 95);
	EXPECT_GE(r.src_ok * 100, r.samples * 95);
	ASSERT_EQ(0, lat_sample(PERF_TYPE_RAW, 0x01cd, big, WALK_SMALL, 20000, 30, 5,
				PERF_MEM_LVLNUM_L1, &r));
	TH_LOG("small walk, ldlat 30: %d samples", r.samples);
	EXPECT_LE(r.samples, 1);
out:
	free(big);
}

/*
 * Golden Cove (Sapphire Rapids, Alder Lake's cpu_core): mem-loads
 * sampling its data source must be in a group with mem-loads-aux, else
 * ENODATA (alone, or with another leader); without the data source it
 * opens alone.  Alder Lake's cpu_atom takes its own alone.
 */
TEST(mem_loads_aux_errnos)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_RAW,
		.config = 0x01cd,
		.config1 = 3,
		.sample_period = 101,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_DATA_SRC,
		.precise_ip = 2,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};
	int aux, other, fd;

	if (!glc())
		SKIP(return, "only Golden Cove's mem-loads need mem-loads-aux (PMU=spr, adl)");
	if (pmu_is("adl")) {
		attr.type = pmu_type("cpu_atom");
		attr.config = 0x05d0;
		fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
		if (fd < 0 && errno == ENXIO && kernel_is_ours())
			SKIP(return, "this kernel has no load latency events yet (issue 34)");
		EXPECT_GE(fd, 0) TH_LOG("cpu_atom's mem-loads: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		attr.type = PERF_TYPE_RAW;
		attr.config = 0x01cd;
	}
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	if (fd < 0 && errno == ENXIO && kernel_is_ours())
		SKIP(return, "this kernel has no load latency events yet (issue 34)");
	EXPECT_EQ(fd < 0 ? errno : 0, ENODATA);
	if (fd >= 0)
		close(fd);
	other = pebs_open(attr.type, 0x00c0, 0, 0, -1);
	ASSERT_GE(other, 0);
	fd = sys_perf_event_open(&attr, 0, -1, other, 0);
	EXPECT_EQ(fd < 0 ? errno : 0, ENODATA);
	if (fd >= 0)
		close(fd);
	close(other);
	aux = mem_loads_aux_on(attr.type);
	ASSERT_GE(aux, 0);
	fd = sys_perf_event_open(&attr, 0, -1, aux, 0);
	EXPECT_GE(fd, 0);
	if (fd >= 0)
		close(fd);
	close(aux);
	attr.sample_type = PERF_SAMPLE_IP;
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	EXPECT_GE(fd, 0);
	if (fd >= 0)
		close(fd);
}

/*
 * Sapphire Rapids' precise distribution wants a period of 128 or more:
 * precise_ip 3 with a fixed period below is refused (EINVAL), on counter
 * 0's events and on instructions alike, at the open as at
 * PERF_EVENT_IOC_PERIOD.  A frequency is no period: 100 Hz opens (the
 * periods it leads to are lengthened).  precise_ip 2 takes any period.
 */
TEST_F(pebs, pdist_period_errnos)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_CPU_CYCLES,
		.sample_period = 127,
		.sample_type = PERF_SAMPLE_IP,
		.precise_ip = 3,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.disabled = 1,
	};
	uint64_t p;
	int fd;

	if (!glc())
		SKIP(return, "only Golden Cove's PDist has a shortest period (PMU=spr, adl)");
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	EXPECT_EQ(fd < 0 ? errno : 0, EINVAL);
	if (fd >= 0)
		close(fd);
	attr.config = PERF_COUNT_HW_INSTRUCTIONS;
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	EXPECT_EQ(fd < 0 ? errno : 0, EINVAL);
	if (fd >= 0)
		close(fd);
	attr.freq = 1;
	attr.sample_freq = 100;
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	EXPECT_GE(fd, 0);
	/* A new frequency under 128 is not a period: no check. */
	p = 100;
	if (fd >= 0) {
		EXPECT_EQ(ioctl(fd, PERF_EVENT_IOC_PERIOD, &p), 0);
		close(fd);
	}
	attr.freq = 0;
	attr.precise_ip = 2;
	attr.sample_period = 100;
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	EXPECT_GE(fd, 0);
	if (fd >= 0)
		close(fd);
	attr.config = PERF_COUNT_HW_CPU_CYCLES;
	attr.precise_ip = 3;
	attr.sample_period = 128;
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(fd, 0);
	p = 100;
	EXPECT_EQ(ioctl(fd, PERF_EVENT_IOC_PERIOD, &p) ? errno : 0, EINVAL);
	p = 200;
	EXPECT_EQ(ioctl(fd, PERF_EVENT_IOC_PERIOD, &p), 0);
	close(fd);
}

/* What the store latency samples of pebs_loop() were. */
struct stlat_run {
	int samples, at_store, in_buf, weight_ok, src_ok;
};

/*
 * Sample the store latency event @type/@config of pebs_loop(ROUNDS);
 * tally where the samples are, their addresses, weights (the emulation's
 * L1 latency, 5 cycles) and sources (stores to L1).  The fd, or -errno.
 */
static int stlat_sample(uint32_t type, uint64_t config, struct stlat_run *r)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = type,
		.config = config,
		.sample_period = 997,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_ADDR | PERF_SAMPLE_WEIGHT |
			       PERF_SAMPLE_DATA_SRC,
		.precise_ip = 2,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.disabled = 1,
	};
	struct perf_event_header *h;
	struct perf_rb rb;
	int fd;

	memset(r, 0, sizeof(*r));
	fd = pebs_record(&attr, run_pebs_loop, NULL, &rb);
	if (fd < 0)
		return fd;
	while ((h = rb_next(&rb))) {
		struct rec_cur c = rc_init(h);
		union perf_mem_data_src src;
		uint64_t ip, addr, weight;

		if (h->type != PERF_RECORD_SAMPLE)
			continue;
		r->samples++;
		ip = rc_u64(&c);
		addr = rc_u64(&c);
		weight = rc_u64(&c);
		src.val = rc_u64(&c);
		r->at_store += ip == (uintptr_t)pebs_store;
		r->in_buf += addr >= (uintptr_t)buf && addr < (uintptr_t)(buf + ROUNDS + 2);
		r->weight_ok += (uint32_t)weight == 5;
		r->src_ok += src.mem_op == PERF_MEM_OP_STORE &&
			     src.mem_lvl == (PERF_MEM_LVL_L1 | PERF_MEM_LVL_HIT);
	}
	rb_unmap(&rb);
	return fd;
}

static void check_stlat(struct __test_metadata *_metadata, const struct stlat_run *r)
{
	TH_LOG("%d samples, %d at the store, %d in buf, %d weighing 5, %d L1 stores",
	       r->samples, r->at_store, r->in_buf, r->weight_ok, r->src_ok);
	EXPECT_GE(r->samples, ROUNDS / 998 - 2);
	EXPECT_GE(r->at_store, r->samples - 2);
	EXPECT_EQ(r->in_buf, r->at_store);
	EXPECT_GE(r->weight_ok, r->at_store);
	EXPECT_GE(r->src_ok, r->at_store);
}

/*
 * Golden Cove's store latency event (MEM_TRANS_RETIRED.STORE_SAMPLE, the
 * perf tool's mem-stores there), on counter 0 only: each sample is the
 * loop's store, at its address, a store to L1, weighing the emulation's
 * L1 latency (5 cycles).  Two of them do not fit.
 */
TEST_F(pebs, store_latency)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_RAW,
		.config = 0x02cd,
		.sample_period = 997,
		.precise_ip = 2,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};
	struct stlat_run r;
	int fd, fd2;

	if (!glc())
		SKIP(return, "the store latency event is Golden Cove's (PMU=spr, adl)");
	fd = stlat_sample(PERF_TYPE_RAW, 0x02cd, &r);
	if (fd == -EINVAL && kernel_is_ours())
		SKIP(return, "this kernel has no store latency events yet (issue 34)");
	ASSERT_GE(fd, 0);
	check_stlat(_metadata, &r);
	fd2 = sys_perf_event_open(&attr, 0, -1, fd, 0);
	EXPECT_EQ(fd2 < 0 ? errno : 0, EINVAL);
	if (fd2 >= 0)
		close(fd2);
	close(fd);
}

/*
 * Alder Lake's E-cores (cpu_atom, Gracemont): precise_ip 3 is reduced
 * skid on counter 0 (the emulation's PDist: cycles sample each of the
 * loop's instructions); the load latency event (MEM_UOPS_RETIRED, 0x05d0,
 * its mem-loads) gives each slow load's latency, the instruction's and
 * its source from Gracemont's table, with no mem-loads-aux; the store
 * latency event (0x06d0, its mem-stores) its stores.
 */
TEST_F(pebs, atom_precise_samples)
{
	struct stlat_run st;
	struct pebs_run r;
	struct lat_run l;
	int atom, fd, k;
	char *big;

	if (!pmu_is("adl"))
		SKIP(return, "the E-cores are Alder Lake's (PMU=adl)");
	atom = pmu_type("cpu_atom");
	ASSERT_GE(atom, 0);
	ASSERT_EQ(pin(1), 0);
	ASSERT_EQ(pebs_sample(atom, 0x3c, 3, 1009, 0, &r), 0);
	log_run(_metadata, "cpu_atom/cycles/ppp", &r);
	EXPECT_GE(r.samples, 5 * ROUNDS / 1009 - 2);
	EXPECT_EQ(r.exact, r.samples);
	for (k = 0; k < 5; k++)
		EXPECT_GT(r.at[k], 0);
	big = malloc(WALK_BIG);
	ASSERT_NE(NULL, big);
	memset(big, 1, WALK_BIG);
	ASSERT_EQ(0, lat_sample(atom, 0x05d0, big, WALK_BIG, 2, 30, 200,
				PERF_MEM_LVLNUM_RAM, &l));
	TH_LOG("atom big walk, ldlat 30: %d samples, %d at the load", l.samples, l.at_load);
	TH_LOG("atom big walk: %d weighing 200 (%d with the instruction's), %d from RAM",
	       l.weight_ok, l.instr_ok, l.src_ok);
	EXPECT_GE(l.samples, 2 * (WALK_BIG / 64) / 102 - 2);
	EXPECT_EQ(l.at_load, l.samples);
	EXPECT_EQ(l.exact, l.samples);
	EXPECT_EQ(l.in_buf, l.samples);
	EXPECT_EQ(l.weight_ok, l.samples);
	EXPECT_EQ(l.instr_ok, l.samples);
	EXPECT_EQ(l.src_ok, l.samples);
	free(big);
	fd = stlat_sample(atom, 0x06d0, &st);
	ASSERT_GE(fd, 0);
	close(fd);
	check_stlat(_metadata, &st);
}

/*
 * The other emulated PMUs have no PEBS: caps/max_precise is 0 and a
 * precise event EOPNOTSUPP, on upstream's drivers and ours.
 */
TEST(no_pebs_elsewhere)
{
	int err;

	if (pebs_model() || pmu_is("none") ||
	    access("/sys/bus/event_source/devices/cpu/type", F_OK))
		SKIP(return, "PMU=skx, icx, spr, adl have PEBS; the others a \"cpu\" PMU without");
	EXPECT_EQ(precise_max(), 0);
	err = pebs_open(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 1, 1, -1);
	if (err >= 0)
		close(err);
	EXPECT_EQ(err, -EOPNOTSUPP);
}

TEST_HARNESS_MAIN
