/* SPDX-License-Identifier: GPL-2.0-only */
/* event_spec.c: the event names "-e" takes: perf's software and hardware events
 * (with :u/:k modifiers), tracepoints as subsystem:name, bpftrace's user probes. */
#include "capture/event_spec.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture/perf_events.h"
#include "lib/log.h"
#include "lib/spelling.h"

struct named_event {
	const char *name;
	const char *alias;
	uint32_t type;
	uint64_t config;
};

static const struct named_event named_events[] = {
	{ "cpu-clock", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "context-switches", "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", "migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "minor-faults", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "alignment-faults", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS },
	{ "cpu-cycles", "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branch-instructions", "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
	{ "stalled-cycles-frontend", "idle-cycles-frontend", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend", "idle-cycles-backend", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "ref-cycles", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
};

#define NR_NAMED (sizeof(named_events) / sizeof(named_events[0]))

static const struct named_event *find_named(const char *name, size_t len)
{
	for (size_t i = 0; i < NR_NAMED; i++) {
		const struct named_event *e = &named_events[i];

		if ((strlen(e->name) == len && !strncmp(e->name, name, len)) ||
		    (e->alias && strlen(e->alias) == len && !strncmp(e->alias, name, len)))
			return e;
	}
	return NULL;
}

static bool valid_tracepoint_part(const char *s, size_t len)
{
	if (!len)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '-' && s[i] != '.')
			return false;
	return true;
}

bool event_is_user_probe(const struct event_desc *ev)
{
	return ev->kind == EVENT_UPROBE || ev->kind == EVENT_URETPROBE || ev->kind == EVENT_USDT;
}

/* Copies s[0, len) into out (cap bytes); false if empty or too long. */
static bool copy_part(char *out, size_t cap, const char *s, size_t len)
{
	if (!len || len >= cap)
		return false;
	memcpy(out, s, len);
	out[len] = '\0';
	return true;
}

/* The last colon of s[0, len), or NULL. */
static const char *last_colon(const char *s, size_t len)
{
	while (len--)
		if (s[len] == ':')
			return s + len;
	return NULL;
}

/* uprobe:BINARY:FUNC[+OFFSET], uretprobe:BINARY:FUNC, usdt:BINARY:PROVIDER:NAME
 * (BINARY may hold colons: the last parts are split off); len counts text
 * after the KIND: prefix. */
static int parse_user_probe(enum event_kind kind, const char *text, size_t len,
			    struct event_desc *ev, char *err, size_t errlen)
{
	struct user_probe *p = &ev->probe;
	const char *end = text + len, *c1 = last_colon(text, len), *c2;
	char *plus, *rest;

	ev->kind = kind;
	ev->type = PERF_TYPE_TRACEPOINT;
	if (!c1)
		goto bad;
	if (kind == EVENT_USDT) {
		c2 = last_colon(text, (size_t)(c1 - text));
		if (!c2 || !copy_part(p->binary, sizeof(p->binary), text, (size_t)(c2 - text)) ||
		    !copy_part(p->provider, sizeof(p->provider), c2 + 1, (size_t)(c1 - c2 - 1)) ||
		    !copy_part(p->probe, sizeof(p->probe), c1 + 1, (size_t)(end - c1 - 1)))
			goto bad;
		return 0;
	}
	if (!copy_part(p->binary, sizeof(p->binary), text, (size_t)(c1 - text)) ||
	    !copy_part(p->func, sizeof(p->func), c1 + 1, (size_t)(end - c1 - 1)))
		goto bad;
	plus = strchr(p->func, '+');
	if (plus) {
		if (kind == EVENT_URETPROBE || plus == p->func || !plus[1])
			goto bad;
		errno = 0;
		p->offset = strtoull(plus + 1, &rest, 0);
		if (errno || *rest || plus[1] == '-')
			goto bad;
		*plus = '\0';
	}
	return 0;
bad:
	rt_format(err, errlen, "invalid probe \"%s\": give %s", ev->name,
		  kind == EVENT_USDT ? "usdt:BINARY:PROVIDER:NAME"
		  : kind == EVENT_URETPROBE ? "uretprobe:BINARY:FUNC"
					    : "uprobe:BINARY:FUNC[+OFFSET]");
	return -EINVAL;
}

/* One event of a spec: NAME, NAME:MODIFIERS, SYSTEM:NAME, or a user probe. */
static int parse_one(const char *text, size_t len, struct event_desc *ev, char *err, size_t errlen)
{
	static const struct {
		const char *prefix;
		enum event_kind kind;
	} probes[] = { { "uprobe:", EVENT_UPROBE },
		       { "uretprobe:", EVENT_URETPROBE },
		       { "usdt:", EVENT_USDT } };
	const char *colon = memchr(text, ':', len);
	size_t head = colon ? (size_t)(colon - text) : len;
	const struct named_event *named = find_named(text, head);

	memset(ev, 0, sizeof(*ev));
	if (len >= sizeof(ev->name)) {
		rt_format(err, errlen, "event name \"%.*s...\" is too long", 40, text);
		return -ENAMETOOLONG;
	}
	snprintf(ev->name, sizeof(ev->name), "%.*s", (int)len, text);
	for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
		size_t plen = strlen(probes[i].prefix);

		if (len > plen && !strncmp(text, probes[i].prefix, plen))
			return parse_user_probe(probes[i].kind, text + plen, len - plen, ev, err,
						errlen);
	}
	if (named) {
		ev->kind = named->type == PERF_TYPE_HARDWARE ? EVENT_HARDWARE : EVENT_SOFTWARE;
		ev->type = named->type;
		ev->config = named->config;
		if (colon) {
			bool user = false, kernel = false;

			for (const char *m = colon + 1; m < text + len; m++) {
				if (*m == 'u')
					user = true;
				else if (*m == 'k')
					kernel = true;
				else if (*m != 'h' && *m != 'H' && *m != 'G') {
					rt_format(err, errlen, "unknown modifier '%c' in event \"%s\": use u (user) or k (kernel)",
						  *m, ev->name);
					return -EINVAL;
				}
			}
			if (user || kernel) {
				ev->exclude_user = !user;
				ev->exclude_kernel = !kernel;
			}
		}
		return 0;
	}
	if (colon && valid_tracepoint_part(text, head) &&
	    valid_tracepoint_part(colon + 1, len - head - 1) && head < sizeof(ev->system) &&
	    len - head - 1 < sizeof(ev->tracepoint)) {
		ev->kind = EVENT_TRACEPOINT;
		ev->type = PERF_TYPE_TRACEPOINT;
		snprintf(ev->system, sizeof(ev->system), "%.*s", (int)head, text);
		snprintf(ev->tracepoint, sizeof(ev->tracepoint), "%.*s", (int)(len - head - 1),
			 colon + 1);
		return 0;
	}
	{
		struct spelling near;

		spelling_init(&near, ev->name);
		for (size_t i = 0; i < NR_NAMED; i++) {
			spelling_offer(&near, named_events[i].name);
			spelling_offer(&near, named_events[i].alias);
		}
		if (spelling_best(&near))
			rt_format(err, errlen, "unknown event \"%s\": did you mean %s? (ringtrace list shows the events it can record)",
				  ev->name, spelling_best(&near));
		else
			rt_format(err, errlen, "unknown event \"%s\": ringtrace list shows the events it can record",
				  ev->name);
	}
	return -EINVAL;
}

/* The tracepoints of available_events ("system:name"); those glob matches
 * alone where one is given. */
struct tracepoint_names {
	const char *glob;
	char **names;
	size_t nr, cap;
	bool failed;
};

static void add_tracepoint(const char *system_name, void *ctx)
{
	struct tracepoint_names *t = ctx;
	char **grown;

	if (t->failed || (t->glob && fnmatch(t->glob, system_name, 0)))
		return;
	if (t->nr == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 1024;
		grown = realloc(t->names, t->cap * sizeof(*grown));
		if (!grown) {
			t->failed = true;
			return;
		}
		t->names = grown;
	}
	t->names[t->nr] = strdup(system_name);
	if (!t->names[t->nr])
		t->failed = true;
	else
		t->nr++;
}

static void free_tracepoints(struct tracepoint_names *t)
{
	for (size_t i = 0; i < t->nr; i++)
		free(t->names[i]);
	free(t->names);
}

/* perf list sorts "system:name" as whole strings ("fib6:..." before "fib:...") */
static int compare_tracepoints(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* perf adds a glob's tracepoints by system, then by name (its directory
 * walks, alphasort): "fib:..." before "fib6:...". */
static int compare_by_system(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	size_t nx = strcspn(x, ":"), ny = strcspn(y, ":");
	int c = strncmp(x, y, nx < ny ? nx : ny);

	if (c || nx != ny)
		return c ? c : nx < ny ? -1 : 1;
	return strcmp(x + nx, y + ny);
}

static bool is_glob(const char *text, size_t len)
{
	return memchr(text, '*', len) || memchr(text, '?', len) || memchr(text, '[', len);
}

/* The tracepoints glob (len bytes at text, "system:name" with wildcards)
 * matches, appended to list. 0, or -errno with err set. */
static int expand_glob(const char *text, size_t len, struct event_desc *list, unsigned int *nr,
		       char *err, size_t errlen)
{
	char glob[160];
	struct tracepoint_names t = { .glob = glob };
	size_t matched;
	int ret;

	snprintf(glob, sizeof(glob), "%.*s", (int)len, text);
	if ((ret = tracefs_each_event(add_tracepoint, &t)) || t.failed) {
		char what[200];

		snprintf(what, sizeof(what), "cannot list the tracepoints for \"%s\"", glob);
		if (ret == -EACCES || ret == -EPERM)
			tracefs_denied(what, "available_events", err, errlen);
		else
			rt_format(err, errlen, "%s: %s", what,
				  t.failed ? "out of memory" : strerror(ret ? -ret : ENOMEM));
		ret = ret ? ret : -ENOMEM;
		goto out;
	}
	if ((matched = t.nr)) /* none: no array to sort */
		qsort(t.names, t.nr, sizeof(*t.names), compare_by_system);
	if (!matched) {
		rt_format(err, errlen, "no tracepoint matches \"%s\": ringtrace list shows them", glob);
		ret = -ENOENT;
		goto out;
	}
	if (*nr + matched > EVENT_SPEC_MAX) {
		rt_format(err, errlen, "too many events: \"%s\" matches %zu tracepoints, and a recording takes %d events at most",
			  glob, matched, EVENT_SPEC_MAX);
		ret = -E2BIG;
		goto out;
	}
	for (size_t i = 0; i < t.nr; i++)
		if ((ret = parse_one(t.names[i], strlen(t.names[i]), &list[(*nr)++], err, errlen)))
			goto out;
	ret = 0;
out:
	free_tracepoints(&t);
	return ret;
}

int event_spec_parse(const char *spec, struct event_desc *list, unsigned int *nr, char *err,
		     size_t errlen)
{
	const char *p = spec;
	/* the events of one -e are one item: --filter after it is theirs, as
	 * perf's foreach_evsel_in_last_glob takes back to the -e's boundary */
	unsigned int item = *nr ? list[*nr - 1].item + 1 : 0;
	int r;

	if (!*spec) {
		rt_format(err, errlen, "empty event list for -e");
		return -EINVAL;
	}
	while (*p) {
		size_t len = strcspn(p, ",");
		unsigned int first = *nr;

		if (!len) {
			rt_format(err, errlen, "empty event name in \"%s\"", spec);
			return -EINVAL;
		}
		if (memchr(p, ':', len) && is_glob(p, len) && strncmp(p, "uprobe:", 7) &&
		    strncmp(p, "uretprobe:", 10) && strncmp(p, "usdt:", 5)) {
			if ((r = expand_glob(p, len, list, nr, err, errlen)))
				return r;
		} else {
			if (*nr == EVENT_SPEC_MAX) {
				rt_format(err, errlen, "too many events: at most %d", EVENT_SPEC_MAX);
				return -E2BIG;
			}
			if ((r = parse_one(p, len, &list[*nr], err, errlen)))
				return r;
			(*nr)++;
		}
		/* what this name added, against what came before it */
		for (unsigned int e = first; e < *nr; e++)
			list[e].item = item;
		for (unsigned int e = first; e < *nr; e++)
			for (unsigned int i = 0; i < first; i++)
				if (!strcmp(list[i].name, list[e].name)) {
					rt_format(err, errlen, "event \"%s\" is given twice", list[i].name);
					return -EINVAL;
				}
		p += len;
		if (*p == ',')
			p++;
	}
	return 0;
}

/* As perf's off_cpu_config: a BPF-output software event named offcpu-time. */
int event_offcpu_append(struct event_desc *list, unsigned int *nr, char *err, size_t errlen)
{
	struct event_desc *ev;

	if (*nr == EVENT_SPEC_MAX) {
		rt_format(err, errlen, "too many events: at most %d", EVENT_SPEC_MAX);
		return -E2BIG;
	}
	ev = &list[*nr];
	memset(ev, 0, sizeof(*ev));
	snprintf(ev->name, sizeof(ev->name), "%s", EVENT_OFFCPU_NAME);
	ev->kind = EVENT_OFFCPU;
	ev->type = PERF_TYPE_SOFTWARE;
	ev->config = PERF_COUNT_SW_BPF_OUTPUT;
	(*nr)++;
	return 0;
}

int event_resolve(struct event_desc *ev, char *err, size_t errlen)
{
	int r;

	if (ev->kind == EVENT_TRACEPOINT) {
		if ((r = tracefs_read_format(ev->system, ev->tracepoint, &ev->format, err, errlen)))
			return r;
		ev->config = ev->format.id;
		return 0;
	}
	if (ev->kind == EVENT_HARDWARE) {
		struct perf_event_attr attr = { .size = sizeof(attr), .type = ev->type,
						.config = ev->config, .disabled = 1,
						.exclude_kernel = 1 };
		int fd = perf_event_open_fd(&attr, 0, -1, -1, 0);

		if (fd < 0) {
			if (fd == -ENOENT || fd == -EOPNOTSUPP || fd == -ENODEV)
				rt_format(err, errlen, "hardware event \"%s\" is not supported here: this machine has no hardware PMU (a VM?); use a software event such as cpu-clock",
					  ev->name);
			else
				rt_format(err, errlen, "cannot open hardware event \"%s\": %s", ev->name,
					  strerror(-fd));
			return fd;
		}
		close(fd);
	}
	return 0;
}

static int compare_named(const void *a, const void *b)
{
	return strcmp((*(const struct named_event *const *)a)->name,
		      (*(const struct named_event *const *)b)->name);
}

/* Named events of type whose name or alias matches glob (NULL: all), by
 * name, as perf list's print_symbol_events. */
static void print_named(FILE *out, uint32_t type, const char *glob)
{
	const struct named_event *sorted[NR_NAMED];
	size_t n = 0;

	for (size_t i = 0; i < NR_NAMED; i++)
		if (named_events[i].type == type &&
		    (!glob || !fnmatch(glob, named_events[i].name, 0) ||
		     (named_events[i].alias && !fnmatch(glob, named_events[i].alias, 0))))
			sorted[n++] = &named_events[i];
	qsort(sorted, n, sizeof(sorted[0]), compare_named);
	for (size_t i = 0; i < n; i++) {
		const struct named_event *e = sorted[i];
		struct event_desc ev = { .kind = type == PERF_TYPE_HARDWARE ? EVENT_HARDWARE
									  : EVENT_SOFTWARE,
					 .type = e->type, .config = e->config };
		char name[96];
		const char *note = "";

		snprintf(ev.name, sizeof(ev.name), "%s", e->name);
		if (ev.kind == EVENT_HARDWARE && event_resolve(&ev, NULL, 0))
			note = ", not supported here";
		if (e->alias)
			snprintf(name, sizeof(name), "%s OR %s", e->name, e->alias);
		else
			snprintf(name, sizeof(name), "%s", e->name);
		fprintf(out, "  %-50s [%s event%s]\n", name,
			ev.kind == EVENT_HARDWARE ? "Hardware" : "Software", note);
	}
}

/* Tracepoints whose system matches system_glob and name name_glob (NULL:
 * any), as perf list's print_tracepoint_events. */
static void print_tracepoints(FILE *out, const struct tracepoint_names *t,
			      const char *system_glob, const char *name_glob)
{
	for (size_t i = 0; i < t->nr; i++) {
		char system[256];
		const char *name = strchr(t->names[i], ':');

		if (!name || (size_t)(name - t->names[i]) >= sizeof(system))
			continue;
		snprintf(system, sizeof(system), "%.*s", (int)(name - t->names[i]), t->names[i]);
		name++;
		if ((system_glob && fnmatch(system_glob, system, 0)) ||
		    (name_glob && fnmatch(name_glob, name, 0)))
			continue;
		fprintf(out, "  %-50s [Tracepoint event]\n", t->names[i]);
	}
}

/* One argument of perf list: a class (hw, sw, tracepoint), SYSTEM:NAME
 * globs, or a glob any event's name contains. */
static void print_matching(FILE *out, const struct tracepoint_names *t, const char *pattern)
{
	char glob[512];
	const char *colon = strchr(pattern, ':');

	if (!strcmp(pattern, "tracepoint")) {
		print_tracepoints(out, t, NULL, NULL);
	} else if (!strcmp(pattern, "hw") || !strcmp(pattern, "hardware")) {
		print_named(out, PERF_TYPE_HARDWARE, NULL);
	} else if (!strcmp(pattern, "sw") || !strcmp(pattern, "software")) {
		print_named(out, PERF_TYPE_SOFTWARE, NULL);
	} else if (colon) {
		snprintf(glob, sizeof(glob), "%.*s", (int)(colon - pattern), pattern);
		print_tracepoints(out, t, glob, colon + 1);
	} else {
		snprintf(glob, sizeof(glob), "*%s*", pattern);
		print_named(out, PERF_TYPE_HARDWARE, glob);
		print_named(out, PERF_TYPE_SOFTWARE, glob);
		print_tracepoints(out, t, NULL, glob);
	}
}

int event_list_print(FILE *out, char *const *patterns, int nr_patterns)
{
	struct tracepoint_names t = { 0 };
	int tracefs = tracefs_each_event(add_tracepoint, &t);
	/* why tracepoints are missing, and the fix */
	char why[1024];

	if (tracefs == -EACCES || tracefs == -EPERM)
		tracefs_denied("tracepoints are not listed", "available_events", why, sizeof(why));
	else
		snprintf(why, sizeof(why), "tracepoints are not listed: no tracefs is mounted here (mount -t tracefs nodev /sys/kernel/tracing)");

	if (t.failed) {
		free_tracepoints(&t);
		return -ENOMEM;
	}
	if (t.nr) /* none when tracefs is unreadable: no array to sort */
		qsort(t.names, t.nr, sizeof(t.names[0]), compare_tracepoints);
	if (!nr_patterns) {
		fprintf(out, "List of events for -e (perf's names):\n\n");
		print_named(out, PERF_TYPE_SOFTWARE, NULL);
		print_named(out, PERF_TYPE_HARDWARE, NULL);
		fprintf(out, "\n");
		fprintf(out, "  %-50s [User probe: list uprobe:BINARY lists them]\n",
			"uprobe:BINARY:FUNC[+OFFSET]");
		fprintf(out, "  %-50s [User probe: the return value]\n", "uretprobe:BINARY:FUNC");
		fprintf(out, "  %-50s [USDT probe: list usdt:BINARY lists them]\n",
			"usdt:BINARY:PROVIDER:NAME");
		fprintf(out, "\n");
		if (tracefs)
			fprintf(out, "  (%s)\n", why);
		print_tracepoints(out, &t, NULL, NULL);
	}
	if (tracefs && nr_patterns)
		rt_warn("%s", why);
	for (int i = 0; i < nr_patterns; i++)
		print_matching(out, &t, patterns[i]);
	free_tracepoints(&t);
	return 0;
}
