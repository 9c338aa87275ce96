/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading the perf mmap ring buffer in the perf_events selftests.
 *
 * rb_map() maps the control page and 2^n data pages of an event.
 * rb_fetch() copies every record between data_tail and data_head out of
 * the buffer, in order, into a growing linear copy (so that a record split
 * across the end of the data area comes out in one piece), then moves
 * data_tail up to data_head so that the kernel may reuse the space.
 * rb_next() walks the copied records; rb_find() and rb_count() look for a
 * record type.  Records are left in the copy until rb_clear().
 *
 *	struct perf_rb rb;
 *	struct perf_event_header *h;
 *
 *	if (rb_map(&rb, fd, 8))
 *		...;
 *	(run the workload, disable the event)
 *	rb_fetch(&rb);
 *	while ((h = rb_next(&rb)))
 *		if (h->type == PERF_RECORD_SAMPLE)
 *			...;
 *	rb_unmap(&rb);
 *
 * struct rec_cur reads the fields of one record in order (rc_u64() and
 * friends), and perf_sid_parse() decodes the sample_id trailer that
 * attr.sample_id_all appends to non-sample records.
 *
 * Only forward (non write_backward) buffers are handled.
 */
#ifndef PERF_RB_H
#define PERF_RB_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <linux/perf_event.h>

/*
 * Record times come from local_clock() unless the event asks for a clock;
 * compared with CLOCK_MONOTONIC they are off by however much the two
 * clocks' TSC calibrations have drifted since boot, tens of milliseconds
 * after a slow boot.
 */
#define LOCAL_CLOCK_SLACK	1000000000ULL

struct perf_rb {
	struct perf_event_mmap_page *meta;	/* the control page */
	unsigned char *data;			/* the data area */
	uint64_t data_size;			/* its size in bytes */
	size_t map_size;			/* control page + data area */
	unsigned char *copy;			/* records fetched so far */
	size_t copy_len;			/* bytes in @copy */
	size_t copy_cap;			/* bytes allocated for @copy */
	size_t pos;				/* rb_next() position in @copy */
};

/*
 * Map @data_pages (a power of two, or 0 for just the control page) data
 * pages of event @fd, readable and writable (so data_tail can be written).
 * The pages are read once, so that later reads of the buffer do not take
 * page faults that a page-fault event would count.  Returns 0 or -1.
 */
static inline int rb_map(struct perf_rb *rb, int fd, int data_pages)
{
	long psz = sysconf(_SC_PAGESIZE);
	volatile unsigned char *p;
	size_t i;
	void *m;

	memset(rb, 0, sizeof(*rb));
	rb->map_size = (size_t)(data_pages + 1) * psz;
	m = mmap(NULL, rb->map_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return -1;
	rb->meta = m;
	rb->data = (unsigned char *)m + psz;
	rb->data_size = (uint64_t)data_pages * psz;
	for (p = m, i = 0; i < rb->map_size; i += psz)
		(void)p[i];
	return 0;
}

/* Unmap the buffer and free the copied records. */
static inline void rb_unmap(struct perf_rb *rb)
{
	if (rb->meta)
		munmap(rb->meta, rb->map_size);
	free(rb->copy);
	memset(rb, 0, sizeof(*rb));
}

/* data_head, read with acquire semantics (pairs with the kernel's store). */
static inline uint64_t rb_head(struct perf_rb *rb)
{
	return __atomic_load_n(&rb->meta->data_head, __ATOMIC_ACQUIRE);
}

/* data_tail, as user space last wrote it. */
static inline uint64_t rb_tail(struct perf_rb *rb)
{
	return __atomic_load_n(&rb->meta->data_tail, __ATOMIC_RELAXED);
}

/* Bytes written by the kernel and not yet fetched. */
static inline uint64_t rb_pending(struct perf_rb *rb)
{
	return rb_head(rb) - rb_tail(rb);
}

/* Make sure @rb->copy can take @more bytes; 0 or -1. */
static inline int rb_reserve(struct perf_rb *rb, size_t more)
{
	size_t cap = rb->copy_cap ? rb->copy_cap : 65536;
	unsigned char *n;

	while (cap < rb->copy_len + more)
		cap *= 2;
	if (cap == rb->copy_cap)
		return 0;
	n = realloc(rb->copy, cap);
	if (!n)
		return -1;
	rb->copy = n;
	rb->copy_cap = cap;
	return 0;
}

/*
 * Copy the records between data_tail and data_head to the end of the
 * linear copy, then release them to the kernel (data_tail = data_head).
 * Returns the number of bytes fetched, or -1 (out of memory, or a record
 * header that makes no sense: size 0 or beyond data_head).
 */
static inline long rb_fetch(struct perf_rb *rb)
{
	uint64_t head, tail, len, off, first;
	size_t start;

	if (!rb->data_size)
		return 0;
	head = rb_head(rb);
	tail = rb_tail(rb);
	len = head - tail;
	if (!len)
		return 0;
	if (len > rb->data_size || rb_reserve(rb, len))
		return -1;
	start = rb->copy_len;
	off = tail & (rb->data_size - 1);
	first = rb->data_size - off;
	if (first > len)
		first = len;
	memcpy(rb->copy + start, rb->data + off, first);
	memcpy(rb->copy + start + first, rb->data, len - first);
	rb->copy_len += len;
	/* Every read above is done before the kernel may overwrite. */
	__atomic_store_n(&rb->meta->data_tail, head, __ATOMIC_RELEASE);

	/* Sanity: the records must tile the fetched bytes exactly. */
	for (off = start; off < rb->copy_len;) {
		struct perf_event_header *h = (void *)(rb->copy + off);

		if (off + sizeof(*h) > rb->copy_len || h->size < sizeof(*h) ||
		    off + h->size > rb->copy_len)
			return -1;
		off += h->size;
	}
	return (long)len;
}

/* Throw the fetched records away (the ring buffer is not touched). */
static inline void rb_clear(struct perf_rb *rb)
{
	rb->copy_len = 0;
	rb->pos = 0;
}

/* Start rb_next() over from the first fetched record. */
static inline void rb_rewind(struct perf_rb *rb)
{
	rb->pos = 0;
}

/* The next fetched record, or NULL after the last one. */
static inline struct perf_event_header *rb_next(struct perf_rb *rb)
{
	struct perf_event_header *h;

	if (rb->pos + sizeof(*h) > rb->copy_len)
		return NULL;
	h = (void *)(rb->copy + rb->pos);
	if (h->size < sizeof(*h) || rb->pos + h->size > rb->copy_len)
		return NULL;
	rb->pos += h->size;
	return h;
}

/* Number of fetched records of @type (all of them if @type is 0). */
static inline int rb_count(struct perf_rb *rb, uint32_t type)
{
	size_t save = rb->pos;
	struct perf_event_header *h;
	int n = 0;

	rb->pos = 0;
	while ((h = rb_next(rb)))
		if (!type || h->type == type)
			n++;
	rb->pos = save;
	return n;
}

/* The @nth (from 0) fetched record of @type, or NULL. */
static inline struct perf_event_header *rb_find(struct perf_rb *rb,
						uint32_t type, int nth)
{
	size_t save = rb->pos;
	struct perf_event_header *h;

	rb->pos = 0;
	while ((h = rb_next(rb)))
		if (h->type == type && nth-- == 0)
			break;
	rb->pos = save;
	return h;
}

/*
 * A cursor over the body of one record: rc_u64() and friends return the
 * next field and move on; reading past the end of the record sets @bad
 * and returns zeros, so that a test can check rc_ok() once at the end.
 */
struct rec_cur {
	const unsigned char *p;
	const unsigned char *end;
	int bad;
};

/* A cursor at the first byte after the header of record @h. */
static inline struct rec_cur rc_init(const struct perf_event_header *h)
{
	struct rec_cur c = {
		.p = (const unsigned char *)(h + 1),
		.end = (const unsigned char *)h + h->size,
	};

	return c;
}

/* Pointer to the next @n bytes (skipping them), or NULL if short. */
static inline const void *rc_ptr(struct rec_cur *c, size_t n)
{
	const void *p = c->p;

	if ((size_t)(c->end - c->p) < n) {
		c->bad = 1;
		c->p = c->end;
		return NULL;
	}
	c->p += n;
	return p;
}

static inline uint64_t rc_u64(struct rec_cur *c)
{
	const void *p = rc_ptr(c, 8);
	uint64_t v = 0;

	if (p)
		memcpy(&v, p, 8);
	return v;
}

static inline uint32_t rc_u32(struct rec_cur *c)
{
	const void *p = rc_ptr(c, 4);
	uint32_t v = 0;

	if (p)
		memcpy(&v, p, 4);
	return v;
}

static inline uint16_t rc_u16(struct rec_cur *c)
{
	const void *p = rc_ptr(c, 2);
	uint16_t v = 0;

	if (p)
		memcpy(&v, p, 2);
	return v;
}

/* Bytes left in the record after the cursor. */
static inline size_t rc_left(const struct rec_cur *c)
{
	return c->end - c->p;
}

/* No field was read past the end of the record. */
static inline int rc_ok(const struct rec_cur *c)
{
	return !c->bad;
}

/*
 * The sample_id trailer of non-sample records (attr.sample_id_all): the
 * fields of PERF_SAMPLE_{TID,TIME,ID,STREAM_ID,CPU,IDENTIFIER} that are in
 * sample_type, in that order (IDENTIFIER last, unlike in samples).
 */
struct perf_sid {
	uint32_t pid, tid;
	uint64_t time;
	uint64_t id;
	uint64_t stream_id;
	uint32_t cpu, res;
	uint64_t identifier;
};

#define PERF_SID_TYPES	(PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | \
			 PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | \
			 PERF_SAMPLE_IDENTIFIER)

/*
 * For events sampling PERF_SAMPLE_RAW alone: the number of fetched
 * samples whose raw record holds, at byte @off, a u64 in [@lo, @hi); -1
 * if a record is too short to hold it.
 */
static inline int rb_raw_u64_in(struct perf_rb *rb, size_t off, uint64_t lo,
				uint64_t hi)
{
	struct perf_event_header *h;
	struct rec_cur c;
	uint64_t v;
	int i, n = 0;

	for (i = 0; (h = rb_find(rb, PERF_RECORD_SAMPLE, i)); i++) {
		c = rc_init(h);
		if (rc_u32(&c) < off + sizeof(v))
			return -1;
		rc_ptr(&c, off);
		v = rc_u64(&c);
		if (!rc_ok(&c))
			return -1;
		n += v >= lo && v < hi;
	}
	return n;
}

/* Size in bytes of the trailer for @sample_type. */
static inline size_t perf_sid_size(uint64_t sample_type)
{
	return 8 * __builtin_popcountll(sample_type & PERF_SID_TYPES);
}

/*
 * Decode the trailer at the end of record @h for @sample_type into @sid
 * (absent fields are zero).  Returns 0, or -1 if the record is too short.
 */
static inline int perf_sid_parse(const struct perf_event_header *h,
				 uint64_t sample_type, struct perf_sid *sid)
{
	size_t n = perf_sid_size(sample_type);
	struct rec_cur c;

	memset(sid, 0, sizeof(*sid));
	if (h->size < sizeof(*h) + n)
		return -1;
	c.p = (const unsigned char *)h + h->size - n;
	c.end = (const unsigned char *)h + h->size;
	c.bad = 0;
	if (sample_type & PERF_SAMPLE_TID) {
		sid->pid = rc_u32(&c);
		sid->tid = rc_u32(&c);
	}
	if (sample_type & PERF_SAMPLE_TIME)
		sid->time = rc_u64(&c);
	if (sample_type & PERF_SAMPLE_ID)
		sid->id = rc_u64(&c);
	if (sample_type & PERF_SAMPLE_STREAM_ID)
		sid->stream_id = rc_u64(&c);
	if (sample_type & PERF_SAMPLE_CPU) {
		sid->cpu = rc_u32(&c);
		sid->res = rc_u32(&c);
	}
	if (sample_type & PERF_SAMPLE_IDENTIFIER)
		sid->identifier = rc_u64(&c);
	return rc_ok(&c) ? 0 : -1;
}

#endif /* PERF_RB_H */
