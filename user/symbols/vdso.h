/* SPDX-License-Identifier: GPL-2.0-only */
/* vdso.h: the kernel's vDSO image as a file, copied from this process's own
 * mapping, for unwinding through a recorded process's [vdso] (as perf does). */
#ifndef RINGTRACE_VDSO_H
#define RINGTRACE_VDSO_H

/* A new descriptor of a memfd holding this process's vDSO (the running
 * kernel's), made once; -1 if there is none. The caller closes it. */
int vdso_open_own(void);

#endif
