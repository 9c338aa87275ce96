// SPDX-License-Identifier: GPL-2.0
/*
 * perf_test: a PMU with two counters per CPU, for testing the core.
 *
 * Software PMUs never run out of room, so they never make the core put
 * pinned groups in the ERROR state, run exclusive groups alone or
 * multiplex.  This PMU does run out: each CPU has PERF_TEST_COUNTERS
 * counters, and an event needs one while it is on the PMU.  What an event
 * counts is nanoseconds of CPU clock while it holds a counter, so its
 * count equals its time_running and user space can check scaling exactly.
 *
 * Groups are added in a transaction: counters are claimed as members are
 * added, but nothing starts counting until the whole group is on, so a
 * group that does not fit counts nothing at all (as on real hardware).
 *
 * Context: add/del/start/stop/read and the transaction callbacks run on
 * the counter's CPU with interrupts off (the core's rule); the per-CPU
 * state needs no other lock.  It has no interrupt, so sampling events are
 * refused.
 *
 * Like a hardware PMU, it names the counter an event last used as the
 * index user space would read with rdpmc (event_idx, counter + 1), and
 * keeps naming it after the event left the counter: the core must only
 * publish it while the event is on the PMU.
 */
#include <linux/sched/clock.h>

#include "internal.h"

#define PERF_TEST_COUNTERS	2

struct test_pmu_cpu {
	unsigned long		used;		/* counters taken */
	unsigned int		txn_flags;	/* open transaction, if any */
	int			nr_pending;	/* added in the transaction */
	struct perf_event	*pending[PERF_TEST_COUNTERS];
};

static DEFINE_PER_CPU(struct test_pmu_cpu, test_pmu_cpu);

static struct pmu perf_test_pmu;

static int test_pmu_event_init(struct perf_event *event)
{
	if (event->attr.type != perf_test_pmu.type)
		return -ENOENT;
	if (event->attr.config)
		return -EINVAL;
	if (has_branch_stack(event))
		return -EOPNOTSUPP;
	event->hw.idx = -1;
	return 0;
}

static void test_pmu_update(struct perf_event *event)
{
	u64 now = local_clock();
	u64 prev = local64_xchg(&event->hw.prev_count, now);

	local64_add(now - prev, &event->count);
}

static void test_pmu_start(struct perf_event *event, int flags)
{
	local64_set(&event->hw.prev_count, local_clock());
	event->hw.state = 0;
}

static void test_pmu_stop(struct perf_event *event, int flags)
{
	if (event->hw.state & PERF_HES_STOPPED)
		return;
	test_pmu_update(event);
	event->hw.state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
}

static int test_pmu_add(struct perf_event *event, int flags)
{
	struct test_pmu_cpu *tc = this_cpu_ptr(&test_pmu_cpu);
	int idx = find_first_zero_bit(&tc->used, PERF_TEST_COUNTERS);

	if (idx >= PERF_TEST_COUNTERS)
		return -EAGAIN;
	__set_bit(idx, &tc->used);
	event->hw.idx = idx;
	event->hw.event_base_rdpmc = idx + 1;
	event->hw.state = PERF_HES_STOPPED;
	if (!(flags & PERF_EF_START))
		return 0;
	if (tc->txn_flags & PERF_PMU_TXN_ADD)
		tc->pending[tc->nr_pending++] = event;	/* starts at commit */
	else
		test_pmu_start(event, flags);
	return 0;
}

static void test_pmu_del(struct perf_event *event, int flags)
{
	test_pmu_stop(event, flags);
	__clear_bit(event->hw.idx, &this_cpu_ptr(&test_pmu_cpu)->used);
	event->hw.idx = -1;
}

static void test_pmu_start_txn(struct pmu *pmu, unsigned int txn_flags)
{
	struct test_pmu_cpu *tc = this_cpu_ptr(&test_pmu_cpu);

	tc->txn_flags = txn_flags;
	tc->nr_pending = 0;
}

static int test_pmu_commit_txn(struct pmu *pmu)
{
	struct test_pmu_cpu *tc = this_cpu_ptr(&test_pmu_cpu);
	int i;

	for (i = 0; i < tc->nr_pending; i++)
		test_pmu_start(tc->pending[i], PERF_EF_START);
	tc->txn_flags = 0;
	tc->nr_pending = 0;
	return 0;
}

/* The core has already taken the members off (del) when it cancels. */
static void test_pmu_cancel_txn(struct pmu *pmu)
{
	struct test_pmu_cpu *tc = this_cpu_ptr(&test_pmu_cpu);

	tc->txn_flags = 0;
	tc->nr_pending = 0;
}

static void test_pmu_read(struct perf_event *event)
{
	if (!(event->hw.state & PERF_HES_STOPPED))
		test_pmu_update(event);
}

/* The counter the event was last on, + 1; 0 before it ever was. */
static int test_pmu_event_idx(struct perf_event *event)
{
	return event->hw.event_base_rdpmc;
}

static struct pmu perf_test_pmu = {
	.task_ctx_nr	= perf_hw_context,
	.capabilities	= PERF_PMU_CAP_NO_INTERRUPT | PERF_PMU_CAP_NO_NMI,
	.event_init	= test_pmu_event_init,
	.add		= test_pmu_add,
	.del		= test_pmu_del,
	.start		= test_pmu_start,
	.stop		= test_pmu_stop,
	.read		= test_pmu_read,
	.event_idx	= test_pmu_event_idx,
	.start_txn	= test_pmu_start_txn,
	.commit_txn	= test_pmu_commit_txn,
	.cancel_txn	= test_pmu_cancel_txn,
};

/**
 * perf_test_pmu_register - register the perf_test PMU; boot only
 */
void __init perf_test_pmu_register(void)
{
	WARN_ON(perf_pmu_register(&perf_test_pmu, "perf_test", -1));
}

/**
 * perf_test_pmu_type - the type number of the perf_test PMU
 *
 * Return: the type, for tests that create events on it.
 */
int perf_test_pmu_type(void)
{
	return perf_test_pmu.type;
}
