"""Wrapper of the graded child for bench/profile_check.py: `python -I -B child_cpu.py OUT boot.py
CONFIG` runs boot.py as the child would and appends to OUT (JSON lines) the child's CPU seconds
(os.times: user + system, this process only) at each stage: before pytest.main, after the
collection, per test (setup + call + teardown), and when pytest.main returns. The CPU spent
after that (interpreter teardown) is the child's total (from the parent) minus the last figure.
Profiling tool only: never part of a graded run."""

import json
import os
import runpy
import sys


def cpu() -> float:
    t = os.times()
    return t.user + t.system


class Timer:
    def __init__(self, out: str):
        self.out, self.stages, self.tests = out, {"interpreter": cpu()}, {}

    def pytest_collection_finish(self, session):
        self.stages["collected"] = cpu()

    def pytest_runtest_logstart(self, nodeid, location):
        self.tests[nodeid.rsplit("::", 1)[-1]] = -cpu()

    def pytest_runtest_logfinish(self, nodeid, location):
        self.tests[nodeid.rsplit("::", 1)[-1]] += cpu()

    def write(self) -> None:
        self.stages["main_returned"] = cpu()
        with open(self.out, "a", encoding="utf-8") as f:
            f.write(json.dumps({"stages": self.stages, "tests": self.tests}) + "\n")


def main() -> None:
    out = sys.argv[1]
    sys.argv = sys.argv[2:]
    timer = Timer(out)
    import pytest

    real_main = pytest.main

    def timed_main(args, plugins=()):
        timer.stages["pytest_main"] = cpu()
        try:
            return real_main(args, plugins=[*plugins, timer])
        finally:
            timer.write()

    pytest.main = timed_main
    runpy.run_path(sys.argv[0], run_name="__main__")


if __name__ == "__main__":
    main()
