/* SPDX-License-Identifier: GPL-2.0-only */
/* spelling.h: the name a mistyped word was meant to be ("did you mean"):
 * the nearest of the names offered by edit distance (insertions, deletions,
 * substitutions and swaps of two neighbours), if near enough. */
#ifndef RINGTRACE_SPELLING_H
#define RINGTRACE_SPELLING_H

#define SPELLING_MAX_LEN 127

struct spelling {
	const char *word;
	unsigned int best_distance;
	char best[SPELLING_MAX_LEN + 1]; /* "" while none is near enough */
};

void spelling_init(struct spelling *s, const char *word);
/* Considers name; the first of equally near ones is kept. */
void spelling_offer(struct spelling *s, const char *name);
/* The nearest name offered, within a third of the word's length (at least
 * one edit, at most three); NULL if none is. */
const char *spelling_best(const struct spelling *s);
/* The edit distance between a and b (each at most SPELLING_MAX_LEN bytes;
 * a longer one is as far as its length). */
unsigned int spelling_distance(const char *a, const char *b);

#endif
