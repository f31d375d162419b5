/* SPDX-License-Identifier: GPL-2.0-only */
/* probe_resolve.c: user-space probes made concrete before anything is attached:
 * the binary a name means, the function or SDT probe in it, its arguments. */
#include "record/probe_resolve.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/probe_format.h"
#include "lib/log.h"
#include "record/usdt_sites.h"
#include "sample_record.h"
#include "symbols/elf_functions.h"
#include "symbols/sdt_notes.h"
#include "sys/path_access.h"
#include "sys/safe_open.h"

/* Does file name base mean name: the same, or name followed by ".so" or
 * "." or "-" (libc: libc.so.6; python3: python3.11), or "lib" name ".so". */
static bool names_file(const char *base, const char *name)
{
	size_t n = strlen(name);

	if (!strcmp(base, name))
		return true;
	if (!strncmp(base, name, n) && (base[n] == '.' || base[n] == '-'))
		return true;
	return !strncmp(base, "lib", 3) && !strncmp(base + 3, name, n) &&
	       !strncmp(base + 3 + n, ".so", 3);
}

static bool regular_file(const char *path, bool executable)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode) && (!executable || !access(path, X_OK));
}

/* A file mapped in process pid that name means, named by its path in
 * /proc/PID/root, opened as the very file mapped (safe_open_mapping: never
 * through a path its owner could swap for a FIFO or another file): the fd,
 * or -1. */
static int find_in_maps(int pid, const char *name, char *out, size_t cap)
{
	char maps[64], *line = NULL;
	size_t len = 0;
	int fd = -1;
	FILE *f;

	snprintf(maps, sizeof(maps), "/proc/%d/maps", pid);
	f = fopen(maps, "re");
	if (!f)
		return -1;
	while (fd < 0 && getline(&line, &len, f) > 0) {
		char *path = strchr(line, '/'), *base;
		uint64_t start, end;

		if (!path || sscanf(line, "%" SCNx64 "-%" SCNx64, &start, &end) != 2)
			continue;
		path[strcspn(path, "\n")] = '\0';
		base = strrchr(path, '/') + 1;
		/* the file as the process sees it, inside its root (a container's) */
		if (names_file(base, name) &&
		    snprintf(out, cap, "/proc/%d/root%s", pid, path) < (int)cap)
			fd = safe_open_mapping((uint32_t)pid, start, end, path, NULL, NULL);
	}
	free(line);
	fclose(f);
	return fd;
}

/* A program of that name in PATH that is an ELF file (not a wrapper script). */
static bool find_in_path(const char *name, char *out, size_t cap)
{
	const char *path = getenv("PATH");
	char *dirs, *dir, *save = NULL;
	bool found = false;

	dirs = strdup(path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
	if (!dirs)
		return false;
	for (dir = strtok_r(dirs, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
		if (snprintf(out, cap, "%s/%s", dir, name) < (int)cap)
			found = regular_file(out, true) && elf_is_elf_file(out, NULL, 0) == 1;
	}
	free(dirs);
	return found;
}

/* A library of this machine's architecture that name means, from ld.so's
 * cache as ldconfig -p prints it ("\tlibc.so.6 (libc6,x86-64) => /lib/..."). */
static bool find_library(const char *name, char *out, size_t cap)
{
	static const char *const ldconfig[] = { "/sbin/ldconfig", "/usr/sbin/ldconfig" };
	char cmd[64], *line = NULL;
	size_t len = 0;
	bool found = false;
	FILE *p = NULL;

	for (size_t i = 0; i < 2 && !p; i++)
		if (!access(ldconfig[i], X_OK)) {
			snprintf(cmd, sizeof(cmd), "%s -p", ldconfig[i]);
			p = popen(cmd, "re");
		}
	if (!p)
		return false;
	while (getline(&line, &len, p) > 0) {
		char lib[256], flags[128], path[512];

		if (found || sscanf(line, " %255s (%127[^)]) => %511s", lib, flags, path) != 3)
			continue;
		if (names_file(lib, name) && strstr(flags, sizeof(long) == 8 ? "x86-64" : "libc6") &&
		    regular_file(path, false))
			found = snprintf(out, cap, "%s", path) < (int)cap;
	}
	free(line);
	pclose(p);
	return found;
}

/* The probe's binary at path, which this user may not reach or read: what
 * keeps it out, and the fix. */
static void binary_denied(const char *path, char *err, size_t errlen)
{
	char cause[PATH_MAX + 192];

	path_access_keeps_out(path, false, cause, sizeof(cause));
	rt_format(err, errlen, "probe binary %s: %s: run as root, or let the user read it", path,
		  cause);
}

static int resolve_binary(struct user_probe *p, int pid, char *err, size_t errlen)
{
	int is_elf, fd = -1;

	if (strchr(p->binary, '/')) {
		snprintf(p->path, sizeof(p->path), "%s", p->binary);
		if (access(p->path, F_OK)) {
			int e = errno;

			if (e == EACCES || e == EPERM)
				binary_denied(p->path, err, errlen);
			else
				rt_format(err, errlen, "probe binary %s: %s: give the path of a program or a shared library",
					  p->path, strerror(e));
			return -e;
		}
	} else if (!(pid > 0 && (fd = find_in_maps(pid, p->binary, p->path, sizeof(p->path))) >= 0) &&
		   !find_in_path(p->binary, p->path, sizeof(p->path)) &&
		   !find_library(p->binary, p->path, sizeof(p->path))) {
		rt_format(err, errlen, "probe binary \"%s\" not found%s: give its path, a program in PATH or a library ld.so knows (ldconfig -p)",
			  p->binary, pid > 0 ? " in the process's mappings, PATH or ld.so's cache" : " in PATH or ld.so's cache");
		return -ENOENT;
	}
	/* opened once, a regular file and without blocking; read and attached
	 * by this fd's name from here on (kept open for the recording) */
	if (fd < 0)
		fd = safe_openat(AT_FDCWD, p->path, SAFE_OPEN_FOLLOW, NULL);
	if (fd < 0) {
		if (errno == EACCES || errno == EPERM)
			binary_denied(p->path, err, errlen);
		else
			rt_format(err, errlen, "probe binary %s: %s: give the path of a program or a shared library",
				  p->path, safe_open_strerror(errno));
		return fd;
	}
	snprintf(p->fd_path, sizeof(p->fd_path), "/proc/self/fd/%d", fd);
	is_elf = elf_is_elf_file(p->fd_path, err, errlen);
	if (is_elf < 0)
		return is_elf;
	if (!is_elf) {
		rt_format(err, errlen, "probe binary %s is not an ELF file: give a program or a shared library",
			  p->path);
		return -ENOEXEC;
	}
	return 0;
}

/* Appends names to err after a prefix: all of them if few, else the count. */
static void list_some(char *err, size_t errlen, const char *what, const char *const *names,
		      size_t nr, const char *hint)
{
	size_t at = strlen(err);

	if (!nr) {
		rt_format(err + at, errlen - at, "; it has no %s", what);
		return;
	}
	if (nr > 20) {
		rt_format(err + at, errlen - at, "; it has %zu %s: %s", nr, what, hint);
		return;
	}
	rt_format(err + at, errlen - at, "; it has:");
	for (size_t i = 0; i < nr; i++) {
		at = strlen(err);
		rt_format(err + at, errlen - at, "%s %s", i ? "," : "", names[i]);
	}
}

static int check_function(struct user_probe *p, char *err, size_t errlen)
{
	char **names, hint[320];
	size_t nr;
	int r;

	if ((r = elf_function_names(user_probe_file(p), &names, &nr, err, errlen)))
		return r;
	for (size_t i = 0; i < nr; i++)
		if (elf_names_function(names[i], p->func)) {
			free(names);
			/* where it is: its versions at one address are one */
			r = elf_function_offset(user_probe_file(p), p->func, &p->func_offset, err,
						errlen);
			return r < 0 ? r : 0;
		}
	rt_format(err, errlen, "no function \"%s\" in %s", p->func, p->path);
	snprintf(hint, sizeof(hint), "ringtrace list uprobe:%s lists them", p->path);
	list_some(err, errlen, "functions", (const char *const *)names, nr, hint);
	free(names);
	return -ENOENT;
}

static int check_sdt_probe(struct user_probe *p, struct usdt_sites *sites, char *err,
			   size_t errlen)
{
	struct sdt_probe *probes;
	size_t nr;
	char (*names)[130];
	const char **list;
	char hint[320];
	int r;

	if ((r = sdt_notes_read(user_probe_file(p), &probes, &nr, err, errlen)))
		return r;
	for (size_t i = 0; i < nr; i++)
		if (!strcmp(probes[i].provider, p->provider) && !strcmp(probes[i].name, p->probe)) {
			p->nr_args = probes[i].nr_args > RT_PROBE_MAX_ARGS ? RT_PROBE_MAX_ARGS
									   : probes[i].nr_args;
			p->arg_signed = probes[i].arg_signed;
			r = usdt_sites_of(p, probes, nr, sites, err, errlen);
			free(probes);
			return r;
		}
	names = calloc(nr + 1, sizeof(*names));
	list = calloc(nr + 1, sizeof(*list));
	for (size_t i = 0; names && list && i < nr; i++) {
		snprintf(names[i], sizeof(names[i]), "%s:%s", probes[i].provider, probes[i].name);
		list[i] = names[i];
	}
	rt_format(err, errlen, "no USDT probe \"%s:%s\" in %s", p->provider, p->probe, p->path);
	snprintf(hint, sizeof(hint), "ringtrace list usdt:%s lists them", p->path);
	list_some(err, errlen, "USDT probes", list, names && list ? nr : 0, hint);
	free(list);
	free(names);
	free(probes);
	return -ENOENT;
}

/* s as a part of an event name: up to its first '.', what is not a letter,
 * digit or '_' made '_' (perf probe's "probe_libc" of libc.so.6). */
static void name_part(char *out, size_t cap, const char *s)
{
	size_t n = 0;

	for (; s[n] && s[n] != '.' && n + 1 < cap; n++)
		out[n] = isalnum((unsigned char)s[n]) ? s[n] : '_';
	out[n] = '\0';
}

int probe_resolve(struct event_desc *ev, int pid, uint16_t id, struct usdt_sites *sites,
		  char *err, size_t errlen)
{
	struct user_probe *p = &ev->probe;
	const char *base;
	struct probe_format f = { .id = id };
	char part[48];
	int r;

	if ((r = resolve_binary(p, pid, err, errlen)))
		return r;
	base = strrchr(p->path, '/') ? strrchr(p->path, '/') + 1 : p->path;
	if (ev->kind == EVENT_USDT) {
		if ((r = check_sdt_probe(p, sites, err, errlen)))
			return r;
		name_part(part, sizeof(part), p->provider);
		snprintf(ev->system, sizeof(ev->system), "usdt_%s", part);
		snprintf(ev->tracepoint, sizeof(ev->tracepoint), "%s", p->probe);
	} else {
		if ((r = check_function(p, err, errlen)))
			return r;
		name_part(part, sizeof(part), base);
		snprintf(ev->system, sizeof(ev->system), "uprobe_%s", part);
		if (ev->kind == EVENT_URETPROBE)
			snprintf(ev->tracepoint, sizeof(ev->tracepoint), "%.80s__return", p->func);
		else if (p->offset)
			snprintf(ev->tracepoint, sizeof(ev->tracepoint), "%.70s_%llx", p->func,
				 (unsigned long long)p->offset);
		else /* cut to the room, as snprintf cuts it */
			snprintf(ev->tracepoint, sizeof(ev->tracepoint), "%.*s",
				 (int)sizeof(ev->tracepoint) - 1, p->func);
		p->nr_args = ev->kind == EVENT_URETPROBE ? 1 : RT_UPROBE_ARGS;
	}
	snprintf(ev->name, sizeof(ev->name), "%s:%s", ev->system, ev->tracepoint);
	f.retprobe = ev->kind == EVENT_URETPROBE;
	f.nr_args = p->nr_args;
	ev->config = id;
	ev->format = (struct tracepoint_format){ .id = id, .fixed_size = probe_format_size(&f) };
	return 0;
}

static int list_functions(const struct user_probe *p, FILE *out, char *err, size_t errlen)
{
	char **names;
	size_t nr;
	int r;

	if ((r = elf_function_names(user_probe_file(p), &names, &nr, err, errlen)))
		return r;
	for (size_t i = 0; i < nr; i++)
		fprintf(out, "uprobe:%s:%s\n", p->path, names[i]);
	if (!nr)
		fprintf(out, "# %s defines no functions in .symtab or .dynsym\n", p->path);
	free(names);
	return 0;
}

static int list_sdt(const struct user_probe *p, FILE *out, char *err, size_t errlen)
{
	struct sdt_probe *probes;
	size_t nr;
	int r;

	if ((r = sdt_notes_read(user_probe_file(p), &probes, &nr, err, errlen)))
		return r;
	for (size_t i = 0; i < nr; i++)
		fprintf(out, "usdt:%s:%s:%s%s%s%s\n", p->path, probes[i].provider, probes[i].name,
			probes[i].nr_args ? "  " : "", probes[i].args,
			probes[i].has_semaphore ? "  (semaphore)" : "");
	if (!nr)
		fprintf(out, "# %s has no USDT probes\n", p->path);
	free(probes);
	return 0;
}

int probe_list_print(const char *spec, FILE *out, char *err, size_t errlen)
{
	struct user_probe p = { 0 };
	bool usdt = !strncmp(spec, "usdt:", 5);
	int r;

	if (!usdt && strncmp(spec, "uprobe:", 7)) {
		rt_format(err, errlen, "cannot list \"%s\": give uprobe:BINARY or usdt:BINARY", spec);
		return -EINVAL;
	}
	snprintf(p.binary, sizeof(p.binary), "%s", spec + (usdt ? 5 : 7));
	if (!p.binary[0]) {
		rt_format(err, errlen, "cannot list \"%s\": give uprobe:BINARY or usdt:BINARY", spec);
		return -EINVAL;
	}
	if ((r = resolve_binary(&p, 0, err, errlen)))
		return r;
	return usdt ? list_sdt(&p, out, err, errlen) : list_functions(&p, out, err, errlen);
}
