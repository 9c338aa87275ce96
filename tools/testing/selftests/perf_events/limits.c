// SPDX-License-Identifier: GPL-2.0
/*
 * What an unprivileged user can make the kernel hold through perf, and
 * that it all comes back:
 *
 *  - events: one file each, so RLIMIT_NOFILE bounds them (EMFILE), and
 *    after closing them all as many can be opened again;
 *  - ring buffers: perf_event_mlock_kb per online CPU, then
 *    RLIMIT_MEMLOCK (0 here: EPERM), page for page, and after unmapping
 *    them all the same amount is there again;
 *  - inherited contexts: one per child, so RLIMIT_NPROC bounds them
 *    (fork fails with EAGAIN), and they go with their children;
 *  - on kernels that show their slabs (/proc/slabinfo and SLUB's shrink
 *    files), the perf_event cache holds as many objects after all this
 *    as before.
 *
 * Each case runs as nobody in a child and returns its verdict.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <sys/stat.h>

#include "../kselftest_harness.h"
#include "perf_util.h"

#define NOFILE		64
#define MLOCK_KB	16
#define NPROC_EXTRA	8

static long psz;

static int open_user_event(int inherit)
{
	struct perf_event_attr a;

	sw_attr(&a, PERF_COUNT_SW_TASK_CLOCK);
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.inherit = inherit;
	return sys_perf_event_open(&a, 0, -1, -1, 0);
}

/* Events until refused; returns how many, the refusal in *err. */
static int open_until_refused(int *fds, int max, int *err)
{
	int n = 0;

	while (n < max) {
		fds[n] = open_user_event(0);
		if (fds[n] < 0) {
			*err = errno;
			break;
		}
		n++;
	}
	return n;
}

static int nofile_child(void *arg)
{
	struct rlimit rl = { NOFILE, NOFILE };
	int fds[NOFILE], n1, n2, err = 0, i;

	if (setrlimit(RLIMIT_NOFILE, &rl))
		return 100;
	n1 = open_until_refused(fds, NOFILE, &err);
	if (err != EMFILE || n1 < NOFILE / 2)
		return 101;
	for (i = 0; i < n1; i++)
		close(fds[i]);
	err = 0;
	n2 = open_until_refused(fds, NOFILE, &err);
	for (i = 0; i < n2; i++)
		close(fds[i]);
	return err == EMFILE && n2 == n1 ? 0 : 102;
}

TEST(events_bounded_by_nofile)
{
	EXPECT_EQ(run_unprivileged(nofile_child, NULL), 0);
}

/* One-data-page buffers until refused; returns how many. */
static int map_until_refused(int *fds, void **maps, int max, int *err)
{
	int n = 0;

	while (n < max) {
		fds[n] = open_user_event(0);
		if (fds[n] < 0) {
			*err = -errno;
			break;
		}
		maps[n] = mmap(NULL, 2 * psz, PROT_READ | PROT_WRITE,
			       MAP_SHARED, fds[n], 0);
		if (maps[n] == MAP_FAILED) {
			*err = errno;
			close(fds[n]);
			break;
		}
		n++;
	}
	return n;
}

static void unmap_all(int *fds, void **maps, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		munmap(maps[i], 2 * psz);
		close(fds[i]);
	}
}

static int mlock_child(void *arg)
{
	int want = MLOCK_KB * 1024 / psz * nr_cpus() / 2, fds[64], n, err = 0;
	struct rlimit rl = { 0, 0 };
	void *maps[64], *big;
	int fd;

	if (setrlimit(RLIMIT_MEMLOCK, &rl) || want > 63)
		return 100;
	n = map_until_refused(fds, maps, 64, &err);
	if (err != EPERM || n != want)
		return 101;
	unmap_all(fds, maps, n);
	n = map_until_refused(fds, maps, 64, &err);
	unmap_all(fds, maps, n);
	if (err != EPERM || n != want)
		return 102;
	/* One buffer of twice the allowance is refused whole. */
	fd = open_user_event(0);
	big = mmap(NULL, (1 + 4 * want) * psz, PROT_READ | PROT_WRITE,
		   MAP_SHARED, fd, 0);
	if (big != MAP_FAILED || errno != EPERM)
		return 103;
	close(fd);
	return vm_pin_kb() == 0 ? 0 : 104;
}

TEST(buffers_bounded_by_mlock)
{
	long old;
	int ret;

	ASSERT_EQ(read_sysctl("perf_event_mlock_kb", &old), 0);
	ASSERT_EQ(write_sysctl("perf_event_mlock_kb", MLOCK_KB), 0);
	ret = run_unprivileged(mlock_child, NULL);
	write_sysctl("perf_event_mlock_kb", old);
	EXPECT_EQ(ret, 0);
}

/* Processes of this user (nobody) that exist now. */
static int user_processes(void)
{
	struct dirent *d;
	struct stat st;
	char path[300];
	int n = 0;
	DIR *dir = opendir("/proc");

	if (!dir)
		return -1;
	while ((d = readdir(dir)))
		if (d->d_name[0] >= '0' && d->d_name[0] <= '9') {
			snprintf(path, sizeof(path), "/proc/%s", d->d_name);
			if (!stat(path, &st) && st.st_uid == getuid())
				n++;
		}
	closedir(dir);
	return n;
}

/* Children, each with a copy of the inherited event, until refused. */
static int fork_until_refused(int *err)
{
	pid_t pids[NPROC_EXTRA * 2];
	int p[2], n = 0, i;

	if (pipe(p))
		return -1;
	while (n < NPROC_EXTRA * 2) {
		pids[n] = fork();
		if (pids[n] < 0) {
			*err = errno;
			break;
		}
		if (!pids[n]) {
			char c;

			close(p[1]);
			while (read(p[0], &c, 1) > 0)
				;
			_exit(0);
		}
		n++;
	}
	close(p[0]);
	close(p[1]);
	for (i = 0; i < n; i++)
		waitpid(pids[i], NULL, 0);
	return n;
}

static int nproc_child(void *arg)
{
	int fd = open_user_event(1), n1, n2, err = 0;
	struct rlimit rl;
	uint64_t v;

	rl.rlim_max = user_processes() + NPROC_EXTRA;
	rl.rlim_cur = rl.rlim_max;
	if (fd < 0 || setrlimit(RLIMIT_NPROC, &rl))
		return 100;
	n1 = fork_until_refused(&err);
	if (err != EAGAIN || n1 < 1 || n1 > NPROC_EXTRA)
		return 101;
	err = 0;
	n2 = fork_until_refused(&err);
	if (err != EAGAIN || n2 != n1)
		return 102;
	/* Every copy folded its count back on its way out. */
	v = read_count(fd);
	close(fd);
	return v != (uint64_t)-1 && v > 0 ? 0 : 103;
}

TEST(inherited_contexts_bounded_by_nproc)
{
	EXPECT_EQ(run_unprivileged(nproc_child, NULL), 0);
}

/*
 * Objects in use in the perf_event cache, after flushing the per-CPU
 * slabs so that the count is exact; -1 where the kernel does not show it.
 */
static long perf_event_objects(void)
{
	char line[512], name[64];
	long active = -1, v;
	FILE *f;

	if (write_file_str("/sys/kernel/slab/perf_event/shrink", "1\n"))
		return -1;
	f = fopen("/proc/slabinfo", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %ld", name, &v) == 2 &&
		    !strcmp(name, "perf_event"))
			active = v;
	fclose(f);
	return active;
}

/* All of the above, then the cache holds as many events as before. */
TEST(memory_comes_back)
{
	long before = perf_event_objects(), after = -1;
	int i;

	if (before < 0)
		SKIP(return, "no /proc/slabinfo or SLUB shrink file (small kernel)");
	EXPECT_EQ(run_unprivileged(nofile_child, NULL), 0);
	EXPECT_EQ(run_unprivileged(nproc_child, NULL), 0);
	/* Events are freed after an RCU grace period. */
	for (i = 0; i < 500; i++) {
		after = perf_event_objects();
		if (after <= before)
			break;
		usleep(20000);
	}
	EXPECT_LE(after, before);
}

static void __attribute__((constructor)) limits_init(void)
{
	psz = page_size();
}

TEST_HARNESS_MAIN
