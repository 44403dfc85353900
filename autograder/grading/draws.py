"""Single-use secrets (SPEC §3, "Trusted inputs, single-use secrets"): the inputs a grading
judges on are drawn for that grading alone, and their expected values are computed when it runs.

One assignment of one submission is graded on the inputs of the salt

    HMAC-SHA256(draw_secret, assignment name, digest of the staged package's files)

(`draw_secret`: the hidden store's, instructor-only). The same package gets the same draw, so a
regrade reproduces its grade; a package that differs by one byte gets another. The reference
solution runs the tests in gen mode on that salt, in a trusted child of the grading's own
backend (it runs only the course's code, and nothing it prints or records reaches a student):
its observations are the draw's expected values, and the inputs it generated are written to a
private folder, from which the student's run folders take them (backends/run_folder.py).

A draw keeps from the published stores each test's points (none for a `fixed` test: its inputs
or answer are the same on every draw), limits and task (its measured time is the larger of the
reference's on the published inputs and on the draw: timeouts.py sizes limits from it); its
observations (names, kinds, tolerances, expected values) are what the reference recorded on
the draw. It keeps no mutant values (they describe the published inputs; hints come from runs
on those, pipeline.py). A test the reference does not pass on the draw, or whose named check
rejects the reference's own value there, is `unavailable`: it carries no points in that
grading, its result says so, and `Draw.unavailable` keeps why (never shown to the student: the
reason may quote the reference's values).

Whatever leaks from a grading, by any channel, kernel side channels included, describes that
one draw: every other submission is judged on another. Draws are cached by (salt, tests, the
identities of the files they depend on, the backend and kernels) for the grader process's life (a regrade, the
self-test), never on disk.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import shutil
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from ..assignments import VISIBILITIES, Assignment
from ..backends.base import Outcome, RunResult, Status, TestPlan
from ..harness import KINDS
from ..harness.plaindata import PlainDataError, decode
from .cause_text import sentence
from .compare import decode_observed, judge_observation
from .store import GoldenStore, ObservationSpec, StoreError, TestSpec

CACHED_DRAWS = 32  # per grader process


class DrawError(StoreError):
    """The course cannot draw: its hidden store has no draw secret (`make goldens`). A
    StoreError: every entry point reports it as one line, as it does a missing store."""


@dataclass(frozen=True)
class Draw:
    """One grading's inputs and expected values: `stores` per visibility (the published specs
    with this draw's expected values and graded points, no mutants), its `inputs` and the
    folder holding them as `inputs/<visibility>.json`, and the tests without an expected value
    (`unavailable`: id -> why)."""

    salt: str
    stores: dict[str, GoldenStore]
    inputs: dict[str, dict]  # visibility -> {test id: encoded cases}, as in inputs_base
    inputs_base: Path
    unavailable: dict[str, str]

    def discard(self) -> None:
        """Remove the draw's inputs folder (the grading is over)."""
        shutil.rmtree(self.inputs_base, ignore_errors=True)


def package_digest(package: Path) -> str:
    """sha256 over the package folder's files: each one's relative path and bytes, length-
    prefixed, in sorted order (symbolic links are not followed: intake stages none)."""
    digest = hashlib.sha256()
    for path in sorted(p for p in package.rglob("*") if p.is_file() and not p.is_symlink()):
        for part in (os.fsencode(path.relative_to(package).as_posix()), path.read_bytes()):
            digest.update(len(part).to_bytes(8, "big") + part)
    return digest.hexdigest()


def draw_salt(secret: str, assignment: Assignment, digest: str) -> str:
    """The salt of a grading's input seeds (hex, 128 bits)."""
    message = f"{assignment.name}\0{digest}".encode()
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()[:32]


_cache: OrderedDict[tuple, tuple[dict[str, dict], dict[str, GoldenStore], dict[str, str]]] = \
    OrderedDict()
_cache_lock = threading.Lock()


def draw(assignment: Assignment, impl_root: Path, stores: dict[str, GoldenStore], secret: str,
         reference: Callable[[TestPlan, str], RunResult], where: tuple = ()) -> Draw:
    """The draw of the package `impl_root/<package>` for the tests of `stores` (by
    visibility), keyed by `secret` (the hidden store's draw secret): from this process's cache,
    or made from `reference(plan, salt)` (the pipeline's: the reference solution's gen run on
    the draw's salt, on the grading's backend). `where`: what else the reference's values
    depend on (the backend, the kernels): a draw made elsewhere is not reused. Its inputs are
    written to a new private folder (`Draw.discard` removes it)."""
    if not secret:
        raise DrawError(f"{assignment.name}: the hidden store has no draw secret; run "
                        f"`make goldens ONLY={assignment.name}`")
    salt = draw_salt(secret, assignment, package_digest(impl_root / assignment.package))
    key = (salt, tuple(t for s in stores.values() for t in s.tests), _course_files(assignment),
           where)
    with _cache_lock:
        made = _cache.get(key)
        if made is not None:
            _cache.move_to_end(key)
    if made is None:
        made = _from_run(assignment, stores, reference(TestPlan.from_stores(stores), salt))
        with _cache_lock:
            _cache[key] = made
            while len(_cache) > CACHED_DRAWS:
                _cache.popitem(last=False)
    inputs, drawn, unavailable = made
    folder = Path(tempfile.mkdtemp(prefix=f"draw-{assignment.name}-"))
    try:
        (folder / "inputs").mkdir()
        for vis, data in inputs.items():
            assignment.inputs_path(vis, folder).write_text(
                json.dumps(data, separators=(",", ":")))
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return Draw(salt, drawn, inputs, folder, unavailable)


def _course_files(assignment: Assignment) -> tuple:
    """What a draw's expected values depend on, as file identities (path, inode, size, mtime):
    the reference package, the test files, common.py and the stores (a changed file, a new
    draw)."""
    files = [*(assignment.solutions / assignment.package).rglob("*.py"),
             *(f for v in VISIBILITIES for f in assignment.test_files(v)),
             assignment.common_module, *(assignment.goldens_path(v) for v in VISIBILITIES)]
    identities = []
    for path in sorted(files):
        try:
            st = path.stat()
        except OSError:
            continue
        identities.append((str(path), st.st_ino, st.st_size, st.st_mtime_ns))
    return tuple(identities)


def _from_run(assignment: Assignment, stores: dict[str, GoldenStore], result: RunResult
              ) -> tuple[dict[str, dict], dict[str, GoldenStore], dict[str, str]]:
    """(inputs by visibility, the stores with the draw's expected values, the unavailable
    tests) from the reference's gen run on the draw. A test whose named check rejects the
    reference's own value on these inputs is unavailable too: the check cannot judge this
    draw (no one earns or loses its points)."""
    failed_run = "; ".join(map(sentence, result.collect_errors))
    inputs: dict[str, dict] = {}
    drawn: dict[str, GoldenStore] = {}
    unavailable: dict[str, str] = {}
    for vis, store in stores.items():
        inputs[vis], tests = {}, {}
        for tid, spec in store.tests.items():
            rec = result.records.get(tid)
            expected = _expected(spec, rec)
            if expected is None:
                unavailable[tid] = _why_unavailable(rec, failed_run)
                continue
            rejected = _rejected_by_its_check(assignment, expected, rec.inputs)
            if rejected is not None:
                unavailable[tid] = rejected
                continue
            tests[tid] = expected
            if rec.inputs is not None:
                inputs[vis][tid] = rec.inputs
        drawn[vis] = replace(store, tests=tests, mutants={})
    return inputs, drawn, unavailable


def _expected(spec: TestSpec, rec) -> TestSpec | None:
    """`spec` with the reference's observations on the draw as its manifest (their names may
    depend on the inputs: one per leaf of a random graph) and expected values, and its graded
    points (none when `fixed`); None when the reference did not pass the test or recorded
    nothing usable."""
    if rec is None or not rec.passed:
        return None
    observations = {}
    for o in rec.obs:
        try:
            name = o["name"]
            spec_ = ObservationSpec(o["kind"], float(o["atol"]), float(o["rtol"]), o["check"],
                                    o["value"])
        except (KeyError, TypeError, ValueError):
            return None
        if spec_.kind not in KINDS or not isinstance(name, str) or name in observations:
            return None
        observations[name] = spec_
    if not observations:
        return None
    # a draw's inputs may cost more than the published ones: the limit is sized from the
    # reference's own time on them too (timeouts.py), never shortened by it
    seconds = max((s for s in (spec.seconds, rec.seconds) if s is not None), default=None)
    return replace(spec, points=0.0 if spec.fixed else spec.points, observations=observations,
                   seconds=seconds)


def _rejected_by_its_check(assignment: Assignment, spec: TestSpec, inputs) -> str | None:
    """Why a named check rejects the reference's own value on the draw (None: it accepts
    every one)."""
    try:
        decoded = decode(inputs) if inputs is not None else None
    except PlainDataError:
        return "the draw's inputs do not decode"
    for name, o in spec.observations.items():
        if o.kind == "check":
            why = judge_observation(o, decode_observed(o.expected), decoded, assignment.checks,
                                    name)
            if why is not None:
                return f"the reference's own {name} fails its check on this draw: {why}"
    return None


def _why_unavailable(rec, failed_run: str) -> str:
    """Why the reference gave no expected value for a test on a draw (the instructor's words)."""
    if rec is None or rec.status == Status.NOT_RUN:
        detail = f": {failed_run}" if failed_run else ""
        return f"the reference solution did not run it on this grading's inputs{detail}"
    if rec.status != Status.ENDED:
        return f"the reference solution did not finish it on this grading's inputs ({rec.status})"
    if rec.outcome != Outcome.PASSED:
        return f"the reference solution failed it on this grading's inputs: {rec.error or 'no detail'}"
    return "the reference solution recorded no usable observation"
