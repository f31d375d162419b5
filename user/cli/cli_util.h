/* cli_util.h: strict parsing of numeric command-line values, shared by the
 * subcommands so every bad value gets the same kind of one-line error. */
#ifndef RINGTRACE_CLI_UTIL_H
#define RINGTRACE_CLI_UTIL_H

#include <stdint.h>

/* Parses a whole decimal string into *out; 0, or -1 after printing
 * "invalid value for OPTION: ..." */
int cli_parse_u64(const char *option, const char *text, uint64_t min, uint64_t max,
		  uint64_t *out);

/* Parses a byte size with an optional K, M or G suffix (powers of 1024). */
int cli_parse_size(const char *option, const char *text, uint64_t min, uint64_t max,
		   uint64_t *out);

/* The option getopt_long just rejected, as the user typed it ("-x" or "--xyz"). */
const char *cli_rejected_option(char **argv);

#endif
