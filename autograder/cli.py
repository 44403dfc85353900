"""Command line: `python -m autograder {check,grade,goldens,selftest}`."""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from pathlib import Path

from rich.console import Console

from . import sandbox
from .assignments import AssignmentError, course_root, discover, load
from .goldens import GoldenError, generate
from .grading import grade_submission_root
from .intake import IntakeError, find_package, open_submission, staging_dir
from .report import render, results_json, write_results


def cmd_check(args: argparse.Namespace) -> int:
    """Public tests on a local implementation (default: starter/)."""
    warnings = _isolation(args)
    if warnings is None:
        return 2
    assignment = load(args.assignment)
    impl = Path(args.impl) if args.impl else assignment.starter
    grade = grade_submission_root(assignment, impl.resolve(), ("public",))
    render([grade], title=f"check {assignment.name} ({impl})")
    return 0


def cmd_grade(args: argparse.Namespace) -> int:
    """Public + hidden tests on a submission folder or zip; writes OUT/results.json."""
    started = time.monotonic()
    warnings = _isolation(args)
    if warnings is None:
        return 2
    console = Console()
    out = Path(args.out)
    work = staging_dir()
    problems: list[str] = []
    grades = []
    try:
        try:
            root = open_submission(Path(args.submission), work)
        except IntakeError as e:
            root, problems = None, [f"submission rejected: {e}"]
        if args.assignment:
            assignments = [load(args.assignment)]
        elif root is not None:
            assignments = [a for a in discover() if find_package(root, a.package)]
            if not assignments:
                problems.append("no assignment package found in the submission (expected one "
                                "of: " + ", ".join(a.package for a in discover()) + ")")
        else:
            assignments = []
        for assignment in assignments:
            if root is None:
                from .grading import _all_failed
                grades.append(_all_failed(assignment, ("public", "hidden"), problems, [],
                                          started))
            else:
                grades.append(grade_submission_root(assignment, root))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    results = results_json(grades, time.monotonic() - started, warnings + problems)
    path = write_results(out, results)
    if not getattr(args, "quiet", False):
        render(grades, console, title=f"grade {args.submission}", problems=warnings + problems)
        console.print(f"[bold]total: {results['score']:g} / {results.get('max_score', 0):g}"
                      f"[/]  results: {path}")
    return 0


def _isolation(args: argparse.Namespace) -> list[str] | None:
    """Apply --isolation; the loud lines when isolation is incomplete, None to refuse (strict
    without full isolation)."""
    if getattr(args, "isolation", None):
        sandbox.set_isolation(args.isolation)
    try:
        sandbox.require()
    except sandbox.IsolationError as e:
        print(f"error: {e}", file=sys.stderr)
        return None
    lines = sandbox.report_lines()
    if lines and not getattr(args, "quiet", False):
        print("\n".join(lines), file=sys.stderr)
    return lines


def cmd_bulk(args: argparse.Namespace) -> int:
    """Every submission in a folder, in parallel, resumable; grades.csv and a class report."""
    from .bulk import run_bulk

    run_bulk(Path(args.folder), args.assignment, Path(args.out), args.jobs)
    return 0


def cmd_goldens(args: argparse.Namespace) -> int:
    """Regenerate inputs and goldens from solutions/ and the mutants."""
    names = args.assignments or [a.name for a in discover()]
    for name in names:
        started = time.monotonic()
        stores = generate(load(name))
        n = sum(len(s["tests"]) for s in stores.values())
        m = len(stores["public"]["mutants"])
        print(f"{name}: {n} tests, {m} mutants, {time.monotonic() - started:.1f} s")
    return 0


def cmd_examples(args: argparse.Namespace) -> int:
    """Rebuild examples/*.zip from the current solutions, mutants and starters."""
    from .examples import write_examples

    for path in write_examples():
        print(f"wrote {path.relative_to(course_root())}")
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    """Grade every bundled example submission and print its report."""
    import json

    from .examples import EXAMPLE_NAMES, examples_dir

    summary = []
    for name in EXAMPLE_NAMES:
        example, out = examples_dir() / f"{name}.zip", Path(args.out) / name
        cmd_grade(argparse.Namespace(submission=str(example), assignment=None, out=str(out)))
        results = json.loads((out / "results.json").read_text())
        summary.append(f"{name + '.zip':<18} {results['score']:g} / {results['max_score']:g}"
                       f"   {out / 'results.json'}")
    Console().rule("demo: the bundled example submissions")
    print("\n".join(summary))
    return 0


def cmd_release(args: argparse.Namespace) -> int:
    """Write the student release (no solutions, hidden tests, or hidden goldens)."""
    from .release import build_release

    print(f"student release written to {build_release(Path(args.dest))}")
    return 0


def cmd_selftest(args: argparse.Namespace) -> int:
    """The course self-test for the named assignments (default: all)."""
    from .selftest import run_selftest

    names = args.assignments or [a.name for a in discover()]
    return 0 if all(run_selftest(load(n)) for n in names) else 1


def cmd_mutation(args: argparse.Namespace) -> int:
    """Mutation testing of solutions/ against its own graded suite (cosmic-ray operators)."""
    from .mutation import run_mutation

    return run_mutation(args.assignments, args.sample, args.seed,
                        Path(args.report) if args.report else None)


def add_isolation_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--isolation", choices=sandbox.MODES,
                        help="sandbox: auto (default), strict (refuse without full isolation), "
                             "none (no sandbox)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m autograder",
                                     description="Training Systems autograder")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("check", help="public tests on your code (default: starter/)")
    p.add_argument("assignment")
    p.add_argument("--impl", help="folder holding the package (default: starter/)")
    add_isolation_option(p)
    p.set_defaults(fn=cmd_check)
    p = sub.add_parser("grade", help="grade a submission folder or zip (public + hidden)")
    p.add_argument("submission")
    p.add_argument("--assignment", help="grade only this assignment")
    p.add_argument("--out", default="out", help="folder for results.json (default: out/)")
    add_isolation_option(p)
    p.set_defaults(fn=cmd_grade)
    p = sub.add_parser("bulk", help="grade every submission in a folder (instructors)")
    p.add_argument("folder")
    p.add_argument("--assignment", help="grade only this assignment")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--out", default="out/bulk")
    p.set_defaults(fn=cmd_bulk)
    p = sub.add_parser("goldens", help="regenerate goldens from solutions/ (instructors)")
    p.add_argument("assignments", nargs="*")
    p.set_defaults(fn=cmd_goldens)
    p = sub.add_parser("examples", help="rebuild examples/*.zip (instructors)")
    p.set_defaults(fn=cmd_examples)
    p = sub.add_parser("release", help="write the student release (instructors)")
    p.add_argument("dest")
    p.set_defaults(fn=cmd_release)
    p = sub.add_parser("demo", help="grade the bundled example submissions")
    p.add_argument("--out", default="out/demo", help="folder for the results (default: out/demo)")
    p.set_defaults(fn=cmd_demo)
    p = sub.add_parser("selftest", help="solutions 100%%, starter 0, mutants caught, "
                                        "goldens fresh")
    p.add_argument("assignments", nargs="*")
    p.set_defaults(fn=cmd_selftest)
    p = sub.add_parser("mutation", help="mutation testing of solutions/ against its graded "
                                        "tests (instructors)")
    p.add_argument("assignments", nargs="*")
    p.add_argument("--sample", type=int, help="grade a seeded sample of N mutants per "
                                              "assignment (default: all)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--report", help="where to write the report (default: "
                                    "tests/mutation_report.md)")
    p.set_defaults(fn=cmd_mutation)
    args = parser.parse_args(argv)
    try:
        return args.fn(args)
    except (AssignmentError, GoldenError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
