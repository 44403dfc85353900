"""Which handout task a graded test belongs to: the first line of its test file's module
docstring, `Task N: title` (docs/WRITING_TESTS.md). Trusted: test files are parsed, never
imported. `goldens` stores each test's task in the manifest; reports group by it.
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

from ..assignments import Visibility
from ..sandbox.threadsafe_ast import parse

# "Task 4: backward(): seeding, ..."; also "Task 4 (hidden): ..." and "Task 4 — ..."
TASK_LINE = re.compile(r"^Task\s+(\d+)\s*(?:\([^)]*\))?\s*(?::|—|–|-)\s*(.*)$")
TITLE_END = re.compile(r"\.\s|\s—\s|:\s|\s–\s")
MAX_TITLE = 60


def title_of(text: str, cut: bool = True) -> str:
    """The short title: the docstring line's text up to its first '. ', ': ' or ' — ', at
    most MAX_TITLE characters (cut at a word) unless `cut` is False."""
    title = TITLE_END.split(text.strip(), maxsplit=1)[0].strip().rstrip(".")
    if cut and len(title) > MAX_TITLE:
        title = title[:MAX_TITLE].rsplit(" ", 1)[0].rstrip(",;") + "…"
    return title


def task_of_file(path: Path, cut: bool = True) -> tuple[int, str] | None:
    """(number, title) from the file's module docstring, or None when it names no task (or
    cannot be read); `cut` as in title_of. Uncut, the title may run on over the docstring's
    first paragraph (a title wrapped at the line's end is whole)."""
    try:
        st = path.stat()
        doc = _module_docstring(str(path), st.st_mtime_ns, st.st_size)
    except (OSError, SyntaxError, ValueError):
        return None
    lines = doc.splitlines()
    match = TASK_LINE.match(lines[0] if doc else "")
    if match is None:
        return None
    text = match.group(2)
    if not cut:  # the first paragraph: the docstring's lines up to the first blank one
        rest = lines[1:]
        text = " ".join([text, *(ln.strip() for ln in rest[:next(
            (i for i, ln in enumerate(rest) if not ln.strip()), len(rest))])])
    return int(match.group(1)), title_of(text, cut)


@functools.lru_cache(maxsize=1024)
def _module_docstring(path: str, mtime_ns: int, size: int) -> str:
    """The stripped module docstring of the file at `path` ("" when none), parsed once per
    version of the file (its modification time and size key the cache: every golden store's
    load names the tasks of every test file, and parsing is most of that load's cost)."""
    with open(path, encoding="utf-8") as f:
        return (ast.get_docstring(parse(f.read())) or "").strip()


def whole_task_titles(files: list[Path]) -> dict[int, str]:
    """{task: its whole title (never cut with "…")} from the files' docstrings; the first
    file naming a task gives its title."""
    titles: dict[int, str] = {}
    for path in files:
        task = task_of_file(path, cut=False)
        if task is not None:
            titles.setdefault(*task)
    return titles


def task_table(files_by_visibility: dict[Visibility, list[Path]]
               ) -> dict[tuple[Visibility, str], tuple[int, str]]:
    """{(visibility, file name): (task number, title)} for every file that names its task. A
    task's title is its public file's (hidden files describe their extra cases instead)."""
    found = {(vis, f.name): task_of_file(f) for vis, files in files_by_visibility.items()
             for f in files}
    titles: dict[int, str] = {}
    for _, task in sorted(found.items(), key=lambda kv: kv[0][0] != Visibility.PUBLIC):
        if task is not None:
            titles.setdefault(task[0], task[1])
    return {key: (task[0], titles[task[0]]) for key, task in found.items() if task is not None}


def natural_key(text: str) -> list:
    """Sort key that orders embedded numbers by value: grad[2] before grad[10]."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", text)]
