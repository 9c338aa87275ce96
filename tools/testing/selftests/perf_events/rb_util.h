/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the ring buffer tests (rb_map, rb_records, rb_wakeup) share:
 * page-fault samplers, a buffer mapped with a given protection, records
 * copied out of the ring without moving data_tail, the fields of the
 * samples they take, waiting for a task to sleep, poll() and SIGIO.
 *
 * Most tests sample page faults with a period of 1 on the test task
 * itself, user faults only (exclude_kernel), and fault in fresh anonymous
 * pages: one record per page.  Expectations are derived from data_head
 * and the event's own count rather than from an exact number of faults,
 * so that a stray fault does not break a test, while the kernel's
 * arithmetic is still checked to the byte.
 */
#ifndef RB_UTIL_H
#define RB_UTIL_H

#include "perf_util.h"
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

/* A page-fault sampler, period 1, user faults only, disabled. */
static inline void fault_attr(struct perf_event_attr *a, uint64_t st)
{
	sw_attr(a, PERF_COUNT_SW_PAGE_FAULTS);
	a->sample_period = 1;
	a->sample_type = st;
	a->disabled = 1;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
}

static inline int open_attr(struct perf_event_attr *a, pid_t pid, int cpu)
{
	return sys_perf_event_open(a, pid, cpu, -1, 0);
}

/* A disabled page-fault sampler with sample_type @st on @pid/@cpu. */
static inline int open_faults(uint64_t st, pid_t pid, int cpu)
{
	struct perf_event_attr a;

	fault_attr(&a, st);
	return open_attr(&a, pid, cpu);
}

static inline int ev_enable(int fd)
{
	return ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
}

static inline int ev_disable(int fd)
{
	return ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
}

/* The lost count of an event opened with read_format PERF_FORMAT_LOST. */
static inline uint64_t read_lost(int fd)
{
	uint64_t v[2];

	if (read(fd, v, sizeof(v)) != sizeof(v))
		return (uint64_t)-1;
	return v[1];
}

/* The count of an event opened with read_format PERF_FORMAT_LOST. */
static inline uint64_t read_cnt(int fd)
{
	uint64_t v[2];

	if (read(fd, v, sizeof(v)) != sizeof(v))
		return (uint64_t)-1;
	return v[0];
}

/* Fault in the @n pages at @p with @fd enabled only meanwhile. */
static inline void faults_at(int fd, char *p, int n)
{
	ev_enable(fd);
	touch_range(p, n);
	ev_disable(fd);
}

/* Fault in @n fresh pages with @fd enabled only meanwhile. */
static inline void faults(int fd, int n)
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
static inline int map_prot(struct perf_rb *rb, int fd, int data_pages, int prot)
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
static inline int try_mmap(int fd, size_t len, int prot, int flags, off_t off)
{
	void *m = mmap(NULL, len, prot, flags, fd, off);

	if (m == MAP_FAILED)
		return -errno;
	munmap(m, len);
	return 0;
}

/* mmap() of 1 + @data_pages pages, read-write and shared: 0 or -errno. */
static inline int try_map_pages(int fd, int data_pages)
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
static inline void ring_copy(const struct perf_rb *rb, uint64_t pos, void *dst,
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
static inline int peek(const struct perf_rb *rb, uint64_t from, uint64_t to,
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

/* The fields of a sample that the tests look at. */
struct sample {
	uint64_t ident, ip, time, addr, id, period;
	uint32_t pid, tid, cpu;
	int ok;
};

/* Decode a PERF_RECORD_SAMPLE of sample_type @st. */
static inline struct sample parse_sample(const struct perf_event_header *h,
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

static inline pid_t gettid_(void)
{
	return syscall(SYS_gettid);
}

/*
 * Wait until task @pid sleeps (state S in /proc), then a little more, so
 * that it is switched out: no more faults or sched-out updates from it.
 */
static inline void wait_asleep(pid_t pid)
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
static inline long taint_wd(void)
{
	long t = 0;

	read_file_long("/proc/sys/kernel/tainted", &t);
	return t & TAINT_WD;
}

/* revents of poll(@fd) with every input/output bit requested, or -1. */
static inline int poll_all(int fd, int timeout_ms)
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

static inline void *poll_thread(void *arg)
{
	struct poller *p = arg;
	uint64_t t0 = mono_ns();

	p->revents = poll_all(p->fd, p->timeout_ms);
	p->ns = mono_ns() - t0;
	return NULL;
}

/* Route @fd's SIGIO (or @sig with F_SETSIG, if non-zero) to this process. */
static inline int make_async(int fd, int sig)
{
	if (fcntl(fd, F_SETOWN, getpid()))
		return -1;
	if (sig && fcntl(fd, F_SETSIG, sig))
		return -1;
	return fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_ASYNC);
}

static inline void block_sig(int sig)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_BLOCK, &set, NULL);
}

/* Collect pending @sig (blocked) into @out; stop after @ms without one. */
static inline int collect_sigs(int sig, siginfo_t *out, int max, int ms)
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

/*
 * PERF_EVENT_IOC_SET_OUTPUT to @target (-1: detach).  The argument is
 * passed as a long: the kernel compares it with -1 as an unsigned long.
 */
static inline int set_output(int fd, int target)
{
	return ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, (long)target) ? -errno : 0;
}

/* A thread faulting pages in: fault_thread()'s state. */
struct hammer {
	volatile int stop;
	volatile pid_t tid;
	uint64_t loops;
};

/*
 * Fault in fresh pages as fast as possible until told to stop (the test
 * kernels have no madvise(), so each round maps new memory).
 */
static inline void *fault_thread(void *arg)
{
	struct hammer *h = arg;

	h->tid = gettid_();
	while (!h->stop) {
		touch_pages(8);
		h->loops++;
	}
	return NULL;
}

#endif /* RB_UTIL_H */
