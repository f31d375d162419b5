/* SPDX-License-Identifier: GPL-2.0-only */
/* test_kernel_symbols_kept.c: the running kernel's table kept between one
 * process's reports (export -g's profiles, symtab_cache on), and on disk
 * between reports (report's and script's --kallsyms-cache): the second
 * report uses the first's table (a hit, not a read of /proc/kallsyms), and
 * names every kernel address as a report with nothing kept names it, a BPF
 * program loaded between the two reports among them (named with a kcore
 * beside, which keeps BPF programs' symbols; else past perf's map of the
 * kernel, [unknown], as perf has it). A table kept on disk is not used
 * while kernel.kptr_restrict hides the kernel's addresses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <bpf/bpf.h>
#include <errno.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols/address_space.h"
#include "symbols/kallsyms.h"
#include "symbols/kallsyms_disk.h"
#include "symbols/symtab_cache.h"
#include "test_util.h"

#define KALLSYMS "/proc/kallsyms"
/* One kernel address in so many symbols, inside it, and all of the others. */
#define EVERY 61
#define MAX_ADDRESSES 8192
#define BPF_NAME "rt_kept_test"

struct addresses {
	uint64_t ip[MAX_ADDRESSES];
	size_t nr;
};

static void add(struct addresses *a, uint64_t ip)
{
	if (a->nr < MAX_ADDRESSES)
		a->ip[a->nr++] = ip;
}

/* Kernel addresses across the table, and each of /proc/kallsyms' lines
 * naming a module, BPF program or trampoline ("\t[MODULE]"), and the one
 * whose name ends as name does. */
static void kernel_addresses(const struct symtab *t, const char *name, struct addresses *a,
			     uint64_t *named)
{
	char line[1024];
	FILE *f = fopen(KALLSYMS, "r");

	for (size_t i = 0; i < t->nr; i += EVERY)
		add(a, t->syms[i].start + (t->syms[i].end - t->syms[i].start) / 2);
	add(a, t->kernel_end);
	add(a, t->kernel_end + 4096);
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long ip = strtoull(line, NULL, 16);
		char *tab = strchr(line, '\t');

		if (tab)
			add(a, ip + 1);
		line[strcspn(line, "\t\n")] = '\0';
		if (name && strlen(line) > strlen(name) &&
		    !strcmp(line + strlen(line) - strlen(name), name))
			*named = ip + 1;
	}
	fclose(f);
}

/* One report's names of the addresses: "DSO SYMBOL" each, in a buffer. */
static char **names_of(const struct addresses *a)
{
	struct address_space as;
	char **names = calloc(a->nr, sizeof(*names));

	assert_non_null(names);
	symtab_cache_report_begins();
	address_space_init(&as, KALLSYMS);
	for (size_t i = 0; i < a->nr; i++) {
		struct resolved r;

		address_space_resolve(&as, 0, a->ip[i], PERF_RECORD_MISC_KERNEL, &r);
		assert_int_not_equal(asprintf(&names[i], "%s %s", r.dso, r.symbol), -1);
	}
	address_space_free(&as);
	symtab_cache_report_ends();
	return names;
}

static void names_free(char **names, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		free(names[i]);
	free(names);
}

/* A socket filter that returns 0, by that name: its image is in
 * /proc/kallsyms while fd is open (bpf_jit_kallsyms). */
static int load_bpf_program(void)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};

	return bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, BPF_NAME, "GPL", insns, 2, NULL);
}

/* A BPF program loaded between two reports (its fd), its address added to
 * a (*bpf_ip: 0 when bpf_jit_kallsyms is off). */
static int bpf_program_between(struct addresses *a, uint64_t *bpf_ip)
{
	char err[512];
	struct symtab now;
	int prog = load_bpf_program();

	if (prog < 0)
		tu_skip("cannot load a BPF program: %s", strerror(errno));
	assert_int_equal(symtab_load_kallsyms(&now, KALLSYMS, err, sizeof(err)), 0);
	kernel_addresses(&now, "_" BPF_NAME, a, bpf_ip);
	symtab_free(&now);
	if (*bpf_ip)
		add(a, *bpf_ip);
	return prog;
}

static void test_kept_table_names_as_one_read_now(void **state)
{
	struct addresses *a = calloc(1, sizeof(*a));
	struct symtab_cache_counts before, after;
	struct symtab now;
	char err[512], **kept, **fresh;
	uint64_t bpf_ip = 0;
	size_t same = 0;
	int prog;

	(void)state;
	tu_skip_unless_possible();
	assert_non_null(a);
	if (symtab_load_kallsyms(&now, KALLSYMS, err, sizeof(err)))
		tu_skip("%s", err);
	symtab_cache_configure(64u << 20, 1);
	kernel_addresses(&now, NULL, a, NULL);
	symtab_free(&now);

	/* the first report reads the table and keeps it */
	symtab_cache_counts(&before);
	names_free(names_of(a), a->nr);
	symtab_cache_counts(&after);
	assert_int_equal(after.misses - before.misses, 1);
	printf("# the kernel's table: %zu bytes kept\n", after.bytes);

	/* a BPF program comes between the reports */
	prog = bpf_program_between(a, &bpf_ip);

	symtab_cache_counts(&before);
	kept = names_of(a);
	symtab_cache_counts(&after);
	assert_int_equal(after.hits - before.hits, 1);
	assert_int_equal(after.misses - before.misses, 0);

	symtab_cache_configure(0, 1); /* nothing kept: a table read now */
	fresh = names_of(a);
	close(prog);
	for (size_t i = 0; i < a->nr; i++) {
		if (strcmp(kept[i], fresh[i]))
			fail_msg("%#llx: kept \"%s\", read now \"%s\"", (unsigned long long)a->ip[i],
				 kept[i], fresh[i]);
		same += !strstr(kept[i], "[unknown]");
	}
	printf("# %zu kernel addresses named alike (%zu with a symbol), BPF program %s\n", a->nr,
	       same, bpf_ip ? "listed" : "not listed (bpf_jit_kallsyms off)");
	assert_true(same > a->nr / 2);
	names_free(kept, a->nr);
	names_free(fresh, a->nr);
	free(a);
}

static char *read_text(const char *path)
{
	char *out = NULL;

	assert_int_equal(tu_sh(&out, "cat %s", path), 0);
	return out;
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

struct disk_fixture {
	char *dir;
	char *kptr_restrict; /* as it was, put back at the end */
};

static int disk_setup(void **state)
{
	struct disk_fixture *f = calloc(1, sizeof(*f));

	f->dir = tu_tempdir();
	*state = f;
	return 0;
}

static int disk_teardown(void **state)
{
	struct disk_fixture *f = *state;

	if (f->kptr_restrict)
		write_text("/proc/sys/kernel/kptr_restrict", f->kptr_restrict);
	kallsyms_disk_configure(NULL);
	tu_rmtree(f->dir);
	free(f->kptr_restrict);
	free(f->dir);
	free(f);
	return 0;
}

static void test_table_kept_on_disk_names_as_one_read_now(void **state)
{
	struct disk_fixture *f = *state;
	struct addresses *a = calloc(1, sizeof(*a));
	char err[512], cache[512], *out = NULL, **kept, **fresh;
	struct symtab now, t;
	uint64_t bpf_ip = 0;
	int prog;

	tu_skip_unless_possible();
	assert_non_null(a);
	if (symtab_load_kallsyms(&now, KALLSYMS, err, sizeof(err)))
		tu_skip("%s", err);
	symtab_cache_configure(0, 1);
	snprintf(cache, sizeof(cache), "%s/cache", f->dir);
	kallsyms_disk_configure(cache);
	kernel_addresses(&now, NULL, a, NULL);
	symtab_free(&now);

	/* the first report reads the table and keeps it, 0600 */
	names_free(names_of(a), a->nr);
	assert_int_equal(tu_sh(&out, "stat -c '%%a %%s' %s/kallsyms.*", cache), 0);
	printf("# the kernel's table kept on disk: mode and bytes %s", out);
	assert_int_equal(strncmp(out, "600 ", 4), 0);
	free(out);
	assert_int_equal(kallsyms_load_kept(&t, KALLSYMS), 0);
	assert_non_null(t.on_disk);
	symtab_free(&t);

	/* a BPF program comes between the reports */
	prog = bpf_program_between(a, &bpf_ip);
	kept = names_of(a);
	kallsyms_disk_configure(NULL); /* nothing kept: a table read now */
	fresh = names_of(a);
	close(prog);
	for (size_t i = 0; i < a->nr; i++)
		if (strcmp(kept[i], fresh[i]))
			fail_msg("%#llx: kept on disk \"%s\", read now \"%s\"",
				 (unsigned long long)a->ip[i], kept[i], fresh[i]);
	printf("# %zu kernel addresses named alike, BPF program %s\n", a->nr,
	       bpf_ip ? "listed" : "not listed (bpf_jit_kallsyms off)");
	names_free(kept, a->nr);
	names_free(fresh, a->nr);
	free(a);

	/* kernel.kptr_restrict=2 hides the addresses from root too: the kept
	 * table is not read (the table read now has no addresses) */
	kallsyms_disk_configure(cache);
	f->kptr_restrict = read_text("/proc/sys/kernel/kptr_restrict");
	write_text("/proc/sys/kernel/kptr_restrict", "2\n");
	assert_int_not_equal(kallsyms_load_kept(&t, KALLSYMS), 0);
	assert_null(t.on_disk);
	symtab_free(&t);
	write_text("/proc/sys/kernel/kptr_restrict", f->kptr_restrict);
	assert_int_equal(kallsyms_load_kept(&t, KALLSYMS), 0);
	assert_non_null(t.on_disk);
	symtab_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kept_table_names_as_one_read_now),
		cmocka_unit_test_setup_teardown(test_table_kept_on_disk_names_as_one_read_now,
						disk_setup, disk_teardown),
	};

	tu_set_skip_reason(tu_integration_skip_reason());
	return cmocka_run_group_tests(tests, NULL, NULL);
}
