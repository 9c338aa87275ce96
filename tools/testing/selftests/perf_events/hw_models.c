// SPDX-License-Identifier: GPL-2.0
/*
 * Named Intel models (PERFTEST_PMU=skx, icx or spr: the emulated
 * Skylake-SP, Ice Lake-SP and Sapphire Rapids).  CPUID describes each
 * part's PMU (version, counters, the topdown slots event); a kernel with
 * the part's tables names it in caps/pmu_name, and on Ice Lake and later
 * counts topdown: fixed counter 3's slots, and the metrics events read
 * from PERF_METRICS in a group led by slots.  The emulated core retires
 * one instruction a cycle and leaves the other slots of the cycle
 * backend bound (tools/testing/qemu-pmu/README), so a loop's slots are
 * the pipeline's width times its cycles, a width-th of them retiring and
 * the rest backend bound.
 */
#define _GNU_SOURCE
#include <cpuid.h>
#include <errno.h>
#include "../kselftest_harness.h"
#include "perf_util.h"
#include "hw_util.h"

#define CPU_PMU "/sys/bus/event_source/devices/cpu/"

struct model {
	const char *kind;
	unsigned int model, version, gp, fixed;
	unsigned int slots;		/* topdown slots a cycle; 0: none */
	const char *pmu_name;		/* upstream's caps/pmu_name */
};

static const struct model models[] = {
	{ "skx", 0x55, 4, 4, 3, 0, "skylake" },
	{ "icx", 0x6a, 5, 8, 4, 5, "icelake" },
	{ "spr", 0x8f, 5, 8, 4, 6, "sapphire_rapids" },
};

static const struct model *this_model(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(models); i++)
		if (pmu_is(models[i].kind))
			return &models[i];
	return NULL;
}

#define NO_MODEL "not a named Intel model (PMU=skx, icx or spr boots one)"

TEST(cpuid_describes_the_model)
{
	const struct model *m = this_model();
	unsigned int a, b, c, d, model;

	if (!m)
		SKIP(return, NO_MODEL);
	__cpuid(1, a, b, c, d);
	model = ((a >> 4) & 0xf) | ((a >> 12) & 0xf0);
	EXPECT_EQ(6, (a >> 8) & 0xf);
	EXPECT_EQ(m->model, model);
	__cpuid_count(0xa, 0, a, b, c, d);
	EXPECT_EQ(m->version, a & 0xff);
	EXPECT_EQ(m->gp, (a >> 8) & 0xff);
	EXPECT_EQ(48, (a >> 16) & 0xff);
	EXPECT_EQ(m->fixed, d & 0x1f);
	/* From Ice Lake the event vector has the slots event, available. */
	if (m->slots) {
		EXPECT_EQ(8, a >> 24);
		EXPECT_EQ(0, b & (1U << 7));
	} else {
		EXPECT_EQ(7, a >> 24);
	}
}

TEST(pmu_name_names_the_model)
{
	const struct model *m = this_model();
	char name[64] = "";
	FILE *f;

	if (!m)
		SKIP(return, NO_MODEL);
	f = fopen(CPU_PMU "caps/pmu_name", "r");
	ASSERT_NE(NULL, f);
	ASSERT_EQ(1, fscanf(f, "%63s", name));
	fclose(f);
	if (strcmp(name, m->pmu_name) && kernel_is_ours())
		SKIP(return, "this kernel has no table for the model yet (issue 33): %s", name);
	EXPECT_STREQ(m->pmu_name, name);
}

/*
 * Slots leading retiring, bad speculation, frontend and backend bound:
 * slots is the width times the loop's cycles, retiring a width-th.
 */
TEST(topdown_level1_follows_the_model)
{
	/* slots, then topdown-retiring, -bad-spec, -fe-bound, -be-bound. */
	static const uint64_t config[] = { 0x0400, 0x8000, 0x8100, 0x8200, 0x8300 };
	const struct model *m = this_model();
	uint64_t v[1 + ARRAY_SIZE(config)], slots, cycles;
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.read_format = PERF_FORMAT_GROUP,
	};
	int fd[ARRAY_SIZE(config)], cfd;
	long type;
	unsigned int i;

	if (!m)
		SKIP(return, NO_MODEL);
	if (!m->slots)
		SKIP(return, "%s has no topdown metrics", m->kind);
	if (access(CPU_PMU "events/slots", F_OK) && kernel_is_ours())
		SKIP(return, "this kernel has no topdown events yet (issue 33)");
	ASSERT_EQ(0, read_file_long(CPU_PMU "type", &type));
	attr.type = type;
	for (i = 0; i < ARRAY_SIZE(config); i++) {
		attr.config = config[i];
		attr.disabled = !i;
		fd[i] = sys_perf_event_open(&attr, 0, -1, i ? fd[0] : -1, 0);
		ASSERT_LE(0, fd[i]) TH_LOG("config %#llx: %s",
					   (unsigned long long)config[i], strerror(errno));
	}
	cfd = open_hw(PERF_COUNT_HW_CPU_CYCLES, 1, 0, -1, 0);
	ASSERT_LE(0, cfd);

	ASSERT_EQ(0, ioctl(cfd, PERF_EVENT_IOC_ENABLE, 0));
	ASSERT_EQ(0, ioctl(fd[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP));
	spin(1000000);
	ASSERT_EQ(0, ioctl(fd[0], PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP));
	ASSERT_EQ(0, ioctl(cfd, PERF_EVENT_IOC_DISABLE, 0));
	cycles = read_count(cfd);
	ASSERT_EQ(sizeof(v), read(fd[0], v, sizeof(v)));
	ASSERT_EQ(ARRAY_SIZE(config), v[0]);
	slots = v[1];
	TH_LOG("%llu cycles, %llu slots: retiring %llu, bad spec %llu, fe %llu, be %llu",
	       (unsigned long long)cycles, (unsigned long long)slots,
	       (unsigned long long)v[2], (unsigned long long)v[3],
	       (unsigned long long)v[4], (unsigned long long)v[5]);

	/* The loop's cycles, within the ioctls' few around them. */
	EXPECT_GE(slots, m->slots * 2000000ULL);
	EXPECT_LT(slots, m->slots * 2000200ULL);
	EXPECT_LT(slots / m->slots, cycles + 200);
	EXPECT_LT(cycles, slots / m->slots + 200);
	/* Each metric is its byte's share of slots: within 1/255 + 1. */
	EXPECT_LE(v[2], slots / m->slots + 1);
	EXPECT_GE(v[2] + slots / 255 + 1, slots / m->slots);
	EXPECT_EQ(0, v[3]);
	EXPECT_EQ(0, v[4]);
	EXPECT_LE(v[5], slots - slots / m->slots + 1);
	EXPECT_GE(v[5] + slots / 255 + 1, slots - slots / m->slots);

	for (i = 0; i < ARRAY_SIZE(config); i++)
		close(fd[i]);
	close(cfd);
}

TEST_HARNESS_MAIN
