/* SPDX-License-Identifier: GPL-2.0-only */
/* process_tree.c: the machine's processes with their parents and start times,
 * from /proc/PID/stat. */
#include "sys/process_tree.h"

#include <errno.h>
#include <stdlib.h>

#include "lib/byte_buffer.h"
#include "sys/proc_ids.h"
#include "sys/proc_stat.h"

bool process_exited(uint32_t id)
{
	struct proc_stat st;

	if (proc_stat_read(id, &st))
		return errno == ENOENT || errno == ESRCH;
	return st.state == 'Z' || st.state == 'X';
}

int process_start_ticks(uint32_t pid, uint64_t *ticks)
{
	struct proc_stat st;

	if (proc_stat_read(pid, &st))
		return -errno;
	*ticks = st.start_ticks;
	return 0;
}

/* Process pid appended to the processes read (arg, a byte_buffer of struct
 * process_node); 1 when memory runs out. */
static int add_process(uint32_t pid, void *arg)
{
	struct process_node node = { pid, 0, 0 };
	struct proc_stat st;

	if (proc_stat_read(pid, &st))
		return 0; /* ended meanwhile */
	node.ppid = st.ppid;
	node.start_ticks = st.start_ticks;
	return byte_buffer_append(arg, &node, sizeof(node)) ? 0 : 1;
}

int process_tree_read(struct process_node **nodes, size_t *nr)
{
	struct byte_buffer read = { 0 };
	int r = proc_each_id(0, add_process, &read);

	if (r) {
		byte_buffer_free(&read);
		errno = r > 0 ? ENOMEM : -r;
		return -errno;
	}
	*nodes = (struct process_node *)read.data;
	*nr = read.len / sizeof(**nodes);
	return 0;
}

int process_tree_follow_forks(bool (*followed)(uint32_t pid, void *ctx),
			      int (*follow)(uint32_t pid, uint32_t ppid, void *ctx), void *ctx)
{
	struct process_node *nodes;
	uint64_t since = 0;
	bool added = true;
	size_t nr;
	int r = 0;

	if (process_start_ticks(0, &since))
		return -errno;
	for (int pass = 0; added && !r && pass < FOLLOW_FORKS_PASSES; pass++) {
		if (process_tree_read(&nodes, &nr))
			return -errno;
		added = false;
		for (size_t i = 0; i < nr && r >= 0; i++) {
			if (nodes[i].start_ticks < since || !followed(nodes[i].ppid, ctx))
				continue;
			r = follow(nodes[i].pid, nodes[i].ppid, ctx);
			added |= r > 0;
		}
		free(nodes);
		r = r < 0 ? r : 0;
	}
	return r;
}
