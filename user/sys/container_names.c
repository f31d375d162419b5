/* SPDX-License-Identifier: GPL-2.0-only */
/* container_names.c: the Kubernetes names of the container a cgroup path
 * names, asked of its runtime by container id (runtime_client.c) and kept in
 * a cache bounded in entries, with a time to live, negative entries for
 * containers no runtime has and short ones for failures; each question
 * within CONTAINER_NAMES_TIMEOUT_MS and what is left of the caller's budget,
 * asked without the lock held; every answer counted by runtime. */
#include "sys/container_names.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hash_map.h"
#include "lib/monotonic.h"
#include "sys/container_labels.h"

#define NS_PER_S 1000000000ULL

struct names_entry {
	char id[65]; /* the key */
	struct kube_names names;
	bool named;
	uint64_t stored_ns, expires_ns;
};

struct container_names {
	pthread_mutex_t lock;
	char *path[RUNTIME_KINDS];
	struct hash_map entries; /* id -> struct names_entry */
	struct container_names_counts counts;
};

struct container_names *container_names_create(const struct container_runtime_sockets *sockets)
{
	struct container_names *cn = calloc(1, sizeof(*cn));

	if (!cn) {
		free(cn);
		return NULL;
	}
	pthread_mutex_init(&cn->lock, NULL);
	hash_map_init(&cn->entries, hash_string, equal_string);
	for (int k = 0; k < RUNTIME_KINDS; k++)
		if (sockets->path[k] && !(cn->path[k] = strdup(sockets->path[k]))) {
			container_names_free(cn);
			return NULL;
		}
	return cn;
}

void container_names_free(struct container_names *cn)
{
	if (!cn)
		return;
	hash_map_free_all(&cn->entries);
	for (int k = 0; k < RUNTIME_KINDS; k++)
		free(cn->path[k]);
	pthread_mutex_destroy(&cn->lock);
	free(cn);
}

void container_names_counts(struct container_names *cn, struct container_names_counts *out)
{
	memset(out, 0, sizeof(*out));
	if (!cn)
		return;
	pthread_mutex_lock(&cn->lock);
	*out = cn->counts;
	out->entries = cn->entries.len;
	pthread_mutex_unlock(&cn->lock);
}

/* Under the lock: room for one entry more, the oldest dropped if need be. */
static void make_room(struct container_names *cn)
{
	struct names_entry *oldest = NULL;

	if (cn->entries.len < CONTAINER_NAMES_MAX_ENTRIES)
		return;
	for (size_t i = 0; i < cn->entries.cap; i++) {
		struct names_entry *e = cn->entries.slots[i].value;

		if (cn->entries.slots[i].key && (!oldest || e->stored_ns < oldest->stored_ns))
			oldest = e;
	}
	if (oldest) {
		free(hash_map_remove(&cn->entries, oldest->id));
		cn->counts.evictions++;
	}
}

/* Under the lock: the answer for id kept until ttl_s from now. */
static void store(struct container_names *cn, const char *id, const struct kube_names *names,
		  bool named, unsigned int ttl_s)
{
	struct names_entry *e = hash_map_get(&cn->entries, id);
	uint64_t now = monotonic_ns();

	if (!e) {
		make_room(cn);
		if (!(e = calloc(1, sizeof(*e))))
			return;
		strcpy(e->id, id);
		if (hash_map_put(&cn->entries, e->id, e)) {
			free(e);
			return;
		}
	}
	e->names = *names;
	e->named = named;
	e->stored_ns = now;
	e->expires_ns = now + ttl_s * NS_PER_S;
}

/* The runtimes that may hold the container of c, in the order asked. */
static int runtimes_of(const struct container_labels *c, enum runtime_kind kinds[RUNTIME_KINDS])
{
	if (!c->runtime) { /* a cgroupfs path names none: each is asked */
		for (int k = 0; k < RUNTIME_KINDS; k++)
			kinds[k] = (enum runtime_kind)k;
		return RUNTIME_KINDS;
	}
	if (!strcmp(c->runtime, "containerd"))
		kinds[0] = RUNTIME_CONTAINERD;
	else if (!strcmp(c->runtime, "cri-o"))
		kinds[0] = RUNTIME_CRIO;
	else if (!strcmp(c->runtime, "docker"))
		kinds[0] = RUNTIME_DOCKER;
	else
		return 0; /* podman: no kubelet's labels to read */
	return 1;
}

/* Asks the runtimes of c for id until one names it or the budget is spent
 * (the time taken from it); the outcome stored. true if named. */
static bool ask(struct container_names *cn, const struct container_labels *c, const char *id,
		uint64_t *budget_ns, struct kube_names *out)
{
	enum runtime_kind kinds[RUNTIME_KINDS];
	int n = runtimes_of(c, kinds);
	bool failed = false, named = false, complete = true;

	for (int i = 0; i < n && !named; i++) {
		enum runtime_kind k = kinds[i];
		uint64_t start, took;
		long timeout_ms;
		int r;

		if (!cn->path[k] || runtime_socket_check(cn->path[k]) == -ENOENT)
			continue; /* no such runtime on this node */
		timeout_ms = (long)(*budget_ns / 1000000);
		if (timeout_ms <= 0) {
			complete = false;
			break;
		}
		if (timeout_ms > CONTAINER_NAMES_TIMEOUT_MS)
			timeout_ms = CONTAINER_NAMES_TIMEOUT_MS;
		start = monotonic_ns();
		r = runtime_ask(k, cn->path[k], id, timeout_ms, out);
		took = monotonic_ns() - start;
		*budget_ns -= took < *budget_ns ? took : *budget_ns;
		pthread_mutex_lock(&cn->lock);
		cn->counts.asked[k]++;
		if (!r)
			cn->counts.found[k]++;
		else if (r == -ENOENT)
			cn->counts.not_found[k]++;
		else
			cn->counts.failed[k]++;
		pthread_mutex_unlock(&cn->lock);
		named = !r && kube_names_any(out);
		failed |= r && r != -ENOENT;
	}
	if (!named)
		memset(out, 0, sizeof(*out));
	else if (!out->pod_uid[0] && c->pod_uid[0])
		strcpy(out->pod_uid, c->pod_uid);
	pthread_mutex_lock(&cn->lock);
	if (!complete)
		cn->counts.skipped++;
	if (named || complete)
		store(cn, id, out, named,
		      named ? CONTAINER_NAMES_TTL_S
			    : failed ? CONTAINER_NAMES_FAILURE_TTL_S : CONTAINER_NAMES_NEGATIVE_TTL_S);
	pthread_mutex_unlock(&cn->lock);
	return named;
}

bool container_names_of_cgroup(struct container_names *cn, const char *cgroup,
			       uint64_t *budget_ns, struct kube_names *out)
{
	struct container_labels c;
	struct names_entry *e;

	memset(out, 0, sizeof(*out));
	if (!cn || !cgroup || !container_labels_of(cgroup, &c) || strlen(c.container_id) != 64)
		return false;
	pthread_mutex_lock(&cn->lock);
	e = hash_map_get(&cn->entries, c.container_id);
	if (e && e->expires_ns > monotonic_ns()) {
		bool named = e->named;

		cn->counts.hits++;
		*out = e->names;
		pthread_mutex_unlock(&cn->lock);
		return named;
	}
	cn->counts.misses++;
	pthread_mutex_unlock(&cn->lock);
	return ask(cn, &c, c.container_id, budget_ns, out);
}
