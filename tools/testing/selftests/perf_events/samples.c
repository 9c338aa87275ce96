// SPDX-License-Identifier: GPL-2.0
/*
 * PERF_RECORD_SAMPLE in the mmap ring buffer: the fields that say where,
 * when and of what a sample was taken (IP, TID, TIME, ADDR, PERIOD, ID,
 * STREAM_ID, IDENTIFIER, CPU, READ), the ones software events leave
 * empty or refuse (RAW, BRANCH_STACK, WEIGHT, DATA_SRC, TRANSACTION, AUX,
 * CGROUP), PHYS_ADDR and the page sizes.
 *
 * Most tests sample page faults with sample_period 1 on stores to fresh
 * anonymous pages made by a known instruction (store_at()), so that each
 * sample's IP and ADDR are known exactly; others sample cpu-clock and
 * task-clock on a busy loop kept in its own section.
 */
#include "../kselftest_harness.h"
#include <pthread.h>
#include "perf_worker.h"
#include "samples_util.h"

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
 * The times in a sample may not move between two page faults (see
 * let_time_pass()); the last store comes this long after the first.
 */
#define TIME_GAP_NS	50000000ULL

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
	n = sample_stores_gap(&s, 8, 0, ips, addrs, TIME_GAP_NS);
	ASSERT_GE(n, 8);
	for (i = 0; i < n; i++) {
		const uint64_t *r = ss[i].read;

		ASSERT_EQ(ss[i].read_n, 5);
		EXPECT_EQ(ss[i].size, 8 + 8 + 40);
		EXPECT_EQ(r[0], (uint64_t)i + 1);
		EXPECT_EQ(r[2], r[1]);
		EXPECT_GE(r[1], prev_en);
		EXPECT_EQ(r[3], id);
		EXPECT_EQ(r[4], 0);
		prev_en = r[1];
		if (LOOP_FAILED())
			break;
	}
	EXPECT_GT(prev_en, 0);
	sampler_close(&s);
}

/*
 * READ with GROUP: {nr, enabled, running, {value, id, lost} per member}, the
 * leader first; the siblings' counts are read at the sample.
 */
TEST(read_group_in_samples)
{
	uint64_t ips[8], addrs[8], fmt = F_GRP | F_EN | F_RUN | F_ID | F_LOST;
	uint64_t id0, id1, id2, prev_en = 0, prev_clock = 0;
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
	n = sample_stores_gap(&s, 8, 0, ips, addrs, TIME_GAP_NS);
	ASSERT_GE(n, 8);
	for (i = 0; i < n; i++) {
		const uint64_t *r = ss[i].read;

		ASSERT_EQ(ss[i].read_n, 3 + 3 * 3);
		EXPECT_EQ(ss[i].size, 8 + 8 + 8 * 12);
		EXPECT_EQ(r[0], 3);
		EXPECT_GE(r[1], prev_en);
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
		prev_en = r[1];
		prev_clock = r[6];
		if (LOOP_FAILED())
			break;
	}
	EXPECT_GT(prev_en, 0);
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

TEST_HARNESS_MAIN
