/* SPDX-License-Identifier: GPL-2.0-only */
/* syscall_names.h: a syscall's name from its number on the machine ringtrace
 * was built for (the table the Makefile generates from <asm/unistd.h>). */
#ifndef RINGTRACE_SYSCALL_NAMES_H
#define RINGTRACE_SYSCALL_NAMES_H

#include <stddef.h>

/* The name ("openat"), or NULL for a number the table does not know. */
const char *syscall_name(unsigned int nr);

#endif
