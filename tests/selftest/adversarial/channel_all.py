# ruff: noqa  (hostile code on purpose; placeholders are filled in by test_channels.py)
"""Attack: the hidden child of a submission leaves a marker through every channel two
processes on one machine can share, and the public child looks for it; what the public child
saw comes back in test_add's (visible) error message as SEEN{json}SEEN.

Channels: flock and POSIX (lockf) locks on files every child can open (the interpreter, the
stdlib), a file in /dev/shm, a listening abstract unix socket, loopback TCP and UDP ports, a
signal to every other graded child, a process name in /proc, a System V shared memory
segment. The markers are held by a double-forked daemon (outliving the hidden child unless the
sandbox kills it). As a positive control, the public child sets up the same markers with
another tag from a helper of its own first: each detector must see its own marker, or the
test is void.
"""
import ctypes
import fcntl
import json
import os
import signal
import socket
import struct
import sys
import time

CONFIG = json.load(open(sys.argv[1]))
HIDDEN_CHILD = any("/hidden/" in f for f in CONFIG["test_files"])
PORTS = {"cross": __PORT_CROSS__, "self": __PORT_SELF__}
HOLD_S = 12.0  # how long a marker daemon lives on its own
WAIT_S = 3.0  # how long the public child looks for the hidden child's markers
SIGNALS = {"cross": signal.SIGUSR1, "self": signal.SIGUSR2}
SHM_KEYS = {"cross": 0x5EC0DE1, "self": 0x5EC0DE2}
_real = os.path.realpath
LOCKED = {  # a file each child can open, per tag: flock / lockf
    "flock": {"cross": _real(sys.executable), "self": _real(os.__file__)},
    "lockf": {"cross": _real(json.__file__), "self": _real(socket.__file__)},
}


def _set_comm(name):
    try:
        libc = ctypes.CDLL(None)
        libc.prctl(15, ctypes.c_char_p(name.encode()), 0, 0, 0)  # PR_SET_NAME
    except Exception:
        pass


def _graded_pids():
    out = []
    for pid in os.listdir("/proc"):
        if pid.isdigit() and int(pid) not in (os.getpid(), os.getppid()):
            try:
                if b"boot.py" in open(f"/proc/{pid}/cmdline", "rb").read():
                    out.append(int(pid))
            except OSError:
                pass
    return out


def _hold(tag, ready_fd, signal_to):
    """Run in the daemon: set up every marker of `tag`, report ready, hold them."""
    _set_comm(f"chan{tag}")
    keep = []
    for kind, files in LOCKED.items():
        try:
            fd = os.open(files[tag], os.O_RDONLY)
            if kind == "flock":
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            else:
                fcntl.lockf(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            keep.append(fd)
        except OSError:
            pass
    try:
        with open(f"/dev/shm/chan_{tag}", "w") as f:
            f.write("marker")
    except OSError:
        pass
    for family, kind, address in [(socket.AF_UNIX, socket.SOCK_STREAM, f"\0chan_{tag}"),
                                  (socket.AF_INET, socket.SOCK_STREAM, ("127.0.0.1", PORTS[tag])),
                                  (socket.AF_INET, socket.SOCK_DGRAM, ("127.0.0.1", PORTS[tag]))]:
        try:
            s = socket.socket(family, kind)
            s.bind(address)
            if kind == socket.SOCK_STREAM:
                s.listen(8)
            keep.append(s)
        except OSError:
            pass
    try:
        libc = ctypes.CDLL(None)
        libc.shmget(SHM_KEYS[tag], 4096, 0o1000 | 0o666)  # IPC_CREAT
    except Exception:
        pass
    os.write(ready_fd, b"x")
    os.close(ready_fd)
    end = time.monotonic() + HOLD_S
    while time.monotonic() < end:
        for pid in signal_to():
            try:
                os.kill(pid, SIGNALS[tag])
            except OSError:
                pass
        time.sleep(0.05)


def start_markers(tag, signal_to):
    """A double-forked daemon holding the markers of `tag`; returns once they are set up."""
    r, w = os.pipe()
    if os.fork() == 0:
        os.close(r)
        try:
            os.setsid()
            if os.fork() == 0:
                _hold(tag, w, signal_to)
        finally:
            os._exit(0)
    os.close(w)
    os.read(r, 1)
    os.close(r)


def _locked(kind, path):
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        if kind == "flock":
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                fcntl.flock(fd, fcntl.LOCK_UN)
                return False
            except OSError:
                return True
        query = struct.pack("hhqqi4x", fcntl.F_WRLCK, 0, 0, 0, 0)
        got = fcntl.fcntl(fd, fcntl.F_GETLK, query)
        return struct.unpack("hhqqi4x", got)[0] != fcntl.F_UNLCK
    except OSError:
        return False
    finally:
        os.close(fd)


def _connects(family, address):
    s = socket.socket(family, socket.SOCK_STREAM)
    s.settimeout(0.2)
    try:
        s.connect(address)
        return True
    except OSError:
        return False
    finally:
        s.close()


def _udp_taken(port):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.bind(("127.0.0.1", port))
        return False
    except OSError:
        return True
    finally:
        s.close()


def _comm_seen(name):
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                if open(f"/proc/{pid}/comm").read().strip() == name:
                    return True
            except OSError:
                pass
    return False


def _shm_seen(key):
    try:
        libc = ctypes.CDLL(None)
        return libc.shmget(key, 0, 0) >= 0
    except Exception:
        return False


RECEIVED = {"cross": 0, "self": 0}


def look(tag):
    """Which channels carry a marker of `tag` right now."""
    return {
        "flock": _locked("flock", LOCKED["flock"][tag]),
        "lockf": _locked("lockf", LOCKED["lockf"][tag]),
        "dev_shm": os.path.exists(f"/dev/shm/chan_{tag}"),
        "abstract_socket": _connects(socket.AF_UNIX, f"\0chan_{tag}"),
        "loopback_tcp": _connects(socket.AF_INET, ("127.0.0.1", PORTS[tag])),
        "loopback_udp": _udp_taken(PORTS[tag]),
        "signal": RECEIVED[tag] > 0,
        "proc": _comm_seen(f"chan{tag}"),
        "sysv_shm": _shm_seen(SHM_KEYS[tag]),
    }


SEEN = {}
if HIDDEN_CHILD:
    start_markers("cross", _graded_pids)
    time.sleep(1.0)
else:
    for tag, sig in SIGNALS.items():
        signal.signal(sig, lambda *_, t=tag: RECEIVED.__setitem__(t, RECEIVED[t] + 1))
    parent = os.getpid()
    start_markers("self", lambda: [parent])
    time.sleep(0.2)
    control = look("self")
    crossed = {k: False for k in control}
    end = time.monotonic() + WAIT_S
    while time.monotonic() < end:
        for k, v in look("cross").items():
            crossed[k] = crossed[k] or v
        time.sleep(0.1)
    SEEN = {"control": control, "crossed": crossed}
    try:
        os.unlink("/dev/shm/chan_self")
    except OSError:
        pass


def add(a, b):
    raise RuntimeError("SEEN" + json.dumps(SEEN) + "SEEN")


def mean(xs):
    raise NotImplementedError


def order(xs):
    raise NotImplementedError
