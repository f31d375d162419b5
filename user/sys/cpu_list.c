/* SPDX-License-Identifier: GPL-2.0-only */
/* cpu_list.c: CPU lists in the kernel's "0,2-3" syntax: parsing user input
 * and reading the online CPUs from sysfs. */
#include "sys/cpu_list.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"

static int parse_number(const char **p, long *out)
{
	char *end;

	if (!isdigit((unsigned char)**p))
		return -EINVAL;
	errno = 0;
	*out = strtol(*p, &end, 10);
	if (errno || *out > 1 << 20)
		return -EINVAL;
	*p = end;
	return 0;
}

int cpu_list_parse(struct cpu_list *out, const char *text, int limit, char *err, size_t errlen)
{
	unsigned char *seen;
	const char *p = text;

	memset(out, 0, sizeof(*out));
	if (limit <= 0)
		return -EINVAL;
	seen = calloc((size_t)limit, 1);
	if (!seen)
		return -ENOMEM;
	while (*p) {
		const char *item = p;
		long lo, hi;

		if (parse_number(&p, &lo))
			goto bad;
		hi = lo;
		if (*p == '-') {
			p++;
			if (parse_number(&p, &hi) || hi < lo)
				goto bad;
		}
		if ((*p && *p != ',' && *p != '\n') || (*p == ',' && !p[1]))
			goto bad;
		if (hi >= limit) {
			rt_format(err, errlen, "CPU %ld in \"%s\" does not exist (this machine has CPUs 0-%d)",
				  hi, text, limit - 1);
			free(seen);
			return -EINVAL;
		}
		for (long c = lo; c <= hi; c++)
			seen[c] = 1;
		if (*p)
			p++;
		continue;
bad:
		rt_format(err, errlen, "malformed CPU list \"%s\" at \"%s\": use numbers and ranges like 0,2-3",
			  text, item);
		free(seen);
		return -EINVAL;
	}
	for (int c = 0; c < limit; c++)
		out->nr += seen[c];
	if (!out->nr) {
		rt_format(err, errlen, "empty CPU list \"%s\"", text);
		free(seen);
		return -EINVAL;
	}
	out->cpus = malloc(out->nr * sizeof(int));
	if (!out->cpus) {
		free(seen);
		return -ENOMEM;
	}
	out->nr = 0;
	for (int c = 0; c < limit; c++)
		if (seen[c])
			out->cpus[out->nr++] = c;
	free(seen);
	return 0;
}

static int read_sysfs_list(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	int ok;

	if (!f)
		return -errno;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	return ok ? 0 : -EIO;
}

int cpu_list_possible_count(void)
{
	char buf[256];
	struct cpu_list l;
	int n;

	if ((n = read_sysfs_list("/sys/devices/system/cpu/possible", buf, sizeof(buf))) ||
	    (n = cpu_list_parse(&l, buf, 1 << 16, NULL, 0)))
		return n;
	n = l.cpus[l.nr - 1] + 1;
	cpu_list_free(&l);
	return n;
}

int cpu_list_online(struct cpu_list *out, char *err, size_t errlen)
{
	char buf[4096];
	int ret = read_sysfs_list("/sys/devices/system/cpu/online", buf, sizeof(buf));

	if (ret) {
		rt_format(err, errlen, "cannot read /sys/devices/system/cpu/online: %s", strerror(errno));
		return ret;
	}
	return cpu_list_parse(out, buf, 1 << 16, err, errlen);
}

int cpu_list_contains(const struct cpu_list *l, int cpu)
{
	for (unsigned int i = 0; i < l->nr; i++)
		if (l->cpus[i] == cpu)
			return 1;
	return 0;
}

int cpu_list_copy(struct cpu_list *dst, const struct cpu_list *src)
{
	dst->cpus = malloc((src->nr ? src->nr : 1) * sizeof(int));
	if (!dst->cpus)
		return -ENOMEM;
	memcpy(dst->cpus, src->cpus, src->nr * sizeof(int));
	dst->nr = src->nr;
	return 0;
}

void cpu_list_free(struct cpu_list *l)
{
	free(l->cpus);
	l->cpus = NULL;
	l->nr = 0;
}
