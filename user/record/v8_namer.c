/* SPDX-License-Identifier: GPL-2.0-only */
/* v8_namer.c: names the JavaScript functions the -g walks wrote, from their
 * processes' memory, on a thread of its own that keeps CAP_SYS_PTRACE (reading
 * another process's memory takes it) after the rest of ringtrace dropped every
 * capability: each V8_NAMER_PERIOD_MS, and once more as it ends; and decodes the
 * functions inlined at the pcs of optimized code the walks met, for them. */
#include "record/v8_proc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/log.h"
#include "lib/monotonic.h"
#include "record/interp_range.h"
#include "symbols/v8_code.h"
#include "symbols/v8_names.h"
#include "sys/privileges.h"

/* What was taken from the walks, being named and decoded (the namer's alone). */
static struct rt_v8_function_key keys[V8_TAKE_PER_CALL];
static struct rt_v8_function_info infos[V8_TAKE_PER_CALL];
static struct rt_v8_pc_key pc_keys[V8_DECODE_PER_CALL];
static struct rt_v8_pc_info pc_infos[V8_DECODE_PER_CALL];
/* The lines of the sources of scripts named lately. */
static struct v8_lines lines;

/* Process pid, if it still runs the same program (serial; 0: any)
 * (v->base.lock held). */
static struct v8_proc *running(struct v8_procs *v, uint32_t pid, uint64_t serial)
{
	struct v8_proc *pr = hash_map_get(&v->base.procs, &pid);

	return pr && pr->base.live && !pr->base.exited_seq && (!serial || pr->serial == serial) ?
		       pr : NULL;
}

/* Claims addr of pr as tried (v->base.lock held): false if it was, or there is
 * no room for more (counted). */
static bool claim(struct v8_procs *v, struct v8_proc *pr, uint64_t addr)
{
	uint64_t *n;

	if (hash_map_get(&pr->base.named, &addr))
		return false;
	if (pr->base.named.len >= V8_NAMES_PER_PROCESS || pr->base.map.len >= V8_MAP_BYTES ||
	    !(n = malloc(sizeof(*n)))) {
		v->names_dropped++;
		return false;
	}
	*n = addr;
	if (hash_map_put(&pr->base.named, n, n)) {
		free(n);
		v->names_dropped++;
		return false;
	}
	return true;
}

/* pid's process and a copy of its layout, if it runs (*serial its serial). */
static bool layout_of(struct v8_procs *v, uint32_t pid, struct v8_layout *layout,
		      uint64_t *serial)
{
	struct v8_proc *pr;

	pthread_mutex_lock(&v->base.lock);
	pr = running(v, pid, 0);
	if (pr) {
		*layout = pr->file->elf.layout;
		*serial = pr->serial;
	} else {
		v->names_dropped++;
	}
	pthread_mutex_unlock(&v->base.lock);
	return pr != NULL;
}

/* Names the function of pid whose SharedFunctionInfo is at sfi, holding
 * the name and script pointers a walk read (written at their tag's
 * address), into its process's map, once: its memory read with v->base.lock
 * let go. */
static void name_function(struct v8_procs *v, uint32_t pid, uint64_t sfi, uint64_t name,
			  uint64_t script)
{
	uint64_t addr = RT_V8_ADDR_OF(sfi, RT_V8_TAG_OF(name)), serial;
	struct v8_function_name out;
	struct v8_layout layout;
	struct v8_proc *pr;
	size_t before;
	int r;

	pthread_mutex_lock(&v->base.lock);
	pr = running(v, pid, 0);
	if (!pr) {
		v->names_dropped++;
		pthread_mutex_unlock(&v->base.lock);
		return;
	}
	if (!claim(v, pr, addr)) {
		pthread_mutex_unlock(&v->base.lock);
		return;
	}
	serial = pr->serial;
	layout = pr->file->elf.layout;
	pthread_mutex_unlock(&v->base.lock);

	r = v8_function_name(pid, &layout, sfi, name, script, &lines, &out);

	pthread_mutex_lock(&v->base.lock);
	pr = running(v, pid, serial);
	if (!pr) {
		v->names_dropped++;
	} else if (r == -ESTALE) {
		v->stale++;
	} else if (r) {
		v->name_failed++;
		rt_format(v->last_error, sizeof(v->last_error), "process %u: %s", pid, strerror(-r));
	} else {
		before = pr->base.map.len;
		if (interp_map_begin(&pr->base.map) &&
		    interp_map_line(&pr->base.map, addr, 0, RT_PY_CODE_SPAN, out.name, out.file,
				    out.line)) {
			v->named++;
		} else {
			pr->base.map.len = before; /* no half a line */
			v->names_dropped++;
		}
	}
	pthread_mutex_unlock(&v->base.lock);
}

/* Decodes pc i of those taken: the functions inlined there, each named,
 * told to the walks (one frame, its own function's, where none is inlined
 * or the code cannot be decoded: the walks stop telling of it). */
static void decode_pc(struct v8_procs *v, size_t i)
{
	const struct rt_v8_pc_key *k = &pc_keys[i];
	struct v8_inline_frame frames[RT_V8_MAX_INLINE];
	struct rt_v8_inlined in = { .nr = 1 };
	struct v8_layout layout;
	uint64_t serial, name, script;
	int r;

	if (!layout_of(v, k->tgid, &layout, &serial))
		return;
	r = v8_inlined_at(k->tgid, &layout, pc_infos[i].function, k->ip, k->exact, frames,
			  RT_V8_MAX_INLINE);
	for (int j = 0; r > 1 && j < r; j++) {
		if (v8_sfi_read(k->tgid, &layout, frames[j].sfi, &name, &script)) {
			r = -ESTALE;
			break;
		}
		name_function(v, k->tgid, frames[j].sfi, name, script);
		in.frame[j] = RT_V8_ADDR_OF(frames[j].sfi, RT_V8_TAG_OF(name));
	}
	if (r > 1)
		in.nr = (uint32_t)r;
	pthread_mutex_lock(&v->base.lock);
	v->pcs_decoded += r > 1;
	v->pcs_not_inlined += r == 1;
	v->pcs_undecoded += r < 1;
	if (running(v, k->tgid, serial) && v8_maps_set_inlined(&v->maps, k, &in))
		v->pcs_undecoded++;
	pthread_mutex_unlock(&v->base.lock);
}

void v8_namer_take(struct v8_procs *v)
{
	size_t nr, nr_pcs;

	pthread_mutex_lock(&v->base.lock);
	nr = v->base.attached ? v8_maps_take_seen(&v->maps, keys, infos, V8_TAKE_PER_CALL) : 0;
	nr_pcs = v->base.attached ? v8_maps_take_code_seen(&v->maps, pc_keys, pc_infos,
							    V8_DECODE_PER_CALL) : 0;
	pthread_mutex_unlock(&v->base.lock);
	for (size_t i = 0; i < nr; i++)
		if (keys[i].tag == RT_V8_TAG_OF(infos[i].name))
			name_function(v, keys[i].tgid, keys[i].sfi, infos[i].name, infos[i].script);
	for (size_t i = 0; i < nr_pcs; i++)
		decode_pc(v, i);
}

static void *run(void *arg)
{
	struct v8_procs *v = arg;

	/* (a thread keeping more than that, or what the process drops, would
	 * be a hole: it ends) */
	if (privileges_thread_keep_ptrace()) {
		rt_warn("cannot set the capabilities of the thread naming JavaScript functions: "
			"they stay unnamed");
		return NULL;
	}
	pthread_mutex_lock(&v->base.lock);
	while (!v->namer.stopping) {
		uint64_t wake = monotonic_ns() + V8_NAMER_PERIOD_MS * 1000000ull;
		struct timespec until = { (time_t)(wake / 1000000000ull),
					  (long)(wake % 1000000000ull) };

		pthread_mutex_unlock(&v->base.lock);
		v8_namer_take(v);
		pthread_mutex_lock(&v->base.lock);
		while (!v->namer.stopping &&
		       pthread_cond_timedwait(&v->namer.wake, &v->base.lock, &until) != ETIMEDOUT)
			;
	}
	pthread_mutex_unlock(&v->base.lock);
	/* what the walks wrote last, while their processes run */
	v8_namer_take(v);
	v8_lines_free(&lines);
	return NULL;
}

int v8_namer_start(struct v8_procs *v)
{
	if (!v->base.on)
		return 0;
	return runtime_worker_start(&v->namer, run, v, "rt-v8-namer");
}

void v8_namer_stop(struct v8_procs *v)
{
	runtime_worker_stop(&v->namer, &v->base.lock);
}
