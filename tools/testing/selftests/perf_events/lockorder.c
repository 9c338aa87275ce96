// SPDX-License-Identifier: GPL-2.0
/*
 * Lock order between the perf core and the subsystems it calls: on a
 * kernel with lockdep, every lock edge the core has with the outside is
 * taken here at least once, and lockdep must not find a cycle.
 *
 *  - filter_create_hotplug: a CPU-wide tracepoint event is created (the
 *    tracing code registers its probe: event_mutex, then the CPU hotplug
 *    lock), given a filter (PERF_EVENT_IOC_SET_FILTER: event_mutex) and a
 *    CPU goes offline and online (the hotplug lock, then the CPU
 *    contexts' mutexes).  A filter set under the context mutex closes
 *    that into a cycle.
 *  - every_edge: events of every kind this kernel has (software, the two
 *    clocks, tracepoints with filters, breakpoints, the perf_test PMU),
 *    per task and per CPU, in groups, inherited by children that fork,
 *    exec and exit, mapped, redirected, read, enabled and disabled,
 *    closed in every order, while another thread takes a CPU offline and
 *    online again.
 *
 * Besides the console scan of the test harness, each case compares
 * /proc/lockdep_stats' debug_locks before and after: lockdep turns it
 * off when it reports.  Without lockdep the cases still run the paths.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <linux/hw_breakpoint.h>

#include "../kselftest_harness.h"
#include "perf_util.h"

#define MAXCPU		64
#define MAX_TP		16

static long psz;

/* debug_locks from /proc/lockdep_stats: 1, 0, or -1 without lockdep. */
static int lockdep_debug_locks(void)
{
	char line[128];
	int v = -1;
	FILE *f = fopen("/proc/lockdep_stats", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, " debug_locks: %d", &v) == 1)
			break;
	fclose(f);
	return v;
}

static int tp_open(long id, pid_t pid, int cpu, int group)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_TRACEPOINT;
	a.config = id;
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_RAW | PERF_SAMPLE_TID;
	a.inherit = pid != -1;
	return sys_perf_event_open(&a, pid, cpu, group, PERF_FLAG_FD_CLOEXEC);
}

static void online_path(int cpu, char *buf, size_t len)
{
	snprintf(buf, len, "/sys/devices/system/cpu/cpu%d/online", cpu);
}

static int set_online(int cpu, int on)
{
	char path[64];

	online_path(cpu, path, sizeof(path));
	return write_file_str(path, on ? "1\n" : "0\n");
}

/* The highest CPU that can go offline, or -1. */
static int hotplug_cpu(void)
{
	char path[64];
	long v;
	int i;

	if (nr_cpus() < 2)
		return -1;
	for (i = MAXCPU - 1; i > 0; i--) {
		online_path(i, path, sizeof(path));
		if (!read_file_long(path, &v) && v == 1 && !access(path, W_OK))
			return i;
	}
	return -1;
}

static void all_online(void)
{
	char path[64];
	long v;
	int i;

	for (i = 1; i < MAXCPU; i++) {
		online_path(i, path, sizeof(path));
		if (!read_file_long(path, &v) && v == 0)
			set_online(i, 1);
	}
}

/*
 * The three edges of the cycle in one boot: a tracepoint nobody else
 * uses gets its first perf event (probe registration), a filter, and a
 * CPU goes offline and online.
 */
TEST(filter_create_hotplug)
{
	int locks = lockdep_debug_locks(), cpu = hotplug_cpu(), fd;
	long id = tp_id("sched", "sched_process_free");

	if (id < 0)
		SKIP(return, "no tracepoint events (tracing not built in)");
	if (cpu < 0)
		SKIP(return, "no CPU that can go offline");
	fd = tp_open(id, -1, 0, -1);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(ioctl(fd, PERF_EVENT_IOC_SET_FILTER, "pid != 0"), 0);
	ASSERT_EQ(set_online(cpu, 0), 0);
	ASSERT_EQ(set_online(cpu, 1), 0);
	/* And the other way round, with the event still there. */
	EXPECT_EQ(ioctl(fd, PERF_EVENT_IOC_SET_FILTER, "pid != 1"), -1);
	EXPECT_EQ(errno, EEXIST);
	close(fd);
	if (locks >= 0)
		EXPECT_EQ(lockdep_debug_locks(), locks) TH_LOG("lockdep reported");
	all_online();
}

/* ------------------------------------------------------------------ */
/* Every edge                                                           */
/* ------------------------------------------------------------------ */

/* Twice each way of opening (round & 1) times each order of closing (% 3). */
#define EDGE_ROUNDS	12
#define NFD		64

struct edges {
	int fd[NFD];
	int nfd;
	long tp[MAX_TP];
	int ntp;
	long test_type;
	atomic_int stop;
	int cpu;		/* the CPU the hotplug thread plays with */
};

static volatile uint64_t watched __attribute__((aligned(8)));

/* Take the hotplug CPU offline and online until told to stop. */
static void *hotplugger(void *arg)
{
	struct edges *e = arg;

	while (!atomic_load(&e->stop)) {
		if (set_online(e->cpu, 0))
			break;
		usleep(2000);
		set_online(e->cpu, 1);
		usleep(2000);
	}
	set_online(e->cpu, 1);
	return NULL;
}

static void keep(struct edges *e, int fd)
{
	if (fd < 0)
		return;
	if (e->nfd == NFD) {
		close(fd);
		return;
	}
	e->fd[e->nfd++] = fd;
}

static void close_all(struct edges *e, int round)
{
	int i;

	/* Leaders before, after, or between their members. */
	for (i = 0; i < e->nfd; i++) {
		int j = round % 3 == 0 ? i : round % 3 == 1 ? e->nfd - 1 - i :
			(i * 7) % e->nfd;

		if (e->fd[j] >= 0)
			close(e->fd[j]);
		e->fd[j] = -1;
	}
	e->nfd = 0;
}

static void find_tracepoints(struct edges *e)
{
	static const char *names[][2] = {
		{ "sched", "sched_switch" },
		{ "sched", "sched_wakeup" },
		{ "sched", "sched_process_fork" },
		{ "sched", "sched_process_exec" },
		{ "sched", "sched_process_exit" },
		{ "sched", "sched_stat_runtime" },
		{ "raw_syscalls", "sys_enter" },
		{ "syscalls", "sys_enter_getppid" },
		{ "signal", "signal_generate" },
		{ "timer", "hrtimer_start" },
	};
	unsigned int i;
	long id;

	for (i = 0; i < ARRAY_SIZE(names) && e->ntp < MAX_TP; i++) {
		id = tp_id(names[i][0], names[i][1]);
		if (id >= 0)
			e->tp[e->ntp++] = id;
	}
}

/* A mix of events on @pid/@cpu: groups, clocks, tracepoints, breakpoints. */
static void open_mix(struct edges *e, pid_t pid, int cpu, int round)
{
	struct perf_event_attr a;
	int leader, fd, i;

	sw_attr(&a, PERF_COUNT_SW_TASK_CLOCK);
	a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID;
	a.inherit = pid != -1;
	a.comm = round & 1;
	a.mmap = round & 1;
	a.task = round & 1;
	a.context_switch = round & 1;
	leader = sys_perf_event_open(&a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	keep(e, leader);
	for (i = 0; i < PERF_COUNT_SW_MAX; i++) {
		sw_attr(&a, i);
		a.inherit = pid != -1;
		a.sample_period = i & 1 ? 1000 : 0;
		a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID;
		fd = sys_perf_event_open(&a, pid, cpu, i & 2 ? leader : -1,
					 PERF_FLAG_FD_CLOEXEC);
		keep(e, fd);
	}
	for (i = 0; i < e->ntp; i++) {
		fd = tp_open(e->tp[i], pid, cpu, -1);
		if (fd >= 0)
			ioctl(fd, PERF_EVENT_IOC_SET_FILTER,
			      i & 1 ? "common_pid != 0" : "common_pid > 1");
		keep(e, fd);
	}
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_BREAKPOINT;
	a.bp_type = HW_BREAKPOINT_W;
	a.bp_addr = (unsigned long)&watched;
	a.bp_len = HW_BREAKPOINT_LEN_8;
	a.sample_period = 1;
	a.inherit = pid != -1;
	keep(e, sys_perf_event_open(&a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC));
	if (e->test_type >= 0) {
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = e->test_type;
		a.inherit = pid != -1;
		keep(e, sys_perf_event_open(&a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC));
	}
}

/* Map, redirect, read, toggle and change the events opened so far. */
static void work_on(struct edges *e, int round)
{
	uint64_t buf[512], period = 2000;
	void *m = MAP_FAILED;
	int i, target = -1;

	for (i = 0; i < e->nfd; i++) {
		int fd = e->fd[i];

		if (m == MAP_FAILED) {
			m = mmap(NULL, 3 * psz, PROT_READ | PROT_WRITE,
				 MAP_SHARED, fd, 0);
			if (m != MAP_FAILED)
				target = fd;
		} else {
			ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, target);
		}
		read(fd, buf, sizeof(buf));
		ioctl(fd, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
		ioctl(fd, PERF_EVENT_IOC_PERIOD, &period);
		ioctl(fd, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
		ioctl(fd, PERF_EVENT_IOC_RESET, 0);
		if (round & 1)
			ioctl(fd, PERF_EVENT_IOC_PAUSE_OUTPUT, i & 1);
	}
	prctl(PR_TASK_PERF_EVENTS_DISABLE, 0, 0, 0, 0);
	prctl(PR_TASK_PERF_EVENTS_ENABLE, 0, 0, 0, 0);
	watched++;
	touch_pages(4);
	if (m != MAP_FAILED)
		munmap(m, 3 * psz);
}

/* Children that inherit the task events, fork, exec and exit. */
static void children(int round)
{
	pid_t pid = fork();

	if (pid == 0) {
		pid_t grand = fork();

		watched++;
		touch_pages(2);
		if (grand == 0) {
			if (round & 1)
				execl("/bin/true", "true", NULL);
			_exit(0);
		}
		if (grand > 0)
			waitpid(grand, NULL, 0);
		_exit(0);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

TEST(every_edge)
{
	int locks = lockdep_debug_locks(), round;
	long t0 = kernel_taint();
	struct edges e;
	pthread_t th;
	bool hp;

	memset(&e, 0, sizeof(e));
	if (read_file_long("/sys/bus/event_source/devices/perf_test/type",
			   &e.test_type))
		e.test_type = -1;
	find_tracepoints(&e);
	e.cpu = hotplug_cpu();
	hp = e.cpu >= 0 && !pthread_create(&th, NULL, hotplugger, &e);
	for (round = 0; round < EDGE_ROUNDS; round++) {
		/* On this task (inherited), and on CPU 0 for every task. */
		open_mix(&e, 0, -1, round);
		open_mix(&e, -1, 0, round);
		work_on(&e, round);
		children(round);
		close_all(&e, round);
	}
	atomic_store(&e.stop, 1);
	if (hp)
		pthread_join(th, NULL);
	all_online();
	if (locks >= 0)
		EXPECT_EQ(lockdep_debug_locks(), locks) TH_LOG("lockdep reported");
	EXPECT_EQ(kernel_taint(), t0);
	if (!e.ntp)
		TH_LOG("no tracepoints: the tracing edges were not taken");
	if (!hp)
		TH_LOG("no CPU hotplug: the hotplug edges were not taken");
}

static void __attribute__((constructor)) lockorder_init(void)
{
	psz = page_size();
}

TEST_HARNESS_MAIN
