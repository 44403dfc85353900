# ruff: noqa  (hostile code on purpose; placeholders are filled in by test_sandbox.py)
"""Attack: leave daemons running after the test process exits: they hold the output pipes and,
later, rewrite files (events, a host file, other runs' folders)."""
import glob
import json
import os
import sys
import time

EVENTS = json.load(open(sys.argv[1]))["events"]


def _daemon():
    if os.fork():
        return
    os.setsid()
    if os.fork():
        os._exit(0)
    for _ in range(300):  # about 15 s
        time.sleep(0.05)
        for path in ["__CANARY__", EVENTS, *glob.glob("/tmp/grade-*/events-*.jsonl")]:
            try:
                with open(path, "a") as f:
                    f.write('{"ev": "end", "id": "test_mean", "outcome": "passed", "obs": []}\n')
            except OSError:
                pass
    os._exit(0)


_daemon()


def add(a, b):
    raise NotImplementedError


def mean(xs):
    raise NotImplementedError


def order(xs):
    raise NotImplementedError
