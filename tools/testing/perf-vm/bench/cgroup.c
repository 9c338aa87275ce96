// SPDX-License-Identifier: GPL-2.0
/*
 * Context-switch cost with cgroup events of other cgroups, in ns per
 * switch.
 *
 * The ping-pong of sched.c, with the two tasks in two cgroups (x and y)
 * so that every switch changes the CPU's cgroup and reschedules its
 * cgroup events.  The parent first opens N counting events on CPU 0 for a
 * third cgroup (z) whose tasks never run there: they cannot count, and
 * should cost a switch nothing however many there are.
 *
 *   cgcs_0             no cgroup events
 *   cgcs_1, _8, _64    N = 1, 8, 64 events of cgroup z on CPU 0
 *   cgcs_N_added       cgcs_N - cgcs_0
 *
 * The cgroups are made below a cgroup2 mount (mounted on /tmp/bench-cg if
 * there is none) and removed at the end.
 */
#include "bench.h"
#include <sys/mount.h>
#include <sys/stat.h>

static char root[256], dir_x[300], dir_y[300], dir_z[300];
static pid_t parent;

static void write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0 || write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		die("write %s", path);
	close(fd);
}

static void join(const char *dir)
{
	char path[320];

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	write_str(path, "0");
}

/* In both tasks: each joins its cgroup; the parent opens the events. */
static void open_events(int n, int arg, int *fds)
{
	struct perf_event_attr attr;
	int i, z;

	if (getpid() != parent) {
		join(dir_y);
		return;
	}
	join(dir_x);
	if (!n)
		return;
	z = open(dir_z, O_RDONLY | O_DIRECTORY);
	if (z < 0)
		die("open %s", dir_z);
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_CONTEXT_SWITCHES;
	for (i = 0; i < n; i++) {
		fds[i] = sys_perf_event_open(&attr, z, 0, -1,
					     PERF_FLAG_PID_CGROUP | PERF_FLAG_FD_CLOEXEC);
		if (fds[i] < 0)
			die("perf_event_open(cgroup)");
	}
	close(z);
}

int main(void)
{
	static const int counts[] = { 1, 8, 64 };
	char id[32], path[320];
	double base, x;
	unsigned int i;

	parent = getpid();
	snprintf(root, sizeof(root), "/sys/fs/cgroup");
	snprintf(path, sizeof(path), "%s/cgroup.procs", root);
	if (access(path, F_OK)) {
		snprintf(root, sizeof(root), "/tmp/bench-cg");
		mkdir(root, 0755);
		if (mount("cgroup2", root, "cgroup2", 0, NULL))
			die("mount cgroup2");
	}
	/* The perf_event controller reaches new cgroups after this. */
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", root);
	write_str(path, "+pids");
	snprintf(dir_x, sizeof(dir_x), "%s/bench-x", root);
	snprintf(dir_y, sizeof(dir_y), "%s/bench-y", root);
	snprintf(dir_z, sizeof(dir_z), "%s/bench-z", root);
	if (mkdir(dir_x, 0755) || mkdir(dir_y, 0755) || mkdir(dir_z, 0755))
		die("mkdir cgroups");

	pin_cpu(0);
	base = pingpong_ns("cgcs_0", open_events, 0, 0, 400);
	for (i = 0; i < ARRAY_SIZE(counts); i++) {
		snprintf(id, sizeof(id), "cgcs_%d", counts[i]);
		x = pingpong_ns(id, open_events, counts[i], 0, 400);
		snprintf(id, sizeof(id), "cgcs_%d_added", counts[i]);
		report(id, "ns", x - base);
	}
	/* Back to the root, so that the cgroups can go. */
	snprintf(path, sizeof(path), "%s/cgroup.procs", root);
	write_str(path, "0");
	rmdir(dir_x);
	rmdir(dir_y);
	rmdir(dir_z);
	return 0;
}
