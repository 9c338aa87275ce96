// SPDX-License-Identifier: GPL-2.0
/*
 * prctl(PR_TASK_PERF_EVENTS_DISABLE/ENABLE): both return 0 and act on every
 * event *owned by* the calling thread (the thread that opened it), wherever
 * the event is attached: itself, another task, a CPU, inherited copies in
 * children.  Events opened by other threads or processes, even ones that
 * monitor the caller or whose fds the caller holds, are left alone.  There
 * is no nesting: one ENABLE undoes any number of DISABLEs, and ENABLE also
 * turns on events that were opened disabled or disabled by ioctl.
 */
#include "../kselftest_harness.h"
#include <pthread.h>
#include "perf_worker.h"

#define NPAGES	128

static int open_faults(pid_t pid)
{
	return open_ev(PERF_COUNT_SW_PAGE_FAULTS, pid, -1, -1, 0, 0);
}

static int perf_disable(void)
{
	return prctl(PR_TASK_PERF_EVENTS_DISABLE, 0, 0, 0, 0);
}

static int perf_enable(void)
{
	return prctl(PR_TASK_PERF_EVENTS_ENABLE, 0, 0, 0, 0);
}

/* Both calls return 0, with or without events, whatever the other args. */
TEST(return_values)
{
	int fd;

	EXPECT_EQ(perf_disable(), 0);
	EXPECT_EQ(perf_enable(), 0);
	EXPECT_EQ(prctl(PR_TASK_PERF_EVENTS_DISABLE, 1, 2, 3, 4), 0);
	EXPECT_EQ(prctl(PR_TASK_PERF_EVENTS_ENABLE, 1, 2, 3, 4), 0);
	fd = open_faults(0);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(perf_disable(), 0);
	EXPECT_EQ(perf_enable(), 0);
	close(fd);
}

/* Own events on self: counts and times freeze, then resume. */
TEST(freezes_own_events)
{
	uint64_t a[3], b[3];
	int pf, clk;

	pf = open_faults(0);
	ASSERT_GE(pf, 0);
	clk = open_ev(PERF_COUNT_SW_TASK_CLOCK, 0, -1, -1, F_EN | F_RUN, 0);
	ASSERT_GE(clk, 0);
	burn(1000000);

	ASSERT_EQ(perf_disable(), 0);
	ASSERT_EQ(read(clk, a, sizeof(a)), sizeof(a));
	b[0] = read_count(pf);
	touch_pages(NPAGES);
	burn(3000000);
	EXPECT_EQ(read_count(pf), b[0]);
	ASSERT_EQ(read(clk, b, sizeof(b)), sizeof(b));
	EXPECT_EQ(b[0], a[0]);
	EXPECT_EQ(b[1], a[1]);
	EXPECT_EQ(b[2], a[2]);

	ASSERT_EQ(perf_enable(), 0);
	a[0] = read_count(pf);
	touch_pages(NPAGES);
	EXPECT_GE(read_count(pf), a[0] + NPAGES);
	ASSERT_EQ(read(clk, b, sizeof(b)), sizeof(b));
	EXPECT_GT(b[1], a[1]);
	close(clk);
	close(pf);
}

/* Events we opened on another task are ours: prctl freezes them. */
TEST(covers_events_on_other_task)
{
	struct worker w;
	uint64_t v;
	int fd;

	ASSERT_EQ(worker_start(&w), 0);
	fd = open_faults(w.pid);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(worker_do(&w, W_TOUCH, NPAGES), 0);
	v = read_count(fd);
	EXPECT_GE(v, NPAGES);

	ASSERT_EQ(perf_disable(), 0);
	ASSERT_EQ(worker_do(&w, W_TOUCH, NPAGES), 0);
	EXPECT_EQ(read_count(fd), v);

	ASSERT_EQ(perf_enable(), 0);
	ASSERT_EQ(worker_do(&w, W_TOUCH, NPAGES), 0);
	EXPECT_GE(read_count(fd), v + NPAGES);
	EXPECT_EQ(worker_stop(&w), 0);
	close(fd);
}

/* Per-CPU events we opened are frozen too. */
TEST(covers_percpu_events)
{
	uint64_t v;
	int fd;

	fd = open_ev(PERF_COUNT_SW_CPU_CLOCK, -1, 0, -1, 0, 0);
	ASSERT_GE(fd, 0);
	usleep(10000);
	ASSERT_EQ(perf_disable(), 0);
	v = read_count(fd);
	EXPECT_GT(v, 0);
	usleep(20000);
	EXPECT_EQ(read_count(fd), v);
	ASSERT_EQ(perf_enable(), 0);
	usleep(20000);
	EXPECT_GT(read_count(fd), v);
	close(fd);
}

/* Inherited copies in a running child are disabled and enabled as well. */
TEST(covers_inherited_children)
{
	struct evspec s = { .config = PERF_COUNT_SW_PAGE_FAULTS, .inherit = 1 };
	struct worker w;
	uint64_t v;
	int fd;

	fd = open_spec(&s, 0, -1, -1, 0);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(worker_start(&w), 0);
	ASSERT_EQ(worker_do(&w, W_TOUCH, NPAGES), 0);
	ASSERT_EQ(perf_disable(), 0);
	v = read_count(fd);
	EXPECT_GE(v, NPAGES);
	ASSERT_EQ(worker_do(&w, W_TOUCH, NPAGES), 0);
	EXPECT_EQ(read_count(fd), v);

	ASSERT_EQ(perf_enable(), 0);
	ASSERT_EQ(worker_do(&w, W_TOUCH, NPAGES), 0);
	EXPECT_GE(read_count(fd), v + NPAGES);
	EXPECT_EQ(worker_stop(&w), 0);
	close(fd);
}

/* Leader and siblings are all frozen, and all come back. */
TEST(covers_groups)
{
	uint64_t l, s;
	int leader, sib;

	leader = open_faults(0);
	ASSERT_GE(leader, 0);
	sib = open_ev(PERF_COUNT_SW_PAGE_FAULTS, 0, -1, leader, 0, 0);
	ASSERT_GE(sib, 0);
	ASSERT_EQ(perf_disable(), 0);
	l = read_count(leader);
	s = read_count(sib);
	touch_pages(NPAGES);
	EXPECT_EQ(read_count(leader), l);
	EXPECT_EQ(read_count(sib), s);
	ASSERT_EQ(perf_enable(), 0);
	touch_pages(NPAGES);
	EXPECT_GE(read_count(leader), l + NPAGES);
	EXPECT_GE(read_count(sib), s + NPAGES);
	close(sib);
	close(leader);
}

/* No nesting: two DISABLEs are undone by a single ENABLE. */
TEST(no_nesting)
{
	uint64_t v;
	int fd = open_faults(0);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(perf_disable(), 0);
	ASSERT_EQ(perf_disable(), 0);
	v = read_count(fd);
	touch_pages(NPAGES);
	EXPECT_EQ(read_count(fd), v);
	ASSERT_EQ(perf_enable(), 0);
	touch_pages(NPAGES);
	EXPECT_GE(read_count(fd), v + NPAGES);
	/* Two ENABLEs are harmless too. */
	ASSERT_EQ(perf_enable(), 0);
	ASSERT_EQ(perf_enable(), 0);
	v = read_count(fd);
	touch_pages(NPAGES);
	EXPECT_GE(read_count(fd), v + NPAGES);
	close(fd);
}

/* ENABLE turns on events opened disabled and events disabled by ioctl. */
TEST(enable_overrides_disabled_events)
{
	int opened_off, ioctl_off;

	opened_off = open_ev(PERF_COUNT_SW_PAGE_FAULTS, 0, -1, -1, 0, 1);
	ASSERT_GE(opened_off, 0);
	ioctl_off = open_faults(0);
	ASSERT_GE(ioctl_off, 0);
	ASSERT_EQ(ioctl(ioctl_off, PERF_EVENT_IOC_DISABLE, 0), 0);
	ASSERT_EQ(ioctl(ioctl_off, PERF_EVENT_IOC_RESET, 0), 0);
	touch_pages(NPAGES);
	EXPECT_EQ(read_count(opened_off), 0);
	EXPECT_EQ(read_count(ioctl_off), 0);

	ASSERT_EQ(perf_enable(), 0);
	touch_pages(NPAGES);
	EXPECT_GE(read_count(opened_off), NPAGES);
	EXPECT_GE(read_count(ioctl_off), NPAGES);
	close(ioctl_off);
	close(opened_off);
}

/* After a prctl DISABLE, an ioctl ENABLE revives just that one event. */
TEST(ioctl_enable_after_prctl_disable)
{
	uint64_t a, b;
	int fa, fb;

	fa = open_faults(0);
	ASSERT_GE(fa, 0);
	fb = open_faults(0);
	ASSERT_GE(fb, 0);
	ASSERT_EQ(perf_disable(), 0);
	ASSERT_EQ(ioctl(fa, PERF_EVENT_IOC_ENABLE, 0), 0);
	a = read_count(fa);
	b = read_count(fb);
	touch_pages(NPAGES);
	EXPECT_GE(read_count(fa), a + NPAGES);
	EXPECT_EQ(read_count(fb), b);
	close(fb);
	close(fa);
}

struct thread_ctx {
	pid_t target;
	int fd;
	int op;		/* 0: just open; else prctl op to run after open */
	int ret;
};

static void *thread_open(void *arg)
{
	struct thread_ctx *t = arg;

	t->fd = open_faults(t->target);
	t->ret = t->op ? prctl(t->op, 0, 0, 0, 0) : 0;
	return NULL;
}

/*
 * An event opened by another thread on us belongs to that thread: our
 * prctl leaves it alone, that thread's prctl freezes it.
 */
TEST(owner_is_the_opening_thread)
{
	struct thread_ctx t = { .target = (pid_t)syscall(SYS_gettid) };
	pthread_t th;
	uint64_t v;
	int mine;

	mine = open_faults(0);
	ASSERT_GE(mine, 0);
	ASSERT_EQ(pthread_create(&th, NULL, thread_open, &t), 0);
	ASSERT_EQ(pthread_join(th, NULL), 0);
	ASSERT_GE(t.fd, 0);

	ASSERT_EQ(perf_disable(), 0);
	v = read_count(t.fd);
	touch_pages(NPAGES);
	EXPECT_GE(read_count(t.fd), v + NPAGES);
	ASSERT_EQ(perf_enable(), 0);
	close(t.fd);

	/* Now the other thread disables what it opened, not ours. */
	t.op = PR_TASK_PERF_EVENTS_DISABLE;
	ASSERT_EQ(pthread_create(&th, NULL, thread_open, &t), 0);
	ASSERT_EQ(pthread_join(th, NULL), 0);
	ASSERT_GE(t.fd, 0);
	EXPECT_EQ(t.ret, 0);
	v = read_count(t.fd);
	touch_pages(NPAGES);
	EXPECT_EQ(read_count(t.fd), v);
	EXPECT_GE(read_count(mine), NPAGES);
	close(t.fd);
	close(mine);
}

/* A forked child holding our fds does not own the events. */
TEST(child_prctl_does_not_touch_parent_events)
{
	int fd, status;
	uint64_t v;
	pid_t pid;

	fd = open_faults(0);
	ASSERT_GE(fd, 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0)
		_exit(perf_disable() != 0);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_EQ(status, 0);
	v = read_count(fd);
	touch_pages(NPAGES);
	EXPECT_GE(read_count(fd), v + NPAGES);
	close(fd);
}

/* Another process's event on us keeps counting through our prctl. */
TEST(other_process_event_on_us_unaffected)
{
	int ready[2], done[2], status;
	pid_t parent = getpid(), pid;
	char c;

	ASSERT_EQ(pipe(ready), 0);
	ASSERT_EQ(pipe(done), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		int fd = open_faults(parent);

		if (fd < 0 || write(ready[1], "r", 1) != 1)
			_exit(2);
		if (read(done[0], &c, 1) != 1)
			_exit(3);
		_exit(read_count(fd) >= NPAGES ? 0 : 1);
	}
	ASSERT_EQ(read(ready[0], &c, 1), 1);
	ASSERT_EQ(perf_disable(), 0);
	touch_pages(NPAGES);
	ASSERT_EQ(write(done[1], "d", 1), 1);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(WEXITSTATUS(status), 0);
	ASSERT_EQ(perf_enable(), 0);
}

TEST_HARNESS_MAIN
