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
 *   *_added              what inheriting the events costs per child
 *                        (copying them in, and folding their counts back at
 *                        exit): the median over the rounds of the figure
 *                        minus its _none case of the same round
 *
 * Each round times the calls without events and then, right after, with
 * the events (opened and closed outside the timed regions), so that a
 * difference is taken between neighbours: the state of the page allocator
 * and the RCU backlog, which move the fork figures by several percent
 * over a run, is then nearly the same on both sides.  *_none is the median
 * of the rounds without events of the INHERIT_TASK measurement.
 */
#include "bench.h"
#include <pthread.h>
#include <sys/wait.h>

#define THREAD_RUNS	31
#define FORK_RUNS	101	/* the most; fork figures spread more */

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

enum mode { INHERIT_TASK, INHERIT_CPU };

static int open_events(enum mode mode, int *fds)
{
	int nfd = 0, i, cpus = sysconf(_SC_NPROCESSORS_ONLN);

	if (mode == INHERIT_TASK)
		fds[nfd++] = sw_event(PERF_COUNT_SW_TASK_CLOCK, 0, -1, -1, 0, 1, 0);
	if (mode == INHERIT_CPU)
		for (i = 0; i < cpus && i < 64; i++)
			fds[nfd++] = sw_event(PERF_COUNT_SW_TASK_CLOCK, 0, i, -1, 0, 1, 0);
	return nfd;
}

/* ns per call of @fn over @n calls. */
static double timed(void (*fn)(void), int n)
{
	uint64_t t = now_ns();
	int i;

	for (i = 0; i < n; i++)
		fn();
	return (double)(now_ns() - t) / n;
}

/*
 * Rounds of @n calls without events, then with @mode's events; reports
 * @id (with events), @id_added (per-round differences) and, when @none_id
 * is set, the rounds without events.
 */
static void measure(const char *none_id, const char *id, const char *id_added,
		    void (*fn)(void), enum mode mode, int n, int runs)
{
	double none[FORK_RUNS], with[FORK_RUNS], added[FORK_RUNS], t0, t1;
	int fds[64], nfd, r, i;

	for (r = -2; r < runs; r++) {
		t0 = timed(fn, n);
		nfd = open_events(mode, fds);
		t1 = timed(fn, n);
		for (i = 0; i < nfd; i++)
			close(fds[i]);
		if (r < 0)
			continue;
		none[r] = t0;
		with[r] = t1;
		added[r] = t1 - t0;
	}
	if (none_id)
		report_runs(none_id, "ns", none, runs);
	report_runs(id, "ns", with, runs);
	report_runs(id_added, "ns", added, runs);
}

int main(void)
{
	pin_cpu(0);
	measure("thread_none", "thread_inherit_task", "thread_inherit_task_added",
		one_thread, INHERIT_TASK, 40, THREAD_RUNS);
	measure(NULL, "thread_inherit_cpu", "thread_inherit_cpu_added",
		one_thread, INHERIT_CPU, 40, THREAD_RUNS);
	measure("fork_none", "fork_inherit_task", "fork_inherit_task_added",
		one_fork, INHERIT_TASK, 20, FORK_RUNS);
	measure(NULL, "fork_inherit_cpu", "fork_inherit_cpu_added",
		one_fork, INHERIT_CPU, 20, FORK_RUNS);
	return 0;
}
