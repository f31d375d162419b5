/* SPDX-License-Identifier: GPL-2.0-only */
/* test_python_elf.c: a CPython interpreter file recognized by its exports (version from
 * Py_Version, else the name), other files not; 3.13's own _Py_DebugOffsets read; the
 * reserved range's encoding. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols/python_elf.h"
#include "symbols/python_offsets.h"
#include "test_util.h"

static void test_names_that_may_be_python(void **state)
{
	(void)state;
	assert_true(python_elf_name_may_be("/usr/bin/python3.11"));
	assert_true(python_elf_name_may_be("/opt/py/lib/libpython3.11.so.1.0"));
	assert_false(python_elf_name_may_be("/usr/lib/python3.11/bin/gzip"));
	assert_false(python_elf_name_may_be("/usr/bin/gzip"));
}

/* Debian's python3.11 (skipped where it is not installed): 3.11 from
 * Py_Version's value, _PyRuntime and the evaluation loop found. */
static void test_debian_python311(void **state)
{
	struct python_interp in;
	uint32_t index;
	int fd;

	(void)state;
	fd = open("/usr/bin/python3.11", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		print_message("skipped: /usr/bin/python3.11 not installed\n");
		return;
	}
	assert_int_equal(python_elf_inspect(fd, "/usr/bin/python3.11", &in), 0);
	close(fd);
	assert_int_equal(in.major, 3);
	assert_int_equal(in.minor, 11);
	assert_false(in.version_from_name);
	assert_true(in.runtime_vaddr && in.eval_vaddr && in.eval_size > 1000 && in.code_type_vaddr);
	assert_non_null(python_offsets_for(in.major, in.minor, &index));
	assert_int_equal(index, 0);
}

#define PYENV_LIBPYTHON_313 "/root/.pyenv/versions/3.13.0/lib/libpython3.13.so.1.0"

/* 3.13's own _Py_DebugOffsets, read from the file, give the table's 3.13
 * entry exactly; changed, what they give is used, or refused where the walk
 * could not read it, and another layout is left alone. 3.11 has none. */
static void test_debug_offsets_313(void **state)
{
	const struct python_version_offsets *base;
	struct python_version_offsets d;
	struct python_interp in, in311;
	uint64_t v;
	uint32_t index;
	int fd;

	(void)state;
	fd = open(PYENV_LIBPYTHON_313, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		tu_skip("%s is not installed (pyenv's 3.13.0)", PYENV_LIBPYTHON_313);
	assert_int_equal(python_elf_inspect(fd, PYENV_LIBPYTHON_313, &in), 0);
	close(fd);
	assert_int_equal(in.minor, 13);
	assert_true(in.debug_offsets_len >= 584);
	base = python_offsets_for(3, 13, &index);
	assert_non_null(base);
	assert_int_equal(python_offsets_from_debug(in.debug_offsets, in.debug_offsets_len, base, &d),
			 1);
	assert_memory_equal(&d, base, sizeof(d));
	/* PyInterpreterState.threads.head moved: the block's value is taken */
	v = 0x1cb8;
	memcpy(in.debug_offsets + 72, &v, sizeof(v));
	assert_int_equal(python_offsets_from_debug(in.debug_offsets, in.debug_offsets_len, base, &d),
			 1);
	assert_int_equal(d.walk.interp_threads_head, 0x1cb8);
	d.walk.interp_threads_head = base->walk.interp_threads_head;
	assert_memory_equal(&d, base, sizeof(d));
	/* a frame's owner past the bytes a walk reads of a frame: refused */
	v = 200;
	memcpy(in.debug_offsets + 264, &v, sizeof(v));
	assert_int_equal(python_offsets_from_debug(in.debug_offsets, in.debug_offsets_len, base, &d),
			 -1);
	/* another version's layout (3.14): not read, the table's stands */
	v = 0x030e00f0;
	memcpy(in.debug_offsets + 8, &v, sizeof(v));
	assert_int_equal(python_offsets_from_debug(in.debug_offsets, in.debug_offsets_len, base, &d),
			 0);
	assert_memory_equal(&d, base, sizeof(d));

	fd = open("/usr/bin/python3.11", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		tu_skip("/usr/bin/python3.11 is not installed");
	assert_int_equal(python_elf_inspect(fd, "/usr/bin/python3.11", &in311), 0);
	close(fd);
	assert_int_equal(in311.debug_offsets_len, 0);
}

/* An ELF file that is no CPython (this test's own program). */
static void test_other_elf_file(void **state)
{
	struct python_interp in;
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(python_elf_inspect(fd, "python3.11", &in), -ENOENT);
	close(fd);
	fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_true(python_elf_inspect(fd, "python3.11", &in) < 0);
	close(fd);
}

/* A CPython before 3.7 (no _PyRuntime), here a library that exports 2.7's
 * evaluation function under 2.7's name: a CPython, of its name's version,
 * whose runtime is not known (a version without offsets, counted so). */
static void test_python27_is_one(void **state)
{
	char *dir = tu_tempdir(), path[PATH_MAX], *out = NULL;
	struct python_interp in;
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "%s/libpython2.7.so.1.0", dir);
	if (tu_sh(&out, "printf 'int PyEval_EvalFrameEx(void *f, int t) { return t + !f; }\n' | "
			"cc -shared -fPIC -x c -o %s - 2>&1", path))
		fail_msg("cannot build the library: %s", out);
	free(out);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(python_elf_inspect(fd, path, &in), 0);
	close(fd);
	assert_int_equal(in.major, 2);
	assert_int_equal(in.minor, 7);
	assert_true(in.version_from_name);
	assert_int_equal(in.runtime_vaddr, 0);
	assert_true(in.eval_vaddr != 0);
	tu_rmtree(dir);
	free(dir);
}

/* A frame's address is above every user address and below the kernel's
 * half (whatever its tag), and gives back its code object and tag; one code
 * object's tags are apart by more than any code's span. */
static void test_reserved_range(void **state)
{
	uint64_t code = 0x7fffdeadbee8ULL, addr = RT_PY_ADDR_OF(code, 5, 0x1234);
	uint32_t index;

	(void)state;
	assert_true(addr >= RT_PY_ADDR_BASE && addr < RT_PY_ADDR_BASE + RT_PY_ADDR_SPAN);
	assert_true(RT_PY_ADDR_OF(0, 0, 0) >= 0x0100000000000000ULL);
	assert_true(RT_PY_ADDR_OF(RT_PY_CODE_MAX - 8, RT_PY_TAGS - 1, 0xfff) <
		    RT_PY_ADDR_BASE + RT_PY_ADDR_SPAN);
	assert_true(RT_PY_ADDR_BASE + RT_PY_ADDR_SPAN <= 0x8000000000000000ULL);
	assert_int_equal(addr & (RT_PY_CODE_SPAN - 1), 0x234);
	assert_int_equal(RT_PY_CODE_OF(addr), code);
	assert_int_equal(RT_PY_TAG_OF(addr), 5);
	assert_true(RT_PY_ADDR_OF(code, 6, 0) - RT_PY_ADDR_OF(code, 5, 0xfff) > RT_PY_CODE_SPAN);
	assert_int_equal(RT_PY_CODE_OF(RT_PY_ADDR_OF(RT_PY_CODE_MAX - 8, RT_PY_TAGS - 1, 7)),
			 RT_PY_CODE_MAX - 8);
	assert_null(python_offsets_for(3, 8, &index));
	assert_true(python_offsets_for(3, 10, &index)->walk.flags & RT_PY_FRAME_PER_CALL);
	assert_non_null(python_offsets_for(3, 12, &index));
	assert_int_equal(python_offsets_for(3, 13, &index)->walk.cframe_current_frame, RT_PY_NONE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_that_may_be_python),
		cmocka_unit_test(test_debian_python311),
		cmocka_unit_test(test_other_elf_file),
		cmocka_unit_test(test_python27_is_one),
		cmocka_unit_test(test_debug_offsets_313),
		cmocka_unit_test(test_reserved_range),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
