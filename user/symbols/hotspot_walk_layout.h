/* SPDX-License-Identifier: GPL-2.0-only */
/* hotspot_walk_layout.h: what the -g walk of a running HotSpot JVM needs of it,
 * from the layout the JVM describes of itself: the offsets a frame's method is
 * named through, where its template interpreter's code is, and its interpreter
 * frames' slots, for the versions whose frame layout is known. */
#ifndef RINGTRACE_HOTSPOT_WALK_LAYOUT_H
#define RINGTRACE_HOTSPOT_WALK_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "hotspot_maps.h"
#include "symbols/hotspot_method.h"
#include "symbols/hotspot_vmstructs.h"

struct hotspot_walk_layout {
	struct rt_hotspot_offsets offsets;    /* what the BPF walk reads */
	struct hotspot_method_layout method;  /* what naming a method here reads */
	struct rt_hotspot_process process;    /* where its code is (offsets entry unset) */
	int major;                            /* the JVM's feature version (17) */
};

/* The walk's layout of the JVM of pid described by v: 0; -ENOTSUP if its
 * version's interpreter frames are not known here (unwound natively);
 * -ENOENT if v lacks what is needed; -ERANGE if an offset is past what the
 * walk reads; -errno if pid's memory cannot be read. err says which. */
int hotspot_walk_layout_read(uint32_t pid, const struct hotspot_vmstructs *v,
			     struct hotspot_walk_layout *out, char *err, size_t errlen);

#endif
