/* SPDX-License-Identifier: GPL-2.0-only */
/* runtime_labels.c: a container's Kubernetes names read from the labels
 * kubelet sets on every container, as its runtime answers them: Docker
 * Engine's and CRI-O's JSON (json-c), containerd's GetContainerResponse
 * (protobuf-c, from containerd_containers.proto). Each value is kept only if
 * it is what Kubernetes could name a thing: the runtime stores whatever a
 * container's creator gave. */
#include "sys/runtime_labels.h"

#include <errno.h>
#include <json-c/json.h>
#include <string.h>

#include "sys/containerd_containers.pb-c.h"

/* json-c's nesting limit for a runtime's answer (Docker's is ~6 deep). */
#define JSON_MAX_DEPTH 32

bool kube_names_any(const struct kube_names *n)
{
	return n->namespace_[0] || n->pod[0] || n->container[0] || n->pod_uid[0];
}

/* A DNS label or subdomain as Kubernetes checks its names: lowercase
 * letters, digits, '-' and (a subdomain) '.', at most max bytes. */
static bool dns_name(const char *v, size_t max, bool dots)
{
	size_t n = strlen(v);

	if (!n || n > max)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((v[i] >= 'a' && v[i] <= 'z') || (v[i] >= '0' && v[i] <= '9') || v[i] == '-' ||
		      (dots && v[i] == '.')))
			return false;
	return true;
}

static bool uid(const char *v)
{
	if (strlen(v) != 36)
		return false;
	for (size_t i = 0; i < 36; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;

		if (dash ? v[i] != '-' : !((v[i] >= '0' && v[i] <= '9') || (v[i] >= 'a' && v[i] <= 'f')))
			return false;
	}
	return true;
}

void kube_names_set(struct kube_names *n, const char *key, const char *value)
{
	if (!key || !value)
		return;
	if (!strcmp(key, KUBE_LABEL_POD_NAMESPACE) && dns_name(value, sizeof(n->namespace_) - 1, false))
		strcpy(n->namespace_, value);
	else if (!strcmp(key, KUBE_LABEL_POD_NAME) && dns_name(value, sizeof(n->pod) - 1, true))
		strcpy(n->pod, value);
	else if (!strcmp(key, KUBE_LABEL_CONTAINER_NAME) &&
		 dns_name(value, sizeof(n->container) - 1, false))
		strcpy(n->container, value);
	else if (!strcmp(key, KUBE_LABEL_POD_UID) && uid(value))
		strcpy(n->pod_uid, value);
}

/* The string labels of an object of labels (absent or null: none). */
static int names_of_labels(json_object *labels, struct kube_names *out)
{
	if (!labels || json_object_is_type(labels, json_type_null))
		return 0;
	if (!json_object_is_type(labels, json_type_object))
		return -EINVAL;
	json_object_object_foreach(labels, key, value)
		if (json_object_is_type(value, json_type_string))
			kube_names_set(out, key, json_object_get_string(value));
	return 0;
}

/* json (len bytes) parsed whole within JSON_MAX_DEPTH; NULL if it is not. */
static json_object *parse(const char *json, size_t len)
{
	struct json_tokener *tok = json_tokener_new_ex(JSON_MAX_DEPTH);
	json_object *root;

	if (!tok || len > INT32_MAX) {
		json_tokener_free(tok);
		return NULL;
	}
	root = json_tokener_parse_ex(tok, json, (int)len);
	if (root && (json_tokener_get_error(tok) != json_tokener_success ||
		     !json_object_is_type(root, json_type_object))) {
		json_object_put(root);
		root = NULL;
	}
	json_tokener_free(tok);
	return root;
}

int kube_names_from_docker(const char *json, size_t len, struct kube_names *out)
{
	json_object *root = parse(json, len), *config = NULL, *labels = NULL;
	int r = -EINVAL;

	memset(out, 0, sizeof(*out));
	if (!root)
		return -EINVAL;
	if (json_object_object_get_ex(root, "Config", &config) &&
	    json_object_is_type(config, json_type_object)) {
		json_object_object_get_ex(config, "Labels", &labels);
		r = names_of_labels(labels, out);
	}
	json_object_put(root);
	return r;
}

int kube_names_from_crio(const char *json, size_t len, struct kube_names *out)
{
	json_object *root = parse(json, len), *labels = NULL;
	int r;

	memset(out, 0, sizeof(*out));
	if (!root)
		return -EINVAL;
	json_object_object_get_ex(root, "labels", &labels);
	r = names_of_labels(labels, out);
	json_object_put(root);
	return r;
}

int kube_names_from_containerd(const uint8_t *pb, size_t len, struct kube_names *out)
{
	Containerd__Services__Containers__V1__GetContainerResponse *resp =
		containerd__services__containers__v1__get_container_response__unpack(NULL, len, pb);
	const Containerd__Services__Containers__V1__Container *c;

	memset(out, 0, sizeof(*out));
	if (!resp)
		return -EINVAL;
	c = resp->container;
	for (size_t i = 0; c && i < c->n_labels; i++)
		kube_names_set(out, c->labels[i]->key, c->labels[i]->value);
	containerd__services__containers__v1__get_container_response__free_unpacked(resp, NULL);
	return 0;
}

int containerd_get_request(const char *id, uint8_t *out, size_t room)
{
	Containerd__Services__Containers__V1__GetContainerRequest req =
		CONTAINERD__SERVICES__CONTAINERS__V1__GET_CONTAINER_REQUEST__INIT;
	size_t n;

	req.id = (char *)id;
	n = containerd__services__containers__v1__get_container_request__get_packed_size(&req);
	if (n > room)
		return -E2BIG;
	return (int)containerd__services__containers__v1__get_container_request__pack(&req, out);
}
