// SPDX-License-Identifier: GPL-2.0
/*
 * Races between an event's release and what it is doing, and between
 * writers of one buffer:
 *
 *  - sampling software events that send SIGTRAP or SIGIO, closed while
 *    the threads they watch take page faults (the overflow must not queue
 *    work on an event whose last reference is gone);
 *  - one buffer mapped through two events (SET_OUTPUT) by two processes
 *    that unmap it at the same moment: the locked-memory charge comes back
 *    exactly once;
 *  - group reads through a sibling while its leader is closed;
 *  - inherited copies on several CPUs writing into one buffer through
 *    SET_OUTPUT: every record arrives whole;
 *  - two sampling events fed by the same page fault, with different
 *    sample_type: each record is as long as its own fields;
 *  - inherited per-CPU groups copied into threads and a child as they
 *    reach each CPU, while the originals are disabled, enabled and
 *    closed: every page touched is counted when nothing interferes.
 *
 * Each stress case runs a fixed number of rounds, waiting on progress
 * rather than on time, and checks that no kernel warning was raised
 * (the taint flags) besides its own assertions.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "../kselftest_harness.h"
#include "perf_util.h"
#include "perf_rb.h"

/*
 * Every case here is a stress run of fixed rounds: on a debug kernel in a
 * guest sharing a busy host, some take minutes, past the harness's 30 s.
 */
#undef TEST_TIMEOUT_DEFAULT
#define TEST_TIMEOUT_DEFAULT	900

#define NFAULTERS	3

static long psz;

static pid_t gettid_(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* A thread taking page faults until told to stop. */
struct faulter {
	atomic_int stop;
	atomic_int tid;
	atomic_ulong rounds;
	int cpu;
	pthread_t th;
};

static void *faulter_fn(void *arg)
{
	struct faulter *f = arg;

	if (f->cpu >= 0)
		pin_to_cpu(f->cpu);
	atomic_store(&f->tid, gettid_());
	while (!atomic_load(&f->stop)) {
		touch_pages(4);
		atomic_fetch_add(&f->rounds, 1);
	}
	return NULL;
}

static int start_faulters(struct faulter *f, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		memset(&f[i], 0, sizeof(f[i]));
		f[i].cpu = nr_cpus() > 1 ? i % nr_cpus() : -1;
		if (pthread_create(&f[i].th, NULL, faulter_fn, &f[i]))
			return -1;
	}
	for (i = 0; i < n; i++)
		while (!atomic_load(&f[i].tid))
			usleep(1000);
	return 0;
}

static void stop_faulters(struct faulter *f, int n)
{
	int i;

	for (i = 0; i < n; i++)
		atomic_store(&f[i].stop, 1);
	for (i = 0; i < n; i++)
		pthread_join(f[i].th, NULL);
}

/* Wait until faulter @f has done @n more rounds. */
static void await_rounds(struct faulter *f, unsigned long n)
{
	unsigned long start = atomic_load(&f->rounds);

	while (atomic_load(&f->rounds) - start < n)
		sched_yield();
}

static atomic_ulong traps, sigios;

static void on_trap(int sig)
{
	atomic_fetch_add(&traps, 1);
}

static void on_sigio(int sig)
{
	atomic_fetch_add(&sigios, 1);
}

static void fault_sampler(struct perf_event_attr *a)
{
	sw_attr(a, PERF_COUNT_SW_PAGE_FAULTS);
	a->sample_period = 1;
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID;
	a->exclude_kernel = 1;
}

#define CLOSE_ROUNDS	300

/*
 * A SIGTRAP sampler and a SIGIO sampler on each faulting thread, opened
 * and closed again while the thread faults: the close races with the
 * overflow that queues the signal.
 */
TEST(close_while_overflowing)
{
	struct faulter f[NFAULTERS];
	struct perf_event_attr a;
	long t0 = kernel_taint();
	int round, i, fd[2];

	signal(SIGTRAP, on_trap);
	signal(SIGIO, on_sigio);
	ASSERT_EQ(start_faulters(f, NFAULTERS), 0);
	for (round = 0; round < CLOSE_ROUNDS; round++) {
		i = round % NFAULTERS;
		fault_sampler(&a);
		a.sigtrap = 1;
		a.remove_on_exec = 1;
		fd[0] = sys_perf_event_open(&a, atomic_load(&f[i].tid), -1, -1,
					    PERF_FLAG_FD_CLOEXEC);
		ASSERT_GE(fd[0], 0);
		fault_sampler(&a);
		fd[1] = sys_perf_event_open(&a, atomic_load(&f[i].tid), -1, -1,
					    PERF_FLAG_FD_CLOEXEC);
		ASSERT_GE(fd[1], 0);
		ASSERT_EQ(fcntl(fd[1], F_SETOWN, getpid()), 0);
		ASSERT_EQ(fcntl(fd[1], F_SETFL, O_ASYNC), 0);
		/* Let it overflow, then close in the middle of the faults. */
		await_rounds(&f[i], 1 + round % 3);
		if (round & 1) {
			close(fd[0]);
			close(fd[1]);
		} else {
			close(fd[1]);
			close(fd[0]);
		}
	}
	stop_faulters(f, NFAULTERS);
	EXPECT_GT(atomic_load(&traps), 0);
	EXPECT_GT(atomic_load(&sigios), 0);
	EXPECT_EQ(kernel_taint(), t0);
	signal(SIGTRAP, SIG_DFL);
	signal(SIGIO, SIG_DFL);
}

/* ------------------------------------------------------------------ */
/* One buffer, two mappings, two processes                               */
/* ------------------------------------------------------------------ */

#define UNMAP_ROUNDS	200
/* perf_event_mlock_kb for the test: 4 pages per online CPU. */
#define MLOCK_KB	16

struct unmap_sync {
	atomic_int ready;
	atomic_int go;
};

static int open_dummy(void)
{
	struct perf_event_attr a;

	sw_attr(&a, PERF_COUNT_SW_DUMMY);
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	return sys_perf_event_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

/* Number of one-data-page buffers that can be mapped at once (max 64). */
static int buffers_that_fit(void)
{
	int fds[64], n, i;

	for (n = 0; n < 64; n++) {
		fds[n] = open_dummy();
		if (fds[n] < 0)
			break;
		if (mmap(NULL, 2 * psz, PROT_READ | PROT_WRITE, MAP_SHARED,
			 fds[n], 0) == MAP_FAILED) {
			close(fds[n]);
			break;
		}
	}
	/* Closing the files leaves the mappings: unmapping them is exit's. */
	for (i = 0; i < n; i++)
		close(fds[i]);
	return n;
}

/*
 * As a user of its own: map one buffer here through event A, and in a
 * forked child through event B (redirected into A's buffer, or A itself
 * when @arg is set); unmap both at the same moment, many times; then the
 * user's allowance must be whole again, and nothing pinned.
 */
static int shared_unmap_child(void *arg)
{
	bool same_event = arg;
	struct rlimit rl = { 0, 0 };
	int round, a, b, cpus = nr_cpus();
	/* Two pages per buffer out of MLOCK_KB per online CPU. */
	int expect = MLOCK_KB * 1024 / psz * cpus / 2;
	struct unmap_sync *s;
	void *ma, *mb;
	pid_t pid;

	if (setrlimit(RLIMIT_MEMLOCK, &rl))
		return 100;
	s = mmap(NULL, psz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		 -1, 0);
	if (s == MAP_FAILED)
		return 101;
	for (round = 0; round < UNMAP_ROUNDS; round++) {
		a = open_dummy();
		b = same_event ? dup(a) : open_dummy();
		if (a < 0 || b < 0)
			return 102;
		ma = mmap(NULL, 2 * psz, PROT_READ | PROT_WRITE, MAP_SHARED, a, 0);
		if (ma == MAP_FAILED)
			return 103;
		if (!same_event && ioctl(b, PERF_EVENT_IOC_SET_OUTPUT, a))
			return 104;
		atomic_store(&s->ready, 0);
		atomic_store(&s->go, 0);
		pid = fork();
		if (pid < 0)
			return 105;
		if (pid == 0) {
			if (cpus > 1)
				pin_to_cpu(1);
			mb = mmap(NULL, 2 * psz, PROT_READ | PROT_WRITE,
				  MAP_SHARED, b, 0);
			if (mb == MAP_FAILED)
				_exit(1);
			atomic_store(&s->ready, 1);
			while (!atomic_load(&s->go))
				;
			munmap(mb, 2 * psz);
			_exit(0);
		}
		if (cpus > 1)
			pin_to_cpu(0);
		while (!atomic_load(&s->ready))
			sched_yield();
		atomic_store(&s->go, 1);
		munmap(ma, 2 * psz);
		if (reap_child(pid))
			return 106;
		close(a);
		close(b);
	}
	if (vm_pin_kb() != 0)
		return 107;
	/* The whole allowance, and not a page more, is there again. */
	return buffers_that_fit() == expect ? 0 : 108;
}

/*
 * Each case runs as a user of its own: a kernel that leaves the charge
 * behind leaves it on that user, not on nobody, whom other programs'
 * cases (limits.c) count on finding with the whole allowance.
 */
#define UNMAP_UID_REDIRECTED	65533
#define UNMAP_UID_SAME_EVENT	65532

static int run_unmap_rounds(bool same_event)
{
	long old;
	int ret;

	if (read_sysctl("perf_event_mlock_kb", &old) ||
	    write_sysctl("perf_event_mlock_kb", MLOCK_KB))
		return -1;
	ret = run_as_user(same_event ? UNMAP_UID_SAME_EVENT : UNMAP_UID_REDIRECTED,
			  shared_unmap_child, same_event ? &psz : NULL);
	write_sysctl("perf_event_mlock_kb", old);
	return ret;
}

/* Two events, one buffer: each unmapping is the last of its event. */
TEST(unmap_redirected_buffer_at_once)
{
	long t0 = kernel_taint();

	EXPECT_EQ(run_unmap_rounds(false), 0);
	EXPECT_EQ(kernel_taint(), t0);
}

/*
 * One event mapped by two processes: the last unmapping of the buffer
 * need not be the last of the event.
 */
TEST(unmap_same_event_at_once)
{
	long t0 = kernel_taint();

	EXPECT_EQ(run_unmap_rounds(true), 0);
	EXPECT_EQ(kernel_taint(), t0);
}

/* ------------------------------------------------------------------ */
/* Group reads while the leader goes                                    */
/* ------------------------------------------------------------------ */

#define LEADER_ROUNDS	200

/*
 * The reader reads the sibling it is handed (fd >= 0) until told to let
 * go of it; the events count the reader itself, so a read finds its
 * group counting on the reader's CPU.
 */
struct group_reader {
	atomic_int fd;		/* -1: nothing to read */
	atomic_int idle;	/* the reader saw -1 and reads nothing */
	atomic_int stop;
	atomic_ulong reads;
	atomic_int tid;
	int bad;		/* a read of the wrong size or shape */
	int errors;
};

static void *group_reader_fn(void *arg)
{
	struct group_reader *r = arg;
	uint64_t v[8];
	ssize_t n;
	int fd;

	pin_to_cpu(0);
	atomic_store(&r->tid, gettid_());
	while (!atomic_load(&r->stop)) {
		fd = atomic_load(&r->fd);
		if (fd < 0) {
			atomic_store(&r->idle, 1);
			sched_yield();
			continue;
		}
		atomic_store(&r->idle, 0);
		n = read(fd, v, sizeof(v));
		if (n < 0) {
			r->errors++;
		} else if (!((n == 24 && v[0] == 2) || (n == 16 && v[0] == 1))) {
			/* nr, then one value per member: 2 with the leader. */
			r->bad++;
		}
		atomic_fetch_add(&r->reads, 1);
	}
	return NULL;
}

/* Sleeping, not yielding: a real-time caller must let the reader run. */
static void await_reads(struct group_reader *r, unsigned long n)
{
	unsigned long start = atomic_load(&r->reads);

	while (atomic_load(&r->reads) - start < n)
		sleep_ns(50000);
}

static void unpin(void)
{
	cpu_set_t set;
	int i;

	CPU_ZERO(&set);
	for (i = 0; i < CPU_SETSIZE; i++)
		CPU_SET(i, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/*
 * The reader and this thread share one CPU, this thread at a real-time
 * priority: it wakes up (from a short sleep of varying length) in the
 * middle of one of the reader's reads, closes the leader, and keeps the
 * CPU for as long as an RCU grace period takes, so that a leader the
 * reader was looking at is freed before the reader goes on.
 */
TEST(group_read_while_leader_closes)
{
	struct sched_param fifo = { .sched_priority = 1 };
	struct group_reader r = { .fd = -1 };
	long t0 = kernel_taint();
	bool rt = false;
	pthread_t th;
	int round, leader, sib;

	ASSERT_EQ(pin_to_cpu(0), 0);
	ASSERT_EQ(pthread_create(&th, NULL, group_reader_fn, &r), 0);
	while (!atomic_load(&r.tid))
		usleep(1000);
	rt = !sched_setscheduler(0, SCHED_FIFO, &fifo);
	for (round = 0; round < LEADER_ROUNDS; round++) {
		leader = open_ev(PERF_COUNT_SW_TASK_CLOCK, atomic_load(&r.tid),
				 -1, -1, F_GRP, 0);
		ASSERT_GE(leader, 0);
		sib = open_ev(PERF_COUNT_SW_PAGE_FAULTS, atomic_load(&r.tid),
			      -1, leader, F_GRP, 0);
		ASSERT_GE(sib, 0);
		atomic_store(&r.fd, sib);
		while (atomic_load(&r.idle))
			sleep_ns(50000);
		await_reads(&r, 1);
		/* Wake up somewhere inside a read. */
		sleep_ns(20000 + 7919 * (round % 13));
		close(leader);
		if (rt)
			burn_ns(20000000);
		await_reads(&r, 2);
		/* The reader lets go of sib before it is closed. */
		atomic_store(&r.fd, -1);
		while (!atomic_load(&r.idle))
			sleep_ns(50000);
		close(sib);
	}
	if (rt) {
		fifo.sched_priority = 0;
		sched_setscheduler(0, SCHED_OTHER, &fifo);
	}
	atomic_store(&r.stop, 1);
	pthread_join(th, NULL);
	unpin();
	EXPECT_EQ(r.errors, 0);
	EXPECT_EQ(r.bad, 0);
	EXPECT_EQ(kernel_taint(), t0);
}

/* ------------------------------------------------------------------ */
/* Writers on several CPUs, one buffer                                  */
/* ------------------------------------------------------------------ */

#define WRITER_THREADS	8
#define WRITER_ROUNDS	400
#define RB_PAGES	8
#define MAX_TIDS	64

struct writer {
	pthread_t th;
	int cpu;
	char *pages;		/* WRITER_ROUNDS * 2 pages, touched in order */
	atomic_int tid;
	atomic_int *go;
	atomic_int done;
};

static void *writer_fn(void *arg)
{
	struct writer *w = arg;
	int i;

	pin_to_cpu(w->cpu);
	atomic_store(&w->tid, gettid_());
	while (!atomic_load(w->go))
		;
	for (i = 0; i < WRITER_ROUNDS; i++)
		touch_range(w->pages + 2L * i * page_size(), 2);
	atomic_store(&w->done, 1);
	return NULL;
}

/* What the consumer has seen so far. */
struct seen {
	long samples, lost, throttles;
	int nr;
	pid_t tid[MAX_TIDS];
	uint64_t last[MAX_TIDS];	/* the tid's last fault address */
};

/*
 * A writer faults its pages at growing addresses, one sample each, and
 * each sample is written before the next fault: so the addresses of a
 * thread's samples grow.  One at or below the last seen for its thread
 * is a stale record that a head published too early let the consumer
 * see again.  (Times are not used: two samples may share a timestamp.)
 * Faults elsewhere (a thread's stack, the library) are not ordered.
 */
static int newer(struct seen *s, struct writer *w, pid_t tid, uint64_t addr)
{
	uint64_t len = 2ULL * WRITER_ROUNDS * page_size();
	int i;

	for (i = 0; i < WRITER_THREADS; i++)
		if (atomic_load(&w[i].tid) == tid)
			break;
	if (i == WRITER_THREADS || addr < (uintptr_t)w[i].pages ||
	    addr >= (uintptr_t)w[i].pages + len)
		return 1;
	for (i = 0; i < s->nr && s->tid[i] != tid; i++)
		;
	if (i == s->nr) {
		if (s->nr == MAX_TIDS)
			return 0;
		s->tid[s->nr++] = tid;
	} else if (addr <= s->last[i]) {
		return 0;
	}
	s->last[i] = addr;
	return 1;
}

/* Copy out and check every record; returns 0, or -1 on a bad one. */
static int check_records(struct perf_rb *rb, struct seen *s,
			 struct writer *w, struct __test_metadata *_metadata)
{
	struct perf_event_header *h;

	rb_fetch(rb);
	while ((h = rb_next(rb))) {
		const uint64_t *p = (const void *)(h + 1);

		switch (h->type) {
		case PERF_RECORD_SAMPLE:
			/* ip, pid/tid, addr: nothing more, nothing less. */
			if (h->size != sizeof(*h) + 24 ||
			    (pid_t)(p[1] & 0xffffffff) != getpid() ||
			    !newer(s, w, (pid_t)(p[1] >> 32), p[2])) {
				TH_LOG("bad sample: size %u pid/tid %llx addr %llx",
				       h->size, (unsigned long long)p[1],
				       (unsigned long long)p[2]);
				return -1;
			}
			s->samples++;
			break;
		case PERF_RECORD_LOST:
			if (h->size != sizeof(*h) + 16)
				return -1;
			s->lost += p[1];
			break;
		case PERF_RECORD_THROTTLE:
		case PERF_RECORD_UNTHROTTLE:
			if (h->size != sizeof(*h) + 24)
				return -1;
			s->throttles++;
			break;
		default:
			TH_LOG("record type %u size %u", h->type, h->size);
			return -1;
		}
	}
	rb_clear(rb);
	return 0;
}

/*
 * An inherited per-task sampler redirected (SET_OUTPUT) into a buffer
 * mapped through another event of the same task: the copies in threads
 * pinned to different CPUs all write into that one small buffer at
 * once, while this thread reads it.  Every record must be whole and
 * fresh, and (unless samples were throttled) none go missing unnoticed.
 */
TEST(one_buffer_writers_on_all_cpus)
{
	struct writer w[WRITER_THREADS];
	struct perf_event_attr a;
	struct seen seen = { 0 };
	atomic_int go = 0;
	struct perf_rb rb;
	long t0 = kernel_taint();
	int out, fd, i, done;

	if (nr_cpus() < 2)
		SKIP(return, "needs two CPUs");
	out = open_dummy();
	ASSERT_GE(out, 0);
	ASSERT_EQ(rb_map(&rb, out, RB_PAGES), 0);
	fault_sampler(&a);
	a.sample_type |= PERF_SAMPLE_ADDR;
	a.inherit = 1;
	a.disabled = 1;
	fd = sys_perf_event_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, out), 0);
	for (i = 0; i < WRITER_THREADS; i++) {
		memset(&w[i], 0, sizeof(w[i]));
		w[i].cpu = i % nr_cpus();
		w[i].go = &go;
		w[i].pages = map_anon(2 * WRITER_ROUNDS);
		ASSERT_NE(w[i].pages, NULL);
		ASSERT_EQ(pthread_create(&w[i].th, NULL, writer_fn, &w[i]), 0);
	}
	for (i = 0; i < WRITER_THREADS; i++)
		while (!atomic_load(&w[i].tid))
			sched_yield();
	/* Enabled with the threads' copies: they count from here on. */
	ASSERT_EQ(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	atomic_store(&go, 1);
	do {
		done = 0;
		for (i = 0; i < WRITER_THREADS; i++)
			done += atomic_load(&w[i].done);
		ASSERT_EQ(check_records(&rb, &seen, w, _metadata), 0);
	} while (done < WRITER_THREADS);
	for (i = 0; i < WRITER_THREADS; i++)
		pthread_join(w[i].th, NULL);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	ASSERT_EQ(check_records(&rb, &seen, w, _metadata), 0);
	/* Every thread took 2 faults per round; some may be in LOST. */
	if (!seen.throttles)
		EXPECT_GE(seen.samples + seen.lost, WRITER_THREADS * WRITER_ROUNDS * 2);
	EXPECT_GT(seen.samples, 0);
	/* Some writers' samples were checked for freshness. */
	EXPECT_GT(seen.nr, 0);
	EXPECT_EQ(kernel_taint(), t0);
	close(fd);
	rb_unmap(&rb);
	close(out);
	for (i = 0; i < WRITER_THREADS; i++)
		munmap(w[i].pages, 2L * WRITER_ROUNDS * page_size());
}

/* ------------------------------------------------------------------ */
/* One hit, two samplers                                                */
/* ------------------------------------------------------------------ */

/* Registers in the user register mask: AX, BX, CX, DX (x86). */
#define REGS_MASK	0xfULL

/*
 * Two page-fault samplers on this thread, one with user registers and a
 * callchain (fd[0]), one with neither (fd[1]): each page fault samples
 * both, and each record must be exactly as long as its own sample_type
 * makes it.  Enabled in both orders, so that each comes first once in
 * the walk of the CPU's page-fault events.
 */
static void two_sample_types(struct __test_metadata *_metadata, bool rich_first)
{
	struct perf_event_attr a;
	struct perf_rb rb[2];
	struct perf_event_header *h;
	int fd[2], i, n[2] = { 0, 0 };

	for (i = 0; i < 2; i++) {
		fault_sampler(&a);
		a.disabled = 1;
		if (i == 0) {
			a.sample_type |= PERF_SAMPLE_REGS_USER |
					 PERF_SAMPLE_CALLCHAIN;
			a.sample_regs_user = REGS_MASK;
			a.exclude_callchain_kernel = 1;
		}
		fd[i] = sys_perf_event_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		ASSERT_GE(fd[i], 0);
	}
	for (i = 0; i < 2; i++)
		ASSERT_EQ(rb_map(&rb[i], fd[i], 16), 0);
	/* Enabled one after the other, with no switch between. */
	ASSERT_EQ(ioctl(fd[rich_first ? 0 : 1], PERF_EVENT_IOC_ENABLE, 0), 0);
	ASSERT_EQ(ioctl(fd[rich_first ? 1 : 0], PERF_EVENT_IOC_ENABLE, 0), 0);
	touch_pages(32);
	for (i = 0; i < 2; i++)
		ASSERT_EQ(ioctl(fd[i], PERF_EVENT_IOC_DISABLE, 0), 0);

	for (i = 0; i < 2; i++) {
		rb_fetch(&rb[i]);
		while ((h = rb_next(&rb[i]))) {
			const uint64_t *p = (const void *)(h + 1);
			size_t want = sizeof(*h) + 16;

			if (h->type != PERF_RECORD_SAMPLE)
				continue;
			if (i == 0) {
				/* ip, tid, callchain nr + ips, abi + regs */
				want += 8 + p[2] * 8;
				want += 8 + (p[3 + p[2]] ? 8 * 4 : 0);
			}
			EXPECT_EQ(h->size, want) TH_LOG("%s event, enabled %s",
				i ? "plain" : "rich", (i == 0) == rich_first ?
				"first" : "second");
			if (h->size != want)
				break;
			n[i]++;
		}
	}
	EXPECT_GE(n[0], 32);
	EXPECT_GE(n[1], 32);
	for (i = 0; i < 2; i++) {
		rb_unmap(&rb[i]);
		close(fd[i]);
	}
}

TEST(one_hit_two_sample_types)
{
	long t0 = kernel_taint();

	two_sample_types(_metadata, true);
	two_sample_types(_metadata, false);
	EXPECT_EQ(kernel_taint(), t0);
}

/* ------------------------------------------------------------------ */
/* Copies made on arrival, originals changing                           */
/* ------------------------------------------------------------------ */

#define LAZY_ROUNDS	60
#define LAZY_HOPS	16
#define LAZY_THREADS	2
#define LAZY_MAXCPU	64

/* Move to each CPU in turn from @seed, touching a fresh page on each. */
static int hop(int seed)
{
	int ncpu = nr_cpus(), i;
	char *p = map_anon(LAZY_HOPS);

	if (!p)
		return 1;
	for (i = 0; i < LAZY_HOPS; i++) {
		if (pin_to_cpu((seed + i) % ncpu))
			return 1;
		p[i * psz] = 1;
	}
	munmap(p, LAZY_HOPS * psz);
	return 0;
}

static void *hopper_fn(void *arg)
{
	return (void *)(long)hop((int)(long)arg);
}

TEST(lazy_copies_while_originals_change)
{
	int n = nr_cpus(), lead[LAZY_MAXCPU], sib[LAZY_MAXCPU];
	pthread_t th[LAZY_THREADS];
	long t0 = kernel_taint();
	int round, i, k, status;
	uint64_t faults;
	void *ret;
	pid_t pid;

	if (n < 2)
		SKIP(return, "needs two CPUs");
	ASSERT_LE(n, LAZY_MAXCPU);
	for (round = 0; round < LAZY_ROUNDS; round++) {
		bool quiet = !(round % 2);

		ASSERT_EQ(pin_to_cpu(0), 0);
		for (i = 0; i < n; i++) {
			struct evspec s = {
				.config = PERF_COUNT_SW_PAGE_FAULTS,
				.inherit = 1,
			};

			lead[i] = open_spec(&s, 0, i, -1, 0);
			ASSERT_GE(lead[i], 0);
			s.config = PERF_COUNT_SW_TASK_CLOCK;
			sib[i] = open_spec(&s, 0, i, lead[i], 0);
			ASSERT_GE(sib[i], 0);
		}
		for (k = 0; k < LAZY_THREADS; k++)
			ASSERT_EQ(pthread_create(&th[k], NULL, hopper_fn,
						 (void *)(long)(round + k + 1)), 0);
		pid = fork();
		ASSERT_GE(pid, 0);
		if (!pid)
			_exit(hop(round + 7));
		if (!quiet) {
			for (k = 0; k < 4 * LAZY_HOPS; k++) {
				i = (round + k) % n;
				ioctl(lead[i], k % 2 ? PERF_EVENT_IOC_ENABLE :
				      PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
			}
			for (i = 0; i < n; i++) {
				close(sib[i]);
				close(lead[i]);
			}
		}
		for (k = 0; k < LAZY_THREADS; k++) {
			ASSERT_EQ(pthread_join(th[k], &ret), 0);
			EXPECT_EQ(ret, NULL);
		}
		ASSERT_EQ(waitpid(pid, &status, 0), pid);
		EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
		if (!quiet)
			continue;
		faults = 0;
		for (i = 0; i < n; i++) {
			faults += read_count(lead[i]);
			close(sib[i]);
			close(lead[i]);
		}
		EXPECT_GE(faults, (LAZY_THREADS + 1) * LAZY_HOPS)
			TH_LOG("round %d", round);
	}
	unpin();
	EXPECT_EQ(kernel_taint(), t0);
}

static void __attribute__((constructor)) races_init(void)
{
	psz = page_size();
}

TEST_HARNESS_MAIN
