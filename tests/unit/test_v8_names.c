/* SPDX-License-Identifier: GPL-2.0-only */
/* test_v8_names.c: a JavaScript function's name, script and line read from V8's
 * objects, laid out as V8 11.3 lays them out in the test's own memory (read as
 * another process's is): a ScopeInfo's name and start, a cons string, the
 * script's line ends or its source, two-byte and control characters; a
 * SharedFunctionInfo that no longer holds what the walk read refused; and the
 * source position table's decoding, entry by entry, and cut. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "symbols/v8_code.h"
#include "symbols/v8_names.h"

/* Node.js 20's (V8 11.3.244) values of what the names are read with. */
static const struct v8_layout layout = {
	.fp_function = -16, .fp_context = -8, .map_instance_type = 12, .function_shared = 24,
	.sfi_name = 16, .sfi_script = 32, .type_function = 2066, .type_sfi = 262,
	.type_script = 167, .type_scope_info = 261, .type_fixed_array = 175,
	.first_nonstring = 128, .scope_first_vars = 3, .scope_context_locals = 2,
	.script_name = 16, .script_source = 8, .script_line_ends = 56, .string_length = 12,
	.seq_chars = 16, .cons_first = 16, .cons_second = 24, .thin_actual = 16,
	.sliced_parent = 16, .sliced_offset = 24, .fixed_length = 8, .fixed_data = 16,
	.repr_mask = 7, .encoding_mask = 8, .one_byte_tag = 8, .seq_tag = 0, .cons_tag = 1,
	.sliced_tag = 3, .thin_tag = 5, .tagged_size = 8, .smi_tag = 0, .smi_tag_mask = 1,
	.heap_tag = 1, .heap_tag_mask = 3, .smi_shift_size = 31,
};

static struct v8_lines lines;

/* The heap: objects of words, taken in order. */
static uint64_t heap[4096] __attribute__((aligned(16)));
static size_t used;

static uint64_t *object(size_t words)
{
	uint64_t *o = &heap[used];

	used += words;
	assert_true(used <= sizeof(heap) / sizeof(heap[0]));
	memset(o, 0, words * 8);
	return o;
}

static uint64_t tagged(const uint64_t *o)
{
	return (uint64_t)(uintptr_t)o + 1;
}

static uint64_t smi(int64_t v)
{
	return (uint64_t)v << 32;
}

/* A map of instance type t. */
static uint64_t map_of(uint16_t t)
{
	uint64_t *m = object(4);

	m[0] = tagged(m);
	memcpy((char *)m + layout.map_instance_type, &t, sizeof(t));
	return tagged(m);
}

/* A sequential string of len characters (two bytes each unless one_byte). */
static uint64_t seq_string(const void *chars, int32_t len, bool one_byte)
{
	size_t bytes = (size_t)len * (one_byte ? 1 : 2);
	uint64_t *s = object(2 + (bytes + 7) / 8);

	s[0] = map_of(one_byte ? 8 : 0);
	memcpy((char *)s + layout.string_length, &len, sizeof(len));
	memcpy((char *)s + layout.seq_chars, chars, bytes);
	return tagged(s);
}

static uint64_t cons_string(uint64_t first, uint64_t second, int32_t len)
{
	uint64_t *s = object(4);

	s[0] = map_of(1 | 8);
	memcpy((char *)s + layout.string_length, &len, sizeof(len));
	s[2] = first;
	s[3] = second;
	return tagged(s);
}

static uint64_t fixed_array(const uint64_t *slots, int64_t n)
{
	uint64_t *a = object(2 + (size_t)n);

	a[0] = map_of((uint16_t)layout.type_fixed_array);
	a[1] = smi(n);
	memcpy(&a[2], slots, (size_t)n * 8);
	return tagged(a);
}

/* A ScopeInfo of one context local, named name, starting at start. */
static uint64_t scope_info(uint64_t name, int64_t start)
{
	uint64_t *s = object(12);

	s[0] = map_of((uint16_t)layout.type_scope_info);
	s[1] = smi(0);                            /* flags */
	s[2] = smi(1);                            /* parameters */
	s[3] = smi(1);                            /* context locals */
	s[4] = seq_string("x", 1, true);          /* ...their names */
	s[5] = smi(7);                            /* ...and details */
	s[6] = name;
	s[7] = smi(start);
	s[8] = smi(start + 40);
	return tagged(s);
}

static uint64_t script(uint64_t name, uint64_t source, uint64_t line_ends)
{
	uint64_t *s = object(10);

	s[0] = map_of((uint16_t)layout.type_script);
	s[1] = source;
	s[2] = name;
	s[7] = line_ends;
	return tagged(s);
}

/* A SharedFunctionInfo: its address (untagged). */
static uint64_t sfi(uint64_t name, uint64_t scr)
{
	uint64_t *s = object(6);

	s[0] = map_of((uint16_t)layout.type_sfi);
	s[2] = name;
	s[4] = scr;
	return (uint64_t)(uintptr_t)s;
}

/* The name of the function whose SharedFunctionInfo is at f (in this
 * process, read as another's), the walk having read name and scr there. */
static int name_of(uint64_t f, uint64_t name, uint64_t scr, struct v8_lines *l,
		   struct v8_function_name *out)
{
	return v8_function_name((uint32_t)getpid(), &layout, f, name, scr, l, out);
}

static void test_scope_info_name_and_line(void **state)
{
	static const uint64_t ends[] = { 5ull << 32, 30ull << 32, 60ull << 32 };
	uint64_t name = scope_info(seq_string("inner", 5, true), 10);
	uint64_t file = cons_string(seq_string("/srv/", 5, true), seq_string("app.js", 6, true), 11);
	uint64_t scr = script(file, smi(0), fixed_array(ends, 3));
	uint64_t f = sfi(name, scr);
	struct v8_function_name out;

	(void)state;
	assert_int_equal(name_of(f, name, scr, &lines, &out), 0);
	assert_string_equal(out.name, "inner");
	assert_string_equal(out.file, "/srv/app.js");
	/* position 10: after the first line's end (5), before the second's */
	assert_int_equal(out.line, 2);
}

static void test_lines_from_source(void **state)
{
	static const char source[] = "// one\n// two\n\nfunction f() {}\n";
	uint64_t name = scope_info(seq_string("f", 1, true), 15);
	uint64_t scr = script(seq_string("s.js", 4, true),
			      seq_string(source, (int32_t)strlen(source), true), smi(0));
	uint64_t f = sfi(name, scr);
	struct v8_function_name out;

	(void)state;
	/* no line ends made: the source's newlines before position 15 counted,
	 * the source read once for the functions after */
	assert_int_equal(name_of(f, name, scr, &lines, &out), 0);
	assert_string_equal(out.name, "f");
	assert_int_equal(out.line, 4);
	assert_int_equal(name_of(f, name, scr, &lines, &out), 0);
	assert_int_equal(out.line, 4);
	assert_int_equal(lines.scans, 1);
	/* with no cache, no line */
	assert_int_equal(name_of(f, name, scr, NULL, &out), 0);
	assert_int_equal(out.line, 0);
	v8_lines_free(&lines);
}

static void test_name_as_string(void **state)
{
	static const uint16_t two_byte[] = { 'h', 0xe9, 'l', 0x263a };
	uint64_t name = seq_string(two_byte, 4, false);
	uint64_t scr = script(seq_string("a\nb.js", 6, true), smi(0), smi(0));
	uint64_t f = sfi(name, scr);
	struct v8_function_name out;

	(void)state;
	/* a name not in a ScopeInfo (a function never compiled): no line;
	 * two-byte characters in UTF-8, a control character made '?' */
	assert_int_equal(name_of(f, name, scr, &lines, &out), 0);
	assert_string_equal(out.name, "h\xc3\xa9l\xe2\x98\xba");
	assert_string_equal(out.file, "a?b.js");
	assert_int_equal(out.line, 0);
}

static void test_anonymous(void **state)
{
	uint64_t name = scope_info(seq_string("", 0, true), 3);
	uint64_t f = sfi(name, smi(0));
	struct v8_function_name out;

	(void)state;
	assert_int_equal(name_of(f, name, smi(0), &lines, &out), 0);
	assert_string_equal(out.name, "(anonymous)");
	assert_string_equal(out.file, "");
}

static void test_moved_refused(void **state)
{
	uint64_t name = scope_info(seq_string("inner", 5, true), 10);
	uint64_t other = scope_info(seq_string("other", 5, true), 10);
	uint64_t f = sfi(other, smi(0)), g = (uint64_t)(uintptr_t)object(6);
	struct v8_function_name out;

	(void)state;
	/* another function's SharedFunctionInfo where the walk read this one's */
	assert_int_equal(name_of(f, name, smi(0), &lines, &out),
			 -ESTALE);
	/* no SharedFunctionInfo there at all (freed: zeroes) */
	assert_int_equal(name_of(g, name, smi(0), &lines, &out),
			 -ESTALE);
}

/* V8's encoding of a number: zigzag, then 7 bits a byte, low first. */
static size_t encode(uint8_t *out, int64_t v)
{
	uint64_t z = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
	size_t n = 0;

	do {
		out[n] = z & 0x7f;
		z >>= 7;
		out[n] |= z ? 0x80 : 0;
		n++;
	} while (z);
	return n;
}

/* A table of entries (code offset, position, statement), as V8 writes it:
 * each the difference from the last, a non-statement's code offset negated
 * less one. */
static size_t table_of(uint8_t *t, const int64_t (*e)[3], size_t nr)
{
	int64_t code = 0, pos = 0;
	size_t n = 0;

	for (size_t i = 0; i < nr; i++) {
		int64_t dc = e[i][0] - code;

		n += encode(t + n, e[i][2] ? dc : -dc - 1);
		n += encode(t + n, e[i][1] - pos);
		code = e[i][0];
		pos = e[i][1];
	}
	return n;
}

static void test_position_table(void **state)
{
	static const int64_t entries[][3] = { { 4, 1ll << 40, 1 }, { 10, 77, 0 }, { 300, 5, 1 } };
	int64_t pos = 0, next_off, next = 0;
	uint8_t t[64];
	size_t len = table_of(t, entries, 3);

	(void)state;
	assert_int_equal(v8_position_at(t, len, 2, &pos, &next_off, &next), -ENOENT);
	assert_int_equal(next_off, 4);
	assert_int_equal(v8_position_at(t, len, 9, &pos, &next_off, &next), 0);
	assert_true(pos == 1ll << 40);
	assert_int_equal(next_off, 10);
	assert_int_equal(next, 77);
	assert_int_equal(v8_position_at(t, len, 10, &pos, &next_off, &next), 0);
	assert_int_equal(pos, 77);
	assert_int_equal(v8_position_at(t, len, 5000, &pos, &next_off, &next), 0);
	assert_int_equal(pos, 5);
	assert_int_equal(next_off, -1);
	/* cut inside a number: refused, never read past */
	for (size_t cut = 1; cut < len; cut++) {
		int r = v8_position_at(t, cut, 5000, &pos, &next_off, &next);

		assert_true(r == 0 || r == -EINVAL);
	}
	t[len - 1] |= 0x80;
	assert_int_equal(v8_position_at(t, len, 5000, &pos, &next_off, &next), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scope_info_name_and_line),
		cmocka_unit_test(test_lines_from_source),
		cmocka_unit_test(test_name_as_string),
		cmocka_unit_test(test_anonymous),
		cmocka_unit_test(test_moved_refused),
		cmocka_unit_test(test_position_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
