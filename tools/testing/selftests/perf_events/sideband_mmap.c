// SPDX-License-Identifier: GPL-2.0
/*
 * Side-band records in the mmap ring buffer that describe a process's
 * address space and name: MMAP and MMAP2 (with and without build ids,
 * data mappings, mprotect(), heap growth) and COMM (prctl, threads,
 * exec), and the MMAP records of an exec checked against its maps.
 */
#include "../kselftest_harness.h"
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "perf_worker.h"
#include "sideband_util.h"

#define ALIGN8(x)	(((x) + 7) & ~7UL)

/* ---- MMAP and MMAP2 ---- */

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

TEST_HARNESS_MAIN
