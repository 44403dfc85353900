# ruff: noqa  (hostile code on purpose; placeholders are filled in by test_sandbox.py)
"""Attack: read the goldens and the reference solution on the host; if that works, answer
correctly (a cheat that pays). Also leak the hidden tests' source through a public test's
error message and through stderr."""
import os
import sys


def _read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


GOLDENS = _read("__SECRET__")
HIDDEN = []
try:
    import json

    cfg = json.load(open(sys.argv[1]))
    for root, _, files in os.walk(cfg["rootdir"]):
        HIDDEN += [_read(os.path.join(root, f)) or "" for f in files if "hidden" in root]
    for vis in ("hidden",):
        HIDDEN.append(_read(cfg["inputs"][vis]) or "")
except Exception:
    pass
LEAK = "LEAK<" + "|".join(HIDDEN) + ">"
sys.stderr.write(LEAK)


def add(a, b):
    if GOLDENS:
        return a + b
    raise RuntimeError(LEAK)


def mean(xs):
    if GOLDENS:
        if not xs:
            raise ValueError
        return sum(xs) / len(xs)
    sys.stderr.write(LEAK)
    os._exit(3)


def order(xs):
    if GOLDENS:
        return sorted(range(len(xs)), key=lambda i: xs[i])
    raise type("Leak_" + "".join(c for c in LEAK if c.isalnum())[:300], (Exception,), {})()
