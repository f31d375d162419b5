/* SPDX-License-Identifier: GPL-2.0-only */
/* kernel_symbol.c: the address of one kernel text symbol, from /proc/kallsyms,
 * for a BPF program that must know where a kernel function is. */
#include "sys/kernel_symbol.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

uint64_t kernel_symbol_address(const char *name)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512], sym[256], type;
	uint64_t addr, found = 0;
	unsigned int matches = 0;

	if (!f)
		return 0;
	/* "ADDRESS TYPE NAME[\t[MODULE]]": a module's lines carry a tab */
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%" SCNx64 " %c %255s", &addr, &type, sym) != 3 ||
		    (type != 't' && type != 'T') || strcmp(sym, name) || strchr(line, '\t'))
			continue;
		if (!matches++ || addr != found)
			found = matches == 1 ? addr : 0;
	}
	fclose(f);
	return matches && found ? found : 0;
}
