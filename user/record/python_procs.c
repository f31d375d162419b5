/* SPDX-License-Identifier: GPL-2.0-only */
/* python_procs.c: the CPython processes of a -g recording: recognized from their
 * mappings, told to the BPF walk, their code objects named into DIR/perf-PID.map. */
#include "record/python_procs.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/recording_layout.h"
#include "lib/log.h"
#include "record/interp_range.h"
#include "record/python_proc.h"
#include "record/unwind_file_key.h"
#include "symbols/build_id.h"
#include "symbols/python_elf.h"
#include "symbols/python_offsets.h"

/* A file looked at: a CPython interpreter (ok) or not. */
struct python_file {
	struct file_key key;
	bool ok;
	struct python_interp interp;
};

void python_procs_init(struct python_procs *p, int dirfd, struct file_copies *copies, bool on)
{
	memset(p, 0, sizeof(*p));
	runtime_procs_init(&p->base, dirfd, copies, on, "Python process");
}

/* pr let go: no longer among the processes (nor among the exited kept). */
static void let_go(struct python_procs *p, struct python_proc *pr)
{
	/* its entry in the ring of the exited stays (its own bytes counted)
	 * until evicted, which then finds no process of that exit */
	if (pr->base.exited_seq)
		p->exited_bytes -= pr->kept_bytes;
	hash_map_remove(&p->base.procs, &pr->base.pid);
	runtime_proc_free(&pr->base);
}

/* Tells the BPF side of pr. */
static void tell(struct python_procs *p, struct python_proc *pr)
{
	if (python_maps_set_process(&p->maps, pr->base.pid, &pr->pp))
		p->not_told++;
}

static void tell_one(void *value, void *ctx)
{
	struct python_proc *pr = value;

	if (pr->base.live)
		tell(ctx, pr);
}

/* The offsets of entry i of the walk's map: the table's, then the
 * interpreters' own (NULL past them). */
static const struct python_version_offsets *entry(const struct python_procs *p, uint32_t i)
{
	uint32_t n = python_offsets_count();

	return i < n ? python_offsets_at(i) : i - n < p->nr_own ? &p->own[i - n] : NULL;
}

void python_procs_attach(struct python_procs *p, const struct bpf_sampler *s)
{
	const struct python_version_offsets *o;

	if (!p->base.on)
		return;
	python_maps_init(&p->maps, s);
	pthread_mutex_lock(&p->base.lock);
	for (uint32_t i = 0; (o = entry(p, i)); i++)
		if (python_maps_set_offsets(&p->maps, i, &o->walk)) {
			rt_warn("cannot give the -g walk CPython's offsets: %s; Python frames "
				"stay native", strerror(errno));
			p->base.on = false;
			pthread_mutex_unlock(&p->base.lock);
			return;
		}
	p->base.attached = true;
	p->base.sampler = s;
	hash_map_each(&p->base.procs, tell_one, p);
	pthread_mutex_unlock(&p->base.lock);
}

/* Whether the file open as fd (m's) is a CPython interpreter. */
static void inspect_file(int fd, const struct perf_mmap *m, void *entry)
{
	struct python_file *f = entry;

	f->ok = !python_elf_inspect(fd, m->filename, &f->interp);
}

static struct python_proc *proc_of(struct python_procs *p, uint32_t pid)
{
	struct python_proc *pr = hash_map_get(&p->base.procs, &pid);

	/* an exited process's pid taken again: not the names of the first */
	if (pr && pr->base.exited_seq)
		let_go(p, pr);
	else if (pr)
		return pr;
	return runtime_procs_new_proc(&p->base, pid, sizeof(*pr));
}

/* The offsets for f's interpreter: its version's entry o, or where its own
 * _Py_DebugOffsets differ, an entry of their own (shared by interpreters
 * giving the same) after the table's, *index set; NULL if the walk cannot
 * read them or no entry is left. */
static const struct python_version_offsets *own_offsets(struct python_procs *p,
							const struct python_file *f,
							const struct python_version_offsets *o,
							uint32_t *index)
{
	const uint32_t first = python_offsets_count();
	struct python_version_offsets d;
	int r = python_offsets_from_debug(f->interp.debug_offsets, f->interp.debug_offsets_len, o,
					  &d);

	if (r < 0)
		return NULL;
	if (!r || !memcmp(&d, o, sizeof(d)))
		return o;
	for (uint32_t i = 0; i < p->nr_own; i++)
		if (!memcmp(&p->own[i], &d, sizeof(d))) {
			*index = first + i;
			return &p->own[i];
		}
	if (first + p->nr_own >= RT_PY_MAX_OFFSETS ||
	    (p->base.attached && python_maps_set_offsets(&p->maps, first + p->nr_own, &d.walk)))
		return NULL;
	*index = first + p->nr_own;
	p->own[p->nr_own] = d;
	return &p->own[p->nr_own++];
}

/* pr a Python process for the walk from sid's time (0 without), running the
 * interpreter pp, o and code_type describe (its own, or its parent's: forked),
 * told to the BPF side; appends to rec the MMAP2 of its range of Python
 * frames ("//anon": perf names them from perf-PID.map), stamped sid (else
 * pr's, time 0). */
static bool make_live(struct python_procs *p, struct python_proc *pr,
		      const struct rt_python_process *pp, const struct python_version_offsets *o,
		      uint64_t code_type, bool forked, const struct perf_sample_id *sid,
		      struct byte_buffer *rec)
{
	pr->pp = *pp;
	if (p->base.attached)
		tell(p, pr);
	p->processes += !pr->base.live;
	p->forked += forked;
	if (pr->base.live && pr->forked)
		p->live_forked--;
	p->live_forked += forked;
	pr->base.live = true;
	pr->forked = forked;
	pr->since = sid ? sid->time : 0;
	pr->o = o;
	pr->code_type = code_type;
	return interp_range_encode(rec, pr->base.pid, sid);
}

/* Whether the fork f of from makes its child a Python process: from one at
 * the fork's time, the child not one by itself already, nor exec'd or
 * exited since (read first), and in the recording's scope. */
static bool fork_makes_python(struct python_procs *p, const struct python_proc *from,
			      const struct python_fork *f)
{
	const struct python_proc *pr = hash_map_get(&p->base.procs, &f->sid.pid);

	return from->base.live && f->sid.time >= from->since &&
	       !(pr && pr->base.live && !pr->base.exited_seq) &&
	       !python_lineage_execd_since(&p->lineage, f->sid.pid, f->sid.time) &&
	       !python_lineage_exited_since(&p->lineage, f->sid.pid, f->sid.time) &&
	       runtime_procs_in_scope(&p->base, f->sid.pid);
}

/* The child of f a Python process as from is, its range appended to rec. */
static bool make_child(struct python_procs *p, const struct python_proc *from,
		       const struct python_fork *f, struct byte_buffer *rec)
{
	struct python_proc *pr = proc_of(p, f->sid.pid);

	if (!pr || !make_live(p, pr, &from->pp, from->o, from->code_type, true, &f->sid, rec))
		return false;
	pr->parent = from->base.pid;
	pr->fork = f->sid;
	return true;
}

/* The children pr forked whose forks were read before its MMAP2, and theirs:
 * Python processes as pr is. Those of the first 64 made so are looked for
 * (a tree wider or deeper in one pass keeps the rest of its forks as read:
 * the work here is bounded). */
static void adopt_children(struct python_procs *p, const struct python_proc *pr,
			   struct byte_buffer *rec)
{
	uint32_t parents[64], n = 0;
	struct python_fork f;

	parents[n++] = pr->base.pid;
	while (n) {
		uint32_t parent = parents[--n];
		const struct python_proc *from = hash_map_get(&p->base.procs, &parent);

		while (from && python_lineage_take_fork(&p->lineage, parent, from->since, &f))
			if (fork_makes_python(p, from, &f) && make_child(p, from, &f, rec) &&
			    n < sizeof(parents) / sizeof(parents[0]))
				parents[n++] = f.sid.pid;
	}
}

static bool note_mmap(struct python_procs *p, const struct perf_mmap *m,
		      const struct perf_sample_id *sid, struct byte_buffer *rec)
{
	const struct python_version_offsets *o;
	const struct python_file *f;
	struct rt_python_process pp;
	struct python_proc *pr;
	uint64_t bias;
	uint32_t index;

	if (!p->base.on || !(m->prot & PROT_EXEC) || !m->filename[0] || m->filename[0] == '[' ||
	    !strncmp(m->filename, "//", 2) || !python_elf_name_may_be(m->filename))
		return false;
	if (!runtime_procs_in_scope(&p->base, m->pid))
		return false;
	f = mapped_file_once(&p->base.files, m, sizeof(*f), inspect_file);
	if (!f || !f->ok)
		return false;
	o = python_offsets_for(f->interp.major, f->interp.minor, &index);
	if (!o) {
		p->not_unwound++;
		return false;
	}
	if (f->interp.debug_offsets_len && !(o = own_offsets(p, f, o, &index))) {
		p->own_refused++;
		return false;
	}
	/* the load bias: the code's address less its file address */
	bias = m->start - m->pgoff - (uint64_t)f->interp.exec_vaddr_delta;
	pp = (struct rt_python_process){
		.runtime = bias + f->interp.runtime_vaddr,
		.eval_start = bias + f->interp.eval_vaddr,
		.eval_end = bias + f->interp.eval_vaddr + f->interp.eval_size,
		.offsets = index,
	};
	pr = proc_of(p, m->pid);
	if (!pr || !make_live(p, pr, &pp, o,
			      f->interp.code_type_vaddr ? bias + f->interp.code_type_vaddr : 0,
			      false, sid, rec))
		return false;
	adopt_children(p, pr, rec);
	return true;
}

bool python_procs_note_fork(struct python_procs *p, uint32_t parent,
			    const struct perf_sample_id *sid, struct byte_buffer *rec)
{
	const struct python_fork f = { .parent = parent, .sid = *sid };
	struct python_proc *from;
	bool r = false;

	pthread_mutex_lock(&p->base.lock);
	from = p->base.on ? hash_map_get(&p->base.procs, &parent) : NULL;
	if (from && fork_makes_python(p, from, &f))
		r = make_child(p, from, &f, rec);
	else if (p->base.on)
		python_lineage_note_fork(&p->lineage, parent, sid);
	pthread_mutex_unlock(&p->base.lock);
	return r;
}

bool python_procs_note_mmap(struct python_procs *p, const struct perf_mmap *m,
			    const struct perf_sample_id *sid, struct byte_buffer *rec)
{
	bool r;

	pthread_mutex_lock(&p->base.lock);
	r = note_mmap(p, m, sid, rec);
	pthread_mutex_unlock(&p->base.lock);
	return r;
}

/* pr (live) named a last time and no longer walked. */
static void forget(struct python_procs *p, struct python_proc *pr)
{
	python_names_take_seen(p);
	if (p->base.attached)
		python_maps_forget_process(&p->maps, pr->base.pid);
	if (pr->base.live && pr->forked)
		p->live_forked--;
	pr->base.live = false;
}

/* The live children of processes (pid, and those undone below it), forked
 * after pid's exec at time: a few at a time. */
struct execd_parent {
	uint64_t time;
	uint32_t parents[64], nr_parents;
	uint32_t children[16], nr;
};

static void find_children_after(void *value, void *ctx)
{
	const struct python_proc *pr = value;
	struct execd_parent *e = ctx;

	if (!pr->base.live || !pr->forked || pr->fork.time <= e->time ||
	    e->nr >= sizeof(e->children) / sizeof(e->children[0]))
		return;
	for (uint32_t k = 0; k < e->nr_parents; k++)
		if (pr->parent == e->parents[k]) {
			e->children[e->nr++] = pr->base.pid;
			return;
		}
}

/* Children of pid forked after its exec at time, read before it (the
 * program it exec'd forked them), and theirs: no Python processes after
 * all (unless its new program is one: its MMAP2, read later, makes them so
 * again). Those under the first 64 undone are looked for (bounded). */
static void undo_children_after(struct python_procs *p, uint32_t pid, uint64_t time)
{
	struct execd_parent e = { .time = time, .parents = { pid }, .nr_parents = 1 };

	do {
		/* (every process looked at: only while a forked one lives) */
		if (!p->live_forked)
			return;
		e.nr = 0;
		hash_map_each(&p->base.procs, find_children_after, &e);
		for (uint32_t k = 0; k < e.nr; k++) {
			struct python_proc *pr = hash_map_get(&p->base.procs, &e.children[k]);

			p->processes--;
			p->forked--;
			forget(p, pr);
			python_lineage_note_fork(&p->lineage, pr->parent, &pr->fork);
			if (e.nr_parents < sizeof(e.parents) / sizeof(e.parents[0]))
				e.parents[e.nr_parents++] = pr->base.pid;
		}
	} while (e.nr);
}

void python_procs_forget(struct python_procs *p, uint32_t pid, uint64_t time)
{
	struct python_proc *pr;

	pthread_mutex_lock(&p->base.lock);
	if (time != UINT64_MAX) /* an exec of no known time bars no fork */
		python_lineage_note_exec(&p->lineage, pid, time);
	if (p->base.on && (pr = hash_map_get(&p->base.procs, &pid)) && pr->base.live &&
	    time >= pr->since) {
		p->forked_execd += pr->forked;
		forget(p, pr);
		if (time != UINT64_MAX)
			undo_children_after(p, pid, time);
	}
	pthread_mutex_unlock(&p->base.lock);
}

/* The oldest exited process kept let go, unless its pid was taken again. */
static void evict_oldest(struct python_procs *p)
{
	struct python_exited e = p->exited[p->exited_head];
	struct python_proc *pr = hash_map_get(&p->base.procs, &e.pid);

	p->exited_head = (p->exited_head + 1) % p->exited_cap;
	p->nr_exited--;
	p->exited_bytes -= sizeof(e);
	if (pr && pr->base.exited_seq == e.seq) {
		let_go(p, pr);
		p->base.evicted++;
	}
}

/* What pr holds once exited: itself, its map's lines, the addresses its
 * names were tried for (an entry of its hash map each). */
static size_t held_bytes(const struct python_proc *pr)
{
	return sizeof(*pr) + pr->base.map.cap +
	       pr->base.named.len * (sizeof(uint64_t) + 4 * sizeof(void *));
}

/* Room in the ring for one more exited process: 0, or -ENOMEM. */
static int ring_room(struct python_procs *p)
{
	uint32_t cap = p->exited_cap ? p->exited_cap * 2 : 64;
	struct python_exited *grown;

	if (p->nr_exited < p->exited_cap)
		return 0;
	grown = malloc(cap * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	for (uint32_t k = 0; k < p->nr_exited; k++) /* unwrapped, oldest first */
		grown[k] = p->exited[(p->exited_head + k) % p->exited_cap];
	free(p->exited);
	p->exited = grown;
	p->exited_cap = cap;
	p->exited_head = 0;
	return 0;
}

/* pr, exited, kept for a flight recording's snapshots, within the byte
 * budget: the oldest let go first. */
static void keep_exited(struct python_procs *p, struct python_proc *pr)
{
	if (ring_room(p) && p->nr_exited)
		evict_oldest(p); /* no memory to grow: the oldest makes room */
	if (p->nr_exited == p->exited_cap) {
		let_go(p, pr);
		p->base.evicted++;
		return;
	}
	pr->base.exited_seq = ++p->base.exited_seq;
	pr->kept_bytes = held_bytes(pr);
	p->exited[(p->exited_head + p->nr_exited++) % p->exited_cap] =
		(struct python_exited){ .pid = pr->base.pid, .seq = pr->base.exited_seq };
	p->exited_bytes += pr->kept_bytes + sizeof(struct python_exited);
	while (p->exited_bytes > PYTHON_EXITED_BYTES && p->nr_exited)
		evict_oldest(p);
}

void python_procs_exited(struct python_procs *p, uint32_t pid, uint64_t time)
{
	struct python_proc *pr;

	pthread_mutex_lock(&p->base.lock);
	if (time != UINT64_MAX)
		python_lineage_note_exit(&p->lineage, pid, time);
	if (p->base.on && (pr = hash_map_get(&p->base.procs, &pid)) && !pr->base.exited_seq) {
		if (pr->base.live)
			forget(p, pr);
		if (p->base.copies)
			runtime_procs_hand_over(&p->base, &pr->base);
		else
			keep_exited(p, pr);
	}
	pthread_mutex_unlock(&p->base.lock);
}

void python_procs_print_totals(const struct python_procs *p, const struct bpf_sampler *s)
{
	struct rt_unwind_counters c;
	const struct rt_python_counters *y = &c.python;

	if (!p->base.attached || (!p->processes && !p->not_unwound && !p->own_refused) ||
	    bpf_sampler_unwind_counters(s, &c))
		return;
	rt_info("ringtrace: python: %" PRIu64 " CPython processes unwound (%" PRIu64
		" forked by another, %" PRIu64 " of those exec'd another program), %" PRIu64
		" of versions without offsets (native frames kept), %" PRIu64
		" not told (no room), %" PRIu64 " with _Py_DebugOffsets the walk cannot use"
		" (%" PRIu32 " offsets of their own); evaluation frames %" PRIu64 ": %" PRIu64
		" written as %" PRIu64 " Python frames (%" PRIu64 " of them cut short), kept"
		" native: %" PRIu64 " no thread state, %" PRIu64 " read failed, %" PRIu64
		" no Python frame, %" PRIu64 " no room, %" PRIu64 " bad code object; %" PRIu64
		" code objects not told (map full); %" PRIu64 " named, %" PRIu64
		" not readable, %" PRIu64 " dropped; %" PRIu64 " perf maps written, %" PRIu64
		" not; %" PRIu64 " exited processes' names let go (a flight recording keeps"
		" those of the last exited in %u MiB)",
		p->processes, p->forked, p->forked_execd, p->not_unwound, p->not_told,
		p->own_refused, p->nr_own,
		(uint64_t)y->eval_frames,
		(uint64_t)y->replaced, (uint64_t)y->frames, (uint64_t)y->cut,
		(uint64_t)y->no_thread, (uint64_t)y->read_failed, (uint64_t)y->no_frame,
		(uint64_t)y->no_room, (uint64_t)y->bad_code, (uint64_t)y->seen_full, p->named,
		p->name_failed, p->names_dropped, p->base.maps_written, p->base.maps_failed,
		p->base.evicted, PYTHON_EXITED_BYTES >> 20);
}

void python_procs_free(struct python_procs *p)
{
	runtime_procs_free(&p->base);
	free(p->exited);
}
