/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * AMD's last branch records, version 2 (amd_lbr.c), for the AMD core
 * counters (amd.c).
 */
#ifndef _X86_EVENTS_AMD_LBR_H
#define _X86_EVENTS_AMD_LBR_H

#include "x86_pmu.h"

int amd_lbr_probe(struct x86_vendor *v);
int amd_lbr_get(const struct x86_vendor *v, struct perf_event *event);
void amd_lbr_put(const struct x86_vendor *v, struct perf_event *event);
void amd_lbr_enable(void);
void amd_lbr_disable(void);
void amd_lbr_cpu_starting(const struct x86_vendor *v);

#endif
