/* SPDX-License-Identifier: GPL-2.0-only */
/* build_info.c: what ringtrace_build_info says: the version, the commit this
 * binary was built from, and the versions of the libraries it runs with. */
#include "export/build_info.h"

#include <bpf/libbpf.h>
#include <microhttpd.h>
#include <pthread.h>

/* The Makefile passes the commit (git describe) to this file alone. */
#ifndef RINGTRACE_REVISION
#define RINGTRACE_REVISION "unknown"
#endif

static struct metrics_build_info info;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void fill(void)
{
	info.version = RINGTRACE_VERSION;
	info.revision = RINGTRACE_REVISION[0] ? RINGTRACE_REVISION : "unknown";
	info.libbpf = libbpf_version_string();
	info.libmicrohttpd = MHD_get_version();
}

const struct metrics_build_info *build_info(void)
{
	pthread_once(&once, fill);
	return &info;
}
