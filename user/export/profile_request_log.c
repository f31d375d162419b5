/* SPDX-License-Identifier: GPL-2.0-only */
/* profile_request_log.c: the profile requests answered, told as one summary
 * line a period (counts by profile type and status), not a line per request;
 * nothing when none came. */
#include "export/profile_request_log.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "lib/log.h"
#include "lib/monotonic.h"

/* The statuses counted one by one; any other is counted as its class's
 * first (e.g. 502 as 500). */
static const unsigned int statuses[] = { 200, 400, 404, 429, PROFILE_LOG_CLIENT_LEFT, 500, 503 };
#define NR_STATUSES (sizeof(statuses) / sizeof(statuses[0]))

struct profile_request_log {
	pthread_mutex_t lock;
	pthread_cond_t wake; /* stopping */
	pthread_t thread;
	bool stopping;
	unsigned int period_s;
	uint64_t since_ns; /* the start of what is counted */
	uint64_t counts[PROFILE_KINDS][NR_STATUSES];
};

static size_t status_slot(unsigned int status)
{
	for (size_t i = 0; i < NR_STATUSES; i++)
		if (statuses[i] == status)
			return i;
	return status >= 500 ? NR_STATUSES - 2 : 1;
}

/* Writes the line of what is counted and starts counting again, under
 * log->lock; nothing when nothing was counted. */
static void say_summary(struct profile_request_log *log)
{
	char line[512] = "";
	size_t used = 0;
	uint64_t now = monotonic_ns();
	bool any = false, left = false;

	for (int k = 0; k < PROFILE_KINDS; k++) {
		bool kind_said = false;

		for (size_t i = 0; i < NR_STATUSES; i++) {
			if (!log->counts[k][i] || used >= sizeof(line))
				continue;
			used += (size_t)snprintf(line + used, sizeof(line) - used, "%s%s%s%" PRIu64 " x %u",
						 kind_said ? ", " : any ? "; " : "",
						 kind_said ? "" : profile_kind_name((enum profile_kind)k),
						 kind_said ? "" : ": ", log->counts[k][i], statuses[i]);
			kind_said = any = true;
			left |= statuses[i] == PROFILE_LOG_CLIENT_LEFT;
			log->counts[k][i] = 0;
		}
	}
	if (any)
		rt_info("ringtrace: profile requests in the last %.0f s: %s (HTTP statuses%s)",
			(double)(now - log->since_ns) / 1e9, line,
			left ? "; 499: the client left before its profile was made" : "");
	log->since_ns = now;
}

static void *log_thread(void *arg)
{
	struct profile_request_log *log = arg;

	pthread_mutex_lock(&log->lock);
	while (!log->stopping) {
		uint64_t next = log->since_ns + (uint64_t)log->period_s * 1000000000;
		struct timespec until = { (time_t)(next / 1000000000), (long)(next % 1000000000) };

		if (pthread_cond_timedwait(&log->wake, &log->lock, &until) && !log->stopping &&
		    monotonic_ns() >= next)
			say_summary(log);
	}
	say_summary(log);
	pthread_mutex_unlock(&log->lock);
	return NULL;
}

struct profile_request_log *profile_request_log_start(unsigned int period_s)
{
	struct profile_request_log *log = calloc(1, sizeof(*log));
	pthread_condattr_t attr;

	if (!log)
		return NULL;
	pthread_mutex_init(&log->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&log->wake, &attr);
	pthread_condattr_destroy(&attr);
	log->period_s = period_s ? period_s : 1;
	log->since_ns = monotonic_ns();
	if (pthread_create(&log->thread, NULL, log_thread, log)) {
		pthread_cond_destroy(&log->wake);
		pthread_mutex_destroy(&log->lock);
		free(log);
		return NULL;
	}
	pthread_setname_np(log->thread, "rt-request-log");
	return log;
}

void profile_request_log_count(struct profile_request_log *log, enum profile_kind kind,
			       unsigned int status)
{
	if (!log || kind < 0 || kind >= PROFILE_KINDS)
		return;
	pthread_mutex_lock(&log->lock);
	log->counts[kind][status_slot(status)]++;
	pthread_mutex_unlock(&log->lock);
}

void profile_request_log_stop(struct profile_request_log *log)
{
	if (!log)
		return;
	pthread_mutex_lock(&log->lock);
	log->stopping = true;
	pthread_cond_broadcast(&log->wake);
	pthread_mutex_unlock(&log->lock);
	pthread_join(log->thread, NULL);
	pthread_cond_destroy(&log->wake);
	pthread_mutex_destroy(&log->lock);
	free(log);
}
