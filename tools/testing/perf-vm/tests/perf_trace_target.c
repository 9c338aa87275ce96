// SPDX-License-Identifier: GPL-2.0
/*
 * A workload for perf_trace.sh whose system calls and function calls
 * are counted exactly:
 *
 *   perf_trace_target getppid N   make N getppid() calls
 *   perf_trace_target ufunc N     call user_probe_me() N times
 *   perf_trace_target sleep N     sleep N times for a millisecond
 *   perf_trace_target mmap N      two threads, each mapping and unmapping
 *                                 a page N times (mmap_lock contention)
 *
 * Built with -g -O0 by build-tests.sh.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>

static int sink;

void __attribute__((noinline)) user_probe_me(int x)
{
	sink += x;
}

static void *map_unmap(void *arg)
{
	long n = (long)arg;

	while (n-- > 0) {
		void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return NULL;
		*(char *)p = 1;
		munmap(p, 4096);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct timespec ms = { 0, 1000000 };
	pthread_t t;
	long i, n;

	if (argc != 3) {
		fprintf(stderr, "usage: %s getppid|ufunc|sleep|mmap N\n", argv[0]);
		return 2;
	}
	n = atol(argv[2]);
	if (!strcmp(argv[1], "getppid")) {
		for (i = 0; i < n; i++)
			syscall(SYS_getppid);
	} else if (!strcmp(argv[1], "ufunc")) {
		for (i = 0; i < n; i++)
			user_probe_me(i);
	} else if (!strcmp(argv[1], "sleep")) {
		for (i = 0; i < n; i++)
			nanosleep(&ms, NULL);
	} else if (!strcmp(argv[1], "mmap")) {
		if (pthread_create(&t, NULL, map_unmap, (void *)n))
			return 1;
		map_unmap((void *)n);
		pthread_join(t, NULL);
	} else {
		return 2;
	}
	return 0;
}
