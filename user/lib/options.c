/* SPDX-License-Identifier: GPL-2.0-only */
/* options.c: turns a command's option table into getopt_long's arguments and
 * its --help text, runs the one parsing loop every command shares, and checks
 * the table (and the man page's details beside it) is sound. */
#include "lib/options.h"

#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "lib/log.h"
#include "lib/spelling.h"

#define LONG_ONLY_BASE 256 /* getopt_long's value for row i without a letter: 256 + i */
#define HELP_WIDTH 79      /* the longest line of help */
#define NAME_COLUMN_MAX 24 /* a longer name is followed by its text, not aligned */
#define USAGE_PREFIX "usage: "

static const struct options_entry help_entry = {
	.long_name = "help", .short_name = 'h', .help = "show this help",
};

static bool is_end(const struct options_entry *e)
{
	return !e->long_name && !e->short_name && !e->arg_name;
}

static bool is_option(const struct options_entry *e)
{
	return e->long_name || e->short_name;
}

/* Whether an option's value may be left out: its name is all in brackets
 * ("[MODE]"; "[TYPE:]FIELDS" is a value with a part that may be left out). */
static bool value_optional(const struct options_entry *e)
{
	size_t n = e->arg_name ? strlen(e->arg_name) : 0;

	return n > 2 && e->arg_name[0] == '[' && e->arg_name[n - 1] == ']' &&
	       !strchr(e->arg_name + 1, '[') && strchr(e->arg_name, ']') == e->arg_name + n - 1;
}

int options_getopt_build(const struct options_command *cmd, struct options_getopt *g)
{
	struct option *lo = g->long_options;
	char *s = g->short_options;

	if (cmd->stop_at_positional)
		*s++ = '+';
	*s++ = ':'; /* a missing value returns ':', an unknown option '?' */
	for (size_t i = 0; !is_end(&cmd->options[i]); i++) {
		const struct options_entry *e = &cmd->options[i];

		if (i == OPTIONS_MAX)
			return -E2BIG;
		if (e->short_name) {
			*s++ = e->short_name;
			if (e->arg_name)
				*s++ = ':';
		}
		if (e->long_name)
			*lo++ = (struct option){
				.name = e->long_name,
				.has_arg = e->arg_name ? required_argument : no_argument,
				.val = e->short_name ? e->short_name : LONG_ONLY_BASE + (int)i,
			};
	}
	*s++ = help_entry.short_name;
	*s = '\0';
	*lo++ = (struct option){ .name = help_entry.long_name, .val = help_entry.short_name };
	*lo = (struct option){ 0 };
	return 0;
}

/* The row getopt_long's return value c stands for, or NULL. */
static const struct options_entry *entry_of(const struct options_command *cmd, int c)
{
	const struct options_entry *e;

	if (c >= LONG_ONLY_BASE)
		return &cmd->options[c - LONG_ONLY_BASE];
	for (e = cmd->options; !is_end(e); e++)
		if (e->short_name && e->short_name == c)
			return e;
	return NULL;
}

const char *options_nearest_long(const struct options_command *cmd, const char *rejected)
{
	static struct spelling s;
	char word[SPELLING_MAX_LEN + 1];

	if (strncmp(rejected, "--", 2))
		return NULL;
	snprintf(word, sizeof(word), "%.*s", (int)strcspn(rejected + 2, "="), rejected + 2);
	spelling_init(&s, word);
	/* every row to the end: a row of help text ("-- CMD ARGS") is not it */
	for (const struct options_entry *e = cmd->options; e && !is_end(e); e++)
		spelling_offer(&s, e->long_name);
	return spelling_best(&s);
}

const char *options_nearest_command(const struct options_command *const *cmds, unsigned int n,
				    const char *word)
{
	static struct spelling s;

	spelling_init(&s, word);
	for (unsigned int i = 0; i < n; i++)
		spelling_offer(&s, cmds[i]->name);
	return spelling_best(&s);
}

int options_parse(const struct options_command *cmd, int argc, char **argv,
		  options_handler *handle, void *ctx, int *first_positional)
{
	struct options_getopt g;
	int c, status;

	if (options_getopt_build(cmd, &g)) {
		rt_error("the option table of %s has more than %d rows", cmd->name, OPTIONS_MAX);
		return OPTIONS_USAGE_ERROR;
	}
	opterr = 0;
	optind = 0; /* not 1: glibc then starts afresh, '+' and its permutation included */
	while ((c = getopt_long(argc, argv, g.short_options, g.long_options, NULL)) != -1) {
		const struct options_entry *e;
		const char *value = optarg;

		if (c == help_entry.short_name) {
			options_print_help(cmd, stdout);
			return OPTIONS_DONE;
		}
		/* a value that may be left out, left out last */
		if (c == ':' && (e = entry_of(cmd, optopt)) && value_optional(e)) {
			status = handle(ctx, e->id, NULL);
			if (status != OPTIONS_CONTINUE)
				return status;
			continue;
		}
		if (c == ':') {
			rt_error("option %s needs a value: see ringtrace %s --help",
				 options_rejected(argv), cmd->name);
			return OPTIONS_USAGE_ERROR;
		}
		e = c == '?' ? NULL : entry_of(cmd, c);
		if (!e) {
			const char *near = options_nearest_long(cmd, options_rejected(argv));

			if (near)
				rt_error("unknown option %s: did you mean --%s? (see ringtrace %s --help)",
					 options_rejected(argv), near, cmd->name);
			else
				rt_error("unknown option %s: see ringtrace %s --help",
					 options_rejected(argv), cmd->name);
			return OPTIONS_USAGE_ERROR;
		}
		/* a value that may be left out, left out before an option: that
		 * word is read again, as an option */
		if (value_optional(e) && optarg && optarg == argv[optind - 1] && optarg[0] == '-') {
			optind--;
			value = NULL;
		}
		/* no option takes an empty value: "-G ''" is a mistake, not "none" */
		if (e->arg_name && value && !*value) {
			if (e->long_name)
				rt_error("option --%s needs a value, not an empty one: see ringtrace %s --help",
					 e->long_name, cmd->name);
			else
				rt_error("option -%c needs a value, not an empty one: see ringtrace %s --help",
					 e->short_name, cmd->name);
			return OPTIONS_USAGE_ERROR;
		}
		status = handle(ctx, e->id, e->arg_name ? value : NULL);
		if (status != OPTIONS_CONTINUE)
			return status;
	}
	if (first_positional)
		*first_positional = optind;
	return OPTIONS_CONTINUE;
}

int options_exit_status(int result)
{
	return result == OPTIONS_DONE ? 0 : result;
}

const char *options_rejected(char **argv)
{
	static char shortopt[3];
	const char *last = optind > 0 ? argv[optind - 1] : "";

	if (!strncmp(last, "--", 2))
		return last;
	if (optopt) {
		snprintf(shortopt, sizeof(shortopt), "-%c", optopt);
		return shortopt;
	}
	return argv[optind - 1];
}

/* Prints text starting at column col, words wrapped at HELP_WIDTH; each line
 * after the first starts at column indent, followed by the spaces that begin
 * its line in text ('\n' starts one). Ends with a newline. */
static void print_wrapped(FILE *out, const char *text, size_t col, size_t indent)
{
	const char *p = text ? text : "";
	size_t pad = 0;

	for (;;) {
		bool first_word = true;

		while (*p && *p != '\n') {
			size_t spaces = strspn(p, " "), word;

			p += spaces;
			if (!*p || *p == '\n')
				break;
			word = strcspn(p, " \n");
			if (first_word) {
				col += fprintf(out, "%*s", (int)(pad + spaces), "");
			} else if (col + 1 + word > HELP_WIDTH) {
				col = fprintf(out, "\n%*s", (int)indent, "") - 1;
			} else {
				fputc(' ', out);
				col++;
			}
			fwrite(p, 1, word, out);
			col += word;
			p += word;
			first_word = false;
		}
		fputc('\n', out);
		if (*p != '\n' || !p[1])
			return;
		p++;
		col = 0;
		pad = indent;
	}
}

/* "  -e, --event EVENTS", "      --force", "  -- CMD ARGS" into buf; its length. */
static size_t format_names(const struct options_entry *e, char *buf, size_t len)
{
	const char *sep = e->arg_name ? " " : "", *arg = e->arg_name ? e->arg_name : "";
	int n;

	if (!is_option(e))
		n = snprintf(buf, len, "  %s", arg);
	else if (e->short_name && e->long_name)
		n = snprintf(buf, len, "  -%c, --%s%s%s", e->short_name, e->long_name, sep, arg);
	else if (e->long_name)
		n = snprintf(buf, len, "      --%s%s%s", e->long_name, sep, arg);
	else
		n = snprintf(buf, len, "  -%c%s%s", e->short_name, sep, arg);
	return n < 0 ? 0 : (size_t)n >= len ? len - 1 : (size_t)n;
}

static void print_entry(FILE *out, const struct options_entry *e, size_t column)
{
	char names[256];
	size_t col = format_names(e, names, sizeof(names));

	fputs(names, out);
	col += fprintf(out, "%*s", (int)(col + 2 <= column ? column - col : 2), "");
	print_wrapped(out, e->help, col, column);
}

void options_print_help(const struct options_command *cmd, FILE *out)
{
	const struct options_entry *e;
	const char *line = cmd->usage ? cmd->usage : "";
	char names[256];
	size_t column = format_names(&help_entry, names, sizeof(names));

	fputs(USAGE_PREFIX, out);
	for (;;) {
		size_t len = strcspn(line, "\n");

		fprintf(out, "%.*s\n", (int)len, line);
		if (!line[len] || !line[len + 1])
			break;
		line += len + 1;
		fprintf(out, "%*s", (int)strlen(USAGE_PREFIX), "");
	}
	if (cmd->description) {
		fputc('\n', out);
		print_wrapped(out, cmd->description, 0, 0);
	}
	for (e = cmd->options; !is_end(e); e++) {
		size_t width = format_names(e, names, sizeof(names));

		if (width <= NAME_COLUMN_MAX && width > column)
			column = width;
	}
	column += 2;
	fputc('\n', out);
	for (e = cmd->options; !is_end(e); e++) {
		if (e->group)
			fprintf(out, "%s:\n", e->group);
		print_entry(out, e, column);
	}
	print_entry(out, &help_entry, column);
	if (cmd->epilog) {
		fputc('\n', out);
		print_wrapped(out, cmd->epilog, 0, 0);
	}
}

/* Whether d is about row e: "--NAME" for a row with a long name, "-X" for
 * one with a letter only, the arg_name of a row of help text. */
static bool detail_is_about(const struct options_detail *d, const struct options_entry *e)
{
	const char *o = d->option;

	if (e->long_name)
		return !strncmp(o, "--", 2) && !strcmp(o + 2, e->long_name);
	if (e->short_name)
		return o[0] == '-' && o[1] == e->short_name && !o[2];
	return e->arg_name && !strcmp(o, e->arg_name);
}

const char *options_detail_of(const struct options_command *cmd, const struct options_entry *e)
{
	for (const struct options_detail *d = cmd->details; d && d->option; d++)
		if (detail_is_about(d, e))
			return d->text;
	return NULL;
}

/* Every detail of cmd about one row, none twice, none empty. */
static int check_details(const struct options_command *cmd, char *err, size_t err_len)
{
	for (const struct options_detail *d = cmd->details; d && d->option; d++) {
		const struct options_entry *e;

		for (e = cmd->options; !is_end(e) && !detail_is_about(d, e); e++)
			;
		if (is_end(e)) {
			rt_format(err, err_len, "%s: the details of %s are about no row", cmd->name,
				  d->option);
			return -EINVAL;
		}
		if (!d->text || !d->text[0]) {
			rt_format(err, err_len, "%s: the details of %s are empty", cmd->name, d->option);
			return -EINVAL;
		}
		for (const struct options_detail *o = cmd->details; o != d; o++)
			if (!strcmp(o->option, d->option)) {
				rt_format(err, err_len, "%s: %s has details twice", cmd->name, d->option);
				return -EINVAL;
			}
	}
	return 0;
}

int options_check(const struct options_command *cmd, char *err, size_t err_len)
{
	const struct options_entry *e, *f;
	size_t rows = 0;

	if (!cmd->name || !cmd->usage || !cmd->options) {
		rt_format(err, err_len, "a command needs a name, a usage line and a table");
		return -EINVAL;
	}
	for (e = cmd->options; !is_end(e); e++) {
		const char *name = e->long_name ? e->long_name : e->arg_name;

		if (++rows > OPTIONS_MAX) {
			rt_format(err, err_len, "%s: more than %d rows", cmd->name, OPTIONS_MAX);
			return -E2BIG;
		}
		if (!e->help || !e->help[0]) {
			rt_format(err, err_len, "%s: %s has no help text", cmd->name,
				  name ? name : "a row");
			return -EINVAL;
		}
		if (!is_option(e))
			continue;
		if (e->short_name && (!isalnum((unsigned char)e->short_name) ||
				      e->short_name == help_entry.short_name)) {
			rt_format(err, err_len, "%s: -%c cannot be an option's letter", cmd->name,
				  e->short_name);
			return -EINVAL;
		}
		if (e->long_name && (!e->long_name[0] || strchr(e->long_name, '=') ||
				     e->long_name[0] == '-' ||
				     !strcmp(e->long_name, help_entry.long_name))) {
			rt_format(err, err_len, "%s: --%s cannot be an option's name", cmd->name,
				  e->long_name);
			return -EINVAL;
		}
		for (f = cmd->options; f != e; f++) {
			if (e->short_name && f->short_name == e->short_name) {
				rt_format(err, err_len, "%s: -%c given twice", cmd->name, e->short_name);
				return -EINVAL;
			}
			if (e->long_name && f->long_name && !strcmp(f->long_name, e->long_name)) {
				rt_format(err, err_len, "%s: --%s given twice", cmd->name, e->long_name);
				return -EINVAL;
			}
		}
	}
	return check_details(cmd, err, err_len);
}
