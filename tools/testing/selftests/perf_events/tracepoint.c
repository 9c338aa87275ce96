// SPDX-License-Identifier: GPL-2.0
/*
 * Tracepoint events (PERF_TYPE_TRACEPOINT): counting the hits of one
 * tracepoint, signal:signal_generate, which fires in the sender of a
 * signal; PERF_EVENT_IOC_SET_FILTER with an ftrace filter expression;
 * the filter of an inherited event applying in the children, whose
 * copies of the event have none of their own; and samples whose raw data
 * is the tracepoint's record, laid out as its tracefs format file says.
 *
 * A kernel without event tracing has no tracepoint PMU: the tests skip
 * there.
 */
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include "../kselftest_harness.h"
#include "perf_util.h"
#include "perf_rb.h"

#define NO_TRACING "no event tracing in this kernel (CONFIG_EVENT_TRACING; issue 13)"

static void on_signal(int sig)
{
}

/* A counting event for signal:signal_generate on the calling task. */
static int open_signal_generate(int inherit)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(attr),
		.inherit = inherit,
		.disabled = 1,
	};
	long id = tp_id("signal", "signal_generate");

	if (id < 0)
		return -2;
	attr.config = id;
	return sys_perf_event_open(&attr, 0, -1, -1, 0);
}

/* Send SIGUSR1 @usr1 times and SIGUSR2 @usr2 times to the caller. */
static void raise_signals(int usr1, int usr2)
{
	while (usr1-- > 0)
		raise(SIGUSR1);
	while (usr2-- > 0)
		raise(SIGUSR2);
}

FIXTURE(tp) {
	int fd;
};

FIXTURE_SETUP(tp)
{
	self->fd = -1;
	signal(SIGUSR1, on_signal);
	signal(SIGUSR2, on_signal);
}

FIXTURE_TEARDOWN(tp)
{
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F(tp, counts_each_hit)
{
	self->fd = open_signal_generate(0);
	if (self->fd == -2)
		SKIP(return, NO_TRACING);
	ASSERT_GE(self->fd, 0) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(ioctl(self->fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	raise_signals(3, 5);
	ASSERT_EQ(ioctl(self->fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	EXPECT_EQ(read_count(self->fd), 8);
}

TEST_F(tp, filter_selects_hits)
{
	self->fd = open_signal_generate(0);
	if (self->fd == -2)
		SKIP(return, NO_TRACING);
	ASSERT_GE(self->fd, 0) TH_LOG("%s", strerror(errno));
	/* A malformed expression and an unknown field: EINVAL. */
	EXPECT_EQ(ioctl(self->fd, PERF_EVENT_IOC_SET_FILTER, "sig =="), -1);
	EXPECT_EQ(errno, EINVAL);
	EXPECT_EQ(ioctl(self->fd, PERF_EVENT_IOC_SET_FILTER, "no_such_field == 1"), -1);
	EXPECT_EQ(errno, EINVAL);
	ASSERT_EQ(ioctl(self->fd, PERF_EVENT_IOC_SET_FILTER, "sig == 10"), 0);
	ASSERT_EQ(ioctl(self->fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	raise_signals(3, 5);
	ASSERT_EQ(ioctl(self->fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	EXPECT_EQ(read_count(self->fd), 3);
}

/*
 * Only the event user space opened holds the filter; the children's
 * copies count what it selects, and their counts fold back at exit.
 */
TEST_F(tp, inherited_event_filters_in_children)
{
	int status;
	pid_t pid;

	self->fd = open_signal_generate(1);
	if (self->fd == -2)
		SKIP(return, NO_TRACING);
	ASSERT_GE(self->fd, 0) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(ioctl(self->fd, PERF_EVENT_IOC_SET_FILTER, "sig == 10"), 0);
	ASSERT_EQ(ioctl(self->fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		raise_signals(3, 5);
		_exit(0);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(ioctl(self->fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	EXPECT_EQ(read_count(self->fd), 3);
}

/* The offset of field @name in the record of @sys/@event, or -1. */
static int tp_field_offset(const char *sys, const char *event, const char *name)
{
	char path[256], line[256], want[64];
	int off = -1, o;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/%s/format", tracefs_events(), sys, event);
	snprintf(want, sizeof(want), " %s;", name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, want), *q = strstr(line, "offset:");

		if (p && q && sscanf(q, "offset:%d;", &o) == 1) {
			off = o;
			break;
		}
	}
	fclose(f);
	return off;
}

/*
 * Every hit is a sample; PERF_SAMPLE_RAW carries the record: a u32 size,
 * then the common header whose type is the tracepoint's id, then the
 * fields at the offsets of the format file.
 */
TEST_F(tp, samples_carry_raw_record)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(attr),
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_RAW,
		.disabled = 1,
	};
	long id = tp_id("signal", "signal_generate");
	int sig_off = tp_field_offset("signal", "signal_generate", "sig");
	struct perf_event_header *h;
	const unsigned char *rec;
	struct perf_rb rb;
	struct rec_cur c;
	int i, sig;
	uint32_t size;

	if (id < 0)
		SKIP(return, NO_TRACING);
	ASSERT_GT(sig_off, 0);
	attr.config = id;
	self->fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(self->fd, 0) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(rb_map(&rb, self->fd, 4), 0);
	ASSERT_EQ(ioctl(self->fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	raise_signals(2, 3);
	ASSERT_EQ(ioctl(self->fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	rb_fetch(&rb);
	ASSERT_EQ(rb_count(&rb, PERF_RECORD_SAMPLE), 5);
	for (i = 0; (h = rb_find(&rb, PERF_RECORD_SAMPLE, i)); i++) {
		c = rc_init(h);
		size = rc_u32(&c);
		ASSERT_GE(size, sig_off + sizeof(int));
		rec = rc_ptr(&c, size);
		ASSERT_TRUE(rc_ok(&c));
		/* The size field and the record end 8-byte aligned. */
		EXPECT_EQ((size + 4) % 8, 0);
		EXPECT_EQ(*(const uint16_t *)rec, id);
		memcpy(&sig, rec + sig_off, sizeof(sig));
		EXPECT_EQ(sig, i < 2 ? SIGUSR1 : SIGUSR2);
	}
	rb_unmap(&rb);
}

/* Open a counting event on tracepoint @sys/@name; -2 if it is absent. */
static int open_tp(const char *sys, const char *name)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(attr),
		.disabled = 1,
	};
	long id = tp_id(sys, name);

	if (id < 0)
		return -2;
	attr.config = id;
	return sys_perf_event_open(&attr, 0, -1, -1, 0);
}

/*
 * System call tracepoints: syscalls:sys_enter_getppid counts each call,
 * and raw_syscalls:sys_enter, every system call, counts the same once
 * filtered on the call's number (110 on x86_64).
 */
TEST_F(tp, syscall_tracepoints_count_calls)
{
	int fd2, i;

	self->fd = open_tp("syscalls", "sys_enter_getppid");
	if (self->fd == -2)
		SKIP(return, "no system call tracepoints (CONFIG_FTRACE_SYSCALLS)");
	ASSERT_GE(self->fd, 0) TH_LOG("%s", strerror(errno));
	fd2 = open_tp("raw_syscalls", "sys_enter");
	ASSERT_GE(fd2, 0) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(ioctl(fd2, PERF_EVENT_IOC_SET_FILTER, "id == 110"), 0);
	ASSERT_EQ(ioctl(self->fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	ASSERT_EQ(ioctl(fd2, PERF_EVENT_IOC_ENABLE, 0), 0);
	for (i = 0; i < 9; i++)
		syscall(SYS_getppid);
	ASSERT_EQ(ioctl(fd2, PERF_EVENT_IOC_DISABLE, 0), 0);
	ASSERT_EQ(ioctl(self->fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	EXPECT_EQ(read_count(self->fd), 9);
	EXPECT_EQ(read_count(fd2), 9);
	close(fd2);
}

/*
 * sched:sched_stat_sleep fires when a sleeper wakes, in the waker's
 * context (here the timer interrupt, on whatever task it interrupts),
 * names the sleeper, and counts the time it slept.  The sleeper's own
 * events count it too, but only those bound to the CPU it fires on, as
 * upstream delivers it; and only as counts, since an event that is not
 * running takes no samples.  Both events below count the same hits while
 * the task runs on CPU 0; the one bound to CPU 0 also counts the task's
 * own sleeps, at least 2 ms each.  A sleep whose timer fires before the
 * task left the CPU is no sleep, so only one of them is sure to count.
 */
TEST_F(tp, sched_stat_reaches_the_sleeper_on_its_cpu)
{
	struct timespec ms = { 0, 2000000 };
	long id = tp_id("sched", "sched_stat_sleep"), old;
	struct perf_event_attr attr = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(attr),
		.disabled = 1,
	};
	uint64_t bound, any;
	int i, fd2;

	if (id < 0)
		SKIP(return, NO_TRACING);
	if (read_sysctl("sched_schedstats", &old))
		SKIP(return, "no scheduler statistics (CONFIG_SCHEDSTATS)");
	ASSERT_EQ(pin_to_cpu(0), 0);
	attr.config = id;
	self->fd = sys_perf_event_open(&attr, 0, 0, -1, 0);
	ASSERT_GE(self->fd, 0) TH_LOG("%s", strerror(errno));
	fd2 = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(fd2, 0) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(write_sysctl("sched_schedstats", 1), 0);
	ASSERT_EQ(ioctl(self->fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	ASSERT_EQ(ioctl(fd2, PERF_EVENT_IOC_ENABLE, 0), 0);
	for (i = 0; i < 20; i++)
		nanosleep(&ms, NULL);
	ASSERT_EQ(ioctl(fd2, PERF_EVENT_IOC_DISABLE, 0), 0);
	ASSERT_EQ(ioctl(self->fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	write_sysctl("sched_schedstats", old);
	bound = read_count(self->fd);
	any = read_count(fd2);
	close(fd2);
	ASSERT_GE(bound, any);
	EXPECT_GE(bound - any, 2000000) TH_LOG("bound to CPU 0: %llu ns, any CPU: %llu ns",
					       (unsigned long long)bound,
					       (unsigned long long)any);
}

/*
 * ftrace:function, the function tracer as a perf event.  Opening it
 * enables tracing on every kernel function until a filter narrows it to
 * the functions named: the kernel rewrites every call site while the
 * other CPUs run.
 */
/* getppid()'s body: the wrapper __x64_sys_getppid is not traceable. */
#define KFUNC "__do_sys_getppid"

static int open_function(int type_sampling, uint64_t sample_type, int excl_cu)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(attr),
		.sample_period = type_sampling,
		.sample_type = sample_type,
		.exclude_callchain_user = excl_cu,
		.disabled = 1,
	};
	long id = tp_id("ftrace", "function");

	if (id < 0)
		return -2;
	attr.config = id;
	return sys_perf_event_open(&attr, 0, -1, -1, 0);
}

/* Refused before any tracing starts: these run on any number of CPUs. */
TEST_F(tp, function_refuses_user_callchains)
{
	self->fd = open_function(1, PERF_SAMPLE_CALLCHAIN, 0);
	if (self->fd == -2)
		SKIP(return, NO_TRACING);
	EXPECT_EQ(self->fd, -1);
	EXPECT_EQ(errno, EINVAL);
	self->fd = open_function(1, PERF_SAMPLE_STACK_USER, 1);
	EXPECT_EQ(self->fd, -1);
	EXPECT_EQ(errno, EINVAL);
}

static int try_function(void *arg)
{
	int fd = open_function(0, 0, 0);

	return fd >= 0 ? 0 : errno;
}

TEST_F(tp, function_needs_privilege)
{
	if (tp_id("ftrace", "function") < 0)
		SKIP(return, NO_TRACING);
	EXPECT_EQ(run_unprivileged(try_function, NULL), EPERM);
}

/*
 * A filter "ip == FUNCTION" narrows the event to one function: each
 * getppid() is one hit, and a sample's raw record holds the function's
 * address and its caller's.
 */
TEST_F(tp, function_counts_filtered_function)
{
	uint64_t addr = ksym_addr(KFUNC);
	struct perf_rb rb;
	int i;

	self->fd = open_function(1, PERF_SAMPLE_RAW, 1);
	if (self->fd == -2)
		SKIP(return, NO_TRACING);
	ASSERT_GE(self->fd, 0) TH_LOG("%s", strerror(errno));
	ASSERT_NE(addr, 0);
	EXPECT_EQ(ioctl(self->fd, PERF_EVENT_IOC_SET_FILTER, "ip == no_such_function_x"), -1);
	EXPECT_EQ(errno, EINVAL);
	ASSERT_EQ(ioctl(self->fd, PERF_EVENT_IOC_SET_FILTER, "ip == " KFUNC), 0)
		TH_LOG("%s", strerror(errno));
	ASSERT_EQ(rb_map(&rb, self->fd, 4), 0);
	ASSERT_EQ(ioctl(self->fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	for (i = 0; i < 6; i++)
		syscall(SYS_getppid);
	ASSERT_EQ(ioctl(self->fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	EXPECT_EQ(read_count(self->fd), 6);
	rb_fetch(&rb);
	EXPECT_EQ(rb_count(&rb, PERF_RECORD_SAMPLE), 6);
	/* struct trace_entry (8 bytes), then ip and parent_ip. */
	EXPECT_EQ(rb_raw_u64_in(&rb, 8, addr, addr + 16), 6);
	rb_unmap(&rb);
}

TEST_HARNESS_MAIN
