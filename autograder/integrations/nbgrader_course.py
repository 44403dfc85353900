"""An nbgrader course generated from the assignments (`python -m autograder nbgrader OUT`).

OUT/nbgrader_config.py, and per assignment OUT/source/<a>/: the lab notebook <a>.ipynb and the
starter package (released with it; the student's copy is never overwritten by autograde). The
notebook holds
  - written questions (solutions/written_questions.toml), "manually graded answer" cells with
    their points, graded by hand in the formgrader;
  - one read-only setup cell that grades the package next to the notebook ONCE with our engine
    (nbgrader_lab.grade_lab: a fresh `python -I` interpreter runs pipeline.grade, sandboxed,
    goldens in that process, student code only in the sandboxed child) — nbgrader never imports
    the student's package, and the kernel never has the notebook's folder on its path
    (nbgrader_kernel);
  - one read-only autograder-tests cell per handout task, worth that task's points (public +
    hidden tests, from the golden stores), whose value is the points the engine gave the task:
    nbgrader's partial-credit convention (a grade cell whose result is a number scores that
    number). It prints the task's public failures with their hints; hidden tests appear only as
    a count and the points they cost.
Before the notebook runs, autograde rebuilds it from the released notebook, keeping only the
student's written answers; after it ran, a task cell that returned no points scores 0
(nbgrader_preprocessor, registered in nbgrader_config.py with the isolated kernel).
"""

from __future__ import annotations

import pprint
import shutil
import tempfile
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

from ..assignments import Assignment, Visibility, course_root, discover, load
from ..committed import NoCommitError, course_files, print_note
from ..grading import tasks
from ..grading.store import load_stores

COURSE_ID = "training-systems"
QUESTIONS_FILE = "solutions/written_questions.toml"
SETUP_CELL_ID = "engine_grade"
KERNELSPEC = MappingProxyType({"name": "python3", "display_name": "Python 3 (ipykernel)",
                               "language": "python"})
EXCHANGE = "exchange"  # the course's exchange root, inside the course folder


class CourseError(Exception):
    """The nbgrader course cannot be built (one line for the user)."""


@dataclass(frozen=True)
class Task:
    number: int | None  # None: tests that name no handout task
    title: str
    points: float
    public_points: float


def tasks_of(assignment: Assignment) -> list[Task]:
    """The handout's tasks with the points nbgrader's autograde can give (public + hidden; a
    `fixed` test is worth nothing in a grading, grading/draws.py) and the public points a
    student's own check counts, from the golden stores."""
    found: dict[int | None, list] = {}
    for vis, store in load_stores(assignment).items():
        for spec in store.tests.values():
            entry = found.setdefault(spec.task, [spec.task_title, 0.0, 0.0])
            entry[0] = entry[0] or spec.task_title
            entry[1] += 0.0 if spec.fixed else spec.points
            entry[2] += spec.points if vis == Visibility.PUBLIC else 0.0
    order = sorted(found, key=lambda n: (n is None, n or 0))
    return [Task(n, found[n][0], found[n][1], found[n][2]) for n in order]


def public_task_titles(assignment: Assignment) -> dict[int, str]:
    """{task: its whole title} from the public test files' docstrings (the stores keep a short
    one, cut at 60 characters with "…")."""
    return tasks.whole_task_titles(assignment.test_files(Visibility.PUBLIC))


def task_cell_id(number: int | None) -> str:
    return f"task_{number}" if number is not None else "task_other"


def written_questions(root: Path | None = None) -> dict[str, list[dict]]:
    """{assignment: [{id, points, from, question, answer}]}."""
    path = (root or course_root()) / QUESTIONS_FILE
    if not path.exists():
        return {}
    return tomllib.loads(path.read_text(encoding="utf-8"))


# --- the course side: writing OUT/ ----------------------------------------------------------


def _nbgrader(cell, grade_id: str, *, grade: bool, solution: bool, locked: bool,
              points: float | None = None):
    meta = {"grade": grade, "solution": solution, "locked": locked, "grade_id": grade_id,
            "schema_version": 3}
    if points is not None:
        meta["points"] = points
    cell.metadata["nbgrader"] = meta
    return cell


def lab_notebook(assignment: Assignment, questions: list[dict]):
    """The source notebook (an nbformat NotebookNode) of one assignment, nbgrader metadata
    included."""
    import nbformat  # here, not at the top: nbformat is an instructor-only dependency

    v4 = nbformat.v4
    handout = next(iter(sorted((assignment.root / "assignments").glob(f"{assignment.number:02d}_*"))),
                   None)
    handout_name = f"assignments/{handout.name}/README.md" if handout else "the handout"
    pkg = assignment.package
    cells = [_nbgrader(v4.new_markdown_cell(
        f"# Lab {assignment.number}: {assignment.title}\n\n"
        f"Implement the `{pkg}/` package next to this notebook (the handout: `{handout_name}`), "
        "and answer the written questions below in their answer cells.\n\n"
        "The autograded cells grade your package with the course's engine when your instructor "
        "autogrades: your code runs in a sandbox, each task cell scores that task's public and "
        "hidden tests and prints the public failures with hints. Do not edit those cells "
        "(nbgrader restores them)."), "intro", grade=False, solution=False, locked=True)]
    cells.append(v4.new_markdown_cell("## Written questions (graded by hand)"))
    for q in questions:
        cells.append(_nbgrader(v4.new_markdown_cell(
            f"**Question ({q['points']:g} points, from *{q['from']}*).** {q['question']}"),
            f"q_{q['id']}_prompt", grade=False, solution=False, locked=True))
        cells.append(_nbgrader(v4.new_markdown_cell(
            f"### BEGIN SOLUTION\n{q['answer']}\n### END SOLUTION"),
            f"q_{q['id']}", grade=True, solution=True, locked=False, points=q["points"]))
    cells.append(v4.new_markdown_cell(
        f"## Autograded: your `{pkg}` package\n\nOne engine run grades the package; each cell "
        "below is worth one handout task's points."))
    cells.append(_nbgrader(v4.new_code_cell(
        "# Grades the package next to this notebook once, in a fresh interpreter and the course's\n"
        "# sandbox; the expected values never enter this notebook. Read-only: nbgrader restores\n"
        "# it before grading.\n"
        "from autograder.integrations.nbgrader_lab import grade_lab\n\n"
        f"lab = grade_lab({assignment.name!r})"), SETUP_CELL_ID, grade=False, solution=False,
        locked=True))
    titles = public_task_titles(assignment)
    for task in tasks_of(assignment):
        title = titles.get(task.number, task.title) if task.number is not None else ""
        label = f"Task {task.number}: {title}" if task.number is not None else "Other tests"
        cells.append(v4.new_markdown_cell(
            f"### {label} ({task.points:g} points, {task.public_points:g} of them public)"))
        cells.append(_nbgrader(v4.new_code_cell(f"lab.task({task.number!r})"),
                               task_cell_id(task.number), grade=True, solution=False,
                               locked=True, points=task.points))
    nb = v4.new_notebook(cells=cells)
    nb.metadata["kernelspec"] = dict(KERNELSPEC)
    nb.metadata["language_info"] = {"name": "python"}
    return nb


def config_text(assignments: list[Assignment], package_files: dict[str, list[str]]) -> str:
    """nbgrader_config.py: the course id, folders and exchange inside the course folder (found
    from the config file's own path), and autograde's steps (nbgrader_preprocessor,
    nbgrader_kernel)."""
    timeout = int(max(a.run_timeout for a in assignments) * 2 + 120)
    lines = [
        '"""nbgrader configuration of the Training Systems course (written by',
        '`python -m autograder nbgrader`, which rewrites it). Run nbgrader in this folder with the',
        'course\'s venv."""',
        "",
        "import functools",
        "import os",
        "import warnings",
        "",
        "from nbgrader.preprocessors import (ClearOutput, CheckCellMetadata, IgnorePattern,",
        "                                    LimitOutput, SaveAutoGrades, AssignLatePenalties)",
        "from sqlalchemy.exc import SAWarning",
        "",
        "from autograder.integrations.nbgrader_kernel import IsolatedExecute",
        "from autograder.integrations.nbgrader_preprocessor import (RecordRejection, RequireTaskResults,",
        "                                              RestoreReleaseCells, reject_unreadable)",
        "",
        "c = get_config()  # noqa: F821",
        "COURSE = os.path.dirname(os.path.abspath(__file__))",
        f"c.CourseDirectory.course_id = {COURSE_ID!r}",
        "c.CourseDirectory.root = COURSE",
        f"c.Exchange.root = os.path.join(COURSE, {EXCHANGE!r})  # formgrader's release/collect",
        "# nbgrader 0.9's gradebook (nbgrader/api.py) trips SQLAlchemy's autoflush warning",
        "# 'Object of type <SubmittedAssignment> not in session' for every submission; it says",
        "# nothing about grading. Only that category, only from nbgrader: errors still show",
        'warnings.filterwarnings("ignore", category=SAWarning, module="nbgrader")',
        "# the student's package is theirs: autograde must not put the starter back over it",
        "c.Autograde.exclude_overwriting = "
        + pprint.pformat(package_files, width=96, compact=True, sort_dicts=False),
        "# a notebook nbgrader cannot read is set aside and graded 0 with its reason",
        "c.Autograde.pre_convert_hook = functools.partial(",
        "    reject_unreadable, os.path.join(COURSE, 'release'))",
        "# the notebook is rebuilt from the release (only written answers are the student's);",
        "# the kernel is the course's interpreter under -I, never the notebook's folder on its path",
        "c.RestoreReleaseCells.release_root = os.path.join(COURSE, 'release')",
        "c.Autograde.sanitize_preprocessors = [RestoreReleaseCells, ClearOutput, CheckCellMetadata]",
        "c.Autograde.autograde_preprocessors = [IsolatedExecute, IgnorePattern, LimitOutput,",
        "                                       RequireTaskResults, SaveAutoGrades,",
        "                                       RecordRejection, AssignLatePenalties,",
        "                                       CheckCellMetadata]",
        "# the setup cell runs the whole engine (it enforces its own time limits)",
        f"c.Execute.timeout = {timeout}",
        "c.Execute.interrupt_on_timeout = True",
        'c.ClearSolutions.text_stub = "YOUR ANSWER HERE"',
        "",
    ]
    return "\n".join(lines)


# what the course is built from: the starters, the tests (their stores give the tasks' points),
# the handouts and the written questions
SOURCES = ("starter", "tests", "assignments", QUESTIONS_FILE)


def build_course(out: Path, names: list[str] | None = None, root: Path | None = None,
                 say: Callable[[str], None] = print_note) -> Path:
    """Write (or refresh) the nbgrader course in `out`: source/<a>/ for each assignment (all by
    default), and nbgrader_config.py (regenerated each time), from the course as committed at
    HEAD (committed.course_files, as the release: `say` gets the one-line note naming the
    uncommitted changes left out). Returns out."""
    try:
        course = course_files(root or course_root(), SOURCES)
    except NoCommitError as e:
        raise CourseError(str(e)) from None
    note = course.note("the nbgrader course")
    if note:
        say(note)
    with tempfile.TemporaryDirectory(prefix="nbgrader-course-") as tree:
        return _build_course(out, names, course.write(Path(tree)))


def _build_course(out: Path, names: list[str] | None, root: Path) -> Path:
    chosen = [load(n, root) for n in names] if names else discover(root)
    if not chosen:
        raise CourseError("no assignments found under tests/ of the committed course")
    import nbformat

    questions = written_questions(root)
    out = Path(out)
    for a in chosen:
        starter = a.starter / a.package
        if not starter.is_dir():
            raise CourseError(f"no starter package starter/{a.package} in the committed course: "
                              f"run `make starter` and commit it")
        dest = out / "source" / a.name
        if dest.exists():
            shutil.rmtree(dest)
        dest.mkdir(parents=True)
        shutil.copytree(starter, dest / a.package,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        nbformat.write(lab_notebook(a, questions.get(a.name, [])), dest / f"{a.name}.ipynb")
    present = [a for a in discover(root) if (out / "source" / a.name / a.package).is_dir()]
    package_files = {a.name: sorted(p.relative_to(out / "source" / a.name).as_posix()
                                    for p in (out / "source" / a.name / a.package).rglob("*")
                                    if p.is_file())
                     for a in present}
    (out / EXCHANGE).mkdir(exist_ok=True)  # students of a shared hub need it 1777 (nbgrader docs)
    (out / "nbgrader_config.py").write_text(config_text(present, package_files), encoding="utf-8")
    return out
