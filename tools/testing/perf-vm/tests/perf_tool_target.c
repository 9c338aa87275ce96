// SPDX-License-Identifier: GPL-2.0
/*
 * A small workload for perf_tool.sh, with functions whose names and
 * shares of the CPU time are known:
 *
 *   perf_tool_target cpu MS     burn MS ms of CPU time: about three
 *                               quarters in hot_loop(), one quarter in
 *                               warm_loop(), both called from main()
 *   perf_tool_target faults N   fault in N fresh pages, one write each,
 *                               and print the range ("buf 0x... 0x...")
 *   perf_tool_target spin MS    burn MS ms of wall-clock time
 *
 * Built with -g -O0 (frame pointers) by build-tests.sh.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>

static volatile unsigned long sink;

static unsigned long long ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* About 3 ms of work, a step of hot_loop(). */
void __attribute__((noinline)) hot_loop(void)
{
	unsigned long i;

	for (i = 0; i < 300000; i++)
		sink += i * 7;
}

/* A third of hot_loop()'s work. */
void __attribute__((noinline)) warm_loop(void)
{
	unsigned long i;

	for (i = 0; i < 100000; i++)
		sink += i * 3;
}

static void cpu(long ms)
{
	unsigned long long end = ns(CLOCK_PROCESS_CPUTIME_ID) + ms * 1000000ULL;

	while (ns(CLOCK_PROCESS_CPUTIME_ID) < end) {
		hot_loop();
		warm_loop();
	}
}

static void spin(long ms)
{
	unsigned long long end = ns(CLOCK_MONOTONIC) + ms * 1000000ULL;

	while (ns(CLOCK_MONOTONIC) < end)
		warm_loop();
}

static int faults(long n)
{
	long psz = sysconf(_SC_PAGESIZE), i;
	char *p;

	p = mmap(NULL, n * psz, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	for (i = 0; i < n; i++)
		p[i * psz] = 1;
	printf("buf %p %p\n", (void *)p, (void *)(p + n * psz));
	return 0;
}

int main(int argc, char **argv)
{
	long arg = argc > 2 ? atol(argv[2]) : 1000;

	if (argc > 1 && !strcmp(argv[1], "faults"))
		return faults(arg);
	if (argc > 1 && !strcmp(argv[1], "spin")) {
		spin(arg);
		return 0;
	}
	cpu(arg);
	return 0;
}
