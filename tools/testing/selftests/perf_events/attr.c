// SPDX-License-Identifier: GPL-2.0
/*
 * perf_event_open(2) argument validation: attr.size versions and the size
 * write-back, reserved and unknown bits, flag combinations that are refused,
 * event type and config lookup, pid/cpu/group_fd/flags checks, group rules,
 * clock ids, and the order in which these checks decide the errno.
 *
 * The expected values are those of the stock 6.12 kernel built without a
 * hardware PMU driver (QEMU TCG) and CONFIG_BPF_SYSCALL; the cgroup cases
 * follow whether it has CONFIG_CGROUP_PERF.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdbool.h>
#include <asm/perf_regs.h>

#include "../kselftest_harness.h"
#include "perf_util.h"

/* The ABI limits of 6.12: first unused sample_type and read_format bits. */
#define SAMPLE_TYPE_FIRST_UNUSED	25
#define READ_FORMAT_FIRST_UNUSED	5
#define ATTR_SIZE_NOW			136	/* PERF_ATTR_SIZE_VER8 */

/* Byte offset of the flag bit-field word inside perf_event_attr. */
#define ATTR_FLAGS_OFFSET		40

/*
 * Open @attr; close the event again and return 0 on success, otherwise
 * return errno.
 */
static int open_err(void *attr, pid_t pid, int cpu, int group_fd,
		    unsigned long flags)
{
	int fd = sys_perf_event_open(attr, pid, cpu, group_fd, flags);

	if (fd >= 0) {
		close(fd);
		return 0;
	}
	return errno;
}

/* Errno of opening @attr on the calling task, any CPU, no group. */
static int self_err(struct perf_event_attr *attr)
{
	return open_err(attr, 0, -1, -1, 0);
}

static void dummy_attr(struct perf_event_attr *attr)
{
	sw_attr(attr, PERF_COUNT_SW_DUMMY);
}

/* Set bit @bit of the flag bit-field word (disabled, inherit, ...). */
static void set_flag_bit(struct perf_event_attr *attr, int bit)
{
	uint64_t w;

	memcpy(&w, (char *)attr + ATTR_FLAGS_OFFSET, sizeof(w));
	w |= 1ULL << bit;
	memcpy((char *)attr + ATTR_FLAGS_OFFSET, &w, sizeof(w));
}

/*
 * Return a pointer to @size bytes that end exactly where a readable page
 * ends; the next page is PROT_NONE, so any read past @size faults.
 */
static void *page_edge(size_t size)
{
	long ps = page_size();
	char *p = mmap(NULL, 2 * ps, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	if (mprotect(p + ps, ps, PROT_NONE))
		return NULL;
	memset(p, 0, ps);
	return p + ps - size;
}

/*
 * A dummy-event attr in the last @room bytes of a readable page (see
 * page_edge()) with attr.size @size; NULL on failure.
 */
static struct perf_event_attr *edge_attr(size_t room, uint32_t size)
{
	struct perf_event_attr *attr = page_edge(room);

	if (attr) {
		attr->type = PERF_TYPE_SOFTWARE;
		attr->config = PERF_COUNT_SW_DUMMY;
		attr->size = size;
	}
	return attr;
}

/* A child that blocks until its pipe is closed; returns its pid. */
static pid_t spawn_waiter(int *wfd)
{
	int p[2];

	if (pipe(p))
		return -1;
	*wfd = p[1];
	return fork_waiter(p);
}

/* A pid that is not in use: a child that has been reaped. */
static pid_t dead_pid(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	return pid;
}

/* ---- attr.size ---------------------------------------------------------- */

/* size 0 means PERF_ATTR_SIZE_VER0: only 64 bytes are read, size untouched. */
TEST(size_zero_is_ver0)
{
	struct perf_event_attr *attr = edge_attr(PERF_ATTR_SIZE_VER0, 0);

	ASSERT_NE(NULL, attr);
	EXPECT_EQ(0, self_err(attr));
	EXPECT_EQ(0, attr->size);
}

/* Every published size is accepted and nothing past it is read. */
TEST(size_each_version)
{
	static const unsigned int sizes[] = {
		PERF_ATTR_SIZE_VER0, PERF_ATTR_SIZE_VER1, PERF_ATTR_SIZE_VER2,
		PERF_ATTR_SIZE_VER3, PERF_ATTR_SIZE_VER4, PERF_ATTR_SIZE_VER5,
		PERF_ATTR_SIZE_VER6, PERF_ATTR_SIZE_VER7, PERF_ATTR_SIZE_VER8,
	};
	unsigned int i;

	ASSERT_EQ(ATTR_SIZE_NOW, sizeof(struct perf_event_attr));
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		struct perf_event_attr *attr = edge_attr(sizes[i], sizes[i]);

		ASSERT_NE(NULL, attr);
		EXPECT_EQ(0, self_err(attr)) TH_LOG("size %u", sizes[i]);
		EXPECT_EQ(sizes[i], attr->size);
	}
}

/* Sizes between the versions are fine too: the struct is zero-extended. */
TEST(size_between_versions)
{
	static const unsigned int sizes[] = { 65, 71, 100, 135 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		struct perf_event_attr *attr = edge_attr(sizes[i], sizes[i]);

		ASSERT_NE(NULL, attr);
		EXPECT_EQ(0, self_err(attr)) TH_LOG("size %u", sizes[i]);
	}
}

/* Below VER0: E2BIG, and the kernel's own size is written back. */
TEST(size_too_small)
{
	static const unsigned int sizes[] = { 1, 8, 32, 63 };
	struct perf_event_attr attr;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		dummy_attr(&attr);
		attr.size = sizes[i];
		EXPECT_EQ(E2BIG, self_err(&attr)) TH_LOG("size %u", sizes[i]);
		EXPECT_EQ(ATTR_SIZE_NOW, attr.size);
	}
}

/* More than a page: E2BIG with write-back, before anything else is read. */
TEST(size_above_page)
{
	struct perf_event_attr attr;
	unsigned int sizes[] = { page_size() + 1, 0x10000, UINT_MAX };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		dummy_attr(&attr);
		attr.size = sizes[i];
		EXPECT_EQ(E2BIG, self_err(&attr)) TH_LOG("size %u", sizes[i]);
		EXPECT_EQ(ATTR_SIZE_NOW, attr.size);
	}
}

/* Up to a whole page is accepted when everything past our struct is 0. */
TEST(size_larger_zero_tail)
{
	unsigned int sizes[] = { ATTR_SIZE_NOW + 1, 144, 512, page_size() };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		struct perf_event_attr *attr = edge_attr(sizes[i], sizes[i]);

		ASSERT_NE(NULL, attr);
		EXPECT_EQ(0, self_err(attr)) TH_LOG("size %u", sizes[i]);
		EXPECT_EQ(sizes[i], attr->size);
	}
}

/* A non-zero byte past our struct: E2BIG, size written back. */
TEST(size_nonzero_tail)
{
	unsigned int ps = page_size();
	unsigned int where[][2] = {	/* size, offset of the non-zero byte */
		{ ATTR_SIZE_NOW + 1, ATTR_SIZE_NOW },
		{ 144, 143 },
		{ ps, ATTR_SIZE_NOW + 7 },
		{ ps, ps - 1 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(where); i++) {
		struct perf_event_attr *attr = edge_attr(where[i][0],
							 where[i][0]);
		char *buf = (char *)attr;

		ASSERT_NE(NULL, buf);
		buf[where[i][1]] = 0x80;
		EXPECT_EQ(E2BIG, self_err(attr))
			TH_LOG("size %u byte %u", where[i][0], where[i][1]);
		EXPECT_EQ(ATTR_SIZE_NOW, attr->size);
	}
}

/* A tail that runs into an unreadable page gives EFAULT, not E2BIG. */
TEST(size_tail_unreadable)
{
	struct perf_event_attr *attr = edge_attr(200, 400);

	ASSERT_NE(NULL, attr);
	EXPECT_EQ(EFAULT, self_err(attr));
	EXPECT_EQ(400, attr->size);

	/* The struct itself cut short by the unreadable page. */
	attr = edge_attr(100, ATTR_SIZE_NOW);
	ASSERT_NE(NULL, attr);
	EXPECT_EQ(EFAULT, self_err(attr));
}

/* The size write-back is best effort: a read-only attr still gets E2BIG. */
TEST(size_writeback_readonly)
{
	long ps = page_size();
	struct perf_event_attr *attr;

	attr = mmap(NULL, ps, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, attr);
	dummy_attr(attr);
	attr->size = 8;
	ASSERT_EQ(0, mprotect(attr, ps, PROT_READ));
	EXPECT_EQ(E2BIG, self_err(attr));
	EXPECT_EQ(8, attr->size);
	munmap(attr, ps);
}

TEST(bad_attr_pointer)
{
	long ps = page_size();
	void *none = mmap(NULL, ps, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			  -1, 0);

	ASSERT_NE(MAP_FAILED, none);
	EXPECT_EQ(EFAULT, open_err(NULL, 0, -1, -1, 0));
	EXPECT_EQ(EFAULT, open_err(none, 0, -1, -1, 0));
	EXPECT_EQ(EFAULT, open_err((void *)-4096L, 0, -1, -1, 0));
	EXPECT_EQ(EFAULT, open_err((void *)0xffffffff81000000UL, 0, -1, -1, 0));
	munmap(none, ps);
}

/* ---- reserved and unknown bits -------------------------------------------- */

/* Bits 38..63 of the flag word are __reserved_1. */
TEST(reserved_1_bits)
{
	struct perf_event_attr attr;
	int bit;

	for (bit = 38; bit < 64; bit++) {
		dummy_attr(&attr);
		set_flag_bit(&attr, bit);
		EXPECT_EQ(EINVAL, self_err(&attr)) TH_LOG("bit %d", bit);
	}
	/* The last defined flag, sigtrap (bit 37), is not reserved. */
	dummy_attr(&attr);
	attr.remove_on_exec = 1;
	set_flag_bit(&attr, 37);
	EXPECT_EQ(0, self_err(&attr));
}

TEST(reserved_2)
{
	struct perf_event_attr attr;

	dummy_attr(&attr);
	attr.__reserved_2 = 1;
	EXPECT_EQ(EINVAL, self_err(&attr));
	attr.__reserved_2 = 0x8000;
	EXPECT_EQ(EINVAL, self_err(&attr));
}

/* aux_action bits above aux_resume are __reserved_3. */
TEST(reserved_3_bits)
{
	struct perf_event_attr attr;
	int bit;

	for (bit = 3; bit < 32; bit++) {
		dummy_attr(&attr);
		attr.aux_action = 1U << bit;
		EXPECT_EQ(EINVAL, self_err(&attr)) TH_LOG("bit %d", bit);
	}
}

/*
 * The AUX controls on a PMU without an AUX area: start_paused and
 * aux_output need a capability the software PMU lacks (EOPNOTSUPP);
 * pause/resume/sample_size need an AUX group leader (EINVAL), and
 * pause together with resume is refused outright (EINVAL).
 */
TEST(aux_controls_on_software)
{
	struct perf_event_attr attr;

	dummy_attr(&attr);
	attr.aux_start_paused = 1;
	EXPECT_EQ(EOPNOTSUPP, self_err(&attr));

	dummy_attr(&attr);
	attr.aux_output = 1;
	EXPECT_EQ(EOPNOTSUPP, self_err(&attr));

	dummy_attr(&attr);
	attr.aux_output = 1;
	attr.aux_pause = 1;
	EXPECT_EQ(EOPNOTSUPP, self_err(&attr));

	dummy_attr(&attr);
	attr.aux_pause = 1;
	EXPECT_EQ(EINVAL, self_err(&attr));

	dummy_attr(&attr);
	attr.aux_resume = 1;
	EXPECT_EQ(EINVAL, self_err(&attr));

	dummy_attr(&attr);
	attr.aux_pause = 1;
	attr.aux_resume = 1;
	EXPECT_EQ(EINVAL, self_err(&attr));

	dummy_attr(&attr);
	attr.aux_sample_size = 4096;
	EXPECT_EQ(EINVAL, self_err(&attr));

	/* aux_watermark alone means nothing without an AUX area. */
	dummy_attr(&attr);
	attr.aux_watermark = 4096;
	EXPECT_EQ(0, self_err(&attr));
}

TEST(sample_type_unknown_bits)
{
	struct perf_event_attr attr;
	int bit;

	ASSERT_EQ(1ULL << SAMPLE_TYPE_FIRST_UNUSED, PERF_SAMPLE_MAX);
	for (bit = SAMPLE_TYPE_FIRST_UNUSED; bit < 64; bit++) {
		dummy_attr(&attr);
		attr.sample_type = PERF_SAMPLE_IP | (1ULL << bit);
		EXPECT_EQ(EINVAL, self_err(&attr)) TH_LOG("bit %d", bit);
	}
}

TEST(read_format_bits)
{
	struct perf_event_attr attr;
	int bit;

	ASSERT_EQ(1ULL << READ_FORMAT_FIRST_UNUSED, PERF_FORMAT_MAX);
	for (bit = READ_FORMAT_FIRST_UNUSED; bit < 64; bit++) {
		dummy_attr(&attr);
		attr.read_format = 1ULL << bit;
		EXPECT_EQ(EINVAL, self_err(&attr)) TH_LOG("bit %d", bit);
	}
	/* All defined bits together are fine. */
	dummy_attr(&attr);
	attr.read_format = PERF_FORMAT_MAX - 1;
	EXPECT_EQ(0, self_err(&attr));
}

TEST(unknown_open_flags)
{
	struct perf_event_attr attr;
	int bit;

	for (bit = 4; bit < 64; bit++) {
		dummy_attr(&attr);
		EXPECT_EQ(EINVAL, open_err(&attr, 0, -1, -1, 1UL << bit))
			TH_LOG("bit %d", bit);
	}
	/* The flags are checked before the attr is even read. */
	EXPECT_EQ(EINVAL, open_err(NULL, 0, -1, -1, 1UL << 4));
}

/* ---- flag combinations ---------------------------------------------------- */

TEST(inherit_thread_needs_inherit)
{
	struct perf_event_attr attr;

	dummy_attr(&attr);
	attr.inherit_thread = 1;
	EXPECT_EQ(EINVAL, self_err(&attr));
	attr.inherit = 1;
	EXPECT_EQ(0, self_err(&attr));
}

TEST(remove_on_exec_and_enable_on_exec)
{
	struct perf_event_attr attr;

	dummy_attr(&attr);
	attr.remove_on_exec = 1;
	attr.enable_on_exec = 1;
	attr.disabled = 1;
	EXPECT_EQ(EINVAL, self_err(&attr));
	attr.enable_on_exec = 0;
	EXPECT_EQ(0, self_err(&attr));
	attr.remove_on_exec = 0;
	attr.enable_on_exec = 1;
	EXPECT_EQ(0, self_err(&attr));
}

TEST(sigtrap_rules)
{
	struct perf_event_attr attr;

	dummy_attr(&attr);
	attr.sigtrap = 1;
	EXPECT_EQ(EINVAL, self_err(&attr));
	attr.remove_on_exec = 1;
	EXPECT_EQ(0, self_err(&attr));
	/* sigtrap needs a task to signal: a CPU-wide event is refused. */
	EXPECT_EQ(EINVAL, open_err(&attr, -1, 0, -1, 0));
}

TEST(weight_and_weight_struct)
{
	struct perf_event_attr attr;

	dummy_attr(&attr);
	attr.sample_type = PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT;
	EXPECT_EQ(EINVAL, self_err(&attr));
	attr.sample_type = PERF_SAMPLE_WEIGHT;
	EXPECT_EQ(0, self_err(&attr));
	attr.sample_type = PERF_SAMPLE_WEIGHT_STRUCT;
	EXPECT_EQ(0, self_err(&attr));
}

TEST(sample_period_bit63)
{
	struct perf_event_attr attr;

	dummy_attr(&attr);
	attr.sample_period = 1ULL << 63;
	EXPECT_EQ(EINVAL, self_err(&attr));
	attr.sample_period = ~0ULL;
	EXPECT_EQ(EINVAL, self_err(&attr));
	attr.sample_period = (1ULL << 63) - 1;
	EXPECT_EQ(0, self_err(&attr));
}

TEST(sample_freq_limit)
{
	struct perf_event_attr attr;
	long max;

	ASSERT_EQ(0, read_sysctl("perf_event_max_sample_rate", &max));
	sw_attr(&attr, PERF_COUNT_SW_CPU_CLOCK);
	attr.freq = 1;
	attr.sample_freq = max + 1;
	EXPECT_EQ(EINVAL, self_err(&attr));
	attr.sample_freq = 1ULL << 63;
	EXPECT_EQ(EINVAL, self_err(&attr));
	attr.sample_freq = max;
	EXPECT_EQ(0, self_err(&attr));
	/* freq with a zero frequency is a plain counting event. */
	attr.sample_freq = 0;
	EXPECT_EQ(0, self_err(&attr));
}

/* The cgroup sample item needs CONFIG_CGROUP_PERF. */
TEST(sample_cgroup)
{
	struct perf_event_attr attr;

	dummy_attr(&attr);
	attr.sample_type = PERF_SAMPLE_CGROUP;
	EXPECT_EQ(have_perf_cgroup() ? 0 : EINVAL, self_err(&attr));
}

/* PERF_SAMPLE_READ on an inherited event needs PERF_SAMPLE_TID. */
TEST(inherit_sample_read)
{
	struct perf_event_attr attr;

	dummy_attr(&attr);
	attr.inherit = 1;
	attr.sample_period = 1000;
	attr.sample_type = PERF_SAMPLE_READ;
	EXPECT_EQ(EINVAL, self_err(&attr));
	attr.sample_type |= PERF_SAMPLE_TID;
	EXPECT_EQ(0, self_err(&attr));
	attr.inherit = 0;
	attr.sample_type = PERF_SAMPLE_READ;
	EXPECT_EQ(0, self_err(&attr));
}

/* sample_max_stack above the sysctl: EOVERFLOW, only with callchains. */
TEST(callchain_max_stack)
{
	struct perf_event_attr attr;
	long max;

	ASSERT_EQ(0, read_sysctl("perf_event_max_stack", &max));
	sw_attr(&attr, PERF_COUNT_SW_CPU_CLOCK);
	attr.sample_period = 100000;
	attr.sample_type = PERF_SAMPLE_CALLCHAIN;
	attr.sample_max_stack = max + 1;
	EXPECT_EQ(EOVERFLOW, self_err(&attr));
	attr.sample_max_stack = max;
	EXPECT_EQ(0, self_err(&attr));
	attr.sample_type = PERF_SAMPLE_IP;
	attr.sample_max_stack = 0xffff;
	EXPECT_EQ(0, self_err(&attr));
}

/* sample_stack_user must be 8-byte aligned and below USHRT_MAX. */
TEST(sample_stack_user_checks)
{
	struct perf_event_attr attr;

	dummy_attr(&attr);
	attr.sample_type = PERF_SAMPLE_STACK_USER;
	attr.sample_stack_user = 65535;
	EXPECT_EQ(EINVAL, self_err(&attr));
	attr.sample_stack_user = 65536;
	EXPECT_EQ(EINVAL, self_err(&attr));
	attr.sample_stack_user = 12;
	EXPECT_EQ(EINVAL, self_err(&attr));
	attr.sample_stack_user = 65528;
	EXPECT_EQ(0, self_err(&attr));
	attr.sample_stack_user = 0;
	EXPECT_EQ(0, self_err(&attr));
	/* Not checked at all without PERF_SAMPLE_STACK_USER. */
	attr.sample_type = 0;
	attr.sample_stack_user = 13;
	EXPECT_EQ(0, self_err(&attr));
}

/*
 * Register masks: empty, segment registers and the gap between R15 and
 * XMM0 are EINVAL; XMM registers pass the mask check but the software
 * PMU cannot sample them (EOPNOTSUPP) -- even when the mask is set
 * without the matching sample_type bit.
 */
TEST(sample_regs_checks)
{
	struct perf_event_attr attr;

	dummy_attr(&attr);
	attr.sample_type = PERF_SAMPLE_REGS_USER;
	attr.sample_regs_user = 0;
	EXPECT_EQ(EINVAL, self_err(&attr));
	attr.sample_regs_user = 1ULL << PERF_REG_X86_DS;
	EXPECT_EQ(EINVAL, self_err(&attr));
	attr.sample_regs_user = 1ULL << PERF_REG_X86_64_MAX;
	EXPECT_EQ(EINVAL, self_err(&attr));
	attr.sample_regs_user = 1ULL << 31;
	EXPECT_EQ(EINVAL, self_err(&attr));
	attr.sample_regs_user = (1ULL << PERF_REG_X86_IP) |
				(1ULL << PERF_REG_X86_R15);
	EXPECT_EQ(0, self_err(&attr));
	attr.sample_regs_user = 1ULL << PERF_REG_X86_XMM0;
	EXPECT_EQ(EOPNOTSUPP, self_err(&attr));

	dummy_attr(&attr);
	attr.sample_type = PERF_SAMPLE_REGS_INTR;
	attr.sample_regs_intr = 0;
	EXPECT_EQ(EINVAL, self_err(&attr));
	attr.sample_regs_intr = 1ULL << PERF_REG_X86_FS;
	EXPECT_EQ(EINVAL, self_err(&attr));
	attr.sample_regs_intr = 1ULL << PERF_REG_X86_SP;
	EXPECT_EQ(0, self_err(&attr));

	dummy_attr(&attr);
	attr.sample_regs_user = 1ULL << PERF_REG_X86_XMM0;
	EXPECT_EQ(EOPNOTSUPP, self_err(&attr));
	dummy_attr(&attr);
	attr.sample_regs_intr = 1ULL << 40;
	EXPECT_EQ(EOPNOTSUPP, self_err(&attr));
	/* Without the sample bit, a bad non-extended mask is not looked at. */
	dummy_attr(&attr);
	attr.sample_regs_user = 1ULL << PERF_REG_X86_DS;
	EXPECT_EQ(0, self_err(&attr));
}

/*
 * branch_sample_type is validated when PERF_SAMPLE_BRANCH_STACK is asked
 * for; a valid request is then refused by the software PMU.
 */
TEST(branch_stack_checks)
{
	struct perf_event_attr attr;

	dummy_attr(&attr);
	attr.sample_type = PERF_SAMPLE_BRANCH_STACK;
	attr.branch_sample_type = 0;
	EXPECT_EQ(EINVAL, self_err(&attr));
	attr.branch_sample_type = PERF_SAMPLE_BRANCH_PLM_ALL;
	EXPECT_EQ(EINVAL, self_err(&attr));
	attr.branch_sample_type = PERF_SAMPLE_BRANCH_ANY |
				  (PERF_SAMPLE_BRANCH_MAX);
	EXPECT_EQ(EINVAL, self_err(&attr));
	attr.branch_sample_type = PERF_SAMPLE_BRANCH_ANY;
	EXPECT_EQ(EOPNOTSUPP, self_err(&attr));
	/* Ignored without the sample bit. */
	attr.sample_type = 0;
	attr.branch_sample_type = ~0ULL;
	EXPECT_EQ(0, self_err(&attr));
}

/* ---- type and config -------------------------------------------------------- */

TEST(software_every_config)
{
	struct perf_event_attr attr;
	uint64_t c;

	for (c = 0; c < PERF_COUNT_SW_MAX; c++) {
		sw_attr(&attr, c);
		EXPECT_EQ(0, self_err(&attr)) TH_LOG("config %llu",
						     (unsigned long long)c);
	}
	ASSERT_EQ(12, PERF_COUNT_SW_MAX);
}

TEST(software_config_out_of_range)
{
	static const uint64_t configs[] = {
		PERF_COUNT_SW_MAX, 13, 1ULL << 32, ~0ULL,
	};
	struct perf_event_attr attr;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(configs); i++) {
		sw_attr(&attr, configs[i]);
		EXPECT_EQ(ENOENT, self_err(&attr)) TH_LOG("config %#llx",
					(unsigned long long)configs[i]);
	}
}

TEST(unknown_type)
{
	static const uint32_t types[] = { 0x7fff, 0x10000, 0xffffffff };
	struct perf_event_attr attr;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(types); i++) {
		dummy_attr(&attr);
		attr.type = types[i];
		attr.config = 0;
		EXPECT_EQ(ENOENT, self_err(&attr)) TH_LOG("type %#x", types[i]);
	}
}

/* There is no CPU PMU on this machine: all hardware classes are ENOENT. */
TEST(hardware_types_without_pmu)
{
	struct perf_event_attr attr;

	dummy_attr(&attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_CPU_CYCLES;
	EXPECT_EQ(ENOENT, self_err(&attr));
	attr.config = PERF_COUNT_HW_INSTRUCTIONS;
	EXPECT_EQ(ENOENT, open_err(&attr, -1, 0, -1, 0));

	attr.type = PERF_TYPE_HW_CACHE;
	attr.config = PERF_COUNT_HW_CACHE_L1D |
		      (PERF_COUNT_HW_CACHE_OP_READ << 8) |
		      (PERF_COUNT_HW_CACHE_RESULT_MISS << 16);
	EXPECT_EQ(ENOENT, self_err(&attr));

	attr.type = PERF_TYPE_RAW;
	attr.config = 0x003c;
	EXPECT_EQ(ENOENT, self_err(&attr));

	/*
	 * Without tracing there is no tracepoint PMU: ENOENT.  With it (a
	 * lockdep kernel pulls tracing in), an id no tracepoint has: EINVAL.
	 */
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.config = 0xffffff;
	EXPECT_EQ(access("/sys/bus/event_source/devices/tracepoint", F_OK) ?
		  ENOENT : EINVAL, self_err(&attr));

	/*
	 * An extended type naming the software PMU: that PMU does not
	 * take hardware events.
	 */
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = ((uint64_t)PERF_TYPE_SOFTWARE << PERF_PMU_TYPE_SHIFT) |
		      PERF_COUNT_HW_CPU_CYCLES;
	EXPECT_EQ(ENOENT, self_err(&attr));
	attr.config = (0x7fffULL << PERF_PMU_TYPE_SHIFT);
	EXPECT_EQ(ENOENT, self_err(&attr));
}

/* The BPF output event opens as a counter even without BPF. */
TEST(bpf_output_event)
{
	struct perf_event_attr attr;
	int fd;

	sw_attr(&attr, PERF_COUNT_SW_BPF_OUTPUT);
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(fd, 0);
	burn(100000);
	EXPECT_EQ(0, read_count(fd));
	close(fd);
	EXPECT_EQ(0, open_err(&attr, -1, 0, -1, 0));
}

/* ---- pid and cpu ------------------------------------------------------------ */

TEST(no_task_no_cpu)
{
	struct perf_event_attr attr;

	dummy_attr(&attr);
	EXPECT_EQ(EINVAL, open_err(&attr, -1, -1, -1, 0));
}

TEST(cpu_out_of_range)
{
	struct perf_event_attr attr;
	int n = nr_possible_cpus();
	int cpus[] = { n, n + 1, 4096, INT_MAX, -2, INT_MIN };
	unsigned int i;

	ASSERT_GT(n, 0);
	dummy_attr(&attr);
	for (i = 0; i < ARRAY_SIZE(cpus); i++) {
		EXPECT_EQ(EINVAL, open_err(&attr, -1, cpus[i], -1, 0))
			TH_LOG("cpu %d", cpus[i]);
		EXPECT_EQ(EINVAL, open_err(&attr, 0, cpus[i], -1, 0))
			TH_LOG("task, cpu %d", cpus[i]);
	}
	EXPECT_EQ(0, open_err(&attr, -1, n - 1, -1, 0));
	EXPECT_EQ(0, open_err(&attr, 0, n - 1, -1, 0));
}

TEST(nonexistent_pid)
{
	struct perf_event_attr attr;

	dummy_attr(&attr);
	EXPECT_EQ(ESRCH, open_err(&attr, dead_pid(), -1, -1, 0));
	EXPECT_EQ(ESRCH, open_err(&attr, -2, -1, -1, 0));
	EXPECT_EQ(ESRCH, open_err(&attr, INT_MAX, 0, -1, 0));
}

/* An exited but unreaped task is found, but it has no context any more. */
TEST(zombie_pid)
{
	struct perf_event_attr attr;
	pid_t pid = fork();
	siginfo_t si;

	ASSERT_GE(pid, 0);
	if (pid == 0)
		_exit(0);
	/* Wait for the exit without reaping. */
	ASSERT_EQ(0, waitid(P_PID, pid, &si, WEXITED | WNOWAIT));
	dummy_attr(&attr);
	EXPECT_EQ(ESRCH, open_err(&attr, pid, -1, -1, 0));
	waitpid(pid, NULL, 0);
}

TEST(other_task_as_root)
{
	struct perf_event_attr attr;
	int wfd;
	pid_t pid = spawn_waiter(&wfd);

	ASSERT_GT(pid, 0);
	dummy_attr(&attr);
	EXPECT_EQ(0, open_err(&attr, pid, -1, -1, 0));
	EXPECT_EQ(0, open_err(&attr, pid, 0, -1, 0));
	EXPECT_EQ(0, open_err(&attr, getpid(), -1, -1, 0));
	reap_waiter(pid, wfd);
}

/* ---- group_fd and flags --------------------------------------------------- */

TEST(group_fd_not_perf)
{
	struct perf_event_attr attr;
	int null = open("/dev/null", O_RDWR);
	int closed = dup(null);

	ASSERT_GE(null, 0);
	ASSERT_GE(closed, 0);
	close(closed);
	dummy_attr(&attr);
	EXPECT_EQ(EBADF, open_err(&attr, 0, -1, null, 0));
	EXPECT_EQ(EBADF, open_err(&attr, 0, -1, closed, 0));
	EXPECT_EQ(EBADF, open_err(&attr, 0, -1, -2, 0));
	EXPECT_EQ(EBADF, open_err(&attr, 0, -1, INT_MAX, 0));
	/* NO_GROUP does not make a bad group_fd acceptable. */
	EXPECT_EQ(EBADF, open_err(&attr, 0, -1, null, PERF_FLAG_FD_NO_GROUP));
	close(null);
}

/*
 * Cgroup mode needs a CPU and a cgroup fd; without CONFIG_CGROUP_PERF
 * every cgroup-mode open fails with EINVAL, with it an fd that is not a
 * cgroup directory is EBADF (the cgroup test has the rest).
 */
TEST(pid_cgroup)
{
	struct perf_event_attr attr;
	int cg = open("/sys/fs/cgroup", O_RDONLY | O_DIRECTORY);
	int null = open("/dev/null", O_RDONLY);
	int bad = have_perf_cgroup() ? EBADF : EINVAL;

	ASSERT_GE(null, 0);
	dummy_attr(&attr);
	EXPECT_EQ(EINVAL, open_err(&attr, -1, 0, -1, PERF_FLAG_PID_CGROUP));
	EXPECT_EQ(EINVAL, open_err(&attr, null, -1, -1, PERF_FLAG_PID_CGROUP));
	EXPECT_EQ(bad, open_err(&attr, null, 0, -1, PERF_FLAG_PID_CGROUP));
	EXPECT_EQ(bad, open_err(&attr, 9999, 0, -1, PERF_FLAG_PID_CGROUP));
	if (cg >= 0 && !have_perf_cgroup()) {
		EXPECT_EQ(EINVAL, open_err(&attr, cg, 0, -1,
					   PERF_FLAG_PID_CGROUP));
	}
	if (cg >= 0)
		close(cg);
	close(null);
}

TEST(fd_cloexec)
{
	struct perf_event_attr attr;
	int fd;

	dummy_attr(&attr);
	fd = sys_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(FD_CLOEXEC, fcntl(fd, F_GETFD) & FD_CLOEXEC);
	EXPECT_EQ(O_RDWR, fcntl(fd, F_GETFL) & O_ACCMODE);
	close(fd);

	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(0, fcntl(fd, F_GETFD) & FD_CLOEXEC);
	EXPECT_EQ(O_RDWR, fcntl(fd, F_GETFL) & O_ACCMODE);
	close(fd);
}

/* Number of events a PERF_FORMAT_GROUP read of @fd reports. */
static int group_size(int fd)
{
	uint64_t buf[64];

	if (read(fd, buf, sizeof(buf)) < (ssize_t)sizeof(uint64_t))
		return -1;
	return (int)buf[0];
}

TEST(fd_no_group)
{
	struct perf_event_attr attr;
	int leader, other, sib;

	dummy_attr(&attr);
	attr.read_format = PERF_FORMAT_GROUP;
	leader = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(leader, 0);
	other = sys_perf_event_open(&attr, 0, -1, leader,
				    PERF_FLAG_FD_NO_GROUP);
	ASSERT_GE(other, 0);
	EXPECT_EQ(1, group_size(leader));
	EXPECT_EQ(1, group_size(other));
	sib = sys_perf_event_open(&attr, 0, -1, leader, 0);
	ASSERT_GE(sib, 0);
	EXPECT_EQ(2, group_size(leader));
	close(sib);
	close(other);
	close(leader);
}

/*
 * PERF_FLAG_FD_OUTPUT redirects into group_fd's buffer: fine when that
 * event has one and matches (task, cpu, clock), EINVAL otherwise; it is
 * ignored when there is no group_fd.
 */
TEST(fd_output)
{
	struct perf_event_attr attr;
	int plain, buf, cpu0, fd;
	void *rb;

	dummy_attr(&attr);
	EXPECT_EQ(0, open_err(&attr, 0, -1, -1, PERF_FLAG_FD_OUTPUT));

	plain = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(plain, 0);
	EXPECT_EQ(EINVAL, open_err(&attr, 0, -1, plain, PERF_FLAG_FD_OUTPUT));
	EXPECT_EQ(EINVAL, open_err(&attr, 0, -1, plain,
				   PERF_FLAG_FD_OUTPUT | PERF_FLAG_FD_NO_GROUP));

	buf = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(buf, 0);
	rb = map_rb(buf);
	ASSERT_NE(NULL, rb);
	EXPECT_EQ(0, open_err(&attr, 0, -1, buf, PERF_FLAG_FD_OUTPUT));
	EXPECT_EQ(0, open_err(&attr, 0, -1, buf,
			      PERF_FLAG_FD_OUTPUT | PERF_FLAG_FD_NO_GROUP));
	/* The new event must be for the same CPU as the buffer's. */
	EXPECT_EQ(EINVAL, open_err(&attr, 0, 0, buf,
				   PERF_FLAG_FD_OUTPUT | PERF_FLAG_FD_NO_GROUP));
	/* And use the same clock. */
	attr.use_clockid = 1;
	attr.clockid = CLOCK_MONOTONIC_RAW;
	EXPECT_EQ(EINVAL, open_err(&attr, 0, -1, buf,
				   PERF_FLAG_FD_OUTPUT | PERF_FLAG_FD_NO_GROUP));
	attr.use_clockid = 0;

	/* A CPU-wide buffer takes events of any task on that CPU. */
	cpu0 = sys_perf_event_open(&attr, -1, 0, -1, 0);
	ASSERT_GE(cpu0, 0);
	ASSERT_NE(NULL, map_rb(cpu0));
	fd = sys_perf_event_open(&attr, 0, 0, cpu0,
				 PERF_FLAG_FD_OUTPUT | PERF_FLAG_FD_NO_GROUP);
	EXPECT_GE(fd, 0);
	if (fd >= 0)
		close(fd);
	close(cpu0);
	close(buf);
	close(plain);
}

/* ---- groups ------------------------------------------------------------------ */

TEST(group_sibling_pinned_or_exclusive)
{
	struct perf_event_attr attr;
	int leader;

	dummy_attr(&attr);
	attr.pinned = 1;
	attr.exclusive = 1;
	leader = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(leader, 0);
	attr.exclusive = 0;
	EXPECT_EQ(EINVAL, open_err(&attr, 0, -1, leader, 0));
	attr.pinned = 0;
	attr.exclusive = 1;
	EXPECT_EQ(EINVAL, open_err(&attr, 0, -1, leader, 0));
	attr.exclusive = 0;
	EXPECT_EQ(0, open_err(&attr, 0, -1, leader, 0));
	close(leader);
}

TEST(group_leader_must_lead)
{
	struct perf_event_attr attr;
	int leader, sib;

	dummy_attr(&attr);
	leader = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(leader, 0);
	sib = sys_perf_event_open(&attr, 0, -1, leader, 0);
	ASSERT_GE(sib, 0);
	EXPECT_EQ(EINVAL, open_err(&attr, 0, -1, sib, 0));
	/* With NO_GROUP the sibling's fd is only used for output. */
	EXPECT_EQ(0, open_err(&attr, 0, -1, sib, PERF_FLAG_FD_NO_GROUP));
	close(sib);
	close(leader);
}

TEST(group_cpu_and_context_mismatch)
{
	struct perf_event_attr attr;
	int leader, cpuwide;

	dummy_attr(&attr);
	leader = sys_perf_event_open(&attr, 0, 0, -1, 0);
	ASSERT_GE(leader, 0);
	EXPECT_EQ(EINVAL, open_err(&attr, 0, -1, leader, 0));
	EXPECT_EQ(0, open_err(&attr, 0, 0, leader, 0));
	/* Same CPU, but a CPU context instead of the task's. */
	EXPECT_EQ(EINVAL, open_err(&attr, -1, 0, leader, 0));

	cpuwide = sys_perf_event_open(&attr, -1, 0, -1, 0);
	ASSERT_GE(cpuwide, 0);
	EXPECT_EQ(EINVAL, open_err(&attr, 0, 0, cpuwide, 0));
	EXPECT_EQ(0, open_err(&attr, -1, 0, cpuwide, 0));
	if (nr_possible_cpus() > 1)
		EXPECT_EQ(EINVAL, open_err(&attr, -1, 1, cpuwide, 0));
	close(cpuwide);
	close(leader);
}

TEST(group_other_task)
{
	struct perf_event_attr attr;
	int leader, wfd;
	pid_t pid;

	dummy_attr(&attr);
	leader = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(leader, 0);
	pid = spawn_waiter(&wfd);
	ASSERT_GT(pid, 0);
	EXPECT_EQ(EINVAL, open_err(&attr, pid, -1, leader, 0));
	reap_waiter(pid, wfd);
	close(leader);
}

/* inherit must match the leader's for task events only. */
TEST(group_inherit_mismatch)
{
	struct perf_event_attr attr;
	int leader;

	dummy_attr(&attr);
	leader = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(leader, 0);
	attr.inherit = 1;
	EXPECT_EQ(EINVAL, open_err(&attr, 0, -1, leader, 0));
	close(leader);

	leader = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(leader, 0);
	EXPECT_EQ(0, open_err(&attr, 0, -1, leader, 0));
	attr.inherit = 0;
	EXPECT_EQ(EINVAL, open_err(&attr, 0, -1, leader, 0));
	close(leader);

	leader = sys_perf_event_open(&attr, -1, 0, -1, 0);
	ASSERT_GE(leader, 0);
	attr.inherit = 1;
	EXPECT_EQ(0, open_err(&attr, -1, 0, leader, 0));
	close(leader);
}

TEST(group_clock_mismatch)
{
	struct perf_event_attr attr;
	int leader;

	dummy_attr(&attr);
	attr.use_clockid = 1;
	attr.clockid = CLOCK_MONOTONIC;
	leader = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(leader, 0);
	EXPECT_EQ(0, open_err(&attr, 0, -1, leader, 0));
	attr.clockid = CLOCK_REALTIME;
	EXPECT_EQ(EINVAL, open_err(&attr, 0, -1, leader, 0));
	attr.use_clockid = 0;
	EXPECT_EQ(EINVAL, open_err(&attr, 0, -1, leader, 0));
	close(leader);
}

/* A leader whose task has exited cannot take new siblings. */
TEST(group_leader_task_exited)
{
	struct perf_event_attr attr;
	int leader, wfd;
	pid_t pid;

	pid = spawn_waiter(&wfd);
	ASSERT_GT(pid, 0);
	dummy_attr(&attr);
	leader = sys_perf_event_open(&attr, pid, -1, -1, 0);
	ASSERT_GE(leader, 0);
	EXPECT_EQ(0, open_err(&attr, pid, -1, leader, 0));
	reap_waiter(pid, wfd);
	EXPECT_EQ(ENODEV, open_err(&attr, pid, -1, leader, 0));
	/* Checked before the pid lookup: a live task does not help. */
	EXPECT_EQ(ENODEV, open_err(&attr, 0, -1, leader, 0));
	EXPECT_EQ(ENODEV, open_err(&attr, 0, -1, leader, PERF_FLAG_FD_NO_GROUP));
	close(leader);
}

/*
 * A PERF_FORMAT_GROUP read must fit in 16 KiB. With GROUP, ID, LOST and
 * both times one read takes 24 + 24 * n bytes, so 681 events fit and
 * the 682nd is refused with E2BIG.
 */
TEST(group_read_size_limit)
{
	struct perf_event_attr attr;
	struct rlimit rl;
	int leader, i, fd, err = 0;
	int fds[700];

	ASSERT_EQ(0, getrlimit(RLIMIT_NOFILE, &rl));
	if (rl.rlim_cur < 800) {
		rl.rlim_cur = rl.rlim_max < 800 ? rl.rlim_max : 800;
		setrlimit(RLIMIT_NOFILE, &rl);
		if (rl.rlim_cur < 800)
			SKIP(return, "RLIMIT_NOFILE too small");
	}
	dummy_attr(&attr);
	attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID |
			   PERF_FORMAT_LOST | PERF_FORMAT_TOTAL_TIME_ENABLED |
			   PERF_FORMAT_TOTAL_TIME_RUNNING;
	leader = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(leader, 0);
	attr.read_format = 0;
	for (i = 0; i < 700; i++) {
		fd = sys_perf_event_open(&attr, 0, -1, leader, 0);
		if (fd < 0) {
			err = errno;
			break;
		}
		fds[i] = fd;
	}
	EXPECT_EQ(680, i);
	EXPECT_EQ(E2BIG, err);
	while (i-- > 0)
		close(fds[i]);
	close(leader);
}

/* ---- clocks and excludes ------------------------------------------------- */

TEST(clockid_valid)
{
	static const int ids[] = {
		CLOCK_MONOTONIC, CLOCK_MONOTONIC_RAW, CLOCK_REALTIME,
		CLOCK_BOOTTIME, CLOCK_TAI,
	};
	struct perf_event_attr attr;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ids); i++) {
		sw_attr(&attr, PERF_COUNT_SW_TASK_CLOCK);
		attr.use_clockid = 1;
		attr.clockid = ids[i];
		EXPECT_EQ(0, self_err(&attr)) TH_LOG("clock %d", ids[i]);
		attr.config = PERF_COUNT_SW_PAGE_FAULTS;
		EXPECT_EQ(0, open_err(&attr, -1, 0, -1, 0)) TH_LOG("clock %d",
								   ids[i]);
	}
}

TEST(clockid_invalid)
{
	static const int ids[] = {
		CLOCK_PROCESS_CPUTIME_ID, CLOCK_THREAD_CPUTIME_ID,
		CLOCK_REALTIME_COARSE, CLOCK_MONOTONIC_COARSE,
		CLOCK_REALTIME_ALARM, CLOCK_BOOTTIME_ALARM, 10, 12, 16, 100, -1,
	};
	struct perf_event_attr attr;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ids); i++) {
		dummy_attr(&attr);
		attr.use_clockid = 1;
		attr.clockid = ids[i];
		EXPECT_EQ(EINVAL, self_err(&attr)) TH_LOG("clock %d", ids[i]);
	}
	/* clockid is ignored without use_clockid. */
	dummy_attr(&attr);
	attr.clockid = 100;
	EXPECT_EQ(0, self_err(&attr));
}

/* Software events take any combination of the exclude bits. */
TEST(software_exclude_combinations)
{
	struct perf_event_attr attr;
	int m;

	for (m = 0; m < 64; m++) {
		sw_attr(&attr, PERF_COUNT_SW_PAGE_FAULTS);
		attr.exclude_user = !!(m & 1);
		attr.exclude_kernel = !!(m & 2);
		attr.exclude_hv = !!(m & 4);
		attr.exclude_idle = !!(m & 8);
		attr.exclude_host = !!(m & 16);
		attr.exclude_guest = !!(m & 32);
		EXPECT_EQ(0, self_err(&attr)) TH_LOG("mask %#x", m);
		attr.config = PERF_COUNT_SW_CPU_CLOCK;
		EXPECT_EQ(0, open_err(&attr, -1, 0, -1, 0)) TH_LOG("mask %#x", m);
	}
	/* precise_ip is not checked for software events either. */
	for (m = 0; m < 4; m++) {
		sw_attr(&attr, PERF_COUNT_SW_TASK_CLOCK);
		attr.precise_ip = m;
		EXPECT_EQ(0, self_err(&attr)) TH_LOG("precise_ip %d", m);
	}
}

/* ---- which check wins ---------------------------------------------------- */

TEST(check_order)
{
	struct perf_event_attr attr;
	int null = open("/dev/null", O_RDONLY);
	pid_t gone = dead_pid();

	ASSERT_GE(null, 0);
	/* attr size before group_fd. */
	dummy_attr(&attr);
	attr.size = 8;
	EXPECT_EQ(E2BIG, open_err(&attr, 0, -1, null, 0));
	/* attr contents before the cgroup pid/cpu check. */
	dummy_attr(&attr);
	attr.__reserved_2 = 1;
	EXPECT_EQ(EINVAL, open_err(&attr, -1, -1, -1, PERF_FLAG_PID_CGROUP));
	/* period bit 63 before group_fd. */
	dummy_attr(&attr);
	attr.sample_period = 1ULL << 63;
	EXPECT_EQ(EINVAL, open_err(&attr, 0, -1, null, 0));
	/* group_fd before pid. */
	dummy_attr(&attr);
	EXPECT_EQ(EBADF, open_err(&attr, gone, -1, null, 0));
	/* pid before cpu. */
	EXPECT_EQ(ESRCH, open_err(&attr, gone, 4096, -1, 0));
	/* cpu before type. */
	attr.type = 0x7fff;
	EXPECT_EQ(EINVAL, open_err(&attr, -1, -1, -1, 0));
	EXPECT_EQ(EINVAL, open_err(&attr, 0, 4096, -1, 0));
	/* sigtrap without a task before type. */
	attr.sigtrap = 1;
	attr.remove_on_exec = 1;
	EXPECT_EQ(EINVAL, open_err(&attr, -1, 0, -1, 0));
	attr.sigtrap = 0;
	attr.remove_on_exec = 0;
	/* type before clockid. */
	attr.use_clockid = 1;
	attr.clockid = 100;
	EXPECT_EQ(ENOENT, self_err(&attr));
	/* attr checks (stack size, branch type) before type. */
	dummy_attr(&attr);
	attr.type = 0x7fff;
	attr.sample_type = PERF_SAMPLE_STACK_USER;
	attr.sample_stack_user = 3;
	EXPECT_EQ(EINVAL, self_err(&attr));
	attr.sample_type = PERF_SAMPLE_BRANCH_STACK;
	EXPECT_EQ(EINVAL, self_err(&attr));
	/* inherit + SAMPLE_READ before type. */
	dummy_attr(&attr);
	attr.type = 0x7fff;
	attr.inherit = 1;
	attr.sample_type = PERF_SAMPLE_READ;
	EXPECT_EQ(EINVAL, self_err(&attr));
	close(null);
}

/* ---- CPU hotplug ------------------------------------------------------------ */

#define CPU1_ONLINE "/sys/devices/system/cpu/cpu1/online"

FIXTURE(offline_cpu) {
	bool offlined;
};

FIXTURE_SETUP(offline_cpu)
{
	self->offlined = false;
	if (nr_cpus() < 2 || access(CPU1_ONLINE, W_OK))
		SKIP(return, "needs a second CPU that can be taken offline");
	if (write_file_str(CPU1_ONLINE, "0"))
		SKIP(return, "cannot take CPU 1 offline");
	self->offlined = true;
}

FIXTURE_TEARDOWN(offline_cpu)
{
	if (self->offlined)
		write_file_str(CPU1_ONLINE, "1");
}

/*
 * A CPU-wide event on an offline CPU is ENODEV; a task event restricted
 * to that CPU is accepted (it simply never runs there).
 */
TEST_F(offline_cpu, open_on_offline_cpu)
{
	struct perf_event_attr attr;

	dummy_attr(&attr);
	EXPECT_EQ(ENODEV, open_err(&attr, -1, 1, -1, 0));
	EXPECT_EQ(0, open_err(&attr, 0, 1, -1, 0));
	EXPECT_EQ(0, open_err(&attr, -1, 0, -1, 0));
}

TEST_HARNESS_MAIN
