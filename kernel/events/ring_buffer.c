// SPDX-License-Identifier: GPL-2.0
/*
 * The mmap ring buffer: allocation, mapping into user space, memory
 * accounting, sharing one buffer between events (SET_OUTPUT), pausing, and
 * the control page at its head.
 *
 * Layout: page 0 is the control page (struct perf_event_mmap_page), then
 * 2^n data pages.  User space maps all of them at offset 0; the data pages
 * are mapped read-only even in a writable mapping, only the control page
 * (where user space stores data_tail) is writable.  The AUX area, mapped
 * at another offset, is aux.c's; its mapping counts as one of the buffer
 * too (rb->mmap_count, event->ov->mmap_count).
 *
 * Lifetime and locking:
 *  - rb->refcount: one per event whose event->rb points at the buffer, and
 *    one per temporary user (ring_buffer_get()).  The last reference frees
 *    the pages after an RCU grace period: writers and the fault handler
 *    find the buffer through rcu_dereference(event->rb).
 *  - rb->mmap_count counts mappings of the buffer (by any event), and
 *    event->ov->mmap_count the mappings made through one event's file.  When
 *    the last mapping of the buffer goes, every event redirected into it is
 *    detached and the locked-memory charge is returned.
 *  - event->mmap_mutex serialises attaching and detaching a buffer to an
 *    event; rb->event_lock guards changes to rb->event_list, the events
 *    attached to a buffer (by their overflow state, which every event
 *    with a buffer has), which wakeups and detaching walk under RCU (an
 *    event on it, and its state, are freed only after a grace period).
 *  - A buffer without data pages (the control page alone) takes no
 *    records: perf_output_begin() gives up before computing a page.
 *
 * Accounting (as upstream): each user may lock perf_event_mlock_kb per
 * online CPU in buffers (user->perf_mlock); pages beyond that are charged
 * to the mm's pinned_vm and need RLIMIT_MEMLOCK room or CAP_IPC_LOCK,
 * unless perf_event_paranoid is -1.
 *
 * Writing records (perf_output_begin() .. perf_output_end()): writers
 * nest on one CPU (a task writing is interrupted by an interrupt handler
 * writing, itself interrupted by an NMI writing) and may also run on
 * several CPUs at once: inherited copies of a per-task event write into
 * their original's buffer wherever their tasks run, and a per-task event
 * may be redirected (SET_OUTPUT) into such a buffer.  So every field a
 * writer changes is changed atomically: space is claimed by a
 * compare-and-exchange on @head, and @nest counts the writers inside, of
 * all CPUs.  data_head is stored only by a writer that finds itself alone
 * inside (@nest is 1) after reading @head: every record below that head
 * was claimed by a writer that entered before claiming and has left since,
 * so it is complete.  Whoever leaves last checks that the head it leaves
 * behind was published, and goes round again when it was not (another
 * writer finished its record but found company and did not publish).
 * User space never sees a head past an unfinished record, and data_head
 * only moves forward.
 *
 * User space protocol: it reads data_head, then (after a read barrier)
 * the records, then stores data_tail; the kernel reads data_tail before
 * writing (a control dependency orders the writes after it) and stores
 * data_head after a write barrier.  A read-only mapping has no tail: the
 * buffer is overwritten, newest records winning.  With write_backward the
 * head runs downwards and records are laid out from the end.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/poll.h>
#include <linux/sched/user.h>
#include <linux/sched/mm.h>

#include "internal.h"

static int rb_page_node(int cpu)
{
	return cpu >= 0 ? cpu_to_node(cpu) : NUMA_NO_NODE;
}

static void rb_free_pages(struct perf_buffer *rb)
{
	int i;

	for (i = 0; i <= rb->nr_pages; i++) {
		if (rb->pages[i])
			__free_page(rb->pages[i]);
	}
}

static void rb_free_rcu(struct rcu_head *head)
{
	struct perf_buffer *rb = container_of(head, struct perf_buffer, rcu_head);

	rb_free_pages(rb);
	kfree(rb);
}

/**
 * rb_alloc - allocate a ring buffer
 * @nr_pages: data pages, 0 or a power of two
 * @watermark: bytes between wakeups, 0 for half the buffer
 * @cpu: CPU the buffer is for, -1 for any
 * @writable: user space maps it writable (it reads and moves data_tail)
 *
 * Return: the buffer with one reference, or NULL.
 */
static struct perf_buffer *rb_alloc(int nr_pages, long watermark, int cpu,
				    bool writable)
{
	struct perf_buffer *rb;
	int i, node = rb_page_node(cpu);
	size_t size = struct_size(rb, pages, nr_pages + 1);

	/* A page array past the largest allocation is simply too much. */
	if (size > (PAGE_SIZE << MAX_PAGE_ORDER))
		return NULL;
	rb = kzalloc_node(size, GFP_KERNEL, node);
	if (!rb)
		return NULL;
	rb->nr_pages = nr_pages;
	for (i = 0; i <= nr_pages; i++) {
		rb->pages[i] = alloc_pages_node(node, GFP_KERNEL | __GFP_ZERO, 0);
		if (!rb->pages[i])
			goto fail;
	}
	rb->user_page = page_address(rb->pages[0]);
	refcount_set(&rb->refcount, 1);
	INIT_LIST_HEAD(&rb->event_list);
	spin_lock_init(&rb->event_lock);
	mutex_init(&rb->aux_mutex);
	rb->overwrite = !writable;
	rb->watermark = watermark ? min_t(long, watermark, perf_data_size(rb)) :
				    perf_data_size(rb) / 2;
	return rb;
fail:
	rb_free_pages(rb);
	kfree(rb);
	return NULL;
}

/**
 * ring_buffer_get - the buffer an event writes to, referenced
 * @event: the event
 *
 * Return: the buffer or NULL.
 */
struct perf_buffer *ring_buffer_get(struct perf_event *event)
{
	struct perf_buffer *rb;

	rcu_read_lock();
	rb = rcu_dereference(event->rb);
	if (rb && !refcount_inc_not_zero(&rb->refcount))
		rb = NULL;
	rcu_read_unlock();
	return rb;
}

/**
 * ring_buffer_put - drop a reference to a buffer
 * @rb: the buffer, or NULL
 */
void ring_buffer_put(struct perf_buffer *rb)
{
	if (rb && refcount_dec_and_test(&rb->refcount))
		call_rcu(&rb->rcu_head, rb_free_rcu);
}

/**
 * ring_buffer_attach - point an event at a buffer (or at none)
 * @event: the event; its mmap_mutex held
 * @rb: the new buffer, whose reference the event takes over, or NULL
 */
void ring_buffer_attach(struct perf_event *event, struct perf_buffer *rb)
{
	struct perf_buffer *old = event->rb;
	unsigned long flags;

	/* An event with a buffer has its overflow state (perf_mmap()). */
	if (old) {
		spin_lock_irqsave(&old->event_lock, flags);
		list_del_rcu(&event->ov->rb_entry);
		spin_unlock_irqrestore(&old->event_lock, flags);
	}
	if (rb) {
		spin_lock_irqsave(&rb->event_lock, flags);
		list_add_rcu(&event->ov->rb_entry, &rb->event_list);
		spin_unlock_irqrestore(&rb->event_lock, flags);
	}
	rcu_assign_pointer(event->rb, rb);

	if (old) {
		/* Whoever waits on the old buffer must look again. */
		wake_up_all(&event->waitq);
		ring_buffer_put(old);
	}
}

/**
 * perf_event_rb_detach - an event being freed lets go of its buffer
 * @event: the event
 */
void perf_event_rb_detach(struct perf_event *event)
{
	if (!rcu_access_pointer(event->rb))
		return;
	mutex_lock(&event->mmap_mutex);
	ring_buffer_attach(event, NULL);
	mutex_unlock(&event->mmap_mutex);
}

static void perf_event_init_userpage(struct perf_event *event,
				     struct perf_buffer *rb)
{
	struct perf_event_mmap_page *pg = rb->user_page;

	pg->cap_bit0_is_deprecated = 1;
	pg->size = offsetof(struct perf_event_mmap_page, __reserved);
	pg->data_offset = PAGE_SIZE;
	pg->data_size = perf_data_size(rb);
}

/**
 * perf_event_update_userpage - refresh the counter fields of the control page
 * @event: the event
 *
 * The seqcount in ->lock lets user space read a consistent snapshot.
 */
void perf_event_update_userpage(struct perf_event *event)
{
	struct perf_event_mmap_page *pg;
	struct perf_buffer *rb;
	u64 now, enabled, running;

	rcu_read_lock();
	rb = rcu_dereference(event->rb);
	if (!rb)
		goto unlock;
	pg = rb->user_page;
	now = perf_clock();
	perf_event_times_now(event, now, &enabled, &running);

	preempt_disable();
	++pg->lock;
	barrier();
	/*
	 * A counter index means "read me with rdpmc": only while the event
	 * is on this CPU's PMU does the index name its counter.  Elsewhere
	 * the count is what offset says.
	 */
	pg->index = 0;
	if (READ_ONCE(event->state) == PERF_EVENT_STATE_ACTIVE &&
	    READ_ONCE(event->oncpu) == smp_processor_id())
		pg->index = event->pmu->event_idx(event);
	pg->offset = perf_event_count(event);
	if (pg->index)
		pg->offset -= local64_read(&event->hw.prev_count);
	if (perf_event_can_have_copies(event)) {
		enabled += atomic64_read(&event->child_total_time_enabled);
		running += atomic64_read(&event->child_total_time_running);
	}
	pg->time_enabled = enabled;
	pg->time_running = running;
	arch_perf_update_userpage(event, pg, now);
	barrier();
	++pg->lock;
	preempt_enable();
unlock:
	rcu_read_unlock();
}
EXPORT_SYMBOL_GPL(perf_event_update_userpage);

/**
 * perf_event_update_userpage_offset - the user page after a counter reload
 * @event: an event counting on this CPU, whose counter was just folded
 *	   into its count and started again at a new value (a sampling
 *	   interrupt)
 *
 * Only offset changes then: the event keeps running on the same counter,
 * so the index and the times (a linear function of the clock while the
 * state stays the same) written by the last perf_event_update_userpage()
 * still hold.  Called with interrupts off, NMI included.
 */
void perf_event_update_userpage_offset(struct perf_event *event)
{
	struct perf_event_mmap_page *pg;
	struct perf_buffer *rb;

	rcu_read_lock();
	rb = rcu_dereference(event->rb);
	if (!rb)
		goto unlock;
	pg = rb->user_page;
	++pg->lock;
	barrier();
	pg->offset = perf_event_count(event);
	if (pg->index)
		pg->offset -= local64_read(&event->hw.prev_count);
	barrier();
	++pg->lock;
unlock:
	rcu_read_unlock();
}
EXPORT_SYMBOL_GPL(perf_event_update_userpage_offset);

/* ---- writing records ---- */

static void *rb_data_page(struct perf_buffer *rb, unsigned long nr)
{
	return page_address(rb->pages[1 + nr]);
}

/**
 * perf_rb_has_room - whether @len bytes fit between head and tail
 * @head: the writer's position
 * @tail: the reader's position
 * @size: the data area's size, a power of two
 * @len: the record's size
 * @backward: the head runs downwards
 *
 * Return: true when the record fits.
 */
bool perf_rb_has_room(unsigned long head, unsigned long tail,
		      unsigned long size, unsigned int len, bool backward)
{
	/* One byte always stays free, so full and empty look different. */
	unsigned long free = backward ? (head - tail - 1) & (size - 1) :
					(tail - head - 1) & (size - 1);

	return free >= len;
}

/**
 * perf_output_wakeup - wake the buffer's readers, from any context
 * @handle: a handle of the buffer and of the event whose readers wake
 */
void perf_output_wakeup(struct perf_output_handle *handle)
{
	struct perf_event *event = handle->event;
	/* Set before the buffer was attached: perf_event_get_overflow_state(). */
	struct perf_overflow_state *ov = READ_ONCE(event->ov);

	atomic_set(&handle->rb->poll, EPOLLIN | EPOLLRDNORM);
	ov->pending_wakeup = 1;
	if (*perf_event_fasync(event) && !ov->pending_kill)
		ov->pending_kill = POLL_IN;
	irq_work_queue(&ov->pending_irq);
}

/* Leave the buffer, publishing what is complete (see the top comment). */
static void perf_output_put_handle(struct perf_output_handle *handle)
{
	struct perf_buffer *rb = handle->rb;
	unsigned long head;

	for (;;) {
		head = atomic_long_read(&rb->head);
		/*
		 * Pairs with perf_output_claim(): a writer whose claim is
		 * below @head entered before it claimed.  Alone inside, we
		 * see every such writer gone, and (acquire) its record.
		 */
		smp_mb();
		if (atomic_read_acquire(&rb->nest) == 1) {
			/* The records before the head that covers them. */
			smp_wmb();
			WRITE_ONCE(rb->user_page->data_head, head);
			atomic_long_set(&rb->published, head);
		}
		if (likely(!atomic_dec_and_test(&rb->nest)))
			break;
		/* Last out: a record finished in company may be unpublished. */
		if (likely(atomic_long_read(&rb->head) ==
			   atomic_long_read(&rb->published)))
			break;
		atomic_inc(&rb->nest);
	}
	if (handle->wakeup != atomic_long_read(&rb->wakeup))
		perf_output_wakeup(handle);
	preempt_enable();
}

/* The LOST record that precedes the first record after a loss. */
static noinline void output_lost(struct perf_output_handle *handle,
				 struct perf_event *event, long lost)
{
	struct {
		struct perf_event_header	header;
		u64				id;
		u64				lost;
	} lost_rec;
	struct perf_sample_data lost_data;

	lost_rec.header.type = PERF_RECORD_LOST;
	lost_rec.header.misc = 0;
	lost_rec.header.size = sizeof(lost_rec);
	lost_rec.id = event->id;
	lost_rec.lost = lost;
	perf_event_header__init_id(&lost_rec.header, &lost_data, event);
	perf_output_put(handle, lost_rec);
	perf_event__output_id_sample(event, handle, &lost_data);
}

static int perf_output_claim(struct perf_output_handle *handle,
			     struct perf_sample_data *data,
			     struct perf_event *event, unsigned int size,
			     bool backward)
{
	unsigned long head, tail, offset;
	struct perf_buffer *rb;
	long lost, pos;

	rcu_read_lock();
	/* Inherited copies write into their original's buffer. */
	if (event->parent)
		event = event->parent;
	rb = rcu_dereference(event->rb);
	/* A control page alone has nowhere to put records, nor loses any. */
	if (unlikely(!rb || !rb->nr_pages))
		goto none;
	if (unlikely(READ_ONCE(rb->paused))) {
		atomic_long_inc(&rb->lost);
		/* A buffer is attached: the state is there. */
		atomic64_inc(&event->ov->lost_samples);
		goto none;
	}

	handle->rb = rb;
	handle->event = event;
	handle->flags = 0;

	/*
	 * Records lost before this one are reported first, by one writer:
	 * whoever takes the count (and gives it back if it cannot write).
	 */
	lost = atomic_long_read(&rb->lost);
	if (unlikely(lost))
		lost = atomic_long_xchg(&rb->lost, 0);
	if (unlikely(lost)) {
		size += sizeof(struct perf_event_header) + 2 * sizeof(u64);
		if (event->attr.sample_id_all)
			size += event->id_header_size;
	}

	preempt_disable();
	atomic_inc(&rb->nest);
	/* Inside before claiming: pairs with perf_output_put_handle(). */
	smp_mb__after_atomic();
	handle->wakeup = atomic_long_read(&rb->wakeup);

	pos = atomic_long_read(&rb->head);
	do {
		head = pos;
		tail = READ_ONCE(rb->user_page->data_tail);
		if (!rb->overwrite &&
		    unlikely(!perf_rb_has_room(head, tail, perf_data_size(rb), size, backward)))
			goto full;
		head = backward ? head - size : head + size;
	} while (!atomic_long_try_cmpxchg(&rb->head, &pos, head));

	/* Where the claimed bytes start, counted upwards. */
	if (backward) {
		offset = head;
		head = -head;
	} else {
		offset = pos;
	}

	/* Every watermark's worth of data is a wakeup. */
	if (unlikely(head - atomic_long_read(&rb->wakeup) > rb->watermark))
		atomic_long_add(rb->watermark, &rb->wakeup);

	handle->page = (offset >> PAGE_SHIFT) & (rb->nr_pages - 1);
	offset &= PAGE_SIZE - 1;
	handle->addr = rb_data_page(rb, handle->page) + offset;
	handle->size = PAGE_SIZE - offset;

	if (unlikely(lost))
		output_lost(handle, event, lost);
	return 0;

full:
	atomic_long_add(lost + 1, &rb->lost);
	atomic64_inc(&event->ov->lost_samples);
	perf_output_put_handle(handle);
none:
	rcu_read_unlock();
	return -ENOSPC;
}

/**
 * perf_output_begin_forward - claim room for a record, oldest first
 * @handle: filled in for perf_output_copy() and perf_output_end()
 * @data: the sample data (for a LOST record's trailer)
 * @event: the event writing
 * @size: bytes to claim
 *
 * Return: 0, or -ENOSPC when the record is lost (counted) or there is no
 * buffer.
 */
int perf_output_begin_forward(struct perf_output_handle *handle,
			      struct perf_sample_data *data,
			      struct perf_event *event, unsigned int size)
{
	return perf_output_claim(handle, data, event, size, false);
}

/**
 * perf_output_begin_backward - claim room for a record, newest first
 * @handle: filled in for perf_output_copy() and perf_output_end()
 * @data: the sample data
 * @event: the event writing
 * @size: bytes to claim
 *
 * Return: 0 or -ENOSPC.
 */
int perf_output_begin_backward(struct perf_output_handle *handle,
			       struct perf_sample_data *data,
			       struct perf_event *event, unsigned int size)
{
	return perf_output_claim(handle, data, event, size, true);
}

/**
 * perf_output_begin - claim room for a record in the event's direction
 * @handle: filled in for perf_output_copy() and perf_output_end()
 * @data: the sample data
 * @event: the event writing
 * @size: bytes to claim
 *
 * Return: 0 or -ENOSPC.
 */
int perf_output_begin(struct perf_output_handle *handle,
		      struct perf_sample_data *data,
		      struct perf_event *event, unsigned int size)
{
	return perf_output_claim(handle, data, event, size,
				 unlikely(is_write_backward(event)));
}

static void rb_next_page(struct perf_output_handle *handle)
{
	struct perf_buffer *rb = handle->rb;

	handle->page = (handle->page + 1) & (rb->nr_pages - 1);
	handle->addr = rb_data_page(rb, handle->page);
	handle->size = PAGE_SIZE;
}

/* Move past @n bytes of the current page, to the next page at its end. */
static void rb_advance(struct perf_output_handle *handle, unsigned int n)
{
	handle->addr += n;
	handle->size -= n;
	if (!handle->size)
		rb_next_page(handle);
}

/**
 * perf_output_copy - append bytes to a claimed record
 * @handle: the handle
 * @buf: the bytes
 * @len: how many
 *
 * Return: bytes not copied (always 0).
 */
unsigned int perf_output_copy(struct perf_output_handle *handle,
			      const void *buf, unsigned int len)
{
	while (len) {
		unsigned int n = min_t(unsigned long, len, handle->size);

		memcpy(handle->addr, buf, n);
		buf += n;
		len -= n;
		rb_advance(handle, n);
	}
	return 0;
}
EXPORT_SYMBOL_GPL(perf_output_copy);

/**
 * perf_output_skip - leave bytes of a claimed record as they are
 * @handle: the handle
 * @len: how many
 *
 * Return: bytes not skipped (always 0).
 */
unsigned int perf_output_skip(struct perf_output_handle *handle,
			      unsigned int len)
{
	while (len) {
		unsigned int n = min_t(unsigned long, len, handle->size);

		len -= n;
		rb_advance(handle, n);
	}
	return 0;
}

/* A perf_copy_f for user memory: no page faults, NMI-safe. */
static unsigned long copy_from_user_nofault_fn(void *dst, const void *src,
					       unsigned long off,
					       unsigned long len)
{
	unsigned long left;

	pagefault_disable();
	left = __copy_from_user_inatomic(dst, (const void __user __force *)src + off,
					 len);
	pagefault_enable();
	return left;
}

/**
 * perf_output_copy_fn - append bytes that a function copies out
 * @handle: the handle
 * @copy: copies @len bytes from offset @off of @src; returns how many it
 *	could not copy
 * @src: the source, as @copy understands it (a socket buffer, say)
 * @len: how many
 *
 * Bytes @copy could not copy are left as zeroes.
 *
 * Return: bytes that could not be copied.
 */
unsigned int perf_output_copy_fn(struct perf_output_handle *handle,
				 perf_copy_f copy, const void *src,
				 unsigned int len)
{
	unsigned int missed = 0, off = 0;

	while (len) {
		unsigned int n = min_t(unsigned long, len, handle->size);
		unsigned long left = copy(handle->addr, src, off, n);

		if (left) {
			left = min_t(unsigned long, left, n);
			memset(handle->addr + n - left, 0, left);
			missed += left;
		}
		off += n;
		len -= n;
		rb_advance(handle, n);
	}
	return missed;
}

/**
 * perf_output_copy_user - append bytes read from user space
 * @handle: the handle
 * @ubuf: the user address
 * @len: how many
 *
 * Bytes that cannot be read (the copy runs with page faults disabled) are
 * left as zeroes.
 *
 * Return: bytes that could not be read.
 */
unsigned int perf_output_copy_user(struct perf_output_handle *handle,
				   const void __user *ubuf, unsigned int len)
{
	return perf_output_copy_fn(handle, copy_from_user_nofault_fn,
				   (const void __force *)ubuf, len);
}

/**
 * perf_output_end - finish a record; publishes it when outermost
 * @handle: the handle
 */
void perf_output_end(struct perf_output_handle *handle)
{
	perf_output_put_handle(handle);
	rcu_read_unlock();
}

static struct page *rb_page(struct perf_buffer *rb, unsigned long pgoff)
{
	if (pgoff > rb->nr_pages)
		return perf_aux_page(rb, pgoff);
	return rb->pages[pgoff];
}

static vm_fault_t perf_mmap_fault(struct vm_fault *vmf)
{
	struct perf_event *event = vmf->vma->vm_file->private_data;
	vm_fault_t ret = VM_FAULT_SIGBUS;
	struct perf_buffer *rb;
	struct page *page;

	rcu_read_lock();
	rb = rcu_dereference(event->rb);
	if (!rb)
		goto unlock;
	/* Only the control page may be written by user space. */
	if (vmf->pgoff && (vmf->flags & FAULT_FLAG_WRITE))
		goto unlock;
	page = rb_page(rb, vmf->pgoff);
	if (!page)
		goto unlock;
	get_page(page);
	page->mapping = vmf->vma->vm_file->f_mapping;
	page->index = vmf->pgoff;
	vmf->page = page;
	ret = 0;
unlock:
	rcu_read_unlock();
	return ret;
}

static vm_fault_t perf_mmap_mkwrite(struct vm_fault *vmf)
{
	return vmf->pgoff ? VM_FAULT_SIGBUS : 0;
}

/* A mapping is duplicated (split by mprotect or munmap of a part). */
static void perf_mmap_open(struct vm_area_struct *vma)
{
	struct perf_event *event = vma->vm_file->private_data;

	atomic_inc(&event->ov->mmap_count);
	atomic_inc(&event->rb->mmap_count);
	perf_aux_vma_open(event->rb, vma);
	if (event->pmu->event_mapped)
		event->pmu->event_mapped(event, vma->vm_mm);
}

/* Detach every event still redirected into @rb, which nobody maps now. */
static void rb_detach_all(struct perf_buffer *rb)
{
	struct perf_overflow_state *ov;
	struct perf_event *event;

	for (;;) {
		rcu_read_lock();
		list_for_each_entry_rcu(ov, &rb->event_list, rb_entry) {
			event = ov->event;
			if (!perf_event_get_ref(event))
				continue;
			rcu_read_unlock();

			mutex_lock(&event->mmap_mutex);
			if (event->rb == rb)
				ring_buffer_attach(event, NULL);
			mutex_unlock(&event->mmap_mutex);
			put_event(event);
			goto again;
		}
		rcu_read_unlock();
		return;
again:
		;
	}
}

/*
 * The buffer's last unmapping, whichever event's mapping it is, is seen by
 * exactly one caller: the one whose decrement of rb->mmap_count reaches
 * zero.  That caller alone returns the charge and detaches the events
 * still redirected into the buffer; a mapping made meanwhile
 * (perf_mmap()) finds the count at zero and makes a buffer of its own.
 */
static void perf_mmap_close(struct vm_area_struct *vma)
{
	struct perf_event *event = vma->vm_file->private_data;
	struct perf_buffer *rb = ring_buffer_get(event);
	struct user_struct *user = rb->mmap_user;
	unsigned long locked = rb->mmap_locked;
	unsigned long pages = rb->nr_pages + 1;
	bool last;

	if (event->pmu->event_unmapped)
		event->pmu->event_unmapped(event, vma->vm_mm);

	/* The AUX area goes with its last mapping, before the buffer. */
	if (vma->vm_pgoff)
		perf_aux_unmap(event, rb, vma);
	last = atomic_dec_and_test(&rb->mmap_count);
	if (atomic_dec_and_mutex_lock(&event->ov->mmap_count, &event->mmap_mutex)) {
		/* No mapping through this event is left: it stops writing. */
		if (event->rb == rb)
			ring_buffer_attach(event, NULL);
		mutex_unlock(&event->mmap_mutex);
	}
	if (!last)
		goto out;

	rb_detach_all(rb);
	atomic_long_sub(pages - locked, &user->perf_mlock);
	atomic64_sub(locked, &vma->vm_mm->pinned_vm);
	free_uid(user);
out:
	ring_buffer_put(rb);
}

/*
 * A mapping is all or nothing: splitting it (partial munmap, mremap or
 * mprotect of a part, MAP_FIXED over a part) would leave pieces whose
 * offsets and sizes the accounting in open/close cannot match.
 */
static int perf_mmap_may_split(struct vm_area_struct *vma, unsigned long addr)
{
	return -EINVAL;
}

static const struct vm_operations_struct perf_mmap_vmops = {
	.open		= perf_mmap_open,
	.close		= perf_mmap_close,
	.fault		= perf_mmap_fault,
	.page_mkwrite	= perf_mmap_mkwrite,
	.may_split	= perf_mmap_may_split,
};

/**
 * perf_rb_charge - charge mapped buffer pages
 * @vma: the mapping
 * @pages: how many
 * @user_part: set to the pages charged to the user's allowance
 * @pinned_part: set to those beyond it, charged to the mm's pinned_vm
 *
 * Return: 0, or -EPERM past RLIMIT_MEMLOCK without CAP_IPC_LOCK.
 */
int perf_rb_charge(struct vm_area_struct *vma, unsigned long pages,
		   unsigned long *user_part, unsigned long *pinned_part)
{
	unsigned long limit = (sysctl_perf_event_mlock >> (PAGE_SHIFT - 10)) *
			      num_online_cpus();
	unsigned long used = atomic_long_read(&current_user()->perf_mlock);
	unsigned long extra = 0, lock_limit;

	used = min(used, limit) + pages;
	if (used > limit)
		extra = used - limit;

	lock_limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	if (atomic64_read(&vma->vm_mm->pinned_vm) + extra > lock_limit &&
	    perf_is_paranoid() && !capable(CAP_IPC_LOCK))
		return -EPERM;

	*user_part = pages - extra;
	*pinned_part = extra;
	return 0;
}

/**
 * perf_mmap - map an event's ring buffer or its AUX area
 * @file: the event's file
 * @vma: the mapping: shared; at offset 0, 1 + 2^n pages (the buffer);
 *	elsewhere the AUX area (perf_aux_mmap())
 *
 * A second mapping of the same event must have the same size and shares
 * the buffer.
 *
 * Return: 0 or a negative errno.
 */
int perf_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct perf_event *event = file->private_data;
	unsigned long size = vma->vm_end - vma->vm_start;
	unsigned long nr_pages, user_part = 0, pinned_part = 0;
	struct perf_buffer *rb;
	int ret;

	/* Inherited per-task events would all write to one buffer. */
	if (event->cpu == -1 && event->attr.inherit)
		return -EINVAL;
	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	ret = security_perf_event_read(event);
	if (ret)
		return ret;
	/* Any other offset is the AUX area's. */
	if (vma->vm_pgoff) {
		ret = perf_aux_mmap(event, vma);
		if (ret)
			return ret;
		goto mapped_vma;
	}

	nr_pages = size / PAGE_SIZE - 1;
	if (nr_pages && !is_power_of_2(nr_pages))
		return -EINVAL;
	if (size != PAGE_SIZE * (nr_pages + 1))
		return -EINVAL;

again:
	mutex_lock(&event->mmap_mutex);
	rb = event->rb;
	if (rb) {
		ret = -EINVAL;
		if (rb->nr_pages != nr_pages)
			goto unlock;
		if (!atomic_inc_not_zero(&rb->mmap_count)) {
			/* Its last mapping is going away: start afresh. */
			ring_buffer_attach(event, NULL);
			mutex_unlock(&event->mmap_mutex);
			goto again;
		}
		ret = 0;
		goto mapped;
	}

	ret = perf_event_get_overflow_state(event);
	if (ret)
		goto unlock;
	ret = perf_rb_charge(vma, nr_pages + 1, &user_part, &pinned_part);
	if (ret)
		goto unlock;
	rb = rb_alloc(nr_pages,
		      event->attr.watermark ? event->attr.wakeup_watermark : 0,
		      event->cpu, vma->vm_flags & VM_WRITE);
	ret = -ENOMEM;
	if (!rb)
		goto unlock;
	atomic_set(&rb->mmap_count, 1);
	rb->mmap_user = get_current_user();
	rb->mmap_locked = pinned_part;
	ring_buffer_attach(event, rb);
	perf_event_init_userpage(event, rb);
	perf_event_update_userpage(event);

	atomic_long_add(user_part, &current_user()->perf_mlock);
	atomic64_add(pinned_part, &vma->vm_mm->pinned_vm);
	ret = 0;
mapped:
	atomic_inc(&event->ov->mmap_count);
unlock:
	mutex_unlock(&event->mmap_mutex);
	if (ret)
		return ret;
mapped_vma:
	vm_flags_set(vma, VM_DONTCOPY | VM_DONTEXPAND | VM_DONTDUMP);
	vma->vm_ops = &perf_mmap_vmops;
	if (event->pmu->event_mapped)
		event->pmu->event_mapped(event, vma->vm_mm);
	return 0;
}

static void mutex_lock_pair(struct mutex *a, struct mutex *b)
{
	if (b < a)
		swap(a, b);
	mutex_lock(a);
	mutex_lock_nested(b, SINGLE_DEPTH_NESTING);
}

/**
 * perf_event_set_output - make @event write into @output's buffer
 * @event: the event
 * @output: the event whose mapped buffer to share, or NULL to stop
 *
 * Both must count on the same CPU (or, CPU-wide buffers aside, watch the
 * same task), use the same clock and write in the same direction; @event
 * must not be mapped itself.
 *
 * Return: 0 or -EINVAL.
 */
int perf_event_set_output(struct perf_event *event, struct perf_event *output)
{
	struct perf_buffer *rb = NULL;
	int ret = -EINVAL;

	if (!output) {
		mutex_lock(&event->mmap_mutex);
		goto set;
	}
	if (event == output || output->cpu != event->cpu)
		return -EINVAL;
	if (output->cpu == -1 && output->hw.target != event->hw.target)
		return -EINVAL;
	if (output->clock != event->clock)
		return -EINVAL;
	if (is_write_backward(output) != is_write_backward(event))
		return -EINVAL;
	/* One AUX area has one PMU's trace. */
	if (has_aux(event) && has_aux(output) && event->pmu != output->pmu)
		return -EINVAL;

	mutex_lock_pair(&event->mmap_mutex, &output->mmap_mutex);
set:
	if (event->ov && atomic_read(&event->ov->mmap_count))
		goto unlock;
	if (output) {
		rb = ring_buffer_get(output);
		if (!rb)
			goto unlock;
		/* Only a buffer someone maps can be shared. */
		if (!atomic_read(&rb->mmap_count)) {
			ring_buffer_put(rb);
			goto unlock;
		}
		ret = perf_event_get_overflow_state(event);
		if (ret) {
			ring_buffer_put(rb);
			goto unlock;
		}
	}
	ring_buffer_attach(event, rb);
	ret = 0;
unlock:
	mutex_unlock(&event->mmap_mutex);
	if (output)
		mutex_unlock(&output->mmap_mutex);
	return ret;
}

/**
 * perf_event_pause_output - stop or restart writing to a buffer
 * @event: an event writing to the buffer
 * @pause: stop when true
 *
 * Return: 0, or -EINVAL without a buffer with data pages.
 */
int perf_event_pause_output(struct perf_event *event, bool pause)
{
	struct perf_buffer *rb = ring_buffer_get(event);

	if (!rb || !rb->nr_pages) {
		ring_buffer_put(rb);
		return -EINVAL;
	}
	WRITE_ONCE(rb->paused, pause);
	ring_buffer_put(rb);
	return 0;
}

/**
 * perf_rb_poll - what poll(2) reports for an event with a buffer
 * @event: the event
 *
 * Return: the pending poll bits, consumed; EPOLLHUP without a buffer.
 */
__poll_t perf_rb_poll(struct perf_event *event)
{
	struct perf_buffer *rb;
	__poll_t events = EPOLLHUP;

	mutex_lock(&event->mmap_mutex);
	rb = event->rb;
	if (rb)
		events = atomic_xchg(&rb->poll, 0);
	mutex_unlock(&event->mmap_mutex);
	return events;
}
