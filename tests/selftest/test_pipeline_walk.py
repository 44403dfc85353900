"""The walk of one submission from the command line to results.json (docs/ARCHITECTURE.md,
"The walk"), measured: `grade` runs in this process under a profiler that records every call
from one engine module into another, once on the host backend's warm path and once on its cold
chain.

- The walk is what the orchestrators call in other modules: the grading spine (`cli`,
  `commands`, `grading.pipeline`) and the host backend's run path (`backends`,
  `backends.host`, `backends.runner`, `backends.warmbox`), from `cli.main` to the child's start
  and from the child's events back. Its stops, in the order first entered, with the functions
  entered, are the table in docs/ARCHITECTURE.md: its warm column where the warm path runs
  here (`warmbox.probe`; skipped with the probe's reason elsewhere), its cold column on the
  cold chain (the deployment switch off: it runs on every machine). Reading a value's
  property is not an entry.
- The spine enters no module by more than two functions (the backend's orchestrators drive a
  box and a run folder through several, and their rows list them all).
- Intake happens once, through `intake.take_in`, and only the pipeline calls the stages
  (intake, backends.run, judge, report's writers aside from the CLI's output).
- No stage re-enters another: intake, judge and report call no function of another stage, and
  nothing under backends/ calls into grading/.

Mutants that fail these tests: the pipeline staging a second time (`find_package` +
`stage` after `take_in`); `judge_run` calling `backends.run` for a rerun itself; a row of the
table dropped or reordered, or a path's column wrong; the CLI writing results.json and
instructor.json separately.
"""

from __future__ import annotations

import importlib
import json
import re
import shutil
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from autograder import cli, settings
from autograder.assignments import load
from autograder.authoring.goldens import generate
from autograder.backends import host, warmbox
from autograder.sandbox import SandboxPolicy

ROOT = Path(__file__).resolve().parents[2]
ENGINE = str(ROOT / "autograder") + "/"
SPINE = ("cli", "commands", "grading.pipeline")
BACKEND_RUN = ("backends", "backends.host", "backends.runner", "backends.warmbox")
ORCHESTRATORS = SPINE + BACKEND_RUN
STAGES = ("grading.intake", "grading.judge", "grading.report", "backends")
MAX_ENTRIES = 2  # functions by which the spine enters a module
TABLE = re.compile(r"<!-- walk:begin -->(.*?)<!-- walk:end -->", re.S)
COUNT = re.compile(r"The walk: (\d+) stops on the warm path and (\d+) on the cold chain")
PATHS = ("warm", "cold")
POLICY = SandboxPolicy.create()  # the policy of `grade` without options


@dataclass
class Walked:
    path: str  # the path every child of the grade took: "warm" or "cold"
    calls: list[tuple[str, str, str, str]]


def _module(code) -> str | None:
    """The engine module (dotted, below autograder/) a code object belongs to, or None."""
    name = code.co_filename
    if not name.startswith(ENGINE) or not name.endswith(".py"):
        return None
    dotted = name[len(ENGINE):-3].replace("/", ".")
    return dotted.removesuffix(".__init__")


def _is_property(module: str, qualname: str) -> bool:
    """Whether `module.qualname` is a property's getter (a value read, not an entry)."""
    owner, _, attr = qualname.rpartition(".")
    if not owner or "<" in owner:
        return False
    obj = importlib.import_module(f"autograder.{module}")
    for part in owner.split("."):
        obj = getattr(obj, part, None)
    return isinstance(getattr(obj, "__dict__", {}).get(attr), property)


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> Path:
    """A copy of the toy course with its goldens."""
    course = tmp_path_factory.mktemp("walk") / "course"
    shutil.copytree(ROOT / "tests" / "selftest" / "toy_course", course)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TRAINING_SYSTEMS_ROOT", str(course))
        generate(load("toy", course))
    return course


@pytest.fixture(scope="module", params=PATHS)
def walked(request, course) -> Walked:
    """(caller module, caller function, callee module, callee function) of every call from one
    engine module into another while `grade` grades a correct toy submission on the warm path
    (its probe passed and the assignment's zygote running, as for every warm run after a
    process's first) or on the cold chain (`TRAINING_SYSTEMS_WARM=0`). Each path grades its own
    submission: a draw is cached per submission, and the reference's run on it is on the walk."""
    path = request.param
    if path == "warm":
        why = warmbox.probe(POLICY)
        if why is not None:
            pytest.skip(f"the warm path does not run here, so its walk is not checked: {why}")
        assert host.BACKEND.warm_zygotes().get(load("toy", course)) is not None
    tmp = course.parent / path
    tmp.mkdir()
    submission = tmp / "sub.zip"
    solution = (course / "solutions" / "toy" / "__init__.py").read_text()
    with zipfile.ZipFile(submission, "w") as zf:
        zf.writestr("toy/__init__.py", f"{solution}\n# graded on the {path} path\n")
    seen: list[tuple[str, str, str, str]] = [("", "", "cli", "main")]

    def profile(frame, event, arg):
        if event != "call" or frame.f_back is None:
            return
        callee, caller = _module(frame.f_code), _module(frame.f_back.f_code)
        if callee is None or caller is None or callee == caller:
            return
        seen.append((caller, frame.f_back.f_code.co_qualname, callee, frame.f_code.co_qualname))

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TRAINING_SYSTEMS_ROOT", str(course))
        mp.setenv(settings.WARM.name, "1" if path == "warm" else "0")
        sys.setprofile(profile)
        try:
            status = cli.main(["grade", str(submission), "--assignment", "toy",
                               "--out", str(tmp / "out")])
        finally:
            sys.setprofile(None)
    assert status == 0 and (tmp / "out" / "results.json").is_file()
    results = json.loads((tmp / "out" / "results.json").read_text())
    assert results["extra_data"]["autograder"]["paths"] == {"toy": path}, "not the path asked"
    return Walked(path, [c for c in seen if not c[0] or not _is_property(c[2], c[3])])


def walk(calls, orchestrators=ORCHESTRATORS) -> list[tuple[str, list[str]]]:
    """(module, the functions `orchestrators` entered it by) in first-entry order."""
    stops: dict[str, list[str]] = {}
    for caller, _, callee, function in calls:
        if caller and caller not in orchestrators:
            continue
        entered = stops.setdefault(callee, [])
        if function not in entered:
            entered.append(function)
    return list(stops.items())


def documented(path: str) -> list[tuple[str, list[str]]]:
    """The walk table of docs/ARCHITECTURE.md on `path`: (module, functions) per row. The cold
    column says `same` where the cold chain enters the module as the warm path does, and `—`
    where it does not enter it."""
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text()
    rows = []
    for line in TABLE.search(text).group(1).splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 4 or not cells[0].isdigit():
            continue
        warm = re.findall(r"`([^`]+)`", cells[2])
        entered = warm if path == "warm" or cells[3] == "same" else \
            re.findall(r"`([^`]+)`", cells[3])
        if entered:
            rows.append((cells[1].strip("`"), entered))
    return rows


def test_the_walk_is_the_documented_one(walked):
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text()
    assert walk(walked.calls) == documented(walked.path)
    count = COUNT.search(text)
    assert count and int(count.group(PATHS.index(walked.path) + 1)) == len(walk(walked.calls))


def test_no_module_on_the_walk_is_entered_more_than_twice_by_the_spine(walked):
    crowded = {m: fs for m, fs in walk(walked.calls, SPINE) if len(fs) > MAX_ENTRIES}
    assert not crowded, crowded


def test_intake_happens_once_and_only_the_pipeline_calls_the_stages(walked):
    calls = walked.calls
    into_intake = [c for c in calls if c[2] == "grading.intake" and c[0] != "grading.intake"]
    assert [c[3] for c in into_intake if c[3] == "take_in"] == ["take_in"]
    assert {c[0] for c in into_intake} == {"grading.pipeline"}
    assert {c[3] for c in into_intake} <= {"take_in", "staging_dir"}
    runs = [c for c in calls if c[2] == "backends" and c[3] == "run"]
    assert runs and {c[0] for c in runs} == {"grading.pipeline"}
    judged = [c for c in calls if c[2] == "grading.judge" and c[3] == "judge_run"]
    assert judged and {c[0] for c in judged} == {"grading.pipeline"}


def _stage(module: str) -> str | None:
    return next((s for s in STAGES if module == s or module.startswith(s + ".")), None)


def test_no_stage_re_enters_another(walked):
    calls = walked.calls
    crossings = {(c[0], c[3], c[2]) for c in calls
                 if _stage(c[0]) and _stage(c[2]) and _stage(c[0]) != _stage(c[2])}
    assert not crossings, crossings
    upward = {(c[0], c[2]) for c in calls if c[0].startswith("backends")
              and c[2].startswith("grading")}
    assert not upward, upward
