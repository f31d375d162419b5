/* SPDX-License-Identifier: GPL-2.0-only */
/* tracefs.c: the kernel's tracefs: found or mounted, tracepoint ids and formats
 * (fixed size, dynamic fields), the list of events, and files read whole. */
#include "sys/tracefs.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "lib/log.h"
#include "lib/spelling.h"
#include "sys/path_access.h"

#define TRACEFS_MAGIC 0x74726163
#define DEFAULT_MOUNT "/sys/kernel/tracing"

static char mount_point[256];

static bool is_tracefs(const char *path)
{
	struct statfs st;

	return !statfs(path, &st) && st.f_type == TRACEFS_MAGIC;
}

const char *tracefs_path(char *err, size_t errlen)
{
	if (mount_point[0])
		return mount_point;
	if (is_tracefs(DEFAULT_MOUNT)) {
		snprintf(mount_point, sizeof(mount_point), "%s", DEFAULT_MOUNT);
		return mount_point;
	}
	if (is_tracefs("/sys/kernel/debug/tracing")) {
		snprintf(mount_point, sizeof(mount_point), "/sys/kernel/debug/tracing");
		return mount_point;
	}
	if (mount("tracefs", DEFAULT_MOUNT, "tracefs", 0, NULL) && errno != EBUSY) {
		rt_format(err, errlen, "tracefs is not mounted and mounting it on %s failed: %s: mount it as root (mount -t tracefs tracefs %s)",
			  DEFAULT_MOUNT, strerror(errno), DEFAULT_MOUNT);
		return NULL;
	}
	if (!is_tracefs(DEFAULT_MOUNT)) {
		rt_format(err, errlen, "%s is not tracefs after mounting it", DEFAULT_MOUNT);
		return NULL;
	}
	snprintf(mount_point, sizeof(mount_point), "%s", DEFAULT_MOUNT);
	return mount_point;
}

void tracefs_denied(const char *what, const char *relpath, char *err, size_t errlen)
{
	const char *root = tracefs_path(NULL, 0);
	char path[512], cause[PATH_MAX + 192];

	if (!root)
		root = DEFAULT_MOUNT;
	snprintf(path, sizeof(path), "%s/%s", root, relpath);
	path_access_keeps_out(path, false, cause, sizeof(cause));
	rt_format(err, errlen,
		  "%s: %s: run as root, or open tracefs to a group of this user's: mount -o remount,mode=750,gid=GROUP %s (mode=755 opens it to everyone)",
		  what, cause, root);
}

int tracefs_read_file(const char *relpath, struct byte_buffer *b)
{
	const char *root = tracefs_path(NULL, 0);
	char path[512], chunk[8192];
	int fd;
	ssize_t n;

	if (!root)
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/%s", root, relpath);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while ((n = read(fd, chunk, sizeof(chunk))) > 0)
		if (!byte_buffer_append(b, chunk, (size_t)n)) {
			close(fd);
			errno = ENOMEM;
			return -ENOMEM;
		}
	if (n < 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -e;
	}
	close(fd);
	return 0;
}

/* A "field:TYPE NAME[N];\toffset:O;\tsize:S;\tsigned:X;" line as a field:
 * its name is the declaration's last word (before any "[N]"). 0, or -1 if
 * the line is not one. */
static int field_of_line(const char *line, struct tracepoint_field *f)
{
	const char *decl = line + 6, *semi = strchr(line, ';'), *end, *name, *sign;
	unsigned int o, s;

	if (strncmp(line, "field:", 6) || !semi || !strstr(semi, "offset:") ||
	    sscanf(strstr(semi, "offset:") + 7, "%u", &o) != 1 || !strstr(semi, "size:") ||
	    sscanf(strstr(semi, "size:") + 5, "%u", &s) != 1)
		return -1;
	end = semi;
	if (end > decl && end[-1] == ']') /* "NAME[N]"; "__data_loc char[] NAME" has its [] before */
		while (end > decl && *end != '[')
			end--;
	while (end > decl && end[-1] == ' ')
		end--;
	name = end;
	while (name > decl && (isalnum((unsigned char)name[-1]) || name[-1] == '_'))
		name--;
	if (name == end)
		return -1;
	memset(f, 0, sizeof(*f));
	snprintf(f->name, sizeof(f->name), "%.*s", (int)(end - name), name);
	while (name > decl && name[-1] == ' ')
		name--;
	/* the type, then the array's brackets: "char" "[16]" -> "char[16]" */
	snprintf(f->type, sizeof(f->type), "%.*s%.*s", (int)(name - decl), decl,
		 (int)(semi - end), end);
	f->offset = o;
	f->size = s;
	sign = strstr(semi, "signed:");
	f->is_signed = sign && sign[7] == '1';
	return 0;
}

/* A field's line of a format into out: the record's fixed size, and where
 * its dynamic fields' (__data_loc, __rel_loc) offset words are. */
static void parse_field_line(const char *line, struct tracepoint_format *out)
{
	struct tracepoint_field f;
	bool data_loc, rel_loc;

	if (field_of_line(line, &f))
		return;
	if (f.offset + f.size > out->fixed_size)
		out->fixed_size = f.offset + f.size;
	data_loc = strstr(f.type, "__data_loc") != NULL;
	rel_loc = strstr(f.type, "__rel_loc") != NULL;
	if ((data_loc || rel_loc) && out->nr_dynamic < TRACEPOINT_MAX_DYNAMIC_FIELDS) {
		out->dynamic_offset[out->nr_dynamic] = (uint16_t)f.offset;
		out->dynamic_relative[out->nr_dynamic] = rel_loc;
		out->nr_dynamic++;
	}
}

int tracefs_parse_format(const char *text, struct tracepoint_format *out)
{
	bool have_id = false;

	memset(out, 0, sizeof(*out));
	while (*text) {
		size_t len = strcspn(text, "\n");
		char line[1024];

		snprintf(line, sizeof(line), "%.*s", (int)(len < sizeof(line) ? len : sizeof(line) - 1),
			 text);
		text += len + (text[len] == '\n');
		{
			const char *l = line + strspn(line, " \t");

			if (!strncmp(l, "ID:", 3) && sscanf(l + 3, "%u", &out->id) == 1)
				have_id = true;
			else
				parse_field_line(l, out);
		}
	}
	return have_id && out->fixed_size ? 0 : -EINVAL;
}

void tracefs_format_each_field(const char *text,
			       void (*fn)(const struct tracepoint_field *f, void *ctx), void *ctx)
{
	while (*text) {
		size_t len = strcspn(text, "\n");
		struct tracepoint_field f;
		char line[1024];

		snprintf(line, sizeof(line), "%.*s", (int)(len < sizeof(line) ? len : sizeof(line) - 1),
			 text);
		text += len + (text[len] == '\n');
		if (!field_of_line(line + strspn(line, " \t"), &f))
			fn(&f, ctx);
	}
}

struct field_search {
	const char *name;
	struct tracepoint_field *out;
	bool found;
};

static void match_field(const struct tracepoint_field *f, void *ctx)
{
	struct field_search *s = ctx;

	if (!s->found && !strcmp(f->name, s->name)) {
		*s->out = *f;
		s->found = true;
	}
}

int tracefs_format_field(const char *text, const char *name, struct tracepoint_field *out)
{
	struct field_search s = { .name = name, .out = out };

	tracefs_format_each_field(text, match_field, &s);
	return s.found ? 0 : -ENOENT;
}

static void offer_event(const char *system_name, void *ctx)
{
	spelling_offer(ctx, system_name);
}

/* "unknown tracepoint", with the nearest the machine has when one is near. */
static void unknown_tracepoint(const char *system, const char *name, char *err, size_t errlen)
{
	struct spelling near;
	char word[SPELLING_MAX_LEN + 1];

	snprintf(word, sizeof(word), "%s:%s", system, name);
	spelling_init(&near, word);
	tracefs_each_event(offer_event, &near);
	if (spelling_best(&near))
		rt_format(err, errlen, "unknown tracepoint %s:%s: did you mean %s? (ringtrace list shows the available ones)",
			  system, name, spelling_best(&near));
	else
		rt_format(err, errlen, "unknown tracepoint %s:%s (ringtrace list shows the available ones)",
			  system, name);
}

int tracefs_read_format(const char *system, const char *name, struct tracepoint_format *out,
			char *err, size_t errlen)
{
	struct byte_buffer b = { 0 };
	char rel[512];
	int ret;

	if (!tracefs_path(err, errlen)) /* a mount refused: a permission, not bad input */
		return errno == EPERM || errno == EACCES ? -errno : -ENOENT;
	if (strchr(system, '/') || strchr(name, '/') || !strcmp(system, "..") ||
	    !strcmp(name, "..")) {
		rt_format(err, errlen, "unknown tracepoint %s:%s", system, name);
		return -EINVAL;
	}
	snprintf(rel, sizeof(rel), "events/%s/%s/format", system, name);
	if ((ret = tracefs_read_file(rel, &b)) || !byte_buffer_append(&b, "", 1)) {
		if (errno == EACCES || errno == EPERM) {
			char what[300];

			snprintf(what, sizeof(what), "cannot read tracepoint %s:%s", system, name);
			tracefs_denied(what, rel, err, errlen);
		} else {
			unknown_tracepoint(system, name, err, errlen);
		}
		byte_buffer_free(&b);
		return ret ? ret : -ENOMEM;
	}
	ret = tracefs_parse_format((const char *)b.data, out);
	if (ret)
		rt_format(err, errlen, "cannot parse the format of tracepoint %s:%s", system, name);
	byte_buffer_free(&b);
	return ret;
}

int tracefs_each_event(void (*fn)(const char *system_name, void *ctx), void *ctx)
{
	struct byte_buffer b = { 0 };
	char *line, *save = NULL;
	int ret;

	if ((ret = tracefs_read_file("available_events", &b)) || !byte_buffer_append(&b, "", 1)) {
		byte_buffer_free(&b);
		return ret ? ret : -ENOMEM;
	}
	for (line = strtok_r((char *)b.data, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		fn(line, ctx);
	byte_buffer_free(&b);
	return 0;
}
