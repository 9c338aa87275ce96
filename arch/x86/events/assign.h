/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Assigning events to the counters of an x86 PMU: see assign.c.
 */
#ifndef _X86_EVENTS_ASSIGN_H
#define _X86_EVENTS_ASSIGN_H

#include <linux/types.h>

/* Counter indexes: general counters from 0, fixed counters from 32. */
#define X86_ASSIGN_FIXED_BASE	32
#define X86_ASSIGN_COUNTERS	64
/* The most events one assignment takes: one per counter. */
#define X86_ASSIGN_MAX_EVENTS	X86_ASSIGN_COUNTERS

/**
 * struct x86_assign_req - one event's wish
 * @mask: the counters it can count on (bit i: counter i)
 * @prev: the counter it had last time, or -1; kept when still possible
 * @pair: it takes the counter after its own too (AMD's large-increment
 *	events): @mask then holds only even general counters whose next
 *	counter exists
 */
struct x86_assign_req {
	u64 mask;
	int prev;
	bool pair;
};

int x86_assign_counters(const struct x86_assign_req *req, int n, u64 busy,
			int *assign);

#endif
