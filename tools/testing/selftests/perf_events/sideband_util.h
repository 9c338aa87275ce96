/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the side-band record tests (sideband_mmap, sideband) share: the
 * sizes of the records, a dummy event that asks for them with its ring
 * buffer, the check of the sample_id trailer, and the decoding of MMAP
 * and MMAP2 records.
 *
 * Most tests use a dummy software event that only asks for side-band
 * records, with sample_id_all and every sample_id bit: the trailer is
 * {pid, tid, time, id, stream_id, cpu, res, identifier}.
 */
#ifndef SIDEBAND_UTIL_H
#define SIDEBAND_UTIL_H

#include "../kselftest_harness.h"
#include "perf_util.h"
#include "perf_rb.h"

#define RB_PAGES	16

/* struct perf_event_header + the fixed part of each record type. */
#define MMAP_FIXED	(8 + 8 + 24)		/* pid, tid, addr, len, pgoff */
#define MMAP2_FIXED	(MMAP_FIXED + 24 + 8)	/* maj..ino_gen, prot, flags */
#define COMM_FIXED	(8 + 8)
#define TASK_SIZE_REC	(8 + 16 + 8)		/* pid, ppid, tid, ptid, time */
#define NS_SIZE_REC	(8 + 8 + 8 + 7 * 16)
#define THROTTLE_SIZE	(8 + 24)
#define LOST_SIZE	(8 + 16)

/* The sample_id bits every test asks for. */
#define SID_ALL		PERF_SID_TYPES
#define SID_SIZE	48

/* ---- opening side-band events ---- */

struct sb {
	struct perf_event_attr attr;
	int fd;
	int noswap_fd;
	uint64_t id;
	struct perf_rb rb;
};

/* A dummy event with sample_id_all and every id bit, disabled. */
static inline void sb_attr(struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->type = PERF_TYPE_SOFTWARE;
	a->size = sizeof(*a);
	a->config = PERF_COUNT_SW_DUMMY;
	a->sample_id_all = 1;
	a->sample_type = SID_ALL;
	a->disabled = 1;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
}

/* Open @s->attr on @pid/@cpu and map the buffer; 0 or -errno. */
static inline int sb_open_on(struct sb *s, pid_t pid, int cpu)
{
	s->fd = sys_perf_event_open(&s->attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (s->fd < 0)
		return -errno;
	s->id = event_id(s->fd);
	if (rb_map(&s->rb, s->fd, RB_PAGES)) {
		close(s->fd);
		s->fd = -1;
		return -ENOMEM;
	}
	return 0;
}

static inline int sb_open(struct sb *s)
{
	return sb_open_on(s, 0, -1);
}

/*
 * Inherited events can only be mmapped per CPU: pin the caller (children
 * and threads inherit that) to CPU 0 and open there.  A non-inherited
 * event next to it keeps the scheduler from swapping the parent's and the
 * children's contexts (it does that for contexts that are exact clones),
 * so that each task's records come from its own event.
 */
static inline int sb_open_inherited(struct sb *s)
{
	struct perf_event_attr a;

	if (pin_to_cpu(0))
		return -EIO;
	sw_attr(&a, PERF_COUNT_SW_DUMMY);
	s->noswap_fd = sys_perf_event_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (s->noswap_fd < 0)
		return -errno;
	s->attr.inherit = 1;
	return sb_open_on(s, 0, 0);
}

static inline void sb_close(struct sb *s)
{
	if (s->fd >= 0)
		close(s->fd);
	if (s->noswap_fd > 0)
		close(s->noswap_fd);
	rb_unmap(&s->rb);
	s->fd = -1;
	s->noswap_fd = 0;
}

static inline void sb_on(struct sb *s)
{
	ioctl(s->fd, PERF_EVENT_IOC_ENABLE, 0);
}

static inline long sb_off(struct sb *s)
{
	ioctl(s->fd, PERF_EVENT_IOC_DISABLE, 0);
	return rb_fetch(&s->rb);
}

/*
 * Check the sample_id trailer of @h: the task that was current, a time
 * within [@t0, @t1] (0 to skip), the event's ID in id, stream_id and
 * identifier, @cpu unless -1.
 */
static inline void check_sid(struct __test_metadata *_metadata,
			     const struct perf_event_header *h, uint64_t id,
			     pid_t pid, pid_t tid, uint64_t t0, uint64_t t1,
			     int cpu)
{
	struct perf_sid sid;

	ASSERT_EQ(perf_sid_parse(h, SID_ALL, &sid), 0);
	EXPECT_EQ(sid.pid, pid);
	EXPECT_EQ(sid.tid, tid);
	if (t0) {
		/* local_clock against CLOCK_MONOTONIC. */
		EXPECT_GE(sid.time + LOCAL_CLOCK_SLACK, t0);
		EXPECT_LE(sid.time, t1 + LOCAL_CLOCK_SLACK);
	}
	EXPECT_EQ(sid.id, id);
	EXPECT_EQ(sid.stream_id, id);
	EXPECT_EQ(sid.identifier, id);
	EXPECT_LT(sid.cpu, nr_possible_cpus());
	if (cpu >= 0) {
		EXPECT_EQ(sid.cpu, cpu);
	}
	EXPECT_EQ(sid.res, 0);
}

/* ---- MMAP and MMAP2 ---- */

/* The fields of an MMAP or MMAP2 record. */
struct mmap_rec {
	uint16_t misc, size;
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	/* MMAP2 only */
	uint32_t maj, min;
	uint64_t ino, ino_gen;
	uint8_t build_id_size;
	const uint8_t *build_id;	/* 20 bytes, with 3 reserved before */
	uint8_t reserved[3];
	uint32_t prot, flags;
	const char *name;
	size_t name_space;		/* bytes the name takes, padding too */
};

/* Decode MMAP/MMAP2 record @h (sample_id_all with SID_ALL if @sid). */
static inline int parse_mmap(const struct perf_event_header *h, int sid,
			     struct mmap_rec *m)
{
	struct rec_cur c = rc_init(h);
	size_t left;

	memset(m, 0, sizeof(*m));
	m->misc = h->misc;
	m->size = h->size;
	m->pid = rc_u32(&c);
	m->tid = rc_u32(&c);
	m->addr = rc_u64(&c);
	m->len = rc_u64(&c);
	m->pgoff = rc_u64(&c);
	if (h->type == PERF_RECORD_MMAP2) {
		if (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			const uint8_t *b = rc_ptr(&c, 24);

			if (b) {
				m->build_id_size = b[0];
				memcpy(m->reserved, b + 1, 3);
				m->build_id = b + 4;
			}
		} else {
			m->maj = rc_u32(&c);
			m->min = rc_u32(&c);
			m->ino = rc_u64(&c);
			m->ino_gen = rc_u64(&c);
		}
		m->prot = rc_u32(&c);
		m->flags = rc_u32(&c);
	}
	left = rc_left(&c);
	if (sid) {
		if (left < SID_SIZE)
			return -1;
		left -= SID_SIZE;
	}
	m->name = (const char *)c.p;
	m->name_space = left;
	if (!rc_ok(&c) || !left || left % 8 || strnlen(m->name, left) == left)
		return -1;
	return 0;
}

/*
 * mmap() between two PROT_NONE pages, so that the new mapping cannot be
 * merged with a neighbour (a record describes the whole merged area).
 */
static inline void *map_alone(size_t len, int prot, int flags, int fd,
			      off_t off)
{
	long psz = page_size();
	char *r = mmap(NULL, len + 2 * psz, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	void *p;

	if (r == MAP_FAILED)
		return NULL;
	p = mmap(r + psz, len, prot, flags | MAP_FIXED, fd, off);
	return p == MAP_FAILED ? NULL : p;
}

/* The tid of the thread a test started last, as the thread saw it. */
static pid_t thread_tid;

#endif /* SIDEBAND_UTIL_H */
