/* SPDX-License-Identifier: GPL-2.0-only */
/* options.h: a command's options described once, in a table from which
 * getopt_long's arguments, the --help text and (lib/options_doc.h) the man page
 * and the completion are made, so they cannot drift. */
#ifndef RINGTRACE_OPTIONS_H
#define RINGTRACE_OPTIONS_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* A macro's value written into help text: OPTIONS_STR(DEFAULT_FREQ) is "999". */
#define OPTIONS_STR(x) OPTIONS_STR_(x)
#define OPTIONS_STR_(x) #x

/* The most rows a command's table may have. */
#define OPTIONS_MAX 64

/* One row of a command's option table. A row with neither long_name nor
 * short_name but an arg_name is help text only, arg_name standing in the
 * column of names (e.g. "-- CMD ARGS"); a row of zeros ends the table.
 * -h/--help is not in the table: every command gets it. A value in brackets
 * ("[MODE]") may be left out, as perf's -g takes its own: the next word is
 * the option's value unless it starts with '-' or there is none; left out,
 * the handler is given NULL. */
struct options_entry {
	const char *long_name; /* "event" for --event, or NULL */
	char short_name;       /* 'e' for -e, or 0 */
	const char *arg_name;  /* "EVENTS": the option needs a value; NULL: a flag */
	const char *help;      /* wrapped to 79 columns; '\n' starts a new line */
	const char *group;     /* a heading ("where") printed before this row, or NULL */
	int id;                /* what the command's handler switches on */
};

/* The man page's paragraphs about an option, printed after its help (which
 * --help prints alone): what the help has no room for. option names the row
 * as the man page spells it: "--event" for a row with a long name, "-g" for
 * one with a letter only, the arg_name of a row of help text ("-- CMD ARGS").
 * They are kept in a table beside the command's options rather than in
 * struct options_entry, whose rows are written positionally: every row would
 * have to name them. */
struct options_detail {
	const char *option; /* "--event"; NULL ends a table */
	const char *text;   /* plain text, as help; '\n' starts a new paragraph */
};

/* The values an option takes, as completion offers them: words, or a
 * shell command printing them one a line (its first field); comma_list:
 * the value is a comma-separated list of them. */
struct options_choices {
	const char *long_name; /* the option's; NULL ends a table */
	const char *words;
	const char *command;
	bool comma_list;
};

/* A command: what --help prints, the table getopt_long is given, and what
 * its man page says beside them. */
struct options_command {
	const char *name;        /* "record", as in "see ringtrace record --help" */
	const char *usage;       /* after "usage: "; further lines ('\n') aligned under it */
	const char *description; /* the paragraph after the usage */
	const struct options_entry *options;
	const char *epilog;      /* the paragraph after the options, or NULL */
	bool stop_at_positional; /* options end at the first non-option (getopt's
				    '+'): a command line or a target follows */
	const struct options_choices *choices; /* options' values for completion, or NULL */
	const struct options_detail *details;  /* options' man page paragraphs, or NULL */
};

/* What options_parse and a command's handler return. */
enum options_result {
	OPTIONS_CONTINUE = 0,    /* go on */
	OPTIONS_DONE = 1,        /* the command's work is done (help printed): exit 0 */
	OPTIONS_USAGE_ERROR = 2, /* one error line printed: exit 2 */
};

/* Takes the option id (a row's id) with its value, or NULL for a flag.
 * Returns an enum options_result. */
typedef int options_handler(void *ctx, int id, const char *arg);

/* getopt_long's arguments for a command, --help included. */
struct options_getopt {
	struct option long_options[OPTIONS_MAX + 2];
	char short_options[2 * OPTIONS_MAX + 4];
};

/* Fills g from cmd's table; 0, or -E2BIG if the table has more than OPTIONS_MAX
 * rows. Long-only options get the value 256 + their row's index. */
int options_getopt_build(const struct options_command *cmd, struct options_getopt *g);

/* Runs getopt_long over argv (argv[0] is the command's name) from the start,
 * calling handle(ctx, row's id, value) for each option in order (handle may
 * be NULL for an empty table). Prints the help on stdout for -h/--help, and
 * one error line for a missing value or an unknown option. Returns
 * OPTIONS_CONTINUE with *first_positional (if not NULL) set to the index of
 * the first argument that is not an option, or what the command returns at
 * once, through options_exit_status: OPTIONS_DONE after the help,
 * OPTIONS_USAGE_ERROR, or what the handler returned. */
int options_parse(const struct options_command *cmd, int argc, char **argv,
		  options_handler *handle, void *ctx, int *first_positional);

/* The exit status for a result of options_parse other than OPTIONS_CONTINUE. */
int options_exit_status(int result);

/* Usage, description, each group's heading and option with its help text
 * aligned in a column, then the epilog. */
void options_print_help(const struct options_command *cmd, FILE *out);

/* The man page's paragraphs about row e of cmd's table, or NULL. */
const char *options_detail_of(const struct options_command *cmd, const struct options_entry *e);

/* Whether cmd's table is sound: every option named and explained, no name or
 * letter twice, none taking -h or --help, every detail naming a row of the
 * table, none twice nor empty. 0, or -errno (-EINVAL, -E2BIG) with err set. */
int options_check(const struct options_command *cmd, char *err, size_t err_len);

/* The long option of cmd a mistyped "--name" (or "--name=value") was meant
 * to be, every row of its table offered (lib/spelling.h), or NULL. */
const char *options_nearest_long(const struct options_command *cmd, const char *rejected);

/* The name of the command of cmds[0..n) a mistyped word was meant to be, or
 * NULL. */
const char *options_nearest_command(const struct options_command *const *cmds, unsigned int n,
				    const char *word);

/* The option getopt_long just rejected, as the user typed it ("-x" or "--xyz"). */
const char *options_rejected(char **argv);

#endif
