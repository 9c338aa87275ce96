// SPDX-License-Identifier: GPL-2.0
/*
 * Call chains: the buffers samples gather them in, the walk across the
 * kernel and user parts, and the limits user space can tune.  The stack
 * walks themselves are the architecture's (perf_callchain_kernel(),
 * perf_callchain_user()).
 *
 * Locking: callchain_mutex serialises the buffers' allocation and the
 * limit changes against events that use call chains (limits cannot change
 * while any exists).  Samples find the buffers under RCU and claim their
 * CPU's slot of their interrupt level without locks.
 */
#include <linux/sysctl.h>
#include <linux/slab.h>
#include <linux/sched/task_stack.h>

#include "internal.h"

int sysctl_perf_event_max_stack __read_mostly = PERF_MAX_STACK_DEPTH;
int sysctl_perf_event_max_contexts_per_stack __read_mostly = PERF_MAX_CONTEXTS_PER_STACK;

static DEFINE_MUTEX(callchain_mutex);
static int nr_callchain_events;

/**
 * perf_event_max_stack_handler - perf_event_max_stack and
 *	perf_event_max_contexts_per_stack
 * @table: the sysctl entry
 * @write: whether this is a write
 * @buffer: data
 * @lenp: length
 * @ppos: position
 *
 * A new limit is refused with -EBUSY while events with call chains exist.
 *
 * Return: 0 or a negative errno.
 */
int perf_event_max_stack_handler(const struct ctl_table *table, int write,
				 void *buffer, size_t *lenp, loff_t *ppos)
{
	struct ctl_table tmp = *table;
	int *value = table->data;
	int new = *value, ret;

	tmp.data = &new;
	ret = proc_dointvec_minmax(&tmp, write, buffer, lenp, ppos);
	if (ret || !write)
		return ret;

	mutex_lock(&callchain_mutex);
	if (nr_callchain_events)
		ret = -EBUSY;
	else
		*value = new;
	mutex_unlock(&callchain_mutex);
	return ret;
}

/*
 * Call chain buffers: one entry per CPU and interrupt level, big enough
 * for perf_event_max_stack addresses plus the context markers, allocated
 * while events that sample call chains exist.  A sample claims its CPU's
 * slot of its level, so nesting levels never share one.
 */
struct callchain_bufs {
	struct rcu_head		rcu;
	size_t			entry_size;
	void			*cpu[];
};

static struct callchain_bufs __rcu *callchain_bufs;
static DEFINE_PER_CPU(u8 [PERF_NR_CONTEXTS], callchain_recursion);

static struct perf_callchain_entry empty_callchain = { .nr = 0 };

static void free_callchain_bufs(struct rcu_head *head)
{
	struct callchain_bufs *b = container_of(head, struct callchain_bufs, rcu);
	int cpu;

	for_each_possible_cpu(cpu)
		kfree(b->cpu[cpu]);
	kfree(b);
}

static int alloc_callchain_bufs(void)
{
	struct callchain_bufs *b;
	int cpu;

	b = kzalloc(struct_size(b, cpu, nr_cpu_ids), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	b->entry_size = sizeof(struct perf_callchain_entry) +
			sizeof(u64) * (sysctl_perf_event_max_stack +
				       sysctl_perf_event_max_contexts_per_stack);
	for_each_possible_cpu(cpu) {
		b->cpu[cpu] = kmalloc_node(b->entry_size * PERF_NR_CONTEXTS,
					   GFP_KERNEL, cpu_to_node(cpu));
		if (!b->cpu[cpu]) {
			free_callchain_bufs(&b->rcu);
			return -ENOMEM;
		}
	}
	rcu_assign_pointer(callchain_bufs, b);
	return 0;
}

/**
 * get_callchain_buffers - an event that records call chains is created
 * @max_stack: the depth it asks for
 *
 * Return: 0, -EOVERFLOW when @max_stack exceeds perf_event_max_stack, or
 * -ENOMEM.
 */
int get_callchain_buffers(int max_stack)
{
	int ret = 0;

	mutex_lock(&callchain_mutex);
	if (max_stack > sysctl_perf_event_max_stack) {
		ret = -EOVERFLOW;
	} else {
		if (!nr_callchain_events)
			ret = alloc_callchain_bufs();
		if (!ret)
			nr_callchain_events++;
	}
	mutex_unlock(&callchain_mutex);
	return ret;
}

/**
 * put_callchain_buffers - an event that records call chains is gone
 */
void put_callchain_buffers(void)
{
	struct callchain_bufs *b;

	mutex_lock(&callchain_mutex);
	if (!--nr_callchain_events) {
		b = rcu_replace_pointer(callchain_bufs, NULL,
					lockdep_is_held(&callchain_mutex));
		if (b)
			call_rcu(&b->rcu, free_callchain_bufs);
	}
	mutex_unlock(&callchain_mutex);
}

/**
 * get_callchain_entry - claim this CPU's entry for the current level
 * @rctx: returns the level, for put_callchain_entry()
 *
 * Called with interrupts off (or preemption off) under RCU.
 *
 * Return: the entry, or NULL (nested at this level, or no buffers).
 */
struct perf_callchain_entry *get_callchain_entry(int *rctx)
{
	u8 *busy = *this_cpu_ptr(&callchain_recursion);
	struct callchain_bufs *b;
	int level = interrupt_context_level();

	if (busy[level])
		return NULL;
	b = rcu_dereference(callchain_bufs);
	if (!b)
		return NULL;
	busy[level]++;
	barrier();
	*rctx = level;
	return b->cpu[smp_processor_id()] + level * b->entry_size;
}

/**
 * put_callchain_entry - release what get_callchain_entry() claimed
 * @rctx: its level
 */
void put_callchain_entry(int rctx)
{
	u8 *busy = *this_cpu_ptr(&callchain_recursion);

	barrier();
	busy[rctx]--;
}

/**
 * get_perf_callchain - walk the kernel and/or user stacks of a sample
 * @regs: the interrupted registers
 * @kernel: include the kernel part (when interrupted in the kernel)
 * @user: include the user part
 * @max_stack: most return addresses to store
 * @crosstask: the sample is about another task: no user part then
 * @add_mark: put PERF_CONTEXT_KERNEL/USER markers before each part
 *
 * Return: the chain (valid until the next sample at this level), or NULL.
 */
struct perf_callchain_entry *
get_perf_callchain(struct pt_regs *regs, bool kernel, bool user,
		   u32 max_stack, bool crosstask, bool add_mark)
{
	struct perf_callchain_entry_ctx cur;
	struct perf_callchain_entry *entry;
	int rctx;

	entry = get_callchain_entry(&rctx);
	if (!entry)
		return NULL;

	entry->nr = 0;
	cur.entry = entry;
	cur.max_stack = max_stack;
	cur.nr = 0;
	cur.contexts = 0;
	cur.contexts_maxed = false;

	if (kernel && !user_mode(regs)) {
		if (add_mark)
			perf_callchain_store_context(&cur, PERF_CONTEXT_KERNEL);
		perf_callchain_kernel(&cur, regs);
	}
	if (user && !crosstask) {
		/* From the kernel, the user part starts at the entry frame. */
		if (!user_mode(regs))
			regs = current->mm ? task_pt_regs(current) : NULL;
		if (regs) {
			if (add_mark)
				perf_callchain_store_context(&cur, PERF_CONTEXT_USER);
			perf_callchain_user(&cur, regs);
		}
	}
	put_callchain_entry(rctx);
	return entry;
}

/**
 * perf_callchain - the call chain of a sample of @event
 * @event: the event
 * @regs: the interrupted registers
 *
 * Return: the chain; an empty one when none could be taken.
 */
struct perf_callchain_entry *perf_callchain(struct perf_event *event,
					    struct pt_regs *regs)
{
	bool kernel = !event->attr.exclude_callchain_kernel;
	bool user = !event->attr.exclude_callchain_user;
	struct task_struct *task = READ_ONCE(event->ctx->task);
	bool crosstask = task && task != TASK_TOMBSTONE && task != current;
	struct perf_callchain_entry *cc;

	if (!kernel && !user)
		return &empty_callchain;
	cc = get_perf_callchain(regs, kernel, user,
				event->attr.sample_max_stack, crosstask, true);
	return cc ? cc : &empty_callchain;
}
