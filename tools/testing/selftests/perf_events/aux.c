// SPDX-License-Identifier: GPL-2.0
/*
 * The AUX area of the mmap ring buffer, as user space sees it:
 *
 *  - mapping it: aux_offset and aux_size in the control page, then 2^n
 *    pages at that offset; the errnos of a bad offset, size or PMU;
 *  - PERF_RECORD_AUX (where each piece of trace went, its flags),
 *    PERF_RECORD_ITRACE_START and PERF_RECORD_AUX_OUTPUT_HW_ID;
 *  - the tail: a full area truncates the trace and disables the event,
 *    until user space moves aux_tail;
 *  - snapshot areas (mapped read-only), written round and round;
 *  - wakeups at aux_watermark; unmapping the area while the event runs.
 *
 * The tracer is the perf_test_aux PMU of our test kernels: each time its
 * event stops it writes attr.config bytes of 64-bit words, each its own
 * running position in the area divided by 8.  An event of the calling
 * task stops whenever the task is scheduled out, so a test may see more
 * runs than it made; it checks what holds for any number of them.
 * Without that PMU (stock, or a kernel without the test PMUs), only the
 * errno tests of a PMU without an AUX area run.
 */
#include "../kselftest_harness.h"
#include <poll.h>
#include "aux_util.h"

#define HW_ID		0x7e57	/* what perf_test_aux reports */

static int aux_type(void)
{
	long type;

	if (read_file_long("/sys/bus/event_source/devices/perf_test_aux/type",
			   &type))
		return -1;
	return type;
}

/* A perf_test_aux event of this task writing @bytes a run; -errno. */
static int open_tracer(int type, uint64_t bytes, uint32_t watermark)
{
	struct perf_event_attr a = {
		.size = sizeof(a),
		.type = type,
		.config = bytes,
		.disabled = 1,
		.sample_id_all = 1,
		.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_IDENTIFIER,
		.aux_watermark = watermark,
	};
	int fd = sys_perf_event_open(&a, 0, -1, -1, 0);

	return fd < 0 ? -errno : fd;
}

/* One run of the tracer: it writes when it stops. */
static void run_once(int fd)
{
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
}

/*
 * Every word in the area at running positions [@from, @to) holds its
 * position / 8.  Returns the first position that does not, or @to.
 */
static uint64_t first_bad_word(struct aux_map *m, uint64_t from, uint64_t to)
{
	uint64_t pos;

	for (pos = from; pos < to; pos += 8)
		if (m->aux[(pos & (m->size - 1)) / 8] != pos / 8)
			return pos;
	return to;
}

/*
 * Without an AUX area in the PMU: EINVAL for a mapping that disagrees
 * with the control page, EOPNOTSUPP for one that agrees (upstream's
 * order: the checks of the mapping first).
 */
TEST(no_aux_area_errnos)
{
	struct perf_rb rb;
	uint64_t off = (DATA_PAGES + 1) * psz;
	int fd = open_faults(ST_IT, 0, -1);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(rb_map(&rb, fd, DATA_PAGES), 0);
	rb.meta->aux_offset = off;
	rb.meta->aux_size = 2 * psz;
	/* Another size than aux_size, then not a power of two pages. */
	EXPECT_EQ(try_mmap(fd, psz, PROT_READ, MAP_SHARED, off), -EINVAL);
	rb.meta->aux_size = 3 * psz;
	EXPECT_EQ(try_mmap(fd, 3 * psz, PROT_READ, MAP_SHARED, off), -EINVAL);
	/* An offset inside the data pages, or not aux_offset. */
	rb.meta->aux_size = 2 * psz;
	rb.meta->aux_offset = DATA_PAGES * psz;
	EXPECT_EQ(try_mmap(fd, 2 * psz, PROT_READ, MAP_SHARED, DATA_PAGES * psz),
		  -EINVAL);
	rb.meta->aux_offset = off;
	EXPECT_EQ(try_mmap(fd, 2 * psz, PROT_READ, MAP_SHARED, off + psz), -EINVAL);
	/* Private: EINVAL before anything else. */
	EXPECT_EQ(try_mmap(fd, 2 * psz, PROT_READ, MAP_PRIVATE, off), -EINVAL);
	/* All agree: the software PMU has no AUX area. */
	EXPECT_EQ(try_mmap(fd, 2 * psz, PROT_READ, MAP_SHARED, off), -EOPNOTSUPP);
	EXPECT_EQ(try_mmap(fd, 2 * psz, PROT_READ | PROT_WRITE, MAP_SHARED, off),
		  -EOPNOTSUPP);
	rb_unmap(&rb);
	close(fd);
}

/* The tests of the tracer skip without it. */
FIXTURE(tracer) {
	int type;
};

FIXTURE_SETUP(tracer)
{
	self->type = aux_type();
	if (self->type < 0)
		SKIP(return, "no perf_test_aux PMU (a test PMU of this core only)");
}

FIXTURE_TEARDOWN(tracer)
{
}

/* The area's mapping rules, on a PMU that has one. */
TEST_F(tracer, aux_mapping_rules)
{
	int fd;
	struct aux_map m;
	uint64_t off;

	fd = open_tracer(self->type, 4096, 0);
	ASSERT_GE(fd, 0);
	/* Before the ring buffer: EINVAL. */
	EXPECT_EQ(try_mmap(fd, 4 * psz, PROT_READ, MAP_SHARED, 9 * psz), -EINVAL);
	ASSERT_EQ(map_aux(&m, fd, 4, PROT_READ | PROT_WRITE), 0);
	off = m.rb.meta->aux_offset;
	EXPECT_EQ(m.rb.meta->aux_head, 0);
	EXPECT_EQ(m.rb.meta->aux_tail, 0);
	/* A second mapping of the same area works; another size does not. */
	EXPECT_EQ(try_mmap(fd, 4 * psz, PROT_READ, MAP_SHARED, off), 0);
	m.rb.meta->aux_size = 8 * psz;
	EXPECT_EQ(try_mmap(fd, 8 * psz, PROT_READ, MAP_SHARED, off), -EINVAL);
	/* Nor does another offset for the same area. */
	m.rb.meta->aux_size = 4 * psz;
	m.rb.meta->aux_offset = off + 4 * psz;
	EXPECT_EQ(try_mmap(fd, 4 * psz, PROT_READ, MAP_SHARED, off + 4 * psz),
		  -EINVAL);
	m.rb.meta->aux_offset = off;
	unmap_aux(&m);
	/* Unmapped, it can be mapped again, with another size. */
	ASSERT_EQ(map_aux(&m, fd, 2, PROT_READ | PROT_WRITE), 0);
	EXPECT_EQ(m.rb.meta->aux_size, 2 * psz);
	unmap_aux(&m);
	close(fd);
}

/*
 * Runs of the tracer: PERF_RECORD_AUX records one after the other from
 * offset 0, each a whole run, no flags; the words are where the records
 * say; aux_head is their end and the count; ITRACE_START names this
 * task, AUX_OUTPUT_HW_ID comes once.
 */
TEST_F(tracer, aux_records_and_data)
{
	int fd, n, i, starts = 0, ids = 0;
	struct perf_event_header *h;
	struct aux_rec r[64];
	struct aux_map m;
	uint64_t end = 0;

	fd = open_tracer(self->type, 1024, 0);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(map_aux(&m, fd, 4, PROT_READ | PROT_WRITE), 0);
	for (i = 0; i < 3; i++)
		run_once(fd);
	n = aux_records(&m, r, ARRAY_SIZE(r));
	ASSERT_GE(n, 3);
	ASSERT_LE(n, ARRAY_SIZE(r));
	for (i = 0; i < n; i++) {
		EXPECT_EQ(r[i].offset, end) TH_LOG("record %d", i);
		EXPECT_EQ(r[i].size, 1024) TH_LOG("record %d", i);
		EXPECT_EQ(r[i].flags, 0) TH_LOG("record %d", i);
		end += r[i].size;
	}
	EXPECT_EQ(aux_head(&m), end);
	EXPECT_EQ(read_count(fd), end);
	EXPECT_EQ(first_bad_word(&m, 0, end), end);

	rb_rewind(&m.rb);
	while ((h = rb_next(&m.rb))) {
		struct rec_cur c = rc_init(h);

		if (h->type == PERF_RECORD_ITRACE_START) {
			EXPECT_EQ(rc_u32(&c), getpid());
			EXPECT_EQ(rc_u32(&c), gettid_());
			starts++;
		} else if (h->type == PERF_RECORD_AUX_OUTPUT_HW_ID) {
			EXPECT_EQ(rc_u64(&c), HW_ID);
			ids++;
		}
	}
	/* One ITRACE_START per schedule in, one record per stop. */
	EXPECT_EQ(starts, n);
	EXPECT_EQ(ids, 1);
	unmap_aux(&m);
	close(fd);
}

/*
 * A full area: the run that does not fit writes what does, flagged
 * TRUNCATED, and the event is disabled.  The core keeps a byte free, so
 * the area is full 8 bytes short of its size (a word does not fit in 7).
 * Enabled again, the event writes nothing while there is no room.  Once
 * user space moves aux_tail, the trace goes on where it stopped,
 * wrapping round the area.
 */
TEST_F(tracer, full_area_truncates_and_disables)
{
	int fd, n, i;
	struct aux_rec r[8];
	struct aux_map m;
	uint64_t full;

	fd = open_tracer(self->type, 3 * 4096, 0);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(map_aux(&m, fd, 16384 / psz, PROT_READ | PROT_WRITE), 0);
	full = m.size - 8;
	/* Runs until one is cut short: one fits, the second does not. */
	for (i = 0; i < 3 && aux_head(&m) < full; i++)
		run_once(fd);
	EXPECT_EQ(aux_head(&m), full);
	EXPECT_EQ(read_count(fd), full);
	n = aux_records(&m, r, ARRAY_SIZE(r));
	ASSERT_GE(n, 2);
	ASSERT_LE(n, ARRAY_SIZE(r));
	EXPECT_EQ(r[n - 1].flags, PERF_AUX_FLAG_TRUNCATED);
	EXPECT_EQ(r[n - 1].offset + r[n - 1].size, full);
	EXPECT_LT(r[n - 1].size, 3 * 4096);
	for (i = 0; i < n - 1; i++)
		EXPECT_EQ(r[i].flags, 0) TH_LOG("record %d", i);
	EXPECT_EQ(first_bad_word(&m, 0, full), full);

	/* No room: enabling writes nothing. */
	run_once(fd);
	EXPECT_EQ(aux_head(&m), full);
	EXPECT_EQ(read_count(fd), full);

	/* Room again: the next run wraps round. */
	__atomic_store_n(&m.rb.meta->aux_tail, full, __ATOMIC_RELEASE);
	run_once(fd);
	EXPECT_GE(aux_head(&m), full + 3 * 4096);
	EXPECT_EQ(first_bad_word(&m, full, full + 3 * 4096), full + 3 * 4096);
	EXPECT_EQ(m.aux[0], m.size / 8);
	unmap_aux(&m);
	close(fd);
}

/*
 * A snapshot area (mapped read-only): every run is written whole, round
 * and round; aux_head is where the writing got to, the area holds the
 * last size bytes; the records say OVERWRITE and give the head after
 * each run.
 */
TEST_F(tracer, snapshot_area_overwrites)
{
	int fd, n, i;
	uint64_t head, total = 0;
	struct aux_rec r[64];
	struct aux_map m;

	fd = open_tracer(self->type, 3 * 4096, 0);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(map_aux(&m, fd, 8192 / psz, PROT_READ), 0);
	for (i = 0; i < 2; i++)
		run_once(fd);
	head = aux_head(&m);
	EXPECT_EQ(read_count(fd), head);
	EXPECT_GE(head, 2 * 3 * 4096);
	EXPECT_EQ(first_bad_word(&m, head - m.size, head), head);
	n = aux_records(&m, r, ARRAY_SIZE(r));
	ASSERT_GE(n, 2);
	ASSERT_LE(n, ARRAY_SIZE(r));
	for (i = 0; i < n; i++) {
		total += r[i].size;
		EXPECT_EQ(r[i].flags, PERF_AUX_FLAG_OVERWRITE) TH_LOG("record %d", i);
		EXPECT_EQ(r[i].offset, total) TH_LOG("record %d", i);
	}
	EXPECT_EQ(total, head);
	unmap_aux(&m);
	close(fd);
}

/* A wakeup each time aux_head crosses a multiple of aux_watermark. */
TEST_F(tracer, wakeup_at_watermark)
{
	int fd, i;
	uint64_t before, after;
	struct aux_map m;
	struct pollfd p;

	fd = open_tracer(self->type, 1024, 4096);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(map_aux(&m, fd, 16384 / psz, PROT_READ | PROT_WRITE), 0);
	for (i = 0; i < 8; i++) {
		before = aux_head(&m);
		run_once(fd);
		after = aux_head(&m);
		/* Read the area's data as a reader would: its tail follows. */
		__atomic_store_n(&m.rb.meta->aux_tail, after, __ATOMIC_RELEASE);
		p.fd = fd;
		p.events = POLLIN;
		p.revents = 0;
		EXPECT_EQ(poll(&p, 1, 0), after / 4096 != before / 4096)
			TH_LOG("run %d: aux_head %llu -> %llu", i,
			       (unsigned long long)before,
			       (unsigned long long)after);
	}
	unmap_aux(&m);
	close(fd);
}

/*
 * Unmapping the area while the event runs: the run so far is written
 * and recorded first; then the event writes nothing, and the area can
 * be mapped again.
 */
TEST_F(tracer, unmap_while_tracing)
{
	int fd, n;
	struct aux_rec r[64];
	struct aux_map m;
	uint64_t count;

	fd = open_tracer(self->type, 1024, 0);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(map_aux(&m, fd, 4, PROT_READ | PROT_WRITE), 0);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	munmap(m.aux, m.size);
	m.aux = NULL;
	count = read_count(fd);
	EXPECT_GE(count, 1024);
	n = aux_records(&m, r, ARRAY_SIZE(r));
	EXPECT_EQ(n * 1024, count);
	/* No area: runs write nothing. */
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	run_once(fd);
	EXPECT_EQ(read_count(fd), count);
	/* A new area goes on from the head (as upstream's does). */
	m.rb.meta->aux_size = 4 * psz;
	m.aux = mmap(NULL, 4 * psz, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		     m.rb.meta->aux_offset);
	ASSERT_NE(m.aux, MAP_FAILED);
	m.size = 4 * psz;
	EXPECT_EQ(aux_head(&m), count);
	run_once(fd);
	EXPECT_GE(aux_head(&m), count + 1024);
	EXPECT_EQ(first_bad_word(&m, count, aux_head(&m)), aux_head(&m));
	unmap_aux(&m);
	close(fd);
}

/*
 * Closing the event with its area mapped keeps it (the mappings hold the
 * file); unmapping the area then stops the running event, whose run is
 * recorded before the area goes.
 */
TEST_F(tracer, close_before_unmap)
{
	int fd, n;
	struct aux_rec r[64];
	struct aux_map m;

	fd = open_tracer(self->type, 1024, 0);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(map_aux(&m, fd, 4, PROT_READ | PROT_WRITE), 0);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	close(fd);
	munmap(m.aux, m.size);
	m.aux = NULL;
	n = aux_records(&m, r, ARRAY_SIZE(r));
	ASSERT_GE(n, 1);
	EXPECT_EQ(r[0].offset, 0);
	EXPECT_EQ(r[0].size, 1024);
	EXPECT_EQ(r[n - 1].offset + r[n - 1].size, aux_head(&m));
	unmap_aux(&m);
}

/* Bad configs of the test tracer itself: its own rules. */
TEST_F(tracer, tracer_config_errnos)
{
	EXPECT_EQ(open_tracer(self->type, 0, 0), -EINVAL);
	EXPECT_EQ(open_tracer(self->type, 12, 0), -EINVAL);
}

TEST_HARNESS_MAIN
