"""What each command of `python -m autograder` does, given its parsed arguments (cli.py parses
them): `cmd_<command>(args) -> int`, the exit status (0 done, 1 the work found a problem such
as a failing test or a stale starter, 2 it could not run). Grading goes through
`pipeline.grade(job)` with one `GradeJob` made here (`_job`: its mode, its `SandboxPolicy` from
--isolation and its `Placement` from --backend, --gpus). A command that needs instructor-only modules (authoring/,
classroom/, integrations/) imports them inside its handler, so the student release, which
ships none of them, still imports this module. Every path is checked before any work
(input_paths.py); printed text passes through `safe_text.visible`.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from .assignments import VISIBILITIES, AssignmentError, Visibility, course_root, discover, load
from .backends import Placement
from .grading import pipeline
from .grading.job import GradeJob, JobMode
from .grading.report import print_report, write_reports
from .grading.safe_text import visible
from .input_paths import PathError, input_folder, input_submission, output_file, output_folder
from .sandbox import Kernels, SandboxPolicy


def make_console() -> Console:
    """The terminal report's console: soft-wrapped (no hard line breaks) unless stdout is a
    terminal, so a piped report keeps each path and file:line whole."""
    return Console(soft_wrap=not sys.stdout.isatty())


def show(grades, console: Console, title: str, **kw) -> None:
    """The terminal report under `title`: a rule on a terminal; piped, one plain line (a rule
    fits the title into 80 columns and would cut a long path)."""
    if console.is_terminal:
        print_report(grades, console, title=title, **kw)
        return
    console.print(f"── {visible(title)} ──", markup=False, highlight=False)
    print_report(grades, console, **kw)


def resolve_task(assignment, text: str | None) -> int | None:
    """--task: a task number, or a fragment of one task's title or test file name
    (case-insensitive). Raises AssignmentError naming the tasks when it matches none or
    several."""
    if text is None:
        return None
    if text.strip().isdigit():
        return int(text)
    from .grading.store import load_stores

    tests = load_stores(assignment, (Visibility.PUBLIC,))[Visibility.PUBLIC].tests.values()
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
    """The policy of --isolation and the kernel options (a bad kernel value: ValueError)."""
    kernels = Kernels(getattr(args, "threads", 1), getattr(args, "aten_cpu_capability", None),
                      getattr(args, "mkl_instructions", None),
                      getattr(args, "openblas_coretype", None))
    return SandboxPolicy.create(getattr(args, "isolation", None), kernels=kernels)


def _placement(args: argparse.Namespace) -> Placement:
    return Placement(getattr(args, "backend", None) or "host", getattr(args, "gpus", None))


def _job(args: argparse.Namespace, submission: Path, mode: JobMode, assignments: tuple[str, ...],
         task: int | None = None) -> GradeJob:
    """The command's one grading job: its submission, mode and assignments, with the policy
    (--isolation) and placement (--backend, --gpus) of its command line, on this course."""
    return GradeJob(submission, course_root(), mode, assignments, task,
                    visibilities=(Visibility.PUBLIC,) if mode == JobMode.CHECK else VISIBILITIES,
                    policy=_policy(args), placement=_placement(args))


def _print_warnings(results: pipeline.Results, quiet: bool = False) -> None:
    if results.warnings and not quiet:
        print(visible("\n".join(results.warnings)), file=sys.stderr)


def cmd_check(args: argparse.Namespace) -> int:
    """Public tests on a local implementation (default: starter/). `--all` (or `all`): every
    assignment's public score in one table (progress.py); no assignment: the one whose package
    was saved last, said on stderr."""
    from . import progress

    if getattr(args, "all", False) or args.assignment == "all":
        return _check_all(args)
    if args.assignment is None:
        folder = input_folder(Path(args.impl), "--impl") if args.impl else None
        picked, edited = progress.last_edited(folder)
        why = ("the one whose package you saved last" if edited
               else "the first one: no package edited yet")
        print(f"no assignment named: checking {picked.name}, {why} (`make check A=<name>` "
              f"picks one; `make progress` shows all {len(discover())})", file=sys.stderr)
        args.assignment = picked.name
    assignment = load(args.assignment)
    impl = input_folder(Path(args.impl), "--impl") if args.impl else assignment.starter
    task = resolve_task(assignment, args.task)
    scope = f" task {task}" if task is not None else ""
    title = f"check {assignment.name}{scope} ({impl})"
    if getattr(args, "watch", False):
        return _watch_check(assignment, impl, task, args, title)
    results = pipeline.grade(_job(args, impl, JobMode.CHECK, (assignment.name,), task))
    _print_warnings(results)
    show(results.grades, make_console(), title)
    full = results.max_score > 0 and results.score == results.max_score
    return 0 if full else 1


def _check_all(args: argparse.Namespace) -> int:
    """`check --all`: the progress table; exit 0 only at full public points everywhere."""
    import time

    from . import progress

    if args.task or getattr(args, "watch", False):
        print("error: --all takes neither --task nor --watch", file=sys.stderr)
        return 2
    impl = input_folder(Path(args.impl), "--impl") if args.impl else None
    started = time.monotonic()
    rows = progress.check_all(impl, _policy(args), _placement(args))
    progress.print_progress(rows, make_console(), str(impl or progress.DEFAULT_IMPL),
                            time.monotonic() - started)
    return 0 if all(r.full for r in rows) else 1


def _watch_check(assignment, impl: Path, task: int | None, args, title: str) -> int:
    """`check --watch` (autograder/watch.py): the report redrawn after every save."""
    import threading

    from .watch import live_report, python_saves, watch

    folder = impl / assignment.package if (impl / assignment.package).is_dir() else impl
    console, stop = make_console(), threading.Event()

    def headline(saved: list[str]) -> str:
        what = f"saved {', '.join(saved)}; " if saved else ""
        return visible(f"{what}watching {folder} (Ctrl-C to stop)")

    job = _job(args, impl, JobMode.CHECK, (assignment.name,), task)

    def run() -> pipeline.Results:
        return pipeline.grade(job)

    report, end = live_report(console, lambda c, r: show(r.grades, c, title), headline)
    status = 1
    try:
        status = watch(run, report, python_saves(folder, stop), stop)
    finally:
        stop.set()
        end()
        # leave at once: the zygotes are closed here, and no interpreter teardown waits on
        # the inotify thread (a watcher still inside it at teardown hangs or crashes it)
        from .backends import host

        if host.BACKEND.zygotes is not None:
            host.BACKEND.zygotes.close()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)


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
               str(assignment.tests_dir / Visibility.PUBLIC), "--impl", str(impl), *args.pytest_args]
    return subprocess.run(command, cwd=assignment.root, check=False).returncode


def cmd_submit(args: argparse.Namespace) -> int:
    """Check the package layout by the grader's intake rules and write the zip to upload."""
    from .grading.cause_text import sentence
    from .grading.submission_zip import default_zip, pack

    assignment = load(args.assignment)
    impl = input_folder(Path(args.impl), "--impl") if args.impl else assignment.starter
    out = output_file(Path(args.out) if args.out else default_zip(assignment), "--out")
    packed = pack(assignment, impl, out)
    for note in packed.notes:
        print(f"note: {note}", file=sys.stderr)
    if packed.path is None:
        print("\n".join(f"error: {sentence(p)}" for p in packed.problems), file=sys.stderr)
        if packed.removed is not None:
            print(f"removed the earlier {packed.removed}: it is not your code as it is now",
                  file=sys.stderr)
        print("no zip written: fix the above and run submit again", file=sys.stderr)
        return 1
    print(f"wrote {packed.path} ({len(packed.files)} files: {', '.join(packed.files)}); "
          f"upload it to your course's grader")
    return 0


def cmd_grade(args: argparse.Namespace) -> int:
    """Public + hidden tests on a submission folder or zip; writes OUT/results.json."""
    input_submission(Path(args.submission))
    output_folder(Path(args.out), "--out")
    results = pipeline.grade(_job(args, Path(args.submission), JobMode.GRADE,
                                  (args.assignment,) if args.assignment else ()))
    _print_warnings(results)
    path = write_reports(Path(args.out), results)
    console = make_console()
    show(results.grades, console, f"grade {args.submission}",
         problems=results.messages)
    console.print(f"[bold]total: {results.score:g} / {results.max_score:g}[/]  results: "
                  f"{escape(visible(str(path)))}")
    return 0


def cmd_bulk(args: argparse.Namespace) -> int:
    """Every submission in a folder, in parallel, resumable; grades.csv and a class report.
    Ctrl-C or SIGTERM stops it within seconds (classroom/interrupt.py): one line saying how
    many are graded, exit 130; the same command resumes."""
    from .classroom.interrupt import EXIT_STATUS, BulkInterrupted, StopSignals

    with StopSignals() as stop:  # from here: a signal during the imports stops it too
        from .classroom.bulk import BulkError, run_bulk

        folder = input_folder(Path(args.folder), "folder")
        with os.scandir(folder) as entries:
            if not any(not e.name.startswith(".") for e in entries):
                raise PathError(f"folder {folder}: empty (one submission per student expected)")
        output_folder(Path(args.out), "--out")
        if args.compare:
            input_folder(Path(args.compare), "--compare")
        try:
            run_bulk(Path(args.folder), args.assignment, Path(args.out), args.jobs,
                     _policy(args), force=args.force, dask=args.dask,
                     compare=Path(args.compare) if args.compare else None,
                     placement=_placement(args), console=make_console(), stop=stop)
        except BulkError as e:
            print(f"error: {visible(str(e))}", file=sys.stderr)
            return 2
        except BulkInterrupted as e:
            sys.stdout.flush()
            print(e.line, file=sys.stderr)
            return EXIT_STATUS
    return 0


def _built(build: Callable[[], Path], errors: tuple[type[Exception], ...], wrote: str) -> int:
    """Run a builder: its known `errors` are one line and exit 2; else `wrote` (formatted
    with the path it returned) and exit 0."""
    try:
        path = build()
    except errors as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(wrote.format(path))
    return 0


def cmd_gradescope(args: argparse.Namespace) -> int:
    """Write a Gradescope autograder zip (setup.sh, run_autograder, engine, tests, goldens)."""
    from .integrations.gradescope import ExportError, build_zip

    output_file(Path(args.out), "--out")
    return _built(lambda: build_zip(load(args.assignment), Path(args.out)), (ExportError,),
                  "wrote {}: upload it as the assignment's autograder (Ubuntu 22.04 base image)")


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
        n = sum(len(store.tests) for store in stores.values())
        m = len(stores[Visibility.PUBLIC].mutants)
        print(f"{name}: {n} tests, {m} mutants, {time.monotonic() - started:.1f} s")
        public = stores[Visibility.PUBLIC]
        fixed = [t for t, spec in stores.get("graded", public).tests.items()
                 if spec.points == 0 < public.tests[t].points]
        if fixed:
            print(f"  worth 0 in grade (the published goldens pass them): {', '.join(fixed)}")
    return 0


def cmd_examples(args: argparse.Namespace) -> int:
    """Rebuild examples/*.zip from the current solutions, mutants and starters; --check only
    reports the stale ones (exit 1)."""
    from .authoring.examples import stale_examples, write_examples

    if args.check:
        stale = stale_examples()
        for problem in stale:
            print(f"stale: {problem}")
        if stale:
            print("run `python -m autograder examples`")
        return 1 if stale else 0
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
    return _built(lambda: build_release(Path(args.dest)), (ReleaseError,),
                  "student release written to {0} and {0}.tar.gz")


def cmd_nbgrader(args: argparse.Namespace) -> int:
    """Write the nbgrader course: source/<a>/<a>.ipynb per assignment and nbgrader_config.py."""
    from .integrations.nbgrader_course import CourseError, build_course

    output_folder(Path(args.out), "course folder")
    return _built(lambda: build_course(Path(args.out), args.assignments or None),
                  (CourseError, OSError),
                  "nbgrader course written to {} (cd there; nbgrader generate_assignment <a>)")


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
    from . import markers
    from .authoring import starter

    stale = []
    for name in args.assignments or [a.name for a in discover()]:
        try:
            if args.check:
                stale += starter.stale(load(name))
            else:
                print(f"{name}: wrote {len(starter.write_starter(load(name)))} files")
        except markers.MarkerError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
    for problem in stale:
        print(f"stale: {problem}")
    if stale:
        print("run `make starter`")
    return 1 if stale else 0
