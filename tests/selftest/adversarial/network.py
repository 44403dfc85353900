# ruff: noqa  (hostile code on purpose; placeholders are filled in by test_sandbox.py)
"""Attack: talk to a server on the grader's machine (and the internet); answer correctly when it
works (e.g. fetch the answers)."""
import socket


def _online():
    for host, port in (("127.0.0.1", __PORT__), ("10.0.2.2", 80), ("1.1.1.1", 53)):
        try:
            with socket.create_connection((host, port), timeout=0.5) as s:
                s.sendall(b"hello")
                return True
        except OSError:
            continue
    return False


ONLINE = _online()


def add(a, b):
    if ONLINE:
        return a + b
    raise NotImplementedError


def mean(xs):
    if ONLINE:
        if not xs:
            raise ValueError
        return sum(xs) / len(xs)
    raise NotImplementedError


def order(xs):
    if ONLINE:
        return sorted(range(len(xs)), key=lambda i: xs[i])
    raise NotImplementedError
