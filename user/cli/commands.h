/* SPDX-License-Identifier: GPL-2.0-only */
/* commands.h: the subcommands of the ringtrace CLI, each taking the
 * arguments that follow its name (argv[0] is the subcommand). */
#ifndef RINGTRACE_COMMANDS_H
#define RINGTRACE_COMMANDS_H

int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_snapshot(int argc, char **argv);
int cmd_script(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_trace(int argc, char **argv);

#endif
