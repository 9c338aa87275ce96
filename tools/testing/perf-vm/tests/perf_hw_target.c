// SPDX-License-Identifier: GPL-2.0
/*
 * perf_hw.sh's target: "perf_hw_target N" runs loop(N), which retires
 * exactly 2 * N user instructions (N >= 1), in a function of its own.
 * "perf_hw_target walk N" runs walk(N): N rounds of loads 64 bytes
 * apart over 16 MiB, each of a line not loaded for a while.
 * "perf_hw_target loads N" runs loads(N): exactly N load instructions
 * and no store (the uncore tests).  "perf_hw_target cued" runs loads(N)
 * for each line "N" it reads on stdin and answers each with a line on
 * stdout, until end of file: what counts between a cue and its answer
 * is N loads and two system calls, not a process's start and exit.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* Read a line of at most SIZE - 1 bytes into LINE: 0 at end of file. */
static int read_line(char *line, size_t size)
{
	size_t len = 0;
	char c;

	while (read(0, &c, 1) == 1) {
		if (c == '\n') {
			line[len] = 0;
			return 1;
		}
		if (len < size - 1)
			line[len++] = c;
	}
	return 0;
}

static int cued(void)
{
	char line[32];

	while (read_line(line, sizeof(line))) {
		loads(strtoul(line, NULL, 10));
		if (write(1, "\n", 1) != 1)
			return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	char *buf;

	if (argc > 1 && !strcmp(argv[1], "cued"))
		return cued();
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
