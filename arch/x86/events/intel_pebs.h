/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Precise event-based sampling of Intel cores (intel_pebs.c), for the
 * Intel driver (intel.c).
 */
#ifndef _X86_EVENTS_INTEL_PEBS_H
#define _X86_EVENTS_INTEL_PEBS_H

#include "x86_pmu.h"

struct intel_model;

int intel_pebs_probe(const struct intel_model *m, u64 caps, u64 gp,
		     struct x86_vendor *v);
int intel_pebs_config(const struct x86_vendor *v, struct perf_event *event);
void intel_pebs_enable(struct perf_event *event);
void intel_pebs_disable(struct perf_event *event);
void intel_pebs_add(struct perf_event *event);
void intel_pebs_del(struct perf_event *event);
u64 intel_pebs_counters(void);
void intel_pebs_cpu_starting(void);
struct attribute **intel_pebs_events(const struct intel_model *m);

#endif
