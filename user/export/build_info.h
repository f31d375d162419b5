/* SPDX-License-Identifier: GPL-2.0-only */
/* build_info.h: what ringtrace_build_info says: the version, the commit this
 * binary was built from, and the versions of the libraries it runs with. */
#ifndef RINGTRACE_BUILD_INFO_H
#define RINGTRACE_BUILD_INFO_H

#include "export/metrics.h"

/* The labels, filled once (static storage). */
const struct metrics_build_info *build_info(void);

#endif
