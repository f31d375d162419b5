/* SPDX-License-Identifier: GPL-2.0-only */
/* test_hotspot_vmstructs.c: a JVM's self-described layout read from memory
 * (this process's, laid out as vmStructs.cpp lays it out): fields, statics,
 * sizes and constants found by name; a JVM still starting, a malformed entry
 * size, a table without its end and a name too long are refused or counted,
 * never read past; the walk's layout refused for a version whose frames are
 * not known. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols/hotspot_vmstructs.h"
#include "symbols/hotspot_walk_layout.h"

/* vmStructs.hpp's entries */
struct struct_entry {
	const char *type_name, *field_name, *type_string;
	int32_t is_static;
	uint64_t offset;
	void *address;
};
struct type_entry {
	const char *type_name, *superclass_name;
	int32_t is_oop, is_integer, is_unsigned;
	uint64_t size;
};
struct int_entry {
	const char *name;
	int32_t value;
};
struct long_entry {
	const char *name;
	uint64_t value;
};

static uint64_t code_heaps;
static struct struct_entry structs[4];
static struct type_entry types[3];
static struct int_entry ints[3];
static struct long_entry longs[2];
/* the exports: pointers to the tables, the offsets and strides */
static uint64_t exported[HOTSPOT_EXPORTS];

static struct hotspot_elf elf_of_this(void)
{
	struct hotspot_elf e = { 0 };

	for (int i = 0; i < HOTSPOT_EXPORTS; i++)
		e.vaddr[i] = (uint64_t)(uintptr_t)&exported[i];
	return e;
}

static int setup(void **state)
{
	(void)state;
	structs[0] = (struct struct_entry){ "Method", "_constMethod", "ConstMethod*", 0, 8, NULL };
	structs[1] = (struct struct_entry){ "Symbol", "_body", "u1", 0, 6, NULL };
	structs[2] = (struct struct_entry){ "CodeCache", "_heaps", "GrowableArray<CodeHeap*>*", 1,
					    0, &code_heaps };
	structs[3] = (struct struct_entry){ NULL, NULL, NULL, 0, 0, NULL };
	types[0] = (struct type_entry){ "Method", "Metadata", 0, 0, 0, 88 };
	types[1] = (struct type_entry){ "jint", NULL, 0, 1, 0, 4 };
	types[2] = (struct type_entry){ NULL, NULL, 0, 0, 0, 0 };
	ints[0] = (struct int_entry){ "frame::interpreter_frame_method_offset", -3 };
	ints[1] = (struct int_entry){ "Method::_jfr_towrite", 1 << 15 };
	ints[2] = (struct int_entry){ NULL, 0 };
	longs[0] = (struct long_entry){ "markWord::klass_shift", 32 };
	longs[1] = (struct long_entry){ NULL, 0 };
	exported[HOTSPOT_STRUCTS] = (uint64_t)(uintptr_t)structs;
	exported[HOTSPOT_STRUCT_TYPE_NAME] = offsetof(struct struct_entry, type_name);
	exported[HOTSPOT_STRUCT_FIELD_NAME] = offsetof(struct struct_entry, field_name);
	exported[HOTSPOT_STRUCT_IS_STATIC] = offsetof(struct struct_entry, is_static);
	exported[HOTSPOT_STRUCT_OFFSET] = offsetof(struct struct_entry, offset);
	exported[HOTSPOT_STRUCT_ADDRESS] = offsetof(struct struct_entry, address);
	exported[HOTSPOT_STRUCT_STRIDE] = sizeof(struct struct_entry);
	exported[HOTSPOT_TYPES] = (uint64_t)(uintptr_t)types;
	exported[HOTSPOT_TYPE_NAME] = offsetof(struct type_entry, type_name);
	exported[HOTSPOT_TYPE_SIZE] = offsetof(struct type_entry, size);
	exported[HOTSPOT_TYPE_STRIDE] = sizeof(struct type_entry);
	exported[HOTSPOT_INTS] = (uint64_t)(uintptr_t)ints;
	exported[HOTSPOT_INT_NAME] = offsetof(struct int_entry, name);
	exported[HOTSPOT_INT_VALUE] = offsetof(struct int_entry, value);
	exported[HOTSPOT_INT_STRIDE] = sizeof(struct int_entry);
	exported[HOTSPOT_LONGS] = (uint64_t)(uintptr_t)longs;
	exported[HOTSPOT_LONG_NAME] = offsetof(struct long_entry, name);
	exported[HOTSPOT_LONG_VALUE] = offsetof(struct long_entry, value);
	exported[HOTSPOT_LONG_STRIDE] = sizeof(struct long_entry);
	return 0;
}

static void test_found_by_name(void **state)
{
	struct hotspot_elf e = elf_of_this();
	struct hotspot_vmstructs v;
	char err[256];
	uint64_t u;
	int64_t c;

	(void)state;
	assert_int_equal(hotspot_vmstructs_read((uint32_t)getpid(), &e, 0, &v, err, sizeof(err)), 0);
	assert_int_equal(v.nr_fields, 3);
	assert_int_equal(v.nr_types, 2);
	assert_int_equal(v.nr_constants, 3);
	assert_true(hotspot_field_offset(&v, "Method", "_constMethod", &u));
	assert_int_equal(u, 8);
	assert_true(hotspot_field_offset(&v, "Symbol", "_body", &u));
	assert_int_equal(u, 6);
	/* a static is its address, never an offset */
	assert_false(hotspot_field_offset(&v, "CodeCache", "_heaps", &u));
	assert_true(hotspot_static_address(&v, "CodeCache", "_heaps", &u));
	assert_int_equal(u, (uint64_t)(uintptr_t)&code_heaps);
	assert_false(hotspot_static_address(&v, "Method", "_constMethod", &u));
	assert_true(hotspot_type_size(&v, "Method", &u));
	assert_int_equal(u, 88);
	/* an int constant keeps its sign; a long one is read whole */
	assert_true(hotspot_constant(&v, "frame::interpreter_frame_method_offset", &c));
	assert_int_equal(c, -3);
	assert_true(hotspot_constant(&v, "markWord::klass_shift", &c));
	assert_int_equal(c, 32);
	assert_false(hotspot_field_offset(&v, "Method", "_nosuch", &u));
	assert_false(hotspot_type_size(&v, "NoSuch", &u));
	hotspot_vmstructs_free(&v);
}

/* The offsets and strides are set as the JVM starts: before, it is not read. */
static void test_starting_jvm_is_again(void **state)
{
	struct hotspot_elf e = elf_of_this();
	struct hotspot_vmstructs v;
	char err[256];

	(void)state;
	exported[HOTSPOT_TYPE_STRIDE] = 0;
	assert_int_equal(hotspot_vmstructs_read((uint32_t)getpid(), &e, 0, &v, err, sizeof(err)),
			 -EAGAIN);
	assert_non_null(strstr(err, "starting"));
}

static void test_malformed_refused(void **state)
{
	struct hotspot_elf e = elf_of_this();
	struct hotspot_vmstructs v;
	char err[256];

	(void)state;
	exported[HOTSPOT_STRUCT_STRIDE] = 4096;
	assert_int_equal(hotspot_vmstructs_read((uint32_t)getpid(), &e, 0, &v, err, sizeof(err)),
			 -EINVAL);
	exported[HOTSPOT_STRUCT_STRIDE] = sizeof(struct struct_entry);
	exported[HOTSPOT_STRUCT_ADDRESS] = sizeof(struct struct_entry);
	assert_int_equal(hotspot_vmstructs_read((uint32_t)getpid(), &e, 0, &v, err, sizeof(err)),
			 -EINVAL);
	/* a table in memory no one mapped */
	exported[HOTSPOT_STRUCT_ADDRESS] = offsetof(struct struct_entry, address);
	exported[HOTSPOT_STRUCTS] = 8;
	assert_int_equal(hotspot_vmstructs_read((uint32_t)getpid(), &e, 0, &v, err, sizeof(err)),
			 -EFAULT);
}

/* A table whose end never comes is read HOTSPOT_TABLE_MAX entries far. */
static void test_endless_table_bounded(void **state)
{
	struct hotspot_elf e = elf_of_this();
	struct int_entry *many = calloc(HOTSPOT_TABLE_MAX + 1, sizeof(*many));
	struct hotspot_vmstructs v;
	char err[256];

	(void)state;
	assert_non_null(many);
	for (unsigned int i = 0; i <= HOTSPOT_TABLE_MAX; i++)
		many[i] = (struct int_entry){ "same", (int32_t)i };
	exported[HOTSPOT_INTS] = (uint64_t)(uintptr_t)many;
	assert_int_equal(hotspot_vmstructs_read((uint32_t)getpid(), &e, 0, &v, err, sizeof(err)),
			 -E2BIG);
	assert_non_null(strstr(err, "more than"));
	free(many);
}

/* A name longer than HOTSPOT_NAME_MAX: its entry skipped and counted. */
static void test_long_name_skipped(void **state)
{
	struct hotspot_elf e = elf_of_this();
	struct hotspot_vmstructs v;
	char err[256], *name = malloc(HOTSPOT_NAME_MAX + 10);
	int64_t c;

	(void)state;
	assert_non_null(name);
	memset(name, 'x', HOTSPOT_NAME_MAX + 9);
	name[HOTSPOT_NAME_MAX + 9] = '\0';
	ints[1].name = name;
	assert_int_equal(hotspot_vmstructs_read((uint32_t)getpid(), &e, 0, &v, err, sizeof(err)), 0);
	assert_int_equal(v.skipped, 1);
	assert_int_equal(v.nr_constants, 2);
	assert_true(hotspot_constant(&v, "frame::interpreter_frame_method_offset", &c));
	hotspot_vmstructs_free(&v);
	free(name);
}

/* The walk's layout is read only of a version whose interpreter frames are
 * known (17, its last sp slot 2 words below the frame pointer): another
 * (11, 21, 8), or 17 laid out otherwise, is refused with -ENOTSUP (the JVM
 * unwound natively, counted as of a version not known), never read as 17. */
static void test_walk_layout_versions(void **state)
{
	static const int32_t majors[] = { 11, 21, 8 };
	static int32_t major;
	struct hotspot_elf e = elf_of_this();
	struct hotspot_walk_layout l;
	struct hotspot_vmstructs v;
	char err[256];

	(void)state;
	structs[0] = (struct struct_entry){ "Abstract_VM_Version", "_vm_major_version", "int", 1,
					    0, &major };
	structs[1] = (struct struct_entry){ NULL, NULL, NULL, 0, 0, NULL };
	ints[0] = (struct int_entry){ "frame::interpreter_frame_last_sp_offset", -2 };
	for (size_t i = 0; i < sizeof(majors) / sizeof(majors[0]); i++) {
		major = majors[i];
		assert_int_equal(hotspot_vmstructs_read((uint32_t)getpid(), &e, 0, &v, err,
							sizeof(err)),
				 0);
		assert_int_equal(hotspot_walk_layout_read((uint32_t)getpid(), &v, &l, err, sizeof(err)),
				 -ENOTSUP);
		assert_int_equal(l.major, major);
		assert_non_null(strstr(err, "not known here"));
		hotspot_vmstructs_free(&v);
	}
	/* 17: past the version, to the fields this table lacks */
	major = 17;
	assert_int_equal(hotspot_vmstructs_read((uint32_t)getpid(), &e, 0, &v, err, sizeof(err)), 0);
	assert_int_equal(hotspot_walk_layout_read((uint32_t)getpid(), &v, &l, err, sizeof(err)),
			 -ENOENT);
	hotspot_vmstructs_free(&v);
	/* 17 whose frames are laid out otherwise */
	ints[0].value = -3;
	assert_int_equal(hotspot_vmstructs_read((uint32_t)getpid(), &e, 0, &v, err, sizeof(err)), 0);
	assert_int_equal(hotspot_walk_layout_read((uint32_t)getpid(), &v, &l, err, sizeof(err)),
			 -ENOTSUP);
	hotspot_vmstructs_free(&v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_found_by_name, setup),
		cmocka_unit_test_setup(test_starting_jvm_is_again, setup),
		cmocka_unit_test_setup(test_malformed_refused, setup),
		cmocka_unit_test_setup(test_endless_table_bounded, setup),
		cmocka_unit_test_setup(test_long_name_skipped, setup),
		cmocka_unit_test_setup(test_walk_layout_versions, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
