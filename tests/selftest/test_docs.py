"""The docs describe what holds now. README.md, docs/*.md and tests/<a>/EQUIVALENT_MUTANTS.md
carry no dated log (a date, an hour of day, a before → after figure) and no issue number; the
measured figures live in bench/results.md and tests/mutation_report.md, each written by one
command (`make bench`, `make mutation`; test_bench.py and test_mutation.py check that each is
its data's rendering), and the README links to both and copies neither's table."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")),
        *sorted((ROOT / "tests").glob("*/EQUIVALENT_MUTANTS.md"))]

HISTORY = {
    "a date": re.compile(r"\b20\d\d-\d\d-\d\d\b"),
    "an hour of day": re.compile(r"\b\d{1,2}:\d\d (?:UTC|GMT)\b"),
    "an issue number": re.compile(r"\bissues? #?\d+", re.IGNORECASE),
    "a before → after figure": re.compile(r"\d[\d.,]*\s*[A-Za-z%]*\s*(?:→|->)\s*\d"),
}


def history_in(text: str) -> list[str]:
    """Each dated or historical phrase in `text`, as 'line N: <kind>: <match>'."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        for kind, pattern in HISTORY.items():
            found += [f"line {number}: {kind}: {m[0]!r}" for m in pattern.finditer(line)]
    return found


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_doc_tells_no_history(doc):
    assert history_in(doc.read_text(encoding="utf-8")) == [], \
        f"{doc.relative_to(ROOT)}: say what holds now; dated figures go to bench/results.md"


@pytest.mark.parametrize("text", [
    "`make test` took 7 min 22 s (2026-12-05 19:33 UTC).",
    "the same commit took 8 min 13 s at 18:57 UTC",
    "ddp 3.30 vs 7.77 (issue 37's figures)",
    "machine CPU per toy grade 0.21 → 0.16 s",
    "check fusion 13.3 -> 6.6 s",
])
def test_history_is_recognised(text):
    assert history_in(text)


def test_present_tense_passes():
    assert history_in("The chain `setpriv` → `sh` → `bwrap` starts each cold child; a check "
                      "takes ≤ 5 s (SPEC §4), measured in bench/results.md.") == []


def test_the_readme_links_the_measured_figures_and_copies_no_table():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for target in ("bench/results.md", "tests/mutation_report.md"):
        assert f"]({target})" in readme, f"README.md does not link {target}"
        assert (ROOT / target).exists()
    bench_header = (ROOT / "bench" / "results.md").read_text(encoding="utf-8").split(
        "\n| group |", 1)[1].splitlines()[0]
    assert bench_header not in readme, "README.md copies bench/results.md's table"
    assert "| assignment | mutants generated |" not in readme, \
        "README.md copies tests/mutation_report.md's table"
