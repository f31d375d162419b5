/* SPDX-License-Identifier: GPL-2.0-only */
/* test_hostile.c: what a local user plants cannot hang record -a or steer what
 * it reads: a FIFO where a mapped file was (record still ends, perf reads it),
 * a mapped path swapped for a symlink or another file in a container (the
 * recording keeps no host file, only copies whose build-id is their name). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/monotonic.h"
#include "test_util.h"

#define TEST_USER "ringtrace-test"
#define NOBODY 65534

static char symgen_dir[PATH_MAX];

/*
 * The attacker: a forked process that runs a setup function (as whoever it
 * makes itself), reports "ok" or what failed through a pipe, then, if given
 * a second function, runs it once the parent says go (a byte on go_fd), and
 * waits to be killed. The fixture's teardown kills it and releases any FIFO
 * it planted whatever the test's outcome: a FIFO left behind would hang every
 * recording on this machine that lacks the fix (other engineers' too).
 */
struct setup {
	const char *work; /* the test's directory */
	int go_fd;        /* the child's end: a byte arrives when it may go on */
	uid_t uid;        /* 0: stays root */
	gid_t gid;
};

typedef const char *(*setup_fn)(const struct setup *s);

static struct fixture {
	char *work;
	pid_t attacker, recorder;
	int go_fd;                    /* the parent's end */
	char fifos[2][PATH_MAX + 16]; /* planted FIFOs, released at teardown */
} fx;

static void wait_for_go(const struct setup *s);

static int setup_fixture(void **state)
{
	(void)state;
	memset(&fx, 0, sizeof(fx));
	fx.attacker = fx.recorder = -1;
	fx.go_fd = -1;
	return 0;
}

/* A FIFO a reader may be blocked opening (a hung recording): held open
 * read-write while it is removed, so that every such open completes and,
 * once closed, reads end of file. */
static void release_fifo(const char *path)
{
	int fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	struct stat st;

	if (fd < 0)
		return;
	if (!fstat(fd, &st) && S_ISFIFO(st.st_mode))
		unlink(path);
	usleep(200 * 1000);
	close(fd);
}

static int teardown_fixture(void **state)
{
	(void)state;
	if (fx.attacker > 0) {
		kill(fx.attacker, SIGKILL);
		waitpid(fx.attacker, NULL, 0);
	}
	for (int i = 0; i < 2; i++)
		if (fx.fifos[i][0])
			release_fifo(fx.fifos[i]);
	if (fx.recorder > 0) {
		kill(fx.recorder, SIGKILL);
		waitpid(fx.recorder, NULL, 0);
	}
	if (fx.go_fd >= 0)
		close(fx.go_fd);
	tu_rmtree(fx.work);
	free(fx.work);
	memset(&fx, 0, sizeof(fx));
	return 0;
}

static void start_attacker(setup_fn fn, setup_fn then, struct setup s)
{
	int ready[2], go[2];
	char msg[256] = { 0 };
	ssize_t n;

	assert_int_equal(pipe2(ready, O_CLOEXEC), 0);
	assert_int_equal(pipe2(go, O_CLOEXEC), 0);
	fx.attacker = fork();
	assert_true(fx.attacker >= 0);
	if (fx.attacker == 0) {
		int null = open("/dev/null", O_RDWR);
		const char *err;

		/* not holding the test's output open */
		dup2(null, 1);
		dup2(null, 2);
		close(ready[0]);
		close(go[1]);
		s.go_fd = go[0];
		if (s.uid && (setgroups(0, NULL) || setgid(s.gid) || setuid(s.uid)))
			err = "cannot become the unprivileged user";
		else
			err = fn(&s);
		if (!err)
			err = "ok";
		if (write(ready[1], err, strlen(err)) < 0)
			_exit(1);
		close(ready[1]);
		if (then) {
			wait_for_go(&s);
			if (then(&s))
				_exit(3);
		}
		for (;;)
			pause();
	}
	close(ready[1]);
	close(go[0]);
	fx.go_fd = go[1];
	n = read(ready[0], msg, sizeof(msg) - 1);
	close(ready[0]);
	if (n <= 0 || strcmp(msg, "ok"))
		fail_msg("the attacking process failed: %s", n > 0 ? msg : "no word");
}

/* Child side: copies src to dst (mode), maps path executable, waits for go. */
static int copy_file(const char *src, const char *dst, mode_t mode)
{
	char buf[65536];
	int in = open(src, O_RDONLY | O_CLOEXEC), out = -1;
	ssize_t n = 0;

	if (in >= 0)
		out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	while (out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			n = -1;
	if (in >= 0)
		close(in);
	if (out >= 0 && close(out))
		n = -1;
	return in < 0 || out < 0 || n < 0 ? -1 : 0;
}

static int map_exec(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	void *p = MAP_FAILED;

	if (fd >= 0 && !fstat(fd, &st))
		p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	if (fd >= 0)
		close(fd);
	return p == MAP_FAILED ? -1 : 0;
}

/* mkdir -p, mode 0755. */
static int mkdir_p(const char *path)
{
	char buf[PATH_MAX * 3];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return mkdir(buf, 0755) && errno != EEXIST ? -1 : 0;
}

static void wait_for_go(const struct setup *s)
{
	char c;

	while (read(s->go_fd, &c, 1) < 0 && errno == EINTR)
		;
}

/* "readelf -n"'s build-id of path, as 40 hex digits ("" if none). */
static void build_id_of(const char *path, char *hex, size_t len)
{
	char *out = NULL;

	assert_int_equal(tu_sh(&out, "readelf -n '%s' 2>/dev/null | awk '/Build ID/ {print $3}'", path),
			 0);
	snprintf(hex, len, "%.*s", (int)strcspn(out, "\n"), out);
	free(out);
}

/* The build-id of the first MMAP2 record naming path, as hex ("" if it has
 * none); false if no MMAP2 names it. */
static bool mmap2_build_id(const char *dir, const char *path, char *hex, size_t len)
{
	const struct perf_event_header *rec;
	struct tu_records r;
	bool found = false;

	hex[0] = '\0';
	tu_records_open(&r, dir, 0);
	while (!found && tu_records_next(&r, &rec)) {
		struct perf_mmap m;

		if (rec->type != PERF_RECORD_MMAP2 ||
		    perf_mmap_decode(rec, r.in.sample_id_type, &m) || strcmp(m.filename, path))
			continue;
		for (int i = 0; i < m.build_id_size && (size_t)(2 * i + 3) <= len; i++)
			snprintf(hex + 2 * i, 3, "%02x", m.build_id[i]);
		found = true;
	}
	tu_records_close(&r);
	return found;
}

/* Every file in DIR/.build-id carries the build-id its name says, and none
 * is the same as host_file; returns how many there are. */
static int check_build_id_copies(const char *dir, const char *host_file)
{
	char *out = NULL;
	int n;

	assert_int_equal(tu_sh(&out,
			       "n=0; for f in $(find %s/.build-id -type f 2>/dev/null); do n=$((n+1)); "
			       "name=$(echo ${f#%s/.build-id/} | tr -d /); "
			       "id=$(readelf -n $f 2>/dev/null | awk '/Build ID/ {print $3}'); "
			       "[ \"$name\" = \"$id\" ] || echo \"MISMATCH $f holds build-id '$id'\"; "
			       "cmp -s $f '%s' && echo \"HOST FILE $f is %s\"; done; echo \"copies $n\"",
			       dir, dir, host_file, host_file),
			 0);
	tu_print_text(out);
	if (strstr(out, "MISMATCH") || strstr(out, "HOST FILE"))
		fail_msg("the recording keeps a file it must not:\n%s", out);
	if (!strstr(out, "copies "))
		fail_msg("no count of the copies:\n%s", out);
	n = atoi(strstr(out, "copies ") + 7);
	free(out);
	return n;
}

/* record -a -- sleep 1, killed if it takes more than 10 s (SIGTERM is what
 * a hung recording ignores, so SIGKILL 5 s later); it must end by itself,
 * in time, and perf report must read what it wrote. */
static void record_ends_and_reads(const char *dir)
{
	char *out = NULL;
	double t0 = monotonic_seconds(), took;
	int rc = tu_sh(&out, "timeout -k 5 10 %s record -a -o %s -- sleep 1 2>&1", tu_ringtrace(), dir);

	took = monotonic_seconds() - t0;
	print_message("record took %.1f s, status %d\n", took, rc);
	if (rc)
		fail_msg("record -a did not end by itself (status %d after %.1f s):\n%s", rc, took, out);
	assert_true(took < 1 + 5);
	free(out);
	if (tu_sh(&out, "perf report -i %s --stdio > /dev/null 2>&1 || perf report -i %s --stdio 2>&1 | tail -5",
		  dir, dir))
		fail_msg("perf report cannot read %s:\n%s", dir, out);
	free(out);
}

/* A directory anyone may write to, holding a copy of symgen_stripped
 * (mapped.src) the attacker may read and remove. */
static char *attack_dir(void)
{
	char path[PATH_MAX + 16];
	char *work = tu_tempdir(), *out = NULL;

	assert_non_null(work);
	assert_int_equal(tu_sh(&out, "chmod 1777 %s && cp %s/symgen_stripped %s/mapped && chmod 755 %s/mapped && "
				     "chown %d:%d %s/mapped 2>&1",
			       work, symgen_dir, work, work, NOBODY, NOBODY, work),
			 0);
	free(out);
	snprintf(path, sizeof(path), "%s/mapped", work);
	tu_unique_build_id(path);
	return work;
}

/* As nobody: maps WORK/mapped, deletes it, and puts a FIFO where its name
 * in /proc/PID/maps now points, "WORK/mapped (deleted)". */
static const char *fifo_at_deleted_name(const struct setup *s)
{
	char path[PATH_MAX], fifo[PATH_MAX + 16];

	snprintf(path, sizeof(path), "%s/mapped", s->work);
	snprintf(fifo, sizeof(fifo), "%s (deleted)", path);
	if (map_exec(path))
		return "cannot map the file";
	if (unlink(path) || mkfifo(fifo, 0644))
		return "cannot plant the FIFO";
	return NULL;
}

static void test_fifo_at_deleted_name_does_not_hang(void **state)
{
	struct setup s = { .uid = NOBODY, .gid = NOBODY };
	char *work, dir[PATH_MAX], path[PATH_MAX + 16], want[64], got[64];

	(void)state;
	tu_skip_unless_possible();
	work = fx.work = attack_dir();
	s.work = work;
	snprintf(path, sizeof(path), "%s/mapped", work);
	build_id_of(path, want, sizeof(want));
	snprintf(fx.fifos[0], sizeof(fx.fifos[0]), "%s/mapped (deleted)", work);
	start_attacker(fifo_at_deleted_name, NULL, s);
	snprintf(dir, sizeof(dir), "%s/rec", work);
	record_ends_and_reads(dir);
	/* the mapping is named as the kernel names it, with its own build-id */
	snprintf(path, sizeof(path), "%s/mapped (deleted)", work);
	assert_true(mmap2_build_id(dir, path, got, sizeof(got)));
	print_message("%s: build-id %s\n", path, got);
	assert_string_equal(got, want);
}

/* As nobody: maps WORK/mapped, deletes it, puts a FIFO at its old path and
 * another binary (WORK/impostor, prepared by the test) at its name in maps. */
static const char *fifo_at_old_path(const struct setup *s)
{
	char path[PATH_MAX], other[PATH_MAX + 16], impostor[PATH_MAX + 16];

	snprintf(path, sizeof(path), "%s/mapped", s->work);
	snprintf(other, sizeof(other), "%s (deleted)", path);
	snprintf(impostor, sizeof(impostor), "%s/impostor", s->work);
	if (map_exec(path))
		return "cannot map the file";
	if (unlink(path) || mkfifo(path, 0644))
		return "cannot plant the FIFO";
	if (rename(impostor, other))
		return "cannot plant the impostor";
	return NULL;
}

static void test_fifo_at_old_path_and_impostor(void **state)
{
	struct setup s = { .uid = NOBODY, .gid = NOBODY };
	char *work, *out = NULL, dir[PATH_MAX], path[PATH_MAX + 16], want[64], other[64], got[64];

	(void)state;
	tu_skip_unless_possible();
	work = fx.work = attack_dir();
	s.work = work;
	assert_int_equal(tu_sh(&out, "cp %s/symgen_cxx %s/impostor && chown %d %s/impostor", symgen_dir,
			       work, NOBODY, work),
			 0);
	free(out);
	snprintf(path, sizeof(path), "%s/mapped", work);
	build_id_of(path, want, sizeof(want));
	snprintf(path, sizeof(path), "%s/impostor", work);
	build_id_of(path, other, sizeof(other));
	assert_string_not_equal(want, other);
	snprintf(fx.fifos[0], sizeof(fx.fifos[0]), "%s/mapped", work);
	start_attacker(fifo_at_old_path, NULL, s);
	snprintf(dir, sizeof(dir), "%s/rec", work);
	record_ends_and_reads(dir);
	/* the deleted file's own build-id, never the impostor's */
	snprintf(path, sizeof(path), "%s/mapped (deleted)", work);
	assert_true(mmap2_build_id(dir, path, got, sizeof(got)));
	print_message("%s: build-id %s (the impostor's is %s)\n", path, got, other);
	assert_string_not_equal(got, other);
	assert_string_equal(got, want);
}

/*
 * A container: a process in its own mount namespace, with a tmpfs root it
 * chroots into, maps /prog. /proc/PID/maps names it by the path ringtrace
 * sees (WORK/root/prog), which inside the container's root is a path the
 * container controls: there it puts a symlink to WORK/hostbin, a host binary
 * it must not get into the recording.
 */
static const char *container_with_symlink(const struct setup *s)
{
	char root[PATH_MAX], path[PATH_MAX * 2 + 16], host[PATH_MAX + 16], dst[PATH_MAX + 16];

	snprintf(root, sizeof(root), "%s/root", s->work);
	snprintf(host, sizeof(host), "%s/hostbin", s->work);
	if (s->uid) {
		/* unprivileged: a user namespace makes it root of its own mounts */
		char map[64];
		int fd;

		prctl(PR_SET_DUMPABLE, 1);
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS))
			return "unshare(CLONE_NEWUSER | CLONE_NEWNS) failed";
		fd = open("/proc/self/setgroups", O_WRONLY);
		if (fd < 0 || write(fd, "deny", 4) != 4)
			return "cannot write /proc/self/setgroups";
		close(fd);
		snprintf(map, sizeof(map), "0 %u 1", (unsigned int)s->uid);
		fd = open("/proc/self/uid_map", O_WRONLY);
		if (fd < 0 || write(fd, map, strlen(map)) != (ssize_t)strlen(map))
			return "cannot write /proc/self/uid_map";
		close(fd);
		snprintf(map, sizeof(map), "0 %u 1", (unsigned int)s->gid);
		fd = open("/proc/self/gid_map", O_WRONLY);
		if (fd < 0 || write(fd, map, strlen(map)) != (ssize_t)strlen(map))
			return "cannot write /proc/self/gid_map";
		close(fd);
	} else if (unshare(CLONE_NEWNS)) {
		return "unshare(CLONE_NEWNS) failed";
	}
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount("none", root, "tmpfs", 0, "mode=755"))
		return "cannot mount the container's tmpfs root";
	snprintf(path, sizeof(path), "%s/mapped", s->work);
	snprintf(dst, sizeof(dst), "%s/prog", root);
	if (copy_file(path, dst, 0755))
		return "cannot copy the program into the container";
	/* ROOT/WORK/root/prog: the path maps names, inside the root */
	snprintf(path, sizeof(path), "%s%s", root, root);
	if (mkdir_p(path))
		return "cannot make the decoy directories";
	snprintf(path, sizeof(path), "%s%s/prog", root, root);
	if (symlink(host, path))
		return "cannot plant the symlink";
	if (chroot(root) || chdir("/"))
		return "cannot chroot into the container's root";
	if (map_exec("/prog"))
		return "cannot map /prog";
	return NULL;
}

/* WORK (readable by all) with WORK/mapped (the container's program),
 * WORK/hostbin (the host's), WORK/root (the container's mount point). */
static char *container_dir(void)
{
	char *work = tu_tempdir(), *out = NULL;

	assert_non_null(work);
	assert_int_equal(tu_sh(&out, "chmod 755 %s && mkdir -m 755 %s/root && cp %s/symgen_stripped %s/mapped && "
				     "cp %s/symgen_cxx %s/hostbin && chmod 755 %s/mapped %s/hostbin 2>&1",
			       work, work, symgen_dir, work, symgen_dir, work, work, work),
			 0);
	free(out);
	for (int i = 0; i < 2; i++) {
		char path[PATH_MAX + 16];

		snprintf(path, sizeof(path), "%s/%s", work, i ? "hostbin" : "mapped");
		tu_unique_build_id(path);
	}
	return work;
}

static void check_container_recording(const char *work, const char *dir, bool want_copy)
{
	char path[PATH_MAX * 2 + 16], want[64], host[64], got[64];
	int copies;

	snprintf(path, sizeof(path), "%s/mapped", work);
	build_id_of(path, want, sizeof(want));
	snprintf(path, sizeof(path), "%s/hostbin", work);
	build_id_of(path, host, sizeof(host));
	copies = check_build_id_copies(dir, path);
	snprintf(path, sizeof(path), "%s/root/prog", work);
	assert_true(mmap2_build_id(dir, path, got, sizeof(got)));
	print_message("%s: build-id '%s' (its own %s, the host binary's %s), %d copies\n", path, got,
		      want, host, copies);
	assert_string_not_equal(got, host);
	if (want_copy) {
		/* read through the mapped inode: its own build-id, and its copy */
		assert_string_equal(got, want);
		snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s", dir, want, want + 2);
		assert_int_equal(access(path, R_OK), 0);
	}
}

static void test_symlink_in_container_root(void **state)
{
	struct setup s = { 0 };
	char *work, dir[PATH_MAX];

	(void)state;
	tu_skip_unless_possible();
	work = fx.work = container_dir();
	s.work = work;
	start_attacker(container_with_symlink, NULL, s);
	snprintf(dir, sizeof(dir), "%s/rec", work);
	record_ends_and_reads(dir);
	check_container_recording(work, dir, true);
}

/* A container's program grown to 512 MiB (its copy into the container's
 * tmpfs writes the zeros): a copy of it would pass --copy-budget 64M, so it
 * is refused, said in the totals, and the recording's disk stays small (a
 * plain copy wrote 512 MiB, and three such files 1.5 GiB, before sampling
 * started). */
static void test_container_binary_over_budget_refused(void **state)
{
	struct setup s = { 0 };
	char *work, *out = NULL, dir[PATH_MAX];
	unsigned long kib = 0;
	int rc;

	(void)state;
	tu_skip_unless_possible();
	work = fx.work = container_dir();
	assert_int_equal(tu_sh(&out, "truncate -s +512M %s/mapped 2>&1", work), 0);
	free(out);
	s.work = work;
	start_attacker(container_with_symlink, NULL, s);
	snprintf(dir, sizeof(dir), "%s/rec", work);
	rc = tu_sh(&out, "timeout -k 5 20 %s record -a --copy-budget 64M -o %s -- sleep 1 2>&1",
		   tu_ringtrace(), dir);
	if (rc || !strstr(out, "1 refused over it"))
		fail_msg("the 512 MiB binary was not refused over --copy-budget 64M (%d):\n%s", rc,
			 out);
	free(out);
	assert_int_equal(tu_sh(&out, "du -sk %s", dir), 0);
	kib = strtoul(out, NULL, 10);
	free(out);
	print_message("the recording takes %lu KiB of disk\n", kib);
	if (kib > 64 * 1024)
		fail_msg("the recording took %lu KiB of disk", kib);
}

/* The same, all of it as an unprivileged user: ringtrace with only
 * cap_bpf,cap_perfmon (so no /proc/PID/map_files: the mapped file is looked up
 * by its path inside the container's root, where the symlink is refused). */
static void test_symlink_in_container_root_unprivileged(void **state)
{
	struct passwd *pw = getpwnam(TEST_USER);
	struct setup s = { 0 };
	char *work, *out = NULL, dir[PATH_MAX];
	int rc;

	(void)state;
	tu_skip_unless_possible();
	assert_non_null(pw);
	work = fx.work = container_dir();
	s = (struct setup){ .work = work, .uid = pw->pw_uid, .gid = pw->pw_gid };
	assert_int_equal(tu_sh(&out, "cp %s %s/ringtrace && setcap cap_bpf,cap_perfmon+ep %s/ringtrace && "
				     "mkdir -m 700 %s/out && chown %s %s/out 2>&1",
			       tu_ringtrace(), work, work, work, TEST_USER, work),
			 0);
	free(out);
	start_attacker(container_with_symlink, NULL, s);
	snprintf(dir, sizeof(dir), "%s/out/rec", work);
	rc = tu_sh(&out, "timeout -k 5 10 runuser -u %s -- %s/ringtrace record -a -o %s -- sleep 1 2>&1",
		   TEST_USER, work, dir);
	if (rc)
		fail_msg("record as %s failed (status %d):\n%s", TEST_USER, rc, out);
	free(out);
	check_container_recording(work, dir, false);
}

/* A local user's container maps a program carrying the build-id of a host
 * binary (hostbin, as if a root process ran it before an upgrade): a copy
 * under that build-id for all would be what report names the host binary's
 * frames by, so a file the user owns is kept for its mount namespace alone
 * (DIR/.build-id-ns/INODE/), and a root process that ran hostbin, replaced
 * since, never has its frames named by the forgery. */
static void test_forged_build_id_not_kept(void **state)
{
	struct passwd *pw = getpwnam(TEST_USER);
	struct setup s = { 0 };
	char *work, *out = NULL, dir[PATH_MAX], host[64], forged[64], path[PATH_MAX + 96];
	int rc;

	(void)state;
	tu_skip_unless_possible();
	assert_non_null(pw);
	work = fx.work = container_dir();
	assert_int_equal(tu_sh(&out, "cd %s && objcopy -O binary --only-section=.note.gnu.build-id hostbin note && "
				     "objcopy --update-section .note.gnu.build-id=note mapped 2>&1",
			       work),
			 0);
	free(out);
	snprintf(path, sizeof(path), "%s/hostbin", work);
	build_id_of(path, host, sizeof(host));
	snprintf(path, sizeof(path), "%s/mapped", work);
	build_id_of(path, forged, sizeof(forged));
	assert_string_equal(forged, host); /* the forgery carries the host binary's build-id */
	s = (struct setup){ .work = work, .uid = pw->pw_uid, .gid = pw->pw_gid };
	start_attacker(container_with_symlink, NULL, s);
	snprintf(dir, sizeof(dir), "%s/rec", work);
	/* the victim: root runs hostbin (it spins in Spinner::spin), which is
	 * replaced before the report is read */
	rc = tu_sh(&out, "%s/hostbin 3 & timeout -k 5 20 %s record -a -g -o %s -- sleep 1 2>&1; "
			 "kill $! 2>/dev/null; wait; rm -f %s/hostbin",
		   work, tu_ringtrace(), dir, work);
	if (rc)
		fail_msg("record failed (%d):\n%s", rc, out);
	free(out);
	snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s", dir, host, host + 2);
	if (!access(path, F_OK))
		fail_msg("%s was kept: report would name the host binary's frames by the forgery", path);
	assert_int_equal(tu_sh(&out, "ls %s/.build-id-ns/*/%.2s/%s 2>/dev/null | wc -l", dir, host,
			       host + 2),
			 0);
	print_message("copies of the forgery kept for its namespace: %s", out);
	assert_int_equal(atoi(out), 1);
	free(out);
	assert_int_equal(tu_sh(&out, "%s report %s --comm hostbin --sort dso,sym 2>&1", tu_ringtrace(),
			       dir),
			 0);
	tu_print_text(out);
	/* hostbin is gone and no copy of it was kept: a name for its frames
	 * (its own rows: libc's and the vDSO's have their names) could only
	 * come from the forgery */
	for (const char *row = strstr(out, " hostbin "); row; row = strstr(row + 1, " hostbin ")) {
		const char *sym = strstr(row, "[.] "), *eol = strchr(row, '\n');

		if (sym && (!eol || sym < eol) && strncmp(sym + 4, "0x", 2)) {
			print_message("the host binary's frames are named by the forgery\n");
			free(out);
			fail();
		}
	}
	free(out);
}

/*
 * While recording: a container maps WORK/ct/contained, then renames it away
 * and puts a symlink to /etc/shadow in its place, before ringtrace (its drain
 * held back) gets to copy the binary the kernel's MMAP2 record names.
 */
static const char *container_mount(const struct setup *s)
{
	char ct[PATH_MAX], path[PATH_MAX + 16], src[PATH_MAX + 16];

	snprintf(ct, sizeof(ct), "%s/ct", s->work);
	snprintf(path, sizeof(path), "%s/contained", ct);
	snprintf(src, sizeof(src), "%s/mapped", s->work);
	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount("none", ct, "tmpfs", 0, "mode=755"))
		return "cannot mount the container's tmpfs";
	if (copy_file(src, path, 0755))
		return "cannot copy the program into the container";
	return NULL;
}

/* Once go arrives: map, rename away, symlink in its place. */
static const char *map_then_swap(const struct setup *s)
{
	char path[PATH_MAX + 16], hidden[PATH_MAX + 16];

	snprintf(path, sizeof(path), "%s/ct/contained", s->work);
	snprintf(hidden, sizeof(hidden), "%s/ct/.hidden", s->work);
	if (map_exec(path) || rename(path, hidden) || symlink("/etc/shadow", path))
		return "cannot map and swap";
	return NULL;
}

static void test_symlink_swap_while_recording(void **state)
{
	struct setup s = { 0 };
	char *work, *out = NULL, dir[PATH_MAX], log[PATH_MAX + 16], data[PATH_MAX + 16], want[64];
	char copy[PATH_MAX * 2];
	int status = -1;

	(void)state;
	tu_skip_unless_possible();
	work = fx.work = container_dir();
	s.work = work;
	assert_int_equal(tu_sh(&out, "mkdir -m 755 %s/ct", work), 0);
	free(out);
	start_attacker(container_mount, map_then_swap, s);
	snprintf(dir, sizeof(dir), "%s/rec", work);
	snprintf(log, sizeof(log), "%s/record.log", work);
	snprintf(data, sizeof(data), "%s/data", dir);
	/* --keep-caps: a container started during the recording is read then
	 * (the capabilities to read a root process's files are kept) */
	fx.recorder = fork();
	assert_true(fx.recorder >= 0);
	if (fx.recorder == 0) {
		char cmd[PATH_MAX * 4];

		snprintf(cmd, sizeof(cmd), "exec timeout -k 5 20 %s record -a --keep-caps --debug-drain-delay-ms 2000 -o %s -- sleep 4 > %s 2>&1",
			 tu_ringtrace(), dir, log);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	/* the header is written once the side-band is synthesized, just before
	 * sampling starts: from then on the kernel reports every mapping */
	for (int i = 0; i < 100 && access(data, F_OK); i++)
		usleep(100 * 1000);
	usleep(300 * 1000);
	assert_int_equal(write(fx.go_fd, "g", 1), 1);
	while (waitpid(fx.recorder, &status, 0) < 0 && errno == EINTR)
		;
	fx.recorder = -1;
	tu_sh(&out, "cat %s", log);
	tu_print_text(out);
	free(out);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	check_build_id_copies(dir, "/etc/shadow");
	/* the binary itself, read through its mapping, is what is kept */
	snprintf(copy, sizeof(copy), "%s/mapped", work);
	build_id_of(copy, want, sizeof(want));
	snprintf(copy, sizeof(copy), "%s/.build-id/%.2s/%s", dir, want, want + 2);
	assert_int_equal(access(copy, R_OK), 0);
}

/* A uprobe on a library a local user maps from a directory of theirs, which
 * they keep swapping for a symlink to a directory holding a FIFO of the
 * library's name (as an attacker does at the moment the open comes, seen by
 * inotify): ringtrace opens the very file mapped and reads and attaches it
 * through that fd, never the path again, so no attempt blocks on the FIFO
 * (each ends within seconds, attached or refused with one line). */
static void test_uprobe_path_swapped_for_fifo(void **state)
{
	struct passwd *pw = getpwnam(TEST_USER);
	char *work, *out = NULL, user[64];
	pid_t victim;
	int attached = 0;

	(void)state;
	tu_skip_unless_possible();
	assert_non_null(pw);
	work = fx.work = tu_tempdir();
	snprintf(user, sizeof(user), "--reuid=%u --regid=%u --clear-groups", (unsigned)pw->pw_uid,
		 (unsigned)pw->pw_gid);
	if (tu_sh(&out, "cd %s && chmod 755 . && mkdir -p u/lib u/evil && "
			"cp /lib/x86_64-linux-gnu/libz.so.1 u/lib/libzz.so.1 && "
			"mkfifo u/evil/libzz.so.1 && chown -R %s u 2>&1",
		  work, TEST_USER))
		tu_skip("cannot set up the library and the FIFO: %s", out);
	free(out);
	/* both killed by the fixture's teardown */
	victim = fx.recorder = tu_start("cd %s/u && exec setpriv %s env LD_PRELOAD=%s/u/lib/libzz.so.1 sleep 60",
					work, user, work);
	usleep(300 * 1000);
	fx.attacker = tu_start("cd %s/u && exec setpriv %s sh -c 'while :; do mv lib real; "
			    "ln -s evil lib; rm lib; mv real lib; done' 2>/dev/null",
			    work, user);
	for (int i = 0; i < 6; i++) {
		int rc = tu_sh(&out, "timeout -k 2 15 %s record -p %d -e uprobe:libzz:zlibVersion "
				     "--force -o %s/rec -- sleep 0.2 2>&1",
			       tu_ringtrace(), (int)victim, work);

		print_message("attempt %d: status %d: %s", i, rc, out);
		if (rc == 124 || rc == 137)
			fail_msg("record hung on the swapped path (status %d):\n%s", rc, out);
		attached += rc == 0;
		if (rc)
			assert_ptr_equal(strchr(out, '\n'), out + strlen(out) - 1);
		free(out);
	}
	/* the very file mapped is read through /proc/PID/map_files: found
	 * whatever the path leads to at the moment */
	assert_int_equal(attached, 6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_fifo_at_deleted_name_does_not_hang, setup_fixture, teardown_fixture),
		cmocka_unit_test_setup_teardown(test_fifo_at_old_path_and_impostor, setup_fixture, teardown_fixture),
		cmocka_unit_test_setup_teardown(test_symlink_in_container_root, setup_fixture, teardown_fixture),
		cmocka_unit_test_setup_teardown(test_container_binary_over_budget_refused, setup_fixture,
						teardown_fixture),
		cmocka_unit_test_setup_teardown(test_forged_build_id_not_kept, setup_fixture,
						teardown_fixture),
		cmocka_unit_test_setup_teardown(test_symlink_in_container_root_unprivileged, setup_fixture, teardown_fixture),
		cmocka_unit_test_setup_teardown(test_symlink_swap_while_recording, setup_fixture, teardown_fixture),
		cmocka_unit_test_setup_teardown(test_uprobe_path_swapped_for_fifo, setup_fixture, teardown_fixture),
	};
	const char *why = tu_symgen_skip_reason();

	if (!why &&
	    system("id " TEST_USER " >/dev/null 2>&1 || useradd -M -r -s /usr/sbin/nologin " TEST_USER))
		why = "cannot create the test user " TEST_USER " (useradd)";
	if (!why && system("command -v setcap runuser setpriv mkfifo timeout readelf objcopy perf >/dev/null"))
		why = "setcap, runuser, setpriv, mkfifo, timeout, readelf, objcopy or perf is missing (make deps)";
	tu_set_skip_reason(why);
	snprintf(symgen_dir, sizeof(symgen_dir), "%s", tu_symgen_dir());
	return cmocka_run_group_tests(tests, NULL, tu_stop_left);
}
