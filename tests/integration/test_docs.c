/* SPDX-License-Identifier: GPL-2.0-only */
/* test_docs.c: every fenced block of the pages of docs/ marked "<!-- runnable" run as a
 * user would (docs/hacking.md, "Runnable blocks in docs/", says how): each
 * page's blocks in order, in one fresh directory, with the build's ringtrace
 * and loadgen first in PATH, "sleep N" made short and port 19435 a free one;
 * each command must exit 0, each file an option names (-o, --flamegraph,
 * --pprof, --metrics, merge's output) must exist and hold something, and what
 * a "console" block shows after a command must have the shape of what it
 * prints. Every "sh" or "console" block is marked, runnable or not (why). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <dirent.h>
#include <glob.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_util.h"

#define RUNNABLE_MARK "<!-- runnable"
#define NOT_RUNNABLE_MARK "<!-- not runnable:"
#define DOCS_PORT "19435"
#define SHORT_SLEEP 2

struct block {
	char doc[64];        /* its page, "recording.md" */
	unsigned int line;   /* of its opening fence */
	bool transcript;     /* ```console: "$ " lines and what they print */
	char *text;          /* its lines */
};

static struct block *blocks;
static size_t nr_blocks;
static char unmarked[4096]; /* "page:line" of each sh or console block without a mark */

/* Appends len bytes of src to b, or fails the test. */
static void append(struct byte_buffer *b, const void *src, size_t len)
{
	assert_non_null(byte_buffer_append(b, src, len));
}

static void append_str(struct byte_buffer *b, const char *s)
{
	append(b, s, strlen(s));
}

static int md_only(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return n > 3 && !strcmp(d->d_name + n - 3, ".md");
}

/* Reads the fenced blocks of one page: the runnable ones into blocks, the
 * unmarked sh and console ones into unmarked. */
static void read_page(const char *dir, const char *name)
{
	char path[PATH_MAX], line[8192], prev[8192] = "", info[64] = "";
	struct byte_buffer b = { 0 };
	unsigned int nr = 0, start = 0;
	bool in = false, runnable = false, command = false;
	FILE *f;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		fail_msg("%s/%s: too long", dir, name);
	f = fopen(path, "r");
	if (!f)
		fail_msg("cannot read %s", path);
	while (fgets(line, sizeof(line), f)) {
		nr++;
		if (!in && !strncmp(line, "```", 3)) {
			snprintf(info, sizeof(info), "%.63s", line + 3);
			info[strcspn(info, " \t\r\n")] = '\0';
			in = true;
			start = nr;
			runnable = !strncmp(prev, RUNNABLE_MARK, strlen(RUNNABLE_MARK));
			command = !strcmp(info, "sh") || !strcmp(info, "console");
			if ((command && !runnable && strncmp(prev, NOT_RUNNABLE_MARK,
							     strlen(NOT_RUNNABLE_MARK))) ||
			    (runnable && !command))
				snprintf(unmarked + strlen(unmarked), sizeof(unmarked) - strlen(unmarked),
					 " %.64s:%u (```%.16s)", name, nr, info);
		} else if (in && !strncmp(line, "```", 3)) {
			in = false;
			if (runnable && command) {
				struct block *bl;

				blocks = realloc(blocks, (nr_blocks + 1) * sizeof(*blocks));
				assert_non_null(blocks);
				bl = &blocks[nr_blocks++];
				snprintf(bl->doc, sizeof(bl->doc), "%.63s", name);
				bl->line = start;
				bl->transcript = !strcmp(info, "console");
				append(&b, "", 1);
				bl->text = (char *)b.data;
				b = (struct byte_buffer){ 0 };
			}
			byte_buffer_free(&b);
		} else if (in && runnable) {
			append_str(&b, line);
		}
		snprintf(prev, sizeof(prev), "%s", line);
	}
	fclose(f);
	byte_buffer_free(&b);
}

static int read_docs(void **state)
{
	const char *src = getenv("RINGTRACE_SRC");
	struct dirent **names;
	char dir[PATH_MAX];
	int n;

	(void)state;
	if (!src || !*src)
		return 0;
	snprintf(dir, sizeof(dir), "%s/docs", src);
	n = scandir(dir, &names, md_only, alphasort);
	for (int i = 0; i < n; i++) {
		read_page(dir, names[i]->d_name);
		free(names[i]);
	}
	if (n > 0)
		free(names);
	return 0;
}

/* line as the test runs it: "sleep N" sleeps at most SHORT_SLEEP seconds,
 * DOCS_PORT is port. */
static void append_runnable(struct byte_buffer *b, const char *line, int port)
{
	char ports[16];
	const char *p = line;

	snprintf(ports, sizeof(ports), "%d", port);
	while (*p) {
		if (!strncmp(p, "sleep ", 6) && isdigit((unsigned char)p[6]) &&
		    (p == line || !isalnum((unsigned char)p[-1]))) {
			char n[32];

			snprintf(n, sizeof(n), "sleep %g", atof(p + 6) < SHORT_SLEEP ? atof(p + 6) :
				 SHORT_SLEEP);
			append_str(b, n);
			for (p += 6; isdigit((unsigned char)*p) || *p == '.'; p++)
				;
		} else if (!strncmp(p, DOCS_PORT, strlen(DOCS_PORT))) {
			append_str(b, ports);
			p += strlen(DOCS_PORT);
		} else {
			append(b, p++, 1);
		}
	}
}

/* The block as one bash script run in work/, stopping at the first command
 * that fails; a transcript's commands each write what they print into
 * ../out/INDEX.K (K from 0). */
static void block_script(struct byte_buffer *s, const struct block *bl, size_t index,
			 const char *bin, int port)
{
	char *copy = strdup(bl->text), *save = NULL, head[PATH_MAX + 256];
	unsigned int k = 0;

	snprintf(head, sizeof(head),
		 "set -e -x\nexport PATH=\"%s:$PATH\"\n"
		 "trap 'kill $(jobs -p) 2>/dev/null || :; wait' EXIT\n", bin);
	append_str(s, head);
	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char redirect[128];

		if (!bl->transcript) {
			append_runnable(s, line, port);
			append_str(s, "\n");
			continue;
		}
		if (strncmp(line, "$ ", 2))
			continue;
		append_str(s, "{ ");
		append_runnable(s, line + 2, port);
		snprintf(redirect, sizeof(redirect),
			 "\n} >../out/%zu.%u 2>&1 || { cat ../out/%zu.%u; exit 1; }\n", index, k, index, k);
		append_str(s, redirect);
		k++;
	}
	free(copy);
}

/* Whether name (under work) is a file with bytes in it, or a recording: a
 * directory whose data (or a snapshot's) holds something. */
static bool holds_something(const char *work, const char *name)
{
	char path[PATH_MAX * 2];
	struct stat st;
	glob_t g;
	bool found;

	snprintf(path, sizeof(path), "%s/%s", work, name);
	if (stat(path, &st))
		return false;
	if (S_ISREG(st.st_mode))
		return st.st_size > 0;
	snprintf(path, sizeof(path), "%s/%s/data", work, name);
	if (!stat(path, &st))
		return S_ISREG(st.st_mode) && st.st_size > 0;
	snprintf(path, sizeof(path), "%s/%s/snapshot-*/data", work, name);
	found = !glob(path, 0, NULL, &g) && g.gl_pathc > 0;
	if (found)
		found = !stat(g.gl_pathv[0], &st) && st.st_size > 0;
	globfree(&g);
	return found;
}

/* Checks every file the block's commands name by an option that writes one,
 * or as merge's output; -o's may be a rotation's outputs, DIR.*. Returns
 * how many it checked. */
static unsigned int check_named_files(const struct block *bl, const char *work)
{
	static const char *const writers[] = { "-o", "--output", "--flamegraph", "--pprof",
					       "--metrics" };
	char *copy = strdup(bl->text), *save = NULL;
	unsigned int nr = 0;

	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *words[64], *wsave = NULL;
		size_t n = 0;

		if (bl->transcript && strncmp(line, "$ ", 2))
			continue;
		for (char *w = strtok_r(line, " \t", &wsave); w && n < 64 && *w != '#';
		     w = strtok_r(NULL, " \t", &wsave))
			words[n++] = w;
		for (size_t i = 0; i < n; i++) {
			const char *name = NULL;

			for (size_t j = 0; j < sizeof(writers) / sizeof(writers[0]); j++) {
				size_t len = strlen(writers[j]);

				if (!strcmp(words[i], writers[j]) && i + 1 < n)
					name = words[i + 1];
				else if (!strncmp(words[i], writers[j], len) && words[i][len] == '=')
					name = words[i] + len + 1;
			}
			if (!strcmp(words[i], "merge") && i > 0 && strstr(words[i - 1], "ringtrace") &&
			    i + 2 < n)
				name = words[i + 2];
			if (!name || !strcmp(name, "-"))
				continue;
			nr++;
			if (!holds_something(work, name)) {
				char pattern[PATH_MAX * 2];
				glob_t g;
				bool ok;

				if (snprintf(pattern, sizeof(pattern), "%s/%s.*", work, name) >=
				    (int)sizeof(pattern))
					fail_msg("%s: name too long", name);
				ok = !strcmp(words[i], "-o") && !glob(pattern, 0, NULL, &g) && g.gl_pathc;
				for (size_t k = 0; ok && k < g.gl_pathc; k++)
					ok = holds_something("/", g.gl_pathv[k]);
				if (!strcmp(words[i], "-o"))
					globfree(&g);
				if (!ok)
					fail_msg("docs/%s:%u: %s names %s, which it did not write (or "
						 "wrote empty)", bl->doc, bl->line, words[i], name);
			}
		}
	}
	free(copy);
	return nr;
}

/*
 * Shapes. A line shown as output is compared with what was printed by its
 * shape: its words, each number (digits, a hex address) standing for any
 * number and a size's unit (B, KiB, MiB, GiB) for any unit. A "#" line (a
 * report's header) and a "ringtrace:" line keep their other words as they
 * are, and a number shown as other than 0 there must not be 0 (a recording
 * that should hold samples holds some); the other lines (table rows, stacks,
 * script lines) are only numbers and words, whatever they say.
 */
#define ANY_NUMBER '\x01'
#define NOT_ZERO '\x02'
#define ANY_UNIT '\x03'
#define ANY_WORD '\x04'

/* A number: decimal (with a point inside), or hex (an address, 0x or not)
 * with a decimal digit in it. */
static bool is_number(const char *s, size_t n)
{
	size_t dec = 0;

	if (n > 2 && s[0] == '0' && s[1] == 'x')
		s += 2, n -= 2;
	for (size_t i = 0; i < n; i++) {
		if (isdigit((unsigned char)s[i]))
			dec++;
		else if (!isxdigit((unsigned char)s[i]) && !(s[i] == '.' && i > 0 && i + 1 < n))
			return false;
	}
	return dec > 0;
}

static bool is_unit(const char *s, size_t n)
{
	return (n == 1 && *s == 'B') || (n == 3 && (!strncmp(s, "KiB", 3) || !strncmp(s, "MiB", 3) ||
						    !strncmp(s, "GiB", 3)));
}

/* Whether line keeps its words in its shape: a "#" or "ringtrace:" line. */
static bool literal_line(const char *line)
{
	line += strspn(line, " \t");
	return *line == '#' || !strncmp(line, "ringtrace:", 10);
}

/* The shape of line into out (tokens joined by single spaces). */
static void shape(const char *line, char *out, size_t len)
{
	bool literal = literal_line(line);
	size_t at = 0;

	out[0] = '\0';
	for (const char *p = line; *p;) {
		const char *w, *core, *end;
		char tok[512];

		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		for (w = p; *p && !isspace((unsigned char)*p); p++)
			;
		for (core = w; core < p && !isalnum((unsigned char)*core); core++)
			;
		for (end = p; end > core && !isalnum((unsigned char)end[-1]); end--)
			;
		if (core < end && is_number(core, (size_t)(end - core))) {
			bool zero = strspn(core, "0.") >= (size_t)(end - core);

			if (literal)
				snprintf(tok, sizeof(tok), "%.*s%c%.*s", (int)(core - w), w,
					 zero ? ANY_NUMBER : NOT_ZERO, (int)(p - end), end);
			else
				snprintf(tok, sizeof(tok), "%c", ANY_NUMBER);
		} else if (literal && is_unit(core, (size_t)(end - core))) {
			snprintf(tok, sizeof(tok), "%.*s%c%.*s", (int)(core - w), w, ANY_UNIT,
				 (int)(p - end), end);
		} else if (literal) {
			snprintf(tok, sizeof(tok), "%.*s", (int)(p - w), w);
		} else {
			snprintf(tok, sizeof(tok), "%c", ANY_WORD);
		}
		if (at < len)
			at += (size_t)snprintf(out + at, len - at, "%s%s", at ? " " : "", tok);
	}
}

/* Whether got (the shape of a line printed) fits want (of a line shown): a
 * number shown as 0 fits any number, one shown otherwise a number not 0. */
static bool fits(const char *want, const char *got)
{
	for (; *want && *got; want++, got++)
		if (*want != *got && !(*want == ANY_NUMBER && *got == NOT_ZERO))
			return false;
	return !*want && !*got;
}

/* For printing a shape: its placeholders as N, N+, U, W. */
static void shape_text(const char *s, char *out, size_t len)
{
	size_t at = 0;

	for (; *s && at + 3 < len; s++) {
		const char *r = *s == ANY_NUMBER ? "N" : *s == NOT_ZERO ? "N+" :
				*s == ANY_UNIT ? "U" : *s == ANY_WORD ? "W" : NULL;

		if (r)
			at += (size_t)snprintf(out + at, len - at, "%s", r);
		else
			out[at++] = *s;
	}
	out[at] = '\0';
}

/* Splits text into its lines (text is cut). */
static size_t split_lines(char *text, char **lines, size_t max)
{
	size_t n = 0;

	for (char *p = text; *p && n < max;) {
		lines[n++] = p;
		p += strcspn(p, "\n");
		if (*p)
			*p++ = '\0';
	}
	return n;
}

/* Whether line is left out of the comparison: blank, or "..." (lines left out). */
static bool skipped(const char *line)
{
	line += strspn(line, " \t");
	return !*line || !strncmp(line, "...", 3);
}

/* Fails the test: cmd printed got (NULL: nothing more) where the page shows
 * want (NULL: nothing more). */
static void shape_mismatch(const struct block *bl, const char *cmd, const char *shown,
			   const char *printed, const char *want, const char *got)
{
	char sh[4096], text[4096];

	shape(want ? want : got, sh, sizeof(sh));
	shape_text(sh, text, sizeof(text));
	fprintf(stderr, "docs/%s:%u: $ %s\nshows:\n%s\nprinted:\n%s\n", bl->doc, bl->line, cmd, shown,
		printed);
	fflush(stderr);
	if (!got)
		fail_msg("docs/%s:%u: `%s` printed no line of the shape of \"%s\" (%s), in order: "
			 "what it printed is above", bl->doc, bl->line, cmd, want, text);
	if (!want)
		fail_msg("docs/%s:%u: `%s` printed the header line \"%s\" (%s), which the page does "
			 "not show: what it printed is above", bl->doc, bl->line, cmd, got, text);
	fail_msg("docs/%s:%u: `%s` printed the header line \"%s\" where the page shows \"%s\" "
		 "(%s): what it printed is above", bl->doc, bl->line, cmd, got, want, text);
}

/* Checks that printed, what cmd printed, has the shape of shown, the lines
 * the block shows after it: the "#" lines (a report's header) one for one,
 * each other line shown in order among the lines printed. */
static void check_shape(const struct block *bl, const char *cmd, const char *shown,
			const char *printed)
{
	static char *want[4096], *got[65536];
	char *w = strdup(shown), *g = strdup(printed), a[4096], b[4096];
	size_t nw = split_lines(w, want, 4096), ng = split_lines(g, got, 65536), at = 0, hw = 0, hg = 0;

	for (size_t i = 0; i < nw; i++) {
		if (want[i][0] != '#')
			continue;
		while (hg < ng && got[hg][0] != '#')
			hg++;
		shape(want[i], a, sizeof(a));
		if (hg == ng)
			shape_mismatch(bl, cmd, shown, printed, want[i], NULL);
		shape(got[hg], b, sizeof(b));
		if (!fits(a, b))
			shape_mismatch(bl, cmd, shown, printed, want[i], got[hg]);
		hg++;
		hw++;
	}
	while (hw && hg < ng && got[hg][0] != '#')
		hg++;
	if (hw && hg < ng)
		shape_mismatch(bl, cmd, shown, printed, NULL, got[hg]);
	for (size_t i = 0; i < nw; i++) {
		if (want[i][0] == '#' || skipped(want[i]))
			continue;
		shape(want[i], a, sizeof(a));
		for (; at < ng; at++) {
			if (got[at][0] == '#')
				continue;
			shape(got[at], b, sizeof(b));
			if (fits(a, b))
				break;
		}
		if (at == ng)
			shape_mismatch(bl, cmd, shown, printed, want[i], NULL);
		at++;
	}
	free(w);
	free(g);
}

/* Checks what each command of a transcript printed (out/INDEX.K) against
 * what the block shows after it; returns the lines compared. */
static unsigned int check_transcript(const struct block *bl, size_t index, const char *out)
{
	char *copy = strdup(bl->text), *lines[1024], path[PATH_MAX * 2];
	size_t n = split_lines(copy, lines, 1024);
	unsigned int k = 0, compared = 0;

	for (size_t i = 0; i < n; i++) {
		struct byte_buffer shown = { 0 };
		char *printed = NULL;

		if (strncmp(lines[i], "$ ", 2))
			continue;
		for (size_t j = i + 1; j < n && strncmp(lines[j], "$ ", 2); j++) {
			append_str(&shown, lines[j]);
			append_str(&shown, "\n");
			compared += !skipped(lines[j]);
		}
		append(&shown, "", 1);
		if (snprintf(path, sizeof(path), "%s/%zu.%u", out, index, k++) >= (int)sizeof(path))
			fail_msg("%s: too long", out);
		if (tu_sh(&printed, "cat %s", path))
			fail_msg("docs/%s:%u: nothing printed by `%s` was kept (%s)", bl->doc, bl->line,
				 lines[i] + 2, path);
		check_shape(bl, lines[i] + 2, (const char *)shown.data, printed);
		free(printed);
		byte_buffer_free(&shown);
	}
	free(copy);
	return compared;
}

/* Each sh and console block of docs/ says whether it runs as shown. */
static void test_docs_blocks_marked(void **state)
{
	(void)state;
	if (!getenv("RINGTRACE_SRC") || !*getenv("RINGTRACE_SRC"))
		tu_skip("RINGTRACE_SRC is not set: run the test through make (make check)");
	if (unmarked[0])
		fail_msg("blocks of docs/ marked neither \"%s -->\" nor \"%s WHY -->\" on the line "
			 "before their fence (a runnable block is ```sh or ```console):%s",
			 RUNNABLE_MARK, NOT_RUNNABLE_MARK, unmarked);
}

static void test_docs_runnable_blocks(void **state)
{
	/* what the runnable blocks run between them, at least */
	static const char *const needed[] = { "record -a", "-g", "--off-cpu", "usdt:", "uprobe:",
					      "-e syscalls:", "report", "script", "merge",
					      "snapshot", "--overwrite", "trace --summary", "export",
					      "--switch-output" };
	struct byte_buffer all = { 0 };
	char *dir, *out = NULL, path[PATH_MAX * 2], bin[PATH_MAX], work[PATH_MAX * 2],
		outs[PATH_MAX * 2];
	unsigned int nr_files = 0, nr_lines = 0;
	int port;

	(void)state;
	tu_skip_unless_possible();
	if (!getenv("RINGTRACE_SRC") || !*getenv("RINGTRACE_SRC"))
		tu_skip("RINGTRACE_SRC is not set: run the test through make (make check)");
	for (size_t i = 0; i < nr_blocks; i++)
		append_str(&all, blocks[i].text);
	append(&all, "", 1);
	for (size_t i = 0; i < sizeof(needed) / sizeof(needed[0]); i++)
		if (!strstr((const char *)all.data, needed[i]))
			fail_msg("no runnable block of docs/ runs \"%s\" (%zu runnable blocks)", needed[i],
				 nr_blocks);
	byte_buffer_free(&all);

	/* ringtrace and loadgen, the build's, first in PATH */
	dir = tu_tempdir();
	snprintf(bin, sizeof(bin), "%s/bin", dir);
	if (tu_sh(&out, "mkdir %s && ln -s %s %s/ringtrace && ln -s %s %s/loadgen", bin,
		  tu_ringtrace(), bin, tu_loadgen(), bin))
		fail_msg("cannot make %s: %s", bin, out);
	free(out);
	port = tu_free_port();
	for (size_t i = 0; i < nr_blocks; i++) {
		const struct block *bl = &blocks[i];
		struct byte_buffer script = { 0 };
		FILE *f;
		int rc;

		/* each page's blocks in order, in a directory of the page's */
		snprintf(work, sizeof(work), "%s/%s/work", dir, bl->doc);
		snprintf(outs, sizeof(outs), "%s/%s/out", dir, bl->doc);
		if (!i || strcmp(bl->doc, blocks[i - 1].doc)) {
			if (tu_sh(&out, "mkdir -p %s %s", work, outs))
				fail_msg("cannot make %s: %s", work, out);
			free(out);
		}
		block_script(&script, bl, i, bin, port);
		snprintf(path, sizeof(path), "%s/%s/block%zu.sh", dir, bl->doc, i);
		f = fopen(path, "w");
		assert_non_null(f);
		fwrite(script.data, 1, script.len, f);
		fclose(f);
		rc = tu_sh(&out, "cd %s && timeout -s TERM 300 bash %s 2>&1", work, path);
		if (rc) {
			/* cmocka cuts its messages at 4 KiB: the script and its output first */
			fprintf(stderr, "docs/%s:%u, run as:\n%.*s\nexit %d, output:\n%s\n", bl->doc,
				bl->line, (int)script.len, (const char *)script.data, rc, out);
			fflush(stderr);
			fail_msg("docs/%s:%u: the block failed (exit %d): its output above", bl->doc,
				 bl->line, rc);
		}
		free(out);
		byte_buffer_free(&script);
		nr_files += check_named_files(bl, work);
		if (bl->transcript)
			nr_lines += check_transcript(bl, i, outs);
	}
	print_message("docs: %zu runnable blocks run, %u files they name checked, %u lines of "
		      "output compared\n", nr_blocks, nr_files, nr_lines);
	if (nr_files < 10 || nr_lines < 10)
		fail_msg("the runnable blocks of docs/ name fewer than 10 files (%u) or show fewer "
			 "than 10 lines of output (%u)", nr_files, nr_lines);
	tu_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_docs_blocks_marked),
		cmocka_unit_test(test_docs_runnable_blocks),
	};
	const char *why = tu_integration_skip_reason();

	if (!why && system("command -v bash curl go perf timeout /usr/bin/python3 >/dev/null"))
		why = "bash, curl, go, perf, timeout or /usr/bin/python3 is missing (make test-deps "
		      "installs them)";
	tu_set_skip_reason(why);
	return cmocka_run_group_tests(tests, read_docs, NULL);
}
