"""What many self-tests need, defined once: the toy course's solution text, a submission folder
holding one toy package, a scan of /proc for processes a test must not leave behind, and the
kernel variants the suite grades the course's own code under.

Importable as `helpers` (pyproject.toml's pytest `pythonpath` puts tests/selftest on sys.path).
Fixtures stay in conftest.py; these are plain values and functions, usable at import time.
"""

from __future__ import annotations

import os
from pathlib import Path

from autograder.assignments import VISIBILITIES, discover
from autograder.grading import pipeline
from autograder.grading.job import GradeJob
from autograder.markers import without_markers
from autograder.sandbox import Kernels, SandboxPolicy

TOY = Path(__file__).resolve().parent / "toy_course"
# the toy solution without its BEGIN/END SOLUTION marker lines (tests edit its code by text)
SOLUTION = without_markers((TOY / "solutions" / "toy" / "__init__.py").read_text())
SOURCES = ("cmdline", "environ", "cwd")


def grade_root(assignment, root: Path, visibilities: tuple[str, ...] = VISIBILITIES,
               policy: SandboxPolicy | None = None, task: int | None = None,
               ids: frozenset[str] | None = None, placement=None):
    """The AssignmentGrade of the package `assignment` finds in the folder `root`: a check
    (the published inputs) when `visibilities` is the public tests alone, else a grading (a
    draw of its own) of those visibilities; the job runs in this process, under the suite's
    policy for the assignment unless one is given (suite_policy)."""
    from autograder.backends import Placement

    job = GradeJob(Path(root), assignment.root,
                   "check" if tuple(visibilities) == ("public",) else "grade",
                   (assignment.name,), task, ids, tuple(visibilities),
                   policy or suite_policy(assignment), placement or Placement())
    return pipeline.grade(job).grades[0]


def check_results(assignment, root: Path, policy: SandboxPolicy | None = None,
                  task: int | None = None):
    """The Results of a check (the published inputs) of the package in the folder `root`."""
    return pipeline.grade(GradeJob(Path(root), assignment.root, "check", (assignment.name,),
                                   task, policy=policy or suite_policy(assignment)))


def grade_results(submission: Path, assignments=(), policy: SandboxPolicy | None = None,
                  parallel: int = 1, placement=None):
    """The Results of a grading of `submission` (a folder or zip) on the course in
    TRAINING_SYSTEMS_ROOT (the course root the tests point the engine at)."""
    from autograder.assignments import course_root
    from autograder.backends import Placement

    return pipeline.grade(GradeJob(Path(submission), course_root(), "grade", tuple(assignments),
                                   policy=policy or SandboxPolicy.create(),
                                   placement=placement or Placement(), parallel=parallel))


def draw_of(assignment, root: Path):
    """The draw (grading/draws.py) a grading of the package in `root` judges on: its inputs
    and expected values, public and hidden (its inputs' folder removed)."""
    from autograder import backends
    from autograder.grading import draws
    from autograder.grading.store import load_store

    stores = {v: load_store(assignment, v) for v in VISIBILITIES}
    job = GradeJob(Path(root), assignment.root)
    made = draws.draw(assignment, Path(root), stores, stores["hidden"].draw_secret,
                      lambda plan, salt: backends.run(job.reference_request(assignment, plan,
                                                                            salt)))
    made.discard()
    return made


def path_without(folder: Path, *programs: str) -> str:
    """A PATH that finds every program the current PATH finds except `programs`: one new
    `folder` of links to the first of each name on PATH (a layer whose program is not found is
    really missing: sandbox/bwrap.py looks for bubblewrap on PATH)."""
    folder.mkdir(parents=True, exist_ok=True)
    for directory in os.environ.get("PATH", "").split(os.pathsep):
        if not directory or not os.path.isdir(directory):
            continue
        for entry in os.listdir(directory):
            link = folder / entry
            if entry not in programs and not os.path.lexists(link):
                os.symlink(os.path.join(directory, entry), link)
    return str(folder)


def submission(tmp_path: Path, source: str, name: str = "sub") -> Path:
    """tmp_path/name/ holding one package, toy/__init__.py = `source`; returns tmp_path/name."""
    pkg = tmp_path / name / "toy"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(source)
    return tmp_path / name


def _seen(proc: Path, sources: tuple[str, ...]) -> bytes:
    seen = b""
    for source in sources:
        if source == "cwd":
            seen += os.readlink(proc / "cwd").encode()
        else:
            seen += (proc / source).read_bytes()
    return seen


def processes_mentioning(marker: str, sources: tuple[str, ...] = ("cmdline", "cwd")) -> list[int]:
    """The pids of the processes other than this one whose `sources` (of SOURCES: the command
    line, the environment, the working folder) mention `marker`. A process that is gone or
    unreadable while scanned is skipped."""
    unknown = set(sources) - set(SOURCES)
    if unknown:
        raise ValueError(f"unknown /proc sources {sorted(unknown)} (known: {SOURCES})")
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit() or int(proc.name) == os.getpid():
            continue
        try:
            seen = _seen(proc, sources)
        except OSError:
            continue
        if marker.encode() in seen:
            found.append(int(proc.name))
    return found


def command_lines() -> dict[int, list[bytes]]:
    """{pid: argv} of every process readable now (this one included)."""
    found = {}
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            found[int(proc.name)] = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
    return found


def cpu_flags() -> frozenset[str]:
    """The CPU's feature flags (x86 Linux: /proc/cpuinfo's "flags"; elsewhere empty)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.split(":")[0].strip() == "flags":
                return frozenset(line.split(":", 1)[1].split())
    except OSError:
        pass
    return frozenset()


def kernel_variants() -> tuple[Kernels, ...]:
    """Kernels other than the machine's default that the course self-test grades under (SPEC
    §3 "Hints": goldens made on one machine grade and hint alike on every machine): torch's
    plain ATen kernels; MKL's AVX2 code with OpenBLAS's Haswell kernels (numpy), the AVX2
    machine an AVX-512 one is not (OpenBLAS's only where the CPU has AVX2: a core type it
    lacks would not run); two intra-op threads. On an AVX-512 machine the first two change the
    bits of a float32 matmul, softmax and layer norm (test_kernels.py)."""
    haswell = "Haswell" if "avx2" in cpu_flags() else None
    return (Kernels(aten_cpu_capability="default"),
            Kernels(mkl_instructions="AVX2", openblas_coretype=haswell),
            Kernels(threads=2))


def suite_policy(assignment) -> SandboxPolicy:
    """What the suite grades an assignment under when a test names no policy: a course
    assignment's kernel variant (variant_policy: so that all of its gradings in a worker share
    one warm zygote), the default for another course's (the toy course)."""
    if assignment.name in {a.name for a in discover()}:
        return variant_policy(assignment)
    return SandboxPolicy.create()


def variant_policy(assignment) -> SandboxPolicy:
    """The policy the suite grades `assignment`'s own code under (test_course.py's golden
    freshness, full marks and mutants' hints, test_variants.py's correct variants,
    test_bug_hints.py's bugs): kernel_variants() in turn by teaching order, so that every
    variant covers several assignments and each assignment one variant (one warm zygote per
    assignment and worker for all of them)."""
    names = [a.name for a in discover()]
    variants = kernel_variants()
    return SandboxPolicy.create(kernels=variants[names.index(assignment.name) % len(variants)])
