"""The nbgrader course, run for real. On minigrad: `nbgrader generate_assignment`, three
students' submissions (complete, untouched starter, partial), `nbgrader autograde`, the scores in
gradebook.db equal to our engine's per task, the written answers left for the formgrader, feedback
pages that name hints but nothing of the hidden tests, and the real formgrader in headless
Chromium. On the toy course: the adversarial corpus (tampered notebooks, files planted next to
the notebook), each attacker's recorded score and the classmates' unchanged, in one autograde."""

from __future__ import annotations

import contextlib
import copy
import html
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest
from helpers import grade_results
from nbgrader import utils
from nbgrader.api import Gradebook

from autograder.assignments import discover, load
from autograder.authoring.mutants import load_mutants, materialize
from autograder.grading import pipeline
from autograder.grading.store import load_store
from autograder.integrations.nbgrader_course import (
    COURSE_ID,
    SETUP_CELL_ID,
    build_course,
    lab_notebook,
    public_task_titles,
    task_cell_id,
    tasks_of,
    written_questions,
)
from autograder.integrations.nbgrader_kernel import IsolatedKernelManager
from autograder.integrations.nbgrader_preprocessor import RequireTaskResults, rejection

ASSIGNMENT = "minigrad"
BROKEN = "tanh_grad_from_input"  # the partial student's one broken function
STUDENTS = ("complete", "starter", "partial")
STEP_TIMEOUT = 300  # seconds, per nbgrader command
SERVER_START = 120  # seconds for the Jupyter server to answer
BROWSER_TIMEOUT = 120  # seconds per headless Chromium page
CHROMIUM = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run",
            "--virtual-time-budget=20000")


def _nbgrader(course: Path, env: dict, *args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=course, env=env,
                          capture_output=True, text=True, timeout=STEP_TIMEOUT)
    assert done.returncode == 0, f"nbgrader {' '.join(args)}:\n{done.stdout}\n{done.stderr}"
    return done.stdout + done.stderr


def _jupyter_env(tmp: Path) -> dict:
    """Jupyter dirs of our own, and a python3 kernelspec that is this venv's python."""
    env = dict(os.environ)
    for name in ("JUPYTER_DATA_DIR", "JUPYTER_CONFIG_DIR", "JUPYTER_RUNTIME_DIR", "IPYTHONDIR"):
        env[name] = str(tmp / name.lower())
    env["JUPYTER_PATH"] = env["JUPYTER_DATA_DIR"]
    env["JUPYTER_PLATFORM_DIRS"] = "1"
    env["PATH"] = _venv_path()
    kernel = tmp / "jupyter_data_dir" / "kernels" / "python3"
    kernel.mkdir(parents=True)
    (kernel / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3 (course venv)", "language": "python"}))
    return env


def _venv_path() -> str:
    """PATH with this venv's bin first: nbgrader's Gradebook runs the `alembic` command."""
    return os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])


def _answer(notebook: Path, text: str, forge: bool = False) -> None:
    """Write `text` into every answer cell; with `forge`, also add a code cell before the first
    task cell that rebinds `lab` to claim full marks (autograde must drop it)."""
    nb = nbformat.read(notebook, as_version=4)
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("solution"):
            cell.source = text
    if forge:
        points = {t.number: t.points for t in tasks_of(load(ASSIGNMENT))}
        first = next(i for i, c in enumerate(nb.cells)
                     if c.metadata.get("nbgrader", {}).get("grade_id", "").startswith("task_"))
        nb.cells.insert(first, nbformat.v4.new_code_cell(
            f"class Forged:\n    def task(self, number):\n        return {points!r}[number]\n\n"
            "lab = Forged()"))
    nbformat.write(nb, notebook)


def _run_course(tmp: Path) -> tuple[Path, dict[str, Path]]:
    """The course after generate_assignment, autograde and generate_feedback of three
    students; with each student's package folder (a copy, for our own grading)."""
    course = build_course(tmp / "course")  # all eight: the formgrader lists them
    env = _jupyter_env(tmp)
    _nbgrader(course, env, "generate_assignment", ASSIGNMENT)
    a = load(ASSIGNMENT)
    released = course / "release" / ASSIGNMENT
    packages = {}
    for student in STUDENTS:
        home = course / "submitted" / student / ASSIGNMENT
        shutil.copytree(released, home)
        if student == "complete":
            shutil.rmtree(home / a.package)
            shutil.copytree(a.solutions / a.package, home / a.package)
        elif student == "partial":
            shutil.rmtree(home / a.package)
            materialize(a, next(m for m in load_mutants(a) if m.name == BROKEN), home)
        if student != "starter":
            _answer(home / f"{ASSIGNMENT}.ipynb", f"{student}'s answer: gradients add up.",
                    forge=student == "partial")
        packages[student] = tmp / "packages" / student
        shutil.copytree(home / a.package, packages[student] / a.package)
    log = _nbgrader(course, env, "autograde", ASSIGNMENT)
    assert "SAWarning" not in log
    _nbgrader(course, env, "generate_feedback", ASSIGNMENT)
    return course, packages


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def _stop_group(proc: subprocess.Popen) -> None:
    """SIGTERM to the process group, SIGKILL after 10 s; the whole group is gone after."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        if not _group_alive(proc.pid):
            break
        os.killpg(proc.pid, sig)
        deadline = time.monotonic() + 10
        while _group_alive(proc.pid) and time.monotonic() < deadline:
            proc.poll()
            time.sleep(0.1)
    proc.wait(timeout=10)
    assert not _group_alive(proc.pid), "a process of the group outlived its test"


@contextlib.contextmanager
def _jupyter_server(course: Path, env: dict, log: Path):
    """A real Jupyter server (the formgrader is its nbgrader extension) on a free loopback port,
    its process group stopped whatever happens; yields (base url, token)."""
    port, token = _free_port(), secrets.token_hex(16)
    with open(log, "wb") as out:
        server = subprocess.Popen(
            [sys.executable, "-m", "jupyter_server", "--allow-root", "--no-browser",
             "--ip=127.0.0.1", f"--port={port}", "--port-retries=0",
             f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={course}"],
            cwd=course, env=env, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            start_new_session=True)
    try:
        base, deadline = f"http://127.0.0.1:{port}", time.monotonic() + SERVER_START
        while True:
            try:
                urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=5).close()
                break
            except OSError:
                assert server.poll() is None, log.read_text(errors="replace")[-3000:]
                assert time.monotonic() < deadline, "the Jupyter server did not start"
                time.sleep(0.5)
        yield base, token
    finally:
        _stop_group(server)


def _dom(chromium: str, url: str, profile: Path) -> str:
    """The page's DOM after its scripts ran, from headless Chromium (its group reaped)."""
    browser = subprocess.Popen([chromium, *CHROMIUM, f"--user-data-dir={profile}", "--dump-dom",
                                url], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                               stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        out, _ = browser.communicate(timeout=BROWSER_TIMEOUT)
    finally:
        _stop_group(browser)
    return out.decode("utf-8", "replace")


def _post(base: str, token: str, path: str) -> dict:
    request = urllib.request.Request(f"{base}{path}", data=b"", method="POST",
                                     headers={"Authorization": f"token {token}"})
    with urllib.request.urlopen(request, timeout=STEP_TIMEOUT) as reply:
        return json.loads(reply.read())


def _assignment_rows(dom: str) -> dict[str, str]:
    """{assignment: its row's HTML} of the formgrader's "Manage Assignments" table."""
    rows = re.findall(r'<tr role="row".*?</tr>', dom, re.S)
    found = (re.search(r'class="name[^"]*" data-order="([^"]+)"', row) for row in rows)
    return {m.group(1): row for m, row in zip(found, rows, strict=True) if m}


def _check_formgrader(course: Path, env: dict, tmp: Path) -> None:
    """The real formgrader: all eight assignments listed, no exchange warning, release and
    collect work, and the complete student's written answer opens for manual grading."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.skip("chromium is not installed: the formgrader was not opened in a browser "
                    "(everything before it passed)")
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", COURSE_ID) as gb:
        submission = gb.find_submission_notebook(ASSIGNMENT, ASSIGNMENT, "complete").id
    with _jupyter_server(course, env, tmp / "server.log") as (base, token):
        page = f"{base}/formgrader/manage_assignments?token={token}"
        dom = _dom(chromium, page, tmp / "chromium")
        rows = _assignment_rows(dom)
        assert set(rows) == {a.name for a in discover()} and len(rows) == 8, sorted(rows)
        assert 'id="warning-exchange"' not in dom and "does not exist" not in dom
        assert "glyphicon-cloud-upload" in rows[ASSIGNMENT], "no release button"
        assert _post(base, token, f"/formgrader/api/assignment/{ASSIGNMENT}/release")["success"]
        assert (course / "exchange" / COURSE_ID / "outbound" / ASSIGNMENT).is_dir()
        rows = _assignment_rows(_dom(chromium, page, tmp / "chromium"))
        assert "glyphicon-cloud-download" in rows[ASSIGNMENT], "no collect button after release"
        assert _post(base, token, f"/formgrader/api/assignment/{ASSIGNMENT}/collect")["success"]
        grading = _dom(chromium, f"{base}/formgrader/submissions/{submission}?token={token}",
                       tmp / "chromium")
        for q in written_questions()[ASSIGNMENT]:
            assert re.search(rf'<input class="score[^"]*" id="q_{q["id"]}"', grading), q["id"]
        assert "complete's answer: gradients add up." in html.unescape(grading)


def _task_scores(results: pipeline.Results) -> dict[str, float]:
    scores: dict[str, float] = {}
    for t in results.grades[0].tests:
        scores[task_cell_id(t.task)] = scores.get(task_cell_id(t.task), 0.0) + t.points
    return scores


def test_the_source_notebook_has_hand_graded_questions_and_one_cell_per_task():
    a = load(ASSIGNMENT)
    nb = lab_notebook(a, written_questions()[a.name])
    meta = [c.metadata["nbgrader"] for c in nb.cells if "nbgrader" in c.metadata]
    by_id = {m["grade_id"]: m for m in meta}
    questions = written_questions()[ASSIGNMENT]
    assert 1 <= len(questions) <= 3
    for q in questions:
        assert by_id[f"q_{q['id']}"] == {"grade": True, "solution": True, "locked": False,
                                         "grade_id": f"q_{q['id']}", "points": q["points"],
                                         "schema_version": 3}
    tasks = tasks_of(a)
    assert [m["points"] for m in meta if m["grade_id"].startswith("task_")] == \
        [t.points for t in tasks]
    assert sum(t.points for t in tasks) == sum(  # a fixed test: nothing in a grading
        0.0 if s.fixed else s.points for v in ("public", "hidden")
        for s in load_store(a, v).tests.values())
    assert by_id[SETUP_CELL_ID]["locked"] and not by_id[SETUP_CELL_ID]["grade"]


def test_nbgrader_autogrades_with_our_scores_and_hides_the_hidden_tests(tmp_path, monkeypatch):
    """One test (xdist would run a module fixture once per worker): the whole nbgrader round."""
    root, packages = _run_course(tmp_path)
    a = load(ASSIGNMENT)
    task_points = {task_cell_id(t.number): t.points for t in tasks_of(a)}
    monkeypatch.setenv("PATH", _venv_path())
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}", COURSE_ID) as gb:
        for student in STUDENTS:  # the engine's scores (the reference's and the starter's known)
            if student == "complete":
                ours = task_points
            elif student == "starter":
                ours = dict.fromkeys(task_points, 0.0)
            else:  # the broken function costs some tasks part of their points, not all
                ours = _task_scores(grade_results(packages[student], [ASSIGNMENT]))
                assert any(0 < ours[t] < p for t, p in task_points.items()), ours
            recorded = {cell: gb.find_grade(cell, ASSIGNMENT, ASSIGNMENT, student).auto_score
                        for cell in task_points}
            assert recorded == pytest.approx(ours), student
            for q in written_questions()[ASSIGNMENT]:  # left for the formgrader
                grade = gb.find_grade(f"q_{q['id']}", ASSIGNMENT, ASSIGNMENT, student)
                assert grade.max_score == q["points"]
                if student == "starter":  # an untouched answer cell: nbgrader gives it 0
                    assert (grade.auto_score, grade.needs_manual_grade) == (0, False)
                else:
                    assert grade.auto_score is None and grade.needs_manual_grade, student
    hidden = set(load_store(a, "hidden").tests) - set(load_store(a, "public").tests)
    assert hidden
    hint = next(m.hint for m in load_mutants(a) if m.name == BROKEN)
    for student in STUDENTS:
        page = root / "feedback" / student / ASSIGNMENT / f"{ASSIGNMENT}.html"
        text = html.unescape(page.read_text(encoding="utf-8"))
        leaked = sorted(t for t in hidden if re.search(rf"\b{re.escape(t)}\b", text))
        assert not leaked, f"{student}'s feedback names hidden tests {leaked}"
        assert "/hidden/" not in text and "hidden.json" not in text
        if student == "partial":
            assert hint in " ".join(text.split()), "the broken function's hint is not shown"
            assert "hidden tests:" in text
        if student == "starter":
            assert "not implemented yet" in text
        flat = " ".join(text.split())
        for number, title in public_task_titles(a).items():  # whole, not cut at 60 characters
            assert f"Task {number}: {title}" in flat, title
        long = [line for line in text.splitlines() if "Hint:" in line and len(line) > 100]
        assert not long, f"hint lines not wrapped: {long[:2]}"
    _check_formgrader(root, _jupyter_env(tmp_path / "formgrader"), tmp_path)


# --- the adversarial corpus, on the toy course ----------------------------------------------

TOY_QUESTIONS = '''[[toy]]
id = "why"
points = 2
from = "Task 1"
question = "Why does order return indices?"
answer = "So that the caller can sort other lists the same way."
'''


def _forging_payload(marks: Path, points: dict) -> str:
    """Code planted by an attacker: it leaves a mark (proof it ran in a trusted process) and
    makes every task cell claim full marks, from a thread that patches LabGrade.task."""
    return (
        "import os, sys, threading, time\n"
        f"os.makedirs({str(marks)!r}, exist_ok=True)\n"
        f"open(os.path.join({str(marks)!r}, __name__ + '-' + str(os.getpid())), 'w').close()\n"
        "def _forge():\n"
        "    while True:\n"
        "        m = sys.modules.get('autograder.integrations.nbgrader_lab')\n"
        "        if m is not None and hasattr(m, 'LabGrade'):\n"
        f"            m.LabGrade.task = lambda self, n: {points!r}.get(n, 0)\n"
        "        time.sleep(0.01)\n"
        "threading.Thread(target=_forge, daemon=True).start()\n")


def _cells(nb, kind: str) -> list:
    """The notebook's setup cell ("setup"), task cells ("task") or answer cells ("answer")."""
    def is_kind(c) -> bool:
        meta = c.metadata.get("nbgrader", {})
        gid = meta.get("grade_id", "")
        return {"setup": gid == SETUP_CELL_ID, "task": gid.startswith("task_"),
                "answer": bool(meta.get("solution"))}[kind]
    return [c for c in nb.cells if is_kind(c)]


def _edit(home: Path, change) -> None:
    path = home / "toy.ipynb"
    nb = nbformat.read(path, as_version=4)
    change(nb)
    nbformat.write(nb, path)


def _plant(home: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (home / rel).parent.mkdir(parents=True, exist_ok=True)
        (home / rel).write_text(text)


IMAGE = {"fig.png": {"image/png": "iVBORw0KGgo="}}


def _answer_with_image(nb) -> None:
    answer = _cells(nb, "answer")[0]
    answer.source, answer.attachments = "Reuse. ![fig](attachment:fig.png)", IMAGE


def _attacks(payload: str, points: dict) -> dict:
    """{student: (package, what the attacker does to its folder, what the gradebook must
    record: "full", "zero" or "engine")}: the corpus, a few attacks of one family per student
    (each planted file leaves its own mark if it ever runs)."""
    forged_lab = ("class _Lab:\n    def task(self, n):\n"
                  f"        return {points!r}.get(n, 0)\n\n"
                  "def grade_lab(*args, **kwargs):\n    return _Lab()\n")
    relaunch = ("import os, runpy, sys\n"
                "sys.path[:] = [p for p in sys.path if os.path.abspath(p or '.') != os.getcwd()]\n"
                "runpy.run_module('ipykernel_launcher', run_name='__main__', alter_sys=True)\n")

    def retag(nb):  # skip-execution on the setup and task cells; their nbgrader dicts changed
        for cell in _cells(nb, "setup") + _cells(nb, "task"):
            cell.metadata["tags"] = ["skip-execution"]
            cell.metadata["nbgrader"].update(locked=False, points=1000)
            cell.metadata["editable"] = True
        nb.metadata["kernelspec"] = {"name": "evil", "display_name": "evil", "language": "python"}

    def delete(nb):
        gone = {id(c) for c in _cells(nb, "setup") + _cells(nb, "task")}
        nb.cells = [c for c in nb.cells if id(c) not in gone]

    def duplicate_and_reorder(nb):  # copies of every locked cell, unlocked, then tasks first
        copies = []
        for cell in _cells(nb, "setup") + _cells(nb, "task"):
            twin = copy.deepcopy(cell)
            twin.metadata["nbgrader"].update(locked=False, grade=False)
            copies.append(twin)
        tasks = _cells(nb, "task")
        rest = [c for c in nb.cells if c not in tasks]
        nb.cells = tasks + rest + copies

    def answer_rebinds(nb):  # the answer cell becomes code, after the setup cell, rebinding lab
        answer = _cells(nb, "answer")[0]
        nb.cells.remove(answer)
        answer.cell_type, answer.outputs, answer.execution_count = "code", [], None
        answer.source = forged_lab + "lab = grade_lab()\n"
        nb.cells.insert(nb.cells.index(_cells(nb, "setup")[0]) + 1, answer)

    def huge_outputs(nb):  # 6 MB of output, and task cells that already show full marks
        nb.cells[0] = nbformat.v4.new_code_cell("print('x')", outputs=[nbformat.v4.new_output(
            "stream", name="stdout", text="x" * 6_000_000)], metadata=nb.cells[0].metadata)
        for cell in _cells(nb, "task"):
            cell.outputs = [nbformat.v4.new_output("execute_result", data={
                "text/plain": str(cell.metadata["nbgrader"]["points"])}, execution_count=1)]
            cell.execution_count = 1

    def unreadable(home):
        (home / "toy.ipynb").write_bytes(b"\xff\xfe{ not a notebook")

    def odd_names(home):
        (home / os.fsdecode(b"\xff\xfe.txt")).write_text("x")
        (home / "toy" / os.fsdecode(b"notes\xff.py")).write_text("x = 1\n")

    def added_cell(nb):  # a code cell before the tasks that rebinds lab
        nb.cells.insert(nb.cells.index(_cells(nb, "task")[0]), nbformat.v4.new_code_cell(
            forged_lab + "lab = grade_lab()\n"))

    return {
        "complete": ("solution", None, "full"),
        "starter": ("starter", None, "zero"),
        "partial": ("mutant", lambda h: _edit(h, added_cell), "engine"),
        "plant_packages": ("starter", lambda h: _plant(h, {
            "autograder/__init__.py": payload, "autograder/integrations/nbgrader_lab.py": payload + forged_lab,
            "autograder/integrations/nbgrader_course.py": payload + forged_lab, "rich/__init__.py": payload,
            "numpy/__init__.py": payload, "IPython/__init__.py": payload, "json.py": payload}),
            "zero"),
        "plant_startup": ("starter", lambda h: _plant(h, {
            "sitecustomize.py": payload, "usercustomize.py": payload,
            "evil.pth": "import evil_pth\n", "evil_pth.py": payload,
            "ipykernel_launcher.py": payload + relaunch,
            "ipython_config.py": f"c = get_config()\nc.InteractiveShellApp.exec_lines = [{payload!r}]\n",
            "ipython_kernel_config.py": f"c = get_config()\nc.InteractiveShellApp.exec_lines = [{payload!r}]\n",
            "profile_default/startup/00-evil.py": payload,
            ".ipython/profile_default/startup/00-evil.py": payload,
            "kernels/evil/kernel.json": json.dumps({"argv": [sys.executable, "-c", payload],
                                                    "display_name": "evil", "language": "python"}),
        }), "zero"),
        "retagged": ("starter", lambda h: _edit(h, retag), "zero"),
        "deleted": ("solution", lambda h: (_edit(h, delete), odd_names(h)), "full"),
        "duplicated": ("solution", lambda h: _edit(h, duplicate_and_reorder), "full"),
        "answer_code": ("starter", lambda h: _edit(h, lambda nb: (answer_rebinds(nb),
                                                                  huge_outputs(nb))), "zero"),
        "unreadable": ("solution", unreadable, "zero"),
    }


@pytest.mark.filterwarnings("ignore::nbformat.warnings.DuplicateCellId")  # the copies' ids
def test_tampered_notebooks_and_planted_files_score_only_what_the_engine_gives(toy_env, tmp_path):
    """One autograde run, one student per attack (SECURITY.md, "nbgrader course"): each gets
    exactly the engine's score for its package (the untouched starter's 0 for a starter), no
    planted code runs in the kernel or the grading interpreter (no mark), a rejected notebook
    gets 0 with its reason in the gradebook, and the classmates keep their scores."""
    (toy_env / "solutions" / "written_questions.toml").write_text(TOY_QUESTIONS)
    a = load("toy", toy_env)
    points = {t.number: t.points for t in tasks_of(a)}
    course = build_course(tmp_path / "course", ["toy"], toy_env)
    env = _jupyter_env(tmp_path)
    env["TMPDIR"] = str(tmp_path / "tmp")
    (tmp_path / "tmp").mkdir()
    _nbgrader(course, env, "generate_assignment", "toy")
    marks = tmp_path / "marks"
    attacks = _attacks(_forging_payload(marks, points), points)
    mutant = load_mutants(a)[0]
    for student, (package, attack, _) in attacks.items():
        home = course / "submitted" / student / "toy"
        shutil.copytree(course / "release" / "toy", home)
        if package != "starter":
            shutil.rmtree(home / "toy")
            if package == "solution":
                shutil.copytree(a.solutions / "toy", home / "toy")
            else:
                materialize(a, mutant, home)
        if student == "complete":
            _edit(home, _answer_with_image)
        if attack is not None:
            attack(home)
    log = _nbgrader(course, env, "autograde", "toy")
    assert "SAWarning" not in log
    partial = tmp_path / "partial"
    materialize(a, mutant, partial)
    engine = {t.number: 0.0 for t in tasks_of(a)}
    for t in grade_results(partial, ["toy"]).grades[0].tests:
        engine[t.task] += t.points
    assert 0 < sum(engine.values()) < sum(points.values())
    expected = {"full": points, "zero": dict.fromkeys(points, 0.0), "engine": engine}
    ran = sorted(p.name for p in marks.iterdir()) if marks.exists() else []  # planted code's marks
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", COURSE_ID) as gb:
        recorded = {student: {n: gb.find_grade(task_cell_id(n), "toy", "toy", student).auto_score
                              for n in points} for student in attacks}
        wrong = {student: got for student, got in recorded.items()
                 if got != pytest.approx(expected[attacks[student][2]])}
        assert not wrong, f"recorded scores that are not the engine's: {wrong}; marks: {ran}"
        for student in attacks:
            comment = gb.find_comment("q_why", "toy", "toy", student).auto_comment or ""
            assert ("rejected" in comment) == (student == "unreadable"), (student, comment)
        assert "not UTF-8" in gb.find_comment("q_why", "toy", "toy", "unreadable").auto_comment
        assert gb.find_grade("q_why", "toy", "toy", "complete").needs_manual_grade
    assert not ran, f"planted code ran in a trusted process: {ran}"
    assert (course / "submitted" / "unreadable" / "toy" / "toy.ipynb.rejected").exists()
    graded = nbformat.read(course / "autograded" / "complete" / "toy" / "toy.ipynb", as_version=4)
    assert _cells(graded, "answer")[0].get("attachments") == IMAGE  # the answer kept whole
    assert not list((tmp_path / "tmp").glob("nbgrader-kernel-*")), "kernel folders left behind"
    _nbgrader(course, env, "generate_feedback", "toy")
    page = course / "feedback" / "answer_code" / "toy" / "toy.html"
    assert page.stat().st_size < 1_000_000


def _task_cell(*outputs):
    cell = nbformat.v4.new_code_cell("lab.task(1)", outputs=list(outputs))
    cell.metadata["nbgrader"] = {"grade": True, "solution": False, "locked": True,
                                 "grade_id": "task_1", "points": 5.0, "schema_version": 3}
    return cell


@pytest.mark.parametrize(("outputs", "kept"), [
    ((), False),  # skipped or emptied: nbgrader alone would give full marks
    ((("stream", "stdout"),), False),
    ((("result", "3.5"),), True),
    ((("result", "5"),), True),
    ((("result", "7"),), False),  # more than the cell's points
    ((("result", "nan"),), False),
    ((("result", "'5'"),), False),
    ((("result", "3"), ("result", "4")), False),
    ((("result", "3"), ("stream", "stderr")), False),
])
def test_a_task_cell_scores_only_the_points_it_returned(outputs, kept):
    made = [nbformat.v4.new_output("execute_result", data={"text/plain": v}, execution_count=1)
            if kind == "result" else nbformat.v4.new_output("stream", name=v, text="x")
            for kind, v in outputs]
    cell, _ = RequireTaskResults().preprocess_cell(_task_cell(*made), {}, 0)
    if kept:
        assert cell.outputs == made
    else:
        assert [o.output_type for o in cell.outputs] == ["error"]
        assert utils.determine_grade(cell)[0] == 0


def test_an_unreadable_notebook_is_named_with_its_reason(tmp_path):
    cases = {b"\xff\xfe{": "not UTF-8", b"{ nope": "not a readable notebook",
             b'{"cells": 3, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}': "not a readable",
             b'{"cells": [3], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}': "not a readable",
             b'{"cells": [], "metadata": {}, "nbformat": 99}': "not a readable"}
    for data, reason in cases.items():
        (tmp_path / "nb.ipynb").write_bytes(data)
        assert reason in (rejection(tmp_path / "nb.ipynb") or ""), data
    nbformat.write(nbformat.v4.new_notebook(), tmp_path / "nb.ipynb")
    assert rejection(tmp_path / "nb.ipynb") is None


def test_the_grading_kernel_is_the_course_interpreter_isolated():
    km = IsolatedKernelManager(kernel_name="python3")
    km.connection_file = "/tmp/k.json"
    assert km.format_kernel_cmd(["--x"]) == [sys.executable, "-I", "-m", "ipykernel_launcher",
                                              "-f", "/tmp/k.json", "--x"]


def test_the_lab_grade_without_hidden_goldens_is_a_check(toy_env, tmp_path) -> None:
    """A student's release has no hidden goldens: the notebook's `grade_lab` then runs the
    public tests on the published inputs (a grading needs the hidden store's draw secret) and
    says so, instead of failing."""
    from autograder.integrations.nbgrader_lab import _grade_here

    (toy_env / "tests" / "toy" / "goldens" / "hidden.json").unlink()
    folder = tmp_path / "lab"
    shutil.copytree(toy_env / "solutions" / "toy", folder / "toy")
    reply = _grade_here("toy", folder)
    assert reply["hidden_graded"] is False and "(public)" in reply["summary"]
    assert reply["tests"] and all(t["visibility"] == "public" and t["passed"]
                                  for t in reply["tests"]), reply
