/* SPDX-License-Identifier: GPL-2.0-only */
/* flamegraph.c: an SVG flame graph from folded stacks with every frame's
 * geometry written out (an image without JavaScript), and zoom and search
 * (and a scroll to the root, opened deeper than the window) in a browser. */
#include "report/flamegraph.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hash_map.h"
#include "lib/log.h"
#include "lib/utf8.h"

#define FRAME_HEIGHT 16
#define PAD_X 10
#define PAD_TOP 44
#define PAD_BOTTOM 34
#define MIN_WIDTH_PX 0.1
#define FONT_WIDTH 7.2 /* px per character of the 12 px monospace font */
#define NO_NODE UINT32_MAX

/* A frame of the merged tree: a name under a parent, with the samples of
 * every stack that passes through it. */
struct node {
	uint32_t parent; /* NO_NODE for the root */
	const char *name;
	uint64_t count;
	uint64_t before; /* differential graphs */
	uint32_t depth;
	uint32_t *children;
	uint32_t nr_children, cap_children;
};

struct tree {
	struct node *nodes;
	uint32_t nr, cap;
	struct hash_map index; /* (parent, name) -> node number + 1 */
	uint32_t max_depth;
};

static uint64_t hash_node(const void *k)
{
	const struct node *n = k;

	return hash_bytes(n->name, strlen(n->name), hash_u64(n->parent));
}

static bool equal_node(const void *a, const void *b)
{
	const struct node *x = a, *y = b;

	return x->parent == y->parent && !strcmp(x->name, y->name);
}

static int index_node(struct tree *t, uint32_t i)
{
	return hash_map_put(&t->index, &t->nodes[i], (void *)(uintptr_t)(i + 1));
}

/* The child of parent named name, created if new; NO_NODE if memory ran out. */
static uint32_t child(struct tree *t, uint32_t parent, const char *name)
{
	struct node probe = { .parent = parent, .name = name }, *n;
	void *found = hash_map_get(&t->index, &probe);

	if (found)
		return (uint32_t)((uintptr_t)found - 1);
	if (t->nr == t->cap) {
		uint32_t cap = t->cap ? t->cap * 2 : 1024;
		struct node *grown = realloc(t->nodes, cap * sizeof(*grown));

		if (!grown)
			return NO_NODE;
		/* the index's keys point into the nodes: it is rebuilt */
		t->nodes = grown;
		t->cap = cap;
		hash_map_free(&t->index);
		hash_map_init(&t->index, hash_node, equal_node);
		for (uint32_t i = 0; i < t->nr; i++)
			if (index_node(t, i))
				return NO_NODE;
	}
	n = &t->nodes[t->nr];
	memset(n, 0, sizeof(*n));
	n->parent = parent;
	n->name = name;
	if (parent != NO_NODE) {
		struct node *p = &t->nodes[parent];

		n->depth = p->depth + 1;
		if (p->nr_children == p->cap_children) {
			uint32_t cap = p->cap_children ? p->cap_children * 2 : 4;
			uint32_t *grown = realloc(p->children, cap * sizeof(*grown));

			if (!grown)
				return NO_NODE;
			p->children = grown;
			p->cap_children = cap;
		}
		p->children[p->nr_children++] = t->nr;
	}
	if (n->depth > t->max_depth)
		t->max_depth = n->depth;
	if (index_node(t, t->nr))
		return NO_NODE;
	return t->nr++;
}

/* Merges the stacks under one root; names point into copies, which *copies
 * owns. */
static int build_tree(struct tree *t, const struct flamegraph_stack *stacks, size_t nr,
		      char ***copies)
{
	uint32_t root;

	hash_map_init(&t->index, hash_node, equal_node);
	*copies = calloc(nr ? nr : 1, sizeof(char *));
	if (!*copies || (root = child(t, NO_NODE, "all")) == NO_NODE)
		return -ENOMEM;
	for (size_t i = 0; i < nr; i++) {
		char *save = NULL, *name;
		uint32_t at = root;

		(*copies)[i] = strdup(stacks[i].stack);
		if (!(*copies)[i])
			return -ENOMEM;
		t->nodes[root].count += stacks[i].count;
		t->nodes[root].before += stacks[i].before;
		for (name = strtok_r((*copies)[i], ";", &save); name; name = strtok_r(NULL, ";", &save)) {
			at = child(t, at, name);
			if (at == NO_NODE)
				return -ENOMEM;
			t->nodes[at].count += stacks[i].count;
			t->nodes[at].before += stacks[i].before;
		}
	}
	return 0;
}

/* Text from the recording as XML character data or a double-quoted
 * attribute value: markup characters as entities, both quotes included,
 * control characters (which XML 1.0 forbids) left out, invalid UTF-8 as
 * U+FFFD: a name can neither end its attribute or element nor make the SVG
 * ill-formed. */
static void put_escaped(FILE *out, const char *s)
{
	const uint8_t *p = (const uint8_t *)s;
	size_t len = strlen(s);

	for (size_t i = 0; i < len;) {
		size_t n = utf8_sequence(p + i, len - i);

		switch (p[i]) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		case '\'':
			fputs("&apos;", out);
			break;
		default:
			if (!n)
				fputs(UTF8_REPLACEMENT, out);
			else if (p[i] >= 0x20 && p[i] != 0x7f)
				fwrite(p + i, 1, n, out);
		}
		i += n ? n : 1;
	}
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/* flamegraph.pl's palettes, from a hash of the name so that a function keeps
 * its colour from one graph to the next: "java" for kernel (orange), JIT
 * (green) and inlined (aqua) frames, "hot" for the others. */
static void colour(const char *name, int *r, int *g, int *b)
{
	uint64_t h = hash_bytes(name, strlen(name), 0x5254);
	double v1 = (double)(h & 0xff) / 255.0, v2 = (double)((h >> 8) & 0xff) / 255.0;
	double v3 = (double)((h >> 16) & 0xff) / 255.0;

	if (ends_with(name, "_[k]")) {
		*r = 190 + (int)(65 * v1), *g = 90 + (int)(65 * v1), *b = 0;
	} else if (ends_with(name, "_[j]")) {
		*r = 50 + (int)(60 * v1), *g = 200 + (int)(55 * v1), *b = 50 + (int)(60 * v1);
	} else if (ends_with(name, "_[i]")) {
		*r = 50 + (int)(60 * v1), *g = 165 + (int)(55 * v1), *b = 165 + (int)(55 * v1);
	} else {
		*r = 205 + (int)(50 * v3), *g = (int)(230 * v1), *b = (int)(55 * v2);
	}
}

/* A differential frame's colour, as flamegraph.pl's: red as much as it grew,
 * blue as much as it shrank, of the largest change; white unchanged. */
static void diff_colour(const struct node *n, uint64_t max_delta, int *r, int *g, int *b)
{
	double delta = (double)n->count - (double)n->before;
	int fade = max_delta ? (int)(210.0 * (1.0 - fabs(delta) / (double)max_delta)) : 210;

	if (delta > 0)
		*r = 255, *g = *b = fade;
	else if (delta < 0)
		*b = 255, *r = *g = fade;
	else
		*r = *g = *b = 250;
}

static const char *const script =
	"var PAD = 10, frames, details, unzoombtn, matchedtxt;\n"
	"function init(evt) {\n"
	"  frames = document.getElementById('frames');\n"
	"  details = document.getElementById('details').firstChild;\n"
	"  unzoombtn = document.getElementById('unzoom');\n"
	"  matchedtxt = document.getElementById('matched').firstChild;\n"
	"  for (const g of frames.children) {\n"
	"    g.onmouseover = function () { details.nodeValue = g.firstElementChild.textContent; };\n"
	"    g.onmouseout = function () { details.nodeValue = ' '; };\n"
	"    g.onclick = function () { zoom(g); };\n"
	"    place(g, num(g, 'data-x'), num(g, 'data-w'));\n"
	"  }\n"
	"  document.addEventListener('keydown', function (e) {\n"
	"    if ((e.ctrlKey || e.metaKey) && e.key === 'f') { e.preventDefault(); search_prompt(); }\n"
	"    if (e.key === 'Escape') { reset_search(); unzoom(); }\n"
	"  });\n"
	"  /* opened as a page of its own, deeper than the window: scrolled down to\n"
	"     the root, the frames most time is in, not a first screen of blank */\n"
	"  var root = frames.firstElementChild;\n"
	"  if (root && frames.ownerSVGElement === document.documentElement &&\n"
	"      root.getBoundingClientRect().bottom > window.innerHeight)\n"
	"    window.scrollTo(0, document.documentElement.getBoundingClientRect().height);\n"
	"}\n"
	"function num(g, a) { return parseFloat(g.getAttribute(a)); }\n"
	"function place(g, x, w) {\n"
	"  var r = g.querySelector('rect'), t = g.querySelector('text'), px = w * (W - 2 * PAD);\n"
	"  r.setAttribute('x', (PAD + x * (W - 2 * PAD)).toFixed(2)); /* as written */\n"
	"  r.setAttribute('width', Math.max(px, 0).toFixed(2));\n"
	"  t.setAttribute('x', (PAD + x * (W - 2 * PAD) + 3).toFixed(2));\n"
	"  var name = g.getAttribute('data-n'), fit = Math.floor((px - 6) / 7.2);\n"
	"  t.textContent = fit < 3 ? '' : (name.length <= fit ? name : name.substring(0, fit - 2) + '..');\n"
	"}\n"
	"function zoom(node) {\n"
	"  var x0 = num(node, 'data-x'), w0 = num(node, 'data-w'), d0 = num(node, 'data-d'), e = 1e-6; /* data-x and data-w have 9 decimals */\n"
	"  unzoombtn.style.display = '';\n"
	"  for (const g of frames.children) {\n"
	"    var x = num(g, 'data-x'), w = num(g, 'data-w'), d = num(g, 'data-d');\n"
	"    if (d >= d0 && x >= x0 - e && x + w <= x0 + w0 + e) {\n"
	"      g.style.display = ''; g.style.opacity = 1; place(g, (x - x0) / w0, w / w0);\n"
	"    } else if (d < d0 && x <= x0 + e && x + w >= x0 + w0 - e) {\n"
	"      g.style.display = ''; g.style.opacity = 0.6; place(g, 0, 1);\n"
	"    } else {\n"
	"      g.style.display = 'none';\n"
	"    }\n"
	"  }\n"
	"}\n"
	"function unzoom() {\n"
	"  unzoombtn.style.display = 'none';\n"
	"  for (const g of frames.children) {\n"
	"    g.style.display = ''; g.style.opacity = 1; place(g, num(g, 'data-x'), num(g, 'data-w'));\n"
	"  }\n"
	"}\n"
	"function reset_search() {\n"
	"  for (const g of frames.children) { var r = g.querySelector('rect'); r.setAttribute('fill', g.getAttribute('data-c')); }\n"
	"  matchedtxt.nodeValue = ' ';\n"
	"}\n"
	"function search(term) {\n"
	"  var re, hits = [];\n"
	"  try { re = new RegExp(term); } catch (err) { matchedtxt.nodeValue = 'bad expression'; return; }\n"
	"  reset_search();\n"
	"  for (const g of frames.children) {\n"
	"    if (num(g, 'data-d') > 0 && re.test(g.getAttribute('data-n'))) {\n"
	"      g.querySelector('rect').setAttribute('fill', 'rgb(230,0,230)');\n"
	"      hits.push([num(g, 'data-x'), num(g, 'data-w')]);\n"
	"    }\n"
	"  }\n"
	"  hits.sort(function (a, b) { return a[0] - b[0] || b[1] - a[1]; });\n"
	"  var total = 0, end = -1;\n"
	"  for (const h of hits) { if (h[0] >= end - 1e-6) { total += h[1]; end = h[0] + h[1]; } }\n"
	"  matchedtxt.nodeValue = 'Matched: ' + (100 * total).toFixed(2) + '%';\n"
	"}\n"
	"function search_prompt() {\n"
	"  var term = prompt('Search for a function (regular expression):', '');\n"
	"  if (term) search(term); else reset_search();\n"
	"}\n";

/* How the frames are laid out. */
struct layout {
	const struct flamegraph_options *o;
	unsigned int width;  /* of the image */
	int height;
	uint64_t total;      /* samples of the root */
	uint64_t max_delta;  /* differential: the largest change of a frame */
};

/* The text a frame of px pixels shows: its name, cut with ".." to fit the
 * 12 px monospace font, or nothing if under three characters fit (as the
 * script's place() does when zooming). */
static void put_fitted(FILE *out, const char *name, double px)
{
	int fit = (int)floor((px - 6) / FONT_WIDTH);
	size_t len = strlen(name), keep = 0, chars = 0;
	char *cut;

	if (fit < 3)
		return;
	/* count characters (UTF-8 sequences), not bytes */
	for (size_t i = 0; i < len; chars++) {
		size_t n = utf8_sequence((const uint8_t *)name + i, len - i);

		i += n ? n : 1;
		if (chars + 1 <= (size_t)fit - 2)
			keep = i;
	}
	if (chars <= (size_t)fit) {
		put_escaped(out, name);
		return;
	}
	cut = strndup(name, keep);
	if (!cut)
		return;
	put_escaped(out, cut);
	fputs("..", out);
	free(cut);
}

static void max_delta(const struct tree *t, uint64_t *max)
{
	for (uint32_t i = 0; i < t->nr; i++) {
		const struct node *n = &t->nodes[i];
		uint64_t d = n->count > n->before ? n->count - n->before : n->before - n->count;

		if (d > *max)
			*max = d;
	}
}

/* Writes node i and what is above it, starting at fraction x of the width. */
static void write_node(FILE *out, const struct tree *t, const struct layout *l, uint32_t i,
		       double x)
{
	const struct node *n = &t->nodes[i];
	double w = (double)n->count / (double)l->total;
	double span = (double)(l->width - 2 * PAD_X), px = w * span, left = PAD_X + x * span;
	double y = l->o->inverted ? PAD_TOP + (double)n->depth * FRAME_HEIGHT
				  : l->height - PAD_BOTTOM - (double)(n->depth + 1) * FRAME_HEIGHT;
	int r, g, b;
	uint32_t *order;

	if (px < MIN_WIDTH_PX)
		return;
	if (l->o->differential)
		diff_colour(n, l->max_delta, &r, &g, &b);
	else if (!n->depth)
		r = 240, g = 150, b = 60;
	else
		colour(n->name, &r, &g, &b);
	fprintf(out, "<g data-x=\"%.9f\" data-w=\"%.9f\" data-d=\"%u\" data-c=\"rgb(%d,%d,%d)\" data-n=\"",
		x, w, n->depth, r, g, b);
	put_escaped(out, n->name);
	fprintf(out, "\"><title>");
	put_escaped(out, n->name);
	fprintf(out, " (%" PRIu64 " %s, %.2f%%", n->count,
		l->o->count_name ? l->o->count_name : "samples", 100.0 * w);
	if (l->o->differential)
		fprintf(out, "; before %" PRIu64 ", %+.2f%%", n->before,
			100.0 * ((double)n->count - (double)n->before) / (double)l->total);
	fprintf(out, ")</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" fill=\"rgb(%d,%d,%d)\" rx=\"2\" ry=\"2\"/><text x=\"%.2f\" y=\"%.1f\">",
		left, y, px, FRAME_HEIGHT - 1, r, g, b, left + 3, y + 11.5);
	put_fitted(out, n->name, px);
	fprintf(out, "</text></g>\n");
	/* callers in name order, as flamegraph.pl merges them */
	order = malloc((n->nr_children ? n->nr_children : 1) * sizeof(*order));
	if (!order)
		return;
	if (n->nr_children)
		memcpy(order, n->children, n->nr_children * sizeof(*order));
	for (uint32_t a = 1; a < n->nr_children; a++)
		for (uint32_t c = a; c > 0 && strcmp(t->nodes[order[c - 1]].name, t->nodes[order[c]].name) > 0; c--) {
			uint32_t tmp = order[c];

			order[c] = order[c - 1];
			order[c - 1] = tmp;
		}
	for (uint32_t c = 0; c < n->nr_children; c++) {
		write_node(out, t, l, order[c], x);
		x += (double)t->nodes[order[c]].count / (double)l->total;
	}
	free(order);
}

int flamegraph_write(FILE *out, const struct flamegraph_options *o,
		     const struct flamegraph_stack *stacks, size_t nr, char *err, size_t errlen)
{
	struct tree t = { 0 };
	struct layout l = { .o = o, .width = o->width ? o->width : FLAMEGRAPH_DEFAULT_WIDTH };
	char **copies = NULL;
	int ret = -ENOMEM, title_y, details_y;

	if (build_tree(&t, stacks, nr, &copies)) {
		rt_format(err, errlen, "out of memory");
		goto out;
	}
	l.height = PAD_TOP + PAD_BOTTOM + (int)(t.max_depth + 1) * FRAME_HEIGHT;
	l.total = t.nodes[0].count;
	if (o->differential)
		max_delta(&t, &l.max_delta);
	title_y = 24;
	details_y = l.height - 12;
	fprintf(out, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		     "<svg version=\"1.1\" width=\"%u\" height=\"%d\" viewBox=\"0 0 %u %d\" onload=\"init(evt)\" "
		     "xmlns=\"http://www.w3.org/2000/svg\">\n",
		l.width, l.height, l.width, l.height);
	fprintf(out, "<style>text { font-family: monospace; font-size: 12px; fill: rgb(0,0,0); }\n"
		     "#frames g:hover rect { stroke: black; stroke-width: 0.5; }\n"
		     "#frames g, .button { cursor: pointer; }</style>\n");
	fprintf(out, "<script type=\"text/ecmascript\"><![CDATA[\nvar W = %u;\n%s]]></script>\n",
		l.width, script);
	fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%d\" fill=\"rgb(248,248,248)\"/>\n",
		l.width, l.height);
	fprintf(out, "<text x=\"%u\" y=\"%d\" text-anchor=\"middle\" style=\"font-size: 17px\">",
		l.width / 2, title_y);
	put_escaped(out, o->title ? o->title : (o->inverted ? "Icicle Graph" : "Flame Graph"));
	fprintf(out, "</text>\n<text id=\"unzoom\" class=\"button\" x=\"%d\" y=\"%d\" style=\"display: none\" onclick=\"unzoom()\">Reset Zoom</text>\n",
		PAD_X, title_y);
	fprintf(out, "<text id=\"search\" class=\"button\" x=\"%u\" y=\"%d\" onclick=\"search_prompt()\">Search</text>\n",
		l.width - PAD_X - 60, title_y);
	fprintf(out, "<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n", PAD_X, details_y);
	fprintf(out, "<text id=\"matched\" x=\"%u\" y=\"%d\"> </text>\n", l.width - PAD_X - 140,
		details_y);
	fprintf(out, "<g id=\"frames\">\n");
	if (l.total)
		write_node(out, &t, &l, 0, 0.0);
	fprintf(out, "</g>\n</svg>\n");
	ret = 0;
out:
	for (uint32_t i = 0; i < t.nr; i++)
		free(t.nodes[i].children);
	free(t.nodes);
	hash_map_free(&t.index);
	for (size_t i = 0; copies && i < nr; i++)
		free(copies[i]);
	free(copies);
	return ret;
}
