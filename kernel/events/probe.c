// SPDX-License-Identifier: GPL-2.0
/*
 * The kprobe and uprobe PMUs: a perf event that places its own probe.
 * The attribute names the probe (kprobe_func, or kprobe_addr, plus
 * probe_offset; uprobe_path plus probe_offset), and the tracing code
 * (kernel/trace/trace_event_perf.c) creates a trace event private to the
 * perf event.  From then on the event is a tracepoint event in all but
 * its type: it sits on its trace event's per-CPU lists, perf_tp_event()
 * counts it, and PERF_EVENT_IOC_SET_FILTER sets an ftrace filter on it.
 *
 * Config bit 0 asks for a return probe (format "retprobe"); for uprobes,
 * config bits 32-63 are the file offset of the probe's reference counter,
 * the semaphore of a USDT probe (format "ref_ctr_offset").
 *
 * Locking and lifetime: event_init runs under no perf lock; the tracing
 * code takes event_mutex to create the probe and its trace event, and
 * removes both when the event is freed (event->destroy, the same
 * functions).  Both PMUs are registered at boot and never unregistered.
 */
#include <linux/trace_events.h>

#include "internal.h"

#define PROBE_CONFIG_RETPROBE		BIT_ULL(0)
#define UPROBE_REF_CTR_OFFSET_SHIFT	32

PMU_FORMAT_ATTR(retprobe, "config:0");
PMU_FORMAT_ATTR(ref_ctr_offset, "config:32-63");

/*
 * DEFINE_PROBE_PMU(var, init, formats...): the struct pmu @var, whose
 * events @init creates, and the sysfs format directory listing @formats.
 * Probe events are tracepoint events once created: the tracing code's
 * per-CPU lists and the tracepoint PMU's start, stop and read serve them.
 */
#define DEFINE_PROBE_PMU(var, init, ...)				\
static struct attribute *var##_formats[] = { __VA_ARGS__, NULL };	\
static const struct attribute_group var##_format_dir = {		\
	.name = "format", .attrs = var##_formats,			\
};									\
static const struct attribute_group *var##_groups[] = {		\
	&var##_format_dir, NULL,					\
};									\
static int init(struct perf_event *event);				\
static struct pmu var = {						\
	.task_ctx_nr = perf_sw_context, .attr_groups = var##_groups,	\
	.event_init = init, .add = perf_trace_add, .del = perf_trace_del, \
	.start = perf_tp_start, .stop = perf_tp_stop, .read = perf_tp_read, \
}

/* Both probe PMUs refuse what a probe cannot do before creating one. */
static int probe_event_check(struct perf_event *event, struct pmu *pmu,
			     bool allowed)
{
	if (event->attr.type != pmu->type)
		return -ENOENT;
	if (!allowed)
		return -EACCES;
	/* A probe hit has no branch history to record. */
	if (has_branch_stack(event))
		return -EOPNOTSUPP;
	return 0;
}

#ifdef CONFIG_KPROBE_EVENTS
DEFINE_PROBE_PMU(perf_kprobe, kprobe_event_init, &format_attr_retprobe.attr);

static int kprobe_event_init(struct perf_event *event)
{
	int err = probe_event_check(event, &perf_kprobe, perfmon_capable());

	if (err)
		return err;
	err = perf_kprobe_init(event, event->attr.config & PROBE_CONFIG_RETPROBE);
	if (err)
		return err;
	event->destroy = perf_kprobe_destroy;
	return 0;
}
#endif /* CONFIG_KPROBE_EVENTS */

#ifdef CONFIG_UPROBE_EVENTS
DEFINE_PROBE_PMU(perf_uprobe, uprobe_event_init, &format_attr_retprobe.attr,
		 &format_attr_ref_ctr_offset.attr);

static int uprobe_event_init(struct perf_event *event)
{
	u64 config = event->attr.config;
	int err;

	/* Upstream asks for CAP_SYS_ADMIN here, not CAP_PERFMON. */
	err = probe_event_check(event, &perf_uprobe, capable(CAP_SYS_ADMIN));
	if (err)
		return err;
	err = perf_uprobe_init(event, config >> UPROBE_REF_CTR_OFFSET_SHIFT,
			       config & PROBE_CONFIG_RETPROBE);
	if (err)
		return err;
	event->destroy = perf_uprobe_destroy;
	return 0;
}
#endif /* CONFIG_UPROBE_EVENTS */

/**
 * perf_probe_event - whether an event is a kprobe or uprobe PMU event
 * @event: the event
 *
 * Return: true if the event's trace event is a probe it created.
 */
bool perf_probe_event(struct perf_event *event)
{
#ifdef CONFIG_KPROBE_EVENTS
	if (event->pmu == &perf_kprobe)
		return true;
#endif
#ifdef CONFIG_UPROBE_EVENTS
	if (event->pmu == &perf_uprobe)
		return true;
#endif
	return false;
}

/**
 * perf_probe_register - register the kprobe and uprobe PMUs; boot only
 */
void __init perf_probe_register(void)
{
#ifdef CONFIG_KPROBE_EVENTS
	perf_pmu_register(&perf_kprobe, "kprobe", -1);
#endif
#ifdef CONFIG_UPROBE_EVENTS
	perf_pmu_register(&perf_uprobe, "uprobe", -1);
#endif
}
