// SPDX-License-Identifier: GPL-2.0
/*
 * A QEMU TCG plugin for profile.sh: counts the instructions each
 * translation block executes (its length times its executions, summed
 * over the vCPUs without locking, so a few may be lost to races) and
 * writes "pc instructions executions" per block at exit.
 *
 * Argument: out=FILE (default insnprof.txt).
 */
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

struct block {
	uint64_t pc;
	uint64_t insns;
	uint64_t execs;
};

static GHashTable *blocks;	/* (pc, length) -> struct block */
static GMutex lock;
static char *out_path;

static void write_blocks(qemu_plugin_id_t id, void *unused)
{
	FILE *f = fopen(out_path, "w");
	GHashTableIter it;
	gpointer key, value;

	if (!f)
		return;
	g_hash_table_iter_init(&it, blocks);
	while (g_hash_table_iter_next(&it, &key, &value)) {
		struct block *b = value;

		if (b->execs)
			fprintf(f, "%" PRIx64 " %" PRIu64 " %" PRIu64 "\n",
				b->pc, b->insns, b->execs);
	}
	fclose(f);
}

static void translated(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	uint64_t pc = qemu_plugin_tb_vaddr(tb);
	size_t n = qemu_plugin_tb_n_insns(tb);
	uint64_t *key = g_new(uint64_t, 1);
	struct block *b;

	*key = pc ^ ((uint64_t)n << 56);
	g_mutex_lock(&lock);
	b = g_hash_table_lookup(blocks, key);
	if (!b) {
		b = g_new0(struct block, 1);
		b->pc = pc;
		b->insns = n;
		g_hash_table_insert(blocks, key, b);
	} else {
		g_free(key);
	}
	g_mutex_unlock(&lock);
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &b->execs, 1);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	out_path = g_strdup("insnprof.txt");
	if (argc > 0 && !strncmp(argv[0], "out=", 4)) {
		g_free(out_path);
		out_path = g_strdup(argv[0] + 4);
	}
	blocks = g_hash_table_new(g_int64_hash, g_int64_equal);
	qemu_plugin_register_vcpu_tb_trans_cb(id, translated);
	qemu_plugin_register_atexit_cb(id, write_blocks, NULL);
	return 0;
}
