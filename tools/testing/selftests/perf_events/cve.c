// SPDX-License-Identifier: GPL-2.0
/*
 * One test per class of perf bug that became a CVE, written against the
 * behaviour the fix established rather than against the old code:
 *
 *  - software event ids past the table, as u64 values that a 32-bit
 *    index would turn negative (CVE-2013-2094): ENOENT, nothing indexed;
 *  - events opened into a group while its leader is being closed
 *    (CVE-2016-6786, CVE-2016-6787): each open succeeds whole or fails
 *    with EBADF/EINVAL/ENODEV, and nothing leaks;
 *  - an inherited group whose parent gains a member after the fork
 *    (CVE-2023-5717): a group read of the parent either sums groups of
 *    one shape or refuses with ECHILD, and never writes past read_size;
 *  - many siblings with large read formats (CVE-2023-6931): a member that
 *    would make any group read exceed 16 KiB is refused with E2BIG, and
 *    reads and samples of the largest group allowed are exactly as long
 *    as announced;
 *  - one buffer mapped, shared and unmapped from several tasks at once
 *    (CVE-2026-23248): the mapping counts and the locked-memory charge
 *    stay exact;
 *  - overflows of sampling events that signal, racing with the exit of
 *    the task they watch (CVE-2026-23271): no work is left on an event
 *    or a task that is gone.
 *
 * Kernel warnings (the taint flags) fail every case; the harness's
 * console scan catches the rest.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>

#include "../kselftest_harness.h"
#include "perf_util.h"

static long psz;

/* ---- CVE-2013-2094 ---- */

TEST(sw_config_out_of_table)
{
	static const uint64_t configs[] = {
		PERF_COUNT_SW_MAX, PERF_COUNT_SW_MAX + 1, 0x7fffffff,
		0x80000000ULL, 0xffffffffULL, 0x100000000ULL,
		0x100000000ULL + PERF_COUNT_SW_PAGE_FAULTS,
		0x8000000000000000ULL, ~0ULL,
	};
	struct perf_event_attr a;
	long t0 = kernel_taint();
	unsigned int i;
	int fd;

	for (i = 0; i < ARRAY_SIZE(configs); i++) {
		sw_attr(&a, configs[i]);
		a.exclude_kernel = 1;
		fd = sys_perf_event_open(&a, 0, -1, -1, 0);
		EXPECT_EQ(fd, -1) TH_LOG("config %#llx opened",
					 (unsigned long long)configs[i]);
		EXPECT_EQ(errno, ENOENT);
		if (fd >= 0)
			close(fd);
	}
	EXPECT_EQ(kernel_taint(), t0);
}

/* ---- CVE-2016-6786, CVE-2016-6787 ---- */

#define GROUP_ROUNDS	300

struct joiner {
	pid_t tid;		/* the thread the group counts */
	atomic_int leader;	/* the fd to join, or -1 */
	atomic_int stop;
	atomic_ulong opens, refused;
	int unexpected;
};

static void *join_fn(void *arg)
{
	struct joiner *j = arg;
	static const uint64_t kinds[] = {
		PERF_COUNT_SW_PAGE_FAULTS, PERF_COUNT_SW_CPU_CLOCK,
		PERF_COUNT_SW_TASK_CLOCK, PERF_COUNT_SW_DUMMY,
	};
	unsigned int n = 0;
	int leader, fd;

	while (!atomic_load(&j->stop)) {
		leader = atomic_load(&j->leader);
		if (leader < 0) {
			sched_yield();
			continue;
		}
		fd = open_ev(kinds[n++ % 4], j->tid, -1, leader, F_GRP, 0);
		if (fd >= 0) {
			atomic_fetch_add(&j->opens, 1);
			close(fd);
		} else if (errno == EBADF || errno == EINVAL || errno == ENODEV) {
			atomic_fetch_add(&j->refused, 1);
		} else {
			j->unexpected = errno;
		}
	}
	return NULL;
}

TEST(join_group_while_leader_closes)
{
	struct joiner j = { .leader = -1, .tid = (pid_t)syscall(SYS_gettid) };
	long t0 = kernel_taint();
	pthread_t th[2];
	int round, leader, i;
	unsigned long before;

	for (i = 0; i < 2; i++)
		ASSERT_EQ(pthread_create(&th[i], NULL, join_fn, &j), 0);
	for (round = 0; round < GROUP_ROUNDS; round++) {
		leader = open_ev(PERF_COUNT_SW_TASK_CLOCK, 0, -1, -1, F_GRP, 0);
		ASSERT_GE(leader, 0);
		atomic_store(&j.leader, leader);
		before = atomic_load(&j.opens) + atomic_load(&j.refused);
		while (atomic_load(&j.opens) + atomic_load(&j.refused) - before < 2)
			sched_yield();
		/* The fd may be reused by another open at once: that is fine. */
		close(leader);
		atomic_store(&j.leader, -1);
	}
	atomic_store(&j.stop, 1);
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	EXPECT_EQ(j.unexpected, 0);
	EXPECT_GT(atomic_load(&j.opens), 0);
	EXPECT_EQ(kernel_taint(), t0);
}

/* ---- CVE-2023-5717 ---- */

TEST(inherited_group_grows_after_fork)
{
	uint64_t buf[64];
	long t0 = kernel_taint();
	int leader, sib, late, p[2];
	ssize_t n;
	pid_t pid;

	leader = open_spec(&(struct evspec){
		.config = PERF_COUNT_SW_TASK_CLOCK,
		.fmt = F_GRP | F_ID, .inherit = 1 }, 0, -1, -1, 0);
	ASSERT_GE(leader, 0);
	sib = open_spec(&(struct evspec){
		.config = PERF_COUNT_SW_PAGE_FAULTS,
		.fmt = F_GRP | F_ID, .inherit = 1 }, 0, -1, leader, 0);
	ASSERT_GE(sib, 0);
	ASSERT_EQ(pipe(p), 0);
	pid = fork_waiter(p);
	ASSERT_GT(pid, 0);
	/* The child has a copy of the two-member group; now it has three. */
	late = open_spec(&(struct evspec){
		.config = PERF_COUNT_SW_CONTEXT_SWITCHES,
		.fmt = F_GRP | F_ID, .inherit = 1 }, 0, -1, leader, 0);
	ASSERT_GE(late, 0);

	memset(buf, 0xa5, sizeof(buf));
	/* nr, time..., then value + id per member: 1 + 3 * 2 u64s. */
	n = read(leader, buf, 7 * sizeof(uint64_t));
	if (n < 0) {
		EXPECT_EQ(errno, ECHILD);
	} else {
		EXPECT_EQ(n, 7 * sizeof(uint64_t));
		EXPECT_EQ(buf[0], 3);
	}
	/* Nothing past what was asked for. */
	for (int i = 7; i < 64; i++)
		EXPECT_EQ(buf[i], 0xa5a5a5a5a5a5a5a5ULL);
	reap_waiter(pid, p[1]);
	/* The copy is gone: the read is whole again. */
	EXPECT_EQ(read(leader, buf, 7 * sizeof(uint64_t)), 7 * sizeof(uint64_t));
	EXPECT_EQ(buf[0], 3);
	close(late);
	close(sib);
	close(leader);
	EXPECT_EQ(kernel_taint(), t0);
}

/* ---- CVE-2023-6931 ---- */

#define FMT_ALL	(F_GRP | F_ID | F_LOST | F_EN | F_RUN)

#define MAX_MEMBERS	1024

/*
 * Add dummy members with FMT_ALL to the group of fds[0] until one is
 * refused; returns the members (leader included), or -errno of the
 * refusal when it was not E2BIG or never came.
 */
static int fill_group(int *fds)
{
	int n = 1, fd;

	for (;;) {
		fd = open_fmt(PERF_COUNT_SW_DUMMY, FMT_ALL, fds[0], 0);
		if (fd < 0)
			return errno == E2BIG ? n : -errno;
		fds[n++] = fd;
		if (n == MAX_MEMBERS)
			return -ENOSPC;
	}
}

TEST(group_read_size_limit)
{
	int fds[MAX_MEMBERS], n, i;
	size_t size;
	uint64_t *buf;
	long t0 = kernel_taint();

	ASSERT_EQ(raise_nofile(2048), 0);
	fds[0] = open_fmt(PERF_COUNT_SW_DUMMY, FMT_ALL, -1, 0);
	ASSERT_GE(fds[0], 0);
	n = fill_group(fds);
	ASSERT_GT(n, 0);
	/* nr, enabled, running, then value + id + lost per member. */
	size = (3 + 3 * n) * sizeof(uint64_t);
	EXPECT_LE(size, 16 * 1024);
	EXPECT_GT(size + 3 * sizeof(uint64_t), 16 * 1024);
	buf = malloc(size + 64);
	ASSERT_NE(buf, NULL);
	EXPECT_EQ(read(fds[n - 1], buf, size + 64), (ssize_t)size);
	EXPECT_EQ(buf[0], n);
	EXPECT_EQ(read(fds[0], buf, size - 8), -1);
	EXPECT_EQ(errno, ENOSPC);
	free(buf);
	for (i = n - 1; i >= 0; i--)
		close(fds[i]);
	EXPECT_EQ(kernel_taint(), t0);
}

/*
 * The samples in a buffer of @pages data pages, or -1 if one of them is
 * not @size bytes long.
 */
static int samples_of_size(struct perf_event_mmap_page *pg, int pages,
			   uint64_t size)
{
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	unsigned char *data = (unsigned char *)pg + psz;
	uint64_t pos = pg->data_tail;
	struct perf_event_header h;
	int samples = 0;

	while (pos < head) {
		memcpy(&h, data + (pos & (pages * psz - 1)), sizeof(h));
		if (!h.size)
			break;
		if (h.type == PERF_RECORD_SAMPLE) {
			if (h.size != size)
				return -1;
			samples++;
		}
		pos += h.size;
	}
	return samples;
}

/*
 * A sampler reading a large group (PERF_SAMPLE_READ): the sample record's
 * 16-bit size must hold it, so the member that would not fit is refused,
 * and each sample is as long as its header says.
 */
TEST(group_sample_read_size)
{
	struct perf_event_attr a;
	int fds[MAX_MEMBERS], n, i;
	struct perf_event_mmap_page *pg;
	long t0 = kernel_taint();
	void *m;

	ASSERT_EQ(raise_nofile(2048), 0);
	sw_attr(&a, PERF_COUNT_SW_PAGE_FAULTS);
	a.read_format = FMT_ALL;
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_READ | PERF_SAMPLE_IP;
	a.exclude_kernel = 1;
	a.disabled = 1;
	fds[0] = sys_perf_event_open(&a, 0, -1, -1, 0);
	ASSERT_GE(fds[0], 0);
	n = fill_group(fds);
	ASSERT_GT(n, 0);
	m = mmap(NULL, 17 * psz, PROT_READ | PROT_WRITE, MAP_SHARED, fds[0], 0);
	ASSERT_NE(m, MAP_FAILED);
	pg = m;
	ASSERT_EQ(ioctl(fds[0], PERF_EVENT_IOC_ENABLE, 0), 0);
	touch_pages(2);
	ASSERT_EQ(ioctl(fds[0], PERF_EVENT_IOC_DISABLE, 0), 0);
	/* header, ip, then the group read: nr, times, 3 per member */
	EXPECT_GT(samples_of_size(pg, 16, 8 + 8 + (3 + 3 * (uint64_t)n) * 8), 0);
	munmap(m, 17 * psz);
	for (i = n - 1; i >= 0; i--)
		close(fds[i]);
	EXPECT_EQ(kernel_taint(), t0);
}

/* ---- CVE-2026-23248 ---- */

#define MAP_ROUNDS	200

struct mapper {
	atomic_int fd;
	atomic_int stop;
	atomic_ulong maps;
};

static void *remap_fn(void *arg)
{
	struct mapper *mp = arg;
	void *m;
	int fd;

	while (!atomic_load(&mp->stop)) {
		fd = atomic_load(&mp->fd);
		if (fd < 0) {
			sched_yield();
			continue;
		}
		m = mmap(NULL, 2 * psz, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (m != MAP_FAILED) {
			atomic_fetch_add(&mp->maps, 1);
			munmap(m, 2 * psz);
		}
	}
	return NULL;
}

/*
 * Two threads map and unmap the same event's buffer over and over while
 * a third redirects another event into it and back and the owner closes
 * and reopens: the locked-memory charge ends where it began (VmPin 0).
 */
TEST(map_unmap_redirect_close)
{
	struct mapper mp = { .fd = -1 };
	long t0 = kernel_taint();
	unsigned long before;
	pthread_t th[2];
	int round, fd, other, i;

	for (i = 0; i < 2; i++)
		ASSERT_EQ(pthread_create(&th[i], NULL, remap_fn, &mp), 0);
	for (round = 0; round < MAP_ROUNDS; round++) {
		fd = open_fmt(PERF_COUNT_SW_DUMMY, 0, -1, 0);
		other = open_fmt(PERF_COUNT_SW_DUMMY, 0, -1, 0);
		ASSERT_GE(fd, 0);
		ASSERT_GE(other, 0);
		atomic_store(&mp.fd, fd);
		before = atomic_load(&mp.maps);
		/* Until the mappers got at it a couple of times. */
		while (atomic_load(&mp.maps) - before < 2) {
			ioctl(other, PERF_EVENT_IOC_SET_OUTPUT, fd);
			ioctl(other, PERF_EVENT_IOC_SET_OUTPUT, -1);
			sched_yield();
		}
		atomic_store(&mp.fd, -1);
		close(other);
		close(fd);
	}
	atomic_store(&mp.stop, 1);
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	EXPECT_GT(atomic_load(&mp.maps), 0);
	EXPECT_EQ(vm_pin_kb(), 0);
	EXPECT_EQ(kernel_taint(), t0);
}

/* ---- CVE-2026-23271 ---- */

#define EXIT_ROUNDS	150

static atomic_ulong traps;

static void on_trap(int sig)
{
	atomic_fetch_add(&traps, 1);
}

/*
 * Children that take page faults under a SIGTRAP sampler and a SIGIO
 * sampler (inherited from this process, and opened on them from here),
 * and exit at once; their events are closed here at the same time.
 */
TEST(overflow_at_exit)
{
	struct perf_event_attr a;
	long t0 = kernel_taint();
	int round, fd[3], status;
	pid_t pid;

	signal(SIGTRAP, on_trap);
	signal(SIGIO, SIG_IGN);
	for (round = 0; round < EXIT_ROUNDS; round++) {
		sw_attr(&a, PERF_COUNT_SW_PAGE_FAULTS);
		a.sample_period = 1;
		a.sigtrap = 1;
		a.remove_on_exec = 1;
		a.inherit = 1;
		a.exclude_kernel = 1;
		fd[0] = sys_perf_event_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		ASSERT_GE(fd[0], 0);
		pid = fork();
		ASSERT_GE(pid, 0);
		if (pid == 0) {
			touch_pages(4 + round % 5);
			_exit(0);
		}
		sw_attr(&a, PERF_COUNT_SW_PAGE_FAULTS);
		a.sample_period = 1;
		a.exclude_kernel = 1;
		fd[1] = sys_perf_event_open(&a, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd[1] >= 0) {
			fcntl(fd[1], F_SETOWN, getpid());
			fcntl(fd[1], F_SETFL, O_ASYNC);
		}
		a.sigtrap = 1;
		a.remove_on_exec = 1;
		fd[2] = sys_perf_event_open(&a, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (round & 1)
			close(fd[0]);
		waitpid(pid, &status, 0);
		if (!(round & 1))
			close(fd[0]);
		if (fd[1] >= 0)
			close(fd[1]);
		if (fd[2] >= 0)
			close(fd[2]);
	}
	signal(SIGTRAP, SIG_DFL);
	signal(SIGIO, SIG_DFL);
	EXPECT_EQ(kernel_taint(), t0);
}

static void __attribute__((constructor)) cve_init(void)
{
	psz = page_size();
}

TEST_HARNESS_MAIN
