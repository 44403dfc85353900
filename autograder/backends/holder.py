"""The sandbox a warm child enters (SPEC §3, "Warm children enter a sandbox"): the cold chain
(`RunSandbox.command`: cgroup, rlimits, bwrap with the run's mounts, masks and namespaces and
the seccomp filter) around a holder, a shell that only waits, and fds of the namespaces and
root of the process bubblewrap made for it, for the zygote's fork to enter
(backends/warmbox.py). The holder runs as the slot's holder uid, which no child holds, under
the children's seccomp filter, and non-dumpable (`uids.Slot.wrapper`): a child can neither
trace, read nor signal it."""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import time
from pathlib import Path

from ..sandbox import RunSandbox
from .hostbox import kill_group

HOLDER_S = 30.0  # bubblewrap building a holder's sandbox
NAMESPACES = ("user", "cgroup", "mnt", "ipc", "uts", "net", "pid")  # the order they are entered


def start_holder(sandbox: RunSandbox, writable: list[Path],
                 forbidden: list[str]) -> tuple[subprocess.Popen, int]:
    """The cold chain around a shell reading a pipe only we write (`proc.stdin`, close-on-exec:
    it ends with us, even before bubblewrap's --die-with-parent took hold) instead of python;
    returns it and the host pid of the process bubblewrap made (its namespaces and root are the
    sandbox's) once the sandbox is built (the holder wrote its first line)."""
    info_r, info_w = os.pipe()
    ready_r, ready_w = os.pipe()
    holder = [shutil.which("sh") or "/bin/sh", "-c", "echo ready; read -r line"]
    try:
        cmd = sandbox.command(Path("/nonexistent"), Path("/nonexistent"), writable, forbidden,
                              program=holder, info_fd=info_w, holder=True)
    except BaseException:
        for fd in (info_r, info_w, ready_r, ready_w):
            os.close(fd)
        raise
    try:
        proc = subprocess.Popen(cmd.argv, env=cmd.env, stdin=subprocess.PIPE, stdout=ready_w,
                                stderr=subprocess.DEVNULL, cwd=sandbox.run / "work",
                                start_new_session=True, pass_fds=[info_w, *cmd.pass_fds],
                                preexec_fn=cmd.preexec)  # noqa: PLW1509 (None with prlimit)
    finally:
        cmd.close()
        os.close(info_w)
        os.close(ready_w)
    try:
        deadline = time.monotonic() + HOLDER_S
        info, watch = b"", [info_r, ready_r]
        while time.monotonic() < deadline:
            ready, _, _ = select.select(watch, [], [], 0.5)
            if ready_r in ready:
                os.read(ready_r, 64)
                break
            if info_r in ready:
                chunk = os.read(info_r, 4096)
                info += chunk
                if not chunk:  # bubblewrap closed it: wait for the holder's line alone
                    watch = [ready_r]
            if proc.poll() is not None:
                raise OSError("bubblewrap did not build the holder's sandbox")
        else:
            raise OSError("bubblewrap took too long to build the holder's sandbox")
        while info_r in watch and not info.rstrip().endswith(b"}"):
            chunk = os.read(info_r, 4096)
            if not chunk:
                break
            info += chunk
        return proc, int(json.loads(info)["child-pid"])
    except (OSError, ValueError, KeyError) as e:
        kill_group(proc)
        raise OSError(f"no holder: {e}") from e
    finally:
        os.close(info_r)
        os.close(ready_r)


def holder_fds(pid: int) -> tuple[list[str], list[int]]:
    """The holder's namespaces that differ from ours (in NAMESPACES order) and fds of them,
    then an O_PATH fd of its root; checked against pid reuse with a pidfd."""
    pidfd = os.pidfd_open(pid)
    names, fds = [], []
    try:
        for name in NAMESPACES:
            if os.stat(f"/proc/{pid}/ns/{name}").st_ino != os.stat(f"/proc/self/ns/{name}").st_ino:
                names.append(name)
                fds.append(os.open(f"/proc/{pid}/ns/{name}", os.O_RDONLY | os.O_CLOEXEC))
        fds.append(os.open(f"/proc/{pid}/root", os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC))
        if select.select([pidfd], [], [], 0)[0] or "mnt" not in names or "pid" not in names:
            raise OSError("the holder is gone or has no namespaces of its own")
    except OSError:
        for fd in fds:
            os.close(fd)
        raise
    finally:
        os.close(pidfd)
    return names, fds
