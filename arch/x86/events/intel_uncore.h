/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the intel-uncore module knows of each part (intel_uncore_parts.c)
 * for the code that drives the boxes (intel_uncore.c).  Everything here
 * is constant data, read-only after the module loads.
 */
#ifndef _X86_EVENTS_INTEL_UNCORE_H
#define _X86_EVENTS_INTEL_UNCORE_H

#include <linux/sysfs.h>
#include <linux/types.h>

#define IUC_MAX_COUNTERS	4	/* general ones a box has, at most */
#define IUC_CLOCKTICKS		0xff	/* a fixed counter's event */

/* An event that counts only on some of a box's general counters. */
struct iuc_constraint {
	u8	code;			/* the event select, config bits 0-7 */
	u8	counters;		/* the mask of those it may use */
};

/*
 * One type of a box's free-running counters: @n counters, the first at
 * MSR @msr of box 0, the others after it; box i's are @stride MSRs on,
 * or at @offsets[i] when the boxes are not evenly spaced.
 */
struct iuc_free {
	u32		msr;
	u8		n;
	u16		stride;
	const u16	*offsets;
};

/*
 * What one kind of box (the C-boxes, an IIO stack, ...) has in common.
 * A box of general counters has a control MSR each (at @ctl on, for box
 * 0), their counters at @ctr on; box i's registers are @stride MSRs on,
 * or at @offsets[i].  A box of free-running counters (@free) has no
 * control at all: an event reads one of them, chosen by its umask.
 */
struct iuc_kind {
	const char			*name;
	unsigned int			boxes;	/* 0: as MSR 0x396 says */
	u32				ctl;
	u32				ctr;
	u16				stride;
	const u16			*offsets;
	u8				counters;	/* general ones */
	u8				width;
	u64				evsel;	/* the config bits CTL takes */
	bool				fixed;	/* the clock: no event select */
	const struct iuc_constraint	*constraints;	/* 0-ended */
	u32				fixed_ctl; /* a fixed counter beside */
	u32				fixed_ctr; /* the general ones: 0xff */
	u32				box_ctl; /* written 0 when busy */
	u32				band_filter; /* the PCU's */
	const struct iuc_free		*free;	/* free-running types */
	u8				nr_free;
	const struct attribute_group	**groups;
};

/* A part's kinds of boxes, in upstream's order of registration. */
struct iuc_part {
	const struct iuc_kind * const	*kinds;
	unsigned int			nr_kinds;
	bool				client;	/* MSRs 0x396, 0x2ff0 */
};

extern const struct iuc_part iuc_client, iuc_skx, iuc_icx;
extern const struct attribute_group iuc_group;

void iuc_parts_init(void);

#endif /* _X86_EVENTS_INTEL_UNCORE_H */
