/* SPDX-License-Identifier: GPL-2.0-only */
/* pprof.c: a pprof profile's tables (profile.proto's strings, mappings,
 * functions, locations and samples) built from resolved samples;
 * pprof_write.c encodes them. */
#include "report/pprof.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/byte_buffer.h"
#include "lib/key_text.h"
#include "lib/terminal_text.h"
#include "report/pprof_entries.h"

/* One of the builder's tables: entries by key, and in order of ids. */
struct table {
	struct hash_map *index;
	void ***list;
	size_t *nr, *cap;
};

void pprof_builder_init(struct pprof_builder *b)
{
	memset(b, 0, sizeof(*b));
	hash_map_init(&b->strings, hash_string, equal_string);
	hash_map_init(&b->mappings, hash_string, equal_string);
	hash_map_init(&b->functions, hash_string, equal_string);
	hash_map_init(&b->locations, hash_string, equal_string);
	hash_map_init(&b->samples, hash_string, equal_string);
}

static void free_list(void **list, size_t nr, bool samples)
{
	for (size_t i = 0; i < nr; i++) {
		struct entry *e = list[i];

		if (samples)
			free(((struct sample *)e)->locations);
		free(e->key);
		free(e);
	}
	free(list);
}

void pprof_builder_free(struct pprof_builder *b)
{
	hash_map_free(&b->strings);
	hash_map_free(&b->mappings);
	hash_map_free(&b->functions);
	hash_map_free(&b->locations);
	hash_map_free(&b->samples);
	free_list(b->string_list, b->nr_strings, false);
	free_list(b->mapping_list, b->nr_mappings, false);
	free_list(b->function_list, b->nr_functions, false);
	free_list(b->location_list, b->nr_locations, false);
	free_list(b->sample_list, b->nr_samples, true);
	free(b->stack);
	free(b->memo);
	memset(b, 0, sizeof(*b));
}

/* The entry of t under key, made (size bytes, zeroed, the next id) if new:
 * *added tells. NULL if memory ran out. */
static void *lookup(struct table t, const char *key, size_t size, bool *added)
{
	struct entry *e = hash_map_get(t.index, key);

	*added = false;
	if (e)
		return e;
	if (*t.nr == *t.cap) {
		size_t cap = *t.cap ? *t.cap * 2 : 256;
		void **grown = realloc(*t.list, cap * sizeof(*grown));

		if (!grown)
			return NULL;
		*t.list = grown;
		*t.cap = cap;
	}
	e = calloc(1, size);
	if (!e || !(e->key = strdup(key))) {
		free(e);
		return NULL;
	}
	if (hash_map_put(t.index, e->key, e)) {
		free(e->key);
		free(e);
		return NULL;
	}
	(*t.list)[(*t.nr)++] = e;
	e->id = *t.nr;
	*added = true;
	return e;
}

#define TABLE(b, what) ((struct table){ &(b)->what##s, &(b)->what##_list, &(b)->nr_##what##s, &(b)->cap_##what##s })

int64_t pprof_string_index(struct pprof_builder *b, const char *s)
{
	struct byte_buffer clean = { 0 };
	size_t len = strlen(s);
	bool added;
	struct entry *e;

	if (!b->nr_strings && s[0] && pprof_string_index(b, "") < 0) /* [0] is "" */
		return -ENOMEM;
	if (!terminal_text_utf8_plain(s, len)) {
		if (!terminal_text_utf8(&clean, s, len) || !byte_buffer_append(&clean, "", 1)) {
			byte_buffer_free(&clean);
			return -ENOMEM;
		}
		s = (const char *)clean.data;
	}
	e = lookup(TABLE(b, string), s, sizeof(*e), &added);
	byte_buffer_free(&clean);
	return e ? (int64_t)e->id - 1 : -ENOMEM;
}

/* The mapping of a frame (0: none), added if new. */
static int mapping_of(struct pprof_builder *b, const struct pprof_frame *f, uint64_t *id)
{
	char key[4200], hex[41];
	struct key_text k;
	struct mapping *m;
	bool added, kernel = !f->mapped || f->map_end <= f->map_start;

	*id = 0;
	if (!strcmp(f->dso, "[unknown]"))
		return 0;
	/* "DSO", or "START-END@PGOFF DSO" */
	key_text_init(&k, key, sizeof(key));
	if (!kernel) {
		key_text_hex(&k, f->map_start);
		key_text_char(&k, '-');
		key_text_hex(&k, f->map_end);
		key_text_char(&k, '@');
		key_text_hex(&k, f->map_pgoff);
		key_text_char(&k, ' ');
	}
	key_text_str(&k, f->dso);
	m = lookup(TABLE(b, mapping), key, sizeof(*m), &added);
	if (!m)
		return -ENOMEM;
	if (added) {
		m->grows = kernel;
		m->start = kernel ? f->ip : f->map_start;
		m->limit = kernel ? f->ip + 1 : f->map_end;
		m->pgoff = kernel ? 0 : f->map_pgoff;
		m->filename = pprof_string_index(b, f->dso);
		m->build_id = 0;
		if (f->build_id && f->build_id_size && f->build_id_size <= 20) {
			for (size_t i = 0; i < f->build_id_size; i++)
				snprintf(hex + 2 * i, 3, "%02x", f->build_id[i]);
			m->build_id = pprof_string_index(b, hex);
		}
		if (m->filename < 0 || m->build_id < 0)
			return -ENOMEM;
	} else if (m->grows) {
		if (f->ip < m->start)
			m->start = f->ip;
		if (f->ip >= m->limit)
			m->limit = f->ip + 1;
	}
	*id = m->e.id;
	return 0;
}

/* A frame's location found before, by the frame's fields as given (its DSO
 * and function by the caller's pointers): samples repeat the frames of those
 * before them, and a frame's three keys built and hashed were a fifth of
 * the time a profile took. */
struct location_memo {
	uint64_t ip, map_start, map_end, map_pgoff;
	const char *function, *dso;
	bool mapped;
	uint64_t id; /* 0: none */
};

static size_t memo_slot(const struct pprof_frame *f)
{
	uint64_t fields[6] = { f->ip, f->map_start, f->map_end, f->map_pgoff,
			       (uint64_t)(uintptr_t)f->function, (uint64_t)(uintptr_t)f->dso };

	return (size_t)hash_bytes(fields, sizeof(fields), f->mapped) & (PPROF_LOCATION_MEMO - 1);
}

/* The memo's location for f, if it still is f's: the pointers may have been
 * reused for other text, so the location's function and file names are
 * compared (a name the string table changed, with control bytes, is not
 * found here, only by its keys). 0 if none. */
static uint64_t memo_find(const struct pprof_builder *b, const struct pprof_frame *f)
{
	const struct location_memo *m = b->memo ? &b->memo[memo_slot(f)] : NULL;
	const struct location *loc;
	const struct function *fn;

	if (!m || !m->id || m->ip != f->ip || m->map_start != f->map_start ||
	    m->map_end != f->map_end || m->map_pgoff != f->map_pgoff || m->function != f->function ||
	    m->dso != f->dso || m->mapped != f->mapped)
		return 0;
	loc = b->location_list[m->id - 1];
	fn = b->function_list[loc->function_id - 1];
	if (strcmp(((const struct entry *)b->string_list[fn->name])->key, f->function) ||
	    strcmp(((const struct entry *)b->string_list[fn->filename])->key, f->dso))
		return 0;
	return m->id;
}

static void memo_keep(struct pprof_builder *b, const struct pprof_frame *f, uint64_t id)
{
	if (!b->memo && !(b->memo = calloc(PPROF_LOCATION_MEMO, sizeof(*b->memo))))
		return; /* (a speed-up only) */
	b->memo[memo_slot(f)] = (struct location_memo){
		f->ip, f->map_start, f->map_end, f->map_pgoff, f->function, f->dso, f->mapped, id,
	};
}

/* The location of a frame, with its mapping and function, added if new. */
static int location_of(struct pprof_builder *b, const struct pprof_frame *f, uint64_t *id)
{
	char key[4200];
	struct key_text k;
	struct function *fn;
	struct location *loc;
	uint64_t mapping_id;
	bool added;

	if ((*id = memo_find(b, f)))
		return 0;
	if (mapping_of(b, f, &mapping_id))
		return -ENOMEM;
	/* "DSO\tFUNCTION" */
	key_text_init(&k, key, sizeof(key));
	key_text_str(&k, f->dso);
	key_text_char(&k, '\t');
	key_text_str(&k, f->function);
	fn = lookup(TABLE(b, function), key, sizeof(*fn), &added);
	if (!fn)
		return -ENOMEM;
	if (added) {
		fn->name = pprof_string_index(b, f->function);
		fn->filename = pprof_string_index(b, f->dso);
		if (fn->name < 0 || fn->filename < 0)
			return -ENOMEM;
	}
	/* "MAPPING:IP:FUNCTION", all three in hex */
	key_text_init(&k, key, sizeof(key));
	key_text_hex(&k, mapping_id);
	key_text_char(&k, ':');
	key_text_hex(&k, f->ip);
	key_text_char(&k, ':');
	key_text_hex(&k, fn->e.id);
	loc = lookup(TABLE(b, location), key, sizeof(*loc), &added);
	if (!loc)
		return -ENOMEM;
	if (added) {
		loc->mapping_id = mapping_id;
		loc->address = f->ip;
		loc->function_id = fn->e.id;
	}
	*id = loc->e.id;
	memo_keep(b, f, *id);
	return 0;
}

int pprof_add_sample(struct pprof_builder *b, const struct pprof_sample_labels *labels,
		     const struct pprof_frame *frames, size_t nr, uint64_t period)
{
	struct byte_buffer key = { 0 };
	int64_t comm = pprof_string_index(b, labels->comm);
	int64_t cgroup = labels->cgroup ? pprof_string_index(b, labels->cgroup) : -1;
	struct sample *s;
	char head[128];
	bool added;
	int ret = -ENOMEM;

	if (comm < 0 || (labels->cgroup && cgroup < 0))
		return -ENOMEM;
	if (nr > b->cap_stack) {
		uint64_t *grown = realloc(b->stack, nr * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		b->stack = grown;
		b->cap_stack = nr;
	}
	for (size_t i = 0; i < nr; i++)
		if (location_of(b, &frames[i], &b->stack[i]))
			return -ENOMEM;
	if (nr) {
		const struct location *leaf = b->location_list[b->stack[0] - 1];

		if (leaf->mapping_id)
			((struct mapping *)b->mapping_list[leaf->mapping_id - 1])->leaves++;
	}
	/* samples of one stack and the same labels add up */
	snprintf(head, sizeof(head), "%" PRId64 "/%" PRId64 "/%u/%u/%u|", comm, cgroup, labels->pid,
		 labels->tid, labels->cpu);
	if (!byte_buffer_append(&key, head, strlen(head)))
		goto out;
	for (size_t i = 0; i < nr; i++) {
		char id[24];
		struct key_text k;

		key_text_init(&k, id, sizeof(id));
		key_text_hex(&k, b->stack[i]);
		key_text_char(&k, ',');
		if (!byte_buffer_append(&key, id, (size_t)(k.at - id)))
			goto out;
	}
	if (!byte_buffer_append(&key, "", 1))
		goto out;
	s = lookup(TABLE(b, sample), (const char *)key.data, sizeof(*s), &added);
	if (!s)
		goto out;
	if (added) {
		s->locations = malloc((nr ? nr : 1) * sizeof(*s->locations));
		if (!s->locations)
			goto out;
		if (nr) /* a sample with no frame has no stack (NULL) */
			memcpy(s->locations, b->stack, nr * sizeof(*s->locations));
		s->nr_locations = nr;
		s->comm = comm;
		s->cgroup = cgroup;
		s->pid = labels->pid;
		s->tid = labels->tid;
		s->cpu = labels->cpu;
	}
	s->count++;
	s->period += (int64_t)period;
	ret = 0;
out:
	byte_buffer_free(&key);
	return ret;
}
