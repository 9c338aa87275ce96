/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Declarations shared by the files of the perf core.  Nothing here is
 * visible outside kernel/events/.
 *
 * Lock order, outermost first, in short (the full list, with the other
 * subsystems' locks in it, is at the top of context.c):
 *   task->perf_event_mutex
 *     task ctx->mutex            (a parent's before its child's)
 *       cpu_hotplug_lock
 *         CPU ctx->mutex
 *           event->child_mutex
 *             event->mmap_mutex
 *   cpuctx->ctx.lock             (raw, interrupts off)
 *     task ctx->lock             (raw)
 */
#ifndef _KERNEL_EVENTS_INTERNAL_H
#define _KERNEL_EVENTS_INTERNAL_H

#include <linux/perf_event.h>
#include <linux/pid_namespace.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/task_work.h>

static inline bool arch_perf_have_user_stack_dump(void)
{
	return IS_ENABLED(CONFIG_HAVE_PERF_USER_STACK_DUMP);
}

/* ctx->is_active bits and the "which groups" argument of scheduling. */
enum event_type_t {
	EVENT_FLEXIBLE	= 0x01,
	EVENT_PINNED	= 0x02,
	EVENT_TIME	= 0x04,
	EVENT_ALL	= EVENT_FLEXIBLE | EVENT_PINNED,
};

/* ctx->task of a context whose task has exited. */
#define TASK_TOMBSTONE ((void *)-1L)

/* Flags of perf_remove_from_context(). */
#define DETACH_GROUP	0x01	/* break the group up too */
#define DETACH_CHILD	0x02	/* an inherited event: unlink from parent */
#define DETACH_EXIT	0x04	/* the task exited: state EXIT */
#define DETACH_DEAD	0x08	/* the event is being freed: state DEAD */

/* attach_state bit private to the core: counted in perf_sched_events. */
#define PERF_ATTACH_SCHED_EVENTS	0x10000
/* attach_state bit private to the core: counted in the side-band counters. */
#define PERF_ATTACH_ACCOUNTED		0x20000
/* attach_state bit private to the core: enabled before a move of context. */
#define PERF_ATTACH_MOVE_ENABLED	0x80000
/* attach_state bit private to the core: allocated whole (tracepoints). */
#define PERF_ATTACH_WHOLE		0x100000

DECLARE_PER_CPU(struct perf_cpu_context, perf_cpu_context);

/**
 * struct perf_buffer - a ring buffer (see ring_buffer.c)
 * @refcount: events pointing at it, plus temporary users
 * @rcu_head: deferred freeing
 * @nr_pages: data pages, 0 or a power of two
 * @overwrite: user space does not move data_tail (read-only mapping)
 * @paused: PERF_EVENT_IOC_PAUSE_OUTPUT
 * @poll: poll bits not yet reported
 * @head: where the next record goes (bytes claimed, ever)
 * @published: the head last stored in the control page's data_head
 * @nest: writers inside the buffer now, on any CPU and at any nesting
 * @events: records since the last wakeup_events wakeup
 * @wakeup: bumped for every wakeup due; writers compare snapshots
 * @lost: records dropped since the last PERF_RECORD_LOST
 * @watermark: bytes between wakeups
 * @event_lock: guards @event_list
 * @event_list: events writing to this buffer
 * @mmap_count: mappings of the buffer
 * @mmap_locked: pages charged to the mapping mm's pinned_vm
 * @mmap_user: the user charged for the rest
 * @user_page: the control page
 * @pages: the control page, then the data pages
 */
struct perf_buffer {
	refcount_t			refcount;
	struct rcu_head			rcu_head;
	int				nr_pages;
	int				overwrite;
	int				paused;
	atomic_t			poll;
	atomic_long_t			head;
	atomic_long_t			published;
	atomic_t			nest;
	atomic_long_t			events;
	atomic_long_t			wakeup;
	atomic_long_t			lost;
	long				watermark;
	spinlock_t			event_lock;	/* guards event_list */
	struct list_head		event_list;	/* perf_overflow_state.rb_entry */
	atomic_t			mmap_count;
	unsigned long			mmap_locked;
	struct user_struct		*mmap_user;
	struct perf_event_mmap_page	*user_page;

	/* The AUX area (aux.c); aux_nr_pages is 0 without one. */
	struct mutex			aux_mutex;	/* maps and unmaps it */
	atomic_t			aux_mmap_count;
	refcount_t			aux_refcount;
	unsigned long			aux_mmap_locked;
	pgoff_t				aux_pgoff;
	int				aux_nr_pages;
	bool				aux_overwrite;
	int				aux_nest;	/* a writer is in */
	unsigned long			aux_head;
	unsigned long			aux_wakeup;
	unsigned long			aux_watermark;
	void				**aux_pages;
	void				*aux_priv;	/* the PMU's */
	void				(*free_aux)(void *aux);

	struct page			*pages[];
};

static inline bool rb_has_aux(struct perf_buffer *rb)
{
	return !!rb->aux_nr_pages;
}

static inline unsigned long perf_data_size(struct perf_buffer *rb)
{
	return (unsigned long)rb->nr_pages << PAGE_SHIFT;
}

/*
 * Whether an original can have inherited copies, and so has the part of
 * struct perf_event that keeps them and their folded-in totals.
 */
static inline bool perf_event_can_have_copies(struct perf_event *event)
{
	return event->attr.inherit;
}

/*
 * Times folded in from exited copies: only an inheritable original has
 * them (a copy has no original-only tail, see struct perf_event).
 */
static inline u64 perf_child_time_enabled(struct perf_event *event)
{
	if (event->parent || !perf_event_can_have_copies(event))
		return 0;
	return atomic64_read(&event->child_total_time_enabled);
}

static inline u64 perf_child_time_running(struct perf_event *event)
{
	if (event->parent || !perf_event_can_have_copies(event))
		return 0;
	return atomic64_read(&event->child_total_time_running);
}

/*
 * Records of @event lost; only an event with overflow state loses any.
 * A counting original may get its state (a buffer being mapped) while
 * it is read.
 */
static inline u64 perf_event_lost_samples(struct perf_event *event)
{
	struct perf_overflow_state *ov = READ_ONCE(event->ov);

	return ov ? atomic64_read(&ov->lost_samples) : 0;
}

/* Only the original event of inherited copies has fasync state. */
static inline struct fasync_struct **perf_event_fasync(struct perf_event *event)
{
	return event->parent ? &event->parent->fasync : &event->fasync;
}

/*
 * The pid and tid of @p as @event's pid namespace sees them (-1 once @p
 * is reaped); the usual case, the initial namespace, without a walk of
 * the pid's namespace levels.
 */
static __always_inline u32 perf_event_pid(struct perf_event *event,
					  struct task_struct *p)
{
	if (!pid_alive(p))
		return -1;
	if (event->ns == &init_pid_ns)
		return task_tgid_nr(p);
	return task_tgid_nr_ns(p, event->ns);
}

static __always_inline u32 perf_event_tid(struct perf_event *event,
					  struct task_struct *p)
{
	if (!pid_alive(p))
		return -1;
	if (event->ns == &init_pid_ns)
		return task_pid_nr(p);
	return task_pid_nr_ns(p, event->ns);
}

/* aux.c */
struct page *perf_aux_page(struct perf_buffer *rb, unsigned long pgoff);
int perf_aux_mmap(struct perf_event *event, struct vm_area_struct *vma);
void perf_aux_unmap(struct perf_event *event, struct perf_buffer *rb,
		    struct vm_area_struct *vma);
void perf_aux_vma_open(struct perf_buffer *rb, struct vm_area_struct *vma);
void perf_event_aux_event(struct perf_event *event, unsigned long head,
			  unsigned long size, u64 flags);
void perf_event_itrace_start(struct perf_event *event);

/* ring_buffer.c */
int perf_rb_charge(struct vm_area_struct *vma, unsigned long pages,
		   unsigned long *user_part, unsigned long *pinned_part);
void perf_output_wakeup(struct perf_output_handle *handle);
bool perf_rb_has_room(unsigned long head, unsigned long tail,
		      unsigned long size, unsigned int len, bool backward);
struct perf_buffer *ring_buffer_get(struct perf_event *event);
void ring_buffer_put(struct perf_buffer *rb);
void ring_buffer_attach(struct perf_event *event, struct perf_buffer *rb);
void perf_event_rb_detach(struct perf_event *event);
int perf_mmap(struct file *file, struct vm_area_struct *vma);
int perf_event_set_output(struct perf_event *event, struct perf_event *output);
int perf_event_pause_output(struct perf_event *event, bool pause);
__poll_t perf_rb_poll(struct perf_event *event);
int perf_output_begin_forward(struct perf_output_handle *handle,
			      struct perf_sample_data *data,
			      struct perf_event *event, unsigned int size);
int perf_output_begin_backward(struct perf_output_handle *handle,
			       struct perf_sample_data *data,
			       struct perf_event *event, unsigned int size);
unsigned int perf_output_copy_fn(struct perf_output_handle *handle,
				 perf_copy_f copy, const void *src,
				 unsigned int len);
unsigned int perf_output_copy_user(struct perf_output_handle *handle,
				   const void __user *ubuf, unsigned int len);

/* pmu.c */
extern struct srcu_struct pmus_srcu;
struct pmu *perf_init_event(struct perf_event *event);
void perf_pmu_put(struct pmu *pmu);
void perf_pmus_cpu_up(unsigned int cpu);
void perf_pmus_cpu_down(unsigned int cpu);

/* scope.c */
const struct cpumask *perf_scope_cpus(unsigned int scope, int cpu);
const struct cpumask *perf_scope_readers(unsigned int scope);
void perf_scope_boot_cpu(unsigned int cpu);
void perf_scope_cpu_up(unsigned int cpu);
void perf_scope_cpu_down(unsigned int cpu, int to[PERF_PMU_MAX_SCOPE]);
int perf_scope_event_init(struct perf_event *event);

/* event.c */
void perf_event_cache_init(void);
int perf_event_get_overflow_state(struct perf_event *event);
struct perf_event *perf_event_alloc(struct perf_event_attr *attr, int cpu,
				    struct task_struct *task,
				    struct perf_event *group_leader,
				    struct perf_event *parent_event,
				    perf_overflow_handler_t overflow_handler,
				    void *context);
void free_event(struct perf_event *event);
void put_event(struct perf_event *event);
bool perf_event_get_ref(struct perf_event *event);
u64 perf_event_primary_id(struct perf_event *event);
void perf_event_set_owner(struct perf_event *event, struct task_struct *owner);
void perf_event_drop_owner(struct perf_event *event);
void perf_event_wakeup(struct perf_event *event);
void perf_event_compute_sizes(struct perf_event *event);
bool perf_event_validate_size(struct perf_event *event);

/* syscall.c */
struct perf_event *perf_event_create_counter(struct perf_event_attr *attr,
					     int cpu, struct task_struct *task,
					     struct perf_event *group_leader,
					     perf_overflow_handler_t handler,
					     void *context);

/* context.c */
typedef void (*event_fn_t)(struct perf_event *event,
			   struct perf_cpu_context *cpuctx,
			   struct perf_event_context *ctx, void *data);

struct perf_event_context *alloc_perf_context(struct task_struct *task);
struct list_head *perf_group_list(struct perf_event *event);
void get_ctx(struct perf_event_context *ctx);
void put_ctx(struct perf_event_context *ctx);
struct perf_event_context *find_get_context(struct task_struct *task, int cpu);
struct perf_event_pmu_context *find_get_pmu_context(struct pmu *pmu,
						    struct perf_event_context *ctx,
						    int cpu, bool task_data);
void perf_cpu_context_init(int cpu);
void perf_cpu_pmu_context_init(struct perf_cpu_pmu_context *cpc,
			       struct pmu *pmu, int cpu);
void put_pmu_ctx(struct perf_event_pmu_context *epc);
struct perf_event_pmu_context *perf_ctx_pmu_context(struct perf_event_context *ctx,
						    struct pmu *pmu);
struct perf_event_context *perf_event_ctx_lock_nested(struct perf_event *event,
						      int nesting);
void perf_event_ctx_unlock(struct perf_event *event,
			   struct perf_event_context *ctx);
void event_function_call(struct perf_event *event, event_fn_t fn, void *data);
void event_function_local(struct perf_event *event, event_fn_t fn, void *data);
void perf_ctx_lock(struct perf_cpu_context *cpuctx,
		   struct perf_event_context *ctx);
void perf_ctx_unlock(struct perf_cpu_context *cpuctx,
		     struct perf_event_context *ctx);
void perf_group_move(struct perf_event *leader,
		     struct perf_event_pmu_context *epc);
void perf_install_group_current(struct perf_event_context *ctx,
				struct perf_event **events, int nr);
void perf_install_in_context(struct perf_event_context *ctx,
			     struct perf_event *event, int cpu);
void perf_remove_from_context(struct perf_event *event, unsigned long flags);
void list_add_event(struct perf_event *event, struct perf_event_context *ctx);
void perf_ctx_remove_all(struct perf_cpu_context *cpuctx,
			 struct perf_event_context *ctx);
void perf_group_attach(struct perf_event *event);

static inline struct perf_event_context *
perf_event_ctx_lock(struct perf_event *event)
{
	return perf_event_ctx_lock_nested(event, 0);
}

static inline struct perf_cpu_pmu_context *
this_cpc(struct pmu *pmu)
{
	return this_cpu_ptr(pmu->cpu_pmu_context);
}

/* The clock of event times and of records' time fields. */
static inline u64 perf_clock(void)
{
	return local_clock();
}

/* cgroup.c */

/* How many group lists perf_group_iter merges at once. */
#define PERF_GROUP_ITER_LISTS	8

/*
 * A walk of the groups of one sub-context that may run on this CPU: its
 * own list, merged in group_seq order with, for a task context, the list
 * of its groups bound to this CPU, or for a CPU context, those of the
 * cgroups from the running task's up to the root (perf_group_iter_start(),
 * _next()).
 */
struct perf_group_iter {
	struct perf_event_pmu_context	*epc;
	struct cgroup_subsys_state	*next_css;	/* levels not merged yet */
	int				kind;		/* 0 pinned, 1 flexible */
	int				nr;
	struct list_head		*head[PERF_GROUP_ITER_LISTS];
	struct list_head		*pos[PERF_GROUP_ITER_LISTS];
};

bool perf_group_iter_start(struct perf_group_iter *it,
			   struct perf_event_pmu_context *epc, bool pinned);
struct perf_event *perf_group_iter_next(struct perf_group_iter *it);

/* cgroup.c */

#ifdef CONFIG_CGROUP_PERF
struct list_head *perf_cgroup_group_list(struct perf_event *event);
bool perf_cgroup_iter_start(struct perf_group_iter *it,
			    struct perf_event_pmu_context *epc, bool pinned);
void perf_cgroup_iter_fill(struct perf_group_iter *it);
void perf_cgroup_update_time(struct perf_event_context *ctx, u64 now);
u64 perf_cgroup_event_time(struct perf_event *event);
u64 perf_cgroup_event_time_now(struct perf_event *event, u64 now);
bool perf_cgroup_match(struct perf_event *event);
void perf_cgroup_event_add(struct perf_event *event, struct perf_event_context *ctx);
void perf_cgroup_event_del(struct perf_event *event, struct perf_event_context *ctx);
void perf_cgroup_switch(struct task_struct *next);
int perf_cgroup_connect(int fd, struct perf_event *event, struct perf_event *leader);
void perf_cgroup_detach(struct perf_event *event);
u64 perf_cgroup_sample_id(void);

static inline bool perf_event_has_cgroup(struct perf_event *event)
{
	return event->cgrp;
}
#else
static inline bool perf_event_has_cgroup(struct perf_event *event)
{
	return false;
}

static inline void perf_cgroup_update_time(struct perf_event_context *ctx, u64 now) { }
static inline u64 perf_cgroup_event_time(struct perf_event *event)
{
	return 0;
}

static inline u64 perf_cgroup_event_time_now(struct perf_event *event, u64 now)
{
	return 0;
}

static inline bool perf_cgroup_match(struct perf_event *event)
{
	return true;
}

static inline void perf_cgroup_event_add(struct perf_event *event,
					 struct perf_event_context *ctx) { }
static inline void perf_cgroup_event_del(struct perf_event *event,
					 struct perf_event_context *ctx) { }
static inline int perf_cgroup_connect(int fd, struct perf_event *event,
				      struct perf_event *leader)
{
	return -EINVAL;
}

static inline void perf_cgroup_detach(struct perf_event *event) { }
static inline u64 perf_cgroup_sample_id(void)
{
	return 0;
}

static inline struct list_head *perf_cgroup_group_list(struct perf_event *event)
{
	return NULL;
}

static inline bool perf_cgroup_iter_start(struct perf_group_iter *it,
					  struct perf_event_pmu_context *epc,
					  bool pinned)
{
	return false;
}

static inline void perf_cgroup_iter_fill(struct perf_group_iter *it) { }
#endif

/* A leader joining the end of its group list gets the next group_seq. */
static inline void perf_group_seq_next(struct perf_event *leader)
{
	leader->group_seq = ++leader->ctx->group_seq;
}

/**
 * perf_event_time - the clock an event's totals are measured in
 * @event: the event
 *
 * The context's time, or for a cgroup event its cgroup's time on its CPU.
 */
static inline u64 perf_event_time(struct perf_event *event)
{
	struct perf_event_context *ctx = event->ctx;

	if (perf_event_has_cgroup(event))
		return perf_cgroup_event_time(event);
	return ctx ? ctx->time : 0;
}

/*
 * perf_event_update_userpage() for the scheduling paths, where most events
 * have no buffer: only the pointer is looked at then.  A buffer attached
 * after the look is refreshed by perf_mmap() itself, once attached.
 */
static inline void perf_update_userpage_if_mapped(struct perf_event *event)
{
	if (READ_ONCE(event->rb))
		perf_event_update_userpage(event);
}

/* sched.c */
void update_context_time(struct perf_event_context *ctx);
void perf_event_update_time(struct perf_event *event);
void perf_event_set_state(struct perf_event *event, enum perf_event_state state);
bool event_filter_match(struct perf_event *event);
void ctx_sched_out(struct perf_event_context *ctx, struct pmu *pmu,
		   enum event_type_t event_type);
void ctx_sched_in(struct perf_event_context *ctx, struct pmu *pmu,
		  enum event_type_t event_type);
void perf_ctx_resched(struct perf_cpu_context *cpuctx,
		      struct perf_event_context *task_ctx, struct pmu *pmu,
		      enum event_type_t event_type);
void perf_ctx_activate(struct perf_cpu_context *cpuctx,
		       struct perf_event_context *ctx);
void perf_ctx_deactivate(struct perf_cpu_context *cpuctx,
			 struct perf_event_context *ctx);
void event_sched_out(struct perf_event *event,
		     struct perf_event_pmu_context *epc);
void group_sched_out(struct perf_event *group,
		     struct perf_event_pmu_context *epc);
int group_sched_in_now(struct perf_event *group,
		       struct perf_event_pmu_context *epc);
void perf_event_sched_in_live(struct perf_event *event,
			      struct perf_cpu_context *cpuctx,
			      struct perf_event_context *ctx);
void perf_sched_events_inc(void);
void perf_sched_events_dec(void);
void perf_sched_cb_init_cpu(int cpu);
void perf_event_enable_on_exec_ctx(struct perf_event_context *ctx);
void __perf_event_disable(struct perf_event *event,
			  struct perf_cpu_context *cpuctx,
			  struct perf_event_context *ctx, void *data);
void _perf_event_enable(struct perf_event *event);
void _perf_event_disable(struct perf_event *event);
void _perf_event_reset(struct perf_event *event);
int _perf_event_refresh(struct perf_event *event, int refresh);
int _perf_event_period(struct perf_event *event, u64 value);
void pmu_ctx_sched_out(struct perf_event_pmu_context *epc,
		       enum event_type_t event_type);
void pmu_groups_sched_in(struct perf_event_pmu_context *epc, bool pinned);

/* rotate.c */
bool perf_rotate_context(struct perf_cpu_pmu_context *cpc);
void perf_mux_hrtimer_init(struct perf_cpu_pmu_context *cpc, struct pmu *pmu,
			   int cpu);
void perf_mux_hrtimer_restart(struct perf_cpu_pmu_context *cpc);
void perf_mux_hrtimer_cancel(struct perf_cpu_pmu_context *cpc);
int perf_mux_interval_set(struct pmu *pmu, int ms);

/* sideband.c */
extern atomic_t perf_nr_mmap_events, perf_nr_comm_events, perf_nr_task_events;
extern atomic_t perf_nr_namespaces_events, perf_nr_switch_events;
extern atomic_t perf_nr_ksymbol_events, perf_nr_text_poke_events;
extern atomic_t perf_nr_build_id_events, perf_nr_bpf_events;
void perf_event_account_sb(struct perf_event *event, bool in);
bool perf_event_wants_sb(struct perf_event *event);
void perf_event_task_record(struct task_struct *task,
			    struct perf_event_context *ctx, bool fork);
void perf_event_switch_record(struct task_struct *other, bool in);
#ifdef CONFIG_CGROUP_PERF
void perf_event_cgroup_record(struct cgroup *cgrp);
#endif

/* output.c */
void perf_event_compute_header_sizes(struct perf_event *event);
u64 perf_event_clock(struct perf_event *event);
void perf_event_header__init_id(struct perf_event_header *header,
				struct perf_sample_data *data,
				struct perf_event *event);
void perf_event__output_id_sample(struct perf_event *event,
				  struct perf_output_handle *handle,
				  struct perf_sample_data *data);
void perf_event_header__init(struct perf_event_header *header,
			     struct perf_sample_data *data, u32 type, u16 misc,
			     u16 size, struct perf_event *event);
void perf_event_fixed_record(struct perf_event *event,
			     struct perf_event_header *rec);
void perf_event_read_record(struct perf_event *event, struct task_struct *task);

/* overflow.c */
extern atomic_t perf_nr_sampling_events;
extern int perf_max_samples_per_tick;
u64 perf_sample_period_for(u64 count, u64 nsec, u64 freq);
u64 perf_filter_period(u64 cur, u64 target);
void perf_event_unthrottle(struct perf_event *event, bool start);
int __perf_event_overflow(struct perf_event *event, bool throttle,
			  struct perf_sample_data *data, struct pt_regs *regs);
void perf_event_tick_one(struct perf_event *event);
bool perf_event_throttled(struct perf_event *event);

/* read.c */
u64 perf_event_count(struct perf_event *event);
void perf_event_times_now(struct perf_event *event, u64 now, u64 *enabled,
			  u64 *running);
void perf_event_read(struct perf_event *event, bool group);
ssize_t perf_read_event(struct perf_event *event, u64 *values, size_t count);
ssize_t perf_read_event_unlocked(struct perf_event *event, char __user *buf,
				 size_t count);
void perf_event_sync_child(struct perf_event *child);

/* inherit.c */
struct perf_event *perf_inherit_event(struct perf_event *orig, int state,
				      bool enable_on_exec,
				      struct task_struct *child,
				      struct perf_event *child_leader,
				      struct perf_event_context *child_ctx,
				      bool attach);
void perf_event_exit_event(struct perf_event *event,
			   struct perf_event_context *ctx, unsigned long flags);
void perf_free_event_children(struct perf_event *event);

/* The state a copy of @event starts in: enabled or not, nothing else. */
static inline int perf_copy_state(struct perf_event *event)
{
	return event->state >= PERF_EVENT_STATE_INACTIVE ?
	       PERF_EVENT_STATE_INACTIVE : PERF_EVENT_STATE_OFF;
}

/* Whether a fork with @clone_flags copies the group of @leader. */
static inline bool perf_event_inherits_to(struct perf_event *leader,
					  u64 clone_flags)
{
	if (!leader->attr.inherit)
		return false;
	if (leader->attr.inherit_thread && !(clone_flags & CLONE_THREAD))
		return false;
	if (leader->attr.sigtrap && (clone_flags & CLONE_CLEAR_SIGHAND))
		return false;
	return true;
}

/* lazy.c */
int perf_lazy_count(struct perf_event_context *parent_ctx, u64 clone_flags,
		    int cpu);
int perf_lazy_alloc(struct perf_event_context *ctx, int n);
void perf_lazy_free(struct perf_event_context *ctx);
void perf_lazy_defer_group(struct perf_event *leader,
			   struct perf_event_context *child_ctx);
int perf_lazy_inherit_slots(struct perf_event_context *parent_ctx,
			    u64 clone_flags, struct task_struct *child,
			    struct perf_event_context **child_ctx, int cpu);
void perf_lazy_arrive(struct perf_event_context *ctx);
void perf_lazy_exec(struct perf_event_context *ctx);
void perf_lazy_exit(struct perf_event_context *ctx, struct task_struct *task);
void perf_lazy_set_state(struct perf_event *orig, int state);
void perf_lazy_release(struct perf_event *orig);
bool perf_lazy_waiting(struct perf_event *orig);
/* What writes one event's side-band record: sideband.c's walk calls it. */
typedef void (*perf_sb_output_t)(struct perf_event *event, void *data);
void perf_lazy_sb_walk(struct perf_event_context *ctx, perf_sb_output_t fn,
		       void *data);

/* software.c */
void perf_swevent_init_cpu(unsigned int cpu);
void perf_swevent_count(struct perf_event *event, u64 nr,
			struct perf_sample_data *data, struct pt_regs *regs);
void perf_swevent_register(void);

/* tracepoint.c */
#ifdef CONFIG_EVENT_TRACING
void perf_tp_register(void);
int perf_tp_set_filter(struct perf_event *event, char *filter);
void perf_tp_free_filter(struct perf_event *event);
void perf_tp_start(struct perf_event *event, int flags);
void perf_tp_stop(struct perf_event *event, int flags);
void perf_tp_read(struct perf_event *event);
#else
static inline void perf_tp_register(void) { }
static inline int perf_tp_set_filter(struct perf_event *event, char *filter)
{
	return -EINVAL;
}

static inline void perf_tp_free_filter(struct perf_event *event) { }
#endif

/* probe.c */
#if defined(CONFIG_KPROBE_EVENTS) || defined(CONFIG_UPROBE_EVENTS)
bool perf_probe_event(struct perf_event *event);
void perf_probe_register(void);
#else
static inline bool perf_probe_event(struct perf_event *event)
{
	return false;
}

static inline void perf_probe_register(void) { }
#endif

/* bpf.c */
#ifdef CONFIG_BPF_SYSCALL
int perf_event_bpf_attach(struct perf_event *event, struct bpf_prog *prog,
			  u64 cookie);
void perf_bpf_inherit(struct perf_event *child, struct perf_event *parent);
bool perf_bpf_overflow(struct perf_event *event, struct perf_sample_data *data,
		       struct pt_regs *regs);
#else
static inline void perf_bpf_inherit(struct perf_event *child,
				    struct perf_event *parent) { }
static inline bool perf_bpf_overflow(struct perf_event *event,
				     struct perf_sample_data *data,
				     struct pt_regs *regs)
{
	return true;
}
#endif
/* Also declared in trace_events.h, for kernel/bpf. */
void perf_event_free_bpf_prog(struct perf_event *event);

static inline void perf_event_drop_bpf(struct perf_event *event)
{
	if (IS_ENABLED(CONFIG_BPF_SYSCALL) && event->prog)
		perf_event_free_bpf_prog(event);
}

/* sysctl.c */
#define DEFAULT_MAX_SAMPLE_RATE		100000
extern int perf_sample_allowed_ns;
void perf_sample_limits_reset(int rate);

/* test_pmu.c */
#ifdef CONFIG_PERF_EVENTS_TEST_PMU
void perf_test_pmu_register(void);
int perf_test_pmu_type(void);
void perf_test_aux_register(void);
#else
static inline void perf_test_pmu_register(void) { }
static inline void perf_test_aux_register(void) { }
#endif

#endif /* _KERNEL_EVENTS_INTERNAL_H */
