/* SPDX-License-Identifier: GPL-2.0-only */
/* flight_sideband.c: a flight recording's side-band kept bounded: the records
 * of processes that exited before the oldest sample the recording still holds
 * are dropped, as no sample held can be theirs, and the FORK, COMM and EXIT
 * of threads that exited so (of processes still alive). */
#include "record/flight_sideband.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "format/perf_record.h"
#include "format/recording_layout.h"
#include "lib/hash_map.h"

/* A process gone: the time of its last exit before the cut. */
struct gone {
	uint32_t pid;
	uint64_t exit_time;
};

static uint64_t hash_pid(const void *k)
{
	return *(const uint32_t *)k * 0x9E3779B97F4A7C15ULL;
}

static bool equal_pid(const void *a, const void *b)
{
	return *(const uint32_t *)a == *(const uint32_t *)b;
}

/* The record at b's offset at, if a whole one is there. */
static const struct perf_event_header *record_at(const struct byte_buffer *b, size_t at)
{
	const struct perf_event_header *h = (const void *)(b->data + at);

	if (at + sizeof(*h) > b->len || h->size < sizeof(*h) || at + h->size > b->len)
		return NULL;
	return h;
}

/* The process and thread a side-band record is of, and its time; false for
 * one of no process (the kernel's) or one that cannot be read (kept). */
static bool task_of(const struct perf_event_header *h, uint32_t *pid, uint32_t *tid,
		    uint64_t *time)
{
	struct perf_sample_id id;
	struct perf_task t;

	if (h->type == PERF_RECORD_FORK || h->type == PERF_RECORD_EXIT) {
		if (perf_task_decode(h, &t))
			return false;
		*pid = t.pid;
		*tid = t.tid;
		*time = t.time;
		return true;
	}
	if (perf_sample_id_decode(h, RECORDING_SAMPLE_ID_TYPE, &id) || id.pid == (uint32_t)-1)
		return false;
	*pid = id.pid;
	*tid = id.tid;
	*time = id.time;
	return true;
}

/* The processes (pid == tid) that exited before oldest in b, into gone, the
 * threads of others into gone_threads. */
static int note_exits(struct hash_map *gone, struct hash_map *gone_threads,
		      const struct byte_buffer *b, uint64_t oldest)
{
	const struct perf_event_header *h;
	struct perf_task t;

	for (size_t at = 0; (h = record_at(b, at)); at += h->size) {
		struct hash_map *into;
		struct gone *g;

		if (h->type != PERF_RECORD_EXIT || perf_task_decode(h, &t) || t.time >= oldest)
			continue;
		into = t.pid == t.tid ? gone : gone_threads;
		t.pid = t.tid; /* the key: the process's, or the thread's */
		g = hash_map_get(into, &t.pid);
		if (!g) {
			if (!(g = calloc(1, sizeof(*g))))
				return -ENOMEM;
			g->pid = t.pid;
			if (hash_map_put(into, &g->pid, g)) {
				free(g);
				return -ENOMEM;
			}
		}
		if (t.time > g->exit_time)
			g->exit_time = t.time;
	}
	return 0;
}

/* Whether h is a record of a process in gone, or of a thread in
 * gone_threads, from before its exit. */
static bool of_the_gone(const struct hash_map *gone, const struct hash_map *gone_threads,
			const struct perf_event_header *h)
{
	const struct gone *g;
	uint32_t pid, tid;
	uint64_t time;

	if (!task_of(h, &pid, &tid, &time))
		return false;
	if ((g = hash_map_get(gone, &pid)) && time <= g->exit_time)
		return true;
	/* a thread's own records: a mapping is its process's, whichever made it */
	return (h->type == PERF_RECORD_FORK || h->type == PERF_RECORD_EXIT ||
		h->type == PERF_RECORD_COMM) &&
	       (g = hash_map_get(gone_threads, &tid)) && time <= g->exit_time;
}

/* Moves b's records of no process in gone and no thread in gone_threads (or
 * after their exit) to its front; the bytes dropped. */
static size_t drop_gone(const struct hash_map *gone, const struct hash_map *gone_threads,
			struct byte_buffer *b)
{
	const struct perf_event_header *h;
	size_t kept = 0, at = 0, dropped;

	/* at moves by the size read before the move: a record moved down over
	 * less than its own size overwrites its header at its old place */
	for (size_t size; (h = record_at(b, at)); at += size) {
		size = h->size;
		if (of_the_gone(gone, gone_threads, h))
			continue;
		if (kept != at)
			memmove(b->data + kept, b->data + at, size);
		kept += size;
	}
	/* what follows the last whole record (nothing: records come whole)
	 * stays; an empty buffer may have no memory at all */
	if (b->len > at)
		memmove(b->data + kept, b->data + at, b->len - at);
	dropped = at - kept;
	b->len -= dropped;
	return dropped;
}

/* A process forked shares its parent's mappings until it execs, and a
 * reader knows them from the parent's records: the parents (and theirs) of a
 * process not gone are kept. Returns whether one was taken out of gone. */
static bool keep_parents(struct hash_map *gone, const struct byte_buffer *b)
{
	const struct perf_event_header *h;
	struct perf_task t;
	bool changed = false;

	for (size_t at = 0; (h = record_at(b, at)); at += h->size) {
		if (h->type != PERF_RECORD_FORK || perf_task_decode(h, &t) || t.pid == t.ppid ||
		    hash_map_get(gone, &t.pid) || !hash_map_get(gone, &t.ppid))
			continue;
		free(hash_map_remove(gone, &t.ppid));
		changed = true;
	}
	return changed;
}

long flight_sideband_prune(struct byte_buffer *const *bufs, unsigned int nr, uint64_t oldest)
{
	struct hash_map gone, gone_threads;
	long dropped = 0;
	int r = 0;

	hash_map_init(&gone, hash_pid, equal_pid);
	hash_map_init(&gone_threads, hash_pid, equal_pid);
	for (unsigned int i = 0; i < nr && !r; i++)
		r = note_exits(&gone, &gone_threads, bufs[i], oldest);
	/* until no parent is taken out: each pass takes one out at least */
	for (bool changed = !r; changed && gone.len;) {
		changed = false;
		for (unsigned int i = 0; i < nr; i++)
			changed |= keep_parents(&gone, bufs[i]);
	}
	if (!r && (gone.len || gone_threads.len))
		for (unsigned int i = 0; i < nr; i++)
			dropped += (long)drop_gone(&gone, &gone_threads, bufs[i]);
	hash_map_free_all(&gone);
	hash_map_free_all(&gone_threads);
	return r ? r : dropped;
}
