"""Command line: `python -m autograder {check,test,submit,grade,bulk,gradescope,goldens,examples,
release,nbgrader,demo,selftest,mutation,starter}`. Every path is checked before any work
(input_paths.py): a bad one is one line naming it and exit 2.

This module only parses arguments: `build_parser` holds every command's options and `main`
runs the chosen handler of commands.py (which grades through `pipeline.grade` with one
`GradeJob`: its `SandboxPolicy` from --isolation and its `Placement` from --backend and
--gpus) and turns an error a user can act on into one line and exit 2. A command is offered
only where the engine modules it runs are installed (NEEDS): the student release ships
the engine for `check` and `test` alone (autograder/audiences.py), so its CLI lists only those
two. Output to a pipe or file is not hard-wrapped (paths and file:line stay on one line).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from . import commands
from .assignments import AssignmentError
from .backends import REGISTRY, BackendError
from .grading.safe_text import visible
from .grading.store import StoreError
from .input_paths import PathError
from .sandbox import MODES, IsolationError, Kernels


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
    kernels = parser.add_argument_group(
        "kernels", "the children's numeric kernels (default: the machine's, 1 thread); each "
                   "sets one library's own variable (autograder/sandbox/kernels.py)")
    kernels.add_argument("--threads", type=_kernel_option("threads", int), default=1,
                         help="torch's intra-op threads (OMP_NUM_THREADS, MKL_NUM_THREADS)")
    kernels.add_argument("--aten-cpu-capability", type=_kernel_option("aten_cpu_capability"), metavar="CAP",
                         help="torch's ATen kernels (ATEN_CPU_CAPABILITY): default, avx2, "
                              "avx512, sve256")
    kernels.add_argument("--mkl-instructions", type=_kernel_option("mkl_instructions"), metavar="ISA",
                         help="MKL's instruction set (MKL_ENABLE_INSTRUCTIONS): SSE4_2, AVX, "
                              "AVX2, AVX512")
    kernels.add_argument("--openblas-coretype", type=_kernel_option("openblas_coretype"), metavar="CORE",
                         help="numpy's OpenBLAS kernels (OPENBLAS_CORETYPE): Haswell, "
                              "SkylakeX, Zen, ...")


def _kernel_option(field: str, convert: type = str):
    """An argparse type for one Kernels field: the value, checked by Kernels itself (a bad one
    is argparse's one-line error and exit 2)."""
    def parse(text: str):
        try:
            value = convert(text)
            Kernels(**{field: value})
        except ValueError as e:
            raise argparse.ArgumentTypeError(str(e)) from None
        return value
    return parse


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
    p.add_argument("assignment", nargs="?",
                   help="the assignment's name (ls tests); default: the one whose package you "
                        "saved last; `all`: as --all")
    p.add_argument("--all", action="store_true",
                   help="every assignment's public score in one table, with each handout's "
                        "time estimate")
    p.add_argument("--impl", help="folder holding the package (default: starter/)")
    p.add_argument("--task", help="only this handout task's tests: its number or a fragment "
                                  "of its title or test file name (e.g. 3 or gated)")
    p.add_argument("--watch", action="store_true",
                   help="stay up: run again on every save under the package (Ctrl-C stops)")
    add_policy_options(p)
    p.set_defaults(fn=commands.cmd_check)
    p = sub.add_parser("test", help="public tests as plain pytest, no sandbox (your own code "
                                    "only); other options go to pytest (e.g. -x -k backward)",
                       epilog="Any other option is passed on to pytest, e.g. -x or -k backward.")
    p.add_argument("assignment", help="the assignment's name (ls tests)")
    p.add_argument("--impl", help="folder holding the package (default: starter/)")
    p.set_defaults(fn=commands.cmd_test, passes_unknown=True)  # other options go to pytest (-x, -k)
    p = sub.add_parser("submit", help="check your package's layout as the grader does and "
                                      "write the zip to upload")
    p.add_argument("assignment", help="the assignment's name (ls tests)")
    p.add_argument("--impl", help="folder holding the package (default: starter/)")
    p.add_argument("--out", help="the zip to write (default: out/<assignment>-submission.zip)")
    p.set_defaults(fn=commands.cmd_submit)


def _add_grading_commands(sub) -> None:
    p = sub.add_parser("grade", help="grade a submission folder or zip (public + hidden)")
    p.add_argument("submission", help="a folder or .zip holding one or more packages")
    p.add_argument("--assignment", help="grade only this assignment")
    p.add_argument("--out", default="out", help="folder for results.json (default: out/)")
    add_policy_options(p)
    p.set_defaults(fn=commands.cmd_grade)
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
    p.set_defaults(fn=commands.cmd_bulk)
    p = sub.add_parser("gradescope", help="write a Gradescope autograder zip (instructors)")
    p.add_argument("assignment", help="the assignment's name")
    p.add_argument("--out", default="out/autograder.zip",
                   help="the zip to write (default: out/autograder.zip)")
    p.set_defaults(fn=commands.cmd_gradescope)
    p = sub.add_parser("demo", help="grade the bundled example submissions")
    p.add_argument("--out", default="out/demo", help="folder for the results (default: out/demo)")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                   help="example zips graded at once (default: the CPU count)")
    p.add_argument("--assignment", action="append", default=[],
                   help="grade only this assignment of each example (repeat for several)")
    add_policy_options(p)
    p.set_defaults(fn=commands.cmd_demo)


def _add_course_commands(sub) -> None:
    p = sub.add_parser("goldens", help="regenerate goldens from solutions/ (instructors)")
    p.add_argument("assignments", nargs="*", help="only these (default: all)")
    add_policy_options(p)
    p.set_defaults(fn=commands.cmd_goldens)
    p = sub.add_parser("examples", help="rebuild examples/*.zip (instructors)")
    p.add_argument("--check", action="store_true",
                   help="only report the zips that differ from what the course makes now")
    p.set_defaults(fn=commands.cmd_examples)
    p = sub.add_parser("release", help="write the student release (instructors)")
    p.add_argument("dest", help="a new folder for the release (DEST.tar.gz is written beside it)")
    p.set_defaults(fn=commands.cmd_release)
    p = sub.add_parser("nbgrader", help="write an nbgrader course from the assignments "
                                        "(instructors)")
    p.add_argument("out", help="a folder for the course")
    p.add_argument("assignments", nargs="*", help="only these (default: all)")
    p.set_defaults(fn=commands.cmd_nbgrader)
    p = sub.add_parser("selftest", help="solutions 100%%, starter 0, mutants caught, "
                                        "goldens fresh (instructors)")
    p.add_argument("assignments", nargs="*", help="only these (default: all)")
    add_policy_options(p)
    p.set_defaults(fn=commands.cmd_selftest)
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
    p.set_defaults(fn=commands.cmd_mutation)
    p = sub.add_parser("starter", help="generate starter/ from the solutions' markers "
                                       "(instructors)")
    p.add_argument("assignments", nargs="*", help="only these (default: all)")
    p.add_argument("--check", action="store_true", help="only report a stale starter (exit 1)")
    p.set_defaults(fn=commands.cmd_starter)


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
