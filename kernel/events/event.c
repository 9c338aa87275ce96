// SPDX-License-Identifier: GPL-2.0
/*
 * Events: allocation, identity, references, owners and freeing.
 *
 * Lifetime: an event starts with one reference, held by whoever created it
 * (the file of perf_event_open(2), a kernel user, or the context of an
 * inherited child).  Children hold a reference on their parent.  The last
 * put_event() frees the event after an RCU grace period, because the
 * software event lists are walked under RCU.  An event leaves its context
 * before its last reference can go, but keeps its context and sub-context
 * references until it is freed.
 *
 * Owners: the task that opened an event owns it; owned events sit on
 * owner->perf_event_list under owner->perf_event_mutex, for prctl().  An
 * exiting owner clears event->owner; the release path reads it under RCU.
 */
#include <linux/slab.h>
#include <linux/sched/task.h>
#include <linux/pid_namespace.h>
#include <linux/sched/signal.h>

#include "internal.h"

static atomic64_t perf_event_id;

/*
 * The shapes of event (see struct perf_event): tracepoint events,
 * originals and copies, are whole, for their ftrace_ops; other originals
 * stop where ftrace_ops begins if they are inheritable, else already where
 * the part that keeps copies begins; copies stop where the original-only
 * tail begins.  Sampling events and tracepoint events have their overflow
 * state after that; counting events have none (an original gets one when
 * a ring buffer is attached to it, perf_event_get_overflow_state(), and
 * an event gets one when its PMU makes it sample).
 */
enum perf_event_shape {
	PERF_SHAPE_ORIGINAL,		/* counting original */
	PERF_SHAPE_INHERIT,		/* counting original, inheritable */
	PERF_SHAPE_SAMPLING,		/* sampling original */
	PERF_SHAPE_SAMPLING_INHERIT,	/* sampling original, inheritable */
	PERF_SHAPE_TRACE,		/* tracepoint event, original or copy */
	PERF_SHAPE_COPY,		/* sampling copy */
	PERF_SHAPE_COUNT_COPY,		/* counting copy */
	PERF_NR_SHAPES
};

struct perf_event_shape_info {
	const char		*name;
	size_t			size;		/* of the part of struct perf_event */
	bool			overflow;	/* the overflow state follows */
};

#if defined(CONFIG_EVENT_TRACING) && defined(CONFIG_FUNCTION_TRACER)
#define PERF_INHERIT_SIZE	offsetof(struct perf_event, ftrace_ops)
#else
#define PERF_INHERIT_SIZE	sizeof(struct perf_event)
#endif
#define PERF_ORIGINAL_SIZE	offsetof(struct perf_event, child_total_time_enabled)
#define PERF_COPY_SIZE		offsetof(struct perf_event, owner_entry)

static const struct perf_event_shape_info perf_shapes[PERF_NR_SHAPES] = {
	[PERF_SHAPE_ORIGINAL]	= { "perf_event", PERF_ORIGINAL_SIZE, false },
	[PERF_SHAPE_INHERIT]	= { "perf_event_inherit", PERF_INHERIT_SIZE, false },
	[PERF_SHAPE_SAMPLING]	= { "perf_event_sampling", PERF_ORIGINAL_SIZE, true },
	[PERF_SHAPE_SAMPLING_INHERIT] = {
		"perf_event_sampling_inherit", PERF_INHERIT_SIZE, true },
	[PERF_SHAPE_TRACE]	= { "perf_event_trace", sizeof(struct perf_event), true },
	[PERF_SHAPE_COPY]	= { "perf_event_copy", PERF_COPY_SIZE, true },
	[PERF_SHAPE_COUNT_COPY]	= { "perf_event_count_copy", PERF_COPY_SIZE, false },
};

static struct kmem_cache *perf_event_caches[PERF_NR_SHAPES];

/* Where the overflow state starts, after the part of struct perf_event. */
static size_t overflow_offset(size_t size)
{
	return ALIGN(size, __alignof__(struct perf_overflow_state));
}

/**
 * perf_event_cache_init - create the slab caches for events; boot only
 */
void __init perf_event_cache_init(void)
{
	const struct perf_event_shape_info *shape;
	size_t size;
	int i;

	for (i = 0; i < PERF_NR_SHAPES; i++) {
		shape = &perf_shapes[i];
		size = shape->size;
		if (shape->overflow)
			size = overflow_offset(size) + sizeof(struct perf_overflow_state);
		perf_event_caches[i] = kmem_cache_create(shape->name, size,
							 __alignof__(struct perf_event),
							 SLAB_PANIC, NULL);
	}
}

/* The shape of a new event: the type decides, before any PMU is known. */
static enum perf_event_shape shape_for(struct perf_event_attr *attr,
				       struct perf_event *parent_event)
{
	bool sampling = attr->sample_period;	/* is_sampling_event() */

	if (attr->type == PERF_TYPE_TRACEPOINT)
		return PERF_SHAPE_TRACE;
	if (parent_event)
		return sampling ? PERF_SHAPE_COPY : PERF_SHAPE_COUNT_COPY;
	if (attr->inherit)
		return sampling ? PERF_SHAPE_SAMPLING_INHERIT : PERF_SHAPE_INHERIT;
	return sampling ? PERF_SHAPE_SAMPLING : PERF_SHAPE_ORIGINAL;
}

/* The original-only tail of a new original (see struct perf_event). */
static void init_original_tail(struct perf_event *event)
{
	INIT_LIST_HEAD(&event->owner_entry);
	if (perf_shapes[event->shape].size > PERF_ORIGINAL_SIZE) {
		INIT_LIST_HEAD(&event->child_list);
		INIT_LIST_HEAD(&event->lazy_list);
		mutex_init(&event->child_mutex);
	}
	mutex_init(&event->mmap_mutex);
	init_waitqueue_head(&event->waitq);
	INIT_LIST_HEAD(&event->migrate_entry);
	INIT_LIST_HEAD(&event->active_entry);
}

/**
 * perf_event_primary_id - the id user space sees for an event
 * @event: the event; an inherited child reports its parent's id
 *
 * Return: the id.
 */
u64 perf_event_primary_id(struct perf_event *event)
{
	return event->parent ? event->parent->id : event->id;
}

/*
 * Bytes read(2) returns for a read_format and a group of @nr events: the
 * times once, then per event its value and the optional id and lost
 * count; a group read starts with the number of events.
 */
static int read_size_of(u64 read_format, int nr)
{
	u64 times = read_format & (PERF_FORMAT_TOTAL_TIME_ENABLED |
				   PERF_FORMAT_TOTAL_TIME_RUNNING);
	u64 extras = read_format & (PERF_FORMAT_ID | PERF_FORMAT_LOST);
	int per_event = (1 + hweight64(extras)) * sizeof(u64);
	int fixed = hweight64(times) * sizeof(u64);

	if (!(read_format & PERF_FORMAT_GROUP))
		return fixed + per_event;
	return sizeof(u64) + fixed + nr * per_event;
}

/**
 * perf_event_compute_sizes - recompute what read(2) returns for @event
 * @event: the event; its group's membership is stable
 */
void perf_event_compute_sizes(struct perf_event *event)
{
	event->read_size = read_size_of(event->attr.read_format,
					event->group_leader->nr_siblings + 1);
	perf_event_compute_header_sizes(event);
}

/**
 * perf_event_validate_size - whether a group read stays within 16 KiB
 * @event: a new event, before it joins its group
 *
 * Return: false when any member's group read would be too large.
 */
bool perf_event_validate_size(struct perf_event *event)
{
	struct perf_event *leader = event->group_leader, *sibling;
	/* The group as it will be: its members and the new event. */
	int nr = leader->nr_siblings + 2;

	if (read_size_of(event->attr.read_format, nr) > 16 * 1024)
		return false;
	if (read_size_of(leader->attr.read_format, nr) > 16 * 1024)
		return false;
	if (event == leader)
		return true;
	/* The others' reads do not grow with the group. */
	list_for_each_entry(sibling, &leader->sibling_list, sibling_list) {
		if ((sibling->attr.read_format & PERF_FORMAT_GROUP) &&
		    read_size_of(sibling->attr.read_format, nr) > 16 * 1024)
			return false;
	}
	return true;
}

/*
 * A disable asked for in an overflow, done on the CPU the event counts on.
 * The work may run on a CPU the event has left: scheduling out completes
 * the disable itself (event_sched_out()), but if the event was scheduled
 * in on another CPU and asked for a disable again there, that second
 * request found this work still queued here and could not queue it again;
 * it is passed on to where the event now counts.
 */
static void perf_pending_disable(struct irq_work *entry)
{
	struct perf_overflow_state *ov = container_of(entry, struct perf_overflow_state,
						      pending_disable_irq);
	struct perf_event *event = ov->event;
	int cpu = READ_ONCE(event->oncpu);

	if (!READ_ONCE(event->pending_disable) || cpu < 0)
		return;
	if (cpu != smp_processor_id()) {
		irq_work_queue_on(&ov->pending_disable_irq, cpu);
		return;
	}
	event->pending_disable = 0;
	perf_event_disable_local(event);
}

/* Wakeups asked for from contexts that cannot wake anybody (NMI). */
static void perf_pending_irq(struct irq_work *work)
{
	struct perf_overflow_state *ov = container_of(work, struct perf_overflow_state,
						      pending_irq);

	if (!ov->pending_wakeup)
		return;
	ov->pending_wakeup = 0;
	perf_event_wakeup(ov->event);
}

/*
 * In the task's own context on its way back to user space: the
 * synchronous signal of a sigtrap event, with the event's data.
 */
static void perf_pending_task(struct callback_head *work)
{
	struct perf_overflow_state *ov = container_of(work, struct perf_overflow_state,
						      pending_task);
	struct perf_event *event = ov->event;

	if (ov->pending_work) {
		ov->pending_work = 0;
		if (!(current->flags & PF_EXITING))
			send_sig_perf((void __user *)ov->pending_addr,
				      event->orig_type, event->attr.sig_data);
	}
	/* The reference queue_sigtrap() took. */
	put_event(event);
}

/* The overflow state of @event, at @ov. */
static void init_overflow_state(struct perf_event *event,
				struct perf_overflow_state *ov)
{
	ov->event = event;
	INIT_LIST_HEAD(&ov->rb_entry);
	init_irq_work(&ov->pending_irq, perf_pending_irq);
	ov->pending_disable_irq = IRQ_WORK_INIT_HARD(perf_pending_disable);
	init_task_work(&ov->pending_task, perf_pending_task);
}

/*
 * Give @event an overflow state apart, unless it has one; 0 or -ENOMEM.
 * One writer: the caller holds mmap_mutex, or the event is not published
 * yet (perf_event_alloc()).  Readers of a published event reach the
 * state through the ring buffer, published after it.
 */
static int alloc_overflow_state(struct perf_event *event)
{
	struct perf_overflow_state *ov;

	if (event->ov)
		return 0;
	ov = kzalloc(sizeof(*ov), GFP_KERNEL);
	if (!ov)
		return -ENOMEM;
	init_overflow_state(event, ov);
	WRITE_ONCE(event->ov, ov);
	return 0;
}

/**
 * perf_event_get_overflow_state - give a counting original its overflow state
 * @event: an original about to have a ring buffer attached; mmap_mutex held
 *
 * The buffer's records wake its readers through the overflow state
 * (perf_output_wakeup()); a sampling event has had one since its creation.
 * The state is published before the buffer, which is published with
 * rcu_assign_pointer(), so whoever finds the buffer finds it too.
 *
 * Return: 0, or -ENOMEM.
 */
int perf_event_get_overflow_state(struct perf_event *event)
{
	lockdep_assert_held(&event->mmap_mutex);
	return alloc_overflow_state(event);
}

/**
 * perf_event_alloc - create an event and bind it to its PMU
 * @attr: the attributes, already validated
 * @cpu: the CPU, or -1 for a task event on any CPU
 * @task: the task to watch, or NULL
 * @group_leader: the leader of the group to join, or NULL for a new group
 * @parent_event: the event this one is inherited from, or NULL
 * @overflow_handler: kernel callback on overflow, or NULL
 * @context: argument of @overflow_handler
 *
 * Return: the event, with one reference, or an ERR_PTR.
 */
struct perf_event *perf_event_alloc(struct perf_event_attr *attr, int cpu,
				    struct task_struct *task,
				    struct perf_event *group_leader,
				    struct perf_event *parent_event,
				    perf_overflow_handler_t overflow_handler,
				    void *context)
{
	enum perf_event_shape shape;
	struct perf_event *event;
	struct pmu *pmu;
	u64 period;
	long err;

	if ((unsigned int)cpu >= nr_cpu_ids && (!task || cpu != -1))
		return ERR_PTR(-EINVAL);
	/* A synchronous signal needs a task to go to. */
	if (attr->sigtrap && !task)
		return ERR_PTR(-EINVAL);

	shape = shape_for(attr, parent_event);
	event = kmem_cache_alloc_node(perf_event_caches[shape], GFP_KERNEL | __GFP_ZERO,
				      cpu >= 0 ? cpu_to_node(cpu) : NUMA_NO_NODE);
	if (!event)
		return ERR_PTR(-ENOMEM);

	/* Set first: they tell which cache the event goes back to. */
	event->parent = parent_event;
	event->shape = shape;
	if (shape == PERF_SHAPE_TRACE)
		event->attach_state = PERF_ATTACH_WHOLE;
	if (perf_shapes[shape].overflow) {
		event->ov = (void *)event + overflow_offset(perf_shapes[shape].size);
		init_overflow_state(event, event->ov);
	}
	if (!parent_event)
		init_original_tail(event);
	INIT_LIST_HEAD(&event->event_entry);
	INIT_LIST_HEAD(&event->group_entry);
	INIT_LIST_HEAD(&event->sibling_list);
	INIT_LIST_HEAD(&event->active_list);
	INIT_LIST_HEAD(&event->child_entry);
	INIT_HLIST_NODE(&event->hlist_entry);
	atomic_long_set(&event->refcount, 1);

	event->attr = *attr;
	event->cpu = cpu;
	event->oncpu = -1;
	event->group_leader = group_leader ? group_leader : event;
	event->state = attr->disabled ? PERF_EVENT_STATE_OFF : PERF_EVENT_STATE_INACTIVE;
	event->id = atomic64_inc_return(&perf_event_id);
	event->ns = get_pid_ns(task_active_pid_ns(current));
	event->clock = local_clock;
	if (task) {
		event->hw.target = get_task_struct(task);
		event->attach_state |= PERF_ATTACH_TASK;
	}

	/* A copy inherits what its original was given, handler included. */
	if (parent_event) {
		event->clock = parent_event->clock;
		event->event_caps = parent_event->event_caps;
		if (!overflow_handler) {
			context = parent_event->overflow_handler_context;
			overflow_handler = parent_event->overflow_handler;
		}
	}
	if (!overflow_handler && is_write_backward(event))
		overflow_handler = perf_event_output_backward;
	else if (!overflow_handler)
		overflow_handler = perf_event_output_forward;
	event->overflow_handler = overflow_handler;
	event->overflow_handler_context = context;

	/* A frequency starts from a period of one and adapts. */
	period = attr->freq && attr->sample_freq ? 1 : attr->sample_period;
	event->hw.sample_period = period;
	event->hw.last_period = period;
	local64_set(&event->hw.period_left, period);

	err = -EINVAL;
	/* Inherited counters in samples need the TID to be told apart. */
	if (attr->inherit && (attr->sample_type & PERF_SAMPLE_READ) &&
	    !(attr->sample_type & PERF_SAMPLE_TID))
		goto err;

	/* Branch filters mean nothing without branch samples. */
	if (!(attr->sample_type & PERF_SAMPLE_BRANCH_STACK))
		event->attr.branch_sample_type = 0;

	pmu = perf_init_event(event);
	if (IS_ERR(pmu)) {
		err = PTR_ERR(pmu);
		goto err;
	}
	/*
	 * A PMU may make a counting event sample (IBS takes the period from
	 * the config): its overflow state then comes apart.
	 */
	if (is_sampling_event(event)) {
		err = alloc_overflow_state(event);
		if (err)
			goto err;
	}
	err = -EINVAL;
	if (pmu->task_ctx_nr == perf_invalid_context && task)
		goto err;
	err = -EOPNOTSUPP;
	if (event->attr.aux_output &&
	    (!(pmu->capabilities & PERF_PMU_CAP_AUX_OUTPUT) ||
	     event->attr.aux_pause || event->attr.aux_resume))
		goto err;
	err = -EINVAL;
	if (event->attr.aux_pause && event->attr.aux_resume)
		goto err;
	err = -EOPNOTSUPP;
	if (event->attr.aux_start_paused &&
	    !(pmu->capabilities & PERF_PMU_CAP_AUX_PAUSE))
		goto err;

	if (!event->parent && (event->attr.sample_type & PERF_SAMPLE_CALLCHAIN)) {
		err = get_callchain_buffers(event->attr.sample_max_stack);
		if (err)
			goto err;
		event->attach_state |= PERF_ATTACH_CALLCHAIN;
	}

	err = security_perf_event_alloc(event);
	if (err)
		goto err;

	/* Task events and switch records need the context switch hooks. */
	if (task || attr->context_switch) {
		perf_sched_events_inc();
		event->attach_state |= PERF_ATTACH_SCHED_EVENTS;
	}
	if (is_sampling_event(event))
		atomic_inc(&perf_nr_sampling_events);
	perf_event_account_sb(event, true);
	event->attach_state |= PERF_ATTACH_ACCOUNTED;
	return event;

err:
	free_event(event);
	return ERR_PTR(err);
}

static void free_event_rcu(struct rcu_head *head)
{
	struct perf_event *event = container_of(head, struct perf_event, rcu_head);

	/* A state allocated apart (alloc_overflow_state()). */
	if (event->ov && !perf_shapes[event->shape].overflow)
		kfree(event->ov);
	kmem_cache_free(perf_event_caches[event->shape], event);
}

static void __free_event(struct perf_event *event)
{
	struct perf_event *parent = event->parent;

	if (event->ov) {
		irq_work_sync(&event->ov->pending_irq);
		irq_work_sync(&event->ov->pending_disable_irq);
	}

	if (event->attach_state & PERF_ATTACH_ACCOUNTED) {
		if (is_sampling_event(event))
			atomic_dec(&perf_nr_sampling_events);
		perf_event_account_sb(event, false);
	}
	perf_event_rb_detach(event);
	perf_event_drop_bpf(event);
	perf_tp_free_filter(event);
	perf_cgroup_detach(event);
	if (event->attach_state & PERF_ATTACH_SCHED_EVENTS)
		perf_sched_events_dec();
	if (event->attach_state & PERF_ATTACH_CALLCHAIN)
		put_callchain_buffers();
	if (event->destroy)
		event->destroy(event);
	if (event->pmu)
		perf_pmu_put(event->pmu);
	security_perf_event_free(event);
	if (event->pmu_ctx)
		put_pmu_ctx(event->pmu_ctx);
	if (event->ctx)
		put_ctx(event->ctx);
	if (event->hw.target)
		put_task_struct(event->hw.target);
	if (event->ns)
		put_pid_ns(event->ns);

	call_rcu(&event->rcu_head, free_event_rcu);

	if (parent)
		put_event(parent);
}

/**
 * free_event - free an event nobody else can have seen
 * @event: the event, with its single reference
 */
void free_event(struct perf_event *event)
{
	if (WARN(atomic_long_cmpxchg(&event->refcount, 1, 0) != 1,
		 "perf: freeing an event with %ld references\n",
		 atomic_long_read(&event->refcount)))
		return;
	__free_event(event);
}

/**
 * perf_event_get_ref - take a reference unless the event is being freed
 * @event: the event
 *
 * Return: true when a reference was taken.
 */
bool perf_event_get_ref(struct perf_event *event)
{
	return atomic_long_inc_not_zero(&event->refcount);
}

/**
 * put_event - drop a reference; the last one frees the event
 * @event: the event, already out of its context
 */
void put_event(struct perf_event *event)
{
	if (!atomic_long_dec_and_test(&event->refcount))
		return;
	__free_event(event);
}

/**
 * perf_event_set_owner - record the task that opened an event
 * @event: the event
 * @owner: the opener (current)
 */
void perf_event_set_owner(struct perf_event *event, struct task_struct *owner)
{
	mutex_lock(&owner->perf_event_mutex);
	event->owner = owner;
	list_add_tail(&event->owner_entry, &owner->perf_event_list);
	mutex_unlock(&owner->perf_event_mutex);
}

/**
 * perf_event_drop_owner - unlink an event from its owner's list
 * @event: the event being released
 *
 * The owner may be exiting at the same time; whoever gets the owner's
 * mutex first unlinks the event.
 */
void perf_event_drop_owner(struct perf_event *event)
{
	struct task_struct *owner;

	rcu_read_lock();
	owner = READ_ONCE(event->owner);
	if (owner && !refcount_inc_not_zero(&owner->usage))
		owner = NULL;
	rcu_read_unlock();
	if (!owner)
		return;

	mutex_lock_nested(&owner->perf_event_mutex, SINGLE_DEPTH_NESTING);
	if (event->owner) {
		list_del_init(&event->owner_entry);
		/* Pairs with the READ_ONCE() above: the link is gone first. */
		smp_store_release(&event->owner, NULL);
	}
	mutex_unlock(&owner->perf_event_mutex);
	put_task_struct(owner);
}

/**
 * perf_event_wakeup - wake whoever polls or waits on an event
 * @event: the event; for an inherited copy, its original's pollers and
 *	fasync owner are woken (the copy's own pending_kill is the band)
 */
void perf_event_wakeup(struct perf_event *event)
{
	struct perf_event *orig = event->parent ? event->parent : event;
	struct perf_overflow_state *ov = READ_ONCE(event->ov);
	int band = ov ? ov->pending_kill : 0;
	struct perf_overflow_state *reader;
	struct perf_buffer *rb;

	/* A copy's pollers and fasync owners are its original's. */
	wake_up_all(&orig->waitq);
	/*
	 * Every event attached to the same buffer polls the same data.  The
	 * list is walked under RCU (see ring_buffer.c); @orig itself is on
	 * it when it has a buffer and was woken above.
	 */
	rcu_read_lock();
	rb = rcu_dereference(orig->rb);
	if (rb) {
		list_for_each_entry_rcu(reader, &rb->event_list, rb_entry) {
			if (reader->event != orig)
				wake_up_all(&reader->event->waitq);
		}
	}
	rcu_read_unlock();
	if (!band)
		return;
	ov->pending_kill = 0;
	kill_fasync(&orig->fasync, SIGIO, band);
}

/**
 * perf_event_release_kernel - tear an event down for good
 * @event: the event; the caller's reference is consumed
 *
 * Takes the event out of its context, frees its inherited children and
 * drops the reference.
 *
 * Return: 0.
 */
int perf_event_release_kernel(struct perf_event *event)
{
	struct perf_event_context *ctx = event->ctx;

	if (!ctx) {
		free_event(event);
		return 0;
	}

	perf_event_drop_owner(event);

	ctx = perf_event_ctx_lock(event);
	perf_remove_from_context(event, DETACH_GROUP);
	/* No fork may copy it from now on. */
	raw_spin_lock_irq(&ctx->lock);
	event->state = PERF_EVENT_STATE_DEAD;
	raw_spin_unlock_irq(&ctx->lock);
	perf_event_ctx_unlock(event, ctx);

	perf_free_event_children(event);
	put_event(event);
	return 0;
}
EXPORT_SYMBOL_GPL(perf_event_release_kernel);
