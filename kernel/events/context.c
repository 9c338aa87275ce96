// SPDX-License-Identifier: GPL-2.0
/*
 * Contexts: creating and finding them, their per-PMU parts, adding events
 * to them and taking events out, and running a change where a context is
 * live.
 *
 * Locking rules of the perf core.
 *
 *  task->perf_event_mutex  guards task->perf_event_ctxp being set (here)
 *                          and cleared (exit), and task->perf_event_list.
 *  ctx->mutex              serialises changes of membership: events and
 *                          groups joining or leaving, and the user-driven
 *                          state changes (ioctl, prctl, exec).  Holders may
 *                          walk the lists and sleep.
 *  event->child_mutex      guards event->child_list.
 *  event->mmap_mutex       guards event->rb and the mapping counts.
 *  ctx->lock (raw)         guards everything the scheduling paths touch:
 *                          the lists, states, times, is_active.  Taken
 *                          with interrupts off.
 *
 * The lock order, outermost first: a lock may be taken while those above
 * it are held, never the other way round.  The perf core's locks and the
 * other subsystems' locks it meets are in one list, because a cycle
 * through theirs deadlocks as surely as one through ours.
 *
 *   1. signal->exec_update_lock    perf_event_open() (read), exec (write)
 *   2. task->perf_event_mutex      the task's context, its owned events
 *   3. a task context's mutex      a parent context's before a child's
 *                                  (fork copies the parent's events)
 *   4. event_mutex                 tracing: creating, filtering and freeing
 *                                  tracepoint events; under it the tracing
 *                                  code takes tracepoints_mutex and 6.
 *                                  Taken under 3 by tracepoint copies
 *                                  (fork, exit); never under 7, hence
 *                                  PERF_EVENT_IOC_SET_FILTER is called with
 *                                  no context mutex held.
 *   5. perf_sched_mutex            the context switch hooks' static key,
 *                                  changed under 6
 *   6. cpu_hotplug_lock            CPU hotplug holds it around its
 *                                  callbacks, which take 7
 *   7. a CPU context's mutex       two CPU contexts in address order
 *                                  (perf_pmu_migrate_context())
 *   8. event->child_mutex
 *   9. event->mmap_mutex           two events' in address order (SET_OUTPUT);
 *                                  also under mm->mmap_lock (perf_mmap())
 *  10. rb->event_lock, bp_mutex, callchain_mutex, pmus_lock: none of the
 *      above is taken under them.  pmus_lock is held while a new PMU's
 *      device is added, so the driver core's and sysfs's locks come
 *      after it; its sysfs files take it with nothing of ours held.
 *
 *  Raw spinlocks, interrupts off: rq->lock (the context switch hooks) ->
 *  the CPU context's ctx->lock -> a task context's ctx->lock -> a CPU
 *  PMU part's hrtimer_lock and the PMU drivers' own locks.  A tracepoint
 *  about another task takes that task's ctx->lock alone.
 *
 *  mm->mmap_lock has no order with 1-8: user memory is read and written
 *  (ioctl arguments, read(2)) with no context mutex held, and perf_mmap()
 *  and the MMAP records take none.  The security hooks are called with
 *  nothing above held but 1 and 2 (open) and mmap_lock (perf_mmap()).
 *
 * A context is live on a CPU when its events may be on that CPU's PMUs:
 * the CPU's own context while it has events, a task's context while the
 * task runs and the context has events (cpuctx->task_ctx points to it).
 * Changes to a live context are made on its CPU, by IPI
 * (event_function_call()); changes to a context that is not live are made
 * under its lock from anywhere.  A task context can become live between a
 * check and the change, hence the retry loops below.
 *
 * Lifetime: a context is freed (after an RCU grace period, since the
 * context switch hooks read task->perf_event_ctxp without locks) when its
 * last reference goes.  The task holds one reference until it exits and
 * every event in the context holds one.  A task context's sub-contexts are
 * freed with their last event; a CPU's are embedded and permanent.
 */
#include <linux/slab.h>
#include <linux/sched/task.h>

#include "internal.h"

DEFINE_PER_CPU(struct perf_cpu_context, perf_cpu_context);

/* Never modified: for_each_sibling_event() walks it for non-leaders. */
LIST_HEAD(perf_no_siblings);

static struct lock_class_key cpuctx_lock_key;
static struct lock_class_key cpuctx_mutex_key;

static void init_perf_context(struct perf_event_context *ctx)
{
	raw_spin_lock_init(&ctx->lock);
	mutex_init(&ctx->mutex);
	INIT_LIST_HEAD(&ctx->pmu_ctx_list);
	INIT_LIST_HEAD(&ctx->event_list);
	refcount_set(&ctx->refcount, 1);
}

/**
 * perf_cpu_context_init - set up one CPU's context at boot
 * @cpu: the CPU
 */
void perf_cpu_context_init(int cpu)
{
	struct perf_cpu_context *cpuctx = per_cpu_ptr(&perf_cpu_context, cpu);

	init_perf_context(&cpuctx->ctx);
	lockdep_set_class(&cpuctx->ctx.lock, &cpuctx_lock_key);
	lockdep_set_class(&cpuctx->ctx.mutex, &cpuctx_mutex_key);
}

/**
 * alloc_perf_context - a new, empty context
 * @task: its task (a reference is taken), or NULL
 *
 * Return: the context with one reference, or NULL.
 */
struct perf_event_context *alloc_perf_context(struct task_struct *task)
{
	struct perf_event_context *ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);

	if (!ctx)
		return NULL;
	init_perf_context(ctx);
	if (task)
		ctx->task = get_task_struct(task);
	return ctx;
}

/**
 * get_ctx - take a reference on a context that is known to be alive
 * @ctx: the context
 */
void get_ctx(struct perf_event_context *ctx)
{
	refcount_inc(&ctx->refcount);
}

/**
 * put_ctx - drop a reference; the last one frees a task context
 * @ctx: the context
 */
void put_ctx(struct perf_event_context *ctx)
{
	if (!refcount_dec_and_test(&ctx->refcount))
		return;
	if (WARN_ON_ONCE(!ctx->task))
		return;		/* a CPU context is never freed */
	if (ctx->task != TASK_TOMBSTONE)
		put_task_struct(ctx->task);
	/* Only the task and holders of a reference reach the slots. */
	perf_lazy_free(ctx);
	kfree_rcu(ctx, rcu_head);
}

/**
 * find_get_context - the context an event for @task or @cpu belongs in
 * @task: the task, or NULL for a CPU-wide event
 * @cpu: the CPU of a CPU-wide event
 *
 * A task's context is created on first use.  Fails with -ESRCH for a
 * task that is exiting, and with the CPU-wide permission check's error.
 *
 * Return: the context with a reference for the caller, or an ERR_PTR.
 */
struct perf_event_context *find_get_context(struct task_struct *task, int cpu)
{
	struct perf_event_context *ctx;
	int err;

	if (!task) {
		err = perf_allow_cpu();
		if (err)
			return ERR_PTR(err);
		ctx = &per_cpu_ptr(&perf_cpu_context, cpu)->ctx;
		get_ctx(ctx);
		return ctx;
	}

	mutex_lock(&task->perf_event_mutex);
	ctx = task->perf_event_ctxp;
	if (ctx) {
		get_ctx(ctx);
	} else if (task->flags & PF_EXITING) {
		ctx = ERR_PTR(-ESRCH);
	} else {
		ctx = alloc_perf_context(task);
		if (ctx) {
			get_ctx(ctx);	/* the caller's; the first is the task's */
			smp_store_release(&task->perf_event_ctxp, ctx);
		} else {
			ctx = ERR_PTR(-ENOMEM);
		}
	}
	mutex_unlock(&task->perf_event_mutex);
	return ctx;
}

static void init_pmu_context(struct perf_event_pmu_context *epc,
			     struct pmu *pmu)
{
	epc->pmu = pmu;
	INIT_LIST_HEAD(&epc->pmu_ctx_entry);
	INIT_LIST_HEAD(&epc->pinned_groups);
	INIT_LIST_HEAD(&epc->flexible_groups);
	INIT_LIST_HEAD(&epc->pinned_active);
	INIT_LIST_HEAD(&epc->flexible_active);
	atomic_set(&epc->refcount, 0);
}

/**
 * perf_cpu_pmu_context_init - set up a PMU's part of one CPU's context
 * @cpc: the per-CPU structure
 * @pmu: the PMU
 * @cpu: the CPU
 */
void perf_cpu_pmu_context_init(struct perf_cpu_pmu_context *cpc,
			       struct pmu *pmu, int cpu)
{
	init_pmu_context(&cpc->epc, pmu);
	cpc->epc.embedded = 1;
	perf_mux_hrtimer_init(cpc, pmu, cpu);
}

/**
 * perf_ctx_pmu_context - the part of a context that a PMU's groups use
 * @ctx: the context, locked (or its mutex held), or NULL
 * @pmu: the PMU
 *
 * Return: the sub-context, or NULL when @ctx has none for @pmu.
 */
struct perf_event_pmu_context *perf_ctx_pmu_context(struct perf_event_context *ctx,
						    struct pmu *pmu)
{
	struct perf_event_pmu_context *epc;

	if (!ctx)
		return NULL;
	list_for_each_entry(epc, &ctx->pmu_ctx_list, pmu_ctx_entry) {
		if (epc->pmu == pmu)
			return epc;
	}
	return NULL;
}

/*
 * A task sub-context's lists of groups bound to a CPU, one pair per
 * possible CPU.  Without them (no memory) such groups stay on the
 * sub-context's own lists, where event_filter_match() still keeps them
 * off other CPUs: the lists save time, they are never needed.
 */
static void alloc_cpu_groups(struct perf_event_pmu_context *epc)
{
	struct perf_cpu_groups *cg;
	int cpu, i;

	cg = kcalloc(nr_cpu_ids, sizeof(*cg), GFP_KERNEL | __GFP_NOWARN);
	if (!cg)
		return;
	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		for (i = 0; i < 2; i++)
			INIT_LIST_HEAD(&cg[cpu].groups[i]);
	raw_spin_lock_irq(&epc->ctx->lock);
	epc->cpu_groups = cg;
	raw_spin_unlock_irq(&epc->ctx->lock);
}

/**
 * find_get_pmu_context - the sub-context of @ctx that @pmu's groups use
 * @pmu: the PMU the group belongs to
 * @ctx: the context; its mutex held
 * @cpu: the CPU of a CPU context
 * @task_data: the event keeps state of the task with the PMU
 *	(PERF_ATTACH_TASK_DATA): a task sub-context needs the PMU's
 *	task_ctx_data
 *
 * Return: the sub-context with a reference for one event, or an ERR_PTR.
 */
struct perf_event_pmu_context *find_get_pmu_context(struct pmu *pmu,
						    struct perf_event_context *ctx,
						    int cpu, bool task_data)
{
	struct perf_event_pmu_context *epc, *new;
	void *data = NULL;

	if (!ctx->task) {
		epc = &per_cpu_ptr(pmu->cpu_pmu_context, cpu)->epc;
		raw_spin_lock_irq(&ctx->lock);
		if (atomic_inc_return(&epc->refcount) == 1) {
			epc->ctx = ctx;
			list_add_tail(&epc->pmu_ctx_entry, &ctx->pmu_ctx_list);
		}
		raw_spin_unlock_irq(&ctx->lock);
		return epc;
	}

	new = kzalloc(sizeof(*new), GFP_KERNEL);
	if (!new)
		return ERR_PTR(-ENOMEM);
	init_pmu_context(new, pmu);
	/* The sub-context may have it already: then this one goes. */
	if (task_data && pmu->task_ctx_cache) {
		data = kmem_cache_zalloc(pmu->task_ctx_cache, GFP_KERNEL);
		if (!data) {
			kfree(new);
			return ERR_PTR(-ENOMEM);
		}
	}

	raw_spin_lock_irq(&ctx->lock);
	epc = perf_ctx_pmu_context(ctx, pmu);
	if (!epc) {
		epc = new;
		new = NULL;
		epc->ctx = ctx;
		list_add_tail(&epc->pmu_ctx_entry, &ctx->pmu_ctx_list);
	}
	if (data && !epc->task_ctx_data) {
		epc->task_ctx_data = data;
		data = NULL;
	}
	atomic_inc(&epc->refcount);
	raw_spin_unlock_irq(&ctx->lock);

	kfree(new);
	if (data)
		kmem_cache_free(pmu->task_ctx_cache, data);
	/* Only holders of ctx->mutex set ->cpu_groups: the test holds. */
	if (cpu >= 0 && !epc->cpu_groups)
		alloc_cpu_groups(epc);
	return epc;
}

/**
 * put_pmu_ctx - an event no longer uses its sub-context
 * @epc: the sub-context
 *
 * The last user unlinks it from its context; a task context's sub-context
 * is then freed.  Readers of ctx->pmu_ctx_list all hold ctx->lock.
 */
void put_pmu_ctx(struct perf_event_pmu_context *epc)
{
	struct perf_event_context *ctx = epc->ctx;
	unsigned long flags;

	if (!atomic_dec_and_raw_lock_irqsave(&epc->refcount, &ctx->lock, flags))
		return;

	WARN_ON_ONCE(!list_empty(&epc->pinned_groups) ||
		     !list_empty(&epc->flexible_groups) ||
		     perf_pmu_ctx_is_active(epc));
	list_del_init(&epc->pmu_ctx_entry);
	epc->ctx = NULL;
	raw_spin_unlock_irqrestore(&ctx->lock, flags);

	if (!epc->embedded) {
		if (epc->task_ctx_data)
			kmem_cache_free(epc->pmu->task_ctx_cache,
					epc->task_ctx_data);
		kfree(epc->cpu_groups);
		kfree(epc);
	}
}

/**
 * perf_event_ctx_lock_nested - lock the mutex of an event's context
 * @event: the event
 * @nesting: lockdep subclass
 *
 * Return: the context, referenced and with its mutex held.
 */
struct perf_event_context *perf_event_ctx_lock_nested(struct perf_event *event,
						      int nesting)
{
	struct perf_event_context *ctx;

	/*
	 * An event holds a reference to its context, so the one it points
	 * to is alive.  Only perf_pmu_migrate_context() moves an event to
	 * another context, holding both mutexes: whoever waited for the
	 * old one finds the event gone from it and follows.
	 */
	for (;;) {
		ctx = READ_ONCE(event->ctx);
		get_ctx(ctx);
		mutex_lock_nested(&ctx->mutex, nesting);
		if (READ_ONCE(event->ctx) == ctx)
			return ctx;
		mutex_unlock(&ctx->mutex);
		put_ctx(ctx);
	}
}

/**
 * perf_event_ctx_unlock - undo perf_event_ctx_lock()
 * @event: the event
 * @ctx: what perf_event_ctx_lock() returned
 */
void perf_event_ctx_unlock(struct perf_event *event,
			   struct perf_event_context *ctx)
{
	mutex_unlock(&ctx->mutex);
	put_ctx(ctx);
}

/**
 * perf_ctx_lock - lock this CPU's context and a task context
 * @cpuctx: this CPU's context
 * @ctx: a task context, or NULL (or the CPU's own context)
 */
void perf_ctx_lock(struct perf_cpu_context *cpuctx,
		   struct perf_event_context *ctx)
{
	raw_spin_lock(&cpuctx->ctx.lock);
	if (ctx && ctx != &cpuctx->ctx)
		raw_spin_lock(&ctx->lock);
}

/**
 * perf_ctx_unlock - undo perf_ctx_lock()
 * @cpuctx: this CPU's context
 * @ctx: the task context passed to perf_ctx_lock()
 */
void perf_ctx_unlock(struct perf_cpu_context *cpuctx,
		     struct perf_event_context *ctx)
{
	if (ctx && ctx != &cpuctx->ctx)
		raw_spin_unlock(&ctx->lock);
	raw_spin_unlock(&cpuctx->ctx.lock);
}

struct remote_call {
	struct perf_event	*event;
	event_fn_t		fn;
	void			*data;
	int			ret;
};

/*
 * Runs on the CPU where the event's context may be live, interrupts off.
 * A task context is only handled here when its task is the one running;
 * otherwise -ESRCH sends the caller round again.
 */
static void remote_event_function(void *info)
{
	struct remote_call *rc = info;
	struct perf_event *event = rc->event;
	struct perf_event_context *ctx = event->ctx;
	struct perf_cpu_context *cpuctx = this_cpu_ptr(&perf_cpu_context);
	struct perf_event_context *task_ctx = cpuctx->task_ctx;

	if (ctx->task) {
		if (ctx->task != current) {
			rc->ret = -ESRCH;
			return;
		}
		WARN_ON_ONCE(task_ctx && task_ctx != ctx);
		task_ctx = ctx;
	}

	perf_ctx_lock(cpuctx, task_ctx);
	update_context_time(&cpuctx->ctx);
	if (task_ctx)
		update_context_time(task_ctx);
	rc->fn(event, cpuctx, ctx, rc->data);
	perf_ctx_unlock(cpuctx, task_ctx);
	rc->ret = 0;
}

/*
 * smp_call_function_single() of remote_event_function(), called directly
 * (interrupts off, as a cross-CPU call would run it) when @cpu is this one.
 */
static void call_on_cpu(int cpu, struct remote_call *rc)
{
	unsigned long flags;

	preempt_disable();
	if (cpu == smp_processor_id()) {
		local_irq_save(flags);
		remote_event_function(rc);
		local_irq_restore(flags);
		preempt_enable();
		return;
	}
	preempt_enable();
	smp_call_function_single(cpu, remote_event_function, rc, 1);
}

/**
 * event_function_call - apply @fn to @event where its context lives
 * @event: the event
 * @fn: called with the context locked; its cpuctx argument is this CPU's
 *      context when the change is made on the CPU where the context may be
 *      live, and NULL when the context is known not to be live
 * @data: passed to @fn
 *
 * Caller holds ctx->mutex (or owns an event not yet visible to others).
 */
void event_function_call(struct perf_event *event, event_fn_t fn, void *data)
{
	struct perf_event_context *ctx = event->ctx;
	struct task_struct *task = READ_ONCE(ctx->task);
	struct remote_call rc = { .event = event, .fn = fn, .data = data };

	if (!task) {
		rc.ret = -ENXIO;
		call_on_cpu(event->cpu, &rc);
		if (!rc.ret)
			return;
		/* The CPU is offline: nothing of this context is live. */
		goto locked;
	}

	while (task != TASK_TOMBSTONE) {
		rc.ret = -ESRCH;
		call_on_cpu(task_cpu(task), &rc);
		if (!rc.ret)
			return;

		raw_spin_lock_irq(&ctx->lock);
		task = ctx->task;
		if (task == TASK_TOMBSTONE || !ctx->is_active)
			goto apply;
		/* The task is running again somewhere: chase it. */
		raw_spin_unlock_irq(&ctx->lock);
		cond_resched();
	}
locked:
	raw_spin_lock_irq(&ctx->lock);
apply:
	update_context_time(ctx);
	fn(event, NULL, ctx, data);
	raw_spin_unlock_irq(&ctx->lock);
}

/**
 * event_function_local - apply @fn on this CPU, where @event is live
 * @event: the event
 * @fn: as for event_function_call()
 * @data: passed to @fn
 *
 * For callers running with interrupts off on the event's CPU (overflow).
 */
void event_function_local(struct perf_event *event, event_fn_t fn, void *data)
{
	struct perf_event_context *ctx = event->ctx;
	struct perf_cpu_context *cpuctx = this_cpu_ptr(&perf_cpu_context);
	struct perf_event_context *task_ctx = cpuctx->task_ctx;
	unsigned long flags;

	local_irq_save(flags);
	if (ctx->task) {
		if (ctx->task != current || task_ctx != ctx)
			goto out;
	}
	perf_ctx_lock(cpuctx, task_ctx);
	update_context_time(&cpuctx->ctx);
	if (task_ctx)
		update_context_time(task_ctx);
	fn(event, cpuctx, ctx, data);
	perf_ctx_unlock(cpuctx, task_ctx);
out:
	local_irq_restore(flags);
}

/**
 * perf_group_list - the list a group leader belongs on
 * @event: the leader
 *
 * Return: its sub-context's pinned or flexible list; for a cgroup event
 * its cgroup's list on its CPU; for a task event bound to a CPU, that
 * CPU's list of the sub-context when it has them.
 */
struct list_head *perf_group_list(struct perf_event *event)
{
	struct perf_event_pmu_context *epc = event->pmu_ctx;
	int kind = !event->attr.pinned;

	if (perf_event_has_cgroup(event))
		return perf_cgroup_group_list(event);
	if (event->cpu >= 0 && epc->cpu_groups)
		return &epc->cpu_groups[event->cpu].groups[kind];
	return kind ? &epc->flexible_groups : &epc->pinned_groups;
}

/**
 * perf_group_iter_start - start a walk of the groups that may run here
 * @it: the walk
 * @epc: a sub-context live on this CPU, its context locked
 * @pinned: its pinned groups, else its flexible ones
 *
 * Return: false when @epc's own list is all there is to walk (@it is
 * then unused): no groups bound to this CPU in a task context, no cgroup
 * events in a CPU context.
 */
bool perf_group_iter_start(struct perf_group_iter *it,
			   struct perf_event_pmu_context *epc, bool pinned)
{
	struct list_head *own = pinned ? &epc->pinned_groups : &epc->flexible_groups;
	struct list_head *here;
	int i;

	if (!epc->ctx->task)
		return perf_cgroup_iter_start(it, epc, pinned);
	if (!epc->cpu_groups)
		return false;
	here = &epc->cpu_groups[smp_processor_id()].groups[!pinned];
	if (list_empty(here))
		return false;
	it->epc = epc;
	it->next_css = NULL;
	it->kind = !pinned;
	it->nr = 0;
	if (!list_empty(own))
		it->head[it->nr++] = own;
	it->head[it->nr++] = here;
	for (i = 0; i < it->nr; i++)
		it->pos[i] = it->head[i]->next;
	return true;
}

/**
 * perf_group_iter_next - the next group of a walk
 * @it: the walk
 *
 * The walk's lists must not change until it ends.
 *
 * Return: the next leader of @it's sub-context, or NULL at the end.
 */
struct perf_event *perf_group_iter_next(struct perf_group_iter *it)
{
	for (;;) {
		struct perf_event *best = NULL, *ev;
		int i, from = 0;

		for (i = 0; i < it->nr; i++) {
			if (it->pos[i] == it->head[i])
				continue;
			ev = list_entry(it->pos[i], struct perf_event, group_entry);
			if (!best || ev->group_seq < best->group_seq) {
				best = ev;
				from = i;
			}
		}
		if (!best) {
			if (!it->next_css)
				return NULL;
			it->nr = 0;
			perf_cgroup_iter_fill(it);
			continue;
		}
		it->pos[from] = it->pos[from]->next;
		/* A cgroup's list holds the groups of all its PMUs. */
		if (best->pmu_ctx == it->epc)
			return best;
	}
}

/**
 * list_add_event - make @event a member of @ctx
 * @event: the event; a leader also joins its sub-context's group list
 * @ctx: the context, mutex and lock held
 */
void list_add_event(struct perf_event *event, struct perf_event_context *ctx)
{
	if (WARN_ON_ONCE(event->attach_state & PERF_ATTACH_CONTEXT))
		return;

	perf_cgroup_event_add(event, ctx);
	event->tstamp = perf_event_time(event);
	event->attach_state |= PERF_ATTACH_CONTEXT;
	if (event->group_leader == event) {
		/* A group moving in whole (migrate) keeps what it has. */
		if (!(event->attach_state & PERF_ATTACH_GROUP))
			event->group_caps = event->event_caps;
		list_add_tail(&event->group_entry, perf_group_list(event));
		perf_group_seq_next(event);
	}
	/* Side-band walks stop at the first event that wants none. */
	if (perf_event_wants_sb(event))
		list_add(&event->event_entry, &ctx->event_list);
	else
		list_add_tail(&event->event_entry, &ctx->event_list);
	ctx->nr_events++;
	event->pmu_ctx->nr_events++;
	if (event->attr.freq)
		ctx->nr_freq++;
}

static void list_del_event(struct perf_event *event, struct perf_event_context *ctx)
{
	if (!(event->attach_state & PERF_ATTACH_CONTEXT))
		return;

	event->attach_state &= ~PERF_ATTACH_CONTEXT;
	perf_cgroup_event_del(event, ctx);
	ctx->nr_events--;
	event->pmu_ctx->nr_events--;
	if (event->attr.freq)
		ctx->nr_freq--;
	list_del_init(&event->event_entry);
	if (event->group_leader == event)
		list_del_init(&event->group_entry);
	/* An event outside any context cannot count: it is off. */
	if (event->state > PERF_EVENT_STATE_OFF)
		perf_event_set_state(event, PERF_EVENT_STATE_OFF);
}

/*
 * What read(2) returns depends on the group's size for the members that
 * read the whole group (and so does a sample that carries such a read).
 */
static void group_sizes_changed(struct perf_event *leader)
{
	struct perf_event *sibling;

	if (leader->attr.read_format & PERF_FORMAT_GROUP)
		perf_event_compute_sizes(leader);
	list_for_each_entry(sibling, &leader->sibling_list, sibling_list) {
		if (sibling->attr.read_format & PERF_FORMAT_GROUP)
			perf_event_compute_sizes(sibling);
	}
}

/**
 * perf_group_attach - link a sibling to its leader
 * @event: the event; a leader only gets the GROUP attach bit
 */
void perf_group_attach(struct perf_event *event)
{
	struct perf_event *leader = event->group_leader;

	if (event->attach_state & PERF_ATTACH_GROUP)
		return;
	event->attach_state |= PERF_ATTACH_GROUP;
	if (leader == event)
		return;

	list_add_tail(&event->sibling_list, &leader->sibling_list);
	leader->nr_siblings++;
	leader->group_generation++;
	leader->group_caps &= event->event_caps;
	group_sizes_changed(leader);
}

/*
 * Unlink @event from its group.  A leader's siblings each become a group
 * of their own, keeping their state (but for those that need a leader,
 * which go to the error state); those on the PMU stay there.
 */
static void perf_group_detach(struct perf_event *event)
{
	struct perf_event *leader = event->group_leader, *sibling, *tmp;

	if (!(event->attach_state & PERF_ATTACH_GROUP))
		return;
	event->attach_state &= ~PERF_ATTACH_GROUP;

	if (leader != event) {
		list_del_init(&event->sibling_list);
		leader->nr_siblings--;
		leader->group_generation++;
		leader->group_caps = leader->event_caps;
		list_for_each_entry(sibling, &leader->sibling_list, sibling_list)
			leader->group_caps &= sibling->event_caps;
		group_sizes_changed(leader);
		/*
		 * Out of the group, it leads a group of its own: an event that
		 * lives on (remove_on_exec, its CPU gone offline) must not keep
		 * pointing at a leader that may be freed before it.
		 */
		event->group_leader = event;
		event->group_caps = event->event_caps;
		perf_event_compute_sizes(event);
		return;
	}

	list_for_each_entry_safe(sibling, tmp, &event->sibling_list, sibling_list) {
		/*
		 * One that cannot count without its leader (PERF_EV_CAP_SIBLING:
		 * a topdown metric) is taken off and fails for good.  Only an
		 * event function detaches a group (__perf_remove_from_context()):
		 * on the context's CPU, under its lock, as event_sched_out() needs.
		 */
		if (sibling->event_caps & PERF_EV_CAP_SIBLING) {
			if (sibling->state == PERF_EVENT_STATE_ACTIVE)
				event_sched_out(sibling, sibling->pmu_ctx);
			perf_event_set_state(sibling, PERF_EVENT_STATE_ERROR);
		}
		list_del_init(&sibling->sibling_list);
		sibling->group_leader = sibling;
		sibling->group_caps = sibling->event_caps;
		perf_event_compute_sizes(sibling);
		if (!(sibling->attach_state & PERF_ATTACH_CONTEXT))
			continue;
		list_add_tail(&sibling->group_entry, perf_group_list(sibling));
		perf_group_seq_next(sibling);
		if (sibling->state == PERF_EVENT_STATE_ACTIVE)
			list_add_tail(&sibling->active_list, sibling->attr.pinned ?
				      &sibling->pmu_ctx->pinned_active :
				      &sibling->pmu_ctx->flexible_active);
	}
	event->nr_siblings = 0;
	event->group_generation++;
	perf_event_compute_sizes(event);
}

static void add_event_to_ctx(struct perf_event *event,
			     struct perf_event_context *ctx)
{
	list_add_event(event, ctx);
	perf_group_attach(event);
}

static void __perf_install_in_context(struct perf_event *event,
				      struct perf_cpu_context *cpuctx,
				      struct perf_event_context *ctx, void *data)
{
	if (!(event->attach_state & PERF_ATTACH_CONTEXT))
		add_event_to_ctx(event, ctx);
	if (cpuctx && ctx->nr_events)
		perf_event_sched_in_live(event, cpuctx, ctx);
}

/**
 * perf_install_in_context - add a new event to a context and start it
 * @ctx: the context, mutex held
 * @event: the event, with event->ctx and event->pmu_ctx set
 * @cpu: the event's CPU (-1 for a task event on any CPU)
 */
void perf_install_in_context(struct perf_event_context *ctx,
			     struct perf_event *event, int cpu)
{
	struct task_struct *task = READ_ONCE(ctx->task);
	struct remote_call rc = {
		.event = event, .fn = __perf_install_in_context,
	};

	lockdep_assert_held(&ctx->mutex);

	if (!task) {
		rc.ret = -ENXIO;
		call_on_cpu(cpu, &rc);
		if (!rc.ret)
			return;
		raw_spin_lock_irq(&ctx->lock);
		update_context_time(ctx);
		add_event_to_ctx(event, ctx);
		raw_spin_unlock_irq(&ctx->lock);
		return;
	}

	for (;;) {
		rc.ret = -ESRCH;
		call_on_cpu(task_cpu(task), &rc);
		if (!rc.ret)
			return;

		raw_spin_lock_irq(&ctx->lock);
		if (ctx->is_active && ctx->task != TASK_TOMBSTONE) {
			raw_spin_unlock_irq(&ctx->lock);
			cond_resched();
			continue;
		}
		if (!(event->attach_state & PERF_ATTACH_CONTEXT)) {
			update_context_time(ctx);
			add_event_to_ctx(event, ctx);
		}
		raw_spin_unlock_irq(&ctx->lock);

		/*
		 * If the task started running after our IPI, its switch-in
		 * hook may have looked at the context before the event was
		 * there; catch it where it runs.  Pairs with the barrier the
		 * scheduler has between setting rq->curr and the hook.
		 */
		smp_mb();
		if (ctx->task == TASK_TOMBSTONE || !task_curr(task))
			return;
	}
}

/* A moving member comes back in @epc in the state it was opened in. */
static void move_member(struct perf_event *event,
			struct perf_event_pmu_context *epc)
{
	put_pmu_ctx(event->pmu_ctx);
	atomic_inc(&epc->refcount);
	event->pmu_ctx = epc;
	event->state = event->attr.disabled ? PERF_EVENT_STATE_OFF :
					      PERF_EVENT_STATE_INACTIVE;
	perf_install_in_context(event->ctx, event, event->cpu);
}

/**
 * perf_group_move - move a group of software events to a hardware PMU
 * @leader: the group's leader; every member is a software event
 * @epc: the hardware PMU's sub-context of the same context, which the
 *	 hardware event joining the group holds a reference on
 *
 * A hardware event joining a software group takes the group along, as
 * upstream's perf_event_open() does: each member leaves the context
 * keeping its group links and count, and comes back in @epc in the
 * state it was opened in (attr.disabled), siblings first so that the
 * leader brings the whole group on.  Caller holds the context's mutex.
 */
void perf_group_move(struct perf_event *leader,
		     struct perf_event_pmu_context *epc)
{
	struct perf_event *sibling;

	lockdep_assert_held(&leader->ctx->mutex);
	perf_remove_from_context(leader, 0);
	for_each_sibling_event(sibling, leader)
		perf_remove_from_context(sibling, 0);
	for_each_sibling_event(sibling, leader)
		move_member(sibling, epc);
	move_member(leader, epc);
}

struct group_members {
	struct perf_event	**events;
	int			nr;
};

static void __perf_install_group(struct perf_event *leader,
				 struct perf_cpu_context *cpuctx,
				 struct perf_event_context *ctx, void *data)
{
	struct group_members *g = data;
	int i;

	for (i = 0; i < g->nr; i++)
		add_event_to_ctx(g->events[i], ctx);
	perf_event_sched_in_live(leader, cpuctx, ctx);
}

/**
 * perf_install_group_current - add a new group to the current task's
 *	context and start it
 * @ctx: current's context, mutex held
 * @events: the group, leader first, none of it in a context yet
 * @nr: the number of events
 *
 * The members go on together, as a group that was enabled.
 */
void perf_install_group_current(struct perf_event_context *ctx,
				struct perf_event **events, int nr)
{
	struct group_members g = { .events = events, .nr = nr };
	struct remote_call rc = {
		.event = events[0], .fn = __perf_install_group, .data = &g,
	};
	unsigned long flags;

	lockdep_assert_held(&ctx->mutex);
	if (WARN_ON_ONCE(ctx->task != current))
		return;
	/* The task is current: nothing can move it off this CPU meanwhile. */
	local_irq_save(flags);
	remote_event_function(&rc);
	local_irq_restore(flags);
	WARN_ON_ONCE(rc.ret);
}

static void __perf_remove_from_context(struct perf_event *event,
				       struct perf_cpu_context *cpuctx,
				       struct perf_event_context *ctx,
				       void *data)
{
	unsigned long flags = (unsigned long)data;

	if (event->state == PERF_EVENT_STATE_ACTIVE) {
		event_sched_out(event, event->pmu_ctx);
		if (event->group_leader == event)
			list_del_init(&event->active_list);
	}
	if (flags & DETACH_EXIT)
		perf_event_set_state(event, PERF_EVENT_STATE_EXIT);
	if (flags & DETACH_GROUP)
		perf_group_detach(event);
	list_del_event(event, ctx);
	if (flags & DETACH_DEAD)
		event->state = PERF_EVENT_STATE_DEAD;

	if (!ctx->nr_events && ctx->is_active && cpuctx)
		perf_ctx_deactivate(cpuctx, ctx);
}

/**
 * perf_remove_from_context - take an event out of its context
 * @event: the event
 * @flags: DETACH_* flags
 *
 * Caller holds ctx->mutex.  The event keeps its context pointer (and the
 * reference that goes with it) until it is freed.
 */
void perf_remove_from_context(struct perf_event *event, unsigned long flags)
{
	lockdep_assert_held(&event->ctx->mutex);
	event_function_call(event, __perf_remove_from_context, (void *)flags);
}

/**
 * perf_ctx_remove_all - take every event out of a live CPU context
 * @cpuctx: this CPU's context
 * @ctx: its own context, locked
 *
 * The events stay OFF and keep their counts; used when the CPU goes down.
 */
void perf_ctx_remove_all(struct perf_cpu_context *cpuctx,
			 struct perf_event_context *ctx)
{
	struct perf_event *event, *tmp;

	list_for_each_entry_safe(event, tmp, &ctx->event_list, event_entry)
		__perf_remove_from_context(event, cpuctx, ctx, (void *)DETACH_GROUP);
}

/*
 * Out of the source context: each event is taken off, keeping its group
 * links, its count and (in an attach_state bit) whether it was enabled,
 * and lets go of its context and sub-context.
 */
static void migrate_out(struct perf_event_context *src, struct pmu *pmu,
			int src_cpu, struct list_head *moving)
{
	struct perf_event_pmu_context *epc =
		&per_cpu_ptr(pmu->cpu_pmu_context, src_cpu)->epc;
	struct perf_event *event, *tmp;

	/* Siblings first: they must not run ahead of their leader. */
	list_for_each_entry(event, &src->event_list, event_entry) {
		if (event->pmu_ctx == epc && event->group_leader != event)
			list_add_tail(&event->migrate_entry, moving);
	}
	list_for_each_entry(event, &src->event_list, event_entry) {
		if (event->pmu_ctx == epc && event->group_leader == event)
			list_add_tail(&event->migrate_entry, moving);
	}
	list_for_each_entry_safe(event, tmp, moving, migrate_entry) {
		if (event->state >= PERF_EVENT_STATE_INACTIVE)
			event->attach_state |= PERF_ATTACH_MOVE_ENABLED;
		perf_remove_from_context(event, 0);
		put_pmu_ctx(event->pmu_ctx);
		event->pmu_ctx = NULL;
	}
}

/**
 * perf_pmu_migrate_context - move a PMU's CPU-wide events to another CPU
 * @pmu: the PMU
 * @src_cpu: the CPU whose context holds the events
 * @dst_cpu: the CPU to move them to
 *
 * For PMUs that count something shared by several CPUs (a package, a
 * memory controller, a device) and let one CPU stand for it: when that
 * CPU goes away, the driver moves the events to another.  Groups stay
 * whole; each event keeps its count and its enabled or disabled state,
 * and counts on @dst_cpu from now on.  Takes both CPU contexts' mutexes,
 * so an ioctl or read waiting on the old context follows the event.
 */
void perf_pmu_migrate_context(struct pmu *pmu, int src_cpu, int dst_cpu)
{
	struct perf_event_context *src = &per_cpu_ptr(&perf_cpu_context, src_cpu)->ctx;
	struct perf_event_context *dst = &per_cpu_ptr(&perf_cpu_context, dst_cpu)->ctx;
	struct perf_event_pmu_context *epc;
	struct perf_event *event, *tmp;
	LIST_HEAD(moving);

	if (src_cpu == dst_cpu)
		return;
	/* Both are CPU contexts, one lock class: lower address first. */
	if (src < dst) {
		mutex_lock(&src->mutex);
		mutex_lock_nested(&dst->mutex, SINGLE_DEPTH_NESTING);
	} else {
		mutex_lock(&dst->mutex);
		mutex_lock_nested(&src->mutex, SINGLE_DEPTH_NESTING);
	}

	migrate_out(src, pmu, src_cpu, &moving);
	if (list_empty(&moving))
		goto unlock;
	/*
	 * Lock-free walkers of the old CPU's lists (the software event
	 * lists, under RCU) may still be on an event's list node: it can
	 * join the new CPU's lists only when they are done.
	 */
	synchronize_rcu();

	list_for_each_entry_safe(event, tmp, &moving, migrate_entry) {
		list_del_init(&event->migrate_entry);
		epc = find_get_pmu_context(pmu, dst, dst_cpu, false);
		event->pmu_ctx = epc;
		event->cpu = dst_cpu;
		get_ctx(dst);
		WRITE_ONCE(event->ctx, dst);
		put_ctx(src);
		if (event->attach_state & PERF_ATTACH_MOVE_ENABLED) {
			event->attach_state &= ~PERF_ATTACH_MOVE_ENABLED;
			event->state = PERF_EVENT_STATE_INACTIVE;
		}
		perf_install_in_context(dst, event, dst_cpu);
	}
unlock:
	mutex_unlock(&src->mutex);
	mutex_unlock(&dst->mutex);
}
EXPORT_SYMBOL_GPL(perf_pmu_migrate_context);
