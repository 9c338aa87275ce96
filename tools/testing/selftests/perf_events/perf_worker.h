/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A forked worker task for the perf_events selftests, so that events can be
 * opened on another task and read at known points.  The worker runs the
 * commands sent over a pipe and acknowledges each with one byte (0 when it
 * went well).  W_EXEC re-executes the test binary, which finds the pipe fds
 * in the environment and keeps serving them (acking once it is up).
 */
#ifndef PERF_WORKER_H
#define PERF_WORKER_H

#include "perf_util.h"

struct wcmd {
	int op;
	int arg;
};

enum {
	W_TOUCH = 1,	/* touch @arg fresh pages */
	W_BURN,		/* burn(@arg * 100000) */
	W_FORK_TOUCH,	/* fork a child that touches @arg pages, reap it */
	W_EXEC,		/* re-execute this binary */
	W_SLEEP_EXIT,	/* sleep @arg ms and exit, without an ack */
	W_EXIT,		/* exit with status @arg, without an ack */
	W_PIN,		/* move to CPU @arg */
	W_FORK_TOUCH_ON,	/* W_FORK_TOUCH on CPU W_ARG_CPU(@arg) */
};

/* W_FORK_TOUCH_ON: the child moves to the CPU, then touches the pages. */
#define W_ARG(cpu, pages)	((cpu) << 16 | (pages))
#define W_ARG_CPU(arg)		((arg) >> 16)
#define W_ARG_PAGES(arg)	((arg) & 0xffff)

struct worker {
	pid_t pid;
	int cmd;
	int ack;
};

#define WORKER_ENV "PERF_TEST_WORKER"

/* The worker's command loop; never returns. */
static inline void worker_serve(int cfd, int afd)
{
	char env[32];
	struct wcmd c;
	char ack;

	while (read(cfd, &c, sizeof(c)) == sizeof(c)) {
		ack = 0;
		switch (c.op) {
		case W_TOUCH:
			touch_pages(c.arg);
			break;
		case W_BURN:
			burn(c.arg * 100000UL);
			break;
		case W_FORK_TOUCH:
			ack = touch_in_child(-1, c.arg) ? 1 : 0;
			break;
		case W_PIN:
			ack = pin_to_cpu(c.arg) || sched_getcpu() != c.arg;
			break;
		case W_FORK_TOUCH_ON:
			ack = touch_in_child(W_ARG_CPU(c.arg),
					     W_ARG_PAGES(c.arg)) ? 1 : 0;
			break;
		case W_EXEC:
			snprintf(env, sizeof(env), "%d,%d", cfd, afd);
			setenv(WORKER_ENV, env, 1);
			execl("/proc/self/exe", "perf-test-worker", NULL);
			ack = 1;
			break;
		case W_SLEEP_EXIT:
			usleep(c.arg * 1000);
			_exit(0);
		case W_EXIT:
			_exit(c.arg);
		}
		if (write(afd, &ack, 1) != 1)
			_exit(1);
	}
	_exit(0);
}

/* Entry point of a worker re-executed by W_EXEC. */
static void __attribute__((constructor)) worker_after_exec(void)
{
	const char *env = getenv(WORKER_ENV);
	int cfd, afd;
	char ack = 0;

	if (!env || sscanf(env, "%d,%d", &cfd, &afd) != 2)
		return;
	if (write(afd, &ack, 1) != 1)
		_exit(1);
	worker_serve(cfd, afd);
}

/*
 * Drop every inherited fd but the two pipe ends, so that the worker does
 * not keep the parent's perf events alive after the parent closes them.
 */
static inline void close_other_fds(int keep1, int keep2)
{
	long fd, max = sysconf(_SC_OPEN_MAX);

	for (fd = 3; fd < max; fd++)
		if (fd != keep1 && fd != keep2)
			close(fd);
}

/* Fork a worker; returns 0 or -1. */
static inline int worker_start(struct worker *w)
{
	int c[2], a[2];

	if (pipe(c) || pipe(a))
		return -1;
	w->pid = fork();
	if (w->pid < 0)
		return -1;
	if (w->pid == 0) {
		close_other_fds(c[0], a[1]);
		worker_serve(c[0], a[1]);
	}
	close(c[0]);
	close(a[1]);
	w->cmd = c[1];
	w->ack = a[0];
	return 0;
}

/* Send one command without waiting for it; 0 on success. */
static inline int worker_send(struct worker *w, int op, int arg)
{
	struct wcmd c = { .op = op, .arg = arg };

	return write(w->cmd, &c, sizeof(c)) == sizeof(c) ? 0 : -1;
}

/* Run one command in the worker and wait for it to finish; 0 on success. */
static inline int worker_do(struct worker *w, int op, int arg)
{
	char ack;

	if (worker_send(w, op, arg))
		return -1;
	if (read(w->ack, &ack, 1) != 1)
		return -1;
	return ack;
}

/* Reap a worker that was told to exit; returns its status or -1. */
static inline int worker_reap(struct worker *w)
{
	close(w->cmd);
	close(w->ack);
	return reap_child(w->pid);
}

/* Make the worker exit and reap it; returns its exit status or -1. */
static inline int worker_stop(struct worker *w)
{
	if (worker_send(w, W_EXIT, 0))
		kill(w->pid, SIGKILL);
	return worker_reap(w);
}

#endif /* PERF_WORKER_H */
