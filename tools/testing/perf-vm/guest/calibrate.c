// SPDX-License-Identifier: GPL-2.0
/*
 * How slow is this guest?  Times a fixed mix of work, system calls, page
 * faults and a CPU loop (the kinds of work the tests do), and prints the
 * factor by which the test timeouts should grow: twice the ratio to what
 * the same work takes on an idle host with the small (non-debug) kernel,
 * at least 2 and at most 30.
 *
 * usage: calibrate [REFERENCE_NS]
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>

/* The mix below on an idle 2-core host, small kernel, -smp 2. */
#define REFERENCE_NS	65000000ULL

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static volatile uint64_t sink;

static void mix(void)
{
	long psz = sysconf(_SC_PAGESIZE);
	uint64_t i;
	char *p;
	int n;

	for (n = 0; n < 20000; n++)
		syscall(SYS_getppid);
	for (n = 0; n < 40; n++) {
		p = mmap(NULL, 64 * psz, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			break;
		for (i = 0; i < 64; i++)
			p[i * psz] = 1;
		munmap(p, 64 * psz);
	}
	for (i = 0; i < 20000000ULL; i++)
		sink += i;
}

int main(int argc, char **argv)
{
	uint64_t ref = argc > 1 ? strtoull(argv[1], NULL, 10) : REFERENCE_NS;
	uint64_t best = ~0ULL, t;
	int r, factor;

	/* The fastest of three: a single stall should not count. */
	for (r = 0; r < 3; r++) {
		t = now_ns();
		mix();
		t = now_ns() - t;
		if (t < best)
			best = t;
	}
	factor = (int)((2 * best + ref - 1) / ref);
	if (factor < 2)
		factor = 2;
	if (factor > 30)
		factor = 30;
	printf("%d %llu\n", factor, (unsigned long long)best);
	return 0;
}
