/* SPDX-License-Identifier: GPL-2.0-only */
/* profile_requests.h: GET /debug/pprof/profile on the metrics server, as Go's
 * net/http/pprof serves it: the query checked, a bounded number of requests
 * waiting out their seconds on threads of their own while the server answers
 * others, and each answered with the profile the owner's callback makes of
 * its window. */
#ifndef RINGTRACE_PROFILE_REQUESTS_H
#define RINGTRACE_PROFILE_REQUESTS_H

#include <microhttpd.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/byte_buffer.h"

#define PROFILE_PATH "/debug/pprof/profile"
/* Off-CPU profiles (export -g --off-cpu): a path of their own, which
 * scrapers' custom profiles (Parca's pprof_config, Alloy's profile.custom)
 * can name and add seconds= to; PROFILE_PATH?type=offcpu is the same. */
#define OFFCPU_PROFILE_PATH "/debug/pprof/offcpu"
/* seconds= when not given: Go's */
#define PROFILE_DEFAULT_SECONDS 30
/* The longest window: what the flight recording behind it holds with room
 * to spare at the default rate (see docs/exporter.md). */
#define PROFILE_MAX_SECONDS 60
/* Requests waiting for their profile at once; one more gets 429. */
#define PROFILE_MAX_CONCURRENT 4

/* What a profile's samples are: CPU time (sampled), or time off CPU (each
 * block timed), each with the stack where it was spent or began. */
enum profile_kind {
	PROFILE_CPU,
	PROFILE_OFFCPU,
	PROFILE_KINDS
};

/* "cpu", "offcpu": as type= takes them. */
const char *profile_kind_name(enum profile_kind kind);

/* A request's window and filters, checked. */
struct profile_query {
	enum profile_kind kind;
	unsigned int seconds;
	uint64_t start_ns, end_ns; /* CLOCK_MONOTONIC, as the samples' times */
	int64_t pid;               /* only this process's samples, or -1 */
	char comm[16];             /* only this comm's, or "" */
	char cgroup[512];          /* only this cgroup path's, or "" */
	char container[65];        /* only this container id's (or its first 12+ digits), or "" */
	/* only the samples of containers their runtime names so (each or ""):
	 * a Kubernetes namespace, pod and container name */
	char namespace_[64];
	char pod[254];
	char container_name[64];
};

/* The Kubernetes names a profile is narrowed by, each NULL when absent. */
struct profile_query_names {
	const char *namespace_, *pod, *container_name;
};

/* Parses the query's values (each NULL when absent) into q, its window not
 * set. 0, or -EINVAL with err one line naming the parameter and what it takes. */
int profile_query_parse(struct profile_query *q, const char *seconds, const char *pid,
			const char *comm, const char *cgroup, const char *container,
			const struct profile_query_names *names, char *err, size_t errlen);

/* Whether name is a query parameter the profile paths take: 0, or -EINVAL
 * with err one line naming it and those they take. */
int profile_query_check_name(const char *name, char *err, size_t errlen);

/* type= (NULL when absent) on a path whose profiles are of path_kind: q's
 * kind. 0, or -EINVAL with err one line. */
int profile_query_parse_kind(struct profile_query *q, enum profile_kind path_kind, const char *type,
			     char *err, size_t errlen);

/* Makes the gzipped profile of q's window, which has passed, into out;
 * cancel turns true when the server stops. 0; -EAGAIN (not ready yet) or
 * -ECANCELED: 503; -ENODATA: 400; another -errno: 500; err one line. */
typedef int (*profile_make_fn)(void *ctx, const struct profile_query *q, const atomic_bool *cancel,
			       struct byte_buffer *out, char *err, size_t errlen);

/* Whether profiles can be made (false: why, one line); never blocks. */
typedef bool (*profile_health_fn)(void *ctx, char *why, size_t len);

struct profile_service {
	profile_make_fn make;
	void *ctx;
	profile_health_fn healthy; /* or NULL: always */
	bool offcpu;               /* it makes PROFILE_OFFCPU profiles too */
};

struct profile_requests;

/* For a server started with MHD_ALLOW_SUSPEND_RESUME. NULL: out of memory. */
struct profile_requests *profile_requests_create(const struct profile_service *service);
/* Answers GET PROFILE_PATH (path_kind PROFILE_CPU) or OFFCPU_PROFILE_PATH on
 * conn (authorized): at its first call checks the query, suspends conn and
 * starts its wait; at the call after the wait, queues the profile or the
 * error. */
enum MHD_Result profile_requests_answer(struct profile_requests *pr, struct MHD_Connection *conn,
					enum profile_kind path_kind, void **req_cls);
/* Whether the service can make profiles (false: why, one line). */
bool profile_requests_healthy(struct profile_requests *pr, char *why, size_t len);
/* The daemon is done with the request whose req_cls this is. */
void profile_requests_completed(struct profile_requests *pr, void *req_cls);
/* Wakes and joins every request's thread (each resumes its connection with a
 * 503) and gives those answers up to a second to be sent: before
 * MHD_stop_daemon. */
void profile_requests_stop(struct profile_requests *pr);
void profile_requests_free(struct profile_requests *pr);

#endif
