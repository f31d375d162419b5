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
 * The messages are protobuf-c's, as pprof's are.
 *
 * libcurl is loaded when a runtime's socket is first there to ask (dlopen, as
 * debuginfod.c loads its client): linked in, it and its two dozen libraries
 * (OpenSSL, Kerberos, LDAP, ssh2, ...) sat in every ringtrace process, 5 MiB
 * of the exporter's RSS and 3 MiB of its sampling child's, on nodes that
 * have no runtime to ask. */
#include "sys/runtime_client.h"

#include <curl/curl.h>
#include <errno.h>
#include <libgen.h>
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/byte_buffer.h"
#include "lib/log.h"

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

/* libcurl's functions used here (libcurl.so.4, the OpenSSL flavour the build
 * is made against, or the GnuTLS one: one ABI, soname 4 since 2006). */
static struct {
	pthread_once_t once;
	bool loaded;
	__typeof__(curl_global_init) *global_init;
	__typeof__(curl_easy_init) *easy_init;
	__typeof__(curl_easy_setopt) *easy_setopt;
	__typeof__(curl_easy_perform) *easy_perform;
	__typeof__(curl_easy_getinfo) *easy_getinfo;
	__typeof__(curl_easy_cleanup) *easy_cleanup;
	__typeof__(curl_slist_append) *slist_append;
	__typeof__(curl_slist_free_all) *slist_free_all;
} curl = { .once = PTHREAD_ONCE_INIT };

static void load_curl(void)
{
	static const char *const sonames[] = { "libcurl.so.4", "libcurl-gnutls.so.4" };
	void *lib = NULL;

	for (size_t i = 0; !lib && i < sizeof(sonames) / sizeof(sonames[0]); i++)
		lib = dlopen(sonames[i], RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		rt_warn("cannot ask the container runtime for names: %s (install libcurl4)",
			dlerror());
		return;
	}
#define CURL_FUNCTION(field, name) (curl.field = (__typeof__(curl.field))dlsym(lib, name))
	if (!CURL_FUNCTION(global_init, "curl_global_init") ||
	    !CURL_FUNCTION(easy_init, "curl_easy_init") ||
	    !CURL_FUNCTION(easy_setopt, "curl_easy_setopt") ||
	    !CURL_FUNCTION(easy_perform, "curl_easy_perform") ||
	    !CURL_FUNCTION(easy_getinfo, "curl_easy_getinfo") ||
	    !CURL_FUNCTION(easy_cleanup, "curl_easy_cleanup") ||
	    !CURL_FUNCTION(slist_append, "curl_slist_append") ||
	    !CURL_FUNCTION(slist_free_all, "curl_slist_free_all")) {
		rt_warn("cannot ask the container runtime for names: libcurl lacks %s", dlerror());
		return;
	}
#undef CURL_FUNCTION
	/* never closed: the library stays for the rest of the run */
	curl.loaded = !curl.global_init(CURL_GLOBAL_NOTHING);
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
static int result_of(enum runtime_kind k, CURL *c, CURLcode rc, struct answer *a,
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
	curl.easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
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
	CURL *c;
	CURLcode rc;
	int r;

	memset(out, 0, sizeof(*out));
	if (strlen(id) != 64 || strspn(id, "0123456789abcdef") != 64)
		return -EINVAL;
	if ((r = runtime_socket_check(socket)))
		return r == -ENOENT ? -ECONNREFUSED : r;
	pthread_once(&curl.once, load_curl);
	if (!curl.loaded)
		return -ENOSYS;
	if (!(c = curl.easy_init()))
		return -ENOMEM;
	request_of(k, id, url, sizeof(url));
	curl.easy_setopt(c, CURLOPT_URL, url);
	curl.easy_setopt(c, CURLOPT_UNIX_SOCKET_PATH, socket);
	curl.easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http");
	curl.easy_setopt(c, CURLOPT_PROXY, ""); /* never http_proxy's */
	curl.easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl.easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms > 0 ? timeout_ms : 1L);
	curl.easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl.easy_setopt(c, CURLOPT_WRITEDATA, &a);
	curl.easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
	curl.easy_setopt(c, CURLOPT_HEADERDATA, &a);
	if (k == RUNTIME_CONTAINERD) {
		int n = containerd_get_request(id, request + GRPC_PREFIX, sizeof(request) - GRPC_PREFIX);

		if (n < 0) {
			curl.easy_cleanup(c);
			return n;
		}
		request[0] = 0;
		request[1] = 0, request[2] = 0, request[3] = (uint8_t)(n >> 8), request[4] = (uint8_t)n;
		curl.easy_setopt(c, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE);
		curl.easy_setopt(c, CURLOPT_POSTFIELDS, request);
		curl.easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)(GRPC_PREFIX + n));
		headers = curl.slist_append(headers, "Content-Type: application/grpc");
		headers = curl.slist_append(headers, "TE: trailers");
		headers = curl.slist_append(headers, "containerd-namespace: " CONTAINERD_K8S_NAMESPACE);
		if (!headers) {
			curl.easy_cleanup(c);
			return -ENOMEM;
		}
		curl.easy_setopt(c, CURLOPT_HTTPHEADER, headers);
	}
	rc = curl.easy_perform(c);
	r = result_of(k, c, rc, &a, out);
	curl.slist_free_all(headers);
	curl.easy_cleanup(c);
	byte_buffer_free(&a.body);
	return r;
}
