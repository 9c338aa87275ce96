// SPDX-License-Identifier: GPL-2.0
/*
 * Side-band records in the mmap ring buffer, besides MMAP, MMAP2 and
 * COMM: FORK and EXIT (processes, threads, inherited events, a watched
 * process), NAMESPACES, SWITCH and SWITCH_CPU_WIDE, THROTTLE and
 * UNTHROTTLE, LOST, READ (inherit_stat), the record types this
 * configuration never produces (TEXT_POKE, KSYMBOL, BPF_EVENT, CGROUP),
 * and the sample_id trailer that sample_id_all appends to all of them.
 */
#include "../kselftest_harness.h"
#include <pthread.h>
#include <sys/stat.h>
#include "perf_worker.h"
#include "sideband_util.h"

/* In loops over records: stop at the first failed expectation. */
#define LOOP_FAILED()	(_metadata->exit_code == KSFT_FAIL)

/* ---- FORK and EXIT ---- */

struct task_rec {
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

static void parse_task(const struct perf_event_header *h, struct task_rec *t)
{
	struct rec_cur c = rc_init(h);

	t->pid = rc_u32(&c);
	t->ppid = rc_u32(&c);
	t->tid = rc_u32(&c);
	t->ptid = rc_u32(&c);
	t->time = rc_u64(&c);
}

/* The FORK or EXIT record (@type) of task @tid, or NULL. */
static struct perf_event_header *task_rec(struct sb *s, uint32_t type,
					  pid_t tid, struct task_rec *t)
{
	struct perf_event_header *h;

	rb_rewind(&s->rb);
	while ((h = rb_next(&s->rb))) {
		if (h->type != type)
			continue;
		parse_task(h, t);
		if (t->tid == (uint32_t)tid)
			return h;
	}
	return NULL;
}

/*
 * fork: FORK {pid, ppid, tid, ptid, time} of the child; a task event that
 * is not inherited does not see the child exit.
 */
TEST(fork_record)
{
	struct sb s = { .fd = -1 };
	struct perf_event_header *h;
	struct task_rec t;
	uint64_t t0, t1;
	pid_t pid;

	ASSERT_EQ(pin_to_cpu(0), 0);
	sb_attr(&s.attr);
	s.attr.task = 1;
	ASSERT_EQ(sb_open(&s), 0);
	t0 = mono_ns();
	sb_on(&s);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0)
		_exit(0);
	ASSERT_EQ(reap_child(pid), 0);
	ASSERT_GE(sb_off(&s), 0);
	t1 = mono_ns();
	h = task_rec(&s, PERF_RECORD_FORK, pid, &t);
	ASSERT_NE(h, NULL);
	EXPECT_EQ(h->misc, 0);
	EXPECT_EQ(h->size, TASK_SIZE_REC + SID_SIZE);
	EXPECT_EQ(t.pid, pid);
	EXPECT_EQ(t.ppid, getpid());
	EXPECT_EQ(t.ptid, gettid());
	EXPECT_GE(t.time + LOCAL_CLOCK_SLACK, t0);
	EXPECT_LE(t.time, t1 + LOCAL_CLOCK_SLACK);
	/* The record is written by the parent, in fork(). */
	check_sid(_metadata, h, s.id, getpid(), gettid(), t0, t1, 0);
	EXPECT_EQ(rb_count(&s.rb, PERF_RECORD_EXIT), 0);
	EXPECT_EQ(rb_count(&s.rb, PERF_RECORD_FORK), 1);
	sb_close(&s);
}

/*
 * With inherit, the child's EXIT (ppid and ptid are the parent's pid) and
 * the FORK of a grandchild (written by the child) come to the parent's
 * buffer.
 */
TEST(fork_exit_inherited)
{
	struct sb s = { .fd = -1 };
	struct perf_event_header *h;
	struct task_rec fk, ex, gk;
	struct perf_sid sid;
	pid_t pid, gpid = 0;
	int p[2];

	ASSERT_EQ(pipe(p), 0);
	sb_attr(&s.attr);
	s.attr.task = 1;
	ASSERT_EQ(sb_open_inherited(&s), 0);
	sb_on(&s);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		pid_t g = fork();

		if (g == 0)
			_exit(0);
		waitpid(g, NULL, 0);
		_exit(write(p[1], &g, sizeof(g)) != sizeof(g));
	}
	ASSERT_EQ(reap_child(pid), 0);
	ASSERT_EQ(read(p[0], &gpid, sizeof(gpid)), sizeof(gpid));
	ASSERT_GE(sb_off(&s), 0);

	h = task_rec(&s, PERF_RECORD_FORK, pid, &fk);
	ASSERT_NE(h, NULL);
	EXPECT_EQ(fk.ppid, getpid());
	h = task_rec(&s, PERF_RECORD_EXIT, pid, &ex);
	ASSERT_NE(h, NULL);
	EXPECT_EQ(h->misc, 0);
	EXPECT_EQ(ex.pid, pid);
	EXPECT_EQ(ex.ppid, getpid());
	EXPECT_EQ(ex.ptid, getpid());
	EXPECT_GE(ex.time, fk.time);
	/* Written by the exiting child, through its inherited event. */
	ASSERT_EQ(perf_sid_parse(h, SID_ALL, &sid), 0);
	EXPECT_EQ(sid.pid, pid);
	EXPECT_EQ(sid.tid, pid);
	EXPECT_EQ(sid.id, s.id);
	EXPECT_NE(sid.stream_id, s.id);
	EXPECT_EQ(sid.cpu, 0);
	h = task_rec(&s, PERF_RECORD_FORK, gpid, &gk);
	ASSERT_NE(h, NULL);
	EXPECT_EQ(gk.pid, gpid);
	EXPECT_EQ(gk.ppid, pid);
	EXPECT_EQ(gk.ptid, pid);
	h = task_rec(&s, PERF_RECORD_EXIT, gpid, &gk);
	ASSERT_NE(h, NULL);
	EXPECT_EQ(gk.ppid, pid);
	sb_close(&s);
}

static void *thread_exits(void *arg)
{
	thread_tid = gettid();
	return NULL;
}

/*
 * A thread: FORK {pid, ppid = pid, tid, ptid = creating thread}; its EXIT
 * names the process's parent as ppid and ptid (real_parent of a thread).
 */
TEST(thread_fork_exit)
{
	struct sb s = { .fd = -1 };
	struct perf_event_header *h;
	struct task_rec t;
	pthread_t th;

	sb_attr(&s.attr);
	s.attr.task = 1;
	ASSERT_EQ(sb_open_inherited(&s), 0);
	sb_on(&s);
	ASSERT_EQ(pthread_create(&th, NULL, thread_exits, NULL), 0);
	pthread_join(th, NULL);
	ASSERT_GE(sb_off(&s), 0);
	h = task_rec(&s, PERF_RECORD_FORK, thread_tid, &t);
	ASSERT_NE(h, NULL);
	EXPECT_EQ(t.pid, getpid());
	EXPECT_EQ(t.ppid, getpid());
	EXPECT_EQ(t.ptid, gettid());
	h = task_rec(&s, PERF_RECORD_EXIT, thread_tid, &t);
	ASSERT_NE(h, NULL);
	EXPECT_EQ(t.pid, getpid());
	EXPECT_EQ(t.ppid, getppid());
	EXPECT_EQ(t.ptid, getppid());
	sb_close(&s);
}

/* An event on another process sees that process exit. */
TEST(exit_of_watched_process)
{
	struct sb s = { .fd = -1 };
	struct perf_event_header *h;
	struct task_rec t;
	struct worker w;
	uint64_t t0, t1;

	ASSERT_EQ(worker_start(&w), 0);
	sb_attr(&s.attr);
	s.attr.task = 1;
	ASSERT_EQ(sb_open_on(&s, w.pid, -1), 0);
	t0 = mono_ns();
	sb_on(&s);
	ASSERT_EQ(worker_stop(&w), 0);
	t1 = mono_ns();
	ASSERT_GE(rb_fetch(&s.rb), 0);
	h = task_rec(&s, PERF_RECORD_EXIT, w.pid, &t);
	ASSERT_NE(h, NULL);
	EXPECT_EQ(h->size, TASK_SIZE_REC + SID_SIZE);
	EXPECT_EQ(t.pid, w.pid);
	EXPECT_EQ(t.ppid, getpid());
	EXPECT_EQ(t.ptid, getpid());
	check_sid(_metadata, h, s.id, w.pid, w.pid, t0, t1, -1);
	EXPECT_GE(t.time + LOCAL_CLOCK_SLACK, t0);
	EXPECT_LE(t.time, t1 + LOCAL_CLOCK_SLACK);
	sb_close(&s);
}

/*
 * FORK and EXIT come with any of task, comm, mmap and mmap_data; an event
 * with none of them gets no record at all.
 */
TEST(task_records_follow_comm_and_mmap_bits)
{
	int k;

	for (k = 0; k < 6; k++) {
		struct sb s = { .fd = -1 };
		pid_t pid;

		sb_attr(&s.attr);
		s.attr.task = k == 1;
		s.attr.comm = k == 2;
		s.attr.mmap = k == 3;
		s.attr.mmap2 = k == 4;
		s.attr.mmap_data = k == 5;
		ASSERT_EQ(sb_open_on(&s, 0, -1), 0);
		sb_on(&s);
		pid = fork();
		ASSERT_GE(pid, 0);
		if (pid == 0)
			_exit(0);
		ASSERT_EQ(reap_child(pid), 0);
		ASSERT_GE(sb_off(&s), 0);
		/* mmap2 alone does not count as an mmap event: see below. */
		EXPECT_EQ(rb_count(&s.rb, PERF_RECORD_FORK), k && k != 4 ? 1 : 0)
			TH_LOG("case %d", k);
		if (!k) {
			EXPECT_EQ(rb_count(&s.rb, 0), 0);
		}
		sb_close(&s);
	}
}

/* ---- NAMESPACES ---- */

static const char *const ns_names[7] = {
	"net", "uts", "ipc", "pid", "user", "mnt", "cgroup",
};

static int open_ns_fn(void *arg)
{
	struct perf_event_attr a;
	int fd;

	sb_attr(&a);
	a.namespaces = !!arg;
	fd = sys_perf_event_open(&a, 0, -1, -1, 0);
	if (fd >= 0)
		return 0;
	return errno == EACCES ? 1 : 2;
}

/* attr.namespaces needs CAP_PERFMON (or CAP_SYS_ADMIN): EACCES. */
TEST(namespaces_need_perfmon)
{
	EXPECT_EQ(run_unprivileged(open_ns_fn, NULL), 0);
	EXPECT_EQ(run_unprivileged(open_ns_fn, (void *)1), 1);
	EXPECT_EQ(run_with_caps(1ULL << CAP_PERFMON, open_ns_fn, (void *)1), 0);
}

/*
 * Check the seven {dev, ino} pairs of NAMESPACES record @h against
 * /proc/self/ns: namespaces this kernel does not have are {0, 0}.
 */
static void check_ns(struct __test_metadata *_metadata,
		     const struct perf_event_header *h)
{
	struct rec_cur c = rc_init(h);
	char path[64];
	struct stat st;
	int i;

	rc_u64(&c);	/* pid, tid */
	ASSERT_EQ(rc_u64(&c), 7);
	for (i = 0; i < 7; i++) {
		uint64_t dev = rc_u64(&c), ino = rc_u64(&c);

		snprintf(path, sizeof(path), "/proc/self/ns/%s", ns_names[i]);
		if (stat(path, &st)) {
			EXPECT_EQ(dev, 0) TH_LOG("%s", ns_names[i]);
			EXPECT_EQ(ino, 0) TH_LOG("%s", ns_names[i]);
		} else {
			EXPECT_EQ(dev, st.st_dev) TH_LOG("%s", ns_names[i]);
			EXPECT_EQ(ino, st.st_ino) TH_LOG("%s", ns_names[i]);
		}
	}
}

/* fork: a NAMESPACES record of the child, the same namespaces as ours. */
TEST(namespaces_at_fork)
{
	struct sb s = { .fd = -1 };
	struct perf_event_header *h;
	struct rec_cur c;
	pid_t pid;

	sb_attr(&s.attr);
	s.attr.namespaces = 1;
	ASSERT_EQ(sb_open(&s), 0);
	sb_on(&s);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0)
		_exit(0);
	ASSERT_EQ(reap_child(pid), 0);
	ASSERT_GE(sb_off(&s), 0);
	EXPECT_EQ(rb_count(&s.rb, PERF_RECORD_NAMESPACES), 1);
	/* namespaces alone does not bring FORK records. */
	EXPECT_EQ(rb_count(&s.rb, PERF_RECORD_FORK), 0);
	h = rb_find(&s.rb, PERF_RECORD_NAMESPACES, 0);
	ASSERT_NE(h, NULL);
	EXPECT_EQ(h->misc, 0);
	EXPECT_EQ(h->size, NS_SIZE_REC + SID_SIZE);
	c = rc_init(h);
	EXPECT_EQ(rc_u32(&c), pid);
	EXPECT_EQ(rc_u32(&c), pid);
	check_ns(_metadata, h);
	check_sid(_metadata, h, s.id, getpid(), gettid(), 0, 0, -1);
	sb_close(&s);
}

/* unshare(CLONE_NEWNS): a NAMESPACES record with the new mount namespace. */
TEST(namespaces_at_unshare)
{
	struct sb s = { .fd = -1 };
	struct perf_event_header *h;
	struct stat before, after;
	struct rec_cur c;
	int i;

	ASSERT_EQ(stat("/proc/self/ns/mnt", &before), 0);
	sb_attr(&s.attr);
	s.attr.namespaces = 1;
	ASSERT_EQ(sb_open(&s), 0);
	sb_on(&s);
	if (unshare(CLONE_NEWNS))
		SKIP(return, "unshare(CLONE_NEWNS): %s", strerror(errno));
	ASSERT_GE(sb_off(&s), 0);
	ASSERT_EQ(stat("/proc/self/ns/mnt", &after), 0);
	EXPECT_NE(after.st_ino, before.st_ino);
	h = rb_find(&s.rb, PERF_RECORD_NAMESPACES, 0);
	ASSERT_NE(h, NULL);
	c = rc_init(h);
	EXPECT_EQ(rc_u32(&c), getpid());
	EXPECT_EQ(rc_u32(&c), gettid());
	for (i = 0; i < 1 + 2 * 5 + 1; i++)	/* nr, 5 pairs, mnt dev */
		rc_u64(&c);
	EXPECT_EQ(rc_u64(&c), after.st_ino);	/* MNT_NS_INDEX: 5 */
	check_ns(_metadata, h);
	sb_close(&s);
}

/* ---- SWITCH, SWITCH_CPU_WIDE ---- */

/* The SWITCH_OUT records in @rb's copy that have no PREEMPT bit. */
static int sleeping_outs(struct perf_rb *rb)
{
	struct perf_event_header *h;
	int n = 0;

	rb_rewind(rb);
	while ((h = rb_next(rb)))
		n += h->type == PERF_RECORD_SWITCH &&
		     h->misc == PERF_RECORD_MISC_SWITCH_OUT;
	return n;
}

/*
 * A task event: SWITCH records (header and trailer only), SWITCH_OUT when
 * the task leaves the CPU and 0 when it comes back, alternating; blocking
 * in a sleep is not a preemption.
 *
 * A usleep() need not block: when its timer fires before the task reaches
 * schedule(), the task stays runnable, and it either goes on or is
 * preempted.  So it sleeps until five sleeps were seen, 1000 at most.
 */
TEST(switch_task_records)
{
	struct sb s = { .fd = -1 };
	struct perf_event_header *h;
	int outs = 0, ins = 0, sleeps = 0, last = -1, i;
	struct perf_sid sid;
	uint64_t prev_time = 0;

	sb_attr(&s.attr);
	s.attr.context_switch = 1;
	ASSERT_EQ(sb_open(&s), 0);
	sb_on(&s);
	for (i = 0; i < 1000; i++) {
		usleep(2000);
		ASSERT_GE(rb_fetch(&s.rb), 0);
		if (i >= 4 && sleeping_outs(&s.rb) >= 5)
			break;
	}
	ASSERT_GE(sb_off(&s), 0);
	EXPECT_EQ(rb_count(&s.rb, PERF_RECORD_SWITCH_CPU_WIDE), 0);
	rb_rewind(&s.rb);
	while ((h = rb_next(&s.rb))) {
		if (h->type != PERF_RECORD_SWITCH)
			continue;
		EXPECT_EQ(h->size, 8 + SID_SIZE);
		ASSERT_EQ(perf_sid_parse(h, SID_ALL, &sid), 0);
		EXPECT_EQ(sid.tid, gettid());
		EXPECT_EQ(sid.id, s.id);
		EXPECT_GE(sid.time, prev_time);
		prev_time = sid.time;
		if (h->misc & PERF_RECORD_MISC_SWITCH_OUT) {
			EXPECT_NE(last, 1);
			EXPECT_EQ(h->misc & ~(PERF_RECORD_MISC_SWITCH_OUT |
					      PERF_RECORD_MISC_SWITCH_OUT_PREEMPT), 0);
			sleeps += h->misc == PERF_RECORD_MISC_SWITCH_OUT;
			outs++;
			last = 1;
		} else {
			EXPECT_EQ(h->misc, 0);
			EXPECT_NE(last, 0);
			ins++;
			last = 0;
		}
		if (LOOP_FAILED())
			break;
	}
	EXPECT_GE(outs, 5);
	EXPECT_GE(ins, 5);
	EXPECT_GE(sleeps, 5);
	sb_close(&s);
}

/* A task event on another process: SWITCH records of that process. */
TEST(switch_of_watched_process)
{
	struct sb s = { .fd = -1 };
	struct perf_event_header *h;
	struct perf_sid sid;
	struct worker w;
	int n = 0, ins = 0;

	ASSERT_EQ(worker_start(&w), 0);
	/* Let it settle down to wait for commands. */
	ASSERT_EQ(worker_do(&w, W_TOUCH, 0), 0);
	usleep(20000);
	sb_attr(&s.attr);
	s.attr.context_switch = 1;
	ASSERT_EQ(sb_open_on(&s, w.pid, -1), 0);
	sb_on(&s);
	ASSERT_EQ(worker_do(&w, W_TOUCH, 1), 0);
	ASSERT_EQ(worker_do(&w, W_TOUCH, 1), 0);
	/* Let it block again (not asserted: it may be slow to). */
	usleep(20000);
	ASSERT_GE(sb_off(&s), 0);
	rb_rewind(&s.rb);
	while ((h = rb_next(&s.rb))) {
		EXPECT_EQ(h->type, PERF_RECORD_SWITCH);
		ASSERT_EQ(perf_sid_parse(h, SID_ALL, &sid), 0);
		EXPECT_EQ(sid.pid, w.pid);
		EXPECT_EQ(sid.tid, w.pid);
		EXPECT_EQ(sid.id, s.id);
		/* It was asleep when the event was enabled: in, out, in... */
		EXPECT_EQ(!(h->misc & PERF_RECORD_MISC_SWITCH_OUT), !(n & 1));
		ins += !(h->misc & PERF_RECORD_MISC_SWITCH_OUT);
		n++;
		if (LOOP_FAILED())
			break;
	}
	EXPECT_GE(ins, 1);
	EXPECT_GE(n, 2);
	worker_stop(&w);
	sb_close(&s);
}

/*
 * sched_yield() with another task ready on the CPU leaves the task
 * runnable: SWITCH_OUT | SWITCH_OUT_PREEMPT.
 */
TEST(switch_out_preempt)
{
	struct sb s = { .fd = -1 };
	struct perf_event_header *h;
	int preempt = 0, i;
	pid_t pid;

	ASSERT_EQ(pin_to_cpu(0), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		for (;;)
			burn(1000000);
	}
	sb_attr(&s.attr);
	s.attr.context_switch = 1;
	ASSERT_EQ(sb_open(&s), 0);
	sb_on(&s);
	for (i = 0; i < 20; i++)
		sched_yield();
	ASSERT_GE(sb_off(&s), 0);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	rb_rewind(&s.rb);
	while ((h = rb_next(&s.rb)))
		if (h->type == PERF_RECORD_SWITCH &&
		    h->misc == (PERF_RECORD_MISC_SWITCH_OUT |
				PERF_RECORD_MISC_SWITCH_OUT_PREEMPT))
			preempt++;
	EXPECT_GE(preempt, 1);
	sb_close(&s);
}

/*
 * A CPU-wide event: SWITCH_CPU_WIDE records with the pid/tid of the next
 * task (switch out) or the previous one (switch in).
 */
TEST(switch_cpu_wide)
{
	struct sb s = { .fd = -1 };
	struct perf_event_header *h;
	int to_child = 0, from_parent = 0, i, a[2], b[2];
	pid_t pid, me = getpid();
	struct perf_sid sid;
	char c = 0;

	ASSERT_EQ(pin_to_cpu(0), 0);
	ASSERT_EQ(pipe(a), 0);
	ASSERT_EQ(pipe(b), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		close(a[1]);
		close(b[0]);
		while (read(a[0], &c, 1) == 1)
			if (write(b[1], &c, 1) != 1)
				break;
		_exit(0);
	}
	close(a[0]);
	close(b[1]);
	sb_attr(&s.attr);
	s.attr.context_switch = 1;
	s.attr.exclude_kernel = 0;
	ASSERT_EQ(sb_open_on(&s, -1, 0), 0);
	sb_on(&s);
	for (i = 0; i < 20; i++) {
		ASSERT_EQ(write(a[1], &c, 1), 1);
		ASSERT_EQ(read(b[0], &c, 1), 1);
	}
	ASSERT_GE(sb_off(&s), 0);
	close(a[1]);
	waitpid(pid, NULL, 0);
	EXPECT_EQ(rb_count(&s.rb, PERF_RECORD_SWITCH), 0);
	rb_rewind(&s.rb);
	while ((h = rb_next(&s.rb))) {
		struct rec_cur r = rc_init(h);
		uint32_t np_pid, np_tid;

		if (h->type != PERF_RECORD_SWITCH_CPU_WIDE)
			continue;
		EXPECT_EQ(h->size, 8 + 8 + SID_SIZE);
		np_pid = rc_u32(&r);
		np_tid = rc_u32(&r);
		ASSERT_EQ(perf_sid_parse(h, SID_ALL, &sid), 0);
		EXPECT_EQ(sid.cpu, 0);
		EXPECT_EQ(sid.id, s.id);
		EXPECT_EQ(np_pid, np_tid);
		if ((h->misc & PERF_RECORD_MISC_SWITCH_OUT) &&
		    sid.pid == (uint32_t)me && np_pid == (uint32_t)pid)
			to_child++;
		if (!(h->misc & PERF_RECORD_MISC_SWITCH_OUT) &&
		    sid.pid == (uint32_t)pid && np_pid == (uint32_t)me)
			from_parent++;
		if (LOOP_FAILED())
			break;
	}
	EXPECT_GE(to_child, 5);
	EXPECT_GE(from_parent, 5);
	sb_close(&s);
}

/* ---- THROTTLE, UNTHROTTLE ---- */

FIXTURE(rate) {
	long saved;
};

FIXTURE_SETUP(rate)
{
	ASSERT_EQ(read_sysctl("perf_event_max_sample_rate", &self->saved), 0);
}

FIXTURE_TEARDOWN(rate)
{
	write_sysctl("perf_event_max_sample_rate", self->saved);
}

/* THROTTLE and UNTHROTTLE records seen so far, and the last one. */
struct throttle_seq {
	int thr, unthr, last;	/* last: 1 THROTTLE, 0 UNTHROTTLE, -1 none */
};

/*
 * Count a record of type @type; returns -1 when THROTTLE and UNTHROTTLE
 * do not alternate, starting with THROTTLE.
 */
static int throttle_step(struct throttle_seq *q, unsigned int type)
{
	int ok = 1;

	if (type == PERF_RECORD_THROTTLE) {
		ok = q->last != 1;
		q->thr++;
		q->last = 1;
	} else if (type == PERF_RECORD_UNTHROTTLE) {
		ok = q->last == 1;
		q->unthr++;
		q->last = 0;
	}
	return ok ? 0 : -1;
}

/*
 * A cpu-clock sampler every 10 us with perf_event_max_sample_rate at 1000,
 * running: it is throttled within every tick.  On one CPU: a task that
 * moves while throttled has the throttle lifted by another CPU's tick or
 * by its own switch-in, a race these tests are not about.  Returns 0 or -1.
 */
static int open_throttling(struct sb *s)
{
	if (pin_to_cpu(0) || write_sysctl("perf_event_max_sample_rate", 1000))
		return -1;
	sb_attr(&s->attr);
	s->attr.config = PERF_COUNT_SW_CPU_CLOCK;
	s->attr.sample_period = 10000;
	s->attr.sample_type = SID_ALL | PERF_SAMPLE_IP;
	if (sb_open(s))
		return -1;
	sb_on(s);
	return 0;
}

/*
 * More samples in a tick than perf_event_max_sample_rate / HZ allows:
 * THROTTLE {time, id, stream_id}, then UNTHROTTLE at a later tick.
 */
TEST_F(rate, throttle_and_unthrottle)
{
	struct throttle_seq seq = { .last = -1 };
	struct sb s = { .fd = -1 };
	struct perf_event_header *h;
	struct perf_sid sid;

	ASSERT_EQ(open_throttling(&s), 0);
	burn_ns(100000000);
	ASSERT_GE(sb_off(&s), 0);
	rb_rewind(&s.rb);
	while ((h = rb_next(&s.rb))) {
		struct rec_cur c = rc_init(h);
		uint64_t time, id, stream;

		if (h->type != PERF_RECORD_THROTTLE &&
		    h->type != PERF_RECORD_UNTHROTTLE)
			continue;
		EXPECT_EQ(h->misc, 0);
		EXPECT_EQ(h->size, THROTTLE_SIZE + SID_SIZE);
		time = rc_u64(&c);
		id = rc_u64(&c);
		stream = rc_u64(&c);
		EXPECT_EQ(id, s.id);
		EXPECT_EQ(stream, s.id);
		ASSERT_EQ(perf_sid_parse(h, SID_ALL | PERF_SAMPLE_IP, &sid), 0);
		EXPECT_EQ(sid.id, s.id);
		EXPECT_LE(time, sid.time);
		EXPECT_EQ(throttle_step(&seq, h->type), 0);
		if (LOOP_FAILED())
			break;
	}
	EXPECT_GE(seq.thr, 1);
	EXPECT_GE(seq.unthr, 1);
	sb_close(&s);
}

/*
 * PERF_EVENT_IOC_PERIOD restarts a running sampler, throttled or not: a
 * throttled one is unthrottled (and says so) by the restart, so the
 * records still alternate, each THROTTLE followed by an UNTHROTTLE.
 */
TEST_F(rate, period_change_while_throttled)
{
	struct throttle_seq seq = { .last = -1 };
	struct sb s = { .fd = -1 };
	struct perf_event_header *h;
	uint64_t period;
	int i;

	ASSERT_EQ(open_throttling(&s), 0);
	for (i = 0; i < 100; i++) {
		burn_ns(1000000);
		period = i & 1 ? 10000 : 20000;
		ASSERT_EQ(ioctl(s.fd, PERF_EVENT_IOC_PERIOD, &period), 0);
	}
	ASSERT_GE(sb_off(&s), 0);
	rb_rewind(&s.rb);
	while ((h = rb_next(&s.rb))) {
		EXPECT_EQ(throttle_step(&seq, h->type), 0)
			TH_LOG("after %d THROTTLE, %d UNTHROTTLE", seq.thr, seq.unthr);
		if (LOOP_FAILED())
			break;
	}
	EXPECT_GE(seq.thr, 1);
	EXPECT_GE(seq.unthr, 1);
	sb_close(&s);
}

/* ---- LOST ---- */

/*
 * Samples that do not fit are counted; the next record that fits is
 * preceded by LOST {id, lost}, lost being what read() reports in
 * PERF_FORMAT_LOST.
 */
TEST(lost_record)
{
	struct perf_event_header *h;
	struct sb s = { .fd = -1 };
	uint64_t v[2], lost;
	struct rec_cur c;
	int i, lost_at = -1, first_sample = -1;

	sb_attr(&s.attr);
	s.attr.config = PERF_COUNT_SW_PAGE_FAULTS;
	s.attr.sample_period = 1;
	s.attr.sample_type = SID_ALL | PERF_SAMPLE_IP;
	s.attr.read_format = F_LOST;
	s.fd = sys_perf_event_open(&s.attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_GE(s.fd, 0);
	s.id = event_id(s.fd);
	ASSERT_EQ(rb_map(&s.rb, s.fd, 1), 0);
	sb_on(&s);
	/*
	 * 64-byte samples; the buffer is full when one more byte would make
	 * head catch up with tail: 63 fit in the page.
	 */
	touch_pages(100);
	ioctl(s.fd, PERF_EVENT_IOC_DISABLE, 0);
	ASSERT_EQ(read(s.fd, v, sizeof(v)), sizeof(v));
	lost = v[1];
	EXPECT_GE(lost, 37);
	ASSERT_EQ(rb_fetch(&s.rb), 63 * 64);
	EXPECT_EQ(rb_count(&s.rb, PERF_RECORD_SAMPLE), 63);
	EXPECT_EQ(rb_count(&s.rb, PERF_RECORD_LOST), 0);
	rb_clear(&s.rb);
	sb_on(&s);
	touch_pages(1);
	ASSERT_GE(sb_off(&s), 0);
	rb_rewind(&s.rb);
	for (i = 0; (h = rb_next(&s.rb)); i++) {
		if (h->type == PERF_RECORD_LOST && lost_at < 0)
			lost_at = i;
		if (h->type == PERF_RECORD_SAMPLE && first_sample < 0)
			first_sample = i;
	}
	EXPECT_EQ(rb_count(&s.rb, PERF_RECORD_LOST), 1);
	EXPECT_EQ(lost_at, 0);
	EXPECT_EQ(first_sample, 1);
	h = rb_find(&s.rb, PERF_RECORD_LOST, 0);
	ASSERT_NE(h, NULL);
	EXPECT_EQ(h->misc, 0);
	EXPECT_EQ(h->size, LOST_SIZE + SID_SIZE);
	c = rc_init(h);
	EXPECT_EQ(rc_u64(&c), s.id);
	EXPECT_EQ(rc_u64(&c), lost);
	sb_close(&s);
}

/* ---- READ (inherit_stat) ---- */

/*
 * Fork a child (on CPU 0, like the caller) that touches @pages pages and
 * then exits, or execs /bin/true if @do_exec; returns its pid once reaped.
 */
static pid_t child_touch_then(int pages, int do_exec)
{
	pid_t pid = fork();

	if (pid == 0) {
		touch_pages(pages);
		if (do_exec)
			execl("/bin/true", "true", NULL);
		_exit(0);
	}
	if (pid > 0 && reap_child(pid))
		return -1;
	return pid;
}

/*
 * inherit_stat: the child's counts are written as a READ record {pid, tid,
 * values} to the parent's buffer when the child's event goes away while
 * the child lives: at its exec with remove_on_exec.  At the child's exit
 * the context is already dead and there is no READ record.
 */
TEST(read_record_inherit_stat)
{
	int stat, do_exec;

	for (do_exec = 0; do_exec < 2; do_exec++) {
		for (stat = 0; stat < 2; stat++) {
			struct sb s = { .fd = -1 };
			struct perf_event_header *h;
			uint64_t val, en, run;
			struct perf_sid sid;
			struct rec_cur c;
			pid_t pid;

			sb_attr(&s.attr);
			s.attr.config = PERF_COUNT_SW_PAGE_FAULTS;
			s.attr.inherit_stat = stat;
			s.attr.remove_on_exec = do_exec;
			s.attr.read_format = F_EN | F_RUN | F_ID;
			ASSERT_EQ(sb_open_inherited(&s), 0);
			sb_on(&s);
			pid = child_touch_then(20, do_exec);
			ASSERT_GT(pid, 0);
			ASSERT_GE(sb_off(&s), 0);
			EXPECT_EQ(rb_count(&s.rb, PERF_RECORD_READ),
				  stat && do_exec ? 1 : 0)
				TH_LOG("inherit_stat %d exec %d", stat, do_exec);
			h = rb_find(&s.rb, PERF_RECORD_READ, 0);
			if (!(stat && do_exec) || !h) {
				sb_close(&s);
				continue;
			}
			EXPECT_EQ(h->misc, 0);
			EXPECT_EQ(h->size, 8 + 8 + 32 + SID_SIZE);
			c = rc_init(h);
			EXPECT_EQ(rc_u32(&c), pid);
			EXPECT_EQ(rc_u32(&c), pid);
			val = rc_u64(&c);
			en = rc_u64(&c);
			run = rc_u64(&c);
			EXPECT_GE(val, 20);		/* the child's faults */
			EXPECT_GT(en, 0);
			EXPECT_EQ(run, en);
			EXPECT_EQ(rc_u64(&c), s.id);	/* the primary ID */
			/* Written by the child, through its own event. */
			ASSERT_EQ(perf_sid_parse(h, SID_ALL, &sid), 0);
			EXPECT_EQ(sid.pid, pid);
			EXPECT_EQ(sid.tid, pid);
			EXPECT_EQ(sid.id, s.id);
			EXPECT_NE(sid.stream_id, s.id);
			EXPECT_EQ(sid.cpu, 0);
			sb_close(&s);
		}
	}
}

/* ---- TEXT_POKE, KSYMBOL, BPF_EVENT, CGROUP: nothing in this configuration ---- */

static int open_text_poke_fn(void *arg)
{
	struct perf_event_attr a;
	int fd;

	sb_attr(&a);
	a.text_poke = 1;
	fd = sys_perf_event_open(&a, 0, -1, -1, 0);
	if (fd >= 0)
		return 0;
	return errno == EACCES ? 1 : 2;
}

/*
 * text_poke needs the right to see the kernel (EACCES for an unprivileged
 * user with perf_event_paranoid > 1).  This configuration has no jump
 * labels, kprobes or ftrace, so nothing patches kernel text at run time:
 * turning a software event's static key on and off (which would patch the
 * perf_sw_event() sites with jump labels) writes no TEXT_POKE record.
 */
TEST(text_poke_privilege_and_no_records)
{
	struct sb s = { .fd = -1 };
	long paranoid;
	int fd;

	ASSERT_EQ(read_sysctl("perf_event_paranoid", &paranoid), 0);
	if (paranoid >= 2) {
		EXPECT_EQ(run_unprivileged(open_text_poke_fn, NULL), 1);
	}
	EXPECT_EQ(run_with_caps(1ULL << CAP_PERFMON, open_text_poke_fn, NULL), 0);
	sb_attr(&s.attr);
	s.attr.text_poke = 1;
	ASSERT_EQ(sb_open(&s), 0);
	sb_on(&s);
	fd = open_sw(PERF_COUNT_SW_PAGE_FAULTS_MIN, -1);
	ASSERT_GE(fd, 0);
	touch_pages(4);
	close(fd);
	ASSERT_GE(sb_off(&s), 0);
	EXPECT_EQ(rb_count(&s.rb, 0), 0);
	sb_close(&s);
}

/*
 * ksymbol, bpf_event and cgroup are accepted, but this configuration (no
 * BPF, no kprobes, no CONFIG_CGROUP_PERF) has nothing to report.
 */
TEST(ksymbol_bpf_cgroup_silent)
{
	int k;

	for (k = 0; k < 3; k++) {
		struct sb s = { .fd = -1 };
		pid_t pid;
		void *p;

		sb_attr(&s.attr);
		s.attr.ksymbol = k == 0;
		s.attr.bpf_event = k == 1;
		s.attr.cgroup = k == 2;
		ASSERT_EQ(sb_open(&s), 0);
		sb_on(&s);
		pid = fork();
		ASSERT_GE(pid, 0);
		if (pid == 0)
			_exit(0);
		ASSERT_EQ(reap_child(pid), 0);
		p = map_alone(page_size(), PROT_READ | PROT_EXEC,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		ASSERT_NE(p, NULL);
		mkdir("/sys/fs/cgroup/perf-sideband-test", 0755);
		rmdir("/sys/fs/cgroup/perf-sideband-test");
		ASSERT_GE(sb_off(&s), 0);
		EXPECT_EQ(rb_count(&s.rb, 0), 0) TH_LOG("case %d", k);
		sb_close(&s);
	}
}

/* ---- sample_id_all ---- */

/* Without sample_id_all the records end after their own fields. */
TEST(no_trailer_without_sample_id_all)
{
	struct sb s = { .fd = -1 };
	struct perf_event_header *h;
	struct task_rec t;
	void *p;
	pid_t pid;

	sb_attr(&s.attr);
	s.attr.sample_id_all = 0;
	s.attr.mmap = 1;
	s.attr.comm = 1;
	s.attr.task = 1;
	s.attr.context_switch = 1;
	ASSERT_EQ(sb_open(&s), 0);
	sb_on(&s);
	p = map_alone(page_size(), PROT_READ | PROT_EXEC,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(p, NULL);
	ASSERT_EQ(prctl(PR_SET_NAME, "no-trailer", 0, 0, 0), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0)
		_exit(0);
	ASSERT_EQ(reap_child(pid), 0);
	usleep(1000);
	ASSERT_GE(sb_off(&s), 0);
	rb_rewind(&s.rb);
	while ((h = rb_next(&s.rb))) {
		switch (h->type) {
		case PERF_RECORD_MMAP:
			EXPECT_EQ(h->size, MMAP_FIXED + 8);	/* "//anon" */
			break;
		case PERF_RECORD_COMM:
			EXPECT_EQ(h->size, COMM_FIXED + 16);	/* "no-trailer" */
			break;
		case PERF_RECORD_FORK:
			EXPECT_EQ(h->size, TASK_SIZE_REC);
			parse_task(h, &t);
			EXPECT_EQ(t.pid, pid);
			break;
		case PERF_RECORD_SWITCH:
			EXPECT_EQ(h->size, 8);
			break;
		default:
			EXPECT_EQ(h->type, 0) TH_LOG("unexpected record");
		}
		if (LOOP_FAILED())
			break;
	}
	EXPECT_EQ(rb_count(&s.rb, PERF_RECORD_MMAP), 1);
	EXPECT_EQ(rb_count(&s.rb, PERF_RECORD_COMM), 1);
	EXPECT_EQ(rb_count(&s.rb, PERF_RECORD_FORK), 1);
	EXPECT_GE(rb_count(&s.rb, PERF_RECORD_SWITCH), 2);
	sb_close(&s);
}

/*
 * The trailer has only the id bits of sample_type, in the fixed order
 * TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER; other bits add nothing.
 */
TEST(trailer_follows_sample_type)
{
	static const uint64_t types[] = {
		PERF_SAMPLE_TID, PERF_SAMPLE_TIME | PERF_SAMPLE_IP,
		PERF_SAMPLE_IDENTIFIER, PERF_SAMPLE_ID | PERF_SAMPLE_CPU,
		PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_PERIOD | PERF_SAMPLE_ADDR,
		PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID,
	};
	unsigned int k;

	for (k = 0; k < ARRAY_SIZE(types); k++) {
		struct sb s = { .fd = -1 };
		struct perf_event_header *h;
		struct perf_sid sid;

		ASSERT_EQ(pin_to_cpu(0), 0);
		sb_attr(&s.attr);
		s.attr.sample_type = types[k];
		s.attr.comm = 1;
		ASSERT_EQ(sb_open(&s), 0);
		sb_on(&s);
		ASSERT_EQ(prctl(PR_SET_NAME, "trailer", 0, 0, 0), 0);
		ASSERT_GE(sb_off(&s), 0);
		h = rb_find(&s.rb, PERF_RECORD_COMM, 0);
		ASSERT_NE(h, NULL);
		EXPECT_EQ(h->size, COMM_FIXED + 8 + perf_sid_size(types[k]))
			TH_LOG("sample_type %#llx", (unsigned long long)types[k]);
		ASSERT_EQ(perf_sid_parse(h, types[k], &sid), 0);
		if (types[k] & PERF_SAMPLE_TID) {
			EXPECT_EQ(sid.pid, getpid());
			EXPECT_EQ(sid.tid, gettid());
		}
		if (types[k] & PERF_SAMPLE_TIME) {
			EXPECT_NE(sid.time, 0);
		}
		if (types[k] & PERF_SAMPLE_ID) {
			EXPECT_EQ(sid.id, s.id);
		}
		if (types[k] & PERF_SAMPLE_STREAM_ID) {
			EXPECT_EQ(sid.stream_id, s.id);
		}
		if (types[k] & PERF_SAMPLE_CPU) {
			EXPECT_EQ(sid.cpu, 0);
		}
		if (types[k] & PERF_SAMPLE_IDENTIFIER) {
			EXPECT_EQ(sid.identifier, s.id);
		}
		sb_close(&s);
	}
}

/*
 * Records about another process: MMAP of its data mappings and FORK of
 * its children, with its pid/tid in the records and the trailers.
 */
TEST(records_of_watched_process)
{
	struct sb s = { .fd = -1 };
	struct perf_event_header *h;
	struct mmap_rec m;
	struct task_rec t;
	int n = 0;
	struct worker w;

	ASSERT_EQ(worker_start(&w), 0);
	sb_attr(&s.attr);
	s.attr.mmap_data = 1;
	s.attr.task = 1;
	ASSERT_EQ(sb_open_on(&s, w.pid, -1), 0);
	sb_on(&s);
	ASSERT_EQ(worker_do(&w, W_TOUCH, 4), 0);
	ASSERT_EQ(worker_do(&w, W_TOUCH, 4), 0);
	ASSERT_EQ(worker_do(&w, W_FORK_TOUCH, 1), 0);
	ASSERT_GE(sb_off(&s), 0);
	/* The worker's child: FORK written by the worker, not its EXIT. */
	EXPECT_EQ(rb_count(&s.rb, PERF_RECORD_FORK), 1);
	EXPECT_EQ(rb_count(&s.rb, PERF_RECORD_EXIT), 0);
	h = rb_find(&s.rb, PERF_RECORD_FORK, 0);
	ASSERT_NE(h, NULL);
	parse_task(h, &t);
	EXPECT_NE(t.pid, w.pid);
	EXPECT_EQ(t.tid, t.pid);
	EXPECT_EQ(t.ppid, w.pid);
	EXPECT_EQ(t.ptid, w.pid);
	check_sid(_metadata, h, s.id, w.pid, w.pid, 0, 0, -1);
	rb_rewind(&s.rb);
	while ((h = rb_next(&s.rb))) {
		if (h->type != PERF_RECORD_MMAP)
			continue;
		ASSERT_EQ(parse_mmap(h, 1, &m), 0);
		EXPECT_EQ(m.pid, w.pid);
		EXPECT_EQ(m.tid, w.pid);
		/* The new area may have been merged with a neighbour. */
		EXPECT_GE(m.len, 4 * page_size());
		EXPECT_STREQ(m.name, "//anon");
		check_sid(_metadata, h, s.id, w.pid, w.pid, 0, 0, -1);
		n++;
		if (LOOP_FAILED())
			break;
	}
	EXPECT_EQ(n, 2);
	worker_stop(&w);
	sb_close(&s);
}

TEST_HARNESS_MAIN
