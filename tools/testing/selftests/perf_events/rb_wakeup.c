// SPDX-License-Identifier: GPL-2.0
/*
 * Readers of the perf mmap ring buffer told that there is something to
 * read, and many writers at once:
 *
 *  - wakeups (wakeup_events, watermarks, poll/epoll), SIGIO, POLLHUP;
 *  - per-CPU buffers on every CPU, and a stress run that races mapping,
 *    redirection, close, fork, exec and exit against records in flight.
 *
 * The stress run comes last: a kernel that gets it wrong may not be good
 * for much afterwards.
 */
#include "../kselftest_harness.h"
#include <pthread.h>
#include <sys/epoll.h>
#include "perf_worker.h"
#include "rb_util.h"

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
		cnt = 0;
		own = 0;
		other = 0;
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
	h[0].stop = 1;
	h[1].stop = 1;
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
