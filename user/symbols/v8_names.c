/* SPDX-License-Identifier: GPL-2.0-only */
/* v8_names.c: a JavaScript function's name, script and line, read from a Node.js
 * process's memory from its SharedFunctionInfo, checked to be still the one the
 * walk wrote (V8's collector moves objects). As OpenTelemetry's profiler reads
 * them: the name and the function's start from its ScopeInfo's slots (V8
 * publishes no offsets for those), the line from the script's line ends, or
 * from its source where V8 has not made them yet. */
#include "symbols/v8_names.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/v8_heap.h"
#include "sys/process_memory.h"

/* A ScopeInfo's slots read, at most: the name and the function's position
 * come after its context locals' names and details. */
#define SCOPE_SLOTS 64
/* Cons strings followed, at most deep. */
#define CONS_DEPTH 8
/* Line ends read of a script's table, at most (a longer script's later
 * functions have no line). */
#define LINE_ENDS_MAX (1u << 20)

struct reader {
	uint32_t pid;
	const struct v8_layout *l;
	struct v8_lines *lines; /* sources' lines found so far (NULL: none looked for) */
};

/* The instance type of the heap object at tagged p into *type. */
static int type_of(const struct reader *r, uint64_t p, uint16_t *type)
{
	return v8_type_of(r->pid, r->l, p, type);
}

static int field(const struct reader *r, uint64_t p, int32_t off, uint64_t *v)
{
	return v8_field(r->pid, p, off, v);
}

/* A string being read: its bytes so far (UTF-8, control characters made
 * '?': names go into perf map lines). */
struct text {
	char *buf;
	size_t len, room; /* room counts the NUL */
};

static void put_byte(struct text *t, unsigned char c)
{
	if (t->len + 1 < t->room)
		t->buf[t->len++] = (char)(c < 0x20 || c == 0x7f ? '?' : c);
}

static void put_char(struct text *t, uint16_t c)
{
	if (c < 0x80) {
		put_byte(t, (unsigned char)c);
	} else if (c < 0x800) {
		if (t->len + 2 < t->room) {
			put_byte(t, (unsigned char)(0xc0 | c >> 6));
			put_byte(t, (unsigned char)(0x80 | (c & 0x3f)));
		}
	} else if (t->len + 3 < t->room) {
		put_byte(t, (unsigned char)(0xe0 | c >> 12));
		put_byte(t, (unsigned char)(0x80 | (c >> 6 & 0x3f)));
		put_byte(t, (unsigned char)(0x80 | (c & 0x3f)));
	}
}

/* Characters [from, from + n) of the sequential string at p (one byte a
 * character if one_byte) onto t, up to its room. */
static int put_seq(const struct reader *r, uint64_t p, bool one_byte, uint64_t from, uint64_t n,
		   struct text *t)
{
	uint64_t want = n < t->room - t->len ? n : t->room - t->len;
	uint8_t buf[2 * V8_FILE_BYTES];
	int e;

	if (want > V8_FILE_BYTES)
		want = V8_FILE_BYTES;
	if (!want)
		return 0;
	e = process_memory_read(r->pid, p - 1 + (uint64_t)r->l->seq_chars + from * (one_byte ? 1 : 2),
				buf, (size_t)want * (one_byte ? 1 : 2));
	if (e)
		return e;
	for (uint64_t i = 0; i < want; i++)
		if (one_byte)
			put_byte(t, buf[i]);
		else
			put_char(t, (uint16_t)(buf[2 * i] | buf[2 * i + 1] << 8));
	return 0;
}

/* The string at tagged p onto t: 0, or -errno (-ENOTSUP: an external
 * string, whose characters are the embedder's). */
static int put_string(const struct reader *r, uint64_t p, struct text *t, int depth)
{
	const struct v8_layout *l = r->l;
	uint64_t a, b;
	uint16_t type;
	int32_t length, repr;
	int e;

	if ((e = type_of(r, p, &type)))
		return e;
	if (type >= l->first_nonstring || depth > CONS_DEPTH)
		return -EINVAL;
	if ((e = process_memory_read(r->pid, p - 1 + (uint64_t)l->string_length, &length,
				     sizeof(length))))
		return e;
	if (length < 0)
		return -EINVAL;
	repr = type & l->repr_mask;
	if (repr == l->seq_tag)
		return put_seq(r, p, (type & l->encoding_mask) == l->one_byte_tag, 0,
			       (uint64_t)length, t);
	if (repr == l->cons_tag) { /* first, then second */
		if ((e = field(r, p, l->cons_first, &a)) || (e = field(r, p, l->cons_second, &b)) ||
		    (e = put_string(r, a, t, depth + 1)))
			return e;
		return put_string(r, b, t, depth + 1);
	}
	if (repr == l->thin_tag)
		return (e = field(r, p, l->thin_actual, &a)) ? e : put_string(r, a, t, depth + 1);
	if (repr != l->sliced_tag)
		return -ENOTSUP; /* an external string's characters are the embedder's */
	/* a slice of a sequential string: its characters from offset */
	if ((e = field(r, p, l->sliced_parent, &a)) || (e = field(r, p, l->sliced_offset, &b)) ||
	    (e = type_of(r, a, &type)))
		return e;
	if ((type & l->repr_mask) != l->seq_tag || !v8_is_smi(b) || v8_smi_value(b) < 0)
		return -ENOTSUP;
	return put_seq(r, a, (type & l->encoding_mask) == l->one_byte_tag, (uint64_t)v8_smi_value(b),
		       (uint64_t)length, t);
}

static int read_string(const struct reader *r, uint64_t p, char *buf, size_t room)
{
	struct text t = { buf, 0, room };
	int e = put_string(r, p, &t, 0);

	buf[t.len] = '\0';
	return e;
}

/* From the ScopeInfo at p, as OpenTelemetry's profiler reads it (V8 before
 * 12.8 publishes no offsets for these): after its context locals' names
 * and details, the first string is the function's name, and the first two
 * small integers in a row, the lesser first, its start and end positions. */
static int scope_info(const struct reader *r, uint64_t p, char *name, size_t room, int64_t *start)
{
	uint64_t slots[SCOPE_SLOTS], prev = 1;
	int64_t locals, at;
	uint16_t type;
	bool named = false;
	int e;

	name[0] = '\0';
	*start = -1;
	if ((e = process_memory_read(r->pid, p - 1 + 8, slots, sizeof(slots))))
		return e;
	if (r->l->scope_context_locals < 0 || r->l->scope_context_locals >= SCOPE_SLOTS ||
	    r->l->scope_first_vars < 0 || !v8_is_smi(slots[r->l->scope_context_locals]))
		return -EINVAL;
	locals = v8_smi_value(slots[r->l->scope_context_locals]);
	if (locals < 0 || locals > SCOPE_SLOTS)
		return 0;
	for (at = r->l->scope_first_vars + 2 * locals; at < SCOPE_SLOTS; at++) {
		uint64_t cur = slots[at];

		if (!named && v8_is_heap_object(cur) && !type_of(r, cur, &type) &&
		    type < r->l->first_nonstring)
			named = !read_string(r, cur, name, room);
		if (v8_is_smi(cur) && v8_is_smi(prev) && v8_smi_value(prev) < v8_smi_value(cur)) {
			*start = v8_smi_value(prev);
			return 0;
		}
		prev = cur;
	}
	return 0;
}

/* The line of position pos of the script at p: from its line ends if V8
 * made them (a FixedArray of small integers), else from the newlines of its
 * source (a sequential one-byte string), found once a script (v8_lines). 0
 * if neither can be read. */
static uint32_t line_at(const struct reader *r, uint64_t p, int64_t pos)
{
	const struct v8_layout *l = r->l;
	uint64_t ends, source, len_smi, word;
	uint16_t type;
	int32_t length;

	if (pos < 0)
		return 0;
	if (!field(r, p, l->script_line_ends, &ends) && !type_of(r, ends, &type) &&
	    type == l->type_fixed_array && !field(r, ends, l->fixed_length, &len_smi) &&
	    v8_is_smi(len_smi) && v8_smi_value(len_smi) > 0 && v8_smi_value(len_smi) <= LINE_ENDS_MAX) {
		/* a binary search, a word read each step */
		int64_t lo = 0, hi = v8_smi_value(len_smi);

		while (lo < hi) {
			int64_t mid = lo + (hi - lo) / 2;

			if (field(r, ends, l->fixed_data + (int32_t)(mid * 8), &word) || !v8_is_smi(word))
				return 0;
			if (v8_smi_value(word) < pos)
				lo = mid + 1;
			else
				hi = mid;
		}
		return (uint32_t)lo + 1;
	}
	if (!r->lines || field(r, p, l->script_source, &source) || type_of(r, source, &type) ||
	    (type & l->repr_mask) != l->seq_tag || (type & l->encoding_mask) != l->one_byte_tag ||
	    process_memory_read(r->pid, source - 1 + (uint64_t)l->string_length, &length,
				sizeof(length)))
		return 0;
	return v8_lines_at(r->lines, r->pid, source - 1 + (uint64_t)l->seq_chars, length, pos);
}

int v8_sfi_read(uint32_t pid, const struct v8_layout *l, uint64_t sfi, uint64_t *name,
		uint64_t *script)
{
	struct reader r = { pid, l, NULL };
	uint16_t type;
	int e;

	if ((e = type_of(&r, sfi + 1, &type)) || (e = field(&r, sfi + 1, l->sfi_name, name)) ||
	    (e = field(&r, sfi + 1, l->sfi_script, script)))
		return e == -EINVAL ? -ESTALE : e;
	return type == l->type_sfi ? 0 : -ESTALE;
}

/* Whether the SharedFunctionInfo at sfi holds name and script still. */
static int still(const struct reader *r, uint64_t sfi, uint64_t name, uint64_t script)
{
	uint64_t n, s;
	int e = v8_sfi_read(r->pid, r->l, sfi, &n, &s);

	return e ? e : n == name && s == script ? 0 : -ESTALE;
}

int v8_function_name(uint32_t pid, const struct v8_layout *l, uint64_t sfi, uint64_t name,
		     uint64_t script, struct v8_lines *lines, struct v8_function_name *out)
{
	struct reader r = { pid, l, lines };
	int64_t start = -1;
	uint16_t type;
	int e;

	memset(out, 0, sizeof(*out));
	if ((e = still(&r, sfi, name, script)) || (e = type_of(&r, name, &type)))
		return e;
	if (type == l->type_scope_info)
		e = scope_info(&r, name, out->name, sizeof(out->name), &start);
	else if (type < l->first_nonstring)
		e = read_string(&r, name, out->name, sizeof(out->name));
	if (e)
		return e;
	if (!out->name[0])
		strcpy(out->name, "(anonymous)");
	if (!type_of(&r, script, &type) && type == l->type_script) {
		uint64_t file;

		if (!field(&r, script, l->script_name, &file) && v8_is_heap_object(file))
			read_string(&r, file, out->file, sizeof(out->file));
		out->line = line_at(&r, script, start);
	}
	/* read while the collector may have moved it: named only if it holds
	 * them still */
	return still(&r, sfi, name, script);
}
