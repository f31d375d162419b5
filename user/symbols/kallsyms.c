/* SPDX-License-Identifier: GPL-2.0-only */
/* kallsyms.c: the kernel's symbol table from /proc/kallsyms (or a copy of
 * it), built as perf 6.1 builds it: modules' symbols kept only for the
 * modules it maps, where the kernel's own symbols end. */
#include "symbols/kallsyms.h"

#include <ctype.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/byte_buffer.h"
#include "lib/hash_map.h"
#include "lib/hex_digits.h"
#include "lib/log.h"
#include "sys/kallsyms_access.h"
#include "sys/safe_open.h"
#include "symbols/kallsyms_disk.h"
#include "symbols/symtab_cache.h"

/*
 * perf names a module's kallsyms symbols only where it has a map for the
 * module: all of them when it reads /proc/kcore, else those of the modules
 * /proc/modules lists, not ftrace's or BPF's pseudo-modules
 * ([__builtin__ftrace], [bpf]). The kcore and modules beside the kallsyms
 * file stand for those of /proc.
 */
struct modules {
	bool all;                /* kcore is there: every module's symbols */
	struct byte_buffer list; /* "\nname\nname\n" */
	char last[64];           /* the module last asked about, and the answer */
	bool last_known;
};

static void modules_init(struct modules *m, const char *kallsyms)
{
	const char *slash = strrchr(kallsyms, '/');
	int dir = slash ? (int)(slash - kallsyms) : 1;
	char path[4096], line[512];
	FILE *f;
	int fd;

	memset(m, 0, sizeof(*m));
	snprintf(path, sizeof(path), "%.*s/kcore", dir, slash ? kallsyms : ".");
	if (!access(path, R_OK)) {
		m->all = true;
		return;
	}
	snprintf(path, sizeof(path), "%.*s/modules", dir, slash ? kallsyms : ".");
	fd = safe_openat(AT_FDCWD, path, SAFE_OPEN_FOLLOW, NULL);
	f = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (!f) {
		if (fd >= 0)
			close(fd);
		return;
	}
	byte_buffer_append(&m->list, "\n", 1);
	while (fgets(line, sizeof(line), f)) {
		size_t n = strcspn(line, " \n");

		if (n && (!byte_buffer_append(&m->list, line, n) ||
			  !byte_buffer_append(&m->list, "\n", 1)))
			break;
	}
	fclose(f);
}

static bool modules_has(struct modules *m, const char *name)
{
	char key[sizeof(m->last) + 2];

	if (m->all)
		return true;
	if (!strcmp(name, m->last))
		return m->last_known;
	snprintf(m->last, sizeof(m->last), "%s", name);
	snprintf(key, sizeof(key), "\n%s\n", name);
	m->last_known = m->list.len && byte_buffer_append(&m->list, "", 1) &&
			strstr((const char *)m->list.data, key);
	if (m->list.len)
		m->list.len--; /* the NUL is not part of the list */
	return m->last_known;
}

/* The address at the start of a kallsyms line of len bytes, as strtoull
 * reads it: by hand for the plain hex digits every real line starts with;
 * the 16 digits and the space of a 64-bit kernel's lines by hex_digits_16
 * (a branch on digit or letter, missed half the time, was a tenth of the
 * parse). */
static unsigned long long kallsyms_address(char *line, size_t len, char **end)
{
	unsigned long long addr = 0;
	char *p = line;
	uint64_t all16;

	if (len > 16 && line[16] == ' ' && hex_digits_16(line, &all16)) {
		*end = line + 16;
		return all16;
	}
	for (; p - line < 16; p++) {
		unsigned int c = (unsigned char)*p, d;

		if (c - '0' < 10)
			d = c - '0';
		else if ((c | 0x20) - 'a' < 6)
			d = (c | 0x20) - 'a' + 10;
		else
			break;
		addr = addr << 4 | d;
	}
	if (p == line || *p != ' ') /* odd: anything strtoull would take */
		return strtoull(line, end, 16);
	*end = p;
	return addr;
}

/* kallsyms__parse and map__process_kallsym_symbol: "ADDR TYPE NAME[\t[MOD]]"
 * lines whose type is T, W, D or B in either case; 'W' binds weak, other
 * upper case global, lower case local; t and w are functions. The module
 * stays in the name until the fixups are done, as in perf. line, of len
 * bytes, ends in a NUL where its newline was. */
static int add_kallsyms_line(struct symtab_builder *b, char *line, size_t len, bool *nonzero)
{
	char *end, *name, type, upper;
	unsigned long long addr = kallsyms_address(line, len, &end);
	uint8_t binding, kind;

	if (end == line || end[0] != ' ' || !end[1] || end[2] != ' ')
		return 0;
	type = end[1];
	upper = (char)toupper((unsigned char)type);
	if (upper != 'T' && upper != 'W' && upper != 'D' && upper != 'B')
		return 0;
	name = end + 3;
	if (name[0] == '$') /* ARM modules' local symbols */
		return 0;
	binding = type == 'W' ? STB_WEAK : type == upper ? STB_GLOBAL : STB_LOCAL;
	kind = upper == 'T' || upper == 'W' ? STT_FUNC : STT_OBJECT;
	*nonzero |= addr != 0;
	return symtab_builder_add(b, addr, 0, binding, kind, name);
}

/* Longest line read: as fgets into 1024 bytes reads them; a longer one (no
 * kernel symbol is) is skipped. */
#define KALLSYMS_LINE_MAX 1023
#define KALLSYMS_CHUNK (128u << 10)
#define KALLSYMS_MIN_CHUNK (4u << 10) /* holds a longest line and more */

/* The chunk for fd: KALLSYMS_CHUNK, or less for a copy that is smaller (a
 * power of two above its size, at least KALLSYMS_MIN_CHUNK); /proc/kallsyms
 * says it has no size. */
static size_t chunk_for(int fd)
{
	struct stat st;
	size_t chunk = KALLSYMS_MIN_CHUNK;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
	    (uint64_t)st.st_size >= KALLSYMS_CHUNK)
		return KALLSYMS_CHUNK;
	while (chunk <= (uint64_t)st.st_size)
		chunk <<= 1;
	return chunk;
}

/* Reads fd's lines in big chunks (a read of /proc/kallsyms costs the kernel
 * the same whatever its size, and there are 100000 lines and more) into b.
 * 0 at the end of the file, -errno if reading failed or memory ran out. */
static int read_kallsyms_lines(int fd, struct symtab_builder *b, bool *nonzero)
{
	size_t chunk = chunk_for(fd);
	char *buf = malloc(chunk + 1);
	size_t have = 0;
	bool skipping = false; /* the rest of a line too long */
	int r = 0;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t n = read(fd, buf + have, chunk - have);
		char *line, *nl, *stop;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			break;
		}
		have += (size_t)n;
		stop = buf + have;
		line = buf;
		while ((nl = memchr(line, '\n', (size_t)(stop - line)))) {
			*nl = '\0';
			if (!skipping && nl - line < KALLSYMS_LINE_MAX &&
			    (r = add_kallsyms_line(b, line, (size_t)(nl - line), nonzero))) {
				free(buf);
				return r;
			}
			skipping = false;
			line = nl + 1;
		}
		if (stop - line >= KALLSYMS_LINE_MAX) { /* no newline in sight */
			skipping = true;
			line = stop;
		}
		have = (size_t)(stop - line);
		memmove(buf, line, have);
		if (!n) { /* the end: a last line without its newline */
			buf[have] = '\0';
			if (have && !skipping)
				r = add_kallsyms_line(b, buf, have, nonzero);
			break;
		}
	}
	free(buf);
	return r;
}

/* What maps__split_kallsyms keeps, and where the kernel's own symbols end. */
struct module_split {
	struct modules *m;
	uint64_t kernel_end;
	/* the kernel's own symbols: its first function, its last symbol */
	uint64_t boot_start, boot_end;
};

/* maps__split_kallsyms: a module's symbols lose their "\t[MODULE]", and
 * those of modules perf has no map for are dropped. */
static bool keep_mapped_module(char *name, bool has_tab, const struct symbol *s, void *ctx)
{
	struct module_split *split = ctx;
	char *tab = has_tab ? strchr(name, '\t') : NULL, *mod;

	if (!tab) {
		if (s->end > split->kernel_end)
			split->kernel_end = s->end;
		if (s->type == STT_FUNC && s->start && s->start < split->boot_start)
			split->boot_start = s->start;
		if (s->start > split->boot_end)
			split->boot_end = s->start;
		return true;
	}
	mod = tab + 1 + (tab[1] == '[');
	mod[strcspn(mod, "]")] = '\0';
	*tab = '\0';
	return modules_has(split->m, mod);
}

int symtab_load_kallsyms(struct symtab *t, const char *path, char *err, size_t errlen)
{
	struct symtab_builder b;
	struct modules m;
	int fd = safe_openat(AT_FDCWD, path, SAFE_OPEN_FOLLOW, NULL);
	bool nonzero = false;
	int r;

	memset(t, 0, sizeof(*t));
	if (fd < 0) {
		rt_format(err, errlen, "cannot read %s: %s", path, safe_open_strerror(errno));
		return fd;
	}
	symtab_builder_init(&b, true);
	if ((r = read_kallsyms_lines(fd, &b, &nonzero)))
		rt_format(err, errlen, "out of memory reading %s", path);
	else if (!nonzero) {
		char cause[512];

		if (strcmp(path, "/proc/kallsyms"))
			snprintf(cause, sizeof(cause), "it was copied without them");
		else
			kallsyms_hidden_cause(cause, sizeof(cause));
		rt_format(err, errlen, "%s shows no kernel addresses: %s", path, cause);
		r = -EPERM;
	}
	else if ((r = symtab_builder_fixup(&b)))
		rt_format(err, errlen, "out of memory reading %s", path);
	else
		r = 0;
	close(fd);
	if (!r) {
		struct module_split split = { &m, 0, UINT64_MAX, 0 };

		modules_init(&m, path);
		split.kernel_end = m.all ? UINT64_MAX : 0;
		symtab_builder_keep(&b, keep_mapped_module, &split);
		byte_buffer_free(&m.list);
		if ((r = symtab_builder_finish(&b, t)))
			rt_format(err, errlen, "out of memory reading %s", path);
		t->kernel_end = split.kernel_end;
		if (!m.all) {
			t->steady_end = UINT64_MAX;
		} else if (split.boot_start < split.boot_end) {
			t->steady_start = split.boot_start;
			t->steady_end = split.boot_end;
		}
	}
	symtab_builder_free(&b);
	return r;
}

/* The most of /proc/modules read for a kept table's key (a few KB: 60
 * bytes a module); a longer one keeps none. */
#define MODULES_KEY_MAX (1u << 20)

/* A table is kept between reports (symtab_cache, when on) by the inode it
 * was read from: a copy's (export -g's, made once) as it is, the running
 * kernel's (/proc/kallsyms) with what /proc/modules says now (a module
 * loaded, unloaded or loaded again elsewhere is a new table). */
struct kept_key {
	struct stat st;
	char modules[32]; /* "modules HASH" or "copy": the cache's root */
};

/* The key of /proc/modules as it is: its modules' names, sizes and
 * addresses hashed (not their use counts and states, which change all the
 * time on a container host: overlay, veth); false past MODULES_KEY_MAX. */
static bool modules_hash(char out[32])
{
	int fd = safe_openat(AT_FDCWD, "/proc/modules", SAFE_OPEN_FOLLOW, NULL);
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
	uint64_t h = 0;
	size_t total = 0;
	char line[512];

	while (f && fgets(line, sizeof(line), f) && (total += strlen(line)) <= MODULES_KEY_MAX) {
		char *field[6], *save = NULL;
		int n = 0;

		for (char *w = strtok_r(line, " \n", &save); w && n < 6; w = strtok_r(NULL, " \n", &save))
			field[n++] = w;
		if (n < 2)
			continue;
		h = hash_bytes(field[0], strlen(field[0]) + 1, h);
		h = hash_bytes(field[1], strlen(field[1]) + 1, h);
		if (n == 6)
			h = hash_bytes(field[5], strlen(field[5]) + 1, h);
	}
	if (f)
		fclose(f);
	else if (fd >= 0)
		close(fd);
	snprintf(out, 32, "modules %016llx", (unsigned long long)h);
	return total <= MODULES_KEY_MAX;
}

static bool kept_key(const char *path, struct kept_key *k)
{
	if (stat(path, &k->st))
		return false;
	if (strcmp(path, "/proc/kallsyms")) {
		snprintf(k->modules, sizeof(k->modules), "copy");
		return S_ISREG(k->st.st_mode);
	}
	return modules_hash(k->modules);
}

/* The running kernel's table as kept on disk (kallsyms_disk.c, when on),
 * if the kernel shows this process its addresses now. */
static bool kept_on_disk(const char *path, const struct kept_key *k, struct symtab *t)
{
	return k && !strcmp(path, "/proc/kallsyms") && kallsyms_disk_on() &&
	       kallsyms_addresses_shown() && kallsyms_disk_find(k->modules, t);
}

/* Reads path's table, and keeps it by k when k is given (on disk too, the
 * running kernel's). */
static int load_and_keep(struct symtab *t, const char *path, const struct kept_key *k)
{
	int r = symtab_load_kallsyms(t, path, NULL, 0);
	char now[32];

	if (r || !k)
		return r;
	if (!strcmp(path, "/proc/kallsyms")) {
		/* a module loaded or unloaded while the table was read: it is
		 * of neither state, and not kept */
		if (!modules_hash(now) || strcmp(now, k->modules))
			return 0;
		kallsyms_disk_keep(k->modules, t);
	}
	symtab_cache_keep(&k->st, k->modules, path, t);
	return 0;
}

int kallsyms_load_kept(struct symtab *t, const char *path)
{
	struct kept_key k;

	if (!kept_key(path, &k))
		return load_and_keep(t, path, NULL);
	if (symtab_cache_find(&k.st, k.modules, path, t) || kept_on_disk(path, &k, t))
		return 0;
	return load_and_keep(t, path, &k);
}

bool kallsyms_answers(const struct symtab *t, uint64_t ip)
{
	return !(t->cached || t->on_disk) || (ip >= t->steady_start && ip < t->steady_end);
}

struct kallsyms_loader {
	pthread_t thread;
	bool threaded; /* else the table was kept, and is here */
	bool done;     /* the table is read (atomic: set by the thread) */
	const char *path;
	struct kept_key key; /* to keep its table by */
	bool keep;
	struct symtab symtab;
	int result;
};

static void *load_beside(void *arg)
{
	struct kallsyms_loader *l = arg;

	l->result = load_and_keep(&l->symtab, l->path, l->keep ? &l->key : NULL);
	__atomic_store_n(&l->done, true, __ATOMIC_RELEASE);
	return NULL;
}

/* Smaller kallsyms files are read where they are first needed. */
#define KALLSYMS_BESIDE_MIN_BYTES (64u << 10)

struct kallsyms_loader *kallsyms_load_beside(const char *path)
{
	struct kallsyms_loader *l;
	struct stat st;

	if (!stat(path, &st) && S_ISREG(st.st_mode) && st.st_size < KALLSYMS_BESIDE_MIN_BYTES &&
	    st.st_size > 0)
		return NULL;
	l = calloc(1, sizeof(*l));
	if (!l)
		return NULL;
	l->path = path;
	if ((l->keep = kept_key(path, &l->key)) &&
	    (symtab_cache_find(&l->key.st, l->key.modules, path, &l->symtab) ||
	     kept_on_disk(path, &l->key, &l->symtab))) {
		l->done = true;
		return l;
	}
	l->threaded = true;
	if (pthread_create(&l->thread, NULL, load_beside, l)) {
		free(l);
		return NULL;
	}
	pthread_setname_np(l->thread, "rt-kallsyms");
	return l;
}

bool kallsyms_loader_done(struct kallsyms_loader *l)
{
	return __atomic_load_n(&l->done, __ATOMIC_ACQUIRE);
}

int kallsyms_loader_take(struct kallsyms_loader *l, struct symtab *t)
{
	int r;

	if (l->threaded)
		pthread_join(l->thread, NULL);
	*t = l->symtab;
	r = l->result;
	free(l);
	return r;
}
