// SPDX-License-Identifier: GPL-2.0
/*
 * Ring-buffer throughput: a record per page fault.
 *
 * The main thread writes one byte to each page of a fresh anonymous
 * mapping (16,384 pages), taking one page fault per page, while a
 * page-faults event of that thread (sample_period 1, sample type IP | TID |
 * TIME | ADDR: 40-byte records) writes into a 512 KiB ring buffer.  A
 * consumer thread on the same CPU sleeps in poll() until the buffer is half
 * full (wakeup_watermark) and drains it.  A run is timed from the first
 * touch until the consumer has read the last record; the same run without
 * the event gives the bare fault rate.
 *
 *   rb_records_per_s   records consumed per second of guest time
 *   rb_bytes_per_s     bytes of records consumed per second
 *   rb_ns_per_record   (time with the event - time without) / records
 *   rb_faults_per_s    page faults per second without the event
 *   rb_lost            records lost in a run with the event
 */
#include "bench.h"
#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>

#define RUNS		5
#define PAGES		16384
#define RB_PAGES	128		/* 512 KiB of data */

struct consumer {
	int fd;			/* the event, -1 for none */
	int done_fd;		/* eventfd: the producer has finished */
	struct rb rb;
	struct rb_stats st;
};

static void *consume(void *arg)
{
	struct consumer *c = arg;
	struct pollfd pfd[2] = {
		{ .fd = c->done_fd, .events = POLLIN },
		{ .fd = c->fd, .events = POLLIN },
	};

	pin_cpu(0);
	for (;;) {
		if (poll(pfd, c->fd >= 0 ? 2 : 1, -1) < 0 && errno != EINTR)
			die("poll");
		if (c->fd >= 0)
			rb_drain(&c->rb, &c->st);
		if (pfd[0].revents)
			return NULL;
	}
}

/* One run: guest ns from the first touch until all records are consumed. */
static uint64_t run(int with_event, struct rb_stats *st)
{
	size_t page = sysconf(_SC_PAGESIZE), i;
	struct consumer c = { .fd = -1 };
	uint64_t one = 1, t;
	pthread_t thread;
	char *mem;

	mem = mmap(NULL, PAGES * page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		die("mmap of %d pages", PAGES);
	c.done_fd = eventfd(0, EFD_CLOEXEC);
	if (c.done_fd < 0)
		die("eventfd");
	if (with_event) {
		struct perf_event_attr attr;

		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = PERF_TYPE_SOFTWARE;
		attr.config = PERF_COUNT_SW_PAGE_FAULTS;
		attr.sample_period = 1;
		attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
				   PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR;
		attr.disabled = 1;
		attr.watermark = 1;
		attr.wakeup_watermark = RB_PAGES * page / 2;
		c.fd = sys_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (c.fd < 0)
			die("perf_event_open(page-faults, period 1)");
		rb_map(&c.rb, c.fd, RB_PAGES);
	}
	if (pthread_create(&thread, NULL, consume, &c))
		die("pthread_create");
	/* Let the consumer reach poll() before the clock starts. */
	usleep(1000);

	if (c.fd >= 0 && ioctl(c.fd, PERF_EVENT_IOC_ENABLE, 0))
		die("PERF_EVENT_IOC_ENABLE");
	t = now_ns();
	for (i = 0; i < PAGES; i++)
		mem[i * page] = 1;
	if (c.fd >= 0 && ioctl(c.fd, PERF_EVENT_IOC_DISABLE, 0))
		die("PERF_EVENT_IOC_DISABLE");
	if (write(c.done_fd, &one, sizeof(one)) != sizeof(one))
		die("eventfd write");
	pthread_join(thread, NULL);
	t = now_ns() - t;

	*st = c.st;
	if (c.fd >= 0) {
		rb_unmap(&c.rb);
		close(c.fd);
	}
	close(c.done_fd);
	munmap(mem, PAGES * page);
	return t;
}

int main(void)
{
	double rec_s[RUNS], bytes_s[RUNS], per_rec[RUNS], faults_s[RUNS];
	double lost[RUNS];
	struct rb_stats st;
	int r;

	pin_cpu(0);
	run(1, &st);		/* warm up: thread stack, page tables */
	for (r = 0; r < RUNS; r++) {
		uint64_t base = run(0, &st);
		uint64_t t = run(1, &st);
		uint64_t n = st.samples + st.lost;

		faults_s[r] = PAGES * 1e9 / base;
		rec_s[r] = st.samples * 1e9 / t;
		bytes_s[r] = st.bytes * 1e9 / t;
		per_rec[r] = n ? ((double)t - (double)base) / n : 0;
		lost[r] = st.lost;
		if (st.samples < PAGES)
			printf("# run %d: %llu records for %d faults\n", r,
			       (unsigned long long)st.samples, PAGES);
	}
	report_runs("rb_records_per_s", "records/s", rec_s, RUNS);
	report_runs("rb_bytes_per_s", "bytes/s", bytes_s, RUNS);
	report_runs("rb_ns_per_record", "ns", per_rec, RUNS);
	report_runs("rb_faults_per_s", "faults/s", faults_s, RUNS);
	report_runs("rb_lost", "records", lost, RUNS);
	return 0;
}
