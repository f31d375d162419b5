/* SPDX-License-Identifier: GPL-2.0-only */
/* v8_namer.c: names the JavaScript functions the -g walks wrote, from their
 * processes' memory, on a thread of its own that keeps CAP_SYS_PTRACE (reading
 * another process's memory takes it) after the rest of ringtrace dropped every
 * capability: each V8_NAMER_PERIOD_MS, and once more as it ends. */
#include "record/v8_proc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/log.h"
#include "lib/monotonic.h"
#include "record/interp_range.h"
#include "symbols/v8_names.h"
#include "sys/privileges.h"

/* The functions taken from the walks, being named (the namer's alone). */
static struct rt_v8_function_key keys[V8_TAKE_PER_CALL];
static struct rt_v8_function_info infos[V8_TAKE_PER_CALL];

/* Key k's process, if it still runs the same program (v->lock held). */
static struct v8_proc *running(struct v8_procs *v, uint32_t pid, uint64_t serial)
{
	struct v8_proc *pr = hash_map_get(&v->procs, &pid);

	return pr && pr->live && !pr->exited_seq && (!serial || pr->serial == serial) ? pr : NULL;
}

/* Claims addr of pr as tried (v->lock held): false if it was, or there is
 * no room for more (counted). */
static bool claim(struct v8_procs *v, struct v8_proc *pr, uint64_t addr)
{
	uint64_t *n;

	if (hash_map_get(&pr->named, &addr))
		return false;
	if (pr->named.len >= V8_NAMES_PER_PROCESS || pr->map.len >= V8_MAP_BYTES ||
	    !(n = malloc(sizeof(*n)))) {
		v->names_dropped++;
		return false;
	}
	*n = addr;
	if (hash_map_put(&pr->named, n, n)) {
		free(n);
		v->names_dropped++;
		return false;
	}
	return true;
}

/* Names function i of those taken: read with v->lock let go. */
static void name_one(struct v8_procs *v, size_t i)
{
	const struct rt_v8_function_key *k = &keys[i];
	uint64_t addr = RT_V8_ADDR_OF(k->sfi, k->tag), serial;
	struct v8_function_name out;
	struct v8_layout layout;
	struct v8_proc *pr;
	size_t before;
	int r;

	pthread_mutex_lock(&v->lock);
	pr = running(v, k->tgid, 0);
	if (!pr || k->tag >= RT_PY_TAGS) {
		v->names_dropped++;
		pthread_mutex_unlock(&v->lock);
		return;
	}
	if (!claim(v, pr, addr)) {
		pthread_mutex_unlock(&v->lock);
		return;
	}
	serial = pr->serial;
	layout = pr->file->elf.layout;
	pthread_mutex_unlock(&v->lock);

	r = v8_function_name(k->tgid, &layout, k->sfi, infos[i].name, infos[i].script, &out);

	pthread_mutex_lock(&v->lock);
	pr = running(v, k->tgid, serial);
	if (!pr) {
		v->names_dropped++;
	} else if (r == -ESTALE) {
		v->stale++;
	} else if (r) {
		v->name_failed++;
		rt_format(v->last_error, sizeof(v->last_error), "process %u: %s", k->tgid,
			  strerror(-r));
	} else {
		before = pr->map.len;
		if (interp_map_begin(&pr->map) &&
		    interp_map_line(&pr->map, addr, 0, RT_PY_CODE_SPAN, out.name, out.file, out.line)) {
			v->named++;
		} else {
			pr->map.len = before; /* no half a line */
			v->names_dropped++;
		}
	}
	pthread_mutex_unlock(&v->lock);
}

void v8_namer_take(struct v8_procs *v)
{
	size_t nr;

	pthread_mutex_lock(&v->lock);
	nr = v->attached ? v8_maps_take_seen(&v->maps, keys, infos, V8_TAKE_PER_CALL) : 0;
	pthread_mutex_unlock(&v->lock);
	for (size_t i = 0; i < nr; i++)
		name_one(v, i);
}

static void *run(void *arg)
{
	struct v8_procs *v = arg;

	/* (a thread keeping more than that, or what the process drops, would
	 * be a hole: it ends) */
	if (privileges_thread_keep_ptrace()) {
		pthread_mutex_lock(&v->lock);
		v->namer_failed = true;
		pthread_mutex_unlock(&v->lock);
		return NULL;
	}
	pthread_mutex_lock(&v->lock);
	while (!v->namer_stopping) {
		uint64_t wake = monotonic_ns() + V8_NAMER_PERIOD_MS * 1000000ull;
		struct timespec until = { (time_t)(wake / 1000000000ull),
					  (long)(wake % 1000000000ull) };

		pthread_mutex_unlock(&v->lock);
		v8_namer_take(v);
		pthread_mutex_lock(&v->lock);
		while (!v->namer_stopping &&
		       pthread_cond_timedwait(&v->namer_wake, &v->lock, &until) != ETIMEDOUT)
			;
	}
	pthread_mutex_unlock(&v->lock);
	/* what the walks wrote last, while their processes run */
	v8_namer_take(v);
	return NULL;
}

int v8_namer_start(struct v8_procs *v)
{
	int e;

	if (!v->on || v->namer_started)
		return 0;
	e = pthread_create(&v->namer, NULL, run, v);
	if (e)
		return -e;
	pthread_setname_np(v->namer, "rt-v8-namer");
	v->namer_started = true;
	return 0;
}

void v8_namer_stop(struct v8_procs *v)
{
	if (!v->namer_started)
		return;
	pthread_mutex_lock(&v->lock);
	v->namer_stopping = true;
	pthread_cond_broadcast(&v->namer_wake);
	pthread_mutex_unlock(&v->lock);
	pthread_join(v->namer, NULL);
	v->namer_started = false;
}
