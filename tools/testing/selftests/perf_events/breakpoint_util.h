/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the hardware breakpoint tests (breakpoint, breakpoint_slots)
 * share: the watched variables and the code that touches them, opening
 * breakpoints, a child process that touches the variables on request,
 * decoding breakpoint samples, and catching SIGTRAP.
 *
 * Counts are exact: every access to a watched variable is made by a known
 * instruction of the test program.  The variables live in cache lines of
 * their own, so that nothing else the program does touches them.
 */
#ifndef BREAKPOINT_UTIL_H
#define BREAKPOINT_UTIL_H

#include <linux/hw_breakpoint.h>
#include "perf_util.h"
#include "perf_rb.h"

#define BP_TEXT		__section("bp_text")

/* The bounds of that section, from the linker. */
extern char __start_bp_text[], __stop_bp_text[];

#define NSLOTS		4		/* DR0..DR3 */
#define RB_PAGES	8
#define MSEC		1000000ULL

/* The start of the direct map and the first byte of the CPU entry area. */
#define KERNEL_ADDR	0xffff888000000000ULL
#define CEA_ADDR	0xfffffe0000000000ULL

/* Sample type of the sampling tests: IP, {pid, tid}, ADDR, PERIOD. */
#define ST_BP		(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_ADDR | \
			 PERF_SAMPLE_PERIOD)

/* ---- watched variables and the code that touches them ---- */

struct watched {
	volatile uint64_t v;
	char pad[56];
};

static struct watched vars[8] __attribute__((aligned(64)));

#define VAR(i)		(&vars[i].v)
#define QUIET		VAR(7)		/* never watched */
#define ADDR(p)		((uint64_t)(unsigned long)(p))

/* Store @v to *@p; returns the address of the instruction after the store. */
static noinline BP_TEXT uint64_t store64(volatile uint64_t *p, uint64_t v)
{
	uint64_t ip;

	asm volatile("movq %2, (%1)\n"
		     "1:\tlea 1b(%%rip), %0"
		     : "=&r"(ip) : "r"(p), "r"(v) : "memory");
	return ip;
}

/* Load *@p; returns the address of the instruction after the load. */
static noinline BP_TEXT uint64_t load64(volatile uint64_t *p)
{
	uint64_t ip, v;

	asm volatile("movq (%2), %1\n"
		     "1:\tlea 1b(%%rip), %0"
		     : "=&r"(ip), "=&r"(v) : "r"(p) : "memory");
	return ip;
}

/* Store one byte at @p; returns the address of the next instruction. */
static noinline BP_TEXT uint64_t store8(volatile void *p)
{
	uint64_t ip;

	asm volatile("movb $1, (%1)\n"
		     "1:\tlea 1b(%%rip), %0"
		     : "=&r"(ip) : "r"(p) : "memory");
	return ip;
}

/* The function that instruction breakpoints watch. */
static noinline BP_TEXT int bp_func(int x)
{
	asm volatile("" : "+r"(x));
	return x * 3 + 1;
}

/* A second one, for moving an instruction breakpoint. */
static noinline BP_TEXT int bp_func2(int x)
{
	asm volatile("" : "+r"(x));
	return x * 5 + 2;
}

static int (*volatile func_ptr)(int) = bp_func;
static int (*volatile func2_ptr)(int) = bp_func2;

/*
 * The emulated CPU the tests run on (QEMU TCG) keeps a data breakpoint's
 * hit flag set after the access that hit it, and reports it again in DR6
 * when another debug register triggers, until an access to the same page
 * misses it.  Every run of accesses to a watched variable therefore ends
 * with a store to QUIET, so that each hit is reported once, as on real
 * hardware.
 */
static inline void quiet(void)
{
	store64(QUIET, 0);
}

static inline void write_n(volatile uint64_t *p, int n)
{
	int i;

	for (i = 0; i < n; i++)
		store64(p, i);
	quiet();
}

static inline void read_n(volatile uint64_t *p, int n)
{
	int i;

	for (i = 0; i < n; i++)
		load64(p);
	quiet();
}

static inline void call_n(int (*volatile *fp)(int), int n)
{
	int i;

	quiet();
	for (i = 0; i < n; i++)
		(*fp)(i);
}

/* ---- opening breakpoints ---- */

/* A counting breakpoint attr, enabled at open. */
static inline void bp_attr(struct perf_event_attr *a, uint32_t type,
			   uint64_t addr, uint64_t len)
{
	memset(a, 0, sizeof(*a));
	a->type = PERF_TYPE_BREAKPOINT;
	a->size = sizeof(*a);
	a->bp_type = type;
	a->bp_addr = addr;
	a->bp_len = len;
}

/* Open @a on @pid/@cpu; returns the fd or -errno. */
static inline int open_attr(struct perf_event_attr *a, pid_t pid, int cpu,
			    int group)
{
	int fd = sys_perf_event_open(a, pid, cpu, group, 0);

	return fd < 0 ? -errno : fd;
}

/* Open a counting breakpoint; returns the fd or -errno. */
static inline int bp_open(uint32_t type, uint64_t addr, uint64_t len, pid_t pid,
			  int cpu)
{
	struct perf_event_attr a;

	bp_attr(&a, type, addr, len);
	return open_attr(&a, pid, cpu, -1);
}

/* A write breakpoint on the 8 bytes of @p, on the calling task. */
static inline int bp_w(volatile uint64_t *p)
{
	return bp_open(HW_BREAKPOINT_W, ADDR(p), HW_BREAKPOINT_LEN_8, 0, -1);
}

/* Close the @n fds of @fds that are open. */
static inline void close_all(int *fds, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

/* ---- a child process that touches the variables on request ---- */

enum { K_WRITE = 1, K_READ, K_CALL, K_PIN };

struct kcmd {
	int op;
	int idx;
	int n;
};

struct kid {
	pid_t pid;
	int cmd;
	int ack;
};

/* Fork a child that serves kid_do() until kid_stop(); 0 or -1. */
static inline int kid_start(struct kid *k)
{
	int c[2], a[2];
	struct kcmd m;
	char ok;

	if (pipe(c) || pipe(a))
		return -1;
	k->pid = fork();
	if (k->pid < 0)
		return -1;
	if (k->pid == 0) {
		close(c[1]);
		close(a[0]);
		while (read(c[0], &m, sizeof(m)) == sizeof(m)) {
			ok = 0;
			switch (m.op) {
			case K_WRITE:
				write_n(VAR(m.idx), m.n);
				break;
			case K_READ:
				read_n(VAR(m.idx), m.n);
				break;
			case K_CALL:
				call_n(m.idx ? &func2_ptr : &func_ptr, m.n);
				break;
			case K_PIN:
				ok = pin_to_cpu(m.n) || sched_getcpu() != m.n;
				break;
			}
			if (write(a[1], &ok, 1) != 1)
				break;
		}
		_exit(0);
	}
	close(c[0]);
	close(a[1]);
	k->cmd = c[1];
	k->ack = a[0];
	return 0;
}

/* Have the child run @op on variable @idx @n times; 0 when it did. */
static inline int kid_do(struct kid *k, int op, int idx, int n)
{
	struct kcmd m = { .op = op, .idx = idx, .n = n };
	char ok = 1;

	if (write(k->cmd, &m, sizeof(m)) != sizeof(m) ||
	    read(k->ack, &ok, 1) != 1)
		return -1;
	return ok;
}

/* Let the child exit and reap it; returns its exit status or -1. */
static inline int kid_stop(struct kid *k)
{
	close(k->cmd);
	close(k->ack);
	return reap_child(k->pid);
}

/* ---- decoding samples ---- */

/* The fields of a sample of type ST_BP. */
struct bp_sample {
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t addr;
	uint64_t period;
	uint16_t misc;
};

#define MAX_SAMPLES	256

/*
 * Decode up to @max samples of @rb, of sample_type ST_BP, or ST_BP without
 * PERIOD if @period is 0; returns how many, or -1 if they are malformed.
 */
static inline int get_samples_st(struct perf_rb *rb, int period,
				 struct bp_sample *s, int max)
{
	struct perf_event_header *h;
	struct rec_cur c;
	int n = 0;

	if (rb_fetch(rb) < 0)
		return -1;
	rb_rewind(rb);
	while ((h = rb_next(rb))) {
		if (h->type != PERF_RECORD_SAMPLE)
			continue;
		if (n == max)
			return -1;
		c = rc_init(h);
		s[n].misc = h->misc;
		s[n].ip = rc_u64(&c);
		s[n].pid = rc_u32(&c);
		s[n].tid = rc_u32(&c);
		s[n].addr = rc_u64(&c);
		s[n].period = period ? rc_u64(&c) : 0;
		if (!rc_ok(&c) || rc_left(&c))
			return -1;
		n++;
	}
	return n;
}

static inline int get_samples(struct perf_rb *rb, struct bp_sample *s, int max)
{
	return get_samples_st(rb, 1, s, max);
}

static struct bp_sample ss[MAX_SAMPLES];

/* ---- catching SIGTRAP ---- */

/* How many SIGTRAPs arrived, and what the last one carried. */
static volatile int trap_count;
static volatile int trap_code;
static volatile uint64_t trap_data, trap_addr;
static volatile uint32_t trap_type;

/* The perf fields that follow si_addr in the kernel's siginfo. */
static inline void on_trap(int sig, siginfo_t *info, void *uc)
{
	const char *f = (const char *)&info->si_addr + sizeof(void *);
	uint64_t data;
	uint32_t type;

	memcpy(&data, f, sizeof(data));
	memcpy(&type, f + sizeof(unsigned long), sizeof(type));
	trap_code = info->si_code;
	trap_addr = ADDR(info->si_addr);
	trap_data = data;
	trap_type = type;
	trap_count++;
}

static inline void trap_attr(struct perf_event_attr *a, uint64_t sig_data)
{
	bp_attr(a, HW_BREAKPOINT_W, ADDR(VAR(0)), 8);
	a->sample_period = 1;
	a->sigtrap = 1;
	a->remove_on_exec = 1;
	a->sig_data = sig_data;
}

static inline void catch_traps(void)
{
	struct sigaction sa = { .sa_sigaction = on_trap, .sa_flags = SA_SIGINFO };

	sigaction(SIGTRAP, &sa, NULL);
	trap_count = 0;
}

#endif /* BREAKPOINT_UTIL_H */
