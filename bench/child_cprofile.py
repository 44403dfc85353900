"""Wrapper of the graded child for bench/profile_check.py --cprofile: `python -I -B
child_cprofile.py OUT boot.py CONFIG` runs boot.py as the child would, with cProfile on from
`pytest.main` (collection, every test, the harness's hooks), and writes the profile to OUT
after each test. Not at exit: the runner stops a child as soon as it reads the harness's `done`
event, and boot.py itself ends with os._exit, so an exit hook (what `-m cProfile -o` relies on)
never runs. Read OUT with `python -m pstats OUT`. Profiling tool only: never part of a graded
run."""

import cProfile
import runpy
import sys


class DumpAfterEachTest:
    def __init__(self, profile: cProfile.Profile, out: str):
        self.profile, self.out = profile, out

    def pytest_runtest_logfinish(self, nodeid, location):
        self.profile.disable()
        self.profile.dump_stats(self.out)
        self.profile.enable()


def main() -> None:
    out = sys.argv[1]
    sys.argv = sys.argv[2:]
    profile = cProfile.Profile()
    import pytest

    real_main = pytest.main

    def profiled_main(args, plugins=()):
        profile.enable()
        return real_main(args, plugins=[*plugins, DumpAfterEachTest(profile, out)])

    pytest.main = profiled_main
    runpy.run_path(sys.argv[0], run_name="__main__")


if __name__ == "__main__":
    main()
