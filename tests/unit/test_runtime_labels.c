/* SPDX-License-Identifier: GPL-2.0-only */
/* test_runtime_labels.c: a container's Kubernetes names read from its
 * runtime's answer: Docker Engine's inspect JSON, CRI-O's ContainerInfo JSON
 * (no CRI-O runs here: the fixture is its GET /containers/ID format, as
 * cri-o's types.ContainerInfo writes it), containerd's GetContainerResponse
 * as protobuf; values Kubernetes would never give dropped; malformed answers
 * refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sys/containerd_containers.pb-c.h"
#include "sys/runtime_labels.h"

#define UID "3f2504e0-4f89-11d3-9a0c-0305e82c3301"

static void assert_names(const struct kube_names *n, const char *ns, const char *pod,
			 const char *container, const char *uid)
{
	assert_string_equal(n->namespace_, ns);
	assert_string_equal(n->pod, pod);
	assert_string_equal(n->container, container);
	assert_string_equal(n->pod_uid, uid);
}

/* docker inspect of a container kubelet (dockershim, cri-dockerd) made: its
 * labels under Config. */
static void test_docker(void **state)
{
	static const char json[] =
		"{\"Id\":\"49b192dd56089c6ebe0886e55e0ecbd49764a60c3c597957781c75c3093c7a77\","
		"\"Created\":\"2026-12-02T16:46:36.113317166Z\",\"Path\":\"/bin/busybox\","
		"\"Args\":[\"sh\",\"-c\",\"while :; do :; done\"],\"State\":{\"Status\":\"running\","
		"\"Running\":true,\"Pid\":16078},\"Name\":\"/k8s_app_web-0_shop_" UID "_0\","
		"\"HostConfig\":{\"CgroupParent\":\"/kubepods/besteffort/pod" UID "\"},"
		"\"Config\":{\"Hostname\":\"web-0\",\"Env\":null,\"Cmd\":[\"sh\"],"
		"\"Labels\":{\"annotation.io.kubernetes.container.hash\":\"8a2c1b3f\","
		"\"io.kubernetes.container.name\":\"app\",\"io.kubernetes.docker.type\":\"container\","
		"\"io.kubernetes.pod.name\":\"web-0\",\"io.kubernetes.pod.namespace\":\"shop\","
		"\"io.kubernetes.pod.uid\":\"" UID "\"}},\"NetworkSettings\":{}}";
	struct kube_names n;

	(void)state;
	assert_int_equal(kube_names_from_docker(json, strlen(json), &n), 0);
	assert_names(&n, "shop", "web-0", "app", UID);
	assert_true(kube_names_any(&n));
	/* a container no kubelet made: no labels, no names */
	assert_int_equal(kube_names_from_docker("{\"Config\":{\"Labels\":null}}", 27, &n), 0);
	assert_false(kube_names_any(&n));
	assert_int_equal(kube_names_from_docker("{\"Config\":{}}", 13, &n), 0);
	assert_false(kube_names_any(&n));
}

/* CRI-O's GET /containers/ID: its labels at the top. */
static void test_crio(void **state)
{
	static const char json[] =
		"{\"name\":\"k8s_app_web-0_shop_" UID "_0\",\"pid\":4242,"
		"\"image\":\"docker.io/library/busybox:latest\",\"image_ref\":\"sha256:abc\","
		"\"created_time\":1764693996113317166,"
		"\"labels\":{\"io.kubernetes.container.name\":\"app\",\"io.kubernetes.pod.name\":\"web-0\","
		"\"io.kubernetes.pod.namespace\":\"shop\",\"io.kubernetes.pod.uid\":\"" UID "\"},"
		"\"annotations\":{\"io.kubernetes.container.hash\":\"8a2c1b3f\"},"
		"\"crio_annotations\":{\"io.kubernetes.cri-o.ContainerType\":\"container\"},"
		"\"log_path\":\"/var/log/pods/shop_web-0_" UID "/app/0.log\","
		"\"root\":\"/var/lib/containers/storage/overlay/x/merged\","
		"\"sandbox\":\"5f6e7d8c\",\"ip_addresses\":[\"10.85.0.4\"]}";
	struct kube_names n;

	(void)state;
	assert_int_equal(kube_names_from_crio(json, strlen(json), &n), 0);
	assert_names(&n, "shop", "web-0", "app", UID);
}

/* containerd's answer, packed as containerd packs it (its other fields are
 * unknown to our .proto and skipped: checked with a field 3, image). */
static void test_containerd(void **state)
{
	Containerd__Services__Containers__V1__Container__LabelsEntry entries[3] = {
		CONTAINERD__SERVICES__CONTAINERS__V1__CONTAINER__LABELS_ENTRY__INIT,
		CONTAINERD__SERVICES__CONTAINERS__V1__CONTAINER__LABELS_ENTRY__INIT,
		CONTAINERD__SERVICES__CONTAINERS__V1__CONTAINER__LABELS_ENTRY__INIT,
	};
	Containerd__Services__Containers__V1__Container__LabelsEntry *ptrs[3] = {
		&entries[0], &entries[1], &entries[2]
	};
	Containerd__Services__Containers__V1__Container c =
		CONTAINERD__SERVICES__CONTAINERS__V1__CONTAINER__INIT;
	uint8_t buf[512], req[128];
	size_t len;
	struct kube_names n;
	int r;

	(void)state;
	entries[0].key = KUBE_LABEL_POD_NAMESPACE, entries[0].value = "kube-system";
	entries[1].key = KUBE_LABEL_POD_NAME, entries[1].value = "coredns-5d78c9869d-x7x2v";
	entries[2].key = KUBE_LABEL_CONTAINER_NAME, entries[2].value = "coredns";
	c.id = "0123";
	c.n_labels = 3;
	c.labels = ptrs;
	/* GetContainerResponse{container = 1: Container{...; image = 3: "abc"}},
	 * the image a field our .proto lacks: skipped */
	len = containerd__services__containers__v1__container__pack(&c, buf + 3);
	assert_true(len + 5 < 16384 && len + 8 < sizeof(buf));
	memcpy(buf + 3 + len, "\x1a\x03" "abc", 5);
	buf[0] = 0x0a;
	buf[1] = (uint8_t)(((len + 5) & 0x7f) | 0x80);
	buf[2] = (uint8_t)((len + 5) >> 7);
	len += 3;
	assert_int_equal(kube_names_from_containerd(buf, len + 5, &n), 0);
	assert_names(&n, "kube-system", "coredns-5d78c9869d-x7x2v", "coredns", "");
	/* cut short: refused */
	assert_int_equal(kube_names_from_containerd(buf, len - 3, &n), -EINVAL);
	/* the request: field 1, the id */
	r = containerd_get_request("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
				   req, sizeof(req));
	assert_int_equal(r, 66);
	assert_int_equal(req[0], 0x0a);
	assert_int_equal(req[1], 64);
	assert_int_equal(containerd_get_request("0123", req, 3), -E2BIG);
}

/* What a container's creator wrote in a label but Kubernetes never names a
 * thing is not kept; malformed answers are refused. */
static void test_hostile(void **state)
{
	static const char *const bad[] = {
		"",
		"not json",
		"[1,2]",
		"{\"Config\":{\"Labels\":[\"a\"]}}",
		"{\"Config\":{\"Labels\":{}}", /* unterminated */
	};
	static const char wrong[] = "{\"Config\":{\"Labels\":{"
				    "\"io.kubernetes.pod.namespace\":\"Shop\","
				    "\"io.kubernetes.pod.name\":\"web\\u001b]0;x\\u0007\","
				    "\"io.kubernetes.container.name\":\"a.b\","
				    "\"io.kubernetes.pod.uid\":\"not-a-uid\"}}}";
	static const char not_names[] = "{\"labels\":{\"io.kubernetes.pod.name\":7,"
					"\"io.kubernetes.container.name\":\"a234567890123456789"
					"0123456789012345678901234567890123456789012345\"}}";
	char deep[4096];
	struct kube_names n;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(kube_names_from_docker(bad[i], strlen(bad[i]), &n), -EINVAL);
	/* nested deeper than the parser's limit */
	memset(deep, '[', sizeof(deep) - 1);
	deep[sizeof(deep) - 1] = '\0';
	assert_int_equal(kube_names_from_crio(deep, strlen(deep), &n), -EINVAL);
	assert_int_equal(kube_names_from_docker(wrong, strlen(wrong), &n), 0);
	assert_false(kube_names_any(&n));
	assert_int_equal(kube_names_from_crio(not_names, strlen(not_names), &n), 0);
	assert_false(kube_names_any(&n));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_docker),
		cmocka_unit_test(test_crio),
		cmocka_unit_test(test_containerd),
		cmocka_unit_test(test_hostile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
