"""Bulk grading of a class on the toy course: resume by content, crash safety under SIGKILL,
rejected submissions listed with their max score, grades.csv and the Canvas export."""

import csv
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest
from helpers import SOLUTION, processes_mentioning

from autograder import cli

WRONG_ADD = SOLUTION.replace("return a + b", "return a - b")


def package(root: Path, source: str, *inner: str) -> Path:
    pkg = root.joinpath(*inner, "toy")
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(source)
    return pkg


def rows(out: Path) -> dict[str, dict]:
    return {r["student"]: r for r in csv.DictReader(open(out / "grades.csv"))}


def bulk(subs: Path, out: Path, *extra: str) -> None:
    assert cli.main(["bulk", str(subs), "--jobs", "2", "--out", str(out), *extra]) == 0




def test_resume_by_content_force_and_run_log(toy_env, tmp_path, capsys):
    subs, out = tmp_path / "subs", tmp_path / "out"
    package(subs / "alice", SOLUTION)
    package(subs / "bob", WRONG_ADD)
    bulk(subs, out, "--assignment", "toy")
    stamp = {s: (out / s / "results.json").stat().st_mtime_ns for s in ("alice", "bob")}
    capsys.readouterr()
    bulk(subs, out, "--assignment", "toy")  # nothing changed: nothing regraded
    assert {s: (out / s / "results.json").stat().st_mtime_ns for s in stamp} == stamp
    shown = " ".join(capsys.readouterr().out.split())  # says so, with no empty progress bar
    assert "2 of 2 unchanged, skipped" in shown and "nothing to grade" in shown
    assert "0/0" not in shown and "ETA" not in shown
    (subs / "bob" / "toy" / "__init__.py").write_text(SOLUTION)  # a resubmission
    bulk(subs, out, "--assignment", "toy")
    assert (out / "alice" / "results.json").stat().st_mtime_ns == stamp["alice"]
    assert float(rows(out)["bob"]["score"]) == 7
    bulk(subs, out, "--assignment", "toy", "--force")
    assert (out / "alice" / "results.json").stat().st_mtime_ns != stamp["alice"]
    log = [json.loads(line) for line in (out / "run_log.jsonl").read_text().splitlines()]
    assert [e["student"] for e in log].count("alice") == 2
    assert [e["student"] for e in log].count("bob") == 3
    assert {"student", "hash", "score", "time", "problems"} <= set(log[0])
    assert not list(out.rglob("*.partial")) and not (out / ".work").exists()


def test_files_left_out_are_said_in_results_and_class_report(toy_env, tmp_path):
    """Intake's decisions reach the student's results.json (machine field and text) and the
    class report, not only the grader's log."""
    from autograder.grading.results import read_results

    subs, out = tmp_path / "subs", tmp_path / "out"
    package(subs / "ann", SOLUTION)
    (subs / "ann" / "toy" / "notes.txt").write_text("scratch\n")
    bulk(subs, out, "--assignment", "toy")
    results = json.loads((out / "ann" / "results.json").read_text())
    assert "notes.txt" in results["output"]
    assert any("notes.txt" in n for n in read_results(results).notes)
    report = " ".join((out / "class_report.md").read_text().split())
    assert "Intake decisions" in report and "ann: toy: ignored 1 file(s)" in report


def test_course_change_regrades(toy_env, tmp_path):
    subs, out = tmp_path / "subs", tmp_path / "out"
    package(subs / "alice", SOLUTION)
    bulk(subs, out, "--assignment", "toy")
    stamp = (out / "alice" / "results.json").stat().st_mtime_ns
    # a different isolation option is a different grading: regraded
    assert cli.main(["bulk", str(subs), "--out", str(out), "--assignment", "toy",
                     "--isolation", "none"]) == 0
    assert (out / "alice" / "results.json").stat().st_mtime_ns != stamp


def test_nobody_disappears(toy_env, tmp_path):
    subs, out = tmp_path / "subs", tmp_path / "out"
    package(subs / "alice", SOLUTION)
    package(subs / "nested", SOLUTION, "homework", "src")
    (subs / "single").mkdir(parents=True)
    (subs / "single" / "toy.py").write_text(SOLUTION)
    (package(subs / "noinit", SOLUTION) / "__init__.py").rename(subs / "noinit/toy/core.py")
    with zipfile.ZipFile(subs / "zipped.zip", "w") as zf:
        zf.writestr("homework/src/toy/__init__.py", SOLUTION)
    bulk(subs, out)  # no --assignment: the class's assignment is inferred from alice
    table = rows(out)
    assert set(table) == {"alice", "nested", "single", "noinit", "zipped"}
    assert {s: float(r["max_score"]) for s, r in table.items()} == dict.fromkeys(table, 7.0)
    assert float(table["alice"]["score"]) == 7 and table["alice"]["message"] == ""
    assert "found homework/src/toy/" in table["nested"]["message"]
    assert "found homework/src/toy/" in table["zipped"]["message"]
    assert "toy.py is a file: submit the package folder" in table["single"]["message"]
    assert "without __init__.py" in table["noinit"]["message"]
    report = (out / "class_report.md").read_text()
    assert "- single: " in report and "toy.py is a file" in report


def test_grades_csv_totals_before_tests_and_canvas_export(toy_env, tmp_path):
    subs, out = tmp_path / "subs", tmp_path / "out"
    package(subs / "alice", SOLUTION)
    package(subs / "bob", WRONG_ADD)
    bulk(subs, out, "--assignment", "toy")
    header = next(csv.reader(open(out / "grades.csv")))
    assert header[:5] == ["student", "score", "max_score", "message", "toy"]
    tasks = [h for h in header if h.startswith("toy: Task ")]
    tests = [h for h in header if h.startswith("toy · ")]
    assert tasks == ["toy: Task 1", "toy: Task 2"]  # short: never a title cut with "…"
    assert tests == ["toy · test_order", "toy · test_add", "toy · test_mean", "toy · test_mean_of_nothing"]
    assert max(header.index(t) for t in tasks) < min(header.index(t) for t in tests)
    bob = rows(out)["bob"]
    t1, t2 = "toy: Task 1", "toy: Task 2"
    assert float(bob["toy"]) == 5 and float(bob[t2]) < float(rows(out)["alice"][t2])
    assert float(bob[t1]) + float(bob[t2]) == float(bob["toy"])
    canvas = list(csv.reader(open(out / "canvas.csv")))
    assert canvas[0][:6] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Notes"]
    assert canvas[1][0].strip() == "Points Possible" and float(canvas[1][6]) == 7
    assert {r[3]: float(r[6]) for r in canvas[2:]} == {"alice": 7, "bob": 5}
    report = (out / "class_report.md").read_text()
    assert "```\n  0-  9% |" in report and "1 student: add subtracts" in report


def _ours(marker: str) -> list[int]:
    """Our processes whose command line, environment or folder mentions `marker`."""
    return processes_mentioning(marker, ("cmdline", "environ", "cwd"))


def _described(pid: int) -> str:
    """A process's state, parent and command line, for a failure message."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
    except OSError:
        return "gone"
    fields = dict(line.split(":\t", 1) for line in status.splitlines() if ":\t" in line)
    return (f"{fields.get('State', '?').strip()} ppid {fields.get('PPid', '?').strip()} "
            f"{cmdline.decode(errors='replace')[:300]}")


def test_sigkill_at_random_points_loses_nothing(toy_env, tmp_path):
    """kill -9 the bulk run >= 3 times at seeded random moments, rerun until done: grades.csv
    equals an uninterrupted run's, every student once, no process or temporary file left."""
    subs, sys_tmp = tmp_path / "subs", tmp_path / "sys_tmp"
    sys_tmp.mkdir()
    for i in range(6):
        package(subs / f"s{i}", SOLUTION if i % 2 else WRONG_ADD)
    env = {**os.environ, "TMPDIR": str(sys_tmp)}

    def start(out: Path, *extra: str) -> subprocess.Popen:
        return subprocess.Popen([sys.executable, "-m", "autograder", "bulk", str(subs),
                                 "--assignment", "toy", "--jobs", "2", "--out", str(out),
                                 *extra], env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, start_new_session=True)

    reference = tmp_path / "reference"
    assert start(reference).wait(timeout=300) == 0
    rng, out, kills, extra = random.Random(20), tmp_path / "out", 0, ()
    for _ in range(30):
        proc = start(out, *extra)
        if kills < 3:
            try:
                proc.wait(timeout=rng.uniform(0.3, 2.5))
            except subprocess.TimeoutExpired:
                os.kill(proc.pid, signal.SIGKILL)
                proc.wait(timeout=30)
                kills += 1
                deadline = time.monotonic() + 20
                while _ours(str(tmp_path)) and time.monotonic() < deadline:
                    time.sleep(0.2)
                left = {pid: _described(pid) for pid in _ours(str(tmp_path))}
                assert not left, f"a grading process outlived the kill: {left}"
                continue
            extra = ("--force",)  # finished before the kill: go again, still killable
            continue
        assert proc.wait(timeout=300) == 0
        break
    assert kills >= 3
    assert (out / "grades.csv").read_bytes() == (reference / "grades.csv").read_bytes()
    assert sorted(rows(out)) == [f"s{i}" for i in range(6)]
    assert all((out / f"s{i}" / "grading.json").exists() for i in range(6))
    assert not list(out.rglob("*.partial")) and not (out / ".work").exists()
    assert list(sys_tmp.iterdir()) == [] and _ours(str(tmp_path)) == []


def _program(seed: int, n: int = 30) -> str:
    """A seeded program whose token structure differs from another seed's."""
    rng = random.Random(seed)

    def expr(depth: int) -> str:
        if depth == 0:
            return rng.choice(["x", "y", "1", "'s'", "x[0]", "len(y)"])
        form = rng.choice(["({} + {})", "({} * {})", "({} - {})", "[{}, {}]", "f({}, {})",
                           "({} if {} else 0)", "{{{}: {}}}", "({} % {})"])
        return form.format(*(expr(depth - 1) for _ in range(form.count("{}"))))

    return "\n".join(f"def f{i}(x, y):\n    return {expr(3)}\n" for i in range(n))


def test_similar_submissions_cluster_despite_renaming():
    from autograder.classroom.similarity import clusters, code_shingles

    base = _program(1)
    renamed = "# my own work\n" + base.replace("x", "alpha").replace("y", "beta")
    texts = {"a": [base], "b": [renamed], "c": [base + "\n# done\n"], "d": [_program(2)],
             "e": [_program(3)]}
    found = clusters(texts)
    assert [c.members for c in found] == [["a", "b", "c"]]
    assert found[0].similarity > 0.9 and found[0].shared_tokens > 100
    assert clusters(texts, code_shingles([base])) == []  # all they share is the starter's


def test_identical_copies_are_flagged_whatever_their_size_and_small_ones_listed():
    """Two byte-identical small packages are one cluster (before: under MIN_SHINGLES they were
    silently skipped); a small package that is no copy, and an untouched starter, are listed as
    too small to compare, in the class report too."""
    from autograder.classroom.class_report import class_report
    from autograder.classroom.similarity import MIN_SHINGLES, Scan, code_shingles, compare_class

    starter = "def f(x):\n    raise NotImplementedError\n"
    small = "def f(x):\n    return [v * 2 for v in x if v > 0]\n"
    texts = {"ann": [small], "ben": [small], "cat": ["def f(x):\n    return sorted(x)[:3]\n"],
             "dan": [starter], "eve": [starter]}
    found, too_small = compare_class(texts, code_shingles([starter]))
    assert [(c.members, c.similarity) for c in found] == [(["ann", "ben"], 1.0)]
    assert set(too_small) == {"cat", "dan", "eve"} and too_small["dan"] == 0
    assert all(n < MIN_SHINGLES for n in too_small.values())
    report = class_report({}, {}, sorted(texts), [], Scan(found, too_small=too_small))
    text = " ".join(report.markdown().split())
    assert "too small to compare" in text and "cat (" in text and "ann ~ ben" in text


def test_similarity_subtracts_every_starter_and_skips_unreadable(tmp_path):
    """Two students whose only common code is an untouched starter of a second package: not
    similar. Reading by intake's rules: a folder named x.py, a FIFO, a link to / are passed
    over; a zip intake refuses is left out with its reason."""
    from autograder.classroom.similarity import scan
    from autograder.classroom.submissions import list_submissions

    starter = tmp_path / "starter"
    for name, seed, n in (("toy", 7, 10), ("other", 5, 400)):
        (starter / name).mkdir(parents=True)
        (starter / name / "__init__.py").write_text(_program(seed, n))
    subs = tmp_path / "subs"
    for student, seed in (("ann", 1), ("ben", 2)):
        (subs / student / "toy").mkdir(parents=True)
        (subs / student / "toy" / "__init__.py").write_text(_program(seed, 10))
        shutil.copytree(starter / "other", subs / student / "other")
    (subs / "ann" / "toy" / "x.py").mkdir()
    os.mkfifo(subs / "ann" / "toy" / "notes.py")
    (subs / "ann" / "root").symlink_to("/")
    with zipfile.ZipFile(subs / "cat.zip", "w") as zf:
        for i in range(2001):
            zf.writestr(f"toy/m{i}.py", "")
    result = scan(list_submissions(subs), [starter])
    assert result.clusters == [] and list(result.skipped) == ["cat"]
    assert "2001 entries" in result.skipped["cat"]
    only_graded = scan(list_submissions(subs), [starter / "toy"])  # the old rule: one package
    assert [c.members for c in only_graded.clusters] == [["ann", "ben"]]


def test_html_student_table_links_each_students_page():
    """The HTML class report links every student that has a results.json to their page beside
    it (URL-quoted, relative: the page stays offline); a student without one is plain text."""
    from types import SimpleNamespace

    from autograder.classroom.class_report import student_table
    from autograder.classroom.html_report import table_html

    graded = {"ann lee": SimpleNamespace(score=3.0, max_score=4.0)}
    page = table_html(student_table(graded, ["ann lee", "bo<b>"], {}, {}, []))
    assert '<td><a href="ann%20lee/report.html">ann lee</a></td>' in page
    assert "<td>bo&lt;b&gt;</td>" in page and page.count("<a ") == 1


CHROMIUM = shutil.which("chromium")


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")
def test_html_report_renders_in_headless_chromium_offline(toy_env, tmp_path):
    """Each chart under its own heading, the chart's numbers equal the table's (students
    graded as denominator, with a rejected student in the class), a per-student table with
    full task titles on hover, names shown literally, no network."""
    subs, out = tmp_path / "subs", tmp_path / "out"
    (toy_env / "starter" / "extra").mkdir()
    (toy_env / "starter" / "extra" / "__init__.py").write_text(_program(5, 300))
    for student, source in (("alice", SOLUTION), ("bob", WRONG_ADD)):
        package(subs / student, source)  # both ship the untouched starter of `extra` too
        shutil.copytree(toy_env / "starter" / "extra", subs / student / "extra")
    (subs / "__init__").mkdir()  # rejected: no package
    bulk(subs, out, "--assignment", "toy")
    page = (out / "class_report.html").read_text()
    assert "http://" not in page and "https://" not in page
    assert "default-src 'none'" in page and page.count("data:image/png;base64,") == 2
    assert 'href="alice/report.html"' in page and 'href="bob/report.html"' in page
    flags = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--no-first-run", f"--user-data-dir={tmp_path / 'profile'}"]
    url = (out / "class_report.html").as_uri()
    dom = subprocess.run([*flags, "--dump-dom", url], capture_output=True, text=True,
                         timeout=120).stdout
    order = ["<h1>Class report</h1>", "<h2>Students</h2>", "<h2>toy: scores (3 students)</h2>",
             'alt="toy: score histogram', "<h2>toy: pass rate per task (2 students graded)</h2>",
             'alt="toy: pass rate per task:']
    assert [dom.index(x) for x in order] == sorted(dom.index(x) for x in order)
    alt = re.search(r'alt="toy: pass rate per task: ([^"]*)"', dom).group(1)
    charted = dict(re.findall(r"(Task \d+ \((?:public|hidden)\)) (\d+/\d+)", alt))
    assert charted == {"Task 1 (public)": "2/2", "Task 2 (public)": "1/2", "Task 2 (hidden)": "2/2"}
    table = re.search(r"<h2>toy: pass rate per task.*?<table>(.*?)</table>", dom, re.S).group(1)
    cells = {row[0]: row for row in (re.findall(r"<td>(.*?)</td>", r)
                                     for r in re.findall(r"<tr>(.*?)</tr>", table)) if row}
    for label, value in charted.items():  # the chart says what the table says
        task, vis = re.match(r"(Task \d+) \((\w+)\)", label).groups()
        assert cells[task][2 if vis == "public" else 3] == value
    assert '<th title="Task 2: add and mean">toy Task 2</th>' in dom
    students = re.search(r"<h2>Students</h2>(.*?)</table>", dom, re.S).group(1)
    assert '<td><a href="__init__/report.html">__init__</a></td>' in students \
        and "<td>5/7</td>" in students
    assert "<li>__init__: no" in dom  # Markdown did not eat the underscores
    assert "1 student: add subtracts" in dom
    similar = re.search(r"<h2>Suspiciously similar submissions</h2>(.*?)</section>", dom, re.S)
    assert "<li>none</li>" in similar.group(1)  # the shared starter of `extra` is subtracted
    shot = tmp_path / "shot.png"
    subprocess.run([*flags, f"--screenshot={shot}", "--window-size=800,1200", url],
                   capture_output=True, timeout=120)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 5000


def test_compare_lists_exactly_the_students_and_tests_a_golden_change_moves(toy_env, tmp_path,
                                                                            capsys):
    subs, before, after = tmp_path / "subs", tmp_path / "before", tmp_path / "after"
    package(subs / "alice", SOLUTION)
    package(subs / "bob", WRONG_ADD)
    package(subs / "carol", SOLUTION.replace("key=lambda i: xs[i])", "key=lambda i: -xs[i])"))
    bulk(subs, before, "--assignment", "toy")
    released = {p: p.read_bytes() for p in before.rglob("*") if p.is_file()}
    # a wrong fix of the reference, which computes each grading's expected values
    reference = toy_env / "solutions" / "toy" / "__init__.py"
    reference.write_text(reference.read_text().replace("return a + b\n", "return a + b + 1.0\n"))
    capsys.readouterr()
    bulk(subs, after, "--assignment", "toy", "--compare", str(before))
    table = {r["student"]: r for r in csv.DictReader(open(after / "compare.csv"))}
    assert set(table) == {"alice", "carol"}  # bob already failed test_add
    assert {s: (r["before"], r["after"], float(r["change"])) for s, r in table.items()} == \
        {"alice": ("7 / 7", "5 / 7", -2), "carol": ("6 / 7", "4 / 7", -2)}
    assert {r["tests that changed"] for r in table.values()} == {"toy · test_add: 2 -> 0"}
    md = (after / "compare.md").read_text()
    assert "2 students would change" in md and "| carol | 6 / 7 | 4 / 7 | \\-2 |" in md
    shown = capsys.readouterr().out
    assert "regrade preview against" in shown and "test_add: 2 -> 0" in shown
    assert {p: p.read_bytes() for p in before.rglob("*") if p.is_file()} == released
    assert cli.main(["bulk", str(subs), "--assignment", "toy", "--out", str(after),
                     "--compare", str(tmp_path / "nowhere")]) == 2
    capsys.readouterr()
    bulk(subs, after, "--assignment", "toy", "--compare", str(after))  # against itself
    assert "no change (every student's grade is the same)" in " ".join(
        capsys.readouterr().out.split())
    assert "no change" in (after / "compare.md").read_text()
