/* SPDX-License-Identifier: GPL-2.0-only */
/* test_container_labels.c: container ids, pod uids and QoS classes read from
 * the cgroup paths kubelet (systemd and cgroupfs drivers), containerd, CRI-O,
 * Docker and Podman make; paths that name none give none. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "sys/container_labels.h"

#define ID "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define UID "d1f6a2b4-3c5e-4f70-8a9b-0c1d2e3f4a5b"
#define UID_ "d1f6a2b4_3c5e_4f70_8a9b_0c1d2e3f4a5b"

static void expect(const char *path, const char *runtime, const char *id, const char *uid,
		   const char *qos)
{
	struct container_labels l;
	bool found = container_labels_of(path, &l);

	print_message("%s\n", path);
	assert_int_equal(found, runtime || id[0] || uid[0]);
	if (runtime)
		assert_string_equal(l.runtime, runtime);
	else
		assert_null(l.runtime);
	assert_string_equal(l.container_id, id);
	assert_string_equal(l.pod_uid, uid);
	if (qos)
		assert_string_equal(l.qos_class, qos);
	else
		assert_null(l.qos_class);
}

static void test_kubelet_systemd_driver(void **state)
{
	(void)state;
	expect("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_
	       ".slice/cri-containerd-" ID ".scope",
	       "containerd", ID, UID, "burstable");
	expect("/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UID_
	       ".slice/crio-" ID ".scope",
	       "cri-o", ID, UID, "besteffort");
	/* guaranteed pods sit directly under kubepods.slice */
	expect("/kubepods.slice/kubepods-pod" UID_ ".slice/docker-" ID ".scope", "docker", ID, UID,
	       "guaranteed");
	/* the pod's own cgroup (its pause process gone): the pod alone */
	expect("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_ ".slice", NULL,
	       "", UID, "burstable");
	/* a container's own sub-cgroup, and CRI-O's conmon beside it */
	expect("/kubepods.slice/kubepods-pod" UID_ ".slice/crio-" ID ".scope/init.scope", "cri-o", ID,
	       UID, "guaranteed");
	expect("/kubepods.slice/kubepods-pod" UID_ ".slice/crio-conmon-" ID ".scope", NULL, "", UID,
	       "guaranteed");
}

static void test_kubelet_cgroupfs_driver(void **state)
{
	(void)state;
	expect("/kubepods/burstable/pod" UID "/" ID, NULL, ID, UID, "burstable");
	expect("/kubepods/besteffort/pod" UID "/" ID, NULL, ID, UID, "besteffort");
	expect("/kubepods/pod" UID "/" ID, NULL, ID, UID, "guaranteed");
}

static void test_docker_and_podman(void **state)
{
	(void)state;
	expect("/system.slice/docker-" ID ".scope", "docker", ID, "", NULL);
	expect("/docker/" ID, "docker", ID, "", NULL);
	expect("/machine.slice/libpod-" ID ".scope", "podman", ID, "", NULL);
	expect("/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" ID ".scope",
	       "podman", ID, "", NULL);
}

static void test_no_container(void **state)
{
	(void)state;
	expect("/", NULL, "", "", NULL);
	expect("/system.slice/ssh.service", NULL, "", "", NULL);
	expect("/user.slice/user-1000.slice/session-3.scope", NULL, "", "", NULL);
	expect("/kubepods.slice/kubepods-burstable.slice", NULL, "", "", NULL);
	/* near misses: a short id, capitals, a uid with a group too long */
	expect("/system.slice/docker-0123.scope", NULL, "", "", NULL);
	expect("/system.slice/docker-" "0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef"
	       ".scope", NULL, "", "", NULL);
	expect("/kubepods/podd1f6a2b4-3c5e-4f70-8a9b-0c1d2e3f4a5bb/" ID, NULL, ID, "", NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kubelet_systemd_driver),
		cmocka_unit_test(test_kubelet_cgroupfs_driver),
		cmocka_unit_test(test_docker_and_podman),
		cmocka_unit_test(test_no_container),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
