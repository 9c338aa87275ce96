// SPDX-License-Identifier: GPL-2.0
/*
 * A hybrid Intel part (PERFTEST_PMU=adl: the emulated Alder Lake, whose
 * first half of the CPUs are P-cores and the others E-cores).  CPUID
 * leaf 7 says hybrid, leaf 0x1A gives each CPU its core type, and leaf
 * 0xA reports what both types have (6 general and 3 fixed counters; a
 * P-core has 8 and 4).  A kernel that drives hybrid parts registers one
 * PMU per core type, cpu_core and cpu_atom, each with the CPUs of its
 * type, and an event of one type counts only on its CPUs.  A kernel
 * that does not must refuse the part cleanly: no "cpu" PMU sized from
 * one core type, hardware events ENOENT.  The runner fails the run on
 * any splat its console shows.
 */
#define _GNU_SOURCE
#include <cpuid.h>
#include <errno.h>
#include <sched.h>
#include "../kselftest_harness.h"
#include "perf_util.h"
#include "hw_util.h"
#include "hw_model_util.h"

#define CORE_TYPE_ATOM 0x20
#define CORE_TYPE_CORE 0x40

static const char *hybrid_unavailable(void)
{
	if (!pmu_is("adl"))
		return "the guest's CPU is not hybrid (PMU=adl boots an Alder Lake)";
	return NULL;
}

static int online_cpus(void)
{
	return (int)sysconf(_SC_NPROCESSORS_ONLN);
}

/* The first CPU of a PMU's "cpus" list ("0", "2-3", "0,2"); -1 if none. */
static int first_cpu(const char *pmu)
{
	char path[128];
	long v;

	snprintf(path, sizeof(path), PMU_DIR "%s/cpus", pmu);
	return read_file_long(path, &v) ? -1 : (int)v;
}

/* The emulation: hybrid in leaf 7, each CPU's type in leaf 0x1A. */
TEST(cpuid_describes_the_hybrid_part)
{
	unsigned int a, b, c, d, type;
	int cpu, n = online_cpus();
	const char *why = hybrid_unavailable();

	if (why)
		SKIP(return, "%s", why);
	ASSERT_GE(n, 2);
	__cpuid_count(7, 0, a, b, c, d);
	ASSERT_TRUE(d & (1U << 15));
	for (cpu = 0; cpu < n; cpu++) {
		ASSERT_EQ(0, pin(cpu));
		__cpuid_count(0x1a, 0, a, b, c, d);
		type = a >> 24;
		EXPECT_EQ(cpu < (n + 1) / 2 ? CORE_TYPE_CORE : CORE_TYPE_ATOM, type)
			TH_LOG("CPU %d: core type 0x%x", cpu, type);
		/* Version 5, six general and three fixed counters on both. */
		__cpuid_count(0xa, 0, a, b, c, d);
		EXPECT_EQ(5, a & 0xff);
		EXPECT_EQ(6, (a >> 8) & 0xff);
		EXPECT_EQ(3, d & 0x1f);
	}
}

/*
 * One PMU per core type, each counting the loop exactly on its own CPUs
 * and never running on the other type's.
 */
TEST(pmus_per_core_type_count_exactly)
{
	static const char *const pmus[] = { "cpu_core", "cpu_atom" };
	uint64_t count, v[3];
	const char *why = hybrid_unavailable();
	int i, cpu, type, other, fd, ofd;

	if (why)
		SKIP(return, "%s", why);
	if (access(PMU_DIR "cpu_core", F_OK) && kernel_is_ours())
		SKIP(return, "this kernel has no PMU per core type yet (issue 33)");
	for (i = 0; i < 2; i++) {
		cpu = first_cpu(pmus[i]);
		type = pmu_type(pmus[i]);
		other = pmu_type(pmus[!i]);
		ASSERT_LE(0, cpu) TH_LOG("no %s PMU with CPUs", pmus[i]);
		ASSERT_LT(0, type);
		ASSERT_LT(0, other);
		ASSERT_EQ(0, pin(cpu));
		/* The generic event with the PMU in the extended type bits. */
		fd = open_user(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS |
			       (uint64_t)type << PERF_PMU_TYPE_SHIFT, -1, 0, 0, 0);
		ASSERT_LE(0, fd) TH_LOG("%s/instructions/: %s", pmus[i], strerror(errno));
		ofd = open_user(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS |
				(uint64_t)other << PERF_PMU_TYPE_SHIFT, -1, 0, 0,
				PERF_FORMAT_TOTAL_TIME_ENABLED |
				PERF_FORMAT_TOTAL_TIME_RUNNING);
		ASSERT_LE(0, ofd);
		ASSERT_EQ(0, ioctl(ofd, PERF_EVENT_IOC_ENABLE, 0));
		count = count_spin(fd, 1000000);
		ASSERT_EQ(0, ioctl(ofd, PERF_EVENT_IOC_DISABLE, 0));
		EXPECT_GE(count, 2000000);
		EXPECT_LT(count, 2000100);
		TH_LOG("%s on CPU %d: %llu user instructions", pmus[i], cpu,
		       (unsigned long long)count);
		/* The other type's event never ran here. */
		ASSERT_EQ(sizeof(v), read(ofd, v, sizeof(v)));
		EXPECT_EQ(0, v[0]);
		EXPECT_EQ(0, v[2]);
		EXPECT_LT(0, v[1]);
		close(ofd);
		close(fd);
	}
}

/* Why a test of the per-type PMUs cannot run, or NULL. */
static const char *no_per_type_pmus(void)
{
	const char *why = hybrid_unavailable();

	if (why)
		return why;
	if (access(PMU_DIR "cpu_core", F_OK) && kernel_is_ours())
		return "this kernel has no PMU per core type yet (issue 33)";
	return NULL;
}

/*
 * events/ and format/ of each PMU as upstream shows them on the part
 * (no SMT, no TSX, no PEBS in the emulation).  The model's own events
 * have no newline; where upstream's string holds both core types'
 * encodings, cpu_atom's file is padded with NULs to @size bytes.
 */
struct sysfs_file {
	const char *pmu;	/* NULL: both */
	const char *path;
	const char *text;
	size_t size;		/* 0: the text's length */
};

static const struct sysfs_file hybrid_files[] = {
	{ NULL, "events/branch-instructions", "event=0xc4\n" },
	{ NULL, "events/cpu-cycles", "event=0x3c\n" },
	{ NULL, "events/instructions", "event=0xc0\n" },
	{ NULL, "events/bus-cycles", "event=0x3c,umask=0x01\n" },
	{ NULL, "events/ref-cycles", "event=0x3c,umask=0x01\n" },
	{ "cpu_core", "events/slots", "event=0x00,umask=0x4" },
	{ "cpu_core", "events/topdown-retiring", "event=0x00,umask=0x80" },
	{ "cpu_core", "events/topdown-bad-spec", "event=0x00,umask=0x81" },
	{ "cpu_core", "events/topdown-fe-bound", "event=0x00,umask=0x82" },
	{ "cpu_core", "events/topdown-be-bound", "event=0x00,umask=0x83" },
	{ "cpu_core", "events/topdown-heavy-ops", "event=0x00,umask=0x84" },
	{ "cpu_core", "events/topdown-br-mispredict", "event=0x00,umask=0x85" },
	{ "cpu_core", "events/topdown-fetch-lat", "event=0x00,umask=0x86" },
	{ "cpu_core", "events/topdown-mem-bound", "event=0x00,umask=0x87" },
	{ "cpu_core", "events/mem-loads", "event=0xcd,umask=0x1,ldlat=3" },
	{ "cpu_core", "events/mem-stores", "event=0xcd,umask=0x2" },
	{ "cpu_core", "events/mem-loads-aux", "event=0x03,umask=0x82" },
	{ "cpu_atom", "events/topdown-retiring", "event=0xc2,umask=0x0", 42 },
	{ "cpu_atom", "events/topdown-bad-spec", "event=0x73,umask=0x0", 42 },
	{ "cpu_atom", "events/topdown-fe-bound", "event=0x71,umask=0x0", 42 },
	{ "cpu_atom", "events/topdown-be-bound", "event=0x74,umask=0x0", 42 },
	{ "cpu_atom", "events/mem-loads", "event=0xd0,umask=0x5,ldlat=3", 57 },
	{ "cpu_atom", "events/mem-stores", "event=0xd0,umask=0x6", 41 },
	{ NULL, "format/event", "config:0-7\n" },
	{ NULL, "format/umask", "config:8-15\n" },
	{ NULL, "format/edge", "config:18\n" },
	{ NULL, "format/pc", "config:19\n" },
	{ NULL, "format/inv", "config:23\n" },
	{ NULL, "format/cmask", "config:24-31\n" },
	{ NULL, "format/offcore_rsp", "config1:0-63\n" },
	{ NULL, "format/ldlat", "config1:0-15\n" },
	{ "cpu_core", "format/frontend", "config1:0-23\n" },
	{ NULL, "caps/pmu_name", "alderlake_hybrid\n" },
	/* Both core types have PEBS with precise distribution. */
	{ NULL, "caps/max_precise", "3\n" },
};

TEST(sysfs_per_core_type_as_upstream)
{
	static const char *const pmus[] = { "cpu_core", "cpu_atom" };
	const struct sysfs_file *f;
	char path[128], text[128];
	int i, events, formats;
	size_t size;
	ssize_t n;
	const char *why = no_per_type_pmus();

	if (why)
		SKIP(return, "%s", why);
	for (i = 0; i < 2; i++) {
		events = 0;
		formats = 0;
		for (f = hybrid_files; f < hybrid_files + ARRAY_SIZE(hybrid_files); f++) {
			if (f->pmu && strcmp(f->pmu, pmus[i]))
				continue;
			events += !strncmp(f->path, "events/", 7);
			formats += !strncmp(f->path, "format/", 7);
			snprintf(path, sizeof(path), PMU_DIR "%s/%s", pmus[i], f->path);
			n = read_bytes(path, text, sizeof(text));
			size = f->size ? f->size : strlen(f->text);
			EXPECT_EQ((ssize_t)size, n) TH_LOG("%s: %zd bytes", path, n);
			if (n < 0)
				continue;
			/* The text, then NULs. */
			EXPECT_STREQ(f->text, text) TH_LOG("%s", path);
			while (--n >= (ssize_t)strlen(f->text))
				EXPECT_EQ(0, text[n]) TH_LOG("%s: byte %zd", path, n);
		}
		snprintf(path, sizeof(path), PMU_DIR "%s/events", pmus[i]);
		EXPECT_EQ(events, count_files(path)) TH_LOG("%s", path);
		snprintf(path, sizeof(path), PMU_DIR "%s/format", pmus[i]);
		EXPECT_EQ(formats, count_files(path)) TH_LOG("%s", path);
	}
	/* Each CPU in one PMU's cpus. */
	EXPECT_EQ(0, first_cpu("cpu_core"));
	EXPECT_EQ((online_cpus() + 1) / 2, first_cpu("cpu_atom"));
}

/*
 * An event bound to a CPU of the other core type is not the PMU's
 * (ENOENT); a generic event without a PMU type goes to the CPU's own;
 * a group holds one core type's events only.
 */
TEST(events_stay_on_their_core_type)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};
	int core_cpu = first_cpu("cpu_core"), atom_cpu = first_cpu("cpu_atom");
	int core = pmu_type("cpu_core"), atom = pmu_type("cpu_atom");
	int fd, sib;
	uint64_t count;
	const char *why = no_per_type_pmus();

	if (why)
		SKIP(return, "%s", why);
	ASSERT_LE(0, core_cpu);
	ASSERT_LT(0, atom_cpu);
	/* Raw events of one type on the other type's CPU. */
	attr.type = atom;
	attr.config = 0x00c0;
	EXPECT_EQ(-1, sys_perf_event_open(&attr, -1, core_cpu, -1, 0));
	EXPECT_EQ(ENOENT, errno);
	attr.type = core;
	EXPECT_EQ(-1, sys_perf_event_open(&attr, -1, atom_cpu, -1, 0));
	EXPECT_EQ(ENOENT, errno);
	/* A hardware event naming cpu_core, on an E-core. */
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_INSTRUCTIONS | (uint64_t)core << PERF_PMU_TYPE_SHIFT;
	EXPECT_EQ(-1, sys_perf_event_open(&attr, -1, atom_cpu, -1, 0));
	EXPECT_EQ(ENOENT, errno);
	/* Without a type it is the E-core's, and counts this loop there. */
	attr.config = PERF_COUNT_HW_INSTRUCTIONS;
	ASSERT_EQ(0, pin(atom_cpu));
	fd = sys_perf_event_open(&attr, -1, atom_cpu, -1, 0);
	ASSERT_LE(0, fd) TH_LOG("instructions on CPU %d: %s", atom_cpu, strerror(errno));
	count = count_spin(fd, 1000000);
	EXPECT_GE(count, 2000000);
	close(fd);
	/* A group of both types: the second is refused. */
	attr.type = core;
	attr.config = 0x00c0;
	attr.disabled = 1;
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_LE(0, fd);
	attr.type = atom;
	attr.disabled = 0;
	sib = sys_perf_event_open(&attr, 0, -1, fd, 0);
	EXPECT_EQ(-1, sib);
	EXPECT_EQ(EINVAL, errno);
	if (sib >= 0)
		close(sib);
	close(fd);
}

/*
 * Each type's own counter rules, seen in group validation: how many
 * events of a config one group of the type holds.
 */
struct group_case {
	const char *pmu;
	uint64_t config;
	int fit;
};

static const struct group_case hybrid_groups[] = {
	{ "cpu_core", 0x00c4, 8 },	/* BR_INST_RETIRED: any counter */
	{ "cpu_core", 0x01ce, 1 },	/* AMX_OPS_RETIRED: counter 0 */
	{ "cpu_core", 0x0148, 4 },	/* below event 0x90: counters 0-3 */
	{ "cpu_core", 0x013c, 9 },	/* REF_TSC_P: any, fixed 2 too */
	{ "cpu_core", 0x0300, 1 },	/* reference cycles: fixed 2 */
	{ "cpu_atom", 0x00c4, 6 },
	{ "cpu_atom", 0x01ce, 6 },	/* no rule on Gracemont */
	{ "cpu_atom", 0x0148, 6 },
	{ "cpu_atom", 0x013c, 7 },
	{ "cpu_atom", 0x0300, 1 },
};

TEST(counter_rules_per_core_type)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.exclude_hv = 1,
	};
	const struct group_case *g;
	int err;
	const char *why = no_per_type_pmus();

	if (why)
		SKIP(return, "%s", why);
	for (g = hybrid_groups; g < hybrid_groups + ARRAY_SIZE(hybrid_groups); g++) {
		attr.type = pmu_type(g->pmu);
		attr.config = g->config;
		EXPECT_EQ(g->fit, group_fit(&attr, g->fit, &err))
			TH_LOG("%s %#llx: %s", g->pmu, (unsigned long long)g->config,
			       strerror(err));
		EXPECT_EQ(EINVAL, err);
	}
}

/* Cache events with the PMU's type in the config: each type's table. */
struct cache_case {
	const char *pmu;
	unsigned int cache, op, result;
	int err;
};

static const struct cache_case hybrid_cache[] = {
	{ "cpu_core", PERF_COUNT_HW_CACHE_L1D, 0, 1, 0 },	/* a miss event */
	{ "cpu_atom", PERF_COUNT_HW_CACHE_L1D, 0, 1, ENOENT },	/* none */
	{ "cpu_core", PERF_COUNT_HW_CACHE_L1I, 0, 0, ENOENT },
	{ "cpu_atom", PERF_COUNT_HW_CACHE_L1I, 0, 0, 0 },	/* ICACHE.ACCESSES */
	{ "cpu_core", PERF_COUNT_HW_CACHE_ITLB, 0, 0, EINVAL },
	{ "cpu_atom", PERF_COUNT_HW_CACHE_ITLB, 0, 0, EINVAL },
	{ "cpu_atom", PERF_COUNT_HW_CACHE_ITLB, 0, 1, 0 },
	{ "cpu_core", PERF_COUNT_HW_CACHE_BPU, 0, 0, 0 },
	{ "cpu_atom", PERF_COUNT_HW_CACHE_BPU, 0, 1, 0 },
	/* Offcore response events on both; NODE on the P-cores only. */
	{ "cpu_core", PERF_COUNT_HW_CACHE_LL, 0, 0, 0 },
	{ "cpu_atom", PERF_COUNT_HW_CACHE_LL, 0, 1, 0 },
	{ "cpu_core", PERF_COUNT_HW_CACHE_NODE, 0, 0, 0 },
	{ "cpu_atom", PERF_COUNT_HW_CACHE_NODE, 0, 0, ENOENT },
};

TEST(cache_events_per_core_type)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_HW_CACHE,
		.exclude_hv = 1,
	};
	const struct cache_case *c;
	int fd;
	const char *why = no_per_type_pmus();

	if (why)
		SKIP(return, "%s", why);
	for (c = hybrid_cache; c < hybrid_cache + ARRAY_SIZE(hybrid_cache); c++) {
		attr.config = c->cache | c->op << 8 | c->result << 16 |
			      (uint64_t)pmu_type(c->pmu) << PERF_PMU_TYPE_SHIFT;
		fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
		if (c->err) {
			EXPECT_EQ(-1, fd) TH_LOG("%s cache %u/%u/%u opens", c->pmu,
						 c->cache, c->op, c->result);
			EXPECT_EQ(c->err, errno) TH_LOG("%s cache %u/%u/%u: %s", c->pmu,
							c->cache, c->op, c->result,
							strerror(errno));
		} else {
			EXPECT_LE(0, fd) TH_LOG("%s cache %u/%u/%u: %s", c->pmu,
						c->cache, c->op, c->result, strerror(errno));
		}
		if (fd >= 0)
			close(fd);
	}
}

/*
 * Topdown is the P-cores': there a metric needs a slots leader, and the
 * group counts the loop's slots; on an E-core the same codes are
 * ordinary events.
 */
TEST(topdown_on_the_p_cores)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.disabled = 1,
	};
	int core = pmu_type("cpu_core"), atom = pmu_type("cpu_atom");
	int leader, metric;
	uint64_t slots;
	const char *why = no_per_type_pmus();

	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, pin(first_cpu("cpu_core")));
	attr.type = core;
	attr.config = 0x8000;		/* topdown-retiring, alone */
	EXPECT_EQ(-1, sys_perf_event_open(&attr, 0, -1, -1, 0));
	EXPECT_EQ(EINVAL, errno);
	attr.config = 0x0400;		/* slots */
	leader = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_LE(0, leader) TH_LOG("cpu_core/slots/: %s", strerror(errno));
	attr.config = 0x8000;
	attr.disabled = 0;
	metric = sys_perf_event_open(&attr, 0, -1, leader, 0);
	ASSERT_LE(0, metric) TH_LOG("cpu_core/topdown-retiring/: %s", strerror(errno));
	slots = count_spin(leader, 1000000);
	/* Six slots a cycle, a cycle an instruction (the emulated core). */
	EXPECT_GE(slots, 6 * 2000000ULL);
	EXPECT_LT(slots, 6 * 2001000ULL);
	close(metric);
	close(leader);

	attr.type = atom;
	attr.config = 0x8000;
	attr.disabled = 1;
	metric = sys_perf_event_open(&attr, 0, -1, -1, 0);
	EXPECT_LE(0, metric) TH_LOG("cpu_atom, config 0x8000: %s", strerror(errno));
	if (metric >= 0)
		close(metric);
}

/*
 * Each type's offcore response events: OCR 0x2a and 0x2b on the
 * P-cores, 0xb7 with unit masks 1 and 2 on the E-cores (hw_util.h's
 * offcore_wrong()).
 */
TEST(offcore_events_per_core_type)
{
	static const struct {
		const char *pmu;
		unsigned int gp;
		uint64_t code, alt;
	} t[] = {
		{ "cpu_core", 8, 0x012a, 0x012b },
		{ "cpu_atom", 6, 0x01b7, 0x02b7 },
	};
	char buf[160];
	const char *why = no_per_type_pmus();
	int i, cpu;

	if (why)
		SKIP(return, "%s", why);
	if (access("/dev/cpu/0/msr", R_OK))
		SKIP(return, "no /dev/cpu/0/msr (CONFIG_X86_MSR) to see the registers");
	for (i = 0; i < 2; i++) {
		cpu = first_cpu(t[i].pmu);
		ASSERT_EQ(0, pin(cpu));
		why = offcore_wrong(pmu_type(t[i].pmu), cpu, t[i].gp, t[i].code,
				    t[i].alt, buf, sizeof(buf));
		EXPECT_EQ(NULL, why) TH_LOG("%s: %s", t[i].pmu, why);
	}
}

/* Write CPU @cpu's online file; 0 or -1. */
static int set_online(int cpu, int on)
{
	char path[64];
	int fd, ok;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -1;
	ok = write(fd, on ? "1" : "0", 1) == 1;
	close(fd);
	return ok ? 0 : -1;
}

/*
 * A CPU going offline leaves its type's cpus, and comes back to it.  An
 * event bound to it meanwhile is refused with ENOENT, not the ENODEV of
 * an offline CPU: the type's PMU no longer has the CPU, and no other
 * takes the event (so upstream).
 */
TEST(cpus_follow_hotplug)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.config = 0x00c0,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};
	int atom_cpu = first_cpu("cpu_atom"), fd;
	char path[128], text[64];
	const char *why = no_per_type_pmus();

	if (why)
		SKIP(return, "%s", why);
	ASSERT_LT(0, atom_cpu);
	if (set_online(atom_cpu, 0))
		SKIP(return, "CPU %d cannot go offline: %s", atom_cpu, strerror(errno));
	snprintf(path, sizeof(path), PMU_DIR "cpu_atom/cpus");
	EXPECT_LE(0, read_bytes(path, text, sizeof(text)));
	EXPECT_NE(atom_cpu, first_cpu("cpu_atom")) TH_LOG("cpus: %s", text);
	attr.type = pmu_type("cpu_atom");
	fd = sys_perf_event_open(&attr, -1, atom_cpu, -1, 0);
	EXPECT_EQ(-1, fd);
	EXPECT_EQ(ENOENT, errno);
	ASSERT_EQ(0, set_online(atom_cpu, 1));
	EXPECT_EQ(atom_cpu, first_cpu("cpu_atom"));
	fd = sys_perf_event_open(&attr, -1, atom_cpu, -1, 0);
	EXPECT_LE(0, fd) TH_LOG("cpu_atom on CPU %d: %s", atom_cpu, strerror(errno));
	if (fd >= 0)
		close(fd);
}

/*
 * Until a kernel has a PMU per core type it registers no "cpu" PMU on a
 * hybrid part: sized from the boot CPU's type it would be wrong on the
 * other.  Hardware and raw events are then ENOENT, as without a PMU.
 */
TEST(refused_cleanly_without_per_type_pmus)
{
	const char *why = hybrid_unavailable();
	char buf[128];

	if (why)
		SKIP(return, "%s", why);
	if (!access(PMU_DIR "cpu_core", F_OK))
		SKIP(return, "this kernel drives the hybrid part: nothing to refuse");
	ASSERT_NE(0, access(PMU_DIR "cpu", F_OK))
		TH_LOG("a \"cpu\" PMU on a hybrid part without PMUs per core type");
	EXPECT_EQ(NULL, hw_events_not_enoent(buf, sizeof(buf)))
		TH_LOG("%s", buf);
}

TEST_HARNESS_MAIN
