/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Topdown, slots and PERF_METRICS (intel_topdown.c), for the Intel
 * driver (intel.c).
 */
#ifndef _X86_EVENTS_INTEL_TOPDOWN_H
#define _X86_EVENTS_INTEL_TOPDOWN_H

#include "x86_pmu.h"

u64 intel_topdown_probe(unsigned int metrics, u64 caps, u64 mask,
			struct x86_vendor *v);
struct attribute **intel_topdown_events(void);
bool intel_topdown_constraint(u64 config, u64 *counters);
int intel_topdown_hw_config(struct perf_event *event);
u64 intel_topdown_ctrl(u64 counters);
void intel_topdown_fold(struct perf_event *const *placed, u64 which, u64 wrapped);

#endif
