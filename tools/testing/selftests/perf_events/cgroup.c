// SPDX-License-Identifier: GPL-2.0
/*
 * cgroup events: CPU events opened with PERF_FLAG_PID_CGROUP on the fd of a
 * cgroup v2 directory count only while a task of that cgroup, or of one
 * below it, runs on their CPU, and their enabled and running times cover
 * only that; PERF_SAMPLE_CGROUP gives the cgroup's id, PERF_RECORD_CGROUP
 * announces new cgroups, and cgroup-switches counts switches between
 * tasks of different cgroups.
 *
 * The cgroups are made below the cgroup2 mount (one is mounted on a
 * temporary directory when there is none) and removed at the end.  The
 * tasks that run in them are children pinned to CPU 0, where the events
 * count.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "perf_util.h"
#include "perf_rb.h"

#define NO_CGROUP_PERF	"no perf_event controller: CONFIG_CGROUP_PERF is off (issue 13)"

/* The cgroup2 mount point into @buf, mounting one if needed; 0 or -1. */
static int cgroup2_root(char buf[256])
{
	char line[1024], fstype[64];
	FILE *f = fopen("/proc/self/mountinfo", "r");

	while (f && fgets(line, sizeof(line), f)) {
		char *sep = strstr(line, " - ");

		if (!sep || sscanf(sep, " - %63s", fstype) != 1 ||
		    strcmp(fstype, "cgroup2"))
			continue;
		if (sscanf(line, "%*d %*d %*s %*s %255s", buf) == 1) {
			fclose(f);
			return 0;
		}
	}
	if (f)
		fclose(f);
	snprintf(buf, 256, "/tmp/perf-cgroup2");
	mkdir(buf, 0755);
	return mount("cgroup2", buf, "cgroup2", 0, NULL) ? -1 : 0;
}

FIXTURE(cg)
{
	char root[256];
	char base[320];		/* root/perftest.PID */
	char a[340], b[340], c[360];	/* base/a, base/b, base/a/c */
	int fa, fb, fc;		/* their directory fds */
};

FIXTURE_SETUP(cg)
{
	self->fa = -1;
	self->fb = -1;
	self->fc = -1;
	self->base[0] = 0;
	if (!have_perf_cgroup())
		SKIP(return, NO_CGROUP_PERF);
	ASSERT_EQ(cgroup2_root(self->root), 0)
		TH_LOG("no cgroup2 mount: %s", strerror(errno));
	/*
	 * An implicit controller such as perf_event reaches new cgroups
	 * once the root's controller masks have been computed, which a
	 * write to its subtree_control does (systemd's at boot, on most
	 * systems; this guest's init writes none).
	 */
	snprintf(self->base, sizeof(self->base), "%s/cgroup.subtree_control", self->root);
	write_file_str(self->base, "+pids");
	snprintf(self->base, sizeof(self->base), "%s/perftest.%d", self->root, getpid());
	snprintf(self->a, sizeof(self->a), "%s/a", self->base);
	snprintf(self->b, sizeof(self->b), "%s/b", self->base);
	snprintf(self->c, sizeof(self->c), "%s/c", self->a);
	ASSERT_EQ(mkdir(self->base, 0755), 0) TH_LOG("%s: %s", self->base, strerror(errno));
	ASSERT_EQ(mkdir(self->a, 0755), 0);
	ASSERT_EQ(mkdir(self->b, 0755), 0);
	ASSERT_EQ(mkdir(self->c, 0755), 0);
	self->fa = open(self->a, O_RDONLY | O_DIRECTORY);
	self->fb = open(self->b, O_RDONLY | O_DIRECTORY);
	self->fc = open(self->c, O_RDONLY | O_DIRECTORY);
	ASSERT_GE(self->fa, 0);
	ASSERT_GE(self->fb, 0);
	ASSERT_GE(self->fc, 0);
}

FIXTURE_TEARDOWN(cg)
{
	if (self->fa >= 0)
		close(self->fa);
	if (self->fb >= 0)
		close(self->fb);
	if (self->fc >= 0)
		close(self->fc);
	if (!self->base[0])
		return;
	rmdir(self->c);
	rmdir(self->a);
	rmdir(self->b);
	rmdir(self->base);
}

/* What a child does inside its cgroup. */
struct cg_job {
	const char *dir;	/* the cgroup */
	int pages;		/* fresh pages to touch */
	uint64_t burn_ns;	/* CPU time to burn */
};

static int cg_job_fn(void *arg)
{
	struct cg_job *j = arg;
	char procs[400];

	snprintf(procs, sizeof(procs), "%s/cgroup.procs", j->dir);
	if (write_file_str(procs, "0"))
		return 2;
	touch_pages(j->pages);
	burn_ns(j->burn_ns);
	return 0;
}

/* Run @j in a child pinned to CPU 0; 0 when it went well. */
static int run_in(const char *dir, int pages, uint64_t ns)
{
	struct cg_job j = { .dir = dir, .pages = pages, .burn_ns = ns };

	return run_child(0, cg_job_fn, &j);
}

/* A counting software event on CPU 0 for the cgroup of @cgfd. */
static int open_cg(uint64_t config, int cgfd, int group_fd, uint64_t fmt)
{
	struct perf_event_attr attr;

	sw_attr(&attr, config);
	attr.read_format = fmt;
	return sys_perf_event_open(&attr, cgfd, 0, group_fd, PERF_FLAG_PID_CGROUP);
}

TEST_F(cg, counts_only_its_cgroup)
{
	int fa = open_cg(PERF_COUNT_SW_PAGE_FAULTS, self->fa, -1, 0);
	int fb = open_cg(PERF_COUNT_SW_PAGE_FAULTS, self->fb, -1, 0);
	uint64_t ca, cb;

	ASSERT_GE(fa, 0) TH_LOG("%s", strerror(errno));
	ASSERT_GE(fb, 0) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(run_in(self->a, 200, 0), 0);
	ASSERT_EQ(run_in(self->b, 1000, 0), 0);
	ca = read_count(fa);
	cb = read_count(fb);
	/* Each child also takes a few faults of its own after fork. */
	EXPECT_GE(ca, 200);
	EXPECT_LT(ca, 1000) TH_LOG("a counted b's faults: %llu", (unsigned long long)ca);
	EXPECT_GE(cb, 1000);
	close(fa);
	close(fb);
}

TEST_F(cg, counts_cgroups_below)
{
	int fa = open_cg(PERF_COUNT_SW_PAGE_FAULTS, self->fa, -1, 0);
	int fc = open_cg(PERF_COUNT_SW_PAGE_FAULTS, self->fc, -1, 0);
	uint64_t ca, cc;

	ASSERT_GE(fa, 0);
	ASSERT_GE(fc, 0);
	ASSERT_EQ(run_in(self->c, 300, 0), 0);
	ASSERT_EQ(run_in(self->a, 1000, 0), 0);
	ca = read_count(fa);
	cc = read_count(fc);
	/* a sees its own child and c's; c only its own. */
	EXPECT_GE(ca, 1300);
	EXPECT_GE(cc, 300);
	EXPECT_LT(cc, 1000) TH_LOG("c counted its parent's faults: %llu",
				   (unsigned long long)cc);
	close(fa);
	close(fc);
}

TEST_F(cg, times_cover_the_cgroup_only)
{
	uint64_t v[3], t0, wall;
	int fd = open_cg(PERF_COUNT_SW_PAGE_FAULTS, self->fb, -1,
			 PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING);

	ASSERT_GE(fd, 0);
	t0 = mono_ns();
	sleep_ns(100000000);
	ASSERT_EQ(read3(fd, v), 0);
	/* Nothing of b ran yet: its clock did not move. */
	EXPECT_EQ(v[1], 0);
	EXPECT_EQ(v[2], 0);
	ASSERT_EQ(run_in(self->b, 10, 20000000), 0);
	ASSERT_EQ(read3(fd, v), 0);
	wall = mono_ns() - t0;
	EXPECT_GE(v[1], 20000000) TH_LOG("enabled %llu ns", (unsigned long long)v[1]);
	EXPECT_EQ(v[1], v[2]);
	EXPECT_LT(v[1], wall - 100000000)
		TH_LOG("enabled %llu of %llu ns", (unsigned long long)v[1],
		       (unsigned long long)wall);
	close(fd);
}

TEST_F(cg, bad_opens)
{
	struct perf_event_attr attr;
	int tmpdir = open("/tmp", O_RDONLY | O_DIRECTORY);
	int file = open("/proc/self/stat", O_RDONLY);
	int leader;

	ASSERT_GE(tmpdir, 0);
	ASSERT_GE(file, 0);
	sw_attr(&attr, PERF_COUNT_SW_PAGE_FAULTS);
	/* A cgroup event needs a CPU and a cgroup. */
	EXPECT_EQ(sys_perf_event_open(&attr, self->fa, -1, -1, PERF_FLAG_PID_CGROUP), -1);
	EXPECT_EQ(errno, EINVAL);
	EXPECT_EQ(sys_perf_event_open(&attr, -1, 0, -1, PERF_FLAG_PID_CGROUP), -1);
	EXPECT_EQ(errno, EINVAL);
	/* The fd must be an open cgroup directory. */
	EXPECT_EQ(sys_perf_event_open(&attr, 9999, 0, -1, PERF_FLAG_PID_CGROUP), -1);
	EXPECT_EQ(errno, EBADF);
	EXPECT_EQ(sys_perf_event_open(&attr, tmpdir, 0, -1, PERF_FLAG_PID_CGROUP), -1);
	EXPECT_EQ(errno, EBADF);
	EXPECT_EQ(sys_perf_event_open(&attr, file, 0, -1, PERF_FLAG_PID_CGROUP), -1);
	EXPECT_EQ(errno, EBADF);
	/* A group counts in one cgroup. */
	leader = open_cg(PERF_COUNT_SW_PAGE_FAULTS, self->fa, -1, 0);
	ASSERT_GE(leader, 0);
	EXPECT_EQ(open_cg(PERF_COUNT_SW_PAGE_FAULTS, self->fb, leader, 0), -1);
	EXPECT_EQ(errno, EINVAL);
	close(leader);
	close(file);
	close(tmpdir);
}

TEST_F(cg, samples_carry_the_cgroup_id)
{
	struct perf_event_attr attr;
	struct perf_event_header *h;
	struct perf_rb rb;
	struct stat st;
	int fd, n = 0;

	ASSERT_EQ(fstat(self->fa, &st), 0);
	sw_attr(&attr, PERF_COUNT_SW_PAGE_FAULTS);
	attr.sample_period = 1;
	attr.sample_type = PERF_SAMPLE_CGROUP;
	fd = sys_perf_event_open(&attr, self->fa, 0, -1, PERF_FLAG_PID_CGROUP);
	ASSERT_GE(fd, 0) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(rb_map(&rb, fd, 8), 0);
	ASSERT_EQ(run_in(self->a, 20, 0), 0);
	ASSERT_GE(rb_fetch(&rb), 0);
	while ((h = rb_next(&rb))) {
		struct rec_cur c = rc_init(h);

		if (h->type != PERF_RECORD_SAMPLE)
			continue;
		/* The directory's inode number is the cgroup's id. */
		EXPECT_EQ(rc_u64(&c), (uint64_t)st.st_ino);
		n++;
	}
	EXPECT_GE(n, 20);
	rb_unmap(&rb);
	close(fd);
}

TEST_F(cg, new_cgroup_is_announced)
{
	struct perf_event_attr attr;
	struct perf_event_header *h;
	char dir[400], want[400];
	struct perf_rb rb;
	struct stat st;
	int fd, seen = 0;

	sw_attr(&attr, PERF_COUNT_SW_DUMMY);
	attr.cgroup = 1;
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(rb_map(&rb, fd, 8), 0);
	snprintf(dir, sizeof(dir), "%s/new", self->base);
	ASSERT_EQ(mkdir(dir, 0755), 0);
	ASSERT_EQ(stat(dir, &st), 0);
	/* The path is the cgroup's below the hierarchy's root. */
	snprintf(want, sizeof(want), "%s", dir + strlen(self->root));
	ASSERT_GE(rb_fetch(&rb), 0);
	while ((h = rb_next(&rb))) {
		struct rec_cur c = rc_init(h);
		const char *path;
		uint64_t id;

		if (h->type != PERF_RECORD_CGROUP)
			continue;
		id = rc_u64(&c);
		path = rc_ptr(&c, rc_left(&c));
		ASSERT_TRUE(!!path);
		EXPECT_EQ(h->size % 8, 0);
		if (id != (uint64_t)st.st_ino)
			continue;
		EXPECT_STREQ(path, want);
		seen++;
	}
	EXPECT_EQ(seen, 1);
	rmdir(dir);
	rb_unmap(&rb);
	close(fd);
}

/*
 * A child in cgroup @dir on CPU 0 that passes a token @rounds times: it
 * reads from @rfd and writes to @wfd, writing first if @serve.
 */
static pid_t token_child(const char *dir, int rfd, int wfd, int rounds, int serve)
{
	char procs[400], t = 0;
	pid_t pid = fork();
	int i;

	if (pid)
		return pid;
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir);
	if (pin_to_cpu(0) || write_file_str(procs, "0"))
		_exit(1);
	if (serve && write(wfd, &t, 1) != 1)
		_exit(1);
	for (i = 0; i < rounds; i++) {
		if (read(rfd, &t, 1) != 1)
			_exit(1);
		if ((!serve || i < rounds - 1) && write(wfd, &t, 1) != 1)
			_exit(1);
	}
	_exit(0);
}

/* Two children in a and b on CPU 0 pass a token @rounds times. */
static void ping_pong(const char *a, const char *b, int rounds)
{
	int ab[2], ba[2];
	pid_t pa, pb;

	if (pipe(ab) || pipe(ba))
		return;
	pa = token_child(a, ba[0], ab[1], rounds, 1);
	pb = token_child(b, ab[0], ba[1], rounds, 0);
	close(ab[0]);
	close(ab[1]);
	close(ba[0]);
	close(ba[1]);
	reap_child(pa);
	reap_child(pb);
}

TEST_F(cg, cgroup_switches_count)
{
	struct perf_event_attr attr;
	uint64_t n;
	int fd;

	sw_attr(&attr, PERF_COUNT_SW_CGROUP_SWITCHES);
	fd = sys_perf_event_open(&attr, -1, 0, -1, 0);
	ASSERT_GE(fd, 0) TH_LOG("%s", strerror(errno));
	ping_pong(self->a, self->b, 50);
	n = read_count(fd);
	/* Each round switches from a to b and back, maybe through others. */
	EXPECT_GE(n, 100) TH_LOG("%llu cgroup switches", (unsigned long long)n);
	close(fd);
}

/*
 * More flexible groups than counters, on the perf_test PMU (2 counters per
 * CPU, a test PMU of our kernel only): three of cgroup a, three of c
 * below it, one for the whole CPU.  With a task of c running, all seven
 * may run, and multiplexing must give each a turn, although they sit on
 * three different lists.
 */
TEST_F(cg, nested_cgroup_groups_take_turns)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			       PERF_FORMAT_TOTAL_TIME_RUNNING,
	};
	int fd[7], i, round, waiting = 7;
	uint64_t v[3];
	long type;

	if (read_file_long("/sys/bus/event_source/devices/perf_test/type", &type))
		SKIP(return, "no perf_test PMU (a test-only PMU of this kernel)");
	attr.type = type;
	for (i = 0; i < 7; i++) {
		int cg = i < 3 ? self->fa : self->fc;

		fd[i] = i < 6 ? sys_perf_event_open(&attr, cg, 0, -1, PERF_FLAG_PID_CGROUP) :
				sys_perf_event_open(&attr, -1, 0, -1, 0);
		ASSERT_GE(fd[i], 0) TH_LOG("event %d: %s", i, strerror(errno));
	}
	/* Until every group ran: each round is a few multiplexing intervals. */
	for (round = 0; waiting && round < 1000; round++) {
		ASSERT_EQ(run_in(self->c, 0, 20000000), 0);
		for (waiting = 0, i = 0; i < 7; i++) {
			ASSERT_EQ(read3(fd[i], v), 0);
			waiting += !v[2];
		}
	}
	for (i = 0; i < 7; i++) {
		ASSERT_EQ(read3(fd[i], v), 0);
		EXPECT_GT(v[2], 0) TH_LOG("group %d never ran (enabled %llu ns)", i,
					  (unsigned long long)v[1]);
		EXPECT_LT(v[2], v[1]) TH_LOG("group %d ran all along", i);
		close(fd[i]);
	}
}

TEST_HARNESS_MAIN
