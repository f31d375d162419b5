/* SPDX-License-Identifier: GPL-2.0-only */
/* kallsyms_access.c: why /proc/kallsyms hides kernel addresses from us, from
 * kernel.kptr_restrict, kernel.perf_event_paranoid and CAP_SYSLOG as they are. */
#include "sys/kallsyms_access.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <unistd.h>

#include "sys/safe_open.h"

int kallsyms_read_sysctl(const char *name, int fallback)
{
	char path[128], buf[32], *end;
	long v;

	snprintf(path, sizeof(path), "/proc/sys/%s", name);
	if (safe_read_file(AT_FDCWD, path, buf, sizeof(buf)) <= 0)
		return fallback;
	v = strtol(buf, &end, 10);
	return end == buf ? fallback : (int)v;
}

static int has_cap_syslog(void)
{
	cap_flag_value_t v = CAP_CLEAR;
	cap_t caps = cap_get_proc();

	if (!caps)
		return 0;
	cap_get_flag(caps, CAP_SYSLOG, CAP_EFFECTIVE, &v);
	cap_free(caps);
	return v == CAP_SET;
}

bool kallsyms_addresses_shown(void)
{
	char buf[4096], *line = buf, *nl;
	ssize_t n = safe_read_file(AT_FDCWD, "/proc/kallsyms", buf, sizeof(buf));

	if (n <= 0)
		return false;
	/* each whole line: older kernels list per-CPU symbols at 0 first,
	 * addresses shown or not (the second, 0000000000001000, is not 0) */
	while ((nl = memchr(line, '\n', (size_t)(buf + n - line)))) {
		char *end;

		if (strtoull(line, &end, 16) && end != line)
			return true;
		line = nl + 1;
	}
	return false;
}

void kallsyms_hidden_cause(char *buf, size_t len)
{
	int kptr = kallsyms_read_sysctl("kernel/kptr_restrict", -1);
	int paranoid = kallsyms_read_sysctl("kernel/perf_event_paranoid", -1);
	int syslog = has_cap_syslog();
	char exe[4096], grant[4200];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	exe[n > 0 ? n : 0] = '\0';
	/* read before the capabilities are dropped: a file capability helps */
	snprintf(grant, sizeof(grant), "grant CAP_SYSLOG as well (setcap cap_bpf,cap_perfmon,cap_syslog+ep %s)",
		 exe[0] ? exe : "ringtrace");
	if (kptr >= 2)
		snprintf(buf, len,
			 "kernel.kptr_restrict=%d hides them from everyone: set it to 0 (sysctl kernel.kptr_restrict=0)",
			 kptr);
	else if (kptr == 1 && !syslog)
		snprintf(buf, len,
			 "kernel.kptr_restrict=1 shows them only with CAP_SYSLOG: run as root, %s, or set kernel.kptr_restrict=0%s",
			 grant, paranoid > 1 ? " and kernel.perf_event_paranoid=1" : "");
	else if (kptr == 0 && paranoid > 1 && !syslog)
		snprintf(buf, len,
			 "kernel.perf_event_paranoid=%d (above 1) with kernel.kptr_restrict=0 shows them only with CAP_SYSLOG: run as root, %s, or set kernel.perf_event_paranoid=1",
			 paranoid, grant);
	else
		snprintf(buf, len,
			 "kernel.kptr_restrict=%d and kernel.perf_event_paranoid=%d should show them%s: is /proc/kallsyms another file here (a container)?",
			 kptr, paranoid, syslog ? " with CAP_SYSLOG" : "");
}
