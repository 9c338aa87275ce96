// SPDX-License-Identifier: GPL-2.0
/*
 * What KVM makes of the x86 PMU driver's capabilities
 * (perf_get_x86_pmu_capability()), seen through KVM's own interface: the
 * virtual PMU is on exactly when the host has a PMU driver, and on AMD
 * the PMU features KVM offers guests (KVM_GET_SUPPORTED_CPUID) are those
 * of the host's counters: PerfCtrExtCore with six or more counters, and
 * PerfMonV2 with its counter count when the driver reports version 2.
 *
 * And a guest's own counter counts exactly what the guest retires.
 *
 * Under QEMU's TCG only the emulated AMD CPUs have SVM, so /dev/kvm
 * exists there (and with PMU=none, whose CPU is QEMU's "max"); elsewhere
 * the tests skip.  PERFTEST_PMU names the emulated PMU, as for hw.c.
 */
#include <cpuid.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
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

/* What running a guest takes (struct kvm_run up to exit_reason). */
#define KVM_CREATE_VM			_IO(KVMIO, 0x01)
#define KVM_GET_VCPU_MMAP_SIZE		_IO(KVMIO, 0x04)
#define KVM_CREATE_VCPU			_IO(KVMIO, 0x41)
#define KVM_RUN				_IO(KVMIO, 0x80)
#define KVM_EXIT_HLT			5

struct memory_region {		/* struct kvm_userspace_memory_region */
	uint32_t slot, flags;
	uint64_t guest_phys_addr, memory_size, userspace_addr;
};

#define KVM_SET_USER_MEMORY_REGION	_IOW(KVMIO, 0x46, struct memory_region)

struct regs {			/* struct kvm_regs */
	uint64_t rax, rbx, rcx, rdx, rsi, rdi, rsp, rbp;
	uint64_t r8, r9, r10, r11, r12, r13, r14, r15;
	uint64_t rip, rflags;
};

#define KVM_GET_REGS			_IOR(KVMIO, 0x81, struct regs)

struct run_head {		/* struct kvm_run */
	uint8_t request_interrupt_window, immediate_exit, padding[6];
	uint32_t exit_reason;
};

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

/*
 * A guest in real mode, started at the reset vector (CS base 0xffff0000,
 * IP 0xfff0) of a 64 KiB slot: it programs legacy counter 0 (PERF_CTL0)
 * for retired instructions in every mode, runs the loop "dec ebx; jnz"
 * @n times, stops the counter, reads it (PERF_CTR0) and halts.
 */
static const uint8_t guest_code[] = {
	0x66, 0xb9, 0x00, 0x00, 0x01, 0xc0,	/* mov ecx, 0xc0010000 */
	0x66, 0xb8, 0xc0, 0x00, 0x43, 0x00,	/* mov eax, 0x4300c0: En, OS, USR */
	0x66, 0x31, 0xd2,			/* xor edx, edx */
	0x0f, 0x30,				/* wrmsr */
	0x66, 0xbb, 0, 0, 0, 0,			/* mov ebx, n (bytes 19-22) */
	0x66, 0x4b,				/* 1: dec ebx */
	0x75, 0xfc,				/* jnz 1b */
	0x66, 0x31, 0xc0,			/* xor eax, eax */
	0x0f, 0x30,				/* wrmsr: counter 0 off */
	0x66, 0xb9, 0x04, 0x00, 0x01, 0xc0,	/* mov ecx, 0xc0010004 */
	0x0f, 0x32,				/* rdmsr */
	0xf4,					/* hlt */
};

#define GUEST_N_AT	19
#define GUEST_SLOT	0xffff0000ULL
#define GUEST_SIZE	0x10000

/* Run the guest with loop count @n: its counter 0, or -1 on failure. */
static int64_t guest_count(int kvm, uint32_t n)
{
	int vm = -1, vcpu = -1;
	int64_t ret = -1;
	struct memory_region mr = {
		.guest_phys_addr = GUEST_SLOT,
		.memory_size = GUEST_SIZE,
	};
	struct run_head *run = MAP_FAILED;
	struct regs r;
	uint8_t *mem;
	long size;

	mem = mmap(NULL, GUEST_SIZE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return -1;
	memcpy(mem, guest_code, sizeof(guest_code));
	memcpy(mem + GUEST_N_AT, &n, sizeof(n));
	/* At the reset vector: jmp 0 (IP wraps at 64 KiB). */
	mem[0xfff0] = 0xe9;
	mem[0xfff1] = 0x0d;
	mem[0xfff2] = 0x00;
	mr.userspace_addr = (uintptr_t)mem;

	vm = ioctl(kvm, KVM_CREATE_VM, 0);
	if (vm < 0 || ioctl(vm, KVM_SET_USER_MEMORY_REGION, &mr))
		goto out;
	vcpu = ioctl(vm, KVM_CREATE_VCPU, 0);
	size = ioctl(kvm, KVM_GET_VCPU_MMAP_SIZE, 0);
	if (vcpu < 0 || size < (long)sizeof(*run))
		goto out;
	run = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, vcpu, 0);
	if (run == MAP_FAILED)
		goto out;
	if (ioctl(vcpu, KVM_RUN, 0) || run->exit_reason != KVM_EXIT_HLT ||
	    ioctl(vcpu, KVM_GET_REGS, &r))
		goto out;
	ret = (int64_t)((r.rdx & 0xffffffff) << 32 | (r.rax & 0xffffffff));
out:
	if (run != MAP_FAILED)
		munmap(run, size);
	if (vcpu >= 0)
		close(vcpu);
	if (vm >= 0)
		close(vm);
	munmap(mem, GUEST_SIZE);
	return ret;
}

/*
 * A guest's own counter counts what the guest retires, exactly: KVM
 * counts it with a kernel counter that excludes the host (on AMD, the
 * GuestOnly bit, which the emulated PMU honours in SVM guest mode).  A
 * loop of 2n instructions more gives 2n more, and the few instructions
 * around the loop are all the rest: none of the host's, which run
 * between the guest's exits.
 */
TEST_F(kvm, guest_counter_counts_the_guest)
{
	int caps = ioctl(self->fd, KVM_CHECK_EXTENSION, KVM_CAP_PMU_CAPABILITY);
	int64_t a, b;

	if (strncmp(pmu_kind(), "amd", 3))
		SKIP(return, "an emulated AMD PMU only (PERFTEST_PMU=%s)", pmu_kind());
	ASSERT_TRUE(caps & KVM_PMU_CAP_DISABLE) TH_LOG("no virtual PMU");
	a = guest_count(self->fd, 1000);
	b = guest_count(self->fd, 101000);
	ASSERT_GE(a, 0);
	ASSERT_GE(b, 0);
	TH_LOG("1000 loops: %lld, 101000 loops: %lld", (long long)a, (long long)b);
	EXPECT_EQ(b - a, 200000);
	EXPECT_GE(a, 2000);
	EXPECT_LE(a, 2000 + 16);
}

TEST_HARNESS_MAIN
