/* SPDX-License-Identifier: GPL-2.0-only */
/* options_doc.h: man pages and bash completion written from the same option
 * tables as getopt_long's arguments and --help, so that none of them drifts. */
#ifndef RINGTRACE_OPTIONS_DOC_H
#define RINGTRACE_OPTIONS_DOC_H

#include <stddef.h>
#include <stdio.h>

#include "lib/options.h"

/* A subcommand as the program's own page and the completion list it. */
struct options_doc_command {
	const struct options_command *cmd; /* its table (cmd->name is its name) */
	const char *summary;               /* one line, lower case, no final period */
};

/* The program's page, PROGRAM(1): what it is, its commands with their
 * summaries, each pointing to its own page. */
void options_print_man_index(const char *program, const char *version, const char *description,
			     const struct options_doc_command *cmds, size_t nr, FILE *out);

/* A subcommand's page, PROGRAM-NAME(1): synopsis (its usage), description,
 * options by group as --help lists them, each followed by its details (the
 * command's options_detail), the epilog, see also. */
void options_print_man(const char *program, const char *version,
		       const struct options_doc_command *c, FILE *out);

/* A bash completion script for PROGRAM: commands, each command's options,
 * and for an option's value files or directories when its value names one
 * (FILE, DIR, PATH). */
void options_print_completion(const char *program, const struct options_doc_command *cmds,
			      size_t nr, FILE *out);

#endif
