/* SPDX-License-Identifier: GPL-2.0-only */
/* profile_requests.c: GET /debug/pprof/profile on the metrics server, as Go's
 * net/http/pprof serves it: the query checked, a bounded number of requests
 * waiting out their seconds on threads of their own while the server answers
 * others, and each answered with the profile the owner's callback makes of
 * its window. */
#include "export/profile_requests.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "export/profile_request_log.h"
#include "lib/log.h"
#include "lib/monotonic.h"
#include "sys/container_labels.h"

/* The highest pid Linux gives (PID_MAX_LIMIT on 64-bit). */
#define PID_MAX 4194304
/* How often a request waiting out its window looks whether its client left. */
#define HANGUP_CHECK_NS 200000000ULL
/* How long a stopping server gives the answers it resumed to be sent. */
#define STOP_ANSWER_MS 1000

/* A request's slot: its thread, and what it answers. */
struct profile_job {
	struct profile_requests *pr;
	struct MHD_Connection *conn;
	struct profile_query q;
	pthread_t thread;
	bool busy;          /* taken by a request not yet done with */
	bool has_thread;    /* started, not joined */
	bool thread_done;   /* its thread resumed conn and is returning */
	bool client_left;   /* its client left before the profile was made */
	bool conn_done;     /* the daemon is done with the request */
	unsigned int status;
	struct byte_buffer body;
	char err[512];
};

struct profile_requests {
	struct profile_service service;
	pthread_mutex_t lock;
	pthread_cond_t wake; /* stopping */
	atomic_bool stopping;
	struct profile_job jobs[PROFILE_MAX_CONCURRENT];
	struct profile_request_log *log; /* or NULL: no summary */
};

/* The query parameters the profile paths take: any other gets 400 naming it
 * (a filter a client believes applied, but ignored, would answer with the
 * whole node's profile). */
static const char *const known_parameters[] = {
	"seconds", "type", "pid", "comm", "cgroup", "container", "namespace", "pod",
	"container_name",
};
#define NR_KNOWN_PARAMETERS (sizeof(known_parameters) / sizeof(known_parameters[0]))

static const char *const kind_names[PROFILE_KINDS] = {
	[PROFILE_CPU] = "cpu",
	[PROFILE_OFFCPU] = "offcpu",
};

const char *profile_kind_name(enum profile_kind kind)
{
	return kind >= 0 && kind < PROFILE_KINDS ? kind_names[kind] : "?";
}

int profile_query_check_name(const char *name, char *err, size_t errlen)
{
	char list[256], shown[65];
	size_t used = 0, n = 0;

	for (size_t i = 0; i < NR_KNOWN_PARAMETERS; i++)
		if (!strcmp(name, known_parameters[i]))
			return 0;
	list[0] = '\0';
	for (size_t i = 0; i < NR_KNOWN_PARAMETERS && used < sizeof(list); i++)
		used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s=",
					 !i ? "" : i + 1 < NR_KNOWN_PARAMETERS ? ", " : " and ",
					 known_parameters[i]);
	/* the name as text a terminal may show: its first 64 bytes, those
	 * not printable ASCII as '?' */
	for (const char *c = name; *c && n < sizeof(shown) - 1; c++)
		shown[n++] = *c > ' ' && *c < 0x7f ? *c : '?';
	shown[n] = '\0';
	rt_format(err, errlen, "unknown parameter %s=: the profiles take %s", shown, list);
	return -EINVAL;
}

int profile_query_parse_kind(struct profile_query *q, enum profile_kind path_kind, const char *type,
			     char *err, size_t errlen)
{
	q->kind = path_kind;
	if (!type)
		return 0;
	for (int k = 0; k < PROFILE_KINDS; k++)
		if (!strcmp(type, kind_names[k]) &&
		    (path_kind == PROFILE_CPU || (enum profile_kind)k == path_kind)) {
			q->kind = (enum profile_kind)k;
			return 0;
		}
	if (path_kind == PROFILE_OFFCPU)
		rt_format(err, errlen, "type= on " OFFCPU_PROFILE_PATH " takes offcpu only (CPU profiles: " PROFILE_PATH ")");
	else
		rt_format(err, errlen, "type= takes cpu (the default) or offcpu");
	return -EINVAL;
}

/* A decimal number with digits only, at most max; false otherwise. */
static bool parse_decimal(const char *text, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (!text[0] || strlen(text) > 20)
		return false;
	for (const char *p = text; *p; p++) {
		if (*p < '0' || *p > '9')
			return false;
		v = v * 10 + (uint64_t)(*p - '0');
		if (v > max)
			return false;
	}
	*out = v;
	return true;
}

/* A Kubernetes name given to parameter key into out (room bytes): 0, or
 * -EINVAL with err set. */
static int parse_kube_name(const char *key, const char *value, bool dots, char *out, size_t room,
			   char *err, size_t errlen)
{
	size_t n = strlen(value);

	if (!n || n >= room ||
	    strspn(value, dots ? "abcdefghijklmnopqrstuvwxyz0123456789-." : "abcdefghijklmnopqrstuvwxyz0123456789-") != n) {
		rt_format(err, errlen, "%s= takes a Kubernetes %s name: 1 to %zu lowercase letters, digits, '-'%s",
			  key, dots ? "pod" : !strcmp(key, "namespace") ? "namespace" : "container",
			  room - 1, dots ? " or '.'" : "");
		return -EINVAL;
	}
	memcpy(out, value, n + 1);
	return 0;
}

int profile_query_parse(struct profile_query *q, const char *seconds, const char *pid,
			const char *comm, const char *cgroup, const char *container,
			const struct profile_query_names *names, char *err, size_t errlen)
{
	uint64_t v;

	memset(q, 0, sizeof(*q));
	q->seconds = PROFILE_DEFAULT_SECONDS;
	q->pid = -1;
	if (seconds) {
		if (!parse_decimal(seconds, PROFILE_MAX_SECONDS, &v) || !v) {
			rt_format(err, errlen, "seconds= takes a whole number of seconds from 1 to %d",
				  PROFILE_MAX_SECONDS);
			return -EINVAL;
		}
		q->seconds = (unsigned int)v;
	}
	if (pid) {
		if (!parse_decimal(pid, PID_MAX, &v) || !v) {
			rt_format(err, errlen, "pid= takes a process id, from 1 to %d", PID_MAX);
			return -EINVAL;
		}
		q->pid = (int64_t)v;
	}
	if (comm) {
		if (!comm[0] || strlen(comm) >= sizeof(q->comm)) {
			rt_format(err, errlen, "comm= takes a command name of 1 to %zu bytes, as the kernel keeps it",
				  sizeof(q->comm) - 1);
			return -EINVAL;
		}
		strcpy(q->comm, comm);
	}
	if (cgroup) {
		if (cgroup[0] != '/' || strlen(cgroup) >= sizeof(q->cgroup)) {
			rt_format(err, errlen, "cgroup= takes a cgroup path from the cgroup v2 root (\"/system.slice/x.service\"), under %zu bytes",
				  sizeof(q->cgroup));
			return -EINVAL;
		}
		strcpy(q->cgroup, cgroup);
	}
	if (container) {
		size_t n = strlen(container);

		if (n < CONTAINER_ID_PREFIX_MIN || n >= sizeof(q->container) ||
		    strspn(container, "0123456789abcdef") != n) {
			rt_format(err, errlen, "container= takes a container id: %d to %zu hex digits",
				  CONTAINER_ID_PREFIX_MIN, sizeof(q->container) - 1);
			return -EINVAL;
		}
		strcpy(q->container, container);
	}
	if (names && ((names->namespace_ &&
		       parse_kube_name("namespace", names->namespace_, false, q->namespace_,
				       sizeof(q->namespace_), err, errlen)) ||
		      (names->pod && parse_kube_name("pod", names->pod, true, q->pod, sizeof(q->pod),
						     err, errlen)) ||
		      (names->container_name &&
		       parse_kube_name("container_name", names->container_name, false,
				       q->container_name, sizeof(q->container_name), err, errlen))))
		return -EINVAL;
	return 0;
}

/* The status a profile_make_fn's result answers with. */
static unsigned int status_of(int r)
{
	switch (r) {
	case 0:
		return MHD_HTTP_OK;
	case -EAGAIN:
	case -ECANCELED:
		return MHD_HTTP_SERVICE_UNAVAILABLE;
	case -ENODATA:
		return MHD_HTTP_BAD_REQUEST;
	default:
		return MHD_HTTP_INTERNAL_SERVER_ERROR;
	}
}

/* Whether the client of conn has closed its end (or the connection broke):
 * no one waits for the profile any more. */
static bool client_left(struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *info =
		MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	struct pollfd p = { info ? info->connect_fd : -1, POLLRDHUP, 0 };

	return p.fd >= 0 && poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR));
}

/* A request's thread: waits until its window has passed (or the server
 * stops, or the client leaves: its slot is free again), has the profile
 * made, and resumes the connection. */
static void *job_thread(void *arg)
{
	struct profile_job *job = arg;
	struct profile_requests *pr = job->pr;
	bool left = false;
	int r = -ECANCELED;

	pthread_mutex_lock(&pr->lock);
	for (uint64_t now; !atomic_load(&pr->stopping) && (now = monotonic_ns()) < job->q.end_ns;) {
		uint64_t next = now + HANGUP_CHECK_NS < job->q.end_ns ? now + HANGUP_CHECK_NS
								      : job->q.end_ns;
		struct timespec until = { (time_t)(next / 1000000000), (long)(next % 1000000000) };

		pthread_cond_timedwait(&pr->wake, &pr->lock, &until);
		if ((left = client_left(job->conn)))
			break;
	}
	pthread_mutex_unlock(&pr->lock);
	if (atomic_load(&pr->stopping))
		rt_format(job->err, sizeof(job->err), "ringtrace export is stopping");
	else if ((job->client_left = left))
		rt_format(job->err, sizeof(job->err), "the client left");
	else
		r = pr->service.make(pr->service.ctx, &job->q, &pr->stopping, &job->body, job->err,
				     sizeof(job->err));
	job->status = status_of(r);
	if (r) {
		job->body.len = 0;
		byte_buffer_append(&job->body, job->err, strlen(job->err));
		byte_buffer_append(&job->body, "\n", 1);
	}
	/* done before the resume, after which the answer may be sent and the
	 * slot wanted at once: it is taken again only once conn_done too */
	pthread_mutex_lock(&pr->lock);
	job->thread_done = true;
	pthread_mutex_unlock(&pr->lock);
	MHD_resume_connection(job->conn);
	return NULL;
}

bool profile_requests_healthy(struct profile_requests *pr, char *why, size_t len)
{
	return !pr->service.healthy || pr->service.healthy(pr->service.ctx, why, len);
}

struct profile_requests *profile_requests_create(const struct profile_service *service)
{
	struct profile_requests *pr = calloc(1, sizeof(*pr));
	pthread_condattr_t attr;

	if (!pr)
		return NULL;
	pr->service = *service;
	pthread_mutex_init(&pr->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&pr->wake, &attr);
	pthread_condattr_destroy(&attr);
	atomic_init(&pr->stopping, false);
	for (int i = 0; i < PROFILE_MAX_CONCURRENT; i++)
		pr->jobs[i].pr = pr;
	/* without it, requests are served but not summed up in the log */
	pr->log = profile_request_log_start(PROFILE_LOG_PERIOD_S);
	if (!pr->log)
		rt_warn("ringtrace export: cannot start the profile requests' log summary: out of memory");
	return pr;
}

/* Queues body (text, or the profile when status is 200). */
static enum MHD_Result queue(struct MHD_Connection *conn, unsigned int status, const void *body,
			     size_t len)
{
	struct MHD_Response *resp =
		MHD_create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY);
	enum MHD_Result r;

	if (!resp)
		return MHD_NO;
	if (status == MHD_HTTP_OK) {
		/* as Go's net/http/pprof */
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "application/octet-stream");
		MHD_add_response_header(resp, "Content-Disposition", "attachment; filename=\"profile\"");
	} else {
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
	}
	if (status == MHD_HTTP_TOO_MANY_REQUESTS || status == MHD_HTTP_SERVICE_UNAVAILABLE)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_RETRY_AFTER, "5");
	r = MHD_queue_response(conn, status, resp);
	MHD_destroy_response(resp);
	return r;
}

static enum MHD_Result queue_text(struct MHD_Connection *conn, unsigned int status,
				  const char *line)
{
	char text[600];
	int n = snprintf(text, sizeof(text), "%s\n", line);

	return queue(conn, status, text, n < 0 ? 0 : (size_t)n < sizeof(text) ? (size_t)n : sizeof(text) - 1);
}

/* A slot for a new request, under pr->lock: a free one, or one whose
 * request is over (its thread joined here: it has returned, or is about to). */
static struct profile_job *take_slot(struct profile_requests *pr)
{
	for (int i = 0; i < PROFILE_MAX_CONCURRENT; i++) {
		struct profile_job *job = &pr->jobs[i];

		if (job->busy && !(job->thread_done && job->conn_done))
			continue;
		if (job->has_thread)
			pthread_join(job->thread, NULL);
		byte_buffer_free(&job->body);
		memset(job, 0, sizeof(*job));
		job->pr = pr;
		job->busy = true;
		return job;
	}
	return NULL;
}

/* profile_requests_answer's check of each query parameter's name: the first
 * unknown stops the walk, err saying which. */
struct name_check {
	char err[512];
	bool unknown;
};

static enum MHD_Result check_parameter(void *cls, enum MHD_ValueKind kind, const char *key,
				       const char *value)
{
	struct name_check *c = cls;

	(void)kind;
	(void)value;
	if (!profile_query_check_name(key ? key : "", c->err, sizeof(c->err)))
		return MHD_YES;
	c->unknown = true;
	return MHD_NO;
}

/* Queues a text line with status, the request counted in the log. */
static enum MHD_Result refuse(struct profile_requests *pr, struct MHD_Connection *conn,
			      enum profile_kind kind, unsigned int status, const char *line)
{
	profile_request_log_count(pr->log, kind, status);
	return queue_text(conn, status, line);
}

enum MHD_Result profile_requests_answer(struct profile_requests *pr, struct MHD_Connection *conn,
					enum profile_kind path_kind, void **req_cls)
{
	struct profile_job *job = *req_cls;
	struct name_check names = { .unknown = false };
	struct profile_query q;
	char err[512];

	if (job) { /* the wait is over: the answer */
		profile_request_log_count(pr->log, job->q.kind,
					  job->client_left ? PROFILE_LOG_CLIENT_LEFT : job->status);
		return queue(conn, job->status, job->body.data, job->body.len);
	}
	MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, check_parameter, &names);
	if (names.unknown)
		return refuse(pr, conn, path_kind, MHD_HTTP_BAD_REQUEST, names.err);
	if (profile_query_parse(&q, MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "seconds"),
				MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "pid"),
				MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "comm"),
				MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "cgroup"),
				MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "container"),
				&(struct profile_query_names){
					MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "namespace"),
					MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "pod"),
					MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND,
								    "container_name") },
				err, sizeof(err)) ||
	    profile_query_parse_kind(&q, path_kind,
				     MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "type"),
				     err, sizeof(err)))
		return refuse(pr, conn, path_kind, MHD_HTTP_BAD_REQUEST, err);
	if (q.kind == PROFILE_OFFCPU && !pr->service.offcpu)
		return refuse(pr, conn, q.kind, MHD_HTTP_NOT_FOUND,
			      "no off-CPU profiles here: ringtrace export serves them with -g --off-cpu");
	q.start_ns = monotonic_ns();
	q.end_ns = q.start_ns + (uint64_t)q.seconds * 1000000000;
	pthread_mutex_lock(&pr->lock);
	if (atomic_load(&pr->stopping)) {
		pthread_mutex_unlock(&pr->lock);
		return refuse(pr, conn, q.kind, MHD_HTTP_SERVICE_UNAVAILABLE, "ringtrace export is stopping");
	}
	job = take_slot(pr);
	if (!job) {
		pthread_mutex_unlock(&pr->lock);
		snprintf(err, sizeof(err), "%d profiles are being made: try again when one is done",
			 PROFILE_MAX_CONCURRENT);
		return refuse(pr, conn, q.kind, MHD_HTTP_TOO_MANY_REQUESTS, err);
	}
	job->conn = conn;
	job->q = q;
	/* suspended before the thread can resume it */
	MHD_suspend_connection(conn);
	if (pthread_create(&job->thread, NULL, job_thread, job)) {
		job->busy = false;
		pthread_mutex_unlock(&pr->lock);
		MHD_resume_connection(conn);
		return refuse(pr, conn, q.kind, MHD_HTTP_SERVICE_UNAVAILABLE,
			      "cannot start a thread for the profile");
	}
	pthread_setname_np(job->thread, "rt-profile");
	job->has_thread = true;
	*req_cls = job;
	pthread_mutex_unlock(&pr->lock);
	return MHD_YES;
}

void profile_requests_completed(struct profile_requests *pr, void *req_cls)
{
	struct profile_job *job = req_cls;

	if (!pr || !job || job < pr->jobs || job >= pr->jobs + PROFILE_MAX_CONCURRENT)
		return;
	pthread_mutex_lock(&pr->lock);
	job->conn_done = true;
	pthread_mutex_unlock(&pr->lock);
}

void profile_requests_stop(struct profile_requests *pr)
{
	if (!pr)
		return;
	pthread_mutex_lock(&pr->lock);
	atomic_store(&pr->stopping, true);
	pthread_cond_broadcast(&pr->wake);
	pthread_mutex_unlock(&pr->lock);
	/* no thread starts once stopping is seen under the lock; each is
	 * joined once, here or by take_slot */
	for (int i = 0; i < PROFILE_MAX_CONCURRENT; i++) {
		struct profile_job *job = &pr->jobs[i];
		pthread_t thread;
		bool join;

		pthread_mutex_lock(&pr->lock);
		join = job->has_thread;
		thread = job->thread;
		job->has_thread = false;
		pthread_mutex_unlock(&pr->lock);
		if (join)
			pthread_join(thread, NULL);
	}
	/* the answers resumed (503) sent before the daemon stops, for a while */
	for (int waited = 0; waited < STOP_ANSWER_MS; waited += 10) {
		bool pending = false;

		pthread_mutex_lock(&pr->lock);
		for (int i = 0; i < PROFILE_MAX_CONCURRENT; i++)
			pending |= pr->jobs[i].busy && !pr->jobs[i].conn_done;
		pthread_mutex_unlock(&pr->lock);
		if (!pending)
			break;
		usleep(10000);
	}
}

void profile_requests_free(struct profile_requests *pr)
{
	if (!pr)
		return;
	profile_requests_stop(pr);
	profile_request_log_stop(pr->log);
	for (int i = 0; i < PROFILE_MAX_CONCURRENT; i++)
		byte_buffer_free(&pr->jobs[i].body);
	pthread_cond_destroy(&pr->wake);
	pthread_mutex_destroy(&pr->lock);
	free(pr);
}
