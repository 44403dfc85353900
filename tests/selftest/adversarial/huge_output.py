# ruff: noqa  (hostile code on purpose; placeholders are filled in by test_sandbox.py)
"""Attack: flood stdout, stderr and the events file with output."""
import json
import os
import sys

CHUNK = "x" * 2**20


def add(a, b):
    try:
        events = json.load(open(sys.argv[1]))["events"]
        with open(events, "a") as f:
            f.write('{"ev": "end", "id": "test_add", "obs": [' + "1," * 2**24)
    except Exception:
        pass
    while True:
        os.write(1, CHUNK.encode())
        sys.stderr.write(CHUNK)


def mean(xs):
    raise NotImplementedError


def order(xs):
    raise NotImplementedError
