/* SPDX-License-Identifier: GPL-2.0-only */
/* hotspot_procs.c: the HotSpot JVMs of a -g recording: recognized from their
 * libjvm.so mappings, their layout read from their memory, told to the BPF walk,
 * the methods it wrote named into DIR/perf-PID.map. */
#include "record/hotspot_proc.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "format/recording_layout.h"
#include "lib/log.h"
#include "record/interp_range.h"
#include "record/unwind_file_key.h"
#include "symbols/hotspot_elf.h"
#include "symbols/hotspot_method.h"
#include "symbols/hotspot_vmstructs.h"

/* Methods taken from the BPF side per call. */
#define HOTSPOT_TAKE_PER_CALL 1024

void hotspot_procs_init(struct hotspot_procs *h, int dirfd, struct file_copies *copies, bool on)
{
	memset(h, 0, sizeof(*h));
	runtime_procs_init(&h->base, dirfd, copies, on, "JVM");
	pthread_mutex_init(&h->error_lock, NULL);
	runtime_worker_init(&h->reader);
}

static void tell(struct hotspot_procs *h, struct hotspot_proc *pr)
{
	if (hotspot_maps_set_process(&h->maps, pr->base.pid, &pr->hp))
		h->not_told++;
}

static void tell_one(void *value, void *ctx)
{
	struct hotspot_proc *pr = value;

	if (pr->base.live)
		tell(ctx, pr);
}

void hotspot_procs_attach(struct hotspot_procs *h, const struct bpf_sampler *s)
{
	if (!h->base.on)
		return;
	hotspot_maps_init(&h->maps, s);
	pthread_mutex_lock(&h->base.lock);
	for (uint32_t i = 0; i < h->nr_layouts; i++)
		if (hotspot_maps_set_offsets(&h->maps, i, &h->layouts[i].offsets)) {
			rt_warn("cannot give the -g walk a JVM's offsets: %s; Java frames stay "
				"native", strerror(errno));
			h->base.on = false;
			pthread_mutex_unlock(&h->base.lock);
			return;
		}
	h->base.attached = true;
	h->base.sampler = s;
	hash_map_each(&h->base.procs, tell_one, h);
	pthread_mutex_unlock(&h->base.lock);
}

/* Whether the file open as fd is a libjvm.so with its layout's exports. */
static void inspect_file(int fd, const struct perf_mmap *m, void *entry)
{
	struct hotspot_file *f = entry;

	(void)m;
	f->ok = !hotspot_elf_inspect(fd, &f->elf);
}

/* The index of l among the layouts (added if new, and told if attached):
 * 0, or -ENOSPC. */
static int layout_index(struct hotspot_procs *h, const struct hotspot_walk_layout *l,
			uint32_t *index)
{
	for (uint32_t i = 0; i < h->nr_layouts; i++)
		if (!memcmp(&h->layouts[i].offsets, &l->offsets, sizeof(l->offsets)) &&
		    !memcmp(&h->layouts[i].method, &l->method, sizeof(l->method))) {
			*index = i;
			return 0;
		}
	if (h->nr_layouts >= RT_JAVA_MAX_OFFSETS ||
	    (h->base.attached && hotspot_maps_set_offsets(&h->maps, h->nr_layouts, &l->offsets)))
		return -ENOSPC;
	h->layouts[h->nr_layouts] = *l;
	*index = h->nr_layouts++;
	return 0;
}

int hotspot_read_layout(struct hotspot_procs *h, uint32_t pid, const struct hotspot_file *f,
			uint64_t bias, struct hotspot_walk_layout *l)
{
	struct hotspot_vmstructs v;
	char err[200];
	int r;

	r = hotspot_vmstructs_read(pid, &f->elf, bias, &v, err, sizeof(err));
	if (!r) {
		r = hotspot_walk_layout_read(pid, &v, l, err, sizeof(err));
		hotspot_vmstructs_free(&v);
	}
	if (r) {
		pthread_mutex_lock(&h->error_lock);
		rt_format(h->last_error, sizeof(h->last_error), "JVM %u: %s", pid, err);
		pthread_mutex_unlock(&h->error_lock);
	}
	return r;
}

int hotspot_make_live(struct hotspot_procs *h, struct hotspot_proc *pr,
		      const struct hotspot_walk_layout *l)
{
	uint32_t index;

	if (layout_index(h, l, &index)) {
		h->not_told++;
		return -ENOSPC;
	}
	pr->hp = l->process;
	pr->hp.offsets = index;
	pr->base.live = true;
	pr->pending = false;
	h->processes++;
	if (h->base.attached)
		tell(h, pr);
	return 0;
}

static bool note_mmap(struct hotspot_procs *h, const struct perf_mmap *m,
		      const struct perf_sample_id *sid, struct byte_buffer *rec)
{
	const struct hotspot_proc *known = hash_map_get(&h->base.procs, &m->pid);
	uint64_t bias;
	struct hotspot_walk_layout l;
	const struct hotspot_file *f;
	struct hotspot_proc *pr;
	int r;

	if (!h->base.on || !(m->prot & PROT_EXEC) || !hotspot_elf_name_may_be(m->filename) ||
	    (known && (known->base.live || known->pending) && !known->base.exited_seq) ||
	    !runtime_procs_in_scope(&h->base, m->pid))
		return false;
	f = mapped_file_once(&h->base.files, m, sizeof(*f), inspect_file);
	if (!f || !f->ok)
		return false;
	bias = m->start - m->pgoff - (uint64_t)f->elf.exec_vaddr_delta;
	/* started during the recording: its layout is set up as it starts,
	 * read by the reader's thread (the one keeping the capability to) */
	if (h->reader.started) {
		if (h->reader_failed) {
			h->not_read++;
			return false;
		}
		pr = runtime_procs_new_proc(&h->base, m->pid, sizeof(*pr));
		if (!pr)
			return false;
		if (hotspot_reader_queue(h, pr->base.pid, f, bias)) {
			h->not_read++;
			return false;
		}
		pr->pending = true;
		return interp_range_encode(rec, pr->base.pid, sid);
	}
	r = hotspot_read_layout(h, m->pid, f, bias, &l);
	if (r == -ENOTSUP) {
		h->unknown_version++;
		return false;
	}
	if (r) {
		h->not_read++;
		return false;
	}
	pr = runtime_procs_new_proc(&h->base, m->pid, sizeof(*pr));
	if (!pr || hotspot_make_live(h, pr, &l))
		return false;
	return interp_range_encode(rec, pr->base.pid, sid);
}

bool hotspot_procs_note_mmap(struct hotspot_procs *h, const struct perf_mmap *m,
			     const struct perf_sample_id *sid, struct byte_buffer *rec)
{
	bool r;

	pthread_mutex_lock(&h->base.lock);
	r = note_mmap(h, m, sid, rec);
	pthread_mutex_unlock(&h->base.lock);
	return r;
}

/* The name of method of pr into buf: "pkg.Class.method", from what the walk
 * read in the process (info), else read from its memory here (which needs
 * the capability to read another process's: --keep-caps); a code blob's, its
 * own. */
static int method_name(struct hotspot_procs *h, const struct hotspot_proc *pr, uint64_t method,
		       struct rt_hotspot_method_info *info, char *buf, size_t size)
{
	/* a code blob: its own name ("StubRoutines (1)") */
	if (info->is_stub) {
		if (!info->name_ok)
			return -EINVAL;
		info->name[sizeof(info->name) - 1] = '\0';
		hotspot_text_format(info->name, strlen(info->name), false, buf, size);
		return 0;
	}
	if (info->name_ok && info->class_ok) {
		info->name[sizeof(info->name) - 1] = info->klass[sizeof(info->klass) - 1] = '\0';
		hotspot_method_format(info->klass, strlen(info->klass), info->name,
				      strlen(info->name), info->class_cut || info->name_cut, buf,
				      size);
		return 0;
	}
	if (!pr->base.live || pr->hp.offsets >= h->nr_layouts)
		return -ESRCH;
	return hotspot_method_name(pr->base.pid, &h->layouts[pr->hp.offsets].method, method, buf,
				   size);
}

/* The lines naming the frames of method (at addr, a bci each): its source
 * lines' runs of bytecode indexes, each "name (File.java:LINE)", where the
 * walk read its line number table whole; else one, "name (File.java)". The
 * last index written (RT_PY_CODE_SPAN - 1) is every later one's: no line. */
static bool map_method(struct byte_buffer *map, uint64_t addr, const char *name,
		       const struct rt_hotspot_method_info *info)
{
	struct hotspot_line_range runs[2 * RT_JAVA_LINES_BYTES + 1];
	const uint32_t last = RT_PY_CODE_SPAN - 1;
	char file[RT_JAVA_FILE_BYTES * 4];
	int nr = -1;

	file[0] = '\0';
	if (info && info->file_ok)
		hotspot_text_format(info->file, strnlen(info->file, sizeof(info->file)),
				    info->file_cut, file, sizeof(file));
	if (info && info->lines_len)
		nr = hotspot_line_ranges(info->lines, info->lines_len, last, runs,
					 sizeof(runs) / sizeof(runs[0]));
	if (nr <= 0)
		return interp_map_line(map, addr, 0, RT_PY_CODE_SPAN, name, file, 0);
	for (int i = 0; i < nr; i++)
		if (!interp_map_line(map, addr, runs[i].start, runs[i].end, name, file, runs[i].line))
			return false;
	return interp_map_line(map, addr, last, RT_PY_CODE_SPAN, name, file, 0);
}

/* Names method (written with tag) of pr into its map, once. */
static void name_method(struct hotspot_procs *h, struct hotspot_proc *pr, uint64_t method,
			uint32_t tag, struct rt_hotspot_method_info *info)
{
	char name[2 * HOTSPOT_SYMBOL_MAX + 16];
	uint64_t addr = RT_JAVA_ADDR_OF(method, tag, 0);
	size_t before = pr->base.map.len;
	uint64_t *n;

	if (tag >= RT_PY_TAGS || hash_map_get(&pr->base.named, &addr))
		return;
	if (pr->base.named.len >= HOTSPOT_NAMES_PER_PROCESS ||
	    pr->base.map.len >= HOTSPOT_MAP_BYTES || !(n = malloc(sizeof(*n)))) {
		h->names_dropped++;
		return;
	}
	*n = addr;
	if (hash_map_put(&pr->base.named, n, n)) {
		free(n);
		h->names_dropped++;
		return;
	}
	if (method_name(h, pr, method, info, name, sizeof(name))) {
		h->name_failed++;
		return;
	}
	if (interp_map_begin(&pr->base.map) && map_method(&pr->base.map, addr, name, info)) {
		h->named++;
		return;
	}
	pr->base.map.len = before; /* no half a method */
	h->names_dropped++;
}

static void take_seen(struct hotspot_procs *h)
{
	static struct rt_hotspot_method_key keys[HOTSPOT_TAKE_PER_CALL];
	static struct rt_hotspot_method_info infos[HOTSPOT_TAKE_PER_CALL];
	size_t nr;

	if (!h->base.attached)
		return;
	nr = hotspot_maps_take_seen(&h->maps, keys, infos, HOTSPOT_TAKE_PER_CALL);
	for (size_t i = 0; i < nr; i++) {
		struct hotspot_proc *pr = hash_map_get(&h->base.procs, &keys[i].tgid);

		if (pr && !pr->base.exited_seq)
			name_method(h, pr, keys[i].method, keys[i].tag, &infos[i]);
		else
			h->names_dropped++;
	}
}

void hotspot_procs_name_seen(struct hotspot_procs *h)
{
	if (!h->base.on)
		return;
	pthread_mutex_lock(&h->base.lock);
	take_seen(h);
	pthread_mutex_unlock(&h->base.lock);
}

void hotspot_procs_exited(struct hotspot_procs *h, uint32_t pid)
{
	struct hotspot_proc *pr;

	if (!h->base.on)
		return;
	pthread_mutex_lock(&h->base.lock);
	pr = hash_map_get(&h->base.procs, &pid);
	if (pr && pr->pending) {
		/* gone before its layout was read: nothing named */
		hotspot_reader_forget(h, pid);
		runtime_procs_let_go(&h->base, &pr->base);
	} else if (pr && !pr->base.exited_seq) {
		take_seen(h);
		if (h->base.attached)
			hotspot_maps_forget_process(&h->maps, pid);
		pr->base.live = false;
		runtime_procs_exited(&h->base, &pr->base);
	}
	pthread_mutex_unlock(&h->base.lock);
}

void hotspot_procs_write_maps(struct hotspot_procs *h, int dirfd, const char *dirpath)
{
	if (!h->base.on)
		return;
	pthread_mutex_lock(&h->base.lock);
	take_seen(h);
	runtime_procs_write_maps(&h->base, dirfd, dirpath);
	pthread_mutex_unlock(&h->base.lock);
}

void hotspot_procs_finish(struct hotspot_procs *h)
{
	hotspot_procs_write_maps(h, h->base.dirfd, "DIR");
}

void hotspot_procs_print_totals(struct hotspot_procs *h, const struct bpf_sampler *s)
{
	struct rt_unwind_counters c;
	const struct rt_hotspot_counters *j = &c.hotspot;

	if (!h->base.attached || (!h->processes && !h->unknown_version && !h->not_read) ||
	    bpf_sampler_unwind_counters(s, &c))
		return;
	pthread_mutex_lock(&h->error_lock);
	rt_info("ringtrace: java: %" PRIu64 " JVMs unwound (%" PRIu64
		" started during the recording), %" PRIu64
		" of versions whose frames are not known (native frames kept), %" PRIu64
		" not read (%" PRIu64 " not set up within %u s)%s%s, %" PRIu64
		" not told (no room); interpreter frames %" PRIu64
		": %" PRIu64 " written as Java frames (%" PRIu64 " at bytecode index 0), kept"
		" native: %" PRIu64 " read failed, %" PRIu64 " no method; code cache frames %" PRIu64
		": %" PRIu64 " compiled written as %" PRIu64 " Java frames (%" PRIu64
		" without a scope at their pc: their method alone, %" PRIu64
		" with inlined methods cut), %" PRIu64 " stubs written by their blob's name,"
		" kept native: %" PRIu64 " in no blob, %" PRIu64 " bad nmethod, %" PRIu64
		" in a blob not holding their pc (stale: dropped); %" PRIu64
		" sampled in a prologue; %" PRIu64
		" methods not told (map full), %" PRIu64 " told unnamed; %" PRIu64
		" named, %" PRIu64 " not readable, %" PRIu64 " dropped; %" PRIu64
		" perf maps written, %" PRIu64 " not; %" PRIu64
		" exited JVMs' names let go (a flight recording keeps those of the last %u)",
		h->processes, h->read_late, h->unknown_version, h->not_read, h->given_up,
		HOTSPOT_PENDING_MS / 1000, h->not_read ? ": " : "", h->not_read ? h->last_error : "",
		h->not_told, (uint64_t)j->interp_frames,
		(uint64_t)j->written, (uint64_t)j->no_bci, (uint64_t)j->read_failed,
		(uint64_t)j->bad_method, (uint64_t)j->code_frames, (uint64_t)j->compiled,
		(uint64_t)j->compiled_java, (uint64_t)j->no_scope, (uint64_t)j->inlined_cut,
		(uint64_t)j->stubs, (uint64_t)j->no_blob, (uint64_t)j->bad_nmethod,
		(uint64_t)j->stale,
		(uint64_t)j->prologue, (uint64_t)j->seen_full, (uint64_t)j->names_unread,
		h->named, h->name_failed, h->names_dropped, h->base.maps_written,
		h->base.maps_failed, h->base.evicted, RUNTIME_EXITED_MAX);
	pthread_mutex_unlock(&h->error_lock);
}

void hotspot_procs_free(struct hotspot_procs *h)
{
	hotspot_reader_stop(h);
	runtime_procs_free(&h->base);
	pthread_mutex_destroy(&h->error_lock);
	runtime_worker_free(&h->reader);
}
