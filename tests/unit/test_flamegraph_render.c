/* SPDX-License-Identifier: GPL-2.0-only */
/* test_flamegraph_render.c: flame graphs drawn by headless Chromium as an
 * <img> (no JavaScript) and read back with libpng: bars where, as wide and
 * of the colours the samples say; icicle, narrow frames; zoom and search;
 * a graph deeper than the window opens on its frames. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/flamegraph.h"
#include "test_util.h"

/* The layout flamegraph.c draws: 10 px margins, 16 px rows, 44 px above the
 * frames and 34 below. */
#define PAD_X 10
#define PAD_TOP 44
#define PAD_BOTTOM 34
#define ROW 16
#define WIDTH 800

struct image {
	png_image png;
	uint8_t *rgb;
};

/* Counts scaled by SCALE; "tinyx" is far under 0.1 px and must not show. */
#define SCALE 10000
static const struct flamegraph_stack stacks[] = {
	{ "app;main;cold", 2 * SCALE, 0 },
	{ "app;main;do_syscall_64_[k]", 2 * SCALE, 0 },
	{ "app;main;hot", 4 * SCALE, 0 },
	{ "app;tinyx", 1, 0 },
};

/* Chromium's screenshot of dir/page in a window of width x height,
 * decoded. */
static void screenshot(const char *dir, const char *page, unsigned int width, int height,
		       struct image *img)
{
	char path[PATH_MAX], *out = NULL;
	int rc;

	rc = tu_sh(&out, "cd %s && timeout 120 chromium --headless --no-sandbox --disable-gpu "
		   "--hide-scrollbars --force-device-scale-factor=1 --user-data-dir=%s/profile "
		   "--window-size=%u,%d --screenshot=%s/shot.png file://%s/%s 2>&1",
		   dir, dir, width, height, dir, dir, page);
	if (rc)
		fail_msg("chromium failed (%d):\n%s", rc, out);
	free(out);
	snprintf(path, sizeof(path), "%s/shot.png", dir);
	memset(img, 0, sizeof(*img));
	img->png.version = PNG_IMAGE_VERSION;
	if (!png_image_begin_read_from_file(&img->png, path))
		fail_msg("cannot read %s: %s", path, img->png.message);
	img->png.format = PNG_FORMAT_RGB;
	img->rgb = malloc(PNG_IMAGE_SIZE(img->png));
	assert_non_null(img->rgb);
	if (!png_image_finish_read(&img->png, NULL, img->rgb, 0, NULL))
		fail_msg("cannot decode %s: %s", path, img->png.message);
}

/* Writes the graph into dir/graph.svg and an HTML page showing it as an
 * image, has Chromium take a screenshot and decodes it. */
static void render(const char *dir, const struct flamegraph_options *o, struct image *img,
		   int *height)
{
	char path[PATH_MAX], err[256], *svg = NULL;
	size_t len = 0;
	FILE *f;
	const char *h;

	snprintf(path, sizeof(path), "%s/graph.svg", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(flamegraph_write(f, o, stacks, 4, err, sizeof(err)), 0);
	fclose(f);
	f = fopen(path, "r");
	assert_non_null(f);
	svg = calloc(1, 1 << 20);
	len = fread(svg, 1, (1 << 20) - 1, f);
	fclose(f);
	assert_true(len > 0);
	assert_null(strstr(svg, "tinyx"));
	h = strstr(svg, "height=\"");
	assert_non_null(h);
	*height = atoi(h + 8);
	free(svg);
	snprintf(path, sizeof(path), "%s/page.html", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "<!DOCTYPE html><html><body style=\"margin:0;background:#fff\">"
		   "<img src=\"graph.svg\" style=\"display:block\"></body></html>\n");
	fclose(f);
	screenshot(dir, "page.html", o->width, *height + 20, img);
	assert_true(img->png.width >= o->width && img->png.height >= (unsigned int)*height);
}

static const uint8_t *pixel(const struct image *img, int x, int y)
{
	return img->rgb + ((size_t)y * img->png.width + (size_t)x) * 3;
}

enum shade { BACKGROUND, HOT, KERNEL, OTHER };

/* flamegraph.pl's palettes as flamegraph.c uses them: hot (r 205-255, b
 * under 56; the root too), the kernel's orange (g 90-155, no blue), the page's background. */
static enum shade shade_of(const uint8_t *p)
{
	if (p[0] >= 240 && p[1] >= 240 && p[2] >= 240)
		return BACKGROUND;
	if (p[2] <= 2 && p[0] >= 188 && p[1] >= 88 && p[1] <= 157 && p[0] - p[1] >= 95)
		return KERNEL;
	if (p[0] >= 203 && p[2] <= 62) /* the root: rgb(240,150,60) */
		return HOT;
	return OTHER;
}

/* The pixels of row y from x0 to x1 (excluded) of each shade. */
static void count_row(const struct image *img, int y, int x0, int x1, int counts[4])
{
	memset(counts, 0, 4 * sizeof(int));
	for (int x = x0; x < x1; x++)
		counts[shade_of(pixel(img, x, y))]++;
}

/* Row y at depth d (0: "all"), one pixel under the bar's top edge, where no
 * letter reaches. */
static int bar_row(int height, int depth, bool inverted)
{
	return inverted ? PAD_TOP + depth * ROW + 1 : height - PAD_BOTTOM - (depth + 1) * ROW + 1;
}

static void check_bars(const struct image *img, int height, bool inverted)
{
	const int span = WIDTH - 2 * PAD_X;
	/* "cold" 1/4, "do_syscall_64_[k]" 1/4, "hot" 1/2, in name order */
	const int cold_end = PAD_X + span / 4, kernel_end = PAD_X + span / 2;
	int c[4];

	/* all, app, main: full width, within the rounded corners */
	for (int d = 0; d < 3; d++) {
		count_row(img, bar_row(height, d, inverted), PAD_X + 3, WIDTH - PAD_X - 3, c);
		if (c[BACKGROUND] || c[OTHER])
			fail_msg("depth %d is not one bar from %d to %d px: %d background, %d other pixels",
				 d, PAD_X, WIDTH - PAD_X, c[BACKGROUND], c[OTHER]);
	}
	/* depth 3: a hot bar, an orange kernel bar, a hot bar */
	count_row(img, bar_row(height, 3, inverted), PAD_X + 3, cold_end - 3, c);
	assert_int_equal(c[HOT], cold_end - 3 - PAD_X - 3);
	count_row(img, bar_row(height, 3, inverted), cold_end + 3, kernel_end - 3, c);
	if (c[KERNEL] != kernel_end - 3 - cold_end - 3)
		fail_msg("the kernel frame is not orange from %d to %d px: %d of %d pixels", cold_end,
			 kernel_end, c[KERNEL], kernel_end - 3 - cold_end - 3);
	count_row(img, bar_row(height, 3, inverted), kernel_end + 3, WIDTH - PAD_X - 3, c);
	assert_int_equal(c[HOT], WIDTH - PAD_X - 3 - kernel_end - 3);
	/* nothing beside the graph, nothing above its deepest frame */
	count_row(img, bar_row(height, 3, inverted), 0, PAD_X - 1, c);
	assert_int_equal(c[BACKGROUND], PAD_X - 1);
	count_row(img, bar_row(height, 4, inverted), 0, WIDTH, c);
	assert_int_equal(c[BACKGROUND], WIDTH);
}

static void need_chromium(void)
{
	char *out = NULL;

	if (tu_sh(&out, "command -v chromium"))
		tu_skip("chromium is not installed (make test-deps installs it)");
	free(out);
}

/* A flame graph: roots at the bottom, as wide as their samples. */
static void test_flame_graph_shows_as_image(void **state)
{
	struct flamegraph_options o = { .title = "render", .width = WIDTH };
	char *dir = tu_tempdir();
	struct image img;
	int height;

	(void)state;
	need_chromium();
	render(dir, &o, &img, &height);
	check_bars(&img, height, false);
	png_image_free(&img.png);
	free(img.rgb);
	tu_rmtree(dir);
	free(dir);
}

/* An icicle graph: the same bars, the root at the top. */
static void test_icicle_graph_shows_as_image(void **state)
{
	struct flamegraph_options o = { .width = WIDTH, .inverted = true };
	char *dir = tu_tempdir();
	struct image img;
	int height;

	(void)state;
	need_chromium();
	render(dir, &o, &img, &height);
	check_bars(&img, height, true);
	png_image_free(&img.png);
	free(img.rgb);
	tu_rmtree(dir);
	free(dir);
}

/* The script a test adds to the graph: it zooms on "cold", unzooms,
 * searches "^hot$" and resets the search, noting what each left in the
 * document, into the root's data-result for --dump-dom to print. */
static const char probe[] =
	"<script type=\"text/ecmascript\"><![CDATA[\n"
	"function frame(name) {\n"
	"  for (const g of document.getElementById('frames').children)\n"
	"    if (g.getAttribute('data-n') === name) return g;\n"
	"}\n"
	"function w(name) { return frame(name).querySelector('rect').getAttribute('width'); }\n"
	"window.addEventListener('load', function () { setTimeout(function () {\n"
	"  var out = [];\n"
	"  zoom(frame('cold'));\n"
	"  out.push('zoom cold=' + w('cold') + ' hot=' + frame('hot').style.display +\n"
	"           ' main=' + frame('main').style.opacity + ' reset=' + unzoombtn.style.display);\n"
	"  unzoom();\n"
	"  out.push('unzoom cold=' + w('cold') + ' hot=' + w('hot') + ' reset=' + unzoombtn.style.display);\n"
	"  search('^hot$');\n"
	"  out.push('search ' + matchedtxt.nodeValue + ' fill=' + frame('hot').querySelector('rect').getAttribute('fill'));\n"
	"  reset_search();\n"
	"  out.push('reset fill=' + frame('hot').querySelector('rect').getAttribute('fill'));\n"
	"  document.documentElement.setAttribute('data-result', out.join(';'));\n"
	"}, 100); });\n"
	"]]></script>\n";

/* In a browser, the graph's own script still zooms, unzooms and searches. */
static void test_zoom_and_search_in_browser(void **state)
{
	struct flamegraph_options o = { .width = WIDTH };
	char *dir = tu_tempdir(), path[PATH_MAX], err[256], *svg = NULL, *out = NULL, *end;
	size_t len = 0;
	FILE *f;
	int rc;

	(void)state;
	need_chromium();
	f = open_memstream(&svg, &len);
	assert_int_equal(flamegraph_write(f, &o, stacks, 4, err, sizeof(err)), 0);
	fclose(f);
	end = strstr(svg, "</svg>");
	assert_non_null(end);
	*end = '\0';
	snprintf(path, sizeof(path), "%s/graph.svg", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%s%s</svg>\n", svg, probe);
	fclose(f);
	rc = tu_sh(&out, "cd %s && timeout 120 chromium --headless --no-sandbox --disable-gpu "
		   "--user-data-dir=%s/profile --virtual-time-budget=5000 --dump-dom file://%s "
		   "2>/dev/null", dir, dir, path);
	if (rc)
		fail_msg("chromium failed (%d):\n%s", rc, out);
	/* cold is 1/4 of the 780 px span, hot 1/2; zoomed, cold spans it all */
	if (!strstr(out, "data-result=\"zoom cold=780.00 hot=none main=0.6 reset=;"
			 "unzoom cold=195.00 hot=390.00 reset=none;"
			 "search Matched: 50.00% fill=rgb(230,0,230);"
			 "reset fill=rgb("))
		fail_msg("zoom, unzoom or search did not do what they do:\n%.2000s",
			 strstr(out, "data-result") ? strstr(out, "data-result") : out);
	free(out);
	free(svg);
	tu_rmtree(dir);
	free(dir);
}

/* A graph deeper than a screen (a recursion 150 frames deep, a tenth of
 * the samples), opened in a 1280x800 browser window as a page of its own:
 * its first screen holds its frames, the root's full-width bars among
 * them, not the blank above a narrow tower. */
#define DEEP_WIDTH 1280
#define SCREEN_HEIGHT 800
#define RECURSION 150
static void test_deep_graph_opens_on_its_frames(void **state)
{
	struct flamegraph_options o = { .title = "deep", .width = DEEP_WIDTH };
	char *dir = tu_tempdir(), path[PATH_MAX], err[256], *deep;
	struct flamegraph_stack deep_stacks[2] = { { "app;main;work;compute", 9 * SCALE, 0 } };
	struct image img;
	int wide_rows = 0, frame_pixels = 0;
	size_t len = strlen("app;main") + RECURSION * strlen(";recurse");
	FILE *f;

	(void)state;
	need_chromium();
	deep = malloc(len + 1);
	assert_non_null(deep);
	strcpy(deep, "app;main");
	for (int i = 0; i < RECURSION; i++)
		strcat(deep, ";recurse");
	deep_stacks[1] = (struct flamegraph_stack){ deep, SCALE, 0 };
	snprintf(path, sizeof(path), "%s/graph.svg", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(flamegraph_write(f, &o, deep_stacks, 2, err, sizeof(err)), 0);
	fclose(f);
	/* the page a frame of the window's size, the graph a document of its own
	 * in it as in a window (headless Chromium's --screenshot paints a page
	 * scrolled by its script blank, an HTML page too; a frame's scroll it
	 * paints) */
	snprintf(path, sizeof(path), "%s/page.html", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "<!DOCTYPE html><html><body style=\"margin:0\"><iframe src=\"graph.svg\" "
		   "style=\"display:block;border:0;width:%dpx;height:%dpx\"></iframe></body></html>\n",
		DEEP_WIDTH, SCREEN_HEIGHT);
	fclose(f);
	screenshot(dir, "page.html", DEEP_WIDTH, SCREEN_HEIGHT, &img);
	assert_true(img.png.width == DEEP_WIDTH && img.png.height == SCREEN_HEIGHT);
	for (int y = 0; y < SCREEN_HEIGHT; y++) {
		int c[4];

		count_row(&img, y, PAD_X + 3, DEEP_WIDTH - PAD_X - 3, c);
		frame_pixels += c[HOT];
		/* (a bar's name in black takes a few of its rows' pixels) */
		if (!c[BACKGROUND] && c[HOT] >= (DEEP_WIDTH - 2 * PAD_X - 6) * 9 / 10)
			wide_rows++;
	}
	print_message("first screen of a %d-row graph: %d rows of a full-width frame, %d frame pixels\n",
		      RECURSION + 3, wide_rows, frame_pixels);
	/* all, app and main span the width, 15 px of each of their 16 rows (one
	 * is the gap between bars) */
	if (wide_rows < 3 * (ROW - 1))
		fail_msg("the first %dx%d screen of a graph %d frames deep shows %d rows of a "
			 "full-width frame (all, app, main: %d), %d frame pixels: it opens on blank",
			 DEEP_WIDTH, SCREEN_HEIGHT, RECURSION + 3, wide_rows, 3 * (ROW - 1), frame_pixels);
	png_image_free(&img.png);
	free(img.rgb);
	free(deep);
	tu_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flame_graph_shows_as_image),
		cmocka_unit_test(test_icicle_graph_shows_as_image),
		cmocka_unit_test(test_zoom_and_search_in_browser),
		cmocka_unit_test(test_deep_graph_opens_on_its_frames),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
