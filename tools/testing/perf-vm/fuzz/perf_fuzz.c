/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf_fuzz - a seeded, replayable random system-call fuzzer for perf_event
 *
 * WHAT IT DOES
 *
 *   perf_fuzz hammers the perf_event subsystem from user space.  Its main
 *   thread runs a loop of "operations"; each one is drawn at random, with
 *   fixed weights, from:
 *
 *     open     perf_event_open() with a random attribute, pid, cpu, group fd
 *              and flags.  About 70% of the attributes are built to be
 *              valid, the rest get one or two deliberately invalid fields.
 *              Types: software (every config and a few invalid ones),
 *              tracepoints (ids read from tracefs at start-up, if any,
 *              but ftrace:function's: see discover_tracepoints()),
 *              breakpoints on the fuzzer's own variables and functions,
 *              hardware/cache/raw (rare; ENOENT without a PMU; where the
 *              cpu PMU has a branch stack, one valid open in 4 samples branch
 *              stacks with a filter it takes), every
 *              dynamic PMU found under /sys/bus/event_source/devices
 *              (perf_test included) and random type numbers.  attr.size
 *              takes every PERF_ATTR_SIZE_VER*, sizes with zero and
 *              non-zero tails, 0, tiny and huge values.
 *     close    close() of a random event fd (leaders and siblings alike)
 *     ioctl    every PERF_EVENT_IOC_* request with good and bad arguments,
 *              sometimes PERF_IOC_FLAG_GROUP, now and then an unknown one;
 *              SET_FILTER mostly on a tracepoint event
 *     read     read() of an event with sizes 0, 1, 8, 24, exact, large and
 *              bad buffers
 *     mmap     1 + 2^n pages (n = 0..6), bad sizes, offsets, protections
 *     munmap   whole or partial munmap(), or mprotect(), of a mapping
 *     ring     reads the control page of a mapping, walks the records
 *              between data_tail and data_head checking each header, and
 *              writes data_tail (usually data_head, sometimes garbage)
 *     poll     poll() with a zero (or 1 ms) timeout on a few event fds
 *     fcntl    F_SETFL O_ASYNC, F_SETOWN, F_SETOWN_EX, F_SETSIG
 *     prctl    PR_TASK_PERF_EVENTS_DISABLE / ENABLE
 *     fork     a child that inherits every event, runs a bounded workload
 *              (page faults, spinning, sched_yield, a thread, sometimes
 *              execve("/bin/true")) and a few random operations of its own
 *     kill     SIGKILL (sometimes SIGSTOP, SIGCONT, SIGUSR1) to a child
 *     wait     waitpid(WNOHANG) of the oldest child
 *     cpu      takes one CPU other than CPU 0 offline, or brings it back
 *              (about one operation in 5000)
 *     sysctl   sets one of the kernel.perf_* sysctls to a random valid value
 *     work     touches fresh pages, spins, yields, hits the breakpoint
 *              targets, or runs a short-lived thread
 *
 *   Two worker threads run workload all the time (page faults, spinning,
 *   sched_yield, short sleeps, breakpoint targets, short-lived threads) so
 *   that events attached to them have something to count.
 *
 *   Handlers for SIGIO, SIGTRAP (SA_SIGINFO; perf's TRAP_PERF is counted on
 *   its own), SIGUSR1, SIGUSR2, SIGPIPE, SIGCHLD, SIGALRM and SIGRTMIN..
 *   SIGRTMIN+3 (what F_SETSIG may name) only count.  SIGTERM, SIGINT and
 *   SIGHUP end the run cleanly.  SIGSEGV and SIGBUS taken while reading a
 *   mapping are caught and logged.  A storm (more than STORM_SIGNALS
 *   signals to one thread while the main thread makes one operation) clears
 *   O_ASYNC on every event and disables sigtrap events, and is logged: a
 *   slow guest cannot deliver what a sampling rate at its limit asks for.
 *
 * BUILD
 *
 *   gcc -O2 -g -static -pthread -Wall \
 *       -isystem ../../../include/uapi -o perf_fuzz perf_fuzz.c
 *
 *   (from this directory; the uapi headers of the tree).  Static, so
 *   that a QEMU guest sharing the host's root runs it as it is.
 *
 *   The project's <linux/perf_event.h> must be found first; the build
 *   stops with an #error when the host's header is picked up instead.
 *
 * USAGE
 *
 *   perf_fuzz [-s SEED] [-t SECONDS] [-n MAX_OPS] [-l LOGFILE]
 *             [-r REPLAYLOG] [-x KINDS] [-q]
 *
 *   -s SEED     seed (decimal or 0x hex); default: from the clock and pid,
 *               printed in the log header and the summary
 *   -t SECONDS  stop after this long (CLOCK_MONOTONIC; default 60; with -r
 *               the default is no limit)
 *   -n MAX_OPS  stop after this many main-thread operations (0: no limit)
 *   -l LOGFILE  log file (default /tmp/perf_fuzz.log); "-" logs to stdout
 *   -r LOG      replay the main-thread operations of LOG instead of fuzzing
 *   -x KINDS    leave out the listed operations (comma-separated names
 *               from the list above but "work", e.g. "cpu,sysctl"): they
 *               are neither generated nor replayed.  Useful to tell which one a kernel
 *               crash needs.  Changes the sequence of calls of a seed.
 *   -q          quiet: print only the summary line at the end
 *
 *   It must run as root (perf_event_paranoid, sysctls, CPU hotplug).  It
 *   holds at most 256 event fds, 8 unreaped children, 64 mappings of at
 *   most 1 + 64 pages each; no call blocks for long (poll timeouts are 0
 *   or 1 ms, waitpid uses WNOHANG until the final clean-up).  Events only
 *   ever target the fuzzer's own threads and children (or are CPU-wide),
 *   and signals only ever go to them.
 *
 *   At the end (time or operation limit, SIGTERM, SIGINT) it stops the
 *   worker threads, SIGKILLs and reaps every child, unmaps and closes
 *   everything, brings back online the CPU it took offline, restores every
 *   kernel.perf_* sysctl that differs from its value at start-up (the
 *   kernel lowers perf_event_max_sample_rate by itself under load), then
 *   prints a one-line summary (operations, opens and their success rate,
 *   errno histogram of failed opens, signals received, operations of each
 *   kind) and the last 40 lines of the log.
 *
 *   Exit status: 0; 1 when set-up or restoring state failed; 2 on bad
 *   usage; 3 when the main thread died inside the kernel (an oops): a
 *   worker thread notices, puts back the CPU and sysctls, and ends the
 *   process.  If the main thread is stuck in a call for a minute instead,
 *   a line saying so goes to stdout and the log.
 *
 * LOG FORMAT
 *
 *   One line per call, written with a single write(2) after the call
 *   returned (O_APPEND, so children's lines never split the parent's):
 *
 *     WHO OPNO OP KEY=VALUE... => RESULT [INFO...] t=SECONDS
 *
 *   WHO is M (main thread), W1/W2 (worker threads) or C<pid> (a child);
 *   OPNO counts that thread's operations from 1; RESULT is the return
 *   value, "-1 ERRNO-NAME" on failure, an address for mmap, or "skip"
 *   when the call was not made (replay of an object that does not exist).
 *   INFO after the result is informational only; t= is CLOCK_MONOTONIC
 *   when the call returned, on the same clock as the kernel's printk
 *   timestamps in a guest.  Numbers are decimal or 0x hex.  Keys of the
 *   main-thread operations:
 *
 *     open   type= config= size= (readable copies) attr=HEX pid= cpu=
 *            group= flags= want=valid|invalid
 *                              HEX is the attribute buffer, trailing zero
 *                              bytes dropped; it holds attr.size and any
 *                              tail beyond the structure.  want= says
 *                              whether the generator meant it to be valid
 *     close  fd=
 *     ioctl  fd= req=NAME|0xNUM and one of: arg=N fdarg=FD bad=0xADDR
 *            u64=0xV str=HEX ptr=good qlen=N attr=HEX
 *     read   fd= len= [bad=0xADDR]
 *     mmap   fd= len= prot= flags= off=          => 0xADDR
 *     munmap addr= off= len=      mprotect addr= off= len= prot=
 *            (addr is the start of the mapping as returned by mmap)
 *     ring   addr= set=none|head|rel:N|abs:0xV
 *            => 0 head= tail= recs= bytes= idx= [newtail=] [odd=WHY]
 *            (odd: overrun, unaligned, short, bad-size, bad-type, layout,
 *            seqcount, fault - noted, never fatal)
 *     poll   fds=FD:0xEVENTS,... timeout=
 *     fcntl  fd= cmd=SETFL|SETOWN|SETOWN_EX|SETSIG|GETOWN|GETSIG|GETFL
 *            [arg=] [type=] [pid=]
 *     prctl  op=DISABLE|ENABLE
 *     fork   cseed=0xSEED (the child's own random stream) => PID
 *     kill   pid= sig=        wait  pid= ms=  (polls that long at most)
 *     cpu    n= online=       sysctl name= val=
 *     work   kind=pages|spin|yield|bp|thread n=
 *
 *   Children log "start", "thread", "execve" and their own operations
 *   with the keys above; workers log the short-lived threads they run.
 *   Lines starting with '#' are the header (seed, pid, PMUs, tracepoint
 *   count, the non-perf fds kept around, worker tids, sysctl values) and
 *   the watchdog's and the final "# end" notes.
 *
 *   When the log is not a regular file (-l - on a serial console, the one
 *   log that survives a guest's panic), each call is also written just
 *   before it is made, with the result "pending"; the call that took the
 *   kernel down is then the last "pending" line of its thread.
 *
 *   To compare two runs of a seed, keep what is before " => " on the "M"
 *   lines: grep '^M ' LOG | sed 's| => .*||'.
 *
 * REPLAY
 *
 *   perf_fuzz -r OLD.log [-l NEW.log] re-executes every "M" line of OLD.log
 *   in order, with the same operation numbers, and logs them to NEW.log
 *   exactly like a fuzzing run, so the two logs can be compared line by
 *   line.  Any text around the lines is ignored, so the captured console
 *   output of "-l -" replays as it is; a final "pending" call is replayed
 *   too.  Worker threads run again (seeded from the logged seed) and
 *   forked children reuse their logged cseed.  Numbers that name run-time
 *   objects are translated: fds through the logged results of open (and
 *   the header's non-perf fds), pids through the logged pid, worker tids
 *   and fork results, mapping addresses through mmap results.  An fd
 *   whose open succeeded in the log but fails in the replay becomes an
 *   invalid fd; a call on a mapping that does not exist is logged as
 *   "skip"; a pid that is not one of the replay's own becomes an invalid
 *   pid.  -n, -t and -x limit a replay as they limit a run.
 *
 * DETERMINISM
 *
 *   Operation number N of the main thread draws its kind and arguments
 *   from a random stream seeded with (seed, N) only, so the same seed
 *   gives the same sequence of calls for as long as the kernel returns
 *   the same results; "-s S -n N" repeats the first N main-thread calls.
 *   Picks from the fd and mapping tables probe from a random slot, so one
 *   result that differs (a group leader whose task has just exited, a
 *   child reaped a little earlier) changes few of the later choices; fd
 *   numbers follow the kernel's.  Fixed addresses (PROT_NONE and read-only
 *   guard pages, a static non-PIE binary) keep bad pointers and breakpoint
 *   addresses the same from run to run.
 *
 *   In a QEMU guest the default log lives on a tmpfs that a kernel panic
 *   takes with it: log to the serial console with "-l -" (stdout) to keep
 *   every line (at about half the speed), then replay the captured output.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <linux/perf_event.h>

#ifndef _UAPI_LINUX_PERF_EVENT_H
#error "build with -isystem <project>/tools/include/uapi: the project's perf_event.h is needed"
#endif

_Static_assert(sizeof(struct perf_event_attr) == PERF_ATTR_SIZE_VER8,
	       "perf_event_attr is not the 6.12 layout");

#ifndef TRAP_PERF
#define TRAP_PERF		6
#endif

/* Breakpoint types (values of <linux/hw_breakpoint.h>). */
#define BP_EMPTY		0
#define BP_R			1
#define BP_W			2
#define BP_RW			3
#define BP_X			4

/* Limits. */
#define MAX_EVENTS		256	/* open event fds */
#define MAX_CHILDREN		8	/* unreaped child processes */
#define MAX_MAPS		64	/* live mappings of events */
#define MAX_DATA_ORDER		6	/* data area of 2^0 .. 2^6 pages */
#define NR_WORKERS		2	/* workload threads beside main */
#define MAX_PMUS		32
#define MAX_TP_IDS		8192
#define MAX_CPUS		1024

#define ATTR_BUF_SIZE		8192	/* room for attr.size > PAGE_SIZE */
#define READ_BUF_SIZE		65536
#define FILTER_MAX		256
#define LOG_LINE_MAX		4096
#define TAIL_LINES		40
/* Signals to one thread during one main-thread operation: a storm. */
#define STORM_SIGNALS		5000
#define RING_MAX_RECORDS	4096

#define BOGUS_FD		1000000	/* above any fd limit: EBADF */
#define BOGUS_PID		5000000	/* above PID_MAX_LIMIT: ESRCH */
#define GUARD_BASE		0x5a5a00000000UL /* fixed: logs replay */

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------------------ */
/* Random numbers                                                      */
/* ------------------------------------------------------------------ */

/* Independent random streams derived from the seed. */
enum {
	STREAM_OP = 1,		/* main-thread operation N */
	STREAM_WORKER,		/* worker thread N */
	STREAM_CHILD,		/* a child process */
	STREAM_THREAD,		/* a short-lived thread */
};

struct rng {
	uint64_t s;
};

/* splitmix64's finaliser: a good 64-bit mixing function. */
static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static void rng_init(struct rng *r, uint64_t seed, uint64_t stream,
		     uint64_t index)
{
	r->s = mix64(mix64(seed ^ mix64(stream)) ^ index);
	if (!r->s)
		r->s = 0x9e3779b97f4a7c15ULL;
}

/* xorshift64* */
static uint64_t rnd(struct rng *r)
{
	uint64_t x = r->s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	r->s = x;
	return x * 0x2545f4914f6cdd1dULL;
}

/* Uniform in [0, n); 0 when n is 0. */
static uint64_t rnd_below(struct rng *r, uint64_t n)
{
	return (uint64_t)(((__uint128_t)rnd(r) * n) >> 64);
}

/* Uniform in [lo, hi]. */
static int64_t rnd_range(struct rng *r, int64_t lo, int64_t hi)
{
	return lo + (int64_t)rnd_below(r, (uint64_t)(hi - lo) + 1);
}

static bool one_in(struct rng *r, uint64_t n)
{
	return rnd_below(r, n) == 0;
}

static bool pct(struct rng *r, unsigned int p)
{
	return rnd_below(r, 100) < p;
}

/* Each bit of @mask, set with probability 1/@n. */
static uint64_t rnd_bits(struct rng *r, uint64_t mask, unsigned int n)
{
	uint64_t v = 0;
	int b;

	for (b = 0; b < 64; b++)
		if ((mask & (1ULL << b)) && one_in(r, n))
			v |= 1ULL << b;
	return v;
}

/* Values that tend to sit on boundaries. */
static uint64_t rnd_edgy(struct rng *r)
{
	static const uint64_t edges[] = {
		0, 1, 2, 7, 8, 0xff, 0x100, 0xfff, 0x1000, 0x7fff, 0xffff,
		0x7fffffff, 0x80000000, 0xffffffff, 0x100000000ULL,
		0x7fffffffffffffffULL, 0x8000000000000000ULL, ~0ULL, ~0ULL - 7,
	};

	if (one_in(r, 3))
		return rnd(r);
	return edges[rnd_below(r, ARRAY_SIZE(edges))];
}

/* ------------------------------------------------------------------ */
/* Global state                                                        */
/* ------------------------------------------------------------------ */

/* An open event fd and what it was opened with. */
struct fz_event {
	int fd;				/* -1: free slot */
	int leader;			/* slot of its leader, -1 if it leads */
	int nsib;			/* siblings, when it leads */
	pid_t pid;			/* as passed to perf_event_open */
	int cpu;
	unsigned long flags;
	struct perf_event_attr attr;	/* as the kernel saw it */
};

/* A mapping of an event fd. */
struct fz_map {
	uintptr_t addr;			/* 0: free slot */
	size_t len;
	int prot;
	int fd;				/* the fd it was mapped from */
	bool intact;			/* still the whole original mapping */
};

enum misc_kind { MISC_DEVNULL, MISC_PIPE_R, MISC_PIPE_W, MISC_EVENTFD, MISC_CGROUP,
		 NR_MISC };

static const char *const misc_names[NR_MISC] = {
	"devnull", "pipe_r", "pipe_w", "eventfd", "cgroup",
};

#define MAX_PMU_EVENTS		16

/* A dynamic PMU and the events its sysfs directory advertises. */
struct fz_pmu {
	char name[64];
	uint32_t type;
	int nev;
	struct {
		uint64_t config[3];	/* config, config1, config2 */
	} ev[MAX_PMU_EVENTS];
};

struct fz_sysctl {
	const char *name;
	long lo, hi;
	bool present;
	long orig;
	char path[96];
	char orig_str[32];
};

static struct fz_sysctl sysctls[] = {
	{ "perf_event_max_sample_rate", 1, 100000 },
	{ "perf_event_mlock_kb", 0, 4096 },
	{ "perf_cpu_time_max_percent", 0, 100 },
	{ "perf_event_max_stack", 0, 127 },
	{ "perf_event_max_contexts_per_stack", 0, 16 },
};

enum { SC_SAMPLE_RATE, SC_MLOCK_KB, SC_CPU_PCT, SC_MAX_STACK, SC_MAX_CTX };

static uint64_t g_seed;
static pid_t main_pid;
static long page_size;
static int ncpus;
static bool replaying;
static bool quiet;
static bool in_child;

static struct fz_event ev[MAX_EVENTS];
static int nr_ev;
static struct fz_map maps[MAX_MAPS];
static int nr_maps;
static pid_t kids[MAX_CHILDREN];	/* 0: free slot */
static uint64_t kid_born[MAX_CHILDREN];	/* operation that forked it */
static int nr_kids;
static int misc_fd[NR_MISC];

static struct fz_pmu pmus[MAX_PMUS];
static int nr_pmus;
static int perf_test_type = -1;
/* The depth of the cpu PMU's branch stack (caps/branches), 0 for none. */
static long lbr_depth;
/* The highest precise_ip the cpu PMU takes (caps/max_precise), 0: none. */
static long max_precise;
static uint64_t *tp_ids;
static int nr_tp;
/*
 * ftrace:function is left out of the tracepoints: without a filter it
 * turns the function tracer on for every kernel function, each call then
 * reported to perf.  On the debug kernel under TCG, rewriting the call
 * sites while every rewritten function reports took from three to more
 * than fifteen minutes (a hung task waiting on event_mutex behind it),
 * which no fuzz run has time for (how it divides between the tracer,
 * TCG retranslating rewritten pages and perf is not measured; stock's
 * debug kernel was not run on it).  The event is tested with a
 * filter by the selftests (tracepoint.c); a random config that happens
 * to be its id becomes an id no tracepoint has.
 */
static long tp_function_id = -1;
static bool tracefs_mounted;

static bool cpu_hotpluggable[MAX_CPUS];
static int nr_hotpluggable;
static int offline_cpu = -1;
static char offline_path[96];		/* for the emergency restore */

/* What the generator believes the sysctls are (our writes only). */
static long cur_sample_rate = 100000;
static long cur_max_stack = 127;

static _Atomic uint64_t main_opno;	/* the main thread's current operation */
static pthread_t workers[NR_WORKERS];
static _Atomic pid_t worker_tid[NR_WORKERS];
static _Atomic int workers_stop;
static int nr_workers_started;

static uintptr_t guard_none;		/* PROT_NONE page */
static uintptr_t guard_ro;		/* read-only page */

static unsigned char attr_buf[ATTR_BUF_SIZE] __attribute__((aligned(4096)));
static unsigned char attr_buf2[ATTR_BUF_SIZE] __attribute__((aligned(4096)));
static uint64_t read_buf[READ_BUF_SIZE / 8];

/* Logging. */
static const char *log_path = "/tmp/perf_fuzz.log";
static int log_fd = -1;
static bool log_is_file;
static bool log_announce;		/* stream log: announce calls first */
static __thread char t_tag[16] = "M";
static __thread uint64_t t_opno;

/* Statistics of the main process. */
enum op_kind {
	OP_OPEN, OP_CLOSE, OP_IOCTL, OP_READ, OP_MMAP, OP_MUNMAP, OP_RING,
	OP_POLL, OP_FCNTL, OP_PRCTL, OP_FORK, OP_KILL, OP_WAIT, OP_CPU,
	OP_SYSCTL, OP_WORK, NR_OP_KINDS
};

static bool kind_disabled[NR_OP_KINDS];	/* -x */

static unsigned long st_ops, st_opens, st_open_ok, st_skipped;
/* Hardware events opened that sample branch stacks. */
static unsigned long st_brstack_ok;
static unsigned long st_precise_ok;
static unsigned long st_open_err[256];
static unsigned long st_kind[NR_OP_KINDS];
static unsigned long st_forks, st_ring_recs, st_ring_odd;

/* Signals. */
#define SIG_SLOTS		65
static _Atomic unsigned long sig_count[SIG_SLOTS];
static _Atomic unsigned long st_trap_perf;
static _Atomic unsigned long st_storms;
static _Atomic unsigned long st_faults;
static volatile sig_atomic_t stop_req;
static __thread sigjmp_buf guard_env;
static __thread volatile sig_atomic_t guard_armed;

/*
 * Breakpoint targets: variables and functions the workload touches.  The
 * variables are volatile so that every access in the source really is a
 * memory access a data breakpoint can see.
 */
static volatile uint64_t bp_vars[4] __attribute__((aligned(64)));

static __attribute__((noinline)) void bp_fn_a(void)
{
	bp_vars[0]++;
	__asm__ volatile("" ::: "memory");
}

static __attribute__((noinline)) uint64_t bp_fn_b(uint64_t x)
{
	__asm__ volatile("" ::: "memory");
	return bp_vars[1] ^ (x * 3);
}

static __attribute__((noinline)) void bp_fn_c(void)
{
	bp_vars[2] += 5;
	__asm__ volatile("" ::: "memory");
}

static uintptr_t bp_fn_addr(unsigned int i)
{
	switch (i % 3) {
	case 0:
		return (uintptr_t)&bp_fn_a;
	case 1:
		return (uintptr_t)&bp_fn_b;
	default:
		return (uintptr_t)&bp_fn_c;
	}
}

/* ------------------------------------------------------------------ */
/* Small helpers                                                       */
/* ------------------------------------------------------------------ */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void sleep_us(unsigned long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

	nanosleep(&ts, NULL);
}

static const char *errname(int err)
{
	static __thread char buf[16];
	const char *s = strerrorname_np(err);

	if (s)
		return s;
	snprintf(buf, sizeof(buf), "E%d", err);
	return buf;
}

static void write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		p += w;
		n -= (size_t)w;
	}
}

/* Reads a decimal long from a small file; 0 or -errno. */
static int read_long_file(const char *path, long *v)
{
	char buf[64];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = 0;
	*v = strtol(buf, NULL, 0);
	return 0;
}

/* Writes a string to a sysfs/procfs file; 0 or -errno.  Signal-safe. */
static int write_str_file(const char *path, const char *s)
{
	ssize_t n;
	int err = 0;
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	if (n < 0)
		err = -errno;
	close(fd);
	return err;
}

static int write_long_file(const char *path, long v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%ld\n", v);
	return write_str_file(path, buf);
}

static size_t trimmed_len(const unsigned char *p, size_t n)
{
	while (n && !p[n - 1])
		n--;
	return n;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Decodes hex into @out (at most @max bytes); returns the byte count. */
static size_t hex_decode(const char *s, unsigned char *out, size_t max)
{
	size_t n = 0;

	while (s && s[0] && s[1] && n < max) {
		int hi = hexval(s[0]), lo = hexval(s[1]);

		if (hi < 0 || lo < 0)
			break;
		out[n++] = (unsigned char)(hi << 4 | lo);
		s += 2;
	}
	return n;
}

/* ------------------------------------------------------------------ */
/* Logging                                                             */
/* ------------------------------------------------------------------ */

struct logline {
	size_t len;
	char buf[LOG_LINE_MAX];
};

static void __attribute__((format(printf, 2, 3)))
lput(struct logline *l, const char *fmt, ...)
{
	size_t room = sizeof(l->buf) - 1 - l->len;	/* keep one for '\n' */
	va_list ap;
	int n;

	if (room < 2)
		return;
	va_start(ap, fmt);
	n = vsnprintf(l->buf + l->len, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		l->len += (size_t)n < room ? (size_t)n : room - 1;
}

static void lhex(struct logline *l, const void *p, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	const unsigned char *b = p;
	size_t i;

	for (i = 0; i < n && l->len + 3 < sizeof(l->buf) - 1; i++) {
		l->buf[l->len++] = digits[b[i] >> 4];
		l->buf[l->len++] = digits[b[i] & 15];
	}
	l->buf[l->len] = 0;
}

static void log_begin(struct logline *l, const char *op)
{
	l->len = 0;
	lput(l, "%s %" PRIu64 " %s", t_tag, t_opno, op);
}

/* Appends " => RET" or " => -1 ENAME". */
static void log_result(struct logline *l, long ret, int err)
{
	if (ret < 0)
		lput(l, " => %ld %s", ret, errname(err));
	else
		lput(l, " => %ld", ret);
}

/* Ends the line with the time (CLOCK_MONOTONIC, as printk's) and writes it. */
static void log_emit(struct logline *l)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	lput(l, " t=%lld.%06ld", (long long)ts.tv_sec, ts.tv_nsec / 1000);
	l->buf[l->len++] = '\n';
	if (log_fd >= 0)
		write_all(log_fd, l->buf, l->len);
}

/*
 * On a stream log (a serial console that outlives a kernel panic), write
 * the call before making it, with the result "pending", so that the call
 * that brought the kernel down is on record.  The complete line follows.
 */
static void log_pending(const struct logline *l)
{
	struct logline p;

	if (!log_announce)
		return;
	p.len = l->len;
	memcpy(p.buf, l->buf, l->len);
	p.buf[p.len] = 0;
	lput(&p, " => pending");
	p.buf[p.len++] = '\n';
	write_all(log_fd, p.buf, p.len);
}

/* A line for a call that was not made. */
static void log_skip(struct logline *l, const char *why)
{
	lput(l, " => skip %s", why);
	st_skipped++;
	log_emit(l);
}

static void __attribute__((format(printf, 1, 2))) log_header(const char *fmt, ...)
{
	struct logline l;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(l.buf, sizeof(l.buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	l.len = (size_t)n < sizeof(l.buf) - 2 ? (size_t)n : sizeof(l.buf) - 2;
	l.buf[l.len++] = '\n';
	if (log_fd >= 0)
		write_all(log_fd, l.buf, l.len);
}

/* ------------------------------------------------------------------ */
/* Signals                                                             */
/* ------------------------------------------------------------------ */

static void count_signal(int sig, const siginfo_t *si)
{
	if (sig > 0 && sig < SIG_SLOTS)
		atomic_fetch_add_explicit(&sig_count[sig], 1, memory_order_relaxed);
	if (sig == SIGTRAP && si && si->si_code == TRAP_PERF)
		atomic_fetch_add_explicit(&st_trap_perf, 1, memory_order_relaxed);
}

/*
 * A signal storm: an event asked for more signals than a slow guest can
 * deliver (a sampling rate at the limit with SIGIO or SIGTRAP on every
 * overflow), and the thread it targets makes no progress any more.  The
 * kernel keeps to its limits there; the run would stall.  Stop the signals
 * at their source: O_ASYNC off every event fd, and sigtrap events disabled.
 * Only async-signal-safe calls; the table may be changing under us, and a
 * stray fcntl or ioctl on a reused fd is harmless.
 */
static void break_storm(int sig)
{
	static const char msg[] = "# signal storm: O_ASYNC cleared, sigtrap events disabled\n";
	int i, fd, fl;

	for (i = 0; i < MAX_EVENTS; i++) {
		fd = ev[i].fd;
		if (fd < 0)
			continue;
		fl = fcntl(fd, F_GETFL);
		if (fl >= 0 && (fl & O_ASYNC))
			fcntl(fd, F_SETFL, fl & ~O_ASYNC);
		if (sig == SIGTRAP && ev[i].attr.sigtrap)
			ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	}
	atomic_fetch_add_explicit(&st_storms, 1, memory_order_relaxed);
	if (log_fd >= 0)
		write_all(log_fd, msg, sizeof(msg) - 1);
}

static void on_count(int sig, siginfo_t *si, void *uc)
{
	static __thread uint64_t storm_op;
	static __thread unsigned long storm_n;
	uint64_t op = atomic_load(&main_opno);

	(void)uc;
	count_signal(sig, si);
	if (in_child)
		return;
	if (op != storm_op) {
		storm_op = op;
		storm_n = 0;
	}
	if (++storm_n == STORM_SIGNALS)
		break_storm(sig);
}

static void on_stop(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	count_signal(sig, si);
	stop_req = 1;
}

/*
 * Puts back the offline CPU and the sysctls with async-signal-safe calls
 * only, for when the fuzzer itself is about to die of a fault.
 */
static void emergency_restore(void)
{
	size_t i;

	if (in_child)
		return;
	if (offline_cpu > 0)
		write_str_file(offline_path, "1\n");
	for (i = 0; i < ARRAY_SIZE(sysctls); i++)
		if (sysctls[i].present)
			write_str_file(sysctls[i].path, sysctls[i].orig_str);
}

/*
 * SIGSEGV/SIGBUS: inside guarded() jump back out; otherwise the fuzzer has
 * a bug: restore what can be restored and die of the signal.
 */
static void on_fault(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	count_signal(sig, si);
	if (guard_armed) {
		guard_armed = 0;
		atomic_fetch_add_explicit(&st_faults, 1, memory_order_relaxed);
		siglongjmp(guard_env, 1);
	}
	emergency_restore();
	signal(sig, SIG_DFL);
}

/* Runs fn(arg); false when it faulted (the fault is then counted). */
static bool guarded(void (*fn)(void *), void *arg)
{
	if (sigsetjmp(guard_env, 1))
		return false;
	guard_armed = 1;
	fn(arg);
	guard_armed = 0;
	return true;
}

/*
 * SIGURG, which the watchdog sends a stuck main thread: runs only when the
 * thread is in user space, and says where.
 */
static void on_where(int sig, siginfo_t *si, void *uc)
{
	const ucontext_t *u = uc;
	char msg[128];

	(void)sig;
	(void)si;
	snprintf(msg, sizeof(msg), "perf_fuzz:   in user space at rip=0x%llx rsp=0x%llx\n",
		 (unsigned long long)u->uc_mcontext.gregs[REG_RIP],
		 (unsigned long long)u->uc_mcontext.gregs[REG_RSP]);
	write_all(STDOUT_FILENO, msg, strlen(msg));
}

static int set_handler(int sig, void (*fn)(int, siginfo_t *, void *), int flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = fn;
	sa.sa_flags = SA_SIGINFO | flags;
	sigemptyset(&sa.sa_mask);
	return sigaction(sig, &sa, NULL);
}

static int install_signals(void)
{
	static const int counted[] = {
		SIGIO, SIGTRAP, SIGUSR1, SIGUSR2, SIGPIPE, SIGCHLD, SIGALRM,
	};
	static const int stops[] = { SIGTERM, SIGINT, SIGHUP };
	size_t i;
	int err = 0;

	for (i = 0; i < ARRAY_SIZE(counted); i++)
		err |= set_handler(counted[i], on_count, SA_RESTART);
	for (i = 0; i < 4; i++)
		err |= set_handler(SIGRTMIN + (int)i, on_count, SA_RESTART);
	for (i = 0; i < ARRAY_SIZE(stops); i++)
		err |= set_handler(stops[i], on_stop, 0);
	err |= set_handler(SIGURG, on_where, SA_RESTART);
	err |= set_handler(SIGSEGV, on_fault, 0);
	err |= set_handler(SIGBUS, on_fault, 0);
	return err ? -1 : 0;
}

/* Signals F_SETSIG may name: all of them have a counting handler. */
static int rnd_setsig(struct rng *r)
{
	switch (rnd_below(r, 10)) {
	case 0:
	case 1:
		return 0;
	case 2:
	case 3:
		return SIGIO;
	case 4:
		return SIGUSR1;
	case 5:
		return 65;			/* invalid */
	case 6:
		return one_in(r, 2) ? -1 : 1000; /* invalid */
	default:
		return SIGRTMIN + (int)rnd_below(r, 4);
	}
}

static bool setsig_is_safe(long s)
{
	if (s < 0 || s > 64 || s == 0 || s == SIGIO || s == SIGUSR1)
		return true;
	return s >= SIGRTMIN && s <= SIGRTMIN + 3;
}

/* ------------------------------------------------------------------ */
/* Bookkeeping: events, mappings, children, pids                       */
/* ------------------------------------------------------------------ */

static int ev_find(int fd)
{
	int i;

	if (fd < 0)
		return -1;
	for (i = 0; i < MAX_EVENTS; i++)
		if (ev[i].fd == fd)
			return i;
	return -1;
}

/* Records a new event; -1 when the table is full. */
static int ev_add(int fd, const struct perf_event_attr *attr, pid_t pid,
		  int cpu, int group_fd, unsigned long flags)
{
	int i, leader = -1;

	if (!(flags & PERF_FLAG_FD_NO_GROUP))
		leader = ev_find(group_fd);
	for (i = 0; i < MAX_EVENTS; i++) {
		if (ev[i].fd >= 0)
			continue;
		ev[i].fd = fd;
		ev[i].leader = leader;
		ev[i].nsib = 0;
		ev[i].pid = pid;
		ev[i].cpu = cpu;
		ev[i].flags = flags;
		ev[i].attr = *attr;
		if (leader >= 0)
			ev[leader].nsib++;
		nr_ev++;
		return i;
	}
	return -1;
}

/* Forgets a closed event; its siblings become groups of their own. */
static void ev_remove(int slot)
{
	int i;

	for (i = 0; i < MAX_EVENTS; i++)
		if (ev[i].fd >= 0 && ev[i].leader == slot)
			ev[i].leader = -1;
	if (ev[slot].leader >= 0)
		ev[ev[slot].leader].nsib--;
	for (i = 0; i < MAX_MAPS; i++)
		if (maps[i].addr && maps[i].fd == ev[slot].fd)
			maps[i].fd = -1;
	ev[slot].fd = -1;
	nr_ev--;
}

/*
 * Random picks from the tables probe from a random position to the next
 * matching slot, rather than taking the k-th match: when one open fails in
 * one run and succeeds in another, the other picks still agree.
 */

/* A random event slot (leaders only if @leaders); -1 when there is none. */
static int ev_pick_filtered(struct rng *r, bool leaders)
{
	int i, start = (int)rnd_below(r, MAX_EVENTS), k;

	for (i = 0; i < MAX_EVENTS; i++) {
		k = (start + i) % MAX_EVENTS;
		if (ev[k].fd >= 0 && (!leaders || ev[k].leader < 0))
			return k;
	}
	return -1;
}

static int ev_pick(struct rng *r)
{
	return ev_pick_filtered(r, false);
}

/*
 * A random event of attr.type @type (only CPU-wide ones if @cpu_wide),
 * or -1 if there is none.
 */
static int ev_pick_type(struct rng *r, uint32_t type, bool cpu_wide)
{
	int i, start = (int)rnd_below(r, MAX_EVENTS), k;

	for (i = 0; i < MAX_EVENTS; i++) {
		k = (start + i) % MAX_EVENTS;
		if (ev[k].fd >= 0 && ev[k].attr.type == type &&
		    (!cpu_wide || ev[k].pid == -1))
			return k;
	}
	return -1;
}

/* Another event on the same task and CPU as @slot, if there is one. */
static int ev_pick_peer(struct rng *r, int slot)
{
	int i, start = (int)rnd_below(r, MAX_EVENTS), k;

	for (i = 0; i < MAX_EVENTS; i++) {
		k = (start + i) % MAX_EVENTS;
		if (k != slot && ev[k].fd >= 0 && ev[k].pid == ev[slot].pid &&
		    ev[k].cpu == ev[slot].cpu)
			return k;
	}
	return -1;
}

static int map_find(uintptr_t addr)
{
	int i;

	for (i = 0; i < MAX_MAPS; i++)
		if (addr && maps[i].addr == addr)
			return i;
	return -1;
}

static void map_add(uintptr_t addr, size_t len, int prot, int fd)
{
	int i;

	for (i = 0; i < MAX_MAPS; i++) {
		if (maps[i].addr)
			continue;
		maps[i].addr = addr;
		maps[i].len = len;
		maps[i].prot = prot;
		maps[i].fd = fd;
		maps[i].intact = true;
		nr_maps++;
		return;
	}
}

static void map_remove(int i)
{
	maps[i].addr = 0;
	nr_maps--;
}

static bool map_walkable(const struct fz_map *m)
{
	return m->addr && m->intact && (m->prot & PROT_READ);
}

/* A random mapping (a walkable one if @walkable); -1 when none. */
static int map_pick(struct rng *r, bool walkable)
{
	int i, start = (int)rnd_below(r, MAX_MAPS), k;

	for (i = 0; i < MAX_MAPS; i++) {
		k = (start + i) % MAX_MAPS;
		if (maps[k].addr && (!walkable || map_walkable(&maps[k])))
			return k;
	}
	return -1;
}

static bool have_walkable(void)
{
	int i;

	for (i = 0; i < MAX_MAPS; i++)
		if (map_walkable(&maps[i]))
			return true;
	return false;
}

static int kid_find(pid_t pid)
{
	int i;

	for (i = 0; i < MAX_CHILDREN; i++)
		if (pid > 0 && kids[i] == pid)
			return i;
	return -1;
}

static bool kid_add(pid_t pid)
{
	int i;

	for (i = 0; i < MAX_CHILDREN; i++) {
		if (!kids[i]) {
			kids[i] = pid;
			kid_born[i] = t_opno;
			nr_kids++;
			return true;
		}
	}
	return false;
}

static void kid_remove(pid_t pid)
{
	int i = kid_find(pid);

	if (i >= 0) {
		kids[i] = 0;
		nr_kids--;
	}
}

/* The pid in a random child slot, or 0 (ourselves) when it is empty. */
static pid_t rnd_kid_or_self(struct rng *r)
{
	pid_t pid = kids[rnd_below(r, MAX_CHILDREN)];

	return pid ? pid : 0;
}

static pid_t rnd_worker_tid(struct rng *r)
{
	return atomic_load(&worker_tid[rnd_below(r, NR_WORKERS)]);
}

static bool is_worker_tid(pid_t pid)
{
	int i;

	for (i = 0; i < NR_WORKERS; i++)
		if (pid == atomic_load(&worker_tid[i]))
			return true;
	return false;
}

/* Whether @pid is one of the fuzzer's own tasks (or no task at all). */
static bool pid_is_ours(pid_t pid)
{
	return pid == 0 || pid == main_pid || pid == getpid() ||
	       is_worker_tid(pid) || kid_find(pid) >= 0;
}

/*
 * A pid safe to hand to the kernel as an event target or a signal owner:
 * our own tasks, -1, or an obviously bogus number.  Anything else (a pid
 * that may belong to some other process) is replaced by BOGUS_PID.
 */
static pid_t safe_pid(pid_t pid)
{
	if (pid == -1 || pid_is_ours(pid) || pid >= BOGUS_PID || pid < -1)
		return pid;
	return BOGUS_PID;
}

/* ------------------------------------------------------------------ */
/* Workload                                                            */
/* ------------------------------------------------------------------ */

/* Faults in @n fresh pages and gives them back. */
static void work_pages(unsigned int n)
{
	size_t len = (size_t)n * (size_t)page_size;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	size_t i;

	if (p == MAP_FAILED)
		return;
	for (i = 0; i < len; i += (size_t)page_size)
		p[i] = (char)i;
	munmap(p, len);
}

static void work_spin(unsigned int us)
{
	uint64_t end = now_ns() + us * 1000ULL;

	while (now_ns() < end)
		bp_vars[3]++;
}

/* Reads, writes and calls every breakpoint target a few times. */
static void work_bp(unsigned int n)
{
	uint64_t acc = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		bp_vars[i & 3] += i;
		acc += bp_vars[(i + 1) & 3];
		bp_fn_a();
		acc ^= bp_fn_b(acc);
		bp_fn_c();
	}
	bp_vars[1] = acc;
}

struct short_thread {
	uint64_t seed;
	_Atomic pid_t tid;
};

static void *short_thread_main(void *arg)
{
	struct short_thread *st = arg;
	struct rng r;

	atomic_store(&st->tid, gettid());
	rng_init(&r, st->seed, STREAM_THREAD, 0);
	work_pages(1 + (unsigned int)rnd_below(&r, 4));
	work_bp(1 + (unsigned int)rnd_below(&r, 8));
	if (one_in(&r, 2))
		sched_yield();
	return NULL;
}

/* Creates and joins one short-lived thread; returns its tid or -errno. */
static long run_short_thread(uint64_t seed)
{
	struct short_thread st = { .seed = seed };
	pthread_attr_t pa;
	pthread_t t;
	int err;

	pthread_attr_init(&pa);
	pthread_attr_setstacksize(&pa, 256 * 1024);
	err = pthread_create(&t, &pa, short_thread_main, &st);
	pthread_attr_destroy(&pa);
	if (err)
		return -err;
	pthread_join(t, NULL);
	return atomic_load(&st.tid);
}

/* ------------------------------------------------------------------ */
/* Worker threads                                                      */
/* ------------------------------------------------------------------ */

static void worker_thread_step(struct rng *r)
{
	struct logline l;
	long tid;

	t_opno++;
	tid = run_short_thread(rnd(r));
	log_begin(&l, "thread");
	if (tid < 0)
		log_result(&l, -1, (int)-tid);
	else
		log_result(&l, tid, 0);
	log_emit(&l);
}

static void print_log_tail(void);

/* The state letter of the main thread (R, S, D, Z...), or 0. */
static char main_thread_state(void)
{
	char buf[512], *p;
	ssize_t n;
	int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] ? p[2] : 0;
}

/* Copies a /proc file of the main thread to stdout, each line prefixed. */
static void show_main_file(const char *name)
{
	char path[64], buf[4096], line[4200], *p, *nl;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/%s", (int)main_pid, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = 0;
	for (p = buf; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p) - 1;
		snprintf(line, sizeof(line), "perf_fuzz:   %s: %.*s\n", name,
			 (int)(nl - p + (*nl != '\n')), p);
		write_all(STDOUT_FILENO, line, strlen(line));
		if (!nl[1])
			break;
	}
}

/*
 * Where the stuck main thread is: its system call ("running" when in user
 * space), its kernel stack, and the instruction pointer of its last user
 * space entry (the syscall file's last field), to tell a kernel hang from
 * a loop of the fuzzer's own.
 */
static void show_main_thread(void)
{
	char msg[160];

	show_main_file("syscall");
	show_main_file("wchan");
	show_main_file("stack");
	snprintf(msg, sizeof(msg), "perf_fuzz:   signals so far: SIGTRAP %lu (TRAP_PERF %lu), SIGIO %lu\n",
		 atomic_load(&sig_count[SIGTRAP]), atomic_load(&st_trap_perf),
		 atomic_load(&sig_count[SIGIO]));
	write_all(STDOUT_FILENO, msg, strlen(msg));
	syscall(SYS_tgkill, getpid(), main_pid, SIGURG);
}

/*
 * Worker 1's watchdog, run twice a second.  When the kernel killed the main
 * thread (an oops in one of its calls), nothing would ever end the run: put
 * back what can be put back and end the process, so that a batch run goes
 * on.  When the main thread has been stuck in one call for a minute, say
 * so and where, twice (the process may never end then: a thread that never
 * leaves the kernel cannot be killed).
 */
static void watchdog(void)
{
	static uint64_t last_op, since;
	static unsigned int told;
	uint64_t op = atomic_load(&main_opno), now = now_ns();
	char msg[160], state = main_thread_state();

	if (state == 'Z' || state == 'X') {
		snprintf(msg, sizeof(msg), "perf_fuzz: main thread died in op %llu (oops?)\n",
			 (unsigned long long)op);
		log_header("# watchdog: main thread died in operation %llu",
			   (unsigned long long)op);
		emergency_restore();
		write_all(STDOUT_FILENO, msg, strlen(msg));
		if (!quiet)
			print_log_tail();
		fflush(stdout);
		_exit(3);
	}
	if (op != last_op || !since) {
		last_op = op;
		since = now;
		return;
	}
	/* Said at one minute and again ten seconds later, to compare. */
	if (told > 1 || now - since < 60000000000ULL + told * 10000000000ULL)
		return;
	told++;
	snprintf(msg, sizeof(msg),
		 "perf_fuzz: the main thread is stuck in operation %llu (state %c) for %d s\n",
		 (unsigned long long)op, state ? state : '?', 50 + 10 * told);
	log_header("# watchdog: main thread stuck in operation %llu, state %c",
		   (unsigned long long)op, state ? state : '?');
	write_all(STDOUT_FILENO, msg, strlen(msg));
	show_main_thread();
}

static void *worker_main(void *arg)
{
	int idx = (int)(intptr_t)arg;
	uint64_t next_check = 0;
	struct rng r;
	unsigned int x;

	snprintf(t_tag, sizeof(t_tag), "W%d", idx + 1);
	rng_init(&r, g_seed, STREAM_WORKER, (uint64_t)idx);
	atomic_store(&worker_tid[idx], gettid());

	while (!atomic_load(&workers_stop)) {
		if (idx == 0 && now_ns() > next_check) {
			watchdog();
			next_check = now_ns() + 500000000ULL;
		}
		/* Busy about half of the time, so that main is not starved. */
		x = (unsigned int)rnd_below(&r, 1000);
		if (x < 250)
			work_pages(1 + (unsigned int)rnd_below(&r, 8));
		else if (x < 400)
			work_spin(10 + (unsigned int)rnd_below(&r, 90));
		else if (x < 500)
			sched_yield();
		else if (x < 850)
			sleep_us(50 + rnd_below(&r, 450));
		else if (x < 995)
			work_bp(1 + (unsigned int)rnd_below(&r, 16));
		else
			worker_thread_step(&r);
	}
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Attribute generation                                                */
/* ------------------------------------------------------------------ */

enum ev_kind { K_SW, K_BP, K_TEST, K_TP, K_PMU, K_HW, K_RANDOM };

static const uint64_t sample_common =
	PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |
	PERF_SAMPLE_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
	PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_IDENTIFIER;
static const uint64_t sample_heavy =
	PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW |
	PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER | PERF_SAMPLE_WEIGHT |
	PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_TRANSACTION | PERF_SAMPLE_REGS_INTR |
	PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_DATA_PAGE_SIZE |
	PERF_SAMPLE_CODE_PAGE_SIZE;
static const uint64_t sample_risky =
	PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_AUX | PERF_SAMPLE_CGROUP |
	PERF_SAMPLE_WEIGHT_STRUCT;

/* x86-64 user registers perf can sample: AX..SS and R8..R15. */
#define REGS_VALID		0x00ff0fffULL

static uint64_t gen_regs(struct rng *r, bool valid)
{
	static const uint64_t masks[] = { 0xff, 0x0fff, REGS_VALID, 0x1, 0x100 };

	if (!valid)
		return one_in(r, 2) ? 0xf000 | rnd(r) : rnd_edgy(r);
	if (one_in(r, 2))
		return masks[rnd_below(r, ARRAY_SIZE(masks))];
	return (rnd(r) & REGS_VALID) | 1;
}

static uint64_t gen_sample_type(struct rng *r, bool valid)
{
	uint64_t st = rnd_bits(r, sample_common, 3);

	st |= rnd_bits(r, sample_heavy, 7);
	st |= rnd_bits(r, sample_risky, valid ? 256 : 8);
	if (valid && (st & PERF_SAMPLE_WEIGHT) && (st & PERF_SAMPLE_WEIGHT_STRUCT))
		st &= ~PERF_SAMPLE_WEIGHT_STRUCT;
	return st;
}

static uint64_t gen_read_format(struct rng *r, bool valid)
{
	uint64_t rf = rnd_bits(r, PERF_FORMAT_MAX - 1, 3);

	if (!valid && one_in(r, 3))
		rf |= 1ULL << rnd_range(r, 5, 63);
	return rf;
}

static int32_t gen_clockid(struct rng *r, bool valid)
{
	static const int32_t good[] = {
		CLOCK_MONOTONIC, CLOCK_MONOTONIC_RAW, CLOCK_REALTIME,
		CLOCK_BOOTTIME, CLOCK_TAI,
	};
	static const int32_t bad[] = {
		CLOCK_PROCESS_CPUTIME_ID, CLOCK_THREAD_CPUTIME_ID,
		CLOCK_REALTIME_COARSE, -1, 12, 1000, INT32_MIN,
	};

	if (valid)
		return good[rnd_below(r, ARRAY_SIZE(good))];
	return bad[rnd_below(r, ARRAY_SIZE(bad))];
}

/* Breakpoint fields: a variable or function of the fuzzer. */
static void gen_bp_fields(struct rng *r, struct perf_event_attr *a, bool valid)
{
	static const uint32_t lens[] = { 1, 2, 4, 8 };
	unsigned int t = (unsigned int)rnd_below(r, 10);
	uint64_t len;

	if (t < 3)
		a->bp_type = BP_W;
	else if (t < 6)
		a->bp_type = BP_RW;
	else if (t < 9)
		a->bp_type = BP_X;
	else
		a->bp_type = valid ? BP_W : (uint32_t)rnd_below(r, 16);

	if (a->bp_type == BP_X) {
		a->bp_addr = bp_fn_addr((unsigned int)rnd_below(r, 3));
		a->bp_len = sizeof(long);
	} else {
		len = lens[rnd_below(r, ARRAY_SIZE(lens))];
		a->bp_len = len;
		a->bp_addr = (uintptr_t)&bp_vars[rnd_below(r, 4)] +
			     len * rnd_below(r, 8 / len);
	}
	if (valid)
		return;
	switch (rnd_below(r, 6)) {
	case 0:
		a->bp_addr += 1 + rnd_below(r, 3);
		break;
	case 1:
		a->bp_len = one_in(r, 2) ? 3 : rnd_edgy(r);
		break;
	case 2:
		a->bp_addr = one_in(r, 2) ? 0 : 0xffffffff81000000ULL;
		break;
	case 3:
		a->bp_type = BP_R;
		break;
	case 4:
		a->bp_type = BP_EMPTY;
		break;
	default:
		a->bp_addr = rnd_edgy(r);
		break;
	}
}

/**
 * gen_type_config() - choose the event class and config
 * @r: random stream
 * @a: attribute to fill in
 * @valid: aim for something that exists
 *
 * Return: the kind of event, which drives the rest of the generation.
 */
static enum ev_kind gen_type_config(struct rng *r, struct perf_event_attr *a,
				    bool valid)
{
	unsigned int x = (unsigned int)rnd_below(r, 100);
	const struct fz_pmu *pmu;
	int i;

	if (x >= 60 && x < 72 && perf_test_type < 0)
		x = 0;
	if (x >= 72 && x < 82 && !nr_tp)
		x = 1;
	if (x >= 82 && x < 95 && !nr_pmus)
		x = 2;

	if (x < 45) {
		a->type = PERF_TYPE_SOFTWARE;
		a->config = valid || !one_in(r, 3) ?
			    rnd_below(r, PERF_COUNT_SW_MAX) :
			    PERF_COUNT_SW_MAX + rnd_below(r, 3);
		return K_SW;
	}
	if (x < 60) {
		a->type = PERF_TYPE_BREAKPOINT;
		gen_bp_fields(r, a, valid);
		return K_BP;
	}
	if (x < 72) {
		a->type = (uint32_t)perf_test_type;
		a->config = valid ? 0 : rnd_edgy(r);
		return K_TEST;
	}
	if (x < 82) {
		a->type = PERF_TYPE_TRACEPOINT;
		a->config = valid || one_in(r, 2) ? tp_ids[rnd_below(r, (uint64_t)nr_tp)] :
			    rnd_edgy(r);
		if (tp_function_id >= 0 && a->config == (uint64_t)tp_function_id)
			a->config = ~0ULL;
		return K_TP;
	}
	if (x < 95) {
		pmu = &pmus[rnd_below(r, (uint64_t)nr_pmus)];
		a->type = pmu->type;
		if (pmu->type == PERF_TYPE_BREAKPOINT) {
			gen_bp_fields(r, a, valid);
			return K_BP;
		}
		if ((int)pmu->type == perf_test_type)
			return K_TEST;
		if (valid && !strncmp(pmu->name, "ibs_", 4)) {
			/* AMD IBS: the period is MaxCnt; one format bit each. */
			a->config = one_in(r, 2) ? 0 :
				    !strcmp(pmu->name, "ibs_op") ? 1ULL << 19 : 1ULL << 57;
			return K_PMU;
		}
		if (pmu->nev && (valid || one_in(r, 2))) {
			i = (int)rnd_below(r, (uint64_t)pmu->nev);
			a->config = pmu->ev[i].config[0];
			a->config1 = pmu->ev[i].config[1];
			a->config2 = pmu->ev[i].config[2];
		} else {
			a->config = valid ? rnd_below(r, 8) : rnd_edgy(r);
		}
		return pmu->type == PERF_TYPE_SOFTWARE ? K_SW : K_PMU;
	}
	if (x < 98) {
		/* No hardware PMU on these kernels: ENOENT, so keep it rare. */
		a->type = (uint32_t)rnd_below(r, 3) == 0 ? PERF_TYPE_HARDWARE :
			  one_in(r, 2) ? PERF_TYPE_HW_CACHE : PERF_TYPE_RAW;
		if (a->type == PERF_TYPE_HARDWARE)
			a->config = rnd_below(r, PERF_COUNT_HW_MAX + 2);
		else if (a->type == PERF_TYPE_HW_CACHE)
			a->config = rnd_below(r, PERF_COUNT_HW_CACHE_MAX) |
				    rnd_below(r, PERF_COUNT_HW_CACHE_OP_MAX) << 8 |
				    rnd_below(r, PERF_COUNT_HW_CACHE_RESULT_MAX) << 16;
		else
			a->config = rnd(r) & 0xffff;
		return K_HW;
	}
	a->type = one_in(r, 2) ? (uint32_t)rnd_range(r, PERF_TYPE_MAX, 64) :
		  (uint32_t)rnd(r);
	a->config = rnd_below(r, 16);
	return K_RANDOM;
}

/* sample_period / sample_freq, and the sample_type that goes with it. */
static void gen_sampling(struct rng *r, struct perf_event_attr *a,
			 enum ev_kind k, bool valid)
{
	static const uint64_t clock_periods[] = {
		100000, 250000, 1000000, 4000000, 10000000, 20000,
	};
	static const uint64_t count_periods[] = {
		1, 2, 3, 10, 100, 1000, 10000, 100000, 1ULL << 40,
	};
	static const uint64_t freqs[] = { 1, 10, 100, 250, 1000 };
	bool clock = k == K_SW && a->config <= PERF_COUNT_SW_TASK_CLOCK;
	unsigned int x = (unsigned int)rnd_below(r, 100);

	if (valid && (k == K_TEST || k == K_PMU))
		x = 0;			/* no interrupt: counting only */
	if (k == K_BP && x >= 40)
		x = one_in(r, 4) ? 90 : 45;
	if (x < 40) {
		a->sample_period = 0;
	} else if (x < 80) {
		if (k == K_BP || k == K_TP)
			a->sample_period = one_in(r, 2) ? 1 : rnd_range(r, 2, 50);
		else if (clock)
			a->sample_period = one_in(r, 20) ? rnd_range(r, 1, 10000) :
				clock_periods[rnd_below(r, ARRAY_SIZE(clock_periods))];
		else
			a->sample_period = count_periods[rnd_below(r,
						ARRAY_SIZE(count_periods))];
	} else {
		/*
		 * The kernel lowers perf_event_max_sample_rate by itself when
		 * sampling is slow (it is under TCG): stay well below it.
		 */
		a->freq = 1;
		a->sample_freq = valid || one_in(r, 2) ? freqs[rnd_below(r, ARRAY_SIZE(freqs))] :
				 (uint64_t)rnd_range(r, 1, cur_sample_rate);
		if (a->sample_freq > (uint64_t)cur_sample_rate)
			a->sample_freq = (uint64_t)cur_sample_rate;
	}
	if (!valid && one_in(r, 4))
		a->sample_period = one_in(r, 2) ? 1ULL << 63 | rnd(r) : rnd_edgy(r);
	if (a->sample_period || one_in(r, 4))
		a->sample_type = gen_sample_type(r, valid);
}

/* The single-bit flags of the attribute, each set now and then. */
static void gen_flag_bits(struct rng *r, struct perf_event_attr *a, bool valid)
{
	a->disabled = one_in(r, 3);
	a->inherit = one_in(r, 5);
	a->pinned = one_in(r, 12);
	a->exclusive = one_in(r, 16);
	a->exclude_user = one_in(r, 10);
	a->exclude_kernel = one_in(r, 4);
	a->exclude_hv = one_in(r, 8);
	a->exclude_idle = one_in(r, 16);
	a->mmap = one_in(r, 8);
	a->comm = one_in(r, 8);
	a->inherit_stat = one_in(r, 16);
	a->enable_on_exec = one_in(r, 16);
	a->task = one_in(r, 8);
	a->watermark = one_in(r, 8);
	a->precise_ip = one_in(r, 12) ? rnd_below(r, 4) : 0;
	a->mmap_data = one_in(r, 16);
	a->sample_id_all = one_in(r, 4);
	a->exclude_host = one_in(r, 24);
	a->exclude_guest = one_in(r, 24);
	a->exclude_callchain_kernel = one_in(r, 12);
	a->exclude_callchain_user = one_in(r, 12);
	a->mmap2 = one_in(r, 10);
	a->comm_exec = one_in(r, 12);
	a->use_clockid = one_in(r, 10);
	a->context_switch = one_in(r, 12);
	a->write_backward = one_in(r, 16);
	a->namespaces = one_in(r, 20);
	a->ksymbol = one_in(r, 24);
	a->bpf_event = one_in(r, 24);
	a->aux_output = one_in(r, valid ? 512 : 16);
	a->cgroup = one_in(r, 24);
	a->text_poke = one_in(r, 24);
	a->build_id = one_in(r, 20);
	a->inherit_thread = one_in(r, 10);
	a->remove_on_exec = one_in(r, 16);
	a->sigtrap = one_in(r, 12);
	/* The kernel insists on remove_on_exec with sigtrap. */
	if (a->sigtrap && !one_in(r, 10))
		a->remove_on_exec = 1;
}

/* Fields that depend on the sample_type and flags chosen so far. */
static void gen_dependent(struct rng *r, struct perf_event_attr *a, bool valid)
{
	if (a->watermark)
		a->wakeup_watermark = (uint32_t)rnd_range(r, 1, 8 * page_size);
	else
		a->wakeup_events = one_in(r, 2) ? (uint32_t)rnd_below(r, 2) :
				   (uint32_t)rnd_below(r, 64);
	if (a->use_clockid)
		a->clockid = gen_clockid(r, valid || !one_in(r, 3));
	if ((a->sample_type & PERF_SAMPLE_REGS_USER) || one_in(r, 64))
		a->sample_regs_user = gen_regs(r, valid || !one_in(r, 4));
	if ((a->sample_type & PERF_SAMPLE_REGS_INTR) || one_in(r, 64))
		a->sample_regs_intr = gen_regs(r, valid || !one_in(r, 4));
	if (a->sample_type & PERF_SAMPLE_STACK_USER)
		a->sample_stack_user = valid || !one_in(r, 3) ?
			8 * (uint32_t)rnd_range(r, 1, 8191) :
			(uint32_t)rnd_edgy(r) | 1;
	if ((a->sample_type & PERF_SAMPLE_CALLCHAIN) && one_in(r, 3))
		a->sample_max_stack = valid ? (uint16_t)rnd_below(r, (uint64_t)cur_max_stack + 1) :
				      (uint16_t)rnd_range(r, 128, 65535);
	if ((a->sample_type & PERF_SAMPLE_BRANCH_STACK) || one_in(r, 64))
		a->branch_sample_type = valid ? rnd_bits(r, PERF_SAMPLE_BRANCH_MAX - 1, 4) |
					PERF_SAMPLE_BRANCH_ANY : rnd_edgy(r);
	if ((a->sample_type & PERF_SAMPLE_AUX) || one_in(r, 64))
		a->aux_sample_size = (uint32_t)rnd_edgy(r);
	if (one_in(r, 64))
		a->aux_watermark = (uint32_t)rnd_edgy(r);
	if (a->sigtrap || one_in(r, 16))
		a->sig_data = rnd(r);
	if (one_in(r, 64))
		a->config3 = rnd_edgy(r);
	if (valid) {
		if (a->inherit_thread)
			a->inherit = 1;
		if (a->remove_on_exec)
			a->enable_on_exec = 0;
		if (a->inherit && (a->sample_type & PERF_SAMPLE_READ))
			a->sample_type |= PERF_SAMPLE_TID;
	}
}

/*
 * A branch filter a branch stack takes: a kind of branches (two now and
 * then) or a call stack, with levels and the options of the records.
 */
static uint64_t gen_branch_filter(struct rng *r)
{
	static const uint64_t kinds[] = {
		PERF_SAMPLE_BRANCH_ANY, PERF_SAMPLE_BRANCH_ANY_CALL,
		PERF_SAMPLE_BRANCH_ANY_RETURN, PERF_SAMPLE_BRANCH_COND,
		PERF_SAMPLE_BRANCH_IND_CALL, PERF_SAMPLE_BRANCH_CALL,
		PERF_SAMPLE_BRANCH_IND_JUMP, PERF_SAMPLE_BRANCH_CALL_STACK,
	};
	uint64_t f = kinds[rnd_below(r, ARRAY_SIZE(kinds))];

	if (!(f & PERF_SAMPLE_BRANCH_CALL_STACK) && one_in(r, 3))
		f |= kinds[rnd_below(r, ARRAY_SIZE(kinds) - 1)];
	return f | rnd_bits(r, PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_KERNEL |
			    PERF_SAMPLE_BRANCH_HW_INDEX | PERF_SAMPLE_BRANCH_TYPE_SAVE |
			    PERF_SAMPLE_BRANCH_NO_FLAGS | PERF_SAMPLE_BRANCH_NO_CYCLES |
			    PERF_SAMPLE_BRANCH_NO_TX, 3);
}

/*
 * Where the cpu PMU has a branch stack: a hardware event sampling branch
 * stacks, which the generic choices make too rarely to matter.
 */
static void gen_branch_event(struct rng *r, struct perf_event_attr *a)
{
	static const uint64_t configs[] = {
		PERF_COUNT_HW_BRANCH_INSTRUCTIONS, PERF_COUNT_HW_CPU_CYCLES,
		PERF_COUNT_HW_INSTRUCTIONS,
	};
	static const uint64_t periods[] = { 100, 1000, 10007, 100000 };

	a->type = PERF_TYPE_HARDWARE;
	a->config = configs[rnd_below(r, ARRAY_SIZE(configs))];
	a->freq = 0;
	a->sample_period = periods[rnd_below(r, ARRAY_SIZE(periods))];
	a->sample_type |= PERF_SAMPLE_IP | PERF_SAMPLE_BRANCH_STACK;
	a->precise_ip = 0;
	a->branch_sample_type = gen_branch_filter(r);
}

/*
 * Where the cpu PMU has precise events (PEBS): a hardware or raw event
 * with precise_ip, sampling what a precise sample adds (the data address
 * and source, the record's registers, a callchain; where records have
 * them, the XMM registers and a branch stack), which the generic choices
 * make too rarely to matter.
 */
static void gen_precise_event(struct rng *r, struct perf_event_attr *a)
{
	static const uint64_t hw[] = {
		PERF_COUNT_HW_CPU_CYCLES, PERF_COUNT_HW_INSTRUCTIONS,
		PERF_COUNT_HW_BRANCH_INSTRUCTIONS, PERF_COUNT_HW_REF_CPU_CYCLES,
	};
	/*
	 * Loads and stores retired, loads that hit L1, INST_RETIRED.PREC_DIST
	 * (both encodings), cycles' forms, reference cycles, load latency,
	 * Golden Cove's store latency and mem-loads-aux.
	 */
	static const uint64_t raw[] = {
		0x81d0, 0x82d0, 0x01d1, 0x1c0, 0x0100, 0x108000c0, 0x108001c0,
		0x10000c4, 0x0300, 0x01cd, 0x02cd, 0x8203,
	};
	static const uint64_t periods[] = { 97, 1000, 10007, 100000 };

	if (one_in(r, 3)) {
		a->type = PERF_TYPE_RAW;
		a->config = raw[rnd_below(r, ARRAY_SIZE(raw))];
	} else {
		a->type = PERF_TYPE_HARDWARE;
		a->config = hw[rnd_below(r, ARRAY_SIZE(hw))];
	}
	/* Load latency: a threshold in config1, now and then too wide. */
	if (a->config == 0x01cd)
		a->config1 = one_in(r, 8) ? rnd(r) : rnd_below(r, 300);
	a->precise_ip = 1 + rnd_below(r, (uint64_t)max_precise);
	a->freq = one_in(r, 4);
	if (a->freq)
		a->sample_freq = 1000 + rnd_below(r, 10000);
	else
		a->sample_period = periods[rnd_below(r, ARRAY_SIZE(periods))];
	a->sample_type |= PERF_SAMPLE_IP |
			  rnd_bits(r, PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC |
				   PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_CALLCHAIN |
				   PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_TIME |
				   PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_WEIGHT, 3);
	if (a->sample_type & PERF_SAMPLE_REGS_INTR) {
		a->sample_regs_intr = gen_regs(r, true);
		/* XMM0 to XMM15, two halves each (bits 32 to 63). */
		if (one_in(r, 3))
			a->sample_regs_intr |= rnd(r) << 32;
	}
	if (a->sample_type & PERF_SAMPLE_BRANCH_STACK)
		a->branch_sample_type = gen_branch_filter(r);
	/* The weight's two forms (Golden Cove splits the latency in it). */
	if ((a->sample_type & PERF_SAMPLE_WEIGHT) && one_in(r, 2))
		a->sample_type ^= PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT;
}

/* One deliberate mistake in an otherwise plausible attribute. */
static void mutate_attr(struct rng *r, struct perf_event_attr *a)
{
	switch (rnd_below(r, 20)) {
	case 0:
		a->type = (uint32_t)rnd_edgy(r);
		break;
	case 1:
		a->config = rnd_edgy(r);
		break;
	case 2:
		a->sample_type |= 1ULL << rnd_range(r, 25, 63);
		break;
	case 3:
		a->read_format |= 1ULL << rnd_range(r, 5, 63);
		break;
	case 4:
		a->__reserved_1 = rnd_range(r, 1, (1 << 26) - 1);
		break;
	case 5:
		a->__reserved_2 = (uint16_t)rnd_range(r, 1, 65535);
		break;
	case 6:
		a->aux_action |= (uint32_t)rnd(r);
		break;
	case 7:
		a->freq = 0;
		a->sample_period = 1ULL << 63 | rnd_below(r, 1000);
		break;
	case 8:
		a->freq = 1;
		a->sample_freq = (uint64_t)cur_sample_rate + 1 + rnd_below(r, 1000000);
		break;
	case 9:
		a->sample_type |= PERF_SAMPLE_REGS_USER;
		a->sample_regs_user = gen_regs(r, false);
		break;
	case 10:
		a->sample_type |= PERF_SAMPLE_STACK_USER;
		a->sample_stack_user = one_in(r, 2) ? 65535 + (uint32_t)rnd_below(r, 100) :
				       8 * (uint32_t)rnd_below(r, 100) + 4;
		break;
	case 11:
		a->use_clockid = 1;
		a->clockid = gen_clockid(r, false);
		break;
	case 12:
		a->inherit = 0;
		a->inherit_thread = 1;
		break;
	case 13:
		a->sigtrap = 1;
		a->remove_on_exec = 0;
		break;
	case 14:
		a->enable_on_exec = 1;
		a->remove_on_exec = 1;
		break;
	case 15:
		gen_bp_fields(r, a, false);
		break;
	case 16:
		a->sample_type |= PERF_SAMPLE_BRANCH_STACK;
		a->branch_sample_type = one_in(r, 2) ? rnd_edgy(r) :
					PERF_SAMPLE_BRANCH_USER;
		break;
	case 17:
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
		a->sample_max_stack = (uint16_t)rnd_range(r, 128, 65535);
		break;
	case 18:
		a->sample_type |= PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT;
		break;
	default:
		a->aux_output = 1;
		a->sample_type |= PERF_SAMPLE_AUX;
		a->aux_sample_size = (uint32_t)rnd_range(r, 1, 1 << 16);
		break;
	}
}

/**
 * gen_attr() - fill in a random perf_event_attr
 * @r: random stream
 * @a: the attribute, zeroed by the caller
 * @valid: build an attribute the kernel should accept
 *
 * attr.size is left at sizeof(*a); gen_attr_size() picks the real one.
 * Return: the kind of event chosen.
 */
static enum ev_kind gen_attr(struct rng *r, struct perf_event_attr *a, bool valid)
{
	enum ev_kind k = gen_type_config(r, a, valid);
	int i, n;

	a->size = sizeof(*a);
	gen_sampling(r, a, k, valid);
	a->read_format = gen_read_format(r, valid);
	gen_flag_bits(r, a, valid);
	if (valid && (k == K_PMU || k == K_TEST)) {
		a->exclude_user = a->exclude_kernel = a->exclude_hv = 0;
		a->exclude_idle = a->exclude_host = a->exclude_guest = 0;
	}
	if (k != K_BP && k != K_PMU && one_in(r, 24)) {
		a->config1 = rnd_edgy(r);
		a->config2 = rnd_edgy(r);
	}
	gen_dependent(r, a, valid);
	if (valid && lbr_depth && one_in(r, 4)) {
		gen_branch_event(r, a);
		k = K_HW;
	} else if (valid && max_precise && one_in(r, 4)) {
		gen_precise_event(r, a);
		k = K_HW;
	}
	if (!valid) {
		n = 1 + (int)rnd_below(r, 2);
		for (i = 0; i < n; i++)
			mutate_attr(r, a);
	}
	return k;
}

/**
 * gen_attr_size() - choose attr.size, and write a tail past the structure
 * @r: random stream
 * @buf: the attribute buffer (ATTR_BUF_SIZE bytes, zero past the struct)
 * @valid: only sizes the kernel accepts
 *
 * Mostly sizeof(struct perf_event_attr) or an older PERF_ATTR_SIZE_VER*,
 * sometimes larger with a zero tail (accepted) or a non-zero one (E2BIG),
 * 0 (taken as VER0), tiny, odd, or beyond PAGE_SIZE.
 */
static uint32_t gen_attr_size(struct rng *r, unsigned char *buf, bool valid)
{
	static const uint32_t vers[] = {
		PERF_ATTR_SIZE_VER0, PERF_ATTR_SIZE_VER1, PERF_ATTR_SIZE_VER2,
		PERF_ATTR_SIZE_VER3, PERF_ATTR_SIZE_VER4, PERF_ATTR_SIZE_VER5,
		PERF_ATTR_SIZE_VER6, PERF_ATTR_SIZE_VER7, PERF_ATTR_SIZE_VER8,
	};
	const uint32_t sz = sizeof(struct perf_event_attr);
	unsigned int x = (unsigned int)rnd_below(r, 100);
	uint32_t k;

	if (valid)
		x = x < 75 ? 0 : x < 90 ? 70 : 80;
	if (x < 64)
		return sz;
	if (x < 80)
		return vers[rnd_below(r, ARRAY_SIZE(vers))];
	if (x < 88)
		return sz + 8 * (uint32_t)rnd_range(r, 1, (4096 - sz) / 8);
	if (x < 92) {
		k = (uint32_t)rnd_below(r, 64);
		buf[sz + k] = (unsigned char)rnd_range(r, 1, 255);
		return sz + k + 1 + (uint32_t)rnd_below(r, 64);
	}
	if (x < 95)
		return 0;
	if (x < 97)
		return (uint32_t)rnd_range(r, 1, PERF_ATTR_SIZE_VER0 - 1);
	if (x < 99)
		return one_in(r, 2) ? (uint32_t)rnd_range(r, 4097, ATTR_BUF_SIZE) :
		       (uint32_t)rnd_edgy(r) | 0x10000;
	return (uint32_t)rnd_range(r, PERF_ATTR_SIZE_VER0 + 1, sz - 1);
}

/* ------------------------------------------------------------------ */
/* perf_event_open                                                     */
/* ------------------------------------------------------------------ */

struct open_args {
	pid_t pid;
	int cpu;
	int group_fd;
	unsigned long flags;
	char want;		/* 'v'alid or 'i'nvalid attr intended; informational */
};

/* The attribute as the kernel reads it: size bytes, zeros beyond. */
static void attr_as_seen(const unsigned char *buf, struct perf_event_attr *out)
{
	uint32_t size;

	memcpy(out, buf, sizeof(*out));
	size = out->size ? out->size : PERF_ATTR_SIZE_VER0;
	if (size < sizeof(*out))
		memset((char *)out + size, 0, sizeof(*out) - size);
}

/**
 * exec_open() - call perf_event_open() on attr_buf, log it, record the fd
 * @a: the other arguments
 *
 * Return: the new fd, or -1.
 */
static int exec_open(struct open_args *a)
{
	const struct perf_event_attr *at = (const void *)attr_buf;
	struct perf_event_attr seen;
	struct logline l;
	long fd;
	int err;

	if (!(a->flags & PERF_FLAG_PID_CGROUP))
		a->pid = safe_pid(a->pid);
	log_begin(&l, "open");
	lput(&l, " type=%u config=0x%llx size=%u attr=", at->type,
	     (unsigned long long)at->config, at->size);
	lhex(&l, attr_buf, trimmed_len(attr_buf, sizeof(attr_buf)));
	lput(&l, " pid=%d cpu=%d group=%d flags=0x%lx", a->pid, a->cpu,
	     a->group_fd, a->flags);
	if (a->want)
		lput(&l, " want=%s", a->want == 'v' ? "valid" : "invalid");
	attr_as_seen(attr_buf, &seen);

	log_pending(&l);
	fd = syscall(__NR_perf_event_open, attr_buf, a->pid, a->cpu,
		     a->group_fd, a->flags);
	err = errno;
	if (!in_child) {
		st_opens++;
		if (fd >= 0)
			st_open_ok++;
		if (fd >= 0 && seen.type == PERF_TYPE_HARDWARE &&
		    (seen.sample_type & PERF_SAMPLE_BRANCH_STACK))
			st_brstack_ok++;
		if (fd >= 0 && seen.precise_ip &&
		    (seen.type == PERF_TYPE_HARDWARE || seen.type == PERF_TYPE_RAW))
			st_precise_ok++;
		if (fd < 0)
			st_open_err[err < 256 ? err : 255]++;
	}
	log_result(&l, fd, err);
	if (fd >= 0 && ev_add((int)fd, &seen, a->pid, a->cpu, a->group_fd,
			      a->flags) < 0) {
		close((int)fd);
		lput(&l, " dropped");
		fd = -1;
	}
	log_emit(&l);
	return (int)fd;
}

/* Breakpoint events we hold on the task @pid (0 meaning ourselves). */
static int bp_events_on(pid_t pid)
{
	int i, n = 0;

	if (pid == main_pid)
		pid = 0;
	for (i = 0; i < MAX_EVENTS; i++)
		if (ev[i].fd >= 0 && ev[i].attr.type == PERF_TYPE_BREAKPOINT &&
		    (ev[i].pid == main_pid ? 0 : ev[i].pid) == pid)
			n++;
	return n;
}

/* CPU-wide breakpoints on the busiest CPU: they take a slot from every task. */
static int bp_cpuwide_max(void)
{
	int i, max = 0, per_cpu[MAX_CPUS] = { 0 };

	for (i = 0; i < MAX_EVENTS; i++)
		if (ev[i].fd >= 0 && ev[i].attr.type == PERF_TYPE_BREAKPOINT &&
		    ev[i].pid == -1 && ev[i].cpu >= 0 && ev[i].cpu < MAX_CPUS &&
		    ++per_cpu[ev[i].cpu] > max)
			max = per_cpu[ev[i].cpu];
	return max;
}

/*
 * One of our threads with a free debug register (x86 has four), so that
 * valid breakpoints do not all end in ENOSPC; 0 when every one is taken.
 * Children's events are not counted, so this is only a good guess.
 */
static pid_t bp_task(struct rng *r)
{
	pid_t cand[2 + NR_WORKERS];
	int n = 0, i, start, free_slots = 4 - bp_cpuwide_max();

	/* A child would take the parent's registers: keep to itself. */
	if (in_child)
		return 0;
	cand[n++] = 0;
	cand[n++] = main_pid;
	for (i = 0; i < NR_WORKERS; i++)
		cand[n++] = atomic_load(&worker_tid[i]);
	start = (int)rnd_below(r, (uint64_t)n);
	for (i = 0; i < n; i++)
		if (bp_events_on(cand[(start + i) % n]) < free_slots)
			return cand[(start + i) % n];
	return 0;
}

/**
 * gen_target() - pid and cpu of a new event
 * @r: random stream
 * @a: where they go
 * @k: kind of event
 * @valid: only combinations the kernel accepts
 *
 * Our own threads, a child, or the whole CPU (pid -1), now and then a bogus
 * pid or CPU.  Breakpoints go where a debug register is free; PMUs other
 * than software and perf_test tend to be CPU-wide only.
 */
static void gen_target(struct rng *r, struct open_args *a, enum ev_kind k, bool valid)
{
	static const pid_t bogus[] = { BOGUS_PID, INT_MAX, -2, -100 };
	unsigned int x = (unsigned int)rnd_below(r, 100);

	if (valid && k == K_PMU && x < 50)
		x = 98;
	if (valid && k == K_BP)
		x = x < 97 ? 0 : 98;
	if (x < 38)
		a->pid = valid && k == K_BP ? bp_task(r) : 0;
	else if (x < 46)
		a->pid = main_pid;
	else if (x < 58)
		a->pid = rnd_worker_tid(r);
	else if (x < 70)
		a->pid = rnd_kid_or_self(r);
	else if (valid || x < 95)
		a->pid = -1;
	else
		a->pid = bogus[rnd_below(r, ARRAY_SIZE(bogus))];

	x = (unsigned int)rnd_below(r, 100);
	if (a->pid == -1)
		a->cpu = valid || x < 85 ? (int)rnd_below(r, (uint64_t)ncpus) : -1;
	else
		a->cpu = x < 70 || (!valid && x >= 93) ? -1 : (int)rnd_below(r, (uint64_t)ncpus);
	if (!valid && one_in(r, 8))
		a->cpu = one_in(r, 2) ? ncpus : (int)rnd_edgy(r);
}

/* Makes a new event fit into the group of @leader. */
static void adopt_leader(struct perf_event_attr *at, struct open_args *a, int leader)
{
	const struct fz_event *ld = &ev[leader];

	a->pid = ld->pid;
	a->cpu = ld->cpu;
	at->inherit = ld->attr.inherit;
	at->inherit_thread = ld->attr.inherit_thread;
	at->use_clockid = ld->attr.use_clockid;
	at->clockid = ld->attr.clockid;
	at->pinned = 0;
	at->exclusive = 0;
	if (at->inherit && (at->sample_type & PERF_SAMPLE_READ))
		at->sample_type |= PERF_SAMPLE_TID;
	if (ld->flags & PERF_FLAG_PID_CGROUP)
		a->pid = -1;
}

/* group_fd: mostly none or a leader, sometimes anything. */
static void gen_group(struct rng *r, struct perf_event_attr *at,
		      struct open_args *a, bool valid)
{
	unsigned int x = (unsigned int)rnd_below(r, 100);
	int slot;

	a->group_fd = -1;
	if (x < 55 || !nr_ev)
		return;
	if (valid)
		x = 60;
	if (x < 90) {
		slot = ev_pick_filtered(r, true);
		if (slot < 0)
			return;
		a->group_fd = ev[slot].fd;
		if (valid || one_in(r, 2))
			adopt_leader(at, a, slot);
	} else if (x < 95) {
		a->group_fd = ev[ev_pick(r)].fd;
	} else if (x < 98) {
		a->group_fd = misc_fd[rnd_below(r, MISC_CGROUP)];
	} else {
		a->group_fd = BOGUS_FD;
	}
}

static void gen_open_flags(struct rng *r, struct open_args *a, bool valid)
{
	a->flags = 0;
	if (pct(r, 50))
		a->flags |= PERF_FLAG_FD_CLOEXEC;
	if (a->group_fd != -1 && one_in(r, 12))
		a->flags |= PERF_FLAG_FD_OUTPUT;
	if (a->group_fd != -1 && one_in(r, 12))
		a->flags |= PERF_FLAG_FD_NO_GROUP;
	if (misc_fd[MISC_CGROUP] >= 0 && one_in(r, 50)) {
		a->flags |= PERF_FLAG_PID_CGROUP;
		a->pid = misc_fd[MISC_CGROUP];
		if (a->cpu < 0)
			a->cpu = (int)rnd_below(r, (uint64_t)ncpus);
	}
	if (!valid && one_in(r, 8))
		a->flags |= 1UL << rnd_range(r, 4, 63);
}

static void op_open(struct rng *r)
{
	struct perf_event_attr *at = (void *)attr_buf;
	struct open_args a;
	bool valid = pct(r, 70);
	enum ev_kind k;

	memset(attr_buf, 0, sizeof(attr_buf));
	k = gen_attr(r, at, valid);
	gen_target(r, &a, k, valid);
	gen_group(r, at, &a, valid);
	/* sigtrap needs a task to signal. */
	if (valid && at->sigtrap && a.pid == -1)
		at->sigtrap = 0;
	gen_open_flags(r, &a, valid);
	at->size = gen_attr_size(r, attr_buf, valid);
	a.want = valid ? 'v' : 'i';
	exec_open(&a);
}

/* ------------------------------------------------------------------ */
/* close                                                               */
/* ------------------------------------------------------------------ */

static void exec_close(int fd)
{
	struct logline l;
	int slot = ev_find(fd);
	int ret, err;

	/* Only ever close event fds (or an fd that cannot be open). */
	if (slot < 0 && fd >= 0 && fd < BOGUS_FD)
		fd = BOGUS_FD;
	log_begin(&l, "close");
	lput(&l, " fd=%d", fd);
	log_pending(&l);
	ret = close(fd);
	err = errno;
	if (slot >= 0 && (ret == 0 || err != EBADF))
		ev_remove(slot);
	log_result(&l, ret, err);
	log_emit(&l);
}

static void op_close(struct rng *r)
{
	int slot = ev_pick(r);

	exec_close(slot >= 0 && !one_in(r, 100) ? ev[slot].fd : BOGUS_FD);
}

/* An fd for an operation on an event: nearly always an event's. */
static int pick_event_fd(struct rng *r, int slot)
{
	unsigned int x = (unsigned int)rnd_below(r, 100);

	if (slot < 0 || x >= 96)
		return x & 1 ? BOGUS_FD : -1;
	if (x >= 93)
		return misc_fd[rnd_below(r, MISC_CGROUP)];
	return ev[slot].fd;
}

/* ------------------------------------------------------------------ */
/* ioctl                                                               */
/* ------------------------------------------------------------------ */

enum ioc_kind { IK_ARG, IK_FD, IK_BAD, IK_U64, IK_STR, IK_GOOD, IK_QLEN, IK_ATTR };

struct ioctl_args {
	int fd;
	unsigned long req;
	enum ioc_kind kind;
	long arg;			/* IK_ARG, IK_FD, IK_QLEN; IK_BAD address */
	uint64_t u64;			/* IK_U64 */
	size_t slen;			/* IK_STR */
	char str[FILTER_MAX];
};

static const struct {
	const char *name;
	unsigned long req;
} ioc_reqs[] = {
	{ "ENABLE", PERF_EVENT_IOC_ENABLE },
	{ "DISABLE", PERF_EVENT_IOC_DISABLE },
	{ "REFRESH", PERF_EVENT_IOC_REFRESH },
	{ "RESET", PERF_EVENT_IOC_RESET },
	{ "PERIOD", PERF_EVENT_IOC_PERIOD },
	{ "SET_OUTPUT", PERF_EVENT_IOC_SET_OUTPUT },
	{ "SET_FILTER", PERF_EVENT_IOC_SET_FILTER },
	{ "ID", PERF_EVENT_IOC_ID },
	{ "SET_BPF", PERF_EVENT_IOC_SET_BPF },
	{ "PAUSE_OUTPUT", PERF_EVENT_IOC_PAUSE_OUTPUT },
	{ "QUERY_BPF", PERF_EVENT_IOC_QUERY_BPF },
	{ "MODIFY_ATTRIBUTES", PERF_EVENT_IOC_MODIFY_ATTRIBUTES },
};

static const char *const filters[] = {
	"common_pid != 0",
	"prev_pid > 10 && next_pid < 1000",
	"pid == 1",
	"common_pid == 0 || common_pid > 1",
	"prev_comm ~ \"perf*\"",
	"next_comm == \"swapper/0\"",
	"ret < 0",
	"(common_flags & 1) == 0",
	"nr >= 0 && nr < 400",
	"prev_state & 3",
	"common_pid == 0xffffffff",
	"",
	"0",
	"common_pid",
	"&& ||",
	"((((((((((((",
	"x == ",
	"common_pid != 0 &&",
	"!(common_pid == 1)",
	"common_cpu == 0",
};

static const uintptr_t bad_ptrs_fixed[] = {
	0, 1, 0x10, 0xfff, 0xffff888000000000UL, 0xffffffffff600000UL,
	0x800000000000UL, ~0UL - 7,
};

/* A pointer the kernel cannot use (or, for guard_ro, cannot write to). */
static uintptr_t rnd_bad_ptr(struct rng *r)
{
	unsigned int x = (unsigned int)rnd_below(r, ARRAY_SIZE(bad_ptrs_fixed) + 2);

	if (x == ARRAY_SIZE(bad_ptrs_fixed))
		return guard_none + rnd_below(r, (uint64_t)page_size);
	if (x > ARRAY_SIZE(bad_ptrs_fixed))
		return guard_ro;
	return bad_ptrs_fixed[x];
}

static const char *ioc_name(unsigned long req)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ioc_reqs); i++)
		if (ioc_reqs[i].req == req)
			return ioc_reqs[i].name;
	return NULL;
}

static void log_ioctl_args(struct logline *l, const struct ioctl_args *a)
{
	const char *name = ioc_name(a->req);

	lput(l, " fd=%d", a->fd);
	if (name)
		lput(l, " req=%s", name);
	else
		lput(l, " req=0x%lx", a->req);
	switch (a->kind) {
	case IK_ARG:
		lput(l, " arg=%ld", a->arg);
		break;
	case IK_FD:
		lput(l, " fdarg=%ld", a->arg);
		break;
	case IK_BAD:
		lput(l, " bad=0x%lx", (unsigned long)a->arg);
		break;
	case IK_U64:
		lput(l, " u64=0x%llx", (unsigned long long)a->u64);
		break;
	case IK_STR:
		lput(l, " str=");
		lhex(l, a->str, a->slen);
		break;
	case IK_GOOD:
		lput(l, " ptr=good");
		break;
	case IK_QLEN:
		lput(l, " qlen=%ld", a->arg);
		break;
	case IK_ATTR:
		lput(l, " attr=");
		lhex(l, attr_buf2, trimmed_len(attr_buf2, sizeof(attr_buf2)));
		break;
	}
}

/* After a successful MODIFY_ATTRIBUTES, remember the new breakpoint. */
static void note_modify(int fd)
{
	const struct perf_event_attr *na = (const void *)attr_buf2;
	int slot = ev_find(fd);

	if (slot < 0)
		return;
	ev[slot].attr.bp_addr = na->bp_addr;
	ev[slot].attr.bp_len = na->bp_len;
	ev[slot].attr.bp_type = na->bp_type;
	ev[slot].attr.disabled = na->disabled;
}

/**
 * exec_ioctl() - issue one ioctl on an event fd and log it
 * @a: request and argument description
 *
 * The argument is built here from its description, so a replay builds
 * exactly the same one.  Unknown request numbers only go to event fds.
 */
static void exec_ioctl(struct ioctl_args *a)
{
	struct {
		struct perf_event_query_bpf q;
		uint32_t ids[8];
	} query;
	uint64_t val = 0, idv = 0;
	char str[FILTER_MAX + 1];
	struct logline l;
	void *p = NULL;
	long ret;
	int err;

	if (!ioc_name(a->req) && ev_find(a->fd) < 0)
		a->fd = BOGUS_FD;
	/* query.ids has room for 8 (a replayed log could say more). */
	if (a->kind == IK_QLEN && (a->arg < 0 || a->arg > 8))
		a->arg = 8;
	log_begin(&l, "ioctl");
	log_ioctl_args(&l, a);
	switch (a->kind) {
	case IK_ARG:
	case IK_FD:
	case IK_BAD:
		p = (void *)a->arg;
		break;
	case IK_U64:
		val = a->u64;
		p = &val;
		break;
	case IK_STR:
		memcpy(str, a->str, a->slen);
		str[a->slen] = 0;
		p = str;
		break;
	case IK_GOOD:
		p = &idv;
		break;
	case IK_QLEN:
		memset(&query, 0, sizeof(query));
		query.q.ids_len = (uint32_t)a->arg;
		p = &query;
		break;
	case IK_ATTR:
		p = attr_buf2;
		break;
	}
	log_pending(&l);
	ret = ioctl(a->fd, a->req, p);
	err = errno;
	log_result(&l, ret, err);
	if (ret >= 0 && a->kind == IK_GOOD)
		lput(&l, " id=0x%llx", (unsigned long long)idv);
	if (ret >= 0 && a->kind == IK_QLEN)
		lput(&l, " prog_cnt=%u", query.q.prog_cnt);
	if (ret == 0 && a->req == PERF_EVENT_IOC_MODIFY_ATTRIBUTES && a->kind == IK_ATTR)
		note_modify(a->fd);
	log_emit(&l);
}

/* ENABLE/DISABLE/RESET: 0 or PERF_IOC_FLAG_GROUP, now and then junk. */
static long rnd_group_arg(struct rng *r)
{
	unsigned int x = (unsigned int)rnd_below(r, 100);

	if (x < 60)
		return 0;
	if (x < 95)
		return PERF_IOC_FLAG_GROUP;
	return (long)rnd_edgy(r);
}

/* An fd argument for SET_OUTPUT / SET_BPF. */
static long rnd_fd_arg(struct rng *r, int slot)
{
	unsigned int x = (unsigned int)rnd_below(r, 100);
	int peer;

	if (x < 45 && slot >= 0) {
		peer = ev_pick_peer(r, slot);
		if (peer >= 0)
			return ev[peer].fd;
	}
	if (x < 70 && nr_ev)
		return ev[ev_pick(r)].fd;
	if (x < 85)
		return -1;
	if (x < 95)
		return misc_fd[rnd_below(r, NR_MISC)];
	return one_in(r, 2) ? BOGUS_FD : (long)rnd_edgy(r);
}

static void gen_filter(struct rng *r, struct ioctl_args *a)
{
	unsigned int x = (unsigned int)rnd_below(r, 100);
	size_t i;

	a->kind = IK_STR;
	if (x < 70) {
		const char *f = filters[rnd_below(r, ARRAY_SIZE(filters))];

		a->slen = strlen(f);
		memcpy(a->str, f, a->slen);
	} else if (x < 85) {
		a->slen = (size_t)rnd_range(r, 1, 100);
		for (i = 0; i < a->slen; i++)
			a->str[i] = (char)rnd_range(r, 1, 255);
	} else if (x < 92) {
		a->slen = FILTER_MAX - 1;
		memset(a->str, 'a' + (int)rnd_below(r, 26), a->slen);
	} else {
		a->kind = IK_BAD;
		a->arg = (long)rnd_bad_ptr(r);
	}
}

/* A MODIFY_ATTRIBUTES attribute in attr_buf2. */
static void gen_modify_attr(struct rng *r, int slot)
{
	struct perf_event_attr *na = (void *)attr_buf2;
	struct perf_event_attr tmp;

	memset(attr_buf2, 0, sizeof(attr_buf2));
	if (slot < 0 || ev[slot].attr.type != PERF_TYPE_BREAKPOINT || one_in(r, 8)) {
		gen_attr(r, na, pct(r, 70));
		na->size = gen_attr_size(r, attr_buf2, !one_in(r, 4));
		return;
	}
	*na = ev[slot].attr;
	na->size = sizeof(*na);
	if (one_in(r, 2) || one_in(r, 2)) {
		memset(&tmp, 0, sizeof(tmp));
		gen_bp_fields(r, &tmp, !one_in(r, 8));
		if (one_in(r, 2))
			na->bp_addr = tmp.bp_addr;
		if (one_in(r, 3))
			na->bp_len = tmp.bp_len;
		if (one_in(r, 3))
			na->bp_type = tmp.bp_type;
		if (na->bp_type == BP_X && one_in(r, 2)) {
			na->bp_addr = tmp.bp_type == BP_X ? tmp.bp_addr : bp_fn_addr(0);
			na->bp_len = sizeof(long);
		}
	}
	if (one_in(r, 4))
		na->disabled ^= 1;
	if (one_in(r, 10))
		mutate_attr(r, na);
}

static void gen_ioctl_kind(struct rng *r, struct ioctl_args *a, int slot)
{
	unsigned int x = (unsigned int)rnd_below(r, 100);

	a->kind = IK_ARG;
	if (x < 14) {
		a->req = PERF_EVENT_IOC_ENABLE;
		a->arg = rnd_group_arg(r);
	} else if (x < 25) {
		a->req = PERF_EVENT_IOC_DISABLE;
		a->arg = rnd_group_arg(r);
	} else if (x < 32) {
		a->req = PERF_EVENT_IOC_RESET;
		a->arg = rnd_group_arg(r);
	} else if (x < 40) {
		a->req = PERF_EVENT_IOC_REFRESH;
		a->arg = pct(r, 65) ? rnd_range(r, 1, 3) : pct(r, 50) ? 0 :
			 one_in(r, 2) ? -rnd_range(r, 1, 3) : (long)rnd_edgy(r);
	} else if (x < 48) {
		a->req = PERF_EVENT_IOC_PERIOD;
		a->kind = one_in(r, 10) ? IK_BAD : IK_U64;
		a->arg = (long)rnd_bad_ptr(r);
		a->u64 = pct(r, 60) ? (uint64_t)rnd_range(r, 1, 100000) : rnd_edgy(r);
	} else if (x < 58) {
		a->req = PERF_EVENT_IOC_SET_OUTPUT;
		a->kind = IK_FD;
		a->arg = rnd_fd_arg(r, slot);
	} else if (x < 63) {
		a->req = PERF_EVENT_IOC_SET_FILTER;
		gen_filter(r, a);
	} else if (x < 69) {
		a->req = PERF_EVENT_IOC_ID;
		a->kind = one_in(r, 6) ? IK_BAD : IK_GOOD;
		a->arg = (long)rnd_bad_ptr(r);
	} else if (x < 72) {
		a->req = PERF_EVENT_IOC_SET_BPF;
		a->kind = IK_FD;
		a->arg = rnd_fd_arg(r, slot);
	} else if (x < 79) {
		a->req = PERF_EVENT_IOC_PAUSE_OUTPUT;
		a->arg = pct(r, 90) ? (long)rnd_below(r, 2) : (long)rnd_edgy(r);
	} else if (x < 82) {
		a->req = PERF_EVENT_IOC_QUERY_BPF;
		a->kind = one_in(r, 5) ? IK_BAD : IK_QLEN;
		a->arg = a->kind == IK_BAD ? (long)rnd_bad_ptr(r) : (long)rnd_below(r, 5);
	} else if (x < 95) {
		a->req = PERF_EVENT_IOC_MODIFY_ATTRIBUTES;
		a->kind = one_in(r, 12) ? IK_BAD : IK_ATTR;
		if (a->kind == IK_BAD)
			a->arg = (long)rnd_bad_ptr(r);
		else
			gen_modify_attr(r, slot);
	} else {
		a->req = one_in(r, 2) ? _IO('$', rnd_range(r, 12, 64)) :
			 one_in(r, 2) ? (unsigned long)_IOW('$', rnd_range(r, 0, 255), uint64_t) :
			 (unsigned long)(uint32_t)rnd(r);
		a->arg = (long)rnd_edgy(r);
	}
}

static void op_ioctl(struct rng *r)
{
	struct ioctl_args a;
	int slot = ev_pick(r);

	memset(&a, 0, sizeof(a));
	a.fd = pick_event_fd(r, slot);
	gen_ioctl_kind(r, &a, slot);
	/*
	 * A filter is the tracing code's business only for a tracepoint
	 * event (the others refuse it at once): mostly give it one, half
	 * the time a CPU-wide one (whose context is a CPU's, the one CPU
	 * hotplug locks), so that the tracing code's locks meet both kinds
	 * of context mutex in a short run.
	 */
	if (a.req == PERF_EVENT_IOC_SET_FILTER && slot >= 0 &&
	    a.fd == ev[slot].fd && pct(r, 75)) {
		int tp = one_in(r, 2) ?
			 ev_pick_type(r, PERF_TYPE_TRACEPOINT, true) : -1;

		if (tp < 0)
			tp = ev_pick_type(r, PERF_TYPE_TRACEPOINT, false);
		if (tp >= 0)
			a.fd = ev[tp].fd;
	}
	exec_ioctl(&a);
}

/* ------------------------------------------------------------------ */
/* read                                                                */
/* ------------------------------------------------------------------ */

/* What read() of this event should return, from its read_format. */
static size_t exact_read_size(int slot)
{
	uint64_t rf;
	size_t te, n;

	if (slot < 0)
		return 8;
	rf = ev[slot].attr.read_format;
	te = !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) +
	     !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING);
	n = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);
	if (rf & PERF_FORMAT_GROUP)
		return 8 * (1 + te + n * (size_t)(1 + (ev[slot].leader < 0 ?
						       ev[slot].nsib : 0)));
	return 8 * (te + n);
}

static void exec_read(int fd, size_t len, uintptr_t bad)
{
	struct logline l;
	ssize_t ret;
	int err, i;

	if (len > sizeof(read_buf))
		len = sizeof(read_buf);
	log_begin(&l, "read");
	lput(&l, " fd=%d len=%zu", fd, len);
	if (bad)
		lput(&l, " bad=0x%lx", (unsigned long)bad);
	log_pending(&l);
	ret = read(fd, bad ? (void *)bad : (void *)read_buf, len);
	err = errno;
	log_result(&l, ret, err);
	for (i = 0; !bad && ret > 0 && i < 4 && (i + 1) * 8 <= ret; i++)
		lput(&l, "%s0x%llx", i ? "," : " v=", (unsigned long long)read_buf[i]);
	log_emit(&l);
}

static void op_read(struct rng *r)
{
	static const size_t sizes[] = { 0, 1, 7, 8, 16, 24, 32, 4096, READ_BUF_SIZE };
	int slot = ev_pick(r);
	int fd = pick_event_fd(r, slot);
	unsigned int x = (unsigned int)rnd_below(r, 100);
	size_t len;

	if (x < 45)
		len = exact_read_size(slot);
	else if (x < 52)
		len = exact_read_size(slot) - 8;
	else if (x < 92)
		len = sizes[rnd_below(r, ARRAY_SIZE(sizes))];
	else
		len = 64;
	exec_read(fd, len, x >= 92 ? rnd_bad_ptr(r) | 1 : 0);
}

/* ------------------------------------------------------------------ */
/* mmap, munmap, mprotect                                              */
/* ------------------------------------------------------------------ */

struct mmap_args {
	int fd;
	size_t len;
	int prot;
	int flags;
	long long off;
};

/* Return: the address mapped, or 0. */
static uintptr_t exec_mmap(const struct mmap_args *a)
{
	size_t rounded = (a->len + (size_t)page_size - 1) & ~((size_t)page_size - 1);
	struct logline l;
	void *p;

	log_begin(&l, "mmap");
	lput(&l, " fd=%d len=0x%zx prot=%d flags=0x%x off=0x%llx", a->fd, a->len,
	     a->prot, a->flags, a->off);
	if (nr_maps >= MAX_MAPS) {
		log_skip(&l, "(mapping table full)");
		return 0;
	}
	if (a->len > (size_t)(1 + (1 << MAX_DATA_ORDER)) * (size_t)page_size) {
		log_skip(&l, "(too large)");
		return 0;
	}
	log_pending(&l);
	p = mmap(NULL, a->len, a->prot, a->flags, a->fd, (off_t)a->off);
	if (p == MAP_FAILED) {
		log_result(&l, -1, errno);
		log_emit(&l);
		return 0;
	}
	lput(&l, " => 0x%lx", (unsigned long)(uintptr_t)p);
	if (ev_find(a->fd) < 0 || !rounded) {
		/* Not an event: do not keep it around. */
		munmap(p, rounded ? rounded : (size_t)page_size);
		lput(&l, " unmapped");
		log_emit(&l);
		return 0;
	}
	map_add((uintptr_t)p, rounded, a->prot, a->fd);
	log_emit(&l);
	return (uintptr_t)p;
}

static void op_mmap(struct rng *r)
{
	static const unsigned int odd_pages[] = { 3, 4, 6, 7, 10, 12 };
	struct mmap_args a;
	int slot = ev_pick(r);
	unsigned int x = (unsigned int)rnd_below(r, 100);
	size_t pages;

	a.fd = slot >= 0 ? ev[slot].fd : BOGUS_FD;
	if (one_in(r, 60))
		a.fd = misc_fd[MISC_DEVNULL];
	if (x < 80)
		pages = 1 + (1U << rnd_below(r, MAX_DATA_ORDER + 1));
	else if (x < 88)
		pages = 1;
	else if (x < 95)
		pages = odd_pages[rnd_below(r, ARRAY_SIZE(odd_pages))];
	else
		pages = 0;
	a.len = pages * (size_t)page_size;
	if (!pages)
		a.len = one_in(r, 2) ? 0 : (size_t)rnd_range(r, 1, page_size - 1);

	x = (unsigned int)rnd_below(r, 100);
	a.prot = x < 70 ? PROT_READ | PROT_WRITE : x < 95 ? PROT_READ :
		 x < 97 ? PROT_WRITE : x < 99 ? PROT_NONE : PROT_READ | PROT_EXEC;
	x = (unsigned int)rnd_below(r, 100);
	a.flags = x < 94 ? MAP_SHARED : x < 98 ? MAP_PRIVATE : MAP_SHARED | MAP_POPULATE;
	a.off = pct(r, 95) ? 0 : (long long)page_size * rnd_range(r, 1, 9);
	exec_mmap(&a);
}

struct unmap_args {
	uintptr_t base;			/* start of the tracked mapping */
	size_t off, len;
	bool protect;
	int prot;
};

/**
 * exec_unmap() - munmap() or mprotect() part or all of a mapping
 * @a: what to do, relative to the start of a tracked mapping
 *
 * Return: how far the start of the mapping moved (a head unmapped).
 */
static size_t exec_unmap(const struct unmap_args *a)
{
	int i = map_find(a->base);
	struct fz_map *m = i >= 0 ? &maps[i] : NULL;
	struct logline l;
	int ret, err;

	log_begin(&l, a->protect ? "mprotect" : "munmap");
	lput(&l, " addr=0x%lx off=0x%zx len=0x%zx", (unsigned long)a->base, a->off,
	     a->len);
	if (a->protect)
		lput(&l, " prot=%d", a->prot);
	if (!m || a->off >= m->len || a->len > m->len - a->off) {
		log_skip(&l, "(no such mapping)");
		return 0;
	}
	log_pending(&l);
	if (a->protect)
		ret = mprotect((void *)(a->base + a->off), a->len, a->prot);
	else
		ret = munmap((void *)(a->base + a->off), a->len);
	err = errno;
	log_result(&l, ret, err);
	log_emit(&l);
	if (ret)
		return 0;
	if (a->protect) {
		if (a->off == 0 && a->len == m->len)
			m->prot = a->prot;
		else
			m->intact = false;
		return 0;
	}
	if (a->len == m->len) {
		map_remove(i);
		return 0;
	}
	m->intact = false;
	if (a->off == 0) {
		m->addr += a->len;
		m->len -= a->len;
		return a->len;
	}
	m->len = a->off;	/* the tail went */
	return 0;
}

static void op_munmap(struct rng *r)
{
	static const int prots[] = { PROT_READ, PROT_READ | PROT_WRITE, PROT_NONE };
	struct unmap_args a = { 0 };
	int i = map_pick(r, false);
	unsigned int x = (unsigned int)rnd_below(r, 100);
	size_t pages;

	if (i < 0)
		return;
	a.base = maps[i].addr;
	a.len = maps[i].len;
	pages = maps[i].len / (size_t)page_size;
	if (x < 75 || pages < 2) {
		a.protect = x >= 90;
		a.prot = prots[rnd_below(r, ARRAY_SIZE(prots))];
	} else if (x < 82) {
		a.off = (size_t)page_size * (size_t)rnd_range(r, 1, (int64_t)pages - 1);
		a.len = maps[i].len - a.off;
	} else if (x < 88) {
		a.len = (size_t)page_size;
	} else if (x < 96) {
		a.protect = true;
		a.prot = prots[rnd_below(r, ARRAY_SIZE(prots))];
	} else {
		a.protect = true;
		a.prot = PROT_READ;
		a.len = (size_t)page_size;
	}
	exec_unmap(&a);
}

/* ------------------------------------------------------------------ */
/* Ring buffer walking                                                 */
/* ------------------------------------------------------------------ */

enum ring_mode { RING_NONE, RING_HEAD, RING_REL, RING_ABS };

struct walk {
	/* in */
	uintptr_t base;
	size_t len;
	bool writable;
	enum ring_mode mode;
	int64_t val;
	/* out */
	uint64_t head, tail, newtail;
	uint32_t index;
	int64_t offset;
	unsigned long recs, bytes, sum;
	const char *odd;
};

/* The self-monitoring fields, under the control page's seqcount. */
static void read_selfmon(volatile struct perf_event_mmap_page *pg, struct walk *w)
{
	uint32_t seq;
	int tries;

	for (tries = 0; tries < 64; tries++) {
		seq = pg->lock;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		w->index = pg->index;
		w->offset = pg->offset;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (pg->lock == seq)
			return;
	}
	w->odd = "seqcount";
}

/* Checks and reads every record between tail and head. */
static void walk_records(struct walk *w, const unsigned char *data, uint64_t dsize)
{
	uint64_t pos = w->tail, i;
	struct perf_event_header h;

	while (pos != w->head && w->recs < RING_MAX_RECORDS) {
		if (w->head - pos < sizeof(h)) {
			w->odd = "short";
			return;
		}
		memcpy(&h, data + (pos & (dsize - 1)), sizeof(h));
		if (h.size < sizeof(h) || (h.size & 7) || h.size > w->head - pos ||
		    h.size > dsize) {
			w->odd = "bad-size";
			return;
		}
		if (h.type == 0 || h.type >= PERF_RECORD_MAX) {
			w->odd = "bad-type";
			return;
		}
		for (i = 0; i < h.size; i += 8)
			w->sum += data[(pos + i) & (dsize - 1)];
		pos += h.size;
		w->recs++;
		w->bytes += h.size;
	}
}

static void walk_ring(void *arg)
{
	struct walk *w = arg;
	struct perf_event_mmap_page *pg = (void *)w->base;
	uint64_t doff, dsize, v;

	read_selfmon(pg, w);
	if (w->len <= (size_t)page_size)
		return;			/* the control page only */
	w->head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	w->tail = __atomic_load_n(&pg->data_tail, __ATOMIC_RELAXED);
	doff = pg->data_offset;
	dsize = pg->data_size;
	if (!doff && !dsize) {
		doff = (uint64_t)page_size;
		dsize = w->len - (uint64_t)page_size;
	}
	if (doff != (uint64_t)page_size || dsize != w->len - (uint64_t)page_size ||
	    (dsize & (dsize - 1)))
		w->odd = "layout";
	else if (w->head - w->tail > dsize)
		w->odd = "overrun";
	else if (w->tail & 7)
		w->odd = "unaligned";
	else
		walk_records(w, (const unsigned char *)w->base + doff, dsize);

	if (!w->writable || w->mode == RING_NONE)
		return;
	v = w->mode == RING_HEAD ? w->head :
	    w->mode == RING_REL ? w->head + (uint64_t)w->val : (uint64_t)w->val;
	__atomic_store_n(&pg->data_tail, v, __ATOMIC_RELEASE);
	w->newtail = v;
}

static void exec_ring(uintptr_t base, enum ring_mode mode, int64_t val)
{
	int i = map_find(base);
	struct walk w;
	struct logline l;

	log_begin(&l, "ring");
	lput(&l, " addr=0x%lx set=", (unsigned long)base);
	if (mode == RING_NONE)
		lput(&l, "none");
	else if (mode == RING_HEAD)
		lput(&l, "head");
	else if (mode == RING_REL)
		lput(&l, "rel:%lld", (long long)val);
	else
		lput(&l, "abs:0x%llx", (unsigned long long)val);
	if (i < 0 || !map_walkable(&maps[i])) {
		log_skip(&l, "(no readable mapping)");
		return;
	}
	memset(&w, 0, sizeof(w));
	w.base = base;
	w.len = maps[i].len;
	w.writable = maps[i].prot & PROT_WRITE;
	w.mode = mode;
	w.val = val;
	log_pending(&l);
	if (!guarded(walk_ring, &w))
		w.odd = "fault";
	lput(&l, " => 0 head=0x%llx tail=0x%llx recs=%lu bytes=%lu idx=%u",
	     (unsigned long long)w.head, (unsigned long long)w.tail, w.recs,
	     w.bytes, w.index);
	if (w.writable && mode != RING_NONE)
		lput(&l, " newtail=0x%llx", (unsigned long long)w.newtail);
	if (w.odd)
		lput(&l, " odd=%s", w.odd);
	if (!in_child) {
		st_ring_recs += w.recs;
		st_ring_odd += !!w.odd;
	}
	log_emit(&l);
}

static void op_ring(struct rng *r)
{
	static const int64_t rels[] = { -8, 8, -4096, 4096, 16, 1 << 20 };
	int i = map_pick(r, true);
	unsigned int x = (unsigned int)rnd_below(r, 100);
	enum ring_mode mode;
	int64_t val = 0;

	if (i < 0)
		return;
	if (!(maps[i].prot & PROT_WRITE) || x < 20) {
		mode = RING_NONE;
	} else if (x < 80) {
		mode = RING_HEAD;
	} else if (x < 92) {
		mode = RING_REL;
		val = one_in(r, 2) ? rels[rnd_below(r, ARRAY_SIZE(rels))] :
		      (int64_t)rnd_range(r, -65536, 65536);
	} else {
		mode = RING_ABS;
		val = (int64_t)rnd_edgy(r);
	}
	exec_ring(maps[i].addr, mode, val);
}

/* ------------------------------------------------------------------ */
/* poll, fcntl, prctl                                                  */
/* ------------------------------------------------------------------ */

struct poll_args {
	int n;
	int timeout;
	struct pollfd pfd[4];
};

static void exec_poll(struct poll_args *a)
{
	struct logline l;
	int i, ret, err;

	log_begin(&l, "poll");
	for (i = 0; i < a->n; i++) {
		lput(&l, "%s%d:0x%x", i ? "," : " fds=", a->pfd[i].fd,
		     (unsigned int)(unsigned short)a->pfd[i].events);
		a->pfd[i].revents = 0;
	}
	lput(&l, " timeout=%d", a->timeout);
	log_pending(&l);
	ret = poll(a->pfd, (nfds_t)a->n, a->timeout);
	err = errno;
	log_result(&l, ret, err);
	for (i = 0; ret > 0 && i < a->n; i++)
		lput(&l, "%s0x%x", i ? "," : " rev=",
		     (unsigned int)(unsigned short)a->pfd[i].revents);
	log_emit(&l);
}

static void op_poll(struct rng *r)
{
	static const short evs[] = { POLLIN, POLLOUT, POLLPRI, POLLHUP, POLLERR,
				     POLLRDNORM };
	struct poll_args a;
	size_t k;
	int i;

	a.n = 1 + (int)rnd_below(r, 4);
	a.timeout = one_in(r, 20) ? 1 : 0;
	for (i = 0; i < a.n; i++) {
		a.pfd[i].fd = pick_event_fd(r, ev_pick(r));
		a.pfd[i].events = POLLIN;
		for (k = 0; k < ARRAY_SIZE(evs); k++)
			if (one_in(r, 4))
				a.pfd[i].events |= evs[k];
	}
	exec_poll(&a);
}

enum fcntl_cmd { FC_SETFL, FC_SETOWN, FC_SETOWN_EX, FC_SETSIG, FC_GETOWN, FC_GETSIG,
		 FC_GETFL, NR_FC };

static const char *const fc_names[NR_FC] = {
	"SETFL", "SETOWN", "SETOWN_EX", "SETSIG", "GETOWN", "GETSIG", "GETFL",
};

struct fcntl_args {
	int fd;
	enum fcntl_cmd cmd;
	long arg;			/* SETFL flags, SETSIG signal */
	int type;			/* SETOWN_EX */
	pid_t pid;			/* SETOWN, SETOWN_EX */
};

static void exec_fcntl(struct fcntl_args *a)
{
	struct f_owner_ex own;
	struct logline l;
	long ret = -1;
	int err;

	/* Only ever point signals at our own tasks, never at a group. */
	if (a->cmd == FC_SETOWN || a->cmd == FC_SETOWN_EX)
		a->pid = pid_is_ours(a->pid) ? a->pid : BOGUS_PID;
	if (a->cmd == FC_SETOWN_EX && a->type == F_OWNER_PGRP)
		a->type = 99;
	if (a->cmd == FC_SETSIG && !setsig_is_safe(a->arg))
		a->arg = 1000;
	/* Keep non-blocking fds (the pipe, the eventfd) non-blocking. */
	if (a->cmd == FC_SETFL && ev_find(a->fd) < 0)
		a->fd = BOGUS_FD;

	log_begin(&l, "fcntl");
	lput(&l, " fd=%d cmd=%s", a->fd, fc_names[a->cmd]);
	if (a->cmd == FC_SETFL)
		lput(&l, " arg=0x%lx", a->arg);
	else if (a->cmd == FC_SETOWN)
		lput(&l, " pid=%d", a->pid);
	else if (a->cmd == FC_SETOWN_EX)
		lput(&l, " type=%d pid=%d", a->type, a->pid);
	else if (a->cmd == FC_SETSIG)
		lput(&l, " arg=%ld", a->arg);
	log_pending(&l);
	switch (a->cmd) {
	case FC_SETFL:
		ret = fcntl(a->fd, F_SETFL, a->arg);
		break;
	case FC_SETOWN:
		ret = fcntl(a->fd, F_SETOWN, a->pid);
		break;
	case FC_SETOWN_EX:
		own.type = a->type;
		own.pid = a->pid;
		ret = fcntl(a->fd, F_SETOWN_EX, &own);
		break;
	case FC_SETSIG:
		ret = fcntl(a->fd, F_SETSIG, a->arg);
		break;
	case FC_GETOWN:
		ret = fcntl(a->fd, F_GETOWN);
		break;
	case FC_GETSIG:
		ret = fcntl(a->fd, F_GETSIG);
		break;
	default:
		ret = fcntl(a->fd, F_GETFL);
		break;
	}
	err = errno;
	log_result(&l, ret, err);
	log_emit(&l);
}

static pid_t rnd_owner(struct rng *r)
{
	unsigned int x = (unsigned int)rnd_below(r, 100);

	if (x < 50)
		return main_pid;
	if (x < 70)
		return rnd_worker_tid(r);
	if (x < 90)
		return rnd_kid_or_self(r);
	return 0;
}

static void op_fcntl(struct rng *r)
{
	struct fcntl_args a = { 0 };
	unsigned int x = (unsigned int)rnd_below(r, 100);
	int slot = ev_pick(r);

	a.fd = slot >= 0 && !one_in(r, 30) ? ev[slot].fd : BOGUS_FD;
	if (x < 30) {
		a.cmd = FC_SETFL;
		x = (unsigned int)rnd_below(r, 10);
		a.arg = x < 6 ? O_ASYNC : x < 8 ? O_ASYNC | O_NONBLOCK : 0;
	} else if (x < 55) {
		a.cmd = FC_SETOWN;
		a.pid = rnd_owner(r);
	} else if (x < 70) {
		a.cmd = FC_SETOWN_EX;
		x = (unsigned int)rnd_below(r, 10);
		a.type = x < 6 ? F_OWNER_TID : x < 9 ? F_OWNER_PID : 7;
		a.pid = rnd_owner(r);
	} else if (x < 92) {
		a.cmd = FC_SETSIG;
		a.arg = rnd_setsig(r);
	} else {
		a.cmd = x < 95 ? FC_GETOWN : x < 98 ? FC_GETSIG : FC_GETFL;
	}
	exec_fcntl(&a);
}

static void exec_prctl(bool enable)
{
	struct logline l;
	int ret, err;

	log_begin(&l, "prctl");
	lput(&l, " op=%s", enable ? "ENABLE" : "DISABLE");
	log_pending(&l);
	ret = prctl(enable ? PR_TASK_PERF_EVENTS_ENABLE : PR_TASK_PERF_EVENTS_DISABLE,
		    0, 0, 0, 0);
	err = errno;
	log_result(&l, ret, err);
	log_emit(&l);
}

static void op_prctl(struct rng *r)
{
	exec_prctl(pct(r, 60));
}

/* ------------------------------------------------------------------ */
/* Children                                                            */
/* ------------------------------------------------------------------ */

static void run_op(struct rng *r, enum op_kind k);
static enum op_kind pick_kind(struct rng *r, bool child);
static enum op_kind redirect(enum op_kind k, bool child);
static enum op_kind redirect_state(enum op_kind k, bool child);

static void child_exec(void)
{
	static char *const argv[] = { "true", NULL };
	static char *const envp[] = { NULL };
	struct logline l;

	log_begin(&l, "execve");
	lput(&l, " path=/bin/true => pending");
	log_emit(&l);
	execve("/bin/true", argv, envp);
	log_begin(&l, "execve");
	lput(&l, " path=/bin/true");
	log_result(&l, -1, errno);
	log_emit(&l);
}

static void child_work(struct rng *r)
{
	unsigned int x = (unsigned int)rnd_below(r, 100);

	if (x < 35)
		work_pages(1 + (unsigned int)rnd_below(r, 8));
	else if (x < 65)
		work_spin(5 + (unsigned int)rnd_below(r, 50));
	else if (x < 80)
		sched_yield();
	else
		work_bp(1 + (unsigned int)rnd_below(r, 8));
}

/**
 * child_main() - body of a forked child; never returns
 * @cseed: seed of the child's random stream
 *
 * The child keeps every inherited event fd (but no mapping: perf mappings
 * are not copied on fork), runs a bounded loop of workload steps with a
 * few random operations of its own mixed in, maybe a thread and an
 * execve("/bin/true"), and exits.
 */
static void __attribute__((noreturn)) child_main(uint64_t cseed)
{
	unsigned int iters, i, exec_at, thread_at;
	struct logline l;
	struct rng r;
	long tid;

	in_child = true;
	snprintf(t_tag, sizeof(t_tag), "C%d", (int)getpid());
	t_opno = 0;
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	if (getppid() != main_pid)
		_exit(0);
	memset(maps, 0, sizeof(maps));
	nr_maps = 0;

	rng_init(&r, cseed, STREAM_CHILD, 0);
	iters = 20 + (unsigned int)rnd_below(&r, 400);
	exec_at = one_in(&r, 12) ? (unsigned int)rnd_below(&r, iters) : UINT_MAX;
	thread_at = one_in(&r, 3) ? (unsigned int)rnd_below(&r, iters) : UINT_MAX;
	log_begin(&l, "start");
	lput(&l, " iters=%u exec_at=%d thread_at=%d => 0", iters, (int)exec_at,
	     (int)thread_at);
	log_emit(&l);

	for (i = 0; i < iters && !stop_req; i++) {
		t_opno = i + 1;
		if (i == exec_at)
			child_exec();
		if (i == thread_at) {
			tid = run_short_thread(rnd(&r));
			log_begin(&l, "thread");
			log_result(&l, tid < 0 ? -1 : tid, tid < 0 ? (int)-tid : 0);
			log_emit(&l);
		}
		if (one_in(&r, 6))
			run_op(&r, redirect(redirect(pick_kind(&r, true), true), true));
		else
			child_work(&r);
	}
	_exit(0);
}

static pid_t exec_fork(uint64_t cseed)
{
	struct logline l;
	pid_t pid;
	int err;

	log_begin(&l, "fork");
	lput(&l, " cseed=0x%llx", (unsigned long long)cseed);
	log_pending(&l);
	pid = fork();
	if (pid == 0)
		child_main(cseed);
	err = errno;
	log_result(&l, pid, err);
	if (pid > 0) {
		st_forks++;
		if (!kid_add(pid)) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			lput(&l, " dropped");
			pid = -1;
		}
	}
	log_emit(&l);
	return pid;
}

static void op_fork(struct rng *r)
{
	exec_fork(rnd(r));
}

static void exec_kill(pid_t pid, int sig)
{
	struct logline l;
	int ret, err;

	log_begin(&l, "kill");
	lput(&l, " pid=%d sig=%d", pid, sig);
	if (kid_find(pid) < 0) {
		log_skip(&l, "(not our child)");
		return;
	}
	log_pending(&l);
	ret = kill(pid, sig);
	err = errno;
	log_result(&l, ret, err);
	log_emit(&l);
}

static void op_kill(struct rng *r)
{
	unsigned int x = (unsigned int)rnd_below(r, 100);
	int sig = x < 70 ? SIGKILL : x < 80 ? SIGSTOP : x < 95 ? SIGCONT : SIGUSR1;
	pid_t pid = kids[rnd_below(r, MAX_CHILDREN)];
	int i;

	/* An empty slot: the next occupied one. */
	for (i = 0; !pid && i < MAX_CHILDREN; i++)
		pid = kids[i];
	if (pid)
		exec_kill(pid, sig);
}

/**
 * exec_wait() - reap a child with waitpid(WNOHANG)
 * @pid: the child (or -1)
 * @ms: keep polling for up to this long while it is still running
 *
 * A child's loop is bounded and short, so a little patience makes whether
 * it is reaped (and its slot freed) the same from run to run.
 */
static pid_t exec_wait(pid_t pid, unsigned int ms)
{
	struct logline l;
	int status = 0, err;
	uint64_t until;
	pid_t ret;

	if (ms > 1000)
		ms = 1000;
	until = now_ns() + ms * 1000000ULL;
	log_begin(&l, "wait");
	lput(&l, " pid=%d ms=%u", pid, ms);
	log_pending(&l);
	while ((ret = waitpid(pid, &status, WNOHANG)) == 0 && now_ns() < until)
		sleep_us(1000);
	err = errno;
	log_result(&l, ret, err);
	if (ret > 0) {
		lput(&l, " status=0x%x", status);
		kid_remove(ret);
	}
	log_emit(&l);
	return ret;
}

/*
 * The oldest child, which has most likely exited by now: reaping "any
 * child", or a young one, would empty whichever slot won a race, and two
 * runs of a seed would part ways there.
 */
static void op_wait(struct rng *r)
{
	int i, oldest = -1;

	(void)r;
	for (i = 0; i < MAX_CHILDREN; i++)
		if (kids[i] && (oldest < 0 || kid_born[i] < kid_born[oldest]))
			oldest = i;
	exec_wait(oldest >= 0 ? kids[oldest] : -1, 200);
}

/* ------------------------------------------------------------------ */
/* CPU hotplug, sysctls, workload                                      */
/* ------------------------------------------------------------------ */

static void exec_cpu(int n, int online)
{
	struct logline l;
	char path[96];
	int ret;

	log_begin(&l, "cpu");
	lput(&l, " n=%d online=%d", n, online);
	if (n <= 0 || n >= ncpus || n >= MAX_CPUS || !cpu_hotpluggable[n] ||
	    (online && n != offline_cpu) || (!online && offline_cpu >= 0)) {
		log_skip(&l, "(not allowed)");
		return;
	}
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", n);
	if (!online)
		snprintf(offline_path, sizeof(offline_path), "%s", path);
	log_pending(&l);
	ret = write_str_file(path, online ? "1\n" : "0\n");
	log_result(&l, ret ? -1 : 0, -ret);
	log_emit(&l);
	if (!ret)
		offline_cpu = online ? -1 : n;
}

static void op_cpu(struct rng *r)
{
	int k, i;

	if (offline_cpu >= 0) {
		exec_cpu(offline_cpu, 1);
		return;
	}
	k = (int)rnd_below(r, (uint64_t)nr_hotpluggable);
	for (i = 1; i < ncpus && i < MAX_CPUS; i++)
		if (cpu_hotpluggable[i] && k-- == 0)
			exec_cpu(i, 0);
}

static int sysctl_index(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(sysctls); i++)
		if (!strcmp(sysctls[i].name, name))
			return (int)i;
	return -1;
}

static void exec_sysctl(int idx, long val)
{
	struct fz_sysctl *s = &sysctls[idx];
	struct logline l;
	int ret;

	log_begin(&l, "sysctl");
	lput(&l, " name=%s val=%ld", s->name, val);
	if (!s->present || val < s->lo || val > s->hi) {
		log_skip(&l, "(not allowed)");
		return;
	}
	log_pending(&l);
	ret = write_long_file(s->path, val);
	log_result(&l, ret ? -1 : 0, -ret);
	log_emit(&l);
	if (ret)
		return;
	if (idx == SC_SAMPLE_RATE)
		cur_sample_rate = val;
	else if (idx == SC_MAX_STACK)
		cur_max_stack = val;
}

static void op_sysctl(struct rng *r)
{
	static const long rates[] = { 1, 10, 100, 1000, 5000, 25000, 100000 };
	int idx = (int)rnd_below(r, ARRAY_SIZE(sysctls));
	const struct fz_sysctl *s = &sysctls[idx];
	long val;

	if (pct(r, 40))
		val = s->orig;
	else if (idx == SC_SAMPLE_RATE && one_in(r, 2))
		val = rates[rnd_below(r, ARRAY_SIZE(rates))];
	else
		val = rnd_range(r, s->lo, s->hi);
	if (s->present)
		exec_sysctl(idx, val);
}

enum work_kind { WK_PAGES, WK_SPIN, WK_YIELD, WK_BP, WK_THREAD, NR_WK };

static const char *const wk_names[NR_WK] = { "pages", "spin", "yield", "bp", "thread" };

static void exec_work(enum work_kind k, unsigned int n)
{
	struct logline l;
	long ret = 0;

	log_begin(&l, "work");
	lput(&l, " kind=%s n=%u", wk_names[k], n);
	log_pending(&l);
	switch (k) {
	case WK_PAGES:
		work_pages(n);
		break;
	case WK_SPIN:
		work_spin(n);
		break;
	case WK_YIELD:
		sched_yield();
		break;
	case WK_BP:
		work_bp(n);
		break;
	default:
		ret = run_short_thread(g_seed ^ mix64(t_opno));
		break;
	}
	log_result(&l, ret < 0 ? -1 : ret, ret < 0 ? (int)-ret : 0);
	log_emit(&l);
}

static void op_work(struct rng *r)
{
	unsigned int x = (unsigned int)rnd_below(r, 100);

	if (x < 30)
		exec_work(WK_PAGES, 1 + (unsigned int)rnd_below(r, 16));
	else if (x < 60)
		exec_work(WK_SPIN, 10 + (unsigned int)rnd_below(r, 91));
	else if (x < 75)
		exec_work(WK_YIELD, 0);
	else if (x < 95)
		exec_work(WK_BP, 1 + (unsigned int)rnd_below(r, 16));
	else
		exec_work(WK_THREAD, 0);
}

/* ------------------------------------------------------------------ */
/* Choosing operations                                                 */
/* ------------------------------------------------------------------ */

static const struct {
	const char *name;
	unsigned int weight;		/* out of the sum of all */
	bool child;			/* children may do it too */
} op_table[NR_OP_KINDS] = {
	[OP_OPEN]	= { "open",	2900, true },
	[OP_CLOSE]	= { "close",	 700, true },
	[OP_IOCTL]	= { "ioctl",	2000, true },
	[OP_READ]	= { "read",	 800, true },
	[OP_MMAP]	= { "mmap",	 600, true },
	[OP_MUNMAP]	= { "munmap",	 250, true },
	[OP_RING]	= { "ring",	 600, true },
	[OP_POLL]	= { "poll",	 300, true },
	[OP_FCNTL]	= { "fcntl",	 300, true },
	[OP_PRCTL]	= { "prctl",	  15, true },	/* slow: walks every event */
	[OP_FORK]	= { "fork",	 120, false },
	[OP_KILL]	= { "kill",	  50, false },
	[OP_WAIT]	= { "wait",	 200, false },
	[OP_CPU]	= { "cpu",	   2, false },	/* ~1 in 5000 */
	[OP_SYSCTL]	= { "sysctl",	   5, false },
	[OP_WORK]	= { "work",	 800, true },
};

static enum op_kind pick_kind(struct rng *r, bool child)
{
	unsigned int total = 0, x;
	int k;

	for (k = 0; k < NR_OP_KINDS; k++)
		if ((!child || op_table[k].child) && !kind_disabled[k])
			total += op_table[k].weight;
	if (!total)
		return OP_WORK;
	x = (unsigned int)rnd_below(r, total);
	for (k = 0; k < NR_OP_KINDS; k++) {
		if ((child && !op_table[k].child) || kind_disabled[k])
			continue;
		if (x < op_table[k].weight)
			return (enum op_kind)k;
		x -= op_table[k].weight;
	}
	return OP_WORK;
}

/* What to do instead when the state does not allow @k. */
static enum op_kind redirect(enum op_kind k, bool child)
{
	enum op_kind to = redirect_state(k, child);

	/* A redirect must not lead to a kind that -x disabled. */
	return kind_disabled[to] ? k : to;
}

static enum op_kind redirect_state(enum op_kind k, bool child)
{
	switch (k) {
	case OP_OPEN:
		return nr_ev >= MAX_EVENTS ? OP_CLOSE : k;
	case OP_CLOSE:
	case OP_IOCTL:
	case OP_READ:
	case OP_POLL:
	case OP_FCNTL:
		return nr_ev ? k : OP_OPEN;
	case OP_MMAP:
		if (nr_maps >= MAX_MAPS)
			return OP_MUNMAP;
		return nr_ev ? k : OP_OPEN;
	case OP_MUNMAP:
		return nr_maps ? k : OP_MMAP;
	case OP_RING:
		return have_walkable() ? k : OP_MMAP;
	case OP_FORK:
		if (child)
			return OP_WORK;
		if (nr_kids < MAX_CHILDREN)
			return k;
		/* Full: reap, or kill now and then (stopped children). */
		return t_opno % 3 ? OP_WAIT : OP_KILL;
	case OP_KILL:
	case OP_WAIT:
		if (child)
			return OP_WORK;
		return nr_kids ? k : OP_FORK;
	case OP_CPU:
		return !child && nr_hotpluggable ? k : OP_WORK;
	case OP_SYSCTL:
		return child ? OP_WORK : k;
	default:
		return k;
	}
}

static void run_op(struct rng *r, enum op_kind k)
{
	if (!in_child)
		st_kind[k]++;
	switch (k) {
	case OP_OPEN:
		op_open(r);
		break;
	case OP_CLOSE:
		op_close(r);
		break;
	case OP_IOCTL:
		op_ioctl(r);
		break;
	case OP_READ:
		op_read(r);
		break;
	case OP_MMAP:
		op_mmap(r);
		break;
	case OP_MUNMAP:
		op_munmap(r);
		break;
	case OP_RING:
		op_ring(r);
		break;
	case OP_POLL:
		op_poll(r);
		break;
	case OP_FCNTL:
		op_fcntl(r);
		break;
	case OP_PRCTL:
		op_prctl(r);
		break;
	case OP_FORK:
		op_fork(r);
		break;
	case OP_KILL:
		op_kill(r);
		break;
	case OP_WAIT:
		op_wait(r);
		break;
	case OP_CPU:
		op_cpu(r);
		break;
	case OP_SYSCTL:
		op_sysctl(r);
		break;
	default:
		op_work(r);
		break;
	}
}

/* Main-thread operation number @opno, drawn from its own stream. */
static void main_step(uint64_t opno)
{
	struct rng r;
	enum op_kind k;

	rng_init(&r, g_seed, STREAM_OP, opno);
	t_opno = opno;
	atomic_store(&main_opno, opno);
	k = pick_kind(&r, false);
	k = redirect(redirect(redirect(k, false), false), false);
	run_op(&r, k);
}

/* ------------------------------------------------------------------ */
/* Replay                                                              */
/* ------------------------------------------------------------------ */

#define MAX_KV			32
#define FDMAP_SIZE		65536
#define IDMAP_MAX		4096

/* One parsed "M" line of a log. */
struct rline {
	const char *op;
	uint64_t opno;
	int nkv;
	const char *key[MAX_KV];
	const char *val[MAX_KV];
	bool has_res;
	bool pending;			/* announced, not completed */
	long long res;
};

struct idpair {
	uint64_t old, cur;
};

struct idmap {
	int n;
	struct idpair v[IDMAP_MAX];
};

static int fdmap[FDMAP_SIZE];		/* new fd + 1; 0: unknown */
static struct idmap pidmap, addrmap;

/* From the header of the log being replayed. */
static pid_t rp_old_pid = -1;
static pid_t rp_old_worker[NR_WORKERS];
static int rp_old_misc[NR_MISC] = { -1, -1, -1, -1, -1 };

static void idmap_set(struct idmap *m, uint64_t old, uint64_t cur)
{
	int i;

	for (i = 0; i < m->n; i++) {
		if (m->v[i].old == old) {
			m->v[i].cur = cur;
			return;
		}
	}
	if (m->n == IDMAP_MAX) {
		/* Forget the oldest entry. */
		memmove(&m->v[0], &m->v[1], sizeof(m->v[0]) * (IDMAP_MAX - 1));
		m->n--;
	}
	m->v[m->n].old = old;
	m->v[m->n].cur = cur;
	m->n++;
}

static bool idmap_get(const struct idmap *m, uint64_t old, uint64_t *cur)
{
	int i;

	for (i = m->n - 1; i >= 0; i--) {
		if (m->v[i].old == old) {
			*cur = m->v[i].cur;
			return true;
		}
	}
	return false;
}

/* Drops every entry that maps to @cur. */
static void idmap_del_cur(struct idmap *m, uint64_t cur)
{
	int i;

	for (i = m->n - 1; i >= 0; i--) {
		if (m->v[i].cur == cur) {
			m->v[i] = m->v[m->n - 1];
			m->n--;
		}
	}
}

/* A logged fd in today's numbers; unknown ones become invalid. */
static long long rp_fd(long long old)
{
	if (old < 0 || old >= FDMAP_SIZE)
		return old;
	return fdmap[old] ? fdmap[old] - 1 : BOGUS_FD;
}

/* Records that the logged fd @old is @cur now (or failed to open). */
static void rp_fd_learn(long long old, int cur)
{
	if (old >= 0 && old < FDMAP_SIZE)
		fdmap[old] = cur >= 0 ? cur + 1 : BOGUS_FD + 1;
}

/* A logged pid in today's numbers; unknown ones become BOGUS_PID. */
static pid_t rp_pid(long long old)
{
	uint64_t cur;
	int i;

	if (old <= 0 || old >= BOGUS_PID)
		return (pid_t)old;
	if (old == rp_old_pid)
		return main_pid;
	for (i = 0; i < NR_WORKERS; i++)
		if (old == rp_old_worker[i])
			return atomic_load(&worker_tid[i]);
	if (idmap_get(&pidmap, (uint64_t)old, &cur))
		return (pid_t)cur;
	return BOGUS_PID;
}

static uintptr_t rp_addr(uint64_t old)
{
	uint64_t cur;

	return idmap_get(&addrmap, old, &cur) ? (uintptr_t)cur : 0;
}

/**
 * parse_rline() - split a main-thread log line into its parts, in place
 * @s: the line; modified
 * @p: result; its strings point into @s
 *
 * Return: false for lines that are not main-thread calls.
 */
static bool parse_rline(char *s, struct rline *p)
{
	char *save = NULL, *tok, *eq, *end;
	bool after = false;

	memset(p, 0, sizeof(*p));
	s[strcspn(s, "\r\n")] = 0;
	tok = strtok_r(s, " ", &save);
	if (!tok || strcmp(tok, "M"))
		return false;
	tok = strtok_r(NULL, " ", &save);
	if (!tok)
		return false;
	p->opno = strtoull(tok, NULL, 10);
	p->op = strtok_r(NULL, " ", &save);
	if (!p->op)
		return false;
	while ((tok = strtok_r(NULL, " ", &save))) {
		if (!strcmp(tok, "=>")) {
			after = true;
			continue;
		}
		if (after) {
			p->res = strtoll(tok, &end, 0);
			p->has_res = end != tok && !*end;
			p->pending = !strcmp(tok, "pending");
			break;
		}
		if (p->nkv == MAX_KV)
			continue;
		eq = strchr(tok, '=');
		if (eq)
			*eq++ = 0;
		p->key[p->nkv] = tok;
		p->val[p->nkv++] = eq ? eq : "";
	}
	return true;
}

static const char *kv(const struct rline *p, const char *key)
{
	int i;

	for (i = 0; i < p->nkv; i++)
		if (!strcmp(p->key[i], key))
			return p->val[i];
	return NULL;
}

/* A numeric value (decimal, 0x hex, negative wraps); @def when absent. */
static uint64_t kv_num(const struct rline *p, const char *key, uint64_t def)
{
	const char *v = kv(p, key);

	if (!v)
		return def;
	if (v[0] == '-')
		return (uint64_t)strtoll(v, NULL, 0);
	return strtoull(v, NULL, 0);
}

static void rp_open(const struct rline *p)
{
	struct open_args a;
	long long pid;
	int fd;

	memset(attr_buf, 0, sizeof(attr_buf));
	hex_decode(kv(p, "attr"), attr_buf, sizeof(attr_buf));
	a.want = kv(p, "want") ? kv(p, "want")[0] : 0;
	a.flags = kv_num(p, "flags", 0);
	pid = (long long)kv_num(p, "pid", 0);
	a.pid = a.flags & PERF_FLAG_PID_CGROUP ? (pid_t)rp_fd(pid) : rp_pid(pid);
	a.cpu = (int)kv_num(p, "cpu", (uint64_t)-1);
	a.group_fd = (int)rp_fd((long long)kv_num(p, "group", (uint64_t)-1));
	fd = exec_open(&a);
	if (p->has_res && p->res >= 0)
		rp_fd_learn(p->res, fd);
}

static void rp_close(const struct rline *p)
{
	long long old = (long long)kv_num(p, "fd", (uint64_t)-1);

	exec_close((int)rp_fd(old));
	if (old >= 0 && old < FDMAP_SIZE)
		fdmap[old] = 0;
}

static void rp_ioctl(const struct rline *p)
{
	struct ioctl_args a;
	const char *req = kv(p, "req");
	size_t i;

	memset(&a, 0, sizeof(a));
	a.fd = (int)rp_fd((long long)kv_num(p, "fd", (uint64_t)-1));
	a.req = req ? strtoul(req, NULL, 0) : 0;
	for (i = 0; req && i < ARRAY_SIZE(ioc_reqs); i++)
		if (!strcmp(req, ioc_reqs[i].name))
			a.req = ioc_reqs[i].req;
	a.kind = IK_ARG;
	if (kv(p, "arg")) {
		a.arg = (long)kv_num(p, "arg", 0);
	} else if (kv(p, "fdarg")) {
		a.kind = IK_FD;
		a.arg = (long)rp_fd((long long)kv_num(p, "fdarg", 0));
	} else if (kv(p, "bad")) {
		a.kind = IK_BAD;
		a.arg = (long)kv_num(p, "bad", 0);
	} else if (kv(p, "u64")) {
		a.kind = IK_U64;
		a.u64 = kv_num(p, "u64", 0);
	} else if (kv(p, "str")) {
		a.kind = IK_STR;
		a.slen = hex_decode(kv(p, "str"), (unsigned char *)a.str, FILTER_MAX - 1);
	} else if (kv(p, "ptr")) {
		a.kind = IK_GOOD;
	} else if (kv(p, "qlen")) {
		a.kind = IK_QLEN;
		a.arg = (long)kv_num(p, "qlen", 0);
	} else if (kv(p, "attr")) {
		a.kind = IK_ATTR;
		memset(attr_buf2, 0, sizeof(attr_buf2));
		hex_decode(kv(p, "attr"), attr_buf2, sizeof(attr_buf2));
	}
	exec_ioctl(&a);
}

static void rp_read(const struct rline *p)
{
	exec_read((int)rp_fd((long long)kv_num(p, "fd", (uint64_t)-1)),
		  (size_t)kv_num(p, "len", 0), (uintptr_t)kv_num(p, "bad", 0));
}

static void rp_mmap(const struct rline *p)
{
	struct mmap_args a;
	uintptr_t addr;

	a.fd = (int)rp_fd((long long)kv_num(p, "fd", (uint64_t)-1));
	a.len = (size_t)kv_num(p, "len", 0);
	a.prot = (int)kv_num(p, "prot", 0);
	a.flags = (int)kv_num(p, "flags", 0);
	a.off = (long long)kv_num(p, "off", 0);
	addr = exec_mmap(&a);
	if (addr && p->has_res && p->res > 0)
		idmap_set(&addrmap, (uint64_t)p->res, addr);
}

static void rp_unmap(const struct rline *p, bool protect)
{
	uint64_t old = kv_num(p, "addr", 0);
	struct unmap_args a;
	size_t moved;

	a.base = rp_addr(old);
	a.off = (size_t)kv_num(p, "off", 0);
	a.len = (size_t)kv_num(p, "len", 0);
	a.protect = protect;
	a.prot = (int)kv_num(p, "prot", 0);
	moved = exec_unmap(&a);
	if (!a.base)
		return;
	if (map_find(a.base + moved) < 0)
		idmap_del_cur(&addrmap, a.base);
	else if (moved)
		idmap_set(&addrmap, old + moved, a.base + moved);
}

static void rp_munmap(const struct rline *p)
{
	rp_unmap(p, false);
}

static void rp_mprotect(const struct rline *p)
{
	rp_unmap(p, true);
}

static void rp_ring(const struct rline *p)
{
	const char *set = kv(p, "set");
	enum ring_mode mode = RING_NONE;
	int64_t val = 0;

	if (set && !strcmp(set, "head")) {
		mode = RING_HEAD;
	} else if (set && !strncmp(set, "rel:", 4)) {
		mode = RING_REL;
		val = strtoll(set + 4, NULL, 0);
	} else if (set && !strncmp(set, "abs:", 4)) {
		mode = RING_ABS;
		val = (int64_t)strtoull(set + 4, NULL, 0);
	}
	exec_ring(rp_addr(kv_num(p, "addr", 0)), mode, val);
}

static void rp_poll(const struct rline *p)
{
	char buf[256], *save = NULL, *tok, *end;
	const char *fds = kv(p, "fds");
	struct poll_args a;

	memset(&a, 0, sizeof(a));
	snprintf(buf, sizeof(buf), "%s", fds ? fds : "");
	for (tok = strtok_r(buf, ",", &save); tok && a.n < 4;
	     tok = strtok_r(NULL, ",", &save)) {
		a.pfd[a.n].fd = (int)rp_fd(strtoll(tok, &end, 10));
		a.pfd[a.n].events = *end == ':' ? (short)strtoul(end + 1, NULL, 0) : POLLIN;
		a.n++;
	}
	a.timeout = (int)kv_num(p, "timeout", 0);
	if (a.timeout < 0 || a.timeout > 10)
		a.timeout = 0;
	if (a.n)
		exec_poll(&a);
}

static void rp_fcntl(const struct rline *p)
{
	const char *cmd = kv(p, "cmd");
	struct fcntl_args a = { 0 };
	int i;

	a.cmd = NR_FC;
	for (i = 0; cmd && i < NR_FC; i++)
		if (!strcmp(cmd, fc_names[i]))
			a.cmd = (enum fcntl_cmd)i;
	if (a.cmd == NR_FC)
		return;
	a.fd = (int)rp_fd((long long)kv_num(p, "fd", (uint64_t)-1));
	a.arg = (long)kv_num(p, "arg", 0);
	a.type = (int)kv_num(p, "type", 0);
	a.pid = rp_pid((long long)kv_num(p, "pid", 0));
	exec_fcntl(&a);
}

static void rp_prctl(const struct rline *p)
{
	const char *op = kv(p, "op");

	exec_prctl(op && !strcmp(op, "ENABLE"));
}

static void rp_fork(const struct rline *p)
{
	pid_t pid = exec_fork(kv_num(p, "cseed", 0));

	if (pid > 0 && p->has_res && p->res > 0)
		idmap_set(&pidmap, (uint64_t)p->res, (uint64_t)pid);
}

static void rp_kill(const struct rline *p)
{
	exec_kill(rp_pid((long long)kv_num(p, "pid", 0)), (int)kv_num(p, "sig", 0));
}

static void rp_wait(const struct rline *p)
{
	long long old = (long long)kv_num(p, "pid", (uint64_t)-1);
	pid_t ret = exec_wait(old == -1 ? -1 : rp_pid(old), (unsigned int)kv_num(p, "ms", 0));

	if (ret > 0)
		idmap_del_cur(&pidmap, (uint64_t)ret);
}

static void rp_cpu(const struct rline *p)
{
	exec_cpu((int)kv_num(p, "n", 0), (int)kv_num(p, "online", 1));
}

static void rp_sysctl(const struct rline *p)
{
	const char *name = kv(p, "name");
	int idx = name ? sysctl_index(name) : -1;

	if (idx >= 0)
		exec_sysctl(idx, (long)kv_num(p, "val", 0));
}

static void rp_work(const struct rline *p)
{
	const char *kind = kv(p, "kind");
	unsigned int n = (unsigned int)kv_num(p, "n", 1);
	int i;

	for (i = 0; kind && i < NR_WK; i++) {
		if (!strcmp(kind, wk_names[i])) {
			exec_work((enum work_kind)i, n > 100 ? 100 : n);
			return;
		}
	}
}

static const struct {
	const char *op;
	void (*fn)(const struct rline *p);
	enum op_kind kind;
} replay_ops[] = {
	{ "open", rp_open, OP_OPEN },
	{ "close", rp_close, OP_CLOSE },
	{ "ioctl", rp_ioctl, OP_IOCTL },
	{ "read", rp_read, OP_READ },
	{ "mmap", rp_mmap, OP_MMAP },
	{ "munmap", rp_munmap, OP_MUNMAP },
	{ "mprotect", rp_mprotect, OP_MUNMAP },
	{ "ring", rp_ring, OP_RING },
	{ "poll", rp_poll, OP_POLL },
	{ "fcntl", rp_fcntl, OP_FCNTL },
	{ "prctl", rp_prctl, OP_PRCTL },
	{ "fork", rp_fork, OP_FORK },
	{ "kill", rp_kill, OP_KILL },
	{ "wait", rp_wait, OP_WAIT },
	{ "cpu", rp_cpu, OP_CPU },
	{ "sysctl", rp_sysctl, OP_SYSCTL },
	{ "work", rp_work, OP_WORK },
};

/* Reads seed, pid, worker tids and non-perf fds from a log's header. */
static void replay_read_header(FILE *f, bool seed_given)
{
	char line[1024], name[32];
	const char *s;
	int idx, fd, i;
	long tid;

	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "M ", 2))
			break;
		if (!strncmp(line, "# perf_fuzz ", 12)) {
			s = strstr(line, " seed=");
			if (s && !seed_given)
				g_seed = strtoull(s + 6, NULL, 0);
			s = strstr(line, " pid=");
			if (s)
				rp_old_pid = (pid_t)strtol(s + 5, NULL, 0);
		} else if (sscanf(line, "# worker idx=%d tid=%ld", &idx, &tid) == 2) {
			if (idx >= 0 && idx < NR_WORKERS)
				rp_old_worker[idx] = (pid_t)tid;
		} else if (sscanf(line, "# misc name=%31s fd=%d", name, &fd) == 2) {
			for (i = 0; i < NR_MISC; i++)
				if (!strcmp(name, misc_names[i]))
					rp_old_misc[i] = fd;
		}
	}
	rewind(f);
}

static void replay_map_misc(void)
{
	int i;

	for (i = 0; i < NR_MISC; i++)
		if (rp_old_misc[i] >= 0)
			rp_fd_learn(rp_old_misc[i], misc_fd[i]);
}

/* Replays one main-thread line; false when a limit says stop. */
static bool replay_line(char *line, uint64_t max_ops, uint64_t deadline)
{
	struct rline p;
	size_t i;

	if (!parse_rline(line, &p))
		return true;
	if ((max_ops && st_ops >= max_ops) || (deadline && now_ns() >= deadline))
		return false;
	t_opno = p.opno;
	atomic_store(&main_opno, p.opno);
	for (i = 0; i < ARRAY_SIZE(replay_ops); i++) {
		if (strcmp(p.op, replay_ops[i].op))
			continue;
		if (kind_disabled[replay_ops[i].kind])
			break;
		st_ops++;
		st_kind[replay_ops[i].kind]++;
		replay_ops[i].fn(&p);
		break;
	}
	return true;
}

/* Operation number of a main-thread line, and whether it is "pending". */
static bool replay_peek(const char *line, uint64_t *opno, bool *pending)
{
	char *dup = strdup(line);
	struct rline p;
	bool ok = dup && parse_rline(dup, &p);

	if (ok) {
		*opno = p.opno;
		*pending = p.pending;
	}
	free(dup);
	return ok;
}

/**
 * replay_run() - re-execute the main-thread calls of a log
 * @f: the log
 * @max_ops: stop after this many calls (0: all)
 * @deadline: CLOCK_MONOTONIC time to stop at (0: none)
 *
 * A "pending" line (stream logs announce each call) is replayed only when
 * its complete line never came, i.e. when it is the call that crashed.
 */
static void replay_run(FILE *f, uint64_t max_ops, uint64_t deadline)
{
	char *line = NULL, *held = NULL;
	uint64_t opno, held_opno = 0;
	size_t cap = 0;
	bool pending, go = true;

	while (go && !stop_req && getline(&line, &cap, f) > 0) {
		if (!replay_peek(line, &opno, &pending))
			continue;
		if (held) {
			if (opno != held_opno)
				go = replay_line(held, max_ops, deadline);
			free(held);
			held = NULL;
		}
		if (!go)
			break;
		if (pending) {
			held = strdup(line);
			held_opno = opno;
			continue;
		}
		go = replay_line(line, max_ops, deadline);
	}
	if (held && go && !stop_req)
		replay_line(held, max_ops, deadline);
	free(held);
	free(line);
}

/* ------------------------------------------------------------------ */
/* Set-up                                                              */
/* ------------------------------------------------------------------ */

static int setup_rlimit(void)
{
	const rlim_t want = 4096;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return -1;
	if (rl.rlim_cur >= want)
		return 0;
	rl.rlim_cur = want;
	if (rl.rlim_max < want)
		rl.rlim_max = want;
	if (!setrlimit(RLIMIT_NOFILE, &rl))
		return 0;
	if (getrlimit(RLIMIT_NOFILE, &rl))
		return -1;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		return -1;
	return rl.rlim_cur >= MAX_EVENTS + 64 ? 0 : -1;
}

/* A PROT_NONE page and a read-only page at a fixed address. */
static void setup_guards(void)
{
	size_t len = 2 * (size_t)page_size;
	void *p;

	p = mmap((void *)GUARD_BASE, len, PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (p == MAP_FAILED)
		p = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		guard_none = 0x1000;
		guard_ro = 0x2000;
		return;
	}
	guard_none = (uintptr_t)p;
	guard_ro = (uintptr_t)p + (uintptr_t)page_size;
	mprotect((void *)guard_ro, (size_t)page_size, PROT_READ);
}

static int cmp_pmu(const void *a, const void *b)
{
	const struct fz_pmu *x = a, *y = b;

	return x->type < y->type ? -1 : x->type > y->type;
}

/*
 * Sets the bits a "configN:lo-hi" format spec describes from @val; false
 * when the spec is not understood.
 */
static bool apply_format(const char *spec, uint64_t val, uint64_t config[3])
{
	int which = 0, lo, hi, n;
	uint64_t mask;

	if (!strncmp(spec, "config1:", 8))
		which = 1;
	else if (!strncmp(spec, "config2:", 8))
		which = 2;
	else if (strncmp(spec, "config:", 7))
		return false;
	spec = strchr(spec, ':') + 1;
	n = sscanf(spec, "%d-%d", &lo, &hi);
	if (n < 1 || lo < 0 || lo > 63)
		return false;
	if (n == 1)
		hi = lo;
	if (hi < lo || hi > 63)
		return false;
	mask = hi - lo == 63 ? ~0ULL : ((1ULL << (hi - lo + 1)) - 1);
	config[which] |= (val & mask) << lo;
	return true;
}

/* Parses one sysfs event ("event=0x3c,umask=0x1") of @pmu_dir. */
static bool parse_pmu_event(const char *pmu_dir, char *desc, uint64_t config[3])
{
	char *save = NULL, *term, *eq, path[512], spec[128];
	uint64_t val;
	FILE *f;
	bool ok;

	config[0] = config[1] = config[2] = 0;
	for (term = strtok_r(desc, ",\n", &save); term; term = strtok_r(NULL, ",\n", &save)) {
		eq = strchr(term, '=');
		val = eq ? strtoull(eq + 1, NULL, 0) : 1;
		if (eq)
			*eq = 0;
		if (strchr(term, '/') || strchr(term, '.'))
			return false;
		snprintf(path, sizeof(path), "%.300s/format/%.100s", pmu_dir, term);
		f = fopen(path, "re");
		if (!f)
			return false;
		ok = fgets(spec, sizeof(spec), f) && apply_format(spec, val, config);
		fclose(f);
		if (!ok)
			return false;
	}
	return true;
}

static void discover_pmu_events(struct fz_pmu *pmu, const char *pmu_dir)
{
	char path[512], desc[256];
	struct dirent *de;
	DIR *d;
	FILE *f;
	bool ok;

	snprintf(path, sizeof(path), "%.400s/events", pmu_dir);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d)) && pmu->nev < MAX_PMU_EVENTS) {
		if (de->d_name[0] == '.' || strchr(de->d_name, '.'))
			continue;
		snprintf(path, sizeof(path), "%.300s/events/%.100s", pmu_dir, de->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		ok = fgets(desc, sizeof(desc), f) &&
		     parse_pmu_event(pmu_dir, desc, pmu->ev[pmu->nev].config);
		fclose(f);
		if (ok)
			pmu->nev++;
	}
	closedir(d);
}

static void discover_pmus(void)
{
	const char *dir = "/sys/bus/event_source/devices";
	struct dirent *de;
	char path[512];
	DIR *d;
	long type;

	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d)) && nr_pmus < MAX_PMUS) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/type", dir, de->d_name);
		if (read_long_file(path, &type) || type < 0)
			continue;
		snprintf(pmus[nr_pmus].name, sizeof(pmus[nr_pmus].name), "%.63s", de->d_name);
		pmus[nr_pmus].type = (uint32_t)type;
		snprintf(path, sizeof(path), "%s/%.200s", dir, de->d_name);
		discover_pmu_events(&pmus[nr_pmus], path);
		nr_pmus++;
	}
	closedir(d);
	/* A hybrid part's P-cores' PMU takes the raw and legacy events. */
	if (read_long_file("/sys/bus/event_source/devices/cpu/caps/branches", &lbr_depth) &&
	    read_long_file("/sys/bus/event_source/devices/cpu_core/caps/branches", &lbr_depth))
		lbr_depth = 0;
	if ((read_long_file("/sys/bus/event_source/devices/cpu/caps/max_precise",
			    &max_precise) &&
	     read_long_file("/sys/bus/event_source/devices/cpu_core/caps/max_precise",
			    &max_precise)) || max_precise < 0 || max_precise > 3)
		max_precise = 0;
	qsort(pmus, (size_t)nr_pmus, sizeof(pmus[0]), cmp_pmu);
	for (type = 0; type < nr_pmus; type++)
		if (!strcmp(pmus[type].name, "perf_test"))
			perf_test_type = (int)pmus[type].type;
}

/* Mounts tracefs on /sys/kernel/tracing when that is an empty directory. */
static void maybe_mount_tracefs(void)
{
	const char *dir = "/sys/kernel/tracing";
	struct dirent *de;
	bool empty = true;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			empty = false;
	closedir(d);
	if (empty && !mount("nodev", dir, "tracefs", 0, NULL))
		tracefs_mounted = true;
}

static void discover_tracepoints(void)
{
	static const char *const patterns[] = {
		"/sys/kernel/tracing/events/*/*/id",
		"/sys/kernel/debug/tracing/events/*/*/id",
	};
	glob_t g;
	size_t i, p;
	long id;

	maybe_mount_tracefs();
	for (p = 0; p < ARRAY_SIZE(patterns) && !nr_tp; p++) {
		if (glob(patterns[p], 0, NULL, &g))
			continue;
		tp_ids = calloc(g.gl_pathc < MAX_TP_IDS ? g.gl_pathc : MAX_TP_IDS,
				sizeof(*tp_ids));
		for (i = 0; tp_ids && i < g.gl_pathc && nr_tp < MAX_TP_IDS; i++) {
			if (read_long_file(g.gl_pathv[i], &id) || id < 0)
				continue;
			if (strstr(g.gl_pathv[i], "/events/ftrace/function/id")) {
				tp_function_id = id;
				continue;
			}
			tp_ids[nr_tp++] = (uint64_t)id;
		}
		globfree(&g);
	}
}

static void discover_cpus(void)
{
	char path[96];
	long v;
	int n;

	ncpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	if (ncpus < 1)
		ncpus = 1;
	if (ncpus > MAX_CPUS)
		ncpus = MAX_CPUS;
	for (n = 1; n < ncpus; n++) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", n);
		if (!access(path, W_OK) && !read_long_file(path, &v) && v == 1) {
			cpu_hotpluggable[n] = true;
			nr_hotpluggable++;
		}
	}
}

static void discover_sysctls(void)
{
	struct fz_sysctl *s;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(sysctls); i++) {
		s = &sysctls[i];
		snprintf(s->path, sizeof(s->path), "/proc/sys/kernel/%s", s->name);
		if (read_long_file(s->path, &s->orig) || access(s->path, W_OK))
			continue;
		s->present = true;
		snprintf(s->orig_str, sizeof(s->orig_str), "%ld\n", s->orig);
	}
	if (sysctls[SC_SAMPLE_RATE].present)
		cur_sample_rate = sysctls[SC_SAMPLE_RATE].orig;
	if (sysctls[SC_MAX_STACK].present)
		cur_max_stack = sysctls[SC_MAX_STACK].orig;
}

/* fds that are not events, to hand to calls that want an event fd. */
static void open_misc(void)
{
	int p[2];

	misc_fd[MISC_DEVNULL] = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (!pipe2(p, O_NONBLOCK | O_CLOEXEC)) {
		misc_fd[MISC_PIPE_R] = p[0];
		misc_fd[MISC_PIPE_W] = p[1];
	}
	misc_fd[MISC_EVENTFD] = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	misc_fd[MISC_CGROUP] = open("/sys/fs/cgroup", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

static int start_workers(void)
{
	uint64_t until;
	int i;

	for (i = 0; i < NR_WORKERS; i++) {
		if (pthread_create(&workers[i], NULL, worker_main, (void *)(intptr_t)i))
			return -1;
		nr_workers_started++;
	}
	until = now_ns() + 5000000000ULL;
	for (i = 0; i < NR_WORKERS; i++) {
		while (!atomic_load(&worker_tid[i])) {
			if (now_ns() > until)
				return -1;
			sleep_us(1000);
		}
	}
	return 0;
}

static void write_header(const char *replay_path)
{
	size_t i;
	int n;

	log_header("# perf_fuzz seed=0x%llx pid=%d ncpus=%d page=%ld attr_size=%zu mode=%s%s%s",
		   (unsigned long long)g_seed, main_pid, ncpus, page_size,
		   sizeof(struct perf_event_attr), replaying ? "replay" : "fuzz",
		   replaying ? " of=" : "", replaying ? replay_path : "");
	for (n = 0; n < nr_pmus; n++)
		log_header("# pmu name=%s type=%u events=%d", pmus[n].name, pmus[n].type,
			   pmus[n].nev);
	log_header("# tracepoints n=%d mounted=%d", nr_tp, tracefs_mounted);
	for (n = 0; n < NR_MISC; n++)
		log_header("# misc name=%s fd=%d", misc_names[n], misc_fd[n]);
	for (n = 0; n < NR_WORKERS; n++)
		log_header("# worker idx=%d tid=%d", n, (int)atomic_load(&worker_tid[n]));
	for (i = 0; i < ARRAY_SIZE(sysctls); i++)
		if (sysctls[i].present)
			log_header("# sysctl name=%s orig=%ld", sysctls[i].name, sysctls[i].orig);
	log_header("# hotplug cpus=%d guard_none=0x%lx guard_ro=0x%lx", nr_hotpluggable,
		   (unsigned long)guard_none, (unsigned long)guard_ro);
	for (n = 0; n < NR_OP_KINDS; n++)
		if (kind_disabled[n])
			log_header("# disabled kind=%s", op_table[n].name);
}

/* ------------------------------------------------------------------ */
/* Clean-up and summary                                                */
/* ------------------------------------------------------------------ */

static void reap_children(void)
{
	uint64_t until = now_ns() + 10000000000ULL;
	pid_t pid;
	int i;

	for (i = 0; i < MAX_CHILDREN; i++)
		if (kids[i])
			kill(kids[i], SIGKILL);
	while (nr_kids && now_ns() < until) {
		pid = waitpid(-1, NULL, WNOHANG);
		if (pid > 0) {
			kid_remove(pid);
		} else if (pid < 0 && errno == ECHILD) {
			memset(kids, 0, sizeof(kids));
			nr_kids = 0;
		} else {
			sleep_us(2000);
		}
	}
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	if (nr_kids)
		fprintf(stderr, "perf_fuzz: %d children did not die\n", nr_kids);
}

static int restore_cpu(void)
{
	int tries;

	if (offline_cpu <= 0)
		return 0;
	for (tries = 0; tries < 50; tries++) {
		if (!write_str_file(offline_path, "1\n")) {
			offline_cpu = -1;
			return 0;
		}
		sleep_us(100000);
	}
	fprintf(stderr, "perf_fuzz: cannot bring %s back online\n", offline_path);
	return -1;
}

static int restore_sysctls(void)
{
	struct fz_sysctl *s;
	int bad = 0, tries;
	size_t i;
	long cur;

	for (i = 0; i < ARRAY_SIZE(sysctls); i++) {
		s = &sysctls[i];
		if (!s->present)
			continue;
		for (tries = 0; tries < 40; tries++) {
			if (!read_long_file(s->path, &cur) && cur == s->orig)
				break;
			write_long_file(s->path, s->orig);
			if (!read_long_file(s->path, &cur) && cur == s->orig)
				break;
			sleep_us(50000);
		}
		if (tries == 40) {
			fprintf(stderr, "perf_fuzz: cannot restore kernel.%s to %ld\n",
				s->name, s->orig);
			bad = -1;
		}
	}
	return bad;
}

/**
 * cleanup() - undo everything the run did to the system
 *
 * Return: 0, or -1 when a CPU or a sysctl could not be restored.
 */
static int cleanup(void)
{
	int i, bad = 0;

	atomic_store(&workers_stop, 1);
	for (i = 0; i < nr_workers_started; i++)
		pthread_join(workers[i], NULL);
	reap_children();
	for (i = 0; i < MAX_MAPS; i++) {
		if (maps[i].addr) {
			munmap((void *)maps[i].addr, maps[i].len);
			map_remove(i);
		}
	}
	for (i = 0; i < MAX_EVENTS; i++) {
		if (ev[i].fd >= 0) {
			close(ev[i].fd);
			ev[i].fd = -1;
		}
	}
	nr_ev = 0;
	for (i = 0; i < NR_MISC; i++)
		if (misc_fd[i] >= 0)
			close(misc_fd[i]);
	if (restore_cpu())
		bad = -1;
	if (restore_sysctls())
		bad = -1;
	if (tracefs_mounted)
		umount2("/sys/kernel/tracing", MNT_DETACH);
	return bad;
}

struct strbuf {
	size_t len;
	char buf[8192];
};

static void __attribute__((format(printf, 2, 3)))
sb_put(struct strbuf *sb, const char *fmt, ...)
{
	size_t room = sizeof(sb->buf) - sb->len;
	va_list ap;
	int n;

	if (room < 2)
		return;
	va_start(ap, fmt);
	n = vsnprintf(sb->buf + sb->len, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		sb->len += (size_t)n < room ? (size_t)n : room - 1;
}

static void sig_name(int sig, char *buf, size_t len)
{
	const char *s = sigabbrev_np(sig);

	if (sig >= SIGRTMIN && sig <= SIGRTMAX)
		snprintf(buf, len, "SIGRTMIN+%d", sig - SIGRTMIN);
	else if (sig == SIGIO)
		snprintf(buf, len, "SIGIO");	/* rather than its alias SIGPOLL */
	else if (s)
		snprintf(buf, len, "SIG%s", s);
	else
		snprintf(buf, len, "SIG%d", sig);
}

static void print_summary(double secs, int restore)
{
	struct strbuf *sb = calloc(1, sizeof(*sb));
	const char *sep = "";
	char name[32];
	int i;

	if (!sb)
		return;
	sb_put(sb, "perf_fuzz: seed=0x%llx mode=%s ops=%lu secs=%.1f ops/s=%.0f",
	       (unsigned long long)g_seed, replaying ? "replay" : "fuzz", st_ops, secs,
	       secs > 0 ? (double)st_ops / secs : 0.0);
	sb_put(sb, " opens=%lu open_ok=%lu (%.1f%%) brstack_ok=%lu precise_ok=%lu open_errno={",
	       st_opens, st_open_ok,
	       st_opens ? 100.0 * (double)st_open_ok / (double)st_opens : 0.0,
	       st_brstack_ok, st_precise_ok);
	for (i = 1; i < 256; i++) {
		if (st_open_err[i]) {
			sb_put(sb, "%s%s:%lu", sep, errname(i), st_open_err[i]);
			sep = ",";
		}
	}
	sb_put(sb, "} signals={");
	sep = "";
	for (i = 1; i < SIG_SLOTS; i++) {
		if (atomic_load(&sig_count[i])) {
			sig_name(i, name, sizeof(name));
			sb_put(sb, "%s%s:%lu", sep, name, atomic_load(&sig_count[i]));
			sep = ",";
		}
	}
	sb_put(sb, "} trap_perf=%lu storms=%lu faults=%lu kinds={", atomic_load(&st_trap_perf),
	       atomic_load(&st_storms),
	       atomic_load(&st_faults));
	for (i = 0; i < NR_OP_KINDS; i++)
		sb_put(sb, "%s%s:%lu", i ? "," : "", op_table[i].name, st_kind[i]);
	sb_put(sb, "} forks=%lu ring_recs=%lu ring_odd=%lu skipped=%lu restore=%s",
	       st_forks, st_ring_recs, st_ring_odd, st_skipped, restore ? "FAILED" : "ok");
	printf("%s\n", sb->buf);
	free(sb);
}

/* Prints the last TAIL_LINES lines of the log file. */
static void print_log_tail(void)
{
	const off_t window = 256 * 1024;
	char *buf, *p;
	struct stat stt;
	off_t start;
	ssize_t n;
	int fd, lines = 0;

	if (!log_is_file)
		return;
	fd = open(log_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	buf = fstat(fd, &stt) ? NULL : malloc((size_t)window + 1);
	if (!buf) {
		close(fd);
		return;
	}
	start = stt.st_size > window ? stt.st_size - window : 0;
	n = pread(fd, buf, (size_t)window, start);
	close(fd);
	if (n <= 0) {
		free(buf);
		return;
	}
	buf[n] = 0;
	p = buf + n;
	if (p > buf && p[-1] == '\n')
		p--;
	while (p > buf) {
		if (p[-1] == '\n' && ++lines == TAIL_LINES)
			break;
		p--;
	}
	printf("--- last %d lines of %s ---\n%s", TAIL_LINES, log_path, p);
	if (buf[n - 1] != '\n')
		printf("\n");
	free(buf);
}

/* ------------------------------------------------------------------ */
/* main                                                                */
/* ------------------------------------------------------------------ */

/* -x: a comma-separated list of operation kinds to leave out. */
static int parse_disabled(char *list)
{
	char *save = NULL, *tok;
	int k;

	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (k = 0; k < NR_OP_KINDS; k++)
			if (!strcmp(tok, op_table[k].name))
				break;
		if (k == NR_OP_KINDS || k == OP_WORK)
			return -1;
		kind_disabled[k] = true;
	}
	return 0;
}

static void __attribute__((noreturn)) usage(int status)
{
	fprintf(status ? stderr : stdout,
		"usage: perf_fuzz [-s SEED] [-t SECONDS] [-n MAX_OPS] [-l LOGFILE] "
		"[-r REPLAYLOG] [-x KINDS] [-q]\n"
		"  -s SEED     random seed (default: from the clock)\n"
		"  -t SECONDS  run time (default 60; no limit with -r)\n"
		"  -n MAX_OPS  main-thread operations to do (default: no limit)\n"
		"  -l LOGFILE  log (default /tmp/perf_fuzz.log; - for stdout)\n"
		"  -r LOG      replay the main-thread calls of LOG\n"
		"  -x KINDS    leave out these operations (e.g. cpu,sysctl,fork)\n"
		"  -q          print the summary line only\n");
	exit(status);
}

/*
 * Opens the log to replay on a high fd, so that the fds the run opens get
 * the same numbers as in the run that wrote the log.
 */
static FILE *open_replay(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), hi;

	if (fd < 0)
		return NULL;
	hi = fcntl(fd, F_DUPFD_CLOEXEC, 900);
	if (hi >= 0) {
		close(fd);
		fd = hi;
	}
	return fdopen(fd, "re");
}

static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

static int open_log(const char *replay_path)
{
	struct stat st;

	if (!strcmp(log_path, "-")) {
		log_fd = STDOUT_FILENO;
		log_announce = true;
		return 0;
	}
	if (replay_path && same_file(log_path, replay_path)) {
		fprintf(stderr, "perf_fuzz: the log would overwrite the replayed log\n");
		return -1;
	}
	log_fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
	if (log_fd < 0) {
		fprintf(stderr, "perf_fuzz: %s: %s\n", log_path, strerror(errno));
		return -1;
	}
	log_is_file = !fstat(log_fd, &st) && S_ISREG(st.st_mode);
	log_announce = !log_is_file;
	return 0;
}

/* Everything before the first operation; -1 when the fuzzer cannot run. */
static int setup(const char *replay_path)
{
	int i;

	for (i = 0; i < MAX_EVENTS; i++)
		ev[i].fd = -1;
	for (i = 0; i < NR_MISC; i++)
		misc_fd[i] = -1;
	if (open_log(replay_path))
		return -1;
	if (setup_rlimit()) {
		fprintf(stderr, "perf_fuzz: cannot raise RLIMIT_NOFILE\n");
		return -1;
	}
	if (install_signals()) {
		fprintf(stderr, "perf_fuzz: sigaction: %s\n", strerror(errno));
		return -1;
	}
	setup_guards();
	discover_cpus();
	discover_pmus();
	discover_tracepoints();
	discover_sysctls();
	open_misc();
	if (start_workers()) {
		fprintf(stderr, "perf_fuzz: cannot start the worker threads\n");
		return -1;
	}
	write_header(replay_path);
	return 0;
}

static void fuzz_run(uint64_t max_ops, uint64_t deadline)
{
	uint64_t opno;

	for (opno = 1; !stop_req; opno++) {
		if (max_ops && opno > max_ops)
			break;
		if (deadline && now_ns() >= deadline)
			break;
		main_step(opno);
		st_ops++;
	}
}

int main(int argc, char **argv)
{
	const char *replay_path = NULL;
	bool seed_given = false;
	uint64_t max_ops = 0, start, deadline = 0;
	double secs = -1, elapsed;
	FILE *rf = NULL;
	int opt, restore;
	char *end;

	while ((opt = getopt(argc, argv, "s:t:n:l:r:x:qh")) != -1) {
		switch (opt) {
		case 's':
			g_seed = strtoull(optarg, &end, 0);
			if (*end)
				usage(2);
			seed_given = true;
			break;
		case 't':
			secs = strtod(optarg, &end);
			if (*end || secs < 0)
				usage(2);
			break;
		case 'n':
			max_ops = strtoull(optarg, &end, 0);
			if (*end)
				usage(2);
			break;
		case 'l':
			log_path = optarg;
			break;
		case 'r':
			replay_path = optarg;
			break;
		case 'x':
			if (parse_disabled(optarg))
				usage(2);
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			usage(0);
		default:
			usage(2);
		}
	}
	if (optind < argc)
		usage(2);

	page_size = sysconf(_SC_PAGESIZE);
	main_pid = getpid();
	if (replay_path) {
		rf = open_replay(replay_path);
		if (!rf) {
			fprintf(stderr, "perf_fuzz: %s: %s\n", replay_path, strerror(errno));
			return 1;
		}
		replaying = true;
		replay_read_header(rf, seed_given);
	} else if (!seed_given) {
		g_seed = mix64(now_ns() ^ ((uint64_t)main_pid << 32));
	}
	if (geteuid())
		fprintf(stderr, "perf_fuzz: not root: expect EACCES and no hotplug/sysctls\n");
	if (setup(replay_path))
		return 1;
	if (!quiet) {
		printf("perf_fuzz: seed=0x%llx log=%s%s%s\n", (unsigned long long)g_seed,
		       log_path, replaying ? " replaying " : "", replaying ? replay_path : "");
		fflush(stdout);
	}

	if (secs < 0)
		secs = replaying ? 0 : 60;
	start = now_ns();
	if (secs > 0)
		deadline = start + (uint64_t)(secs * 1e9);
	if (replaying) {
		replay_map_misc();
		replay_run(rf, max_ops, deadline);
		fclose(rf);
	} else {
		fuzz_run(max_ops, deadline);
	}
	elapsed = (double)(now_ns() - start) / 1e9;

	restore = cleanup();
	log_header("# end ops=%lu secs=%.1f restore=%s", st_ops, elapsed,
		   restore ? "FAILED" : "ok");
	print_summary(elapsed, restore);
	if (!quiet)
		print_log_tail();
	fflush(stdout);
	return restore ? 1 : 0;
}
