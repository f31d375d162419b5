#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
# daemonset_pod.py: runs ringtrace as the DaemonSet of
# deploy/kubernetes/ringtrace-exporter.yaml runs it, read from the manifest:
# the pod's own mount and network namespaces (and PID namespace, with its own
# /proc, unless hostPID), a root filesystem of its own (read-only if the
# manifest says so) that is not the host's, /proc with the paths containerd
# masks, a read-only sysfs, the manifest's hostPath and emptyDir volumes at
# their mountPaths, uid 0 with only the capabilities it adds (bounding,
# permitted, effective; inheritable and ambient empty, as containerd and
# CRI-O set them), no_new_privs unless allowPrivilegeEscalation, the
# container's env and args (its --listen port replaced by PORT).
#
# usage: daemonset_pod.py MANIFEST RINGTRACE WORKDIR PORT [--print]
# WORKDIR holds the pod's root and its emptyDir volumes; --print prints the
# command instead of running it. Not modelled: seccomp, AppArmor, the
# container's cgroup (the pod's resources are measured apart, docs/exporter.md);
# a readOnly hostPath is read-only at its top mount only, as the kubelet made
# it before recursive read-only mounts (Kubernetes 1.30).
import os
import shlex
import sys

import yaml

# containerd's default masked and read-only paths (oci/spec.go,
# populateDefaultUnixSpec)
MASKED = ["/proc/acpi", "/proc/asound", "/proc/kcore", "/proc/keys", "/proc/latency_stats",
          "/proc/timer_list", "/proc/timer_stats", "/proc/sched_debug", "/proc/scsi",
          "/sys/firmware", "/sys/devices/virtual/powercap"]
READ_ONLY = ["/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger"]
# the device nodes a container gets
DEVICES = ["null", "zero", "full", "random", "urandom", "tty"]


def daemonset(path):
    for doc in yaml.safe_load_all(open(path)):
        if doc and doc.get("kind") == "DaemonSet":
            return doc
    sys.exit("%s: no DaemonSet" % path)


def args_with_port(args, port):
    out = list(args)
    for i, a in enumerate(out):
        if a == "--listen" and i + 1 < len(out):
            host = out[i + 1].rsplit(":", 1)[0]
            out[i + 1] = "%s:%s" % (host, port)
        elif a.startswith("--listen="):
            host = a.split("=", 1)[1].rsplit(":", 1)[0]
            out[i] = "--listen=%s:%s" % (host, port)
    return out


def main():
    if len(sys.argv) < 5:
        sys.exit("usage: daemonset_pod.py MANIFEST RINGTRACE WORKDIR PORT [--print]")
    manifest, ringtrace, work, port = sys.argv[1:5]
    spec = daemonset(manifest)["spec"]["template"]["spec"]
    c = spec["containers"][0]
    sc = c.get("securityContext", {})
    host_pid = bool(spec.get("hostPID", False))
    host_net = bool(spec.get("hostNetwork", False))
    uid = sc.get("runAsUser", 0)
    if uid != 0:
        sys.exit("runAsUser %s: only uid 0 gets the added capabilities (no ambient ones)" % uid)
    caps = sc.get("capabilities", {})
    drop = [x.upper() for x in caps.get("drop", [])]
    add = [x.lower() for x in caps.get("add", [])]
    if "ALL" not in drop:
        sys.exit("the container does not drop ALL capabilities: the runtime's defaults are not modelled")
    root = os.path.join(work, "root")
    volumes = {v["name"]: v for v in spec.get("volumes", [])}
    sh = ["set -e",
          "mount --make-rprivate /",
          "mount -t tmpfs -o mode=0755 pod-root %s" % shlex.quote(root),
          "cd %s" % shlex.quote(root),
          "mkdir -p usr etc proc sys dev tmp run var opt/ringtrace",
          "ln -s usr/bin bin; ln -s usr/lib lib; ln -s usr/lib64 lib64; ln -s usr/sbin sbin",
          # the image: Debian's /usr and /etc, and ringtrace in it
          "mount --rbind -o ro /usr usr && mount -o remount,bind,ro usr",
          "mount --bind /etc etc && mount -o remount,bind,ro etc",
          "cp %s opt/ringtrace/ringtrace" % shlex.quote(ringtrace),
          "mount -t tmpfs -o mode=0755,nosuid dev dev",
          ]
    for d in DEVICES:
        sh.append("touch dev/%s && mount --bind /dev/%s dev/%s" % (d, d, d))
    sh += ["ln -s /proc/self/fd dev/fd",
           "mount -t tmpfs -o mode=1777 tmp tmp",
           # a new procfs: of the pod's PID namespace, or the host's
           "mount -t proc -o nosuid,nodev,noexec proc proc",
           "mount -t sysfs -o ro,nosuid,nodev,noexec sysfs sys"]
    for p in MASKED:
        sh.append("if [ -d .%s ]; then mount -t tmpfs -o ro none .%s; "
                  "elif [ -e .%s ]; then mount --bind /dev/null .%s; fi" % (p, p, p, p))
    for p in READ_ONLY:
        sh.append("if [ -e .%s ]; then mount --bind .%s .%s && mount -o remount,bind,ro .%s; fi"
                  % (p, p, p, p))
    for m in c.get("volumeMounts", []):
        v = volumes[m["name"]]
        target = "." + m["mountPath"]
        ro = m.get("readOnly", False)
        if "hostPath" in v:
            src = v["hostPath"]["path"]
            if v["hostPath"].get("type") == "DirectoryOrCreate":  # as the kubelet does
                os.makedirs(src, mode=0o755, exist_ok=True)
            sh.append("mkdir -p %s && mount --rbind %s %s" % (shlex.quote(target), shlex.quote(src),
                                                              shlex.quote(target)))
        elif "emptyDir" in v:
            e = v["emptyDir"] or {}
            size = e.get("sizeLimit")
            if e.get("medium") == "Memory":
                sh.append("mkdir -p %s && mount -t tmpfs -o mode=0777%s %s %s"
                          % (shlex.quote(target), ",size=" + size.replace("i", "") if size else "",
                             shlex.quote(m["name"]), shlex.quote(target)))
            else:
                # a directory of the node's disk, as the kubelet makes it
                src = os.path.join(work, "volume-" + m["name"])
                os.makedirs(src, exist_ok=True)
                os.chmod(src, 0o777)
                sh.append("mkdir -p %s && mount --bind %s %s" % (shlex.quote(target), shlex.quote(src),
                                                                 shlex.quote(target)))
        else:
            sys.exit("volume %s: only hostPath and emptyDir are modelled" % m["name"])
        if ro:
            sh.append("mount -o remount,bind,ro %s" % shlex.quote(target))
    if sc.get("readOnlyRootFilesystem"):
        sh.append("mount -o remount,bind,ro %s" % shlex.quote(root))
    if not host_net:
        sh.append("ip link set lo up")
    env = ["%s=%s" % (e["name"], e["value"]) for e in c.get("env", [])]
    setpriv = ["setpriv", "--inh-caps=-all", "--ambient-caps=-all",
               "--bounding-set=-all" + "".join(",+" + x for x in add)]
    if not sc.get("allowPrivilegeEscalation", True):
        setpriv.append("--no-new-privs")
    command = (["chroot", ".", "env", "-i", "PATH=/usr/sbin:/usr/bin:/sbin:/bin", "HOME=/"] + env +
               setpriv + ["--", "/opt/ringtrace/ringtrace"] + args_with_port(c["args"], port))
    sh.append("cd / && cd %s" % shlex.quote(root))
    sh.append("exec " + " ".join(shlex.quote(x) for x in command))
    os.makedirs(root, exist_ok=True)
    unshare = ["unshare", "--mount", "--propagation", "private"]
    if not host_net:
        unshare.append("--net")
    if not host_pid:
        unshare += ["--pid", "--fork"]
    argv = unshare + ["--", "/bin/sh", "-c", "\n".join(sh)]
    if len(sys.argv) > 5 and sys.argv[5] == "--print":
        print(" ".join(shlex.quote(x) for x in argv))
        return
    os.execvp(argv[0], argv)


main()
