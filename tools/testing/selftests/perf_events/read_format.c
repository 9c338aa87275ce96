// SPDX-License-Identifier: GPL-2.0
/*
 * read() of counting events for every read_format combination of
 * TOTAL_TIME_ENABLED, TOTAL_TIME_RUNNING, ID, GROUP and LOST: the exact
 * number of bytes returned, the order and values of the fields, groups of
 * several members read through the leader and through a sibling, buffer size
 * rules (ENOSPC one byte short, extra space left untouched), EFAULT for bad
 * buffers, and how the enabled/running times behave across
 * PERF_EVENT_IOC_DISABLE/ENABLE/RESET.
 *
 * Layouts (all fields u64):
 *   !GROUP: value, [enabled], [running], [id], [lost]
 *    GROUP: nr, [enabled], [running], nr * { value, [id], [lost] }
 */
#include <pthread.h>

#include "../kselftest_harness.h"
#include "perf_util.h"

#define NPAGES		64
#define LOOP_FAILED()	(_metadata->exit_code == KSFT_FAIL)
#define MAX_MEMBERS	16

/* Bytes that read() must return for @fmt and a group of @members. */
static size_t expected_size(uint64_t fmt, int members)
{
	size_t entry = 1 + !!(fmt & F_ID) + !!(fmt & F_LOST);
	size_t n = !!(fmt & F_EN) + !!(fmt & F_RUN);

	if (fmt & F_GRP)
		n += 1 + members * entry;
	else
		n += entry;
	return n * sizeof(uint64_t);
}

struct rec {
	uint64_t nr;
	uint64_t enabled, running;
	uint64_t value[MAX_MEMBERS], id[MAX_MEMBERS], lost[MAX_MEMBERS];
};

/* Decode a read() result; returns the number of bytes the layout used. */
static size_t decode(const uint64_t *buf, uint64_t fmt, struct rec *r)
{
	size_t n = 0, i, members = 1;

	memset(r, 0, sizeof(*r));
	if (fmt & F_GRP) {
		r->nr = buf[n++];
		members = r->nr < MAX_MEMBERS ? r->nr : MAX_MEMBERS;
		if (fmt & F_EN)
			r->enabled = buf[n++];
		if (fmt & F_RUN)
			r->running = buf[n++];
		for (i = 0; i < members; i++) {
			r->value[i] = buf[n++];
			if (fmt & F_ID)
				r->id[i] = buf[n++];
			if (fmt & F_LOST)
				r->lost[i] = buf[n++];
		}
	} else {
		r->nr = 1;
		r->value[0] = buf[n++];
		if (fmt & F_EN)
			r->enabled = buf[n++];
		if (fmt & F_RUN)
			r->running = buf[n++];
		if (fmt & F_ID)
			r->id[0] = buf[n++];
		if (fmt & F_LOST)
			r->lost[0] = buf[n++];
	}
	return n * sizeof(uint64_t);
}

/*
 * One group of three members (page-faults leader, minor-faults and
 * context-switches siblings) plus a standalone event that stays disabled
 * since open, all opened with the variant's read_format.  The members all
 * belong to the same software PMU: a sibling of another PMU than its
 * leader (task-clock, cpu-clock) is not reliably scheduled with a group
 * installed on the running task in stock 6.12.
 */
FIXTURE(fmt) {
	int fd[3];
	uint64_t id[3];
	int idle;
	uint64_t idle_id;
};

FIXTURE_VARIANT(fmt) {
	uint64_t fmt;
};

FIXTURE_VARIANT_ADD(fmt, value_only) { .fmt = 0 };
FIXTURE_VARIANT_ADD(fmt, enabled) { .fmt = F_EN };
FIXTURE_VARIANT_ADD(fmt, running) { .fmt = F_RUN };
FIXTURE_VARIANT_ADD(fmt, enabled_running) { .fmt = F_EN | F_RUN };
FIXTURE_VARIANT_ADD(fmt, id) { .fmt = F_ID };
FIXTURE_VARIANT_ADD(fmt, enabled_id) { .fmt = F_EN | F_ID };
FIXTURE_VARIANT_ADD(fmt, running_id) { .fmt = F_RUN | F_ID };
FIXTURE_VARIANT_ADD(fmt, enabled_running_id) { .fmt = F_EN | F_RUN | F_ID };
FIXTURE_VARIANT_ADD(fmt, group) { .fmt = F_GRP };
FIXTURE_VARIANT_ADD(fmt, enabled_group) { .fmt = F_EN | F_GRP };
FIXTURE_VARIANT_ADD(fmt, running_group) { .fmt = F_RUN | F_GRP };
FIXTURE_VARIANT_ADD(fmt, enabled_running_group) {
	.fmt = F_EN | F_RUN | F_GRP
};
FIXTURE_VARIANT_ADD(fmt, id_group) { .fmt = F_ID | F_GRP };
FIXTURE_VARIANT_ADD(fmt, enabled_id_group) { .fmt = F_EN | F_ID | F_GRP };
FIXTURE_VARIANT_ADD(fmt, running_id_group) { .fmt = F_RUN | F_ID | F_GRP };
FIXTURE_VARIANT_ADD(fmt, enabled_running_id_group) {
	.fmt = F_EN | F_RUN | F_ID | F_GRP
};
FIXTURE_VARIANT_ADD(fmt, lost) { .fmt = F_LOST };
FIXTURE_VARIANT_ADD(fmt, enabled_lost) { .fmt = F_EN | F_LOST };
FIXTURE_VARIANT_ADD(fmt, running_lost) { .fmt = F_RUN | F_LOST };
FIXTURE_VARIANT_ADD(fmt, enabled_running_lost) {
	.fmt = F_EN | F_RUN | F_LOST
};
FIXTURE_VARIANT_ADD(fmt, id_lost) { .fmt = F_ID | F_LOST };
FIXTURE_VARIANT_ADD(fmt, enabled_id_lost) { .fmt = F_EN | F_ID | F_LOST };
FIXTURE_VARIANT_ADD(fmt, running_id_lost) { .fmt = F_RUN | F_ID | F_LOST };
FIXTURE_VARIANT_ADD(fmt, enabled_running_id_lost) {
	.fmt = F_EN | F_RUN | F_ID | F_LOST
};
FIXTURE_VARIANT_ADD(fmt, group_lost) { .fmt = F_GRP | F_LOST };
FIXTURE_VARIANT_ADD(fmt, enabled_group_lost) { .fmt = F_EN | F_GRP | F_LOST };
FIXTURE_VARIANT_ADD(fmt, running_group_lost) {
	.fmt = F_RUN | F_GRP | F_LOST
};
FIXTURE_VARIANT_ADD(fmt, enabled_running_group_lost) {
	.fmt = F_EN | F_RUN | F_GRP | F_LOST
};
FIXTURE_VARIANT_ADD(fmt, id_group_lost) { .fmt = F_ID | F_GRP | F_LOST };
FIXTURE_VARIANT_ADD(fmt, enabled_id_group_lost) {
	.fmt = F_EN | F_ID | F_GRP | F_LOST
};
FIXTURE_VARIANT_ADD(fmt, running_id_group_lost) {
	.fmt = F_RUN | F_ID | F_GRP | F_LOST
};
FIXTURE_VARIANT_ADD(fmt, enabled_running_id_group_lost) {
	.fmt = F_EN | F_RUN | F_ID | F_GRP | F_LOST
};

FIXTURE_SETUP(fmt)
{
	static const uint64_t cfg[3] = {
		PERF_COUNT_SW_PAGE_FAULTS,
		PERF_COUNT_SW_PAGE_FAULTS_MIN,
		PERF_COUNT_SW_CONTEXT_SWITCHES,
	};
	int i;

	for (i = 0; i < 3; i++) {
		self->fd[i] = open_fmt(cfg[i], variant->fmt,
				       i ? self->fd[0] : -1, 0);
		ASSERT_GE(self->fd[i], 0) TH_LOG("open member %d: %s", i,
						 strerror(errno));
		self->id[i] = event_id(self->fd[i]);
		ASSERT_NE(self->id[i], 0);
	}
	self->idle = open_fmt(PERF_COUNT_SW_TASK_CLOCK, variant->fmt, -1, 1);
	ASSERT_GE(self->idle, 0);
	self->idle_id = event_id(self->idle);
	ASSERT_NE(self->idle_id, 0);
	switch_out();
	touch_pages(NPAGES);
	burn(2000000);
}

FIXTURE_TEARDOWN(fmt)
{
	int i;

	for (i = 0; i < 3; i++)
		close(self->fd[i]);
	close(self->idle);
}

/* Exact sizes, the untouched tail of a larger buffer, and ENOSPC. */
TEST_F(fmt, sizes)
{
	uint64_t fmt = variant->fmt;
	size_t size = expected_size(fmt, 3);
	unsigned char buf[512];
	size_t i;

	memset(buf, 0xa5, sizeof(buf));
	ASSERT_EQ(read(self->fd[0], buf, sizeof(buf)), (ssize_t)size);
	/* A larger buffer gets only the bytes the layout needs. */
	for (i = size; i < sizeof(buf); i++)
		ASSERT_EQ(buf[i], 0xa5) TH_LOG("byte %zu written", i);

	/* Exactly sized works, one byte short is ENOSPC. */
	ASSERT_EQ(read(self->fd[0], buf, size), (ssize_t)size);
	errno = 0;
	ASSERT_EQ(read(self->fd[0], buf, size - 1), -1);
	ASSERT_EQ(errno, ENOSPC);

	/* A sibling with GROUP reads the whole group: same size. */
	ASSERT_EQ(read(self->fd[1], buf, sizeof(buf)), (ssize_t)size);
	ASSERT_EQ(read(self->fd[2], buf, size), (ssize_t)size);
	errno = 0;
	ASSERT_EQ(read(self->fd[2], buf, size - 1), -1);
	ASSERT_EQ(errno, ENOSPC);

	/* A standalone event is a group of one. */
	ASSERT_EQ(read(self->idle, buf, sizeof(buf)),
		  (ssize_t)expected_size(fmt, 1));
}

/* Field order and values, and the disabled-since-open event. */
TEST_F(fmt, fields)
{
	uint64_t fmt = variant->fmt;
	uint64_t buf[64], buf2[64];
	ssize_t len;
	struct rec r;
	int i, members = (fmt & F_GRP) ? 3 : 1;

	len = read(self->fd[0], buf, sizeof(buf));
	ASSERT_EQ(len, (ssize_t)expected_size(fmt, 3));
	ASSERT_EQ(decode(buf, fmt, &r), (size_t)len);
	ASSERT_EQ(r.nr, (uint64_t)members);

	/* Leader first, then siblings in the order they were attached. */
	for (i = 0; i < members; i++) {
		if (fmt & F_ID)
			EXPECT_EQ(r.id[i], self->id[i]);
		if (fmt & F_LOST)
			EXPECT_EQ(r.lost[i], 0);	/* counting: nothing lost */
	}
	EXPECT_GE(r.value[0], NPAGES);			/* page faults */
	if (fmt & F_GRP) {
		EXPECT_GE(r.value[1], NPAGES);		/* minor faults */
		EXPECT_GE(r.value[2], 1);		/* switch_out()'s */
	}
	if (fmt & F_EN)
		EXPECT_GT(r.enabled, 0);
	if (fmt & F_RUN)
		EXPECT_GT(r.running, 0);
	if ((fmt & F_EN) && (fmt & F_RUN))
		EXPECT_LE(r.running, r.enabled);

	/* Reading a sibling: the whole group (GROUP) or just itself. */
	len = read(self->fd[1], buf, sizeof(buf));
	ASSERT_EQ(len, (ssize_t)expected_size(fmt, 3));
	decode(buf, fmt, &r);
	if (fmt & F_GRP) {
		ASSERT_EQ(r.nr, 3);
		if (fmt & F_ID) {
			EXPECT_EQ(r.id[0], self->id[0]);
			EXPECT_EQ(r.id[1], self->id[1]);
			EXPECT_EQ(r.id[2], self->id[2]);
		}
		EXPECT_GE(r.value[1], NPAGES);
	} else {
		EXPECT_GE(r.value[0], NPAGES);
		if (fmt & F_ID)
			EXPECT_EQ(r.id[0], self->id[1]);
	}

	/*
	 * Freeze the group through the leader: the leader's and the siblings'
	 * reads then stay byte-identical however much the task runs, and with
	 * GROUP a sibling's read is the same bytes as the leader's.
	 */
	ASSERT_EQ(ioctl(self->fd[0], PERF_EVENT_IOC_DISABLE, 0), 0);
	for (i = 0; i < 3; i++) {
		len = read(self->fd[i], buf, sizeof(buf));
		ASSERT_GT(len, 0);
		touch_pages(8);
		burn(500000);
		ASSERT_EQ(read(self->fd[i], buf2, sizeof(buf2)), len);
		EXPECT_EQ(memcmp(buf, buf2, len), 0) TH_LOG("member %d moved", i);
	}
	if (fmt & F_GRP) {
		len = read(self->fd[0], buf, sizeof(buf));
		ASSERT_EQ(read(self->fd[2], buf2, sizeof(buf2)), len);
		EXPECT_EQ(memcmp(buf, buf2, len), 0);
	}

	/* Disabled since open: count and both times are exactly zero. */
	len = read(self->idle, buf, sizeof(buf));
	ASSERT_EQ(len, (ssize_t)expected_size(fmt, 1));
	decode(buf, fmt, &r);
	EXPECT_EQ(r.nr, 1);
	EXPECT_EQ(r.value[0], 0);
	EXPECT_EQ(r.enabled, 0);
	EXPECT_EQ(r.running, 0);
	if (fmt & F_ID)
		EXPECT_EQ(r.id[0], self->idle_id);
	EXPECT_EQ(r.lost[0], 0);
}

/* A zero-length read is ENOSPC, not 0. */
TEST(zero_length_read_is_enospc)
{
	int fd = open_fmt(PERF_COUNT_SW_TASK_CLOCK, 0, -1, 0);
	uint64_t v;

	ASSERT_GE(fd, 0);
	errno = 0;
	EXPECT_EQ(read(fd, &v, 0), -1);
	EXPECT_EQ(errno, ENOSPC);
	close(fd);
}

/* The size check comes before the copy: short + bad pointer is ENOSPC. */
TEST(enospc_checked_before_efault)
{
	int fd = open_fmt(PERF_COUNT_SW_TASK_CLOCK, F_EN | F_RUN, -1, 0);
	void *volatile bad = NULL;

	ASSERT_GE(fd, 0);
	errno = 0;
	EXPECT_EQ(read(fd, bad, 23), -1);
	EXPECT_EQ(errno, ENOSPC);
	errno = 0;
	EXPECT_EQ(read(fd, bad, 24), -1);
	EXPECT_EQ(errno, EFAULT);
	close(fd);
}

/* Unmapped and kernel buffers give EFAULT, for single and group reads. */
TEST(bad_buffer_is_efault)
{
	void *volatile null_buf = NULL;
	void *volatile kern_buf = (void *)0xffffffff81000000UL;
	int fd, grp, sib;

	fd = open_fmt(PERF_COUNT_SW_TASK_CLOCK, F_ID, -1, 0);
	ASSERT_GE(fd, 0);
	grp = open_fmt(PERF_COUNT_SW_TASK_CLOCK, F_GRP | F_ID, -1, 0);
	ASSERT_GE(grp, 0);
	sib = open_fmt(PERF_COUNT_SW_PAGE_FAULTS, F_GRP | F_ID, grp, 0);
	ASSERT_GE(sib, 0);

	errno = 0;
	EXPECT_EQ(read(fd, null_buf, 64), -1);
	EXPECT_EQ(errno, EFAULT);
	errno = 0;
	EXPECT_EQ(read(fd, kern_buf, 64), -1);
	EXPECT_EQ(errno, EFAULT);
	errno = 0;
	EXPECT_EQ(read(grp, null_buf, 64), -1);
	EXPECT_EQ(errno, EFAULT);
	errno = 0;
	EXPECT_EQ(read(sib, kern_buf, 64), -1);
	EXPECT_EQ(errno, EFAULT);
	close(sib);
	close(grp);
	close(fd);
}

/* A buffer whose tail runs into an unmapped page: EFAULT, not a short read. */
TEST(buffer_crossing_into_unmapped_page)
{
	long psz = sysconf(_SC_PAGESIZE);
	int fd, grp, sib;
	char *p;

	p = mmap(NULL, 2 * psz, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(p, MAP_FAILED);
	ASSERT_EQ(munmap(p + psz, psz), 0);

	fd = open_fmt(PERF_COUNT_SW_TASK_CLOCK, F_EN | F_RUN, -1, 0);
	ASSERT_GE(fd, 0);
	/* 24 bytes needed, 8 of them mapped. */
	errno = 0;
	EXPECT_EQ(read(fd, p + psz - 8, 24), -1);
	EXPECT_EQ(errno, EFAULT);
	/* The same read fully inside the page works. */
	EXPECT_EQ(read(fd, p + psz - 24, 24), 24);

	grp = open_fmt(PERF_COUNT_SW_TASK_CLOCK, F_GRP, -1, 0);
	ASSERT_GE(grp, 0);
	sib = open_fmt(PERF_COUNT_SW_TASK_CLOCK, F_GRP, grp, 0);
	ASSERT_GE(sib, 0);
	errno = 0;
	EXPECT_EQ(read(sib, p + psz - 16, 24), -1);
	EXPECT_EQ(errno, EFAULT);
	EXPECT_EQ(read(sib, p + psz - 24, 24), 24);
	close(sib);
	close(grp);
	close(fd);
	munmap(p, psz);
}

/* Group read size tracks the member count as siblings are added. */
TEST(group_size_grows_with_members)
{
	uint64_t fmt = F_GRP | F_ID | F_EN;
	int fd[8], n, i;
	uint64_t buf[64];
	struct rec r;

	for (n = 0; n < 8; n++) {
		size_t size;

		fd[n] = open_fmt(n & 1 ? PERF_COUNT_SW_PAGE_FAULTS :
				 PERF_COUNT_SW_TASK_CLOCK, fmt,
				 n ? fd[0] : -1, 0);
		ASSERT_GE(fd[n], 0);
		size = expected_size(fmt, n + 1);
		ASSERT_EQ(size, (size_t)(8 * (2 + 2 * (n + 1))));
		/* Every member's fd returns the whole, current group. */
		for (i = 0; i <= n; i++) {
			errno = 0;
			ASSERT_EQ(read(fd[i], buf, size - 1), -1);
			ASSERT_EQ(errno, ENOSPC);
			ASSERT_EQ(read(fd[i], buf, sizeof(buf)), (ssize_t)size);
			decode(buf, fmt, &r);
			ASSERT_EQ(r.nr, (uint64_t)(n + 1));
			ASSERT_EQ(r.id[n], event_id(fd[n]));
		}
	}
	for (n = 0; n < 8; n++)
		close(fd[n]);
}

/* Without GROUP a member reads only itself, whatever the group size. */
TEST(no_group_format_reads_one_member)
{
	int fd[6], i;
	uint64_t buf[16];

	for (i = 0; i < 6; i++) {
		fd[i] = open_fmt(PERF_COUNT_SW_TASK_CLOCK, F_ID | F_LOST,
				 i ? fd[0] : -1, 0);
		ASSERT_GE(fd[i], 0);
	}
	for (i = 0; i < 6; i++) {
		ASSERT_EQ(read(fd[i], buf, sizeof(buf)), 24);
		EXPECT_EQ(buf[1], event_id(fd[i]));
		EXPECT_EQ(buf[2], 0);
	}
	for (i = 0; i < 6; i++)
		close(fd[i]);
}

/*
 * read_format is per event: a GROUP sibling of a non-GROUP leader reads
 * the whole group in its own format, the leader reads just its value.
 */
TEST(mixed_formats_in_one_group)
{
	uint64_t fmt = F_GRP | F_ID | F_LOST;
	int leader, sib;
	uint64_t buf[16];
	struct rec r;

	leader = open_fmt(PERF_COUNT_SW_CONTEXT_SWITCHES, 0, -1, 0);
	ASSERT_GE(leader, 0);
	sib = open_fmt(PERF_COUNT_SW_PAGE_FAULTS, fmt, leader, 0);
	ASSERT_GE(sib, 0);
	settle();
	touch_pages(NPAGES);

	EXPECT_EQ(read(leader, buf, sizeof(buf)), 8);
	ASSERT_EQ(read(sib, buf, sizeof(buf)), 8 * (1 + 2 * 3));
	decode(buf, fmt, &r);
	EXPECT_EQ(r.nr, 2);
	EXPECT_EQ(r.id[0], event_id(leader));
	EXPECT_EQ(r.id[1], event_id(sib));
	EXPECT_GE(r.value[0], 1);
	EXPECT_GE(r.value[1], NPAGES);
	close(sib);
	close(leader);
}

/* Enabled and running time stop while disabled and resume on enable. */
TEST(times_stop_while_disabled)
{
	uint64_t a[3], b[3], c[3];
	int fd;

	fd = open_fmt(PERF_COUNT_SW_TASK_CLOCK, F_EN | F_RUN, -1, 0);
	ASSERT_GE(fd, 0);
	burn(2000000);
	ASSERT_EQ(ioctl(fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	ASSERT_EQ(read(fd, a, sizeof(a)), 24);
	EXPECT_GT(a[1], 0);
	EXPECT_GT(a[2], 0);
	EXPECT_LE(a[2], a[1]);
	burn(5000000);
	usleep(20000);
	ASSERT_EQ(read(fd, b, sizeof(b)), 24);
	/* Disabled: value, enabled and running all frozen exactly. */
	EXPECT_EQ(b[0], a[0]);
	EXPECT_EQ(b[1], a[1]);
	EXPECT_EQ(b[2], a[2]);

	ASSERT_EQ(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	burn(2000000);
	ASSERT_EQ(read(fd, c, sizeof(c)), 24);
	EXPECT_GT(c[0], b[0]);
	EXPECT_GT(c[1], b[1]);
	EXPECT_GT(c[2], b[2]);
	EXPECT_LE(c[2], c[1]);
	close(fd);
}

/* Value, enabled, running of @cur not behind @prev; enabled == running. */
static void not_behind(struct __test_metadata *_metadata, const uint64_t *cur,
		       const uint64_t *prev)
{
	EXPECT_GE(cur[0], prev[0]);
	EXPECT_GE(cur[1], prev[1]);
	EXPECT_GE(cur[2], prev[2]);
	EXPECT_EQ(cur[1], cur[2]);
}

/*
 * Reads of an event counting on the reader's own CPU (the usual case):
 * value, enabled and running never go backwards from one read to the
 * next, enabled equals running (nothing competes with a task-clock), and
 * the read after a DISABLE, answered from the settled totals, is not
 * behind the last read taken while counting.
 */
TEST(reads_while_counting_never_go_back)
{
	uint64_t prev[3] = { 0 }, cur[3];
	int fd, i;

	fd = open_fmt(PERF_COUNT_SW_TASK_CLOCK, F_EN | F_RUN, -1, 0);
	ASSERT_GE(fd, 0);
	for (i = 0; i < 2000; i++) {
		ASSERT_EQ(read(fd, cur, sizeof(cur)), 24);
		not_behind(_metadata, cur, prev);
		if (LOOP_FAILED())
			break;
		memcpy(prev, cur, sizeof(prev));
	}
	EXPECT_GT(cur[0], 0);
	ASSERT_EQ(ioctl(fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	ASSERT_EQ(read(fd, cur, sizeof(cur)), 24);
	not_behind(_metadata, cur, prev);
	close(fd);
}

/*
 * A counting group read through its leader and through a sibling while
 * members keep counting: the same layout, nr right, counts that only
 * grow, and a member added later shows up in the next read.
 */
TEST(group_reads_while_counting)
{
	uint64_t fmt = F_GRP | F_EN | F_RUN | F_ID;
	uint64_t a[16], b[16], id[3];
	struct rec ra, rb;
	int fd[3], i, n;

	fd[0] = open_fmt(PERF_COUNT_SW_PAGE_FAULTS, fmt, -1, 0);
	ASSERT_GE(fd[0], 0);
	fd[1] = open_fmt(PERF_COUNT_SW_PAGE_FAULTS_MIN, fmt, fd[0], 0);
	ASSERT_GE(fd[1], 0);
	for (i = 0; i < 2; i++)
		ASSERT_EQ(ioctl(fd[i], PERF_EVENT_IOC_ID, &id[i]), 0);
	touch_pages(8);
	n = read(fd[0], a, sizeof(a));
	ASSERT_EQ(n, (int)expected_size(fmt, 2));
	decode(a, fmt, &ra);
	touch_pages(8);
	ASSERT_EQ(read(fd[1], b, sizeof(b)), n);
	decode(b, fmt, &rb);
	EXPECT_EQ(ra.nr, 2);
	EXPECT_EQ(rb.nr, 2);
	EXPECT_EQ(ra.id[0], id[0]);
	EXPECT_EQ(ra.id[1], id[1]);
	EXPECT_EQ(rb.id[0], id[0]);
	EXPECT_EQ(rb.id[1], id[1]);
	EXPECT_GE(ra.value[0], 8);
	EXPECT_GE(rb.value[0], ra.value[0] + 8);
	EXPECT_GE(rb.value[1], ra.value[1] + 8);
	EXPECT_GE(rb.enabled, ra.enabled);
	EXPECT_EQ(rb.enabled, rb.running);

	/* A third member: the next read is one entry longer. */
	fd[2] = open_fmt(PERF_COUNT_SW_CONTEXT_SWITCHES, fmt, fd[0], 0);
	ASSERT_GE(fd[2], 0);
	ASSERT_EQ(ioctl(fd[2], PERF_EVENT_IOC_ID, &id[2]), 0);
	/* One entry short of the new size is ENOSPC now. */
	EXPECT_EQ(read(fd[0], a, expected_size(fmt, 3) - 8), -1);
	EXPECT_EQ(errno, ENOSPC);
	ASSERT_EQ(read(fd[0], a, sizeof(a)), (int)expected_size(fmt, 3));
	decode(a, fmt, &ra);
	EXPECT_EQ(ra.nr, 3);
	EXPECT_EQ(ra.id[2], id[2]);
	for (i = 2; i >= 0; i--)
		close(fd[i]);
}

struct grower {
	pid_t tid;		/* the task the group counts */
	int leader;
	int done;		/* __atomic: the reader polls it */
	int rounds;
};

/* Adds six members to the group one by one, then closes them; again. */
static void *grow_and_shrink(void *arg)
{
	struct grower *g = arg;
	int fd[6], i, r;

	for (r = 0; r < 150; r++) {
		for (i = 0; i < 6; i++) {
			fd[i] = open_ev(i & 1 ? PERF_COUNT_SW_PAGE_FAULTS_MIN :
				       PERF_COUNT_SW_CONTEXT_SWITCHES, g->tid, -1,
				       g->leader, F_GRP | F_ID, 0);
			if (fd[i] < 0)
				break;
		}
		while (--i >= 0)
			close(fd[i]);
		g->rounds++;
	}
	__atomic_store_n(&g->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * A group read by the task it counts while another thread keeps adding
 * and removing members: every read has the layout of one size of the
 * group, 1 to 7 members, never a mix of two.
 */
TEST(group_read_while_members_come_and_go)
{
	struct grower g = { .tid = syscall(SYS_gettid) };
	uint64_t fmt = F_GRP | F_ID, buf[1 + 2 * 8];
	int reads = 0, grown = 0, n;
	pthread_t t;

	g.leader = open_fmt(PERF_COUNT_SW_PAGE_FAULTS, fmt, -1, 0);
	ASSERT_GE(g.leader, 0);
	ASSERT_EQ(pthread_create(&t, NULL, grow_and_shrink, &g), 0);
	while (!__atomic_load_n(&g.done, __ATOMIC_ACQUIRE)) {
		n = read(g.leader, buf, sizeof(buf));
		ASSERT_GT(n, 0);
		ASSERT_GE(buf[0], 1);
		ASSERT_LE(buf[0], 7);
		ASSERT_EQ(n, (int)expected_size(fmt, buf[0]));
		grown += buf[0] > 1;
		reads++;
	}
	ASSERT_EQ(pthread_join(t, NULL), 0);
	EXPECT_EQ(g.rounds, 150);
	/* Alone again: one member. */
	ASSERT_EQ(read(g.leader, buf, sizeof(buf)), (int)expected_size(fmt, 1));
	EXPECT_EQ(buf[0], 1);
	TH_LOG("%d reads, %d of them with more than the leader", reads, grown);
	close(g.leader);
}

/* Enabled time only starts at PERF_EVENT_IOC_ENABLE, not at open. */
TEST(enabled_time_starts_at_enable)
{
	uint64_t late[3], early[3];
	int fd_late, fd_early;

	fd_late = open_fmt(PERF_COUNT_SW_TASK_CLOCK, F_EN | F_RUN, -1, 1);
	ASSERT_GE(fd_late, 0);
	fd_early = open_fmt(PERF_COUNT_SW_TASK_CLOCK, F_EN | F_RUN, -1, 0);
	ASSERT_GE(fd_early, 0);
	burn(20000000);
	ASSERT_EQ(read(fd_late, late, sizeof(late)), 24);
	EXPECT_EQ(late[0], 0);
	EXPECT_EQ(late[1], 0);
	EXPECT_EQ(late[2], 0);

	ASSERT_EQ(ioctl(fd_late, PERF_EVENT_IOC_ENABLE, 0), 0);
	burn(1000000);
	ASSERT_EQ(read(fd_late, late, sizeof(late)), 24);
	ASSERT_EQ(read(fd_early, early, sizeof(early)), 24);
	EXPECT_GT(late[1], 0);
	/* The early one also saw the long burn before the enable. */
	EXPECT_LT(late[1], early[1]);
	EXPECT_LT(late[0], early[0]);
	close(fd_late);
	close(fd_early);
}

/* PERF_EVENT_IOC_RESET zeroes the count but not the times. */
TEST(reset_keeps_times)
{
	uint64_t a[3], b[3];
	int fd;

	fd = open_fmt(PERF_COUNT_SW_PAGE_FAULTS, F_EN | F_RUN, -1, 0);
	ASSERT_GE(fd, 0);
	touch_pages(NPAGES);
	ASSERT_EQ(ioctl(fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	ASSERT_EQ(read(fd, a, sizeof(a)), 24);
	EXPECT_GE(a[0], NPAGES);
	ASSERT_EQ(ioctl(fd, PERF_EVENT_IOC_RESET, 0), 0);
	ASSERT_EQ(read(fd, b, sizeof(b)), 24);
	EXPECT_EQ(b[0], 0);
	EXPECT_EQ(b[1], a[1]);
	EXPECT_EQ(b[2], a[2]);
	close(fd);
}

/* Undefined read_format bits are rejected at open with EINVAL. */
TEST(unknown_read_format_bits_einval)
{
	struct perf_event_attr attr;

	sw_attr(&attr, PERF_COUNT_SW_TASK_CLOCK);
	attr.read_format = PERF_FORMAT_LOST << 1;
	errno = 0;
	EXPECT_EQ(sys_perf_event_open(&attr, 0, -1, -1, 0), -1);
	EXPECT_EQ(errno, EINVAL);
	attr.read_format = ~0ULL;
	errno = 0;
	EXPECT_EQ(sys_perf_event_open(&attr, 0, -1, -1, 0), -1);
	EXPECT_EQ(errno, EINVAL);
	/* All defined bits together are fine. */
	attr.read_format = F_EN | F_RUN | F_ID | F_GRP | F_LOST;
	EXPECT_GE(sys_perf_event_open(&attr, 0, -1, -1, 0), 0);
}

/* The fd is not seekable and not writable. */
TEST(pread_lseek_write)
{
	int fd = open_fmt(PERF_COUNT_SW_TASK_CLOCK, 0, -1, 0);
	uint64_t v = 0;

	ASSERT_GE(fd, 0);
	errno = 0;
	EXPECT_EQ(pread(fd, &v, sizeof(v), 0), -1);
	EXPECT_EQ(errno, ESPIPE);
	errno = 0;
	EXPECT_EQ(lseek(fd, 0, SEEK_SET), -1);
	EXPECT_EQ(errno, ESPIPE);
	errno = 0;
	EXPECT_EQ(write(fd, &v, sizeof(v)), -1);
	EXPECT_EQ(errno, EINVAL);
	close(fd);
}

/* IDs are non-zero and distinct; a bad pointer for IOC_ID is EFAULT. */
TEST(ioc_id)
{
	uint64_t id[3], *volatile bad = NULL;
	uint64_t buf[2];
	int fd[3], i;

	for (i = 0; i < 3; i++) {
		fd[i] = open_fmt(PERF_COUNT_SW_TASK_CLOCK, F_ID, -1, 0);
		ASSERT_GE(fd[i], 0);
		ASSERT_EQ(ioctl(fd[i], PERF_EVENT_IOC_ID, &id[i]), 0);
		EXPECT_NE(id[i], 0);
		ASSERT_EQ(read(fd[i], buf, sizeof(buf)), 16);
		EXPECT_EQ(buf[1], id[i]);
	}
	EXPECT_NE(id[0], id[1]);
	EXPECT_NE(id[1], id[2]);
	EXPECT_NE(id[0], id[2]);
	errno = 0;
	EXPECT_EQ(ioctl(fd[0], PERF_EVENT_IOC_ID, bad), -1);
	EXPECT_EQ(errno, EFAULT);
	for (i = 0; i < 3; i++)
		close(fd[i]);
}

TEST_HARNESS_MAIN
