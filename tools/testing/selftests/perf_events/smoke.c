// SPDX-License-Identifier: GPL-2.0
/* The smallest proof that counting works: one task-clock counter. */
#include "../kselftest_harness.h"
#include "perf_util.h"

TEST(task_clock_counts)
{
	int fd = open_sw(PERF_COUNT_SW_TASK_CLOCK, -1);
	uint64_t v;

	ASSERT_GE(fd, 0);
	burn(1000000);
	v = read_count(fd);
	EXPECT_NE(v, (uint64_t)-1);
	EXPECT_GT(v, 0);
	close(fd);
}

TEST_HARNESS_MAIN
