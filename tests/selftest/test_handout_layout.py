"""Every handout opens with its task list and a time estimate, puts the tasks before the
background, says how to build the zip to hand in, and keeps its main text (everything above
"## Going further") within 3,000 words (docs/WRITING_TESTS.md, "The handout's layout")."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HANDOUTS = sorted((ROOT / "assignments").glob("*_*/README.md"))
MAIN_TEXT_WORDS = 3000


def layout_problems(text: str, package: str) -> list[str]:
    """One line per broken rule of the layout; [] for a handout that follows it."""
    main = text.split("\n## Going further", 1)[0].split("\n## Sources", 1)[0]
    problems = []
    words = len(main.split())
    if words > MAIN_TEXT_WORDS:
        problems.append(f"main text has {words} words (at most {MAIN_TEXT_WORDS})")
    heads = [m.group(1) for m in re.finditer(r"^## (\S+)", text, re.MULTILINE)]
    time_at, tasks_at = main.find("**Time:**"), main.find("\n## Tasks")
    if time_at < 0 or (tasks_at >= 0 and time_at > tasks_at):
        problems.append("no **Time:** estimate before ## Tasks")
    if "Tasks" not in heads or "Background" not in heads or \
            heads.index("Tasks") > heads.index("Background"):
        problems.append("## Tasks must come before ## Background")
    if f"make submit A={package}" not in main:
        problems.append(f"main text never says `make submit A={package}`")
    if re.search(r"^\s*(?:python3?|pytest) |`(?:python3?|pytest) ", main, re.MULTILINE):
        problems.append("a command runs python/pytest without .venv/bin/")
    return problems


@pytest.mark.parametrize("readme", HANDOUTS, ids=lambda p: p.parent.name)
def test_handout_follows_the_layout(readme):
    package = readme.parent.name.split("_", 1)[1]
    assert layout_problems(readme.read_text(encoding="utf-8"), package) == []


def test_layout_check_can_fail():
    good = ("# A\n\n**Time:** 1 hour.\n\n```bash\nmake submit A=toy\n```\n\n## Tasks\n\nt\n\n"
            "## Background\n\nb\n\n## Going further (not part of the main text)\n\n"
            + "word " * 5000 + "\n\n## Sources\n")
    assert layout_problems(good, "toy") == []
    assert layout_problems(good.replace("**Time:** 1 hour.", ""), "toy")
    assert layout_problems(good.replace("## Going further", "### More"), "toy")  # 5,000 words
    assert layout_problems(good.replace("make submit A=toy", "make check A=toy"), "toy")
    swapped = (good.replace("## Tasks", "## X").replace("## Background", "## Tasks")
               .replace("## X", "## Background"))
    assert layout_problems(swapped, "toy")
    bare = good.replace("make submit A=toy", "make submit A=toy\npython -m autograder check toy")
    assert layout_problems(bare, "toy")
    assert layout_problems(good.replace("\nt\n", "\nrun `pytest tests/toy`\n"), "toy")
