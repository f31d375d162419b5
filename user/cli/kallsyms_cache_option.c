/* SPDX-License-Identifier: GPL-2.0-only */
/* kallsyms_cache_option.c: report's and script's --kallsyms-cache DIR|none,
 * where the running kernel's symbol table is kept between them: by default
 * KALLSYMS_DISK_DEFAULT_DIR when run as root, else none; a user other than
 * root keeps one only where kallsyms shows every user the addresses. */
#include <string.h>
#include <unistd.h>

#include "cli/command_options.h"
#include "lib/log.h"
#include "symbols/kallsyms_disk.h"
#include "sys/kallsyms_access.h"

void kallsyms_cache_option_apply(const char *arg, const char *kallsyms)
{
	/* a copy named with --kallsyms is read as it is */
	if (kallsyms && strcmp(kallsyms, "/proc/kallsyms"))
		return;
	if (!arg)
		arg = geteuid() == 0 ? KALLSYMS_DISK_DEFAULT_DIR : "none";
	if (!strcmp(arg, "none")) {
		kallsyms_disk_configure(NULL);
		return;
	}
	/* a user's file is the user's to read: one holding what the kernel
	 * shows only to CAP_SYSLOG (a file capability of ringtrace's) would
	 * show it them */
	if (geteuid() != 0 && (kallsyms_read_sysctl("kernel/kptr_restrict", 2) != 0 ||
			       kallsyms_read_sysctl("kernel/perf_event_paranoid", 2) > 1)) {
		rt_warn("--kallsyms-cache %s: a user other than root keeps kernel addresses only "
			"where /proc/kallsyms shows them to every user (kernel.kptr_restrict=0, "
			"kernel.perf_event_paranoid<=1): kernel symbols are read from /proc/kallsyms",
			arg);
		kallsyms_disk_configure(NULL);
		return;
	}
	kallsyms_disk_configure(arg);
}
