/* SPDX-License-Identifier: GPL-2.0-only */
/* test_options.c: option tables parse as their help says (short and long,
 * flags and values, errors with exit status 2), --help leaves the man page's
 * details out, details belong to rows, and for every real command each
 * option its --help lists parses to that option: help cannot drift. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <stdbool.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/option_values.h"
#include "lib/options.h"
#include "lib/spelling.h"
#include "cli/command_options.h"

#define MAX_SEEN 16
/* The longest typo of an option name tried. */
#define SPELLING_TYPO_MAX 127

enum { T_ALPHA = 1, T_ALPHABET, T_BETA, T_GAMMA, T_DELTA, T_EPSILON, T_ORDER };

static const struct options_entry test_table[] = {
	{ "alpha", 'a', "VALUE", "short and long, with a value", "values", T_ALPHA },
	{ "alphabet", 0, NULL, "makes --alph ambiguous", NULL, T_ALPHABET },
	{ "beta", 0, "N", "long only, with a value", NULL, T_BETA },
	{ NULL, 'e', "E", "short only, with a value", NULL, T_EPSILON },
	{ "gamma", 'g', NULL, "short and long flag", "flags", T_GAMMA },
	{ "delta", 0, NULL, "long-only flag\nits second line", NULL, T_DELTA },
	{ NULL, 0, "-- CMD", "a line of help only", NULL, 0 },
	{ 0 },
};

/* The man page's, never --help's. */
static const struct options_detail test_details[] = {
	{ "--alpha", "alpha's details" },
	{ "-e", "e's details" },
	{ "-- CMD", "the command's details\ntheir second paragraph" },
	{ NULL, NULL },
};

static struct options_command test_command = {
	.name = "test",
	.usage = "ringtrace test [-a VALUE] [-g]\n               [--beta N]",
	.description = "Tests the option tables.",
	.options = test_table,
	.epilog = "The end.",
	.details = test_details,
};

/* What the handler was given, and what it answers. */
struct seen {
	int nr;
	int ids[MAX_SEEN];
	const char *args[MAX_SEEN];
	int reject_id; /* answer OPTIONS_USAGE_ERROR for this id */
	int done_id;   /* answer OPTIONS_DONE for this id */
};

static int remember(void *ctx, int id, const char *arg)
{
	struct seen *s = ctx;

	assert_true(s->nr < MAX_SEEN);
	s->ids[s->nr] = id;
	s->args[s->nr++] = arg;
	if (id == s->reject_id)
		return OPTIONS_USAGE_ERROR;
	return id == s->done_id ? OPTIONS_DONE : OPTIONS_CONTINUE;
}

/* fd 1 or 2 redirected into a temporary file while a parse runs. */
struct capture {
	int fd, saved;
	FILE *file;
};

static void capture_start(struct capture *c, int fd)
{
	fflush(stdout);
	fflush(stderr);
	c->fd = fd;
	c->file = tmpfile();
	assert_non_null(c->file);
	c->saved = dup(fd);
	assert_true(c->saved >= 0);
	assert_true(dup2(fileno(c->file), fd) >= 0);
}

/* Ends the capture; what was written (caller frees). */
static char *capture_end(struct capture *c)
{
	char *text;
	long len;

	fflush(stdout);
	fflush(stderr);
	assert_true(dup2(c->saved, c->fd) >= 0);
	close(c->saved);
	len = ftell(c->file);
	assert_true(len >= 0);
	text = calloc(1, (size_t)len + 1);
	assert_non_null(text);
	rewind(c->file);
	assert_int_equal(fread(text, 1, (size_t)len, c->file), (size_t)len);
	fclose(c->file);
	return text;
}

/* options_parse over argv (NULL-terminated), its stderr kept in *err if
 * err is not NULL (caller frees). */
static int parse(const struct options_command *cmd, char **argv, struct seen *s, int *next,
		 char **err)
{
	struct capture c;
	int argc = 0, status;
	char *text;

	while (argv[argc])
		argc++;
	capture_start(&c, 2);
	status = options_parse(cmd, argc, argv, remember, s, next);
	text = capture_end(&c);
	if (err)
		*err = text;
	else
		free(text);
	return status;
}

static char *help_text(const struct options_command *cmd)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	assert_non_null(out);
	options_print_help(cmd, out);
	fclose(out);
	return text;
}

static void test_short_long_flags_and_values(void **state)
{
	char *argv[] = { "test", "-a", "one", "--beta", "2", "-g", "--delta", "--alpha=three",
			 "-e", "x", "-gafour", "--gam", "pos", NULL };
	struct seen s = { 0 };
	int next = -1;

	(void)state;
	assert_int_equal(parse(&test_command, argv, &s, &next, NULL), OPTIONS_CONTINUE);
	assert_int_equal(s.nr, 9);
	assert_int_equal(s.ids[0], T_ALPHA);
	assert_string_equal(s.args[0], "one");
	assert_int_equal(s.ids[1], T_BETA);
	assert_string_equal(s.args[1], "2");
	assert_int_equal(s.ids[2], T_GAMMA);
	assert_null(s.args[2]);
	assert_int_equal(s.ids[3], T_DELTA);
	assert_null(s.args[3]);
	assert_int_equal(s.ids[4], T_ALPHA);
	assert_string_equal(s.args[4], "three");
	assert_int_equal(s.ids[5], T_EPSILON);
	assert_string_equal(s.args[5], "x");
	assert_int_equal(s.ids[6], T_GAMMA); /* -gafour: a flag, then -a four */
	assert_int_equal(s.ids[7], T_ALPHA);
	assert_string_equal(s.args[7], "four");
	assert_int_equal(s.ids[8], T_GAMMA); /* --gam: an unambiguous abbreviation */
	assert_int_equal(next, 12);
	assert_string_equal(argv[next], "pos");
}

static void test_positionals_and_stop_at_first(void **state)
{
	char *permuted[] = { "test", "pos", "-g", NULL };
	char *stopped[] = { "test", "pos", "-g", NULL };
	char *dashes[] = { "test", "-g", "--", "-a", NULL };
	struct seen s = { 0 };
	int next = -1;

	(void)state;
	/* by default options may follow the positional arguments */
	assert_int_equal(parse(&test_command, permuted, &s, &next, NULL), OPTIONS_CONTINUE);
	assert_int_equal(s.nr, 1);
	assert_int_equal(s.ids[0], T_GAMMA);
	assert_int_equal(next, 2);
	assert_string_equal(permuted[next], "pos");

	/* '+': the first non-option ends them, and a second parse starts afresh */
	test_command.stop_at_positional = true;
	memset(&s, 0, sizeof(s));
	assert_int_equal(parse(&test_command, stopped, &s, &next, NULL), OPTIONS_CONTINUE);
	test_command.stop_at_positional = false;
	assert_int_equal(s.nr, 0);
	assert_int_equal(next, 1);

	memset(&s, 0, sizeof(s));
	assert_int_equal(parse(&test_command, dashes, &s, &next, NULL), OPTIONS_CONTINUE);
	assert_int_equal(s.nr, 1);
	assert_int_equal(next, 3);
	assert_string_equal(dashes[next], "-a");
}

/* A value in brackets may be left out, as perf's -g: the next word is the
 * value unless it starts with '-' (then read as an option) or there is none. */
static void test_value_that_may_be_left_out(void **state)
{
	static const struct options_entry table[] = {
		{ "order", 'o', "[ORDER]", "a value that may be left out", NULL, T_ORDER },
		{ "gamma", 'g', NULL, "a flag", NULL, T_GAMMA },
		{ "fields", 'F', "[TYPE:]FIELDS", "a value, part of which may be left out", NULL,
		  T_ALPHA },
		{ 0 },
	};
	const struct options_command cmd = { .name = "opt", .usage = "ringtrace opt", .options = table };
	char *argv[] = { "opt", "-o", "caller", "-o", "-g", "pos", "--order", "--order=callee",
			 "-ocallee", "-F", "-comm", "-o", NULL };
	char *empty[] = { "opt", "--order=", NULL };
	struct seen s = { 0 };
	char *err = NULL;
	int next = -1;

	(void)state;
	assert_int_equal(parse(&cmd, argv, &s, &next, NULL), OPTIONS_CONTINUE);
	assert_int_equal(s.nr, 8);
	assert_int_equal(s.ids[0], T_ORDER);
	assert_string_equal(s.args[0], "caller");
	assert_int_equal(s.ids[1], T_ORDER); /* before an option: left out */
	assert_null(s.args[1]);
	assert_int_equal(s.ids[2], T_GAMMA); /* and that option read */
	assert_int_equal(s.ids[3], T_ORDER); /* --order before --order=callee */
	assert_null(s.args[3]);
	assert_string_equal(s.args[4], "callee");
	assert_string_equal(s.args[5], "callee");
	assert_int_equal(s.ids[6], T_ALPHA); /* a value that starts with '-' all the same */
	assert_string_equal(s.args[6], "-comm");
	assert_int_equal(s.ids[7], T_ORDER); /* last: left out */
	assert_null(s.args[7]);
	assert_string_equal(argv[next], "pos");
	memset(&s, 0, sizeof(s));
	assert_int_equal(parse(&cmd, empty, &s, &next, &err), OPTIONS_USAGE_ERROR);
	assert_non_null(strstr(err, "not an empty one"));
	free(err);
}

static void test_getopt_arguments_built_from_the_table(void **state)
{
	struct options_getopt g;
	const struct option *o;
	int found = 0;

	(void)state;
	assert_int_equal(options_getopt_build(&test_command, &g), 0);
	assert_string_equal(g.short_options, ":a:e:gh");
	for (o = g.long_options; o->name; o++) {
		if (!strcmp(o->name, "alpha")) {
			assert_int_equal(o->has_arg, required_argument);
			assert_int_equal(o->val, 'a');
		} else if (!strcmp(o->name, "beta")) {
			assert_int_equal(o->has_arg, required_argument);
			assert_int_equal(o->val, 256 + 2);
		} else if (!strcmp(o->name, "gamma")) {
			assert_int_equal(o->has_arg, no_argument);
			assert_int_equal(o->val, 'g');
		} else if (!strcmp(o->name, "delta") || !strcmp(o->name, "alphabet")) {
			assert_int_equal(o->has_arg, no_argument);
		} else {
			assert_string_equal(o->name, "help");
			assert_int_equal(o->val, 'h');
		}
		found++;
	}
	assert_int_equal(found, 6);

	test_command.stop_at_positional = true;
	assert_int_equal(options_getopt_build(&test_command, &g), 0);
	test_command.stop_at_positional = false;
	assert_string_equal(g.short_options, "+:a:e:gh");
}

static void test_help_lists_every_option(void **state)
{
	char *argv[] = { "test", "-g", "--help", "-a", "1", NULL };
	struct seen s = { 0 };
	struct capture c;
	char *out;
	int status;

	(void)state;
	capture_start(&c, 1);
	status = options_parse(&test_command, 5, argv, remember, &s, NULL);
	out = capture_end(&c);
	assert_int_equal(status, OPTIONS_DONE);
	assert_int_equal(options_exit_status(status), 0);
	assert_int_equal(s.nr, 1); /* nothing after --help is taken */
	assert_string_equal(out, "usage: ringtrace test [-a VALUE] [-g]\n"
				 "                      [--beta N]\n"
				 "\n"
				 "Tests the option tables.\n"
				 "\n"
				 "values:\n"
				 "  -a, --alpha VALUE  short and long, with a value\n"
				 "      --alphabet     makes --alph ambiguous\n"
				 "      --beta N       long only, with a value\n"
				 "  -e E               short only, with a value\n"
				 "flags:\n"
				 "  -g, --gamma        short and long flag\n"
				 "      --delta        long-only flag\n"
				 "                     its second line\n"
				 "  -- CMD             a line of help only\n"
				 "  -h, --help         show this help\n"
				 "\n"
				 "The end.\n");
	free(out);

	capture_start(&c, 1);
	status = options_parse(&test_command, 2, (char *[]){ "test", "-h", NULL }, remember, &s,
			       NULL);
	out = capture_end(&c);
	assert_int_equal(status, OPTIONS_DONE);
	assert_non_null(strstr(out, "  -a, --alpha VALUE"));
	free(out);
}

static void test_help_wraps_long_text(void **state)
{
	static const struct options_entry wide[] = {
		{ "words", 'w', NULL,
		  "one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
		  "fifteen sixteen seventeen eighteen nineteen twenty",
		  NULL, 1 },
		{ "a-name-too-long-for-the-column", 0, "ARG", "text after two spaces", NULL, 2 },
		{ 0 },
	};
	const struct options_command cmd = { .name = "wide", .usage = "ringtrace wide",
					     .options = wide };
	char *help = help_text(&cmd);

	(void)state;
	assert_string_equal(help,
			    "usage: ringtrace wide\n"
			    "\n"
			    "  -w, --words  one two three four five six seven eight nine ten eleven twelve\n"
			    "               thirteen fourteen fifteen sixteen seventeen eighteen nineteen\n"
			    "               twenty\n"
			    "      --a-name-too-long-for-the-column ARG  text after two spaces\n"
			    "  -h, --help   show this help\n");
	free(help);
}

static void test_missing_value_is_a_usage_error(void **state)
{
	struct seen s = { 0 };
	char *err;
	int status;

	(void)state;
	status = parse(&test_command, (char *[]){ "test", "-g", "--alpha", NULL }, &s, NULL, &err);
	assert_int_equal(status, OPTIONS_USAGE_ERROR);
	assert_int_equal(options_exit_status(status), 2);
	assert_string_equal(err, "ringtrace: option --alpha needs a value: see ringtrace test --help\n");
	free(err);

	status = parse(&test_command, (char *[]){ "test", "-a", NULL }, &s, NULL, &err);
	assert_int_equal(status, OPTIONS_USAGE_ERROR);
	assert_string_equal(err, "ringtrace: option -a needs a value: see ringtrace test --help\n");
	free(err);

	status = parse(&test_command, (char *[]){ "test", "--beta", NULL }, &s, NULL, &err);
	assert_int_equal(status, OPTIONS_USAGE_ERROR);
	assert_string_equal(err, "ringtrace: option --beta needs a value: see ringtrace test --help\n");
	free(err);

	/* an empty value is no value */
	status = parse(&test_command, (char *[]){ "test", "-a", "", NULL }, &s, NULL, &err);
	assert_int_equal(status, OPTIONS_USAGE_ERROR);
	assert_string_equal(err, "ringtrace: option --alpha needs a value, not an empty one: see ringtrace test --help\n");
	free(err);

	status = parse(&test_command, (char *[]){ "test", "-e", "", NULL }, &s, NULL, &err);
	assert_int_equal(status, OPTIONS_USAGE_ERROR);
	assert_string_equal(err, "ringtrace: option -e needs a value, not an empty one: see ringtrace test --help\n");
	free(err);
}

static void test_unknown_option_is_a_usage_error(void **state)
{
	static const struct {
		const char *arg, *shown, *near;
	} cases[] = {
		{ "--bogus", "--bogus", NULL },
		{ "-z", "-z", NULL },
		{ "-gz", "-z", NULL },
		{ "--delta=1", "--delta=1", NULL }, /* a flag given a value */
		{ "--alph", "--alph", "--alpha" },   /* ambiguous: --alpha or --alphabet */
		{ "--detla", "--detla", "--delta" }, /* mistyped */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *argv[] = { "test", (char *)cases[i].arg, "-a", "1", NULL }, *err, want[200];
		struct seen s = { 0 };
		int status = parse(&test_command, argv, &s, NULL, &err);

		if (cases[i].near)
			snprintf(want, sizeof(want),
				 "ringtrace: unknown option %s: did you mean %s? (see ringtrace test --help)\n",
				 cases[i].shown, cases[i].near);
		else
			snprintf(want, sizeof(want), "ringtrace: unknown option %s: see ringtrace test --help\n",
				 cases[i].shown);
		assert_int_equal(status, OPTIONS_USAGE_ERROR);
		assert_string_equal(err, want);
		assert_true(s.nr <= 1); /* parsing stopped there */
		free(err);
	}
}

static void test_handler_stops_the_parse(void **state)
{
	char *argv[] = { "test", "--beta", "bad", "-g", NULL };
	struct seen s = { .reject_id = T_BETA };
	int status;

	(void)state;
	status = parse(&test_command, argv, &s, NULL, NULL);
	assert_int_equal(status, OPTIONS_USAGE_ERROR);
	assert_int_equal(options_exit_status(status), 2);
	assert_int_equal(s.nr, 1);

	memset(&s, 0, sizeof(s));
	s.done_id = T_GAMMA;
	status = parse(&test_command, argv, &s, NULL, NULL);
	assert_int_equal(status, OPTIONS_DONE);
	assert_int_equal(options_exit_status(status), 0);
	assert_int_equal(s.nr, 2);
}

static void test_check_refuses_unsound_tables(void **state)
{
	static const struct options_entry twice_short[] = {
		{ "one", 'x', NULL, "1", NULL, 1 }, { "two", 'x', NULL, "2", NULL, 2 }, { 0 },
	};
	static const struct options_entry twice_long[] = {
		{ "one", 0, NULL, "1", NULL, 1 }, { "one", 'o', "V", "2", NULL, 2 }, { 0 },
	};
	static const struct options_entry takes_h[] = { { "hop", 'h', NULL, "1", NULL, 1 }, { 0 } };
	static const struct options_entry takes_help[] = { { "help", 0, NULL, "1", NULL, 1 }, { 0 } };
	static const struct options_entry no_help[] = { { "mute", 'm', NULL, NULL, NULL, 1 }, { 0 } };
	static const struct options_entry *bad[] = { twice_short, twice_long, takes_h, takes_help,
						     no_help };
	char err[256];

	(void)state;
	assert_int_equal(options_check(&test_command, err, sizeof(err)), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct options_command cmd = { .name = "bad", .usage = "u", .options = bad[i] };

		err[0] = '\0';
		assert_int_equal(options_check(&cmd, err, sizeof(err)), -EINVAL);
		assert_true(strlen(err) > 0);
	}
}

/* A row's details are found by the row's spelling ("--long", "-x" for a
 * letter alone, a help row's text); a detail about no row, twice or empty
 * makes the table unsound. */
static void test_details_belong_to_rows(void **state)
{
	static const struct options_detail about_no_row[] = { { "--nope", "x" }, { NULL, NULL } };
	static const struct options_detail by_letter[] = { { "-a", "x" }, { NULL, NULL } };
	static const struct options_detail twice[] = {
		{ "--beta", "x" }, { "--beta", "y" }, { NULL, NULL },
	};
	static const struct options_detail empty[] = { { "--beta", "" }, { NULL, NULL } };
	static const struct options_detail *bad[] = { about_no_row, by_letter, twice, empty };
	char err[256];

	(void)state;
	assert_string_equal(options_detail_of(&test_command, &test_table[0]), "alpha's details");
	assert_string_equal(options_detail_of(&test_command, &test_table[3]), "e's details");
	assert_string_equal(options_detail_of(&test_command, &test_table[6]),
			    "the command's details\ntheir second paragraph");
	assert_null(options_detail_of(&test_command, &test_table[1])); /* --alphabet */
	assert_null(options_detail_of(&test_command, &test_table[4]));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct options_command cmd = test_command;

		cmd.details = bad[i];
		err[0] = '\0';
		assert_int_equal(options_check(&cmd, err, sizeof(err)), -EINVAL);
		assert_non_null(strstr(err, bad[i][0].option));
	}
}

static void test_option_values(void **state)
{
	struct capture c;
	uint64_t v = 0;
	char *err;

	(void)state;
	assert_int_equal(option_parse_u64("-F", "99", 1, 100, &v), 0);
	assert_int_equal(v, 99);
	assert_int_equal(option_parse_size("--staging-size", "8M", 1, 1ULL << 34, &v), 0);
	assert_int_equal(v, 8u << 20);
	assert_int_equal(option_parse_size("--staging-size", "64kb", 1, 1ULL << 34, &v), 0);
	assert_int_equal(v, 64u << 10);
	assert_int_equal(option_parse_duration("--off-cpu-min", "500us", 1000000000, &v), 0);
	assert_int_equal(v, 500000);
	assert_int_equal(option_parse_duration("--off-cpu-min", "1ms", 1000000000, &v), 0);
	assert_int_equal(v, 1000000);
	assert_int_equal(option_parse_duration("--off-cpu-min", "2s", 3000000000ULL, &v), 0);
	assert_int_equal(v, 2000000000ULL);
	assert_int_equal(option_parse_duration("--off-cpu-min", "0", 1000, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(option_parse_duration("--off-cpu-min", "7ns", 1000, &v), 0);
	assert_int_equal(v, 7);
	capture_start(&c, 2);
	/* a bare number (whose unit?), an unknown unit, too long, not a number */
	assert_int_equal(option_parse_duration("--off-cpu-min", "5", 1000000000, &v), -EINVAL);
	assert_int_equal(option_parse_duration("--off-cpu-min", "5m", 1000000000, &v), -EINVAL);
	assert_int_equal(option_parse_duration("--off-cpu-min", "2s", 1000000000, &v), -EINVAL);
	assert_int_equal(option_parse_duration("--off-cpu-min", "ms", 1000000000, &v), -EINVAL);
	assert_int_equal(option_parse_duration("--off-cpu-min", "-1ms", 1000000000, &v), -EINVAL);
	assert_int_equal(option_parse_duration("--off-cpu-min", "99999999999999999999ns",
					       UINT64_MAX, &v), -EINVAL);
	assert_int_equal(option_parse_u64("-F", "101", 1, 100, &v), -EINVAL);
	assert_int_equal(option_parse_u64("-F", "-1", 1, 100, &v), -EINVAL);
	assert_int_equal(option_parse_u64("-F", "1x", 1, 100, &v), -EINVAL);
	assert_int_equal(option_parse_size("-S", "2T", 1, 1ULL << 34, &v), -EINVAL);
	err = capture_end(&c);
	assert_non_null(strstr(err, "ringtrace: invalid value \"101\" for -F: "
				    "expected a number from 1 to 100\n"));
	assert_non_null(strstr(err, "ringtrace: invalid size \"2T\" for -S"));
	assert_non_null(strstr(err, "ringtrace: invalid duration \"5\" for --off-cpu-min: expected a number and its unit (ns, us, ms, s)"));
	free(err);
}

/* An option as --help shows it: "  -e, --event EVENTS  text" or
 * "      --force  text"; false for other lines. */
static bool help_line_option(const char *line, char *short_name, char *long_name, size_t len,
			     bool *takes_value)
{
	const char *p;
	size_t n;

	*short_name = 0;
	if (!strncmp(line, "  -", 3) && isalnum((unsigned char)line[3]) &&
	    (line[4] == ',' || line[4] == ' ' || line[4] == '\n')) {
		*short_name = line[3];
		p = line[4] == ',' ? line + 6 : NULL;
		if (!p) {
			long_name[0] = '\0';
			*takes_value = line[4] == ' ' && line[5] != ' ';
			return true;
		}
	} else if (!strncmp(line, "      --", 8)) {
		p = line + 6;
	} else {
		return false;
	}
	assert_true(!strncmp(p, "--", 2));
	p += 2;
	n = strcspn(p, " \n");
	assert_true(n > 0 && n < len);
	memcpy(long_name, p, n);
	long_name[n] = '\0';
	*takes_value = p[n] == ' ' && p[n + 1] != ' ' && p[n + 1] != '\n';
	return true;
}

/* The row of cmd's table named so. */
static const struct options_entry *row_of(const struct options_command *cmd, char short_name,
					  const char *long_name)
{
	for (const struct options_entry *e = cmd->options; e->long_name || e->short_name ||
							    e->arg_name; e++)
		if (long_name[0] ? e->long_name && !strcmp(e->long_name, long_name) :
				   e->short_name == short_name)
			return e;
	return NULL;
}

/* Parses "ringtrace CMD OPTION [VALUE]": exactly that option, with that value. */
static void expect_parses(const struct options_command *cmd, const char *option,
			  bool takes_value, const struct options_entry *row)
{
	char *argv[] = { (char *)cmd->name, (char *)option, takes_value ? "VALUE" : NULL, NULL };
	struct seen s = { 0 };
	char *err;
	int next = -1, status = parse(cmd, argv, &s, &next, &err);

	if (status != OPTIONS_CONTINUE || s.nr != 1 || s.ids[0] != row->id ||
	    next != (takes_value ? 3 : 2) ||
	    (takes_value ? !s.args[0] || strcmp(s.args[0], "VALUE") : s.args[0] != NULL))
		fail_msg("ringtrace %s %s%s: status %d, %d options, next %d: %s", cmd->name, option,
			 takes_value ? " VALUE" : "", status, s.nr, next, err);
	free(err);
}

static void test_real_commands_parse_what_their_help_lists(void **state)
{
	(void)state;
	assert_int_equal(nr_all_commands, 8);
	for (unsigned int i = 0; i < nr_all_commands; i++) {
		const struct options_command *cmd = all_commands[i];
		const struct options_entry *e, *f;
		char err[256], *help = help_text(cmd), *line;
		unsigned int rows = 0, listed = 0;
		bool help_listed = false;

		if (options_check(cmd, err, sizeof(err)))
			fail_msg("the table of %s: %s", cmd->name, err);
		for (e = cmd->options; e->long_name || e->short_name || e->arg_name; e++) {
			if (!e->long_name && !e->short_name)
				continue;
			rows++;
			assert_true(e->id > 0);
			for (f = cmd->options; f != e; f++)
				if (f->long_name || f->short_name)
					assert_int_not_equal(f->id, e->id);
		}
		assert_true(!strncmp(help, "usage: ringtrace ", 17));
		for (line = help; *line; line = strchr(line, '\n') + 1) {
			char short_name, long_name[64], option[80];
			bool takes_value;

			if (!help_line_option(line, &short_name, long_name, sizeof(long_name),
					      &takes_value))
				continue;
			if (!strcmp(long_name, "help")) {
				assert_int_equal(short_name, 'h');
				help_listed = true;
				continue;
			}
			e = row_of(cmd, short_name, long_name);
			if (!e)
				fail_msg("ringtrace %s --help lists -%c/--%s, which is not in its table",
					 cmd->name, short_name ? short_name : '?', long_name);
			listed++;
			if (long_name[0]) {
				snprintf(option, sizeof(option), "--%s", long_name);
				expect_parses(cmd, option, takes_value, e);
			}
			if (short_name) {
				snprintf(option, sizeof(option), "-%c", short_name);
				expect_parses(cmd, option, takes_value, e);
			}
		}
		if (!help_listed || listed != rows)
			fail_msg("ringtrace %s --help lists %u of its %u options%s:\n%s", cmd->name,
				 listed, rows, help_listed ? "" : ", not --help", help);
		free(help);
	}
}

/* Whether word is a long option of cmd or the start of one (getopt_long takes
 * an abbreviation that names one option, as perf does). */
static bool is_long_or_prefix(const struct options_command *cmd, const char *word)
{
	for (const struct options_entry *e = cmd->options;
	     e->long_name || e->short_name || e->arg_name; e++)
		if (e->long_name && !strncmp(e->long_name, word, strlen(word)))
			return true;
	return false;
}

/* The typo "--typo" of --name is one line saying "did you mean --X?", X
 * as near to it as name is (one edit), through options_parse. Returns
 * whether it was checked (a typo that is an option or the start of one is
 * not a typo). */
static bool typo_is_named(const struct options_command *cmd, const char *name, const char *typo)
{
	char arg[SPELLING_TYPO_MAX + 3], *argv[] = { (char *)cmd->name, arg, NULL }, *err, *near,
	     suggested[SPELLING_TYPO_MAX + 1];
	struct seen s = { 0 };
	int status;

	if (is_long_or_prefix(cmd, typo))
		return false;
	snprintf(arg, sizeof(arg), "--%s", typo);
	status = parse(cmd, argv, &s, NULL, &err);
	if (status != OPTIONS_USAGE_ERROR || !(near = strstr(err, "did you mean --")) ||
	    sscanf(near, "did you mean --%127[^?]?", suggested) != 1 ||
	    spelling_distance(typo, suggested) > 1)
		fail_msg("ringtrace %s --%s (for --%s): %d, %s", cmd->name, typo, name, status, err);
	assert_int_equal(strchr(err, '\n') - err + 1, (long)strlen(err)); /* one line */
	free(err);
	return true;
}

/* Every long option of every command, mistyped by one letter dropped, one
 * added (each letter, '-' and a digit, anywhere) or two neighbours swapped:
 * each typo gets "did you mean" naming that option, or one as near. */
static void test_every_typo_of_every_option_is_named(void **state)
{
	static const char added[] = "abcdefghijklmnopqrstuvwxyz-0";
	unsigned int checked = 0;

	(void)state;
	for (unsigned int i = 0; i < nr_all_commands; i++) {
		const struct options_command *cmd = all_commands[i];

		for (const struct options_entry *e = cmd->options;
		     e->long_name || e->short_name || e->arg_name; e++) {
			const char *name = e->long_name;
			size_t len = name ? strlen(name) : 0;
			char typo[SPELLING_TYPO_MAX + 1];

			if (!name)
				continue;
			assert_true(len < SPELLING_TYPO_MAX);
			for (size_t at = 0; at < len; at++) {
				/* dropped */
				snprintf(typo, sizeof(typo), "%.*s%s", (int)at, name, name + at + 1);
				checked += typo_is_named(cmd, name, typo);
				/* swapped with the next */
				if (at + 1 < len && name[at] != name[at + 1]) {
					snprintf(typo, sizeof(typo), "%s", name);
					typo[at] = name[at + 1];
					typo[at + 1] = name[at];
					checked += typo_is_named(cmd, name, typo);
				}
			}
			/* added */
			for (size_t at = 0; at <= len; at++)
				for (const char *c = added; *c; c++) {
					snprintf(typo, sizeof(typo), "%.*s%c%s", (int)at, name, *c,
						 name + at);
					checked += typo_is_named(cmd, name, typo);
				}
		}
	}
	print_message("%u typos named\n", checked);
	assert_true(checked > 10000);
}

/* A mistyped command is named too, from the same tables. */
static void test_typo_of_a_command_is_named(void **state)
{
	(void)state;
	assert_string_equal(options_nearest_command(all_commands, nr_all_commands, "reprot"),
			    "report");
	assert_string_equal(options_nearest_command(all_commands, nr_all_commands, "recrod"),
			    "record");
	assert_string_equal(options_nearest_command(all_commands, nr_all_commands, "trac"),
			    "trace");
	assert_null(options_nearest_command(all_commands, nr_all_commands, "frobnicate"));
	for (unsigned int i = 0; i < nr_all_commands; i++) {
		const char *name = all_commands[i]->name;
		char typo[64];

		snprintf(typo, sizeof(typo), "%sx", name);
		assert_string_equal(options_nearest_command(all_commands, nr_all_commands, typo),
				    name);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_short_long_flags_and_values),
		cmocka_unit_test(test_positionals_and_stop_at_first),
		cmocka_unit_test(test_value_that_may_be_left_out),
		cmocka_unit_test(test_getopt_arguments_built_from_the_table),
		cmocka_unit_test(test_help_lists_every_option),
		cmocka_unit_test(test_help_wraps_long_text),
		cmocka_unit_test(test_missing_value_is_a_usage_error),
		cmocka_unit_test(test_unknown_option_is_a_usage_error),
		cmocka_unit_test(test_handler_stops_the_parse),
		cmocka_unit_test(test_check_refuses_unsound_tables),
		cmocka_unit_test(test_details_belong_to_rows),
		cmocka_unit_test(test_option_values),
		cmocka_unit_test(test_real_commands_parse_what_their_help_lists),
		cmocka_unit_test(test_every_typo_of_every_option_is_named),
		cmocka_unit_test(test_typo_of_a_command_is_named),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
