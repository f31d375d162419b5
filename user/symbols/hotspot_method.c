/* SPDX-License-Identifier: GPL-2.0-only */
/* hotspot_method.c: names a HotSpot Method* of a running JVM,
 * "pkg.Class.method", from its memory: its ConstMethod's name in its constant
 * pool, and the class that holds the pool; and a bytecode index's source
 * line, from its compressed line number table. Every read bounded and
 * checked. */
#include "symbols/hotspot_method.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "lib/utf8.h"
#include "sys/process_memory.h"

/* A constant pool holds at most this many entries (its indexes are u2s). */
#define POOL_MAX 65536

int hotspot_method_layout_of(const struct hotspot_vmstructs *v, struct hotspot_method_layout *out,
			     char *err, size_t errlen)
{
	static const struct {
		const char *type, *field;
		size_t at;
	} fields[] = {
		{ "Method", "_constMethod", offsetof(struct hotspot_method_layout, method_const_method) },
		{ "ConstMethod", "_constants",
		  offsetof(struct hotspot_method_layout, const_method_constants) },
		{ "ConstMethod", "_name_index",
		  offsetof(struct hotspot_method_layout, const_method_name_index) },
		{ "ConstantPool", "_tags", offsetof(struct hotspot_method_layout, pool_tags) },
		{ "ConstantPool", "_pool_holder", offsetof(struct hotspot_method_layout, pool_holder) },
		{ "ConstantPool", "_length", offsetof(struct hotspot_method_layout, pool_length) },
		{ "Array<int>", "_length", offsetof(struct hotspot_method_layout, array_length) },
		{ "Array<u1>", "_data", offsetof(struct hotspot_method_layout, array_u1_data) },
		{ "Klass", "_name", offsetof(struct hotspot_method_layout, klass_name) },
		{ "Symbol", "_length", offsetof(struct hotspot_method_layout, symbol_length) },
		{ "Symbol", "_body", offsetof(struct hotspot_method_layout, symbol_body) },
		{ "ConstMethod", "_flags", offsetof(struct hotspot_method_layout, const_method_flags) },
		{ "ConstMethod", "_code_size",
		  offsetof(struct hotspot_method_layout, const_method_code_size) },
	};
	int64_t tag;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (!hotspot_field_offset(v, fields[i].type, fields[i].field,
					  (uint64_t *)((char *)out + fields[i].at))) {
			rt_format(err, errlen, "the JVM describes no %s::%s", fields[i].type,
				  fields[i].field);
			return -ENOENT;
		}
	if (!hotspot_type_size(v, "ConstantPool", &out->pool_size) ||
	    !hotspot_type_size(v, "ConstMethod", &out->const_method_size)) {
		rt_format(err, errlen, "the JVM describes no ConstantPool's or ConstMethod's size");
		return -ENOENT;
	}
	if (!hotspot_constant(v, "ConstMethod::_has_linenumber_table", &tag) || tag <= 0 ||
	    tag > 0xffff) {
		rt_format(err, errlen, "the JVM describes no ConstMethod::_has_linenumber_table");
		return -ENOENT;
	}
	out->has_line_table = (uint16_t)tag;
	if (!hotspot_constant(v, "JVM_CONSTANT_Utf8", &tag) || tag < 0 || tag > 255) {
		rt_format(err, errlen, "the JVM describes no JVM_CONSTANT_Utf8");
		return -ENOENT;
	}
	out->utf8_tag = (uint8_t)tag;
	return 0;
}

/* What is written of a name into buf. */
struct name_out {
	char *buf;
	size_t len, at; /* at < len: buf[at] is where the next byte goes */
	bool cut;
};

/* Appends n bytes of p (a whole UTF-8 sequence, or one character) unless
 * that leaves no room for "..." and the NUL; else marks the name cut. */
static void put(struct name_out *o, const void *p, size_t n)
{
	if (o->cut || o->at + n + 4 > o->len) {
		o->cut = true;
		return;
	}
	memcpy(o->buf + o->at, p, n);
	o->at += n;
}

/* Appends the n bytes of a symbol at body (its '/'s as '.' with dots):
 * valid UTF-8, a control character or an invalid byte as '?'. */
static void put_symbol_bytes(const uint8_t *body, size_t n, bool dots, struct name_out *o)
{
	for (size_t i = 0; i < n;) {
		size_t s = utf8_sequence(body + i, n - i);

		if (!s || (s == 1 && (body[i] < 0x20 || body[i] == 0x7f))) {
			put(o, "?", 1);
			i += s ? s : 1;
		} else if (s == 1 && body[i] == '/' && dots) {
			put(o, ".", 1);
			i++;
		} else {
			put(o, body + i, s);
			i += s;
		}
	}
}

/* Appends the symbol at sym of pid, as put_symbol_bytes. */
static int put_symbol(uint32_t pid, const struct hotspot_method_layout *l, uint64_t sym,
		      bool dots, struct name_out *o)
{
	uint8_t body[HOTSPOT_SYMBOL_MAX];
	uint16_t n;
	size_t want;
	int r;

	if (!sym)
		return -EINVAL;
	if ((r = process_memory_read(pid, sym + l->symbol_length, &n, sizeof(n))))
		return r;
	want = n < sizeof(body) ? n : sizeof(body);
	if (want && (r = process_memory_read(pid, sym + l->symbol_body, body, want)))
		return r;
	put_symbol_bytes(body, want, dots, o);
	o->cut |= n > want;
	return 0;
}

/* Ends the name: "..." if it was cut. */
static void end_name(struct name_out *o)
{
	if (o->cut)
		memcpy(o->buf + o->at, "...", 3), o->at += 3;
	o->buf[o->at] = '\0';
}

void hotspot_method_format(const char *klass, size_t klass_len, const char *name,
			   size_t name_len, bool cut, char *buf, size_t len)
{
	struct name_out o = { buf, len, 0, false };

	put_symbol_bytes((const uint8_t *)klass, klass_len, true, &o);
	put(&o, ".", 1);
	put_symbol_bytes((const uint8_t *)name, name_len, false, &o);
	o.cut |= cut;
	end_name(&o);
}

int hotspot_method_name(uint32_t pid, const struct hotspot_method_layout *l, uint64_t method,
			char *buf, size_t len)
{
	struct name_out o = { buf, len, 0, false };
	uint64_t cm, cp, tags, holder, klass_sym, name_sym;
	int32_t pool_len, tags_len;
	uint16_t index;
	uint8_t tag;
	int r;

	if (len < 64)
		return -EINVAL;
	buf[0] = '\0';
	if ((r = process_memory_u64(pid, method + l->method_const_method, &cm)) || !cm ||
	    (r = process_memory_u64(pid, cm + l->const_method_constants, &cp)) || !cp ||
	    (r = process_memory_read(pid, cm + l->const_method_name_index, &index, sizeof(index))) ||
	    (r = process_memory_read(pid, cp + l->pool_length, &pool_len, sizeof(pool_len))) ||
	    (r = process_memory_u64(pid, cp + l->pool_tags, &tags)) || !tags ||
	    (r = process_memory_read(pid, tags + l->array_length, &tags_len, sizeof(tags_len))))
		return r ? r : -EINVAL;
	/* the index is within the pool and its tags, and names a UTF-8 symbol */
	if (!index || pool_len <= 0 || pool_len > POOL_MAX || index >= pool_len || index >= tags_len)
		return -EINVAL;
	if ((r = process_memory_read(pid, tags + l->array_u1_data + index, &tag, sizeof(tag))))
		return r;
	if (tag != l->utf8_tag)
		return -EINVAL;
	if ((r = process_memory_u64(pid, cp + l->pool_size + (uint64_t)index * 8, &name_sym)) ||
	    (r = process_memory_u64(pid, cp + l->pool_holder, &holder)) || !holder ||
	    (r = process_memory_u64(pid, holder + l->klass_name, &klass_sym)))
		return r ? r : -EINVAL;
	if ((r = put_symbol(pid, l, klass_sym, true, &o)))
		return r;
	put(&o, ".", 1);
	if ((r = put_symbol(pid, l, name_sym, false, &o)))
		return r;
	end_name(&o);
	return 0;
}

/* HotSpot's UNSIGNED5 numbers (compressedStream.hpp, JDK 17): a byte below
 * 192 ends one; each byte adds its value << 6 more than the one before, five
 * at most. 0, or -EINVAL if the table ends within one. */
static int read_unsigned5(const uint8_t *t, size_t len, size_t *at, uint32_t *out)
{
	uint32_t sum = 0;
	unsigned int shift = 0;

	for (int i = 0; i < 5; i++, shift += 6) {
		uint32_t b;

		if (*at >= len)
			return -EINVAL;
		b = t[(*at)++];
		sum += b << shift;
		if (b < 192)
			break;
	}
	*out = sum;
	return 0;
}

static int read_signed5(const uint8_t *t, size_t len, size_t *at, int32_t *out)
{
	uint32_t u = 0;
	int r = read_unsigned5(t, len, at, &u);

	*out = (int32_t)(u >> 1) ^ -(int32_t)(u & 1);
	return r;
}

/* The table's next entry at *at into *bci and *line (the sums of the steps so
 * far): 1; 0 at its end mark; -EINVAL if the table ends before it. */
static int next_entry(const uint8_t *table, size_t len, size_t *at, uint32_t *bci,
		      uint32_t *line)
{
	uint8_t b;

	if (*at >= len)
		return -EINVAL;
	b = table[(*at)++];
	if (!b)
		return 0;
	if (b != 0xff) {
		*bci += b >> 3;
		*line += b & 7;
	} else {
		int32_t db, dl;

		if (read_signed5(table, len, at, &db) || read_signed5(table, len, at, &dl))
			return -EINVAL;
		*bci += (uint32_t)db;
		*line += (uint32_t)dl;
	}
	return 1;
}

int hotspot_line_of_bci(const uint8_t *table, size_t len, uint32_t bci, uint32_t *line)
{
	uint32_t at_bci = 0, at_line = 0, best_bci = 0;
	bool found = false;
	size_t at = 0;
	int r;

	while ((r = next_entry(table, len, &at, &at_bci, &at_line)) > 0) {
		/* the last entry at or before bci (as Method::line_number_from_bci) */
		if (at_bci == bci) {
			*line = at_line;
			return 0;
		}
		if (at_bci < bci && (!found || at_bci >= best_bci)) {
			best_bci = at_bci;
			*line = at_line;
			found = true;
		}
	}
	if (r < 0)
		return r;
	return found ? 0 : -ENOENT;
}

void hotspot_text_format(const char *text, size_t len, bool cut, char *buf, size_t size)
{
	struct name_out o = { buf, size, 0, false };

	put_symbol_bytes((const uint8_t *)text, len, false, &o);
	o.cut |= cut;
	end_name(&o);
}

static int compare_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

int hotspot_line_ranges(const uint8_t *table, size_t len, uint32_t bci_end,
			struct hotspot_line_range *out, size_t max)
{
	uint32_t points[2 * 512 + 1], at_bci = 0, at_line = 0, line;
	size_t nr_points = 0, at = 0, nr = 0;
	int r;

	/* where a bci's line may change: 0, each entry's bci and the one after */
	points[nr_points++] = 0;
	while ((r = next_entry(table, len, &at, &at_bci, &at_line)) > 0) {
		if (nr_points + 2 > sizeof(points) / sizeof(points[0]))
			return -E2BIG;
		points[nr_points++] = at_bci;
		points[nr_points++] = at_bci + 1;
	}
	if (r < 0)
		return r;
	qsort(points, nr_points, sizeof(points[0]), compare_u32);
	for (size_t i = 0; i < nr_points && points[i] < bci_end; i++) {
		uint32_t end = bci_end;

		if (i && points[i] == points[i - 1])
			continue;
		for (size_t k = i + 1; k < nr_points; k++)
			if (points[k] != points[i]) {
				end = points[k] < bci_end ? points[k] : bci_end;
				break;
			}
		if (hotspot_line_of_bci(table, len, points[i], &line))
			line = 0;
		if (nr && out[nr - 1].line == line && out[nr - 1].end == points[i]) {
			out[nr - 1].end = end;
			continue;
		}
		if (nr >= max)
			return -E2BIG;
		out[nr++] = (struct hotspot_line_range){ points[i], end, line };
	}
	return (int)nr;
}

int hotspot_method_line(uint32_t pid, const struct hotspot_method_layout *l, uint64_t method,
			uint32_t bci, uint32_t *line)
{
	uint8_t table[HOTSPOT_LINE_TABLE_MAX];
	uint16_t flags, code_size;
	uint64_t cm, at;
	size_t have = 0;
	int r;

	if ((r = process_memory_u64(pid, method + l->method_const_method, &cm)) || !cm ||
	    (r = process_memory_read(pid, cm + l->const_method_flags, &flags, sizeof(flags))) ||
	    (r = process_memory_read(pid, cm + l->const_method_code_size, &code_size,
				     sizeof(code_size))))
		return r ? r : -EINVAL;
	if (!(flags & l->has_line_table))
		return -ENOENT;
	/* right after the bytecodes; read a page at a time until its end mark
	 * (the table's length is not kept) */
	at = cm + l->const_method_size + code_size;
	while (have < sizeof(table)) {
		size_t want = 4096 - (size_t)((at + have) % 4096);

		if (want > sizeof(table) - have)
			want = sizeof(table) - have;
		if ((r = process_memory_read(pid, at + have, table + have, want)))
			return r;
		have += want;
		r = hotspot_line_of_bci(table, have, bci, line);
		if (r != -EINVAL)
			return r;
	}
	return -EINVAL;
}
