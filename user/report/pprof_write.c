/* SPDX-License-Identifier: GPL-2.0-only */
/* pprof_write.c: a pprof builder's tables encoded as profile.proto with
 * protobuf-c, the samples' labels with them, and written gzipped. */
#include "report/pprof.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "report/pprof_entries.h"
#include "report/pprof_gzip.h"
#include "report/profile.pb-c.h"
#include "sys/container_labels.h"

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
	    (k = pprof_string_index(b, key)) < 0 || (v = pprof_string_index(b, value)) < 0)
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

	if (out->n_label >= LABELS_PER_SAMPLE || (k = pprof_string_index(b, key)) < 0)
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
	m.types[0].type = pprof_string_index(b, "samples");
	m.types[0].unit = pprof_string_index(b, "count");
	m.types[1].type = pprof_string_index(b, h->value_type);
	m.types[1].unit = pprof_string_index(b, h->value_unit);
	m.comment = h->comment ? pprof_string_index(b, h->comment) : 0;
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
