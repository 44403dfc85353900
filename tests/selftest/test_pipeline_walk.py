"""The walk of one submission from the command line to results.json (docs/ARCHITECTURE.md,
"The walk"), measured: `grade` runs in this process under a profiler that records every call
from one engine module into another.

- The walk is the orchestration spine: what `cli`, `commands` and `grading.pipeline` call in
  other modules. Its stops, in the order first entered, with the functions entered, are the
  table in docs/ARCHITECTURE.md, and no module on it is entered by more than two functions
  (reading a value's property is not an entry).
- Intake happens once, through `intake.take_in`, and only the pipeline calls the stages
  (intake, backends.run, judge, report's writers aside from the CLI's output).
- No stage re-enters another: intake, judge and report call no function of another stage, and
  nothing under backends/ calls into grading/.

Mutants that fail these tests: the pipeline staging a second time (`find_package` +
`stage` after `take_in`); `judge_run` calling `backends.run` for a rerun itself; a row of the
table dropped or reordered; the CLI writing results.json and instructor.json separately.
"""

from __future__ import annotations

import importlib
import re
import shutil
import sys
import zipfile
from pathlib import Path

import pytest

from autograder import cli
from autograder.assignments import load
from autograder.authoring.goldens import generate

ROOT = Path(__file__).resolve().parents[2]
ENGINE = str(ROOT / "autograder") + "/"
ORCHESTRATORS = ("cli", "commands", "grading.pipeline")
STAGES = ("grading.intake", "grading.judge", "grading.report", "backends")
MAX_ENTRIES = 2
TABLE = re.compile(r"<!-- walk:begin -->(.*?)<!-- walk:end -->", re.S)


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
def calls(tmp_path_factory) -> list[tuple[str, str, str, str]]:
    """(caller module, caller function, callee module, callee function) of every call from one
    engine module into another while `grade` grades a correct toy submission."""
    tmp = tmp_path_factory.mktemp("walk")
    course = tmp / "course"
    shutil.copytree(ROOT / "tests" / "selftest" / "toy_course", course)
    mp = pytest.MonkeyPatch()
    mp.setenv("TRAINING_SYSTEMS_ROOT", str(course))
    generate(load("toy", course))
    submission = tmp / "sub.zip"
    with zipfile.ZipFile(submission, "w") as zf:
        zf.write(course / "solutions" / "toy" / "__init__.py", "toy/__init__.py")
    seen: list[tuple[str, str, str, str]] = [("", "", "cli", "main")]

    def profile(frame, event, arg):
        if event != "call" or frame.f_back is None:
            return
        callee, caller = _module(frame.f_code), _module(frame.f_back.f_code)
        if callee is None or caller is None or callee == caller:
            return
        seen.append((caller, frame.f_back.f_code.co_qualname, callee, frame.f_code.co_qualname))

    sys.setprofile(profile)
    try:
        status = cli.main(["grade", str(submission), "--assignment", "toy",
                           "--out", str(tmp / "out")])
    finally:
        sys.setprofile(None)
        mp.undo()
    assert status == 0 and (tmp / "out" / "results.json").is_file()
    return [c for c in seen if not c[0] or not _is_property(c[2], c[3])]


def walk(calls) -> list[tuple[str, list[str]]]:
    """(module, the functions the orchestrators entered it by) in first-entry order."""
    stops: dict[str, list[str]] = {}
    for caller, _, callee, function in calls:
        if caller and caller not in ORCHESTRATORS:
            continue
        entered = stops.setdefault(callee, [])
        if function not in entered:
            entered.append(function)
    return list(stops.items())


def documented() -> list[tuple[str, list[str]]]:
    """The walk table of docs/ARCHITECTURE.md: (module, functions) per row."""
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text()
    rows = []
    for line in TABLE.search(text).group(1).splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[0].isdigit():
            rows.append((cells[1].strip("`"), re.findall(r"`([^`]+)`", cells[2])))
    return rows


def test_the_walk_is_the_documented_one(calls):
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text()
    assert walk(calls) == documented()
    count = re.search(r"The walk: (\d+) stops", text)
    assert count and int(count.group(1)) == len(walk(calls))


def test_no_module_on_the_walk_is_entered_more_than_twice(calls):
    crowded = {m: fs for m, fs in walk(calls) if len(fs) > MAX_ENTRIES}
    assert not crowded, crowded


def test_intake_happens_once_and_only_the_pipeline_calls_the_stages(calls):
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


def test_no_stage_re_enters_another(calls):
    crossings = {(c[0], c[3], c[2]) for c in calls
                 if _stage(c[0]) and _stage(c[2]) and _stage(c[0]) != _stage(c[2])}
    assert not crossings, crossings
    upward = {(c[0], c[2]) for c in calls if c[0].startswith("backends")
              and c[2].startswith("grading")}
    assert not upward, upward
