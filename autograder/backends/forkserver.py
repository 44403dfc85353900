"""A warm interpreter that forks the course's own test children (run by backends/warm.py as
`python -I -B forkserver.py FD PRELOAD_JSON`; never imported).

It imports the modules in PRELOAD_JSON once (torch, pytest, transformers' GPT-2 stack...), says
`{"ready": [...modules loaded...]}` on the SOCK_SEQPACKET socket FD, and then serves one
request per message: `{"boot", "config", "stdout", "stderr", "cwd", "env", "rlimits"}`. For
each it forks a child that starts a session of its own, takes stdin from /dev/null and
stdout/stderr from the named files, replaces its environment with `env`, changes to `cwd`,
sets the `rlimits` ([resource, value] pairs) and runs `boot`
as `python boot config` would (boot.py ends with os._exit). The server answers
`{"pid": PID}` with a pidfd of the child attached, reaps its children, and exits when the
socket closes (the grader process ended or closed it). A child that cannot start exits 70.

It holds no thread, lock or open file but the socket when it forks.
"""

import ctypes
import json
import os
import resource
import select
import signal
import socket
import sys

PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def preload(names: list[str]) -> list[str]:
    """Import each `module` or `module:attribute` (an attribute of a lazy module loads its
    part); a name that fails is skipped. Returns what sys.modules holds then."""
    import importlib

    for name in names:
        module, _, attr = name.partition(":")
        try:
            mod = importlib.import_module(module)
            if attr:
                getattr(mod, attr)
        except Exception:  # noqa: BLE001 - a preload is an optimisation only
            pass
    return sorted(sys.modules)


def child(sock: socket.socket, req: dict) -> None:
    """In the forked child: become the test process of `req`; never returns."""
    try:
        sock.close()
        os.setsid()
        die_with_parent()
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        for fd, path in ((1, req["stdout"]), (2, req["stderr"])):
            out = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            os.dup2(out, fd)
            os.close(out)
        os.environ.clear()
        os.environ.update(req["env"])
        os.chdir(req["cwd"])
        for which, value in req["rlimits"]:  # the policy's rlimits, as the host child's
            try:
                resource.setrlimit(which, (value, value))
            except (ValueError, OSError):
                pass
        fresh_random_state()
        sys.argv = [req["boot"], req["config"]]
        import runpy

        runpy.run_path(req["boot"], run_name="__main__")  # boot.py ends with os._exit
    except BaseException:  # noqa: BLE001 - whatever happened, the child never returns
        try:
            import traceback

            traceback.print_exc()
            sys.stderr.flush()
        finally:
            os._exit(70)
    os._exit(70)


def fresh_random_state() -> None:
    """Reseed what a fresh interpreter seeds from the OS at import (every fork would otherwise
    share the server's state); torch's default generator starts from its fixed seed in both."""
    if "random" in sys.modules:
        sys.modules["random"].seed()
    if "numpy.random" in sys.modules:
        sys.modules["numpy.random"].seed()


def reap() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def serve(sock: socket.socket) -> None:
    while True:
        reap()
        ready, _, _ = select.select([sock], [], [], 0.05)
        if not ready:
            continue
        try:
            message = sock.recv(1 << 20)
        except OSError:
            return
        if not message:
            return  # the grader closed its end
        req = json.loads(message)
        pid = os.fork()
        if pid == 0:
            child(sock, req)
        pidfd = os.pidfd_open(pid)
        try:
            socket.send_fds(sock, [json.dumps({"pid": pid}).encode()], [pidfd])
        finally:
            os.close(pidfd)


def main() -> None:
    del sys.path[0]  # this file's folder: the engine's modules are not the children's
    # no PDEATHSIG here: it fires when the grader's *thread* that started us ends (a bulk
    # executor's); the grader's end of the socket closes when its process does, and serve()
    # returns then
    sock = socket.socket(fileno=int(sys.argv[1]))
    loaded = preload(json.loads(sys.argv[2]))
    sock.send(json.dumps({"ready": loaded}).encode())
    serve(sock)


if __name__ == "__main__":
    main()
