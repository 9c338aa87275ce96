// SPDX-License-Identifier: GPL-2.0
/*
 * Named Intel models (PERFTEST_PMU=skx, icx or spr: the emulated
 * Skylake-SP, Ice Lake-SP and Sapphire Rapids).  CPUID describes each
 * part's PMU (version, counters, the topdown slots event); a kernel with
 * the part's tables names it in caps/pmu_name, shows upstream's events/
 * and format/ files for it, gives its cache events
 * their encodings (read back from the EVTSELs through the msr driver)
 * and keeps events off the counters the model does not allow them (seen
 * in group validation here; hw_retired.c counts the constrained events
 * the emulation counts), and on Ice
 * Lake and later counts topdown: fixed counter 3's slots, and the
 * metrics events read from PERF_METRICS in a group led by slots.  The
 * emulated core retires
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
#include "hw_model_util.h"

#define CPU_PMU "/sys/bus/event_source/devices/cpu/"

/* Cache events: upstream's encoding for the model, or its errno. */
struct cache_case {
	unsigned int cache, op, result;
	int err;		/* 0: the event opens */
	uint64_t event;		/* then: the event and umask it programs */
	uint64_t rsp;		/* and the offcore response it selects */
};

#define L1D	PERF_COUNT_HW_CACHE_L1D
#define L1I	PERF_COUNT_HW_CACHE_L1I
#define LL	PERF_COUNT_HW_CACHE_LL
#define DTLB	PERF_COUNT_HW_CACHE_DTLB
#define ITLB	PERF_COUNT_HW_CACHE_ITLB
#define BPU	PERF_COUNT_HW_CACHE_BPU
#define NODE	PERF_COUNT_HW_CACHE_NODE
#define RD	PERF_COUNT_HW_CACHE_OP_READ
#define WR	PERF_COUNT_HW_CACHE_OP_WRITE
#define PF	PERF_COUNT_HW_CACHE_OP_PREFETCH
#define ACC	PERF_COUNT_HW_CACHE_RESULT_ACCESS
#define MISS	PERF_COUNT_HW_CACHE_RESULT_MISS

/*
 * LL and NODE are offcore response events: they program
 * MSR_OFFCORE_RSP_0 with upstream's request and response bits.
 */
static const struct cache_case skx_cache[] = {
	{ L1D, RD, ACC, 0, 0x81d0 }, { L1D, RD, MISS, 0, 0x0151 },
	{ L1D, WR, ACC, 0, 0x82d0 }, { L1D, WR, MISS, ENOENT },
	{ L1I, RD, ACC, ENOENT }, { L1I, RD, MISS, 0, 0x0283 },
	{ L1I, WR, ACC, EINVAL }, { LL, RD, ACC, 0, 0x01b7, 0x3fc0010001ULL },
	{ DTLB, RD, MISS, 0, 0x0e08 }, { DTLB, WR, MISS, 0, 0x0e49 },
	{ ITLB, RD, ACC, 0, 0x2085 }, { ITLB, RD, MISS, 0, 0x0e85 },
	{ ITLB, PF, ACC, EINVAL }, { BPU, RD, ACC, 0, 0x00c4 },
	{ BPU, RD, MISS, 0, 0x00c5 }, { BPU, WR, ACC, EINVAL },
	{ NODE, WR, MISS, 0, 0x01b7, 0x1ff8000002ULL }, { NODE, PF, ACC, ENOENT },
	{ }
};

/* Ice Lake: Skylake's, but no event counts ITLB reads. */
static const struct cache_case icx_cache[] = {
	{ L1D, RD, ACC, 0, 0x81d0 }, { L1D, RD, MISS, 0, 0x0151 },
	{ L1I, RD, ACC, ENOENT }, { L1I, RD, MISS, 0, 0x0283 },
	{ LL, WR, MISS, 0, 0x01b7, 0x3ffc020002ULL }, { DTLB, WR, ACC, 0, 0x82d0 },
	{ ITLB, RD, ACC, EINVAL }, { ITLB, RD, MISS, 0, 0x0e85 },
	{ BPU, RD, ACC, 0, 0x00c4 }, { NODE, RD, ACC, 0, 0x01b7, 0x1fc4000001ULL },
	{ }
};

static const struct cache_case spr_cache[] = {
	{ L1D, RD, ACC, 0, 0x81d0 }, { L1D, RD, MISS, 0, 0xe124 },
	{ L1D, WR, MISS, ENOENT }, { L1I, RD, ACC, ENOENT },
	{ L1I, RD, MISS, 0, 0xe424 }, { LL, RD, MISS, 0, 0x012a, 0x3fbfc00001ULL },
	{ DTLB, RD, MISS, 0, 0x0e12 }, { DTLB, WR, MISS, 0, 0x0e13 },
	{ ITLB, RD, ACC, EINVAL }, { ITLB, RD, MISS, 0, 0x0e11 },
	{ BPU, RD, ACC, 0, 0x04c4 }, { BPU, RD, MISS, 0, 0x04c5 },
	{ NODE, RD, ACC, 0, 0x012a, 0x10c000001ULL }, { NODE, WR, ACC, ENOENT },
	{ }
};

struct model {
	const char *kind;
	unsigned int model, version, gp, fixed;
	unsigned int slots;		/* topdown slots a cycle; 0: none */
	unsigned int metrics;		/* topdown metric events */
	const char *pmu_name;		/* upstream's caps/pmu_name */
	const struct cache_case *cache;	/* its cache events */
	uint64_t offcore;		/* OFFCORE_RESPONSE_0's event and umask */
	uint64_t offcore1;		/* OFFCORE_RESPONSE_1's */
};

/* OFFCORE_RESPONSE_0/1: events 0xb7/0xbb before Golden Cove, 0x2a/0x2b on it. */
static const struct model models[] = {
	{ "skx", 0x55, 4, 4, 3, 0, 0, "skylake", skx_cache, 0x01b7, 0x01bb },
	{ "icx", 0x6a, 5, 8, 4, 5, 4, "icelake", icx_cache, 0x01b7, 0x01bb },
	{ "spr", 0x8f, 5, 8, 4, 6, 8, "sapphire_rapids", spr_cache, 0x012a, 0x012b },
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

/* The kernel's caps/pmu_name into @name (empty when it has none). */
static void kernel_pmu_name(char *name, size_t len)
{
	char fmt[16];
	FILE *f = fopen(CPU_PMU "caps/pmu_name", "r");

	name[0] = 0;
	if (!f)
		return;
	snprintf(fmt, sizeof(fmt), "%%%zus", len - 1);
	if (fscanf(f, fmt, name) != 1)
		name[0] = 0;
	fclose(f);
}

/* Whether the kernel names @m in caps/pmu_name: it has the model's tables. */
static int names_the_model(const struct model *m)
{
	char name[64];

	kernel_pmu_name(name, sizeof(name));
	return !strcmp(name, m->pmu_name);
}

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
	char name[64];

	if (!m)
		SKIP(return, NO_MODEL);
	ASSERT_EQ(0, access(CPU_PMU "caps/pmu_name", R_OK));
	kernel_pmu_name(name, sizeof(name));
	if (strcmp(name, m->pmu_name) && kernel_is_ours())
		SKIP(return, "this kernel has no table for the model yet (issue 33): %s", name);
	EXPECT_STREQ(m->pmu_name, name);
}

/* The event and unit mask of topdown metric @i (0 up). */
#define TD_METRIC(i)	(0x8000ULL + 0x100ULL * (i))
#define TD_SLOTS	0x0400ULL

/* The metrics' events/ names, in PERF_METRICS' byte order. */
static const char *const td_names[] = {
	"topdown-retiring", "topdown-bad-spec", "topdown-fe-bound",
	"topdown-be-bound", "topdown-heavy-ops", "topdown-br-mispredict",
	"topdown-fetch-lat", "topdown-mem-bound",
};

/*
 * Why a topdown test cannot run on @m, or NULL.  Our kernel without
 * topdown skips (the issue); stock has it on every such model.
 */
static const char *no_topdown(const struct model *m)
{
	if (!m)
		return NO_MODEL;
	if (!m->slots)
		return "the model has no topdown metrics";
	if (access(CPU_PMU "events/slots", F_OK) && kernel_is_ours())
		return "this kernel has no topdown events yet (issue 33)";
	return NULL;
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

	if (no_topdown(m))
		SKIP(return, "%s", no_topdown(m));
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

/* slots and the model's metrics in events/, with upstream's encodings. */
TEST(topdown_events_in_sysfs)
{
	const struct model *m = this_model();
	char path[128], want[64], got[64];
	unsigned int i;

	if (no_topdown(m))
		SKIP(return, "%s", no_topdown(m));
	ASSERT_LE(0, read_bytes(CPU_PMU "events/slots", got, sizeof(got)));
	EXPECT_STREQ("event=0x00,umask=0x4\n", got);
	for (i = 0; i < ARRAY_SIZE(td_names); i++) {
		snprintf(path, sizeof(path), CPU_PMU "events/%s", td_names[i]);
		if (i >= m->metrics) {
			EXPECT_NE(0, access(path, F_OK)) TH_LOG("%s is there", path);
			continue;
		}
		snprintf(want, sizeof(want), "event=0x00,umask=0x%x\n", 0x80 + i);
		ASSERT_LE(0, read_bytes(path, got, sizeof(got))) TH_LOG("%s", path);
		EXPECT_STREQ(want, got);
	}
}

/* Open @config in the cpu PMU, counting user space, in group @group. */
static int open_td(long type, uint64_t config, uint64_t period, int group)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = type,
		.config = config,
		.sample_period = period,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.disabled = group < 0,
		.read_format = PERF_FORMAT_GROUP,
	};

	return sys_perf_event_open(&attr, 0, -1, group, 0);
}

/* An open that must have failed with EINVAL. */
static void refused(struct __test_metadata *_metadata, int fd, const char *what)
{
	int err = errno;

	EXPECT_EQ(-1, fd) TH_LOG("%s opens", what);
	if (fd >= 0)
		close(fd);
	else
		EXPECT_EQ(EINVAL, err) TH_LOG("%s: %s", what, strerror(err));
}

/*
 * Upstream's rules: a metric needs a counting slots leader and does not
 * sample; neither takes filters or config1; each metric once a group.
 */
TEST(topdown_group_rules)
{
	const struct model *m = this_model();
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};
	int slots, cycles, fd;
	long type;

	if (no_topdown(m))
		SKIP(return, "%s", no_topdown(m));
	ASSERT_EQ(0, read_file_long(CPU_PMU "type", &type));

	refused(_metadata, open_td(type, TD_METRIC(0), 0, -1), "a metric leading");
	cycles = open_td(type, 0x003c, 0, -1);
	ASSERT_LE(0, cycles);
	refused(_metadata, open_td(type, TD_METRIC(0), 0, cycles), "a metric under cycles");
	close(cycles);

	/* A sampling slots event opens, but takes no metrics. */
	slots = open_td(type, TD_SLOTS, 100000, -1);
	ASSERT_LE(0, slots) TH_LOG("sampling slots: %s", strerror(errno));
	refused(_metadata, open_td(type, TD_METRIC(0), 0, slots), "a metric under sampling slots");
	close(slots);

	slots = open_td(type, TD_SLOTS, 0, -1);
	ASSERT_LE(0, slots);
	refused(_metadata, open_td(type, TD_METRIC(1), 1000, slots), "a sampling metric");
	refused(_metadata, open_td(type, TD_METRIC(1) | (1ULL << 24), 0, slots),
		"a metric with a threshold");
	fd = open_td(type, TD_METRIC(3), 0, slots);
	ASSERT_LE(0, fd) TH_LOG("be-bound: %s", strerror(errno));
	refused(_metadata, open_td(type, TD_METRIC(3), 0, slots), "a metric twice");
	close(fd);
	/* A code past the model's metrics is an ordinary event. */
	if (m->metrics < 8) {
		fd = open_td(type, TD_METRIC(m->metrics), 0, slots);
		EXPECT_LE(0, fd) TH_LOG("%#llx: %s",
					(unsigned long long)TD_METRIC(m->metrics),
					strerror(errno));
		if (fd >= 0)
			close(fd);
	}
	close(slots);

	refused(_metadata, open_td(type, TD_SLOTS | (1ULL << 18), 0, -1), "slots with edge");
	attr.type = type;
	attr.config = TD_SLOTS;
	attr.config1 = 1;
	refused(_metadata, sys_perf_event_open(&attr, 0, -1, -1, 0), "slots with config1");
}

/* A metric whose slots leader is closed fails for good: read() gives 0. */
TEST(topdown_metric_needs_its_leader)
{
	const struct model *m = this_model();
	uint64_t buf[8];
	int slots, fd;
	long type;

	if (no_topdown(m))
		SKIP(return, "%s", no_topdown(m));
	ASSERT_EQ(0, read_file_long(CPU_PMU "type", &type));
	slots = open_td(type, TD_SLOTS, 0, -1);
	ASSERT_LE(0, slots);
	fd = open_td(type, TD_METRIC(0), 0, slots);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(slots, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP));
	spin(10000);
	close(slots);
	EXPECT_EQ(0, read(fd, buf, sizeof(buf)));
	spin(10000);
	EXPECT_EQ(0, read(fd, buf, sizeof(buf)));
	close(fd);
}

/*
 * Slots and metrics across reads and context switches: the loop runs in
 * chunks with a sleep between, and is read halfway.  Every part of the
 * slots is counted once, and each metric keeps its share of them.
 */
TEST(topdown_across_reads_and_switches)
{
	const struct model *m = this_model();
	uint64_t a[1 + 5], b[1 + 5], slots, ret, be;
	unsigned int metric[] = { 0, 3 };
	int fd[3], i, half;
	long type;

	if (no_topdown(m))
		SKIP(return, "%s", no_topdown(m));
	ASSERT_EQ(0, read_file_long(CPU_PMU "type", &type));
	fd[0] = open_td(type, TD_SLOTS, 0, -1);
	ASSERT_LE(0, fd[0]);
	for (i = 0; i < 2; i++) {
		fd[1 + i] = open_td(type, TD_METRIC(metric[i]), 0, fd[0]);
		ASSERT_LE(0, fd[1 + i]);
	}
	ASSERT_EQ(0, ioctl(fd[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP));
	for (half = 0; half < 2; half++) {
		for (i = 0; i < 10; i++) {
			spin(100000);
			usleep(100);
		}
		ASSERT_LT(0, read(fd[0], half ? b : a, sizeof(a)));
	}
	ASSERT_EQ(0, ioctl(fd[0], PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP));
	ASSERT_EQ(3, a[0]);
	TH_LOG("halfway: slots %llu, retiring %llu, be %llu; end: %llu, %llu, %llu",
	       (unsigned long long)a[1], (unsigned long long)a[2],
	       (unsigned long long)a[3], (unsigned long long)b[1],
	       (unsigned long long)b[2], (unsigned long long)b[3]);
	/* Halfway two million loop cycles, at the end four. */
	EXPECT_GE(a[1], m->slots * 2000000ULL);
	EXPECT_LT(a[1], m->slots * 2020000ULL);
	EXPECT_GE(b[1], m->slots * 4000000ULL);
	EXPECT_LT(b[1], m->slots * 4040000ULL);
	/* Counts only grow. */
	EXPECT_LE(a[2], b[2]);
	EXPECT_LE(a[3], b[3]);
	/* Shares: a width-th retiring, the rest backend bound (1/255, and 1 a fold). */
	slots = b[1];
	ret = b[2];
	be = b[3];
	EXPECT_LE(ret, slots / m->slots + slots / 255 + 100);
	EXPECT_GE(ret + slots / 255 + 100, slots / m->slots);
	EXPECT_LE(be, slots - slots / m->slots + slots / 255 + 100);
	EXPECT_GE(be + slots / 255 + 100, slots - slots / m->slots);
	for (i = 0; i < 3; i++)
		close(fd[i]);
}

TEST(cache_events_follow_the_model)
{
	const struct model *m = this_model();
	const struct cache_case *c;
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_HW_CACHE,
		.exclude_hv = 1,
	};
	int fd, where, msrs = 1;

	if (!m)
		SKIP(return, NO_MODEL);
	c = m->cache;
	if (kernel_is_ours() && !names_the_model(m))
		SKIP(return, "this kernel has no cache events for the model yet (issue 33)");
	ASSERT_EQ(0, pin_to_cpu(0));
	for (; c->cache || c->op || c->result || c->err || c->event; c++) {
		attr.config = c->cache | c->op << 8 | c->result << 16;
		fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
		if (c->err) {
			EXPECT_EQ(-1, fd) TH_LOG("cache event %#llx opens",
						 (unsigned long long)attr.config);
			EXPECT_EQ(c->err, errno) TH_LOG("cache event %#llx: %s",
							(unsigned long long)attr.config,
							strerror(errno));
			if (fd >= 0)
				close(fd);
			continue;
		}
		EXPECT_LE(0, fd) TH_LOG("cache event %#llx: %s",
					(unsigned long long)attr.config, strerror(errno));
		if (fd < 0)
			continue;
		/* Counting now, on this CPU: its EVTSEL has the encoding. */
		where = msrs ? counter_with(0, m->gp, c->event) : -2;
		if (where == -2)
			msrs = 0;
		else
			EXPECT_LE(0, where) TH_LOG("cache event %#llx: no counter has %#llx",
						   (unsigned long long)attr.config,
						   (unsigned long long)c->event);
		if (msrs && c->rsp) {
			uint64_t rsp = 0;

			EXPECT_EQ(0, read_msr(0, MSR_OFFCORE_RSP_0, &rsp));
			EXPECT_EQ(c->rsp, rsp) TH_LOG("cache event %#llx: response %#llx",
						      (unsigned long long)attr.config,
						      (unsigned long long)rsp);
		}
		close(fd);
	}
	if (!msrs)
		TH_LOG("no /dev/cpu/0/msr: the encodings were not checked");
}

/*
 * events/ and format/, file by file, as upstream shows them on the model
 * (the emulated CPUs have no SMT and no TSX; PEBS's files are checked
 * below): every file and nothing else, with its exact bytes.
 */
struct sysfs_file {
	const char *kind;	/* the model, or NULL: all of them */
	const char *path;	/* under the cpu PMU's directory */
	const char *text;
};

static const struct sysfs_file model_files[] = {
	{ NULL, "events/branch-instructions", "event=0xc4\n" },
	{ NULL, "events/cpu-cycles", "event=0x3c\n" },
	{ NULL, "events/instructions", "event=0xc0\n" },
	{ NULL, "events/bus-cycles", "event=0x3c,umask=0x01\n" },
	{ "skx", "events/ref-cycles", "event=0x00,umask=0x03\n" },
	{ "icx", "events/ref-cycles", "event=0x00,umask=0x03\n" },
	/* Golden Cove counts reference cycles on any counter. */
	{ "spr", "events/ref-cycles", "event=0x3c,umask=0x01\n" },
	{ "skx", "events/topdown-total-slots", "event=0x3c,umask=0x0" },
	{ "skx", "events/topdown-total-slots.scale", "4" },
	{ "skx", "events/topdown-slots-issued", "event=0xe,umask=0x1\n" },
	{ "skx", "events/topdown-slots-retired", "event=0xc2,umask=0x2\n" },
	{ "skx", "events/topdown-fetch-bubbles", "event=0x9c,umask=0x1\n" },
	{ "skx", "events/topdown-recovery-bubbles", "event=0xd,umask=0x1,cmask=1" },
	{ "skx", "events/topdown-recovery-bubbles.scale", "4" },
	{ "spr", "events/mem-loads-aux", "event=0x03,umask=0x82\n" },
	{ NULL, "format/event", "config:0-7\n" },
	{ NULL, "format/umask", "config:8-15\n" },
	{ NULL, "format/edge", "config:18\n" },
	{ NULL, "format/pc", "config:19\n" },
	{ NULL, "format/inv", "config:23\n" },
	{ NULL, "format/cmask", "config:24-31\n" },
	{ "skx", "format/any", "config:21\n" },
	{ NULL, "format/offcore_rsp", "config1:0-63\n" },
	{ NULL, "format/ldlat", "config1:0-15\n" },
	{ NULL, "format/frontend", "config1:0-23\n" },
};

/*
 * The events/ files upstream adds where the core has PEBS: Golden Cove's
 * mem-stores is its store latency event.
 */
static const struct sysfs_file pebs_files[] = {
	{ NULL, CPU_PMU "events/mem-loads", "event=0xcd,umask=0x1,ldlat=3\n" },
	{ "skx", CPU_PMU "events/mem-stores", "event=0xd0,umask=0x82\n" },
	{ "icx", CPU_PMU "events/mem-stores", "event=0xd0,umask=0x82\n" },
	{ "spr", CPU_PMU "events/mem-stores", "event=0xcd,umask=0x2\n" },
};

/* Whether pebs_files' @f is for model @m (or, elsewhere, names its file). */
static bool pebs_file_of(const struct sysfs_file *f, const struct model *m)
{
	return !f->kind || !strcmp(f->kind, m->kind);
}

/* Whether the emulated model has PEBS. */
static bool model_has_pebs(const struct model *m)
{
	return !strcmp(m->kind, "skx") || !strcmp(m->kind, "icx") ||
	       !strcmp(m->kind, "spr");
}

TEST(events_and_formats_follow_the_model)
{
	const struct model *m = this_model();
	const struct sysfs_file *f;
	int events = 0, formats = 0;
	char path[128], text[128];

	if (!m)
		SKIP(return, NO_MODEL);
	if (kernel_is_ours() && !names_the_model(m))
		SKIP(return, "this kernel has no tables for the model yet (issue 33)");
	for (f = model_files; f < model_files + ARRAY_SIZE(model_files); f++) {
		if (f->kind && strcmp(f->kind, m->kind))
			continue;
		if (!strncmp(f->path, "events/", 7))
			events++;
		else
			formats++;
		snprintf(path, sizeof(path), CPU_PMU "%s", f->path);
		if (read_bytes(path, text, sizeof(text)) < 0) {
			EXPECT_TRUE(0) TH_LOG("%s: %s", path, strerror(errno));
			continue;
		}
		EXPECT_STREQ(f->text, text) TH_LOG("%s", path);
	}
	/* The topdown and PEBS files are counted in their own tests. */
	if (m->slots)
		events += 1 + m->metrics;
	for (f = pebs_files; f < pebs_files + ARRAY_SIZE(pebs_files); f++)
		events += pebs_file_of(f, m) && !access(f->path, F_OK);
	EXPECT_EQ(events, count_files(CPU_PMU "events"));
	EXPECT_EQ(formats, count_files(CPU_PMU "format"));
}

/*
 * The perf tool's mem-loads and mem-stores, where the emulated core has
 * PEBS (Skylake-SP, Ice Lake-SP, Sapphire Rapids), as upstream's;
 * nowhere else.
 */
TEST(pebs_events_where_there_is_pebs)
{
	const struct model *m = this_model();
	const struct sysfs_file *f;
	char text[128];
	long precise = 0;
	bool pebs;

	if (!m)
		SKIP(return, NO_MODEL);
	pebs = model_has_pebs(m);
	read_file_long(CPU_PMU "caps/max_precise", &precise);
	if (kernel_is_ours() && pebs && !precise)
		SKIP(return, "this kernel has no PEBS driver for the model yet (issue 34)");
	for (f = pebs_files; f < pebs_files + ARRAY_SIZE(pebs_files); f++) {
		if (pebs && !pebs_file_of(f, m))
			continue;
		if (!pebs) {
			EXPECT_NE(0, access(f->path, F_OK)) TH_LOG("%s", f->path);
			continue;
		}
		if (read_bytes(f->path, text, sizeof(text)) < 0) {
			EXPECT_TRUE(0) TH_LOG("%s: %s", f->path, strerror(errno));
			continue;
		}
		EXPECT_STREQ(f->text, text) TH_LOG("%s", f->path);
	}
}

/*
 * Counter constraints, seen in group validation: a group whose events
 * need more of the counters an event may use than there are cannot be
 * scheduled, and its last member is refused (EINVAL).
 */
struct group_case {
	const char *kind;
	uint64_t config;
	unsigned int fit;	/* how many such events one group holds */
};

static const struct group_case groups[] = {
	{ "skx", 0x00c4, 4 },	/* BR_INST_RETIRED: any counter */
	{ "skx", 0x01c0, 1 },	/* INST_RETIRED.PREC_DIST: counter 1 */
	{ "icx", 0x00c4, 8 },
	{ "icx", 0x81d0, 4 },	/* MEM_INST_RETIRED: counters 0-3 */
	{ "icx", 0x0148, 4 },	/* L1D_PEND_MISS: counters 0-3 */
	{ "spr", 0x00c4, 8 },
	{ "spr", 0x0148, 4 },	/* below event 0x90: counters 0-3 */
	{ "spr", 0x012e, 8 },	/* LONGEST_LAT_CACHE: any counter */
	{ "spr", 0x04a4, 1 },	/* TOPDOWN.BAD_SPEC_SLOTS: counter 0 */
	{ "spr", 0x81d0, 4 },
};

TEST(constraints_follow_the_model)
{
	const struct model *m = this_model();
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.exclude_hv = 1,
	};
	unsigned int i, done = 0;
	long type;
	int err;

	if (!m)
		SKIP(return, NO_MODEL);
	if (kernel_is_ours() && !names_the_model(m))
		SKIP(return, "this kernel has no constraints for the model yet (issue 33)");
	ASSERT_EQ(0, read_file_long(CPU_PMU "type", &type));
	attr.type = type;
	for (i = 0; i < ARRAY_SIZE(groups); i++) {
		if (!pmu_is(groups[i].kind))
			continue;
		attr.config = groups[i].config;
		EXPECT_EQ((int)groups[i].fit, group_fit(&attr, groups[i].fit, &err))
			TH_LOG("%#llx: %s", (unsigned long long)attr.config, strerror(err));
		EXPECT_EQ(EINVAL, err);
		done++;
	}
	EXPECT_LT(0, done);
}

/*
 * Raw offcore response events program the model's two response
 * registers, the second one under its own event code, and no more than
 * two responses count at once (hw_util.h's offcore_wrong()).
 */
TEST(offcore_events_program_their_registers)
{
	const struct model *m = this_model();
	char buf[160];
	const char *why;
	long type;

	if (!m)
		SKIP(return, NO_MODEL);
	ASSERT_EQ(0, read_file_long(CPU_PMU "type", &type));
	if (access("/dev/cpu/0/msr", R_OK))
		SKIP(return, "no /dev/cpu/0/msr (CONFIG_X86_MSR) to see the registers");
	ASSERT_EQ(0, pin_to_cpu(0));
	why = offcore_wrong(type, 0, m->gp, m->offcore, m->offcore1, buf, sizeof(buf));
	EXPECT_EQ(NULL, why) TH_LOG("%s", why);
}

TEST_HARNESS_MAIN
