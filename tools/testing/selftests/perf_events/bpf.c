// SPDX-License-Identifier: GPL-2.0
/*
 * BPF programs on perf events, loaded with bpf(2) from instructions
 * written here (no compiler or library needed):
 *
 *  - PERF_EVENT_IOC_SET_BPF on a syscall tracepoint: the program sees
 *    every hit, and its return value decides whether the event counts it;
 *  - on a kprobe PMU event, with a kprobe program;
 *  - on a sampling software event, with a perf_event program that sees
 *    the sample (its period) and drops it by returning 0; inherited
 *    copies run it too;
 *  - PERF_EVENT_IOC_QUERY_BPF, and bpf_link (BPF_LINK_CREATE) for perf
 *    events, detaching when the link is closed;
 *  - bpf_perf_event_output() into a bpf-output event's ring buffer,
 *    bpf_perf_event_read_value() of a counter in a perf event array, and
 *    bpf_get_stackid() of a sample's stack;
 *  - the errors: bad descriptors, programs of the wrong type, a second
 *    program, a tracepoint program reading past the record.
 *
 * The probes are on getppid(), which nothing else in the test makes.
 */
#include <sys/syscall.h>
#include <linux/bpf.h>
#include <asm/ptrace.h>
#include "../kselftest_harness.h"
#include "perf_util.h"
#include "perf_rb.h"
#include "bpf_util.h"

#define NO_BPF "no bpf() in this kernel (CONFIG_BPF_SYSCALL; issue 13)"
#define KFUNC "__x64_sys_getppid"
#define CALLS 10
#define STACK_DEPTH 32
/* struct bpf_perf_event_data: the registers (x86-64's), then the period. */
#define SAMPLE_PERIOD_OFF	sizeof(struct pt_regs)

/*
 * A program that adds one to value[0] of @map's entry 0, stores the
 * sample's period in value[1] if @period (perf_event programs), and
 * returns @ret.
 */
static int count_prog(int type, int map, int ret, bool period)
{
	struct prog p = {};
	int skip;

	mov_reg(&p, BPF_REG_6, BPF_REG_1);
	skip = lookup_key0(&p, map, -4);
	mov_imm(&p, BPF_REG_1, 1);
	emit(&p, INSN(BPF_STX | BPF_ATOMIC | BPF_DW, BPF_REG_0, BPF_REG_1, 0, BPF_ADD));
	if (period) {
		emit(&p, INSN(BPF_LDX | BPF_MEM | BPF_DW, BPF_REG_1, BPF_REG_6,
			      SAMPLE_PERIOD_OFF, 0));
		emit(&p, INSN(BPF_STX | BPF_MEM | BPF_DW, BPF_REG_0, BPF_REG_1, 8, 0));
	}
	patch(&p, skip);
	ret_imm(&p, ret);
	return prog_load(type, &p);
}

/*
 * A perf_event program that stores bpf_get_stackid(ctx, @stacks,
 * BPF_F_USER_STACK | BPF_F_REUSE_STACKID) in value 0 of @res's entry 0.
 */
static int stackid_prog(int stacks, int res)
{
	struct prog p = {};
	int skip;

	ld_map(&p, BPF_REG_2, stacks);
	mov_imm(&p, BPF_REG_3, BPF_F_USER_STACK | BPF_F_REUSE_STACKID);
	call(&p, BPF_FUNC_get_stackid);
	mov_reg(&p, BPF_REG_6, BPF_REG_0);
	skip = lookup_key0(&p, res, -4);
	emit(&p, INSN(BPF_STX | BPF_MEM | BPF_DW, BPF_REG_0, BPF_REG_6, 0, 0));
	patch(&p, skip);
	ret_imm(&p, 1);
	return prog_load(BPF_PROG_TYPE_PERF_EVENT, &p);
}

/* A program of @type that returns @ret and does nothing else. */
static int ret_prog(int type, int ret)
{
	struct prog p = {};

	ret_imm(&p, ret);
	return prog_load(type, &p);
}

/* A counting event on syscalls:sys_enter_getppid for this task, or -1. */
static int open_getppid_tp(void)
{
	long id = tp_id("syscalls", "sys_enter_getppid");
	struct perf_event_attr attr = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(attr),
		.config = id,
	};

	return id < 0 ? -1 : sys_perf_event_open(&attr, 0, -1, -1, 0);
}

static void call_getppid(int n)
{
	while (n--)
		syscall(SYS_getppid);
}

static uint64_t map_value(int map, int i)
{
	uint64_t v[3] = {};

	map_lookup(map, 0, v);
	return v[i];
}

/* Why the tests cannot run here, or NULL. */
static const char *missing(void)
{
	if (!have_bpf_syscall())
		return NO_BPF;
	if (tp_id("syscalls", "sys_enter_getppid") < 0)
		return "no syscall tracepoints (CONFIG_FTRACE_SYSCALLS)";
	return NULL;
}

/* A program that drops each hit leaves the event at 0; one that keeps it, not. */
TEST(tracepoint_program_decides)
{
	int map, prog, fd, i;

	if (missing())
		SKIP(return, "%s", missing());
	for (i = 0; i < 2; i++) {
		map = map_create(BPF_MAP_TYPE_ARRAY, 16, 1);
		ASSERT_GE(map, 0);
		prog = count_prog(BPF_PROG_TYPE_TRACEPOINT, map, i, false);
		ASSERT_GE(prog, 0);
		fd = open_getppid_tp();
		ASSERT_GE(fd, 0);
		ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_SET_BPF, prog));
		call_getppid(CALLS);
		ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_DISABLE, 0));
		EXPECT_GE(map_value(map, 0), CALLS);
		EXPECT_EQ(i ? CALLS : 0, read_count(fd));
		close(fd);
		close(prog);
		close(map);
	}
}

/* QUERY_BPF lists the tracepoint's programs; other events have none to list. */
TEST(query)
{
	struct {
		struct perf_event_query_bpf q;
		uint32_t ids[4];
	} query = { .q.ids_len = 4 };
	int prog, fd, sw;

	if (missing())
		SKIP(return, "%s", missing());
	prog = ret_prog(BPF_PROG_TYPE_TRACEPOINT, 1);
	ASSERT_GE(prog, 0);
	fd = open_getppid_tp();
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_QUERY_BPF, &query));
	EXPECT_EQ(0, query.q.prog_cnt);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_SET_BPF, prog));
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_QUERY_BPF, &query));
	EXPECT_EQ(1, query.q.prog_cnt);
	EXPECT_EQ(prog_id(prog), query.ids[0]);
	/* Asking for the count alone. */
	query.q.ids_len = 0;
	query.q.prog_cnt = 0;
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_QUERY_BPF, &query));
	EXPECT_EQ(1, query.q.prog_cnt);
	query.q.ids_len = 1U << 20;
	EXPECT_EQ(-1, ioctl(fd, PERF_EVENT_IOC_QUERY_BPF, &query));
	EXPECT_EQ(E2BIG, errno);
	EXPECT_EQ(-1, ioctl(fd, PERF_EVENT_IOC_QUERY_BPF, NULL));
	EXPECT_EQ(EFAULT, errno);
	sw = open_sw(PERF_COUNT_SW_DUMMY, -1);
	ASSERT_GE(sw, 0);
	EXPECT_EQ(-1, ioctl(sw, PERF_EVENT_IOC_QUERY_BPF, &query));
	EXPECT_EQ(EINVAL, errno);
	close(sw);
	close(fd);
	close(prog);
}

/* A sampling software event on page faults, sample_period 1, this task. */
static int open_fault_sampler(int inherit)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_PAGE_FAULTS,
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_IP,
		.inherit = inherit,
		.disabled = 1,
	};

	return sys_perf_event_open(&attr, 0, -1, -1, 0);
}

static int count_samples(struct perf_rb *rb)
{
	struct perf_event_header *h;
	int n = 0;

	rb_fetch(rb);
	while ((h = rb_next(rb)))
		n += h->type == PERF_RECORD_SAMPLE;
	return n;
}

/* A perf_event program sees each sample, and drops those it returns 0 for. */
TEST(overflow_program)
{
	struct perf_rb rb;
	int map, prog, fd, i, n;

	if (missing())
		SKIP(return, "%s", missing());
	for (i = 0; i < 2; i++) {
		map = map_create(BPF_MAP_TYPE_ARRAY, 16, 1);
		ASSERT_GE(map, 0);
		prog = count_prog(BPF_PROG_TYPE_PERF_EVENT, map, i, true);
		ASSERT_GE(prog, 0);
		fd = open_fault_sampler(0);
		ASSERT_GE(fd, 0);
		ASSERT_EQ(0, rb_map(&rb, fd, 16));
		ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_SET_BPF, prog));
		ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
		touch_pages(64);
		ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_DISABLE, 0));
		EXPECT_GE(map_value(map, 0), 64);
		EXPECT_EQ(1, map_value(map, 1));
		n = count_samples(&rb);
		EXPECT_TRUE(i ? n >= 64 : n == 0);
		/* The count does not depend on the program. */
		EXPECT_GE(read_count(fd), 64);
		rb_unmap(&rb);
		close(fd);
		close(prog);
		close(map);
	}
}

/*
 * bpf_get_stackid() from a perf_event program: the stack of each page
 * fault goes into a stack map, from the sample's callchain when the event
 * samples one, else walked at the call.  The user stack is asked for: it
 * starts in this program.
 */
TEST(stackid)
{
	uint64_t ips[STACK_DEPTH];
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_PAGE_FAULTS,
		.sample_period = 1,
		.disabled = 1,
	};
	int i, stacks, res, prog, fd;
	uint64_t ip;
	int64_t id;

	if (missing())
		SKIP(return, "%s", missing());
	for (i = 0; i < 2; i++) {
		attr.sample_type = i ? PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN : PERF_SAMPLE_IP;
		stacks = map_create(BPF_MAP_TYPE_STACK_TRACE, sizeof(ips), 64);
		ASSERT_GE(stacks, 0);
		res = map_create(BPF_MAP_TYPE_ARRAY, 8, 1);
		ASSERT_GE(res, 0);
		prog = stackid_prog(stacks, res);
		ASSERT_GE(prog, 0);
		fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
		ASSERT_GE(fd, 0);
		ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_SET_BPF, prog));
		ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
		touch_pages(4);
		ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_DISABLE, 0));
		id = (int64_t)map_value(res, 0);
		ASSERT_GE(id, 0) TH_LOG("callchain %d: bpf_get_stackid() gave %lld", i,
					(long long)id);
		memset(ips, 0, sizeof(ips));
		ASSERT_EQ(0, map_lookup(stacks, id, ips));
		/*
		 * A user address of the faulting code, first after the
		 * context marker that a sample's callchain starts with.
		 */
		ip = ips[0] >= (uint64_t)PERF_CONTEXT_MAX ? ips[1] : ips[0];
		EXPECT_NE(0, ip);
		EXPECT_LT(ip, 0x800000000000ULL);
		close(fd);
		close(prog);
		close(res);
		close(stacks);
	}
}

/* A child's copy of an inherited event runs the parent's program. */
TEST(overflow_program_inherited)
{
	int map, prog, fd;

	if (missing())
		SKIP(return, "%s", missing());
	map = map_create(BPF_MAP_TYPE_ARRAY, 16, 1);
	ASSERT_GE(map, 0);
	prog = count_prog(BPF_PROG_TYPE_PERF_EVENT, map, 0, true);
	ASSERT_GE(prog, 0);
	fd = open_fault_sampler(1);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_SET_BPF, prog));
	/* The program is shared: the file may go before the event does. */
	close(prog);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
	ASSERT_EQ(0, touch_in_child(-1, 64));
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_DISABLE, 0));
	EXPECT_GE(map_value(map, 0), 64);
	EXPECT_GE(read_count(fd), 64);
	close(fd);
	close(map);
}

/* A kprobe PMU event runs a kprobe program at each hit. */
TEST(kprobe_program)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.config1 = (uintptr_t)KFUNC,
	};
	long type;
	int map, prog, fd, tp;

	if (missing())
		SKIP(return, "%s", missing());
	if (read_file_long("/sys/bus/event_source/devices/kprobe/type", &type))
		SKIP(return, "no kprobe PMU (CONFIG_KPROBE_EVENTS)");
	attr.type = type;
	map = map_create(BPF_MAP_TYPE_ARRAY, 16, 1);
	ASSERT_GE(map, 0);
	prog = count_prog(BPF_PROG_TYPE_KPROBE, map, 1, false);
	ASSERT_GE(prog, 0);
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(fd, 0);
	/* A tracepoint program does not go on a probe, nor the reverse. */
	tp = ret_prog(BPF_PROG_TYPE_TRACEPOINT, 1);
	ASSERT_GE(tp, 0);
	EXPECT_EQ(-1, ioctl(fd, PERF_EVENT_IOC_SET_BPF, tp));
	EXPECT_EQ(EINVAL, errno);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_SET_BPF, prog));
	call_getppid(CALLS);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_DISABLE, 0));
	EXPECT_GE(map_value(map, 0), CALLS);
	EXPECT_EQ(CALLS, read_count(fd));
	close(fd);
	fd = open_getppid_tp();
	ASSERT_GE(fd, 0);
	EXPECT_EQ(-1, ioctl(fd, PERF_EVENT_IOC_SET_BPF, prog));
	EXPECT_EQ(EINVAL, errno);
	close(fd);
	close(tp);
	close(prog);
	close(map);
}

/* A bpf_link attaches the program; closing it detaches it. */
TEST(bpf_link)
{
	union bpf_attr a = {};
	int prog, fd, link;

	if (missing())
		SKIP(return, "%s", missing());
	prog = ret_prog(BPF_PROG_TYPE_TRACEPOINT, 0);
	ASSERT_GE(prog, 0);
	fd = open_getppid_tp();
	ASSERT_GE(fd, 0);
	a.link_create.prog_fd = prog;
	a.link_create.target_fd = fd;
	a.link_create.attach_type = BPF_PERF_EVENT;
	link = sys_bpf(BPF_LINK_CREATE, &a);
	ASSERT_GE(link, 0);
	/* Attached: the hits are dropped, and there is no room for another. */
	call_getppid(CALLS);
	EXPECT_EQ(0, read_count(fd));
	EXPECT_EQ(-1, ioctl(fd, PERF_EVENT_IOC_SET_BPF, prog));
	EXPECT_EQ(EEXIST, errno);
	close(link);
	call_getppid(CALLS);
	EXPECT_EQ(CALLS, read_count(fd));
	EXPECT_EQ(0, ioctl(fd, PERF_EVENT_IOC_SET_BPF, prog));
	close(fd);
	close(prog);
}

/* Descriptors that are no program, and programs that do not fit the event. */
TEST(bad_programs)
{
	struct prog far = {};
	int tp, sw, prog, other, perf_prog, sock, deep;

	if (missing())
		SKIP(return, "%s", missing());
	tp = open_getppid_tp();
	ASSERT_GE(tp, 0);
	sw = open_fault_sampler(0);
	ASSERT_GE(sw, 0);
	prog = ret_prog(BPF_PROG_TYPE_TRACEPOINT, 1);
	ASSERT_GE(prog, 0);
	other = ret_prog(BPF_PROG_TYPE_TRACEPOINT, 1);
	ASSERT_GE(other, 0);
	perf_prog = ret_prog(BPF_PROG_TYPE_PERF_EVENT, 1);
	ASSERT_GE(perf_prog, 0);
	sock = ret_prog(BPF_PROG_TYPE_SOCKET_FILTER, 1);
	ASSERT_GE(sock, 0);

	EXPECT_EQ(-1, ioctl(tp, PERF_EVENT_IOC_SET_BPF, -1));
	EXPECT_EQ(EBADF, errno);
	/* A descriptor, but not of a program. */
	EXPECT_EQ(-1, ioctl(tp, PERF_EVENT_IOC_SET_BPF, sw));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ioctl(tp, PERF_EVENT_IOC_SET_BPF, sock));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ioctl(tp, PERF_EVENT_IOC_SET_BPF, perf_prog));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ioctl(sw, PERF_EVENT_IOC_SET_BPF, prog));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ioctl(sw, PERF_EVENT_IOC_SET_BPF, sock));
	EXPECT_EQ(EINVAL, errno);

	/* One program per event. */
	ASSERT_EQ(0, ioctl(tp, PERF_EVENT_IOC_SET_BPF, prog));
	EXPECT_EQ(-1, ioctl(tp, PERF_EVENT_IOC_SET_BPF, other));
	EXPECT_EQ(EEXIST, errno);
	ASSERT_EQ(0, ioctl(sw, PERF_EVENT_IOC_SET_BPF, perf_prog));
	EXPECT_EQ(-1, ioctl(sw, PERF_EVENT_IOC_SET_BPF, perf_prog));
	EXPECT_EQ(EEXIST, errno);
	close(tp);

	/* A tracepoint program that reads past what getppid's record holds. */
	emit(&far, INSN(BPF_LDX | BPF_MEM | BPF_DW, BPF_REG_0, BPF_REG_1, 512, 0));
	ret_imm(&far, 1);
	deep = prog_load(BPF_PROG_TYPE_TRACEPOINT, &far);
	ASSERT_GE(deep, 0);
	tp = open_getppid_tp();
	ASSERT_GE(tp, 0);
	EXPECT_EQ(-1, ioctl(tp, PERF_EVENT_IOC_SET_BPF, deep));
	EXPECT_EQ(EACCES, errno);
	/* Nothing was left attached by the failures. */
	EXPECT_EQ(0, ioctl(tp, PERF_EVENT_IOC_SET_BPF, other));

	close(deep);
	close(tp);
	close(sw);
	close(sock);
	close(perf_prog);
	close(other);
	close(prog);
}

/* bpf_perf_event_output() writes a sample with the bytes into a bpf-output event. */
TEST(output)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_BPF_OUTPUT,
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_RAW,
		.wakeup_events = 1,
	};
	const uint64_t magic = 0x1122334455667788ULL;
	struct perf_event_header *h;
	struct perf_rb rb;
	struct prog p = {};
	int map, out, prog, tp, n = 0;

	if (missing())
		SKIP(return, "%s", missing());
	map = map_create(BPF_MAP_TYPE_PERF_EVENT_ARRAY, 4, 1);
	ASSERT_GE(map, 0);
	out = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(out, 0);
	ASSERT_EQ(0, rb_map(&rb, out, 4));
	ASSERT_EQ(0, map_update(map, 0, &out));

	/* bpf_perf_event_output(ctx, map, 0, &magic on the stack, 8) */
	mov_reg(&p, BPF_REG_6, BPF_REG_1);
	ld_imm64(&p, BPF_REG_1, magic);
	emit(&p, INSN(BPF_STX | BPF_MEM | BPF_DW, BPF_REG_10, BPF_REG_1, -8, 0));
	stack_ptr(&p, BPF_REG_4, -8);
	mov_reg(&p, BPF_REG_1, BPF_REG_6);
	ld_map(&p, BPF_REG_2, map);
	mov_imm(&p, BPF_REG_3, 0);
	mov_imm(&p, BPF_REG_5, 8);
	call(&p, BPF_FUNC_perf_event_output);
	ret_imm(&p, 0);
	prog = prog_load(BPF_PROG_TYPE_TRACEPOINT, &p);
	ASSERT_GE(prog, 0);
	tp = open_getppid_tp();
	ASSERT_GE(tp, 0);
	ASSERT_EQ(0, ioctl(tp, PERF_EVENT_IOC_SET_BPF, prog));
	call_getppid(CALLS);
	ASSERT_EQ(0, ioctl(out, PERF_EVENT_IOC_DISABLE, 0));

	rb_fetch(&rb);
	while ((h = rb_next(&rb))) {
		uint32_t size;
		uint64_t v;

		if (h->type != PERF_RECORD_SAMPLE)
			continue;
		/* u32 size, 8 bytes, 4 bytes of padding to a u64 boundary */
		ASSERT_EQ(sizeof(*h) + 16, h->size);
		memcpy(&size, h + 1, 4);
		memcpy(&v, (char *)(h + 1) + 4, 8);
		EXPECT_EQ(12, size);
		EXPECT_EQ(magic, v);
		n++;
	}
	EXPECT_EQ(CALLS, n);
	rb_unmap(&rb);
	close(tp);
	close(prog);
	close(out);
	close(map);
}

/* bpf_perf_event_read_value() reads a counter of this task, with its times. */
TEST(read_value)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_TASK_CLOCK,
	};
	struct prog p = {};
	int arr, res, ctr, prog, tp, skip, skip2;

	if (missing())
		SKIP(return, "%s", missing());
	arr = map_create(BPF_MAP_TYPE_PERF_EVENT_ARRAY, 4, 1);
	ASSERT_GE(arr, 0);
	res = map_create(BPF_MAP_TYPE_ARRAY, 24, 1);
	ASSERT_GE(res, 0);
	ctr = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(ctr, 0);
	ASSERT_EQ(0, map_update(arr, 0, &ctr));

	/* bpf_perf_event_read_value(arr, 0, buf, 24); copied to res[0] */
	ld_map(&p, BPF_REG_1, arr);
	mov_imm(&p, BPF_REG_2, 0);
	stack_ptr(&p, BPF_REG_3, -24);
	mov_imm(&p, BPF_REG_4, 24);
	call(&p, BPF_FUNC_perf_event_read_value);
	skip = jump_if(&p, BPF_JNE, BPF_REG_0, 0);
	skip2 = lookup_key0(&p, res, -28);
	for (int i = 0; i < 3; i++) {
		emit(&p, INSN(BPF_LDX | BPF_MEM | BPF_DW, BPF_REG_1, BPF_REG_10,
			      -24 + 8 * i, 0));
		emit(&p, INSN(BPF_STX | BPF_MEM | BPF_DW, BPF_REG_0, BPF_REG_1, 8 * i, 0));
	}
	patch(&p, skip);
	patch(&p, skip2);
	ret_imm(&p, 1);
	prog = prog_load(BPF_PROG_TYPE_TRACEPOINT, &p);
	ASSERT_GE(prog, 0);
	tp = open_getppid_tp();
	ASSERT_GE(tp, 0);
	ASSERT_EQ(0, ioctl(tp, PERF_EVENT_IOC_SET_BPF, prog));
	burn_ns(2000000);
	call_getppid(1);
	/* Counting all along: some time, enabled and running alike. */
	EXPECT_GT(map_value(res, 0), 0);
	EXPECT_GT(map_value(res, 2), 0);
	EXPECT_GE(map_value(res, 1), map_value(res, 2));
	EXPECT_GE(read_count(ctr), map_value(res, 0));
	close(tp);
	close(prog);
	close(ctr);
	close(res);
	close(arr);
}

TEST_HARNESS_MAIN
