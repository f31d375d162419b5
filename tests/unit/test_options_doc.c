/* SPDX-License-Identifier: GPL-2.0-only */
/* test_options_doc.c: the man pages and the bash completion are written from
 * the option tables: every option of every command is on its page and in the
 * completion, roff's special characters are escaped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

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
	static const char *const allowed[] = { "PERF_RECORD_LOST", "PERF_RECORD_LOST_SAMPLES" };

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pages_hold_every_option),
		cmocka_unit_test(test_pages_name_no_macro),
		cmocka_unit_test(test_completion_holds_every_option),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
