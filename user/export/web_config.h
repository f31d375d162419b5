/* SPDX-License-Identifier: GPL-2.0-only */
/* web_config.h: TLS and basic auth for the metrics server, configured as the
 * Prometheus exporters' --web.config.file (a YAML file, parsed with libyaml;
 * passwords checked against their bcrypt hashes with libxcrypt's crypt). */
#ifndef RINGTRACE_WEB_CONFIG_H
#define RINGTRACE_WEB_CONFIG_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#define WEB_CONFIG_DIGEST_SIZE 32 /* SHA-256 */

struct web_user {
	char *name;
	char *hash; /* bcrypt: $2a$, $2b$ or $2y$ */
	/* the SHA-256 of the last password that matched the hash: the same
	 * password again costs no bcrypt (as exporter-toolkit caches it) */
	unsigned char verified[WEB_CONFIG_DIGEST_SIZE];
	bool has_verified;
};

/* What the file says, the files it names read. The subset supported:
 *   tls_server_config: { cert_file: PATH, key_file: PATH }
 *   basic_auth_users: { USER: BCRYPT_HASH, ... }
 * Paths are relative to the file's directory; anything else is refused. */
struct web_config {
	char *cert_pem, *key_pem; /* both, or neither (plain HTTP) */
	struct web_user *users;   /* none: no authentication */
	size_t nr_users;
	char *dummy_hash;         /* checked for an unknown user, to take as long */
	pthread_mutex_t lock;     /* the users' verified digests */
};

/* Reads path (and the certificate and key it names). 0, or -errno with one line
 * in err naming the file, the line and what to change. */
int web_config_load(struct web_config *c, const char *path, char *err, size_t errlen);
/* Whether user and password match a basic_auth_users entry (true if the file
 * has none). */
bool web_config_authorized(struct web_config *c, const char *user, const char *password);
void web_config_free(struct web_config *c);

#endif
