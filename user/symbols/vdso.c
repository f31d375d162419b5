/* SPDX-License-Identifier: GPL-2.0-only */
/* vdso.c: the kernel's vDSO image as a file, copied from this process's own
 * mapping, for unwinding through a recorded process's [vdso] (as perf does). */
#include "symbols/vdso.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int vdso_fd = -2; /* -2: not looked for yet */

/* The [vdso] line of /proc/self/maps. */
static int find_own_vdso(uintptr_t *start, uintptr_t *end)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[512];
	int ret = -1;

	if (!f)
		return -1;
	while (ret && fgets(line, sizeof(line), f)) {
		unsigned long s, e;

		if (strstr(line, "[vdso]") && sscanf(line, "%lx-%lx", &s, &e) == 2 && e > s) {
			*start = s;
			*end = e;
			ret = 0;
		}
	}
	fclose(f);
	return ret;
}

int vdso_open_own(void)
{
	uintptr_t start, end;

	if (vdso_fd == -2) {
		vdso_fd = -1;
		if (!find_own_vdso(&start, &end)) {
			int fd = memfd_create("ringtrace-vdso", MFD_CLOEXEC);

			if (fd >= 0 && write(fd, (const void *)start, end - start) ==
						(ssize_t)(end - start))
				vdso_fd = fd;
			else if (fd >= 0)
				close(fd);
		}
	}
	return vdso_fd >= 0 ? fcntl(vdso_fd, F_DUPFD_CLOEXEC, 0) : -1;
}
