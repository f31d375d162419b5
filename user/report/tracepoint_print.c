/* SPDX-License-Identifier: GPL-2.0-only */
/* tracepoint_print.c: a tracepoint sample's fields as perf script prints them,
 * by its format's print fmt, through libtraceevent (what perf itself uses). */
#include "report/tracepoint_print.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "format/tracing_data.h"
#include "lib/log.h"
#include "report/format_check.h"

struct tracepoint_printer {
	struct tep_handle *tep;
	uint8_t *scratch;      /* made for the first record printed: NULL till then */
	uint32_t scratch_used; /* bytes of scratch a record was copied into */
	tracepoint_kernel_resolver resolve; /* of kernel addresses, or NULL */
	void *resolve_ctx;
};

/* The number after key in line ("offset:8"), at most max. */
static bool field_number(const char *line, const char *key, uint64_t max, uint64_t *out)
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
	*out = v;
	return true;
}

/* Checks each "\tfield:" line of a format: its offset and size numbers lie
 * within a record, a __data_loc or __rel_loc is a u32. The offset (in the
 * format's text) of the first line that does not, or -1 if all do. */
static int64_t bad_field_line(const char *text, size_t len)
{
	for (size_t at = 0; at < len;) {
		const char *line = text + at, *eol = memchr(line, '\n', len - at);
		size_t n = eol ? (size_t)(eol - line) : len - at;
		char copy[512];
		uint64_t offset, size;

		if (n > 7 && !memcmp(line, "\tfield:", 7)) {
			const char *semi;

			if (n >= sizeof(copy))
				return (int64_t)at;
			memcpy(copy, line, n);
			copy[n] = '\0';
			semi = strchr(copy, ';');
			if (!semi || !field_number(semi, "offset:", UINT32_MAX, &offset) ||
			    !field_number(semi, "size:", UINT32_MAX, &size) ||
			    offset + size > FORMAT_CHECK_MAX_RAW_END ||
			    ((strstr(copy, "__data_loc") || strstr(copy, "__rel_loc")) && size != 4))
				return (int64_t)at;
		}
		at += n + 1;
	}
	return -1;
}

/* Whether libtraceevent's own reading of the fields keeps within a record. */
static bool fields_fit(const struct tep_format_field *f)
{
	for (; f; f = f->next)
		if ((uint64_t)f->offset + f->size > FORMAT_CHECK_MAX_RAW_END ||
		    ((f->flags & TEP_FIELD_IS_DYNAMIC) && f->size != 4))
			return false;
	return true;
}

/* Whether a, an "[" op, indexes a fixed array field by a constant within
 * it (raw_syscalls' REC->args[0]): libtraceevent reads the field's offset
 * plus index times element size, which then stays inside the field. */
static bool constant_index_within(struct tep_event *ev, const struct tep_print_arg *a)
{
	const struct tep_print_arg *left = a->op.left, *right = a->op.right;
	const struct tep_format_field *f;
	unsigned long long i;
	char *end;

	while (left && left->type == TEP_PRINT_TYPE)
		left = left->typecast.item;
	if (!left || left->type != TEP_PRINT_FIELD || !right || right->type != TEP_PRINT_ATOM)
		return false;
	f = left->field.field ? left->field.field : tep_find_any_field(ev, left->field.name);
	errno = 0;
	i = strtoull(right->atom.atom, &end, 0);
	return f && !errno && end != right->atom.atom && !*end && (f->flags & TEP_FIELD_IS_ARRAY) &&
	       !(f->flags & TEP_FIELD_IS_DYNAMIC) && f->elementsize &&
	       i < f->size / f->elementsize;
}

/* Whether a print fmt argument reads only what the record's fields bound:
 * not an array index taken from the record or past the array, a length or a
 * count taken from the record (__print_hex, __print_array, REC->a[REC->i]),
 * nor a helper function. */
static bool bounded_arg(struct tep_event *ev, const struct tep_print_arg *a)
{
	for (; a; a = a->next) {
		switch (a->type) {
		case TEP_PRINT_HEX:
		case TEP_PRINT_HEX_STR:
		case TEP_PRINT_INT_ARRAY:
		case TEP_PRINT_FUNC:
			return false;
		case TEP_PRINT_FLAGS:
			if (!bounded_arg(ev, a->flags.field))
				return false;
			break;
		case TEP_PRINT_SYMBOL:
			if (!bounded_arg(ev, a->symbol.field))
				return false;
			break;
		case TEP_PRINT_TYPE:
			if (!bounded_arg(ev, a->typecast.item))
				return false;
			break;
		case TEP_PRINT_OP:
			if (!strcmp(a->op.op, "[")) {
				if (!constant_index_within(ev, a))
					return false;
				break;
			}
			if (!bounded_arg(ev, a->op.left) || !bounded_arg(ev, a->op.right))
				return false;
			/* a division by the record could divide by zero */
			if ((!strcmp(a->op.op, "/") || !strcmp(a->op.op, "%")) &&
			    (!a->op.right || a->op.right->type != TEP_PRINT_ATOM ||
			     !strtoull(a->op.right->atom.atom, NULL, 0)))
				return false;
			break;
		default:
			break;
		}
	}
	return true;
}

static void set_error(char *err, size_t errlen, const struct perf_input *in, uint64_t offset,
		      const char *what)
{
	rt_format(err, errlen, "%s: offset %" PRIu64 ": %s", in->files[0].path, offset, what);
}

/* Parses one event format, after checking its fields; -1 with err set. */
static int add_event(struct tracepoint_printer *p, const struct perf_input *in, uint64_t base,
		     const struct tracing_data_contents *c, const struct tracing_data_text *t,
		     char *err, size_t errlen)
{
	int64_t bad = bad_field_line(t->text, t->len);
	struct tep_event *ev = NULL;

	if (bad >= 0) {
		set_error(err, errlen, in, base + t->offset + (uint64_t)bad,
			  "a tracepoint field that no record can hold");
		return -EINVAL;
	}
	if (!format_check_safe(c, t) || format_parse(p->tep, &ev, t->text, t->len, t->system) ||
	    !ev)
		return 0; /* its samples print no fields (perf skips a format it cannot parse) */
	if (!fields_fit(ev->format.common_fields) || !fields_fit(ev->format.fields)) {
		set_error(err, errlen, in, base + t->offset,
			  "a tracepoint field that no record can hold");
		return -EINVAL;
	}
	if (!bounded_arg(ev, ev->print_fmt.args)) {
		/* its print fmt reads where the record says: name=value instead */
		ev->flags |= TEP_EVENT_FL_FAILED;
	}
	return 0;
}

/* Whether a printk format line is one libtraceevent reads safely:
 * 0xADDR : "TEXT", TEXT of 2 bytes or more (tep_register_print_string looks
 * for a "\n" two bytes before the closing quote: before the start of its
 * copy of a shorter one; past the end of an unquoted one). */
static bool printk_line_ok(const char *line, size_t len)
{
	size_t i = 2;

	if (len < 2 || memcmp(line, "0x", 2))
		return false;
	while (i < len && isxdigit((unsigned char)line[i]))
		i++;
	if (i == 2 || len - i < 7 || memcmp(line + i, " : \"", 4) || line[len - 1] != '"')
		return false;
	return !memchr(line, '\0', len);
}

/* The printk formats (addresses of constant strings some print fmts print),
 * the well-formed lines only. 0, or -1 if memory ran out. */
static int add_printk_formats(struct tracepoint_printer *p, const struct tracing_data_text *t)
{
	char *kept = malloc(t->len + 2);
	size_t n = 0;

	if (!kept)
		return -ENOMEM;
	for (size_t at = 0; at < t->len;) {
		const char *line = t->text + at, *eol = memchr(line, '\n', t->len - at);
		size_t len = eol ? (size_t)(eol - line) : t->len - at;

		if (printk_line_ok(line, len)) {
			memcpy(kept + n, line, len);
			n += len;
			kept[n++] = '\n';
		}
		at += len + 1;
	}
	kept[n] = '\0';
	if (n)
		tep_parse_printk_formats(p->tep, kept);
	free(kept);
	return 0;
}

int tracepoint_printer_open(struct tracepoint_printer **out, const struct perf_input *in,
			    char *err, size_t errlen)
{
	struct tracepoint_printer *p = calloc(1, sizeof(*p));
	struct tracing_data_contents c;
	uint64_t base, bad_at = 0;
	int r;

	*out = NULL;
	if (!p || !(p->tep = tep_alloc())) {
		tracepoint_printer_close(p);
		rt_format(err, errlen, "out of memory");
		return -ENOMEM;
	}
	*out = p;
	if (!in->tracing_data)
		return 0;
	base = in->tracing_data_offset;
	r = tracing_data_read(in->tracing_data, in->tracing_data_size, &c, &bad_at);
	if (r == -ENOMEM) {
		rt_format(err, errlen, "out of memory");
		return r;
	}
	if (r) {
		set_error(err, errlen, in, base + bad_at, "malformed tracing data");
		return r;
	}
	tep_set_file_bigendian(p->tep, c.big_endian ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(p->tep, TEP_LITTLE_ENDIAN);
	tep_set_long_size(p->tep, c.long_size);
	tep_set_page_size(p->tep, (int)c.page_size);
	for (size_t i = 0; i < c.nr_events; i++) {
		if ((r = add_event(p, in, base, &c, &c.events[i], err, errlen))) {
			tracing_data_contents_free(&c);
			return r;
		}
	}
	if (c.printk.len && add_printk_formats(p, &c.printk)) {
		tracing_data_contents_free(&c);
		rt_format(err, errlen, "out of memory");
		return -ENOMEM;
	}
	tracing_data_contents_free(&c);
	return 0;
}

/* libtraceevent's function resolver: the name it prints (it neither keeps
 * nor frees it), *addrp moved to the function's start; no module names (a
 * module's symbols are named as the kernel's). */
static char *resolve_function(void *priv, unsigned long long *addrp, char **modp)
{
	struct tracepoint_printer *p = priv;
	uint64_t start = 0;
	const char *name = p->resolve(p->resolve_ctx, *addrp, &start);

	*modp = NULL;
	if (!name)
		return NULL;
	*addrp = start;
	return (char *)name;
}

void tracepoint_printer_resolve_kernel(struct tracepoint_printer *p, tracepoint_kernel_resolver fn,
				       void *ctx)
{
	p->resolve = fn;
	p->resolve_ctx = ctx;
	tep_set_function_resolver(p->tep, resolve_function, p);
}

bool tracepoint_printer_knows(const struct tracepoint_printer *p, uint64_t id)
{
	return id <= INT32_MAX && tep_find_event(p->tep, (int)id) != NULL;
}

int tracepoint_printer_print(struct tracepoint_printer *p, uint64_t id, uint32_t cpu,
			     const uint8_t *raw, uint32_t size, struct byte_buffer *out)
{
	struct tep_event *ev = id <= INT32_MAX ? tep_find_event(p->tep, (int)id) : NULL;
	struct tep_record record;
	struct trace_seq s;

	if (!ev)
		return 0;
	if (!p->scratch && !(p->scratch = calloc(1, FORMAT_CHECK_SCRATCH_SIZE)))
		return -ENOMEM;
	if (size > FORMAT_CHECK_MAX_RAW_END)
		size = FORMAT_CHECK_MAX_RAW_END;
	memset(p->scratch, 0, p->scratch_used);
	memcpy(p->scratch, raw, size);
	p->scratch_used = size;
	memset(&record, 0, sizeof(record));
	record.cpu = (int)cpu;
	record.size = (int)size;
	record.data = p->scratch;
	trace_seq_init(&s);
	tep_print_event(p->tep, &s, &record, "%s", TEP_PRINT_INFO);
	if (s.state == TRACE_SEQ__MEM_ALLOC_FAILED) {
		trace_seq_destroy(&s);
		return -ENOMEM;
	}
	if (s.len && !byte_buffer_append(out, s.buffer, s.len)) {
		trace_seq_destroy(&s);
		return -ENOMEM;
	}
	trace_seq_destroy(&s);
	return 0;
}

void tracepoint_printer_close(struct tracepoint_printer *p)
{
	if (!p)
		return;
	if (p->tep)
		tep_free(p->tep);
	free(p->scratch);
	free(p);
}
