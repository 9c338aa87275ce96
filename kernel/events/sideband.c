// SPDX-License-Identifier: GPL-2.0
/*
 * Side-band records: what happens around the sampled code, for tools that
 * must name what the samples point at (MMAP, MMAP2, COMM, FORK, EXIT,
 * NAMESPACES, SWITCH, KSYMBOL, BPF_EVENT, TEXT_POKE).
 *
 * Which events get them: those of this CPU's context and of the current
 * task's context (or of the exiting task's, for its EXIT) that ask for the
 * kind, are enabled and may count here.  A context keeps the events that
 * ask for any side-band record at the front of its event list
 * (list_add_event()), so a walk stops at the first event that asks for
 * none: its cost follows the side-band events, not all events.  Counters
 * of events asking for each kind let every hook return at once while
 * nobody listens.
 *
 * Context: the hooks run in process context (COMM, MMAP, FORK, EXIT,
 * NAMESPACES, KSYMBOL, BPF_EVENT, TEXT_POKE) or in the context switch with
 * interrupts off (SWITCH).  Whatever needs sleeping (a path name, a build
 * id) is gathered first; then the walk runs with interrupts off, holding
 * this CPU's context lock and the task context's (perf_ctx_lock()), which
 * keep the lists stable while the records are written.
 */
#include <linux/mman.h>
#include <linux/pid_namespace.h>
#include <linux/buildid.h>
#include <linux/hugetlb.h>
#include <linux/proc_ns.h>
#include <linux/sched/mm.h>
#include <linux/dcache.h>
#include <linux/filter.h>
#include <linux/kallsyms.h>

#include "internal.h"

atomic_t perf_nr_mmap_events;
atomic_t perf_nr_comm_events;
atomic_t perf_nr_task_events;
atomic_t perf_nr_namespaces_events;
atomic_t perf_nr_switch_events;
atomic_t perf_nr_ksymbol_events;
atomic_t perf_nr_text_poke_events;
atomic_t perf_nr_build_id_events;
atomic_t perf_nr_bpf_events;
atomic_t perf_nr_cgroup_events;

/* What each kind of side-band record an event asks for adds up to. */
static void sb_account(struct perf_event *event, int delta)
{
	struct perf_event_attr *a = &event->attr;

	if (event->parent)
		return;
	/* As upstream, mmap2 alone does not turn the mmap hook on. */
	if (a->mmap || a->mmap_data)
		atomic_add(delta, &perf_nr_mmap_events);
	if (a->build_id)
		atomic_add(delta, &perf_nr_build_id_events);
	if (a->comm)
		atomic_add(delta, &perf_nr_comm_events);
	if (a->task)
		atomic_add(delta, &perf_nr_task_events);
	if (a->namespaces)
		atomic_add(delta, &perf_nr_namespaces_events);
	if (a->context_switch)
		atomic_add(delta, &perf_nr_switch_events);
	if (a->ksymbol)
		atomic_add(delta, &perf_nr_ksymbol_events);
	if (a->text_poke)
		atomic_add(delta, &perf_nr_text_poke_events);
	if (a->bpf_event)
		atomic_add(delta, &perf_nr_bpf_events);
	if (a->cgroup)
		atomic_add(delta, &perf_nr_cgroup_events);
}

/**
 * perf_event_account_sb - count an event's side-band wishes in or out
 * @event: the event
 * @in: true when it is created, false when it goes
 */
void perf_event_account_sb(struct perf_event *event, bool in)
{
	sb_account(event, in ? 1 : -1);
}

/**
 * perf_event_wants_sb - whether an event asks for any side-band record
 * @event: the event; decided by its attr, fixed at creation
 *
 * Return: true if so.
 */
bool perf_event_wants_sb(struct perf_event *event)
{
	struct perf_event_attr *a = &event->attr;

	return a->mmap || a->mmap2 || a->mmap_data || a->comm || a->task ||
	       a->namespaces || a->context_switch || a->ksymbol ||
	       a->text_poke || a->bpf_event || a->cgroup;
}

/* ---- walking the events that want a side-band record ---- */

static void sb_walk_ctx(struct perf_event_context *ctx, perf_sb_output_t fn,
			void *data)
{
	struct perf_event *event;

	list_for_each_entry(event, &ctx->event_list, event_entry) {
		/* The side-band events come first: the rest want none. */
		if (!perf_event_wants_sb(event))
			break;
		if (event->state < PERF_EVENT_STATE_INACTIVE)
			continue;
		if (!event_filter_match(event))
			continue;
		fn(event, data);
	}
}

/*
 * Offer a record to this CPU's events and the current task's (or only
 * @task_ctx's, for records about a task that is not current's context).
 */
static void perf_iterate_sb(perf_sb_output_t fn, void *data,
			    struct perf_event_context *task_ctx)
{
	struct perf_cpu_context *cpuctx;
	struct perf_event_context *ctx;
	unsigned long flags;

	local_irq_save(flags);
	cpuctx = this_cpu_ptr(&perf_cpu_context);
	ctx = task_ctx ? task_ctx : READ_ONCE(current->perf_event_ctxp);
	if (ctx == &cpuctx->ctx)
		ctx = NULL;
	perf_ctx_lock(cpuctx, ctx);
	if (!task_ctx)
		sb_walk_ctx(&cpuctx->ctx, fn, data);
	if (ctx) {
		sb_walk_ctx(ctx, fn, data);
		/* Copies of this CPU's groups the task has not made yet. */
		perf_lazy_sb_walk(ctx, fn, data);
	}
	perf_ctx_unlock(cpuctx, ctx);
	local_irq_restore(flags);
}

/* ---- FORK and EXIT ---- */

struct task_rec {
	struct task_struct		*task;
	bool				fork;
	struct {
		struct perf_event_header	header;
		u32				pid, ppid;
		u32				tid, ptid;
		u64				time;
	} rec;
};

static void task_output(struct perf_event *event, void *arg)
{
	struct task_rec *tr = arg;
	struct task_struct *t = tr->task;
	struct perf_output_handle handle;
	struct perf_sample_data sample;
	struct perf_event_attr *a = &event->attr;

	if (!(a->comm || a->mmap || a->mmap2 || a->mmap_data || a->task))
		return;

	perf_event_header__init(&tr->rec.header, &sample,
				tr->fork ? PERF_RECORD_FORK : PERF_RECORD_EXIT, 0,
				sizeof(tr->rec), event);
	if (perf_output_begin(&handle, &sample, event, tr->rec.header.size))
		return;
	tr->rec.pid = perf_event_pid(event, t);
	tr->rec.tid = perf_event_tid(event, t);
	if (tr->fork) {
		tr->rec.ppid = perf_event_pid(event, current);
		tr->rec.ptid = perf_event_tid(event, current);
	} else {
		/* As upstream: the parent's pid in both fields. */
		tr->rec.ppid = perf_event_pid(event, t->real_parent);
		tr->rec.ptid = perf_event_pid(event, t->real_parent);
	}
	tr->rec.time = perf_event_clock(event);
	perf_output_put(&handle, tr->rec);
	perf_event__output_id_sample(event, &handle, &sample);
	perf_output_end(&handle);
}

/**
 * perf_event_task_record - a task was created (in the parent) or exits
 * @task: the task
 * @ctx: the exiting task's context, or NULL (the current task's and CPU's)
 * @fork: true for FORK, false for EXIT
 */
void perf_event_task_record(struct task_struct *task,
			    struct perf_event_context *ctx, bool fork)
{
	struct task_rec tr = { .task = task, .fork = fork };

	if (!atomic_read(&perf_nr_task_events) &&
	    !atomic_read(&perf_nr_mmap_events) &&
	    !atomic_read(&perf_nr_comm_events))
		return;
	perf_iterate_sb(task_output, &tr, ctx);
}

/**
 * perf_event_fork - a task was created
 * @task: the new task
 */
void perf_event_fork(struct task_struct *task)
{
	perf_event_task_record(task, NULL, true);
	perf_event_namespaces(task);
}

/* ---- COMM ---- */

struct comm_rec {
	struct task_struct		*task;
	char				*comm;
	int				comm_size;
	bool				exec;
	struct {
		struct perf_event_header	header;
		u32				pid, tid;
	} rec;
};

static void comm_output(struct perf_event *event, void *arg)
{
	struct comm_rec *cr = arg;
	struct perf_output_handle handle;
	struct perf_sample_data sample;

	if (!event->attr.comm)
		return;
	perf_event_header__init(&cr->rec.header, &sample, PERF_RECORD_COMM,
				cr->exec ? PERF_RECORD_MISC_COMM_EXEC : 0,
				sizeof(cr->rec) + cr->comm_size, event);
	if (perf_output_begin(&handle, &sample, event, cr->rec.header.size))
		return;
	cr->rec.pid = perf_event_pid(event, cr->task);
	cr->rec.tid = perf_event_tid(event, cr->task);
	perf_output_put(&handle, cr->rec);
	perf_output_copy(&handle, cr->comm, cr->comm_size);
	perf_event__output_id_sample(event, &handle, &sample);
	perf_output_end(&handle);
}

/**
 * perf_event_comm - a task changed its name
 * @task: the task
 * @exec: whether the change came with an exec
 */
void perf_event_comm(struct task_struct *task, bool exec)
{
	char comm[TASK_COMM_LEN];
	struct comm_rec cr = { .task = task, .comm = comm };

	if (!atomic_read(&perf_nr_comm_events))
		return;
	memset(comm, 0, sizeof(comm));
	strscpy(comm, task->comm, sizeof(comm));
	cr.comm_size = ALIGN(strlen(comm) + 1, sizeof(u64));
	cr.exec = exec;
	perf_iterate_sb(comm_output, &cr, NULL);
}

/* ---- MMAP and MMAP2 ---- */

struct mmap_rec {
	struct vm_area_struct	*vma;
	const char		*name;
	int			name_size;
	u32			maj, min;
	u64			ino, ino_generation;
	u32			prot, flags;
	u8			build_id[BUILD_ID_SIZE_MAX];
	u32			build_id_size;
	struct {
		struct perf_event_header	header;
		u32				pid, tid;
		u64				start, len, pgoff;
	} rec;
};

static bool mmap_wanted(struct perf_event *event, struct vm_area_struct *vma)
{
	if (vma->vm_flags & VM_EXEC)
		return event->attr.mmap || event->attr.mmap2;
	return event->attr.mmap_data;
}

static void mmap_output(struct perf_event *event, void *arg)
{
	struct mmap_rec *mr = arg;
	struct perf_output_handle handle;
	struct perf_sample_data sample;
	u16 misc = PERF_RECORD_MISC_USER;
	u32 type = PERF_RECORD_MMAP;
	int size = sizeof(mr->rec) + mr->name_size;
	bool with_build_id = false;

	if (!mmap_wanted(event, mr->vma))
		return;
	if (event->attr.mmap2) {
		type = PERF_RECORD_MMAP2;
		/* maj, min, ino, ino_generation (or the build id), prot, flags */
		size += 4 + 4 + 8 + 8 + 4 + 4;
		with_build_id = event->attr.build_id && mr->build_id_size;
		if (with_build_id)
			misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
	}
	if (!(mr->vma->vm_flags & VM_EXEC))
		misc |= PERF_RECORD_MISC_MMAP_DATA;

	perf_event_header__init(&mr->rec.header, &sample, type, misc, size, event);
	if (perf_output_begin(&handle, &sample, event, mr->rec.header.size))
		return;
	mr->rec.pid = perf_event_pid(event, current);
	mr->rec.tid = perf_event_tid(event, current);
	perf_output_put(&handle, mr->rec);
	if (event->attr.mmap2) {
		if (with_build_id) {
			u8 hdr[4] = { mr->build_id_size, 0, 0, 0 };

			perf_output_copy(&handle, hdr, sizeof(hdr));
			perf_output_copy(&handle, mr->build_id, BUILD_ID_SIZE_MAX);
		} else {
			perf_output_put(&handle, mr->maj);
			perf_output_put(&handle, mr->min);
			perf_output_put(&handle, mr->ino);
			perf_output_put(&handle, mr->ino_generation);
		}
		perf_output_put(&handle, mr->prot);
		perf_output_put(&handle, mr->flags);
	}
	perf_output_copy(&handle, mr->name, mr->name_size);
	perf_event__output_id_sample(event, &handle, &sample);
	perf_output_end(&handle);
}

/* The name an anonymous mapping is known by. */
static const char *anon_vma_name_of(struct vm_area_struct *vma)
{
	const char *name = NULL;

	if (vma->vm_ops && vma->vm_ops->name)
		name = vma->vm_ops->name(vma);
	if (!name)
		name = arch_vma_name(vma);
	if (name)
		return name;
	if (vma_is_initial_heap(vma))
		return "[heap]";
	if (vma_is_initial_stack(vma))
		return "[stack]";
	return "//anon";
}

/**
 * perf_event_mmap - a mapping was created
 * @vma: the mapping
 */
void perf_event_mmap(struct vm_area_struct *vma)
{
	struct mmap_rec *mr;
	char *buf = NULL, *name;
	char small[16];
	int len;

	if (!atomic_read(&perf_nr_mmap_events))
		return;
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return;
	mr->vma = vma;
	mr->prot = ((vma->vm_flags & VM_READ) ? PROT_READ : 0) |
		   ((vma->vm_flags & VM_WRITE) ? PROT_WRITE : 0) |
		   ((vma->vm_flags & VM_EXEC) ? PROT_EXEC : 0);
	mr->flags = (vma->vm_flags & VM_MAYSHARE) ? MAP_SHARED : MAP_PRIVATE;
	if (vma->vm_flags & VM_LOCKED)
		mr->flags |= MAP_LOCKED;
	if (is_vm_hugetlb_page(vma))
		mr->flags |= MAP_HUGETLB;

	if (vma->vm_file) {
		const struct inode *inode = file_user_inode(vma->vm_file);

		buf = kmalloc(PATH_MAX, GFP_KERNEL);
		name = buf ? d_path(file_user_path(vma->vm_file), buf,
				    PATH_MAX - sizeof(u64)) : ERR_PTR(-ENOMEM);
		if (IS_ERR(name)) {
			strscpy(small, buf ? "//toolong" : "//enomem", sizeof(small));
			name = small;
		} else {
			mr->maj = MAJOR(inode->i_sb->s_dev);
			mr->min = MINOR(inode->i_sb->s_dev);
			mr->ino = inode->i_ino;
			mr->ino_generation = inode->i_generation;
		}
	} else {
		strscpy(small, anon_vma_name_of(vma), sizeof(small));
		name = small;
	}
	/* Zero-padded to a multiple of 8, terminator included. */
	len = strlen(name) + 1;
	while (len % sizeof(u64))
		name[len++] = '\0';
	mr->name = name;
	mr->name_size = len;

	if (atomic_read(&perf_nr_build_id_events))
		build_id_parse_nofault(vma, mr->build_id, &mr->build_id_size);

	mr->rec.start = vma->vm_start;
	mr->rec.len = vma->vm_end - vma->vm_start;
	mr->rec.pgoff = (u64)vma->vm_pgoff << PAGE_SHIFT;
	perf_iterate_sb(mmap_output, mr, NULL);

	kfree(buf);
	kfree(mr);
}

/* ---- NAMESPACES ---- */

struct ns_rec {
	struct task_struct		*task;
	struct {
		struct perf_event_header	header;
		u32				pid, tid;
		u64				nr_namespaces;
		struct perf_ns_link_info	link_info[NR_NAMESPACES];
	} rec;
};

static void ns_output(struct perf_event *event, void *arg)
{
	struct ns_rec *nr = arg;
	struct perf_output_handle handle;
	struct perf_sample_data sample;

	if (!event->attr.namespaces)
		return;
	perf_event_header__init(&nr->rec.header, &sample, PERF_RECORD_NAMESPACES, 0,
				sizeof(nr->rec), event);
	if (perf_output_begin(&handle, &sample, event, nr->rec.header.size))
		return;
	nr->rec.pid = perf_event_pid(event, nr->task);
	nr->rec.tid = perf_event_tid(event, nr->task);
	perf_output_put(&handle, nr->rec);
	perf_event__output_id_sample(event, &handle, &sample);
	perf_output_end(&handle);
}

static void ns_link(struct perf_ns_link_info *info, struct task_struct *task,
		    const struct proc_ns_operations *ops)
{
	struct path path;

	if (ns_get_path(&path, task, ops))
		return;
	info->dev = new_encode_dev(path.dentry->d_sb->s_dev);
	info->ino = path.dentry->d_inode->i_ino;
	path_put(&path);
}

/**
 * perf_event_namespaces - a task's namespaces changed (or it was created)
 * @task: the task
 */
void perf_event_namespaces(struct task_struct *task)
{
	struct ns_rec *nr;

	if (!atomic_read(&perf_nr_namespaces_events))
		return;
	nr = kzalloc(sizeof(*nr), GFP_KERNEL);
	if (!nr)
		return;
	nr->task = task;
	nr->rec.nr_namespaces = NR_NAMESPACES;
	ns_link(&nr->rec.link_info[MNT_NS_INDEX], task, &mntns_operations);
#ifdef CONFIG_USER_NS
	ns_link(&nr->rec.link_info[USER_NS_INDEX], task, &userns_operations);
#endif
#ifdef CONFIG_NET_NS
	ns_link(&nr->rec.link_info[NET_NS_INDEX], task, &netns_operations);
#endif
#ifdef CONFIG_UTS_NS
	ns_link(&nr->rec.link_info[UTS_NS_INDEX], task, &utsns_operations);
#endif
#ifdef CONFIG_IPC_NS
	ns_link(&nr->rec.link_info[IPC_NS_INDEX], task, &ipcns_operations);
#endif
#ifdef CONFIG_PID_NS
	ns_link(&nr->rec.link_info[PID_NS_INDEX], task, &pidns_operations);
#endif
#ifdef CONFIG_CGROUPS
	ns_link(&nr->rec.link_info[CGROUP_NS_INDEX], task, &cgroupns_operations);
#endif
	perf_iterate_sb(ns_output, nr, NULL);
	kfree(nr);
}

/* ---- KSYMBOL ---- */

struct ksymbol_rec {
	const char			*name;
	int				name_size;
	struct {
		struct perf_event_header	header;
		u64				addr;
		u32				len;
		u16				ksym_type;
		u16				flags;
	} rec;
};

static void ksymbol_output(struct perf_event *event, void *arg)
{
	struct ksymbol_rec *kr = arg;
	struct perf_output_handle handle;
	struct perf_sample_data sample;

	if (!event->attr.ksymbol)
		return;
	perf_event_header__init(&kr->rec.header, &sample, PERF_RECORD_KSYMBOL, 0,
				sizeof(kr->rec) + kr->name_size, event);
	if (perf_output_begin(&handle, &sample, event, kr->rec.header.size))
		return;
	perf_output_put(&handle, kr->rec);
	perf_output_copy(&handle, kr->name, kr->name_size);
	perf_event__output_id_sample(event, &handle, &sample);
	perf_output_end(&handle);
}

/**
 * perf_event_ksymbol - a kernel symbol was added or removed
 * @ksym_type: PERF_RECORD_KSYMBOL_TYPE_* (not UNKNOWN)
 * @addr: its address
 * @len: its size
 * @unregister: removed rather than added
 * @sym: its name
 *
 * Code the kernel generates at run time (BPF programs, ftrace and kprobe
 * trampolines) has no place in kallsyms at boot; tools that resolve
 * kernel addresses in samples follow these records instead.
 */
void perf_event_ksymbol(u16 ksym_type, u64 addr, u32 len, bool unregister,
			const char *sym)
{
	char name[KSYM_NAME_LEN];
	struct ksymbol_rec kr = {
		.name = name,
		.rec = {
			.addr = addr,
			.len = len,
			.ksym_type = ksym_type,
			.flags = unregister ? PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER : 0,
		},
	};
	int len_name;

	if (!atomic_read(&perf_nr_ksymbol_events))
		return;
	if (WARN_ONCE(ksym_type == PERF_RECORD_KSYMBOL_TYPE_UNKNOWN ||
		      ksym_type >= PERF_RECORD_KSYMBOL_TYPE_MAX,
		      "perf: KSYMBOL record of unknown type %u\n", ksym_type))
		return;
	/* Zero-padded to a multiple of 8, terminator included. */
	BUILD_BUG_ON(KSYM_NAME_LEN % sizeof(u64));
	len_name = strscpy_pad(name, sym, sizeof(name));
	len_name = len_name < 0 ? sizeof(name) : ALIGN(len_name + 1, sizeof(u64));
	kr.name_size = len_name;
	perf_iterate_sb(ksymbol_output, &kr, NULL);
}

/* ---- CGROUP ---- */

#ifdef CONFIG_CGROUP_PERF
struct cgroup_rec {
	const char			*path;
	int				path_size;
	struct {
		struct perf_event_header	header;
		u64				id;
	} rec;
};

static void cgroup_output(struct perf_event *event, void *arg)
{
	struct cgroup_rec *cr = arg;
	struct perf_output_handle handle;
	struct perf_sample_data sample;

	if (!event->attr.cgroup)
		return;
	perf_event_header__init(&cr->rec.header, &sample, PERF_RECORD_CGROUP, 0,
				sizeof(cr->rec) + cr->path_size, event);
	if (perf_output_begin(&handle, &sample, event, cr->rec.header.size))
		return;
	perf_output_put(&handle, cr->rec);
	perf_output_copy(&handle, cr->path, cr->path_size);
	perf_event__output_id_sample(event, &handle, &sample);
	perf_output_end(&handle);
}

/**
 * perf_event_cgroup_record - a cgroup came online: PERF_RECORD_CGROUP
 * @cgrp: the cgroup
 *
 * Tells the events with attr.cgroup the id that PERF_SAMPLE_CGROUP will
 * give for @cgrp, and its path.  Process context.
 */
void perf_event_cgroup_record(struct cgroup *cgrp)
{
	/* What upstream reports when it has no memory for the path. */
	static const char no_mem[16] = "//enomem";
	struct cgroup_rec cr = { .rec.id = cgroup_id(cgrp) };
	char *path;

	if (!atomic_read(&perf_nr_cgroup_events))
		return;
	/* Zero-padded to a multiple of 8, terminator included. */
	path = kzalloc(PATH_MAX, GFP_KERNEL);
	if (path) {
		cgroup_path(cgrp, path, PATH_MAX - sizeof(u64));
		cr.path = path;
		cr.path_size = ALIGN(strlen(path) + 1, sizeof(u64));
	} else {
		cr.path = no_mem;
		cr.path_size = sizeof(no_mem);
	}
	perf_iterate_sb(cgroup_output, &cr, NULL);
	kfree(path);
}
#endif

/* ---- BPF_EVENT ---- */

struct bpf_rec {
	struct {
		struct perf_event_header	header;
		u16				type;
		u16				flags;
		u32				id;
		u8				tag[BPF_TAG_SIZE];
	} rec;
};

static void bpf_rec_output(struct perf_event *event, void *arg)
{
	struct bpf_rec *br = arg;
	struct perf_output_handle handle;
	struct perf_sample_data sample;

	if (!event->attr.bpf_event)
		return;
	perf_event_header__init(&br->rec.header, &sample, PERF_RECORD_BPF_EVENT,
				0, sizeof(br->rec), event);
	if (perf_output_begin(&handle, &sample, event, br->rec.header.size))
		return;
	perf_output_put(&handle, br->rec);
	perf_event__output_id_sample(event, &handle, &sample);
	perf_output_end(&handle);
}

/* The JIT images of a program and of its subprograms, as KSYMBOLs. */
static void bpf_prog_ksymbols(struct bpf_prog *prog, bool unregister)
{
	struct bpf_prog *p;
	int i;

	for (i = 0; i < max_t(u32, prog->aux->func_cnt, 1); i++) {
		/* The first image is the program's own, subprograms follow. */
		p = i ? prog->aux->func[i] : prog;
		perf_event_ksymbol(PERF_RECORD_KSYMBOL_TYPE_BPF,
				   (u64)(unsigned long)p->bpf_func, p->jited_len,
				   unregister, p->aux->ksym.name);
	}
}

/**
 * perf_event_bpf_event - a BPF program was loaded or unloaded
 * @prog: the program
 * @type: PERF_BPF_EVENT_PROG_LOAD or PERF_BPF_EVENT_PROG_UNLOAD
 * @flags: flags of the record (none are defined)
 *
 * Events asking for ksymbol records get one per JIT image first; those
 * asking for bpf_event records then get the program's id and tag, which
 * tools use to fetch its details with bpf(2).
 */
void perf_event_bpf_event(struct bpf_prog *prog, enum perf_bpf_event_type type,
			  u16 flags)
{
	struct bpf_rec br = {
		.rec = {
			.type = type,
			.flags = flags,
			.id = prog->aux->id,
		},
	};

	if (type != PERF_BPF_EVENT_PROG_LOAD && type != PERF_BPF_EVENT_PROG_UNLOAD)
		return;
	if (atomic_read(&perf_nr_ksymbol_events))
		bpf_prog_ksymbols(prog, type == PERF_BPF_EVENT_PROG_UNLOAD);
	if (!atomic_read(&perf_nr_bpf_events))
		return;
	BUILD_BUG_ON(sizeof(br.rec.tag) != sizeof(prog->tag));
	memcpy(br.rec.tag, prog->tag, sizeof(br.rec.tag));
	perf_iterate_sb(bpf_rec_output, &br, NULL);
}

/* ---- TEXT_POKE ---- */

struct text_poke_rec {
	const void			*old_bytes, *new_bytes;
	size_t				pad;
	u16				old_len, new_len;
	struct {
		struct perf_event_header	header;
		u64				addr;
	} rec;
};

static void text_poke_output(struct perf_event *event, void *arg)
{
	struct text_poke_rec *tp = arg;
	struct perf_output_handle handle;
	struct perf_sample_data sample;
	u64 zero = 0;

	if (!event->attr.text_poke)
		return;
	perf_event_header__init(&tp->rec.header, &sample, PERF_RECORD_TEXT_POKE,
				PERF_RECORD_MISC_KERNEL,
				sizeof(tp->rec) + 2 * sizeof(u16) + tp->old_len +
				tp->new_len + tp->pad, event);
	if (perf_output_begin(&handle, &sample, event, tp->rec.header.size))
		return;
	perf_output_put(&handle, tp->rec);
	perf_output_put(&handle, tp->old_len);
	perf_output_put(&handle, tp->new_len);
	perf_output_copy(&handle, tp->old_bytes, tp->old_len);
	perf_output_copy(&handle, tp->new_bytes, tp->new_len);
	perf_output_copy(&handle, &zero, tp->pad);
	perf_event__output_id_sample(event, &handle, &sample);
	perf_output_end(&handle);
}

/**
 * perf_event_text_poke - kernel text was changed
 * @addr: where
 * @old_bytes: the old text
 * @old_len: its length
 * @new_bytes: the new text
 * @new_len: its length
 *
 * Tools that decode kernel instructions (AUX traces) follow the change.
 */
void perf_event_text_poke(const void *addr, const void *old_bytes,
			  size_t old_len, const void *new_bytes, size_t new_len)
{
	struct text_poke_rec tp = {
		.old_bytes = old_bytes,
		.new_bytes = new_bytes,
		.old_len = old_len,
		.new_len = new_len,
		.rec.addr = (unsigned long)addr,
	};
	size_t body = 2 * sizeof(u16) + old_len + new_len;

	if (!atomic_read(&perf_nr_text_poke_events))
		return;
	tp.pad = ALIGN(body, sizeof(u64)) - body;
	perf_iterate_sb(text_poke_output, &tp, NULL);
}

/* ---- SWITCH and SWITCH_CPU_WIDE ---- */

struct switch_rec {
	struct task_struct		*other;		/* next when out, prev when in */
	bool				in;
	bool				preempted;
	struct {
		struct perf_event_header	header;
		u32				next_prev_pid, next_prev_tid;
	} rec;
};

static void switch_output(struct perf_event *event, void *arg)
{
	struct switch_rec *sr = arg;
	struct perf_output_handle handle;
	struct perf_sample_data sample;
	bool task_event = event->ctx->task;
	u16 misc = 0;

	if (!event->attr.context_switch)
		return;
	if (!sr->in)
		misc |= PERF_RECORD_MISC_SWITCH_OUT;
	if (sr->preempted)
		misc |= PERF_RECORD_MISC_SWITCH_OUT_PREEMPT;
	/* A task's own events know the task; CPU-wide ones are told. */
	perf_event_header__init(&sr->rec.header, &sample,
				task_event ? PERF_RECORD_SWITCH : PERF_RECORD_SWITCH_CPU_WIDE,
				misc, task_event ? sizeof(sr->rec.header) : sizeof(sr->rec),
				event);
	if (perf_output_begin(&handle, &sample, event, sr->rec.header.size))
		return;
	if (task_event) {
		perf_output_put(&handle, sr->rec.header);
	} else {
		sr->rec.next_prev_pid = perf_event_pid(event, sr->other);
		sr->rec.next_prev_tid = perf_event_tid(event, sr->other);
		perf_output_put(&handle, sr->rec);
	}
	perf_event__output_id_sample(event, &handle, &sample);
	perf_output_end(&handle);
}

/**
 * perf_event_switch_record - the current task is switched in or out
 * @other: the task switched to (out) or from (in)
 * @in: switched in
 *
 * Called from the context switch hooks, interrupts off.
 */
void perf_event_switch_record(struct task_struct *other, bool in)
{
	struct switch_rec sr = {
		.other = other,
		.in = in,
		.preempted = !in && task_is_runnable(current),
	};

	perf_iterate_sb(switch_output, &sr, NULL);
}
