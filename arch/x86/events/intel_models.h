/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The Intel models with tables of their own (intel_models.c), for the
 * Intel driver (intel.c).
 */
#ifndef _X86_EVENTS_INTEL_MODELS_H
#define _X86_EVENTS_INTEL_MODELS_H

#include "x86_pmu.h"

struct intel_model;

const struct intel_model *intel_model_find(void);
const char *intel_model_pmu_name(const struct intel_model *m);
const char *intel_model_banner(const struct intel_model *m);
int intel_model_topdown(const struct intel_model *m);
struct attribute **intel_model_events(const struct intel_model *m);
struct attribute **intel_model_format(const struct intel_model *m);
const struct intel_model *intel_model_atom(const struct intel_model *m);
bool intel_model_hybrid_events(const struct intel_model *m);
bool intel_model_ref_cycles_p(const struct intel_model *m);
bool intel_model_constraint(const struct intel_model *m, u64 config, u64 gp,
			    u64 fixed, u64 *counters);
u64 intel_model_cache_event(const struct intel_model *m, unsigned int cache,
			    unsigned int op, unsigned int result);
/* intel_model_extra()'s index of the load latency register. */
#define INTEL_EXTRA_LDLAT	2

int intel_model_extra(const struct intel_model *m, struct perf_event *event,
		      u64 *config1);
u64 intel_model_rsp(const struct intel_model *m, int i, u64 *valid);
int intel_model_lbr(const struct intel_model *m);
int intel_model_precise(const struct intel_model *m);
bool intel_model_glc_pebs(const struct intel_model *m);
bool intel_model_grt_pebs(const struct intel_model *m);
bool intel_model_mem_loads_aux(const struct intel_model *m);

#endif
