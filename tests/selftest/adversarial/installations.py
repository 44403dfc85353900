# ruff: noqa  (hostile code on purpose; graded as the toy package by test_installations.py)
"""Attack: reach a Python installation other than the viewed venv, where nothing is masked or
replaced (a base interpreter's own scipy, with a whole `ttest_ind`). Reports what it found in
test_add's visible message as SEEN{json}SEEN:

site_dirs: every site-packages or dist-packages folder it can list, anywhere in the filesystem
it sees, other than those on its own import path, that holds anything. sys_path: the folders
from which `scipy.stats.ttest_ind` imports when put first on sys.path (scipy reloaded from
there). co_process: the interpreters (this one's real executable, its base interpreter, every
`python*` in a `bin` folder it finds) that compute ttest_ind in a subprocess of their own
with a scipy from elsewhere than the viewed venv, with their default import path and with the
user site turned on.
"""
import json
import os
import subprocess
import sys

SITE_NAMES = ("site-packages", "dist-packages")
SKIP = ("/proc", "/sys", "/dev")
VIEWED = {os.path.realpath(p) for p in sys.path if os.path.basename(p) in SITE_NAMES}
SEEN = {"site_dirs": [], "sys_path": [], "co_process": []}
interpreters = {os.path.realpath(sys.executable), getattr(sys, "_base_executable", "")}

for root, dirs, files in os.walk("/"):
    if root.startswith(SKIP):
        dirs[:] = []
        continue
    if os.path.basename(root) == "bin":
        interpreters |= {os.path.join(root, f) for f in files if f.startswith("python")}
    for name in list(dirs):
        path = os.path.join(root, name)
        if name in SITE_NAMES:
            dirs.remove(name)
            if os.path.realpath(path) in VIEWED:
                continue
            try:
                if os.listdir(path):
                    SEEN["site_dirs"].append(path)
            except OSError:
                pass

for folder in SEEN["site_dirs"]:
    saved = dict(sys.modules)
    for name in [m for m in sys.modules if m == "scipy" or m.startswith("scipy.")]:
        del sys.modules[name]
    sys.path.insert(0, folder)
    try:
        import scipy.stats

        if scipy.stats.__file__.startswith(folder):
            scipy.stats.ttest_ind([1.0, 2.0, 3.5], [4.0, 6.0, 9.5], equal_var=False)
            SEEN["sys_path"].append(folder)
    except Exception:
        pass
    finally:
        sys.path.remove(folder)
        sys.modules.clear()
        sys.modules.update(saved)

CODE = ("import os, scipy.stats; r = scipy.stats.ttest_ind([1.0, 2.0, 3.5], [4.0, 6.0, 9.5], "
        "equal_var=False); print('P=%r' % float(r[1])); "
        "print('FROM=' + os.path.realpath(scipy.stats.__file__))")
for exe in sorted(i for i in interpreters if i and os.access(i, os.X_OK)):
    for env in ({}, {"PYTHONNOUSERSITE": ""}):
        try:
            out = subprocess.run([exe, "-c", CODE], capture_output=True, text=True, timeout=60,
                                 env={"PATH": "/usr/bin:/bin", **env}).stdout
        except (OSError, subprocess.SubprocessError):
            continue
        source = out.partition("FROM=")[2].strip()
        if "P=" in out and not any(source.startswith(v + "/") for v in VIEWED):
            SEEN["co_process"].append(exe)  # a whole ttest_ind from elsewhere than the venv
            break


def add(a, b):
    raise RuntimeError("SEEN" + json.dumps(SEEN) + "SEEN")


def mean(xs):
    raise NotImplementedError


def order(xs):
    raise NotImplementedError
