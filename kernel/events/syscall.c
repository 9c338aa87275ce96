// SPDX-License-Identifier: GPL-2.0
/*
 * The user interface: perf_event_open(2), the file operations of an event
 * file (read, poll, ioctl, release), prctl(PR_TASK_PERF_EVENTS_*), and
 * kernel counters.
 *
 * Validation follows the order upstream checks in, so that an attr with
 * several problems fails with the same errno: flags, the attr copy and its
 * own consistency, the paranoid level and permissions, sampling limits,
 * the file descriptor, the group, the target task, the PMU, the context.
 *
 * Locking: an event is created, grouped and installed with its context's
 * mutex held, and with the target task's exec_update_lock read-held so an
 * exec (which may change credentials) cannot slip between the permission
 * check and the install.  ioctls (but SET_FILTER) and read hold the
 * event's ctx->mutex; read copies its values to user space after
 * dropping it.
 */
#include <linux/anon_inodes.h>
#include <linux/file.h>
#include <linux/hw_breakpoint.h>
#include <linux/poll.h>
#include <linux/ptrace.h>
#include <linux/syscalls.h>
#include <linux/trace_events.h>
#include <linux/uaccess.h>
#include <linux/compat.h>
#include <linux/bpf.h>
#include <linux/security.h>
#include <linux/sched/signal.h>

#include "internal.h"

#define PERF_FLAG_ALL (PERF_FLAG_FD_NO_GROUP | PERF_FLAG_FD_OUTPUT | \
		       PERF_FLAG_PID_CGROUP | PERF_FLAG_FD_CLOEXEC)

static const struct file_operations perf_fops;

/*
 * Branch sampling: the filter must name some kind of branch; without a
 * privilege level it takes the event's own (the levels not excluded),
 * and kernel or hypervisor branches need kernel access.
 */
static int check_branch_filter(struct perf_event_attr *attr)
{
	const u64 levels = PERF_SAMPLE_BRANCH_PLM_ALL;
	u64 want = attr->branch_sample_type;

	if (want >= PERF_SAMPLE_BRANCH_MAX || !(want & ~levels))
		return -EINVAL;
	if (!(want & levels)) {
		want |= attr->exclude_kernel ? 0 : PERF_SAMPLE_BRANCH_KERNEL;
		want |= attr->exclude_user ? 0 : PERF_SAMPLE_BRANCH_USER;
		want |= attr->exclude_hv ? 0 : PERF_SAMPLE_BRANCH_HV;
		attr->branch_sample_type = want;
	}
	if (want & (PERF_SAMPLE_BRANCH_KERNEL | PERF_SAMPLE_BRANCH_HV))
		return perf_allow_kernel();
	return 0;
}

/* Checks of an attr on its own, in the order that decides the errno. */
static int check_attr(struct perf_event_attr *attr)
{
	u64 st = attr->sample_type;
	int intr_err = 0, err;

	if (attr->__reserved_1 || attr->__reserved_2 || attr->__reserved_3)
		return -EINVAL;
	if (st >= PERF_SAMPLE_MAX || attr->read_format >= PERF_FORMAT_MAX)
		return -EINVAL;
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		err = check_branch_filter(attr);
		if (err)
			return err;
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		err = perf_reg_validate(attr->sample_regs_user);
		if (err)
			return err;
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		u32 bytes = attr->sample_stack_user;

		if (!arch_perf_have_user_stack_dump())
			return -ENOSYS;
		/* Whole u64s, and a sample's size field is 16 bits. */
		if (bytes >= USHRT_MAX || bytes % sizeof(u64))
			return -EINVAL;
	}
	if (!attr->sample_max_stack)
		attr->sample_max_stack = sysctl_perf_event_max_stack;
	/* A bad interrupt register mask loses to the checks below. */
	if (st & PERF_SAMPLE_REGS_INTR)
		intr_err = perf_reg_validate(attr->sample_regs_intr);

	if (!IS_ENABLED(CONFIG_CGROUP_PERF) && (st & PERF_SAMPLE_CGROUP))
		return -EINVAL;
	/* The two weight layouts exclude each other. */
	if ((st & PERF_SAMPLE_WEIGHT_TYPE) == PERF_SAMPLE_WEIGHT_TYPE)
		return -EINVAL;
	if (attr->inherit_thread && !attr->inherit)
		return -EINVAL;
	if (attr->enable_on_exec && attr->remove_on_exec)
		return -EINVAL;
	/* Signals go to the task: they must not outlive an exec. */
	if (attr->sigtrap && !attr->remove_on_exec)
		return -EINVAL;
	return intr_err;
}

/*
 * Copy an attr of any published size.  A zero size means the first
 * version; a size larger than ours is accepted when the extra bytes are
 * zero.  On a size problem our size is written back to attr->size.
 */
static int perf_copy_attr(struct perf_event_attr __user *uattr,
			  struct perf_event_attr *attr)
{
	u32 len;
	int err;

	/* On success copy_struct_from_user() has written all of @attr. */
	if (get_user(len, &uattr->size))
		return -EFAULT;
	len = len ? len : PERF_ATTR_SIZE_VER0;
	if (len < PERF_ATTR_SIZE_VER0 || len > PAGE_SIZE) {
		err = -E2BIG;
	} else {
		err = copy_struct_from_user(attr, sizeof(*attr), uattr, len);
		if (!err) {
			attr->size = len;
			return check_attr(attr);
		}
	}
	/* Tell user space which size we do understand. */
	if (err == -E2BIG)
		put_user(sizeof(*attr), &uattr->size);
	return err;
}

static int perf_event_set_clock(struct perf_event *event, clockid_t clk)
{
	bool nmi_safe = false;

	switch (clk) {
	case CLOCK_MONOTONIC:
		event->clock = ktime_get_mono_fast_ns;
		nmi_safe = true;
		break;
	case CLOCK_MONOTONIC_RAW:
		event->clock = ktime_get_raw_fast_ns;
		nmi_safe = true;
		break;
	case CLOCK_REALTIME:
		event->clock = ktime_get_real_ns;
		break;
	case CLOCK_BOOTTIME:
		event->clock = ktime_get_boottime_ns;
		break;
	case CLOCK_TAI:
		event->clock = ktime_get_clocktai_ns;
		break;
	default:
		return -EINVAL;
	}
	if (!nmi_safe && !(event->pmu->capabilities & PERF_PMU_CAP_NO_NMI))
		return -EINVAL;
	return 0;
}

/*
 * May current watch @task?  With CAP_PERFMON, yes (sigtrap also needs
 * CAP_KILL over the task); otherwise ptrace rules decide, at attach level
 * for sigtrap since signals change the task.
 */
static bool perf_may_watch(struct perf_event_attr *attr, struct task_struct *task)
{
	unsigned int mode = PTRACE_MODE_READ_REALCREDS;
	bool capable = perfmon_capable();

	if (attr->sigtrap) {
		rcu_read_lock();
		capable = capable && ns_capable(__task_cred(task)->user_ns, CAP_KILL);
		rcu_read_unlock();
		mode = PTRACE_MODE_ATTACH_REALCREDS;
	}
	return capable || ptrace_may_access(task, mode);
}

/* Events of software PMUs never fail to schedule; groups rely on it. */
static void mark_if_software(struct perf_event *event)
{
	if (event->pmu->task_ctx_nr != perf_sw_context)
		return;
	event->event_caps |= PERF_EV_CAP_SOFTWARE;
}

static struct task_struct *find_target_task(pid_t vpid)
{
	struct task_struct *task;

	rcu_read_lock();
	task = vpid ? find_task_by_vpid(vpid) : current;
	if (task)
		get_task_struct(task);
	rcu_read_unlock();
	return task ? task : ERR_PTR(-ESRCH);
}

static int perf_fget(int fd, struct fd *f)
{
	*f = fdget(fd);
	if (!fd_file(*f))
		return -EBADF;
	if (fd_file(*f)->f_op != &perf_fops) {
		fdput(*f);
		return -EBADF;
	}
	return 0;
}

/*
 * Group rules, checked with the context's mutex held.  *@move is set
 * when a hardware event joins a group of software events only: the whole
 * group then moves to the hardware PMU's sub-context (perf_group_move()).
 */
static int check_group(struct perf_event *event, struct perf_event *leader,
		       struct perf_event_context *ctx, struct pmu **pmu,
		       bool *move)
{
	if (leader->group_leader != leader)
		return -EINVAL;		/* no groups inside groups */
	if (leader->clock != event->clock)
		return -EINVAL;
	if (leader->cpu != event->cpu)
		return -EINVAL;
	if (leader->ctx != ctx)
		return -EINVAL;
	if (leader->state <= PERF_EVENT_STATE_EXIT)
		return -ENODEV;
	/*
	 * A leader whose CPU went offline left its context for good (its
	 * group broken up, it stays off): a member joining it would be in
	 * the context while its leader is not, and closing the leader would
	 * not take it out of the group.
	 */
	if (!(leader->attach_state & PERF_ATTACH_CONTEXT))
		return -ENODEV;
	if (event->attr.exclusive || event->attr.pinned)
		return -EINVAL;		/* only a leader can be either */

	if (is_software_event(event)) {
		/* Software events may join any group and use its PMU. */
		if (!in_software_context(leader))
			*pmu = leader->pmu_ctx->pmu;
		return 0;
	}
	/* A hardware event cannot join another PMU's hardware group. */
	if (!in_software_context(leader))
		return leader->pmu_ctx->pmu != *pmu ? -EINVAL : 0;
	/* A group of software events follows its first hardware member. */
	if (!(leader->group_caps & PERF_EV_CAP_SOFTWARE))
		return -EINVAL;
	*move = true;
	return 0;
}

/**
 * sys_perf_event_open - open a performance event
 * @attr_uptr: the event's attributes
 * @pid: task to watch (0: the caller), -1 for all tasks on @cpu
 * @cpu: CPU to count on, -1 for any CPU the task runs on
 * @group_fd: leader of the group to join, or -1
 * @flags: PERF_FLAG_*
 *
 * Return: a file descriptor for the event, or a negative errno.
 */
/*
 * What the caller may ask for, before any object exists: the paranoid
 * level, kernel-side information, sampling limits.
 */
static int check_open_policy(const struct perf_event_attr *attr)
{
	bool kernel_callchain = (attr->sample_type & PERF_SAMPLE_CALLCHAIN) &&
				!attr->exclude_callchain_kernel;
	int err;

	/* Level 3: nothing at all for the unprivileged. */
	if (perf_paranoid_any() && !capable(CAP_SYS_ADMIN))
		return -EACCES;
	err = security_perf_event_open(PERF_SECURITY_OPEN);
	if (err)
		return err;
	if (kernel_callchain || attr->text_poke || !attr->exclude_kernel) {
		err = perf_allow_kernel();
		if (err)
			return err;
	}
	if (attr->namespaces && !perfmon_capable())
		return -EACCES;
	if (attr->freq ? attr->sample_freq > sysctl_perf_event_sample_rate :
			 (s64)attr->sample_period < 0)
		return -EINVAL;
	if (attr->sample_type & PERF_SAMPLE_PHYS_ADDR) {
		err = perf_allow_kernel();
		if (err)
			return err;
	}
	/* Interrupted kernel registers are off limits under lockdown. */
	if (attr->sample_type & PERF_SAMPLE_REGS_INTR)
		return security_locked_down(LOCKDOWN_PERF);
	return 0;
}

/*
 * Event files all share one dentry of the anon inode file system, held by
 * a file that is never installed in a descriptor table: an open then only
 * allocates its struct file.  User space sees the same as with a dentry of
 * its own per file (the "anon_inode:[perf_event]" link, the anon inode).
 * The template is set once at boot, before user space runs, and read
 * without a lock after; it is never fput(), so perf_fops never sees its
 * NULL private_data.  Without it, each open makes its own dentry.
 */
static struct file *perf_file_template;

static int __init perf_file_template_init(void)
{
	struct file *file = anon_inode_getfile("[perf_event]", &perf_fops,
					       NULL, O_RDWR);

	if (!IS_ERR(file))
		perf_file_template = file;
	return 0;
}
device_initcall(perf_file_template_init);

static struct file *perf_event_file(struct perf_event *event)
{
	struct file *file;

	if (!perf_file_template)
		return anon_inode_getfile("[perf_event]", &perf_fops, event, O_RDWR);
	file = alloc_file_clone(perf_file_template, O_RDWR, &perf_fops);
	if (!IS_ERR(file))
		file->private_data = event;
	return file;
}

SYSCALL_DEFINE5(perf_event_open, struct perf_event_attr __user *, attr_uptr, pid_t, pid,
		int, cpu, int, group_fd, unsigned long, flags)
{
	struct perf_event *leader = NULL, *output_event = NULL, *event;
	struct perf_event_pmu_context *epc;
	struct perf_event_context *ctx;
	struct task_struct *task = NULL;
	struct perf_event_attr attr __uninitialized;
	struct fd group = EMPTY_FD;
	struct file *file;
	bool move = false;
	struct pmu *pmu;
	int fd, err;

	if (flags & ~PERF_FLAG_ALL)
		return -EINVAL;
	err = perf_copy_attr(attr_uptr, &attr);
	if (!err)
		err = check_open_policy(&attr);
	if (err)
		return err;
	/* In cgroup mode pid is a cgroup fd and a CPU is needed. */
	if ((flags & PERF_FLAG_PID_CGROUP) && (pid == -1 || cpu == -1))
		return -EINVAL;

	fd = get_unused_fd_flags(flags & PERF_FLAG_FD_CLOEXEC ? O_RDWR | O_CLOEXEC : O_RDWR);
	if (fd < 0)
		return fd;

	if (group_fd != -1) {
		err = perf_fget(group_fd, &group);
		if (err)
			goto put_fd;
		leader = fd_file(group)->private_data;
		if (leader->state <= PERF_EVENT_STATE_EXIT) {
			err = -ENODEV;
			goto put_group;
		}
		if (flags & PERF_FLAG_FD_OUTPUT)
			output_event = leader;
		if (flags & PERF_FLAG_FD_NO_GROUP)
			leader = NULL;
	}

	if (pid != -1 && !(flags & PERF_FLAG_PID_CGROUP)) {
		task = find_target_task(pid);
		if (IS_ERR(task)) {
			err = PTR_ERR(task);
			task = NULL;
			goto put_group;
		}
	}
	if (task && leader && leader->attr.inherit != attr.inherit) {
		err = -EINVAL;
		goto put_task;
	}

	event = perf_event_alloc(&attr, cpu, task, leader, NULL, NULL, NULL);
	if (IS_ERR(event)) {
		err = PTR_ERR(event);
		goto put_task;
	}
	/* In cgroup mode pid is the fd of a cgroup directory. */
	if (flags & PERF_FLAG_PID_CGROUP) {
		err = perf_cgroup_connect(pid, event, leader);
		if (err)
			goto free;
	}
	if (is_sampling_event(event) &&
	    (event->pmu->capabilities & PERF_PMU_CAP_NO_INTERRUPT)) {
		err = -EOPNOTSUPP;
		goto free;
	}
	if (attr.use_clockid) {
		err = perf_event_set_clock(event, attr.clockid);
		if (err)
			goto free;
	}
	pmu = event->pmu;
	mark_if_software(event);

	if (task) {
		err = down_read_interruptible(&task->signal->exec_update_lock);
		if (err)
			goto free;
		err = -EACCES;
		if (!perf_may_watch(&attr, task))
			goto unlock_exec;
	}

	ctx = find_get_context(task, event->cpu);
	if (IS_ERR(ctx)) {
		err = PTR_ERR(ctx);
		goto unlock_exec;
	}

	mutex_lock(&ctx->mutex);
	err = -ESRCH;
	if (ctx->task == TASK_TOMBSTONE)
		goto unlock_ctx;
	err = -ENODEV;
	if (!task && !per_cpu_ptr(&perf_cpu_context, event->cpu)->online)
		goto unlock_ctx;
	if (leader) {
		err = check_group(event, leader, ctx, &pmu, &move);
		if (err)
			goto unlock_ctx;
	}

	epc = find_get_pmu_context(pmu, ctx, event->cpu,
				   event->attach_state & PERF_ATTACH_TASK_DATA);
	if (IS_ERR(epc)) {
		err = PTR_ERR(epc);
		goto unlock_ctx;
	}
	event->pmu_ctx = epc;
	event->ctx = ctx;	/* takes over the context reference */

	if (output_event) {
		err = perf_event_set_output(event, output_event);
		if (err)
			goto unlock_ctx_ref;
	}
	err = -E2BIG;
	if (!perf_event_validate_size(event))
		goto unlock_ctx_ref;
	/*
	 * AUX sampling and pausing need a group leader on an AUX PMU that
	 * takes them (snapshot_aux(), pausing): none here does, so EINVAL,
	 * upstream's answer when the leader cannot.
	 */
	err = -EINVAL;
	if (attr.aux_sample_size || attr.aux_pause || attr.aux_resume)
		goto unlock_ctx_ref;

	file = perf_event_file(event);
	if (IS_ERR(file)) {
		err = PTR_ERR(file);
		goto unlock_ctx_ref;
	}

	perf_event_compute_sizes(event);
	if (move)
		perf_group_move(leader, epc);
	perf_install_in_context(ctx, event, event->cpu);
	mutex_unlock(&ctx->mutex);

	if (task) {
		up_read(&task->signal->exec_update_lock);
		put_task_struct(task);
	}
	perf_event_set_owner(event, current);
	fdput(group);
	fd_install(fd, file);
	return fd;

unlock_ctx_ref:
	mutex_unlock(&ctx->mutex);
	/* free_event() drops the sub-context and context references. */
	goto unlock_exec;
unlock_ctx:
	mutex_unlock(&ctx->mutex);
	put_ctx(ctx);
unlock_exec:
	if (task)
		up_read(&task->signal->exec_update_lock);
free:
	free_event(event);
put_task:
	if (task)
		put_task_struct(task);
put_group:
	fdput(group);
put_fd:
	put_unused_fd(fd);
	return err;
}

/**
 * perf_event_create_counter - an event for kernel use, possibly in a group
 * @attr: the attributes
 * @cpu: the CPU, or -1
 * @task: the task to watch, or NULL for a CPU-wide event
 * @group_leader: the leader to join, or NULL
 * @handler: called on overflow, or NULL
 * @context: argument of @handler
 *
 * Return: the event (release with perf_event_release_kernel()) or an
 * ERR_PTR.
 */
struct perf_event *perf_event_create_counter(struct perf_event_attr *attr,
					     int cpu, struct task_struct *task,
					     struct perf_event *group_leader,
					     perf_overflow_handler_t handler,
					     void *context)
{
	struct perf_event_pmu_context *epc;
	struct perf_event_context *ctx;
	struct perf_event *event;
	bool move = false;
	struct pmu *pmu;
	int err;

	if (attr->aux_output || attr->aux_action)
		return ERR_PTR(-EINVAL);

	event = perf_event_alloc(attr, cpu, task, group_leader, NULL, handler,
				 context);
	if (IS_ERR(event))
		return event;
	pmu = event->pmu;
	mark_if_software(event);

	if (task) {
		ctx = find_get_context(task, event->cpu);
	} else {
		ctx = &per_cpu_ptr(&perf_cpu_context, cpu)->ctx;
		get_ctx(ctx);
	}
	if (IS_ERR(ctx)) {
		err = PTR_ERR(ctx);
		goto free;
	}

	mutex_lock(&ctx->mutex);
	err = -ESRCH;
	if (ctx->task == TASK_TOMBSTONE)
		goto unlock;
	err = -ENODEV;
	if (!task && !per_cpu_ptr(&perf_cpu_context, cpu)->online)
		goto unlock;
	if (group_leader) {
		err = check_group(event, group_leader, ctx, &pmu, &move);
		if (err)
			goto unlock;
	}
	epc = find_get_pmu_context(pmu, ctx, event->cpu,
				   event->attach_state & PERF_ATTACH_TASK_DATA);
	if (IS_ERR(epc)) {
		err = PTR_ERR(epc);
		goto unlock;
	}
	event->pmu_ctx = epc;
	event->ctx = ctx;
	perf_event_compute_sizes(event);
	if (move)
		perf_group_move(group_leader, epc);
	perf_install_in_context(ctx, event, event->cpu);
	mutex_unlock(&ctx->mutex);
	return event;

unlock:
	mutex_unlock(&ctx->mutex);
	put_ctx(ctx);
free:
	free_event(event);
	return ERR_PTR(err);
}

/**
 * perf_event_create_kernel_counter - an event for a kernel user
 * @attr: the attributes
 * @cpu: the CPU, or -1
 * @task: the task to watch, or NULL for a CPU-wide event
 * @overflow_handler: called on overflow
 * @context: argument of @overflow_handler
 *
 * Return: the event (release with perf_event_release_kernel()) or an
 * ERR_PTR.
 */
struct perf_event *
perf_event_create_kernel_counter(struct perf_event_attr *attr, int cpu,
				 struct task_struct *task,
				 perf_overflow_handler_t overflow_handler,
				 void *context)
{
	return perf_event_create_counter(attr, cpu, task, NULL, overflow_handler,
					 context);
}
EXPORT_SYMBOL_GPL(perf_event_create_kernel_counter);

/* ---- file operations ---- */

static int perf_release(struct inode *inode, struct file *file)
{
	perf_event_release_kernel(file->private_data);
	return 0;
}

static ssize_t perf_read(struct file *file, char __user *buf, size_t count,
			 loff_t *ppos)
{
	struct perf_event *ev = file->private_data;
	struct perf_event_context *locked;
	ssize_t done = security_perf_event_read(ev);
	u64 small[5], *values = small;

	if (done)
		return done;
	done = perf_read_event_unlocked(ev, buf, count);
	if (done != -EAGAIN)
		return done;

	locked = perf_event_ctx_lock(ev);
	/* A group's read may not fit on the stack: at most 16 KiB. */
	if (ev->read_size > sizeof(small)) {
		values = kmalloc(ev->read_size, GFP_KERNEL);
		if (!values) {
			perf_event_ctx_unlock(ev, locked);
			return -ENOMEM;
		}
	}
	done = perf_read_event(ev, values, count);
	perf_event_ctx_unlock(ev, locked);

	if (done > 0 && copy_to_user(buf, values, done))
		done = -EFAULT;
	if (values != small)
		kfree(values);
	return done;
}

/* An event whose task has gone and that has no live copies. */
static bool event_hung_up(struct perf_event *event)
{
	bool no_children;

	if (READ_ONCE(event->state) > PERF_EVENT_STATE_EXIT)
		return false;
	if (!perf_event_can_have_copies(event))
		return true;
	mutex_lock(&event->child_mutex);
	no_children = list_empty(&event->child_list) && !perf_lazy_waiting(event);
	mutex_unlock(&event->child_mutex);
	return no_children;
}

static __poll_t perf_poll(struct file *file, poll_table *wait)
{
	struct perf_event *event = file->private_data;

	poll_wait(file, &event->waitq, wait);
	if (event_hung_up(event))
		return EPOLLHUP;
	/* A pinned group that cannot run will never have data. */
	if (READ_ONCE(event->state) == PERF_EVENT_STATE_ERROR && event->attr.pinned)
		return EPOLLHUP;
	return perf_rb_poll(event);
}

typedef void (*event_op_t)(struct perf_event *event);

/*
 * Apply @op to @event and to its inherited copies; for enable and disable
 * also to the slots of copies not yet made (lazy.c).
 */
static void apply_to_copies(struct perf_event *event, event_op_t op)
{
	struct perf_event *child;

	op(event);
	if (!perf_event_can_have_copies(event))
		return;
	mutex_lock(&event->child_mutex);
	list_for_each_entry(child, &event->child_list, child_entry)
		op(child);
	if (op == _perf_event_enable)
		perf_lazy_set_state(event, PERF_EVENT_STATE_INACTIVE);
	else if (op == _perf_event_disable)
		perf_lazy_set_state(event, PERF_EVENT_STATE_OFF);
	mutex_unlock(&event->child_mutex);
}

/* Apply @op to the whole group of @event, copies included. */
static void apply_to_group(struct perf_event *event, event_op_t op)
{
	struct perf_event *leader = event->group_leader, *sibling;

	apply_to_copies(leader, op);
	for_each_sibling_event(sibling, leader)
		apply_to_copies(sibling, op);
}

/* Only breakpoints can be changed in place, and there is no such PMU yet. */
/* A breakpoint is taken off its register while it is redefined. */
static int modify_breakpoint(struct perf_event *bp, struct perf_event_attr *want)
{
	int err;

	_perf_event_disable(bp);
	err = modify_user_hw_breakpoint_check(bp, want, true);
	if (!bp->attr.disabled)
		_perf_event_enable(bp);
	return err;
}

/*
 * PERF_EVENT_IOC_MODIFY_ATTRIBUTES: only breakpoints can be changed, and
 * only their address, length, type and disabled bit, plus sig_data for
 * any type; the check is that nothing else differs.  Inherited copies
 * follow the original.  ctx->mutex held.
 */
static int perf_event_modify_attr(struct perf_event *event,
				  struct perf_event_attr *want)
{
	struct perf_event *child;
	int err;

	if (event->attr.type != want->type)
		return -EINVAL;
	if (event->attr.type != PERF_TYPE_BREAKPOINT)
		return -EOPNOTSUPP;

	event->attr.sig_data = want->sig_data;
	err = modify_breakpoint(event, want);
	if (!perf_event_can_have_copies(event))
		return err;
	mutex_lock(&event->child_mutex);
	list_for_each_entry(child, &event->child_list, child_entry) {
		if (err)
			break;
		child->attr.sig_data = want->sig_data;
		err = modify_breakpoint(child, want);
	}
	mutex_unlock(&event->child_mutex);
	return err;
}

/* An ioctl's argument, copied in before the context is locked. */
union ioctl_arg {
	u64			value;
	struct perf_event_attr	attr;
};

/* The program's reference passes to the event, or is dropped. */
static long perf_ioctl_set_bpf(struct perf_event *event, unsigned long fd)
{
#ifdef CONFIG_BPF_SYSCALL
	struct bpf_prog *prog = bpf_prog_get(fd);
	int ret;

	if (IS_ERR(prog))
		return PTR_ERR(prog);
	ret = perf_event_bpf_attach(event, prog, 0);
	if (ret)
		bpf_prog_put(prog);
	return ret;
#else
	/* As bpf_prog_get() says without the bpf() system call. */
	return -EOPNOTSUPP;
#endif
}

static long perf_ioctl_locked(struct perf_event *event, unsigned int cmd,
			      unsigned long arg, union ioctl_arg *in)
{
	event_op_t op;

	switch (cmd) {
	case PERF_EVENT_IOC_ENABLE:
		op = _perf_event_enable;
		break;
	case PERF_EVENT_IOC_DISABLE:
		op = _perf_event_disable;
		break;
	case PERF_EVENT_IOC_RESET:
		op = _perf_event_reset;
		break;
	case PERF_EVENT_IOC_REFRESH:
		return _perf_event_refresh(event, arg);
	case PERF_EVENT_IOC_PERIOD:
		return _perf_event_period(event, in->value);
	case PERF_EVENT_IOC_SET_OUTPUT: {
		struct perf_event *output = NULL;
		struct fd f = EMPTY_FD;
		int ret;

		if (arg != -1) {
			ret = perf_fget(arg, &f);
			if (ret)
				return ret;
			output = fd_file(f)->private_data;
		}
		ret = perf_event_set_output(event, output);
		fdput(f);
		return ret;
	}
	case PERF_EVENT_IOC_SET_BPF:
		return perf_ioctl_set_bpf(event, arg);
	case PERF_EVENT_IOC_PAUSE_OUTPUT:
		return perf_event_pause_output(event, arg);
	case PERF_EVENT_IOC_MODIFY_ATTRIBUTES:
		return perf_event_modify_attr(event, &in->attr);
	default:
		return -ENOTTY;
	}

	if (arg & PERF_IOC_FLAG_GROUP)
		apply_to_group(event, op);
	else
		apply_to_copies(event, op);
	return 0;
}

/*
 * PERF_EVENT_IOC_SET_FILTER: the tracing code keeps the filter and takes
 * its own locks (event_mutex, under which it may create tracepoint state
 * and so take the CPU hotplug lock).  The event's context has no part in
 * it, and CPU hotplug takes the CPU contexts' mutexes under the hotplug
 * lock, so the call is made without the context mutex: the file holds the
 * event, and the tracing code serialises filters of one event itself.
 */
static long perf_ioctl_set_filter(struct perf_event *event, unsigned long arg)
{
	char *filter = strndup_user((void __user *)arg, PAGE_SIZE);
	int ret;

	if (IS_ERR(filter))
		return PTR_ERR(filter);
	ret = perf_tp_set_filter(event, filter);
	kfree(filter);
	return ret;
}

static long perf_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct perf_event *event = file->private_data;
	struct perf_event_context *ctx;
	union ioctl_arg in;
	long ret;

	ret = security_perf_event_write(event);
	if (ret)
		return ret;

	/*
	 * User memory is read and written with the context unlocked: a page
	 * fault may wait on anything (userfaultfd included), and nothing of
	 * the context is needed for it.
	 */
	switch (cmd) {
	case PERF_EVENT_IOC_SET_FILTER:
		return perf_ioctl_set_filter(event, arg);
	case PERF_EVENT_IOC_QUERY_BPF:
		/* The ids go out under bpf_event_mutex, not the context's. */
		return perf_event_query_prog_array(event, (void __user *)arg);
	case PERF_EVENT_IOC_ID:
		/* Fixed at creation. */
		return put_user(perf_event_primary_id(event),
				(u64 __user *)arg) ? -EFAULT : 0;
	case PERF_EVENT_IOC_PERIOD:
		if (copy_from_user(&in.value, (u64 __user *)arg, sizeof(in.value)))
			return -EFAULT;
		break;
	case PERF_EVENT_IOC_MODIFY_ATTRIBUTES:
		ret = perf_copy_attr((struct perf_event_attr __user *)arg, &in.attr);
		if (ret)
			return ret;
		break;
	}

	ctx = perf_event_ctx_lock(event);
	ret = perf_ioctl_locked(event, cmd, arg, &in);
	perf_event_ctx_unlock(event, ctx);
	return ret;
}

#ifdef CONFIG_COMPAT
/*
 * The ioctls whose argument is a pointer encode the pointer's size: a
 * 32-bit caller's command differs from ours only there.
 */
static unsigned int compat_to_native(unsigned int cmd)
{
	unsigned int nr = _IOC_NR(cmd);
	bool pointer_arg = nr == _IOC_NR(PERF_EVENT_IOC_SET_FILTER) ||
			   nr == _IOC_NR(PERF_EVENT_IOC_ID) ||
			   nr == _IOC_NR(PERF_EVENT_IOC_QUERY_BPF) ||
			   nr == _IOC_NR(PERF_EVENT_IOC_MODIFY_ATTRIBUTES);

	if (!pointer_arg || _IOC_SIZE(cmd) != sizeof(compat_uptr_t))
		return cmd;
	return _IOC(_IOC_DIR(cmd), _IOC_TYPE(cmd), nr, sizeof(void *));
}

static long perf_compat_ioctl(struct file *file, unsigned int cmd,
			      unsigned long arg)
{
	return perf_ioctl(file, compat_to_native(cmd), arg);
}
#else
#define perf_compat_ioctl NULL
#endif

static int perf_fasync(int fd, struct file *file, int on)
{
	struct perf_event *event = file->private_data;
	struct inode *inode = file_inode(file);
	int ret;

	inode_lock(inode);
	ret = fasync_helper(fd, file, on, &event->fasync);
	inode_unlock(inode);
	return ret < 0 ? ret : 0;
}

static const struct file_operations perf_fops = {
	.fasync		= perf_fasync,
	.mmap		= perf_mmap,
	.poll		= perf_poll,
	.read		= perf_read,
	.unlocked_ioctl	= perf_ioctl,
	.compat_ioctl	= perf_compat_ioctl,
	.release	= perf_release,
};

static bool is_perf_file(const struct file *f)
{
	return f->f_op == &perf_fops;
}

/**
 * perf_event_get - the file of a perf event descriptor, referenced
 * @fd: the descriptor
 *
 * Return: the file, or ERR_PTR(-EBADF).
 */
struct file *perf_event_get(unsigned int fd)
{
	struct file *f = fget(fd);

	if (f && is_perf_file(f))
		return f;
	if (f)
		fput(f);
	return ERR_PTR(-EBADF);
}

/**
 * perf_get_event - the event behind a perf event file
 * @file: the file
 *
 * Return: the event, or ERR_PTR(-EINVAL) for another kind of file.
 */
const struct perf_event *perf_get_event(struct file *file)
{
	return is_perf_file(file) ? file->private_data : ERR_PTR(-EINVAL);
}

/**
 * perf_event_attrs - an event's attributes
 * @event: the event, or NULL
 *
 * Return: the attributes, or ERR_PTR(-EINVAL).
 */
const struct perf_event_attr *perf_event_attrs(struct perf_event *event)
{
	return event ? &event->attr : ERR_PTR(-EINVAL);
}

/* ---- prctl(PR_TASK_PERF_EVENTS_ENABLE/DISABLE) ---- */

static void apply_to_owned(event_op_t op)
{
	struct perf_event_context *ctx;
	struct perf_event *event;

	mutex_lock(&current->perf_event_mutex);
	list_for_each_entry(event, &current->perf_event_list, owner_entry) {
		ctx = perf_event_ctx_lock(event);
		apply_to_copies(event, op);
		perf_event_ctx_unlock(event, ctx);
	}
	mutex_unlock(&current->perf_event_mutex);
}

/**
 * perf_event_task_enable - enable every event the caller opened
 *
 * Return: 0.
 */
int perf_event_task_enable(void)
{
	apply_to_owned(_perf_event_enable);
	return 0;
}

/**
 * perf_event_task_disable - disable every event the caller opened
 *
 * Return: 0.
 */
int perf_event_task_disable(void)
{
	apply_to_owned(_perf_event_disable);
	return 0;
}
