/* SPDX-License-Identifier: GPL-2.0-only */
/* script.c: "ringtrace script": every sample and LOST record of a recording,
 * one per line in time order across CPUs, in perf script's default format. */
#include "report/script.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "report/recording.h"

#define MAX_FIELDS 64
#define MAX_LINE 512
/* A tracepoint's record is a sample's PERF_SAMPLE_RAW, inside a record of at
 * most 64 KiB: a field must lie below that. */
#define MAX_RAW_END 65536u

/* A field of a tracepoint's record, from its format text. */
struct tp_field {
	char type[64];
	char name[64];
	uint32_t offset, size;
	bool is_signed;
	bool chars;   /* of char: printed as a string */
	bool array;   /* a fixed array: NAME[N] */
	bool dynamic; /* __data_loc or __rel_loc: a u32 of (length << 16 | offset) */
	bool relative; /* __rel_loc: the offset counts from the field's end */
	bool pointer;
};

/* The fields of one event, parsed once, when its first sample is printed. */
struct tp_format {
	struct tp_field fields[MAX_FIELDS];
	unsigned int nr;
};

struct script_state {
	FILE *out;
	struct tp_format **formats; /* by event index; NULL until parsed */
	char *err;
	size_t errlen;
};

/* The number after key in line ("offset:8"), at most max. */
static bool field_number(const char *line, const char *key, uint64_t max, uint32_t *out)
{
	const char *p = strstr(line, key);
	unsigned long long v;
	char *end;

	if (!p)
		return false;
	p += strlen(key);
	if (!isdigit((unsigned char)*p))
		return false;
	errno = 0;
	v = strtoull(p, &end, 10);
	if (errno || v > max)
		return false;
	*out = (uint32_t)v;
	return true;
}

/* Parses "\tfield:TYPE NAME;\toffset:O;\tsize:S;\tsigned:X;" (line is one
 * NUL-terminated line): 1, or 0 for a declaration it cannot name, or -1 if
 * the field cannot lie in any record (bad numbers, past 64 KiB, a dynamic
 * field that is not a u32). */
static int parse_field(const char *line, struct tp_field *f)
{
	const char *decl = line + strlen("\tfield:"), *semi = strchr(decl, ';');
	const char *name, *name_end;
	size_t len;

	memset(f, 0, sizeof(*f));
	if (!semi)
		return 0;
	len = (size_t)(semi - decl);
	while (len && decl[len - 1] == ' ')
		len--;
	name_end = decl + len;
	/* NAME[N]: the name is the word before the brackets */
	if (len && decl[len - 1] == ']') {
		const char *open = memchr(decl, '[', len);

		if (!open)
			return 0;
		name_end = open;
		f->array = true;
	}
	name = name_end;
	while (name > decl && (isalnum((unsigned char)name[-1]) || name[-1] == '_'))
		name--;
	if (name == name_end || (size_t)(name_end - name) >= sizeof(f->name))
		return 0;
	memcpy(f->name, name, (size_t)(name_end - name));
	/* a long type is cut, its array brackets kept */
	snprintf(f->type, sizeof(f->type), "%.*s%s",
		 (int)((size_t)(name - decl) < sizeof(f->type) - 3 ? (size_t)(name - decl)
								   : sizeof(f->type) - 3),
		 decl, f->array ? "[]" : "");
	if (!field_number(semi, "offset:", UINT32_MAX, &f->offset) ||
	    !field_number(semi, "size:", UINT32_MAX, &f->size))
		return -1;
	f->is_signed = strstr(semi, "signed:1") != NULL;
	f->chars = strstr(f->type, "char") != NULL;
	f->pointer = strchr(f->type, '*') != NULL;
	f->relative = strstr(f->type, "__rel_loc") != NULL;
	f->dynamic = f->relative || strstr(f->type, "__data_loc") != NULL;
	if ((uint64_t)f->offset + f->size > MAX_RAW_END || (f->dynamic && f->size != 4))
		return -1;
	return 1;
}

/* Whether the bytes [p, end) start with prefix. */
static bool starts_with(const char *p, const char *end, const char *prefix)
{
	size_t n = strlen(prefix);

	return (size_t)(end - p) >= n && !memcmp(p, prefix, n);
}

/* The format of tracepoint id in the recording's tracing data; -1 with err
 * naming the header file and the offset of a field that cannot be. */
static int load_format(const struct perf_input *in, uint64_t id, struct tp_format *fmt, char *err,
		       size_t errlen)
{
	const char *data = (const char *)in->tracing_data, *end, *at, *line;
	char needle[40];
	int n = snprintf(needle, sizeof(needle), "\nID: %" PRIu64 "\n", id);

	if (!data)
		return 0;
	end = data + in->tracing_data_size;
	at = memmem(data, in->tracing_data_size, needle, (size_t)n);
	if (!at)
		return 0;
	for (line = at + n; line < end && fmt->nr < MAX_FIELDS;) {
		const char *eol = memchr(line, '\n', (size_t)(end - line));
		char text[MAX_LINE];
		size_t len;
		int r;

		if (!eol)
			eol = end;
		if (starts_with(line, eol, "print fmt:") || starts_with(line, eol, "name:"))
			break;
		if (starts_with(line, eol, "\tfield:")) {
			len = (size_t)(eol - line);
			if (len >= sizeof(text))
				len = sizeof(text) - 1; /* then its numbers do not parse */
			memcpy(text, line, len);
			text[len] = '\0';
			r = parse_field(text, &fmt->fields[fmt->nr]);
			if (r < 0) {
				for (char *c = text; *c; c++) /* the message is one printable line */
					if (!isprint((unsigned char)*c))
						*c = ' ';
				rt_format(err, errlen, "%s: offset %llu: tracepoint %" PRIu64 " has a field that no record can hold: %s",
					  in->files[0].path,
					  (unsigned long long)((const uint8_t *)line - in->files[0].map),
					  id, text + 1);
				return -1;
			}
			fmt->nr += (unsigned int)r;
		}
		line = eol + 1;
	}
	return 0;
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
 * holds them: a field or dynamic data past its end is left out. */
static void print_fields(FILE *out, const struct tp_format *fmt, const uint8_t *raw, uint32_t size)
{
	for (unsigned int i = 0; i < fmt->nr; i++) {
		const struct tp_field *f = &fmt->fields[i];
		const uint8_t *p = raw + f->offset;

		if (!strncmp(f->name, "common_", 7) || (uint64_t)f->offset + f->size > size)
			continue;
		fprintf(out, " %s=", f->name);
		if (f->dynamic) {
			uint32_t loc = (uint32_t)read_uint(p, 4), len = loc >> 16;
			uint64_t off = loc & 0xffff;

			if (f->relative)
				off += (uint64_t)f->offset + f->size;
			if (off + len <= size && f->chars)
				print_string(out, raw + off, len);
			else
				fprintf(out, "[%u bytes]", len);
		} else if (f->chars && f->array) {
			print_string(out, p, f->size);
		} else if (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8) {
			uint64_t v = read_uint(p, f->size);

			if (f->pointer)
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
	struct tp_format **fmt = &st->formats[event];
	FILE *out = st->out;

	(void)sr;
	/* the format first: a malformed one is an error before any output */
	if (tracepoint && s->raw && !*fmt) {
		if (!(*fmt = calloc(1, sizeof(**fmt)))) {
			rt_format(st->err, st->errlen, "out of memory");
			return -1;
		}
		if (load_format(&r->in, ev->attr.config, *fmt, st->err, st->errlen))
			return -1;
	}
	fprintf(out, "%16s %6u [%03u] ", address_space_comm(&r->as, s->pid, s->tid), s->tid, s->cpu);
	print_time(out, s->time);
	if (!tracepoint)
		fprintf(out, " %10" PRIu64, s->period);
	fprintf(out, " %s:", ev->name ? ev->name : "unknown");
	if (tracepoint && s->raw)
		print_fields(out, *fmt, s->raw, s->raw_size);
	if (s->nr_callchain || s->regs_abi) { /* --call-graph dwarf: user frames unwound */
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
	struct script_state st = { .out = out, .err = err, .errlen = errlen };
	struct recording_visitor v = { on_sample, on_lost, &st };
	int r;

	if (recording_open(&rec, o->input, o->kallsyms, o->symfs, err, errlen))
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
	for (unsigned int i = 0; i < rec.in.nr_events; i++)
		free(st.formats[i]);
	free(st.formats);
	recording_close(&rec);
	return r ? -1 : 0;
}
