// SPDX-License-Identifier: GPL-2.0
/*
 * The tracepoint PMU: events that count and sample the kernel's
 * static tracepoints, by the id tracefs shows for each.  The tracing code
 * (kernel/trace/trace_event_perf.c) owns the per-CPU lists of events of
 * each tracepoint: pmu::add puts an event on its CPU's list, pmu::del
 * takes it off, and a tracepoint hit walks the list (perf_tp_event()).
 *
 * Context: perf_tp_event() runs with preemption off, in any context, with
 * this CPU's software recursion slot held by the caller.  Lists are walked
 * under RCU; events are freed after a grace period.  A filter is set
 * (PERF_EVENT_IOC_SET_FILTER) on the event user space opened and read by
 * its inherited copies too: the parent outlives them, and its filter is
 * freed only with it.
 */
#include <linux/trace_events.h>
#include <linux/slab.h>

#include "internal.h"

static bool tp_event_match(struct perf_event *event, void *record,
			   struct pt_regs *regs)
{
	/* Filters are set on the event user space opened, not on its copies. */
	struct event_filter *filter = event->parent ? event->parent->filter :
						      event->filter;

	if (event->hw.state & PERF_HES_STOPPED)
		return false;
	if (event->attr.exclude_kernel && !user_mode(regs))
		return false;
	if (filter && !filter_match_preds(filter, record))
		return false;
	return true;
}

static void tp_count(struct perf_event *event, u64 count, void *record,
		     struct perf_raw_record *raw, struct pt_regs *regs)
{
	struct perf_sample_data data __uninitialized;

	if (!tp_event_match(event, record, regs))
		return;
	perf_sample_data_init(&data, 0, 0);
	perf_sample_save_raw_data(&data, event, raw);
	perf_swevent_count(event, count, &data, regs);
}

/*
 * Tracepoints about another task (the sched_stat ones) also count in
 * that task's own events of the same tracepoint, as upstream delivers
 * them: to the events bound to this CPU only, not to those of any CPU.
 */
static void tp_count_in_task(struct task_struct *task, u64 count, void *record,
			     struct perf_raw_record *raw, struct pt_regs *regs)
{
	struct trace_entry *entry = record;
	struct perf_event_context *ctx;
	struct perf_event *event;
	unsigned long flags;

	rcu_read_lock();
	ctx = READ_ONCE(task->perf_event_ctxp);
	if (!ctx)
		goto unlock;
	raw_spin_lock_irqsave(&ctx->lock, flags);
	list_for_each_entry(event, &ctx->event_list, event_entry) {
		if (event->attr.type != PERF_TYPE_TRACEPOINT ||
		    event->attr.config != entry->type)
			continue;
		if (event->cpu != smp_processor_id())
			continue;
		/* A synchronous signal cannot go to another task. */
		if (event->attr.sigtrap)
			continue;
		tp_count(event, count, record, raw, regs);
	}
	raw_spin_unlock_irqrestore(&ctx->lock, flags);
unlock:
	rcu_read_unlock();
}

/**
 * perf_tp_event - a tracepoint with perf events fired
 * @event_type: the tracepoint's id
 * @count: how many occurrences
 * @record: the trace record
 * @entry_size: its size
 * @regs: the registers at the tracepoint
 * @head: this CPU's list of the tracepoint's events
 * @rctx: the recursion slot the caller holds; released here
 * @task: another task to deliver to, or NULL
 */
void perf_tp_event(u16 event_type, u64 count, void *record, int entry_size, struct pt_regs *regs,
		   struct hlist_head *head, int rctx, struct task_struct *task)
{
	struct perf_raw_record raw = {
		.frag = { .size = entry_size, .data = record },
	};
	struct perf_event *event;

	perf_trace_buf_update(record, event_type);

	hlist_for_each_entry_rcu(event, head, hlist_entry)
		tp_count(event, count, record, &raw, regs);

	if (task && task != current)
		tp_count_in_task(task, count, record, &raw, regs);

	perf_swevent_put_recursion_context(rctx);
}
EXPORT_SYMBOL_GPL(perf_tp_event);

/**
 * perf_trace_run_bpf_submit - a tracepoint's perf handler hands its record on
 * @raw_data: the record
 * @size: its size
 * @rctx: the recursion slot held
 * @call: the tracepoint
 * @count: occurrences
 * @regs: registers
 * @head: this CPU's list of the tracepoint's events
 * @task: another task to deliver to, or NULL
 *
 * The tracepoint's BPF programs see the record first, and may drop it:
 * they run at every hit, whether or not an event is there to count it.
 * Their context is the record with its first word (the common fields,
 * which perf_tp_event() writes afresh) replaced by @regs.
 */
void perf_trace_run_bpf_submit(void *raw_data, int size, int rctx, struct trace_event_call *call,
			       u64 count, struct pt_regs *regs, struct hlist_head *head,
			       struct task_struct *task)
{
#ifdef CONFIG_BPF_EVENTS
	if (bpf_prog_array_valid(call)) {
		*(struct pt_regs **)raw_data = regs;
		if (!trace_call_bpf(call, raw_data) || hlist_empty(head)) {
			perf_swevent_put_recursion_context(rctx);
			return;
		}
	}
#endif
	perf_tp_event(call->event.type, count, raw_data, size, regs, head, rctx,
		      task);
}
EXPORT_SYMBOL_GPL(perf_trace_run_bpf_submit);

static void tp_destroy(struct perf_event *event)
{
	perf_trace_destroy(event);
}

static int tp_event_init(struct perf_event *event)
{
	int err;

	if (event->attr.type != PERF_TYPE_TRACEPOINT)
		return -ENOENT;
	/* The function tracepoint needs the ftrace_ops at the event's end. */
	if (WARN_ON_ONCE(!(event->attach_state & PERF_ATTACH_WHOLE)))
		return -EINVAL;
	/* Tracepoints have no branches to record. */
	err = has_branch_stack(event) ? -EOPNOTSUPP : perf_trace_init(event);
	if (err)
		return err;
	event->destroy = tp_destroy;
	return 0;
}

/**
 * perf_tp_start - pmu::start of the tracepoint and probe PMUs
 * @event: the event
 * @flags: PERF_EF_* flags; nothing to reload
 */
void perf_tp_start(struct perf_event *event, int flags)
{
	event->hw.state = 0;
}

/**
 * perf_tp_stop - pmu::stop of the tracepoint and probe PMUs
 * @event: the event
 * @flags: PERF_EF_* flags; the count is always up to date
 */
void perf_tp_stop(struct perf_event *event, int flags)
{
	event->hw.state = PERF_HES_STOPPED;
}

/**
 * perf_tp_read - pmu::read of the tracepoint and probe PMUs
 * @event: the event; its count is added at each hit, nothing to read
 */
void perf_tp_read(struct perf_event *event)
{
}

static struct pmu perf_tracepoint = {
	.task_ctx_nr	= perf_sw_context,
	.event_init	= tp_event_init,
	.add		= perf_trace_add,
	.del		= perf_trace_del,
	.start		= perf_tp_start,
	.stop		= perf_tp_stop,
	.read		= perf_tp_read,
};

/**
 * perf_tp_set_filter - PERF_EVENT_IOC_SET_FILTER on a trace event
 * @event: the event: a tracepoint, or a kprobe or uprobe PMU event
 * @filter: the filter expression
 *
 * Return: 0 or a negative errno; -EINVAL for any other event.
 */
int perf_tp_set_filter(struct perf_event *event, char *filter)
{
	if (event->attr.type != PERF_TYPE_TRACEPOINT && !perf_probe_event(event))
		return -EINVAL;
	return ftrace_profile_set_filter(event, event->attr.config, filter);
}

/**
 * perf_tp_free_filter - drop a tracepoint event's filter
 * @event: the event being freed
 */
void perf_tp_free_filter(struct perf_event *event)
{
	if (event->filter)
		ftrace_profile_free_filter(event);
}

/**
 * perf_tp_register - register the tracepoint PMU; boot only
 */
void __init perf_tp_register(void)
{
	perf_pmu_register(&perf_tracepoint, "tracepoint", PERF_TYPE_TRACEPOINT);
}
