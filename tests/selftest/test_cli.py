"""The command line: help text on every command and option, `--task` by number or by a
fragment of a task's name, and a report that is not hard-wrapped when piped."""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys

import pytest

from autograder import cli, commands


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices), action


def test_every_command_and_option_has_help():
    commands, action = _subparsers(cli.build_parser())
    assert {"check", "test", "submit", "grade", "bulk", "gradescope", "goldens", "examples", "release",
            "nbgrader", "demo", "selftest", "mutation", "starter"} <= set(commands)
    listed = {a.dest: a.help for a in action._choices_actions}
    missing = [name for name in commands if not listed.get(name)]
    for name, sub in commands.items():
        missing += [f"{name} {a.dest}" for a in sub._actions
                    if not isinstance(a, argparse._HelpAction) and not a.help]
    assert not missing, missing


def test_task_takes_a_number_or_a_name_fragment(toy):
    assert commands.resolve_task(toy, "2") == 2 and commands.resolve_task(toy, None) is None
    assert commands.resolve_task(toy, "ORDER") == 1  # a word of the title, any case
    assert commands.resolve_task(toy, "basic") == 2  # a fragment of its test file's name
    with pytest.raises(cli.AssignmentError, match=r"matches no task of toy \(1: order; 2: add"):
        commands.resolve_task(toy, "nonsense")


def test_check_by_task_name_on_the_command_line(toy_course, monkeypatch, capsys):
    monkeypatch.setenv("TRAINING_SYSTEMS_ROOT", str(toy_course))
    assert cli.main(["check", "toy", "--impl", str(toy_course / "solutions"), "--task", "order",
                     "--isolation", "none"]) == 0
    out = capsys.readouterr().out
    assert "check toy task 1" in out and "test_basic" not in out
    assert cli.main(["check", "toy", "--task", "zzz", "--isolation", "none"]) == 2
    assert "matches no task" in capsys.readouterr().err


def test_piped_report_keeps_long_paths_on_one_line(toy_course, tmp_path):
    """A report piped to another program has no hard line breaks: a path longer than 80
    columns stays whole (before: rich wrapped at 80 columns and split it)."""
    impl = tmp_path / ("an_implementation_folder_with_a_long_name_" * 3)
    shutil.copytree(toy_course / "solutions", impl)
    env = {**os.environ, "TRAINING_SYSTEMS_ROOT": str(toy_course), "COLUMNS": "",
           "TERM": "dumb"}
    env.pop("COLUMNS")
    done = subprocess.run([sys.executable, "-m", "autograder", "check", "toy", "--impl", str(impl),
                           "--isolation", "none"], env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert any(str(impl) in line for line in done.stdout.splitlines()), done.stdout


def test_test_command_passes_other_options_to_pytest(toy_course, monkeypatch, capsys):
    monkeypatch.setenv("TRAINING_SYSTEMS_ROOT", str(toy_course))
    ran = []
    monkeypatch.setattr(commands.subprocess, "run", lambda cmd, **kw: ran.append(cmd) or
                        subprocess.CompletedProcess(cmd, 0))
    impl = str(toy_course / "solutions")
    assert cli.main(["test", "toy", "--impl", impl, "-x", "-k", "add"]) == 0
    assert ran[0][-5:] == ["--impl", impl, "-x", "-k", "add"]
    assert str(toy_course / "tests" / "toy" / "public") in ran[0]
    assert cli.main(["test", "toy", "--impl", str(toy_course / "nowhere")]) == 2
    assert "nowhere: no such folder" in capsys.readouterr().err and len(ran) == 1
    with pytest.raises(SystemExit):
        cli.main(["check", "toy", "-x"])  # only `test` passes unknown options on
