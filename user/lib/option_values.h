/* SPDX-License-Identifier: GPL-2.0-only */
/* option_values.h: strict parsing of numeric option values, shared by the
 * commands so every bad value gets the same kind of one-line error. */
#ifndef RINGTRACE_OPTION_VALUES_H
#define RINGTRACE_OPTION_VALUES_H

#include <stdint.h>

/* Parses a whole decimal string into *out; 0, or -EINVAL after printing
 * "invalid value ... for OPTION: expected a number from MIN to MAX". */
int option_parse_u64(const char *option, const char *text, uint64_t min, uint64_t max,
		     uint64_t *out);

/* Parses a percentage, a decimal number from 0 to 100 ("5", "0.5"). */
int option_parse_percent(const char *option, const char *text, double *out);

/* Parses a byte size with an optional K, M or G suffix (powers of 1024). */
int option_parse_size(const char *option, const char *text, uint64_t min, uint64_t max,
		      uint64_t *out);

/* Parses a duration, a whole number and its unit (ns, us, ms, s; 0 alone
 * needs none), into nanoseconds, at most max_ns. */
int option_parse_duration(const char *option, const char *text, uint64_t max_ns, uint64_t *out);

#endif
