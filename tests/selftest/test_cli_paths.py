"""Every command's paths: a missing input, a file where a folder is expected (or a folder where
a file is), and an empty input folder each end in one line naming the path, a non-zero exit
(the empty folder: where it cannot hold work) and no traceback; nothing is written for them."""

from __future__ import annotations

import argparse

import pytest

from autograder import cli

# Per command: {case: argv}, with MISSING, FILE and EMPTY standing for the three bad paths and
# OUT for a fresh output folder. The commands with no path argument are listed with {}.
MISSING, FILE, EMPTY, OUT = "<missing>", "<file>", "<empty>", "<out>"
CASES: dict[str, dict[str, list[str]]] = {
    "check": {"missing": ["check", "toy", "--impl", MISSING],
              "file": ["check", "toy", "--impl", FILE],
              "empty": ["check", "toy", "--impl", EMPTY]},
    "test": {"missing": ["test", "toy", "--impl", MISSING],
             "file": ["test", "toy", "--impl", FILE],
             "empty": ["test", "toy", "--impl", EMPTY]},
    "grade": {"missing": ["grade", MISSING, "--out", OUT],
              "file-out": ["grade", EMPTY, "--out", FILE],
              "empty": ["grade", EMPTY, "--out", OUT]},
    "bulk": {"missing": ["bulk", MISSING, "--assignment", "toy", "--out", OUT],
             "file": ["bulk", FILE, "--assignment", "toy", "--out", OUT],
             "empty": ["bulk", EMPTY, "--assignment", "toy", "--out", OUT],
             "file-out": ["bulk", EMPTY, "--assignment", "toy", "--out", FILE],
             "missing-compare": ["bulk", EMPTY, "--assignment", "toy", "--out", OUT,
                                 "--compare", MISSING]},
    "gradescope": {"folder-out": ["gradescope", "toy", "--out", EMPTY],
                   "under-file": ["gradescope", "toy", "--out", FILE + "/x.zip"]},
    "demo": {"file-out": ["demo", "--out", FILE]},
    "release": {"file": ["release", FILE], "under-file": ["release", FILE + "/r"]},
    "nbgrader": {"file": ["nbgrader", FILE]},
    "mutation": {"folder-out": ["mutation", "toy", "--report", EMPTY]},
    "submit": {"missing": ["submit", "toy", "--impl", MISSING],
               "file": ["submit", "toy", "--impl", FILE],
               "empty": ["submit", "toy", "--impl", EMPTY],
               "folder-out": ["submit", "toy", "--out", EMPTY]},
    "goldens": {}, "examples": {}, "selftest": {}, "starter": {},
}
# An empty folder where a package is looked for: the exit status and the line that says no
# package is there (check and grade grade it 0; submit writes no zip).
EMPTY_HANDED = {("check", "empty"): (1, "no 'toy' package found"),
                ("grade", "empty"): (0, "no assignment package found"),
                ("submit", "empty"): (1, "no 'toy' package found")}


def test_every_command_is_walked():
    parser = cli.build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert set(action.choices) == set(CASES)


@pytest.mark.parametrize("command,case", [(c, k) for c, cases in CASES.items() for k in cases])
def test_a_bad_path_is_one_line_and_a_nonzero_exit(command, case, toy_course, tmp_path,
                                                   monkeypatch, capsys):
    monkeypatch.setenv("TRAINING_SYSTEMS_ROOT", str(toy_course))
    monkeypatch.chdir(tmp_path)
    paths = {MISSING: tmp_path / "nosuch", FILE: tmp_path / "afile", EMPTY: tmp_path / "empty",
             OUT: tmp_path / "out"}
    paths[FILE].write_text("not a folder\n")
    paths[EMPTY].mkdir()
    argv = [str(paths[a]) if a in paths else a.replace(FILE, str(paths[FILE]))
            for a in CASES[command][case]]
    try:
        rc = cli.main(argv)
    except SystemExit as e:  # argparse: a usage error is a clean exit too
        rc = e.code
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    if (command, case) in EMPTY_HANDED:
        status, line = EMPTY_HANDED[command, case]
        assert rc == status and line in out + err, (rc, out, err)
        return
    assert rc == 2, (rc, out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    named = [p for p in (paths[MISSING], paths[FILE], paths[EMPTY]) if str(p) in lines[0]]
    assert named, lines[0]
    assert not paths[OUT].exists(), "nothing is written for a bad path"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile", "empty"]
    assert not any(paths[EMPTY].iterdir())
