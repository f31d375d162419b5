/* SPDX-License-Identifier: GPL-2.0-only */
/* runtime_client.c: one container's labels asked of its runtime on the
 * runtime's own unix socket, within a timeout, through libcurl
 * (CURLOPT_UNIX_SOCKET_PATH): Docker Engine's GET /containers/ID/json and
 * CRI-O's GET /containers/ID over HTTP/1.1, and containerd's
 * containerd.services.containers.v1.Containers/Get over gRPC.
 *
 * Why gRPC through libcurl: a unary gRPC call is an HTTP/2 POST of one
 * length-prefixed protobuf message, answered by one such message and a
 * grpc-status trailer. Debian's libcurl speaks HTTP/2 with prior knowledge
 * over a unix socket (through nghttp2), so one HTTP client serves all three
 * runtimes, with one timeout and one size bound; gRPC's C core would bring a
 * second HTTP/2 stack, its completion queues and its own threads for one call,
 * and nghttp2 alone would have this file drive the HTTP/2 session by hand.
 * The messages are protobuf-c's, as pprof's are. */
#include "sys/runtime_client.h"

#include <curl/curl.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/byte_buffer.h"

/* gRPC's message prefix: a compressed flag and a big-endian length. */
#define GRPC_PREFIX 5
/* grpc-status NOT_FOUND */
#define GRPC_NOT_FOUND 5

const char *runtime_kind_name(enum runtime_kind k)
{
	static const char *const names[RUNTIME_KINDS] = { "containerd", "cri-o", "docker" };

	return k < RUNTIME_KINDS ? names[k] : "unknown";
}

int runtime_socket_check(const char *path)
{
	char copy[PATH_MAX];
	struct stat st, dir;

	if (strlen(path) >= sizeof(copy))
		return -EPERM;
	if (lstat(path, &st))
		return errno == ENOENT ? -ENOENT : -EPERM;
	strcpy(copy, path);
	/* a directory another user could write to would let them put their
	 * own socket there between this check and the connect */
	if (!S_ISSOCK(st.st_mode) || st.st_uid != 0 || stat(dirname(copy), &dir) ||
	    dir.st_uid != 0 || (dir.st_mode & (S_IWGRP | S_IWOTH)))
		return -EPERM;
	return 0;
}

int runtime_client_init(void)
{
	return curl_global_init(CURL_GLOBAL_NOTHING) ? -ENOMEM : 0;
}

/* An answer's body, bounded; and what its headers (and trailers) said of gRPC. */
struct answer {
	struct byte_buffer body;
	bool too_big;
	int grpc_status; /* -1: not said */
};

static size_t on_body(char *data, size_t size, size_t n, void *ctx)
{
	struct answer *a = ctx;
	size_t len = size * n;

	if (a->body.len + len > RUNTIME_ANSWER_MAX) {
		a->too_big = true;
		return 0; /* curl stops: CURLE_WRITE_ERROR */
	}
	return byte_buffer_append(&a->body, data, len) ? len : 0;
}

static size_t on_header(char *data, size_t size, size_t n, void *ctx)
{
	struct answer *a = ctx;
	size_t len = size * n;
	static const char key[] = "grpc-status:";

	if (len > strlen(key) && !strncasecmp(data, key, strlen(key)))
		a->grpc_status = atoi(data + strlen(key));
	return len;
}

/* Where and how to ask k for id. */
static void request_of(enum runtime_kind k, const char *id, char *url, size_t len)
{
	if (k == RUNTIME_DOCKER)
		snprintf(url, len, "http://localhost/containers/%s/json", id);
	else if (k == RUNTIME_CRIO)
		snprintf(url, len, "http://localhost/containers/%s", id);
	else
		snprintf(url, len, "http://localhost/containerd.services.containers.v1.Containers/Get");
}

/* What the finished transfer says: 0 with out set, or -errno. */
static int result_of(enum runtime_kind k, CURL *curl, CURLcode rc, struct answer *a,
		     struct kube_names *out)
{
	long status = 0;
	const uint8_t *b = a->body.data;
	const char *text = a->body.data ? (const char *)a->body.data : "";
	uint32_t msg_len;

	if (a->too_big)
		return -E2BIG;
	if (rc == CURLE_OPERATION_TIMEDOUT)
		return -ETIMEDOUT;
	if (rc == CURLE_OUT_OF_MEMORY)
		return -ENOMEM;
	if (rc != CURLE_OK)
		return rc == CURLE_COULDNT_CONNECT ? -ECONNREFUSED : -EIO;
	curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
	if (k != RUNTIME_CONTAINERD) {
		if (status == 404)
			return -ENOENT;
		if (status != 200)
			return -EPROTO;
		return (k == RUNTIME_DOCKER ? kube_names_from_docker : kube_names_from_crio)(
			       text, a->body.len, out) ? -EPROTO : 0;
	}
	if (a->grpc_status == GRPC_NOT_FOUND)
		return -ENOENT;
	if (status != 200 || a->grpc_status != 0 || a->body.len < GRPC_PREFIX || b[0])
		return -EPROTO;
	msg_len = (uint32_t)b[1] << 24 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 8 | b[4];
	if (msg_len > a->body.len - GRPC_PREFIX)
		return -EPROTO;
	return kube_names_from_containerd(b + GRPC_PREFIX, msg_len, out) ? -EPROTO : 0;
}

int runtime_ask(enum runtime_kind k, const char *socket, const char *id, long timeout_ms,
		struct kube_names *out)
{
	struct answer a = { .grpc_status = -1 };
	struct curl_slist *headers = NULL;
	uint8_t request[GRPC_PREFIX + 128];
	char url[160];
	CURL *curl;
	CURLcode rc;
	int r;

	memset(out, 0, sizeof(*out));
	if (strlen(id) != 64 || strspn(id, "0123456789abcdef") != 64)
		return -EINVAL;
	if ((r = runtime_socket_check(socket)))
		return r == -ENOENT ? -ECONNREFUSED : r;
	if (!(curl = curl_easy_init()))
		return -ENOMEM;
	request_of(k, id, url, sizeof(url));
	curl_easy_setopt(curl, CURLOPT_URL, url);
	curl_easy_setopt(curl, CURLOPT_UNIX_SOCKET_PATH, socket);
	curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http");
	curl_easy_setopt(curl, CURLOPT_PROXY, ""); /* never http_proxy's */
	curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, timeout_ms > 0 ? timeout_ms : 1L);
	curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(curl, CURLOPT_WRITEDATA, &a);
	curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(curl, CURLOPT_HEADERDATA, &a);
	if (k == RUNTIME_CONTAINERD) {
		int n = containerd_get_request(id, request + GRPC_PREFIX, sizeof(request) - GRPC_PREFIX);

		if (n < 0) {
			curl_easy_cleanup(curl);
			return n;
		}
		request[0] = 0;
		request[1] = 0, request[2] = 0, request[3] = (uint8_t)(n >> 8), request[4] = (uint8_t)n;
		curl_easy_setopt(curl, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE);
		curl_easy_setopt(curl, CURLOPT_POSTFIELDS, request);
		curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, (long)(GRPC_PREFIX + n));
		headers = curl_slist_append(headers, "Content-Type: application/grpc");
		headers = curl_slist_append(headers, "TE: trailers");
		headers = curl_slist_append(headers, "containerd-namespace: " CONTAINERD_K8S_NAMESPACE);
		if (!headers) {
			curl_easy_cleanup(curl);
			return -ENOMEM;
		}
		curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
	}
	rc = curl_easy_perform(curl);
	r = result_of(k, curl, rc, &a, out);
	curl_slist_free_all(headers);
	curl_easy_cleanup(curl);
	byte_buffer_free(&a.body);
	return r;
}
