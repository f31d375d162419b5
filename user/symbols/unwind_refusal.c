/* SPDX-License-Identifier: GPL-2.0-only */
/* unwind_refusal.c: why a file has no unwind table, by name and errno. */
#include "symbols/unwind_compile.h"
#include <errno.h>

const char *unwind_refusal_name(enum unwind_refusal why)
{
	static const char *const names[UNWIND_NR_REFUSALS] = {
		[UNWIND_BUILT] = "built",
		[UNWIND_NOT_ELF] = "not ELF",
		[UNWIND_NO_CFI] = "no CFI",
		[UNWIND_LYING_HEADER] = "lying header",
		[UNWIND_OVER_ROWS] = "over the row budget",
		[UNWIND_OVER_BYTES] = "over the CFI byte budget",
		[UNWIND_OVER_TIME] = "over the time budget",
		[UNWIND_CANCELLED] = "cancelled",
		[UNWIND_NO_MEMORY] = "out of memory",
		[UNWIND_PAST_4GIB] = "code past 4 GiB",
		[UNWIND_FILE_CHANGED] = "file shrank while read",
		[UNWIND_UNKNOWN_CFI] = "unknown CFI encoding",
	};

	return (unsigned int)why < UNWIND_NR_REFUSALS ? names[why] : "?";
}

int unwind_refusal_errno(enum unwind_refusal why)
{
	switch (why) {
	case UNWIND_BUILT:
		return 0;
	case UNWIND_NOT_ELF:
		return ENOEXEC;
	case UNWIND_NO_CFI:
		return ENOENT;
	case UNWIND_OVER_ROWS:
		return E2BIG;
	case UNWIND_OVER_BYTES:
		return EFBIG;
	case UNWIND_OVER_TIME:
		return ETIME;
	case UNWIND_CANCELLED:
		return ECANCELED;
	case UNWIND_NO_MEMORY:
		return ENOMEM;
	case UNWIND_PAST_4GIB:
		return ERANGE;
	case UNWIND_FILE_CHANGED:
		return ESTALE;
	case UNWIND_UNKNOWN_CFI:
		return EPROTO;
	default:
		return EINVAL; /* UNWIND_LYING_HEADER */
	}
}
