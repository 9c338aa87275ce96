// SPDX-License-Identifier: GPL-2.0-only
/*
 * intel_bts: the branch trace store of Intel cores, an AUX area tracer.
 *
 * While IA32_DEBUGCTL has TR and BTS set, the CPU stores a 24-byte
 * record (from, to, flags) for each branch it takes into the buffer its
 * debug store describes: the bts_* fields of cpu_debug_store, the
 * buffer's base, the index of the next record, the absolute maximum
 * (past which nothing is stored while BTINT is set; without BTINT the
 * buffer is circular) and the interrupt threshold (a PMI when the index
 * reaches it, with no GLOBAL_STATUS bit).  BTS_OFF_OS and BTS_OFF_USR
 * leave the kernel's and user space's branches out.
 *
 * The buffer is the event's AUX area, mapped once more into the kernel's
 * vmalloc space (vmap()) so that the CPU sees it as one buffer, whatever
 * chunks the core allocated it in.
 *
 * - An area with a tail: the CPU writes a window from the head, as long
 *   as the room perf_aux_output_begin() gives (less the bytes at the
 *   area's end that no record fits in, skipped) and no further than the
 *   next wakeup; BTINT set, the threshold a margin before the window's
 *   end.  The PMI ends the handle with what was written and begins the
 *   next window; a window written to its end lost records (TRUNCATED,
 *   and the core disables the event).
 * - A snapshot area (mapped read-only): the window is the whole area's
 *   records, circular, the threshold past the maximum (no PMI).  When
 *   the event stops, the head is where the CPU got to, an offset into
 *   the area, and the record says the whole area, as upstream's driver
 *   does.
 *
 * The PMI stops tracing while it runs (the PMI's own branches are not
 * the traced code's) and starts it again as it leaves (x86_pmi(),
 * through the vendor's trace_pmi and trace_resume).
 *
 * It needs the debug store intel_pebs.c points the CPU at, and is not
 * registered under page table isolation: the CPU writes the buffer
 * through whatever page tables are loaded, and user space's do not map
 * the vmalloc space (upstream refuses it there too).  Every event is
 * kernel-privileged (perf_allow_kernel()): branch records show kernel
 * addresses even with BTS_OFF_OS, as upstream says.
 *
 * The LBR's users and BTS exclude each other (x86_branches_get(), EBUSY
 * as upstream): both change IA32_DEBUGCTL, BTS from the PMI too.  The
 * sampler of branch events with a period of one (intel_bts_sample.c)
 * uses the same store and counts as one of the LBR's users, as
 * upstream's; the PMI hooks here serve it too.
 *
 * Locking: one event a CPU (PERF_PMU_CAP_EXCLUSIVE, and add() refuses a
 * second); the per-CPU state and the CPU's registers are changed on
 * their CPU with interrupts off (add, del, start, stop, the PMI).
 * setup_aux() and free_aux() run in process context.
 */
#include <linux/kprobes.h>
#include <linux/perf_event.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include <asm/apic.h>
#include <asm/debugreg.h>
#include <asm/intel_ds.h>

#include "intel_bts.h"

#define BTS_RECORD		24
/* The threshold's distance from a window's end: room for a late PMI. */
#define BTS_MARGIN		(170 * BTS_RECORD)
#define BTS_DEBUGCTL		(DEBUGCTLMSR_TR | DEBUGCTLMSR_BTS | \
				 DEBUGCTLMSR_BTINT | DEBUGCTLMSR_BTS_OFF_OS | \
				 DEBUGCTLMSR_BTS_OFF_USR)

/* An event's AUX area, as the CPU writes it. */
struct bts_area {
	void		*base;		/* the vmap() of the area */
	unsigned long	size;		/* the area's bytes, 2^n pages */
	unsigned long	records;	/* its bytes that whole records fill */
	bool		snapshot;
};

/* A CPU's tracing. */
struct bts_cpu {
	struct perf_output_handle	handle;	/* a window is open */
	struct perf_event		*event;	/* added here */
	u64				window;	/* the window's base */
	bool				on;	/* IA32_DEBUGCTL traces */
	bool				paused;	/* by the PMI */
};

static DEFINE_PER_CPU(struct bts_cpu, bts_cpu);

static bool bts_possible __ro_after_init;
static struct pmu bts_pmu;

static void *bts_setup_aux(struct perf_event *event, void **pages,
			   int nr_pages, bool overwrite)
{
	struct page **array;
	struct bts_area *area;
	int i;

	area = kzalloc_node(sizeof(*area), GFP_KERNEL,
			    event->cpu < 0 ? NUMA_NO_NODE : cpu_to_node(event->cpu));
	array = kmalloc_array(nr_pages, sizeof(*array), GFP_KERNEL);
	if (!area || !array)
		goto fail;
	for (i = 0; i < nr_pages; i++)
		array[i] = virt_to_page(pages[i]);
	area->base = vmap(array, nr_pages, VM_MAP, PAGE_KERNEL);
	if (!area->base)
		goto fail;
	kfree(array);
	area->size = (unsigned long)nr_pages << PAGE_SHIFT;
	area->records = area->size - area->size % BTS_RECORD;
	area->snapshot = overwrite;
	return area;
fail:
	kfree(array);
	kfree(area);
	return NULL;
}

static void bts_free_aux(void *aux)
{
	struct bts_area *area = aux;

	vunmap(area->base);
	kfree(area);
}

/*
 * Point the debug store at the next window of the open handle's area.
 * Return: 0, or -ENOSPC when not a record fits before the tail.
 */
static int bts_window(struct bts_cpu *bc, struct bts_area *area)
{
	struct debug_store *ds = this_cpu_ptr(&cpu_debug_store);
	struct perf_output_handle *h = &bc->handle;
	unsigned long pos = h->head & (area->size - 1), len, thresh;

	if (area->snapshot) {
		bc->window = (u64)area->base;
		ds->bts_buffer_base = bc->window;
		ds->bts_index = bc->window + (pos < area->records ? pos : 0);
		ds->bts_absolute_maximum = bc->window + area->records;
		ds->bts_interrupt_threshold = ds->bts_absolute_maximum + BTS_RECORD;
		return 0;
	}
	/* No record fits at the area's end: on from its start. */
	if (area->size - pos < BTS_RECORD) {
		if (perf_aux_output_skip(h, area->size - pos))
			return -ENOSPC;
		pos = 0;
	}
	len = min(h->size, area->size - pos);
	/* No further than the next wakeup, so readers get data on time. */
	if (h->wakeup > h->head)
		len = min(len, roundup(h->wakeup - h->head, BTS_RECORD));
	len -= len % BTS_RECORD;
	if (!len)
		return -ENOSPC;
	/* A record short of the end in a small window: a full one lost some. */
	if (len > BTS_MARGIN)
		thresh = len - BTS_MARGIN;
	else if (len > BTS_RECORD)
		thresh = len - BTS_RECORD;
	else
		thresh = len;
	bc->window = (u64)area->base + pos;
	ds->bts_buffer_base = bc->window;
	ds->bts_index = bc->window;
	ds->bts_absolute_maximum = bc->window + len;
	ds->bts_interrupt_threshold = bc->window + thresh;
	return 0;
}

/**
 * intel_bts_trace - store the branches of @event's privilege levels
 * @event: the event the store is for
 * @snapshot: round and round, without an interrupt (else BTINT: the
 *	store stops at the absolute maximum and interrupts at the
 *	threshold)
 */
void intel_bts_trace(struct perf_event *event, bool snapshot)
{
	u64 ctl = get_debugctlmsr() & ~BTS_DEBUGCTL;

	ctl |= DEBUGCTLMSR_TR | DEBUGCTLMSR_BTS;
	if (!snapshot)
		ctl |= DEBUGCTLMSR_BTINT;
	if (event->attr.exclude_kernel)
		ctl |= DEBUGCTLMSR_BTS_OFF_OS;
	if (event->attr.exclude_user)
		ctl |= DEBUGCTLMSR_BTS_OFF_USR;
	update_debugctlmsr(ctl);
}

NOKPROBE_SYMBOL(intel_bts_trace);

/**
 * intel_bts_untrace - stop storing branches
 */
void intel_bts_untrace(void)
{
	update_debugctlmsr(get_debugctlmsr() & ~BTS_DEBUGCTL);
}

NOKPROBE_SYMBOL(intel_bts_untrace);

/* Close the open window: what the CPU wrote goes to user space. */
static void bts_close(struct bts_cpu *bc)
{
	struct debug_store *ds = this_cpu_ptr(&cpu_debug_store);
	struct bts_area *area = perf_get_aux(&bc->handle);

	if (area->snapshot) {
		bc->handle.head = ds->bts_index - (u64)area->base;
		perf_aux_output_end(&bc->handle, area->size);
		return;
	}
	if (ds->bts_index >= ds->bts_absolute_maximum)
		perf_aux_output_flag(&bc->handle, PERF_AUX_FLAG_TRUNCATED);
	perf_aux_output_end(&bc->handle, ds->bts_index - bc->window);
}

static void bts_start(struct perf_event *event, int flags)
{
	struct bts_cpu *bc = this_cpu_ptr(&bts_cpu);
	struct bts_area *area;

	event->hw.state = PERF_HES_STOPPED;
	area = perf_aux_output_begin(&bc->handle, event);
	if (!area)
		return;
	if (bts_window(bc, area)) {
		perf_aux_output_end(&bc->handle, 0);
		return;
	}
	perf_event_itrace_started(event);
	event->hw.state = 0;
	bc->on = true;
	bc->paused = false;
	intel_bts_trace(event, area->snapshot);
}

static void bts_stop(struct perf_event *event, int flags)
{
	struct bts_cpu *bc = this_cpu_ptr(&bts_cpu);

	if (bc->on) {
		intel_bts_untrace();
		bc->on = false;
	}
	event->hw.state |= PERF_HES_STOPPED;
	if (bc->handle.event)
		bts_close(bc);
}

static int bts_add(struct perf_event *event, int flags)
{
	struct bts_cpu *bc = this_cpu_ptr(&bts_cpu);

	if (bc->event)
		return -EBUSY;
	bc->event = event;
	event->hw.state = PERF_HES_STOPPED;
	if (flags & PERF_EF_START) {
		bts_start(event, flags);
		if (event->hw.state & PERF_HES_STOPPED) {
			bc->event = NULL;
			return -EINVAL;
		}
	}
	return 0;
}

static void bts_del(struct perf_event *event, int flags)
{
	bts_stop(event, PERF_EF_UPDATE);
	this_cpu_ptr(&bts_cpu)->event = NULL;
}

static void bts_read(struct perf_event *event)
{
}

static void bts_event_destroy(struct perf_event *event)
{
	x86_branches_put(X86_BRANCHES_BTS);
}

static int bts_event_init(struct perf_event *event)
{
	int err;

	if (event->attr.type != bts_pmu.type)
		return -ENOENT;
	/* Branch records show kernel addresses, BTS_OFF_OS or not. */
	if (event->attr.exclude_kernel) {
		err = perf_allow_kernel();
		if (err)
			return err;
	}
	/* Not while the LBR records branches for others. */
	if (x86_branches_get(X86_BRANCHES_BTS))
		return -EBUSY;
	event->destroy = bts_event_destroy;
	return 0;
}

static struct pmu bts_pmu = {
	.task_ctx_nr	= perf_sw_context,
	/* No PERF_PMU_CAP_AUX_NO_SG: vmap() makes any chunks one buffer. */
	.capabilities	= PERF_PMU_CAP_ITRACE | PERF_PMU_CAP_EXCLUSIVE,
	.event_init	= bts_event_init,
	.add		= bts_add,
	.del		= bts_del,
	.start		= bts_start,
	.stop		= bts_stop,
	.read		= bts_read,
	.setup_aux	= bts_setup_aux,
	.free_aux	= bts_free_aux,
};

/*
 * The PMI, before the counters: stop tracing while it runs; when the
 * window reached its threshold, hand it over and open the next.
 * Return: 1 when the interrupt was the window's, else 0.
 */
static int intel_bts_pmi(void)
{
	struct debug_store *ds = this_cpu_ptr(&cpu_debug_store);
	struct bts_cpu *bc = this_cpu_ptr(&bts_cpu);
	struct perf_event *event = bc->handle.event;
	struct bts_area *area;

	if (!bc->on)
		return 0;
	intel_bts_untrace();
	bc->on = false;
	bc->paused = true;
	area = perf_get_aux(&bc->handle);
	if (area->snapshot || ds->bts_index < ds->bts_interrupt_threshold)
		return 0;
	bts_close(bc);
	area = perf_aux_output_begin(&bc->handle, event);
	if (!area || bts_window(bc, area)) {
		if (area)
			perf_aux_output_end(&bc->handle, 0);
		bc->paused = false;
		event->hw.state = PERF_HES_STOPPED;
	}
	return 1;
}

NOKPROBE_SYMBOL(intel_bts_pmi);

/* x86_vendor.trace_pmi: the tracer's window, or the sampler's records. */
static int intel_bts_trace_pmi(void)
{
	return intel_bts_pmi() + intel_bts_sample_pmi();
}

NOKPROBE_SYMBOL(intel_bts_trace_pmi);

/* As the PMI leaves: trace again what it paused. */
static void intel_bts_resume(void)
{
	struct bts_cpu *bc = this_cpu_ptr(&bts_cpu);
	struct bts_area *area;

	if (!bc->paused)
		return;
	bc->paused = false;
	area = perf_get_aux(&bc->handle);
	if (!area)
		return;
	bc->on = true;
	intel_bts_trace(bc->handle.event, area->snapshot);
}

NOKPROBE_SYMBOL(intel_bts_resume);

static void intel_bts_trace_resume(void)
{
	intel_bts_resume();
	intel_bts_sample_resume();
}

NOKPROBE_SYMBOL(intel_bts_trace_resume);

/**
 * intel_bts_possible - whether the CPUs have a branch trace store this
 *	driver can point at a buffer
 *
 * Return: true once intel_bts_probe() found one.
 */
bool intel_bts_possible(void)
{
	return bts_possible;
}

/**
 * intel_bts_probe - give a core type's description the tracer's hooks
 * @v: the description, whose PEBS intel_pebs_probe() found (the debug
 *	store is then set up on its CPUs)
 */
void __init intel_bts_probe(struct x86_vendor *v)
{
	if (!boot_cpu_has(X86_FEATURE_BTS) || !boot_cpu_has(X86_FEATURE_DTES64) ||
	    boot_cpu_has(X86_FEATURE_PTI))
		return;
	v->trace_pmi = intel_bts_trace_pmi;
	v->trace_resume = intel_bts_trace_resume;
	bts_possible = true;
}

static int __init intel_bts_init(void)
{
	if (!bts_possible)
		return -ENODEV;
	return perf_pmu_register(&bts_pmu, "intel_bts", -1);
}
device_initcall(intel_bts_init);
