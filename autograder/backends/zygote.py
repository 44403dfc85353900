"""The sandboxed zygote: a warm interpreter whose forks enter a sandbox bubblewrap built
(SPEC §3, "Warm children enter a sandbox; they never build one"). Run by backends/warmbox.py
as `python -I -B zygote.py FD PRELOAD_JSON VIEW_JSON`; the engine never imports it.

It makes itself non-dumpable, imports the third-party modules of PRELOAD_JSON (never the
assignment's package, tests or a submission) through the children's view of the packages
(VIEW_JSON: its [source, target] mounts; `ViewFinder`, in import_view.py: nothing the view
removes is ever in its memory), freezes what they made (gc.freeze: a child's collector never
walks, so never copies, those objects), backs that memory with huge pages (`huge_pages`:
cheaper forks), closes every fd but its SOCK_SEQPACKET socket FD and says
`{"ready": [modules], "fds": [...], "threads": n}`. Then it serves one request per message:
a JSON object `{"boot", "config", "workdir", "env", "rlimits", "cgroup", "uid", "gid", "ns",
"seccomp"}` with fds attached: stdout, stderr, one fd per namespace named in "ns"
(/proc/<holder>/ns/<name>, opened by the grader) and the holder's root (an O_PATH fd of
/proc/<holder>/root). Before each fork it asserts that it runs one thread.

The fork enters the sandbox before it reads a byte of the run folder: `enter` is the sequence,
in SPEC §3's order (runc's nsenter is the model), each step commented where it is called;
`child` then forks into the PID namespace, checks what the test process is (`verify`),
reseeds the RNGs and runs boot as `python boot config` would. A step that fails exits 71
with one line on stderr: never a partly sandboxed run; no request can leave a step out.
The server answers `{"pid": PID}` with a pidfd of the fork attached, reaps its children and
exits when the socket closes and the children it forked have ended. It is a child subreaper:
a killed fork's own child comes back to it to be reaped."""

from __future__ import annotations

import ctypes
import gc
import importlib.util
import json
import os
import resource
import select
import signal
import socket
import struct
import sys


def load_sibling(name: str):
    """The module `name`.py beside this file (`python -I` puts no folder of ours on sys.path)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), f"{name}.py")
    spec = importlib.util.spec_from_file_location(f"_zygote_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ViewFinder = load_sibling("import_view").ViewFinder

PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_CAPBSET_DROP, PR_SET_SECCOMP = 1, 4, 24, 22
PR_SET_NO_NEW_PRIVS, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 38, 47, 4
PR_SET_CHILD_SUBREAPER = 36
SYS_CLOSE_RANGE = 436  # the same on every architecture (asm-generic)
SYS_CAPSET = {"x86_64": 126, "aarch64": 91}
CAP_V3 = 0x20080522
NS_FLAGS = {"user": 0x10000000, "cgroup": 0x02000000, "mnt": 0x00020000,
            "ipc": 0x08000000, "uts": 0x04000000, "net": 0x40000000, "pid": 0x20000000}
FAILED = 71  # a step of the entering sequence failed


class StepFailed(Exception):
    pass


def libc():
    return ctypes.CDLL(None, use_errno=True)


def check(ok: bool, step: str) -> None:
    if not ok:
        raise StepFailed(f"{step} failed (errno {ctypes.get_errno()})")


def prctl(lib, option: int, arg: int = 0) -> int:
    return lib.prctl(ctypes.c_int(option), *(ctypes.c_ulong(v) for v in (arg, 0, 0, 0)))


def close_fds_except(lib, keep: list[int]) -> None:
    """Close every fd above stdio but those of `keep` (close_range over the gaps)."""
    low = 3
    for fd in sorted(k for k in keep if k >= 3) + [2**31 - 1]:
        if fd > low:
            r = lib.syscall(ctypes.c_long(SYS_CLOSE_RANGE), ctypes.c_uint(low),
                            ctypes.c_uint(fd - 1), ctypes.c_uint(0))
            check(r == 0, "close_range")
        low = fd + 1


def seccomp_filter(lib, program: bytes) -> None:
    """Install `program` (struct sock_filter[]; no_new_privs is already set)."""
    check(len(program) >= 8 and len(program) % 8 == 0, "seccomp program")
    buf = ctypes.create_string_buffer(program, len(program))
    fprog = struct.pack("=HxxxxxxQ", len(program) // 8, ctypes.addressof(buf))
    fbuf = ctypes.create_string_buffer(fprog, len(fprog))
    r = lib.prctl(ctypes.c_int(PR_SET_SECCOMP), ctypes.c_ulong(2),
                  ctypes.c_void_p(ctypes.addressof(fbuf)), ctypes.c_ulong(0), ctypes.c_ulong(0))
    check(r == 0, "seccomp")


def drop_capabilities(lib) -> None:
    """Clear effective, permitted, inheritable and ambient capabilities."""
    check(prctl(lib, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL) == 0, "ambient")
    header = (ctypes.c_uint32 * 2)(CAP_V3, 0)
    data = (ctypes.c_uint32 * 6)()
    r = lib.syscall(ctypes.c_long(SYS_CAPSET[os.uname().machine]), header, data)
    check(r == 0, "capset")


def take_stdio(fds: list[int]) -> None:
    """stdin from /dev/null; stdout and stderr from the grader's two files."""
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)  # (null itself goes with the fds closed next)
    os.dup2(fds[0], 1)
    os.dup2(fds[1], 2)


def join_cgroup(procs_files: list[str]) -> None:
    """Move this process into the run's cgroup (each hierarchy's cgroup.procs)."""
    for procs in procs_files:
        with open(procs, "w") as f:
            f.write("0")


def apply_rlimits(rlimits: list[list[int]]) -> None:
    """Set each (resource, value) as both soft and hard limit."""
    for which, value in rlimits:
        resource.setrlimit(which, (value, value))


def join_namespaces(lib, ns_fds: dict[str, int]) -> None:
    """setns into each of the holder's namespaces, user first (NS_FLAGS' order), closing each
    fd once joined."""
    for name, flag in NS_FLAGS.items():
        if name in ns_fds:
            check(lib.setns(ns_fds[name], flag) == 0, f"setns({name})")
            os.close(ns_fds[name])


def enter_root(root_fd: int, workdir: str) -> None:
    """The holder's root becomes ours (fchdir, chroot(".")); then the run folder, verified."""
    os.fchdir(root_fd)
    os.chroot(".")
    os.close(root_fd)
    os.chdir(workdir)
    check(os.getcwd() == workdir, "getcwd")


def drop_bounding_set(lib, cap_last: int) -> None:
    """Drop every capability from the bounding set (while CAP_SETPCAP is still held)."""
    for cap in range(cap_last + 1):
        check(prctl(lib, PR_CAPBSET_DROP, cap) == 0, f"PR_CAPBSET_DROP({cap})")


def set_ids(uid: int | None, gid: int | None) -> None:
    """No supplementary groups, then the gid, then the uid (None: the grader is not root)."""
    if uid is None:
        return
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)
    check(os.getresuid() == (uid,) * 3 and os.getresgid() == (gid,) * 3, "setuid")


def enter(lib, req: dict, fds: list[int]) -> None:
    """The entering sequence, in the fork, in SPEC §3's order (runc's nsenter is the model);
    raises StepFailed (or OSError) at the first step that fails. `fds`: stdout, stderr, one fd
    per namespace named in req["ns"], the holder's root."""
    # nothing of this process may be read or traced by another of its uid from here on
    check(prctl(lib, PR_SET_DUMPABLE, 0) == 0, "PR_SET_DUMPABLE")
    # a session of its own (the grader kills it as a group), ended with the zygote
    os.setsid()
    check(prctl(lib, PR_SET_PDEATHSIG, signal.SIGKILL) == 0, "PR_SET_PDEATHSIG")
    take_stdio(fds)
    ns_fds = dict(zip(req["ns"], fds[2:], strict=False))
    root_fd = fds[2 + len(req["ns"])]
    # the zygote's socket and anything else it held: gone, before any step reads a byte
    close_fds_except(lib, [*ns_fds.values(), root_fd])
    # the run's resources: its cgroup (memory, pids) and the rlimits of the layer table
    join_cgroup(req["cgroup"])
    apply_rlimits(req["rlimits"])
    os.environ.clear()
    os.environ.update(req["env"])
    # the holder's namespaces: user first (where it has its own), then mount, IPC, UTS,
    # network, PID (the PID namespace takes effect for this process's children)
    join_namespaces(lib, ns_fds)
    # the holder's root (bubblewrap's view), then the run folder
    enter_root(root_fd, req["workdir"])
    # who it is: no capability left in the bounding set, the run's groups, gid and uid, no
    # way back up (no_new_privs), the system-call filter every path loads, no capability
    drop_bounding_set(lib, req["cap_last"])
    set_ids(req["uid"], req["gid"])
    check(prctl(lib, PR_SET_NO_NEW_PRIVS, 1) == 0, "PR_SET_NO_NEW_PRIVS")
    seccomp_filter(lib, bytes.fromhex(req["seccomp"]))
    drop_capabilities(lib)


def into_pid_namespace(lib) -> None:
    """Fork into the PID namespace joined (a fork's children only enter it): the fork outside
    it is the pid the grader watches and waits for it; the first inside is the test process's
    parent, as bwrap's init is a cold child's (so getppid() is not 0 and the process group the
    test process leads is its own). Returns in the test process, which leads a session."""
    wait_for(os.fork())
    check(prctl(lib, PR_SET_PDEATHSIG, signal.SIGKILL) == 0, "PR_SET_PDEATHSIG")
    wait_for(os.fork())
    check(prctl(lib, PR_SET_PDEATHSIG, signal.SIGKILL) == 0, "PR_SET_PDEATHSIG")
    os.setsid()


def verify() -> None:
    """In the test process: /proc/self/status says what the sequence made it (one thread, no
    capability, no_new_privs, the seccomp filter)."""
    with open("/proc/self/status") as f:
        status = dict(line.split(":", 1) for line in f.read().splitlines() if ":" in line)
    caps = ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb")
    want = {"Threads": "1", "NoNewPrivs": "1", "Seccomp": "2", **dict.fromkeys(caps, "0" * 16)}
    for key, value in want.items():
        check(status.get(key, "").strip() == value, f"verify {key}")


def fresh_random_state() -> None:
    """Reseed what a fresh interpreter seeds from the OS at import; torch's default generator
    starts from its fixed seed in a fresh interpreter, and the zygote never ran a torch op."""
    if "random" in sys.modules:
        sys.modules["random"].seed()
    if "numpy.random" in sys.modules:
        sys.modules["numpy.random"].seed()


def wait_for(pid: int) -> None:
    """In the parent of a fork: wait for that child and exit with its status; in the child
    (pid 0): return."""
    if pid == 0:
        return
    os.closerange(3, 2**16)
    _, status = os.waitpid(pid, 0)
    os._exit(os.waitstatus_to_exitcode(status) % 256)


def child(req: dict, fds: list[int], view: ViewFinder) -> None:
    """In the fork: enter the sandbox, fork into its PID namespace, verify, reseed, run boot;
    never returns. A step that fails: one line on stderr and exit FAILED."""
    try:
        view.leave()
        lib = libc()
        enter(lib, req, fds)
        into_pid_namespace(lib)
        verify()  # (outside the PID namespace /proc/self is not there)
        fresh_random_state()
    except BaseException as e:  # noqa: BLE001 - a failed step: never a partly sandboxed run
        try:
            os.write(2, f"warm sandbox: {type(e).__name__}: {e}\n".encode())
        finally:
            os._exit(FAILED)
    try:
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


def threads() -> int:
    with open("/proc/self/status") as f:
        return int(next(ln for ln in f if ln.startswith("Threads:")).split()[1])


def preload(names: list[str]) -> list[str]:
    """Import each `module` or `module:attribute`; a name that fails is skipped."""
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


HUGE = 1 << 21  # a transparent huge page (x86_64, aarch64 with 4 KiB pages)
MADV_COLLAPSE = 25  # Linux >= 6.1


def huge_pages(lib) -> None:
    """Back the memory the imports wrote (the heap and the anonymous read-write mappings) with
    transparent huge pages, best effort: MADV_COLLAPSE, which changes nothing else (the
    children's own new memory is faulted in as usual); on an older kernel, or where THP is
    off, nothing happens. Every fork copies, and every child's exit tears down, the page
    tables of this memory (fusion's zygote: 280 MB, 70,000 entries; a warm child forks three
    times): with 2 MiB pages they have 512 times fewer entries, and a child copies the 4 KiB it
    writes to (the kernel splits a shared huge page on write). fusion's self-test mutants:
    17 % less CPU per grading (docs/PERFORMANCE.md); the collapse itself: 0.45 s, once."""
    with open("/proc/self/maps") as f:
        regions = [line.split() for line in f.read().splitlines()]
    for fields in regions:
        if fields[1] != "rw-p" or (len(fields) > 5 and fields[5] != "[heap]"):
            continue
        start, end = (int(x, 16) for x in fields[0].split("-"))
        start, end = -(-start // HUGE) * HUGE, end // HUGE * HUGE
        if end > start:
            lib.madvise(ctypes.c_void_p(start), ctypes.c_size_t(end - start), MADV_COLLAPSE)


def reap() -> None:
    try:
        while os.waitpid(-1, os.WNOHANG)[0] != 0:
            pass
    except ChildProcessError:
        pass


def serve(sock: socket.socket, view: ViewFinder) -> None:
    with open("/proc/sys/kernel/cap_last_cap") as f:
        cap_last = int(f.read())
    while True:
        reap()
        ready, _, _ = select.select([sock], [], [], 0.05)
        if not ready:
            continue
        try:
            message, fds, _, _ = socket.recv_fds(sock, 1 << 20, 32)
        except OSError:
            return
        if not message:
            return  # the grader closed its end
        req = json.loads(message)
        req["cap_last"] = cap_last
        if threads() != 1 or len(fds) != 3 + len(req["ns"]):
            for fd in fds:
                os.close(fd)
            sock.send(json.dumps({"error": f"{threads()} threads, {len(fds)} fds"}).encode())
            continue
        pid = os.fork()
        if pid == 0:
            child(req, fds, view)
        for fd in fds:
            os.close(fd)
        pidfd = os.pidfd_open(pid)
        try:
            socket.send_fds(sock, [json.dumps({"pid": pid}).encode()], [pidfd])
        finally:
            os.close(pidfd)


def main() -> None:
    lib = libc()
    # a killed fork's own child is reparented here (not to the machine's init, which may
    # never reap it) and reaped by serve()
    if prctl(lib, PR_SET_DUMPABLE, 0) != 0 or prctl(lib, PR_SET_CHILD_SUBREAPER, 1) != 0:
        sys.exit(FAILED)
    sock = socket.socket(fileno=int(sys.argv[1]))
    view = ViewFinder(json.loads(sys.argv[3]) if len(sys.argv) > 3 else [])
    view.install()
    loaded = preload(json.loads(sys.argv[2]))
    gc.collect()
    gc.freeze()
    huge_pages(lib)
    close_fds_except(lib, [sock.fileno()])
    open_fds = sorted(int(fd) for fd in os.listdir("/proc/self/fd"))
    sock.send(json.dumps({"ready": loaded, "fds": open_fds, "threads": threads()}).encode())
    serve(sock, view)
    sock.close()
    while True:  # a recycled zygote: the forks still running keep their parent
        try:
            os.wait()
        except ChildProcessError:
            break


if __name__ == "__main__":
    main()
