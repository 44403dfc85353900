"""Python installations the child does not see: it imports from the viewed venv only (SPEC §3).

The sandbox mounts whole trees the interpreter needs: `/usr`, the interpreter's prefixes (the
venv, and the base installation whose stdlib and shared library the venv uses). Those trees
hold other Python installations too: the base interpreter's own `site-packages` (a pyenv
build's scipy), Debian's `dist-packages`, an SDK's bundled Python. A co-process of another
interpreter (or `sys.path` pointed at one of those folders) would import from them whatever the
view removes or masks (a scipy whose `ttest_ind` is whole). Every `site-packages` or
`dist-packages` folder under the mounted trees, other than the viewed ones (those on this
interpreter's import path, whose forbidden parts the view replaces), is therefore covered by an
empty read-only folder: the stdlib stays, the installations' packages are absent. The user site
(`~/.local/lib/pythonX.Y/site-packages`, `PYTHONUSERBASE`) is never mounted; where it lies
inside a mounted tree, the walk finds it like any other.

Found by walking the mounted trees once per grader process (symbolic links are not followed; a
link named like a site folder hides its target too); the viewed folders are not walked.
"""

from __future__ import annotations

import functools
import os
import site
import sys

SITE_NAMES = ("site-packages", "dist-packages")


def viewed_site_dirs() -> tuple[str, ...]:
    """The site folders on this interpreter's import path (the venv's): what the child imports
    from, through the view. Not the user site: the child runs `python -I`, which leaves it out."""
    user = os.path.realpath(site.getusersitepackages())
    found = []
    for p in [*site.getsitepackages(), *sys.path]:
        if os.path.basename(p.rstrip("/")) in SITE_NAMES and os.path.isdir(p):
            real = os.path.realpath(p)
            if real not in found and real != user:
                found.append(real)
    return tuple(found)


@functools.lru_cache(maxsize=8)
def foreign_site_dirs(trees: tuple[str, ...], viewed: tuple[str, ...]) -> tuple[str, ...]:
    """Every site folder under `trees` but those in `viewed` (and their insides), sorted."""
    viewed_set = set(viewed)
    found: set[str] = set()
    todo = [t for t in trees if os.path.isdir(t) and os.path.realpath(t) not in viewed_set]
    while todo:
        folder = todo.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
                is_link = entry.is_symlink()
            except OSError:
                continue
            path = entry.path
            if entry.name in SITE_NAMES and (is_dir or (is_link and os.path.isdir(path))):
                real = os.path.realpath(path)
                if real not in viewed_set:  # neither walked nor hidden
                    found.add(real if is_link else path)
            elif is_dir:
                todo.append(path)
    inside = [t.rstrip("/") + "/" for t in trees]
    return tuple(sorted(p for p in found if any((p + "/").startswith(t) for t in inside)))


def hiding_args(trees: list[str], empty: str) -> list[str]:
    """bwrap arguments covering each foreign site folder under `trees` with the empty folder
    `empty` (read-only); after the mounts of `trees` themselves."""
    viewed = viewed_site_dirs()
    dirs = foreign_site_dirs(tuple(sorted(set(trees))), viewed)
    return [arg for d in dirs for arg in ("--ro-bind", empty, d)]
