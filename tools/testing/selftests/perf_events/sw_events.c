// SPDX-License-Identifier: GPL-2.0
/*
 * What each software event counts on the calling task: the two clocks
 * against CLOCK_THREAD_CPUTIME_ID, page faults (exact for fresh anonymous
 * pages), context switches, CPU migrations, the events that never fire on
 * x86, and how the exclude_* bits apply to software events (by the
 * privilege level of the registers the event is raised with; the clocks
 * ignore them when counting).  Also CPU-wide events and task events
 * restricted to one CPU.
 *
 * QEMU TCG timing is noisy, so time is only checked within wide bounds;
 * event counts are exact where the kernel makes them so.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <sys/stat.h>

#include "../kselftest_harness.h"
#include "perf_util.h"

#define NPAGES		64
#define MSEC		1000000ULL

static int open_excl(uint64_t config, pid_t pid, int cpu, int excl_user,
		     int excl_kernel)
{
	struct perf_event_attr attr;

	sw_attr(&attr, config);
	attr.exclude_user = excl_user;
	attr.exclude_kernel = excl_kernel;
	return sys_perf_event_open(&attr, pid, cpu, -1, 0);
}

/* ---- clocks --------------------------------------------------------------- */

static void check_clock_tracks_cputime(struct __test_metadata *_metadata,
				       uint64_t config, int excl)
{
	int fd = open_excl(config, 0, -1, excl, excl);
	uint64_t c0, c1, t0, t1, dc, dt;

	ASSERT_GE(fd, 0);
	c0 = read_count(fd);
	t0 = thread_ns();
	burn_ns(200 * MSEC);
	t1 = thread_ns();
	c1 = read_count(fd);
	dc = c1 - c0;
	dt = t1 - t0;
	TH_LOG("config %llu: event %llu ns, thread cputime %llu ns",
	       (unsigned long long)config, (unsigned long long)dc,
	       (unsigned long long)dt);
	EXPECT_GE(dc, dt / 2);
	EXPECT_LE(dc, dt * 2 + 20 * MSEC);
	close(fd);
}

TEST(task_clock_tracks_cputime)
{
	check_clock_tracks_cputime(_metadata, PERF_COUNT_SW_TASK_CLOCK, 0);
}

TEST(cpu_clock_tracks_cputime)
{
	check_clock_tracks_cputime(_metadata, PERF_COUNT_SW_CPU_CLOCK, 0);
}

/* Counting clocks ignore exclude_user/exclude_kernel: they count time. */
TEST(clocks_ignore_exclude_bits)
{
	check_clock_tracks_cputime(_metadata, PERF_COUNT_SW_TASK_CLOCK, 1);
	check_clock_tracks_cputime(_metadata, PERF_COUNT_SW_CPU_CLOCK, 1);
}

/* Per-task clocks stand still while the task sleeps. */
TEST(clocks_stop_while_sleeping)
{
	int tc = open_sw(PERF_COUNT_SW_TASK_CLOCK, -1);
	int cc = open_sw(PERF_COUNT_SW_CPU_CLOCK, -1);
	uint64_t t0, c0, t1, c1;

	ASSERT_GE(tc, 0);
	ASSERT_GE(cc, 0);
	t0 = read_count(tc);
	c0 = read_count(cc);
	sleep_ns(300 * MSEC);
	t1 = read_count(tc);
	c1 = read_count(cc);
	EXPECT_LT(t1 - t0, 100 * MSEC);
	EXPECT_LT(c1 - c0, 100 * MSEC);
	close(cc);
	close(tc);
}

/* A software event is never multiplexed: enabled time == running time. */
TEST(enabled_equals_running)
{
	static const uint64_t configs[] = {
		PERF_COUNT_SW_TASK_CLOCK, PERF_COUNT_SW_CPU_CLOCK,
		PERF_COUNT_SW_PAGE_FAULTS, PERF_COUNT_SW_DUMMY,
	};
	struct perf_event_attr attr;
	uint64_t v[3];
	unsigned int i;
	int fd;

	for (i = 0; i < 4; i++) {
		sw_attr(&attr, configs[i]);
		attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
				   PERF_FORMAT_TOTAL_TIME_RUNNING;
		fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
		ASSERT_GE(fd, 0);
		burn_ns(20 * MSEC);
		sleep_ns(10 * MSEC);
		ASSERT_EQ(sizeof(v), read(fd, v, sizeof(v)));
		EXPECT_GT(v[1], 0);
		EXPECT_EQ(v[1], v[2]) TH_LOG("config %llu",
					     (unsigned long long)configs[i]);
		close(fd);
	}
}

/* ---- page faults ---------------------------------------------------------- */

TEST(page_faults_fresh_pages)
{
	int all = open_sw(PERF_COUNT_SW_PAGE_FAULTS, -1);
	int min = open_sw(PERF_COUNT_SW_PAGE_FAULTS_MIN, -1);
	int maj = open_sw(PERF_COUNT_SW_PAGE_FAULTS_MAJ, -1);
	uint64_t a0, m0;
	char *p = map_anon(NPAGES);

	ASSERT_GE(all, 0);
	ASSERT_GE(min, 0);
	ASSERT_GE(maj, 0);
	ASSERT_NE(NULL, p);
	a0 = read_count(all);
	m0 = read_count(min);
	touch_range(p, NPAGES);
	EXPECT_EQ(a0 + NPAGES, read_count(all));
	EXPECT_EQ(m0 + NPAGES, read_count(min));
	/* Touching them again does not fault. */
	touch_range(p, NPAGES);
	EXPECT_EQ(a0 + NPAGES, read_count(all));
	EXPECT_EQ(m0 + NPAGES, read_count(min));
	/* Anonymous memory never needs I/O. */
	EXPECT_EQ(0, read_count(maj));
	munmap(p, NPAGES * page_size());
	close(maj);
	close(min);
	close(all);
}

/*
 * A page fault is user or kernel by the mode it happened in: faults from
 * our own stores are user faults, faults taken while the kernel copies
 * into a fresh buffer (read() from /dev/zero) are kernel faults.
 * exclude_hv and exclude_idle change nothing for software events.
 */
TEST(page_faults_exclude_bits)
{
	int xu = open_excl(PERF_COUNT_SW_PAGE_FAULTS, 0, -1, 1, 0);
	int xk = open_excl(PERF_COUNT_SW_PAGE_FAULTS, 0, -1, 0, 1);
	int xmin = open_excl(PERF_COUNT_SW_PAGE_FAULTS_MIN, 0, -1, 1, 0);
	int zero = open("/dev/zero", O_RDONLY);
	struct perf_event_attr attr;
	uint64_t u0, k0, m0, h0;
	char *p;
	int hv;

	sw_attr(&attr, PERF_COUNT_SW_PAGE_FAULTS);
	attr.exclude_hv = 1;
	attr.exclude_idle = 1;
	hv = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(xu, 0);
	ASSERT_GE(xk, 0);
	ASSERT_GE(xmin, 0);
	ASSERT_GE(hv, 0);
	ASSERT_GE(zero, 0);

	/* Warm up, so that only the measured pages fault below. */
	touch_pages(NPAGES);
	p = map_anon(1);
	ASSERT_NE(NULL, p);
	ASSERT_EQ(page_size(), read(zero, p, page_size()));
	munmap(p, page_size());

	u0 = read_count(xu);
	k0 = read_count(xk);
	h0 = read_count(hv);
	touch_pages(NPAGES);
	EXPECT_EQ(u0, read_count(xu));
	EXPECT_EQ(k0 + NPAGES, read_count(xk));
	EXPECT_EQ(h0 + NPAGES, read_count(hv));

	p = map_anon(NPAGES);
	ASSERT_NE(NULL, p);
	u0 = read_count(xu);
	k0 = read_count(xk);
	m0 = read_count(xmin);
	h0 = read_count(hv);
	ASSERT_EQ(NPAGES * page_size(), read(zero, p, NPAGES * page_size()));
	EXPECT_EQ(u0 + NPAGES, read_count(xu));
	EXPECT_EQ(k0, read_count(xk));
	EXPECT_EQ(m0 + NPAGES, read_count(xmin));
	EXPECT_EQ(h0 + NPAGES, read_count(hv));
	munmap(p, NPAGES * page_size());
	close(zero);
	close(hv);
	close(xmin);
	close(xk);
	close(xu);
}

/* A big file of the (read-only) root file system to fault in from. */
static const char *big_file(void)
{
	static const char * const candidates[] = {
		"/usr/bin/qemu-system-x86_64",
		"/usr/lib/x86_64-linux-gnu/libcrypto.so.3",
		"/bin/busybox",
	};
	struct stat st;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(candidates); i++)
		if (!stat(candidates[i], &st) &&
		    st.st_size >= NPAGES * page_size())
			return candidates[i];
	return NULL;
}

/*
 * Reading a file mapping after the page cache has been dropped needs
 * I/O: at least one major fault.  A fault that had to wait for the I/O
 * and was retried is seen twice by page-faults but once (as major) by
 * the major/minor events.
 */
TEST(major_faults_from_file)
{
	int maj = open_sw(PERF_COUNT_SW_PAGE_FAULTS_MAJ, -1);
	int min = open_sw(PERF_COUNT_SW_PAGE_FAULTS_MIN, -1);
	int all = open_sw(PERF_COUNT_SW_PAGE_FAULTS, -1);
	const char *path = big_file();
	volatile char sum = 0;
	uint64_t a0, n0, j0;
	int fd, i;
	char *p;

	ASSERT_GE(maj, 0);
	ASSERT_GE(min, 0);
	ASSERT_GE(all, 0);
	if (!path)
		SKIP(return, "no large file to map");
	if (write_file_str("/proc/sys/vm/drop_caches", "1"))
		SKIP(return, "cannot drop the page cache");
	fd = open(path, O_RDONLY);
	ASSERT_GE(fd, 0);
	p = mmap(NULL, NPAGES * page_size(), PROT_READ, MAP_PRIVATE, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	a0 = read_count(all);
	n0 = read_count(min);
	j0 = read_count(maj);
	for (i = 0; i < NPAGES; i++)
		sum += p[i * page_size()];
	(void)sum;
	EXPECT_GE(read_count(maj) - j0, 1);
	EXPECT_GE(read_count(all) - a0,
		  (read_count(maj) - j0) + (read_count(min) - n0));
	EXPECT_LE(read_count(all) - a0, NPAGES);
	munmap(p, NPAGES * page_size());
	close(fd);
	close(all);
	close(min);
	close(maj);
}

/* ---- scheduler events ---------------------------------------------------- */

TEST(context_switches_from_sleeps)
{
	int cs = open_sw(PERF_COUNT_SW_CONTEXT_SWITCHES, -1);
	int xu = open_excl(PERF_COUNT_SW_CONTEXT_SWITCHES, 0, -1, 1, 0);
	uint64_t c0, u0;
	int i;

	ASSERT_GE(cs, 0);
	ASSERT_GE(xu, 0);
	c0 = read_count(cs);
	u0 = read_count(xu);
	/*
	 * Each sleep switches away, unless its timer has already expired
	 * when the task gets to schedule(); 5ms makes that (practically)
	 * impossible even on a slow emulator.
	 */
	for (i = 0; i < 20; i++)
		sleep_ns(5 * MSEC);
	EXPECT_GE(read_count(cs) - c0, 20);
	/* Switches happen in the kernel: exclude_user keeps them. */
	EXPECT_GE(read_count(xu) - u0, 20);
	close(xu);
	close(cs);
}

/* exclude_kernel=1 loses every switch and migration: they are kernel. */
TEST(scheduler_events_are_kernel)
{
	int cs = open_excl(PERF_COUNT_SW_CONTEXT_SWITCHES, 0, -1, 0, 1);
	int mig = open_excl(PERF_COUNT_SW_CPU_MIGRATIONS, 0, -1, 0, 1);
	int i;

	ASSERT_GE(cs, 0);
	ASSERT_GE(mig, 0);
	for (i = 0; i < 20; i++)
		sleep_ns(MSEC);
	if (nr_cpus() > 1) {
		for (i = 0; i < 6; i++)
			ASSERT_EQ(0, pin_to_cpu(i & 1));
	}
	EXPECT_EQ(0, read_count(cs));
	EXPECT_EQ(0, read_count(mig));
	close(mig);
	close(cs);
}

/*
 * Moving ourselves to another CPU with sched_setaffinity() is one
 * migration (and one switch) each time.
 */
TEST(cpu_migrations)
{
	int mig, cs, i;
	uint64_t m;

	if (nr_cpus() < 2)
		SKIP(return, "needs two CPUs");
	ASSERT_EQ(0, pin_to_cpu(0));
	mig = open_sw(PERF_COUNT_SW_CPU_MIGRATIONS, -1);
	cs = open_sw(PERF_COUNT_SW_CONTEXT_SWITCHES, -1);
	ASSERT_GE(mig, 0);
	ASSERT_GE(cs, 0);
	for (i = 1; i <= 10; i++)
		ASSERT_EQ(0, pin_to_cpu(i & 1));
	m = read_count(mig);
	EXPECT_EQ(10, m);
	EXPECT_GE(read_count(cs), 10);
	/* Staying on the CPU we are on is not a migration. */
	ASSERT_EQ(0, pin_to_cpu(0));
	burn_ns(10 * MSEC);
	EXPECT_EQ(m, read_count(mig));
	close(cs);
	close(mig);
}

/* ---- events that do not fire here ---------------------------------------- */

/* x86 reports neither alignment nor emulation faults. */
TEST(alignment_and_emulation_faults_zero)
{
	int al = open_sw(PERF_COUNT_SW_ALIGNMENT_FAULTS, -1);
	int em = open_sw(PERF_COUNT_SW_EMULATION_FAULTS, -1);
	static char buf[64] __attribute__((aligned(64)));
	volatile uint64_t *u = (volatile uint64_t *)(buf + 3);
	int i;

	ASSERT_GE(al, 0);
	ASSERT_GE(em, 0);
	for (i = 0; i < 1000; i++)
		*u += i;
	touch_pages(8);
	burn_ns(5 * MSEC);
	EXPECT_EQ(0, read_count(al));
	EXPECT_EQ(0, read_count(em));
	close(em);
	close(al);
}

/*
 * dummy counts nothing; cgroup-switches nothing while every task is in
 * the same cgroup (the cgroup test counts them); bpf-output only counts
 * BPF output.
 */
TEST(silent_events_zero)
{
	static const uint64_t configs[] = {
		PERF_COUNT_SW_DUMMY, PERF_COUNT_SW_CGROUP_SWITCHES,
		PERF_COUNT_SW_BPF_OUTPUT,
	};
	int fd[3], cpu[3], i;

	for (i = 0; i < 3; i++) {
		fd[i] = open_sw(configs[i], -1);
		ASSERT_GE(fd[i], 0);
		cpu[i] = open_excl(configs[i], -1, 0, 0, 0);
		ASSERT_GE(cpu[i], 0);
	}
	touch_pages(8);
	for (i = 0; i < 10; i++)
		sleep_ns(MSEC);
	burn_ns(5 * MSEC);
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(0, read_count(fd[i])) TH_LOG("config %llu",
						(unsigned long long)configs[i]);
		EXPECT_EQ(0, read_count(cpu[i])) TH_LOG("cpu, config %llu",
						(unsigned long long)configs[i]);
		close(cpu[i]);
		close(fd[i]);
	}
}

/* ---- CPU-wide and CPU-restricted events ------------------------------------ */

static int twenty_sleeps(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < 20; i++)
		sleep_ns(5 * MSEC);
	return 0;
}

/* A CPU-wide event counts whatever task runs on its CPU. */
TEST(cpu_wide_counts_other_tasks)
{
	int cpu = nr_cpus() - 1;
	int pf = open_excl(PERF_COUNT_SW_PAGE_FAULTS, -1, cpu, 0, 0);
	int cs = open_excl(PERF_COUNT_SW_CONTEXT_SWITCHES, -1, cpu, 0, 0);
	uint64_t p0, c0;

	ASSERT_GE(pf, 0);
	ASSERT_GE(cs, 0);
	p0 = read_count(pf);
	ASSERT_EQ(0, touch_in_child(cpu, NPAGES));
	EXPECT_GE(read_count(pf) - p0, NPAGES);
	c0 = read_count(cs);
	ASSERT_EQ(0, run_child(cpu, twenty_sleeps, NULL));
	EXPECT_GE(read_count(cs) - c0, 20);
	close(cs);
	close(pf);
}

/*
 * A CPU-wide cpu-clock counts wall time, idle included, and exclude_idle
 * does not change that for counting.
 */
TEST(cpu_wide_clock_counts_wall_time)
{
	int cpu = nr_cpus() - 1;
	struct perf_event_attr attr;
	uint64_t c0, x0, w0, c1, x1, w1;
	int cc, xi;

	sw_attr(&attr, PERF_COUNT_SW_CPU_CLOCK);
	cc = sys_perf_event_open(&attr, -1, cpu, -1, 0);
	attr.exclude_idle = 1;
	xi = sys_perf_event_open(&attr, -1, cpu, -1, 0);
	ASSERT_GE(cc, 0);
	ASSERT_GE(xi, 0);
	c0 = read_count(cc);
	x0 = read_count(xi);
	w0 = mono_ns();
	sleep_ns(300 * MSEC);
	c1 = read_count(cc);
	x1 = read_count(xi);
	w1 = mono_ns();
	EXPECT_GE(c1 - c0, (w1 - w0) / 2);
	EXPECT_LE(c1 - c0, (w1 - w0) * 2);
	EXPECT_GE(x1 - x0, (w1 - w0) / 2);
	EXPECT_LE(x1 - x0, (w1 - w0) * 2);
	close(xi);
	close(cc);
}

/* A task event restricted to one CPU counts only while the task is there. */
TEST(task_event_on_one_cpu)
{
	int pf, tc;
	uint64_t t0;

	if (nr_cpus() < 2)
		SKIP(return, "needs two CPUs");
	ASSERT_EQ(0, pin_to_cpu(0));
	pf = open_excl(PERF_COUNT_SW_PAGE_FAULTS, 0, 1, 0, 0);
	tc = open_excl(PERF_COUNT_SW_TASK_CLOCK, 0, 1, 0, 0);
	ASSERT_GE(pf, 0);
	ASSERT_GE(tc, 0);
	touch_pages(NPAGES);
	burn_ns(50 * MSEC);
	EXPECT_EQ(0, read_count(pf));
	EXPECT_EQ(0, read_count(tc));

	ASSERT_EQ(0, pin_to_cpu(1));
	touch_pages(NPAGES);
	burn_ns(50 * MSEC);
	EXPECT_EQ(NPAGES, read_count(pf));
	t0 = read_count(tc);
	EXPECT_GE(t0, 25 * MSEC);

	/* Counting stops once we have left CPU 1. */
	ASSERT_EQ(0, pin_to_cpu(0));
	t0 = read_count(tc);
	touch_pages(NPAGES);
	burn_ns(50 * MSEC);
	EXPECT_EQ(NPAGES, read_count(pf));
	EXPECT_EQ(t0, read_count(tc));
	close(tc);
	close(pf);
}

/* Counts carry over across many switches out and back in. */
TEST(counts_survive_context_switches)
{
	int pf = open_sw(PERF_COUNT_SW_PAGE_FAULTS, -1);
	int tc = open_sw(PERF_COUNT_SW_TASK_CLOCK, -1);
	int cs = open_sw(PERF_COUNT_SW_CONTEXT_SWITCHES, -1);
	uint64_t p0, last = 0, v;
	char *p;
	int i;

	ASSERT_GE(pf, 0);
	ASSERT_GE(tc, 0);
	ASSERT_GE(cs, 0);
	p = map_anon(201);
	ASSERT_NE(NULL, p);
	/* One round to warm up. */
	touch_range(p + 200 * page_size(), 1);
	sleep_ns(100000);
	EXPECT_GE(read_count(tc), last);
	p0 = read_count(pf);
	for (i = 0; i < 200; i++) {
		touch_range(p + i * page_size(), 1);
		sleep_ns(100000);
		v = read_count(tc);
		EXPECT_GE(v, last);
		last = v;
	}
	EXPECT_EQ(p0 + 200, read_count(pf));
	/* Such short sleeps may end before the task switches away. */
	EXPECT_GE(read_count(cs), 100);
	munmap(p, 201 * page_size());
	close(cs);
	close(tc);
	close(pf);
}

TEST_HARNESS_MAIN
