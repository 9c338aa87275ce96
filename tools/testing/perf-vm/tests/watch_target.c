// SPDX-License-Identifier: GPL-2.0
/* A program for gdb to watch: known writes, reads and a known line. */
#include <stdio.h>

volatile int counter;
volatile long other;

int main(void)
{
	int i;

	for (i = 0; i < 5; i++) {
		other += i;
		counter = i * 10;
	}
	printf("done %d\n", counter);	/* hbreak target */
	return 0;
}
