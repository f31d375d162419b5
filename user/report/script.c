/* SPDX-License-Identifier: GPL-2.0-only */
/* script.c: "ringtrace script": every sample and LOST record of a recording,
 * one per line in time order across CPUs, in perf script's default format. */
#include "report/script.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "report/recording.h"

#define MAX_FIELDS 64

/* A field of a tracepoint's record, from its format text. */
struct tp_field {
	char type[64];
	char name[64];
	unsigned int offset, size;
	bool is_signed;
};

/* The fields of one event, parsed once. */
struct tp_format {
	bool parsed;
	struct tp_field fields[MAX_FIELDS];
	unsigned int nr;
};

struct script_state {
	FILE *out;
	struct tp_format *formats; /* by event index */
};

/* Parses "\tfield:TYPE NAME;\toffset:O;\tsize:S;\tsigned:X;". */
static bool parse_field(const char *line, const char *end, struct tp_field *f)
{
	const char *decl = line + strlen("\tfield:"), *semi = memchr(decl, ';', (size_t)(end - decl));
	const char *name, *p;
	char text[160];
	size_t len;

	if (!semi || (size_t)(semi - decl) >= sizeof(text))
		return false;
	len = (size_t)(semi - decl);
	memcpy(text, decl, len);
	text[len] = '\0';
	/* the name is the last word, before any [N] */
	p = strchr(text, '[') ? strchr(text, '[') : text + len;
	name = p;
	while (name > text && (isalnum((unsigned char)name[-1]) || name[-1] == '_'))
		name--;
	if (name == p)
		return false;
	snprintf(f->name, sizeof(f->name), "%.*s", (int)(p - name), name);
	snprintf(f->type, sizeof(f->type), "%.*s%s", (int)(name - text), text,
		 strchr(text, '[') ? "[]" : "");
	p = semi;
	if (!(p = strstr(p, "offset:")) || p > end || sscanf(p, "offset:%u", &f->offset) != 1)
		return false;
	if (!(p = strstr(p, "size:")) || p > end || sscanf(p, "size:%u", &f->size) != 1)
		return false;
	p = strstr(p, "signed:");
	f->is_signed = p && p < end && p[7] == '1';
	return true;
}

/* The format of tracepoint id in the recording's tracing data. */
static void load_format(const struct perf_input *in, uint64_t id, struct tp_format *fmt)
{
	const char *data = (const char *)in->tracing_data, *end, *at, *line;
	char needle[40];
	int n = snprintf(needle, sizeof(needle), "\nID: %" PRIu64 "\n", id);

	fmt->parsed = true;
	if (!data)
		return;
	end = data + in->tracing_data_size;
	at = memmem(data, in->tracing_data_size, needle, (size_t)n);
	if (!at)
		return;
	line = at + n;
	while (line < end && fmt->nr < MAX_FIELDS) {
		const char *eol = memchr(line, '\n', (size_t)(end - line));

		if (!eol)
			eol = end;
		if (!strncmp(line, "print fmt:", 10) || !strncmp(line, "name:", 5))
			break;
		if (!strncmp(line, "\tfield:", 7) && parse_field(line, eol, &fmt->fields[fmt->nr]))
			fmt->nr++;
		line = eol + 1;
	}
}

static uint64_t read_uint(const uint8_t *p, unsigned int size)
{
	uint8_t b1;
	uint16_t b2;
	uint32_t b4;
	uint64_t b8 = 0;

	switch (size) {
	case 1:
		memcpy(&b1, p, 1);
		return b1;
	case 2:
		memcpy(&b2, p, 2);
		return b2;
	case 4:
		memcpy(&b4, p, 4);
		return b4;
	default:
		memcpy(&b8, p, 8);
		return b8;
	}
}

static void print_string(FILE *out, const uint8_t *p, size_t max)
{
	fputc('"', out);
	for (size_t i = 0; i < max && p[i]; i++)
		fputc(isprint(p[i]) && p[i] != '"' ? p[i] : '.', out);
	fputc('"', out);
}

/* name=value for every field past the common ones, as far as the record
 * holds them. */
static void print_fields(FILE *out, const struct tp_format *fmt, const uint8_t *raw, uint32_t size)
{
	for (unsigned int i = 0; i < fmt->nr; i++) {
		const struct tp_field *f = &fmt->fields[i];
		const uint8_t *p = raw + f->offset;
		bool chars = strstr(f->type, "char") != NULL;

		if (!strncmp(f->name, "common_", 7) || f->offset + f->size > size)
			continue;
		fprintf(out, " %s=", f->name);
		if (strstr(f->type, "__data_loc") || strstr(f->type, "__rel_loc")) {
			uint32_t loc = (uint32_t)read_uint(p, 4), off = loc & 0xffff, len = loc >> 16;

			if (strstr(f->type, "__rel_loc"))
				off += f->offset + f->size;
			if (off + len <= size && chars)
				print_string(out, raw + off, len);
			else
				fprintf(out, "[%u bytes]", len);
		} else if (chars && strstr(f->type, "[]")) {
			print_string(out, p, f->size);
		} else if (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8) {
			uint64_t v = read_uint(p, f->size);

			if (strchr(f->type, '*'))
				fprintf(out, "0x%" PRIx64, v);
			else if (f->is_signed)
				fprintf(out, "%" PRId64,
					f->size == 8 ? (int64_t)v : (int64_t)(v << (64 - 8 * f->size)) >> (64 - 8 * f->size));
			else
				fprintf(out, "%" PRIu64, v);
		} else {
			fprintf(out, "[%u bytes]", f->size);
		}
	}
}

static void print_time(FILE *out, uint64_t t)
{
	fprintf(out, "%5" PRIu64 ".%06" PRIu64 ":", t / 1000000000u, t % 1000000000u / 1000u);
}

static void print_where(FILE *out, uint64_t ip, const struct resolved *w)
{
	fprintf(out, "%16" PRIx64 " %s", ip, w->symbol);
	if (strcmp(w->symbol, "[unknown]"))
		fprintf(out, "+0x%" PRIx64, w->addr - w->symbol_start);
	fprintf(out, " (%s)", w->dso);
}

static int print_frame(void *ctx, uint64_t ip, const struct resolved *where)
{
	FILE *out = ctx;

	fputs("\t", out);
	print_where(out, ip, where);
	fputc('\n', out);
	return 0;
}

static int on_sample(void *ctx, struct recording *r, unsigned int event,
		     const struct perf_sample *s, const struct stream_record *sr)
{
	struct script_state *st = ctx;
	const struct perf_input_event *ev = &r->in.events[event];
	bool tracepoint = ev->attr.type == PERF_TYPE_TRACEPOINT;
	FILE *out = st->out;

	(void)sr;
	fprintf(out, "%16s %6u [%03u] ", address_space_comm(&r->as, s->pid, s->tid), s->tid, s->cpu);
	print_time(out, s->time);
	if (!tracepoint)
		fprintf(out, " %10" PRIu64, s->period);
	fprintf(out, " %s:", ev->name ? ev->name : "unknown");
	if (tracepoint && s->raw) {
		struct tp_format *fmt = &st->formats[event];

		if (!fmt->parsed)
			load_format(&r->in, ev->attr.config, fmt);
		print_fields(out, fmt, s->raw, s->raw_size);
	}
	if (s->nr_callchain) {
		fputc('\n', out);
		recording_each_frame(r, s, print_frame, out);
		fputc('\n', out);
	} else if (!tracepoint) {
		struct resolved where;

		address_space_resolve(&r->as, s->pid, s->ip, s->misc & PERF_RECORD_MISC_CPUMODE_MASK,
				      &where);
		fputs("  ", out);
		print_where(out, s->ip, &where);
		fputc('\n', out);
	} else {
		fputc('\n', out);
	}
	return ferror(out) ? -1 : 0;
}

static int on_lost(void *ctx, struct recording *r, const struct stream_record *sr, uint32_t cpu,
		   uint64_t count)
{
	struct script_state *st = ctx;

	(void)r;
	fprintf(st->out, "%16s %6s [%03u] ", "", "", cpu);
	print_time(st->out, sr->time);
	fprintf(st->out, " %s lost %" PRIu64 "\n",
		sr->rec->type == PERF_RECORD_LOST ? "PERF_RECORD_LOST" : "PERF_RECORD_LOST_SAMPLES",
		count);
	return 0;
}

int script_run(const struct script_options *o, FILE *out, char *err, size_t errlen)
{
	struct recording rec;
	struct script_state st = { .out = out };
	struct recording_visitor v = { on_sample, on_lost, &st };
	int r;

	if (recording_open(&rec, o->input, o->kallsyms, err, errlen))
		return -1;
	st.formats = calloc(rec.in.nr_events ? rec.in.nr_events : 1, sizeof(*st.formats));
	if (!st.formats) {
		recording_close(&rec);
		rt_format(err, errlen, "out of memory");
		return -1;
	}
	r = recording_replay(&rec, &v, err, errlen);
	if (r && !err[0])
		rt_format(err, errlen, "cannot write the output");
	free(st.formats);
	recording_close(&rec);
	return r ? -1 : 0;
}
