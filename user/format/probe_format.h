/* SPDX-License-Identifier: GPL-2.0-only */
/* probe_format.h: the tracepoint format a user-space probe's samples are read
 * by (uprobe_events' layout), written into the recording's tracing data. */
#ifndef RINGTRACE_PROBE_FORMAT_H
#define RINGTRACE_PROBE_FORMAT_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/byte_buffer.h"

/* Ids the recording gives its probes' formats: from the top of the 16-bit
 * common_type down, far above the ids the kernel hands its events (which
 * count up from a few hundred); a recorded tracepoint's id is skipped. */
#define PROBE_FORMAT_FIRST_ID 65535u

/* What a probe's format says. */
struct probe_format {
	const char *name;    /* the event's name in its system ("main__return") */
	uint16_t id;
	bool retprobe;       /* __probe_func, __probe_ret_ip, then the return value */
	unsigned int nr_args; /* arg1..argN (a retprobe: 1, its return value "ret") */
	uint16_t arg_signed; /* bit i: arg i+1 is signed (printed in decimal) */
	bool args_decimal;   /* unsigned args in decimal (USDT), else hex (registers) */
};

/* Appends the format text, as tracefs writes events/SYSTEM/NAME/format; 0, or
 * -ENOMEM. */
int probe_format_text(struct byte_buffer *b, const struct probe_format *f);

/* The bytes of the probe's raw record (the format's fixed size). */
uint32_t probe_format_size(const struct probe_format *f);

#endif
