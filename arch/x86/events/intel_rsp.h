/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The offcore response registers (intel_rsp.c), for the Intel driver
 * (intel.c).
 */
#ifndef _X86_EVENTS_INTEL_RSP_H
#define _X86_EVENTS_INTEL_RSP_H

#include "intel_models.h"

bool intel_rsp_probe(void);
bool intel_rsp_ldlat_probe(void);
int intel_rsp_hw_config(const struct intel_model *m, struct perf_event *event);
int intel_rsp_get(const struct intel_model *m, struct perf_event *event);
void intel_rsp_put(struct perf_event *event);

#endif
