"""Command line: `python -m autograder {check,grade,bulk,gradescope,goldens,examples,release,nbgrader,demo,
selftest}`.

This module only parses arguments and prints: grading is `service.grade` / `service.check`,
with one `SandboxPolicy` made here from --isolation and --backend.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from rich.console import Console

from . import service
from .assignments import AssignmentError, course_root, discover, load
from .backends import REGISTRY, BackendError
from .goldens import GoldenError, generate
from .report import render, write_instructor, write_results
from .sandbox import MODES, IsolationError, SandboxPolicy
from .store import StoreError


def _policy(args: argparse.Namespace) -> SandboxPolicy:
    return SandboxPolicy.create(getattr(args, "isolation", None), getattr(args, "backend", None),
                                gpus=getattr(args, "gpus", None))


def _print_warnings(results: service.Results, quiet: bool = False) -> None:
    if results.warnings and not quiet:
        print("\n".join(results.warnings), file=sys.stderr)


def cmd_check(args: argparse.Namespace) -> int:
    """Public tests on a local implementation (default: starter/)."""
    assignment = load(args.assignment)
    impl = Path(args.impl) if args.impl else assignment.starter
    if not impl.is_dir():
        print(f"error: no folder {impl} (--impl: the folder holding your {assignment.package} "
              "package)", file=sys.stderr)
        return 2
    results = service.check(assignment, impl, _policy(args), args.task)
    _print_warnings(results)
    scope = f" task {args.task}" if args.task is not None else ""
    render(results.grades, title=f"check {assignment.name}{scope} ({impl})")
    full = results.max_score > 0 and results.score == results.max_score
    return 0 if full else 1


def cmd_grade(args: argparse.Namespace) -> int:
    """Public + hidden tests on a submission folder or zip; writes OUT/results.json."""
    results = service.grade(Path(args.submission), [args.assignment] if args.assignment else None,
                            _policy(args))
    _print_warnings(results)
    path = write_results(Path(args.out), results.gradescope())
    write_instructor(Path(args.out), results.instructor())
    console = Console()
    render(results.grades, console, title=f"grade {args.submission}",
           problems=results.warnings + results.problems)
    console.print(f"[bold]total: {results.score:g} / {results.max_score:g}[/]  results: {path}")
    return 0


def cmd_bulk(args: argparse.Namespace) -> int:
    """Every submission in a folder, in parallel, resumable; grades.csv and a class report."""
    from .bulk import BulkError, run_bulk

    try:
        run_bulk(Path(args.folder), args.assignment, Path(args.out), args.jobs, _policy(args),
                 force=args.force, dask=args.dask,
                 compare=Path(args.compare) if args.compare else None)
    except BulkError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


def cmd_gradescope(args: argparse.Namespace) -> int:
    """Write a Gradescope autograder zip (setup.sh, run_autograder, engine, tests, goldens)."""
    from .gradescope_export import ExportError, build_zip

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

    policy = _policy(args)
    for name in args.assignments or [a.name for a in discover()]:
        started = time.monotonic()
        stores = generate(load(name), policy=policy)
        n = sum(len(s.tests) for s in stores.values())
        m = len(stores["public"].mutants)
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
    from .examples import EXAMPLE_NAMES, examples_dir

    policy = _policy(args)
    console, summary = Console(), []
    for name in EXAMPLE_NAMES:
        example, out = examples_dir() / f"{name}.zip", Path(args.out) / name
        results = service.grade(example, policy=policy)
        path = write_results(out, results.gradescope())
        render(results.grades, console, title=f"grade {example}",
               problems=results.warnings + results.problems)
        summary.append(f"{name + '.zip':<18} {results.score:g} / {results.max_score:g}   {path}")
    console.rule("demo: the bundled example submissions")
    print("\n".join(summary))
    return 0


def cmd_release(args: argparse.Namespace) -> int:
    """Write the student release (no solutions, hidden tests, or hidden goldens)."""
    from .release import ReleaseError, build_release

    try:
        dest = build_release(Path(args.dest))
    except ReleaseError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"student release written to {dest} and {dest}.tar.gz")
    return 0


def cmd_nbgrader(args: argparse.Namespace) -> int:
    """Write the nbgrader course: source/<a>/<a>.ipynb per assignment and nbgrader_config.py."""
    from .nbgrader_course import CourseError, build_course

    try:
        out = build_course(Path(args.out), args.assignments or None)
    except (CourseError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"nbgrader course written to {out} (cd there; nbgrader generate_assignment <a>)")
    return 0


def cmd_selftest(args: argparse.Namespace) -> int:
    """The course self-test for the named assignments (default: all)."""
    from .selftest import run_selftest

    names = args.assignments or [a.name for a in discover()]
    policy = _policy(args)
    return 0 if all(run_selftest(load(n), policy) for n in names) else 1


def cmd_mutation(args: argparse.Namespace) -> int:
    """Mutation testing of solutions/ against its own graded suite (cosmic-ray operators)."""
    from .mutation import run_mutation

    return run_mutation(args.assignments, args.sample, args.seed,
                        Path(args.report) if args.report else None)


def cmd_starter(args: argparse.Namespace) -> int:
    """Generate starter/ from the marked solutions; --check only reports a stale starter."""
    from . import starter

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
    parser.add_argument("--backend", choices=sorted(REGISTRY),
                        help="where submitted code runs (default: host)")
    parser.add_argument("--gpus", help="container backends: pass GPUs through ('all' or a count)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m autograder",
                                     description="Training Systems autograder")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("check", help="public tests on your code (default: starter/); exits 1 "
                                     "unless every public test passes")
    p.add_argument("assignment")
    p.add_argument("--impl", help="folder holding the package (default: starter/)")
    p.add_argument("--task", type=int, help="only this handout task's tests")
    add_policy_options(p)
    p.set_defaults(fn=cmd_check)
    p = sub.add_parser("grade", help="grade a submission folder or zip (public + hidden)")
    p.add_argument("submission")
    p.add_argument("--assignment", help="grade only this assignment")
    p.add_argument("--out", default="out", help="folder for results.json (default: out/)")
    add_policy_options(p)
    p.set_defaults(fn=cmd_grade)
    p = sub.add_parser("bulk", help="grade every submission in a folder (instructors)")
    p.add_argument("folder")
    p.add_argument("--assignment", action="append",
                   help="grade this assignment (repeat for several; default: every assignment "
                        "of the course, the same for every student)")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--out", default="out/bulk")
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
    p.add_argument("assignment")
    p.add_argument("--out", default="out/autograder.zip")
    p.set_defaults(fn=cmd_gradescope)
    p = sub.add_parser("goldens", help="regenerate goldens from solutions/ (instructors)")
    p.add_argument("assignments", nargs="*")
    add_policy_options(p)
    p.set_defaults(fn=cmd_goldens)
    p = sub.add_parser("examples", help="rebuild examples/*.zip (instructors)")
    p.set_defaults(fn=cmd_examples)
    p = sub.add_parser("release", help="write the student release (instructors)")
    p.add_argument("dest")
    p.set_defaults(fn=cmd_release)
    p = sub.add_parser("nbgrader", help="write an nbgrader course from the assignments "
                                        "(instructors)")
    p.add_argument("out")
    p.add_argument("assignments", nargs="*", help="only these (default: all)")
    p.set_defaults(fn=cmd_nbgrader)
    p = sub.add_parser("demo", help="grade the bundled example submissions")
    p.add_argument("--out", default="out/demo", help="folder for the results (default: out/demo)")
    add_policy_options(p)
    p.set_defaults(fn=cmd_demo)
    p = sub.add_parser("selftest", help="solutions 100%%, starter 0, mutants caught, "
                                        "goldens fresh")
    p.add_argument("assignments", nargs="*")
    add_policy_options(p)
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
    p = sub.add_parser("starter", help="generate starter/ from the solutions' markers "
                                       "(instructors)")
    p.add_argument("assignments", nargs="*")
    p.add_argument("--check", action="store_true", help="only report a stale starter (exit 1)")
    p.set_defaults(fn=cmd_starter)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.fn(args)
    except (AssignmentError, GoldenError, StoreError, IsolationError, BackendError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
