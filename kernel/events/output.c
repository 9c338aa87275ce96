// SPDX-License-Identifier: GPL-2.0
/*
 * Building records: samples (every sample_type bit, in the order the ABI
 * lays them out), the sample_id trailer that every record may carry, and
 * the READ record of inherit_stat.  Side-band records are in sideband.c.
 *
 * Context: samples are built in the context of the overflow (NMI, hard
 * interrupt, or the task raising a software event), with interrupts off
 * and without locks; nothing here may sleep or take a lock.
 */
#include <linux/mm.h>
#include <linux/io.h>

#include "internal.h"

/* ---- sizes ---- */

/* The sample fields after the header, a u64 each, stored from @data. */
#define SAMPLE_FIXED	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |	\
			 PERF_SAMPLE_TID | PERF_SAMPLE_TIME |		\
			 PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |		\
			 PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |	\
			 PERF_SAMPLE_PERIOD)

/* The sample body fields of one u64 each, but those of the sample_id. */
#define SAMPLE_BODY_U64	(PERF_SAMPLE_IP | PERF_SAMPLE_ADDR |		\
			 PERF_SAMPLE_PERIOD | PERF_SAMPLE_WEIGHT_TYPE |	\
			 PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_TRANSACTION |	\
			 PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_CGROUP |	\
			 PERF_SAMPLE_DATA_PAGE_SIZE |			\
			 PERF_SAMPLE_CODE_PAGE_SIZE)
/* The fields a sample shares with the sample_id trailer, a u64 each. */
#define SAMPLE_ID_U64	(PERF_SAMPLE_TID | PERF_SAMPLE_TIME |		\
			 PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_ID |	\
			 PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU)

/**
 * perf_event_compute_header_sizes - sizes of a sample's fixed parts
 * @event: the event; its read_size is current
 *
 * header_size: the sample body fields of known size, but those shared
 * with the sample_id trailer, which make up id_header_size.
 */
void perf_event_compute_header_sizes(struct perf_event *event)
{
	u64 st = event->attr.sample_type;

	event->header_size = hweight64(st & SAMPLE_BODY_U64) * sizeof(u64) +
			     ((st & PERF_SAMPLE_READ) ? event->read_size : 0);
	event->id_header_size = hweight64(st & SAMPLE_ID_U64) * sizeof(u64);
}

/* ---- identity of records ---- */

/**
 * perf_event_clock - the timestamp records of @event carry
 * @event: the event
 *
 * Return: nanoseconds of the event's clock (local_clock or clockid).
 */
u64 perf_event_clock(struct perf_event *event)
{
	return event->clock();
}

static void fill_id_fields(struct perf_sample_data *data,
			   struct perf_event *event, u64 st)
{
	data->type = st;
	if (st & PERF_SAMPLE_TID) {
		data->tid_entry.pid = perf_event_pid(event, current);
		data->tid_entry.tid = perf_event_tid(event, current);
	}
	if (st & PERF_SAMPLE_TIME)
		data->time = perf_event_clock(event);
	if (st & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER))
		data->id = perf_event_primary_id(event);
	if (st & PERF_SAMPLE_STREAM_ID)
		data->stream_id = event->id;
	if (st & PERF_SAMPLE_CPU) {
		data->cpu_entry.cpu = raw_smp_processor_id();
		data->cpu_entry.reserved = 0;
	}
}

/**
 * perf_event_header__init_id - prepare the sample_id trailer of a record
 * @header: the record's header; its size grows by the trailer
 * @data: filled with the trailer's values
 * @event: the event the record is for
 */
void perf_event_header__init_id(struct perf_event_header *header,
				struct perf_sample_data *data,
				struct perf_event *event)
{
	if (!event->attr.sample_id_all)
		return;
	header->size += event->id_header_size;
	fill_id_fields(data, event, event->attr.sample_type);
}

/**
 * perf_event__output_id_sample - write the sample_id trailer
 * @event: the event
 * @handle: the record being written
 * @data: what perf_event_header__init_id() filled in
 *
 * Layout: pid/tid, time, id, stream_id, cpu, identifier, each if asked.
 */
void perf_event__output_id_sample(struct perf_event *event,
				  struct perf_output_handle *handle,
				  struct perf_sample_data *data)
{
	u64 st = data->type;

	if (!event->attr.sample_id_all)
		return;
	if (st & PERF_SAMPLE_TID)
		perf_output_put(handle, data->tid_entry);
	if (st & PERF_SAMPLE_TIME)
		perf_output_put(handle, data->time);
	if (st & PERF_SAMPLE_ID)
		perf_output_put(handle, data->id);
	if (st & PERF_SAMPLE_STREAM_ID)
		perf_output_put(handle, data->stream_id);
	if (st & PERF_SAMPLE_CPU)
		perf_output_put(handle, data->cpu_entry);
	if (st & PERF_SAMPLE_IDENTIFIER)
		perf_output_put(handle, data->id);
}

/**
 * perf_event_header__init - start a side-band record's header
 * @header: the header
 * @data: the trailer's values
 * @type: PERF_RECORD_*
 * @misc: misc bits
 * @size: size without the trailer
 * @event: the event it is for
 */
void perf_event_header__init(struct perf_event_header *header,
			     struct perf_sample_data *data, u32 type, u16 misc,
			     u16 size, struct perf_event *event)
{
	*header = (struct perf_event_header){ .type = type, .misc = misc, .size = size };
	perf_event_header__init_id(header, data, event);
}

/* ---- samples ---- */

static bool inherit_sample_read(struct perf_event *event)
{
	return event->attr.inherit && (event->attr.sample_type & PERF_SAMPLE_READ);
}

/* A sample's count: with inherit, only the task's own share. */
static u64 sample_count(struct perf_event *event, bool self)
{
	return self ? local64_read(&event->count) : perf_event_count(event);
}

static void output_read_one(struct perf_output_handle *handle,
			    struct perf_event *event, u64 enabled, u64 running)
{
	u64 rf = event->attr.read_format, v[5];
	int n = 0;

	v[n++] = sample_count(event, inherit_sample_read(event));
	if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
		v[n++] = enabled + perf_child_time_enabled(event);
	if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
		v[n++] = running + perf_child_time_running(event);
	if (rf & PERF_FORMAT_ID)
		v[n++] = perf_event_primary_id(event);
	if (rf & PERF_FORMAT_LOST)
		v[n++] = perf_event_lost_samples(event);
	perf_output_copy(handle, v, n * sizeof(u64));
}

static void output_read_member(struct perf_output_handle *handle,
			       struct perf_event *member, struct perf_event *self,
			       u64 rf, bool own)
{
	u64 v[3];
	int n = 0;

	/* Members on this CPU's PMU are read fresh; @self already was. */
	if (member != self && member->state == PERF_EVENT_STATE_ACTIVE &&
	    member->oncpu == smp_processor_id())
		member->pmu->read(member);
	v[n++] = sample_count(member, own);
	if (rf & PERF_FORMAT_ID)
		v[n++] = perf_event_primary_id(member);
	if (rf & PERF_FORMAT_LOST)
		v[n++] = perf_event_lost_samples(member);
	perf_output_copy(handle, v, n * sizeof(u64));
}

static void output_read_group(struct perf_output_handle *handle,
			      struct perf_event *event, u64 enabled, u64 running)
{
	struct perf_event *leader = event->group_leader, *sibling;
	u64 rf = event->attr.read_format, v[3];
	bool own = inherit_sample_read(event);
	unsigned long flags;
	int n = 0;

	local_irq_save(flags);
	v[n++] = 1 + leader->nr_siblings;
	if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
		v[n++] = enabled;
	if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
		v[n++] = running;
	perf_output_copy(handle, v, n * sizeof(u64));
	output_read_member(handle, leader, event, rf, own);
	for_each_sibling_event(sibling, leader)
		output_read_member(handle, sibling, event, rf, own);
	local_irq_restore(flags);
}

static void output_read(struct perf_output_handle *handle,
			struct perf_event *event)
{
	u64 enabled = 0, running = 0;

	if (event->attr.read_format & (PERF_FORMAT_TOTAL_TIME_ENABLED |
				       PERF_FORMAT_TOTAL_TIME_RUNNING))
		perf_event_times_now(event, perf_clock(), &enabled, &running);
	if (event->attr.read_format & PERF_FORMAT_GROUP)
		output_read_group(handle, event, enabled, running);
	else
		output_read_one(handle, event, enabled, running);
}

static void output_regs(struct perf_output_handle *handle,
			struct pt_regs *regs, u64 mask)
{
	int bit;

	for_each_set_bit(bit, (const unsigned long *)&mask,
			 sizeof(mask) * BITS_PER_BYTE) {
		u64 val = perf_reg_value(regs, bit);

		perf_output_put(handle, val);
	}
}

/* Registers of the user-space side of the sampled task, if any. */
static void sample_regs_user(struct perf_regs *ur, struct pt_regs *regs)
{
	if (user_mode(regs)) {
		ur->abi = perf_reg_abi(current);
		ur->regs = regs;
	} else if (!(current->flags & PF_KTHREAD)) {
		perf_get_regs_user(ur, regs);
	} else {
		ur->abi = PERF_SAMPLE_REGS_ABI_NONE;
		ur->regs = NULL;
	}
}

static void sample_regs_intr(struct perf_regs *ir, struct pt_regs *regs)
{
	ir->regs = regs;
	ir->abi = perf_reg_abi(current);
}

/*
 * How much of the user stack fits in a sample: the request, cut to what
 * lies between the stack pointer and the end of the stack's mapping, and
 * to what room is left under the 64 KiB record limit.
 */
static u16 stack_user_size(struct pt_regs *regs, u16 want, u16 header_size)
{
	unsigned long sp, room;
	u64 task_size;

	if (!regs)
		return 0;
	sp = perf_user_stack_pointer(regs);
	task_size = TASK_SIZE;
	if (sp >= task_size)
		return 0;
	room = min_t(u64, task_size - sp, want);
	if (header_size + sizeof(u64) * 2 + room > USHRT_MAX)
		room = USHRT_MAX - header_size - sizeof(u64) * 2;
	return round_down(room, sizeof(u64));
}

/**
 * perf_arch_mapped_page_size - size of the page that maps @addr in @mm
 * @mm: the address space
 * @addr: the address
 *
 * The architecture walks its page tables; without such a walk the size
 * is reported as 0 (unknown).  Called with interrupts off.
 *
 * Return: the size in bytes, or 0.
 */
u64 __weak perf_arch_mapped_page_size(struct mm_struct *mm, unsigned long addr)
{
	return 0;
}

/* Page size behind @addr, for DATA_PAGE_SIZE and CODE_PAGE_SIZE. */
static u64 mapped_page_size(unsigned long addr)
{
	struct mm_struct *mm = current->mm;
	unsigned long flags;
	u64 size;

	if (!addr)
		return 0;
	if (!mm || addr >= TASK_SIZE)
		mm = &init_mm;
	/* Interrupts off keep the page tables from being freed meanwhile. */
	local_irq_save(flags);
	size = perf_arch_mapped_page_size(mm, addr);
	local_irq_restore(flags);
	return size;
}

/*
 * The physical address behind a sample's data address, when it can be
 * found without sleeping: directly-mapped kernel memory, or a user page
 * that is present (pinned for the moment of the lookup).  0 otherwise.
 */
static u64 phys_of(u64 addr)
{
	struct page *page;
	u64 phys = 0;

	if (!addr)
		return 0;
	if (addr >= TASK_SIZE) {
		void *kaddr = (void *)(uintptr_t)addr;

		if (virt_addr_valid(kaddr) && !is_vmalloc_addr(kaddr))
			phys = virt_to_phys(kaddr);
		return phys;
	}
	if (!current->mm)
		return 0;
	pagefault_disable();
	if (get_user_page_fast_only(addr, 0, &page)) {
		phys = page_to_phys(page) + offset_in_page(addr);
		put_page(page);
	}
	pagefault_enable();
	return phys;
}

/*
 * The branch stack: the number of records, the hardware's index of the
 * newest when the filter asks for it, the records, and per record the
 * counts when the PMU gave them.  No stack: a 0 alone.
 */
static void output_brstack(struct perf_output_handle *handle,
			   struct perf_sample_data *data,
			   struct perf_event *event)
{
	struct perf_branch_stack *brs = data->br_stack;
	u64 nr = brs ? brs->nr : 0;

	perf_output_put(handle, nr);
	if (!brs)
		return;
	if (branch_sample_hw_index(event))
		perf_output_put(handle, brs->hw_idx);
	perf_output_copy(handle, brs->entries, nr * sizeof(brs->entries[0]));
	if (data->br_stack_cntr)
		perf_output_copy(handle, data->br_stack_cntr, nr * sizeof(u64));
}

/* u32 size, the fragments in order, zeroes up to a u64 boundary. */
static void output_raw(struct perf_output_handle *handle,
		       struct perf_raw_record *raw)
{
	struct perf_raw_frag *frag = &raw->frag;
	u64 zero = 0;

	perf_output_put(handle, raw->size);
	for (;;) {
		if (frag->copy)
			perf_output_copy_fn(handle, frag->copy, frag->data, frag->size);
		else
			perf_output_copy(handle, frag->data, frag->size);
		if (perf_raw_frag_last(frag))
			break;
		frag = frag->next;
	}
	perf_output_copy(handle, &zero, frag->pad);
}

/**
 * perf_prepare_sample - gather what @event's sample_type asks for
 * @data: the sample; what the PMU filled (sample_flags) is kept
 * @event: the event
 * @regs: the interrupted registers
 *
 * Beyond what perf_sample_data_init() sets, @data may be uninitialized
 * (the callers keep it so, to save clearing it on every sample): every
 * field the record needs is set here unless its sample_flags bit says the
 * PMU set it, and nothing reads a field before that.
 */
void perf_prepare_sample(struct perf_sample_data *data,
			 struct perf_event *event, struct pt_regs *regs)
{
	u64 st = event->attr.sample_type;
	u64 todo = st & ~data->sample_flags;
	u64 empty, time = 0;

	/* A time the PMU gave (a record's) is kept. */
	if (data->sample_flags & PERF_SAMPLE_TIME)
		time = data->time;
	fill_id_fields(data, event, st);
	if (data->sample_flags & PERF_SAMPLE_TIME)
		data->time = time;

	/* CODE_PAGE_SIZE is about the sampled instruction: it needs the IP. */
	if (todo & (PERF_SAMPLE_IP | PERF_SAMPLE_CODE_PAGE_SIZE))
		data->ip = perf_instruction_pointer(regs);
	/* No address given: 0, for ADDR and for what is derived from it. */
	if (!(data->sample_flags & PERF_SAMPLE_ADDR) &&
	    (st & (PERF_SAMPLE_ADDR | PERF_SAMPLE_PHYS_ADDR |
		   PERF_SAMPLE_DATA_PAGE_SIZE)))
		data->addr = 0;
	if (todo & PERF_SAMPLE_CALLCHAIN) {
		data->callchain = perf_callchain(event, regs);
		data->dyn_size += (1 + data->callchain->nr) * sizeof(u64);
		data->sample_flags |= PERF_SAMPLE_CALLCHAIN;
	}
	/* Fixed fields and a callchain only: all done. */
	if (!(st & ~(SAMPLE_FIXED | PERF_SAMPLE_CALLCHAIN)))
		return;
	/*
	 * Nothing raw or branchy to give: an empty u64 each (a branch stack
	 * of no records, without its index).
	 */
	if (todo & PERF_SAMPLE_RAW)
		data->raw = NULL;
	if (todo & PERF_SAMPLE_BRANCH_STACK)
		data->br_stack = NULL;
	empty = todo & (PERF_SAMPLE_RAW | PERF_SAMPLE_BRANCH_STACK);
	data->dyn_size += hweight64(empty) * sizeof(u64);
	data->sample_flags |= empty;
	if ((st & (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)) &&
	    !(data->sample_flags & PERF_SAMPLE_REGS_USER))
		sample_regs_user(&data->regs_user, regs);
	/*
	 * What adds to dyn_size is marked done: the same data is prepared
	 * again for each further period a hit crosses.
	 */
	if (todo & PERF_SAMPLE_REGS_USER) {
		int sz = sizeof(u64);

		if (data->regs_user.regs)
			sz += hweight64(event->attr.sample_regs_user) * sizeof(u64);
		data->dyn_size += sz;
		data->sample_flags |= PERF_SAMPLE_REGS_USER;
	}
	if (todo & PERF_SAMPLE_STACK_USER) {
		u16 hdr = sizeof(struct perf_event_header) + event->header_size +
			  event->id_header_size + data->dyn_size;
		u16 sz = stack_user_size(data->regs_user.regs,
					 event->attr.sample_stack_user, hdr);

		data->stack_user_size = sz;
		/* size, data, dyn_size; without registers just the size. */
		data->dyn_size += sz ? sizeof(u64) * 2 + sz : sizeof(u64);
		data->sample_flags |= PERF_SAMPLE_STACK_USER;
	}
	if (todo & PERF_SAMPLE_WEIGHT_TYPE)
		data->weight.full = 0;
	if (todo & PERF_SAMPLE_DATA_SRC)
		data->data_src.val = PERF_MEM_NA;
	if (todo & PERF_SAMPLE_TRANSACTION)
		data->txn = 0;
	if (todo & PERF_SAMPLE_REGS_INTR) {
		int sz = sizeof(u64);

		sample_regs_intr(&data->regs_intr, regs);
		if (data->regs_intr.regs)
			sz += hweight64(event->attr.sample_regs_intr) * sizeof(u64);
		data->dyn_size += sz;
		data->sample_flags |= PERF_SAMPLE_REGS_INTR;
	}
	if (todo & PERF_SAMPLE_PHYS_ADDR)
		data->phys_addr = phys_of(data->addr);
	if (todo & PERF_SAMPLE_CGROUP)
		data->cgroup = perf_cgroup_sample_id();
	if (todo & PERF_SAMPLE_DATA_PAGE_SIZE)
		data->data_page_size = mapped_page_size(data->addr);
	if (todo & PERF_SAMPLE_CODE_PAGE_SIZE)
		data->code_page_size = mapped_page_size(data->ip);
	if (todo & PERF_SAMPLE_AUX) {
		data->aux_size = 0;
		data->dyn_size += sizeof(u64);
		data->sample_flags |= PERF_SAMPLE_AUX;
	}
}

/**
 * perf_prepare_header - the header of a sample record
 * @header: filled in
 * @data: the prepared sample
 * @event: the event
 * @regs: the interrupted registers
 */
void perf_prepare_header(struct perf_event_header *header,
			 struct perf_sample_data *data,
			 struct perf_event *event, struct pt_regs *regs)
{
	*header = (struct perf_event_header){
		.type = PERF_RECORD_SAMPLE,
		.misc = perf_misc_flags(regs),
		.size = perf_sample_data_size(data, event),
	};
}

/* The fixed fields of a sample, in record order, at @p; returns the end. */
static u64 *put_fixed_fields(u64 *p, struct perf_sample_data *data, u64 st)
{
	if (st & PERF_SAMPLE_IDENTIFIER)
		*p++ = data->id;
	if (st & PERF_SAMPLE_IP)
		*p++ = data->ip;
	if (st & PERF_SAMPLE_TID)
		memcpy(p++, &data->tid_entry, sizeof(u64));
	if (st & PERF_SAMPLE_TIME)
		*p++ = data->time;
	if (st & PERF_SAMPLE_ADDR)
		*p++ = data->addr;
	if (st & PERF_SAMPLE_ID)
		*p++ = data->id;
	if (st & PERF_SAMPLE_STREAM_ID)
		*p++ = data->stream_id;
	if (st & PERF_SAMPLE_CPU)
		memcpy(p++, &data->cpu_entry, sizeof(u64));
	if (st & PERF_SAMPLE_PERIOD)
		*p++ = data->period;
	return p;
}

/**
 * perf_output_sample - write a prepared sample
 * @handle: room claimed for perf_prepare_header()'s size
 * @header: the header
 * @data: the prepared sample
 * @event: the event
 */
void perf_output_sample(struct perf_output_handle *handle,
			struct perf_event_header *header,
			struct perf_sample_data *data,
			struct perf_event *event)
{
	u64 st = data->type;
	bool in_place = handle->size >= header->size;
	u64 buf[1 + 9] __uninitialized, *p, *end;

	/*
	 * The header and the fixed fields, a u64 each: stored in place when
	 * the whole record fits in the buffer page (the handle's size then
	 * stays above 0 until the record's last byte), else gathered and
	 * copied.
	 */
	p = in_place ? handle->addr : buf;
	memcpy(p, header, sizeof(*header));
	end = put_fixed_fields(p + 1, data, st);
	if (in_place) {
		handle->size -= (void *)end - handle->addr;
		handle->addr = end;
	} else {
		perf_output_copy(handle, buf, (end - buf) * sizeof(u64));
	}
	if (!(st & ~SAMPLE_FIXED))
		goto written;

	if (st & PERF_SAMPLE_READ)
		output_read(handle, event);
	if (st & PERF_SAMPLE_CALLCHAIN) {
		struct perf_callchain_entry *cc = data->callchain;
		u64 nr = cc->nr;

		perf_output_put(handle, nr);
		perf_output_copy(handle, cc->ip, nr * sizeof(u64));
	}
	if (st & PERF_SAMPLE_RAW) {
		struct perf_raw_record *raw = data->raw;

		if (raw) {
			output_raw(handle, raw);
		} else {
			struct { u32 size; u32 pad; } empty = { sizeof(u32), 0 };

			perf_output_put(handle, empty);
		}
	}
	if (st & PERF_SAMPLE_BRANCH_STACK)
		output_brstack(handle, data, event);
	if (st & PERF_SAMPLE_REGS_USER) {
		u64 abi = data->regs_user.abi;

		perf_output_put(handle, abi);
		if (abi)
			output_regs(handle, data->regs_user.regs,
				    event->attr.sample_regs_user);
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		u64 sz = data->stack_user_size;

		perf_output_put(handle, sz);
		if (sz) {
			unsigned long sp = perf_user_stack_pointer(data->regs_user.regs);
			u64 got = sz - perf_output_copy_user(handle,
							     (void __user *)sp, sz);

			perf_output_put(handle, got);
		}
	}
	if (st & PERF_SAMPLE_WEIGHT_TYPE)
		perf_output_put(handle, data->weight.full);
	if (st & PERF_SAMPLE_DATA_SRC)
		perf_output_put(handle, data->data_src.val);
	if (st & PERF_SAMPLE_TRANSACTION)
		perf_output_put(handle, data->txn);
	if (st & PERF_SAMPLE_REGS_INTR) {
		u64 abi = data->regs_intr.abi;

		perf_output_put(handle, abi);
		if (abi)
			output_regs(handle, data->regs_intr.regs,
				    event->attr.sample_regs_intr);
	}
	if (st & PERF_SAMPLE_PHYS_ADDR)
		perf_output_put(handle, data->phys_addr);
	if (st & PERF_SAMPLE_CGROUP)
		perf_output_put(handle, data->cgroup);
	if (st & PERF_SAMPLE_DATA_PAGE_SIZE)
		perf_output_put(handle, data->data_page_size);
	if (st & PERF_SAMPLE_CODE_PAGE_SIZE)
		perf_output_put(handle, data->code_page_size);
	if (st & PERF_SAMPLE_AUX) {
		u64 none = 0;

		perf_output_put(handle, none);
	}

written:
	/* wakeup_events counts records; a watermark counts bytes. */
	if (!event->attr.watermark && event->attr.wakeup_events) {
		struct perf_buffer *rb = handle->rb;

		if (atomic_long_inc_return(&rb->events) >= event->attr.wakeup_events) {
			atomic_long_sub(event->attr.wakeup_events, &rb->events);
			atomic_long_inc(&rb->wakeup);
		}
	}
}

static int output_sample(struct perf_event *event, struct perf_sample_data *data,
			 struct pt_regs *regs,
			 int (*begin)(struct perf_output_handle *,
				      struct perf_sample_data *,
				      struct perf_event *, unsigned int))
{
	struct perf_output_handle handle __uninitialized;
	struct perf_event_header header;
	int err;

	/* Callchains use a per-CPU buffer slot; RCU keeps them alive. */
	rcu_read_lock();
	perf_prepare_sample(data, event, regs);
	perf_prepare_header(&header, data, event, regs);
	err = begin(&handle, data, event, header.size);
	if (!err) {
		perf_output_sample(&handle, &header, data, event);
		perf_output_end(&handle);
	}
	rcu_read_unlock();
	return err;
}

/**
 * perf_event_output_forward - write a sample, oldest first
 * @event: the event
 * @data: the sample
 * @regs: the registers
 */
void perf_event_output_forward(struct perf_event *event,
			       struct perf_sample_data *data,
			       struct pt_regs *regs)
{
	output_sample(event, data, regs, perf_output_begin_forward);
}

/**
 * perf_event_output_backward - write a sample, newest first
 * @event: the event
 * @data: the sample
 * @regs: the registers
 */
void perf_event_output_backward(struct perf_event *event,
				struct perf_sample_data *data,
				struct pt_regs *regs)
{
	output_sample(event, data, regs, perf_output_begin_backward);
}

/**
 * perf_event_output - write a sample
 * @event: the event
 * @data: the sample
 * @regs: the registers
 *
 * Return: 0 when written, -ENOSPC when there is no room (or no buffer).
 */
int perf_event_output(struct perf_event *event, struct perf_sample_data *data,
		      struct pt_regs *regs)
{
	return output_sample(event, data, regs, perf_output_begin);
}

/* ---- READ (inherit_stat) ---- */

/**
 * perf_event_fixed_record - write a record of fixed size with its trailer
 * @event: the event whose buffer takes it
 * @rec: the record: its header's type, misc and size set, the fields
 *	after it filled in
 *
 * The header's size grows by the sample_id trailer the event asks for.
 */
void perf_event_fixed_record(struct perf_event *event,
			     struct perf_event_header *rec)
{
	struct perf_output_handle handle;
	struct perf_sample_data sample;
	unsigned int size = rec->size;

	perf_event_header__init_id(rec, &sample, event);
	if (perf_output_begin(&handle, &sample, event, rec->size))
		return;
	perf_output_copy(&handle, rec, size);
	perf_event__output_id_sample(event, &handle, &sample);
	perf_output_end(&handle);
}

/**
 * perf_event_read_record - an inherited copy's final count, at its exit
 * @event: the copy (its output goes to the original's buffer)
 * @task: the exiting task
 */
void perf_event_read_record(struct perf_event *event, struct task_struct *task)
{
	struct perf_output_handle handle;
	struct perf_sample_data sample;
	struct {
		struct perf_event_header	header;
		u32				pid, tid;
	} rec = {
		.pid = perf_event_pid(event, task),
		.tid = perf_event_tid(event, task),
	};

	perf_event_header__init(&rec.header, &sample, PERF_RECORD_READ, 0,
				sizeof(rec) + event->read_size, event);
	if (perf_output_begin(&handle, &sample, event, rec.header.size))
		return;
	perf_output_put(&handle, rec);
	output_read(&handle, event);
	perf_event__output_id_sample(event, &handle, &sample);
	perf_output_end(&handle);
}
