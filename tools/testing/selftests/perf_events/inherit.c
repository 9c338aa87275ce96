// SPDX-License-Identifier: GPL-2.0
/*
 * attr.inherit and friends: counts of forked children, threads and
 * grandchildren are included in the parent event while they run and folded
 * into it when they exit, and a reset forgets them; inherit=0 ignores them; inherit_thread follows
 * threads but not forks; inherited groups read with PERF_FORMAT_GROUP
 * (accepted, and ECHILD once the parent's group no longer matches the
 * children's); inherit_stat; enable_on_exec counts only from exec on;
 * remove_on_exec and sigtrap open-time rules and the removal at exec.
 */
#include "../kselftest_harness.h"
#include <pthread.h>
#include "perf_worker.h"

#define NPAGES	256

/* An inherited page-fault counter on the calling task. */
static int open_faults(int inherit)
{
	struct evspec s = {
		.config = PERF_COUNT_SW_PAGE_FAULTS,
		.inherit = inherit,
	};

	return open_spec(&s, 0, -1, -1, 0);
}

static void *thread_touch(void *arg)
{
	touch_pages((int)(long)arg);
	return NULL;
}

/* Run a thread that touches @n pages and join it; 0 on success. */
static int thread_touch_join(int n)
{
	pthread_t t;

	if (pthread_create(&t, NULL, thread_touch, (void *)(long)n))
		return -1;
	return pthread_join(t, NULL);
}

/* A forked child's page faults land in the parent's event at exit. */
TEST(child_counts_folded_at_exit)
{
	uint64_t before, after;
	int fd = open_faults(1);

	ASSERT_GE(fd, 0);
	before = read_count(fd);
	ASSERT_EQ(touch_in_child(-1, NPAGES), 0);
	after = read_count(fd);
	EXPECT_GE(after, before + NPAGES);
	close(fd);
}

/*
 * PERF_EVENT_IOC_RESET zeroes the count read() reports, which includes
 * what exited children counted: after a reset of a disabled event the
 * count is 0, as perf_event_open(2) describes the reset.
 */
TEST(reset_forgets_exited_children)
{
	int fd = open_faults(1);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(touch_in_child(-1, NPAGES), 0);
	ASSERT_EQ(ioctl(fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	EXPECT_GE(read_count(fd), NPAGES);
	ASSERT_EQ(ioctl(fd, PERF_EVENT_IOC_RESET, 0), 0);
	EXPECT_EQ(read_count(fd), 0);
	close(fd);
}

/* The child's CPU time shows up in an inherited task-clock. */
TEST(child_task_clock_folded)
{
	struct evspec s = { .config = PERF_COUNT_SW_TASK_CLOCK, .inherit = 1 };
	uint64_t before, after, child_ns = 0;
	int fd, p[2], status;
	pid_t pid;

	fd = open_spec(&s, 0, -1, -1, 0);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(pipe(p), 0);
	before = read_count(fd);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		uint64_t t0 = thread_ns();

		burn(30000000);
		t0 = thread_ns() - t0;
		_exit(write(p[1], &t0, sizeof(t0)) != sizeof(t0));
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_EQ(status, 0);
	ASSERT_EQ(read(p[0], &child_ns, sizeof(child_ns)), sizeof(child_ns));
	after = read_count(fd);
	ASSERT_GT(child_ns, 0);
	/* At least the child's own measured CPU time, give or take. */
	EXPECT_GE(after - before, child_ns / 2);
	close(fd);
}

/*
 * A running child's count is included in read(); once it exits the same
 * faults are folded in, not counted twice.
 */
TEST(running_child_included_once)
{
	uint64_t base, running, exited;
	struct worker w;
	int fd = open_faults(1);

	ASSERT_GE(fd, 0);
	base = read_count(fd);
	ASSERT_EQ(worker_start(&w), 0);
	ASSERT_EQ(worker_do(&w, W_TOUCH, NPAGES), 0);
	running = read_count(fd);
	EXPECT_GE(running, base + NPAGES);
	ASSERT_EQ(worker_stop(&w), 0);
	exited = read_count(fd);
	EXPECT_GE(exited, running);
	EXPECT_LT(exited, base + 2 * NPAGES);
	close(fd);
}

/* Without inherit, children are not counted at all. */
TEST(no_inherit_ignores_children)
{
	uint64_t before, after;
	int fd = open_faults(0);

	ASSERT_GE(fd, 0);
	before = read_count(fd);
	ASSERT_EQ(touch_in_child(-1, NPAGES), 0);
	ASSERT_EQ(thread_touch_join(NPAGES), 0);
	after = read_count(fd);
	/* Only our own few faults (fork COW, thread stack). */
	EXPECT_LT(after - before, NPAGES / 2);
	close(fd);
}

/* Plain inherit follows threads as well as forks. */
TEST(inherit_counts_threads)
{
	uint64_t before, after;
	int fd = open_faults(1);

	ASSERT_GE(fd, 0);
	before = read_count(fd);
	ASSERT_EQ(thread_touch_join(NPAGES), 0);
	after = read_count(fd);
	EXPECT_GE(after, before + NPAGES);
	close(fd);
}

/* inherit_thread: threads are counted, forked processes are not. */
TEST(inherit_thread_only_threads)
{
	struct evspec s = {
		.config = PERF_COUNT_SW_PAGE_FAULTS,
		.inherit = 1,
		.inherit_thread = 1,
	};
	uint64_t a, b, c;
	int fd = open_spec(&s, 0, -1, -1, 0);

	ASSERT_GE(fd, 0);
	a = read_count(fd);
	ASSERT_EQ(thread_touch_join(NPAGES), 0);
	b = read_count(fd);
	EXPECT_GE(b, a + NPAGES);
	ASSERT_EQ(touch_in_child(-1, NPAGES), 0);
	c = read_count(fd);
	EXPECT_LT(c - b, NPAGES / 2);
	close(fd);
}

/* inherit_thread without inherit is EINVAL. */
TEST(inherit_thread_requires_inherit)
{
	struct evspec s = {
		.config = PERF_COUNT_SW_PAGE_FAULTS,
		.inherit_thread = 1,
	};

	errno = 0;
	EXPECT_EQ(open_spec(&s, 0, -1, -1, 0), -1);
	EXPECT_EQ(errno, EINVAL);
}

/*
 * inherit with PERF_FORMAT_GROUP is accepted; the group read sums each
 * member over the children, running or exited.
 */
TEST(inherit_group_read)
{
	struct evspec s = {
		.config = PERF_COUNT_SW_PAGE_FAULTS,
		.fmt = F_GRP | F_ID,
		.inherit = 1,
	};
	uint64_t buf[1 + 2 * 2], base[2];
	struct worker w;
	int leader, sib;

	leader = open_spec(&s, 0, -1, -1, 0);
	ASSERT_GE(leader, 0);
	sib = open_spec(&s, 0, -1, leader, 0);
	ASSERT_GE(sib, 0);
	ASSERT_EQ(read(leader, buf, sizeof(buf)), sizeof(buf));
	base[0] = buf[1];
	base[1] = buf[3];

	ASSERT_EQ(worker_start(&w), 0);
	ASSERT_EQ(worker_do(&w, W_TOUCH, NPAGES), 0);
	ASSERT_EQ(read(sib, buf, sizeof(buf)), sizeof(buf));
	EXPECT_EQ(buf[0], 2);
	EXPECT_EQ(buf[2], event_id(leader));
	EXPECT_EQ(buf[4], event_id(sib));
	EXPECT_GE(buf[1], base[0] + NPAGES);
	EXPECT_GE(buf[3], base[1] + NPAGES);

	ASSERT_EQ(worker_stop(&w), 0);
	ASSERT_EQ(read(leader, buf, sizeof(buf)), sizeof(buf));
	EXPECT_EQ(buf[0], 2);
	EXPECT_GE(buf[1], base[0] + NPAGES);
	EXPECT_GE(buf[3], base[1] + NPAGES);
	close(sib);
	close(leader);
}

/*
 * Adding a sibling to an inherited group after a child inherited it makes
 * the group read fail with ECHILD while that child lives; a read without
 * GROUP is unaffected, and the group read works again after the child exits.
 */
TEST(inherit_group_changed_after_fork_echild)
{
	struct evspec s = {
		.config = PERF_COUNT_SW_PAGE_FAULTS,
		.fmt = F_GRP,
		.inherit = 1,
	};
	struct evspec plain = {
		.config = PERF_COUNT_SW_PAGE_FAULTS,
		.inherit = 1,
	};
	uint64_t buf[1 + 3];
	struct worker w;
	int leader, sib, late, single, pin;

	/*
	 * A non-inherited event keeps the child's context from being a full
	 * clone of ours; otherwise the two contexts may be swapped at a
	 * context switch between us and the child, and the leader would then
	 * live in the child's context (and the open below fail with EINVAL).
	 */
	pin = open_faults(0);
	ASSERT_GE(pin, 0);
	leader = open_spec(&s, 0, -1, -1, 0);
	ASSERT_GE(leader, 0);
	sib = open_spec(&s, 0, -1, leader, 0);
	ASSERT_GE(sib, 0);
	ASSERT_EQ(worker_start(&w), 0);
	ASSERT_EQ(worker_do(&w, W_TOUCH, NPAGES), 0);

	single = open_spec(&plain, 0, -1, leader, 0);
	ASSERT_GE(single, 0) TH_LOG("open: %s", strerror(errno));
	late = single;
	errno = 0;
	EXPECT_EQ(read(leader, buf, sizeof(buf)), -1);
	EXPECT_EQ(errno, ECHILD);
	errno = 0;
	EXPECT_EQ(read(sib, buf, sizeof(buf)), -1);
	EXPECT_EQ(errno, ECHILD);
	/* The new member reads only itself: no group walk, no error. */
	EXPECT_NE(read_count(late), (uint64_t)-1);

	ASSERT_EQ(worker_stop(&w), 0);
	ASSERT_EQ(read(leader, buf, sizeof(buf)), 8 * 4);
	EXPECT_EQ(buf[0], 3);
	EXPECT_GE(buf[1], NPAGES);
	close(late);
	close(sib);
	close(leader);
	close(pin);
}

/*
 * Closing a sibling after fork also removes the children's copies of it,
 * so the groups still match: the group read keeps working, one member
 * smaller, and still includes the running child.
 */
TEST(inherit_group_sibling_closed_after_fork)
{
	struct evspec s = {
		.config = PERF_COUNT_SW_PAGE_FAULTS,
		.fmt = F_GRP,
		.inherit = 1,
	};
	uint64_t buf[1 + 3];
	struct worker w;
	int leader, sib[2];

	leader = open_spec(&s, 0, -1, -1, 0);
	ASSERT_GE(leader, 0);
	sib[0] = open_spec(&s, 0, -1, leader, 0);
	ASSERT_GE(sib[0], 0);
	sib[1] = open_spec(&s, 0, -1, leader, 0);
	ASSERT_GE(sib[1], 0);
	ASSERT_EQ(worker_start(&w), 0);
	ASSERT_EQ(worker_do(&w, W_TOUCH, NPAGES), 0);
	ASSERT_EQ(read(leader, buf, sizeof(buf)), 8 * 4);
	EXPECT_EQ(buf[0], 3);

	close(sib[1]);
	ASSERT_EQ(read(leader, buf, sizeof(buf)), 8 * 3);
	EXPECT_EQ(buf[0], 2);
	EXPECT_GE(buf[1], NPAGES);
	EXPECT_GE(buf[2], NPAGES);
	ASSERT_EQ(worker_stop(&w), 0);
	ASSERT_EQ(read(leader, buf, sizeof(buf)), 8 * 3);
	EXPECT_EQ(buf[0], 2);
	EXPECT_GE(buf[2], NPAGES);
	close(sib[0]);
	close(leader);
}

/* inherit + PERF_SAMPLE_READ needs PERF_SAMPLE_TID. */
TEST(inherit_sample_read_needs_tid)
{
	struct perf_event_attr attr;
	int fd;

	sw_attr(&attr, PERF_COUNT_SW_TASK_CLOCK);
	attr.inherit = 1;
	attr.sample_period = 1000000;
	attr.sample_type = PERF_SAMPLE_READ;
	errno = 0;
	EXPECT_EQ(sys_perf_event_open(&attr, 0, -1, -1, 0), -1);
	EXPECT_EQ(errno, EINVAL);
	attr.sample_type = PERF_SAMPLE_READ | PERF_SAMPLE_TID;
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	EXPECT_GE(fd, 0);
	close(fd);
	/* Without inherit, SAMPLE_READ alone is fine. */
	attr.inherit = 0;
	attr.sample_type = PERF_SAMPLE_READ;
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	EXPECT_GE(fd, 0);
	close(fd);
}

/* inherit_stat is accepted, with or without inherit, and changes no count. */
TEST(inherit_stat_accepted)
{
	struct evspec s = {
		.config = PERF_COUNT_SW_PAGE_FAULTS,
		.inherit = 1,
		.inherit_stat = 1,
	};
	uint64_t before;
	int fd, fd2;

	fd = open_spec(&s, 0, -1, -1, 0);
	ASSERT_GE(fd, 0);
	s.inherit = 0;
	fd2 = open_spec(&s, 0, -1, -1, 0);
	ASSERT_GE(fd2, 0);
	before = read_count(fd);
	ASSERT_EQ(touch_in_child(-1, NPAGES), 0);
	EXPECT_GE(read_count(fd), before + NPAGES);
	close(fd2);
	close(fd);
}

/* 50 children at once: all of them counted, while running and after. */
TEST(fifty_children)
{
	uint64_t base, alive, done;
	int fd, i, p[2], status, go[2];
	pid_t pid[50];
	char c;

	fd = open_faults(1);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(pipe(p), 0);
	ASSERT_EQ(pipe(go), 0);
	base = read_count(fd);
	for (i = 0; i < 50; i++) {
		pid[i] = fork();
		ASSERT_GE(pid[i], 0);
		if (pid[i] == 0) {
			close(go[1]);
			touch_pages(20);
			if (write(p[1], "x", 1) != 1)
				_exit(1);
			/* Stay alive until the parent closes the pipe. */
			while (read(go[0], &c, 1) > 0)
				;
			_exit(0);
		}
	}
	close(go[0]);
	for (i = 0; i < 50; i++)
		ASSERT_EQ(read(p[0], &c, 1), 1);
	alive = read_count(fd);
	EXPECT_GE(alive, base + 50 * 20);
	close(go[1]);
	for (i = 0; i < 50; i++) {
		ASSERT_EQ(waitpid(pid[i], &status, 0), pid[i]);
		EXPECT_EQ(status, 0);
	}
	done = read_count(fd);
	EXPECT_GE(done, alive);
	/* Exiting adds only a few faults; nothing is counted twice. */
	EXPECT_LT(done - alive, 50 * 20 / 2);
	close(fd);
}

/* Grandchildren inherit from the children and are counted too. */
TEST(grandchildren_counted)
{
	uint64_t before;
	int fd, status;
	pid_t pid;

	fd = open_faults(1);
	ASSERT_GE(fd, 0);
	before = read_count(fd);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0)
		_exit(touch_in_child(-1, NPAGES));
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_EQ(status, 0);
	EXPECT_GE(read_count(fd), before + NPAGES);
	close(fd);
}

/* inherit on an event attached to another task follows that task's forks. */
TEST(inherit_on_other_task)
{
	struct evspec s = { .config = PERF_COUNT_SW_PAGE_FAULTS, .inherit = 1 };
	struct worker w;
	uint64_t before;
	int fd, plain;

	ASSERT_EQ(worker_start(&w), 0);
	fd = open_spec(&s, w.pid, -1, -1, 0);
	ASSERT_GE(fd, 0);
	s.inherit = 0;
	plain = open_spec(&s, w.pid, -1, -1, 0);
	ASSERT_GE(plain, 0);
	before = read_count(plain);
	ASSERT_EQ(worker_do(&w, W_FORK_TOUCH, NPAGES), 0);
	EXPECT_GE(read_count(fd), NPAGES);
	EXPECT_LT(read_count(plain) - before, NPAGES / 2);
	EXPECT_EQ(worker_stop(&w), 0);
	close(plain);
	close(fd);
}

/*
 * enable_on_exec: a disabled event on a task stays at zero until that task
 * execs, then counts; a disabled event without the flag stays at zero.
 */
TEST(enable_on_exec_counts_after_exec)
{
	struct evspec s = {
		.config = PERF_COUNT_SW_PAGE_FAULTS,
		.fmt = F_EN | F_RUN,
		.disabled = 1,
		.enable_on_exec = 1,
	};
	uint64_t v[3];
	struct worker w;
	int fd, clk, plain;

	ASSERT_EQ(worker_start(&w), 0);
	fd = open_spec(&s, w.pid, -1, -1, 0);
	ASSERT_GE(fd, 0);
	s.config = PERF_COUNT_SW_TASK_CLOCK;
	s.fmt = 0;
	clk = open_spec(&s, w.pid, -1, -1, 0);
	ASSERT_GE(clk, 0);
	s.config = PERF_COUNT_SW_PAGE_FAULTS;
	s.enable_on_exec = 0;
	plain = open_spec(&s, w.pid, -1, -1, 0);
	ASSERT_GE(plain, 0);

	ASSERT_EQ(worker_do(&w, W_TOUCH, NPAGES), 0);
	ASSERT_EQ(worker_do(&w, W_BURN, 20), 0);
	ASSERT_EQ(read(fd, v, sizeof(v)), sizeof(v));
	EXPECT_EQ(v[0], 0);
	EXPECT_EQ(v[1], 0);
	EXPECT_EQ(v[2], 0);
	EXPECT_EQ(read_count(clk), 0);

	ASSERT_EQ(worker_do(&w, W_EXEC, 0), 0);
	ASSERT_EQ(worker_do(&w, W_TOUCH, NPAGES), 0);
	ASSERT_EQ(read(fd, v, sizeof(v)), sizeof(v));
	EXPECT_GE(v[0], NPAGES);
	EXPECT_GT(v[1], 0);
	EXPECT_GT(v[2], 0);
	EXPECT_GT(read_count(clk), 0);
	EXPECT_EQ(read_count(plain), 0);
	EXPECT_EQ(worker_stop(&w), 0);
	close(plain);
	close(clk);
	close(fd);
}

/* enable_on_exec is one-shot: a disable after the exec sticks. */
TEST(enable_on_exec_once)
{
	struct evspec s = {
		.config = PERF_COUNT_SW_PAGE_FAULTS,
		.disabled = 1,
		.enable_on_exec = 1,
	};
	struct worker w;
	uint64_t v;
	int fd;

	ASSERT_EQ(worker_start(&w), 0);
	fd = open_spec(&s, w.pid, -1, -1, 0);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(worker_do(&w, W_EXEC, 0), 0);
	ASSERT_EQ(worker_do(&w, W_TOUCH, NPAGES), 0);
	ASSERT_EQ(ioctl(fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	v = read_count(fd);
	EXPECT_GE(v, NPAGES);
	ASSERT_EQ(worker_do(&w, W_EXEC, 0), 0);
	ASSERT_EQ(worker_do(&w, W_TOUCH, NPAGES), 0);
	EXPECT_EQ(read_count(fd), v);
	EXPECT_EQ(worker_stop(&w), 0);
	close(fd);
}

/* Open-time rules of remove_on_exec and sigtrap. */
TEST(remove_on_exec_sigtrap_rules)
{
	struct perf_event_attr attr;
	int fd;

	sw_attr(&attr, PERF_COUNT_SW_TASK_CLOCK);
	attr.remove_on_exec = 1;
	attr.enable_on_exec = 1;
	attr.disabled = 1;
	errno = 0;
	EXPECT_EQ(sys_perf_event_open(&attr, 0, -1, -1, 0), -1);
	EXPECT_EQ(errno, EINVAL);

	sw_attr(&attr, PERF_COUNT_SW_TASK_CLOCK);
	attr.sigtrap = 1;
	errno = 0;
	EXPECT_EQ(sys_perf_event_open(&attr, 0, -1, -1, 0), -1);
	EXPECT_EQ(errno, EINVAL);

	/* sigtrap needs a task: not allowed on a per-CPU event. */
	attr.remove_on_exec = 1;
	errno = 0;
	EXPECT_EQ(sys_perf_event_open(&attr, -1, 0, -1, 0), -1);
	EXPECT_EQ(errno, EINVAL);

	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	EXPECT_GE(fd, 0);
	close(fd);

	/* remove_on_exec alone, also with inherit, is fine. */
	sw_attr(&attr, PERF_COUNT_SW_TASK_CLOCK);
	attr.remove_on_exec = 1;
	attr.inherit = 1;
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	EXPECT_GE(fd, 0);
	close(fd);
}

/*
 * remove_on_exec: the event counts until the task execs, then is removed:
 * its count freezes, ENABLE cannot revive it, and it is dead as a group
 * leader (ENODEV).  An event without the flag keeps counting.
 */
TEST(remove_on_exec_removes_at_exec)
{
	struct evspec s = {
		.config = PERF_COUNT_SW_PAGE_FAULTS,
		.remove_on_exec = 1,
	};
	uint64_t v, k;
	struct worker w;
	int fd, keep;

	ASSERT_EQ(worker_start(&w), 0);
	fd = open_spec(&s, w.pid, -1, -1, 0);
	ASSERT_GE(fd, 0);
	s.remove_on_exec = 0;
	keep = open_spec(&s, w.pid, -1, -1, 0);
	ASSERT_GE(keep, 0);

	ASSERT_EQ(worker_do(&w, W_TOUCH, NPAGES), 0);
	EXPECT_GE(read_count(fd), NPAGES);
	ASSERT_EQ(worker_do(&w, W_EXEC, 0), 0);
	v = read_count(fd);
	k = read_count(keep);
	ASSERT_EQ(worker_do(&w, W_TOUCH, NPAGES), 0);
	EXPECT_EQ(read_count(fd), v);
	EXPECT_GE(read_count(keep), k + NPAGES);

	EXPECT_EQ(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	ASSERT_EQ(worker_do(&w, W_TOUCH, NPAGES), 0);
	EXPECT_EQ(read_count(fd), v);

	errno = 0;
	EXPECT_EQ(open_spec(&s, w.pid, -1, fd, 0), -1);
	EXPECT_EQ(errno, ENODEV);
	EXPECT_EQ(worker_stop(&w), 0);
	close(keep);
	close(fd);
}

/*
 * A remove_on_exec member of a group that stays: at the exec it leaves
 * the group and leads a group of its own, so once its old leader is
 * closed, group ioctls and reads of the member see the member alone.
 */
TEST(remove_on_exec_member_outlives_leader)
{
	struct evspec s = {
		.config = PERF_COUNT_SW_TASK_CLOCK,
		.fmt = F_GRP,
	};
	struct worker w;
	uint64_t buf[4];
	int leader, member;

	/* The stock kernel uses the freed leader here (see hotplug.c). */
	if (access("/sys/bus/event_source/devices/perf_test", F_OK))
		SKIP(return, "would use freed memory on a kernel without the fix");
	ASSERT_EQ(worker_start(&w), 0);
	leader = open_spec(&s, w.pid, -1, -1, 0);
	ASSERT_GE(leader, 0);
	s.config = PERF_COUNT_SW_PAGE_FAULTS;
	s.remove_on_exec = 1;
	member = open_spec(&s, w.pid, -1, leader, 0);
	ASSERT_GE(member, 0);
	ASSERT_EQ(worker_do(&w, W_EXEC, 0), 0);
	close(leader);
	/* Its memory is freed after a grace period: let that pass. */
	usleep(200000);
	EXPECT_EQ(ioctl(member, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP), 0);
	EXPECT_EQ(read(member, buf, sizeof(buf)), 16);
	EXPECT_EQ(buf[0], 1);
	EXPECT_EQ(worker_stop(&w), 0);
	close(member);
}

TEST_HARNESS_MAIN
