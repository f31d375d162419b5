/* SPDX-License-Identifier: GPL-2.0-only */
/* test_deploy.c: what deploying ringtrace takes: make install's tree (man
 * pages that man renders, holding every option of their command; a working
 * completion), make uninstall; the systemd unit verified by systemd-analyze
 * and its capabilities enough to export as an unprivileged user; the .deb
 * clean for lintian, unpacked and run; the alert rules' promtool tests; the
 * DaemonSet's capabilities. Every process started here is stopped by pid. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test_util.h"
#include "cli/command_options.h"

#define PAGES_MAX 16

/* make with the build to install (RINGTRACE_MAKE), run from a clean
 * environment of make's own variables. */
static int run_make(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int run_make(char **out, const char *fmt, ...)
{
	const char *make = getenv("RINGTRACE_MAKE");
	char args[4096];
	va_list ap;

	if (!make || !*make)
		tu_skip("RINGTRACE_MAKE is not set: run the test through make (make check)");
	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	return tu_sh(out, "env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL %s %s 2>&1", make, args);
}

static const char *src_dir(void)
{
	const char *src = getenv("RINGTRACE_SRC");

	if (!src || !*src)
		tu_skip("RINGTRACE_SRC is not set: run the test through make (make check)");
	return src;
}

static void assert_file(const char *root, const char *path, mode_t mode)
{
	char full[PATH_MAX];
	struct stat st;

	snprintf(full, sizeof(full), "%s%s", root, path);
	if (stat(full, &st))
		fail_msg("make install did not install %s: %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode) || (st.st_mode & 07777) != mode)
		fail_msg("%s: mode %o, want a regular file of mode %o", path, st.st_mode & 07777, mode);
}

/* The rendered page (man -l, plain ASCII), after checking that man has no
 * warning about it. */
static char *render_page(const char *path)
{
	char *out = NULL;

	if (tu_sh(&out, "LC_ALL=C MANWIDTH=120 man --warnings -l %s 2>&1 >/dev/null", path) || *out)
		fail_msg("man -l %s warns: %s", path, out);
	free(out);
	if (tu_sh(&out, "LC_ALL=C MANWIDTH=120 man -P cat -l %s 2>&1", path))
		fail_msg("man -l %s: %s", path, out);
	return out;
}

/* Every option of cmd, short and long, is on its page. */
static void check_page(const char *root, const struct options_command *cmd)
{
	char path[PATH_MAX], want[128];
	char *page;

	snprintf(path, sizeof(path), "%s/usr/share/man/man1/ringtrace-%s.1.gz", root, cmd->name);
	page = render_page(path);
	snprintf(want, sizeof(want), "ringtrace-%s - ", cmd->name);
	if (!strstr(page, want))
		fail_msg("%s has no NAME line \"%s\":\n%s", path, want, page);
	for (const struct options_entry *e = cmd->options; e->long_name || e->short_name || e->arg_name;
	     e++) {
		if (e->long_name) {
			snprintf(want, sizeof(want), "--%s", e->long_name);
			if (!strstr(page, want))
				fail_msg("%s does not document %s", path, want);
		}
		if (e->short_name) {
			snprintf(want, sizeof(want), "-%c", e->short_name);
			if (!strstr(page, want))
				fail_msg("%s does not document %s", path, want);
		}
	}
	free(page);
}

/* The installed completion offers each long option of cmd after "--". */
static void check_completion(const char *root, const struct options_command *cmd)
{
	char *out = NULL;

	if (tu_sh(&out, "bash -c 'source %s/usr/share/bash-completion/completions/ringtrace && "
			"COMP_WORDS=(ringtrace %s --) COMP_CWORD=2 && _ringtrace && "
			"printf \"%%s\\n\" \"${COMPREPLY[@]}\"' 2>&1",
		  root, cmd->name))
		fail_msg("completion of ringtrace %s --: %s", cmd->name, out);
	for (const struct options_entry *e = cmd->options; e->long_name || e->short_name || e->arg_name;
	     e++) {
		char want[128];

		snprintf(want, sizeof(want), "--%s\n", e->long_name ? e->long_name : "help");
		if (!strstr(out, want))
			fail_msg("completing ringtrace %s -- does not offer %s: %s", cmd->name, want, out);
	}
	free(out);
}

static void test_install_and_uninstall(void **state)
{
	static const char *const files[] = {
		"/usr/share/bash-completion/completions/ringtrace",
		"/usr/lib/systemd/system/ringtrace-exporter.service",
		"/usr/lib/sysusers.d/ringtrace.conf",
		"/etc/default/ringtrace-exporter",
		"/usr/share/doc/ringtrace/README.md",
		"/usr/share/doc/ringtrace/docs/recording.md",
		"/usr/share/doc/ringtrace/docs/stacks.md",
		"/usr/share/doc/ringtrace/docs/flight-recorder.md",
		"/usr/share/doc/ringtrace/docs/reports.md",
		"/usr/share/doc/ringtrace/docs/exporter.md",
		"/usr/share/doc/ringtrace/docs/security.md",
		"/usr/share/doc/ringtrace/docs/BENCHMARKS.md",
		"/usr/share/doc/ringtrace/docs/hacking.md",
		"/usr/share/doc/ringtrace/docs/images/flamegraph.png",
		"/usr/share/doc/ringtrace/examples/ringtrace.rules.yml",
		"/usr/share/doc/ringtrace/examples/ringtrace.rules.test.yml",
		"/usr/share/doc/ringtrace/examples/ringtrace-dashboard.json",
		"/usr/share/doc/ringtrace/examples/ringtrace-exporter.yaml",
		"/usr/share/doc/ringtrace/examples/ringtrace-podmonitor.yaml",
		"/usr/share/doc/ringtrace/examples/web-config.example.yml",
	};
	char *root = tu_tempdir(), *out = NULL, *page, path[PATH_MAX];
	int rc;

	(void)state;
	tu_skip_unless_possible();
	rc = run_make(&out, "install DESTDIR=%s PREFIX=/usr", root);
	if (rc)
		fail_msg("make install: %s", out);
	free(out);
	assert_file(root, "/usr/bin/ringtrace", 0755);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		assert_file(root, files[i], 0644);
	snprintf(path, sizeof(path), "%s/usr/share/man/man1/ringtrace.1.gz", root);
	assert_file(root, "/usr/share/man/man1/ringtrace.1.gz", 0644);
	page = render_page(path);
	for (unsigned int i = 0; i < nr_all_commands; i++) {
		char see[64];

		snprintf(see, sizeof(see), "ringtrace-%s(1)", all_commands[i]->name);
		if (!strstr(page, see))
			fail_msg("ringtrace(1) does not point to %s:\n%s", see, page);
		check_page(root, all_commands[i]);
		check_completion(root, all_commands[i]);
	}
	free(page);
	/* the binary installed is the one built: it runs */
	assert_int_equal(tu_sh(&out, "%s/usr/bin/ringtrace --version", root), 0);
	assert_non_null(strstr(out, RINGTRACE_VERSION));
	free(out);
	rc = run_make(&out, "uninstall DESTDIR=%s PREFIX=/usr", root);
	if (rc)
		fail_msg("make uninstall: %s", out);
	free(out);
	assert_int_equal(tu_sh(&out, "find %s -type f", root), 0);
	if (*out)
		fail_msg("make uninstall left files behind:\n%s", out);
	free(out);
	tu_rmtree(root);
	free(root);
}

/* Installed with PREFIX inside a scratch directory, so that the unit's
 * ExecStart names a binary that exists and man finds its page. */
static char *install_scratch(void)
{
	char *root = tu_tempdir(), *out = NULL;

	if (run_make(&out, "install PREFIX=%s/usr SYSCONFDIR=%s/etc", root, root))
		fail_msg("make install: %s", out);
	free(out);
	return root;
}

static void test_unit_verifies(void **state)
{
	char *root, *out = NULL, unit[PATH_MAX];

	(void)state;
	tu_skip_unless_possible();
	root = install_scratch();
	snprintf(unit, sizeof(unit), "%s/usr/lib/systemd/system/ringtrace-exporter.service", root);
	if (tu_sh(&out, "MANPATH=%s/usr/share/man systemd-analyze verify %s 2>&1", root, unit))
		fail_msg("systemd-analyze verify %s:\n%s", unit, out);
	free(out);
	if (!tu_sh(&out, "systemd-analyze security --offline=true %s 2>&1 | tail -1", unit))
		tu_print_text(out);
	free(out);
	/* what it runs with, and without */
	assert_int_equal(tu_sh(&out, "grep -x 'AmbientCapabilities=CAP_BPF CAP_PERFMON' %s && "
				     "grep -x 'CapabilityBoundingSet=CAP_BPF CAP_PERFMON' %s && "
				     "grep -x 'NoNewPrivileges=yes' %s && grep -x 'ProtectSystem=strict' %s && "
				     "grep -x 'ProtectHome=yes' %s && grep -x 'PrivateTmp=yes' %s && "
				     "grep -x 'StateDirectory=ringtrace-exporter' %s && grep -x 'User=ringtrace' %s",
			       unit, unit, unit, unit, unit, unit, unit, unit),
			 0);
	free(out);
	tu_rmtree(root);
	free(root);
}

/* What a key of the unit says ("" if absent), into buf. */
static const char *unit_value(const char *unit, const char *key, char *buf, size_t len)
{
	char *out = NULL;

	buf[0] = '\0';
	if (!tu_sh(&out, "sed -n 's/^%s=//p' %s | tail -1", key, unit))
		snprintf(buf, len, "%.*s", (int)strcspn(out, "\n"), out);
	free(out);
	return buf;
}

/* CAP_BPF,CAP_PERFMON -> +bpf,+perfmon, setpriv's spelling. */
static void setpriv_caps(const char *systemd, char *buf, size_t len)
{
	char copy[256], *save = NULL;
	size_t n = 0;

	snprintf(copy, sizeof(copy), "%s", systemd);
	buf[0] = '\0';
	for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		n += (size_t)snprintf(buf + n, len - n, "%s+", n ? "," : "");
		for (char *c = w + (strncmp(w, "CAP_", 4) ? 0 : 4); *c && n + 1 < len; c++)
			buf[n++] = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
		buf[n] = '\0';
	}
}

/* The unit's command, as systemd would run it: a user that is not root,
 * the unit's ambient and bounding capabilities, no new privileges. It loads,
 * serves and writes its textfile, and then holds no capability. */
static void test_unit_capabilities_suffice(void **state)
{
	char *root, *out = NULL, *state_dir, unit[PATH_MAX], exec[1024], ambient[256], bounding[256],
		caps[256], bcaps[256], cmd[4096], url[128], path[PATH_MAX + 32];
	int port = 20000 + (int)((getpid() * 11 + 5) % 12000);
	pid_t pid;
	struct stat st;

	(void)state;
	tu_skip_unless_possible();
	root = install_scratch();
	state_dir = tu_tempdir();
	assert_int_equal(chmod(state_dir, 0755), 0);
	assert_int_equal(chown(state_dir, 65534, 65534), 0);
	snprintf(unit, sizeof(unit), "%s/usr/lib/systemd/system/ringtrace-exporter.service", root);
	unit_value(unit, "ExecStart", exec, sizeof(exec));
	unit_value(unit, "AmbientCapabilities", ambient, sizeof(ambient));
	unit_value(unit, "CapabilityBoundingSet", bounding, sizeof(bounding));
	assert_string_equal(unit_value(unit, "NoNewPrivileges", cmd, sizeof(cmd)), "yes");
	setpriv_caps(ambient, caps, sizeof(caps));
	setpriv_caps(bounding, bcaps, sizeof(bcaps));
	/* ${LISTEN} and %S as systemd expands them, $ARGS empty */
	snprintf(cmd, sizeof(cmd),
		 "exec setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all,%s "
		 "--ambient-caps=%s --bounding-set=-all,%s --no-new-privs "
		 "$(echo '%s' | sed -e 's|${LISTEN}|127.0.0.1:%d|' -e 's|%%S/ringtrace-exporter|%s|' "
		 "-e 's|$ARGS||') >%s/export.log 2>&1",
		 caps, caps, bcaps, exec, port, state_dir, state_dir);
	print_message("%s\n", cmd);
	pid = tu_start("%s", cmd);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/metrics", port);
	snprintf(path, sizeof(path), "%s/ringtrace.prom", state_dir);
	for (int i = 0; i < 100 && (tu_sh(&out, "curl -sf --max-time 2 %s", url) || stat(path, &st));
	     i++) {
		free(out);
		out = NULL;
		usleep(100000);
	}
	{
		char status[64], *caps_now = NULL;

		snprintf(status, sizeof(status), "/proc/%d/status", (int)pid);
		tu_sh(&caps_now, "grep -E '^(Uid|CapEff|CapPrm|NoNewPrivs)' %s", status);
		kill(pid, SIGTERM);
		tu_wait_gone(pid, 10);
		tu_print_text(caps_now);
		if (!out || !strstr(out, "ringtrace_cpu_seconds_total")) {
			char *log = NULL;

			tu_sh(&log, "cat %s/export.log", state_dir);
			fail_msg("the unit's command did not serve as an unprivileged user: %s", log);
		}
		if (!strstr(caps_now, "CapEff:\t0000000000000000") || !strstr(caps_now, "NoNewPrivs:\t1") ||
		    !strstr(caps_now, "Uid:\t65534"))
			fail_msg("the exporter runs with %s", caps_now);
		free(caps_now);
	}
	assert_true(S_ISREG(st.st_mode));
	/* and removed the textfile when told to stop */
	assert_int_not_equal(stat(path, &st), 0);
	free(out);
	tu_rmtree(state_dir);
	free(state_dir);
	tu_rmtree(root);
	free(root);
}

static void test_deb(void **state)
{
	char *out = NULL, *deb, *unpacked;
	size_t len;

	(void)state;
	tu_skip_unless_possible();
	if (run_make(&out, "deb"))
		fail_msg("make deb: %s", out);
	/* its last line names the package */
	len = strlen(out);
	while (len && out[len - 1] == '\n')
		out[--len] = '\0';
	deb = strdup(strrchr(out, '\n') ? strrchr(out, '\n') + 1 : out);
	free(out);
	print_message("%s\n", deb);
	assert_int_equal(tu_sh(&out, "lintian --tag-display-limit 0 %s 2>&1 | grep -v 'root privileges'", deb) > 1, 0);
	print_message("lintian: %s\n", *out ? out : "(nothing to say)\n");
	if (strstr(out, "E: "))
		fail_msg("lintian finds errors in %s:\n%s", deb, out);
	free(out);
	unpacked = tu_tempdir();
	if (tu_sh(&out, "dpkg-deb -x %s %s && %s/usr/bin/ringtrace --version", deb, unpacked, unpacked))
		fail_msg("the unpacked package does not run: %s", out);
	assert_non_null(strstr(out, "ringtrace " RINGTRACE_VERSION));
	free(out);
	assert_int_equal(tu_sh(&out, "dpkg-deb -c %s", deb), 0);
	assert_non_null(strstr(out, "./lib/systemd/system/ringtrace-exporter.service"));
	assert_non_null(strstr(out, "./usr/share/man/man1/ringtrace-export.1.gz"));
	assert_non_null(strstr(out, "./usr/share/bash-completion/completions/ringtrace"));
	free(out);
	assert_int_equal(tu_sh(&out, "dpkg-deb -f %s Depends", deb), 0);
	assert_non_null(strstr(out, "libmicrohttpd12"));
	/* loaded with dlopen, so dpkg-shlibdeps cannot see them */
	assert_non_null(strstr(out, "libdebuginfod1"));
	assert_non_null(strstr(out, "libcurl4"));
	free(out);
	tu_rmtree(unpacked);
	free(unpacked);
	free(deb);
}

static void test_alert_rules(void **state)
{
	const char *src;
	char *out = NULL;

	(void)state;
	tu_skip_unless_possible();
	src = src_dir();
	if (tu_sh(&out, "cd %s/deploy/prometheus && promtool check rules ringtrace.rules.yml && "
			"promtool test rules ringtrace.rules.test.yml 2>&1", src))
		fail_msg("promtool: %s", out);
	tu_print_text(out);
	free(out);
}

/* The DaemonSet runs in the host's PID namespace, adds the five
 * capabilities test_daemonset finds needed, drops everything else. */
static void test_daemonset_capabilities(void **state)
{
	const char *src;
	char *out = NULL;

	(void)state;
	tu_skip_unless_possible();
	src = src_dir();
	if (tu_sh(&out, "python3 -c 'import sys, yaml\n"
			"d, svc = yaml.safe_load_all(open(sys.argv[1]))\n"
			"assert d[\"kind\"] == \"DaemonSet\"\n"
			"c = d[\"spec\"][\"template\"][\"spec\"][\"containers\"][0]\n"
			"s = c[\"securityContext\"]\n"
			"assert s[\"capabilities\"] == {\"drop\": [\"ALL\"], \"add\": [\"BPF\", \"PERFMON\", "
			"\"SYSLOG\", \"SYS_PTRACE\", \"DAC_READ_SEARCH\"]}, s\n"
			"assert d[\"spec\"][\"template\"][\"spec\"][\"hostPID\"] is True\n"
			"assert s[\"allowPrivilegeEscalation\"] is False and not s[\"privileged\"]\n"
			"port = c[\"ports\"][0][\"name\"]\n"
			"for p in (\"readinessProbe\", \"livenessProbe\"):\n"
			"    assert c[p][\"httpGet\"] == {\"path\": \"/healthz\", \"port\": port}, c[p]\n"
			"pods = d[\"spec\"][\"template\"][\"metadata\"][\"labels\"]\n"
			"assert svc[\"kind\"] == \"Service\" and svc[\"spec\"][\"clusterIP\"] == \"None\"\n"
			"assert svc[\"spec\"][\"selector\"].items() <= pods.items(), svc\n"
			"assert svc[\"spec\"][\"ports\"][0][\"targetPort\"] == port\n"
			"m = yaml.safe_load(open(sys.argv[2]))\n"
			"assert m[\"kind\"] == \"PodMonitor\"\n"
			"assert m[\"spec\"][\"selector\"][\"matchLabels\"].items() <= pods.items(), m\n"
			"assert m[\"spec\"][\"podMetricsEndpoints\"][0][\"port\"] == port\n"
			"print(s)' %s/deploy/kubernetes/ringtrace-exporter.yaml "
			"%s/deploy/kubernetes/ringtrace-podmonitor.yaml 2>&1",
		  src, src))
		fail_msg("the DaemonSet, its Service and PodMonitor: %s", out);
	free(out);
}

/* Every YAML and JSON file under deploy/ parses (each document of a YAML
 * file). */
static void test_deploy_files_parse(void **state)
{
	const char *src;
	char *out = NULL;

	(void)state;
	tu_skip_unless_possible();
	src = src_dir();
	if (tu_sh(&out, "cd %s/deploy && python3 -c 'import sys, json, yaml\n"
			"for f in sys.argv[1:]:\n"
			"    if f.endswith(\".json\"):\n"
			"        json.load(open(f))\n"
			"    else:\n"
			"        assert all(d is not None for d in yaml.safe_load_all(open(f))), f\n"
			"    print(f)' $(find . -name \"*.yml\" -o -name \"*.yaml\" -o -name \"*.json\") 2>&1",
		  src))
		fail_msg("a file under deploy/ does not parse: %s", out);
	print_message("parsed: %s", out);
	assert_non_null(strstr(out, "ringtrace-podmonitor.yaml"));
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_install_and_uninstall),
		cmocka_unit_test(test_unit_verifies),
		cmocka_unit_test(test_unit_capabilities_suffice),
		cmocka_unit_test(test_deb),
		cmocka_unit_test(test_alert_rules),
		cmocka_unit_test(test_daemonset_capabilities),
		cmocka_unit_test(test_deploy_files_parse),
	};
	const char *why = tu_integration_skip_reason();

	if (!why && system("command -v systemd-analyze man lintian dpkg-deb promtool setpriv python3 "
			   "curl >/dev/null"))
		why = "systemd-analyze, man, lintian, dpkg-deb, promtool, setpriv, python3 or curl is "
		      "missing (make deps installs them)";
	tu_set_skip_reason(why);
	return cmocka_run_group_tests(tests, NULL, tu_stop_left);
}
