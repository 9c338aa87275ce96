// SPDX-License-Identifier: GPL-2.0
/*
 * Events and several CPUs: per-CPU events (pid == -1) on every CPU count
 * only what runs on their CPU, for every task there; task events follow
 * their task across sched_setaffinity() migrations; per-task-per-CPU events
 * (pid == 0, cpu == N) count only while the task runs on N (their enabled
 * time still runs elsewhere, their running time does not); threads on
 * different CPUs each with their own events; the CPU number rules at open.
 * Inherited per-task-per-CPU events in a child that reaches a CPU only
 * after fork: they count its work there, follow the ioctls and exec as
 * copies made at fork would, outlive their original's task and pass on
 * to grandchildren, and get the side-band records of their arrival.
 * Works with any number of CPUs; tests that need two say so and skip.
 */
#include "../kselftest_harness.h"
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include "perf_util.h"
#include "perf_rb.h"
#include "perf_worker.h"

#define NPAGES	128
#define MAXCPU	64
/*
 * CPU time that spans a few ticks: where the TSC is unstable (two
 * packages without constant_tsc), local_clock() may stand still between
 * two ticks, and with it an event's enabled and running times.
 */
#define TICKS_NS	50000000ULL

static int unpin(void)
{
	cpu_set_t set;
	int i;

	CPU_ZERO(&set);
	for (i = 0; i < nr_cpus(); i++)
		CPU_SET(i, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/*
 * A page-fault event on every CPU; a workload pinned to each CPU in turn
 * is seen by that CPU's event and (beyond background noise) no other.
 */
TEST(percpu_events_see_their_cpu)
{
	int n = nr_cpus(), fd[MAXCPU], i, k;
	uint64_t before[MAXCPU], delta;

	ASSERT_LE(n, MAXCPU);
	for (i = 0; i < n; i++) {
		fd[i] = open_ev(PERF_COUNT_SW_PAGE_FAULTS, -1, i, -1, 0, 0);
		ASSERT_GE(fd[i], 0) TH_LOG("cpu %d: %s", i, strerror(errno));
	}
	for (k = 0; k < n; k++) {
		for (i = 0; i < n; i++)
			before[i] = read_count(fd[i]);
		ASSERT_EQ(touch_in_child(k, 4 * NPAGES), 0);
		for (i = 0; i < n; i++) {
			delta = read_count(fd[i]) - before[i];
			if (i == k) {
				EXPECT_GE(delta, 4 * NPAGES) TH_LOG("cpu %d", i);
			} else {
				EXPECT_LT(delta, 2 * NPAGES)
					TH_LOG("cpu %d saw cpu %d's faults", i, k);
			}
		}
	}
	for (i = 0; i < n; i++)
		close(fd[i]);
}

/* A per-CPU event counts every task on its CPU. */
TEST(percpu_event_counts_all_tasks)
{
	int cpu = nr_cpus() - 1, fd;
	uint64_t before;

	fd = open_ev(PERF_COUNT_SW_PAGE_FAULTS, -1, cpu, -1, 0, 0);
	ASSERT_GE(fd, 0);
	before = read_count(fd);
	ASSERT_EQ(touch_in_child(cpu, NPAGES), 0);
	ASSERT_EQ(touch_in_child(cpu, NPAGES), 0);
	EXPECT_GE(read_count(fd) - before, 2 * NPAGES);
	close(fd);
}

/* cpu-clock on every CPU runs with wall time, idle or not. */
TEST(percpu_cpu_clock_on_all_cpus)
{
	int n = nr_cpus(), fd[MAXCPU], i;
	uint64_t v[3];
	uint64_t t0, t1;

	ASSERT_LE(n, MAXCPU);
	t0 = mono_ns();
	for (i = 0; i < n; i++) {
		fd[i] = open_ev(PERF_COUNT_SW_CPU_CLOCK, -1, i, -1,
				F_EN | F_RUN, 0);
		ASSERT_GE(fd[i], 0);
	}
	usleep(200000);
	t1 = mono_ns();
	for (i = 0; i < n; i++) {
		ASSERT_EQ(read(fd[i], v, sizeof(v)), sizeof(v));
		EXPECT_GE(v[0], (uint64_t)(0.2 * 1e9 / 2)) TH_LOG("cpu %d", i);
		EXPECT_LE(v[0], 2 * (mono_ns() - t0));
		EXPECT_EQ(v[2], v[1]);
		EXPECT_LE(v[1], 2 * (t1 - t0) + 100000000ULL);
	}
	for (i = 0; i < n; i++)
		close(fd[i]);
}

/* A task event keeps counting as its task is moved across all CPUs. */
TEST(task_event_follows_migration)
{
	int n = nr_cpus(), k, pf, clk;
	uint64_t p0, c0;

	pf = open_ev(PERF_COUNT_SW_PAGE_FAULTS, 0, -1, -1, 0, 0);
	ASSERT_GE(pf, 0);
	clk = open_ev(PERF_COUNT_SW_TASK_CLOCK, 0, -1, -1, 0, 0);
	ASSERT_GE(clk, 0);
	for (k = 0; k < 2 * n; k++) {
		ASSERT_EQ(pin_to_cpu(k % n), 0);
		ASSERT_EQ(sched_getcpu(), k % n);
		p0 = read_count(pf);
		c0 = read_count(clk);
		touch_pages(NPAGES);
		burn(1000000);
		EXPECT_GE(read_count(pf), p0 + NPAGES) TH_LOG("cpu %d", k % n);
		EXPECT_GT(read_count(clk), c0) TH_LOG("cpu %d", k % n);
	}
	unpin();
	close(clk);
	close(pf);
}

/*
 * One event per CPU on ourselves (pid 0, cpu N): only the event for the
 * CPU we run on moves; the others stay exactly where they were.  Events
 * for CPUs we never ran on have count 0 and running 0, but enabled > 0.
 */
TEST(per_task_per_cpu_counts_only_there)
{
	int n = nr_cpus(), fd[MAXCPU], i, k;
	uint64_t a[MAXCPU][3], b[3];

	if (n < 2)
		SKIP(return, "needs two CPUs");
	ASSERT_LE(n, MAXCPU);
	ASSERT_EQ(pin_to_cpu(0), 0);
	for (i = 0; i < n; i++) {
		fd[i] = open_ev(PERF_COUNT_SW_PAGE_FAULTS, 0, i, -1,
				F_EN | F_RUN, 0);
		ASSERT_GE(fd[i], 0);
	}
	touch_pages(NPAGES);
	burn(1000000);
	burn_ns(TICKS_NS);
	for (i = 1; i < n; i++) {
		ASSERT_EQ(read(fd[i], b, sizeof(b)), sizeof(b));
		EXPECT_EQ(b[0], 0) TH_LOG("cpu %d", i);
		EXPECT_GT(b[1], 0) TH_LOG("cpu %d", i);
		EXPECT_EQ(b[2], 0) TH_LOG("cpu %d", i);
	}
	for (k = 0; k < n; k++) {
		ASSERT_EQ(pin_to_cpu(k), 0);
		for (i = 0; i < n; i++)
			ASSERT_EQ(read(fd[i], a[i], sizeof(a[i])), sizeof(a[i]));
		touch_pages(NPAGES);
		burn_ns(TICKS_NS);
		for (i = 0; i < n; i++) {
			ASSERT_EQ(read(fd[i], b, sizeof(b)), sizeof(b));
			if (i == k) {
				EXPECT_GE(b[0], a[i][0] + NPAGES);
				EXPECT_GT(b[2], a[i][2]);
			} else {
				EXPECT_EQ(b[0], a[i][0])
					TH_LOG("cpu %d counted on cpu %d", i, k);
				EXPECT_EQ(b[2], a[i][2]);
			}
		}
	}
	unpin();
	for (i = 0; i < n; i++)
		close(fd[i]);
}

/*
 * Inherited per-task-per-CPU events: a child that runs only on CPU 0
 * adds its page faults to the event for CPU 0 and nothing to the others,
 * pinned or flexible, led or alone.
 */
TEST(inherited_per_task_per_cpu_events)
{
	struct evspec s = {
		.config = PERF_COUNT_SW_PAGE_FAULTS,
		.inherit = 1,
	};
	int n = nr_cpus(), fd[2][MAXCPU], sib[MAXCPU], i, k, status;
	uint64_t c;
	pid_t pid;

	if (n < 2)
		SKIP(return, "needs two CPUs");
	ASSERT_LE(n, MAXCPU);
	ASSERT_EQ(pin_to_cpu(0), 0);
	for (k = 0; k < 2; k++) {
		s.pinned = k;
		for (i = 0; i < n; i++) {
			fd[k][i] = open_spec(&s, 0, i, -1, 0);
			ASSERT_GE(fd[k][i], 0);
		}
	}
	/* A sibling in each flexible leader's group. */
	s.pinned = 0;
	for (i = 0; i < n; i++) {
		sib[i] = open_spec(&s, 0, i, fd[0][i], 0);
		ASSERT_GE(sib[i], 0);
	}
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		touch_pages(NPAGES);
		_exit(0);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	for (i = 0; i < n; i++) {
		for (k = 0; k < 2; k++) {
			c = read_count(fd[k][i]);
			EXPECT_TRUE(i ? c == 0 : c >= NPAGES)
				TH_LOG("cpu %d, pinned %d: %llu", i, k,
				       (unsigned long long)c);
			close(fd[k][i]);
		}
		c = read_count(sib[i]);
		EXPECT_TRUE(i ? c == 0 : c >= NPAGES)
			TH_LOG("sibling, cpu %d: %llu", i, (unsigned long long)c);
		close(sib[i]);
	}
	unpin();
}

/* Inherited page-fault events of the calling task, one per CPU. */
static int open_inherited_per_cpu(int *fd, int n, int disabled,
				  int enable_on_exec)
{
	struct evspec s = {
		.config = PERF_COUNT_SW_PAGE_FAULTS,
		.inherit = 1,
		.disabled = disabled,
		.enable_on_exec = enable_on_exec,
	};
	int i;

	for (i = 0; i < n; i++) {
		fd[i] = open_spec(&s, 0, i, -1, 0);
		if (fd[i] < 0)
			return -1;
	}
	return 0;
}

/*
 * Pin to CPU 0, open inherited page-fault events for each of the @n CPUs,
 * and fork a worker (when @w is set), which starts on CPU 0 too.
 */
static void lazy_setup(struct __test_metadata *_metadata, int *fd, int n,
		       int disabled, int enable_on_exec, struct worker *w)
{
	ASSERT_LE(n, MAXCPU);
	ASSERT_EQ(pin_to_cpu(0), 0);
	ASSERT_EQ(open_inherited_per_cpu(fd, n, disabled, enable_on_exec), 0);
	if (w)
		ASSERT_EQ(worker_start(w), 0);
}

/* Unpin the calling task and close @n events, skipping those at -1. */
static void unpin_and_close(int *fd, int n)
{
	int i;

	unpin();
	for (i = 0; i < n; i++)
		if (fd[i] >= 0)
			close(fd[i]);
}

/*
 * A child forked on CPU 0 moves to CPU 1 and touches pages there: the
 * inherited event for CPU 1 counts every one of them, the one for CPU 0
 * none; a grandchild it forks before it ever ran on CPU 1 does the same.
 */
TEST(inherited_per_cpu_event_counts_after_moving)
{
	int n = nr_cpus(), fd[MAXCPU];
	uint64_t before0, before1;
	struct worker w;

	if (n < 2)
		SKIP(return, "needs two CPUs");
	lazy_setup(_metadata, fd, n, 0, 0, &w);

	/* The worker's child, forked on CPU 0, moves to CPU 1. */
	before1 = read_count(fd[1]);
	ASSERT_EQ(worker_do(&w, W_FORK_TOUCH_ON, W_ARG(1, NPAGES)), 0);
	EXPECT_GE(read_count(fd[1]) - before1, NPAGES);

	/* The worker itself moves, then touches. */
	ASSERT_EQ(worker_do(&w, W_PIN, 1), 0);
	before0 = read_count(fd[0]);
	before1 = read_count(fd[1]);
	ASSERT_EQ(worker_do(&w, W_TOUCH, NPAGES), 0);
	EXPECT_GE(read_count(fd[1]) - before1, NPAGES);
	EXPECT_EQ(read_count(fd[0]), before0);

	EXPECT_EQ(worker_stop(&w), 0);
	unpin_and_close(fd, n);
}

/*
 * PERF_EVENT_IOC_DISABLE and _ENABLE on the original, made after the fork
 * and before the child ever ran on the event's CPU, hold for the child as
 * they do for a copy made at fork.
 */
TEST(inherited_per_cpu_event_follows_ioctl_before_moving)
{
	int n = nr_cpus(), on[MAXCPU], off[MAXCPU], i;
	struct worker w;

	if (n < 2)
		SKIP(return, "needs two CPUs");
	lazy_setup(_metadata, off, n, 1, 0, NULL);
	lazy_setup(_metadata, on, n, 0, 0, &w);
	ASSERT_EQ(ioctl(on[1], PERF_EVENT_IOC_DISABLE, 0), 0);
	ASSERT_EQ(ioctl(off[1], PERF_EVENT_IOC_ENABLE, 0), 0);

	ASSERT_EQ(worker_do(&w, W_PIN, 1), 0);
	ASSERT_EQ(worker_do(&w, W_TOUCH, NPAGES), 0);
	/* This task never ran on CPU 1: whatever counted is the worker's. */
	EXPECT_EQ(read_count(on[1]), 0);
	EXPECT_GE(read_count(off[1]), NPAGES);

	EXPECT_EQ(worker_stop(&w), 0);
	unpin_and_close(on, n);
	for (i = 0; i < n; i++)
		close(off[i]);
}

/*
 * enable_on_exec, inherited: the child's exec enables its events for the
 * CPUs it reaches only afterwards; the original, whose task does not
 * exec, stays off.
 */
TEST(inherited_per_cpu_enable_on_exec_before_moving)
{
	int n = nr_cpus(), fd[MAXCPU];
	struct worker w;
	uint64_t v;

	if (n < 2)
		SKIP(return, "needs two CPUs");
	lazy_setup(_metadata, fd, n, 1, 1, &w);
	ASSERT_EQ(worker_do(&w, W_TOUCH, NPAGES), 0);
	EXPECT_EQ(read_count(fd[0]), 0);

	ASSERT_EQ(worker_do(&w, W_EXEC, 0), 0);
	ASSERT_EQ(worker_do(&w, W_PIN, 1), 0);
	ASSERT_EQ(worker_do(&w, W_TOUCH, NPAGES), 0);
	EXPECT_GE(read_count(fd[1]), NPAGES);

	EXPECT_EQ(worker_stop(&w), 0);
	v = read_count(fd[0]);
	touch_pages(NPAGES);
	EXPECT_EQ(read_count(fd[0]), v);
	unpin_and_close(fd, n);
}

/*
 * The events' task exits while its child lives: the events do not hang
 * up, and the child's work on a CPU it reaches afterwards, and that of a
 * grandchild it forks then, still adds to them.  Hang-up comes once the
 * last of them has exited.
 */
TEST(inherited_per_cpu_event_outlives_its_task)
{
	struct evspec s = {
		.config = PERF_COUNT_SW_PAGE_FAULTS,
		.inherit = 1,
	};
	int n = nr_cpus(), fd[MAXCPU], go[2], up[2], i;
	pid_t task, child;
	void *rb;
	char c;

	if (n < 2)
		SKIP(return, "needs two CPUs");
	ASSERT_LE(n, MAXCPU);
	ASSERT_EQ(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	ASSERT_EQ(pipe(go), 0);
	ASSERT_EQ(pipe(up), 0);
	task = fork();
	ASSERT_GE(task, 0);
	if (!task) {
		/* The events' task: forks the child, then exits. */
		if (pin_to_cpu(0) || read(go[0], &c, 1) != 1)
			_exit(1);
		child = fork();
		if (child < 0)
			_exit(1);
		if (!child) {
			if (write(up[1], &c, 1) != 1 || read(go[0], &c, 1) != 1)
				_exit(1);
			/* A grandchild forked on CPU 0 moves to CPU 1. */
			if (touch_in_child(1, NPAGES))
				_exit(1);
			/* The child itself moves, then touches. */
			if (pin_to_cpu(1))
				_exit(1);
			touch_pages(NPAGES);
			_exit(0);
		}
		_exit(0);
	}
	for (i = 0; i < n; i++) {
		fd[i] = open_spec(&s, task, i, -1, 0);
		ASSERT_GE(fd[i], 0);
	}
	/* Without a buffer, poll() says hang-up at once. */
	rb = map_rb(fd[1]);
	ASSERT_NE(rb, NULL);
	ASSERT_EQ(write(go[1], "g", 1), 1);
	ASSERT_EQ(read(up[0], &c, 1), 1);
	EXPECT_EQ(reap_child(task), 0);
	EXPECT_FALSE(poll_now(fd[1]) & POLLHUP);

	ASSERT_EQ(write(go[1], "g", 1), 1);
	child = wait(NULL);
	EXPECT_GT(child, 0);
	EXPECT_GE(read_count(fd[1]), 2 * NPAGES);
	EXPECT_TRUE(poll_now(fd[1]) & POLLHUP);
	ASSERT_EQ(prctl(PR_SET_CHILD_SUBREAPER, 0), 0);
	unmap_rb(rb);
	unpin_and_close(fd, n);
}

/*
 * An inherited event closed while its child has not yet run on the
 * event's CPU: the child moving there later runs on, and the events
 * still open count as before.
 */
TEST(inherited_per_cpu_event_closed_before_moving)
{
	int n = nr_cpus(), fd[MAXCPU];
	struct worker w;

	if (n < 2)
		SKIP(return, "needs two CPUs");
	lazy_setup(_metadata, fd, n, 0, 0, &w);
	close(fd[1]);
	fd[1] = -1;
	ASSERT_EQ(worker_do(&w, W_PIN, 1), 0);
	ASSERT_EQ(worker_do(&w, W_TOUCH, NPAGES), 0);
	ASSERT_EQ(worker_do(&w, W_PIN, 0), 0);
	ASSERT_EQ(worker_do(&w, W_TOUCH, NPAGES), 0);
	EXPECT_GE(read_count(fd[0]), NPAGES);
	EXPECT_EQ(worker_stop(&w), 0);
	unpin_and_close(fd, n);
}

/*
 * A group's leader closed while its child has not yet run on the group's
 * CPU: the child's copy of the sibling is made on arrival and counts, as
 * a copy made at fork goes on counting as a group of its own.
 */
TEST(inherited_per_cpu_sibling_outlives_closed_leader)
{
	struct evspec s = {
		.config = PERF_COUNT_SW_PAGE_FAULTS,
		.inherit = 1,
	};
	int n = nr_cpus(), fd[MAXCPU], sib;
	struct worker w;
	uint64_t before;

	if (n < 2)
		SKIP(return, "needs two CPUs");
	ASSERT_LE(n, MAXCPU);
	ASSERT_EQ(pin_to_cpu(0), 0);
	ASSERT_EQ(open_inherited_per_cpu(fd, n, 0, 0), 0);
	sib = open_spec(&s, 0, 1, fd[1], 0);
	ASSERT_GE(sib, 0);
	ASSERT_EQ(worker_start(&w), 0);
	close(fd[1]);
	fd[1] = -1;
	before = read_count(sib);
	ASSERT_EQ(worker_do(&w, W_PIN, 1), 0);
	ASSERT_EQ(worker_do(&w, W_TOUCH, NPAGES), 0);
	EXPECT_GE(read_count(sib) - before, NPAGES);
	EXPECT_EQ(worker_stop(&w), 0);
	close(sib);
	unpin_and_close(fd, n);
}

/* SWITCH records of @tid switching in, stamped before @before, in @rb. */
static int count_arrivals(struct perf_rb *rb, pid_t tid, uint64_t before)
{
	const uint64_t type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	struct perf_event_header *h;
	struct perf_sid sid;
	int n = 0;

	rb_rewind(rb);
	while ((h = rb_next(rb)))
		if (h->type == PERF_RECORD_SWITCH &&
		    !(h->misc & PERF_RECORD_MISC_SWITCH_OUT) &&
		    !perf_sid_parse(h, type, &sid) && sid.tid == tid &&
		    sid.time < before)
			n++;
	return n;
}

/*
 * A child forked on CPU 0 sleeps in the kernel, is moved to CPU 1 and
 * woken there: the SWITCH record of its arrival on CPU 1, written before
 * it returns to user space, comes from the inherited CPU-1 event as it
 * would from a copy made at fork.  (The same holds for the COMM and MMAP
 * records of an exec that a child reaches on a CPU it has just arrived
 * on.)  The child notes when it is back in user space: a switch after
 * that one (a preemption) does not stand in for the arrival.
 */
TEST(inherited_per_cpu_event_records_arrival)
{
	struct perf_event_attr attr;
	volatile uint64_t *back;
	int fd, p[2], st;
	struct perf_rb rb;
	cpu_set_t one;
	pid_t pid;
	char c;

	if (nr_cpus() < 2)
		SKIP(return, "needs two CPUs");
	back = mmap(NULL, page_size(), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(back, MAP_FAILED);
	ASSERT_EQ(pin_to_cpu(0), 0);
	sw_attr(&attr, PERF_COUNT_SW_DUMMY);
	attr.inherit = 1;
	attr.context_switch = 1;
	attr.sample_id_all = 1;
	attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	attr.use_clockid = 1;
	attr.clockid = CLOCK_MONOTONIC;
	fd = sys_perf_event_open(&attr, 0, 1, -1, 0);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(rb_map(&rb, fd, 8), 0);
	ASSERT_EQ(pipe(p), 0);

	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		/* Asleep in read() on CPU 0 until moved and woken. */
		st = read(p[0], &c, 1);
		*back = mono_ns();
		_exit(st == 1 ? 0 : 1);
	}
	CPU_ZERO(&one);
	CPU_SET(1, &one);
	ASSERT_EQ(sched_setaffinity(pid, sizeof(one), &one), 0);
	ASSERT_EQ(write(p[1], "x", 1), 1);
	ASSERT_EQ(waitpid(pid, &st, 0), pid);
	EXPECT_EQ(st, 0);

	ASSERT_GE(rb_fetch(&rb), 0);
	EXPECT_GE(count_arrivals(&rb, pid, *back), 1);
	rb_unmap(&rb);
	munmap((void *)back, page_size());
	close(p[0]);
	close(p[1]);
	close(fd);
	unpin();
}

struct thr {
	int cpu, ncpu;
	pthread_barrier_t *start, *opened;
	pid_t tid;
	int err;
	uint64_t own, here, other;
};

static void *thread_main(void *arg)
{
	struct thr *t = arg;
	int own, here, other = -1;

	t->tid = (pid_t)syscall(SYS_gettid);
	if (pin_to_cpu(t->cpu)) {
		t->err = 1;
		pthread_barrier_wait(t->opened);
		pthread_barrier_wait(t->start);
		return NULL;
	}
	own = open_ev(PERF_COUNT_SW_PAGE_FAULTS, 0, -1, -1, 0, 0);
	here = open_ev(PERF_COUNT_SW_PAGE_FAULTS, 0, t->cpu, -1, 0, 0);
	if (t->ncpu > 1)
		other = open_ev(PERF_COUNT_SW_PAGE_FAULTS, 0,
				(t->cpu + 1) % t->ncpu, -1, 0, 0);
	if (own < 0 || here < 0 || (t->ncpu > 1 && other < 0))
		t->err = 2;
	pthread_barrier_wait(t->opened);
	pthread_barrier_wait(t->start);
	touch_pages(NPAGES);
	t->own = read_count(own);
	t->here = read_count(here);
	t->other = other >= 0 ? read_count(other) : 0;
	close(own);
	close(here);
	if (other >= 0)
		close(other);
	return NULL;
}

/*
 * One thread per CPU, each with its own events, plus an event per thread
 * opened by the main thread: every event sees its own thread's faults and
 * not the other threads', which run at the same time on other CPUs.
 */
TEST(threads_on_all_cpus)
{
	int n = nr_cpus(), fd[MAXCPU], i;
	pthread_barrier_t start, opened;
	struct thr t[MAXCPU];
	pthread_t th[MAXCPU];
	uint64_t v;

	ASSERT_LE(n, MAXCPU);
	ASSERT_EQ(pthread_barrier_init(&start, NULL, n + 1), 0);
	ASSERT_EQ(pthread_barrier_init(&opened, NULL, n + 1), 0);
	for (i = 0; i < n; i++) {
		memset(&t[i], 0, sizeof(t[i]));
		t[i].cpu = i;
		t[i].ncpu = n;
		t[i].start = &start;
		t[i].opened = &opened;
		ASSERT_EQ(pthread_create(&th[i], NULL, thread_main, &t[i]), 0);
	}
	pthread_barrier_wait(&opened);
	for (i = 0; i < n; i++) {
		fd[i] = open_ev(PERF_COUNT_SW_PAGE_FAULTS, t[i].tid, -1, -1,
				0, 0);
		ASSERT_GE(fd[i], 0);
	}
	pthread_barrier_wait(&start);
	for (i = 0; i < n; i++)
		ASSERT_EQ(pthread_join(th[i], NULL), 0);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(t[i].err, 0);
		EXPECT_GE(t[i].own, NPAGES) TH_LOG("thread %d", i);
		EXPECT_LT(t[i].own, NPAGES + NPAGES / 2) TH_LOG("thread %d", i);
		EXPECT_GE(t[i].here, NPAGES) TH_LOG("thread %d", i);
		EXPECT_EQ(t[i].other, 0) TH_LOG("thread %d", i);
		v = read_count(fd[i]);
		EXPECT_GE(v, NPAGES) TH_LOG("thread %d", i);
		EXPECT_LT(v, NPAGES + NPAGES / 2) TH_LOG("thread %d", i);
		close(fd[i]);
	}
	pthread_barrier_destroy(&start);
	pthread_barrier_destroy(&opened);
}

/* An event on another task follows it as it is moved between CPUs. */
TEST(other_task_event_follows_migration)
{
	int n = nr_cpus(), k, p[2], q[2], fd, status;
	uint64_t prev = 0, v;
	pid_t pid;
	char c;

	ASSERT_EQ(pipe(p), 0);
	ASSERT_EQ(pipe(q), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		close(p[1]);
		close(q[0]);
		/* Each byte: move to that CPU, burn, fault, report. */
		while (read(p[0], &c, 1) == 1) {
			if (pin_to_cpu(c) || sched_getcpu() != c)
				_exit(1);
			burn(1000000);
			touch_pages(16);
			if (write(q[1], &c, 1) != 1)
				_exit(2);
		}
		_exit(0);
	}
	close(p[0]);
	close(q[1]);
	fd = open_ev(PERF_COUNT_SW_TASK_CLOCK, pid, -1, -1, 0, 0);
	ASSERT_GE(fd, 0);
	for (k = 0; k < 2 * n; k++) {
		c = k % n;
		ASSERT_EQ(write(p[1], &c, 1), 1);
		ASSERT_EQ(read(q[0], &c, 1), 1) {
			waitpid(pid, &status, 0);
			TH_LOG("child status %x", status);
		}
		v = read_count(fd);
		EXPECT_GT(v, prev) TH_LOG("step %d", k);
		prev = v;
	}
	close(p[1]);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_EQ(status, 0);
	close(fd);
}

/* CPU numbers at open: at or above nr_cpu_ids is EINVAL, as is -1/-1. */
TEST(cpu_number_rules)
{
	int possible = nr_possible_cpus();

	ASSERT_GT(possible, 0);
	errno = 0;
	EXPECT_EQ(open_ev(PERF_COUNT_SW_CPU_CLOCK, -1, possible, -1, 0, 0), -1);
	EXPECT_EQ(errno, EINVAL);
	errno = 0;
	EXPECT_EQ(open_ev(PERF_COUNT_SW_TASK_CLOCK, 0, possible, -1, 0, 0), -1);
	EXPECT_EQ(errno, EINVAL);
	errno = 0;
	EXPECT_EQ(open_ev(PERF_COUNT_SW_CPU_CLOCK, -1, -1, -1, 0, 0), -1);
	EXPECT_EQ(errno, EINVAL);
	errno = 0;
	EXPECT_EQ(open_ev(PERF_COUNT_SW_CPU_CLOCK, -1, -2, -1, 0, 0), -1);
	EXPECT_EQ(errno, EINVAL);
	errno = 0;
	EXPECT_EQ(open_ev(PERF_COUNT_SW_TASK_CLOCK, 0, -2, -1, 0, 0), -1);
	EXPECT_EQ(errno, EINVAL);
}

TEST_HARNESS_MAIN
