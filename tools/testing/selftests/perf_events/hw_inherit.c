// SPDX-License-Identifier: GPL-2.0
/*
 * Hardware groups inherited by children, on QEMU's emulated x86 PMU
 * (PERFTEST_PMU; hw.c says what it counts).  perf record opens one
 * inherited group per CPU for its workload, so a forking workload's
 * children get copies of hardware groups bound to CPUs they reach only
 * later; perf stat opens inherited groups for any CPU.  A hardware PMU
 * checks that a new member fits its group when the member is created,
 * copies included, so these are the paths the software-event tests of
 * inherit.c and multi_cpu.c cannot reach.
 *
 * Each child runs spin(), whose user instructions are known; the
 * emulated PMU counts a cycle per instruction, so a group's cycles and
 * instructions agree to the instruction in user mode.
 */
#include <sys/ioctl.h>
#include <sys/wait.h>
#include "../kselftest_harness.h"
#include "perf_util.h"
#include "perf_rb.h"
#include "hw_util.h"

#define LOOP	1000000UL	/* spin(LOOP): 2,000,000 user instructions */
/*
 * A sample every PERIOD user instructions: 20 in a loop, with 20,000
 * instructions to spare, so that the last one never waits on what
 * follows the loop (a PMI late by an instruction under -icount, a
 * child's exit).
 */
#define PERIOD	99000
#define NCHILD	4
#define MAXCPU	64

FIXTURE(hw_inherit) {
	int leader[MAXCPU], sibling[MAXCPU], n;
	struct perf_rb rb[MAXCPU];
	int mapped;
	struct hw_rate rate;
};

FIXTURE_SETUP(hw_inherit)
{
	const char *why;
	int fail, i;

	self->n = nr_cpus();
	self->mapped = 0;
	self->rate.saved = 0;
	for (i = 0; i < MAXCPU; i++) {
		self->leader[i] = -1;
		self->sibling[i] = -1;
	}
	why = hw_unavailable(&fail);
	if (why) {
		ASSERT_FALSE(fail) TH_LOG("%s", why);
		SKIP(return, "%s", why);
	}
	ASSERT_LE(self->n, MAXCPU);
}

FIXTURE_TEARDOWN(hw_inherit)
{
	int i;

	hw_rethrottle(&self->rate);
	for (i = 0; i < self->n; i++) {
		if (self->mapped)
			rb_unmap(&self->rb[i]);
		if (self->sibling[i] >= 0)
			close(self->sibling[i]);
		if (self->leader[i] >= 0)
			close(self->leader[i]);
	}
}

/*
 * An inherited group of user instructions (leading, sampling every
 * @period when it is not 0) and user cycles on the calling task, bound to
 * @cpu (-1: any), enabled.
 */
static int open_group(int cpu, uint64_t period, int *leader, int *sibling)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_HARDWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_HW_INSTRUCTIONS,
		.sample_period = period,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.inherit = 1,
	};

	*leader = sys_perf_event_open(&attr, 0, cpu, -1, 0);
	if (*leader < 0)
		return -1;
	attr.config = PERF_COUNT_HW_CPU_CYCLES;
	attr.sample_period = 0;
	*sibling = sys_perf_event_open(&attr, 0, cpu, *leader, 0);
	return *sibling < 0 ? -1 : 0;
}

/* A group per CPU, as perf record opens for its workload. */
static int open_per_cpu(FIXTURE_DATA(hw_inherit) *self, uint64_t period)
{
	int i;

	for (i = 0; i < self->n; i++)
		if (open_group(i, period, &self->leader[i], &self->sibling[i]))
			return -1;
	return 0;
}

/*
 * The child's work: move to @cpu (unless -1), spin, and fork @depth more
 * generations that do the same, each waited for.  0 when all went well.
 */
static int spin_and_fork(int cpu, int depth)
{
	pid_t pid;

	if (cpu >= 0 && (pin_to_cpu(cpu) || sched_getcpu() != cpu))
		return 1;
	spin(LOOP);
	if (!depth)
		return 0;
	pid = fork();
	if (pid < 0)
		return 1;
	if (!pid)
		_exit(spin_and_fork(cpu, depth - 1));
	return reap_child(pid) ? 1 : 0;
}

/* Fork a child running spin_and_fork(@cpu, @depth); its exit status. */
static int run_spinner(int cpu, int depth)
{
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid)
		_exit(spin_and_fork(cpu, depth));
	return reap_child(pid);
}

/* The samples of each task, for the log when some are missing. */
struct task_samples {
	int n;
	pid_t pid[2 * NCHILD + 1];
	int samples[2 * NCHILD + 1];
	int lost;
};

static void task_sample(struct task_samples *t, pid_t pid)
{
	int i;

	for (i = 0; i < t->n; i++)
		if (t->pid[i] == pid)
			break;
	if (i == t->n) {
		if (t->n == ARRAY_SIZE(t->pid))
			return;
		t->pid[t->n] = pid;
		t->samples[t->n++] = 0;
	}
	t->samples[i]++;
}

/*
 * Samples in @rb, and how many of them name a task other than @self;
 * each task's in @t, with the LOST records' count.
 */
static int count_samples(struct perf_rb *rb, pid_t self, int *others,
			 struct task_samples *t)
{
	struct perf_event_header *h;
	int n = 0;

	if (rb_fetch(rb) < 0)
		return -1;
	while ((h = rb_next(rb))) {
		struct rec_cur c = rc_init(h);
		pid_t pid;

		if (h->type == PERF_RECORD_LOST) {
			rc_u64(&c);		/* id */
			t->lost += rc_u64(&c);
		}
		if (h->type != PERF_RECORD_SAMPLE)
			continue;
		n++;
		rc_u64(&c);			/* ip */
		pid = rc_u32(&c);		/* pid, then tid */
		task_sample(t, pid);
		if (pid != self)
			(*others)++;
	}
	return n;
}

/*
 * A child forked on CPU 0 moves to CPU 1, where its copy of CPU 1's
 * group is made only then; it and a grandchild it forks there count
 * their loops in both members of that group.
 */
TEST_F(hw_inherit, per_cpu_group_copied_on_arrival)
{
	uint64_t ins, cyc;

	if (self->n < 2)
		SKIP(return, "needs two CPUs");
	ASSERT_EQ(pin_to_cpu(0), 0);
	ASSERT_EQ(open_per_cpu(self, 0), 0);
	ASSERT_EQ(run_spinner(1, 1), 0);
	ins = read_count(self->leader[1]);
	cyc = read_count(self->sibling[1]);
	EXPECT_GE(ins, 2 * 2 * LOOP) TH_LOG("instructions on CPU 1: %llu",
					    (unsigned long long)ins);
	EXPECT_GE(cyc, 2 * 2 * LOOP) TH_LOG("cycles on CPU 1: %llu",
					    (unsigned long long)cyc);
	/* Both members ran together: user cycles are user instructions. */
	EXPECT_LE(ins > cyc ? ins - cyc : cyc - ins, ins / 100);
}

/*
 * perf record's case: a sampling hardware group per CPU, inherited by a
 * forking workload whose children start where their parent runs and
 * move.  Every child's samples reach the buffers, and the counts add up
 * to every child's loop.
 */
TEST_F(hw_inherit, per_cpu_sampling_groups_in_forking_workload)
{
	struct task_samples t = { 0 };
	uint64_t ins = 0;
	int i, samples = 0, others = 0, r;

	if (self->n < 2)
		SKIP(return, "needs two CPUs");
	ASSERT_EQ(hw_unthrottle(&self->rate), 0);
	ASSERT_EQ(pin_to_cpu(0), 0);
	ASSERT_EQ(open_per_cpu(self, PERIOD), 0);
	for (i = 0; i < self->n; i++)
		ASSERT_EQ(rb_map(&self->rb[i], self->leader[i], 16), 0);
	self->mapped = 1;
	for (i = 0; i < NCHILD; i++)
		ASSERT_EQ(run_spinner(i % self->n, 1), 0);
	for (i = 0; i < self->n; i++) {
		ASSERT_EQ(ioctl(self->leader[i], PERF_EVENT_IOC_DISABLE, 0), 0);
		ins += read_count(self->leader[i]);
		r = count_samples(&self->rb[i], getpid(), &others, &t);
		ASSERT_GE(r, 0);
		samples += r;
	}
	EXPECT_GE(ins, NCHILD * 2 * 2 * LOOP);
	/* Each of the 8 loops wraps the period 20 times, and a little more. */
	EXPECT_GE(samples, NCHILD * 2 * (2 * LOOP / PERIOD));
	EXPECT_GE(others, NCHILD * 2 * (2 * LOOP / PERIOD));
	if (samples < NCHILD * 2 * (2 * LOOP / PERIOD)) {
		TH_LOG("%d samples lost (LOST records)", t.lost);
		for (i = 0; i < t.n; i++)
			TH_LOG("task %d: %d samples", t.pid[i], t.samples[i]);
	}
}

/*
 * An inherited group for any CPU (perf stat's): children and
 * grandchildren on every CPU fold their counts back into it.
 */
TEST_F(hw_inherit, task_group_in_children_and_grandchildren)
{
	uint64_t ins, cyc;
	int i;

	ASSERT_EQ(open_group(-1, 0, &self->leader[0], &self->sibling[0]), 0);
	for (i = 0; i < NCHILD; i++)
		ASSERT_EQ(run_spinner(self->n > 1 ? i % self->n : -1, 1), 0);
	ins = read_count(self->leader[0]);
	cyc = read_count(self->sibling[0]);
	EXPECT_GE(ins, NCHILD * 2 * 2 * LOOP);
	EXPECT_LE(ins > cyc ? ins - cyc : cyc - ins, ins / 100)
		TH_LOG("instructions %llu, cycles %llu",
		       (unsigned long long)ins, (unsigned long long)cyc);
}

TEST_HARNESS_MAIN
