"""Cross-checks of the goldens against independent oracles (instructor tool, trusted).

Each tests/<assignment>/crosscheck_<oracle>.py keeps only its oracle: a function from one
stored test (`Golden`: its manifest spec, decoded inputs and expected values, loaded through the
engine's golden store) to `Finding`s, one per value it compared. `main` runs it over every test
of the script's assignment, public then hidden, prints each mismatch and a summary, and returns
the exit status (0: every finding agrees):

    def oracle(golden: Golden) -> Iterator[Finding]:
        for name in golden.observed("close", "exact"):
            yield golden.compare(name, my_independent_value(golden.cases, name), "torch")

    if __name__ == "__main__":
        sys.exit(main(__file__, oracle, "torch.autograd (float64)"))

tests/selftest/test_crosschecks.py runs each script on the real goldens (it must pass) and on
tampered ones (it must fail).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from ..assignments import VISIBILITIES, load
from ..grading.compare import compare_value
from ..grading.store import TestSpec, load_inputs, load_store
from ..harness.plaindata import decode, encode

MISSING = object()  # what an oracle gives for a value it could not compute


@dataclass(frozen=True)
class Finding:
    """One compared value: where ("visibility/test_id/observation"), and what disagrees (None: agrees)."""

    where: str
    problem: str | None = None


@dataclass(frozen=True)
class Golden:
    """One stored test: its manifest spec and, decoded on first use, its inputs (`cases`, None
    when it stores none) and expected values."""

    visibility: str
    spec: TestSpec
    encoded_cases: Any = None

    @property
    def id(self) -> str:
        return self.spec.id

    @cached_property
    def cases(self) -> Any:
        return None if self.encoded_cases is None else decode(self.encoded_cases)

    def observed(self, *kinds: str) -> list[str]:
        """The test's observation names (of these kinds, if given), in manifest order."""
        return [n for n, o in self.spec.observations.items() if not kinds or o.kind in kinds]

    def expected(self, name: str) -> Any:
        return decode(self.spec.observations[name].expected)

    def finding(self, name: str, problem: str | None) -> Finding:
        return Finding(f"{self.visibility}/{self.id}/{name}", problem)

    def compare(self, name: str, value: Any, oracle: str) -> Finding:
        """`value` (the oracle's, plain data) judged against the golden with the observation's
        manifest tolerance, as the parent judges a student's."""
        if value is MISSING:
            return self.finding(name, f"{oracle} recorded nothing")
        message = compare_value(self.spec.observations[name], decode(encode(value)),
                                self.expected(name), None, None)
        return self.finding(name, f"{oracle} {message}" if message else None)


Oracle = Callable[[Golden], Iterable[Finding]]


def goldens(script: str | Path, visibilities: tuple[str, ...] = VISIBILITIES) -> Iterator[Golden]:
    """Every stored test of the assignment whose tests/<assignment>/ folder holds `script`
    (the course root is two folders up), in store order, public first."""
    here = Path(script).resolve().parent
    assignment = load(here.name, here.parents[1])
    for vis in visibilities:
        store, inputs = load_store(assignment, vis), load_inputs(assignment, vis)
        for test_id, spec in store.tests.items():
            yield Golden(vis, spec, inputs.get(test_id))


def run(script: str | Path, oracle: Oracle,
        visibilities: tuple[str, ...] = VISIBILITIES) -> list[Finding]:
    return [f for golden in goldens(script, visibilities) for f in oracle(golden)]


def main(script: str | Path, oracle: Oracle, against: str,
         visibilities: tuple[str, ...] = VISIBILITIES) -> int:
    """Run `oracle` over the script's goldens; print mismatches and a summary; 1 on any
    mismatch (or when nothing was compared), else 0."""
    findings = run(script, oracle, visibilities)
    bad = [f for f in findings if f.problem is not None]
    for f in bad:
        print(f"MISMATCH {f.where}: {f.problem}")
    print(f"{len(findings)} values compared with {against}: {len(bad)} mismatches")
    return 1 if bad or not findings else 0
