// SPDX-License-Identifier: GPL-2.0
/*
 * perf_test_aux: an AUX area tracer for testing the core's AUX area.
 *
 * Each time one of its events stops (scheduled out, disabled, the area
 * unmapped), it writes attr.config bytes of "trace" into the event's AUX
 * area: 64-bit words, each the word's own running position in the area
 * (its byte offset from the area's start, counting every wrap, divided
 * by 8), so user space can check every word of what it reads.  With a
 * tail it writes the words that fit and flags the rest TRUNCATED (the
 * core keeps a byte free: a full area has 7 bytes of room); in a snapshot
 * area it writes it all, round and round.  Its count is the bytes it
 * wrote.  It never interrupts: sampling events are refused.
 *
 * It says PERF_PMU_CAP_ITRACE, so the core logs PERF_RECORD_ITRACE_START
 * at each schedule in; and reports AUX_OUTPUT_HW_ID 0x7e57 at its
 * first start, as drivers that name their data do.
 *
 * Context: add/del/start/stop run on the event's CPU with interrupts
 * off; the handle of the one event a CPU runs at a time is per CPU.
 * setup_aux()/free_aux() run in process context (mapping, unmapping).
 */
#include <linux/sizes.h>
#include <linux/slab.h>

#include "internal.h"

#define TEST_AUX_MAX_BYTES	SZ_1M
#define TEST_AUX_HW_ID		0x7e57
/* hw.flags: the event has reported its hardware id. */
#define TEST_AUX_REPORTED	BIT(0)

struct test_aux_area {
	void		**pages;
	int		nr_pages;
	bool		snapshot;
};

struct test_aux_cpu {
	struct perf_event		*event;	/* the one event on this CPU */
	struct perf_output_handle	handle;
};

static DEFINE_PER_CPU(struct test_aux_cpu, test_aux_cpu);

static struct pmu perf_test_aux_pmu;

static int test_aux_event_init(struct perf_event *event)
{
	if (event->attr.type != perf_test_aux_pmu.type)
		return -ENOENT;
	if (!event->attr.config || event->attr.config > TEST_AUX_MAX_BYTES ||
	    event->attr.config % 8)
		return -EINVAL;
	return 0;
}

static void *test_aux_setup(struct perf_event *event, void **pages,
			    int nr_pages, bool overwrite)
{
	struct test_aux_area *area = kzalloc(sizeof(*area), GFP_KERNEL);

	if (!area)
		return NULL;
	area->pages = kmemdup(pages, nr_pages * sizeof(void *), GFP_KERNEL);
	if (!area->pages) {
		kfree(area);
		return NULL;
	}
	area->nr_pages = nr_pages;
	area->snapshot = overwrite;
	return area;
}

static void test_aux_free(void *aux)
{
	struct test_aux_area *area = aux;

	kfree(area->pages);
	kfree(area);
}

/* The word of running position @pos (bytes) goes at @pos in the area. */
static void test_aux_put(struct test_aux_area *area, unsigned long pos)
{
	unsigned long size = (unsigned long)area->nr_pages << PAGE_SHIFT;
	unsigned long at = pos & (size - 1);
	u64 *word = area->pages[at >> PAGE_SHIFT] + offset_in_page(at);

	*word = pos / 8;
}

static void test_aux_start(struct perf_event *event, int flags)
{
	struct test_aux_cpu *tc = this_cpu_ptr(&test_aux_cpu);

	event->hw.state = PERF_HES_STOPPED;
	if (!perf_aux_output_begin(&tc->handle, event))
		return;
	if (!(event->hw.flags & TEST_AUX_REPORTED)) {
		event->hw.flags |= TEST_AUX_REPORTED;
		perf_report_aux_output_id(event, TEST_AUX_HW_ID);
	}
	event->hw.state = 0;
}

static void test_aux_stop(struct perf_event *event, int flags)
{
	struct test_aux_cpu *tc = this_cpu_ptr(&test_aux_cpu);
	struct test_aux_area *area;
	unsigned long want = event->attr.config, n, i;

	if (event->hw.state & PERF_HES_STOPPED)
		return;
	event->hw.state = PERF_HES_STOPPED;
	area = perf_get_aux(&tc->handle);
	if (WARN_ON_ONCE(!area))
		return;
	n = area->snapshot ? want : min(want, tc->handle.size & ~7UL);
	for (i = 0; i < n; i += 8)
		test_aux_put(area, tc->handle.head + i);
	if (n < want)
		perf_aux_output_flag(&tc->handle, PERF_AUX_FLAG_TRUNCATED);
	local64_add(n, &event->count);
	/* A snapshot area's head is where the writing got to. */
	if (area->snapshot)
		tc->handle.head += n;
	/* The words before the head moves: user space reads them after. */
	smp_wmb();
	perf_aux_output_end(&tc->handle, n);
}

static int test_aux_add(struct perf_event *event, int flags)
{
	struct test_aux_cpu *tc = this_cpu_ptr(&test_aux_cpu);

	if (tc->event)
		return -EBUSY;
	tc->event = event;
	event->hw.state = PERF_HES_STOPPED;
	if (flags & PERF_EF_START)
		test_aux_start(event, flags);
	return 0;
}

static void test_aux_del(struct perf_event *event, int flags)
{
	struct test_aux_cpu *tc = this_cpu_ptr(&test_aux_cpu);

	test_aux_stop(event, flags);
	tc->event = NULL;
}

static void test_aux_read(struct perf_event *event)
{
}

static struct pmu perf_test_aux_pmu = {
	.task_ctx_nr	= perf_hw_context,
	.capabilities	= PERF_PMU_CAP_NO_INTERRUPT | PERF_PMU_CAP_NO_NMI |
			  PERF_PMU_CAP_ITRACE,
	.event_init	= test_aux_event_init,
	.add		= test_aux_add,
	.del		= test_aux_del,
	.start		= test_aux_start,
	.stop		= test_aux_stop,
	.read		= test_aux_read,
	.setup_aux	= test_aux_setup,
	.free_aux	= test_aux_free,
};

/**
 * perf_test_aux_register - register the perf_test_aux PMU; boot only
 */
void __init perf_test_aux_register(void)
{
	WARN_ON(perf_pmu_register(&perf_test_aux_pmu, "perf_test_aux", -1));
}
