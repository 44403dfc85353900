"""Command line: `python -m autograder {check,test,submit,grade,bulk,gradescope,goldens,examples,
release,nbgrader,demo,selftest,mutation,starter}`. Every path is checked before any work
(input_paths.py): a bad one is one line naming it and exit 2.

This module only parses arguments and prints: grading is `service.grade` / `service.check`,
with one `SandboxPolicy` made here from --isolation and one `Placement` from --backend and
--gpus (autograder/backends). A command is offered only
where the engine modules it runs are installed (NEEDS): the student release ships the engine
for `check` and `test` alone (autograder/audiences.py), so its CLI lists only those two.
Output to a pipe or file is not hard-wrapped (paths and file:line stay on one line).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from .assignments import AssignmentError, course_root, discover, load
from .backends import REGISTRY, BackendError, Placement
from .grading import service
from .grading.report import render, write_instructor, write_results
from .grading.safe_text import visible
from .grading.store import StoreError
from .input_paths import PathError, input_folder, input_submission, output_file, output_folder
from .sandbox import MODES, IsolationError, SandboxPolicy


def make_console() -> Console:
    """The terminal report's console: soft-wrapped (no hard line breaks) unless stdout is a
    terminal, so a piped report keeps each path and file:line whole."""
    return Console(soft_wrap=not sys.stdout.isatty())


def show(grades, console: Console, title: str, **kw) -> None:
    """The terminal report under `title`: a rule on a terminal; piped, one plain line (a rule
    fits the title into 80 columns and would cut a long path)."""
    if console.is_terminal:
        render(grades, console, title=title, **kw)
        return
    console.print(f"── {visible(title)} ──", markup=False, highlight=False)
    render(grades, console, **kw)


def resolve_task(assignment, text: str | None) -> int | None:
    """--task: a task number, or a fragment of one task's title or test file name
    (case-insensitive). Raises AssignmentError naming the tasks when it matches none or
    several."""
    if text is None:
        return None
    if text.strip().isdigit():
        return int(text)
    from .grading.store import load_stores

    tests = load_stores(assignment, ("public",))["public"].tests.values()
    titles = {t.task: t.task_title for t in tests if t.task is not None}
    needle = text.lower()
    found = sorted({t.task for t in tests if t.task is not None
                    and (needle in t.task_title.lower() or needle in t.file.lower())})
    if len(found) == 1:
        return found[0]
    listing = "; ".join(f"{n}: {titles[n]}" for n in sorted(titles))
    why = "matches no task" if not found else f"matches tasks {', '.join(map(str, found))}"
    raise AssignmentError(f"--task {text!r} {why} of {assignment.name} ({listing})")


def _policy(args: argparse.Namespace) -> SandboxPolicy:
    return SandboxPolicy.create(getattr(args, "isolation", None))


def _placement(args: argparse.Namespace) -> Placement:
    return Placement(getattr(args, "backend", None) or "host", getattr(args, "gpus", None))


def _print_warnings(results: service.Results, quiet: bool = False) -> None:
    if results.warnings and not quiet:
        print(visible("\n".join(results.warnings)), file=sys.stderr)


def cmd_check(args: argparse.Namespace) -> int:
    """Public tests on a local implementation (default: starter/)."""
    assignment = load(args.assignment)
    impl = input_folder(Path(args.impl), "--impl") if args.impl else assignment.starter
    task = resolve_task(assignment, args.task)
    scope = f" task {task}" if task is not None else ""
    title = f"check {assignment.name}{scope} ({impl})"
    if args.watch:
        return _watch_check(assignment, impl, task, args, title)
    results = service.check(assignment, impl, _policy(args), task, _placement(args))
    _print_warnings(results)
    show(results.grades, make_console(), title)
    full = results.max_score > 0 and results.score == results.max_score
    return 0 if full else 1


def _watch_check(assignment, impl: Path, task: int | None, args, title: str) -> int:
    """`check --watch` (autograder/watch.py): the report redrawn after every save."""
    import threading

    from .watch import live_report, python_saves, watch

    folder = impl / assignment.package if (impl / assignment.package).is_dir() else impl
    console, stop = make_console(), threading.Event()

    def headline(saved: list[str]) -> str:
        what = f"saved {', '.join(saved)}; " if saved else ""
        return visible(f"{what}watching {folder} (Ctrl-C to stop)")

    def run() -> service.Results:
        return service.check(assignment, impl, _policy(args), task, _placement(args))

    report, end = live_report(console, lambda c, r: show(r.grades, c, title), headline)
    try:
        return watch(run, report, python_saves(folder, stop), stop)
    finally:
        stop.set()
        end()


def cmd_test(args: argparse.Namespace) -> int:
    """The public tests as plain pytest (no sandbox: your own code only), each failure with its
    hint; exits with pytest's status."""
    assignment = load(args.assignment)
    impl = input_folder(Path(args.impl), "--impl") if args.impl else assignment.starter
    if not (impl / assignment.package).is_dir():
        print(f"error: no package {impl / assignment.package} (--impl: the folder holding your "
              f"{assignment.package} package)", file=sys.stderr)
        return 2
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
               str(assignment.tests_dir / "public"), "--impl", str(impl), *args.pytest_args]
    return subprocess.run(command, cwd=assignment.root, check=False).returncode


def cmd_submit(args: argparse.Namespace) -> int:
    """Check the package layout by the grader's intake rules and write the zip to upload."""
    from .grading.submission_zip import default_zip, pack

    assignment = load(args.assignment)
    impl = input_folder(Path(args.impl), "--impl") if args.impl else assignment.starter
    out = output_file(Path(args.out) if args.out else default_zip(assignment), "--out")
    packed = pack(assignment, impl, out)
    for note in packed.notes:
        print(f"note: {note}", file=sys.stderr)
    if packed.path is None:
        print("\n".join(f"error: {p}" for p in packed.problems), file=sys.stderr)
        print("no zip written: fix the above and run submit again", file=sys.stderr)
        return 1
    print(f"wrote {packed.path} ({len(packed.files)} files: {', '.join(packed.files)}); "
          f"upload it to your course's grader")
    return 0


def cmd_grade(args: argparse.Namespace) -> int:
    """Public + hidden tests on a submission folder or zip; writes OUT/results.json."""
    input_submission(Path(args.submission))
    output_folder(Path(args.out), "--out")
    results = service.grade(Path(args.submission), [args.assignment] if args.assignment else None,
                            _policy(args), placement=_placement(args))
    _print_warnings(results)
    path = write_results(Path(args.out), results.gradescope())
    write_instructor(Path(args.out), results.instructor())
    console = make_console()
    show(results.grades, console, f"grade {args.submission}",
         problems=results.warnings + results.problems)
    console.print(f"[bold]total: {results.score:g} / {results.max_score:g}[/]  results: "
                  f"{escape(visible(str(path)))}")
    return 0


def cmd_bulk(args: argparse.Namespace) -> int:
    """Every submission in a folder, in parallel, resumable; grades.csv and a class report."""
    from .classroom.bulk import BulkError, run_bulk

    folder = input_folder(Path(args.folder), "folder")
    with os.scandir(folder) as entries:
        if not any(not e.name.startswith(".") for e in entries):
            raise PathError(f"folder {folder}: empty (one submission per student expected)")
    output_folder(Path(args.out), "--out")
    if args.compare:
        input_folder(Path(args.compare), "--compare")
    try:
        run_bulk(Path(args.folder), args.assignment, Path(args.out), args.jobs, _policy(args),
                 force=args.force, dask=args.dask,
                 compare=Path(args.compare) if args.compare else None,
                 placement=_placement(args))
    except BulkError as e:
        print(f"error: {visible(str(e))}", file=sys.stderr)
        return 2
    return 0


def cmd_gradescope(args: argparse.Namespace) -> int:
    """Write a Gradescope autograder zip (setup.sh, run_autograder, engine, tests, goldens)."""
    from .integrations.gradescope import ExportError, build_zip

    output_file(Path(args.out), "--out")
    try:
        path = build_zip(load(args.assignment), Path(args.out))
    except ExportError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"wrote {path}: upload it as the assignment's autograder (Ubuntu 22.04 base image)")
    return 0


def cmd_goldens(args: argparse.Namespace) -> int:
    """Regenerate inputs and goldens from solutions/ and the mutants."""
    import time

    from .authoring.goldens import GoldenError, generate

    policy = _policy(args)
    for name in args.assignments or [a.name for a in discover()]:
        started = time.monotonic()
        try:
            stores = generate(load(name), policy=policy, placement=_placement(args))
        except GoldenError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        n = len(stores["public"].tests) + len(stores["hidden"].tests)
        m = len(stores["public"].mutants)
        print(f"{name}: {n} tests, {m} mutants, {time.monotonic() - started:.1f} s")
        fixed = [t for t, spec in stores.get("graded", stores["public"]).tests.items()
                 if spec.points == 0 < stores["public"].tests[t].points]
        if fixed:
            print(f"  worth 0 in grade (the published goldens pass them): {', '.join(fixed)}")
    return 0


def cmd_examples(args: argparse.Namespace) -> int:
    """Rebuild examples/*.zip from the current solutions, mutants and starters."""
    from .authoring.examples import write_examples

    for path in write_examples():
        print(f"wrote {path.relative_to(course_root())}")
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    """Grade the bundled example submissions in parallel; print one summary table (each
    example's full report goes to OUT/<example>/report.txt)."""
    from .authoring.demo import run_demo

    for name in args.assignment:
        load(name)  # an unknown name: AssignmentError, one line, before anything runs
    output_folder(Path(args.out), "--out")
    run_demo(Path(args.out), args.jobs, _policy(args), make_console(), args.assignment or None)
    return 0


def cmd_release(args: argparse.Namespace) -> int:
    """Write the student release (no solutions, hidden tests, or hidden goldens)."""
    from .authoring.release import ReleaseError, build_release

    output_folder(Path(args.dest), "release folder")
    try:
        dest = build_release(Path(args.dest))
    except ReleaseError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"student release written to {dest} and {dest}.tar.gz")
    return 0


def cmd_nbgrader(args: argparse.Namespace) -> int:
    """Write the nbgrader course: source/<a>/<a>.ipynb per assignment and nbgrader_config.py."""
    from .integrations.nbgrader_course import CourseError, build_course

    output_folder(Path(args.out), "course folder")
    try:
        out = build_course(Path(args.out), args.assignments or None)
    except (CourseError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"nbgrader course written to {out} (cd there; nbgrader generate_assignment <a>)")
    return 0


def cmd_selftest(args: argparse.Namespace) -> int:
    """The course self-test for the named assignments (default: all)."""
    from .authoring.course_selftest import run_selftest

    names = args.assignments or [a.name for a in discover()]
    policy = _policy(args)
    placement = _placement(args)
    return 0 if all(run_selftest(load(n), policy, placement) for n in names) else 1


def cmd_mutation(args: argparse.Namespace) -> int:
    """Mutation testing of solutions/ against its own graded suite (cosmic-ray operators)."""
    from .authoring.mutation_testing.run import run_mutation

    if args.report:
        output_file(Path(args.report), "--report")
    return run_mutation(args.assignments, args.sample, args.seed,
                        Path(args.report) if args.report else None, args.mutant)


def cmd_starter(args: argparse.Namespace) -> int:
    """Generate starter/ from the marked solutions; --check only reports a stale starter."""
    from .authoring import starter

    stale = []
    for name in args.assignments or [a.name for a in discover()]:
        try:
            if args.check:
                stale += starter.stale(load(name))
            else:
                print(f"{name}: wrote {len(starter.write(load(name)))} files")
        except starter.MarkerError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
    for problem in stale:
        print(f"stale: {problem}")
    if stale:
        print("run `make starter`")
    return 1 if stale else 0


def add_policy_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--isolation", choices=MODES,
                        help="sandbox: auto (default), strict (refuse without full isolation), "
                             "none (no sandbox)")
    parser.add_argument("--backend", choices=sorted(b for b in REGISTRY if available_module(
                            REGISTRY[b].removeprefix("autograder."))),
                        help="where submitted code runs (default: host)")
    if available_module("backends.docker"):
        parser.add_argument("--gpus", help="container backends: pass GPUs through ('all' or a "
                                           "count)")


# The engine modules each command imports (beyond check's): a command whose modules are not
# installed (the student release ships none of them) is not offered.
NEEDS = {
    "grade": ("authoring.goldens",),
    "bulk": ("classroom.bulk",),
    "gradescope": ("integrations.gradescope",),
    "goldens": ("authoring.goldens",),
    "examples": ("authoring.examples",),
    "release": ("authoring.release",),
    "nbgrader": ("integrations.nbgrader_course",),
    "demo": ("authoring.examples", "authoring.demo"),
    "selftest": ("authoring.course_selftest",),
    "mutation": ("authoring.mutation_testing",),
    "starter": ("authoring.starter",),
}


def available_module(module: str) -> bool:
    """Whether this engine's folder holds autograder.<module> (dotted below autograder)."""
    path = Path(__file__).parent.joinpath(*module.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def available(command: str) -> bool:
    """Whether this installation holds the engine modules `command` runs. (`grade` needs the
    hidden goldens, which only the instructor's course has: it goes with goldens.py.)"""
    return all(available_module(m) for m in NEEDS.get(command, ()))


def _add_check_commands(sub) -> None:
    p = sub.add_parser("check", help="public tests on your code in the sandbox, with hints; "
                                     "exits 1 unless every public test passes")
    p.add_argument("assignment", help="the assignment's name (ls tests)")
    p.add_argument("--impl", help="folder holding the package (default: starter/)")
    p.add_argument("--task", help="only this handout task's tests: its number or a fragment "
                                  "of its title or test file name (e.g. 3 or gated)")
    p.add_argument("--watch", action="store_true",
                   help="stay up: run again on every save under the package (Ctrl-C stops)")
    add_policy_options(p)
    p.set_defaults(fn=cmd_check)
    p = sub.add_parser("test", help="public tests as plain pytest, no sandbox (your own code "
                                    "only); other options go to pytest (e.g. -x -k backward)",
                       epilog="Any other option is passed on to pytest, e.g. -x or -k backward.")
    p.add_argument("assignment", help="the assignment's name (ls tests)")
    p.add_argument("--impl", help="folder holding the package (default: starter/)")
    p.set_defaults(fn=cmd_test, passes_unknown=True)  # other options go to pytest (-x, -k)
    p = sub.add_parser("submit", help="check your package's layout as the grader does and "
                                      "write the zip to upload")
    p.add_argument("assignment", help="the assignment's name (ls tests)")
    p.add_argument("--impl", help="folder holding the package (default: starter/)")
    p.add_argument("--out", help="the zip to write (default: out/<assignment>-submission.zip)")
    p.set_defaults(fn=cmd_submit)


def _add_grading_commands(sub) -> None:
    p = sub.add_parser("grade", help="grade a submission folder or zip (public + hidden)")
    p.add_argument("submission", help="a folder or .zip holding one or more packages")
    p.add_argument("--assignment", help="grade only this assignment")
    p.add_argument("--out", default="out", help="folder for results.json (default: out/)")
    add_policy_options(p)
    p.set_defaults(fn=cmd_grade)
    p = sub.add_parser("bulk", help="grade every submission in a folder: grades.csv, "
                                    "class_report.md and class_report.html (instructors)")
    p.add_argument("folder", help="one submission (folder or .zip) per student")
    p.add_argument("--assignment", action="append",
                   help="grade this assignment (repeat for several); required when the course has "
                        "more than one: never inferred from the submissions")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                   help="submissions graded at once (default: the CPU count)")
    p.add_argument("--out", default="out/bulk", help="folder for each student's results.json, "
                   "grades.csv and the class report (default: out/bulk)")
    p.add_argument("--force", action="store_true", help="regrade every submission")
    p.add_argument("--dask", metavar="SCHEDULER", help="run the jobs on this Dask cluster "
                   "(tcp://host:port; workers see the same paths and run this engine)")
    p.add_argument("--compare", metavar="PREVIOUS_OUT",
                   help="regrade preview: list the students whose scores differ from this "
                        "earlier --out folder (by how much, on which tests), also written to "
                        "OUT/compare.csv and OUT/compare.md; PREVIOUS_OUT is only read")
    add_policy_options(p)
    p.set_defaults(fn=cmd_bulk)
    p = sub.add_parser("gradescope", help="write a Gradescope autograder zip (instructors)")
    p.add_argument("assignment", help="the assignment's name")
    p.add_argument("--out", default="out/autograder.zip",
                   help="the zip to write (default: out/autograder.zip)")
    p.set_defaults(fn=cmd_gradescope)
    p = sub.add_parser("demo", help="grade the bundled example submissions")
    p.add_argument("--out", default="out/demo", help="folder for the results (default: out/demo)")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                   help="example zips graded at once (default: the CPU count)")
    p.add_argument("--assignment", action="append", default=[],
                   help="grade only this assignment of each example (repeat for several)")
    add_policy_options(p)
    p.set_defaults(fn=cmd_demo)


def _add_course_commands(sub) -> None:
    p = sub.add_parser("goldens", help="regenerate goldens from solutions/ (instructors)")
    p.add_argument("assignments", nargs="*", help="only these (default: all)")
    add_policy_options(p)
    p.set_defaults(fn=cmd_goldens)
    p = sub.add_parser("examples", help="rebuild examples/*.zip (instructors)")
    p.set_defaults(fn=cmd_examples)
    p = sub.add_parser("release", help="write the student release (instructors)")
    p.add_argument("dest", help="a new folder for the release (DEST.tar.gz is written beside it)")
    p.set_defaults(fn=cmd_release)
    p = sub.add_parser("nbgrader", help="write an nbgrader course from the assignments "
                                        "(instructors)")
    p.add_argument("out", help="a folder for the course")
    p.add_argument("assignments", nargs="*", help="only these (default: all)")
    p.set_defaults(fn=cmd_nbgrader)
    p = sub.add_parser("selftest", help="solutions 100%%, starter 0, mutants caught, "
                                        "goldens fresh (instructors)")
    p.add_argument("assignments", nargs="*", help="only these (default: all)")
    add_policy_options(p)
    p.set_defaults(fn=cmd_selftest)
    p = sub.add_parser("mutation", help="mutation testing of solutions/ against its graded "
                                        "tests (instructors)")
    p.add_argument("assignments", nargs="*", help="only these (default: all)")
    p.add_argument("--sample", type=int, help="grade a seeded sample of N mutants per "
                                              "assignment (default: all)")
    p.add_argument("--seed", type=int, default=0, help="the sample's seed (default: 0)")
    p.add_argument("--report", help="where to write the report (default: "
                                    "tests/mutation_report.md; runs accumulate in it)")
    p.add_argument("--mutant", action="append", metavar="KEY",
                   help="grade only this mutant (its key as the report names it; repeatable; "
                        "one assignment)")
    p.set_defaults(fn=cmd_mutation)
    p = sub.add_parser("starter", help="generate starter/ from the solutions' markers "
                                       "(instructors)")
    p.add_argument("assignments", nargs="*", help="only these (default: all)")
    p.add_argument("--check", action="store_true", help="only report a stale starter (exit 1)")
    p.set_defaults(fn=cmd_starter)


def build_parser() -> argparse.ArgumentParser:
    """The parser, with only the commands this installation can run (`available`)."""
    parser = argparse.ArgumentParser(prog="python -m autograder",
                                     description="Training Systems autograder")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in (_add_check_commands, _add_grading_commands, _add_course_commands):
        add(sub)
    for name in [n for n in sub.choices if not available(n)]:
        del sub.choices[name]
        sub._choices_actions = [a for a in sub._choices_actions if a.dest != name]
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra and not getattr(args, "passes_unknown", False):
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    args.pytest_args = extra
    try:
        return args.fn(args)
    except (AssignmentError, StoreError, IsolationError, BackendError, PathError) as e:
        print(f"error: {visible(str(e))}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
