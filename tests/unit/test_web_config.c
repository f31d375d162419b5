/* SPDX-License-Identifier: GPL-2.0-only */
/* test_web_config.c: the web config (--web-config-file) as the Prometheus
 * exporters write it: users with bcrypt hashes let in with their password
 * only, the same password again without a bcrypt, an empty file meaning no
 * TLS and no auth; whatever ringtrace does not support refused with the line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <crypt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "export/web_config.h"
#include "test_util.h"

static char *write_config(const char *dir, const char *text)
{
	static char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/web.yml", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

/* A bcrypt hash of password at a low cost (fast tests). */
static char *bcrypt(const char *password, const char *prefix)
{
	char *setting = crypt_gensalt_ra(prefix, 4, NULL, 0), *hash;

	assert_non_null(setting);
	hash = strdup(crypt(password, setting));
	free(setting);
	assert_true(hash[0] == '$');
	return hash;
}

static double seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void test_users(void **state)
{
	char *dir = tu_tempdir(), *a = bcrypt("alpha pass", "$2b$"), *b = bcrypt("beta", "$2y$"),
	     text[512], err[512];
	struct web_config c;
	double t0, first, again;

	(void)state;
	/* $2y$ as htpasswd writes it, $2b$ as crypt does */
	snprintf(text, sizeof(text), "# users\nbasic_auth_users:\n  alice: %s\n  bob: '%s'\n", a, b);
	if (web_config_load(&c, write_config(dir, text), err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(c.nr_users, 2);
	assert_null(c.cert_pem);
	t0 = seconds();
	assert_true(web_config_authorized(&c, "alice", "alpha pass"));
	first = seconds() - t0;
	t0 = seconds();
	assert_true(web_config_authorized(&c, "alice", "alpha pass"));
	again = seconds() - t0;
	print_message("bcrypt %.6f s, the same password again %.6f s\n", first, again);
	assert_true(web_config_authorized(&c, "bob", "beta"));
	assert_false(web_config_authorized(&c, "alice", "beta"));
	assert_false(web_config_authorized(&c, "alice", "alpha pas"));
	assert_false(web_config_authorized(&c, "alice", ""));
	assert_false(web_config_authorized(&c, "carol", "alpha pass"));
	assert_false(web_config_authorized(&c, NULL, NULL));
	assert_false(web_config_authorized(&c, "alice", NULL));
	/* a wrong password after the right one: still refused */
	assert_false(web_config_authorized(&c, "alice", "alpha pass "));
	web_config_free(&c);
	free(a);
	free(b);
	tu_rmtree(dir);
	free(dir);
}

static void test_empty_means_open(void **state)
{
	static const char *const open_configs[] = { "", "# nothing\n", "basic_auth_users:\n",
						    "tls_server_config: ~\n" };
	char *dir = tu_tempdir(), err[512];

	(void)state;
	for (size_t i = 0; i < sizeof(open_configs) / sizeof(open_configs[0]); i++) {
		struct web_config c;

		if (web_config_load(&c, write_config(dir, open_configs[i]), err, sizeof(err)))
			fail_msg("\"%s\": %s", open_configs[i], err);
		assert_null(c.cert_pem);
		assert_int_equal(c.nr_users, 0);
		assert_true(web_config_authorized(&c, NULL, NULL));
		web_config_free(&c);
	}
	tu_rmtree(dir);
	free(dir);
}

static void test_refused(void **state)
{
	static const struct {
		const char *text, *want;
	} bad[] = {
		{ "basic_auth_users:\n  alice: secret\n", "line 2: the password of alice is not a bcrypt hash" },
		{ "basic_auth_users:\n  alice: $1$abc$def\n", "not a bcrypt hash" },
		{ "basic_auth_users:\n  alice: $2y$10$short\n", "not a bcrypt hash" },
		{ "basic_auth_users: [alice]\n", "must be a mapping" },
		{ "tls_server_config:\n  cert_file: a.pem\n", "needs both cert_file and key_file" },
		{ "tls_server_config:\n  cert_file:\n  key_file: k.pem\n", "cert_file needs a value" },
		{ "tls_server_config:\n  min_version: TLS13\n", "min_version is not supported" },
		{ "tls_server_config:\n  cert_file: nowhere.pem\n  key_file: nowhere.pem\n",
		  "cannot read the certificate" },
		{ "http_server_config:\n  headers: {}\n", "line 1: http_server_config is not supported" },
		{ "tls_config: {}\n", "tls_config is not supported" },
		{ "- a\n- b\n", "must be a mapping" },
		{ "basic_auth_users:\n  alice: [\n", "fix the YAML" },
	};
	char *dir = tu_tempdir();

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct web_config c;
		char err[512] = "";

		assert_true(web_config_load(&c, write_config(dir, bad[i].text), err, sizeof(err)) < 0);
		print_message("%s", err);
		print_message("\n");
		if (!strstr(err, bad[i].want) || !strstr(err, "--web-config-file") || strchr(err, '\n'))
			fail_msg("\"%s\" gave \"%s\", not one line with \"%s\"", bad[i].text, err,
				 bad[i].want);
		web_config_free(&c);
	}
	tu_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_users),
		cmocka_unit_test(test_empty_means_open),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
