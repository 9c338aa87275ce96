// SPDX-License-Identifier: GPL-2.0
/*
 * Event groups of software events: a leader and its siblings are scheduled
 * as one unit (equal enabled/running times), a disabled leader freezes the
 * whole group, PERF_IOC_FLAG_GROUP ioctls act on the whole group from any
 * member, closing the leader turns siblings into standalone events, closing
 * a sibling shrinks the group, large groups and the 16k read_size limit,
 * PERF_FLAG_FD_NO_GROUP, pinned/exclusive leaders, and the open-time rules
 * for what may join a group (per-task vs per-CPU, other tasks, inherit,
 * pinned/exclusive siblings, siblings of siblings, bad group fds).
 */
#include "../kselftest_harness.h"
#include "perf_worker.h"

#define NPAGES	128

/* Group read: members in attach order, leader first. */
TEST(members_in_attach_order)
{
	uint64_t buf[1 + 2 * 5 + 1];
	int fd[5], i;

	for (i = 0; i < 5; i++) {
		fd[i] = open_fmt(PERF_COUNT_SW_PAGE_FAULTS, F_GRP | F_ID,
				 i ? fd[0] : -1, 0);
		ASSERT_GE(fd[i], 0);
	}
	ASSERT_EQ(read(fd[3], buf, sizeof(buf)), 8 * (1 + 2 * 5));
	ASSERT_EQ(buf[0], 5);
	for (i = 0; i < 5; i++)
		EXPECT_EQ(buf[2 + 2 * i], event_id(fd[i]));
	for (i = 0; i < 5; i++)
		close(fd[i]);
}

/*
 * A group on another task, enabled as a whole through its leader and read
 * after that task exited: every member has exactly the same enabled and
 * running time, since they were always scheduled in and out together.
 */
TEST(members_scheduled_as_unit)
{
	static const uint64_t cfg[4] = {
		PERF_COUNT_SW_TASK_CLOCK, PERF_COUNT_SW_PAGE_FAULTS,
		PERF_COUNT_SW_CPU_CLOCK, PERF_COUNT_SW_CONTEXT_SWITCHES,
	};
	struct evspec s = { .fmt = F_EN | F_RUN };
	uint64_t v[5][3], g[3 + 5];
	struct worker w;
	int fd[5], i;

	ASSERT_EQ(worker_start(&w), 0);
	for (i = 0; i < 4; i++) {
		s.config = cfg[i];
		s.disabled = i == 0;
		fd[i] = open_spec(&s, w.pid, -1, i ? fd[0] : -1, 0);
		ASSERT_GE(fd[i], 0);
	}
	s.config = PERF_COUNT_SW_PAGE_FAULTS;
	s.fmt = F_EN | F_RUN | F_GRP;
	fd[4] = open_spec(&s, w.pid, -1, fd[0], 0);
	ASSERT_GE(fd[4], 0);
	ASSERT_EQ(ioctl(fd[0], PERF_EVENT_IOC_ENABLE, 0), 0);

	for (i = 0; i < 5; i++) {
		ASSERT_EQ(worker_do(&w, W_TOUCH, 16), 0);
		ASSERT_EQ(worker_do(&w, W_BURN, 20), 0);
		usleep(1000);
	}
	ASSERT_EQ(worker_stop(&w), 0);

	for (i = 0; i < 4; i++) {
		ASSERT_EQ(read3(fd[i], v[i]), 0);
		EXPECT_GT(v[i][1], 0);
		EXPECT_LE(v[i][2], v[i][1]);
		EXPECT_EQ(v[i][1], v[0][1]) TH_LOG("member %d enabled", i);
		EXPECT_EQ(v[i][2], v[0][2]) TH_LOG("member %d running", i);
	}
	EXPECT_GE(v[1][0], 5 * 16);
	/* The group read publishes that one shared pair of times. */
	ASSERT_EQ(read(fd[4], g, sizeof(g)), (ssize_t)sizeof(g));
	EXPECT_EQ(g[0], 5);
	EXPECT_EQ(g[1], v[0][1]);
	EXPECT_EQ(g[2], v[0][2]);
	for (i = 0; i < 4; i++)
		EXPECT_EQ(g[3 + i], v[i][0]);
	EXPECT_EQ(g[7], v[1][0]);
	for (i = 0; i < 5; i++)
		close(fd[i]);
}

/* Disabling the leader freezes the siblings' counts and times too. */
TEST(disabled_leader_freezes_group)
{
	uint64_t a[3][3], b[3][3];
	int fd[3], i;

	for (i = 0; i < 3; i++) {
		fd[i] = open_fmt(PERF_COUNT_SW_PAGE_FAULTS, F_EN | F_RUN,
				 i ? fd[0] : -1, 0);
		ASSERT_GE(fd[i], 0);
	}
	touch_pages(NPAGES);
	ASSERT_EQ(ioctl(fd[0], PERF_EVENT_IOC_DISABLE, 0), 0);
	for (i = 0; i < 3; i++)
		ASSERT_EQ(read3(fd[i], a[i]), 0);
	touch_pages(NPAGES);
	burn(2000000);
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(read3(fd[i], b[i]), 0);
		EXPECT_GE(a[i][0], NPAGES);
		EXPECT_EQ(b[i][0], a[i][0]) TH_LOG("member %d count", i);
		EXPECT_EQ(b[i][1], a[i][1]) TH_LOG("member %d enabled", i);
		EXPECT_EQ(b[i][2], a[i][2]) TH_LOG("member %d running", i);
	}

	/* Enabling the leader alone brings the whole group back. */
	ASSERT_EQ(ioctl(fd[0], PERF_EVENT_IOC_ENABLE, 0), 0);
	touch_pages(NPAGES);
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(read3(fd[i], b[i]), 0);
		EXPECT_GE(b[i][0], a[i][0] + NPAGES);
		EXPECT_GT(b[i][1], a[i][1]);
	}
	for (i = 0; i < 3; i++)
		close(fd[i]);
}

/* Enabled siblings of a leader opened disabled do not count at all. */
TEST(siblings_wait_for_disabled_leader)
{
	uint64_t v[3];
	int leader, sib;

	leader = open_fmt(PERF_COUNT_SW_PAGE_FAULTS, F_EN | F_RUN, -1, 1);
	ASSERT_GE(leader, 0);
	sib = open_fmt(PERF_COUNT_SW_PAGE_FAULTS, F_EN | F_RUN, leader, 0);
	ASSERT_GE(sib, 0);
	touch_pages(NPAGES);
	ASSERT_EQ(read3(sib, v), 0);
	EXPECT_EQ(v[0], 0);
	EXPECT_EQ(v[1], 0);
	EXPECT_EQ(v[2], 0);

	ASSERT_EQ(ioctl(leader, PERF_EVENT_IOC_ENABLE, 0), 0);
	touch_pages(NPAGES);
	ASSERT_EQ(read3(sib, v), 0);
	EXPECT_GE(v[0], NPAGES);
	EXPECT_GT(v[1], 0);
	close(sib);
	close(leader);
}

/*
 * PERF_IOC_FLAG_GROUP enables/disables every member at once; counts of
 * identical members then match exactly.
 */
TEST(ioc_flag_group_enable_disable)
{
	uint64_t v[4];
	int fd[4], i;

	for (i = 0; i < 4; i++) {
		fd[i] = open_fmt(PERF_COUNT_SW_PAGE_FAULTS, 0,
				 i ? fd[0] : -1, 1);
		ASSERT_GE(fd[i], 0);
	}
	ASSERT_EQ(ioctl(fd[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP), 0);
	touch_pages(NPAGES);
	ASSERT_EQ(ioctl(fd[0], PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP), 0);
	for (i = 0; i < 4; i++) {
		v[i] = read_count(fd[i]);
		EXPECT_GE(v[i], NPAGES);
		EXPECT_EQ(v[i], v[0]) TH_LOG("member %d", i);
	}
	touch_pages(NPAGES);
	for (i = 0; i < 4; i++)
		EXPECT_EQ(read_count(fd[i]), v[i]);
	for (i = 0; i < 4; i++)
		close(fd[i]);
}

/* A FLAG_GROUP ioctl on a sibling's fd acts on the whole group. */
TEST(ioc_flag_group_through_sibling)
{
	uint64_t l, s;
	int leader, sib;

	leader = open_fmt(PERF_COUNT_SW_PAGE_FAULTS, 0, -1, 0);
	ASSERT_GE(leader, 0);
	sib = open_fmt(PERF_COUNT_SW_PAGE_FAULTS, 0, leader, 0);
	ASSERT_GE(sib, 0);
	touch_pages(NPAGES);
	ASSERT_EQ(ioctl(sib, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP), 0);
	l = read_count(leader);
	s = read_count(sib);
	touch_pages(NPAGES);
	EXPECT_EQ(read_count(leader), l);
	EXPECT_EQ(read_count(sib), s);

	ASSERT_EQ(ioctl(sib, PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP), 0);
	EXPECT_EQ(read_count(leader), 0);
	EXPECT_EQ(read_count(sib), 0);

	ASSERT_EQ(ioctl(sib, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP), 0);
	touch_pages(NPAGES);
	EXPECT_GE(read_count(leader), NPAGES);
	EXPECT_GE(read_count(sib), NPAGES);
	close(sib);
	close(leader);
}

/* Without FLAG_GROUP, RESET on the leader resets only the leader. */
TEST(reset_without_flag_is_per_event)
{
	int leader, sib;

	leader = open_fmt(PERF_COUNT_SW_PAGE_FAULTS, 0, -1, 0);
	ASSERT_GE(leader, 0);
	sib = open_fmt(PERF_COUNT_SW_PAGE_FAULTS, 0, leader, 0);
	ASSERT_GE(sib, 0);
	touch_pages(NPAGES);
	ASSERT_EQ(ioctl(leader, PERF_EVENT_IOC_DISABLE, 0), 0);
	ASSERT_EQ(ioctl(leader, PERF_EVENT_IOC_RESET, 0), 0);
	EXPECT_EQ(read_count(leader), 0);
	EXPECT_GE(read_count(sib), NPAGES);
	close(sib);
	close(leader);
}

/* A sibling can be disabled and enabled on its own. */
TEST(sibling_disable_enable_alone)
{
	uint64_t l0, s0, o0, s1;
	int leader, sib, other;

	leader = open_fmt(PERF_COUNT_SW_PAGE_FAULTS, 0, -1, 0);
	ASSERT_GE(leader, 0);
	sib = open_fmt(PERF_COUNT_SW_PAGE_FAULTS, 0, leader, 0);
	ASSERT_GE(sib, 0);
	other = open_fmt(PERF_COUNT_SW_PAGE_FAULTS, 0, leader, 0);
	ASSERT_GE(other, 0);

	ASSERT_EQ(ioctl(sib, PERF_EVENT_IOC_DISABLE, 0), 0);
	l0 = read_count(leader);
	s0 = read_count(sib);
	o0 = read_count(other);
	touch_pages(NPAGES);
	EXPECT_EQ(read_count(sib), s0);
	EXPECT_GE(read_count(leader), l0 + NPAGES);
	EXPECT_GE(read_count(other), o0 + NPAGES);

	ASSERT_EQ(ioctl(sib, PERF_EVENT_IOC_ENABLE, 0), 0);
	touch_pages(NPAGES);
	s1 = read_count(sib);
	EXPECT_GE(s1, s0 + NPAGES);
	close(other);
	close(sib);
	close(leader);
}

/*
 * Closing the leader turns each sibling into a standalone event: it keeps
 * counting, a GROUP read returns a group of one (itself), and it can now
 * be used as a group_fd itself.
 */
TEST(close_leader_siblings_become_standalone)
{
	uint64_t fmt = F_GRP | F_ID;
	uint64_t buf[16], before;
	int leader, sib[2], newsib;

	leader = open_fmt(PERF_COUNT_SW_PAGE_FAULTS, fmt, -1, 0);
	ASSERT_GE(leader, 0);
	sib[0] = open_fmt(PERF_COUNT_SW_PAGE_FAULTS, fmt, leader, 0);
	ASSERT_GE(sib[0], 0);
	sib[1] = open_fmt(PERF_COUNT_SW_PAGE_FAULTS, fmt, leader, 0);
	ASSERT_GE(sib[1], 0);
	touch_pages(NPAGES);
	ASSERT_EQ(read(sib[0], buf, sizeof(buf)), 8 * (1 + 2 * 3));
	before = buf[3];
	EXPECT_GE(before, NPAGES);

	close(leader);
	ASSERT_EQ(read(sib[0], buf, sizeof(buf)), 8 * 3);
	EXPECT_EQ(buf[0], 1);
	EXPECT_EQ(buf[2], event_id(sib[0]));
	EXPECT_GE(buf[1], before);
	touch_pages(NPAGES);
	ASSERT_EQ(read(sib[0], buf, sizeof(buf)), 8 * 3);
	EXPECT_GE(buf[1], before + NPAGES);

	/* The former sibling is now a leader others can join. */
	newsib = open_fmt(PERF_COUNT_SW_PAGE_FAULTS, fmt, sib[1], 0);
	ASSERT_GE(newsib, 0);
	ASSERT_EQ(read(sib[1], buf, sizeof(buf)), 8 * (1 + 2 * 2));
	EXPECT_EQ(buf[0], 2);
	EXPECT_EQ(buf[2], event_id(sib[1]));
	EXPECT_EQ(buf[4], event_id(newsib));
	close(newsib);
	close(sib[0]);
	close(sib[1]);
}

/* Siblings frozen by a disabled leader start counting once it is closed. */
TEST(close_disabled_leader_releases_siblings)
{
	int leader, sib;

	leader = open_fmt(PERF_COUNT_SW_PAGE_FAULTS, 0, -1, 1);
	ASSERT_GE(leader, 0);
	sib = open_fmt(PERF_COUNT_SW_PAGE_FAULTS, 0, leader, 0);
	ASSERT_GE(sib, 0);
	touch_pages(NPAGES);
	EXPECT_EQ(read_count(sib), 0);
	close(leader);
	settle();
	touch_pages(NPAGES);
	EXPECT_GE(read_count(sib), NPAGES);
	close(sib);
}

/* Closing a sibling removes it from the group read. */
TEST(close_sibling_shrinks_group)
{
	uint64_t fmt = F_GRP | F_ID | F_EN;
	uint64_t buf[16];
	int fd[3], i;

	for (i = 0; i < 3; i++) {
		fd[i] = open_fmt(PERF_COUNT_SW_PAGE_FAULTS, fmt,
				 i ? fd[0] : -1, 0);
		ASSERT_GE(fd[i], 0);
	}
	ASSERT_EQ(read(fd[0], buf, sizeof(buf)), 8 * (2 + 2 * 3));
	close(fd[1]);
	ASSERT_EQ(read(fd[0], buf, sizeof(buf)), 8 * (2 + 2 * 2));
	EXPECT_EQ(buf[0], 2);
	EXPECT_EQ(buf[3], event_id(fd[0]));
	EXPECT_EQ(buf[5], event_id(fd[2]));
	/* The remaining sibling sees the same smaller group. */
	ASSERT_EQ(read(fd[2], buf, sizeof(buf)), 8 * (2 + 2 * 2));
	EXPECT_EQ(buf[0], 2);
	close(fd[2]);
	ASSERT_EQ(read(fd[0], buf, sizeof(buf)), 8 * (2 + 2 * 1));
	EXPECT_EQ(buf[0], 1);
	close(fd[0]);
}

/* 64 page-fault members switched on and off as one: identical counts. */
TEST(sixty_four_members)
{
	uint64_t buf[1 + 64 + 8];
	int fd[64], i;

	/* The leader starts disabled so the group starts as a unit. */
	for (i = 0; i < 64; i++) {
		fd[i] = open_fmt(PERF_COUNT_SW_PAGE_FAULTS, F_GRP,
				 i ? fd[0] : -1, i == 0);
		ASSERT_GE(fd[i], 0) TH_LOG("member %d: %s", i, strerror(errno));
	}
	ASSERT_EQ(ioctl(fd[0], PERF_EVENT_IOC_ENABLE, 0), 0);
	touch_pages(NPAGES);
	ASSERT_EQ(ioctl(fd[0], PERF_EVENT_IOC_DISABLE, 0), 0);
	ASSERT_EQ(read(fd[63], buf, sizeof(buf)), 8 * (1 + 64));
	ASSERT_EQ(buf[0], 64);
	EXPECT_GE(buf[1], NPAGES);
	for (i = 1; i <= 64; i++)
		EXPECT_EQ(buf[i], buf[1]) TH_LOG("member %d", i - 1);
	for (i = 0; i < 64; i++)
		close(fd[i]);
}

/*
 * A group may not grow past a 16k read size: with every read_format bit
 * set (24 bytes of header, 24 per member) 681 members fit, the 682nd is
 * E2BIG whatever its own read_format.
 */
TEST(read_size_limit_e2big)
{
	uint64_t fmt = F_EN | F_RUN | F_ID | F_GRP | F_LOST;
	static uint64_t buf[3 + 3 * 681];
	static int fd[682];
	int i;

	ASSERT_EQ(raise_nofile(1024), 0);
	/*
	 * A disabled leader keeps each install cheap: no active group to
	 * reschedule.
	 */
	for (i = 0; i < 681; i++) {
		fd[i] = open_fmt(PERF_COUNT_SW_DUMMY, fmt, i ? fd[0] : -1, !i);
		ASSERT_GE(fd[i], 0) TH_LOG("member %d: %s", i, strerror(errno));
	}
	errno = 0;
	EXPECT_EQ(open_fmt(PERF_COUNT_SW_DUMMY, fmt, fd[0], 0), -1);
	EXPECT_EQ(errno, E2BIG);
	errno = 0;
	EXPECT_EQ(open_fmt(PERF_COUNT_SW_DUMMY, 0, fd[0], 0), -1);
	EXPECT_EQ(errno, E2BIG);
	ASSERT_EQ(read(fd[0], buf, sizeof(buf)), 24 + 24 * 681);
	EXPECT_EQ(buf[0], 681);
	for (i = 0; i < 681; i++)
		close(fd[i]);
}

/* Without GROUP in anybody's read_format the group size is not limited. */
TEST(no_limit_without_group_format)
{
	static int fd[2100];
	int i;

	ASSERT_EQ(raise_nofile(2200), 0);
	for (i = 0; i < 2100; i++) {
		fd[i] = open_fmt(PERF_COUNT_SW_DUMMY, F_ID, i ? fd[0] : -1, !i);
		ASSERT_GE(fd[i], 0) TH_LOG("member %d: %s", i, strerror(errno));
	}
	/* But a GROUP reader can no longer join. */
	errno = 0;
	EXPECT_EQ(open_fmt(PERF_COUNT_SW_DUMMY, F_GRP, fd[0], 0), -1);
	EXPECT_EQ(errno, E2BIG);
	for (i = 0; i < 2100; i++)
		close(fd[i]);
}

/* PERF_FLAG_FD_NO_GROUP: the new event is standalone, not a sibling. */
TEST(no_group_flag_opens_standalone)
{
	struct evspec s = { .config = PERF_COUNT_SW_PAGE_FAULTS };
	uint64_t buf[8];
	int leader, ev;

	leader = open_fmt(PERF_COUNT_SW_PAGE_FAULTS, F_GRP | F_ID, -1, 1);
	ASSERT_GE(leader, 0);
	ev = open_spec(&s, 0, -1, leader, PERF_FLAG_FD_NO_GROUP);
	ASSERT_GE(ev, 0);
	/* Not a member: the leader's group is still just itself... */
	ASSERT_EQ(read(leader, buf, sizeof(buf)), 24);
	EXPECT_EQ(buf[0], 1);
	/* ...and the disabled leader does not hold it back. */
	touch_pages(NPAGES);
	EXPECT_GE(read_count(ev), NPAGES);
	ASSERT_EQ(read(leader, buf, sizeof(buf)), 24);
	EXPECT_EQ(buf[1], 0);
	close(ev);
	close(leader);
}

/* NO_GROUP still validates group_fd; -1 is fine. */
TEST(no_group_flag_checks_fd)
{
	struct evspec s = { .config = PERF_COUNT_SW_PAGE_FAULTS };
	int p[2], fd;

	ASSERT_EQ(pipe(p), 0);
	errno = 0;
	EXPECT_EQ(open_spec(&s, 0, -1, p[0], PERF_FLAG_FD_NO_GROUP), -1);
	EXPECT_EQ(errno, EBADF);
	close(p[0]);
	errno = 0;
	EXPECT_EQ(open_spec(&s, 0, -1, p[0], PERF_FLAG_FD_NO_GROUP), -1);
	EXPECT_EQ(errno, EBADF);
	close(p[1]);
	fd = open_spec(&s, 0, -1, -1, PERF_FLAG_FD_NO_GROUP);
	EXPECT_GE(fd, 0);
	close(fd);
}

/* With NO_GROUP the group rules (same CPU, not pinned) do not apply. */
TEST(no_group_flag_skips_group_rules)
{
	struct evspec s = { .config = PERF_COUNT_SW_CPU_CLOCK };
	int leader, cpu_ev, pinned;

	leader = open_fmt(PERF_COUNT_SW_TASK_CLOCK, 0, -1, 0);
	ASSERT_GE(leader, 0);
	cpu_ev = open_spec(&s, -1, 0, leader, PERF_FLAG_FD_NO_GROUP);
	EXPECT_GE(cpu_ev, 0);
	s.config = PERF_COUNT_SW_TASK_CLOCK;
	s.pinned = 1;
	pinned = open_spec(&s, 0, -1, leader, PERF_FLAG_FD_NO_GROUP);
	EXPECT_GE(pinned, 0);
	/* Without the flag both are rejected. */
	errno = 0;
	EXPECT_EQ(open_spec(&s, 0, -1, leader, 0), -1);
	EXPECT_EQ(errno, EINVAL);
	s.pinned = 0;
	s.config = PERF_COUNT_SW_CPU_CLOCK;
	errno = 0;
	EXPECT_EQ(open_spec(&s, -1, 0, leader, 0), -1);
	EXPECT_EQ(errno, EINVAL);
	close(pinned);
	close(cpu_ev);
	close(leader);
}

/* Only a leader can be a group_fd: sibling of a sibling is EINVAL. */
TEST(sibling_of_sibling_einval)
{
	int leader, sib;

	leader = open_fmt(PERF_COUNT_SW_TASK_CLOCK, 0, -1, 0);
	ASSERT_GE(leader, 0);
	sib = open_fmt(PERF_COUNT_SW_TASK_CLOCK, 0, leader, 0);
	ASSERT_GE(sib, 0);
	errno = 0;
	EXPECT_EQ(open_fmt(PERF_COUNT_SW_TASK_CLOCK, 0, sib, 0), -1);
	EXPECT_EQ(errno, EINVAL);
	close(sib);
	close(leader);
}

/* Only a leader may be pinned or exclusive. */
TEST(pinned_or_exclusive_sibling_einval)
{
	struct evspec s = { .config = PERF_COUNT_SW_TASK_CLOCK };
	int leader;

	leader = open_fmt(PERF_COUNT_SW_TASK_CLOCK, 0, -1, 0);
	ASSERT_GE(leader, 0);
	s.pinned = 1;
	errno = 0;
	EXPECT_EQ(open_spec(&s, 0, -1, leader, 0), -1);
	EXPECT_EQ(errno, EINVAL);
	s.pinned = 0;
	s.exclusive = 1;
	errno = 0;
	EXPECT_EQ(open_spec(&s, 0, -1, leader, 0), -1);
	EXPECT_EQ(errno, EINVAL);
	close(leader);
}

/* group_fd that is not a perf event fd: EBADF. */
TEST(bad_group_fd_ebadf)
{
	int p[2], nul;

	ASSERT_EQ(pipe(p), 0);
	nul = open("/dev/null", O_RDONLY);
	ASSERT_GE(nul, 0);
	errno = 0;
	EXPECT_EQ(open_fmt(PERF_COUNT_SW_TASK_CLOCK, 0, p[0], 0), -1);
	EXPECT_EQ(errno, EBADF);
	errno = 0;
	EXPECT_EQ(open_fmt(PERF_COUNT_SW_TASK_CLOCK, 0, nul, 0), -1);
	EXPECT_EQ(errno, EBADF);
	close(nul);
	errno = 0;
	EXPECT_EQ(open_fmt(PERF_COUNT_SW_TASK_CLOCK, 0, nul, 0), -1);
	EXPECT_EQ(errno, EBADF);
	errno = 0;
	EXPECT_EQ(open_fmt(PERF_COUNT_SW_TASK_CLOCK, 0, -2, 0), -1);
	EXPECT_EQ(errno, EBADF);
	close(p[0]);
	close(p[1]);
}

/* A pinned software leader opens and counts, always running. */
TEST(pinned_leader_counts)
{
	struct evspec s = {
		.config = PERF_COUNT_SW_PAGE_FAULTS,
		.fmt = F_EN | F_RUN,
		.pinned = 1,
	};
	uint64_t v[3];
	int leader, sib;

	leader = open_spec(&s, 0, -1, -1, 0);
	ASSERT_GE(leader, 0);
	sib = open_fmt(PERF_COUNT_SW_PAGE_FAULTS, F_EN | F_RUN, leader, 0);
	ASSERT_GE(sib, 0);
	touch_pages(NPAGES);
	burn(1000000);
	ASSERT_EQ(read3(leader, v), 0);
	EXPECT_GE(v[0], NPAGES);
	EXPECT_GT(v[1], 0);
	EXPECT_EQ(v[2], v[1]);
	ASSERT_EQ(read3(sib, v), 0);
	EXPECT_GE(v[0], NPAGES);
	EXPECT_EQ(v[2], v[1]);
	close(sib);
	close(leader);
}

/* Exclusive software groups do not exclude each other: both count. */
TEST(exclusive_leaders_count)
{
	struct evspec s = {
		.config = PERF_COUNT_SW_PAGE_FAULTS,
		.fmt = F_EN | F_RUN,
		.exclusive = 1,
	};
	uint64_t v[3];
	int a, b, sib, plain;

	a = open_spec(&s, 0, -1, -1, 0);
	ASSERT_GE(a, 0);
	sib = open_fmt(PERF_COUNT_SW_PAGE_FAULTS, F_EN | F_RUN, a, 0);
	ASSERT_GE(sib, 0);
	b = open_spec(&s, 0, -1, -1, 0);
	ASSERT_GE(b, 0);
	plain = open_fmt(PERF_COUNT_SW_PAGE_FAULTS, F_EN | F_RUN, -1, 0);
	ASSERT_GE(plain, 0);
	touch_pages(NPAGES);
	burn(1000000);
	ASSERT_EQ(read3(a, v), 0);
	EXPECT_GE(v[0], NPAGES);
	EXPECT_EQ(v[2], v[1]);
	ASSERT_EQ(read3(sib, v), 0);
	EXPECT_GE(v[0], NPAGES);
	ASSERT_EQ(read3(b, v), 0);
	EXPECT_GE(v[0], NPAGES);
	EXPECT_EQ(v[2], v[1]);
	ASSERT_EQ(read3(plain, v), 0);
	EXPECT_GE(v[0], NPAGES);
	EXPECT_EQ(v[2], v[1]);
	close(plain);
	close(b);
	close(sib);
	close(a);
}

/* A per-task leader cannot take a per-CPU sibling and vice versa. */
TEST(task_and_cpu_events_do_not_mix)
{
	struct evspec s = { .config = PERF_COUNT_SW_CPU_CLOCK };
	int task_leader, cpu_leader;

	task_leader = open_fmt(PERF_COUNT_SW_TASK_CLOCK, 0, -1, 0);
	ASSERT_GE(task_leader, 0);
	cpu_leader = open_spec(&s, -1, 0, -1, 0);
	ASSERT_GE(cpu_leader, 0);

	errno = 0;
	EXPECT_EQ(open_spec(&s, -1, 0, task_leader, 0), -1);
	EXPECT_EQ(errno, EINVAL);
	errno = 0;
	EXPECT_EQ(open_spec(&s, 0, -1, cpu_leader, 0), -1);
	EXPECT_EQ(errno, EINVAL);
	/* Task event bound to CPU 0 in a group of any-CPU task events. */
	errno = 0;
	EXPECT_EQ(open_spec(&s, 0, 0, task_leader, 0), -1);
	EXPECT_EQ(errno, EINVAL);
	close(cpu_leader);
	close(task_leader);
}

/* Task events bound to the same CPU group fine and count on it. */
TEST(task_cpu_bound_group)
{
	struct evspec s = { .config = PERF_COUNT_SW_PAGE_FAULTS };
	int leader, sib;

	ASSERT_EQ(pin_to_cpu(0), 0);
	leader = open_spec(&s, 0, 0, -1, 0);
	ASSERT_GE(leader, 0);
	sib = open_spec(&s, 0, 0, leader, 0);
	ASSERT_GE(sib, 0);
	touch_pages(NPAGES);
	EXPECT_GE(read_count(leader), NPAGES);
	EXPECT_GE(read_count(sib), NPAGES);
	/* Any-CPU sibling of a CPU-bound leader: EINVAL. */
	errno = 0;
	EXPECT_EQ(open_spec(&s, 0, -1, leader, 0), -1);
	EXPECT_EQ(errno, EINVAL);
	close(sib);
	close(leader);
}

/* Per-CPU groups must stay on one CPU. */
TEST(cpu_group_single_cpu)
{
	struct evspec s = { .config = PERF_COUNT_SW_CPU_CLOCK };
	int leader, sib;

	if (nr_cpus() < 2)
		SKIP(return, "needs two CPUs");
	leader = open_spec(&s, -1, 0, -1, 0);
	ASSERT_GE(leader, 0);
	sib = open_spec(&s, -1, 0, leader, 0);
	ASSERT_GE(sib, 0);
	errno = 0;
	EXPECT_EQ(open_spec(&s, -1, 1, leader, 0), -1);
	EXPECT_EQ(errno, EINVAL);
	usleep(10000);
	EXPECT_GT(read_count(sib), 0);
	close(sib);
	close(leader);
}

/* All members of a group must be on the same task. */
TEST(group_members_same_task)
{
	struct evspec s = { .config = PERF_COUNT_SW_PAGE_FAULTS };
	struct worker w;
	int self_leader, w_leader, w_sib;

	ASSERT_EQ(worker_start(&w), 0);
	self_leader = open_spec(&s, 0, -1, -1, 0);
	ASSERT_GE(self_leader, 0);
	w_leader = open_spec(&s, w.pid, -1, -1, 0);
	ASSERT_GE(w_leader, 0);

	errno = 0;
	EXPECT_EQ(open_spec(&s, w.pid, -1, self_leader, 0), -1);
	EXPECT_EQ(errno, EINVAL);
	errno = 0;
	EXPECT_EQ(open_spec(&s, 0, -1, w_leader, 0), -1);
	EXPECT_EQ(errno, EINVAL);
	w_sib = open_spec(&s, w.pid, -1, w_leader, 0);
	ASSERT_GE(w_sib, 0);

	/* The worker's group counts the worker, not us. */
	touch_pages(NPAGES);
	EXPECT_LT(read_count(w_sib), NPAGES / 2);
	ASSERT_EQ(worker_do(&w, W_TOUCH, NPAGES), 0);
	EXPECT_GE(read_count(w_leader), NPAGES);
	EXPECT_GE(read_count(w_sib), NPAGES);
	EXPECT_EQ(worker_stop(&w), 0);
	close(w_sib);
	close(w_leader);
	close(self_leader);
}

/* Task events in a group must agree on attr.inherit; CPU events need not. */
TEST(inherit_must_match_for_task_groups)
{
	struct evspec s = { .config = PERF_COUNT_SW_PAGE_FAULTS };
	int leader, ileader, cleader, csib;

	leader = open_spec(&s, 0, -1, -1, 0);
	ASSERT_GE(leader, 0);
	s.inherit = 1;
	ileader = open_spec(&s, 0, -1, -1, 0);
	ASSERT_GE(ileader, 0);
	errno = 0;
	EXPECT_EQ(open_spec(&s, 0, -1, leader, 0), -1);
	EXPECT_EQ(errno, EINVAL);
	s.inherit = 0;
	errno = 0;
	EXPECT_EQ(open_spec(&s, 0, -1, ileader, 0), -1);
	EXPECT_EQ(errno, EINVAL);

	s.config = PERF_COUNT_SW_CPU_CLOCK;
	cleader = open_spec(&s, -1, 0, -1, 0);
	ASSERT_GE(cleader, 0);
	s.inherit = 1;
	csib = open_spec(&s, -1, 0, cleader, 0);
	EXPECT_GE(csib, 0);
	close(csib);
	close(cleader);
	close(ileader);
	close(leader);
}

TEST_HARNESS_MAIN
