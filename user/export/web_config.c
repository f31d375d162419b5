/* SPDX-License-Identifier: GPL-2.0-only */
/* web_config.c: TLS and basic auth for the metrics server, configured as the
 * Prometheus exporters' --web.config.file: the YAML parsed with libyaml, the
 * certificate checked with GnuTLS, passwords with libxcrypt's bcrypt. */
#include "export/web_config.h"

#include <crypt.h>
#include <errno.h>
#include <fcntl.h>
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#include "lib/log.h"

#define MAX_PEM_BYTES (1 << 20)
#define SUPPORTED "ringtrace supports tls_server_config (cert_file, key_file) and basic_auth_users"

/* What loading needs beside the result. */
struct loader {
	const char *path;
	yaml_document_t doc;
	char *cert_file, *key_file;
	char *err;
	size_t errlen;
};

static int fail_at(struct loader *l, const yaml_node_t *node, const char *fmt, const char *what)
{
	char msg[256];

	snprintf(msg, sizeof(msg), fmt, what);
	rt_format(l->err, l->errlen, "--web-config-file %s: line %zu: %s", l->path,
		  node ? node->start_mark.line + 1 : 0, msg);
	return -EINVAL;
}

static const char *scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* A plain empty, "~" or "null" scalar: YAML's null. */
static bool is_null(const yaml_node_t *n)
{
	const char *s = scalar(n);

	return s && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	       (!*s || !strcmp(s, "~") || !strcmp(s, "null"));
}

/* A non-empty string value, copied into *out. */
static int string_value(struct loader *l, const yaml_node_t *key, const yaml_node_t *v, char **out)
{
	const char *s = scalar(v), *name = scalar(key) ? scalar(key) : "a key";

	if (!s || is_null(v))
		return fail_at(l, v ? v : key, "%s needs a value (a path)", name);
	if (*out)
		return fail_at(l, key, "%s is given twice", name);
	*out = strdup(s);
	return *out ? 0 : (fail_at(l, v, "%s", "out of memory"), -ENOMEM);
}

static int parse_tls(struct loader *l, const yaml_node_t *tls)
{
	if (is_null(tls))
		return 0;
	if (tls->type != YAML_MAPPING_NODE)
		return fail_at(l, tls, "%s must be a mapping (cert_file, key_file)", "tls_server_config");
	for (yaml_node_pair_t *p = tls->data.mapping.pairs.start; p < tls->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(&l->doc, p->key);
		yaml_node_t *v = yaml_document_get_node(&l->doc, p->value);
		const char *name = scalar(k);
		int r;

		if (name && !strcmp(name, "cert_file")) {
			if ((r = string_value(l, k, v, &l->cert_file)))
				return r;
		} else if (name && !strcmp(name, "key_file")) {
			if ((r = string_value(l, k, v, &l->key_file)))
				return r;
		} else {
			return fail_at(l, k, "tls_server_config: %s is not supported: give cert_file and key_file only",
				       name ? name : "a non-string key");
		}
	}
	if (!l->cert_file || !l->key_file)
		return fail_at(l, tls, "tls_server_config needs %s", "both cert_file and key_file");
	return 0;
}

static bool is_bcrypt(const char *hash)
{
	const char *out;

	if (strncmp(hash, "$2a$", 4) && strncmp(hash, "$2b$", 4) && strncmp(hash, "$2y$", 4))
		return false;
	/* crypt itself tells a well-formed hash: an empty password hashed with
	 * it as the setting gives a result, a malformed one "*0" or "*1" */
	out = crypt("", hash);
	return out && out[0] != '*';
}

static int parse_users(struct loader *l, struct web_config *c, const yaml_node_t *users)
{
	size_t max;

	if (is_null(users))
		return 0;
	if (users->type != YAML_MAPPING_NODE)
		return fail_at(l, users, "%s must be a mapping of user names to bcrypt hashes",
			       "basic_auth_users");
	max = (size_t)(users->data.mapping.pairs.top - users->data.mapping.pairs.start);
	c->users = calloc(max ? max : 1, sizeof(*c->users));
	if (!c->users) {
		fail_at(l, users, "%s", "out of memory");
		return -ENOMEM;
	}
	for (yaml_node_pair_t *p = users->data.mapping.pairs.start; p < users->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = yaml_document_get_node(&l->doc, p->key);
		yaml_node_t *v = yaml_document_get_node(&l->doc, p->value);
		const char *name = scalar(k), *hash = scalar(v);
		struct web_user *u = &c->users[c->nr_users];

		if (!name || !*name || strchr(name, ':'))
			return fail_at(l, k, "%s: a user name is a non-empty string without ':'",
				       "basic_auth_users");
		for (size_t i = 0; i < c->nr_users; i++)
			if (!strcmp(c->users[i].name, name))
				return fail_at(l, k, "user %s is given twice", name);
		if (!hash || !is_bcrypt(hash))
			return fail_at(l, v ? v : k,
				       "the password of %s is not a bcrypt hash ($2y$...): make one with htpasswd -nBC 10 USER",
				       name);
		u->name = strdup(name);
		u->hash = strdup(hash);
		c->nr_users++;
		if (!u->name || !u->hash) {
			fail_at(l, k, "%s", "out of memory");
			return -ENOMEM;
		}
	}
	return 0;
}

static int parse(struct loader *l, struct web_config *c)
{
	yaml_node_t *root = yaml_document_get_root_node(&l->doc);

	if (!root || is_null(root))
		return 0; /* an empty file: plain HTTP, no authentication */
	if (root->type != YAML_MAPPING_NODE)
		return fail_at(l, root, "the file must be a mapping: %s", SUPPORTED);
	for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = yaml_document_get_node(&l->doc, p->key);
		yaml_node_t *v = yaml_document_get_node(&l->doc, p->value);
		const char *name = scalar(k);
		int r;

		if (name && !strcmp(name, "tls_server_config"))
			r = parse_tls(l, v);
		else if (name && !strcmp(name, "basic_auth_users"))
			r = parse_users(l, c, v);
		else
			r = fail_at(l, k, "%s is not supported: " SUPPORTED,
				    name ? name : "a non-string key");
		if (r)
			return r;
	}
	return 0;
}

/* A file named by the config, relative to its directory unless absolute,
 * read whole (a regular file of at most MAX_PEM_BYTES). */
static char *read_named(struct loader *l, const char *name, const char *what)
{
	char path[4096];
	const char *slash = strrchr(l->path, '/');
	struct stat st;
	char *buf = NULL;
	ssize_t n = -1;
	int fd;

	if (name[0] == '/' || !slash)
		snprintf(path, sizeof(path), "%s", name);
	else
		snprintf(path, sizeof(path), "%.*s/%s", (int)(slash - l->path), l->path, name);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd >= 0 && !fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size < MAX_PEM_BYTES &&
	    (buf = malloc((size_t)st.st_size + 1)))
		n = read(fd, buf, (size_t)st.st_size);
	if (n < 0 || n != (ssize_t)st.st_size) {
		int x = fd < 0 ? errno : n < 0 ? errno : EINVAL;

		rt_format(l->err, l->errlen, "--web-config-file %s: cannot read %s %s: %s%s", l->path,
			  what, path, strerror(x),
			  x == EINVAL ? " (a regular PEM file under 1 MiB)" : "");
		free(buf);
		buf = NULL;
	} else {
		buf[n] = '\0';
	}
	if (fd >= 0)
		close(fd);
	return buf;
}

/* Whether GnuTLS takes the certificate with the key (they match, are PEM). */
static int check_pair(struct loader *l, const struct web_config *c)
{
	gnutls_certificate_credentials_t cred;
	gnutls_datum_t cert = { (unsigned char *)c->cert_pem, (unsigned int)strlen(c->cert_pem) };
	gnutls_datum_t key = { (unsigned char *)c->key_pem, (unsigned int)strlen(c->key_pem) };
	int r;

	if (gnutls_certificate_allocate_credentials(&cred) < 0) {
		rt_format(l->err, l->errlen, "out of memory");
		return -ENOMEM;
	}
	r = gnutls_certificate_set_x509_key_mem(cred, &cert, &key, GNUTLS_X509_FMT_PEM);
	gnutls_certificate_free_credentials(cred);
	if (r < 0) {
		rt_format(l->err, l->errlen,
			  "--web-config-file %s: the certificate %s and key %s: %s: give a PEM certificate and its own key",
			  l->path, l->cert_file, l->key_file, gnutls_strerror(r));
		return -EINVAL;
	}
	return 0;
}

int web_config_load(struct web_config *c, const char *path, char *err, size_t errlen)
{
	struct loader l = { .path = path, .err = err, .errlen = errlen };
	yaml_parser_t parser;
	FILE *f;
	int ret;

	memset(c, 0, sizeof(*c));
	pthread_mutex_init(&c->lock, NULL);
	f = fopen(path, "re");
	if (!f) {
		rt_format(err, errlen, "--web-config-file %s: %s", path, strerror(errno));
		return -errno;
	}
	yaml_parser_initialize(&parser);
	yaml_parser_set_input_file(&parser, f);
	if (!yaml_parser_load(&parser, &l.doc)) {
		rt_format(err, errlen, "--web-config-file %s: line %zu: %s: fix the YAML", path,
			  parser.problem_mark.line + 1, parser.problem ? parser.problem : "invalid YAML");
		yaml_parser_delete(&parser);
		fclose(f);
		return -EINVAL;
	}
	if ((ret = parse(&l, c)))
		goto out;
	if (l.cert_file) {
		c->cert_pem = read_named(&l, l.cert_file, "the certificate");
		c->key_pem = c->cert_pem ? read_named(&l, l.key_file, "the key") : NULL;
		if ((ret = !c->key_pem ? -EIO : check_pair(&l, c)))
			goto out;
	}
	if (c->nr_users) {
		char *setting = crypt_gensalt_ra("$2b$", 10, NULL, 0);
		const char *dummy = setting ? crypt("ringtrace", setting) : NULL;

		c->dummy_hash = dummy && dummy[0] != '*' ? strdup(dummy) : NULL;
		free(setting);
		if (!c->dummy_hash) {
			rt_format(err, errlen, "cannot make a bcrypt hash: %s", strerror(errno));
			ret = errno ? -errno : -ENOMEM;
			goto out;
		}
	}
	ret = 0;
out:
	yaml_document_delete(&l.doc);
	yaml_parser_delete(&parser);
	fclose(f);
	free(l.cert_file);
	free(l.key_file);
	if (ret)
		web_config_free(c);
	return ret;
}

/* Equal without leaking where they differ through time. */
static bool same(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;
	unsigned char diff = 0;

	for (size_t i = 0; i < n; i++)
		diff |= x[i] ^ y[i];
	return !diff;
}

/* Whether password hashes to hash (bcrypt, with crypt_r). */
static bool bcrypt_matches(const char *password, const char *hash)
{
	struct crypt_data *data = calloc(1, sizeof(*data));
	const char *out;
	bool ok;

	if (!data)
		return false;
	out = crypt_r(password, hash, data);
	ok = out && out[0] != '*' && strlen(out) == strlen(hash) && same(out, hash, strlen(hash));
	free(data);
	return ok;
}

bool web_config_authorized(struct web_config *c, const char *user, const char *password)
{
	unsigned char digest[WEB_CONFIG_DIGEST_SIZE];
	struct web_user *u = NULL;
	bool ok;

	if (!c->nr_users)
		return true;
	if (!user || !password ||
	    gnutls_hash_fast(GNUTLS_DIG_SHA256, password, strlen(password), digest) < 0)
		return false;
	for (size_t i = 0; i < c->nr_users; i++)
		if (!strcmp(c->users[i].name, user))
			u = &c->users[i];
	pthread_mutex_lock(&c->lock);
	ok = u && u->has_verified && same(u->verified, digest, sizeof(digest));
	pthread_mutex_unlock(&c->lock);
	if (ok)
		return true;
	/* an unknown user costs a bcrypt too: the time does not tell names */
	ok = bcrypt_matches(password, u ? u->hash : c->dummy_hash) && u;
	if (ok) {
		pthread_mutex_lock(&c->lock);
		memcpy(u->verified, digest, sizeof(digest));
		u->has_verified = true;
		pthread_mutex_unlock(&c->lock);
	}
	return ok;
}

void web_config_free(struct web_config *c)
{
	for (size_t i = 0; i < c->nr_users; i++) {
		free(c->users[i].name);
		free(c->users[i].hash);
	}
	free(c->users);
	free(c->cert_pem);
	if (c->key_pem)
		explicit_bzero(c->key_pem, strlen(c->key_pem));
	free(c->key_pem);
	free(c->dummy_hash);
	pthread_mutex_destroy(&c->lock);
	memset(c, 0, sizeof(*c));
	pthread_mutex_init(&c->lock, NULL);
}
