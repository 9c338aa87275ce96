/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The branch trace store as an AUX area tracer (intel_bts.c) and as the
 * sampler of branch events with a period of one (intel_bts_sample.c),
 * for the Intel driver (intel.c).
 */
#ifndef _X86_EVENTS_INTEL_BTS_H
#define _X86_EVENTS_INTEL_BTS_H

#include "x86_pmu.h"

void intel_bts_probe(struct x86_vendor *v);
bool intel_bts_possible(void);
void intel_bts_trace(struct perf_event *event, bool snapshot);
void intel_bts_untrace(void);

bool intel_bts_sample_wanted(struct perf_event *event, u64 branches, u64 period);
int intel_bts_sample_config(struct perf_event *event);
void intel_bts_sample_start(struct perf_event *event);
void intel_bts_sample_stop(struct perf_event *event);
int intel_bts_sample_pmi(void);
void intel_bts_sample_resume(void);

#endif
