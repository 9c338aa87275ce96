// SPDX-License-Identifier: GPL-2.0
/*
 * Side-band records in the mmap ring buffer: MMAP and MMAP2 (with and
 * without build ids, data mappings), COMM (prctl, threads, exec), FORK
 * and EXIT (processes, threads, inherited events, a watched process),
 * NAMESPACES, SWITCH and SWITCH_CPU_WIDE, THROTTLE and UNTHROTTLE, LOST,
 * READ (inherit_stat), the record types this configuration never produces
 * (TEXT_POKE, KSYMBOL, BPF_EVENT, CGROUP), and the sample_id trailer that
 * sample_id_all appends to all of them.
 *
 * Most tests use a dummy software event that only asks for side-band
 * records, with sample_id_all and every sample_id bit: the trailer is
 * {pid, tid, time, id, stream_id, cpu, res, identifier}.
 */
#include "../kselftest_harness.h"
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "perf_worker.h"
#include "perf_rb.h"

#define RB_PAGES	16

/* In loops over records: stop at the first failed expectation. */
#define LOOP_FAILED()	(_metadata->exit_code == KSFT_FAIL)


/* struct perf_event_header + the fixed part of each record type. */
#define MMAP_FIXED	(8 + 8 + 24)		/* pid, tid, addr, len, pgoff */
#define MMAP2_FIXED	(MMAP_FIXED + 24 + 8)	/* maj..ino_gen, prot, flags */
#define COMM_FIXED	(8 + 8)
#define TASK_SIZE_REC	(8 + 16 + 8)		/* pid, ppid, tid, ptid, time */
#define NS_SIZE_REC	(8 + 8 + 8 + 7 * 16)
#define THROTTLE_SIZE	(8 + 24)
#define LOST_SIZE	(8 + 16)

#define ALIGN8(x)	(((x) + 7) & ~7UL)

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
static void sb_attr(struct perf_event_attr *a)
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
static int sb_open_on(struct sb *s, pid_t pid, int cpu)
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

static int sb_open(struct sb *s)
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
static int sb_open_inherited(struct sb *s)
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

static void sb_close(struct sb *s)
{
	if (s->fd >= 0)
		close(s->fd);
	if (s->noswap_fd > 0)
		close(s->noswap_fd);
	rb_unmap(&s->rb);
	s->fd = -1;
	s->noswap_fd = 0;
}

static void sb_on(struct sb *s)
{
	ioctl(s->fd, PERF_EVENT_IOC_ENABLE, 0);
}

static long sb_off(struct sb *s)
{
	ioctl(s->fd, PERF_EVENT_IOC_DISABLE, 0);
	return rb_fetch(&s->rb);
}

/*
 * Check the sample_id trailer of @h: the task that was current, a time
 * within [@t0, @t1] (0 to skip), the event's ID in id, stream_id and
 * identifier, @cpu unless -1.
 */
static void check_sid(struct __test_metadata *_metadata,
		      const struct perf_event_header *h, uint64_t id,
		      pid_t pid, pid_t tid, uint64_t t0, uint64_t t1, int cpu)
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
static int parse_mmap(const struct perf_event_header *h, int sid,
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
 * The MMAP or MMAP2 record of @s for address @addr; @cnt gets the number
 * of such records.  NULL if none.
 */
static struct perf_event_header *mmap_at(struct sb *s, uint64_t addr, int *cnt)
{
	struct perf_event_header *h, *found = NULL;
	struct mmap_rec m;

	*cnt = 0;
	rb_rewind(&s->rb);
	while ((h = rb_next(&s->rb))) {
		if (h->type != PERF_RECORD_MMAP && h->type != PERF_RECORD_MMAP2)
			continue;
		if (parse_mmap(h, s->attr.sample_id_all, &m))
			continue;
		if (m.addr == addr) {
			if (!found)
				found = h;
			(*cnt)++;
		}
	}
	return found;
}

/* The kernel's name of the file open as @fd (d_path, as in the record). */
static void fd_path(int fd, char *buf, size_t len)
{
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, buf, len - 1);
	buf[n > 0 ? n : 0] = 0;
}

/* A file of @pages pages in /tmp (a tmpfs in the test machine); its fd. */
static int tmp_file(int pages, char *path, size_t len)
{
	char buf[4096];
	int fd, i;

	snprintf(path, len, "/tmp/perf-sideband-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	memset(buf, 0xc3, sizeof(buf));	/* ret */
	for (i = 0; i < pages; i++)
		if (write(fd, buf, sizeof(buf)) != sizeof(buf))
			return -1;
	return fd;
}

/*
 * mmap() between two PROT_NONE pages, so that the new mapping cannot be
 * merged with a neighbour (a record describes the whole merged area).
 */
static void *map_alone(size_t len, int prot, int flags, int fd, off_t off)
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

/*
 * An executable file mapping: MMAP with the exact address, length, page
 * offset and file name (zero padded to 8 bytes), misc USER.
 */
TEST(mmap_exec_file)
{
	char path[64], kpath[256];
	struct sb s = { .fd = -1 };
	struct perf_event_header *h;
	struct mmap_rec m;
	uint64_t t0, t1;
	int fd, cnt;
	void *p;

	ASSERT_EQ(pin_to_cpu(0), 0);
	fd = tmp_file(4, path, sizeof(path));
	ASSERT_GE(fd, 0);
	fd_path(fd, kpath, sizeof(kpath));
	sb_attr(&s.attr);
	s.attr.mmap = 1;
	ASSERT_EQ(sb_open(&s), 0);
	t0 = mono_ns();
	sb_on(&s);
	p = map_alone(2 * page_size(), PROT_READ | PROT_EXEC, MAP_PRIVATE, fd,
		      page_size());
	ASSERT_NE(p, NULL);
	ASSERT_GE(sb_off(&s), 0);
	t1 = mono_ns();
	h = mmap_at(&s, (uint64_t)p, &cnt);
	ASSERT_NE(h, NULL);
	EXPECT_EQ(cnt, 1);
	EXPECT_EQ(h->type, PERF_RECORD_MMAP);
	ASSERT_EQ(parse_mmap(h, 1, &m), 0);
	EXPECT_EQ(m.misc, PERF_RECORD_MISC_USER);
	EXPECT_EQ(m.pid, getpid());
	EXPECT_EQ(m.tid, gettid());
	EXPECT_EQ(m.len, 2 * page_size());
	EXPECT_EQ(m.pgoff, page_size());
	EXPECT_STREQ(m.name, kpath);
	EXPECT_EQ(m.name_space, ALIGN8(strlen(kpath) + 1));
	EXPECT_EQ(m.size, MMAP_FIXED + ALIGN8(strlen(kpath) + 1) + SID_SIZE);
	/* The padding is zeroed. */
	EXPECT_EQ(m.name[m.name_space - 1], 0);
	check_sid(_metadata, h, s.id, getpid(), gettid(), t0, t1, 0);
	/* The PROT_NONE guard pages are data: not reported. */
	EXPECT_EQ(rb_count(&s.rb, PERF_RECORD_MMAP), 1);
	sb_close(&s);
	unlink(path);
}

/* Anonymous executable memory: "//anon", and pgoff is the address. */
TEST(mmap_anon_exec)
{
	struct sb s = { .fd = -1 };
	struct perf_event_header *h;
	struct mmap_rec m;
	int cnt;
	void *p;

	sb_attr(&s.attr);
	s.attr.mmap = 1;
	ASSERT_EQ(sb_open(&s), 0);
	sb_on(&s);
	p = map_alone(3 * page_size(), PROT_READ | PROT_EXEC,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(p, NULL);
	ASSERT_GE(sb_off(&s), 0);
	h = mmap_at(&s, (uint64_t)p, &cnt);
	ASSERT_NE(h, NULL);
	ASSERT_EQ(parse_mmap(h, 1, &m), 0);
	EXPECT_EQ(m.misc, PERF_RECORD_MISC_USER);
	EXPECT_EQ(m.len, 3 * page_size());
	EXPECT_EQ(m.pgoff, (uint64_t)p);
	EXPECT_STREQ(m.name, "//anon");
	EXPECT_EQ(m.size, MMAP_FIXED + 8 + SID_SIZE);
	sb_close(&s);
}

/*
 * Data mappings are reported only with mmap_data, with misc MMAP_DATA;
 * mmap_data alone does not report executable mappings.
 */
TEST(mmap_data_mappings)
{
	char path[64], kpath[256];
	struct sb s = { .fd = -1 };
	struct perf_event_header *h;
	void *anon, *file, *exec;
	struct mmap_rec m;
	int fd, cnt;

	fd = tmp_file(4, path, sizeof(path));
	ASSERT_GE(fd, 0);
	fd_path(fd, kpath, sizeof(kpath));

	/* mmap only: no data records. */
	sb_attr(&s.attr);
	s.attr.mmap = 1;
	ASSERT_EQ(sb_open(&s), 0);
	sb_on(&s);
	anon = map_alone(page_size(), PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(anon, NULL);
	ASSERT_GE(sb_off(&s), 0);
	EXPECT_EQ(mmap_at(&s, (uint64_t)anon, &cnt), NULL);
	sb_close(&s);

	/* mmap_data only: data records, no executable ones. */
	sb_attr(&s.attr);
	s.attr.mmap_data = 1;
	ASSERT_EQ(sb_open(&s), 0);
	sb_on(&s);
	anon = map_alone(2 * page_size(), PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	file = map_alone(page_size(), PROT_READ, MAP_SHARED, fd,
			 2 * page_size());
	exec = map_alone(page_size(), PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	ASSERT_NE(anon, NULL);
	ASSERT_NE(file, NULL);
	ASSERT_NE(exec, NULL);
	ASSERT_GE(sb_off(&s), 0);

	h = mmap_at(&s, (uint64_t)anon, &cnt);
	ASSERT_NE(h, NULL);
	EXPECT_EQ(cnt, 1);
	EXPECT_EQ(h->type, PERF_RECORD_MMAP);
	ASSERT_EQ(parse_mmap(h, 1, &m), 0);
	EXPECT_EQ(m.misc, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_DATA);
	EXPECT_EQ(m.len, 2 * page_size());
	EXPECT_EQ(m.pgoff, (uint64_t)anon);
	EXPECT_STREQ(m.name, "//anon");

	h = mmap_at(&s, (uint64_t)file, &cnt);
	ASSERT_NE(h, NULL);
	ASSERT_EQ(parse_mmap(h, 1, &m), 0);
	EXPECT_EQ(m.misc, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_DATA);
	EXPECT_EQ(m.len, page_size());
	EXPECT_EQ(m.pgoff, 2 * page_size());
	EXPECT_STREQ(m.name, kpath);

	EXPECT_EQ(mmap_at(&s, (uint64_t)exec, &cnt), NULL);
	/* The PROT_NONE reservations of map_alone() are data too. */
	EXPECT_NE(mmap_at(&s, (uint64_t)anon - page_size(), &cnt), NULL);
	sb_close(&s);
	unlink(path);
}

/*
 * Mapping another event's ring buffer is a data mapping of the event's
 * anon inode file: "anon_inode:[perf_event]", shared, read-write.
 */
TEST(mmap_data_of_perf_buffer)
{
	struct sb s = { .fd = -1 };
	struct perf_event_header *h;
	struct perf_event_attr a;
	struct mmap_rec m;
	int fd, cnt;
	void *p;

	sb_attr(&s.attr);
	s.attr.mmap = 1;
	s.attr.mmap2 = 1;
	s.attr.mmap_data = 1;
	ASSERT_EQ(sb_open(&s), 0);
	sw_attr(&a, PERF_COUNT_SW_DUMMY);
	fd = sys_perf_event_open(&a, 0, -1, -1, 0);
	ASSERT_GE(fd, 0);
	sb_on(&s);
	p = mmap(NULL, 3 * page_size(), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(p, MAP_FAILED);
	/* Unmapping writes no record. */
	munmap(p, 3 * page_size());
	ASSERT_GE(sb_off(&s), 0);
	EXPECT_EQ(rb_count(&s.rb, PERF_RECORD_MMAP2), 1);
	h = mmap_at(&s, (uint64_t)p, &cnt);
	ASSERT_NE(h, NULL);
	ASSERT_EQ(parse_mmap(h, 1, &m), 0);
	EXPECT_EQ(m.misc, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_DATA);
	EXPECT_STREQ(m.name, "anon_inode:[perf_event]");
	EXPECT_EQ(m.len, 3 * page_size());
	EXPECT_EQ(m.pgoff, 0);
	EXPECT_EQ(m.maj, 0);
	EXPECT_EQ(m.prot, PROT_READ | PROT_WRITE);
	EXPECT_EQ(m.flags, MAP_SHARED);
	close(fd);
	sb_close(&s);
}

/*
 * MMAP2: device and inode of the file as stat(2) reports them, prot and
 * flags from the mapping (MAP_PRIVATE, MAP_SHARED, MAP_LOCKED).
 */
TEST(mmap2_file_fields)
{
	char path[64], kpath[256];
	struct sb s = { .fd = -1 };
	struct perf_event_header *h;
	void *priv, *shared, *locked;
	struct mmap_rec m, m2;
	struct stat st;
	int fd, cnt;

	fd = tmp_file(4, path, sizeof(path));
	ASSERT_GE(fd, 0);
	ASSERT_EQ(fstat(fd, &st), 0);
	fd_path(fd, kpath, sizeof(kpath));
	sb_attr(&s.attr);
	s.attr.mmap2 = 1;
	s.attr.mmap_data = 1;
	ASSERT_EQ(sb_open(&s), 0);
	sb_on(&s);
	priv = map_alone(page_size(), PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	shared = map_alone(2 * page_size(), PROT_READ | PROT_WRITE, MAP_SHARED,
			   fd, page_size());
	locked = map_alone(page_size(), PROT_EXEC, MAP_PRIVATE | MAP_LOCKED, fd,
			   3 * page_size());
	ASSERT_NE(priv, NULL);
	ASSERT_NE(shared, NULL);
	ASSERT_NE(locked, NULL);
	ASSERT_GE(sb_off(&s), 0);

	h = mmap_at(&s, (uint64_t)priv, &cnt);
	ASSERT_NE(h, NULL);
	EXPECT_EQ(h->type, PERF_RECORD_MMAP2);
	ASSERT_EQ(parse_mmap(h, 1, &m), 0);
	EXPECT_EQ(m.misc, PERF_RECORD_MISC_USER);
	EXPECT_EQ(m.size, MMAP2_FIXED + ALIGN8(strlen(kpath) + 1) + SID_SIZE);
	EXPECT_EQ(m.pid, getpid());
	EXPECT_EQ(m.len, page_size());
	EXPECT_EQ(m.pgoff, 0);
	EXPECT_EQ(m.maj, major(st.st_dev));
	EXPECT_EQ(m.min, minor(st.st_dev));
	EXPECT_EQ(m.ino, st.st_ino);
	EXPECT_EQ(m.prot, PROT_READ | PROT_EXEC);
	EXPECT_EQ(m.flags, MAP_PRIVATE);
	EXPECT_STREQ(m.name, kpath);

	h = mmap_at(&s, (uint64_t)shared, &cnt);
	ASSERT_NE(h, NULL);
	ASSERT_EQ(parse_mmap(h, 1, &m2), 0);
	EXPECT_EQ(m2.misc, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_DATA);
	EXPECT_EQ(m2.pgoff, page_size());
	EXPECT_EQ(m2.ino, st.st_ino);
	/* The same inode, the same generation. */
	EXPECT_EQ(m2.ino_gen, m.ino_gen);
	EXPECT_EQ(m2.prot, PROT_READ | PROT_WRITE);
	EXPECT_EQ(m2.flags, MAP_SHARED);

	h = mmap_at(&s, (uint64_t)locked, &cnt);
	ASSERT_NE(h, NULL);
	ASSERT_EQ(parse_mmap(h, 1, &m2), 0);
	EXPECT_EQ(m2.misc, PERF_RECORD_MISC_USER);
	EXPECT_EQ(m2.prot, PROT_EXEC);
	EXPECT_EQ(m2.flags, MAP_PRIVATE | MAP_LOCKED);
	sb_close(&s);
	unlink(path);
}

/* MMAP2 of anonymous memory: no device, inode or generation. */
TEST(mmap2_anon_fields)
{
	struct sb s = { .fd = -1 };
	struct perf_event_header *h;
	struct mmap_rec m;
	int cnt;
	void *p;

	sb_attr(&s.attr);
	s.attr.mmap2 = 1;
	s.attr.mmap_data = 1;
	ASSERT_EQ(sb_open(&s), 0);
	sb_on(&s);
	p = map_alone(page_size(), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(p, NULL);
	ASSERT_GE(sb_off(&s), 0);
	h = mmap_at(&s, (uint64_t)p, &cnt);
	ASSERT_NE(h, NULL);
	ASSERT_EQ(parse_mmap(h, 1, &m), 0);
	EXPECT_EQ(m.misc, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_DATA);
	/* Shared anonymous memory is a shmem file: "/dev/zero (deleted)". */
	EXPECT_STREQ(m.name, "/dev/zero (deleted)");
	EXPECT_EQ(m.pgoff, 0);
	EXPECT_EQ(m.maj, 0);
	EXPECT_NE(m.ino, 0);
	EXPECT_EQ(m.prot, PROT_READ | PROT_WRITE);
	EXPECT_EQ(m.flags, MAP_SHARED);
	sb_close(&s);

	sb_attr(&s.attr);
	s.attr.mmap = 1;
	s.attr.mmap2 = 1;
	ASSERT_EQ(sb_open(&s), 0);
	sb_on(&s);
	p = map_alone(page_size(), PROT_READ | PROT_EXEC,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(p, NULL);
	ASSERT_GE(sb_off(&s), 0);
	h = mmap_at(&s, (uint64_t)p, &cnt);
	ASSERT_NE(h, NULL);
	ASSERT_EQ(parse_mmap(h, 1, &m), 0);
	EXPECT_STREQ(m.name, "//anon");
	EXPECT_EQ(m.pgoff, (uint64_t)p);
	EXPECT_EQ(m.maj, 0);
	EXPECT_EQ(m.min, 0);
	EXPECT_EQ(m.ino, 0);
	EXPECT_EQ(m.ino_gen, 0);
	EXPECT_EQ(m.prot, PROT_READ | PROT_EXEC);
	EXPECT_EQ(m.flags, MAP_PRIVATE);
	sb_close(&s);
}

/*
 * mmap2 alone does not make the kernel look for mapping events at all (it
 * counts events with mmap or mmap_data): no MMAP2 record while no other
 * event in the system has mmap or mmap_data set.
 */
TEST(mmap2_needs_mmap_or_mmap_data)
{
	struct sb s = { .fd = -1 };
	void *p;

	sb_attr(&s.attr);
	s.attr.mmap2 = 1;
	ASSERT_EQ(sb_open(&s), 0);
	sb_on(&s);
	p = map_alone(page_size(), PROT_READ | PROT_EXEC,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(p, NULL);
	ASSERT_GE(sb_off(&s), 0);
	EXPECT_EQ(rb_count(&s.rb, 0), 0);
	sb_close(&s);
}

/* The GNU build id of the running program, from its PT_NOTE segments. */
struct bid {
	uint8_t id[32];
	size_t len;
};

static int find_build_id(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct bid *b = arg;
	int i;

	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr);
		const char *end = p + ph->p_memsz;

		if (ph->p_type != PT_NOTE)
			continue;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *n = (const void *)p;
			const char *name = p + sizeof(*n);
			const char *desc = name + ((n->n_namesz + 3) & ~3);

			if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
			    !memcmp(name, "GNU", 4) && n->n_descsz <= 32) {
				memcpy(b->id, desc, n->n_descsz);
				b->len = n->n_descsz;
				return 1;
			}
			p = desc + ((n->n_descsz + 3) & ~3);
		}
	}
	return 1;	/* only the main program, which comes first */
}

/*
 * MMAP2 with build_id: misc MMAP_BUILD_ID, {u8 size, 3 reserved bytes,
 * 20 bytes of id} in place of maj..ino_generation.
 */
TEST(mmap2_build_id)
{
	char kpath[256];
	struct sb s = { .fd = -1 };
	struct perf_event_header *h;
	struct bid b = { .len = 0 };
	struct mmap_rec m;
	int fd, cnt;
	void *p;

	dl_iterate_phdr(find_build_id, &b);
	if (!b.len)
		SKIP(return, "the test program has no build id");
	fd = open("/proc/self/exe", O_RDONLY);
	ASSERT_GE(fd, 0);
	fd_path(fd, kpath, sizeof(kpath));
	sb_attr(&s.attr);
	s.attr.mmap = 1;
	s.attr.mmap2 = 1;
	s.attr.build_id = 1;
	ASSERT_EQ(sb_open(&s), 0);
	sb_on(&s);
	p = map_alone(page_size(), PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	ASSERT_NE(p, NULL);
	ASSERT_GE(sb_off(&s), 0);
	h = mmap_at(&s, (uint64_t)p, &cnt);
	ASSERT_NE(h, NULL);
	EXPECT_EQ(h->type, PERF_RECORD_MMAP2);
	ASSERT_EQ(parse_mmap(h, 1, &m), 0);
	EXPECT_EQ(m.misc, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID);
	EXPECT_EQ(m.build_id_size, b.len);
	EXPECT_EQ(m.reserved[0], 0);
	EXPECT_EQ(m.reserved[1], 0);
	EXPECT_EQ(m.reserved[2], 0);
	EXPECT_EQ(memcmp(m.build_id, b.id, b.len), 0);
	EXPECT_EQ(m.prot, PROT_READ | PROT_EXEC);
	EXPECT_EQ(m.flags, MAP_PRIVATE);
	EXPECT_STREQ(m.name, kpath);
	EXPECT_EQ(m.size, MMAP2_FIXED + ALIGN8(strlen(kpath) + 1) + SID_SIZE);
	sb_close(&s);
	close(fd);
}

/*
 * build_id for a file that is no ELF object: the inode fields as usual;
 * build_id with plain mmap (not mmap2): an MMAP record.
 */
TEST(mmap2_build_id_fallbacks)
{
	char path[64];
	struct sb s = { .fd = -1 };
	struct perf_event_header *h;
	struct mmap_rec m;
	struct stat st;
	int fd, cnt;
	void *p;

	fd = tmp_file(1, path, sizeof(path));
	ASSERT_GE(fd, 0);
	ASSERT_EQ(fstat(fd, &st), 0);
	sb_attr(&s.attr);
	s.attr.mmap = 1;
	s.attr.mmap2 = 1;
	s.attr.build_id = 1;
	ASSERT_EQ(sb_open(&s), 0);
	sb_on(&s);
	p = map_alone(page_size(), PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	ASSERT_NE(p, NULL);
	ASSERT_GE(sb_off(&s), 0);
	h = mmap_at(&s, (uint64_t)p, &cnt);
	ASSERT_NE(h, NULL);
	ASSERT_EQ(parse_mmap(h, 1, &m), 0);
	EXPECT_EQ(m.misc, PERF_RECORD_MISC_USER);
	EXPECT_EQ(m.ino, st.st_ino);
	EXPECT_EQ(m.maj, major(st.st_dev));
	sb_close(&s);

	sb_attr(&s.attr);
	s.attr.mmap = 1;
	s.attr.build_id = 1;
	ASSERT_EQ(sb_open(&s), 0);
	sb_on(&s);
	p = map_alone(page_size(), PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	ASSERT_NE(p, NULL);
	ASSERT_GE(sb_off(&s), 0);
	h = mmap_at(&s, (uint64_t)p, &cnt);
	ASSERT_NE(h, NULL);
	EXPECT_EQ(h->type, PERF_RECORD_MMAP);
	EXPECT_EQ(h->misc, PERF_RECORD_MISC_USER);
	sb_close(&s);
	unlink(path);
}

/* mprotect() that changes the flags of a range reports the new area. */
TEST(mmap_record_on_mprotect)
{
	struct sb s = { .fd = -1 };
	struct perf_event_header *h;
	struct mmap_rec m;
	long psz = page_size();
	char *p;
	int cnt;

	p = map_alone(3 * psz, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(p, NULL);
	sb_attr(&s.attr);
	s.attr.mmap = 1;
	ASSERT_EQ(sb_open(&s), 0);
	sb_on(&s);
	/* The middle page becomes executable: a split, one record. */
	ASSERT_EQ(mprotect(p + psz, psz, PROT_READ | PROT_EXEC), 0);
	/* No change, no record. */
	ASSERT_EQ(mprotect(p + psz, psz, PROT_READ | PROT_EXEC), 0);
	ASSERT_GE(sb_off(&s), 0);
	EXPECT_EQ(rb_count(&s.rb, PERF_RECORD_MMAP), 1);
	h = mmap_at(&s, (uint64_t)p + psz, &cnt);
	ASSERT_NE(h, NULL);
	ASSERT_EQ(parse_mmap(h, 1, &m), 0);
	EXPECT_EQ(m.len, psz);
	EXPECT_EQ(m.pgoff, (uint64_t)p + psz);
	EXPECT_STREQ(m.name, "//anon");
	EXPECT_EQ(m.misc, PERF_RECORD_MISC_USER);
	sb_close(&s);
}

/* The bounds of the mapping that contains @addr; 0 or -1. */
static int area_of(uint64_t addr, uint64_t *lo, uint64_t *hi)
{
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned long l, h;
	char line[512];
	int ret = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx", &l, &h) == 2 && addr >= l && addr < h) {
			*lo = l;
			*hi = h;
			ret = 0;
		}
	fclose(f);
	return ret;
}

/* The first MMAP record of @s, decoded into @m; NULL if none. */
static struct perf_event_header *first_mmap(struct sb *s, struct mmap_rec *m)
{
	struct perf_event_header *h = rb_find(&s->rb, PERF_RECORD_MMAP, 0);

	if (h && parse_mmap(h, 1, m))
		return NULL;
	return h;
}

/*
 * brk() growth reports the whole heap area that grew, named "[heap]"
 * (and misc MMAP_DATA).
 */
TEST(mmap_data_heap_growth)
{
	struct sb s = { .fd = -1 };
	uint64_t old, new, lo, hi;
	struct mmap_rec m;

	/* Make sure there is a heap: the name needs start_brk < brk. */
	ASSERT_NE(sbrk(4 * page_size()), (void *)-1);
	old = (uint64_t)sbrk(0);
	sb_attr(&s.attr);
	s.attr.mmap_data = 1;
	ASSERT_EQ(sb_open(&s), 0);
	sb_on(&s);
	ASSERT_NE(sbrk(16 * page_size()), (void *)-1);
	ASSERT_GE(sb_off(&s), 0);
	new = (uint64_t)sbrk(0);
	EXPECT_EQ(rb_count(&s.rb, PERF_RECORD_MMAP), 1);
	ASSERT_NE(first_mmap(&s, &m), NULL);
	EXPECT_STREQ(m.name, "[heap]");
	EXPECT_EQ(m.misc, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_DATA);
	/* The whole area, as /proc/self/maps shows it. */
	ASSERT_EQ(area_of(new - 1, &lo, &hi), 0);
	EXPECT_EQ(m.addr, lo);
	EXPECT_EQ(m.addr + m.len, hi);
	EXPECT_EQ(hi, new);
	EXPECT_LE(m.addr, old);
	EXPECT_EQ(m.pgoff, m.addr);
	sb_close(&s);
}

/* ---- COMM ---- */

struct comm_rec {
	uint32_t pid, tid;
	const char *comm;
	size_t space;
};

static int parse_comm(const struct perf_event_header *h, struct comm_rec *c)
{
	struct rec_cur r = rc_init(h);

	c->pid = rc_u32(&r);
	c->tid = rc_u32(&r);
	c->comm = (const char *)r.p;
	c->space = rc_left(&r) - SID_SIZE;
	return rc_ok(&r) && rc_left(&r) > SID_SIZE ? 0 : -1;
}

/* The first COMM record with name @name, or NULL. */
static struct perf_event_header *comm_named(struct sb *s, const char *name)
{
	struct perf_event_header *h;
	struct comm_rec c;

	rb_rewind(&s->rb);
	while ((h = rb_next(&s->rb)))
		if (h->type == PERF_RECORD_COMM && !parse_comm(h, &c) &&
		    !strcmp(c.comm, name))
			return h;
	return NULL;
}

/* prctl(PR_SET_NAME): COMM with pid, tid and the name padded to 8. */
TEST(comm_prctl)
{
	static const char * const names[] = { "a", "perf-comm", "perf-comm-15chr" };
	struct sb s = { .fd = -1 };
	struct perf_event_header *h;
	struct comm_rec c;
	uint64_t t0, t1;
	unsigned int k;

	ASSERT_EQ(pin_to_cpu(0), 0);
	sb_attr(&s.attr);
	s.attr.comm = 1;
	ASSERT_EQ(sb_open(&s), 0);
	t0 = mono_ns();
	sb_on(&s);
	for (k = 0; k < 3; k++)
		ASSERT_EQ(prctl(PR_SET_NAME, names[k], 0, 0, 0), 0);
	/* Names are cut to 15 characters. */
	ASSERT_EQ(prctl(PR_SET_NAME, "perf-comm-longer-than-16", 0, 0, 0), 0);
	ASSERT_GE(sb_off(&s), 0);
	t1 = mono_ns();
	EXPECT_EQ(rb_count(&s.rb, PERF_RECORD_COMM), 4);
	for (k = 0; k < 3; k++) {
		h = comm_named(&s, names[k]);
		ASSERT_NE(h, NULL) TH_LOG("no COMM %s", names[k]);
		ASSERT_EQ(parse_comm(h, &c), 0);
		EXPECT_EQ(h->misc, 0);
		EXPECT_EQ(c.pid, getpid());
		EXPECT_EQ(c.tid, gettid());
		EXPECT_EQ(c.space, ALIGN8(strlen(names[k]) + 1));
		EXPECT_EQ(h->size, COMM_FIXED + ALIGN8(strlen(names[k]) + 1) +
			  SID_SIZE);
		check_sid(_metadata, h, s.id, getpid(), gettid(), t0, t1, 0);
	}
	EXPECT_NE(comm_named(&s, "perf-comm-longe"), NULL);
	sb_close(&s);
}

static pid_t thread_tid;

static void *name_self(void *arg)
{
	thread_tid = gettid();
	prctl(PR_SET_NAME, arg, 0, 0, 0);
	return NULL;
}

/* A thread that records its tid and waits until pipe @arg is closed. */
static void *wait_thread(void *arg)
{
	int fd = *(int *)arg;
	char c;

	thread_tid = gettid();
	while (read(fd, &c, 1) > 0)
		;
	return NULL;
}

/*
 * A thread renaming itself is reported only by an inherited event; the
 * main thread renaming another thread is reported by its own event, with
 * the renamed thread's tid in the record and its own in the trailer.
 */
TEST(comm_of_threads)
{
	struct sb s = { .fd = -1 };
	struct perf_event_header *h;
	struct comm_rec c;
	pthread_t t;
	char name[32];
	int p[2];

	sb_attr(&s.attr);
	s.attr.comm = 1;
	ASSERT_EQ(sb_open(&s), 0);
	sb_on(&s);
	ASSERT_EQ(pthread_create(&t, NULL, name_self, "thread-a"), 0);
	pthread_join(t, NULL);
	ASSERT_GE(sb_off(&s), 0);
	EXPECT_EQ(comm_named(&s, "thread-a"), NULL);
	sb_close(&s);

	sb_attr(&s.attr);
	s.attr.comm = 1;
	ASSERT_EQ(sb_open_inherited(&s), 0);
	sb_on(&s);
	ASSERT_EQ(pthread_create(&t, NULL, name_self, "thread-b"), 0);
	pthread_join(t, NULL);
	ASSERT_GE(sb_off(&s), 0);
	h = comm_named(&s, "thread-b");
	ASSERT_NE(h, NULL);
	ASSERT_EQ(parse_comm(h, &c), 0);
	EXPECT_EQ(c.pid, getpid());
	EXPECT_EQ(c.tid, thread_tid);
	sb_close(&s);

	/* Renaming another thread, from the main thread. */
	sb_attr(&s.attr);
	s.attr.comm = 1;
	ASSERT_EQ(sb_open(&s), 0);
	ASSERT_EQ(pipe(p), 0);
	thread_tid = 0;
	ASSERT_EQ(pthread_create(&t, NULL, wait_thread, &p[0]), 0);
	while (!__atomic_load_n(&thread_tid, __ATOMIC_ACQUIRE))
		usleep(1000);
	sb_on(&s);
	snprintf(name, sizeof(name), "renamed");
	ASSERT_EQ(pthread_setname_np(t, name), 0);
	ASSERT_GE(sb_off(&s), 0);
	close(p[1]);
	pthread_join(t, NULL);
	h = comm_named(&s, "renamed");
	ASSERT_NE(h, NULL);
	ASSERT_EQ(parse_comm(h, &c), 0);
	EXPECT_EQ(c.pid, getpid());
	EXPECT_EQ(c.tid, thread_tid);
	check_sid(_metadata, h, s.id, getpid(), gettid(), 0, 0, -1);
	sb_close(&s);
}

/*
 * exec: COMM with misc COMM_EXEC and the new name (the basename of the
 * path given to exec: "exe" for /proc/self/exe), whether or not
 * attr.comm_exec is set.
 */
TEST(comm_exec)
{
	int with;

	for (with = 0; with < 2; with++) {
		struct sb s = { .fd = -1 };
		struct perf_event_header *h;
		struct comm_rec c;
		struct worker w;
		uint64_t t0, t1;

		ASSERT_EQ(worker_start(&w), 0);
		sb_attr(&s.attr);
		s.attr.comm = 1;
		s.attr.comm_exec = with;
		ASSERT_EQ(sb_open_on(&s, w.pid, -1), 0);
		t0 = mono_ns();
		sb_on(&s);
		ASSERT_EQ(worker_do(&w, W_EXEC, 0), 0);
		ASSERT_GE(sb_off(&s), 0);
		t1 = mono_ns();
		EXPECT_EQ(rb_count(&s.rb, PERF_RECORD_COMM), 1);
		h = rb_find(&s.rb, PERF_RECORD_COMM, 0);
		ASSERT_NE(h, NULL);
		ASSERT_EQ(parse_comm(h, &c), 0);
		EXPECT_EQ(h->misc, PERF_RECORD_MISC_COMM_EXEC);
		EXPECT_STREQ(c.comm, "exe");
		EXPECT_EQ(c.pid, w.pid);
		EXPECT_EQ(c.tid, w.pid);
		check_sid(_metadata, h, s.id, w.pid, w.pid, t0, t1, -1);
		worker_stop(&w);
		sb_close(&s);
	}
}

/*
 * exec: an MMAP record for every executable mapping of the new program
 * (the program, the dynamic linker and libraries, [vdso]) as
 * /proc/PID/maps shows them afterwards.
 */
TEST(exec_mmap_records_match_maps)
{
	struct sb s = { .fd = -1 };
	char path[64], line[512];
	int checked = 0, vdso = 0, cnt;
	struct worker w;
	FILE *f;

	ASSERT_EQ(worker_start(&w), 0);
	sb_attr(&s.attr);
	s.attr.mmap = 1;
	ASSERT_EQ(sb_open_on(&s, w.pid, -1), 0);
	sb_on(&s);
	ASSERT_EQ(worker_do(&w, W_EXEC, 0), 0);
	ASSERT_GE(sb_off(&s), 0);
	snprintf(path, sizeof(path), "/proc/%d/maps", w.pid);
	f = fopen(path, "r");
	ASSERT_NE(f, NULL);
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi, off;
		char perms[8], name[256] = "";
		struct perf_event_header *h;
		struct mmap_rec m;

		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %255s", &lo, &hi,
			   perms, &off, name) < 4)
			continue;
		if (perms[2] != 'x' || !strcmp(name, "[vsyscall]"))
			continue;
		h = mmap_at(&s, lo, &cnt);
		ASSERT_NE(h, NULL) TH_LOG("no MMAP for %s", line);
		ASSERT_EQ(parse_mmap(h, 1, &m), 0);
		EXPECT_EQ(m.len, hi - lo) TH_LOG("%s", line);
		EXPECT_STREQ(m.name, name);
		EXPECT_EQ(m.pid, w.pid);
		EXPECT_EQ(m.tid, w.pid);
		if (name[0] == '/') {
			EXPECT_EQ(m.pgoff, off);
		}
		vdso += !strcmp(name, "[vdso]");
		checked++;
	}
	fclose(f);
	EXPECT_GE(checked, 3);
	EXPECT_EQ(vdso, 1);
	worker_stop(&w);
	sb_close(&s);
}

/* ---- FORK and EXIT ---- */

struct task_rec {
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

static void parse_task(const struct perf_event_header *h, struct task_rec *t)
{
	struct rec_cur c = rc_init(h);

	t->pid = rc_u32(&c);
	t->ppid = rc_u32(&c);
	t->tid = rc_u32(&c);
	t->ptid = rc_u32(&c);
	t->time = rc_u64(&c);
}

/* The FORK or EXIT record (@type) of task @tid, or NULL. */
static struct perf_event_header *task_rec(struct sb *s, uint32_t type,
					  pid_t tid, struct task_rec *t)
{
	struct perf_event_header *h;

	rb_rewind(&s->rb);
	while ((h = rb_next(&s->rb))) {
		if (h->type != type)
			continue;
		parse_task(h, t);
		if (t->tid == (uint32_t)tid)
			return h;
	}
	return NULL;
}

/*
 * fork: FORK {pid, ppid, tid, ptid, time} of the child; a task event that
 * is not inherited does not see the child exit.
 */
TEST(fork_record)
{
	struct sb s = { .fd = -1 };
	struct perf_event_header *h;
	struct task_rec t;
	uint64_t t0, t1;
	pid_t pid;

	ASSERT_EQ(pin_to_cpu(0), 0);
	sb_attr(&s.attr);
	s.attr.task = 1;
	ASSERT_EQ(sb_open(&s), 0);
	t0 = mono_ns();
	sb_on(&s);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0)
		_exit(0);
	ASSERT_EQ(reap_child(pid), 0);
	ASSERT_GE(sb_off(&s), 0);
	t1 = mono_ns();
	h = task_rec(&s, PERF_RECORD_FORK, pid, &t);
	ASSERT_NE(h, NULL);
	EXPECT_EQ(h->misc, 0);
	EXPECT_EQ(h->size, TASK_SIZE_REC + SID_SIZE);
	EXPECT_EQ(t.pid, pid);
	EXPECT_EQ(t.ppid, getpid());
	EXPECT_EQ(t.ptid, gettid());
	EXPECT_GE(t.time + LOCAL_CLOCK_SLACK, t0);
	EXPECT_LE(t.time, t1 + LOCAL_CLOCK_SLACK);
	/* The record is written by the parent, in fork(). */
	check_sid(_metadata, h, s.id, getpid(), gettid(), t0, t1, 0);
	EXPECT_EQ(rb_count(&s.rb, PERF_RECORD_EXIT), 0);
	EXPECT_EQ(rb_count(&s.rb, PERF_RECORD_FORK), 1);
	sb_close(&s);
}

/*
 * With inherit, the child's EXIT (ppid and ptid are the parent's pid) and
 * the FORK of a grandchild (written by the child) come to the parent's
 * buffer.
 */
TEST(fork_exit_inherited)
{
	struct sb s = { .fd = -1 };
	struct perf_event_header *h;
	struct task_rec fk, ex, gk;
	struct perf_sid sid;
	pid_t pid, gpid = 0;
	int p[2];

	ASSERT_EQ(pipe(p), 0);
	sb_attr(&s.attr);
	s.attr.task = 1;
	ASSERT_EQ(sb_open_inherited(&s), 0);
	sb_on(&s);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		pid_t g = fork();

		if (g == 0)
			_exit(0);
		waitpid(g, NULL, 0);
		_exit(write(p[1], &g, sizeof(g)) != sizeof(g));
	}
	ASSERT_EQ(reap_child(pid), 0);
	ASSERT_EQ(read(p[0], &gpid, sizeof(gpid)), sizeof(gpid));
	ASSERT_GE(sb_off(&s), 0);

	h = task_rec(&s, PERF_RECORD_FORK, pid, &fk);
	ASSERT_NE(h, NULL);
	EXPECT_EQ(fk.ppid, getpid());
	h = task_rec(&s, PERF_RECORD_EXIT, pid, &ex);
	ASSERT_NE(h, NULL);
	EXPECT_EQ(h->misc, 0);
	EXPECT_EQ(ex.pid, pid);
	EXPECT_EQ(ex.ppid, getpid());
	EXPECT_EQ(ex.ptid, getpid());
	EXPECT_GE(ex.time, fk.time);
	/* Written by the exiting child, through its inherited event. */
	ASSERT_EQ(perf_sid_parse(h, SID_ALL, &sid), 0);
	EXPECT_EQ(sid.pid, pid);
	EXPECT_EQ(sid.tid, pid);
	EXPECT_EQ(sid.id, s.id);
	EXPECT_NE(sid.stream_id, s.id);
	EXPECT_EQ(sid.cpu, 0);
	h = task_rec(&s, PERF_RECORD_FORK, gpid, &gk);
	ASSERT_NE(h, NULL);
	EXPECT_EQ(gk.pid, gpid);
	EXPECT_EQ(gk.ppid, pid);
	EXPECT_EQ(gk.ptid, pid);
	h = task_rec(&s, PERF_RECORD_EXIT, gpid, &gk);
	ASSERT_NE(h, NULL);
	EXPECT_EQ(gk.ppid, pid);
	sb_close(&s);
}

static void *thread_exits(void *arg)
{
	thread_tid = gettid();
	return NULL;
}

/*
 * A thread: FORK {pid, ppid = pid, tid, ptid = creating thread}; its EXIT
 * names the process's parent as ppid and ptid (real_parent of a thread).
 */
TEST(thread_fork_exit)
{
	struct sb s = { .fd = -1 };
	struct perf_event_header *h;
	struct task_rec t;
	pthread_t th;

	sb_attr(&s.attr);
	s.attr.task = 1;
	ASSERT_EQ(sb_open_inherited(&s), 0);
	sb_on(&s);
	ASSERT_EQ(pthread_create(&th, NULL, thread_exits, NULL), 0);
	pthread_join(th, NULL);
	ASSERT_GE(sb_off(&s), 0);
	h = task_rec(&s, PERF_RECORD_FORK, thread_tid, &t);
	ASSERT_NE(h, NULL);
	EXPECT_EQ(t.pid, getpid());
	EXPECT_EQ(t.ppid, getpid());
	EXPECT_EQ(t.ptid, gettid());
	h = task_rec(&s, PERF_RECORD_EXIT, thread_tid, &t);
	ASSERT_NE(h, NULL);
	EXPECT_EQ(t.pid, getpid());
	EXPECT_EQ(t.ppid, getppid());
	EXPECT_EQ(t.ptid, getppid());
	sb_close(&s);
}

/* An event on another process sees that process exit. */
TEST(exit_of_watched_process)
{
	struct sb s = { .fd = -1 };
	struct perf_event_header *h;
	struct task_rec t;
	struct worker w;
	uint64_t t0, t1;

	ASSERT_EQ(worker_start(&w), 0);
	sb_attr(&s.attr);
	s.attr.task = 1;
	ASSERT_EQ(sb_open_on(&s, w.pid, -1), 0);
	t0 = mono_ns();
	sb_on(&s);
	ASSERT_EQ(worker_stop(&w), 0);
	t1 = mono_ns();
	ASSERT_GE(rb_fetch(&s.rb), 0);
	h = task_rec(&s, PERF_RECORD_EXIT, w.pid, &t);
	ASSERT_NE(h, NULL);
	EXPECT_EQ(h->size, TASK_SIZE_REC + SID_SIZE);
	EXPECT_EQ(t.pid, w.pid);
	EXPECT_EQ(t.ppid, getpid());
	EXPECT_EQ(t.ptid, getpid());
	check_sid(_metadata, h, s.id, w.pid, w.pid, t0, t1, -1);
	EXPECT_GE(t.time + LOCAL_CLOCK_SLACK, t0);
	EXPECT_LE(t.time, t1 + LOCAL_CLOCK_SLACK);
	sb_close(&s);
}

/*
 * FORK and EXIT come with any of task, comm, mmap and mmap_data; an event
 * with none of them gets no record at all.
 */
TEST(task_records_follow_comm_and_mmap_bits)
{
	int k;

	for (k = 0; k < 6; k++) {
		struct sb s = { .fd = -1 };
		pid_t pid;

		sb_attr(&s.attr);
		s.attr.task = k == 1;
		s.attr.comm = k == 2;
		s.attr.mmap = k == 3;
		s.attr.mmap2 = k == 4;
		s.attr.mmap_data = k == 5;
		ASSERT_EQ(sb_open_on(&s, 0, -1), 0);
		sb_on(&s);
		pid = fork();
		ASSERT_GE(pid, 0);
		if (pid == 0)
			_exit(0);
		ASSERT_EQ(reap_child(pid), 0);
		ASSERT_GE(sb_off(&s), 0);
		/* mmap2 alone does not count as an mmap event: see below. */
		EXPECT_EQ(rb_count(&s.rb, PERF_RECORD_FORK), k && k != 4 ? 1 : 0)
			TH_LOG("case %d", k);
		if (!k) {
			EXPECT_EQ(rb_count(&s.rb, 0), 0);
		}
		sb_close(&s);
	}
}

/* ---- NAMESPACES ---- */

static const char *const ns_names[7] = {
	"net", "uts", "ipc", "pid", "user", "mnt", "cgroup",
};

static int open_ns_fn(void *arg)
{
	struct perf_event_attr a;
	int fd;

	sb_attr(&a);
	a.namespaces = !!arg;
	fd = sys_perf_event_open(&a, 0, -1, -1, 0);
	if (fd >= 0)
		return 0;
	return errno == EACCES ? 1 : 2;
}

/* attr.namespaces needs CAP_PERFMON (or CAP_SYS_ADMIN): EACCES. */
TEST(namespaces_need_perfmon)
{
	EXPECT_EQ(run_unprivileged(open_ns_fn, NULL), 0);
	EXPECT_EQ(run_unprivileged(open_ns_fn, (void *)1), 1);
	EXPECT_EQ(run_with_caps(1ULL << CAP_PERFMON, open_ns_fn, (void *)1), 0);
}

/*
 * Check the seven {dev, ino} pairs of NAMESPACES record @h against
 * /proc/self/ns: namespaces this kernel does not have are {0, 0}.
 */
static void check_ns(struct __test_metadata *_metadata,
		     const struct perf_event_header *h)
{
	struct rec_cur c = rc_init(h);
	char path[64];
	struct stat st;
	int i;

	rc_u64(&c);	/* pid, tid */
	ASSERT_EQ(rc_u64(&c), 7);
	for (i = 0; i < 7; i++) {
		uint64_t dev = rc_u64(&c), ino = rc_u64(&c);

		snprintf(path, sizeof(path), "/proc/self/ns/%s", ns_names[i]);
		if (stat(path, &st)) {
			EXPECT_EQ(dev, 0) TH_LOG("%s", ns_names[i]);
			EXPECT_EQ(ino, 0) TH_LOG("%s", ns_names[i]);
		} else {
			EXPECT_EQ(dev, st.st_dev) TH_LOG("%s", ns_names[i]);
			EXPECT_EQ(ino, st.st_ino) TH_LOG("%s", ns_names[i]);
		}
	}
}

/* fork: a NAMESPACES record of the child, the same namespaces as ours. */
TEST(namespaces_at_fork)
{
	struct sb s = { .fd = -1 };
	struct perf_event_header *h;
	struct rec_cur c;
	pid_t pid;

	sb_attr(&s.attr);
	s.attr.namespaces = 1;
	ASSERT_EQ(sb_open(&s), 0);
	sb_on(&s);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0)
		_exit(0);
	ASSERT_EQ(reap_child(pid), 0);
	ASSERT_GE(sb_off(&s), 0);
	EXPECT_EQ(rb_count(&s.rb, PERF_RECORD_NAMESPACES), 1);
	/* namespaces alone does not bring FORK records. */
	EXPECT_EQ(rb_count(&s.rb, PERF_RECORD_FORK), 0);
	h = rb_find(&s.rb, PERF_RECORD_NAMESPACES, 0);
	ASSERT_NE(h, NULL);
	EXPECT_EQ(h->misc, 0);
	EXPECT_EQ(h->size, NS_SIZE_REC + SID_SIZE);
	c = rc_init(h);
	EXPECT_EQ(rc_u32(&c), pid);
	EXPECT_EQ(rc_u32(&c), pid);
	check_ns(_metadata, h);
	check_sid(_metadata, h, s.id, getpid(), gettid(), 0, 0, -1);
	sb_close(&s);
}

/* unshare(CLONE_NEWNS): a NAMESPACES record with the new mount namespace. */
TEST(namespaces_at_unshare)
{
	struct sb s = { .fd = -1 };
	struct perf_event_header *h;
	struct stat before, after;
	struct rec_cur c;
	int i;

	ASSERT_EQ(stat("/proc/self/ns/mnt", &before), 0);
	sb_attr(&s.attr);
	s.attr.namespaces = 1;
	ASSERT_EQ(sb_open(&s), 0);
	sb_on(&s);
	if (unshare(CLONE_NEWNS))
		SKIP(return, "unshare(CLONE_NEWNS): %s", strerror(errno));
	ASSERT_GE(sb_off(&s), 0);
	ASSERT_EQ(stat("/proc/self/ns/mnt", &after), 0);
	EXPECT_NE(after.st_ino, before.st_ino);
	h = rb_find(&s.rb, PERF_RECORD_NAMESPACES, 0);
	ASSERT_NE(h, NULL);
	c = rc_init(h);
	EXPECT_EQ(rc_u32(&c), getpid());
	EXPECT_EQ(rc_u32(&c), gettid());
	for (i = 0; i < 1 + 2 * 5 + 1; i++)	/* nr, 5 pairs, mnt dev */
		rc_u64(&c);
	EXPECT_EQ(rc_u64(&c), after.st_ino);	/* MNT_NS_INDEX: 5 */
	check_ns(_metadata, h);
	sb_close(&s);
}

/* ---- SWITCH, SWITCH_CPU_WIDE ---- */

/*
 * A task event: SWITCH records (header and trailer only), SWITCH_OUT when
 * the task leaves the CPU and 0 when it comes back, alternating; blocking
 * in a sleep is not a preemption.
 */
TEST(switch_task_records)
{
	struct sb s = { .fd = -1 };
	struct perf_event_header *h;
	int outs = 0, ins = 0, sleeps = 0, last = -1, i;
	struct perf_sid sid;
	uint64_t prev_time = 0;

	sb_attr(&s.attr);
	s.attr.context_switch = 1;
	ASSERT_EQ(sb_open(&s), 0);
	sb_on(&s);
	for (i = 0; i < 5; i++)
		usleep(2000);
	ASSERT_GE(sb_off(&s), 0);
	EXPECT_EQ(rb_count(&s.rb, PERF_RECORD_SWITCH_CPU_WIDE), 0);
	rb_rewind(&s.rb);
	while ((h = rb_next(&s.rb))) {
		if (h->type != PERF_RECORD_SWITCH)
			continue;
		EXPECT_EQ(h->size, 8 + SID_SIZE);
		ASSERT_EQ(perf_sid_parse(h, SID_ALL, &sid), 0);
		EXPECT_EQ(sid.tid, gettid());
		EXPECT_EQ(sid.id, s.id);
		EXPECT_GE(sid.time, prev_time);
		prev_time = sid.time;
		if (h->misc & PERF_RECORD_MISC_SWITCH_OUT) {
			EXPECT_NE(last, 1);
			EXPECT_EQ(h->misc & ~(PERF_RECORD_MISC_SWITCH_OUT |
					      PERF_RECORD_MISC_SWITCH_OUT_PREEMPT), 0);
			sleeps += h->misc == PERF_RECORD_MISC_SWITCH_OUT;
			outs++;
			last = 1;
		} else {
			EXPECT_EQ(h->misc, 0);
			EXPECT_NE(last, 0);
			ins++;
			last = 0;
		}
		if (LOOP_FAILED())
			break;
	}
	EXPECT_GE(outs, 5);
	EXPECT_GE(ins, 5);
	EXPECT_GE(sleeps, 5);
	sb_close(&s);
}

/* A task event on another process: SWITCH records of that process. */
TEST(switch_of_watched_process)
{
	struct sb s = { .fd = -1 };
	struct perf_event_header *h;
	struct perf_sid sid;
	struct worker w;
	int n = 0, ins = 0;

	ASSERT_EQ(worker_start(&w), 0);
	/* Let it settle down to wait for commands. */
	ASSERT_EQ(worker_do(&w, W_TOUCH, 0), 0);
	usleep(20000);
	sb_attr(&s.attr);
	s.attr.context_switch = 1;
	ASSERT_EQ(sb_open_on(&s, w.pid, -1), 0);
	sb_on(&s);
	ASSERT_EQ(worker_do(&w, W_TOUCH, 1), 0);
	ASSERT_EQ(worker_do(&w, W_TOUCH, 1), 0);
	/* Let it block again (not asserted: it may be slow to). */
	usleep(20000);
	ASSERT_GE(sb_off(&s), 0);
	rb_rewind(&s.rb);
	while ((h = rb_next(&s.rb))) {
		EXPECT_EQ(h->type, PERF_RECORD_SWITCH);
		ASSERT_EQ(perf_sid_parse(h, SID_ALL, &sid), 0);
		EXPECT_EQ(sid.pid, w.pid);
		EXPECT_EQ(sid.tid, w.pid);
		EXPECT_EQ(sid.id, s.id);
		/* It was asleep when the event was enabled: in, out, in... */
		EXPECT_EQ(!(h->misc & PERF_RECORD_MISC_SWITCH_OUT), !(n & 1));
		ins += !(h->misc & PERF_RECORD_MISC_SWITCH_OUT);
		n++;
		if (LOOP_FAILED())
			break;
	}
	EXPECT_GE(ins, 1);
	EXPECT_GE(n, 2);
	worker_stop(&w);
	sb_close(&s);
}

/*
 * sched_yield() with another task ready on the CPU leaves the task
 * runnable: SWITCH_OUT | SWITCH_OUT_PREEMPT.
 */
TEST(switch_out_preempt)
{
	struct sb s = { .fd = -1 };
	struct perf_event_header *h;
	int preempt = 0, i;
	pid_t pid;

	ASSERT_EQ(pin_to_cpu(0), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		for (;;)
			burn(1000000);
	}
	sb_attr(&s.attr);
	s.attr.context_switch = 1;
	ASSERT_EQ(sb_open(&s), 0);
	sb_on(&s);
	for (i = 0; i < 20; i++)
		sched_yield();
	ASSERT_GE(sb_off(&s), 0);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	rb_rewind(&s.rb);
	while ((h = rb_next(&s.rb)))
		if (h->type == PERF_RECORD_SWITCH &&
		    h->misc == (PERF_RECORD_MISC_SWITCH_OUT |
				PERF_RECORD_MISC_SWITCH_OUT_PREEMPT))
			preempt++;
	EXPECT_GE(preempt, 1);
	sb_close(&s);
}

/*
 * A CPU-wide event: SWITCH_CPU_WIDE records with the pid/tid of the next
 * task (switch out) or the previous one (switch in).
 */
TEST(switch_cpu_wide)
{
	struct sb s = { .fd = -1 };
	struct perf_event_header *h;
	int to_child = 0, from_parent = 0, i, a[2], b[2];
	pid_t pid, me = getpid();
	struct perf_sid sid;
	char c = 0;

	ASSERT_EQ(pin_to_cpu(0), 0);
	ASSERT_EQ(pipe(a), 0);
	ASSERT_EQ(pipe(b), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		close(a[1]);
		close(b[0]);
		while (read(a[0], &c, 1) == 1)
			if (write(b[1], &c, 1) != 1)
				break;
		_exit(0);
	}
	close(a[0]);
	close(b[1]);
	sb_attr(&s.attr);
	s.attr.context_switch = 1;
	s.attr.exclude_kernel = 0;
	ASSERT_EQ(sb_open_on(&s, -1, 0), 0);
	sb_on(&s);
	for (i = 0; i < 20; i++) {
		ASSERT_EQ(write(a[1], &c, 1), 1);
		ASSERT_EQ(read(b[0], &c, 1), 1);
	}
	ASSERT_GE(sb_off(&s), 0);
	close(a[1]);
	waitpid(pid, NULL, 0);
	EXPECT_EQ(rb_count(&s.rb, PERF_RECORD_SWITCH), 0);
	rb_rewind(&s.rb);
	while ((h = rb_next(&s.rb))) {
		struct rec_cur r = rc_init(h);
		uint32_t np_pid, np_tid;

		if (h->type != PERF_RECORD_SWITCH_CPU_WIDE)
			continue;
		EXPECT_EQ(h->size, 8 + 8 + SID_SIZE);
		np_pid = rc_u32(&r);
		np_tid = rc_u32(&r);
		ASSERT_EQ(perf_sid_parse(h, SID_ALL, &sid), 0);
		EXPECT_EQ(sid.cpu, 0);
		EXPECT_EQ(sid.id, s.id);
		EXPECT_EQ(np_pid, np_tid);
		if ((h->misc & PERF_RECORD_MISC_SWITCH_OUT) &&
		    sid.pid == (uint32_t)me && np_pid == (uint32_t)pid)
			to_child++;
		if (!(h->misc & PERF_RECORD_MISC_SWITCH_OUT) &&
		    sid.pid == (uint32_t)pid && np_pid == (uint32_t)me)
			from_parent++;
		if (LOOP_FAILED())
			break;
	}
	EXPECT_GE(to_child, 5);
	EXPECT_GE(from_parent, 5);
	sb_close(&s);
}

/* ---- THROTTLE, UNTHROTTLE ---- */

FIXTURE(rate) {
	long saved;
};

FIXTURE_SETUP(rate)
{
	ASSERT_EQ(read_sysctl("perf_event_max_sample_rate", &self->saved), 0);
}

FIXTURE_TEARDOWN(rate)
{
	write_sysctl("perf_event_max_sample_rate", self->saved);
}

/* THROTTLE and UNTHROTTLE records seen so far, and the last one. */
struct throttle_seq {
	int thr, unthr, last;	/* last: 1 THROTTLE, 0 UNTHROTTLE, -1 none */
};

/*
 * Count a record of type @type; returns -1 when THROTTLE and UNTHROTTLE
 * do not alternate, starting with THROTTLE.
 */
static int throttle_step(struct throttle_seq *q, unsigned int type)
{
	int ok = 1;

	if (type == PERF_RECORD_THROTTLE) {
		ok = q->last != 1;
		q->thr++;
		q->last = 1;
	} else if (type == PERF_RECORD_UNTHROTTLE) {
		ok = q->last == 1;
		q->unthr++;
		q->last = 0;
	}
	return ok ? 0 : -1;
}

/*
 * A cpu-clock sampler every 10 us with perf_event_max_sample_rate at 1000,
 * running: it is throttled within every tick.  On one CPU: a task that
 * moves while throttled has the throttle lifted by another CPU's tick or
 * by its own switch-in, a race these tests are not about.  Returns 0 or -1.
 */
static int open_throttling(struct sb *s)
{
	if (pin_to_cpu(0) || write_sysctl("perf_event_max_sample_rate", 1000))
		return -1;
	sb_attr(&s->attr);
	s->attr.config = PERF_COUNT_SW_CPU_CLOCK;
	s->attr.sample_period = 10000;
	s->attr.sample_type = SID_ALL | PERF_SAMPLE_IP;
	if (sb_open(s))
		return -1;
	sb_on(s);
	return 0;
}

/*
 * More samples in a tick than perf_event_max_sample_rate / HZ allows:
 * THROTTLE {time, id, stream_id}, then UNTHROTTLE at a later tick.
 */
TEST_F(rate, throttle_and_unthrottle)
{
	struct throttle_seq seq = { .last = -1 };
	struct sb s = { .fd = -1 };
	struct perf_event_header *h;
	struct perf_sid sid;

	ASSERT_EQ(open_throttling(&s), 0);
	burn_ns(100000000);
	ASSERT_GE(sb_off(&s), 0);
	rb_rewind(&s.rb);
	while ((h = rb_next(&s.rb))) {
		struct rec_cur c = rc_init(h);
		uint64_t time, id, stream;

		if (h->type != PERF_RECORD_THROTTLE &&
		    h->type != PERF_RECORD_UNTHROTTLE)
			continue;
		EXPECT_EQ(h->misc, 0);
		EXPECT_EQ(h->size, THROTTLE_SIZE + SID_SIZE);
		time = rc_u64(&c);
		id = rc_u64(&c);
		stream = rc_u64(&c);
		EXPECT_EQ(id, s.id);
		EXPECT_EQ(stream, s.id);
		ASSERT_EQ(perf_sid_parse(h, SID_ALL | PERF_SAMPLE_IP, &sid), 0);
		EXPECT_EQ(sid.id, s.id);
		EXPECT_LE(time, sid.time);
		EXPECT_EQ(throttle_step(&seq, h->type), 0);
		if (LOOP_FAILED())
			break;
	}
	EXPECT_GE(seq.thr, 1);
	EXPECT_GE(seq.unthr, 1);
	sb_close(&s);
}

/*
 * PERF_EVENT_IOC_PERIOD restarts a running sampler, throttled or not: a
 * throttled one is unthrottled (and says so) by the restart, so the
 * records still alternate, each THROTTLE followed by an UNTHROTTLE.
 */
TEST_F(rate, period_change_while_throttled)
{
	struct throttle_seq seq = { .last = -1 };
	struct sb s = { .fd = -1 };
	struct perf_event_header *h;
	uint64_t period;
	int i;

	ASSERT_EQ(open_throttling(&s), 0);
	for (i = 0; i < 100; i++) {
		burn_ns(1000000);
		period = i & 1 ? 10000 : 20000;
		ASSERT_EQ(ioctl(s.fd, PERF_EVENT_IOC_PERIOD, &period), 0);
	}
	ASSERT_GE(sb_off(&s), 0);
	rb_rewind(&s.rb);
	while ((h = rb_next(&s.rb))) {
		EXPECT_EQ(throttle_step(&seq, h->type), 0)
			TH_LOG("after %d THROTTLE, %d UNTHROTTLE", seq.thr, seq.unthr);
		if (LOOP_FAILED())
			break;
	}
	EXPECT_GE(seq.thr, 1);
	EXPECT_GE(seq.unthr, 1);
	sb_close(&s);
}

/* ---- LOST ---- */

/*
 * Samples that do not fit are counted; the next record that fits is
 * preceded by LOST {id, lost}, lost being what read() reports in
 * PERF_FORMAT_LOST.
 */
TEST(lost_record)
{
	struct perf_event_header *h;
	struct sb s = { .fd = -1 };
	uint64_t v[2], lost;
	struct rec_cur c;
	int i, lost_at = -1, first_sample = -1;

	sb_attr(&s.attr);
	s.attr.config = PERF_COUNT_SW_PAGE_FAULTS;
	s.attr.sample_period = 1;
	s.attr.sample_type = SID_ALL | PERF_SAMPLE_IP;
	s.attr.read_format = F_LOST;
	s.fd = sys_perf_event_open(&s.attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_GE(s.fd, 0);
	s.id = event_id(s.fd);
	ASSERT_EQ(rb_map(&s.rb, s.fd, 1), 0);
	sb_on(&s);
	/*
	 * 64-byte samples; the buffer is full when one more byte would make
	 * head catch up with tail: 63 fit in the page.
	 */
	touch_pages(100);
	ioctl(s.fd, PERF_EVENT_IOC_DISABLE, 0);
	ASSERT_EQ(read(s.fd, v, sizeof(v)), sizeof(v));
	lost = v[1];
	EXPECT_GE(lost, 37);
	ASSERT_EQ(rb_fetch(&s.rb), 63 * 64);
	EXPECT_EQ(rb_count(&s.rb, PERF_RECORD_SAMPLE), 63);
	EXPECT_EQ(rb_count(&s.rb, PERF_RECORD_LOST), 0);
	rb_clear(&s.rb);
	sb_on(&s);
	touch_pages(1);
	ASSERT_GE(sb_off(&s), 0);
	rb_rewind(&s.rb);
	for (i = 0; (h = rb_next(&s.rb)); i++) {
		if (h->type == PERF_RECORD_LOST && lost_at < 0)
			lost_at = i;
		if (h->type == PERF_RECORD_SAMPLE && first_sample < 0)
			first_sample = i;
	}
	EXPECT_EQ(rb_count(&s.rb, PERF_RECORD_LOST), 1);
	EXPECT_EQ(lost_at, 0);
	EXPECT_EQ(first_sample, 1);
	h = rb_find(&s.rb, PERF_RECORD_LOST, 0);
	ASSERT_NE(h, NULL);
	EXPECT_EQ(h->misc, 0);
	EXPECT_EQ(h->size, LOST_SIZE + SID_SIZE);
	c = rc_init(h);
	EXPECT_EQ(rc_u64(&c), s.id);
	EXPECT_EQ(rc_u64(&c), lost);
	sb_close(&s);
}

/* ---- READ (inherit_stat) ---- */

/*
 * Fork a child (on CPU 0, like the caller) that touches @pages pages and
 * then exits, or execs /bin/true if @do_exec; returns its pid once reaped.
 */
static pid_t child_touch_then(int pages, int do_exec)
{
	pid_t pid = fork();

	if (pid == 0) {
		touch_pages(pages);
		if (do_exec)
			execl("/bin/true", "true", NULL);
		_exit(0);
	}
	if (pid > 0 && reap_child(pid))
		return -1;
	return pid;
}

/*
 * inherit_stat: the child's counts are written as a READ record {pid, tid,
 * values} to the parent's buffer when the child's event goes away while
 * the child lives: at its exec with remove_on_exec.  At the child's exit
 * the context is already dead and there is no READ record.
 */
TEST(read_record_inherit_stat)
{
	int stat, do_exec;

	for (do_exec = 0; do_exec < 2; do_exec++) {
		for (stat = 0; stat < 2; stat++) {
			struct sb s = { .fd = -1 };
			struct perf_event_header *h;
			uint64_t val, en, run;
			struct perf_sid sid;
			struct rec_cur c;
			pid_t pid;

			sb_attr(&s.attr);
			s.attr.config = PERF_COUNT_SW_PAGE_FAULTS;
			s.attr.inherit_stat = stat;
			s.attr.remove_on_exec = do_exec;
			s.attr.read_format = F_EN | F_RUN | F_ID;
			ASSERT_EQ(sb_open_inherited(&s), 0);
			sb_on(&s);
			pid = child_touch_then(20, do_exec);
			ASSERT_GT(pid, 0);
			ASSERT_GE(sb_off(&s), 0);
			EXPECT_EQ(rb_count(&s.rb, PERF_RECORD_READ),
				  stat && do_exec ? 1 : 0)
				TH_LOG("inherit_stat %d exec %d", stat, do_exec);
			h = rb_find(&s.rb, PERF_RECORD_READ, 0);
			if (!(stat && do_exec) || !h) {
				sb_close(&s);
				continue;
			}
			EXPECT_EQ(h->misc, 0);
			EXPECT_EQ(h->size, 8 + 8 + 32 + SID_SIZE);
			c = rc_init(h);
			EXPECT_EQ(rc_u32(&c), pid);
			EXPECT_EQ(rc_u32(&c), pid);
			val = rc_u64(&c);
			en = rc_u64(&c);
			run = rc_u64(&c);
			EXPECT_GE(val, 20);		/* the child's faults */
			EXPECT_GT(en, 0);
			EXPECT_EQ(run, en);
			EXPECT_EQ(rc_u64(&c), s.id);	/* the primary ID */
			/* Written by the child, through its own event. */
			ASSERT_EQ(perf_sid_parse(h, SID_ALL, &sid), 0);
			EXPECT_EQ(sid.pid, pid);
			EXPECT_EQ(sid.tid, pid);
			EXPECT_EQ(sid.id, s.id);
			EXPECT_NE(sid.stream_id, s.id);
			EXPECT_EQ(sid.cpu, 0);
			sb_close(&s);
		}
	}
}

/* ---- TEXT_POKE, KSYMBOL, BPF_EVENT, CGROUP: nothing in this configuration ---- */

static int open_text_poke_fn(void *arg)
{
	struct perf_event_attr a;
	int fd;

	sb_attr(&a);
	a.text_poke = 1;
	fd = sys_perf_event_open(&a, 0, -1, -1, 0);
	if (fd >= 0)
		return 0;
	return errno == EACCES ? 1 : 2;
}

/*
 * text_poke needs the right to see the kernel (EACCES for an unprivileged
 * user with perf_event_paranoid > 1).  This configuration has no jump
 * labels, kprobes or ftrace, so nothing patches kernel text at run time:
 * turning a software event's static key on and off (which would patch the
 * perf_sw_event() sites with jump labels) writes no TEXT_POKE record.
 */
TEST(text_poke_privilege_and_no_records)
{
	struct sb s = { .fd = -1 };
	long paranoid;
	int fd;

	ASSERT_EQ(read_sysctl("perf_event_paranoid", &paranoid), 0);
	if (paranoid >= 2) {
		EXPECT_EQ(run_unprivileged(open_text_poke_fn, NULL), 1);
	}
	EXPECT_EQ(run_with_caps(1ULL << CAP_PERFMON, open_text_poke_fn, NULL), 0);
	sb_attr(&s.attr);
	s.attr.text_poke = 1;
	ASSERT_EQ(sb_open(&s), 0);
	sb_on(&s);
	fd = open_sw(PERF_COUNT_SW_PAGE_FAULTS_MIN, -1);
	ASSERT_GE(fd, 0);
	touch_pages(4);
	close(fd);
	ASSERT_GE(sb_off(&s), 0);
	EXPECT_EQ(rb_count(&s.rb, 0), 0);
	sb_close(&s);
}

/*
 * ksymbol, bpf_event and cgroup are accepted, but this configuration (no
 * BPF, no kprobes, no CONFIG_CGROUP_PERF) has nothing to report.
 */
TEST(ksymbol_bpf_cgroup_silent)
{
	int k;

	for (k = 0; k < 3; k++) {
		struct sb s = { .fd = -1 };
		pid_t pid;
		void *p;

		sb_attr(&s.attr);
		s.attr.ksymbol = k == 0;
		s.attr.bpf_event = k == 1;
		s.attr.cgroup = k == 2;
		ASSERT_EQ(sb_open(&s), 0);
		sb_on(&s);
		pid = fork();
		ASSERT_GE(pid, 0);
		if (pid == 0)
			_exit(0);
		ASSERT_EQ(reap_child(pid), 0);
		p = map_alone(page_size(), PROT_READ | PROT_EXEC,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		ASSERT_NE(p, NULL);
		mkdir("/sys/fs/cgroup/perf-sideband-test", 0755);
		rmdir("/sys/fs/cgroup/perf-sideband-test");
		ASSERT_GE(sb_off(&s), 0);
		EXPECT_EQ(rb_count(&s.rb, 0), 0) TH_LOG("case %d", k);
		sb_close(&s);
	}
}

/* ---- sample_id_all ---- */

/* Without sample_id_all the records end after their own fields. */
TEST(no_trailer_without_sample_id_all)
{
	struct sb s = { .fd = -1 };
	struct perf_event_header *h;
	struct task_rec t;
	void *p;
	pid_t pid;

	sb_attr(&s.attr);
	s.attr.sample_id_all = 0;
	s.attr.mmap = 1;
	s.attr.comm = 1;
	s.attr.task = 1;
	s.attr.context_switch = 1;
	ASSERT_EQ(sb_open(&s), 0);
	sb_on(&s);
	p = map_alone(page_size(), PROT_READ | PROT_EXEC,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(p, NULL);
	ASSERT_EQ(prctl(PR_SET_NAME, "no-trailer", 0, 0, 0), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0)
		_exit(0);
	ASSERT_EQ(reap_child(pid), 0);
	usleep(1000);
	ASSERT_GE(sb_off(&s), 0);
	rb_rewind(&s.rb);
	while ((h = rb_next(&s.rb))) {
		switch (h->type) {
		case PERF_RECORD_MMAP:
			EXPECT_EQ(h->size, MMAP_FIXED + 8);	/* "//anon" */
			break;
		case PERF_RECORD_COMM:
			EXPECT_EQ(h->size, COMM_FIXED + 16);	/* "no-trailer" */
			break;
		case PERF_RECORD_FORK:
			EXPECT_EQ(h->size, TASK_SIZE_REC);
			parse_task(h, &t);
			EXPECT_EQ(t.pid, pid);
			break;
		case PERF_RECORD_SWITCH:
			EXPECT_EQ(h->size, 8);
			break;
		default:
			EXPECT_EQ(h->type, 0) TH_LOG("unexpected record");
		}
		if (LOOP_FAILED())
			break;
	}
	EXPECT_EQ(rb_count(&s.rb, PERF_RECORD_MMAP), 1);
	EXPECT_EQ(rb_count(&s.rb, PERF_RECORD_COMM), 1);
	EXPECT_EQ(rb_count(&s.rb, PERF_RECORD_FORK), 1);
	EXPECT_GE(rb_count(&s.rb, PERF_RECORD_SWITCH), 2);
	sb_close(&s);
}

/*
 * The trailer has only the id bits of sample_type, in the fixed order
 * TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER; other bits add nothing.
 */
TEST(trailer_follows_sample_type)
{
	static const uint64_t types[] = {
		PERF_SAMPLE_TID, PERF_SAMPLE_TIME | PERF_SAMPLE_IP,
		PERF_SAMPLE_IDENTIFIER, PERF_SAMPLE_ID | PERF_SAMPLE_CPU,
		PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_PERIOD | PERF_SAMPLE_ADDR,
		PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID,
	};
	unsigned int k;

	for (k = 0; k < ARRAY_SIZE(types); k++) {
		struct sb s = { .fd = -1 };
		struct perf_event_header *h;
		struct perf_sid sid;

		ASSERT_EQ(pin_to_cpu(0), 0);
		sb_attr(&s.attr);
		s.attr.sample_type = types[k];
		s.attr.comm = 1;
		ASSERT_EQ(sb_open(&s), 0);
		sb_on(&s);
		ASSERT_EQ(prctl(PR_SET_NAME, "trailer", 0, 0, 0), 0);
		ASSERT_GE(sb_off(&s), 0);
		h = rb_find(&s.rb, PERF_RECORD_COMM, 0);
		ASSERT_NE(h, NULL);
		EXPECT_EQ(h->size, COMM_FIXED + 8 + perf_sid_size(types[k]))
			TH_LOG("sample_type %#llx", (unsigned long long)types[k]);
		ASSERT_EQ(perf_sid_parse(h, types[k], &sid), 0);
		if (types[k] & PERF_SAMPLE_TID) {
			EXPECT_EQ(sid.pid, getpid());
			EXPECT_EQ(sid.tid, gettid());
		}
		if (types[k] & PERF_SAMPLE_TIME) {
			EXPECT_NE(sid.time, 0);
		}
		if (types[k] & PERF_SAMPLE_ID) {
			EXPECT_EQ(sid.id, s.id);
		}
		if (types[k] & PERF_SAMPLE_STREAM_ID) {
			EXPECT_EQ(sid.stream_id, s.id);
		}
		if (types[k] & PERF_SAMPLE_CPU) {
			EXPECT_EQ(sid.cpu, 0);
		}
		if (types[k] & PERF_SAMPLE_IDENTIFIER) {
			EXPECT_EQ(sid.identifier, s.id);
		}
		sb_close(&s);
	}
}

/*
 * Records about another process: MMAP of its data mappings and FORK of
 * its children, with its pid/tid in the records and the trailers.
 */
TEST(records_of_watched_process)
{
	struct sb s = { .fd = -1 };
	struct perf_event_header *h;
	struct mmap_rec m;
	struct task_rec t;
	int n = 0;
	struct worker w;

	ASSERT_EQ(worker_start(&w), 0);
	sb_attr(&s.attr);
	s.attr.mmap_data = 1;
	s.attr.task = 1;
	ASSERT_EQ(sb_open_on(&s, w.pid, -1), 0);
	sb_on(&s);
	ASSERT_EQ(worker_do(&w, W_TOUCH, 4), 0);
	ASSERT_EQ(worker_do(&w, W_TOUCH, 4), 0);
	ASSERT_EQ(worker_do(&w, W_FORK_TOUCH, 1), 0);
	ASSERT_GE(sb_off(&s), 0);
	/* The worker's child: FORK written by the worker, not its EXIT. */
	EXPECT_EQ(rb_count(&s.rb, PERF_RECORD_FORK), 1);
	EXPECT_EQ(rb_count(&s.rb, PERF_RECORD_EXIT), 0);
	h = rb_find(&s.rb, PERF_RECORD_FORK, 0);
	ASSERT_NE(h, NULL);
	parse_task(h, &t);
	EXPECT_NE(t.pid, w.pid);
	EXPECT_EQ(t.tid, t.pid);
	EXPECT_EQ(t.ppid, w.pid);
	EXPECT_EQ(t.ptid, w.pid);
	check_sid(_metadata, h, s.id, w.pid, w.pid, 0, 0, -1);
	rb_rewind(&s.rb);
	while ((h = rb_next(&s.rb))) {
		if (h->type != PERF_RECORD_MMAP)
			continue;
		ASSERT_EQ(parse_mmap(h, 1, &m), 0);
		EXPECT_EQ(m.pid, w.pid);
		EXPECT_EQ(m.tid, w.pid);
		/* The new area may have been merged with a neighbour. */
		EXPECT_GE(m.len, 4 * page_size());
		EXPECT_STREQ(m.name, "//anon");
		check_sid(_metadata, h, s.id, w.pid, w.pid, 0, 0, -1);
		n++;
		if (LOOP_FAILED())
			break;
	}
	EXPECT_EQ(n, 2);
	worker_stop(&w);
	sb_close(&s);
}

TEST_HARNESS_MAIN
