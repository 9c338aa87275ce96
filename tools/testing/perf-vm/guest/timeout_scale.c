// SPDX-License-Identifier: GPL-2.0
/*
 * LD_PRELOAD shim for the test programs: alarm() with the seconds
 * multiplied by $PERFTEST_TIMEOUT_SCALE (an integer, 1 when unset).
 *
 * The kselftest harness gives every test case an alarm of a fixed number
 * of seconds of guest time.  How much a guest gets done in that time
 * depends on the kernel flavour (a KASAN kernel is several times slower)
 * and on how busy the host is; the runner measures that at the start
 * (calibrate.c) and scales the alarms, so that a timeout still means a
 * hang and not a slow machine.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <unistd.h>
#include <sys/syscall.h>

static unsigned int scale(void)
{
	const char *s = getenv("PERFTEST_TIMEOUT_SCALE");
	long v = s ? strtol(s, NULL, 10) : 1;

	return v > 1 && v < 1000 ? (unsigned int)v : 1;
}

unsigned int alarm(unsigned int seconds)
{
	unsigned int k = scale();
	long left = syscall(SYS_alarm, seconds * k);

	/* What is left of the earlier alarm, in the caller's seconds. */
	return left > 0 ? (unsigned int)((left + k - 1) / k) : 0;
}
