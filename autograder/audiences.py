"""Who sees what: one table over the course's files, for every audience the course serves.

`share(audience, path)` says how an audience receives the course file `path` (relative to the
course root, POSIX): WHOLE (as it is), STUBBED (through the starter rule: a `### BEGIN SOLUTION`
region becomes `raise NotImplementedError`) or None (never). Every builder asks it and nothing
else decides: `run_folder.prepare_run_dir` (the sandboxed child, per visibility),
`release.py` (the student release), `integrations/gradescope.py` (the Gradescope grader). The
nbgrader row records what `nbgrader_course.py` ships (the lab notebooks and public tests:
nbgrader's autograde runs the student's code itself, so it is given no engine and no goldens).

The audiences:
  child-public, child-hidden  the sandboxed child of one run folder: the harness, that
                              visibility's test files and inputs (or a grading's draw of them:
                              grading/draws.py), common.py. Never a golden, solution,
                              checks.py, or the other visibility's tests.
  release                     the student release: handouts, starter, public tests, inputs and
                              goldens, and only the engine that `check` and local pytest need.
                              No solutions, hidden material (its goldens hold the draw
                              secret), mutant write-ups, mutation report,
                              instructor modules (similarity, bulk, Dask, Gradescope, nbgrader,
                              mutation, goldens, examples, self-test), docker/, bench/, or the
                              handout scripts that import solutions/.
  gradescope                  the trusted parent on Gradescope: the release's engine plus the
                              Gradescope runner, one assignment's public and hidden tests,
                              inputs, goldens and checks.py, and its reference package
                              (solutions/<a>/: each grading's expected values are computed
                              there), all whole: the child's run folder stubs its copies.
  nbgrader                    the nbgrader course: handouts and public tests of its assignments.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from .assignments import VISIBILITIES, Visibility

AUDIENCES = ("child-public", "child-hidden", "release", "gradescope", "nbgrader")
WHOLE, STUBBED = "whole", "stubbed"

# The engine a student needs for `python -m autograder check` and `submit` and for local pytest (the
# tests/conftest.py plugin autograder/grading/local_pytest.py), and nothing an instructor alone runs.
RELEASE_ENGINE = frozenset({
    "__init__.py", "__main__.py", "assignments.py", "atomic.py", "audiences.py", "cli.py",
    "commands.py", "input_paths.py", "markers.py", "progress.py", "settings.py", "watch.py",
    "harness", "sandbox",
    "backends/__init__.py", "backends/base.py", "backends/causes.py", "backends/host.py",
    "backends/runner.py",
    "backends/run_folder.py", "backends/run_bytecode.py", "backends/hostbox.py",
    "backends/preload.py",
    "backends/warmbox.py", "backends/holder.py", "backends/zygote.py", "backends/import_view.py",
    "backends/timeouts.py",
    "grading/__init__.py", "grading/cause_text.py", "grading/compare.py", "grading/draws.py",
    "grading/job.py",
    "grading/forbidden.py",
    "grading/misplaced_package.py", "grading/gradescope_schema.json", "grading/intake.py",
    "grading/judge.py", "grading/local_pytest.py", "grading/pipeline.py", "grading/report.py",
    "grading/results.py", "grading/returns.py", "grading/safe_text.py", "grading/store.py",
    "grading/tasks.py", "grading/submission_zip.py", "grading/hints.py",
    "grading/float_policy.py",
})
GRADESCOPE_ENGINE = RELEASE_ENGINE | {"integrations/__init__.py",
                                      "integrations/gradescope.py"}
# Top-level folders and files that only the instructor's checkout holds.
INSTRUCTOR_TOP = frozenset({"solutions", "examples", "bench", "docs", "docker", ".ci",
                            "README.md", "Makefile", ".gitignore"})
# Instructor scripts and write-ups anywhere under tests/ or assignments/: they import
# solutions/, read hidden goldens, or quote reference lines.
INSTRUCTOR_NAMES = ("crosscheck_", "make_plots.py", "make_tables.py", "handout_blocks.py",
                    "EQUIVALENT_MUTANTS.md", "mutation_report.md", "mutation_report.json")


def instructor_only(path: PurePosixPath) -> bool:
    """Whether `path` is instructor material that no audience but the instructor receives."""
    return (path.parts[0] in INSTRUCTOR_TOP or "__pycache__" in path.parts
            or path.suffix == ".pyc" or path.name.startswith(INSTRUCTOR_NAMES))


def _engine(path: PurePosixPath, allowed: frozenset[str]) -> bool:
    inner = path.parts[1:]
    return bool(inner) and (inner[0] in allowed or "/".join(inner) in allowed)


def _child(path: PurePosixPath, visibility: str) -> str | None:
    parts = path.parts
    if parts[:2] == ("autograder", "harness"):
        return WHOLE
    if parts[0] != "tests" or len(parts) < 3:
        return None
    rest = parts[2:]
    if rest == ("inputs", f"{visibility}.json"):
        return WHOLE
    if rest == ("common.py",) or (len(rest) == 2 and rest[0] == visibility
                                  and path.name.startswith("test_") and path.suffix == ".py"):
        return STUBBED  # whole only in the reference's gen runs (run_folder.prepare_run_dir)
    return None


def _release(path: PurePosixPath) -> str | None:
    parts = path.parts
    if parts[0] == "autograder":
        return WHOLE if _engine(path, RELEASE_ENGINE) else None
    if parts[0] in ("starter", "assignments") or path.as_posix() == "pyproject.toml":
        return WHOLE
    if parts[0] != "tests" or len(parts) < 2 or parts[1] == "selftest":
        return None
    if len(parts) == 2:
        return WHOLE if path.name == "conftest.py" else None
    rest = parts[2:]
    if rest[0] == Visibility.HIDDEN or path.name == f"{Visibility.HIDDEN}.json":
        return None
    return STUBBED if path.suffix == ".py" else WHOLE


def _gradescope(path: PurePosixPath, assignment: str | None) -> str | None:
    parts = path.parts
    if parts[0] == "autograder":
        return WHOLE if _engine(path, GRADESCOPE_ENGINE) else None
    if parts[0] == "solutions":  # the reference package: each grading's expected values
        return WHOLE if len(parts) > 2 and parts[1] == assignment \
            and path.suffix == ".py" else None
    if parts[0] != "tests" or len(parts) < 3 or (assignment and parts[1] != assignment):
        return None
    rest = parts[2:]
    if rest in (("checks.py",), ("assignment.toml",), ("common.py",)) \
            or rest[0] in (*VISIBILITIES, "inputs", "goldens"):
        return WHOLE
    return None


def _nbgrader(path: PurePosixPath, assignment: str | None) -> str | None:
    parts = path.parts
    if parts[0] == "assignments" and path.suffix in (".md", ".png"):
        return WHOLE
    if parts[0] != "tests" or len(parts) < 4 or (assignment and parts[1] != assignment):
        return None
    if parts[2] == Visibility.PUBLIC or path.as_posix().endswith(
            (f"inputs/{Visibility.PUBLIC}.json", f"goldens/{Visibility.PUBLIC}.json")):
        return STUBBED if path.suffix == ".py" else WHOLE
    return None


def share(audience: str, path: PurePosixPath | str, assignment: str | None = None) -> str | None:
    """How `audience` receives the course file `path` (course-relative, POSIX): WHOLE, STUBBED
    or None. `assignment` limits the Gradescope and nbgrader audiences to one assignment's tests
    (the others ignore it). Raises ValueError for an unknown audience."""
    path = PurePosixPath(path)
    if audience not in AUDIENCES:
        raise ValueError(f"unknown audience {audience!r} (known: {', '.join(AUDIENCES)})")
    if audience == "gradescope" and path.parts[:1] == ("solutions",) \
            and "__pycache__" not in path.parts:
        return _gradescope(path, assignment)
    if not path.parts or instructor_only(path) or path.parts[:3] == (
            "autograder", "authoring", "release_files"):
        return None
    if audience.startswith("child-"):
        return _child(path, audience.removeprefix("child-"))
    if audience == "release":
        return _release(path)
    if audience == "gradescope":
        return _gradescope(path, assignment)
    return _nbgrader(path, assignment)
