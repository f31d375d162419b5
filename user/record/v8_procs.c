/* SPDX-License-Identifier: GPL-2.0-only */
/* v8_procs.c: the Node.js processes of a -g recording: recognized from their
 * binary's mappings by the layout V8 exports, told to the BPF walk, their maps
 * handed over as they exit and written at the end. */
#include "record/v8_proc.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <sys/mman.h>

#include "lib/log.h"
#include "record/interp_range.h"

/* JSFunction's instance types after JS_FUNCTION_TYPE's (its subclasses':
 * class constructors, and the builtins' constructors), V8 9.6.138 on. */
#define V8_FUNCTION_TYPES 15

void v8_procs_init(struct v8_procs *v, int dirfd, struct file_copies *copies, bool on)
{
	memset(v, 0, sizeof(*v));
	runtime_procs_init(&v->base, dirfd, copies, on, "Node.js process");
	runtime_worker_init(&v->namer);
}

/* What the walk is told of a process of binary f, but where its code is:
 * the parts of the builtins (offsets from their start), its offsets. */
static void process_of(const struct v8_file *f, struct rt_v8_process *vp)
{
	const struct v8_elf *e = &f->elf;
	const struct v8_layout *l = &e->layout;

	*vp = (struct rt_v8_process){
		.blob_size = (__u32)(e->builtins_end - e->builtins_start),
		.entry_start = (__u32)(e->entry_start - e->builtins_start),
		.entry_end = (__u32)(e->entry_end - e->builtins_start),
		.enter_start = (__u32)(e->enter_start - e->builtins_start),
		.enter_end = (__u32)(e->enter_end - e->builtins_start),
		.handlers_start = (__u32)(e->handlers_start - e->builtins_start),
		.map_instance_type = (__u16)l->map_instance_type,
		.function_shared = (__u16)l->function_shared,
		.sfi_name = (__u16)l->sfi_name,
		.sfi_script = (__u16)l->sfi_script,
		.type_function_first = (__u16)l->type_function,
		.type_function_last = (__u16)(l->type_function + V8_FUNCTION_TYPES - 1),
		.type_sfi = (__u16)l->type_sfi,
		.type_script = (__u16)l->type_script,
	};
}

/* Whether mapping m of binary f maps its builtins whole: then where they
 * start in it, *base, and whether it is the binary's code (*text), not a
 * mapping of them alone (V8 maps them again near its own code, to call
 * them with short calls). */
static bool maps_builtins(const struct v8_file *f, const struct perf_mmap *m, uint64_t *base,
			  bool *text)
{
	const struct v8_elf *e = &f->elf;
	uint64_t from = m->pgoff + (uint64_t)e->exec_vaddr_delta, to = from + m->len;

	if (e->builtins_start < from || e->builtins_end > to)
		return false;
	*base = m->start + (e->builtins_start - from);
	/* (a page of code of the binary's own beside them) */
	*text = from + 4096 <= e->builtins_start || to >= e->builtins_end + 4096;
	return true;
}

static void tell(struct v8_procs *v, struct v8_proc *pr)
{
	if (v8_maps_set_process(&v->maps, pr->base.pid, &pr->vp)) {
		v->not_told++;
		pr->base.live = false;
	}
}

/* A process noted before the sampler was loaded, told now. */
static void tell_noted(void *value, void *ctx)
{
	struct v8_proc *pr = value;

	if (pr->base.live)
		tell(ctx, pr);
}

void v8_procs_attach(struct v8_procs *v, const struct bpf_sampler *s)
{
	if (!v->base.on)
		return;
	v8_maps_init(&v->maps, s);
	pthread_mutex_lock(&v->base.lock);
	v->base.attached = true;
	v->base.sampler = s;
	hash_map_each(&v->base.procs, tell_noted, v);
	pthread_mutex_unlock(&v->base.lock);
}

/* Whether the file open as fd is a Node.js binary whose V8 the walk knows. */
static void inspect_file(int fd, const struct perf_mmap *m, void *entry)
{
	struct v8_file *f = entry;
	int r = v8_elf_inspect(fd, &f->elf);

	(void)m;
	f->ok = !r;
	f->unknown = r == -ENOTSUP;
}

/* A process noted for pid, running binary f (not told to the walk yet), as
 * runtime_procs_new_proc makes one. NULL without memory. */
static struct v8_proc *new_proc(struct v8_procs *v, uint32_t pid, const struct v8_file *f)
{
	struct v8_proc *pr = runtime_procs_new_proc(&v->base, pid, sizeof(*pr));

	if (pr) {
		pr->serial = ++v->next_serial;
		pr->file = f;
	}
	return pr;
}

static bool note_mmap(struct v8_procs *v, const struct perf_mmap *m,
		      const struct perf_sample_id *sid, struct byte_buffer *rec)
{
	struct v8_proc *pr = hash_map_get(&v->base.procs, &m->pid);
	const struct v8_file *f;
	uint64_t base;
	bool text, fresh;

	if (!v->base.on || !(m->prot & PROT_EXEC) || !v8_elf_name_may_be(m->filename) ||
	    !runtime_procs_in_scope(&v->base, m->pid))
		return false;
	f = mapped_file_once(&v->base.files, m, sizeof(*f), inspect_file);
	if (!f || !f->ok) {
		/* a V8 not known: counted once a process (its binary's other
		 * mappings find it noted, never told) */
		if (f && f->unknown && (!pr || pr->file != f || pr->base.exited_seq) &&
		    (pr = new_proc(v, m->pid, f)))
			v->unknown_version++;
		return false;
	}
	/* (a part of the binary without the builtins: nothing to tell) */
	if (!maps_builtins(f, m, &base, &text))
		return false;
	if (pr && (pr->base.exited_seq || pr->file != f))
		pr = NULL; /* (let go by new_proc) */
	fresh = !pr;
	if (!pr) {
		if (!(pr = new_proc(v, m->pid, f)))
			return false;
		process_of(f, &pr->vp);
		v->processes++;
	}
	if (text) {
		pr->vp.text_start = m->start;
		pr->vp.text_end = m->start + m->len;
		pr->vp.blob[0] = base;
	} else {
		pr->vp.blob[1] = base;
	}
	/* told once its code is known, again as V8 maps its builtins again */
	if (pr->vp.text_end) {
		pr->base.live = true;
		if (v->base.attached)
			tell(v, pr);
	}
	return fresh && interp_range_encode(rec, pr->base.pid, sid);
}

bool v8_procs_note_mmap(struct v8_procs *v, const struct perf_mmap *m,
			const struct perf_sample_id *sid, struct byte_buffer *rec)
{
	bool r;

	pthread_mutex_lock(&v->base.lock);
	r = note_mmap(v, m, sid, rec);
	pthread_mutex_unlock(&v->base.lock);
	return r;
}

void v8_procs_exited(struct v8_procs *v, uint32_t pid)
{
	struct v8_proc *pr;

	if (!v->base.on)
		return;
	pthread_mutex_lock(&v->base.lock);
	pr = hash_map_get(&v->base.procs, &pid);
	if (pr && !pr->base.exited_seq) {
		if (v->base.attached && pr->base.live)
			v8_maps_forget_process(&v->maps, pid);
		pr->base.live = false;
		runtime_procs_exited(&v->base, &pr->base);
	}
	pthread_mutex_unlock(&v->base.lock);
}

void v8_procs_write_maps(struct v8_procs *v, int dirfd, const char *dirpath)
{
	if (!v->base.on)
		return;
	pthread_mutex_lock(&v->base.lock);
	runtime_procs_write_maps(&v->base, dirfd, dirpath);
	pthread_mutex_unlock(&v->base.lock);
}

void v8_procs_finish(struct v8_procs *v)
{
	if (!v->base.on)
		return;
	/* the namer names what the walks wrote last as it ends (on this
	 * thread, without its capability, where it was not started) */
	if (v->namer.started)
		v8_namer_stop(v);
	else
		v8_namer_take(v);
	v8_procs_write_maps(v, v->base.dirfd, "DIR");
}

void v8_procs_print_totals(struct v8_procs *v, const struct bpf_sampler *s)
{
	struct rt_unwind_counters c;
	const struct rt_v8_counters *k = &c.v8;

	if (!v->base.attached || (!v->processes && !v->unknown_version) ||
	    bpf_sampler_unwind_counters(s, &c))
		return;
	pthread_mutex_lock(&v->base.lock);
	rt_info("ringtrace: javascript: %" PRIu64 " Node.js processes unwound, %" PRIu64
		" of V8 versions whose layout is not known (native frames kept), %" PRIu64
		" not told (no room); frames looked at %" PRIu64 ": %" PRIu64
		" written as their JavaScript function, %" PRIu64
		" builtins kept with their caller's function after, kept native: %" PRIu64
		" V8's own, %" PRIu64 " no function, %" PRIu64 " of no script; %" PRIu64
		" functions not told (map full); %" PRIu64 " named, %" PRIu64
		" moved or collected since (dropped), %" PRIu64 " not readable%s%s, %" PRIu64
		" dropped; pcs of optimized code %" PRIu64 " written with inlined functions (%"
		PRIu64 " frames, %" PRIu64 " samples), %" PRIu64 " with none inlined, %" PRIu64
		" not decoded (%" PRIu64 " samples their function alone); %" PRIu64
		" perf maps written, %" PRIu64 " not; %" PRIu64
		" exited processes' names let go (a flight recording keeps those of the last %u)",
		v->processes, v->unknown_version, v->not_told, (uint64_t)k->frames,
		(uint64_t)k->replaced, (uint64_t)k->after, (uint64_t)k->typed,
		(uint64_t)k->no_function, (uint64_t)k->no_script, (uint64_t)k->seen_full, v->named,
		v->stale, v->name_failed, v->name_failed ? ": " : "",
		v->name_failed ? v->last_error : "", v->names_dropped, v->pcs_decoded,
		(uint64_t)k->inlined_frames, (uint64_t)k->inlined, v->pcs_not_inlined,
		v->pcs_undecoded, (uint64_t)k->undecoded, v->base.maps_written,
		v->base.maps_failed, v->base.evicted, RUNTIME_EXITED_MAX);
	pthread_mutex_unlock(&v->base.lock);
}

void v8_procs_free(struct v8_procs *v)
{
	v8_namer_stop(v);
	runtime_procs_free(&v->base);
	runtime_worker_free(&v->namer);
}
