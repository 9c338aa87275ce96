// SPDX-License-Identifier: GPL-2.0
/*
 * Lazy inheritance of events bound to a CPU.
 *
 * A task event opened for one CPU (pid N, cpu C, inherit), as perf record
 * opens one per CPU for its workload, counts in a child only while the
 * child runs on C.  Fork copies such a group only for the CPU the child
 * starts on; for every other CPU the child's context gets a slot instead:
 * forty bytes naming the original, the state its copy will start in and
 * whether an exec will enable it.  The first time the child runs on C,
 * the scheduler hook notes the arrival and queues task work; before the
 * child returns to user space, the work copies C's groups into its
 * context and starts them.  A child that never runs on C never pays for
 * C's events, and the copies it does make fold back at exit like any
 * other.
 *
 * What a copy made late does not see: the kernel work between the
 * child's arrival on C and its return to user space, and the time before
 * it existed, which upstream's copy would have counted as enabled but not
 * running.  Counts of user space work are the same as with copies made
 * at fork; so are the states, since a slot follows its original's
 * PERF_EVENT_IOC_ENABLE and DISABLE and the child's exec as a copy would.
 *
 * Slots are flat like copies: they name the original, never a copy, so a
 * grandchild forked before its parent ran on C gets the same slots.
 *
 * Locking and lifetime:
 *  - The slots live in one allocation, struct perf_lazy_copies, hung on
 *    the child's context at fork and freed with the context.
 *  - A slot that still waits is on its original's lazy_list; linking and
 *    unlinking take the original's child_mutex, with the slot's context's
 *    mutex held outside it (fork: the context is not yet published).
 *    slot->orig is cleared when the slot is unlinked, so holders of
 *    either lock see a waiting slot as one with a non-NULL orig.
 *  - An original being released unlinks the slots still waiting for it
 *    (perf_lazy_release()), taking each one's context mutex first, the
 *    same order as for its copies; so a holder of the context mutex that
 *    sees slot->orig set may use the original.
 *  - slot->state changes under the original's child_mutex (ioctl, exec).
 *  - slot->orig is also cleared under the slot's context lock
 *    (slot_clear()): side-band records walk the slots of the running CPU
 *    under that lock, with interrupts off (perf_lazy_sb_walk()), and use
 *    the original only while it still names it.  A release clears every
 *    slot naming the original (perf_lazy_release()) before it tears the
 *    original down, so a holder of the context lock that sees
 *    slot->orig set may write through it; its buffer is reached under
 *    RCU, as any output does.
 *  - The scheduler hook only sets bits (arrived, queued) and queues the
 *    work; everything else runs in the task itself, under its context's
 *    mutex.  The work lives in the slots' allocation: a task that exits
 *    with it queued has it cancelled when its context ends, since
 *    do_exit() runs task work only after that.
 */
#include <linux/slab.h>
#include <linux/task_work.h>

#include "internal.h"

/**
 * struct perf_lazy_slot - a group member not yet copied into a context
 * @entry: on @orig's lazy_list while the slot waits
 * @orig: the original event; NULL once copied, dropped or released
 * @ctx: the context the copy will go into
 * @nr: a leader's group size (itself included); 0 for a sibling, whose
 *	leader is the nearest slot before it with @nr set
 * @state: PERF_EVENT_STATE_OFF or _INACTIVE, the copy's first state
 * @enable_on_exec: the child's exec will make @state INACTIVE
 */
struct perf_lazy_slot {
	struct list_head		entry;
	struct perf_event		*orig;
	struct perf_event_context	*ctx;
	u16				nr;
	s8				state;
	u8				enable_on_exec;
};

#define PERF_LAZY_QUEUED	0

/* The slot stops waiting; its context lock keeps out side-band walks. */
static void slot_clear(struct perf_lazy_slot *s)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&s->ctx->lock, flags);
	WRITE_ONCE(s->orig, NULL);
	raw_spin_unlock_irqrestore(&s->ctx->lock, flags);
}

/**
 * struct perf_lazy_copies - a context's slots
 * @work: the task work that makes the copies, queued on the context's
 *	  task; do_exit() ends the task's context (perf_event_exit_task())
 *	  before it runs the task's work, so perf_lazy_exit() takes a
 *	  queued work off the task before the context, and this, can go
 * @flags: PERF_LAZY_QUEUED while @work is queued
 * @ctx: the context
 * @waiting: CPUs with slots
 * @arrived: CPUs the task has run on while they had slots
 * @nr: slots in use
 * @max: slots allocated
 * @slot: the slots, each group's leader first
 */
struct perf_lazy_copies {
	struct callback_head		work;
	unsigned long			flags;
	struct perf_event_context	*ctx;
	unsigned long			*waiting;
	unsigned long			*arrived;
	int				nr;
	int				max;
	struct perf_lazy_slot		slot[];
};

/*
 * Unlink a waiting slot; the context's mutex is held.  Once the slot is
 * off the list, a release of the original no longer waits for this
 * context's mutex and may free it: the reference taken before keeps it
 * for the wakeup, as a copy's reference on its parent does.
 */
static void slot_unlink(struct perf_lazy_slot *s)
{
	struct perf_event *orig = s->orig;
	bool ref;

	if (!orig)
		return;
	/* A waiting slot's original has not been released: not zero. */
	ref = perf_event_get_ref(orig);
	WARN_ON_ONCE(!ref);
	mutex_lock(&orig->child_mutex);
	list_del_init(&s->entry);
	slot_clear(s);
	mutex_unlock(&orig->child_mutex);
	if (!ref)
		return;
	/* Pollers of an original whose task is gone wait for the last child. */
	if (READ_ONCE(orig->state) <= PERF_EVENT_STATE_EXIT)
		perf_event_wakeup(orig);
	put_event(orig);
}

/*
 * The leader of the group at @s goes without a copy: its siblings wait on
 * as groups of their own, as copies of them do once their leader is
 * released (each leaves the group, upstream's DETACH_GROUP).  The
 * context's mutex is held.
 */
static void slot_orphan_siblings(struct perf_lazy_slot *s)
{
	int j;

	for (j = 1; j < s->nr; j++)
		s[j].nr = 1;
	if (s->nr)
		s->nr = 1;
}

/* A slot for @orig at the end of @lc; false when @orig is being released. */
static bool slot_add(struct perf_lazy_copies *lc, struct perf_event *orig,
		     int state, bool enable_on_exec, bool leader)
{
	struct perf_lazy_slot *s = &lc->slot[lc->nr];

	if (WARN_ON_ONCE(lc->nr >= lc->max))
		return false;
	s->ctx = lc->ctx;
	s->nr = leader;
	s->state = state;
	s->enable_on_exec = enable_on_exec;
	mutex_lock(&orig->child_mutex);
	if (orig->state == PERF_EVENT_STATE_DEAD) {
		mutex_unlock(&orig->child_mutex);
		return false;
	}
	s->orig = orig;
	list_add_tail(&s->entry, &orig->lazy_list);
	mutex_unlock(&orig->child_mutex);
	set_bit(orig->cpu, lc->waiting);
	lc->nr++;
	return true;
}

/**
 * perf_lazy_count - how many slots a fork may need
 * @parent_ctx: the forking task's context, mutex held
 * @clone_flags: the clone flags
 * @cpu: the CPU whose groups are copied at once
 *
 * Return: the number of group members bound to other CPUs that the child
 * inherits, waiting slots of the parent included.
 */
int perf_lazy_count(struct perf_event_context *parent_ctx, u64 clone_flags,
		    int cpu)
{
	struct perf_lazy_copies *plc = parent_ctx->lazy;
	struct perf_event_pmu_context *epc;
	struct perf_event *leader;
	int c, i, n = 0;

	list_for_each_entry(epc, &parent_ctx->pmu_ctx_list, pmu_ctx_entry) {
		for (c = 0; epc->cpu_groups && c < nr_cpu_ids; c++) {
			if (c == cpu)
				continue;
			for (i = 0; i < 2; i++)
				list_for_each_entry(leader, &epc->cpu_groups[c].groups[i],
						    group_entry)
					if (perf_event_inherits_to(leader, clone_flags))
						n += 1 + leader->nr_siblings;
		}
	}
	for (i = 0; plc && i < plc->nr; i++)
		if (plc->slot[i].orig && plc->slot[i].orig->cpu != cpu)
			n++;
	return n;
}

static void perf_lazy_work(struct callback_head *head);

/**
 * perf_lazy_alloc - give a new context room for @n slots
 * @ctx: the child's context, not yet published
 * @n: the number of slots (perf_lazy_count())
 *
 * Return: 0 or -ENOMEM.
 */
int perf_lazy_alloc(struct perf_event_context *ctx, int n)
{
	size_t map = BITS_TO_LONGS(nr_cpu_ids) * sizeof(unsigned long);
	size_t size = struct_size_t(struct perf_lazy_copies, slot, n);
	struct perf_lazy_copies *lc = kmalloc(size + 2 * map, GFP_KERNEL);

	if (!lc)
		return -ENOMEM;
	/* The slots are written as they are used. */
	init_task_work(&lc->work, perf_lazy_work);
	lc->flags = 0;
	lc->ctx = ctx;
	lc->nr = 0;
	lc->max = n;
	lc->waiting = (void *)lc + size;
	lc->arrived = (void *)lc + size + map;
	bitmap_zero(lc->waiting, nr_cpu_ids);
	bitmap_zero(lc->arrived, nr_cpu_ids);
	ctx->lazy = lc;
	return 0;
}

/**
 * perf_lazy_free - free a context's slots, none of them waiting
 * @ctx: the context, being freed
 */
void perf_lazy_free(struct perf_event_context *ctx)
{
	kfree(ctx->lazy);
}

/**
 * perf_lazy_defer_group - give a child slots for a group instead of copies
 * @leader: the group's leader in the forking task's context (an original
 *	    or a copy), its context's mutex held
 * @child_ctx: the child's context, with room (perf_lazy_alloc())
 */
void perf_lazy_defer_group(struct perf_event *leader,
			   struct perf_event_context *child_ctx)
{
	struct perf_lazy_copies *lc = child_ctx->lazy;
	struct perf_event *orig = leader->parent ?: leader, *sibling;
	struct perf_lazy_slot *ls = &lc->slot[lc->nr];

	if (!slot_add(lc, orig, perf_copy_state(leader),
		      orig->attr.enable_on_exec, true))
		return;
	for_each_sibling_event(sibling, leader) {
		orig = sibling->parent ?: sibling;
		if (slot_add(lc, orig, perf_copy_state(sibling),
			     orig->attr.enable_on_exec, false))
			ls->nr++;
	}
}

/*
 * A copy of the group at @first of @plc for a child whose context is not
 * yet published: added at once, like a copy made from the parent's events.
 */
static int copy_slots_at_fork(struct perf_lazy_copies *plc, int first,
			      struct task_struct *child,
			      struct perf_event_context *child_ctx)
{
	struct perf_lazy_slot *s = &plc->slot[first];
	struct perf_event *leader, *copy;
	int i;

	leader = perf_inherit_event(s->orig, READ_ONCE(s->state),
				    s->enable_on_exec, child, NULL, child_ctx, true);
	if (IS_ERR_OR_NULL(leader))
		return PTR_ERR_OR_ZERO(leader);
	for (i = 1; i < s->nr; i++) {
		struct perf_lazy_slot *m = &plc->slot[first + i];

		if (!m->orig)
			continue;
		copy = perf_inherit_event(m->orig, READ_ONCE(m->state),
					  m->enable_on_exec, child, leader,
					  child_ctx, true);
		if (IS_ERR(copy))
			return PTR_ERR(copy);
	}
	leader->group_generation = s->orig->group_generation;
	return 0;
}

/**
 * perf_lazy_inherit_slots - a fork passes the parent's waiting slots on
 * @parent_ctx: the forking task's context, mutex held
 * @clone_flags: the clone flags
 * @child: the new task
 * @child_ctx: its context, not yet published, with room for the slots
 *	       bound to other CPUs than @cpu; NULL when it needs none, and
 *	       then allocated here if a slot of @cpu is copied
 * @cpu: the CPU whose groups are copied at once
 *
 * Return: 0, or the error of a copy that failed.
 */
int perf_lazy_inherit_slots(struct perf_event_context *parent_ctx,
			    u64 clone_flags, struct task_struct *child,
			    struct perf_event_context **child_ctx, int cpu)
{
	struct perf_lazy_copies *plc = parent_ctx->lazy, *lc;
	struct perf_lazy_slot *s, *m, *ls;
	int i, j, err;

	for (i = 0; plc && i < plc->nr; i += s->nr ?: 1) {
		s = &plc->slot[i];
		if (!s->nr || !s->orig ||
		    !perf_event_inherits_to(s->orig, clone_flags))
			continue;
		if (s->orig->cpu == cpu) {
			if (!*child_ctx)
				*child_ctx = alloc_perf_context(child);
			if (!*child_ctx)
				return -ENOMEM;
			err = copy_slots_at_fork(plc, i, child, *child_ctx);
			if (err)
				return err;
			continue;
		}
		/* Counted by perf_lazy_count(): the room is there. */
		lc = (*child_ctx)->lazy;
		ls = &lc->slot[lc->nr];
		if (!slot_add(lc, s->orig, READ_ONCE(s->state),
			      s->enable_on_exec, true))
			continue;
		for (j = 1; j < s->nr; j++) {
			m = &plc->slot[i + j];
			if (m->orig && slot_add(lc, m->orig, READ_ONCE(m->state),
						m->enable_on_exec, false))
				ls->nr++;
		}
	}
	return 0;
}

/* The copy took the slot's place: it joins the original's children. */
static void slot_link(struct perf_lazy_slot *s, struct perf_event *copy,
		      int state)
{
	struct perf_event *orig = s->orig;

	mutex_lock(&orig->child_mutex);
	list_del_init(&s->entry);
	slot_clear(s);
	list_add_tail(&copy->child_entry, &orig->child_list);
	/* An ioctl on the original changed the slot while it was copied. */
	if (s->state != state) {
		if (s->state == PERF_EVENT_STATE_INACTIVE)
			_perf_event_enable(copy);
		else
			_perf_event_disable(copy);
	}
	mutex_unlock(&orig->child_mutex);
}

/* Copy the group at @first into the running task's context. */
static void take_group(struct perf_lazy_copies *lc, int first)
{
	struct perf_lazy_slot *s = &lc->slot[first], *m;
	struct perf_event_context *ctx = lc->ctx;
	struct perf_event *leader, **members;
	int *states, i, n = 0;

	members = kcalloc(s->nr, sizeof(*members) + sizeof(*states), GFP_KERNEL);
	if (!members)
		goto drop;
	states = (int *)(members + s->nr);
	states[0] = READ_ONCE(s->state);
	leader = perf_inherit_event(s->orig, states[0], s->enable_on_exec,
				    current, NULL, ctx, false);
	if (!leader) {
		/* Being released: the siblings are taken on their own. */
		kfree(members);
		slot_orphan_siblings(s);
		slot_unlink(s);
		return;
	}
	if (IS_ERR(leader))
		goto drop;
	members[n++] = leader;
	for (i = 1; i < s->nr; i++) {
		m = &lc->slot[first + i];
		if (!m->orig)
			continue;
		states[n] = READ_ONCE(m->state);
		members[n] = perf_inherit_event(m->orig, states[n],
						m->enable_on_exec, current,
						leader, ctx, false);
		if (IS_ERR_OR_NULL(members[n])) {
			slot_unlink(m);
			continue;
		}
		n++;
	}
	leader->group_generation = s->orig->group_generation;
	perf_install_group_current(ctx, members, n);
	for (i = 0, n = 0; i < s->nr; i++) {
		m = &lc->slot[first + i];
		if (m->orig) {
			slot_link(m, members[n], states[n]);
			n++;
		}
	}
	kfree(members);
	return;
drop:
	kfree(members);
	for (i = 0; i < s->nr; i++)
		slot_unlink(&lc->slot[first + i]);
}

/* Task work: copy the groups of the CPUs the task has arrived on. */
static void perf_lazy_work(struct callback_head *head)
{
	struct perf_lazy_copies *lc = container_of(head, struct perf_lazy_copies, work);
	struct perf_event_context *ctx = lc->ctx;
	struct perf_lazy_slot *s;
	int i, cpu;

	clear_bit(PERF_LAZY_QUEUED, &lc->flags);
	/* Arrivals from now on queue the work again. */
	smp_mb__after_atomic();
	if (current->flags & PF_EXITING)
		return;

	mutex_lock(&ctx->mutex);
	if (ctx->task != current) {
		mutex_unlock(&ctx->mutex);
		return;
	}
	for (i = 0; i < lc->nr; i++) {
		s = &lc->slot[i];
		if (s->nr && s->orig && test_bit(s->orig->cpu, lc->arrived))
			take_group(lc, i);
	}
	for_each_set_bit(cpu, lc->arrived, nr_cpu_ids)
		clear_bit(cpu, lc->waiting);
	mutex_unlock(&ctx->mutex);
}

/**
 * perf_lazy_arrive - the scheduler hook: the task now runs on this CPU
 * @ctx: the task's context, which has slots
 *
 * Called with interrupts off, the run queue locked.  The first arrival on
 * a CPU with slots queues the work that copies them.
 */
void perf_lazy_arrive(struct perf_event_context *ctx)
{
	struct perf_lazy_copies *lc = ctx->lazy;
	int cpu = smp_processor_id();

	if (!test_bit(cpu, lc->waiting) || test_and_set_bit(cpu, lc->arrived))
		return;
	if (test_and_set_bit(PERF_LAZY_QUEUED, &lc->flags))
		return;
	/* Stack depot may not allocate here: the run queue lock is held. */
	if (task_work_add(current, &lc->work, TWA_RESUME | TWAF_NO_ALLOC))
		clear_bit(PERF_LAZY_QUEUED, &lc->flags);
}

/**
 * perf_lazy_sb_walk - offer a side-band record to this CPU's slots
 * @ctx: a task's context, its lock held, interrupts off
 * @fn: what writes the record for one event
 * @data: the record
 *
 * A copy not made yet would have had the record: the COMM and MMAP of an
 * exec between the task's arrival on this CPU and its return to user
 * space, the SWITCH of that arrival.  Its original writes the record in
 * its place, into the buffer the copy's output goes to and with the id
 * the copy reports (its parent's).
 */
void perf_lazy_sb_walk(struct perf_event_context *ctx, perf_sb_output_t fn,
		       void *data)
{
	struct perf_lazy_copies *lc = ctx->lazy;
	int cpu = smp_processor_id(), i;
	struct perf_event *orig;

	lockdep_assert_held(&ctx->lock);
	if (!lc || !test_bit(cpu, lc->waiting))
		return;
	for (i = 0; i < lc->nr; i++) {
		orig = READ_ONCE(lc->slot[i].orig);
		if (!orig || orig->cpu != cpu || !perf_event_wants_sb(orig) ||
		    READ_ONCE(lc->slot[i].state) < PERF_EVENT_STATE_INACTIVE)
			continue;
		fn(orig, data);
	}
}

/**
 * perf_lazy_exec - the task exec'd: slots follow as their copies would
 * @ctx: the task's context, mutex held
 *
 * Slots of remove_on_exec events go (a leader's siblings then lead
 * groups of their own); those waiting for an exec become INACTIVE.
 */
void perf_lazy_exec(struct perf_event_context *ctx)
{
	struct perf_lazy_copies *lc = ctx->lazy;
	struct perf_lazy_slot *s;
	int i;

	for (i = 0; lc && i < lc->nr; i++) {
		s = &lc->slot[i];
		if (!s->orig)
			continue;
		if (s->orig->attr.remove_on_exec) {
			slot_orphan_siblings(s);
			slot_unlink(s);
			continue;
		}
		if (!s->enable_on_exec)
			continue;
		mutex_lock(&s->orig->child_mutex);
		s->enable_on_exec = 0;
		WRITE_ONCE(s->state, PERF_EVENT_STATE_INACTIVE);
		mutex_unlock(&s->orig->child_mutex);
	}
}

/**
 * perf_lazy_exit - the task is gone: its slots stop waiting
 * @ctx: the task's context, mutex held, its task tombstoned
 * @task: the task, which no longer points at @ctx
 *
 * The copy work may still be queued on @task: do_exit() ends the context
 * before it runs task work, and the work must not outlive the slots it
 * lives in.  Nothing queues it again, as the scheduler hook no longer
 * finds @ctx through @task.
 */
void perf_lazy_exit(struct perf_event_context *ctx, struct task_struct *task)
{
	struct perf_lazy_copies *lc = ctx->lazy;
	int i;

	if (!lc)
		return;
	if (test_bit(PERF_LAZY_QUEUED, &lc->flags) &&
	    task_work_cancel(task, &lc->work))
		clear_bit(PERF_LAZY_QUEUED, &lc->flags);
	for (i = 0; i < lc->nr; i++)
		slot_unlink(&lc->slot[i]);
}

/**
 * perf_lazy_set_state - an ioctl enabled or disabled an original
 * @orig: the original, child_mutex held
 * @state: PERF_EVENT_STATE_INACTIVE or _OFF
 */
void perf_lazy_set_state(struct perf_event *orig, int state)
{
	struct perf_lazy_slot *s;

	lockdep_assert_held(&orig->child_mutex);
	list_for_each_entry(s, &orig->lazy_list, entry)
		WRITE_ONCE(s->state, state);
}

/**
 * perf_lazy_release - an original is being released: no slot waits for it
 * @orig: the original, already DEAD, so no new slot names it
 */
void perf_lazy_release(struct perf_event *orig)
{
	struct perf_event_context *ctx;
	struct perf_lazy_slot *s;

	for (;;) {
		mutex_lock(&orig->child_mutex);
		s = list_first_entry_or_null(&orig->lazy_list,
					     struct perf_lazy_slot, entry);
		if (!s) {
			mutex_unlock(&orig->child_mutex);
			return;
		}
		/* A waiting slot's context has not exited: not zero. */
		ctx = s->ctx;
		get_ctx(ctx);
		mutex_unlock(&orig->child_mutex);

		mutex_lock(&ctx->mutex);
		mutex_lock(&orig->child_mutex);
		if (s->orig == orig) {
			list_del_init(&s->entry);
			slot_clear(s);
			slot_orphan_siblings(s);
		}
		mutex_unlock(&orig->child_mutex);
		mutex_unlock(&ctx->mutex);
		put_ctx(ctx);
	}
}

/**
 * perf_lazy_waiting - whether a child still waits to copy @orig
 * @orig: an inheritable original, child_mutex held
 *
 * Return: true while a slot names it.
 */
bool perf_lazy_waiting(struct perf_event *orig)
{
	lockdep_assert_held(&orig->child_mutex);
	return !list_empty(&orig->lazy_list);
}
