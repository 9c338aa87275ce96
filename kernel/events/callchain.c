// SPDX-License-Identifier: GPL-2.0
/*
 * Call chains: the limits user space can tune.  The stack walks are the
 * architecture's (perf_callchain_kernel(), perf_callchain_user()).
 *
 * Locking: callchain_mutex serialises limit changes against events that
 * use call chains (none change the limits while any exists).
 */
#include <linux/sysctl.h>

#include "internal.h"

int sysctl_perf_event_max_stack __read_mostly = PERF_MAX_STACK_DEPTH;
int sysctl_perf_event_max_contexts_per_stack __read_mostly = PERF_MAX_CONTEXTS_PER_STACK;

static DEFINE_MUTEX(callchain_mutex);
static int nr_callchain_events;

/**
 * get_callchain_buffers - an event that records call chains is created
 * @max_stack: the depth it asks for
 *
 * Return: 0, or -EOVERFLOW when @max_stack exceeds perf_event_max_stack.
 */
int get_callchain_buffers(int max_stack)
{
	int ret = 0;

	mutex_lock(&callchain_mutex);
	if (max_stack > sysctl_perf_event_max_stack)
		ret = -EOVERFLOW;
	else
		nr_callchain_events++;
	mutex_unlock(&callchain_mutex);
	return ret;
}

/**
 * put_callchain_buffers - an event that records call chains is gone
 */
void put_callchain_buffers(void)
{
	mutex_lock(&callchain_mutex);
	nr_callchain_events--;
	mutex_unlock(&callchain_mutex);
}

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
