/* SPDX-License-Identifier: GPL-2.0-only */
/* format_check.c: whether libtraceevent parses a tracepoint format, and
 * prints a record of zeros by it, without crashing: tried in a child process. */
#include "report/format_check.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <traceevent/event-parse.h>

#include "lib/full_io.h"

/* libtraceevent dereferences NULL on some malformed print fmts (a recording
 * is untrusted input), so a checker process tries each format first. One
 * checker tries them all, one after another, over a socket; one that dies (or
 * takes over CHECK_TIMEOUT_MS) gives that format the verdict "unsafe", and
 * the next format a new checker: a fork per crash, not per format.
 *
 * The checkers are forked by a forker, itself forked once, when the first
 * format is tried: a fork write-protects every page of the process forked,
 * and each page it writes after costs a fault (and a copy while the child
 * lives). The reader of many recordings (the fuzzer: a checker crashed every
 * few hundred inputs, with 300 MiB of ASan's heap) paid that for most pages
 * it wrote; the forker keeps the memory the reader had at the first format,
 * and writes little of it. */
#define CHECK_TIMEOUT_MS 2000
/* The forker's answer takes a checker's time, and maybe a fork. */
#define FORKER_TIMEOUT_MS (CHECK_TIMEOUT_MS + 2000)
#define CHECK_MAX_TEXT (1u << 20)
/* Formats one checker tries before it is replaced: libtraceevent leaks a
 * little on each it fails to parse, and the checker's memory stays bounded. */
#define CHECK_FORMATS_PER_CHILD 1000

struct check_request {
	uint32_t text_len;
	uint16_t system_len;
	uint8_t big_endian, long_size;
};

/* A child process and the socket to it; pid 0: none. */
struct child {
	pid_t pid;
	int fd; /* our end of the socket */
	unsigned int tried;
};

/* The reader's forker. */
static struct child forker = { 0, -1, 0 };

/* Names its field twice: the first clears the flag __print_flags leaves,
 * the second __print_symbolic's (each field name clears one, in order). A
 * block of fields after the common one, as the kernel writes formats (a
 * format of the common block alone is not read to its print fmt). */
static const char reset_format[] = "name: reset\nID: 1\nformat:\n"
				   "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\n"
				   "\tfield:int x;\toffset:4;\tsize:4;\tsigned:1;\n\n"
				   "print fmt: \"%d %d\", REC->x, REC->x\n";

/* text with each tab inside a quoted string of its print fmt written as
 * the escape "\t": libtraceevent 1.7 fails a print fmt holding a raw tab
 * (maple_tree's "%s\tNode: ..."), perf's own parser does not, and both
 * print the escape as a tab. A new string (*len its length), or NULL. */
static char *tabs_escaped(const char *text, size_t *len)
{
	const char *fmt = memmem(text, *len, "\nprint fmt:", 11);
	size_t n = *len, tabs = 0, at = 0;
	bool quoted = false;
	char *out;

	for (size_t i = fmt ? (size_t)(fmt - text) : n; i < n; i++)
		tabs += text[i] == '\t';
	out = malloc(n + tabs + 1);
	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		char c = text[i];

		if (fmt && text + i > fmt) {
			if (c == '"' && (!i || text[i - 1] != '\\'))
				quoted = !quoted;
			if (quoted && c == '\t') {
				out[at++] = '\\';
				c = 't';
			}
		}
		out[at++] = c;
	}
	out[at] = '\0';
	*len = at;
	return out;
}

int format_parse(struct tep_handle *tep, struct tep_event **ev, const char *text, size_t len,
		 const char *system)
{
	struct tep_handle *scratch = tep_alloc();
	struct tep_event *reset = NULL;
	char *escaped;
	int r;

	if (!scratch)
		return -1;
	r = tep_parse_format(scratch, &reset, reset_format, sizeof(reset_format) - 1, "reset");
	tep_free(scratch);
	if (r || !(escaped = tabs_escaped(text, &len)))
		return -1;
	r = tep_parse_format(tep, ev, escaped, len, system);
	free(escaped);
	return r;
}

/* A checker: tries each format it reads, answers 1 for each it survives. */
static void __attribute__((noreturn)) run_checker(int fd)
{
	static const int fatal[] = { SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL };
	uint8_t *zeros = calloc(1, FORMAT_CHECK_SCRATCH_SIZE);
	struct check_request q;

	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		signal(fatal[i], SIG_DFL); /* die quietly, not in a handler */
	while (zeros && !read_full(fd, &q, sizeof(q))) {
		char *system = calloc(1, (size_t)q.system_len + 1), *text = malloc(q.text_len + 1);
		struct tep_handle *tep = tep_alloc();
		struct tep_record record = { .data = zeros, .size = 64 };
		struct tep_event *ev = NULL;
		uint8_t yes = 1;

		if (!system || !text || !tep || q.text_len > CHECK_MAX_TEXT ||
		    read_full(fd, system, q.system_len) || read_full(fd, text, q.text_len))
			_exit(1);
		tep_set_file_bigendian(tep, q.big_endian ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
		tep_set_long_size(tep, q.long_size);
		if (!format_parse(tep, &ev, text, q.text_len, system) && ev) {
			struct trace_seq seq;

			trace_seq_init(&seq);
			tep_print_event(tep, &seq, &record, "%s", TEP_PRINT_INFO);
			trace_seq_destroy(&seq);
		}
		tep_free(tep);
		free(system);
		free(text);
		if (send_full(fd, &yes, 1))
			_exit(1);
	}
	_exit(0);
}

static void child_end(struct child *c)
{
	if (c->fd >= 0)
		close(c->fd);
	if (c->pid > 0) {
		kill(c->pid, SIGKILL);
		while (waitpid(c->pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	*c = (struct child){ 0, -1, 0 };
}

static bool child_start(struct child *c, void (*run)(int fd))
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return false;
	c->pid = fork();
	if (c->pid < 0) {
		close(sv[0]);
		close(sv[1]);
		c->pid = 0;
		return false;
	}
	if (c->pid == 0) {
		close(sv[0]);
		run(sv[1]); /* never returns */
	}
	close(sv[1]);
	c->fd = sv[0];
	return true;
}

/* c's answer (a byte) to a request for a format, c started by run if there
 * is none; -ECHILD if none could start, -EIO if none came within
 * timeout_ms: c is ended then (it died on the format, or hangs) and a new one
 * started next time. */
static int ask(struct child *c, void (*run)(int fd), const struct check_request *q,
	       const char *system, const char *text, int timeout_ms)
{
	struct pollfd pfd;
	uint8_t answer;

	if (c->fd < 0 && !child_start(c, run))
		return -ECHILD;
	pfd = (struct pollfd){ .fd = c->fd, .events = POLLIN };
	if (send_full(c->fd, q, sizeof(*q)) || send_full(c->fd, system, q->system_len) ||
	    send_full(c->fd, text, q->text_len) || poll(&pfd, 1, timeout_ms) != 1 ||
	    read_full(c->fd, &answer, 1)) {
		child_end(c);
		return -EIO;
	}
	return answer;
}

/* The forker: reads each format, has its checker try it (a new checker
 * after a crash, a hang or CHECK_FORMATS_PER_CHILD formats), answers 1 if
 * it survived, else 0; ends when the reader closes its end. */
static void __attribute__((noreturn)) run_forker(int fd)
{
	struct child checker = { 0, -1, 0 };
	struct check_request q;

	while (!read_full(fd, &q, sizeof(q)) && q.text_len <= CHECK_MAX_TEXT) {
		char *system = malloc((size_t)q.system_len + 1), *text = malloc(q.text_len + 1);
		uint8_t safe;

		if (!system || !text || read_full(fd, system, q.system_len) ||
		    read_full(fd, text, q.text_len))
			break;
		safe = ask(&checker, run_checker, &q, system, text, CHECK_TIMEOUT_MS) == 1;
		if (safe && ++checker.tried >= CHECK_FORMATS_PER_CHILD)
			child_end(&checker);
		free(system);
		free(text);
		if (send_full(fd, &safe, 1))
			break;
	}
	child_end(&checker);
	_exit(0);
}

static bool try_in_child(const struct tracing_data_contents *c, const struct tracing_data_text *t)
{
	size_t system_len = strlen(t->system);
	struct check_request q = { .text_len = (uint32_t)t->len,
				   .system_len = (uint16_t)system_len,
				   .big_endian = c->big_endian,
				   .long_size = (uint8_t)c->long_size };

	if (t->len > CHECK_MAX_TEXT || system_len > UINT16_MAX)
		return false;
	return ask(&forker, run_forker, &q, t->system, t->text, FORKER_TIMEOUT_MS) == 1;
}

/* The verdicts on formats tried, by a 64-bit FNV-1a hash of their layout,
 * system and text: a process that reads many recordings (the fuzzer) forks
 * once per distinct format. Direct-mapped; 0 is an empty slot. */
#define VERDICT_SLOTS 1024
static struct {
	uint64_t hash;
	bool safe;
} verdicts[VERDICT_SLOTS];

static uint64_t fnv1a(uint64_t h, const void *data, size_t len)
{
	const uint8_t *p = data;

	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h;
}

bool format_check_safe(const struct tracing_data_contents *c, const struct tracing_data_text *t)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t slot;

	h = fnv1a(h, &c->big_endian, sizeof(c->big_endian));
	h = fnv1a(h, &c->long_size, sizeof(c->long_size));
	h = fnv1a(h, t->system, strlen(t->system) + 1);
	h = fnv1a(h, t->text, t->len) | 1; /* never 0 */
	slot = h % VERDICT_SLOTS;
	if (verdicts[slot].hash != h) {
		verdicts[slot].safe = try_in_child(c, t);
		verdicts[slot].hash = h;
	}
	return verdicts[slot].safe;
}
