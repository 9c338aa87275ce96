// SPDX-License-Identifier: GPL-2.0
/*
 * Mapping the perf mmap ring buffer, as user space sees it:
 *
 *  - mmap() rules: 1 + 2^n pages (or the control page alone), MAP_SHARED,
 *    offset 0 (non-zero offsets are for AUX buffers), one buffer size per
 *    event (a second mapping shares the buffer), no inherited per-task
 *    buffers, no split, no growth (mremap may only move it), not copied
 *    by fork, data pages not writable, overwrite mode fixed at mmap();
 *  - the control page right after mmap() (version, capabilities, times,
 *    size, data_offset/data_size) and its seqlock;
 *  - munmap() and close() while mapped;
 *  - mlock accounting against perf_event_mlock_kb (per user, scaled by the
 *    online CPUs) and RLIMIT_MEMLOCK.
 *
 * The control-page-only buffer comes last: a kernel that gets it wrong
 * may not be good for much afterwards.
 */
#include "../kselftest_harness.h"
#include <pthread.h>
#include <stddef.h>
#include "perf_worker.h"
#include "rb_util.h"

/* ------------------------------------------------------------------ */
/* mmap() rules                                                        */
/* ------------------------------------------------------------------ */

/* 1 + 2^n pages map, and data_size is 2^n pages. */
TEST(mmap_power_of_two_sizes)
{
	struct perf_rb rb;
	int fd, n;

	fd = open_faults(ST_IT, 0, -1);
	ASSERT_GE(fd, 0);
	for (n = 0; n <= 6; n++) {
		ASSERT_EQ(map_prot(&rb, fd, 1 << n, PROT_READ | PROT_WRITE), 0)
			TH_LOG("1 + %d pages", 1 << n);
		EXPECT_EQ(rb.meta->data_size, (uint64_t)(1 << n) * psz);
		EXPECT_EQ(rb.meta->data_offset, (uint64_t)psz);
		rb_unmap(&rb);
	}
	close(fd);
}

/* Data areas that are not a power of two pages, and length 0: EINVAL. */
TEST(mmap_bad_sizes)
{
	static const int bad[] = { 3, 5, 6, 7, 9, 12, 15, 24 };
	unsigned int i;
	int fd;

	fd = open_faults(ST_IT, 0, -1);
	ASSERT_GE(fd, 0);
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		EXPECT_EQ(try_map_pages(fd, bad[i]), -EINVAL)
			TH_LOG("1 + %d pages", bad[i]);
	EXPECT_EQ(try_mmap(fd, 0, PROT_READ, MAP_SHARED, 0), -EINVAL);
	/* The event is still mappable after the failures. */
	EXPECT_EQ(try_map_pages(fd, 2), 0);
	close(fd);
}

/*
 * The length is rounded up to whole pages before the kernel sees it:
 * one byte past one page maps two pages (one data page); one byte past
 * three pages asks for four (three data pages) and fails.
 */
TEST(mmap_length_rounded_to_pages)
{
	struct perf_event_mmap_page *pg;
	int fd;

	fd = open_faults(ST_IT, 0, -1);
	ASSERT_GE(fd, 0);
	pg = mmap(NULL, psz + 1, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(pg, MAP_FAILED);
	EXPECT_EQ(pg->data_size, (uint64_t)psz);
	munmap(pg, 2 * psz);
	EXPECT_EQ(try_mmap(fd, 2 * psz + 1, PROT_READ, MAP_SHARED, 0), 0);
	EXPECT_EQ(try_mmap(fd, 3 * psz + 1, PROT_READ, MAP_SHARED, 0), -EINVAL);
	close(fd);
}

TEST(mmap_private_einval)
{
	int fd = open_faults(ST_IT, 0, -1);

	ASSERT_GE(fd, 0);
	EXPECT_EQ(try_mmap(fd, 2 * psz, PROT_READ | PROT_WRITE, MAP_PRIVATE, 0),
		  -EINVAL);
	EXPECT_EQ(try_mmap(fd, 2 * psz, PROT_READ, MAP_PRIVATE, 0), -EINVAL);
	close(fd);
}

/*
 * A non-zero offset asks for the AUX area: EINVAL before the buffer
 * exists, and EINVAL for a software event whose buffer has no AUX area.
 */
TEST(mmap_offset_einval)
{
	struct perf_rb rb;
	int fd = open_faults(ST_IT, 0, -1);

	ASSERT_GE(fd, 0);
	EXPECT_EQ(try_mmap(fd, 2 * psz, PROT_READ, MAP_SHARED, psz), -EINVAL);
	ASSERT_EQ(map_prot(&rb, fd, 2, PROT_READ | PROT_WRITE), 0);
	EXPECT_EQ(try_mmap(fd, psz, PROT_READ, MAP_SHARED, 3 * psz), -EINVAL);
	EXPECT_EQ(try_mmap(fd, 2 * psz, PROT_READ, MAP_SHARED, psz), -EINVAL);
	EXPECT_EQ(rb.meta->aux_offset, 0);
	EXPECT_EQ(rb.meta->aux_size, 0);
	rb_unmap(&rb);
	close(fd);
}

/* Inherited per-task events (cpu == -1) cannot be mapped; per-CPU ones can. */
TEST(mmap_inherit_rules)
{
	struct perf_event_attr a;
	int fd;

	fault_attr(&a, ST_IT);
	a.inherit = 1;
	fd = open_attr(&a, 0, -1);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(try_map_pages(fd, 1), -EINVAL);
	close(fd);
	fd = open_attr(&a, 0, 0);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(try_map_pages(fd, 1), 0);
	close(fd);
}

/* A second mapping of the same size shares the buffer; another size fails. */
TEST(mmap_twice_shares_buffer)
{
	struct perf_rb a, b;
	struct rec r[8];
	int fd;

	fd = open_faults(ST_ITA, 0, -1);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(map_prot(&a, fd, 2, PROT_READ | PROT_WRITE), 0);
	ASSERT_EQ(map_prot(&b, fd, 2, PROT_READ | PROT_WRITE), 0);
	EXPECT_NE(a.meta, b.meta);
	EXPECT_EQ(try_map_pages(fd, 1), -EINVAL);
	EXPECT_EQ(try_map_pages(fd, 4), -EINVAL);
	EXPECT_EQ(try_map_pages(fd, 0), -EINVAL);
	faults(fd, 3);
	EXPECT_NE(a.meta->data_head, 0);
	EXPECT_EQ(a.meta->data_head, b.meta->data_head);
	EXPECT_EQ(memcmp(a.data, b.data, a.data_size), 0);
	/* data_tail written through one mapping is read by the other. */
	a.meta->data_tail = 32;
	EXPECT_EQ(b.meta->data_tail, 32);
	EXPECT_GE(peek(&b, 0, b.meta->data_head, r, 8), 3);
	rb_unmap(&a);
	/* The other mapping keeps the buffer alive and written. */
	faults(fd, 1);
	EXPECT_EQ(peek(&b, 0, b.meta->data_head, r, 8),
		  (int)(b.meta->data_head / 32));
	EXPECT_GE(b.meta->data_head, 4 * 32);
	rb_unmap(&b);
	close(fd);
}

/*
 * The first mapping decides the mode: a writable second mapping of a
 * buffer first mapped read-only does not make the kernel honour
 * data_tail.
 */
TEST(mmap_second_mapping_keeps_mode)
{
	struct perf_rb ro, rw;
	int fd = open_faults(ST_IT, 0, -1);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(map_prot(&ro, fd, 1, PROT_READ), 0);
	ASSERT_EQ(map_prot(&rw, fd, 1, PROT_READ | PROT_WRITE), 0);
	rw.meta->data_tail = 0;
	faults(fd, 300);
	EXPECT_EQ(rb_head(&rw), read_count(fd) * 24);
	EXPECT_GT(rb_head(&rw), rw.data_size);
	rb_unmap(&rw);
	rb_unmap(&ro);
	close(fd);
}

/* Mappings cannot be split: a partial munmap() fails and changes nothing. */
TEST(mmap_no_partial_munmap)
{
	struct perf_rb rb;
	int fd = open_faults(ST_IT, 0, -1);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(map_prot(&rb, fd, 2, PROT_READ | PROT_WRITE), 0);
	EXPECT_EQ(munmap(rb.meta, psz), -1);
	EXPECT_EQ(errno, EINVAL);
	EXPECT_EQ(munmap(rb.data + psz, psz), -1);
	EXPECT_EQ(errno, EINVAL);
	faults(fd, 2);
	EXPECT_EQ(rb.meta->data_head, read_count(fd) * 24);
	EXPECT_GE(rb.meta->data_head, 48);
	rb_unmap(&rb);
	close(fd);
}

/*
 * mremap(): the mapping can move (and keeps working at its new place),
 * but it cannot grow (VM_DONTEXPAND: EFAULT) nor shrink (no split: EINVAL).
 */
TEST(mmap_mremap)
{
	struct perf_rb rb;
	size_t len = 3 * psz;
	void *dst, *m;
	int fd = open_faults(ST_IT, 0, -1);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(map_prot(&rb, fd, 2, PROT_READ | PROT_WRITE), 0);
	m = mremap(rb.meta, len, len + 2 * psz, MREMAP_MAYMOVE);
	EXPECT_EQ(m, MAP_FAILED);
	EXPECT_EQ(errno, EFAULT);
	EXPECT_EQ(mremap(rb.meta, len, 2 * psz, 0), MAP_FAILED);
	EXPECT_EQ(errno, EINVAL);

	dst = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(dst, MAP_FAILED);
	m = mremap(rb.meta, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, dst);
	ASSERT_EQ(m, dst) TH_LOG("mremap: %s", strerror(errno));
	rb.meta = m;
	rb.data = (unsigned char *)m + psz;
	EXPECT_EQ(rb.meta->data_size, 2 * (uint64_t)psz);
	faults(fd, 3);
	EXPECT_EQ(rb_head(&rb), read_count(fd) * 24);
	EXPECT_GE(rb_head(&rb), 72);
	EXPECT_EQ(poll_all(fd, 0) & POLLHUP, 0);
	rb_unmap(&rb);
	/* That was the only mapping: the buffer is gone. */
	EXPECT_EQ(poll_all(fd, 0), POLLHUP);
	close(fd);
}

/*
 * Whether the kernel honours data_tail is decided at mmap() time: a
 * read-only mapping made writable later with mprotect() still overwrites.
 */
TEST(mmap_mprotect_keeps_overwrite)
{
	struct perf_rb rb;
	int fd = open_faults(ST_IT, 0, -1);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(map_prot(&rb, fd, 1, PROT_READ), 0);
	ASSERT_EQ(mprotect(rb.meta, rb.map_size, PROT_READ | PROT_WRITE), 0);
	rb.meta->data_tail = 0;
	faults(fd, 300);
	EXPECT_EQ(rb_head(&rb), read_count(fd) * 24);
	EXPECT_GT(rb_head(&rb), rb.data_size);
	rb_unmap(&rb);
	close(fd);
}

/* fork() does not copy the mapping (VM_DONTCOPY). */
TEST(mmap_not_inherited_by_fork)
{
	struct perf_rb rb;
	pid_t pid;
	int fd = open_faults(ST_IT, 0, -1);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(map_prot(&rb, fd, 1, PROT_READ | PROT_WRITE), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0)
		_exit(msync(rb.meta, rb.map_size, MS_ASYNC) == -1 &&
		      errno == ENOMEM ? 0 : 1);
	EXPECT_EQ(reap_child(pid), 0);
	EXPECT_EQ(msync(rb.meta, rb.map_size, MS_ASYNC), 0);
	rb_unmap(&rb);
	close(fd);
}

/* Another process mapping the same event sees the same buffer. */
TEST(mmap_shared_across_processes)
{
	struct perf_rb rb;
	uint64_t head;
	pid_t pid;
	int fd = open_faults(ST_IT, 0, -1);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(map_prot(&rb, fd, 1, PROT_READ | PROT_WRITE), 0);
	faults(fd, 5);
	head = rb.meta->data_head;
	ASSERT_GE(head, 5 * 24);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		struct perf_rb c;

		if (map_prot(&c, fd, 1, PROT_READ))
			_exit(1);
		if (c.meta->data_head != head ||
		    memcmp(c.data, rb.data, head))
			_exit(2);
		/* A different size is refused here too. */
		if (try_map_pages(fd, 2) != -EINVAL)
			_exit(3);
		_exit(0);
	}
	EXPECT_EQ(reap_child(pid), 0);
	rb_unmap(&rb);
	close(fd);
}

/* Data pages are never writable: a store there raises SIGBUS. */
TEST_SIGNAL(data_page_write_sigbus, SIGBUS)
{
	struct perf_event_mmap_page *pg;
	int fd = open_faults(ST_IT, 0, -1);

	ASSERT_GE(fd, 0);
	pg = mmap(NULL, 2 * psz, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(pg, MAP_FAILED);
	pg->data_tail = 0;
	((volatile char *)pg)[psz] = 1;
	TH_LOG("the store to the data page did not fault");
}

/*
 * An absurdly large buffer fails with ENOMEM: its page array is bigger
 * than the largest allocation, which is checked before trying (no
 * allocation warning, so the kernel is not tainted by one).
 */
TEST(mmap_huge_enomem)
{
	int fd = open_faults(ST_IT, 0, -1);
	long taint = taint_wd();

	ASSERT_GE(fd, 0);
	EXPECT_EQ(try_mmap(fd, (size_t)(1 + (1 << 19)) * psz, PROT_READ,
			   MAP_SHARED, 0), -ENOMEM);
	EXPECT_EQ(taint_wd(), taint);
	EXPECT_EQ(try_map_pages(fd, 1), 0);
	close(fd);
}

/* ------------------------------------------------------------------ */
/* The control page                                                     */
/* ------------------------------------------------------------------ */

/* Whether the kernel's sched_clock is the TSC (so user time is offered). */
static int clocksource_is_tsc(void)
{
	char buf[32] = "";
	FILE *f;

	f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource",
		  "r");
	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	return !strcmp(buf, "tsc\n");
}

/*
 * Right after mmap() of a disabled event: version and compat_version are
 * never set (0), the seqlock has been through one update (even, non-zero),
 * index 0 (software events have no user-readable counter), nothing
 * counted or timed, bit 0 deprecated, no rdpmc and pmc_width 0 (QEMU TCG
 * has no PMU), size is the offset of __reserved, data at one page, every
 * AUX field 0, and the reserved area zeroed.
 */
TEST(userpage_initial_fields)
{
	struct perf_event_mmap_page *pg;
	struct perf_rb rb;
	unsigned int i;
	int fd;

	fd = open_faults(ST_IT, 0, -1);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(map_prot(&rb, fd, 4, PROT_READ | PROT_WRITE), 0);
	pg = rb.meta;
	EXPECT_EQ(pg->version, 0);
	EXPECT_EQ(pg->compat_version, 0);
	EXPECT_EQ(pg->lock & 1, 0);
	EXPECT_NE(pg->lock, 0);
	EXPECT_EQ(pg->index, 0);
	EXPECT_EQ(pg->offset, 0);
	EXPECT_EQ(pg->time_enabled, 0);
	EXPECT_EQ(pg->time_running, 0);
	EXPECT_EQ((int)pg->cap_bit0, 0);
	EXPECT_EQ((int)pg->cap_bit0_is_deprecated, 1);
	EXPECT_EQ((int)pg->cap_user_rdpmc, 0);
	EXPECT_EQ((int)pg->cap_user_time_short, 0);
	EXPECT_EQ((int)pg->cap_____res, 0);
	EXPECT_EQ(pg->pmc_width, 0);
	EXPECT_EQ(pg->size, offsetof(struct perf_event_mmap_page, __reserved));
	EXPECT_EQ(pg->size, 96);
	EXPECT_EQ(pg->time_cycles, 0);
	EXPECT_EQ(pg->time_mask, 0);
	EXPECT_EQ(pg->data_head, 0);
	EXPECT_EQ(pg->data_tail, 0);
	EXPECT_EQ(pg->data_offset, (uint64_t)psz);
	EXPECT_EQ(pg->data_size, 4 * (uint64_t)psz);
	EXPECT_EQ(pg->aux_head, 0);
	EXPECT_EQ(pg->aux_tail, 0);
	EXPECT_EQ(pg->aux_offset, 0);
	EXPECT_EQ(pg->aux_size, 0);
	for (i = 0; i < sizeof(pg->__reserved); i++)
		if (pg->__reserved[i])
			break;
	EXPECT_EQ(i, sizeof(pg->__reserved));
	rb_unmap(&rb);
	close(fd);
}

/*
 * The time capabilities: with the TSC as sched_clock (stable, as QEMU's
 * is when the kernel keeps it) cap_user_time and cap_user_time_zero are
 * set with a usable mult/shift; cap_user_time_short is an arm64 thing.
 * With another clocksource, none of them.
 */
TEST(userpage_time_caps)
{
	struct perf_event_mmap_page *pg;
	struct perf_rb rb;
	int fd, tsc = clocksource_is_tsc();

	fd = open_faults(ST_IT, 0, -1);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(map_prot(&rb, fd, 1, PROT_READ | PROT_WRITE), 0);
	pg = rb.meta;
	EXPECT_EQ((int)pg->cap_user_time, tsc);
	EXPECT_EQ((int)pg->cap_user_time_zero, tsc);
	EXPECT_EQ((int)pg->cap_user_time_short, 0);
	if (tsc) {
		EXPECT_EQ(pg->capabilities, 0x1a);	/* bits 1, 3, 4 */
		EXPECT_NE(pg->time_mult, 0);
		EXPECT_GT(pg->time_shift, 0);
		EXPECT_LT(pg->time_shift, 64);
		EXPECT_NE(pg->time_zero, 0);
	} else {
		EXPECT_EQ(pg->capabilities, 0x2);
	}
	rb_unmap(&rb);
	close(fd);
}

/* With use_clockid the records are not in sched_clock time: no time_zero. */
TEST(userpage_clockid_no_time_zero)
{
	struct perf_event_attr a;
	struct perf_rb rb;
	int fd, tsc = clocksource_is_tsc();

	fault_attr(&a, ST_IT);
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	fd = open_attr(&a, 0, -1);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(map_prot(&rb, fd, 1, PROT_READ | PROT_WRITE), 0);
	EXPECT_EQ((int)rb.meta->cap_user_time, tsc);
	EXPECT_EQ((int)rb.meta->cap_user_time_zero, 0);
	EXPECT_EQ(rb.meta->time_zero, 0);
	rb_unmap(&rb);
	close(fd);
}

#if defined(__x86_64__) || defined(__i386__)
/* A TSC value in the time base of the records, as the uapi header says. */
static uint64_t cyc2ns(const struct perf_event_mmap_page *pg, uint64_t cyc)
{
	uint64_t quot = cyc >> pg->time_shift;
	uint64_t rem = cyc & ((1ULL << pg->time_shift) - 1);

	return pg->time_zero + quot * pg->time_mult +
	       ((rem * pg->time_mult) >> pg->time_shift);
}

static uint64_t rdtsc_(void)
{
	uint32_t lo, hi;

	asm volatile("lfence; rdtsc; lfence" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}
#endif

/*
 * time_zero/time_mult/time_shift turn a TSC value into the time base of
 * the records: a sample taken between two rdtsc's is stamped between them.
 */
TEST(userpage_time_zero_matches_samples)
{
#if defined(__x86_64__) || defined(__i386__)
	struct perf_event_mmap_page *pg;
	uint64_t t0, t1, c0, c1, head;
	struct perf_rb rb;
	struct rec r[4];
	struct sample s;
	char *p;
	int fd, n;

	fd = open_faults(ST_IT | PERF_SAMPLE_TIME, 0, -1);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(map_prot(&rb, fd, 1, PROT_READ | PROT_WRITE), 0);
	pg = rb.meta;
	if (!pg->cap_user_time_zero)
		SKIP(goto out, "no cap_user_time_zero (not on the TSC)");
	p = map_anon(1);
	ASSERT_NE(p, NULL);
	ASSERT_EQ(ev_enable(fd), 0);
	c0 = rdtsc_();
	touch_range(p, 1);
	c1 = rdtsc_();
	ev_disable(fd);
	head = pg->data_head;
	n = peek(&rb, 0, head, r, 4);
	ASSERT_GE(n, 1);
	s = parse_sample(&r[n - 1].h, ST_IT | PERF_SAMPLE_TIME);
	ASSERT_TRUE(s.ok);
	t0 = cyc2ns(pg, c0);
	t1 = cyc2ns(pg, c1);
	EXPECT_LE(t0, s.time + 1000)
		TH_LOG("t0 %llu sample %llu", (unsigned long long)t0,
		       (unsigned long long)s.time);
	EXPECT_LE(s.time, t1 + 1000)
		TH_LOG("sample %llu t1 %llu", (unsigned long long)s.time,
		       (unsigned long long)t1);
	munmap(p, psz);
out:
	rb_unmap(&rb);
	close(fd);
#else
	SKIP(return, "TSC conversion is only checked on x86");
#endif
}

/*
 * mmap() brings the times up to date: an enabled event on the running
 * task shows time_enabled == time_running > 0 right away.
 */
TEST(userpage_times_at_mmap)
{
	struct perf_rb rb;
	int fd;

	fd = open_sw(PERF_COUNT_SW_PAGE_FAULTS, -1);
	ASSERT_GE(fd, 0);
	burn_ns(2000000);
	ASSERT_EQ(map_prot(&rb, fd, 1, PROT_READ | PROT_WRITE), 0);
	EXPECT_GT(rb.meta->time_enabled, 1000000);
	EXPECT_EQ(rb.meta->time_enabled, rb.meta->time_running);
	EXPECT_EQ(rb.meta->index, 0);
	rb_unmap(&rb);
	close(fd);
}

/* Read the control page under its seqlock; returns the (even) lock value. */
static uint32_t userpage_read(volatile struct perf_event_mmap_page *pg,
			      uint64_t *offset, uint64_t *enabled,
			      uint64_t *running)
{
	uint32_t seq;

	do {
		seq = pg->lock;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		*offset = pg->offset;
		*enabled = pg->time_enabled;
		*running = pg->time_running;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while (pg->lock != seq || (seq & 1));
	return seq;
}

/*
 * The self-monitoring protocol on a task that is asleep: offset is the
 * count (index is 0, so no counter read is added), the seqlock is even
 * and stable while nothing happens, and it moves on by whole updates
 * (steps of two) when the task is scheduled in again, which also brings
 * offset and the times up to date.
 */
TEST(userpage_seqlock_and_offset)
{
	uint64_t off, en, run, off2, en2, run2;
	volatile struct perf_event_mmap_page *pg;
	uint32_t l1, l2, l3;
	struct perf_rb rb;
	struct worker w;
	int fd;

	ASSERT_EQ(worker_start(&w), 0);
	fd = open_ev(PERF_COUNT_SW_PAGE_FAULTS, w.pid, -1, -1, 0, 0);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(worker_do(&w, W_TOUCH, 50), 0);
	wait_asleep(w.pid);
	ASSERT_EQ(map_prot(&rb, fd, 1, PROT_READ | PROT_WRITE), 0);
	pg = rb.meta;
	l1 = userpage_read(pg, &off, &en, &run);
	EXPECT_EQ(l1 & 1, 0);
	EXPECT_EQ(off, read_count(fd));
	EXPECT_GE(off, 50);
	EXPECT_EQ(pg->index, 0);
	usleep(20000);
	l2 = userpage_read(pg, &off2, &en2, &run2);
	EXPECT_EQ(l1, l2);
	EXPECT_EQ(off, off2);
	EXPECT_EQ(en, en2);

	/*
	 * Faults while running are not published until the next sched-in:
	 * let the worker go to sleep after its 30 faults, then wake it for
	 * a command that takes no fault.
	 */
	ASSERT_EQ(worker_do(&w, W_TOUCH, 30), 0);
	wait_asleep(w.pid);
	ASSERT_EQ(worker_do(&w, W_TOUCH, 0), 0);
	wait_asleep(w.pid);
	l3 = userpage_read(pg, &off2, &en2, &run2);
	EXPECT_GT(l3, l2);
	EXPECT_EQ((l3 - l2) & 1, 0);
	EXPECT_EQ(off2, read_count(fd));
	EXPECT_GE(off2, off + 30);
	EXPECT_GT(en2, en);
	EXPECT_GT(run2, run);
	EXPECT_LE(run2, en2);
	rb_unmap(&rb);
	close(fd);
	worker_stop(&w);
}

/*
 * PERF_EVENT_IOC_RESET publishes the zeroed count at once, with a seqlock
 * update of its own: no sched-in of the task is needed.
 */
TEST(userpage_reset_publishes_zero)
{
	uint64_t off, en, run;
	uint32_t l1, l2;
	struct perf_rb rb;
	struct worker w;
	int fd;

	ASSERT_EQ(worker_start(&w), 0);
	fd = open_ev(PERF_COUNT_SW_PAGE_FAULTS, w.pid, -1, -1, 0, 0);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(worker_do(&w, W_TOUCH, 20), 0);
	wait_asleep(w.pid);
	ASSERT_EQ(map_prot(&rb, fd, 1, PROT_READ | PROT_WRITE), 0);
	l1 = userpage_read(rb.meta, &off, &en, &run);
	EXPECT_GE(off, 20);
	ASSERT_EQ(ioctl(fd, PERF_EVENT_IOC_RESET, 0), 0);
	l2 = userpage_read(rb.meta, &off, &en, &run);
	EXPECT_EQ(off, 0);
	EXPECT_EQ(read_count(fd), 0);
	EXPECT_EQ(l2, l1 + 2);
	rb_unmap(&rb);
	close(fd);
	worker_stop(&w);
}

/*
 * The counter index (rdpmc) is published only while the event is on its
 * PMU, on the reader's CPU: a disabled event's control page says 0, with
 * the whole count in offset.  The perf_test PMU, like hardware, keeps
 * naming the counter an event last used.
 */
TEST(userpage_index_only_while_counting)
{
	struct perf_event_attr a;
	uint64_t off, en, run;
	struct perf_rb rb;
	long type;
	int fd;

	if (read_file_long("/sys/bus/event_source/devices/perf_test/type", &type))
		SKIP(return, "no perf_test PMU (a test PMU of this core only)");
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = type;
	fd = sys_perf_event_open(&a, 0, -1, -1, 0);
	ASSERT_GE(fd, 0);
	/* Mapped while it counts here: the index names its counter. */
	ASSERT_EQ(map_prot(&rb, fd, 0, PROT_READ | PROT_WRITE), 0);
	userpage_read(rb.meta, &off, &en, &run);
	EXPECT_GE(rb.meta->index, 1);

	ASSERT_EQ(ioctl(fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	/* A reset refreshes the page: the event is off its counter now. */
	ASSERT_EQ(ioctl(fd, PERF_EVENT_IOC_RESET, 0), 0);
	userpage_read(rb.meta, &off, &en, &run);
	EXPECT_EQ(rb.meta->index, 0);
	EXPECT_EQ(off, 0);
	rb_unmap(&rb);
	close(fd);
}

/* ------------------------------------------------------------------ */
/* munmap() and close()                                                 */
/* ------------------------------------------------------------------ */

/*
 * After munmap() the event keeps counting; without a buffer poll()
 * reports POLLHUP; a new mapping is a new, empty buffer.
 */
TEST(munmap_keeps_counting)
{
	struct perf_event_attr a;
	struct perf_rb rb;
	uint64_t c1;
	int fd;

	fault_attr(&a, ST_IT);
	a.wakeup_events = 1;
	fd = open_attr(&a, 0, -1);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(map_prot(&rb, fd, 1, PROT_READ | PROT_WRITE), 0);
	faults(fd, 5);
	EXPECT_GE(rb_head(&rb), 5 * 24);
	EXPECT_EQ(poll_all(fd, 0), POLLIN | POLLRDNORM);
	rb_unmap(&rb);
	c1 = read_count(fd);
	faults(fd, 5);
	EXPECT_GE(read_count(fd), c1 + 5);
	EXPECT_EQ(poll_all(fd, 0), POLLHUP);
	ASSERT_EQ(map_prot(&rb, fd, 1, PROT_READ | PROT_WRITE), 0);
	EXPECT_EQ(rb_head(&rb), 0);
	EXPECT_EQ(rb.data[0], 0);
	EXPECT_EQ(poll_all(fd, 0), 0);
	rb_unmap(&rb);
	close(fd);
}

/*
 * close() of a mapped event does not release it: the mapping holds the
 * file, so the event goes on writing into the buffer until munmap().
 */
TEST(close_while_mapped)
{
	struct perf_rb rb;
	uint64_t head;
	struct rec r[16];
	int fd = open_faults(ST_IT, 0, -1);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(map_prot(&rb, fd, 1, PROT_READ | PROT_WRITE), 0);
	ASSERT_EQ(ev_enable(fd), 0);
	touch_pages(5);
	close(fd);
	head = rb_head(&rb);
	EXPECT_GE(head, 5 * 24);
	touch_pages(5);
	EXPECT_GE(rb_head(&rb), head + 5 * 24);
	head = rb_head(&rb);
	EXPECT_EQ(peek(&rb, 0, head, r, 16), (int)(head / 24));
	EXPECT_EQ(r[0].h.type, PERF_RECORD_SAMPLE);
	rb_unmap(&rb);
}

/*
 * munmap() and mmap() again and again while another thread's samples are
 * being written into the buffer: nothing breaks, the count keeps going.
 */
TEST(munmap_while_writing)
{
	struct hammer h = { 0 };
	struct perf_rb rb;
	uint64_t c1, c2;
	pthread_t th;
	int i, fd, prot;

	ASSERT_EQ(pthread_create(&th, NULL, fault_thread, &h), 0);
	while (!h.tid)
		usleep(1000);
	fd = open_faults(ST_ITTA, h.tid, -1);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(ev_enable(fd), 0);
	for (i = 0; i < 300; i++) {
		prot = i & 1 ? PROT_READ : PROT_READ | PROT_WRITE;
		ASSERT_EQ(map_prot(&rb, fd, 1 << (i % 4), prot), 0);
		if (i % 16 == 0)
			usleep(1000);
		rb_unmap(&rb);
	}
	c1 = read_count(fd);
	usleep(200000);
	c2 = read_count(fd);
	h.stop = 1;
	pthread_join(th, NULL);
	EXPECT_GT(c1, 0);
	EXPECT_GT(c2, c1) TH_LOG("faulting rounds %llu", (unsigned long long)h.loops);
	close(fd);
}

/* ------------------------------------------------------------------ */
/* mlock accounting                                                     */
/* ------------------------------------------------------------------ */

/* What a child running as nobody tries, and with what limits. */
struct mlock_try {
	long rlimit_pages;	/* RLIMIT_MEMLOCK, in pages (-1: keep) */
	int pages[8];		/* data pages of each mapping, 0 ends */
	int expect[8];		/* 0 or -errno for each mapping */
	int fork_pages;		/* >0: a forked child then maps this many */
	int fork_expect;
};

static int mlock_child(void *arg)
{
	struct mlock_try *t = arg;
	struct perf_event_attr a;
	struct rlimit rl;
	int i, fd, ret;
	void *m;
	pid_t pid;

	if (t->rlimit_pages >= 0) {
		rl.rlim_cur = t->rlimit_pages * psz;
		rl.rlim_max = rl.rlim_cur;
		if (setrlimit(RLIMIT_MEMLOCK, &rl))
			return 100;
	}
	for (i = 0; i < 8 && t->pages[i]; i++) {
		/* A counting event: mapping does not need a sampler. */
		sw_attr(&a, PERF_COUNT_SW_DUMMY);
		a.exclude_kernel = 1;
		a.exclude_hv = 1;
		fd = sys_perf_event_open(&a, 0, -1, -1, 0);
		if (fd < 0)
			return 101;
		m = mmap(NULL, (1 + t->pages[i]) * psz, PROT_READ | PROT_WRITE,
			 MAP_SHARED, fd, 0);
		ret = m == MAP_FAILED ? -errno : 0;
		if (ret != t->expect[i])
			return 10 + i;
	}
	if (t->fork_pages) {
		pid = fork();
		if (pid == 0) {
			sw_attr(&a, PERF_COUNT_SW_DUMMY);
			a.exclude_kernel = 1;
			fd = sys_perf_event_open(&a, 0, -1, -1, 0);
			m = mmap(NULL, (1 + t->fork_pages) * psz, PROT_READ,
				 MAP_SHARED, fd, 0);
			ret = m == MAP_FAILED ? -errno : 0;
			_exit(ret == t->fork_expect ? 0 : 1);
		}
		if (reap_child(pid))
			return 20;
	}
	return 0;
}

/* Run @t as nobody (with @caps) with perf_event_mlock_kb set to @kb. */
static int mlock_run(long kb, uint64_t caps, struct mlock_try *t)
{
	long old;
	int ret;

	if (read_sysctl("perf_event_mlock_kb", &old))
		return -1;
	if (write_sysctl("perf_event_mlock_kb", kb))
		return -1;
	ret = run_with_caps(caps, mlock_child, t);
	write_sysctl("perf_event_mlock_kb", old);
	return ret;
}

/*
 * Past perf_event_mlock_kb (here 8 kB, i.e. 2 pages per online CPU) the
 * excess is charged to RLIMIT_MEMLOCK; with that at 0, an unprivileged
 * user gets EPERM.  Buffers that fit add up: n two-page buffers fit for
 * n CPUs, one more does not.
 */
TEST(mlock_limit_eperm)
{
	int n = nr_cpus(), i;
	struct mlock_try t = {
		.rlimit_pages = 0,
		.pages = { 1, 1 << 10, 0 },
		.expect = { 0, -EPERM },
	};

	EXPECT_EQ(mlock_run(8, 0, &t), 0);
	if (n > 7)
		SKIP(return, "too many CPUs for the second part");
	memset(&t, 0, sizeof(t));
	for (i = 0; i <= n; i++) {
		t.pages[i] = 1;
		t.expect[i] = i < n ? 0 : -EPERM;
	}
	EXPECT_EQ(mlock_run(8, 0, &t), 0);
}

/* The same mappings succeed with CAP_IPC_LOCK. */
TEST(mlock_cap_ipc_lock)
{
	struct mlock_try t = {
		.rlimit_pages = 0,
		.pages = { 1, 1 << 6, 1 << 6, 0 },
		.expect = { 0, 0, 0 },
	};

	EXPECT_EQ(mlock_run(8, 1ULL << CAP_IPC_LOCK, &t), 0);
}

/*
 * The per-user allowance is perf_event_mlock_kb times the online CPUs:
 * with 4 kB (one page) per CPU, 1 + 2^k pages fit while 1 + 2^k <= CPUs.
 */
TEST(mlock_limit_scales_with_cpus)
{
	int n = nr_cpus(), k = 0;
	struct mlock_try t = { .rlimit_pages = 0 };

	if (n < 2)
		SKIP(return, "needs two CPUs");
	while (1 + (2 << k) <= n)
		k++;
	/* 1 + 2^k <= n < 1 + 2^(k+1) */
	t.pages[0] = 1 << k;
	t.expect[0] = 0;
	EXPECT_EQ(mlock_run(psz / 1024, 0, &t), 0)
		TH_LOG("1 + %d pages", 1 << k);
	t.pages[0] = 2 << k;
	t.expect[0] = -EPERM;
	EXPECT_EQ(mlock_run(psz / 1024, 0, &t), 0)
		TH_LOG("1 + %d pages", 2 << k);
}

/*
 * The excess over the per-user allowance is checked against
 * RLIMIT_MEMLOCK exactly: it fits with the excess, EPERM with one less.
 */
TEST(mlock_rlimit_covers_excess)
{
	int n = nr_cpus();
	/*
	 * Allowance n pages (4 kB per CPU); a 1 + 16n buffer exceeds it by
	 * 1 + 15n pages (16n is a power of two for power-of-two n only).
	 */
	struct mlock_try t = { 0 };

	if (n & (n - 1))
		SKIP(return, "needs a power-of-two number of CPUs");
	t.pages[0] = 16 * n;
	t.rlimit_pages = 1 + 15 * n;
	t.expect[0] = 0;
	EXPECT_EQ(mlock_run(psz / 1024, 0, &t), 0);
	t.rlimit_pages = 15 * n;
	t.expect[0] = -EPERM;
	EXPECT_EQ(mlock_run(psz / 1024, 0, &t), 0);
}

/*
 * The allowance is per user: while a process holds it all, another
 * process of the same user (a fork, which does not inherit the mapping)
 * is refused.  Unmapping gives it back.
 */
TEST(mlock_per_user)
{
	int n = nr_cpus();
	struct mlock_try t = { .rlimit_pages = 0 };

	if (n & (n - 1))
		SKIP(return, "needs a power-of-two number of CPUs");
	/* Allowance 2n pages (8 kB per CPU): 1 + n fits, leaves n - 1. */
	t.pages[0] = n;
	t.expect[0] = 0;
	t.fork_pages = n;
	t.fork_expect = -EPERM;
	EXPECT_EQ(mlock_run(8, 0, &t), 0);
}

static int mlock_unmap_child(void *arg)
{
	struct perf_event_attr a;
	struct rlimit rl = { 0, 0 };
	int fd, i;
	void *m;

	(void)arg;
	if (setrlimit(RLIMIT_MEMLOCK, &rl))
		return 100;
	sw_attr(&a, PERF_COUNT_SW_DUMMY);
	a.exclude_kernel = 1;
	fd = sys_perf_event_open(&a, 0, -1, -1, 0);
	if (fd < 0)
		return 101;
	/* 1 + 1 pages (the allowance is a page per CPU), ten times. */
	for (i = 0; i < 10; i++) {
		m = mmap(NULL, 2 * psz, PROT_READ, MAP_SHARED, fd, 0);
		if (m == MAP_FAILED)
			return 10 + i;
		munmap(m, 2 * psz);
	}
	return 0;
}

/* munmap() gives the pages back to the user's allowance. */
TEST(mlock_released_by_munmap)
{
	long old;
	int ret;

	ASSERT_EQ(read_sysctl("perf_event_mlock_kb", &old), 0);
	ASSERT_EQ(write_sysctl("perf_event_mlock_kb", psz / 1024), 0);
	ret = run_unprivileged(mlock_unmap_child, NULL);
	write_sysctl("perf_event_mlock_kb", old);
	EXPECT_EQ(ret, 0);
}

/* With perf_event_paranoid at -1 the RLIMIT_MEMLOCK check is skipped. */
TEST(mlock_not_paranoid_no_limit)
{
	struct mlock_try t = {
		.rlimit_pages = 0,
		.pages = { 1 << 6, 0 },
		.expect = { 0 },
	};
	long para;
	int ret;

	ASSERT_EQ(read_sysctl("perf_event_paranoid", &para), 0);
	ASSERT_EQ(write_sysctl("perf_event_paranoid", -1), 0);
	ret = mlock_run(8, 0, &t);
	write_sysctl("perf_event_paranoid", para);
	EXPECT_EQ(ret, 0);
}

/* ------------------------------------------------------------------ */
/* A buffer without data pages                                          */
/* ------------------------------------------------------------------ */

/* The control page alone maps: data_size 0, records go nowhere. */
TEST(mmap_control_page_only)
{
	struct perf_event_attr a;
	struct perf_rb rb;
	int fd, b;
	long taint;

	fault_attr(&a, ST_IT);
	a.read_format = F_LOST;
	fd = open_attr(&a, 0, -1);
	ASSERT_GE(fd, 0);
	taint = taint_wd();
	ASSERT_EQ(map_prot(&rb, fd, 0, PROT_READ | PROT_WRITE), 0);
	EXPECT_EQ(rb.meta->data_size, 0);
	EXPECT_EQ(rb.meta->data_offset, (uint64_t)psz);
	faults(fd, 8);
	EXPECT_GE(read_cnt(fd), 8);
	EXPECT_EQ(rb.meta->data_head, 0);
	/* Nothing is counted as lost: there is no buffer to lose into. */
	EXPECT_EQ(read_lost(fd), 0);
	EXPECT_EQ(poll_all(fd, 0), 0);
	/* Pausing needs data pages. */
	EXPECT_EQ(ioctl(fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 1), -1);
	EXPECT_EQ(errno, EINVAL);
	/* Such a buffer is a valid target: redirected records vanish too. */
	b = open_faults(ST_IT, 0, -1);
	ASSERT_GE(b, 0);
	EXPECT_EQ(set_output(b, fd), 0);
	faults(b, 4);
	EXPECT_GE(read_count(b), 4);
	EXPECT_EQ(rb.meta->data_head, 0);
	EXPECT_EQ(read_lost(fd), 0);
	close(b);
	rb_unmap(&rb);
	close(fd);
	EXPECT_EQ(taint_wd(), taint);
}

TEST_HARNESS_MAIN
