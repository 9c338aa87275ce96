// SPDX-License-Identifier: GPL-2.0
/*
 * Counter values: bringing an event's count and times up to date, adding
 * in inherited children, and the read(2) layouts.
 *
 * Locking: an ACTIVE event is read on its CPU by IPI (or, without one,
 * on a CPU that shares its counter), under its context's lock; any other
 * event under its context's lock from anywhere.  The child list is walked
 * under event->child_mutex, which keeps the children from being freed.
 * read(2) gathers the values holding the event's ctx->mutex, so the
 * group's membership (and so the layout size) cannot change under it,
 * and copies them out after dropping it.
 */
#include <linux/slab.h>
#include <linux/topology.h>
#include <linux/uaccess.h>

#include "internal.h"

/**
 * perf_event_count - an event's own count plus what exited children left
 * @event: the event
 *
 * Return: the sum; live children are not included.
 */
u64 perf_event_count(struct perf_event *event)
{
	return local64_read(&event->count) + atomic64_read(&event->child_count);
}

/**
 * perf_event_times_now - an event's enabled and running times, as of @now
 * @event: the event
 * @now: perf_clock() now
 * @enabled: returns time_enabled
 * @running: returns time_running
 *
 * Lock-free: for sample records and the control page, which are written
 * where the context lock cannot be taken.  The totals are extended by the
 * context time since they were last settled, per the event's (group's)
 * state.
 */
void perf_event_times_now(struct perf_event *event, u64 now, u64 *enabled,
			  u64 *running)
{
	struct perf_event_context *ctx = event->ctx;
	struct perf_event *leader = event->group_leader;
	enum perf_event_state state = READ_ONCE(event->state);
	u64 ctx_now = READ_ONCE(ctx->time);
	u64 delta;

	if (READ_ONCE(ctx->is_active) & EVENT_TIME)
		ctx_now += now - READ_ONCE(ctx->timestamp);
	if (perf_event_has_cgroup(event))
		ctx_now = perf_cgroup_event_time_now(event, now);
	if (leader != event && READ_ONCE(leader->state) <= PERF_EVENT_STATE_OFF)
		state = leader->state;
	delta = ctx_now - event->tstamp;
	*enabled = event->total_time_enabled;
	*running = event->total_time_running;
	if (state >= PERF_EVENT_STATE_INACTIVE)
		*enabled += delta;
	if (state == PERF_EVENT_STATE_ACTIVE)
		*running += delta;
}

struct read_request {
	struct perf_event	*event;
	bool			group;
};

static void update_group_times(struct perf_event *leader)
{
	struct perf_event *sibling;

	perf_event_update_time(leader);
	for_each_sibling_event(sibling, leader)
		perf_event_update_time(sibling);
}

/*
 * Bring the counts of a group active on this CPU up to date, in one read
 * transaction of its PMU; its context locked, interrupts off.
 */
static void read_group_counts(struct perf_event *leader)
{
	struct pmu *pmu = leader->pmu_ctx->pmu;
	struct perf_event *sibling;

	pmu->start_txn(pmu, PERF_PMU_TXN_READ);
	leader->pmu->read(leader);
	for_each_sibling_event(sibling, leader) {
		if (sibling->state == PERF_EVENT_STATE_ACTIVE)
			sibling->pmu->read(sibling);
	}
	pmu->commit_txn(pmu);
}

/*
 * Whether this CPU may read a counter that @event's CPU holds: the
 * counters of a scoped PMU (PERF_EV_CAP_READ_SCOPE) and of a package-wide
 * one (PERF_EV_CAP_READ_ACTIVE_PKG) are the same from every CPU sharing
 * them, so a read there needs no IPI.  Preemption off.
 */
static bool shares_counter(struct perf_event *event, int oncpu)
{
	int here = smp_processor_id();
	const struct cpumask *shared;

	if (oncpu == here)
		return true;
	if (event->group_caps & PERF_EV_CAP_READ_SCOPE) {
		shared = perf_scope_cpus(event->pmu->scope, oncpu);
		if (shared && cpumask_test_cpu(here, shared))
			return true;
	}
	return (event->group_caps & PERF_EV_CAP_READ_ACTIVE_PKG) &&
	       topology_physical_package_id(oncpu) ==
	       topology_physical_package_id(here);
}

/* On the event's CPU or one sharing its counter, interrupts off. */
static void __perf_event_read(void *info)
{
	struct read_request *req = info;
	struct perf_event *event = req->event;
	struct perf_event_context *ctx = event->ctx;
	struct perf_cpu_context *cpuctx = this_cpu_ptr(&perf_cpu_context);

	/* The task may have been switched out since the IPI was sent. */
	if (ctx->task && cpuctx->task_ctx != ctx)
		return;

	raw_spin_lock(&ctx->lock);
	update_context_time(ctx);
	if (req->group)
		update_group_times(event);
	else
		perf_event_update_time(event);

	if (event->state != PERF_EVENT_STATE_ACTIVE ||
	    !shares_counter(event, event->oncpu))
		goto unlock;

	if (!req->group) {
		event->pmu->read(event);
		goto unlock;
	}

	read_group_counts(event);
unlock:
	raw_spin_unlock(&ctx->lock);
}

/**
 * perf_event_read - bring an event's count and times up to date
 * @event: the event
 * @group: also its siblings (@event is a leader)
 */
void perf_event_read(struct perf_event *event, bool group)
{
	struct read_request req = { .event = event, .group = group };
	enum perf_event_state state = READ_ONCE(event->state);
	struct perf_event_context *ctx = event->ctx;
	unsigned long flags;

	if (state == PERF_EVENT_STATE_ACTIVE) {
		int cpu = READ_ONCE(event->oncpu), err = -ENXIO;

		if ((unsigned int)cpu < nr_cpu_ids) {
			preempt_disable();
			if (shares_counter(event, cpu))
				cpu = smp_processor_id();
			err = smp_call_function_single(cpu, __perf_event_read, &req, 1);
			preempt_enable();
		}
		if (!err)
			return;
	}

	if (!ctx)
		return;
	raw_spin_lock_irqsave(&ctx->lock, flags);
	/* Only a context that is not running here can be updated remotely. */
	if (event->state != PERF_EVENT_STATE_ACTIVE) {
		update_context_time(ctx);
		if (group)
			update_group_times(event);
		else
			perf_event_update_time(event);
	}
	raw_spin_unlock_irqrestore(&ctx->lock, flags);
}

/* Adds @event's value and times to the totals; child_mutex held. */
static u64 __perf_event_read_value(struct perf_event *event,
				   u64 *enabled, u64 *running)
{
	struct perf_event *child;
	u64 total;

	perf_event_read(event, false);
	total = perf_event_count(event);
	*enabled += event->total_time_enabled;
	*running += event->total_time_running;
	if (!perf_event_can_have_copies(event))
		return total;
	*enabled += atomic64_read(&event->child_total_time_enabled);
	*running += atomic64_read(&event->child_total_time_running);

	list_for_each_entry(child, &event->child_list, child_entry) {
		perf_event_read(child, false);
		total += perf_event_count(child);
		*enabled += child->total_time_enabled;
		*running += child->total_time_running;
	}
	return total;
}

/**
 * perf_event_read_value - the count of an event and its children
 * @event: the event
 * @enabled: returns the total enabled time
 * @running: returns the total running time
 *
 * Return: the count.
 */
u64 perf_event_read_value(struct perf_event *event, u64 *enabled, u64 *running)
{
	u64 count;

	*enabled = 0;
	*running = 0;
	if (!perf_event_can_have_copies(event))
		return __perf_event_read_value(event, enabled, running);
	mutex_lock(&event->child_mutex);
	count = __perf_event_read_value(event, enabled, running);
	mutex_unlock(&event->child_mutex);
	return count;
}
EXPORT_SYMBOL_GPL(perf_event_read_value);

/**
 * perf_event_read_local - read an event of this CPU or this task, atomically
 * @event: the event
 * @value: returns the count
 * @enabled: returns the enabled time, if not NULL
 * @running: returns the running time, if not NULL
 *
 * Any context, NMI included (BPF programs read counters from their
 * overflow handlers): no lock is taken.  With interrupts off nothing can
 * schedule the event in or out under us; an NMI may, at worst, read a
 * count that its own PMU interrupt is about to fold.
 *
 * Return: 0; -EOPNOTSUPP for an inherited event (its copies cannot be
 * summed here); -EINVAL for one of another task or another CPU; -EBUSY
 * for a pinned event not running on this CPU.
 */
int perf_event_read_local(struct perf_event *event, u64 *value,
			  u64 *enabled, u64 *running)
{
	int cpu = smp_processor_id(), oncpu, ret = 0;
	unsigned long flags;
	u64 en, run;

	local_irq_save(flags);
	oncpu = READ_ONCE(event->oncpu);
	if (event->attr.inherit) {
		ret = -EOPNOTSUPP;
	} else if (event->attach_state & PERF_ATTACH_TASK) {
		if (event->hw.target != current)
			ret = -EINVAL;
	} else if (event->cpu != cpu) {
		ret = -EINVAL;
	}
	if (!ret && event->attr.pinned && oncpu != cpu)
		ret = -EBUSY;
	if (ret)
		goto out;
	/* oncpu is this CPU only while the event is active here. */
	if (oncpu == cpu)
		event->pmu->read(event);
	*value = local64_read(&event->count);
	if (enabled || running) {
		perf_event_times_now(event, perf_clock(), &en, &run);
		if (enabled)
			*enabled = en;
		if (running)
			*running = run;
	}
out:
	local_irq_restore(flags);
	return ret;
}

/* The layout of a read of one event; returns the number of values. */
static __always_inline int one_values(struct perf_event *event,
				      u64 read_format, u64 *values,
				      u64 count, u64 enabled, u64 running)
{
	int n = 0;

	values[n++] = count;
	if (read_format & PERF_FORMAT_TOTAL_TIME_ENABLED)
		values[n++] = enabled;
	if (read_format & PERF_FORMAT_TOTAL_TIME_RUNNING)
		values[n++] = running;
	if (read_format & PERF_FORMAT_ID)
		values[n++] = perf_event_primary_id(event);
	if (read_format & PERF_FORMAT_LOST)
		values[n++] = perf_event_lost_samples(event);
	return n;
}

static ssize_t perf_read_one(struct perf_event *event, u64 read_format,
			     u64 *values)
{
	u64 count, enabled, running;
	int n;

	count = perf_event_read_value(event, &enabled, &running);
	n = one_values(event, read_format, values, count, enabled, running);
	return n * sizeof(u64);
}

/* Stores @x in *@v, or adds it to what is there. */
static __always_inline void put_value(u64 *v, u64 x, bool add)
{
	*v = add ? *v + x : x;
}

/*
 * One group's values into @values, @enabled and @running being the
 * leader's own times: stored, or with @add added to what is there (the
 * groups of inherited copies); the group's context locked.
 */
static __always_inline void group_values(struct perf_event *leader,
					 u64 read_format, u64 *values,
					 u64 enabled, u64 running, bool add)
{
	struct perf_event *sibling;
	int n = 1;

	values[0] = 1 + leader->nr_siblings;
	if (read_format & PERF_FORMAT_TOTAL_TIME_ENABLED)
		put_value(&values[n++], enabled +
			  perf_child_time_enabled(leader), add);
	if (read_format & PERF_FORMAT_TOTAL_TIME_RUNNING)
		put_value(&values[n++], running +
			  perf_child_time_running(leader), add);

	put_value(&values[n++], perf_event_count(leader), add);
	if (read_format & PERF_FORMAT_ID)
		values[n++] = perf_event_primary_id(leader);
	if (read_format & PERF_FORMAT_LOST)
		put_value(&values[n++], perf_event_lost_samples(leader), add);

	for_each_sibling_event(sibling, leader) {
		put_value(&values[n++], perf_event_count(sibling), add);
		if (read_format & PERF_FORMAT_ID)
			values[n++] = perf_event_primary_id(sibling);
		if (read_format & PERF_FORMAT_LOST)
			put_value(&values[n++],
				  perf_event_lost_samples(sibling), add);
	}
}

/* One group (the parent's, or an inherited copy) into @values. */
static void perf_read_group_add(struct perf_event *leader, u64 read_format,
				u64 *values, bool add)
{
	struct perf_event_context *ctx = leader->ctx;
	unsigned long flags;

	perf_event_read(leader, true);

	raw_spin_lock_irqsave(&ctx->lock, flags);
	group_values(leader, read_format, values, leader->total_time_enabled,
		     leader->total_time_running, add);
	raw_spin_unlock_irqrestore(&ctx->lock, flags);
}

static ssize_t perf_read_group(struct perf_event *event, u64 read_format,
			       u64 *values)
{
	struct perf_event *leader = event->group_leader, *child;
	ssize_t ret = event->read_size;

	memset(values, 0, ret);
	if (!perf_event_can_have_copies(leader)) {
		perf_read_group_add(leader, read_format, values, false);
		return ret;
	}
	mutex_lock(&leader->child_mutex);
	list_for_each_entry(child, &leader->child_list, child_entry) {
		/*
		 * The group changed after the copy was made: summing groups
		 * of different shapes means nothing.
		 */
		if (child->group_generation != leader->group_generation ||
		    child->nr_siblings != leader->nr_siblings) {
			ret = -ECHILD;
			goto unlock;
		}
	}
	perf_read_group_add(leader, read_format, values, false);
	list_for_each_entry(child, &leader->child_list, child_entry)
		perf_read_group_add(child, read_format, values, true);
unlock:
	mutex_unlock(&leader->child_mutex);
	return ret;
}

/*
 * Reads on the event's own CPU.  An event (or group) counting on this CPU
 * right now, with no inherited copies to add in, cannot leave this CPU
 * while interrupts are off there (it leaves only by a context switch or
 * by a cross-CPU call, both of which run here), so its context's lock is
 * all a read takes: no context mutex, child mutex or cross-CPU call.  The
 * times are computed as of now rather than settled, which saves the
 * context's clock update; the counts are read after them, as the slow
 * path does.  Each returns -EAGAIN when it cannot answer.
 *
 * child_list is looked at without child_mutex: a copy being added by a
 * fork at that moment has counted nothing yet, so leaving it out reads
 * what a read just before the fork would; a copy that has gone folded its
 * count and times into the event before it left the list (see
 * has_copies()).
 */

/*
 * Whether @event has inherited copies.  The smp_rmb() pairs with the
 * smp_mb__after_atomic() in unlink_from_parent(): once a copy is seen
 * gone, what it folded into @event is seen too.
 */
static __always_inline bool has_copies(struct perf_event *event)
{
	if (!perf_event_can_have_copies(event))
		return false;
	if (!list_empty(&event->child_list))
		return true;
	smp_rmb();	/* the list, then the sums folded in */
	return false;
}

/* Values a group read on the event's own CPU gathers on the stack. */
#define READ_HERE_MAX	32

#define READ_TIMES	(PERF_FORMAT_TOTAL_TIME_ENABLED | \
			 PERF_FORMAT_TOTAL_TIME_RUNNING)

/*
 * With interrupts off, the context of @event locked when @event counts on
 * this CPU (and NULL, interrupts back as they were, when it does not).
 */
static __always_inline struct perf_event_context *
lock_if_counting_here(struct perf_event *event, unsigned long *flags)
{
	local_irq_save(*flags);
	if (READ_ONCE(event->state) != PERF_EVENT_STATE_ACTIVE ||
	    READ_ONCE(event->oncpu) != smp_processor_id()) {
		local_irq_restore(*flags);
		return NULL;
	}
	raw_spin_lock(&event->ctx->lock);
	return event->ctx;
}

static ssize_t read_one_here(struct perf_event *event, u64 read_format,
			     char __user *buf, size_t count)
{
	u64 values[5] __uninitialized;
	u64 enabled = 0, running = 0;
	struct perf_event_context *ctx;
	unsigned long flags;
	int n;

	/* A single event's read size never changes. */
	if (count < event->read_size || has_copies(event))
		return -EAGAIN;

	ctx = lock_if_counting_here(event, &flags);
	if (!ctx)
		return -EAGAIN;
	if (read_format & READ_TIMES) {
		perf_event_times_now(event, perf_clock(), &enabled, &running);
		if (perf_event_can_have_copies(event)) {
			enabled += atomic64_read(&event->child_total_time_enabled);
			running += atomic64_read(&event->child_total_time_running);
		}
	}
	event->pmu->read(event);
	n = one_values(event, read_format, values, perf_event_count(event),
		       enabled, running);
	raw_spin_unlock_irqrestore(&ctx->lock, flags);

	if (n == 1)
		return put_user(values[0], (u64 __user *)buf) ? -EFAULT : 8;
	if (copy_to_user(buf, values, n * sizeof(u64)))
		return -EFAULT;
	return n * sizeof(u64);
}

/*
 * The leader is looked at only under the context's lock: members join and
 * leave under it, and a leader that is released leaves its group (making
 * each sibling a leader of its own) under it before it can be freed.
 * @event holds a reference to its context.
 */
static noinline ssize_t read_group_here(struct perf_event *event,
					u64 read_format, char __user *buf,
					size_t count)
{
	struct perf_event_context *ctx = event->ctx;
	u64 values[READ_HERE_MAX] __uninitialized;
	u64 enabled = 0, running = 0;
	struct perf_event *leader;
	unsigned long flags;
	size_t size;

	raw_spin_lock_irqsave(&ctx->lock, flags);
	leader = event->group_leader;
	size = event->read_size;
	/* A CPU event may have moved (perf_pmu_migrate_context()) meanwhile. */
	if (READ_ONCE(event->ctx) != ctx ||
	    READ_ONCE(leader->state) != PERF_EVENT_STATE_ACTIVE ||
	    READ_ONCE(leader->oncpu) != smp_processor_id() ||
	    has_copies(leader) || size > count || size > sizeof(values)) {
		raw_spin_unlock_irqrestore(&ctx->lock, flags);
		return -EAGAIN;
	}
	if (read_format & READ_TIMES)
		perf_event_times_now(leader, perf_clock(), &enabled, &running);
	read_group_counts(leader);
	group_values(leader, read_format, values, enabled, running, false);
	raw_spin_unlock_irqrestore(&ctx->lock, flags);

	if (copy_to_user(buf, values, size))
		return -EFAULT;
	return size;
}

/**
 * perf_read_event_unlocked - read(2) of an event counting on this CPU
 * @event: the event
 * @buf: user buffer
 * @count: its size
 *
 * Return: bytes copied or -EFAULT; -EAGAIN when the event is not counting
 * on this CPU, has inherited copies, or @count is too small: the caller
 * then takes the context's mutex and calls perf_read_event().
 */
ssize_t perf_read_event_unlocked(struct perf_event *event, char __user *buf,
				 size_t count)
{
	u64 read_format = event->attr.read_format;

	if (read_format & PERF_FORMAT_GROUP)
		return read_group_here(event, read_format, buf, count);
	return read_one_here(event, read_format, buf, count);
}

/**
 * perf_read_event - what read(2) of an event returns, in read_format's layout
 * @event: the event; its ctx->mutex held, so its read_size is stable
 * @values: where the values go: event->read_size bytes
 * @count: the size of the caller's buffer
 *
 * The caller copies the values to user space once it has dropped the
 * mutex: a page fault on the user's buffer (which may wait on anything,
 * userfaultfd included) is not taken with the context locked.
 *
 * Return: bytes stored, 0 for a pinned group in the ERROR state, -ENOSPC
 * for a buffer too small, or -ECHILD.
 */
ssize_t perf_read_event(struct perf_event *event, u64 *values, size_t count)
{
	u64 read_format = event->attr.read_format;

	if (event->state == PERF_EVENT_STATE_ERROR)
		return 0;
	if (count < event->read_size)
		return -ENOSPC;
	if (read_format & PERF_FORMAT_GROUP)
		return perf_read_group(event, read_format, values);
	return perf_read_one(event, read_format, values);
}

/**
 * perf_event_sync_child - fold an exiting child's count into its parent
 * @child: the inherited event, already out of its context
 */
void perf_event_sync_child(struct perf_event *child)
{
	struct perf_event *parent = child->parent;

	atomic64_add(perf_event_count(child), &parent->child_count);
	atomic64_add(child->total_time_enabled, &parent->child_total_time_enabled);
	atomic64_add(child->total_time_running, &parent->child_total_time_running);
	/* A copy that can lose records is a sampler's: its parent has the state. */
	if (child->ov)
		atomic64_add(atomic64_read(&child->ov->lost_samples),
			     &parent->ov->lost_samples);
}
