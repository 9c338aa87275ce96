// SPDX-License-Identifier: GPL-2.0
/*
 * For modules.sh: open an event of the module's PMU (perf_mod_test) with
 * config VALUE on this task, print "open", wait for end of input, then
 * print "count N" (the event's count) and exit.
 *
 *   perf_mod_user VALUE
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>

int main(int argc, char **argv)
{
	struct perf_event_attr attr;
	uint64_t count;
	char buf[64];
	int fd, type;
	FILE *f;

	if (argc != 2)
		return 2;
	f = fopen("/sys/bus/event_source/devices/perf_mod_test/type", "r");
	if (!f || fscanf(f, "%d", &type) != 1) {
		perror("perf_mod_test/type");
		return 1;
	}
	fclose(f);
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = strtoull(argv[1], NULL, 0);
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd < 0) {
		perror("perf_event_open");
		return 1;
	}
	printf("open\n");
	fflush(stdout);
	while (read(0, buf, sizeof(buf)) > 0)
		;
	if (read(fd, &count, sizeof(count)) != sizeof(count)) {
		perror("read");
		return 1;
	}
	printf("count %llu\n", (unsigned long long)count);
	return 0;
}
