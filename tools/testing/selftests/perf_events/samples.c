// SPDX-License-Identifier: GPL-2.0
/*
 * PERF_RECORD_SAMPLE in the mmap ring buffer: the layout of every
 * sample_type bit and the values that software events put there.
 *
 * Most tests sample page faults with sample_period 1 on stores to fresh
 * anonymous pages made by a known instruction (store_at()), so that each
 * sample's IP, ADDR and registers are known exactly; others sample
 * cpu-clock and task-clock on a busy loop kept in its own section, context
 * switches, and a data breakpoint.  The test is built with frame pointers
 * so that user callchains can be checked against __builtin_return_address.
 *
 * Sample layout, in this order (each present only if its bit is set):
 *   IDENTIFIER, IP, {pid,tid}, TIME, ADDR, ID, STREAM_ID, {cpu,res},
 *   PERIOD, READ, CALLCHAIN {nr, ips}, RAW {u32 size, data}, BRANCH_STACK,
 *   REGS_USER {abi, regs}, STACK_USER {size, data, dyn_size},
 *   WEIGHT, DATA_SRC, TRANSACTION, REGS_INTR {abi, regs}, PHYS_ADDR,
 *   CGROUP, DATA_PAGE_SIZE, CODE_PAGE_SIZE, AUX {size, data}
 */
#include "../kselftest_harness.h"
#include <pthread.h>
#include <linux/hw_breakpoint.h>
#include "perf_worker.h"
#include "perf_rb.h"


/* In loops over samples: stop at the first failed expectation. */
#define LOOP_FAILED()	(_metadata->exit_code == KSFT_FAIL)
#define MAX_SAMPLES	4096
#define RB_PAGES	16

/* x86-64 user segment selectors and the syscall error while in a syscall. */
#define USER_CS		0x33
#define USER_SS		0x2b
#define KERNEL_CS	0x10

#define is_kernel_addr(a)	((uint64_t)(a) >= 0xffff800000000000ULL)
#define is_user_addr(a)		((uint64_t)(a) < 0x0000800000000000ULL)
#define is_context(a)		((uint64_t)(a) >= (uint64_t)PERF_CONTEXT_MAX)

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

/* The DATA_SRC value of samples that carry no memory information. */
#define MEM_NA	(PERF_MEM_S(OP, NA) | PERF_MEM_S(LVL, NA) | \
		 PERF_MEM_S(SNOOP, NA) | PERF_MEM_S(LOCK, NA) | \
		 PERF_MEM_S(TLB, NA) | PERF_MEM_S(LVLNUM, NA))

/* ---- workloads with known instruction addresses ---- */

/* Return addresses recorded by the chain_*() functions for callchains. */
static uint64_t ret_addr[4];

/*
 * Store one byte at @p and return the address of the storing instruction
 * (the IP of the page fault it takes on a fresh page).
 */
static noinline uint64_t store_at(char *p)
{
	uint64_t ip;

	asm volatile("lea 1f(%%rip), %0\n\t"
		     "1: movb $1, (%1)"
		     : "=&r"(ip) : "r"(p) : "memory");
	ret_addr[0] = (uint64_t)__builtin_return_address(0);
	return ip;
}

/*
 * The same with known values in registers: rax = the IP, rdi = @p,
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

/* A busy loop in a section of its own, so that its range is known. */
extern char __start_perf_busy_text[], __stop_perf_busy_text[];

static noinline __section("perf_busy_text")
uint64_t busy_chunk(uint64_t loops)
{
	uint64_t x = loops, i;

	for (i = 0; i < loops; i++)
		asm volatile("" : "+r"(x) : : "memory");
	return x;
}

static int in_busy(uint64_t ip)
{
	return ip >= (uint64_t)__start_perf_busy_text &&
	       ip < (uint64_t)__stop_perf_busy_text;
}

/* Run busy_chunk() for about @ns of this thread's CPU time. */
static void busy_for(uint64_t ns)
{
	uint64_t end = thread_ns() + ns;

	while (thread_ns() < end)
		busy_chunk(200000);
}

/* Read one byte of /dev/zero into @p: a page fault taken in the kernel. */
static int kernel_store(char *p)
{
	int fd = open("/dev/zero", O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, p, 1);
	close(fd);
	return n == 1 ? 0 : -1;
}

/* ---- opening and reading sampling events ---- */

struct sampler {
	struct perf_event_attr attr;
	int fd;
	int noswap_fd;		/* see sampler_open_inherited() */
	struct perf_rb rb;
};

/* A page-fault sampling attr: period 1, user faults only, disabled. */
static void pf_attr(struct perf_event_attr *a, uint64_t sample_type)
{
	memset(a, 0, sizeof(*a));
	a->type = PERF_TYPE_SOFTWARE;
	a->size = sizeof(*a);
	a->config = PERF_COUNT_SW_PAGE_FAULTS;
	a->sample_period = 1;
	a->sample_type = sample_type;
	a->disabled = 1;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
}

/* Like pf_attr() for another software event. */
static void sw_sample_attr(struct perf_event_attr *a, uint64_t config,
			   uint64_t period, uint64_t sample_type)
{
	pf_attr(a, sample_type);
	a->config = config;
	a->sample_period = period;
}

/*
 * Open @s->attr on @pid/@cpu in group @group and map @pages data pages.
 * Returns 0, or -errno of the open (-ENOMEM if the mmap failed).
 */
static int sampler_open_on(struct sampler *s, pid_t pid, int cpu, int group,
			   int pages)
{
	s->fd = sys_perf_event_open(&s->attr, pid, cpu, group,
				    PERF_FLAG_FD_CLOEXEC);
	if (s->fd < 0)
		return -errno;
	if (pages && rb_map(&s->rb, s->fd, pages)) {
		close(s->fd);
		s->fd = -1;
		return -ENOMEM;
	}
	return 0;
}

static int sampler_open(struct sampler *s, int pages)
{
	return sampler_open_on(s, 0, -1, -1, pages);
}

/*
 * Inherited events cannot be mmapped per task (cpu -1): pin the caller,
 * whose children and threads inherit the affinity, to CPU 0 and open the
 * event on that CPU.
 *
 * A task context whose events were all inherited is a clone of its
 * parent's, and the scheduler may swap the two contexts when it switches
 * between the tasks: then the child runs with the parent's events and the
 * other way round.  A non-inherited event in the parent's context keeps
 * the child's context from being a clone, so that each task keeps its own.
 */
static int sampler_open_inherited(struct sampler *s, int pages)
{
	struct perf_event_attr a;

	if (pin_to_cpu(0))
		return -EIO;
	sw_attr(&a, PERF_COUNT_SW_DUMMY);
	s->noswap_fd = sys_perf_event_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (s->noswap_fd < 0)
		return -errno;
	s->attr.inherit = 1;
	return sampler_open_on(s, 0, 0, -1, pages);
}

static void sampler_close(struct sampler *s)
{
	if (s->fd >= 0)
		close(s->fd);
	if (s->noswap_fd > 0)
		close(s->noswap_fd);
	s->noswap_fd = 0;
	rb_unmap(&s->rb);
	s->fd = -1;
}

static void sampler_on(struct sampler *s)
{
	ioctl(s->fd, PERF_EVENT_IOC_ENABLE, 0);
}

/* Disable and fetch every record; returns the bytes fetched or -1. */
static long sampler_off(struct sampler *s)
{
	ioctl(s->fd, PERF_EVENT_IOC_DISABLE, 0);
	return rb_fetch(&s->rb);
}

/* One decoded sample; pointers point into the fetched records. */
struct sample {
	uint16_t misc, size;
	uint64_t identifier, ip;
	uint32_t pid, tid;
	uint64_t time, addr, id, stream_id;
	uint32_t cpu, cpu_res;
	uint64_t period;
	const uint64_t *read;
	int read_n;
	uint64_t chain_nr;
	const uint64_t *chain;
	uint32_t raw_size;
	const unsigned char *raw;
	uint64_t branch_nr;
	uint64_t ru_abi;
	const uint64_t *ru;
	uint64_t su_size, su_dyn;
	const unsigned char *su_data;
	uint64_t weight, data_src, txn;
	uint64_t ri_abi;
	const uint64_t *ri;
	uint64_t phys, cgroup, data_psz, code_psz, aux_size;
};

/* u64s of a READ value for @fmt (group reads take @nr from the sample). */
static int read_words(uint64_t fmt, uint64_t nr)
{
	int entry = 1 + !!(fmt & F_ID) + !!(fmt & F_LOST);
	int n = !!(fmt & F_EN) + !!(fmt & F_RUN);

	return fmt & F_GRP ? n + 1 + (int)nr * entry : n + entry;
}

/*
 * Decode sample @h of an event with attr @a.  Returns 0 if the fields that
 * @a asks for fill the record exactly, -1 otherwise.
 */
static int parse_sample(const struct perf_event_header *h,
			const struct perf_event_attr *a, struct sample *s)
{
	uint64_t st = a->sample_type;
	struct rec_cur c = rc_init(h);

	memset(s, 0, sizeof(*s));
	s->misc = h->misc;
	s->size = h->size;
	if (st & PERF_SAMPLE_IDENTIFIER)
		s->identifier = rc_u64(&c);
	if (st & PERF_SAMPLE_IP)
		s->ip = rc_u64(&c);
	if (st & PERF_SAMPLE_TID) {
		s->pid = rc_u32(&c);
		s->tid = rc_u32(&c);
	}
	if (st & PERF_SAMPLE_TIME)
		s->time = rc_u64(&c);
	if (st & PERF_SAMPLE_ADDR)
		s->addr = rc_u64(&c);
	if (st & PERF_SAMPLE_ID)
		s->id = rc_u64(&c);
	if (st & PERF_SAMPLE_STREAM_ID)
		s->stream_id = rc_u64(&c);
	if (st & PERF_SAMPLE_CPU) {
		s->cpu = rc_u32(&c);
		s->cpu_res = rc_u32(&c);
	}
	if (st & PERF_SAMPLE_PERIOD)
		s->period = rc_u64(&c);
	if (st & PERF_SAMPLE_READ) {
		uint64_t nr = 1;

		if ((a->read_format & F_GRP) && rc_left(&c) >= 8)
			memcpy(&nr, c.p, 8);
		if (nr > 64)
			return -1;
		s->read_n = read_words(a->read_format, nr);
		s->read = rc_ptr(&c, 8 * s->read_n);
	}
	if (st & PERF_SAMPLE_CALLCHAIN) {
		s->chain_nr = rc_u64(&c);
		if (s->chain_nr > 4096)
			return -1;
		s->chain = rc_ptr(&c, 8 * s->chain_nr);
	}
	if (st & PERF_SAMPLE_RAW) {
		s->raw_size = rc_u32(&c);
		s->raw = rc_ptr(&c, s->raw_size);
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		s->branch_nr = rc_u64(&c);
		rc_ptr(&c, 24 * s->branch_nr);
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		s->ru_abi = rc_u64(&c);
		if (s->ru_abi)
			s->ru = rc_ptr(&c, 8 * __builtin_popcountll(a->sample_regs_user));
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		s->su_size = rc_u64(&c);
		if (s->su_size) {
			s->su_data = rc_ptr(&c, s->su_size);
			s->su_dyn = rc_u64(&c);
		}
	}
	if (st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		s->weight = rc_u64(&c);
	if (st & PERF_SAMPLE_DATA_SRC)
		s->data_src = rc_u64(&c);
	if (st & PERF_SAMPLE_TRANSACTION)
		s->txn = rc_u64(&c);
	if (st & PERF_SAMPLE_REGS_INTR) {
		s->ri_abi = rc_u64(&c);
		if (s->ri_abi)
			s->ri = rc_ptr(&c, 8 * __builtin_popcountll(a->sample_regs_intr));
	}
	if (st & PERF_SAMPLE_PHYS_ADDR)
		s->phys = rc_u64(&c);
	if (st & PERF_SAMPLE_CGROUP)
		s->cgroup = rc_u64(&c);
	if (st & PERF_SAMPLE_DATA_PAGE_SIZE)
		s->data_psz = rc_u64(&c);
	if (st & PERF_SAMPLE_CODE_PAGE_SIZE)
		s->code_psz = rc_u64(&c);
	if (st & PERF_SAMPLE_AUX) {
		s->aux_size = rc_u64(&c);
		rc_ptr(&c, s->aux_size);
	}
	return rc_ok(&c) && rc_left(&c) == 0 ? 0 : -1;
}

/*
 * Decode every fetched sample of @s into @out (at most @max); returns the
 * number of samples, or -1 if one of them does not parse.
 */
static int samples_of(struct sampler *s, struct sample *out, int max)
{
	struct perf_event_header *h;
	int n = 0;

	rb_rewind(&s->rb);
	while ((h = rb_next(&s->rb))) {
		if (h->type != PERF_RECORD_SAMPLE)
			continue;
		if (n >= max)
			return -1;
		if (parse_sample(h, &s->attr, &out[n]))
			return -1;
		n++;
	}
	return n;
}

/* The sample whose ADDR is @addr, or NULL; @cnt gets how many there are. */
static struct sample *by_addr(struct sample *ss, int n, uint64_t addr, int *cnt)
{
	struct sample *found = NULL;
	int i;

	*cnt = 0;
	for (i = 0; i < n; i++) {
		if (ss[i].addr == addr) {
			if (!found)
				found = &ss[i];
			(*cnt)++;
		}
	}
	return found;
}

/* Space for decoded samples, shared by the tests (one test per process). */
static struct sample ss[MAX_SAMPLES];

/*
 * Sample @npages stores (store_at()) at @off into fresh pages with the
 * page-fault sampler @s (already opened); @ips gets each store's IP and
 * @addrs each address.  Returns the number of samples decoded, or -1.
 */
static int sample_stores(struct sampler *s, int npages, int off,
			 uint64_t *ips, uint64_t *addrs)
{
	char *p = map_anon(npages);
	long psz = page_size();
	int i, n;

	if (!p)
		return -1;
	sampler_on(s);
	for (i = 0; i < npages; i++) {
		ips[i] = store_at(p + i * psz + off);
		addrs[i] = (uint64_t)(p + i * psz + off);
	}
	if (sampler_off(s) < 0)
		n = -1;
	else
		n = samples_of(s, ss, MAX_SAMPLES);
	munmap(p, npages * psz);
	return n;
}

/* A page whose present PTE is write-protected (copy on write after fork). */
static char *cow_page(void)
{
	char *p = map_anon(1);
	pid_t pid;

	if (!p)
		return NULL;
	p[0] = 1;
	pid = fork();
	if (pid < 0)
		return NULL;
	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	return p;
}

/* The physical address of the page at @p (root only), or 0. */
static uint64_t phys_of(void *p)
{
	uint64_t ent = 0;
	int fd = open("/proc/self/pagemap", O_RDONLY);
	off_t off = (uint64_t)p / page_size() * 8;

	if (fd < 0)
		return 0;
	if (pread(fd, &ent, 8, off) != 8)
		ent = 0;
	close(fd);
	if (!(ent & (1ULL << 63)))
		return 0;
	return (ent & ((1ULL << 55) - 1)) * page_size();
}

/* ---- IP, TID, misc ---- */

/* The IP of a user page fault is the faulting store; misc is USER. */
TEST(ip_is_faulting_instruction)
{
	uint64_t ips[8], addrs[8];
	struct sampler s = { .fd = -1 };
	int n, i, hits = 0;

	pf_attr(&s.attr, PERF_SAMPLE_IP);
	ASSERT_EQ(sampler_open(&s, RB_PAGES), 0);
	n = sample_stores(&s, 8, 0, ips, addrs);
	ASSERT_GE(n, 8);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(ss[i].misc, PERF_RECORD_MISC_USER);
		EXPECT_EQ(ss[i].size, 16);
		if (ss[i].ip == ips[0])
			hits++;
		if (LOOP_FAILED())
			break;
	}
	EXPECT_EQ(hits, 8);
	sampler_close(&s);
}

/* Kernel-mode faults: misc KERNEL and a kernel IP, ADDR the user address. */
TEST(kernel_fault_misc_and_ip)
{
	struct sampler s = { .fd = -1 };
	char *p = map_anon(1);
	struct sample *k;
	int n, cnt;

	ASSERT_NE(p, NULL);
	pf_attr(&s.attr, PERF_SAMPLE_IP | PERF_SAMPLE_ADDR);
	s.attr.exclude_kernel = 0;
	ASSERT_EQ(sampler_open(&s, RB_PAGES), 0);
	sampler_on(&s);
	ASSERT_EQ(kernel_store(p + 100), 0);
	ASSERT_GE(sampler_off(&s), 0);
	n = samples_of(&s, ss, MAX_SAMPLES);
	ASSERT_GE(n, 1);
	k = by_addr(ss, n, (uint64_t)p + 100, &cnt);
	ASSERT_NE(k, NULL);
	EXPECT_EQ(cnt, 1);
	EXPECT_EQ(k->misc, PERF_RECORD_MISC_KERNEL);
	EXPECT_TRUE(is_kernel_addr(k->ip));
	sampler_close(&s);
}

/* exclude_kernel drops kernel-mode faults, exclude_user the user ones. */
TEST(exclude_user_and_kernel_filter_samples)
{
	struct sampler s = { .fd = -1 };
	char *p = map_anon(2);
	int n, cnt;

	ASSERT_NE(p, NULL);
	/* exclude_kernel: the fault in read() is not sampled. */
	pf_attr(&s.attr, PERF_SAMPLE_ADDR);
	ASSERT_EQ(sampler_open(&s, RB_PAGES), 0);
	sampler_on(&s);
	ASSERT_EQ(kernel_store(p), 0);
	store_at(p + page_size());
	ASSERT_GE(sampler_off(&s), 0);
	n = samples_of(&s, ss, MAX_SAMPLES);
	by_addr(ss, n, (uint64_t)p, &cnt);
	EXPECT_EQ(cnt, 0);
	by_addr(ss, n, (uint64_t)p + page_size(), &cnt);
	EXPECT_EQ(cnt, 1);
	sampler_close(&s);
	munmap(p, 2 * page_size());

	/* exclude_user: only the fault in read() is. */
	p = map_anon(2);
	ASSERT_NE(p, NULL);
	pf_attr(&s.attr, PERF_SAMPLE_ADDR);
	s.attr.exclude_kernel = 0;
	s.attr.exclude_user = 1;
	ASSERT_EQ(sampler_open(&s, RB_PAGES), 0);
	sampler_on(&s);
	ASSERT_EQ(kernel_store(p), 0);
	store_at(p + page_size());
	ASSERT_GE(sampler_off(&s), 0);
	n = samples_of(&s, ss, MAX_SAMPLES);
	by_addr(ss, n, (uint64_t)p, &cnt);
	EXPECT_EQ(cnt, 1);
	by_addr(ss, n, (uint64_t)p + page_size(), &cnt);
	EXPECT_EQ(cnt, 0);
	sampler_close(&s);
}

/* precise_ip 0..3 is accepted on software events and changes nothing. */
TEST(precise_ip_on_software_events)
{
	uint64_t ips[2], addrs[2];
	int prec, n, i;

	for (prec = 0; prec <= 3; prec++) {
		struct sampler s = { .fd = -1 };

		pf_attr(&s.attr, PERF_SAMPLE_IP);
		s.attr.precise_ip = prec;
		ASSERT_EQ(sampler_open(&s, RB_PAGES), 0);
		n = sample_stores(&s, 2, 0, ips, addrs);
		ASSERT_GE(n, 2);
		for (i = 0; i < n; i++) {
			EXPECT_EQ(ss[i].misc, PERF_RECORD_MISC_USER);
			if (LOOP_FAILED())
				break;
		}
		sampler_close(&s);
	}
}

static pid_t tid_seen;

static void *thread_stores(void *arg)
{
	char *p = arg;

	tid_seen = gettid();
	store_at(p);
	store_at(p + page_size());
	return NULL;
}

/* TID is {getpid(), gettid()}, for the main thread and an inherited thread. */
TEST(tid_of_process_and_thread)
{
	uint64_t st = PERF_SAMPLE_TID | PERF_SAMPLE_ADDR;
	struct sampler s = { .fd = -1 };
	char *p = map_anon(4);
	struct sample *x;
	pthread_t t;
	int n, cnt;

	ASSERT_NE(p, NULL);
	pf_attr(&s.attr, st);
	s.attr.inherit = 1;
	/* An inherited event on a task cannot be mmapped. */
	s.fd = sys_perf_event_open(&s.attr, 0, -1, -1, 0);
	ASSERT_GE(s.fd, 0);
	EXPECT_EQ(mmap(NULL, 2 * page_size(), PROT_READ | PROT_WRITE,
		       MAP_SHARED, s.fd, 0), MAP_FAILED);
	EXPECT_EQ(errno, EINVAL);
	close(s.fd);
	ASSERT_EQ(sampler_open_inherited(&s, RB_PAGES), 0);
	sampler_on(&s);
	store_at(p);
	ASSERT_EQ(pthread_create(&t, NULL, thread_stores, p + 2 * page_size()), 0);
	pthread_join(t, NULL);
	ASSERT_GE(sampler_off(&s), 0);
	n = samples_of(&s, ss, MAX_SAMPLES);
	ASSERT_GE(n, 3);
	x = by_addr(ss, n, (uint64_t)p, &cnt);
	ASSERT_NE(x, NULL);
	EXPECT_EQ(x->pid, getpid());
	EXPECT_EQ(x->tid, gettid());
	x = by_addr(ss, n, (uint64_t)p + 2 * page_size(), &cnt);
	ASSERT_NE(x, NULL);
	EXPECT_EQ(x->pid, getpid());
	EXPECT_EQ(x->tid, tid_seen);
	EXPECT_NE(x->tid, gettid());
	x = by_addr(ss, n, (uint64_t)p + 3 * page_size(), &cnt);
	ASSERT_NE(x, NULL);
	EXPECT_EQ(x->tid, tid_seen);
	sampler_close(&s);
}

/* Samples of an event on another process carry that process's pid. */
TEST(samples_of_another_process)
{
	struct sampler s = { .fd = -1 };
	struct worker w;
	int n, i, mine = 0;

	ASSERT_EQ(worker_start(&w), 0);
	pf_attr(&s.attr, PERF_SAMPLE_TID | PERF_SAMPLE_IP);
	ASSERT_EQ(sampler_open_on(&s, w.pid, -1, -1, RB_PAGES), 0);
	sampler_on(&s);
	ASSERT_EQ(worker_do(&w, W_TOUCH, 16), 0);
	ASSERT_GE(sampler_off(&s), 0);
	n = samples_of(&s, ss, MAX_SAMPLES);
	ASSERT_GE(n, 16);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(ss[i].pid, w.pid);
		EXPECT_EQ(ss[i].tid, w.pid);
		EXPECT_TRUE(is_user_addr(ss[i].ip));
		mine += ss[i].pid == (uint32_t)getpid();
		if (LOOP_FAILED())
			break;
	}
	EXPECT_EQ(mine, 0);
	worker_stop(&w);
	sampler_close(&s);
}

/*
 * A CPU-wide event samples whichever task faults on that CPU: the child's
 * pid and tid, its fault address and a user callchain.
 */
TEST(cpu_wide_samples_of_any_task)
{
	struct sampler s = { .fd = -1 };
	char *p = map_anon(8);
	long psz = page_size();
	struct sample *x;
	int n, i, cnt;
	pid_t pid;

	ASSERT_NE(p, NULL);
	ASSERT_EQ(pin_to_cpu(0), 0);
	pf_attr(&s.attr, PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_ADDR |
		PERF_SAMPLE_CPU | PERF_SAMPLE_CALLCHAIN);
	ASSERT_EQ(sampler_open_on(&s, -1, 0, -1, 64), 0);
	sampler_on(&s);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		for (i = 0; i < 8; i++)
			store_at(p + i * psz + 64);
		_exit(0);
	}
	ASSERT_EQ(reap_child(pid), 0);
	ASSERT_GE(sampler_off(&s), 0);
	n = samples_of(&s, ss, MAX_SAMPLES);
	ASSERT_GE(n, 8);
	for (i = 0; i < 8; i++) {
		x = by_addr(ss, n, (uint64_t)p + i * psz + 64, &cnt);
		ASSERT_NE(x, NULL);
		EXPECT_EQ(cnt, 1);
		EXPECT_EQ(x->pid, pid);
		EXPECT_EQ(x->tid, pid);
		EXPECT_EQ(x->cpu, 0);
		EXPECT_EQ(x->misc, PERF_RECORD_MISC_USER);
		ASSERT_GE(x->chain_nr, 3);
		EXPECT_EQ(x->chain[0], PERF_CONTEXT_USER);
		EXPECT_EQ(x->chain[1], x->ip);
		if (LOOP_FAILED())
			break;
	}
	sampler_close(&s);
}

/*
 * cpu-clock without exclude_kernel: time spent in read() gives KERNEL
 * samples with kernel IPs; misc always matches the IP's half.
 */
TEST(cpu_clock_kernel_and_user_samples)
{
	struct sampler s = { .fd = -1 };
	int n, i, kernel = 0, fd;
	static char buf[1 << 20];
	uint64_t end;

	fd = open("/dev/zero", O_RDONLY);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(read(fd, buf, sizeof(buf)), sizeof(buf));
	sw_sample_attr(&s.attr, PERF_COUNT_SW_CPU_CLOCK, 100000, PERF_SAMPLE_IP);
	s.attr.exclude_kernel = 0;
	ASSERT_EQ(sampler_open(&s, 64), 0);
	sampler_on(&s);
	end = thread_ns() + 50000000;
	while (thread_ns() < end)
		if (read(fd, buf, sizeof(buf)) != sizeof(buf))
			break;
	ASSERT_GE(sampler_off(&s), 0);
	close(fd);
	n = samples_of(&s, ss, MAX_SAMPLES);
	ASSERT_GE(n, 5);
	for (i = 0; i < n; i++) {
		if (ss[i].misc == PERF_RECORD_MISC_KERNEL) {
			EXPECT_TRUE(is_kernel_addr(ss[i].ip));
			kernel++;
		} else {
			EXPECT_EQ(ss[i].misc, PERF_RECORD_MISC_USER);
			EXPECT_TRUE(is_user_addr(ss[i].ip));
		}
		if (LOOP_FAILED())
			break;
	}
	EXPECT_GE(kernel * 2, n);
	sampler_close(&s);
}

/* ---- TIME ---- */

/* The default clock (local_clock) runs close to CLOCK_MONOTONIC. */
TEST(time_default_clock_near_monotonic)
{
	uint64_t ips[16], addrs[16], t0, t1, prev = 0;
	struct sampler s = { .fd = -1 };
	int n, i;

	pf_attr(&s.attr, PERF_SAMPLE_TIME);
	ASSERT_EQ(sampler_open(&s, RB_PAGES), 0);
	t0 = mono_ns();
	n = sample_stores(&s, 16, 0, ips, addrs);
	t1 = mono_ns();
	ASSERT_GE(n, 16);
	for (i = 0; i < n; i++) {
		/* Not the same clock: allow 50 ms either way. */
		EXPECT_GE(ss[i].time + LOCAL_CLOCK_SLACK, t0);
		EXPECT_LE(ss[i].time, t1 + LOCAL_CLOCK_SLACK);
		EXPECT_GE(ss[i].time, prev);
		prev = ss[i].time;
		if (LOOP_FAILED())
			break;
	}
	sampler_close(&s);
}

/* With use_clockid the time is that clock's, between reads around it. */
TEST(time_use_clockid)
{
	static const clockid_t clks[] = {
		CLOCK_MONOTONIC, CLOCK_MONOTONIC_RAW, CLOCK_REALTIME,
		CLOCK_BOOTTIME, CLOCK_TAI,
	};
	uint64_t ips[4], addrs[4], t0, t1;
	unsigned int k;
	int n, i;

	for (k = 0; k < ARRAY_SIZE(clks); k++) {
		struct sampler s = { .fd = -1 };

		pf_attr(&s.attr, PERF_SAMPLE_TIME);
		s.attr.use_clockid = 1;
		s.attr.clockid = clks[k];
		ASSERT_EQ(sampler_open(&s, RB_PAGES), 0);
		t0 = clock_ns(clks[k]);
		n = sample_stores(&s, 4, 0, ips, addrs);
		t1 = clock_ns(clks[k]);
		ASSERT_GE(n, 4);
		for (i = 0; i < n; i++) {
			/* The NMI-safe clock reads may lag by a tick's update. */
			EXPECT_GE(ss[i].time + 1000000, t0)
				TH_LOG("clock %d", clks[k]);
			EXPECT_LE(ss[i].time, t1 + 1000000)
				TH_LOG("clock %d", clks[k]);
			if (LOOP_FAILED())
				break;
		}
		sampler_close(&s);
	}
}

/* Other clock ids are refused. */
TEST(time_bad_clockid)
{
	struct perf_event_attr a;
	int fd;

	pf_attr(&a, PERF_SAMPLE_TIME);
	a.use_clockid = 1;
	a.clockid = CLOCK_PROCESS_CPUTIME_ID;
	fd = sys_perf_event_open(&a, 0, -1, -1, 0);
	EXPECT_EQ(fd, -1);
	EXPECT_EQ(errno, EINVAL);
	a.clockid = 1000;
	fd = sys_perf_event_open(&a, 0, -1, -1, 0);
	EXPECT_EQ(fd, -1);
	EXPECT_EQ(errno, EINVAL);
}

/* ---- ADDR ---- */

/* ADDR of a page fault is the exact faulting address, not the page. */
TEST(addr_is_fault_address)
{
	uint64_t ips[8], addrs[8];
	struct sampler s = { .fd = -1 };
	struct sample *x;
	int n, i, cnt;

	pf_attr(&s.attr, PERF_SAMPLE_IP | PERF_SAMPLE_ADDR);
	ASSERT_EQ(sampler_open(&s, RB_PAGES), 0);
	n = sample_stores(&s, 8, 1234, ips, addrs);
	ASSERT_GE(n, 8);
	for (i = 0; i < 8; i++) {
		x = by_addr(ss, n, addrs[i], &cnt);
		ASSERT_NE(x, NULL);
		EXPECT_EQ(cnt, 1);
		EXPECT_EQ(x->ip, ips[i]);
		EXPECT_EQ(x->size, 24);
		if (LOOP_FAILED())
			break;
	}
	sampler_close(&s);
}

/* Timer samples have no address: ADDR is 0. */
TEST(addr_zero_for_cpu_clock)
{
	struct sampler s = { .fd = -1 };
	int n, i;

	sw_sample_attr(&s.attr, PERF_COUNT_SW_CPU_CLOCK, 200000,
		       PERF_SAMPLE_IP | PERF_SAMPLE_ADDR);
	ASSERT_EQ(sampler_open(&s, RB_PAGES), 0);
	sampler_on(&s);
	busy_for(20000000);
	ASSERT_GE(sampler_off(&s), 0);
	n = samples_of(&s, ss, MAX_SAMPLES);
	ASSERT_GE(n, 1);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(ss[i].addr, 0);
		if (LOOP_FAILED())
			break;
	}
	sampler_close(&s);
}

/* ---- IP ranges of timer samples ---- */

static void check_busy_ips(struct __test_metadata *_metadata, uint64_t config)
{
	struct sampler s = { .fd = -1 };
	int n, i, in = 0;

	sw_sample_attr(&s.attr, config, 200000, PERF_SAMPLE_IP | PERF_SAMPLE_TID);
	ASSERT_EQ(sampler_open(&s, RB_PAGES), 0);
	sampler_on(&s);
	busy_for(50000000);
	ASSERT_GE(sampler_off(&s), 0);
	n = samples_of(&s, ss, MAX_SAMPLES);
	ASSERT_GE(n, 5);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(ss[i].misc, PERF_RECORD_MISC_USER);
		EXPECT_TRUE(is_user_addr(ss[i].ip));
		EXPECT_EQ(ss[i].tid, gettid());
		in += in_busy(ss[i].ip);
		if (LOOP_FAILED())
			break;
	}
	/* Nearly all the time is spent in busy_chunk(). */
	EXPECT_GE(in * 10, n * 7) TH_LOG("%d of %d samples in the loop", in, n);
	sampler_close(&s);
}

TEST(cpu_clock_ip_in_busy_loop)
{
	check_busy_ips(_metadata, PERF_COUNT_SW_CPU_CLOCK);
}

TEST(task_clock_ip_in_busy_loop)
{
	check_busy_ips(_metadata, PERF_COUNT_SW_TASK_CLOCK);
}

/* ---- PERIOD ---- */

TEST(period_of_page_faults_is_one)
{
	uint64_t ips[8], addrs[8];
	struct sampler s = { .fd = -1 };
	int n, i;

	pf_attr(&s.attr, PERF_SAMPLE_PERIOD | PERF_SAMPLE_ADDR);
	ASSERT_EQ(sampler_open(&s, RB_PAGES), 0);
	n = sample_stores(&s, 8, 0, ips, addrs);
	ASSERT_GE(n, 8);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(ss[i].period, 1);
		if (LOOP_FAILED())
			break;
	}
	sampler_close(&s);
}

/*
 * Software events that ask for PERF_SAMPLE_PERIOD (and not freq) sample
 * every occurrence, with period = the occurrence's count, whatever
 * sample_period is; without that bit, one occurrence in sample_period is.
 */
TEST(period_bit_samples_every_software_event)
{
	uint64_t ips[12], addrs[12];
	struct sampler s = { .fd = -1 };
	int n, i, cnt, ours = 0;

	pf_attr(&s.attr, PERF_SAMPLE_PERIOD | PERF_SAMPLE_ADDR);
	s.attr.sample_period = 4;
	ASSERT_EQ(sampler_open(&s, RB_PAGES), 0);
	n = sample_stores(&s, 12, 0, ips, addrs);
	ASSERT_GE(n, 12);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(ss[i].period, 1);
		if (LOOP_FAILED())
			break;
	}
	for (i = 0; i < 12; i++) {
		by_addr(ss, n, addrs[i], &cnt);
		EXPECT_EQ(cnt, 1);
		if (LOOP_FAILED())
			break;
	}
	sampler_close(&s);

	pf_attr(&s.attr, PERF_SAMPLE_ADDR);
	s.attr.sample_period = 4;
	ASSERT_EQ(sampler_open(&s, RB_PAGES), 0);
	n = sample_stores(&s, 12, 0, ips, addrs);
	for (i = 0; i < 12; i++) {
		by_addr(ss, n, addrs[i], &cnt);
		ours += cnt;
	}
	/* 12 faults (and maybe a few others): one sample every 4 faults. */
	EXPECT_GE(ours, 2);
	EXPECT_LE(ours, 3);
	EXPECT_LE(n, 4);
	sampler_close(&s);
}

/* cpu-clock and task-clock report their period in ns. */
TEST(period_of_clock_events)
{
	static const uint64_t cfg[] = {
		PERF_COUNT_SW_CPU_CLOCK, PERF_COUNT_SW_TASK_CLOCK,
	};
	unsigned int k;
	int n, i;

	for (k = 0; k < 2; k++) {
		struct sampler s = { .fd = -1 };

		sw_sample_attr(&s.attr, cfg[k], 300000, PERF_SAMPLE_PERIOD);
		ASSERT_EQ(sampler_open(&s, RB_PAGES), 0);
		sampler_on(&s);
		busy_for(20000000);
		ASSERT_GE(sampler_off(&s), 0);
		n = samples_of(&s, ss, MAX_SAMPLES);
		ASSERT_GE(n, 1);
		for (i = 0; i < n; i++) {
			EXPECT_EQ(ss[i].period, 300000);
			if (LOOP_FAILED())
				break;
		}
		sampler_close(&s);
	}
}

/* In frequency mode the clock events use a fixed period of 1e9 / freq. */
TEST(period_of_clock_events_in_freq_mode)
{
	struct sampler s = { .fd = -1 };
	long rate;
	int n, i;

	ASSERT_EQ(read_sysctl("perf_event_max_sample_rate", &rate), 0);
	if (rate < 1000)
		SKIP(return, "perf_event_max_sample_rate is %ld", rate);
	sw_sample_attr(&s.attr, PERF_COUNT_SW_TASK_CLOCK, 0, PERF_SAMPLE_PERIOD);
	s.attr.freq = 1;
	s.attr.sample_freq = 1000;
	ASSERT_EQ(sampler_open(&s, RB_PAGES), 0);
	sampler_on(&s);
	busy_for(30000000);
	ASSERT_GE(sampler_off(&s), 0);
	n = samples_of(&s, ss, MAX_SAMPLES);
	ASSERT_GE(n, 1);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(ss[i].period, 1000000);
		if (LOOP_FAILED())
			break;
	}
	sampler_close(&s);
}

/* ---- ID, STREAM_ID, IDENTIFIER, CPU ---- */

/* IDENTIFIER comes first; it, ID and STREAM_ID are the event's ID. */
TEST(id_stream_id_identifier)
{
	uint64_t ips[4], addrs[4], id;
	struct sampler s = { .fd = -1 };
	int n, i;

	pf_attr(&s.attr, PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
		PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID);
	ASSERT_EQ(sampler_open(&s, RB_PAGES), 0);
	id = event_id(s.fd);
	ASSERT_NE(id, 0);
	n = sample_stores(&s, 4, 0, ips, addrs);
	ASSERT_GE(n, 4);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(ss[i].identifier, id);
		EXPECT_EQ(ss[i].id, id);
		EXPECT_EQ(ss[i].stream_id, id);
		EXPECT_EQ(ss[i].size, 8 + 4 * 8);
		if (LOOP_FAILED())
			break;
	}
	/* The first u64 after the header is the ID. */
	rb_rewind(&s.rb);
	{
		struct perf_event_header *h = rb_find(&s.rb, PERF_RECORD_SAMPLE, 0);
		uint64_t first;

		ASSERT_NE(h, NULL);
		memcpy(&first, h + 1, 8);
		EXPECT_EQ(first, id);
	}
	sampler_close(&s);
}

/* Samples of an inherited event: ID is the parent's, STREAM_ID the child's. */
TEST(stream_id_of_inherited_event)
{
	struct sampler s = { .fd = -1 };
	uint64_t id, child_stream = 0;
	int n, i, child = 0, parent = 0;
	pid_t pid;

	pf_attr(&s.attr, PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID |
		PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID);
	ASSERT_EQ(sampler_open_inherited(&s, 64), 0);
	id = event_id(s.fd);
	sampler_on(&s);
	touch_pages(2);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		touch_pages(8);
		_exit(0);
	}
	ASSERT_EQ(reap_child(pid), 0);
	ASSERT_GE(sampler_off(&s), 0);
	n = samples_of(&s, ss, MAX_SAMPLES);
	ASSERT_GE(n, 10);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(ss[i].id, id);
		EXPECT_EQ(ss[i].identifier, id);
		if (ss[i].pid == (uint32_t)pid) {
			if (!child_stream)
				child_stream = ss[i].stream_id;
			EXPECT_EQ(ss[i].stream_id, child_stream);
			EXPECT_NE(ss[i].stream_id, id);
			child++;
		} else {
			EXPECT_EQ(ss[i].pid, getpid());
			EXPECT_EQ(ss[i].stream_id, id);
			parent++;
		}
		if (LOOP_FAILED())
			break;
	}
	EXPECT_GE(child, 8);
	EXPECT_GE(parent, 2);
	sampler_close(&s);
}

/* CPU is the CPU the fault was taken on, and the reserved half is 0. */
TEST(cpu_of_sample)
{
	int cpus[2] = { 0, nr_cpus() - 1 };
	uint64_t ips[2], addrs[2];
	int k, n, i;

	for (k = 0; k < 2; k++) {
		struct sampler s = { .fd = -1 };

		ASSERT_EQ(pin_to_cpu(cpus[k]), 0);
		pf_attr(&s.attr, PERF_SAMPLE_CPU | PERF_SAMPLE_ADDR);
		ASSERT_EQ(sampler_open(&s, RB_PAGES), 0);
		n = sample_stores(&s, 2, 0, ips, addrs);
		ASSERT_GE(n, 2);
		for (i = 0; i < n; i++) {
			EXPECT_EQ(ss[i].cpu, cpus[k]);
			EXPECT_EQ(ss[i].cpu_res, 0);
			if (LOOP_FAILED())
				break;
		}
		sampler_close(&s);
	}
}

/* ---- READ ---- */

/*
 * READ without GROUP: {value, enabled, running, id, lost}; with period 1
 * the value counts the samples: 1, 2, 3, ...
 */
TEST(read_single_in_samples)
{
	uint64_t ips[8], addrs[8], id, prev_en = 0;
	struct sampler s = { .fd = -1 };
	int n, i;

	pf_attr(&s.attr, PERF_SAMPLE_READ | PERF_SAMPLE_ADDR);
	s.attr.read_format = F_EN | F_RUN | F_ID | F_LOST;
	ASSERT_EQ(sampler_open(&s, RB_PAGES), 0);
	id = event_id(s.fd);
	n = sample_stores(&s, 8, 0, ips, addrs);
	ASSERT_GE(n, 8);
	for (i = 0; i < n; i++) {
		const uint64_t *r = ss[i].read;

		ASSERT_EQ(ss[i].read_n, 5);
		EXPECT_EQ(ss[i].size, 8 + 8 + 40);
		EXPECT_EQ(r[0], (uint64_t)i + 1);
		EXPECT_GT(r[1], 0);
		EXPECT_EQ(r[2], r[1]);
		EXPECT_GE(r[1], prev_en);
		EXPECT_EQ(r[3], id);
		EXPECT_EQ(r[4], 0);
		prev_en = r[1];
		if (LOOP_FAILED())
			break;
	}
	sampler_close(&s);
}

/*
 * READ with GROUP: {nr, enabled, running, {value, id, lost} per member}, the
 * leader first; the siblings' counts are read at the sample.
 */
TEST(read_group_in_samples)
{
	uint64_t ips[8], addrs[8], fmt = F_GRP | F_EN | F_RUN | F_ID | F_LOST;
	uint64_t id0, id1, id2, prev_clock = 0;
	struct sampler s = { .fd = -1 };
	int n, i, f1, f2;

	pf_attr(&s.attr, PERF_SAMPLE_READ | PERF_SAMPLE_ADDR);
	s.attr.read_format = fmt;
	ASSERT_EQ(sampler_open(&s, 0), 0);
	f1 = open_fmt(PERF_COUNT_SW_TASK_CLOCK, fmt, s.fd, 0);
	ASSERT_GE(f1, 0);
	f2 = open_fmt(PERF_COUNT_SW_DUMMY, fmt, s.fd, 0);
	ASSERT_GE(f2, 0);
	ASSERT_EQ(rb_map(&s.rb, s.fd, RB_PAGES), 0);
	id0 = event_id(s.fd);
	id1 = event_id(f1);
	id2 = event_id(f2);
	n = sample_stores(&s, 8, 0, ips, addrs);
	ASSERT_GE(n, 8);
	for (i = 0; i < n; i++) {
		const uint64_t *r = ss[i].read;

		ASSERT_EQ(ss[i].read_n, 3 + 3 * 3);
		EXPECT_EQ(ss[i].size, 8 + 8 + 8 * 12);
		EXPECT_EQ(r[0], 3);
		EXPECT_GT(r[1], 0);
		EXPECT_EQ(r[2], r[1]);
		EXPECT_EQ(r[3], (uint64_t)i + 1);
		EXPECT_EQ(r[4], id0);
		EXPECT_EQ(r[5], 0);
		EXPECT_GE(r[6], prev_clock);
		EXPECT_EQ(r[7], id1);
		EXPECT_EQ(r[8], 0);
		EXPECT_EQ(r[9], 0);
		EXPECT_EQ(r[10], id2);
		EXPECT_EQ(r[11], 0);
		prev_clock = r[6];
		if (LOOP_FAILED())
			break;
	}
	EXPECT_GT(prev_clock, 0);
	close(f1);
	close(f2);
	sampler_close(&s);
}

/* An inherited event may only sample READ together with TID. */
TEST(read_inherit_needs_tid)
{
	struct perf_event_attr a;
	int fd;

	pf_attr(&a, PERF_SAMPLE_READ);
	a.inherit = 1;
	fd = sys_perf_event_open(&a, 0, -1, -1, 0);
	EXPECT_EQ(fd, -1);
	EXPECT_EQ(errno, EINVAL);
	a.sample_type |= PERF_SAMPLE_TID;
	fd = sys_perf_event_open(&a, 0, -1, -1, 0);
	EXPECT_GE(fd, 0);
	close(fd);
	/* Even a counting (non-sampling) event is refused. */
	a.sample_type = PERF_SAMPLE_READ;
	a.sample_period = 0;
	fd = sys_perf_event_open(&a, 0, -1, -1, 0);
	EXPECT_EQ(fd, -1);
	EXPECT_EQ(errno, EINVAL);
}

/* With inherit, READ values are per thread: the child counts from 1. */
TEST(read_inherit_counts_per_thread)
{
	struct sampler s = { .fd = -1 };
	uint64_t next_parent = 1, next_child = 1;
	int n, i, child = 0;
	pid_t pid;

	pf_attr(&s.attr, PERF_SAMPLE_READ | PERF_SAMPLE_TID);
	ASSERT_EQ(sampler_open_inherited(&s, 64), 0);
	sampler_on(&s);
	touch_pages(3);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		touch_pages(8);
		_exit(0);
	}
	ASSERT_EQ(reap_child(pid), 0);
	touch_pages(3);
	ASSERT_GE(sampler_off(&s), 0);
	n = samples_of(&s, ss, MAX_SAMPLES);
	ASSERT_GE(n, 14);
	for (i = 0; i < n; i++) {
		ASSERT_EQ(ss[i].read_n, 1);
		if (ss[i].pid == (uint32_t)pid) {
			EXPECT_EQ(ss[i].read[0], next_child);
			next_child++;
			child++;
		} else {
			EXPECT_EQ(ss[i].read[0], next_parent);
			next_parent++;
		}
		if (LOOP_FAILED())
			break;
	}
	EXPECT_GE(child, 8);
	sampler_close(&s);
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

/* ---- RAW, BRANCH_STACK ---- */

/* Software events have no raw data: {u32 size = 4, u32 0}. */
TEST(raw_is_empty_on_software_events)
{
	uint64_t ips[2], addrs[2];
	struct sampler s = { .fd = -1 };
	int n, i;

	pf_attr(&s.attr, PERF_SAMPLE_IP | PERF_SAMPLE_RAW);
	ASSERT_EQ(sampler_open(&s, RB_PAGES), 0);
	n = sample_stores(&s, 2, 0, ips, addrs);
	ASSERT_GE(n, 2);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(ss[i].size, 8 + 8 + 8);
		EXPECT_EQ(ss[i].raw_size, 4);
		EXPECT_EQ(*(uint32_t *)ss[i].raw, 0);
		if (LOOP_FAILED())
			break;
	}
	sampler_close(&s);
}

/* Software events cannot sample branch stacks: EOPNOTSUPP at open. */
TEST(branch_stack_not_supported)
{
	static const uint64_t cfg[] = {
		PERF_COUNT_SW_PAGE_FAULTS, PERF_COUNT_SW_CPU_CLOCK,
		PERF_COUNT_SW_TASK_CLOCK, PERF_COUNT_SW_CONTEXT_SWITCHES,
		PERF_COUNT_SW_DUMMY,
	};
	struct perf_event_attr a;
	unsigned int k;
	int fd;

	for (k = 0; k < ARRAY_SIZE(cfg); k++) {
		sw_sample_attr(&a, cfg[k], 1000000, PERF_SAMPLE_BRANCH_STACK);
		a.branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER;
		fd = sys_perf_event_open(&a, 0, -1, -1, 0);
		EXPECT_EQ(fd, -1);
		EXPECT_EQ(errno, EOPNOTSUPP) TH_LOG("config %llu",
						    (unsigned long long)cfg[k]);
	}
	/* The branch_sample_type checks come first: EINVAL. */
	pf_attr(&a, PERF_SAMPLE_BRANCH_STACK);
	a.branch_sample_type = 0;
	EXPECT_EQ(sys_perf_event_open(&a, 0, -1, -1, 0), -1);
	EXPECT_EQ(errno, EINVAL);
	a.branch_sample_type = PERF_SAMPLE_BRANCH_USER;
	EXPECT_EQ(sys_perf_event_open(&a, 0, -1, -1, 0), -1);
	EXPECT_EQ(errno, EINVAL);
	a.branch_sample_type = PERF_SAMPLE_BRANCH_ANY | (1ULL << 40);
	EXPECT_EQ(sys_perf_event_open(&a, 0, -1, -1, 0), -1);
	EXPECT_EQ(errno, EINVAL);
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

/* ---- WEIGHT, DATA_SRC, TRANSACTION ---- */

/* Software events leave WEIGHT(_STRUCT) and TRANSACTION 0, DATA_SRC "NA". */
TEST(weight_data_src_transaction)
{
	uint64_t ips[2], addrs[2];
	uint64_t wt[2] = { PERF_SAMPLE_WEIGHT, PERF_SAMPLE_WEIGHT_STRUCT };
	struct perf_event_attr a;
	int n, i, k;

	for (k = 0; k < 2; k++) {
		struct sampler s = { .fd = -1 };

		pf_attr(&s.attr, wt[k] | PERF_SAMPLE_DATA_SRC |
			PERF_SAMPLE_TRANSACTION);
		ASSERT_EQ(sampler_open(&s, RB_PAGES), 0);
		n = sample_stores(&s, 2, 0, ips, addrs);
		ASSERT_GE(n, 2);
		for (i = 0; i < n; i++) {
			EXPECT_EQ(ss[i].size, 8 + 24);
			EXPECT_EQ(ss[i].weight, 0);
			EXPECT_EQ(ss[i].data_src, MEM_NA);
			EXPECT_EQ(ss[i].txn, 0);
			if (LOOP_FAILED())
				break;
		}
		sampler_close(&s);
	}
	/* Both weights at once are refused. */
	pf_attr(&a, PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT);
	EXPECT_EQ(sys_perf_event_open(&a, 0, -1, -1, 0), -1);
	EXPECT_EQ(errno, EINVAL);
}

/* ---- PHYS_ADDR ---- */

static int open_phys_fn(void *arg)
{
	struct perf_event_attr a;
	int fd;

	pf_attr(&a, PERF_SAMPLE_PHYS_ADDR);
	fd = sys_perf_event_open(&a, 0, -1, -1, 0);
	if (fd >= 0)
		return 0;
	return errno == EACCES ? 1 : 2;
}

static int open_ip_fn(void *arg)
{
	struct perf_event_attr a;
	int fd;

	pf_attr(&a, PERF_SAMPLE_IP | PERF_SAMPLE_ADDR);
	fd = sys_perf_event_open(&a, 0, -1, -1, 0);
	return fd >= 0 ? 0 : 2;
}

/* PHYS_ADDR needs the right to see kernel data (paranoid > 1: EACCES). */
TEST(phys_addr_needs_privilege)
{
	long paranoid;

	ASSERT_EQ(read_sysctl("perf_event_paranoid", &paranoid), 0);
	if (paranoid < 2)
		SKIP(return, "perf_event_paranoid is %ld", paranoid);
	EXPECT_EQ(run_unprivileged(open_ip_fn, NULL), 0);
	EXPECT_EQ(run_unprivileged(open_phys_fn, NULL), 1);
	EXPECT_EQ(run_with_caps(1ULL << CAP_PERFMON, open_phys_fn, NULL), 0);
}

/*
 * PHYS_ADDR is looked up when the fault is taken: 0 for a page not yet
 * mapped, the old page's address plus the offset for a copy-on-write fault.
 */
TEST(phys_addr_values)
{
	struct sampler s = { .fd = -1 };
	char *fresh = map_anon(1), *cow = cow_page();
	uint64_t phys;
	struct sample *x;
	int n, cnt;

	ASSERT_NE(fresh, NULL);
	ASSERT_NE(cow, NULL);
	phys = phys_of(cow);
	ASSERT_NE(phys, 0);
	pf_attr(&s.attr, PERF_SAMPLE_ADDR | PERF_SAMPLE_PHYS_ADDR);
	ASSERT_EQ(sampler_open(&s, RB_PAGES), 0);
	sampler_on(&s);
	store_at(fresh + 16);
	store_at(cow + 40);
	ASSERT_GE(sampler_off(&s), 0);
	n = samples_of(&s, ss, MAX_SAMPLES);
	x = by_addr(ss, n, (uint64_t)fresh + 16, &cnt);
	ASSERT_NE(x, NULL);
	EXPECT_EQ(x->phys, 0);
	x = by_addr(ss, n, (uint64_t)cow + 40, &cnt);
	ASSERT_NE(x, NULL);
	EXPECT_EQ(x->phys, phys + 40);
	EXPECT_EQ(x->size, 8 + 16);
	sampler_close(&s);
}

/* ---- DATA_PAGE_SIZE, CODE_PAGE_SIZE ---- */

/*
 * Page sizes are looked up in the page tables when the fault is taken:
 * the code page is a 4 KiB page, the data page of a fresh fault is not
 * mapped yet (0), that of a copy-on-write fault is 4 KiB.
 */
TEST(page_sizes)
{
	struct sampler s = { .fd = -1 };
	char *fresh = map_anon(1), *cow = cow_page();
	struct sample *x;
	int n, cnt;

	ASSERT_NE(fresh, NULL);
	ASSERT_NE(cow, NULL);
	pf_attr(&s.attr, PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_PAGE_SIZE |
		PERF_SAMPLE_CODE_PAGE_SIZE);
	ASSERT_EQ(sampler_open(&s, RB_PAGES), 0);
	sampler_on(&s);
	store_at(fresh);
	store_at(cow);
	ASSERT_GE(sampler_off(&s), 0);
	n = samples_of(&s, ss, MAX_SAMPLES);
	x = by_addr(ss, n, (uint64_t)fresh, &cnt);
	ASSERT_NE(x, NULL);
	EXPECT_EQ(x->size, 8 + 24);
	EXPECT_EQ(x->data_psz, 0);
	EXPECT_EQ(x->code_psz, 4096);
	x = by_addr(ss, n, (uint64_t)cow, &cnt);
	ASSERT_NE(x, NULL);
	EXPECT_EQ(x->data_psz, 4096);
	EXPECT_EQ(x->code_psz, 4096);
	sampler_close(&s);
}

/* Timer samples: no data address (0), a 4 KiB user code page. */
TEST(page_sizes_of_timer_samples)
{
	struct sampler s = { .fd = -1 };
	int n, i;

	sw_sample_attr(&s.attr, PERF_COUNT_SW_TASK_CLOCK, 200000,
		       PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_CODE_PAGE_SIZE);
	ASSERT_EQ(sampler_open(&s, RB_PAGES), 0);
	sampler_on(&s);
	busy_for(20000000);
	ASSERT_GE(sampler_off(&s), 0);
	n = samples_of(&s, ss, MAX_SAMPLES);
	ASSERT_GE(n, 1);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(ss[i].data_psz, 0);
		EXPECT_EQ(ss[i].code_psz, 4096);
		if (LOOP_FAILED())
			break;
	}
	sampler_close(&s);
}

/* ---- AUX, CGROUP ---- */

/*
 * PERF_SAMPLE_AUX without an AUX event to take data from: an aux size of
 * 0; aux_sample_size without an AUX group leader is refused.
 */
TEST(aux_without_aux_event)
{
	uint64_t ips[2], addrs[2];
	struct sampler s = { .fd = -1 };
	struct perf_event_attr a;
	int n, i;

	pf_attr(&s.attr, PERF_SAMPLE_IP | PERF_SAMPLE_AUX);
	ASSERT_EQ(sampler_open(&s, RB_PAGES), 0);
	n = sample_stores(&s, 2, 0, ips, addrs);
	ASSERT_GE(n, 2);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(ss[i].size, 8 + 16);
		EXPECT_EQ(ss[i].aux_size, 0);
		if (LOOP_FAILED())
			break;
	}
	sampler_close(&s);

	pf_attr(&a, PERF_SAMPLE_IP | PERF_SAMPLE_AUX);
	a.aux_sample_size = 4096;
	EXPECT_EQ(sys_perf_event_open(&a, 0, -1, -1, 0), -1);
	EXPECT_EQ(errno, EINVAL);
}

/* PERF_SAMPLE_CGROUP needs CONFIG_CGROUP_PERF, which this config lacks. */
TEST(cgroup_sample_refused)
{
	struct perf_event_attr a;
	int fd;

	pf_attr(&a, PERF_SAMPLE_IP | PERF_SAMPLE_CGROUP);
	fd = sys_perf_event_open(&a, 0, -1, -1, 0);
	if (fd >= 0) {
		close(fd);
		SKIP(return, "PERF_SAMPLE_CGROUP accepted: CONFIG_CGROUP_PERF");
	}
	EXPECT_EQ(errno, EINVAL);
}

/* Bits beyond the last sample type are refused. */
TEST(unknown_sample_type_bits)
{
	struct perf_event_attr a;
	int bit;

	for (bit = 25; bit < 64; bit += 13) {
		pf_attr(&a, PERF_SAMPLE_IP | (1ULL << bit));
		EXPECT_EQ(sys_perf_event_open(&a, 0, -1, -1, 0), -1);
		EXPECT_EQ(errno, EINVAL) TH_LOG("bit %d", bit);
	}
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
