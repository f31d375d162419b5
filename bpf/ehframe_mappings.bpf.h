/* SPDX-License-Identifier: GPL-2.0-only */
/* ehframe_mappings.bpf.h: a process's executable mappings kept by the kernel side before
 * the loader reads its side-band: from the VMA of a pc a walk finds in none
 * known, at its exec and fork */
#ifndef RINGTRACE_EHFRAME_MAPPINGS_BPF_H
#define RINGTRACE_EHFRAME_MAPPINGS_BPF_H

#include "ehframe_state.bpf.h"
#include "scope_filter.bpf.h"

#define VM_EXEC_FLAG 0x00000004UL
#define PAGE_SHIFT_X86 12
/* An image just exec'd has its program's and its loader's code mapped: a
 * few mappings, a bound that keeps the verifier's walk of the loop short
 * (at RT_UNWIND_MAX_MAPPINGS it takes over a second). */
#define EXEC_MAPPINGS_MAX 8

/* Whether the kernel side keeps the current process's mappings: a process
 * of the recording's scope (its command before its exec too), whatever CPU
 * it runs on. */
static __always_inline bool mappings_in_scope(void)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tgid = pid_tgid >> 32, tid = (__u32)pid_tgid;

	if ((filter_flags & RT_FILTER_TGID) && !bpf_map_lookup_elem(&target_tgids, &tgid))
		return false;
	if ((filter_flags & RT_FILTER_TID) && !bpf_map_lookup_elem(&target_tids, &tid))
		return false;
	if (filter_flags & RT_FILTER_CGROUP) {
		if (cgroup_exact)
			return bpf_get_current_cgroup_id() == target_cgroup_id;
		return bpf_current_task_under_cgroup(&target_cgroup, 0) == 1;
	}
	return true;
}

/* The kernel's identity of a file: its superblock's device and its inode. */
static __always_inline void file_key_of(struct rt_unwind_file_key *key, struct file *file)
{
	key->dev = file->f_inode->i_sb->s_dev;
	key->pad = 0;
	key->ino = file->f_inode->i_ino;
}

/* Mapping m of a file at [start, end) from page pgoff of it, with the file's
 * table if it is loaded (else looked up by the walk when it is). */
static __always_inline void set_kernel_mapping(struct rt_unwind_mapping *m,
					       const struct rt_unwind_file_key *key, __u64 start,
					       __u64 end, __u64 pgoff)
{
	const struct rt_unwind_file *f;

	m->start = start;
	m->end = end;
	m->file = *key;
	m->file_start = start - (pgoff << PAGE_SHIFT_X86);
	f = bpf_map_lookup_elem(&unwind_files, key);
	if (f) {
		m->table = f->table;
		m->bias = m->file_start - f->exec_vaddr_delta;
	} else {
		__builtin_memset(&m->table, 0, sizeof(m->table));
		m->bias = 0;
	}
}

/* Where a mapping from start goes among pm's: the first at or above it. */
struct mapping_place {
	const struct rt_process_mappings *pm;
	__u64 start, end;
	__u32 at;
	bool overlaps;
};

static long mapping_place_step(__u32 i, void *arg)
{
	struct mapping_place *p = arg;
	const struct rt_unwind_mapping *m;

	if (i >= p->pm->nr)
		return 1;
	barrier_var(i); /* bounded itself, as the verifier sees it */
	if (i >= RT_UNWIND_MAX_MAPPINGS)
		return 1;
	m = &p->pm->m[i];
	if (m->start < p->end && p->start < m->end) {
		p->overlaps = true;
		return 1;
	}
	if (m->start >= p->end)
		return 1;
	p->at = i + 1;
	return 0;
}

/* Moves the mappings [at, nr) one up, the last first. */
struct mapping_shift {
	struct rt_process_mappings *pm;
	__u32 at, nr;
};

static long mapping_shift_step(__u32 i, void *arg)
{
	struct mapping_shift *s = arg;
	__u32 from = s->nr - 1 - i;
	struct rt_unwind_mapping *m;

	if (from < s->at)
		return 1;
	barrier_var(from); /* bounded itself, as the verifier sees it */
	if (from >= RT_UNWIND_MAX_MAPPINGS - 1)
		return 1;
	m = &s->pm->m[from];
	m[1] = m[0];
	return 0;
}

/* bpf_find_vma's callback's context: where it puts the mapping it finds
 * (in map memory: on the stack it would deepen the walk's frames). */
struct mapped_file_search {
	struct mapped_file *mf;
};

static long mapped_file_of(struct task_struct *task, struct vm_area_struct *vma, void *arg)
{
	struct mapped_file *mf = ((struct mapped_file_search *)arg)->mf;
	struct file *file = vma->vm_file;

	(void)task;
	if (!mf || !(vma->vm_flags & VM_EXEC_FLAG))
		return 0;
	if (!file) {
		mf->anon = true;
		mf->start = vma->vm_start;
		mf->end = vma->vm_end;
		return 0;
	}
	file_key_of(&mf->key, file);
	mf->start = vma->vm_start;
	mf->end = vma->vm_end;
	mf->pgoff = vma->vm_pgoff;
	mf->found = true;
	return 0;
}

/* Puts the mapping mf into pm in its place (sorted by start), unless it
 * overlaps one there, pm is full, or another insertion is under way (another
 * thread's): its index, else -1, counted either way. */
static __always_inline __s32 insert_kernel_mapping(struct rt_process_mappings *pm,
						   const struct mapped_file *mf,
						   struct rt_unwind_counters *c)
{
	struct mapping_place place = { .pm = pm, .start = mf->start, .end = mf->end };
	struct mapping_shift shift;
	__s32 at = -1;
	__u32 nr, in;

	if (__sync_fetch_and_or(&pm->flags, RT_MAPPINGS_WRITING) & RT_MAPPINGS_WRITING) {
		c->kernel_mappings_left++;
		return -1;
	}
	bpf_loop(RT_UNWIND_MAX_MAPPINGS, mapping_place_step, &place, 0);
	nr = pm->nr;
	in = place.at;
	if (place.overlaps || nr >= RT_UNWIND_MAX_MAPPINGS || in > nr ||
	    in >= RT_UNWIND_MAX_MAPPINGS) {
		c->kernel_mappings_left++;
	} else {
		/* a bound the verifier sees on the register that indexes (the
		 * comparisons above may be of another copy of it) */
		barrier_var(in);
		in &= RT_UNWIND_MAX_MAPPINGS - 1;
		shift.pm = pm;
		shift.at = in;
		shift.nr = nr;
		bpf_loop(RT_UNWIND_MAX_MAPPINGS, mapping_shift_step, &shift, 0);
		set_kernel_mapping(&pm->m[in], &mf->key, mf->start, mf->end, mf->pgoff);
		pm->nr = nr + 1;
		c->kernel_mappings++;
		at = (__s32)in;
	}
	__sync_fetch_and_and(&pm->flags, ~(__u64)RT_MAPPINGS_WRITING);
	if (at >= 0) /* the walks' (of the current process's: pm's) */
		mappings_changed(bpf_get_current_pid_tgid() >> 32);
	return at;
}

/* A walk finds a pc in no mapping its process's map has this many times at
 * most: each time, the VMA holding it (a library mapped since the map was
 * written, before the loader has read its MMAP2) is put in. */
#define WALK_MAPPING_LOOKUPS 4

/* The index among pm's of the mapping holding pc as its VMA says (an
 * executable mapping of a file), put in; -1 if there is none: a pc in
 * executable memory of no file is remembered in memo (the walk's, if in
 * use), and one there not looked up again. A function of its own, which
 * the verifier checks once, not at every state of a walk. */
__noinline int vma_mapping(struct rt_process_mappings *pm, __u64 pc, struct rt_unwind_counters *c,
			   struct mapped_file *mf, struct mappings_memo *memo)
{
	struct mapped_file_search search = { mf };
	__u32 k;

	if (!pm || !c || !mf || !memo)
		return -1;
	for (k = 0; memo->in_use && k < MEMO_ANON; k++)
		if (pc >= memo->anon_start[k] && pc < memo->anon_end[k])
			return -1;
	mf->found = false;
	mf->anon = false;
	if (bpf_find_vma(bpf_get_current_task_btf(), pc, mapped_file_of, &search, 0))
		return -1;
	if (!mf->found) {
		if (mf->anon && memo->in_use) {
			k = memo->anon_next++ & (MEMO_ANON - 1);
			memo->anon_start[k] = mf->start;
			memo->anon_end[k] = mf->end;
		}
		return -1;
	}
	return insert_kernel_mapping(pm, mf, c);
}

/* The mapping of w's process (its mappings pm) holding pc, by its VMA (see
 * vma_mapping); NULL if there is none, or the walk has looked up
 * WALK_MAPPING_LOOKUPS already (counted in map memory, which the verifier
 * does not track value by value). */
static __always_inline const struct rt_unwind_mapping *
look_up_vma(struct unwind_walk *w, struct rt_process_mappings *pm, __u64 pc)
{
	__u32 in;
	int at;

	if (w->stack->lookups >= WALK_MAPPING_LOOKUPS)
		return NULL;
	w->stack->lookups++;
	at = vma_mapping(pm, pc, w->c, &w->guesses->vma, &w->guesses->memo);
	if (at < 0 || at >= RT_UNWIND_MAX_MAPPINGS)
		return NULL;
	in = (__u32)at;
	barrier_var(in); /* a bound on the register that indexes */
	in &= RT_UNWIND_MAX_MAPPINGS - 1;
	w->guesses->walk.last_mapping = (__s32)in;
	return &pm->m[in];
}

#endif
