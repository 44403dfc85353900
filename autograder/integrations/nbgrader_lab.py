"""What the lab notebook's cells call: `grade_lab` (the read-only setup cell) and `LabGrade.task`
(one read-only cell per handout task).

`grade_lab` never grades inside the notebook's kernel: it starts a fresh isolated interpreter,
`python -I -m autograder.integrations.nbgrader_lab ASSIGNMENT FOLDER REPLY` (the kernel's own interpreter, the
course's), whose working folder is an empty temporary one, so neither the notebook's folder nor
PYTHONPATH, user site-packages or a sitecustomize next to the notebook is on its path: the
engine it imports is the course's only. That interpreter runs `pipeline.grade` (student code only
in the sandboxed child, goldens only in that trusted process) and writes one JSON document: the
tests' results, where a hidden test keeps only its task, points and status, every string made
inert (safe_text.clean). The kernel reads the document back and prints each task's feedback.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import textwrap
from dataclasses import dataclass
from pathlib import Path

from .. import settings
from ..assignments import Visibility
from ..grading.cause_text import first_line
from ..grading.judge import TestResult
from ..grading.safe_text import clean, visible

MAX_SHOWN = 6  # public failures printed per task
WIDTH = 96  # columns of the printed feedback
MAX_REPLY = 8 * 1024 * 1024  # bytes of JSON read back from the grading interpreter
GRADE_TIMEOUT = 3600.0  # seconds; the engine enforces its own, far shorter, limits


@dataclass(frozen=True)
class LabGrade:
    """One engine run on the package next to the notebook, read task by task."""

    assignment: str
    tests: tuple[TestResult, ...]
    problems: tuple[str, ...]  # one line each (cause_text.first_line)
    hidden_graded: bool

    def task(self, number: int | None) -> float:
        """Print the task's feedback (public failures with hints; hidden ones as a count; every
        text inert, safe_text.visible) and return its points: the value nbgrader records for
        the cell."""
        tests = [t for t in self.tests if t.task == number]
        score, total = sum(t.points for t in tests), sum(t.max_points for t in tests)
        print(f"{len(tests)} tests, {score:g} / {total:g} points")
        for problem in self.problems:  # one line each
            print("problem:", visible(problem))
        public = [t for t in tests if t.visibility == Visibility.PUBLIC and not t.passed]
        shown: set[str] = set()
        for t in public[:MAX_SHOWN]:
            print(f"\nFAILED {visible(t.id)} ({t.max_points:g} points)")
            for line in (t.message or "failed").splitlines():
                print(_wrapped(visible(line), "    "))
            for hint in t.hints:
                print(_wrapped(visible(hint) if hint not in shown else "(the same as above)",
                               "    Hint: ", "          "))
                shown.add(hint)
        if len(public) > MAX_SHOWN:
            print(f"\n... and {len(public) - MAX_SHOWN} more public tests failed")
        hidden = [t for t in tests if t.visibility == Visibility.HIDDEN]
        failed = [t for t in hidden if not t.passed]
        if failed:
            lost = sum(t.max_points for t in failed)
            print(f"\nhidden tests: {len(failed)} of {len(hidden)} failed ({lost:g} points)")
        if not self.hidden_graded:
            print("\n(public tests only: the hidden tests run when your instructor autogrades)")
        return round(score, 6)


def _wrapped(text: str, first: str, rest: str | None = None) -> str:
    """`text` folded at WIDTH columns (the feedback page shows outputs unwrapped, in <pre>);
    words longer than a line (paths, values) stay whole."""
    return textwrap.fill(text, WIDTH, initial_indent=first, subsequent_indent=rest or first,
                         break_long_words=False, break_on_hyphens=False) or first.rstrip()


class LabError(Exception):
    """The grading interpreter gave no usable answer (one line for the notebook)."""


def grade_lab(assignment: str, folder: Path | str | None = None) -> LabGrade:
    """Grade the assignment's package in `folder` (default: the notebook's folder, which the
    course's grading kernel names in AUTOGRADER_LAB_DIR, else the kernel's working folder)
    once, in a fresh `python -I` interpreter; hidden tests too where the hidden goldens exist
    (the instructor's course), public tests only otherwise (a student's release)."""
    folder = Path(folder or settings.LAB_DIR.value() or ".").resolve()
    with tempfile.TemporaryDirectory(prefix="lab-") as empty:
        out = Path(empty) / "reply.json"
        try:
            done = subprocess.run(
                [sys.executable, "-I", "-m", "autograder.integrations.nbgrader_lab", assignment, str(folder),
                 str(out)], cwd=empty, capture_output=True, timeout=GRADE_TIMEOUT,
                stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired as e:
            raise LabError(f"grading {assignment} took over {GRADE_TIMEOUT:g} s") from e
        try:
            if done.returncode != 0 or out.stat().st_size > MAX_REPLY:
                raise ValueError("no reply")
            reply = json.loads(out.read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            tail = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["?"]
            raise LabError(f"grading {assignment} failed (exit {done.returncode}): "
                           f"{visible(tail[0])}") from e
    for line in reply["warnings"]:
        print(visible(line))
    print(visible(reply["summary"]))
    return LabGrade(reply["assignment"], tuple(TestResult.from_json(t) for t in reply["tests"]),
                    tuple(reply["problems"]), reply["hidden_graded"])


def _shown(t: TestResult) -> dict:
    """A test as the notebook may see it: a hidden test keeps its task, points and status."""
    if t.visibility == Visibility.PUBLIC:
        return t.to_json()
    return TestResult(t.assignment, "hidden", "", Visibility.HIDDEN, t.max_points, t.passed,
                      task=t.task, task_title=t.task_title).to_json()


def _grade_here(assignment: str, folder: Path) -> dict:
    """The JSON document of one engine run (this interpreter is the fresh isolated one)."""
    from ..assignments import course_root, load
    from ..grading import pipeline
    from ..grading.job import GradeJob, JobMode
    from ..sandbox import SandboxPolicy

    a = load(assignment)
    hidden = a.goldens_path(Visibility.HIDDEN).exists()
    # a grading (a draw of its own, the hidden tests) needs the hidden store; a student's
    # release has none, and gets the public tests on the published inputs (a check)
    mode = JobMode.GRADE if hidden else JobMode.CHECK
    results = pipeline.grade(GradeJob(folder, course_root(), mode, (a.name,),
                                      policy=SandboxPolicy.create()))
    tests = [t for g in results.grades for t in g.tests]
    return {"assignment": a.name, "hidden_graded": hidden, "warnings": list(results.warnings),
            "problems": [first_line(p) for p in results.problems]
            + [first_line(p) for g in results.grades for p in g.problems],
            "tests": [_shown(t) for t in tests],
            "summary": f"{a.name}: graded {len(tests)} tests "
                       f"({'public + hidden' if hidden else 'public'}) in "
                       f"{results.execution_time:.1f} s"}


if __name__ == "__main__":  # python -I -m autograder.integrations.nbgrader_lab ASSIGNMENT FOLDER REPLY
    Path(sys.argv[3]).write_text(json.dumps(clean(_grade_here(sys.argv[1], Path(sys.argv[2]))),
                                            ensure_ascii=True), encoding="utf-8")
