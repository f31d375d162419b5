/* SPDX-License-Identifier: GPL-2.0-only */
/* kallsyms_cache_option.c: report's and script's --kallsyms-cache DIR|none,
 * where the running kernel's symbol table is kept between them: by default
 * KALLSYMS_DISK_DEFAULT_DIR when run as root, else none. */
#include <string.h>
#include <unistd.h>

#include "cli/command_options.h"
#include "symbols/kallsyms_disk.h"

void kallsyms_cache_option_apply(const char *arg, const char *kallsyms)
{
	/* a copy named with --kallsyms is read as it is */
	if (kallsyms && strcmp(kallsyms, "/proc/kallsyms"))
		return;
	if (!arg)
		arg = geteuid() == 0 ? KALLSYMS_DISK_DEFAULT_DIR : "none";
	kallsyms_disk_configure(strcmp(arg, "none") ? arg : NULL);
}
