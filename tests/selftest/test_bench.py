"""`make bench`'s plumbing, fast (no benchmark runs): every bench file exposes rows(), the table
writer renders a fake rows() list into bench/results.md's page, the committed results.md is its
results.json's page, and a failing bench file becomes a row."""

from __future__ import annotations

import ast
import importlib.util
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench"


def load(name: str):
    spec = importlib.util.spec_from_file_location(f"bench_plumbing_{name}", BENCH / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def run_all():
    return load("run_all")


@pytest.fixture(scope="module")
def table():
    return load("table")


@pytest.fixture(scope="module")
def benchrows():
    return load("benchrows")


FAKE_ROWS = [
    {"group": "toy", "what": "sort 1,000 ints", "ours": 2.5, "peer": 1.25, "peer_name": "sorted",
     "unit": "ms", "ratio": 2.0, "note": "lower is better"},
    {"group": "toy", "what": "a | pipe", "ours": 123456789.0, "peer": None, "peer_name": None,
     "unit": "B", "ratio": None, "note": ""},
    {"group": "gpu", "what": "fused kernel", "ours": None, "peer": None, "peer_name": "triton",
     "unit": "", "ratio": None, "note": "not measured: no CUDA"},
]


@pytest.mark.parametrize("path", sorted(BENCH.glob("bench_*.py")), ids=lambda p: p.name)
def test_every_bench_file_exposes_rows(path):
    tree = ast.parse(path.read_text(), filename=str(path))
    defs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    assert "rows" in defs, f"{path.name} has no top-level rows()"
    args = defs["rows"].args
    required = len(args.posonlyargs) + len(args.args) - len(args.defaults)
    required += sum(d is None for d in args.kw_defaults)
    assert required == 0, f"{path.name}: rows() must be callable without arguments"
    mains = [n for n in tree.body if isinstance(n, ast.If) and "__main__" in ast.unparse(n.test)]
    assert mains, f"{path.name} has no `if __name__ == \"__main__\":` that prints its rows"


def test_discovery_finds_every_bench_file(run_all):
    found = {p.name for p in run_all.bench_files()}
    assert found == {p.name for p in BENCH.glob("bench_*.py")}
    assert {p.name for p in run_all.bench_files(["minigrad"])} == {"bench_minigrad.py"}


def test_markdown_table_of_fake_rows(table):
    md = table.markdown(FAKE_ROWS, "2026-01-01 00:00 UTC", "a test machine", 90.0)
    lines = md.splitlines()
    assert "2026-01-01 00:00 UTC" in lines[0] and "a test machine" in lines[0]
    assert "1.5 min" in lines[0]
    body = [ln for ln in lines if ln.startswith("| ") and not ln.startswith("| group")]
    assert len(body) == len(FAKE_ROWS)
    assert body[0] == ("| toy | sort 1,000 ints | 2.50 | 1.25 (sorted) | 2.00× | ms | "
                       "lower is better |")
    assert "a \\| pipe" in body[1] and "1.23e+08" in body[1]
    assert body[2].count("—") == 3 and "(triton)" in body[2] and "not measured: no CUDA" in body[2]
    assert all(len(re.split(r"(?<!\\)\|", ln)) == 9 for ln in body)  # 7 cells per row


@pytest.mark.parametrize("value, text", [(None, "—"), (0.0, "0"), (0.012345, "0.0123"),
                                         (1.0, "1.00"), (12.345, "12.3"), (4567.8, "4,568"),
                                         (2.5e-6, "2.50e-06"), (float("nan"), "—")])
def test_number_format(table, value, text):
    assert table.number(value) == text


def test_page_is_heading_source_and_table(table):
    results = {"date": "2026-01-01 00:00 UTC", "machine": "m", "duration_s": 60.0,
               "rows": FAKE_ROWS}
    page = table.page(results)
    assert page.startswith("# Performance measurements\n") and "`make bench`" in page
    assert page.endswith(table.markdown(FAKE_ROWS, "2026-01-01 00:00 UTC", "m", 60.0))


def test_committed_results_md_is_results_json_page(table):
    """bench/results.md and results.json come from one run: neither is edited by hand."""
    results = json.loads((BENCH / "results.json").read_text())
    assert (BENCH / "results.md").read_text() == table.page(results), \
        "bench/results.md is not bench/results.json's page: rerun `make bench`"


def test_row_helpers(benchrows):
    r = benchrows.row("g", "w", 3.0, "s", peer=1.5, peer_name="p")
    assert r["ratio"] == 2.0 and benchrows.problems(r) == []
    assert benchrows.row("g", "w", 3.0, "s", peer=0.0)["ratio"] is None
    assert benchrows.problems({"group": "g"})  # missing keys
    assert benchrows.problems({**r, "ours": "fast"})
    assert benchrows.finite_or_none({**r, "ours": float("nan")})["ours"] is None
    rows = benchrows.guarded("g", ["a", "b"], lambda: 1 / 0)
    assert [x["what"] for x in rows] == ["a", "b"]
    assert all("ZeroDivisionError" in x["note"] and x["ours"] is None for x in rows)


def fake_bench(tmp_path: Path, name: str, body: str) -> Path:
    path = tmp_path / f"bench_{name}.py"
    path.write_text(body)
    return path


def test_failing_bench_file_becomes_a_row(run_all, tmp_path):
    raises = fake_bench(tmp_path, "raises", "def rows():\n    raise KeyError('boom')\n")
    [r] = run_all.rows_in_this_process(raises)
    assert r["group"] == "raises" and "KeyError" in r["note"] and "boom" in r["note"]
    bad = fake_bench(tmp_path, "malformed", "def rows():\n    return [{'group': 'x'}]\n")
    [r] = run_all.rows_in_this_process(bad)
    assert "malformed row" in r["note"] and "missing key" in r["note"]
    missing = fake_bench(tmp_path, "norows", "X = 1\n")
    [r] = run_all.rows_in_this_process(missing)
    assert "AttributeError" in r["note"]


def test_crashing_child_becomes_a_row(run_all, tmp_path):
    dies = fake_bench(tmp_path, "dies", "import os\ndef rows():\n    os._exit(3)\n")
    rows, _ = run_all.rows_in_child(dies)
    assert len(rows) == 1 and "exited with 3" in rows[0]["note"]
    slow = fake_bench(tmp_path, "slow", "import time\ndef rows():\n    time.sleep(30)\n")
    rows, _ = run_all.rows_in_child(slow, timeout_s=2)
    assert "timed out" in rows[0]["note"]
    good = fake_bench(tmp_path, "good", "def rows():\n    return [" + repr(FAKE_ROWS[0]) + "]\n")
    rows, _ = run_all.rows_in_child(good)
    assert rows == [FAKE_ROWS[0]]


def test_write_results(run_all, table, tmp_path):
    results = {"date": "2026-01-01 00:00 UTC", "machine": "m", "duration_s": 60.0,
               "rows": FAKE_ROWS}
    page = run_all.write(results, bench_dir=tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results.json", "results.md"]
    assert json.loads((tmp_path / "results.json").read_text())["rows"] == FAKE_ROWS
    assert (tmp_path / "results.md").read_text() == page == table.page(results)


def _bench_bpe(impl: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(BENCH / "bench_bpe.py"), "--impl", str(impl),
                           "--words", "3000", "--lexicon", "300", "--merges", "20"],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)


def test_bench_bpe_on_an_unfinished_package_prints_one_line(tmp_path):
    """The starter (train_bpe a stub), a package whose encode is a stub, and a folder
    without a bpe package each give one line naming the task or the problem, exit 1, no
    traceback."""
    half = tmp_path / "half"
    shutil.copytree(ROOT / "solutions" / "bpe", half / "bpe")
    shutil.copy(ROOT / "starter" / "bpe" / "tokenizer.py", half / "bpe" / "tokenizer.py")
    expected = {ROOT / "starter": r"^bench_bpe: train_bpe is not implemented yet: finish handout "
                                  r"Task \d+ \(",
                half: r"^bench_bpe: Tokenizer\.encode is not implemented yet: finish handout "
                      r"Task \d+ \(",
                tmp_path / "empty": r"^bench_bpe: cannot import train_bpe and Tokenizer from a "
                                    r"bpe package in "}
    (tmp_path / "empty").mkdir()
    for impl, pattern in expected.items():
        done = _bench_bpe(impl)
        assert done.returncode == 1, (impl, done.returncode, done.stderr[-2000:])
        lines = [x for x in (done.stdout + done.stderr).splitlines() if x.strip()]
        assert len(lines) == 1 and re.match(pattern, lines[0]), (impl, lines[-5:])
