/* SPDX-License-Identifier: GPL-2.0 */
/*
 * BPF programs written as instructions and loaded with bpf(2), with no
 * compiler or library (bpf.c, hw_lbr.c): an emitter for the few
 * instructions the tests use, array maps, and the loader, which prints
 * the verifier's log when a program is refused.
 */
#ifndef BPF_UTIL_H
#define BPF_UTIL_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/bpf.h>
#include "perf_util.h"

#define MAX_INSNS 64

struct prog {
	struct bpf_insn insn[MAX_INSNS];
	int n;
};

#define INSN(c, d, s, o, i)						\
	((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s),	\
			    .off = (o), .imm = (i) })

static inline __maybe_unused void emit(struct prog *p, struct bpf_insn insn)
{
	if (p->n < MAX_INSNS)
		p->insn[p->n++] = insn;
}

static inline __maybe_unused void mov_imm(struct prog *p, int dst, int imm)
{
	emit(p, INSN(BPF_ALU64 | BPF_MOV | BPF_K, dst, 0, 0, imm));
}

static inline __maybe_unused void mov_reg(struct prog *p, int dst, int src)
{
	emit(p, INSN(BPF_ALU64 | BPF_MOV | BPF_X, dst, src, 0, 0));
}

/* dst = the frame pointer + @off: a pointer into the stack. */
static inline __maybe_unused void stack_ptr(struct prog *p, int dst, int off)
{
	mov_reg(p, dst, BPF_REG_10);
	emit(p, INSN(BPF_ALU64 | BPF_ADD | BPF_K, dst, 0, 0, off));
}

static inline __maybe_unused void ld_map(struct prog *p, int dst, int map_fd)
{
	emit(p, INSN(BPF_LD | BPF_DW | BPF_IMM, dst, BPF_PSEUDO_MAP_FD, 0, map_fd));
	emit(p, INSN(0, 0, 0, 0, 0));
}

static inline __maybe_unused void ld_imm64(struct prog *p, int dst, uint64_t v)
{
	emit(p, INSN(BPF_LD | BPF_DW | BPF_IMM, dst, 0, 0, (int32_t)v));
	emit(p, INSN(0, 0, 0, 0, (int32_t)(v >> 32)));
}

static inline __maybe_unused void call(struct prog *p, int func)
{
	emit(p, INSN(BPF_JMP | BPF_CALL, 0, 0, 0, func));
}

/* A forward jump if @reg == @imm (or !=); patch() sets its target. */
static inline __maybe_unused int jump_if(struct prog *p, int op, int reg, int imm)
{
	emit(p, INSN(BPF_JMP | op | BPF_K, reg, 0, 0, imm));
	return p->n - 1;
}

static inline __maybe_unused void patch(struct prog *p, int jump)
{
	p->insn[jump].off = p->n - jump - 1;
}

/*
 * r0 = bpf_map_lookup_elem(@map, &key) with key 0 stored at r10 + @off
 * (clobbers r1 and r2).  Return: the jump that skips what follows when r0
 * is NULL, for patch().
 */
static inline __maybe_unused int lookup_key0(struct prog *p, int map, int off)
{
	emit(p, INSN(BPF_ST | BPF_MEM | BPF_W, BPF_REG_10, 0, off, 0));
	stack_ptr(p, BPF_REG_2, off);
	ld_map(p, BPF_REG_1, map);
	call(p, BPF_FUNC_map_lookup_elem);
	return jump_if(p, BPF_JEQ, BPF_REG_0, 0);
}

static inline __maybe_unused void ret_imm(struct prog *p, int v)
{
	mov_imm(p, BPF_REG_0, v);
	emit(p, INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0));
}

static inline __maybe_unused long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

static inline __maybe_unused int map_create(int type, int value_size, int entries)
{
	union bpf_attr a = {
		.map_type = type,
		.key_size = 4,
		.value_size = value_size,
		.max_entries = entries,
	};

	return sys_bpf(BPF_MAP_CREATE, &a);
}

static inline __maybe_unused int map_lookup(int fd, uint32_t key, void *value)
{
	union bpf_attr a = {
		.map_fd = fd,
		.key = (uintptr_t)&key,
		.value = (uintptr_t)value,
	};

	return sys_bpf(BPF_MAP_LOOKUP_ELEM, &a);
}

static inline __maybe_unused int map_update(int fd, uint32_t key, void *value)
{
	union bpf_attr a = {
		.map_fd = fd,
		.key = (uintptr_t)&key,
		.value = (uintptr_t)value,
	};

	return sys_bpf(BPF_MAP_UPDATE_ELEM, &a);
}

static char verifier_log[16384] __maybe_unused;

static inline __maybe_unused int prog_load(int type, struct prog *p)
{
	union bpf_attr a = {
		.prog_type = type,
		.insns = (uintptr_t)p->insn,
		.insn_cnt = p->n,
		.license = (uintptr_t)"GPL",
		.log_buf = (uintptr_t)verifier_log,
		.log_size = sizeof(verifier_log),
		.log_level = 1,
	};
	int fd;

	verifier_log[0] = 0;
	fd = sys_bpf(BPF_PROG_LOAD, &a);
	if (fd < 0)
		fprintf(stderr, "# program load: %s\n# %s\n", strerror(errno),
			verifier_log);
	return fd;
}

static inline __maybe_unused uint32_t prog_id(int fd)
{
	struct bpf_prog_info info = {};
	union bpf_attr a = {
		.info.bpf_fd = fd,
		.info.info_len = sizeof(info),
		.info.info = (uintptr_t)&info,
	};

	return sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &a) ? 0 : info.id;
}

#endif
