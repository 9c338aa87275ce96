// SPDX-License-Identifier: GPL-2.0
/*
 * The AUX area: a second buffer beside an event's ring buffer, filled
 * directly (mostly by hardware: branch traces, processor traces) by a PMU
 * that has setup_aux().  The ring buffer keeps carrying the records;
 * PERF_RECORD_AUX tells where in the AUX area each piece of trace went.
 *
 * Mapping: user space maps the ring buffer first, writes aux_offset and
 * aux_size into its control page, then maps 2^n pages at that offset
 * (at or past the end of the data pages).  A writable mapping has a tail
 * (user_page->aux_tail): the PMU writes only into the room before it and
 * the event is disabled when there is none.  A read-only mapping is a
 * snapshot area: the PMU writes round and round, and perf_aux_output_end()
 * takes the head the PMU reached.  Further mappings of the area must
 * have the same offset and size.
 *
 * Writers: a PMU takes a handle with perf_aux_output_begin() when it
 * starts tracing (pmu->start(), or its PMI) and gives it back with
 * perf_aux_output_end() when it stops (pmu->stop(), or its PMI), on the
 * event's CPU with interrupts off.  One writer at a time per buffer
 * (rb->aux_nest); an inherited copy writes into its original's buffer.
 *
 * Lifetime and locking:
 *  - rb->aux_mutex serialises mapping and unmapping the area (taken
 *    inside event->mmap_mutex).
 *  - rb->aux_mmap_count counts the area's mappings; a writer begins only
 *    while it is not zero.
 *  - rb->aux_refcount: one for the mappings while there are any, one per
 *    writer between begin and end.  The last unmapping first stops every
 *    writer (aux_stop_on_cpu(): their pmu->stop() ends their handles),
 *    so its own reference is the last one and is dropped in process
 *    context, where the PMU's free_aux() and the pages can go.
 *  - rb->aux_head is changed only by the one writer; user space reads it
 *    from user_page->aux_head.  It runs on across areas: an area mapped
 *    again after the last unmapping goes on from where the head was (as
 *    upstream's).
 */
#include <linux/circ_buf.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "internal.h"

static inline unsigned long aux_bytes(struct perf_buffer *rb)
{
	return (unsigned long)rb->aux_nr_pages << PAGE_SHIFT;
}

/* The buffer a writer of @event writes to: its original's, for a copy. */
static struct perf_event *aux_owner(struct perf_event *event)
{
	return event->parent ? event->parent : event;
}

/* ---- pages ---- */

/*
 * A chunk of 2^@order contiguous pages, split so that each page can be
 * mapped and freed alone; the first page's private is @order, so that a
 * PMU that needs contiguous memory sees how far it goes (as upstream).
 */
static struct page *aux_alloc_chunk(int node, int *order)
{
	gfp_t gfp = GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN | __GFP_NORETRY;
	struct page *page;

	for (; *order >= 0; (*order)--) {
		page = alloc_pages_node(node, *order ? gfp : gfp & ~__GFP_NORETRY,
					*order);
		if (!page)
			continue;
		if (*order) {
			split_page(page, *order);
			SetPagePrivate(page);
			set_page_private(page, *order);
		}
		return page;
	}
	return NULL;
}

static void aux_free_pages(struct perf_buffer *rb)
{
	struct page *page;
	int i;

	for (i = 0; i < rb->aux_nr_pages; i++) {
		page = virt_to_page(rb->aux_pages[i]);
		ClearPagePrivate(page);
		set_page_private(page, 0);
		page->mapping = NULL;
		__free_page(page);
	}
	kfree(rb->aux_pages);
	rb->aux_pages = NULL;
	rb->aux_nr_pages = 0;
}

/* The PMU's state and the pages: no writer and no mapping is left. */
static void aux_free(struct perf_buffer *rb)
{
	if (rb->aux_priv) {
		rb->free_aux(rb->aux_priv);
		rb->aux_priv = NULL;
	}
	aux_free_pages(rb);
}

/* Drop a reference; the last is the unmapping's (see the top comment). */
static void aux_put(struct perf_buffer *rb)
{
	if (refcount_dec_and_test(&rb->aux_refcount))
		aux_free(rb);
}

/*
 * Allocate the area of @nr_pages and hand it to the PMU.  Without a tail
 * (overwrite), the chunks are as large as the area allows; with one, no
 * larger than the watermark (half the area by default), so that a PMU
 * can switch halves.  A PMU without scatter-gather needs its chunks of
 * that size.
 */
static int aux_alloc(struct perf_buffer *rb, struct perf_event *event,
		     pgoff_t pgoff, int nr_pages, bool overwrite)
{
	int node = event->cpu < 0 ? NUMA_NO_NODE : cpu_to_node(event->cpu);
	unsigned long watermark = 0;
	int max_order, order, n;
	struct page *page;

	if (!has_aux(event))
		return -EOPNOTSUPP;
	if (!overwrite) {
		watermark = event->attr.aux_watermark;
		if (!watermark)
			watermark = min_t(unsigned long, U32_MAX,
					  (unsigned long)nr_pages << (PAGE_SHIFT - 1));
		max_order = get_order(watermark);
	} else {
		max_order = ilog2(nr_pages);
	}
	/* The page array itself has to be one allocation. */
	if (get_order((unsigned long)nr_pages * sizeof(void *)) > MAX_PAGE_ORDER)
		return -ENOMEM;
	rb->aux_pages = kcalloc_node(nr_pages, sizeof(void *), GFP_KERNEL, node);
	if (!rb->aux_pages)
		return -ENOMEM;
	rb->free_aux = event->pmu->free_aux;
	while (rb->aux_nr_pages < nr_pages) {
		order = min(max_order, ilog2(nr_pages - rb->aux_nr_pages));
		page = aux_alloc_chunk(node, &order);
		if (!page)
			goto fail;
		for (n = 0; n < 1 << order; n++)
			rb->aux_pages[rb->aux_nr_pages++] = page_address(page + n);
	}
	if ((event->pmu->capabilities & PERF_PMU_CAP_AUX_NO_SG) && !overwrite &&
	    page_private(virt_to_page(rb->aux_pages[0])) != max_order)
		goto fail;
	rb->aux_priv = event->pmu->setup_aux(event, rb->aux_pages, nr_pages,
					     overwrite);
	if (!rb->aux_priv)
		goto fail;
	refcount_set(&rb->aux_refcount, 1);
	rb->aux_overwrite = overwrite;
	rb->aux_watermark = watermark;
	rb->aux_pgoff = pgoff;
	return 0;
fail:
	aux_free_pages(rb);
	return -ENOMEM;
}

/**
 * perf_aux_page - the page of the AUX area at a mapping's page offset
 * @rb: the buffer, under RCU (the fault handler)
 * @pgoff: page offset in the event's file
 *
 * Return: the page, or NULL outside the area.
 */
struct page *perf_aux_page(struct perf_buffer *rb, unsigned long pgoff)
{
	unsigned long i;

	if (!rb_has_aux(rb) || pgoff < rb->aux_pgoff)
		return NULL;
	i = pgoff - rb->aux_pgoff;
	if (i >= rb->aux_nr_pages)
		return NULL;
	return virt_to_page(rb->aux_pages[i]);
}

/* ---- mapping ---- */

/**
 * perf_aux_mmap - map an event's AUX area
 * @event: the event, whose ring buffer is mapped
 * @vma: the mapping, at a non-zero offset
 *
 * The checks and errnos are upstream's: EINVAL for an event without a
 * ring buffer, an offset or size that disagrees with the control page,
 * a size not a power of two pages, or an area already mapped elsewhere
 * or with another size; EOPNOTSUPP when the PMU has no AUX area; EPERM
 * past the locked-memory limits; ENOMEM.
 *
 * Return: 0 or a negative errno.
 */
int perf_aux_mmap(struct perf_event *event, struct vm_area_struct *vma)
{
	unsigned long size = vma->vm_end - vma->vm_start;
	unsigned long nr_pages = size / PAGE_SIZE;
	unsigned long user_part, pinned_part;
	struct perf_buffer *rb;
	u64 offset, asize;
	int ret;

	if (!event->rb)
		return -EINVAL;
	if (nr_pages > INT_MAX)
		return -ENOMEM;

	mutex_lock(&event->mmap_mutex);
	ret = -EINVAL;
	rb = event->rb;
	if (!rb)
		goto unlock;
	mutex_lock(&rb->aux_mutex);
	offset = READ_ONCE(rb->user_page->aux_offset);
	asize = READ_ONCE(rb->user_page->aux_size);
	if (offset < perf_data_size(rb) + PAGE_SIZE ||
	    offset != (u64)vma->vm_pgoff << PAGE_SHIFT)
		goto aux_unlock;
	if (rb_has_aux(rb) && rb->aux_pgoff != vma->vm_pgoff)
		goto aux_unlock;
	if (asize != size || asize != nr_pages * PAGE_SIZE)
		goto aux_unlock;
	if (rb_has_aux(rb) && rb->aux_nr_pages != nr_pages)
		goto aux_unlock;
	if (!is_power_of_2(nr_pages))
		goto aux_unlock;
	/* The ring buffer's last mapping is going away. */
	if (!atomic_inc_not_zero(&rb->mmap_count))
		goto aux_unlock;

	if (rb_has_aux(rb)) {
		atomic_inc(&rb->aux_mmap_count);
		ret = 0;
		goto mapped;
	}
	ret = perf_rb_charge(vma, nr_pages, &user_part, &pinned_part);
	if (!ret)
		ret = aux_alloc(rb, event, vma->vm_pgoff, nr_pages,
				!(vma->vm_flags & VM_WRITE));
	if (ret) {
		atomic_dec(&rb->mmap_count);
		goto aux_unlock;
	}
	rb->aux_mmap_locked = pinned_part;
	atomic_long_add(user_part, &current_user()->perf_mlock);
	atomic64_add(pinned_part, &vma->vm_mm->pinned_vm);
	atomic_set(&rb->aux_mmap_count, 1);
mapped:
	atomic_inc(&event->ov->mmap_count);
aux_unlock:
	mutex_unlock(&rb->aux_mutex);
unlock:
	mutex_unlock(&event->mmap_mutex);
	return ret;
}

/*
 * On each CPU: stop and restart the AUX events tracing there into
 * @info's buffer.  Stopping ends their handles; starting again finds no
 * mapping and leaves them idle.
 */
static void aux_stop_on_cpu(void *info)
{
	struct perf_cpu_context *cpuctx = this_cpu_ptr(&perf_cpu_context);
	struct perf_event_context *ctxs[2] = { &cpuctx->ctx, cpuctx->task_ctx };
	struct perf_buffer *rb = info;
	struct perf_event *event;
	int i;

	perf_ctx_lock(cpuctx, cpuctx->task_ctx);
	for (i = 0; i < ARRAY_SIZE(ctxs); i++) {
		if (!ctxs[i])
			continue;
		list_for_each_entry(event, &ctxs[i]->event_list, event_entry) {
			if (event->state != PERF_EVENT_STATE_ACTIVE ||
			    event->oncpu != smp_processor_id() ||
			    (event->hw.state & PERF_HES_STOPPED) ||
			    !has_aux(event) ||
			    rcu_access_pointer(aux_owner(event)->rb) != rb)
				continue;
			event->pmu->stop(event, PERF_EF_UPDATE);
			event->pmu->start(event, 0);
		}
	}
	perf_ctx_unlock(cpuctx, cpuctx->task_ctx);
}

/**
 * perf_aux_unmap - an AUX area mapping goes
 * @event: the event whose file was mapped
 * @rb: its ring buffer, referenced by the caller
 * @vma: the mapping
 *
 * The last mapping stops the writers, returns the charge and frees the
 * area.  The caller then drops the ring buffer mapping counts as for
 * any mapping.
 */
void perf_aux_unmap(struct perf_event *event, struct perf_buffer *rb,
		    struct vm_area_struct *vma)
{
	if (!rb_has_aux(rb) || vma->vm_pgoff != rb->aux_pgoff)
		return;
	if (!atomic_dec_and_mutex_lock(&rb->aux_mmap_count, &rb->aux_mutex))
		return;
	/*
	 * The online CPUs: one coming up meanwhile runs no writer of the
	 * area, whose mapping count is already 0.
	 */
	on_each_cpu(aux_stop_on_cpu, rb, 1);
	atomic_long_sub(rb->aux_nr_pages - rb->aux_mmap_locked,
			&rb->mmap_user->perf_mlock);
	atomic64_sub(rb->aux_mmap_locked, &vma->vm_mm->pinned_vm);
	rb->aux_mmap_locked = 0;
	WARN_ON_ONCE(refcount_read(&rb->aux_refcount) != 1);
	aux_put(rb);
	mutex_unlock(&rb->aux_mutex);
}

/**
 * perf_aux_vma_open - an AUX area mapping is duplicated (mremap)
 * @rb: the buffer
 * @vma: the new mapping
 */
void perf_aux_vma_open(struct perf_buffer *rb, struct vm_area_struct *vma)
{
	/* No aux_mutex: the mapping it copies still counts, so not 0. */
	if (rb_has_aux(rb) && vma->vm_pgoff == rb->aux_pgoff)
		atomic_inc(&rb->aux_mmap_count);
}

/* ---- writers ---- */

/**
 * perf_aux_output_begin - start writing into an event's AUX area
 * @handle: the handle, the PMU's until perf_aux_output_end()
 * @event: the event, on this CPU, interrupts off
 *
 * Sets @handle->head (where the area's writing is, a running offset:
 * modulo the area's size) and @handle->size (the room before the tail;
 * 0 for a snapshot area, which has none).  With a tail and no room, the
 * event is disabled and user space woken.
 *
 * Return: the PMU's setup_aux() state, or NULL: no area (not mapped, or
 * being unmapped), no room, or another writer in it.
 */
void *perf_aux_output_begin(struct perf_output_handle *handle,
			    struct perf_event *event)
{
	struct perf_buffer *rb;
	unsigned long tail;

	handle->event = NULL;
	rb = ring_buffer_get(aux_owner(event));
	if (!rb)
		return NULL;
	/* The mapping count before the reference: see the top comment. */
	if (!rb_has_aux(rb) || !atomic_read(&rb->aux_mmap_count) ||
	    !refcount_inc_not_zero(&rb->aux_refcount))
		goto put_rb;
	if (WARN_ON_ONCE(READ_ONCE(rb->aux_nest)))
		goto put_aux;
	WRITE_ONCE(rb->aux_nest, 1);

	handle->rb = rb;
	handle->event = event;
	handle->head = rb->aux_head;
	handle->size = 0;
	handle->aux_flags = 0;
	if (!rb->aux_overwrite) {
		tail = READ_ONCE(rb->user_page->aux_tail);
		handle->wakeup = rb->aux_wakeup + rb->aux_watermark;
		if (rb->aux_head - tail < aux_bytes(rb))
			handle->size = CIRC_SPACE(rb->aux_head, tail,
						  aux_bytes(rb));
		/* The tail's load orders the PMU's stores after it. */
		if (!handle->size) {
			perf_event_disable_inatomic(event);
			perf_output_wakeup(handle);
			WRITE_ONCE(rb->aux_nest, 0);
			handle->event = NULL;
			goto put_aux;
		}
	}
	return rb->aux_priv;

put_aux:
	aux_put(rb);	/* never the last: the mapping holds one */
put_rb:
	ring_buffer_put(rb);
	return NULL;
}
EXPORT_SYMBOL_GPL(perf_aux_output_begin);

/* Past the watermark since the last wakeup: wake, and note where. */
static bool aux_wakeup_due(struct perf_buffer *rb)
{
	if (rb->aux_overwrite || rb->aux_head - rb->aux_wakeup < rb->aux_watermark)
		return false;
	rb->aux_wakeup = rounddown(rb->aux_head, rb->aux_watermark);
	return true;
}

/**
 * perf_aux_output_end - the PMU is done writing
 * @handle: the handle perf_aux_output_begin() gave
 * @size: bytes written from @handle->head (with a tail)
 *
 * With a tail, the head moves on by @size; in a snapshot area, it is
 * where the PMU left @handle->head.  A PERF_RECORD_AUX says where the
 * data is, when there is data or a flag worth saying (OVERWRITE alone
 * and the PMU's format bits are not).  TRUNCATED disables the event.
 * The PMU's data must be visible to other CPUs before the call.
 */
void perf_aux_output_end(struct perf_output_handle *handle, unsigned long size)
{
	struct perf_buffer *rb = handle->rb;
	bool wakeup = handle->aux_flags & PERF_AUX_FLAG_TRUNCATED;
	unsigned long start;

	if (rb->aux_overwrite) {
		handle->aux_flags |= PERF_AUX_FLAG_OVERWRITE;
		start = handle->head;
		rb->aux_head = handle->head;
	} else {
		handle->aux_flags &= ~PERF_AUX_FLAG_OVERWRITE;
		start = rb->aux_head;
		rb->aux_head += size;
	}
	if (size || (handle->aux_flags & ~(u64)(PERF_AUX_FLAG_OVERWRITE |
						PERF_AUX_FLAG_PMU_FORMAT_TYPE_MASK)))
		perf_event_aux_event(handle->event, start, size,
				     handle->aux_flags);
	WRITE_ONCE(rb->user_page->aux_head, rb->aux_head);
	if (aux_wakeup_due(rb))
		wakeup = true;
	if (wakeup) {
		if (handle->aux_flags & PERF_AUX_FLAG_TRUNCATED)
			perf_event_disable_inatomic(handle->event);
		perf_output_wakeup(handle);
	}
	handle->event = NULL;
	WRITE_ONCE(rb->aux_nest, 0);
	aux_put(rb);	/* never the last: the mapping holds one */
	ring_buffer_put(rb);
}
EXPORT_SYMBOL_GPL(perf_aux_output_end);

/**
 * perf_aux_output_skip - leave bytes of the AUX area unused
 * @handle: a handle between begin and end, of an area with a tail
 * @size: how many, for example to an alignment the hardware needs
 *
 * Return: 0, or -ENOSPC when @size is more than the room left.
 */
int perf_aux_output_skip(struct perf_output_handle *handle, unsigned long size)
{
	struct perf_buffer *rb = handle->rb;

	if (size > handle->size)
		return -ENOSPC;
	rb->aux_head += size;
	WRITE_ONCE(rb->user_page->aux_head, rb->aux_head);
	if (aux_wakeup_due(rb)) {
		perf_output_wakeup(handle);
		handle->wakeup = rb->aux_wakeup + rb->aux_watermark;
	}
	handle->head = rb->aux_head;
	handle->size -= size;
	return 0;
}
EXPORT_SYMBOL_GPL(perf_aux_output_skip);

/**
 * perf_aux_output_flag - flags for the PERF_RECORD_AUX of a handle
 * @handle: a handle between begin and end
 * @flags: PERF_AUX_FLAG_* bits; not OVERWRITE, which the area decides
 */
void perf_aux_output_flag(struct perf_output_handle *handle, u64 flags)
{
	if (WARN_ON_ONCE(flags & PERF_AUX_FLAG_OVERWRITE))
		return;
	handle->aux_flags |= flags;
}
EXPORT_SYMBOL_GPL(perf_aux_output_flag);

/**
 * perf_get_aux - the PMU's AUX state of a handle
 * @handle: the handle
 *
 * Return: what setup_aux() gave, between begin and end; NULL otherwise.
 */
void *perf_get_aux(struct perf_output_handle *handle)
{
	return handle->event ? handle->rb->aux_priv : NULL;
}
EXPORT_SYMBOL_GPL(perf_get_aux);

/* ---- records ---- */

/**
 * perf_event_aux_event - write a PERF_RECORD_AUX
 * @event: the event that traced
 * @head: where in the AUX area (a running offset) the data starts
 * @size: how many bytes
 * @flags: PERF_AUX_FLAG_* bits
 */
void perf_event_aux_event(struct perf_event *event, unsigned long head,
			  unsigned long size, u64 flags)
{
	struct {
		struct perf_event_header	header;
		u64				offset;
		u64				size;
		u64				flags;
	} rec = {
		.header = {
			.type = PERF_RECORD_AUX,
			.misc = 0,
			.size = sizeof(rec),
		},
		.offset = head,
		.size = size,
		.flags = flags,
	};

	perf_event_fixed_record(event, &rec.header);
}

/**
 * perf_event_itrace_started - the PMU logged where its trace starts
 * @event: the event
 *
 * From then on the core writes no PERF_RECORD_ITRACE_START for it.
 */
void perf_event_itrace_started(struct perf_event *event)
{
	event->attach_state |= PERF_ATTACH_ITRACE;
}
EXPORT_SYMBOL_GPL(perf_event_itrace_started);

/**
 * perf_event_itrace_start - PERF_RECORD_ITRACE_START at a schedule in
 * @event: an event about to be added on this CPU, its context locked
 *
 * Names the task a tracing PMU (PERF_PMU_CAP_ITRACE) traces from now on,
 * until the PMU says it has logged that itself.
 */
void perf_event_itrace_start(struct perf_event *event)
{
	struct {
		struct perf_event_header	header;
		u32				pid;
		u32				tid;
	} rec;

	event = aux_owner(event);
	if (!(event->pmu->capabilities & PERF_PMU_CAP_ITRACE) ||
	    (event->attach_state & PERF_ATTACH_ITRACE))
		return;
	rec.header.type = PERF_RECORD_ITRACE_START;
	rec.header.misc = 0;
	rec.header.size = sizeof(rec);
	rec.pid = perf_event_pid(event, current);
	rec.tid = perf_event_tid(event, current);
	perf_event_fixed_record(event, &rec.header);
}

/**
 * perf_report_aux_output_id - PERF_RECORD_AUX_OUTPUT_HW_ID
 * @event: the event
 * @hw_id: the hardware's name for the event's data in the AUX area
 */
void perf_report_aux_output_id(struct perf_event *event, u64 hw_id)
{
	struct {
		struct perf_event_header	header;
		u64				hw_id;
	} rec;

	event = aux_owner(event);
	rec.header.type = PERF_RECORD_AUX_OUTPUT_HW_ID;
	rec.header.misc = 0;
	rec.header.size = sizeof(rec);
	rec.hw_id = hw_id;
	perf_event_fixed_record(event, &rec.header);
}
EXPORT_SYMBOL_GPL(perf_report_aux_output_id);
