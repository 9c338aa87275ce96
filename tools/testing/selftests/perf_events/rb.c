// SPDX-License-Identifier: GPL-2.0
/*
 * The perf mmap ring buffer, as user space sees it:
 *
 *  - mmap() rules: 1 + 2^n pages (or the control page alone), MAP_SHARED,
 *    offset 0 (non-zero offsets are for AUX buffers), one buffer size per
 *    event (a second mapping shares the buffer), no inherited per-task
 *    buffers, no split, no growth (mremap may only move it), not copied
 *    by fork, data pages not writable, overwrite mode fixed at mmap();
 *  - the control page right after mmap() (version, capabilities, times,
 *    size, data_offset/data_size) and its seqlock;
 *  - data_head/data_tail: records are appended, a writable mapping makes
 *    the kernel stop at data_tail and account the losses in a
 *    PERF_RECORD_LOST once space is freed, a read-only mapping overwrites,
 *    write_backward lays records out downwards from 0;
 *  - PERF_EVENT_IOC_PAUSE_OUTPUT, PERF_EVENT_IOC_SET_OUTPUT and
 *    PERF_FLAG_FD_OUTPUT, munmap() and close() while mapped;
 *  - mlock accounting against perf_event_mlock_kb (per user, scaled by the
 *    online CPUs) and RLIMIT_MEMLOCK;
 *  - wakeups (wakeup_events, watermarks, poll/epoll), SIGIO, POLLHUP;
 *  - per-CPU buffers on every CPU, and a stress run that races mapping,
 *    redirection, close, fork, exec and exit against records in flight.
 *
 * The control-page-only buffer and the stress run come last: a kernel
 * that gets them wrong may not be good for much afterwards.
 *
 * Most tests sample page faults with a period of 1 on the test task
 * itself, user faults only (exclude_kernel), and fault in fresh anonymous
 * pages: one record per page.  Expectations are derived from data_head
 * and the event's own count rather than from an exact number of faults,
 * so that a stray fault does not break a test, while the kernel's
 * arithmetic is still checked to the byte.
 */
#include "../kselftest_harness.h"
#include <pthread.h>
#include <stddef.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include "perf_worker.h"
#include "perf_rb.h"

#define MAXCPU		64
#define MAXREC		4096

/* Sample types used below and the size of their PERF_RECORD_SAMPLE. */
#define ST_IT		(PERF_SAMPLE_IP | PERF_SAMPLE_TID)		/* 24 */
#define ST_ITA		(ST_IT | PERF_SAMPLE_ADDR)			/* 32 */
#define ST_ITTA		(ST_ITA | PERF_SAMPLE_TIME)			/* 40 */
#define ST_IDA		(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_ADDR)	/* 24 */

static long psz;

static void __attribute__((constructor)) rb_test_init(void)
{
	psz = page_size();
}

/* Size of a PERF_RECORD_SAMPLE with only u64-sized fields of @st. */
static unsigned int sample_size(uint64_t st)
{
	return 8 + 8 * __builtin_popcountll(st);
}

/* A page-fault sampler, period 1, user faults only, disabled. */
static void fault_attr(struct perf_event_attr *a, uint64_t st)
{
	sw_attr(a, PERF_COUNT_SW_PAGE_FAULTS);
	a->sample_period = 1;
	a->sample_type = st;
	a->disabled = 1;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
}

static int open_attr(struct perf_event_attr *a, pid_t pid, int cpu)
{
	return sys_perf_event_open(a, pid, cpu, -1, 0);
}

/* A disabled page-fault sampler with sample_type @st on @pid/@cpu. */
static int open_faults(uint64_t st, pid_t pid, int cpu)
{
	struct perf_event_attr a;

	fault_attr(&a, st);
	return open_attr(&a, pid, cpu);
}

/*
 * The same, counting minor faults: it fires on the same faults as
 * open_faults(), from a separate perf_sw_event() call.  (Two events of the
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

static int ev_enable(int fd)
{
	return ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
}

static int ev_disable(int fd)
{
	return ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
}

/* The lost count of an event opened with read_format PERF_FORMAT_LOST. */
static uint64_t read_lost(int fd)
{
	uint64_t v[2];

	if (read(fd, v, sizeof(v)) != sizeof(v))
		return (uint64_t)-1;
	return v[1];
}

/* The count of an event opened with read_format PERF_FORMAT_LOST. */
static uint64_t read_cnt(int fd)
{
	uint64_t v[2];

	if (read(fd, v, sizeof(v)) != sizeof(v))
		return (uint64_t)-1;
	return v[0];
}

/* Fault in the @n pages at @p with @fd enabled only meanwhile. */
static void faults_at(int fd, char *p, int n)
{
	ev_enable(fd);
	touch_range(p, n);
	ev_disable(fd);
}

/* Fault in @n fresh pages with @fd enabled only meanwhile. */
static void faults(int fd, int n)
{
	char *p = map_anon(n);

	if (!p)
		return;
	faults_at(fd, p, n);
	munmap(p, n * psz);
}

/*
 * Map @data_pages data pages of @fd with protection @prot into @rb (the
 * perf_rb.h structure, so that its readers work on it too) and read every
 * page once, so that later reads do not fault.  Returns 0 or -errno.
 */
static int map_prot(struct perf_rb *rb, int fd, int data_pages, int prot)
{
	volatile unsigned char *p;
	size_t i;
	void *m;

	memset(rb, 0, sizeof(*rb));
	rb->map_size = (size_t)(data_pages + 1) * psz;
	m = mmap(NULL, rb->map_size, prot, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return -errno;
	rb->meta = m;
	rb->data = (unsigned char *)m + psz;
	rb->data_size = (uint64_t)data_pages * psz;
	for (p = m, i = 0; i < rb->map_size; i += psz)
		(void)p[i];
	return 0;
}

/* mmap() of @len bytes of @fd at @off; 0 or -errno (the mapping is dropped). */
static int try_mmap(int fd, size_t len, int prot, int flags, off_t off)
{
	void *m = mmap(NULL, len, prot, flags, fd, off);

	if (m == MAP_FAILED)
		return -errno;
	munmap(m, len);
	return 0;
}

/* mmap() of 1 + @data_pages pages, read-write and shared: 0 or -errno. */
static int try_map_pages(int fd, int data_pages)
{
	return try_mmap(fd, (1 + data_pages) * psz, PROT_READ | PROT_WRITE,
			MAP_SHARED, 0);
}

/* One record copied out of the buffer, in one piece. */
struct rec {
	struct perf_event_header h;
	uint64_t v[62];
};

/* Copy @n bytes at ring position @pos (wrapping at the end). */
static void ring_copy(const struct perf_rb *rb, uint64_t pos, void *dst,
		      size_t n)
{
	uint64_t off = pos & (rb->data_size - 1);
	size_t first = rb->data_size - off;

	if (first > n)
		first = n;
	memcpy(dst, rb->data + off, first);
	memcpy((char *)dst + first, rb->data, n - first);
}

/*
 * Copy the records between ring positions @from and @to (which may be
 * "negative" for backward buffers) into @out (at most @max of them),
 * without touching data_tail.  Returns the number of records, or -1 if
 * the headers do not tile [@from, @to) exactly.
 */
static int peek(const struct perf_rb *rb, uint64_t from, uint64_t to,
		struct rec *out, int max)
{
	struct perf_event_header h;
	uint64_t pos = from;
	int n = 0;

	while (pos != to) {
		if (to - pos < sizeof(h) || to - pos > rb->data_size)
			return -1;
		ring_copy(rb, pos, &h, sizeof(h));
		if (h.size < sizeof(h) || h.size > to - pos ||
		    h.size > sizeof(struct rec))
			return -1;
		if (n < max)
			ring_copy(rb, pos, &out[n], h.size);
		n++;
		pos += h.size;
	}
	return n;
}

static int count_type(const struct rec *r, int n, uint32_t type)
{
	int i, c = 0;

	for (i = 0; i < n; i++)
		if (r[i].h.type == type)
			c++;
	return c;
}

/* The fields of a sample that the tests look at. */
struct sample {
	uint64_t ident, ip, time, addr, id, period;
	uint32_t pid, tid, cpu;
	int ok;
};

/* Decode a PERF_RECORD_SAMPLE of sample_type @st. */
static struct sample parse_sample(const struct perf_event_header *h,
				  uint64_t st)
{
	struct rec_cur c = rc_init(h);
	struct sample s;

	memset(&s, 0, sizeof(s));
	if (st & PERF_SAMPLE_IDENTIFIER)
		s.ident = rc_u64(&c);
	if (st & PERF_SAMPLE_IP)
		s.ip = rc_u64(&c);
	if (st & PERF_SAMPLE_TID) {
		s.pid = rc_u32(&c);
		s.tid = rc_u32(&c);
	}
	if (st & PERF_SAMPLE_TIME)
		s.time = rc_u64(&c);
	if (st & PERF_SAMPLE_ADDR)
		s.addr = rc_u64(&c);
	if (st & PERF_SAMPLE_ID)
		s.id = rc_u64(&c);
	if (st & PERF_SAMPLE_STREAM_ID)
		rc_u64(&c);
	if (st & PERF_SAMPLE_CPU) {
		s.cpu = rc_u32(&c);
		rc_u32(&c);
	}
	if (st & PERF_SAMPLE_PERIOD)
		s.period = rc_u64(&c);
	s.ok = rc_ok(&c) && !rc_left(&c) && h->type == PERF_RECORD_SAMPLE;
	return s;
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

static pid_t gettid_(void)
{
	return syscall(SYS_gettid);
}

/*
 * Wait until task @pid sleeps (state S in /proc), then a little more, so
 * that it is switched out: no more faults or sched-out updates from it.
 */
static void wait_asleep(pid_t pid)
{
	char path[64], buf[256], *p;
	int i, fd, n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	for (i = 0; i < 2000; i++) {
		fd = open(path, O_RDONLY);
		if (fd < 0)
			break;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		buf[n > 0 ? n : 0] = 0;
		p = strrchr(buf, ')');
		if (p && p[1] == ' ' && p[2] == 'S')
			break;
		usleep(1000);
	}
	usleep(20000);
}

/* The kernel's taint flags for a warning (W) and an oops (D). */
#define TAINT_WD	((1 << 9) | (1 << 7))

/* Those of them that are set now (0 if unknown). */
static long taint_wd(void)
{
	long t = 0;

	read_file_long("/proc/sys/kernel/tainted", &t);
	return t & TAINT_WD;
}

/* revents of poll(@fd) with every input/output bit requested, or -1. */
static int poll_all(int fd, int timeout_ms)
{
	struct pollfd p = {
		.fd = fd,
		.events = POLLIN | POLLRDNORM | POLLPRI | POLLOUT | POLLRDBAND,
	};
	int ret = poll(&p, 1, timeout_ms);

	return ret < 0 ? -1 : p.revents;
}

/* A poll() in a thread, and how long it took. */
struct poller {
	int fd;
	int timeout_ms;
	int revents;
	uint64_t ns;
};

static void *poll_thread(void *arg)
{
	struct poller *p = arg;
	uint64_t t0 = mono_ns();

	p->revents = poll_all(p->fd, p->timeout_ms);
	p->ns = mono_ns() - t0;
	return NULL;
}

/* Route @fd's SIGIO (or @sig with F_SETSIG, if non-zero) to this process. */
static int make_async(int fd, int sig)
{
	if (fcntl(fd, F_SETOWN, getpid()))
		return -1;
	if (sig && fcntl(fd, F_SETSIG, sig))
		return -1;
	return fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_ASYNC);
}

static void block_sig(int sig)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_BLOCK, &set, NULL);
}

/* Collect pending @sig (blocked) into @out; stop after @ms without one. */
static int collect_sigs(int sig, siginfo_t *out, int max, int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	siginfo_t si;
	sigset_t set;
	int n = 0;

	sigemptyset(&set);
	sigaddset(&set, sig);
	while (sigtimedwait(&set, &si, &ts) == sig) {
		if (n < max)
			out[n] = si;
		n++;
	}
	return n;
}

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
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
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

	f = fopen("/sys/devices/system/clocksource/clocksource0/"
		  "current_clocksource", "r");
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
	EXPECT_LE(t0, s.time + 1000) TH_LOG("t0 %llu sample %llu",
		(unsigned long long)t0, (unsigned long long)s.time);
	EXPECT_LE(s.time, t1 + 1000) TH_LOG("sample %llu t1 %llu",
		(unsigned long long)s.time, (unsigned long long)t1);
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

/*
 * PERF_EVENT_IOC_SET_OUTPUT to @target (-1: detach).  The argument is
 * passed as a long: the kernel compares it with -1 as an unsigned long.
 */
static int set_output(int fd, int target)
{
	return ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, (long)target) ? -errno : 0;
}

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
	ASSERT_GT(rb_fetch(&rb), 0) TH_LOG("count %llu head %llu",
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

struct hammer {
	volatile int stop;
	volatile pid_t tid;
	uint64_t loops;
};

/*
 * Fault in fresh pages as fast as possible until told to stop (the test
 * kernels have no madvise(), so each round maps new memory).
 */
static void *fault_thread(void *arg)
{
	struct hammer *h = arg;

	h->tid = gettid_();
	while (!h->stop) {
		touch_pages(8);
		h->loops++;
	}
	return NULL;
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
		rl.rlim_cur = rl.rlim_max = t->rlimit_pages * psz;
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
/* Wakeups: poll, epoll                                                 */
/* ------------------------------------------------------------------ */

/*
 * The kernel's wakeup rules, replayed record by record: a byte watermark
 * (rb->wakeup moves on by one watermark when a reservation ends more
 * than a watermark past it) and, without attr.watermark, a wakeup every
 * wakeup_events samples.
 */
struct wake_model {
	uint64_t wakeup;	/* bytes */
	uint64_t wm;
	int every, events;
};

static int model_record(struct wake_model *m, uint64_t head)
{
	int wake = 0;

	if (head - m->wakeup > m->wm) {
		m->wakeup += m->wm;
		wake = 1;
	}
	if (m->every && ++m->events >= m->every) {
		m->events -= m->every;
		wake = 1;
	}
	return wake;
}

/*
 * Fault pages one by one with @fd enabled and compare poll() after each
 * with the model: POLLIN|POLLRDNORM exactly when a wakeup happened since
 * the last poll (poll() consumes the state).  @rsize is the record size.
 */
static int check_wakeups(struct __test_metadata *_metadata, int fd,
			 struct perf_rb *rb, struct wake_model *m,
			 unsigned int rsize, int pages)
{
	uint64_t head, prev = 0;
	int i, want, got, wakes = 0;
	char *p = map_anon(pages);

	if (!p)
		return -1;
	ev_enable(fd);
	for (i = 0; i < pages; i++) {
		touch_range(p + i * psz, 1);
		head = rb_head(rb);
		want = 0;
		while (prev != head) {
			prev += rsize;
			want |= model_record(m, prev);
		}
		got = poll_all(fd, 0);
		EXPECT_EQ(got, want ? POLLIN | POLLRDNORM : 0)
			TH_LOG("page %d head %llu", i,
			       (unsigned long long)head);
		wakes += want;
	}
	ev_disable(fd);
	munmap(p, pages * psz);
	return wakes;
}

/* No record, no POLLIN; and poll() never reports POLLOUT or POLLPRI. */
TEST(poll_empty_buffer)
{
	struct perf_rb rb;
	int fd = open_faults(ST_IT, 0, -1);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(map_prot(&rb, fd, 1, PROT_READ | PROT_WRITE), 0);
	EXPECT_EQ(poll_all(fd, 0), 0);
	EXPECT_EQ(poll_all(fd, 50), 0);
	rb_unmap(&rb);
	close(fd);
}

/* wakeup_events = 4: POLLIN after every 4th sample, and only then. */
TEST(poll_wakeup_events)
{
	struct wake_model m = { 0 };
	struct perf_event_attr a;
	struct perf_rb rb;
	int fd;

	fault_attr(&a, ST_IT);
	a.wakeup_events = 4;
	fd = open_attr(&a, 0, -1);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(map_prot(&rb, fd, 2, PROT_READ | PROT_WRITE), 0);
	m.wm = rb.data_size / 2;
	m.every = 4;
	EXPECT_GE(check_wakeups(_metadata, fd, &rb, &m, 24, 30), 7);
	rb_unmap(&rb);
	close(fd);
}

/*
 * Without wakeup_events or a watermark, the watermark is half the buffer:
 * the first POLLIN comes with the record that ends past 2048 bytes of a
 * one-page buffer.
 */
TEST(poll_default_half_buffer)
{
	struct wake_model m = { 0 };
	struct perf_rb rb;
	int fd = open_faults(ST_IT, 0, -1);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(map_prot(&rb, fd, 1, PROT_READ | PROT_WRITE), 0);
	m.wm = rb.data_size / 2;
	EXPECT_EQ(check_wakeups(_metadata, fd, &rb, &m, 24, 120), 1);
	rb_unmap(&rb);
	close(fd);
}

/* attr.watermark with wakeup_watermark = 100 bytes: records 5, 9, 13 ... */
TEST(poll_watermark_bytes)
{
	struct wake_model m = { 0 };
	struct perf_event_attr a;
	struct perf_rb rb;
	int fd;

	fault_attr(&a, ST_IT);
	a.watermark = 1;
	a.wakeup_watermark = 100;
	fd = open_attr(&a, 0, -1);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(map_prot(&rb, fd, 1, PROT_READ | PROT_WRITE), 0);
	m.wm = 100;
	EXPECT_GE(check_wakeups(_metadata, fd, &rb, &m, 24, 40), 9);
	rb_unmap(&rb);
	close(fd);
}

/*
 * A watermark larger than the buffer is clamped to the buffer size
 * (observable in an overwrite buffer, where head can get that far).
 */
TEST(poll_watermark_clamped)
{
	struct wake_model m = { 0 };
	struct perf_event_attr a;
	struct perf_rb rb;
	int fd;

	fault_attr(&a, ST_IT);
	a.watermark = 1;
	a.wakeup_watermark = 1 << 20;
	fd = open_attr(&a, 0, -1);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(map_prot(&rb, fd, 1, PROT_READ), 0);
	m.wm = rb.data_size;
	EXPECT_EQ(check_wakeups(_metadata, fd, &rb, &m, 24, 200), 1);
	rb_unmap(&rb);
	close(fd);
}

/*
 * epoll sees the wakeup; as poll() it consumes the state, so a second
 * level-triggered epoll_wait() finds nothing until the next wakeup.
 */
TEST(epoll_readiness)
{
	struct epoll_event ev = { .events = EPOLLIN }, out[2];
	struct perf_event_attr a;
	struct perf_rb rb;
	int fd, ep;

	fault_attr(&a, ST_IT);
	a.wakeup_events = 1;
	fd = open_attr(&a, 0, -1);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(map_prot(&rb, fd, 1, PROT_READ | PROT_WRITE), 0);
	ep = epoll_create1(0);
	ASSERT_GE(ep, 0);
	ev.data.fd = fd;
	ASSERT_EQ(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev), 0);
	EXPECT_EQ(epoll_wait(ep, out, 2, 0), 0);
	faults(fd, 1);
	ASSERT_EQ(epoll_wait(ep, out, 2, 1000), 1);
	EXPECT_EQ(out[0].events, EPOLLIN);
	EXPECT_EQ(out[0].data.fd, fd);
	EXPECT_EQ(epoll_wait(ep, out, 2, 0), 0);
	faults(fd, 1);
	EXPECT_EQ(epoll_wait(ep, out, 2, 1000), 1);
	close(ep);
	rb_unmap(&rb);
	close(fd);
}

/* A blocked poll() is woken by the sample that crosses wakeup_events. */
TEST(poll_blocking_woken_by_sample)
{
	struct poller pl = { .timeout_ms = 10000 };
	struct perf_event_attr a;
	struct hammer h = { 0 };
	struct perf_rb rb;
	pthread_t th, ft;
	int fd;

	fault_attr(&a, ST_IT);
	a.wakeup_events = 1;
	fd = open_attr(&a, 0, -1);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(map_prot(&rb, fd, 4, PROT_READ | PROT_WRITE), 0);
	pl.fd = fd;
	ASSERT_EQ(pthread_create(&th, NULL, poll_thread, &pl), 0);
	usleep(200000);
	EXPECT_EQ(pl.ns, 0);	/* still blocked */
	faults(fd, 1);
	pthread_join(th, NULL);
	EXPECT_EQ(pl.revents, POLLIN | POLLRDNORM);
	EXPECT_LT(pl.ns, 8000000000ULL);
	EXPECT_GE(rb_head(&rb), 24);

	/* Samples from another thread wake it as well (pid = that tid). */
	close(fd);
	rb_unmap(&rb);
	ASSERT_EQ(pthread_create(&ft, NULL, fault_thread, &h), 0);
	while (!h.tid)
		usleep(1000);
	a.disabled = 1;
	fd = open_attr(&a, h.tid, -1);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(map_prot(&rb, fd, 4, PROT_READ), 0);
	pl.fd = fd;
	pl.ns = 0;
	ASSERT_EQ(pthread_create(&th, NULL, poll_thread, &pl), 0);
	usleep(100000);
	ev_enable(fd);
	pthread_join(th, NULL);
	h.stop = 1;
	pthread_join(ft, NULL);
	EXPECT_EQ(pl.revents, POLLIN | POLLRDNORM);
	EXPECT_LT(pl.ns, 8000000000ULL);
	rb_unmap(&rb);
	close(fd);
}

/* ------------------------------------------------------------------ */
/* SIGIO                                                                */
/* ------------------------------------------------------------------ */

/* Without F_SETSIG a plain SIGIO arrives, as SI_KERNEL. */
TEST(sigio_plain)
{
	struct perf_event_attr a;
	struct perf_rb rb;
	siginfo_t si[4];
	int fd;

	block_sig(SIGIO);
	fault_attr(&a, ST_IT);
	a.wakeup_events = 1;
	fd = open_attr(&a, 0, -1);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(map_prot(&rb, fd, 1, PROT_READ | PROT_WRITE), 0);
	ASSERT_EQ(make_async(fd, 0), 0);
	EXPECT_EQ(collect_sigs(SIGIO, si, 4, 50), 0);
	faults(fd, 1);
	ASSERT_GE(collect_sigs(SIGIO, si, 4, 500), 1);
	EXPECT_EQ(si[0].si_code, SI_KERNEL);
	rb_unmap(&rb);
	close(fd);
}

/*
 * With F_SETSIG a real-time signal per overflow, queued, each with
 * si_code POLL_IN, si_fd the event's fd and si_band POLLIN|POLLRDNORM;
 * one per sample even though wakeup_events asks for a poll() wakeup
 * only every 4th.
 */
TEST(sigio_setsig_siginfo)
{
	int sig = SIGRTMIN + 1, fd, n, i;
	struct perf_event_attr a;
	struct perf_rb rb;
	siginfo_t si[64];
	uint64_t count;

	block_sig(sig);
	fault_attr(&a, ST_IT);
	a.wakeup_events = 4;
	fd = open_attr(&a, 0, -1);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(map_prot(&rb, fd, 1, PROT_READ | PROT_WRITE), 0);
	ASSERT_EQ(make_async(fd, sig), 0);
	faults(fd, 8);
	count = read_count(fd);
	n = collect_sigs(sig, si, 64, 300);
	EXPECT_EQ(n, (int)count);
	for (i = 0; i < n && i < 64; i++) {
		EXPECT_EQ(si[i].si_signo, sig);
		EXPECT_EQ(si[i].si_code, POLL_IN);
		EXPECT_EQ(si[i].si_fd, fd);
		EXPECT_EQ(si[i].si_band, POLLIN | POLLRDNORM);
	}
	rb_unmap(&rb);
	close(fd);
}

/* Overflow signals need no ring buffer. */
TEST(sigio_without_buffer)
{
	int sig = SIGRTMIN + 2, fd, n;
	siginfo_t si[64];

	block_sig(sig);
	fd = open_faults(ST_IT, 0, -1);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(make_async(fd, sig), 0);
	faults(fd, 5);
	n = collect_sigs(sig, si, 64, 300);
	EXPECT_EQ(n, (int)read_count(fd));
	EXPECT_GE(n, 5);
	if (n > 0)
		EXPECT_EQ(si[0].si_code, POLL_IN);
	close(fd);
}

/*
 * An inherited copy's overflows signal its original's fasync owner, with
 * the original's fd: each page fault of a forked child brings a signal.
 */
TEST(sigio_from_inherited_copy)
{
	int sig = SIGRTMIN + 4, fd, n;
	struct perf_event_attr a;
	siginfo_t si[64];

	block_sig(sig);
	fault_attr(&a, ST_IT);
	a.inherit = 1;
	fd = open_attr(&a, 0, -1);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(make_async(fd, sig), 0);
	ev_enable(fd);
	ASSERT_EQ(touch_in_child(-1, 8), 0);
	ev_disable(fd);
	n = collect_sigs(sig, si, 64, 300);
	EXPECT_EQ(n, (int)read_count(fd));
	EXPECT_GE(n, 8);
	if (n > 0) {
		EXPECT_EQ(si[n - 1].si_code, POLL_IN);
		EXPECT_EQ(si[n - 1].si_fd, fd);
	}
	close(fd);
}

/*
 * PERF_EVENT_IOC_REFRESH(n): the n-th overflow disables the event and
 * signals POLL_HUP (si_band POLLHUP|POLLERR); the ones before POLL_IN.
 */
TEST(sigio_refresh_pollhup)
{
	int sig = SIGRTMIN + 3, fd, n, i;
	siginfo_t si[64];
	char *p;

	block_sig(sig);
	fd = open_faults(ST_IT, 0, -1);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(make_async(fd, sig), 0);
	p = map_anon(10);
	ASSERT_NE(p, NULL);
	ASSERT_EQ(ioctl(fd, PERF_EVENT_IOC_REFRESH, 3), 0);
	touch_range(p, 10);
	ev_disable(fd);
	n = collect_sigs(sig, si, 64, 300);
	EXPECT_EQ(n, 3);
	EXPECT_EQ(read_count(fd), 3);
	for (i = 0; i < n && i < 64; i++) {
		EXPECT_EQ(si[i].si_code, i == 2 ? POLL_HUP : POLL_IN)
			TH_LOG("signal %d", i);
		EXPECT_EQ(si[i].si_band, i == 2 ? POLLHUP | POLLERR :
			  POLLIN | POLLRDNORM);
	}
	munmap(p, 10 * psz);
	close(fd);
}

/* Clearing O_ASYNC stops the signals. */
TEST(sigio_off)
{
	int sig = SIGRTMIN + 4, fd;
	siginfo_t si[8];

	block_sig(sig);
	fd = open_faults(ST_IT, 0, -1);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(make_async(fd, sig), 0);
	faults(fd, 1);
	EXPECT_GE(collect_sigs(sig, si, 8, 300), 1);
	ASSERT_EQ(fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_ASYNC), 0);
	faults(fd, 3);
	EXPECT_EQ(collect_sigs(sig, si, 8, 100), 0);
	close(fd);
}

/* ------------------------------------------------------------------ */
/* POLLHUP                                                              */
/* ------------------------------------------------------------------ */

/*
 * When the monitored task exits, poll() reports POLLHUP, and only that,
 * even with unread records and a pending POLLIN.
 */
TEST(pollhup_on_exit)
{
	struct perf_event_attr a;
	struct perf_rb rb;
	struct worker w;
	int fd;

	ASSERT_EQ(worker_start(&w), 0);
	/* A first command, so that the new worker's own faults are over. */
	ASSERT_EQ(worker_do(&w, W_TOUCH, 0), 0);
	wait_asleep(w.pid);
	fault_attr(&a, ST_IT);
	a.disabled = 0;
	a.wakeup_events = 1;
	fd = open_attr(&a, w.pid, -1);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(map_prot(&rb, fd, 1, PROT_READ | PROT_WRITE), 0);
	EXPECT_EQ(poll_all(fd, 0), 0);
	ASSERT_EQ(worker_do(&w, W_TOUCH, 2), 0);
	EXPECT_GE(rb_head(&rb), 48);
	ASSERT_EQ(worker_do(&w, W_TOUCH, 2), 0);
	ASSERT_EQ(worker_stop(&w), 0);
	EXPECT_EQ(poll_all(fd, 0), POLLHUP);
	EXPECT_EQ(poll_all(fd, 0), POLLHUP);
	rb_unmap(&rb);
	close(fd);
}

/*
 * The exit of the monitored task sends no SIGIO of its own (it only
 * delivers a signal still pending from an overflow, and each overflow's
 * was delivered already): one signal per overflow in all, whether or
 * not the exiting task faults on its way out.  A buffer can still be
 * mapped after the exit, and poll() says POLLHUP.
 */
TEST(exit_no_sigio_map_after_exit)
{
	int sig = SIGRTMIN + 5, fd, n;
	struct perf_event_attr a;
	struct perf_rb rb;
	struct worker w;
	siginfo_t si[8];

	block_sig(sig);
	ASSERT_EQ(worker_start(&w), 0);
	/*
	 * Let the new worker finish its own (copy-on-write) faults first:
	 * an overflow before O_ASYNC is set leaves a signal pending that
	 * the exit would then deliver.
	 */
	ASSERT_EQ(worker_do(&w, W_TOUCH, 0), 0);
	wait_asleep(w.pid);
	fault_attr(&a, ST_IT);
	a.disabled = 0;
	fd = open_attr(&a, w.pid, -1);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(make_async(fd, sig), 0);
	ASSERT_EQ(worker_do(&w, W_TOUCH, 2), 0);
	n = collect_sigs(sig, si, 8, 300);
	EXPECT_GE(n, 2);
	ASSERT_EQ(worker_stop(&w), 0);
	n += collect_sigs(sig, si, 8, 300);
	EXPECT_EQ(n, (int)read_count(fd));
	ASSERT_EQ(map_prot(&rb, fd, 1, PROT_READ | PROT_WRITE), 0);
	EXPECT_EQ(rb_head(&rb), 0);
	EXPECT_EQ(poll_all(fd, 0), POLLHUP);
	rb_unmap(&rb);
	close(fd);
}

/*
 * An overflow while O_ASYNC is off leaves its signal pending: nothing is
 * sent then, nor when O_ASYNC is turned on, but the next wakeup of the
 * event delivers it, as POLL_IN, merged with that wakeup's own.  Here
 * the next wakeup is the exit of the task, or an overflow on its way
 * out: one signal per overflow after O_ASYNC, and at least one.
 */
TEST(exit_delivers_stale_sigio)
{
	int sig = SIGRTMIN + 6, fd, n;
	struct perf_event_attr a;
	struct worker w;
	siginfo_t si[8];
	uint64_t c0, c1;

	block_sig(sig);
	ASSERT_EQ(worker_start(&w), 0);
	ASSERT_EQ(worker_do(&w, W_TOUCH, 0), 0);
	fault_attr(&a, ST_IT);
	a.disabled = 0;
	fd = open_attr(&a, w.pid, -1);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(worker_do(&w, W_TOUCH, 3), 0);
	wait_asleep(w.pid);
	c0 = read_count(fd);
	EXPECT_GE(c0, 3);
	ASSERT_EQ(make_async(fd, sig), 0);
	EXPECT_EQ(collect_sigs(sig, si, 8, 200), 0);
	ASSERT_EQ(worker_stop(&w), 0);
	n = collect_sigs(sig, si, 8, 300);
	c1 = read_count(fd);
	EXPECT_EQ(n, c1 > c0 ? (int)(c1 - c0) : 1);
	ASSERT_GE(n, 1);
	EXPECT_EQ(si[0].si_code, POLL_IN);
	EXPECT_EQ(si[0].si_fd, fd);
	close(fd);
}

/* A poll() blocked on the event is woken by the task's exit. */
TEST(pollhup_wakes_blocked_poll)
{
	struct poller pl = { .timeout_ms = 10000 };
	struct perf_rb rb;
	struct worker w;
	pthread_t th;
	int fd;

	ASSERT_EQ(worker_start(&w), 0);
	fd = open_faults(ST_IT, w.pid, -1);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(map_prot(&rb, fd, 1, PROT_READ | PROT_WRITE), 0);
	pl.fd = fd;
	ASSERT_EQ(pthread_create(&th, NULL, poll_thread, &pl), 0);
	usleep(100000);
	ASSERT_EQ(worker_send(&w, W_EXIT, 0), 0);
	pthread_join(th, NULL);
	EXPECT_EQ(pl.revents, POLLHUP);
	EXPECT_LT(pl.ns, 8000000000ULL);
	worker_reap(&w);
	rb_unmap(&rb);
	close(fd);
}

/*
 * With inherit (a per-CPU event, so that it can be mapped) POLLHUP waits
 * for the last inheriting child: the task exits first, its child later.
 */
TEST(pollhup_inherit_waits_for_children)
{
	struct perf_event_attr a;
	int go[2], hold[2], fd, i, r = 0;
	struct perf_rb rb;
	pid_t pid;
	char c = 0;

	ASSERT_EQ(pipe(go), 0);
	ASSERT_EQ(pipe(hold), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		close(go[1]);
		close(hold[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		if (fork() == 0) {
			/* The child: lives until the test closes hold[1]. */
			while (read(hold[0], &c, 1) > 0)
				;
			_exit(0);
		}
		_exit(0);
	}
	close(go[0]);
	close(hold[0]);
	fault_attr(&a, ST_IT);
	a.disabled = 0;
	a.inherit = 1;
	fd = open_attr(&a, pid, 0);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(map_prot(&rb, fd, 1, PROT_READ | PROT_WRITE), 0);
	ASSERT_EQ(write(go[1], &c, 1), 1);
	ASSERT_EQ(reap_child(pid), 0);
	usleep(50000);
	EXPECT_EQ(poll_all(fd, 0) & POLLHUP, 0);
	close(hold[1]);
	for (i = 0; i < 200; i++) {
		r = poll_all(fd, 50);
		if (r & POLLHUP)
			break;
	}
	EXPECT_EQ(r, POLLHUP);
	close(go[1]);
	rb_unmap(&rb);
	close(fd);
}

/* ------------------------------------------------------------------ */
/* Many CPUs                                                            */
/* ------------------------------------------------------------------ */

/* Start @fn(@arg) in a thread that runs on @cpu only, from its start. */
static int start_pinned(pthread_t *th, int cpu, void *(*fn)(void *), void *arg)
{
	pthread_attr_t attr;
	cpu_set_t set;
	int ret;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_attr_init(&attr);
	pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	ret = pthread_create(th, &attr, fn, arg);
	pthread_attr_destroy(&attr);
	return ret;
}

struct spinner {
	int cpu;
	volatile pid_t tid;
	uint64_t ns;
	volatile int *go;
	int err;
};

static void *spin_thread(void *arg)
{
	struct spinner *s = arg;

	s->err = sched_getcpu() != s->cpu;
	s->tid = gettid_();
	while (!*s->go)
		usleep(1000);
	if (!s->err)
		burn_ns(s->ns);
	return NULL;
}

/*
 * A cpu-clock sampler (pid -1) on every CPU with a busy thread pinned to
 * each: every buffer gets samples, all stamped with its own CPU, and
 * some of them from the thread pinned there.
 */
TEST(percpu_samplers_all_cpus)
{
	int n = nr_cpus(), fd[MAXCPU], i, j, cnt, own, other;
	struct spinner s[MAXCPU];
	struct perf_event_header *h;
	struct perf_event_attr a;
	struct perf_rb rb[MAXCPU];
	pthread_t th[MAXCPU];
	volatile int go = 0;
	struct sample smp;
	uint64_t st = PERF_SAMPLE_TID | PERF_SAMPLE_CPU;

	ASSERT_LE(n, MAXCPU);
	/* The threads first, so that none runs unpinned while sampled. */
	for (i = 0; i < n; i++) {
		s[i] = (struct spinner){ .cpu = i, .ns = 300000000, .go = &go };
		ASSERT_EQ(start_pinned(&th[i], i, spin_thread, &s[i]), 0);
	}
	for (i = 0; i < n; i++)
		while (!s[i].tid)
			usleep(1000);
	for (i = 0; i < n; i++) {
		sw_attr(&a, PERF_COUNT_SW_CPU_CLOCK);
		a.sample_period = 1000000;
		a.sample_type = st;
		a.wakeup_events = 1;
		fd[i] = open_attr(&a, -1, i);
		ASSERT_GE(fd[i], 0) TH_LOG("cpu %d: %s", i, strerror(errno));
		ASSERT_EQ(rb_map(&rb[i], fd[i], 16), 0);
	}
	go = 1;
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	for (i = 0; i < n; i++) {
		ev_disable(fd[i]);
		ASSERT_EQ(s[i].err, 0);
		ASSERT_GE(rb_fetch(&rb[i]), 0);
		cnt = own = other = 0;
		while ((h = rb_next(&rb[i]))) {
			if (h->type != PERF_RECORD_SAMPLE)
				continue;
			smp = parse_sample(h, st);
			EXPECT_TRUE(smp.ok);
			EXPECT_EQ(smp.cpu, i);
			cnt++;
			for (j = 0; j < n; j++) {
				if (smp.tid != (uint32_t)s[j].tid)
					continue;
				if (j == i)
					own++;
				else
					other++;
			}
		}
		EXPECT_GT(cnt, 10) TH_LOG("cpu %d: %d samples", i, cnt);
		EXPECT_GT(own, 0) TH_LOG("cpu %d: no sample of its spinner", i);
		EXPECT_EQ(other, 0) TH_LOG("cpu %d: another CPU's spinner", i);
		rb_unmap(&rb[i]);
		close(fd[i]);
	}
}

/*
 * Inherited per-task-per-CPU samplers (pid 0, inherit, one per CPU):
 * threads created afterwards write into the buffer of the CPU they run
 * on, with their own tid and that CPU.  The events are enabled (with
 * their inherited children) only once every thread is pinned.
 */
static void *touch_thread(void *arg)
{
	struct spinner *s = arg;

	s->err = sched_getcpu() != s->cpu;
	s->tid = gettid_();
	while (!*s->go)
		usleep(1000);
	if (!s->err)
		touch_pages(50);
	return NULL;
}

TEST(inherit_percpu_buffers_threads)
{
	int n = nr_cpus(), fd[MAXCPU], i, k, mine;
	uint64_t st = PERF_SAMPLE_TID | PERF_SAMPLE_CPU;
	struct perf_event_header *h;
	struct spinner s[MAXCPU];
	struct perf_event_attr a;
	struct perf_rb rb[MAXCPU];
	pthread_t th[MAXCPU];
	volatile int go = 0;
	struct sample smp;

	ASSERT_LE(n, MAXCPU);
	for (i = 0; i < n; i++) {
		fault_attr(&a, st);
		a.inherit = 1;
		fd[i] = open_attr(&a, 0, i);
		ASSERT_GE(fd[i], 0);
		ASSERT_EQ(rb_map(&rb[i], fd[i], 8), 0);
	}
	for (i = 0; i < n; i++) {
		s[i] = (struct spinner){ .cpu = i, .go = &go };
		ASSERT_EQ(start_pinned(&th[i], i, touch_thread, &s[i]), 0);
	}
	for (i = 0; i < n; i++)
		while (!s[i].tid)
			usleep(1000);
	for (i = 0; i < n; i++)
		ASSERT_EQ(ev_enable(fd[i]), 0);
	go = 1;
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	for (i = 0; i < n; i++) {
		ev_disable(fd[i]);
		ASSERT_EQ(s[i].err, 0);
		ASSERT_GE(rb_fetch(&rb[i]), 0);
		mine = 0;
		while ((h = rb_next(&rb[i]))) {
			if (h->type != PERF_RECORD_SAMPLE)
				continue;
			smp = parse_sample(h, st);
			EXPECT_EQ(smp.cpu, i);
			EXPECT_EQ(smp.pid, getpid());
			for (k = 0; k < n; k++)
				if (k != i)
					EXPECT_NE(smp.tid, (uint32_t)s[k].tid);
			mine += smp.tid == (uint32_t)s[i].tid;
		}
		EXPECT_GE(mine, 50) TH_LOG("cpu %d", i);
		rb_unmap(&rb[i]);
		close(fd[i]);
	}
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

/* ------------------------------------------------------------------ */
/* Stress                                                               */
/* ------------------------------------------------------------------ */

#define NSTRESS		8
#define STRESS_NS	3000000000ULL

struct stress {
	volatile int stop;
	pthread_mutex_t lock;
	int fd[NSTRESS];		/* -1 while closed */
	pid_t tids[2];
	uint64_t ops[4];
	int errors;
};

static uint32_t rnd(uint32_t *s)
{
	*s = *s * 1103515245 + 12345;
	return *s >> 8;
}

static int stress_open(struct stress *st, uint32_t *seed)
{
	struct perf_event_attr a;

	fault_attr(&a, ST_ITTA | PERF_SAMPLE_ID);
	a.disabled = 0;
	a.wakeup_events = 1 + rnd(seed) % 4;
	return open_attr(&a, st->tids[rnd(seed) % 2], -1);
}

/* Map and unmap random events with random sizes and protections. */
static void *stress_mapper(void *arg)
{
	struct stress *st = arg;
	uint32_t seed = 1;
	struct perf_rb rb;
	int fd;

	while (!st->stop) {
		pthread_mutex_lock(&st->lock);
		fd = st->fd[rnd(&seed) % NSTRESS];
		if (fd >= 0 && !map_prot(&rb, fd, 1 << (rnd(&seed) % 3),
					 rnd(&seed) & 1 ? PROT_READ :
					 PROT_READ | PROT_WRITE)) {
			pthread_mutex_unlock(&st->lock);
			if (rb_head(&rb) > (1ULL << 40))
				st->errors++;
			poll_all(fd, 0);
			rb_unmap(&rb);
		} else {
			pthread_mutex_unlock(&st->lock);
		}
		st->ops[0]++;
	}
	return NULL;
}

/* Redirect random events to random others, detach, pause. */
static void *stress_redirect(void *arg)
{
	struct stress *st = arg;
	uint32_t seed = 2;
	int a, b;

	while (!st->stop) {
		pthread_mutex_lock(&st->lock);
		a = st->fd[rnd(&seed) % NSTRESS];
		b = st->fd[rnd(&seed) % NSTRESS];
		if (a >= 0 && b >= 0) {
			ioctl(a, PERF_EVENT_IOC_SET_OUTPUT, (long)b);
			ioctl(a, PERF_EVENT_IOC_PAUSE_OUTPUT, rnd(&seed) & 1);
			if (rnd(&seed) & 1)
				ioctl(a, PERF_EVENT_IOC_SET_OUTPUT, -1L);
		}
		pthread_mutex_unlock(&st->lock);
		st->ops[1]++;
	}
	return NULL;
}

/* Close events (possibly mapped by the mapper a moment ago) and reopen. */
static void *stress_reopen(void *arg)
{
	struct stress *st = arg;
	uint32_t seed = 3;
	int i, fd, nfd;

	while (!st->stop) {
		i = rnd(&seed) % NSTRESS;
		nfd = stress_open(st, &seed);
		pthread_mutex_lock(&st->lock);
		fd = st->fd[i];
		st->fd[i] = nfd;
		pthread_mutex_unlock(&st->lock);
		if (fd >= 0)
			close(fd);
		usleep(500);
		st->ops[2]++;
	}
	return NULL;
}

/*
 * Children that map a sampler on themselves and exit or exec with it
 * running, while the parent maps an event on the child and unmaps or
 * closes it at a random moment.
 */
static void *stress_forker(void *arg)
{
	struct stress *st = arg;
	uint32_t seed = 4;
	struct perf_event_attr a;
	struct perf_rb rb;
	int fd, mode, status;
	pid_t pid;

	while (!st->stop) {
		mode = rnd(&seed) % 3;
		pid = fork();
		if (pid < 0)
			break;
		if (pid == 0) {
			int cfd = open_faults(ST_ITA, 0, -1);
			void *m = MAP_FAILED;

			if (cfd >= 0) {
				m = mmap(NULL, 2 * psz, PROT_READ | PROT_WRITE,
					 MAP_SHARED, cfd, 0);
				ev_enable(cfd);
			}
			touch_pages(20);
			(void)m;
			if (mode == 0)
				execl("/bin/true", "true", NULL);
			_exit(0);
		}
		fault_attr(&a, ST_ITA);
		a.disabled = 0;
		a.inherit = 1;
		fd = open_attr(&a, pid, rnd(&seed) % nr_cpus());
		if (fd >= 0 && !map_prot(&rb, fd, 2, PROT_READ)) {
			if (mode == 1)
				rb_unmap(&rb);
			close(fd);
			if (mode != 1)
				rb_unmap(&rb);
		} else if (fd >= 0) {
			close(fd);
		}
		if (waitpid(pid, &status, 0) != pid)
			st->errors++;
		st->ops[3]++;
	}
	return NULL;
}

static void *stress_faulter(void *arg)
{
	struct hammer *h = arg;

	return fault_thread(h);
}

/*
 * Everything at once for a few seconds: the test passes if the process
 * (and the kernel) survives, every thread finishes, and the counts read
 * at the end are no larger than the faults the process took.
 */
TEST(stress_races)
{
	void *(*fn[4])(void *) = {
		stress_mapper, stress_redirect, stress_reopen, stress_forker,
	};
	struct hammer h[2] = { { 0 }, { 0 } };
	pthread_t th[4], ft[2];
	struct stress st;
	long taint = taint_wd();
	struct rusage ru;
	uint32_t seed = 5;
	uint64_t end, c, faults;
	int i;

	memset(&st, 0, sizeof(st));
	pthread_mutex_init(&st.lock, NULL);
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(pthread_create(&ft[i], NULL, stress_faulter, &h[i]),
			  0);
		while (!h[i].tid)
			usleep(1000);
		st.tids[i] = h[i].tid;
	}
	for (i = 0; i < NSTRESS; i++) {
		st.fd[i] = stress_open(&st, &seed);
		ASSERT_GE(st.fd[i], 0);
	}
	for (i = 0; i < 4; i++)
		ASSERT_EQ(pthread_create(&th[i], NULL, fn[i], &st), 0);
	end = mono_ns() + STRESS_NS;
	while (mono_ns() < end)
		usleep(50000);
	st.stop = 1;
	for (i = 0; i < 4; i++)
		ASSERT_EQ(pthread_join(th[i], NULL), 0);
	h[0].stop = h[1].stop = 1;
	for (i = 0; i < 2; i++)
		pthread_join(ft[i], NULL);
	ASSERT_EQ(getrusage(RUSAGE_SELF, &ru), 0);
	/*
	 * perf and the rusage do not count quite the same faults; a
	 * generous bound still catches garbage counts.
	 */
	faults = ru.ru_minflt + ru.ru_majflt;
	for (i = 0; i < NSTRESS; i++) {
		c = read_count(st.fd[i]);
		EXPECT_NE(c, (uint64_t)-1);
		EXPECT_LE(c, 2 * faults + 1000);
		close(st.fd[i]);
	}
	EXPECT_EQ(st.errors, 0);
	/* No kernel warning or oops on the way. */
	EXPECT_EQ(taint_wd(), taint);
	for (i = 0; i < 4; i++)
		EXPECT_GT(st.ops[i], 0) TH_LOG("thread %d did nothing", i);
	TH_LOG("maps %llu redirects %llu reopens %llu forks %llu",
	       (unsigned long long)st.ops[0], (unsigned long long)st.ops[1],
	       (unsigned long long)st.ops[2], (unsigned long long)st.ops[3]);
	pthread_mutex_destroy(&st.lock);
}

TEST_HARNESS_MAIN
