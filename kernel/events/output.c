// SPDX-License-Identifier: GPL-2.0
/*
 * Building records: samples (every sample_type bit, in the order the ABI
 * lays them out), the sample_id trailer of side-band records, and the
 * side-band records themselves (MMAP, MMAP2, COMM, FORK, EXIT, ...).
 *
 * Context: samples are built in the context of the overflow (NMI, hard
 * interrupt, or the task raising a software event), with interrupts off
 * and without locks; nothing here may sleep or take a lock except where
 * said.  Side-band hooks run in process context: whatever needs sleeping
 * (a path name, a build id) is gathered first, then the events that want
 * the record are walked with interrupts off, holding this CPU's context
 * lock and the current task's (perf_ctx_lock()), which keeps the lists
 * stable while the records are written.
 *
 * Which events get side-band records: those of the current task's context
 * and those of this CPU's context that ask for the kind, are enabled and
 * may count here.  Counters of events asking for each kind let every hook
 * return at once while nobody listens.
 */
#include <linux/mman.h>
#include <linux/pid_namespace.h>
#include <linux/buildid.h>
#include <linux/hugetlb.h>
#include <linux/proc_ns.h>
#include <linux/sched/mm.h>
#include <linux/dcache.h>
#include <linux/io.h>

#include "internal.h"

atomic_t perf_nr_mmap_events;
atomic_t perf_nr_comm_events;
atomic_t perf_nr_task_events;
atomic_t perf_nr_namespaces_events;
atomic_t perf_nr_switch_events;
atomic_t perf_nr_ksymbol_events;
atomic_t perf_nr_text_poke_events;
atomic_t perf_nr_build_id_events;

/* What each kind of side-band record an event asks for adds up to. */
static void sb_account(struct perf_event *event, int delta)
{
	struct perf_event_attr *a = &event->attr;

	if (event->parent)
		return;
	/* As upstream, mmap2 alone does not turn the mmap hook on. */
	if (a->mmap || a->mmap_data)
		atomic_add(delta, &perf_nr_mmap_events);
	if (a->build_id)
		atomic_add(delta, &perf_nr_build_id_events);
	if (a->comm)
		atomic_add(delta, &perf_nr_comm_events);
	if (a->task)
		atomic_add(delta, &perf_nr_task_events);
	if (a->namespaces)
		atomic_add(delta, &perf_nr_namespaces_events);
	if (a->context_switch)
		atomic_add(delta, &perf_nr_switch_events);
	if (a->ksymbol)
		atomic_add(delta, &perf_nr_ksymbol_events);
	if (a->text_poke)
		atomic_add(delta, &perf_nr_text_poke_events);
}

/**
 * perf_event_account_sb - count an event's side-band wishes in or out
 * @event: the event
 * @in: true when it is created, false when it goes
 */
void perf_event_account_sb(struct perf_event *event, bool in)
{
	sb_account(event, in ? 1 : -1);
}

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

static __always_inline u32 perf_event_pid(struct perf_event *event, struct task_struct *p)
{
	/* A task that is reaped has no pid in any namespace any more. */
	if (!pid_alive(p))
		return -1;
	/* The usual case, without a walk of the pid's namespace levels. */
	if (event->ns == &init_pid_ns)
		return task_tgid_nr(p);
	return task_tgid_nr_ns(p, event->ns);
}

static __always_inline u32 perf_event_tid(struct perf_event *event, struct task_struct *p)
{
	if (!pid_alive(p))
		return -1;
	if (event->ns == &init_pid_ns)
		return task_pid_nr(p);
	return task_pid_nr_ns(p, event->ns);
}

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
		v[n++] = atomic64_read(&event->lost_samples);
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
		v[n++] = atomic64_read(&member->lost_samples);
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

/**
 * perf_sample_attach_raw - make a one-piece raw record part of a sample
 * @data: the sample
 * @event: the event; nothing happens unless it samples PERF_SAMPLE_RAW
 * @raw: the record; frag.data and frag.size filled in
 */
void perf_sample_attach_raw(struct perf_sample_data *data,
			    struct perf_event *event, struct perf_raw_record *raw)
{
	if (!(event->attr.sample_type & PERF_SAMPLE_RAW))
		return;
	/* The u32 size field and the data together fill whole u64s. */
	raw->size = round_up(raw->frag.size + sizeof(u32), sizeof(u64)) - sizeof(u32);
	data->raw = raw;
	data->dyn_size += raw->size + sizeof(u32);
	data->sample_flags |= PERF_SAMPLE_RAW;
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
	u64 empty;

	fill_id_fields(data, event, st);

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
	/* Nothing raw or branchy to give: an empty u64 each. */
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
		data->cgroup = 0;
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
			/* u32 size, the data, zeroes up to a u64 boundary */
			u64 zero = 0;

			perf_output_put(handle, raw->size);
			perf_output_copy(handle, raw->frag.data, raw->frag.size);
			perf_output_copy(handle, &zero, raw->size - raw->frag.size);
		} else {
			struct { u32 size; u32 pad; } empty = { sizeof(u32), 0 };

			perf_output_put(handle, empty);
		}
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		u64 none = 0;

		perf_output_put(handle, none);
	}
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

/* ---- walking the events that want a side-band record ---- */

typedef void (*sb_output_t)(struct perf_event *event, void *data);

static void sb_walk_ctx(struct perf_event_context *ctx, sb_output_t fn, void *data)
{
	struct perf_event *event;

	list_for_each_entry(event, &ctx->event_list, event_entry) {
		if (event->state < PERF_EVENT_STATE_INACTIVE)
			continue;
		if (!event_filter_match(event))
			continue;
		fn(event, data);
	}
}

/*
 * Offer a record to this CPU's events and the current task's (or only
 * @task_ctx's, for records about a task that is not current's context).
 */
static void perf_iterate_sb(sb_output_t fn, void *data,
			    struct perf_event_context *task_ctx)
{
	struct perf_cpu_context *cpuctx;
	struct perf_event_context *ctx;
	unsigned long flags;

	local_irq_save(flags);
	cpuctx = this_cpu_ptr(&perf_cpu_context);
	ctx = task_ctx ? task_ctx : READ_ONCE(current->perf_event_ctxp);
	if (ctx == &cpuctx->ctx)
		ctx = NULL;
	perf_ctx_lock(cpuctx, ctx);
	if (!task_ctx)
		sb_walk_ctx(&cpuctx->ctx, fn, data);
	if (ctx)
		sb_walk_ctx(ctx, fn, data);
	perf_ctx_unlock(cpuctx, ctx);
	local_irq_restore(flags);
}

/* ---- FORK and EXIT ---- */

struct task_rec {
	struct task_struct		*task;
	bool				fork;
	struct {
		struct perf_event_header	header;
		u32				pid, ppid;
		u32				tid, ptid;
		u64				time;
	} rec;
};

static void task_output(struct perf_event *event, void *arg)
{
	struct task_rec *tr = arg;
	struct task_struct *t = tr->task;
	struct perf_output_handle handle;
	struct perf_sample_data sample;
	struct perf_event_attr *a = &event->attr;

	if (!(a->comm || a->mmap || a->mmap2 || a->mmap_data || a->task))
		return;

	perf_event_header__init(&tr->rec.header, &sample,
				tr->fork ? PERF_RECORD_FORK : PERF_RECORD_EXIT, 0,
				sizeof(tr->rec), event);
	if (perf_output_begin(&handle, &sample, event, tr->rec.header.size))
		return;
	tr->rec.pid = perf_event_pid(event, t);
	tr->rec.tid = perf_event_tid(event, t);
	if (tr->fork) {
		tr->rec.ppid = perf_event_pid(event, current);
		tr->rec.ptid = perf_event_tid(event, current);
	} else {
		/* As upstream: the parent's pid in both fields. */
		tr->rec.ppid = perf_event_pid(event, t->real_parent);
		tr->rec.ptid = perf_event_pid(event, t->real_parent);
	}
	tr->rec.time = perf_event_clock(event);
	perf_output_put(&handle, tr->rec);
	perf_event__output_id_sample(event, &handle, &sample);
	perf_output_end(&handle);
}

/**
 * perf_event_task_record - a task was created (in the parent) or exits
 * @task: the task
 * @ctx: the exiting task's context, or NULL (the current task's and CPU's)
 * @fork: true for FORK, false for EXIT
 */
void perf_event_task_record(struct task_struct *task,
			    struct perf_event_context *ctx, bool fork)
{
	struct task_rec tr = { .task = task, .fork = fork };

	if (!atomic_read(&perf_nr_task_events) &&
	    !atomic_read(&perf_nr_mmap_events) &&
	    !atomic_read(&perf_nr_comm_events))
		return;
	perf_iterate_sb(task_output, &tr, ctx);
}

/**
 * perf_event_fork - a task was created
 * @task: the new task
 */
void perf_event_fork(struct task_struct *task)
{
	perf_event_task_record(task, NULL, true);
	perf_event_namespaces(task);
}

/* ---- COMM ---- */

struct comm_rec {
	struct task_struct		*task;
	char				*comm;
	int				comm_size;
	bool				exec;
	struct {
		struct perf_event_header	header;
		u32				pid, tid;
	} rec;
};

static void comm_output(struct perf_event *event, void *arg)
{
	struct comm_rec *cr = arg;
	struct perf_output_handle handle;
	struct perf_sample_data sample;

	if (!event->attr.comm)
		return;
	perf_event_header__init(&cr->rec.header, &sample, PERF_RECORD_COMM,
				cr->exec ? PERF_RECORD_MISC_COMM_EXEC : 0,
				sizeof(cr->rec) + cr->comm_size, event);
	if (perf_output_begin(&handle, &sample, event, cr->rec.header.size))
		return;
	cr->rec.pid = perf_event_pid(event, cr->task);
	cr->rec.tid = perf_event_tid(event, cr->task);
	perf_output_put(&handle, cr->rec);
	perf_output_copy(&handle, cr->comm, cr->comm_size);
	perf_event__output_id_sample(event, &handle, &sample);
	perf_output_end(&handle);
}

/**
 * perf_event_comm - a task changed its name
 * @task: the task
 * @exec: whether the change came with an exec
 */
void perf_event_comm(struct task_struct *task, bool exec)
{
	char comm[TASK_COMM_LEN];
	struct comm_rec cr = { .task = task, .comm = comm };

	if (!atomic_read(&perf_nr_comm_events))
		return;
	memset(comm, 0, sizeof(comm));
	strscpy(comm, task->comm, sizeof(comm));
	cr.comm_size = ALIGN(strlen(comm) + 1, sizeof(u64));
	cr.exec = exec;
	perf_iterate_sb(comm_output, &cr, NULL);
}

/* ---- MMAP and MMAP2 ---- */

struct mmap_rec {
	struct vm_area_struct	*vma;
	const char		*name;
	int			name_size;
	u32			maj, min;
	u64			ino, ino_generation;
	u32			prot, flags;
	u8			build_id[BUILD_ID_SIZE_MAX];
	u32			build_id_size;
	struct {
		struct perf_event_header	header;
		u32				pid, tid;
		u64				start, len, pgoff;
	} rec;
};

static bool mmap_wanted(struct perf_event *event, struct vm_area_struct *vma)
{
	if (vma->vm_flags & VM_EXEC)
		return event->attr.mmap || event->attr.mmap2;
	return event->attr.mmap_data;
}

static void mmap_output(struct perf_event *event, void *arg)
{
	struct mmap_rec *mr = arg;
	struct perf_output_handle handle;
	struct perf_sample_data sample;
	u16 misc = PERF_RECORD_MISC_USER;
	u32 type = PERF_RECORD_MMAP;
	int size = sizeof(mr->rec) + mr->name_size;
	bool with_build_id = false;

	if (!mmap_wanted(event, mr->vma))
		return;
	if (event->attr.mmap2) {
		type = PERF_RECORD_MMAP2;
		/* maj, min, ino, ino_generation (or the build id), prot, flags */
		size += 4 + 4 + 8 + 8 + 4 + 4;
		with_build_id = event->attr.build_id && mr->build_id_size;
		if (with_build_id)
			misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
	}
	if (!(mr->vma->vm_flags & VM_EXEC))
		misc |= PERF_RECORD_MISC_MMAP_DATA;

	perf_event_header__init(&mr->rec.header, &sample, type, misc, size, event);
	if (perf_output_begin(&handle, &sample, event, mr->rec.header.size))
		return;
	mr->rec.pid = perf_event_pid(event, current);
	mr->rec.tid = perf_event_tid(event, current);
	perf_output_put(&handle, mr->rec);
	if (event->attr.mmap2) {
		if (with_build_id) {
			u8 hdr[4] = { mr->build_id_size, 0, 0, 0 };

			perf_output_copy(&handle, hdr, sizeof(hdr));
			perf_output_copy(&handle, mr->build_id, BUILD_ID_SIZE_MAX);
		} else {
			perf_output_put(&handle, mr->maj);
			perf_output_put(&handle, mr->min);
			perf_output_put(&handle, mr->ino);
			perf_output_put(&handle, mr->ino_generation);
		}
		perf_output_put(&handle, mr->prot);
		perf_output_put(&handle, mr->flags);
	}
	perf_output_copy(&handle, mr->name, mr->name_size);
	perf_event__output_id_sample(event, &handle, &sample);
	perf_output_end(&handle);
}

/* The name an anonymous mapping is known by. */
static const char *anon_vma_name_of(struct vm_area_struct *vma)
{
	const char *name = NULL;

	if (vma->vm_ops && vma->vm_ops->name)
		name = vma->vm_ops->name(vma);
	if (!name)
		name = arch_vma_name(vma);
	if (name)
		return name;
	if (vma_is_initial_heap(vma))
		return "[heap]";
	if (vma_is_initial_stack(vma))
		return "[stack]";
	return "//anon";
}

/**
 * perf_event_mmap - a mapping was created
 * @vma: the mapping
 */
void perf_event_mmap(struct vm_area_struct *vma)
{
	struct mmap_rec *mr;
	char *buf = NULL, *name;
	char small[16];
	int len;

	if (!atomic_read(&perf_nr_mmap_events))
		return;
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return;
	mr->vma = vma;
	mr->prot = ((vma->vm_flags & VM_READ) ? PROT_READ : 0) |
		   ((vma->vm_flags & VM_WRITE) ? PROT_WRITE : 0) |
		   ((vma->vm_flags & VM_EXEC) ? PROT_EXEC : 0);
	mr->flags = (vma->vm_flags & VM_MAYSHARE) ? MAP_SHARED : MAP_PRIVATE;
	if (vma->vm_flags & VM_LOCKED)
		mr->flags |= MAP_LOCKED;
	if (is_vm_hugetlb_page(vma))
		mr->flags |= MAP_HUGETLB;

	if (vma->vm_file) {
		const struct inode *inode = file_user_inode(vma->vm_file);

		buf = kmalloc(PATH_MAX, GFP_KERNEL);
		name = buf ? d_path(file_user_path(vma->vm_file), buf,
				    PATH_MAX - sizeof(u64)) : ERR_PTR(-ENOMEM);
		if (IS_ERR(name)) {
			strscpy(small, buf ? "//toolong" : "//enomem", sizeof(small));
			name = small;
		} else {
			mr->maj = MAJOR(inode->i_sb->s_dev);
			mr->min = MINOR(inode->i_sb->s_dev);
			mr->ino = inode->i_ino;
			mr->ino_generation = inode->i_generation;
		}
	} else {
		strscpy(small, anon_vma_name_of(vma), sizeof(small));
		name = small;
	}
	/* Zero-padded to a multiple of 8, terminator included. */
	len = strlen(name) + 1;
	while (len % sizeof(u64))
		name[len++] = '\0';
	mr->name = name;
	mr->name_size = len;

	if (atomic_read(&perf_nr_build_id_events))
		build_id_parse_nofault(vma, mr->build_id, &mr->build_id_size);

	mr->rec.start = vma->vm_start;
	mr->rec.len = vma->vm_end - vma->vm_start;
	mr->rec.pgoff = (u64)vma->vm_pgoff << PAGE_SHIFT;
	perf_iterate_sb(mmap_output, mr, NULL);

	kfree(buf);
	kfree(mr);
}

/* ---- NAMESPACES ---- */

struct ns_rec {
	struct task_struct		*task;
	struct {
		struct perf_event_header	header;
		u32				pid, tid;
		u64				nr_namespaces;
		struct perf_ns_link_info	link_info[NR_NAMESPACES];
	} rec;
};

static void ns_output(struct perf_event *event, void *arg)
{
	struct ns_rec *nr = arg;
	struct perf_output_handle handle;
	struct perf_sample_data sample;

	if (!event->attr.namespaces)
		return;
	perf_event_header__init(&nr->rec.header, &sample, PERF_RECORD_NAMESPACES, 0,
				sizeof(nr->rec), event);
	if (perf_output_begin(&handle, &sample, event, nr->rec.header.size))
		return;
	nr->rec.pid = perf_event_pid(event, nr->task);
	nr->rec.tid = perf_event_tid(event, nr->task);
	perf_output_put(&handle, nr->rec);
	perf_event__output_id_sample(event, &handle, &sample);
	perf_output_end(&handle);
}

static void ns_link(struct perf_ns_link_info *info, struct task_struct *task,
		    const struct proc_ns_operations *ops)
{
	struct path path;

	if (ns_get_path(&path, task, ops))
		return;
	info->dev = new_encode_dev(path.dentry->d_sb->s_dev);
	info->ino = path.dentry->d_inode->i_ino;
	path_put(&path);
}

/**
 * perf_event_namespaces - a task's namespaces changed (or it was created)
 * @task: the task
 */
void perf_event_namespaces(struct task_struct *task)
{
	struct ns_rec *nr;

	if (!atomic_read(&perf_nr_namespaces_events))
		return;
	nr = kzalloc(sizeof(*nr), GFP_KERNEL);
	if (!nr)
		return;
	nr->task = task;
	nr->rec.nr_namespaces = NR_NAMESPACES;
	ns_link(&nr->rec.link_info[MNT_NS_INDEX], task, &mntns_operations);
#ifdef CONFIG_USER_NS
	ns_link(&nr->rec.link_info[USER_NS_INDEX], task, &userns_operations);
#endif
#ifdef CONFIG_NET_NS
	ns_link(&nr->rec.link_info[NET_NS_INDEX], task, &netns_operations);
#endif
#ifdef CONFIG_UTS_NS
	ns_link(&nr->rec.link_info[UTS_NS_INDEX], task, &utsns_operations);
#endif
#ifdef CONFIG_IPC_NS
	ns_link(&nr->rec.link_info[IPC_NS_INDEX], task, &ipcns_operations);
#endif
#ifdef CONFIG_PID_NS
	ns_link(&nr->rec.link_info[PID_NS_INDEX], task, &pidns_operations);
#endif
#ifdef CONFIG_CGROUPS
	ns_link(&nr->rec.link_info[CGROUP_NS_INDEX], task, &cgroupns_operations);
#endif
	perf_iterate_sb(ns_output, nr, NULL);
	kfree(nr);
}

/* ---- KSYMBOL and TEXT_POKE ---- */

/**
 * perf_event_ksymbol - a kernel symbol was added or removed
 * @ksym_type: PERF_RECORD_KSYMBOL_TYPE_*
 * @addr: its address
 * @len: its size
 * @unregister: removed rather than added
 * @sym: its name
 */
void perf_event_ksymbol(u16 ksym_type, u64 addr, u32 len, bool unregister,
			const char *sym)
{
}

struct text_poke_rec {
	const void			*old_bytes, *new_bytes;
	size_t				pad;
	u16				old_len, new_len;
	struct {
		struct perf_event_header	header;
		u64				addr;
	} rec;
};

static void text_poke_output(struct perf_event *event, void *arg)
{
	struct text_poke_rec *tp = arg;
	struct perf_output_handle handle;
	struct perf_sample_data sample;
	u64 zero = 0;

	if (!event->attr.text_poke)
		return;
	perf_event_header__init(&tp->rec.header, &sample, PERF_RECORD_TEXT_POKE,
				PERF_RECORD_MISC_KERNEL,
				sizeof(tp->rec) + 2 * sizeof(u16) + tp->old_len +
				tp->new_len + tp->pad, event);
	if (perf_output_begin(&handle, &sample, event, tp->rec.header.size))
		return;
	perf_output_put(&handle, tp->rec);
	perf_output_put(&handle, tp->old_len);
	perf_output_put(&handle, tp->new_len);
	perf_output_copy(&handle, tp->old_bytes, tp->old_len);
	perf_output_copy(&handle, tp->new_bytes, tp->new_len);
	perf_output_copy(&handle, &zero, tp->pad);
	perf_event__output_id_sample(event, &handle, &sample);
	perf_output_end(&handle);
}

/**
 * perf_event_text_poke - kernel text was changed
 * @addr: where
 * @old_bytes: the old text
 * @old_len: its length
 * @new_bytes: the new text
 * @new_len: its length
 *
 * Tools that decode kernel instructions (AUX traces) follow the change.
 */
void perf_event_text_poke(const void *addr, const void *old_bytes,
			  size_t old_len, const void *new_bytes, size_t new_len)
{
	struct text_poke_rec tp = {
		.old_bytes = old_bytes,
		.new_bytes = new_bytes,
		.old_len = old_len,
		.new_len = new_len,
		.rec.addr = (unsigned long)addr,
	};
	size_t body = 2 * sizeof(u16) + old_len + new_len;

	if (!atomic_read(&perf_nr_text_poke_events))
		return;
	tp.pad = ALIGN(body, sizeof(u64)) - body;
	perf_iterate_sb(text_poke_output, &tp, NULL);
}

/* ---- SWITCH and SWITCH_CPU_WIDE ---- */

struct switch_rec {
	struct task_struct		*other;		/* next when out, prev when in */
	bool				in;
	bool				preempted;
	struct {
		struct perf_event_header	header;
		u32				next_prev_pid, next_prev_tid;
	} rec;
};

static void switch_output(struct perf_event *event, void *arg)
{
	struct switch_rec *sr = arg;
	struct perf_output_handle handle;
	struct perf_sample_data sample;
	bool task_event = event->ctx->task;
	u16 misc = 0;

	if (!event->attr.context_switch)
		return;
	if (!sr->in)
		misc |= PERF_RECORD_MISC_SWITCH_OUT;
	if (sr->preempted)
		misc |= PERF_RECORD_MISC_SWITCH_OUT_PREEMPT;
	/* A task's own events know the task; CPU-wide ones are told. */
	perf_event_header__init(&sr->rec.header, &sample,
				task_event ? PERF_RECORD_SWITCH : PERF_RECORD_SWITCH_CPU_WIDE,
				misc, task_event ? sizeof(sr->rec.header) : sizeof(sr->rec),
				event);
	if (perf_output_begin(&handle, &sample, event, sr->rec.header.size))
		return;
	if (task_event) {
		perf_output_put(&handle, sr->rec.header);
	} else {
		sr->rec.next_prev_pid = perf_event_pid(event, sr->other);
		sr->rec.next_prev_tid = perf_event_tid(event, sr->other);
		perf_output_put(&handle, sr->rec);
	}
	perf_event__output_id_sample(event, &handle, &sample);
	perf_output_end(&handle);
}

/**
 * perf_event_switch_record - the current task is switched in or out
 * @other: the task switched to (out) or from (in)
 * @in: switched in
 *
 * Called from the context switch hooks, interrupts off.
 */
void perf_event_switch_record(struct task_struct *other, bool in)
{
	struct switch_rec sr = {
		.other = other,
		.in = in,
		.preempted = !in && task_is_runnable(current),
	};

	perf_iterate_sb(switch_output, &sr, NULL);
}

/* ---- READ (inherit_stat) ---- */

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
