/* SPDX-License-Identifier: GPL-2.0-only */
/* pprof.c: a pprof profile (profile.proto, gzipped) built from resolved
 * samples: mappings, locations, functions, labels, encoded with protobuf-c. */
#include "report/pprof.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/byte_buffer.h"
#include "lib/key_text.h"
#include "lib/log.h"
#include "lib/terminal_text.h"
#include "report/pprof_gzip.h"
#include "report/profile.pb-c.h"
#include "sys/container_labels.h"

/* What every table's entries start with: the text that identifies the entry,
 * and its id (a string's index + 1; the id the profile gives the others). */
struct entry {
	char *key;
	uint64_t id;
};

struct mapping {
	struct entry e;
	uint64_t start, limit, pgoff;
	int64_t filename, build_id;
	bool grows; /* no known bounds (the kernel): those of its addresses */
	uint64_t leaves; /* samples taken in it */
};

struct function {
	struct entry e;
	int64_t name, filename;
};

struct location {
	struct entry e;
	uint64_t mapping_id, address, function_id;
};

struct sample {
	struct entry e;
	uint64_t *locations;
	size_t nr_locations;
	int64_t count, period;
	int64_t comm, cgroup; /* string indices; cgroup -1: none */
	uint32_t pid, tid, cpu;
};

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

/* The string table's index of s (added if new), or -ENOMEM if memory ran
 * out. The table holds s as a terminal is shown it (report's and script's
 * text), valid UTF-8 as profile.proto's strings must be: control bytes as C
 * escapes ("\x1b"), invalid bytes U+FFFD; names that differ only there share
 * one string. */
static int64_t string_index(struct pprof_builder *b, const char *s)
{
	struct byte_buffer clean = { 0 };
	size_t len = strlen(s);
	bool added;
	struct entry *e;

	if (!b->nr_strings && s[0] && string_index(b, "") < 0) /* [0] is "" */
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
		m->filename = string_index(b, f->dso);
		m->build_id = 0;
		if (f->build_id && f->build_id_size && f->build_id_size <= 20) {
			for (size_t i = 0; i < f->build_id_size; i++)
				snprintf(hex + 2 * i, 3, "%02x", f->build_id[i]);
			m->build_id = string_index(b, hex);
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

/* The location of a frame, with its mapping and function, added if new. */
static int location_of(struct pprof_builder *b, const struct pprof_frame *f, uint64_t *id)
{
	char key[4200];
	struct key_text k;
	struct function *fn;
	struct location *loc;
	uint64_t mapping_id;
	bool added;

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
		fn->name = string_index(b, f->function);
		fn->filename = string_index(b, f->dso);
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
	return 0;
}

int pprof_add_sample(struct pprof_builder *b, const struct pprof_sample_labels *labels,
		     const struct pprof_frame *frames, size_t nr, uint64_t period)
{
	struct byte_buffer key = { 0 };
	int64_t comm = string_index(b, labels->comm);
	int64_t cgroup = labels->cgroup ? string_index(b, labels->cgroup) : -1;
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

/* The profile's messages, pointing into arrays made here and into the
 * builder; freed by free_messages. */
struct messages {
	Perftools__Profiles__Profile p;
	Perftools__Profiles__ValueType types[2], *type_ptrs[2];
	Perftools__Profiles__Mapping *mappings, **mapping_ptrs;
	Perftools__Profiles__Function *functions, **function_ptrs;
	Perftools__Profiles__Location *locations, **location_ptrs;
	Perftools__Profiles__Line *lines, **line_ptrs;
	Perftools__Profiles__Sample *samples, **sample_ptrs;
	Perftools__Profiles__Label *labels, **label_ptrs;
	int64_t *values;
	int64_t comment;
	char **strings;
};

/* comm, pid, tid, cpu, cgroup (5); what the cgroup's path says of its
 * container: container_id, pod_uid, qos_class, container_runtime (4); what
 * its runtime says: namespace, pod, container (3); pid, tid and cpu again as
 * numbers (3). A label past these is a defect: add_label and
 * add_number_label refuse it. */
#define LABELS_PER_SAMPLE (5 + 4 + 3 + 3)

static void free_messages(struct messages *m)
{
	free(m->mappings), free(m->mapping_ptrs), free(m->functions), free(m->function_ptrs);
	free(m->locations), free(m->location_ptrs), free(m->lines), free(m->line_ptrs);
	free(m->samples), free(m->sample_ptrs), free(m->labels), free(m->label_ptrs);
	free(m->values);
	free(m->strings);
}

#define ALLOC(ptr, n) ((ptr) = calloc((size_t)(n) + 1, sizeof(*(ptr))))

/* A string label key = value (an index of the string table), if value is. */
static void add_label(struct pprof_builder *b, Perftools__Profiles__Sample *out,
		      Perftools__Profiles__Label *l, const char *key, const char *value)
{
	int64_t k, v;

	if (!value || !value[0] || out->n_label >= LABELS_PER_SAMPLE ||
	    (k = string_index(b, key)) < 0 || (v = string_index(b, value)) < 0)
		return;
	perftools__profiles__label__init(&l[out->n_label]);
	l[out->n_label].key = k;
	l[out->n_label].str = v;
	out->n_label++;
}

/* A number label key = value, its unit the key's name: go tool pprof drops
 * a number label whose value and unit are both 0 (cpu 0), and without a unit
 * it takes the key for one anyway. Its -tagfocus=pid=12 compares numbers
 * (exactly 12; pid=10:20 a range), where on a string label it would match
 * the regexp "12" anywhere (123, 312). */
static void add_number_label(struct pprof_builder *b, Perftools__Profiles__Sample *out,
			     Perftools__Profiles__Label *l, const char *key, uint32_t value)
{
	int64_t k;

	if (out->n_label >= LABELS_PER_SAMPLE || (k = string_index(b, key)) < 0)
		return;
	perftools__profiles__label__init(&l[out->n_label]);
	l[out->n_label].key = k;
	l[out->n_label].num = value;
	l[out->n_label].num_unit = k;
	out->n_label++;
}

/* The labels of s: strings, ids too (what Pyroscope and Parca keep as a
 * sample's labels), and pid, tid and cpu again as numbers (what go tool
 * pprof's -tagfocus=pid=N selects exactly). */
static void add_labels(struct pprof_builder *b, const struct sample *s,
		       Perftools__Profiles__Sample *out, Perftools__Profiles__Label *l)
{
	const char *cgroup = s->cgroup >= 0 ? ((struct entry *)b->string_list[s->cgroup])->key : NULL;
	struct container_labels c;
	struct kube_names names;
	char num[3][16];

	snprintf(num[0], sizeof(num[0]), "%u", s->pid);
	snprintf(num[1], sizeof(num[1]), "%u", s->tid);
	snprintf(num[2], sizeof(num[2]), "%u", s->cpu);
	add_label(b, out, l, "comm", ((struct entry *)b->string_list[s->comm])->key);
	add_label(b, out, l, "pid", num[0]);
	add_label(b, out, l, "tid", num[1]);
	add_label(b, out, l, "cpu", num[2]);
	add_label(b, out, l, "cgroup", cgroup);
	if (cgroup && container_labels_of(cgroup, &c)) {
		bool named = container_names_of_cgroup(b->names, cgroup, b->names_budget_ns, &names);

		add_label(b, out, l, "container_id", c.container_id);
		add_label(b, out, l, "pod_uid", c.pod_uid[0] || !named ? c.pod_uid : names.pod_uid);
		add_label(b, out, l, "qos_class", c.qos_class);
		add_label(b, out, l, "container_runtime", c.runtime);
		if (named) {
			add_label(b, out, l, "namespace", names.namespace_);
			add_label(b, out, l, "pod", names.pod);
			add_label(b, out, l, "container", names.container);
		}
	}
	add_number_label(b, out, l, "pid", s->pid);
	add_number_label(b, out, l, "tid", s->tid);
	add_number_label(b, out, l, "cpu", s->cpu);
}

static int fill_samples(struct pprof_builder *b, struct messages *m)
{
	if (!ALLOC(m->samples, b->nr_samples) || !ALLOC(m->sample_ptrs, b->nr_samples) ||
	    !ALLOC(m->labels, b->nr_samples * LABELS_PER_SAMPLE) ||
	    !ALLOC(m->label_ptrs, b->nr_samples * LABELS_PER_SAMPLE) ||
	    !ALLOC(m->values, b->nr_samples * 2))
		return -ENOMEM;
	for (size_t i = 0; i < b->nr_samples; i++) {
		const struct sample *s = b->sample_list[i];
		Perftools__Profiles__Sample *out = &m->samples[i];
		Perftools__Profiles__Label *l = &m->labels[i * LABELS_PER_SAMPLE];
		Perftools__Profiles__Label **lp = &m->label_ptrs[i * LABELS_PER_SAMPLE];

		perftools__profiles__sample__init(out);
		out->n_location_id = s->nr_locations;
		out->location_id = s->locations;
		out->n_value = 2;
		out->value = &m->values[2 * i];
		out->value[0] = s->count;
		out->value[1] = s->period;
		add_labels(b, s, out, l);
		if (out->n_label < 4) /* comm, pid, tid, cpu: out of memory */
			return -ENOMEM;
		for (size_t k = 0; k < out->n_label; k++)
			lp[k] = &l[k];
		out->label = lp;
		m->sample_ptrs[i] = out;
	}
	return 0;
}

static int fill_tables(struct pprof_builder *b, struct messages *m)
{
	if (!ALLOC(m->mappings, b->nr_mappings) || !ALLOC(m->mapping_ptrs, b->nr_mappings) ||
	    !ALLOC(m->functions, b->nr_functions) || !ALLOC(m->function_ptrs, b->nr_functions) ||
	    !ALLOC(m->locations, b->nr_locations) || !ALLOC(m->location_ptrs, b->nr_locations) ||
	    !ALLOC(m->lines, b->nr_locations) || !ALLOC(m->line_ptrs, b->nr_locations))
		return -ENOMEM;
	for (size_t i = 0; i < b->nr_mappings; i++) {
		const struct mapping *in = b->mapping_list[i];
		Perftools__Profiles__Mapping *out = &m->mappings[i];

		perftools__profiles__mapping__init(out);
		out->id = in->e.id;
		out->memory_start = in->start;
		out->memory_limit = in->limit;
		out->file_offset = in->pgoff;
		out->filename = in->filename;
		out->build_id = in->build_id;
		out->has_functions = true; /* resolved here: nothing left to symbolize */
		m->mapping_ptrs[i] = out;
	}
	/* pprof takes mapping[0] for the main binary: the file most samples
	 * were taken in, not the kernel's "[kernel.kallsyms]" nor another "[...]" */
	{
		size_t main = SIZE_MAX;

		for (size_t i = 0; i < b->nr_mappings; i++) {
			const struct mapping *in = b->mapping_list[i];

			if (((struct entry *)b->string_list[in->filename])->key[0] != '[' &&
			    (main == SIZE_MAX ||
			     in->leaves > ((struct mapping *)b->mapping_list[main])->leaves))
				main = i;
		}
		if (main != SIZE_MAX) {
			m->mapping_ptrs[main] = m->mapping_ptrs[0];
			m->mapping_ptrs[0] = &m->mappings[main];
		}
	}
	for (size_t i = 0; i < b->nr_functions; i++) {
		const struct function *in = b->function_list[i];
		Perftools__Profiles__Function *out = &m->functions[i];

		perftools__profiles__function__init(out);
		out->id = in->e.id;
		/* the name as written, no system name: pprof demangles a system
		 * name equal to the name and simplifies it, leaving "<module>"
		 * or "<lambda>" blank and "f(int)" as "f" */
		out->name = in->name;
		out->filename = in->filename;
		m->function_ptrs[i] = out;
	}
	for (size_t i = 0; i < b->nr_locations; i++) {
		const struct location *in = b->location_list[i];
		Perftools__Profiles__Location *out = &m->locations[i];

		perftools__profiles__location__init(out);
		perftools__profiles__line__init(&m->lines[i]);
		m->lines[i].function_id = in->function_id;
		m->line_ptrs[i] = &m->lines[i];
		out->id = in->e.id;
		out->mapping_id = in->mapping_id;
		out->address = in->address;
		out->n_line = 1;
		out->line = &m->line_ptrs[i];
		m->location_ptrs[i] = out;
	}
	return 0;
}

int pprof_write(struct pprof_builder *b, const struct pprof_header *h, FILE *out, char *err,
		size_t errlen)
{
	struct messages m = { 0 };
	Perftools__Profiles__Profile *p = &m.p;
	uint8_t *packed = NULL;
	size_t len;
	int ret = -ENOMEM;

	perftools__profiles__profile__init(p);
	for (int i = 0; i < 2; i++) {
		perftools__profiles__value_type__init(&m.types[i]);
		m.type_ptrs[i] = &m.types[i];
	}
	m.types[0].type = string_index(b, "samples");
	m.types[0].unit = string_index(b, "count");
	m.types[1].type = string_index(b, h->value_type);
	m.types[1].unit = string_index(b, h->value_unit);
	m.comment = h->comment ? string_index(b, h->comment) : 0;
	if (m.types[0].type < 0 || m.types[0].unit < 0 || m.types[1].type < 0 ||
	    m.types[1].unit < 0 || m.comment < 0 || fill_samples(b, &m) || fill_tables(b, &m))
		goto oom;
	p->n_sample_type = 2;
	p->sample_type = m.type_ptrs;
	p->period_type = &m.types[1];
	p->period = h->period;
	p->default_sample_type = m.types[1].type;
	p->time_nanos = h->time_nanos;
	p->duration_nanos = h->duration_nanos;
	if (h->comment) {
		p->n_comment = 1;
		p->comment = &m.comment;
	}
	p->n_sample = b->nr_samples;
	p->sample = m.sample_ptrs;
	p->n_mapping = b->nr_mappings;
	p->mapping = m.mapping_ptrs;
	p->n_location = b->nr_locations;
	p->location = m.location_ptrs;
	p->n_function = b->nr_functions;
	p->function = m.function_ptrs;
	/* the string entries' keys are the strings, in index order */
	if (!ALLOC(m.strings, b->nr_strings))
		goto oom;
	for (size_t i = 0; i < b->nr_strings; i++)
		m.strings[i] = ((struct entry *)b->string_list[i])->key;
	p->n_string_table = b->nr_strings;
	p->string_table = m.strings;
	len = perftools__profiles__profile__get_packed_size(p);
	packed = malloc(len ? len : 1);
	if (!packed)
		goto oom;
	perftools__profiles__profile__pack(p, packed);
	ret = pprof_write_gzip(out, packed, len, err, errlen);
	goto out;
oom:
	rt_format(err, errlen, "out of memory");
out:
	free(packed);
	free_messages(&m);
	return ret;
}
