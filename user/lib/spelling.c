/* SPDX-License-Identifier: GPL-2.0-only */
/* spelling.c: the name a mistyped word was meant to be ("did you mean"):
 * the nearest of the names offered by edit distance (insertions, deletions,
 * substitutions and swaps of two neighbours), if near enough. */
#include "lib/spelling.h"

#include <stdio.h>
#include <string.h>

static unsigned int min3(unsigned int a, unsigned int b, unsigned int c)
{
	unsigned int m = a < b ? a : b;

	return m < c ? m : c;
}

/* The farthest a name may be from the word to be offered for it. */
#define SPELLING_MOST 3u

/* The optimal string alignment distance, three rows of the table at a time;
 * past bound it stops and answers bound + 1 (a row's least value never
 * falls in the rows after it). */
static unsigned int distance_within(const char *a, size_t n, const char *b, size_t m,
				    unsigned int bound)
{
	unsigned int rows[3][SPELLING_MAX_LEN + 1];
	unsigned int *before = rows[0], *prev = rows[1], *cur = rows[2];

	if (n > SPELLING_MAX_LEN || m > SPELLING_MAX_LEN)
		return (unsigned int)(n > m ? n : m);
	for (size_t j = 0; j <= m; j++)
		prev[j] = (unsigned int)j;
	for (size_t i = 1; i <= n; i++) {
		unsigned int *t, least;

		least = cur[0] = (unsigned int)i;
		for (size_t j = 1; j <= m; j++) {
			unsigned int cost = a[i - 1] != b[j - 1];

			cur[j] = min3(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    before[j - 2] + 1 < cur[j])
				cur[j] = before[j - 2] + 1;
			if (cur[j] < least)
				least = cur[j];
		}
		if (least > bound)
			return bound + 1;
		t = before;
		before = prev;
		prev = cur;
		cur = t;
	}
	return prev[m];
}

unsigned int spelling_distance(const char *a, const char *b)
{
	return distance_within(a, strlen(a), b, strlen(b), ~0u - 1);
}

void spelling_init(struct spelling *s, const char *word)
{
	s->word = word;
	s->best_distance = ~0u;
	s->best[0] = 0;
}

void spelling_offer(struct spelling *s, const char *name)
{
	/* only a name nearer than the best so far and near enough counts: the
	 * difference of the lengths alone rules out most (event lists of
	 * thousands, offered for every unknown word) */
	unsigned int bound = s->best_distance <= SPELLING_MOST ? s->best_distance - 1 : SPELLING_MOST;
	size_t n = strlen(s->word), m = name ? strlen(name) : 0;
	unsigned int d;

	if (!name || m > SPELLING_MAX_LEN || (n > m ? n - m : m - n) > bound)
		return;
	d = distance_within(s->word, n, name, m, bound);
	if (d < s->best_distance) {
		s->best_distance = d;
		snprintf(s->best, sizeof(s->best), "%s", name);
	}
}

const char *spelling_best(const struct spelling *s)
{
	size_t len = strlen(s->word);
	unsigned int most = (unsigned int)(len / 3);

	if (most < 1)
		most = 1;
	if (most > SPELLING_MOST)
		most = SPELLING_MOST;
	return s->best[0] && s->best_distance && s->best_distance <= most ? s->best : NULL;
}
