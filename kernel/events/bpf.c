// SPDX-License-Identifier: GPL-2.0
/*
 * BPF programs on perf events.
 *
 * Two kinds of event take a program, each in its own way:
 *
 *  - Trace events (tracepoints, syscall tracepoints, kprobe and uprobe
 *    PMU events): the program belongs to the trace event, not to the perf
 *    event.  bpf_trace.c keeps it in the trace event's prog_array, which
 *    the tracing code runs at each hit whether or not a perf event counts
 *    there (perf_trace_run_bpf_submit() for tracepoints, the probe
 *    handlers for the others).  event->prog only records which program
 *    this event put there, so that freeing the event takes it out.
 *
 *  - Every other sampling event: the program is the event's own, of type
 *    BPF_PROG_TYPE_PERF_EVENT, and runs at each overflow with the sample
 *    prepared (perf_bpf_overflow()).  It returns 0 to drop the sample: no
 *    record, no signal, no wakeup, as if the period had not ended.
 *    Inherited copies run the same program (each holds a reference).
 *
 * Locking and lifetime: a program is attached with the event's context
 * mutex held (the SET_BPF ioctl, or a bpf_link through
 * perf_event_set_bpf_prog()), and at most one per event (-EEXIST).  The
 * event holds one program reference until it is freed, or until its
 * bpf_link is released (perf_event_free_bpf_prog()), whichever is first.
 * The overflow path reads event->prog once under RCU; bpf_prog_put()
 * frees a program only after a grace period, so a run in progress
 * finishes on a live program.  bpf_prog_active stops a program from
 * running inside another on the same CPU (a kprobe program whose helper
 * overflows a perf event, say).
 */
#include <linux/bpf.h>
#include <linux/filter.h>
#include <linux/static_call.h>
#include <linux/syscalls.h>
#include <linux/trace_events.h>

#include "internal.h"

/*
 * Copies the current CPU's last branch records for bpf_get_branch_snapshot().
 * A PMU with a branch stack points this at its own snapshot function;
 * without one it returns 0 entries.
 */
DEFINE_STATIC_CALL_RET0(perf_snapshot_branch_stack, perf_snapshot_branch_stack_t);

/* Whether @event's program is kept by its trace event (see above). */
static bool perf_event_traces(struct perf_event *event)
{
	return event->attr.type == PERF_TYPE_TRACEPOINT || perf_probe_event(event);
}

static int set_overflow_prog(struct perf_event *event, struct bpf_prog *prog,
			     u64 cookie)
{
	/* Breakpoints of ptrace and kernel counters have their own handler. */
	if (!is_default_overflow_handler(event))
		return -EINVAL;
	if (event->prog)
		return -EEXIST;
	if (prog->type != BPF_PROG_TYPE_PERF_EVENT)
		return -EINVAL;
	/*
	 * A precise sample's registers may not be the CPU's: a program that
	 * walks the stack must then find the whole callchain in the sample
	 * (bpf_get_stack() uses it), or it is refused.
	 */
	if (event->attr.precise_ip && prog->call_get_stack &&
	    (!(event->attr.sample_type & PERF_SAMPLE_CALLCHAIN) ||
	     event->attr.exclude_callchain_kernel ||
	     event->attr.exclude_callchain_user))
		return -EPROTO;
	event->bpf_cookie = cookie;
	WRITE_ONCE(event->prog, prog);
	return 0;
}

#ifdef CONFIG_BPF_EVENTS
static int set_trace_prog(struct perf_event *event, struct bpf_prog *prog,
			  u64 cookie)
{
	struct trace_event_call *call = event->tp_event;
	bool kprobe = call->flags & TRACE_EVENT_FL_KPROBE;
	bool uprobe = call->flags & TRACE_EVENT_FL_UPROBE;
	bool tracepoint = (call->flags & TRACE_EVENT_FL_TRACEPOINT) ||
			  is_syscall_trace_event(call);

	if (kprobe || uprobe) {
		if (prog->type != BPF_PROG_TYPE_KPROBE)
			return -EINVAL;
		/* Only a uprobe's handler may sleep. */
		if (prog->sleepable && !uprobe)
			return -EINVAL;
		/* Changing the return value is for kernel functions only. */
		if (prog->kprobe_override && !kprobe)
			return -EINVAL;
	} else if (tracepoint) {
		if (prog->type != BPF_PROG_TYPE_TRACEPOINT)
			return -EINVAL;
		/* The program may read no further than the record goes. */
		if (prog->aux->max_ctx_offset > trace_event_get_offsets(call))
			return -EACCES;
	} else {
		/* The function tracer's event and the like take no program. */
		return -EINVAL;
	}
	return perf_event_attach_bpf_prog(event, prog, cookie);
}
#else
static int set_trace_prog(struct perf_event *event, struct bpf_prog *prog,
			  u64 cookie)
{
	/* Trace events run programs only with CONFIG_BPF_EVENTS. */
	return -EOPNOTSUPP;
}
#endif

/**
 * perf_event_bpf_attach - attach a program to an event; context locked
 * @event: the event
 * @prog: the program; on success the event owns the caller's reference
 * @cookie: what bpf_get_attach_cookie() returns to the program
 *
 * Return: 0; -EEXIST if the event has a program already; -EINVAL for a
 * program of the wrong type, or an event that cannot run one; -EACCES
 * for a tracepoint program reading past the record; -EPROTO for a
 * stack-walking program on a precise event without a full callchain.
 */
int perf_event_bpf_attach(struct perf_event *event, struct bpf_prog *prog,
			  u64 cookie)
{
	lockdep_assert_held(&event->ctx->mutex);
	if (perf_event_traces(event))
		return set_trace_prog(event, prog, cookie);
	return set_overflow_prog(event, prog, cookie);
}

/**
 * perf_event_set_bpf_prog - attach a program to an event (bpf_link)
 * @event: the event
 * @prog: the program; on success the event owns the caller's reference
 * @bpf_cookie: what bpf_get_attach_cookie() returns to the program
 *
 * Return: as perf_event_bpf_attach().
 */
int perf_event_set_bpf_prog(struct perf_event *event, struct bpf_prog *prog,
			    u64 bpf_cookie)
{
	struct perf_event_context *ctx = perf_event_ctx_lock(event);
	int ret = perf_event_bpf_attach(event, prog, bpf_cookie);

	perf_event_ctx_unlock(event, ctx);
	return ret;
}

/**
 * perf_event_free_bpf_prog - detach an event's program and drop it
 * @event: the event; its program's link is going away, or the event is
 *
 * A trace event's program leaves the trace event's array (bpf_trace.c
 * waits for the runs in progress).  An overflow program is cleared and
 * put; RCU keeps it alive for a run that already loaded it.
 */
void perf_event_free_bpf_prog(struct perf_event *event)
{
	struct bpf_prog *prog;

	if (perf_event_traces(event)) {
		perf_event_detach_bpf_prog(event);
		return;
	}
	prog = xchg(&event->prog, NULL);
	if (prog)
		bpf_prog_put(prog);
}

/**
 * perf_bpf_inherit - an inherited copy runs its parent's overflow program
 * @child: the new copy, not yet visible
 * @parent: the event it copies
 */
void perf_bpf_inherit(struct perf_event *child, struct perf_event *parent)
{
	struct bpf_prog *prog = READ_ONCE(parent->prog);

	/* A trace event's program runs once per hit, for all copies. */
	if (!prog || perf_event_traces(parent))
		return;
	bpf_prog_inc(prog);
	child->bpf_cookie = parent->bpf_cookie;
	child->prog = prog;
}

/**
 * perf_bpf_overflow - run an event's overflow program
 * @event: the event, which has or had a program
 * @data: the sample; prepared in full before the program sees it
 * @regs: the interrupted registers
 *
 * Return: false when the program dropped the sample; true when it kept
 * it, or there was no program to run here.
 */
bool perf_bpf_overflow(struct perf_event *event, struct perf_sample_data *data,
		       struct pt_regs *regs)
{
	struct bpf_perf_event_data_kern ctx = {
		.regs = perf_arch_bpf_user_pt_regs(regs),
		.data = data,
		.event = event,
	};
	struct bpf_prog *prog;
	bool keep = true;

	if (perf_event_traces(event))
		return true;
	/* A program already runs on this CPU: the sample is dropped. */
	if (unlikely(__this_cpu_inc_return(bpf_prog_active) != 1)) {
		keep = false;
		goto out;
	}
	rcu_read_lock();
	prog = READ_ONCE(event->prog);
	if (prog) {
		perf_prepare_sample(data, event, regs);
		keep = bpf_prog_run(prog, &ctx);
	}
	rcu_read_unlock();
out:
	__this_cpu_dec(bpf_prog_active);
	return keep;
}
