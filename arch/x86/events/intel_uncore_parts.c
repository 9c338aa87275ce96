// SPDX-License-Identifier: GPL-2.0-only
/*
 * The boxes of each part the intel-uncore module drives, as data: their
 * MSRs, counters, config bits, counter constraints, free-running
 * counters and sysfs files (upstream's names, format fields and event
 * strings).  intel_uncore.c's comment says what each PMU counts and how.
 *
 * Nothing here changes after the module loads: no locking.
 */
#include <linux/bits.h>
#include <linux/device.h>
#include <linux/kernel.h>
#include <linux/perf_event.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "intel_uncore.h"

/* Event, umask, edge and inv; then each box's threshold and extensions. */
#define IUC_EVSEL		(GENMASK_ULL(15, 0) | BIT_ULL(18) | BIT_ULL(23))
#define IUC_CBOX_EVSEL		(IUC_EVSEL | GENMASK_ULL(29, 24))
#define IUC_ARB_EVSEL		(IUC_EVSEL | GENMASK_ULL(28, 24))
#define IUC_UBOX_EVSEL		(IUC_EVSEL | GENMASK_ULL(28, 24))
#define IUC_SERVER_EVSEL	(IUC_EVSEL | GENMASK_ULL(31, 24))
/* Threshold bits 32-35, channel mask and function mask above them. */
#define IUC_SKX_IIO_EVSEL	(IUC_SERVER_EVSEL | GENMASK_ULL(46, 32))
#define IUC_ICX_IIO_EVSEL	(IUC_SERVER_EVSEL | GENMASK_ULL(50, 32))
/* Event, occupancy select, edge, inv, threshold, occupancy inv and edge. */
#define IUC_PCU_EVSEL		(GENMASK_ULL(7, 0) | GENMASK_ULL(15, 14) | \
				 BIT_ULL(18) | BIT_ULL(23) | \
				 GENMASK_ULL(28, 24) | GENMASK_ULL(31, 30))

/* A sysfs file of fixed text: a format field or an event's string. */
struct iuc_text {
	struct device_attribute	attr;
	const char		*text;
};

static ssize_t iuc_format_show(struct device *dev,
			       struct device_attribute *attr, char *page)
{
	return sysfs_emit(page, "%s\n",
			  container_of(attr, struct iuc_text, attr)->text);
}

/* Upstream's uncore event strings end without a newline. */
static ssize_t iuc_event_show(struct device *dev,
			      struct device_attribute *attr, char *page)
{
	return strscpy(page, container_of(attr, struct iuc_text, attr)->text,
		       PAGE_SIZE);
}

#define IUC_TEXT(_var, _name, _show, _text)				\
	static struct iuc_text _var = {					\
		.attr = __ATTR(_name, 0444, _show, NULL),		\
		.text = _text,						\
	}
#define IUC_FORMAT(_var, _name, _text)					\
	IUC_TEXT(iuc_format_##_var, _name, iuc_format_show, _text)
#define IUC_EVENT(_var, _name, _text)					\
	IUC_TEXT(iuc_event_##_var, _name, iuc_event_show, _text)

IUC_FORMAT(event, event, "config:0-7");
IUC_FORMAT(umask, umask, "config:8-15");
IUC_FORMAT(edge, edge, "config:18");
IUC_FORMAT(inv, inv, "config:23");
IUC_FORMAT(threshold, threshold, "config:24-29");
IUC_FORMAT(cmask, cmask, "config:24-28");
IUC_FORMAT(thresh5, thresh, "config:24-28");
IUC_FORMAT(thresh8, thresh, "config:24-31");
IUC_FORMAT(thresh12, thresh, "config:24-35");
IUC_FORMAT(ch_mask8, ch_mask, "config:36-43");
IUC_FORMAT(fc_mask44, fc_mask, "config:44-46");
IUC_FORMAT(ch_mask12, ch_mask, "config:36-47");
IUC_FORMAT(fc_mask48, fc_mask, "config:48-50");
IUC_FORMAT(occ_invert, occ_invert, "config:30");
IUC_FORMAT(occ_edge_det, occ_edge_det, "config:31");
IUC_FORMAT(filter_band0, filter_band0, "config1:0-7");
IUC_FORMAT(filter_band1, filter_band1, "config1:8-15");
IUC_FORMAT(filter_band2, filter_band2, "config1:16-23");
IUC_FORMAT(filter_band3, filter_band3, "config1:24-31");

#define F(x)	(&iuc_format_##x.attr.attr)

static struct attribute *iuc_cbox_format[] = {
	F(edge), F(event), F(inv), F(threshold), F(umask), NULL,
};

static struct attribute *iuc_arb_format[] = {
	F(cmask), F(edge), F(event), F(inv), F(umask), NULL,
};

static struct attribute *iuc_ubox_format[] = {
	F(edge), F(event), F(inv), F(thresh5), F(umask), NULL,
};

static struct attribute *iuc_pcu_format[] = {
	F(edge), F(event), F(filter_band0), F(filter_band1),
	F(filter_band2), F(filter_band3), F(inv), F(occ_edge_det),
	F(occ_invert), F(thresh8), F(umask), NULL,
};

/* The IRP's and M2PCIe's. */
static struct attribute *iuc_server_format[] = {
	F(edge), F(event), F(inv), F(thresh8), F(umask), NULL,
};

static struct attribute *iuc_skx_iio_format[] = {
	F(ch_mask8), F(edge), F(event), F(fc_mask44), F(inv), F(thresh12),
	F(umask), NULL,
};

static struct attribute *iuc_icx_iio_format[] = {
	F(ch_mask12), F(edge), F(event), F(fc_mask48), F(inv), F(thresh12),
	F(umask), NULL,
};

static struct attribute *iuc_event_umask_format[] = {
	F(event), F(umask), NULL,
};

static struct attribute *iuc_event_format[] = {
	F(event), NULL,
};

IUC_EVENT(clockticks, clockticks, "event=0xff");

/* An event file of the free-running counters. */
#define IUC_FREE_EVENT(_name, _text) {					\
	.attr = {							\
		.attr = { .name = _name, .mode = 0444 },		\
		.show = iuc_event_show,					\
	},								\
	.text = _text,							\
}

/* Skylake-SP's bandwidth counters count 4 bytes at a time. */
#define IUC_SKX_MIB	"3.814697266e-6"
static struct iuc_text iuc_skx_free_texts[] = {
	IUC_FREE_EVENT("ioclk", "event=0xff,umask=0x10"),
	IUC_FREE_EVENT("bw_in_port0", "event=0xff,umask=0x20"),
	IUC_FREE_EVENT("bw_in_port0.scale", IUC_SKX_MIB),
	IUC_FREE_EVENT("bw_in_port0.unit", "MiB"),
	IUC_FREE_EVENT("bw_in_port1", "event=0xff,umask=0x21"),
	IUC_FREE_EVENT("bw_in_port1.scale", IUC_SKX_MIB),
	IUC_FREE_EVENT("bw_in_port1.unit", "MiB"),
	IUC_FREE_EVENT("bw_in_port2", "event=0xff,umask=0x22"),
	IUC_FREE_EVENT("bw_in_port2.scale", IUC_SKX_MIB),
	IUC_FREE_EVENT("bw_in_port2.unit", "MiB"),
	IUC_FREE_EVENT("bw_in_port3", "event=0xff,umask=0x23"),
	IUC_FREE_EVENT("bw_in_port3.scale", IUC_SKX_MIB),
	IUC_FREE_EVENT("bw_in_port3.unit", "MiB"),
	IUC_FREE_EVENT("bw_out_port0", "event=0xff,umask=0x24"),
	IUC_FREE_EVENT("bw_out_port0.scale", IUC_SKX_MIB),
	IUC_FREE_EVENT("bw_out_port0.unit", "MiB"),
	IUC_FREE_EVENT("bw_out_port1", "event=0xff,umask=0x25"),
	IUC_FREE_EVENT("bw_out_port1.scale", IUC_SKX_MIB),
	IUC_FREE_EVENT("bw_out_port1.unit", "MiB"),
	IUC_FREE_EVENT("bw_out_port2", "event=0xff,umask=0x26"),
	IUC_FREE_EVENT("bw_out_port2.scale", IUC_SKX_MIB),
	IUC_FREE_EVENT("bw_out_port2.unit", "MiB"),
	IUC_FREE_EVENT("bw_out_port3", "event=0xff,umask=0x27"),
	IUC_FREE_EVENT("bw_out_port3.scale", IUC_SKX_MIB),
	IUC_FREE_EVENT("bw_out_port3.unit", "MiB"),
	IUC_FREE_EVENT("util_in_port0", "event=0xff,umask=0x30"),
	IUC_FREE_EVENT("util_out_port0", "event=0xff,umask=0x31"),
	IUC_FREE_EVENT("util_in_port1", "event=0xff,umask=0x32"),
	IUC_FREE_EVENT("util_out_port1", "event=0xff,umask=0x33"),
	IUC_FREE_EVENT("util_in_port2", "event=0xff,umask=0x34"),
	IUC_FREE_EVENT("util_out_port2", "event=0xff,umask=0x35"),
	IUC_FREE_EVENT("util_in_port3", "event=0xff,umask=0x36"),
	IUC_FREE_EVENT("util_out_port3", "event=0xff,umask=0x37"),
};

/* Ice Lake-SP's, 32 bytes at a time. */
#define IUC_ICX_MIB	"3.0517578125e-5"
static struct iuc_text iuc_icx_free_texts[] = {
	IUC_FREE_EVENT("ioclk", "event=0xff,umask=0x10"),
	IUC_FREE_EVENT("bw_in_port0", "event=0xff,umask=0x20"),
	IUC_FREE_EVENT("bw_in_port0.scale", IUC_ICX_MIB),
	IUC_FREE_EVENT("bw_in_port0.unit", "MiB"),
	IUC_FREE_EVENT("bw_in_port1", "event=0xff,umask=0x21"),
	IUC_FREE_EVENT("bw_in_port1.scale", IUC_ICX_MIB),
	IUC_FREE_EVENT("bw_in_port1.unit", "MiB"),
	IUC_FREE_EVENT("bw_in_port2", "event=0xff,umask=0x22"),
	IUC_FREE_EVENT("bw_in_port2.scale", IUC_ICX_MIB),
	IUC_FREE_EVENT("bw_in_port2.unit", "MiB"),
	IUC_FREE_EVENT("bw_in_port3", "event=0xff,umask=0x23"),
	IUC_FREE_EVENT("bw_in_port3.scale", IUC_ICX_MIB),
	IUC_FREE_EVENT("bw_in_port3.unit", "MiB"),
	IUC_FREE_EVENT("bw_in_port4", "event=0xff,umask=0x24"),
	IUC_FREE_EVENT("bw_in_port4.scale", IUC_ICX_MIB),
	IUC_FREE_EVENT("bw_in_port4.unit", "MiB"),
	IUC_FREE_EVENT("bw_in_port5", "event=0xff,umask=0x25"),
	IUC_FREE_EVENT("bw_in_port5.scale", IUC_ICX_MIB),
	IUC_FREE_EVENT("bw_in_port5.unit", "MiB"),
	IUC_FREE_EVENT("bw_in_port6", "event=0xff,umask=0x26"),
	IUC_FREE_EVENT("bw_in_port6.scale", IUC_ICX_MIB),
	IUC_FREE_EVENT("bw_in_port6.unit", "MiB"),
	IUC_FREE_EVENT("bw_in_port7", "event=0xff,umask=0x27"),
	IUC_FREE_EVENT("bw_in_port7.scale", IUC_ICX_MIB),
	IUC_FREE_EVENT("bw_in_port7.unit", "MiB"),
};

/* Filled from the texts above by iuc_parts_init(). */
static struct attribute *iuc_skx_free_events[ARRAY_SIZE(iuc_skx_free_texts) + 1];
static struct attribute *iuc_icx_free_events[ARRAY_SIZE(iuc_icx_free_texts) + 1];

static struct attribute *iuc_clock_events[] = {
	&iuc_event_clockticks.attr.attr, NULL,
};

#define IUC_GROUP(_var, _name, _attrs)					\
	static const struct attribute_group _var = {			\
		.name = _name,						\
		.attrs = _attrs,					\
	}

IUC_GROUP(iuc_cbox_format_group, "format", iuc_cbox_format);
IUC_GROUP(iuc_arb_format_group, "format", iuc_arb_format);
IUC_GROUP(iuc_clock_format_group, "format", iuc_event_format);
IUC_GROUP(iuc_ubox_format_group, "format", iuc_ubox_format);
IUC_GROUP(iuc_pcu_format_group, "format", iuc_pcu_format);
IUC_GROUP(iuc_server_format_group, "format", iuc_server_format);
IUC_GROUP(iuc_skx_iio_format_group, "format", iuc_skx_iio_format);
IUC_GROUP(iuc_icx_iio_format_group, "format", iuc_icx_iio_format);
IUC_GROUP(iuc_free_format_group, "format", iuc_event_umask_format);
IUC_GROUP(iuc_clock_events_group, "events", iuc_clock_events);
IUC_GROUP(iuc_skx_free_events_group, "events", iuc_skx_free_events);
IUC_GROUP(iuc_icx_free_events_group, "events", iuc_icx_free_events);

/* Each kind's sysfs groups: the cpumask, its format and events. */
static const struct attribute_group *iuc_cbox_groups[] = {
	&iuc_group, &iuc_cbox_format_group, NULL,
};

static const struct attribute_group *iuc_arb_groups[] = {
	&iuc_group, &iuc_arb_format_group, NULL,
};

static const struct attribute_group *iuc_clock_groups[] = {
	&iuc_group, &iuc_clock_format_group, &iuc_clock_events_group, NULL,
};

static const struct attribute_group *iuc_ubox_groups[] = {
	&iuc_group, &iuc_ubox_format_group, NULL,
};

static const struct attribute_group *iuc_pcu_groups[] = {
	&iuc_group, &iuc_pcu_format_group, NULL,
};

static const struct attribute_group *iuc_server_groups[] = {
	&iuc_group, &iuc_server_format_group, NULL,
};

static const struct attribute_group *iuc_skx_iio_groups[] = {
	&iuc_group, &iuc_skx_iio_format_group, NULL,
};

static const struct attribute_group *iuc_icx_iio_groups[] = {
	&iuc_group, &iuc_icx_iio_format_group, NULL,
};

static const struct attribute_group *iuc_skx_free_groups[] = {
	&iuc_group, &iuc_free_format_group, &iuc_skx_free_events_group, NULL,
};

static const struct attribute_group *iuc_icx_free_groups[] = {
	&iuc_group, &iuc_free_format_group, &iuc_icx_free_events_group, NULL,
};

/* The client parts: C-boxes, the arbiter (0x80, 0x83 on counter 0). */
static const struct iuc_constraint iuc_arb_constraints[] = {
	{ 0x80, 0x1 }, { 0x83, 0x1 }, {},
};

static const struct iuc_kind iuc_cbox = {
	.name = "cbox", .ctl = 0x2000, .ctr = 0x2002, .stride = 8,
	.counters = 2, .width = 44, .evsel = IUC_CBOX_EVSEL,
	.groups = iuc_cbox_groups,
};

static const struct iuc_kind iuc_arb = {
	.name = "arb", .boxes = 2, .ctl = 0x2fd0, .ctr = 0x2fd2, .stride = 8,
	.counters = 2, .width = 44, .evsel = IUC_ARB_EVSEL,
	.constraints = iuc_arb_constraints, .groups = iuc_arb_groups,
};

static const struct iuc_kind iuc_clock = {
	.name = "clock", .boxes = 1, .ctl = 0x2fde, .ctr = 0x2fdf,
	.counters = 1, .width = 48, .fixed = true,
	.groups = iuc_clock_groups,
};

/* Both server parts: the U-box and the PCU. */
static const struct iuc_kind iuc_ubox = {
	.name = "ubox", .boxes = 1, .ctl = 0x705, .ctr = 0x709,
	.counters = 2, .width = 48, .evsel = IUC_UBOX_EVSEL,
	.fixed_ctl = 0x703, .fixed_ctr = 0x704,
	.groups = iuc_ubox_groups,
};

static const struct iuc_kind iuc_pcu = {
	.name = "pcu", .boxes = 1, .ctl = 0x711, .ctr = 0x717,
	.counters = 4, .width = 48, .evsel = IUC_PCU_EVSEL,
	.box_ctl = 0x710, .band_filter = 0x715,
	.groups = iuc_pcu_groups,
};

/* Skylake-SP: six IIO stacks, each with an IRP, 0x20 MSRs apart. */
static const struct iuc_constraint iuc_skx_iio_constraints[] = {
	{ 0x83, 0x3 }, { 0x88, 0xc }, { 0x95, 0xc }, { 0xc0, 0xc },
	{ 0xc5, 0xc }, { 0xd4, 0xc }, { 0xd5, 0xc }, {},
};

static const struct iuc_kind iuc_skx_iio = {
	.name = "iio", .boxes = 6, .ctl = 0xa48, .ctr = 0xa41,
	.stride = 0x20, .counters = 4, .width = 48,
	.evsel = IUC_SKX_IIO_EVSEL, .box_ctl = 0xa40,
	.constraints = iuc_skx_iio_constraints,
	.groups = iuc_skx_iio_groups,
};

/* The IIO clock; bandwidth in and out, utilization in and out. */
static const struct iuc_free iuc_skx_free[] = {
	{ .msr = 0xa45, .n = 1, .stride = 0x20 },
	{ .msr = 0xb00, .n = 8, .stride = 0x10 },
	{ .msr = 0xb08, .n = 8, .stride = 0x10 },
};

static const struct iuc_kind iuc_skx_iio_free = {
	.name = "iio_free_running", .boxes = 6, .width = 36,
	.free = iuc_skx_free, .nr_free = ARRAY_SIZE(iuc_skx_free),
	.groups = iuc_skx_free_groups,
};

static const struct iuc_kind iuc_skx_irp = {
	.name = "irp", .boxes = 6, .ctl = 0xa5b, .ctr = 0xa59,
	.stride = 0x20, .counters = 2, .width = 48,
	.evsel = IUC_SERVER_EVSEL, .box_ctl = 0xa58,
	.groups = iuc_server_groups,
};

/* Ice Lake-SP: six stacks of an M2PCIe, an IRP and an IIO box each. */
static const u16 iuc_icx_stacks[] = { 0x0, 0x20, 0x40, 0x90, 0xb0, 0xd0 };
static const u16 iuc_icx_bw_stacks[] = { 0x0, 0x10, 0x20, 0x90, 0xa0, 0xb0 };

static const struct iuc_constraint iuc_icx_iio_constraints[] = {
	{ 0x02, 0x3 }, { 0x03, 0x3 }, { 0x83, 0x3 }, { 0x88, 0xc },
	{ 0xc0, 0xc }, { 0xc5, 0xc }, { 0xd5, 0xc }, {},
};

static const struct iuc_constraint iuc_icx_m2pcie_constraints[] = {
	{ 0x14, 0x3 }, { 0x23, 0x3 }, { 0x2d, 0x3 }, {},
};

static const struct iuc_kind iuc_icx_iio = {
	.name = "iio", .boxes = 6, .ctl = 0xa58, .ctr = 0xa51,
	.offsets = iuc_icx_stacks, .counters = 4, .width = 48,
	.evsel = IUC_ICX_IIO_EVSEL, .box_ctl = 0xa50,
	.constraints = iuc_icx_iio_constraints,
	.groups = iuc_icx_iio_groups,
};

static const struct iuc_kind iuc_icx_irp = {
	.name = "irp", .boxes = 6, .ctl = 0xa4d, .ctr = 0xa4b,
	.offsets = iuc_icx_stacks, .counters = 2, .width = 48,
	.evsel = IUC_SERVER_EVSEL, .box_ctl = 0xa4a,
	.groups = iuc_server_groups,
};

static const struct iuc_kind iuc_icx_m2pcie = {
	.name = "m2pcie", .boxes = 6, .ctl = 0xa46, .ctr = 0xa41,
	.offsets = iuc_icx_stacks, .counters = 4, .width = 48,
	.evsel = IUC_SERVER_EVSEL, .box_ctl = 0xa40,
	.constraints = iuc_icx_m2pcie_constraints,
	.groups = iuc_server_groups,
};

/* The IIO clock; bandwidth in. */
static const struct iuc_free iuc_icx_free[] = {
	{ .msr = 0xa55, .n = 1, .offsets = iuc_icx_stacks },
	{ .msr = 0xaa0, .n = 8, .offsets = iuc_icx_bw_stacks },
};

static const struct iuc_kind iuc_icx_iio_free = {
	.name = "iio_free_running", .boxes = 6, .width = 48,
	.free = iuc_icx_free, .nr_free = ARRAY_SIZE(iuc_icx_free),
	.groups = iuc_icx_free_groups,
};

static const struct iuc_kind * const iuc_client_kinds[] = {
	&iuc_cbox, &iuc_arb, &iuc_clock,
};

static const struct iuc_kind * const iuc_skx_kinds[] = {
	&iuc_ubox, &iuc_skx_iio, &iuc_skx_iio_free, &iuc_skx_irp, &iuc_pcu,
};

static const struct iuc_kind * const iuc_icx_kinds[] = {
	&iuc_ubox, &iuc_icx_iio, &iuc_icx_irp, &iuc_icx_m2pcie, &iuc_pcu,
	&iuc_icx_iio_free,
};

const struct iuc_part iuc_client = {
	iuc_client_kinds, ARRAY_SIZE(iuc_client_kinds), true,
};

const struct iuc_part iuc_skx = {
	iuc_skx_kinds, ARRAY_SIZE(iuc_skx_kinds), false,
};

const struct iuc_part iuc_icx = {
	iuc_icx_kinds, ARRAY_SIZE(iuc_icx_kinds), false,
};

static void __init iuc_fill(struct attribute **attrs, struct iuc_text *texts,
			    unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		attrs[i] = &texts[i].attr.attr;
	attrs[n] = NULL;
}

/**
 * iuc_parts_init() - make the free-running counters' event files
 *
 * Once, at module init, before any PMU is registered.
 */
void __init iuc_parts_init(void)
{
	iuc_fill(iuc_skx_free_events, iuc_skx_free_texts,
		 ARRAY_SIZE(iuc_skx_free_texts));
	iuc_fill(iuc_icx_free_events, iuc_icx_free_texts,
		 ARRAY_SIZE(iuc_icx_free_texts));
}
