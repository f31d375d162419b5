/* SPDX-License-Identifier: GPL-2.0-only */
/* test_options_doc.c: the man pages and the bash completion are written from
 * the option tables: every option of every command is on its page, with its
 * details after its help, and in the completion, roff's special characters
 * are escaped; each group heading is named once; and no page of docs/ holds a
 * table of options again. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/options_doc.h"
#include "cli/command_options.h"

__attribute__((noinline)) static char *capture(void (*write)(FILE *out, const void *arg),
						 const void *arg)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	write(f, arg);
	fclose(f);
	return text;
}

static void write_page(FILE *out, const void *arg)
{
	options_print_man("ringtrace", "1.2.3", arg, out);
}

static void write_completion(FILE *out, const void *arg)
{
	const struct options_doc_command *docs = arg;

	options_print_completion("ringtrace", docs, nr_all_commands, out);
}

/* "--name" as roff writes it: \-\-name, every '-' escaped. */
static void roff_option(char *buf, size_t len, const char *name)
{
	size_t n = (size_t)snprintf(buf, len, "\\-\\-");

	for (const char *p = name; *p && n + 3 < len; p++) {
		if (*p == '-')
			buf[n++] = '\\';
		buf[n++] = *p;
	}
	buf[n] = '\0';
}

static void test_pages_hold_every_option(void **state)
{
	(void)state;
	for (unsigned int i = 0; i < nr_all_commands; i++) {
		struct options_doc_command doc = { all_commands[i], "a summary" };
		char *page = capture(write_page, &doc), want[128];

		snprintf(want, sizeof(want), ".TH RINGTRACE-");
		assert_non_null(strstr(page, want));
		snprintf(want, sizeof(want), "ringtrace\\-%s \\- a summary\n", all_commands[i]->name);
		if (!strstr(page, want))
			fail_msg("no NAME line %s in:\n%s", want, page);
		for (const struct options_entry *e = all_commands[i]->options;
		     e->long_name || e->short_name || e->arg_name; e++) {
			if (!e->long_name)
				continue;
			roff_option(want, sizeof(want), e->long_name);
			if (!strstr(page, want))
				fail_msg("%s is not on the page of %s", want, all_commands[i]->name);
		}
		/* no line a roff request by accident, no raw backslash */
		for (const char *p = page; (p = strchr(p, '\n')); p++)
			if (p[1] == '\'')
				fail_msg("a line starts with ': %.40s", p + 1);
		free(page);
	}
}

/* A macro named in help text where its value was meant (OPTIONS_STR of a
 * name its file does not define) reads as RT_NAME or SOME_NAME: every such
 * word on the pages is one of the record types perf prints. */
static void test_pages_name_no_macro(void **state)
{
	static const char *const allowed[] = { "PERF_RECORD_LOST", "PERF_RECORD_LOST_SAMPLES",
					       "PERF_RECORD_CGROUP" };

	(void)state;
	for (unsigned int i = 0; i < nr_all_commands; i++) {
		struct options_doc_command doc = { all_commands[i], "a summary" };
		char *page = capture(write_page, &doc);

		for (const char *p = page; *p; p++) {
			size_t n = strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
			bool known = false;

			if (n < 4 || !memchr(p, '_', n) || (p > page && strchr("_\\", p[-1]))) {
				p += n ? n - 1 : 0;
				continue;
			}
			for (size_t a = 0; a < sizeof(allowed) / sizeof(allowed[0]); a++)
				known |= strlen(allowed[a]) == n && !strncmp(p, allowed[a], n);
			if (!known)
				fail_msg("the page of %s names %.*s: a macro's name where its value was meant",
					 all_commands[i]->name, (int)n, p);
			p += n - 1;
		}
		free(page);
	}
}

/* text as roff_text writes it: '-' as \-, a backslash as \e (no '\n'). */
static void roff_plain(char *buf, size_t len, const char *text, size_t n)
{
	size_t o = 0;

	for (size_t i = 0; i < n && o + 3 < len; i++) {
		if (text[i] == '-' || text[i] == '\\')
			buf[o++] = '\\';
		buf[o++] = text[i] == '\\' ? 'e' : text[i];
	}
	buf[o] = '\0';
}

/* A row's details follow its help as paragraphs (.IP), one per line of
 * them, escaped as the help is; --help leaves them out (test_options). */
static void test_pages_show_details(void **state)
{
	static const struct options_entry rows[] = {
		{ "size", 's', "N", "the size", NULL, 1 },
		{ "plain", 0, NULL, "no details", NULL, 2 },
		{ NULL, 0, "-- CMD", "a command", NULL, 0 },
		{ 0 },
	};
	static const struct options_detail details[] = {
		{ "--size", "Rounded up to a multiple of 8, as C:\\Temp writes \"it\".\n"
			    ".dotted paragraph\n'quoted paragraph" },
		{ "-- CMD", "Run until it exits." },
		{ NULL, NULL },
	};
	static const struct options_command cmd = {
		.name = "t", .usage = "ringtrace t", .options = rows, .details = details,
	};
	struct options_doc_command doc = { &cmd, "a summary" };
	char *page = capture(write_page, &doc);

	(void)state;
	if (!strstr(page, ".TP\n\\fB\\-s\\fR, \\fB\\-\\-size\\fR \\fIN\\fR\nthe size\n"
			  ".IP\nRounded up to a multiple of 8, as C:\\eTemp writes \"it\".\n"
			  ".IP\n\\&.dotted paragraph\n"
			  ".IP\n\\&'quoted paragraph\n"
			  ".TP\n\\fB\\-\\-plain\\fR\nno details\n"
			  ".TP\n\\fB\\-\\- CMD\\fR\na command\n.IP\nRun until it exits.\n"
			  ".TP\n"))
		fail_msg("the details are not after their rows' help:\n%s", page);
	free(page);

	/* every real command's details, each paragraph on the page under its row */
	for (unsigned int i = 0; i < nr_all_commands; i++) {
		const struct options_command *c = all_commands[i];

		doc.cmd = c;
		page = capture(write_page, &doc);
		for (const struct options_entry *e = c->options;
		     e->long_name || e->short_name || e->arg_name; e++) {
			const char *text = options_detail_of(c, e), *row, *next;
			char want[1024];

			if (!text)
				continue;
			roff_plain(want, sizeof(want), e->help, strlen(e->help));
			row = strstr(page, want);
			assert_non_null(row);
			next = strstr(row, ".TP\n");
			for (const char *p = text; *p;) {
				size_t n = strcspn(p, "\n");
				const char *at;

				roff_plain(want + 4, sizeof(want) - 4, p, n);
				memcpy(want, ".IP\n", 4);
				at = strstr(row, want);
				if (!at || (next && at > next))
					fail_msg("the page of %s lacks, under %s, the paragraph\n%s",
						 c->name, e->long_name ? e->long_name : "a row", want);
				p += n + (p[n] == '\n');
			}
		}
		free(page);
	}
}

/* Whether line is a row of a markdown table whose first cell starts with an
 * option's spelling: "| `-e EVENTS` | ...", "| `--force` | ...". */
static bool option_table_row(const char *line)
{
	line += strspn(line, " ");
	if (*line != '|')
		return false;
	line++;
	line += strspn(line, " ");
	return line[0] == '`' && line[1] == '-';
}

/* The option reference exists once, in the tables above: a page of docs/
 * that lists options in a table of its own would drift from them. */
static void test_docs_hold_no_option_table(void **state)
{
	const char *src = getenv("RINGTRACE_SRC");
	char dir[4096], path[4400], line[4096];
	struct dirent *d;
	unsigned int pages = 0;
	DIR *docs;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/docs", src && *src ? src : ".");
	docs = opendir(dir);
	if (!docs)
		fail_msg("cannot open %s: run from the source tree or set RINGTRACE_SRC", dir);
	while ((d = readdir(docs))) {
		size_t len = strlen(d->d_name), nr = 0;
		FILE *f;

		if (len < 4 || strcmp(d->d_name + len - 3, ".md"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		f = fopen(path, "r");
		assert_non_null(f);
		pages++;
		while (fgets(line, sizeof(line), f)) {
			nr++;
			if (option_table_row(line))
				fail_msg("%s:%zu is a row of a table of options: its explanation "
					 "belongs in the details of the option's row in "
					 "user/cli/command_options.c (man ringtrace-CMD prints it), "
					 "the page pointing to ringtrace CMD --help:\n%s",
					 path, nr, line);
		}
		fclose(f);
	}
	closedir(docs);
	assert_true(pages > 0);
	assert_false(option_table_row("| `cpu-clock` | a software event |"));
	assert_true(option_table_row("| `-e EVENTS` | events |"));
	assert_true(option_table_row("| `--force` | reuse DIR |"));
}

static void test_completion_holds_every_option(void **state)
{
	struct options_doc_command docs[16];
	char *script;

	(void)state;
	assert_true(nr_all_commands <= 16);
	for (unsigned int i = 0; i < nr_all_commands; i++)
		docs[i] = (struct options_doc_command){ all_commands[i], "summary" };
	script = capture(write_completion, docs);
	assert_non_null(strstr(script, "complete -o filenames -F _ringtrace ringtrace\n"));
	for (unsigned int i = 0; i < nr_all_commands; i++) {
		char want[128];
		const char *start, *end;

		snprintf(want, sizeof(want), "\t%s)\n\t\topts='", all_commands[i]->name);
		start = strstr(script, want);
		assert_non_null(start);
		end = strstr(start, ";;");
		for (const struct options_entry *e = all_commands[i]->options;
		     e->long_name || e->short_name || e->arg_name; e++) {
			const char *at;

			if (!e->long_name)
				continue;
			snprintf(want, sizeof(want), "--%s", e->long_name);
			at = strstr(start, want);
			if (!at || at > end)
				fail_msg("%s of %s is not completed", want, all_commands[i]->name);
		}
	}
	free(script);
}

/* A group heading ("what:", "where:") is printed by --help and the man page
 * before each entry that names it: each group is named once in a table, by
 * its first entry, so that no heading shows twice. */
static void test_group_headings_once(void **state)
{
	(void)state;
	for (unsigned int i = 0; i < nr_all_commands; i++)
		for (const struct options_entry *e = all_commands[i]->options;
		     e->long_name || e->short_name || e->arg_name; e++)
			for (const struct options_entry *f = all_commands[i]->options; f < e && e->group;
			     f++)
				if (f->group && !strcmp(f->group, e->group))
					fail_msg("%s's options name the group \"%s\" twice (--%s and --%s): "
						 "--help would print its heading twice",
						 all_commands[i]->name, e->group,
						 f->long_name ? f->long_name : "", e->long_name ? e->long_name : "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pages_hold_every_option),
		cmocka_unit_test(test_pages_name_no_macro),
		cmocka_unit_test(test_pages_show_details),
		cmocka_unit_test(test_docs_hold_no_option_table),
		cmocka_unit_test(test_completion_holds_every_option),
		cmocka_unit_test(test_group_headings_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
