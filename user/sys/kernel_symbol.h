/* SPDX-License-Identifier: GPL-2.0-only */
/* kernel_symbol.h: the address of one kernel text symbol, from /proc/kallsyms,
 * for a BPF program that must know where a kernel function is. */
#ifndef RINGTRACE_KERNEL_SYMBOL_H
#define RINGTRACE_KERNEL_SYMBOL_H

#include <stdint.h>

/* The address of the core kernel's text symbol name (not a module's), or 0
 * if there is none, or several, or kallsyms hides addresses. */
uint64_t kernel_symbol_address(const char *name);

#endif
