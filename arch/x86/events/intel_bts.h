/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The branch trace store as an AUX area tracer (intel_bts.c), for the
 * Intel driver (intel.c).
 */
#ifndef _X86_EVENTS_INTEL_BTS_H
#define _X86_EVENTS_INTEL_BTS_H

#include "x86_pmu.h"

void intel_bts_probe(struct x86_vendor *v);

#endif
