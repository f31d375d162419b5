/* SPDX-License-Identifier: GPL-2.0-only */
/* flamegraph.c: an interactive SVG flame graph from folded stacks, written
 * natively: zoom by click, search, a tooltip with samples and percentage. */
#include "report/flamegraph.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/hash_map.h"
#include "lib/log.h"
#include "lib/utf8.h"

#define IMAGE_WIDTH 1200
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
		return -1;
	for (size_t i = 0; i < nr; i++) {
		char *save = NULL, *name;
		uint32_t at = root;

		(*copies)[i] = strdup(stacks[i].stack);
		if (!(*copies)[i])
			return -1;
		t->nodes[root].count += stacks[i].count;
		for (name = strtok_r((*copies)[i], ";", &save); name; name = strtok_r(NULL, ";", &save)) {
			at = child(t, at, name);
			if (at == NO_NODE)
				return -1;
			t->nodes[at].count += stacks[i].count;
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

/* flamegraph.pl's "hot" palette, from a hash of the name so that a function
 * keeps its colour from one graph to the next. */
static void colour(const char *name, int *r, int *g, int *b)
{
	uint64_t h = hash_bytes(name, strlen(name), 0x5254);

	*r = 205 + (int)(h % 51);
	*g = (int)((h >> 8) % 231);
	*b = (int)((h >> 16) % 56);
}

static const char *const script =
	"var W = " "1200" ", PAD = 10, frames, details, unzoombtn, matchedtxt;\n"
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
	"}\n"
	"function num(g, a) { return parseFloat(g.getAttribute(a)); }\n"
	"function place(g, x, w) {\n"
	"  var r = g.querySelector('rect'), t = g.querySelector('text'), px = w * (W - 2 * PAD);\n"
	"  r.setAttribute('x', PAD + x * (W - 2 * PAD));\n"
	"  r.setAttribute('width', Math.max(px, 0));\n"
	"  t.setAttribute('x', PAD + x * (W - 2 * PAD) + 3);\n"
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

/* Writes node i and what is above it, starting at fraction x of the width. */
static void write_node(FILE *out, const struct tree *t, uint32_t i, double x, uint64_t total,
		       int height)
{
	const struct node *n = &t->nodes[i];
	double w = total ? (double)n->count / (double)total : 0.0;
	double y = height - PAD_BOTTOM - (double)(n->depth + 1) * FRAME_HEIGHT;
	int r, g, b;
	uint32_t *order;

	if (w * (IMAGE_WIDTH - 2 * PAD_X) < MIN_WIDTH_PX)
		return;
	colour(n->name, &r, &g, &b);
	if (!n->depth)
		r = 240, g = 150, b = 60;
	fprintf(out, "<g data-x=\"%.9f\" data-w=\"%.9f\" data-d=\"%u\" data-c=\"rgb(%d,%d,%d)\" data-n=\"",
		x, w, n->depth, r, g, b);
	put_escaped(out, n->name);
	fprintf(out, "\"><title>");
	put_escaped(out, n->name);
	fprintf(out, " (%" PRIu64 " samples, %.2f%%)</title><rect x=\"0\" y=\"%.1f\" width=\"0\" height=\"%d\" fill=\"rgb(%d,%d,%d)\" rx=\"2\" ry=\"2\"/><text x=\"0\" y=\"%.1f\"></text></g>\n",
		n->count, 100.0 * w, y, FRAME_HEIGHT - 1, r, g, b, y + 11.5);
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
		write_node(out, t, order[c], x, total, height);
		x += (double)t->nodes[order[c]].count / (double)total;
	}
	free(order);
}

int flamegraph_write(FILE *out, const char *title, const struct flamegraph_stack *stacks,
		     size_t nr, char *err, size_t errlen)
{
	struct tree t = { 0 };
	char **copies = NULL;
	int height, ret = -1;

	if (build_tree(&t, stacks, nr, &copies)) {
		rt_format(err, errlen, "out of memory");
		goto out;
	}
	height = PAD_TOP + PAD_BOTTOM + (int)(t.max_depth + 1) * FRAME_HEIGHT;
	fprintf(out, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		     "<svg version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" onload=\"init(evt)\" "
		     "xmlns=\"http://www.w3.org/2000/svg\">\n",
		IMAGE_WIDTH, height, IMAGE_WIDTH, height);
	fprintf(out, "<style>text { font-family: monospace; font-size: 12px; fill: rgb(0,0,0); }\n"
		     "#frames g:hover rect { stroke: black; stroke-width: 0.5; }\n"
		     "#frames g, .button { cursor: pointer; }</style>\n");
	fprintf(out, "<script type=\"text/ecmascript\"><![CDATA[\n%s]]></script>\n", script);
	fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"rgb(248,248,248)\"/>\n",
		IMAGE_WIDTH, height);
	fprintf(out, "<text x=\"%d\" y=\"24\" text-anchor=\"middle\" style=\"font-size: 17px\">",
		IMAGE_WIDTH / 2);
	put_escaped(out, title);
	fprintf(out, "</text>\n<text id=\"unzoom\" class=\"button\" x=\"%d\" y=\"24\" style=\"display: none\" onclick=\"unzoom()\">Reset Zoom</text>\n",
		PAD_X);
	fprintf(out, "<text id=\"search\" class=\"button\" x=\"%d\" y=\"24\" onclick=\"search_prompt()\">Search</text>\n",
		IMAGE_WIDTH - PAD_X - 60);
	fprintf(out, "<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n", PAD_X, height - 12);
	fprintf(out, "<text id=\"matched\" x=\"%d\" y=\"%d\"> </text>\n", IMAGE_WIDTH - PAD_X - 140,
		height - 12);
	fprintf(out, "<g id=\"frames\">\n");
	if (t.nr && t.nodes[0].count)
		write_node(out, &t, 0, 0.0, t.nodes[0].count, height);
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

int flamegraph_write_file(const char *path, const char *title,
			  const struct flamegraph_stack *stacks, size_t nr, char *err,
			  size_t errlen)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	FILE *out;
	int ret;

	if (fd < 0) {
		rt_format(err, errlen, "cannot create %s: %s%s", path, strerror(errno),
			  errno == EEXIST ? " (remove it or choose another name)" : "");
		return -1;
	}
	out = fdopen(fd, "w");
	if (!out) {
		close(fd);
		rt_format(err, errlen, "out of memory");
		return -1;
	}
	ret = flamegraph_write(out, title, stacks, nr, err, errlen);
	if (fclose(out) && !ret) {
		rt_format(err, errlen, "cannot write %s: %s", path, strerror(errno));
		ret = -1;
	}
	return ret;
}
