// SPDX-License-Identifier: GPL-2.0
/*
 * PERF_RECORD_SAMPLE in the mmap ring buffer: what a sample records of
 * the stack and the registers (CALLCHAIN, REGS_USER, REGS_INTR,
 * STACK_USER), every sample_type bit at once, and the samples of context
 * switches and of a data breakpoint.
 *
 * Page faults are sampled on stores made by known instructions, with
 * known values in registers, at the end of a known chain of calls.  The
 * test is built with frame pointers so that user callchains can be
 * checked against __builtin_return_address.
 */
#include "../kselftest_harness.h"
#include <linux/hw_breakpoint.h>
#include "samples_util.h"

/* x86-64 user segment selectors and the syscall error while in a syscall. */
#define USER_CS		0x33
#define USER_SS		0x2b
#define KERNEL_CS	0x10

/* Bits of sample_regs_user/intr (enum perf_event_x86_regs). */
enum {
	R_AX, R_BX, R_CX, R_DX, R_SI, R_DI, R_BP, R_SP, R_IP, R_FLAGS,
	R_CS, R_SS, R_DS, R_ES, R_FS, R_GS, R_R8, R_R9, R_R10, R_R11,
	R_R12, R_R13, R_R14, R_R15, R_NR
};

/* All general purpose registers that perf_reg_validate() accepts. */
#define REGS_ALL	(((1ULL << R_NR) - 1) & \
			 ~((1ULL << R_DS) | (1ULL << R_ES) | \
			   (1ULL << R_FS) | (1ULL << R_GS)))

/* ---- stores with known registers, frames and callers ---- */

/*
 * store_at() with known values in registers: rax = the IP, rdi = @p,
 * rsi = @a, rdx = @b, r8 = @c.  Returns the IP and the stack pointer.
 */
static noinline uint64_t store_regs(char *p, uint64_t a, uint64_t b,
				    uint64_t c, uint64_t *sp)
{
	register uint64_t r8 asm("r8") = c;
	uint64_t ip;

	asm volatile("lea 1f(%%rip), %%rax\n\t"
		     "mov %%rsp, (%5)\n\t"
		     "1: movb $1, (%%rdi)"
		     : "=&a"(ip)
		     : "D"(p), "S"(a), "d"(b), "r"(r8), "r"(sp)
		     : "memory");
	return ip;
}

/*
 * Store one byte at @p with rbp set to @fp for the store: the user frame
 * chain of the page fault starts at @fp.  Returns the IP of the store.
 */
static noinline uint64_t store_with_fp(char *p, uint64_t fp)
{
	uint64_t ip;

	asm volatile("lea 1f(%%rip), %%rax\n\t"
		     "push %%rbp\n\t"
		     "mov %%rsi, %%rbp\n\t"
		     "1: movb $1, (%%rdi)\n\t"
		     "pop %%rbp"
		     : "=&a"(ip) : "D"(p), "S"(fp) : "memory");
	return ip;
}

static noinline uint64_t chain_c(char *p, uint64_t *ip)
{
	*ip = store_at(p);
	ret_addr[1] = (uint64_t)__builtin_return_address(0);
	return *ip;
}

static noinline uint64_t chain_b(char *p, uint64_t *ip)
{
	chain_c(p, ip);
	ret_addr[2] = (uint64_t)__builtin_return_address(0);
	return *ip;
}

static noinline uint64_t chain_a(char *p, uint64_t *ip)
{
	chain_b(p, ip);
	ret_addr[3] = (uint64_t)__builtin_return_address(0);
	return *ip;
}

/* ---- CALLCHAIN ---- */

/*
 * Sample, with its callchain, the page fault that @fn(p, @arg) takes on
 * a fresh page p; *@x is that sample (NULL on failure), *@ip the IP of
 * the faulting store.  The sampler is left open for the caller to close.
 */
static void fault_chain(struct __test_metadata *_metadata, struct sampler *s,
			uint64_t (*fn)(char *p, uint64_t arg), uint64_t arg,
			struct sample **x, uint64_t *ip)
{
	char *p = map_anon(1);
	int n, cnt;

	*x = NULL;
	ASSERT_NE(p, NULL);
	pf_attr(&s->attr, PERF_SAMPLE_IP | PERF_SAMPLE_ADDR | PERF_SAMPLE_CALLCHAIN);
	ASSERT_EQ(sampler_open(s, RB_PAGES), 0);
	sampler_on(s);
	*ip = fn(p, arg);
	ASSERT_GE(sampler_off(s), 0);
	n = samples_of(s, ss, MAX_SAMPLES);
	*x = by_addr(ss, n, (uint64_t)p, &cnt);
}

static uint64_t store_in_chain(char *p, uint64_t unused)
{
	uint64_t ip;

	return chain_a(p, &ip);
}

/* A user fault: USER marker, the IP, then the callers' return addresses. */
TEST(callchain_user_frames)
{
	struct sampler s = { .fd = -1 };
	struct sample *x;
	uint64_t ip;

	fault_chain(_metadata, &s, store_in_chain, 0, &x, &ip);
	ASSERT_NE(x, NULL);
	ASSERT_GE(x->chain_nr, 6);
	EXPECT_EQ(x->chain[0], PERF_CONTEXT_USER);
	EXPECT_EQ(x->chain[1], ip);
	EXPECT_EQ(x->ip, ip);
	EXPECT_EQ(x->chain[2], ret_addr[0]);
	EXPECT_EQ(x->chain[3], ret_addr[1]);
	EXPECT_EQ(x->chain[4], ret_addr[2]);
	EXPECT_EQ(x->chain[5], ret_addr[3]);
	sampler_close(&s);
}

/*
 * A frame pointer that leads nowhere ends the chain after the IP: an
 * unmapped user page (the read faults), a PROT_NONE page, a kernel
 * address (not user memory at all), and a misaligned pointer into a
 * page of zeroes (the frame says "no caller").
 */
static void chain_ends_at(struct __test_metadata *_metadata, uint64_t fp,
			  int nr)
{
	struct sampler s = { .fd = -1 };
	struct sample *x;
	uint64_t ip;

	fault_chain(_metadata, &s, store_with_fp, fp, &x, &ip);
	ASSERT_NE(x, NULL);
	EXPECT_EQ(x->ip, ip);
	ASSERT_EQ(x->chain_nr, (uint64_t)nr);
	EXPECT_EQ(x->chain[0], PERF_CONTEXT_USER);
	EXPECT_EQ(x->chain[1], ip);
	/* A frame of zeroes gives a return address of 0, then the end. */
	if (nr == 3)
		EXPECT_EQ(x->chain[2], 0);
	sampler_close(&s);
}

TEST(callchain_bad_frame_pointer)
{
	char *gone = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *none = mmap(NULL, 4096, PROT_NONE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *zero = mmap(NULL, 4096, PROT_READ,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ASSERT_NE(gone, MAP_FAILED);
	ASSERT_NE(none, MAP_FAILED);
	ASSERT_NE(zero, MAP_FAILED);
	ASSERT_EQ(munmap(gone, 4096), 0);
	chain_ends_at(_metadata, (uint64_t)gone + 64, 2);
	chain_ends_at(_metadata, (uint64_t)none + 64, 2);
	chain_ends_at(_metadata, 0xffffffff81000000ULL, 2);
	chain_ends_at(_metadata, 16, 2);
	/* Read-faulted in: the walk reads a zero frame and stops there. */
	ASSERT_EQ(zero[100], 0);
	chain_ends_at(_metadata, (uint64_t)zero + 101, 3);
	munmap(none, 4096);
	munmap(zero, 4096);
}

/*
 * A fault in the kernel: KERNEL marker, the kernel IP and kernel frames,
 * then USER marker and the user frames from the syscall.
 */
TEST(callchain_kernel_then_user)
{
	struct sampler s = { .fd = -1 };
	char *p = map_anon(1);
	uint64_t i, user_at = 0;
	struct sample *x;
	int n, cnt;

	ASSERT_NE(p, NULL);
	pf_attr(&s.attr, PERF_SAMPLE_IP | PERF_SAMPLE_ADDR | PERF_SAMPLE_CALLCHAIN);
	s.attr.exclude_kernel = 0;
	ASSERT_EQ(sampler_open(&s, RB_PAGES), 0);
	sampler_on(&s);
	ASSERT_EQ(kernel_store(p), 0);
	ASSERT_GE(sampler_off(&s), 0);
	n = samples_of(&s, ss, MAX_SAMPLES);
	x = by_addr(ss, n, (uint64_t)p, &cnt);
	ASSERT_NE(x, NULL);
	ASSERT_GE(x->chain_nr, 5);
	EXPECT_EQ(x->chain[0], PERF_CONTEXT_KERNEL);
	EXPECT_EQ(x->chain[1], x->ip);
	for (i = 1; i < x->chain_nr; i++) {
		if (x->chain[i] == PERF_CONTEXT_USER) {
			user_at = i;
			break;
		}
		EXPECT_TRUE(is_kernel_addr(x->chain[i]) && !is_context(x->chain[i]));
	}
	ASSERT_GE(user_at, 3);
	ASSERT_GT(x->chain_nr, user_at + 2);
	for (i = user_at + 1; i < x->chain_nr; i++)
		EXPECT_FALSE(is_context(x->chain[i]));
	/* The first user entry is right after the syscall instruction. */
	EXPECT_TRUE(is_user_addr(x->chain[user_at + 1]));
	EXPECT_EQ(*(uint16_t *)(x->chain[user_at + 1] - 2), 0x050f);
	sampler_close(&s);
}

/* exclude_callchain_user: kernel part only; user faults get nr == 0. */
TEST(callchain_exclude_user)
{
	struct sampler s = { .fd = -1 };
	char *p = map_anon(2);
	struct sample *x;
	uint64_t i;
	int n, cnt;

	ASSERT_NE(p, NULL);
	pf_attr(&s.attr, PERF_SAMPLE_ADDR | PERF_SAMPLE_CALLCHAIN);
	s.attr.exclude_kernel = 0;
	s.attr.exclude_callchain_user = 1;
	ASSERT_EQ(sampler_open(&s, RB_PAGES), 0);
	sampler_on(&s);
	ASSERT_EQ(kernel_store(p), 0);
	store_at(p + page_size());
	ASSERT_GE(sampler_off(&s), 0);
	n = samples_of(&s, ss, MAX_SAMPLES);
	x = by_addr(ss, n, (uint64_t)p, &cnt);
	ASSERT_NE(x, NULL);
	ASSERT_GE(x->chain_nr, 3);
	EXPECT_EQ(x->chain[0], PERF_CONTEXT_KERNEL);
	for (i = 1; i < x->chain_nr; i++)
		EXPECT_TRUE(is_kernel_addr(x->chain[i]) && !is_context(x->chain[i]));
	x = by_addr(ss, n, (uint64_t)p + page_size(), &cnt);
	ASSERT_NE(x, NULL);
	EXPECT_EQ(x->chain_nr, 0);
	EXPECT_EQ(x->size, 8 + 8 + 8);
	sampler_close(&s);
}

/* exclude_callchain_kernel: a kernel fault gets the user part only. */
TEST(callchain_exclude_kernel)
{
	struct sampler s = { .fd = -1 };
	char *p = map_anon(1);
	struct sample *x;
	uint64_t i;
	int n, cnt;

	ASSERT_NE(p, NULL);
	pf_attr(&s.attr, PERF_SAMPLE_ADDR | PERF_SAMPLE_CALLCHAIN);
	s.attr.exclude_kernel = 0;
	s.attr.exclude_callchain_kernel = 1;
	ASSERT_EQ(sampler_open(&s, RB_PAGES), 0);
	sampler_on(&s);
	ASSERT_EQ(kernel_store(p), 0);
	ASSERT_GE(sampler_off(&s), 0);
	n = samples_of(&s, ss, MAX_SAMPLES);
	x = by_addr(ss, n, (uint64_t)p, &cnt);
	ASSERT_NE(x, NULL);
	ASSERT_GE(x->chain_nr, 3);
	EXPECT_EQ(x->chain[0], PERF_CONTEXT_USER);
	EXPECT_EQ(*(uint16_t *)(x->chain[1] - 2), 0x050f);
	for (i = 1; i < x->chain_nr; i++)
		EXPECT_TRUE(is_user_addr(x->chain[i]));
	sampler_close(&s);
}

/*
 * sample_max_stack caps the number of addresses (markers not counted):
 * the user walk stops after that many, and a kernel chain that used them
 * all still gets the USER marker, with no user address after it.
 */
TEST(callchain_sample_max_stack)
{
	struct sampler s = { .fd = -1 };
	char *p = map_anon(2);
	struct sample *x;
	uint64_t ip;
	int n, cnt;

	ASSERT_NE(p, NULL);
	pf_attr(&s.attr, PERF_SAMPLE_ADDR | PERF_SAMPLE_CALLCHAIN);
	s.attr.exclude_kernel = 0;
	s.attr.sample_max_stack = 3;
	ASSERT_EQ(sampler_open(&s, RB_PAGES), 0);
	sampler_on(&s);
	chain_a(p, &ip);
	ASSERT_EQ(kernel_store(p + page_size()), 0);
	ASSERT_GE(sampler_off(&s), 0);
	n = samples_of(&s, ss, MAX_SAMPLES);

	x = by_addr(ss, n, (uint64_t)p, &cnt);
	ASSERT_NE(x, NULL);
	ASSERT_EQ(x->chain_nr, 4);
	EXPECT_EQ(x->chain[0], PERF_CONTEXT_USER);
	EXPECT_EQ(x->chain[1], ip);
	EXPECT_EQ(x->chain[2], ret_addr[0]);
	EXPECT_EQ(x->chain[3], ret_addr[1]);

	x = by_addr(ss, n, (uint64_t)p + page_size(), &cnt);
	ASSERT_NE(x, NULL);
	ASSERT_EQ(x->chain_nr, 5);
	EXPECT_EQ(x->chain[0], PERF_CONTEXT_KERNEL);
	EXPECT_TRUE(is_kernel_addr(x->chain[3]) && !is_context(x->chain[3]));
	EXPECT_EQ(x->chain[4], PERF_CONTEXT_USER);
	sampler_close(&s);
}

/* A sample_max_stack above kernel.perf_event_max_stack: EOVERFLOW. */
TEST(callchain_max_stack_above_sysctl)
{
	struct perf_event_attr a;
	long max;
	int fd;

	ASSERT_EQ(read_sysctl("perf_event_max_stack", &max), 0);
	pf_attr(&a, PERF_SAMPLE_CALLCHAIN);
	a.sample_max_stack = max + 1;
	fd = sys_perf_event_open(&a, 0, -1, -1, 0);
	EXPECT_EQ(fd, -1);
	EXPECT_EQ(errno, EOVERFLOW);
	a.sample_max_stack = max;
	fd = sys_perf_event_open(&a, 0, -1, -1, 0);
	EXPECT_GE(fd, 0);
	close(fd);
	/* Without CALLCHAIN the field is not checked. */
	pf_attr(&a, PERF_SAMPLE_IP);
	a.sample_max_stack = max + 1;
	fd = sys_perf_event_open(&a, 0, -1, -1, 0);
	EXPECT_GE(fd, 0);
	close(fd);
}

FIXTURE(max_stack) {
	long saved;
};

FIXTURE_SETUP(max_stack)
{
	ASSERT_EQ(read_sysctl("perf_event_max_stack", &self->saved), 0);
}

FIXTURE_TEARDOWN(max_stack)
{
	write_sysctl("perf_event_max_stack", self->saved);
}

/*
 * kernel.perf_event_max_stack cannot change while a callchain event exists
 * (EBUSY); it is the default sample_max_stack and the new upper bound.
 */
TEST_F(max_stack, sysctl_limits_callchains)
{
	struct sampler s = { .fd = -1 };
	struct perf_event_attr a;
	char *p = map_anon(1);
	struct sample *x;
	uint64_t ip;
	int n, cnt, fd;

	ASSERT_NE(p, NULL);
	pf_attr(&a, PERF_SAMPLE_CALLCHAIN);
	fd = sys_perf_event_open(&a, 0, -1, -1, 0);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(write_sysctl("perf_event_max_stack", 2), -EBUSY);
	close(fd);
	ASSERT_EQ(write_sysctl("perf_event_max_stack", 2), 0);

	a.sample_max_stack = 3;
	fd = sys_perf_event_open(&a, 0, -1, -1, 0);
	EXPECT_EQ(fd, -1);
	EXPECT_EQ(errno, EOVERFLOW);

	pf_attr(&s.attr, PERF_SAMPLE_ADDR | PERF_SAMPLE_CALLCHAIN);
	ASSERT_EQ(sampler_open(&s, RB_PAGES), 0);
	sampler_on(&s);
	chain_a(p, &ip);
	ASSERT_GE(sampler_off(&s), 0);
	n = samples_of(&s, ss, MAX_SAMPLES);
	x = by_addr(ss, n, (uint64_t)p, &cnt);
	ASSERT_NE(x, NULL);
	ASSERT_EQ(x->chain_nr, 3);
	EXPECT_EQ(x->chain[0], PERF_CONTEXT_USER);
	EXPECT_EQ(x->chain[1], ip);
	EXPECT_EQ(x->chain[2], ret_addr[0]);
	sampler_close(&s);
}

/* ---- REGS_USER, REGS_INTR ---- */

/* REGS_USER of a user fault: ABI_64 and the registers at the store. */
TEST(regs_user_values)
{
	const uint64_t ma = 0x1111222233334444ULL, mb = 0x5555666677778888ULL;
	const uint64_t mc = 0x99990000aaaabbbbULL;
	struct sampler s = { .fd = -1 };
	char *p = map_anon(1);
	uint64_t ip, sp;
	struct sample *x;
	int n, cnt;

	ASSERT_NE(p, NULL);
	pf_attr(&s.attr, PERF_SAMPLE_ADDR | PERF_SAMPLE_REGS_USER);
	s.attr.sample_regs_user = REGS_ALL;
	ASSERT_EQ(sampler_open(&s, RB_PAGES), 0);
	sampler_on(&s);
	ip = store_regs(p + 8, ma, mb, mc, &sp);
	ASSERT_GE(sampler_off(&s), 0);
	n = samples_of(&s, ss, MAX_SAMPLES);
	x = by_addr(ss, n, (uint64_t)p + 8, &cnt);
	ASSERT_NE(x, NULL);
	EXPECT_EQ(x->size, 8 + 8 + 8 + 20 * 8);
	ASSERT_EQ(x->ru_abi, PERF_SAMPLE_REGS_ABI_64);
	/* Registers in bit order, DS..GS left out: R8 is the 13th. */
	EXPECT_EQ(x->ru[R_AX], ip);
	EXPECT_EQ(x->ru[R_DX], mb);
	EXPECT_EQ(x->ru[R_SI], ma);
	EXPECT_EQ(x->ru[R_DI], (uint64_t)p + 8);
	EXPECT_EQ(x->ru[R_SP], sp);
	EXPECT_EQ(x->ru[R_IP], ip);
	EXPECT_TRUE(x->ru[R_FLAGS] & 0x200);
	EXPECT_EQ(x->ru[R_CS], USER_CS);
	EXPECT_EQ(x->ru[R_SS], USER_SS);
	EXPECT_EQ(x->ru[12], mc);
	sampler_close(&s);
}

/*
 * REGS_USER of a fault taken in a syscall are the registers saved at
 * syscall entry: IP after the syscall instruction, AX = -ENOSYS.
 */
TEST(regs_user_of_kernel_fault)
{
	struct sampler s = { .fd = -1 };
	char *p = map_anon(1);
	struct sample *x;
	int n, cnt;

	ASSERT_NE(p, NULL);
	pf_attr(&s.attr, PERF_SAMPLE_ADDR | PERF_SAMPLE_REGS_USER);
	s.attr.exclude_kernel = 0;
	s.attr.sample_regs_user = (1ULL << R_AX) | (1ULL << R_IP) | (1ULL << R_CS);
	ASSERT_EQ(sampler_open(&s, RB_PAGES), 0);
	sampler_on(&s);
	ASSERT_EQ(kernel_store(p), 0);
	ASSERT_GE(sampler_off(&s), 0);
	n = samples_of(&s, ss, MAX_SAMPLES);
	x = by_addr(ss, n, (uint64_t)p, &cnt);
	ASSERT_NE(x, NULL);
	ASSERT_EQ(x->ru_abi, PERF_SAMPLE_REGS_ABI_64);
	EXPECT_EQ(x->ru[0], (uint64_t)-ENOSYS);
	EXPECT_TRUE(is_user_addr(x->ru[1]));
	EXPECT_EQ(*(uint16_t *)(x->ru[1] - 2), 0x050f);
	EXPECT_EQ(x->ru[2], USER_CS);
	sampler_close(&s);
}

/* Masks that perf_reg_validate() refuses: empty, DS..GS, bits 24..31. */
TEST(regs_masks_validated)
{
	static const uint64_t bad[] = {
		0, 1ULL << R_DS, 1ULL << R_GS, 1ULL << 24, 1ULL << 31,
		REGS_ALL | (1ULL << R_FS),
	};
	struct perf_event_attr a;
	unsigned int k;
	int fd;

	for (k = 0; k < ARRAY_SIZE(bad); k++) {
		pf_attr(&a, PERF_SAMPLE_REGS_USER);
		a.sample_regs_user = bad[k];
		EXPECT_EQ(sys_perf_event_open(&a, 0, -1, -1, 0), -1);
		EXPECT_EQ(errno, EINVAL) TH_LOG("user mask %#llx",
						(unsigned long long)bad[k]);
		pf_attr(&a, PERF_SAMPLE_REGS_INTR);
		a.sample_regs_intr = bad[k];
		EXPECT_EQ(sys_perf_event_open(&a, 0, -1, -1, 0), -1);
		EXPECT_EQ(errno, EINVAL) TH_LOG("intr mask %#llx",
						(unsigned long long)bad[k]);
	}
	/* The masks are not looked at without their sample bit. */
	pf_attr(&a, PERF_SAMPLE_IP);
	a.sample_regs_user = 1ULL << R_DS;
	a.sample_regs_intr = 1ULL << R_DS;
	fd = sys_perf_event_open(&a, 0, -1, -1, 0);
	EXPECT_GE(fd, 0);
	close(fd);
}

/* REGS_INTR are the registers of the event: user ones or kernel ones. */
TEST(regs_intr_values)
{
	uint64_t mask = (1ULL << R_SI) | (1ULL << R_IP) | (1ULL << R_CS);
	const uint64_t ma = 0x0123456789abcdefULL;
	struct sampler s = { .fd = -1 };
	char *p = map_anon(2);
	uint64_t ip, sp;
	struct sample *x;
	int n, cnt;

	ASSERT_NE(p, NULL);
	pf_attr(&s.attr, PERF_SAMPLE_IP | PERF_SAMPLE_ADDR | PERF_SAMPLE_REGS_INTR);
	s.attr.exclude_kernel = 0;
	s.attr.sample_regs_intr = mask;
	ASSERT_EQ(sampler_open(&s, RB_PAGES), 0);
	sampler_on(&s);
	ip = store_regs(p, ma, 0, 0, &sp);
	ASSERT_EQ(kernel_store(p + page_size()), 0);
	ASSERT_GE(sampler_off(&s), 0);
	n = samples_of(&s, ss, MAX_SAMPLES);

	x = by_addr(ss, n, (uint64_t)p, &cnt);
	ASSERT_NE(x, NULL);
	EXPECT_EQ(x->size, 8 + 8 + 8 + 8 + 3 * 8);
	ASSERT_EQ(x->ri_abi, PERF_SAMPLE_REGS_ABI_64);
	EXPECT_EQ(x->ri[0], ma);
	EXPECT_EQ(x->ri[1], ip);
	EXPECT_EQ(x->ri[2], USER_CS);

	x = by_addr(ss, n, (uint64_t)p + page_size(), &cnt);
	ASSERT_NE(x, NULL);
	ASSERT_EQ(x->ri_abi, PERF_SAMPLE_REGS_ABI_64);
	EXPECT_EQ(x->ri[1], x->ip);
	EXPECT_TRUE(is_kernel_addr(x->ri[1]));
	EXPECT_EQ(x->ri[2], KERNEL_CS);
	sampler_close(&s);
}

/* ---- STACK_USER ---- */

static noinline uint64_t store_with_marker(char *p, uint64_t **marker)
{
	volatile uint64_t m[4] = {
		0xfeedface00000001ULL, 0xfeedface00000002ULL,
		0xfeedface00000003ULL, 0xfeedface00000004ULL,
	};
	uint64_t ip;

	*marker = (uint64_t *)m;
	ip = store_at(p);
	/* Read the array after the store, so that it stays on the stack. */
	return ip + m[0] - m[0];
}

/* STACK_USER: {size, size bytes from SP up, dyn_size}. */
TEST(stack_user_dump)
{
	struct sampler s = { .fd = -1 };
	char *p = map_anon(1);
	uint64_t *marker, sp, off;
	struct sample *x;
	int n, cnt;

	ASSERT_NE(p, NULL);
	pf_attr(&s.attr, PERF_SAMPLE_ADDR | PERF_SAMPLE_REGS_USER |
		PERF_SAMPLE_STACK_USER);
	s.attr.sample_regs_user = 1ULL << R_SP;
	s.attr.sample_stack_user = 2048;
	ASSERT_EQ(sampler_open(&s, RB_PAGES), 0);
	sampler_on(&s);
	store_with_marker(p, &marker);
	ASSERT_GE(sampler_off(&s), 0);
	n = samples_of(&s, ss, MAX_SAMPLES);
	x = by_addr(ss, n, (uint64_t)p, &cnt);
	ASSERT_NE(x, NULL);
	EXPECT_EQ(x->size, 8 + 8 + 16 + 8 + 2048 + 8);
	ASSERT_EQ(x->su_size, 2048);
	EXPECT_EQ(x->su_dyn, 2048);
	sp = x->ru[0];
	ASSERT_GT((uint64_t)marker, sp);
	off = (uint64_t)marker - sp;
	ASSERT_LT(off + 32, 2048);
	EXPECT_EQ(*(uint64_t *)(x->su_data + off), 0xfeedface00000001ULL);
	EXPECT_EQ(*(uint64_t *)(x->su_data + off + 24), 0xfeedface00000004ULL);
	sampler_close(&s);
}

/* sample_stack_user 0: the size field alone, 0. */
TEST(stack_user_size_zero)
{
	uint64_t ips[2], addrs[2];
	struct sampler s = { .fd = -1 };
	int n, i;

	pf_attr(&s.attr, PERF_SAMPLE_IP | PERF_SAMPLE_STACK_USER);
	s.attr.sample_stack_user = 0;
	ASSERT_EQ(sampler_open(&s, RB_PAGES), 0);
	n = sample_stores(&s, 2, 0, ips, addrs);
	ASSERT_GE(n, 2);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(ss[i].size, 8 + 8 + 8);
		EXPECT_EQ(ss[i].su_size, 0);
		if (LOOP_FAILED())
			break;
	}
	sampler_close(&s);
}

/* Whether the page at @addr is present (root reads /proc/self/pagemap). */
static int page_present(uint64_t addr)
{
	int fd = open("/proc/self/pagemap", O_RDONLY);
	uint64_t ent = 0;

	if (fd < 0)
		return -1;
	if (pread(fd, &ent, 8, addr / page_size() * 8) != 8)
		ent = 0;
	close(fd);
	return !!(ent & (1ULL << 63));
}

/*
 * How many bytes from @sp up a copy without page faults can read: up to
 * the first page that is not present (the random gap that exec leaves
 * below the arguments is never touched), at most @max.
 */
static uint64_t readable_from(uint64_t sp, uint64_t max)
{
	uint64_t psz = page_size(), a = sp & ~(psz - 1);

	while (a < sp + max && page_present(a) == 1)
		a += psz;
	return a - sp < max ? a - sp : max;
}

/*
 * sample_stack_user must be a multiple of 8 below 65535; a request that
 * would overflow the 16-bit record size is cut to fit, and the dump stops
 * at the end of the stack mapping (dyn_size).
 */
TEST(stack_user_size_limits)
{
	struct sampler s = { .fd = -1 };
	struct perf_event_attr a;
	char *p = map_anon(1);
	uint64_t *marker;
	struct sample *x;
	int n, cnt, fd;

	ASSERT_NE(p, NULL);
	pf_attr(&a, PERF_SAMPLE_STACK_USER);
	a.sample_stack_user = 100;
	EXPECT_EQ(sys_perf_event_open(&a, 0, -1, -1, 0), -1);
	EXPECT_EQ(errno, EINVAL);
	a.sample_stack_user = 65535;
	EXPECT_EQ(sys_perf_event_open(&a, 0, -1, -1, 0), -1);
	EXPECT_EQ(errno, EINVAL);
	a.sample_stack_user = 65536;
	EXPECT_EQ(sys_perf_event_open(&a, 0, -1, -1, 0), -1);
	EXPECT_EQ(errno, EINVAL);
	a.sample_stack_user = 65528;
	fd = sys_perf_event_open(&a, 0, -1, -1, 0);
	EXPECT_GE(fd, 0);
	close(fd);

	pf_attr(&s.attr, PERF_SAMPLE_IP | PERF_SAMPLE_ADDR |
		PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER);
	s.attr.sample_regs_user = 1ULL << R_SP;
	s.attr.sample_stack_user = 65528;
	ASSERT_EQ(sampler_open(&s, 64), 0);
	sampler_on(&s);
	store_with_marker(p, &marker);
	ASSERT_GE(sampler_off(&s), 0);
	n = samples_of(&s, ss, MAX_SAMPLES);
	x = by_addr(ss, n, (uint64_t)p, &cnt);
	ASSERT_NE(x, NULL);
	/*
	 * 8 (header) + 16 (IP, ADDR) + 16 (REGS_USER) before the stack, 16
	 * for the sizes: 65535 - 56 - 8 rounded up to 8 bytes of stack.
	 */
	EXPECT_EQ(x->su_size, 65472);
	EXPECT_EQ(x->size, 8 + 16 + 16 + 8 + 65472 + 8);
	/*
	 * The dump stops at the first page it cannot read without faults:
	 * short of the request when the stack mapping ends first.  (Which
	 * pages were present at the sample cannot be checked afterwards.)
	 */
	EXPECT_GT(x->su_dyn, 0);
	EXPECT_EQ(x->su_dyn % 8, 0);
	if (readable_from(x->ru[0], x->su_size) < x->su_size) {
		EXPECT_LT(x->su_dyn, x->su_size);
	} else {
		EXPECT_LE(x->su_dyn, x->su_size);
	}
	sampler_close(&s);
}

/* ---- all at once ---- */

/*
 * Every sample type a software event can have, at once: the fields come
 * in the documented order and fill the record exactly.
 */
TEST(all_sample_types_at_once)
{
	uint64_t st = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
		      PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |
		      PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |
		      PERF_SAMPLE_PERIOD | PERF_SAMPLE_READ |
		      PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW |
		      PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER |
		      PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC |
		      PERF_SAMPLE_TRANSACTION | PERF_SAMPLE_REGS_INTR |
		      PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_DATA_PAGE_SIZE |
		      PERF_SAMPLE_CODE_PAGE_SIZE | PERF_SAMPLE_AUX;
	struct sampler s = { .fd = -1 };
	char *p = map_anon(1);
	uint64_t ip, id, t0, t1, size;
	struct sample *x;
	int n, cnt;

	ASSERT_NE(p, NULL);
	/* The CPU field is checked against where the test runs. */
	ASSERT_EQ(pin_to_cpu(0), 0);
	pf_attr(&s.attr, st);
	s.attr.read_format = F_ID;
	s.attr.sample_regs_user = (1ULL << R_IP) | (1ULL << R_SP);
	s.attr.sample_regs_intr = (1ULL << R_IP);
	s.attr.sample_stack_user = 256;
	ASSERT_EQ(sampler_open(&s, RB_PAGES), 0);
	id = event_id(s.fd);
	t0 = mono_ns();
	sampler_on(&s);
	chain_a(p + 8, &ip);
	ASSERT_GE(sampler_off(&s), 0);
	t1 = mono_ns();
	n = samples_of(&s, ss, MAX_SAMPLES);
	ASSERT_GE(n, 1);
	x = by_addr(ss, n, (uint64_t)p + 8, &cnt);
	ASSERT_NE(x, NULL);
	size = 8 + 9 * 8 + 16 + 8 + 8 * x->chain_nr + 8 + (8 + 16) +
	       (8 + 256 + 8) + 3 * 8 + (8 + 8) + 3 * 8 + 8;
	EXPECT_EQ(x->size, size);
	EXPECT_EQ(x->misc, PERF_RECORD_MISC_USER);
	EXPECT_EQ(x->identifier, id);
	EXPECT_EQ(x->ip, ip);
	EXPECT_EQ(x->pid, getpid());
	EXPECT_EQ(x->tid, gettid());
	EXPECT_GE(x->time + LOCAL_CLOCK_SLACK, t0);
	EXPECT_LE(x->time, t1 + LOCAL_CLOCK_SLACK);
	EXPECT_EQ(x->id, id);
	EXPECT_EQ(x->stream_id, id);
	EXPECT_EQ(x->cpu, sched_getcpu());
	EXPECT_EQ(x->period, 1);
	EXPECT_EQ(x->read[1], id);
	EXPECT_GE(x->chain_nr, 6);
	EXPECT_EQ(x->chain[0], PERF_CONTEXT_USER);
	EXPECT_EQ(x->chain[1], ip);
	EXPECT_EQ(x->chain[2], ret_addr[0]);
	EXPECT_EQ(x->raw_size, 4);
	EXPECT_EQ(x->ru_abi, PERF_SAMPLE_REGS_ABI_64);
	EXPECT_EQ(x->ru[1], ip);
	EXPECT_EQ(x->su_size, 256);
	EXPECT_EQ(x->su_dyn, 256);
	EXPECT_EQ(x->weight, 0);
	EXPECT_EQ(x->data_src, MEM_NA);
	EXPECT_EQ(x->txn, 0);
	EXPECT_EQ(x->ri_abi, PERF_SAMPLE_REGS_ABI_64);
	EXPECT_EQ(x->ri[0], ip);
	EXPECT_EQ(x->phys, 0);
	EXPECT_EQ(x->data_psz, 0);
	EXPECT_EQ(x->code_psz, 4096);
	EXPECT_EQ(x->aux_size, 0);
	sampler_close(&s);
}

/* sample_id_all does not change samples (it is for other records). */
TEST(sample_id_all_leaves_samples_alone)
{
	uint64_t ips[2], addrs[2];
	struct sampler s = { .fd = -1 };
	int n, i;

	pf_attr(&s.attr, PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
		PERF_SAMPLE_IDENTIFIER);
	s.attr.sample_id_all = 1;
	ASSERT_EQ(sampler_open(&s, RB_PAGES), 0);
	n = sample_stores(&s, 2, 0, ips, addrs);
	ASSERT_GE(n, 2);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(ss[i].size, 8 + 32);
		if (LOOP_FAILED())
			break;
	}
	EXPECT_EQ(rb_count(&s.rb, 0), rb_count(&s.rb, PERF_RECORD_SAMPLE));
	sampler_close(&s);
}

/* ---- other software events ---- */

/*
 * Context switches are counted in the scheduler, with kernel registers:
 * samples are KERNEL ones, and exclude_kernel leaves nothing to count.
 */
TEST(context_switch_samples_are_kernel)
{
	struct sampler s = { .fd = -1 };
	int n, i, fd;

	sw_sample_attr(&s.attr, PERF_COUNT_SW_CONTEXT_SWITCHES, 1,
		       PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_ADDR);
	s.attr.exclude_kernel = 0;
	ASSERT_EQ(sampler_open(&s, RB_PAGES), 0);
	sampler_on(&s);
	/*
	 * A sleep whose timer expires before the task gets to schedule()
	 * (a slow kernel on a busy host) switches nothing: sleep until five
	 * switches were counted.
	 */
	for (i = 0; i < 100000 && read_count(s.fd) < 5; i++)
		usleep(1000);
	ASSERT_GE(sampler_off(&s), 0);
	n = samples_of(&s, ss, MAX_SAMPLES);
	ASSERT_GE(n, 5);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(ss[i].misc, PERF_RECORD_MISC_KERNEL);
		EXPECT_TRUE(is_kernel_addr(ss[i].ip));
		EXPECT_EQ(ss[i].tid, gettid());
		EXPECT_EQ(ss[i].addr, 0);
		if (LOOP_FAILED())
			break;
	}
	sampler_close(&s);

	/* The same event with exclude_kernel counts nothing. */
	{
		struct perf_event_attr a;

		sw_attr(&a, PERF_COUNT_SW_CONTEXT_SWITCHES);
		a.exclude_kernel = 1;
		fd = sys_perf_event_open(&a, 0, -1, -1, 0);
		ASSERT_GE(fd, 0);
		for (i = 0; i < 5; i++)
			usleep(1000);
		EXPECT_EQ(read_count(fd), 0);
		close(fd);
	}
}

static volatile uint64_t bp_var;

/* Write @v to bp_var; returns the address of the next instruction. */
static noinline uint64_t bp_write(uint64_t v)
{
	uint64_t ip;

	asm volatile("movq %1, (%2)\n\t"
		     "1: lea 1b(%%rip), %0"
		     : "=&r"(ip) : "r"(v), "r"(&bp_var) : "memory");
	return ip;
}

/*
 * A write breakpoint traps after the write: IP is the next instruction,
 * ADDR the breakpoint address.
 */
TEST(breakpoint_samples)
{
	struct sampler s = { .fd = -1 };
	uint64_t ip = 0;
	int n, i, ret;

	memset(&s.attr, 0, sizeof(s.attr));
	s.attr.type = PERF_TYPE_BREAKPOINT;
	s.attr.size = sizeof(s.attr);
	s.attr.bp_type = HW_BREAKPOINT_W;
	s.attr.bp_addr = (uint64_t)&bp_var;
	s.attr.bp_len = HW_BREAKPOINT_LEN_8;
	s.attr.sample_period = 1;
	s.attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_ADDR | PERF_SAMPLE_PERIOD;
	s.attr.disabled = 1;
	s.attr.exclude_kernel = 1;
	ret = sampler_open(&s, RB_PAGES);
	if (ret == -ENOENT || ret == -ENOSPC || ret == -EOPNOTSUPP)
		SKIP(return, "no hardware breakpoints (%d)", ret);
	ASSERT_EQ(ret, 0);
	sampler_on(&s);
	for (i = 0; i < 3; i++)
		ip = bp_write(i);
	ASSERT_GE(sampler_off(&s), 0);
	n = samples_of(&s, ss, MAX_SAMPLES);
	ASSERT_EQ(n, 3);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(ss[i].misc, PERF_RECORD_MISC_USER);
		EXPECT_EQ(ss[i].ip, ip);
		EXPECT_EQ(ss[i].addr, (uint64_t)&bp_var);
		EXPECT_EQ(ss[i].period, 1);
		if (LOOP_FAILED())
			break;
	}
	sampler_close(&s);
}

TEST_HARNESS_MAIN
