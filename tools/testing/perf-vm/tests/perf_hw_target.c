// SPDX-License-Identifier: GPL-2.0
/*
 * perf_hw.sh's target: "perf_hw_target N" runs loop(N), which retires
 * exactly 2 * N user instructions (N >= 1), in a function of its own.
 */
#include <stdlib.h>

static void __attribute__((noinline)) loop(unsigned long n)
{
	asm volatile("1:\tdec %0\n\tjnz 1b" : "+r"(n) : : "cc");
}

int main(int argc, char **argv)
{
	loop(argc > 1 ? strtoul(argv[1], NULL, 10) : 1000000);
	return 0;
}
