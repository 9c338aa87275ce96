/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The model-specific last branch records of Intel cores (intel_lbr.c),
 * for the Intel driver (intel.c).
 */
#ifndef _X86_EVENTS_INTEL_LBR_H
#define _X86_EVENTS_INTEL_LBR_H

#include "x86_pmu.h"

struct intel_model;

int intel_lbr_probe(const struct intel_model *m, u64 caps, struct x86_vendor *v);
int intel_lbr_config(const struct x86_vendor *v, struct perf_event *event);
int intel_lbr_get(struct perf_event *event);
void intel_lbr_put(struct perf_event *event);
void intel_lbr_enable(void);
void intel_lbr_disable(void);
void intel_lbr_cpu_starting(void);
void intel_lbr_sample_records(struct perf_event *event,
			      struct perf_sample_data *data, const u64 *rec,
			      int nr);

#endif
