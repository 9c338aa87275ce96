// SPDX-License-Identifier: GPL-2.0
/*
 * Tracepoint hit cost, in ns per hit: getppid() with the
 * syscalls:sys_enter_getppid tracepoint
 *
 *   tp_off             with nothing on the tracepoint
 *   tp_event           with a counting perf event of this task on it
 *   tp_bpf             with the event and a BPF tracepoint program that
 *                      keeps every hit (returns 1), attached with
 *                      PERF_EVENT_IOC_SET_BPF
 *   tp_event_added, tp_bpf_added   each minus tp_off
 *
 * The program is two instructions, loaded with bpf(2): the figure is the
 * cost of running a program at a hit, not of the program.
 */
#include "bench.h"
#include <sys/mount.h>
#include <linux/bpf.h>

static long tp_id(void)
{
	static const char *const paths[] = {
		"/sys/kernel/tracing/events/syscalls/sys_enter_getppid/id",
		"/sys/kernel/debug/tracing/events/syscalls/sys_enter_getppid/id",
	};
	unsigned int i;
	long id = -1;

	for (i = 0; i < ARRAY_SIZE(paths) && id < 0; i++) {
		FILE *f = fopen(paths[i], "r");

		if (f && fscanf(f, "%ld", &id) != 1)
			id = -1;
		if (f)
			fclose(f);
	}
	return id;
}

static int load_keep_all(void)
{
	struct bpf_insn insn[2] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 1 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_TRACEPOINT;
	a.insns = (uintptr_t)insn;
	a.insn_cnt = 2;
	a.license = (uintptr_t)"GPL";
	return syscall(SYS_bpf, BPF_PROG_LOAD, &a, sizeof(a));
}

int main(void)
{
	struct perf_event_attr attr;
	double off, x;
	int fd, prog;
	long id;

	if (access("/sys/kernel/tracing/events", F_OK))
		mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL);
	id = tp_id();
	if (id < 0)
		die("no syscalls:sys_enter_getppid tracepoint");
	off = getppid_ns("tp_off");

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.config = id;
	fd = sys_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		die("perf_event_open(tracepoint)");
	x = getppid_ns("tp_event");
	report("tp_event_added", "ns", x - off);

	prog = load_keep_all();
	if (prog < 0)
		die("bpf(BPF_PROG_LOAD)");
	if (ioctl(fd, PERF_EVENT_IOC_SET_BPF, prog))
		die("PERF_EVENT_IOC_SET_BPF");
	x = getppid_ns("tp_bpf");
	report("tp_bpf_added", "ns", x - off);
	close(fd);
	close(prog);
	return 0;
}
