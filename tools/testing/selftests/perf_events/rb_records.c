// SPDX-License-Identifier: GPL-2.0
/*
 * The records in the perf mmap ring buffer, between data_tail and
 * data_head:
 *
 *  - records are appended at data_head; a writable mapping makes the
 *    kernel stop at data_tail and account the losses in a
 *    PERF_RECORD_LOST once space is freed, a read-only mapping
 *    overwrites, write_backward lays records out downwards from 0;
 *  - PERF_EVENT_IOC_PAUSE_OUTPUT: no records while paused, and what was
 *    lost meanwhile;
 *  - PERF_EVENT_IOC_SET_OUTPUT and PERF_FLAG_FD_OUTPUT: the records of
 *    several events in one buffer, and which events may share one.
 */
#include "../kselftest_harness.h"
#include <pthread.h>
#include "perf_worker.h"
#include "rb_util.h"

/* Size of a PERF_RECORD_SAMPLE with only u64-sized fields of @st. */
static unsigned int sample_size(uint64_t st)
{
	return 8 + 8 * __builtin_popcountll(st);
}

/*
 * Like open_faults(), counting minor faults: it fires on the same faults,
 * from a separate perf_sw_event() call.  (Two events of the
 * same software type on one task share the sample data of one call, so
 * the second one's samples carry the first one's ids: tests that enable
 * two such events at once use one of each type.)
 */
static int open_minflt(uint64_t st, pid_t pid, int cpu, int group,
		       unsigned long flags)
{
	struct perf_event_attr a;

	fault_attr(&a, st);
	a.config = PERF_COUNT_SW_PAGE_FAULTS_MIN;
	return sys_perf_event_open(&a, pid, cpu, group, flags);
}

static int count_type(const struct rec *r, int n, uint32_t type)
{
	int i, c = 0;

	for (i = 0; i < n; i++)
		if (r[i].h.type == type)
			c++;
	return c;
}

/* The body of a PERF_RECORD_LOST: the writer's id and the number lost. */
struct lost {
	uint64_t id, lost;
};

static struct lost parse_lost(const struct perf_event_header *h)
{
	struct rec_cur c = rc_init(h);
	struct lost l;

	l.id = rc_u64(&c);
	l.lost = rc_u64(&c);
	return l;
}

/* ------------------------------------------------------------------ */
/* data_head, data_tail                                                 */
/* ------------------------------------------------------------------ */

/*
 * Each sample advances data_head by exactly its size; the records tile
 * the buffer and carry the faulting task and address, in order.
 */
TEST(head_advances_by_records)
{
	struct perf_event_header *h;
	uint64_t count, head;
	struct perf_rb rb;
	struct sample s;
	int fd, n = 0, mine = 0;
	char *p;

	fd = open_faults(ST_ITA, 0, -1);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(map_prot(&rb, fd, 4, PROT_READ | PROT_WRITE), 0);
	p = map_anon(20);
	ASSERT_NE(p, NULL);
	faults_at(fd, p, 20);
	count = read_count(fd);
	head = rb_head(&rb);
	EXPECT_GE(count, 20);
	EXPECT_EQ(head, count * sample_size(ST_ITA));
	ASSERT_EQ(rb_fetch(&rb), (long)head);
	while ((h = rb_next(&rb))) {
		s = parse_sample(h, ST_ITA);
		EXPECT_TRUE(s.ok);
		EXPECT_EQ(h->misc & PERF_RECORD_MISC_CPUMODE_MASK,
			  PERF_RECORD_MISC_USER);
		EXPECT_EQ(s.pid, getpid());
		EXPECT_EQ(s.tid, gettid_());
		if (s.addr == (uint64_t)(p + mine * psz))
			mine++;
		n++;
	}
	EXPECT_EQ(n, (int)count);
	EXPECT_EQ(mine, 20);
	munmap(p, 20 * psz);
	rb_unmap(&rb);
	close(fd);
}

/*
 * A reader that follows the protocol (read head, copy, store tail) gets
 * every record, in order, across many wraps of a buffer whose size is
 * not a multiple of the record size (records split at the end).
 */
TEST(head_wraps_consumer_sees_all)
{
	struct perf_event_header *h;
	struct perf_event_attr a;
	uint64_t total = 0;
	struct perf_rb rb;
	struct sample s;
	int fd, round, i, mine, lost = 0;
	char *p;

	fault_attr(&a, ST_ITTA);
	a.read_format = F_LOST;
	fd = open_attr(&a, 0, -1);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(map_prot(&rb, fd, 2, PROT_READ | PROT_WRITE), 0);
	for (round = 0; round < 30; round++) {
		p = map_anon(40);
		ASSERT_NE(p, NULL);
		faults_at(fd, p, 40);
		ASSERT_GT(rb_fetch(&rb), 0);
		mine = 0;
		for (i = 0; (h = rb_next(&rb)); i++) {
			if (h->type == PERF_RECORD_LOST)
				lost++;
			s = parse_sample(h, ST_ITTA);
			ASSERT_TRUE(s.ok)
				TH_LOG("round %d record %d", round, i);
			if (s.addr == (uint64_t)(p + mine * psz))
				mine++;
			total += h->size;
		}
		EXPECT_EQ(mine, 40) TH_LOG("round %d", round);
		rb_clear(&rb);
		munmap(p, 40 * psz);
	}
	EXPECT_EQ(lost, 0);
	EXPECT_EQ(read_lost(fd), 0);
	EXPECT_EQ(rb_head(&rb), total);
	EXPECT_GT(total, 4 * rb.data_size);
	rb_unmap(&rb);
	close(fd);
}

/*
 * A writable mapping is not overwritten: with data_tail at 0, records
 * stop once fewer than a record's bytes are free (one byte always stays
 * free: 170 records of 24 bytes in 4096), and the rest are counted lost.
 * Once data_tail frees the space, the next write puts a PERF_RECORD_LOST
 * with the event's id and the exact number lost before the sample.
 */
TEST(tail_stops_writes_then_lost_record)
{
	struct perf_event_attr a;
	uint64_t count, lost, head, cap;
	struct perf_rb rb;
	struct rec r[4];
	struct lost l;
	int fd;

	fault_attr(&a, ST_IT);
	a.read_format = F_LOST;
	fd = open_attr(&a, 0, -1);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(map_prot(&rb, fd, 1, PROT_READ | PROT_WRITE), 0);
	cap = (rb.data_size - 1) / 24;
	faults(fd, 300);
	count = read_cnt(fd);
	lost = read_lost(fd);
	head = rb_head(&rb);
	EXPECT_EQ(head, cap * 24);
	EXPECT_GE(count, 300);
	EXPECT_EQ(lost, count - cap);
	EXPECT_EQ(peek(&rb, 0, head, r, 0), (int)cap);

	/* Free everything; one more fault brings LOST + SAMPLE. */
	__atomic_store_n(&rb.meta->data_tail, head, __ATOMIC_RELEASE);
	faults(fd, 1);
	EXPECT_EQ(rb_head(&rb), head + 48);
	ASSERT_EQ(peek(&rb, head, rb_head(&rb), r, 4), 2);
	EXPECT_EQ(r[0].h.type, PERF_RECORD_LOST);
	EXPECT_EQ(r[0].h.size, 24);
	EXPECT_EQ(r[0].h.misc, 0);
	l = parse_lost(&r[0].h);
	EXPECT_EQ(l.id, event_id(fd));
	EXPECT_EQ(l.lost, lost);
	EXPECT_EQ(r[1].h.type, PERF_RECORD_SAMPLE);
	/* The lost count read() reports is not reset by the LOST record. */
	EXPECT_EQ(read_lost(fd), lost);
	rb_unmap(&rb);
	close(fd);
}

/*
 * The free space is (data_tail - data_head - 1) modulo the size, whatever
 * data_tail says: a tail 100 bytes ahead of head leaves room for 4 records.
 */
TEST(tail_ahead_of_head)
{
	struct perf_event_attr a;
	struct perf_rb rb;
	int fd;

	fault_attr(&a, ST_IT);
	a.read_format = F_LOST;
	fd = open_attr(&a, 0, -1);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(map_prot(&rb, fd, 1, PROT_READ | PROT_WRITE), 0);
	rb.meta->data_tail = rb.data_size * 5 + 100;
	faults(fd, 10);
	EXPECT_EQ(rb_head(&rb), 4 * 24);
	EXPECT_EQ(read_lost(fd), read_cnt(fd) - 4);
	rb_unmap(&rb);
	close(fd);
}

/*
 * With losses pending, a write needs room for the LOST record as well:
 * freeing one 24-byte record leaves 39 bytes, too few for LOST + SAMPLE
 * (48), so the loss goes on; freeing two (63 bytes) lets both in.
 */
TEST(tail_hole_too_small_for_lost)
{
	struct perf_event_attr a;
	uint64_t head, lost;
	struct perf_rb rb;
	struct rec r[4];
	int fd;

	fault_attr(&a, ST_IT);
	a.read_format = F_LOST;
	fd = open_attr(&a, 0, -1);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(map_prot(&rb, fd, 1, PROT_READ | PROT_WRITE), 0);
	faults(fd, 200);
	head = rb_head(&rb);
	ASSERT_EQ(head, 170 * 24);
	lost = read_lost(fd);
	ASSERT_GT(lost, 0);

	__atomic_store_n(&rb.meta->data_tail, 24, __ATOMIC_RELEASE);
	faults(fd, 3);
	EXPECT_EQ(rb_head(&rb), head);
	EXPECT_GE(read_lost(fd), lost + 3);
	lost = read_lost(fd);

	__atomic_store_n(&rb.meta->data_tail, 48, __ATOMIC_RELEASE);
	faults(fd, 1);
	EXPECT_EQ(rb_head(&rb), head + 48);
	ASSERT_EQ(peek(&rb, head, rb_head(&rb), r, 4), 2);
	EXPECT_EQ(r[0].h.type, PERF_RECORD_LOST);
	EXPECT_EQ(parse_lost(&r[0].h).lost, lost);
	EXPECT_EQ(r[1].h.type, PERF_RECORD_SAMPLE);
	rb_unmap(&rb);
	close(fd);
}

/*
 * With sample_id_all, PERF_RECORD_LOST carries the sample_id trailer
 * (here tid and id), and its size grows by it.
 */
TEST(lost_record_sample_id_all)
{
	uint64_t st = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_ID;
	struct perf_event_attr a;
	uint64_t head, lost, cap;
	struct perf_sid sid;
	struct perf_rb rb;
	struct rec r[4];
	struct lost l;
	int fd;

	fault_attr(&a, st);
	a.sample_id_all = 1;
	a.read_format = F_LOST;
	fd = open_attr(&a, 0, -1);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(map_prot(&rb, fd, 1, PROT_READ | PROT_WRITE), 0);
	cap = (rb.data_size - 1) / 32;
	faults(fd, 200);
	head = rb_head(&rb);
	ASSERT_EQ(head, cap * 32);
	lost = read_lost(fd);
	__atomic_store_n(&rb.meta->data_tail, head, __ATOMIC_RELEASE);
	faults(fd, 1);
	ASSERT_EQ(rb_head(&rb), head + 40 + 32);
	ASSERT_EQ(peek(&rb, head, rb_head(&rb), r, 4), 2);
	EXPECT_EQ(r[0].h.type, PERF_RECORD_LOST);
	EXPECT_EQ(r[0].h.size, 40);
	l = parse_lost(&r[0].h);
	EXPECT_EQ(l.id, event_id(fd));
	EXPECT_EQ(l.lost, lost);
	ASSERT_EQ(perf_sid_parse(&r[0].h, st, &sid), 0);
	EXPECT_EQ(sid.pid, getpid());
	EXPECT_EQ(sid.tid, gettid_());
	EXPECT_EQ(sid.id, event_id(fd));
	EXPECT_EQ(parse_sample(&r[1].h, st).id, event_id(fd));
	rb_unmap(&rb);
	close(fd);
}

/* The kernel rewrites data_head on each record: user scribbles are lost. */
TEST(head_written_by_user_is_restored)
{
	struct perf_rb rb;
	int fd = open_faults(ST_IT, 0, -1);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(map_prot(&rb, fd, 1, PROT_READ | PROT_WRITE), 0);
	faults(fd, 2);
	ASSERT_EQ(rb_head(&rb), read_count(fd) * 24);
	rb.meta->data_head = 12345;
	faults(fd, 1);
	EXPECT_EQ(rb_head(&rb), read_count(fd) * 24);
	rb_unmap(&rb);
	close(fd);
}

/*
 * A read-only mapping is an overwrite buffer: data_tail is ignored, head
 * runs past the size, nothing is lost, and the last size bytes hold the
 * newest records (32-byte records: the buffer holds exactly 128).
 */
TEST(readonly_mapping_overwrites)
{
	struct perf_event_attr a;
	uint64_t head, count;
	struct perf_rb rb;
	struct rec *r;
	struct sample s;
	int fd, i, n;
	char *p;

	fault_attr(&a, ST_ITA);
	a.read_format = F_LOST;
	fd = open_attr(&a, 0, -1);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(map_prot(&rb, fd, 1, PROT_READ), 0);
	p = map_anon(400);
	ASSERT_NE(p, NULL);
	faults_at(fd, p, 400);
	count = read_cnt(fd);
	head = rb_head(&rb);
	EXPECT_EQ(head, count * 32);
	EXPECT_EQ(read_lost(fd), 0);
	r = calloc(MAXREC, sizeof(*r));
	ASSERT_NE(r, NULL);
	n = peek(&rb, head - rb.data_size, head, r, MAXREC);
	ASSERT_EQ(n, (int)(rb.data_size / 32));
	EXPECT_EQ(count_type(r, n, PERF_RECORD_SAMPLE), n);
	/*
	 * The newest record is the last page touched, the ones before it
	 * the pages before it (no stray fault came after the touches).
	 */
	for (i = 0; i < 8; i++) {
		s = parse_sample(&r[n - 1 - i].h, ST_ITA);
		EXPECT_EQ(s.addr, (uint64_t)(p + (399 - i) * psz));
	}
	free(r);
	munmap(p, 400 * psz);
	rb_unmap(&rb);
	close(fd);
}

/*
 * write_backward in a read-only mapping: data_head starts at 0 and goes
 * down ("negative"); the newest record is at data_head, older ones follow
 * it; it overwrites like a forward overwrite buffer.
 */
TEST(backward_overwrite)
{
	struct perf_event_attr a;
	uint64_t head, count;
	struct perf_rb rb;
	struct rec *r;
	struct sample s;
	int fd, i, n;
	char *p;

	fault_attr(&a, ST_ITA);
	a.write_backward = 1;
	a.read_format = F_LOST;
	fd = open_attr(&a, 0, -1);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(map_prot(&rb, fd, 1, PROT_READ), 0);
	p = map_anon(300);
	ASSERT_NE(p, NULL);
	r = calloc(MAXREC, sizeof(*r));
	ASSERT_NE(r, NULL);

	faults_at(fd, p, 3);
	count = read_cnt(fd);
	head = rb_head(&rb);
	EXPECT_EQ((int64_t)head, -(int64_t)(count * 32));
	n = peek(&rb, head, 0, r, MAXREC);
	ASSERT_EQ(n, (int)count);
	s = parse_sample(&r[0].h, ST_ITA);
	EXPECT_EQ(s.addr, (uint64_t)(p + 2 * psz));
	s = parse_sample(&r[n - 1].h, ST_ITA);
	EXPECT_TRUE(s.ok);

	faults_at(fd, p + 3 * psz, 297);
	count = read_cnt(fd);
	head = rb_head(&rb);
	EXPECT_EQ((int64_t)head, -(int64_t)(count * 32));
	EXPECT_EQ(read_lost(fd), 0);
	n = peek(&rb, head, head + rb.data_size, r, MAXREC);
	ASSERT_EQ(n, (int)(rb.data_size / 32));
	for (i = 0; i < 8; i++) {
		s = parse_sample(&r[i].h, ST_ITA);
		EXPECT_EQ(s.addr, (uint64_t)(p + (299 - i) * psz));
	}
	free(r);
	munmap(p, 300 * psz);
	rb_unmap(&rb);
	close(fd);
}

/*
 * write_backward in a writable mapping honours data_tail too: it stops
 * one record short of wrapping onto data_tail (0), then a LOST record
 * and the sample go below data_head once data_tail follows it.
 */
TEST(backward_writable_stops_at_tail)
{
	struct perf_event_attr a;
	uint64_t head, count, lost, cap;
	struct perf_rb rb;
	struct rec r[4];
	int fd;

	fault_attr(&a, ST_ITA);
	a.write_backward = 1;
	a.read_format = F_LOST;
	fd = open_attr(&a, 0, -1);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(map_prot(&rb, fd, 1, PROT_READ | PROT_WRITE), 0);
	cap = (rb.data_size - 1) / 32;
	faults(fd, 200);
	count = read_cnt(fd);
	lost = read_lost(fd);
	head = rb_head(&rb);
	EXPECT_EQ((int64_t)head, -(int64_t)(cap * 32));
	EXPECT_EQ(lost, count - cap);

	__atomic_store_n(&rb.meta->data_tail, head, __ATOMIC_RELEASE);
	faults(fd, 1);
	EXPECT_EQ(rb_head(&rb), head - 56);
	ASSERT_EQ(peek(&rb, rb_head(&rb), head, r, 4), 2);
	EXPECT_EQ(r[0].h.type, PERF_RECORD_LOST);
	EXPECT_EQ(parse_lost(&r[0].h).lost, lost);
	EXPECT_EQ(parse_lost(&r[0].h).id, event_id(fd));
	EXPECT_EQ(r[1].h.type, PERF_RECORD_SAMPLE);
	rb_unmap(&rb);
	close(fd);
}

/* ------------------------------------------------------------------ */
/* PERF_EVENT_IOC_PAUSE_OUTPUT                                          */
/* ------------------------------------------------------------------ */

/*
 * While paused nothing is written and every sample counts as lost; after
 * resuming, the first write is a PERF_RECORD_LOST with that number.
 */
TEST(pause_output)
{
	struct perf_event_attr a;
	uint64_t head, count, lost;
	struct perf_rb rb;
	struct rec r[4];
	int fd;

	fault_attr(&a, ST_IT);
	a.read_format = F_LOST;
	fd = open_attr(&a, 0, -1);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(map_prot(&rb, fd, 1, PROT_READ | PROT_WRITE), 0);
	faults(fd, 3);
	head = rb_head(&rb);
	count = read_cnt(fd);
	EXPECT_EQ(head, count * 24);

	ASSERT_EQ(ioctl(fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 1), 0);
	faults(fd, 10);
	EXPECT_EQ(rb_head(&rb), head);
	lost = read_lost(fd);
	EXPECT_EQ(lost, read_cnt(fd) - count);
	EXPECT_GE(lost, 10);
	/* Pausing twice is fine; any non-zero argument pauses. */
	ASSERT_EQ(ioctl(fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 7), 0);

	ASSERT_EQ(ioctl(fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 0), 0);
	faults(fd, 1);
	ASSERT_EQ(peek(&rb, head, rb_head(&rb), r, 4), 2);
	EXPECT_EQ(r[0].h.type, PERF_RECORD_LOST);
	EXPECT_EQ(parse_lost(&r[0].h).lost, lost);
	EXPECT_EQ(r[1].h.type, PERF_RECORD_SAMPLE);
	rb_unmap(&rb);
	close(fd);
}

/*
 * Pausing an overwrite buffer counts losses too, and reports them with a
 * PERF_RECORD_LOST after resuming, forward and backward alike (backward:
 * the LOST record sits right below the sample, at the new data_head).
 */
TEST(pause_output_overwrite_lost)
{
	struct perf_event_attr a;
	uint64_t head, count, lost;
	struct perf_rb rb;
	struct rec r[4];
	int fd, back;

	for (back = 0; back < 2; back++) {
		fault_attr(&a, ST_IT);
		a.read_format = F_LOST;
		a.write_backward = back;
		fd = open_attr(&a, 0, -1);
		ASSERT_GE(fd, 0);
		ASSERT_EQ(map_prot(&rb, fd, 1, PROT_READ), 0);
		faults(fd, 3);
		head = rb_head(&rb);
		count = read_cnt(fd);
		ASSERT_EQ(ioctl(fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 1), 0);
		faults(fd, 5);
		EXPECT_EQ(rb_head(&rb), head);
		lost = read_lost(fd);
		EXPECT_EQ(lost, read_cnt(fd) - count);
		ASSERT_EQ(ioctl(fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 0), 0);
		faults(fd, 1);
		if (back) {
			EXPECT_EQ(rb_head(&rb), head - 48);
			ASSERT_EQ(peek(&rb, rb_head(&rb), head, r, 4), 2);
		} else {
			EXPECT_EQ(rb_head(&rb), head + 48);
			ASSERT_EQ(peek(&rb, head, rb_head(&rb), r, 4), 2);
		}
		EXPECT_EQ(r[0].h.type, PERF_RECORD_LOST)
			TH_LOG("backward %d", back);
		EXPECT_EQ(parse_lost(&r[0].h).lost, lost);
		EXPECT_EQ(r[1].h.type, PERF_RECORD_SAMPLE);
		rb_unmap(&rb);
		close(fd);
	}
}

/* Pausing needs a buffer; after munmap() it is EINVAL again. */
TEST(pause_output_needs_buffer)
{
	struct perf_rb rb;
	int fd = open_faults(ST_IT, 0, -1);

	ASSERT_GE(fd, 0);
	EXPECT_EQ(ioctl(fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 1), -1);
	EXPECT_EQ(errno, EINVAL);
	EXPECT_EQ(ioctl(fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 0), -1);
	EXPECT_EQ(errno, EINVAL);
	ASSERT_EQ(map_prot(&rb, fd, 1, PROT_READ | PROT_WRITE), 0);
	EXPECT_EQ(ioctl(fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 1), 0);
	rb_unmap(&rb);
	EXPECT_EQ(ioctl(fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 0), -1);
	EXPECT_EQ(errno, EINVAL);
	/* A new buffer starts unpaused. */
	ASSERT_EQ(map_prot(&rb, fd, 1, PROT_READ | PROT_WRITE), 0);
	faults(fd, 1);
	EXPECT_GE(rb_head(&rb), 24);
	rb_unmap(&rb);
	close(fd);
}

/* Pausing is a property of the buffer: through a redirected event too. */
TEST(pause_output_through_redirected_event)
{
	struct perf_rb rb;
	int a, b;

	a = open_faults(ST_IDA, 0, -1);
	b = open_faults(ST_IDA, 0, -1);
	ASSERT_GE(a, 0);
	ASSERT_GE(b, 0);
	ASSERT_EQ(map_prot(&rb, a, 1, PROT_READ | PROT_WRITE), 0);
	ASSERT_EQ(ioctl(b, PERF_EVENT_IOC_SET_OUTPUT, a), 0);
	ASSERT_EQ(ioctl(b, PERF_EVENT_IOC_PAUSE_OUTPUT, 1), 0);
	faults(a, 3);
	EXPECT_EQ(rb_head(&rb), 0);
	ASSERT_EQ(ioctl(b, PERF_EVENT_IOC_PAUSE_OUTPUT, 0), 0);
	faults(a, 1);
	EXPECT_GT(rb_head(&rb), 0);
	rb_unmap(&rb);
	close(b);
	close(a);
}

/* ------------------------------------------------------------------ */
/* PERF_EVENT_IOC_SET_OUTPUT, PERF_FLAG_FD_OUTPUT                       */
/* ------------------------------------------------------------------ */

/* Count the samples of event @fd (by PERF_SAMPLE_IDENTIFIER) in @rb. */
static int samples_of(struct perf_rb *rb, int fd)
{
	struct perf_event_header *h;
	uint64_t id = event_id(fd);
	int n = 0;

	rb_rewind(rb);
	while ((h = rb_next(rb)))
		if (h->type == PERF_RECORD_SAMPLE &&
		    parse_sample(h, ST_IDA).ident == id)
			n++;
	return n;
}

/* Records of a redirected event land in the target's buffer, with its id. */
TEST(set_output_records_in_target)
{
	struct perf_rb rb;
	int a, b;
	char *p;

	a = open_faults(ST_IDA, 0, -1);
	b = open_minflt(ST_IDA, 0, -1, -1, 0);
	ASSERT_GE(a, 0);
	ASSERT_GE(b, 0);
	ASSERT_EQ(map_prot(&rb, a, 4, PROT_READ | PROT_WRITE), 0);
	ASSERT_EQ(set_output(b, a), 0);
	p = map_anon(10);
	ASSERT_NE(p, NULL);
	ev_enable(a);
	ev_enable(b);
	touch_range(p, 10);
	ev_disable(b);
	ev_disable(a);
	ASSERT_GT(rb_fetch(&rb), 0);
	EXPECT_EQ(samples_of(&rb, a), (int)read_count(a));
	EXPECT_EQ(samples_of(&rb, b), (int)read_count(b));
	EXPECT_GE(read_count(b), 10);
	EXPECT_EQ(rb_count(&rb, 0), (int)(read_count(a) + read_count(b)));
	munmap(p, 10 * psz);
	rb_unmap(&rb);
	close(b);
	close(a);
}

/*
 * Wakeups belong to the buffer: a sample of a redirected event (with its
 * own wakeup_events 1) makes poll() on the target report POLLIN, and the
 * first poll() on either fd consumes it.  SIGIO goes to the writer's
 * owner only: O_ASYNC on the target brings no signal.
 */
TEST(set_output_wakeups_shared)
{
	int sig = SIGRTMIN + 7, a, b;
	struct poller pl = { .timeout_ms = 10000 };
	struct perf_event_attr at;
	struct perf_rb rb;
	siginfo_t si[8];
	pthread_t th;

	block_sig(sig);
	a = open_faults(ST_IDA, 0, -1);
	fault_attr(&at, ST_IDA);
	at.wakeup_events = 1;
	b = open_attr(&at, 0, -1);
	ASSERT_GE(a, 0);
	ASSERT_GE(b, 0);
	ASSERT_EQ(map_prot(&rb, a, 1, PROT_READ | PROT_WRITE), 0);
	ASSERT_EQ(set_output(b, a), 0);
	ASSERT_EQ(make_async(a, sig), 0);

	faults(b, 1);
	EXPECT_EQ(poll_all(a, 0), POLLIN | POLLRDNORM);
	EXPECT_EQ(poll_all(b, 0), 0);
	faults(b, 1);
	EXPECT_EQ(poll_all(b, 0), POLLIN | POLLRDNORM);
	EXPECT_EQ(poll_all(a, 0), 0);
	EXPECT_EQ(collect_sigs(sig, si, 8, 200), 0);

	/* A poll() blocked on the target is woken too. */
	pl.fd = a;
	ASSERT_EQ(pthread_create(&th, NULL, poll_thread, &pl), 0);
	usleep(100000);
	faults(b, 1);
	pthread_join(th, NULL);
	EXPECT_EQ(pl.revents, POLLIN | POLLRDNORM);
	EXPECT_LT(pl.ns, 8000000000ULL);
	rb_unmap(&rb);
	close(b);
	close(a);
}

/*
 * A counting event (no sample period) with a buffer: its side-band
 * records wake the buffer's readers too.  @comm asks for COMM records,
 * the watermark for a wakeup at the first byte.
 */
static int open_counting_dummy(int comm)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(a),
		.config = PERF_COUNT_SW_DUMMY,
		.comm = comm,
		.watermark = 1,
		.wakeup_watermark = 1,
	};

	return open_attr(&a, 0, -1);
}

TEST(counting_event_records_wake_readers)
{
	struct poller pl = { .timeout_ms = 10000 };
	struct perf_rb rb;
	pthread_t th;
	int fd;

	fd = open_counting_dummy(1);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(map_prot(&rb, fd, 1, PROT_READ | PROT_WRITE), 0);
	EXPECT_EQ(poll_all(fd, 0), 0);
	ASSERT_EQ(prctl(PR_SET_NAME, "rb-wake-1"), 0);
	EXPECT_EQ(poll_all(fd, 0), POLLIN | POLLRDNORM);
	EXPECT_GT(rb_head(&rb), 0);

	pl.fd = fd;
	ASSERT_EQ(pthread_create(&th, NULL, poll_thread, &pl), 0);
	usleep(100000);
	ASSERT_EQ(prctl(PR_SET_NAME, "rb-wake-2"), 0);
	pthread_join(th, NULL);
	EXPECT_EQ(pl.revents, POLLIN | POLLRDNORM);
	EXPECT_LT(pl.ns, 8000000000ULL);
	rb_unmap(&rb);
	close(fd);
}

/* The same for a counting event redirected into another's buffer. */
TEST(counting_event_redirected_wakes_readers)
{
	struct perf_rb rb;
	int a, b;

	a = open_counting_dummy(0);
	b = open_counting_dummy(1);
	ASSERT_GE(a, 0);
	ASSERT_GE(b, 0);
	ASSERT_EQ(map_prot(&rb, a, 1, PROT_READ | PROT_WRITE), 0);
	ASSERT_EQ(set_output(b, a), 0);
	ASSERT_EQ(prctl(PR_SET_NAME, "rb-wake-3"), 0);
	EXPECT_GT(rb_head(&rb), 0);
	EXPECT_EQ(poll_all(a, 0), POLLIN | POLLRDNORM);
	rb_unmap(&rb);
	close(b);
	close(a);
}

/*
 * The target must have a mapped buffer; an event cannot redirect to
 * itself; the fd must be a perf event.
 */
TEST(set_output_basic_errors)
{
	int a, b, pfd[2];

	a = open_faults(ST_IDA, 0, -1);
	b = open_faults(ST_IDA, 0, -1);
	ASSERT_GE(a, 0);
	ASSERT_GE(b, 0);
	EXPECT_EQ(set_output(b, a), -EINVAL);
	EXPECT_EQ(set_output(b, b), -EINVAL);
	ASSERT_EQ(pipe(pfd), 0);
	EXPECT_EQ(set_output(b, pfd[0]), -EBADF);
	EXPECT_EQ(set_output(b, 1000), -EBADF);
	/* Detaching an event that has no buffer is fine. */
	EXPECT_EQ(set_output(b, -1), 0);
	close(pfd[0]);
	close(pfd[1]);
	close(b);
	close(a);
}

/* Only events of the same CPU share a buffer. */
TEST(set_output_cpu_must_match)
{
	struct perf_rb rb;
	int a, b, c;

	if (nr_cpus() < 2)
		SKIP(return, "needs two CPUs");
	a = open_faults(ST_IDA, 0, 0);
	b = open_faults(ST_IDA, 0, 1);
	c = open_faults(ST_IDA, 0, -1);
	ASSERT_GE(a, 0);
	ASSERT_GE(b, 0);
	ASSERT_GE(c, 0);
	ASSERT_EQ(map_prot(&rb, a, 1, PROT_READ | PROT_WRITE), 0);
	EXPECT_EQ(set_output(b, a), -EINVAL);
	EXPECT_EQ(set_output(c, a), -EINVAL);
	close(b);
	b = open_faults(ST_IDA, 0, 0);
	ASSERT_GE(b, 0);
	EXPECT_EQ(set_output(b, a), 0);
	rb_unmap(&rb);
	close(c);
	close(b);
	close(a);
}

struct idler {
	int fd;			/* read end of a pipe */
	volatile pid_t tid;
};

static void *idle_thread(void *arg)
{
	struct idler *t = arg;
	char c;

	t->tid = gettid_();
	/* Block until the test closes the write end of the pipe. */
	while (read(t->fd, &c, 1) > 0)
		;
	return NULL;
}

/*
 * Per-task buffers (cpu == -1) only take events of the same task (thread):
 * not another process's, not even another thread's of this process.
 * Per-CPU buffers take any task's events of that CPU.
 */
TEST(set_output_task_must_match)
{
	struct perf_rb rb, rb0;
	struct idler idl;
	struct worker w;
	pthread_t th;
	int a, b, c, a0, b0, pfd[2];

	ASSERT_EQ(pipe(pfd), 0);
	idl.fd = pfd[0];
	idl.tid = 0;
	ASSERT_EQ(pthread_create(&th, NULL, idle_thread, &idl), 0);
	while (!idl.tid)
		usleep(1000);
	ASSERT_EQ(worker_start(&w), 0);
	a = open_faults(ST_IDA, 0, -1);
	b = open_faults(ST_IDA, w.pid, -1);
	c = open_faults(ST_IDA, idl.tid, -1);
	ASSERT_GE(a, 0);
	ASSERT_GE(b, 0);
	ASSERT_GE(c, 0);
	ASSERT_EQ(map_prot(&rb, a, 1, PROT_READ | PROT_WRITE), 0);
	EXPECT_EQ(set_output(b, a), -EINVAL);
	EXPECT_EQ(set_output(c, a), -EINVAL);

	a0 = open_faults(ST_IDA, 0, 0);
	b0 = open_faults(ST_IDA, w.pid, 0);
	ASSERT_GE(a0, 0);
	ASSERT_GE(b0, 0);
	ASSERT_EQ(map_prot(&rb0, a0, 1, PROT_READ | PROT_WRITE), 0);
	EXPECT_EQ(set_output(b0, a0), 0);
	rb_unmap(&rb0);
	rb_unmap(&rb);
	close(a);
	close(b);
	close(c);
	close(a0);
	close(b0);
	worker_stop(&w);
	close(pfd[1]);
	pthread_join(th, NULL);
	close(pfd[0]);
}

/* Only events with the same clock share a buffer. */
TEST(set_output_clock_must_match)
{
	struct perf_event_attr at;
	struct perf_rb rb;
	int a, b, c, d;

	fault_attr(&at, ST_IDA);
	at.use_clockid = 1;
	at.clockid = CLOCK_MONOTONIC;
	a = open_attr(&at, 0, -1);
	b = open_attr(&at, 0, -1);
	at.clockid = CLOCK_MONOTONIC_RAW;
	c = open_attr(&at, 0, -1);
	d = open_faults(ST_IDA, 0, -1);
	ASSERT_GE(a, 0);
	ASSERT_GE(b, 0);
	ASSERT_GE(c, 0);
	ASSERT_GE(d, 0);
	ASSERT_EQ(map_prot(&rb, a, 1, PROT_READ | PROT_WRITE), 0);
	EXPECT_EQ(set_output(c, a), -EINVAL);
	EXPECT_EQ(set_output(d, a), -EINVAL);
	EXPECT_EQ(set_output(b, a), 0);
	rb_unmap(&rb);
	close(a);
	close(b);
	close(c);
	close(d);
}

/* Forward and backward events do not mix. */
TEST(set_output_direction_must_match)
{
	struct perf_event_attr at;
	struct perf_rb rb, rbb;
	int a, b, fa, fb;

	fault_attr(&at, ST_IDA);
	at.write_backward = 1;
	a = open_attr(&at, 0, -1);
	b = open_attr(&at, 0, -1);
	fa = open_faults(ST_IDA, 0, -1);
	fb = open_faults(ST_IDA, 0, -1);
	ASSERT_GE(a, 0);
	ASSERT_GE(b, 0);
	ASSERT_GE(fa, 0);
	ASSERT_GE(fb, 0);
	ASSERT_EQ(map_prot(&rbb, a, 1, PROT_READ), 0);
	ASSERT_EQ(map_prot(&rb, fa, 1, PROT_READ | PROT_WRITE), 0);
	EXPECT_EQ(set_output(fb, a), -EINVAL);
	EXPECT_EQ(set_output(b, fa), -EINVAL);
	EXPECT_EQ(set_output(b, a), 0);
	EXPECT_EQ(set_output(fb, fa), 0);
	rb_unmap(&rb);
	rb_unmap(&rbb);
	close(a);
	close(b);
	close(fa);
	close(fb);
}

/*
 * An event with its own mapping cannot be redirected, nor detached; so
 * redirecting the target back to the redirected event (a loop) fails.
 */
TEST(set_output_mapped_event_refused)
{
	struct perf_rb ra, rbb;
	int a, b;

	a = open_faults(ST_IDA, 0, -1);
	b = open_faults(ST_IDA, 0, -1);
	ASSERT_GE(a, 0);
	ASSERT_GE(b, 0);
	ASSERT_EQ(map_prot(&ra, a, 1, PROT_READ | PROT_WRITE), 0);
	ASSERT_EQ(map_prot(&rbb, b, 1, PROT_READ | PROT_WRITE), 0);
	EXPECT_EQ(set_output(b, a), -EINVAL);
	EXPECT_EQ(set_output(b, -1), -EINVAL);
	rb_unmap(&rbb);
	EXPECT_EQ(set_output(b, a), 0);
	EXPECT_EQ(set_output(a, b), -EINVAL);
	EXPECT_EQ(set_output(a, -1), -EINVAL);
	rb_unmap(&ra);
	close(a);
	close(b);
}

/*
 * A redirected event can be the target of another: the records of both
 * end up in the one mapped buffer.  A redirected (unmapped) event can be
 * redirected again elsewhere, or detached with -1.
 */
TEST(set_output_chain_retarget_detach)
{
	struct perf_rb ra, rc;
	int a, b, c;

	a = open_faults(ST_IDA, 0, -1);
	b = open_faults(ST_IDA, 0, -1);
	c = open_faults(ST_IDA, 0, -1);
	ASSERT_GE(a, 0);
	ASSERT_GE(b, 0);
	ASSERT_GE(c, 0);
	ASSERT_EQ(map_prot(&ra, a, 2, PROT_READ | PROT_WRITE), 0);
	ASSERT_EQ(set_output(b, a), 0);
	ASSERT_EQ(set_output(c, b), 0);
	faults(c, 4);
	faults(b, 3);
	ASSERT_GT(rb_fetch(&ra), 0);
	EXPECT_EQ(samples_of(&ra, c), (int)read_count(c));
	EXPECT_EQ(samples_of(&ra, b), (int)read_count(b));
	EXPECT_GE(read_count(c), 4);

	/* Move b to c's own buffer: c has to drop its redirection first. */
	ASSERT_EQ(set_output(c, -1), 0);
	ASSERT_EQ(map_prot(&rc, c, 2, PROT_READ | PROT_WRITE), 0);
	ASSERT_EQ(set_output(b, c), 0);
	rb_clear(&ra);
	faults(b, 2);
	EXPECT_EQ(rb_fetch(&ra), 0);
	ASSERT_GT(rb_fetch(&rc), 0);
	EXPECT_GE(samples_of(&rc, b), 2);

	/* Detached, b's samples go nowhere; b still counts. */
	ASSERT_EQ(set_output(b, -1), 0);
	rb_clear(&rc);
	faults(b, 2);
	EXPECT_EQ(rb_fetch(&rc), 0);
	EXPECT_EQ(rb_fetch(&ra), 0);
	EXPECT_GE(read_count(b), 3 + 2 + 2);
	rb_unmap(&rc);
	rb_unmap(&ra);
	close(a);
	close(b);
	close(c);
}

/*
 * An inherited per-task event cannot be mapped, but it can be redirected
 * to a mapped event of its task: then the samples of the children it was
 * inherited by land in that buffer.
 */
TEST(set_output_inherited_event)
{
	struct perf_event_attr at;
	struct perf_event_header *h;
	struct perf_rb rb;
	struct sample smp;
	int a, b, kids = 0;
	pid_t pid;

	a = open_minflt(ST_ITA, 0, -1, -1, 0);
	fault_attr(&at, ST_ITA);
	at.inherit = 1;
	at.disabled = 0;
	b = open_attr(&at, 0, -1);
	ASSERT_GE(a, 0);
	ASSERT_GE(b, 0);
	ASSERT_EQ(try_map_pages(b, 1), -EINVAL);
	ASSERT_EQ(map_prot(&rb, a, 4, PROT_READ | PROT_WRITE), 0);
	ASSERT_EQ(set_output(b, a), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		touch_pages(10);
		_exit(0);
	}
	ASSERT_EQ(reap_child(pid), 0);
	ev_disable(b);
	ASSERT_GT(rb_fetch(&rb), 0)
		TH_LOG("count %llu head %llu",
		       (unsigned long long)read_count(b),
		       (unsigned long long)rb_head(&rb));
	while ((h = rb_next(&rb))) {
		smp = parse_sample(h, ST_ITA);
		if (smp.ok && smp.pid == (uint32_t)pid)
			kids++;
	}
	EXPECT_GE(kids, 10);
	rb_unmap(&rb);
	close(b);
	close(a);
}

/*
 * PERF_FLAG_FD_OUTPUT redirects the new event to group_fd's buffer at
 * open (and makes it a group member unless PERF_FLAG_FD_NO_GROUP); if
 * group_fd has no buffer, the open fails with EINVAL.
 */
TEST(fd_output_flag)
{
	struct perf_event_attr at;
	struct perf_rb rb;
	uint64_t v[8];
	int a, b, c, d;

	fault_attr(&at, ST_IDA);
	at.read_format = F_GRP;
	a = open_attr(&at, 0, -1);
	ASSERT_GE(a, 0);
	fault_attr(&at, ST_IDA);
	b = sys_perf_event_open(&at, 0, -1, a, PERF_FLAG_FD_OUTPUT);
	EXPECT_EQ(b, -1);
	EXPECT_EQ(errno, EINVAL);

	ASSERT_EQ(map_prot(&rb, a, 2, PROT_READ | PROT_WRITE), 0);
	b = open_minflt(ST_IDA, 0, -1, a, PERF_FLAG_FD_OUTPUT);
	ASSERT_GE(b, 0);
	c = sys_perf_event_open(&at, 0, -1, a,
				PERF_FLAG_FD_OUTPUT | PERF_FLAG_FD_NO_GROUP);
	ASSERT_GE(c, 0);
	/* A redirected event (no mapping of its own) is a valid target. */
	d = sys_perf_event_open(&at, 0, -1, c, PERF_FLAG_FD_OUTPUT |
				PERF_FLAG_FD_NO_GROUP);
	ASSERT_GE(d, 0);
	ASSERT_EQ(read(a, v, sizeof(v)), 3 * 8);
	EXPECT_EQ(v[0], 2);	/* a and b; c and d are on their own */
	ev_enable(b);
	faults(a, 3);		/* a and b, on the same faults */
	ev_disable(b);
	faults(c, 3);
	faults(d, 3);
	ASSERT_GT(rb_fetch(&rb), 0);
	EXPECT_GE(samples_of(&rb, a), 3);
	EXPECT_GE(samples_of(&rb, b), 3);
	EXPECT_GE(samples_of(&rb, c), 3);
	EXPECT_GE(samples_of(&rb, d), 3);
	rb_unmap(&rb);
	close(d);
	close(c);
	close(b);
	close(a);
}

/*
 * mmap() of a redirected event with the target's size maps the target's
 * buffer (same data, same head); another size is EINVAL.
 */
TEST(mmap_after_set_output)
{
	struct perf_rb ra, rb;
	int a, b;

	a = open_faults(ST_IDA, 0, -1);
	b = open_faults(ST_IDA, 0, -1);
	ASSERT_GE(a, 0);
	ASSERT_GE(b, 0);
	ASSERT_EQ(map_prot(&ra, a, 2, PROT_READ | PROT_WRITE), 0);
	ASSERT_EQ(set_output(b, a), 0);
	EXPECT_EQ(try_map_pages(b, 1), -EINVAL);
	EXPECT_EQ(try_map_pages(b, 4), -EINVAL);
	ASSERT_EQ(map_prot(&rb, b, 2, PROT_READ | PROT_WRITE), 0);
	faults(b, 3);
	EXPECT_GE(rb_head(&ra), 3 * 24);
	EXPECT_EQ(rb_head(&ra), rb_head(&rb));
	EXPECT_EQ(memcmp(ra.data, rb.data, rb_head(&ra)), 0);
	/* Now b has a mapping of its own: it cannot be detached. */
	EXPECT_EQ(set_output(b, -1), -EINVAL);
	rb_unmap(&rb);
	rb_unmap(&ra);
	close(a);
	close(b);
}

/*
 * Unmapping the target's last mapping detaches every event redirected to
 * it: their records go nowhere, they cannot be redirected there again
 * until it is mapped anew, and the new buffer is a fresh one.
 */
TEST(munmap_target_detaches_redirected)
{
	struct perf_rb ra;
	int a, b;

	a = open_faults(ST_IDA, 0, -1);
	b = open_faults(ST_IDA, 0, -1);
	ASSERT_GE(a, 0);
	ASSERT_GE(b, 0);
	ASSERT_EQ(map_prot(&ra, a, 1, PROT_READ | PROT_WRITE), 0);
	ASSERT_EQ(set_output(b, a), 0);
	faults(b, 2);
	EXPECT_GE(rb_head(&ra), 48);
	rb_unmap(&ra);
	faults(b, 2);
	EXPECT_EQ(ioctl(b, PERF_EVENT_IOC_PAUSE_OUTPUT, 1), -1);
	EXPECT_EQ(set_output(b, a), -EINVAL);
	ASSERT_EQ(map_prot(&ra, a, 1, PROT_READ | PROT_WRITE), 0);
	EXPECT_EQ(rb_head(&ra), 0);
	faults(b, 2);
	EXPECT_EQ(rb_head(&ra), 0);
	ASSERT_EQ(set_output(b, a), 0);
	faults(b, 2);
	EXPECT_GE(rb_head(&ra), 48);
	rb_unmap(&ra);
	close(a);
	close(b);
}

/*
 * Closing the target's fd does not tear down its buffer while it is
 * mapped: redirected events keep writing into the mapping.
 */
TEST(close_target_keeps_mapping_alive)
{
	struct perf_rb ra;
	uint64_t head;
	int a, b;

	a = open_faults(ST_IDA, 0, -1);
	b = open_faults(ST_IDA, 0, -1);
	ASSERT_GE(a, 0);
	ASSERT_GE(b, 0);
	ASSERT_EQ(map_prot(&ra, a, 1, PROT_READ | PROT_WRITE), 0);
	ASSERT_EQ(set_output(b, a), 0);
	close(a);
	faults(b, 3);
	head = rb_head(&ra);
	EXPECT_GE(head, 3 * 24);
	ASSERT_GT(rb_fetch(&ra), 0);
	EXPECT_EQ(samples_of(&ra, b), (int)read_count(b));
	rb_unmap(&ra);
	faults(b, 3);
	close(b);
}

/*
 * A LOST record is written by whichever event writes next, with that
 * event's id: samples of b lost in a's full buffer are reported with a's
 * id when a writes first.
 */
TEST(lost_record_has_writers_id)
{
	struct perf_event_attr at;
	uint64_t head, lb;
	struct perf_rb rb;
	struct rec r[4];
	int a, b;

	fault_attr(&at, ST_IDA);
	at.read_format = F_LOST;
	a = open_attr(&at, 0, -1);
	b = open_attr(&at, 0, -1);
	ASSERT_GE(a, 0);
	ASSERT_GE(b, 0);
	ASSERT_EQ(map_prot(&rb, a, 1, PROT_READ | PROT_WRITE), 0);
	ASSERT_EQ(set_output(b, a), 0);
	faults(b, 200);
	head = rb_head(&rb);
	EXPECT_EQ(head, 170 * 24);
	lb = read_lost(b);
	EXPECT_EQ(lb, read_cnt(b) - 170);
	EXPECT_EQ(read_lost(a), 0);
	__atomic_store_n(&rb.meta->data_tail, head, __ATOMIC_RELEASE);
	faults(a, 1);
	ASSERT_EQ(peek(&rb, head, rb_head(&rb), r, 4), 2);
	EXPECT_EQ(r[0].h.type, PERF_RECORD_LOST);
	EXPECT_EQ(parse_lost(&r[0].h).id, event_id(a));
	EXPECT_EQ(parse_lost(&r[0].h).lost, lb);
	EXPECT_EQ(parse_sample(&r[1].h, ST_IDA).ident, event_id(a));
	rb_unmap(&rb);
	close(a);
	close(b);
}

TEST_HARNESS_MAIN
