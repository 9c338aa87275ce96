// SPDX-License-Identifier: GPL-2.0
/*
 * What KVM makes of the x86 PMU driver's capabilities
 * (perf_get_x86_pmu_capability()), seen through KVM's own interface: the
 * virtual PMU is on exactly when the host has a PMU driver, and on AMD
 * the PMU features KVM offers guests (KVM_GET_SUPPORTED_CPUID) are those
 * of the host's counters: PerfCtrExtCore with six or more counters, and
 * PerfMonV2 with its counter count when the driver reports version 2.
 *
 * Under QEMU's TCG only the emulated AMD CPUs have SVM, so /dev/kvm
 * exists there (and with PMU=none, whose CPU is QEMU's "max"); elsewhere
 * the tests skip.  PERFTEST_PMU names the emulated PMU, as for hw.c.
 */
#include <cpuid.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include "../kselftest_harness.h"
#include "perf_util.h"

/*
 * The few pieces of KVM's ABI used here (<linux/kvm.h>, <asm/kvm.h>),
 * spelled out: the headers a test build finds are not all of one kernel.
 */
#define KVMIO				0xAE
#define KVM_API_VERSION			12
#define KVM_GET_API_VERSION		_IO(KVMIO, 0x00)
#define KVM_CHECK_EXTENSION		_IO(KVMIO, 0x03)
#define KVM_CAP_PMU_CAPABILITY		212
#define KVM_PMU_CAP_DISABLE		(1 << 0)

struct cpuid_entry {		/* struct kvm_cpuid_entry2 */
	uint32_t function, index, flags;
	uint32_t eax, ebx, ecx, edx;
	uint32_t padding[3];
};

struct cpuid_head {		/* struct kvm_cpuid2 */
	uint32_t nent, padding;
};

#define KVM_GET_SUPPORTED_CPUID		_IOWR(KVMIO, 0x05, struct cpuid_head)

#define MAX_ENTRIES	256

struct supported {
	struct cpuid_head head;
	struct cpuid_entry e[MAX_ENTRIES];
};

static const char *pmu_kind(void)
{
	const char *s = getenv("PERFTEST_PMU");

	return s && *s ? s : "none";
}

/* KVM's entry for @leaf (subleaf 0), or NULL when it lists none. */
static struct cpuid_entry *entry(struct supported *s, uint32_t leaf)
{
	uint32_t i;

	for (i = 0; i < s->head.nent; i++)
		if (s->e[i].function == leaf && s->e[i].index == 0)
			return &s->e[i];
	return NULL;
}

static void host_cpuid(uint32_t leaf, uint32_t r[4])
{
	__cpuid_count(leaf, 0, r[0], r[1], r[2], r[3]);
}

FIXTURE(kvm) {
	int fd;
	struct supported s;
};

FIXTURE_SETUP(kvm)
{
	self->fd = open("/dev/kvm", O_RDWR);
	if (self->fd < 0)
		SKIP(return, "no /dev/kvm: no SVM or VMX in this guest");
	ASSERT_EQ(ioctl(self->fd, KVM_GET_API_VERSION, 0), KVM_API_VERSION);
	self->s.head.nent = MAX_ENTRIES;
	ASSERT_EQ(ioctl(self->fd, KVM_GET_SUPPORTED_CPUID, &self->s), 0);
}

FIXTURE_TEARDOWN(kvm)
{
	if (self->fd >= 0)
		close(self->fd);
}

/* The virtual PMU is on with a PMU driver, off without one. */
TEST_F(kvm, virtual_pmu_follows_the_driver)
{
	int caps = ioctl(self->fd, KVM_CHECK_EXTENSION, KVM_CAP_PMU_CAPABILITY);
	int driver = !access("/sys/bus/event_source/devices/cpu/type", F_OK);

	ASSERT_GE(caps, 0);
	if (strcmp(pmu_kind(), "none"))
		ASSERT_TRUE(driver) TH_LOG("PMU=%s but no cpu PMU", pmu_kind());
	EXPECT_EQ(!!(caps & KVM_PMU_CAP_DISABLE), driver)
		TH_LOG("KVM_CAP_PMU_CAPABILITY %#x, cpu PMU %s", caps,
		       driver ? "there" : "absent");
}

/*
 * AMD: PerfCtrExtCore is offered when the host has it (six counters or
 * more), and PerfMonV2 with the host's number of counters.
 */
TEST_F(kvm, amd_pmu_features_are_the_hosts)
{
	struct cpuid_entry *ext, *v2;
	int driver = !access("/sys/bus/event_source/devices/cpu/type", F_OK);
	uint32_t h[4], hv2[4] = { 0 };
	int core, host_v2;

	if (strncmp(pmu_kind(), "amd", 3))
		SKIP(return, "an emulated AMD PMU only (PERFTEST_PMU=%s)", pmu_kind());
	ASSERT_TRUE(driver);
	host_cpuid(0x80000000, h);
	if (h[0] >= 0x80000022)
		host_cpuid(0x80000022, hv2);
	host_cpuid(0x80000001, h);
	core = !!(h[2] & (1u << 23));
	host_v2 = hv2[0] & 1;

	ext = entry(&self->s, 0x80000001);
	ASSERT_NE(ext, NULL);
	EXPECT_EQ(!!(ext->ecx & (1u << 23)), core);

	v2 = entry(&self->s, 0x80000022);
	if (!host_v2) {
		EXPECT_TRUE(!v2 || !(v2->eax & 1));
		return;
	}
	ASSERT_NE(v2, NULL);
	EXPECT_EQ(v2->eax & 1, 1);
	EXPECT_EQ(v2->ebx & 0xf, hv2[1] & 0xf);
}

TEST_HARNESS_MAIN
