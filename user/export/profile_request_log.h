/* SPDX-License-Identifier: GPL-2.0-only */
/* profile_request_log.h: the profile requests answered, told as one summary
 * line a period (counts by profile type and status), not a line per request;
 * nothing when none came. */
#ifndef RINGTRACE_PROFILE_REQUEST_LOG_H
#define RINGTRACE_PROFILE_REQUEST_LOG_H

#include "export/profile_requests.h"

/* The exporter's period between two summaries. */
#define PROFILE_LOG_PERIOD_S 60
/* A request whose client left before its answer, counted apart from the
 * status it would have had (nginx's "client closed request"). */
#define PROFILE_LOG_CLIENT_LEFT 499

struct profile_request_log;

/* Starts the thread that writes the summary every period_s seconds (on
 * stderr, rt_info). NULL: out of memory, or no thread. */
struct profile_request_log *profile_request_log_start(unsigned int period_s);
/* One request of kind answered with status (or PROFILE_LOG_CLIENT_LEFT). */
void profile_request_log_count(struct profile_request_log *log, enum profile_kind kind,
			       unsigned int status);
/* Writes what is counted since the last summary, if anything, and stops the
 * thread. NULL: nothing. */
void profile_request_log_stop(struct profile_request_log *log);

#endif
