/* SPDX-License-Identifier: GPL-2.0-only */
/* unwind_builder.c: two threads that compile unwind tables from .eh_frame
 * into the BPF rows' layout, within a budget and cancellable, so that the
 * recording goes on draining meanwhile and stops at once when told: one takes
 * the urgent jobs alone (files of processes that run now), the other the
 * urgent ones first, then the backlog, so that no backlog file's compile
 * holds up a process that has just started. An urgent file is compiled in
 * two stages when it has long FDEs: its table without them first, handed
 * over at once, then the whole; a big one's first stage in two parts, one
 * for each thread, each put in the BPF layout on its thread and the two
 * handed over before they are joined for the second stage. */
#include "record/unwind_builder.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/log.h"
#include "lib/memory_trim.h"
#include "lib/monotonic.h"
#include "record/unwind_bpf_rows.h"
#include "symbols/unwind_compile.h"
#include "sys/privileges.h"

struct job {
	struct job *next;
	void *tag;
	int fd;
	bool urgent;
	bool staged;                /* its first stage handed over, the second to come */
	struct unwind_table first;  /* that first stage's table */
	bool keyed;
	struct unwind_cache_key key;
	struct unwind_cache *cache;
	const struct unwind_budget *budget;
	struct unwind_built done;
};

struct builder_thread {
	struct unwind_builder *b;
	pthread_t thread;
	bool urgent_only;
};

#define BUILDER_THREADS 2

/* A file this big (cc1: 30 MB, 480,000 rows) has its first stage compiled in
 * two parts at once, when the other thread is free to take one. */
#define SPLIT_MIN_FILE_BYTES (4 << 20)

/* The second part of an urgent file's first stage, for the other thread. */
struct part_job {
	int fd;
	const struct unwind_budget *budget;
	struct unwind_stage stage;
	struct unwind_table t;
	struct rt_unwind_row *rows; /* t in the BPF layout; NULL if it does not fit */
	enum unwind_refusal why;
	int r;
	bool taken, done;
};

struct unwind_builder {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_cond_t part_done;
	struct part_job *part; /* offered, not taken yet */
	struct builder_thread threads[BUILDER_THREADS];
	unsigned int nr_started;
	bool stopping;
	_Atomic bool cancel;           /* the compile at hand stops at once */
	int nice_delta;                /* unwind_builder_start's */
	unsigned int nr_ready;         /* threads at their nice value, without capabilities */
	pthread_cond_t ready;
	struct unwind_budget budget;   /* each file's */
	int event_fd;
	/* the creating thread's affinity when the builder was made: its threads,
	 * started later by the drain thread, not kept off a CPU with it */
	cpu_set_t cpus;
	bool cpus_known;
	struct unwind_cache *cache;
	struct job *todo, **todo_tail; /* FIFO */
	struct job *urgent, **urgent_tail; /* FIFO, taken before todo */
	struct job *done, **done_tail;
	size_t pending;                /* submitted, not collected */
};

/* table's rows into out, unless they are there already (first_stage puts a
 * table compiled in parts there itself). */
static void take_table(struct unwind_built *out, const struct unwind_table *table)
{
	if (!out->rows) {
		out->rows = unwind_bpf_rows_of(table);
		out->nr = out->rows ? (uint32_t)table->nr : 0;
	}
	out->exec_vaddr_delta = table->exec_vaddr_delta;
	if (!out->rows)
		out->refusal = table->nr > RT_UNWIND_MAX_ROWS ? UNWIND_OVER_ROWS : UNWIND_PAST_4GIB;
}

static void put_done(struct unwind_builder *b, struct job *j)
{
	uint64_t one = 1;

	pthread_mutex_lock(&b->lock);
	j->next = NULL;
	*b->done_tail = j;
	b->done_tail = &j->next;
	if (write(b->event_fd, &one, sizeof(one)) < 0) {
		/* the counter cannot overflow here: the reader drains it */
	}
	pthread_mutex_unlock(&b->lock);
}

/* The first stage's table, its rows in the BPF layout (freed here if it
 * cannot be), handed over now as a job of its own (the second stage's comes
 * with the job itself); false if it cannot be. */
static bool hand_over_first_stage(struct unwind_builder *b, const struct job *j,
				  struct rt_unwind_row *rows, uint32_t nr, int64_t exec_vaddr_delta)
{
	struct job *early = rows ? calloc(1, sizeof(*early)) : NULL;

	if (!early) {
		free(rows);
		return false;
	}
	early->fd = -1;
	/* its seconds are counted in the job's, which spans both stages */
	early->done = (struct unwind_built){ .tag = j->tag, .first_stage = true, .rows = rows,
					     .nr = nr, .exec_vaddr_delta = exec_vaddr_delta };
	pthread_mutex_lock(&b->lock);
	b->pending++; /* collected apart from the job's own */
	pthread_mutex_unlock(&b->lock);
	put_done(b, early);
	return true;
}

static void run_part(struct part_job *p)
{
	char err[256];

	p->r = unwind_table_build_staged(p->fd, p->budget, &p->stage, &p->t, &p->why, err,
					 sizeof(err));
	if (!p->r)
		p->rows = unwind_bpf_rows_of(&p->t);
}

/* Offers the other thread a part of j's first stage: true if it may take it
 * (a big file, two threads, no other part waiting). */
static bool offer_part(struct unwind_builder *b, const struct job *j, struct part_job *p)
{
	struct stat st;
	bool offered = false;

	if (fstat(j->fd, &st) || st.st_size < SPLIT_MIN_FILE_BYTES)
		return false;
	pthread_mutex_lock(&b->lock);
	if (b->nr_started > 1 && !b->part) {
		b->part = p;
		offered = true;
		pthread_cond_broadcast(&b->wake);
	}
	pthread_mutex_unlock(&b->lock);
	return offered;
}

/* j's first stage into first: a big file's in two parts, the second taken by
 * the other thread (or by this one once done with its own, if it is busy);
 * such a stage's rows in the BPF layout are handed over before the parts
 * are joined into first (*handed_over) when FDEs are left to a second stage,
 * else put in j->done as the whole table's. */
static int first_stage(struct unwind_builder *b, struct job *j, struct unwind_table *first,
		       enum unwind_refusal *why, bool *handed_over)
{
	struct unwind_stage stage = { .defer_over_cfi_bytes = UNWIND_STAGE_DEFER_OVER_CFI_BYTES };
	struct part_job parts[2] = { { .fd = j->fd, .budget = j->budget, .stage = stage },
				     { .fd = j->fd, .budget = j->budget, .stage = stage } };
	struct part_job *mine = &parts[0], *other = &parts[1];
	struct rt_unwind_row *rows = NULL;
	uint32_t nr = 0;
	char err[256];
	int r;

	memset(first, 0, sizeof(*first));
	*handed_over = false;
	other->stage.part = 1;
	other->stage.parts = 2;
	if (!offer_part(b, j, other))
		return unwind_table_build_staged(j->fd, j->budget, &stage, first, why, err,
						 sizeof(err));
	mine->stage.parts = 2;
	run_part(mine);
	r = mine->r;
	*why = mine->why;
	pthread_mutex_lock(&b->lock);
	if (!other->taken) { /* the other thread is busy: ours too */
		other->taken = true;
		b->part = NULL;
		pthread_mutex_unlock(&b->lock);
		run_part(other);
		pthread_mutex_lock(&b->lock);
		other->done = true;
	}
	while (!other->done)
		pthread_cond_wait(&b->part_done, &b->lock);
	pthread_mutex_unlock(&b->lock);
	if (!r && other->r) {
		r = other->r;
		*why = other->why;
	}
	struct unwind_table tables[2] = { mine->t, other->t };
	struct rt_unwind_row *const rows_of[2] = { mine->rows, other->rows };

	if (!r)
		rows = unwind_bpf_rows_join(tables, rows_of, 2, &nr);
	if (rows && mine->t.deferred_fdes + other->t.deferred_fdes) {
		*handed_over = hand_over_first_stage(b, j, rows, nr, mine->t.exec_vaddr_delta);
		rows = NULL;
	}
	if (!r && unwind_table_join(tables, 2, first)) {
		r = -ENOMEM;
		*why = UNWIND_NO_MEMORY;
	}
	if (!r && rows) { /* the whole table's, in the BPF layout */
		j->done.rows = rows;
		j->done.nr = nr;
	} else {
		free(rows);
	}
	for (unsigned int p = 0; p < 2; p++) {
		unwind_table_free(&parts[p].t);
		free(parts[p].rows);
	}
	return r;
}

/* Puts an urgent job whose first stage was handed over back at the head of
 * the backlog for its second, so that the files of processes started
 * meanwhile go first, and the start's backlog after. */
static void requeue_second_stage(struct unwind_builder *b, struct job *j)
{
	pthread_mutex_lock(&b->lock);
	j->next = b->todo;
	b->todo = j;
	if (b->todo_tail == &b->todo)
		b->todo_tail = &j->next;
	pthread_cond_broadcast(&b->wake);
	pthread_mutex_unlock(&b->lock);
}

/* The file's table compiled into table: in one go; for an urgent job (b
 * not NULL) its first stage, which is the whole when no FDE is long, else
 * handed over, the second to come (1: the job goes back to the queue); or
 * that second stage. 0, 1, or -errno with *why. */
static int build_table(struct unwind_builder *b, struct job *j, struct unwind_table *table,
		       enum unwind_refusal *why)
{
	struct unwind_stage stage = { .defer_over_cfi_bytes = UNWIND_STAGE_DEFER_OVER_CFI_BYTES,
				      .first = &j->first };
	char err[256];
	bool handed_over;
	int r;

	if (!j->staged) {
		if (!b || !j->urgent)
			return unwind_table_build(j->fd, j->budget, table, why, err, sizeof(err));
		r = first_stage(b, j, table, why, &handed_over);
		if (r || !table->deferred_fdes)
			return r;
		j->first = *table;
		j->staged = true;
		if (handed_over || hand_over_first_stage(b, j, unwind_bpf_rows_of(&j->first),
							 (uint32_t)j->first.nr,
							 j->first.exec_vaddr_delta))
			return 1;
		/* no memory to hand it over: the whole at once */
	}
	r = unwind_table_build_staged(j->fd, j->budget, &stage, table, why, err, sizeof(err));
	unwind_table_free(&j->first);
	return r;
}

/* The job's table: read from the cache, or compiled (and then kept there).
 * false if the job went back to the queue for its second stage. */
static bool compile(struct unwind_builder *b, struct job *j)
{
	struct unwind_table table;
	double t0 = monotonic_seconds();
	enum unwind_refusal why;
	int r = 0;

	j->done.tag = j->tag;
	if (!j->staged)
		j->keyed = j->cache && !unwind_cache_key_of(j->fd, &j->key);
	if (!j->staged && j->keyed &&
	    !unwind_cache_load(j->cache, &j->key, &j->done.rows, &j->done.nr,
			       &j->done.exec_vaddr_delta)) {
		j->done.from_cache = true;
	} else if ((r = build_table(b, j, &table, &why)) < 0) {
		j->done.refusal = why;
	} else if (r == 0) {
		take_table(&j->done, &table);
		unwind_table_free(&table);
		/* a failure to keep it costs the next run the compiling only */
		if (j->keyed && j->done.rows)
			unwind_cache_store(j->cache, &j->key, j->done.rows, j->done.nr,
					   j->done.exec_vaddr_delta);
	}
	j->done.seconds += monotonic_seconds() - t0;
	if (r == 1)
		return false;
	close(j->fd);
	j->fd = -1;
	return true;
}

void unwind_builder_compile_now(struct unwind_builder *b, void *tag, int fd,
				const _Atomic bool *cancel, struct unwind_built *out)
{
	struct unwind_budget budget = b->budget;
	struct job j = { .tag = tag, .fd = fd, .cache = b->cache, .budget = &budget };

	if (cancel)
		budget.cancel = cancel;

	compile(NULL, &j);
	*out = j.done;
}

static void *run(void *arg)
{
	struct builder_thread *self = arg;
	struct unwind_builder *b = self->b;
	char err[256];
	int nice;

	/* started with the caller's capabilities (unwind_builder_start, before
	 * it drops them): used for the nice value (where they do not allow it,
	 * the caller's stays), then dropped before any file is read */
	if (b->nice_delta) {
		errno = 0;
		nice = getpriority(PRIO_PROCESS, 0) + b->nice_delta;
		if (!errno)
			setpriority(PRIO_PROCESS, 0, nice < -20 ? -20 : nice);
	}
	if (privileges_drop_all(err, sizeof(err)))
		rt_warn("unwind tables: %s", err);
	pthread_mutex_lock(&b->lock);
	b->nr_ready++;
	pthread_cond_broadcast(&b->ready);
	for (;;) {
		struct job *j;

		while (!b->part && !b->urgent && (self->urgent_only || !b->todo) && !b->stopping)
			pthread_cond_wait(&b->wake, &b->lock);
		if (b->stopping)
			break;
		/* a part of a file the other thread compiles for a process
		 * that runs now: before anything else */
		if (b->part) {
			struct part_job *p = b->part;

			b->part = NULL;
			p->taken = true;
			pthread_mutex_unlock(&b->lock);
			run_part(p);
			pthread_mutex_lock(&b->lock);
			p->done = true;
			pthread_cond_broadcast(&b->part_done);
			continue;
		}
		if (b->urgent) {
			j = b->urgent;
			b->urgent = j->next;
			if (!b->urgent)
				b->urgent_tail = &b->urgent;
		} else {
			j = b->todo;
			b->todo = j->next;
			if (!b->todo)
				b->todo_tail = &b->todo;
		}
		pthread_mutex_unlock(&b->lock);
		/* back in the queue only once compile is done with it: the
		 * other thread may take it at once */
		if (compile(b, j))
			put_done(b, j);
		else
			requeue_second_stage(b, j);
		pthread_mutex_lock(&b->lock);
		/* nothing more to compile: what the compile allocated (libdw's
		 * FDE trees, the rows; a large library's tens of MB) goes back
		 * to the kernel, or it stays in this thread's malloc arena */
		if (!b->part && !b->urgent && !b->todo) {
			pthread_mutex_unlock(&b->lock);
			memory_trim();
			pthread_mutex_lock(&b->lock);
		}
	}
	pthread_mutex_unlock(&b->lock);
	return NULL;
}

struct unwind_builder *unwind_builder_new(struct unwind_cache *cache,
					 const struct unwind_budget *budget)
{
	struct unwind_builder *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->cache = cache;
	b->budget = *budget;
	b->budget.cancel = &b->cancel;
	b->event_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (b->event_fd < 0) {
		free(b);
		return NULL;
	}
	pthread_mutex_init(&b->lock, NULL);
	pthread_cond_init(&b->wake, NULL);
	pthread_cond_init(&b->part_done, NULL);
	pthread_cond_init(&b->ready, NULL);
	b->todo_tail = &b->todo;
	b->urgent_tail = &b->urgent;
	b->done_tail = &b->done;
	b->cpus_known = !sched_getaffinity(0, sizeof(b->cpus), &b->cpus);
	return b;
}

/* Starts the threads not started yet; 0 if one is (-1: none). */
static int start_threads(struct unwind_builder *b)
{
	pthread_attr_t attr;

	pthread_attr_init(&attr);
	if (b->cpus_known)
		pthread_attr_setaffinity_np(&attr, sizeof(b->cpus), &b->cpus);
	for (; b->nr_started < BUILDER_THREADS; b->nr_started++) {
		struct builder_thread *t = &b->threads[b->nr_started];

		t->b = b;
		t->urgent_only = b->nr_started > 0;
		if (pthread_create(&t->thread, &attr, run, t)) {
			pthread_attr_destroy(&attr);
			return b->nr_started ? 0 : -1; /* one thread does both, as before */
		}
		pthread_setname_np(t->thread, t->urgent_only ? "rt-unwind-urg" : "rt-unwind");
	}
	pthread_attr_destroy(&attr);
	return 0;
}

int unwind_builder_start(struct unwind_builder *b, int nice_delta)
{
	int r;

	pthread_mutex_lock(&b->lock);
	b->nice_delta = nice_delta;
	r = start_threads(b);
	while (b->nr_ready < b->nr_started)
		pthread_cond_wait(&b->ready, &b->lock);
	pthread_mutex_unlock(&b->lock);
	return r;
}

int unwind_builder_fd(const struct unwind_builder *b)
{
	return b->event_fd;
}

int unwind_builder_submit(struct unwind_builder *b, void *tag, int fd, bool urgent)
{
	struct job *j = calloc(1, sizeof(*j));

	if (!j)
		return -1;
	j->tag = tag;
	j->fd = fd;
	j->cache = b->cache;
	j->budget = &b->budget;
	pthread_mutex_lock(&b->lock);
	if (start_threads(b)) {
		pthread_mutex_unlock(&b->lock);
		free(j);
		return -1;
	}
	j->urgent = urgent;
	if (urgent) {
		*b->urgent_tail = j;
		b->urgent_tail = &j->next;
	} else {
		*b->todo_tail = j;
		b->todo_tail = &j->next;
	}
	b->pending++;
	pthread_cond_broadcast(&b->wake); /* the threads wait for different jobs */
	pthread_mutex_unlock(&b->lock);
	return 0;
}

void unwind_builder_hurry(struct unwind_builder *b, void *tag)
{
	pthread_mutex_lock(&b->lock);
	for (struct job **at = &b->todo; *at; at = &(*at)->next) {
		struct job *j = *at;

		if (j->tag != tag)
			continue;
		*at = j->next;
		if (b->todo_tail == &j->next)
			b->todo_tail = at;
		j->next = NULL;
		j->urgent = true;
		*b->urgent_tail = j;
		b->urgent_tail = &j->next;
		pthread_cond_broadcast(&b->wake);
		break;
	}
	pthread_mutex_unlock(&b->lock);
}

size_t unwind_builder_collect(struct unwind_builder *b, struct unwind_built *out, size_t max)
{
	uint64_t count;
	size_t n = 0;

	if (read(b->event_fd, &count, sizeof(count)) < 0) {
		/* nothing signalled: there may still be nothing to collect */
	}
	pthread_mutex_lock(&b->lock);
	while (b->done && n < max) {
		struct job *j = b->done;

		b->done = j->next;
		if (!b->done)
			b->done_tail = &b->done;
		out[n++] = j->done;
		b->pending--;
		free(j);
	}
	/* what is left is signalled again, for the next collect */
	if (b->done) {
		uint64_t one = 1;

		if (write(b->event_fd, &one, sizeof(one)) < 0) {
			/* as in run() */
		}
	}
	pthread_mutex_unlock(&b->lock);
	return n;
}

size_t unwind_builder_pending(const struct unwind_builder *b)
{
	return b->pending;
}

static void free_jobs(struct job *j)
{
	while (j) {
		struct job *next = j->next;

		if (j->fd >= 0)
			close(j->fd);
		unwind_table_free(&j->first);
		free(j->done.rows);
		free(j);
		j = next;
	}
}

void unwind_builder_free(struct unwind_builder *b)
{
	if (!b)
		return;
	/* the compile at hand gives up at its next check (milliseconds) */
	atomic_store(&b->cancel, true);
	pthread_mutex_lock(&b->lock);
	b->stopping = true;
	pthread_cond_broadcast(&b->wake);
	pthread_mutex_unlock(&b->lock);
	for (unsigned int i = 0; i < b->nr_started; i++)
		pthread_join(b->threads[i].thread, NULL);
	free_jobs(b->todo);
	free_jobs(b->urgent);
	free_jobs(b->done);
	close(b->event_fd);
	pthread_mutex_destroy(&b->lock);
	pthread_cond_destroy(&b->wake);
	pthread_cond_destroy(&b->part_done);
	free(b);
}
