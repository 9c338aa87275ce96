/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Performance events: the in-kernel interface.
 *
 * This header is what the rest of the kernel sees of the perf core: the
 * event and context objects, the PMU driver interface (struct pmu), the
 * hooks the scheduler, fork, exit, exec and the fault paths call, and the
 * helpers PMU drivers use.  Names and meanings follow the interface every
 * other subsystem of Linux 6.12 was written against; the layout of the
 * objects below is this implementation's own.
 *
 * Object model, in brief:
 *
 *  - struct perf_event is one counter, created by perf_event_open(2) or by
 *    the kernel (perf_event_create_kernel_counter()).  Events form groups: a
 *    leader and its siblings are scheduled onto their PMU together or not
 *    at all.
 *  - struct perf_event_context holds the events of one task, or of one CPU.
 *    A task has at most one context (task_struct::perf_event_ctxp); each CPU
 *    has one, embedded in its struct perf_cpu_context.
 *  - struct perf_event_pmu_context is the part of a context that belongs to
 *    one PMU: its group lists and what of them is currently on the PMU.
 *    Software events that join a hardware group live in the hardware PMU's
 *    sub-context, so a group never spans two sub-contexts.
 *
 * Locking is described at the top of kernel/events/context.c.
 */
#ifndef _LINUX_PERF_EVENT_H
#define _LINUX_PERF_EVENT_H

#include <uapi/linux/perf_event.h>
#include <uapi/linux/bpf_perf_event.h>

#ifdef CONFIG_PERF_EVENTS
# include <asm/perf_event.h>
# include <asm/local64.h>
#endif

#define PERF_GUEST_ACTIVE	0x01
#define PERF_GUEST_USER		0x02

/* Callbacks a hypervisor registers so samples can tell guest from host. */
struct perf_guest_info_callbacks {
	unsigned int	(*state)(void);
	unsigned long	(*get_ip)(void);
	unsigned int	(*handle_intel_pt_intr)(void);
};

#ifdef CONFIG_HAVE_HW_BREAKPOINT
#include <linux/rhashtable-types.h>
#include <asm/hw_breakpoint.h>
#endif

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rculist.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <linux/hrtimer.h>
#include <linux/fs.h>
#include <linux/pid_namespace.h>
#include <linux/workqueue.h>
#include <linux/ftrace.h>
#include <linux/cpu.h>
#include <linux/irq_work.h>
#include <linux/static_key.h>
#include <linux/jump_label_ratelimit.h>
#include <linux/atomic.h>
#include <linux/sysfs.h>
#include <linux/perf_regs.h>
#include <linux/cgroup.h>
#include <linux/refcount.h>
#include <linux/security.h>
#include <linux/static_call.h>
#include <linux/lockdep.h>
#include <asm/local.h>

/* A captured call chain; ip[] holds up to perf_event_max_stack entries. */
struct perf_callchain_entry {
	__u64	nr;
	__u64	ip[];
};

/* Cursor used while an unwinder fills a perf_callchain_entry. */
struct perf_callchain_entry_ctx {
	struct perf_callchain_entry	*entry;
	u32				max_stack;
	u32				nr;
	short				contexts;
	bool				contexts_maxed;
};

typedef unsigned long (*perf_copy_f)(void *dst, const void *src,
				     unsigned long off, unsigned long len);

/*
 * PERF_SAMPLE_RAW payload, possibly in several fragments.  In the last
 * fragment @pad (shared with @next) holds the padding to a u64 boundary,
 * which is always smaller than a pointer value can be.
 */
struct perf_raw_frag {
	union {
		struct perf_raw_frag	*next;
		unsigned long		pad;
	};
	perf_copy_f	copy;
	void		*data;
	u32		size;
} __packed;

struct perf_raw_record {
	struct perf_raw_frag	frag;
	u32			size;
};

static __always_inline bool perf_raw_frag_last(const struct perf_raw_frag *frag)
{
	return frag->pad < sizeof(u64);
}

/* Branch records as the hardware reported them; hw_idx is optional. */
struct perf_branch_stack {
	__u64				nr;
	__u64				hw_idx;
	struct perf_branch_entry	entries[];
};

struct task_struct;

/* An additional MSR a hardware event needs programmed (x86 drivers). */
struct hw_perf_event_extra {
	u64		config;
	unsigned int	reg;
	int		alloc;
	int		idx;
};

/* Bits of hw_perf_event::flags that belong to the architecture driver. */
#define PERF_EVENT_FLAG_ARCH			0x000fffff
/* User space reads this counter itself (rdpmc). */
#define PERF_EVENT_FLAG_USER_READ_CNT		0x80000000

static_assert((PERF_EVENT_FLAG_USER_READ_CNT & PERF_EVENT_FLAG_ARCH) == 0);

/*
 * State a PMU driver keeps in each event.  The union holds what one kind of
 * PMU needs; the members after it are shared by every PMU and by the core.
 */
struct hw_perf_event {
#ifdef CONFIG_PERF_EVENTS
	union {
		struct {	/* counter hardware */
			u64		config;
			u64		last_tag;
			unsigned long	config_base;
			unsigned long	event_base;
			int		event_base_rdpmc;
			int		idx;
			int		last_cpu;
			int		flags;
			struct hw_perf_event_extra extra_reg;
			struct hw_perf_event_extra branch_reg;
		};
		struct {	/* AUX area tracers */
			u64		aux_config;
			unsigned int	aux_paused;
		};
		struct {	/* software clocks */
			struct hrtimer	hrtimer;
		};
		struct {	/* tracepoints */
			struct list_head	tp_list;
		};
		struct {	/* AMD power */
			u64	pwr_acc;
			u64	ptsc;
		};
#ifdef CONFIG_HAVE_HW_BREAKPOINT
		struct {	/* debug registers */
			struct arch_hw_breakpoint	info;
			struct rhlist_head		bp_list;
		};
#endif
		struct {	/* AMD IOMMU */
			u8	iommu_bank;
			u8	iommu_cntr;
			u16	padding;
			u64	conf;
			u64	conf1;
		};
	};
	/* The task a per-task event watches; NULL for CPU-wide events. */
	struct task_struct		*target;

	void				*addr_filters;
	unsigned long			addr_filters_gen;

/* hw_perf_event::state bits, owned by the PMU driver */
#define PERF_HES_STOPPED	0x01	/* not counting */
#define PERF_HES_UPTODATE	0x02	/* event->count reflects the hardware */
#define PERF_HES_ARCH		0x04

	int				state;
	local64_t			prev_count;
	u64				sample_period;
	union {
		struct {
			u64		last_period;
			local64_t	period_left;
		};
		struct {
			u64		saved_metric;
			u64		saved_slots;
		};
	};
	u64				interrupts_seq;
	u64				interrupts;
	u64				freq_time_stamp;
	u64				freq_count_stamp;
#endif
};

struct perf_event;
struct perf_event_pmu_context;

/* Transaction kinds for pmu::start_txn(). */
#define PERF_PMU_TXN_ADD  0x1
#define PERF_PMU_TXN_READ 0x2

/* pmu::capabilities */
#define PERF_PMU_CAP_NO_INTERRUPT		0x0001
#define PERF_PMU_CAP_NO_NMI			0x0002
#define PERF_PMU_CAP_AUX_NO_SG			0x0004
#define PERF_PMU_CAP_EXTENDED_REGS		0x0008
#define PERF_PMU_CAP_EXCLUSIVE			0x0010
#define PERF_PMU_CAP_ITRACE			0x0020
#define PERF_PMU_CAP_NO_EXCLUDE			0x0040
#define PERF_PMU_CAP_AUX_OUTPUT			0x0080
#define PERF_PMU_CAP_EXTENDED_HW_TYPE		0x0100
#define PERF_PMU_CAP_AUX_PAUSE			0x0200
#define PERF_PMU_CAP_AUX_PREFER_LARGE		0x0400

/* What a CPU-wide event of a PMU really covers. */
enum perf_pmu_scope {
	PERF_PMU_SCOPE_NONE	= 0,
	PERF_PMU_SCOPE_CORE,
	PERF_PMU_SCOPE_DIE,
	PERF_PMU_SCOPE_CLUSTER,
	PERF_PMU_SCOPE_PKG,
	PERF_PMU_SCOPE_SYS_WIDE,
	PERF_PMU_MAX_SCOPE,
};

struct perf_output_handle;

/* pmu::dev value for a PMU that wants no sysfs device. */
#define PMU_NULL_DEV	((void *)(~0UL))

/**
 * struct pmu - a source of events, as a driver describes it to the core
 *
 * The core calls add/del/start/stop/read with interrupts disabled, on the
 * CPU the event counts on.  event_init runs in process context and may
 * sleep; it returns -ENOENT when the event is not for this PMU.
 */
struct pmu {
	struct list_head		entry;

	struct module			*module;
	struct device			*dev;
	struct device			*parent;
	const struct attribute_group	**attr_groups;
	const struct attribute_group	**attr_update;
	const char			*name;
	int				type;

	int				capabilities;
	unsigned int			scope;

	int __percpu			*pmu_disable_count;
	struct perf_cpu_pmu_context __percpu *cpu_pmu_context;
	atomic_t			exclusive_cnt;
	int				task_ctx_nr;
	int				hrtimer_interval_ms;

	unsigned int			nr_addr_filters;

	void (*pmu_enable)(struct pmu *pmu);
	void (*pmu_disable)(struct pmu *pmu);

	int (*event_init)(struct perf_event *event);

	void (*event_mapped)(struct perf_event *event, struct mm_struct *mm);
	void (*event_unmapped)(struct perf_event *event, struct mm_struct *mm);

/* flags of add(), del(), start() and stop() */
#define PERF_EF_START	0x01	/* add(): begin counting at once */
#define PERF_EF_RELOAD	0x02	/* start(): reprogram the period first */
#define PERF_EF_UPDATE	0x04	/* stop(): fold the hardware value into count */
#define PERF_EF_PAUSE	0x08	/* AUX: pause tracing */
#define PERF_EF_RESUME	0x10	/* AUX: resume tracing */

	int  (*add)(struct perf_event *event, int flags);
	void (*del)(struct perf_event *event, int flags);
	void (*start)(struct perf_event *event, int flags);
	void (*stop)(struct perf_event *event, int flags);
	void (*read)(struct perf_event *event);

	void (*start_txn)(struct pmu *pmu, unsigned int txn_flags);
	int  (*commit_txn)(struct pmu *pmu);
	void (*cancel_txn)(struct pmu *pmu);

	int (*event_idx)(struct perf_event *event);

	void (*sched_task)(struct perf_event_pmu_context *pmu_ctx,
			   struct task_struct *task, bool sched_in);
	struct kmem_cache		*task_ctx_cache;
	void (*swap_task_ctx)(struct perf_event_pmu_context *prev_epc,
			      struct perf_event_pmu_context *next_epc);

	void *(*setup_aux)(struct perf_event *event, void **pages,
			   int nr_pages, bool overwrite);
	void (*free_aux)(void *aux);
	long (*snapshot_aux)(struct perf_event *event,
			     struct perf_output_handle *handle,
			     unsigned long size);

	int (*addr_filters_validate)(struct list_head *filters);
	void (*addr_filters_sync)(struct perf_event *event);

	int (*aux_output_match)(struct perf_event *event);

	bool (*filter)(struct pmu *pmu, int cpu);

	int (*check_period)(struct perf_event *event, u64 value);
};

enum perf_addr_filter_action_t {
	PERF_ADDR_FILTER_ACTION_STOP = 0,
	PERF_ADDR_FILTER_ACTION_START,
	PERF_ADDR_FILTER_ACTION_FILTER,
};

struct perf_addr_filter {
	struct list_head	entry;
	struct path		path;
	unsigned long		offset;
	unsigned long		size;
	enum perf_addr_filter_action_t	action;
};

struct perf_addr_filters_head {
	struct list_head	list;
	raw_spinlock_t		lock;
	unsigned int		nr_file_filters;
};

struct perf_addr_filter_range {
	unsigned long		start;
	unsigned long		size;
};

/*
 * Life of an event.  Ordered: every state at or above INACTIVE is
 * "enabled" (time_enabled runs), ACTIVE is "on the PMU" (time_running
 * runs too).
 *
 *  DEAD      released; only the last references remain
 *  EXIT      the watched task exited; the count is final
 *  ERROR     a pinned group that could not get onto its PMU
 *  OFF       disabled by the user
 *  INACTIVE  enabled, waiting for its context or for PMU room
 *  ACTIVE    counting on a PMU
 */
enum perf_event_state {
	PERF_EVENT_STATE_DEAD		= -4,
	PERF_EVENT_STATE_EXIT		= -3,
	PERF_EVENT_STATE_ERROR		= -2,
	PERF_EVENT_STATE_OFF		= -1,
	PERF_EVENT_STATE_INACTIVE	=  0,
	PERF_EVENT_STATE_ACTIVE		=  1,
};

struct file;
struct perf_sample_data;

typedef void (*perf_overflow_handler_t)(struct perf_event *, struct perf_sample_data *,
					struct pt_regs *);

/* event_caps / group_caps */
#define PERF_EV_CAP_SOFTWARE		BIT(0)
#define PERF_EV_CAP_READ_ACTIVE_PKG	BIT(1)
#define PERF_EV_CAP_SIBLING		BIT(2)
#define PERF_EV_CAP_READ_SCOPE		BIT(3)

/* perf_event::attach_state */
#define PERF_ATTACH_CONTEXT	0x0001
#define PERF_ATTACH_GROUP	0x0002
#define PERF_ATTACH_TASK	0x0004
#define PERF_ATTACH_TASK_DATA	0x0008
#define PERF_ATTACH_ITRACE	0x0010
#define PERF_ATTACH_SCHED_CB	0x0020
#define PERF_ATTACH_CHILD	0x0040
#define PERF_ATTACH_EXCLUSIVE	0x0080
#define PERF_ATTACH_CALLCHAIN	0x0100

struct bpf_prog;
struct perf_cgroup;
struct perf_buffer;

/* An always-empty list: what a sibling has in the way of siblings. */
extern struct list_head perf_no_siblings;

/*
 * Walk the siblings of a group leader (nothing for a sibling).  The
 * sibling list is stable under the context's mutex, or under its lock.
 */
#define for_each_sibling_event(sibling, event)				\
	list_for_each_entry((sibling), (event)->group_leader == (event) ?	\
			    &(event)->sibling_list : &perf_no_siblings, sibling_list)

struct perf_lazy_copies;

/**
 * struct perf_overflow_state - what an event needs to act on overflows
 * @event: the event it belongs to
 * @pending_wakeup: pollers to wake from @pending_irq
 * @pending_kill: the SIGIO band to send with the wakeup, or 0
 * @pending_work: @pending_task is queued
 * @event_limit: overflows left before a disable (PERF_EVENT_IOC_REFRESH)
 * @pending_addr: the address @pending_task's SIGTRAP reports
 * @pending_irq: wakeups asked for where nobody can be woken (NMI)
 * @pending_disable_irq: a disable asked for in an overflow
 * @pending_task: the synchronous signal of a sigtrap event
 * @lost_samples: records of the event lost (PERF_FORMAT_LOST)
 * @mmap_count: mappings of the event's buffer made through it
 * @rb_entry: link in the buffer's event_list, while one is attached
 *
 * Sampling events and tracepoint events carry it at the end of their
 * own allocation.  A counting original gets one, allocated apart, when a
 * ring buffer is first attached to it (it wakes the buffer's readers);
 * a counting copy never has one.  Set before the event can overflow or
 * write records, it stays until the event is freed; without it an event
 * has lost nothing and maps nothing.
 */
struct perf_overflow_state {
	struct perf_event		*event;
	unsigned int			pending_wakeup;
	unsigned int			pending_kill;
	unsigned int			pending_work;
	atomic_t			event_limit;
	unsigned long			pending_addr;
	struct irq_work			pending_irq;
	struct irq_work			pending_disable_irq;
	struct callback_head		pending_task;
	atomic64_t			lost_samples;
	atomic_t			mmap_count;
	struct list_head		rb_entry;
};

/**
 * struct perf_event - one performance counter
 *
 * Fields are grouped by who changes them:
 *  - set at creation and constant afterwards: attr, pmu, cpu, id, parent,
 *    clock, overflow_handler, destroy;
 *  - protected by the owning context's lock (and its mutex for membership):
 *    state, the list heads, group_leader, nr_siblings, the time fields;
 *  - updated by the PMU on the event's CPU: count, hw;
 *  - protected by child_mutex: child_list and the child_* totals' readers.
 */
struct perf_event {
#ifdef CONFIG_PERF_EVENTS
	struct list_head		event_entry;	/* ctx->event_list */
	struct list_head		group_entry;	/* pmu_ctx or cgroup group list */
	u64				group_seq;	/* leader: order among groups */
	struct list_head		sibling_list;	/* leader: siblings; sibling: link */
	struct list_head		active_list;	/* pmu_ctx active list */

	struct hlist_node		hlist_entry;	/* software event hash */
	int				nr_siblings;

	int				event_caps;
	int				group_caps;

	unsigned int			group_generation;
	struct perf_event		*group_leader;
	struct pmu			*pmu;
	void				*pmu_private;

	enum perf_event_state		state;
	unsigned int			attach_state;
	local64_t			count;
	atomic64_t			child_count;

	/* Time accounting: totals up to @tstamp, in context time. */
	u64				total_time_enabled;
	u64				total_time_running;
	u64				tstamp;

	struct perf_event_attr		attr;
	u16				header_size;
	u16				id_header_size;
	u16				read_size;
	u8				shape;		/* how it was allocated */
	struct hw_perf_event		hw;

	struct perf_event_context	*ctx;
	struct perf_event_pmu_context	*pmu_ctx;
	atomic_long_t			refcount;

	struct list_head		child_entry;	/* child: link in parent */
	struct perf_event		*parent;

	int				oncpu;
	int				cpu;

	struct perf_buffer		*rb;

	void (*destroy)(struct perf_event *event);
	struct rcu_head			rcu_head;

	struct pid_namespace		*ns;
	u64				id;

	u64				(*clock)(void);
	perf_overflow_handler_t		overflow_handler;
	void				*overflow_handler_context;
	struct bpf_prog			*prog;
	u64				bpf_cookie;

#ifdef CONFIG_EVENT_TRACING
	struct trace_event_call		*tp_event;
	struct event_filter		*filter;
#endif

#ifdef CONFIG_SECURITY
	void				*security;
#endif
#ifdef CONFIG_CGROUP_PERF
	struct perf_cgroup		*cgrp;		/* counts only in it */
#endif

	unsigned int			pending_disable;
	__u32				orig_type;
	struct perf_overflow_state	*ov;		/* or NULL: see its type */

	/*
	 * What only an original event (one user space or a kernel user
	 * opened) has.  Inherited copies are allocated without this tail
	 * (perf_event_alloc(); a tracepoint event's copy has it, unused):
	 * their owner, buffer, pollers, fasync and children are their
	 * original's.  Nothing here may be touched through a copy.
	 */
	struct list_head		owner_entry;	/* first of the tail */
	struct task_struct		*owner;

	struct mutex			mmap_mutex;	/* guards rb, ov, ov->mmap_count */

	wait_queue_head_t		waitq;
	struct fasync_struct		*fasync;

	struct list_head		migrate_entry;
	struct list_head		active_entry;	/* CPU-wide PMUs' own use */

	/*
	 * Only an original that can have copies (attr.inherit) has this
	 * part (and every tracepoint event, allocated whole): others stop
	 * before it, so nothing here may be touched through an event
	 * without attr.inherit (perf_event_can_have_copies()).
	 */
	/* Counts and times folded in from children that have exited. */
	atomic64_t			child_total_time_enabled;	/* first of the part */
	atomic64_t			child_total_time_running;
	struct mutex			child_mutex;	/* guards child_list, lazy_list */
	struct list_head		child_list;	/* live children */
	struct list_head		lazy_list;	/* children yet to copy it */

#if defined(CONFIG_EVENT_TRACING) && defined(CONFIG_FUNCTION_TRACER)
	/*
	 * Tracepoint events only, originals and copies: the function
	 * tracepoint hands this to ftrace, which finds the event again by
	 * container_of().  Events of other types are allocated without it,
	 * and a tracepoint event's copy is allocated whole for it.
	 */
	struct ftrace_ops		ftrace_ops;
#endif
#endif /* CONFIG_PERF_EVENTS */
};

/**
 * struct perf_cpu_groups - a task sub-context's groups bound to one CPU
 * @groups: their leaders, pinned ([0]) and flexible ([1]), in group_seq order
 */
struct perf_cpu_groups {
	struct list_head		groups[2];
};

/**
 * struct perf_event_pmu_context - the part of a context that one PMU owns
 *
 * Group leaders sit on @pinned_groups or @flexible_groups in creation
 * order (multiplexing moves the first flexible one to the end); those
 * currently on the PMU are also on the matching active list.  The groups
 * of cgroup events sit on their cgroup's lists instead (struct
 * perf_cgroup_info), so that a context switch looks only at the groups of
 * the cgroups of the task that runs; in a task context, groups bound to
 * one CPU sit on that CPU's lists in @cpu_groups (allocated with the
 * first such group; without it they stay on the sub-context's own lists),
 * so that a switch looks only at those that may run there.  group_seq
 * orders all the lists a switch walks as one.  @cpu_groups is set once,
 * with the context's mutex and lock held (or before the context is
 * published, at fork), read under either, and freed with the sub-context.
 * A CPU context's sub-contexts are embedded in struct perf_cpu_pmu_context
 * and never freed; a task context's are allocated on demand and freed with
 * their last event.  @task_ctx_data is the PMU's state of the task (from
 * its task_ctx_cache, for the events that ask with PERF_ATTACH_TASK_DATA:
 * a saved branch call stack), set like @cpu_groups and given to the PMU's
 * sched_task() and swap_task_ctx().
 */
struct perf_event_pmu_context {
	struct pmu			*pmu;
	struct perf_event_context	*ctx;

	struct list_head		pmu_ctx_entry;

	struct list_head		pinned_groups;
	struct list_head		flexible_groups;
	struct list_head		pinned_active;
	struct list_head		flexible_active;
	struct perf_cpu_groups		*cpu_groups;	/* task context, by CPU */
	void				*task_ctx_data;	/* task context, PMU's */

	unsigned int			embedded : 1;

	unsigned int			nr_events;
	atomic_t			refcount;
	int				rotate_necessary;
#ifdef CONFIG_CGROUP_PERF
	unsigned int			nr_cgroups;	/* events with a cgroup */
#endif
};

static inline bool perf_pmu_ctx_is_active(struct perf_event_pmu_context *epc)
{
	return !list_empty(&epc->flexible_active) || !list_empty(&epc->pinned_active);
}

/**
 * struct perf_event_context - the events of one task or one CPU
 *
 * @time advances only while the context is scheduled in (for a task: while
 * the task runs; for a CPU: while the CPU is online), so time_enabled of a
 * task's events is the time the task ran while they were enabled.
 */
struct perf_event_context {
	raw_spinlock_t			lock;	/* see kernel/events/context.c */
	struct mutex			mutex;	/* membership changes */

	struct list_head		pmu_ctx_list;
	struct list_head		event_list;	/* side-band events first */

	int				nr_events;
	int				nr_freq;	/* of them in frequency mode */
	int				is_active;
	int				rotate_disable;	/* fork is copying its groups */
#ifdef CONFIG_CGROUP_PERF
	int				nr_cgroups;	/* CPU context: cgroup events */
#endif
	u64				group_seq;	/* last group_seq handed out */

	refcount_t			refcount;
	struct task_struct		*task;

	u64				time;
	u64				timestamp;
	struct perf_lazy_copies		*lazy;	/* task: groups copied on arrival */
	struct rcu_head			rcu_head;
};

/* Per CPU and PMU: the CPU context's sub-context and the multiplexing timer. */
struct perf_cpu_pmu_context {
	struct perf_event_pmu_context	epc;

	struct list_head		sched_cb_entry;
	int				sched_cb_usage;

	int				active_oncpu;
	int				exclusive;

	raw_spinlock_t			hrtimer_lock;
	struct hrtimer			hrtimer;
	ktime_t				hrtimer_interval;
	unsigned int			hrtimer_active;
};

/* Per CPU: its own context and the task context running on it. */
struct perf_cpu_context {
	struct perf_event_context	ctx;
	struct perf_event_context	*task_ctx;
	int				online;

#ifdef CONFIG_CGROUP_PERF
	struct perf_cgroup		*cgrp;	/* current's, while ctx has cgroup events */
#endif
};

#ifdef CONFIG_CGROUP_PERF
/**
 * struct perf_cgroup_info - a cgroup's clock on one CPU
 * @time: nanoseconds a task of the cgroup or of a descendant ran here
 *	while this CPU had cgroup events
 * @timestamp: when @time was last brought up to date
 * @active: the clock runs (the cgroup is on the current task's path)
 * @groups: leaders of the cgroup's groups in this CPU's context, pinned
 *	([0]) and flexible ([1]), of every PMU, in group_seq order
 */
struct perf_cgroup_info {
	u64				time;
	u64				timestamp;
	int				active;
	struct list_head		groups[2];
};

/**
 * struct perf_cgroup - the perf_event controller's state of one cgroup
 * @css: the controller's part of the cgroup
 * @info: the cgroup's clock on each CPU (kernel/events/cgroup.c)
 */
struct perf_cgroup {
	struct cgroup_subsys_state	css;
	struct perf_cgroup_info	__percpu *info;
};

/*
 * The perf cgroup of @task.  Under RCU, or with @ctx's lock held when
 * @task's cgroup cannot change under it (a context switch).
 */
static inline struct perf_cgroup *
perf_cgroup_from_task(struct task_struct *task, struct perf_event_context *ctx)
{
	return container_of(task_css_check(task, perf_event_cgrp_id,
					   ctx ? lockdep_is_held(&ctx->lock) : true),
			    struct perf_cgroup, css);
}
#endif /* CONFIG_CGROUP_PERF */

struct perf_output_handle {
	struct perf_event		*event;
	struct perf_buffer		*rb;
	unsigned long			wakeup;
	unsigned long			size;
	union {
		u64			flags;
		u64			aux_flags;
		struct {
			u64		skip_read : 1;
		};
	};
	union {
		void			*addr;
		unsigned long		head;
	};
	int				page;
};

struct bpf_perf_event_data_kern {
	bpf_user_pt_regs_t		*regs;
	struct perf_sample_data		*data;
	struct perf_event		*event;
};

#ifdef CONFIG_PERF_EVENTS

/*
 * What a PMU driver or the core gathered for one sample.  sample_flags says
 * which members are filled; perf_prepare_sample() fills the rest that the
 * event's sample_type asks for.
 */
struct perf_sample_data {
	u64				sample_flags;
	u64				period;
	u64				dyn_size;

	u64				type;
	struct {
		u32	pid;
		u32	tid;
	}				tid_entry;
	u64				time;
	u64				id;
	struct {
		u32	cpu;
		u32	reserved;
	}				cpu_entry;

	u64				ip;
	struct perf_callchain_entry	*callchain;
	struct perf_raw_record		*raw;
	struct perf_branch_stack	*br_stack;
	u64				*br_stack_cntr;
	union perf_sample_weight	weight;
	union perf_mem_data_src		data_src;
	u64				txn;

	struct perf_regs		regs_user;
	struct perf_regs		regs_intr;
	u64				stack_user_size;

	u64				stream_id;
	u64				cgroup;
	u64				addr;
	u64				phys_addr;
	u64				data_page_size;
	u64				code_page_size;
	u64				aux_size;
} ____cacheline_aligned;

/* A data source that says "not available" in every field. */
#define PERF_MEM_NA (PERF_MEM_S(OP, NA) | PERF_MEM_S(LVL, NA) |		\
		     PERF_MEM_S(SNOOP, NA) | PERF_MEM_S(LOCK, NA) |	\
		     PERF_MEM_S(TLB, NA) | PERF_MEM_S(LVLNUM, NA))

static inline void perf_sample_data_init(struct perf_sample_data *data,
					 u64 addr, u64 period)
{
	data->period = period;
	data->dyn_size = 0;
	data->sample_flags = PERF_SAMPLE_PERIOD;
	if (!addr)
		return;
	data->addr = addr;
	data->sample_flags |= PERF_SAMPLE_ADDR;
}

/**
 * perf_sample_save_raw_data - make a raw record part of a sample
 * @data: the sample
 * @event: the event; nothing happens unless it samples PERF_SAMPLE_RAW
 * @raw: the record: its fragments' data, size and next (or copy) set;
 *	the total size and the last fragment's padding are set here
 */
static inline void perf_sample_save_raw_data(struct perf_sample_data *data,
					     struct perf_event *event,
					     struct perf_raw_record *raw)
{
	struct perf_raw_frag *frag = &raw->frag;
	u32 bytes = frag->size;

	if (!(event->attr.sample_type & PERF_SAMPLE_RAW))
		return;
	while (!perf_raw_frag_last(frag)) {
		frag = frag->next;
		bytes += frag->size;
	}
	/* The u32 size field and the bytes together fill whole u64s. */
	raw->size = round_up(bytes + sizeof(u32), sizeof(u64)) - sizeof(u32);
	frag->pad = raw->size - bytes;
	data->raw = raw;
	data->dyn_size += raw->size + sizeof(u32);
	data->sample_flags |= PERF_SAMPLE_RAW;
}

/* Bytes of the sample record @data will make for @event. */
static inline u32 perf_sample_data_size(struct perf_sample_data *data,
					struct perf_event *event)
{
	return sizeof(struct perf_event_header) + event->header_size +
	       event->id_header_size + data->dyn_size;
}

void perf_prepare_sample(struct perf_sample_data *data, struct perf_event *event,
			 struct pt_regs *regs);
void perf_prepare_header(struct perf_event_header *header, struct perf_sample_data *data,
			 struct perf_event *event, struct pt_regs *regs);
void perf_output_sample(struct perf_output_handle *handle, struct perf_event_header *header,
			struct perf_sample_data *data, struct perf_event *event);

int perf_pmu_register(struct pmu *pmu, const char *name, int type);
void perf_pmu_unregister(struct pmu *pmu);

void __perf_event_task_sched_in(struct task_struct *prev, struct task_struct *task);
void __perf_event_task_sched_out(struct task_struct *prev, struct task_struct *next);
int perf_event_init_task(struct task_struct *child, u64 clone_flags);
void perf_event_exit_task(struct task_struct *child);
void perf_event_free_task(struct task_struct *task);
void perf_event_delayed_put(struct task_struct *task);
struct file *perf_event_get(unsigned int fd);
const struct perf_event *perf_get_event(struct file *file);
const struct perf_event_attr *perf_event_attrs(struct perf_event *event);
void perf_event_print_debug(void);
void perf_pmu_disable(struct pmu *pmu);
void perf_pmu_enable(struct pmu *pmu);
void perf_sched_cb_dec(struct pmu *pmu);
void perf_sched_cb_inc(struct pmu *pmu);
int perf_event_task_disable(void);
int perf_event_task_enable(void);
void perf_pmu_resched(struct pmu *pmu);
int perf_event_refresh(struct perf_event *event, int refresh);
void perf_event_update_userpage(struct perf_event *event);
void perf_event_update_userpage_offset(struct perf_event *event);
int perf_event_release_kernel(struct perf_event *event);
struct perf_event *
perf_event_create_kernel_counter(struct perf_event_attr *attr, int cpu, struct task_struct *task,
				 perf_overflow_handler_t callback, void *context);
void perf_pmu_migrate_context(struct pmu *pmu, int src_cpu, int dst_cpu);
int perf_event_read_local(struct perf_event *event, u64 *value, u64 *enabled, u64 *running);
u64 perf_event_read_value(struct perf_event *event, u64 *enabled, u64 *running);

struct perf_callchain_entry *perf_callchain(struct perf_event *event, struct pt_regs *regs);

int
perf_event_overflow(struct perf_event *ev, struct perf_sample_data *sd, struct pt_regs *regs);
void
perf_event_output_forward(struct perf_event *ev, struct perf_sample_data *sd, struct pt_regs *regs);
void
perf_event_output_backward(struct perf_event *ev, struct perf_sample_data *sd,
			   struct pt_regs *regs);
int
perf_event_output(struct perf_event *ev, struct perf_sample_data *sd, struct pt_regs *regs);

static inline bool is_default_overflow_handler(struct perf_event *event)
{
	perf_overflow_handler_t h = event->overflow_handler;

	return h == perf_event_output_forward || h == perf_event_output_backward;
}

static inline bool event_has_any_exclude_flag(struct perf_event *event)
{
	struct perf_event_attr *a = &event->attr;

	return a->exclude_user || a->exclude_kernel || a->exclude_hv ||
	       a->exclude_idle || a->exclude_host || a->exclude_guest;
}

static inline bool is_sampling_event(struct perf_event *event)
{
	return event->attr.sample_period != 0;
}

/* Whether the event's own PMU is a software one (it never fails to add). */
static inline int is_software_event(struct perf_event *event)
{
	return event->event_caps & PERF_EV_CAP_SOFTWARE;
}

/* Whether the event sits in a software PMU's sub-context. */
static inline int in_software_context(struct perf_event *event)
{
	struct pmu *group_pmu = event->pmu_ctx->pmu;

	return group_pmu->task_ctx_nr == perf_sw_context;
}

/* PMUs whose events exclude each other (AUX tracers, mostly). */
static inline int is_exclusive_pmu(struct pmu *pmu)
{
	return !!(pmu->capabilities & PERF_PMU_CAP_EXCLUSIVE);
}

/* Samples carry branch records. */
static inline bool has_branch_stack(struct perf_event *event)
{
	u64 type = event->attr.sample_type;

	return type & PERF_SAMPLE_BRANCH_STACK;
}

/* Branch filtering is asked for, with or without branch samples. */
static inline bool needs_branch_stack(struct perf_event *event)
{
	return !!event->attr.branch_sample_type;
}

/*
 * What the branch filter (attr.branch_sample_type) asks of each record:
 * leave out the flags or the cycles, give each branch's type and
 * privilege level, add the hardware's index of the newest record, count
 * events per branch, or keep a call stack instead of the last branches.
 */
static inline bool perf_branch_filter_asks(const struct perf_event *event,
					   u64 what)
{
	return (event->attr.branch_sample_type & what) != 0;
}

static inline bool branch_sample_no_flags(const struct perf_event *event)
{
	return perf_branch_filter_asks(event, PERF_SAMPLE_BRANCH_NO_FLAGS);
}

static inline bool branch_sample_no_cycles(const struct perf_event *event)
{
	return perf_branch_filter_asks(event, PERF_SAMPLE_BRANCH_NO_CYCLES);
}

static inline bool branch_sample_type(const struct perf_event *event)
{
	return perf_branch_filter_asks(event, PERF_SAMPLE_BRANCH_TYPE_SAVE);
}

static inline bool branch_sample_hw_index(const struct perf_event *event)
{
	return perf_branch_filter_asks(event, PERF_SAMPLE_BRANCH_HW_INDEX);
}

static inline bool branch_sample_priv(const struct perf_event *event)
{
	return perf_branch_filter_asks(event, PERF_SAMPLE_BRANCH_PRIV_SAVE);
}

static inline bool branch_sample_counters(const struct perf_event *event)
{
	return perf_branch_filter_asks(event, PERF_SAMPLE_BRANCH_COUNTERS);
}

static inline bool branch_sample_call_stack(const struct perf_event *event)
{
	return perf_branch_filter_asks(event, PERF_SAMPLE_BRANCH_CALL_STACK);
}

/**
 * perf_clear_branch_entry_bitfields - zero a branch record's flags
 * @br: the record; its addresses are left to the caller
 *
 * Drivers fill records field by field: every flag and the reserved bits
 * start at 0, so that nothing of an earlier record leaks into the sample.
 */
static inline void perf_clear_branch_entry_bitfields(struct perf_branch_entry *br)
{
	br->mispred = 0;
	br->predicted = 0;
	br->in_tx = 0;
	br->abort = 0;
	br->cycles = 0;
	br->type = 0;
	br->spec = 0;
	br->new_type = 0;
	br->priv = 0;
	br->reserved = 0;
}

/**
 * perf_sample_save_brstack - make a branch stack part of a sample
 * @data: the sample
 * @event: the event; it samples PERF_SAMPLE_BRANCH_STACK
 * @brs: the records, newest first, and the hardware's index of the newest
 * @brs_cntr: per record, the counts PERF_SAMPLE_BRANCH_COUNTERS asks for,
 *	or NULL
 *
 * The sample gets the number of records, the index when the filter asks
 * for it (PERF_SAMPLE_BRANCH_HW_INDEX), the records, then the counts.
 * @brs and @brs_cntr must stay as they are until the sample is written.
 */
static inline void perf_sample_save_brstack(struct perf_sample_data *data,
					    struct perf_event *event,
					    struct perf_branch_stack *brs,
					    u64 *brs_cntr)
{
	u32 bytes = sizeof(u64) + brs->nr * sizeof(struct perf_branch_entry);

	if (WARN_ON_ONCE(!has_branch_stack(event)))
		return;
	if (branch_sample_hw_index(event))
		bytes += sizeof(u64);
	if (brs_cntr)
		bytes += brs->nr * sizeof(u64);
	data->br_stack = brs;
	data->br_stack_cntr = brs_cntr;
	data->dyn_size += bytes;
	data->sample_flags |= PERF_SAMPLE_BRANCH_STACK;
}

/* A sample's callchain from @regs, not from its own (a record's) registers. */
static inline void perf_sample_save_callchain(struct perf_sample_data *data,
					      struct perf_event *event,
					      struct pt_regs *regs)
{
	data->callchain = perf_callchain(event, regs);
	data->dyn_size += (1 + data->callchain->nr) * sizeof(u64);
	data->sample_flags |= PERF_SAMPLE_CALLCHAIN;
}

/* The PMU has an AUX area to map. */
static inline bool has_aux(struct perf_event *event)
{
	return !!event->pmu->setup_aux;
}

/* Records go from the end of the buffer towards its start. */
static inline bool is_write_backward(struct perf_event *event)
{
	return event->attr.write_backward != 0;
}

/* The PMU takes address range filters. */
static inline bool has_addr_filter(struct perf_event *event)
{
	return event->pmu->nr_addr_filters > 0;
}

extern struct static_key perf_swevent_enabled[PERF_COUNT_SW_MAX];

void ___perf_sw_event(u32 event_id, u64 nr, struct pt_regs *regs, u64 addr);
void __perf_sw_event(u32 event_id, u64 nr, struct pt_regs *regs, u64 addr);

#ifndef perf_arch_fetch_caller_regs
static inline void perf_arch_fetch_caller_regs(struct pt_regs *regs, unsigned long ip) { }
#endif

/*
 * Software events raised from plain code (not from an exception) have no
 * register frame; make one that describes the caller well enough for the
 * sample's ip, its user/kernel mode and a call chain.  @regs must be zeroed.
 */
static inline void perf_fetch_caller_regs(struct pt_regs *regs)
{
	perf_arch_fetch_caller_regs(regs, CALLER_ADDR0);
}

/* Count a software event; a patched-out branch while nobody listens. */
static __always_inline void
perf_sw_event(u32 id, u64 nr, struct pt_regs *regs, u64 addr)
{
	if (!static_key_false(&perf_swevent_enabled[id]))
		return;
	__perf_sw_event(id, nr, regs, addr);
}

DECLARE_PER_CPU(struct pt_regs, __perf_regs[4]);

/*
 * The scheduler's software events: raised with the runqueue locked and
 * preemption off, so they cannot nest in another software event, and
 * with a register frame made up on the spot (slot 0 of __perf_regs).
 */
static __always_inline void __perf_sw_event_sched(u32 id, u64 nr, u64 addr)
{
	struct pt_regs *frame = this_cpu_ptr(__perf_regs);

	perf_fetch_caller_regs(frame);
	___perf_sw_event(id, nr, frame, addr);
}

/* On while some task context has events: the switch hooks have work. */
extern struct static_key_false perf_sched_events;

static __always_inline bool __perf_sw_enabled(int id)
{
	return static_key_false(perf_swevent_enabled + id);
}

/* The scheduler moved @task: count it when it next runs. */
static inline void perf_event_task_migrate(struct task_struct *task)
{
	if (!__perf_sw_enabled(PERF_COUNT_SW_CPU_MIGRATIONS))
		return;
	task->sched_migrated = 1;
}

/* @task now runs on this CPU, after @prev. */
static inline void perf_event_task_sched_in(struct task_struct *prev,
					    struct task_struct *task)
{
	bool migrated = task->sched_migrated;

	if (static_branch_unlikely(&perf_sched_events))
		__perf_event_task_sched_in(prev, task);
	if (!migrated || !__perf_sw_enabled(PERF_COUNT_SW_CPU_MIGRATIONS))
		return;
	task->sched_migrated = 0;
	__perf_sw_event_sched(PERF_COUNT_SW_CPU_MIGRATIONS, 1, 0);
}

/* @prev leaves this CPU for @next; the switch itself counts for @prev. */
static inline void perf_event_task_sched_out(struct task_struct *prev,
					     struct task_struct *next)
{
	bool hooks = static_branch_unlikely(&perf_sched_events);

	if (__perf_sw_enabled(PERF_COUNT_SW_CONTEXT_SWITCHES))
		__perf_sw_event_sched(PERF_COUNT_SW_CONTEXT_SWITCHES, 1, 0);
#ifdef CONFIG_CGROUP_PERF
	if (__perf_sw_enabled(PERF_COUNT_SW_CGROUP_SWITCHES) &&
	    perf_cgroup_from_task(prev, NULL) != perf_cgroup_from_task(next, NULL))
		__perf_sw_event_sched(PERF_COUNT_SW_CGROUP_SWITCHES, 1, 0);
#endif
	if (hooks)
		__perf_event_task_sched_out(prev, next);
}

void perf_event_mmap(struct vm_area_struct *vma);
void perf_event_ksymbol(u16 ksym_type, u64 addr, u32 len, bool unregister, const char *sym);
void perf_event_bpf_event(struct bpf_prog *prog, enum perf_bpf_event_type type, u16 flags);

#ifdef CONFIG_GUEST_PERF_EVENTS
/* The hypervisor's callbacks (kernel/events/guest.c). */
extern struct perf_guest_info_callbacks __rcu *perf_guest_cbs;
DECLARE_STATIC_KEY_FALSE(perf_guest_cbs_key);

static __always_inline struct perf_guest_info_callbacks *perf_guest_callbacks(void)
{
	if (!static_branch_unlikely(&perf_guest_cbs_key))
		return NULL;
	return rcu_dereference_check(perf_guest_cbs, rcu_read_lock_any_held());
}

/* PERF_GUEST_ACTIVE (| PERF_GUEST_USER) while this CPU runs a guest. */
static __always_inline unsigned int perf_guest_state(void)
{
	struct perf_guest_info_callbacks *cbs = perf_guest_callbacks();

	return cbs ? cbs->state() : 0;
}

/* The guest's IP; only while perf_guest_state() says a guest runs. */
static __always_inline unsigned long perf_guest_get_ip(void)
{
	struct perf_guest_info_callbacks *cbs = perf_guest_callbacks();

	return cbs ? cbs->get_ip() : 0;
}

static __always_inline unsigned int perf_guest_handle_intel_pt_intr(void)
{
	struct perf_guest_info_callbacks *cbs = perf_guest_callbacks();

	return cbs && cbs->handle_intel_pt_intr ? cbs->handle_intel_pt_intr() : 0;
}

void perf_register_guest_info_callbacks(struct perf_guest_info_callbacks *cbs);
void perf_unregister_guest_info_callbacks(struct perf_guest_info_callbacks *cbs);
#else
static inline unsigned int perf_guest_state(void)		{ return 0; }
static inline unsigned long perf_guest_get_ip(void)		{ return 0; }
static inline unsigned int perf_guest_handle_intel_pt_intr(void) { return 0; }
#endif

void perf_event_exec(void);
void perf_event_comm(struct task_struct *tsk, bool exec);
void perf_event_namespaces(struct task_struct *tsk);
void perf_event_fork(struct task_struct *tsk);
void
perf_event_text_poke(const void *addr, const void *old_bytes, size_t old_len, const void *new_bytes,
		     size_t new_len);

DECLARE_PER_CPU(struct perf_callchain_entry, perf_callchain_entry);

void perf_callchain_user(struct perf_callchain_entry_ctx *entry, struct pt_regs *regs);
void perf_callchain_kernel(struct perf_callchain_entry_ctx *entry, struct pt_regs *regs);
struct perf_callchain_entry *
get_perf_callchain(struct pt_regs *regs, bool kernel, bool user, u32 max_stack,
		   bool crosstask, bool add_mark);
int get_callchain_buffers(int max_stack);
void put_callchain_buffers(void);
struct perf_callchain_entry *get_callchain_entry(int *rctx);
void put_callchain_entry(int rctx);

extern int sysctl_perf_event_max_stack;
extern int sysctl_perf_event_max_contexts_per_stack;

/* Append a PERF_CONTEXT_* marker; -1 once the marker budget is used up. */
static __always_inline int
perf_callchain_store_context(struct perf_callchain_entry_ctx *ctx, u64 ip)
{
	if (ctx->contexts >= sysctl_perf_event_max_contexts_per_stack) {
		ctx->contexts_maxed = true;
		return -1;
	}
	ctx->entry->ip[ctx->entry->nr++] = ip;
	ctx->contexts++;
	return 0;
}

/* Append one return address; -1 once the stack budget is used up. */
static __always_inline int perf_callchain_store(struct perf_callchain_entry_ctx *ctx, u64 ip)
{
	if (ctx->nr >= ctx->max_stack || ctx->contexts_maxed)
		return -1;
	ctx->entry->ip[ctx->entry->nr++] = ip;
	ctx->nr++;
	return 0;
}

extern int sysctl_perf_event_paranoid;
extern int sysctl_perf_event_mlock;
extern int sysctl_perf_event_sample_rate;
extern int sysctl_perf_cpu_time_max_percent;

void perf_sample_event_took(u64 sample_len_ns);

int
perf_event_max_sample_rate_handler(const struct ctl_table *tbl, int write, void *buf, size_t *lenp,
				   loff_t *ppos);
int
perf_cpu_time_max_percent_handler(const struct ctl_table *tbl, int write, void *buf, size_t *lenp,
				  loff_t *ppos);
int
perf_event_max_stack_handler(const struct ctl_table *tbl, int write, void *buf, size_t *lenp,
			     loff_t *ppos);

/* Level 3 (a Debian addition): no unprivileged use at all. */
static inline bool perf_paranoid_any(void)
{
	return sysctl_perf_event_paranoid > 2;
}

/* Access classes handed to the security_perf_event_open() hook. */
#define PERF_SECURITY_OPEN		0
#define PERF_SECURITY_CPU		1
#define PERF_SECURITY_KERNEL		2
#define PERF_SECURITY_TRACEPOINT	3

/* Any restriction at all applies to unprivileged users (level >= 0). */
static inline int perf_is_paranoid(void)
{
	return sysctl_perf_event_paranoid >= 0;
}

int perf_allow_kernel(void);

/* CPU-wide events: refused to unprivileged users from level 1. */
static inline int perf_allow_cpu(void)
{
	bool restricted = sysctl_perf_event_paranoid >= 1;

	if (restricted && !perfmon_capable())
		return -EACCES;
	return security_perf_event_open(PERF_SECURITY_CPU);
}

/* Raw tracepoint data: refused to unprivileged users from level 0. */
static inline int perf_allow_tracepoint(void)
{
	bool restricted = sysctl_perf_event_paranoid >= 0;

	if (restricted && !perfmon_capable())
		return -EPERM;
	return security_perf_event_open(PERF_SECURITY_TRACEPOINT);
}

void perf_event_init(void);
void
perf_tp_event(u16 event_type, u64 count, void *record, int entry_size, struct pt_regs *regs,
	      struct hlist_head *head, int rctx, struct task_struct *t);
void perf_bp_event(struct perf_event *event, void *data);

#ifndef perf_misc_flags
# define perf_misc_flags(regs) \
	(user_mode(regs) ? PERF_RECORD_MISC_USER : PERF_RECORD_MISC_KERNEL)
# define perf_instruction_pointer(regs)	instruction_pointer(regs)
#endif
#ifndef perf_user_stack_pointer
# define perf_user_stack_pointer(regs)	user_stack_pointer(regs)
#endif
#ifndef perf_arch_bpf_user_pt_regs
# define perf_arch_bpf_user_pt_regs(regs) regs
#endif

int
perf_output_begin(struct perf_output_handle *h, struct perf_sample_data *sd, struct perf_event *ev,
		  unsigned int size);
void perf_output_end(struct perf_output_handle *handle);
unsigned int
perf_output_copy(struct perf_output_handle *h, const void *buf, unsigned int len);
unsigned int perf_output_skip(struct perf_output_handle *handle, unsigned int len);
int perf_swevent_get_recursion_context(void);
void perf_swevent_put_recursion_context(int rctx);
u64 perf_swevent_set_period(struct perf_event *event);
void perf_event_enable(struct perf_event *event);
void perf_event_disable(struct perf_event *event);
void perf_event_disable_local(struct perf_event *event);
void perf_event_disable_inatomic(struct perf_event *event);
void perf_event_task_tick(void);
int perf_event_account_interrupt(struct perf_event *event);
int perf_event_period(struct perf_event *event, u64 value);
u64 perf_event_pause(struct perf_event *event, bool reset);
void *perf_aux_output_begin(struct perf_output_handle *handle, struct perf_event *event);
void perf_aux_output_end(struct perf_output_handle *handle, unsigned long size);
int perf_aux_output_skip(struct perf_output_handle *handle, unsigned long size);
void *perf_get_aux(struct perf_output_handle *handle);
void perf_aux_output_flag(struct perf_output_handle *handle, u64 flags);
void perf_event_itrace_started(struct perf_event *event);
void perf_report_aux_output_id(struct perf_event *event, u64 hw_id);

#else /* !CONFIG_PERF_EVENTS */

/* Without perf events every hook does nothing and every query fails. */
static inline int perf_event_init_task(struct task_struct *t, u64 flags) { return 0; }
static inline void perf_event_exit_task(struct task_struct *t) { }
static inline void perf_event_free_task(struct task_struct *t) { }
static inline void perf_event_delayed_put(struct task_struct *t) { }
static inline struct file *perf_event_get(unsigned int fd) { return ERR_PTR(-EINVAL); }
static inline const struct perf_event *perf_get_event(struct file *f) { return ERR_PTR(-EINVAL); }
static inline const struct perf_event_attr *perf_event_attrs(struct perf_event *ev)
{ return ERR_PTR(-EINVAL); }
static inline int perf_event_read_local(struct perf_event *ev, u64 *val, u64 *en, u64 *run)
{ return -EINVAL; }
static inline void perf_event_print_debug(void) { }
static inline int perf_event_task_disable(void) { return -EINVAL; }
static inline int perf_event_task_enable(void) { return -EINVAL; }
static inline int perf_event_refresh(struct perf_event *ev, int refresh) { return -EINVAL; }
static inline void perf_sw_event(u32 id, u64 nr, struct pt_regs *regs, u64 addr) { }
static inline void perf_bp_event(struct perf_event *ev, void *data) { }
static inline void perf_event_mmap(struct vm_area_struct *vma) { }
static inline void perf_event_ksymbol(u16 type, u64 addr, u32 len, bool unreg, const char *sym) { }
static inline void perf_event_bpf_event(struct bpf_prog *p, enum perf_bpf_event_type t, u16 f) { }
static inline void perf_event_exec(void) { }
static inline void perf_event_comm(struct task_struct *t, bool exec) { }
static inline void perf_event_namespaces(struct task_struct *t) { }
static inline void perf_event_fork(struct task_struct *t) { }
static inline void perf_event_text_poke(const void *addr, const void *old, size_t old_len,
					const void *new, size_t new_len) { }
static inline void perf_event_init(void) { }
static inline int perf_swevent_get_recursion_context(void) { return -1; }
static inline void perf_swevent_put_recursion_context(int rctx) { }
static inline u64 perf_swevent_set_period(struct perf_event *ev) { return 0; }
static inline void perf_event_enable(struct perf_event *ev) { }
static inline void perf_event_disable(struct perf_event *ev) { }
static inline void perf_event_task_tick(void) { }
static inline int perf_event_release_kernel(struct perf_event *ev) { return 0; }
static inline int perf_event_period(struct perf_event *ev, u64 value) { return -EINVAL; }
static inline u64 perf_event_pause(struct perf_event *ev, bool reset) { return 0; }
static inline void perf_event_task_migrate(struct task_struct *t) { }
static inline void perf_event_task_sched_in(struct task_struct *p, struct task_struct *t) { }
static inline void perf_event_task_sched_out(struct task_struct *p, struct task_struct *n) { }
static inline unsigned int perf_guest_state(void) { return 0; }
static inline unsigned long perf_guest_get_ip(void) { return 0; }
static inline unsigned int perf_guest_handle_intel_pt_intr(void) { return 0; }
#endif /* CONFIG_PERF_EVENTS */

#if defined(CONFIG_PERF_EVENTS) && defined(CONFIG_CPU_SUP_INTEL)
void perf_restore_debug_store(void);
#else
static inline void perf_restore_debug_store(void)			{ }
#endif

#define perf_output_put(handle, x) perf_output_copy((handle), &(x), sizeof(x))

/* A sysfs "events/" entry: either a numeric id or a ready-made string. */
struct perf_pmu_events_attr {
	struct device_attribute	attr;
	u64			id;
	const char		*event_str;
};

ssize_t perf_event_sysfs_show(struct device *dev, struct device_attribute *attr,
			      char *page);

/* Each ends with its semicolon, as upstream's: some callers rely on it. */
#define PMU_EVENT_ATTR(_name, _var, _id, _show)				\
	static struct perf_pmu_events_attr _var = {			\
		.id = _id, .attr = __ATTR(_name, 0444, _show, NULL) };

#define PMU_EVENT_ATTR_STRING(_name, _var, _str)			\
	static struct perf_pmu_events_attr _var = {			\
		.event_str = _str, .id = 0,				\
		.attr = __ATTR(_name, 0444, perf_event_sysfs_show, NULL) };

/* A sysfs "format/" entry: the attr bits a field of an event string maps to. */
#define PMU_FORMAT_ATTR_SHOW(_name, _format)				\
	static ssize_t _name##_show(struct device *dev,			\
				    struct device_attribute *attr,	\
				    char *page)				\
	{								\
		BUILD_BUG_ON(sizeof(_format) >= PAGE_SIZE);		\
		return sysfs_emit(page, "%s\n", _format);		\
	}

#define PMU_FORMAT_ATTR(_name, _format)					\
	PMU_FORMAT_ATTR_SHOW(_name, _format)				\
	static struct device_attribute format_attr_##_name = __ATTR_RO(_name)

#ifdef CONFIG_PERF_EVENTS
int perf_event_init_cpu(unsigned int cpu);
int perf_event_exit_cpu(unsigned int cpu);
#else
#define perf_event_init_cpu	NULL
#define perf_event_exit_cpu	NULL
#endif

void
arch_perf_update_userpage(struct perf_event *ev, struct perf_event_mmap_page *userpg, u64 now);

/* Size of the page mapping @addr (0 if unknown); interrupts off. */
u64 perf_arch_mapped_page_size(struct mm_struct *mm, unsigned long addr);

/*
 * Copies up to @cnt of this CPU's last branch records into @entries and
 * returns how many it copied: bpf_get_branch_snapshot() calls it through
 * the static call, which a PMU driver with a branch stack points at its
 * own function (0 entries otherwise).
 */
typedef int (perf_snapshot_branch_stack_t)(struct perf_branch_entry *entries,
					   unsigned int cnt);
DECLARE_STATIC_CALL(perf_snapshot_branch_stack, perf_snapshot_branch_stack_t);

#ifndef PERF_NEEDS_LOPWR_CB
static inline void perf_lopwr_cb(bool mode)
{
}
#endif

#endif /* _LINUX_PERF_EVENT_H */
