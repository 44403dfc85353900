# ruff: noqa  (hostile code on purpose; placeholders are filled in by test_sandbox.py)
"""Attack: leave files that would change the next run: bytecode caches next to the submission
and the harness, .pth/sitecustomize files in site-packages, user site, shared /tmp."""
import os
import site
import sys
import sysconfig

import autograder.harness

MARK = "autograder_attack_canary"
targets = [os.path.join(p, f"zz_{MARK}.pth") for p in site.getsitepackages()]
targets += [os.path.join(sysconfig.get_paths()["stdlib"], f"zz_{MARK}.py"),
            os.path.join(site.getusersitepackages(), f"zz_{MARK}.pth"),
            os.path.join(os.path.dirname(autograder.harness.__file__), f"zz_{MARK}.py"),
            os.path.join(os.path.dirname(__file__), "__pycache__", f"zz_{MARK}.pyc"),
            f"/tmp/zz_{MARK}", f"/var/tmp/zz_{MARK}", f"/dev/shm/zz_{MARK}", "__CANARY__"]
for path in targets:
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write("# left by the adversarial corpus\n")
    except OSError:
        pass
sys.dont_write_bytecode = False


def add(a, b):
    raise NotImplementedError


def mean(xs):
    raise NotImplementedError


def order(xs):
    raise NotImplementedError
