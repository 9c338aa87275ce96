// SPDX-License-Identifier: GPL-2.0
/*
 * Event lifetime: reading and ioctls after the monitored task exited (final,
 * frozen counts; a group stays whole), poll() semantics (POLLHUP once the
 * task and every inheriting child are gone, and always without a ring
 * buffer), exec of the monitored task keeps its events, event fds passed
 * over a unix socket (SCM_RIGHTS) and used by the receiver, events that
 * outlive the task that opened them, thousands of events at once, open/close
 * loops, exited events as group_fd (ENODEV), opening on a dead task (ESRCH),
 * closing a leader while its task still runs, and what the event file looks
 * like from user space.
 */
#include "../kselftest_harness.h"
#include <sys/socket.h>
#include <sys/stat.h>
#include <fcntl.h>
#include "perf_worker.h"

#define NPAGES	128
#define NEVENTS	4000

static int open_faults(pid_t pid)
{
	return open_ev(PERF_COUNT_SW_PAGE_FAULTS, pid, -1, -1, 0, 0);
}

/* Send @fd and a u64 over a unix socket. */
static int send_fd(int sock, int fd, uint64_t data)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = &data, .iov_len = sizeof(data) };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = cbuf,
		.msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm;

	memset(cbuf, 0, sizeof(cbuf));
	cm = CMSG_FIRSTHDR(&msg);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	return sendmsg(sock, &msg, 0) == sizeof(data) ? 0 : -1;
}

/* Receive an fd and a u64; returns the fd or -1. */
static int recv_fd(int sock, uint64_t *data)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = data, .iov_len = sizeof(*data) };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = cbuf,
		.msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm;
	int fd;

	if (recvmsg(sock, &msg, 0) != sizeof(*data))
		return -1;
	cm = CMSG_FIRSTHDR(&msg);
	if (!cm || cm->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}

/* After the task exits, read() returns the final count and times, frozen. */
TEST(read_after_exit_final)
{
	uint64_t a[3], b[3];
	struct worker w;
	int fd;

	ASSERT_EQ(worker_start(&w), 0);
	fd = open_ev(PERF_COUNT_SW_PAGE_FAULTS, w.pid, -1, -1, F_EN | F_RUN, 0);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(worker_do(&w, W_TOUCH, NPAGES), 0);
	ASSERT_EQ(worker_stop(&w), 0);

	ASSERT_EQ(read(fd, a, sizeof(a)), sizeof(a));
	EXPECT_GE(a[0], NPAGES);
	EXPECT_GT(a[1], 0);
	EXPECT_LE(a[2], a[1]);
	usleep(20000);
	touch_pages(NPAGES);
	ASSERT_EQ(read(fd, b, sizeof(b)), sizeof(b));
	EXPECT_EQ(memcmp(a, b, sizeof(a)), 0);
	close(fd);
}

/*
 * ioctls on an exited event succeed; ENABLE does not restart it, RESET
 * still zeroes the count.
 */
TEST(ioctls_after_exit)
{
	struct worker w;
	uint64_t v, id;
	int fd;

	ASSERT_EQ(worker_start(&w), 0);
	fd = open_faults(w.pid);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(worker_do(&w, W_TOUCH, NPAGES), 0);
	ASSERT_EQ(worker_stop(&w), 0);
	v = read_count(fd);
	EXPECT_GE(v, NPAGES);

	EXPECT_EQ(ioctl(fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	EXPECT_EQ(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	EXPECT_EQ(read_count(fd), v);
	EXPECT_EQ(ioctl(fd, PERF_EVENT_IOC_ID, &id), 0);
	EXPECT_NE(id, 0);
	EXPECT_EQ(ioctl(fd, PERF_EVENT_IOC_RESET, 0), 0);
	EXPECT_EQ(read_count(fd), 0);
	close(fd);
}

/* A group whose task exited stays a group: the whole group is read. */
TEST(group_read_after_exit)
{
	uint64_t fmt = F_GRP | F_ID;
	uint64_t buf[1 + 2 * 3];
	struct worker w;
	int fd[3], i;

	ASSERT_EQ(worker_start(&w), 0);
	for (i = 0; i < 3; i++) {
		fd[i] = open_ev(PERF_COUNT_SW_PAGE_FAULTS, w.pid, -1,
				i ? fd[0] : -1, fmt, 0);
		ASSERT_GE(fd[i], 0);
	}
	ASSERT_EQ(worker_do(&w, W_TOUCH, NPAGES), 0);
	ASSERT_EQ(worker_stop(&w), 0);
	ASSERT_EQ(read(fd[2], buf, sizeof(buf)), sizeof(buf));
	EXPECT_EQ(buf[0], 3);
	for (i = 0; i < 3; i++) {
		EXPECT_GE(buf[1 + 2 * i], NPAGES);
		EXPECT_EQ(buf[2 + 2 * i], event_id(fd[i]));
	}
	for (i = 0; i < 3; i++)
		close(fd[i]);
}

/* An exited event cannot lead a new group: ENODEV, even with NO_GROUP. */
TEST(exited_event_as_group_fd_enodev)
{
	struct perf_event_attr attr;
	struct worker w;
	int fd;

	ASSERT_EQ(worker_start(&w), 0);
	fd = open_faults(w.pid);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(worker_stop(&w), 0);

	errno = 0;
	EXPECT_EQ(open_ev(PERF_COUNT_SW_PAGE_FAULTS, 0, -1, fd, 0, 0), -1);
	EXPECT_EQ(errno, ENODEV);
	sw_attr(&attr, PERF_COUNT_SW_PAGE_FAULTS);
	errno = 0;
	EXPECT_EQ(sys_perf_event_open(&attr, 0, -1, fd,
				      PERF_FLAG_FD_NO_GROUP), -1);
	EXPECT_EQ(errno, ENODEV);
	errno = 0;
	EXPECT_EQ(sys_perf_event_open(&attr, -1, 0, fd, 0), -1);
	EXPECT_EQ(errno, ENODEV);
	close(fd);
}

/* Opening on a zombie or a reaped task: ESRCH. */
TEST(open_on_dead_task_esrch)
{
	siginfo_t si;
	pid_t pid;

	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0)
		_exit(0);
	/* Wait for the exit but leave the zombie in place. */
	ASSERT_EQ(waitid(P_PID, pid, &si, WEXITED | WNOWAIT), 0);
	errno = 0;
	EXPECT_EQ(open_faults(pid), -1);
	EXPECT_EQ(errno, ESRCH);
	ASSERT_EQ(waitpid(pid, NULL, 0), pid);
	errno = 0;
	EXPECT_EQ(open_faults(pid), -1);
	EXPECT_EQ(errno, ESRCH);
}

/* Without a ring buffer, poll() reports POLLHUP at any time. */
TEST(poll_without_buffer_is_hup)
{
	struct worker w;
	int fd;

	ASSERT_EQ(worker_start(&w), 0);
	fd = open_faults(w.pid);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(poll_now(fd), POLLHUP);
	ASSERT_EQ(worker_stop(&w), 0);
	EXPECT_EQ(poll_now(fd), POLLHUP);
	close(fd);
}

/* With a ring buffer: nothing while the task lives, POLLHUP after exit. */
TEST(poll_hup_after_exit)
{
	struct worker w;
	void *rb;
	int fd;

	ASSERT_EQ(worker_start(&w), 0);
	fd = open_faults(w.pid);
	ASSERT_GE(fd, 0);
	rb = map_rb(fd);
	ASSERT_NE(rb, NULL);
	ASSERT_EQ(worker_do(&w, W_TOUCH, NPAGES), 0);
	EXPECT_EQ(poll_now(fd), 0);
	ASSERT_EQ(worker_stop(&w), 0);
	EXPECT_EQ(poll_now(fd), POLLHUP);
	unmap_rb(rb);
	close(fd);
}

/* A blocking poll() is woken by the exit of the monitored task. */
TEST(poll_wakes_on_exit)
{
	struct pollfd p;
	struct worker w;
	struct timespec t0, t1;
	void *rb;
	int fd;

	ASSERT_EQ(worker_start(&w), 0);
	fd = open_faults(w.pid);
	ASSERT_GE(fd, 0);
	rb = map_rb(fd);
	ASSERT_NE(rb, NULL);
	ASSERT_EQ(worker_send(&w, W_SLEEP_EXIT, 200), 0);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	p.fd = fd;
	p.events = POLLIN;
	p.revents = 0;
	EXPECT_EQ(poll(&p, 1, 20000), 1);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	EXPECT_EQ(p.revents, POLLHUP);
	EXPECT_LT(t1.tv_sec - t0.tv_sec, 15);
	EXPECT_EQ(worker_reap(&w), 0);
	unmap_rb(rb);
	close(fd);
}

/*
 * With inherit, POLLHUP waits until the task and all children that
 * inherited the event have exited.  (A ring buffer is needed to see
 * anything but POLLHUP, and inherit events need a CPU for that.)
 */
TEST(poll_hup_waits_for_inheriting_children)
{
	long psz = sysconf(_SC_PAGESIZE);
	struct evspec s = { .config = PERF_COUNT_SW_PAGE_FAULTS, .inherit = 1 };
	int start[2], hold[2], ready[2], status;
	struct pollfd p;
	pid_t pid;
	void *rb;
	char c;
	int fd;

	ASSERT_EQ(pipe(start), 0);
	ASSERT_EQ(pipe(hold), 0);
	ASSERT_EQ(pipe(ready), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		close(start[1]);
		close(hold[1]);
		if (read(start[0], &c, 1) != 1)
			_exit(1);
		if (fork() == 0) {
			/* Grandchild: stays until the hold pipe closes. */
			if (write(ready[1], "r", 1) != 1)
				_exit(1);
			while (read(hold[0], &c, 1) > 0)
				;
			_exit(0);
		}
		_exit(0);
	}
	close(hold[0]);
	/* An inherited any-CPU event cannot be mmapped... */
	fd = open_spec(&s, pid, -1, -1, 0);
	ASSERT_GE(fd, 0);
	errno = 0;
	EXPECT_EQ(mmap(NULL, 2 * psz, PROT_READ | PROT_WRITE, MAP_SHARED,
		       fd, 0), MAP_FAILED);
	EXPECT_EQ(errno, EINVAL);
	close(fd);
	/* ...a CPU-bound one can. */
	fd = open_spec(&s, pid, 0, -1, 0);
	ASSERT_GE(fd, 0);
	rb = map_rb(fd);
	ASSERT_NE(rb, NULL);
	ASSERT_EQ(write(start[1], "s", 1), 1);
	ASSERT_EQ(read(ready[0], &c, 1), 1);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_EQ(status, 0);

	/* The direct child is gone, the grandchild still counts. */
	EXPECT_EQ(poll_now(fd), 0);
	/* Release the grandchild; its exit wakes the poll with POLLHUP. */
	close(hold[1]);
	p.fd = fd;
	p.events = POLLIN;
	p.revents = 0;
	EXPECT_EQ(poll(&p, 1, 20000), 1);
	EXPECT_EQ(p.revents, POLLHUP);
	unmap_rb(rb);
	close(fd);
}

/* Events on a task survive its exec and keep counting. */
TEST(exec_keeps_counting)
{
	uint64_t before;
	struct worker w;
	int fd, clk;

	ASSERT_EQ(worker_start(&w), 0);
	fd = open_faults(w.pid);
	ASSERT_GE(fd, 0);
	clk = open_ev(PERF_COUNT_SW_TASK_CLOCK, w.pid, -1, -1, 0, 0);
	ASSERT_GE(clk, 0);
	ASSERT_EQ(worker_do(&w, W_TOUCH, NPAGES), 0);
	ASSERT_EQ(worker_do(&w, W_EXEC, 0), 0);
	before = read_count(fd);
	EXPECT_GE(before, NPAGES);
	ASSERT_EQ(worker_do(&w, W_TOUCH, NPAGES), 0);
	EXPECT_GE(read_count(fd), before + NPAGES);
	before = read_count(clk);
	ASSERT_EQ(worker_do(&w, W_BURN, 20), 0);
	EXPECT_GT(read_count(clk), before);
	EXPECT_EQ(worker_stop(&w), 0);
	close(clk);
	close(fd);
}

/*
 * An fd passed over SCM_RIGHTS is the same event in the receiver: same ID,
 * it sees the sender's activity, and its ioctls act on the sender's event.
 */
TEST(scm_rights_shared_event)
{
	int sv[2], done[2], status, fd;
	uint64_t v;
	pid_t pid;
	char c;

	ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	ASSERT_EQ(pipe(done), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		uint64_t id = 0, a;
		int rfd = recv_fd(sv[1], &id);

		if (rfd < 0 || event_id(rfd) != id)
			_exit(1);
		a = read_count(rfd);
		if (write(sv[1], "a", 1) != 1 || read(sv[1], &c, 1) != 1)
			_exit(2);
		/* The sender touched NPAGES meanwhile. */
		if (read_count(rfd) < a + NPAGES)
			_exit(3);
		if (ioctl(rfd, PERF_EVENT_IOC_DISABLE, 0))
			_exit(4);
		if (write(sv[1], "b", 1) != 1)
			_exit(5);
		_exit(0);
	}
	fd = open_faults(0);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(send_fd(sv[0], fd, event_id(fd)), 0);
	ASSERT_EQ(read(sv[0], &c, 1), 1);
	touch_pages(NPAGES);
	ASSERT_EQ(write(sv[0], "t", 1), 1);
	ASSERT_EQ(read(sv[0], &c, 1), 1);
	/* The receiver disabled our event. */
	v = read_count(fd);
	touch_pages(NPAGES);
	EXPECT_EQ(read_count(fd), v);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_EQ(status, 0);
	close(fd);
}

/* The receiver's copy keeps the event alive after the sender closed it. */
TEST(scm_rights_after_sender_close)
{
	int sv[2], status, fd;
	pid_t pid;
	char c;

	ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		uint64_t id = 0;
		int rfd = recv_fd(sv[1], &id);

		if (rfd < 0)
			_exit(1);
		if (write(sv[1], "a", 1) != 1 || read(sv[1], &c, 1) != 1)
			_exit(2);
		_exit(read_count(rfd) >= NPAGES && event_id(rfd) == id ? 0 : 3);
	}
	fd = open_faults(0);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(send_fd(sv[0], fd, event_id(fd)), 0);
	close(fd);
	ASSERT_EQ(read(sv[0], &c, 1), 1);
	touch_pages(NPAGES);
	ASSERT_EQ(write(sv[0], "t", 1), 1);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_EQ(status, 0);
}

/* An event outlives the process that opened it (its fd was passed on). */
TEST(event_outlives_opener)
{
	int sv[2], status, fd;
	uint64_t id = 0;
	pid_t pid;

	ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		int efd = open_faults(getppid());

		_exit(efd < 0 || send_fd(sv[1], efd, event_id(efd)));
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_EQ(status, 0);
	fd = recv_fd(sv[0], &id);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(event_id(fd), id);
	touch_pages(NPAGES);
	EXPECT_GE(read_count(fd), NPAGES);
	close(fd);
}

/* Closing the leader while its task runs: siblings keep counting it. */
TEST(close_leader_sibling_keeps_counting)
{
	struct worker w;
	int leader, sib;
	uint64_t v;

	ASSERT_EQ(worker_start(&w), 0);
	leader = open_faults(w.pid);
	ASSERT_GE(leader, 0);
	sib = open_ev(PERF_COUNT_SW_PAGE_FAULTS, w.pid, -1, leader, 0, 0);
	ASSERT_GE(sib, 0);
	ASSERT_EQ(worker_do(&w, W_TOUCH, NPAGES), 0);
	close(leader);
	v = read_count(sib);
	EXPECT_GE(v, NPAGES);
	ASSERT_EQ(worker_do(&w, W_TOUCH, NPAGES), 0);
	EXPECT_GE(read_count(sib), v + NPAGES);
	ASSERT_EQ(worker_stop(&w), 0);
	v = read_count(sib);
	EXPECT_GE(v, 2 * NPAGES);
	close(sib);
}

/*
 * Thousands of events on ourselves: all open, have increasing IDs, count
 * and close.  Every enable of an event on the running task reschedules all
 * of its events, so enabling 4000 one by one is quadratic; they are built
 * as 4 groups of 1000 behind disabled leaders and switched on per group.
 */
TEST(thousands_of_events_on_self)
{
	static int fd[NEVENTS];
	static uint64_t id[NEVENTS];
	int i, first, again, per = NEVENTS / 4;
	uint64_t v;

	ASSERT_EQ(raise_nofile(NEVENTS + 64), 0);
	for (i = 0; i < NEVENTS; i++) {
		int lead = i % per == 0;

		fd[i] = open_ev(PERF_COUNT_SW_PAGE_FAULTS, 0, -1,
				lead ? -1 : fd[i - i % per], 0, lead);
		ASSERT_GE(fd[i], 0) TH_LOG("event %d: %s", i, strerror(errno));
		id[i] = event_id(fd[i]);
		ASSERT_NE(id[i], 0);
		if (i)
			ASSERT_GT(id[i], id[i - 1]);
	}
	for (i = 0; i < NEVENTS; i += per)
		ASSERT_EQ(ioctl(fd[i], PERF_EVENT_IOC_ENABLE, 0), 0);
	touch_pages(NPAGES);
	for (i = 0; i < NEVENTS; i += per)
		ASSERT_EQ(ioctl(fd[i], PERF_EVENT_IOC_DISABLE, 0), 0);
	for (i = 0; i < NEVENTS; i++) {
		v = read_count(fd[i]);
		ASSERT_GE(v, NPAGES) TH_LOG("event %d", i);
		/* A group is switched as a unit: equal counts within it. */
		ASSERT_EQ(v, read_count(fd[i - i % per])) TH_LOG("event %d", i);
	}
	first = fd[0];
	for (i = 0; i < NEVENTS; i++)
		ASSERT_EQ(close(fd[i]), 0);
	/* All fds were released. */
	again = open_faults(0);
	EXPECT_EQ(again, first);
	close(again);
}

/* Thousands of standalone events on another task, counting at once. */
TEST(thousands_of_events_on_other_task)
{
	static int fd[NEVENTS];
	struct worker w;
	int i;

	ASSERT_EQ(raise_nofile(NEVENTS + 64), 0);
	ASSERT_EQ(worker_start(&w), 0);
	for (i = 0; i < NEVENTS; i++) {
		fd[i] = open_faults(w.pid);
		ASSERT_GE(fd[i], 0) TH_LOG("event %d: %s", i, strerror(errno));
	}
	ASSERT_EQ(worker_do(&w, W_TOUCH, NPAGES), 0);
	ASSERT_EQ(worker_stop(&w), 0);
	for (i = 0; i < NEVENTS; i++)
		ASSERT_GE(read_count(fd[i]), NPAGES) TH_LOG("event %d", i);
	for (i = 0; i < NEVENTS; i++)
		ASSERT_EQ(close(fd[i]), 0);
}

/* Open, read and close many times: never a failure, no fd leak. */
TEST(open_close_loop)
{
	int i, fd, first = -1;

	for (i = 0; i < 5000; i++) {
		fd = open_ev(PERF_COUNT_SW_TASK_CLOCK, 0, -1, -1, 0, 0);
		ASSERT_GE(fd, 0) TH_LOG("iteration %d: %s", i, strerror(errno));
		if (first < 0)
			first = fd;
		ASSERT_EQ(fd, first);
		ASSERT_NE(read_count(fd), (uint64_t)-1);
		ASSERT_EQ(close(fd), 0);
	}
}

/*
 * An event file is an anon inode file named "[perf_event]", open
 * read-write; every event file shares the one anon inode; CLOEXEC is a
 * descriptor flag, not a file status flag.
 */
TEST(event_file_identity)
{
	int a = open_ev(PERF_COUNT_SW_TASK_CLOCK, 0, -1, -1, 0, 0);
	int b = open_ev(PERF_COUNT_SW_PAGE_FAULTS, 0, -1, -1, 0, 0);
	struct evspec cs = { .config = PERF_COUNT_SW_CPU_CLOCK };
	int c = open_spec(&cs, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	struct stat sa, sb;
	char path[64], link[64];
	ssize_t n;

	ASSERT_GE(a, 0);
	ASSERT_GE(b, 0);
	ASSERT_GE(c, 0);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", a);
	n = readlink(path, link, sizeof(link) - 1);
	ASSERT_GT(n, 0);
	link[n] = 0;
	EXPECT_STREQ(link, "anon_inode:[perf_event]");
	EXPECT_EQ(fcntl(a, F_GETFL) & ~O_LARGEFILE, O_RDWR);
	EXPECT_EQ(fcntl(b, F_GETFL) & ~O_LARGEFILE, O_RDWR);
	EXPECT_EQ(fcntl(c, F_GETFL) & ~O_LARGEFILE, O_RDWR);
	EXPECT_EQ(fcntl(a, F_GETFD), 0);
	EXPECT_EQ(fcntl(c, F_GETFD), FD_CLOEXEC);
	ASSERT_EQ(fstat(a, &sa), 0);
	ASSERT_EQ(fstat(b, &sb), 0);
	EXPECT_EQ(sa.st_ino, sb.st_ino);
	EXPECT_EQ(sa.st_dev, sb.st_dev);
	/* Closing one leaves the other usable. */
	ASSERT_EQ(close(a), 0);
	EXPECT_NE(read_count(b), (uint64_t)-1);
	ASSERT_EQ(close(b), 0);
	ASSERT_EQ(close(c), 0);
}

TEST_HARNESS_MAIN
