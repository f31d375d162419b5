/* SPDX-License-Identifier: GPL-2.0-only */
/* trace_filter.c: parses a --filter expression against a tracepoint's format
 * and lays it out as comparisons with jumps (bpf/filter_program.h).
 *
 * Our own parser: libtraceevent's (tep_filter_add_filter_str) takes a field
 * it does not know as false without a word, crashes on "f ==", and has no
 * globs; the kernel's is not reachable without changing what the event's
 * other users see. This one follows the kernel's (trace_events_filter.c):
 * its operators, its fields, quoted strings, kstrtoll/kstrtoull numbers. */
#include "capture/trace_filter.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/byte_buffer.h"
#include "lib/log.h"
#include "lib/spelling.h"
#include "sys/tracefs.h"

#define MAX_NODES (2 * RT_FILTER_MAX_PREDS + 8)

enum node_kind { NODE_PRED, NODE_AND, NODE_OR, NODE_NOT };

struct node {
	enum node_kind kind;
	int left, right; /* children (NOT: left) */
	struct rt_filter_pred pred;
	char pattern[RT_FILTER_PATTERN_BYTES];
};

struct parser {
	const char *expr;
	size_t pos;
	const char *format;
	const char *event;
	struct node nodes[MAX_NODES];
	int nr_nodes, nr_preds;
	int depth; /* of ( and ! being parsed: bounded, as the recursion is */
	char *err;
	size_t errlen;
	int error; /* -errno once an error is set */
};

/* An error is one line: the expression it quotes may hold newlines and
 * tabs (a filter written over lines, read from a file): each control
 * character is shown as a space (one byte for one, the columns hold). */
static void one_line(char *s, size_t len)
{
	for (size_t i = 0; s && i < len && s[i]; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			s[i] = ' ';
}

static int fail(struct parser *p, size_t at, int error, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(struct parser *p, size_t at, int error, const char *fmt, ...)
{
	char what[384];
	va_list ap;

	if (p->error)
		return -1;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	rt_format(p->err, p->errlen, "--filter '%.120s%s' at column %zu: %s", p->expr,
		  strlen(p->expr) > 120 ? "..." : "", at + 1, what);
	one_line(p->err, p->errlen);
	p->error = error;
	return -1;
}

static void skip_space(struct parser *p)
{
	while (isspace((unsigned char)p->expr[p->pos]))
		p->pos++;
}

static bool take(struct parser *p, const char *token)
{
	size_t n = strlen(token);

	skip_space(p);
	if (strncmp(p->expr + p->pos, token, n))
		return false;
	p->pos += n;
	return true;
}

static int new_node(struct parser *p, enum node_kind kind, int left, int right)
{
	struct node *n;

	if (p->nr_nodes == MAX_NODES)
		return fail(p, p->pos, -E2BIG, "too long: at most %d comparisons",
			    RT_FILTER_MAX_PREDS);
	n = &p->nodes[p->nr_nodes];
	memset(n, 0, sizeof(*n));
	n->kind = kind;
	n->left = left;
	n->right = right;
	return p->nr_nodes++;
}

static void offer_field(const struct tracepoint_field *f, void *ctx)
{
	spelling_offer(ctx, f->name);
}

struct name_list {
	char *buf;
	size_t len, used;
};

static void add_name(const struct tracepoint_field *f, void *ctx)
{
	struct name_list *l = ctx;
	int n;

	if (!strncmp(f->name, "common_", 7) || l->used >= l->len)
		return;
	n = snprintf(l->buf + l->used, l->len - l->used, " %s", f->name);
	l->used += n > 0 ? (size_t)n : 0;
}

/* " a b c": the event's own fields' names, as many as buf holds. */
static const char *field_names(const char *format, char *buf, size_t len)
{
	struct name_list l = { buf, len, 0 };

	buf[0] = 0;
	tracefs_format_each_field(format, add_name, &l);
	return buf;
}

/* The field called name: the event's (its common ones among them), else
 * ftrace's cpu and comm. The operand and, for numbers, size, in pred. */
static int resolve_field(struct parser *p, size_t at, const char *name, bool ustring,
			 struct rt_filter_pred *pred)
{
	struct tracepoint_field f;
	struct spelling near;
	char names[256];

	if (tracefs_format_field(p->format, name, &f)) {
		if (!strcmp(name, "cpu") || !strcmp(name, "CPU")) {
			pred->operand = RT_FILTER_ON_CPU;
		} else if (!strcmp(name, "comm") || !strcmp(name, "COMM")) {
			pred->operand = RT_FILTER_COMM;
		} else {
			spelling_init(&near, name);
			tracefs_format_each_field(p->format, offer_field, &near);
			spelling_offer(&near, "comm");
			spelling_offer(&near, "cpu");
			if (spelling_best(&near))
				return fail(p, at, -EINVAL, "no field %s in %s: did you mean %s?",
					    name, p->event, spelling_best(&near));
			return fail(p, at, -EINVAL, "no field %s in %s (its fields:%s)", name,
				    p->event, field_names(p->format, names, sizeof(names)));
		}
		if (ustring)
			return fail(p, at, -EINVAL, ".ustring reads a char * field; %s is not one", name);
		return 0;
	}
	pred->offset = (__u16)f.offset;
	pred->size = (__u16)f.size;
	if (strstr(f.type, "__data_loc") || strstr(f.type, "__rel_loc")) {
		if (!strstr(f.type, "char"))
			return fail(p, at, -EINVAL, "%s is an array of %s: only strings and numbers compare",
				    name, f.type);
		pred->operand = strstr(f.type, "__rel_loc") ? RT_FILTER_REL_LOC : RT_FILTER_DATA_LOC;
	} else if (strchr(f.type, '[')) {
		if (strncmp(f.type, "char[", 5) && !strstr(f.type, " char["))
			return fail(p, at, -EINVAL, "%s is an array (%s): only strings and numbers compare",
				    name, f.type);
		pred->operand = RT_FILTER_CHARS;
	} else if (strstr(f.type, "char *") || strstr(f.type, "char*")) {
		pred->operand = ustring ? RT_FILTER_USER_STRING : RT_FILTER_KERNEL_STRING;
	} else if (f.size == 1 || f.size == 2 || f.size == 4 || f.size == 8) {
		pred->operand = f.is_signed ? RT_FILTER_SIGNED : RT_FILTER_UNSIGNED;
	} else {
		return fail(p, at, -EINVAL, "%s (%s, %u bytes) is not a number or a string", name,
			    f.type, f.size);
	}
	if (ustring && pred->operand != RT_FILTER_USER_STRING)
		return fail(p, at, -EINVAL, ".ustring reads a char * field; %s is %s", name, f.type);
	if (pred->offset + (uint32_t)pred->size > RT_FILTER_RECORD_BYTES)
		return fail(p, at, -EINVAL, "%s lies past the %d bytes a filter reads", name,
			    RT_FILTER_RECORD_BYTES);
	return 0;
}

/* A quoted string as the pattern of n: wildcards (for ~) marked in value,
 * a backslash taking the next byte as it is. */
static int parse_pattern(struct parser *p, struct node *n, bool glob)
{
	char quote = p->expr[p->pos];
	size_t at = p->pos, len = 0;

	if (quote != '"' && quote != '\'')
		return fail(p, at, -EINVAL, "quote the string: \"...\"");
	p->pos++;
	for (;;) {
		char c = p->expr[p->pos];

		if (!c)
			return fail(p, at, -EINVAL, "the string has no closing %c", quote);
		p->pos++;
		if (c == quote)
			break;
		if (glob && c == '\\' && p->expr[p->pos]) {
			c = p->expr[p->pos++];
		} else if (glob && c == '[') {
			return fail(p, p->pos - 1, -EINVAL,
				    "character classes ([...]) are not supported: use * and ?");
		} else if (glob && (c == '*' || c == '?')) {
			n->pred.value |= 1ULL << len;
		}
		if (len == RT_FILTER_PATTERN_BYTES - 1)
			return fail(p, at, -EINVAL, "the string is longer than %d bytes",
				    RT_FILTER_PATTERN_BYTES - 1);
		n->pattern[len++] = c;
	}
	n->pred.pattern_len = (__u8)len;
	/* "*literal": its end compared in one pass */
	n->pred.suffix = glob && len && n->pred.value == 1;
	return 0;
}

/* A number as the kernel's kstrtoll/kstrtoull read it (base 0), cut to the
 * field's size as its comparison casts it. */
static int parse_number(struct parser *p, struct node *n)
{
	size_t at = p->pos;
	const char *s = p->expr + at;
	bool is_signed = n->pred.operand == RT_FILTER_SIGNED;
	unsigned int bits = n->pred.operand == RT_FILTER_ON_CPU ? 32 : n->pred.size * 8u;
	char *end;
	__u64 v;

	if (*s == '"' || *s == '\'')
		return fail(p, at, -EINVAL, "the field is a number, the value a string");
	if (*s == '-' && !is_signed)
		return fail(p, at, -EINVAL, "the field is unsigned: give it as such (0x... for a negative's bits)");
	if (!isdigit((unsigned char)s[*s == '-']))
		return fail(p, at, -EINVAL, "expected a number");
	errno = 0;
	v = is_signed ? (__u64)strtoll(s, &end, 0) : strtoull(s, &end, 0);
	if (errno)
		return fail(p, at, -EINVAL, "the number is out of range");
	if (isalnum((unsigned char)*end) || *end == '_')
		return fail(p, (size_t)(end - p->expr), -EINVAL, "not a number");
	if (bits < 64) {
		v &= (1ULL << bits) - 1;
		if (is_signed && (v >> (bits - 1)))
			v |= ~0ULL << bits;
	}
	n->pred.value = v;
	p->pos = (size_t)(end - p->expr);
	return 0;
}

static const struct {
	const char *token;
	enum rt_filter_cmp cmp;
} ops[] = {
	{ "==", RT_FILTER_EQ }, { "!=", RT_FILTER_NE }, { "<=", RT_FILTER_LE },
	{ ">=", RT_FILTER_GE }, { "<", RT_FILTER_LT },	{ ">", RT_FILTER_GT },
	{ "&", RT_FILTER_BAND }, { "~", RT_FILTER_EQ },
};

/* FIELD[.ustring] OP VALUE */
static int parse_pred(struct parser *p)
{
	size_t at, len, op_at;
	char name[64];
	bool ustring = false, glob;
	struct node *n;
	unsigned int op;
	int id;

	skip_space(p);
	at = p->pos;
	for (len = 0; isalnum((unsigned char)p->expr[at + len]) || p->expr[at + len] == '_'; len++)
		;
	if (!len)
		return fail(p, at, -EINVAL, p->expr[at] ? "expected a field name" : "expected a comparison");
	if (len >= sizeof(name))
		return fail(p, at, -EINVAL, "the field name is too long");
	snprintf(name, sizeof(name), "%.*s", (int)len, p->expr + at);
	p->pos = at + len;
	if (!strncmp(p->expr + p->pos, ".ustring", 8) &&
	    !isalnum((unsigned char)p->expr[p->pos + 8])) {
		ustring = true;
		p->pos += 8;
	} else if (p->expr[p->pos] == '.') {
		return fail(p, p->pos, -EINVAL, "unknown field modifier: ringtrace takes .ustring");
	}
	if ((id = new_node(p, NODE_PRED, -1, -1)) < 0)
		return -1;
	n = &p->nodes[id];
	if (resolve_field(p, at, name, ustring, &n->pred))
		return -1;
	skip_space(p);
	op_at = p->pos;
	for (op = 0; op < sizeof(ops) / sizeof(ops[0]); op++)
		if (!strncmp(p->expr + p->pos, ops[op].token, strlen(ops[op].token)) &&
		    strncmp(p->expr + p->pos, "&&", 2))
			break;
	if (op == sizeof(ops) / sizeof(ops[0]))
		return fail(p, op_at, -EINVAL, "expected an operator: == != < <= > >= & ~");
	p->pos += strlen(ops[op].token);
	n->pred.cmp = (__u8)ops[op].cmp;
	glob = ops[op].token[0] == '~';
	skip_space(p);
	if (rt_filter_is_string(n->pred.operand)) {
		if (n->pred.cmp > RT_FILTER_NE)
			return fail(p, op_at, -EINVAL, "%s is a string: compare it with ==, != or ~", name);
		if (parse_pattern(p, n, glob))
			return -1;
	} else {
		if (glob)
			return fail(p, op_at, -EINVAL, "%s is a number: ~ matches strings", name);
		if (parse_number(p, n))
			return -1;
	}
	if (++p->nr_preds > RT_FILTER_MAX_PREDS)
		return fail(p, at, -E2BIG, "more than %d comparisons", RT_FILTER_MAX_PREDS);
	return id;
}

static int parse_or(struct parser *p);

/* ! TERM | ( OR ) | FIELD OP VALUE */
static int parse_term(struct parser *p)
{
	size_t at;
	int id;

	skip_space(p);
	at = p->pos;
	if (p->expr[at] == '!' || p->expr[at] == '(') {
		if (p->depth == MAX_NODES)
			return fail(p, at, -E2BIG, "nested too deep: at most %d ( and ! in a row",
				    MAX_NODES);
		p->depth++;
		if (take(p, "!")) {
			if ((id = parse_term(p)) >= 0)
				id = new_node(p, NODE_NOT, id, -1);
		} else {
			take(p, "(");
			if ((id = parse_or(p)) >= 0 && !take(p, ")"))
				id = fail(p, p->pos, -EINVAL, "expected ) to close the ( at column %zu",
					  at + 1);
		}
		p->depth--;
		return id;
	}
	return parse_pred(p);
}

static int parse_and(struct parser *p)
{
	int left = parse_term(p), right;

	while (left >= 0 && take(p, "&&")) {
		if ((right = parse_term(p)) < 0)
			return -1;
		left = new_node(p, NODE_AND, left, right);
	}
	return left;
}

static int parse_or(struct parser *p)
{
	int left = parse_and(p), right;

	while (left >= 0 && take(p, "||")) {
		if ((right = parse_and(p)) < 0)
			return -1;
		left = new_node(p, NODE_OR, left, right);
	}
	return left;
}

static int count_preds(const struct parser *p, int id)
{
	const struct node *n = &p->nodes[id];

	switch (n->kind) {
	case NODE_PRED:
		return 1;
	case NODE_NOT:
		return count_preds(p, n->left);
	default:
		return count_preds(p, n->left) + count_preds(p, n->right);
	}
}

/* Lays node id's comparisons out from *next on, jumping to on_true or
 * on_false with its verdict (short-circuit, as && and || evaluate). */
static void emit(const struct parser *p, int id, __u8 on_true, __u8 on_false,
		 struct rt_filter *out, __u32 *next)
{
	const struct node *n = &p->nodes[id];
	__u8 second;

	switch (n->kind) {
	case NODE_PRED:
		out->pred[*next] = n->pred;
		out->pred[*next].on_true = on_true;
		out->pred[*next].on_false = on_false;
		memcpy(out->pattern[*next], n->pattern, sizeof(n->pattern));
		(*next)++;
		break;
	case NODE_NOT:
		emit(p, n->left, on_false, on_true, out, next);
		break;
	case NODE_AND:
		second = (__u8)(*next + (__u32)count_preds(p, n->left));
		emit(p, n->left, second, on_false, out, next);
		emit(p, n->right, on_true, on_false, out, next);
		break;
	case NODE_OR:
		second = (__u8)(*next + (__u32)count_preds(p, n->left));
		emit(p, n->left, on_true, second, out, next);
		emit(p, n->right, on_true, on_false, out, next);
		break;
	}
}

int trace_filter_attach(struct event_desc *events, unsigned int nr, const char *expr, char *err,
			size_t errlen)
{
	unsigned int last;

	if (!nr) {
		rt_format(err, errlen, "--filter \"%s\" has no -e before it: give it after the tracepoint's -e",
			  expr);
		one_line(err, errlen);
		return -EINVAL;
	}
	if (!*expr) {
		rt_format(err, errlen, "--filter is empty: give an expression, e.g. 'common_pid == 1'");
		return -EINVAL;
	}
	last = events[nr - 1].item;
	for (unsigned int i = nr; i-- > 0 && events[i].item == last;) {
		if (events[i].kind != EVENT_TRACEPOINT) {
			rt_format(err, errlen, "--filter \"%s\" follows %s, not a tracepoint: filters take a tracepoint's fields",
				  expr, events[i].name);
			one_line(err, errlen);
			return -EINVAL;
		}
		if (events[i].filter_expr) {
			rt_format(err, errlen, "--filter given twice for %s: join the two with &&",
				  events[i].name);
			return -EINVAL;
		}
		events[i].filter_expr = expr;
	}
	return 0;
}

int trace_filter_compile_all(struct event_desc *events, unsigned int nr, char *err, size_t errlen)
{
	for (unsigned int i = 0; i < nr; i++) {
		struct event_desc *ev = &events[i];
		struct byte_buffer format = { 0 };
		struct tracepoint_format known;
		char rel[256];
		int r;

		if (!ev->filter_expr)
			continue;
		if (!tracefs_path(err, errlen))
			return -ENOENT;
		snprintf(rel, sizeof(rel), "events/%s/%s/format", ev->system, ev->tracepoint);
		if ((r = tracefs_read_file(rel, &format)) || !byte_buffer_append(&format, "", 1)) {
			byte_buffer_free(&format);
			/* one that does not exist is said as -e says it */
			int unknown = r ? tracefs_read_format(ev->system, ev->tracepoint, &known,
							      err, errlen)
					: 0;

			if (unknown)
				return unknown == -EINVAL ? -ENOENT : unknown;
			rt_format(err, errlen, "cannot read the format of %s for --filter: %s", ev->name,
				  strerror(r ? -r : ENOMEM));
			return r ? r : -ENOMEM;
		}
		ev->filter = malloc(sizeof(*ev->filter));
		r = ev->filter ? trace_filter_compile(ev->filter_expr, (const char *)format.data,
						      ev->name, ev->filter, err, errlen)
			       : -ENOMEM;
		byte_buffer_free(&format);
		if (r == -ENOMEM)
			rt_format(err, errlen, "out of memory compiling --filter");
		if (r)
			return r;
	}
	return 0;
}

void trace_filter_free_all(struct event_desc *events, unsigned int nr)
{
	for (unsigned int i = 0; i < nr; i++) {
		free(events[i].filter);
		events[i].filter = NULL;
	}
}

int trace_filter_compile(const char *expr, const char *format_text, const char *event,
			 struct rt_filter *out, char *err, size_t errlen)
{
	struct parser *p = calloc(1, sizeof(*p));
	int root;

	if (!p) {
		rt_format(err, errlen, "out of memory compiling --filter");
		return -ENOMEM;
	}
	*p = (struct parser){ .expr = expr, .format = format_text, .event = event, .err = err,
			      .errlen = errlen };
	root = parse_or(p);
	skip_space(p);
	if (root >= 0 && expr[p->pos])
		fail(p, p->pos, -EINVAL, "unexpected \"%.8s\": expected &&, || or the end",
		     expr + p->pos);
	if (!p->error) {
		memset(out, 0, sizeof(*out));
		emit(p, root, RT_FILTER_ACCEPT, RT_FILTER_REJECT, out, &out->nr_preds);
	}
	root = p->error;
	free(p);
	return root;
}
