/* SPDX-License-Identifier: GPL-2.0-only */
/* privileges.c: the capabilities ringtrace needs, checked up front with
 * libcap (one line naming what is missing and how to grant it), and dropped
 * once everything is loaded, attached and opened (but for those that read
 * other processes' files, where asked to keep them). */
#include "sys/privileges.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/capability.h>
#include <unistd.h>

#include "lib/log.h"

/* The needed capabilities missing from the effective set, comma-separated
 * as setcap names them, into missing ("" if none); 0, or -errno. */
static int missing_caps(char *missing, size_t len)
{
	static const cap_value_t needed[] = { CAP_BPF, CAP_PERFMON };
	cap_t caps = cap_get_proc();

	missing[0] = '\0';
	if (!caps)
		return -errno;
	for (size_t i = 0; i < sizeof(needed) / sizeof(needed[0]); i++) {
		cap_flag_value_t v = CAP_CLEAR;
		char *name;

		if (cap_get_flag(caps, needed[i], CAP_EFFECTIVE, &v) == 0 && v == CAP_SET)
			continue;
		name = cap_to_name(needed[i]);
		snprintf(missing + strlen(missing), len - strlen(missing), "%s%s",
			 missing[0] ? "," : "", name ? name : "?");
		cap_free(name);
	}
	cap_free(caps);
	return 0;
}

/* "run it as root, or grant them with setcap cap_bpf,cap_perfmon+ep EXE". */
static void grant_line(char *buf, size_t len)
{
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	exe[n > 0 ? n : 0] = '\0';
	snprintf(buf, len, "run it as root, or grant both with setcap cap_bpf,cap_perfmon+ep %s",
		 exe[0] ? exe : "ringtrace");
}

int privileges_check(const char *what, char *err, size_t errlen)
{
	char missing[64], grant[4200];

	if (missing_caps(missing, sizeof(missing))) {
		rt_format(err, errlen, "cannot read this process's capabilities: %s", strerror(errno));
		return -errno;
	}
	if (!missing[0])
		return 0;
	grant_line(grant, sizeof(grant));
	rt_format(err, errlen, "%s needs %s: %s", what, missing, grant);
	return -EPERM;
}

/* Sets the process's capabilities to keep (those of them held, in the
 * permitted and effective sets), the others cleared, and checks it. */
static int drop_all_but(const cap_value_t *keep, int nr_keep, char *err, size_t errlen)
{
	cap_t none = cap_init(), held = cap_get_proc(), now;
	bool left;

	if (!none || !held) {
		rt_format(err, errlen, "out of memory");
		cap_free(none);
		cap_free(held);
		return -ENOMEM;
	}
	for (int i = 0; i < nr_keep; i++) {
		cap_flag_value_t v = CAP_CLEAR;

		if (cap_get_flag(held, keep[i], CAP_PERMITTED, &v) || v != CAP_SET)
			continue;
		cap_set_flag(none, CAP_PERMITTED, 1, &keep[i], CAP_SET);
		cap_set_flag(none, CAP_EFFECTIVE, 1, &keep[i], CAP_SET);
	}
	cap_free(held);
	if (cap_reset_ambient() && errno != EINVAL) {
		int e = errno;

		rt_format(err, errlen, "cannot clear the ambient capabilities: %s", strerror(errno));
		cap_free(none);
		return -e;
	}
	if (cap_set_proc(none)) {
		int e = errno;

		rt_format(err, errlen, "cannot drop capabilities: %s", strerror(errno));
		cap_free(none);
		return -e;
	}
	now = cap_get_proc();
	left = !now || cap_compare(now, none) != 0;
	cap_free(now);
	cap_free(none);
	if (left) {
		rt_format(err, errlen, "capabilities remain after dropping them");
		return -EPERM;
	}
	return 0;
}

int privileges_drop_all(char *err, size_t errlen)
{
	return drop_all_but(NULL, 0, err, errlen);
}

int privileges_drop_all_but_reading(char *err, size_t errlen)
{
	static const cap_value_t reading[] = { CAP_SYS_PTRACE, CAP_DAC_READ_SEARCH };

	return drop_all_but(reading, 2, err, errlen);
}

const char *privileges_hint(int err)
{
	static char hint[4400];
	char missing[64], grant[4200];

	if (err != EPERM && err != EACCES)
		return "";
	if (missing_caps(missing, sizeof(missing)))
		return "";
	if (missing[0]) {
		grant_line(grant, sizeof(grant));
		snprintf(hint, sizeof(hint), ": this process lacks %s: %s", missing, grant);
	} else if (err == EPERM) {
		/* not the capabilities: what else refuses a capable process (an
		 * EACCES is the verifier's, or a file's, said by the caller) */
		snprintf(hint, sizeof(hint),
			 ": refused though CAP_BPF and CAP_PERFMON are held (kernel lockdown or a security module such as SELinux or AppArmor; dmesg may say which)");
	} else {
		hint[0] = '\0';
	}
	return hint;
}

int privileges_thread_keep_ptrace(void)
{
	cap_value_t want = CAP_SYS_PTRACE;
	cap_flag_value_t has = CAP_CLEAR;
	cap_t now = cap_get_proc(), one = cap_init();
	int ret = -EPERM;

	if (!now || !one)
		goto out;
	if (!cap_get_flag(now, want, CAP_PERMITTED, &has) && has == CAP_SET &&
	    (cap_set_flag(one, CAP_PERMITTED, 1, &want, CAP_SET) ||
	     cap_set_flag(one, CAP_EFFECTIVE, 1, &want, CAP_SET)))
		goto out;
	ret = cap_set_proc(one) ? -EPERM : 0;
out:
	cap_free(now);
	cap_free(one);
	return ret;
}
