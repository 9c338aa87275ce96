// SPDX-License-Identifier: GPL-2.0
/*
 * perf_hw.sh's target: "perf_hw_target N" runs loop(N), which retires
 * exactly 2 * N user instructions (N >= 1), in a function of its own.
 * "perf_hw_target walk N" runs walk(N): N rounds of loads 64 bytes
 * apart over 16 MiB, each of a line not loaded for a while.
 * "perf_hw_target loads N" runs loads(N): exactly N load instructions
 * and no store (amd_uncore.sh).
 */
#include <stdlib.h>
#include <string.h>

#define WALK_BYTES	(16 << 20)

static void __attribute__((noinline)) loop(unsigned long n)
{
	asm volatile("1:\tdec %0\n\tjnz 1b" : "+r"(n) : : "cc");
}

static void __attribute__((noinline)) walk(const char *p, unsigned long n)
{
	unsigned long i;

	while (n--)
		for (i = 0; i < WALK_BYTES; i += 64)
			asm volatile("mov (%0,%1), %%al" : : "r"(p), "r"(i) : "rax");
}

static void __attribute__((noinline)) loads(unsigned long n)
{
	static char c;

	if (n)
		asm volatile("1:\tmov (%1), %%al\n\tdec %0\n\tjnz 1b"
			     : "+r"(n) : "r"(&c) : "rax", "cc");
}

int main(int argc, char **argv)
{
	char *buf;

	if (argc > 2 && !strcmp(argv[1], "loads")) {
		loads(strtoul(argv[2], NULL, 10));
		return 0;
	}

	if (argc > 2 && !strcmp(argv[1], "walk")) {
		buf = malloc(WALK_BYTES);
		if (!buf)
			return 1;
		memset(buf, 1, WALK_BYTES);
		walk(buf, strtoul(argv[2], NULL, 10));
		free(buf);
		return 0;
	}
	loop(argc > 1 ? strtoul(argv[1], NULL, 10) : 1000000);
	return 0;
}
