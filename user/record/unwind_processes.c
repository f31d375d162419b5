/* SPDX-License-Identifier: GPL-2.0-only */
/* unwind_processes.c: each process's executable mappings for the in-kernel
 * unwinder, tracked from the side-band put back in time order: MMAP2s, a
 * fork's copy of its parent's (never over what the child has), an exec's
 * fresh start, the start's backlog handed to the processes forked
 * meanwhile; each mapping given its file's rows once they are loaded. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "lib/log.h"
#include "record/unwind_builder.h"
#include "record/unwind_eviction.h"
#include "record/unwind_tables_state.h"

/* Puts [start, end) into p's sorted mappings, in place of what it overlaps. */
static void insert_mapping(struct unwind_tables *t, struct unwind_process *p,
			   const struct rt_unwind_mapping *nm, const struct mapping_origin *origin)
{
	struct rt_process_mappings *pm = &p->pm;
	uint32_t kept = 0, at;

	for (uint32_t i = 0; i < pm->nr; i++)
		if (pm->m[i].end <= nm->start || pm->m[i].start >= nm->end) {
			p->origin[kept] = p->origin[i];
			pm->m[kept++] = pm->m[i];
		}
	pm->nr = kept;
	if (pm->nr == RT_UNWIND_MAX_MAPPINGS) {
		t->mappings_dropped++;
		return;
	}
	for (at = 0; at < pm->nr && pm->m[at].start < nm->start; at++)
		;
	memmove(&pm->m[at + 1], &pm->m[at], (pm->nr - at) * sizeof(pm->m[0]));
	memmove(&p->origin[at + 1], &p->origin[at], (pm->nr - at) * sizeof(p->origin[0]));
	pm->m[at] = *nm;
	p->origin[at] = *origin;
	pm->nr++;
}

/* The mapping's load bias and rows, from its file's table (no longer looked
 * up by file by the BPF side: a file found to have none is not searched for
 * at every frame). */
static void set_rows(struct rt_unwind_mapping *m, const struct unwind_file *f, uint64_t pgoff)
{
	m->bias = m->start - pgoff - (uint64_t)f->exec_vaddr_delta;
	m->table = f->table;
	m->file = (struct rt_unwind_file_key){ 0 };
}

/* p's mappings written to the BPF side now. */
static void write_mappings(struct unwind_tables *t, struct unwind_process *p)
{
	unwind_maps_set_process(&t->maps, p->pid, &p->pm);
	p->unwritten = false;
}

/* p's mappings to be written with the pass's others (at once if the list
 * cannot grow). */
static void mappings_unwritten(struct unwind_tables *t, struct unwind_process *p)
{
	if (p->unwritten)
		return;
	if (t->nr_unwritten == t->unwritten_cap) {
		size_t cap = t->unwritten_cap ? 2 * t->unwritten_cap : 64;
		uint32_t *grown = realloc(t->unwritten, cap * sizeof(*grown));

		if (!grown) {
			write_mappings(t, p);
			return;
		}
		t->unwritten = grown;
		t->unwritten_cap = cap;
	}
	t->unwritten[t->nr_unwritten++] = p->pid;
	p->unwritten = true;
}

void unwind_write_mappings(struct unwind_tables *t)
{
	for (size_t i = 0; i < t->nr_unwritten; i++) {
		struct unwind_process *p = hash_map_get(&t->processes, &t->unwritten[i]);

		/* (gone since, or a pid listed twice: forgotten, then new) */
		if (p && p->unwritten)
			write_mappings(t, p);
	}
	t->nr_unwritten = 0;
}

static void note_mmap(struct unwind_tables *t, const struct perf_mmap *m, bool urgent)
{
	struct unwind_process *p = hash_map_get(&t->processes, &m->pid);
	struct rt_unwind_mapping nm;
	struct unwind_file *f;

	if (!mapping_wants_table(m))
		return;
	if (!p && (!t->every_process || !(p = unwind_add_process(t, m->pid))))
		return;
	if (p->until_exec)
		return;
	f = unwind_file_of(t, m, urgent);
	if (f)
		f->last_mapped = ++t->map_clock;
	/* a file of the start's backlog that a process maps now goes first */
	if (urgent && f && !f->ready && !f->urgent && !f->deferred) {
		unwind_builder_hurry(t->builder, f);
		f->urgent = true;
	}
	/* by file until its table is ready: the BPF side uses the table from
	 * the moment it is loaded, before this process's mappings are written
	 * again (the kernel's identity of the file, as the MMAP2 gives it) */
	nm = (struct rt_unwind_mapping){ .start = m->start, .end = m->start + m->len,
					 .file_start = m->start - m->pgoff };
	if (!m->build_id_size) {
		struct file_key key;

		file_key_of_inode(&key, m);
		nm.file = unwind_id_of_file_key(&key);
	} else if (f)
		nm.file = f->id;
	if (f && f->ready)
		set_rows(&nm, f, m->pgoff);
	insert_mapping(t, p, &nm, &(struct mapping_origin){ f, m->pgoff });
	mappings_unwritten(t, p);
}

static void forget_process(struct unwind_tables *t, uint32_t pid)
{
	struct unwind_process *p = hash_map_remove(&t->processes, &pid);

	if (p) {
		unwind_maps_forget_process(&t->maps, pid);
		free(p);
	}
}

/* While the start's side-band is queued, a process that execs or exits
 * meanwhile must not be given the mappings it had at the start. */
static void supersede(struct unwind_tables *t, uint32_t pid)
{
	uint32_t *key;

	if (t->queued_off >= t->queued_len || hash_map_get(&t->superseded, &pid))
		return;
	key = malloc(sizeof(*key));
	if (key && (*key = pid, hash_map_put(&t->superseded, key, key)))
		free(key);
}

static bool start_pending(const struct unwind_tables *t)
{
	return t->queued_off < t->queued_len;
}

uint32_t unwind_start_ancestor(const struct unwind_tables *t, uint32_t pid)
{
	for (size_t i = 0; i < t->nr_heirs; i++)
		if (t->heirs[i].pid == pid)
			return t->heirs[i].from;
	return pid;
}

/* child, forked from parent while the start's side-band is queued, is
 * given the queued mappings parent had at the start as they are worked
 * through (unless parent has exec'd since: its address space is new). */
static void add_heir(struct unwind_tables *t, uint32_t child, uint32_t parent)
{
	struct start_heir *h;

	if (!start_pending(t) || hash_map_get(&t->superseded, &parent))
		return;
	if (t->nr_heirs == t->heirs_cap) {
		size_t cap = t->heirs_cap ? 2 * t->heirs_cap : 16;

		h = realloc(t->heirs, cap * sizeof(*h));
		if (!h)
			return;
		t->heirs = h;
		t->heirs_cap = cap;
	}
	t->heirs[t->nr_heirs++] = (struct start_heir){ child, unwind_start_ancestor(t, parent) };
}

/* A queued mapping of m->pid, given to the processes forked from it
 * meanwhile (those that have not exec'd or exited since). */
static void note_heirs_mmap(struct unwind_tables *t, const struct perf_mmap *m)
{
	struct perf_mmap own = *m;

	for (size_t i = 0; i < t->nr_heirs; i++)
		if (t->heirs[i].from == m->pid && !hash_map_get(&t->superseded, &t->heirs[i].pid)) {
			own.pid = t->heirs[i].pid;
			note_mmap(t, &own, false);
		}
}

/* A child gets its parent's mappings, but never over what it has of its
 * own already (its exec, or mappings the start's queue gave it first). */
static void inherit_mappings(struct unwind_tables *t, struct unwind_process *child,
			     const struct unwind_process *parent)
{
	if (child->exec_seen)
		return;
	if (!child->pm.nr) {
		child->pm = parent->pm;
		memcpy(child->origin, parent->origin, sizeof(parent->origin));
	} else {
		for (uint32_t i = 0; i < parent->pm.nr; i++) {
			const struct rt_unwind_mapping *m = &parent->pm.m[i];
			bool overlaps = false;

			for (uint32_t j = 0; j < child->pm.nr && !overlaps; j++)
				overlaps = child->pm.m[j].start < m->end && m->start < child->pm.m[j].end;
			if (!overlaps)
				insert_mapping(t, child, m, &parent->origin[i]);
		}
	}
	mappings_unwritten(t, child);
}

void unwind_track(struct unwind_tables *t, const struct perf_sideband *rec, bool queued)
{
	const struct perf_mmap *m = &rec->mmap;
	const struct perf_task *k = &rec->task;
	struct unwind_process *p, *child;

	if (!t->on)
		return;
	switch (rec->type) {
	case PERF_RECORD_MMAP2:
		if (!(queued && hash_map_get(&t->superseded, &m->pid)))
			note_mmap(t, m, !queued);
		if (queued)
			note_heirs_mmap(t, m);
		break;
	case PERF_RECORD_COMM:
		/* an exec: a new address space, mapped again from nothing */
		if (!rec->comm.exec)
			break;
		supersede(t, rec->comm.pid);
		/* the BPF side has replaced the old image's at the exec itself,
		 * with the new image's: not written here, where it would undo
		 * those until this process's MMAP2s are read */
		if ((p = hash_map_get(&t->processes, &rec->comm.pid))) {
			p->until_exec = false;
			p->exec_seen = true;
			p->pm.nr = 0;
			/* (nor the old image's, unwritten yet) */
			p->unwritten = false;
		}
		break;
	case PERF_RECORD_FORK:
		/* a new process starts with a copy of its parent's mappings */
		if (k->pid == k->ppid)
			break;
		p = hash_map_get(&t->processes, &k->ppid);
		/* under -a, a parent whose queued mappings are not reached yet
		 * is not known yet: its child is, and inherits them later */
		if (!p && !(t->every_process && start_pending(t)))
			break;
		if (!t->every_process && !t->follow_forks)
			break;
		child = unwind_add_process(t, k->pid);
		if (!child)
			break;
		add_heir(t, k->pid, k->ppid);
		if (p)
			inherit_mappings(t, child, p);
		break;
	case PERF_RECORD_EXIT:
		if (k->pid == k->tid) {
			supersede(t, k->pid);
			forget_process(t, k->pid);
		}
		break;
	default:
		break;
	}
}

static void track_in_order(void *ctx, const struct perf_sideband *rec)
{
	unwind_track(ctx, rec, false);
}

void unwind_tables_note(struct unwind_tables *t, const struct perf_sideband *rec)
{
	if (!t->on)
		return;
	if (!rec->has_sid) {
		unwind_track(t, rec, false);
		return;
	}
	sideband_order_add(&t->order, rec, track_in_order, t);
}

void unwind_tables_release(struct unwind_tables *t, uint64_t until)
{
	if (!t->on)
		return;
	sideband_order_release(&t->order, until, track_in_order, t);
	/* every process given an evicted table's rows before its eviction is
	 * tracked now, its mappings written again (before the rows are free) */
	unwind_write_mappings(t);
	unwind_reclaim(t, until);
}

/* A side-band record is in its ring this long after its time stamp, at
 * most: the kernel stamps it as its write begins, and writes it with
 * preemption off. */
#define SIDEBAND_WRITE_NS 200000ull

bool unwind_tables_holding(const struct unwind_tables *t, uint64_t *release_ns)
{
	uint64_t oldest;

	*release_ns = 0;
	if (!t->on || (!t->order.nr && !t->nr_waiting))
		return false;
	/* (a table waiting for room waits for the side-band's tracking too:
	 * soon, 0) */
	oldest = sideband_order_oldest(&t->order);
	if (!t->nr_waiting && oldest != UINT64_MAX)
		*release_ns = oldest + SIDEBAND_WRITE_NS + t->track_delay_ns;
	return true;
}

void unwind_tables_drained(struct unwind_tables *t, uint64_t pass_start)
{
	unwind_tables_release(t, pass_start > SIDEBAND_WRITE_NS ? pass_start - SIDEBAND_WRITE_NS : 0);
}

struct file_ready {
	struct unwind_tables *t;
	struct unwind_file *f;
};

/* A process mapping the file whose table arrived gets its rows. */
static void give_rows(void *value, void *ctx)
{
	struct unwind_process *p = value;
	struct file_ready *r = ctx;
	bool changed = false;

	for (uint32_t i = 0; i < p->pm.nr && i < RT_UNWIND_MAX_MAPPINGS; i++)
		if (p->origin[i].file == r->f) {
			set_rows(&p->pm.m[i], r->f, p->origin[i].pgoff);
			changed = true;
		}
	if (changed)
		write_mappings(r->t, p);
}

void unwind_give_rows(struct unwind_tables *t, struct unwind_file *f)
{
	struct file_ready r = { t, f };

	hash_map_each(&t->processes, give_rows, &r);
}

struct mapping_found {
	const struct unwind_file *f;
	uint32_t pid;
	uint64_t start, end;
	bool found;
};

static void find_mapping(void *value, void *ctx)
{
	struct unwind_process *p = value;
	struct mapping_found *r = ctx;

	for (uint32_t i = 0; !r->found && i < p->pm.nr && i < RT_UNWIND_MAX_MAPPINGS; i++)
		if (p->origin[i].file == r->f) {
			r->pid = p->pid;
			r->start = p->pm.m[i].start;
			r->end = p->pm.m[i].end;
			r->found = true;
		}
}

bool unwind_find_mapping(const struct unwind_tables *t, const struct unwind_file *f, uint32_t *pid,
			 uint64_t *start, uint64_t *end)
{
	struct mapping_found r = { .f = f };

	hash_map_each(&t->processes, find_mapping, &r);
	*pid = r.pid;
	*start = r.start;
	*end = r.end;
	return r.found;
}
