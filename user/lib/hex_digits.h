/* SPDX-License-Identifier: GPL-2.0-only */
/* hex_digits.h: an address written as 16 hex digits (kallsyms' lines, report's
 * rows without a symbol) read through a table of the digits' values, faster
 * than strtoull's locale-aware parse or a branch on digit or letter. */
#ifndef RINGTRACE_HEX_DIGITS_H
#define RINGTRACE_HEX_DIGITS_H

#include <stdbool.h>
#include <stdint.h>

/* A hex digit's value plus one; 0 for any other byte. */
static const uint8_t hex_digit_value_1[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6, ['6'] = 7, ['7'] = 8,
	['8'] = 9, ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15,
	['f'] = 16, ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

/* The 16 bytes at s as a number, if every one is a hex digit (either case);
 * s must hold 16 bytes, or a NUL before its end (not a digit: read no
 * further). The test of each digit is never missed: no digit of its kind
 * costs more than another. */
static inline bool hex_digits_16(const char *s, uint64_t *value)
{
	uint64_t v = 0;

	for (int i = 0; i < 16; i++) {
		unsigned int d = hex_digit_value_1[(unsigned char)s[i]];

		if (!d)
			return false;
		v = v << 4 | (d - 1);
	}
	*value = v;
	return true;
}

#endif
