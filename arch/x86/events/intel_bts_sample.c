// SPDX-License-Identifier: GPL-2.0-only
/*
 * A sample of every branch: the core PMU's branch instructions event
 * with a fixed period of one (perf record -e branches:u -c 1), which
 * upstream's Intel driver records with the branch trace store instead of
 * a counter that would interrupt at every branch.
 *
 * Such an event (hw.flags X86_EVENT_BTS, set at hw_config) takes no
 * counter but the pseudo-counter X86_BTS_IDX, which only it can have, so
 * one runs on a CPU at a time; it has no count and no period of its own.
 * While it runs, IA32_DEBUGCTL has TR, BTS and BTINT, with BTS_OFF_OS
 * (the event must exclude the kernel, as upstream's) and BTS_OFF_USR
 * where it excludes user space, and the CPU stores each branch it takes
 * (from, to, flags) into a buffer of this CPU, which the debug store
 * describes.  Its records become samples, the from as the IP and the to
 * as the address, PERF_SAMPLE_PERIOD 1, the other fields as of the
 * moment they are written: at each PMI (the CPU interrupts when the
 * buffer is 15/16 full; the PMI stops the store while it runs) and as
 * the event stops.  Records with a kernel address (a branch into or out
 * of the kernel, which the CPU stores at the privilege level change)
 * are left out.
 *
 * Errnos, as upstream: -EOPNOTSUPP without the branch trace store (or
 * under page table isolation, where the CPU could not write the buffer
 * through user space's page tables: upstream maps it into the CPU entry
 * area, which is not done here), for an event that does not exclude
 * the kernel, and for a precise one; PERF_EVENT_IOC_PERIOD cannot make
 * a branch event's period one (-EINVAL, intel_bts_sample_period()).  It
 * shares IA32_DEBUGCTL with the LBR's users, as upstream's, and excludes
 * the intel_bts PMU (x86_branches_get(X86_BRANCHES_LBR)).
 *
 * The buffers, BTS_SAMPLE_BUF bytes a CPU, are allocated for every
 * possible CPU as the first such event is made, and kept.
 *
 * Locking: bts_sample_cpu and the debug store's BTS fields are changed
 * on their CPU with interrupts off (enable, disable, the PMI); the
 * buffers are allocated under bts_sample_mutex and never freed.
 */
#include <linux/kprobes.h>
#include <linux/mutex.h>
#include <linux/perf_event.h>
#include <linux/slab.h>

#include <asm/intel_ds.h>
#include <asm/perf_event.h>

#include "branch_kind.h"
#include "intel_bts.h"

#define BTS_SAMPLE_BUF		(PAGE_SIZE << 4)
#define BTS_SAMPLE_REC		24
#define BTS_SAMPLE_RECS		(BTS_SAMPLE_BUF / BTS_SAMPLE_REC)

/* A record, as the CPU stores it. */
struct bts_sample_rec {
	u64 from;
	u64 to;
	u64 flags;
};

/* A CPU's buffer and the event storing into it. */
struct bts_sample_cpu {
	struct bts_sample_rec	*buf;
	struct perf_event	*event;	/* running here */
	bool			paused;	/* by the PMI */
};

static DEFINE_PER_CPU(struct bts_sample_cpu, bts_sample_cpu);
static DEFINE_MUTEX(bts_sample_mutex);
static bool bts_sample_ready;

/* Allocate every possible CPU's buffer, once.  0 or -ENOMEM. */
static int bts_sample_alloc(void)
{
	int cpu, err = 0;

	mutex_lock(&bts_sample_mutex);
	if (bts_sample_ready)
		goto out;
	for_each_possible_cpu(cpu) {
		struct bts_sample_cpu *bc = per_cpu_ptr(&bts_sample_cpu, cpu);

		if (bc->buf)
			continue;
		bc->buf = kzalloc_node(BTS_SAMPLE_BUF, GFP_KERNEL, cpu_to_node(cpu));
		if (!bc->buf) {
			err = -ENOMEM;
			goto out;
		}
	}
	bts_sample_ready = true;
out:
	mutex_unlock(&bts_sample_mutex);
	return err;
}

/**
 * intel_bts_sample_wanted - whether an event is one the branch trace
 *	store samples
 * @event: a core PMU event being made, hw.config set
 * @branches: the encoding of the branch instructions event
 * @period: its period (or the one PERF_EVENT_IOC_PERIOD would give)
 *
 * Return: true for the branch instructions event (raw or generic) with a
 * fixed period of one that does not exclude the host.
 */
bool intel_bts_sample_wanted(struct perf_event *event, u64 branches, u64 period)
{
	return !event->attr.freq && period == 1 && !event->attr.exclude_host &&
	       (event->hw.config & INTEL_ARCH_EVENT_MASK) ==
	       (branches & INTEL_ARCH_EVENT_MASK);
}

/**
 * intel_bts_sample_config - make a branch event with a period of one
 *	sample through the branch trace store
 * @event: the event, which intel_bts_sample_wanted()
 *
 * Return: 0, -EOPNOTSUPP without a branch trace store, for an event that
 * does not exclude the kernel, or a precise one; -ENOMEM.
 */
int intel_bts_sample_config(struct perf_event *event)
{
	int err;

	if (!intel_bts_possible() || !event->attr.exclude_kernel ||
	    event->attr.precise_ip)
		return -EOPNOTSUPP;
	err = bts_sample_alloc();
	if (err)
		return err;
	event->hw.flags |= X86_EVENT_BTS;
	return 0;
}

/*
 * Turn the buffer's records into samples of its event.  Returns how many
 * records there were (those with a kernel address included).
 */
static long bts_sample_drain(struct bts_sample_cpu *bc)
{
	struct debug_store *ds = this_cpu_ptr(&cpu_debug_store);
	struct bts_sample_rec *r, *top = (void *)(unsigned long)ds->bts_index;
	struct perf_event *event = bc->event;
	struct perf_output_handle handle;
	struct perf_event_header header;
	struct perf_sample_data data;
	struct pt_regs regs = {};
	int n = 0;

	if (top <= bc->buf)
		return 0;
	ds->bts_index = (u64)(unsigned long)bc->buf;
	for (r = bc->buf; r < top; r++)
		n += !x86_kernel_ip(r->from) && !x86_kernel_ip(r->to);
	if (!n)
		return top - bc->buf;
	perf_sample_data_init(&data, 0, event->hw.last_period);
	rcu_read_lock();
	perf_prepare_sample(&data, event, &regs);
	perf_prepare_header(&header, &data, event, &regs);
	if (!perf_output_begin(&handle, &data, event, header.size * n)) {
		for (r = bc->buf; r < top; r++) {
			if (x86_kernel_ip(r->from) || x86_kernel_ip(r->to))
				continue;
			data.ip = r->from;
			data.addr = r->to;
			perf_output_sample(&handle, &header, &data, event);
		}
		perf_output_end(&handle);
	}
	rcu_read_unlock();
	return top - bc->buf;
}

/**
 * intel_bts_sample_start - store branches for @event on this CPU
 * @event: the event, on X86_BTS_IDX
 */
void intel_bts_sample_start(struct perf_event *event)
{
	struct debug_store *ds = this_cpu_ptr(&cpu_debug_store);
	struct bts_sample_cpu *bc = this_cpu_ptr(&bts_sample_cpu);
	u64 base = (u64)(unsigned long)bc->buf;

	bc->event = event;
	bc->paused = false;
	ds->bts_buffer_base = base;
	ds->bts_index = base;
	ds->bts_absolute_maximum = base + BTS_SAMPLE_RECS * BTS_SAMPLE_REC;
	ds->bts_interrupt_threshold = ds->bts_absolute_maximum -
		BTS_SAMPLE_RECS / 16 * BTS_SAMPLE_REC;
	intel_bts_trace(event, false);
}

/**
 * intel_bts_sample_stop - stop storing and write out the samples left
 * @event: the event
 */
void intel_bts_sample_stop(struct perf_event *event)
{
	struct bts_sample_cpu *bc = this_cpu_ptr(&bts_sample_cpu);

	if (bc->event != event)
		return;
	intel_bts_untrace();
	bts_sample_drain(bc);
	bc->event = NULL;
	bc->paused = false;
}

/**
 * intel_bts_sample_pmi - in the PMI: stop storing while it runs and
 *	write out the buffer's samples
 *
 * Return: 1 when there were records (the interrupt may be the buffer's,
 * which has no status bit), else 0.
 */
int intel_bts_sample_pmi(void)
{
	struct bts_sample_cpu *bc = this_cpu_ptr(&bts_sample_cpu);

	if (!bc->event)
		return 0;
	intel_bts_untrace();
	bc->paused = true;
	return bts_sample_drain(bc) ? 1 : 0;
}

NOKPROBE_SYMBOL(intel_bts_sample_pmi);

/**
 * intel_bts_sample_resume - as the PMI leaves: store again
 */
void intel_bts_sample_resume(void)
{
	struct bts_sample_cpu *bc = this_cpu_ptr(&bts_sample_cpu);

	if (!bc->paused)
		return;
	bc->paused = false;
	intel_bts_trace(bc->event, false);
}

NOKPROBE_SYMBOL(intel_bts_sample_resume);
