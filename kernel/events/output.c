// SPDX-License-Identifier: GPL-2.0
/*
 * Overflow handling and the hooks that produce records.
 *
 * Records (samples and side-band events such as MMAP or COMM) go to an
 * event's ring buffer.  Writing records is not implemented yet: the output
 * functions report that nothing was written and the side-band hooks
 * return at once.  Overflow still runs
 * the event's handler, which is what kernel users such as ptrace's
 * breakpoints rely on, and honours the limit set by PERF_EVENT_IOC_REFRESH.
 *
 * Context: overflow runs in the context of the event (NMI, interrupt or
 * the task), with interrupts off.
 */
#include "internal.h"

/**
 * perf_event_overflow - an event reached its sample period
 * @event: the event
 * @data: what the PMU gathered
 * @regs: the interrupted registers
 *
 * Return: 1 when the event must stop (its refresh limit ran out), else 0.
 */
int perf_event_overflow(struct perf_event *event,
			struct perf_sample_data *data, struct pt_regs *regs)
{
	perf_overflow_handler_t handler;
	int ret = 0;

	event->hw.interrupts++;
	if (atomic_read(&event->event_limit) &&
	    atomic_dec_and_test(&event->event_limit)) {
		ret = 1;
		event->pending_kill = POLL_HUP;
		perf_event_disable_inatomic(event);
	}
	handler = READ_ONCE(event->overflow_handler);
	handler(event, data, regs);
	return ret;
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
	return -ENOSPC;
}

/**
 * perf_event_mmap - a mapping was created
 * @vma: the mapping
 */
void perf_event_mmap(struct vm_area_struct *vma)
{
}

/**
 * perf_event_comm - a task changed its name
 * @task: the task
 * @exec: whether the change came with an exec
 */
void perf_event_comm(struct task_struct *task, bool exec)
{
}

/**
 * perf_event_fork - a task was created
 * @task: the new task
 */
void perf_event_fork(struct task_struct *task)
{
}

/**
 * perf_event_namespaces - a task's namespaces changed
 * @task: the task
 */
void perf_event_namespaces(struct task_struct *task)
{
}

/**
 * perf_event_text_poke - kernel text was changed
 * @addr: where
 * @old_bytes: the old text
 * @old_len: its length
 * @new_bytes: the new text
 * @new_len: its length
 */
void perf_event_text_poke(const void *addr, const void *old_bytes,
			  size_t old_len, const void *new_bytes, size_t new_len)
{
}

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
