/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the sample tests (samples, samples_stack) share: stores to fresh
 * pages by a known instruction, page-fault and software samplers with
 * their ring buffer, and the decoding of PERF_RECORD_SAMPLE.
 *
 * Sample layout, in this order (each present only if its bit is set):
 *   IDENTIFIER, IP, {pid,tid}, TIME, ADDR, ID, STREAM_ID, {cpu,res},
 *   PERIOD, READ, CALLCHAIN {nr, ips}, RAW {u32 size, data}, BRANCH_STACK,
 *   REGS_USER {abi, regs}, STACK_USER {size, data, dyn_size},
 *   WEIGHT, DATA_SRC, TRANSACTION, REGS_INTR {abi, regs}, PHYS_ADDR,
 *   CGROUP, DATA_PAGE_SIZE, CODE_PAGE_SIZE, AUX {size, data}
 */
#ifndef SAMPLES_UTIL_H
#define SAMPLES_UTIL_H

#include "perf_util.h"
#include "perf_rb.h"

/* In loops over samples: stop at the first failed expectation. */
#define LOOP_FAILED()	(_metadata->exit_code == KSFT_FAIL)
#define MAX_SAMPLES	4096
#define RB_PAGES	16

#define is_kernel_addr(a)	((uint64_t)(a) >= 0xffff800000000000ULL)
#define is_user_addr(a)		((uint64_t)(a) < 0x0000800000000000ULL)
#define is_context(a)		((uint64_t)(a) >= (uint64_t)PERF_CONTEXT_MAX)

/* The DATA_SRC value of samples that carry no memory information. */
#define MEM_NA	(PERF_MEM_S(OP, NA) | PERF_MEM_S(LVL, NA) | \
		 PERF_MEM_S(SNOOP, NA) | PERF_MEM_S(LOCK, NA) | \
		 PERF_MEM_S(TLB, NA) | PERF_MEM_S(LVLNUM, NA))

/* ---- workloads with known instruction addresses ---- */

/*
 * Return addresses recorded by store_at() and by the chain_*() functions
 * of samples_stack.c, for callchains.
 */
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

/* Read one byte of /dev/zero into @p: a page fault taken in the kernel. */
static inline int kernel_store(char *p)
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
static inline void pf_attr(struct perf_event_attr *a, uint64_t sample_type)
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
static inline void sw_sample_attr(struct perf_event_attr *a, uint64_t config,
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
static inline int sampler_open_on(struct sampler *s, pid_t pid, int cpu,
				  int group, int pages)
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

static inline int sampler_open(struct sampler *s, int pages)
{
	return sampler_open_on(s, 0, -1, -1, pages);
}

static inline void sampler_close(struct sampler *s)
{
	if (s->fd >= 0)
		close(s->fd);
	if (s->noswap_fd > 0)
		close(s->noswap_fd);
	s->noswap_fd = 0;
	rb_unmap(&s->rb);
	s->fd = -1;
}

static inline void sampler_on(struct sampler *s)
{
	ioctl(s->fd, PERF_EVENT_IOC_ENABLE, 0);
}

/* Disable and fetch every record; returns the bytes fetched or -1. */
static inline long sampler_off(struct sampler *s)
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
static inline int read_words(uint64_t fmt, uint64_t nr)
{
	int entry = 1 + !!(fmt & F_ID) + !!(fmt & F_LOST);
	int n = !!(fmt & F_EN) + !!(fmt & F_RUN);

	return fmt & F_GRP ? n + 1 + (int)nr * entry : n + entry;
}

/*
 * Decode sample @h of an event with attr @a.  Returns 0 if the fields that
 * @a asks for fill the record exactly, -1 otherwise.
 */
static inline int parse_sample(const struct perf_event_header *h,
			       const struct perf_event_attr *a,
			       struct sample *s)
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
static inline int samples_of(struct sampler *s, struct sample *out, int max)
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
static inline struct sample *by_addr(struct sample *ss, int n, uint64_t addr,
				     int *cnt)
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

/*
 * Spin until CLOCK_MONOTONIC has moved @ns.  Event times come from the
 * kernel's local_clock(): where the TSC is marked unstable (a guest of two
 * AMD packages without constant_tsc is one), that clock is held within a
 * tick of the last tick's time and may stand still between two ticks, so
 * that a few page faults can see no time pass at all.  Time enough for
 * several ticks moves it.
 */
static inline void let_time_pass(uint64_t ns)
{
	uint64_t end = mono_ns() + ns;

	while (mono_ns() < end)
		;
}

/* Space for decoded samples, shared by the tests (one test per process). */
static struct sample ss[MAX_SAMPLES];

/*
 * Sample @npages stores (store_at()) at @off into fresh pages with the
 * page-fault sampler @s (already opened); @ips gets each store's IP and
 * @addrs each address.  With @gap_ns, CLOCK_MONOTONIC moves that far
 * before the last store: see let_time_pass().  Returns the number of
 * samples decoded, or -1.
 */
static inline int sample_stores_gap(struct sampler *s, int npages, int off,
				    uint64_t *ips, uint64_t *addrs,
				    uint64_t gap_ns)
{
	char *p = map_anon(npages);
	long psz = page_size();
	int i, n;

	if (!p)
		return -1;
	sampler_on(s);
	for (i = 0; i < npages; i++) {
		if (gap_ns && i == npages - 1)
			let_time_pass(gap_ns);
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

static inline int sample_stores(struct sampler *s, int npages, int off,
				uint64_t *ips, uint64_t *addrs)
{
	return sample_stores_gap(s, npages, off, ips, addrs, 0);
}

#endif /* SAMPLES_UTIL_H */
