# SPDX-License-Identifier: GPL-2.0-only
# churn.py: the heavy churn of a node that runs builds, CI jobs and scripts, for
# scenario 8 of bench.py (issue #54): ~250 new binaries a minute (copies of loadgen,
# each with a build-id of its own, run once and deleted as they exit), ~100 of them
# mapping a distinct copy of libcrypto (its build-id changed too: a library never
# seen before, whose unwind table and symbols are new), a short python3 run every
# 10 s, and two busy containers' cgroups laid out as kubelet's systemd driver lays
# them out. The copies live in /dev/shm and are removed at once; the cgroups are
# removed at the end.
"""Heavy churn for scenario 8: new binaries, new libraries, python, two busy containers."""

import os
import shutil
import subprocess
import tempfile
import threading
import time



def cgroup2_root():
    """Where the cgroup v2 hierarchy is mounted (/sys/fs/cgroup, or .../unified beside v1)."""
    with open("/proc/self/mounts") as f:
        for line in f:
            fields = line.split()
            if len(fields) > 2 and fields[2] == "cgroup2":
                return fields[1]
    return "/sys/fs/cgroup"


# kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod<uid>.slice/
# cri-containerd-<64 hex>.scope, as DESIGN.md's fleet conventions give it
POD_SLICE = "kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod%s.slice"
BINARIES_PER_MINUTE = 250
LIBRARY_EVERY = 5  # of each 12 binaries, 5 map a fresh libcrypto: ~100 a minute
PYTHON_EVERY = 10.0
LIBCRYPTO = "/usr/lib/x86_64-linux-gnu/libcrypto.so.3"
PYTHON = "/usr/bin/python3"


def with_new_build_id(src, dst, serial):
    """Copies ELF file src to dst with its GNU build-id's last 8 bytes set from serial."""
    with open(src, "rb") as f:
        data = bytearray(f.read())
    note = (4).to_bytes(4, "little") + (20).to_bytes(4, "little") + (3).to_bytes(4, "little") + b"GNU\0"
    at = data.find(note)
    if at >= 0:
        end = at + len(note) + 20
        data[end - 8:end] = (serial ^ (os.getpid() << 32)).to_bytes(8, "little")
    fd = os.open(dst, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o700)
    with os.fdopen(fd, "wb") as f:
        f.write(data)


class Churn:
    """Starts the churn; stop() ends it and reports what ran."""

    def __init__(self, loadgen):
        self.loadgen = loadgen
        self.dir = tempfile.mkdtemp(prefix="ringtrace-churn.", dir="/dev/shm")
        self.stopping = threading.Event()
        self.binaries = self.libraries = self.pythons = 0
        self.cgroups, self.busy = [], []
        library = LIBCRYPTO if os.path.exists(LIBCRYPTO) else None
        self.library = library
        self.cgroup_root = cgroup2_root()
        for k in range(2):
            uid = "%08x_0000_4000_8000_%012x" % (os.getpid(), k)
            path = os.path.join(self.cgroup_root, POD_SLICE % uid, "cri-containerd-%064x.scope" % (os.getpid() * 16 + k))
            try:
                os.makedirs(path)
            except OSError:
                path = None
            p = subprocess.Popen([loadgen, "spin", "100000"], stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)
            if path:
                with open(os.path.join(path, "cgroup.procs"), "w") as f:
                    f.write(str(p.pid))
                self.cgroups.append(path)
            self.busy.append(p)
        self.threads = [threading.Thread(target=self._binaries, daemon=True),
                        threading.Thread(target=self._pythons, daemon=True)]
        for t in self.threads:
            t.start()

    def _binaries(self):
        gap = 60.0 / BINARIES_PER_MINUTE
        serial = 0
        next_at = time.monotonic()
        while not self.stopping.is_set():
            serial += 1
            exe = os.path.join(self.dir, "churn-%d" % serial)
            args = [exe, "map-exec", "0.03"]
            lib = None
            with_new_build_id(self.loadgen, exe, serial)
            if self.library and serial % 12 < LIBRARY_EVERY:
                lib = os.path.join(self.dir, "libcrypto-%d.so.3" % serial)
                with_new_build_id(self.library, lib, serial)
                args.append(lib)
            else:
                args[1:] = ["spin", "0.03"]
            subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            os.unlink(exe)
            self.binaries += 1
            if lib:
                os.unlink(lib)
                self.libraries += 1
            next_at += gap
            self.stopping.wait(max(0.0, next_at - time.monotonic()))

    def _pythons(self):
        while not self.stopping.wait(PYTHON_EVERY):
            subprocess.run([PYTHON, "-c", "import time\nt=time.time()\n"
                            "def inner():\n while time.time()-t<0.5: pass\ninner()"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            self.pythons += 1

    def stop(self):
        """Ends the churn; returns a line saying what ran."""
        self.stopping.set()
        for t in self.threads:
            t.join(timeout=30)
        for p in self.busy:
            p.kill()
            p.wait()
        for path in self.cgroups:  # the scope, its pod's slice, then kubepods' if empty
            while path.startswith(self.cgroup_root + "/kubepods"):
                for _ in range(50):  # a killed task leaves its cgroup a little later
                    try:
                        os.rmdir(path)
                        break
                    except OSError:
                        time.sleep(0.02)
                else:
                    break
                path = os.path.dirname(path)
        shutil.rmtree(self.dir, ignore_errors=True)
        return ("%d new binaries (%d with a new libcrypto mapped), %d python3 runs, "
                "2 busy container cgroups" % (self.binaries, self.libraries, self.pythons))
