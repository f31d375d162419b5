/* SPDX-License-Identifier: GPL-2.0-only */
/* syscall_names.c: a syscall's name from its number, from the table the
 * Makefile generates from the kernel headers' <asm/unistd.h>. */
#include "sys/syscall_names.h"

/* The source: the __NR_name numbers of the build machine's kernel headers
 * (linux-libc-dev: /usr/include/x86_64-linux-gnu/asm/unistd_64.h on Debian
 * bookworm x86_64), listed by the preprocessor (cc -dM -E) at build time, as
 * perf generates its syscalltbl from the kernel's syscall_64.tbl. tracefs
 * has no number-to-name map (a sys_enter_NAME format's __syscall_nr is a
 * field, not its value), and libaudit is not a dependency. A syscall newer
 * than the headers prints as its number, as perf prints one it does not know. */
static const char *const names[] = {
#include "sys/syscall_table.h"
};

const char *syscall_name(unsigned int nr)
{
	return nr < sizeof(names) / sizeof(names[0]) ? names[nr] : NULL;
}
