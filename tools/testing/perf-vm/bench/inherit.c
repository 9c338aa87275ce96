// SPDX-License-Identifier: GPL-2.0
/*
 * The cost of event inheritance at thread and process creation, in ns per
 * child.  The process is pinned to CPU 0 (its children with it).
 *
 *   thread_none          pthread_create() + pthread_join() of a thread that
 *                        returns at once, no events
 *   thread_inherit_task  the same with one inherited counting task-clock
 *                        event on the process (pid 0, cpu -1, inherit)
 *   thread_inherit_cpu   the same with one inherited counting task-clock
 *                        event per online CPU (pid 0, cpu N, inherit)
 *   fork_none, fork_inherit_task, fork_inherit_cpu
 *                        fork() of a child that calls _exit(0) at once,
 *                        then waitpid(), with the same events
 *   *_added              the figure minus its _none case: what inheriting
 *                        the events costs per child (copying them in, and
 *                        folding their counts back at exit)
 */
#include "bench.h"
#include <pthread.h>
#include <sys/wait.h>

#define RUNS	31

static void *thread_fn(void *arg)
{
	return arg;
}

static void one_thread(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, thread_fn, NULL))
		die("pthread_create");
	pthread_join(t, NULL);
}

static void one_fork(void)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (pid == 0)
		_exit(0);
	if (waitpid(pid, &status, 0) != pid)
		die("waitpid");
}

enum mode { NONE, INHERIT_TASK, INHERIT_CPU };

static double measure(const char *id, void (*fn)(void), enum mode mode,
		      int n)
{
	int fds[64], nfd = 0, r, i, cpus = sysconf(_SC_NPROCESSORS_ONLN);
	double v[RUNS];

	if (mode == INHERIT_TASK)
		fds[nfd++] = sw_event(PERF_COUNT_SW_TASK_CLOCK, 0, -1, -1, 0, 1, 0);
	if (mode == INHERIT_CPU)
		for (i = 0; i < cpus && i < 64; i++)
			fds[nfd++] = sw_event(PERF_COUNT_SW_TASK_CLOCK, 0, i, -1, 0, 1, 0);
	for (r = -2; r < RUNS; r++) {
		uint64_t t = now_ns();

		for (i = 0; i < n; i++)
			fn();
		if (r >= 0)
			v[r] = (double)(now_ns() - t) / n;
	}
	for (i = 0; i < nfd; i++)
		close(fds[i]);
	return report_runs(id, "ns", v, RUNS);
}

int main(void)
{
	double none;

	pin_cpu(0);
	none = measure("thread_none", one_thread, NONE, 40);
	report("thread_inherit_task_added", "ns",
	       measure("thread_inherit_task", one_thread, INHERIT_TASK, 40) - none);
	report("thread_inherit_cpu_added", "ns",
	       measure("thread_inherit_cpu", one_thread, INHERIT_CPU, 40) - none);

	none = measure("fork_none", one_fork, NONE, 20);
	report("fork_inherit_task_added", "ns",
	       measure("fork_inherit_task", one_fork, INHERIT_TASK, 20) - none);
	report("fork_inherit_cpu_added", "ns",
	       measure("fork_inherit_cpu", one_fork, INHERIT_CPU, 20) - none);
	return 0;
}
