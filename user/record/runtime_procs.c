/* SPDX-License-Identifier: GPL-2.0-only */
/* runtime_procs.c: what the process tables of the runtimes the -g walk names
 * frames of (CPython, HotSpot, V8) share: their processes by pid, each with the
 * names it tried and its perf map's lines, an exited one's map handed to the
 * copies or kept, the maps written into a directory; and a thread of their own. */
#include "record/runtime_procs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/log.h"
#include "record/interp_range.h"
#include "record/unwind_file_key.h"

void runtime_procs_init(struct runtime_procs *t, int dirfd, struct file_copies *copies, bool on,
			const char *noun)
{
	memset(t, 0, sizeof(*t));
	pthread_mutex_init(&t->lock, NULL);
	hash_map_init(&t->files, file_key_hash, file_key_equal);
	hash_map_init(&t->procs, hash_u32_key, equal_u32_key);
	t->dirfd = dirfd;
	t->copies = copies;
	t->on = on;
	t->noun = noun;
}

bool runtime_procs_in_scope(const struct runtime_procs *t, uint32_t pid)
{
	return !t->sampler || bpf_sampler_has_process(t->sampler, pid);
}

void runtime_proc_free(struct runtime_proc *pr)
{
	hash_map_free_all(&pr->named);
	byte_buffer_free(&pr->map);
	free(pr);
}

void runtime_procs_let_go(struct runtime_procs *t, struct runtime_proc *pr)
{
	if (pr->exited_seq)
		t->nr_exited--;
	hash_map_remove(&t->procs, &pr->pid);
	runtime_proc_free(pr);
}

void *runtime_procs_new_proc(struct runtime_procs *t, uint32_t pid, size_t size)
{
	struct runtime_proc *pr = hash_map_get(&t->procs, &pid);

	if (pr)
		runtime_procs_let_go(t, pr);
	pr = calloc(1, size);
	if (!pr)
		return NULL;
	pr->pid = pid;
	hash_map_init(&pr->named, hash_u64_key, equal_u64_key);
	if (hash_map_put(&t->procs, &pr->pid, pr)) {
		runtime_proc_free(pr);
		return NULL;
	}
	return pr;
}

void runtime_procs_hand_over(struct runtime_procs *t, struct runtime_proc *pr)
{
	char name[64];

	if (pr->map.len) {
		/* (the copies free it once written) */
		snprintf(name, sizeof(name), "perf-%u.map", pr->pid);
		if (file_copies_append_bytes(t->copies, pr->map.data, pr->map.len, name))
			t->maps_failed++;
		else
			t->maps_written++;
		pr->map = (struct byte_buffer){ 0 };
	}
	runtime_procs_let_go(t, pr);
}

/* The exited process kept longest. */
static void find_oldest(void *value, void *ctx)
{
	struct runtime_proc *pr = value, **oldest = ctx;

	if (pr->exited_seq && (!*oldest || pr->exited_seq < (*oldest)->exited_seq))
		*oldest = pr;
}

void runtime_procs_exited(struct runtime_procs *t, struct runtime_proc *pr)
{
	struct runtime_proc *oldest = NULL;

	if (t->copies) {
		runtime_procs_hand_over(t, pr);
		return;
	}
	pr->exited_seq = ++t->exited_seq;
	if (++t->nr_exited > RUNTIME_EXITED_MAX) {
		hash_map_each(&t->procs, find_oldest, &oldest);
		if (oldest) {
			runtime_procs_let_go(t, oldest);
			t->evicted++;
		}
	}
}

struct map_dir {
	struct runtime_procs *t;
	int dirfd;
	const char *dirpath;
};

static void write_map(void *value, void *ctx)
{
	struct map_dir *d = ctx;
	struct runtime_proc *pr = value;
	char err[256];

	if (!pr->map.len)
		return;
	if (interp_map_append(d->dirfd, d->dirpath, pr->pid, pr->map.data, pr->map.len, err,
			      sizeof(err))) {
		rt_warn("%s %u: %s", d->t->noun, pr->pid, err);
		d->t->maps_failed++;
	} else {
		d->t->maps_written++;
	}
}

void runtime_procs_write_maps(struct runtime_procs *t, int dirfd, const char *dirpath)
{
	struct map_dir d = { .t = t, .dirfd = dirfd, .dirpath = dirpath };

	hash_map_each(&t->procs, write_map, &d);
}

static void free_proc(void *value, void *ctx)
{
	(void)ctx;
	runtime_proc_free(value);
}

void runtime_procs_free(struct runtime_procs *t)
{
	hash_map_each(&t->procs, free_proc, NULL);
	hash_map_free(&t->procs);
	hash_map_free_all(&t->files);
	pthread_mutex_destroy(&t->lock);
}

void runtime_worker_init(struct runtime_worker *w)
{
	pthread_condattr_t attr;

	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&w->wake, &attr);
	pthread_condattr_destroy(&attr);
}

int runtime_worker_start(struct runtime_worker *w, void *(*run)(void *), void *arg,
			 const char *name)
{
	int e;

	if (w->started)
		return 0;
	e = pthread_create(&w->thread, NULL, run, arg);
	if (e)
		return -e;
	pthread_setname_np(w->thread, name);
	w->started = true;
	return 0;
}

void runtime_worker_stop(struct runtime_worker *w, pthread_mutex_t *lock)
{
	if (!w->started)
		return;
	pthread_mutex_lock(lock);
	w->stopping = true;
	pthread_cond_broadcast(&w->wake);
	pthread_mutex_unlock(lock);
	pthread_join(w->thread, NULL);
	w->started = false;
}

void runtime_worker_free(struct runtime_worker *w)
{
	pthread_cond_destroy(&w->wake);
}
