/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The AUX area in the perf_events selftests (aux.c, hw_bts.c): map an
 * event's ring buffer and an area right after it, read aux_head, and
 * collect the PERF_RECORD_AUX records that say where each piece of trace
 * went.
 */
#ifndef AUX_UTIL_H
#define AUX_UTIL_H

#include "rb_util.h"
#include "perf_rb.h"

#define DATA_PAGES	8

struct aux_map {
	struct perf_rb rb;
	uint64_t *aux;		/* the area */
	size_t size;		/* its bytes */
};

/*
 * Map @fd's ring buffer and an area of @pages pages right after it,
 * writable (with a tail) or read-only (a snapshot area).  0 or -errno.
 */
static inline int map_aux(struct aux_map *m, int fd, int pages, int prot)
{
	void *p;

	memset(m, 0, sizeof(*m));
	if (rb_map(&m->rb, fd, DATA_PAGES))
		return -errno;
	m->size = (size_t)pages * psz;
	m->rb.meta->aux_offset = (DATA_PAGES + 1) * psz;
	m->rb.meta->aux_size = m->size;
	p = mmap(NULL, m->size, prot, MAP_SHARED, fd, m->rb.meta->aux_offset);
	if (p == MAP_FAILED) {
		int err = -errno;

		rb_unmap(&m->rb);
		return err;
	}
	m->aux = p;
	return 0;
}

/* Unmap the area and the ring buffer. */
static inline void unmap_aux(struct aux_map *m)
{
	if (m->aux)
		munmap(m->aux, m->size);
	rb_unmap(&m->rb);
}

/* aux_head, read with acquire semantics. */
static inline uint64_t aux_head(struct aux_map *m)
{
	return __atomic_load_n(&m->rb.meta->aux_head, __ATOMIC_ACQUIRE);
}

/* A PERF_RECORD_AUX's fields. */
struct aux_rec {
	uint64_t offset, size, flags;
};

/* The PERF_RECORD_AUX records fetched, in order, into @out; how many. */
static inline int aux_records(struct aux_map *m, struct aux_rec *out, int max)
{
	struct perf_event_header *h;
	int n = 0;

	rb_fetch(&m->rb);
	rb_rewind(&m->rb);
	while ((h = rb_next(&m->rb))) {
		struct rec_cur c = rc_init(h);

		if (h->type != PERF_RECORD_AUX)
			continue;
		if (n < max) {
			out[n].offset = rc_u64(&c);
			out[n].size = rc_u64(&c);
			out[n].flags = rc_u64(&c);
		}
		n++;
	}
	return n;
}

#endif /* AUX_UTIL_H */
