# ruff: noqa  (hostile code on purpose; placeholders are filled in by test_channels.py)
"""Attack: from inside a docker-backend container, try to reach the host and escape; report
each attempt's outcome in test_add's visible message as SEEN{json}SEEN (an exception name, or
what was reached). Placeholders: __SECRET__ (the host's hidden goldens), __SOCKET__ (the
container engine's API socket on the host)."""
import ctypes
import glob
import json
import os
import socket
import sys

CONFIG = json.load(open(sys.argv[1]))
RUN = os.path.dirname(CONFIG["lib"])


def attempt(action):
    try:
        return action()
    except Exception as e:
        return type(e).__name__


def _write(path):
    with open(path, "w") as f:
        f.write("x")
    return "written"


def _connect_unix(path):
    s = socket.socket(socket.AF_UNIX)
    try:
        s.connect(path)
        return "connected"
    finally:
        s.close()


def _connect_tcp(address):
    s = socket.create_connection(address, timeout=1)
    s.close()
    return "connected"


def _mount():
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.mount(b"none", b"/tmp", b"tmpfs", 0, None) != 0:
        return os.strerror(ctypes.get_errno())
    return "mounted"


SEEN = {
    "host_goldens": attempt(lambda: open("__SECRET__").read() and "read"),
    "engine_socket": attempt(lambda: _connect_unix("__SOCKET__")),
    "docker_sock": attempt(lambda: _connect_unix("/var/run/docker.sock")),
    "write_run_folder": attempt(lambda: _write(os.path.join(RUN, "tests", "zz_planted.py"))),
    "write_image": attempt(lambda: _write("/opt/runner/venv/zz_planted.pth")),
    "chown_root": attempt(lambda: os.chown(os.path.join(RUN, "work"), 0, 0) or "chowned"),
    "mknod": attempt(lambda: os.mknod(os.path.join(RUN, "work", "zz_dev"), 0o20666,
                                      os.makedev(1, 3)) or "made"),
    "setuid_root": attempt(lambda: os.setuid(0) or "root"),
    "mount": attempt(_mount),
    "network": attempt(lambda: _connect_tcp(("1.1.1.1", 53))),
    "other_runs": [p for p in glob.glob("/tmp/grade-*") if p != RUN],
    "host_processes": len([p for p in os.listdir("/proc") if p.isdigit()]),
}


def add(a, b):
    raise RuntimeError("SEEN" + json.dumps(SEEN) + "SEEN")


def mean(xs):
    raise NotImplementedError


def order(xs):
    raise NotImplementedError
